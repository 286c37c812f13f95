/* step.c - the step time: schedule, overlap, critical path; see step.h and
 * docs/step-model.md. */
#include "distcalc/step.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "distcalc/plan.h"
#include "distcalc/util.h"

/* ---- the stage's layers (one helper: seams item 6) ---- */

/* Layers in model chunk `c` of `stage` and its first model layer
 * (plan.h: dc_plan_chunk_layers, uneven interleaved chunks included). */
static uint64_t chunk_layers(const struct dc_plan *p, uint64_t stage, uint64_t c)
{
	return dc_plan_chunk_layers(p, stage, c);
}

static uint64_t chunk_start(const struct dc_plan *p, uint64_t stage, uint64_t c)
{
	return dc_plan_chunk_start(p, stage, c);
}

/* Dense-MLP layers of chunk `c` of `stage`: the model's first dense_limit
 * layers are dense. */
static uint64_t chunk_dense(const struct dc_plan *p, uint64_t stage, uint64_t c)
{
	uint64_t start = chunk_start(p, stage, c), n = chunk_layers(p, stage, c);
	if (p->dense_limit <= start)
		return 0;
	return p->dense_limit - start < n ? p->dense_limit - start : n;
}

/* ---- what each op costs ---- */

/* Per-layer, per-microbatch communication read from the comm result, and
 * the overlap switches. */
struct costs {
	const struct dc_plan *p;
	const struct dc_compute *c;
	double tp_f, tp_b;           /* one layer's TP collectives, forward / backward */
	double tp_b_async;           /* of tp_b: what Megatron runs behind the backward's GEMMs */
	double ep_f, ep_b;           /* one MoE layer's AlltoAlls */
	double ag_f, ag_b, rs_b;     /* one FSDP unit's gathers and reduce-scatter */
	double cp_f, cp_b;           /* one layer's context-parallel K/V exchange */
	int cp_hide;                 /* p2p: the ring's sends run behind the layer's kernels */
	double send_s;               /* one pipeline send */
	int ov_tp, ov_fsdp, ov_dp;
	int ov_ep;                   /* overlap.ep a2a_1f1b: AlltoAlls behind the paired microbatch's compute */
	double slow;
	uint64_t m;
};

