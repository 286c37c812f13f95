/* activation.c - activation memory per rank; see activation.h and
 * docs/formulas.md, "Activation memory". */
#include "distcalc/activation.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "distcalc/framework.h"
#include "distcalc/plan.h"
#include "distcalc/util.h"

static const struct {
	const char *name;
	enum dc_act_group group;
} terms[DC_ACT_TERM_COUNT] = {
	[DC_ACT_NORM_INPUTS] = {"norm inputs (2)", DC_ACT_GROUP_REPLICATED},
	[DC_ACT_ATTN_INPUT] = {"Q/K/V input", DC_ACT_GROUP_REPLICATED},
	[DC_ACT_QK] = {"Q and K", DC_ACT_GROUP_SPLIT},
	[DC_ACT_V] = {"V", DC_ACT_GROUP_SPLIT},
	[DC_ACT_SOFTMAX] = {"softmax output", DC_ACT_GROUP_CORE},
	[DC_ACT_ATTN_MASK] = {"softmax dropout mask", DC_ACT_GROUP_CORE},
	[DC_ACT_ATTN_DROPOUT] = {"dropped softmax", DC_ACT_GROUP_CORE},
	[DC_ACT_SOFTMAX_STATS] = {"softmax statistics", DC_ACT_GROUP_CORE},
	[DC_ACT_CORE_OUTPUT] = {"attention kernel output", DC_ACT_GROUP_CORE},
	[DC_ACT_PROJ_INPUT] = {"attention output", DC_ACT_GROUP_SPLIT},
	[DC_ACT_MLP_INPUT] = {"MLP input", DC_ACT_GROUP_REPLICATED},
	[DC_ACT_MLP_UP] = {"MLP up output", DC_ACT_GROUP_SPLIT},
	[DC_ACT_MLP_ACT] = {"MLP activation", DC_ACT_GROUP_SPLIT},
	[DC_ACT_ROUTED] = {"routed copies", DC_ACT_GROUP_SPLIT},
	[DC_ACT_MLP_OUTPUT] = {"MLP output", DC_ACT_GROUP_REPLICATED},
	[DC_ACT_DROPOUT_MASKS] = {"dropout masks (2)", DC_ACT_GROUP_REPLICATED},
	[DC_ACT_QK_NORM_INPUTS] = {"Q/K norm inputs", DC_ACT_GROUP_SPLIT},
	[DC_ACT_SANDWICH_NORM_INPUTS] = {"sandwich norm inputs (2)", DC_ACT_GROUP_REPLICATED},
};

const char *dc_act_term_name(enum dc_act_term t)
{
	return terms[t].name;
}

enum dc_act_group dc_act_term_group(enum dc_act_term t)
{
	return terms[t].group;
}

static const char *base_formula(enum dc_act_term t, const struct dc_config *in, int moe)
{
	const struct dc_model *m = &in->model;
	int gated = m->mlp == DC_MLP_SWIGLU, shared = m->shared_expert_ffn_hidden_size > 0;
	switch (t) {
	case DC_ACT_NORM_INPUTS:
		return "2 x 2sbh";
	case DC_ACT_ATTN_INPUT:
	case DC_ACT_MLP_INPUT:
	case DC_ACT_MLP_OUTPUT:
		return "2sbh";
	case DC_ACT_QK:
		return m->kv_lora_rank ? "2sb(a + a)d_qk" : "2sb(a + kv)d";
	case DC_ACT_V:
		return m->kv_lora_rank ? "2sb a d_v" : "2sb kv d";
	case DC_ACT_SOFTMAX:
		return "2as^2b";
	case DC_ACT_ATTN_MASK:
		return "as^2b";
	case DC_ACT_ATTN_DROPOUT:
		return "2as^2b";
	case DC_ACT_SOFTMAX_STATS:
		return "4asb";
	case DC_ACT_PROJ_INPUT:
	case DC_ACT_CORE_OUTPUT:
		return m->kv_lora_rank ? "2sb a d_v" : "2sb a d";
	case DC_ACT_MLP_UP:
		/* a MoE layer's inner size: its top-k routed experts' and the
		 * shared experts' (dc_act_layer_parts) */
		if (moe)
			return gated ? (shared ? "4sb(k f_e + f_s) (gate and up)" : "4sbk f_e (gate and up)")
				     : (shared ? "2sb(k f_e + f_s) (fc1)" : "2sbk f_e (fc1)");
		return gated ? "4sbf (gate and up)" : "2sbf (fc1)";
	case DC_ACT_MLP_ACT:
		if (moe)
			return gated ? (shared ? "2sb(k f_e + f_s) (silu(gate) x up)" : "2sbk f_e (silu(gate) x up)")
				     : (shared ? "2sb(k f_e + f_s) (GELU)" : "2sbk f_e (GELU)");
		return gated ? "2sbf (silu(gate) x up)" : "2sbf (GELU)";
	case DC_ACT_ROUTED:
		return "2sbkh etp";
	case DC_ACT_DROPOUT_MASKS:
		return "2 x sbh";
	case DC_ACT_QK_NORM_INPUTS:
		return "2sb(a + kv)d";
	case DC_ACT_SANDWICH_NORM_INPUTS:
		return "2 x 2sbh";
	case DC_ACT_TERM_COUNT:
		break;
	}
	return "";
}

/* Whether Transformer Engine's FP8 saving (dc_framework_fp8_saved_inputs)
 * replaces term t's BF16 tensor by its FP8 copy in a layer of this shape
 * (dc_act_layer_parts), or adds the copy beside it (a MoE layer's MLP
 * input with shared experts: the router keeps the BF16 norm output) */
enum fp8_term { FP8_TERM_BF16, FP8_TERM_REPLACED, FP8_TERM_ADDED, FP8_TERM_TWO_COPIES };

static enum fp8_term fp8_term_of(enum dc_act_term t, const struct dc_config *in, int moe)
{
	const struct dc_model *m = &in->model;
	switch (t) {
	case DC_ACT_ATTN_INPUT:
		/* MLA's q and kv down-projections (separate TELinears: Megatron-
		 * Core's mla_down_proj_fusion is off by default) each save their
		 * own copy: two of a byte, as many bytes as the BF16 tensor
		 * (33/16 under MXFP8) */
		return m->kv_lora_rank ? FP8_TERM_TWO_COPIES : FP8_TERM_REPLACED;
	case DC_ACT_MLP_INPUT:
		if (!moe)
			return FP8_TERM_REPLACED;
		/* a shared expert's fc1 saves the router's BF16 input under
		 * Megatron's non-delayed recipes, its FP8 copy beside it under
		 * delayed (framework.h) */
		return m->shared_expert_ffn_hidden_size && !dc_framework_fp8_saves_original_input(in) ? FP8_TERM_ADDED
												      : FP8_TERM_BF16;
	case DC_ACT_PROJ_INPUT:
		/* likewise the projection: the core's BF16 output itself */
		return dc_framework_fp8_saves_original_input(in) ? FP8_TERM_BF16 : FP8_TERM_REPLACED;
	case DC_ACT_MLP_ACT:
	case DC_ACT_ROUTED:
		return FP8_TERM_REPLACED;
	default:
		break;
	}
	return FP8_TERM_BF16;
}

