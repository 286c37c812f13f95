/* whatif.c - the what-if scenarios and the straggler simulation; see
 * whatif.h and docs/whatif.md. Every scenario runs the estimators on a
 * modified copy of the input (a slower NIC, another FSDP unit, a wider
 * expert) or of a result (a delay added to one stage's forward, an
 * AlltoAll re-priced for more bytes); nothing here models time itself. */
#include "distcalc/whatif.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "distcalc/axis.h"
#include "distcalc/net.h"
#include "distcalc/params.h"
#include "distcalc/rng.h"

static const char *const scenario_names[DC_WHATIF_COUNT] = {
	"slow_network", "slow_data_rank", "whole_model_allgather", "checkpoint_save_peak", "expert_imbalance",
	"stragglers",
};

const char *dc_whatif_scenario_name(enum dc_whatif_scenario s)
{
	return (unsigned)s < DC_WHATIF_COUNT ? scenario_names[s] : "?";
}

/* what each strategy's collectives are, for the details */
static const char *const strat_comm[DC_STRAT_COUNT] = {
	"communication per step: DP gradient sync",
	"communication per step: FSDP gathers and reduce-scatters",
	"communication per step: TP collectives",
	"communication per step: PP sends",
	"communication per step: EP AlltoAll",
	"communication per step: CP K/V exchange",
};

static void detail(struct dc_whatif *w, enum dc_whatif_scenario s, const char *what, enum dc_whatif_unit u,
		   double baseline, double value)
{
	struct dc_whatif_detail *d;
	if (w->ndetails >= DC_WHATIF_MAX_DETAILS)
		return;
	d = &w->detail[w->ndetails++];
	d->scenario = s;
	d->what = what;
	d->unit = u;
	d->baseline = baseline;
	d->value = value;
}

static void scn_set(struct dc_whatif_scn *s, enum dc_whatif_unit u, double baseline, double value)
{
	s->available = 1;
	s->missing = NULL;
	s->unit = u;
	s->baseline = baseline;
	s->value = value;
}

/* The class of the step's critical stage. */
static const struct dc_step_class *critical_class(const struct dc_step *st)
{
	for (uint64_t i = 0; i < st->nclasses; i++)
		if (st->classes[i].stage_first <= st->critical_stage && st->critical_stage <= st->classes[i].stage_last)
			return &st->classes[i];
	return st->nclasses ? &st->classes[0] : NULL;
}

/* One strategy's exposed communication on the critical stage. */
static double exposed_of(const struct dc_step *st, int strat)
{
	const struct dc_step_class *c = critical_class(st);
	return c ? c->exposed_s[strat] : 0;
}

static double compute_of(const struct dc_step *st)
{
	const struct dc_step_class *c = critical_class(st);
	return c ? c->compute_s : 0;
}

/* Communication on the critical path of the step: every strategy's
 * exposed part on the critical stage. */
static double exposed_comm(const struct dc_step *st)
{
	const struct dc_step_class *c = critical_class(st);
	double t = 0;
	if (!c)
		return 0;
	for (int i = 0; i < DC_STRAT_COUNT; i++)
		t += c->exposed_s[i];
	return t;
}

/* Derives w->plan from w->cfg and runs the estimators in `needs`. */
static int run_copy(struct dc_whatif *w, uint32_t needs, const char **error)
{
	if (dc_plan_derive(&w->cfg, &w->plan) != 0) {
		*error = w->plan.error;
		return -1;
	}
	memset(&w->res, 0, sizeof(w->res));
	if (dc_estimate(&w->plan, needs, &w->res) != 0) {
		*error = w->res.error;
		return -1;
	}
	return 0;
}

#define STEP_NEEDS (DC_EST_BIT(DC_EST_STEP) | DC_EST_BIT(DC_EST_COMM) | DC_EST_BIT(DC_EST_MEMORY))

/* the results the step estimator reads (its row's needs) */
#define STEP_INPUTS                                                                                          \
	(DC_EST_BIT(DC_EST_COMPUTE) | DC_EST_BIT(DC_EST_COMM) | DC_EST_BIT(DC_EST_FLOPS) | DC_EST_BIT(DC_EST_BATCH))

/* Copies the input's step inputs (`res`) into w->res, for a scenario to
 * perturb one of them before step_with_held. */
static void hold_step_inputs(struct dc_whatif *w, const struct dc_results *res)
{
	w->res.compute = res->compute;
	w->res.comm = res->comm;
	w->res.flops = res->flops;
	w->res.batch = res->batch;
}

