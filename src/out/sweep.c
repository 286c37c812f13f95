/* sweep.c - one experiment run per point of a grid, as one report; see
 * sweep.h. The report's root is the header fields, the "sweep" object and
 * the warnings; its table "rows" is built from field tables made here at
 * run time (the columns depend on what was swept and picked), which the
 * sinks walk like any other. */
#include "distcalc/sweep.h"
#include "distcalc/util.h"

#include <math.h>
#include <stdalign.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report_int.h"
#include "sweep_int.h"
#include "distcalc/check.h"

/* ---- checking the command line's axes and metrics ---- */

const char *dc_sweep_value_trim(const char *p, size_t n, size_t *len)
{
	return dc_text_trim(p, n, len);
}

size_t dc_sweep_value_len(const char *p)
{
	size_t n = 0;
	int depth = 0, quoted = 0;
	for (; p[n]; n++) {
		char ch = p[n];
		if (quoted) {
			if (ch == '\\' && p[n + 1])
				n++;
			else if (ch == '"')
				quoted = 0;
		} else if (ch == '"') {
			quoted = 1;
		} else if (ch == '[') {
			depth++;
		} else if (ch == ']' && depth > 0) {
			depth--;
		} else if (ch == ',' && depth == 0) {
			break;
		}
	}
	return n;
}

size_t dc_sweep_axis_check(const char *text, char *err, size_t errlen)
{
	const char *eq = strchr(text, '=');
	const struct dc_config_key_info *k;
	char path[128];
	size_t n = 0;

	if (!eq || eq == text) {
		snprintf(err, errlen, "expected PATH=V1,V2,..., got '%.200s'", text);
		return 0;
	}
	if ((size_t)(eq - text) >= sizeof(path)) {
		snprintf(err, errlen, "unknown config key '%.*s...'", 64, text);
		return 0;
	}
	memcpy(path, text, (size_t)(eq - text));
	path[eq - text] = '\0';
	k = dc_config_key_find(path);
	if (!k) {
		size_t tl;
		const char *t = dc_text_trim(path, strlen(path), &tl);
		const char *near = dc_config_key_suggest(path); /* as --set suggests */
		char bare[128];
		/* blanks around the key: the key without them, as --set says */
		snprintf(bare, sizeof(bare), "%.*s", (int)tl, t);
		if (tl && tl != strlen(path) && dc_config_key_find(bare) &&
		    strcmp(dc_config_key_find(bare)->kind, "section") != 0)
			near = dc_config_key_find(bare)->path;
		if (near)
			snprintf(err, errlen, "unknown config key '%s'; did you mean '%s'?", path, near);
		else
			snprintf(err, errlen, "unknown config key '%s'", path);
		return 0;
	}
	if (strcmp(k->kind, "section") == 0) {
		snprintf(err, errlen, "'%s' is a section; sweep one of its keys", path);
		return 0;
	}
	for (const char *p = eq + 1;;) {
		size_t raw = dc_sweep_value_len(p), len;
		const char *t = dc_sweep_value_trim(p, raw, &len);
		if (len == 0) {
			snprintf(err, errlen, "'%s': empty value in '%.200s'", path, eq + 1);
			return 0;
		}
		if (len > DC_SWEEP_MAX_VALUE) {
			snprintf(err, errlen, "'%s': value '%.*s...' is longer than %d bytes", path, 32, t,
				 DC_SWEEP_MAX_VALUE);
			return 0;
		}
		/* a value given twice is two equal rows, which the axis warning
		 * would then blame on the key (a CI trial's num_nodes=1,1) */
		for (const char *q = eq + 1; q < p;) {
			size_t qraw = dc_sweep_value_len(q), qlen;
			const char *qt = dc_sweep_value_trim(q, qraw, &qlen);
			if (qlen == len && memcmp(qt, t, len) == 0) {
				snprintf(err, errlen, "'%s': the value '%.*s' is given twice in '%.200s'", path, (int)len, t,
					 eq + 1);
				return 0;
			}
			q += qraw + 1;
		}
		n++;
		p += raw;
		if (!*p)
			break;
		p++;
	}
	return n;
}

const char *dc_sweep_default_metrics(const struct dc_experiment *exp)
{
	if (strcmp(exp->name, "ring") == 0)
		return "ring.time_s,ring.busbw_GBps,ring.bytes_sent_per_rank";
	/* each other experiment's headline figures (docs/sweeps.md) */
	if (strcmp(exp->name, "checkpoint") == 0)
		return "checkpoint.saved_bytes,checkpoint.save_time_s,checkpoint.blocking_time_s,checkpoint.gpu_peak_bytes,"
		       "checkpoint.restore.restore_fits";
	if (strcmp(exp->name, "loss") == 0)
		return "loss.global_mean,loss.rank_rel_error,loss.microbatch_rel_error";
	if (strcmp(exp->name, "collectives") == 0)
		return "collectives.avg_busbw_GBps";
	if (strcmp(exp->name, "search") == 0)
		return "search.counts.fit,search.best[0].step_time_s,search.best[0].tokens_per_s_per_gpu,"
		       "search.best[0].peak_bytes";
	if (strcmp(exp->name, "whatif") == 0)
		return "whatif.scenarios[0].ratio,whatif.scenarios[1].ratio,whatif.scenarios[2].ratio,"
		       "whatif.scenarios[3].ratio,whatif.scenarios[4].ratio,whatif.scenarios[5].ratio";
	/* the DP group's bytes and time a rank: what a GPU-count sweep
	 * changes (more ranks, more rounds of latency); FSDP's under FSDP
	 * (drop_unused_sharding keeps the pair the points have) */
	return "summary.peak_bytes,summary.fits,summary.comm_bytes_per_step,summary.comm_time_s,comm.dp.bytes_per_rank,"
	       "comm.dp.time_s,comm.fsdp.bytes_per_rank,comm.fsdp.time_s,batch.tokens_per_step,step.time_s,"
	       "step.tokens_per_s_per_gpu,step.mfu,step.mfu_bf16_peak";
}

/* The index of metric `path`, or -1. */
static int metric_at(const struct dc_sweep *sw, const char *path)
{
	for (size_t k = 0; k < sw->nmetrics; k++)
		if (strcmp(sw->metric[k].path, path) == 0)
			return (int)k;
	return -1;
}

/* Whether some point that ran has metric k. */
static int has_value(const struct dc_sweep *sw, int k)
{
	for (size_t i = 0; k >= 0 && i < sw->npoints; i++)
		if (sw->points[i].ok && !sw->points[i].null[k])
			return 1;
	return 0;
}

/* Drops metric k from the sweep and from every point. */
static void drop_metric(struct dc_sweep *sw, size_t k)
{
	size_t rest = sw->nmetrics - k - 1;
	memmove(&sw->metric[k], &sw->metric[k + 1], rest * sizeof(sw->metric[0]));
	for (size_t i = 0; i < sw->npoints; i++) {
		struct dc_sweep_point *pt = &sw->points[i];
		free(pt->text[k]); /* on the heap until pack_texts, which runs after */
		memmove(&pt->null[k], &pt->null[k + 1], rest * sizeof(pt->null[0]));
		memmove(&pt->cell[k], &pt->cell[k + 1], rest * sizeof(pt->cell[0]));
		memmove(&pt->text[k], &pt->text[k + 1], rest * sizeof(pt->text[0]));
		pt->text[k + rest] = NULL;
	}
	sw->nmetrics--;
}

/* The default columns of one sharding: the DP group's pair (gradient
 * sync: none, ZeRO-1, ZeRO-2, HSDP's replicas) and FSDP's (the gathers
 * and scatters of the shards), each null where its sharding is not in
 * play. The FSDP pair is dropped when no point has it, the DP pair when
 * no point has it and some has FSDP's: a sweep under FSDP shows FSDP's
 * traffic, not two columns of n/a; one across shardings shows both. */
static void drop_unused_sharding(struct dc_sweep *sw)
{
	int dp = metric_at(sw, "comm.dp.bytes_per_rank"), fsdp = metric_at(sw, "comm.fsdp.bytes_per_rank");
	int has_fsdp = has_value(sw, fsdp) || has_value(sw, fsdp + 1);
	int drop = !has_fsdp ? fsdp : !(has_value(sw, dp) || has_value(sw, dp + 1)) ? dp : -1;
	if (drop < 0 || (size_t)drop + 1 >= sw->nmetrics)
		return;
	drop_metric(sw, (size_t)drop + 1);
	drop_metric(sw, (size_t)drop);
}

/* The default MFU over the BF16 peak beside step.mfu (over the matmul
 * peak, FP8's under fp8) only where some point that ran has them apart:
 * a sweep over precision.compute compares BF16 and FP8 on the peak they
 * share; one without FP8 shows one MFU column, as before. */
/* The work of a step: where the points that ran differ in it, a warning
 * (step times of different work do not compare: the course's "align the
 * work first"), whatever the metrics; the default column of it
 * (`column`) only then, else dropped as the same everywhere */
static void tokens_differ(struct dc_sweep *sw, int column, struct dc_diag *diag)
{
	int k = column ? metric_at(sw, "batch.tokens_per_step") : -1;
	int any = 0;
	uint64_t lo = 0, hi = 0;
	for (size_t i = 0; i < sw->npoints; i++) {
		const struct dc_sweep_point *pt = &sw->points[i];
		if (!pt->ok || !pt->tokens_per_step)
			continue;
		if (!any || pt->tokens_per_step < lo)
			lo = pt->tokens_per_step;
		if (!any || pt->tokens_per_step > hi)
			hi = pt->tokens_per_step;
		any = 1;
	}
	if (!any || lo == hi) {
		if (k >= 0)
			drop_metric(sw, (size_t)k);
		return;
	}
	{
		char a[32], b[32];
		dc_fmt_u64_grouped(a, lo);
		dc_fmt_u64_grouped(b, hi);
		dc_diag_warn(diag,
			     "the sweep's points run different work, %s to %s tokens a step (the global batch's samples "
			     "times model.seq_length; without training.global_batch_size the samples follow dp, "
			     "micro_batch_size and grad_accum_steps): compare their tokens/s per GPU and GPU-seconds "
			     "per token, not their step times",
			     a, b);
	}
}

/* Points whose loss figures are draws beside points whose figures are
 * expected values (their draws too many: docs/checkpoint-and-loss.md):
 * the rows do not say which is which (an expected row's zero error reads
 * as a draw's; a trial), so a warning names the expected points. */
static void loss_kinds_differ(const struct dc_sweep *sw, struct dc_diag *diag)
{
	char list[200];
	size_t used = 0, drawn = 0, expected = 0;
	list[0] = 0;
	for (size_t i = 0; i < sw->npoints; i++) {
		const struct dc_sweep_point *pt = &sw->points[i];
		if (!pt->ok || !pt->loss_ran)
			continue;
		if (!pt->loss_expected) {
			drawn++;
			continue;
		}
		if (expected++ < 8 && used + 24 < sizeof(list))
			used += (size_t)snprintf(list + used, sizeof(list) - used, "%s%zu", used ? ", " : "", i);
	}
	if (drawn && expected)
		dc_diag_warn(diag,
			     "the sweep's loss figures are drawn at some points and expected values at %zu (point%s %s%s: "
			     "their draws are too many, docs/checkpoint-and-loss.md): an expected point's errors are "
			     "expectations, not one draw's (--sweep-metrics loss.figures marks each: \"expected\", n/a where "
			     "drawn)",
			     expected, expected == 1 ? "" : "s", list, expected > 8 ? ", ..." : "");
}

