/* sec_whatif.c - the whatif section: each injected fault against the
 * baseline, the metric to watch and the experiment that would prove the
 * diagnosis wrong; the stragglers (whatif.h, docs/whatif.md). */
#include <math.h>
#include <stddef.h>
#include <stdio.h>

#include "distcalc/framework.h"
#include "distcalc/plan.h"
#include "distcalc/results.h"
#include "distcalc/section.h"
#include "distcalc/whatif.h"

struct view {
	const struct dc_plan *plan;
	const struct dc_whatif *w;
	int strag_available;
	const char *strag_missing;
	double jitter;
	uint64_t steps, seed;
	double compute_s, mean_s, p50_s, p99_s, max_s;
	/* the unit of the times in the scenarios' and the details' baseline
	 * and changed columns, one a table: dc_fmt_time_unit */
	const char *scn_tunit, *detail_tunit;
	double scn_tmult, detail_tmult;
};

static double larger(double a, double b)
{
	return fabs(b) > a ? fabs(b) : a;
}

static void view(const struct dc_run *run, void *out)
{
	struct view *v = out;
	const struct dc_whatif *w = run->whatif;
	double scn_max = 0, detail_max = 0;
	v->plan = run->plan;
	v->w = w;
	if (!w)
		return;
	/* baseline and changed are one quantity compared, so the larger of
	 * the two columns' times picks their unit, as a table picks a
	 * column's */
	for (size_t i = 0; i < DC_WHATIF_COUNT; i++)
		if (w->scn[i].available && w->scn[i].unit == DC_WHATIF_SECONDS)
			scn_max = larger(larger(scn_max, w->scn[i].baseline), w->scn[i].value);
	for (size_t i = 0; i < w->ndetails; i++)
		if (w->detail[i].unit == DC_WHATIF_SECONDS)
			detail_max = larger(larger(detail_max, w->detail[i].baseline), w->detail[i].value);
	v->scn_tunit = dc_fmt_time_unit(scn_max, &v->scn_tmult);
	v->detail_tunit = dc_fmt_time_unit(detail_max, &v->detail_tmult);
	v->strag_available = w->strag.available;
	v->strag_missing = w->scn[DC_WHATIF_STRAGGLERS].missing;
	v->jitter = w->strag.jitter;
	v->steps = w->strag.steps;
	v->seed = w->strag.seed;
	v->compute_s = w->strag.compute_s;
	v->mean_s = w->strag.mean_s;
	v->p50_s = w->strag.p50_s;
	v->p99_s = w->strag.p99_s;
	v->max_s = w->strag.max_s;
}

/* ---- the scenarios ---- */

static const char *const metric[DC_WHATIF_COUNT] = {
	"step time", "step time", "peak memory per rank", "peak memory per rank (save phase against training)",
	"step time", "mean step time over whatif.steps",
};

static const char *const falsify[DC_WHATIF_COUNT] = {
	"Run nccl-tests all_reduce_perf across the cluster's nodes (-b 8 -e 8G -f 2, one process per GPU): a busbw at the "
	"baseline figure, not the changed one, clears the network; then the profiler's exposed NCCL time in a step "
	"should not have grown.",
	"Replace the slow rank's DataLoader with batches already in GPU memory (or time the loader alone there): if "
	"the step and the other ranks' wait in the gradient AllReduce do not shrink, data loading is not the cause.",
	"Wrap FSDP per transformer block (auto_wrap_policy) and record torch.cuda.max_memory_allocated and the "
	"AllGather sizes in a profile: if the peak and the step stay where they were, the whole-model gather is not "
	"the cause.",
	"Record torch.cuda.max_memory_allocated over a step that saves and one that does not: if the saving step's "
	"peak is not the higher, or the OOM comes outside the save, the checkpoint is not the cause.",
	"Log the router's tokens per expert each step: a busiest share near uniform, or equal MoE layer times on "
	"every EP rank (CUDA events), rules out expert load.",
	"Time each rank's forward and backward with CUDA events for 1000 steps: if the slowest rank is not above the "
	"mean by about jitter x E[max] x compute, or the same rank is always the slowest (a fixed cause), the jitter "
	"model is wrong.",
};

