/* flops.c - FLOPs per step; see flops.h and docs/formulas.md, "FLOPs". */
#include "distcalc/flops.h"

#include <string.h>

#include "distcalc/activation.h"
#include "distcalc/memory.h"
#include "distcalc/params.h"
#include "distcalc/plan.h"
#include "distcalc/util.h"

/* Keys one query of a layer meets in the dense count: the sequence s, or
 * a sliding-window layer's window when shorter (docs/models.md, "Layer
 * kinds": the same convention that counts s, not s / 2, for causal
 * attention). */
static double keys_per_query(const struct dc_model *m, int sliding)
{
	if (sliding && m->sliding_window && m->sliding_window < m->seq_length)
		return (double)m->sliding_window;
	return (double)m->seq_length;
}

/* Attention core forward FLOPs of one softmax layer for one token: QK^T is
 * 2 k a d_qk, the weighted sum of values 2 k a d_v, k the keys a query
 * meets (keys_per_query). */
static double attention_core_fwd_keys(const struct dc_model *m, double keys)
{
	double d_qk = (double)m->head_dim, d_v = (double)m->head_dim;
	if (m->kv_lora_rank > 0) { /* MLA: q and k carry nope + rope dims */
		d_qk = (double)(m->qk_nope_head_dim + m->qk_rope_head_dim);
		d_v = (double)m->v_head_dim;
	}
	return 2.0 * keys * (double)m->num_attention_heads * (d_qk + d_v);
}

static double attention_core_fwd(const struct dc_model *m)
{
	return attention_core_fwd_keys(m, keys_per_query(m, 0));
}

/* Keys one query's core runs on the hardware. A flash kernel skips the
 * blocks the causal mask zeroes, as the step prices it (compute.c
 * attention(): the 0.5 and flash_keys): dc_params_causal_keys, s / 2 on
 * a global layer, a window's or chunk's share on theirs. An eager kernel computes every score
 * and masks it, so it runs the whole count (and on a sliding layer the
 * scores past the window too, left out here as in the model count). */
static double exec_keys(const struct dc_config *in, int sliding)
{
	if (in->training.attention != DC_ATTENTION_FLASH)
		return keys_per_query(&in->model, sliding);
	return dc_params_causal_keys(&in->model, (double)in->model.seq_length, sliding);
}

/* Gated DeltaNet's chunk size in its training kernel (flash-linear-
 * attention's chunk_gated_delta_rule, BT = 64). */
#define GDN_CHUNK 64.0

/* Gated DeltaNet core forward FLOPs per token (its projections and
 * convolution are matmul parameters): the chunkwise delta rule (Yang et
 * al. 2024, "Parallelizing Linear Transformers with the Delta Rule over
 * Sequence Length", section 3; Gated DeltaNet, Yang et al. 2025) per value
 * head over chunks of C tokens: inside a chunk Q K^T and its product with
 * the values 2 C (d_k + d_v), the WY form K K^T 2 C d_k and W = T K, U = T V
 * 2 C (d_k + d_v); across chunks Q S, W S and the state update K^T (U - W
 * S), 2 d_k d_v each: 2 C (3 d_k + 2 d_v) + 6 d_k d_v. The gate and decay
 * are elementwise. */
static double linear_core_fwd(const struct dc_model *m)
{
	double dk = (double)m->linear_key_head_dim, dv = (double)m->linear_value_head_dim;
	return (double)m->linear_num_value_heads * (2.0 * GDN_CHUNK * (3.0 * dk + 2.0 * dv) + 6.0 * dk * dv);
}

/* The layers first + 1 .. first + n (from 1) by kind: Gated DeltaNet ones
 * (not every full_attention_interval-th), sliding-window ones (softmax
 * layers not every sliding_window_pattern-th), the rest global. */