/* Whether points a and b show the same figures in every column. */
static int same_metrics(const struct dc_sweep *sw, const struct dc_sweep_point *a, const struct dc_sweep_point *b)
{
	for (size_t k = 0; k < sw->nmetrics; k++) {
		if (a->null[k] != b->null[k])
			return 0;
		if (a->null[k])
			continue;
		switch (sw->metric[k].type) {
		case DC_FT_U64:
			if (a->cell[k].u != b->cell[k].u)
				return 0;
			break;
		case DC_FT_F64:
			if (a->cell[k].d != b->cell[k].d)
				return 0;
			break;
		case DC_FT_BOOL:
			if (a->cell[k].b != b->cell[k].b)
				return 0;
			break;
		default:
			if (strcmp(a->cell[k].s, b->cell[k].s) != 0)
				return 0;
			break;
		}
	}
	return 1;
}

/* An axis whose every value gives the same figures as its first, at every
 * point of the others' that ran both: a key the experiment does not read
 * (training.jitter outside whatif, a search key in systems, description),
 * or one the layout makes moot (a user trial's sweep printed identical rows
 * without a word). Said once an axis, never an error: a sweep may check
 * that a key does not matter. O(points x axes). */
static void axes_move_nothing(const struct dc_sweep *sw, const char *experiment, struct dc_diag *diag)
{
	size_t stride = 1;
	for (size_t a = sw->naxes; a-- > 0; stride *= sw->nvalues[a]) {
		size_t compared = 0;
		int moves = 0;
		if (sw->nvalues[a] < 2)
			continue;
		for (size_t i = 0; i < sw->npoints && !moves; i++) {
			size_t d = (i / stride) % sw->nvalues[a], base = i - d * stride, e = 0;
			const struct dc_sweep_point *pt = &sw->points[i];
			/* against the first value of the axis that ran there (a
			 * trial's first recipe, "delayed", was invalid under FP8, so
			 * its FP8 points were never compared and the BF16 ones,
			 * where the recipe is moot, said the key moved nothing) */
			while (e < d && !sw->points[base + e * stride].ok)
				e++;
			if (e == d || !pt->ok)
				continue;
			compared++;
			moves = !same_metrics(sw, pt, &sw->points[base + e * stride]);
		}
		if (compared > 0 && !moves)
			dc_diag_warn(diag,
				     "'--sweep': every value of '%s' gives the same figures in every column shown (%zu "
				     "point%s against the first value's that ran): experiment '%s' may not read the key, this "
				     "layout may make it moot, or it moves only figures outside these columns (--sweep-metrics "
				     "picks others)",
				     sw->axis[a], compared, compared == 1 ? "" : "s", experiment);
	}
}

static void drop_same_mfu(struct dc_sweep *sw)
{
	int k = metric_at(sw, "step.mfu"), b = metric_at(sw, "step.mfu_bf16_peak");
	if (k < 0 || b < 0)
		return;
	for (size_t i = 0; i < sw->npoints; i++) {
		const struct dc_sweep_point *pt = &sw->points[i];
		if (pt->ok && (pt->null[k] != pt->null[b] || (!pt->null[k] && pt->cell[k].d != pt->cell[b].d)))
			return;
	}
	drop_metric(sw, (size_t)b);
}

/* A byte column's table cells are GiB to three decimals, so a value under
 * half a MiB (a ring swept from 1 KiB) would read 0.000 beside gigabytes:
 * such a column shows whole bytes, grouped (1,792 and 1,879,048,192). Its
 * JSON and CSV values are bytes either way. */
static void small_bytes_raw(struct dc_sweep *sw)
{
	for (size_t k = 0; k < sw->nmetrics; k++) {
		if (sw->metric[k].unit != DC_U_BYTES)
			continue;
		for (size_t i = 0; i < sw->npoints; i++) {
			const struct dc_sweep_point *pt = &sw->points[i];
			double v;
			if (!pt->ok || pt->null[k])
				continue;
			v = sw->metric[k].type == DC_FT_U64 ? (double)pt->cell[k].u : fabs(pt->cell[k].d);
			if (v > 0 && v < 0.0005 * DC_GIB) {
				sw->metric[k].unit = DC_U_BYTES_RAW;
				break;
			}
		}
	}
}

/* The config keys a sweep can change the GPU count with: the nodes, the
 * GPUs a node, and a system preset, which sets the GPUs a node. */
static const char *const world_keys[] = {"cluster.num_nodes", "cluster.gpus_per_node", "cluster.system"};

/* The default metrics of a sweep over `axes` into buf[len]: the
 * experiment's, after the GPU count (topology.world_size) when a swept key
 * can change it and the experiment has the topology section, so a point
 * of another size says so (a system preset of 4 GPUs a node against one
 * of 8 at the same num_nodes). */
static const char *default_metrics(const struct dc_experiment *exp, const struct dc_sweep *sw, char *buf,
				   size_t len)
{
	const char *list = dc_sweep_default_metrics(exp);
	int world = 0, topology = 0;
	for (size_t a = 0; a < sw->naxes; a++)
		for (size_t i = 0; i < sizeof(world_keys) / sizeof(world_keys[0]); i++)
			world |= strcmp(sw->axis[a], world_keys[i]) == 0;
	for (size_t i = 0; exp->sections[i]; i++)
		topology |= strcmp(exp->sections[i]->name, "topology") == 0;
	if (!world || !topology)
		return list;
	snprintf(buf, len, "topology.world_size,%s", list);
	return buf;
}

/* Short table labels for the headline metrics; any other metric is
 * labelled with its last key, or its last two below a section's
 * sub-object (pick_metrics). */
static const struct {
	const char *path, *label;
} short_labels[] = {
	{"topology.world_size", "GPUs"},
	{"summary.peak_bytes", "peak/rank"},
	{"summary.fits", "fits"},
	{"summary.comm_bytes_per_step", "comm/step"},
	{"summary.comm_time_s", "comm time"},
	{"comm.dp.bytes_per_rank", "DP sent/rank"},
	{"comm.dp.time_s", "DP time"},
	{"comm.fsdp.bytes_per_rank", "FSDP sent/rank"},
	{"comm.fsdp.time_s", "FSDP time"},
	{"batch.tokens_per_step", "tokens/step"},
	{"step.time_s", "step time"},
	{"step.tokens_per_s_per_gpu", "tokens/s/GPU"},
	{"step.mfu", "MFU"},
	{"step.mfu_bf16_peak", "MFU/BF16 peak"},
	{"ring.time_s", "ring time"},
	{"ring.busbw_GBps", "busbw"},
	{"ring.bytes_sent_per_rank", "sent/rank"},
	{"checkpoint.saved_bytes", "saved"},
	{"checkpoint.save_time_s", "save time"},
	{"checkpoint.blocking_time_s", "blocking"},
	{"checkpoint.gpu_peak_bytes", "save peak/rank"},
	{"checkpoint.restore.restore_fits", "restore fits"},
	{"loss.global_mean", "global mean"},
	{"loss.rank_rel_error", "rank-mean error"},
	{"loss.microbatch_rel_error", "microbatch-mean error"},
	{"collectives.avg_busbw_GBps", "avg busbw"},
	{"search.counts.fit", "layouts fit"},
	{"search.best[0].step_time_s", "best step time"},
	{"search.best[0].tokens_per_s_per_gpu", "best tokens/s/GPU"},
	{"search.best[0].peak_bytes", "best peak/rank"},
	/* the scenarios in their fixed order (src/est/whatif.c) */
	{"whatif.scenarios[0].ratio", "slow network x"},
	{"whatif.scenarios[1].ratio", "slow data rank x"},
	{"whatif.scenarios[2].ratio", "whole-model AllGather x"},
	{"whatif.scenarios[3].ratio", "save peak x"},
	{"whatif.scenarios[4].ratio", "expert imbalance x"},
	{"whatif.scenarios[5].ratio", "stragglers x"},
};

/* One step of a metric path: a key and, for a table, a row index. */
struct step {
	const char *key;
	size_t len;
	int has_index;
	uint64_t index;
};

/* Splits the next step off *p ("phases[1]" then ".total_bytes").
 * Returns 0, or -1 for a malformed step. */
static int next_step(const char **p, struct step *s)
{
	const char *q = *p;
	s->key = q;
	s->len = strcspn(q, ".[");
	s->has_index = 0;
	if (s->len == 0)
		return -1;
	q += s->len;
	if (*q == '[') {
		uint64_t v = 0;
		q++;
		if (*q < '0' || *q > '9')
			return -1;
		for (; *q >= '0' && *q <= '9'; q++) {
			if (v > (UINT64_MAX - 9) / 10)
				return -1;
			v = v * 10 + (uint64_t)(*q - '0');
		}
		if (*q != ']')
			return -1;
		q++;
		s->has_index = 1;
		s->index = v;
	}
	if (*q == '.')
		q++;
	else if (*q)
		return -1;
	*p = q;
	return 0;
}

static const struct dc_field *find_key(const struct dc_fields *fs, const struct step *s)
{
	for (size_t i = 0; i < fs->n; i++)
		if (strlen(fs->f[i].key) == s->len && strncmp(fs->f[i].key, s->key, s->len) == 0)
			return &fs->f[i];
	return NULL;
}

/* ---- a path inside a JSON-valued field ----
 *
 * A field whose text is a JSON value (struct dc_field.json_value: the
 * search's best[].layout) is an object in the report's JSON, and
 * --check-max reads inside it ('search.best[0].layout.parallel.tp': its
 * keys hold dots). The field tables end there, so the rest of a metric's
 * path is read in each point's text: a key is the longest member's name
 * that the path goes on with ("parallel.tp" before "parallel"), a row an
 * index ("[1]"). The texts are the report's own (well-formed): these
 * readers only must not run past a bad one. */

static const char *json_ws(const char *p)
{
	while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
		p++;
	return p;
}

/* The end of the JSON value at p (no blanks before it), or NULL. */
static const char *json_skip(const char *p)
{
	int depth = 0;
	if (*p != '{' && *p != '[' && *p != '"') {
		const char *q = p;
		while (*q && !strchr(",:]} \t\r\n", *q))
			q++;
		return q > p ? q : NULL;
	}
	for (;; p++) {
		if (!*p)
			return NULL;
		if (*p == '"') {
			for (p++; *p != '"'; p++)
				if (!*p || (*p == '\\' && !*++p))
					return NULL;
			if (depth == 0)
				return p + 1;
		} else if (*p == '{' || *p == '[') {
			depth++;
		} else if ((*p == '}' || *p == ']') && --depth == 0) {
			return p + 1;
		}
	}
}