struct scn_row {
	const char *name;
	char change[600];
	const char *metric;
	const char *unit;
	double baseline, value, ratio;
	char hits[200];
	const char *falsify;
	const char *missing;
	int available, has_ratio;
	enum dc_whatif_unit u;
	const char *tunit;
	double tmult;
};

static const char *unit_name(enum dc_whatif_unit u)
{
	return u == DC_WHATIF_BYTES ? "B" : u == DC_WHATIF_BYTES_PER_S ? "B/s" : "s";
}

/* A what-if number as the tables show numbers of its unit, with three
 * decimals: bytes in GiB, rates in GB/s, seconds in the unit `tunit`
 * (x tmult) that the table's times share (view). */
static void shown(char *buf, size_t len, enum dc_whatif_unit u, double v, const char *tunit, double tmult)
{
	if (u == DC_WHATIF_BYTES)
		snprintf(buf, len, "%.3f GiB", v / (1024.0 * 1024.0 * 1024.0));
	else if (u == DC_WHATIF_BYTES_PER_S)
		snprintf(buf, len, "%.3f GB/s", v / 1e9);
	else
		snprintf(buf, len, "%.3f %s", v * tmult, tunit);
}

static uint64_t scn_count(const void *base)
{
	return ((const struct view *)base)->w ? DC_WHATIF_COUNT : 0;
}