/* The step of the base plan from the inputs held in w->res, perturbed as
 * the scenario says: the estimator table's step row, none of its inputs
 * recomputed. */
static int step_with_held(const struct dc_plan *base, struct dc_whatif *w, const char **error)
{
	if (dc_estimate_with(base, DC_EST_BIT(DC_EST_STEP), STEP_INPUTS, &w->res) != 0) {
		*error = w->res.error;
		return -1;
	}
	return 0;
}

/* ---- slow_network ---- */

/* The nccl-tests all_reduce_perf busbw at collective.max_bytes between
 * the slowed node and its neighbour (every GPU of both). */
static double nccl_busbw(const struct dc_net *net, const struct dc_config *in, uint64_t node)
{
	struct dc_net_group g;
	struct dc_net_choice ch;
	uint64_t gpn = in->cluster.gpus_per_node, first = node + 1 < in->cluster.num_nodes ? node : node - 1;
	dc_net_group_ranks(net, first * gpn, 1, 2 * gpn, &g);
	if (dc_net_time(net, DC_COLL_ALL_REDUCE, &g, in->collective.max_bytes, DC_NET_ALGO_AUTO, &ch) != 0)
		return 0;
	return ch.busbw_bytes_per_s;
}

static int slow_network(const struct dc_plan *base, const struct dc_results *res, struct dc_whatif *w,
			const char **error)
{
	const struct dc_config *in = base->in;
	struct dc_whatif_scn *s = &w->scn[DC_WHATIF_SLOW_NETWORK];
	enum dc_whatif_scenario id = DC_WHATIF_SLOW_NETWORK;

	w->node = in->whatif.slow_node;
	w->all_links = in->whatif.slow_all_links;
	w->factor = in->whatif.slow_factor;
	s->phase = "every collective between nodes: the gradient sync in the backward first";
	s->rank_first = w->all_links ? 0 : w->node * in->cluster.gpus_per_node;
	s->rank_last = w->all_links ? base->world - 1 : s->rank_first + in->cluster.gpus_per_node - 1;
	if (in->cluster.num_nodes < 2) {
		s->missing = "cluster.num_nodes is 1: no link between nodes to slow";
		return 0;
	}
	/* a collective runs at its slowest link and every rank meets at the
	 * sync, so one slow node prices every group through it at the factor:
	 * every axis's groups include one through the node */
	w->cfg = *in;
	w->cfg.cluster.inter_node.bw_bytes_per_s *= w->factor;
	if (run_copy(w, STEP_NEEDS, error) != 0)
		return -1;
	for (int i = 0; i < DC_STRAT_COUNT; i++)
		if (res->comm.s[i].in_play && w->res.comm.s[i].time_s != res->comm.s[i].time_s)
			detail(w, id, strat_comm[i], DC_WHATIF_SECONDS, res->comm.s[i].time_s, w->res.comm.s[i].time_s);
	detail(w, id, "nccl-tests all_reduce_perf busbw over the slowed node and its neighbour (all their GPUs) at collective.max_bytes",
	       DC_WHATIF_BYTES_PER_S, nccl_busbw(&base->net, in, w->node), nccl_busbw(&w->plan.net, in, w->node));
	if (!res->step.available) {
		s->missing = res->step.missing;
		return 0;
	}
	detail(w, id, "exposed communication per step (critical stage)", DC_WHATIF_SECONDS, exposed_comm(&res->step),
	       exposed_comm(&w->res.step));
	scn_set(s, DC_WHATIF_SECONDS, res->step.time_s, w->res.step.time_s);
	return 0;
}

/* ---- slow_data_rank ---- */

