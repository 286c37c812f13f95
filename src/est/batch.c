/* batch.c - batch accounting; see batch.h. */
#include "distcalc/batch.h"

#include <string.h>

#include "distcalc/plan.h"
#include "distcalc/util.h"

int dc_batch_compute(const struct dc_plan *p, struct dc_batch *b, const char **error)
{
	memset(b, 0, sizeof(*b));
	b->micro_batch_size = p->layout.micro_batch_size;
	b->grad_accum_steps = p->layout.grad_accum_steps;
	b->replicas = p->layout.dp;
	b->seq_length = p->in->model.seq_length;
	/* course section 3: microbatch x accumulation steps x data replicas */
	if (dc_mul_u64(b->micro_batch_size, b->grad_accum_steps, &b->samples_per_replica) ||
	    dc_mul_u64(b->samples_per_replica, b->replicas, &b->global_batch_size) ||
	    dc_mul_u64(b->global_batch_size, b->seq_length, &b->tokens_per_step) ||
	    dc_mul_u64(p->layout.tp * p->layout.cp, p->layout.pp, &b->gpus_per_sample)) {
		*error = "'training.micro_batch_size' x 'training.grad_accum_steps' x 'parallel.dp' x 'model.seq_length': tokens per step overflow 64 bits";
		return -1;
	}
	return 0;
}
