/* flops.c - FLOPs per step; see flops.h and docs/formulas.md, "FLOPs". */
#include "distcalc/flops.h"

#include <string.h>

#include "distcalc/params.h"
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

int dc_flops_compute(const struct dc_config *cfg, struct dc_flops *f)
{
	const struct dc_model *m = &cfg->model;
	const struct dc_parallel *p = &cfg->parallel;
	struct dc_param_terms t;
	struct dc_ck c = {0};
	uint64_t head_params, layer_params;
	double head, layers_mm, core, per_layer_mm, per_layer_core, stage_layers;
	double model_stage, hw_stage, model_last, hw_last, tokens_per_replica;

	memset(f, 0, sizeof(*f));
	if (m->params_explicit) {
		/* no shape breakdown: every counted parameter multiplies */
		memset(&t, 0, sizeof(t));
		head_params = 0;
		layer_params = m->params_active ? m->params_active : m->params;
	} else {
		if (dc_params_terms(m, &t) != 0)
			return -1;
		/* a tied head still multiplies by the embedding matrix */
		head_params = t.lm_head ? t.lm_head : t.embedding;
		layer_params = dc_ck_add(&c, dc_ck_add(&c, t.attention, t.mlp),
					 dc_ck_add(&c, dc_ck_add(&c, t.experts_active, t.shared_experts), t.router));
	}
	f->layer_matmul_params = layer_params;
	f->matmul_params = dc_ck_add(&c, layer_params, head_params);
	f->tokens_per_step = dc_ck_mul(&c, dc_ck_mul(&c, cfg->training.micro_batch_size, cfg->training.grad_accum_steps),
				       dc_ck_mul(&c, p->dp, m->seq_length));
	if (c.overflow)
		return -1;
	head = (double)head_params;
	layers_mm = (double)layer_params;
	core = attention_core_fwd(m) * (double)m->num_layers;
	f->attention_core_fwd_per_token = core;
	/* Korthikanti Eq. 7: 3 x (2 N + core) = 6 N + 12 L s a d */
	f->model_per_token = 6.0 * (double)f->matmul_params + 3.0 * core;
	switch (cfg->training.recompute) {
	case DC_RECOMPUTE_NONE:
		f->recompute_per_token = 0;
		break;
	case DC_RECOMPUTE_SELECTIVE:
		f->recompute_per_token = core;
		break;
	case DC_RECOMPUTE_FULL:
		/* every transformer layer's forward again; the head is outside
		 * the checkpointed layers (Megatron-LM 2021 Eq. 3) */
		f->recompute_per_token = 2.0 * layers_mm + core;
		break;
	}
	f->hardware_per_token = f->model_per_token + f->recompute_per_token;
	f->model_per_step = f->model_per_token * (double)f->tokens_per_step;
	f->hardware_per_step = f->hardware_per_token * (double)f->tokens_per_step;

	/* per rank: a stage's layers are an equal share; the last stage also
	 * runs the head; tp splits both evenly */
	tokens_per_replica = (double)f->tokens_per_step / (double)p->dp;
	per_layer_mm = layers_mm / (double)m->num_layers;
	per_layer_core = core / (double)m->num_layers;
	stage_layers = (double)(m->num_layers / p->pp);
	model_stage = stage_layers * (6.0 * per_layer_mm + 3.0 * per_layer_core);
	hw_stage = model_stage + stage_layers * (cfg->training.recompute == DC_RECOMPUTE_FULL
							 ? 2.0 * per_layer_mm + per_layer_core
						 : cfg->training.recompute == DC_RECOMPUTE_SELECTIVE
							 ? per_layer_core
							 : 0.0);
	model_last = model_stage + 6.0 * head;
	hw_last = hw_stage + 6.0 * head;
	f->busiest_stage = p->pp - 1;
	f->model_per_rank = model_last * tokens_per_replica / (double)p->tp;
	f->hardware_per_rank = hw_last * tokens_per_replica / (double)p->tp;
	return 0;
}
