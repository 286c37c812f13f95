/* step.c - the step time: schedule, overlap, critical path; see step.h and
 * docs/step-model.md. */
#include "distcalc/step.h"

#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "distcalc/framework.h"
#include "distcalc/memo_verify.h"
#include "distcalc/plan.h"
#include "distcalc/util.h"

/* ---- the stage's layers (one helper: seams item 6) ---- */

/* Model chunk `c` of pipeline rank `stage` under the plan's schedule
 * (activation.h: interleaved chunks, DualPipe's mirror stage, DualPipeV's
 * V), with its dense-MLP layers (dc_plan_dense_in: the model's first
 * dense_limit, or with MoE on every n-th layer interleaved with the MoE
 * ones) and the kinds of its first and last layer (1: MoE), which a
 * forward and a backward run first. */
struct chunk {
	struct dc_pipeline_chunk at;
	uint64_t dense;
	int moe_first, moe_last;
	/* of its layers, those kept in BF16 under compute FP8
	 * (dc_plan_bf16_in), of them dense, and whether its first and its
	 * last layer is one */
	uint64_t bf16, bf16_dense;
	int bf16_first, bf16_last;
};

static void chunk_of(const struct dc_plan *p, uint64_t stage, uint64_t c, struct chunk *o)
{
	dc_pipeline_chunk(p, stage, c, &o->at);
	o->dense = dc_plan_dense_in(p, o->at.first_layer, o->at.layers);
	if (dc_plan_moe_interleaved(p) && o->at.layers) {
		o->moe_first = dc_plan_dense_in(p, o->at.first_layer, 1) == 0;
		o->moe_last = dc_plan_dense_in(p, o->at.first_layer + o->at.layers - 1, 1) == 0;
	} else {
		/* dense first: the first is MoE when none is dense, the last
		 * when any is MoE */
		o->moe_first = o->dense == 0;
		o->moe_last = o->at.layers > o->dense;
	}
	o->bf16 = dc_plan_bf16_in(p, o->at.first_layer, o->at.layers, &o->bf16_dense);
	o->bf16_first = o->bf16_last = 0;
	if (o->bf16) {
		uint64_t d;
		o->bf16_first = dc_plan_bf16_in(p, o->at.first_layer, 1, &d) != 0;
		o->bf16_last = dc_plan_bf16_in(p, o->at.first_layer + o->at.layers - 1, 1, &d) != 0;
	}
}

/* ---- what each op costs ---- */

/* The pipeline's sends by boundary (docs/step-model.md, "A send's
 * time"): boundary s < p - 1 lies between stages s and s + 1 of the
 * pipeline group analysed, stage s on rank first + s stride; it crosses
 * an NVLink domain of `dom` ranks (every one when stride >= dom) and
 * costs `x`, else `in`; boundary p - 1 is the wrap from the last stage
 * back to the first (interleaving's), `x` when `wrap`. One price for
 * every boundary: in = x, stride >= dom. */
struct sends {
	double in, x;
	uint64_t first, stride, dom;
	uint64_t wrap; /* no padding: the sim memo compares it whole */
};

/* Per-layer, per-microbatch communication read from the comm result, and
 * the overlap switches. */
struct costs {
	const struct dc_plan *p;
	const struct dc_compute *c;
	/* the TP members below indexed by the layer's kind, [0] dense and
	 * [1] MoE (tp.c: a MoE layer's MLP may take no TP pair) */
	double tp_f[2], tp_b[2];     /* one layer's TP collectives, forward / backward */
	double tp_b_async[2];        /* of tp_b: what Megatron runs behind the backward's GEMMs */
	/* of tp_b_async, per layer and microbatch, by the column-parallel
	 * linear whose backward issues it ([kind][0] the attention's, [1] the
	 * MLP's: compute.h tp_col_dgrad_s): the input-gradient AllReduce or
	 * ReduceScatter (behind that linear's weight-gradient GEMM) and the
	 * input's re-gather (behind its input-gradient GEMM; tp_async_inline) */
	double as_grad[2][2], as_regather[2][2];
	double tp_f_inline[2], tp_b_inline[2]; /* of tp_f, tp_b: DC_OVL_INLINE calls, never hidden (FP8 amax reductions) */
	/* the model's ends, not a layer's, a microbatch's (tp.c ends_calls,
	 * loss_reduces): the head's input gathered and the loss's
	 * AllReduces, waited for; the head's input gradient and its input's
	 * re-gather, behind the head's own GEMMs where the framework's output
	 * layer runs them asynchronously (ends_async: tp_head_shown); the
	 * embedding's output call and its gradient's gather, waited for */
	double tp_head_in_f, tp_loss_f, tp_head_grad_b, tp_head_regather_b, tp_emb_f, tp_emb_b;
	int ends_async;
	/* the head's too: a microbatch's MTP modules (comm.h mtp_layers), the
	 * eh_proj's TP calls (tp.c mtp_eh_proj), waited for, and their layers'
	 * collectives as a layer of their kind pays them, beside the kernels
	 * the head's work holds already (mtp_layers_cost) */
	double tp_mtp_f, tp_mtp_b;
	uint64_t mtp;
	int mtp_moe;
	double ep_f, ep_b;           /* one MoE layer's AlltoAlls */
	double ag_f, ag_b, rs_b;     /* one FSDP unit's gathers and reduce-scatter */
	/* of ag_b + rs_b, the network calls the busiest link carries: the
	 * gather and the reduce-scatter (HSDP's AllReduce) run at once on
	 * streams of their own but share a link they both cross
	 * (fsdp_busiest_link) */
	double fs_busy_b;
	/* torchtitan's embedding unit, a microbatch: its forward gather,
	 * before the embedding, and its ReduceScatter, after the embedding's
	 * backward (pp 1; under a pipeline in fsdp_tail_s), both waited for */
	double emb_ag_f, emb_rs;
	double fsdp_tail_s;          /* pp > 1: the stage's reduce-scatters after its last backward */
	int fsdp_tail_ar;            /* ... with AllReduces among them (HSDP's replicas, DualPipe's mirror) */
	/* DeepSpeed ZeRO-3 offload (zero3_host_copies): a step's host-link
	 * copies on the gather and reduce streams, also in ag_f, ag_b, rs_b */
	double host_param_s, host_grad_s;
	double host_ag_f, host_ag_b, host_rs_b; /* of ag_f, ag_b, rs_b: those copies */
	double cp_f, cp_b;           /* one layer's context-parallel exchange the compute waits for */
	double cpr_f, cpr_b;         /* and its ring's sends, behind the layer's kernels (DC_OVL_RING) */
	/* the link each axis's calls cross (its slowest group's: comm.h),
	 * DC_LINK_AUTO for an axis out of play: a side stream shares its
	 * link with the layer's other calls on it (layer_cost) */
	enum dc_link_choice lk_tp, lk_ep, lk_cp, lk_fs;
	double send_s;               /* one pipeline send, the slowest boundary's */
	struct sends snd;            /* the sends by boundary (send_s: the slower of in and x) */
	int ov_fsdp, ov_dp;
	enum dc_tp_overlap tp_mode; /* framework.h: how TP meets the GEMMs */
	/* DC_TP_TILED: one call of each TP collective, per layer and
	 * microbatch (a dense layer's two of each: attention's and the MLP's;
	 * a MoE layer's n_*: attention's and its MLP's, tp.c), and the GEMM
	 * each is tiled beside (tp_pair_gemms) */
	double c_ag_f[2], c_rs_f[2], c_gbar_b[2], c_rs_b[2], c_regather_b[2];
	double n_ag_f[2], n_rs_f[2], n_gbar_b[2], n_rs_b[2], n_regather_b[2];
	double tp_b_exposed[2];        /* of tp_b: what is always waited for (a recomputed forward's) */
	double g_qkv, g_o, g_fc1, g_fc2; /* a dense layer's TP-paired GEMMs, forward, one each */
	double tiles;                  /* tp: the tiles each collective is cut into */
	int te;                        /* megatron: Transformer Engine's cuts (compute.c tp_tiled) */
	/* overlap.ep: AlltoAlls behind the paired microbatch's compute,
	 * Megatron-Core's combined 1F1B (a share of the ops pair) or
	 * DualPipe's overlapped chunks (the paired ops) */
	enum dc_ep_overlap ep_mode;
	double slow;
	double slow_ep; /* while the expert AlltoAlls overlap (DeepEP's SMs: config.h ep_slowdown) */
	uint64_t m;                  /* microbatches of one pipeline schedule (plan.h dc_layout_schedule_m) */
	uint64_t schedules;          /* the schedules a step runs one after another, F = grad_accum_steps / m */
	enum dc_pipe_schedule sched; /* activation.h dc_pipeline_schedule */
	uint64_t chunks;             /* model chunks a rank runs */
};

/* The forward's and the backward's collectives of kind `kind` (< 0: all),
 * summed in the strategy's order, in one pass. With `embed`, torchtitan's
 * embedding unit's forward gather and its ReduceScatter (src/axis/fsdp.c
 * root_units) are left out of both and summed there: the step prices them
 * at the embedding, not spread over the layers (docs/step-model.md,
 * "FSDP's embedding unit"). The embedding's backward gather stays with
 * the layers': FSDP2 prefetches it behind the first layer's backward like
 * any unit's. */
static void phase_times(const struct dc_comm_strategy *s, int kind, double *fwd, double *bwd, double *embed)
{
	double f = 0, b = 0, e = 0;
	for (uint64_t i = 0; i < s->ncoll; i++) {
		const struct dc_coll *c = &s->coll[i];
		if (kind >= 0 && (int)c->kind != kind)
			continue;
		if (embed && ((c->what == DC_CW_EMBED_PARAMS && c->phase == DC_CPHASE_FORWARD) ||
			      c->what == DC_CW_EMBED_GRADS))
			e += c->time_s;
		else if (c->phase == DC_CPHASE_FORWARD)
			f += c->time_s;
		else if (c->phase == DC_CPHASE_BACKWARD)
			b += c->time_s;
	}
	*fwd = f;
	*bwd = b;
	if (embed)
		*embed = e;
}

/* FSDP with a pipeline: a stage's units' gradient sync after its last
 * backward (their ReduceScatters, the embedding's among them, and
 * HSDP's and DualPipe's AllReduces), behind no compute (src/axis/fsdp.c
 * unit_calls): s's backward ReduceScatter and AllReduce rows */
static double fsdp_tail_of(const struct dc_plan *p, const struct dc_comm_strategy *s)
{
	double f, rs, ers, ar;
	phase_times(s, DC_COLL_REDUCE_SCATTER, &f, &rs, &ers);
	phase_times(s, DC_COLL_ALL_REDUCE, &f, &ar, NULL);
	/* the rows count every schedule's sync (fsdp.c unit_calls): one
	 * schedule's tail is their share */
	return (rs + ers + ar) / (double)dc_layout_schedules(&p->layout);
}

/* A TP call of the model's ends, not a layer (the step adds it to the head
 * or the embedding): the loss's reductions, the output layer's and the
 * embedding's calls, an MTP module's (comm.h) */
static int tp_end_row(const struct dc_coll *c)
{
	return c->what >= DC_CW_TP_LOSS_CHUNK && c->what <= DC_CW_TP_MTP_AMAX;
}

/* The backward TP collectives Megatron-LM issues asynchronously behind a
 * GEMM of the same backward (Megatron-LM 2021 section 3,
 * --async-tensor-model-parallel-allreduce; Korthikanti et al. 2022 section
 * 4.2.2 with sequence parallelism): the input-gradient AllReduce or
 * ReduceScatter behind the weight-gradient GEMM, the input's re-gather
 * behind the input-gradient GEMM. The output-gradient AllGather (g-bar)
 * and a recomputed forward's collectives are waited for. The axis that
 * issues them marks them DC_OVL_BEHIND_GEMM (src/axis/tp.c). */
static int tp_async(const struct dc_coll *c)
{
	return c->phase == DC_CPHASE_BACKWARD && c->overlap == DC_OVL_BEHIND_GEMM;
}

/* The forward GEMMs a dense layer's sequence-parallel collectives are
 * tiled beside (Megatron's --tp-comm-overlap, torchtitan's async TP: an
 * AllGather feeds a column-parallel GEMM, a row-parallel GEMM feeds a
 * ReduceScatter): q, k, v and fc1 (gate and up) after the AllGathers, the
 * output projection and fc2 before the ReduceScatters. Each at the large
 * GEMM rate, FLOPs / (peak x matmul_efficiency): the pairing needs their
 * shares, not their waves. A backward GEMM of a linear layer has its
 * forward's FLOPs (compute.h), so the backward pairs reuse them. */
static void tp_pair_gemms(struct costs *k, const struct dc_plan *p, const struct dc_compute *c)
{
	const struct dc_model *m = &p->in->model;
	double rate = c ? c->peak_flops * c->matmul_efficiency : 0;
	double t = (double)p->layout.tp, T = (double)p->tokens_per_microbatch_cp, h = (double)m->hidden_size;
	double a = (double)m->num_attention_heads, kv = (double)(m->num_kv_heads ? m->num_kv_heads : m->num_attention_heads);
	double d = m->head_dim ? (double)m->head_dim : h / a, f = (double)m->ffn_hidden_size;
	double gate = m->mlp == DC_MLP_SWIGLU ? 2.0 : 1.0;
	if (rate <= 0)
		return;
	k->g_qkv = 2.0 * T * h * (a + 2.0 * kv) * d / t / rate;
	k->g_o = 2.0 * T * a * d * h / t / rate;
	k->g_fc1 = 2.0 * T * h * gate * f / t / rate;
	k->g_fc2 = 2.0 * T * f * h / t / rate;
}

static double max0(double x)
{
	return x > 0 ? x : 0;
}

/* the boundaries among [0, s) that cross a domain */
static uint64_t sends_crossing(const struct sends *c, uint64_t s)
{
	if (c->stride >= c->dom)
		return s;
	return (c->first + s * c->stride) / c->dom - c->first / c->dom;
}

/* the sends of boundaries [a, b) (b <= p - 1) */
static double sends_sum(const struct sends *c, uint64_t a, uint64_t b)
{
	double base = (double)(b - a) * c->in;
	if (c->x == c->in || b <= a)
		return b > a ? base : 0;
	return base + (double)(sends_crossing(c, b) - sends_crossing(c, a)) * (c->x - c->in);
}

/* boundary s's send (s = p - 1: the wrap) */
static double sends_one(const struct sends *c, uint64_t p, uint64_t s)
{
	if (s + 1 >= p) {
		if (p > 2)
			return c->wrap ? c->x : c->in;
		s = 0; /* two stages: the wrap joins the same two ranks */
	}
	return sends_crossing(c, s + 1) > sends_crossing(c, s) ? c->x : c->in;
}

/* the sends once round the ring of stages: every boundary and the wrap */
static double sends_ring(const struct sends *c, uint64_t p)
{
	return sends_sum(c, 0, p - 1) + sends_one(c, p, p - 1);
}

/* a send between stages s and t (neighbours, or the wrap's two ends) */
static double sends_between(const struct sends *c, uint64_t p, uint64_t s, uint64_t t)
{
	uint64_t lo = s < t ? s : t, hi = s < t ? t : s;
	return sends_one(c, p, hi - lo == 1 ? lo : p - 1);
}

/* one price for every boundary */
static struct sends sends_uniform(double c)
{
	struct sends u = {c, c, 0, 1, 1, 1};
	return u;
}

/* A layer's TP call's seconds for the layers of kind `c` (0 dense, 1
 * MoE; comm.h per_layer): with `n[c]` such layers in the analysed rank,
 * their share of the call's time, which the caller divides by their
 * layer-microbatches (all of it when the rank's layers are of one kind:
 * the sum and the division as before MoE layers were told apart); with
 * none, `cl` is a row of comm.h tp_kind[c] (one such layer's calls in
 * its own format, count 1): what one such layer takes a microbatch, its
 * calls at the call's time each. */
static double tp_part(const struct dc_coll *cl, int c, const double n[2])
{
	double w0 = cl->per_layer[0] * n[0], w1 = cl->per_layer[1] * n[1], mine = c ? w1 : w0;
	if (n[c] > 0) {
		if (mine == w0 + w1)
			return cl->time_s;
		return w0 + w1 > 0 ? cl->time_s * (mine / (w0 + w1)) : 0;
	}
	return cl->count ? cl->per_layer[c] * (cl->time_s / (double)cl->count) : 0;
}

/* One layer of kind `kind`'s asynchronous TP calls (costs tp_b_async)
 * and inline ones (tp_f_inline, tp_b_inline), in one pass; the
 * asynchronous ones split by the linear that issues them (as_grad,
 * as_regather): the attention's column-parallel
 * linear issues one of each a layer, the MLP's fc1 the rest (tp.c: a dense
 * layer's second, a MoE layer's shared expert's). Where a collective's
 * calls come in two rows (an FP8 re-gather beside a BF16 one, tp.c
 * push_gathers: under MLA the attention's is the BF16 one), the
 * attention's call is the row with the largest message; every row of
 * these carries one message size otherwise. */
static void tp_async_inline(struct costs *k, const struct dc_comm_strategy *s, int kind, const double n[2], double per)
{
	double total[2] = {0, 0}, attn[2] = {0, 0};
	uint64_t msg[2] = {0, 0};
	for (uint64_t i = 0; i < s->ncoll; i++) {
		const struct dc_coll *cl = &s->coll[i];
		double v, calls = cl->per_layer[kind];
		int g;
		if (tp_end_row(cl))
			continue;
		if (cl->overlap == DC_OVL_INLINE && !tp_async(cl)) {
			*(cl->phase == DC_CPHASE_FORWARD ? &k->tp_f_inline[kind] : &k->tp_b_inline[kind]) +=
				tp_part(cl, kind, n) / per;
			continue;
		}
		if (!tp_async(cl))
			continue;
		v = tp_part(cl, kind, n) / per;
		k->tp_b_async[kind] += v;
		if (!(calls > 0))
			continue;
		g = cl->what == DC_CW_TP_INPUT_REGATHER;
		total[g] += v;
		if (cl->msg_bytes > msg[g]) {
			msg[g] = cl->msg_bytes;
			attn[g] = v / calls;
		}
	}
	k->as_grad[kind][0] = attn[0];
	k->as_grad[kind][1] = max0(total[0] - attn[0]);
	k->as_regather[kind][0] = attn[1];
	k->as_regather[kind][1] = max0(total[1] - attn[1]);
}

/* What divides tp_part's sums into one layer's microbatch */
static double tp_per(int c, const double n[2], double gas)
{
	return n[c] > 0 ? n[c] * gas : 1.0;
}

/* DC_TP_TILED: each TP collective's time per call, by what it carries
 * (tp.c: per layer and microbatch a dense layer's two calls of each, a
 * MoE layer's per_layer[1]); a recomputed forward's collectives are
 * waited for. */
static void tp_tiled_init(struct costs *k, const struct dc_comm *comm, const double n[2], double gas, int kinds)
{
	for (int c = 0; c < kinds; c++) {
		double per = tp_per(c, n, gas);
		/* a kind the analysed rank lacks: one such layer's calls
		 * (comm.h tp_kind) */
		const struct dc_comm_strategy *s = n[c] > 0 ? &comm->s[DC_STRAT_TP] : &comm->tp_kind[c];
		for (uint64_t i = 0; i < s->ncoll; i++) {
			const struct dc_coll *cl = &s->coll[i];
			double *to = NULL, *calls = NULL;
			if (cl->overlap == DC_OVL_INLINE || tp_end_row(cl))
				continue; /* tp_f_inline, tp_b_inline; the head's */
			switch (cl->what) {
			case DC_CW_TP_SEQ_IN_G:
				to = &k->c_ag_f[c], calls = &k->n_ag_f[c];
				break;
			case DC_CW_TP_OUTPUT_GBAR:
				to = &k->c_rs_f[c], calls = &k->n_rs_f[c];
				break;
			case DC_CW_TP_OUTPUT_GRAD_GBAR:
				to = &k->c_gbar_b[c], calls = &k->n_gbar_b[c];
				break;
			case DC_CW_TP_INPUT_GRAD_G:
				to = &k->c_rs_b[c], calls = &k->n_rs_b[c];
				break;
			case DC_CW_TP_INPUT_REGATHER:
				to = &k->c_regather_b[c], calls = &k->n_regather_b[c];
				break;
			default:
				k->tp_b_exposed[c] += cl->phase == DC_CPHASE_BACKWARD ? tp_part(cl, c, n) / per : 0.0;
				break;
			}
			if (to) {
				*to += tp_part(cl, c, n) / per;
				*calls += cl->per_layer[c];
			}
		}
		/* the sums to one call's time */
		k->c_ag_f[c] = k->n_ag_f[c] > 0 ? k->c_ag_f[c] / k->n_ag_f[c] : 0;
		k->c_rs_f[c] = k->n_rs_f[c] > 0 ? k->c_rs_f[c] / k->n_rs_f[c] : 0;
		k->c_gbar_b[c] = k->n_gbar_b[c] > 0 ? k->c_gbar_b[c] / k->n_gbar_b[c] : 0;
		k->c_rs_b[c] = k->n_rs_b[c] > 0 ? k->c_rs_b[c] / k->n_rs_b[c] : 0;
		k->c_regather_b[c] = k->n_regather_b[c] > 0 ? k->c_regather_b[c] / k->n_regather_b[c] : 0;
	}
	k->tiles = (double)k->p->layout.tp;
	k->te = k->p->in->training.framework == DC_FRAMEWORK_MEGATRON;
}

/* Transformer Engine's "bulk" overlap: a collective beside one whole GEMM
 * it does not feed, so all of the GEMM hides it: max(0, c - g). */
static double bulk_exposed(double c_s, double g_s)
{
	return c_s > g_s ? c_s - g_s : 0;
}

/* One collective of c seconds cut into n tiles beside a GEMM of g seconds
 * cut the same way (Wang et al. 2023, "Overlap Communication with
 * Dependent Computation via Decomposition", ASPLOS; torch's
 * fused_all_gather_matmul / fused_matmul_reduce_scatter): an AllGather's
 * tile i + 1 arrives while tile i multiplies, so the pair ends at
 * max(g, c + g / n): the last tile's GEMM waits for the last transfer
 * (a ReduceScatter mirrors it: the first tile's GEMM runs before the
 * first send). What shows of c is max(0, c - g (n - 1) / n). */
double dc_step_tiled_exposed(double c_s, double g_s, double tiles)
{
	double hidden_window = tiles > 1 ? g_s * (tiles - 1.0) / tiles : 0;
	return c_s > hidden_window ? c_s - hidden_window : 0;
}

/* DC_TP_TILED for one layer, forward or backward: its attention pairs,
 * and the MLP's for a dense layer. A MoE layer's MLP collectives (its
 * calls past the attention's: tp.c) wait: the token dispatch stands
 * between them and the experts' GEMMs. */
static double tp_tiled_layer(const struct costs *k, int moe, int bwd)
{
	/* Transformer Engine cuts the forward ReduceScatters' GEMMs in 4
	 * ("pipeline" num_splits) and runs the backward's ReduceScatter and
	 * re-gather in bulk beside whole GEMMs (compute.c tp_tiled) */
	double n = k->tiles, n_rs = k->te ? 4.0 : n, ex;
	int c = moe != 0;
	if (!bwd) {
		ex = k->tp_f_inline[c] + dc_step_tiled_exposed(k->c_ag_f[c], k->g_qkv, n) +
		     dc_step_tiled_exposed(k->c_rs_f[c], k->g_o, n_rs);
		if (moe)
			return ex + max0(k->n_ag_f[c] - 1.0) * k->c_ag_f[c] + max0(k->n_rs_f[c] - 1.0) * k->c_rs_f[c];
		return ex + dc_step_tiled_exposed(k->c_ag_f[c], k->g_fc1, n) +
		       dc_step_tiled_exposed(k->c_rs_f[c], k->g_fc2, n_rs);
	}
	/* backward: the output gradient's AllGather beside the row-parallel
	 * GEMM's input gradient, the input gradient's ReduceScatter beside
	 * the column-parallel GEMM's (Transformer Engine: in bulk beside its
	 * weight gradient), the input's re-gather beside its weight gradient
	 * (Transformer Engine: in bulk beside the input gradient) */
	ex = k->tp_b_inline[c] + k->tp_b_exposed[c] + dc_step_tiled_exposed(k->c_gbar_b[c], k->g_o, n);
	if (k->te)
		ex += bulk_exposed(k->c_rs_b[c], k->g_qkv) + bulk_exposed(k->c_regather_b[c], k->g_qkv);
	else
		ex += dc_step_tiled_exposed(k->c_rs_b[c], k->g_qkv, n) +
		      dc_step_tiled_exposed(k->c_regather_b[c], k->g_qkv, n);
	if (moe)
		return ex + max0(k->n_gbar_b[c] - 1.0) * k->c_gbar_b[c] + max0(k->n_rs_b[c] - 1.0) * k->c_rs_b[c] +
		       max0(k->n_regather_b[c] - 1.0) * k->c_regather_b[c];
	ex += dc_step_tiled_exposed(k->c_gbar_b[c], k->g_fc2, n);
	if (k->te)
		return ex + bulk_exposed(k->c_rs_b[c], k->g_fc1) + bulk_exposed(k->c_regather_b[c], k->g_fc1);
	return ex + dc_step_tiled_exposed(k->c_rs_b[c], k->g_fc1, n) +
	       dc_step_tiled_exposed(k->c_regather_b[c], k->g_fc1, n);
}

/* DeepSpeed ZeRO-3 under CPU offload (docs/step-model.md, "ZeRO-3's
 * copies on the host link"), deepspeed/ at edaa7221:
 * - offload_param ("optimizer+params"): each gather first copies the
 *   rank's 16-bit partition from its pinned host buffer to the GPU, a
 *   blocking .to(device) inside _all_gather_dtype
 *   (runtime/zero/partition_parameters.py:1331-1334), issued under the
 *   coordinator's all-gather stream (partitioned_param_coordinator.py
 *   :606-609) just before the gather on it: every gather call (forward,
 *   and backward's after the forward released the parameters) moves
 *   M / N x param_bytes / working_bytes bytes up, on the gather's stream.
 *   The host waits for each, but only after launching the previous
 *   module's kernels, so a module's gather and copy run behind the
 *   previous module's compute as the gather alone does (prefetch), and
 *   the stream carries copy + gather;
 * - offload_optimizer (both modes): partition_grads (runtime/zero/
 *   stage3.py:1886-1934) puts each reduce-scattered gradient partition
 *   into its pinned host buffer (:742-746, on the CPU: self.device,
 *   :328) and brings it back every micro step: at micro_step_id 0 a
 *   copy out and one back (:1904-1908), later one back, the add on the
 *   GPU and one out (:1912-1916), 2 x M / N bytes a ReduceScatter, non-
 *   blocking on reduce_and_partition_stream (:1591, overlap_comm's
 *   default for stage 3: zero/config.py:383-385), after the bucket's
 *   ReduceScatter there.
 * So the copies ride the FSDP gathers' and reduce-scatters' time per
 * layer and microbatch, hidden or exposed as those are (layer_cost).
 * host_param_s, host_grad_s: their seconds a step at
 * cluster.host_bandwidth. */
static void zero3_host_copies(struct costs *k, const struct dc_plan *p, const struct dc_compute *c,
			      const struct dc_comm_strategy *s, double per)
{
	const struct dc_config *in = p->in;
	const struct dc_precision *pr = &in->precision;
	double up_f = 0, up_b = 0, grads = 0, bw;
	if (!c || !c->optimizer_on_host || in->training.framework != DC_FRAMEWORK_DEEPSPEED ||
	    p->layout.sharding != DC_SHARD_FSDP || !(c->host_bandwidth > 0))
		return;
	bw = c->host_bandwidth;
	for (uint64_t i = 0; i < s->ncoll; i++) {
		const struct dc_coll *cl = &s->coll[i];
		double part = (double)cl->count * (double)cl->msg_bytes / (double)(cl->group_size ? cl->group_size : 1);
		if (cl->kind == DC_COLL_ALL_GATHER && in->parallel.offload == DC_OFFLOAD_OPTIMIZER_PARAMS &&
		    pr->working_bytes > 0) {
			part = part / (double)pr->working_bytes * (double)pr->param_bytes;
			*(cl->phase == DC_CPHASE_FORWARD ? &up_f : &up_b) += part;
		} else if (cl->kind == DC_COLL_REDUCE_SCATTER) {
			grads += 2.0 * part;
		}
	}
	k->host_param_s = (up_f + up_b) / bw;
	k->host_grad_s = grads / bw;
	k->host_ag_f = up_f / bw / per;
	k->host_ag_b = up_b / bw / per;
	k->ag_f += k->host_ag_f;
	k->ag_b += k->host_ag_b;
	if (p->layout.pp > 1) {
		k->fsdp_tail_s += k->host_grad_s; /* not reached: the loader refuses ZeRO-3 with pp */
	} else {
		k->host_rs_b = k->host_grad_s / per;
		k->rs_b += k->host_rs_b;
	}
}

/* A layer's backward FSDP calls (those in ag_b and rs_b: the gathers but
 * the embedding's forward one, the reduce-scatters but the embedding's,
 * HSDP's AllReduces; with a pipeline (tail) the reduce-scatters and
 * AllReduces run after the stage's backward, so only the gathers), summed
 * per link: the busiest link's sum. A layer's backward prefetches the next
 * unit's gather on one stream while the reduce-scatter runs on another
 * (PyTorch FSDP2's all-gather and reduce-scatter streams), but one call
 * alone keeps a link busy at its rate, so two on one link take the sum of
 * their times: they share the bandwidth, and only their latencies overlap
 * (counted twice here). DeepSpeed ZeRO-3's host copies are on the host
 * link, not in these sums: they lengthen their own stream (ag_b, rs_b). */
static double fsdp_busiest_link(const struct dc_comm_strategy *s, int tail, double per)
{
	double load[3] = {0, 0, 0}, busiest = 0;
	for (uint64_t i = 0; i < s->ncoll; i++) {
		const struct dc_coll *cl = &s->coll[i];
		int l = (int)cl->link;
		if (cl->phase != DC_CPHASE_BACKWARD || l < 0 || l > 2)
			continue;
		if (cl->kind == DC_COLL_ALL_GATHER ||
		    (!tail && ((cl->kind == DC_COLL_REDUCE_SCATTER && cl->what != DC_CW_EMBED_GRADS) ||
			       cl->kind == DC_COLL_ALL_REDUCE)))
			load[l] += cl->time_s / per;
	}
	for (int l = 0; l < 3; l++)
		busiest = load[l] > busiest ? load[l] : busiest;
	return busiest;
}

/* The pipeline's sends by boundary (struct sends; docs/step-model.md, "A
 * send's time"): the comm result prices a send on a boundary that crosses
 * an NVLink domain where one does (the busiest rank's); a boundary inside
 * one domain costs a send on the plan's pair there (plan.c pp_hops), so
 * the schedule's fill, drain and round trips each pay what their own
 * boundaries cost. */
static void sends_of(const struct dc_plan *p, const struct dc_coll *call, struct sends *out)
{
	double x = call->time_s / (double)call->count;
	struct dc_net_choice ch;
	*out = sends_uniform(x);
	if (p->pp_cross == 0 || p->pp_cross + 1 >= p->layout.pp)
		return; /* every boundary alike: none crosses, or every one */
	if (dc_net_time_memo(p->net_memo, &p->net, DC_COLL_SEND, &p->pp_pair_in, call->msg_bytes, DC_NET_ALGO_AUTO,
			     &ch) != 0)
		return;
	out->in = ch.time_s;
	out->first = p->pp_first;
	out->stride = p->topo.stride[DC_AXIS_PP];
	out->dom = p->net.nvlink_domain ? p->net.nvlink_domain : 1;
	out->wrap = p->pp_wrap_cross != 0;
}

