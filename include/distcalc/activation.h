/* activation.h - activation memory of one rank (Korthikanti et al. 2022).
 *
 * Bytes one tensor-parallel rank holds for one microbatch of one
 * transformer layer, generalised from the paper's Table 2 to grouped-query
 * attention, head_dim != h/a, any FFN size and SwiGLU (docs/formulas.md,
 * "Activation memory"):
 *
 *   replicated = 10 sbh          layer-norm inputs (4), QKV and MLP inputs (4),
 *                                two dropout masks (2): split over tp only
 *                                with sequence parallelism
 *   linear     = 2sb(q + k + v + o) Q, K, V and the projection's input,
 *                + MLP inner     q = o = a·d, k = v = kv·d (MLA: d_qk, d_v);
 *                                GELU 4sbf, SwiGLU 6sbf; MoE f = k·f_e +
 *                                f_shared plus 2sbkh routed inputs; split
 *                                over tp
 *   scores     = 5 a s² b        softmax output, its dropout mask and output;
 *                                split over tp, dropped by selective recompute
 *
 * With a·d = h, kv = a and a 4h GELU MLP this is the paper's
 * sbh(10 + 24/t + 5as/(ht)) with eager attention and dropout; with flash
 * attention the scores become 4asb/t of softmax statistics, without dropout
 * the masks go (2sbh, and as^2b + 2as^2b of the scores). Full
 * recomputation keeps only each layer's
 * 2-byte input: 2sbh (2sbh/t with sequence parallelism). 16-bit
 * activations, 1-byte dropout masks. Every function reads the layout
 * (tp, sequence parallelism, micro batch, pipeline) from the plan and the
 * shape and recompute mode from its input, and returns 0, or -1 when a
 * product overflows 64 bits (dc_act_plan_compute keeps a flag per term).
 *
 * Under Megatron-Core's Transformer Engine FP8 (framework.h,
 * dc_framework_fp8_saved_inputs) the linear layers save their inputs in
 * FP8 (1 byte an element, 33/32 under MXFP8): the Q/K/V input (MLA's
 * twice: its two down-projections keep one copy each), the MLP's and the
 * down projection's inputs, the routed copies; a MoE layer's router keeps
 * its BF16 input. Under delayed scaling the attention's projection and a
 * shared expert save FP8 copies too, and a fused attention kernel keeps
 * its BF16 output beside the projection's; under the other recipes they
 * save the BF16 tensor itself (docs/memory-conventions.md, "FP8").
 */
#ifndef DISTCALC_ACTIVATION_H
#define DISTCALC_ACTIVATION_H

#include <stddef.h>
#include <stdint.h>

#include "distcalc/config.h"

struct dc_plan;

/* One layer's activations term by term, in the order a layer's forward
 * makes them, so each line matches a term of the paper's formula
 * (docs/formulas.md, "Activation memory, term by term"). A term that does
 * not apply (dropout masks without dropout, the scores under flash
 * attention, routed copies in a dense layer) is 0 bytes. */
