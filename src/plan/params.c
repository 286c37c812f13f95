/* params.c - exact parameter counts, term by term; see params.h and
 * docs/models.md. Each term names the Hugging Face modeling file whose
 * modules it counts (transformers/models/<family>/modeling_<family>.py). */
#include "distcalc/params.h"

#include <math.h>
#include <string.h>

#include "distcalc/util.h"

static uint64_t part_sum(struct dc_ck *c, const struct dc_param_part *p)
{
	return dc_ck_add(c, p->split, p->replicated);
}

int dc_params_norm(const struct dc_model *m, uint64_t width, uint64_t *out)
{
	/* LlamaRMSNorm: weight (width); nn.LayerNorm (GPT-2 ln_1/ln_2/ln_f):
	 * weight and bias (2 width) */
	struct dc_ck c = {0};
	*out = m->norm == DC_NORM_LAYERNORM ? dc_ck_mul(&c, 2, width) : width;
	return c.overflow ? -1 : 0;
}

/* Multi-head attention with GQA/MQA (modeling_llama.py LlamaAttention,
 * modeling_qwen2.py: q/k/v biased, modeling_gpt2.py GPT2Attention: c_attn
 * and c_proj biased, modeling_qwen3_moe.py: q_norm/k_norm of head_dim).
 * q, k, v column-parallel, o row-parallel (Megatron-LM 2021 section 3). */
static void attention_standard(struct dc_ck *c, const struct dc_model *m, struct dc_param_part *out)
{
	uint64_t h = m->hidden_size, d = m->head_dim;
	uint64_t q_dim = dc_ck_mul(c, m->num_attention_heads, d);
	uint64_t kv_dim = dc_ck_mul(c, m->num_kv_heads, d);
	uint64_t q = dc_ck_mul(c, h, q_dim), kv = dc_ck_mul(c, dc_ck_mul(c, 2, h), kv_dim), o = dc_ck_mul(c, q_dim, h);
	uint64_t qkv_bias = m->qkv_bias ? dc_ck_add(c, q_dim, dc_ck_mul(c, 2, kv_dim)) : 0;

	/* Qwen3-Next's attn_output_gate: q_proj yields the query and a gate of
	 * the same a d (modeling_qwen3_next.py Qwen3NextAttention), its bias too;
	 * gpt-oss's sinks: one logit per head (modeling_gpt_oss.py
	 * GptOssAttention.sinks), split with the heads */
	if (m->attention_output_gate) {
		q = dc_ck_mul(c, 2, q);
		if (m->qkv_bias)
			qkv_bias = dc_ck_add(c, qkv_bias, q_dim);
	}
	out->split = dc_ck_add(c, dc_ck_add(c, dc_ck_add(c, q, kv), o), qkv_bias);
	if (m->attention_sinks)
		out->split = dc_ck_add(c, out->split, m->num_attention_heads);
	out->replicated = dc_ck_add(c, m->out_bias ? h : 0, m->qk_norm ? dc_ck_mul(c, 2, d) : 0);
}

/* Multi-head latent attention (modeling_deepseek_v3.py DeepseekV3Attention):
 * q_a_proj h x q_lora and q_a_layernorm (q_lora), q_b_proj
 * q_lora x a(nope + rope) (or q_proj h x a(nope + rope) without q_lora),
 * kv_a_proj_with_mqa h x (kv_lora + rope), kv_a_layernorm (kv_lora),
 * kv_b_proj kv_lora x a(nope + v), o_proj a v x h. Megatron-Core
 * (gpt_layer_specs.py, MLASelfAttention) keeps the down-projections
 * whole on every tp rank and splits the up-projections and o. */
