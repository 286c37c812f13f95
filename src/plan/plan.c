/* plan.c - everything derived from the input, once; see plan.h. */
#include "distcalc/plan.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "distcalc/activation.h"
#include "distcalc/memo_verify.h"
#include "distcalc/memory.h"
#include "distcalc/params.h"
#include "distcalc/ring.h"
#include "distcalc/util.h"

int dc_stages_uneven(const struct dc_parallel *par)
{
	return par->pipeline_layers_n > 0 || par->first_stage_layers_given || par->last_stage_layers_given ||
	       par->account_for_embedding || par->account_for_loss;
}

const char *dc_stages_counted_hint(uint64_t L, uint64_t chunks, int v_gt1, char *buf, size_t n)
{
	/* the rule split_runs holds a counted split to: the units split
	 * evenly, each chunk at least one unit (v = 1: two, so that the
	 * short stage keeps a layer) */
	uint64_t need = v_gt1 ? 1 : 2;
	buf[0] = '\0';
	if (chunks == 0 || L > UINT64_MAX - 2)
		return buf;
	if ((L + 2) % chunks == 0 && (L + 2) / chunks >= need)
		snprintf(buf, n,
			 "; or give parallel.account_for_embedding and account_for_loss, which count the embedding and the loss as a layer each (%llu + 2 = %llu split evenly: Megatron-LM's --account-for-embedding-in-pipeline-split and --account-for-loss-in-pipeline-split)",
			 (unsigned long long)L, (unsigned long long)(L + 2));
	else if ((L + 1) % chunks == 0 && (L + 1) / chunks >= need)
		snprintf(buf, n,
			 "; or give parallel.account_for_embedding or account_for_loss, which counts the embedding or the loss as a layer (%llu + 1 = %llu split evenly: Megatron-LM's --account-for-embedding-in-pipeline-split or --account-for-loss-in-pipeline-split)",
			 (unsigned long long)L, (unsigned long long)(L + 1));
	return buf;
}

/* Appends `count` stages of `layers` layers to *r, merging equal runs. */
static void runs_push(struct dc_stage_runs *r, uint64_t count, uint64_t layers, uint64_t *stage, uint64_t *layer)
{
	if (count == 0)
		return;
	if (r->n == 0 || r->layers[r->n - 1] != layers) {
		r->first[r->n] = *stage;
		r->layers[r->n] = layers;
		r->layer_start[r->n] = *layer;
		r->n++;
	}
	*stage += count;
	*layer += count * layers;
	r->first[r->n] = *stage;
}

int dc_stage_split(const struct dc_parallel *par, uint64_t L, uint64_t v, struct dc_stage_runs *out,
		   const char **key, char *err, size_t errlen)
{
	uint64_t pp = par->pp, stage = 0, layer = 0;
	if (v < 1)
		v = 1;
	int given_first = par->first_stage_layers_given, given_last = par->last_stage_layers_given;
	int counted = par->account_for_embedding || par->account_for_loss;

	out->n = 0;
	out->first[0] = 0;
	out->v = v;
	out->vfirst = out->vlast = 0;
	if (par->pipeline_layers_n > 0) {
		const uint64_t *e = par->pipeline_layers;
		uint64_t n = par->pipeline_layers_n, sum = 0, runs = 1, tot[DC_MAX_PIPELINE_LIST];
		*key = "parallel.pipeline_layers";
		if (given_first || given_last || counted) {
			snprintf(err, errlen,
				 "'parallel.pipeline_layers': give either the list or first_stage_layers / last_stage_layers / account_for_*, not both");
			return -1;
		}
		if (n != pp && (v == 1 || n != pp * v)) {
			if (v > 1)
				snprintf(err, errlen,
					 "'parallel.pipeline_layers': needs one entry per pipeline stage (parallel.pp = %llu) or one per model chunk (pp x virtual_pipeline = %llu), got %llu",
					 (unsigned long long)pp, (unsigned long long)(pp * v), (unsigned long long)n);
			else
				snprintf(err, errlen,
					 "'parallel.pipeline_layers': needs one entry per pipeline stage (parallel.pp = %llu), got %llu",
					 (unsigned long long)pp, (unsigned long long)n);
			return -1;
		}
		/* a stage of no layers before the sum: the entry is the problem
		 * a sum that misses names last (a review: [16, 0] said only the
		 * sum, the zero once the sum was fixed) */
		for (uint64_t i = 0; n == pp && i < n; i++)
			if (e[i] == 0) {
				snprintf(err, errlen,
					 "'parallel.pipeline_layers': entry %llu: every stage needs a whole number of layers, at least 1, got 0",
					 (unsigned long long)i + 1);
				return -1;
			}
		for (uint64_t i = 0; i < n; i++)
			sum += e[i]; /* each below 2^53, at most 256 of them */
		if (sum != L) {
			snprintf(err, errlen,
				 "'parallel.pipeline_layers': the %s layers must add up to model.num_layers (%llu), got %llu",
				 n == pp ? "stages'" : "chunks'", (unsigned long long)L, (unsigned long long)sum);
			return -1;
		}
		for (uint64_t s = 0; s < pp; s++) {
			if (n == pp) {
				tot[s] = e[s];
				if (e[s] == 0 || e[s] % v != 0) {
					if (e[s] == 0)
						snprintf(err, errlen,
							 "'parallel.pipeline_layers': entry %llu: every stage needs a whole number of layers, at least 1, got 0",
							 (unsigned long long)s + 1);
					else
						snprintf(err, errlen,
							 "'parallel.pipeline_layers': entry %llu: with virtual_pipeline %llu a stage's layers split evenly over its model chunks, so each entry must be a multiple of %llu, got %llu (or give pp x virtual_pipeline entries, one per chunk)",
							 (unsigned long long)s + 1, (unsigned long long)v, (unsigned long long)v,
							 (unsigned long long)e[s]);
					return -1;
				}
				continue;
			}
			/* one entry per chunk: virtual stage c pp + s is chunk c
			 * of stage s; its chunks hold the same layers but the
			 * model's first and last */
			tot[s] = 0;
			for (uint64_t c = 0; c < v; c++) {
				uint64_t k = c * pp + s, base = e[(s == 0 ? 1 : 0) * pp + s];
				tot[s] += e[k];
				if (k != 0 && k != pp * v - 1 && e[k] != base) {
					snprintf(err, errlen,
						 "'parallel.pipeline_layers': entry %llu: the model chunks of one stage hold the same layers (but for the model's first and last chunk), as Megatron-Core's interleaved schedule assumes; stage %llu's chunk %llu holds %llu, its chunk %llu %llu",
						 (unsigned long long)k + 1, (unsigned long long)s, (unsigned long long)c,
						 (unsigned long long)e[k], (unsigned long long)(s == 0 ? 1 : 0),
						 (unsigned long long)base);
					return -1;
				}
			}
			if (tot[s] == 0) {
				snprintf(err, errlen, "'parallel.pipeline_layers': stage %llu holds no layer in any of its chunks",
					 (unsigned long long)s);
				return -1;
			}
		}
		for (uint64_t s = 1; s < pp; s++)
			runs += tot[s] != tot[s - 1];
		if (runs > DC_MAX_PIPELINE_RUNS) {
			snprintf(err, errlen, "'parallel.pipeline_layers': at most %d runs of equal consecutive stages, got %llu",
				 DC_MAX_PIPELINE_RUNS, (unsigned long long)runs);
			return -1;
		}
		for (uint64_t s = 0; s < pp; s++)
			runs_push(out, 1, tot[s], &stage, &layer);
		out->vfirst = n == pp ? e[0] / v : e[0];
		out->vlast = n == pp ? e[pp - 1] / v : e[n - 1];
		return 0;
	}
	if (given_first || given_last || counted) {
		uint64_t first = 0, last = 0, others = pp, rest = L;
		*key = given_first ? "parallel.first_stage_layers" : given_last ? "parallel.last_stage_layers"
		       : par->account_for_embedding ? "parallel.account_for_embedding" : "parallel.account_for_loss";
		if (pp < 2) {
			snprintf(err, errlen, "'%s': uneven stages need parallel.pp > 1, got pp %llu", *key,
				 (unsigned long long)pp);
			return -1;
		}
		if (counted && (given_first || given_last)) {
			snprintf(err, errlen,
				 "'%s': give first_stage_layers / last_stage_layers or account_for_embedding / account_for_loss, not both (Megatron-LM refuses the pair)",
				 *key);
			return -1;
		}
		if (counted) {
			/* the embedding and the loss each count as one layer:
			 * L + e + o units over the pp v chunks, the model's first
			 * chunk e short, its last o short */
			uint64_t e = (uint64_t)par->account_for_embedding, o = (uint64_t)par->account_for_loss;
			uint64_t units = L + e + o, each = units / (pp * v);
			/* v = 1: the short stage keeps a layer; v > 1: its other chunks do */
			if (units % (pp * v) != 0 || each < (v > 1 ? 1u : 2u)) {
				if (v > 1)
					snprintf(err, errlen,
						 "'%s': model.num_layers (%llu) plus the %llu counted as layers must split evenly over parallel.pp x virtual_pipeline (%llu x %llu) chunks",
						 *key, (unsigned long long)L, (unsigned long long)(e + o), (unsigned long long)pp,
						 (unsigned long long)v);
				else
					snprintf(err, errlen,
						 "'%s': model.num_layers (%llu) plus the %llu counted as layers must split evenly over parallel.pp (%llu), each stage holding at least one layer",
						 *key, (unsigned long long)L, (unsigned long long)(e + o), (unsigned long long)pp);
				return -1;
			}
			runs_push(out, 1, v * each - e, &stage, &layer);
			runs_push(out, pp - 2, v * each, &stage, &layer);
			runs_push(out, 1, v * each - o, &stage, &layer);
			out->vfirst = each - e;
			out->vlast = each - o;
			return 0;
		}
		if (given_first) {
			first = par->first_stage_layers;
			others--;
		}
		if (given_last) {
			last = par->last_stage_layers;
			others--;
		}
		if (first > L || last > L - first) {
			snprintf(err, errlen, "'%s': the first and last stages' %llu layers exceed model.num_layers (%llu)", *key,
				 (unsigned long long)(first + last), (unsigned long long)L);
			return -1;
		}
		rest = L - first - last;
		if (others == 0 ? rest != 0 : rest % others != 0 || rest / others == 0) {
			snprintf(err, errlen,
				 "'%s': the other %llu stages must split the remaining %llu of model.num_layers (%llu) evenly, at least one layer each",
				 *key, (unsigned long long)others, (unsigned long long)rest, (unsigned long long)L);
			return -1;
		}
		if (v > 1 && (first % v != 0 || last % v != 0 || (others && (rest / others) % v != 0))) {
			snprintf(err, errlen,
				 "'%s': with virtual_pipeline %llu every stage's layers split evenly over its model chunks, so the first (%llu), last (%llu) and other stages' (%llu) layers must be multiples of %llu",
				 *key, (unsigned long long)v, (unsigned long long)first, (unsigned long long)last,
				 (unsigned long long)(others ? rest / others : 0), (unsigned long long)v);
			return -1;
		}
		runs_push(out, given_first ? 1 : 0, first, &stage, &layer);
		runs_push(out, others, others ? rest / others : 0, &stage, &layer);
		runs_push(out, given_last ? 1 : 0, last, &stage, &layer);
		out->vfirst = (given_first ? first : rest / others) / v;
		out->vlast = (given_last ? last : rest / others) / v;
		return 0;
	}
	*key = "parallel.pp";
	if (pp > L) {
		/* no split helps: every stage holds a layer at least */
		snprintf(err, errlen,
			 "'parallel.pp': %llu stages for model.num_layers %llu: every stage needs at least one layer; use pp at most %llu",
			 (unsigned long long)pp, (unsigned long long)L, (unsigned long long)L);
		return -1;
	}
	if (L % pp != 0) {
		char hint[320];
		snprintf(err, errlen,
			 "'parallel.pp': must divide model.num_layers (%llu), got %llu; for uneven stages give parallel.pipeline_layers or first_stage_layers / last_stage_layers%s",
			 (unsigned long long)L, (unsigned long long)pp,
			 dc_stages_counted_hint(L, pp <= UINT64_MAX / (v ? v : 1) ? pp * v : 0, v > 1, hint, sizeof(hint)));
		return -1;
	}
	runs_push(out, pp, L / pp, &stage, &layer);
	out->vfirst = out->vlast = L / pp / v;
	return 0;
}

/* The run holding `stage`. */
static uint64_t stage_run(const struct dc_plan *p, uint64_t stage)
{
	uint64_t i = 0;
	while (i + 1 < p->runs.n && p->runs.first[i + 1] <= stage)
		i++;
	return i;
}