/* bytes of the FP8 copy of a tensor held at 2 bytes an element */
static uint64_t fp8_copy_bytes(uint64_t bf16_bytes, enum dc_fp8_saved f)
{
	uint64_t e = bf16_bytes / 2;
	return f == DC_FP8_SAVED_MXFP8 ? e + dc_ceil_div(e, 32) : e;
}

void dc_act_term_formula(enum dc_act_term t, const struct dc_config *in, int moe, char *buf, size_t len)
{
	const char *b = base_formula(t, in, moe);
	enum dc_fp8_saved f = dc_framework_fp8_saved_inputs(in);
	enum fp8_term k = f == DC_FP8_SAVED_NONE ? FP8_TERM_BF16 : fp8_term_of(t, in, moe);
	const char *rest;
	char copy[64];

	if (t == DC_ACT_CORE_OUTPUT) {
		snprintf(buf, len, "%s (BF16)", b);
		return;
	}
	if (k == FP8_TERM_BF16) {
		snprintf(buf, len, "%s", b);
		return;
	}
	/* every term an FP8 copy replaces counts 2 bytes an element: its
	 * formula starts with the 2 */
	rest = b[0] == '2' ? b + 1 : b;
	if (f == DC_FP8_SAVED_MXFP8)
		snprintf(copy, sizeof(copy), "33/32 x %s in MXFP8", rest);
	else
		snprintf(copy, sizeof(copy), "%s in FP8", rest);
	if (k == FP8_TERM_ADDED)
		snprintf(buf, len, "%s + %s", b, copy);
	else if (k == FP8_TERM_TWO_COPIES)
		snprintf(buf, len, "2 x %s", copy);
	else
		snprintf(buf, len, "%s", copy);
}

/* What torchtitan's per-op policy keeps of one layer (its
 * activation_checkpoint.py, _apply_op_sac): the checkpoint's input, then
 * the outputs of the ops on its save list (every matmul but the
 * even-numbered ones of the layer, the flash/efficient SDPA kernels' output
 * and logsumexp); everything else is recomputed. In a Llama layer the
 * matmuls run wq (1), wk (2), wv (3), wo (4), w1 (5), w3 (6), w2 (7): q,
 * v, the gate and the MLP output are kept, k, wo's output and up are not;
 * a GELU layer runs fc1 (5) and fc2 (6): fc1's output is kept. `raw`:
 * the terms' bytes before the tp split, `q_raw`, `gate_raw`: the parts of
 * the QK and MLP-up terms the policy keeps. */
static void op_policy_kept(const struct dc_plan *p, const uint64_t *raw, uint64_t q_raw, uint64_t gate_raw,
			   uint64_t *kept)
{
	uint64_t t = p->layout.tp;
	int sp = p->layout.sequence_parallel, gated = p->in->model.mlp == DC_MLP_SWIGLU;
	for (int i = 0; i < DC_ACT_TERM_COUNT; i++)
		kept[i] = 0;
	/* the layer input is the first norm's input: half the norm-inputs term */
	kept[DC_ACT_NORM_INPUTS] = sp ? dc_ceil_div(raw[DC_ACT_NORM_INPUTS] / 2, t) : raw[DC_ACT_NORM_INPUTS] / 2;
	kept[DC_ACT_QK] = dc_ceil_div(q_raw, t);
	kept[DC_ACT_V] = dc_ceil_div(raw[DC_ACT_V], t);
	kept[DC_ACT_PROJ_INPUT] = dc_ceil_div(raw[DC_ACT_PROJ_INPUT], t);
	/* the kernel's BF16 output where the projection keeps an FP8 copy
	 * (0 otherwise: the projection's input is that output) */
	kept[DC_ACT_CORE_OUTPUT] = dc_ceil_div(raw[DC_ACT_CORE_OUTPUT], t);
	if (p->in->training.attention == DC_ATTENTION_FLASH)
		kept[DC_ACT_SOFTMAX_STATS] = dc_ceil_div(raw[DC_ACT_SOFTMAX_STATS], t);
	kept[DC_ACT_MLP_UP] = dc_ceil_div(gate_raw, t);
	/* w2, the 7th matmul, is row-parallel: its local output is the full
	 * (partial-sum) sbh on every tp rank */
	if (gated)
		kept[DC_ACT_MLP_OUTPUT] = raw[DC_ACT_MLP_OUTPUT];
}

/* The bytes an MLP term holds for an inner size f alone (a MoE layer's
 * routed or shared part of it, as dc_act_layer_parts counts the whole):
 * `up` the fc1 output (2 or, gated, 4 bytes an element, BF16), else the
 * activation's output (2, or its FP8 copy) */
static uint64_t inner_term(const struct dc_plan *p, uint64_t sb, uint64_t f, int up, struct dc_ck *c)
{
	enum dc_fp8_saved fp8 = dc_framework_fp8_saved_inputs(p->in);
	uint64_t raw = dc_ck_mul(c, dc_ck_mul(c, sb, f), up && p->in->model.mlp == DC_MLP_SWIGLU ? 4 : 2);
	if (!up && fp8 != DC_FP8_SAVED_NONE)
		raw = fp8_copy_bytes(raw, fp8);
	return dc_ceil_div(raw, p->layout.tp);
}