static void costs_init(struct costs *k, const struct dc_plan *p, const struct dc_compute *c,
		       const struct dc_comm *comm)
{
	const struct dc_config *in = p->in;
	/* the comm result prices the stage it analyses (comm.h: stage): its
	 * per-layer calls count every stage its rank holds (comm.h layers),
	 * each run for its chunk's microbatches (m / 2 under DualPipe), so
	 * one layer's one microbatch is the total over layers x those */
	double gas = (double)dc_pipeline_chunk_microbatches(p);
	uint64_t analysed = comm->layers;
	double layers = (double)(analysed ? analysed : 1), f, b;
	memset(k, 0, sizeof(*k));
	k->p = p;
	k->c = c;
	k->m = dc_layout_schedule_m(&p->layout);
	k->schedules = dc_layout_schedules(&p->layout);
	k->tp_mode = dc_framework_tp_overlap(p);
	if (k->tp_mode == DC_TP_TILED)
		tp_pair_gemms(k, p, c);
	k->ov_fsdp = in->overlap.fsdp_prefetch && in->parallel.fsdp_unit != DC_FSDP_UNIT_MODEL;
	k->ov_dp = dc_framework_overlap_dp(p);
	k->lk_tp = comm->s[DC_STRAT_TP].in_play ? comm->s[DC_STRAT_TP].link : DC_LINK_AUTO;
	k->lk_ep = comm->s[DC_STRAT_EP].in_play ? comm->s[DC_STRAT_EP].link : DC_LINK_AUTO;
	k->lk_cp = comm->s[DC_STRAT_CP].in_play ? comm->s[DC_STRAT_CP].link : DC_LINK_AUTO;
	k->lk_fs = comm->s[DC_STRAT_FSDP].in_play ? comm->s[DC_STRAT_FSDP].link : DC_LINK_AUTO;
	k->sched = dc_pipeline_schedule(p);
	k->chunks = dc_pipeline_chunks(p);
	k->ep_mode = in->overlap.ep;
	if (k->ep_mode == DC_EP_OVERLAP_DUALPIPE && k->sched != DC_PIPE_DUALPIPE && k->sched != DC_PIPE_DUALPIPEV)
		k->ep_mode = DC_EP_OVERLAP_NONE; /* a derived layout without the schedule (activation.h) */
	k->slow = in->overlap.compute_slowdown;
	k->slow_ep = in->overlap.ep_slowdown;
	/* the model's MTP modules, on the chunk that holds the head,
	 * whichever stage the comm analysed (chunk_ends_cost) */
	k->mtp = in->model.mtp_layers;
	k->mtp_moe = dc_comm_mtp_moe(p);
	if (comm->s[DC_STRAT_TP].in_play) {
		/* per layer of each kind: the analysed rank's dense and MoE
		 * layers (tp_part) */
		const struct dc_comm_strategy *s = &comm->s[DC_STRAT_TP], *hs = &comm->tp_head;
		uint64_t moe = comm->stage_moe_layers < analysed ? comm->stage_moe_layers : analysed;
		double n[2] = {(double)(analysed - moe), (double)moe};
		/* the analysed rank's MTP modules' layers, one of their kind
		 * each, whose calls the rows hold (tp.c) */
		n[k->mtp_moe] += (double)comm->mtp_layers;
		/* the model's ends' calls as the rank that holds each issues
		 * them (comm.h tp_head), a microbatch's: the head's and the
		 * loss's, the embedding's, the MTP modules' (eh_proj, their
		 * embedding lookups) */
		for (uint64_t i = 0; i < hs->ncoll; i++) {
			const struct dc_coll *cl = &hs->coll[i];
			double *to;
			switch (cl->what) {
			case DC_CW_TP_LOSS_CHUNK:
				to = &k->tp_loss_f;
				break;
			case DC_CW_TP_HEAD_IN:
				to = &k->tp_head_in_f;
				break;
			case DC_CW_TP_HEAD_IN_GRAD:
				to = &k->tp_head_grad_b;
				break;
			case DC_CW_TP_HEAD_REGATHER:
				to = &k->tp_head_regather_b;
				break;
			case DC_CW_TP_EMBED_OUT:
				to = &k->tp_emb_f;
				break;
			case DC_CW_TP_EMBED_GRAD:
				to = &k->tp_emb_b;
				break;
			default:
				to = cl->phase == DC_CPHASE_FORWARD ? &k->tp_mtp_f : &k->tp_mtp_b;
				break;
			}
			*to += cl->time_s / gas;
		}
		/* Megatron's output layer is its own ColumnParallelLinear
		 * (gpt_model.py), whose backward runs both behind its GEMMs as
		 * a layer's (tp_async_shown); torchtitan's DTensor
		 * redistributions are waited for at the next op */
		k->ends_async = in->training.framework != DC_FRAMEWORK_TORCHTITAN;
		/* a model without MoE layers has no layer of kind 1 on any
		 * stage: its costs stay 0, unread */
		int kinds = in->model.num_experts ? 2 : 1;
		for (int kind = 0; kind < kinds; kind++) {
			double per = tp_per(kind, n, gas);
			/* a kind the analysed rank lacks: one such layer's own
			 * calls (comm.h tp_kind) */
			const struct dc_comm_strategy *ks = n[kind] > 0 ? s : &comm->tp_kind[kind];
			f = b = 0;
			for (uint64_t i = 0; i < ks->ncoll; i++) {
				const struct dc_coll *cl = &ks->coll[i];
				double part;
				if (tp_end_row(cl))
					continue; /* the ends' (hs above) */
				part = tp_part(cl, kind, n);
				if (cl->phase == DC_CPHASE_FORWARD)
					f += part;
				else if (cl->phase == DC_CPHASE_BACKWARD)
					b += part;
			}
			k->tp_f[kind] = f / per;
			k->tp_b[kind] = b / per;
			tp_async_inline(k, ks, kind, n, per);
		}
		if (k->tp_mode == DC_TP_TILED)
			tp_tiled_init(k, comm, n, gas, kinds);
	}
	if (comm->s[DC_STRAT_EP].in_play && comm->moe_layers > 0) {
		double moe = (double)comm->moe_layers;
		phase_times(&comm->s[DC_STRAT_EP], -1, &f, &b, NULL);
		k->ep_f = f / (moe * gas);
		k->ep_b = b / (moe * gas);
	}
	if (comm->s[DC_STRAT_FSDP].in_play) {
		/* per layer, a whole-model unit spread over the layers too
		 * (it is never prefetched: ov_fsdp) */
		const struct dc_comm_strategy *s = &comm->s[DC_STRAT_FSDP];
		double rs, ar, ef, ers;
		phase_times(s, DC_COLL_ALL_GATHER, &f, &b, &ef);
		k->ag_f = f / (layers * gas);
		k->ag_b = b / (layers * gas);
		k->emb_ag_f = ef / gas;
		/* the units' gradient sync: their ReduceScatters and, under
		 * HSDP, the AllReduces of the shards across replicas */
		phase_times(s, DC_COLL_REDUCE_SCATTER, &f, &rs, &ers);
		phase_times(s, DC_COLL_ALL_REDUCE, &f, &ar, NULL);
		k->rs_b = (rs + ar) / (layers * gas);
		k->emb_rs = ers / gas;
		if (p->layout.pp > 1) {
			/* with a pipeline they run once, in the stage's
			 * _post_backward after its last backward (src/axis/fsdp.c
			 * unit_calls), behind no compute: stage_sync's tail */
			k->fsdp_tail_s = fsdp_tail_of(p, s);
			k->fsdp_tail_ar = ar > 0;
			k->rs_b = 0;
			k->emb_rs = 0;
		}
		zero3_host_copies(k, p, c, s, layers * gas);
		k->fs_busy_b = fsdp_busiest_link(s, p->layout.pp > 1, layers * gas);
	}
	if (comm->s[DC_STRAT_CP].in_play) {
		/* ring attention's sends (cp_comm_type p2p; PyTorch's dK/dV
		 * under torchtitan) run while the current block is computed;
		 * all_gather and a2a are waited for */
		const struct dc_comm_strategy *s = &comm->s[DC_STRAT_CP];
		double rf = 0, rb = 0;
		phase_times(s, -1, &f, &b, NULL);
		for (uint64_t i = 0; i < s->ncoll; i++)
			if (s->coll[i].overlap == DC_OVL_RING) {
				if (s->coll[i].phase == DC_CPHASE_FORWARD)
					rf += s->coll[i].time_s;
				else
					rb += s->coll[i].time_s;
			}
		k->cp_f = (f - rf) / (layers * gas);
		k->cp_b = (b - rb) / (layers * gas);
		k->cpr_f = rf / (layers * gas);
		k->cpr_b = rb / (layers * gas);
	}
	if (comm->s[DC_STRAT_PP].in_play) {
		const struct dc_comm_strategy *s = &comm->s[DC_STRAT_PP];
		/* one send's time: every row is one message over the same pair
		 * of neighbours (pp.c), the activations' or, where the analysed
		 * one of two stages sends only gradients, theirs */
		for (uint64_t i = 0; i < s->ncoll; i++)
			if (s->coll[i].count > 0) {
				sends_of(p, &s->coll[i], &k->snd);
				k->send_s = fmax(k->snd.x, k->snd.in);
				break;
			}
	}
}

/* One layer's op, or the sum of several. */
struct cost {
	double dur, comp, hidden;
	double wgrad; /* of comp: the weight-gradient GEMMs (backward) */
	double ex[DC_STRAT_COUNT];
	double tp_comm, ep_comm, cp_comm, ag, rs; /* the collectives' own durations */
};

static void cost_add(struct cost *a, const struct cost *b, double n)
{
	a->dur += n * b->dur;
	a->comp += n * b->comp;
	a->hidden += n * b->hidden;
	a->wgrad += n * b->wgrad;
	for (int i = 0; i < DC_STRAT_COUNT; i++)
		a->ex[i] += n * b->ex[i];
	a->tp_comm += n * b->tp_comm;
	a->ep_comm += n * b->ep_comm;
	a->cp_comm += n * b->cp_comm;
	a->ag += n * b->ag;
	a->rs += n * b->rs;
}

/* cost_add(a, b, 1): the same sums (1 x b is b), without the products */
static void cost_acc(struct cost *a, const struct cost *b)
{
	a->dur += b->dur;
	a->comp += b->comp;
	a->hidden += b->hidden;
	a->wgrad += b->wgrad;
	for (int i = 0; i < DC_STRAT_COUNT; i++)
		a->ex[i] += b->ex[i];
	a->tp_comm += b->tp_comm;
	a->ep_comm += b->ep_comm;
	a->cp_comm += b->cp_comm;
	a->ag += b->ag;
	a->rs += b->rs;
}

/* `d`, a part of the span `span` found as its difference from sums of
 * the same per-microbatch times in another order: where no bubble
 * separates them (pp 1) a difference within rounding (2^-40 of the span,
 * under a picosecond a second) is none, not a 2.2e-16 s bubble in the
 * report; time is never negative */
static double past(double d, double span)
{
	return d > span * 0x1p-40 ? d : 0;
}

/* One transformer layer for one microbatch: its kernels, then the
 * collectives it waits for. TP (overlap.tp false) and EP sit on the
 * critical path; with overlap.tp the TP collectives hide behind the
 * layer's kernels up to their length. FSDP (overlap.fsdp_prefetch) gathers
 * the next unit while this one computes: the chunk's first unit waits for
 * its own gather, the others for what their gather exceeds the previous
 * unit's compute by. Hidden communication slows the kernels by the
 * overlap.compute_slowdown fraction of its length. */
/* overlap.ep a2a_1f1b (Megatron-Core's combined 1F1B schedule,
 * combined_1f1b.py): after one extra warm-up forward, each step runs one
 * microbatch's forward and another's backward together, layer by layer,
 * the dispatch and combine of each on a communication stream behind the
 * other's attention and MLP kernels. Of stage s's n = m v (virtual)
 * microbatches, the w + 1 warm-up forwards (w: 0 without a pipeline,
 * 2 (p - s - 1) + (v - 1) p interleaved; schedules.py adds the one) and as
 * many cool-down backwards run alone; the other n - w - 1 run paired.
 * Returns the paired share (n - w - 1) / n, 0 when nothing pairs. */
static double ep_paired_share(const struct dc_plan *p, uint64_t stage)
{
	uint64_t pp = p->layout.pp, v = p->v, n = dc_layout_schedule_m(&p->layout) * v, w;
	w = pp > 1 ? 2 * (pp - stage - 1) + (v - 1) * pp : 0;
	w += 1;
	return w >= n ? 0 : (double)(n - w) / (double)n;
}

/* A paired MoE layer (ep_paired_share): its AlltoAll e on the
 * communication stream against the paired op's compute c' of the same
 * layer in the other direction. The pair exposes max(0, e_f + e_b -
 * (c_f + c_b)), each op its share e / (e_f + e_b) of that. Returns this
 * op's exposed AlltoAll time: the share of it that pairs, plus the rest
 * whole. */
static double ep_exposed(const struct costs *k, const struct dc_work_time *w, int bwd, double share)
{
	double e = bwd ? k->ep_b : k->ep_f, both = k->ep_f + k->ep_b;
	double comp = w->fwd_s + w->bwd_s + w->recompute_s;
	double pair = both > 0 ? max0(both - comp) * e / both : 0;
	return share * pair + (1.0 - share) * e;
}

/* DC_TP_ASYNC_BWD: what shows of a layer's asynchronous backward TP
 * collectives (costs as_grad, as_regather) of kind `c`. Megatron-LM
 * (d98e8a64 tensor_parallel/layers.py, LinearWithGradAccumulationAnd
 * AsyncCommunication.backward) and Transformer Engine (d0067d0d
 * module/linear.py, layernorm_linear.py) issue them inside one
 * column-parallel linear's backward and wait before it returns: the
 * input's re-gather beside that linear's input-gradient GEMM
 * (layers.py:674-687), the input gradient's AllReduce or ReduceScatter
 * beside its weight-gradient GEMM (:694-782, waited at :789-808). So each
 * hides behind its own GEMM only: the sum over them of max(0, c - g)
 * (docs/step-model.md, "TP backward"). */
static double tp_async_shown(const struct costs *k, const struct dc_work_time *w, int c)
{
	double shown = 0;
	for (int i = 0; i < 2; i++)
		shown += max0(k->as_grad[c][i] - w->tp_col_wgrad_s[i]) + max0(k->as_regather[c][i] - w->tp_col_dgrad_s[i]);
	return shown;
}

/* `share`: of this op's MoE layers, the share whose AlltoAlls pair with
 * another microbatch's compute (ep_paired_share under a2a_1f1b; 1 in a
 * DualPipe pair, 0 alone). */
static void layer_cost(const struct costs *k, const struct dc_work_time *w, double share, int moe, int bwd,
		       int first, struct cost *o)
{
	double comp = bwd ? w->bwd_s + w->recompute_s : w->fwd_s;
	double tp = bwd ? k->tp_b[moe != 0] : k->tp_f[moe != 0];
	double ep = moe ? (bwd ? k->ep_b : k->ep_f) : 0;
	double ag = bwd ? k->ag_b : k->ag_f, rs = bwd ? k->rs_b : 0;
	double cp = bwd ? k->cp_b : k->cp_f, ring = bwd ? k->cpr_b : k->cpr_f;
	double ex_tp = tp, ex_fs = ag + rs, ex_cp = cp, ex_ep = ep, hid = 0, hid_ce = 0, hid_ep = 0, span;
	if (moe && k->ep_mode != DC_EP_OVERLAP_NONE && ep > 0) {
		ex_ep = ep_exposed(k, w, bwd, share);
		/* DeepEP's kernels hold their own SMs (overlap.ep_slowdown) */
		if (k->slow_ep == k->slow)
			hid += ep - ex_ep;
		else
			hid_ep = ep - ex_ep;
	}
	if (k->tp_mode == DC_TP_ALL) {
		/* custom overlap.tp: every TP collective behind the layer's
		 * GEMMs, but an inline one (an amax reduction) */
		double mm = bwd ? w->bwd_matmul_s : w->fwd_matmul_s, inl = bwd ? k->tp_b_inline[moe != 0] : k->tp_f_inline[moe != 0];
		ex_tp = max0(tp - inl - mm) + inl;
		hid += tp - ex_tp;
	} else if (k->tp_mode == DC_TP_TILED) {
		/* Megatron's TP overlap, torchtitan's async TP: each collective
		 * in tp tiles beside its one GEMM */
		ex_tp = tp_tiled_layer(k, moe, bwd);
		if (ex_tp > tp)
			ex_tp = tp;
		/* the tiles' GEMMs, the SMs the collectives keep, torch's
		 * reductions (compute.h); the transfers run on copy engines,
		 * so the hidden part takes no SMs of its own (no slowdown) */
		hid_ce = tp - ex_tp;
		comp += bwd ? w->tp_tiled_bwd_s : w->tp_tiled_fwd_s;
	} else if (bwd && k->tp_mode == DC_TP_ASYNC_BWD) {
		/* Megatron's asynchronous backward collectives, each behind a
		 * GEMM of the linear that issues it */
		double shown = tp_async_shown(k, w, moe != 0), async = k->tp_b_async[moe != 0];
		ex_tp = tp - async + shown;
		hid += async - shown;
	}
	/* The streams beside the kernels (ring attention's sends, FSDP's
	 * prefetch) run while the layer lasts: its kernels and what the
	 * compute stream waits for (TP, EP, CP's waited exchange), then each
	 * one's exposed part in turn. A side stream shares its link with the
	 * layer's other calls on that link (all of their time, hidden or
	 * waited for), so it shows what it and they exceed the span by, at
	 * most itself: the layer takes max(kernels + waits, each side stream
	 * and its link's other calls), and shorter kernels never lengthen it
	 * (docs/step-model.md, "Several streams beside the kernels"). What
	 * hides behind the waits, not the kernels, slows no kernel (hid_ce) */
	span = comp + ex_tp + ex_ep + ex_cp;
	if (ring > 0) {
		/* the waited exchange (PyTorch's all-gathers) is on the ring's
		 * link too */
		double same = (k->lk_tp == k->lk_cp ? tp : 0) + (k->lk_ep == k->lk_cp ? ep : 0) + cp, hidden, behind;
		double ex_ring = fmin(ring, max0(ring + same - span));
		hidden = ring - ex_ring;
		behind = fmin(hidden, comp);
		hid += behind;
		hid_ce += hidden - behind;
		span += ex_ring;
		ex_cp += ex_ring;
	}
	if (k->ov_fsdp && !first) {
		/* each stream's calls one after another; both streams' network
		 * calls on one link, sharing it (fsdp_busiest_link) */
		double busiest = ag > rs ? ag : rs;
		double same = (k->lk_tp == k->lk_fs ? tp : 0) + (k->lk_ep == k->lk_fs ? ep : 0) +
			      (k->lk_cp == k->lk_fs ? cp + ring : 0);
		if (bwd && k->fs_busy_b > busiest)
			busiest = k->fs_busy_b;
		/* of ag + rs: DeepSpeed ZeRO-3's host copies (zero3_host_copies),
		 * on the copy engines, so their hidden share takes no SMs; of
		 * what hides, at most what the kernels alone would hide slows
		 * them */
		double copies = bwd ? k->host_ag_b + k->host_rs_b : k->host_ag_f;
		double kernels = ag + rs - max0(busiest - comp), hidden;
		ex_fs = fmin(ag + rs, max0(busiest + same - span));
		hidden = ag + rs - ex_fs;
		if (kernels > hidden)
			kernels = hidden;
		hid += ag + rs > 0 ? kernels * (1.0 - copies / (ag + rs)) : 0;
		hid_ce += ag + rs > 0 ? kernels * copies / (ag + rs) : 0;
		hid_ce += hidden - kernels;
	}
	o->comp = comp + k->slow * hid + k->slow_ep * hid_ep;
	o->hidden = hid + hid_ep + hid_ce;
	o->wgrad = bwd ? w->bwd_wgrad_s : 0;
	/* every member set (no memset: three a chunk, three chunks a step):
	 * a layer's dp and pp calls are the stage's, not its own */
	o->ex[DC_STRAT_DP] = 0;
	o->ex[DC_STRAT_PP] = 0;
	o->ex[DC_STRAT_TP] = ex_tp;
	o->ex[DC_STRAT_EP] = ex_ep;
	o->ex[DC_STRAT_FSDP] = ex_fs;
	o->ex[DC_STRAT_CP] = ex_cp;
	o->dur = o->comp + ex_tp + ex_ep + ex_fs + ex_cp;
	o->tp_comm = tp;
	o->ep_comm = ep;
	o->cp_comm = cp + ring; /* the waited exchange and the ring's sends: the trace draws both */
	o->ag = ag;
	o->rs = rs;
}

static void work_cost(const struct dc_work_time *w, int bwd, struct cost *o)
{
	memset(o, 0, sizeof(*o));
	o->comp = bwd ? w->bwd_s + w->recompute_s : w->fwd_s;
	o->dur = o->comp;
	o->wgrad = bwd ? w->bwd_wgrad_s : 0;
}

/* The EP share that pairs (layer_cost) for an op of `stage`. */
static double ep_share(const struct costs *k, uint64_t stage, int paired)
{
	if (k->ep_mode == DC_EP_OVERLAP_A2A_1F1B)
		return ep_paired_share(k->p, stage);
	return k->ep_mode == DC_EP_OVERLAP_DUALPIPE && paired ? 1.0 : 0.0;
}

/* What model chunk `c` of `stage` costs for one microbatch, forward or
 * backward (`paired`: in a DualPipe pair): its layers (the first one the
 * op runs, then the rest), the embedding on the model's first chunk, the
 * head on its last. */
/* What chunk_cost_of reads of a chunk: two chunks alike in these cost
 * the same (the layers of a kind are priced once and counted). */
static int same_chunk_cost(const struct chunk *a, const struct chunk *b)
{
	return a->at.layers == b->at.layers && a->dense == b->dense && a->moe_first == b->moe_first &&
	       a->moe_last == b->moe_last && a->at.embedding == b->at.embedding && a->at.head == b->at.head &&
	       a->bf16 == b->bf16 && a->bf16_dense == b->bf16_dense && a->bf16_first == b->bf16_first &&
	       a->bf16_last == b->bf16_last;
}

/* 1 when layer_cost's `first` can change its result: a layer after the
 * chunk's first waits only for what its FSDP gather exceeds the compute
 * before it by (ov_fsdp), which differs from waiting for it whole where
 * there is a gather to wait for. Without one (ag, rs: costs_init's sums
 * from +0, never -0) both give +0 exposed and nothing hidden. */
static int first_matters(const struct costs *k, int bwd)
{
	return k->ov_fsdp && (bwd ? k->ag_b != 0 || k->rs_b != 0 : k->ag_f != 0);
}

/* chunk_layers_cost of a chunk holding BF16 layers (precision.bf16_*):
 * each of the four kinds (dense or MoE, FP8 or BF16) priced once and
 * counted, the op's first layer (the chunk's first forward, its last
 * backward) apart as `first` */
static void chunk_layers_cost_bf16(const struct costs *k, const struct chunk *ch, double share, int bwd,
				   struct cost *o)
{
	const struct dc_compute *c = k->c;
	const struct dc_work_time *w[2][2] = {{&c->dense_layer, &c->dense_layer_bf16},
					      {&c->moe_layer, &c->moe_layer_bf16}};
	uint64_t n[2][2]; /* [MoE][BF16] */
	int first_moe = bwd ? ch->moe_last : ch->moe_first, first_bf16 = bwd ? ch->bf16_last : ch->bf16_first;
	struct cost one;
	n[0][1] = ch->bf16_dense;
	n[1][1] = ch->bf16 - ch->bf16_dense;
	n[0][0] = ch->dense - n[0][1];
	n[1][0] = ch->at.layers - ch->dense - n[1][1];
	layer_cost(k, w[first_moe][first_bf16], share, first_moe, bwd, 1, &one);
	cost_acc(o, &one);
	n[first_moe][first_bf16]--;
	for (int moe = 0; moe < 2; moe++)
		for (int b16 = 0; b16 < 2; b16++)
			if (n[moe][b16]) {
				layer_cost(k, w[moe][b16], share, moe, bwd, 0, &one);
				cost_add(o, &one, (double)n[moe][b16]);
			}
}

/* The layers' part of chunk_cost_of: what reads the chunk's layer count
 * and dense layers alone */
static void chunk_layers_cost(const struct costs *k, uint64_t stage, const struct chunk *chp, int bwd, int paired,
			      struct cost *o)
{
	const struct chunk ch = *chp;
	uint64_t n, d, e;
	double share = ep_share(k, stage, paired);
	struct cost one;
	n = ch.at.layers;
	d = ch.dense;
	e = n - d;
	memset(o, 0, sizeof(*o));
	if (n > 0 && ch.bf16) {
		chunk_layers_cost_bf16(k, &ch, share, bwd, o);
		return;
	}
	if (n > 0) {
		/* forward runs the chunk's first layer first (dense first:
		 * dense when it has any), backward its last (MoE when it has
		 * any) */
		int first_moe = bwd ? ch.moe_last : ch.moe_first;
		layer_cost(k, first_moe ? &k->c->moe_layer : &k->c->dense_layer, share, first_moe, bwd, 1, &one);
		cost_acc(o, &one);
		/* the rest of the first one's kind cost what it does where
		 * `first` changes nothing (first_matters): one is theirs too */
		if (d > (first_moe ? 0u : 1u)) {
			if (first_moe || first_matters(k, bwd))
				layer_cost(k, &k->c->dense_layer, share, 0, bwd, 0, &one);
			cost_add(o, &one, (double)(d - (first_moe ? 0u : 1u)));
		}
		if (e > (first_moe ? 1u : 0u)) {
			if (!first_moe || first_matters(k, bwd) || d > 0)
				layer_cost(k, &k->c->moe_layer, share, 1, bwd, 0, &one);
			cost_add(o, &one, (double)(e - (first_moe ? 1u : 0u)));
		}
	}
}

/* cost_acc(o, work_cost(w, bwd)) without the struct, with `tp_wait`
 * (tp collectives waited for: +0 for none) in its duration and its
 * exposed and own tp time: every other member of a work's cost is +0,
 * and adding +0 leaves a member as it was but -0, which o's never are
 * (its sums start from memset's +0 and only add: a sum is -0 only when
 * both terms are) */
static void work_acc(const struct dc_work_time *w, int bwd, double tp_wait, struct cost *o)
{
	double comp = bwd ? w->bwd_s + w->recompute_s : w->fwd_s;
	o->dur += comp + tp_wait;
	o->comp += comp;
	o->wgrad += bwd ? w->bwd_wgrad_s : 0;
	o->ex[DC_STRAT_TP] += tp_wait;
	o->tp_comm += tp_wait;
}

/* The MTP modules' part of the head (k->mtp of them, comm.h mtp_layers),
 * added to o: their layers' collectives as a layer of their kind pays
 * them (layer_cost, with `share` of its AlltoAlls paired), less the
 * layer's kernels, which the head's work holds already (compute.c); and
 * their eh_proj's TP calls, waited for. The modules have no FSDP unit or
 * CP exchange of their own in the comm rows, so none here. */
static void mtp_cost(const struct costs *k, double share, int bwd, struct cost *o)
{
	const struct dc_work_time *w = &k->c->mtp_layer; /* recomputed as a module is (compute.h) */
	double raw = bwd ? w->bwd_s + w->recompute_s : w->fwd_s, eh = bwd ? k->tp_mtp_b : k->tp_mtp_f;
	struct costs z = *k;
	struct cost one;
	z.ag_f = z.ag_b = z.rs_b = z.fs_busy_b = z.cp_f = z.cp_b = z.cpr_f = z.cpr_b = 0;
	z.ov_fsdp = 0;
	layer_cost(&z, w, share, k->mtp_moe, bwd, 0, &one);
	one.dur -= raw;
	one.comp -= raw;
	one.wgrad = 0;
	cost_add(o, &one, (double)k->mtp);
	o->dur += eh;
	o->ex[DC_STRAT_TP] += eh;
	o->tp_comm += eh;
}

/* The head's backward TP calls (costs tp_head_grad_b, tp_head_regather_b)
 * a microbatch: what shows, returned, and what hides (*hid). Under
 * ends_async each hides behind its own GEMM of the output layer's
 * backward, as a layer's column-parallel linear's (tp_async_shown): the
 * input gradient's behind the weight-gradient GEMM, the re-gather behind
 * the input-gradient GEMM (the head's matmul time less its weight
 * gradient's); otherwise both are waited for. */
static double tp_head_shown(const struct costs *k, double *hid)
{
	const struct dc_work_time *w = &k->c->head;
	double g = k->tp_head_grad_b, r = k->tp_head_regather_b, shown;
	if (!k->ends_async) {
		*hid = 0;
		return g + r;
	}
	shown = max0(g - w->bwd_wgrad_s) + max0(r - (w->bwd_matmul_s - w->bwd_wgrad_s));
	*hid = max0(g + r - shown);
	return shown;
}

/* The embedding on the model's first chunk, the head on its last, added
 * to o (the chunk's layers' part); `share`: the EP share that pairs
 * (ep_share) for the head's MTP modules */
static void chunk_ends_cost(const struct costs *k, const struct chunk *ch, int bwd, double share, struct cost *o)
{
	if (ch->at.embedding) {
		/* torchtitan's embedding unit: its gather is the forward's
		 * first op and its ReduceScatter the backward's last, with no
		 * compute beside either to hide them; the embedding's TP
		 * calls, waited for (tp.c ends_calls) */
		double fs = bwd ? k->emb_rs : k->emb_ag_f;
		work_acc(&k->c->embedding, bwd, bwd ? k->tp_emb_b : k->tp_emb_f, o);
		o->dur += fs;
		o->ex[DC_STRAT_FSDP] += fs;
		*(bwd ? &o->rs : &o->ag) += fs;
	}
	/* the head's forward: its input's gather and the loss's tp
	 * reductions, waited for; its backward: tp_head_shown, and the
	 * hidden part slowing the head's kernels (overlap.compute_slowdown)
	 * as a layer's */
	if (ch->at.head && !bwd)
		work_acc(&k->c->head, 0, k->tp_head_in_f + k->tp_loss_f, o);
	if (ch->at.head && bwd) {
		double hid, shown = tp_head_shown(k, &hid);
		work_acc(&k->c->head, 1, shown, o);
		if (hid > 0) {
			o->dur += k->slow * hid;
			o->comp += k->slow * hid;
			o->hidden += hid;
			o->tp_comm += hid;
		}
	}
	if (ch->at.head && k->mtp)
		mtp_cost(k, share, bwd, o);
}

static void chunk_cost_of(const struct costs *k, uint64_t stage, const struct chunk *chp, int bwd, int paired,
			  struct cost *o)
{
	chunk_layers_cost(k, stage, chp, bwd, paired, o);
	chunk_ends_cost(k, chp, bwd, ep_share(k, stage, paired), o);
}

static void chunk_cost(const struct costs *k, uint64_t stage, uint64_t c, int bwd, int paired, struct cost *o)
{
	struct chunk ch;
	chunk_of(k->p, stage, c, &ch);
	chunk_cost_of(k, stage, &ch, bwd, paired, o);
}

/* One chunk's layers' part, forward and backward (chunk_layers_cost),
 * kept for the next stage_ops of the same step: it reads the chunk's
 * layers and dense layers and the stage's EP share alone, so stages of
 * the same chunks price their layers once. */
struct layers_memo {
	int have;
	uint64_t layers, dense, bf16, bf16_dense;
	int moe_first, moe_last, bf16_first, bf16_last;
	double share;
	struct cost f, b;
};

#ifdef DISTCALC_VERIFY_MEMOS
static const struct dc_memo_field cost_fields[] = {
	DC_MEMO_FIELD(struct cost, dur),    DC_MEMO_FIELD(struct cost, comp),    DC_MEMO_FIELD(struct cost, hidden),
	DC_MEMO_FIELD(struct cost, wgrad),  DC_MEMO_FIELD(struct cost, ex),      DC_MEMO_FIELD(struct cost, tp_comm),
	DC_MEMO_FIELD(struct cost, ep_comm), DC_MEMO_FIELD(struct cost, cp_comm), DC_MEMO_FIELD(struct cost, ag),
	DC_MEMO_FIELD(struct cost, rs),
};

/* A chunk's forward and backward costs kept (f, b) against chunk_cost_of
 * (`layers`: its layers' part alone, chunk_layers_cost) on stage `stage` */
static void chunk_verify(const char *memo, const struct costs *k, uint64_t stage, const struct chunk *ch, int layers,
			 const struct cost *f, const struct cost *b)
{
	struct cost ff, fb;
	if (layers) {
		chunk_layers_cost(k, stage, ch, 0, 0, &ff);
		chunk_layers_cost(k, stage, ch, 1, 0, &fb);
	} else {
		chunk_cost_of(k, stage, ch, 0, 0, &ff);
		chunk_cost_of(k, stage, ch, 1, 0, &fb);
	}
	const size_t n = sizeof(cost_fields) / sizeof(cost_fields[0]);
	dc_memo_verify_bytes(memo, "forward", f, &ff, sizeof(*f), cost_fields, n);
	dc_memo_verify_bytes(memo, "backward", b, &fb, sizeof(*b), cost_fields, n);
}
#endif

static void layers_of(const struct costs *k, uint64_t stage, const struct chunk *ch, struct layers_memo *lm,
		      struct cost *f, struct cost *b)
{
	double share = ep_share(k, stage, 0);
	if (!lm->have || lm->layers != ch->at.layers || lm->dense != ch->dense || lm->moe_first != ch->moe_first ||
	    lm->moe_last != ch->moe_last || lm->share != share || lm->bf16 != ch->bf16 ||
	    lm->bf16_dense != ch->bf16_dense || lm->bf16_first != ch->bf16_first || lm->bf16_last != ch->bf16_last) {
		chunk_layers_cost(k, stage, ch, 0, 0, &lm->f);
		chunk_layers_cost(k, stage, ch, 1, 0, &lm->b);
		lm->have = 1;
		lm->layers = ch->at.layers;
		lm->dense = ch->dense;
		lm->moe_first = ch->moe_first;
		lm->moe_last = ch->moe_last;
		lm->bf16 = ch->bf16;
		lm->bf16_dense = ch->bf16_dense;
		lm->bf16_first = ch->bf16_first;
		lm->bf16_last = ch->bf16_last;
		lm->share = share;
	} else {
		DC_MEMO_VERIFY(chunk_verify("a chunk's layers priced once (step.c layers_of)", k, stage, ch, 1, &lm->f,
					    &lm->b));
	}
	*f = lm->f;
	*b = lm->b;
}

/* What stage_ops sums over a stage's chunks, forward then backward of
 * each chunk into the same sums, in the chunks' order: kept in locals
 * (sum_chunk), so the alike chunks' run adds from registers */
struct stage_sum {
	double comp, hidden, ex[DC_STRAT_COUNT];
	double fwd, bwd, wgrad;
};

static inline void sum_chunk(struct stage_sum *a, const struct cost *f, const struct cost *b)
{
	a->comp += f->comp;
	a->hidden += f->hidden;
	for (int i = 0; i < DC_STRAT_COUNT; i++)
		a->ex[i] += f->ex[i];
	a->comp += b->comp;
	a->hidden += b->hidden;
	for (int i = 0; i < DC_STRAT_COUNT; i++)
		a->ex[i] += b->ex[i];
	a->fwd += f->dur;
	a->bwd += b->dur;
	a->wgrad += b->wgrad;
}

/* Chunk ch's forward and backward: its layers' part (kept in lm for
 * stages of the same chunks), and the embedding and the head on it */
static void chunk_costs(const struct costs *k, uint64_t stage, const struct chunk *ch, struct layers_memo *lm,
			struct cost *f, struct cost *b)
{
	layers_of(k, stage, ch, lm, f, b);
	if (ch->at.embedding || ch->at.head) {
		double share = ep_share(k, stage, 0);
		chunk_ends_cost(k, ch, 0, share, f);
		chunk_ends_cost(k, ch, 1, share, b);
	}
}

#ifdef DISTCALC_VERIFY_MEMOS
/* Chunk c's costs as stage_ops kept them (an alike chunk's, or the
 * layers' part from layers_of) against chunk_cost_of's */
static void alike_verify(const struct costs *k, uint64_t stage, uint64_t c, const struct cost *f, const struct cost *b)
{
	struct chunk ch;
	chunk_of(k->p, stage, c, &ch);
	chunk_verify("a stage's alike chunks priced once (step.c stage_ops)", k, stage, &ch, 0, f, b);
}
#endif

static void stage_ops(const struct costs *k, uint64_t stage, struct dc_step_stage *st, struct layers_memo *lm)
{
	struct cost f, b;
	struct chunk ch, prev, one;
	struct stage_sum sum = {0};
	uint64_t v = k->chunks, alike_to = 0;
	int have_one = 0;
	/* every member set below but DualPipe's pairs (no memset) */
	st->fwd_pair_first_s = st->fwd_pair_last_s = st->bwd_pair_first_s = st->bwd_pair_last_s = 0;
	/* an even interleaved split (plan.h dc_plan_chunk_start): every
	 * chunk holds L / (pp v) layers, only chunk 0 of stage 0 the
	 * embedding and only the last of stage pp - 1 the head, and the
	 * dense layers of chunk c never grow with c; so when chunks 1 and
	 * v - 2 cost alike, so do all between them (chunks 2 .. alike_to - 1
	 * are not looked up) */
	if (k->sched == DC_PIPE_INTERLEAVED && v > 3 && !k->p->chunks_uneven && k->p->runs.n <= 1 &&
	    !dc_plan_moe_interleaved(k->p)) { /* MoE every n-th layer: no order among the chunks */
		/* BF16 layers (precision.bf16_*) lie in chunk 0 of stage 0 and
		 * chunk v - 1 of stage pp - 1 alone (the loader's rule), so
		 * chunks 1 .. v - 2 hold none and stay alike */
		struct chunk end;
		chunk_of(k->p, stage, 1, &one);
		chunk_of(k->p, stage, v - 2, &end);
		have_one = 1;
		if (same_chunk_cost(&one, &end))
			alike_to = v - 1;
	}
	chunk_of(k->p, stage, 0, &prev);
	chunk_costs(k, stage, &prev, lm, &f, &b);
	sum_chunk(&sum, &f, &b);
	st->fwd_first_s = f.dur;
	st->bwd_first_s = b.dur;
	st->wgrad_first_s = b.wgrad;
	for (uint64_t c = 1; c < v; c++) {
		/* a stage's interleaved chunks are mostly alike: one alike
		 * to the chunk before it keeps that one's costs (the same
		 * function of the same inputs), still added once per chunk;
		 * one with the same layers but for the embedding or the head
		 * keeps the layers' part (layers_of) */
		if (c < 2 || c >= alike_to) { /* else alike to chunk 1, so to prev */
			if (c == 1 && have_one)
				ch = one;
			else
				chunk_of(k->p, stage, c, &ch);
			if (!same_chunk_cost(&ch, &prev)) {
				chunk_costs(k, stage, &ch, lm, &f, &b);
				prev = ch;
			}
		}
		DC_MEMO_VERIFY(alike_verify(k, stage, c, &f, &b));
		sum_chunk(&sum, &f, &b);
	}
	st->fwd_last_s = f.dur;
	st->bwd_last_s = b.dur;
	st->wgrad_last_s = b.wgrad;
	st->fwd_s = sum.fwd;
	st->bwd_s = sum.bwd;
	st->wgrad_s = sum.wgrad;
	for (int i = 0; i < DC_STRAT_COUNT; i++)
		st->exposed_s[i] = sum.ex[i];
	st->compute_s = sum.comp;
	st->hidden_s = sum.hidden;
}

/* ---- the schedule in closed form ---- */

typedef const struct dc_step_stage *(*stage_fn)(const void *ctx, uint64_t stage);

/* 1F1B (v = 1), stage k: the end of its last backward plus the drain to
 * stage 0, when stage k never idles once its first backward has come
 * (it is the bottleneck; every other stage's value is a lower bound, so
 * the maximum over k is the span). `start` is when its first forward can
 * begin, D the round trip below it (forward to the last stage and back). */
