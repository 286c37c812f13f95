/* params.h - exact parameter counts of a model shape, term by term.
 *
 * Every term is a small named function citing the Hugging Face modeling
 * file it follows (derivations and worked examples: docs/models.md). Each
 * per-layer term comes as a pair: the part Megatron splits over the tensor-
 * parallel group (column- and row-parallel weights, column-parallel biases)
 * and the part every tp rank holds whole (norms, row-parallel biases, MLA
 * down-projections, the router), so the totals here and the per-rank
 * placement in memory.c read the same functions. Exact uint64_t counts;
 * every function returns 0, or -1 when a product overflows 64 bits.
 */
#ifndef DISTCALC_PARAMS_H
#define DISTCALC_PARAMS_H

#include <stdint.h>

#include "distcalc/config.h"

/* Parameters of one block: `split` is divided over tp, `replicated` is held
 * whole by every tp rank. */
struct dc_param_part {
	uint64_t split;
	uint64_t replicated;
};

/* The whole model, term by term (all layers added up). */
struct dc_param_terms {
	uint64_t embedding;        /* token embedding V x h */
	uint64_t position;         /* learned position table P x h (GPT-2); 0 with RoPE */
	uint64_t attention;        /* q, k, v, o or the MLA projections, their biases and q/k norms */
	uint64_t mlp;              /* dense layers' MLPs */
	uint64_t experts;          /* routed experts of every MoE layer */
	uint64_t experts_active;   /* the experts_per_token of them one token uses */
	uint64_t shared_experts;   /* shared experts and their gate */
	uint64_t router;           /* router weights (and score bias) */
	uint64_t norms;            /* two per layer and the final one */
	uint64_t lm_head;          /* output head; 0 when tied to the embedding */
	uint64_t mtp;              /* multi-token-prediction modules (in total; the model's embedding and head shared) */
	uint64_t mtp_experts;      /* their routed experts */
	uint64_t mtp_active;       /* mtp with the experts_per_token of its experts */
	uint64_t linear_attention_layers; /* Gated DeltaNet layers (attention holds theirs) */
	uint64_t sliding_window_layers;   /* softmax layers with a sliding window */
	uint64_t dense_layers;     /* layers with a dense MLP */
	uint64_t moe_layers;       /* layers with routed experts */
	uint64_t total;            /* every term, the MTP modules included (trained with the model) */
	uint64_t active;           /* total with experts_active in place of experts (and the MTP's) */
};

/* One norm layer: h (RMSNorm weight) or 2h (LayerNorm weight and bias). */
int dc_params_norm(const struct dc_model *m, uint64_t width, uint64_t *out);

/* One layer's attention: standard (GQA/MQA, biases, q/k norms) or MLA. */
int dc_params_attention(const struct dc_model *m, struct dc_param_part *out);

/* One MLP of inner size f: 3 (gated) or 2 h x f matrices, with biases when
 * the family has them. */
int dc_params_mlp(const struct dc_model *m, uint64_t f, struct dc_param_part *out);

/* One MoE layer's router and its shared experts (gate included); 0 for a
 * dense model. The routed experts are num_experts x dc_params_mlp(moe f). */
int dc_params_router(const struct dc_model *m, struct dc_param_part *out);
int dc_params_shared_experts(const struct dc_model *m, struct dc_param_part *out);

/* Layers with routed experts: L - dense_layers when num_experts > 0 (of
 * those, every moe_layer_interval-th), else 0. dc_params_moe_in(m, 0, L). */
uint64_t dc_params_moe_layers(const struct dc_model *m);

/* Of model layers [first, first + n) (counting from 0), those with routed
 * experts when the first `dense` layers are dense and, after them, layer
 * i holds experts when `every` divides i + 1 (Llama 4's
 * interleave_moe_layer_step: layers every - 1, 2 every - 1, ...); every 0
 * or 1: each layer from `dense` on. In O(1): the multiples of `every` in
 * (max(first, dense), first + n]. No overflow: first + n <= L. */
static inline uint64_t dc_params_moe_span(uint64_t dense, uint64_t every, uint64_t first, uint64_t n)
{
	uint64_t lo = first > dense ? first : dense, hi = first + n;
	if (hi <= lo)
		return 0;
	if (every <= 1)
		return hi - lo;
	/* layer i holds experts when every divides i + 1: the multiples of
	 * every among lo + 1 .. hi */
	return hi / every - lo / every;
}

/* dc_params_moe_span of the model (its dense_layers, moe_layer_interval);
 * 0 for a dense model (num_experts 0). The one count of MoE layers in a
 * range that the stages, chunks and checkpoint items all read. */
static inline uint64_t dc_params_moe_in(const struct dc_model *m, uint64_t first, uint64_t n)
{
	if (!m->num_experts)
		return 0;
	/* Llama 4 (configuration_llama4.py moe_layers): layers step - 1,
	 * 2 step - 1, ... counting from 0 */
	return dc_params_moe_span(m->dense_layers, m->moe_layer_interval, first, n);
}

/* One Gated DeltaNet layer's projections, convolution, decay and norm; 0
 * without linear attention (full_attention_interval 0). */
int dc_params_linear_attention(const struct dc_model *m, struct dc_param_part *out);

/* Of the layers first + 1 .. first + n (counting from 1), those `every`
 * divides; 0 when every is 0. */
uint64_t dc_params_every(uint64_t first, uint64_t n, uint64_t every);

/* The model's Gated DeltaNet layers, and its softmax layers with a window. */
uint64_t dc_params_linear_layers(const struct dc_model *m);
uint64_t dc_params_sliding_layers(const struct dc_model *m);

/* Keys a causal flash kernel runs a query against on average, over a
 * sequence of s: on a global layer s / 2 (query i meets i); on a window
 * of k = min(sliding_window, s), k - k^2 / 2s (min(i, k)); on chunks of
 * k (model.attention_chunked), (n k^2 + r^2) / 2s over n whole chunks and
 * r tokens left (i mod k). The step's kernels (compute.c) and the
 * hardware FLOPs (flops.c) both read it. */
double dc_params_causal_keys(const struct dc_model *m, double s, int sliding);

/* Norms in one layer: 2, or 4 with sandwich_norm. */
uint64_t dc_params_layer_norms(const struct dc_model *m);

/* One layer's blocks of each kind, before any split. */
struct dc_param_layer {
	struct dc_param_part attention;
	struct dc_param_part mlp;            /* the dense MLP (ffn_hidden_size) */
	struct dc_param_part expert;         /* one routed expert (moe_ffn_hidden_size) */
	struct dc_param_part router;
	struct dc_param_part shared_experts;
	uint64_t norm;                       /* one norm of width h */
	struct dc_param_part linear_attention; /* one Gated DeltaNet layer's (0 without) */
};

int dc_params_layer(const struct dc_model *m, struct dc_param_layer *out);

/* Every term of the shape; terms->total is what dc_model_param_count gives. */
int dc_params_terms(const struct dc_model *m, struct dc_param_terms *terms);

/* The same from the shape's layer blocks (dc_params_layer). */
int dc_params_terms_of(const struct dc_model *m, const struct dc_param_layer *layer,
		       struct dc_param_terms *terms);

#endif