static void layer_kinds(const struct dc_model *m, uint64_t first, uint64_t n, double *global, double *sliding,
			double *linear)
{
	uint64_t lin = m->full_attention_interval ? n - dc_params_every(first, n, m->full_attention_interval) : 0;
	uint64_t sl = m->sliding_window && !lin ? n - dc_params_every(first, n, m->sliding_window_pattern) : 0;
	*linear = (double)lin;
	*sliding = (double)sl;
	*global = (double)(n - lin - sl);
}

/* What a flash kernel's backward adds per softmax layer and token on
 * `keys` keys a query: it rebuilds S = QK^T tile by tile
 * (FlashAttention-2, Dao 2023, section 3.1.2: five matmuls in backward
 * against the four of standard attention), 2 keys a d_qk; 0 for eager
 * attention (and Gated DeltaNet layers have none: cores_of). */
static double flash_backward_keys(const struct dc_config *in, double keys)
{
	const struct dc_model *m = &in->model;
	double d_qk = m->kv_lora_rank > 0 ? (double)(m->qk_nope_head_dim + m->qk_rope_head_dim) : (double)m->head_dim;
	if (in->training.attention != DC_ATTENTION_FLASH)
		return 0;
	return 2.0 * keys * (double)m->num_attention_heads * d_qk;
}

/* Attention-core forward FLOPs per token, and what a flash kernel's
 * backward adds, summed over layers first + 1 .. first + n: as the model
 * count has them (`exec` 0: s keys a query, a sliding layer's window), or
 * as the kernels run them (`exec` 1: exec_keys, the hardware count) */
static void cores_of(const struct dc_config *in, uint64_t first, uint64_t n, int exec, double *core, double *flash)
{
	const struct dc_model *m = &in->model;
	double g, sl, lin, kg, ks;
	layer_kinds(m, first, n, &g, &sl, &lin);
	kg = exec ? exec_keys(in, 0) : keys_per_query(m, 0);
	ks = exec ? exec_keys(in, 1) : keys_per_query(m, 1);
	*core = g * attention_core_fwd_keys(m, kg) + sl * attention_core_fwd_keys(m, ks) + lin * linear_core_fwd(m);
	*flash = g * flash_backward_keys(in, kg) + sl * flash_backward_keys(in, ks);
}

/* The softmax layers' attention core as Megatron-LM's count has it: every
 * softmax layer (global or sliding-window) over the whole sequence, for
 * num_floating_point_operations has no window term (training.py:802-1200
 * at d98e8a64), Gated DeltaNet layers apart, over layers [first, first + n) */
static double softmax_core_whole(const struct dc_model *m, uint64_t first, uint64_t n)
{
	double g, sl, lin;
	layer_kinds(m, first, n, &g, &sl, &lin);
	return (g + sl) * attention_core_fwd_keys(m, (double)m->seq_length);
}

/* The same layers' core as distcalc counts it (cores_of without the Gated
 * DeltaNet ones): a sliding-window layer over its window */
static double softmax_core_of(const struct dc_model *m, uint64_t first, uint64_t n)
{
	double g, sl, lin;
	layer_kinds(m, first, n, &g, &sl, &lin);
	return g * attention_core_fwd_keys(m, keys_per_query(m, 0)) + sl * attention_core_fwd_keys(m, keys_per_query(m, 1));
}

/* Matmul parameters a Gated DeltaNet layer has over a softmax one (the
 * layer_mm_params below count softmax attention), negative when fewer. */
static double linear_mm_delta(const struct dc_plan *p)
{
	const struct dc_param_part a = p->parts.attention, l = p->parts.linear_attention;
	if (!p->in->model.full_attention_interval || p->in->model.params_explicit)
		return 0;
	return ((double)l.split + (double)l.replicated) - ((double)a.split + (double)a.replicated);
}

/* What recomputation runs again of `extra` matmul parameters per token. */
static double recompute_mm(const struct dc_plan *p, double extra)
{
	return p->in->training.recompute == DC_RECOMPUTE_FULL ? dc_plan_recompute_share(p) * 2.0 * extra : 0;
}