/* What selective recompute keeps of one layer: every term but those the
 * recompute modules rebuild (config.h dc_recompute_modules, Megatron-Core
 * at d98e8a64; docs/formulas.md, "Recompute modules"):
 * - core_attn: the attention core (attention.py:394, the checkpointed
 *   core attention; Korthikanti et al. 2022 section 5);
 * - mla_up_proj: MLA's q, k and v, the up-projections' and rotation's
 *   outputs, dropped once the core has run (multi_latent_attention.py
 *   :983-990, CheckpointWithoutOutput; :455-458);
 * - mlp, on a dense layer: the MLP checkpointed whole (transformer_layer.py
 *   :537-539, 992): its input is the layer's residual, since Transformer
 *   Engine fuses the pre-MLP norm into fc1 (gpt_layer_specs.py:313), so
 *   fc1's saved norm output, its output and the activation's go;
 * - moe, on a MoE layer: the MLP part checkpointed whole (moe_layer.py
 *   :247-251, 701): the checkpoint keeps its BF16 input (the pre-MLP
 *   norm's output) and drops the rest: fc1's and the activation's
 *   outputs, the routed copies, an FP8 copy of the input;
 * - shared_experts: the shared experts' part of fc1's and the activation's
 *   outputs and their fc1's FP8 copy of the input (shared_experts.py
 *   :150-161);
 * - moe_act: the routed experts' activation output (experts.py:269-276, 1019-1030:
 *   fc2 saves the original, which the checkpoint drops);
 * - layernorm: the norms kept apart from a linear: MLA's input norm
 *   (gpt_layer_specs.py:296) and a MoE layer's pre-MLP norm (:313), their
 *   outputs dropped (transformer_layer.py:470-535), FP8 copies too (the
 *   linears are set to save the original). */
static void selective_kept(const struct dc_plan *p, int moe, uint64_t sb, struct dc_act_layer *out, struct dc_ck *c)
{
	const struct dc_model *m = &p->in->model;
	uint32_t mods = dc_recompute_modules(p->in);
	uint64_t *kept = out->kept_bytes;
	uint64_t sbh = dc_ck_mul(c, sb, m->hidden_size);
	/* the MLP input in BF16 as the layer holds it (s/t of it under
	 * sequence parallelism): the router's, which a checkpoint keeps */
	uint64_t in_bf16 = p->layout.sequence_parallel ? dc_ceil_div(dc_ck_mul(c, 2, sbh), p->layout.tp)
						      : dc_ck_mul(c, 2, sbh);
	for (int i = 0; i < DC_ACT_TERM_COUNT; i++)
		kept[i] = out->term_bytes[i];
	if (mods & DC_RCM(DC_RCM_CORE_ATTN))
		for (int i = 0; i < DC_ACT_TERM_COUNT; i++)
			if (terms[i].group == DC_ACT_GROUP_CORE)
				kept[i] = 0;
	if (m->kv_lora_rank && (mods & DC_RCM(DC_RCM_MLA_UP_PROJ)))
		kept[DC_ACT_QK] = kept[DC_ACT_V] = 0;
	if (!moe && (mods & DC_RCM(DC_RCM_MLP)))
		kept[DC_ACT_MLP_INPUT] = kept[DC_ACT_MLP_UP] = kept[DC_ACT_MLP_ACT] = 0;
	if (moe && (mods & DC_RCM(DC_RCM_MOE))) {
		kept[DC_ACT_MLP_UP] = kept[DC_ACT_MLP_ACT] = kept[DC_ACT_ROUTED] = 0;
		if (kept[DC_ACT_MLP_INPUT] > in_bf16)
			kept[DC_ACT_MLP_INPUT] = in_bf16;
	} else if (moe) {
		uint64_t routed = dc_ck_mul(c, m->experts_per_token, m->moe_ffn_hidden_size);
		uint64_t fs = m->shared_expert_ffn_hidden_size;
		int shared = fs && (mods & DC_RCM(DC_RCM_SHARED_EXPERTS)), act = (mods & DC_RCM(DC_RCM_MOE_ACT)) != 0;
		if (shared) {
			kept[DC_ACT_MLP_UP] = inner_term(p, sb, routed, 1, c);
			if (kept[DC_ACT_MLP_INPUT] > in_bf16)
				kept[DC_ACT_MLP_INPUT] = in_bf16;
		}
		if (shared || act)
			kept[DC_ACT_MLP_ACT] = dc_ck_add(c, shared || !fs ? 0 : inner_term(p, sb, fs, 0, c),
							 act ? 0 : inner_term(p, sb, routed, 0, c));
	}
	if (mods & DC_RCM(DC_RCM_LAYERNORM)) {
		if (m->kv_lora_rank)
			kept[DC_ACT_ATTN_INPUT] = 0;
		if (moe)
			kept[DC_ACT_MLP_INPUT] = 0;
	}
}