uint64_t dc_plan_stage_layers(const struct dc_plan *p, uint64_t stage)
{
	if (p->runs.n <= 1)
		return p->layers_per_stage;
	return p->runs.layers[stage_run(p, stage)];
}

uint64_t dc_plan_stage_first_layer(const struct dc_plan *p, uint64_t stage)
{
	uint64_t i;
	if (p->runs.n <= 1)
		return stage * p->layers_per_stage;
	i = stage_run(p, stage);
	return p->runs.layer_start[i] + (stage - p->runs.first[i]) * p->runs.layers[i];
}

int dc_layout_expert_folded(const struct dc_layout *lay)
{
	uint64_t ep = lay->ep ? lay->ep : 1, etp = lay->etp ? lay->etp : lay->tp, cp = lay->cp ? lay->cp : 1;
	/* with cp > 1 Megatron-Core's expert rank generator (cp 1:
	 * parallel_state.py:887-896 at d98e8a64) puts an ep group etp apart
	 * across the cp and dp ranks, not ep dp-strides apart */
	return etp != lay->tp || lay->dp % ep != 0 || (ep > 1 && cp > 1);
}

const char *dc_layout_expert_error(const struct dc_layout *lay, uint64_t num_experts, int pp_outermost)
{
	uint64_t ep = lay->ep ? lay->ep : 1, etp = lay->etp ? lay->etp : lay->tp, cp = lay->cp ? lay->cp : 1;
	uint64_t ranks;
	if (ep <= 1 && etp == lay->tp)
		return NULL;
	if (!num_experts)
		return ep > 1 ? "'parallel.ep': needs a mixture-of-experts model (model.num_experts)"
			      : "'parallel.etp': splits routed experts, so it needs a mixture-of-experts model (model.num_experts)";
	if (num_experts % ep != 0)
		return "'parallel.ep': must divide model.num_experts";
	if (dc_mul_u64(lay->tp, lay->dp, &ranks) || dc_mul_u64(ranks, cp, &ranks) || ranks % ep != 0 ||
	    (ranks / ep) % etp != 0)
		return "'parallel.ep' x 'parallel.etp': ep x etp must divide tp x dp x cp, the ranks of a stage that the expert layers regroup (Megatron-Core's MoE parallel folding)";
	if (dc_layout_expert_folded(lay) && !pp_outermost)
		return "'parallel.order': folding the expert layout (ep not dividing dp, etp other than tp, or ep > 1 with cp > 1) needs pp as the slowest axis: distcalc lays the expert groups out over a stage's consecutive ranks, as Megatron-Core's expert rank generator does with pp last (Megatron-Core also runs other orders where ep x etp = tp x cp, which are not modelled)";
	return NULL;
}

int dc_layout_order_names_ep(const struct dc_config *in)
{
	for (const char *t = in->parallel.order_text; *t; t += strcspn(t, "-"), t += *t == '-')
		if (strncmp(t, "ep", 2) == 0 && (t[2] == '-' || t[2] == 0))
			return 1;
	return 0;
}

int dc_layout_ep_placed(const struct dc_config *in, const struct dc_layout *lay)
{
	uint64_t ep = lay->ep ? lay->ep : 1, etp = lay->etp ? lay->etp : lay->tp, cp = lay->cp ? lay->cp : 1;
	uint64_t es[DC_AXIS_COUNT], ds[DC_AXIS_COUNT], e = 1, d = 1, edp;
	/* torchtitan builds its own mesh, DeepSpeed its expert groups of
	 * consecutive dp ranks whatever the order: the plan's own */
	if (in->training.framework == DC_FRAMEWORK_TORCHTITAN || in->training.framework == DC_FRAMEWORK_DEEPSPEED ||
	    (ep <= 1 && etp == lay->tp))
		return 1;
	/* Megatron-Core refuses an order without an axis of size > 1
	 * (parallel_state.py:504-508 at d98e8a64) */
	if (ep > 1 && !dc_layout_order_names_ep(in))
		return 0;
	if (!ep || !etp || (lay->tp * lay->dp * cp) % (ep * etp))
		return 1; /* not an expert layout at all: dc_layout_expert_error says so */
	edp = lay->tp * lay->dp * cp / (ep * etp);
	/* the strides of the two rank generators over the same order: the
	 * decoder's (tp, cp, dp, pp; ep 1) and the experts' (etp, ep, edp,
	 * pp; cp 1: :886-895) */
	for (int i = 0; i < DC_AXIS_COUNT; i++) {
		enum dc_axis a = in->parallel.order[i];
		uint64_t esz = a == DC_AXIS_TP ? etp : a == DC_AXIS_EP ? ep : a == DC_AXIS_DP ? edp : a == DC_AXIS_PP ? lay->pp : 1;
		uint64_t dsz = a == DC_AXIS_TP ? lay->tp : a == DC_AXIS_CP ? cp : a == DC_AXIS_DP ? lay->dp : a == DC_AXIS_PP ? lay->pp : 1;
		es[a] = e;
		e *= esz;
		ds[a] = d;
		d *= dsz;
	}
	/* the pipeline groups must agree (Megatron-Core asserts it, :904-907) */
	if (lay->pp > 1 && es[DC_AXIS_PP] != ds[DC_AXIS_PP])
		return 0;
	/* the groups distcalc prices (dc_plan_derive's expert groups): carved
	 * out of dp, ep consecutive members of each dp group and the experts
	 * split over the tp group; folded, a stage's ranks as etp x ep x edp,
	 * etp the fastest. An axis of one rank has no stride to match. */
	if (!dc_layout_expert_folded(lay))
		return (ep < 2 || es[DC_AXIS_EP] == ds[DC_AXIS_DP]) && (edp < 2 || es[DC_AXIS_DP] == ds[DC_AXIS_DP] * ep) &&
		       (etp < 2 || es[DC_AXIS_TP] == ds[DC_AXIS_TP]);
	return (etp < 2 || es[DC_AXIS_TP] == 1) && (ep < 2 || es[DC_AXIS_EP] == etp) &&
	       (edp < 2 || es[DC_AXIS_DP] == etp * ep);
}

int dc_layout_pp_outermost(const struct dc_config *in, const struct dc_layout *lay)
{
	int seen = 0;
	if (lay->pp <= 1)
		return 1;
	for (int i = 0; i < DC_AXIS_COUNT; i++) {
		enum dc_axis a = in->parallel.order[i];
		uint64_t cp = lay->cp ? lay->cp : 1;
		uint64_t deg = a == DC_AXIS_TP ? lay->tp : a == DC_AXIS_CP ? cp : a == DC_AXIS_DP ? lay->dp : 1;
		if (a == DC_AXIS_PP)
			seen = 1;
		else if (seen && deg > 1)
			return 0;
	}
	return 1;
}

int dc_layout_chunks_fit(const struct dc_config *in, uint64_t pp, uint64_t v)
{
	uint64_t in_v = in->parallel.virtual_pipeline ? in->parallel.virtual_pipeline : 1;
	if (pp != in->parallel.pp || !dc_stages_uneven(&in->parallel))
		return in->model.num_layers % (pp * v) == 0;
	if (v == in_v)
		return 1;
	return v == 1 && !(in_v > 1 && in->parallel.pipeline_layers_n == pp * in_v);
}

enum dc_pipe_schedule dc_layout_schedule(const struct dc_config *in, const struct dc_layout *lay, int even)
{
	uint64_t pp = lay->pp, m = dc_layout_schedule_m(lay), L = in->model.num_layers;
	uint64_t v = lay->virtual_pipeline ? lay->virtual_pipeline : 1;
	enum dc_pipe_schedule s = in->parallel.pipeline_schedule;
	enum dc_pipe_schedule plain = v > 1 ? DC_PIPE_INTERLEAVED : DC_PIPE_1F1B;
	if (pp < 2 || v > 1)
		return plain;
	switch (s) {
	case DC_PIPE_ZERO_BUBBLE:
		return s;
	case DC_PIPE_DUALPIPE:
		/* the stages the input gives (uneven: plan.h runs), or L / pp */
		return pp % 2 == 0 && m % 2 == 0 && m >= 2 * pp && (!even || L % pp == 0) ? s : plain;
	case DC_PIPE_DUALPIPEV:
		return m >= 2 * pp && even && L % (2 * pp) == 0 ? s : plain;
	case DC_PIPE_1F1B:
	case DC_PIPE_INTERLEAVED:
		break;
	}
	return plain;
}

enum dc_layout_fault dc_layout_fault_outer(const struct dc_config *in, uint64_t tp, uint64_t cp, uint64_t pp)
{
	const struct dc_model *m = &in->model;
	if (m->num_attention_heads % tp || m->num_kv_heads % tp ||
	    (m->full_attention_interval && m->linear_num_key_heads % tp))
		return DC_LF_TP_HEADS;
	if (cp > 1 && (in->parallel.cp_comm_type != DC_CP_A2A
			       ? m->seq_length % (2 * cp) != 0
			       : m->seq_length % cp != 0 || m->num_attention_heads / tp % cp != 0 ||
					 m->num_kv_heads / tp % cp != 0))
		return DC_LF_CP;
	if (dc_stages_uneven(&in->parallel) ? pp != in->parallel.pp : m->num_layers % pp != 0)
		return DC_LF_PP;
	if (dc_layout_moe_segments(in, pp, 1) > DC_PLAN_MAX_SEGMENTS) /* the loader's rule_moe_interval_pp */
		return DC_LF_PP;
	return DC_LF_NONE;
}

enum dc_layout_fault dc_layout_fault_inner(const struct dc_config *in, const struct dc_layout *lay)
{
	uint64_t ep = lay->ep ? lay->ep : 1, etp = lay->etp ? lay->etp : lay->tp;
	uint64_t rep = lay->dp_replicate ? lay->dp_replicate : 1, v = lay->virtual_pipeline ? lay->virtual_pipeline : 1;
	/* DeepEP is priced over the ep group alone (the loader's
	 * rule_moe_dispatcher refuses etp > 1 with it) */
	if (dc_layout_expert_error(lay, in->model.num_experts, dc_layout_pp_outermost(in, lay)) ||
	    !dc_layout_ep_placed(in, lay) ||
	    (etp != lay->tp && lay->tp > 1 && !lay->sequence_parallel) ||
	    (in->training.moe_dispatcher == DC_MOE_DISPATCH_DEEPEP && in->model.num_experts && ep > 1 && etp > 1))
		return DC_LF_EXPERT;
	if (rep > 1) {
		uint64_t cp = lay->cp ? lay->cp : 1;
		uint64_t edp = dc_layout_expert_folded(lay) ? lay->tp * lay->dp * cp / (ep * etp) : lay->dp / ep;
		if (lay->dp % rep || edp % rep)
			return DC_LF_REPLICATE;
	}
	if (!lay->grad_accum_steps || lay->grad_accum_steps % dc_layout_schedule_m(lay))
		return DC_LF_BATCH;
	if (v > 1 && (lay->pp < 2 || dc_layout_schedule_m(lay) % lay->pp))
		return DC_LF_VP;
	if (!dc_layout_chunks_fit(in, lay->pp, v))
		return DC_LF_VP;
	if (v > 1 && dc_layout_moe_segments(in, lay->pp, v) > DC_PLAN_MAX_SEGMENTS)
		return DC_LF_VP; /* v = 1: dc_layout_fault_outer's */
	if (lay->sequence_parallel && lay->tp < 2)
		return DC_LF_SP;
	{
		/* a schedule the input names, on a layout with a pipeline, runs
		 * as named or not at all: never quietly as 1F1B */
		enum dc_pipe_schedule s = in->parallel.pipeline_schedule;
		int even = !(lay->pp == in->parallel.pp && dc_stages_uneven(&in->parallel));
		if ((s == DC_PIPE_ZERO_BUBBLE || s == DC_PIPE_DUALPIPE || s == DC_PIPE_DUALPIPEV) && lay->pp >= 2 &&
		    dc_layout_schedule(in, lay, even) != s)
			return DC_LF_SCHEDULE;
		/* DualPipeV with MoE on every n-th layer: each rank its own
		 * kind, at most DC_PLAN_MAX_SEGMENTS (dc_layout_moe_segments) */
		if (s == DC_PIPE_DUALPIPEV && lay->pp > DC_PLAN_MAX_SEGMENTS && in->model.num_experts &&
		    in->model.moe_layer_interval > 1 && !in->model.params_explicit)
			return DC_LF_SCHEDULE;
	}
	return DC_LF_NONE;
}

