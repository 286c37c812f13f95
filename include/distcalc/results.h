/* results.h - every estimator's result, as data.
 *
 * The runner derives a plan (plan.h) from the input, then calls the
 * estimators it needs in dependency order; each fills its own member of
 * struct dc_results and may read the members of the estimators it names in
 * `needs`. Sections (section.h) present results; they never compute.
 *
 * An estimator's compute does no I/O, no allocation and no text: on failure
 * it returns -1 and leaves in `error` a static description ("'model' x
 * 'precision': model-state bytes per rank overflow 64 bits") that the runner
 * prefixes with the config name. The same compute serves the report, the
 * strategies comparison, a search and every what-if.
 */
#ifndef DISTCALC_RESULTS_H
#define DISTCALC_RESULTS_H

#include <stdint.h>

#include "distcalc/batch.h"
#include "distcalc/checkpoint.h"
#include "distcalc/comm.h"
#include "distcalc/compute.h"
#include "distcalc/flops.h"
#include "distcalc/loss.h"
#include "distcalc/memory.h"
#include "distcalc/params.h"
#include "distcalc/plan.h"
#include "distcalc/ring.h"
#include "distcalc/step.h"
#include "distcalc/strategies.h"

struct dc_plan;

enum dc_est {
	DC_EST_MODEL,
	DC_EST_BATCH,
	DC_EST_MEMORY,
	DC_EST_RING,
	DC_EST_COMM,
	DC_EST_STRATEGIES,
	DC_EST_FLOPS,
	DC_EST_COMPUTE,
	DC_EST_STEP,
	DC_EST_STEP_VARIANTS,
	DC_EST_CHECKPOINT,
	DC_EST_LOSS,
	DC_EST_COUNT,
};

#define DC_EST_BIT(e) (1u << (e))
#define DC_EST_ALL ((1u << DC_EST_COUNT) - 1u)

/* The model's parameters term by term and the most loaded rank's share. */
struct dc_model_result {
	struct dc_param_terms terms;
	struct dc_stage_params most; /* the rank holding the most parameters */
	uint64_t most_stage;
};

/* The strategies comparison's aligned variants (pure DP, FSDP) as the
 * strategies row derived and priced them: their plan, batch and
 * collectives, which the step row's variants (DC_EST_STEP_VARIANTS) of the
 * same evaluation read instead of deriving and pricing them again. `of`:
 * the plan they are variants of (NULL: none held). */
struct dc_variant_parts {
	const struct dc_plan *of;
	/* the variants' layout (pure DP's and FSDP's differ in their sharding
	 * alone) is `of`'s but for its sharding (dc_plan_derive_copies: a
	 * configured layout of tp = pp = cp = 1 over every rank): their
	 * kernels are of's, resharded (step_variants.c) */
	int copies_of;
	/* variant v is `of` itself (dc_variant_is_configured): its results
	 * are of's, and comm[v] is not set */
	int is_of[DC_VARIANT_CONFIGURED];
	struct dc_layout layout[DC_VARIANT_CONFIGURED]; /* dc_variant_layout's */
	/* the plan of the variants that are not `of`, at the sharding of the
	 * last one priced (dc_variant_plan reshards it in place), and their
	 * batch (it reads no sharding) */
	struct dc_plan plan;
	struct dc_batch batch;
	struct dc_comm comm[DC_VARIANT_CONFIGURED];
};

struct dc_results {
	uint32_t done; /* DC_EST_BIT of every estimator computed */
	struct dc_model_result model;
	struct dc_batch batch;
	struct dc_memory_result memory;
	struct dc_ring ring;
	struct dc_comm comm;
	struct dc_strategies_result strategies;
	struct dc_variant_parts variant_parts; /* the strategies row's, for the step row's variants */
	struct dc_flops flops;
	struct dc_compute compute;
	struct dc_step step; /* DC_EST_STEP_VARIANTS fills step.variants */
	struct dc_checkpoint_result checkpoint;
	struct dc_loss_result loss;
	const char *error; /* static text, set when a compute fails */
};

/* One registry row. `needs` lists (as DC_EST_BIT) the results compute
 * reads: rows above it in dc_estimators, so table order is a dependency
 * order. */
struct dc_estimator {
	const char *name;
	uint32_t needs;
	int (*compute)(const struct dc_plan *plan, struct dc_results *r);
};

extern const struct dc_estimator dc_estimators[DC_EST_COUNT];

/* Computes every estimator in `wanted` and what they need, each once, in
 * table (dependency) order. r->done starts from 0
 * and gets each estimator's bit as it completes; members of the others are
 * left as they were. Returns 0, or -1 with r->error set (the first failing
 * estimator's text; prefix it with the config name and ": error: "). No
 * allocation, no I/O. The same as dc_estimate_with(plan, wanted, 0, r). */
int dc_estimate(const struct dc_plan *plan, uint32_t wanted, struct dc_results *r);

/* dc_estimate, keeping results the caller holds: the members of *r of the
 * estimators in `have` are taken as computed (the caller's, perhaps
 * perturbed: a what-if's slower kernel) and are read, never recomputed,
 * by the rows that need them; a row needed only by held rows is not run
 * either. r->done starts from `have` and gets each computed estimator's
 * bit as it completes. A search prices memory (DC_EST_BATCH, DC_EST_MEMORY)
 * and then, for the layouts that fit, the step with those two in `have`.
 * Returns 0, or -1 with r->error set, as dc_estimate. No allocation, no
 * I/O. */
int dc_estimate_with(const struct dc_plan *plan, uint32_t wanted, uint32_t have, struct dc_results *r);

#endif
