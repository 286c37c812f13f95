/* sec_search.c - `--experiment search`: the layout search's result
 * (search.h) as a section: the objective and the memory limit, the
 * counts, the best layouts, the Pareto front of memory against step time,
 * why nothing fits when nothing does, and the command line that prints the
 * winner's full report. docs/search.md. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "distcalc/calibrate.h"
#include "distcalc/calibrate_compute.h"
#include "distcalc/config.h"
#include "distcalc/experiment.h"
#include "distcalc/plan.h"
#include "distcalc/search.h"
#include "distcalc/section.h"
#include "distcalc/util.h"
#include "report_int.h"

#define COMMAND_MAX 2048

struct counts {
	uint64_t enumerated, rejected_by_rules, valid, priced_memory, priced_time, fit, tight;
};

struct input {
	uint64_t rank, peak_bytes;
	int in_space, fits, tight, step_available;
	double step_time_s, tokens_per_s_per_gpu, mfu, mfu_bf16_peak;
	const char *outside_why; /* why the space leaves it out (search.h input_outside) */
};

struct view {
	const struct dc_search_result *r;
	struct input input;
	const char *objective, *ranked_by, *headroom_source;
	const char *profile; /* --calibrate-compute's file; NULL: none */
	const char *logs[DC_CALIB_MAX_LOGS]; /* --calibrate's, as given */
	size_t nlogs;
	uint64_t world, global_batch_size, gpu_mem_bytes, reserve_bytes, limit_bytes, tight_bytes;
	double headroom;
	int fits, has_command, command_too_long;
	struct counts counts;
	char command[COMMAND_MAX];
};

_Static_assert(sizeof(struct view) <= DC_VIEW_MAX, "search view too large");

struct row {
	uint64_t rank, tp, cp, pp, dp, ep, v, mbs, gas;
	char rank_text[24];
	const char *sharding, *recompute;
	int sp, fits, tight, step_available;
	double step_time_s, tokens_per_s_per_gpu, mfu, mfu_bf16_peak;
	uint64_t peak_bytes;
	struct dc_search_layout l;
};

_Static_assert(sizeof(struct row) <= DC_ROW_MAX, "search row too large");

static void fill_row(const struct dc_search_entry *e, uint64_t rank, struct row *o)
{
	const struct dc_layout *y = &e->l.layout;
	/* best[] lists the smallest peaks when nothing fits: never ranked */
	o->rank = e->fits ? rank : 0;
	if (o->rank)
		dc_text_fmt(o->rank_text, sizeof(o->rank_text), "%llu", (unsigned long long)rank);
	else
		dc_text_fmt(o->rank_text, sizeof(o->rank_text), "does not fit");
	o->tp = y->tp;
	o->cp = y->cp;
	o->pp = y->pp;
	o->dp = y->dp;
	o->ep = y->ep;
	o->v = y->virtual_pipeline;
	o->mbs = y->micro_batch_size;
	o->gas = y->grad_accum_steps;
	o->sharding = dc_sharding_name(y->sharding);
	o->recompute = dc_recompute_name(e->l.recompute);
	o->sp = y->sequence_parallel;
	o->fits = e->fits;
	o->tight = e->tight;
	o->step_available = e->step_available;
	o->step_time_s = e->step_time_s;
	o->tokens_per_s_per_gpu = e->tokens_per_s_per_gpu;
	o->mfu = e->mfu;
	o->mfu_bf16_peak = e->mfu_bf16_peak;
	o->peak_bytes = e->peak_bytes;
	o->l = e->l;
}

static uint64_t best_count(const void *base)
{
	return ((const struct view *)base)->r->nbest;
}

static void best_row(const void *base, uint64_t i, void *row)
{
	fill_row(&((const struct view *)base)->r->best[i], i + 1, row);
}

static uint64_t pareto_count(const void *base)
{
	return ((const struct view *)base)->r->npareto;
}

static void pareto_row(const void *base, uint64_t i, void *row)
{
	fill_row(&((const struct view *)base)->r->pareto[i], i + 1, row);
}