void dc_layout_of(const struct dc_config *in, struct dc_layout *o)
{
	o->tp = in->parallel.tp;
	o->pp = in->parallel.pp;
	o->dp = in->parallel.dp;
	o->cp = in->parallel.cp ? in->parallel.cp : 1;
	o->ep = in->parallel.ep ? in->parallel.ep : 1;
	o->dp_replicate = in->parallel.dp_replicate ? in->parallel.dp_replicate : 1;
	o->etp = dc_config_layout_etp(in, o->ep); /* 0: follow tp */
	o->virtual_pipeline = in->parallel.virtual_pipeline ? in->parallel.virtual_pipeline : 1;
	o->sequence_parallel = in->parallel.sequence_parallel;
	o->sharding = in->parallel.sharding;
	o->micro_batch_size = in->training.micro_batch_size;
	o->grad_accum_steps = in->training.grad_accum_steps;
	o->schedule_microbatches = in->parallel.pipeline_schedule_microbatches;
}

static void link_of(const struct dc_config *in, enum dc_link_choice c, struct dc_plan_link *l)
{
	l->choice = c;
	l->params = c == DC_LINK_INTRA ? in->cluster.intra_node : in->cluster.inter_node;
}

/* The family of groups of `size` ranks `stride` apart that starts at
 * every i + stride x size x j (i < stride; dc_topology_first_domain_crossing):
 * its first group that spans two NVLink domains, the slowest (the
 * synchronous step waits for it), else its group 0. A family whose block
 * does not divide the world keeps group 0. */
static void family_group(const struct dc_topology *t, uint64_t stride, uint64_t size, struct dc_group *g)
{
	uint64_t b = stride * size; /* within the world: no overflow */
	g->axis = DC_AXIS_DP;
	g->index = 0;
	g->first = 0;
	g->stride = stride;
	g->size = size;
	if (size > 1 && b && t->world % b == 0)
		dc_topology_first_domain_crossing(t, stride, size, g);
}

/* The link the family's slowest group crosses (the first that spans
 * domains, else group 0: dc_group_link). */
static enum dc_link_choice family_link(const struct dc_topology *t, uint64_t stride, uint64_t size)
{
	struct dc_group g;
	family_group(t, stride, size, &g);
	return dc_group_link(t, &g);
}

/* Leaf boundaries the crossing groups are looked for at (family_net,
 * pp_leaf_pair): every one within a period of the layout's shapes, at
 * most this many */
#define LEAF_WALK_MAX 1024

/* The leaf boundaries to walk: k L, k = 1 .. the result, L = nodes_per_leaf
 * x gpus_per_node ranks (*leaf), those below the world and within one
 * period lcm(L, block, domain) of the shapes a group takes (its position
 * against nodes, NVLink domains, NICs and leaves repeats with it), at most
 * LEAF_WALK_MAX; 0 without leaves behind an oversubscribed spine. */
static uint64_t leaf_walk(const struct dc_plan *p, uint64_t block, uint64_t *leaf)
{
	uint64_t gpn = p->net.gpus_per_node ? p->net.gpus_per_node : 1;
	uint64_t dom = p->net.nvlink_domain ? p->net.nvlink_domain : gpn, period, n;
	if (!p->net.nodes_per_leaf || !(p->net.oversubscription > 1) || !block ||
	    dc_mul_u64(p->net.nodes_per_leaf, gpn, leaf) || *leaf >= p->world)
		return 0;
	period = *leaf;
	if (dc_mul_u64(period / dc_gcd_u64(period, block), block, &period) ||
	    dc_mul_u64(period / dc_gcd_u64(period, dom), dom, &period) || period > p->world)
		period = p->world;
	n = period / *leaf;
	if (n > (p->world - 1) / *leaf) /* below the world */
		n = (p->world - 1) / *leaf;
	return n < LEAF_WALK_MAX ? n : LEAF_WALK_MAX;
}

/* The network shape of the family's slowest group, with its neighbours
 * on the wire (dc_net_group_progression): the first that spans domains,
 * else group 0, and behind an oversubscribed spine the group of the
 * family that crosses a leaf switch with the lowest node bandwidth, where
 * that is lower (a trial's pp 2 on 24 nodes of 16-node leaves priced
 * stage 1's DP groups, which cross, at group 0's full rate). The
 * family's groups are f + j stride within blocks of stride x size ranks,
 * f = block start + r, r < stride, so a group never leaves its block: a
 * leaf boundary B on a block's edge is crossed by none, and one x ranks
 * into a block by the groups of r from max(0, x - (size - 1) stride) to
 * min(stride, x) - 1 (the first rank below B, the last at or past it);
 * each boundary of the walk (leaf_walk) offers the two ends of that range.
 * Returns the chosen group's first rank. */
/* Whether candidate c (ring rate cb), which crosses a leaf, is slower than
 * the group chosen so far (rate bw): its ring rate lower, or equal (a
 * ring not slowed once k >= the oversubscription) with fewer domains under
 * a leaf than the chosen one has, or the chosen one crossing none: then
 * AlltoAll and the tree, whose slowdowns fall as k rises and are above 1
 * wherever a group crosses, are slowest on it (a review: EP groups of
 * k 2 behind a 2:1 spine went unslowed while group 0 stayed under one
 * leaf). */
static int leaf_slower(const struct dc_net_group *c, double cb, const struct dc_net_group *cur, double bw)
{
	return cb < bw || (cb == bw && (!cur->cross_leaf || c->cross_leaf < cur->cross_leaf));
}

static uint64_t family_pick(const struct dc_plan *p, uint64_t stride, uint64_t size, struct dc_net_group *out)
{
	struct dc_group g;
	uint64_t first, leaf = 0, n, block;
	double bw;
	family_group(&p->topo, stride, size, &g);
	first = g.first;
	dc_net_group_progression(&p->net, first, g.stride ? g.stride : 1, size, out);
	if (size < 2 || !stride || dc_mul_u64(stride, size, &block) || !(n = leaf_walk(p, block, &leaf)))
		return first;
	bw = dc_net_node_bw(&p->net, out);
	for (uint64_t k = 1; k <= n; k++)
		for (int end = 0; end < 2; end++) {
			/* the groups across B are r in [max(0, x - (size - 1)
			 * stride), min(stride, x) - 1]; its two ends' spans cover
			 * every one's (they overlap: the ends are less than a
			 * stride apart), so one of them spans an NVLink domain's
			 * edge where any does */
			uint64_t b = k * leaf, x = b % block, f;
			struct dc_net_group c;
			double cb;
			if (x == 0)
				continue;
			f = b - x +
			    (end ? (x < stride ? x : stride) - 1 : x > (size - 1) * stride ? x - (size - 1) * stride : 0);
			dc_net_group_progression(&p->net, f, stride, size, &c);
			if (c.cross_leaf && c.nodes > 1 && leaf_slower(&c, cb = dc_net_node_bw(&p->net, &c), out, bw)) {
				*out = c;
				bw = cb;
				first = f;
			}
		}
	return first;
}

static void family_net(const struct dc_plan *p, uint64_t stride, uint64_t size, struct dc_net_group *out)
{
	(void)family_pick(p, stride, size, out);
}

#ifdef DISTCALC_VERIFY_MEMOS
/* A family's shape taken from an equal call's (`kept`) against
 * family_net on its own stride and size */
static void family_verify(const struct dc_plan *p, uint64_t stride, uint64_t size, const struct dc_net_group *kept)
{
	static const struct dc_memo_field fields[] = {
		DC_MEMO_FIELD(struct dc_net_group, ranks),
		DC_MEMO_FIELD(struct dc_net_group, nodes),
		DC_MEMO_FIELD(struct dc_net_group, ranks_per_node),
		DC_MEMO_FIELD(struct dc_net_group, ranks_least),
		DC_MEMO_FIELD(struct dc_net_group, rails),
		DC_MEMO_FIELD(struct dc_net_group, concurrent),
		DC_MEMO_FIELD(struct dc_net_group, cross_leaf),
	};
	struct dc_net_group fresh;
	family_net(p, stride, size, &fresh);
	dc_memo_verify_fields("an equal family's shape found once (src/plan/plan.c derive_net)", "net", kept, &fresh,
			      fields, sizeof(fields) / sizeof(fields[0]));
}
#endif

/* Degrees, strides and the slowest link of every axis: the layout's
 * degrees on the input's cluster and order (dc_topology_init_degrees, no
 * copy of the input). */
static void derive_topology(const struct dc_config *in, const struct dc_layout *lay, struct dc_plan *p)
{
	dc_topology_init_degrees(in, lay->tp, lay->dp, lay->pp, p->layout.cp, p->world, &p->topo);
	for (int a = 0; a < DC_AXIS_COUNT; a++) {
		struct dc_plan_link *l = &p->group[a].link;
		/* a group of one rank sits on one node */
		if (p->topo.degree[a] <= 1)
			link_of(in, DC_LINK_INTRA, l);
		else
			l->choice = dc_topology_axis_link(in, &p->topo, (enum dc_axis)a, &l->params);
	}
}

/* A group of two axes' ranks, (s1, n1) and (s2, n2): the lattice
 * f + i a + j b (i < na, j < nb), (a, na) the axis of the finer stride,
 * a na <= b (b is a stride of an axis later in the order, or of a group
 * carved out of one, a product holding a's block): the dp x cp group
 * (Megatron-Core's data-parallel group with context parallelism), cp
 * with the expert-data-parallel ranks, HSDP's shard groups with cp. The
 * axes adjacent (a na = b) or one of degree 1, it is one progression, a
 * family of its own (family_group). Otherwise its family is the groups at
 * every f with both coordinates 0; one of them spans NVLink domains iff
 * some progression b apart (nb ranks) or some cluster a apart (na ranks)
 * does, every member sitting with its cluster's start, every start with
 * the coordinate-0 one's: the first of the progressions' family that
 * crosses, else the first of the clusters', names the group priced (its
 * lattice holds that crossing), else group 0 (no lattice crosses). */
struct lattice {
	uint64_t a, na, b, nb;
};

static void lattice_of(uint64_t s1, uint64_t n1, uint64_t s2, uint64_t n2, struct lattice *l)
{
	int swap = s2 < s1;
	l->a = swap ? s2 : s1;
	l->na = swap ? n2 : n1;
	l->b = swap ? s1 : s2;
	l->nb = swap ? n1 : n2;
}

/* one progression: its stride and size, else 0 */
static uint64_t lattice_line(const struct lattice *l, uint64_t *size)
{
	*size = l->na * l->nb;
	if (l->na <= 1)
		return l->b;
	if (l->nb <= 1 || l->a * l->na == l->b)
		return l->a;
	return 0;
}

/* The first rank of the family's group priced (above); returns its link. */
static enum dc_link_choice lattice_first(const struct dc_topology *t, const struct lattice *l, uint64_t *first)
{
	struct dc_group g;
	*first = 0;
	family_group(t, l->b, l->nb, &g);
	if (dc_group_link(t, &g) == DC_LINK_INTER) {
		*first = g.first - g.first / l->a % l->na * l->a;
		return DC_LINK_INTER;
	}
	family_group(t, l->a, l->na, &g);
	if (dc_group_link(t, &g) == DC_LINK_INTER) {
		*first = g.first - g.first / l->b % l->nb * l->b;
		return DC_LINK_INTER;
	}
	return DC_LINK_INTRA;
}

/* The link of the two axes' group (its priced group's, lattice_net) */
static enum dc_link_choice lattice_link(const struct dc_topology *t, uint64_t s1, uint64_t n1, uint64_t s2,
					uint64_t n2)
{
	struct lattice l;
	uint64_t size, first, line;
	lattice_of(s1, n1, s2, n2, &l);
	line = lattice_line(&l, &size);
	if (line)
		return size > 1 ? family_link(t, line, size) : DC_LINK_INTRA;
	return lattice_first(t, &l, &first);
}

/* The lattice family's offsets r in [lo, hi] (r < b) whose coordinate
 * on the finer axis is 0, (r / a) mod na = 0: the least (end 0) or the
 * greatest (end 1), or UINT64_MAX when none lies there */
static uint64_t lattice_offset(const struct lattice *l, uint64_t lo, uint64_t hi, int end)
{
	uint64_t q, r;
	if (lo > hi)
		return UINT64_MAX;
	if (end) {
		q = hi / l->a;
		r = q % l->na == 0 ? hi : (q - q % l->na) * l->a + l->a - 1;
		return r >= lo && r <= hi ? r : UINT64_MAX;
	}
	q = lo / l->a;
	r = q % l->na == 0 ? lo : (q + l->na - q % l->na) * l->a;
	return r >= lo && r <= hi ? r : UINT64_MAX;
}