static double one_f_one_b_at(const struct dc_step_stage *s, uint64_t p, uint64_t m, uint64_t k, double start,
			     double D, double drain)
{
	uint64_t w = p - k - 1 < m ? p - k - 1 : m; /* warmup forwards */
	double f = s->fwd_s, b = s->bwd_s, end;
	if (w == m) {
		/* every forward first: backward j is ready (j + 1) f + D after start */
		end = start + D + (f >= b ? (double)m * f + b : f + (double)m * b);
	} else {
		double wait0 = max0(D - (double)w * f), tF;
		tF = start + (double)m * f + (double)(m - w - 1) * b + (m - w - 1 > 0 ? wait0 : 0);
		end = tF + b + ((double)w * b > D ? (double)w * b : D);
	}
	return end + drain;
}

/* Runs of consecutive stages with identical ops: `run_at(ctx, i, &first,
 * &len)` returns run i's ops. */
typedef const struct dc_step_stage *(*run_fn)(const void *ctx, uint64_t i, uint64_t *first, uint64_t *len);

/* A stage's chunks by place, summed over stages by pipe_closed: its first
 * (chunk 0), a middle one (the mean of chunks 1..v-2; 0 at v = 2) and its
 * last (v - 1), forward [0..2] and backward [3..5] */
#define PLACES 6
static void chunk_places(const struct dc_step_stage *sp, uint64_t v, double out[PLACES])
{
	out[0] = sp->fwd_first_s;
	out[1] = v > 2 ? (sp->fwd_s - sp->fwd_first_s - sp->fwd_last_s) / (double)(v - 2) : 0;
	out[2] = sp->fwd_last_s;
	out[3] = sp->bwd_first_s;
	out[4] = v > 2 ? (sp->bwd_s - sp->bwd_first_s - sp->bwd_last_s) / (double)(v - 2) : 0;
	out[5] = sp->bwd_last_s;
}

/* A layers' chunk of a run of stages [a, a + len) of p from its places
 * `pl` (chunk_places), forward [0] and backward [1]: what a stage runs
 * meanwhile at a change of chunk (chunk_waits), the ends' chunks aside
 * (the trace shows the waits at a layers' chunk where stage 0's first
 * chunk holds the embedding and the last stage's last the head). v > 2:
 * the middle chunks' mean; v = 2: stage 0's last, the last stage's
 * first, another stage's mean of the two (alike: no end) */
static void layers_chunk(const double pl[PLACES], uint64_t v, uint64_t p, uint64_t a, uint64_t len, double out[2])
{
	if (v > 2) {
		out[0] = pl[1];
		out[1] = pl[4];
	} else if (len == 1 && a == 0) {
		out[0] = pl[2];
		out[1] = pl[5];
	} else if (len == 1 && a == p - 1) {
		out[0] = pl[0];
		out[1] = pl[3];
	} else {
		out[0] = (pl[0] + pl[2]) / 2.0;
		out[1] = (pl[3] + pl[5]) / 2.0;
	}
}

/* The waits of a stage at its v - 1 changes of chunk each way
 * (interleaved): in the warm-up, before chunk j + 1's first forward, the
 * group's first microbatch goes round the other stages, those after it
 * (sums `post`) at chunk j and those before it (`pre`) at chunk j + 1,
 * and its p sends round the ring (`pc`: every boundary and the wrap),
 * against the p - 1 forwards the stage runs meanwhile, each a layers'
 * chunk `lay` (layers_chunk); in the cool-down the gradient goes
 * down the stages before it at chunk j + 1 and round to those after it at
 * chunk j. For equal chunks each wait is p c. */
static double chunk_waits(uint64_t p, uint64_t v, double pc, const double lay[2], const double pre[PLACES],
			  const double post[PLACES])
{
	double qf = (double)(p - 1) * lay[0], qb = (double)(p - 1) * lay[1];
	if (v == 2)
		return max0(post[0] + pre[2] + pc - qf) + max0(pre[5] + post[3] + pc - qb);
	return max0(post[0] + pre[1] + pc - qf) + (double)(v - 3) * max0(post[1] + pre[1] + pc - qf) +
	       max0(post[1] + pre[2] + pc - qf) + max0(pre[5] + post[4] + pc - qb) +
	       (double)(v - 3) * max0(pre[4] + post[4] + pc - qb) + max0(pre[4] + post[3] + pc - qb);
}

/* Stage k of a run whose first stage a starts at `pre_f`, drains through
 * `pre_b` and sees `D_a` below it: where each stage advances the prefixes
 * by one stage's chunk 0 and a send. Interleaved: `lay` the run's layers'
 * chunk, `own` a stage's places, `pre_pl` the places summed over the
 * stages before the run, `total_pl` over all. */
static double run_stage_at(const struct dc_step_stage *sp, uint64_t p, uint64_t m, uint64_t v,
			   const struct sends *c, uint64_t a, uint64_t k, double pre_f, double pre_b, double D_a,
			   double after_a, const double lay[2], const double own[PLACES], const double pre_pl[PLACES],
			   const double total_pl[PLACES])
{
	double dk = (double)(k - a), below = sends_sum(c, 0, k), above = sends_sum(c, k, p - 1);
	double start = pre_f + dk * sp->fwd_first_s + below, drain = pre_b + dk * sp->bwd_first_s + below;
	if (v == 1) {
		double D = D_a - dk * (sp->fwd_s + sp->bwd_s) + 2.0 * above;
		return one_f_one_b_at(sp, p, m, k, start, D, drain);
	}
	/* interleaved: the critical stage is busy m (f + b); the first
	 * microbatch's first chunk fills the stages before it and its last
	 * backward drains them; the stages after it add one chunk each way,
	 * (p - 1 - k) (f + b) / v, as in the equal-stage bubble
	 * (p - 1)(f + b) / v (Megatron-LM 2021 section 2.2.2); each boundary
	 * crossed costs its send. And the waits at its changes of chunk
	 * (chunk_waits: the timeline's idle time,
	 * test_interleaved_chunk_change_waits) */
	double pre[PLACES], post[PLACES];
	for (int i = 0; i < PLACES; i++) {
		pre[i] = pre_pl[i] + dk * own[i];
		post[i] = total_pl[i] - pre[i] - own[i];
	}
	return (double)m * (sp->fwd_s + sp->bwd_s) + start + drain + after_a -
	       dk * (sp->fwd_s + sp->bwd_s) / (double)v + 2.0 * above + chunk_waits(p, v, sends_ring(c, p), lay, pre, post);
}

/* ZB-H1 (Qi et al. 2024, section 2.1), stage k: 1F1B's order with each
 * backward split into B (input gradients, x = b - W) and W (weight
 * gradients), stage k deferring its W by k (every stage holds pp
 * microbatches that await their W); the first microbatch's round trip
 * below it, D, crosses the stages' F and B alone. The span is at least
 * each of these paths (each a lower bound, exact for the stage that
 * never idles once its first backward has come):
 *   p1  the stage busy from its first backward's arrival: start + wait0 + m (f + b)
 *   p2  its last forward, the last microbatch's round trip, its B and
 *       the d = min(k + 1, m) weight gradients left: t_F + D + x + d W
 *   p3  its last B, the drain of B's to stage 0 and stage 0's last W:
 *       p1 - d W + drain + W_0
 *   p4  the last microbatch's round trip drained to stage 0: t_F + D + x + drain + W_0
 * For equal stages, no sends and W <= min(f, x) the span is m (f + b) +
 * (p - 1)(f + b - 2W), the paper's bubble (test_zero_bubble_h1_by_hand). */
static double zb_stage_at(const struct dc_step_stage *sp, uint64_t p, uint64_t m, uint64_t k, double start, double D,
			  double drain, double w0)
{
	uint64_t w = p - k - 1 < m ? p - k - 1 : m, d = k + 1 < m ? k + 1 : m;
	double f = sp->fwd_s, b = sp->bwd_s, W = sp->wgrad_s, x = b - W, tF, t = 0;
	double wait0 = w < m ? max0(D - (double)w * f) : 0, tail0 = k > 0 ? w0 : 0;
	double p1 = start + wait0 + (double)m * (f + b);
	if (w < m) {
		uint64_t nb = m - w - 1, nw = nb > k ? nb - k : 0; /* B's and W's before the last forward ends */
		/* the first backward's wait comes before the last forward
		 * only when a backward does (nb > 0; as one_f_one_b_at): else
		 * the last forward is the first pair's, before the wait (p 2,
		 * m 2 with sends: 2c over the timeline without this) */
		tF = start + (nb > 0 ? wait0 : 0) + (double)m * f + (double)nb * x + (double)nw * W;
	} else {
		tF = start + (double)m * f;
	}
	t = p1;
	if (p1 - (double)d * W + drain + tail0 > t)
		t = p1 - (double)d * W + drain + tail0;
	if (tF + D + x + (double)d * W > t)
		t = tF + D + x + (double)d * W;
	if (tF + D + x + drain + tail0 > t)
		t = tF + D + x + drain + tail0;
	return t;
}

/* The stages' forward and backward by run, for the prefix sums
 * steady_sends takes: up to RUNS_FB runs on the stack, more on the heap
 * (dc_step_pipeline_closed's stages each their own run), looked up by
 * bisection; read through run_at each time only when out of memory. */
#define RUNS_FB 32
struct runs_fb {
	const void *ctx;
	run_fn run_at;
	uint64_t nruns, n; /* n: the runs kept (0: none) */
	uint64_t *first, *len;
	double *pre, *fb;
	uint64_t first_s[RUNS_FB], len_s[RUNS_FB];
	double pre_s[RUNS_FB + 1], fb_s[RUNS_FB];
	void *heap;
};

static void runs_fb_init(struct runs_fb *r, const void *ctx, run_fn run_at, uint64_t nruns)
{
	uint64_t first, len;
	r->ctx = ctx;
	r->run_at = run_at;
	r->nruns = nruns;
	r->n = 0;
	r->heap = NULL;
	r->first = r->first_s;
	r->len = r->len_s;
	r->pre = r->pre_s;
	r->fb = r->fb_s;
	if (nruns > RUNS_FB) {
		char *h = nruns < SIZE_MAX / 64 ? dc_malloc((size_t)nruns * 4 * sizeof(double) + sizeof(double)) : NULL;
		if (!h)
			return;
		r->heap = h;
		r->first = (uint64_t *)(void *)h;
		r->len = r->first + nruns;
		r->fb = (double *)(void *)(r->len + nruns);
		r->pre = r->fb + nruns;
	}
	r->pre[0] = 0;
	for (uint64_t i = 0; i < nruns; i++) {
		const struct dc_step_stage *q = run_at(ctx, i, &first, &len);
		r->first[i] = first;
		r->len[i] = len;
		r->fb[i] = q->fwd_s + q->bwd_s;
		r->pre[i + 1] = r->pre[i] + (double)len * r->fb[i];
	}
	r->n = nruns;
}

static void runs_fb_free(struct runs_fb *r)
{
	free(r->heap);
	r->heap = NULL;
}

/* The forward and backward of stages [0, s). */
static double stages_fb_before(const struct runs_fb *r, uint64_t s)
{
	double sum = 0;
	uint64_t first, len;
	if (r->n > 0) {
		/* i: the runs that start before s (first[] increases) */
		uint64_t lo = 0, hi = r->n;
		while (lo < hi) {
			uint64_t mid = lo + (hi - lo) / 2;
			if (r->first[mid] < s)
				lo = mid + 1;
			else
				hi = mid;
		}
		/* runs 0 .. lo - 1 start before s: the last of them holds s - 1
		 * or ends before it */
		if (lo == 0)
			return 0;
		if (s - r->first[lo - 1] >= r->len[lo - 1])
			return r->pre[lo];
		return r->pre[lo - 1] + (double)(s - r->first[lo - 1]) * r->fb[lo - 1];
	}
	for (uint64_t i = 0; i < r->nruns; i++) {
		const struct dc_step_stage *q = r->run_at(r->ctx, i, &first, &len);
		if (first >= s)
			break;
		sum += (double)(first + len <= s ? len : s - first) * (q->fwd_s + q->bwd_s);
	}
	return sum;
}

/* 1F1B's sends in the steady phase (docs/step-model.md, "The sends in
 * 1F1B's steady phase"). Stage k's path in one_f_one_b_at runs its S =
 * m - w pairs F(i + w), B(i) back to back; each neighbour's op of the
 * same microbatch lies one op on in its own order, so the path may leave
 * stage k and come back without skipping an op: a dip of height h goes
 * from B(i) down to stage k - h along the B's of microbatch i and back up
 * along the F's of i + w + h + 1 (stage k's pair i + h + 1), an excursion
 * of height h from F(i + w) up to stage k + h and back down along the B's
 * of microbatch i + h. Either spans 2h + 1 of stage k's ops, and replaces
 * h of stage k's pairs by the h other stages' pairs and 2h sends: gain
 * (their f + b) - h (f_k + b_k) + 2 h c. From B(0) (the path's first
 * backward) to F(m - 1) (its last forward, where the cool-down starts)
 * dips fit Sum (h + 1) <= S - 1, excursions up Sum (h + 1) <= S - 2, a dip
 * and an excursion alternating (h_d + h_u + 1) a pair of them. Each choice
 * is a path of the schedule, so the best of these is still a lower bound
 * on the span; for equal stages the last stage's dips of height p - 1 are
 * the timeline to the op (test_one_f_one_b_steady_sends). */
struct sends_ctx {
	const struct runs_fb *r;
	const struct sends *c;
	uint64_t k;
	double pre_k, fbk;
};

/* the gain of a dip (dir 0) or an excursion up (dir 1) of height h: the
 * band's ops and its boundaries' sends both ways, less h of stage k's
 * pairs */
static double sends_gain(const struct sends_ctx *x, int dir, uint64_t h)
{
	double band = dir ? stages_fb_before(x->r, x->k + h + 1) - x->pre_k - x->fbk
			  : x->pre_k - stages_fb_before(x->r, x->k - h);
	double sends = dir ? sends_sum(x->c, x->k, x->k + h) : sends_sum(x->c, x->k - h, x->k);
	return band - (double)h * x->fbk + 2.0 * sends;
}

/* n of height h within `room` (Sum (h + 1) <= room), the rest one lower */
static double sends_repeat(const struct sends_ctx *x, int dir, uint64_t h, double g, uint64_t room)
{
	uint64_t n = room / (h + 1), r = room - n * (h + 1);
	double t = (double)n * g;
	if (r >= 2)
		t += max0(sends_gain(x, dir, r - 1));
	return t;
}

/* The boundary nearest below stage k (dir 0: the largest s < k) or at or
 * above it (dir 1: the least s >= k, s < p - 1) that crosses a domain;
 * UINT64_MAX when none does. */
static uint64_t sends_nearest_crossing(const struct sends *c, uint64_t p, uint64_t k, int dir)
{
	uint64_t rk, edge, s;
	if (c->x == c->in)
		return UINT64_MAX;
	if (c->stride >= c->dom)
		return dir ? (k + 1 < p ? k : UINT64_MAX) : (k > 0 ? k - 1 : UINT64_MAX);
	rk = c->first + k * c->stride;
	if (!dir) {
		edge = rk / c->dom * c->dom; /* the domain's first rank */
		if (edge <= c->first)
			return UINT64_MAX;
		s = (edge - c->first + c->stride - 1) / c->stride - 1; /* rank s < edge <= rank s + 1 */
		return s < k ? s : UINT64_MAX;
	}
	edge = (rk / c->dom + 1) * c->dom;
	s = (edge - c->first + c->stride - 1) / c->stride - 1;
	return s + 1 < p ? s : UINT64_MAX;
}

static double steady_sends(const struct runs_fb *r, const struct sends *c, uint64_t p, uint64_t m, uint64_t k,
			   double fbk)
{
	uint64_t w = p - k - 1 < m ? p - k - 1 : m, S = m - w, first, len, h[2][3], nh[2] = {0, 0}, s;
	double g[2][3], best = 0;
	struct sends_ctx x = {r, c, k, 0, fbk};
	if (S < 2 || !(sends_sum(c, 0, p - 1) > 0))
		return 0;
	x.pre_k = stages_fb_before(r, k);
	/* heights each way: to the end, to the end's run (the ends' heavier
	 * stages left out), and over the nearest boundary that crosses a
	 * domain (its round trip alone, where it is the slow one) */
	(void)r->run_at(r->ctx, 0, &first, &len);
	if (k > 0)
		h[0][nh[0]++] = k;
	if (k > len)
		h[0][nh[0]++] = k - len;
	s = sends_nearest_crossing(c, p, k, 0);
	if (s != UINT64_MAX && k - s < k && (nh[0] < 2 || k - s != h[0][1]))
		h[0][nh[0]++] = k - s;
	(void)r->run_at(r->ctx, r->nruns - 1, &first, &len);
	if (k + 1 < p)
		h[1][nh[1]++] = p - 1 - k;
	if (first > k + 1)
		h[1][nh[1]++] = first - 1 - k;
	s = sends_nearest_crossing(c, p, k, 1);
	if (s != UINT64_MAX && s + 1 - k < p - 1 - k && (nh[1] < 2 || s + 1 - k != h[1][1]))
		h[1][nh[1]++] = s + 1 - k;
	for (int d = 0; d < 2; d++)
		for (uint64_t i = 0; i < nh[d]; i++)
			g[d][i] = sends_gain(&x, d, h[d][i]);
	for (int d = 0; d < 2; d++) {
		/* dips alone (room S - 1), excursions up alone (S - 2): n of
		 * one height, the rest of another (a lighter end makes the
		 * shorter one worth more a pair, the longer one more in all) */
		uint64_t room = S - 1 - (uint64_t)d;
		for (uint64_t i = 0; i < nh[d]; i++) {
			uint64_t most, n;
			if (!(g[d][i] > 0))
				continue;
			best = fmax(best, sends_repeat(&x, d, h[d][i], g[d][i], room));
			most = room / (h[d][i] + 1);
			/* mixed: the heights to the end and to the end's run (a
			 * lighter end), not the crossing's (its own round trip is
			 * the best a pair where it pays) */
			for (uint64_t j = 0; i < 2 && j < nh[d] && j < 2; j++) {
				if (j == i || !(g[d][j] > 0))
					continue;
				for (n = most; n > 0 && most - n < 4; n--) {
					uint64_t left = room - n * (h[d][i] + 1);
					best = fmax(best,
						    (double)n * g[d][i] + sends_repeat(&x, d, h[d][j], g[d][j], left));
				}
			}
		}
	}
	for (uint64_t i = 0; i < nh[0]; i++)
		for (uint64_t j = 0; j < nh[1]; j++) {
			/* a dip and an excursion up in turn, (h_d + h_u + 1)
			 * pairs each: n of them, then one more dip if it fits */
			uint64_t unit = h[0][i] + h[1][j] + 1, n;
			double both = g[0][i] + g[1][j];
			if (!(both > 0))
				continue;
			best = fmax(best, (double)((S - 2) / unit) * both);
			if (S - 1 >= h[0][i] + 1) {
				n = (S - 1 - (h[0][i] + 1)) / unit;
				best = fmax(best, (double)n * both + max0(g[0][i]));
			}
		}
	return best;
}

/* Adds k (and its neighbours) to the candidates when it lies in [a, b]. */
static void candidate(double k, uint64_t a, uint64_t b, uint64_t *cand, int *n)
{
	for (int d = -1; d <= 1; d++) {
		double x = k + d;
		uint64_t u;
		if (!(x >= (double)a && x <= (double)b))
			continue;
		u = (uint64_t)x;
		if (*n < 32)
			cand[(*n)++] = u;
	}
}

/* The span and the stage that sets it. *fill_s: when the critical stage's
 * first forward starts. Each stage's value is a lower bound on the span
 * (the length of a path through the schedule, exact for the stage that
 * never idles once started), so the span is their maximum; interleaved,
 * exact on equal chunks and an estimate with the ends' heavier ones
 * (run_stage_at; docs/step-model.md, "The closed form"). Within a run of
 * identical stages the value is piecewise linear in k, with its kinks where
 * the first backward's wait, the cool-down's wait or the warm-up count
 * change branch: the run's ends and the kinks bound it, so the cost is
 * O(runs) candidates, not O(pp); 1F1B's steady-phase sends look up prefix
 * sums at each run's ends, O(runs log runs) in all. */
static double pipe_closed(const void *ctx, run_fn run_at, uint64_t nruns, uint64_t p, uint64_t m, uint64_t v,
			  const struct sends *c, int zb, uint64_t *critical, double *fill_s)
{
	double total = 0, pre_fb = 0, pre_f = 0, pre_b = 0, best = -1, total_zb = 0, pre_zb = 0, pre_x = 0, w0 = 0;
	double total_pl[PLACES] = {0}, pre_pl[PLACES] = {0}, pl[PLACES] = {0}, ch[2] = {0, 0};
	/* the mean send, for the kinks' places only (each k's value takes
	 * its own boundaries' sends) */
	double cm = p > 1 ? sends_sum(c, 0, p - 1) / (double)(p - 1) : 0;
	uint64_t first, len;
	struct runs_fb rfb;
	if (v == 1 && !zb && cm > 0)
		runs_fb_init(&rfb, ctx, run_at, nruns);
	for (uint64_t i = 0; i < nruns; i++) {
		const struct dc_step_stage *q = run_at(ctx, i, &first, &len);
		total += (double)len * (q->fwd_s + q->bwd_s);
		if (v > 1) {
			chunk_places(q, v, pl);
			for (int j = 0; j < PLACES; j++)
				total_pl[j] += (double)len * pl[j];
		}
		total_zb += (double)len * (q->fwd_s + q->bwd_s - q->wgrad_s);
		if (i == 0)
			w0 = q->wgrad_s;
	}
	for (uint64_t i = 0; i < nruns; i++) {
		const struct dc_step_stage *sp = run_at(ctx, i, &first, &len);
		uint64_t a = first, b = first + len - 1, cand[32];
		double fb = sp->fwd_s + sp->bwd_s;
		/* the stages after a: ops alone (their sends per k) */
		double D_a = total - pre_fb - fb;
		double after_a = (total - pre_fb - fb) / (double)v;
		double f = sp->fwd_s, bw = sp->bwd_s, delta = f + bw + 2.0 * cm;
		int n = 0, ends;
		if (v > 1) {
			chunk_places(sp, v, pl);
			layers_chunk(pl, v, p, a, len, ch);
		}
		/* a run of one stage has one end: the same k twice would give
		 * the same value, which takes nothing from the first (a tie
		 * keeps the lower k, and k is not lower than itself) */
		cand[n++] = a;
		if (b != a)
			cand[n++] = b;
		/* the stages on either side of a boundary that crosses a domain
		 * (their sends step there): the run's first two and last two */
		if (c->x != c->in && b > a) {
			uint64_t lo = sends_nearest_crossing(c, p, a, 1), hi = sends_nearest_crossing(c, p, b, 0);
			for (int t = 0; t < 2 && lo != UINT64_MAX && lo < b; t++) {
				candidate((double)lo + 0.5, a, b, cand, &n);
				lo = lo + 1 < b ? sends_nearest_crossing(c, p, lo + 1, 1) : UINT64_MAX;
			}
			for (int t = 0; t < 2 && hi != UINT64_MAX && hi >= a; t++) {
				candidate((double)hi + 0.5, a, b, cand, &n);
				hi = hi > a ? sends_nearest_crossing(c, p, hi, 0) : UINT64_MAX;
			}
		}
		ends = n;
		if (zb) {
			/* ZB-H1: the round trip crosses F and B (x = b - W) of the
			 * stages below; a stage advances the fill by f and its
			 * send, the drain by x and its send. Kinks: the warm-up
			 * count (w = m), the weight gradients left (k + 1 = m),
			 * the first wait */
			double x = bw - sp->wgrad_s, Dz = total_zb - pre_zb - (f + x);
			candidate((double)p - 1.0 - (double)m, a, b, cand, &n);
			candidate((double)m - 1.0, a, b, cand, &n);
			if (x + 2.0 * cm != 0)
				candidate((Dz + 2.0 * (double)(p - 1 - a) * cm + (double)a * (f + x + 2.0 * cm) -
					   (double)(p - 1) * f) /
						  (x + 2.0 * cm),
					  a, b, cand, &n);
			for (int j = 0; j < n; j++) {
				uint64_t k = cand[j];
				double dk = (double)(k - a), below = sends_sum(c, 0, k);
				double t = zb_stage_at(sp, p, m, k, pre_f + dk * f + below,
						       Dz - dk * (f + x) + 2.0 * sends_sum(c, k, p - 1), pre_x + dk * x + below,
						       w0);
				if (t > best || (t == best && k < *critical)) {
					best = t;
					*critical = k;
					*fill_s = pre_f + dk * f + below;
				}
			}
			pre_zb += (double)len * (f + x);
			pre_x += (double)len * x;
			pre_f += (double)len * f;
			continue;
		}
		if (v == 1 && len > 2) {
			/* D_k = w f (first backward's wait), w b = D_k (cool-down),
			 * w = m and m - w - 1 = 0 (the warm-up count), at the mean
			 * send */
			double Dm = D_a + 2.0 * (double)(p - 1 - a) * cm;
			if (delta - f != 0)
				candidate((Dm + (double)a * delta - (double)(p - 1) * f) / (delta - f), a, b, cand, &n);
			if (bw - delta != 0)
				candidate(((double)(p - 1) * bw - Dm - (double)a * delta) / (bw - delta), a, b, cand, &n);
			candidate((double)p - 1.0 - (double)m, a, b, cand, &n);
			candidate((double)p - (double)m, a, b, cand, &n);
		}
		for (int j = 0; j < n; j++) {
			uint64_t k = cand[j];
			double t = run_stage_at(sp, p, m, v, c, a, k, pre_f, pre_b, D_a, after_a, ch, pl, pre_pl, total_pl);
			/* the steady phase's sends at the run's ends and beside
			 * its crossings: the kinks only move where the first wait
			 * or the cool-down's ends, which the sends leave alone */
			if (v == 1 && j < ends)
				t += steady_sends(&rfb, c, p, m, k, fb);
			if (t > best || (t == best && k < *critical)) {
				best = t;
				*critical = k;
				*fill_s = pre_f + (double)(k - a) * sp->fwd_first_s + sends_sum(c, 0, k);
			}
		}
		if (v > 1)
			for (int j = 0; j < PLACES; j++)
				pre_pl[j] += (double)len * pl[j];
		pre_fb += (double)len * fb;
		pre_f += (double)len * sp->fwd_first_s;
		pre_b += (double)len * sp->bwd_first_s;
	}
	if (v == 1 && !zb && cm > 0)
		runs_fb_free(&rfb);
	return best;
}

struct array_ctx {
	const struct dc_step_stage *st;
};

/* every stage its own run */
static const struct dc_step_stage *array_run(const void *ctx, uint64_t i, uint64_t *first, uint64_t *len)
{
	*first = i;
	*len = 1;
	return &((const struct array_ctx *)ctx)->st[i];
}

double dc_step_pipeline_closed(const struct dc_step_pipe *pp, uint64_t *critical)
{
	struct array_ctx a = {pp->stage};
	double fill, t;
	uint64_t k = 0;
	if (pp->schedule == DC_PIPE_DUALPIPE || pp->schedule == DC_PIPE_DUALPIPEV) {
		/* no closed form: the simulation's span and last rank */
		double *end = dc_calloc((size_t)pp->p, sizeof(double));
		if (!end || dc_step_pipeline_simulate(pp, end, &t) != 0) {
			free(end);
			return -1;
		}
		for (uint64_t r = 0; r < pp->p; r++)
			if (end[r] > end[k])
				k = r;
		free(end);
		if (critical)
			*critical = k;
		return t;
	}
	struct sends u = sends_uniform(pp->send_s);
	t = pipe_closed(&a, array_run, pp->p, pp->p, pp->m, pp->v, &u, pp->schedule == DC_PIPE_ZERO_BUBBLE, &k,
			&fill);
	if (critical)
		*critical = k;
	return t;
}

/* ---- the gradient buckets ---- */

double dc_step_bucket_tail(const struct dc_step_buckets *b, double window_s)
{
	/* bucket j is ready when the backward has produced its bytes,
	 * ready_j = W cum_j / total before the end of the window; the stream
	 * runs them in order, so the last ends at max_j (ready_j + the calls
	 * from j on). Within a group of equal calls that is linear in j: the
	 * group's first and last calls bound it */
	double after = b->total_s, best = 0;
	uint64_t cum = 0;
	if (b->total_bytes == 0)
		return 0;
	for (uint64_t g = 0; g < b->ngroups; g++) {
		double per_byte = window_s / (double)b->total_bytes;
		uint64_t n = b->n[g];
		if (n == 0)
			continue;
		for (int end = 0; end < 2; end++) {
			uint64_t j = end ? n - 1 : 0;
			double ready = (double)(cum + (j + 1) * b->bytes[g]) * per_byte;
			double finish = ready + after - (double)j * b->call_s[g];
			if (finish - window_s > best)
				best = finish - window_s;
		}
		cum += n * b->bytes[g];
		after -= (double)n * b->call_s[g];
	}
	return best;
}

double dc_step_param_gather_exposed(const struct dc_step_buckets *b, double window_s)
{
	/* forward order: the last group first; bucket j of a group (n calls
	 * of t seconds, f = window bytes / total forward seconds each) is
	 * waited for by max(0, done_before + (j + 1) t - fwd_before - j f),
	 * linear in j, so the group's ends bound it */
	double done = 0, fwd = 0, best = 0;
	if (b->total_bytes == 0)
		return 0;
	for (uint64_t g = b->ngroups; g-- > 0;) {
		uint64_t n = b->n[g];
		double f = window_s * (double)b->bytes[g] / (double)b->total_bytes;
		if (n == 0)
			continue;
		for (int end = 0; end < 2; end++) {
			double j = end ? (double)(n - 1) : 0;
			double wait = done + (j + 1.0) * b->call_s[g] - fwd - j * f;
			if (wait > best)
				best = wait;
		}
		done += (double)n * b->call_s[g];
		fwd += (double)n * f;
	}
	return best;
}

/* The DP strategy's calls: the buckets of the last microbatch's backward,
 * what earlier microbatches reduce (ZeRO-2), what follows the optimizer. */
struct dp_calls {
	struct dc_step_buckets last;
	/* FSDP with a pipeline: the units' ReduceScatters (and their
	 * replicas' and mirror's AllReduces) after the stage's last backward,
	 * behind no compute (costs_init) */
	double fsdp_tail_s;
	double earlier_s; /* ZeRO-2: the gradient calls of the microbatches before (dp_calls) */
	double post_s;    /* after the optimizer step: ZeRO's AllGather of the updated params */
	uint64_t post_calls;
	struct dc_step_buckets post; /* its calls (overlap.param_gather) */
};

/* DualPipe's sum with the mirror rank (src/axis/dp.c mirror_sum) */
static int mirror_row(const struct dc_coll *c)
{
	return c->what == DC_CW_MIRROR_GRAD_BUCKET || c->what == DC_CW_MIRROR_EXPERT_GRAD_BUCKET;
}

/* A backward row that sums again gradients a reduction before it reduced
 * (HSDP's shard across the replicas, DualPipe's with the mirror rank) */
static int resums(const struct dc_coll *c)
{
	return c->what == DC_CW_REPLICA_GRAD_BUCKET || c->what == DC_CW_REPLICA_EXPERT_GRAD_BUCKET || mirror_row(c);
}

/* Appends row c to b as a group of n calls of `call` seconds, `time` in
 * all */
static void bucket_group(struct dc_step_buckets *b, const struct dc_coll *c, uint64_t n, double call, double time)
{
	b->n[b->ngroups] = n;
	b->bytes[b->ngroups] = c->msg_bytes;
	b->call_s[b->ngroups] = call;
	b->kind[b->ngroups] = c->kind;
	b->what[b->ngroups] = c->what;
	b->resums[b->ngroups] = 0;
	b->ngroups++;
	b->total_bytes += n * c->msg_bytes;
	b->total_s += time;
}

/* A row of the routed experts' gradients */
static int expert_row(const struct dc_coll *c)
{
	return c->what == DC_CW_EXPERT_GRAD_BUCKET || c->what == DC_CW_REPLICA_EXPERT_GRAD_BUCKET ||
	       c->what == DC_CW_MIRROR_EXPERT_GRAD_BUCKET;
}

/* The calls of a DP strategy's rows `s` (the comm result's, or a rank's
 * own: rank_dp) */
static void dp_calls(const struct dc_plan *p, const struct dc_comm_strategy *s, struct dp_calls *d)
{
	/* the groups that reduce the dense (0) or expert (1) gradients the
	 * backward produced, in order, and of what kind of re-sum each was
	 * itself (-1: a reduction; 0 replicas, 1 mirror: a re-sum that
	 * found nothing before it to follow, so the reduction); used[k][t]:
	 * the groups of kind k a re-sum of kind t has followed so far */
	uint64_t prim[2][DC_COMM_MAX_COLL], nprim[2] = {0, 0}, used[2][2] = {{0, 0}, {0, 0}};
	int ptype[2][DC_COMM_MAX_COLL];
	/* ZeRO-2: each chunk's buckets reduced every microbatch it runs, a
	 * ReduceScatter each, or an AllReduce each under training.framework
	 * deepspeed (src/axis/dp.c); the step reads their phase, not the op */
	/* the rows count every schedule's (dp.c dp_sync): one schedule's
	 * calls are their share, F of them a step (compose) */
	uint64_t sched = dc_layout_schedules(&p->layout);
	uint64_t gas = dc_pipeline_chunk_microbatches(p) / sched;
	uint64_t per = p->layout.sharding == DC_SHARD_ZERO2 ? gas : 1;
	/* the groups' arrays are read up to ngroups alone: the sums zeroed */
	d->last.ngroups = d->post.ngroups = 0;
	d->last.total_bytes = d->post.total_bytes = 0;
	d->last.total_s = d->post.total_s = 0;
	d->earlier_s = d->post_s = 0;
	d->fsdp_tail_s = 0;
	d->post_calls = 0;
	if (!s->in_play)
		return;
	for (uint64_t i = 0; i < s->ncoll; i++) {
		const struct dc_coll *c = &s->coll[i];
		double call = c->count ? c->time_s / (double)c->count : 0;
		if (c->phase == DC_CPHASE_BACKWARD) {
			/* DualPipe's mirror sum runs once, after the last
			 * microbatch (src/axis/dp.c mirror_sum) */
			int mirror = mirror_row(c);
			int kind = expert_row(c), t = mirror;
			uint64_t count = c->count / sched; /* one schedule's */
			uint64_t n = mirror ? count : count / per;
			struct dc_step_buckets *b = &d->last;
			if (resums(c)) {
				/* a second sum of each bucket a reduction before it
				 * reduced (HSDP's across the replicas, DualPipe's with
				 * the mirror): it brings no new gradient and runs
				 * right after that bucket's call, as one on the
				 * bucket's stream (Megatron-Core's start_grad_sync
				 * reduces a bucket group, then all-reduces it across
				 * the optimizer instances), as many calls as that
				 * reduction's: the used[kind][t]-th group of this
				 * kind that is not itself a re-sum of type t */
				uint64_t k = 0, seen = 0, g = UINT64_MAX;
				for (; k < nprim[kind]; k++)
					if (ptype[kind][k] != t && seen++ == used[kind][t]) {
						g = prim[kind][k];
						break;
					}
				if (g != UINT64_MAX && b->n[g] == n) {
					used[kind][t]++;
					b->call_s[g] += call;
					b->resums[g] |= mirror ? DC_STEP_RESUM_MIRROR : DC_STEP_RESUM_REPLICAS;
					b->total_s += (double)n * call;
					d->earlier_s += (double)(count - n) * call;
					continue;
				}
			}
			/* a reduction of the gradients the backward produced (a
			 * re-sum with nothing before it to follow is one) */
			ptype[kind][nprim[kind]] = resums(c) ? t : -1;
			prim[kind][nprim[kind]++] = b->ngroups;
			bucket_group(b, c, n, call, (double)n * call);
			d->earlier_s += (double)(count - n) * call;
		} else {
			d->post_s += c->time_s;
			d->post_calls += c->count;
			bucket_group(&d->post, c, c->count, call, c->time_s);
		}
	}
}