static int unranked(const void *base)
{
	return ((const struct row *)base)->rank == 0;
}

static int no_step(const void *base)
{
	return !((const struct row *)base)->step_available;
}

static void layout_json(const void *base, char *buf, size_t len)
{
	dc_search_layout_text(&((const struct row *)base)->l, 1, buf, len);
}

#define RW(m) offsetof(struct row, m)
static const struct dc_field row_fields[] = {
	/* JSON and CSV: a number, null when it does not fit; the table its text */
	{"rank", "#", DC_U_NONE, DC_FT_U64, RW(rank), .is_null = unranked, .json_value = 1},
	{"rank_shown", "#", DC_U_NONE, DC_FT_TEXT, RW(rank_text), .table_only = 1},
	{"tp", "tp", DC_U_NONE, DC_FT_U64, RW(tp)},
	{"cp", "cp", DC_U_NONE, DC_FT_U64, RW(cp)},
	{"pp", "pp", DC_U_NONE, DC_FT_U64, RW(pp)},
	{"dp", "dp", DC_U_NONE, DC_FT_U64, RW(dp)},
	{"ep", "ep", DC_U_NONE, DC_FT_U64, RW(ep)},
	{"virtual_pipeline", "v", DC_U_NONE, DC_FT_U64, RW(v)},
	{"micro_batch_size", "mbs", DC_U_NONE, DC_FT_U64, RW(mbs)},
	{"grad_accum_steps", "gas", DC_U_NONE, DC_FT_U64, RW(gas)},
	{"sharding", "sharding", DC_U_NONE, DC_FT_STR, RW(sharding)},
	{"recompute", "recompute", DC_U_NONE, DC_FT_STR, RW(recompute)},
	{"sequence_parallel", "sp", DC_U_NONE, DC_FT_BOOL, RW(sp)},
	{"step_time_s", "step", DC_U_SECONDS, DC_FT_F64, RW(step_time_s), .is_null = no_step},
	{"tokens_per_s_per_gpu", "tokens/s/GPU", DC_U_PER_S, DC_FT_F64, RW(tokens_per_s_per_gpu), .is_null = no_step},
	{"mfu", "MFU", DC_U_RATIO, DC_FT_F64, RW(mfu), .is_null = no_step},
	{"mfu_bf16_peak", "MFU/BF16 peak", DC_U_RATIO, DC_FT_F64, RW(mfu_bf16_peak), .is_null = no_step},
	{"peak_bytes", "peak", DC_U_BYTES, DC_FT_U64, RW(peak_bytes)},
	{"fits", "fits", DC_U_NONE, DC_FT_BOOL, RW(fits)},
	{"tight", "tight", DC_U_NONE, DC_FT_BOOL, RW(tight)},
	{"layout", "layout", DC_U_NONE, DC_FT_FN, 0, .text = layout_json, .json_value = 1},
};
static const struct dc_fields row_table = DC_FIELDS(row_fields);

static const struct dc_rows best_rows = {best_count, best_row, sizeof(struct row), "layouts", 2, 0};
static const struct dc_rows pareto_rows = {pareto_count, pareto_row, sizeof(struct row), "layouts", 2, 0};

#define CV(m) offsetof(struct counts, m)
static const struct dc_field count_fields[] = {
	{"enumerated", "layouts enumerated", DC_U_COUNT, DC_FT_U64, CV(enumerated)},
	{"rejected_by_rules", "rejected by the rules (not priced)", DC_U_COUNT, DC_FT_U64, CV(rejected_by_rules)},
	{"valid", "valid (the loader's rules)", DC_U_COUNT, DC_FT_U64, CV(valid)},
	{"priced_memory", "priced for memory", DC_U_COUNT, DC_FT_U64, CV(priced_memory)},
	{"priced_time", "priced for step time as well", DC_U_COUNT, DC_FT_U64, CV(priced_time)},
	{"fit", "fit the memory limit", DC_U_COUNT, DC_FT_U64, CV(fit)},
	{"tight", "of those, tight (within 5% of the limit)", DC_U_COUNT, DC_FT_U64, CV(tight)},
};
static const struct dc_fields count_table = DC_FIELDS(count_fields);