static void change_text(const struct view *v, enum dc_whatif_scenario s, char *buf, size_t len)
{
	const struct dc_config *in = v->plan->in;
	const struct dc_whatif *w = v->w;
	switch (s) {
	case DC_WHATIF_SLOW_NETWORK:
		if (in->cluster.num_nodes < 2)
			/* nothing to slow (its `missing` says so; a trial read
			 * "node 0's NICs at 0.5" beside it) */
			snprintf(buf, len, "nothing slowed: one node, no link between nodes");
		else if (w->all_links)
			snprintf(buf, len, "every link between nodes at %g of its bandwidth (%.3f of %.3f GB/s per NIC)",
				 w->factor, in->cluster.inter_node.bw_bytes_per_s * w->factor / 1e9,
				 in->cluster.inter_node.bw_bytes_per_s / 1e9);
		else
			snprintf(buf, len, "node %llu's NICs at %g of their bandwidth (%.3f of %.3f GB/s per NIC)",
				 (unsigned long long)w->node, w->factor,
				 in->cluster.inter_node.bw_bytes_per_s * w->factor / 1e9,
				 in->cluster.inter_node.bw_bytes_per_s / 1e9);
		break;
	case DC_WHATIF_SLOW_DATA_RANK:
		if (w->slow_reads_none) {
			/* a middle stage reads no batch: nothing is injected */
			snprintf(buf, len, "nothing injected: rank %llu, on a middle pipeline stage, reads no batch to wait for",
				 (unsigned long long)in->whatif.data_rank);
			break;
		}
		snprintf(buf, len, "rank %llu waits %g s for data before each of its %llu microbatches' forward%s",
			 (unsigned long long)in->whatif.data_rank, in->whatif.data_delay_s,
			 (unsigned long long)v->plan->layout.grad_accum_steps,
			 dc_pipeline_schedule(v->plan) == DC_PIPE_DUALPIPE
				 ? " (DualPipe: the inputs of one direction's half, the labels of the other's; the delay "
				   "is priced on the kernels of the stages it reads for, which the other end rank runs too, "
				   "so both end ranks wait alike)"
				 : "");
		break;
	case DC_WHATIF_WHOLE_MODEL_ALLGATHER:
		if (v->plan->layout.sharding != DC_SHARD_FSDP)
			/* both figures are FSDP's: a run that shards otherwise is
			 * neither (the summary's figures are its own); with a
			 * pipeline not a fault either (a trial: the docs' own
			 * pp 64 example lacked the caveat) */
			dc_text_fmt(buf, len, "FSDP over dp x cp = %llu with the whole model as one AllGather unit, against one "
				    "transformer layer per unit (baseline); the config shards with \"%s\", not FSDP, so "
				    "both the baseline and the changed figure are this layout's under FSDP, not the run's "
				    "(the summary has the run's)%s",
				    (unsigned long long)v->plan->dp_cp, dc_sharding_name(v->plan->layout.sharding),
				    v->plan->layout.pp > 1
					    ? "; with a pipeline every unit stays gathered from its first backward either way and "
					      "the whole-model unit is gathered once a step, so not a fault here"
					    : "");
		else if (v->plan->layout.pp > 1 && !dc_framework_reshard_after_forward(v->plan))
			/* the layer units kept gathered after forward too */
			dc_text_fmt(buf, len, "FSDP over dp x cp = %llu with the whole model as one AllGather unit, against one "
				    "transformer layer per unit (baseline); with pp %llu every unit stays gathered from its "
				    "first backward either way and no unit reshards after forward, so each is gathered once "
				    "a step: the scenario changes little",
				    (unsigned long long)v->plan->dp_cp, (unsigned long long)v->plan->layout.pp);
		else if (v->plan->layout.pp > 1)
			/* docs/memory-conventions.md, "FSDP with a pipeline" */
			dc_text_fmt(buf, len, "FSDP over dp x cp = %llu with the whole model as one AllGather unit, against one "
				    "transformer layer per unit (baseline); with pp %llu every unit stays gathered from its "
				    "first backward either way, so the peak hardly moves, and one gather a step where resharded layer "
				    "units gather 1 + m times, so not a fault here",
				    (unsigned long long)v->plan->dp_cp, (unsigned long long)v->plan->layout.pp);
		else
			dc_text_fmt(buf, len, "FSDP over dp x cp = %llu with the whole model as one AllGather unit, against one "
				    "transformer layer per unit (baseline)", (unsigned long long)v->plan->dp_cp);
		break;
	case DC_WHATIF_CHECKPOINT_SAVE_PEAK:
		if (in->checkpoint.format != DC_CKPT_FULL)
			dc_text_fmt(buf, len, "a checkpoint saved after the optimizer step (the memory ledger's "
				    "checkpoint_save phase): a sharded save writes each rank's tensors in place");
		else if (in->checkpoint.gather == DC_CKPT_GATHER_GPU)
			dc_text_fmt(buf, len, "a full state dict gathered on the GPU after the optimizer step "
				    "(checkpoint.gather \"gpu\", cpu_offload=False): every rank holds its stage's whole "
				    "states, of each state it held only part of");
		else
			dc_text_fmt(buf, len, "a full state dict gathered after the optimizer step, each tensor moved to "
				    "the host at once (checkpoint.gather \"cpu\"): the largest gathered tensor on the GPU");
		break;
	case DC_WHATIF_EXPERT_IMBALANCE:
		snprintf(buf, len, "the busiest expert takes %g x the uniform share of tokens: the ranks holding it run "
			 "%g x the expert tokens and AlltoAll bytes", in->whatif.expert_imbalance, w->load_factor);
		break;
	case DC_WHATIF_STRAGGLERS:
		snprintf(buf, len, "each rank's per-step compute drawn from a normal of coefficient of variation %g "
			 "(training.jitter) over %llu steps, seed %llu", in->training.jitter,
			 (unsigned long long)w->strag.steps, (unsigned long long)w->strag.seed);
		break;
	default:
		buf[0] = 0;
	}
}