enum dc_act_term {
	DC_ACT_NORM_INPUTS,    /* 2 x 2sbh: the inputs of the two norms */
	DC_ACT_SANDWICH_NORM_INPUTS, /* model.sandwich_norm: 2 x 2sbh, the post-attention and post-MLP norms' inputs */
	DC_ACT_ATTN_INPUT,     /* 2sbh: the first norm's output, the Q/K/V input */
	DC_ACT_QK,             /* 2sb(a + kv)d_qk: Q and K (QK^T's inputs) */
	DC_ACT_QK_NORM_INPUTS, /* model.qk_norm: 2sb(a + kv)d, Q and K before their norms */
	DC_ACT_V,              /* 2sb kv d_v: V */
	DC_ACT_SOFTMAX,        /* eager: 2as^2b, the softmax output */
	DC_ACT_ATTN_MASK,      /* eager with dropout: as^2b, the softmax dropout mask */
	DC_ACT_ATTN_DROPOUT,   /* eager with dropout: 2as^2b, the dropped probabilities */
	DC_ACT_SOFTMAX_STATS,  /* flash: 4asb, one FP32 logsumexp per query row and head */
	DC_ACT_CORE_OUTPUT,    /* flash under TE's FP8 saving: 2sb a d_v, the BF16 output the kernel keeps */
	DC_ACT_PROJ_INPUT,     /* 2sb a d_v: the attention output, the projection's input */
	DC_ACT_MLP_INPUT,      /* 2sbh: the second norm's output, the MLP input */
	DC_ACT_MLP_UP,         /* GELU 2sbf (fc1 output); SwiGLU 4sbf (gate and up outputs) */
	DC_ACT_MLP_ACT,        /* 2sbf: GELU's output, or SwiGLU's silu(gate) x up: the down input */
	DC_ACT_ROUTED,         /* MoE: 2sbkh, the k routed copies of each token */
	DC_ACT_MLP_OUTPUT,     /* 2sbh: kept only by the op policy (its 7th matmul's output) */
	DC_ACT_DROPOUT_MASKS,  /* with dropout: 2 x sbh, after attention and after the MLP */
	DC_ACT_TERM_COUNT,
};

/* How a term splits: replicated over the tp group (split over it only
 * under sequence parallelism), split over tp, or part of the attention
 * core that selective recomputation drops. */
enum dc_act_group {
	DC_ACT_GROUP_REPLICATED,
	DC_ACT_GROUP_SPLIT,
	DC_ACT_GROUP_CORE,
};

/* The term's name ("softmax output"), its group, and its formula as the
 * paper writes it for this shape ("2as^2b"), before the tp split; `moe`:
 * a MoE layer's, whose MLP terms run k routed experts of f_e and the
 * shared experts' f_s. Static text. */
const char *dc_act_term_name(enum dc_act_term t);
enum dc_act_group dc_act_term_group(enum dc_act_term t);
/* The term's formula in bytes (2sbh: 2 bytes an element of s b h), in
 * buf (64 bytes are enough), NUL-terminated, truncated to len. */
void dc_act_term_formula(enum dc_act_term t, const struct dc_config *in, int moe, char *buf, size_t len);

/* The three parts of one layer's activations for one microbatch on one
 * rank, before recomputation drops any of them, and every term. */
struct dc_act_layer {
	uint64_t replicated_bytes; /* already divided by t under sequence parallelism */
	uint64_t linear_bytes;     /* divided by t */
	uint64_t scores_bytes;     /* divided by t: the attention core (eager scores, flash statistics) */
	uint64_t input_bytes;      /* the layer input full recompute keeps */
	uint64_t term_bytes[DC_ACT_TERM_COUNT]; /* each after its split; their sum is the three parts */
	uint64_t kept_bytes[DC_ACT_TERM_COUNT]; /* what training.recompute keeps of each term */
};

/* `moe`: a layer with routed experts (its MLP term is k experts' inner
 * activations plus the shared experts' and the k routed token copies). */
int dc_act_layer_parts(const struct dc_plan *p, int moe, struct dc_act_layer *out);

/* Bytes one layer keeps for one microbatch under training.recompute
 * (Korthikanti Table 2): none = all parts, selective = all but the
 * attention core, full = input only, op = torchtitan's per-op policy (the
 * layer input, the odd-numbered matmuls' outputs and the flash kernel's
 * outputs: docs/formulas.md). */
int dc_act_layer_bytes(const struct dc_plan *p, int moe, uint64_t *out);

/* Extra bytes materialised while one layer runs backward: full recompute
 * rebuilds the whole layer, selective the attention core, op what it did
 * not keep; 0 without recompute. */
int dc_act_recompute_working_bytes(const struct dc_plan *p, int moe, uint64_t *out);