int dc_act_layer_parts(const struct dc_plan *p, int moe, struct dc_act_layer *out)
{
	const struct dc_model *m = &p->in->model;
	uint64_t t = p->layout.tp;
	int sp = p->layout.sequence_parallel;
	int gated = m->mlp == DC_MLP_SWIGLU;
	int eager = p->in->training.attention == DC_ATTENTION_EAGER, dropout = m->dropout;
	enum dc_fp8_saved fp8 = dc_framework_fp8_saved_inputs(p->in);
	struct dc_ck c = {0};
	uint64_t sb = p->tokens_per_microbatch_cp; /* b s / cp: this context-parallel rank's tokens */
	uint64_t sbh = dc_ck_mul(&c, sb, m->hidden_size);
	uint64_t raw[DC_ACT_TERM_COUNT] = {0};
	/* widths: queries and keys carry d_qk per head, values d_v (MLA:
	 * nope + rope and v_head_dim; otherwise head_dim) */
	uint64_t d_qk = m->kv_lora_rank ? m->qk_nope_head_dim + m->qk_rope_head_dim : m->head_dim;
	uint64_t d_v = m->kv_lora_rank ? m->v_head_dim : m->head_dim;
	uint64_t kv_heads = m->kv_lora_rank ? m->num_attention_heads : m->num_kv_heads;
	uint64_t q = dc_ck_mul(&c, m->num_attention_heads, d_qk);
	uint64_t k = dc_ck_mul(&c, kv_heads, d_qk);
	uint64_t v = dc_ck_mul(&c, kv_heads, d_v);
	uint64_t o = dc_ck_mul(&c, m->num_attention_heads, d_v);
	/* a s^2 b: one element per head, query and key of the microbatch;
	 * with context parallelism this rank's s / cp queries against all s keys */
	uint64_t as2b = dc_ck_mul(&c, dc_ck_mul(&c, m->num_attention_heads, dc_ck_mul(&c, p->seq_per_cp_rank, m->seq_length)),
				  p->layout.micro_batch_size);
	uint64_t inner_f = m->ffn_hidden_size;
	/* under sequence parallelism the Q/K/V and MLP inputs are the
	 * gathered norm outputs: Megatron keeps the s/t shard and gathers it
	 * again, torchtitan keeps what it gathered (framework.h) */
	int gathered_kept = t > 1 && dc_framework_tp_keeps_gathered_input(p->in);

	/* replicated over tp: the two norms' inputs, their outputs (the
	 * Q/K/V and MLP inputs), and with dropout the two residual masks
	 * (1 byte per element) */
	raw[DC_ACT_NORM_INPUTS] = dc_ck_mul(&c, 4, sbh);
	raw[DC_ACT_ATTN_INPUT] = dc_ck_mul(&c, 2, sbh);
	raw[DC_ACT_MLP_INPUT] = dc_ck_mul(&c, 2, sbh);
	raw[DC_ACT_DROPOUT_MASKS] = dropout ? dc_ck_mul(&c, 2, sbh) : 0;
	/* Gemma 2/3's sandwich: the norms after attention and after the MLP
	 * (post_attention_layernorm, post_feedforward_layernorm in
	 * transformers' Gemma2DecoderLayer) save their inputs, the output
	 * projection's and the MLP's outputs, like the block's two */
	raw[DC_ACT_SANDWICH_NORM_INPUTS] = m->sandwich_norm ? dc_ck_mul(&c, 4, sbh) : 0;
	/* Q, K, V and the projection's input: 2 bytes each */
	raw[DC_ACT_QK] = dc_ck_mul(&c, dc_ck_mul(&c, 2, sb), dc_ck_add(&c, q, k));
	raw[DC_ACT_V] = dc_ck_mul(&c, dc_ck_mul(&c, 2, sb), v);
	raw[DC_ACT_PROJ_INPUT] = dc_ck_mul(&c, dc_ck_mul(&c, 2, sb), o);
	/* q and k normed per head (Qwen3's q_norm and k_norm, Megatron-Core's
	 * qk_layernorm: an RMSNorm saves its input) before the rotation; the
	 * kernel saves the rotated q and k (the QK term) besides, and the
	 * rotation's backward needs no input */
	raw[DC_ACT_QK_NORM_INPUTS] =
		m->qk_norm ? dc_ck_mul(&c, dc_ck_mul(&c, 2, sb), dc_ck_add(&c, q, k)) : 0;
	/* the attention core. Eager (Korthikanti's 5as^2b with dropout): the
	 * softmax output (2), its dropout mask (1) and the dropped
	 * probabilities PV reads (2); without dropout PV reads the softmax
	 * output itself. Flash (FlashAttention-2, Dao 2023, Algorithm 1-2):
	 * S and P live in on-chip tiles only; forward writes O (the
	 * projection input, counted there) and one FP32 logsumexp per row
	 * and head, and backward regenerates the dropout mask from the RNG
	 * state instead of storing it */
	if (eager) {
		raw[DC_ACT_SOFTMAX] = dc_ck_mul(&c, 2, as2b);
		raw[DC_ACT_ATTN_MASK] = dropout ? as2b : 0;
		raw[DC_ACT_ATTN_DROPOUT] = dropout ? dc_ck_mul(&c, 2, as2b) : 0;
	} else {
		raw[DC_ACT_SOFTMAX_STATS] = dc_ck_mul(&c, dc_ck_mul(&c, 4, m->num_attention_heads), sb);
	}
	/* MLP: GELU keeps fc1's output and GELU's output (2sbf each); SwiGLU
	 * keeps fc1's 2f-wide output (gate and up) and the product (f).
	 * A MoE layer runs each token through its top-k experts (k x the
	 * expert's f) and the shared experts, and keeps the k routed copies
	 * of each token's input (2 s b k h) for the experts' backward. With
	 * the experts split over etp ranks, the tokens an expert rank receives
	 * are gathered over its etp group before its grouped FC1 (tp.c's
	 * "routed tokens gathered over etp"), whose saved input is that
	 * gathered tensor: etp x a rank's share (split by t below), where the
	 * FC1 output's f / etp columns leave the MLP terms a rank's share (a
	 * trial: ep 8 at etp 4 read 76.7 GiB, 36 GiB short, as at etp 1) */
	if (moe) {
		inner_f = dc_ck_add(&c, dc_ck_mul(&c, m->experts_per_token, m->moe_ffn_hidden_size),
				    m->shared_expert_ffn_hidden_size);
		raw[DC_ACT_ROUTED] = dc_ck_mul(&c, dc_ck_mul(&c, dc_ck_mul(&c, 2, sbh), m->experts_per_token), p->etp);
	}
	raw[DC_ACT_MLP_UP] = dc_ck_mul(&c, dc_ck_mul(&c, sb, inner_f), gated ? 4 : 2);
	raw[DC_ACT_MLP_ACT] = dc_ck_mul(&c, dc_ck_mul(&c, sb, inner_f), 2);
	/* never held but by the op policy */
	raw[DC_ACT_MLP_OUTPUT] = dc_ck_mul(&c, 2, sbh);
	/* Transformer Engine's FP8 linears save their inputs' FP8 copies
	 * (fp8_term_of); a fused attention kernel keeps its BF16 output O
	 * for its own backward beside the projection's FP8 copy, the one
	 * tensor both held under BF16 (docs/memory-conventions.md, "FP8") */
	if (fp8 != DC_FP8_SAVED_NONE) {
		if (!eager && fp8_term_of(DC_ACT_PROJ_INPUT, p->in, moe) == FP8_TERM_REPLACED)
			raw[DC_ACT_CORE_OUTPUT] = raw[DC_ACT_PROJ_INPUT];
		for (int i = 0; i < DC_ACT_TERM_COUNT; i++) {
			enum fp8_term how = fp8_term_of((enum dc_act_term)i, p->in, moe);
			if (how == FP8_TERM_REPLACED)
				raw[i] = fp8_copy_bytes(raw[i], fp8);
			else if (how == FP8_TERM_ADDED)
				raw[i] = dc_ck_add(&c, raw[i], fp8_copy_bytes(raw[i], fp8));
			else if (how == FP8_TERM_TWO_COPIES)
				raw[i] = dc_ck_mul(&c, 2, fp8_copy_bytes(raw[i], fp8));
		}
	}

	out->replicated_bytes = out->linear_bytes = out->scores_bytes = 0;
	for (int i = 0; i < DC_ACT_TERM_COUNT; i++) {
		uint64_t b = raw[i];
		if (i == DC_ACT_MLP_OUTPUT)
			b = 0;
		else if (sp && gathered_kept && (i == DC_ACT_ATTN_INPUT || i == DC_ACT_MLP_INPUT))
			b = raw[i]; /* the gathered b s h: torchtitan's saved matmul input */
		else if (terms[i].group != DC_ACT_GROUP_REPLICATED || sp)
			b = dc_ceil_div(b, t);
		out->term_bytes[i] = b;
		if (terms[i].group == DC_ACT_GROUP_REPLICATED)
			out->replicated_bytes = dc_ck_add(&c, out->replicated_bytes, b);
		else if (terms[i].group == DC_ACT_GROUP_SPLIT)
			out->linear_bytes = dc_ck_add(&c, out->linear_bytes, b);
		else
			out->scores_bytes = dc_ck_add(&c, out->scores_bytes, b);
	}
	out->input_bytes = sp ? dc_ceil_div(dc_ck_mul(&c, 2, sbh), t) : dc_ck_mul(&c, 2, sbh);

	/* what the recompute policy keeps of each term */
	switch (p->in->training.recompute) {
	case DC_RECOMPUTE_NONE:
		for (int i = 0; i < DC_ACT_TERM_COUNT; i++)
			out->kept_bytes[i] = out->term_bytes[i];
		break;
	case DC_RECOMPUTE_SELECTIVE:
		selective_kept(p, moe, sb, out, &c);
		break;
	case DC_RECOMPUTE_FULL:
		for (int i = 0; i < DC_ACT_TERM_COUNT; i++)
			out->kept_bytes[i] = 0;
		/* the layer input is the first norm's input */
		out->kept_bytes[DC_ACT_NORM_INPUTS] = out->input_bytes;
		break;
	case DC_RECOMPUTE_OP: {
		uint64_t q_raw = dc_ck_mul(&c, dc_ck_mul(&c, 2, sb), q);
		uint64_t gate_raw = dc_ck_mul(&c, dc_ck_mul(&c, sb, inner_f), 2);
		op_policy_kept(p, raw, q_raw, gate_raw, out->kept_bytes);
		break;
	}
	}
	return c.overflow ? -1 : 0;
}