/* The network shape of the two axes' group (dc_net_group_lattice), with
 * its neighbours on the wire; behind an oversubscribed spine the lattice
 * of the family that crosses a leaf switch with the lowest node
 * bandwidth, where that is lower, as family_pick for a progression (the
 * dp x cp and HSDP lattices were left at the domain rule before: a
 * review). The family's groups are f + i a + j b at f = block start + r,
 * blocks of b nb ranks, r < b with (r / a) mod na = 0, each spanning
 * L = (nb - 1) b + (na - 1) a past f inside its block: a boundary x ranks
 * into a block is crossed by those of r in [max(0, x - L), min(x, b) - 1],
 * whose two ends in the family each boundary of the walk offers. */
static void lattice_net(const struct dc_plan *p, uint64_t s1, uint64_t n1, uint64_t s2, uint64_t n2,
			struct dc_net_group *out)
{
	struct lattice l;
	uint64_t size, first, line, block, leaf = 0, n, span;
	double bw;
	lattice_of(s1, n1, s2, n2, &l);
	line = lattice_line(&l, &size);
	if (line) {
		family_net(p, line, size, out);
		return;
	}
	lattice_first(&p->topo, &l, &first);
	dc_net_group_lattice(&p->net, first, l.a, l.na, l.b, l.nb, out);
	if (dc_mul_u64(l.b, l.nb, &block) || !(n = leaf_walk(p, block, &leaf)))
		return;
	span = (l.nb - 1) * l.b + (l.na - 1) * l.a; /* below block: no overflow */
	bw = dc_net_node_bw(&p->net, out);
	for (uint64_t k = 1; k <= n; k++)
		for (int end = 0; end < 2; end++) {
			uint64_t b = k * leaf, x = b % block, r;
			struct dc_net_group c;
			double cb;
			if (x == 0)
				continue;
			r = lattice_offset(&l, x > span ? x - span : 0, (x < l.b ? x : l.b) - 1, end);
			if (r == UINT64_MAX)
				continue;
			dc_net_group_lattice(&p->net, b - x + r, l.a, l.na, l.b, l.nb, &c);
			if (c.cross_leaf && c.nodes > 1 && leaf_slower(&c, cb = dc_net_node_bw(&p->net, &c), out, bw)) {
				*out = c;
				bw = cb;
			}
		}
}

/* Megatron-Core: unfolded (etp = tp, ep dividing dp, cp 1 where ep > 1),
 * an expert-parallel group is ep consecutive dp ranks; the
 * expert-data-parallel group the dp / ep ranks that hold the same experts,
 * ep dp-strides apart (group 0 of each). Folded, its expert rank generator
 * (order tp-ep-dp-pp over a stage's consecutive ranks, pp the slowest
 * axis, cp 1: parallel_state.py:887-896 at d98e8a64): etp consecutive
 * ranks, ep of them etp apart, the expert data parallel ones etp ep apart,
 * cp folded into them. With cp 1 and etp = tp the two are the same
 * groups. */
static void derive_expert_links(const struct dc_config *in, struct dc_plan *p)
{
	uint64_t s = p->topo.stride[DC_AXIS_DP];
	struct dc_plan_group *g = p->group;
	int folded = p->expert_folded;
	const struct dc_topology *t = &p->topo;
	if (folded)
		link_of(in, family_link(t, 1, p->etp), &g[DC_GROUP_ETP].link);
	else
		g[DC_GROUP_ETP].link = g[DC_AXIS_TP].link;
	link_of(in, family_link(t, folded ? p->etp : s, p->ep), &g[DC_GROUP_EP].link);
	link_of(in, family_link(t, folded ? p->etp * p->ep : s * p->ep, folded ? p->expert_dp_cp : p->expert_dp),
		&g[DC_GROUP_EDP].link);
	g[DC_GROUP_DP_CP].link = g[DC_AXIS_DP].link;
	g[DC_GROUP_EDP_CP].link = g[DC_GROUP_EDP].link;
	if (p->layout.cp > 1) {
		uint64_t sc = t->stride[DC_AXIS_CP], cp = p->layout.cp;
		link_of(in, lattice_link(t, sc, cp, s, t->degree[DC_AXIS_DP]), &g[DC_GROUP_DP_CP].link);
		/* unfolded with cp > 1 means ep 1 (dc_layout_expert_folded):
		 * the expert-data-parallel group is the dp x cp group */
		if (!folded)
			g[DC_GROUP_EDP_CP].link = g[DC_GROUP_DP_CP].link;
	}
}

/* DeepEP's levels (training.moe_dispatcher "deepep"): the expert-parallel
 * family's slowest group, g ranks on each of its N domains (N g = ep, every
 * domain alike), splits into the N ranks of one local index, one per
 * domain, g of them EP-strided apart, and the g ranks of one domain. Not
 * priced (ranks 0) without DeepEP, with ep 1, or on an uneven spread,
 * which ep.c prices on the whole group. */
static void derive_ep_levels(const struct dc_config *in, struct dc_plan *p)
{
	const struct dc_net_group *e = &p->group[DC_GROUP_EP].net;
	uint64_t se = p->expert_folded ? p->etp : p->topo.stride[DC_AXIS_DP], gl = e->ranks_per_node, first;
	struct dc_net_group picked;
	memset(&p->group[DC_GROUP_EP_NODES], 0, sizeof(p->group[DC_GROUP_EP_NODES]));
	memset(&p->group[DC_GROUP_EP_LOCAL], 0, sizeof(p->group[DC_GROUP_EP_LOCAL]));
	if (in->training.moe_dispatcher != DC_MOE_DISPATCH_DEEPEP || p->ep < 2 || e->nodes < 2 || !gl ||
	    e->nodes * gl != p->ep || (e->ranks_least && e->ranks_least != gl))
		return;
	/* the levels of the group EP is priced on (family_pick: behind an
	 * oversubscribed spine one that crosses a leaf; a review found the
	 * levels built from group 0 while EP's share came from another) */
	first = family_pick(p, se, p->ep, &picked);
	link_of(in, DC_LINK_INTER, &p->group[DC_GROUP_EP_NODES].link);
	dc_net_group_progression(&p->net, first, se * gl, e->nodes, &p->group[DC_GROUP_EP_NODES].net);
	link_of(in, DC_LINK_INTRA, &p->group[DC_GROUP_EP_LOCAL].link);
	if (gl > 1)
		dc_net_group_progression(&p->net, first, se, gl, &p->group[DC_GROUP_EP_LOCAL].net);
}

/* The network model's cluster and the groups each axis prices: the
 * first group that spans NVLink domains (the slowest), else group 0, for
 * the axes and for the groups carved out of them alike (family_net). `base`
 * (NULL: none), a plan derived from the same input without an error,
 * holds the cluster already: dc_net_init reads the input's cluster and
 * collective keys alone, so its net is the one dc_net_init would make,
 * byte for byte (derive_from's variants and a search's layouts are other
 * layouts of one cluster). */
/* The boundaries of the pipeline group of stages first + s spp (s <
 * pp) that cross an NVLink domain, of its pp - 1 (plan.h pp_cross),
 * whether the wrap from its last stage back to its first does, and the
 * first rank of a boundary inside one domain (pp_in_first; `first` when
 * every boundary crosses). With spp >= the domain every boundary
 * crosses; below it a boundary crosses at most one domain's end, so the
 * crossings are the ends between the first stage's rank and the last's. */
static void pp_hops(struct dc_plan *p, uint64_t first, uint64_t spp, uint64_t pp)
{
	uint64_t dom = p->net.nvlink_domain ? p->net.nvlink_domain : 1, last = first + (pp - 1) * spp;
	p->pp_first = first;
	p->pp_in_first = first;
	p->pp_wrap_cross = first / dom != last / dom;
	if (spp >= dom) {
		p->pp_cross = pp - 1;
		return;
	}
	p->pp_cross = last / dom - first / dom;
	for (uint64_t s = 0; s + 1 < pp && s <= dom; s++)
		if ((first + s * spp) / dom == (first + (s + 1) * spp) / dom) {
			p->pp_in_first = first + s * spp;
			break;
		}
}

/* The first rank of the pipeline group that is slowest to cross NVLink
 * domains: the most crossings, and of the groups with as many, the one
 * whose crossings lie nearest its last stage (an independent review found
 * those set the step, up to 19% over a tie's first group at 1 Gb/s).
 * Below a domain's stride each boundary crosses at most one domain's end,
 * so a group starting at residue r mod dom crosses floor((r + L) / dom),
 * L = (pp - 1) spp, the most at the largest residue a group's first rank
 * takes; with as many crossings, the smallest such residue puts them
 * latest. Those first ranks are q + j spp pp, q < spp (stage 0 of each
 * block of pp stages); their residues repeat within dom blocks, so at most
 * dom blocks are looked at. `first` (the first group that crosses one)
 * when every boundary crosses. */
static uint64_t pp_worst_first(const struct dc_plan *p, uint64_t first, uint64_t spp, uint64_t pp)
{
	uint64_t dom = p->net.nvlink_domain ? p->net.nvlink_domain : 1, block = spp * pp, L = (pp - 1) * spp;
	uint64_t blocks = block ? p->topo.world / block : 0, most = 0, want, best = UINT64_MAX, at = first;
	if (spp >= dom || spp == 0)
		return first;
	for (uint64_t j = 0; j < blocks && j < dom; j++) {
		uint64_t t = j * block % dom, top = t + spp - 1 >= dom ? dom - 1 : t + spp - 1;
		if ((top + L) / dom > most)
			most = (top + L) / dom;
	}
	/* the smallest residue with `most` crossings: at least want */
	want = most * dom > L ? most * dom - L : 0;
	for (uint64_t j = 0; j < blocks && j < dom; j++) {
		uint64_t t = j * block % dom, r = UINT64_MAX, q;
		if (t + spp - 1 < dom) { /* residues t .. t + spp - 1 */
			if (t + spp - 1 >= want)
				r = t > want ? t : want;
		} else { /* t .. dom - 1, then 0 .. t + spp - 1 - dom */
			if (want <= t + spp - 1 - dom)
				r = want;
			else if (want <= dom - 1)
				r = t > want ? t : want;
		}
		if (r == UINT64_MAX || r >= best)
			continue;
		q = r >= t ? r - t : r + dom - t; /* the rank's offset in the block's stage 0 */
		best = r;
		at = j * block + q;
	}
	return at;
}

/* pp_hops's figures of a base of the same topology */
static void pp_hops_copy(struct dc_plan *p, const struct dc_plan *base)
{
	p->pp_cross = base->pp_cross;
	p->pp_first = base->pp_first;
	p->pp_in_first = base->pp_in_first;
	p->pp_wrap_cross = base->pp_wrap_cross;
	p->pp_pair_in = base->pp_pair_in;
}

/* The pair of neighbouring stages priced for sends between domains: behind
 * an oversubscribed spine, a pair that crosses a leaf switch with the
 * lowest node bandwidth, where that is lower (every boundary between
 * domains is priced alike, at its slowest; a trial's pp 3 on 48 nodes of
 * 32-node leaves priced stage 0 -> 1, inside leaf 0, for the stage 1 -> 2
 * sends that cross), and DualPipe's mirror pair, stages 0 and pp - 1, of
 * that pair's pipeline (which crosses the same boundary) likewise. A pair
 * (x, x + spp) crosses a leaf boundary B when B - spp <= x < B; of those,
 * x = max(0, B - spp) and the greatest below B not on a last stage (its
 * next rank starts another pipeline), at each boundary of the walk
 * (leaf_walk). */
static void pp_leaf_pair(struct dc_plan *p, uint64_t spp)
{
	struct dc_net_group *pair = &p->group[DC_GROUP_PP_PAIR].net, *mirror = &p->group[DC_GROUP_PP_MIRROR].net;
	uint64_t gpn = p->net.gpus_per_node ? p->net.gpus_per_node : 1, pp = p->topo.degree[DC_AXIS_PP];
	uint64_t nics = p->net.nics_per_node ? p->net.nics_per_node : 1, flows = spp < gpn ? spp : gpn, leaf = 0, n;
	uint64_t block, chosen = UINT64_MAX;
	double bw;
	if (pp < 2 || dc_mul_u64(spp, pp, &block) || !(n = leaf_walk(p, block, &leaf)))
		return;
	bw = dc_net_node_bw(&p->net, pair);
	for (uint64_t k = 1; k <= n; k++)
		for (int end = 0; end < 2; end++) {
			/* both ends of [B - spp, B - 1]: the pair reaching furthest
			 * past B may cross an NVLink domain where the other does not */
			uint64_t b = k * leaf, lo = b > spp ? b - spp : 0, x = end ? b - 1 : lo;
			struct dc_net_group c;
			double cb;
			/* B - 1 on a last stage: that stage's first rank less
			 * one, the previous stage's last, if still within reach */
			if (end && (x / spp) % pp == pp - 1 && (x / spp) * spp > lo)
				x = (x / spp) * spp - 1;
			if ((x / spp) % pp == pp - 1 || x + spp >= p->world)
				continue;
			dc_net_group_progression(&p->net, x, spp, 2, &c);
			if (c.nodes > 1 && nics < gpn) /* as derive_net's pair: the boundary stage's sends */
				c.concurrent = (flows + nics - 1) / nics;
			if (c.cross_leaf && c.nodes > 1 && leaf_slower(&c, cb = dc_net_node_bw(&p->net, &c), pair, bw)) {
				*pair = c;
				bw = cb;
				chosen = x;
			}
		}
	if (chosen != UINT64_MAX) {
		/* the mirror of the chosen pair's pipeline: its stage 0 below
		 * the boundary, its stage pp - 1 past it */
		uint64_t f = chosen - ((chosen / spp) % pp) * spp;
		struct dc_net_group c;
		dc_net_group_progression(&p->net, f, spp * (pp - 1), 2, &c);
		if (c.cross_leaf && dc_net_node_bw(&p->net, &c) < dc_net_node_bw(&p->net, mirror))
			*mirror = c;
	}
}