static int slow_data_rank(const struct dc_plan *base, const struct dc_results *res, struct dc_whatif *w,
			  const char **error)
{
	const struct dc_config *in = base->in;
	struct dc_whatif_scn *s = &w->scn[DC_WHATIF_SLOW_DATA_RANK];
	uint64_t coord[DC_AXIS_COUNT], pp = base->layout.pp;
	/* the microbatches the rank reads data for: m (under DualPipe an end
	 * rank reads the inputs of one direction's m / 2 and the labels of
	 * the other's: deepseek-ai/DualPipe examples/example_dualpipe.py) */
	double d = in->whatif.data_delay_s, m = (double)base->layout.grad_accum_steps;
	int dual = dc_pipeline_schedule(base) == DC_PIPE_DUALPIPE;
	/* DualPipeV's rank r holds stages r and 2 pp - 1 - r: rank 0 the
	 * first (its inputs) and the last (its labels), each microbatch's
	 * batch read once; every other rank reads none */
	int vshape = dc_pipeline_schedule(base) == DC_PIPE_DUALPIPEV;
	struct dc_compute *c = &w->res.compute;

	w->slow_rank = in->whatif.data_rank;
	w->world = base->world;
	dc_topology_coords(&base->topo, w->slow_rank, coord);
	w->slow_stage = coord[DC_AXIS_PP];
	w->slow_reads_none = vshape ? w->slow_stage != 0 : w->slow_stage != 0 && w->slow_stage + 1 != pp;
	w->replica_stride = 0;
	s->rank_first = s->rank_last = w->slow_rank;
	s->phase = "its forward waits for data; its tp, cp and pp groups' ranks wait in those collectives, the other "
		   "replicas at the gradient sync";
	if (!res->step.available) {
		s->missing = res->step.missing;
		return 0;
	}
	if (w->slow_reads_none) {
		s->missing = vshape ? "the rank holds two middle pipeline stages under DualPipeV (pp rank 0 holds the "
				      "first and the last), which read no batch: the delay cannot reach it"
				    : "the rank is on a middle pipeline stage, which reads no batch (Megatron-LM's get_batch "
				      "runs on the first and last stages): the delay cannot reach it";
		return 0;
	}
	/* the input's step inputs, the delay added to the forward of the
	 * slow rank's embedding (first stage) or head (last stage): the step
	 * again */
	hold_step_inputs(w, res);
	if (dual) {
		/* an end rank holds stage 0 (its inputs) and stage pp - 1 (its
		 * labels), each run m / 2 times; the two end ranks' kernels
		 * are the same stages', so both wait alike */
		c->embedding.fwd_s += d;
		c->head.fwd_s += d;
	} else if (w->slow_stage == 0) {
		/* (DualPipeV: the batch of inputs and labels read once, before
		 * the embedding's forward) */
		c->embedding.fwd_s += d;
	} else {
		c->head.fwd_s += d;
	}
	if (step_with_held(base, w, error) != 0)
		return -1;
	w->data_wait_s = m * d;
	w->sync_wait_s = w->res.step.time_s - res->step.time_s;
	detail(w, DC_WHATIF_SLOW_DATA_RANK, "the slow rank's data wait per step (delay x microbatches)",
	       DC_WHATIF_SECONDS, 0, w->data_wait_s);
	detail(w, DC_WHATIF_SLOW_DATA_RANK, "the step's growth: what every other rank waits for it",
	       DC_WHATIF_SECONDS, 0, w->sync_wait_s);
	scn_set(s, DC_WHATIF_SECONDS, res->step.time_s, w->res.step.time_s);
	return 0;
}

/* ---- whole_model_allgather ---- */

/* A ledger's training peak: the highest of its phases but the checkpoint
 * save (checkpoint_save_peak's), and in *phase which */
static uint64_t training_peak(const struct dc_mem_ledger *l, enum dc_mem_phase *phase)
{
	uint64_t best = 0;
	*phase = DC_MEM_FORWARD;
	for (int ph = 0; ph < DC_MEM_PHASE_COUNT; ph++)
		if (ph != DC_MEM_CHECKPOINT && l->phase_bytes[ph] > best) {
			best = l->phase_bytes[ph];
			*phase = (enum dc_mem_phase)ph;
		}
	return best;
}