/* What one layer keeps for backward, and what recomputation rebuilds of it
 * while its backward runs (Korthikanti Table 2): none keeps everything;
 * selective keeps all but the attention core and rebuilds it; full keeps
 * the input and rebuilds the whole layer; op keeps what its policy saves
 * and rebuilds the rest. */
static int kept_rebuilt_of(const struct dc_plan *pl, const struct dc_act_layer *p, uint64_t *kept,
			   uint64_t *rebuilt)
{
	struct dc_ck c = {0};
	uint64_t all = 0, k = 0, lost = 0;
	for (int i = 0; i < DC_ACT_TERM_COUNT; i++) {
		all = dc_ck_add(&c, all, p->term_bytes[i]);
		k = dc_ck_add(&c, k, p->kept_bytes[i]);
		if (p->term_bytes[i] > p->kept_bytes[i])
			lost = dc_ck_add(&c, lost, p->term_bytes[i] - p->kept_bytes[i]);
	}
	*kept = k;
	switch (pl->in->training.recompute) {
	case DC_RECOMPUTE_NONE:
		*rebuilt = 0;
		break;
	case DC_RECOMPUTE_FULL:
		*rebuilt = all;
		break;
	case DC_RECOMPUTE_SELECTIVE:
	case DC_RECOMPUTE_OP:
		*rebuilt = lost;
		break;
	}
	return c.overflow ? -1 : 0;
}

int dc_act_layer_kept_rebuilt(const struct dc_plan *pl, int moe, uint64_t *kept, uint64_t *rebuilt)
{
	struct dc_act_layer p;
	if (dc_act_layer_parts(pl, moe, &p) != 0)
		return -1;
	return kept_rebuilt_of(pl, &p, kept, rebuilt);
}

/* What one layer's deferred W reads (activation.h,
 * dc_act_layer_wgrad_bytes), from its parts: the linears' inputs and
 * output gradients, each as the rank holds it. */
static int wgrad_of(const struct dc_plan *pl, const struct dc_act_layer *p, int moe, uint64_t *out)
{
	const struct dc_model *m = &pl->in->model;
	const uint64_t *t = p->term_bytes;
	struct dc_ck c = {0};
	/* a row-parallel linear's output gradient: the whole 2sbh on every
	 * tp rank (the backward of its all-reduce or reduce-scatter) */
	uint64_t row_out = dc_ck_mul(&c, 2, dc_ck_mul(&c, pl->tokens_per_microbatch_cp, m->hidden_size));
	uint64_t x, dy;
	/* X: Q/K/V's, the projection's, the MLP's first GEMM's (the router's
	 * and shared experts' under MoE), its second's, the experts' copies */
	x = dc_ck_add(&c, dc_ck_add(&c, t[DC_ACT_ATTN_INPUT], t[DC_ACT_PROJ_INPUT]),
		      dc_ck_add(&c, dc_ck_add(&c, t[DC_ACT_MLP_INPUT], t[DC_ACT_MLP_ACT]), t[DC_ACT_ROUTED]));
	/* dY: Q/K/V's outputs, the projection's, the first GEMM's (gate and
	 * up), the second's: 2sbh dense; MoE the routed copies' gradients and
	 * 2sbh for shared experts */
	dy = dc_ck_add(&c, dc_ck_add(&c, t[DC_ACT_QK], t[DC_ACT_V]), dc_ck_add(&c, row_out, t[DC_ACT_MLP_UP]));
	if (!moe)
		dy = dc_ck_add(&c, dy, row_out);
	else
		dy = dc_ck_add(&c, dy, dc_ck_add(&c, t[DC_ACT_ROUTED], m->shared_expert_ffn_hidden_size ? row_out : 0));
	*out = dc_ck_add(&c, x, dy);
	return c.overflow ? -1 : 0;
}

int dc_act_layer_wgrad_bytes(const struct dc_plan *pl, int moe, uint64_t *out)
{
	struct dc_act_layer p;
	if (dc_act_layer_parts(pl, moe, &p) != 0)
		return -1;
	return wgrad_of(pl, &p, moe, out);
}

/* Under sequence parallelism the output layer's input is the final
 * norm's gathered output: Megatron's column-parallel head keeps the s/t
 * shard and gathers it again for the weight gradient, torchtitan's
 * ColwiseParallel(input_layouts=Shard(1)) linear keeps the gathered b s h
 * it multiplied (parallelize_llama.py:135-141 at 9dec370; the block
 * boundary's Replicate at b5bcd76c, framework.h
 * dc_framework_tp_keeps_gathered_input) */
static int head_input_gathered(const struct dc_plan *p)
{
	return p->layout.tp > 1 && dc_framework_tp_keeps_gathered_input(p->in);
}

int dc_act_head_wgrad_bytes(const struct dc_plan *p, uint64_t *out)
{
	struct dc_ck c = {0};
	uint64_t sb = p->tokens_per_microbatch_cp;
	uint64_t in = dc_ck_mul(&c, 2, dc_ck_mul(&c, sb, p->in->model.hidden_size));
	uint64_t dlogits = dc_ceil_div(dc_ck_mul(&c, 2, dc_ck_mul(&c, sb, p->in->model.vocab_size)), p->layout.tp);
	if (p->layout.sequence_parallel && !head_input_gathered(p))
		in = dc_ceil_div(in, p->layout.tp);
	*out = dc_ck_add(&c, in, dlogits);
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
	if (!p->in->model.dropout)
		*out = 0; /* no dropout, no mask */
	return c.overflow ? -1 : 0;
}