static void derive_net(const struct dc_config *in, const struct dc_plan *base, struct dc_plan *p)
{
	uint64_t s = p->topo.stride[DC_AXIS_DP], spp = p->topo.stride[DC_AXIS_PP], first = 0;
	if (base && !base->error)
		p->net = base->net;
	else
		dc_net_init(in, &p->net);
	for (int a = 0; a < DC_AXIS_COUNT; a++)
		family_net(p, p->topo.stride[a], p->topo.degree[a], &p->group[a].net);
	if (p->expert_folded) {
		/* derive_expert_links: etp consecutive, ep etp apart, edp etp ep apart */
		family_net(p, 1, p->etp, &p->group[DC_GROUP_ETP].net);
		family_net(p, p->etp, p->ep, &p->group[DC_GROUP_EP].net);
		family_net(p, p->etp * p->ep, p->expert_dp_cp, &p->group[DC_GROUP_EDP].net);
	} else {
		p->group[DC_GROUP_ETP].net = p->group[DC_AXIS_TP].net;
		family_net(p, s, p->ep, &p->group[DC_GROUP_EP].net);
		/* ep 1 (every dense model): the expert-data-parallel family is
		 * dp's own, family_net's call on the same stride and size, so
		 * its shape */
		if (p->ep == 1 && p->expert_dp == p->topo.degree[DC_AXIS_DP]) {
			p->group[DC_GROUP_EDP].net = p->group[DC_AXIS_DP].net;
			DC_MEMO_VERIFY(family_verify(p, s, p->expert_dp, &p->group[DC_GROUP_EDP].net));
		} else {
			family_net(p, s * p->ep, p->expert_dp, &p->group[DC_GROUP_EDP].net);
		}
	}
	p->group[DC_GROUP_DP_CP].net = p->group[DC_AXIS_DP].net;
	p->group[DC_GROUP_EDP_CP].net = p->group[DC_GROUP_EDP].net;
	if (p->layout.cp > 1) {
		/* the dp x cp group: one progression when cp and dp are adjacent
		 * in the order (tp-cp-ep-dp-pp: dp's stride is cp's x cp), a
		 * lattice otherwise; the experts' groups with ep > 1 are folded
		 * (above) */
		uint64_t sc = p->topo.stride[DC_AXIS_CP], cp = p->layout.cp;
		lattice_net(p, sc, cp, s, p->topo.degree[DC_AXIS_DP], &p->group[DC_GROUP_DP_CP].net);
		if (!p->expert_folded) /* ep 1: the dp x cp group */
			p->group[DC_GROUP_EDP_CP].net = p->group[DC_GROUP_DP_CP].net;
	}
	/* the first neighbouring pair of the first pp group that crosses a
	 * domain: stage k with the domain boundary between its rank and the
	 * next */
	if (p->topo.degree[DC_AXIS_PP] > 1 && dc_topology_axis_crosses_domains(&p->topo, DC_AXIS_PP)) {
		struct dc_group g;
		uint64_t dom = p->net.nvlink_domain, k;
		dc_topology_first_domain_crossing(&p->topo, spp, p->topo.degree[DC_AXIS_PP], &g);
		k = spp >= dom ? 0 : ((g.first / dom + 1) * dom - g.first - 1) / spp;
		first = k + 1 < g.size ? g.first + k * spp : g.first;
		pp_hops(p, pp_worst_first(p, g.first, spp, p->topo.degree[DC_AXIS_PP]), spp, p->topo.degree[DC_AXIS_PP]);
	} else {
		p->pp_cross = 0;
		p->pp_wrap_cross = 0;
		p->pp_first = 0;
		p->pp_in_first = 0;
	}
	dc_net_group_progression(&p->net, first, spp, 2, &p->group[DC_GROUP_PP_PAIR].net);
	{
		/* a boundary between nodes carries the boundary stage's ranks
		 * on the node, min(spp, gpn) sends at once (each GPU through
		 * NIC i mod nics), not every GPU of the node: the other stages'
		 * sends stay inside it (a user trial: the course config at tp
		 * 1, pp 8 priced 4 sends through its one NIC where 1 crosses) */
		struct dc_net_group *g = &p->group[DC_GROUP_PP_PAIR].net;
		uint64_t gpn = p->net.gpus_per_node ? p->net.gpus_per_node : 1;
		uint64_t nics = p->net.nics_per_node ? p->net.nics_per_node : 1, flows = spp < gpn ? spp : gpn;
		if (g->nodes > 1 && nics < gpn)
			g->concurrent = (flows + nics - 1) / nics;
	}
	p->pp_pair_in = p->group[DC_GROUP_PP_PAIR].net;
	{
		/* DualPipe's mirror pair: the priced group's stages 0 and pp -
		 * 1 (without a pipeline a neighbouring pair's shape, unread) */
		uint64_t span = spp * (p->topo.degree[DC_AXIS_PP] - 1);
		dc_net_group_progression(&p->net, p->pp_first, span ? span : spp, 2, &p->group[DC_GROUP_PP_MIRROR].net);
	}
	pp_leaf_pair(p, spp);
	if (p->pp_cross > 0 && p->pp_cross + 1 < p->topo.degree[DC_AXIS_PP])
		dc_net_group_progression(&p->net, p->pp_in_first, spp, 2, &p->pp_pair_in);
	derive_ep_levels(in, p);
}

/* HSDP (torchtitan's mesh dp_replicate x dp_shard, the shard inner): a
 * replica's shard group is dp / r consecutive dp ranks (with cp, all their
 * cp ranks: the dp x cp group's first 1 / r), an expert's the first
 * expert_dp / r of its expert-data-parallel group, and the r ranks holding
 * the same shard sit (dp / r) dp-strides apart, for dense and expert
 * states alike (ep (expert_dp / r) = dp / r). With r = 1 the shard groups
 * are the dp x cp groups and no replica group exists. */
static void derive_hsdp(const struct dc_config *in, struct dc_plan *p)
{
	const struct dc_topology *t = &p->topo;
	uint64_t r = p->dp_replicate, s = t->stride[DC_AXIS_DP], dsh = t->degree[DC_AXIS_DP] / r;
	uint64_t cp = p->layout.cp;
	p->group[DC_GROUP_SHARD].link = p->group[DC_GROUP_DP_CP].link;
	p->group[DC_GROUP_ESHARD].link = p->group[DC_GROUP_EDP_CP].link;
	p->group[DC_GROUP_SHARD].net = p->group[DC_GROUP_DP_CP].net;
	p->group[DC_GROUP_ESHARD].net = p->group[DC_GROUP_EDP_CP].net;
	if (r <= 1) {
		link_of(in, DC_LINK_INTRA, &p->group[DC_GROUP_REP].link);
		dc_net_group_progression(&p->net, 0, s, 1, &p->group[DC_GROUP_REP].net);
		p->group[DC_GROUP_EREP].link = p->group[DC_GROUP_REP].link;
		p->group[DC_GROUP_EREP].net = p->group[DC_GROUP_REP].net;
		return;
	}
	link_of(in, family_link(t, s * dsh, r), &p->group[DC_GROUP_REP].link);
	family_net(p, s * dsh, r, &p->group[DC_GROUP_REP].net);
	/* the dense states' shard group */
	if (cp <= 1) {
		link_of(in, family_link(t, s, dsh), &p->group[DC_GROUP_SHARD].link);
		family_net(p, s, dsh, &p->group[DC_GROUP_SHARD].net);
	} else {
		/* as the dp x cp group (derive_expert_links, derive_net): a
		 * lattice of the cp ranks and the dsh dp ranks */
		uint64_t sc = t->stride[DC_AXIS_CP];
		link_of(in, lattice_link(t, sc, cp, s, dsh), &p->group[DC_GROUP_SHARD].link);
		lattice_net(p, sc, cp, s, dsh, &p->group[DC_GROUP_SHARD].net);
	}
	/* the routed experts' shard group and replicas */
	if (p->expert_folded) {
		/* the first expert_dp_cp / r of the expert-data-parallel group
		 * (etp ep apart), its replicas the rest of it */
		uint64_t st = p->etp * p->ep, esz = p->expert_dp_cp / r;
		link_of(in, family_link(t, st, esz), &p->group[DC_GROUP_ESHARD].link);
		link_of(in, family_link(t, st * esz, r), &p->group[DC_GROUP_EREP].link);
		family_net(p, st, esz, &p->group[DC_GROUP_ESHARD].net);
		family_net(p, st * esz, r, &p->group[DC_GROUP_EREP].net);
		return;
	}
	/* ep (expert_dp / r) = dp / r: the experts' replicas are the dense ones */
	p->group[DC_GROUP_EREP].link = p->group[DC_GROUP_REP].link;
	p->group[DC_GROUP_EREP].net = p->group[DC_GROUP_REP].net;
	{
		uint64_t edsh = p->expert_dp / r;
		if (cp <= 1) {
			link_of(in, family_link(t, s * p->ep, edsh), &p->group[DC_GROUP_ESHARD].link);
			family_net(p, s * p->ep, edsh, &p->group[DC_GROUP_ESHARD].net);
		} else {
			/* cp with the shard's expert-data-parallel ranks, ep
			 * dp-strides apart: a lattice */
			uint64_t sc = t->stride[DC_AXIS_CP];
			link_of(in, lattice_link(t, sc, cp, s * p->ep, edsh), &p->group[DC_GROUP_ESHARD].link);
			lattice_net(p, sc, cp, s * p->ep, edsh, &p->group[DC_GROUP_ESHARD].net);
		}
	}
}

/* Every block of one layer, and each rank's share of a layer. */
static void derive_shard(const struct dc_config *in, struct dc_plan *p)
{
	const struct dc_model *m = &in->model;
	const struct dc_param_layer *pt = &p->parts;
	struct dc_plan_shard *sh = &p->shard;
	uint64_t tp = p->layout.tp, norms;
	struct dc_ck c = {0}, pos = {0};

	norms = dc_ck_mul(&c, dc_params_layer_norms(m), pt->norm);
	/* Megatron-LM 2021 section 2.3: linear layers split over tp; norms,
	 * row-parallel biases and MLA down-projections whole on every rank */
	sh->dense_layer = dc_ck_add(&c, dc_ceil_div(dc_ck_add(&c, pt->attention.split, pt->mlp.split), tp),
				    dc_ck_add(&c, dc_ck_add(&c, pt->attention.replicated, pt->mlp.replicated), norms));
	/* MoE layer (Megatron-Core): attention and shared experts split over
	 * tp; num_experts / ep routed experts on this rank, each split over
	 * the expert tp group, etp ranks (Megatron's
	 * --expert-tensor-parallel-size, which defaults to tp);
	 * the router whole */
	sh->layer_experts = dc_ck_mul(&c, m->num_experts / p->ep,
				      dc_ck_add(&c, dc_ceil_div(pt->expert.split, p->etp), pt->expert.replicated));
	sh->moe_layer = dc_ck_add(&c,
				  dc_ck_add(&c, dc_ceil_div(dc_ck_add(&c, pt->attention.split, pt->shared_experts.split), tp),
					    sh->layer_experts),
				  dc_ck_add(&c, dc_ck_add(&c, pt->attention.replicated, pt->shared_experts.replicated),
					    dc_ck_add(&c, pt->router.replicated, norms)));
	sh->linear_dense_layer = sh->linear_moe_layer = sh->mtp = sh->mtp_experts = 0;
	if (m->full_attention_interval) {
		sh->linear_dense_layer =
			dc_ck_add(&c, dc_ceil_div(dc_ck_add(&c, pt->linear_attention.split, pt->mlp.split), tp),
				  dc_ck_add(&c, dc_ck_add(&c, pt->linear_attention.replicated, pt->mlp.replicated), norms));
		sh->linear_moe_layer = dc_ck_add(
			&c,
			dc_ck_add(&c, dc_ceil_div(dc_ck_add(&c, pt->linear_attention.split, pt->shared_experts.split), tp),
				  sh->layer_experts),
			dc_ck_add(&c, dc_ck_add(&c, pt->linear_attention.replicated, pt->shared_experts.replicated),
				  dc_ck_add(&c, pt->router.replicated, norms)));
	}
	if (m->mtp_layers) {
		/* each module a softmax layer (MoE with experts), eh_proj 2h x h
		 * split over tp, enorm, hnorm and its final norm whole */
		uint64_t one = dc_ck_add(&c, m->num_experts ? sh->moe_layer : sh->dense_layer,
					 dc_ck_add(&c, dc_ceil_div(dc_ck_mul(&c, dc_ck_mul(&c, 2, m->hidden_size), m->hidden_size), tp),
						   dc_ck_mul(&c, 3, pt->norm)));
		sh->mtp = dc_ck_mul(&c, m->mtp_layers, one);
		sh->mtp_experts = m->num_experts ? dc_ck_mul(&c, m->mtp_layers, sh->layer_experts) : 0;
	}
	sh->embedding = dc_ceil_div(dc_ck_mul(&c, m->vocab_size, m->hidden_size), tp); /* vocab-parallel */
	sh->position = dc_ck_mul(&pos, m->position_embeddings, m->hidden_size);
	sh->overflow = c.overflow;
	sh->position_overflow = pos.overflow;
}