/* Both of the above from one evaluation of the parts. */
int dc_act_layer_kept_rebuilt(const struct dc_plan *p, int moe, uint64_t *kept, uint64_t *rebuilt);

/* First stage, per microbatch: the embedding output's dropout mask, sbh
 * (sbh/t with sequence parallelism), with model.dropout; else 0.
 * Korthikanti section 4.3. */
int dc_act_embedding_bytes(const struct dc_plan *p, uint64_t *out);

/* training.loss_chunks as a microbatch of this plan runs it: the chunks
 * and the tokens of one, sb / chunks; 1 and sb when the key is 1. The
 * loader and the layout search require the key to divide sb (torchtitan's
 * equal chunks); a layout that neither checks (strategies.h's variants,
 * which split the batch anew) runs at most sb chunks, the largest
 * ceil(sb / chunks) tokens. */
uint64_t dc_act_loss_chunks(const struct dc_plan *p);
uint64_t dc_act_loss_chunk_tokens(const struct dc_plan *p);

/* Last stage, per microbatch: the final norm's input and the output
 * layer's input, 2sbh each (/t with sequence parallelism), and the FP32
 * logits of the vocabulary-parallel head, 4sbV/t. Korthikanti section 4.3.
 * With training.loss_chunks above 1 the logits are gone when the loss
 * call returns: the final norm's input, 2sbh (/t with sequence
 * parallelism), and the head input's gradient the chunks gathered, kept
 * in 16 bits for the decoder's backward, 2sbh on every tp rank
 * (torchtitan loss.py:711 and :792 at b5bcd76c). */
int dc_act_output_bytes(const struct dc_plan *p, uint64_t *out);

/* Last stage, while the loss and the head run backward, over the FP32
 * log-softmax output the ledger already holds: an unfused
 * cross_entropy(logits.float()) has nll_loss's FP32 gradient (4sbV/t) and
 * log_softmax's FP32 input gradient (4sbV/t) alive at once, 8sbV/t
 * (docs/formulas.md); Megatron's vocab-parallel cross entropy works in
 * place and needs only its 16-bit copy, 2sbV/t, under training.framework
 * megatron (framework.h dc_framework_loss_in_place). */
int dc_act_head_backward_bytes(const struct dc_plan *p, uint64_t *out);
/* With training.loss_chunks n above 1 this line is the chunked loss
 * call's peak over the held line (dc_act_output_bytes), the larger of two
 * moments. In the loop: the final norm's 16-bit output and the FP32
 * gradient buffer (2sbh + 4sbh on every tp rank), less the 16-bit
 * gradient the held line counts but the loop has not made yet (2sbh), and
 * one chunk of c = ceil(sb / n) tokens: its 16-bit logits, which the
 * wrapper's loop variable keeps through the chunk's backward (2cV/t), the
 * FP32 log-softmax output (4cV/t) and the loss's backward (8cV/t): 4sbh +
 * 14cV/t. At the cast after it: the output and the buffer beside the
 * 16-bit copy the held line counts, 6sbh (docs/formulas.md, "Chunked
 * loss"). */

/* One layer, one microbatch: what its weight-gradient pass (W) reads
 * when it runs apart from the backward's input gradients (B), as ZB-H1
 * does (Qi et al. 2024, section 2): for each linear Y = XW, dW = X^T dY
 * needs X and dY (Megatron's WeightGradStore keeps exactly those). In the
 * terms above: the inputs Q/K/V input, attention output, MLP input, MLP
 * activation and (MoE) the routed copies; the output gradients the size of
 * Q and K, V and MLP up, plus 2sbh for each row-parallel linear's output,
 * whole on every tp rank: the attention projection's and the MLP's second
 * GEMM (MoE: the routed copies' size, and 2sbh more for shared experts).
 * The same under any recompute policy: B rebuilds what W reads. For
 * the GPT layer of Korthikanti et al. (4h MLP, a d = h) it is 32sbh, the
 * W pass's memory in Qi et al. Table 1 (beside B's 34sbh + 5as^2b).
 * Returns 0, or -1 on overflow. */