uint64_t dc_act_loss_chunks(const struct dc_plan *p)
{
	uint64_t n = p->in->training.loss_chunks, sb = p->tokens_per_microbatch_cp;
	if (n < 1)
		n = 1;
	return sb && n > sb ? sb : n;
}

uint64_t dc_act_loss_chunk_tokens(const struct dc_plan *p)
{
	return dc_ceil_div(p->tokens_per_microbatch_cp, dc_act_loss_chunks(p));
}

int dc_act_output_bytes(const struct dc_plan *p, uint64_t *out)
{
	struct dc_ck c = {0};
	uint64_t t = p->layout.tp;
	uint64_t sb = p->tokens_per_microbatch_cp;
	uint64_t sbh = dc_ck_mul(&c, sb, p->in->model.hidden_size);
	uint64_t norm_and_head_inputs = dc_ck_mul(&c, 4, sbh);
	uint64_t logits = dc_ceil_div(dc_ck_mul(&c, 4, dc_ck_mul(&c, sb, p->in->model.vocab_size)), t);
	if (dc_act_loss_chunks(p) > 1) {
		/* chunked: the norm's input and the gathered 16-bit gradient of
		 * the head input (replicated over tp: loss.py:528-531) */
		uint64_t norm_in = dc_ck_mul(&c, 2, sbh);
		if (p->layout.sequence_parallel)
			norm_in = dc_ceil_div(norm_in, t);
		*out = dc_ck_add(&c, norm_in, dc_ck_mul(&c, 2, sbh));
		return c.overflow ? -1 : 0;
	}
	if (p->layout.sequence_parallel && head_input_gathered(p))
		/* the norm's input a shard, the head's input gathered */
		norm_and_head_inputs = dc_ck_add(&c, dc_ceil_div(dc_ck_mul(&c, 2, sbh), t), dc_ck_mul(&c, 2, sbh));
	else if (p->layout.sequence_parallel)
		norm_and_head_inputs = dc_ceil_div(norm_and_head_inputs, t);
	*out = dc_ck_add(&c, norm_and_head_inputs, logits);
	return c.overflow ? -1 : 0;
}

int dc_act_head_backward_bytes(const struct dc_plan *p, uint64_t *out)
{
	struct dc_ck c = {0};
	/* this context-parallel rank's tokens (cp x too many before) */
	uint64_t sbv = dc_ck_mul(&c, p->tokens_per_microbatch_cp, p->in->model.vocab_size);
	if (dc_act_loss_chunks(p) > 1) {
		/* over the held line (norm input, 16-bit gathered gradient):
		 * in the loop the norm's output and the FP32 buffer, 2 + 4
		 * bytes a hidden element, and one chunk's logits, 2 + 4 + 8
		 * bytes each (2 + 4 + 12 under loss parallel: its backward
		 * holds the zeroed gradient, exp and their sum beside the
		 * saved log-probs, as the unchunked line below), before the
		 * 16-bit gradient exists (-2); after it, that cast beside the
		 * two (6) */
		uint64_t sbh = dc_ck_mul(&c, p->tokens_per_microbatch_cp, p->in->model.hidden_size);
		uint64_t cv = dc_ck_mul(&c, dc_act_loss_chunk_tokens(p), p->in->model.vocab_size);
		uint64_t per_logit = dc_framework_loss_parallel(p) ? 18 : 14;
		uint64_t loop = dc_ck_add(&c, dc_ck_mul(&c, 4, sbh), dc_ceil_div(dc_ck_mul(&c, per_logit, cv), p->layout.tp));
		uint64_t cast = dc_ck_mul(&c, 6, sbh);
		*out = loop > cast ? loop : cast;
		return c.overflow ? -1 : 0;
	}
	/* the fused path's two FP32 gradients, 8 bytes a logit; torchtitan's
	 * loss parallel decomposition 12 (framework.h
	 * dc_framework_loss_parallel); Megatron's in place, its 16-bit copy
	 * alone, 2 (dc_framework_loss_in_place) */
	*out = dc_ceil_div(dc_ck_mul(&c,
				     dc_framework_loss_parallel(p)		 ? 12
				     : dc_framework_loss_in_place(p->in) ? 2
									 : 8,
				     sbv),
			   p->layout.tp);
	return c.overflow ? -1 : 0;
}

enum dc_pipe_schedule dc_pipeline_schedule(const struct dc_plan *p)
{
	/* derive's (plan.h), else as derive finds it */
	return p->schedule_set ? p->schedule : dc_layout_schedule(p->in, &p->layout, p->runs.n <= 1);
}

uint64_t dc_pipeline_chunks(const struct dc_plan *p)
{
	switch (dc_pipeline_schedule(p)) {
	case DC_PIPE_INTERLEAVED:
		return p->v;
	case DC_PIPE_DUALPIPE:
	case DC_PIPE_DUALPIPEV:
		return 2;
	case DC_PIPE_1F1B:
	case DC_PIPE_ZERO_BUBBLE:
		break;
	}
	return 1;
}

void dc_pipeline_chunk(const struct dc_plan *p, uint64_t stage, uint64_t c, struct dc_pipeline_chunk *out)
{
	uint64_t pp = p->layout.pp, L = p->in->model.num_layers, last = pp - 1, st = stage;
	*out = (struct dc_pipeline_chunk){0};
	switch (dc_pipeline_schedule(p)) {
	case DC_PIPE_INTERLEAVED:
		out->first_layer = dc_plan_chunk_start(p, stage, c);
		out->layers = dc_plan_chunk_layers(p, stage, c);
		out->embedding = stage == 0 && c == 0;
		out->head = stage == pp - 1 && c + 1 == p->v;
		return;
	case DC_PIPE_DUALPIPE:
		/* rank s: stage s of the forward direction, stage pp - 1 - s of
		 * the reverse one (DeepSeek-V3 section 3.2.1) */
		st = c == 0 ? stage : pp - 1 - stage;
		out->first_layer = dc_plan_stage_first_layer(p, st);
		out->layers = dc_plan_stage_layers(p, st);
		out->embedding = st == 0;
		out->head = st == last;
		return;
	case DC_PIPE_DUALPIPEV:
		/* rank s: chunks s and 2pp - 1 - s of 2pp, a V */
		last = 2 * pp - 1;
		st = c == 0 ? stage : last - stage;
		out->layers = L / (2 * pp);
		break;
	case DC_PIPE_1F1B:
	case DC_PIPE_ZERO_BUBBLE:
		out->first_layer = dc_plan_stage_first_layer(p, stage);
		out->layers = dc_plan_stage_layers(p, stage);
		out->embedding = stage == 0;
		out->head = stage == pp - 1;
		return;
	}
	out->first_layer = st * out->layers;
	out->embedding = st == 0;
	out->head = st == last;
}