/* A stage's chunks but the model's first and last: stage 0 and stage pp -
 * 1 give v - 1 chunks to their other layers (dc_stage_runs). */
static uint64_t chunk_base(const struct dc_plan *p, uint64_t stage)
{
	uint64_t n = dc_plan_stage_layers(p, stage), v = p->v;
	if (!p->chunks_uneven)
		return n / v;
	if (stage == 0)
		return (n - p->runs.vfirst) / (v - 1);
	if (stage + 1 == p->layout.pp)
		return (n - p->runs.vlast) / (v - 1);
	return n / v;
}

uint64_t dc_plan_chunk_layers(const struct dc_plan *p, uint64_t stage, uint64_t c)
{
	if (p->v <= 1)
		return dc_plan_stage_layers(p, stage);
	if (!p->chunks_uneven && p->runs.n <= 1)
		return p->layers_per_chunk; /* an even split: L / (pp v) */
	if (p->chunks_uneven && stage == 0 && c == 0)
		return p->runs.vfirst;
	if (p->chunks_uneven && stage + 1 == p->layout.pp && c + 1 == p->v)
		return p->runs.vlast;
	return chunk_base(p, stage);
}

uint64_t dc_plan_chunk_start(const struct dc_plan *p, uint64_t stage, uint64_t c)
{
	uint64_t pp = p->layout.pp, v = p->v, n0, b0, round, start;
	if (v <= 1)
		return dc_plan_stage_first_layer(p, stage);
	if (!p->chunks_uneven && p->runs.n <= 1)
		return (c * pp + stage) * p->layers_per_chunk; /* an even split */
	if (!p->chunks_uneven)
		return (c * pp + stage) * (dc_plan_stage_layers(p, stage) / v);
	/* virtual stages before c pp + stage: c whole rounds of pp chunks
	 * (the first round vfirst - b0 off), then this round's stages before
	 * it: chunk c of stage 0, and the middle stages' n / v each */
	n0 = dc_plan_stage_layers(p, 0);
	b0 = chunk_base(p, 0);
	round = b0 + (dc_plan_stage_first_layer(p, pp - 1) - n0) / v + chunk_base(p, pp - 1);
	start = c * round + (c >= 1 ? p->runs.vfirst : b0) - b0;
	if (stage > 0)
		start += dc_plan_chunk_layers(p, 0, c) + (dc_plan_stage_first_layer(p, stage) - n0) / v;
	return start;
}

uint64_t dc_plan_recomputed_layers(const struct dc_plan *p, uint64_t stage)
{
	uint64_t n = p->in->training.recompute_layers, sum = 0;
	if (p->in->training.recompute != DC_RECOMPUTE_FULL || n == 0)
		return dc_plan_stage_layers(p, stage);
	for (uint64_t c = 0; c < p->v; c++) {
		uint64_t k = dc_plan_chunk_layers(p, stage, c);
		sum += n < k ? n : k;
	}
	return sum;
}

double dc_plan_recompute_share(const struct dc_plan *p)
{
	uint64_t L = p->in->model.num_layers, n = p->in->training.recompute_layers, sum = 0;
	if (p->in->training.recompute != DC_RECOMPUTE_FULL || n == 0 || L == 0)
		return 1.0;
	/* equal chunks: n of each chunk's L / (pp v); uneven stages or
	 * chunks (plan.h runs, chunks_uneven): stage by stage */
	if (!p->chunks_uneven && p->runs.n <= 1) {
		uint64_t lc = p->layers_per_chunk;
		return lc == 0 || n >= lc ? 1.0 : (double)n / (double)lc;
	}
	for (uint64_t s = 0; s < p->layout.pp; s++)
		sum += dc_plan_recomputed_layers(p, s);
	return (double)sum / (double)L;
}

int dc_plan_mtp_recomputed(const struct dc_plan *p)
{
	const struct dc_training *t = &p->in->training;
	return t->recompute == DC_RECOMPUTE_FULL && t->recompute_layers == 0;
}

uint64_t dc_plan_stage_dense_layers(const struct dc_plan *p, uint64_t stage)
{
	uint64_t pc = p->layers_per_chunk, pp = p->layout.pp, v = p->v;
	uint64_t q, r, n = 0;

	if (dc_plan_moe_interleaved(p)) {
		for (uint64_t c = 0; c < v; c++)
			n += dc_plan_dense_in(p, dc_plan_chunk_start(p, stage, c), dc_plan_chunk_layers(p, stage, c));
		return n;
	}
	if (p->chunks_uneven) {
		/* interleaved uneven chunks: each chunk's layers below dense_limit */
		if (p->in->model.params_explicit)
			return dc_plan_stage_layers(p, stage);
		for (uint64_t c = 0; c < v; c++) {
			uint64_t a = dc_plan_chunk_start(p, stage, c), k = dc_plan_chunk_layers(p, stage, c);
			n += p->dense_limit > a ? (p->dense_limit - a < k ? p->dense_limit - a : k) : 0;
		}
		return n;
	}
	if (p->runs.n > 1) {
		/* uneven stages (v = 1): its layers below dense_limit */
		uint64_t first = dc_plan_stage_first_layer(p, stage), layers = dc_plan_stage_layers(p, stage);
		if (p->in->model.params_explicit || p->dense_limit >= first + layers)
			return layers;
		return p->dense_limit > first ? p->dense_limit - first : 0;
	}
	if (p->in->model.params_explicit || !pc)
		return p->layers_per_stage; /* no shape: every layer counts as dense */
	/* chunks 0..q-1 are dense, chunk q holds r dense layers, the rest none */
	q = p->dense_limit / pc;
	r = p->dense_limit % pc;
	if (q >= pp * v)
		return p->layers_per_stage;
	if (stage < q)
		n = pc * ((q - stage - 1) / pp + 1 < v ? (q - stage - 1) / pp + 1 : v);
	if (stage <= q && (q - stage) % pp == 0)
		n += r;
	return n;
}

/* Whether stage s (0 < s < pp) of a shaped model starts a segment: the
 * second and the last stage always (the embedding and the head set the
 * first and last apart), else where its layers or dense layers change.
 * With MoE on every n-th layer two stages of one segment hold the same
 * dense and MoE layers, but their chunks may split them differently and
 * start or end on another kind: the step prices the segment's chunks as
 * its first stage's (docs/step-model.md) */
static int segment_starts(const struct dc_plan *p, uint64_t s)
{
	return s == 1 || s == p->layout.pp - 1 || dc_plan_stage_dense_layers(p, s) != dc_plan_stage_dense_layers(p, s - 1) ||
	       dc_plan_stage_layers(p, s) != dc_plan_stage_layers(p, s - 1);
}

static int derive_stages(const struct dc_config *in, uint64_t pp, struct dc_plan *p);

uint64_t dc_layout_moe_segments(const struct dc_config *in, uint64_t pp, uint64_t v)
{
	struct dc_plan p; /* its stages alone: what the chunk and dense counts read */
	const struct dc_model *m = &in->model;
	uint64_t n = 1;
	int own = pp == in->parallel.pp && dc_stages_uneven(&in->parallel);
	v = v ? v : 1;
	if (!m->num_experts || m->moe_layer_interval <= 1 || m->params_explicit)
		return 0;
	if (!pp || (!own && m->num_layers % pp != 0) || !dc_layout_chunks_fit(in, pp, v))
		return 0; /* another rule refuses the stages */
	memset(&p, 0, sizeof(p));
	p.in = in;
	p.v = v;
	p.layout.pp = pp;
	if (derive_stages(in, pp, &p) != 0)
		return 0;
	for (uint64_t s = 1; s < pp; s++)
		n += (uint64_t)segment_starts(&p, s);
	return n;
}

/* Candidate segment starts, ascending: an insertion sort of at most
 * 2 DC_PLAN_MAX_SEGMENTS */
static void sort_starts(uint64_t *cand, uint64_t n)
{
	for (uint64_t i = 1; i < n; i++)
		for (uint64_t j = i; j > 0 && cand[j - 1] > cand[j]; j--) {
			uint64_t x = cand[j];
			cand[j] = cand[j - 1];
			cand[j - 1] = x;
		}
}

/* DualPipe: rank s runs stage s and stage pp - 1 - s, so ranks alike hold
 * a like pair. Each segment start b brings its mirror pp - b, so that a
 * segment's ranks hold stages of one segment and mirrors of one other
 * (the step's rank classes, the memory's). */
static int mirror_segments(struct dc_plan *p)
{
	uint64_t pp = p->layout.pp, cand[2 * DC_PLAN_MAX_SEGMENTS + 1], n = 0, out = 1;
	for (uint64_t i = 1; i < p->nsegments; i++) {
		cand[n++] = p->segment_first[i];
		cand[n++] = pp - p->segment_first[i];
	}
	sort_starts(cand, n);
	for (uint64_t i = 0; i < n; i++) {
		if (cand[i] == 0 || cand[i] >= pp || cand[i] == p->segment_first[out - 1])
			continue;
		if (out == DC_PLAN_MAX_SEGMENTS) {
			p->error = "'parallel.pipeline_layers': under DualPipe the ranks hold more than 20 different pairs of stages (rank s holds stages s and pp - 1 - s)";
			return -1;
		}
		p->segment_first[out++] = cand[i];
	}
	p->nsegments = out;
	p->segment_first[out] = pp;
	return 0;
}

/* Segments of identical parameters: stages differ by being first or last
 * and by their dense layers, which change only around the stage holding
 * the chunk that is partly dense (plan.h). */