static void scn_row(const void *base, uint64_t i, void *out)
{
	const struct view *v = base;
	const struct dc_whatif_scn *s = &v->w->scn[i];
	struct scn_row *row = out;
	row->name = dc_whatif_scenario_name((enum dc_whatif_scenario)i);
	change_text(v, (enum dc_whatif_scenario)i, row->change, sizeof(row->change));
	row->metric = metric[i];
	row->unit = unit_name(s->unit);
	row->available = s->available;
	row->missing = s->available ? NULL : s->missing;
	row->baseline = s->baseline;
	row->value = s->value;
	row->u = s->unit;
	row->tunit = v->scn_tunit;
	row->tmult = v->scn_tmult;
	row->has_ratio = s->available && s->baseline > 0;
	row->ratio = row->has_ratio ? s->value / s->baseline : 0;
	if (i == DC_WHATIF_EXPERT_IMBALANCE && !v->plan->in->model.num_experts)
		/* a dense model: no rank's experts to load (a student read
		 * "rank 0; ... the MoE layers' experts" beside n/a) */
		dc_text_fmt(row->hits, sizeof(row->hits), "%s", "none: a dense model has no experts");
	else if (i == DC_WHATIF_SLOW_DATA_RANK && v->w->slow_reads_none)
		/* a middle stage reads no batch (whatif.c): nothing waits (a
		 * user read "its tp, cp and pp groups' ranks wait" beside n/a) */
		dc_text_fmt(row->hits, sizeof(row->hits), "none: rank %llu is on pipeline rank %llu of %llu, which reads no batch",
			    (unsigned long long)s->rank_first, (unsigned long long)v->w->slow_stage,
			    (unsigned long long)v->plan->layout.pp);
	else if (i == DC_WHATIF_SLOW_NETWORK && v->plan->in->cluster.num_nodes < 2)
		dc_text_fmt(row->hits, sizeof(row->hits), "%s", "none: one node, no collective crosses a node");
	else if (i == DC_WHATIF_WHOLE_MODEL_ALLGATHER && s->available)
		dc_text_fmt(row->hits, sizeof(row->hits), "ranks %llu-%llu; the peak in the %s (per-layer units: %s)",
			    (unsigned long long)s->rank_first, (unsigned long long)s->rank_last,
			    dc_mem_phase_name(v->w->wm_phase[1]), dc_mem_phase_name(v->w->wm_phase[0]));
	else if (s->rank_first == s->rank_last)
		dc_text_fmt(row->hits, sizeof(row->hits), "rank %llu; %s", (unsigned long long)s->rank_first,
			    s->phase ? s->phase : "");
	else
		dc_text_fmt(row->hits, sizeof(row->hits), "ranks %llu-%llu; %s", (unsigned long long)s->rank_first,
			    (unsigned long long)s->rank_last, s->phase ? s->phase : "");
	row->falsify = falsify[i];
}

static int scn_unavailable(const void *base)
{
	return !((const struct scn_row *)base)->available;
}

static int scn_is_available(const void *base)
{
	return ((const struct scn_row *)base)->available;
}

static int scn_no_ratio(const void *base)
{
	return !((const struct scn_row *)base)->has_ratio;
}

static void scn_baseline_text(const void *base, char *buf, size_t len)
{
	const struct scn_row *r = base;
	shown(buf, len, r->u, r->baseline, r->tunit, r->tmult);
}

static void scn_value_text(const void *base, char *buf, size_t len)
{
	const struct scn_row *r = base;
	shown(buf, len, r->u, r->value, r->tunit, r->tmult);
}

