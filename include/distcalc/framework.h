/* framework.h - training.framework's rules: the gradient and parameter
 * buckets, and which overlap each framework runs, for a plan's layout
 * (the search and the strategies' variants change pp and the sharding, so
 * these are read per plan, not fixed at load). docs/step-model.md,
 * "Framework rules", derives each with its source file and line. Pure
 * functions of the plan; no allocation. */
#ifndef DISTCALC_FRAMEWORK_H
#define DISTCALC_FRAMEWORK_H

#include <stdint.h>

struct dc_plan;
struct dc_config;

/* Megatron-Core's default bucket, in parameters: max(40,000,000,
 * 1,000,000 x dp_cp) (megatron/training/training.py, the dp x cp group;
 * megatron/core/distributed/distributed_data_parallel.py). */
uint64_t dc_framework_megatron_bucket_params(uint64_t dp_cp);

/* The gradient bucket in bytes (DDP AllReduce, ZeRO-1/2's collective below):
 * parallel.bucket_size when given or under "custom", else the framework's
 * (megatron: the bucket above x grad_bytes; deepspeed: 5 x 10^8 elements
 * x grad_bytes; torchtitan: one transformer block's gradients, its
 * per-module replicate). Never 0. */
uint64_t dc_framework_grad_bucket_bytes(const struct dc_plan *p);

/* The bucket of ZeRO-1/2's AllGather of the updated parameters: the same
 * parameters as a gradient bucket at param_bytes (Megatron's buffer keeps
 * one bucket layout for both), DeepSpeed's allgather_bucket_size (5 x
 * 10^8 elements), else parallel.bucket_size. Never 0. */
uint64_t dc_framework_param_bucket_bytes(const struct dc_plan *p);

/* overlap.dp as given, else the framework's: false under deepspeed but
 * for ZeRO-3 (its overlap_comm default), true otherwise. */
int dc_framework_overlap_dp(const struct dc_plan *p);

/* 1 when ZeRO-1/2 reduce each gradient bucket with an AllReduce of the
 * whole bucket, each rank keeping its own slice: DeepSpeed's default
 * (use_multi_rank_bucket_allreduce, deepspeed/runtime/zero/config.py:119,
 * stage_1_and_2.py average_tensor at edaa7221); 0 for a ReduceScatter
 * (Megatron's distributed optimizer, custom, torchtitan). */
int dc_framework_zero_grad_allreduce(const struct dc_plan *p);

/* overlap.param_gather as given, else true under megatron with sharding
 * zero1 (the recipes' --overlap-param-gather), else false; false for a
 * derived layout that is not zero1. */
int dc_framework_param_gather(const struct dc_plan *p);

/* parallel.reshard_after_forward as given, else torchtitan's "default"
 * policy (reshard only without a pipeline), else true. */
int dc_framework_reshard_after_forward(const struct dc_plan *p);

/* Of `other` (a stage's parameters outside its layer units: embedding,
 * final norm, head), those torchtitan wraps as tok_embeddings' own FSDP
 * unit, under the layers' reshard policy (torchtitan/distributed/
 * fsdp.py:252-257 at b5bcd76c): the embedding on stage 0 (under DualPipe
 * on ranks 0 and pp - 1, which both hold it) with untied weights under
 * training.framework torchtitan and fsdp_unit layer; 0 otherwise (the
 * root unit holds all of `other`). */
uint64_t dc_framework_fsdp_embedding_unit(const struct dc_plan *p, uint64_t stage, uint64_t other);

/* How the TP collectives meet the GEMMs (step.c). */
enum dc_tp_overlap {
	DC_TP_WAIT_ALL,  /* torchtitan's DTensor TP: every collective waited for */
	DC_TP_ASYNC_BWD, /* Megatron's asynchronous backward collectives behind the backward's GEMMs */
	DC_TP_ALL,       /* custom overlap.tp: every collective behind all of the layer's matmuls */
	DC_TP_TILED,     /* Megatron's --tp-comm-overlap, torchtitan's async TP: tp tiles beside one GEMM each */
};