/* Both over every layer of one stage (all its chunks): O(v). */
static void stage_cores(const struct dc_plan *p, uint64_t stage, int exec, double *core, double *flash)
{
	*core = *flash = 0;
	for (uint64_t c = 0; c < p->v; c++) {
		double a, b;
		cores_of(p->in, dc_plan_chunk_start(p, stage, c), dc_plan_chunk_layers(p, stage, c), exec, &a, &b);
		*core += a;
		*flash += b;
	}
}

static int has_layer_kinds(const struct dc_model *m)
{
	return m->sliding_window || m->full_attention_interval;
}

/* Matmul parameters per token of the MTP modules: their active
 * parameters but the norms, and the shared output head once each
 * (arXiv 2412.19437 section 2.2: every depth has its own logits). */
static double mtp_mm(const struct dc_model *m, const struct dc_param_terms *t, double head)
{
	double norms = (double)m->mtp_layers * (double)(dc_params_layer_norms(m) + 3) * (double)m->hidden_size;
	if (!m->mtp_layers || m->params_explicit)
		return 0;
	if (m->norm == DC_NORM_LAYERNORM)
		norms *= 2.0;
	return (double)t->mtp_active - norms + (double)m->mtp_layers * head;
}

static double part_params(struct dc_param_part q)
{
	return (double)q.split + (double)q.replicated;
}

/* Parameters one token multiplies in a dense layer and in a MoE layer
 * (attention, then the dense MLP, or the k routed experts, the shared
 * experts and the router). -1 without a shape (model.params) or on
 * overflow. */
static int layer_mm_params(const struct dc_plan *p, double *dense, double *moe)
{
	const struct dc_model *m = &p->in->model;
	const struct dc_param_part attn = p->parts.attention, mlp = p->parts.mlp, expert = p->parts.expert;
	const struct dc_param_part router = p->parts.router, shared = p->parts.shared_experts;
	if (m->params_explicit)
		return -1;
	*dense = (double)attn.split + (double)attn.replicated + (double)mlp.split + (double)mlp.replicated;
	*moe = (double)attn.split + (double)attn.replicated +
	       (double)m->experts_per_token * ((double)expert.split + (double)expert.replicated) +
	       (double)shared.split + (double)shared.replicated + (double)router.split + (double)router.replicated;
	return 0;
}

/* Forward FLOPs per token of the matmuls torchtitan's per-op policy
 * recomputes in one layer (activation.c, op_policy_kept): the
 * even-numbered ones, wk (2), wo (4) and the up-projection (6: SwiGLU's
 * w3, GELU's fc2), each 2 x its parameters. */
static double op_recomputed_mm(const struct dc_model *m, int moe)
{
	double h = (double)m->hidden_size, a = (double)m->num_attention_heads;
	double d_qk = (double)m->head_dim, d_v = (double)m->head_dim, kv = (double)m->num_kv_heads;
	double f = (double)m->ffn_hidden_size;
	if (m->kv_lora_rank > 0) {
		d_qk = (double)(m->qk_nope_head_dim + m->qk_rope_head_dim);
		d_v = (double)m->v_head_dim;
		kv = a;
	}
	if (moe)
		f = (double)m->experts_per_token * (double)m->moe_ffn_hidden_size +
		    (double)m->shared_expert_ffn_hidden_size;
	return 2.0 * (h * kv * d_qk + a * d_v * h + h * f);
}

/* Share of a stage's layers that full recompute reruns: every one, or
 * training.recompute_layers of each model chunk (Megatron block method). */
static double full_recompute_share(const struct dc_plan *p)
{
	return dc_plan_recompute_share(p); /* uneven chunks chunk by chunk (plan.h) */
}

/* Forward FLOPs per token of the matmuls the recompute modules rerun in
 * one layer beside the attention core (config.h dc_recompute_modules,
 * activation.c selective_kept): mlp a dense layer's MLP; moe a MoE
 * layer's k routed experts, shared experts and router, or shared_experts
 * those alone; mla_up_proj MLA's q projection (up from the q latent, or
 * whole without one) and kv up-projection. 0 without a shape. */