#define SR(m) offsetof(struct scn_row, m)
static const struct dc_field scn_fields[] = {
	{"name", "scenario", DC_U_NONE, DC_FT_STR, SR(name)},
	{"change", "what was changed", DC_U_NONE, DC_FT_TEXT, SR(change)},
	{"metric", "metric to observe", DC_U_NONE, DC_FT_STR, SR(metric)},
	{"unit", "unit", DC_U_NONE, DC_FT_STR, SR(unit), .json_value = 1},
	{"baseline", "baseline", DC_U_NONE, DC_FT_F64, SR(baseline), .is_null = scn_unavailable, .json_value = 1},
	{"value", "changed", DC_U_NONE, DC_FT_F64, SR(value), .is_null = scn_unavailable, .json_value = 1},
	{"baseline_shown", "baseline", DC_U_NONE, DC_FT_FN, 0, .text = scn_baseline_text, .is_null = scn_unavailable,
	 .table_only = 1},
	{"value_shown", "changed", DC_U_NONE, DC_FT_FN, 0, .text = scn_value_text, .is_null = scn_unavailable,
	 .table_only = 1},
	{"ratio", "ratio", DC_U_RATIO, DC_FT_F64, SR(ratio), .is_null = scn_no_ratio},
	{"hits", "rank and phase it hits", DC_U_NONE, DC_FT_TEXT, SR(hits)},
	{"missing", "missing (keys it needs)", DC_U_NONE, DC_FT_STR, SR(missing), .is_null = scn_is_available},
	{"falsify", "falsifying experiment", DC_U_NONE, DC_FT_STR, SR(falsify)},
};
static const struct dc_fields scn_table = DC_FIELDS(scn_fields);
static const struct dc_rows scn_rows = {scn_count, scn_row, sizeof(struct scn_row), "scenarios", 1};

/* ---- details ---- */

struct detail_row {
	const char *scenario, *what, *unit;
	double baseline, value, ratio;
	int has_ratio;
	enum dc_whatif_unit u;
	const char *tunit;
	double tmult;
};

static uint64_t detail_count(const void *base)
{
	const struct view *v = base;
	return v->w ? v->w->ndetails : 0;
}

static void detail_row(const void *base, uint64_t i, void *out)
{
	const struct view *v = base;
	const struct dc_whatif_detail *d = &v->w->detail[i];
	struct detail_row *row = out;
	row->tunit = v->detail_tunit;
	row->tmult = v->detail_tmult;
	row->scenario = dc_whatif_scenario_name(d->scenario);
	row->what = d->what;
	row->unit = unit_name(d->unit);
	row->u = d->unit;
	row->baseline = d->baseline;
	row->value = d->value;
	row->has_ratio = d->baseline > 0;
	row->ratio = row->has_ratio ? d->value / d->baseline : 0;
}

static int detail_no_ratio(const void *base)
{
	return !((const struct detail_row *)base)->has_ratio;
}

static void detail_baseline_text(const void *base, char *buf, size_t len)
{
	const struct detail_row *r = base;
	shown(buf, len, r->u, r->baseline, r->tunit, r->tmult);
}

static void detail_value_text(const void *base, char *buf, size_t len)
{
	const struct detail_row *r = base;
	shown(buf, len, r->u, r->value, r->tunit, r->tmult);
}

#define DR(m) offsetof(struct detail_row, m)
static const struct dc_field detail_fields[] = {
	{"scenario", "scenario", DC_U_NONE, DC_FT_STR, DR(scenario)},
	{"quantity", "quantity", DC_U_NONE, DC_FT_STR, DR(what)},
	{"unit", "unit", DC_U_NONE, DC_FT_STR, DR(unit), .json_value = 1},
	{"baseline", "baseline", DC_U_NONE, DC_FT_F64, DR(baseline), .json_value = 1},
	{"value", "changed", DC_U_NONE, DC_FT_F64, DR(value), .json_value = 1},
	{"baseline_shown", "baseline", DC_U_NONE, DC_FT_FN, 0, .text = detail_baseline_text, .table_only = 1},
	{"value_shown", "changed", DC_U_NONE, DC_FT_FN, 0, .text = detail_value_text, .table_only = 1},
	{"ratio", "ratio", DC_U_RATIO, DC_FT_F64, DR(ratio), .is_null = detail_no_ratio},
};
static const struct dc_fields detail_table = DC_FIELDS(detail_fields);
static const struct dc_rows detail_rows = {detail_count, detail_row, sizeof(struct detail_row), "details", 2};

/* ---- slow_data_rank: every rank's wait ---- */