enum dc_tp_overlap dc_framework_tp_overlap(const struct dc_plan *p);

/* What a sequence-parallel AllGather feeding a linear layer's GEMM
 * carries (docs/formulas-systems.md, "Tensor parallel", FP8 gathers): the
 * working precision, or under precision.compute "fp8" the tensor each
 * rank quantized on its own shard before the gather, where the
 * framework's recipe does (the TP collectives, src/axis/tp.c, and the
 * casts' cost, src/est/compute.c, read the same answer). */
enum dc_tp_gather_format {
	DC_TP_GATHER_WORKING, /* the activations' working precision (BF16) */
	DC_TP_GATHER_FP8,     /* one byte an element, a per-tensor scale */
	DC_TP_GATHER_MXFP8,   /* one byte an element and an E8M0 scale per 32 */
};

enum dc_tp_gather_format dc_framework_tp_gather_format(const struct dc_config *c);

/* Whether each FP8 shard's amax is reduced over the tp group (one small
 * AllReduce, max) before the shard is cast and gathered: per-tensor
 * current scaling with FP8 gathers (Transformer Engine's
 * Float8CurrentScalingQuantizer with the tp group as its amax reduction
 * group; torchao's tensorwise cast of a sequence-sharded DTensor, whose
 * partial max DTensor reduces). Delayed scaling reduces its amaxes once a
 * step, MXFP8 has no per-tensor amax (docs/formulas-systems.md, "FP8
 * gathers", the amax reductions). */
int dc_framework_tp_amax_reduced(const struct dc_config *c);

/* Whether, under sequence parallelism, a column-parallel linear keeps its
 * gathered input (all b s h of it, autograd's saved tensor) for its weight
 * gradient instead of the s/t shard it gathers again in backward
 * (Megatron's): torchtitan's (DTensor/spmd_types TP and torch's async TP
 * leave the gathered tensor to the stock linear, whose matmul saves it).
 * The comm (src/axis/tp.c: no re-gather) and the activation ledger
 * (activation.c: the Q/K/V, MLP and output layer's inputs gathered) read it
 * (docs/formulas-systems.md, "Tensor parallel"). */
int dc_framework_tp_keeps_gathered_input(const struct dc_config *c);

/* Whether the loss runs as a vocabulary-parallel decomposition whose
 * backward holds, beside the saved FP32 log-probabilities, a zeroed
 * gradient, their exponential and the sum (12 bytes a logit of this
 * rank's V / t, where the fused kernels' backward holds 8): torchtitan at
 * tp > 1 (framework.c; docs/formulas.md, "Embedding and output"). */
int dc_framework_loss_parallel(const struct dc_plan *p);

/* Whether the framework's loss writes its gradient in place of the FP32
 * softmax it saved, so its backward adds only the 16-bit copy the head
 * reads (2 bytes a logit, not 8): Megatron's */
int dc_framework_loss_in_place(const struct dc_config *c);

/* Whether FP8 primary weights (precision.param_bytes 1) leave the
 * embedding and the output layer in 16 bits: Megatron's, whose
 * --fp8-param-gather builds only Transformer Engine's modules in FP8 */
int dc_framework_fp8_params_spare_ends(const struct dc_config *c);

/* Under sequence parallelism, the collectives a MoE layer's MLP issues
 * over the attention's tp group in its forward, each on the b s h hidden
 * state in the working precision and mirrored in backward: `*gathers`
 * AllGathers of its input and `*scatters` ReduceScatters of its output
 * (a dense layer's MLP: one and one). The routed experts' own gathers
 * over the expert tp group are the EP axis's (src/axis/ep.c).
 * - megatron, custom, deepspeed, and torchtitan with ep > 1: the routed
 *   experts take the rank's s/t tokens as they are (Megatron-Core's token
 *   dispatcher regroups them over the expert tp group only; torchtitan's
 *   routed experts run on the local sequence shard); only a shared expert
 *   gathers them and reduce-scatters its output: one and one, else none;
 * - torchtitan with ep 1 (the experts tp-sharded as a dense MLP): the MoE
 *   block gathers its input, the routed experts reduce-scatter their
 *   output, and a shared expert reduce-scatters its own: one, and one or
 *   two.
 * Sources: docs/formulas-systems.md, "Tensor parallel (Megatron)", MoE
 * layers. */