/* Whether `rest` is a path a JSON value can hold: keys (any bytes but '.'
 * and '['; a member's name may hold dots, matched whole by json_find) and
 * row indexes, "parallel.tp", "[0].x". */
static int json_path_ok(const char *rest)
{
	while (*rest) {
		if (*rest == '[') {
			const char *q = rest + 1;
			while (*q >= '0' && *q <= '9')
				q++;
			if (q == rest + 1 || q - rest > 19 || *q != ']')
				return 0;
			rest = q + 1;
		} else {
			size_t n = strcspn(rest, ".[");
			if (n == 0)
				return 0;
			rest += n;
		}
		if (*rest == '.' && (!rest[1] || rest[1] == '.' || rest[1] == '['))
			return 0;
		if (*rest == '.')
			rest++;
	}
	return 1;
}

/* The member name at p (a JSON string) decoded into buf: its length, or
 * (size_t)-1; *end past its closing quote. */
static size_t json_key(const char *p, char *buf, size_t len, const char **end)
{
	const char *q = json_skip(p);
	if (*p != '"' || !q || (size_t)(q - p) >= len)
		return (size_t)-1;
	*end = q;
	return dc_json_string_text(buf, len, p, (size_t)(q - p));
}

/* What m->miss adds about the object at `obj`, which has no member
 * `want`: "; did you mean 'PREFIX.NAME'?" when a name is 1 to 3 edits
 * away (as resolve_static says it), else its names, as many as the line
 * holds, so the next try is not a guess. */
static void json_miss_names(struct dc_sweep_metric *m, const char *prefix, size_t prefix_len, const char *obj,
			    const char *want, size_t want_len)
{
	char names[300], key[128], near[128];
	size_t used = 0, shown = 0, more = 0, best = want_len / 2 < 3 ? want_len / 2 + 1 : 4;
	const char *p = json_ws(obj + 1), *end;
	size_t at = strlen(m->miss);
	near[0] = names[0] = '\0';
	while (*p == '"') {
		size_t n = json_key(p, key, sizeof(key), &end), d;
		if (n == (size_t)-1 || *(p = json_ws(end)) != ':' || !(end = json_skip(json_ws(p + 1))))
			break;
		if ((d = dc_edit_distance(want, want_len, key, 1)) < best) {
			best = d;
			snprintf(near, sizeof(near), "%s", key);
		}
		if (used + n + 16 < sizeof(names)) {
			used += (size_t)snprintf(names + used, sizeof(names) - used, "%s%s", shown ? ", " : "", key);
			shown++;
		} else {
			more++;
		}
		p = json_ws(end);
		if (*p == ',')
			p = json_ws(p + 1);
	}
	if (near[0])
		snprintf(m->miss + at, sizeof(m->miss) - at, "; did you mean '%.*s.%s'?", (int)prefix_len, prefix, near);
	else if (shown && more)
		snprintf(m->miss + at, sizeof(m->miss) - at, "; its keys: %s (%zu more)", names, more);
	else if (shown)
		snprintf(m->miss + at, sizeof(m->miss) - at, "; its keys: %s", names);
}

/* The value at `rest` inside the JSON value `v` (m's path, `rest` its
 * part inside): its text in *out[*outlen]. Returns 0; 1 where the value
 * has no such row (null, as a table's row past its end); 2 where it has
 * no such key, said in m->miss unless a point said it before; -1 when the
 * text is no JSON (a bug: null). */
static int json_find(struct dc_sweep_metric *m, const char *v, const char *rest, const char **out, size_t *outlen)
{
	const char *end;
	v = json_ws(v);
	while (*rest) {
		if (*rest == '[') {
			uint64_t want = strtoull(rest + 1, NULL, 10), i = 0; /* digits: json_path_ok */
			if (*v != '[')
				goto miss;
			for (v = json_ws(v + 1); *v != ']'; i++) {
				if (i == want)
					break;
				if (!(end = json_skip(v)))
					return -1;
				v = json_ws(end);
				if (*v == ',')
					v = json_ws(v + 1);
				else if (*v != ']')
					return -1;
			}
			if (*v == ']')
				return 1;
			rest = strchr(rest, ']') + 1;
		} else {
			char key[128];
			const char *val = NULL, *p;
			size_t got = 0, n;
			if (*v != '{')
				goto miss;
			for (p = json_ws(v + 1); *p == '"';) {
				if ((n = json_key(p, key, sizeof(key), &end)) == (size_t)-1 || *(p = json_ws(end)) != ':')
					return -1;
				p = json_ws(p + 1);
				/* the longest name the path goes on with: a key with
				 * dots is whole, or is no key here */
				if (n > got && strncmp(rest, key, n) == 0 &&
				    (rest[n] == '\0' || rest[n] == '.' || rest[n] == '['))
					got = n, val = p;
				if (!(end = json_skip(p)))
					return -1;
				p = json_ws(end);
				if (*p == ',')
					p = json_ws(p + 1);
			}
			if (!val)
				goto miss;
			v = val;
			rest += got;
		}
		if (*rest == '.')
			rest++;
	}
	if (!(end = json_skip(v)))
		return -1;
	*out = v;
	*outlen = (size_t)(end - v);
	return 0;
miss:
	if (!m->miss[0]) {
		/* the part of the path that reached v (PREFIX), and what it
		 * wanted there */
		size_t at = (size_t)(rest - m->path), plen = at && m->path[at - 1] == '.' ? at - 1 : at;
		size_t want = *rest == '[' ? strcspn(rest, "]") + 1 : strcspn(rest, "[");
		const char *kind = *v == '{' ? "an object" : *v == '[' ? "a list" : *v == '"' ? "a text"
				 : *v == 't' || *v == 'f' ? "yes/no" : *v == 'n' ? "null" : "a number";
		if (*v == '{' && *rest != '[') {
			snprintf(m->miss, sizeof(m->miss), "'%.200s': '%.*s' has no key '%.*s' (at every point that ran)",
				 m->path, (int)plen, m->path, (int)(want < 64 ? want : 64), rest);
			json_miss_names(m, m->path, plen, v, rest, want);
		} else {
			snprintf(m->miss, sizeof(m->miss), "'%.200s': '%.*s' is %s, so no %s '%.*s' (at every point that ran)",
				 m->path, (int)plen, m->path, kind, *rest == '[' ? "row" : "key",
				 (int)(want < 64 ? want : 64), rest);
		}
	}
	return 2;
}

/* The scalar field `path` names among the experiment's sections, from the
 * static field tables alone: a JSON-valued field too, the path going on
 * inside it or not (*from_json set). Returns it, or NULL with why in err. */
static const struct dc_field *resolve_static(const struct dc_experiment *exp, const char *path, int *from_json,
					     char *err, size_t errlen)
{
	const struct dc_fields *fs = NULL;
	const struct dc_field *f = NULL;
	const char *p = path;
	struct step s;

	if (next_step(&p, &s) != 0 || s.has_index)
		goto bad;
	for (size_t i = 0; exp->sections[i]; i++)
		if (strlen(exp->sections[i]->name) == s.len && strncmp(exp->sections[i]->name, s.key, s.len) == 0)
			fs = &exp->sections[i]->fields;
	if (!fs) {
		snprintf(err, errlen, "'%.200s': experiment '%s' has no section '%.*s'", path, exp->name,
			 (int)(s.len < 64 ? s.len : 64), s.key);
		return NULL;
	}
	while (*p) {
		if (next_step(&p, &s) != 0)
			goto bad;
		if (!fs || !(f = find_key(fs, &s))) {
			/* the nearest key there, 1 to 3 edits away and at
			 * most half the key's length ("peak_byte": peak_bytes;
			 * "x" suggests nothing), letters folded as the budgets'
			 * did-you-mean (check.c) folds them */
			const char *near = NULL;
			size_t best = s.len / 2 < 3 ? s.len / 2 + 1 : 4;
			for (size_t i = 0; fs && i < fs->n; i++) {
				size_t d = dc_edit_distance(s.key, s.len, fs->f[i].key, 1);
				if (d < best) {
					best = d;
					near = fs->f[i].key;
				}
			}
			if (near) {
				snprintf(err, errlen, "'%.200s': no field '%.*s' there; did you mean '%.*s%s'?", path,
					 (int)(s.len < 64 ? s.len : 64), s.key, (int)(s.key - path), path, near);
			} else {
				/* nothing near: the names there, as many as the
				 * line holds, so the next try is not a guess */
				int n = snprintf(err, errlen, "'%.200s': no field '%.*s' there", path,
						 (int)(s.len < 64 ? s.len : 64), s.key);
				size_t used = n > 0 && (size_t)n < errlen ? (size_t)n : errlen, shown = 0;
				for (size_t i = 0; fs && i < fs->n; i++) {
					const char *sep = shown ? ", " : "; its fields: ";
					/* whole names only, room kept for " (N more)" */
					if (used + strlen(sep) + strlen(fs->f[i].key) + 16 >= errlen)
						break;
					used += (size_t)snprintf(err + used, errlen - used, "%s%s", sep, fs->f[i].key);
					shown++;
				}
				if (fs && shown && shown < fs->n)
					snprintf(err + used, errlen - used, " (%zu more)", fs->n - shown);
			}
			return NULL;
		}
		if (f->type == DC_FT_ROWS && !s.has_index) {
			snprintf(err, errlen, "'%.200s': '%.*s' is a table; pick a row, as in %.*s[0]", path,
				 (int)s.len, s.key, (int)s.len, s.key);
			return NULL;
		}
		/* a JSON-valued field: what its JSON holds is a point's to
		 * say (json_find); here only the path's shape is checked */
		if (f->type == DC_FT_FN && f->json_value) {
			const char *rest = s.key + s.len;
			if (!json_path_ok(*rest == '.' ? rest + 1 : rest) || (*rest == '.' && !rest[1]))
				goto bad;
			*from_json = 1;
			return f;
		}
		if (f->type != DC_FT_ROWS && s.has_index)
			goto bad;
		fs = f->type == DC_FT_OBJECT || f->type == DC_FT_ROWS ? f->sub : NULL;
	}
	if (!f || !dc_fld_scalar(f)) {
		snprintf(err, errlen, "'%.200s': not a number or text (an object, table or list)", path);
		return NULL;
	}
	return f;
bad:
	snprintf(err, errlen, "'%.200s': expected a dotted path such as summary.peak_bytes", path);
	return NULL;
}

/* The value of metric m in the report `r`, into the point's cell k. A
 * field that is not shown, is null, or a row out of range is null. A
 * text is kept whole (a 63-byte cut once split a JSON text and a UTF-8
 * character): the report's text as its sinks print it. Returns 0, or -1
 * when out of memory. */
