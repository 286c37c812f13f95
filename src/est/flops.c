/* flops.c - FLOPs per step; see flops.h and docs/formulas.md, "FLOPs". */
#include "distcalc/flops.h"

#include <string.h>

#include "distcalc/memory.h"
#include "distcalc/params.h"
#include "distcalc/plan.h"
#include "distcalc/util.h"

/* Attention core forward FLOPs of one layer for one token: QK^T is
 * 2 s a d_qk, the weighted sum of values 2 s a d_v. */
static double attention_core_fwd(const struct dc_model *m)
{
	double d_qk = (double)m->head_dim, d_v = (double)m->head_dim;
	if (m->kv_lora_rank > 0) { /* MLA: q and k carry nope + rope dims */
		d_qk = (double)(m->qk_nope_head_dim + m->qk_rope_head_dim);
		d_v = (double)m->v_head_dim;
	}
	return 2.0 * (double)m->seq_length * (double)m->num_attention_heads * (d_qk + d_v);
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

/* Forward FLOPs per token that recomputation runs again in one layer
 * (`mm`: its matmul parameters, `core_fwd`: its attention core). */
static double layer_recompute(const struct dc_plan *p, int moe, double mm, double core_fwd)
{
	const struct dc_config *in = p->in;
	switch (in->training.recompute) {
	case DC_RECOMPUTE_NONE:
		return 0;
	case DC_RECOMPUTE_SELECTIVE:
		return core_fwd;
	case DC_RECOMPUTE_FULL:
		return full_recompute_share(p) * (2.0 * mm + core_fwd);
	case DC_RECOMPUTE_OP:
		/* eager attention's batched matmuls are not on the save list */
		return (in->model.params_explicit ? 0 : op_recomputed_mm(&in->model, moe)) +
		       (in->training.attention == DC_ATTENTION_EAGER ? core_fwd : 0);
	}
	return 0;
}

/* What a flash kernel's backward adds per layer and token: it rebuilds
 * S = QK^T tile by tile (FlashAttention-2, Dao 2023, section 3.1.2: five
 * matmuls in backward against the four of standard attention), 2 s a d_qk;
 * 0 for eager attention. */
static double flash_backward_extra(const struct dc_config *in)
{
	const struct dc_model *m = &in->model;
	double d_qk = m->kv_lora_rank > 0 ? (double)(m->qk_nope_head_dim + m->qk_rope_head_dim) : (double)m->head_dim;
	if (in->training.attention != DC_ATTENTION_FLASH)
		return 0;
	return 2.0 * (double)m->seq_length * (double)m->num_attention_heads * d_qk;
}

/* One rank of `stage`: its layers' FLOPs (model, and with what
 * recomputation and a flash kernel's backward add) and, on the last stage,
 * the head's, for one token. */
static void stage_flops(const struct dc_plan *p, const struct dc_stage_params *sp, uint64_t stage, double dense_mm,
			double moe_mm, double per_layer_core, double head, double *model, double *hw)
{
	double dense_n = (double)(sp->layers - sp->moe_layers), moe_n = (double)sp->moe_layers;
	double flash = flash_backward_extra(p->in);

	*model = dense_n * (6.0 * dense_mm + 3.0 * per_layer_core) + moe_n * (6.0 * moe_mm + 3.0 * per_layer_core);
	*hw = *model + dense_n * (layer_recompute(p, 0, dense_mm, per_layer_core) + flash) +
	      moe_n * (layer_recompute(p, 1, moe_mm, per_layer_core) + flash);
	if (stage == p->layout.pp - 1) {
		*model += 6.0 * head;
		*hw += 6.0 * head;
	}
}

int dc_flops_compute(const struct dc_plan *p, const struct dc_batch *b, struct dc_flops *f, const char **error)
{
	const struct dc_model *m = &p->in->model;
	const struct dc_param_terms *t = &p->terms;
	struct dc_ck c = {0};
	uint64_t head_params, layer_params;
	double head, layers_mm, core, per_layer_core, tokens_per_replica;

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
	core = attention_core_fwd(m) * (double)m->num_layers;
	f->attention_core_fwd_per_token = core;
	/* Korthikanti Eq. 7: 3 x (2 N + core) = 6 N + 12 L s a d */
	f->model_per_token = 6.0 * (double)f->matmul_params + 3.0 * core;
	{
		/* the whole model: its dense and MoE layers */
		double dense_mm, moe_mm, per_core = core / (double)m->num_layers;
		double n_moe = m->num_experts && !m->params_explicit ? (double)(m->num_layers - m->dense_layers) : 0;
		double n_dense = (double)m->num_layers - n_moe;
		if (layer_mm_params(p, &dense_mm, &moe_mm) != 0)
			dense_mm = moe_mm = layers_mm / (double)m->num_layers;
		f->recompute_per_token = n_dense * layer_recompute(p, 0, dense_mm, per_core) +
					 n_moe * layer_recompute(p, 1, moe_mm, per_core);
		f->flash_backward_per_token = flash_backward_extra(p->in) * (double)m->num_layers;
	}
	f->hardware_per_token = f->model_per_token + f->recompute_per_token + f->flash_backward_per_token;
	f->model_per_step = f->model_per_token * (double)f->tokens_per_step;
	f->hardware_per_step = f->hardware_per_token * (double)f->tokens_per_step;

	/* per rank: the stage's layers (dense and MoE ones counted apart) and,
	 * on the last stage, the head, for this replica's tokens, split over
	 * tp; the busiest stage sets the figure. A segment's stages hold the
	 * same layers (plan.h), so its first stage stands for all of them */
	tokens_per_replica = (double)f->tokens_per_step / (double)p->layout.dp;
	per_layer_core = core / (double)m->num_layers;
	{
		double dense_mm, moe_mm;
		if (layer_mm_params(p, &dense_mm, &moe_mm) != 0) {
			/* no shape (model.params): every layer is the average */
			dense_mm = moe_mm = layers_mm / (double)m->num_layers;
		}
		f->model_per_rank = -1;
		for (uint64_t i = 0; i < p->nsegments; i++) {
			uint64_t st = p->segment_first[i];
			const struct dc_stage_params *sp = &p->segment_params[i];
			double model_stage, hw_stage;
			if (p->segment_overflow[i])
				goto overflow;
			stage_flops(p, sp, st, dense_mm, moe_mm, per_layer_core, head, &model_stage, &hw_stage);
			/* a replica's tokens split over its tp x cp ranks */
			model_stage *= tokens_per_replica / (double)(p->layout.tp * p->layout.cp);
			hw_stage *= tokens_per_replica / (double)(p->layout.tp * p->layout.cp);
			if (model_stage > f->model_per_rank) {
				f->model_per_rank = model_stage;
				f->hardware_per_rank = hw_stage;
				f->busiest_stage = st;
			}
		}
	}
	return 0;
overflow:
	*error = "'model': parameter terms overflow 64 bits";
	return -1;
}