struct wait_row {
	uint64_t rank;
	double data_wait_s, wait_s;
	const char *where;
};

static uint64_t wait_count(const void *base)
{
	const struct view *v = base;
	return v->w && v->w->scn[DC_WHATIF_SLOW_DATA_RANK].available ? v->w->world : 0;
}

static void wait_row(const void *base, uint64_t i, void *out)
{
	const struct view *v = base;
	const struct dc_whatif *w = v->w;
	struct wait_row *row = out;
	uint64_t a[DC_AXIS_COUNT], b[DC_AXIS_COUNT];
	row->rank = i;
	if (i == w->slow_rank) {
		row->data_wait_s = w->data_wait_s;
		row->wait_s = 0;
		row->where = "its own data loading, before each forward";
		return;
	}
	dc_topology_coords(&v->plan->topo, i, a);
	dc_topology_coords(&v->plan->topo, w->slow_rank, b);
	row->data_wait_s = 0;
	row->wait_s = w->sync_wait_s;
	row->where = a[DC_AXIS_DP] == b[DC_AXIS_DP] ? "inside its replica: the slow rank's TP / CP / PP collectives"
						     : "the gradient sync (DP AllReduce or ReduceScatter)";
}

#define WR(m) offsetof(struct wait_row, m)
static const struct dc_field wait_fields[] = {
	{"rank", "rank", DC_U_COUNT, DC_FT_U64, WR(rank)},
	{"data_wait_s", "waits for data", DC_U_SECONDS, DC_FT_F64, WR(data_wait_s)},
	{"wait_s", "waits for the slow rank", DC_U_SECONDS, DC_FT_F64, WR(wait_s)},
	{"where", "where", DC_U_NONE, DC_FT_STR, WR(where)},
};
static const struct dc_fields wait_table = DC_FIELDS(wait_fields);
static const struct dc_rows wait_rows = {wait_count, wait_row, sizeof(struct wait_row), "ranks", 1};

/* ---- stragglers ---- */

struct slowest_row {
	char ranks[48];
	uint64_t count;
	double share;
};

static uint64_t slowest_count(const void *base)
{
	const struct view *v = base;
	return v->w && v->strag_available ? v->w->strag.nblocks : 0;
}

static void slowest_row(const void *base, uint64_t i, void *out)
{
	const struct view *v = base;
	const struct dc_whatif_stragglers *g = &v->w->strag;
	struct slowest_row *row = out;
	uint64_t first = i * g->block_ranks, last = first + g->block_ranks - 1;
	if (last >= v->w->world)
		last = v->w->world - 1;
	if (first == last)
		dc_text_fmt(row->ranks, sizeof(row->ranks), "%llu", (unsigned long long)first);
	else
		dc_text_fmt(row->ranks, sizeof(row->ranks), "%llu-%llu", (unsigned long long)first,
			    (unsigned long long)last);
	row->count = g->slowest[i];
	row->share = g->steps ? (double)g->slowest[i] / (double)g->steps : 0;
}

#define LR(m) offsetof(struct slowest_row, m)
static const struct dc_field slowest_fields[] = {
	{"ranks", "ranks", DC_U_NONE, DC_FT_TEXT, LR(ranks)},
	{"slowest_steps", "steps slowest", DC_U_COUNT, DC_FT_U64, LR(count)},
	{"share", "share of steps", DC_U_RATIO, DC_FT_F64, LR(share)},
};
static const struct dc_fields slowest_table = DC_FIELDS(slowest_fields);
static const struct dc_rows slowest_rows = {slowest_count, slowest_row, sizeof(struct slowest_row), "ranks", 1};

static uint64_t scale_count(const void *base)
{
	const struct view *v = base;
	return v->w && v->strag_available ? v->w->strag.nscale : 0;
}

static void scale_row(const void *base, uint64_t i, void *out)
{
	*(struct dc_whatif_scale *)out = ((const struct view *)base)->w->strag.scale[i];
}