static int lookup(const struct dc_report *r, struct dc_sweep_metric *m, struct dc_sweep_point *pt, size_t k)
{
	alignas(max_align_t) unsigned char row[DC_ROW_MAX];
	char buf[DC_CELL_MAX];
	const void *base;
	const struct dc_fields *fs = dc_report_fields(r, &base);
	const struct dc_field *f = NULL;
	const char *p = m->path, *rest = NULL;
	struct step s;

	pt->null[k] = 1;
	while (*p) {
		if (next_step(&p, &s) != 0 || !fs || !(f = find_key(fs, &s)) || !dc_fld_shown(f, base) ||
		    dc_fld_null(f, base))
			return 0;
		if (f->type == DC_FT_FN && f->json_value) {
			/* the path goes on inside its JSON (resolve_static) */
			rest = s.key + s.len;
			rest += *rest == '.';
			break;
		}
		if (f->type == DC_FT_OBJECT) {
			base = dc_fld_ptr(base, f);
			fs = f->sub;
		} else if (f->type == DC_FT_ROWS) {
			if (!s.has_index || s.index >= f->rows->count(base) || f->rows->row_size > sizeof(row))
				return 0;
			memset(row, 0, f->rows->row_size);
			f->rows->row(base, s.index, row);
			base = row;
			fs = f->sub;
		} else {
			fs = NULL;
		}
	}
	if (!f || !dc_fld_scalar(f) || !dc_fld_shown(f, base) || dc_fld_null(f, base))
		return 0;
	switch (f->type) {
	case DC_FT_U64: memcpy(&pt->cell[k].u, dc_fld_ptr(base, f), sizeof(uint64_t)); break;
	case DC_FT_F64: memcpy(&pt->cell[k].d, dc_fld_ptr(base, f), sizeof(double)); break;
	case DC_FT_BOOL: memcpy(&pt->cell[k].b, dc_fld_ptr(base, f), sizeof(int)); break;
	default: {
		const char *t = dc_fld_text(f, base, buf, sizeof(buf));
		size_t n = strlen(t);
		if (m->from_json) {
			/* its JSON text, typed once every point ran (type_json) */
			const char *v = t;
			if (json_find(m, t, rest ? rest : "", &v, &n) != 0)
				return 0;
			t = v;
			m->found = 1;
		}
		if (!(pt->text[k] = dc_strndup(t, n)))
			return -1;
		pt->cell[k].s = pt->text[k];
		break;
	}
	}
	pt->null[k] = 0;
	return 0;
}

/* A metric read from JSON (from_json), once every point ran: each point's
 * JSON text as the column's type, the one all its values share. Numbers
 * are a count where each is a whole number a count holds, else a double;
 * true and false a yes/no; strings a text (decoded, as CSV decodes a
 * JSON-valued string); a JSON null is null. Objects and arrays, or values
 * of mixed types, stay JSON (m->json). Returns 0, or -1 out of memory. */
static int type_json(struct dc_sweep *sw, struct dc_sweep_metric *m, size_t k)
{
	enum { NUM_U64 = 1, NUM_F64 = 2, BOOL = 4, TEXT = 8, OTHER = 16 };
	int kinds = 0;
	for (size_t i = 0; i < sw->npoints; i++) {
		struct dc_sweep_point *pt = &sw->points[i];
		const char *t = pt->text[k];
		if (!pt->ok || pt->null[k])
			continue;
		if (strcmp(t, "null") == 0) {
			free(pt->text[k]);
			pt->text[k] = NULL;
			pt->null[k] = 1;
		} else if (strcmp(t, "true") == 0 || strcmp(t, "false") == 0) {
			kinds |= BOOL;
		} else if (*t == '"') {
			kinds |= TEXT;
		} else if (*t == '{' || *t == '[') {
			kinds |= OTHER;
		} else {
			/* digits alone, at most 19 of them: no sign, fraction,
			 * exponent, and no overflow */
			size_t d = strspn(t, "0123456789");
			kinds |= d && !t[d] && d < 20 ? NUM_U64 : NUM_F64;
		}
	}
	if (kinds & NUM_F64)
		kinds &= ~NUM_U64;
	if (kinds == 0 || (kinds & (kinds - 1))) {
		/* none, or several kinds: the JSON as it is */
		m->type = DC_FT_STR;
		m->json = kinds != 0;
		return 0;
	}
	m->type = kinds == NUM_U64 ? DC_FT_U64 : kinds == NUM_F64 ? DC_FT_F64 : kinds == BOOL ? DC_FT_BOOL : DC_FT_STR;
	m->json = kinds == OTHER;
	if (m->json)
		return 0;
	for (size_t i = 0; i < sw->npoints; i++) {
		struct dc_sweep_point *pt = &sw->points[i];
		char *t = pt->text[k];
		if (!pt->ok || pt->null[k])
			continue;
		switch (kinds) {
		case NUM_U64: pt->cell[k].u = strtoull(t, NULL, 10); break;
		case NUM_F64: pt->cell[k].d = strtod(t, NULL); break;
		case BOOL: pt->cell[k].b = *t == 't'; break;
		default: {
			/* never longer than its JSON: decoded in place */
			size_t n = dc_json_string_text(t, strlen(t) + 1, t, strlen(t));
			if (n != (size_t)-1)
				continue;
			pt->null[k] = 1; /* \u0000: no C string holds it */
			break;
		}
		}
		free(t);
		pt->text[k] = NULL;
	}
	return 0;
}

/* ---- the report's field tables ---- */

struct sweep_row {
	uint64_t point;
	const char *value[DC_SWEEP_MAX_AXES];
	const char *status;
	union dc_sweep_cell cell[DC_SWEEP_MAX_METRICS];
	unsigned char null[DC_SWEEP_MAX_METRICS];
	const char *error;
	const char *values; /* the point's values_json */
};

_Static_assert(sizeof(struct sweep_row) <= DC_ROW_MAX, "sweep row too large");
_Static_assert(DC_SWEEP_VALUES_JSON <= DC_CELL_MAX, "a point's values are one cell's text");
_Static_assert(1 + DC_SWEEP_MAX_AXES + 1 + DC_SWEEP_MAX_METRICS + 2 <= DC_MAX_COLUMNS, "too many columns");
/* the columns beside the metrics': point, status, error, values */
#define FIXED_COLUMNS 4

static uint64_t rows_count(const void *base)
{
	return ((const struct dc_sweep *)base)->npoints;
}

static void row_at(const void *base, uint64_t i, void *out)
{
	const struct dc_sweep *sw = base;
	const struct dc_sweep_point *pt = &sw->points[i];
	struct sweep_row *row = out;
	row->point = i;
	row->values = pt->values_json;
	for (size_t a = 0; a < sw->naxes; a++)
		row->value[a] = pt->value[a];
	row->status = pt->ok ? "ok" : "invalid";
	for (size_t k = 0; k < sw->nmetrics; k++) {
		row->cell[k] = pt->cell[k];
		row->null[k] = (unsigned char)(!pt->ok || pt->null[k]);
	}
	row->error = pt->ok ? NULL : pt->error;
}

static const struct dc_rows sweep_rows = {rows_count, row_at, sizeof(struct sweep_row), "points", 0, 0};

static int error_null(const void *base)
{
	return ((const struct sweep_row *)base)->error == NULL;
}

/* is_null of metric column K: a hook takes the row alone, so one per column */
#define NULL_FN(K)                                              \
	static int null_##K(const void *base)                   \
	{                                                       \
		return ((const struct sweep_row *)base)->null[K]; \
	}
NULL_FN(0) NULL_FN(1) NULL_FN(2) NULL_FN(3) NULL_FN(4) NULL_FN(5) NULL_FN(6) NULL_FN(7)
NULL_FN(8) NULL_FN(9) NULL_FN(10) NULL_FN(11) NULL_FN(12) NULL_FN(13) NULL_FN(14) NULL_FN(15)
static int (*const null_fns[DC_SWEEP_MAX_METRICS])(const void *) = {
	null_0, null_1, null_2,  null_3,  null_4,  null_5,  null_6,  null_7,
	null_8, null_9, null_10, null_11, null_12, null_13, null_14, null_15,
};

/* text of JSON metric column K (struct dc_sweep_metric.json): its JSON,
 * which the JSON sink writes as it is. Never cut: it is a piece of the
 * text a report's field wrote into a cell (lookup), so it fits one. */
#define JSON_FN(K)                                                                   \
	static void json_##K(const void *base, char *buf, size_t len)                \
	{                                                                            \
		const char *t = ((const struct sweep_row *)base)->cell[K].s;         \
		snprintf(buf, len, "%s", t && strlen(t) < len ? t : "null");         \
	}
JSON_FN(0) JSON_FN(1) JSON_FN(2) JSON_FN(3) JSON_FN(4) JSON_FN(5) JSON_FN(6) JSON_FN(7)
JSON_FN(8) JSON_FN(9) JSON_FN(10) JSON_FN(11) JSON_FN(12) JSON_FN(13) JSON_FN(14) JSON_FN(15)
static void (*const json_fns[DC_SWEEP_MAX_METRICS])(const void *, char *, size_t) = {
	json_0, json_1, json_2,  json_3,  json_4,  json_5,  json_6,  json_7,
	json_8, json_9, json_10, json_11, json_12, json_13, json_14, json_15,
};

/* Axis a's value as JSON, into b: as --set reads it (config_values.c), a
 * strict JSON scalar (8, 1.5, true, null, "dgx-h100" in quotes) as it is,
 * or an array for a list key; any other text ("80 GiB", dgx-h100) a
 * string. */
static void value_json(struct dc_buf *b, const char *path, const char *v)
{
	const struct dc_config_key_info *k = dc_config_key_find(path);
	char lead = v[strspn(v, " \t\r\n")], what[8];
	size_t line, col;
	if (dc_json_check_strict(v, strlen(v), &line, &col, what, sizeof(what)) == 0 && lead != '{' &&
	    (lead != '[' || (k && strcmp(k->kind, "list") == 0)))
		dc_buf_puts(b, v);
	else
		dc_buf_json_string(b, v);
}

/* The row's swept values in their JSON types (the point's values_json). */
static void values_text(const void *base, char *buf, size_t len)
{
	snprintf(buf, len, "%s", ((const struct sweep_row *)base)->values);
}

/* Point pt's values_json: an object of the swept paths and the values in
 * their JSON types, {"cluster.num_nodes": 8, "cluster.system": "dgx-h100"}
 * (the string columns keep the values as written); null where it would
 * not fit a cell (4 values of 63 control characters). Returns 0, or -1
 * when out of memory. */
static int point_values_json(const struct dc_sweep *sw, struct dc_sweep_point *pt)
{
	struct dc_buf b;
	int rc = 0;
	dc_buf_init(&b);
	dc_buf_putc(&b, '{');
	for (size_t a = 0; a < sw->naxes; a++) {
		if (a)
			dc_buf_puts(&b, ", ");
		dc_buf_json_string(&b, sw->axis[a]);
		dc_buf_puts(&b, ": ");
		value_json(&b, sw->axis[a], pt->value[a]);
	}
	dc_buf_putc(&b, '}');
	if (b.failed)
		rc = -1;
	else
		snprintf(pt->values_json, sizeof(pt->values_json), "%s", b.len < sizeof(pt->values_json) ? b.data : "null");
	dc_buf_release(&b);
	return rc;
}

