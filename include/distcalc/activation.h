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
 * sbh(10 + 24/t + 5as/(ht)). Full recomputation keeps only each layer's
 * 2-byte input: 2sbh (2sbh/t with sequence parallelism). 16-bit
 * activations, 1-byte dropout masks. Every function reads the layout
 * (tp, sequence parallelism, micro batch, pipeline) from the plan and the
 * shape and recompute mode from its input, and returns 0, or -1 when a
 * product overflows 64 bits (dc_act_plan_compute keeps a flag per term).
 */
#ifndef DISTCALC_ACTIVATION_H
#define DISTCALC_ACTIVATION_H

#include <stdint.h>

#include "distcalc/config.h"

struct dc_plan;

/* The three parts of one layer's activations for one microbatch on one
 * rank, before recomputation drops any of them. */
struct dc_act_layer {
	uint64_t replicated_bytes; /* already divided by t under sequence parallelism */
	uint64_t linear_bytes;     /* divided by t */
	uint64_t scores_bytes;     /* divided by t */
	uint64_t input_bytes;      /* the layer input full recompute keeps */
};

/* `moe`: a layer with routed experts (its MLP term is k experts' inner
 * activations plus the shared experts' and the k routed token copies). */
int dc_act_layer_parts(const struct dc_plan *p, int moe, struct dc_act_layer *out);

/* Bytes one layer keeps for one microbatch under training.recompute
 * (Korthikanti Table 2): none = all parts, selective = all but scores,
 * full = input only. */
int dc_act_layer_bytes(const struct dc_plan *p, int moe, uint64_t *out);

/* Extra bytes materialised while one layer runs backward: full recompute
 * rebuilds the whole layer, selective the scores; 0 without recompute. */
int dc_act_recompute_working_bytes(const struct dc_plan *p, int moe, uint64_t *out);

/* Both of the above from one evaluation of the parts. */
int dc_act_layer_kept_rebuilt(const struct dc_plan *p, int moe, uint64_t *kept, uint64_t *rebuilt);

/* First stage, per microbatch: the embedding output's dropout mask, sbh
 * (sbh/t with sequence parallelism). Korthikanti section 4.3. */
int dc_act_embedding_bytes(const struct dc_plan *p, uint64_t *out);

/* Last stage, per microbatch: the final norm's input and the output
 * layer's input, 2sbh each (/t with sequence parallelism), and the FP32
 * logits of the vocabulary-parallel head, 4sbV/t. Korthikanti section 4.3. */
int dc_act_output_bytes(const struct dc_plan *p, uint64_t *out);

/* Layer-microbatches of activations pipeline stage `stage` holds at its
 * peak: layers on the stage x microbatches in flight under 1F1B
 * (min(pp - stage, m)), or under the interleaved schedule with v chunks
 * of L/(pv) layers, min(m·v, 2(pp - stage - 1) + (v - 1)pp + 1) chunk
 * microbatches (Megatron-LM's warm-up count plus one). At stage 0 the
 * interleaved count is L(1 + (p-1)/(pv)), Korthikanti Eq. 5's factor. */
int dc_act_layer_microbatches(const struct dc_plan *p, uint64_t stage, uint64_t *out);

/* Microbatches whose embedding output stage 0 holds at its peak: those in
 * flight in its first model chunk. 1F1B: min(pp, m); interleaved: of the
 * in-flight chunk-microbatches above, taken in blocks of pp per chunk, the
 * ones of chunk 0 (15 for pp 8, v 3, m 64). */
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
	int kept_bad[2];
	uint64_t embedding_bytes; /* per microbatch x dc_act_first_stage_microbatches */
	int embedding_bad;
	uint64_t output_bytes;
	int output_bad;
};

/* Fills *out for the plan (its layout, shape and memory keys). */
void dc_act_plan_compute(const struct dc_plan *p, struct dc_act_plan *out);

#endif