static const char *why_text(const void *base)
{
	return ((const struct view *)base)->r->why;
}

static void why_fn(const void *base, char *buf, size_t len)
{
	dc_text_fmt(buf, len, "%s", why_text(base));
}

static int has_why(const void *base)
{
	return why_text(base)[0] != 0;
}

static uint64_t log_count(const void *base)
{
	return ((const struct view *)base)->nlogs;
}

static void log_row(const void *base, uint64_t i, void *row)
{
	((struct dc_log_row *)row)->log = ((const struct view *)base)->logs[i];
}

static int has_logs(const void *base)
{
	return ((const struct view *)base)->nlogs > 0;
}

static const struct dc_rows log_rows = {log_count, log_row, sizeof(struct dc_log_row), "logs", 1, 0, .every = 1};

static int has_profile(const void *base)
{
	return ((const struct view *)base)->profile != NULL;
}

static int has_command(const void *base)
{
	return ((const struct view *)base)->has_command;
}

static int command_too_long(const void *base)
{
	return ((const struct view *)base)->command_too_long;
}

static void omitted_fn(const void *base, char *buf, size_t len)
{
	(void)base;
	dc_text_fmt(buf, len, "not shown: its command line is longer than %d bytes (long file names); give the best "
			      "layout's --set values (search.best[0].layout) to the same command",
		    COMMAND_MAX - 1);
}

static int input_outside_shown(const void *base)
{
	return !((const struct input *)base)->in_space;
}

/* ranked only when it fits and the space holds it */
static int input_unranked(const void *base)
{
	const struct input *in = base;
	return !in->fits || !in->in_space;
}

static int input_no_step(const void *base)
{
	return !((const struct input *)base)->step_available;
}

#define IV(m) offsetof(struct input, m)
static const struct dc_field input_fields[] = {
	{"rank", "its rank among the layouts that fit", DC_U_COUNT, DC_FT_U64, IV(rank), .is_null = input_unranked},
	{"in_space", "in the space searched", DC_U_NONE, DC_FT_BOOL, IV(in_space)},
	{"outside_why", "why not", DC_U_NONE, DC_FT_STR, IV(outside_why), .shown = input_outside_shown},
	{"step_time_s", "step time", DC_U_SECONDS, DC_FT_F64, IV(step_time_s), .is_null = input_no_step},
	{"tokens_per_s_per_gpu", "tokens/s per GPU", DC_U_PER_S, DC_FT_F64, IV(tokens_per_s_per_gpu),
	 .is_null = input_no_step},
	{"mfu", "MFU", DC_U_RATIO, DC_FT_F64, IV(mfu), .is_null = input_no_step},
	{"mfu_bf16_peak", "MFU/BF16 peak", DC_U_RATIO, DC_FT_F64, IV(mfu_bf16_peak), .is_null = input_no_step},
	{"peak_bytes", "peak memory", DC_U_BYTES, DC_FT_U64, IV(peak_bytes)},
	{"fits", "fits", DC_U_NONE, DC_FT_BOOL, IV(fits)},
	{"tight", "tight (within 5% of the limit)", DC_U_NONE, DC_FT_BOOL, IV(tight)},
};
static const struct dc_fields input_table = DC_FIELDS(input_fields);