/* Of the first n virtual microbatches stage s runs forward under
 * Megatron-Core's interleaved order (blocks of pp per chunk, chunk 0
 * first), those of chunk c. */
static uint64_t interleaved_of_chunk(uint64_t pp, uint64_t v, uint64_t n, uint64_t c)
{
	uint64_t rounds = n / (pp * v), rest = n % (pp * v);
	uint64_t here = rest > c * pp ? rest - c * pp : 0;
	return rounds * pp + (here < pp ? here : pp);
}

/* The chunk-microbatches stage s holds in flight under the interleaved
 * schedule (pp > 1), all its chunks together: Megatron-Core's
 * 2 (p - s - 1) + (v - 1) p warm-up forwards
 * (microbatch_group_size_per_vp_stage = p), the first steady forward
 * before the first backward, all m v when the warm-up covers them.
 * interleaved_of_chunk splits them between the chunks. */
static uint64_t interleaved_in_flight(const struct dc_plan *p, uint64_t stage)
{
	uint64_t pp = p->layout.pp, v = p->v, m = dc_layout_schedule_m(&p->layout);
	uint64_t n = 2 * (pp - stage - 1) + (v - 1) * pp + 1;
	return n > m * v ? m * v : n;
}

uint64_t dc_pipeline_in_flight_chunk(const struct dc_plan *p, uint64_t stage, uint64_t c)
{
	uint64_t pp = p->layout.pp, v = p->v, m = dc_layout_schedule_m(&p->layout);
	if (pp <= 1)
		return c == 0 ? 1 : 0;
	switch (dc_pipeline_schedule(p)) {
	case DC_PIPE_INTERLEAVED: {
		/* all m v in flight: every chunk holds its m (the blocks of pp
		 * give the same when pp divides m, as the loader asks) */
		uint64_t n = interleaved_in_flight(p, stage);
		return n == m * v ? m : interleaved_of_chunk(pp, v, n, c);
	}
	case DC_PIPE_DUALPIPE:
		/* deepseek-ai/DualPipe step(): with h = min(s, pp - 1 - s),
		 * steps 1-2 leave pp - h - 1 forwards of the rank's nearer
		 * direction and h + 1 of the other in flight, and the first
		 * overlapped pair of step 4 runs a forward before its backward
		 * frees one: pp + 1 in all. By direction: pp - s of the forward
		 * one (stage s), s + 1 of the reverse one (stage pp - 1 - s),
		 * each as 1F1B holds pp - k at position k */
		return c == 0 ? pp - stage : stage + 1;
	case DC_PIPE_DUALPIPEV:
		/* dualpipev.py step(): 2 (pp - s - 1) + (s + 1) of chunk 0 and
		 * s + 1 of chunk 1 after step 2, one more forward of chunk 0 in
		 * the first pair: 2 pp + 1 chunks of L / 2pp layers */
		return c == 0 ? 2 * pp - stage : stage + 1;
	case DC_PIPE_1F1B:
	case DC_PIPE_ZERO_BUBBLE:
		/* 1F1B: stage s runs p - s forwards before its first backward.
		 * ZB-H1 keeps the same count of whole activations (Qi et al.
		 * 2023 section 2.1); what its deferred weight gradients hold
		 * comes on top (dc_pipeline_zb_deferred) */
		break;
	}
	return c == 0 ? (pp - stage < m ? pp - stage : m) : 0;
}

/* a whole + b wgrad, the larger of it and *best kept with its b */
static void zb_state(uint64_t a, uint64_t b, uint64_t whole, uint64_t wgrad, struct dc_ck *c, uint64_t *best,
		     uint64_t *best_b)
{
	uint64_t v = dc_ck_add(c, dc_ck_mul(c, a, whole), dc_ck_mul(c, b, wgrad));
	if (v > *best) {
		*best = v;
		*best_b = b;
	}
}

int dc_pipeline_zb_deferred(uint64_t pp, uint64_t s, uint64_t m, uint64_t whole, uint64_t wgrad,
			    uint64_t *pending, uint64_t *extra)
{
	/* gen_zb (step.c): w warm-up forwards; k = m - w rounds of F, B
	 * and (once more than s await it) the oldest W, b after round i
	 * min(i, s) (stage 0 runs each W at once: 1F1B); then w more B's,
	 * each with the oldest W once more than s await; then the W's left.
	 * a + b never falls across a B, so the peak is one of: a round's
	 * forward (a = w + 1, its b the most, min(k - 1, s)), the state just
	 * after a round's B (a = w, b = min(k, s + 1)), or one after a
	 * drain B (a = w - j, b = min(b_k + j - 1, s) + 1, linear in j up
	 * to the cap: j = 1, j = w and the cap's j bound it) */
	uint64_t w = pp - s - 1 < m ? pp - s - 1 : m, k = m - w, bk, best = 0, best_b = 0;
	struct dc_ck c = {0};
	uint64_t js[3];
	if (k >= 1) {
		zb_state(w + 1, k - 1 < s ? k - 1 : s, whole, wgrad, &c, &best, &best_b);
		zb_state(w, k < s + 1 ? k : s + 1, whole, wgrad, &c, &best, &best_b);
		bk = k < s ? k : s;
	} else {
		zb_state(w, 0, whole, wgrad, &c, &best, &best_b);
		bk = 0;
	}
	js[0] = 1;
	js[1] = w;
	js[2] = s + 1 - bk; /* bk <= s */
	for (int i = 0; i < 3 && w >= 1; i++) {
		uint64_t j = js[i], b;
		if (j < 1 || j > w)
			continue;
		b = bk + j - 1 < s ? bk + j - 1 : s;
		zb_state(w - j, b + 1, whole, wgrad, &c, &best, &best_b);
	}
	/* the first state is 1F1B's min(pp - s, m) whole and a b >= 0 */
	*pending = best_b;
	*extra = best - dc_ck_mul(&c, k >= 1 ? w + 1 : m, whole);
	return c.overflow ? -1 : 0;
}