static double phase_time(const struct dc_comm_strategy *s, enum dc_coll_phase phase, int kind)
{
	double t = 0;
	for (uint64_t i = 0; i < s->ncoll; i++)
		if (s->coll[i].phase == phase && (kind < 0 || (int)s->coll[i].kind == kind))
			t += s->coll[i].time_s;
	return t;
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

static void costs_init(struct costs *k, const struct dc_plan *p, const struct dc_compute *c,
		       const struct dc_comm *comm)
{
	const struct dc_config *in = p->in;
	double gas = (double)p->layout.grad_accum_steps;
	/* the comm result prices the stage it analyses (comm.h: stage) */
	uint64_t analysed = dc_plan_stage_layers(p, comm->stage);
	double layers = (double)(analysed ? analysed : 1);
	memset(k, 0, sizeof(*k));
	k->p = p;
	k->c = c;
	k->m = p->layout.grad_accum_steps;
	k->ov_tp = in->overlap.tp;
	k->ov_fsdp = in->overlap.fsdp_prefetch && in->parallel.fsdp_unit != DC_FSDP_UNIT_MODEL;
	k->ov_dp = in->overlap.dp;
	k->ov_ep = in->overlap.ep == DC_EP_OVERLAP_A2A_1F1B;
	k->slow = in->overlap.compute_slowdown;
	if (comm->s[DC_STRAT_TP].in_play) {
		k->tp_f = phase_time(&comm->s[DC_STRAT_TP], DC_CPHASE_FORWARD, -1) / (layers * gas);
		k->tp_b = phase_time(&comm->s[DC_STRAT_TP], DC_CPHASE_BACKWARD, -1) / (layers * gas);
		for (uint64_t i = 0; i < comm->s[DC_STRAT_TP].ncoll; i++)
			if (tp_async(&comm->s[DC_STRAT_TP].coll[i]))
				k->tp_b_async += comm->s[DC_STRAT_TP].coll[i].time_s / (layers * gas);
	}
	if (comm->s[DC_STRAT_EP].in_play && p->most.moe_layers > 0) {
		double moe = (double)p->most.moe_layers;
		k->ep_f = phase_time(&comm->s[DC_STRAT_EP], DC_CPHASE_FORWARD, -1) / (moe * gas);
		k->ep_b = phase_time(&comm->s[DC_STRAT_EP], DC_CPHASE_BACKWARD, -1) / (moe * gas);
	}
	if (comm->s[DC_STRAT_FSDP].in_play) {
		/* per layer, a whole-model unit spread over the layers too
		 * (it is never prefetched: ov_fsdp) */
		const struct dc_comm_strategy *s = &comm->s[DC_STRAT_FSDP];
		k->ag_f = phase_time(s, DC_CPHASE_FORWARD, DC_COLL_ALL_GATHER) / (layers * gas);
		k->ag_b = phase_time(s, DC_CPHASE_BACKWARD, DC_COLL_ALL_GATHER) / (layers * gas);
		/* the units' gradient sync: their ReduceScatters and, under
		 * HSDP, the AllReduces of the shards across replicas */
		k->rs_b = (phase_time(s, DC_CPHASE_BACKWARD, DC_COLL_REDUCE_SCATTER) +
			   phase_time(s, DC_CPHASE_BACKWARD, DC_COLL_ALL_REDUCE)) /
			  (layers * gas);
	}
	if (comm->s[DC_STRAT_CP].in_play) {
		/* ring attention (cp_comm_type p2p) sends the next K/V block
		 * while the current one is computed; all_gather and a2a are
		 * waited for */
		k->cp_f = phase_time(&comm->s[DC_STRAT_CP], DC_CPHASE_FORWARD, -1) / (layers * gas);
		k->cp_b = phase_time(&comm->s[DC_STRAT_CP], DC_CPHASE_BACKWARD, -1) / (layers * gas);
		k->cp_hide = in->parallel.cp_comm_type == DC_CP_P2P;
	}
	if (comm->s[DC_STRAT_PP].in_play) {
		const struct dc_comm_strategy *s = &comm->s[DC_STRAT_PP];
		for (uint64_t i = 0; i < s->ncoll; i++)
			if (s->coll[i].count > 0 && s->coll[i].phase == DC_CPHASE_FORWARD)
				k->send_s = s->coll[i].time_s / (double)s->coll[i].count;
	}
}

/* One layer's op, or the sum of several. */
struct cost {
	double dur, comp, hidden;
	double ex[DC_STRAT_COUNT];
	double tp_comm, ep_comm, cp_comm, ag, rs; /* the collectives' own durations */
};

static void cost_add(struct cost *a, const struct cost *b, double n)
{
	a->dur += n * b->dur;
	a->comp += n * b->comp;
	a->hidden += n * b->hidden;
	for (int i = 0; i < DC_STRAT_COUNT; i++)
		a->ex[i] += n * b->ex[i];
	a->tp_comm += n * b->tp_comm;
	a->ep_comm += n * b->ep_comm;
	a->cp_comm += n * b->cp_comm;
	a->ag += n * b->ag;
	a->rs += n * b->rs;
}

static double max0(double x)
{
	return x > 0 ? x : 0;
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
	uint64_t pp = p->layout.pp, v = p->v, n = p->layout.grad_accum_steps * v, w;
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

static void layer_cost(const struct costs *k, const struct dc_work_time *w, uint64_t stage, int moe, int bwd,
		       int first, struct cost *o)
{
	double comp = bwd ? w->bwd_s + w->recompute_s : w->fwd_s;
	double tp = bwd ? k->tp_b : k->tp_f;
	double ep = moe ? (bwd ? k->ep_b : k->ep_f) : 0;
	double ag = bwd ? k->ag_b : k->ag_f, rs = bwd ? k->rs_b : 0;
	double cp = bwd ? k->cp_b : k->cp_f;
	double ex_tp = tp, ex_fs = ag + rs, ex_cp = cp, ex_ep = ep, hid = 0;
	memset(o, 0, sizeof(*o));
	if (moe && k->ov_ep && ep > 0) {
		ex_ep = ep_exposed(k, w, bwd, ep_paired_share(k->p, stage));
		hid += ep - ex_ep;
	}
	if (k->cp_hide) {
		ex_cp = max0(cp - comp);
		hid += cp - ex_cp;
	}
	if (k->ov_tp) {
		/* tiled overlap: every TP collective behind the layer's GEMMs */
		double mm = bwd ? w->bwd_matmul_s : w->fwd_matmul_s;
		ex_tp = max0(tp - mm);
		hid += tp - ex_tp;
	} else if (bwd) {
		/* Megatron's asynchronous backward collectives, behind the
		 * backward's GEMMs */
		double async = k->tp_b_async, shown = max0(async - w->bwd_matmul_s);
		ex_tp = tp - async + shown;
		hid += async - shown;
	}
	if (k->ov_fsdp && !first) {
		double busiest = ag > rs ? ag : rs;
		ex_fs = max0(busiest - comp);
		hid += ag + rs - ex_fs;
	}
	o->comp = comp + k->slow * hid;
	o->hidden = hid;
	o->ex[DC_STRAT_TP] = ex_tp;
	o->ex[DC_STRAT_EP] = ex_ep;
	o->ex[DC_STRAT_FSDP] = ex_fs;
	o->ex[DC_STRAT_CP] = ex_cp;
	o->dur = o->comp + ex_tp + ex_ep + ex_fs + ex_cp;
	o->tp_comm = tp;
	o->ep_comm = ep;
	o->cp_comm = cp;
	o->ag = ag;
	o->rs = rs;
}

static void work_cost(const struct dc_work_time *w, int bwd, struct cost *o)
{
	memset(o, 0, sizeof(*o));
	o->comp = bwd ? w->bwd_s + w->recompute_s : w->fwd_s;
	o->dur = o->comp;
}

/* What model chunk `c` of `stage` costs for one microbatch, forward or
 * backward: its layers (the first one the op runs, then the rest), the
 * embedding on the model's first chunk, the head on its last. */
static void chunk_cost(const struct costs *k, uint64_t stage, uint64_t c, int bwd, struct cost *o)
{
	const struct dc_plan *p = k->p;
	uint64_t n = chunk_layers(p, stage, c), d = chunk_dense(p, stage, c), e = n - d;
	struct cost one;
	memset(o, 0, sizeof(*o));
	if (n > 0) {
		/* forward runs the chunk's first layer first (dense when it has
		 * any), backward its last (MoE when it has any) */
		int first_moe = bwd ? e > 0 : d == 0;
		layer_cost(k, first_moe ? &k->c->moe_layer : &k->c->dense_layer, stage, first_moe, bwd, 1, &one);
		cost_add(o, &one, 1);
		if (d > (first_moe ? 0u : 1u)) {
			layer_cost(k, &k->c->dense_layer, stage, 0, bwd, 0, &one);
			cost_add(o, &one, (double)(d - (first_moe ? 0u : 1u)));
		}
		if (e > (first_moe ? 1u : 0u)) {
			layer_cost(k, &k->c->moe_layer, stage, 1, bwd, 0, &one);
			cost_add(o, &one, (double)(e - (first_moe ? 1u : 0u)));
		}
	}
	if (stage == 0 && c == 0) {
		work_cost(&k->c->embedding, bwd, &one);
		cost_add(o, &one, 1);
	}
	if (stage + 1 == p->layout.pp && c + 1 == p->v) {
		work_cost(&k->c->head, bwd, &one);
		cost_add(o, &one, 1);
	}
}

static void stage_ops(const struct costs *k, uint64_t stage, struct dc_step_stage *st)
{
	struct cost f, b, tot;
	uint64_t v = k->p->v;
	memset(st, 0, sizeof(*st));
	memset(&tot, 0, sizeof(tot));
	for (uint64_t c = 0; c < v; c++) {
		chunk_cost(k, stage, c, 0, &f);
		chunk_cost(k, stage, c, 1, &b);
		cost_add(&tot, &f, 1);
		cost_add(&tot, &b, 1);
		st->fwd_s += f.dur;
		st->bwd_s += b.dur;
		if (c == 0) {
			st->fwd_first_s = f.dur;
			st->bwd_first_s = b.dur;
		}
		if (c + 1 == v) {
			st->fwd_last_s = f.dur;
			st->bwd_last_s = b.dur;
		}
	}
	for (int i = 0; i < DC_STRAT_COUNT; i++)
		st->exposed_s[i] = tot.ex[i];
	st->compute_s = tot.comp;
	st->hidden_s = tot.hidden;
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

/* Stage k of a run whose first stage a starts at `pre_f`, drains through
 * `pre_b` and sees `D_a` below it: where each stage advances the prefixes
 * by one stage's chunk 0 and a send. */
static double run_stage_at(const struct dc_step_stage *sp, uint64_t p, uint64_t m, uint64_t v, double c,
			   uint64_t a, uint64_t k, double pre_f, double pre_b, double D_a, double after_a)
{
	double dk = (double)(k - a);
	double start = pre_f + dk * (sp->fwd_first_s + c), drain = pre_b + dk * (sp->bwd_first_s + c);
	if (v == 1) {
		double D = D_a - dk * (sp->fwd_s + sp->bwd_s + 2.0 * c);
		return one_f_one_b_at(sp, p, m, k, start, D, drain);
	}
	/* interleaved: the critical stage is busy m (f + b); the first
	 * microbatch's first chunk fills the stages before it and its last
	 * backward drains them; the stages after it add one chunk each way,
	 * (p - 1 - k) (f + b) / v, as in the equal-stage bubble
	 * (p - 1)(f + b) / v (Megatron-LM 2021 section 2.2.2); each boundary
	 * crossed costs a send */
	return (double)m * (sp->fwd_s + sp->bwd_s) + start + drain + after_a -
	       dk * (sp->fwd_s + sp->bwd_s) / (double)v + 2.0 * (double)(p - 1 - k) * c;
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
		if (*n < 16)
			cand[(*n)++] = u;
	}
}

/* The span and the stage that sets it. *fill_s: when the critical stage's
 * first forward starts. Each stage's value is a lower bound on the span
 * (the length of a path through the schedule, exact for the stage that
 * never idles once started), so the span is their maximum. Within a run of
 * identical stages the value is piecewise linear in k, with its kinks where
 * the first backward's wait, the cool-down's wait or the warm-up count
 * change branch: the run's ends and the kinks bound it, so the cost is
 * O(runs), not O(pp). */
static double pipe_closed(const void *ctx, run_fn run_at, uint64_t nruns, uint64_t p, uint64_t m, uint64_t v,
			  double c, uint64_t *critical, double *fill_s)
{
	double total = 0, pre_fb = 0, pre_f = 0, pre_b = 0, best = -1;
	uint64_t first, len;
	for (uint64_t i = 0; i < nruns; i++) {
		const struct dc_step_stage *q = run_at(ctx, i, &first, &len);
		total += (double)len * (q->fwd_s + q->bwd_s);
	}
	for (uint64_t i = 0; i < nruns; i++) {
		const struct dc_step_stage *sp = run_at(ctx, i, &first, &len);
		uint64_t a = first, b = first + len - 1, cand[16];
		double fb = sp->fwd_s + sp->bwd_s;
		double D_a = total - pre_fb - fb + 2.0 * (double)(p - 1 - a) * c;
		double after_a = (total - pre_fb - fb) / (double)v;
		double f = sp->fwd_s, bw = sp->bwd_s, delta = f + bw + 2.0 * c;
		int n = 0;
		cand[n++] = a;
		cand[n++] = b;
		if (v == 1 && len > 2) {
			/* D_k = w f (first backward's wait), w b = D_k (cool-down),
			 * w = m and m - w - 1 = 0 (the warm-up count) */
			if (delta - f != 0)
				candidate((D_a + (double)a * delta - (double)(p - 1) * f) / (delta - f), a, b, cand, &n);
			if (bw - delta != 0)
				candidate(((double)(p - 1) * bw - D_a - (double)a * delta) / (bw - delta), a, b, cand, &n);
			candidate((double)p - 1.0 - (double)m, a, b, cand, &n);
			candidate((double)p - (double)m, a, b, cand, &n);
		}
		for (int j = 0; j < n; j++) {
			uint64_t k = cand[j];
			double t = run_stage_at(sp, p, m, v, c, a, k, pre_f, pre_b, D_a, after_a);
			if (t > best || (t == best && k < *critical)) {
				best = t;
				*critical = k;
				*fill_s = pre_f + (double)(k - a) * (sp->fwd_first_s + c);
			}
		}
		pre_fb += (double)len * fb;
		pre_f += (double)len * (sp->fwd_first_s + c);
		pre_b += (double)len * (sp->bwd_first_s + c);
	}
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
	double fill;
	uint64_t k = 0;
	double t = pipe_closed(&a, array_run, pp->p, pp->p, pp->m, pp->v, pp->send_s, &k, &fill);
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

/* The DP strategy's calls: the buckets of the last microbatch's backward,
 * what earlier microbatches reduce (ZeRO-2), what follows the optimizer. */
struct dp_calls {
	struct dc_step_buckets last;
	double earlier_s; /* ZeRO-2: the reduce-scatters of the microbatches before */
	double post_s;    /* after the optimizer step: ZeRO's AllGather of the updated params */
	uint64_t post_calls;
};

static void dp_calls(const struct dc_plan *p, const struct dc_comm *comm, struct dp_calls *d)
{
	const struct dc_comm_strategy *s = &comm->s[DC_STRAT_DP];
	uint64_t gas = p->layout.grad_accum_steps;
	uint64_t per = p->layout.sharding == DC_SHARD_ZERO2 ? gas : 1;
	memset(d, 0, sizeof(*d));
	if (!s->in_play)
		return;
	for (uint64_t i = 0; i < s->ncoll; i++) {
		const struct dc_coll *c = &s->coll[i];
		double call = c->count ? c->time_s / (double)c->count : 0;
		if (c->phase == DC_CPHASE_BACKWARD) {
			uint64_t n = c->count / per;
			struct dc_step_buckets *b = &d->last;
			b->n[b->ngroups] = n;
			b->bytes[b->ngroups] = c->msg_bytes;
			b->call_s[b->ngroups] = call;
			b->ngroups++;
			b->total_bytes += n * c->msg_bytes;
			b->total_s += (double)n * call;
			d->earlier_s += (double)(c->count - n) * call;
		} else {
			d->post_s += c->time_s;
			d->post_calls += c->count;
		}
	}
}

/* ---- the step ---- */

/* Stages of one plan segment hold the same layers, so the same ops, but
 * for the first (the embedding) and the last (the head): their ops are
 * computed once each, and every per-stage loop reads them (O(segments)
 * op costs, O(pp) arithmetic). */
/* What follows a stage's last backward (stage_sync). */
struct stage_sync_t {
	double tail, pen, hid;
};

struct step_ctx {
	struct costs k;
	struct dp_calls dp;
	uint64_t pp;
	struct dc_step_stage first, last, mid[DC_PLAN_MAX_SEGMENTS];
	struct stage_sync_t sync_first, sync_last, sync_mid[DC_PLAN_MAX_SEGMENTS];
	uint64_t mid_stage[DC_PLAN_MAX_SEGMENTS]; /* the stage mid[] was computed for */
	/* runs of identical stages, in order (runs_of) */
	uint64_t nruns, run_first[DC_PLAN_MAX_SEGMENTS + 2], run_len[DC_PLAN_MAX_SEGMENTS + 2];
	const struct dc_step_stage *run_ops[DC_PLAN_MAX_SEGMENTS + 2];
};

static void stage_sync(const struct step_ctx *x, const struct dc_step_stage *st, double *tail, double *pen,
		       double *hidden);
static void runs_of(struct step_ctx *x);

/* ops_of and its sync for `stage` of segment `seg` */
static const struct dc_step_stage *ops_seg(const struct step_ctx *x, uint64_t stage, uint64_t seg)
{
	return stage == 0 ? &x->first : stage + 1 == x->pp ? &x->last : &x->mid[seg];
}

static const struct stage_sync_t *sync_seg(const struct step_ctx *x, uint64_t stage, uint64_t seg)
{
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
	if (stage == 0)
		return &x->first;
	if (stage + 1 == x->pp)
		return &x->last;
	return &x->mid[dc_plan_stage_segment(x->k.p, stage)];
}

void dc_step_tp_layer(const struct dc_plan *p, const struct dc_comm *comm, struct dc_step_tp_layer *t)
{
	struct costs k;
	costs_init(&k, p, NULL, comm);
	t->fwd_s = k.tp_f;
	t->bwd_s = k.tp_b;
	t->bwd_async_s = k.tp_b_async;
}

static void ctx_init(struct step_ctx *x, const struct dc_plan *p, const struct dc_compute *c,
		     const struct dc_comm *comm)
{
	costs_init(&x->k, p, c, comm);
	dp_calls(p, comm, &x->dp);
	x->pp = p->layout.pp;
	stage_ops(&x->k, 0, &x->first);
	if (x->pp == 1)
		x->last = x->first;
	else
		stage_ops(&x->k, x->pp - 1, &x->last);
	for (uint64_t i = 0; i < p->nsegments; i++) {
		uint64_t f = p->segment_first[i], l = p->segment_first[i + 1] - 1;
		uint64_t m = f == 0 ? 1 : f;
		if (m >= l && l + 1 == x->pp)
			m = l; /* no middle stage: never read as one */
		x->mid_stage[i] = m;
		if (m == 0 || m + 1 >= x->pp || m > l)
			x->mid[i] = m == 0 ? x->first : x->last; /* no middle stage here: never read */
		else
			stage_ops(&x->k, m, &x->mid[i]);
		stage_sync(x, &x->mid[i], &x->sync_mid[i].tail, &x->sync_mid[i].pen, &x->sync_mid[i].hid);
	}
	stage_sync(x, &x->first, &x->sync_first.tail, &x->sync_first.pen, &x->sync_first.hid);
	stage_sync(x, &x->last, &x->sync_last.tail, &x->sync_last.pen, &x->sync_last.hid);
	runs_of(x);
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
 * the hidden part slows the backward by the slowdown fraction. */
static void stage_sync(const struct step_ctx *x, const struct dc_step_stage *st, double *tail, double *pen,
		       double *hidden)
{
	const struct dp_calls *d = &x->dp;
	if (!x->k.ov_dp) {
		*tail = d->last.total_s + d->earlier_s;
		*pen = 0;
		*hidden = 0;
		return;
	}
	*tail = dc_step_bucket_tail(&d->last, st->bwd_s);
	*hidden = d->last.total_s - *tail + d->earlier_s;
	*pen = x->k.slow * *hidden;
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

/* Composes the step from the pipeline's span and each stage's end (`end`
 * NULL: the closed form's, span - drain). One pass over the stages finds
 * the sync point, the slowest stage and each class's last-ready stage; the
 * classes are then filled from those. */
static void compose(const struct step_ctx *x, const struct dc_compute *c, const struct dc_flops *f,
		    const struct dc_batch *b, double span, uint64_t critical, double fill, const double *end,
		    struct dc_step *s)
{
	const struct dc_plan *p = x->k.p;
	uint64_t pp = p->layout.pp, m = x->k.m, seg = 0;
	double sync = span, drain = 0, post = x->dp.post_s, opt_max = 0, world = (double)p->world;
	double best_finish = -1, best_ready = -1;
	double cls_ready[DC_PLAN_MAX_SEGMENTS];
	uint64_t cls_stage[DC_PLAN_MAX_SEGMENTS];
	uint64_t slow_stage = 0, ready_stage = 0;

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
		e = end ? end[r] : span - drain;
		ready = e + sy->pen + sy->tail;
		opt = c->optimizer_s[seg];
		fin = ready + opt + post;
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
		if (opt > opt_max)
			opt_max = opt;
		if (ready > cls_ready[seg]) {
			cls_ready[seg] = ready;
			cls_stage[seg] = r;
		}
		drain += (double)len * (st->bwd_first_s + x->k.send_s);
	}
	s->pipeline_s = span;
	s->time_s = sync + opt_max + post;
	s->critical_stage = critical;
	s->slowest_rank = slow_stage * p->topo.stride[DC_AXIS_PP];

	/* per class, the stage of the segment that is ready last */
	s->nclasses = p->nsegments;
	for (uint64_t i = 0; i < p->nsegments; i++) {
		struct dc_step_class *cl = &s->classes[i];
		uint64_t r = cls_stage[i];
		const struct dc_step_stage *st = ops_seg(x, r, i);
		const struct stage_sync_t *sy = sync_seg(x, r, i);
		double ready = cls_ready[i], busy, after, pen_part, opt = c->optimizer_s[i];
		memset(cl, 0, sizeof(*cl));
		cl->stage_first = p->segment_first[i];
		cl->stage_last = p->segment_first[i + 1] - 1;
		cl->ranks = (cl->stage_last - cl->stage_first + 1) * (p->world / pp);
		cl->first_rank = cl->stage_first * p->topo.stride[DC_AXIS_PP];
		cl->total_s = s->time_s;
		busy = (double)m * (st->fwd_s + st->bwd_s);
		after = max0(ready - span);
		pen_part = after < sy->pen ? after : sy->pen;
		cl->compute_s = (double)m * st->compute_s + pen_part;
		for (int j = 0; j < DC_STRAT_COUNT; j++)
			cl->exposed_s[j] = (double)m * st->exposed_s[j];
		cl->bubble_s = max0(span - busy - 2.0 * (double)(pp - 1) * x->k.send_s);
		cl->exposed_s[DC_STRAT_PP] = span - busy - cl->bubble_s;
		cl->exposed_s[DC_STRAT_DP] = after - pen_part + post;
		cl->optimizer_s = opt;
		cl->tail_wait_s = s->time_s - ((ready > span ? ready : span) + opt + post);
		cl->hidden_s = sy->hid + (double)m * st->hidden_s;
	}

	/* the critical path: fill, the critical stage, drain, sync, optimizer */
	{
		double t = 0, crit_busy, drain_k = 0;
		struct dc_step_path *path = s->path;
		uint64_t n = 0;
		for (uint64_t i = 0; i < x->nruns && x->run_first[i] < critical; i++) {
			uint64_t cnt = x->run_first[i] + x->run_len[i] <= critical ? x->run_len[i] : critical - x->run_first[i];
			drain_k += (double)cnt * (x->run_ops[i]->bwd_first_s + x->k.send_s);
		}
		crit_busy = span - fill - drain_k;
		if (fill > 0)
			path[n++] = (struct dc_step_path){"pipeline fill: the first microbatch's forward reaches the critical stage", critical, t, fill};
		t += fill;
		path[n++] = (struct dc_step_path){"critical stage: every microbatch's forward and backward, and its waits", critical, t, crit_busy};
		t += crit_busy;
		if (drain_k > 0)
			path[n++] = (struct dc_step_path){"pipeline drain: the last backward returns to stage 0", 0, t, drain_k};
		t += drain_k;
		if (sync > span)
			path[n++] = (struct dc_step_path){"gradient synchronisation: the exposed tail of the slowest stage's buckets", ready_stage, t, sync - span};
		t = sync;
		if (opt_max > 0)
			path[n++] = (struct dc_step_path){"optimizer step", slow_stage, t, opt_max};
		t += opt_max;
		if (post > 0)
			path[n++] = (struct dc_step_path){"updated parameters all_gather (ZeRO)", slow_stage, t, post};
		s->npath = n;
	}

	/* rates */
	{
		double tokens = (double)b->tokens_per_step;
		s->tokens_per_s = s->time_s > 0 ? tokens / s->time_s : 0;
		s->tokens_per_s_per_gpu = s->tokens_per_s / world;
		s->gpu_s_per_token = tokens > 0 ? s->time_s * world / tokens : 0;
		if (s->time_s > 0 && c->peak_flops > 0) {
			double denom = s->time_s * world * c->peak_flops;
			s->mfu = f->model_per_step / denom;
			s->hfu = f->hardware_per_step / denom;
			s->hardware_flops_paper = korthikanti_hardware_flops(p, b);
			s->hfu_paper = s->hardware_flops_paper / denom;
		}
		{
			const struct dc_step_stage *cs = ops_of(x, critical);
			double busy = (double)m * (cs->fwd_s + cs->bwd_s);
			s->bubble_fraction = busy > 0 ? max0(span - busy) / busy : 0;
		}
		if (p->in->training.total_tokens > 0 && s->tokens_per_s > 0)
			s->time_to_train_s = (double)p->in->training.total_tokens / s->tokens_per_s;
	}
}

static void step_header(const struct dc_plan *p, const struct dc_compute *c, struct dc_step *s)
{
	memset(s, 0, sizeof(*s));
	s->available = c->available;
	s->missing = c->missing;
	s->p = p->layout.pp;
	s->m = p->layout.grad_accum_steps;
	s->v = p->v;
	s->interleaved = p->v > 1;
	s->few_microbatches = p->layout.grad_accum_steps < p->layout.pp;
	s->slowdown = p->in->overlap.compute_slowdown;
}

int dc_step_compute(const struct dc_plan *p, const struct dc_compute *c, const struct dc_comm *comm,
		    const struct dc_flops *f, const struct dc_batch *b, struct dc_step *s, const char **error)
{
	struct step_ctx x;
	uint64_t critical = 0;
	double fill = 0, span;
	/* Interleaved chunks of unequal cost (plan.h chunks_uneven: Megatron-
	 * Core's pipeline layouts) stall ranks on each other in ways the
	 * closed form's busiest-stage span does not see (9.1% short on
	 * DeepSeek-V3's Et|(tt|)*30mL layout): the schedule is simulated op by
	 * op instead, O(pp m v), with its allocation (docs/layouts.md) */
	if (p->chunks_uneven)
		return dc_step_timeline(p, c, comm, f, b, s, NULL, NULL, NULL, error);
	step_header(p, c, s);
	if (!c->available)
		return 0;
	ctx_init(&x, p, c, comm);
	span = pipe_closed(&x, ctx_run, x.nruns, p->layout.pp, x.k.m, p->v, x.k.send_s, &critical, &fill);
	compose(&x, c, f, b, span, critical, fill, NULL, s);
	return 0;
}

/* ---- the timeline ---- */

/* Op `i` of stage `s` in Megatron's order: *fwd, microbatch, chunk.
 * 1F1B: p - s - 1 warmup forwards, then forward/backward pairs, then the
 * remaining backwards. Interleaved (Megatron-LM 2021 section 2.2.2,
 * Megatron-Core's schedule): 2 (p - s - 1) + (v - 1) p warmup forwards;
 * virtual microbatch k runs chunk (k mod pv) / p of microbatch
 * (k / pv) p + k mod p, backwards the chunks in reverse. */
static void op_at(uint64_t p, uint64_t m, uint64_t v, uint64_t s, uint64_t i, int *fwd, uint64_t *mb,
		  uint64_t *chunk)
{
	uint64_t n = m * v, w, k;
	if (v == 1)
		w = p - s - 1;
	else
		w = 2 * (p - s - 1) + (v - 1) * p;
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

struct sim {
	uint64_t p, m, v;
	double *start_f, *start_b, *end_f, *end_b; /* [s][mb][chunk] */
	double *op_f, *op_b;                       /* [s][chunk] */
};

static size_t at3(const struct sim *x, uint64_t s, uint64_t mb, uint64_t c)
{
	return (size_t)((s * x->m + mb) * x->v + c);
}

static int sim_run(struct sim *x, double send_s, double *end_s, double *span_s)
{
	uint64_t p = x->p, m = x->m, v = x->v, nops = 2 * m * v, left = p;
	uint64_t *next = dc_calloc(p, sizeof(*next));
	double *free_at = dc_calloc(p, sizeof(*free_at));
	double span = 0;
	if (!next || !free_at) {
		free(next);
		free(free_at);
		return -1;
	}
	while (left > 0) {
		int progress = 0;
		for (uint64_t pass = 0; pass < 2; pass++) {
			for (uint64_t q = 0; q < p; q++) {
				uint64_t s = pass ? p - 1 - q : q;
				while (next[s] < nops) {
					int fwd;
					uint64_t mb, c;
					double ready;
					op_at(p, m, v, s, next[s], &fwd, &mb, &c);
					if (fwd) {
						if (s > 0) {
							double e = x->end_f[at3(x, s - 1, mb, c)];
							if (e < 0)
								break;
							ready = e + send_s;
						} else if (c > 0) {
							double e = x->end_f[at3(x, p - 1, mb, c - 1)];
							if (e < 0)
								break;
							ready = e + (p > 1 ? send_s : 0);
						} else {
							ready = 0;
						}
					} else {
						if (s + 1 < p) {
							double e = x->end_b[at3(x, s + 1, mb, c)];
							if (e < 0)
								break;
							ready = e + send_s;
						} else if (c + 1 < v) {
							double e = x->end_b[at3(x, 0, mb, c + 1)];
							if (e < 0)
								break;
							ready = e + (p > 1 ? send_s : 0);
						} else {
							double e = x->end_f[at3(x, s, mb, c)];
							if (e < 0)
								break;
							ready = e;
						}
					}
					{
						double st = ready > free_at[s] ? ready : free_at[s];
						double d = fwd ? x->op_f[s * v + c] : x->op_b[s * v + c];
						size_t ix = at3(x, s, mb, c);
						if (fwd) {
							x->start_f[ix] = st;
							x->end_f[ix] = st + d;
						} else {
							x->start_b[ix] = st;
							x->end_b[ix] = st + d;
						}
						free_at[s] = st + d;
					}
					next[s]++;
					progress = 1;
					if (next[s] == nops) {
						left--;
						end_s[s] = free_at[s];
						if (free_at[s] > span)
							span = free_at[s];
					}
				}
			}
		}
		if (!progress) {
			free(next);
			free(free_at);
			return -2; /* a schedule that deadlocks: a bug */
		}
	}
	*span_s = span;
	free(next);
	free(free_at);
	return 0;
}

static void sim_free(struct sim *x)
{
	free(x->start_f);
	free(x->start_b);
	free(x->end_f);
	free(x->end_b);
	free(x->op_f);
	free(x->op_b);
}

static int sim_alloc(struct sim *x, uint64_t p, uint64_t m, uint64_t v)
{
	size_t n = (size_t)(p * m * v);
	memset(x, 0, sizeof(*x));
	x->p = p;
	x->m = m;
	x->v = v;
	x->start_f = dc_calloc(n, sizeof(double));
	x->start_b = dc_calloc(n, sizeof(double));
	x->end_f = dc_malloc(n * sizeof(double));
	x->end_b = dc_malloc(n * sizeof(double));
	x->op_f = dc_calloc((size_t)(p * v), sizeof(double));
	x->op_b = dc_calloc((size_t)(p * v), sizeof(double));
	if (!x->start_f || !x->start_b || !x->end_f || !x->end_b || !x->op_f || !x->op_b) {
		sim_free(x);
		return -1;
	}
	for (size_t i = 0; i < n; i++)
		x->end_f[i] = x->end_b[i] = -1;
	return 0;
}

int dc_step_pipeline_simulate(const struct dc_step_pipe *pp, double *end_s, double *span_s)
{
	struct sim x;
	int rc;
	if (sim_alloc(&x, pp->p, pp->m, pp->v) != 0)
		return -1;
	for (uint64_t s = 0; s < pp->p; s++)
		for (uint64_t c = 0; c < pp->v; c++) {
			x.op_f[s * pp->v + c] = chunk_time(&pp->stage[s], pp->v, c, 1);
			x.op_b[s * pp->v + c] = chunk_time(&pp->stage[s], pp->v, c, 0);
		}
	rc = sim_run(&x, pp->send_s, end_s, span_s);
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
	em->e.start_s = start;
	em->e.duration_s = dur;
	va_start(ap, fmt);
	vsnprintf(em->e.name, sizeof(em->e.name), fmt, ap);
	va_end(ap);
	em->rc = em->emit(em->ctx, &em->e);
}

/* One layer's events: its kernels on the compute track, then what it
 * waits for; its collectives on their tracks (TP inside the layer's span,
 * ending with it; FSDP's gathers and reduce-scatters on their streams). */
static double emit_layer(struct emitter *em, const struct costs *k, uint64_t stage, uint64_t layer, uint64_t mb,
			 int moe, int bwd, int first, double t)
{
	struct cost o;
	const char *dir = bwd ? "bwd" : "fwd";
	layer_cost(k, moe ? &k->c->moe_layer : &k->c->dense_layer, stage, moe, bwd, first, &o);
	ev(em, stage, DC_TRACK_COMPUTE, t, o.comp, "layer %llu %s mb %llu", (unsigned long long)layer, dir,
	   (unsigned long long)mb);
	ev(em, stage, DC_TRACK_COMPUTE, t + o.comp, o.dur - o.comp, "layer %llu %s mb %llu: wait for communication",
	   (unsigned long long)layer, dir, (unsigned long long)mb);
	ev(em, stage, DC_TRACK_TP, t + o.dur - o.ex[DC_STRAT_EP] - o.tp_comm, o.tp_comm,
	   "layer %llu %s mb %llu tp collectives", (unsigned long long)layer, dir, (unsigned long long)mb);
	/* an AlltoAll paired behind another microbatch (overlap.ep) may
	 * outlast this op: the track shows what falls inside its span */
	if (o.ep_comm > o.dur)
		o.ep_comm = o.dur;
	ev(em, stage, DC_TRACK_EP, t + o.dur - o.ep_comm, o.ep_comm, "layer %llu %s mb %llu ep all_to_all",
	   (unsigned long long)layer, dir, (unsigned long long)mb);
	/* cp's exchange ends with the layer (behind its kernels for p2p) */
	ev(em, stage, DC_TRACK_CP, t + o.dur - o.cp_comm, o.cp_comm, "layer %llu %s mb %llu cp k/v exchange",
	   (unsigned long long)layer, dir, (unsigned long long)mb);
	/* the gather this layer's span covers (prefetched, it belongs to the
	 * next unit), then its reduce-scatter ending with it: each inside the
	 * layer's span (o.dur >= ag, rs), so a stream's events never overlap */
	ev(em, stage, DC_TRACK_FSDP_GATHER, t, o.ag,
	   "layer %llu %s mb %llu fsdp all_gather", (unsigned long long)layer, dir, (unsigned long long)mb);
	ev(em, stage, DC_TRACK_FSDP_REDUCE, t + o.dur - o.rs, o.rs, "layer %llu bwd mb %llu fsdp reduce_scatter",
	   (unsigned long long)layer, (unsigned long long)mb);
	return t + o.dur;
}

/* `rep`: the stage whose ops stand for this one's (rep_stage) */
static void emit_op(struct emitter *em, const struct costs *k, uint64_t stage, uint64_t rep, uint64_t mb, uint64_t c,
		    int bwd, double t)
{
	const struct dc_plan *p = k->p;
	uint64_t n = chunk_layers(p, stage, c), d = chunk_dense(p, rep, c), start = chunk_start(p, stage, c);
	struct cost w;
	if (!bwd && stage == 0 && c == 0) {
		work_cost(&k->c->embedding, 0, &w);
		ev(em, stage, DC_TRACK_COMPUTE, t, w.dur, "embedding fwd mb %llu", (unsigned long long)mb);
		t += w.dur;
	}
	if (bwd && stage + 1 == p->layout.pp && c + 1 == p->v) {
		work_cost(&k->c->head, 1, &w);
		ev(em, stage, DC_TRACK_COMPUTE, t, w.dur, "head and loss bwd mb %llu", (unsigned long long)mb);
		t += w.dur;
	}
	for (uint64_t j = 0; j < n; j++) {
		uint64_t i = bwd ? n - 1 - j : j;
		t = emit_layer(em, k, stage, start + i, mb, i >= d, bwd, j == 0, t);
	}
	if (!bwd && stage + 1 == p->layout.pp && c + 1 == p->v) {
		work_cost(&k->c->head, 0, &w);
		ev(em, stage, DC_TRACK_COMPUTE, t, w.dur, "head and loss fwd mb %llu", (unsigned long long)mb);
		t += w.dur;
	}
	if (bwd && stage == 0 && c == 0) {
		work_cost(&k->c->embedding, 1, &w);
		ev(em, stage, DC_TRACK_COMPUTE, t, w.dur, "embedding bwd mb %llu", (unsigned long long)mb);
	}
}

/* One stage's events, after the schedule has run. */
static void emit_stage(struct emitter *em, const struct step_ctx *x, const struct sim *sm, uint64_t s,
		       const struct dc_step_stage *st, double end, double sync, double opt, double step)
{
	const struct dc_plan *p = x->k.p;
	uint64_t nops = 2 * sm->m * sm->v;
	double t = 0, tail, pen, hid;
	for (uint64_t i = 0; i < nops && !em->rc; i++) {
		int fwd;
		uint64_t mb, c;
		size_t ix;
		double st0;
		op_at(sm->p, sm->m, sm->v, s, i, &fwd, &mb, &c);
		ix = at3(sm, s, mb, c);
		st0 = fwd ? sm->start_f[ix] : sm->start_b[ix];
		ev(em, s, DC_TRACK_COMPUTE, t, st0 - t, "pipeline bubble");
		emit_op(em, &x->k, s, rep_stage(x, s), mb, c, !fwd, st0);
		t = fwd ? sm->end_f[ix] : sm->end_b[ix];
		/* the send to the neighbour, on its own stream */
		if (sm->p > 1 && x->k.send_s > 0) {
			int sends = fwd ? (s + 1 < sm->p || c + 1 < sm->v) : (s > 0 || c > 0);
			if (sends)
				ev(em, s, DC_TRACK_PP, t, x->k.send_s, "%s mb %llu chunk %llu send to stage %llu",
				   fwd ? "activations" : "gradients", (unsigned long long)mb, (unsigned long long)c,
				   (unsigned long long)(fwd ? (s + 1) % sm->p : (s + sm->p - 1) % sm->p));
		}
	}
	stage_sync(x, st, &tail, &pen, &hid);
	ev(em, s, DC_TRACK_COMPUTE, t, pen, "backward slowed by overlapped dp buckets");
	t += pen;
	if (x->k.ov_dp) {
		/* the buckets of the last microbatch's backward, as they come */
		const struct dc_step_buckets *b = &x->dp.last;
		double busy = 0, wstart = end - st->bwd_s;
		uint64_t cum = 0, idx = 0;
		for (uint64_t g = 0; g < b->ngroups && !em->rc; g++)
			for (uint64_t j = 0; j < b->n[g] && !em->rc; j++, idx++) {
				double ready;
				cum += b->bytes[g];
				ready = wstart + st->bwd_s * (double)cum / (double)b->total_bytes;
				if (busy < ready)
					busy = ready;
				ev(em, s, DC_TRACK_DP, busy, b->call_s[g], "dp bucket %llu %s", (unsigned long long)idx,
				   p->layout.sharding == DC_SHARD_NONE ? "all_reduce" : "reduce_scatter");
				busy += b->call_s[g];
			}
	} else {
		ev(em, s, DC_TRACK_DP, t, tail, "dp gradient buckets (not overlapped)");
	}
	ev(em, s, DC_TRACK_COMPUTE, t, tail, "wait: dp gradient buckets' tail");
	t += tail;
	ev(em, s, DC_TRACK_COMPUTE, t, sync - t, "wait: gradient sync with the slowest stage");
	t = sync;
	ev(em, s, DC_TRACK_COMPUTE, t, opt, "optimizer step");
	t += opt;
	ev(em, s, DC_TRACK_COMPUTE, t, x->dp.post_s, "wait: updated params all_gather");
	ev(em, s, DC_TRACK_DP, t, x->dp.post_s, "dp updated params all_gather");
	t += x->dp.post_s;
	ev(em, s, DC_TRACK_COMPUTE, t, step - t, "wait: the slowest rank");
}

int dc_step_timeline(const struct dc_plan *p, const struct dc_compute *c, const struct dc_comm *comm,
		     const struct dc_flops *f, const struct dc_batch *b, struct dc_step *s,
		     int (*want)(void *ctx, uint64_t stage), dc_step_event_fn emit, void *ctx,
		     const char **error)
{
	struct step_ctx x;
	struct sim sm;
	uint64_t pp = p->layout.pp, v = p->v, critical = 0;
	double span = 0, fill = 0, *end;
	struct dc_step_stage st;
	int rc;

	step_header(p, c, s);
	if (!c->available)
		return 0;
	ctx_init(&x, p, c, comm);
	if (sim_alloc(&sm, pp, x.k.m, v) != 0) {
		*error = "out of memory";
		return -1;
	}
	end = dc_calloc((size_t)pp, sizeof(double));
	if (!end) {
		sim_free(&sm);
		*error = "out of memory";
		return -1;
	}
	for (uint64_t r = 0; r < pp; r++) {
		uint64_t rep = rep_stage(&x, r);
		for (uint64_t ch = 0; ch < v; ch++) {
			struct cost o;
			chunk_cost(&x.k, rep, ch, 0, &o);
			sm.op_f[r * v + ch] = o.dur;
			chunk_cost(&x.k, rep, ch, 1, &o);
			sm.op_b[r * v + ch] = o.dur;
		}
	}
	rc = sim_run(&sm, x.k.send_s, end, &span);
	if (rc != 0) {
		free(end);
		sim_free(&sm);
		*error = rc == -1 ? "out of memory" : "the pipeline schedule deadlocks (a bug)";
		return -1;
	}
	/* the critical stage: the closed form's, its fill from the simulation */
	pipe_closed(&x, ctx_run, x.nruns, pp, x.k.m, v, x.k.send_s, &critical, &fill);
	fill = sm.start_f[at3(&sm, critical, 0, 0)];
	compose(&x, c, f, b, span, critical, fill, end, s);
	rc = 0;
	if (emit) {
		struct emitter em = {emit, ctx, 0, {0}};
		double sync = s->time_s - x.dp.post_s;
		double opt_max = 0;
		for (uint64_t r = 0; r < pp; r++) {
			double o = c->optimizer_s[dc_plan_stage_segment(p, r)];
			if (o > opt_max)
				opt_max = o;
		}
		sync -= opt_max;
		for (uint64_t r = 0; r < pp && !em.rc; r++) {
			if (want && !want(ctx, r))
				continue;
			st = *ops_of(&x, r);
			emit_stage(&em, &x, &sm, r, &st, end[r], sync, c->optimizer_s[dc_plan_stage_segment(p, r)],
				   s->time_s);
		}
		rc = em.rc;
	}
	free(end);
	sim_free(&sm);
	return rc;
}