static void sweep_title(const void *base, char *buf, size_t len)
{
	snprintf(buf, len, "Sweep over %s", ((const struct dc_sweep *)base)->axes_text);
}

/* every point applied these files (sweep_load's calibrate_logs and
 * compute_profile) */
static int has_calibrate(const void *base)
{
	return ((const struct dc_sweep *)base)->nlogs > 0;
}

static uint64_t log_count(const void *base)
{
	return ((const struct dc_sweep *)base)->nlogs;
}

static void log_row(const void *base, uint64_t i, void *row)
{
	((struct dc_log_row *)row)->log = ((const struct dc_sweep *)base)->logs[i];
}

static const struct dc_rows log_rows = {log_count, log_row, sizeof(struct dc_log_row), "logs", 1, 0, .every = 1};

static int has_profile(const void *base)
{
	return ((const struct dc_sweep *)base)->profile != NULL;
}

static void build_fields(struct dc_sweep *sw)
{
	struct dc_field *c = sw->col_f;
	size_t n = 0;

	memset(sw->col_f, 0, sizeof(sw->col_f));
	c[n++] = (struct dc_field){"point", "point", DC_U_COUNT, DC_FT_U64, offsetof(struct sweep_row, point)};
	for (size_t a = 0; a < sw->naxes; a++)
		c[n++] = (struct dc_field){sw->axis[a], sw->axis[a], DC_U_NONE, DC_FT_STR,
					   offsetof(struct sweep_row, value) + a * sizeof(const char *)};
	c[n++] = (struct dc_field){"status", "status", DC_U_NONE, DC_FT_STR, offsetof(struct sweep_row, status)};
	for (size_t k = 0; k < sw->nmetrics; k++) {
		size_t off = offsetof(struct sweep_row, cell) + k * sizeof(union dc_sweep_cell);
		if (sw->metric[k].json) {
			/* the value itself in JSON (and its text in CSV), as the
			 * report has it; the table leaves such a column out, so
			 * a twin of the same key shows it there as text */
			c[n] = (struct dc_field){sw->metric[k].path, sw->metric[k].label, DC_U_NONE, DC_FT_FN, 0};
			c[n].text = json_fns[k];
			c[n].json_value = 1;
			c[n++].is_null = null_fns[k];
			c[n] = (struct dc_field){sw->metric[k].path, sw->metric[k].label, DC_U_NONE, DC_FT_STR, off};
			c[n].table_only = 1;
			c[n++].is_null = null_fns[k];
			continue;
		}
		c[n] = (struct dc_field){sw->metric[k].path, sw->metric[k].label, sw->metric[k].unit,
					 sw->metric[k].type, off};
		c[n++].is_null = null_fns[k];
	}
	c[n] = (struct dc_field){"error", "why not", DC_U_NONE, DC_FT_STR, offsetof(struct sweep_row, error)};
	c[n++].is_null = error_null;
	c[n] = (struct dc_field){"values", "values", DC_U_NONE, DC_FT_FN, 0};
	c[n].text = values_text;
	c[n++].json_value = 1;
	sw->cols.f = sw->col_f;
	sw->cols.n = n;

	memset(sw->obj_f, 0, sizeof(sw->obj_f));
	sw->obj_f[0] = (struct dc_field){"axes", "swept (first varies slowest)", DC_U_NONE, DC_FT_TEXT,
					 offsetof(struct dc_sweep, axes_text)};
	sw->obj_f[1] = (struct dc_field){"points", "points in the grid", DC_U_COUNT, DC_FT_U64,
					 offsetof(struct dc_sweep, npoints_u)};
	sw->obj_f[2] = (struct dc_field){"valid", "points that ran", DC_U_COUNT, DC_FT_U64,
					 offsetof(struct dc_sweep, valid_u)};
	sw->obj_f[3] = (struct dc_field){"calibrate", "network fitted to (--calibrate)", DC_U_NONE, DC_FT_ROWS, 0};
	sw->obj_f[3].sub = &dc_log_row_table;
	sw->obj_f[3].rows = &log_rows;
	sw->obj_f[3].shown = has_calibrate;
	sw->obj_f[4] = (struct dc_field){"compute_profile", "kernel levels from (--calibrate-compute)", DC_U_NONE,
					 DC_FT_STR, offsetof(struct dc_sweep, profile)};
	sw->obj_f[4].shown = has_profile;
	sw->obj_f[5] = (struct dc_field){"rows", "points", DC_U_NONE, DC_FT_ROWS, 0};
	sw->obj_f[5].sub = &sw->cols;
	sw->obj_f[5].rows = &sweep_rows;
	sw->obj.f = sw->obj_f;
	sw->obj.n = 6;
}

/* ---- running the points ---- */

/* The errors of a failed point, one line each without the file name
 * ("configs/x.json: error: "), joined with "; ", whole: a new string, or
 * NULL when out of memory. */
static char *point_error(const struct dc_diag *d)
{
	struct dc_buf b;
	dc_buf_init(&b);
	for (size_t i = 0; i < d->count; i++) {
		const char *t = d->entries[i].text, *e;
		if (d->entries[i].severity != DC_SEV_ERROR)
			continue;
		if ((e = strstr(t, "error: ")))
			t = e + strlen("error: ");
		if (b.len)
			dc_buf_puts(&b, "; ");
		dc_buf_add(&b, t, strcspn(t, "\n"));
	}
	if (!b.len)
		dc_buf_puts(&b, "not run");
	dc_buf_add(&b, "", 1);
	if (b.failed) {
		dc_buf_release(&b);
		return NULL;
	}
	return b.data;
}

static size_t align_up(size_t n)
{
	size_t a = alignof(max_align_t);
	return (n + a - 1) / a * a;
}

/* Axis a's value v, copied into `out` (checked by dc_sweep_axis_check). */
static void axis_value(const char *text, size_t v, char *out)
{
	const char *p = strchr(text, '=') + 1;
	size_t n;
	while (v--)
		p += dc_sweep_value_len(p) + 1;
	p = dc_sweep_value_trim(p, dc_sweep_value_len(p), &n);
	memcpy(out, p, n);
	out[n] = '\0';
}

/* The points' warnings, each text once with the points that drew it (in
 * the order of the first point that did), so a warning no swept key
 * moves is said once, not at every point. Texts that differ in their
 * figures alone (a warning that quotes the point's own MFU: a trial's
 * sweep said the same 700 characters at eight points) are one warning,
 * each figure that moves said as its least and greatest, "0.5093 to
 * 0.6491". A figure is a run of digits not inside a word ("h100" is a
 * word), with its sign, its "." and its thousands' ","s. */
struct point_warning {
	char *text;      /* the first point's */
	size_t nfig;     /* figures in it */
	double *lo, *hi; /* each figure's least and greatest over the points */
	size_t *lo_at, *hi_at; /* the texts' points that gave them, as w->points indexes */
	char **said;     /* each point's text (for the figures' spelling), w->points' order */
	size_t *points, npoints, alloc;
};

struct point_warnings {
	struct point_warning *w;
	size_t n, alloc;
};

static void point_warnings_free(struct point_warnings *pw)
{
	for (size_t i = 0; i < pw->n; i++) {
		struct point_warning *w = &pw->w[i];
		for (size_t k = 0; k < w->npoints; k++)
			free(w->said[k]);
		free(w->said);
		free(w->text);
		free(w->lo);
		free(w->hi);
		free(w->lo_at);
		free(w->hi_at);
		free(w->points);
	}
	free(pw->w);
	memset(pw, 0, sizeof(*pw));
}

static int is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static int is_word(char c)
{
	return is_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '.';
}

/* The figure that starts at t[i], its length (0: none starts there) */
static size_t figure_at(const char *t, size_t i)
{
	size_t j = i;
	/* inside a word or a name: "h100", "v0.5", "sxm4-80gb", "models/
	 * llama-3-8b", "best[0]", an exponent's "e+04" (a review found
	 * names merged into "llama-3-8 to 70b") */
	if (i > 0 && (is_word(t[i - 1]) || strchr("-+/[", t[i - 1])))
		return 0;
	if ((t[j] == '-' || t[j] == '+') && is_digit(t[j + 1]))
		j++;
	if (!is_digit(t[j]))
		return 0;
	while (is_digit(t[j]) || ((t[j] == '.' || t[j] == ',') && is_digit(t[j + 1])))
		j++;
	/* an exponent is the figure's: "2e+04" */
	if ((t[j] == 'e' || t[j] == 'E') &&
	    (is_digit(t[j + 1]) || ((t[j + 1] == '+' || t[j + 1] == '-') && is_digit(t[j + 2])))) {
		j += is_digit(t[j + 1]) ? 1 : 2;
		while (is_digit(t[j]))
			j++;
	}
	/* followed by a letter, it is a name's ("80gb", "16B" is a unit's:
	 * a space comes first) */
	if ((t[j] >= 'a' && t[j] <= 'z') || (t[j] >= 'A' && t[j] <= 'Z') || t[j] == '_')
		return 0;
	return j - i;
}

static double figure_value(const char *t, size_t len)
{
	char buf[64];
	size_t n = 0;
	for (size_t i = 0; i < len && n + 1 < sizeof(buf); i++)
		if (t[i] != ',')
			buf[n++] = t[i];
	buf[n] = '\0';
	return strtod(buf, NULL);
}

/* 1 when a and b are the same text but for their figures' values; the
 * figures counted into *nfig */
static int same_but_figures(const char *a, const char *b, size_t *nfig)
{
	size_t i = 0, j = 0, n = 0;
	for (;;) {
		size_t fa = figure_at(a, i), fb = figure_at(b, j);
		if (fa && fb) {
			i += fa;
			j += fb;
			n++;
		} else if (fa || fb || a[i] != b[j]) {
			return 0;
		} else if (!a[i]) {
			*nfig = n;
			return 1;
		} else {
			i++;
			j++;
		}
	}
}

/* The k-th figure of t: its start and length */
static const char *nth_figure(const char *t, size_t k, size_t *len)
{
	for (size_t i = 0; t[i];) {
		size_t f = figure_at(t, i);
		if (f && k-- == 0) {
			*len = f;
			return t + i;
		}
		i += f ? f : 1;
	}
	*len = 0;
	return t;
}

/* Whether the figure at t[i], `len` long, is a member of a list of figures
 * (", " between them: "ranks 0, 2, 4, 6") */
static int in_list(const char *t, size_t i, size_t len)
{
	if (t[i + len] == ',' && t[i + len + 1] == ' ' && figure_at(t, i + len + 2))
		return 1;
	return i >= 3 && t[i - 2] == ',' && t[i - 1] == ' ' && is_digit(t[i - 3]);
}

/* 1 when a figure of a list moves between a and b (the same but for their
 * figures): a list is its members, not a range of each (a CI trial's two
 * points' groups {0, 2, 4, 6} and {0, 4, 8, 12} read "0, 2 to 4, 4 to 8,
 * 6 to 12", neither of them) */