/* ---- the step ---- */

/* Stages of one plan segment hold the same layers, so the same ops, but
 * for the first (the embedding) and the last (the head): their ops are
 * computed once each, and every per-stage loop reads them (O(segments)
 * op costs, O(pp) arithmetic). */
/* What follows a stage's last backward (stage_sync): its buckets' tail
 * (FSDP's units' after a pipeline's last backward among it: fsdp), the
 * backward's slowdown under the hidden ones, their hidden time, and after
 * the optimizer its updated parameters' AllGather (post) */
struct stage_sync_t {
	double tail, pen, hid, post, fsdp;
};

struct step_ctx {
	struct costs k;
	const struct dc_comm *comm;
	/* the DP calls of the comm result's rows: the analysed stage's
	 * rank's, and every rank's holding as many parameters (rank_dp) */
	struct dp_calls dp;
	uint64_t pp;
	struct dc_step_stage first, last, mid[DC_PLAN_MAX_SEGMENTS];
	struct stage_sync_t sync_first, sync_last, sync_mid[DC_PLAN_MAX_SEGMENTS];
	uint64_t mid_stage[DC_PLAN_MAX_SEGMENTS]; /* the stage mid[] was computed for */
	/* runs of identical stages, in order (runs_of) */
	uint64_t nruns, run_first[DC_PLAN_MAX_SEGMENTS + 2], run_len[DC_PLAN_MAX_SEGMENTS + 2];
	const struct dc_step_stage *run_ops[DC_PLAN_MAX_SEGMENTS + 2];
	/* DualPipe and DualPipeV: every rank's own ops (its two chunks are
	 * two stages of the model, mirrored), from the simulation; NULL
	 * otherwise */
	const struct dc_step_stage *dev;
	const struct stage_sync_t *dev_sync;
};

static void stage_sync(const struct step_ctx *x, const struct dc_step_stage *st, const struct dp_calls *d,
		       struct stage_sync_t *out);
static void runs_of(struct step_ctx *x);

/* Each rank's own gradients (docs/step-model.md, "Each rank's own
 * gradients"): the DP calls of pipeline rank `rank`, the comm result's
 * (x->dp) where the rank holds the analysed one's parameter counts (all
 * and the routed experts': what src/axis/dp.c reads), else rows of its
 * own (comm.h dc_comm_sync_rows) kept in *kp, DP_KEEP at a time, for the
 * ranks of a class that hold the same. FSDP under a pipeline: the tail of
 * its own units (fsdp.c reads the stage too: the analysed rank's, else
 * its own, kept by rank). In a search (the plan's step memo, with the
 * comm result's search memo context) the calls are kept across layouts
 * instead, keyed as the rows are (the step memo's dp slots): *out then
 * points into the memo, valid until the next rank_dp call on any plan
 * lent the same memo (the thread's), so each caller reads it before its
 * next call. Returns 0, or -1 with *error. */
#define DP_KEEP 4
struct dp_keep {
	unsigned n, next;
	uint64_t key[DP_KEEP][2];
	struct dp_calls d[DP_KEEP];
};

/* The search's DP calls kept across layouts: a slot holds the calls of
 * the rows whose key (comm.h dc_comm_sync_key) it names, emitted in the
 * comm memo's context `epoch` (comm.h struct dc_comm memo_epoch: a plan
 * whose comm result has that number has those groups and that network,
 * so the same rows for the key) */
#define DP_MEMO_SLOTS 64
struct dp_memo_slot {
	int have;
	uint64_t epoch;
	struct dc_comm_sync_key key;
	struct dp_calls d;
};

struct step_key {
	struct costs k;
	struct dc_work_time dense, moe, embedding, head;
	uint64_t pp, v, gas, layers_per_stage, layers_per_chunk, dense_limit, nsegments;
	uint64_t segment_first[DC_PLAN_MAX_SEGMENTS + 1];
};

struct sim_orders; /* the schedules' op orders (the timeline below) */
struct sim_memo;   /* the last simulated schedule's times (the timeline below) */
static void orders_free(struct sim_orders *c);
static void sim_memo_free(struct sim_memo *sm);

struct dc_step_memo {
	struct sim_orders *orders; /* the simulated schedules' op orders (order_get); NULL until one is kept */
	struct sim_memo *sim;      /* the last simulation's times (sim_memo_take); NULL until one is kept */
	int have;   /* key and the values below are the last stored */
	int probed; /* key is this step's (memo_take missed), its values not yet stored */
	struct step_key key;
	struct dc_step_stage first, last, mid[DC_PLAN_MAX_SEGMENTS];
	uint64_t mid_stage[DC_PLAN_MAX_SEGMENTS];
	double span, fill;
	uint64_t critical;
	struct dp_memo_slot dp[DP_MEMO_SLOTS]; /* rank_dp's, across layouts */
	/* the simulation's op times and ends (sim_alloc), kept for the next
	 * layout's: a search allocates and touches them afresh no more */
	double *scratch;
	size_t scratch_n; /* doubles */
};

/* The slot key maps to */
static unsigned dp_memo_slot_of(const struct dc_comm_sync_key *k)
{
	uint64_t h = (k->sharding + 1) * 0x9e3779b97f4a7c15ull ^ (k->chunk_mbs + 3 * k->in_flight) * 0xff51afd7ed558ccdull ^
		     (k->stage + k->best.total) * 0xc4ceb9fe1a85ec53ull ^ k->best.expert_params * 0x94d049bb133111ebull;
	h ^= h >> 29;
	return (unsigned)(h % DP_MEMO_SLOTS);
}

/* The rank's DP calls: dp_calls of its rows, and under FSDP its units'
 * tail (none of DP in play beside it) */
static int rank_calls(const struct step_ctx *x, int fsdp, uint64_t rank, const struct dc_stage_params *r,
		      const struct dc_comm_sync_key *key, struct dp_calls *d, const char **error)
{
	const struct dc_plan *p = x->k.p;
	struct dc_comm_strategy rows;
	if (dc_comm_sync_rows_keyed(p, x->comm, fsdp ? DC_STRAT_FSDP : DC_STRAT_DP, rank, r, key, &rows, error) != 0)
		return -1;
	if (fsdp) {
		dp_calls(p, &x->comm->s[DC_STRAT_DP], d); /* none in play beside FSDP */
		d->fsdp_tail_s = fsdp_tail_of(p, &rows);
	} else {
		dp_calls(p, &rows, d);
	}
	return 0;
}

#ifdef DISTCALC_VERIFY_MEMOS
/* A kept slot's calls against the rank's emitted again */
static void dp_memo_verify(const struct step_ctx *x, int fsdp, uint64_t rank, const struct dc_stage_params *r,
			   const struct dp_calls *kept)
{
	static const char memo[] = "a rank's DP calls kept across a search's layouts (src/est/step.c dp_memo)";
	struct dp_calls *f = malloc(sizeof(*f));
	const char *err = NULL;
	const struct dc_step_buckets *bk[2] = {&kept->last, &kept->post}, *bf[2];
	if (!f || rank_calls(x, fsdp, rank, r, NULL, f, &err) != 0)
		abort(); /* a debug build's check: the kept calls had none */
	bf[0] = &f->last;
	bf[1] = &f->post;
	for (int i = 0; i < 2; i++) {
		dc_memo_verify_u64(memo, "groups", bk[i]->ngroups, bf[i]->ngroups);
		dc_memo_verify_u64(memo, "bytes", bk[i]->total_bytes, bf[i]->total_bytes);
		dc_memo_verify_double(memo, "seconds", bk[i]->total_s, bf[i]->total_s);
		for (uint64_t g = 0; g < bk[i]->ngroups; g++) {
			dc_memo_verify_u64(memo, "a group's calls", bk[i]->n[g], bf[i]->n[g]);
			dc_memo_verify_u64(memo, "a group's bytes", bk[i]->bytes[g], bf[i]->bytes[g]);
			dc_memo_verify_double(memo, "a group's call", bk[i]->call_s[g], bf[i]->call_s[g]);
			dc_memo_verify_u64(memo, "a group's op", (uint64_t)bk[i]->kind[g], (uint64_t)bf[i]->kind[g]);
			dc_memo_verify_u64(memo, "a group's rows", (uint64_t)bk[i]->what[g], (uint64_t)bf[i]->what[g]);
			dc_memo_verify_u64(memo, "a group's re-sums", bk[i]->resums[g], bf[i]->resums[g]);
		}
	}
	dc_memo_verify_double(memo, "FSDP's tail", kept->fsdp_tail_s, f->fsdp_tail_s);
	dc_memo_verify_double(memo, "the earlier microbatches'", kept->earlier_s, f->earlier_s);
	dc_memo_verify_double(memo, "the AllGather's", kept->post_s, f->post_s);
	dc_memo_verify_u64(memo, "the AllGather's calls", kept->post_calls, f->post_calls);
	free(f);
}
#endif

static int rank_dp(const struct step_ctx *x, uint64_t rank, struct dp_keep *kp, const struct dp_calls **out,
		   const char **error)
{
	const struct dc_plan *p = x->k.p;
	const struct dc_comm *comm = x->comm;
	struct dc_stage_params r;
	/* FSDP's tail under a pipeline (costs_init), keyed by the rank */
	int fsdp = comm->s[DC_STRAT_FSDP].in_play && p->layout.pp > 1;
	uint64_t key[2];
	unsigned i;
	*out = &x->dp;
	if (!comm->s[DC_STRAT_DP].in_play && !fsdp)
		return 0;
	if (fsdp && rank == comm->stage)
		return 0;
	if (dc_memory_rank_params(p, rank, &r) != 0) {
		*error = "'model' x 'parallel': a pipeline rank's parameters overflow 64 bits";
		return -1;
	}
	if (!fsdp && r.total == comm->dp_params && r.expert_params == comm->dp_expert_params)
		return 0;
	if (p->step_memo && comm->memo && comm->memo == p->comm_memo && comm->memo_epoch) {
		/* a search: across its layouts */
		struct dc_comm_sync_key k;
		struct dp_memo_slot *sl;
		dc_comm_sync_key(p, fsdp ? DC_STRAT_FSDP : DC_STRAT_DP, rank, &r, &k);
		sl = &p->step_memo->dp[dp_memo_slot_of(&k)];
		if (sl->have && sl->epoch == comm->memo_epoch && memcmp(&sl->key, &k, sizeof(k)) == 0) {
			DC_MEMO_VERIFY(dp_memo_verify(x, fsdp, rank, &r, &sl->d));
			*out = &sl->d;
			return 0;
		}
		sl->have = 0;
		if (rank_calls(x, fsdp, rank, &r, &k, &sl->d, error) != 0)
			return -1;
		sl->have = 1;
		sl->epoch = comm->memo_epoch;
		sl->key = k;
		*out = &sl->d;
		return 0;
	}
	key[0] = fsdp ? rank : r.total;
	key[1] = fsdp ? UINT64_MAX : r.expert_params;
	for (i = 0; i < kp->n; i++)
		if (kp->key[i][0] == key[0] && kp->key[i][1] == key[1]) {
			*out = &kp->d[i];
			return 0;
		}
	i = kp->next;
	if (rank_calls(x, fsdp, rank, &r, NULL, &kp->d[i], error) != 0)
		return -1;
	kp->next = (kp->next + 1) % DP_KEEP;
	if (kp->n < DP_KEEP)
		kp->n++;
	kp->key[i][0] = key[0];
	kp->key[i][1] = key[1];
	*out = &kp->d[i];
	return 0;
}

/* ops_of and its sync for `stage` of segment `seg` */
static const struct dc_step_stage *ops_seg(const struct step_ctx *x, uint64_t stage, uint64_t seg)
{
	if (x->dev)
		return &x->dev[stage];
	return stage == 0 ? &x->first : stage + 1 == x->pp ? &x->last : &x->mid[seg];
}

static const struct stage_sync_t *sync_seg(const struct step_ctx *x, uint64_t stage, uint64_t seg)
{
	if (x->dev_sync)
		return &x->dev_sync[stage];
	return stage == 0 ? &x->sync_first : stage + 1 == x->pp ? &x->sync_last : &x->sync_mid[seg];
}

/* The stage whose ops stand for `stage`'s. */
static uint64_t rep_stage(const struct step_ctx *x, uint64_t stage)
{
	if (stage == 0 || stage + 1 == x->pp)
		return stage;
	return x->mid_stage[dc_plan_stage_segment(x->k.p, stage)];
}

static const struct dc_step_stage *ops_of(const struct step_ctx *x, uint64_t stage)
{
	if (x->dev)
		return &x->dev[stage];
	if (stage == 0)
		return &x->first;
	if (stage + 1 == x->pp)
		return &x->last;
	return &x->mid[dc_plan_stage_segment(x->k.p, stage)];
}

void dc_step_tp_layer_of(const struct dc_plan *p, const struct dc_comm *comm, int moe, struct dc_step_tp_layer *t)
{
	struct costs k;
	int c = moe != 0;
	costs_init(&k, p, NULL, comm);
	t->fwd_s = k.tp_f[c];
	t->bwd_s = k.tp_b[c];
	t->bwd_async_s = k.tp_b_async[c];
	for (int i = 0; i < 2; i++) {
		t->bwd_async_grad_s[i] = k.as_grad[c][i];
		t->bwd_async_regather_s[i] = k.as_regather[c][i];
	}
}

void dc_step_tp_layer(const struct dc_plan *p, const struct dc_comm *comm, struct dc_step_tp_layer *t)
{
	/* a dense layer's, or a MoE layer's where the analysed rank holds
	 * only those */
	dc_step_tp_layer_of(p, comm, comm->stage_moe_layers && comm->stage_moe_layers >= comm->layers, t);
}

/* ---- the stages' ops memoised across a search's layouts ---- */

/* Everything ctx_stages and pipe_closed read: the per-layer costs (x->k,
 * bytes as costs_init left them, zeroed first), the layers' kernel times,
 * and the plan's stages (an even split: one run, chunks L / (pp v); its
 * segments). Compared as bytes, so a match is the same inputs bit for bit
 * (-0 and +0 differ). */
struct dc_step_memo *dc_step_memo_new(void)
{
	return dc_calloc(1, sizeof(struct dc_step_memo));
}

void dc_step_memo_free(struct dc_step_memo *m)
{
	if (!m)
		return;
	orders_free(m->orders);
	sim_memo_free(m->sim);
	free(m->scratch);
	free(m);
}

/* 1 when the plan's stages are what step_key describes: one run (no
 * pipeline_layers, no first/last-stage forms) and even chunks, and no
 * BF16 layers among FP8 ones (precision.bf16_*: their kernel times are
 * not in the key) */
static int memo_fits(const struct dc_plan *p)
{
	const struct dc_precision *pr = &p->in->precision;
	return p->runs.n <= 1 && !p->chunks_uneven && p->nsegments <= DC_PLAN_MAX_SEGMENTS &&
	       !(pr->compute == DC_COMPUTE_FP8 && (pr->bf16_first_layers || pr->bf16_last_layers));
}

/* 1 when key is this step's: the plan's scalars first, then the bytes */
static int memo_same(const struct step_key *key, const struct step_ctx *x, const struct dc_plan *p,
		     const struct dc_compute *c)
{
	if (key->pp != p->layout.pp || key->v != p->v || key->gas != p->layout.grad_accum_steps ||
	    key->layers_per_stage != p->layers_per_stage || key->layers_per_chunk != p->layers_per_chunk ||
	    key->dense_limit != p->dense_limit || key->nsegments != p->nsegments)
		return 0;
	for (uint64_t i = 0; i <= p->nsegments; i++)
		if (key->segment_first[i] != p->segment_first[i])
			return 0;
	return memcmp(&key->k, &x->k, sizeof(key->k)) == 0 &&
	       memcmp(&key->dense, &c->dense_layer, sizeof(key->dense)) == 0 &&
	       memcmp(&key->moe, &c->moe_layer, sizeof(key->moe)) == 0 &&
	       memcmp(&key->embedding, &c->embedding, sizeof(key->embedding)) == 0 &&
	       memcmp(&key->head, &c->head, sizeof(key->head)) == 0;
}

/* key := this step's (every member written: struct costs's padding is
 * costs_init's zeroes, the others have none) */
static void memo_key(const struct step_ctx *x, const struct dc_plan *p, const struct dc_compute *c,
		     struct step_key *key)
{
	memcpy(&key->k, &x->k, sizeof(key->k));
	key->dense = c->dense_layer;
	key->moe = c->moe_layer;
	key->embedding = c->embedding;
	key->head = c->head;
	key->pp = p->layout.pp;
	key->v = p->v;
	key->gas = p->layout.grad_accum_steps;
	key->layers_per_stage = p->layers_per_stage;
	key->layers_per_chunk = p->layers_per_chunk;
	key->dense_limit = p->dense_limit;
	key->nsegments = p->nsegments;
	for (uint64_t i = 0; i <= p->nsegments; i++)
		key->segment_first[i] = p->segment_first[i];
}

/* The stages' ops of the last step stored with the same key: 1 with
 * x->first, last, mid and mid_stage set, else 0 (the key kept for
 * memo_put). */
static int memo_take(struct dc_step_memo *m, struct step_ctx *x, const struct dc_plan *p, const struct dc_compute *c)
{
	m->probed = 0;
	if (!memo_fits(p))
		return 0;
	if (!m->have || !memo_same(&m->key, x, p, c)) {
		m->have = 0;
		memo_key(x, p, c, &m->key);
		m->probed = 1;
		return 0;
	}
	x->first = m->first;
	x->last = m->last;
	for (uint64_t i = 0; i < p->nsegments; i++) {
		x->mid[i] = m->mid[i];
		x->mid_stage[i] = m->mid_stage[i];
	}
	return 1;
}

/* Stores the stages' ops and the span of the step memo_take probed. */
static void memo_put(struct dc_step_memo *m, const struct step_ctx *x, const struct dc_plan *p, double span,
		     uint64_t critical, double fill)
{
	if (!m->probed)
		return;
	m->probed = 0;
	m->first = x->first;
	m->last = x->last;
	for (uint64_t i = 0; i < p->nsegments; i++) {
		m->mid[i] = x->mid[i];
		m->mid_stage[i] = x->mid_stage[i];
	}
	m->span = span;
	m->critical = critical;
	m->fill = fill;
	m->have = 1;
}

/* The stage whose ops stand for segment i's middle stages (mid_stage),
 * or, where the segment has none, first's (0) or last's (pp - 1). */
static uint64_t mid_of(const struct step_ctx *x, const struct dc_plan *p, uint64_t i)
{
	uint64_t f = p->segment_first[i], l = p->segment_first[i + 1] - 1;
	uint64_t m = f == 0 ? 1 : f;
	if (m >= l && l + 1 == x->pp)
		m = l; /* no middle stage: never read as one */
	return m;
}

static int mid_is_copy(const struct step_ctx *x, const struct dc_plan *p, uint64_t i, uint64_t m)
{
	return m == 0 || m + 1 >= x->pp || m > p->segment_first[i + 1] - 1;
}

/* Every stage's ops: first, last, and each segment's middle stages
 * (a copy of first's or last's where the segment has none). */
static void ctx_stages(struct step_ctx *x, const struct dc_plan *p)
{
	struct layers_memo lm = {0}; /* have 0; zeroed whole, so an -O3 build sees no cost read unset */
	stage_ops(&x->k, 0, &x->first, &lm);
	if (x->pp == 1)
		x->last = x->first;
	else
		stage_ops(&x->k, x->pp - 1, &x->last, &lm);
	for (uint64_t i = 0; i < p->nsegments; i++) {
		uint64_t m = mid_of(x, p, i);
		x->mid_stage[i] = m;
		if (mid_is_copy(x, p, i, m))
			x->mid[i] = m == 0 ? x->first : x->last; /* never read */
		else
			stage_ops(&x->k, m, &x->mid[i], &lm);
	}
}

/* What d's AllGather of the updated parameters adds after the optimizer:
 * all of it, or under Megatron's --overlap-param-gather, where it runs
 * behind the next step's first forward on stage 0 (where the step
 * starts), what shows, holding that forward up, and what the hidden part
 * slows it by (x's stages computed) */
static double post_of(const struct step_ctx *x, const struct dp_calls *d)
{
	double shown;
	if (!dc_framework_param_gather(x->k.p) || !(d->post_s > 0))
		return d->post_s;
	shown = dc_step_param_gather_exposed(&d->post, x->first.fwd_s);
	if (shown > d->post_s)
		shown = d->post_s;
	return shown + x->k.slow * (d->post_s - shown);
}

/* x for the plan; with `memo` (a search's), the stages' ops come from it
 * when it holds this step's (*hit 1: memo->span and its fellows are the
 * step's schedule too). Returns 0, or -1 with *error (rank_dp). */
static int ctx_init(struct step_ctx *x, const struct dc_plan *p, const struct dc_compute *c,
		    const struct dc_comm *comm, struct dc_step_memo *memo, int *hit, const char **error)
{
	struct dp_keep kp;
	const struct dp_calls *d;
	*hit = 0;
	costs_init(&x->k, p, c, comm);
	x->comm = comm;
	dp_calls(p, &comm->s[DC_STRAT_DP], &x->dp);
	x->dp.fsdp_tail_s = x->k.fsdp_tail_s;
	x->pp = p->layout.pp;
	x->dev = NULL;
	x->dev_sync = NULL;
	if (memo)
		*hit = memo_take(memo, x, p, c);
	if (!*hit)
		ctx_stages(x, p);
	/* stage_sync is a function of the buckets and the ops it is given
	 * alone: a copy of first's (or last's) ops gets a copy of its sync,
	 * the same values (pp = 1: last and every segment's are first's);
	 * each run's buckets are its first stage's rank's (rank_dp: the
	 * stages of a segment hold the same parameters; a DualPipe rank
	 * pairs two stages, so its runs' syncs stand only for the closed
	 * form past the bound, the simulation giving each rank its own:
	 * dev_sync) */
	kp.n = kp.next = 0;
	if (rank_dp(x, 0, &kp, &d, error) != 0)
		return -1;
	stage_sync(x, &x->first, d, &x->sync_first);
	if (x->pp == 1) {
		x->sync_last = x->sync_first;
	} else {
		if (rank_dp(x, x->pp - 1, &kp, &d, error) != 0)
			return -1;
		stage_sync(x, &x->last, d, &x->sync_last);
	}
	for (uint64_t i = 0; i < p->nsegments; i++) {
		uint64_t m = x->mid_stage[i];
		if (mid_is_copy(x, p, i, m)) {
			x->sync_mid[i] = m == 0 ? x->sync_first : x->sync_last; /* never read */
			continue;
		}
		if (rank_dp(x, m, &kp, &d, error) != 0)
			return -1;
		stage_sync(x, &x->mid[i], d, &x->sync_mid[i]);
	}
	runs_of(x);
	return 0;
}

/* The runs of the plan: stage 0, each segment's stages between, stage
 * pp - 1 (runs_of fills them once). */
static void runs_of(struct step_ctx *x)
{
	const struct dc_plan *p = x->k.p;
	uint64_t n = 0;
	x->run_first[n] = 0;
	x->run_len[n] = 1;
	x->run_ops[n++] = &x->first;
	for (uint64_t i = 0; x->pp > 2 && i < p->nsegments; i++) {
		/* the segment's stages but the first and the last of the model */
		uint64_t f = p->segment_first[i], l = p->segment_first[i + 1] - 1;
		if (f < 1)
			f = 1;
		if (l > x->pp - 2)
			l = x->pp - 2;
		if (f > l)
			continue;
		x->run_first[n] = f;
		x->run_len[n] = l - f + 1;
		x->run_ops[n++] = &x->mid[i];
	}
	if (x->pp > 1) {
		x->run_first[n] = x->pp - 1;
		x->run_len[n] = 1;
		x->run_ops[n++] = &x->last;
	}
	x->nruns = n;
}

static const struct dc_step_stage *ctx_run(const void *ctx, uint64_t i, uint64_t *first, uint64_t *len)
{
	const struct step_ctx *x = ctx;
	*first = x->run_first[i];
	*len = x->run_len[i];
	return x->run_ops[i];
}

/* After the schedule: a stage's last backward ends at `end`; its buckets
 * run behind that backward (overlap.dp) and only their tail is exposed;
 * the hidden part slows the backward by the slowdown fraction. FSDP with
 * a pipeline reduce-scatters its units then, all exposed (fsdp_tail_s). */
static void stage_sync(const struct step_ctx *x, const struct dc_step_stage *st, const struct dp_calls *d,
		       struct stage_sync_t *out)
{
	out->post = post_of(x, d);
	out->fsdp = d->fsdp_tail_s;
	if (!x->k.ov_dp) {
		out->tail = d->last.total_s + d->earlier_s + d->fsdp_tail_s;
		out->pen = 0;
		out->hid = 0;
		return;
	}
	out->tail = dc_step_bucket_tail(&d->last, st->bwd_s);
	out->hid = d->last.total_s - out->tail + d->earlier_s;
	out->tail += d->fsdp_tail_s;
	out->pen = x->k.slow * out->hid;
}

static double korthikanti_hardware_flops(const struct dc_plan *p, const struct dc_batch *b)
{
	/* Korthikanti et al. 2022 Eq. 8 (selective), Megatron-LM 2021 Eq. 3
	 * (full), Eq. 7 (none): 72 B L s h^2 (1 + s/(3h) + V/(12 h L)) and
	 * its kin, for a GPT-shaped dense model */
	const struct dc_model *m = &p->in->model;
	double B = (double)b->global_batch_size, L = (double)m->num_layers, s = (double)m->seq_length;
	double h = (double)m->hidden_size, V = (double)m->vocab_size;
	double base = B * L * s * h * h;
	switch (p->in->training.recompute) {
	case DC_RECOMPUTE_FULL:
		return 96.0 * base * (1.0 + s / (6.0 * h) + V / (16.0 * h * L));
	case DC_RECOMPUTE_SELECTIVE:
		return 72.0 * base * (1.0 + s / (3.0 * h) + V / (12.0 * h * L));
	case DC_RECOMPUTE_NONE:
	case DC_RECOMPUTE_OP: /* no paper convention: Eq. 7 */
		break;
	}
	return 72.0 * base * (1.0 + s / (6.0 * h) + V / (12.0 * h * L));
}

/* The optimizer step of rank r (of segment seg): DualPipe's rank holds
 * its own stage and the mirror stage pp - 1 - r, and steps both. */
static double opt_of(const struct step_ctx *x, const struct dc_compute *c, uint64_t r, uint64_t seg)
{
	const struct dc_plan *p = x->k.p;
	if (x->k.sched == DC_PIPE_DUALPIPE)
		return c->optimizer_s[seg] + c->optimizer_s[dc_plan_stage_segment(p, p->layout.pp - 1 - r)];
	return c->optimizer_s[seg];
}

/* The schedule's figures by its paper (step.h), for the critical rank's
 * chunk: the DualPipe README's table (F a forward chunk, B a full
 * backward chunk, W its weight gradients, F&B an overlapped pair) and
 * Megatron-LM 2021 section 2.2.2 for interleaving. */
static void paper(const struct step_ctx *x, const struct dc_step_stage *cs, struct dc_step *s)
{
	const struct dc_plan *p = x->k.p;
	double pp = (double)p->layout.pp, n = (double)x->k.chunks;
	double F = cs->fwd_s / n, B = cs->bwd_s / n, W = cs->wgrad_s / n, FB = F + B;
	s->schedule = x->k.sched;
	s->chunks = x->k.chunks;
	s->param_copies = x->k.sched == DC_PIPE_DUALPIPE ? 2.0 : 1.0;
	s->p2p_per_microbatch = pp - 1.0;
	if (x->k.sched == DC_PIPE_DUALPIPE || x->k.sched == DC_PIPE_DUALPIPEV) {
		/* the rank's two chunks averaged, and the two pairs it runs,
		 * F0&B1 and F1&B0 */
		double f0 = cs->fwd_pair_first_s, f1 = cs->fwd_pair_last_s, b0 = cs->bwd_pair_first_s,
		       b1 = cs->bwd_pair_last_s;
		F = (cs->fwd_first_s + cs->fwd_last_s) / 2.0;
		B = (cs->bwd_first_s + cs->bwd_last_s) / 2.0;
		W = (cs->wgrad_first_s + cs->wgrad_last_s) / 2.0;
		FB = (f0 + b1 + f1 + b0) / 2.0;
	}
	s->chunk_fwd_s = F;
	s->chunk_bwd_s = B;
	s->chunk_wgrad_s = W;
	s->chunk_fb_s = FB;
	switch (x->k.sched) {
	case DC_PIPE_1F1B:
		s->bubble_paper_s = (pp - 1.0) * (F + B);
		break;
	case DC_PIPE_INTERLEAVED:
		/* (p - 1)(f + b) / v of a stage's f, b: (p - 1)(F + B) of a chunk */
		s->bubble_paper_s = (pp - 1.0) * (F + B);
		s->p2p_per_microbatch = pp * n - 1.0;
		break;
	case DC_PIPE_ZERO_BUBBLE:
		s->bubble_paper_s = (pp - 1.0) * (F + B - 2.0 * W);
		break;
	case DC_PIPE_DUALPIPE:
		s->bubble_paper_s = (pp / 2.0 - 1.0) * (FB + B - 3.0 * W);
		break;
	case DC_PIPE_DUALPIPEV:
		/* the README's PP is the stages, 2pp */
		s->bubble_paper_s = (pp - 1.0) * (FB + B - 3.0 * W);
		s->p2p_per_microbatch = 2.0 * (pp - 1.0);
		break;
	}
}

/* Stage r's last op's end in closed form: the span less the drain of the
 * stages before it (docs/step-model.md, section 3). */
static double closed_end(const struct step_ctx *x, const struct dc_step_stage *st, double span, double drain,
			 uint64_t r)
{
	uint64_t m = x->k.m;
	double e = span - drain;
	if (x->k.sched == DC_PIPE_ZERO_BUBBLE) {
		/* ZB-H1: stage r's last B leaves the drain before stage 0's
		 * last W, then runs its own min(r + 1, m) W's */
		e -= r > 0 ? x->first.wgrad_s : 0;
		e += (double)(r + 1 < m ? r + 1 : m) * st->wgrad_s;
		if (e > span)
			e = span;
	}
	return e;
}

/* Every stage's end in closed form (closed_end), O(pp). */
static void closed_ends(const struct step_ctx *x, double span, double *end)
{
	const struct dc_plan *p = x->k.p;
	int zb = x->k.sched == DC_PIPE_ZERO_BUBBLE;
	double drain = 0;
	for (uint64_t r = 0, seg = 0; r < x->pp; r++) {
		const struct dc_step_stage *st;
		while (seg + 1 < p->nsegments && p->segment_first[seg + 1] <= r)
			seg++;
		st = ops_seg(x, r, seg);
		end[r] = closed_end(x, st, span, drain, r);
		drain += st->bwd_first_s - (zb ? st->wgrad_first_s : 0) + sends_one(&x->k.snd, x->pp, r);
	}
}

/* Composes the step from the pipeline's span and each stage's end (`end`
 * NULL: the closed form's, span - drain). One pass over the stages finds
 * the sync point, the slowest stage and each class's last-ready stage; the
 * classes are then filled from those. */
/* The step's token rates from its time. */
static void step_rates(struct dc_step *s, const struct dc_batch *b, double world)
{
	double tokens = (double)b->tokens_per_step;
	s->tokens_per_s = s->time_s > 0 ? tokens / s->time_s : 0;
	s->tokens_per_s_per_gpu = s->tokens_per_s / world;
	s->gpu_s_per_token = tokens > 0 ? s->time_s * world / tokens : 0;
}

/* The FLOPs over step x world x peak: MFU and MFU over the BF16 peak,
 * and unless `mfu_only` HFU and the paper's HFU */
static void step_utilisation(struct dc_step *s, const struct dc_plan *p, const struct dc_compute *c,
			     const struct dc_flops *f, const struct dc_batch *b, double world, int mfu_only)
{
	double denom;
	if (!(s->time_s > 0 && c->peak_flops > 0))
		return;
	denom = s->time_s * world * c->peak_flops;
	s->mfu = f->model_per_step / denom;
	/* the convention torchtitan printed under float8 (its BF16
	 * get_peak_flops) and the one FP8 and BF16 runs compare on
	 * (docs/step-model.md section 4); a search's rows show it */
	if (p->in->cluster.peak_flops > 0)
		s->mfu_bf16_peak = f->model_per_step / (s->time_s * world * p->in->cluster.peak_flops);
	if (mfu_only)
		return;
	s->mfu_causal = f->model_causal_per_step / denom;
	s->hfu = f->hardware_per_step / denom;
	s->hardware_flops_paper = korthikanti_hardware_flops(p, b);
	s->hfu_paper = s->hardware_flops_paper / denom;
}

static void compose(const struct step_ctx *x, const struct dc_compute *c, const struct dc_flops *f,
		    const struct dc_batch *b, double span, uint64_t critical, double fill, const double *end,
		    struct dc_step *s)
{
	const struct dc_plan *p = x->k.p;
	uint64_t pp = p->layout.pp, m = x->k.m, seg = 0;
	int zb = x->k.sched == DC_PIPE_ZERO_BUBBLE;
	/* the sends a microbatch's round trip crosses: DualPipeV's V crosses
	 * every rank boundary twice each way */
	double sends = 2.0 * sends_sum(&x->k.snd, 0, pp - 1) * (x->k.sched == DC_PIPE_DUALPIPEV ? 2.0 : 1.0);
	/* after the sync: the optimizer steps and, each rank's own, the
	 * AllGather of its updated parameters (after: the most of the two
	 * on any rank) */
	double sync = span, drain = 0, after_max = 0, world = (double)p->world;
	double best_finish = -1, best_ready = -1;
	double cls_ready[DC_PLAN_MAX_SEGMENTS];
	uint64_t cls_stage[DC_PLAN_MAX_SEGMENTS];
	uint64_t slow_stage = 0, ready_stage = 0, after_stage = 0;
	double after_opt = 0, after_post = 0;
	/* the schedules a step runs one after another (docs/step-model.md,
	 * "Several schedules a step"): each waits for the one before it to
	 * end, its gradient sync included (stage 0 starts the next fill once
	 * its own sync is done, and a later stage's ends no later), so a
	 * step is F times the first's ready time, then the optimizer once */
	double F = (double)x->k.schedules;

	for (uint64_t i = 0; i < p->nsegments; i++) {
		cls_ready[i] = -1;
		cls_stage[i] = p->segment_first[i];
	}
	/* the closed form: within a run of identical stages the ready time
	 * falls with the stage (the drain grows), so each run's first stage
	 * stands for it; the timeline: every stage */
	for (uint64_t i = 0, r = 0; end ? r < pp : i < x->nruns; end ? r++ : i++) {
		const struct dc_step_stage *st;
		const struct stage_sync_t *sy;
		double e, ready, opt, fin;
		uint64_t len = 1;
		if (!end) {
			r = x->run_first[i];
			len = x->run_len[i];
			seg = dc_plan_stage_segment(p, r);
		} else {
			while (seg + 1 < p->nsegments && p->segment_first[seg + 1] <= r)
				seg++;
		}
		st = ops_seg(x, r, seg);
		sy = sync_seg(x, r, seg);
		e = end ? end[r] : closed_end(x, st, span, drain, r);
		ready = e + sy->pen + sy->tail;
		opt = opt_of(x, c, r, seg);
		fin = ready + opt + sy->post;
		if (ready > sync)
			sync = ready;
		if (ready > best_ready) {
			best_ready = ready;
			ready_stage = r;
		}
		if (fin > best_finish) {
			best_finish = fin;
			slow_stage = r;
		}
		if (opt + sy->post > after_max) {
			after_max = opt + sy->post;
			after_opt = opt;
			after_post = sy->post;
			after_stage = r;
		}
		if (ready > cls_ready[seg]) {
			cls_ready[seg] = ready;
			cls_stage[seg] = r;
		}
		drain += (double)len * (st->bwd_first_s - (zb ? st->wgrad_first_s : 0)) +
			 sends_sum(&x->k.snd, r, r + len < pp ? r + len : pp - 1);
	}
	s->pipeline_s = span;
	s->time_s = F * sync + after_opt + after_post;
	s->critical_stage = critical;
	s->slowest_rank = slow_stage * p->topo.stride[DC_AXIS_PP];
	if (!f) {
		step_rates(s, b, world); /* no FLOPs: the time and its rates alone (step.h) */
		return;
	}
	if (p->step_rank_only) {
		/* a search's: the time, its rates and the MFU alone (plan.h) */
		step_rates(s, b, world);
		step_utilisation(s, p, c, f, b, world, 1);
		return;
	}