static int derive_segments(struct dc_plan *p)
{
	uint64_t pp = p->layout.pp, pc = p->layers_per_chunk, n = 1;
	uint64_t cand[DC_PLAN_MAX_SEGMENTS + 1], ncand = 0;

	p->segment_first[0] = 0;
	if (dc_plan_moe_interleaved(p)) {
		/* MoE on every n-th layer: the stages' MoE counts may change
		 * anywhere, so every stage is looked at (O(pp v runs)); the
		 * layout rules keep them within DC_PLAN_MAX_SEGMENTS
		 * (dc_layout_moe_segments) */
		for (uint64_t s = 1; s < pp; s++) {
			if (!segment_starts(p, s))
				continue;
			if (n == DC_PLAN_MAX_SEGMENTS) {
				p->error = "'parallel.pp': with MoE on every n-th layer (model.moe_layer_interval) the stages hold more than 20 different mixes of dense and MoE layers";
				return -1;
			}
			p->segment_first[n++] = s;
		}
		p->nsegments = n;
		p->segment_first[n] = pp;
		if (p->schedule == DC_PIPE_DUALPIPE && mirror_segments(p) != 0)
			return -1;
		n = p->nsegments;
		for (uint64_t i = 0; i < n; i++)
			p->segment_overflow[i] =
				dc_stage_params_compute(p, p->segment_first[i], &p->segment_params[i]) != 0;
		return 0;
	}
	cand[ncand++] = 1;
	if (p->runs.n > 1 || p->chunks_uneven) {
		/* uneven: every run boundary, and around the stage holding
		 * layer dense_limit (the only one partly dense) */
		for (uint64_t i = 1; i < p->runs.n; i++)
			cand[ncand++] = p->runs.first[i];
		if (!p->in->model.params_explicit && p->dense_limit < p->in->model.num_layers) {
			uint64_t i = 0, b = 0;
			if (p->v > 1) {
				/* interleaved: the stage whose chunk holds layer
				 * dense_limit (virtual stages in model order) */
				for (uint64_t k = 0; k < pp * p->v; k++) {
					uint64_t st = k % pp, c = k / pp, a = dc_plan_chunk_start(p, st, c);
					if (a <= p->dense_limit && p->dense_limit < a + dc_plan_chunk_layers(p, st, c)) {
						b = st;
						break;
					}
				}
			} else {
				while (i + 1 < p->runs.n && p->runs.layer_start[i + 1] <= p->dense_limit)
					i++;
				b = p->runs.first[i] + (p->dense_limit - p->runs.layer_start[i]) / p->runs.layers[i];
			}
			cand[ncand++] = b;
			cand[ncand++] = b + 1;
		}
	} else if (pc && !p->in->model.params_explicit && p->dense_limit / pc < pp * p->v) {
		uint64_t b = p->dense_limit / pc % pp;
		cand[ncand++] = b;
		cand[ncand++] = b + 1;
	}
	cand[ncand++] = pp - 1;
	sort_starts(cand, ncand);
	/* each once, each a real change from the stage before it */
	for (uint64_t i = 0; i < ncand; i++) {
		uint64_t s = cand[i];
		if (s == 0 || s >= pp || s == p->segment_first[n - 1])
			continue;
		/* an explicit count puts no embedding on stage 0, and without
		 * dropout it keeps no embedding mask: stage 0 is stage 1 */
		if (s == 1 && s != pp - 1 && p->in->model.params_explicit && p->act.embedding_bytes == 0 &&
		    dc_plan_stage_dense_layers(p, 1) == dc_plan_stage_dense_layers(p, 0) &&
		    dc_plan_stage_layers(p, 1) == dc_plan_stage_layers(p, 0))
			continue;
		if (s == 1 || s == pp - 1 || dc_plan_stage_dense_layers(p, s) != dc_plan_stage_dense_layers(p, s - 1) ||
		    dc_plan_stage_layers(p, s) != dc_plan_stage_layers(p, s - 1))
			p->segment_first[n++] = s;
	}
	p->nsegments = n;
	p->segment_first[n] = pp;
	if (p->schedule == DC_PIPE_DUALPIPE && mirror_segments(p) != 0)
		return -1;
	for (uint64_t i = 0; i < p->nsegments; i++)
		p->segment_overflow[i] = dc_stage_params_compute(p, p->segment_first[i], &p->segment_params[i]) != 0;
	return 0;
}

uint64_t dc_plan_stage_every(const struct dc_plan *p, uint64_t stage, uint64_t every)
{
	uint64_t n = 0;
	if (!every)
		return 0;
	for (uint64_t c = 0; c < p->v; c++)
		n += dc_params_every(dc_plan_chunk_start(p, stage, c), dc_plan_chunk_layers(p, stage, c), every);
	return n;
}

uint64_t dc_plan_stage_segment(const struct dc_plan *p, uint64_t stage)
{
	uint64_t i = 0;
	while (i + 1 < p->nsegments && p->segment_first[i + 1] <= stage)
		i++;
	return i;
}

const struct dc_stage_params *dc_plan_stage_params(const struct dc_plan *p, uint64_t stage)
{
	uint64_t i = dc_plan_stage_segment(p, stage);
	return p->segment_overflow[i] ? NULL : &p->segment_params[i];
}

/* Stages 0..flat_last hold the same microbatches in flight: 1F1B keeps
 * min(pp - s, m) (dc_pipeline_in_flight), m on stages s <= pp - m and a
 * different count on every later one. The interleaved schedule keeps
 * min((v + 1) pp - 2s - 1, m v) chunks (dc_act_layer_microbatches), and
 * at s = pp - m the first is (v - 1)(pp - m) + m - 1 + m v >= m v: its cap
 * holds across the same stages, so they share the layer-microbatches as
 * well. ZB-H1 adds each stage's deferred weight gradients, which grow
 * with s inside that region when a W holds more than a microbatch's
 * layers keep (recompute: activation.h dc_pipeline_zb_deferred): no flat
 * region, every stage its own class. */
static void derive_classes(struct dc_plan *p)
{
	uint64_t pp = p->layout.pp, m = dc_layout_schedule_m(&p->layout), k = 0;
	int zb = p->schedule_set && p->schedule == DC_PIPE_ZERO_BUBBLE;
	uint64_t t = pp > 1 && m < pp && !zb ? pp - m : 0;

	while (k < p->nsegments && p->segment_first[k] <= t)
		k++;
	p->flat_last = t;
	p->flat_classes = k;
	p->nclasses = k + (pp - 1 - t);
}

void dc_plan_class_stages(const struct dc_plan *p, uint64_t i, uint64_t *first, uint64_t *last)
{
	if (i < p->flat_classes) {
		uint64_t end = p->segment_first[i + 1] - 1;
		*first = p->segment_first[i];
		*last = end < p->flat_last ? end : p->flat_last;
	} else {
		*first = *last = p->flat_last + 1 + (i - p->flat_classes);
	}
}

uint64_t dc_plan_stage_class(const struct dc_plan *p, uint64_t stage)
{
	if (stage > p->flat_last)
		return p->flat_classes + (stage - p->flat_last - 1);
	return dc_plan_stage_segment(p, stage); /* the flat region's classes are its segments */
}

/* The stages' layers of `in` at pipeline degree pp and p->v: p's
 * layers_per_stage, layers_per_chunk, runs and chunks_uneven (the input's
 * own split when pp is its own, else even). Reads p->v alone. Returns 0,
 * or -1 with p->error set. */
static int derive_stages(const struct dc_config *in, uint64_t pp, struct dc_plan *p)
{
	const struct dc_model *m = &in->model;
	p->layers_per_stage = m->num_layers / pp;
	p->layers_per_chunk = p->layers_per_stage / p->v;
	/* the input's own split when the layout keeps its pp, else even */
	p->runs.n = 0;
	p->chunks_uneven = 0;
	if (pp == in->parallel.pp && dc_stages_uneven(&in->parallel)) {
		const char *key;
		char err[8];
		/* at the layout's v (a what-if's or the search's may differ) */
		int rc = dc_stage_split(&in->parallel, m->num_layers, p->v, &p->runs, &key, err, sizeof(err));
		if (rc != 0) {
			p->error = "'parallel.pipeline_layers': the stages do not hold model.num_layers";
			return -1;
		}
		if (p->runs.n == 1) {
			p->layers_per_stage = p->runs.layers[0];
			p->layers_per_chunk = p->layers_per_stage / p->v;
		}
		/* interleaved chunks other than an even split of every stage */
		p->chunks_uneven = p->v > 1 && (p->runs.n > 1 || p->runs.vfirst * p->v != p->runs.layers[0] ||
						 p->runs.vlast * p->v != p->runs.layers[0]);
	}
	return 0;
}

static int derive(const struct dc_config *in, const struct dc_layout *lay, const struct dc_plan *base,
		  struct dc_plan *p)
{
	const struct dc_model *m = &in->model;
	struct dc_ck c = {0};

	/* every member is set below (no memset: a search derives millions) */
	p->error = NULL;
	p->schedule_set = 0; /* set once the layout and the stages are */
	p->seed = base ? base->seed : 0;
	p->net_memo = base ? base->net_memo : NULL;
	p->step_memo = base ? base->step_memo : NULL;
	p->mem_memo = base ? base->mem_memo : NULL;
	p->comm_memo = base ? base->comm_memo : NULL;
	p->step_rank_only = base ? base->step_rank_only : 0;
	p->in = in;
	p->layout = *lay;
	p->num_nodes = in->cluster.num_nodes;
	p->ep = lay->ep ? lay->ep : 1;
	p->v = lay->virtual_pipeline ? lay->virtual_pipeline : 1;
	p->layout.ep = p->ep;
	p->layout.virtual_pipeline = p->v;
	p->layout.cp = lay->cp ? lay->cp : 1;
	p->world = dc_ck_mul(&c, dc_ck_mul(&c, dc_ck_mul(&c, lay->tp, lay->pp), lay->dp), p->layout.cp);
	if (c.overflow || p->world == 0 || p->world > DC_MAX_WORLD) {
		p->error = "'parallel': dp x tp x cp x pp must be between 1 and 2^24 ranks";
		return -1;
	}
	p->etp = lay->etp ? lay->etp : lay->tp;
	p->expert_folded = dc_layout_expert_folded(&p->layout);
	p->dp_cp = lay->dp * p->layout.cp;
	if (!p->expert_folded) {
		/* ep carved out of dp, experts split over tp (Megatron-Core
		 * before folding, and its default etp = tp) */
		p->expert_dp = lay->dp / p->ep;
		p->expert_dp_cp = p->expert_dp * p->layout.cp;
	} else {
		/* folded: the stage's tp cp dp ranks regrouped as etp x ep x
		 * edp; cp is one of the regrouped axes */
		uint64_t ranks = lay->tp * p->dp_cp, ee = p->ep * p->etp;
		if (ee == 0 || ranks % ee != 0) {
			p->error = "'parallel.ep' x 'parallel.etp': ep x etp must divide tp x dp x cp";
			return -1;
		}
		p->expert_dp = p->expert_dp_cp = ranks / ee;
	}
	p->dp_replicate = lay->dp_replicate ? lay->dp_replicate : 1;
	if (lay->dp % p->dp_replicate != 0 || p->expert_dp % p->dp_replicate != 0) {
		p->error = "'parallel.dp_replicate': must divide parallel.dp and the expert-data-parallel ranks";
		return -1;
	}
	p->layout.dp_replicate = p->dp_replicate;
	p->shard_dp_cp = p->dp_cp / p->dp_replicate;
	p->expert_shard_dp_cp = p->expert_dp_cp / p->dp_replicate;
	if (derive_stages(in, lay->pp, p) != 0)
		return -1;
	p->schedule = dc_layout_schedule(in, &p->layout, p->runs.n <= 1);
	p->schedule_set = 1;
	p->dense_limit = m->num_experts ? m->dense_layers : m->num_layers;
	/* MoE every n-th layer (Llama 4): the dense layers are no prefix of
	 * the model, and dense_limit is their count alone; a stage's or a
	 * chunk's come from dc_plan_dense_in */
	if (m->num_experts && m->moe_layer_interval > 1)
		p->dense_limit = m->num_layers - dc_params_moe_layers(m);
	p->tokens_per_microbatch = dc_ck_mul(&c, lay->micro_batch_size, m->seq_length);
	p->seq_per_cp_rank = m->seq_length / p->layout.cp;
	p->tokens_per_microbatch_cp = p->tokens_per_microbatch / p->layout.cp;
	p->tokens_per_microbatch_rank = lay->sequence_parallel ? dc_ceil_div(p->tokens_per_microbatch_cp, lay->tp)
							       : p->tokens_per_microbatch_cp;
	if (c.overflow) {
		p->error = "'training.micro_batch_size' x 'model.seq_length': tokens per microbatch overflow 64 bits";
		return -1;
	}
	int same_topo = base && base->layout.tp == lay->tp && base->layout.pp == lay->pp &&
			base->layout.dp == lay->dp && base->layout.cp == p->layout.cp;
	if (same_topo) {
		p->topo = base->topo;
		for (int a = 0; a < DC_AXIS_COUNT; a++)
			p->group[a].link = base->group[a].link;
	} else {
		derive_topology(in, lay, p);
	}
	{
		int outer = lay->pp <= 1 || p->topo.stride[DC_AXIS_PP] * lay->pp == p->world;
		const char *why = dc_layout_expert_error(&p->layout, m->num_experts, outer);
		if (why) {
			p->error = why;
			return -1;
		}
	}
	int same_net = same_topo && !base->error && base->ep == p->ep && base->etp == p->etp &&
		       base->expert_folded == p->expert_folded && base->expert_dp == p->expert_dp &&
		       base->expert_dp_cp == p->expert_dp_cp;
	if (same_net && base->dp_replicate == p->dp_replicate) {
		/* what derive_expert_links, derive_net and derive_hsdp read is
		 * the base's (the input's cluster, the topology, the expert, cp
		 * and replica degrees): its network and every group */
		p->net = base->net;
		for (int g = 0; g < DC_GROUP_COUNT; g++)
			p->group[g] = base->group[g];
		pp_hops_copy(p, base);
	} else {
		derive_expert_links(in, p);
		if (same_net) {
			/* what derive_net reads is the base's (the input's
			 * cluster, the topology, the expert and cp degrees): its
			 * network and groups */
			static const enum dc_group_id from_net[] = {DC_GROUP_ETP, DC_GROUP_EP, DC_GROUP_EDP,
								    DC_GROUP_DP_CP, DC_GROUP_EDP_CP, DC_GROUP_PP_PAIR,
								    DC_GROUP_PP_MIRROR};
			p->net = base->net;
			for (int a = 0; a < DC_AXIS_COUNT; a++)
				p->group[a].net = base->group[a].net;
			for (size_t i = 0; i < sizeof(from_net) / sizeof(from_net[0]); i++)
				p->group[from_net[i]].net = base->group[from_net[i]].net;
			/* DeepEP's levels: link and shape, both of the EP group's */
			p->group[DC_GROUP_EP_NODES] = base->group[DC_GROUP_EP_NODES];
			p->group[DC_GROUP_EP_LOCAL] = base->group[DC_GROUP_EP_LOCAL];
			pp_hops_copy(p, base);
		} else {
			derive_net(in, base, p);
			/* the memo the base lent holds the prices of the network
			 * it was bound to: kept only when this plan's network is
			 * the same (dc_net_time_memo answers for its bound network
			 * only) */
			if (p->net_memo && memcmp(&p->net, &p->net_memo->net, sizeof(p->net)) != 0)
				p->net_memo = NULL;
		}
		derive_hsdp(in, p);
	}