static int list_moves(const char *a, const char *b, size_t nfig)
{
	for (size_t k = 0; k < nfig; k++) {
		size_t la, lb;
		const char *fa = nth_figure(a, k, &la), *fb = nth_figure(b, k, &lb);
		if ((la != lb || memcmp(fa, fb, la) != 0) && (in_list(a, (size_t)(fa - a), la) || in_list(b, (size_t)(fb - b), lb)))
			return 1;
	}
	return 0;
}

/* Point `index` drew `text`. Returns 0, or -1 when out of memory. */
static int point_warning_add(struct point_warnings *pw, const char *text, size_t index)
{
	struct point_warning *w = NULL;
	size_t nfig = 0;
	for (size_t i = 0; i < pw->n && !w; i++)
		if (strcmp(pw->w[i].text, text) == 0)
			w = &pw->w[i];
	/* the same but for its figures, from a point that has not said it
	 * (two such texts of one point stay two warnings) */
	for (size_t i = 0; i < pw->n && !w; i++)
		if (pw->w[i].npoints && pw->w[i].points[pw->w[i].npoints - 1] != index &&
		    same_but_figures(pw->w[i].text, text, &nfig) && !list_moves(pw->w[i].text, text, nfig))
			w = &pw->w[i];
	if (!w) {
		if (pw->n == pw->alloc) {
			size_t a = pw->alloc ? 2 * pw->alloc : 8;
			struct point_warning *g = dc_realloc(pw->w, a * sizeof(*g));
			if (!g)
				return -1;
			pw->w = g;
			pw->alloc = a;
		}
		w = &pw->w[pw->n];
		memset(w, 0, sizeof(*w));
		(void)same_but_figures(text, text, &w->nfig);
		if (!(w->text = dc_strdup(text)))
			return -1;
		pw->n++;
		if (w->nfig && (!(w->lo = dc_calloc(w->nfig, sizeof(*w->lo))) ||
				!(w->hi = dc_calloc(w->nfig, sizeof(*w->hi))) ||
				!(w->lo_at = dc_calloc(w->nfig, sizeof(*w->lo_at))) ||
				!(w->hi_at = dc_calloc(w->nfig, sizeof(*w->hi_at)))))
			return -1;
	}
	if (w->npoints && w->points[w->npoints - 1] == index)
		return 0; /* one point saying it twice: said once */
	if (w->npoints == w->alloc) {
		size_t a = w->alloc ? 2 * w->alloc : 4;
		size_t *g = dc_realloc(w->points, a * sizeof(*g));
		char **h;
		if (!g)
			return -1;
		w->points = g;
		if (!(h = dc_realloc(w->said, a * sizeof(*h))))
			return -1;
		w->said = h;
		w->alloc = a;
	}
	if (!(w->said[w->npoints] = dc_strdup(text)))
		return -1;
	for (size_t k = 0; k < w->nfig; k++) {
		size_t len;
		const char *f = nth_figure(text, k, &len);
		double v = figure_value(f, len);
		if (w->npoints == 0 || v < w->lo[k]) {
			w->lo[k] = v;
			w->lo_at[k] = w->npoints;
		}
		if (w->npoints == 0 || v > w->hi[k]) {
			w->hi[k] = v;
			w->hi_at[k] = w->npoints;
		}
	}
	w->points[w->npoints++] = index;
	return 0;
}

/* w's text with each figure that moves over its points as "least to
 * greatest", as written at those points; into a new string (NULL: out of
 * memory) */
static char *point_warning_text(const struct point_warning *w)
{
	struct dc_buf b;
	size_t k = 0;
	dc_buf_init(&b);
	for (size_t i = 0; w->text[i];) {
		size_t f = figure_at(w->text, i);
		if (!f) {
			dc_buf_add(&b, w->text + i, 1);
			i++;
			continue;
		}
		if (w->lo[k] != w->hi[k]) {
			size_t ll, hl;
			const char *lo = nth_figure(w->said[w->lo_at[k]], k, &ll);
			const char *hi = nth_figure(w->said[w->hi_at[k]], k, &hl);
			dc_buf_add(&b, lo, ll);
			dc_buf_add(&b, " to ", 4);
			dc_buf_add(&b, hi, hl);
		} else {
			dc_buf_add(&b, w->text + i, f);
		}
		i += f;
		k++;
	}
	dc_buf_add(&b, "", 1);
	if (b.failed) {
		dc_buf_release(&b);
		return NULL;
	}
	return b.data;
}

/* The points of one warning as runs: "0-3, 7, 9-10", whole runs only,
 * ", ..." after the last that fits in len (at least 8 bytes) */
static void point_runs(const struct point_warning *w, char *buf, size_t len)
{
	size_t used = 0;
	buf[0] = '\0';
	for (size_t i = 0; i < w->npoints;) {
		char run[48];
		size_t j = i;
		int n;
		while (j + 1 < w->npoints && w->points[j + 1] == w->points[j] + 1)
			j++;
		n = j > i ? snprintf(run, sizeof(run), "%s%zu-%zu", i ? ", " : "", w->points[i], w->points[j])
			  : snprintf(run, sizeof(run), "%s%zu", i ? ", " : "", w->points[i]);
		/* room for this run and, should another follow, ", ..." */
		if (n < 0 || used + (size_t)n + (j + 1 < w->npoints ? 5 : 0) >= len) {
			snprintf(buf + used, len - used, "%s...", i ? ", " : "");
			return;
		}
		memcpy(buf + used, run, (size_t)n + 1);
		used += (size_t)n;
		i = j + 1;
	}
}

/* A point's values, "cluster.num_nodes=4, parallel.tp=2", into where */
#define POINT_WHERE_MAX (DC_SWEEP_MAX_AXES * (DC_SWEEP_MAX_VALUE + 130))
static void point_where(const struct dc_sweep *sw, const struct dc_sweep_point *pt, char *where, size_t len)
{
	size_t used = 0;
	where[0] = '\0';
	for (size_t a = 0; a < sw->naxes && used < len; a++) {
		int n = snprintf(where + used, len - used, "%s%s=%s", a ? ", " : "", sw->axis[a], pt->value[a]);
		used = n < 0 ? len : used + (size_t)n;
	}
}

/* Loads and runs point `pt`; its warnings go to `pw` (said by
 * point_warnings_say once every point ran). Returns 0, or -1
 * when the sweep must stop (an unreadable file, out of memory), with the
 * reason in `diag`. */
static int run_point(const struct dc_experiment *exp, const struct dc_sweep_load *load,
		     const struct dc_config_parsed *parsed, struct dc_sweep *sw, size_t index,
		     const struct dc_run_info *info, struct point_warnings *pw, struct dc_diag *diag)
{
	struct dc_sweep_point *pt = &sw->points[index];
	struct dc_override *ov = dc_calloc(load->nsets + sw->naxes, sizeof(*ov));
	char *texts[DC_SWEEP_MAX_AXES] = {0};
	struct dc_load_opts lo;
	struct dc_config cfg;
	struct dc_diag pd;
	struct dc_run_info pi = *info;
	struct dc_report *r = NULL;
	int rc = 0, loaded, prepared = 0;
	const char *axes[DC_SWEEP_MAX_AXES]; /* the axes' paths, for the loader (dc_load_opts swept) */

	pi.early_warnings = NULL; /* the sweep's report takes them, once */

	dc_diag_init(&pd);
	if (!ov)
		goto oom;
	for (size_t i = 0; i < load->nsets; i++)
		ov[i] = load->sets[i];
	for (size_t a = 0; a < sw->naxes; a++) {
		if (!(texts[a] = dc_asprintf("%s=%s", sw->axis[a], pt->value[a])))
			goto oom;
		ov[load->nsets + a].text = texts[a];
	}
	memset(&lo, 0, sizeof(lo));
	lo.overrides = ov;
	lo.noverrides = load->nsets + sw->naxes;
	lo.model_file = load->model_file;
	lo.auto_layout = load->auto_layout;
	lo.search = strcmp(exp->name, "search") == 0;
	lo.experiment = exp->name;
	for (size_t a = 0; a < sw->naxes; a++)
		axes[a] = sw->axis[a];
	lo.swept = axes;
	lo.nswept = sw->naxes;
	if (parsed)
		loaded = dc_config_load_parsed(parsed, &lo, &cfg, &pd);
	else
		loaded = load->config_path ? dc_config_load_file_opts(load->config_path, &lo, &cfg, &pd)
					   : dc_config_load_buffer_opts(load->buf, load->len, load->name, &lo, &cfg, &pd);
	if (pd.oom || pd.status == DC_ERR_INTERNAL)
		goto oom;
	if (loaded != 0 && pd.status == DC_ERR_INPUT) {
		/* a file that cannot be read (the config, or a value naming
		 * one) stops the sweep: said with the point that read it */
		char where[POINT_WHERE_MAX];
		point_where(sw, pt, where, sizeof(where));
		for (size_t i = 0; i < pd.count; i++) {
			const char *t = pd.entries[i].text, *e = strstr(t, ": error: ");
			int at = e ? (int)(e - t) + 9 : 0; /* after "FILE: error: " */
			if (pd.entries[i].severity == DC_SEV_ERROR)
				dc_diag_error(diag, DC_ERR_INPUT, "%.*ssweep point %zu (%s): %s", at, t, index, where,
					      t + at);
			else if (point_warning_add(pw, pd.entries[i].text, index) != 0)
				goto oom; /* the stopping point's own warnings, said with the others */
		}
		rc = -1;
		goto done;
	}
	if (loaded == 0 && load->prepare) {
		prepared = 1;
		if (load->prepare(load->ctx, &cfg, &pi, &pd) != 0) {
			if (pd.oom || pd.status == DC_ERR_INTERNAL)
				goto oom;
			loaded = -1; /* the row says why */
		}
	}
	if (loaded == 0) {
		pi.only = NULL;
		r = dc_experiment_run(exp, &cfg, &pi, &pd);
		if (pd.oom)
			goto oom;
		/* out of memory, or a result that is not finite (a bug): the
		 * sweep stops, as a single run would */
		if (!r && pd.status == DC_ERR_INTERNAL) {
			for (size_t i = 0; i < pd.count; i++)
				if (pd.entries[i].severity == DC_SEV_ERROR)
					dc_diag_error(diag, DC_ERR_INTERNAL, "sweep point %zu: %s", index, pd.entries[i].text);
			rc = -1;
			goto done;
		}
	}
	if (r) {
		pt->ok = 1;
		sw->valid++;
		for (size_t k = 0; k < sw->nmetrics; k++)
			if (lookup(r, &sw->metric[k], pt, k) != 0)
				goto oom;
		if (r->res.done & DC_EST_BIT(DC_EST_BATCH))
			pt->tokens_per_step = r->res.batch.tokens_per_step;
		if (r->res.done & DC_EST_BIT(DC_EST_LOSS)) {
			pt->loss_ran = 1;
			pt->loss_expected = r->res.loss.expected;
		}
		if (r->res.done & DC_EST_BIT(DC_EST_MEMORY)) {
			pt->has_memory = 1;
			pt->fits = r->res.memory.top.fits && r->res.memory.host_fits; /* summary.fits */
			pt->gpu_mem_bytes = r->in.cluster.gpu_mem_bytes;
		}
	} else if (!(pt->error = point_error(&pd))) {
		goto oom;
	}
	for (size_t i = 0; i < pd.count; i++)
		if (pd.entries[i].severity == DC_SEV_WARNING && point_warning_add(pw, pd.entries[i].text, index) != 0)
			goto oom;
	goto done;
oom:
	dc_diag_error(diag, DC_ERR_INTERNAL, "error: out of memory");
	rc = -1;
done:
	dc_report_free(r);
	if (prepared && load->finish)
		load->finish(load->ctx, &pi);
	for (size_t a = 0; a < sw->naxes; a++)
		free(texts[a]);
	free(ov);
	dc_diag_release(&pd);
	return rc;
}