	/* per class, the stage of the segment that is ready last */
	s->nclasses = p->nsegments;
	for (uint64_t i = 0; i < p->nsegments; i++) {
		struct dc_step_class *cl = &s->classes[i];
		uint64_t r = cls_stage[i];
		const struct dc_step_stage *st = ops_seg(x, r, i);
		const struct stage_sync_t *sy = sync_seg(x, r, i);
		double ready = cls_ready[i], busy, after, pen_part, bubble, opt = opt_of(x, c, r, i);
		memset(cl, 0, sizeof(*cl));
		cl->stage_first = p->segment_first[i];
		cl->stage_last = p->segment_first[i + 1] - 1;
		cl->ranks = (cl->stage_last - cl->stage_first + 1) * (p->world / pp);
		cl->first_rank = cl->stage_first * p->topo.stride[DC_AXIS_PP];
		cl->total_s = s->time_s;
		busy = (double)m * (st->fwd_s + st->bwd_s);
		after = max0(ready - span);
		pen_part = after < sy->pen ? after : sy->pen;
		/* one schedule's, F times (the optimizer and the updated
		 * parameters' AllGather once) */
		cl->compute_s = F * ((double)m * st->compute_s + pen_part);
		for (int j = 0; j < DC_STRAT_COUNT; j++)
			cl->exposed_s[j] = F * (double)m * st->exposed_s[j];
		bubble = past(span - busy - sends, span);
		cl->bubble_s = F * bubble;
		/* span adds up the same per-microbatch times as busy = m (fwd +
		 * bwd) in another order: with no sends (pp 1) the two differ only
		 * by rounding, which made a -4.4e-16 s "exposed pp" (gpt-1.7B at
		 * pp 1); time is never negative */
		cl->exposed_s[DC_STRAT_PP] = F * past(span - busy - bubble, span);
		/* what is past the span: FSDP's reduce-scatters under a
		 * pipeline (no DP buckets then), else the DP buckets' tail */
		{
			double past = after - pen_part;
			double fs = past < sy->fsdp ? past : sy->fsdp;
			cl->exposed_s[DC_STRAT_FSDP] += F * fs;
			cl->exposed_s[DC_STRAT_DP] = F * (past - fs) + sy->post;
		}
		cl->optimizer_s = opt;
		cl->tail_wait_s = s->time_s - (F * (ready > span ? ready : span) + opt + sy->post);
		cl->hidden_s = F * (sy->hid + (double)m * st->hidden_s);
	}

	/* the critical path: fill, the critical stage, drain, sync, optimizer */
	{
		double t = 0, crit_busy, drain_k = 0;
		struct dc_step_path *path = s->path;
		uint64_t n = 0;
		/* DualPipe, DualPipeV: the critical rank is the one that ends
		 * last (the last op of either direction ends on it) */
		for (uint64_t i = 0; !x->dev && i < x->nruns && x->run_first[i] < critical; i++) {
			const struct dc_step_stage *q = x->run_ops[i];
			uint64_t cnt = x->run_first[i] + x->run_len[i] <= critical ? x->run_len[i] : critical - x->run_first[i];
			drain_k += (double)cnt * (q->bwd_first_s - (zb ? q->wgrad_first_s : 0)) +
				   sends_sum(&x->k.snd, x->run_first[i], x->run_first[i] + cnt);
		}
		/* the drain is what follows the critical stage's own end: its
		 * last op (under ZB-H1 its delayed W's, which may end the step
		 * themselves: a pipeline trial found a drain row past the
		 * step's last op), from the timeline's ends or the closed form's */
		if (!x->dev && (zb || end)) {
			/* (the closed form's other schedules end the critical
			 * stage at span - drain: the sum above) */
			double e_crit = end ? end[critical]
					    : closed_end(x, ops_seg(x, critical, dc_plan_stage_segment(p, critical)), span,
							 drain_k, critical);
			drain_k = max0(span - e_crit);
		}
		if (drain_k > span - fill)
			drain_k = span - fill;
		crit_busy = span - fill - drain_k;
		if (fill > 0)
			path[n++] = (struct dc_step_path){"pipeline fill: the first microbatch's forward reaches the critical stage", critical, t, fill};
		t += fill;
		path[n++] = (struct dc_step_path){"critical stage: every microbatch's forward and backward, and its waits", critical, t, crit_busy};
		t += crit_busy;
		if (drain_k > 0)
			path[n++] = (struct dc_step_path){"pipeline drain: the last backward returns to stage 0", 0, t, drain_k};
		t += drain_k;
		if (sync > span) {
			/* what the kernels slowed by the buckets hidden behind
			 * them add past the span (the classes' compute holds it,
			 * the same min(after, pen)), then the buckets' own tail */
			const struct stage_sync_t *ry = sync_seg(x, ready_stage, dc_plan_stage_segment(p, ready_stage));
			double after = sync - span, pen_k = after < ry->pen ? after : ry->pen;
			if (pen_k > 0)
				path[n++] = (struct dc_step_path){"slowdown: the kernels slowed by the buckets hidden behind them", ready_stage, t, pen_k};
			t += pen_k;
			if (after > pen_k)
				path[n++] = (struct dc_step_path){ry->fsdp > 0 ? "gradient synchronisation: the slowest stage's FSDP reduce_scatters after its last backward" : "gradient synchronisation: the exposed tail of the slowest stage's buckets", ready_stage, t, after - pen_k};
		}
		t = sync;
		if (x->k.schedules > 1) {
			path[n++] = (struct dc_step_path){"the step's other pipeline schedules, each as the first", 0, t, (F - 1.0) * sync};
			t = F * sync;
		}
		/* the rank whose optimizer step and AllGather end last (each
		 * rank's own: rank_dp) */
		if (after_opt > 0)
			path[n++] = (struct dc_step_path){"optimizer step", after_stage, t, after_opt};
		t += after_opt;
		if (after_post > 0)
			path[n++] = (struct dc_step_path){"updated parameters all_gather (ZeRO)", after_stage, t,
							  after_post};
		s->npath = n;
	}

	/* rates */
	{
		step_rates(s, b, world);
		step_utilisation(s, p, c, f, b, world, 0);
		{
			const struct dc_step_stage *cs = ops_of(x, critical);
			double busy = (double)m * (cs->fwd_s + cs->bwd_s);
			/* one schedule's, as the paper's formula beside it */
			s->bubble_s = past(span - busy, span);
			s->bubble_fraction = busy > 0 ? s->bubble_s / busy : 0;
			paper(x, cs, s);
		}
		if (p->in->training.total_tokens > 0 && s->tokens_per_s > 0)
			s->time_to_train_s = (double)p->in->training.total_tokens / s->tokens_per_s;
	}
	s->host_param_copies_s = x->k.host_param_s;
	s->host_grad_copies_s = x->k.host_grad_s;
}

/* f NULL (a strategies variant's step: its time and rates alone, step.h)
 * clears the figures up to the classes, and the counts and variants after
 * them: the classes and path arrays (most of the ~3.2 KB) are left as they
 * were, nclasses and npath 0 saying none is filled */
static void step_header(const struct dc_plan *p, const struct dc_compute *c,
			struct dc_step *s)
{
	/* classes[] and path[] are read only below nclasses and npath, and
	 * compose fills each one it counts: the rest (3 KB) is left as it is */
	memset(s, 0, offsetof(struct dc_step, classes));
	s->npath = 0;
	memset(s->variants, 0, sizeof(s->variants));
	s->available = c->available;
	s->missing = c->missing;
	s->p = p->layout.pp;
	s->m = p->layout.grad_accum_steps;
	s->v = p->v;
	s->interleaved = p->v > 1;
	s->schedule_m = dc_layout_schedule_m(&p->layout);
	s->schedules = dc_layout_schedules(&p->layout);
	s->few_microbatches = s->schedule_m < p->layout.pp;
	s->slowdown = p->in->overlap.compute_slowdown;
}

#ifdef DISTCALC_VERIFY_MEMOS
static const struct dc_memo_field stage_fields[] = {
	DC_MEMO_FIELD(struct dc_step_stage, fwd_s),
	DC_MEMO_FIELD(struct dc_step_stage, bwd_s),
	DC_MEMO_FIELD(struct dc_step_stage, fwd_first_s),
	DC_MEMO_FIELD(struct dc_step_stage, bwd_first_s),
	DC_MEMO_FIELD(struct dc_step_stage, fwd_last_s),
	DC_MEMO_FIELD(struct dc_step_stage, bwd_last_s),
	DC_MEMO_FIELD(struct dc_step_stage, exposed_s),
	DC_MEMO_FIELD(struct dc_step_stage, compute_s),
	DC_MEMO_FIELD(struct dc_step_stage, hidden_s),
	DC_MEMO_FIELD(struct dc_step_stage, wgrad_s),
	DC_MEMO_FIELD(struct dc_step_stage, wgrad_first_s),
	DC_MEMO_FIELD(struct dc_step_stage, wgrad_last_s),
	DC_MEMO_FIELD(struct dc_step_stage, fwd_pair_first_s),
	DC_MEMO_FIELD(struct dc_step_stage, fwd_pair_last_s),
	DC_MEMO_FIELD(struct dc_step_stage, bwd_pair_first_s),
	DC_MEMO_FIELD(struct dc_step_stage, bwd_pair_last_s),
};

/* A step memo hit (x: its stages' ops; span, critical, fill: its
 * schedule) against the step computed with no memo: every stage's ops
 * and the closed form's span. */
static void step_memo_verify(const struct step_ctx *x, const struct dc_plan *p, const struct dc_compute *c,
			     const struct dc_comm *comm, double span, uint64_t critical, double fill)
{
	static const char memo[] = "step memo (src/est/step.c)";
	const size_t nf = sizeof(stage_fields) / sizeof(stage_fields[0]);
	/* not dc_malloc: outside the allocations a test counts or fails */
	struct step_ctx *y = malloc(sizeof(*y));
	uint64_t y_critical = 0;
	double y_fill = 0, y_span;
	int hit;
	const char *err;
	char what[32];
	if (!y)
		abort(); /* a debug build's check: no way on without it */
	if (ctx_init(y, p, c, comm, NULL, &hit, &err) != 0)
		abort(); /* the step it verifies computed */
	y_span = pipe_closed(y, ctx_run, y->nruns, p->layout.pp, y->k.m, p->v, &y->k.snd,
			     y->k.sched == DC_PIPE_ZERO_BUBBLE, &y_critical, &y_fill);
	dc_memo_verify_bytes(memo, "first", &x->first, &y->first, sizeof(x->first), stage_fields, nf);
	dc_memo_verify_bytes(memo, "last", &x->last, &y->last, sizeof(x->last), stage_fields, nf);
	for (uint64_t i = 0; i < p->nsegments; i++) {
		snprintf(what, sizeof(what), "mid_stage[%llu]", (unsigned long long)i);
		dc_memo_verify_u64(memo, what, x->mid_stage[i], y->mid_stage[i]);
		snprintf(what, sizeof(what), "mid[%llu]", (unsigned long long)i);
		dc_memo_verify_bytes(memo, what, &x->mid[i], &y->mid[i], sizeof(x->mid[i]), stage_fields, nf);
	}
	dc_memo_verify_double(memo, "span", span, y_span);
	dc_memo_verify_u64(memo, "critical", critical, y_critical);
	dc_memo_verify_double(memo, "fill", fill, y_fill);
	free(y);
}

void dc_step_memo_corrupt(struct dc_step_memo *m)
{
	m->first.bwd_first_s = nextafter(m->first.bwd_first_s, INFINITY);
}

int dc_step_memo_corrupt_dp(struct dc_step_memo *m)
{
	int n = 0;
	for (unsigned i = 0; i < DP_MEMO_SLOTS; i++)
		if (m->dp[i].have) {
			m->dp[i].d.last.total_s = nextafter(m->dp[i].d.last.total_s, INFINITY);
			n++;
		}
	return n;
}
#endif

/* 1 when the interleaved schedule is simulated rather than taken from
 * the closed form: chunks of unequal cost (plan.h chunks_uneven), or a
 * send that outlasts a chunk's forward. On equal chunks the closed form is
 * the timeline while every send is at most each chunk's forward; past it
 * a microbatch's backward, hopping a stage a pair (b + c against the
 * f + b the stage runs meanwhile), outruns the stages, and the steady
 * phase waits in ways the form does not price (up to 30% short over
 * drawn pipelines with sends of 1 to 3 forwards; docs/step-model.md,
 * "The closed form") */
static int inter_simulated(const struct dc_plan *p, const struct step_ctx *x)
{
	uint64_t first, len, v = x->k.chunks;
	if (x->k.sched != DC_PIPE_INTERLEAVED)
		return 0;
	if (p->chunks_uneven)
		return 1;
	if (!(x->k.send_s > 0))
		return 0;
	for (uint64_t i = 0; i < x->nruns; i++) {
		const struct dc_step_stage *q = ctx_run(x, i, &first, &len);
		double mid = v > 2 ? (q->fwd_s - q->fwd_first_s - q->fwd_last_s) / (double)(v - 2) : q->fwd_first_s;
		if (x->k.send_s > q->fwd_first_s || x->k.send_s > q->fwd_last_s || x->k.send_s > mid)
			return 1;
	}
	return 0;
}

/* 1 when ZB-H1 is simulated whole: whenever the schedule fits the bound
 * (pp m at most DC_STEP_SIM_MAX_CHUNKS); past it a prefix and the
 * max-plus power of its steady period (v1_extended), else the closed
 * form. The form is
 * the timeline only on equal stages whose W is at most the forward and
 * the B (x = b - W) and whose sends are at most half a W (the deferred W's
 * hide them): past those it misses waits (up to 14% short with sends up to
 * a W; 41% on the course config at 1 Gb/s, tp 1, pp 8, m 32, a user
 * trial's), and an embedding or a head makes it an estimate (up to -0.9%
 * on that config). docs/step-model.md, "ZB-H1", "ZB-H1 past the bound";
 * where the extension does not apply the report warns (sec_step.c). */
static int zb_simulated(const struct dc_plan *p)
{
	uint64_t chunks;
	/* the step's microbatches (costs_init's m) */
	if (dc_pipeline_schedule(p) != DC_PIPE_ZERO_BUBBLE || p->layout.pp < 2)
		return 0;
	return !dc_mul_u64(p->layout.pp, dc_layout_schedule_m(&p->layout), &chunks) && chunks <= DC_STEP_SIM_MAX_CHUNKS;
}

/* plan p's stages differ in their layers or their layers' kinds
 * (dc_step_uneven_1f1b) */
static int stages_uneven(const struct dc_plan *p)
{
	int uneven = p->runs.n > 1;
	/* a segment's stages hold the same parameters; the ends' differ by
	 * the embedding and the head alone unless their layers do */
	for (uint64_t i = 1; !uneven && i < p->nsegments; i++)
		uneven = p->segment_params[i].layers != p->segment_params[0].layers ||
			 p->segment_params[i].moe_layers != p->segment_params[0].moe_layers;
	return uneven;
}

int dc_step_uneven_1f1b(const struct dc_plan *p)
{
	return p->layout.pp >= 2 && dc_pipeline_schedule(p) == DC_PIPE_1F1B && stages_uneven(p);
}

/* 1 for the schedules of one chunk a stage the step simulates and past
 * its bound extends by the max-plus power of their steady period
 * (timeline, inter_maxplus), else prices by their closed form with
 * dc_step f1b_closed_form set: 1F1B on stages of unequal cost
 * (dc_step_uneven_1f1b) and ZB-H1 */
static int v1_extended(const struct dc_plan *p)
{
	return dc_step_uneven_1f1b(p) || (dc_pipeline_schedule(p) == DC_PIPE_ZERO_BUBBLE && p->layout.pp >= 2);
}

/* 1 when 1F1B is simulated rather than taken from its closed form: stages
 * of unequal layers (parallel.pipeline_layers, first_stage_layers /
 * last_stage_layers: plan.h runs) or of unequal kinds (dense and MoE
 * layers), whenever the schedule fits the
 * bound (pp m at most DC_STEP_SIM_MAX_CHUNKS). The form's T_k are paths
 * through the schedule, the bottleneck stage's among them, but a stage
 * that waits in its steady phase or cool-down for a slower one after it
 * passes that wait up to the stages before it on a path the form does
 * not take: on pp 3, F (4, 3, 1), B (8, 6, 2), m 3 the timeline ends at
 * 42, the form at 39 (docs/step-model.md, "Uneven 1F1B stages"); on two
 * stages at m 2, where the form leaves out the first backward's wait for
 * the round trip, up to 7.7% short. Equal stages with an embedding and a
 * head keep the form (the timeline on every drawn pipeline of the docs'
 * check). Past the bound (this returns 0) the step simulates a prefix and
 * takes every stage's end from the max-plus power of its steady period
 * (timeline, inter_maxplus), else the form stands and the report warns
 * (dc_step f1b_closed_form, sec_step.c). */
static int f1b_simulated(const struct dc_plan *p)
{
	uint64_t chunks;
	return dc_step_uneven_1f1b(p) && !dc_mul_u64(p->layout.pp, dc_layout_schedule_m(&p->layout), &chunks) &&
	       chunks <= DC_STEP_SIM_MAX_CHUNKS;
}

/* Uneven 1F1B's critical stage (dc_step_uneven_1f1b), from the simulation's
 * stage ends: of the stages whose last op ends the drain compose prices
 * before the span (end_k + sum over r < k of B_r and the send below it =
 * the span: the last microbatch's gradient goes down from it to stage 0
 * without waiting, so the critical path's "critical stage" and "drain"
 * rows are that stage's own ops and the drain), the busiest (F + B; the
 * lower on a tie). Stage 0, whose last op ends the span, always is one.
 * The closed form's choice can name a stage whose drain waited
 * (pp 8, stages of [8, 2, 4, 7, 2, 1, 7, 1] layers: its stage 6 ends 17.6
 * ms before the path said). O(pp). */
static uint64_t sim_critical(const struct step_ctx *x, const double *end, double span)
{
	double drain = 0, best = -1;
	uint64_t critical = 0;
	for (uint64_t r = 0; r < x->pp; r++) {
		const struct dc_step_stage *st = ops_of(x, r);
		if (end[r] + drain >= span - 1e-9 * span && st->fwd_s + st->bwd_s > best) {
			best = st->fwd_s + st->bwd_s;
			critical = r;
		}
		if (r + 1 < x->pp)
			drain += st->bwd_first_s + sends_sum(&x->k.snd, r, r + 1);
	}
	return critical;
}

/* The step from the closed form of p's schedule (or from the simulation
 * where inter_simulated says so): dc_step_compute past its simulated
 * schedules, and uneven 1F1B's and ZB-H1's fallback past their bound
 * (dc_step_compute_bounded) */
static int closed_step(const struct dc_plan *p, const struct dc_compute *c, const struct dc_comm *comm,
		       const struct dc_flops *f, const struct dc_batch *b, struct dc_step *s, const char **error)
{
	struct step_ctx x;
	uint64_t critical = 0;
	double fill = 0, span;
	int hit;
	step_header(p, c, s);
	if (!c->available)
		return 0;
	if (ctx_init(&x, p, c, comm, p->step_memo, &hit, error) != 0)
		return -1;
	if (inter_simulated(p, &x)) {
		struct dc_step_bound bound = {.max_chunks = DC_STEP_SIM_MAX_CHUNKS};
		return dc_step_compute_bounded(p, c, comm, f, b, s, &bound, error);
	}
	if (hit) {
		/* the same stages' ops and sends: the same schedule */
		span = p->step_memo->span;
		critical = p->step_memo->critical;
		fill = p->step_memo->fill;
		DC_MEMO_VERIFY(step_memo_verify(&x, p, c, comm, span, critical, fill));
	} else {
		span = pipe_closed(&x, ctx_run, x.nruns, p->layout.pp, x.k.m, p->v, &x.k.snd,
				   x.k.sched == DC_PIPE_ZERO_BUBBLE, &critical, &fill);
		if (p->step_memo)
			memo_put(p->step_memo, &x, p, span, critical, fill);
	}
	compose(&x, c, f, b, span, critical, fill, NULL, s);
	return 0;
}

int dc_step_compute(const struct dc_plan *p, const struct dc_compute *c, const struct dc_comm *comm,
		    const struct dc_flops *f, const struct dc_batch *b, struct dc_step *s, const char **error)
{
	/* Interleaved chunks of unequal cost (plan.h chunks_uneven: Megatron-
	 * Core's pipeline layouts) stall ranks on each other in ways the
	 * closed form's busiest-stage span does not see (9.1% short on
	 * DeepSeek-V3's Et|(tt|)*30mL layout): the schedule is simulated op by
	 * op instead, O(pp m v), with its allocation (docs/layouts.md) */
	/* DualPipe and DualPipeV have no closed form for stages of unequal
	 * cost (docs/step-model.md, section 3): simulated the same way */
	if (dc_pipeline_schedule(p) == DC_PIPE_DUALPIPE || dc_pipeline_schedule(p) == DC_PIPE_DUALPIPEV) {
		struct dc_step_bound bound = {.max_chunks = DC_STEP_SIM_MAX_CHUNKS};
		return dc_step_compute_bounded(p, c, comm, f, b, s, &bound, error);
	}
	/* ZB-H1 whatever its costs, and uneven 1F1B (past the bound a prefix
	 * and the max-plus power of its steady period, else their closed
	 * form): the timeline makes its own context (ctx_init), so none is
	 * made here */
	if (p->chunks_uneven || v1_extended(p)) {
		struct dc_step_bound bound = {.max_chunks = DC_STEP_SIM_MAX_CHUNKS};
		return dc_step_compute_bounded(p, c, comm, f, b, s, &bound, error);
	}
	return closed_step(p, c, comm, f, b, s, error);
}

/* ---- the timeline ---- */

/* One op of a rank's schedule: a chunk's forward (F), its full backward
 * (B), its input gradients alone (BX, ZB-H1 and DualPipe's zero-bubble
 * steps) and later its weight gradients (W), or DualPipe's overlapped
 * pair of one microbatch's forward and another's backward (FB). `cf`,
 * `mf` name the forward's chunk and microbatch, `cb`, `mb` the
 * backward's (DualPipe: chunk = direction, microbatches counted in it). */
enum op_kind { OP_F, OP_B, OP_BX, OP_W, OP_FB };

/* An op of a rank's order and where its inputs are, as sim_run reads
 * them: end_at[in_f - 1] is when its forward's input is there (the op
 * that makes it adds the send: sim's send_to), end_at[in_b - 1] its
 * backward's; 0: it needs none. in_f and in_b are functions of the
 * order's shape alone (wire_build), kept beside the op so that a rank's
 * turn in sim_run reads one row, not two (a deep pipeline's simulation
 * is bound by its misses: one row of each of pp ranks a sweep). 32 bits:
 * an order whose indices do not fit would need 80 GB for its ops
 * (order_build refuses it). */
struct pop {
	enum op_kind kind;
	uint32_t cf, cb, mf, mb; /* order_build: m and v below 2^32 */
	uint32_t in_f, in_b;
};

/* Stage s's warm-up forwards of op_at's order before the cap at m v: 1F1B
 * (v 1) p - s - 1, interleaved 2 (p - s - 1) + (v - 1) p */
static uint64_t warmup_of(uint64_t p, uint64_t v, uint64_t s)
{
	return v == 1 ? p - s - 1 : 2 * (p - s - 1) + (v - 1) * p;
}

/* Op `i` of stage `s` in Megatron's order: *fwd, microbatch, chunk.
 * 1F1B: p - s - 1 warmup forwards, then forward/backward pairs, then the
 * remaining backwards. Interleaved (Megatron-LM 2021 section 2.2.2,
 * Megatron-Core's schedule): 2 (p - s - 1) + (v - 1) p warmup forwards;
 * virtual microbatch k runs chunk (k mod pv) / p of microbatch
 * (k / pv) p + k mod p, backwards the chunks in reverse. */
static void op_at(uint64_t p, uint64_t m, uint64_t v, uint64_t s, uint64_t i, int *fwd, uint64_t *mb,
		  uint64_t *chunk)
{
	uint64_t n = m * v, w = warmup_of(p, v, s), k;
	if (w > n)
		w = n;
	if (i < w) {
		*fwd = 1;
		k = i;
	} else if (i < w + 2 * (n - w)) {
		uint64_t j = i - w;
		*fwd = (j % 2) == 0;
		k = *fwd ? w + j / 2 : j / 2;
	} else {
		*fwd = 0;
		k = (n - w) + (i - w - 2 * (n - w));
	}
	if (v == 1) {
		*mb = k;
		*chunk = 0;
		return;
	}
	*mb = (k / (p * v)) * p + k % p;
	*chunk = (k % (p * v)) / p;
	if (!*fwd)
		*chunk = v - 1 - *chunk;
}

/* A rank's op list as it is built (the order generators below). */
struct gen {
	struct pop *o;
	uint64_t n;
	uint64_t fcnt[2], bcnt[2];   /* next microbatch of each chunk, forward / backward */
	uint64_t *wq_c, *wq_m;       /* deferred weight gradients, first in first out */
	uint64_t wq_head, wq_tail;
	uint64_t flip;               /* DualPipe's second half: its step phases name the other direction */
	uint64_t steady_at, steady_n; /* DualPipe: the op its second steady pair starts at, the pairs from there */
};

static void put(struct gen *g, enum op_kind kind, uint64_t cf, uint64_t mf, uint64_t cb, uint64_t mb)
{
	g->o[g->n++] = (struct pop){kind, (uint32_t)cf, (uint32_t)cb, (uint32_t)mf, (uint32_t)mb};
}

static void gen_f(struct gen *g, uint64_t phase)
{
	uint64_t c = phase ^ g->flip;
	put(g, OP_F, c, g->fcnt[c]++, 0, 0);
}

/* a backward; zb: the input gradients now, the weight gradients queued */
static void gen_b(struct gen *g, uint64_t phase, int zb)
{
	uint64_t c = phase ^ g->flip, mb = g->bcnt[c]++;
	put(g, zb ? OP_BX : OP_B, 0, 0, c, mb);
	if (zb) {
		g->wq_c[g->wq_tail] = c;
		g->wq_m[g->wq_tail++] = mb;
	}
}

static void gen_w(struct gen *g)
{
	if (g->wq_head == g->wq_tail)
		return;
	put(g, OP_W, 0, 0, g->wq_c[g->wq_head], g->wq_m[g->wq_head]);
	g->wq_head++;
}

static void gen_fb(struct gen *g, uint64_t fphase, uint64_t bphase)
{
	uint64_t cf = fphase ^ g->flip, cb = bphase ^ g->flip;
	uint64_t mf = g->fcnt[cf]++, mb = g->bcnt[cb]++;
	put(g, OP_FB, cf, mf, cb, mb);
}

/* ZB-H1 (Qi et al. 2024, section 2.1, Figure 3 top): 1F1B's warm-up of
 * p - s - 1 forwards and its forward-backward pairs with each backward's
 * weight gradients deferred by s, so that every stage holds p
 * microbatches awaiting their W (the first stage, which holds the most
 * activations, no more than under 1F1B); the deferred W's run last. */
static void gen_zb(struct gen *g, uint64_t p, uint64_t m, uint64_t s)
{
	uint64_t w = p - s - 1 < m ? p - s - 1 : m, nb = 0, nw = 0;
	for (uint64_t i = 0; i < w; i++)
		gen_f(g, 0);
	for (uint64_t i = w; i < m; i++) {
		gen_f(g, 0);
		gen_b(g, 0, 1);
		if (++nb - nw > s) {
			gen_w(g);
			nw++;
		}
	}
	while (nb < m) {
		gen_b(g, 0, 1);
		if (++nb - nw > s) {
			gen_w(g);
			nw++;
		}
	}
	while (nw++ < m)
		gen_w(g);
}

/* deepseek-ai/DualPipe, DualPipe.step() and DualPipeV.step() (steps 1-8,
 * their counts and zero-bubble switches as written there), rank r of p,
 * m microbatches. DualPipe: the first half of the ranks' phase 0 is the
 * forward direction (chunk 0: stage r), the second half's the reverse;
 * h = min(r, p - 1 - r); m / 2 microbatches each way. DualPipeV: phase c
 * is chunk c (chunk 0: stage r of 2p, chunk 1: stage 2p - 1 - r), h = r.
 * The middle ranks (DualPipeV: the last) run their first steady pair
 * apart, "to further reduce bubble size". */
static void gen_dualpipe(struct gen *g, uint64_t p, uint64_t m, uint64_t r, int vshape)
{
	uint64_t h, ranks, half_m, n1, n2, n3, n4, n5, n6, n7, n8;
	int middle;
	if (vshape) {
		h = r;
		ranks = p;
		half_m = m;
		g->flip = 0;
		middle = r == p - 1;
	} else {
		uint64_t nh = p / 2;
		h = r < p - 1 - r ? r : p - 1 - r;
		ranks = nh;
		half_m = m / 2;
		g->flip = r >= nh;
		middle = r == nh - 1 || r == nh;
	}
	n1 = (ranks - h - 1) * 2;
	n2 = h + 1;
	n3 = ranks - h - 1;
	/* DualPipe: m / 2 - p + h + 1; DualPipeV: m - 2p + r + 1 */
	n4 = half_m + h + 1 - 2 * ranks;
	n5 = ranks - h - 1;
	n6 = h + 1;
	n7 = ranks - h - 1;
	n8 = h + 1;
	for (uint64_t i = 0; i < n1; i++)
		gen_f(g, 0);
	for (uint64_t i = 0; i < n2; i++) {
		gen_f(g, 0);
		gen_f(g, 1);
	}
	for (uint64_t i = 0; i < n3; i++) {
		gen_b(g, 1, 1);
		gen_w(g);
		gen_f(g, 1);
	}
	g->steady_n = n4 - 1;
	for (uint64_t i = 0; i < n4; i++) {
		if (i == 1)
			g->steady_at = g->n;
		if (i == 0 && middle) {
			gen_f(g, 0);
			gen_b(g, 1, 0);
		} else {
			gen_fb(g, 0, 1);
		}
		gen_fb(g, 1, 0);
	}
	for (uint64_t i = 0; i < n5; i++) {
		gen_b(g, 1, 0);
		gen_fb(g, 1, 0);
	}
	{
		int zb = 0;
		for (uint64_t i = 0; i < n6; i++) {
			if (i == n6 / 2 && h % 2 == 1)
				zb = 1;
			gen_b(g, 1, zb);
			if (i == n6 / 2 && h % 2 == 0)
				zb = 1;
			gen_b(g, 0, zb);
		}
	}
	for (uint64_t i = 0; i < n7; i++) {
		gen_w(g);
		gen_b(g, 0, 1);
	}
	for (uint64_t i = 0; i < n8; i++)
		gen_w(g);
}

/* A schedule's op order: every rank's ops, a function of (sched, p, m,
 * v) alone, so that a search's layouts of the same ones share it
 * (order_get). */
struct sim_order {
	enum dc_pipe_schedule sched;
	uint64_t p, m, v;
	uint64_t cap;               /* ops a rank at most: the rows' stride */
	struct pop *ops;            /* [s][cap], the first nops[s] of a row set, wired (wire_build) */
	uint64_t *nops;             /* [s] */
	/* [s] DualPipe: the op its second steady pair starts at, the pairs
	 * (two ops each: FB, FB) from there */
	uint64_t *steady_at, *steady_n;
};

/* An op's start and end: kept together, as sim_run sets them together
 * (sim_alloc carves them from a block of doubles, two an op) */
struct op_time {
	double start, end;
};
_Static_assert(sizeof(struct op_time) == 2 * sizeof(double), "two doubles an op");

/* The simulated schedule: every rank's ops and their times. */
struct sim {
	enum dc_pipe_schedule sched;
	uint64_t p, m, v;           /* v: chunks a rank */
	uint64_t cap;               /* ops a rank at most */
	const struct pop *ops;      /* [s][cap] (the order's) */
	const uint64_t *nops;       /* [s] */
	struct op_time *op_t;       /* [s][cap], set for the first nops[s] by sim_run */
	double *own_times;          /* op_t's and end_at's block when no memo keeps it */
	/* [2][s][c][mb]: a forward's end, then its input gradients' (-1: not
	 * yet; sim_run) */
	double *end_at;
	/* [2][s][c]: the send from a chunk's forward output to the op that
	 * takes it as input, then from its input gradients' (0: none) */
	double *send_to;
	/* [5][s][c] (one block): a chunk's forward, backward and weight
	 * gradients alone, and its forward and backward in a DualPipe pair;
	 * dur_f .. dur_bp point into it */
	double *durs;
	double *dur_f, *dur_b, *dur_w, *dur_fp, *dur_bp;
	struct sends snd; /* the sends by boundary */
	const uint64_t *steady_at, *steady_n; /* [s] (the order's) */
	uint64_t m_whole; /* the whole schedule's m, when a prefix of it runs (the trace's numbering) */
	struct sim_order own; /* the order when no memo keeps it (else zeroes) */
};

static size_t at3(const struct sim *x, uint64_t s, uint64_t c, uint64_t mb)
{
	return (size_t)((s * x->v + c) * x->m + mb);
}

static void order_free(struct sim_order *o)
{
	free(o->ops);
	free(o->nops);
	free(o->steady_at);
	free(o->steady_n);
	memset(o, 0, sizeof(*o));
}

static int dep_of(const struct sim *x, uint64_t s, uint64_t c, int bwd, uint64_t *ds, uint64_t *dc, int *dbwd,
		  int *send);

/* Sets the wire of o's ops (struct pop's in_f, in_b): 0, -1 when out of memory,
 * -2 when an output would feed two ops (a bug: sim_run's send_to holds
 * one send an output, and no schedule's dep_of does that). */
static int wire_build(struct sim_order *o)
{
	uint64_t p = o->p, v = o->v, m = o->m, cells = p * v, fwds = p * v * m;
	/* [s][c][2]: where the input of a chunk's forward / backward of
	 * microbatch 0 is, + 1 (0: none) */
	uint32_t *in = dc_calloc(2 * (size_t)cells, sizeof(*in));
	unsigned char *fed = dc_calloc(2 * (size_t)cells, 1); /* an output's consumer seen */
	struct sim shape;
	int rc = -1;
	if (!in || !fed)
		goto out;
	memset(&shape, 0, sizeof(shape));
	shape.sched = o->sched;
	shape.p = p;
	shape.v = v;
	shape.m = m;
	for (uint64_t s = 0; s < p; s++)
		for (uint64_t c = 0; c < v; c++)
			for (int bwd = 0; bwd < 2; bwd++) {
				uint64_t ds, dc;
				int dbwd, send;
				if (!dep_of(&shape, s, c, bwd, &ds, &dc, &dbwd, &send))
					continue;
				if (fed[(dbwd ? cells : 0) + ds * v + dc]++) {
					rc = -2;
					goto out;
				}
				in[(s * v + c) * 2 + (uint64_t)bwd] = (uint32_t)((dbwd ? fwds : 0) + (ds * v + dc) * m + 1);
			}
	for (uint64_t s = 0; s < p; s++)
		for (uint64_t i = 0; i < o->nops[s]; i++) {
			struct pop *op = &o->ops[s * o->cap + i];
			uint32_t f = in[(s * v + op->cf) * 2], b = in[(s * v + op->cb) * 2 + 1];
			int fwd = op->kind == OP_F || op->kind == OP_FB;
			int bwd = op->kind == OP_B || op->kind == OP_BX || op->kind == OP_FB;
			op->in_f = fwd && f ? f + op->mf : 0;
			op->in_b = bwd && b ? b + op->mb : 0;
		}
	rc = 0;
out:
	free(in);
	free(fed);
	return rc;
}

