/* batch.h - batch accounting: how many samples and tokens one step consumes.
 *
 * Global batch = micro_batch_size x grad_accum_steps x dp, not x every GPU:
 * the tp x pp (x cp) ranks of one model replica process the same samples
 * (course section 3). The layout (b, accumulation, dp, tp, pp) is the
 * plan's (plan.h), so a what-if layout gets its own batch. Derivation:
 * docs/formulas-systems.md, "Batch".
 */
#ifndef DISTCALC_BATCH_H
#define DISTCALC_BATCH_H

#include <stdint.h>

#include "distcalc/config.h"

struct dc_plan;

struct dc_batch {
	uint64_t micro_batch_size;     /* b, samples per microbatch per replica */
	uint64_t grad_accum_steps;     /* microbatches per replica per step */
	uint64_t replicas;             /* dp */
	uint64_t samples_per_replica;  /* b x grad_accum_steps */
	uint64_t global_batch_size;    /* b x grad_accum_steps x dp */
	uint64_t seq_length;
	uint64_t tokens_per_step;      /* global_batch_size x seq_length */
	uint64_t gpus_per_sample;      /* tp x cp x pp: ranks that jointly process one sample */
};

/* Fills *b for the plan's layout. Returns 0, or -1 with *error set to
 * static text naming the keys when a product overflows 64 bits. */
int dc_batch_compute(const struct dc_plan *p, struct dc_batch *b, const char **error);

#endif
