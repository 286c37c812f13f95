/* activation.c - activation memory per rank; see activation.h and
 * docs/formulas.md, "Activation memory". */
#include "distcalc/activation.h"

#include <math.h>

#include "distcalc/plan.h"
#include "distcalc/util.h"

int dc_act_layer_parts(const struct dc_plan *p, int moe, struct dc_act_layer *out)
{
	const struct dc_model *m = &p->in->model;
	uint64_t t = p->layout.tp;
	int sp = p->layout.sequence_parallel;
	int gated = m->mlp == DC_MLP_SWIGLU;
	struct dc_ck c = {0};
	uint64_t sb = p->tokens_per_microbatch_cp; /* b s / cp: this context-parallel rank's tokens */
	uint64_t sbh = dc_ck_mul(&c, sb, m->hidden_size);
	/* widths: queries and keys carry d_qk per head, values d_v (MLA:
	 * nope + rope and v_head_dim; otherwise head_dim) */
	uint64_t d_qk = m->kv_lora_rank ? m->qk_nope_head_dim + m->qk_rope_head_dim : m->head_dim;
	uint64_t d_v = m->kv_lora_rank ? m->v_head_dim : m->head_dim;
	uint64_t kv_heads = m->kv_lora_rank ? m->num_attention_heads : m->num_kv_heads;
	uint64_t q = dc_ck_mul(&c, m->num_attention_heads, d_qk);
	uint64_t k = dc_ck_mul(&c, kv_heads, d_qk);
	uint64_t v = dc_ck_mul(&c, kv_heads, d_v);
	uint64_t o = dc_ck_mul(&c, m->num_attention_heads, d_v);
	/* Q, K, V and the output projection's input: 2 bytes each */
	uint64_t attn_linear =
		dc_ck_mul(&c, dc_ck_mul(&c, 2, sb), dc_ck_add(&c, dc_ck_add(&c, q, k), dc_ck_add(&c, v, o)));
	/* MLP: GELU keeps fc1's output and GELU's output (2sbf each); SwiGLU
	 * keeps fc1's 2f-wide output (gate and up) and the product (f).
	 * A MoE layer runs each token through its top-k experts (k x the
	 * expert's f) and the shared experts, and keeps the k routed copies
	 * of each token's input (2 s b k h) for the experts' backward */
	uint64_t inner_f = m->ffn_hidden_size, mlp_inner, routed_inputs = 0;
	if (moe) {
		inner_f = dc_ck_add(&c, dc_ck_mul(&c, m->experts_per_token, m->moe_ffn_hidden_size),
				    m->shared_expert_ffn_hidden_size);
		routed_inputs = dc_ck_mul(&c, dc_ck_mul(&c, 2, sbh), m->experts_per_token);
	}
	mlp_inner = dc_ck_add(&c, dc_ck_mul(&c, dc_ck_mul(&c, sb, inner_f), gated ? 6 : 4), routed_inputs);
	/* 5as²b: softmax output (2), its dropout mask (1), dropout output (2);
	 * with context parallelism this rank's s / cp queries against all s keys */
	uint64_t scores = dc_ck_mul(&c, dc_ck_mul(&c, dc_ck_mul(&c, 5, m->num_attention_heads),
						  dc_ck_mul(&c, p->seq_per_cp_rank, m->seq_length)),
				    p->layout.micro_batch_size);
	uint64_t replicated = dc_ck_mul(&c, 10, sbh);

	out->replicated_bytes = sp ? dc_ceil_div(replicated, t) : replicated;
	out->linear_bytes = dc_ceil_div(dc_ck_add(&c, attn_linear, mlp_inner), t);
	out->scores_bytes = dc_ceil_div(scores, t);
	out->input_bytes = sp ? dc_ceil_div(dc_ck_mul(&c, 2, sbh), t) : dc_ck_mul(&c, 2, sbh);
	return c.overflow ? -1 : 0;
}

/* What one layer keeps for backward, and what recomputation rebuilds of it
 * while its backward runs (Korthikanti Table 2): none keeps everything;
 * selective keeps all but the scores and rebuilds them; full keeps the
 * input and rebuilds the whole layer. */
int dc_act_layer_kept_rebuilt(const struct dc_plan *pl, int moe, uint64_t *kept, uint64_t *rebuilt)
{
	struct dc_act_layer p;
	struct dc_ck c = {0};
	uint64_t all;
	if (dc_act_layer_parts(pl, moe, &p) != 0)
		return -1;
	all = dc_ck_add(&c, dc_ck_add(&c, p.replicated_bytes, p.linear_bytes), p.scores_bytes);
	switch (pl->in->training.recompute) {
	case DC_RECOMPUTE_NONE:
		*kept = all;
		*rebuilt = 0;
		break;
	case DC_RECOMPUTE_SELECTIVE:
		*kept = dc_ck_add(&c, p.replicated_bytes, p.linear_bytes);
		*rebuilt = p.scores_bytes;
		break;
	case DC_RECOMPUTE_FULL:
		*kept = p.input_bytes;
		*rebuilt = all;
		break;
	}
	return c.overflow ? -1 : 0;
}

