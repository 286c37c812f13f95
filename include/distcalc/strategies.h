/* strategies.h - pure DP, FSDP and the configured layout on the same
 * cluster and model, aligned on tokens per step.
 *
 * The course's point (section 9): with the GPU count fixed, TP spends several
 * GPUs on one sample, so DP and TP process different token counts per step
 * unless the work is aligned first. Every variant keeps the configured
 * global batch when it can: world ranks of pure DP/FSDP each take
 * global_batch / world samples, as micro_batch x grad_accum with
 * micro_batch the largest divisor of that count not above the configured
 * micro batch. When world does not divide the global batch they take
 * floor(global_batch / world) samples, at least 1: other work, marked
 * not aligned and never ranked (dc_strategies_rank). Each variant is a
 * layout (plan.h): the comparison derives a plan for it and runs the same
 * batch, comm and memory estimators as the report. Derivation:
 * docs/formulas-systems.md, "Aligned comparison".
 */
#ifndef DISTCALC_STRATEGIES_H
#define DISTCALC_STRATEGIES_H

#include <stdint.h>

#include "distcalc/batch.h"
#include "distcalc/comm.h"
#include "distcalc/config.h"
#include "distcalc/memory.h"

struct dc_plan;
struct dc_layout;

enum dc_variant {
	DC_VARIANT_DP,         /* tp = pp = 1, dp = world, no sharding */
	DC_VARIANT_FSDP,       /* tp = pp = 1, dp = world, fsdp */
	DC_VARIANT_CONFIGURED, /* the config as given */
	DC_VARIANT_COUNT,
};

struct dc_variant_result {
	/* the variant's layout */
	uint64_t tp, pp, dp;
	uint64_t cp; /* 1 in the pure-DP and FSDP variants */
	enum dc_sharding sharding;
	uint64_t micro_batch_size;
	uint64_t grad_accum_steps;

	int aligned;           /* tokens_per_step equals the configured one (else never ranked) */
	uint64_t tokens_per_step;
	uint64_t peak_bytes;   /* most loaded rank */
	int fits;
	uint64_t comm_bytes_per_rank; /* per step */
	double comm_time_s;           /* per step, nothing overlapped */
	double comm_bytes_per_token;  /* comm_bytes_per_rank x world / tokens_per_step */
	double comm_time_per_token_s; /* comm_time_s / tokens_per_step */
};

struct dc_strategies_result {
	struct dc_variant_result v[DC_VARIANT_COUNT];
};

/* The layout of variant `v` of the plan's (configured) layout: degrees,
 * sharding and batch split changed, everything else as configured. Sets
 * *aligned to 0 when the global batch cannot be split evenly. */
void dc_variant_layout(const struct dc_plan *p, enum dc_variant v, struct dc_layout *out, int *aligned);

/* 1 when `lay` (a dc_variant_layout of p) is p's own layout, sharding and
 * expert split included: dc_plan_derive_from(p, lay) would give p again,
 * so the variant's results are p's (a pure-DP config's pure-DP variant, a
 * plain FSDP config's FSDP variant). */
int dc_variant_is_configured(const struct dc_plan *p, const struct dc_layout *lay);

/* Makes *vp the plan of `lay`, a dc_variant_layout of p that is not p
 * (dc_variant_is_configured): derived from p when *derived is 0 (then
 * set), else *vp, a variant's plan, resharded in place (pure DP's and
 * FSDP's layouts differ in their sharding alone: dc_plan_reshard), the
 * plan dc_plan_derive_from(p, lay) gives, without copying one. Returns
 * 1 when derived, 0 when resharded, or -1 with *error set. */
int dc_variant_plan(const struct dc_plan *p, const struct dc_layout *lay, struct dc_plan *vp, int *derived,
		    const char **error);

/* Evaluates every variant of the plan's layout. The configured row reads
 * the plan's own results (`b`, `c`, `m`: the batch, comm and memory
 * estimators' output for `p`); the others derive a plan per variant and
 * run the same estimators. Returns 0, or -1 with *error set to static text
 * naming the keys. No allocation. */
int dc_strategies_compute(const struct dc_plan *p, const struct dc_batch *b, const struct dc_comm *c,
			  const struct dc_memory_result *m, struct dc_strategies_result *out,
			  const char **error);

/* The order the report lists the variants in, and their ranks. A variant
 * that does not fit (dc_variant_result.fits: its most loaded rank's peak
 * above the GPU's memory) or is not aligned (dc_variant_result.aligned:
 * it runs other tokens per step than the configured layout, so other
 * work) is never ranked: rank 0, listed after every ranked one, in
 * variant order. The ones that fit and are aligned rank 1, 2, ... by
 * tokens/s per GPU, highest first, when `tokens_per_s_per_gpu` is non-NULL
 * (the step variants: dc_step.variants, all available); else, without GPU
 * speeds, by communication time per token, lowest first (by_step 0). Ties
 * keep variant order. Pure: no allocation, no failure. */
struct dc_strategies_order {
	int by_step;                      /* 1: ranked by tokens/s per GPU */
	enum dc_variant order[DC_VARIANT_COUNT]; /* report order */
	uint64_t rank[DC_VARIANT_COUNT];  /* by variant: 1 = best; 0 = does not fit */
};
void dc_strategies_rank(const struct dc_strategies_result *r, const double *tokens_per_s_per_gpu,
			struct dc_strategies_order *out);

/* dc_strategies_compute, keeping each aligned variant's plan, batch and
 * collectives in *parts (results.h; NULL: not kept) with parts->of = p,
 * for dc_step_variants_from. */
struct dc_variant_parts;
int dc_strategies_compute_parts(const struct dc_plan *p, const struct dc_batch *b, const struct dc_comm *c,
				const struct dc_memory_result *m, struct dc_strategies_result *out,
				struct dc_variant_parts *parts, const char **error);

const char *dc_variant_name(enum dc_variant v);

#endif
