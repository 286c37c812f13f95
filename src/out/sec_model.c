/* sec_model.c - the model section: family, exact total and active
 * parameters, the count term by term (params.h) and the most loaded rank's
 * placement over tp, pp and ep (memory.h). */
#include <stddef.h>
#include <stdio.h>

#include "distcalc/activation.h"
#include "distcalc/params.h"
#include "distcalc/plan.h"
#include "distcalc/results.h"
#include "distcalc/section.h"
#include "report_int.h"

struct terms_view {
	struct dc_param_terms t;
	const struct dc_model *m;
};

struct rank_view {
	struct dc_stage_params p;
	uint64_t stage;
	const struct dc_layout *par;
	int mtp; /* its stage holds the MTP modules (the last) */
};

struct view {
	const struct dc_model *m;
	const struct dc_config *cfg;
	const char *hf_config, *params_source, *attention, *norm;
	uint64_t params_total, params_active, num_experts, experts_per_token;
	/* the counts model cards headline: without the MTP modules (DeepSeek-V3's
	 * 671B of 685B), and a MoE model's active count without the input
	 * embedding (gpt-oss's 5.1B); 0 and not shown under model.params */
	uint64_t params_without_mtp, params_active_without_mtp, params_active_non_embedding;
	struct terms_view terms;
	struct rank_view rank;
	struct dc_key_list keys; /* with a Hugging Face config */
};

static void view(const struct dc_run *run, void *out)
{
	struct view *v = out;
	const struct dc_model *m = &run->plan->in->model;
	v->m = m;
	v->cfg = run->plan->in;
	v->hf_config = m->hf_config[0] ? m->hf_config : "none";
	v->params_source = m->params_explicit	? "model.params (explicit; the terms below are the shape's)"
			   : m->params_as_shape ? "the shape (model.params given, equal to it)"
						: "the shape";
	v->attention = m->kv_lora_rank ? "multi-head latent (MLA)"
		       : m->num_kv_heads == 1 ? "multi-query (MQA)"
		       : m->num_kv_heads < m->num_attention_heads ? "grouped-query (GQA)"
								  : "multi-head (MHA)";
	v->norm = dc_norm_name(m->norm);
	v->params_total = run->plan->params_total;
	v->params_active = run->plan->params_active;
	v->num_experts = m->num_experts;
	v->experts_per_token = m->num_experts ? m->experts_per_token : 0;
	v->terms.t = run->res->model.terms;
	if (!m->params_explicit) {
		const struct dc_param_terms *t = &run->res->model.terms;
		v->params_without_mtp = t->total - t->mtp;
		v->params_active_without_mtp = t->active - t->mtp_active;
		v->params_active_non_embedding = v->params_active_without_mtp - t->embedding - t->position;
	}
	v->terms.m = m;
	v->rank.p = run->res->model.most;
	v->rank.stage = run->res->model.most_stage;
	v->rank.par = &run->plan->layout;
	{
		/* the MTP modules follow the last layer, on the ranks holding
		 * it: the last stage's, DualPipe's first and last ranks (its
		 * two directions), DualPipeV's first (its V's end) */
		enum dc_pipe_schedule sc = dc_pipeline_schedule(run->plan);
		uint64_t s = v->rank.stage, pp = run->plan->layout.pp;
		int last = sc == DC_PIPE_DUALPIPEV ? s == 0
			   : sc == DC_PIPE_DUALPIPE ? s == 0 || s + 1 == pp
						     : s + 1 == pp;
		v->rank.mtp = m->mtp_layers && last;
	}
	if (m->hf_config[0])
		dc_key_list_fill(&v->keys, run->plan->in, "model.");
}

static int has_mtp_count(const void *base)
{
	const struct view *v = base;
	return !v->m->params_explicit && v->terms.t.mtp != 0;
}

static int has_experts_count(const void *base)
{
	const struct view *v = base;
	return !v->m->params_explicit && v->m->num_experts != 0;
}

/* the rank's parameters outside its layers: with MTP modules on its
 * stage (the last), their non-expert part too (memory.c) */
static void other_label(const void *base, char *buf, size_t len)
{
	const struct rank_view *v = base;
	dc_text_fmt(buf, len, "%s", v->mtp ? "embedding / head / final norm / MTP non-experts held"
					    : "embedding / head / final norm held");
}