static int whole_model(const struct dc_plan *base, struct dc_whatif *w, const char **error)
{
	const struct dc_config *in = base->in;
	struct dc_whatif_scn *s = &w->scn[DC_WHATIF_WHOLE_MODEL_ALLGATHER];
	enum dc_whatif_scenario id = DC_WHATIF_WHOLE_MODEL_ALLGATHER;
	double peak[2], step[2], exposed[2], fsdp[2];
	int avail = 1;

	s->rank_first = 0;
	s->rank_last = base->world - 1;
	if (base->dp_cp < 2) {
		s->missing = "parallel.dp is 1: FSDP has nothing to shard or gather";
		return 0;
	}
	for (int k = 0; k < 2; k++) {
		w->cfg = *in;
		w->cfg.parallel.sharding = DC_SHARD_FSDP;
		w->cfg.parallel.fsdp_unit = k ? DC_FSDP_UNIT_MODEL : DC_FSDP_UNIT_LAYER;
		if (run_copy(w, STEP_NEEDS, error) != 0)
			return -1;
		/* the training step's peak: the checkpoint save phase is
		 * checkpoint_save_peak's, and where it is the peak (a full
		 * save gathered on the GPU) it hid this fault (a trial: 106.5
		 * GiB either way) */
		peak[k] = (double)training_peak(&w->res.memory.top, &w->wm_phase[k]);
		fsdp[k] = w->res.comm.s[DC_STRAT_FSDP].time_s;
		avail = avail && w->res.step.available;
		step[k] = w->res.step.available ? w->res.step.time_s : 0;
		exposed[k] = w->res.step.available ? exposed_of(&w->res.step, DC_STRAT_FSDP) : 0;
		if (!w->res.step.available)
			s->missing = w->res.step.missing;
	}
	s->phase = dc_mem_phase_name(w->wm_phase[1]);
	detail(w, id, "FSDP communication per step (nothing overlapped)", DC_WHATIF_SECONDS, fsdp[0], fsdp[1]);
	if (avail) {
		detail(w, id,
		       base->layout.pp > 1 ? "exposed FSDP communication per step (under the pipeline: one gather a step)"
					   : "exposed FSDP communication per step (the prefetch overlap lost)",
		       DC_WHATIF_SECONDS, exposed[0], exposed[1]);
		detail(w, id, "step time", DC_WHATIF_SECONDS, step[0], step[1]);
	}
	scn_set(s, DC_WHATIF_BYTES, peak[0], peak[1]);
	return 0;
}

/* ---- checkpoint_save_peak ---- */

static void checkpoint_peak(const struct dc_plan *base, const struct dc_results *res, struct dc_whatif *w)
{
	struct dc_whatif_scn *s = &w->scn[DC_WHATIF_CHECKPOINT_SAVE_PEAK];
	const struct dc_mem_ledger *l = &res->memory.top;
	enum dc_mem_phase train_phase;
	uint64_t train = training_peak(l, &train_phase), first, last;
	dc_plan_class_stages(base, res->memory.most_loaded, &first, &last);
	(void)last;
	s->rank_first = s->rank_last = first * base->topo.stride[DC_AXIS_PP];
	s->phase = "checkpoint_save";
	detail(w, DC_WHATIF_CHECKPOINT_SAVE_PEAK,
	       base->in->checkpoint.format != DC_CKPT_FULL
		       ? "the save phase against the optimizer step: a sharded save adds nothing on the GPU"
	       : base->in->checkpoint.gather == DC_CKPT_GATHER_GPU
		       ? "the save phase against the optimizer step: the stage's full state dict kept on the GPU"
		       : "the save phase against the optimizer step: the largest gathered tensor",
	       DC_WHATIF_BYTES, (double)l->phase_bytes[DC_MEM_OPTIMIZER], (double)l->phase_bytes[DC_MEM_CHECKPOINT]);
	scn_set(s, DC_WHATIF_BYTES, (double)train, (double)l->phase_bytes[DC_MEM_CHECKPOINT]);
}

/* ---- expert_imbalance ---- */