#define V(m) offsetof(struct view, m)
static const struct dc_field fields[] = {
	{"objective", "objective (search.objective)", DC_U_NONE, DC_FT_STR, V(objective)},
	{"ranked_by", "ranked by", DC_U_NONE, DC_FT_STR, V(ranked_by)},
	{"calibrate", "network fitted to (--calibrate)", DC_U_NONE, DC_FT_ROWS, 0, .sub = &dc_log_row_table,
	 .rows = &log_rows, .shown = has_logs},
	{"compute_profile", "kernel levels from (--calibrate-compute)", DC_U_NONE, DC_FT_STR, V(profile),
	 .shown = has_profile},
	{"world", "GPUs (num_nodes x gpus_per_node)", DC_U_COUNT, DC_FT_U64, V(world)},
	{"global_batch_size", "global batch (samples)", DC_U_COUNT, DC_FT_U64, V(global_batch_size)},
	{"gpu_memory_bytes", "GPU memory (cluster.gpu_memory)", DC_U_BYTES, DC_FT_U64, V(gpu_mem_bytes)},
	{"headroom", "headroom (search.headroom)", DC_U_RATIO, DC_FT_F64, V(headroom)},
	{"headroom_source", "headroom from", DC_U_NONE, DC_FT_STR, V(headroom_source)},
	{"reserve_bytes", "reserve (gpu_memory x headroom)", DC_U_BYTES, DC_FT_U64, V(reserve_bytes)},
	{"limit_bytes", "memory limit (gpu_memory - reserve)", DC_U_BYTES, DC_FT_U64, V(limit_bytes)},
	{"tight_bytes", "tight from (within 5% of the limit)", DC_U_BYTES, DC_FT_U64,
	 V(tight_bytes)},
	{"fits", "some layout fits", DC_U_NONE, DC_FT_BOOL, V(fits)},
	{"counts", "Layouts", DC_U_NONE, DC_FT_OBJECT, V(counts), .sub = &count_table},
	{"input", "The config's own layout", DC_U_NONE, DC_FT_OBJECT, V(input), .sub = &input_table},
	{"why", "why none", DC_U_NONE, DC_FT_FN, 0, .text = why_fn, .shown = has_why},
	{"best", "Best layouts", DC_U_NONE, DC_FT_ROWS, 0, .sub = &row_table, .rows = &best_rows},
	{"pareto", "Pareto front: no other layout is both smaller and faster", DC_U_NONE, DC_FT_ROWS, 0,
	 .sub = &row_table, .rows = &pareto_rows},
	{"command", "the winner's full report", DC_U_NONE, DC_FT_TEXT, V(command), .shown = has_command, .shell_words = 1},
	{"command_omitted", "the winner's full report", DC_U_NONE, DC_FT_FN, 0, .text = omitted_fn,
	 .shown = command_too_long},
};

/* Appends " ARG" to the command, single-quoted when the shell would split
 * or expand it. Returns -1, the command cut, when it does not fit. */