static void attention_mla(struct dc_ck *c, const struct dc_model *m, struct dc_param_part *out)
{
	uint64_t h = m->hidden_size, a = m->num_attention_heads;
	uint64_t qk_head = dc_ck_add(c, m->qk_nope_head_dim, m->qk_rope_head_dim);
	uint64_t kv_a = dc_ck_add(c, m->kv_lora_rank, m->qk_rope_head_dim);
	uint64_t split = 0, rep = 0;

	if (m->q_lora_rank) {
		rep = dc_ck_add(c, dc_ck_mul(c, h, m->q_lora_rank), m->q_lora_rank);
		split = dc_ck_mul(c, m->q_lora_rank, dc_ck_mul(c, a, qk_head));
		if (m->qkv_bias)
			rep = dc_ck_add(c, rep, m->q_lora_rank);
	} else {
		split = dc_ck_mul(c, h, dc_ck_mul(c, a, qk_head));
	}
	rep = dc_ck_add(c, rep, dc_ck_add(c, dc_ck_mul(c, h, kv_a), m->kv_lora_rank));
	if (m->qkv_bias)
		rep = dc_ck_add(c, rep, kv_a);
	split = dc_ck_add(c, split, dc_ck_mul(c, m->kv_lora_rank, dc_ck_mul(c, a, dc_ck_add(c, m->qk_nope_head_dim, m->v_head_dim))));
	split = dc_ck_add(c, split, dc_ck_mul(c, dc_ck_mul(c, a, m->v_head_dim), h));
	if (m->out_bias)
		rep = dc_ck_add(c, rep, h);
	out->split = split;
	out->replicated = rep;
}

int dc_params_attention(const struct dc_model *m, struct dc_param_part *out)
{
	struct dc_ck c = {0};
	if (m->kv_lora_rank)
		attention_mla(&c, m, out);
	else
		attention_standard(&c, m, out);
	return c.overflow ? -1 : 0;
}

int dc_params_linear_attention(const struct dc_model *m, struct dc_param_part *out)
{
	/* Gated DeltaNet (modeling_qwen3_next.py Qwen3NextGatedDeltaNet):
	 * in_proj_qkvz h x (2 k_dim + 2 v_dim), in_proj_ba h x 2 n_v, the
	 * depthwise conv1d (2 k_dim + v_dim) x kernel, dt_bias and A_log n_v
	 * each, out_proj v_dim x h: all per head, split over tp; the gated
	 * RMSNorm of d_v is shared by every head, whole */
	struct dc_ck c = {0};
	uint64_t h = m->hidden_size, nv = m->linear_num_value_heads;
	uint64_t k_dim = dc_ck_mul(&c, m->linear_num_key_heads, m->linear_key_head_dim);
	uint64_t v_dim = dc_ck_mul(&c, nv, m->linear_value_head_dim);
	uint64_t qkvz = dc_ck_mul(&c, h, dc_ck_mul(&c, 2, dc_ck_add(&c, k_dim, v_dim)));
	uint64_t ba = dc_ck_mul(&c, h, dc_ck_mul(&c, 2, nv));
	uint64_t conv = dc_ck_mul(&c, dc_ck_add(&c, dc_ck_mul(&c, 2, k_dim), v_dim), m->linear_conv_kernel_dim);
	uint64_t o = dc_ck_mul(&c, v_dim, h);

	out->split = 0;
	out->replicated = 0;
	if (!m->full_attention_interval)
		return 0;
	out->split = dc_ck_add(&c, dc_ck_add(&c, qkvz, ba), dc_ck_add(&c, dc_ck_add(&c, conv, dc_ck_mul(&c, 2, nv)), o));
	out->replicated = m->linear_value_head_dim;
	return c.overflow ? -1 : 0;
}

uint64_t dc_params_every(uint64_t first, uint64_t n, uint64_t every)
{
	/* layers i + 1 in (first, first + n] that `every` divides */
	if (!every)
		return 0;
	return (first + n) / every - first / every;
}

uint64_t dc_params_linear_layers(const struct dc_model *m)
{
	if (!m->full_attention_interval)
		return 0;
	return m->num_layers - dc_params_every(0, m->num_layers, m->full_attention_interval);
}

double dc_params_causal_keys(const struct dc_model *m, double s, int sliding)
{
	double k = sliding && m->sliding_window && (double)m->sliding_window < s ? (double)m->sliding_window : s;
	if (sliding && m->attention_chunked) {
		double n = floor(s / k), r = s - n * k;
		return (n * k * k + r * r) / (2.0 * s);
	}
	return k - k * k / (2.0 * s);
}

uint64_t dc_params_sliding_layers(const struct dc_model *m)
{
	uint64_t softmax = m->num_layers - dc_params_linear_layers(m);
	if (!m->sliding_window)
		return 0;
	/* linear-attention layers have no window; a hybrid with windows is
	 * refused by the loader */
	return softmax - dc_params_every(0, softmax, m->sliding_window_pattern);
}