int dc_act_layer_wgrad_bytes(const struct dc_plan *p, int moe, uint64_t *out);

/* Last stage, one microbatch: the head's W, its input (2sbh, /t with
 * sequence parallelism) and the logits' gradient (2sbV/t). Returns 0, or
 * -1 on overflow. */
int dc_act_head_wgrad_bytes(const struct dc_plan *p, uint64_t *out);

/* ---- the pipeline schedule's placement and what it holds ----
 *
 * One home for what the step model (step.h) and the memory ledger
 * (memory.h) both read of the schedule (docs/step-model.md, section 3;
 * docs/memory-conventions.md, "Microbatches in flight"). */

/* The schedule the plan runs (dc_layout_schedule, plan.h, for the plan's
 * layout and stages): the input's parallel.pipeline_schedule when the
 * layout meets its needs (the loader checked the input's own layout, the
 * search refuses one that does not), else 1F1B, or interleaved 1F1B when
 * v > 1. No pipeline (pp = 1) is 1F1B. */
enum dc_pipe_schedule dc_pipeline_schedule(const struct dc_plan *p);

/* Model chunks a pipeline rank runs: v (interleaved), 2 (DualPipe: its
 * stage and the mirror stage; DualPipeV: two chunks of a V), else 1. */
uint64_t dc_pipeline_chunks(const struct dc_plan *p);

/* Microbatches each model chunk of a pipeline rank runs per step, forward
 * and backward: grad_accum_steps m, but m / 2 under DualPipe, whose two
 * directions each carry half (deepseek-ai/DualPipe step() scatters the
 * inputs into num_chunks / 2 on each end rank, and rank r runs
 * 2 (pp/2 - h - 1) + (h + 1) + (m/2 - pp + h + 1) = m / 2 forwards of
 * each phase, h = min(r, pp - 1 - r)). Interleaved and DualPipeV chunks
 * see every microbatch (DualPipeV's V: m - 2pp + r + 1 steady pairs plus
 * the warm-up's forwards, m of each chunk). What a per-layer,
 * per-microbatch collective counts on a rank: its layers (every chunk's)
 * times this (docs/formulas-systems.md, "Communication per step"). */
static inline uint64_t dc_pipeline_chunk_microbatches(const struct dc_plan *p); /* plan.h */

/* Chunk c of pipeline rank `stage`: its model layers [first_layer,
 * first_layer + layers), and whether it holds the embedding (the model's
 * first chunk) or the final norm, head and loss (its last). DualPipe: chunk
 * 0 is stage s, chunk 1 stage pp - 1 - s (the reverse direction); both
 * end ranks hold an embedding and a head. DualPipeV: chunks s and
 * 2pp - 1 - s of 2pp, rank 0 holds the embedding and the head. */
struct dc_pipeline_chunk {
	uint64_t first_layer, layers;
	int embedding, head;
};
void dc_pipeline_chunk(const struct dc_plan *p, uint64_t stage, uint64_t c, struct dc_pipeline_chunk *out);

/* Microbatches of chunk c whose activations rank `stage` holds at its
 * peak, and their sum over the rank's chunks:
 *   1F1B, ZB-H1     min(pp - s, m)                   (Megatron-LM 2021 section 2.2.1; Qi et al. 2024 section 2.1;
 *                   ZB-H1's deferred weight gradients: dc_pipeline_zb_deferred)
 *   interleaved     of min(m v, 2(pp - s - 1) + (v - 1) pp + 1) chunk-microbatches (Megatron-Core's
 *                   warm-up count plus the first steady forward), those of chunk c (blocks of pp a chunk)
 *   DualPipe        pp - s of chunk 0 (the forward direction's stage s), s + 1 of chunk 1 (the
 *                   reverse direction's stage pp - 1 - s): pp + 1
 *   DualPipeV       2pp - s of chunk 0, s + 1 of chunk 1: 2pp + 1 chunks of L / 2pp layers
 * (the DualPipe README's PP + 1, PP the stages: pp for DualPipe, 2pp for
 * DualPipeV). 1 when pp = 1. */