void dc_framework_moe_tp_calls(const struct dc_plan *p, uint64_t *gathers, uint64_t *scatters);

/* Whether those gathers (a shared expert's) feed an FP8 GEMM, cast before
 * the gather as a dense MLP's: under megatron, custom and deepspeed (a
 * shared expert is an ordinary MLP of Transformer Engine linears), not
 * under torchtitan (its MoE block gathers the BF16 input). Sources:
 * docs/formulas-systems.md, "Which gathers". */
int dc_framework_moe_tp_gathers_quantized(const struct dc_plan *p);

/* How Transformer Engine's FP8 linear layers save their inputs for the
 * backward under Megatron-Core (docs/memory-conventions.md, "FP8"): each
 * quantizes its input and keeps the column-wise FP8 copy alone for the
 * weight gradient, not the BF16 tensor the ledger's activation terms count
 * at 2 bytes; under MXFP8 with an E8M0 scale per 32 elements. Under
 * training.framework "megatron" and precision.compute "fp8" with a TE
 * recipe (delayed, current, mxfp8); DC_FP8_SAVED_NONE otherwise: torchao
 * (torchtitan, rowwise) saves the BF16 input, and what another loop's TE
 * modules hold depends on how it builds and calls them (activation.c). */
enum dc_fp8_saved {
	DC_FP8_SAVED_NONE,  /* the working precision, as the terms count it */
	DC_FP8_SAVED_FP8,   /* 1 byte an element */
	DC_FP8_SAVED_MXFP8, /* 1 byte an element and 1 per 32 */
};

enum dc_fp8_saved dc_framework_fp8_saved_inputs(const struct dc_config *c);

/* Whether precision.compute is "fp8" under one of Transformer Engine's
 * recipes (delayed, current, mxfp8; rowwise is torchao's). */
int dc_framework_te_fp8(const struct dc_config *c);

/* Under that saving, whether the attention's output projection and a
 * shared expert's first linear save their BF16 input instead (Megatron-
 * Core under a recipe other than delayed): the tensor the core attention
 * and the router keep already. */
int dc_framework_fp8_saves_original_input(const struct dc_config *c);

/* The FP8 copies of a rank's FP8-cast linear weights that Megatron-Core's
 * Transformer Engine layers keep across a step's microbatches (it passes
 * is_first_microbatch, so TE caches the quantized weight and requantizes
 * it on the first microbatch only): `params` the rank's FP8-cast weights,
 * `experts` the routed experts' of them. Under training.framework
 * "megatron", precision.compute "fp8" with a TE recipe and 16-bit primary
 * weights (param_bytes above 1); under FSDP the experts' alone (TE's
 * grouped linears cache, its other linears do not). Per weight: delayed
 * and current 1 byte and, off Blackwell, 1 for the transpose Hopper's FP8
 * GEMMs need; mxfp8 1 byte each way and an E8M0 scale per 32 elements
 * each way (before the scales' padding). With FP8 primary weights
 * (param_bytes 1) the parameters are the FP8 data: off Blackwell, under
 * delayed or current scaling and not under FSDP, the transpose TE keeps
 * of each, 1 byte a weight; else none. *bytes the copies, *copied the
 * weights they copy; 0 and 0 otherwise. Returns 0, or -1 on overflow. */
int dc_framework_fp8_weight_copies(const struct dc_plan *p, uint64_t params, uint64_t experts, uint64_t *bytes,
				   uint64_t *copied);

/* The bytes of Transformer Engine's FP8 copy of `n` weights under the
 * config's recipe and GPU, the per-weight figures above, whoever keeps
 * it. Returns 0, or -1 on overflow. */
int dc_framework_fp8_weight_bytes(const struct dc_config *c, uint64_t n, uint64_t *bytes);

#endif
