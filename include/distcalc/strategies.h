/* strategies.h - pure DP, FSDP and the configured layout on the same
 * cluster and model, aligned on tokens per step.
 *
 * The course's point (section 9): with the GPU count fixed, TP spends several
 * GPUs on one sample, so DP and TP process different token counts per step
 * unless the work is aligned first. Every variant keeps the configured
 * global batch: world ranks of pure DP/FSDP each take global_batch / world
 * samples, as micro_batch x grad_accum with micro_batch the largest divisor
 * of that count not above the configured micro batch. Derivation:
 * docs/formulas-systems.md, "Aligned comparison".
 */
#ifndef DISTCALC_STRATEGIES_H
#define DISTCALC_STRATEGIES_H

#include <stdint.h>

#include "distcalc/config.h"
#include "distcalc/diag.h"

enum dc_variant {
	DC_VARIANT_DP,         /* tp = pp = 1, dp = world, no sharding */
	DC_VARIANT_FSDP,       /* tp = pp = 1, dp = world, fsdp */
	DC_VARIANT_CONFIGURED, /* the config as given */
	DC_VARIANT_COUNT,
};

struct dc_variant_result {
	struct dc_config cfg;  /* the variant's config */
	uint64_t tp, pp, dp;
	enum dc_sharding sharding;
	uint64_t micro_batch_size, grad_accum_steps;
	int aligned;           /* tokens_per_step equals the configured one */
	uint64_t tokens_per_step;
	uint64_t peak_bytes;   /* most loaded rank */
	int fits;
	uint64_t comm_bytes_per_rank; /* per step */
	double comm_time_s;           /* per step, nothing overlapped */
	double comm_bytes_per_token;  /* comm_bytes_per_rank x world / tokens_per_step */
	double comm_time_per_token_s; /* comm_time_s / tokens_per_step */
};

/* The variant's config: layout, sharding and batch split changed, every
 * other field as in `cfg`. Sets *aligned. */
void dc_variant_config(const struct dc_config *cfg, enum dc_variant v, struct dc_config *out,
		       int *aligned);

/* Evaluates every variant into r[DC_VARIANT_COUNT]. Returns 0, or -1 with
 * the problem in `diag`. */
int dc_strategies_compute(const struct dc_config *cfg, struct dc_variant_result *r, const char *name,
			  struct dc_diag *diag);

const char *dc_variant_name(enum dc_variant v);

struct dc_strategies_result {
	struct dc_variant_result v[DC_VARIANT_COUNT];
};

#endif