static void non_embedding_label(const void *base, char *buf, size_t len)
{
	dc_text_fmt(buf, len, "%s", ((const struct view *)base)->terms.t.mtp
					 ? "active without the MTP modules and the input embedding"
					 : "active without the input embedding");
}

static void family(const void *base, char *buf, size_t len)
{
	dc_text_fmt(buf, len, "%s", ((const struct view *)base)->m->family);
}

static void attention_label(const void *base, char *buf, size_t len)
{
	dc_text_fmt(buf, len, "%s", ((const struct terms_view *)base)->m->kv_lora_rank
					 ? "attention: MLA projections and norms"
					 : "attention: q, k, v, o (+ biases, q/k norms)");
}

static void mlp_label(const void *base, char *buf, size_t len)
{
	const struct terms_view *v = base;
	dc_text_fmt(buf, len, "dense MLP (%s, %llu layers)", v->m->mlp == DC_MLP_SWIGLU ? "gated, 3 h x f" : "2 h x f",
		    (unsigned long long)v->t.dense_layers);
}

static void norms_label(const void *base, char *buf, size_t len)
{
	const struct dc_model *m = ((const struct terms_view *)base)->m;
	dc_text_fmt(buf, len, "norms (%s: %llu per layer + final)", dc_norm_name(m->norm),
		    (unsigned long long)dc_params_layer_norms(m));
}

static int has_mtp(const void *base)
{
	return ((const struct terms_view *)base)->t.mtp > 0;
}

static int has_linear(const void *base)
{
	return ((const struct view *)base)->terms.t.linear_attention_layers > 0;
}

static int has_sliding(const void *base)
{
	return ((const struct view *)base)->terms.t.sliding_window_layers > 0;
}

static void head_label(const void *base, char *buf, size_t len)
{
	dc_text_fmt(buf, len, "%s",
		    ((const struct terms_view *)base)->m->tie_word_embeddings ? "output head (tied: 0)" : "output head V x h");
}

static void layout(const void *base, char *buf, size_t len)
{
	const struct dc_layout *p = ((const struct rank_view *)base)->par;
	if (p->cp > 1) /* context-parallel ranks hold the same parameters */
		dc_text_fmt(buf, len, "tp %llu, cp %llu, pp %llu, ep %llu", (unsigned long long)p->tp,
			    (unsigned long long)p->cp, (unsigned long long)p->pp, (unsigned long long)p->ep);
	else
		dc_text_fmt(buf, len, "tp %llu, pp %llu, ep %llu", (unsigned long long)p->tp, (unsigned long long)p->pp,
			    (unsigned long long)p->ep);
}

#define T(m) offsetof(struct terms_view, t.m)
static const struct dc_field term_fields[] = {
	{"embedding", "token embedding V x h", DC_U_COUNT, DC_FT_U64, T(embedding)},
	{"position_embedding", "learned positions P x h", DC_U_COUNT, DC_FT_U64, T(position)},
	{"attention", NULL, DC_U_COUNT, DC_FT_U64, T(attention), .label_fn = attention_label},
	{"mlp", NULL, DC_U_COUNT, DC_FT_U64, T(mlp), .label_fn = mlp_label},
	{"routed_experts", "routed experts (all)", DC_U_COUNT, DC_FT_U64, T(experts)},
	{"routed_experts_active", "routed experts one token uses", DC_U_COUNT, DC_FT_U64, T(experts_active)},
	{"shared_experts", "shared experts (+ gate)", DC_U_COUNT, DC_FT_U64, T(shared_experts)},
	{"router", "routers (+ score bias)", DC_U_COUNT, DC_FT_U64, T(router)},
	{"norms", NULL, DC_U_COUNT, DC_FT_U64, T(norms), .label_fn = norms_label},
	{"lm_head", NULL, DC_U_COUNT, DC_FT_U64, T(lm_head), .label_fn = head_label},
	{"mtp", "multi-token prediction (model.mtp_layers)", DC_U_COUNT, DC_FT_U64, T(mtp), .shown = has_mtp},
};
static const struct dc_fields terms = DC_FIELDS(term_fields);

