/* model_report.c - the model section: family, exact total and active
 * parameters, the count term by term (params.h) and the per-rank placement
 * of the most loaded stage (memory.h). */
#include <stdio.h>

#include "distcalc/experiment.h"
#include "distcalc/memory.h"
#include "distcalc/params.h"
#include "distcalc/plan.h"

static int model_run(const struct dc_config *cfg, const struct dc_run_info *info,
		     struct dc_report *report, struct dc_diag *diag)
{
	const struct dc_model *m = &cfg->model;
	struct dc_plan plan;
	struct dc_param_terms t;
	struct dc_stage_params most;
	struct dc_rnode *s, *terms, *pr;
	uint64_t stage;
	char label[160];

	if (dc_plan_derive(cfg, &plan) != 0) {
		dc_diag_error(diag, DC_ERR_CONFIG, "%s: error: %s", info->config_name, plan.error);
		return -1;
	}
	if (plan.most_overflow) {
		dc_diag_error(diag, DC_ERR_CONFIG, "%s: error: 'model': parameter count overflows 64 bits",
			      info->config_name);
		return -1;
	}
	t = plan.terms;
	most = plan.most;
	stage = plan.most_stage;
	s = dc_rn_object(dc_report_root(report), "model", "Model (exact parameter counts)");
	dc_rn_str(s, "family", "family", m->family);
	dc_rn_str(s, "hf_config", "Hugging Face config", m->hf_config[0] ? m->hf_config : "none");
	dc_rn_str(s, "params_source", "parameter count from",
		  m->params_explicit ? "model.params (explicit; the terms below are the shape's)" : "the shape");
	dc_rn_u64(s, "params_total", "parameters (total)", DC_U_COUNT, plan.params_total);
	dc_rn_u64(s, "params_active", "parameters one token uses (active)", DC_U_COUNT, plan.params_active);
	dc_rn_u64(s, "dense_layers", "layers with a dense MLP", DC_U_COUNT, t.dense_layers);
	dc_rn_u64(s, "moe_layers", "layers with routed experts", DC_U_COUNT, t.moe_layers);
	dc_rn_u64(s, "num_experts", "routed experts per MoE layer", DC_U_COUNT, m->num_experts);
	dc_rn_u64(s, "experts_per_token", "experts per token (top-k)", DC_U_COUNT,
		  m->num_experts ? m->experts_per_token : 0);
	dc_rn_str(s, "attention", "attention", m->kv_lora_rank ? "multi-head latent (MLA)" :
		  m->num_kv_heads == 1 ? "multi-query (MQA)" :
		  m->num_kv_heads < m->num_attention_heads ? "grouped-query (GQA)" : "multi-head (MHA)");
	dc_rn_str(s, "norm", "norm", dc_norm_name(m->norm));

	terms = dc_rn_object(s, "terms", "Parameters by term (all layers)");
	dc_rn_u64(terms, "embedding", "token embedding V x h", DC_U_COUNT, t.embedding);
	dc_rn_u64(terms, "position_embedding", "learned positions P x h", DC_U_COUNT, t.position);
	dc_rn_u64(terms, "attention", m->kv_lora_rank ? "attention: MLA projections and norms" :
		  "attention: q, k, v, o (+ biases, q/k norms)", DC_U_COUNT, t.attention);
	snprintf(label, sizeof(label), "dense MLP (%s, %llu layers)", m->mlp == DC_MLP_SWIGLU ? "gated, 3 h x f" : "2 h x f",
		 (unsigned long long)t.dense_layers);
	dc_rn_u64(terms, "mlp", label, DC_U_COUNT, t.mlp);
	dc_rn_u64(terms, "routed_experts", "routed experts (all)", DC_U_COUNT, t.experts);
	dc_rn_u64(terms, "routed_experts_active", "routed experts one token uses", DC_U_COUNT, t.experts_active);
	dc_rn_u64(terms, "shared_experts", "shared experts (+ gate)", DC_U_COUNT, t.shared_experts);
	dc_rn_u64(terms, "router", "routers (+ score bias)", DC_U_COUNT, t.router);
	snprintf(label, sizeof(label), "norms (%s: 2 per layer + final)", dc_norm_name(m->norm));
	dc_rn_u64(terms, "norms", label, DC_U_COUNT, t.norms);
	dc_rn_u64(terms, "lm_head", m->tie_word_embeddings ? "output head (tied: 0)" : "output head V x h", DC_U_COUNT,
		  t.lm_head);

	pr = dc_rn_object(s, "per_rank", "Rank holding the most parameters (tp, pp and ep placement)");
	dc_rn_u64(pr, "stage", "pipeline stage", DC_U_COUNT, stage);
	dc_rn_u64(pr, "params", "parameters held", DC_U_COUNT, most.total);
	dc_rn_u64(pr, "layers", "layers held", DC_U_COUNT, most.layers);
	dc_rn_u64(pr, "expert_params", "routed-expert parameters held", DC_U_COUNT, most.expert_params);
	dc_rn_u64(pr, "other_params", "embedding / head / final norm held", DC_U_COUNT, most.other_params);
	snprintf(label, sizeof(label), "tp %llu, pp %llu, ep %llu",
		 (unsigned long long)cfg->parallel.tp, (unsigned long long)cfg->parallel.pp,
		 (unsigned long long)cfg->parallel.ep);
	dc_rn_str(pr, "layout", "layout", label);
	return 0;
}

const struct dc_estimator dc_estimator_model = {"model", model_run};