static int expert_imbalance(const struct dc_plan *base, const struct dc_results *res, struct dc_whatif *w,
			    const char **error)
{
	const struct dc_config *in = base->in;
	struct dc_whatif_scn *s = &w->scn[DC_WHATIF_EXPERT_IMBALANCE];
	enum dc_whatif_scenario id = DC_WHATIF_EXPERT_IMBALANCE;
	double E = (double)in->model.num_experts, ep = (double)base->ep, imb = in->whatif.expert_imbalance;
	struct dc_comm_strategy *e;
	struct dc_work_time hot;
	double f;

	s->rank_first = s->rank_last = 0;
	s->phase = "forward and backward: the MoE layers' experts and their AlltoAlls";
	if (!in->model.num_experts || !dc_params_moe_layers(&in->model)) {
		s->missing = "model.num_experts: a dense model has no experts to load unevenly";
		return 0;
	}
	/* the hot rank's E / ep local experts: the busiest at imb x the
	 * uniform share, the others at it (known without a step time) */
	w->load_factor = 1.0 + (imb - 1.0) * ep / E;
	if (!res->step.available) {
		s->missing = res->step.missing;
		return 0;
	}
	/* its expert MLPs run load_factor x the tokens: as wide experts */
	w->cfg = *in;
	f = round((double)in->model.moe_ffn_hidden_size * w->load_factor);
	w->cfg.model.moe_ffn_hidden_size = (uint64_t)f;
	if (run_copy(w, DC_EST_BIT(DC_EST_COMPUTE), error) != 0)
		return -1;
	hot = w->res.compute.moe_layer;
	/* the input's step inputs, its MoE layer the hot rank's ... */
	hold_step_inputs(w, res);
	w->res.compute.moe_layer = hot;
	/* ... and its AlltoAlls receiving load_factor x the bytes */
	e = &w->res.comm.s[DC_STRAT_EP];
	e->time_s = 0;
	e->bytes_per_rank = 0;
	for (uint64_t i = 0; i < e->ncoll; i++) {
		struct dc_coll *k = &e->coll[i];
		struct dc_net_choice ch;
		uint64_t bytes = (uint64_t)round((double)k->msg_bytes * w->load_factor);
		if (dc_net_time(e->net, k->kind, dc_axis_ep_row_group(base, k), bytes, DC_NET_ALGO_AUTO, &ch) == 0)
			k->time_s = (double)k->count * ch.time_s;
		k->bytes_per_rank = (uint64_t)round((double)k->bytes_per_rank * w->load_factor);
	}
	/* DeepEP's pairs (ep.c deepep_push: the network row, then the NVLink
	 * row of the same call) take the longer of the two again */
	for (uint64_t i = 0; i + 1 < e->ncoll; i++)
		if (dc_axis_ep_keep_longer(base, &e->coll[i], &e->coll[i + 1]))
			i++;
	for (uint64_t i = 0; i < e->ncoll; i++) {
		e->time_s += e->coll[i].time_s;
		e->bytes_per_rank += e->coll[i].bytes_per_rank;
	}
	detail(w, id, "one MoE layer, forward + backward, one microbatch", DC_WHATIF_SECONDS,
	       res->compute.moe_layer.fwd_s + res->compute.moe_layer.bwd_s, hot.fwd_s + hot.bwd_s);
	detail(w, id, strat_comm[DC_STRAT_EP], DC_WHATIF_SECONDS, res->comm.s[DC_STRAT_EP].time_s, e->time_s);
	if (step_with_held(base, w, error) != 0)
		return -1;
	scn_set(s, DC_WHATIF_SECONDS, res->step.time_s, w->res.step.time_s);
	return 0;
}

/* ---- stragglers ---- */

/* P(Z > x) */
static double upper_tail(double x)
{
	return 0.5 * erfc(x / sqrt(2.0));
}

double dc_whatif_normal_upper_quantile(double q)
{
	double lo = -40, hi = 40;
	/* upper_tail falls with x: bisection to the last bit */
	for (int i = 0; i < 200 && hi - lo > 1e-14; i++) {
		double mid = 0.5 * (lo + hi);
		if (upper_tail(mid) > q)
			lo = mid;
		else
			hi = mid;
	}
	return 0.5 * (lo + hi);
}

/* log P(max of n <= x) = n log Phi(x) */
static double log_cdf_max(uint64_t n, double x)
{
	double lphi = x < 0 ? log(0.5 * erfc(-x / sqrt(2.0))) : log1p(-upper_tail(x));
	return (double)n * lphi;
}