static double module_mm(const struct dc_plan *p, int moe)
{
	const struct dc_model *m = &p->in->model;
	uint32_t mods = dc_recompute_modules(p->in);
	double mm = 0;
	if (m->params_explicit)
		return 0;
	if (!moe && (mods & DC_RCM(DC_RCM_MLP)))
		mm += part_params(p->parts.mlp);
	if (moe && (mods & DC_RCM(DC_RCM_MOE)))
		mm += (double)m->experts_per_token * part_params(p->parts.expert) + part_params(p->parts.shared_experts) +
		      part_params(p->parts.router);
	else if (moe && (mods & DC_RCM(DC_RCM_SHARED_EXPERTS)))
		mm += part_params(p->parts.shared_experts);
	if (m->kv_lora_rank && (mods & DC_RCM(DC_RCM_MLA_UP_PROJ))) {
		double a = (double)m->num_attention_heads, nope = (double)m->qk_nope_head_dim;
		double q_in = m->q_lora_rank ? (double)m->q_lora_rank : (double)m->hidden_size;
		mm += q_in * a * (nope + (double)m->qk_rope_head_dim) +
		      (double)m->kv_lora_rank * a * (nope + (double)m->v_head_dim);
	}
	return 2.0 * mm;
}

/* Forward FLOPs per token that recomputation runs again in one layer
 * (`mm`: its matmul parameters, `core_fwd`: its attention core). */
static double layer_recompute(const struct dc_plan *p, int moe, double mm, double core_fwd)
{
	const struct dc_config *in = p->in;
	switch (in->training.recompute) {
	case DC_RECOMPUTE_NONE:
		return 0;
	case DC_RECOMPUTE_SELECTIVE:
		return ((dc_recompute_modules(in) & DC_RCM(DC_RCM_CORE_ATTN)) ? core_fwd : 0) + module_mm(p, moe);
	case DC_RECOMPUTE_FULL:
		return full_recompute_share(p) * (2.0 * mm + core_fwd);
	case DC_RECOMPUTE_OP:
		/* eager attention's batched matmuls are not on the save list */
		return (in->model.params_explicit ? 0 : op_recomputed_mm(&in->model, moe)) +
		       (in->training.attention == DC_ATTENTION_EAGER ? core_fwd : 0);
	}
	return 0;
}

/* Forward FLOPs per token that recomputation runs again in one MTP
 * module (`mm`: its matmul parameters without the shared head's, `eh` of
 * them its eh_proj's 2h h, `core_fwd`: its attention core), as
 * Megatron-Core reruns it (plan.h dc_plan_mtp_recomputed): under full
 * recompute its whole checkpointed forward, norms, eh_proj and layer, by
 * the uniform method, none by the block method; under the others its
 * layer as a layer of its kind, eh_proj never; the head, outside the
 * checkpoint, never. */
static double mtp_recompute(const struct dc_plan *p, int moe, double mm, double eh, double core_fwd)
{
	if (p->in->training.recompute != DC_RECOMPUTE_FULL)
		return layer_recompute(p, moe, mm - eh, core_fwd);
	return dc_plan_mtp_recomputed(p) ? 2.0 * mm + core_fwd : 0;
}

/* One MTP module's matmul parameters per token without the shared
 * head's (mtp_mm's, over the modules) and of them eh_proj's; 0 and 0
 * without them or without a shape */
static void mtp_module_mm(const struct dc_model *m, double mtp, double head, double *mm, double *eh)
{
	*mm = *eh = 0;
	if (!m->mtp_layers || mtp <= 0)
		return;
	*mm = mtp / (double)m->mtp_layers - head;
	*eh = 2.0 * (double)m->hidden_size * (double)m->hidden_size;
}


