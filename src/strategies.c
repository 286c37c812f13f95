/* strategies.c - the aligned comparison; see strategies.h. */
#include "distcalc/strategies.h"

#include <stdlib.h>

#include "distcalc/batch.h"
#include "distcalc/comm.h"
#include "distcalc/memory.h"
#include "distcalc/util.h"

void dc_variant_config(const struct dc_config *cfg, enum dc_variant v, struct dc_config *out,
		       int *aligned)
{
	uint64_t global, per_replica, mb;

	*out = *cfg;
	*aligned = 1;
	if (v == DC_VARIANT_CONFIGURED)
		return;
	if (dc_mul_u64(cfg->training.micro_batch_size, cfg->training.grad_accum_steps, &global) ||
	    dc_mul_u64(global, cfg->parallel.dp, &global)) {
		*aligned = 0; /* the configured batch overflows: dc_batch_compute says so */
		return;
	}
	out->parallel.tp = 1;
	out->parallel.pp = 1;
	/* no tp group to split activations over, no pipeline to interleave:
	 * the loader rejects these with tp = 1 or pp = 1 */
	out->parallel.sequence_parallel = 0;
	out->parallel.virtual_pipeline = 1;
	out->parallel.dp = cfg->world_size;
	out->parallel.sharding = v == DC_VARIANT_FSDP ? DC_SHARD_FSDP : DC_SHARD_NONE;
	/* same global batch over world replicas */
	if (global % cfg->world_size != 0) {
		*aligned = 0;
		per_replica = global / cfg->world_size ? global / cfg->world_size : 1;
	} else {
		per_replica = global / cfg->world_size;
	}
	for (mb = cfg->training.micro_batch_size < per_replica ? cfg->training.micro_batch_size : per_replica;
	     mb > 1 && per_replica % mb != 0; mb--)
		;
	out->training.micro_batch_size = mb;
	out->training.grad_accum_steps = per_replica / mb;
}

int dc_strategies_compute(const struct dc_config *cfg, struct dc_variant_result *r, const char *name,
			  struct dc_diag *diag)
{
	for (int v = 0; v < DC_VARIANT_COUNT; v++) {
		struct dc_variant_result *x = &r[v];
		struct dc_mem_ledger *classes;
		struct dc_batch b;
		struct dc_comm c;
		uint64_t n, most;

		dc_variant_config(cfg, (enum dc_variant)v, &x->cfg, &x->aligned);
		if (dc_batch_compute(&x->cfg, &b, name, diag) != 0 || dc_comm_compute(&x->cfg, &c, name, diag) != 0)
			return -1;
		classes = dc_calloc(x->cfg.parallel.pp, sizeof(*classes));
		if (!classes) {
			dc_diag_error(diag, DC_ERR_INTERNAL, "error: out of memory");
			return -1;
		}
		if (dc_memory_compute(&x->cfg, classes, &n, &most, name, diag) != 0) {
			free(classes);
			return -1;
		}
		x->peak_bytes = classes[most].peak_bytes;
		x->fits = classes[most].fits;
		free(classes);
		x->tokens_per_step = b.tokens_per_step;
		x->comm_bytes_per_rank = c.bytes_per_rank;
		x->comm_time_s = c.time_s;
		x->comm_bytes_per_token =
			(double)c.bytes_per_rank * (double)cfg->world_size / (double)b.tokens_per_step;
		x->comm_time_per_token_s = c.time_s / (double)b.tokens_per_step;
	}
	for (int v = 0; v < DC_VARIANT_COUNT; v++)
		if (r[v].tokens_per_step != r[DC_VARIANT_CONFIGURED].tokens_per_step)
			r[v].aligned = 0;
	return 0;
}

const char *dc_variant_name(enum dc_variant v)
{
	static const char *const names[] = {"pure_dp", "fsdp", "configured"};
	return names[v];
}