#define CR(m) offsetof(struct dc_whatif_scale, m)
static const struct dc_field scale_fields[] = {
	{"ranks", "ranks", DC_U_COUNT, DC_FT_U64, CR(ranks)},
	{"expected_max_z", "E[max of N normals]", DC_U_NONE, DC_FT_F64, CR(expected_max_z)},
	{"step_s", "expected step", DC_U_SECONDS, DC_FT_F64, CR(step_s)},
	{"over_mean", "over the step without jitter", DC_U_RATIO, DC_FT_F64, CR(over_mean)},
};
static const struct dc_fields scale_table = DC_FIELDS(scale_fields);
static const struct dc_rows scale_rows = {scale_count, scale_row, sizeof(struct dc_whatif_scale), "sizes", 1};

static int strag_on(const void *base)
{
	return ((const struct view *)base)->strag_available;
}

static int strag_off(const void *base)
{
	return !((const struct view *)base)->strag_available;
}

#define V(m) offsetof(struct view, m)
static const struct dc_field strag_fields[] = {
	{"jitter", "training.jitter (coefficient of variation)", DC_U_RATIO, DC_FT_F64, V(jitter)},
	{"steps", "simulated steps", DC_U_COUNT, DC_FT_U64, V(steps)},
	{"seed", "seed", DC_U_NONE, DC_FT_U64, V(seed)},
	{"missing", "missing (keys it needs)", DC_U_NONE, DC_FT_STR, V(strag_missing), .shown = strag_off},
	{"compute_s", "compute per step that jitters", DC_U_SECONDS, DC_FT_F64, V(compute_s), .shown = strag_on},
	{"mean_s", "mean step", DC_U_SECONDS, DC_FT_F64, V(mean_s), .shown = strag_on},
	{"p50_s", "p50 step", DC_U_SECONDS, DC_FT_F64, V(p50_s), .shown = strag_on},
	{"p99_s", "p99 step", DC_U_SECONDS, DC_FT_F64, V(p99_s), .shown = strag_on},
	{"max_s", "slowest step", DC_U_SECONDS, DC_FT_F64, V(max_s), .shown = strag_on},
	{"slowest", "How often each rank (or block of ranks) was the slowest", DC_U_NONE, DC_FT_ROWS, 0,
	 .sub = &slowest_table, .rows = &slowest_rows, .shown = strag_on},
	{"scaling", "The expected slowest rank as the world grows", DC_U_NONE, DC_FT_ROWS, 0, .sub = &scale_table,
	 .rows = &scale_rows, .shown = strag_on},
};
static const struct dc_fields strag_sub = DC_FIELDS(strag_fields);

static const struct dc_field fields[] = {
	{"scenarios", "Scenarios against the baseline", DC_U_NONE, DC_FT_ROWS, 0, .sub = &scn_table,
	 .rows = &scn_rows},
	{"details", "What else each scenario moves", DC_U_NONE, DC_FT_ROWS, 0, .sub = &detail_table,
	 .rows = &detail_rows},
	{"slow_data_rank_waits", "slow_data_rank: every rank's wait per step", DC_U_NONE, DC_FT_ROWS, 0,
	 .sub = &wait_table, .rows = &wait_rows},
	{"stragglers", "Stragglers (training.jitter)", DC_U_NONE, DC_FT_OBJECT, 0, .sub = &strag_sub},
};

_Static_assert(sizeof(struct view) <= DC_VIEW_MAX, "view too large");

const struct dc_section dc_section_whatif = {
	"whatif", "What-if: injected faults and stragglers",
	"the layout once as the baseline and once per fault (slow network, slow data rank, whole-model "
	"AllGather, checkpoint peak, expert imbalance, stragglers)",
	DC_EST_BIT(DC_EST_STEP) | DC_EST_BIT(DC_EST_COMM) | DC_EST_BIT(DC_EST_MEMORY), sizeof(struct view), view,
	DC_FIELDS(fields), NULL, NULL,
};