uint64_t dc_params_layer_norms(const struct dc_model *m)
{
	/* input and post-attention norms; Gemma 2/3's sandwich adds
	 * pre_feedforward and post_feedforward ones (modeling_gemma2.py
	 * Gemma2DecoderLayer) */
	return m->sandwich_norm ? 4 : 2;
}

int dc_params_mlp(const struct dc_model *m, uint64_t f, struct dc_param_part *out)
{
	/* gated (LlamaMLP gate/up/down; GemmaMLP the same with GELU): 3 h x f;
	 * GPT2MLP c_fc and c_proj: 2 h x f, biased. Up/gate column-parallel
	 * (their biases split), down row-parallel (its bias whole). */
	struct dc_ck c = {0};
	int gated = m->mlp == DC_MLP_SWIGLU;
	uint64_t mats = gated ? 3 : 2;
	out->split = dc_ck_mul(&c, mats, dc_ck_mul(&c, m->hidden_size, f));
	out->replicated = 0;
	if (m->mlp_bias) {
		out->split = dc_ck_add(&c, out->split, dc_ck_mul(&c, gated ? 2 : 1, f));
		out->replicated = m->hidden_size;
	}
	return c.overflow ? -1 : 0;
}

int dc_params_router(const struct dc_model *m, struct dc_param_part *out)
{
	/* MixtralSparseMoeBlock.gate, Qwen2MoeSparseMoeBlock.gate: E x h, no
	 * bias; DeepSeek-V3 adds e_score_correction_bias (E). Megatron-Core's
	 * TopKRouter weight is whole on every tp rank. */
	struct dc_ck c = {0};
	out->split = 0;
	out->replicated = 0;
	if (m->num_experts)
		out->replicated = dc_ck_add(&c, dc_ck_mul(&c, m->num_experts, m->hidden_size),
				      m->router_bias ? m->num_experts : 0);
	return c.overflow ? -1 : 0;
}

int dc_params_shared_experts(const struct dc_model *m, struct dc_param_part *out)
{
	/* Qwen2MoeSparseMoeBlock.shared_expert (an MLP of
	 * shared_expert_intermediate_size) and shared_expert_gate (h -> 1);
	 * DeepseekV3MoE.shared_experts, one MLP of
	 * n_shared_experts x moe_intermediate_size */
	struct dc_ck c = {0};
	out->split = 0;
	out->replicated = 0;
	if (!m->num_experts || !m->shared_expert_ffn_hidden_size)
		return 0;
	if (dc_params_mlp(m, m->shared_expert_ffn_hidden_size, out) != 0)
		return -1;
	if (m->shared_expert_gate)
		out->replicated = dc_ck_add(&c, out->replicated, m->hidden_size);
	return c.overflow ? -1 : 0;
}

uint64_t dc_params_moe_layers(const struct dc_model *m)
{
	return dc_params_moe_in(m, 0, m->num_layers);
}

int dc_params_layer(const struct dc_model *m, struct dc_param_layer *out)
{
	if (dc_params_attention(m, &out->attention) || dc_params_mlp(m, m->ffn_hidden_size, &out->mlp) ||
	    dc_params_mlp(m, m->moe_ffn_hidden_size, &out->expert) || dc_params_router(m, &out->router) ||
	    dc_params_shared_experts(m, &out->shared_experts) || dc_params_norm(m, m->hidden_size, &out->norm) ||
	    dc_params_linear_attention(m, &out->linear_attention))
		return -1;
	return 0;
}

int dc_params_terms(const struct dc_model *m, struct dc_param_terms *t)
{
	struct dc_param_layer layer;
	if (dc_params_layer(m, &layer) != 0) {
		memset(t, 0, sizeof(*t));
		return -1;
	}
	return dc_params_terms_of(m, &layer, t);
}