/* Builds the op order of `sched` on p ranks, m microbatches, v chunks a
 * rank into *o: 0, or -1 when out of memory, -2 when its wire fails
 * (wire_build; *o zeroes either way). */
static int order_build(struct sim_order *o, enum dc_pipe_schedule sched, uint64_t p, uint64_t m, uint64_t v)
{
	uint64_t *wq;
	int rc;
	memset(o, 0, sizeof(*o));
	if (m > UINT32_MAX || v > UINT32_MAX || (v && p > UINT32_MAX / 2 / v) || (m && p * v > UINT32_MAX / 2 / m))
		return -1; /* struct pop's 32 bits; far above any allocation */
	o->sched = sched;
	o->p = p;
	o->m = m;
	o->v = v;
	/* 1F1B, interleaved: 2 m v ops; ZB-H1: 3 m; DualPipe: at most 3 m */
	o->cap = sched == DC_PIPE_1F1B || sched == DC_PIPE_INTERLEAVED ? 2 * m * v : 3 * m * v + 4;
	/* every op a rank runs is written (put), and no more are read */
	o->ops = dc_malloc((size_t)(p * o->cap) * sizeof(*o->ops));
	o->nops = dc_calloc((size_t)p, sizeof(*o->nops));
	o->steady_at = dc_calloc((size_t)p, sizeof(*o->steady_at));
	o->steady_n = dc_calloc((size_t)p, sizeof(*o->steady_n));
	wq = dc_calloc((size_t)(2 * m * v + 2), sizeof(*wq));
	if (!o->ops || !o->nops || !o->steady_at || !o->steady_n || !wq) {
		free(wq);
		order_free(o);
		return -1;
	}
	for (uint64_t s = 0; s < p; s++) {
		struct gen g;
		memset(&g, 0, sizeof(g));
		g.o = &o->ops[s * o->cap];
		g.wq_c = wq;
		g.wq_m = wq + m * v + 1;
		switch (sched) {
		case DC_PIPE_ZERO_BUBBLE:
			gen_zb(&g, p, m, s);
			break;
		case DC_PIPE_DUALPIPE:
		case DC_PIPE_DUALPIPEV:
			gen_dualpipe(&g, p, m, s, sched == DC_PIPE_DUALPIPEV);
			break;
		case DC_PIPE_1F1B:
		case DC_PIPE_INTERLEAVED:
			for (uint64_t i = 0; i < 2 * m * v; i++) {
				int fwd;
				uint64_t mb, c;
				op_at(p, m, v, s, i, &fwd, &mb, &c);
				if (fwd)
					put(&g, OP_F, c, mb, 0, 0);
				else
					put(&g, OP_B, 0, 0, c, mb);
			}
			break;
		}
		o->nops[s] = g.n;
		o->steady_at[s] = g.steady_at;
		o->steady_n[s] = g.steady_n;
	}
	free(wq);
	rc = wire_build(o);
	if (rc != 0)
		order_free(o);
	return rc;
}

static uint64_t order_bytes(const struct sim_order *o)
{
	return o->p * (o->cap * sizeof(*o->ops) + 3 * sizeof(uint64_t));
}

/* A search's op orders (one set per thread, in its step memo): the last
 * SIM_ORDERS built, SIM_ORDERS_BYTES together at most (an order above
 * that is built for its step alone), the least recently taken dropped
 * first. A search's layouts cycle through its (pp, m, v): the shipped
 * DeepSeek-V3 search's 1,507 simulated steps take 10 orders; the GPT-3
 * 175B space with 16 experts and 2 dense layers (uneven 1F1B, simulated)
 * 99, 14 MB together, which 16 slots rebuilt 5,530 times as it cycled
 * through them. Taking one is a scan of the slots, a few hundred
 * instructions against a simulation's tens of thousands. */
#define SIM_ORDERS 128
#define SIM_ORDERS_BYTES (UINT64_C(48) << 20)

struct sim_orders {
	struct sim_order o[SIM_ORDERS];
	uint64_t used[SIM_ORDERS]; /* when last taken (tick); 0: empty */
	uint64_t tick, bytes;
};

static void orders_free(struct sim_orders *c)
{
	if (!c)
		return;
	for (int i = 0; i < SIM_ORDERS; i++)
		order_free(&c->o[i]);
	free(c);
}

#ifdef DISTCALC_VERIFY_MEMOS
/* A kept order against one built fresh: the same ops, bit for bit. */
static void order_verify(const struct sim_order *o)
{
	static const char memo[] = "op order memo (src/est/step.c)";
	struct sim_order f;
	char what[64];
	if (order_build(&f, o->sched, o->p, o->m, o->v) != 0)
		return; /* out of memory: nothing to compare against */
	for (uint64_t s = 0; s < o->p; s++) {
		snprintf(what, sizeof(what), "stage %llu's", (unsigned long long)s);
		dc_memo_verify_u64(memo, "nops", o->nops[s], f.nops[s]);
		dc_memo_verify_u64(memo, "steady_at", o->steady_at[s], f.steady_at[s]);
		dc_memo_verify_u64(memo, "steady_n", o->steady_n[s], f.steady_n[s]);
		dc_memo_verify_bytes(memo, what, &o->ops[s * o->cap], &f.ops[s * f.cap],
				     (size_t)o->nops[s] * sizeof(*o->ops), NULL, 0);
	}
	order_free(&f);
}
#endif

/* The op order of (sched, p, m, v): the memo's when it keeps it, else
 * built (and kept when it fits) or, with no memo or too large to keep,
 * built into *own (the caller frees it). NULL with order_build's failure
 * in *rc when it cannot be built. */
static const struct sim_order *order_get(struct dc_step_memo *memo, enum dc_pipe_schedule sched, uint64_t p,
					 uint64_t m, uint64_t v, struct sim_order *own, int *rc)
{
	struct sim_orders *c;
	struct sim_order o;
	int slot = 0;
	memset(own, 0, sizeof(*own));
	if (memo && !memo->orders)
		memo->orders = dc_calloc(1, sizeof(*memo->orders)); /* none kept when out of memory */
	c = memo ? memo->orders : NULL;
	for (int i = 0; c && i < SIM_ORDERS; i++)
		if (c->used[i] && c->o[i].sched == sched && c->o[i].p == p && c->o[i].m == m && c->o[i].v == v) {
			c->used[i] = ++c->tick;
			DC_MEMO_VERIFY(order_verify(&c->o[i]));
			return &c->o[i];
		}
	*rc = order_build(&o, sched, p, m, v);
	if (*rc != 0)
		return NULL;
	if (!c || order_bytes(&o) > SIM_ORDERS_BYTES) {
		*own = o;
		return own;
	}
	for (;;) {
		/* an empty slot when the order fits beside the kept ones, else
		 * the least recently taken dropped */
		int empty = -1, old = -1;
		for (int i = 0; i < SIM_ORDERS; i++) {
			if (!c->used[i] && empty < 0)
				empty = i;
			if (c->used[i] && (old < 0 || c->used[i] < c->used[old]))
				old = i;
		}
		if (empty >= 0 && c->bytes + order_bytes(&o) <= SIM_ORDERS_BYTES) {
			slot = empty;
			break;
		}
		c->bytes -= order_bytes(&c->o[old]);
		order_free(&c->o[old]);
		c->used[old] = 0;
	}
	c->o[slot] = o;
	c->used[slot] = ++c->tick;
	c->bytes += order_bytes(&o);
	return &c->o[slot];
}

static void sim_free(struct sim *x)
{
	order_free(&x->own);
	free(x->own_times);
	free(x->send_to);
	free(x->durs);
}

/* Allocates the simulation of `sched` on p ranks, m microbatches, v chunks
 * a rank, its op order from `memo` (a search's step memo; may be NULL).
 * Returns 0, -1 when out of memory, or -2 when its order's wire fails (a
 * bug: wire_build). */
static int sim_alloc(struct sim *x, enum dc_pipe_schedule sched, uint64_t p, uint64_t m, uint64_t v,
		     const struct sends *snd, struct dc_step_memo *memo)
{
	size_t n, times, cells = (size_t)(p * v);
	const struct sim_order *o;
	double *block = NULL;
	int rc = 0;
	memset(x, 0, sizeof(*x));
	x->sched = sched;
	x->p = p;
	x->m = m;
	x->v = v;
	x->snd = *snd;
	o = order_get(memo, sched, p, m, v, &x->own, &rc);
	if (!o)
		return rc;
	x->cap = o->cap;
	x->ops = o->ops;
	x->nops = o->nops;
	x->steady_at = o->steady_at;
	x->steady_n = o->steady_n;
	n = (size_t)(p * x->cap);
	/* op_t, end_at in one block: sim_run sets every op's
	 * times it runs and every end before it reads them, so a search's
	 * memo keeps the block for the next layout's (SIM_ORDERS_BYTES at
	 * most; a larger one is the step's own) */
	times = 2 * n + 2 * (size_t)(p * v * m);
	if (memo && memo->scratch_n >= times) {
		block = memo->scratch;
	} else if (memo && times * sizeof(double) <= SIM_ORDERS_BYTES) {
		free(memo->scratch);
		memo->scratch_n = 0;
		memo->scratch = block = dc_malloc(times * sizeof(double));
		if (block)
			memo->scratch_n = times;
	} else {
		block = x->own_times = dc_malloc(times * sizeof(double));
	}
	x->send_to = dc_calloc(2 * cells, sizeof(double));
	x->durs = dc_calloc(5 * cells, sizeof(double));
	if (!block || !x->send_to || !x->durs) {
		sim_free(x);
		return -1;
	}
	x->op_t = (struct op_time *)block;
	x->end_at = block + 2 * n;
	x->dur_f = x->durs;
	x->dur_b = x->durs + cells;
	x->dur_w = x->durs + 2 * cells;
	x->dur_fp = x->durs + 3 * cells;
	x->dur_bp = x->durs + 4 * cells;
	for (uint64_t s = 0; s < p; s++)
		for (uint64_t c = 0; c < v; c++)
			for (int bwd = 0; bwd < 2; bwd++) {
				/* what (s, c, bwd) takes is one output's alone (wire_build) */
				uint64_t ds = 0, dc = 0;
				int dbwd = 0, send = 0;
				if (dep_of(x, s, c, bwd, &ds, &dc, &dbwd, &send) && send)
					x->send_to[(dbwd ? cells : 0) + ds * v + dc] = sends_between(&x->snd, p, s, ds);
			}
	return 0;
}

/* What op (s, c, mb, bwd) waits for: 0 nothing, else 1 with its stage,
 * chunk and whether it is a backward in *ds, *dc, *dbwd, and *send 1 when
 * it comes from another rank (one send later). */
static int dep_of(const struct sim *x, uint64_t s, uint64_t c, int bwd, uint64_t *ds, uint64_t *dc, int *dbwd,
		  int *send)
{
	uint64_t p = x->p, v = x->v;
	*send = 1;
	*dc = c;
	*dbwd = bwd;
	switch (x->sched) {
	case DC_PIPE_DUALPIPE:
		/* chunk 0 runs stage 0 -> p - 1, chunk 1 stage p - 1 -> 0 */
		if (!bwd) {
			if (c == 0 ? s == 0 : s + 1 == p)
				return 0;
			*ds = c == 0 ? s - 1 : s + 1;
			return 1;
		}
		if (c == 0 ? s + 1 == p : s == 0) {
			*ds = s;
			*dbwd = 0;
			*send = 0;
			return 1;
		}
		*ds = c == 0 ? s + 1 : s - 1;
		return 1;
	case DC_PIPE_DUALPIPEV:
		/* down the ranks in chunk 0, back up in chunk 1 */
		if (!bwd) {
			if (c == 0) {
				if (s == 0)
					return 0;
				*ds = s - 1;
				return 1;
			}
			*ds = s + 1 == p ? s : s + 1;
			*dc = s + 1 == p ? 0 : 1;
			*send = s + 1 < p;
			return 1;
		}
		if (c == 1) {
			*ds = s == 0 ? 0 : s - 1;
			*dbwd = s > 0;
			*send = s > 0;
			return 1;
		}
		*ds = s + 1 == p ? s : s + 1;
		*dc = s + 1 == p ? 1 : 0;
		*send = s + 1 < p;
		return 1;
	case DC_PIPE_1F1B:
	case DC_PIPE_INTERLEAVED:
	case DC_PIPE_ZERO_BUBBLE:
		break;
	}
	if (!bwd) {
		if (s > 0) {
			*ds = s - 1;
			return 1;
		}
		if (c == 0)
			return 0;
		*ds = p - 1;
		*dc = c - 1;
		*send = p > 1;
		return 1;
	}
	if (s + 1 < p) {
		*ds = s + 1;
		return 1;
	}
	if (c + 1 < v) {
		*ds = 0;
		*dc = c + 1;
		*send = p > 1;
		return 1;
	}
	*ds = s;
	*dbwd = 0;
	*send = 0;
	return 1;
}

/* An op's duration on stage s: a pair takes its forward's and its
 * backward's paired times (the same as alone unless overlap.ep dualpipe
 * hides their AlltoAlls). */
static inline double op_dur(const struct sim *x, uint64_t s, const struct pop *o)
{
	size_t i = (size_t)(s * x->v);
	switch (o->kind) {
	case OP_F:
		return x->dur_f[i + o->cf];
	case OP_B:
		return x->dur_b[i + o->cb];
	case OP_BX:
		return x->dur_b[i + o->cb] - x->dur_w[i + o->cb];
	case OP_W:
		return x->dur_w[i + o->cb];
	case OP_FB:
		break;
	}
	return x->dur_fp[i + o->cf] + x->dur_bp[i + o->cb];
}

/* Runs every rank's ops in its order as soon as their inputs are there:
 * returns 0 with each rank's end in end_s[] and the span, -1 when out of
 * memory, -2 when the schedule deadlocks (a bug). Sweeps the ranks down
 * and back up, each running until an input it needs is not there yet
 * (end_at[] below 0), until every rank is done. An op starts at max(when
 * its input is there, its rank's last op's end), which no order of
 * running the ranks changes. Where an input is comes from the order's
 * wire, its send from send_to (the op that makes it adds it: each output
 * feeds one op at most), its duration from the chunk's. */
static int sim_run(struct sim *x, double *end_s, double *span_s)
{
	const uint64_t p = x->p, v = x->v, m = x->m, cap = x->cap, cells = p * v;
	const size_t fwds = (size_t)(p * v * m);
	const struct pop *ops = x->ops;
	const double *send_to = x->send_to;
	double *end_at = x->end_at;
	struct op_time *op_t = x->op_t;
	/* next[s]: its next op; free_at[s]: when its last op ended */
	uint64_t *next = dc_calloc((size_t)p, sizeof(*next)), left = p;
	double *free_at = dc_calloc((size_t)p, sizeof(*free_at));
	double span = 0;
	if (!next || !free_at) {
		free(next);
		free(free_at);
		return -1;
	}
	for (size_t i = 0; i < 2 * fwds; i++)
		end_at[i] = -1;
	for (uint64_t s = 0; s < p; s++)
		if (x->nops[s] == 0) {
			left--;
			end_s[s] = 0;
		}
	while (left > 0) {
		int progress = 0;
		for (uint64_t q = 0; q < 2 * p; q++) {
			uint64_t s = q < p ? q : 2 * p - 1 - q, n = x->nops[s], i = next[s], sv = s * v;
			const struct pop *o = &ops[s * cap + i];
			double at = free_at[s];
			if (i == n)
				continue;
			for (; i < n; i++, o++) {
				uint64_t cf = sv + o->cf, cb = sv + o->cb;
				double ready = 0, t;
				if (o->in_f) {
					if (end_at[o->in_f - 1] < 0)
						break;
					ready = end_at[o->in_f - 1];
				}
				if (o->in_b) {
					if (end_at[o->in_b - 1] < 0)
						break;
					if (end_at[o->in_b - 1] > ready)
						ready = end_at[o->in_b - 1];
				}
				t = ready > at ? ready : at;
				op_t[s * cap + i].start = t;
				t += op_dur(x, s, o);
				/* each output is there one send later for the op
				 * that takes it */
				if (o->kind == OP_F || o->kind == OP_FB)
					end_at[cf * m + o->mf] = t + send_to[cf];
				if (o->kind == OP_B || o->kind == OP_BX || o->kind == OP_FB)
					end_at[fwds + cb * m + o->mb] = t + send_to[cells + cb];
				/* a DualPipe pair of the two directions' chunks sends
				 * both outputs to one neighbour (up: chunk 0's
				 * forward, chunk 1's backward), over one link: its
				 * activations, then its gradients (the trace draws
				 * them so; a pipeline trial found the gradients'
				 * consumer starting before they were through) */
				if (o->kind == OP_FB && o->cf != o->cb)
					end_at[fwds + cb * m + o->mb] += send_to[cf];
				op_t[s * cap + i].end = t;
				at = t;
			}
			if (i == next[s])
				continue;
			progress = 1;
			next[s] = i;
			free_at[s] = at;
			if (i == n) {
				left--;
				end_s[s] = at;
				if (at > span)
					span = at;
			}
		}
		if (!progress)
			break;
	}
	free(free_at);
	free(next);
	if (left > 0)
		return -2;
	*span_s = span;
	return 0;
}

/* ---- the last simulation memoised across a search's layouts ---- */

/* What sim_run reads (the schedule, its shape, the send, every chunk's
 * op times: its op order and inputs are functions of these) and what the
 * step reads of its result (every rank's end, the span, every rank's
 * first op's start: the fill). Layouts alike in all the step reads (the
 * sharding, the optimizer's placement) run the same simulation: 557 of
 * the 1,507 in the shipped DeepSeek-V3 search of tp [1, 2], each right
 * after its twin. Durations compared as bytes (-0 and +0 differ). */
struct sim_memo {
	int have;
	enum dc_pipe_schedule sched;
	uint64_t p, m, v;
	struct sends snd;
	double *dur;        /* [5][p][v]: dur_f, dur_b, dur_w, dur_fp, dur_bp */
	double *end, *head; /* [p]: each rank's end, its first op's start */
	double span;
};

static void sim_memo_free(struct sim_memo *sm)
{
	if (!sm)
		return;
	free(sm->dur);
	free(sm->end);
	free(sm->head);
	free(sm);
}

static void sim_durs(const struct sim *x, const double *d[5])
{
	d[0] = x->dur_f;
	d[1] = x->dur_b;
	d[2] = x->dur_w;
	d[3] = x->dur_fp;
	d[4] = x->dur_bp;
}

/* 1 when the memo holds x's simulation: its ends in end_s[], its span in
 * *span_s and every rank's first op's start in x->op_t (no other op's
 * time set); else 0. */
static int sim_memo_take(const struct sim_memo *sm, struct sim *x, double *end_s, double *span_s)
{
	const double *d[5];
	size_t cells = (size_t)(x->p * x->v);
	if (!sm || !sm->have || sm->sched != x->sched || sm->p != x->p || sm->m != x->m || sm->v != x->v ||
	    memcmp(&sm->snd, &x->snd, sizeof(x->snd)) != 0)
		return 0;
	sim_durs(x, d);
	for (int j = 0; j < 5; j++)
		if (memcmp(&sm->dur[(size_t)j * cells], d[j], cells * sizeof(double)) != 0)
			return 0;
	for (uint64_t s = 0; s < x->p; s++) {
		end_s[s] = sm->end[s];
		x->op_t[s * x->cap].start = sm->head[s];
	}
	*span_s = sm->span;
	return 1;
}

/* Keeps x's simulation (sim_run's ends and span) in *memo's; nothing kept
 * when out of memory. */
static void sim_memo_put(struct dc_step_memo *memo, const struct sim *x, const double *end_s, double span_s)
{
	struct sim_memo *sm = memo->sim;
	const double *d[5];
	size_t cells = (size_t)(x->p * x->v);
	if (!sm) {
		sm = memo->sim = dc_calloc(1, sizeof(*sm));
		if (!sm)
			return;
	}
	if (!sm->have || sm->p != x->p || sm->v != x->v) {
		free(sm->dur);
		free(sm->end);
		free(sm->head);
		sm->dur = dc_malloc(5 * cells * sizeof(double));
		sm->end = dc_malloc((size_t)x->p * sizeof(double));
		sm->head = dc_malloc((size_t)x->p * sizeof(double));
	}
	sm->have = 0;
	if (!sm->dur || !sm->end || !sm->head) {
		free(sm->dur);
		free(sm->end);
		free(sm->head);
		sm->dur = sm->end = sm->head = NULL;
		return;
	}
	sm->sched = x->sched;
	sm->p = x->p;
	sm->m = x->m;
	sm->v = x->v;
	sm->snd = x->snd;
	sim_durs(x, d);
	for (int j = 0; j < 5; j++)
		memcpy(&sm->dur[(size_t)j * cells], d[j], cells * sizeof(double));
	for (uint64_t s = 0; s < x->p; s++) {
		sm->end[s] = end_s[s];
		sm->head[s] = x->nops[s] ? x->op_t[s * x->cap].start : 0;
	}
	sm->span = span_s;
	sm->have = 1;
}

#ifdef DISTCALC_VERIFY_MEMOS
/* A simulation memo hit (end_s, span_s, x's first starts) against x
 * simulated afresh (x's op times are then the fresh ones). */
static void sim_memo_verify(struct sim *x, const double *end_s, double span_s)
{
	static const char memo[] = "simulation memo (src/est/step.c)";
	double *end = dc_calloc((size_t)x->p, sizeof(double)), *head = dc_calloc((size_t)x->p, sizeof(double)), span = 0;
	char what[64];
	if (!end || !head) {
		free(end);
		free(head);
		return; /* out of memory: nothing to compare against */
	}
	for (uint64_t s = 0; s < x->p; s++)
		head[s] = x->op_t[s * x->cap].start;
	if (sim_run(x, end, &span) != 0)
		dc_memo_verify_u64(memo, "the fresh simulation's failure", 1, 0);
	dc_memo_verify_double(memo, "span", span_s, span);
	for (uint64_t s = 0; s < x->p; s++) {
		snprintf(what, sizeof(what), "rank %llu's end", (unsigned long long)s);
		dc_memo_verify_double(memo, what, end_s[s], end[s]);
		snprintf(what, sizeof(what), "rank %llu's first start", (unsigned long long)s);
		dc_memo_verify_double(memo, what, head[s], x->nops[s] ? x->op_t[s * x->cap].start : 0);
	}
	free(end);
	free(head);
}

void dc_step_memo_corrupt_sim(struct dc_step_memo *m, int order)
{
	if (order) {
		/* the last kept order's first rank's first op, one microbatch on */
		struct sim_orders *c = m->orders;
		int last = 0;
		for (int i = 0; c && i < SIM_ORDERS; i++)
			if (c->used[i] > c->used[last])
				last = i;
		if (c && c->used[last] && c->o[last].nops[0])
			c->o[last].ops[0].mf++;
		return;
	}
	if (m->sim)
		m->sim->span = nextafter(m->sim->span, INFINITY);
}
#endif

/* A chunk's op time from the stage's totals: chunk 0 and chunk v - 1 as
 * given, the chunks between share the rest. */
static double chunk_time(const struct dc_step_stage *st, uint64_t v, uint64_t c, int fwd)
{
	double first = fwd ? st->fwd_first_s : st->bwd_first_s, last = fwd ? st->fwd_last_s : st->bwd_last_s;
	double all = fwd ? st->fwd_s : st->bwd_s;
	if (v == 1)
		return all;
	if (c == 0)
		return first;
	if (c + 1 == v)
		return last;
	return (all - first - last) / (double)(v - 2);
}

static uint64_t sched_chunks(enum dc_pipe_schedule sched, uint64_t v)
{
	return sched == DC_PIPE_DUALPIPE || sched == DC_PIPE_DUALPIPEV ? 2 : sched == DC_PIPE_INTERLEAVED ? v : 1;
}

int dc_step_pipeline_simulate(const struct dc_step_pipe *pp, double *end_s, double *span_s)
{
	struct sim x;
	enum dc_pipe_schedule sched = pp->schedule;
	uint64_t v;
	int rc;
	if (sched == DC_PIPE_1F1B && pp->v > 1)
		sched = DC_PIPE_INTERLEAVED;
	v = sched_chunks(sched, pp->v);
	struct sends u = sends_uniform(pp->send_s);
	if (sim_alloc(&x, sched, pp->p, pp->m, v, &u, NULL) != 0)
		return -1;
	for (uint64_t s = 0; s < pp->p; s++) {
		const struct dc_step_stage *st = &pp->stage[s];
		for (uint64_t c = 0; c < v; c++) {
			size_t i = (size_t)(s * v + c);
			double fp = c == 0 ? st->fwd_pair_first_s : st->fwd_pair_last_s;
			double bp = c == 0 ? st->bwd_pair_first_s : st->bwd_pair_last_s;
			x.dur_f[i] = chunk_time(st, v, c, 1);
			x.dur_b[i] = chunk_time(st, v, c, 0);
			x.dur_w[i] = v == 1 ? st->wgrad_s : c == 0 ? st->wgrad_first_s : st->wgrad_last_s;
			x.dur_fp[i] = fp > 0 ? fp : x.dur_f[i];
			x.dur_bp[i] = bp > 0 ? bp : x.dur_b[i];
		}
	}
	rc = sim_run(&x, end_s, span_s);
	sim_free(&x);
	return rc == 0 ? 0 : -1;
}

const char *dc_step_track_name(enum dc_step_track t)
{
	static const char *const names[] = {"compute", "tp", "ep", "fsdp all_gather", "fsdp reduce_scatter",
					    "pp send", "dp", "cp"};
	return names[t];
}

/* ---- events ---- */

struct emitter {
	dc_step_event_fn emit;
	void *ctx;
	int rc;
	struct dc_step_event e;
	enum dc_step_ev_kind kind; /* of the spans ev() emits: DC_EV_SPAN but for a summary */
};

static void ev(struct emitter *em, uint64_t stage, enum dc_step_track t, double start, double dur, const char *fmt,
	       ...) __attribute__((format(printf, 6, 7)));

static void ev(struct emitter *em, uint64_t stage, enum dc_step_track t, double start, double dur, const char *fmt,
	       ...)
{
	va_list ap;
	if (em->rc || dur <= 0)
		return;
	em->e.stage = stage;
	em->e.track = t;
	em->e.kind = em->kind;
	if (em->kind != DC_EV_SUMMARY) {
		em->e.ops = 0;
		em->e.busy_s = 0;
	}
	em->e.start_s = start;
	em->e.duration_s = dur;
	va_start(ap, fmt);
	vsnprintf(em->e.name, sizeof(em->e.name), fmt, ap);
	va_end(ap);
	em->rc = em->emit(em->ctx, &em->e);
}

/* What of a layer's backward an event shows: all of it, its input
 * gradients (ZB-H1's and DualPipe's B before a deferred W), or the weight
 * gradients alone (W). */
enum part { PART_ALL, PART_INPUT, PART_WEIGHT };

static double clamp_to(double x, double hi)
{
	return x < hi ? x : hi > 0 ? hi : 0;
}

/* One layer's events: its kernels on the compute track, then what it
 * waits for; its collectives on their tracks (TP inside the layer's span,
 * ending with it; FSDP's gathers and reduce-scatters on their streams).
 * `tag` marks an op of an overlapped DualPipe pair. */
static double emit_layer(struct emitter *em, const struct costs *k, uint64_t stage, uint64_t layer, uint64_t mb,
			 int moe, int bf16, int bwd, int first, double share, enum part part, const char *tag, double t)
{
	struct cost o;
	const char *dir = !bwd ? "fwd" : part == PART_INPUT ? "bwd (input grads)" : "bwd";
	double comp, dur;
	/* a layer kept in BF16 (precision.bf16_*) at its own kernels, as
	 * chunk_layers_cost_bf16 prices it */
	const struct dc_work_time *w = moe ? (bf16 ? &k->c->moe_layer_bf16 : &k->c->moe_layer)
					   : (bf16 ? &k->c->dense_layer_bf16 : &k->c->dense_layer);
	layer_cost(k, w, share, moe, bwd, first, &o);
	if (part == PART_WEIGHT) {
		ev(em, stage, DC_TRACK_COMPUTE, t, o.wgrad, "layer %llu weight grads mb %llu%s", (unsigned long long)layer,
		   (unsigned long long)mb, tag);
		return t + o.wgrad;
	}
	comp = part == PART_INPUT ? o.comp - o.wgrad : o.comp;
	dur = part == PART_INPUT ? o.dur - o.wgrad : o.dur;
	ev(em, stage, DC_TRACK_COMPUTE, t, comp, "layer %llu %s mb %llu%s", (unsigned long long)layer, dir,
	   (unsigned long long)mb, tag);
	ev(em, stage, DC_TRACK_COMPUTE, t + comp, dur - comp, "layer %llu %s mb %llu%s: wait for communication",
	   (unsigned long long)layer, dir, (unsigned long long)mb, tag);
	/* every collective inside the span the op shows (its input-gradient
	 * part may be shorter than the GEMMs a TP collective hid behind) */
	o.tp_comm = clamp_to(o.tp_comm, dur - o.ex[DC_STRAT_EP]);
	ev(em, stage, DC_TRACK_TP, t + dur - o.ex[DC_STRAT_EP] - o.tp_comm, o.tp_comm,
	   "layer %llu %s mb %llu tp collectives", (unsigned long long)layer, dir, (unsigned long long)mb);
	/* an AlltoAll paired behind another microbatch (overlap.ep) may
	 * outlast this op: the track shows what falls inside its span */
	o.ep_comm = clamp_to(o.ep_comm, dur);
	ev(em, stage, DC_TRACK_EP, t + dur - o.ep_comm, o.ep_comm, "layer %llu %s mb %llu ep all_to_all",
	   (unsigned long long)layer, dir, (unsigned long long)mb);
	/* cp's exchange ends with the layer (behind its kernels for p2p) */
	o.cp_comm = clamp_to(o.cp_comm, dur);
	ev(em, stage, DC_TRACK_CP, t + dur - o.cp_comm, o.cp_comm, "layer %llu %s mb %llu cp k/v exchange",
	   (unsigned long long)layer, dir, (unsigned long long)mb);
	/* the gather this layer's span covers (prefetched, it belongs to the
	 * next unit), then its reduce-scatter ending with it: each inside the
	 * layer's span (o.dur >= ag, rs), so a stream's events never overlap */
	ev(em, stage, DC_TRACK_FSDP_GATHER, t, clamp_to(o.ag, dur), "layer %llu %s mb %llu fsdp all_gather",
	   (unsigned long long)layer, dir, (unsigned long long)mb);
	o.rs = clamp_to(o.rs, dur);
	ev(em, stage, DC_TRACK_FSDP_REDUCE, t + dur - o.rs, o.rs, "layer %llu bwd mb %llu fsdp reduce_scatter",
	   (unsigned long long)layer, (unsigned long long)mb);
	return t + dur;
}

/* A piece of work (the embedding, the head) as one event, or its part. */
static double emit_work(struct emitter *em, uint64_t stage, const struct dc_work_time *w, int bwd, enum part part,
			const char *what, uint64_t mb, const char *tag, double t)
{
	struct cost o;
	double d;
	work_cost(w, bwd, &o);
	d = part == PART_WEIGHT ? o.wgrad : part == PART_INPUT ? o.dur - o.wgrad : o.dur;
	ev(em, stage, DC_TRACK_COMPUTE, t, d, "%s %s mb %llu%s", what,
	   !bwd ? "fwd" : part == PART_WEIGHT ? "weight grads" : part == PART_INPUT ? "bwd (input grads)" : "bwd",
	   (unsigned long long)mb, tag);
	return t + d;
}

/* A TP call of `d` waited for, from t, on the compute track and the TP
 * track (none when d is 0): `what` "embedding fwd", ..., `call` the TP
 * call's name. Returns where it ends. */
static double emit_wait(struct emitter *em, uint64_t stage, double t, double d, const char *what, uint64_t mb,
			const char *tag, const char *call)
{
	if (!(d > 0))
		return t;
	ev(em, stage, DC_TRACK_COMPUTE, t, d, "%s mb %llu%s: wait for communication", what, (unsigned long long)mb, tag);
	ev(em, stage, DC_TRACK_TP, t, d, "%s mb %llu %s", what, (unsigned long long)mb, call);
	return t + d;
}

/* The head's MTP modules' collectives (mtp_cost) as one wait after the
 * head's work, on the input-gradient part of a split backward */
static double emit_mtp(struct emitter *em, const struct costs *k, uint64_t stage, uint64_t mb, int bwd, enum part part,
		       double share, const char *tag, double t)
{
	struct cost o;
	if (!k->mtp || part == PART_WEIGHT)
		return t;
	memset(&o, 0, sizeof(o));
	mtp_cost(k, share, bwd, &o);
	ev(em, stage, DC_TRACK_COMPUTE, t, o.dur, "head and loss %s mb %llu%s: MTP modules' collectives",
	   bwd ? "bwd" : "fwd", (unsigned long long)mb, tag);
	ev(em, stage, DC_TRACK_TP, t, clamp_to(o.tp_comm, o.dur), "head and loss %s mb %llu MTP modules' tp collectives",
	   bwd ? "bwd" : "fwd", (unsigned long long)mb);
	return t + o.dur;
}

/* Chunk c of `stage` for one microbatch, forward or backward (or a part
 * of it), from t; `rep`: the stage whose ops priced it (rep_stage), for
 * its share of paired AlltoAlls. Returns where it ends. */