uint64_t dc_pipeline_in_flight_chunk(const struct dc_plan *p, uint64_t stage, uint64_t c);
uint64_t dc_pipeline_chunks_in_flight(const struct dc_plan *p, uint64_t stage);

/* ZB-H1, stage s of pp, m microbatches (the step model's order, gen_zb:
 * w = min(pp - s - 1, m) warm-up forwards, then forward, B, and W of the
 * microbatch s before, the last s W's at the end): the stage's largest
 * a whole + b W (a microbatches run forward and not yet B, b run B and
 * not yet W), `whole` and `wgrad` the stage's bytes of one microbatch of
 * each. *pending: b at that peak; *extra: the peak less 1F1B's
 * min(pp - s, m) whole (0 or more). With wgrad <= whole the peak is
 * min(pp - s, m) whole and min(m - pp + s, s) pending (0 when negative):
 * pp in all on every stage once m >= pp, the paper's "same number of
 * in-flight microbatches"; with wgrad > whole (recompute) the state
 * just after a B, one whole fewer and one W more. Returns 0, or -1 on
 * overflow. */
int dc_pipeline_zb_deferred(uint64_t pp, uint64_t s, uint64_t m, uint64_t whole, uint64_t wgrad,
			    uint64_t *pending, uint64_t *extra);

/* Layer-microbatches of activations pipeline rank `stage` holds at its
 * peak: each chunk's layers times its microbatches in flight (above). At
 * stage 0 the interleaved count is L(1 + (p-1)/(pv)), Korthikanti Eq. 5's
 * factor. Returns 0, or -1 on overflow. */
int dc_act_layer_microbatches(const struct dc_plan *p, uint64_t stage, uint64_t *out);

/* Microbatches whose embedding output the model's first chunk holds at
 * its peak: 1F1B min(pp, m); interleaved of the in-flight
 * chunk-microbatches, those of chunk 0 (15 for pp 8, v 3, m 64); DualPipe
 * pp (on rank 0 and, for the reverse direction, rank pp - 1); DualPipeV 2pp. */
uint64_t dc_act_first_stage_microbatches(const struct dc_plan *p);

/* What every stage's ledger reads (memory.h), once per plan: the bytes one
 * layer of each kind keeps and rebuilds, the first stage's embedding masks
 * for its microbatches in flight, the last stage's output terms, and the
 * per-layer override. Each carries its own overflow flag, so a ledger
 * fails exactly where its stage would on its own. */
struct dc_act_plan {
	uint64_t explicit_bytes; /* memory.activation_bytes_per_token_per_layer x b s, rounded up */
	int explicit_bad;
	uint64_t kept[2], rebuilt[2]; /* [0] a dense layer, [1] a MoE layer */
	uint64_t all[2];              /* what a layer holds without recompute */
	uint64_t input_bytes;         /* a layer's input: what full recompute keeps */
	int kept_bad[2];
	uint64_t embedding_bytes; /* per microbatch x dc_act_first_stage_microbatches */
	int embedding_bad;
	uint64_t output_bytes;
	int output_bad;
	uint64_t head_backward_bytes; /* dc_act_head_backward_bytes */
	/* what a weight-gradient pass deferred past its backward holds
	 * (ZB-H1): dc_act_layer_wgrad_bytes of a dense [0] and a MoE [1]
	 * layer, and dc_act_head_wgrad_bytes; wgrad_bad: overflow */
	uint64_t wgrad[2], head_wgrad_bytes;
	int wgrad_bad;
};

/* Fills *out for the plan (its layout, shape and memory keys). */
void dc_act_plan_compute(const struct dc_plan *p, struct dc_act_plan *out);

#endif