/* A layer's attention core as the model count has it (`core`) and as the
 * kernels run it (`core_x`, with a flash kernel's backward rebuild
 * `flash_x`): cores_of's two counts, per token */
struct cores {
	double core, core_x, flash_x;
};

/* One rank of `stage`: its layers' FLOPs (model, and hardware: the cores
 * the kernels run, what recomputation and a flash kernel's backward add)
 * and, on the last stage, the head's and the MTP modules', for one token.
 * `l` holds the stage's layers' averages (layer kinds differ by layer). */
static void stage_flops(const struct dc_plan *p, const struct dc_stage_params *sp, uint64_t stage, double dense_mm,
			double moe_mm, const struct cores *l, double head, double mtp, double *model, double *hw)
{
	double dense_n = (double)(sp->layers - sp->moe_layers), moe_n = (double)sp->moe_layers;
	double lin_mm = 0;

	if (p->in->model.full_attention_interval) /* its Gated DeltaNet layers' projections */
		lin_mm = (double)(sp->layers - dc_plan_stage_every(p, stage, p->in->model.full_attention_interval)) *
			 linear_mm_delta(p);
	*model = dense_n * (6.0 * dense_mm + 3.0 * l->core) + moe_n * (6.0 * moe_mm + 3.0 * l->core);
	*hw = dense_n * (6.0 * dense_mm + 3.0 * l->core_x + layer_recompute(p, 0, dense_mm, l->core_x) + l->flash_x) +
	      moe_n * (6.0 * moe_mm + 3.0 * l->core_x + layer_recompute(p, 1, moe_mm, l->core_x) + l->flash_x);
	if (lin_mm != 0) {
		*model += 6.0 * lin_mm;
		*hw += 6.0 * lin_mm + recompute_mm(p, lin_mm);
	}
	/* the head's stage: the last, but under DualPipeV rank 0, which holds
	 * the V's first and last chunks (dc_pipeline_chunk) */
	if (stage == (dc_pipeline_schedule(p) == DC_PIPE_DUALPIPEV ? 0 : p->layout.pp - 1)) {
		const struct dc_model *m = &p->in->model;
		double k = exec_keys(p->in, 0), n = (double)m->mtp_layers;
		double mtp_core = n * attention_core_fwd(m), mtp_core_x = attention_core_fwd_keys(m, k);
		double mtp_flash = n * flash_backward_keys(p->in, k), mod_mm, eh;
		mtp_module_mm(m, mtp, head, &mod_mm, &eh);
		*model += 6.0 * head + 6.0 * mtp + 3.0 * mtp_core;
		/* the modules rerun as Megatron-Core reruns them (mtp_recompute) */
		*hw += 6.0 * head + 6.0 * mtp + 3.0 * n * mtp_core_x + mtp_flash +
		       (m->mtp_layers ? mtp_recompute(p, m->num_experts > 0, mod_mm, eh, mtp_core_x) * n : 0);
	}
}

/* What stage_flops of `stage` reads besides the stage: its layers' GEMM
 * parameters by kind, a layer's attention core, the head's and the MTP
 * modules' */
struct stage_ctx {
	double dense_mm, moe_mm, head, mtp;
	struct cores layer;
};

/* Model and hardware FLOPs per token of one rank's share of `stage`, before
 * its tp x cp split: its segment's layers, with their kinds where the
 * model has them (stage_cores) */
static void stage_flops_of(const struct dc_plan *p, const struct stage_ctx *sc, uint64_t stage, double *model,
			   double *hw)
{
	const struct dc_stage_params *sp = &p->segment_params[dc_plan_stage_segment(p, stage)];
	struct cores l = sc->layer;
	if (has_layer_kinds(&p->in->model) && sp->layers) {
		double unused;
		stage_cores(p, stage, 0, &l.core, &unused);
		stage_cores(p, stage, 1, &l.core_x, &l.flash_x);
		l.core /= (double)sp->layers;
		l.core_x /= (double)sp->layers;
		l.flash_x /= (double)sp->layers;
	}
	stage_flops(p, sp, stage, sc->dense_mm, sc->moe_mm, &l, sc->head, sc->mtp, model, hw);
}