#define P(m) offsetof(struct rank_view, p.m)
static const struct dc_field rank_fields[] = {
	{"stage", "pipeline stage", DC_U_COUNT, DC_FT_U64, offsetof(struct rank_view, stage)},
	{"params", "parameters held", DC_U_COUNT, DC_FT_U64, P(total)},
	{"layers", "layers held", DC_U_COUNT, DC_FT_U64, P(layers)},
	{"expert_params", "routed-expert parameters held", DC_U_COUNT, DC_FT_U64, P(expert_params)},
	{"other_params", "embedding / head / final norm held", DC_U_COUNT, DC_FT_U64, P(other_params),
	 .label_fn = other_label},
	{"layout", "layout", DC_U_NONE, DC_FT_FN, 0, .text = layout},
};
static const struct dc_fields rank = DC_FIELDS(rank_fields);

/* With a Hugging Face config: every model key's value and where it came
 * from (hf_config, --model, config, --set, default). */
static int has_hf(const void *base)
{
	return ((const struct view *)base)->m->hf_config[0] != 0;
}

static uint64_t key_count(const void *base)
{
	return dc_key_list_count(&((const struct view *)base)->keys);
}

static void key_row(const void *base, uint64_t i, void *out)
{
	dc_key_list_row(&((const struct view *)base)->keys, i, out);
}

static const struct dc_rows key_rows = {key_count, key_row, sizeof(struct dc_key_row), "keys", 1, 0, 1};

#define V(m) offsetof(struct view, m)
static const struct dc_field fields[] = {
	{"family", "family", DC_U_NONE, DC_FT_FN, 0, .text = family},
	{"hf_config", "Hugging Face config", DC_U_NONE, DC_FT_STR, V(hf_config)},
	{"params_source", "parameter count from", DC_U_NONE, DC_FT_STR, V(params_source)},
	{"params_total", "parameters (total)", DC_U_COUNT, DC_FT_U64, V(params_total)},
	{"params_active", "parameters one token uses (active)", DC_U_COUNT, DC_FT_U64, V(params_active)},
	{"params_without_mtp", "of them without the MTP modules: total", DC_U_COUNT, DC_FT_U64, V(params_without_mtp),
	 .shown = has_mtp_count},
	{"params_active_without_mtp", "of them without the MTP modules: active", DC_U_COUNT, DC_FT_U64,
	 V(params_active_without_mtp), .shown = has_mtp_count},
	{"params_active_non_embedding", "active without the input embedding", DC_U_COUNT, DC_FT_U64,
	 V(params_active_non_embedding), .shown = has_experts_count, .label_fn = non_embedding_label},
	{"dense_layers", "layers with a dense MLP", DC_U_COUNT, DC_FT_U64, V(terms.t.dense_layers)},
	{"moe_layers", "layers with routed experts", DC_U_COUNT, DC_FT_U64, V(terms.t.moe_layers)},
	{"num_experts", "routed experts per MoE layer", DC_U_COUNT, DC_FT_U64, V(num_experts)},
	{"experts_per_token", "experts per token (top-k)", DC_U_COUNT, DC_FT_U64, V(experts_per_token)},
	{"attention", "attention", DC_U_NONE, DC_FT_STR, V(attention)},
	{"linear_attention_layers", "Gated DeltaNet layers (linear attention)", DC_U_COUNT, DC_FT_U64,
	 V(terms.t.linear_attention_layers), .shown = has_linear},
	{"sliding_window_layers", "layers with a sliding window", DC_U_COUNT, DC_FT_U64,
	 V(terms.t.sliding_window_layers), .shown = has_sliding},
	{"norm", "norm", DC_U_NONE, DC_FT_STR, V(norm)},
	{"terms", "Parameters by term (all layers)", DC_U_NONE, DC_FT_OBJECT, V(terms), .sub = &terms},
	{"per_rank", "Rank holding the most parameters (tp, pp and ep placement)", DC_U_NONE, DC_FT_OBJECT, V(rank),
	 .sub = &rank},
	{"keys", "Model keys as resolved, and where each came from", DC_U_NONE, DC_FT_ROWS, 0, .sub = &dc_key_row_table,
	 .rows = &key_rows, .shown = has_hf},
};

_Static_assert(sizeof(struct view) <= DC_VIEW_MAX, "view too large");

const struct dc_section dc_section_model = {
	"model", "Model (exact parameter counts)",
	"exact total and active parameters, term by term, per-rank share",
	DC_EST_BIT(DC_EST_MODEL), sizeof(struct view), view, DC_FIELDS(fields), NULL, NULL,
};