/* Each warning once: at one point with the point's values, as before
 * ("sweep point 2 (cluster.num_nodes=4): ..."); at every point as "every
 * sweep point (N): ..."; else with the points that drew it ("sweep points
 * 0-1, 3 (3 of 5): ..."). */
static void point_warnings_say(const struct point_warnings *pw, const struct dc_sweep *sw, size_t npoints,
			       struct dc_diag *diag)
{
	for (size_t i = 0; i < pw->n; i++) {
		const struct point_warning *w = &pw->w[i];
		char *text;
		if (w->npoints == 0)
			continue; /* its first point's entry never made (out of memory) */
		if (!(text = point_warning_text(w))) {
			dc_diag_oom(diag);
			return;
		}
		if (w->npoints == 1) {
			char where[POINT_WHERE_MAX];
			point_where(sw, &sw->points[w->points[0]], where, sizeof(where));
			dc_diag_warn(diag, "sweep point %zu (%s): %s", w->points[0], where, text);
		} else if (w->npoints == npoints) {
			dc_diag_warn(diag, "every sweep point (%zu): %s", npoints, text);
		} else {
			/* the values every one of its points shares, if any:
			 * the axis the warning follows */
			char runs[160], shared[DC_SWEEP_MAX_AXES * (DC_SWEEP_MAX_VALUE + 130)];
			size_t used = 0;
			shared[0] = '\0';
			for (size_t a = 0; a < sw->naxes; a++) {
				const char *v0 = sw->points[w->points[0]].value[a];
				size_t k = 1;
				while (k < w->npoints && strcmp(sw->points[w->points[k]].value[a], v0) == 0)
					k++;
				if (k == w->npoints && used < sizeof(shared)) {
					int n = snprintf(shared + used, sizeof(shared) - used, "%s%s=%s",
							 used ? ", " : "; each with ", sw->axis[a], v0);
					used = n < 0 ? sizeof(shared) : used + (size_t)n;
				}
			}
			point_runs(w, runs, sizeof(runs));
			dc_diag_warn(diag, "sweep points %s (%zu of %zu%s): %s", runs, w->npoints, npoints, shared, text);
		}
		free(text);
	}
}

/* The last two keys of `path` ("tp.bytes_per_rank"), as a label. */
static void two_keys(const char *path, char *label, size_t len)
{
	const char *p = path + strlen(path);
	int dots = 0;
	while (p > path && dots < 2)
		if (*--p == '.')
			dots++;
	snprintf(label, len, "%.47s", dots == 2 ? p + 1 : path);
}

/* Fills the metrics from the comma-separated `list`. Returns 0, or -1
 * with a usage error in `diag`. */
static int pick_metrics(const struct dc_experiment *exp, struct dc_sweep *sw, const char *list, int given,
			struct dc_diag *diag)
{
	char err[400];
	size_t json_columns = 0;
	for (const char *p = list;;) {
		size_t n = strcspn(p, ",");
		struct dc_sweep_metric *m;
		const struct dc_field *f;
		const char *last, *ranked;
		if (n == 0) {
			dc_diag_error(diag, DC_ERR_USAGE, "distcalc: error: '--sweep-metrics': empty path in '%.200s'",
				      list);
			return -1;
		}
		if (sw->nmetrics == DC_SWEEP_MAX_METRICS) {
			dc_diag_error(diag, DC_ERR_USAGE, "distcalc: error: '--sweep-metrics': more than %d paths",
				      DC_SWEEP_MAX_METRICS);
			return -1;
		}
		m = &sw->metric[sw->nmetrics];
		if (n >= sizeof(m->path)) {
			dc_diag_error(diag, DC_ERR_USAGE, "distcalc: error: '--sweep-metrics': path '%.64s...' too long", p);
			return -1;
		}
		memcpy(m->path, p, n);
		m->path[n] = '\0';
		/* a column twice would repeat a JSON key in every row, which a
		 * report may not hold (--check refuses it) */
		for (size_t i = 0; i < sw->nmetrics; i++)
			if (strcmp(sw->metric[i].path, m->path) == 0) {
				dc_diag_error(diag, DC_ERR_USAGE, "distcalc: error: '--sweep-metrics': '%s' given twice; list each path once",
					      m->path);
				return -1;
			}
		/* said of a list the user gave: the search's default columns
		 * are best[0]'s by design (a CI trial: a warning in every search
		 * sweep's report that nothing but --sweep-metrics could silence) */
		if ((ranked = dc_check_ranked_table(m->path)) != NULL && given)
			dc_diag_warn(diag,
				     "'--sweep-metrics': '%s': %.*s lists its rows in rank order, so the column follows "
				     "whichever row ranks there at each point (each row names its own)",
				     m->path, (int)strlen(ranked) - 1, ranked);
		if (!(f = resolve_static(exp, m->path, &m->from_json, err, sizeof(err)))) {
			dc_diag_error(diag, DC_ERR_USAGE, "distcalc: error: '--sweep-metrics': %s", err);
			return -1;
		}
		m->unit = m->from_json ? DC_U_NONE : f->unit;
		m->type = f->type == DC_FT_U64 || f->type == DC_FT_F64 || f->type == DC_FT_BOOL ? f->type : DC_FT_STR;
		/* a JSON metric may take two columns (build_fields): counted
		 * so, before any point runs */
		json_columns += (size_t)m->from_json;
		if (FIXED_COLUMNS + sw->naxes + sw->nmetrics + 1 + json_columns > DC_MAX_COLUMNS) {
			dc_diag_error(diag, DC_ERR_USAGE,
				      "distcalc: error: '--sweep-metrics': '%s': more than %d columns with the %zu swept "
				      "key%s (a metric read from a JSON value, such as search.best[0].layout, may take two: "
				      "its JSON and the table's text of it); pick fewer metrics",
				      m->path, DC_MAX_COLUMNS, sw->naxes, sw->naxes == 1 ? "" : "s");
			return -1;
		}
		last = strrchr(m->path, '.');
		/* a table's row by index keeps the row in its label
		 * (events[3].bytes, not a bare "bytes"), and a key below a
		 * section's sub-object the object's (comm.cp.time_s: cp.time_s,
		 * not a bare "time_s" beside the step's time) */
		if (last && last > m->path && (last[-1] == ']' || memchr(m->path, '.', (size_t)(last - m->path))))
			two_keys(m->path, m->label, sizeof(m->label));
		else
			snprintf(m->label, sizeof(m->label), "%.47s", last ? last + 1 : m->path);
		/* two metrics ending in the same key (comm.tp.bytes_per_rank,
		 * comm.dp.bytes_per_rank) are told apart by the key above it */
		for (size_t i = 0; i < sw->nmetrics; i++) {
			if (strcmp(sw->metric[i].label, m->label) != 0)
				continue;
			two_keys(m->path, m->label, sizeof(m->label));
			two_keys(sw->metric[i].path, sw->metric[i].label, sizeof(sw->metric[i].label));
		}
		for (size_t i = 0; i < sizeof(short_labels) / sizeof(short_labels[0]); i++)
			if (strcmp(short_labels[i].path, m->path) == 0)
				snprintf(m->label, sizeof(m->label), "%.47s", short_labels[i].label);
		sw->nmetrics++;
		p += n;
		if (!*p)
			break;
		p++;
		if (!*p) {
			dc_diag_error(diag, DC_ERR_USAGE, "distcalc: error: '--sweep-metrics': empty path in '%.200s'",
				      list);
			return -1;
		}
	}
	return 0;
}

/* The points of a grid of naxes axes of nvalues[] values each, in
 * *npoints. Returns 0, or -1 with why in err when they are more than
 * DC_SWEEP_MAX_POINTS: how many and how they multiply, "1100 points in the
 * grid (11 x 10 x 10); at most 1024", so the axis to cut is plain. */
static int grid_size(const size_t *nvalues, size_t naxes, size_t *npoints, char *err, size_t errlen)
{
	uint64_t n = 1;
	int over = 0; /* past UINT64_MAX: said as such */
	size_t used;
	for (size_t a = 0; a < naxes; a++) {
		if (!over && nvalues[a] > UINT64_MAX / n)
			over = 1;
		n *= over ? 1 : nvalues[a];
	}
	if (!over && n <= DC_SWEEP_MAX_POINTS) {
		*npoints = (size_t)n;
		return 0;
	}
	if (over)
		used = (size_t)snprintf(err, errlen, "more than %llu points in the grid (", (unsigned long long)UINT64_MAX);
	else
		used = (size_t)snprintf(err, errlen, "%llu points in the grid (", (unsigned long long)n);
	for (size_t a = 0; a < naxes && used < errlen; a++)
		used += (size_t)snprintf(err + used, errlen - used, "%s%zu", a ? " x " : "", nvalues[a]);
	if (used < errlen)
		snprintf(err + used, errlen - used, "); at most %d", DC_SWEEP_MAX_POINTS);
	return -1;
}

/* The points' texts still on the heap (pack_texts not run), freed. */
static void free_texts(struct dc_sweep *sw)
{
	for (size_t i = 0; i < sw->npoints; i++) {
		struct dc_sweep_point *pt = &sw->points[i];
		free(pt->error);
		pt->error = NULL;
		for (size_t k = 0; k < DC_SWEEP_MAX_METRICS; k++) {
			free(pt->text[k]);
			pt->text[k] = NULL;
		}
	}
}

/* Moves the points' texts (errors and text metrics, each whole and of its
 * own length) from the heap to the end of the report's views, so that
 * dc_report_free, which frees the views, frees them too. The views move:
 * the sweep is at off_sweep, its points at off_points. Returns 0, or -1
 * when out of memory (the texts then still on the heap). */