int dc_flops_compute(const struct dc_plan *p, const struct dc_batch *b, struct dc_flops *f, const char **error)
{
	const struct dc_model *m = &p->in->model;
	const struct dc_param_terms *t = &p->terms;
	struct dc_ck c = {0};
	uint64_t head_params, layer_params;
	double head, layers_mm, core, core_x, flash_unused, tokens_per_replica, mtp;
	struct cores layer;

	memset(f, 0, sizeof(*f));
	if (m->params_explicit) {
		/* no shape breakdown: every counted parameter multiplies */
		head_params = 0;
		layer_params = p->params_active;
	} else {
		/* a tied head still multiplies by the embedding matrix */
		head_params = t->lm_head ? t->lm_head : t->embedding;
		layer_params = dc_ck_add(&c, dc_ck_add(&c, t->attention, t->mlp),
					 dc_ck_add(&c, dc_ck_add(&c, t->experts_active, t->shared_experts), t->router));
	}
	f->layer_matmul_params = layer_params;
	f->matmul_params = dc_ck_add(&c, layer_params, head_params);
	f->tokens_per_step = b->tokens_per_step;
	if (c.overflow)
		goto overflow;
	head = (double)head_params;
	layers_mm = (double)layer_params;
	cores_of(p->in, 0, m->num_layers, 0, &core, &flash_unused);
	cores_of(p->in, 0, m->num_layers, 1, &core_x, &f->flash_backward_per_token);
	layer.core = core / (double)m->num_layers;
	layer.core_x = core_x / (double)m->num_layers;
	layer.flash_x = f->flash_backward_per_token / (double)m->num_layers;
	mtp = mtp_mm(m, t, head);
	/* the MTP modules: their matmuls and their softmax layers' cores */
	core += (double)m->mtp_layers * attention_core_fwd(m);
	core_x += (double)m->mtp_layers * attention_core_fwd_keys(m, exec_keys(p->in, 0));
	f->flash_backward_per_token += (double)m->mtp_layers * flash_backward_keys(p->in, exec_keys(p->in, 0));
	f->matmul_params = dc_ck_add(&c, f->matmul_params, (uint64_t)mtp);
	f->attention_core_fwd_per_token = core;
	/* Korthikanti Eq. 7: 3 x (2 N + core) = 6 N + 12 L s a d */
	f->model_per_token = 6.0 * (double)f->matmul_params + 3.0 * core;
	/* what the count's core has that no kernel runs: the masked blocks a
	 * flash kernel skips, forward and backward */
	f->masked_per_token = 3.0 * (core - core_x);
	{
		/* the whole model: its dense and MoE layers and its MTP modules
		 * (rerun as Megatron-Core reruns them: mtp_recompute), with the
		 * cores the kernels run */
		double dense_mm, moe_mm, per_core = core_x / (double)(m->num_layers + m->mtp_layers), mod_mm, eh;
		double n_moe = m->num_experts && !m->params_explicit ? (double)t->moe_layers : 0;
		double n_dense = (double)m->num_layers - n_moe;
		if (layer_mm_params(p, &dense_mm, &moe_mm) != 0)
			dense_mm = moe_mm = layers_mm / (double)m->num_layers;
		mtp_module_mm(m, mtp, head, &mod_mm, &eh);
		f->recompute_per_token = n_dense * layer_recompute(p, 0, dense_mm, per_core) +
					 n_moe * layer_recompute(p, 1, moe_mm, per_core) +
					 recompute_mm(p, (double)t->linear_attention_layers * linear_mm_delta(p)) +
					 (double)m->mtp_layers * mtp_recompute(p, m->num_experts > 0, mod_mm, eh, per_core);
	}
	f->hardware_per_token =
		f->model_per_token - f->masked_per_token + f->recompute_per_token + f->flash_backward_per_token;
	f->model_per_step = f->model_per_token * (double)f->tokens_per_step;
	/* Megatron-LM's count: a causal softmax layer's core, QK^T and AV, at
	 * half the whole sequence's ("only half of the mask is non-zero":
	 * megatron/training/training.py:1163-1169 at d98e8a64), a sliding
	 * window's too (its count has no window); the MTP modules' are
	 * softmax layers too */
	f->model_causal_per_token =
		f->model_per_token - 3.0 * softmax_core_of(m, 0, m->num_layers) +
		1.5 * softmax_core_whole(m, 0, m->num_layers) - 1.5 * (double)m->mtp_layers * attention_core_fwd(m);
	f->model_causal_per_step = f->model_causal_per_token * (double)f->tokens_per_step;
	f->hardware_per_step = f->hardware_per_token * (double)f->tokens_per_step;

	/* per rank: the stage's layers (dense and MoE ones counted apart) and,
	 * on the last stage, the head, for this replica's tokens, split over
	 * tp; the busiest rank sets the figure. A segment's stages hold the
	 * same layers (plan.h), so its first stage stands for all of them.
	 * DualPipe's rank r runs stage r for half the microbatches and stage
	 * pp - 1 - r for the other half (the memory ledger holds both) */
	tokens_per_replica = (double)f->tokens_per_step / (double)p->layout.dp;
	{
		struct stage_ctx sc;
		int dual = dc_pipeline_schedule(p) == DC_PIPE_DUALPIPE;
		uint64_t pp = p->layout.pp;
		if (layer_mm_params(p, &sc.dense_mm, &sc.moe_mm) != 0) {
			/* no shape (model.params): every layer is the average */
			sc.dense_mm = sc.moe_mm = layers_mm / (double)m->num_layers;
		}
		sc.layer = layer;
		sc.head = head;
		sc.mtp = mtp;
		for (uint64_t i = 0; i < p->nsegments; i++)
			if (p->segment_overflow[i])
				goto overflow;
		f->model_per_rank = -1;
		for (uint64_t i = 0; i < p->nsegments; i++) {
			/* layer kinds differ stage by stage within a segment
			 * (its parameters do not): each of its stages then, O(pp v)
			 * for such a model only; under DualPipe the stages where
			 * the mirrored stage's segment changes too, O(segments) */
			uint64_t st = p->segment_first[i], end = has_layer_kinds(m) ? p->segment_first[i + 1] : st + 1;
			uint64_t mirror_first = pp - p->segment_first[i + 1]; /* mirrors segment i's last stage */
			for (int pass = 0; pass < (dual ? 2 : 1); pass++) {
				uint64_t from = pass == 0 ? st : mirror_first, to = pass == 0 ? end : mirror_first + 1;
				for (uint64_t r = from; r < to; r++) {
					double model_rank, hw_rank;
					stage_flops_of(p, &sc, r, &model_rank, &hw_rank);
					if (dual) {
						double mm, mh;
						stage_flops_of(p, &sc, pp - 1 - r, &mm, &mh);
						/* half the microbatches on each */
						model_rank = (model_rank + mm) / 2.0;
						hw_rank = (hw_rank + mh) / 2.0;
					}
					/* a replica's tokens split over its tp x cp ranks */
					model_rank *= tokens_per_replica / (double)(p->layout.tp * p->layout.cp);
					hw_rank *= tokens_per_replica / (double)(p->layout.tp * p->layout.cp);
					if (model_rank > f->model_per_rank ||
					    (model_rank == f->model_per_rank && r < f->busiest_stage)) {
						f->model_per_rank = model_rank;
						f->hardware_per_rank = hw_rank;
						f->busiest_stage = r;
					}
				}
			}
		}
	}
	return 0;
overflow:
	*error = "'model': parameter terms overflow 64 bits";
	return -1;
}