static int add_arg(char *buf, size_t len, const char *arg)
{
	size_t n = strlen(buf);
	int plain = *arg != 0;
	for (const char *c = arg; *c; c++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._=/:,+-", *c))
			plain = 0;
	if (plain)
		return n + 1 + strlen(arg) < len ? (dc_text_fmt(buf + n, len - n, " %s", arg), 0) : -1;
	if (n + 3 >= len)
		return -1;
	buf[n++] = ' ';
	buf[n++] = '\'';
	for (const char *c = arg; *c; c++) {
		if (n + 6 >= len) {
			buf[n] = 0;
			return -1;
		}
		if (*c == '\'') {
			memcpy(buf + n, "'\\''", 4);
			n += 4;
		} else {
			buf[n++] = *c;
		}
	}
	buf[n++] = '\'';
	buf[n] = 0;
	return 0;
}

/* The --calibrate-compute file the search priced with, as given (NULL:
 * none): the command line's, else the profile's own name (a caller that
 * fills no dc_run_info.compute_profile). */
static const char *profile_path(const struct dc_run *run)
{
	const struct dc_compute_profile *p = run->plan->in->compute_profile;
	return !p ? NULL : run->info->compute_profile ? run->info->compute_profile : p->name;
}

/* --calibrate's log i as given: the command line's, else the fit's own
 * name of it */
static const char *log_name(const struct dc_run *run, size_t i)
{
	const struct dc_run_info *info = run->info;
	return i < info->ncalibrate_logs ? info->calibrate_logs[i] : info->calibration->logs[i].name;
}

/* distcalc --config FILE [--model FILE] [--set ...] [--calibrate LOG]...
 * [--calibrate-compute PROFILE] the winner's --set. Returns -1 when it
 * does not fit `len` (long file names): no command then, not a cut one. */
static int command(const struct dc_run *run, const struct dc_search_entry *e, char *buf, size_t len)
{
	const struct dc_run_info *info = run->info;
	const struct dc_calibration *cal = info->calibration;
	const char *profile = profile_path(run);
	char lay[512], *tok, *end;
	int rc = 0;

	dc_text_fmt(buf, len, "distcalc");
	if (info->import_option && info->import_file) {
		if (info->import_base) {
			rc |= add_arg(buf, len, "--config");
			rc |= add_arg(buf, len, info->import_base);
		}
		rc |= add_arg(buf, len, info->import_option);
		rc |= add_arg(buf, len, info->import_file);
	} else if (info->config_name && strncmp(info->config_name, "built-in default", 16) != 0) {
		rc |= add_arg(buf, len, "--config");
		rc |= add_arg(buf, len, info->config_name);
	}
	if (info->model_file) {
		rc |= add_arg(buf, len, "--model");
		rc |= add_arg(buf, len, info->model_file);
	}
	for (size_t i = 0; i < info->nsets; i++) {
		/* a key only the search (or another experiment) reads changes
		 * nothing in the winner's systems report, and would warn so
		 * there: left out */
		char key[128];
		size_t n = info->sets[i].unset ? strlen(info->sets[i].text) : strcspn(info->sets[i].text, "=");
		snprintf(key, sizeof(key), "%.*s", (int)(n < sizeof(key) ? n : sizeof(key) - 1), info->sets[i].text);
		if (!dc_config_key_read_by(key, "systems"))
			continue;
		rc |= add_arg(buf, len, info->sets[i].unset ? "--unset" : "--set");
		rc |= add_arg(buf, len, info->sets[i].text);
	}
	/* the fits every layout was priced with, by the names given: without
	 * them the winner's report prices other levels and another step */
	for (size_t i = 0; cal && i < cal->nlogs; i++) {
		rc |= add_arg(buf, len, "--calibrate");
		rc |= add_arg(buf, len, log_name(run, i));
	}
	if (profile) {
		rc |= add_arg(buf, len, "--calibrate-compute");
		rc |= add_arg(buf, len, profile);
	}
	dc_search_layout_text(&e->l, 0, lay, sizeof(lay));
	for (tok = lay; *tok; tok = end) {
		size_t n = strcspn(tok, " ");
		end = tok + n + (tok[n] != 0);
		tok[n] = 0;
		rc |= add_arg(buf, len, "--set");
		rc |= add_arg(buf, len, tok);
	}
	return rc ? -1 : 0;
}

static void view(const struct dc_run *run, void *out)
{
	struct view *v = out;
	const struct dc_config *in = run->plan->in;
	/* a report of this section is made by the runner with its search run */
	static const struct dc_search_result none;
	const struct dc_search_result *r = run->search ? run->search : &none;

	v->r = r;
	v->objective = dc_search_objective_name(in->search.objective);
	v->profile = profile_path(run);
	for (size_t i = 0; run->info->calibration && i < run->info->calibration->nlogs && i < DC_CALIB_MAX_LOGS; i++)
		v->logs[v->nlogs++] = log_name(run, i);
	/* without the GPU's speeds the step is unknown: by peak memory */
	v->ranked_by = in->search.objective == DC_SEARCH_MEMORY ? "peak memory, then step time"
		       : r->step_available			  ? "step time (tokens/s), then peak memory"
								  : "peak memory (no GPU speeds: give cluster.gpu for step times)";
	v->world = in->world_size;
	v->global_batch_size = in->training.global_batch_size
				       ? in->training.global_batch_size
				       : in->training.micro_batch_size * in->training.grad_accum_steps * in->parallel.dp;
	v->gpu_mem_bytes = in->cluster.gpu_mem_bytes;
	v->headroom = in->search.headroom;
	v->limit_bytes = r->limit_bytes;
	v->reserve_bytes = v->gpu_mem_bytes >= v->limit_bytes ? v->gpu_mem_bytes - v->limit_bytes : 0;
	v->tight_bytes = r->limit_bytes - r->limit_bytes / 20;
	v->headroom_source =
		v->headroom == 0
			? "search.headroom 0 (the default): no reserve, the limit is all of cluster.gpu_memory"
			: "search.headroom (the config or --set): that fraction of cluster.gpu_memory is kept free";
	v->fits = r->counts.fit > 0;
	v->counts.enumerated = r->counts.enumerated;
	v->counts.rejected_by_rules = r->counts.rejected_by_rules;
	v->counts.valid = r->counts.valid;
	v->counts.priced_memory = r->counts.priced_memory;
	v->counts.priced_time = r->counts.priced_time;
	v->counts.fit = r->counts.fit;
	v->counts.tight = r->counts.tight;
	v->input.rank = r->input_rank;
	v->input.in_space = r->input_in_space;
	v->input.outside_why = r->input_outside;
	v->input.fits = r->input.fits;
	v->input.tight = r->input.tight;
	v->input.step_available = r->input.step_available;
	v->input.step_time_s = r->input.step_time_s;
	v->input.tokens_per_s_per_gpu = r->input.tokens_per_s_per_gpu;
	v->input.mfu = r->input.mfu;
	v->input.mfu_bf16_peak = r->input.mfu_bf16_peak;
	v->input.peak_bytes = r->input.peak_bytes;
	v->has_command = r->nbest > 0 && command(run, &r->best[0], v->command, sizeof(v->command)) == 0;
	v->command_too_long = r->nbest > 0 && !v->has_command;
}

static void title(const void *base, char *buf, size_t len)
{
	const struct view *v = base;
	dc_text_fmt(buf, len, "Layout search: %llu GPUs, global batch %llu, by %s", (unsigned long long)v->world,
		    (unsigned long long)v->global_batch_size,
		    v->r->step_available || strcmp(v->objective, "memory") == 0 ? v->objective : "memory (no GPU speeds)");
}

void dc_search_warn(const struct dc_plan *plan, const struct dc_search_result *s, struct dc_diag *diag)
{
	const struct dc_compute_profile *pr = plan->in->compute_profile;
	static const char shape[] = "the profile's layer ran another shape: ";
	const struct dc_search_entry *w;
	struct dc_config *cfg;
	struct dc_plan *base, *wp;
	char why[512];
	enum dc_profile_layer_fit fit;
	/* the winner within 5% of the whole GPU (no headroom asked): the
	 * ledger leaves out fragmentation and some buffers, so a user about
	 * to rent a cluster is told, not only the table's flag (a user
	 * trial's 70B search ranked five layouts at 96-99.6% first) */
	if (s->nbest && s->best[0].fits && s->best[0].tight && !(plan->in->search.headroom > 0)) {
		char peak[64], gpu[64];
		/* and a card's usable memory below its data sheet's, as a
		 * single run's warning says (a trial's H100 winner at 79.826
		 * GiB, over the 79.65 the card reports) */
		const char *clause, *fix;
		dc_search_tight_usable(plan->in->cluster.gpu, &clause, &fix);
		dc_fmt_gib(peak, sizeof(peak), s->best[0].peak_bytes);
		dc_fmt_gib(gpu, sizeof(gpu), s->limit_bytes);
		dc_diag_warn(diag,
			     "'search.headroom': the best layout is tight: its peak, %s, leaves %.1f%% of the %s of GPU "
			     "memory, and the ledger leaves out allocator fragmentation beyond its reserve and some "
			     "buffers (docs/memory-conventions.md)%s; check it against a run, %sor set search.headroom "
			     "(0.05 keeps 5%% free) to rank only layouts with that margin",
			     peak, 100.0 * (1.0 - (double)s->best[0].peak_bytes / (double)s->limit_bytes), gpu, clause,
			     fix);
	}
	/* the layouts shown past the published runs' MFU the step model is
	 * checked against, as a single run of each warns (sec_step.c): the
	 * search ranks by the step model, so its best rows are where the
	 * model is most optimistic (a trial's 70B search ranked ten layouts
	 * at 0.66-0.68 first, "Warnings none") */
	if (s->step_available) {
		const char *row = NULL;
		double bound = dc_published_mfu_bound(plan, &row);
		uint64_t above = 0;
		for (size_t i = 0; bound > 0 && i < s->nbest; i++)
			above += s->best[i].step_available && s->best[i].mfu_bf16_peak > bound;
		if (above)
			dc_diag_warn(diag,
				     "'search.best[].mfu_bf16_peak': %llu of the %llu layouts shown%s have an MFU over the "
				     "BF16 peak above %.4f, the highest of the published %s (docs/compute-model.md, "
				     "\"Hopper rows\"); the search ranks by the step model, so its best rows are where the model "
				     "is least checked: check the winner against a run, or price the GPU's measured levels with "
				     "--calibrate-compute (tools/gpu-probe.py)",
				     (unsigned long long)above, (unsigned long long)s->nbest,
				     s->best[0].step_available && s->best[0].mfu_bf16_peak > bound ? ", the best among them," : "",
				     bound, row);
	}
	if (!pr || !s->step_available)
		return;
	dc_profile_backend_note(plan, diag);
	if (!pr->has_layer || !s->nbest)
		return;
	/* the levels of one layer priced every layout: the winner's own layer
	 * against the profile's, as its single run compares them (the winner
	 * is best[0]; when nothing fits, the smallest peak) */
	w = &s->best[0];
	cfg = dc_calloc(1, sizeof(*cfg));
	base = dc_calloc(1, sizeof(*base));
	wp = dc_calloc(1, sizeof(*wp));
	if (!cfg || !base || !wp) {
		dc_diag_oom(diag);
		goto out;
	}
	*cfg = *plan->in;
	cfg->training.recompute = w->l.recompute;
	if (dc_plan_derive(cfg, base) != 0 || dc_plan_derive_from(base, &w->l.layout, wp) != 0)
		goto out; /* the search derived it: cannot fail here */
	fit = dc_compute_profile_layer_fit(pr, wp, why, sizeof(why));
	if (fit == DC_LAYER_OTHER_SHAPE)
		dc_diag_warn(diag,
			     "'%s': its levels were measured on another layer than the %s's (%s) and priced every layout "
			     "the search tried; for levels of that layer, run tools/gpu-probe.py on its config (--tp %llu) "
			     "and search again (docs/compute-model.md, \"Calibrating from a probe\")",
			     pr->name, w->fits ? "winner" : "smallest layout",
			     strncmp(why, shape, sizeof(shape) - 1) == 0 ? why + sizeof(shape) - 1 : why,
			     (unsigned long long)w->l.layout.tp);
	else if (fit == DC_LAYER_OTHER_KIND)
		dc_diag_warn(diag,
			     "'%s': its levels were measured on a dense layer and priced every layout of this search's "
			     "(mixture-of-experts or latent-attention) model all the same; tools/gpu-probe.py measures "
			     "dense layers only (docs/compute-model.md, \"Calibrating from a probe\")",
			     pr->name);
	/* the host's time as each layer's least (compute.c host_floor), for
	 * every layout of this block the search priced */
	if (dc_compute_profile_host_floor_s(pr, wp) > 0)
		dc_diag_warn(diag,
			     "'%s': the probe's layer waited for its host, which took %.3f ms to issue it: every layout "
			     "the search tried priced each of its layers at no less than that (docs/compute-model.md, "
			     "\"A layer that waited for its host\")",
			     pr->name, dc_compute_profile_host_floor_s(pr, wp) * 1e3);
out:
	free(wp);
	free(base);
	free(cfg);
}

const struct dc_section dc_section_search = {
	"search", "Layout search",
	"every valid layout ranked: counts, best[] (layout, step time, tokens/s per GPU, MFU, peak, fits), pareto[], the winner's command",
	0, sizeof(struct view), view, DC_FIELDS(fields), title, NULL,
};