int dc_params_terms_of(const struct dc_model *m, const struct dc_param_layer *layer, struct dc_param_terms *t)
{
	struct dc_ck c = {0};
	const struct dc_param_part *attn = &layer->attention, *mlp = &layer->mlp, *expert = &layer->expert;
	const struct dc_param_part *router = &layer->router, *shared = &layer->shared_experts;
	uint64_t norm_h = layer->norm, L = m->num_layers, moe, dense, linear, layer_norms;

	memset(t, 0, sizeof(*t));
	moe = dc_params_moe_layers(m);
	dense = L - moe;
	linear = dc_params_linear_layers(m);
	t->moe_layers = moe;
	t->dense_layers = dense;
	t->linear_attention_layers = linear;
	t->sliding_window_layers = dc_params_sliding_layers(m);
	layer_norms = dc_ck_mul(&c, dc_params_layer_norms(m), norm_h);

	t->embedding = dc_ck_mul(&c, m->vocab_size, m->hidden_size);
	t->position = dc_ck_mul(&c, m->position_embeddings, m->hidden_size); /* GPT2Model.wpe */
	t->attention = dc_ck_add(&c, dc_ck_mul(&c, L - linear, part_sum(&c, attn)),
				 dc_ck_mul(&c, linear, part_sum(&c, &layer->linear_attention)));
	t->mlp = dc_ck_mul(&c, dense, part_sum(&c, mlp));
	t->experts = dc_ck_mul(&c, moe, dc_ck_mul(&c, m->num_experts, part_sum(&c, expert)));
	t->experts_active = dc_ck_mul(&c, moe, dc_ck_mul(&c, m->experts_per_token, part_sum(&c, expert)));
	t->shared_experts = dc_ck_mul(&c, moe, part_sum(&c, shared));
	t->router = dc_ck_mul(&c, moe, part_sum(&c, router));
	/* the norms of every layer, and the final norm */
	t->norms = dc_ck_add(&c, dc_ck_mul(&c, L, layer_norms), norm_h);
	t->lm_head = m->tie_word_embeddings ? 0 : t->embedding;

	/* multi-token prediction (DeepSeek-V3 section 2.2; Megatron-Core
	 * multi_token_prediction.py MultiTokenPredictionLayer): per module a
	 * softmax-attention layer, MoE when the model has experts, its norms,
	 * enorm and hnorm, eh_proj 2h x h and a final norm; the embedding
	 * and the output head are the model's own */
	if (m->mtp_layers) {
		uint64_t one = dc_ck_add(&c, dc_ck_add(&c, part_sum(&c, attn), layer_norms),
					 dc_ck_add(&c, dc_ck_mul(&c, dc_ck_mul(&c, 2, m->hidden_size), m->hidden_size),
						   dc_ck_mul(&c, 3, norm_h)));
		uint64_t routed = 0, active = 0;
		if (m->num_experts) {
			routed = dc_ck_mul(&c, m->num_experts, part_sum(&c, expert));
			active = dc_ck_mul(&c, m->experts_per_token, part_sum(&c, expert));
			one = dc_ck_add(&c, one, dc_ck_add(&c, part_sum(&c, shared), part_sum(&c, router)));
		} else {
			one = dc_ck_add(&c, one, part_sum(&c, mlp));
		}
		t->mtp_experts = dc_ck_mul(&c, m->mtp_layers, routed);
		t->mtp = dc_ck_add(&c, dc_ck_mul(&c, m->mtp_layers, one), t->mtp_experts);
		t->mtp_active = dc_ck_add(&c, t->mtp - t->mtp_experts, dc_ck_mul(&c, m->mtp_layers, active));
	}

	t->total = dc_ck_add(&c, dc_ck_add(&c, dc_ck_add(&c, t->embedding, t->position), dc_ck_add(&c, t->attention, t->mlp)),
		       dc_ck_add(&c, dc_ck_add(&c, t->experts, t->shared_experts),
			   dc_ck_add(&c, dc_ck_add(&c, t->router, t->norms), t->lm_head)));
	t->total = dc_ck_add(&c, t->total, t->mtp);
	t->active = dc_ck_add(&c, t->total - t->experts - t->mtp, dc_ck_add(&c, t->experts_active, t->mtp_active));
	return c.overflow ? -1 : 0;
}

int dc_model_param_count(const struct dc_model *m, uint64_t *out)
{
	struct dc_param_terms t;
	if (dc_params_terms(m, &t) != 0)
		return -1;
	*out = t.total;
	return 0;
}
