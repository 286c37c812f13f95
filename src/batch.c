/* batch.c - batch accounting; see batch.h. */
#include "distcalc/batch.h"

#include <string.h>

#include "distcalc/util.h"

int dc_batch_compute(const struct dc_config *cfg, struct dc_batch *b, const char *name,
		     struct dc_diag *diag)
{
	memset(b, 0, sizeof(*b));
	b->micro_batch_size = cfg->training.micro_batch_size;
	b->grad_accum_steps = cfg->training.grad_accum_steps;
	b->replicas = cfg->parallel.dp;
	b->seq_length = cfg->model.seq_length;
	/* course section 3: microbatch x accumulation steps x data replicas */
	if (dc_mul_u64(b->micro_batch_size, b->grad_accum_steps, &b->samples_per_replica) ||
	    dc_mul_u64(b->samples_per_replica, b->replicas, &b->global_batch_size) ||
	    dc_mul_u64(b->global_batch_size, b->seq_length, &b->tokens_per_step) ||
	    dc_mul_u64(cfg->parallel.tp, cfg->parallel.pp, &b->gpus_per_sample)) {
		dc_diag_error(diag, DC_ERR_CONFIG,
			      "%s: error: 'training.micro_batch_size' x 'training.grad_accum_steps' x 'parallel.dp' x 'model.seq_length': tokens per step overflow 64 bits",
			      name);
		return -1;
	}
	return 0;
}
