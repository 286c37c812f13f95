/* flops.h - floating-point operations per training step.
 *
 * Model FLOPs count the work the model needs (Korthikanti et al. 2022
 * Eq. 7): per token 6 N + 12 L s (a d), N the parameters that multiply
 * (every layer's projections, the active experts and the output head; not
 * the embedding lookup or norms), the second term the attention scores and
 * their weighted sum (QK^T and AV, 2 s a d FLOPs each in forward, x3 for
 * forward and backward). Hardware FLOPs add what recomputation runs again:
 * full recompute one more forward of every transformer layer (not the
 * head: Megatron-LM 2021 Eq. 3), selective recompute the attention core's
 * forward, 4 L s (a d) per token. Causal masking is not halved (the papers'
 * convention). Per rank: the busiest pipeline stage, one of the plan's
 * segment starts (plan.h). Derivation and worked examples:
 * docs/formulas.md, "FLOPs".
 */
#ifndef DISTCALC_FLOPS_H
#define DISTCALC_FLOPS_H

#include <stdint.h>

#include "distcalc/batch.h"
#include "distcalc/config.h"

struct dc_plan;

struct dc_flops {
	uint64_t matmul_params;         /* N: parameters that multiply, per token (active) */
	uint64_t layer_matmul_params;   /* of which in transformer layers */
	double attention_core_fwd_per_token; /* 4 s a d summed over layers (MLA: 2sa(d_qk + d_v)) */
	double model_per_token;         /* 6 N + 3 x attention core */
	/* of the model's: the attention core's masked blocks a flash kernel
	 * skips (causal), forward and backward; 0 under eager attention */
	double masked_per_token;
	double recompute_per_token;     /* forward FLOPs run again, with the core the kernels run */
	double flash_backward_per_token; /* a flash kernel's backward rebuilding QK^T: s a d_qk per layer (causal half) */
	double hardware_per_token;      /* model - masked + recompute + flash backward: what the kernels run */
	uint64_t tokens_per_step;
	double model_per_step;
	double hardware_per_step;
	/* the model FLOPs with the softmax layers' attention core halved for
	 * the causal mask, as Megatron-LM counts them (the others count it
	 * whole, as the papers and torchtitan do) */
	double model_causal_per_token, model_causal_per_step;
	/* one rank of the busiest pipeline stage: its tp share of its layers
	 * (dense and MoE layers counted apart) and, on the last stage, the
	 * head, for its dp replica's tokens */
	uint64_t busiest_stage;
	double model_per_rank;
	double hardware_per_rank;
};

/* Fills *f for the plan, with the tokens per step of its batch (batch.h).
 * The busiest stage is found among the plan's segment starts, O(1).
 * Returns 0, or -1 with *error set to static text if the parameter terms
 * overflow. */
int dc_flops_compute(const struct dc_plan *p, const struct dc_batch *b, struct dc_flops *f, const char **error);

#endif