uint64_t dc_pipeline_chunks_in_flight(const struct dc_plan *p, uint64_t stage)
{
	uint64_t n = 0, chunks;
	/* interleaved: the chunks' shares add up to the stage's count (every
	 * whole round gives each chunk pp, the rest < pp v fills chunk by
	 * chunk: interleaved_of_chunk) */
	if (p->layout.pp > 1 && dc_pipeline_schedule(p) == DC_PIPE_INTERLEAVED)
		return interleaved_in_flight(p, stage);
	chunks = dc_pipeline_chunks(p);
	for (uint64_t c = 0; c < chunks; c++)
		n += dc_pipeline_in_flight_chunk(p, stage, c);
	return n;
}

int dc_act_layer_microbatches(const struct dc_plan *p, uint64_t stage, uint64_t *out)
{
	uint64_t chunks = dc_pipeline_chunks(p);
	struct dc_ck c = {0};

	if (p->layout.pp <= 1) {
		*out = p->in->model.num_layers; /* one microbatch in flight */
		return 0;
	}
	/* each chunk's layers times its chunk-microbatches in flight: at
	 * stage 0 of the interleaved schedule L (1 + (p - 1)/(p v)), the
	 * factor of Korthikanti Eq. 5 */
	if (chunks > 1 && dc_pipeline_schedule(p) == DC_PIPE_INTERLEAVED && !p->chunks_uneven) {
		/* every chunk of the stage holds the same layers (plan.h:
		 * dc_plan_chunk_layers), so the sum is those layers times the
		 * stage's chunk-microbatches: the same integer */
		*out = dc_ck_mul(&c, dc_plan_chunk_layers(p, stage, 0), interleaved_in_flight(p, stage));
		return c.overflow ? -1 : 0;
	}
	*out = 0;
	for (uint64_t k = 0; k < chunks; k++) {
		struct dc_pipeline_chunk ch;
		dc_pipeline_chunk(p, stage, k, &ch);
		*out = dc_ck_add(&c, *out, dc_ck_mul(&c, ch.layers, dc_pipeline_in_flight_chunk(p, stage, k)));
	}
	return c.overflow ? -1 : 0;
}

uint64_t dc_act_first_stage_microbatches(const struct dc_plan *p)
{
	/* the model's first chunk: stage 0's chunk 0 under every schedule */
	return dc_pipeline_in_flight_chunk(p, 0, 0);
}

/* One kind of layer's kept and rebuilt bytes, and what it holds without
 * recompute (the layers training.recompute_layers leaves alone). */
static int layer_kinds(const struct dc_plan *p, int moe, struct dc_act_plan *x)
{
	struct dc_act_layer parts;
	struct dc_ck c = {0};
	/* the layer's parts once: dc_act_layer_kept_rebuilt would derive the
	 * same ones again (a function of the plan and moe alone, integers) */
	if (dc_act_layer_parts(p, moe, &parts) != 0 ||
	    kept_rebuilt_of(p, &parts, &x->kept[moe], &x->rebuilt[moe]) != 0)
		return -1;
	x->all[moe] = 0;
	for (int i = 0; i < DC_ACT_TERM_COUNT; i++)
		x->all[moe] = dc_ck_add(&c, x->all[moe], parts.term_bytes[i]);
	x->input_bytes = parts.input_bytes;
	/* what a deferred W holds: read under ZB-H1 alone (memory.c) */
	if (dc_pipeline_schedule(p) == DC_PIPE_ZERO_BUBBLE && p->layout.pp > 1)
		x->wgrad_bad |= wgrad_of(p, &parts, moe, &x->wgrad[moe]) != 0;
	return c.overflow ? -1 : 0;
}

void dc_act_plan_compute(const struct dc_plan *p, struct dc_act_plan *x)
{
	const struct dc_config *cfg = p->in;
	struct dc_ck c = {0};

	/* zeroed whole, padding too: the memory ledger's search memo compares
	 * two of these as bytes (memory.c, act_plan_same), so equal members
	 * must mean equal bytes for a hit */
	memset(x, 0, sizeof(*x));
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
	x->kept_bad[0] = layer_kinds(p, 0, x) != 0;
	/* only a shape with experts has MoE layers */
	x->kept[1] = x->rebuilt[1] = x->all[1] = 0;
	x->kept_bad[1] = 0;
	if (cfg->model.num_experts && !cfg->model.params_explicit)
		x->kept_bad[1] = layer_kinds(p, 1, x) != 0;
	x->embedding_bad = dc_act_embedding_bytes(p, &x->embedding_bytes) != 0;
	x->embedding_bytes = dc_ck_mul(&c, x->embedding_bytes, dc_act_first_stage_microbatches(p));
	x->embedding_bad |= c.overflow;
	if (dc_pipeline_schedule(p) == DC_PIPE_ZERO_BUBBLE && p->layout.pp > 1)
		x->wgrad_bad |= dc_act_head_wgrad_bytes(p, &x->head_wgrad_bytes) != 0;
	x->output_bad = dc_act_output_bytes(p, &x->output_bytes) != 0;
	x->output_bad |= dc_act_head_backward_bytes(p, &x->head_backward_bytes) != 0;
	if (cfg->model.mtp_layers && !cfg->model.params_explicit) {
		/* each MTP module after the last layer (DeepSeek-V3 section 2.2)
		 * keeps, for the microbatch the last stage runs, its own logits
		 * and head inputs (as the head's) and, as Megatron-Core runs it
		 * (multi_token_prediction.py at d98e8a64, plan.h
		 * dc_plan_mtp_recomputed): under full recompute's uniform method
		 * only its checkpoint's two inputs, the hidden states and the
		 * embedding, a layer input each (:1621-1629); else what a layer
		 * of its kind keeps (all of it under the block method, which
		 * skips the module's recompute, :1630-1634) and the inputs of
		 * enorm, hnorm and eh_proj: 2 + 2 + 4 bytes a hidden element
		 * (tp-split under sequence parallelism) */
		int kind = cfg->model.num_experts ? 1 : 0;
		uint64_t sbh = dc_ck_mul(&c, p->tokens_per_microbatch_cp, cfg->model.hidden_size);
		uint64_t proj = dc_ck_mul(&c, 8, sbh), one, body;
		if (p->layout.sequence_parallel)
			proj = dc_ceil_div(proj, p->layout.tp);
		if (dc_plan_mtp_recomputed(p))
			body = dc_ck_mul(&c, 2, x->input_bytes);
		else
			body = dc_ck_add(&c, cfg->training.recompute == DC_RECOMPUTE_FULL ? x->all[kind] : x->kept[kind],
					 proj);
		one = dc_ck_add(&c, body, x->output_bytes);
		x->output_bytes = dc_ck_add(&c, x->output_bytes, dc_ck_mul(&c, cfg->model.mtp_layers, one));
		x->output_bad |= c.overflow || x->kept_bad[kind];
	}
}