	if (base) {
		p->parts = base->parts;
		p->terms = base->terms;
	} else if (dc_params_layer(m, &p->parts) != 0 || dc_params_terms_of(m, &p->parts, &p->terms) != 0) {
		p->error = "'model': the parameter count of this shape overflows 64 bits; check hidden_size, ffn_hidden_size, vocab_size, num_layers and the expert sizes";
		return -1;
	}
	/* an explicit count carries no shape: its active part is unknown */
	p->params_total = m->params_explicit ? m->params : p->terms.total;
	p->params_active = m->params_explicit ? m->params : p->terms.active;
	derive_shard(in, p);
	dc_act_plan_compute(p, &p->act);
	if (derive_segments(p) != 0)
		return -1;
	derive_classes(p);
	p->most_overflow = dc_stage_params_most_loaded(p, &p->most, &p->most_stage) != 0;

	/* the ring lab: all ranks, the most loaded rank's gradient (its tp
	 * and ep shard of the stage holding the most parameters) */
	p->ring_ranks = in->collective.ranks ? in->collective.ranks : p->world;
	p->ring_msg_bytes = in->collective.msg_bytes;
	if (!p->ring_msg_bytes &&
	    (p->most_overflow || dc_mul_u64(p->most.total, in->precision.grad_bytes, &p->ring_msg_bytes))) {
		p->error = "'collective.message_size': default gradient bytes overflow";
		return -1;
	}
	p->ring_link.choice = dc_ring_pick_link(in, p->ring_ranks, &p->ring_link.params);
	return 0;
}

int dc_plan_derive_layout(const struct dc_config *in, const struct dc_layout *lay, struct dc_plan *p)
{
	return derive(in, lay, NULL, p);
}

/* Whether a and b differ at most in their sharding, which nothing in a
 * plan depends on. Every other field of struct dc_layout is compared,
 * the expert split as derive reads it (etp 0 is tp): a tp 1 layout of
 * etp 2 and the whole-expert one (etp 0) differ in every expert group. */
static int same_but_sharding(const struct dc_layout *a, const struct dc_layout *b)
{
	uint64_t etp_a = a->etp ? a->etp : a->tp, etp_b = b->etp ? b->etp : b->tp;
	return a->tp == b->tp && a->pp == b->pp && a->dp == b->dp && a->cp == b->cp && a->ep == b->ep &&
	       a->dp_replicate == b->dp_replicate && a->virtual_pipeline == b->virtual_pipeline &&
	       a->sequence_parallel == b->sequence_parallel && a->micro_batch_size == b->micro_batch_size &&
	       a->grad_accum_steps == b->grad_accum_steps && dc_layout_schedule_m(a) == dc_layout_schedule_m(b) &&
	       etp_a == etp_b;
}

/* lay with its 0s read as derive reads them (p->layout's) */
static void layout_norm(const struct dc_layout *lay, struct dc_layout *norm)
{
	*norm = *lay;
	norm->ep = lay->ep ? lay->ep : 1;
	norm->cp = lay->cp ? lay->cp : 1;
	norm->virtual_pipeline = lay->virtual_pipeline ? lay->virtual_pipeline : 1;
	norm->dp_replicate = lay->dp_replicate ? lay->dp_replicate : 1;
}

#ifdef DISTCALC_VERIFY_MEMOS
#define PF(m) DC_MEMO_FIELD(struct dc_plan, m)
/* Every member derive sets but the borrowed memos and the seed (a
 * derived plan's are its base's); the stage runs, the segment arrays and
 * the groups apart (only runs.n and nsegments of them are set; the
 * groups have padding) */
static const struct dc_memo_field plan_fields[] = {
	PF(in), PF(topo.world), PF(topo.gpus_per_node), PF(topo.nvlink_domain), PF(topo.degree), PF(topo.stride), PF(topo.order),
	PF(num_nodes), PF(ep), PF(etp), PF(expert_folded), PF(params_total), PF(params_active), PF(ring_ranks),
	PF(ring_msg_bytes), PF(error), PF(layout), PF(world), PF(expert_dp), PF(v), PF(layers_per_stage),
	PF(layers_per_chunk), PF(runs.n), PF(chunks_uneven), PF(schedule), PF(schedule_set), PF(dp_cp),
	PF(expert_dp_cp), PF(dp_replicate), PF(shard_dp_cp), PF(expert_shard_dp_cp), PF(dense_limit),
	PF(tokens_per_microbatch), PF(seq_per_cp_rank), PF(tokens_per_microbatch_cp), PF(tokens_per_microbatch_rank),
	PF(terms), PF(parts), PF(shard), PF(act), PF(net), PF(ring_link.choice), PF(ring_link.params), PF(nsegments),
	PF(flat_last), PF(flat_classes), PF(nclasses), PF(most), PF(most_stage), PF(most_overflow),
	PF(pp_cross), PF(pp_first), PF(pp_in_first), PF(pp_wrap_cross),
};
#undef PF

static const struct dc_memo_field group_fields[] = {
	DC_MEMO_FIELD(struct dc_plan_group, link.choice),
	DC_MEMO_FIELD(struct dc_plan_group, link.params),
	DC_MEMO_FIELD(struct dc_plan_group, net.ranks),
	DC_MEMO_FIELD(struct dc_plan_group, net.nodes),
	DC_MEMO_FIELD(struct dc_plan_group, net.ranks_per_node),
	DC_MEMO_FIELD(struct dc_plan_group, net.ranks_least),
	DC_MEMO_FIELD(struct dc_plan_group, net.rails),
	DC_MEMO_FIELD(struct dc_plan_group, net.concurrent),
	DC_MEMO_FIELD(struct dc_plan_group, net.cross_leaf),
};

static const struct dc_memo_field net_fields[] = {
	DC_MEMO_FIELD(struct dc_net_group, ranks),	    DC_MEMO_FIELD(struct dc_net_group, nodes),
	DC_MEMO_FIELD(struct dc_net_group, ranks_per_node), DC_MEMO_FIELD(struct dc_net_group, ranks_least),
	DC_MEMO_FIELD(struct dc_net_group, rails),	    DC_MEMO_FIELD(struct dc_net_group, concurrent),
	DC_MEMO_FIELD(struct dc_net_group, cross_leaf),
};

/* A plan that reused another's work (resharded, copied, or derived from
 * a base whose topology and network it kept) against the plan derived
 * from its input and layout alone */
static void plan_verify(const char *memo, const struct dc_plan *p)
{
	/* not dc_malloc: outside the allocations a test counts or fails */
	struct dc_plan *fresh = malloc(sizeof(*fresh));
	char what[48];
	if (!fresh)
		abort(); /* a debug build's check: no way on without it */
	if (derive(p->in, &p->layout, NULL, fresh) != 0)
		dc_memo_verify_u64(memo, "derive's return", 0, (uint64_t)-1);
	dc_memo_verify_fields(memo, "plan", p, fresh, plan_fields, sizeof(plan_fields) / sizeof(plan_fields[0]));
	for (uint64_t i = 0; i < p->runs.n && i < DC_MAX_PIPELINE_RUNS; i++) {
		snprintf(what, sizeof(what), "plan.runs[%llu]", (unsigned long long)i);
		dc_memo_verify_u64(memo, what, p->runs.first[i], fresh->runs.first[i]);
		dc_memo_verify_u64(memo, what, p->runs.layers[i], fresh->runs.layers[i]);
		dc_memo_verify_u64(memo, what, p->runs.layer_start[i], fresh->runs.layer_start[i]);
	}
	if (p->runs.n > 0) {
		dc_memo_verify_u64(memo, "plan.runs.first[n]", p->runs.first[p->runs.n], fresh->runs.first[p->runs.n]);
		dc_memo_verify_u64(memo, "plan.runs.v", p->runs.v, fresh->runs.v);
		dc_memo_verify_u64(memo, "plan.runs.vfirst", p->runs.vfirst, fresh->runs.vfirst);
		dc_memo_verify_u64(memo, "plan.runs.vlast", p->runs.vlast, fresh->runs.vlast);
	}
	for (int g = 0; g < DC_GROUP_COUNT; g++) {
		/* the pipeline pairs' link is group[DC_AXIS_PP]'s, their own unset */
		size_t skip = g == DC_GROUP_PP_PAIR || g == DC_GROUP_PP_MIRROR ? 2 : 0;
		snprintf(what, sizeof(what), "plan.group[%d]", g);
		dc_memo_verify_fields(memo, what, &p->group[g], &fresh->group[g], group_fields + skip,
				      sizeof(group_fields) / sizeof(group_fields[0]) - skip);
	}
	dc_memo_verify_fields(memo, "plan.pp_pair_in", &p->pp_pair_in, &fresh->pp_pair_in, net_fields,
			      sizeof(net_fields) / sizeof(net_fields[0]));
	for (uint64_t i = 0; i <= p->nsegments && i <= DC_PLAN_MAX_SEGMENTS; i++) {
		snprintf(what, sizeof(what), "plan.segment_first[%llu]", (unsigned long long)i);
		dc_memo_verify_u64(memo, what, p->segment_first[i], fresh->segment_first[i]);
		if (i == p->nsegments || i == DC_PLAN_MAX_SEGMENTS)
			break;
		snprintf(what, sizeof(what), "plan.segment_params[%llu]", (unsigned long long)i);
		dc_memo_verify_bytes(memo, what, &p->segment_params[i], &fresh->segment_params[i],
				     sizeof(p->segment_params[i]), NULL, 0);
		snprintf(what, sizeof(what), "plan.segment_overflow[%llu]", (unsigned long long)i);
		dc_memo_verify_u64(memo, what, (uint64_t)p->segment_overflow[i], (uint64_t)fresh->segment_overflow[i]);
	}
	free(fresh);
}
#endif

int dc_plan_reshard(struct dc_plan *p, const struct dc_layout *lay)
{
	struct dc_layout norm;
	layout_norm(lay, &norm);
	if (p->error || !same_but_sharding(&p->layout, &norm) || p->layout.etp != norm.etp)
		return 0;
	p->layout.sharding = lay->sharding;
	DC_MEMO_VERIFY(plan_verify("a plan resharded (src/plan/plan.c dc_plan_reshard)", p));
	return 1;
}

int dc_plan_derive_copies(const struct dc_plan *base, const struct dc_layout *lay)
{
	struct dc_layout norm;
	layout_norm(lay, &norm);
	return !base->error && same_but_sharding(&base->layout, &norm);
}

int dc_plan_derive_from(const struct dc_plan *base, const struct dc_layout *lay, struct dc_plan *p)
{
	int rc;
	if (dc_plan_derive_copies(base, lay)) {
		*p = *base;
		p->layout.sharding = lay->sharding;
		DC_MEMO_VERIFY(plan_verify("a plan copied from its base (src/plan/plan.c dc_plan_derive_from)", p));
		return 0;
	}
	rc = derive(base->in, lay, base, p);
	if (rc == 0)
		DC_MEMO_VERIFY(plan_verify("a plan derived on its base's topology and network (src/plan/plan.c)", p));
	return rc;
}

int dc_plan_derive(const struct dc_config *in, struct dc_plan *p)
{
	struct dc_layout lay;
	dc_layout_of(in, &lay);
	return derive(in, &lay, NULL, p);
}