static double emit_op(struct emitter *em, const struct costs *k, uint64_t stage, uint64_t rep, uint64_t mb, uint64_t c,
		      int bwd, enum part part, int paired, double t)
{
	struct chunk ch, rc;
	double share = ep_share(k, rep, paired);
	const char *tag = paired ? " (F&B pair)" : "";
	uint64_t n, d;
	int moe_every;
	chunk_of(k->p, stage, c, &ch);
	chunk_of(k->p, rep, c, &rc);
	n = ch.at.layers;
	d = rc.dense; /* the layers as the simulation priced them */
	moe_every = dc_plan_moe_interleaved(k->p);
	if (!bwd && ch.at.embedding) {
		/* torchtitan's embedding unit's gather first (chunk_ends_cost) */
		ev(em, stage, DC_TRACK_COMPUTE, t, k->emb_ag_f, "embedding fwd mb %llu%s: wait for communication",
		   (unsigned long long)mb, tag);
		ev(em, stage, DC_TRACK_FSDP_GATHER, t, k->emb_ag_f, "embedding fwd mb %llu fsdp all_gather",
		   (unsigned long long)mb);
		t += k->emb_ag_f;
		t = emit_work(em, stage, &k->c->embedding, 0, part, "embedding", mb, tag, t);
		/* then its TP call (chunk_ends_cost) */
		t = emit_wait(em, stage, t, k->tp_emb_f, "embedding fwd", mb, tag, "tp reduction");
	}
	if (bwd && ch.at.head) {
		double t0 = t, hid = 0, shown = 0;
		t = emit_work(em, stage, &k->c->head, 1, part, "head and loss", mb, tag, t);
		/* its TP calls behind its GEMMs, or waited for (tp_head_shown) */
		if (part != PART_WEIGHT)
			shown = tp_head_shown(k, &hid);
		if (shown + hid > 0) {
			double dw = shown + (hid > 0 ? k->slow * hid : 0);
			ev(em, stage, DC_TRACK_COMPUTE, t, dw, "head and loss bwd mb %llu%s: wait for communication",
			   (unsigned long long)mb, tag);
			t += dw;
			ev(em, stage, DC_TRACK_TP, t - clamp_to(shown + hid, t - t0), clamp_to(shown + hid, t - t0),
			   "head and loss bwd mb %llu tp input grad", (unsigned long long)mb);
		}
		t = emit_mtp(em, k, stage, mb, 1, part, share, tag, t);
	}
	for (uint64_t j = 0; j < n; j++) {
		uint64_t i = bwd ? n - 1 - j : j;
		/* dense first, or MoE every n-th layer: the priced chunk's own
		 * layer i */
		int moe = moe_every && i < rc.at.layers ? dc_plan_dense_in(k->p, rc.at.first_layer + i, 1) == 0 : i >= d;
		uint64_t bd;
		int bf16 = rc.bf16 && i < rc.at.layers && dc_plan_bf16_in(k->p, rc.at.first_layer + i, 1, &bd) != 0;
		t = emit_layer(em, k, stage, ch.at.first_layer + i, mb, moe, bf16, bwd, j == 0, share, part, tag, t);
	}
	if (!bwd && ch.at.head) {
		/* the head's input gathered, its work, the loss's tp
		 * reductions (chunk_ends_cost) */
		t = emit_wait(em, stage, t, k->tp_head_in_f, "head and loss fwd", mb, tag,
			      "tp all_gather");
		t = emit_work(em, stage, &k->c->head, 0, part, "head and loss", mb, tag, t);
		t = emit_wait(em, stage, t, k->tp_loss_f, "head and loss fwd", mb, tag,
			      "loss's tp all_reduce");
		t = emit_mtp(em, k, stage, mb, 0, part, share, tag, t);
	}
	if (bwd && ch.at.embedding) {
		/* its output gradient gathered first (chunk_ends_cost) */
		if (part != PART_WEIGHT)
			t = emit_wait(em, stage, t, k->tp_emb_b, "embedding bwd", mb, tag, "tp all_gather");
		t = emit_work(em, stage, &k->c->embedding, 1, part, "embedding", mb, tag, t);
		/* and its ReduceScatter last (pp 1: no split backward) */
		ev(em, stage, DC_TRACK_COMPUTE, t, k->emb_rs, "embedding bwd mb %llu%s: wait for communication",
		   (unsigned long long)mb, tag);
		ev(em, stage, DC_TRACK_FSDP_REDUCE, t, k->emb_rs, "embedding bwd mb %llu fsdp reduce_scatter",
		   (unsigned long long)mb);
		t += k->emb_rs;
	}
	return t;
}

/* Where chunk c's output goes from stage s, forward (activations) or
 * backward (gradients): 1 with the stage in *to, 0 when it stays (the
 * loss, the model's input, DualPipeV's turn on the last rank). */
static int sends_to(const struct sim *x, uint64_t s, uint64_t c, int bwd, uint64_t *to)
{
	uint64_t p = x->p;
	if (p < 2)
		return 0;
	if (x->sched == DC_PIPE_DUALPIPE || x->sched == DC_PIPE_DUALPIPEV) {
		int up = (c == 0) != bwd; /* towards the last rank */
		if (up ? s + 1 >= p : s == 0)
			return 0;
		*to = up ? s + 1 : s - 1;
		return 1;
	}
	if (!bwd) {
		*to = (s + 1) % p;
		return s + 1 < p || c + 1 < x->v;
	}
	*to = (s + p - 1) % p;
	return s > 0 || c > 0;
}

/* The microbatch a trace names: DualPipe counts the reverse direction's
 * after the forward direction's m / 2. */
static uint64_t shown_mb(const struct sim *x, uint64_t c, uint64_t mb)
{
	return x->sched == DC_PIPE_DUALPIPE && c == 1 ? (x->m_whole ? x->m_whole : x->m) / 2 + mb : mb;
}

/* Emits the send of (s, c, mb, bwd) to its neighbour, its boundary's
 * time from t; returns that time (0: none). */
static double emit_send(struct emitter *em, const struct step_ctx *x, const struct sim *sm, uint64_t s, uint64_t c,
			uint64_t mb, int bwd, double t)
{
	uint64_t to;
	double d;
	if (x->k.send_s <= 0 || !sends_to(sm, s, c, bwd, &to))
		return 0;
	d = sends_between(&sm->snd, sm->p, s, to);
	ev(em, s, DC_TRACK_PP, t, d, "%s mb %llu chunk %llu send to stage %llu", bwd ? "gradients" : "activations",
	   (unsigned long long)shown_mb(sm, c, mb), (unsigned long long)c, (unsigned long long)to);
	return d;
}

/* A point of the stage's memory counter (dc_step_trace). */
static void mem_point(struct emitter *em, uint64_t s, double t, uint64_t held, uint64_t held_max, enum dc_step_mem mem)
{
	if (em->rc)
		return;
	em->e.stage = s;
	em->e.track = DC_TRACK_COMPUTE;
	em->e.kind = DC_EV_MEMORY;
	em->e.start_s = t;
	em->e.duration_s = 0;
	em->e.held = held;
	em->e.held_max = held_max;
	em->e.mem = mem;
	snprintf(em->e.name, sizeof(em->e.name), "memory");
	em->rc = em->emit(em->ctx, &em->e);
}

/* An op's activations: a forward's are held from its start; a backward
 * frees its microbatch's at its end, unless its weight gradients run
 * apart (BX): then the W's end frees them. */
static int op_fwd(const struct pop *o)
{
	return o->kind == OP_F || o->kind == OP_FB;
}

static int op_frees(const struct pop *o)
{
	return o->kind == OP_B || o->kind == OP_W || o->kind == OP_FB;
}

/* The most chunk-microbatches stage s holds over its simulated ops. */
static uint64_t held_most(const struct sim *sm, uint64_t s)
{
	uint64_t held = 0, most = 0;
	for (uint64_t i = 0; i < sm->nops[s]; i++) {
		const struct pop *o = &sm->ops[s * sm->cap + i];
		held += (uint64_t)op_fwd(o);
		if (held > most)
			most = held;
		held -= held > 0 ? (uint64_t)op_frees(o) : 0;
	}
	return most;
}

/* The ops of stage s a trace shows: those before its first backward (B,
 * W or a pair's) of microbatch k or later (DualPipe: k / 2 each way). */
static uint64_t shown_ops(const struct sim *sm, uint64_t s, uint64_t k)
{
	int dual = sm->sched == DC_PIPE_DUALPIPE || sm->sched == DC_PIPE_DUALPIPEV;
	uint64_t lim = dual ? (k + 1) / 2 : k;
	if (k == 0)
		return sm->nops[s];
	for (uint64_t i = 0; i < sm->nops[s]; i++) {
		const struct pop *o = &sm->ops[s * sm->cap + i];
		if (o->kind != OP_F && o->mb >= lim)
			return i;
	}
	return sm->nops[s];
}

/* What emit_stage shows of a stage under dc_step_trace: NULL, everything. */
struct stage_view {
	uint64_t microbatches; /* dc_step_show.microbatches */
	uint64_t full_ops;     /* ops of the stage's whole schedule */
	int prefix;            /* the simulation holds a prefix of them */
	double busy_s;         /* the whole schedule's kernel time on the stage */
};

/* One stage's events, after the schedule has run. */
/* A bucket's second sums, by their DC_STEP_FOLLOW_* bits */
static const char *resum_text(unsigned bits)
{
	if (bits == (DC_STEP_RESUM_REPLICAS | DC_STEP_RESUM_MIRROR))
		return "across replicas, then with the mirror rank";
	return bits & DC_STEP_RESUM_MIRROR ? "with the mirror rank" : "across replicas";
}

/* d: the stage's rank's DP calls (rank_dp) */
static void emit_stage(struct emitter *em, const struct step_ctx *x, const struct sim *sm, uint64_t s,
		       const struct dc_step_stage *st, const struct dp_calls *d, double end, double sync, double opt,
		       double step, const struct stage_view *view)
{
	uint64_t rep = x->dev ? s : rep_stage(x, s);
	uint64_t nshow = view ? shown_ops(sm, s, view->microbatches) : sm->nops[s];
	uint64_t held = 0, held_max = view ? held_most(sm, s) : 0;
	double t = 0, tail, pen, shown_busy = 0;
	struct stage_sync_t sy;
	for (uint64_t i = 0; i < nshow && !em->rc; i++) {
		size_t ix = (size_t)(s * sm->cap + i);
		const struct pop *o = &sm->ops[ix];
		double st0 = sm->op_t[ix].start;
		ev(em, s, DC_TRACK_COMPUTE, t, st0 - t, "pipeline bubble");
		if (view) {
			held += (uint64_t)op_fwd(o);
			mem_point(em, s, st0, held, held_max, o->kind == OP_F ? DC_STEP_MEM_FORWARD : DC_STEP_MEM_BACKWARD);
			shown_busy += sm->op_t[ix].end - st0;
		}
		switch (o->kind) {
		case OP_F:
			emit_op(em, &x->k, s, rep, shown_mb(sm, o->cf, o->mf), o->cf, 0, PART_ALL, 0, st0);
			break;
		case OP_B:
			emit_op(em, &x->k, s, rep, shown_mb(sm, o->cb, o->mb), o->cb, 1, PART_ALL, 0, st0);
			break;
		case OP_BX:
			emit_op(em, &x->k, s, rep, shown_mb(sm, o->cb, o->mb), o->cb, 1, PART_INPUT, 0, st0);
			break;
		case OP_W:
			emit_op(em, &x->k, s, rep, shown_mb(sm, o->cb, o->mb), o->cb, 1, PART_WEIGHT, 0, st0);
			break;
		case OP_FB: {
			double mid = emit_op(em, &x->k, s, rep, shown_mb(sm, o->cf, o->mf), o->cf, 0, PART_ALL, 1, st0);
			emit_op(em, &x->k, s, rep, shown_mb(sm, o->cb, o->mb), o->cb, 1, PART_ALL, 1, mid);
			break;
		}
		}
		t = sm->op_t[ix].end;
		/* the sends to the neighbours, on their own stream: a pair's
		 * activations, then its gradients */
		{
			double sent = 0;
			if (o->kind == OP_F || o->kind == OP_FB)
				sent = emit_send(em, x, sm, s, o->cf, o->mf, 0, t);
			if (o->kind == OP_B || o->kind == OP_BX || o->kind == OP_FB)
				emit_send(em, x, sm, s, o->cb, o->mb, 1, t + (o->kind == OP_FB ? sent : 0));
		}
		if (view) {
			/* what is held until the next op starts (none: the stage's end) */
			held -= held > 0 ? (uint64_t)op_frees(o) : 0;
			mem_point(em, s, t, held, held_max,
				  i + 1 == sm->nops[s] && !view->prefix ? DC_STEP_MEM_AFTER : DC_STEP_MEM_FORWARD);
		}
	}
	if (view && nshow < view->full_ops && !em->rc) {
		/* the rest of the schedule as one span: its op count and kernel
		 * time (the simulated ops', or the whole schedule's busy time less
		 * the shown ops' when only a prefix was simulated), and the most
		 * it holds, in a backward when one starts holding that many */
		uint64_t hi = 0, h = held;
		enum dc_step_mem hi_mem = DC_STEP_MEM_FORWARD;
		double busy = view->prefix ? view->busy_s - shown_busy : 0;
		for (uint64_t i = nshow; i < sm->nops[s]; i++) {
			size_t ix = (size_t)(s * sm->cap + i);
			const struct pop *o = &sm->ops[ix];
			h += (uint64_t)op_fwd(o);
			if (h > hi || (h == hi && o->kind != OP_F)) {
				hi = h;
				hi_mem = o->kind == OP_F ? DC_STEP_MEM_FORWARD : DC_STEP_MEM_BACKWARD;
			}
			h -= h > 0 ? (uint64_t)op_frees(o) : 0;
			if (!view->prefix)
				busy += sm->op_t[ix].end - sm->op_t[ix].start;
		}
		em->e.ops = view->full_ops - nshow;
		em->e.busy_s = busy < 0 ? 0 : busy;
		em->kind = DC_EV_SUMMARY;
		ev(em, s, DC_TRACK_COMPUTE, t, end - t, "microbatches from %llu on (summarised)",
		   (unsigned long long)view->microbatches);
		em->kind = DC_EV_SPAN;
		mem_point(em, s, t, hi, held_max, hi_mem);
		if (end > t)
			t = end;
		mem_point(em, s, t, 0, held_max, DC_STEP_MEM_AFTER);
	}
	stage_sync(x, st, d, &sy);
	tail = sy.tail;
	pen = sy.pen;
	ev(em, s, DC_TRACK_COMPUTE, t, pen, "backward slowed by overlapped dp buckets");
	t += pen;
	if (x->k.ov_dp) {
		/* the buckets of the last microbatch's backward, as they come */
		const struct dc_step_buckets *b = &d->last;
		double busy = 0, wstart = end - st->bwd_s;
		uint64_t cum = 0, idx = 0;
		for (uint64_t g = 0; g < b->ngroups && !em->rc; g++)
			for (uint64_t j = 0; j < b->n[g] && !em->rc; j++, idx++) {
				double ready;
				cum += b->bytes[g];
				ready = wstart + st->bwd_s * (double)cum / (double)b->total_bytes;
				if (busy < ready)
					busy = ready;
				if (b->resums[g])
					ev(em, s, DC_TRACK_DP, busy, b->call_s[g], "dp bucket %llu %s, then all_reduce (%s)",
					   (unsigned long long)idx, dc_coll_kind_name(b->kind[g]), resum_text(b->resums[g]));
				else if (b->what[g] == DC_CW_GRAD_BUCKET || b->what[g] == DC_CW_EXPERT_GRAD_BUCKET)
					ev(em, s, DC_TRACK_DP, busy, b->call_s[g], "dp bucket %llu %s",
					   (unsigned long long)idx, dc_coll_kind_name(b->kind[g]));
				else
					ev(em, s, DC_TRACK_DP, busy, b->call_s[g], "dp bucket %llu %s (%s)",
					   (unsigned long long)idx, dc_coll_kind_name(b->kind[g]),
					   dc_coll_what_label(b->what[g]));
				busy += b->call_s[g];
			}
	} else if (tail > sy.fsdp) {
		ev(em, s, DC_TRACK_DP, t, tail - sy.fsdp, "dp gradient buckets (not overlapped)");
	}
	ev(em, s, DC_TRACK_FSDP_REDUCE, t + tail - sy.fsdp, sy.fsdp,
	   "fsdp reduce_scatter of the stage's units (after its last backward)%s",
	   x->k.fsdp_tail_ar ? ", then their all_reduces across replicas or with the mirror rank" : "");
	ev(em, s, DC_TRACK_COMPUTE, t, tail, "wait: %s",
	   sy.fsdp > 0 ? "fsdp reduce_scatters" : "dp gradient buckets' tail");
	t += tail;
	if (x->k.schedules > 1) {
		/* several schedules a step (docs/step-model.md, "Several
		 * schedules a step"): the first drawn, the others one span
		 * each rank spends as it spent the first */
		double first = sync / (double)x->k.schedules;
		ev(em, s, DC_TRACK_COMPUTE, t, first - t, "wait: gradient sync with the slowest stage");
		em->kind = DC_EV_SUMMARY;
		em->e.ops = (x->k.schedules - 1) * (view ? view->full_ops : sm->nops[s]);
		em->e.busy_s = (double)(x->k.schedules - 1) * (double)x->k.m * (st->fwd_s + st->bwd_s);
		ev(em, s, DC_TRACK_COMPUTE, first, sync - first,
		   "the step's other %llu pipeline schedules (summarised: each runs as the first)",
		   (unsigned long long)(x->k.schedules - 1));
		em->kind = DC_EV_SPAN;
	} else {
		ev(em, s, DC_TRACK_COMPUTE, t, sync - t, "wait: gradient sync with the slowest stage");
	}
	t = sync;
	ev(em, s, DC_TRACK_COMPUTE, t, opt, "optimizer step");
	t += opt;
	ev(em, s, DC_TRACK_COMPUTE, t, sy.post, "wait: updated params all_gather");
	ev(em, s, DC_TRACK_DP, t, sy.post, "dp updated params all_gather");
	t += sy.post;
	ev(em, s, DC_TRACK_COMPUTE, t, step - t, "wait: the slowest rank");
}

/* DualPipe and DualPipeV: rank s's ops as a dc_step_stage, from the ops
 * it ran (its two chunks are different stages of the model, and its pairs
 * price differently from its lone ops): per microbatch, so m x (fwd_s +
 * bwd_s) is its busy time. */
static void dev_stage(const struct sim *sm, uint64_t s, const struct cost fa[2], const struct cost ba[2],
		      const struct cost fp[2], const struct cost bp[2], uint64_t periods, uint64_t m_full,
		      struct dc_step_stage *st)
{
	struct cost tot;
	double fwd = 0, bwd = 0, m = (double)m_full;
	memset(st, 0, sizeof(*st));
	memset(&tot, 0, sizeof(tot));
	for (uint64_t i = 0; i < sm->nops[s]; i++) {
		const struct pop *o = &sm->ops[s * sm->cap + i];
		switch (o->kind) {
		case OP_F:
			cost_add(&tot, &fa[o->cf], 1);
			fwd += fa[o->cf].dur;
			break;
		case OP_B:
		case OP_BX: /* its W follows: the whole backward's cost */
			cost_add(&tot, &ba[o->cb], 1);
			bwd += ba[o->cb].dur;
			break;
		case OP_W:
			break;
		case OP_FB:
			cost_add(&tot, &fp[o->cf], 1);
			cost_add(&tot, &bp[o->cb], 1);
			fwd += fp[o->cf].dur;
			bwd += bp[o->cb].dur;
			break;
		}
	}
	if (periods > 0) {
		/* past the bound: each period more is one more steady pair of
		 * pairs, FB(0, 1) and FB(1, 0), each chunk's paired forward and
		 * backward once */
		double n = (double)periods;
		for (int ch = 0; ch < 2; ch++) {
			cost_add(&tot, &fp[ch], n);
			cost_add(&tot, &bp[ch], n);
			fwd += n * fp[ch].dur;
			bwd += n * bp[ch].dur;
		}
	}
	st->fwd_s = fwd / m;
	st->bwd_s = bwd / m;
	st->compute_s = tot.comp / m;
	st->hidden_s = tot.hidden / m;
	for (int j = 0; j < DC_STRAT_COUNT; j++)
		st->exposed_s[j] = tot.ex[j] / m;
	st->fwd_first_s = fa[0].dur;
	st->fwd_last_s = fa[1].dur;
	st->bwd_first_s = ba[0].dur;
	st->bwd_last_s = ba[1].dur;
	st->wgrad_first_s = ba[0].wgrad;
	st->wgrad_last_s = ba[1].wgrad;
	st->wgrad_s = ba[0].wgrad + ba[1].wgrad;
	st->fwd_pair_first_s = fp[0].dur;
	st->fwd_pair_last_s = fp[1].dur;
	st->bwd_pair_first_s = bp[0].dur;
	st->bwd_pair_last_s = bp[1].dur;
}

/* The microbatches dc_step_trace simulates (docs in step.h): m, or a
 * prefix long enough that every shown op's order and time are the whole
 * schedule's; 0 when the schedule is above show->max_chunks and has no
 * prefix to fall back on. */
static uint64_t trace_microbatches(const struct dc_plan *p, const struct step_ctx *x, const struct dc_step_show *show,
				   int isim, int *prefix)
{
	uint64_t pp = p->layout.pp, v = x->k.chunks, m = x->k.m, k = show->microbatches, chunks, want;
	*prefix = 0;
	if (!dc_mul_u64(pp, v, &chunks) && !dc_mul_u64(chunks, m, &chunks) && chunks <= show->max_chunks)
		return m;
	if (zb_simulated(p) || f1b_simulated(p))
		return m; /* the step simulates it whole (within its own bound): so does the trace */
	if (k == 0 || isim) /* no closed form to take the rest from */
		return 0;
	switch (x->k.sched) {
	case DC_PIPE_1F1B:
	case DC_PIPE_ZERO_BUBBLE:
		/* stage s's first backward of microbatch k is op k + 2 (pp - s
		 * - 1) ... within the steady phase when m >= k + pp - 1 */
		if (dc_add_u64(k, pp, &want))
			return 0;
		break;
	case DC_PIPE_INTERLEAVED:
		/* its warm-up runs up to (v + 1) pp virtual microbatches: the
		 * forwards reach microbatch k + 2 pp by then; m a multiple of pp */
		if (dc_add_u64(dc_ceil_div(k, pp), 3, &want) || dc_mul_u64(want, pp, &want))
			return 0;
		break;
	default: /* DualPipe, DualPipeV: no closed form to take the rest from */
		return 0;
	}
	if (want >= m)
		return 0;
	if (dc_mul_u64(pp, v, &chunks) || dc_mul_u64(chunks, want, &chunks) || chunks > show->max_chunks)
		return 0;
	*prefix = 1;
	return want;
}

/* The steady pairs the step's DualPipe extension moves on by come in
 * multiples of DUAL_PERIODS, so that any cycle of the steady state that
 * divides it (1 to 8, 10, 12, 14, 15, ...) repeats a whole number of
 * times (docs/step-model.md, "DualPipe past the bound"). */
#define DUAL_PERIODS 840

/* The microbatches the step simulates of DualPipe (d 2: one each way a
 * steady pair) or DualPipeV (d 1) on pp ranks, m microbatches, within
 * max_chunks (step.h dc_step_bound): m when pp x 2 x m fits, else a
 * prefix of at least max_chunks / 2pp and enough that every rank's
 * steady phase runs 4pp + 8 pairs (DualPipe's m / 2 + h + 1 - pp pairs
 * at h 0, DualPipeV's m + r + 1 - 2pp at r 0: gen_dualpipe), less than
 * DUAL_PERIODS pairs over that, so that the pairs left out are a
 * multiple of DUAL_PERIODS. m when the prefix is not shorter than m. */
static uint64_t dual_prefix(uint64_t pp, uint64_t m, uint64_t d, uint64_t max_chunks)
{
	uint64_t chunks, mp, least, t;
	if (!dc_mul_u64(pp, 2, &chunks) && !dc_mul_u64(chunks, m, &chunks) && chunks <= max_chunks)
		return m;
	/* least: DualPipe 2 (5pp + 7), DualPipeV 6pp + 7; pp <= 2^24 */
	least = d == 2 ? 2 * (5 * pp + 7) : 6 * pp + 7;
	mp = max_chunks / (2 * pp);
	if (mp < least)
		mp = least;
	if (mp >= m)
		return m;
	t = (m - mp) / d / DUAL_PERIODS * DUAL_PERIODS;
	return m - t * d;
}

/* Past the bound (dual_prefix): the prefix's steady phase must be
 * periodic: every rank's pair (FB, FB) ends *lambda after the same
 * rank's pair *cycle pairs before, over the second half of the shortest
 * rank's phase (at least 2pp + 4 pairs), for the least cycle dividing
 * DUAL_PERIODS that fits four times in that half. Returns 0, or -1 when
 * no cycle holds to within rounding (1e-9 of its time plus 64 ulps of the
 * end): the steady state has not settled within the prefix. */
static int dual_period(const struct sim *sm, uint64_t *cycle, double *lambda)
{
	uint64_t n = UINT64_MAX, from;
	for (uint64_t r = 0; r < sm->p; r++)
		if (sm->steady_n[r] < n)
			n = sm->steady_n[r];
	if (n < 8)
		return -1;
	from = n / 2;
	for (uint64_t c = 1; 4 * c <= n - from; c++) {
		const struct op_time *e0 = &sm->op_t[sm->steady_at[0]];
		uint64_t k = (n - 1 - from) / c;
		double l;
		int ok = 1;
		if (DUAL_PERIODS % c != 0)
			continue;
		/* rank 0's second op k cycles apart */
		l = (e0[2 * (n - 1) + 1].end - e0[2 * (n - 1 - k * c) + 1].end) / (double)k;
		if (!(l > 0))
			continue;
		for (uint64_t r = 0; r < sm->p && ok; r++) {
			const struct op_time *e = &sm->op_t[r * sm->cap + sm->steady_at[r]];
			for (uint64_t i = from; i + c < n && ok; i++)
				for (uint64_t j = 0; j < 2; j++) {
					double a = e[2 * i + j].end, z = e[2 * (i + c) + j].end;
					if (fabs(z - a - l) > 1e-9 * l + 64 * DBL_EPSILON * z) {
						ok = 0;
						break;
					}
				}
		}
		if (ok) {
			*cycle = c;
			*lambda = l;
			return 0;
		}
	}
	return -1;
}

/* Max-plus forms (docs/step-model.md, "DualPipe past the bound", 7): a
 * time as max over k of (v[k] + X[k]), X the state, -HUGE_VAL where no
 * path runs. */
static void mp_put(double *v, const double *w, uint64_t d, double add)
{
	for (uint64_t k = 0; k < d; k++)
		if (w[k] + add > v[k])
			v[k] = w[k] + add;
}

/* c = a (x) b, d x d; c apart from a and b */
static void mp_mul(const double *a, const double *b, double *c, uint64_t d)
{
	for (uint64_t i = 0; i < d * d; i++)
		c[i] = -HUGE_VAL;
	for (uint64_t i = 0; i < d; i++)
		for (uint64_t k = 0; k < d; k++) {
			double aik = a[i * d + k];
			if (aik == -HUGE_VAL)
				continue;
			for (uint64_t j = 0; j < d; j++)
				if (aik + b[k * d + j] > c[i * d + j])
					c[i * d + j] = aik + b[k * d + j];
		}
}

/* y = a^t (x) y, by squaring: pw, tmp (d x d) and yn (d) are scratch;
 * the dual and the interleaved extensions share it */
static void mp_power_apply(const double *a, uint64_t t, uint64_t d, double *y, double *pw, double *tmp, double *yn)
{
	memcpy(pw, a, (size_t)(d * d) * sizeof(double));
	while (t > 0) {
		if (t & 1) {
			for (uint64_t i = 0; i < d; i++) {
				yn[i] = -HUGE_VAL;
				for (uint64_t j = 0; j < d; j++)
					if (pw[i * d + j] + y[j] > yn[i])
						yn[i] = pw[i * d + j] + y[j];
			}
			memcpy(y, yn, (size_t)d * sizeof(double));
		}
		t >>= 1;
		if (t > 0) {
			mp_mul(pw, pw, tmp, d);
			memcpy(pw, tmp, (size_t)(d * d) * sizeof(double));
		}
	}
}

/* max_j g[j] + y[j]: a form's value at the state y */
static double mp_dot(const double *g, const double *y, uint64_t d)
{
	double v = -HUGE_VAL;
	for (uint64_t j = 0; j < d; j++)
		if (g[j] + y[j] > v)
			v = g[j] + y[j];
	return v;
}

struct mp_ctx {
	const struct sim *sm;
	uint64_t kpair, d, *prod_f, *prod_b, *first_after, *base;
	double *form;
};

/* The form of op i of rank s as the ops after pair K see it: a state
 * component (pair K's two ops: 2s + j), an op after pair K (its form), or
 * -1 when it is before pair K (the forms cannot see it). */
static int mp_term(const struct mp_ctx *x, uint64_t s, uint64_t i, double *v, double add)
{
	const struct sim *sm = x->sm;
	uint64_t at = sm->steady_at[s] + 2 * x->kpair;
	if (i == at || i == at + 1) {
		uint64_t k = 2 * s + (i - at);
		if (add > v[k])
			v[k] = add;
		return 0;
	}
	if (i < x->first_after[s])
		return -1;
	mp_put(v, &x->form[(x->base[s] + i - x->first_after[s]) * x->d], x->d, add);
	return 0;
}

struct mp_op {
	double start;
	uint64_t at; /* s x cap + i */
};

static int mp_by_start(const void *a, const void *b)
{
	const struct mp_op *x = a, *y = b;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->at < y->at ? -1 : x->at > y->at;
}

/* The ends of the whole schedule from the prefix (docs/step-model.md,
 * "DualPipe past the bound", 7): pair K's ends X (every rank's two ops,
 * K the shortest rank's second-last steady pair) and a constant; the ops
 * of pair K + 1 as max-plus forms of X give A, the rank's last op's as
 * forms of X give G; the t pairs left out make the ends G (x) A^t (x) X.
 * Exact whatever the transient. Returns 0 with end[] filled, -1 when
 * out of memory, -2 when it does not apply (pp over 128, an op after
 * pair K reading one before it, a pair K + 1 op reading past pair K + 1,
 * or an op of no time). O(p m' + (2pp + 1)^3 log t). */
static int dual_maxplus(const struct sim *sm, uint64_t t, double *end)
{
	uint64_t p = sm->p, n = UINT64_MAX, d = 2 * p + 1, cells = p * sm->v * sm->m, nafter = 0;
	struct mp_ctx x;
	struct mp_op *order = NULL;
	double *a = NULL, *pw = NULL, *tmp = NULL, *y = NULL, *yn = NULL;
	int rc = -2;
	for (uint64_t r = 0; r < p; r++)
		if (sm->steady_n[r] < n)
			n = sm->steady_n[r];
	if (p > 128 || n < 4)
		return -2;
	memset(&x, 0, sizeof(x));
	x.sm = sm;
	x.kpair = n - 2;
	x.d = d;
	x.prod_f = dc_malloc((size_t)cells * sizeof(uint64_t));
	x.prod_b = dc_malloc((size_t)cells * sizeof(uint64_t));
	x.first_after = dc_calloc((size_t)p, sizeof(uint64_t));
	x.base = dc_calloc((size_t)p, sizeof(uint64_t));
	if (!x.prod_f || !x.prod_b || !x.first_after || !x.base) {
		rc = -1;
		goto out;
	}
	for (uint64_t i = 0; i < cells; i++)
		x.prod_f[i] = x.prod_b[i] = UINT64_MAX;
	for (uint64_t s = 0; s < p; s++) {
		for (uint64_t i = 0; i < sm->nops[s]; i++) {
			const struct pop *o = &sm->ops[s * sm->cap + i];
			if (o->kind == OP_F || o->kind == OP_FB)
				x.prod_f[at3(sm, s, o->cf, o->mf)] = i;
			if (o->kind == OP_B || o->kind == OP_BX || o->kind == OP_FB)
				x.prod_b[at3(sm, s, o->cb, o->mb)] = i;
		}
		x.first_after[s] = sm->steady_at[s] + 2 * x.kpair + 2;
		x.base[s] = nafter;
		nafter += sm->nops[s] - x.first_after[s];
	}
	order = dc_malloc((size_t)nafter * sizeof(*order));
	x.form = dc_malloc((size_t)(nafter * d) * sizeof(double));
	a = dc_malloc((size_t)(d * d) * sizeof(double));
	pw = dc_malloc((size_t)(d * d) * sizeof(double));
	tmp = dc_malloc((size_t)(d * d) * sizeof(double));
	y = dc_malloc((size_t)d * sizeof(double));
	yn = dc_malloc((size_t)d * sizeof(double));
	if (!order || !x.form || !a || !pw || !tmp || !y || !yn) {
		rc = -1;
		goto out;
	}
	for (uint64_t s = 0, k = 0; s < p; s++)
		for (uint64_t i = x.first_after[s]; i < sm->nops[s]; i++, k++) {
			order[k].start = sm->op_t[s * sm->cap + i].start;
			order[k].at = s * sm->cap + i;
		}
	/* in start order: an op's inputs and its rank's previous op start
	 * earlier (every op takes time) */
	qsort(order, (size_t)nafter, sizeof(*order), mp_by_start);
	for (uint64_t k = 0; k < nafter; k++) {
		uint64_t s = order[k].at / sm->cap, i = order[k].at % sm->cap;
		const struct pop *o = &sm->ops[order[k].at];
		double *v = &x.form[(x.base[s] + i - x.first_after[s]) * d], dur = op_dur(sm, s, o);
		int in_next = i < x.first_after[s] + 2;
		if (!(dur > 0))
			goto out;
		for (uint64_t j = 0; j < d; j++)
			v[j] = -HUGE_VAL;
		if (mp_term(&x, s, i - 1, v, 0) != 0)
			goto out;
		for (int bwd = 0; bwd < 2; bwd++) {
			uint64_t ds, dc, c, mb, pi;
			int dbwd, send;
			double w;
			if (bwd ? !(o->kind == OP_B || o->kind == OP_BX || o->kind == OP_FB)
				: !(o->kind == OP_F || o->kind == OP_FB))
				continue;
			c = bwd ? o->cb : o->cf;
			mb = bwd ? o->mb : o->mf;
			if (!dep_of(sm, s, c, bwd, &ds, &dc, &dbwd, &send)) {
				if (0 > v[d - 1])
					v[d - 1] = 0;
				continue;
			}
			pi = dbwd ? x.prod_b[at3(sm, ds, dc, mb)] : x.prod_f[at3(sm, ds, dc, mb)];
			if (pi == UINT64_MAX)
				goto out;
			if (in_next && pi > sm->steady_at[ds] + 2 * x.kpair + 3)
				goto out;
			w = send ? sends_between(&sm->snd, sm->p, s, ds) : 0;
			/* a pair's gradients follow its activations on the same
			 * link (sim_run): one send more */
			if (send && dbwd && sm->ops[ds * sm->cap + pi].kind == OP_FB &&
			    sm->ops[ds * sm->cap + pi].cf != sm->ops[ds * sm->cap + pi].cb)
				w *= 2.0;
			if (mp_term(&x, ds, pi, v, w) != 0)
				goto out;
		}
		for (uint64_t j = 0; j < d; j++)
			v[j] += dur;
	}
	/* A: row 2s + j the form of rank s's op j of pair K + 1; the constant */
	for (uint64_t s = 0; s < p; s++)
		for (uint64_t j = 0; j < 2; j++)
			memcpy(&a[(2 * s + j) * d], &x.form[(x.base[s] + j) * d], (size_t)d * sizeof(double));
	for (uint64_t j = 0; j < d; j++)
		a[(d - 1) * d + j] = j + 1 == d ? 0 : -HUGE_VAL;
	for (uint64_t s = 0; s < p; s++)
		for (uint64_t j = 0; j < 2; j++)
			y[2 * s + j] = sm->op_t[s * sm->cap + sm->steady_at[s] + 2 * x.kpair + j].end;
	y[d - 1] = 0;
	mp_power_apply(a, t, d, y, pw, tmp, yn);
	for (uint64_t s = 0; s < p; s++) {
		const double *g = &x.form[(x.base[s] + sm->nops[s] - 1 - x.first_after[s]) * d];
		end[s] = mp_dot(g, y, d);
	}
	rc = 0;
out:
	free(x.prod_f);
	free(x.prod_b);
	free(x.first_after);
	free(x.base);
	free(order);
	free(x.form);
	free(a);
	free(pw);
	free(tmp);
	free(y);
	free(yn);
	return rc;
}

/* ---- uneven interleaved chunks past the bound (docs/step-model.md,
 * "Uneven interleaved chunks past the bound") ---- */

/* The ops a chunk runs for one microbatch in the order of `sched`, 1F1B
 * and interleaving a forward and a backward, ZB-H1 a forward, the input
 * gradients and the deferred weight gradients (gen_zb) */
static uint64_t ops_per_chunk(enum dc_pipe_schedule sched)
{
	return sched == DC_PIPE_ZERO_BUBBLE ? 3 : 2;
}

/* The least count of at least a microbatches congruent to m modulo pp:
 * a prefix from which whole periods of pp microbatches reach m */
static uint64_t to_class(uint64_t a, uint64_t m, uint64_t pp)
{
	return a + (m % pp + pp - a % pp) % pp;
}

/* The microbatches the step simulates of interleaved chunks of unequal
 * cost on pp stages, v chunks each, m microbatches (a multiple of pp),
 * or of 1F1B on stages of unequal cost or ZB-H1 (v 1, any m), within
 * max_chunks: m when pp x v x m fits, else the least m' congruent to m
 * modulo pp (the periods left out are pp microbatches each) whose steady
 * phase (m' v - w pairs of a forward and a backward on a stage of w
 * warm-up forwards: op_at; ZB-H1's m' - pp + 1 triples, steady_units)
 * runs 4 pp v + pp units on stage 0, the longest warm-up (warmup_of); m
 * when that is not shorter than m. pp v is at most 2^8 x num_layers
 * (plan.h): no overflow below 2^40 of each. */