double dc_whatif_expected_max_normal(uint64_t n)
{
	/* E[X] = int_0^inf (1 - F(x)) dx - int_-inf^0 F(x) dx, F = Phi^n:
	 * trapezoids of 1/1000 over [0, 12] and [-12, 0] */
	const double h = 1e-3;
	double pos = 0, neg = 0;
	if (n <= 1)
		return 0;
	for (int i = 0; i <= 12000; i++) {
		double wgt = i == 0 || i == 12000 ? 0.5 : 1.0;
		pos += wgt * -expm1(log_cdf_max(n, i * h));
		neg += wgt * exp(log_cdf_max(n, -i * h));
	}
	return (pos - neg) * h;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static void stragglers(const struct dc_plan *base, const struct dc_results *res, uint64_t seed, struct dc_whatif *w)
{
	const struct dc_config *in = base->in;
	struct dc_whatif_stragglers *g = &w->strag;
	struct dc_whatif_scn *s = &w->scn[DC_WHATIF_STRAGGLERS];
	static const uint64_t sizes[] = {1, 2, 8, 64, 512, 4096, 32768, 262144, 2097152, 16777216};
	uint64_t n = base->world, steps = in->whatif.steps;
	double cv = in->training.jitter, step0, comp, sum = 0;
	struct dc_rng rng;
	int put_world = 0;

	g->jitter = cv;
	g->steps = steps;
	g->seed = seed;
	s->rank_first = 0;
	s->rank_last = n - 1;
	s->phase = "every rank's forward and backward; the slowest sets the gradient sync";
	if (!res->step.available) {
		s->missing = res->step.missing;
		return;
	}
	step0 = res->step.time_s;
	comp = compute_of(&res->step);
	g->available = 1;
	g->compute_s = comp;
	/* blocks of ceil(n / cap) ranks, as many as cover the n ranks: 68
	 * ranks are 34 blocks of 2, not 64 (the last 30 would start past
	 * the world) */
	g->block_ranks = (n + DC_WHATIF_SLOWEST_CAP - 1) / DC_WHATIF_SLOWEST_CAP;
	g->nblocks = (n + g->block_ranks - 1) / g->block_ranks;
	dc_rng_seed(&rng, seed);
	for (uint64_t k = 0; k < steps; k++) {
		/* the largest of n draws: its upper tail q solves
		 * 1 - (1 - q)^n = 1 - u, so q = 1 - u^(1/n); u in (0, 1) */
		double u = ((double)(dc_rng_next(&rng) >> 11) + 0.5) * 0x1.0p-53;
		double q = -expm1(log(u) / (double)n), z = dc_whatif_normal_upper_quantile(q);
		/* S - C + C max(0, 1 + J z), written as S + C max(-1, J z):
		 * exactly the step S when J is 0 */
		double t = step0 + comp * fmax(-1.0, cv * z);
		/* which rank: iid draws, so each is the largest equally
		 * often; with no jitter every rank takes the same time and
		 * none is the slowest */
		uint64_t r = dc_rng_range(&rng, 0, n - 1);
		if (cv > 0)
			g->slowest[r / g->block_ranks]++;
		w->samples[k] = t;
		sum += t - step0;
	}
	/* the mean as the step and the mean of each step's departure from
	 * it: a thousand equal steps (no jitter) sum to exactly their
	 * step's mean, not to one rounded a thousand times */
	g->mean_s = step0 + sum / (double)steps;
	qsort(w->samples, steps, sizeof(w->samples[0]), cmp_double);
	g->p50_s = w->samples[(steps + 1) / 2 - 1];
	g->p99_s = w->samples[(uint64_t)ceil(0.99 * (double)steps) - 1];
	g->max_s = w->samples[steps - 1];
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]) && g->nscale < DC_WHATIF_SCALE_ROWS; i++) {
		uint64_t r = sizes[i];
		if (!put_world && n <= r) {
			if (n < r)
				i--;
			r = n;
			put_world = 1;
		}
		g->scale[g->nscale].ranks = r;
		g->scale[g->nscale].expected_max_z = dc_whatif_expected_max_normal(r);
		g->scale[g->nscale].step_s = step0 + comp * cv * g->scale[g->nscale].expected_max_z;
		g->scale[g->nscale].over_mean = g->scale[g->nscale].step_s / step0;
		g->nscale++;
	}
	scn_set(s, DC_WHATIF_SECONDS, step0, g->mean_s);
}

int dc_whatif_compute(const struct dc_plan *base, const struct dc_results *res, uint64_t seed, struct dc_whatif *w,
		      const char **error)
{
	memset(w->scn, 0, sizeof(w->scn));
	memset(&w->strag, 0, sizeof(w->strag));
	w->ndetails = 0;
	w->load_factor = 1;
	for (int i = 0; i < DC_WHATIF_COUNT; i++)
		w->scn[i].missing = "not run";
	w->failed = DC_WHATIF_SLOW_NETWORK;
	if (slow_network(base, res, w, error) != 0)
		return -1;
	w->failed = DC_WHATIF_SLOW_DATA_RANK;
	if (slow_data_rank(base, res, w, error) != 0)
		return -1;
	w->failed = DC_WHATIF_WHOLE_MODEL_ALLGATHER;
	if (whole_model(base, w, error) != 0)
		return -1;
	checkpoint_peak(base, res, w);
	w->failed = DC_WHATIF_EXPERT_IMBALANCE;
	if (expert_imbalance(base, res, w, error) != 0)
		return -1;
	stragglers(base, res, seed, w);
	return 0;
}