static int pack_texts(struct dc_report *r, size_t off_sweep, size_t off_points)
{
	struct dc_sweep *sw = (struct dc_sweep *)(void *)(r->views + off_sweep);
	size_t total = 0, at = r->views_size;
	unsigned char *views;
	for (size_t i = 0; i < sw->npoints; i++) {
		const struct dc_sweep_point *pt = &sw->points[i];
		total += pt->error ? strlen(pt->error) + 1 : 0;
		for (size_t k = 0; k < sw->nmetrics; k++)
			total += pt->text[k] ? strlen(pt->text[k]) + 1 : 0;
	}
	if (total == 0)
		return 0;
	if (!(views = dc_realloc(r->views, r->views_size + total)))
		return -1;
	r->views = views;
	r->views_size += total;
	sw = (struct dc_sweep *)(void *)(views + off_sweep);
	sw->points = (struct dc_sweep_point *)(void *)(views + off_points);
	for (size_t i = 0; i < sw->npoints; i++) {
		struct dc_sweep_point *pt = &sw->points[i];
		char **texts[1 + DC_SWEEP_MAX_METRICS];
		size_t n = 0;
		texts[n++] = &pt->error;
		for (size_t k = 0; k < sw->nmetrics; k++)
			texts[n++] = &pt->text[k];
		for (size_t j = 0; j < n; j++) {
			char *t = *texts[j], *to = (char *)views + at;
			size_t len;
			if (!t)
				continue;
			len = strlen(t) + 1;
			memcpy(to, t, len);
			free(t);
			*texts[j] = to;
			at += len;
		}
		/* a text cell is its text (cell.s is text[k]) */
		for (size_t k = 0; k < sw->nmetrics; k++)
			if (sw->metric[k].type == DC_FT_STR && !pt->null[k])
				pt->cell[k].s = pt->text[k];
	}
	return 0;
}

struct dc_report *dc_sweep_run(const struct dc_experiment *exp, const struct dc_sweep_load *load,
			       const char *const *axes, size_t naxes, const char *metrics,
			       const struct dc_run_info *info, struct dc_diag *diag)
{
	struct dc_report *r = NULL;
	struct dc_sweep *sw = NULL;
	struct dc_header_view *h;
	size_t npoints = 1, nvalues[DC_SWEEP_MAX_AXES], off_sweep, off_points, size, used = 0;
	char err[300], defaults[512];
	int packed = 0; /* the points' texts are in the views (pack_texts), no longer on the heap */

	if (naxes == 0 || naxes > DC_SWEEP_MAX_AXES) {
		dc_diag_error(diag, DC_ERR_USAGE, "distcalc: error: '--sweep': at most %d axes", DC_SWEEP_MAX_AXES);
		return NULL;
	}
	for (size_t a = 0; a < naxes; a++)
		if (!(nvalues[a] = dc_sweep_axis_check(axes[a], err, sizeof(err)))) {
			dc_diag_error(diag, DC_ERR_USAGE, "distcalc: error: '--sweep': %s", err);
			return NULL;
		}
	if (grid_size(nvalues, naxes, &npoints, err, sizeof(err)) != 0) {
		dc_diag_error(diag, DC_ERR_USAGE, "distcalc: error: '--sweep': %s", err);
		return NULL;
	}
	/* --only: the sweep's section or its one table, checked before any
	 * point runs */
	if (info->only && strcmp(info->only, "sweep") != 0 && strcmp(info->only, "sweep.rows") != 0) {
		dc_diag_error(diag, DC_ERR_USAGE,
			      "distcalc: error: '--only': a sweep's report has the section 'sweep' and the table 'sweep.rows', "
			      "not '%.100s' (pick the columns with '--sweep-metrics')",
			      info->only);
		return NULL;
	}
	off_sweep = align_up(sizeof(struct dc_header_view));
	off_points = off_sweep + align_up(sizeof(struct dc_sweep));
	size = off_points + npoints * sizeof(struct dc_sweep_point);
	if (!(r = dc_calloc(1, sizeof(*r))) || !(r->views = dc_calloc(1, size)))
		goto oom;
	r->views_size = size;
	sw = (struct dc_sweep *)(void *)(r->views + off_sweep);
	sw->points = (struct dc_sweep_point *)(void *)(r->views + off_points);
	sw->naxes = naxes;
	sw->npoints = npoints;
	for (size_t a = 0; a < naxes; a++) {
		size_t n = strcspn(axes[a], "=");
		memcpy(sw->axis[a], axes[a], n); /* shorter than 128: a key of the table */
		sw->axis[a][n] = '\0';
		sw->nvalues[a] = nvalues[a];
		used += (size_t)snprintf(sw->axes_text + used, sizeof(sw->axes_text) - used, "%s%s (%zu)",
					 a ? " x " : "", sw->axis[a], nvalues[a]);
	}
	sw->logs = load->calibrate_logs;
	sw->nlogs = load->ncalibrate_logs;
	sw->profile = load->compute_profile;
	if (pick_metrics(exp, sw, metrics ? metrics : default_metrics(exp, sw, defaults, sizeof(defaults)), metrics != NULL,
			 diag) != 0)
		goto fail;
	if (!metrics && strcmp(sw->metric[0].path, "topology.world_size") == 0)
		sw->metric[0].context = 1;
	/* the grid, first axis slowest */
	for (size_t i = 0; i < npoints; i++) {
		size_t rest = i;
		for (size_t a = naxes; a-- > 0;) {
			axis_value(axes[a], rest % nvalues[a], sw->points[i].value[a]);
			rest /= nvalues[a];
		}
		if (point_values_json(sw, &sw->points[i]) != 0)
			goto oom;
	}
	r->config_name = dc_strdup(info->config_name ? info->config_name : "");
	if (!r->config_name)
		goto oom;
	r->info = *info;
	r->info.config_name = r->config_name;
	r->info.only = NULL;
	r->title_model = load->model_file;
	r->title_sets = load->sets;
	r->ntitle_sets = load->nsets;
	{
		/* the config read and parsed once, each point a load of it
		 * with its own --set (config.h); a text that cannot be read or
		 * parsed stops the sweep before any point, said as a single
		 * run says it (no point's value is to blame: a student trial
		 * read "sweep point 0 (...): cannot open"); out of memory ends
		 * the sweep */
		struct dc_diag pd;
		struct dc_config_parsed *parsed;
		struct point_warnings pw = {0};
		int failed = 0;
		dc_diag_init(&pd);
		parsed = load->config_path ? dc_config_parse_file(load->config_path, &pd)
					   : dc_config_parse_buffer(load->buf, load->len, load->name, &pd);
		failed = !parsed && (pd.oom || pd.status == DC_ERR_INTERNAL); /* out of memory */
		if (!parsed && !failed) {
			for (size_t i = 0; i < pd.count; i++)
				dc_diag_add_key(diag, pd.entries[i].severity, pd.status, pd.entries[i].key, "%s",
						pd.entries[i].text);
			dc_diag_release(&pd);
			goto fail;
		}
		dc_diag_release(&pd);
		if (failed)
			goto oom;
		size_t ran = 0;
		struct dc_diag stop; /* why a sweep stopped: said after the warnings */
		dc_diag_init(&stop);
		for (; ran < npoints && !failed; ran++)
			failed = run_point(exp, load, parsed, sw, ran, &r->info, &pw, &stop) != 0;
		dc_config_parsed_free(parsed);
		/* the warnings of the points that ran, of a sweep that stopped
		 * too (counted over those), then the error that stopped it, last
		 * as a single run's is */
		point_warnings_say(&pw, sw, ran, diag);
		point_warnings_free(&pw);
		for (size_t i = 0; i < stop.count; i++)
			dc_diag_add_key(diag, stop.entries[i].severity, stop.status, stop.entries[i].key, "%s",
					stop.entries[i].text);
		if (stop.oom)
			dc_diag_oom(diag);
		dc_diag_release(&stop);
		if (failed)
			goto fail;
	}
	if (diag->oom)
		goto oom;
	for (size_t k = 0; k < sw->nmetrics; k++) {
		struct dc_sweep_metric *m = &sw->metric[k];
		if (!m->from_json)
			continue;
		/* a path inside a JSON value that no point's value has: a
		 * typo, refused as resolve_static refuses one (the points ran:
		 * only they say what the JSON holds) */
		if (!m->found && m->miss[0]) {
			dc_diag_error(diag, DC_ERR_USAGE, "distcalc: error: '--sweep-metrics': %s", m->miss);
			goto fail;
		}
		if (type_json(sw, m, k) != 0)
			goto oom;
	}
	if (!metrics) {
		drop_unused_sharding(sw);
		drop_same_mfu(sw);
	}
	tokens_differ(sw, !metrics, diag);
	loss_kinds_differ(sw, diag);
	axes_move_nothing(sw, exp->name, diag);
	small_bytes_raw(sw);
	if (diag->oom)
		goto oom; /* a warning of the three above lost: the report would miss it */

	if (dc_report_take_warnings(r, info->early_warnings, diag) != 0)
		goto oom;

	if (pack_texts(r, off_sweep, off_points) != 0)
		goto oom;
	packed = 1;
	sw = (struct dc_sweep *)(void *)(r->views + off_sweep);
	sw->npoints_u = npoints;
	sw->valid_u = sw->valid;
	build_fields(sw);
	h = (struct dc_header_view *)(void *)r->views;
	h->report = r;
	h->version = DC_VERSION;
	h->experiment = r->info.experiment;
	h->config = r->config_name;
	h->seed = r->info.seed;

	/* the header ("only" when --only chose the sweep or its table) */
	if (info->only) {
		r->only = 1;
		snprintf(r->only_text, sizeof(r->only_text), "%s", info->only);
		h->only = r->only_text;
	}
	for (size_t i = 0; i < dc_header_nfields; i++)
		r->root_f[i] = dc_header_fields[i];
	r->nheader = dc_header_nfields;
	memset(&r->root_f[dc_header_nfields], 0, sizeof(r->root_f[0]));
	r->root_f[dc_header_nfields].key = "sweep";
	r->root_f[dc_header_nfields].label = "Sweep";
	r->root_f[dc_header_nfields].type = DC_FT_OBJECT;
	r->root_f[dc_header_nfields].off = off_sweep;
	r->root_f[dc_header_nfields].sub = &sw->obj;
	if (info->only && strcmp(info->only, "sweep.rows") == 0 &&
	    dc_report_only_table(r, &sw->obj, "rows", &r->root_f[dc_header_nfields].sub) != 0)
		goto oom; /* the sweep's own table: cannot miss */
	r->root_f[dc_header_nfields].label_fn = sweep_title;
	r->root_f[dc_header_nfields + 1] = dc_warnings_field;
	r->root.f = r->root_f;
	r->root.n = dc_header_nfields + 2;
	r->nsec = 1;
	r->sweep = sw;
	return r;
oom:
	dc_diag_error(diag, DC_ERR_INTERNAL, "error: out of memory");
fail:
	if (sw && !packed)
		free_texts(sw);
	dc_report_free(r);
	return NULL;
}

size_t dc_sweep_valid_points(const struct dc_report *r)
{
	return r && r->sweep ? r->sweep->valid : 0;
}

size_t dc_sweep_points(const struct dc_report *r)
{
	return r && r->sweep ? r->sweep->npoints : 0;
}