static uint64_t inter_prefix(uint64_t pp, uint64_t v, uint64_t m, uint64_t max_chunks)
{
	uint64_t chunks, mp;
	if (!dc_mul_u64(pp, v, &chunks) && !dc_mul_u64(chunks, m, &chunks) && chunks <= max_chunks)
		return m;
	if (pp > (UINT64_C(1) << 20) || v > (UINT64_C(1) << 20))
		return m;
	mp = to_class(dc_ceil_div(warmup_of(pp, v, 0) + 4 * pp * v + pp, v), m, pp);
	if (mp >= m)
		return m;
	/* the prefix is simulated within max_chunks (at least the step's
	 * 2^18: a test lowers the bound to force the extension), else no
	 * extension (m: the caller's fallback); inter_maxplus holds its
	 * max-plus forms in flight within INTER_MAX_FORM_BYTES itself */
	if (dc_mul_u64(pp * v, mp, &chunks) ||
	    chunks > (max_chunks > DC_STEP_SIM_MAX_CHUNKS ? max_chunks : DC_STEP_SIM_MAX_CHUNKS))
		return m;
	return mp;
}

/* Stage s's steady phase in its order: its first op, *first, and how
 * many units of K ops from there (inter_maxplus: 1F1B's and interleaving's
 * pairs of a forward and a backward, op_at; ZB-H1's triples of F, BX and
 * a deferred W, gen_zb: w forwards, s (F, BX) pairs, then a triple a
 * microbatch from the forward of microbatch p - 1 on every stage), before
 * its cool-down. 0, or -1 when the order has no such phase (m < p). */
static int steady_units(const struct sim *sm, uint64_t s, uint64_t *first, uint64_t *units)
{
	uint64_t p = sm->p, n = sm->m * sm->v, w;
	if (sm->sched == DC_PIPE_ZERO_BUBBLE) {
		if (sm->m < p)
			return -1;
		*first = p - 1 + s;
		*units = sm->m - p + 1;
		return 0;
	}
	w = warmup_of(p, sm->v, s);
	if (w > n)
		return -1;
	*first = w;
	*units = n - w;
	return 0;
}

/* The largest max-plus state inter_maxplus takes: (2^8 + 1)^3 a product,
 * as dual_maxplus's at pp 128 */
#define INTER_MAX_STATE 257

/* The most inter_maxplus's forms in flight may hold (docs/reliability.md) */
#define INTER_MAX_FORM_BYTES (UINT64_C(256) << 20)

/* inter_maxplus's forms in flight, d doubles a slot: an op's form is kept
 * from its turn until every op after the cut that reads it (its stage's
 * next op, the op its output feeds) has been made, then its slot is
 * reused; on a steady schedule a few slots a stage, however long the
 * prefix (before stop 67 every form was kept: pp 64, v 8 needed 379 MB) */
struct form_pool {
	double *rows;
	uint64_t d, used, cap, nfree, most, *free_slots;
};

/* A slot for a form: 0, -1 out of memory, -2 past INTER_MAX_FORM_BYTES
 * (the extension does not apply: the caller's fallback) */
static int form_take(struct form_pool *fp, uint64_t *slot)
{
	if (fp->nfree) {
		*slot = fp->free_slots[--fp->nfree];
		return 0;
	}
	if (fp->used == fp->cap) {
		uint64_t cap = fp->cap ? 2 * fp->cap : 64;
		double *rows;
		uint64_t *fs;
		if ((double)cap * (double)fp->d * (double)sizeof(double) > (double)INTER_MAX_FORM_BYTES)
			return -2;
		rows = dc_realloc(fp->rows, (size_t)(cap * fp->d) * sizeof(double));
		if (!rows)
			return -1;
		fp->rows = rows;
		fs = dc_realloc(fp->free_slots, (size_t)cap * sizeof(uint64_t));
		if (!fs)
			return -1;
		fp->free_slots = fs;
		fp->cap = cap;
	}
	*slot = fp->used++;
	if (fp->used > fp->most)
		fp->most = fp->used;
	return 0;
}

static void form_give(struct form_pool *fp, uint64_t slot)
{
	fp->free_slots[fp->nfree++] = slot;
}

/* The ends of the whole interleaved schedule, or of 1F1B's (v 1), from a
 * prefix of it (docs/step-model.md, "Uneven interleaved chunks past the
 * bound", "Uneven 1F1B past the bound"), t periods of pp microbatches
 * (pp v steady pairs on every stage) left out.
 * Stage s's steady pair j is ops w_s + 2j (the forward) and w_s + 2j + 1
 * (the backward); the window is pairs [P, 2P) of every stage, P = pp v,
 * the cut at pair 2P. X: the ends of the window's ops that an op after
 * the cut reads (its stage's previous op, or its input), and a constant;
 * every op after the cut as a max-plus form of X, in start order; the
 * ops of pairs [2P, 3P) at X's offsets give A (each form must come from
 * steady ops alone: shifted by P it is the same form), every stage's last
 * op G; the ends G (x) A^t (x) X. Returns 0 with end[] filled, -1 when
 * out of memory, -2 when it does not apply (a steady phase too short, an
 * op after the cut reading one before the window, a form read before it
 * is made (ops of no time), an A row reading a cool-down op, X over
 * INTER_MAX_STATE). O(p m' d + d^3 log t), d the state's size. */
static int inter_maxplus(const struct sim *sm, uint64_t t, double *end)
{
	uint64_t p = sm->p, v = sm->v, P = p * v, cells = p * v * sm->m, d = 0, nafter = 0, K, KP;
	uint64_t *prod_f = NULL, *prod_b = NULL, *lo = NULL, *base = NULL, *sidx = NULL, *steady_end = NULL;
	uint64_t *slot = NULL;
	uint32_t *readers = NULL;
	unsigned char *made = NULL, *clean = NULL;
	struct mp_op *order = NULL;
	struct form_pool fp = {0};
	double *g = NULL, *a = NULL, *pw = NULL, *tmp = NULL, *y = NULL, *yn = NULL;
	int rc = -2;
	if (!(sm->sched == DC_PIPE_INTERLEAVED && v >= 2) &&
	    !((sm->sched == DC_PIPE_1F1B || sm->sched == DC_PIPE_ZERO_BUBBLE) && v == 1))
		return -2;
	K = ops_per_chunk(sm->sched);
	KP = K * P;
	for (uint64_t s = 0; s < p; s++) {
		uint64_t first, units;
		if (steady_units(sm, s, &first, &units) || units < 4 * P + p || sm->nops[s] != K * sm->m * v)
			return -2;
	}
	prod_f = dc_malloc((size_t)cells * sizeof(uint64_t));
	prod_b = dc_malloc((size_t)cells * sizeof(uint64_t));
	lo = dc_calloc((size_t)p, sizeof(uint64_t));
	base = dc_calloc((size_t)p, sizeof(uint64_t));
	steady_end = dc_calloc((size_t)p, sizeof(uint64_t));
	sidx = dc_malloc((size_t)(p * KP) * sizeof(uint64_t));
	if (!prod_f || !prod_b || !lo || !base || !steady_end || !sidx) {
		rc = -1;
		goto out;
	}
	for (uint64_t i = 0; i < p * KP; i++)
		sidx[i] = UINT64_MAX;
	for (uint64_t s = 0; s < p; s++) {
		uint64_t first = 0, units = 0;
		steady_units(sm, s, &first, &units);
		lo[s] = first + KP;
		steady_end[s] = first + K * units;
		base[s] = nafter;
		nafter += sm->nops[s] - (lo[s] + KP);
		for (uint64_t i = 0; i < sm->nops[s]; i++) {
			const struct pop *o = &sm->ops[s * sm->cap + i];
			if (o->kind == OP_F)
				prod_f[at3(sm, s, o->cf, o->mf)] = i;
			else if (o->kind != OP_W) /* a W makes no output: it reads its own stage's BX */
				prod_b[at3(sm, s, o->cb, o->mb)] = i;
		}
	}
	/* X: the window's ops read from after the cut (a stage's first op
	 * after it reads its last in the window: X is never empty); and how
	 * many times each op after the cut is read there (its form's readers) */
	readers = dc_calloc((size_t)nafter, sizeof(uint32_t));
	if (!readers) {
		rc = -1;
		goto out;
	}
	for (uint64_t s = 0; s < p; s++)
		for (uint64_t i = lo[s] + KP; i < sm->nops[s]; i++) {
			const struct pop *o = &sm->ops[s * sm->cap + i];
			int bwd = o->kind != OP_F;
			uint64_t refs[2][2] = {{s, i - 1}, {0, UINT64_MAX}}, ds, dc;
			int dbwd, send;
			if (o->kind != OP_W && dep_of(sm, s, bwd ? o->cb : o->cf, bwd, &ds, &dc, &dbwd, &send)) {
				uint64_t mb = bwd ? o->mb : o->mf;
				refs[1][0] = ds;
				refs[1][1] = dbwd ? prod_b[at3(sm, ds, dc, mb)] : prod_f[at3(sm, ds, dc, mb)];
			}
			for (int k = 0; k < 2; k++) {
				uint64_t rs = refs[k][0], ri = refs[k][1];
				if (ri == UINT64_MAX)
					continue;
				if (ri >= lo[rs] + KP) {
					readers[base[rs] + ri - (lo[rs] + KP)]++;
					continue;
				}
				if (ri < lo[rs])
					goto out;
				sidx[rs * KP + ri - lo[rs]] = 0;
			}
		}
	for (uint64_t i = 0; i < p * KP; i++)
		if (sidx[i] != UINT64_MAX)
			sidx[i] = d++;
	d++; /* the constant */
	if (d > INTER_MAX_STATE)
		goto out;
	order = dc_malloc((size_t)nafter * sizeof(*order));
	slot = dc_malloc((size_t)nafter * sizeof(uint64_t));
	g = dc_malloc((size_t)(p * d) * sizeof(double));
	fp.d = d;
	made = dc_calloc((size_t)nafter, 1);
	clean = dc_calloc((size_t)nafter, 1);
	a = dc_malloc((size_t)(d * d) * sizeof(double));
	pw = dc_malloc((size_t)(d * d) * sizeof(double));
	tmp = dc_malloc((size_t)(d * d) * sizeof(double));
	y = dc_malloc((size_t)d * sizeof(double));
	yn = dc_malloc((size_t)d * sizeof(double));
	if (!order || !slot || !g || !made || !clean || !a || !pw || !tmp || !y || !yn) {
		rc = -1;
		goto out;
	}
	for (uint64_t s = 0, k = 0; s < p; s++)
		for (uint64_t i = lo[s] + KP; i < sm->nops[s]; i++, k++) {
			order[k].start = sm->op_t[s * sm->cap + i].start;
			order[k].at = s * sm->cap + i;
		}
	qsort(order, (size_t)nafter, sizeof(*order), mp_by_start);
	for (uint64_t k = 0; k < nafter; k++) {
		uint64_t s = order[k].at / sm->cap, i = order[k].at % sm->cap, me = base[s] + i - (lo[s] + KP);
		uint64_t off = i - (lo[s] + KP);
		const struct pop *o = &sm->ops[order[k].at];
		double *f, dur = op_dur(sm, s, o);
		int bwd = o->kind != OP_F, ok = 1;
		uint64_t refs[2][2] = {{s, i - 1}, {0, UINT64_MAX}}, ds, dc;
		double add[2] = {0, 0};
		int dbwd, send, took = form_take(&fp, &slot[me]);
		if (took) {
			rc = took;
			goto out;
		}
		/* after form_take: the pool's rows may have moved */
		f = &fp.rows[slot[me] * d];
		for (uint64_t j = 0; j < d; j++)
			f[j] = -HUGE_VAL;
		if (o->kind != OP_W && dep_of(sm, s, bwd ? o->cb : o->cf, bwd, &ds, &dc, &dbwd, &send)) {
			uint64_t mb = bwd ? o->mb : o->mf;
			refs[1][0] = ds;
			refs[1][1] = dbwd ? prod_b[at3(sm, ds, dc, mb)] : prod_f[at3(sm, ds, dc, mb)];
			add[1] = send ? sends_between(&sm->snd, sm->p, s, ds) : 0;
			/* a DualPipe pair's gradients after its activations
			 * (sim_run) */
			if (send && dbwd && refs[1][1] != UINT64_MAX &&
			    sm->ops[ds * sm->cap + refs[1][1]].kind == OP_FB &&
			    sm->ops[ds * sm->cap + refs[1][1]].cf != sm->ops[ds * sm->cap + refs[1][1]].cb)
				add[1] *= 2.0;
		} else {
			f[d - 1] = 0;
		}
		for (int r = 0; r < 2; r++) {
			uint64_t rs = refs[r][0], ri = refs[r][1];
			if (ri == UINT64_MAX)
				continue;
			if (ri < lo[rs] + KP) {
				uint64_t j = sidx[rs * KP + ri - lo[rs]];
				if (add[r] > f[j])
					f[j] = add[r];
			} else {
				uint64_t them = base[rs] + ri - (lo[rs] + KP);
				if (!made[them])
					goto out;
				mp_put(f, &fp.rows[slot[them] * d], d, add[r]);
				ok = ok && clean[them];
				if (--readers[them] == 0)
					form_give(&fp, slot[them]);
			}
		}
		for (uint64_t j = 0; j < d; j++)
			f[j] += dur;
		made[me] = 1;
		/* steady: before the stage's cool-down (steady_units) */
		clean[me] = ok && i < steady_end[s];
		/* A: row sidx(s, off) the form of op off + 2P of stage s (a
		 * pair of the next period at the same offset), steady; G:
		 * every stage's last op */
		if (off < KP && sidx[s * KP + off] != UINT64_MAX) {
			if (!clean[me])
				goto out;
			memcpy(&a[sidx[s * KP + off] * d], f, (size_t)d * sizeof(double));
		}
		if (i + 1 == sm->nops[s])
			memcpy(&g[s * d], f, (size_t)d * sizeof(double));
		if (readers[me] == 0)
			form_give(&fp, slot[me]);
	}
	/* X's values: the window's ends; the constant */
	for (uint64_t s = 0; s < p; s++)
		for (uint64_t off = 0; off < KP; off++) {
			uint64_t j = sidx[s * KP + off];
			if (j != UINT64_MAX)
				y[j] = sm->op_t[s * sm->cap + lo[s] + off].end;
		}
	for (uint64_t j = 0; j < d; j++)
		a[(d - 1) * d + j] = j + 1 == d ? 0 : -HUGE_VAL;
	y[d - 1] = 0;
	mp_power_apply(a, t, d, y, pw, tmp, yn);
	for (uint64_t s = 0; s < p; s++)
		end[s] = mp_dot(&g[s * d], y, d);
	rc = 0;
out:
	free(fp.rows);
	free(fp.free_slots);
	free(readers);
	free(slot);
	free(g);
	free(prod_f);
	free(prod_b);
	free(lo);
	free(base);
	free(steady_end);
	free(sidx);
	free(made);
	free(clean);
	free(order);
	free(a);
	free(pw);
	free(tmp);
	free(y);
	free(yn);
	return rc;
}

static int timeline(const struct dc_plan *p, const struct dc_compute *c, const struct dc_comm *comm,
		    const struct dc_flops *f, const struct dc_batch *b, struct dc_step *s,
		    int (*want)(void *ctx, uint64_t stage), dc_step_event_fn emit, void *ctx, struct dc_step_show *show,
		    struct dc_step_bound *bound, const char **error, int f1b_form);

/* the errors and warnings name the bound again as "2 x 2^18" */
_Static_assert(DC_STEP_SIM_AGAIN == 2 && DC_STEP_SIM_MAX_CHUNKS == UINT64_C(1) << 18, "the messages' bound");

/* Uneven 1F1B or ZB-H1 (v1_extended) past the bound when its extension
 * does not apply (its prefix above 2^18 chunks; its X, 2 pp - 1 ends and
 * the constant, above INTER_MAX_STATE: pp above 128; its forms in flight
 * above INTER_MAX_FORM_BYTES; or a form read before it is made) and the
 * whole schedule is above DC_STEP_SIM_AGAIN times the bound (`again`): the step takes
 * the closed form (dc_step_compute_bounded: bound->f1b_closed_form), the
 * trace a prefix from it, as before the extension */
static int f1b_closed(const struct dc_plan *p, const struct dc_compute *c, const struct dc_comm *comm,
		      const struct dc_flops *f, const struct dc_batch *b, struct dc_step *s,
		      int (*want)(void *ctx, uint64_t stage), dc_step_event_fn emit, void *ctx, struct dc_step_show *show,
		      struct dc_step_bound *bound, const char **error)
{
	bound->f1b_closed_form = 1;
	bound->m_simulated = 0;
	bound->extended = 0;
	bound->periods = 0;
	bound->period_s = 0;
	bound->by_maxplus = 0;
	if (!show)
		return 0;
	show->extended = 0;
	show->periods = 0;
	return timeline(p, c, comm, f, b, s, want, emit, ctx, show, NULL, error, 1);
}

static int timeline(const struct dc_plan *p, const struct dc_compute *c, const struct dc_comm *comm,
		    const struct dc_flops *f, const struct dc_batch *b, struct dc_step *s,
		    int (*want)(void *ctx, uint64_t stage), dc_step_event_fn emit, void *ctx, struct dc_step_show *show,
		    struct dc_step_bound *bound, const char **error, int f1b_form)
{
	uint64_t periods = 0;
	struct step_ctx x;
	struct sim sm;
	uint64_t pp = p->layout.pp, v, critical = 0;
	double span = 0, fill = 0, *end;
	struct dc_step_stage st, *dev = NULL;
	struct stage_sync_t *dev_sync = NULL;
	int rc, dual, isim, f1x, prefix = 0, hit;
	uint64_t msim;
	struct dc_step_bound trace_bound;

	step_header(p, c, s);
	if (!c->available)
		return 0;
	if (ctx_init(&x, p, c, comm, NULL, &hit, error) != 0)
		return -1;
	msim = x.k.m;
	v = x.k.chunks;
	dual = x.k.sched == DC_PIPE_DUALPIPE || x.k.sched == DC_PIPE_DUALPIPEV;
	isim = inter_simulated(p, &x);
	/* uneven 1F1B or ZB-H1 past the bound: a prefix and the max-plus
	 * power of its steady period, as uneven interleaving, unless that did
	 * not apply
	 * (f1b_form: its closed form, the trace's prefix taken from it) */
	f1x = !f1b_form && v1_extended(p);
	if (show && !bound) {
		msim = trace_microbatches(p, &x, show, isim || f1x, &prefix);
		if (msim == 0 && show->microbatches > 0 && (dual || isim || f1x)) {
			/* no closed form: the step's bound (below), a prefix whose
			 * shown ops are the whole schedule's, every stage's end
			 * moved on by its steady state (docs/step-model.md,
			 * "What the trace shows, and its caps") */
			memset(&trace_bound, 0, sizeof(trace_bound));
			trace_bound.max_chunks = show->max_chunks;
			bound = &trace_bound;
		} else if (msim == 0) {
			show->no_closed_form = dual || isim;
			*error = "the schedule is too long to simulate within the trace's bound";
			return -2;
		} else {
			show->m_simulated = msim;
			show->from_closed_form = prefix;
		}
	}
	if (bound && !dual && (isim || f1x)) {
		uint64_t whole;
		msim = inter_prefix(pp, v, x.k.m, bound->max_chunks);
		if (msim == x.k.m && (dc_mul_u64(pp, v, &whole) || dc_mul_u64(whole, x.k.m, &whole) ||
				      whole > bound->max_chunks)) {
			/* no extension within the bounds (its prefix or its forms
			 * too large: a deep pipeline of many chunks): the whole
			 * schedule within DC_STEP_SIM_AGAIN times the bound, as below, else refused;
			 * uneven 1F1B and ZB-H1 past that their closed form (the
			 * trace too, so that its step is the report's) */
			struct dc_step_bound again = *bound;
			if (f1x && bound->again)
				return f1b_closed(p, c, comm, f, b, s, want, emit, ctx, show, bound, error);
			if (show && !f1x) {
				show->no_closed_form = 0;
				*error = "the schedule is too long to simulate within the trace's bound";
				return -2;
			}
			if (bound->again) {
				*error = "'training.grad_accum_steps' x 'parallel.pp' x 'parallel.virtual_pipeline': the "
					 "interleaved schedule the step simulates (chunks of unequal cost, or a send longer "
					 "than a chunk's forward) is above the 2 x 2^18 model chunks it simulates at most, "
					 "and so is the prefix its steady period's extension needs: lower training.grad_accum_steps (where a step runs several schedules, "
					 "parallel.pipeline_schedule_microbatches: the simulated schedule's)";
				return -1;
			}
			again.again = 1;
			again.max_chunks = bound->max_chunks > UINT64_MAX / DC_STEP_SIM_AGAIN ? UINT64_MAX
										 : DC_STEP_SIM_AGAIN * bound->max_chunks;
			rc = timeline(p, c, comm, f, b, s, want, emit, ctx, show, &again, error, 0);
			again.max_chunks = bound->max_chunks;
			*bound = again;
			return rc;
		}
		if (show && msim < x.k.m) {
			/* the trace's prefix: its interleaved rule, or 1F1B's k + pp
			 * (trace_microbatches), congruent to m modulo pp */
			uint64_t need = f1x ? to_class(show->microbatches + pp, x.k.m, pp)
					    : (dc_ceil_div(show->microbatches, pp) + 3) * pp,
				 chunks;
			if (need > msim)
				msim = need < x.k.m ? need : x.k.m;
			if (dc_mul_u64(pp, v, &chunks) || dc_mul_u64(chunks, msim, &chunks) ||
			    (chunks > bound->max_chunks && msim < x.k.m)) {
				if (f1x)
					return f1b_closed(p, c, comm, f, b, s, want, emit, ctx, show, bound, error);
				show->no_closed_form = 0;
				*error = "the schedule is too long to simulate within the trace's bound";
				return -2;
			}
		}
		periods = (x.k.m - msim) / pp;
		bound->m_simulated = msim;
		bound->extended = periods > 0;
		bound->periods = periods;
		bound->period_s = 0;
	} else if (bound && dual) {
		uint64_t d = x.k.sched == DC_PIPE_DUALPIPE ? 2 : 1, most = bound->max_chunks, need;
		if (show && !dc_add_u64(show->microbatches, 4 * pp, &need) && !dc_mul_u64(need, 4 * pp, &need) &&
		    need > most)
			/* the trace's prefix: 2 (k + 4pp) microbatches at least, so
			 * that the backwards of microbatch k / 2 each way (DualPipeV:
			 * of k / 2) and the forwards before them run in the steady
			 * phase, whose op order and times the whole schedule's are */
			most = need;
		msim = dual_prefix(pp, x.k.m, d, most);
		periods = (x.k.m - msim) / d;
		bound->m_simulated = msim;
		bound->extended = periods > 0;
		bound->periods = periods;
		bound->period_s = 0;
	}
	if (show && bound) {
		show->m_simulated = msim;
		show->from_closed_form = 0;
		show->extended = bound->extended;
		show->periods = periods;
	}
	rc = sim_alloc(&sm, x.k.sched, pp, msim, v, &x.k.snd, p->step_memo);
	if (rc != 0) {
		*error = rc == -1 ? "out of memory" : "the pipeline schedule feeds one op's output to two ops (a bug)";
		return -1;
	}
	sm.m_whole = x.k.m;
	end = dc_calloc((size_t)pp, sizeof(double));
	if (dual) {
		dev = dc_calloc((size_t)pp, sizeof(*dev));
		dev_sync = dc_calloc((size_t)pp, sizeof(*dev_sync));
	}
	if (!end || (dual && (!dev || !dev_sync))) {
		free(end);
		free(dev);
		free(dev_sync);
		sim_free(&sm);
		*error = "out of memory";
		return -1;
	}
	for (uint64_t r = 0; r < pp; r++) {
		/* DualPipe's ranks each hold their own pair of stages; the
		 * other schedules price a segment's stages alike (rep_stage) */
		uint64_t rep = dual ? r : rep_stage(&x, r);
		struct cost fa[2], ba[2], fp[2], bp[2];
		for (uint64_t ch = 0; ch < v; ch++) {
			struct cost o, ob;
			size_t i = (size_t)(r * v + ch);
			chunk_cost(&x.k, rep, ch, 0, 0, &o);
			chunk_cost(&x.k, rep, ch, 1, 0, &ob);
			sm.dur_f[i] = o.dur;
			sm.dur_b[i] = ob.dur;
			sm.dur_w[i] = ob.wgrad;
			sm.dur_fp[i] = o.dur;
			sm.dur_bp[i] = ob.dur;
			if (dual) {
				fa[ch] = o;
				ba[ch] = ob;
				chunk_cost(&x.k, rep, ch, 0, 1, &fp[ch]);
				chunk_cost(&x.k, rep, ch, 1, 1, &bp[ch]);
				sm.dur_fp[i] = fp[ch].dur;
				sm.dur_bp[i] = bp[ch].dur;
			}
		}
		if (dual)
			dev_stage(&sm, r, fa, ba, fp, bp, periods, x.k.m, &dev[r]);
	}
	if (p->step_memo && periods == 0 && !show && !emit) {
		/* a search's step: its layouts alike in all the simulation
		 * reads run it once (sim_memo) */
		if (sim_memo_take(p->step_memo->sim, &sm, end, &span)) {
			DC_MEMO_VERIFY(sim_memo_verify(&sm, end, span));
			rc = 0;
		} else {
			rc = sim_run(&sm, end, &span);
			if (rc == 0)
				sim_memo_put(p->step_memo, &sm, end, span);
		}
	} else {
		rc = sim_run(&sm, end, &span);
	}
	if (rc == 0 && periods > 0 && !dual) {
		/* uneven interleaved chunks: every stage's end from the max-plus
		 * power of its steady period (docs/step-model.md, "Uneven
		 * interleaved chunks past the bound") */
		int mp = inter_maxplus(&sm, periods, end);
		if (mp == -2) {
			struct dc_step_bound again = *bound;
			free(end);
			free(dev);
			free(dev_sync);
			sim_free(&sm);
			if (f1x && bound->again)
				return f1b_closed(p, c, comm, f, b, s, want, emit, ctx, show, bound, error);
			if (bound->again) {
				*error = "'training.grad_accum_steps' x 'parallel.pp' x 'parallel.virtual_pipeline': the "
					 "interleaved schedule the step simulates (chunks of unequal cost, or a send longer "
					 "than a chunk's forward) is above the 2 x 2^18 model chunks it simulates at most, "
					 "and its steady period is too large a max-plus system to extend (3 pp - 1 ends, at "
					 "most 257: pp up to 86; or its forms in flight above 256 MiB): lower training.grad_accum_steps (where a step runs several schedules, "
					 "parallel.pipeline_schedule_microbatches: the simulated schedule's)";
				return -1;
			}
			/* the whole schedule if it fits within DC_STEP_SIM_AGAIN times the bound
			 * (uneven 1F1B and ZB-H1 past that: their closed form) */
			again.again = 1;
			again.max_chunks = bound->max_chunks > UINT64_MAX / DC_STEP_SIM_AGAIN ? UINT64_MAX
										 : DC_STEP_SIM_AGAIN * bound->max_chunks;
			rc = timeline(p, c, comm, f, b, s, want, emit, ctx, show, &again, error, 0);
			again.max_chunks = bound->max_chunks;
			*bound = again;
			return rc;
		}
		if (mp == 0) {
			bound->by_maxplus = 1;
			span = 0;
			for (uint64_t r = 0; r < pp; r++)
				if (end[r] > span)
					span = end[r];
		}
		rc = mp;
	}
	if (rc == 0 && periods > 0 && dual) {
		/* every rank's end moves on by a cycle's time every cycle of
		 * steady pairs more (docs/step-model.md, "DualPipe past the bound") */
		uint64_t cycle = 1;
		double lambda = 0;
		int mp = -2;
		if (bound->maxplus_first || dual_period(&sm, &cycle, &lambda) != 0 || periods % cycle != 0) {
			/* not settled: the max-plus power, exact whatever the
			 * transient */
			double *full = dc_calloc((size_t)pp, sizeof(double));
			mp = full ? dual_maxplus(&sm, periods, full) : -1;
			if (mp == 0) {
				memcpy(end, full, (size_t)pp * sizeof(double));
				bound->by_maxplus = 1;
			}
			free(full);
			if (mp == -1)
				rc = -1;
		}
		if (rc == 0 && mp != 0 && (dual_period(&sm, &cycle, &lambda) != 0 || periods % cycle != 0)) {
			struct dc_step_bound again = *bound;
			free(end);
			free(dev);
			free(dev_sync);
			sim_free(&sm);
			if (bound->again) {
				*error = "the DualPipe schedule's steady state does not settle within the 2 x 2^18 model chunks "
					 "the step simulates (2 x parallel.pp x training.grad_accum_steps): lower "
					 "training.grad_accum_steps (where a step runs several schedules, "
					 "parallel.pipeline_schedule_microbatches: the simulated schedule's)";
				return -1;
			}
			/* not settled within the prefix: once more within DC_STEP_SIM_AGAIN times
			 * the bound, the whole schedule if it fits */
			again.again = 1;
			again.max_chunks = bound->max_chunks > UINT64_MAX / DC_STEP_SIM_AGAIN ? UINT64_MAX
										 : DC_STEP_SIM_AGAIN * bound->max_chunks;
			rc = timeline(p, c, comm, f, b, s, want, emit, ctx, show, &again, error, 0);
			again.max_chunks = bound->max_chunks;
			*bound = again;
			return rc;
		}
		if (rc == 0 && mp != 0) {
			bound->cycle = cycle;
			bound->period_s = lambda;
			for (uint64_t r = 0; r < pp; r++)
				end[r] += (double)(periods / cycle) * lambda;
		}
		span = 0;
		for (uint64_t r = 0; r < pp; r++)
			if (end[r] > span)
				span = end[r];
	}
	if (rc != 0) {
		free(end);
		free(dev);
		free(dev_sync);
		sim_free(&sm);
		*error = rc == -1 ? "out of memory" : "the pipeline schedule deadlocks (a bug)";
		return -1;
	}
	if (prefix) {
		/* a prefix of the schedule: the step and every stage's end from
		 * the closed form, as dc_step_compute */
		span = pipe_closed(&x, ctx_run, x.nruns, pp, x.k.m, v, &x.k.snd, x.k.sched == DC_PIPE_ZERO_BUBBLE,
				   &critical, &fill);
		compose(&x, c, f, b, span, critical, fill, NULL, s);
		closed_ends(&x, span, end);
	} else if (dual) {
		/* the critical rank: the one whose last op ends last; each
		 * rank's sync from its own two stages' gradients */
		struct dp_keep kp;
		kp.n = kp.next = 0;
		for (uint64_t r = 0; r < pp; r++) {
			const struct dp_calls *d;
			if (rank_dp(&x, r, &kp, &d, error) != 0) {
				free(end);
				free(dev);
				free(dev_sync);
				sim_free(&sm);
				return -1;
			}
			stage_sync(&x, &dev[r], d, &dev_sync[r]);
			if (end[r] > end[critical])
				critical = r;
		}
		x.dev = dev;
		x.dev_sync = dev_sync;
	} else {
		/* the critical stage: the closed form's, its fill from the
		 * simulation; uneven 1F1B's from the simulation, whose paths
		 * the form does not take (sim_critical) */
		pipe_closed(&x, ctx_run, x.nruns, pp, x.k.m, v, &x.k.snd, x.k.sched == DC_PIPE_ZERO_BUBBLE, &critical,
			    &fill);
		if (dc_step_uneven_1f1b(p))
			critical = sim_critical(&x, end, span);
	}
	if (!prefix) {
		fill = sm.nops[critical] ? sm.op_t[critical * sm.cap].start : 0;
		compose(&x, c, f, b, span, critical, fill, end, s);
	}
	rc = 0;
	if (emit) {
		struct emitter em = {emit, ctx, 0, {0}, DC_EV_SPAN};
		struct stage_view view = {0, 0, 0, 0};
		/* every rank meets at the sync; what follows it is each
		 * rank's optimizer step and AllGather, the most of them on any
		 * rank ending the step (compose) */
		double sync, after_max = 0, a_opt = 0, a_post = 0;
		struct dp_keep kp;
		const struct dp_calls *d;
		kp.n = kp.next = 0;
		for (uint64_t r = 0; r < pp; r++) {
			uint64_t seg = dc_plan_stage_segment(p, r);
			double o = opt_of(&x, c, r, seg), q = sync_seg(&x, r, seg)->post;
			if (o + q > after_max) {
				after_max = o + q;
				a_opt = o;
				a_post = q;
			}
		}
		sync = s->time_s - a_post - a_opt;
		for (uint64_t r = 0; r < pp && !em.rc; r++) {
			if (want && !want(ctx, r))
				continue;
			if (rank_dp(&x, r, &kp, &d, error) != 0) {
				em.rc = -1;
				break;
			}
			st = *ops_of(&x, r);
			if (show) {
				view.microbatches = show->microbatches;
				view.prefix = prefix;
				/* 1F1B, interleaved: F and B per chunk-microbatch; ZB-H1: and W */
				view.full_ops = prefix ? ops_per_chunk(x.k.sched) * v * x.k.m : sm.nops[r];
				view.busy_s = (double)x.k.m * (st.fwd_s + st.bwd_s);
				if (periods > 0) {
					/* a prefix moved on by `periods` steady periods: DualPipe
					 * two F&B pairs each (dev_stage's busy counts them),
					 * uneven interleaved pp v forward-backward pairs, each
					 * chunk's forward and backward pp times */
					view.prefix = 1;
					view.full_ops = sm.nops[r] +
							(dual ? 2 : ops_per_chunk(x.k.sched) * pp * v) * periods;
					if (!dual) {
						view.busy_s = 0;
						for (uint64_t ch = 0; ch < v; ch++)
							view.busy_s += sm.dur_f[r * v + ch] + sm.dur_b[r * v + ch];
						view.busy_s *= (double)x.k.m;
					}
				}
			}
			emit_stage(&em, &x, &sm, r, &st, d, end[r], sync, opt_of(&x, c, r, dc_plan_stage_segment(p, r)),
				   s->time_s, show ? &view : NULL);
		}
		rc = em.rc;
	}
	free(end);
	free(dev);
	free(dev_sync);
	sim_free(&sm);
	return rc;
}

int dc_step_timeline(const struct dc_plan *p, const struct dc_compute *c, const struct dc_comm *comm,
		     const struct dc_flops *f, const struct dc_batch *b, struct dc_step *s,
		     int (*want)(void *ctx, uint64_t stage), dc_step_event_fn emit, void *ctx,
		     const char **error)
{
	return timeline(p, c, comm, f, b, s, want, emit, ctx, NULL, NULL, error, 0);
}

int dc_step_trace(const struct dc_plan *p, const struct dc_compute *c, const struct dc_comm *comm,
		  const struct dc_flops *f, const struct dc_batch *b, struct dc_step *s, struct dc_step_show *show,
		  int (*want)(void *ctx, uint64_t stage), dc_step_event_fn emit, void *ctx, const char **error)
{
	return timeline(p, c, comm, f, b, s, want, emit, ctx, show, NULL, error, 0);
}

int dc_step_compute_bounded(const struct dc_plan *p, const struct dc_compute *c, const struct dc_comm *comm,
			    const struct dc_flops *f, const struct dc_batch *b, struct dc_step *s,
			    struct dc_step_bound *bound, const char **error)
{
	int rc;
	bound->f1b_closed_form = 0;
	rc = timeline(p, c, comm, f, b, s, NULL, NULL, NULL, NULL, bound, error, 0);
	if (rc == 0 && bound->f1b_closed_form) {
		/* uneven 1F1B past the bound and its extension: the closed
		 * form, a lower bound (the report warns: sec_step.c) */
		rc = closed_step(p, c, comm, f, b, s, error);
		s->f1b_closed_form = 1;
	}
	return rc;
}