int dc_act_layer_bytes(const struct dc_plan *p, int moe, uint64_t *out)
{
	uint64_t rebuilt;
	return dc_act_layer_kept_rebuilt(p, moe, out, &rebuilt);
}

int dc_act_recompute_working_bytes(const struct dc_plan *p, int moe, uint64_t *out)
{
	uint64_t kept;
	return dc_act_layer_kept_rebuilt(p, moe, &kept, out);
}

int dc_act_embedding_bytes(const struct dc_plan *p, uint64_t *out)
{
	struct dc_ck c = {0};
	uint64_t sbh = dc_ck_mul(&c, p->tokens_per_microbatch_cp, p->in->model.hidden_size);
	*out = p->layout.sequence_parallel ? dc_ceil_div(sbh, p->layout.tp) : sbh;
	return c.overflow ? -1 : 0;
}

int dc_act_output_bytes(const struct dc_plan *p, uint64_t *out)
{
	struct dc_ck c = {0};
	uint64_t t = p->layout.tp;
	uint64_t sb = p->tokens_per_microbatch_cp;
	uint64_t norm_and_head_inputs = dc_ck_mul(&c, 4, dc_ck_mul(&c, sb, p->in->model.hidden_size));
	uint64_t logits = dc_ceil_div(dc_ck_mul(&c, 4, dc_ck_mul(&c, sb, p->in->model.vocab_size)), t);
	if (p->layout.sequence_parallel)
		norm_and_head_inputs = dc_ceil_div(norm_and_head_inputs, t);
	*out = dc_ck_add(&c, norm_and_head_inputs, logits);
	return c.overflow ? -1 : 0;
}

int dc_act_layer_microbatches(const struct dc_plan *p, uint64_t stage, uint64_t *out)
{
	uint64_t pp = p->layout.pp, v = p->v;
	uint64_t m = p->layout.grad_accum_steps, layers = p->in->model.num_layers;
	struct dc_ck c = {0};

	if (pp <= 1) {
		*out = layers; /* one microbatch in flight */
		return 0;
	}
	if (v <= 1) {
		/* 1F1B: stage s runs p - s forwards before its first backward */
		uint64_t in_flight = pp - stage < m ? pp - stage : m;
		*out = dc_ck_mul(&c, dc_plan_stage_layers(p, stage), in_flight);
	} else {
		/* interleaved: Megatron-LM's warm-up 2(p - s - 1) + (v - 1)p chunk
		 * microbatches, plus the one in steady state, at most m·v */
		uint64_t warm = dc_ck_add(&c, dc_ck_mul(&c, 2, pp - stage - 1), dc_ck_mul(&c, v - 1, pp));
		uint64_t chunks = dc_ck_add(&c, warm, 1), all = dc_ck_mul(&c, m, v);
		*out = dc_ck_mul(&c, layers / (pp * v), chunks < all ? chunks : all);
	}
	return c.overflow ? -1 : 0;
}

uint64_t dc_act_first_stage_microbatches(const struct dc_plan *p)
{
	uint64_t pp = p->layout.pp, v = p->v;
	uint64_t m = p->layout.grad_accum_steps, n, rounds, rest;

	if (pp <= 1)
		return 1;
	if (v <= 1)
		return pp < m ? pp : m;
	/* stage 0 runs chunk-microbatches in blocks of pp per chunk, chunk 0
	 * first: of the n in flight, count those of chunk 0 */
	n = 2 * (pp - 1) + (v - 1) * pp + 1;
	if (n > m * v)
		n = m * v;
	rounds = n / (pp * v);
	rest = n % (pp * v);
	return rounds * pp + (rest < pp ? rest : pp);
}

void dc_act_plan_compute(const struct dc_plan *p, struct dc_act_plan *x)
{
	const struct dc_config *cfg = p->in;
	struct dc_ck c = {0};

	x->explicit_bytes = 0;
	x->explicit_bad = 0;
	if (cfg->memory.activation_explicit) {
		double tokens = (double)p->tokens_per_microbatch_cp; /* this cp rank's b s / cp */
		double v = ceil(cfg->memory.activation_bytes_per_token_per_layer * tokens);
		if (!(v >= 0) || v >= DC_MAX_EXACT_INT)
			x->explicit_bad = 1;
		else
			x->explicit_bytes = (uint64_t)v;
	}
	x->kept_bad[0] = dc_act_layer_kept_rebuilt(p, 0, &x->kept[0], &x->rebuilt[0]) != 0;
	/* only a shape with experts has MoE layers */
	x->kept[1] = x->rebuilt[1] = 0;
	x->kept_bad[1] = 0;
	if (cfg->model.num_experts && !cfg->model.params_explicit)
		x->kept_bad[1] = dc_act_layer_kept_rebuilt(p, 1, &x->kept[1], &x->rebuilt[1]) != 0;
	x->embedding_bad = dc_act_embedding_bytes(p, &x->embedding_bytes) != 0;
	x->embedding_bytes = dc_ck_mul(&c, x->embedding_bytes, dc_act_first_stage_microbatches(p));
	x->embedding_bad |= c.overflow;
	x->output_bad = dc_act_output_bytes(p, &x->output_bytes) != 0;
}
