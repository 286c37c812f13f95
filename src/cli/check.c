/* check.c - field-by-field comparison of two JSON reports; see check.h. */
#define _POSIX_C_SOURCE 200809L

#include "distcalc/check.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "distcalc/calibrate.h"
#include "distcalc/config.h"
#include "distcalc/report.h"
#include "distcalc/units.h"
#include "distcalc/util.h"

#define NOT_A_REPORT "%s: error: not a distcalc JSON report (%s; write one with --format json --output FILE)"

/* The header fields every distcalc JSON report opens with, and their type. */
static const struct {
	const char *key;
	cJSON_bool (*is)(const cJSON *);
} header_fields[] = {
	{"distcalc_version", cJSON_IsString},
	{"experiment", cJSON_IsString},
	{"seed", cJSON_IsNumber},
};

/* The files a report names. Where they lie is where the tool ran (the
 * checkout, the install prefix) and how --config was spelled, not what it
 * estimated: their contents are compared through the fields they fill, as
 * the "config" header itself is not compared. */
enum { FILE_CONFIG, FILE_MODEL, FILE_TOPOLOGY, FILE_PROFILE, FILE_N };

/* The config keys whose value is a file's path, and their slot. */
static const struct {
	const char *key;
	int slot;
} file_keys[] = {
	{"model.hf_config", FILE_MODEL},
	{"cluster.topology_file", FILE_TOPOLOGY},
};

struct cmp {
	double rtol;
	/* said after a moved number's change, or NULL: why --rtol did not
	 * pass a change within it (an exact field) */
	const char *note;
	struct dc_buf *out;
	struct dc_check_result *res;
	char path[1024];
	/* --check-only: the paths (into the caller's list) and how many fields
	 * each took; nonly 0 compares every field */
	const char *only[DC_CHECK_ONLY_MAX];
	size_t only_len[DC_CHECK_ONLY_MAX];
	size_t only_hits[DC_CHECK_ONLY_MAX];
	size_t nonly;
	/* the new report's count fields (NULL: none but by key) */
	int (*is_count)(const void *ctx, const char *path);
	const void *count_ctx;
	/* the files each report names, once read (FILE_CONFIG: its
	 * "config" header, FILE_MODEL: the model's config.json,
	 * FILE_TOPOLOGY: the topology file): a warning opening with one is
	 * compared past it */
	char file[FILE_N][2][512];
	int has_file[FILE_N][2];
	/* the --calibrate logs each report names (calibrate_log: as given,
	 * or the calibration section's file name), for the warnings that
	 * open with one */
	char log[2][DC_CALIB_MAX_LOGS][512];
	size_t nlogs[2];
	/* the keys row (its path) whose "key" names a file, and which */
	char file_row[1024];
	int file_row_slot;
	/* the tables in rank order (dc_check_ranked_table) whose first moved
	 * field said so: once a table */
	const char *ranked_said[3];
};

/* Is `path` the path `q` (q_len bytes) or under it, at a component
 * boundary? */
static int is_under(const char *path, const char *q, size_t q_len)
{
	return strncmp(path, q, q_len) == 0 && (path[q_len] == '\0' || path[q_len] == '.' || path[q_len] == '[');
}

/* Under --check-only: 1 to compare the field at c->path (it lies under a
 * listed path), 2 to walk into it (a listed path lies under it), 0 to
 * leave it out. `one_side` (the field is on one side only) makes a listed
 * path under it count as found: it is the difference. */
static int wanted(struct cmp *c, int one_side)
{
	int want = c->nonly ? 0 : 1;
	size_t plen = strlen(c->path);
	for (size_t i = 0; i < c->nonly; i++) {
		if (is_under(c->path, c->only[i], c->only_len[i])) {
			c->only_hits[i]++;
			want = 1;
		} else if (c->only_len[i] > plen && is_under(c->only[i], c->path, plen)) {
			c->only_hits[i] += (size_t)one_side;
			if (want == 0)
				want = 2;
		}
	}
	return want;
}

/* The slot of a config key naming a file, or -1. */
static int file_key_slot(const char *key)
{
	for (size_t i = 0; i < sizeof(file_keys) / sizeof(file_keys[0]); i++)
		if (strcmp(key, file_keys[i].key) == 0)
			return file_keys[i].slot;
	return -1;
}

/* The length of "HEAD[I]" where `path` opens with a table's row, `head`
 * being "HEAD[" and I its index; 0 when it does not. */
static size_t row_prefix(const char *path, const char *head)
{
	size_t h = strlen(head), d = 0;
	if (strncmp(path, head, h) != 0)
		return 0;
	while (path[h + d] >= '0' && path[h + d] <= '9')
		d++;
	return d && path[h + d] == ']' ? h + d + 1 : 0;
}

/* Is `path` a --calibrate log's name: a search's or a sweep's as given
 * ("search.calibrate[I].log"), or the calibration section's file name
 * ("calibration.logs[I].file")? */
static int calibrate_log(const char *path)
{
	static const struct {
		const char *head, *tail;
	} names[] = {{"search.calibrate[", ".log"}, {"sweep.calibrate[", ".log"}, {"calibration.logs[", ".file"}};
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		size_t n = row_prefix(path, names[i].head);
		if (n && strcmp(path + n, names[i].tail) == 0)
			return 1;
	}
	return 0;
}

/* The field at c->path holds a file's path: the "config" header, the
 * model section's hf_config, or the value and text of a keys row whose
 * key names a file (model.keys[0].value). Returns its slot (the text's
 * FILE_N: not kept), or -1. */
static int file_field(const struct cmp *c)
{
	size_t n = strlen(c->file_row);
	if (strcmp(c->path, "config") == 0)
		return FILE_CONFIG;
	if (strcmp(c->path, "model.hf_config") == 0)
		return FILE_MODEL;
	/* --calibrate-compute's profile as given (step, search, sweep) */
	if (strcmp(c->path, "step.compute_profile") == 0 || strcmp(c->path, "search.compute_profile") == 0 ||
	    strcmp(c->path, "sweep.compute_profile") == 0)
		return FILE_PROFILE;
	/* --calibrate's logs as named (search.calibrate[0].log,
	 * calibration.logs[0].file): what they hold is compared through the
	 * fit */
	if (calibrate_log(c->path))
		return FILE_N;
	if (n && strncmp(c->path, c->file_row, n) == 0 && c->path[n] == '.') {
		if (strcmp(c->path + n + 1, "value") == 0)
			return c->file_row_slot;
		if (strcmp(c->path + n + 1, "text") == 0)
			return FILE_N;
	}
	return -1;
}

/* A keys row's "key" (path ...].key) read as `v` on one side: when it
 * names a file, the row's value and text are not compared. */
static void note_key_row(struct cmp *c, const cJSON *v)
{
	size_t n = strlen(c->path);
	int slot;
	if (!v || !cJSON_IsString(v) || n < 5 || strcmp(c->path + n - 5, "].key") != 0)
		return;
	if ((slot = file_key_slot(v->valuestring)) < 0 || n - 4 >= sizeof(c->file_row))
		return;
	memcpy(c->file_row, c->path, n - 4);
	c->file_row[n - 4] = '\0';
	c->file_row_slot = slot;
}

/* Not compared: the version, and a keys row's origin (cluster.keys[18]
 * .origin: "config", "--set", "default"), which says how a value was
 * given, not what was estimated; the value beside it is compared */
static int ignored(const char *path)
{
	size_t n = strlen(path);
	if (n > 8 && strcmp(path + n - 8, "].origin") == 0 && strstr(path, ".keys["))
		return 1;
	return strcmp(path, "distcalc_version") == 0;
}

static int whole(double v)
{
	return isfinite(v) && v == floor(v) && fabs(v) < 9007199254740992.0;
}

/* Keys a report holds only under some settings (docs/output.md, "What the
 * full report leaves out"): a budget on one of them that this report
 * lacks says why, not that no such field exists (a user trial's
 * --check-max step.bubble_s under 1F1B). `path` matches the key, or a
 * prefix of it where it ends in '.' or '_'. */
static const struct {
	const char *path, *when;
} conditional_keys[] = {
	{"step.bubble_s", "under parallel.pipeline_schedule zero_bubble, dualpipe or dualpipev; step.bubble_fraction "
			  "and step.pipeline_s are there under every schedule"},
	{"step.bubble_paper_", "under parallel.pipeline_schedule zero_bubble, dualpipe or dualpipev"},
	{"step.mirror_sum_s", "under parallel.pipeline_schedule dualpipe"},
	{"step.chunk_", "under parallel.pipeline_schedule zero_bubble, dualpipe or dualpipev"},
	{"step.param_copies", "under parallel.pipeline_schedule dualpipe or dualpipev (a rank holds one copy of its "
			      "stage otherwise)"},
	{"step.p2p_per_microbatch", "under parallel.pipeline_schedule zero_bubble, dualpipe or dualpipev"},
	{"step.attention_fwd_efficiency", "with a fused attention kernel (step.attention_backend sdpa, cudnn or fa3)"},
	{"step.attention_bwd_efficiency", "with a fused attention kernel (step.attention_backend sdpa, cudnn or fa3)"},
	{"step.matmul_efficiency_fp8", "under precision.compute fp8"},
	{"step.fp8_cast_bytes_per_element", "under precision.compute fp8"},
	{"step.framework", "under training.framework megatron, torchtitan or deepspeed"},
	{"step.grad_bucket_", "under training.framework megatron, torchtitan or deepspeed (where it buckets)"},
	{"step.overlap_param_gather", "under training.framework megatron, torchtitan or deepspeed"},
	{"step.time_to_train_", "with training.total_tokens"},
	{"step.optimizer_on_host", "with parallel.offload other than none"},
	{"step.host_", "with parallel.offload other than none (each copy only where it costs time)"},
	{"memory.per_rank.fsdp_", "under parallel.sharding fsdp"},
	{"memory.per_rank.host_", "with parallel.offload other than none"},
	{"memory.host_", "with parallel.offload other than none"},
	{"summary.host_shortfall_bytes", "with cluster.host_memory given"},
	{"step.pipeline_schedules", "when a step runs several pipeline schedules (parallel.pipeline_schedule_microbatches "
				    "below the step's microbatches, pp > 1)"},
	{"step.pipeline_schedule_microbatches", "when a step runs several pipeline schedules "
						"(parallel.pipeline_schedule_microbatches below the step's microbatches, pp > 1)"},
	{"loss.figures", "when the draws are too many to draw and the loss figures are expected values (loss.tokens is then "
			 "null: the drawn count)"},
	{"loss.sample_tokens", "when the loss figures are expected values (too many draws to draw)"},
	{"loss.expected_tokens", "when the loss figures are expected values (too many draws to draw); loss.tokens is the "
				 "drawn count"},
	{"loss.tables", "when the loss figures are expected values (too many draws to draw)"},
	{"comm.dp", "when dp > 1 runs its collectives, or DualPipe sums gradients with the mirror rank, outside FSDP over "
		    "dp x cp > 1 (whose sync is comm.fsdp)"},
	{"comm.fsdp", "under parallel.sharding fsdp over dp x cp > 1 (over one rank it shards nothing)"},
	{"comm.tp", "when tp > 1"},
	{"comm.pp", "when pp > 1"},
	{"comm.ep", "when ep > 1"},
	{"comm.cp", "when cp > 1"},
};

/* The `when` of the conditional key `path` names (NULL: none), and in
 * *object the length of the object that key is (comm.dp, the "comm.dp."
 * prefix's), which a report holding it shows is not what is missing; 0
 * for a field (step.bubble_s, the axes' nic_flows). The axes' own keys
 * (comm.<axis>.nic_flows ...) are the group's: there only when it spans
 * NVLink domains. */
static const char *conditional_when(const char *path, size_t *object)
{
	const char *dot;
	*object = 0;
	if (strncmp(path, "comm.", 5) == 0 && (dot = strchr(path + 5, '.')) != NULL &&
	    (strcmp(dot, ".nic_flows") == 0 || strcmp(dot, ".node_bandwidth_GBps") == 0))
		return "when the axis's group spans more than one node (NVLink domain); read link_bandwidth_GBps";
	for (size_t i = 0; i < sizeof(conditional_keys) / sizeof(conditional_keys[0]); i++) {
		const char *k = conditional_keys[i].path;
		size_t n = strlen(k);
		int prefix = k[n - 1] == '_' || k[n - 1] == '.';
		if (prefix ? strncmp(path, k, n) == 0
			   : strncmp(path, k, n) == 0 && (path[n] == 0 || path[n] == '.' || path[n] == '[')) {
			if (k[n - 1] == '.')
				*object = n - 1;
			else if (!prefix && path[n] != 0)
				*object = n;
			return conditional_keys[i].when;
		}
	}
	return NULL;
}

/* The text a number was written as, kept where its double may not say it:
 * an integer of 16 digits or more (at 2^53 and above a double stops
 * holding every integer: 9007199254740993 reads as 9007199254740992) and
 * a number that reads as no finite double (1e400). sp_leaf keeps it in the
 * node's valuestring, which cJSON_Delete frees with the node. NULL when
 * none was kept: the double says it. */
static const char *num_text(const cJSON *v)
{
	return v && cJSON_IsNumber(v) ? v->valuestring : NULL;
}

/* 1 when the number text `t` is an integer written as its digits. */
static int digits_only(const char *t)
{
	if (*t == '-')
		t++;
	if (!*t)
		return 0;
	for (; *t; t++)
		if (*t < '0' || *t > '9')
			return 0;
	return 1;
}

/* Does the number text `t` (n bytes) need keeping (num_text)? */
static int keep_num_text(const char *t, size_t n, double v)
{
	size_t digits = n - (t[0] == '-');
	if (!isfinite(v))
		return 1;
	if (digits < 16)
		return 0;
	for (size_t i = n - digits; i < n; i++)
		if (t[i] < '0' || t[i] > '9')
			return 0;
	return 1;
}

/* A seed (the header's "seed", "loss.seed"): a name for a stream of draws,
 * not a quantity, so a change to it is a changed value, never a
 * percentage. */
static int identity_field(const char *path)
{
	const char *key = strrchr(path, '.');
	size_t n;
	key = key ? key + 1 : path;
	n = strlen(key);
	return strcmp(key, "seed") == 0 || (n > 5 && strcmp(key + n - 5, "_seed") == 0);
}

enum budget_unit {
	BUDGET_PLAIN,
	BUDGET_BYTES,
	BUDGET_TIME,
	BUDGET_GBPS,
	BUDGET_BYTES_PER_S,
};

static enum budget_unit budget_unit(const char *path);

/* Is the field at `path` a measure by its key, whatever its digits: a
 * time (`_s`, `_s_per_`), a bandwidth (`_GBps`, `_bytes_per_s`) or a
 * rate (`_per_s`)? A whole value there (a 50 GB/s link, a 2 s step) is
 * a measurement that landed on an integer, and follows --rtol (a user
 * trial's 50 -> 40 GB/s failed --rtol 0.3 while 50 -> 40.5 passed) */
static int measure_field(const char *path)
{
	const char *key = strrchr(path, '.');
	size_t n;
	key = key ? key + 1 : path;
	n = strcspn(key, "[");
	if (n >= 6 && strncmp(key + n - 6, "_per_s", 6) == 0)
		return 1;
	switch (budget_unit(path)) {
	case BUDGET_TIME:
	case BUDGET_GBPS:
	case BUDGET_BYTES_PER_S:
		return 1;
	default:
		return 0;
	}
}

/* Is the field at `path` a whole count by its key: a key naming bytes
 * (not a rate: "_per_s", "GBps", "per_token") or ending in "params"? */
static int integer_field(const char *path)
{
	const char *key = strrchr(path, '.');
	size_t n;
	key = key ? key + 1 : path;
	n = strcspn(key, "[");
	if (n >= 6 && strncmp(key + n - 6, "params", 6) == 0)
		return 1;
	for (size_t i = 0; i + 5 <= n; i++)
		if (strncmp(key + i, "bytes", 5) == 0) {
			for (size_t j = 0; j + 4 <= n; j++)
				if (strncmp(key + j, "per_", 4) == 0 || strncmp(key + j, "GBps", 4) == 0)
					return 0;
			return 1;
		}
	return 0;
}

/* Short text of a JSON value for a difference line. */
static void value_text(const cJSON *v, char *buf, size_t len)
{
	if (!v) {
		snprintf(buf, len, "(absent)");
	} else if (num_text(v)) {
		snprintf(buf, len, "%.200s", num_text(v));
	} else if (cJSON_IsNumber(v) && !isfinite(v->valuedouble)) {
		snprintf(buf, len, "%s", isnan(v->valuedouble) ? "nan" : v->valuedouble > 0 ? "inf" : "-inf");
	} else if (cJSON_IsNumber(v)) {
		dc_fmt_double(buf, len, v->valuedouble);
	} else if (cJSON_IsString(v)) {
		snprintf(buf, len, "\"%.200s\"", v->valuestring);
	} else if (cJSON_IsBool(v)) {
		snprintf(buf, len, "%s", cJSON_IsTrue(v) ? "true" : "false");
	} else if (cJSON_IsNull(v)) {
		snprintf(buf, len, "null");
	} else if (cJSON_IsArray(v)) {
		snprintf(buf, len, "an array of %d", cJSON_GetArraySize(v));
	} else {
		snprintf(buf, len, "an object");
	}
}

/* A stored number no distcalc report can hold: one that is not finite (a
 * number text such as 1e400 reads as inf, and inf > rtol * inf is false).
 * A byte count above 2^53 is not one: a ring of 8 PiB messages sends
 * more, and the report writes it as its digits, compared as such. */
static int absurd(double v)
{
	return !isfinite(v);
}

/* A row of a table in rank order whose name moved (its strategy, a
 * search row's layout) says, once a table, that rows are compared by
 * rank: a change that reorders them (a trial's micro batch 2 put pure_dp
 * first) compares one strategy's or layout's figures with another's,
 * which no percentage should pass for a change of the same row */
static void ranked_note(struct cmp *c, struct dc_buf *line)
{
	const char *t = dc_check_ranked_table(c->path), *rest;
	int strategies = t && strcmp(t, "strategies.variants[") == 0;
	size_t i, n = sizeof(c->ranked_said) / sizeof(c->ranked_said[0]);
	if (!t || !(rest = strchr(c->path + strlen(t), ']')))
		return;
	/* a row's name: its strategy, or a field of a search row's layout */
	if (strategies ? strcmp(rest, "].strategy") != 0 : !is_under(rest + 1, ".layout", 7))
		return;
	for (i = 0; i < n && c->ranked_said[i]; i++)
		if (c->ranked_said[i] == t)
			return;
	if (i == n)
		return;
	c->ranked_said[i] = t;
	dc_buf_printf(line,
		      " [%.*s lists its rows in rank order, compared by index: another %s holds this rank now, so "
		      "this row's lines compare two %s' figures, not a change of one]",
		      (int)strlen(t) - 1, t, strategies ? "strategy" : "layout", strategies ? "strategies" : "layouts");
}

static void diff(struct cmp *c, const cJSON *e, const cJSON *a)
{
	char et[256], at[256];
	struct dc_buf line;
	dc_buf_init(&line);
	value_text(e, et, sizeof(et));
	value_text(a, at, sizeof(at));
	if (strcmp(et, at) == 0 && e && a && cJSON_IsString(e) && cJSON_IsString(a)) {
		/* two long texts that part past what a line shows: from a
		 * little before where they part, never "expected X, got X" */
		const char *x = e->valuestring, *y = a->valuestring;
		size_t i = 0;
		while (x[i] && x[i] == y[i])
			i++;
		i = i > 40 ? i - 40 : 0;
		snprintf(et, sizeof(et), "\"...%.200s\"", x + i);
		snprintf(at, sizeof(at), "\"...%.200s\"", y + i);
	}
	c->res->differences++;
	if (e && cJSON_IsNumber(e) && absurd(e->valuedouble)) {
		char reads[8];
		snprintf(reads, sizeof(reads), "%s",
			 isnan(e->valuedouble) ? "nan" : e->valuedouble > 0 ? "inf" : "-inf");
		if (strcmp(et, reads) == 0)
			dc_buf_printf(&line, "%s: the stored value %s is not a plausible number; got %s", c->path, et,
				      at);
		else
			dc_buf_printf(&line, "%s: the stored value %s is not a plausible number (it reads as %s); got %s",
				      c->path, et, reads, at);
	} else if (e && a && cJSON_IsNumber(e) && cJSON_IsNumber(a) && e->valuedouble != 0 &&
		   a->valuedouble != e->valuedouble && !identity_field(c->path)) {
		double rel = (a->valuedouble - e->valuedouble) / fabs(e->valuedouble);
		dc_buf_printf(&line, "%s: expected %s, got %s (change %+.6g%%%s)", c->path, et, at, rel * 100,
			      c->note ? c->note : "");
	} else if (strcmp(c->path, "seed") == 0 && e && a && cJSON_IsNumber(e)) {
		/* the header's seed: --check reruns with the command's own, so
		 * say how to rerun with the stored one (a CI trial's) */
		dc_buf_printf(&line, "%s: expected %s, got %s (the stored report ran with --seed %s: give it)", c->path, et,
			      at, et);
	} else if (strcmp(c->path, "experiment") == 0 && e && a && cJSON_IsString(e) && cJSON_IsString(a)) {
		/* the header's experiment: --check reruns the command's own, as
		 * the seed (a CI trial's search budget checked as systems) */
		dc_buf_printf(&line, "%s: expected %s, got %s (the stored report ran --experiment %.100s: give it)", c->path,
			      et, at, e->valuestring);
	} else if (!a) {
		dc_buf_printf(&line, "%s: expected %s, missing from the new report", c->path, et);
	} else if (!e) {
		dc_buf_printf(&line, "%s: not in the expected report, got %s", c->path, at);
	} else {
		dc_buf_printf(&line, "%s: expected %s, got %s", c->path, et, at);
	}
	ranked_note(c, &line);
	/* one line a difference: a stored string's newline or ESC stays text */
	if (line.failed)
		c->out->failed = 1;
	else
		dc_buf_printable(c->out, line.data);
	dc_buf_putc(c->out, '\n');
	dc_buf_release(&line);
}

/* `s` past "FILE: " when it opens with a file side `side` names (its
 * config header, its model's config.json: a warning the loader prefixed
 * with the file's path; the path is not a budget, as the file fields
 * themselves are not compared); else `s`. Only a file both sides' reports
 * named. */
/* The length of file `f`'s path in side `side`'s name of it: the name,
 * less " (as imported)" for a config an importer wrote ("x.sh (as
 * imported)": its warnings and the search's command name "x.sh"). */
static size_t file_path_len(const struct cmp *c, int f, int side)
{
	static const char imported[] = " (as imported)";
	const char *name = c->file[f][side];
	size_t n = strlen(name), k = sizeof(imported) - 1;
	return f == FILE_CONFIG && n > k && strcmp(name + n - k, imported) == 0 ? n - k : n;
}

/* Does the warning `s` open with "PATH: ", PATH a --calibrate log side
 * `side`'s report names (as given, or by its file name: ".../log.txt"
 * for "log.txt")? Its length then, else 0. */
static size_t log_prefix(const struct cmp *c, int side, const char *s)
{
	const char *colon = strstr(s, ": ");
	size_t n = colon ? (size_t)(colon - s) : 0;
	for (size_t k = 0; n && k < c->nlogs[side]; k++) {
		const char *name = c->log[side][k];
		size_t m = strlen(name);
		if (m && m <= n && strncmp(s + n - m, name, m) == 0 && (m == n || s[n - m - 1] == '/'))
			return n;
	}
	return 0;
}

static const char *past_config(const struct cmp *c, int side, const char *s)
{
	size_t lp = log_prefix(c, side, s);
	if (lp)
		return s + lp + 2;
	for (int f = 0; f < FILE_N; f++) {
		const char *name = c->file[f][side];
		size_t n, m;
		if (!c->has_file[f][0] || !c->has_file[f][1])
			continue;
		n = strlen(name);
		if (n && strncmp(s, name, n) == 0 && s[n] == ':' && s[n + 1] == ' ')
			return s + n + 2;
		/* quoted, as the profile's warnings name it: "'p.json': ..." */
		if (n && s[0] == '\'' && strncmp(s + 1, name, n) == 0 && s[n + 1] == '\'' && s[n + 2] == ':' &&
		    s[n + 3] == ' ')
			return s + n + 4;
		/* an imported config: the importer's warnings open with the
		 * framework file and a line, "x.sh:151: " */
		if ((m = file_path_len(c, f, side)) < n) {
			size_t d = 0;
			if (strncmp(s, name, m) != 0 || s[m] != ':')
				continue;
			while (s[m + 1 + d] >= '0' && s[m + 1 + d] <= '9')
				d++;
			if (s[m + 1 + d] == ':' && s[m + 2 + d] == ' ')
				return s + m + 3 + d;
			if (d == 0 && s[m + 1] == ' ')
				return s + m + 2;
		}
	}
	return s;
}

/* The next shell word of a search.command (sec_search.c add_arg: plain,
 * or single-quoted with ' as '\\''), unquoted into w (len bytes), from *s
 * on; *s moves past it. 0, or -1 at the end or when it does not fit. */
static int next_word(const char **s, char *w, size_t len)
{
	const char *p = *s;
	size_t n = 0;
	int quoted = 0;
	while (*p == ' ')
		p++;
	if (!*p)
		return -1;
	for (; *p && (quoted || *p != ' '); p++) {
		if (*p == '\'') {
			quoted = !quoted;
			continue;
		}
		if (!quoted && *p == '\\' && p[1])
			p++;
		if (n + 1 >= len)
			return -1;
		w[n++] = *p;
	}
	w[n] = '\0';
	*s = p;
	return 0;
}

/* The options of a search.command whose argument is a file: where it lies
 * is not a budget (README, "Pinning a budget in CI") */
static int file_option(const char *w)
{
	static const char *const opts[] = {"--config",	       "--model",	    "--from-megatron",
					   "--from-torchtitan", "--from-deepspeed", "--calibrate",
					   "--calibrate-compute"};
	for (size_t i = 0; i < sizeof(opts) / sizeof(opts[0]); i++)
		if (strcmp(w, opts[i]) == 0)
			return 1;
	return 0;
}

/* The winner's command line (search.command) with its files cut out: each
 * option naming a file (file_option) with its argument, and the value of
 * a --set of a key whose value is a file (file_keys), so that "--config
 * configs/x.json --set ..." and "--config ./configs/x.json --set ...", a
 * catalogue name and its file, a log read from another directory or the
 * built-in default and configs/systems.json are the same budget; what
 * the files hold is compared through the fields they fill. Into out (len
 * bytes) as its words, one space apart; 0, or -1 when a word or the
 * whole does not fit (then compared as it is). */
static int command_past_files(const char *s, char *out, size_t len)
{
	char w[2048];
	size_t used = 0;
	int set = 0;
	out[0] = '\0';
	while (next_word(&s, w, sizeof(w)) == 0) {
		const char *eq = strchr(w, '=');
		size_t n = strlen(w);
		if (file_option(w)) {
			if (next_word(&s, w, sizeof(w)) != 0)
				return -1; /* the option without its file: not a command distcalc writes */
			continue;
		}
		if (set && eq) {
			char key[256];
			size_t k = (size_t)(eq - w);
			if (k < sizeof(key)) {
				memcpy(key, w, k);
				key[k] = '\0';
				if (file_key_slot(key) >= 0)
					n = k + 1; /* KEY= kept, the file cut */
			}
		}
		set = strcmp(w, "--set") == 0;
		if (used + n + 2 >= len)
			return -1;
		if (used)
			out[used++] = ' ';
		memcpy(out + used, w, n);
		used += n;
		out[used] = '\0';
	}
	return 0;
}

/* Keeps side `side`'s file `slot` (a string; FILE_N: none kept). */
static void keep_config(struct cmp *c, int slot, int side, const cJSON *v)
{
	if (slot < FILE_N && v && cJSON_IsString(v) && strlen(v->valuestring) < sizeof(c->file[slot][side])) {
		memcpy(c->file[slot][side], v->valuestring, strlen(v->valuestring) + 1);
		c->has_file[slot][side] = 1;
	}
}

/* Keeps a --calibrate log's name (calibrate_log) each side gives. */
static void keep_logs(struct cmp *c, const cJSON *e, const cJSON *a)
{
	const cJSON *v[2] = {e, a};
	for (int side = 0; side < 2; side++)
		if (v[side] && cJSON_IsString(v[side]) && c->nlogs[side] < DC_CALIB_MAX_LOGS &&
		    strlen(v[side]->valuestring) < sizeof(c->log[side][0]))
			memcpy(c->log[side][c->nlogs[side]++], v[side]->valuestring, strlen(v[side]->valuestring) + 1);
}

/* Both reports' names of file `slot` (the stored, the new); a --calibrate
 * log's among the logs (keep_logs) */
static void keep_configs(struct cmp *c, int slot, const cJSON *e, const cJSON *a)
{
	if (calibrate_log(c->path))
		keep_logs(c, e, a);
	keep_config(c, slot, 0, e);
	keep_config(c, slot, 1, a);
}

/* Appends ".key" (or "key" at the top) or "[index]" to c->path; returns
 * the length before it, to cut it off again. */
static size_t path_push(struct cmp *c, const char *key, long index)
{
	size_t len = strlen(c->path);
	if (key)
		snprintf(c->path + len, sizeof(c->path) - len, "%s%s", len ? "." : "", key);
	else
		snprintf(c->path + len, sizeof(c->path) - len, "[%ld]", index);
	return len;
}

static void compare(struct cmp *c, const cJSON *e, const cJSON *a);

static void with_path(struct cmp *c, const char *key, long index, const cJSON *e, const cJSON *a)
{
	size_t len = path_push(c, key, index);
	int slot = file_field(c);
	if (slot >= 0)
		keep_configs(c, slot, e, a);
	else if (!ignored(c->path)) {
		int want = wanted(c, !e || !a);
		/* above a listed path only containers are walked into; a field
		 * missing on one side is still a difference there */
		if (want == 1 || (want == 2 && (!e || !a || cJSON_IsObject(e) || cJSON_IsArray(e))))
			compare(c, e, a);
	}
	c->path[len] = '\0';
}

static void compare(struct cmp *c, const cJSON *e, const cJSON *a)
{
	if (!e || !a) {
		/* a field one side lacks is compared, and moved: the summary's
		 * counts never say more moved than were compared */
		c->res->compared++;
		diff(c, e, a);
		return;
	}
	if (cJSON_IsObject(e) && cJSON_IsObject(a)) {
		const cJSON *x;
		for (x = e->child; x; x = x->next)
			with_path(c, x->string, 0, x, cJSON_GetObjectItemCaseSensitive(a, x->string));
		for (x = a->child; x; x = x->next)
			if (!cJSON_GetObjectItemCaseSensitive(e, x->string))
				with_path(c, x->string, 0, NULL, x);
		return;
	}
	if (cJSON_IsArray(e) && cJSON_IsArray(a)) {
		const cJSON *x = e->child, *y = a->child;
		long i = 0;
		for (; x || y; i++) {
			with_path(c, NULL, i, x, y);
			x = x ? x->next : NULL;
			y = y ? y->next : NULL;
		}
		return;
	}
	c->res->compared++;
	if (cJSON_IsNumber(e) && cJSON_IsNumber(a)) {
		double ev = e->valuedouble, av = a->valuedouble;
		const char *et = num_text(e), *at = num_text(a);
		if (absurd(ev) || !isfinite(av)) {
			/* inf > inf is false: never let a tolerance pass these */
			diff(c, e, a);
		} else if ((whole(ev) && whole(av) && !measure_field(c->path)) || integer_field(c->path) ||
			   identity_field(c->path) || (c->is_count && c->is_count(c->count_ctx, c->path))) {
			/* a whole number on both sides, or a field the report
			 * types as a count or whose key names one (bytes,
			 * parameters) or a seed, is exact whatever --rtol: 30.5 bytes or
			 * 8.000000001 ranks is a change, not rounding. Above
			 * 2^53 a double no longer tells integers apart: two
			 * written as their digits (the JSON sink writes a count
			 * so) are compared digit for digit */
			if (et && at && digits_only(et) && digits_only(at) ? strcmp(et, at) != 0 : ev != av) {
				/* within --rtol, it would have passed as a
				 * measure: say why it did not */
				if (c->rtol > 0 && fabs(av - ev) <= c->rtol * fmax(fabs(av), fabs(ev)))
					c->note = integer_field(c->path) || identity_field(c->path) ||
							  (c->is_count && c->is_count(c->count_ctx, c->path))
						  ? "; a count or byte field, compared exactly whatever --rtol"
						  : "; whole numbers on both sides, compared exactly whatever --rtol";
				diff(c, e, a);
				c->note = NULL;
			}
		} else if (fabs(av - ev) > c->rtol * fmax(fabs(av), fabs(ev))) {
			diff(c, e, a);
		}
		return;
	}
	note_key_row(c, e);
	note_key_row(c, a);
	if (cJSON_IsString(e) && cJSON_IsString(a)) {
		if (strcmp(c->path, "search.command") == 0) {
			char x[2048], y[2048];
			if (command_past_files(e->valuestring, x, sizeof(x)) == 0 &&
			    command_past_files(a->valuestring, y, sizeof(y)) == 0) {
				if (strcmp(x, y) != 0)
					diff(c, e, a);
				return;
			}
		}
		if (strcmp(past_config(c, 0, e->valuestring), past_config(c, 1, a->valuestring)) != 0)
			diff(c, e, a);
		return;
	}
	if ((cJSON_IsTrue(e) && cJSON_IsTrue(a)) || (cJSON_IsFalse(e) && cJSON_IsFalse(a)) ||
	    (cJSON_IsNull(e) && cJSON_IsNull(a)))
		return;
	diff(c, e, a);
}

static int key_order(const void *x, const void *y)
{
	return strcmp((*(const cJSON *const *)x)->string, (*(const cJSON *const *)y)->string);
}

/* Looks for a key that an object of `v` (or below) holds twice, the path
 * to it in path[len]. Returns 1 with the path there, 0 when there is none,
 * -1 when out of memory. Sorting the keys keeps a wide object O(n log n). */
static int find_duplicate(const cJSON *v, char *path, size_t len)
{
	size_t used = strlen(path), n = 0, i = 0;
	const cJSON *x;
	const cJSON **keys;
	int found = 0;

	if (cJSON_IsArray(v)) {
		for (x = v->child; x && !found; x = x->next, i++) {
			snprintf(path + used, len - used, "[%zu]", i);
			found = find_duplicate(x, path, len);
		}
		if (found != 1)
			path[used] = '\0';
		return found;
	}
	if (!cJSON_IsObject(v))
		return 0;
	for (x = v->child; x; x = x->next)
		n++;
	if (n < 2)
		keys = NULL;
	else if (!(keys = dc_malloc(n * sizeof(*keys))))
		return -1;
	if (keys) {
		for (x = v->child; x; x = x->next)
			keys[i++] = x;
		qsort(keys, n, sizeof(*keys), key_order);
		for (i = 1; i < n && !found; i++)
			if (strcmp(keys[i - 1]->string, keys[i]->string) == 0) {
				snprintf(path + used, len - used, "%s%s", used ? "." : "", keys[i]->string);
				found = 1;
			}
		free(keys);
	}
	for (x = v->child; x && !found; x = x->next) {
		snprintf(path + used, len - used, "%s%s", used ? "." : "", x->string);
		found = find_duplicate(x, path, len);
	}
	if (found != 1)
		path[used] = '\0';
	return found;
}

/* The text of valid JSON (dc_json_check_strict passed it) as a tree, its
 * numbers' texts kept where a double may not say them (num_text); NULL
 * when out of memory. */
static cJSON *parse_whole(const char *text, size_t len);

/* Parses a stored report strictly: the whole text one JSON object (the
 * loader's strict check: nothing after it but whitespace), no duplicate
 * key, and the header fields of a distcalc report. Returns the tree, or
 * NULL with DC_ERR_INPUT (DC_ERR_INTERNAL when out of memory) in diag. */
static cJSON *read_report(const char *text, size_t len, const char *name, struct dc_diag *diag)
{
	char what[192], path[512] = "";
	size_t line, col;
	cJSON *e;
	int dup;

	if (dc_json_check_strict(text, len, &line, &col, what, sizeof(what)) != 0) {
		char where[400];
		snprintf(where, sizeof(where), "%.200s:%zu:%zu: %s", name, line, col, what);
		dc_diag_error(diag, DC_ERR_INPUT, NOT_A_REPORT, name, where);
		return NULL;
	}
	if (len >= 3 && memcmp(text, "\xef\xbb\xbf", 3) == 0) { /* the strict check skips a BOM; cJSON does not */
		text += 3;
		len -= 3;
	}
	/* the text is valid JSON, so only a failed allocation stops the parse */
	if (!(e = parse_whole(text, len))) {
		dc_diag_error(diag, DC_ERR_INTERNAL, "error: out of memory while checking '%s'", name);
		return NULL;
	}
	if (!cJSON_IsObject(e)) {
		dc_diag_error(diag, DC_ERR_INPUT, NOT_A_REPORT, name, "the top level is not a JSON object");
		cJSON_Delete(e);
		return NULL;
	}
	if ((dup = find_duplicate(e, path, sizeof(path))) != 0) {
		if (dup < 0) {
			dc_diag_error(diag, DC_ERR_INTERNAL, "error: out of memory while checking '%s'", name);
		} else {
			char why[600];
			snprintf(why, sizeof(why), "duplicate key '%s'", path);
			dc_diag_error(diag, DC_ERR_INPUT, NOT_A_REPORT, name, why);
		}
		cJSON_Delete(e);
		return NULL;
	}
	for (size_t i = 0; i < sizeof(header_fields) / sizeof(header_fields[0]); i++) {
		const cJSON *f = cJSON_GetObjectItemCaseSensitive(e, header_fields[i].key);
		if (!f || !header_fields[i].is(f)) {
			char why[128];
			snprintf(why, sizeof(why), "%s header field '%s'", f ? "a wrong type for the" : "no",
				 header_fields[i].key);
			dc_diag_error(diag, DC_ERR_INPUT, NOT_A_REPORT, name, why);
			cJSON_Delete(e);
			return NULL;
		}
	}
	return e;
}

/* Splits the --check-only list into c->only. Returns 0, or -1 with a
 * usage error in diag. */
static int split_only(struct cmp *c, const char *only, struct dc_diag *diag)
{
	const char *p = only;
	if (!only)
		return 0;
	for (;;) {
		size_t n = strcspn(p, ","), len;
		/* the blanks around a path are no part of it (a CI file's
		 * YAML adds them: ' step.time_s' matched no field) */
		const char *t = dc_text_trim(p, n, &len);
		if (len == 0) {
			dc_diag_error(diag, DC_ERR_USAGE, "distcalc: error: '--check-only': empty path in '%s'", only);
			return -1;
		}
		if (c->nonly == DC_CHECK_ONLY_MAX) {
			dc_diag_error(diag, DC_ERR_USAGE, "distcalc: error: '--check-only': more than %d paths",
				      DC_CHECK_ONLY_MAX);
			return -1;
		}
		c->only[c->nonly] = t;
		c->only_len[c->nonly++] = len;
		if (p[n] == '\0')
			return 0;
		p += n + 1;
	}
}

/* ---- the new report, streamed ----
 *
 * The new report is distcalc's own JSON: rather than a second tree as
 * large as the stored one, it is read token by token and compared as it
 * goes against the stored tree, whose members are freed once matched.
 * Members are looked for at the stored object's cursor first (the two
 * reports come from one renderer, so their orders agree) and by name
 * otherwise. Lines follow the new report's order; a field only the stored
 * report holds is reported at the end of its object. */

/* nesting deeper than this is refused: the stored report is untrusted and
 * the walks recurse */
#define SP_MAX_DEPTH 64 /* as dc_json_check_strict */

struct sp {
	const char *p, *end;
	int bad;
	/* streamed (read set): [p, end) is a window of win, refilled by read
	 * (0 at the end); whole (read NULL): [p, end) is all the text */
	size_t (*read)(void *ctx, char *buf, size_t cap);
	void *read_ctx;
	char *win;
	size_t cap;
	int eof;
	uint64_t before; /* bytes consumed before win */
	int depth, too_deep;
};

/* At least `n` bytes ahead of s->p when the text has them. */
static void sp_need(struct sp *s, size_t n)
{
	size_t left;
	if ((size_t)(s->end - s->p) >= n || !s->read || s->eof)
		return;
	left = (size_t)(s->end - s->p);
	s->before += (uint64_t)(s->p - s->win);
	memmove(s->win, s->p, left);
	s->p = s->win;
	s->end = s->win + left;
	while ((size_t)(s->end - s->p) < n && !s->eof) {
		size_t got = s->read(s->read_ctx, s->win + left, s->cap - left);
		if (!got)
			s->eof = 1;
		left += got;
		s->end = s->win + left;
	}
}

static int sp_peek(struct sp *s)
{
	for (;;) {
		sp_need(s, 1);
		if (s->p < s->end && (*s->p == ' ' || *s->p == '\n' || *s->p == '\r' || *s->p == '\t'))
			s->p++;
		else
			break;
	}
	return s->p < s->end ? (unsigned char)*s->p : -1;
}

static int sp_eat(struct sp *s, int ch)
{
	if (sp_peek(s) != ch)
		return 0;
	s->p++;
	return 1;
}

static int hex4(const char *p, unsigned *out)
{
	unsigned v = 0;
	for (int i = 0; i < 4; i++) {
		char h = p[i];
		v <<= 4;
		if (h >= '0' && h <= '9')
			v |= (unsigned)(h - '0');
		else if (h >= 'a' && h <= 'f')
			v |= (unsigned)(h - 'a' + 10);
		else if (h >= 'A' && h <= 'F')
			v |= (unsigned)(h - 'A' + 10);
		else
			return -1;
	}
	*out = v;
	return 0;
}

static void put_utf8(struct dc_buf *b, unsigned cp)
{
	if (cp < 0x80) {
		dc_buf_putc(b, (char)cp);
	} else if (cp < 0x800) {
		dc_buf_putc(b, (char)(0xc0 | (cp >> 6)));
		dc_buf_putc(b, (char)(0x80 | (cp & 0x3f)));
	} else if (cp < 0x10000) {
		dc_buf_putc(b, (char)(0xe0 | (cp >> 12)));
		dc_buf_putc(b, (char)(0x80 | ((cp >> 6) & 0x3f)));
		dc_buf_putc(b, (char)(0x80 | (cp & 0x3f)));
	} else {
		dc_buf_putc(b, (char)(0xf0 | (cp >> 18)));
		dc_buf_putc(b, (char)(0x80 | ((cp >> 12) & 0x3f)));
		dc_buf_putc(b, (char)(0x80 | ((cp >> 6) & 0x3f)));
		dc_buf_putc(b, (char)(0x80 | (cp & 0x3f)));
	}
}

/* A string, decoded into *out (which it empties first), or skipped when
 * out is NULL. */
static size_t utf8_len(const unsigned char *p, const unsigned char *end);

static void sp_string(struct sp *s, struct dc_buf *out)
{
	if (out) {
		out->len = 0;
		dc_buf_add(out, "", 0);
	}
	if (!sp_eat(s, '"')) {
		s->bad = 1;
		return;
	}
	for (;;) {
		char ch;
		sp_need(s, 12); /* an escape with its surrogate pair */
		if (s->p >= s->end || *s->p == '"')
			break;
		if (s->read && (unsigned char)*s->p < 0x20) {
			s->bad = 1; /* a raw control character */
			return;
		}
		if (s->read && (unsigned char)*s->p >= 0x80) {
			size_t n = utf8_len((const unsigned char *)s->p, (const unsigned char *)s->end);
			if (!n) {
				s->bad = 1;
				return;
			}
			if (out)
				dc_buf_add(out, s->p, n);
			s->p += n;
			continue;
		}
		ch = *s->p++;
		if (ch == '\\') {
			unsigned cp, lo;
			if (s->p >= s->end) {
				s->bad = 1;
				return;
			}
			switch (*s->p++) {
			case '"': ch = '"'; break;
			case '\\': ch = '\\'; break;
			case '/': ch = '/'; break;
			case 'b': ch = '\b'; break;
			case 'f': ch = '\f'; break;
			case 'n': ch = '\n'; break;
			case 'r': ch = '\r'; break;
			case 't': ch = '\t'; break;
			case 'u':
				if (s->end - s->p < 4 || hex4(s->p, &cp) != 0) {
					s->bad = 1;
					return;
				}
				s->p += 4;
				if (cp >= 0xd800 && cp < 0xdc00 && s->end - s->p >= 6 && s->p[0] == '\\' &&
				    s->p[1] == 'u' && hex4(s->p + 2, &lo) == 0 && lo >= 0xdc00 && lo < 0xe000) {
					cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
					s->p += 6;
				}
				if (out)
					put_utf8(out, cp);
				continue;
			default:
				s->bad = 1;
				return;
			}
		}
		if (out)
			dc_buf_putc(out, ch);
	}
	if (s->p >= s->end)
		s->bad = 1;
	else
		s->p++;
}

static cJSON *sp_leaf(struct sp *s, struct dc_buf *text);

static void sp_skip(struct sp *s)
{
	int ch = sp_peek(s);
	if (s->depth > SP_MAX_DEPTH) {
		s->bad = s->too_deep = 1;
		return;
	}
	if (ch == '"') {
		sp_string(s, NULL);
	} else if (ch == '{' || ch == '[') {
		int close = ch == '{' ? '}' : ']';
		s->p++;
		if (sp_eat(s, close))
			return;
		s->depth++;
		do {
			if (close == '}') {
				sp_string(s, NULL);
				if (!sp_eat(s, ':'))
					s->bad = 1;
			}
			sp_skip(s);
		} while (!s->bad && sp_eat(s, ','));
		s->depth--;
		if (!sp_eat(s, close))
			s->bad = 1;
	} else if (ch == -1) {
		s->bad = 1;
	} else if (s->read) {
		/* streamed: a stored report's scalar is checked even unread */
		cJSON *v = sp_leaf(s, NULL);
		if (!v && !s->bad)
			s->bad = 1; /* out of memory: stop, as not JSON would */
		cJSON_Delete(v);
	} else {
		for (;;) {
			sp_need(s, 1);
			if (s->p >= s->end || strchr(",}] \n\r\t", *s->p))
				break;
			s->p++;
		}
	}
}

/* RFC 8259's number: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?, as
 * dc_json_check_strict reads a stored report (a streamed one is checked
 * here, token by token) */
static int json_number(const char *p)
{
	if (*p == '-')
		p++;
	if (*p == '0')
		p++;
	else if (*p >= '1' && *p <= '9')
		while (*p >= '0' && *p <= '9')
			p++;
	else
		return 0;
	if (*p == '.') {
		if (!(*++p >= '0' && *p <= '9'))
			return 0;
		while (*p >= '0' && *p <= '9')
			p++;
	}
	if (*p == 'e' || *p == 'E') {
		p++;
		if (*p == '+' || *p == '-')
			p++;
		if (!(*p >= '0' && *p <= '9'))
			return 0;
		while (*p >= '0' && *p <= '9')
			p++;
	}
	return *p == '\0';
}

/* The length of the UTF-8 sequence at p (at most 4 bytes before end), or
 * 0 when it is not one (overlong forms and surrogates included). */
static size_t utf8_len(const unsigned char *p, const unsigned char *end)
{
	size_t n, i;
	unsigned char lo = 0x80, hi = 0xbf;
	if (p[0] >= 0xc2 && p[0] <= 0xdf)
		n = 2;
	else if (p[0] >= 0xe0 && p[0] <= 0xef) {
		n = 3;
		if (p[0] == 0xe0)
			lo = 0xa0;
		if (p[0] == 0xed)
			hi = 0x9f;
	} else if (p[0] >= 0xf0 && p[0] <= 0xf4) {
		n = 4;
		if (p[0] == 0xf0)
			lo = 0x90;
		if (p[0] == 0xf4)
			hi = 0x8f;
	} else
		return 0;
	if ((size_t)(end - p) < n || p[1] < lo || p[1] > hi)
		return 0;
	for (i = 2; i < n; i++)
		if (p[i] < 0x80 || p[i] > 0xbf)
			return 0;
	return n;
}

/* A scalar of the new report as a cJSON value; a container facing another
 * type or nothing is skipped and stands as an empty one (a difference line
 * names its type only). NULL when out of memory or not JSON. */
static cJSON *sp_leaf(struct sp *s, struct dc_buf *text)
{
	int ch = sp_peek(s);
	char *end;
	double v;

	if (ch == '"') {
		sp_string(s, text);
		return s->bad || text->failed ? NULL : cJSON_CreateString(text->data);
	}
	if (ch == '{' || ch == '[') {
		sp_skip(s);
		return ch == '{' ? cJSON_CreateObject() : cJSON_CreateArray();
	}
	sp_need(s, 64);
	if (s->end - s->p >= 4 && strncmp(s->p, "true", 4) == 0) {
		s->p += 4;
		return cJSON_CreateTrue();
	}
	if (s->end - s->p >= 5 && strncmp(s->p, "false", 5) == 0) {
		s->p += 5;
		return cJSON_CreateFalse();
	}
	if (s->end - s->p >= 4 && strncmp(s->p, "null", 4) == 0) {
		s->p += 4;
		return cJSON_CreateNull();
	}
	{
		/* the number's bytes, however many (a stored 3.666...6e-05 of 130
		 * digits is JSON, and the tree comparison takes it), through the
		 * window into `text` */
		size_t n = 0;
		struct dc_buf own, *t = text; /* sp_skip passes none */
		int bad;
		if (!t) {
			dc_buf_init(&own);
			t = &own;
		}
		t->len = 0;
		for (;;) {
			if (s->p == s->end)
				sp_need(s, 1);
			if (s->p == s->end || !*s->p || !strchr("+-.0123456789eE", *s->p))
				break;
			dc_buf_putc(t, *s->p++);
			n++;
		}
		if (t->failed) {
			if (!text)
				dc_buf_release(&own);
			return NULL; /* out of memory: the caller says so (dc_buf keeps the NUL) */
		}
		v = n ? strtod(t->data, &end) : 0;
		bad = n == 0 || end != t->data + n || (s->read && !json_number(t->data));
		if (!bad && keep_num_text(t->data, n, v)) {
			/* the text the double may not say (num_text) */
			cJSON *num = cJSON_CreateNumber(v);
			char *kept = num ? cJSON_malloc(n + 1) : NULL;
			if (kept) {
				memcpy(kept, t->data, n + 1);
				num->valuestring = kept;
			}
			if (!text)
				dc_buf_release(&own);
			if (!kept)
				cJSON_Delete(num);
			return kept ? num : NULL;
		}
		if (!text)
			dc_buf_release(&own);
		if (bad) {
			s->bad = 1;
			return NULL;
		}
	}
	return cJSON_CreateNumber(v);
}

static void s_compare(struct cmp *c, struct sp *s, cJSON *e, struct dc_buf *text);

static void s_member(struct cmp *c, struct sp *s, const char *key, long index, cJSON *e, struct dc_buf *text)
{
	size_t len = path_push(c, key, index);
	int slot = file_field(c);
	if (slot >= 0 && sp_peek(s) == '"') {
		cJSON *a = sp_leaf(s, text);
		keep_configs(c, slot, e, a);
		cJSON_Delete(a);
	} else if (slot >= 0 || ignored(c->path)) {
		sp_skip(s);
	} else {
		int want = wanted(c, !e);
		if (want == 1 || (want == 2 && (!e || cJSON_IsObject(e) || cJSON_IsArray(e))))
			s_compare(c, s, e, text);
		else
			sp_skip(s);
	}
	c->path[len] = '\0';
}

static void s_compare(struct cmp *c, struct sp *s, cJSON *e, struct dc_buf *text)
{
	int ch = sp_peek(s);
	cJSON *a;

	if (ch == '{' && e && cJSON_IsObject(e)) {
		cJSON *cur = e->child;
		struct dc_buf key;
		s->p++;
		dc_buf_init(&key);
		if (!sp_eat(s, '}')) {
			do {
				cJSON *ex;
				sp_string(s, &key);
				if (s->bad || key.failed || !sp_eat(s, ':')) {
					s->bad = 1;
					break;
				}
				if (cur && cur->string && strcmp(cur->string, key.data) == 0)
					ex = cur;
				else
					ex = cJSON_GetObjectItemCaseSensitive(e, key.data);
				if (ex && ex == cur)
					cur = cur->next;
				s_member(c, s, key.data, 0, ex, text);
				if (ex)
					cJSON_Delete(cJSON_DetachItemViaPointer(e, ex));
			} while (!s->bad && sp_eat(s, ','));
			if (!s->bad && !sp_eat(s, '}'))
				s->bad = 1;
		}
		dc_buf_release(&key);
		for (cJSON *x = e->child; x; x = x->next) /* the stored report's alone */
			with_path(c, x->string, 0, x, NULL);
		return;
	}
	if (ch == '[' && e && cJSON_IsArray(e)) {
		cJSON *x = e->child;
		long i = 0;
		s->p++;
		if (!sp_eat(s, ']')) {
			do {
				s_member(c, s, NULL, i++, x, text);
				x = x ? x->next : NULL;
			} while (!s->bad && sp_eat(s, ','));
			if (!s->bad && !sp_eat(s, ']'))
				s->bad = 1;
		}
		for (; x; x = x->next, i++)
			with_path(c, NULL, i, x, NULL);
		return;
	}
	a = sp_leaf(s, text);
	if (!a) {
		if (!s->bad)
			c->out->failed = 1; /* out of memory: reported as such */
		return;
	}
	compare(c, e, a);
	cJSON_Delete(a);
}

int dc_check_compare_only(const char *expected, size_t expected_len, const char *expected_name,
			  const char *actual, size_t actual_len, double rtol, const char *only,
			  struct dc_buf *out, struct dc_check_result *res, struct dc_diag *diag,
			  int (*is_count)(const void *ctx, const char *path), const void *count_ctx)
{
	cJSON *e;
	struct cmp c;
	int rc = 0;

	memset(res, 0, sizeof(*res));
	memset(&c, 0, sizeof(c));
	if (split_only(&c, only, diag) != 0)
		return -1;
	if (!(e = read_report(expected, expected_len, expected_name, diag)))
		return -1;
	c.rtol = rtol;
	c.out = out;
	c.res = res;
	c.is_count = is_count;
	c.count_ctx = count_ctx;
	{
		struct sp sp = {actual, actual + actual_len, 0};
		struct dc_buf text;
		dc_buf_init(&text);
		s_compare(&c, &sp, e, &text);
		dc_buf_release(&text);
		if (!sp.bad && sp_peek(&sp) != -1)
			sp.bad = 1;
		cJSON_Delete(e);
		if (sp.bad) {
			dc_diag_error(diag, DC_ERR_INTERNAL, "error: the new report is not JSON (a bug) while checking '%s'",
				      expected_name);
			return -1;
		}
	}
	if (out->failed) {
		dc_diag_error(diag, DC_ERR_INTERNAL, "error: out of memory while checking '%s'", expected_name);
		return -1;
	}
	for (size_t i = 0; i < c.nonly; i++)
		if (!c.only_hits[i]) {
			dc_diag_error(diag, DC_ERR_USAGE,
				      "distcalc: error: '--check-only': '%.*s' matches no field of either report",
				      (int)c.only_len[i], c.only[i]);
			rc = -1;
		}
	return rc;
}

int dc_check_compare(const char *expected, size_t expected_len, const char *expected_name,
		     const char *actual, size_t actual_len, double rtol, struct dc_buf *out,
		     struct dc_check_result *res, struct dc_diag *diag)
{
	return dc_check_compare_only(expected, expected_len, expected_name, actual, actual_len, rtol, NULL, out,
				     res, diag, NULL, NULL);
}

int dc_check_is_report(const char *expected, size_t expected_len, const char *name, struct dc_diag *diag)
{
	cJSON *e = read_report(expected, expected_len, name, diag);
	if (!e)
		return -1;
	cJSON_Delete(e);
	return 0;
}

int dc_check_stored_all(const char *expected, size_t expected_len)
{
	cJSON *e = cJSON_ParseWithLength(expected, expected_len);
	int all = e && cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(e, "all"));
	cJSON_Delete(e);
	return all;
}

int dc_check_stored_only(const char *expected, size_t expected_len, char *buf, size_t len)
{
	cJSON *e = cJSON_ParseWithLength(expected, expected_len);
	const cJSON *only = e ? cJSON_GetObjectItemCaseSensitive(e, "only") : NULL;
	int found = only && cJSON_IsString(only) && only->valuestring[0] && strlen(only->valuestring) < len;

	if (found)
		memcpy(buf, only->valuestring, strlen(only->valuestring) + 1);
	cJSON_Delete(e);
	return found;
}

/* The first buffer for a file whose size fstat does not give (a pipe). */
#define READ_FIRST_BYTES ((size_t)64 * 1024)

/* Gives up a read: closes `fd`, frees `buf`, returns NULL. */
static char *read_fail(int fd, char *buf)
{
	close(fd);
	free(buf);
	return NULL;
}

char *dc_check_read_file_as(const char *path, const char *opt, size_t max, size_t *len, struct dc_diag *diag)
{
	struct stat st;
	char *buf = NULL;
	size_t n = 0, cap;
	/* "-" is standard input, read from where it stands (its own copy of
	 * the descriptor, so that the close below leaves descriptor 0 open) */
	int in = strcmp(path, "-") == 0;
	int fd = in ? dup(STDIN_FILENO) : open(path, O_RDONLY);
	char too_big[64], shown[PATH_MAX + 8];
	off_t at = 0;

	snprintf(too_big, sizeof(too_big), "larger than %zu MiB", max >> 20);
	if (in)
		snprintf(shown, sizeof(shown), "standard input");
	else
		snprintf(shown, sizeof(shown), "'%s'", path);
	if (fd < 0 || fstat(fd, &st) != 0) {
		dc_diag_error(diag, DC_ERR_INPUT, "distcalc: error: '%s': cannot open %s: %s", opt, shown, strerror(errno));
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	/* standard input from a file is read from its offset on */
	if (in && S_ISREG(st.st_mode) && (at = lseek(fd, 0, SEEK_CUR)) < 0)
		at = 0;
	if (S_ISDIR(st.st_mode) || (S_ISREG(st.st_mode) && (uint64_t)(st.st_size - at) > max)) {
		dc_diag_error(diag, DC_ERR_INPUT, "distcalc: error: '%s': %s is %s", opt, shown,
			      S_ISDIR(st.st_mode) ? "a directory" : too_big);
		return read_fail(fd, NULL);
	}
	/* a regular file takes its size (+1 to see it grew, +1 for a NUL);
	 * anything else starts small and doubles */
	cap = S_ISREG(st.st_mode) && st.st_size >= at ? (size_t)(st.st_size - at) + 2 : READ_FIRST_BYTES;
	for (;;) {
		ssize_t r;
		if (n == cap || !buf) {
			size_t want = buf ? (cap > max / 2 ? max + 2 : cap * 2) : cap;
			char *grown = dc_realloc(buf, want);
			if (!grown) {
				dc_diag_error(diag, DC_ERR_INTERNAL, "distcalc: error: out of memory");
				return read_fail(fd, buf);
			}
			buf = grown;
			cap = want;
		}
		r = read(fd, buf + n, cap - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			dc_diag_error(diag, DC_ERR_INPUT, "distcalc: error: '%s': cannot read %s: %s", opt, shown,
				      strerror(errno));
			return read_fail(fd, buf);
		}
		if (r == 0)
			break;
		n += (size_t)r;
		if (n > max) {
			dc_diag_error(diag, DC_ERR_INPUT, "distcalc: error: '%s': %s is %s", opt, shown, too_big);
			return read_fail(fd, buf);
		}
	}
	close(fd);
	buf[n] = '\0';
	*len = n;
	return buf;
}

char *dc_check_read_file(const char *path, size_t max, size_t *len, struct dc_diag *diag)
{
	return dc_check_read_file_as(path, "--check", max, len, diag);
}

/* ---- --check-max ---- */

int dc_check_parse_decimal(const char *s, double *out)
{
	const char *v = s;
	size_t digits = 0;
	double x;

	for (; *v >= '0' && *v <= '9'; v++)
		digits++;
	if (*v == '.')
		for (v++; *v >= '0' && *v <= '9'; v++)
			digits++;
	if (!digits)
		return -1;
	if (*v == 'e' || *v == 'E') {
		v++;
		if (*v == '+' || *v == '-')
			v++;
		if (!(*v >= '0' && *v <= '9'))
			return -1;
		while (*v >= '0' && *v <= '9')
			v++;
	}
	if (*v != '\0')
		return -1;
	/* strtod sets ERANGE for a subnormal result too: only the value
	 * counts. A decimal that overflows, or underflows to 0 though it has
	 * a digit other than 0, is -2: a number out of range, not one
	 * missing its unit */
	x = strtod(s, NULL);
	*out = x;
	if (!isfinite(x))
		return -2;
	if (x == 0)
		for (v = s; *v && *v != 'e' && *v != 'E'; v++)
			if (*v >= '1' && *v <= '9')
				return -2;
	return 0;
}

/* The unit the key at the end of `path` carries (check.h). */
static enum budget_unit budget_unit(const char *path)
{
	const char *key = strrchr(path, '.');
	size_t n;
	key = key ? key + 1 : path;
	n = strcspn(key, "[");
	if (n >= 5 && strncmp(key + n - 5, "_GBps", 5) == 0)
		return BUDGET_GBPS;
	/* a rate, not a time: "bytes_per_s" a bandwidth in bytes/s, any
	 * other "_per_s" (tokens_per_s) a plain count a second */
	if (n >= 12 && strncmp(key + n - 12, "_bytes_per_s", 12) == 0)
		return BUDGET_BYTES_PER_S;
	if (n >= 6 && strncmp(key + n - 6, "_per_s", 6) == 0)
		return BUDGET_PLAIN;
	if (n >= 2 && strncmp(key + n - 2, "_s", 2) == 0)
		return BUDGET_TIME;
	/* seconds of something per unit of another (gpu_s_per_token) */
	for (size_t i = 0; i + 7 <= n; i++)
		if (strncmp(key + i, "_s_per_", 7) == 0 && !(i >= 4 && strncmp(key + i - 4, "_per", 4) == 0))
			return BUDGET_TIME;
	for (size_t i = 0; i + 5 <= n; i++)
		if (strncmp(key + i, "bytes", 5) == 0)
			return BUDGET_BYTES;
	return BUDGET_PLAIN;
}

/* A byte budget's bound: dc_units_parse_bytes's whole bytes, or, where
 * the text is a fraction of a unit that is no whole number of bytes
 * ("35.3 GiB", as a CI author pins a little above the table's 35.283
 * GiB; a CI trial's was refused), that fraction of the unit as a double:
 * a bound need not be a whole byte count, as a plain number's need not.
 * The first parse's reason stands where the second finds none. */
static int budget_bytes(const char *text, double *out, char *why, size_t n)
{
	uint64_t b, unit;
	char one[48], scratch[160];
	char *end;
	double x;
	if (dc_units_parse_bytes(text, &b, why, n) == 0) {
		*out = (double)b;
		return 0;
	}
	if (!((text[0] >= '0' && text[0] <= '9') || text[0] == '.'))
		return -1;
	errno = 0;
	x = strtod(text, &end);
	if (end == text || errno != 0 || !isfinite(x) || x < 0)
		return -1;
	/* a decimal, as the unit parser reads one: no hex float (0x10) */
	for (const char *q = text; q < end; q++)
		if (!((*q >= '0' && *q <= '9') || *q == '.' || *q == 'e' || *q == 'E' || *q == '+' || *q == '-'))
			return -1;
	while (*end == ' ')
		end++;
	if (!*end || strlen(end) > 16)
		return -1;
	snprintf(one, sizeof(one), "1 %s", end);
	if (dc_units_parse_bytes(one, &unit, scratch, sizeof(scratch)) != 0 || x * (double)unit > 9007199254740992.0)
		return -1;
	*out = x * (double)unit;
	return 0;
}

const char *dc_check_ranked_table(const char *path)
{
	static const char *const ranked[] = {"strategies.variants[", "search.best[", "search.pareto["};
	for (size_t i = 0; i < sizeof(ranked) / sizeof(ranked[0]); i++)
		if (strncmp(path, ranked[i], strlen(ranked[i])) == 0)
			return ranked[i];
	return NULL;
}

int dc_check_max_parse(const char *arg, struct dc_check_max *m, char *err, size_t errlen)
{
	const char *eq = strchr(arg, '=');
	char *path, *trimmed = NULL, why[200];
	const char *t;
	double limit = 0;
	int ok, no_unit = 0;

	if (eq) {
		/* the blanks around PATH and VALUE are no part of them, as
		 * --set and --sweep drop them around a value (a CI file's YAML
		 * adds them: '80GiB ' was "unknown size unit 'GiB '") */
		size_t pn, vn;
		const char *p = dc_text_trim(arg, (size_t)(eq - arg), &pn), *v = dc_text_trim(eq + 1, strlen(eq + 1), &vn);
		if (pn != (size_t)(eq - arg) || vn != strlen(eq + 1)) {
			if (!(trimmed = dc_asprintf("%.*s=%.*s", (int)pn, p, (int)vn, v))) {
				snprintf(err, errlen, "out of memory");
				return -1;
			}
			arg = trimmed;
			eq = arg + pn;
		}
	}
	if (!eq || eq == arg || !eq[1]) {
		snprintf(err, errlen, "expected PATH=VALUE, as in memory.per_rank.peak_bytes=80GiB");
		free(trimmed);
		return -1;
	}
	path = dc_strdup(arg);
	if (!path) {
		snprintf(err, errlen, "out of memory");
		free(trimmed);
		return -1;
	}
	path[eq - arg] = '\0';
	m->warn[0] = '\0';
	if (eq[1] == '-' && budget_unit(path) == BUDGET_PLAIN && dc_check_parse_decimal(eq + 2, &limit) == 0) {
		/* a field without a unit may be signed (loss.rank_rel_error):
		 * its floor or budget may be too */
		limit = -limit;
		ok = 1;
	} else if (dc_check_parse_decimal(eq + 1, &limit) == 0) {
		ok = 1;
		switch (budget_unit(path)) {
		case BUDGET_BYTES:
			/* as a config's plain byte counts: a budget is a whole
			 * number of bytes below 2^53, where a double holds every
			 * integer (a report may hold more: a ring of 8 PiB
			 * messages sends 1.75 x 2^53 bytes a rank) */
			if (limit >= 9007199254740992.0) {
				/* 2^53 + 1 reads as 2^53: refused at 2^53 itself */
				snprintf(why, sizeof(why),
					 "'%s' is 2^53 bytes or more; a byte budget is below 2^53, as a config's byte counts are",
					 eq + 1);
				ok = 0;
			} else if (limit > 0 && limit < 1048576.0) {
				snprintf(m->warn, sizeof(m->warn),
					 "'%s': %s is in bytes (a plain number is bytes); if you meant %s GiB, write '%sGiB'",
					 path, eq + 1, eq + 1, eq + 1);
			}
			break;
		case BUDGET_TIME:
			/* a plain number is seconds: 100 of them for one step's
			 * figure is the slip of writing milliseconds */
			if (limit >= 100)
				snprintf(m->warn, sizeof(m->warn),
					 "'%s': %s is in seconds (a plain number is seconds); if you meant %s ms, write '%s ms'",
					 path, eq + 1, eq + 1, eq + 1);
			break;
		default:
			break;
		}
	} else if (dc_check_parse_decimal(eq + 1, &limit) == -2) {
		snprintf(why, sizeof(why), "'%s' is out of range: %s", eq + 1,
			 strchr(eq + 1, '-') ? "it rounds to 0 (the exponent is too small)"
					     : "it is too large for a number (the exponent is too large)");
		ok = 0;
	} else {
		switch (budget_unit(path)) {
		case BUDGET_BYTES:
			ok = budget_bytes(eq + 1, &limit, why, sizeof(why)) == 0;
			break;
		case BUDGET_TIME:
			ok = dc_units_parse_time(eq + 1, &limit, why, sizeof(why)) == 0;
			break;
		case BUDGET_GBPS:
			ok = dc_units_parse_bandwidth(eq + 1, &limit, why, sizeof(why)) == 0;
			limit /= DC_GB;
			break;
		case BUDGET_BYTES_PER_S:
			ok = dc_units_parse_bandwidth(eq + 1, &limit, why, sizeof(why)) == 0;
			break;
		default:
			/* a number with a unit: reported once the path is known
			 * to be a field, so a mistyped field ("peak_byte") is
			 * named as that first; anything else ("inf") now */
			if ((eq[1] >= '0' && eq[1] <= '9') || eq[1] == '.') {
				no_unit = 1;
				ok = 1;
			} else if (eq[1] == '-' && dc_check_parse_decimal(eq + 2, &limit) == 0) {
				/* as a unit's parser says it of "-1 GiB" */
				snprintf(why, sizeof(why), "must not be negative, got '%s'", eq + 1);
				ok = 0;
			} else {
				snprintf(why, sizeof(why), "the field has no unit: expected a plain number, got '%s'", eq + 1);
				ok = 0;
			}
			break;
		}
	}
	if (!ok) {
		snprintf(err, errlen, "%s", why);
		free(path);
		free(trimmed);
		return -1;
	}
	if (!m->warn[0] && (t = dc_check_ranked_table(path)) != NULL)
		snprintf(m->warn, sizeof(m->warn),
			 "'%s': %.*s lists its rows in rank order, so the index is a rank, not a %s: another run may put "
			 "another one there (each row names its own)",
			 path, (int)strlen(t) - 1, t, strncmp(t, "strategies", 10) == 0 ? "strategy" : "layout");
	m->path = path;
	m->value = path + (eq - arg) + 1;
	m->limit = no_unit ? 0 : limit;
	m->no_unit = no_unit;
	m->min = 0;
	free(trimmed);
	return 0;
}


/* ---- --check against a large stored file: both reports streamed ----
 *
 * A stored report above DC_CHECK_STREAM_BYTES is not parsed into a tree:
 * it is read from its file through a 64 KiB window while the new report
 * is rendered on a second thread into a 256 KiB channel, and the two are
 * walked in step. Both come from one renderer, so their members agree in
 * order; where an object's keys part (a section only one report holds),
 * the rest of that object, both sides, is parsed into trees and compared
 * as dc_check_compare does (new report's order, the stored report's own
 * members at the end). Memory: the windows, the channel, the open
 * containers' keys and the lines written, whatever the reports' size. */

struct chan {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	char *buf;
	size_t cap, head, len;
	int eof, closed;
};

static int chan_push(void *ctx, const char *data, size_t n)
{
	struct chan *ch = ctx;
	pthread_mutex_lock(&ch->mu);
	while (n && !ch->closed) {
		size_t tail, room;
		while (ch->len == ch->cap && !ch->closed)
			pthread_cond_wait(&ch->cv, &ch->mu);
		if (ch->closed)
			break;
		tail = (ch->head + ch->len) % ch->cap;
		room = ch->cap - ch->len;
		if (room > ch->cap - tail)
			room = ch->cap - tail;
		if (room > n)
			room = n;
		memcpy(ch->buf + tail, data, room);
		ch->len += room;
		data += room;
		n -= room;
		pthread_cond_broadcast(&ch->cv);
	}
	pthread_mutex_unlock(&ch->mu);
	return 0;
}

static size_t chan_pull(void *ctx, char *dst, size_t cap)
{
	struct chan *ch = ctx;
	size_t got;
	pthread_mutex_lock(&ch->mu);
	while (!ch->len && !ch->eof)
		pthread_cond_wait(&ch->cv, &ch->mu);
	got = ch->len;
	if (got > cap)
		got = cap;
	if (got > ch->cap - ch->head)
		got = ch->cap - ch->head;
	memcpy(dst, ch->buf + ch->head, got);
	ch->head = (ch->head + got) % ch->cap;
	ch->len -= got;
	pthread_cond_broadcast(&ch->cv);
	pthread_mutex_unlock(&ch->mu);
	return got;
}

struct producer {
	struct chan *ch;
	int (*render)(void *ctx, struct dc_buf *b);
	void *render_ctx;
	int (*tee)(void *ctx, const char *data, size_t len);
	void *tee_ctx;
	int failed;
};

static int producer_flush(void *ctx, const char *data, size_t len)
{
	struct producer *pr = ctx;
	if (pr->tee && pr->tee(pr->tee_ctx, data, len) != 0)
		return -1;
	return chan_push(pr->ch, data, len);
}

static void *producer_run(void *arg)
{
	struct producer *pr = arg;
	struct dc_buf b;
	dc_buf_init(&b);
	b.flush = producer_flush;
	b.flush_ctx = pr;
	pr->failed = pr->render(pr->render_ctx, &b) != 0 || dc_buf_flush(&b) != 0;
	dc_buf_release(&b);
	pthread_mutex_lock(&pr->ch->mu);
	pr->ch->eof = 1;
	pthread_cond_broadcast(&pr->ch->cv);
	pthread_mutex_unlock(&pr->ch->mu);
	return NULL;
}

struct file_src {
	int fd;
	int err; /* errno of a failed read */
};

static size_t file_read(void *ctx, char *buf, size_t cap)
{
	struct file_src *f = ctx;
	for (;;) {
		ssize_t r = read(f->fd, buf, cap);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			f->err = errno;
			return 0;
		}
		return (size_t)r;
	}
}

#define SP_WINDOW (64 * 1024)

static int sp_stream(struct sp *s, size_t (*rd)(void *, char *, size_t), void *ctx)
{
	memset(s, 0, sizeof(*s));
	if (!(s->win = dc_malloc(SP_WINDOW)))
		return -1;
	s->cap = SP_WINDOW;
	s->read = rd;
	s->read_ctx = ctx;
	s->p = s->end = s->win;
	return 0;
}

/* A whole value parsed into a tree (the rest of an object whose keys
 * parted, an array's extra element). NULL when not JSON or out of memory
 * (s->bad tells). */
static cJSON *sp_tree(struct sp *s, struct dc_buf *text)
{
	int ch = sp_peek(s);
	cJSON *v;
	if (ch != '{' && ch != '[')
		return sp_leaf(s, text);
	if (++s->depth > SP_MAX_DEPTH) {
		s->depth--;
		s->bad = s->too_deep = 1;
		return NULL;
	}
	s->p++;
	v = ch == '{' ? cJSON_CreateObject() : cJSON_CreateArray();
	if (v && !sp_eat(s, ch == '{' ? '}' : ']')) {
		struct dc_buf key;
		dc_buf_init(&key);
		do {
			cJSON *x;
			if (ch == '{') {
				sp_string(s, &key);
				if (s->bad || key.failed || !sp_eat(s, ':')) {
					s->bad = 1;
					break;
				}
			}
			if (!(x = sp_tree(s, text))) {
				s->bad = 1;
				break;
			}
			if (ch == '{' ? !cJSON_AddItemToObject(v, key.data, x) : !cJSON_AddItemToArray(v, x)) {
				cJSON_Delete(x);
				s->bad = 1;
				break;
			}
		} while (sp_eat(s, ','));
		dc_buf_release(&key);
		if (!s->bad && !sp_eat(s, ch == '{' ? '}' : ']'))
			s->bad = 1;
	}
	s->depth--;
	if (s->bad) {
		cJSON_Delete(v);
		return NULL;
	}
	return v;
}

static cJSON *parse_whole(const char *text, size_t len)
{
	struct sp s;
	struct dc_buf t;
	cJSON *v;
	memset(&s, 0, sizeof(s));
	s.p = text;
	s.end = text + len;
	dc_buf_init(&t);
	v = sp_tree(&s, &t);
	dc_buf_release(&t);
	if (v && (s.bad || sp_peek(&s) != -1)) {
		cJSON_Delete(v);
		v = NULL;
	}
	return v;
}

struct lock {
	struct cmp *c;
	struct sp *e, *a;
	struct dc_buf text;
	int oom;
	/* the stored report's checks, as read_report makes them */
	const char *why; /* not a report: why */
	char why_buf[640];
	unsigned header_seen;
};

/* As s_member and s_compare with the new report a tree too (the rest of
 * an object whose keys parted): the new report's order, the stored
 * report's own members at the end, a new container facing anything but
 * its kind standing as an empty one, so the lines are the tree
 * comparison's. */
static void t_compare(struct cmp *c, cJSON *e, const cJSON *a);

static void t_member(struct cmp *c, const char *key, long index, cJSON *e, const cJSON *a)
{
	size_t len = path_push(c, key, index);
	int slot = file_field(c);
	if (slot >= 0)
		keep_configs(c, slot, e, a);
	else if (!ignored(c->path)) {
		int want = wanted(c, !e);
		if (want == 1 || (want == 2 && (!e || cJSON_IsObject(e) || cJSON_IsArray(e))))
			t_compare(c, e, a);
	}
	c->path[len] = '\0';
}

static void t_compare(struct cmp *c, cJSON *e, const cJSON *a)
{
	if (cJSON_IsObject(a) && e && cJSON_IsObject(e)) {
		for (const cJSON *y = a->child; y; y = y->next) {
			cJSON *x = cJSON_GetObjectItemCaseSensitive(e, y->string);
			t_member(c, y->string, 0, x, y);
			if (x)
				cJSON_Delete(cJSON_DetachItemViaPointer(e, x));
		}
		for (cJSON *x = e->child; x; x = x->next)
			with_path(c, x->string, 0, x, NULL);
		return;
	}
	if (cJSON_IsArray(a) && e && cJSON_IsArray(e)) {
		cJSON *x = e->child;
		long i = 0;
		for (const cJSON *y = a->child; y; y = y->next) {
			t_member(c, NULL, i++, x, y);
			x = x ? x->next : NULL;
		}
		for (; x; x = x->next, i++)
			with_path(c, NULL, i, x, NULL);
		return;
	}
	if (cJSON_IsObject(a) || cJSON_IsArray(a)) {
		cJSON *empty = cJSON_IsObject(a) ? cJSON_CreateObject() : cJSON_CreateArray();
		if (!empty) {
			c->out->failed = 1;
			return;
		}
		compare(c, e, empty);
		cJSON_Delete(empty);
		return;
	}
	compare(c, e, a);
}

static void l_compare(struct lock *l, int top);
static int seen_before(const struct dc_buf *seen, const char *key);

/* The rest of the object both sides are in, their next keys `ek` and `ak`
 * read (NULL: that side's object ended), into trees, compared. */
static void l_rest(struct lock *l, const char *ek, const char *ak, const struct dc_buf *seen, int top)
{
	cJSON *e = cJSON_CreateObject(), *a = cJSON_CreateObject();
	struct dc_buf key;
	char path[512];
	int dup;
	dc_buf_init(&key);
	if (!e || !a) {
		l->oom = 1;
		goto out;
	}
	for (int side = 0; side < 2 && !l->e->bad && !l->a->bad; side++) {
		struct sp *s = side ? l->a : l->e;
		cJSON *o = side ? a : e;
		const char *k = side ? ak : ek;
		if (!k)
			continue;
		dc_buf_add(&key, "", 0);
		key.len = 0;
		dc_buf_add(&key, k, strlen(k) + 1);
		for (;;) {
			cJSON *x;
			if (!side && seen_before(seen, key.data) && !l->why) {
				snprintf(l->why_buf, sizeof(l->why_buf), "duplicate key '%.300s%s%.300s'", l->c->path,
					 l->c->path[0] ? "." : "", key.data);
				l->why = l->why_buf;
			}
			x = sp_tree(s, &l->text);
			if (!x || !cJSON_AddItemToObject(o, key.data, x)) {
				cJSON_Delete(x);
				s->bad = 1;
				break;
			}
			if (!sp_eat(s, ','))
				break;
			sp_string(s, &key);
			if (s->bad || key.failed || !sp_eat(s, ':')) {
				s->bad = 1;
				break;
			}
		}
		if (!s->bad && !sp_eat(s, '}'))
			s->bad = 1;
	}
	if (l->e->bad || l->a->bad || l->why)
		goto out;
	path[0] = '\0';
	if ((dup = find_duplicate(e, path, sizeof(path))) != 0) {
		if (dup < 0)
			l->oom = 1;
		else if (!l->why) {
			snprintf(l->why_buf, sizeof(l->why_buf), "duplicate key '%.300s%s%.300s'", l->c->path,
				 l->c->path[0] ? "." : "", path);
			l->why = l->why_buf;
		}
		goto out;
	}
	/* the header fields among the rest */
	for (size_t i = 0; top && i < sizeof(header_fields) / sizeof(header_fields[0]); i++) {
		const cJSON *f = cJSON_GetObjectItemCaseSensitive(e, header_fields[i].key);
		if (!f)
			continue;
		l->header_seen |= 1u << i;
		if (!header_fields[i].is(f) && !l->why) {
			snprintf(l->why_buf, sizeof(l->why_buf), "a wrong type for the header field '%s'",
				 header_fields[i].key);
			l->why = l->why_buf;
			goto out;
		}
	}
	/* the new report's order; the stored report's own members after */
	t_compare(l->c, e, a);
out:
	cJSON_Delete(e);
	cJSON_Delete(a);
	dc_buf_release(&key);
}

/* The keys an open stored object has shown, to find one given twice. */
static int seen_before(const struct dc_buf *seen, const char *key)
{
	for (size_t i = 0; i < seen->len; i += strlen(seen->data + i) + 1)
		if (strcmp(seen->data + i, key) == 0)
			return 1;
	return 0;
}

static void l_member(struct lock *l, const char *key, long index, int top)
{
	struct cmp *c = l->c;
	size_t len = path_push(c, key, index);
	if (top)
		for (size_t i = 0; i < sizeof(header_fields) / sizeof(header_fields[0]); i++)
			if (strcmp(key, header_fields[i].key) == 0) {
				int ch = sp_peek(l->e);
				int ok = i == 2 ? (ch == '-' || (ch >= '0' && ch <= '9')) : ch == '"';
				l->header_seen |= 1u << i;
				if (!ok && !l->why) {
					snprintf(l->why_buf, sizeof(l->why_buf), "a wrong type for the header field '%s'", key);
					l->why = l->why_buf;
				}
			}
	int slot = file_field(c);
	if (slot >= 0 && sp_peek(l->e) == '"' && sp_peek(l->a) == '"') {
		cJSON *e = sp_leaf(l->e, &l->text), *a = e ? sp_leaf(l->a, &l->text) : NULL;
		if (e && a)
			keep_configs(c, slot, e, a);
		else if (!l->e->bad && !l->a->bad) {
			l->oom = 1;
		}
		cJSON_Delete(e);
		cJSON_Delete(a);
	} else if (slot >= 0 || ignored(c->path)) {
		sp_skip(l->e);
		sp_skip(l->a);
	} else {
		int want = wanted(c, 0);
		int ce = sp_peek(l->e);
		if (want == 1 || (want == 2 && (ce == '{' || ce == '[')))
			l_compare(l, 0);
		else {
			sp_skip(l->e);
			sp_skip(l->a);
		}
	}
	c->path[len] = '\0';
}

static void l_compare(struct lock *l, int top)
{
	struct sp *E = l->e, *A = l->a;
	int ce = sp_peek(E), ca = sp_peek(A);

	if (E->depth > SP_MAX_DEPTH) {
		E->bad = E->too_deep = 1;
		return;
	}
	if (ce == '{' && ca == '{') {
		struct dc_buf ek, ak, seen;
		int e_end, a_end;
		E->p++;
		A->p++;
		dc_buf_init(&ek);
		dc_buf_init(&ak);
		dc_buf_init(&seen);
		E->depth++;
		e_end = sp_eat(E, '}');
		a_end = sp_eat(A, '}');
		while (!E->bad && !A->bad && !l->oom && !l->why) {
			if (e_end && a_end)
				break;
			if (!e_end) {
				sp_string(E, &ek);
				if (E->bad || ek.failed || !sp_eat(E, ':')) {
					E->bad = 1;
					break;
				}
			}
			if (!a_end) {
				sp_string(A, &ak);
				if (A->bad || ak.failed || !sp_eat(A, ':')) {
					A->bad = 1;
					break;
				}
			}
			if (!e_end && seen_before(&seen, ek.data)) {
				snprintf(l->why_buf, sizeof(l->why_buf), "duplicate key '%.300s%s%.300s'", l->c->path,
					 l->c->path[0] ? "." : "", ek.data);
				l->why = l->why_buf;
				break;
			}
			if (e_end || a_end || strcmp(ek.data, ak.data) != 0) {
				/* the keys part: the rest of both objects as trees */
				l_rest(l, e_end ? NULL : ek.data, a_end ? NULL : ak.data, &seen, top);
				e_end = a_end = 1;
				break;
			}
			dc_buf_add(&seen, ek.data, strlen(ek.data) + 1);
			if (seen.failed) {
				l->oom = 1;
				break;
			}
			l_member(l, ek.data, 0, top);
			e_end = !sp_eat(E, ',');
			a_end = !sp_eat(A, ',');
			if (e_end && !sp_eat(E, '}'))
				E->bad = 1;
			if (a_end && !sp_eat(A, '}'))
				A->bad = 1;
		}
		E->depth--;
		dc_buf_release(&ek);
		dc_buf_release(&ak);
		dc_buf_release(&seen);
		return;
	}
	if (ce == '[' && ca == '[') {
		long i = 0;
		int e_end, a_end;
		E->p++;
		A->p++;
		E->depth++;
		e_end = sp_eat(E, ']');
		a_end = sp_eat(A, ']');
		while (!E->bad && !A->bad && !l->oom && !l->why && !(e_end && a_end)) {
			if (e_end || a_end) {
				/* an element only one side holds, one at a time */
				struct sp *s = e_end ? A : E;
				cJSON *x = sp_tree(s, &l->text);
				if (!x) {
					if (!s->bad)
						l->oom = 1;
					break;
				}
				if (e_end)
					t_member(l->c, NULL, i++, NULL, x);
				else
					with_path(l->c, NULL, i++, x, NULL);
				cJSON_Delete(x);
				if (!sp_eat(s, ',')) {
					if (!sp_eat(s, ']'))
						s->bad = 1;
					if (e_end)
						a_end = 1;
					else
						e_end = 1;
				}
				continue;
			}
			l_member(l, NULL, i++, 0);
			e_end = !sp_eat(E, ',');
			a_end = !sp_eat(A, ',');
			if (e_end && !sp_eat(E, ']'))
				E->bad = 1;
			if (a_end && !sp_eat(A, ']'))
				A->bad = 1;
		}
		E->depth--;
		return;
	}
	{
		/* leaves, or a container facing another type: as sp_leaf, the
		 * container stands as an empty one */
		int ec = ce == '{' || ce == '[';
		cJSON *e = ec ? sp_tree(E, &l->text) : sp_leaf(E, &l->text), *a = e ? sp_leaf(A, &l->text) : NULL;
		if (e && a)
			compare(l->c, e, a);
		else if (!E->bad && !A->bad)
			l->oom = 1;
		cJSON_Delete(e);
		cJSON_Delete(a);
	}
}

int dc_check_stream_wanted(const char *path)
{
	struct stat st;
	/* standard input is read whole: a stream of it could not be read twice
	 * (the header first, then the comparison) */
	return strcmp(path, "-") != 0 && stat(path, &st) == 0 && S_ISREG(st.st_mode) &&
	       (uint64_t)st.st_size > DC_CHECK_STREAM_BYTES &&
	       (uint64_t)st.st_size <= DC_CHECK_MAX_BYTES;
}

/* The stored report's "only" (into buf, 1 when found) and "all" (*all)
 * header fields, the file read as a stream up to the first section. */
static int stored_header_file(const char *path, char *buf, size_t len, int *all)
{
	struct file_src f = {open(path, O_RDONLY), 0};
	struct sp s;
	struct dc_buf key, val;
	int found = 0;
	*all = 0;
	if (f.fd < 0)
		return 0;
	if (sp_stream(&s, file_read, &f) != 0) {
		close(f.fd);
		return 0;
	}
	dc_buf_init(&key);
	dc_buf_init(&val);
	sp_need(&s, 3);
	if (s.end - s.p >= 3 && memcmp(s.p, "\xef\xbb\xbf", 3) == 0)
		s.p += 3;
	if (sp_eat(&s, '{') && !sp_eat(&s, '}')) {
		do {
			sp_string(&s, &key);
			if (s.bad || key.failed || !sp_eat(&s, ':'))
				break;
			if (strcmp(key.data, "only") == 0 && sp_peek(&s) == '"') {
				sp_string(&s, &val);
				if (!s.bad && !val.failed && val.len && val.len < len && strlen(val.data) == val.len) {
					memcpy(buf, val.data, val.len + 1);
					found = 1;
				}
				continue;
			}
			if (strcmp(key.data, "all") == 0 && sp_peek(&s) == 't') {
				sp_need(&s, 4);
				*all = s.end - s.p >= 4 && memcmp(s.p, "true", 4) == 0;
			} else if (sp_peek(&s) == '{') {
				break; /* a section: the header fields come before them */
			}
			sp_skip(&s);
		} while (!s.bad && sp_eat(&s, ','));
	}
	dc_buf_release(&key);
	dc_buf_release(&val);
	free(s.win);
	close(f.fd);
	return found;
}

int dc_check_stored_only_file(const char *path, char *buf, size_t len)
{
	int all;
	return stored_header_file(path, buf, len, &all);
}

int dc_check_stored_all_file(const char *path)
{
	char buf[8];
	int all;
	stored_header_file(path, buf, sizeof(buf), &all);
	return all;
}

int dc_check_compare_file(const char *path, double rtol, const char *only,
			  int (*render)(void *ctx, struct dc_buf *b), void *render_ctx,
			  int (*tee)(void *ctx, const char *data, size_t len), void *tee_ctx, struct dc_buf *out,
			  struct dc_check_result *res, struct dc_diag *diag,
			  int (*is_count)(const void *ctx, const char *path), const void *count_ctx)
{
	struct file_src f = {-1, 0};
	struct chan ch;
	struct producer pr;
	struct sp E, A;
	struct cmp c;
	struct lock l;
	pthread_t thread;
	int rc = 0, started = 0;

	memset(res, 0, sizeof(*res));
	memset(&c, 0, sizeof(c));
	memset(&l, 0, sizeof(l));
	memset(&E, 0, sizeof(E));
	memset(&A, 0, sizeof(A));
	memset(&ch, 0, sizeof(ch));
	if (split_only(&c, only, diag) != 0)
		return -1;
	c.rtol = rtol;
	c.out = out;
	c.is_count = is_count;
	c.count_ctx = count_ctx;
	c.res = res;
	if ((f.fd = open(path, O_RDONLY)) < 0) {
		dc_diag_error(diag, DC_ERR_INPUT, "distcalc: error: '--check': cannot open '%s': %s", path, strerror(errno));
		return -1;
	}
	pthread_mutex_init(&ch.mu, NULL);
	pthread_cond_init(&ch.cv, NULL);
	ch.cap = DC_BUF_FLUSH_BYTES;
	if (!(ch.buf = dc_malloc(ch.cap)) || sp_stream(&E, file_read, &f) != 0 || sp_stream(&A, chan_pull, &ch) != 0) {
		l.oom = 1;
		goto done;
	}
	pr = (struct producer){&ch, render, render_ctx, tee, tee_ctx, 0};
	if (pthread_create(&thread, NULL, producer_run, &pr) != 0) {
		l.oom = 1;
		goto done;
	}
	started = 1;
	l.c = &c;
	l.e = &E;
	l.a = &A;
	dc_buf_init(&l.text);
	sp_need(&E, 3);
	if (E.end - E.p >= 3 && memcmp(E.p, "\xef\xbb\xbf", 3) == 0)
		E.p += 3;
	if (sp_peek(&E) != '{') {
		if (sp_peek(&E) == -1 && !f.err)
			l.why = "the file is empty";
		else if (!f.err)
			l.why = "the top level is not a JSON object";
	} else {
		l_compare(&l, 1);
		if (!E.bad && sp_peek(&E) != -1)
			E.bad = 1;
		if (!l.why && !E.bad && !l.oom)
			for (size_t i = 0; i < sizeof(header_fields) / sizeof(header_fields[0]); i++)
				if (!(l.header_seen & (1u << i))) {
					snprintf(l.why_buf, sizeof(l.why_buf), "no header field '%s'", header_fields[i].key);
					l.why = l.why_buf;
					break;
				}
	}
	dc_buf_release(&l.text);
done:
	if (started) {
		/* the renderer may still be writing: let it finish into nothing */
		pthread_mutex_lock(&ch.mu);
		ch.closed = 1;
		pthread_cond_broadcast(&ch.cv);
		pthread_mutex_unlock(&ch.mu);
		pthread_join(thread, NULL);
	}
	if (f.err) {
		dc_diag_error(diag, DC_ERR_INPUT, "distcalc: error: '--check': cannot read '%s': %s", path, strerror(f.err));
		rc = -1;
	} else if (l.why || E.bad) {
		char why[800];
		if (l.why)
			snprintf(why, sizeof(why), "%s", l.why);
		else
			snprintf(why, sizeof(why), "%.200s: %s near byte %llu", path,
				 E.too_deep ? "nesting is deeper than 64 levels" : "not JSON",
				 (unsigned long long)(E.before + (uint64_t)(E.p - E.win)));
		dc_diag_error(diag, DC_ERR_INPUT, NOT_A_REPORT, path, why);
		rc = -1;
	} else if (l.oom || out->failed || (started && pr.failed)) {
		dc_diag_error(diag, DC_ERR_INTERNAL, "error: out of memory while checking '%s'", path);
		rc = -1;
	} else if (A.bad || sp_peek(&A) != -1) {
		dc_diag_error(diag, DC_ERR_INTERNAL, "error: the new report is not JSON (a bug) while checking '%s'", path);
		rc = -1;
	}
	if (rc == 0)
		for (size_t i = 0; i < c.nonly; i++)
			if (!c.only_hits[i]) {
				dc_diag_error(diag, DC_ERR_USAGE,
					      "distcalc: error: '--check-only': '%.*s' matches no field of either report",
					      (int)c.only_len[i], c.only[i]);
				rc = -1;
			}
	free(E.win);
	free(A.win);
	free(ch.buf);
	pthread_mutex_destroy(&ch.mu);
	pthread_cond_destroy(&ch.cv);
	close(f.fd);
	return rc;
}

/* ---- --check-max / --check-min, streamed ----
 *
 * The report is read as it is rendered (dc_budget_stream_feed is a dc_buf
 * flush callback), line by line: the JSON sink ends a line between
 * tokens, never inside one (a string holds no raw newline), so a chunk is
 * parsed up to its last newline and the rest carried. The stream keeps a
 * stack of the open containers and, per budget, what it found at its path
 * and the nearest field name seen for it: memory is the longest line and
 * the budgets, whatever the report's size. */

#define BS_MAX_DEPTH 64

struct bs_budget {
	int found, is_num;
	double v;
	char holds[64];
	size_t near_depth; /* the deepest object on the path whose members were candidates (+1) */
	size_t near_d;
	char near[512];
	/* near is a word-part match (word_part), and how many members of
	 * its object matched so: more than one names none */
	int near_part, part_hits;
	/* a path through an array's row (A[i]...): the array's length as
	 * printed, and the rows its excerpt left out (A_omitted) when row i
	 * is not at position i */
	uint64_t arr_len;
	int arr_seen;
	double left_out;
	/* a path through a process group's member (A[i][j]...): the group's
	 * length as printed; A_members_omitted says members were left out */
	uint64_t inner_len;
	int inner_seen, members;
	/* a section on the path that printed "missing" (the keys it needs
	 * and lacks, so it holds no values): its path's length, the keys */
	size_t missing_at;
	char missing[256];
	/* the longest prefix of the path (at a component's end) the report
	 * holds, and whether that is a value rather than an object or array
	 * (summary.peak_bytes of summary.peak_bytes.x); near_seen: the report
	 * holds `near`, so a suggestion names a field (a CI trial was told
	 * "did you mean 'model.x'?" for nope.x) */
	size_t matched;
	int matched_leaf, near_seen;
};

struct bs_frame {
	int array, any; /* any: an array that holds a value */
	uint64_t index;
	size_t plen; /* the container's path length */
};

struct dc_budget_stream {
	const struct dc_check_max *m;
	size_t n;
	struct bs_budget *b;
	struct dc_buf carry;
	struct bs_frame stack[BS_MAX_DEPTH];
	int depth;
	int want_key; /* in an object, before a member's key */
	int key_pending; /* key read, its candidacy asked at its value (bs_candidate) */
	char path[1024];
	size_t plen;
	char key[256];
	/* the report's "only" header field: its --only, or the one a --check
	 * file holds ("" none) */
	char only[256];
	int bad, oom;
};

struct dc_budget_stream *dc_budget_stream_new(const struct dc_check_max *m, size_t n)
{
	struct dc_budget_stream *s = dc_calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	s->b = dc_calloc(n ? n : 1, sizeof(*s->b));
	if (!s->b) {
		free(s);
		return NULL;
	}
	for (size_t i = 0; i < n; i++)
		s->b[i].near_d = 99;
	s->m = m;
	s->n = n;
	dc_buf_init(&s->carry);
	return s;
}

/* Whether one of a (an bytes) and b is the other's first or last words,
 * '_' apart: the section's name said twice ("step_time_s" for step's
 * "time_s"), or the unit left out ("peak" for "peak_bytes"). */
static int word_part(const char *a, size_t an, const char *b)
{
	size_t bn = strlen(b);
	if (an > bn)
		return (a[an - bn - 1] == '_' && strncmp(a + an - bn, b, bn) == 0) ||
		       (a[bn] == '_' && strncmp(a, b, bn) == 0);
	if (bn > an)
		return (b[bn - an - 1] == '_' && strncmp(b + bn - an, a, an) == 0) ||
		       (b[an] == '_' && strncmp(b, a, an) == 0);
	return 0;
}

/* The members of the object at s->path are candidates for the budgets
 * whose path goes through it: `key` against the budget's next component;
 * one whose value is no object or array (`container` 0) only as the
 * path's last (a section --only leaves out is no "seed.time_s"). */
static void bs_candidate(struct dc_budget_stream *s, const char *key, int container)
{
	size_t plen = s->plen, depth = (size_t)s->depth + 1;
	for (size_t i = 0; i < s->n; i++) {
		const char *bp = s->m[i].path, *comp;
		size_t n, d;
		int part;
		struct bs_budget *b = &s->b[i];
		if (b->found || strncmp(bp, s->path, plen) != 0 || (plen && bp[plen] != '.'))
			continue;
		comp = bp + plen + (plen ? 1 : 0);
		n = strcspn(comp, ".[");
		if (depth < b->near_depth || (comp[n] && !container))
			continue;
		d = dc_edit_distance(comp, n, key, 1);
		part = 0;
		/* a word part of a field, in the path's last component below
		 * the root (a section's name is no field) */
		if (d > 3 && plen && !comp[n] && word_part(comp, n, key)) {
			part = 1;
			d = 3; /* near enough to name, if it is the only one */
			if (depth > b->near_depth)
				b->part_hits = 0;
			b->part_hits++;
		}
		if (depth > b->near_depth || d < b->near_d) {
			b->near_depth = depth;
			b->near_d = d;
			b->near_part = part;
			b->near_seen = 0;
			if ((size_t)(comp - bp) + strlen(key) + strlen(comp + n) < sizeof(b->near))
				snprintf(b->near, sizeof(b->near), "%.*s%s%s", (int)(comp - bp), bp, key, comp + n);
			else
				b->near_d = 99;
		}
	}
}

/* The path of the value about to start, from the innermost container. */
static int bs_value_path(struct dc_budget_stream *s)
{
	struct bs_frame *f;
	int w;
	if (s->depth == 0) {
		s->plen = 0;
		s->path[0] = '\0';
		return 0;
	}
	f = &s->stack[s->depth - 1];
	f->any = 1;
	if (f->array)
		w = snprintf(s->path + f->plen, sizeof(s->path) - f->plen, "[%llu]", (unsigned long long)f->index);
	else
		w = snprintf(s->path + f->plen, sizeof(s->path) - f->plen, "%s%s", f->plen ? "." : "", s->key);
	if (w < 0 || (size_t)w >= sizeof(s->path) - f->plen)
		return -1;
	s->plen = f->plen + (size_t)w;
	return 0;
}

/* The row index of `bp` when it goes through the array `arr` (arr_len
 * bytes): "ARR[I]..."; else -1. */
static long long bs_row(const char *bp, const char *arr, size_t arr_len)
{
	char *e;
	unsigned long long i;
	if (strncmp(bp, arr, arr_len) != 0 || bp[arr_len] != '[' || bp[arr_len + 1] < '0' || bp[arr_len + 1] > '9')
		return -1;
	errno = 0;
	i = strtoull(bp + arr_len + 1, &e, 10);
	return errno || *e != ']' || i > (unsigned long long)1 << 62 ? -1 : (long long)i;
}

/* A leaf or a closed container at s->path: the budgets whose path it is
 * take it. An array closing is also the length of the rows a budget
 * indexes, and a number at "A_omitted" after it says the array was an
 * excerpt: a row the excerpt's tail holds is not at its own index. */
static void bs_leaf(struct dc_budget_stream *s, int is_num, double v, const char *holds)
{
	size_t n = strlen(s->path);
	unsigned long long len;
	if (!is_num && sscanf(holds, "an array of %llu", &len) == 1)
		for (size_t i = 0; i < s->n; i++)
			if (bs_row(s->m[i].path, s->path, n) >= 0) {
				/* a group (A[i]) inside the table of groups, or the table */
				if (n && s->path[n - 1] == ']') {
					s->b[i].inner_len = len;
					s->b[i].inner_seen = 1;
				} else {
					s->b[i].arr_len = len;
					s->b[i].arr_seen = 1;
				}
			}
	if (is_num && v > 0 && n > 16 && strcmp(s->path + n - 16, "_members_omitted") == 0)
		for (size_t i = 0; i < s->n; i++) {
			const char *bp = s->m[i].path, *close;
			long long member;
			/* A[i][j]: the groups of one axis are of one size, so each
			 * printed group shows members [0, len/2) and its last ones */
			if (bs_row(bp, s->path, n - 16) < 0 || !(close = strchr(bp + n - 16, ']')))
				continue;
			member = bs_row(bp, bp, (size_t)(close + 1 - bp));
			if (member >= 0 && s->b[i].inner_seen && (uint64_t)member >= s->b[i].inner_len / 2) {
				s->b[i].left_out = v;
				s->b[i].members = 1;
			}
		}
	if (is_num && v > 0 && n > 8 && strcmp(s->path + n - 8, "_omitted") == 0)
		for (size_t i = 0; i < s->n; i++) {
			long long row = bs_row(s->m[i].path, s->path, n - 8);
			/* the excerpt shows rows [0, len/2) and the last len - len/2
			 * (dc_excerpt_bounds_max) */
			if (row >= 0 && s->b[i].arr_seen && (uint64_t)row >= s->b[i].arr_len / 2)
				s->b[i].left_out = v;
		}
	for (size_t i = 0; i < s->n; i++) {
		struct bs_budget *b = &s->b[i];
		const char *bp = s->m[i].path;
		if (strcmp(b->near, s->path) == 0)
			b->near_seen = 1;
		if (n > b->matched && strncmp(bp, s->path, n) == 0 && (bp[n] == '.' || bp[n] == '[')) {
			b->matched = n;
			b->matched_leaf = strcmp(holds, "an object") != 0 && strncmp(holds, "an array", 8) != 0;
		}
	}
	for (size_t i = 0; i < s->n; i++)
		if (!s->b[i].found && strcmp(s->m[i].path, s->path) == 0) {
			s->b[i].found = 1;
			s->b[i].is_num = is_num;
			s->b[i].v = v;
			snprintf(s->b[i].holds, sizeof(s->b[i].holds), "%s", holds);
		}
}

/* A JSON string at p (after its opening quote) up to `end`: its length to
 * the closing quote, copying at most len - 1 bytes (escapes kept as they
 * are; the report's keys have none) into buf; -1 when not closed. */
static long bs_string(const char *p, const char *end, char *buf, size_t len)
{
	const char *q = p;
	size_t k = 0;
	while (q < end && *q != '"') {
		if (*q == '\\' && q + 1 < end)
			q++;
		q++;
	}
	if (q >= end)
		return -1;
	k = (size_t)(q - p) < len ? (size_t)(q - p) : len - 1;
	memcpy(buf, p, k);
	buf[k] = '\0';
	return (long)(q - p);
}

/* A string at s->path, [p, end) after its opening quote: when the path
 * is X.missing (section X lists the keys it needs and lacks, and holds
 * no values without them), the budgets under X keep it, to say why
 * their field is not in the report. */
static void bs_missing(struct dc_budget_stream *s, const char *p, const char *end)
{
	size_t n = strlen(s->path);
	if (n < 8 || strcmp(s->path + n - 8, ".missing") != 0)
		return;
	n -= 8;
	for (size_t i = 0; i < s->n; i++) {
		const char *bp = s->m[i].path;
		struct bs_budget *b = &s->b[i];
		if (strncmp(bp, s->path, n) == 0 && bp[n] == '.' && strcmp(bp + n + 1, "missing") != 0 &&
		    bs_string(p, end, b->missing, sizeof(b->missing)) >= 0)
			b->missing_at = n;
	}
}

/* Parses whole lines [p, end). */
static void bs_parse(struct dc_budget_stream *s, const char *p, const char *end)
{
	while (p < end && !s->bad) {
		char c = *p;
		if (c == ' ' || c == '\n' || c == '\r' || c == '\t' || c == ':') {
			p++;
			continue;
		}
		if (c == ',') {
			if (s->depth && s->stack[s->depth - 1].array)
				s->stack[s->depth - 1].index++;
			else
				s->want_key = 1;
			p++;
			continue;
		}
		if (c == '}' || c == ']') {
			struct bs_frame *f;
			if (s->depth == 0) {
				s->bad = 1;
				return;
			}
			f = &s->stack[--s->depth];
			s->plen = f->plen;
			s->path[s->plen] = '\0';
			if (f->array) {
				char holds[64];
				snprintf(holds, sizeof(holds), "an array of %llu",
					 (unsigned long long)(f->any ? f->index + 1 : 0));
				bs_leaf(s, 0, 0, holds);
			} else {
				bs_leaf(s, 0, 0, "an object");
			}
			/* the enclosing container's path again */
			s->plen = s->depth ? s->stack[s->depth - 1].plen : 0;
			s->path[s->plen] = '\0';
			s->want_key = 0;
			p++;
			continue;
		}
		if (c == '"' && s->want_key) {
			long n = bs_string(p + 1, end, s->key, sizeof(s->key));
			if (n < 0) {
				s->bad = 1;
				return;
			}
			s->key_pending = 1; /* asked at its value */
			s->want_key = 0;
			p += n + 2;
			continue;
		}
		/* a value: a member's candidacy, then its path */
		if (s->key_pending) {
			s->key_pending = 0;
			bs_candidate(s, s->key, c == '{' || c == '[');
		}
		if (bs_value_path(s) != 0) {
			s->bad = 1;
			return;
		}
		if (c == '{' || c == '[') {
			if (s->depth == BS_MAX_DEPTH) {
				s->bad = 1;
				return;
			}
			s->stack[s->depth].array = c == '[';
			s->stack[s->depth].any = 0;
			s->stack[s->depth].index = 0;
			s->stack[s->depth].plen = s->plen;
			s->depth++;
			s->want_key = c == '{';
			p++;
			continue;
		}
		if (c == '"') {
			char text[72];
			long n = bs_string(p + 1, end, text + 1, sizeof(text) - 2);
			if (n < 0) {
				s->bad = 1;
				return;
			}
			text[0] = '"';
			strcat(text, "\"");
			if (s->depth == 1 && strcmp(s->path, "only") == 0 && bs_string(p + 1, end, s->only, sizeof(s->only)) < 0)
				s->only[0] = '\0';
			bs_missing(s, p + 1, end);
			bs_leaf(s, 0, 0, text);
			p += n + 2;
		} else if (end - p >= 4 && strncmp(p, "true", 4) == 0) {
			bs_leaf(s, 0, 0, "true");
			p += 4;
		} else if (end - p >= 5 && strncmp(p, "false", 5) == 0) {
			bs_leaf(s, 0, 0, "false");
			p += 5;
		} else if (end - p >= 4 && strncmp(p, "null", 4) == 0) {
			bs_leaf(s, 0, 0, "null");
			p += 4;
		} else {
			char num[64], *e;
			size_t k = 0;
			while (p + k < end && k < sizeof(num) - 1 && strchr("+-.0123456789eE", p[k]) && p[k])
				k++;
			memcpy(num, p, k);
			num[k] = '\0';
			double v = strtod(num, &e);
			if (k == 0 || e != num + k) {
				s->bad = 1;
				return;
			}
			bs_leaf(s, 1, v, num);
			p += k;
		}
		/* the value's path is its parent's again */
		s->plen = s->depth ? s->stack[s->depth - 1].plen : 0;
		s->path[s->plen] = '\0';
	}
}

int dc_budget_stream_feed(void *ctx, const char *data, size_t len)
{
	struct dc_budget_stream *s = ctx;
	const char *nl;
	size_t keep;
	if (s->bad || s->oom)
		return 0;
	dc_buf_add(&s->carry, data, len);
	if (s->carry.failed) {
		s->oom = 1;
		return -1;
	}
	for (nl = s->carry.data + s->carry.len; nl > s->carry.data && nl[-1] != '\n'; nl--)
		;
	if (nl == s->carry.data)
		return 0;
	nl--; /* the last newline */
	bs_parse(s, s->carry.data, nl + 1);
	keep = s->carry.len - (size_t)(nl + 1 - s->carry.data);
	memmove(s->carry.data, nl + 1, keep);
	s->carry.len = keep;
	s->carry.data[keep] = '\0';
	return 0;
}

/* Under --only SECTION.TABLE (the report's "only" holds one path with a
 * dot) the report holds that table alone: a path into the same section
 * but not under the table is one --only left out, not one the section
 * lacks (a trial's 'memory.per_rank' has no 'peak_bytes'). Returns the
 * section name's length then, else 0. */
static size_t only_table_leaves_out(const char *only, const char *path)
{
	size_t sec = strcspn(only, ".,"), n = strlen(only);
	if (only[sec] != '.' || strchr(only, ','))
		return 0;
	if (strncmp(path, only, sec) != 0 || (path[sec] != '.' && path[sec] != '['))
		return 0;
	if (strncmp(path, only, n) == 0 && (path[n] == '\0' || path[n] == '.' || path[n] == '['))
		return 0;
	return sec;
}

/* Are the first `matched` bytes of `path` a sweep's row, "sweep.rows[I]"? */
static int sweep_row(const char *path, size_t matched)
{
	return row_prefix(path, "sweep.rows[") == matched && path[matched] == '.';
}

int dc_budget_stream_finish(struct dc_budget_stream *s, struct dc_buf *out, size_t *exceeded, struct dc_diag *diag)
{
	int rc = 0;
	*exceeded = 0;
	if (!s->bad && !s->oom && s->carry.len)
		bs_parse(s, s->carry.data, s->carry.data + s->carry.len);
	if (s->oom) {
		dc_diag_error(diag, DC_ERR_INTERNAL, "distcalc: error: out of memory while checking the budgets");
		rc = -1;
		goto done;
	}
	if (s->bad || s->depth != 0) {
		dc_diag_error(diag, DC_ERR_INTERNAL, "distcalc: error: the report is not JSON (a bug) while checking the budgets");
		rc = -1;
		goto done;
	}
	for (size_t i = 0; i < s->n; i++) {
		const struct dc_check_max *m = &s->m[i];
		const struct bs_budget *b = &s->b[i];
		const char *opt = m->min ? "--check-min" : "--check-max";
		char vt[64], lt[64], by[40];
		if (b->left_out > 0) {
			/* the report printed an excerpt: the row asked for is left
			 * out or sits at another index; never compare another row */
			dc_diag_error(diag, DC_ERR_USAGE,
				      "distcalc: error: '%s': '%s': the report shows an excerpt of that table (%.0f %s left "
				      "out), so the %s is not at its index; add --all to check any %s",
				      opt, m->path, b->left_out, b->members ? "members" : "rows", b->members ? "member" : "row",
				      b->members ? "member" : "row");
			rc = -1;
			continue;
		}
		if (!b->found || !b->is_num) {
			size_t object = 0;
			size_t only_sec = b->found ? 0 : only_table_leaves_out(s->only, m->path);
			const char *when = b->found || b->missing_at || b->near_depth <= 2 ? NULL
												: conditional_when(m->path, &object);
			/* the conditional object is there: what is missing is below it */
			if (when && object && b->matched >= object)
				when = NULL;
			if (only_sec)
				/* as for a section --only leaves out, below */
				dc_diag_error(diag, DC_ERR_USAGE,
					      "distcalc: error: '%s': '%s': not in the report: --only %s (the command's or the one "
					      "a --check file holds) prints that table alone and leaves out the rest of '%.*s'; "
					      "--only %.*s prints the whole section",
					      opt, m->path, s->only, (int)only_sec, m->path, (int)only_sec, m->path);
			else if (when)
				dc_diag_error(diag, DC_ERR_USAGE,
					      "distcalc: error: '%s': '%s': not in this report: it is there only %s "
					      "(docs/output.md, \"What the full report leaves out\")",
					      opt, m->path, when);
			else if (b->found && strcmp(b->holds, "null") == 0)
				/* a figure the run could not price (docs/output.md,
				 * "What the full report leaves out"): summary's step
				 * figures without the GPU's speeds, as step.missing
				 * says */
				dc_diag_error(diag, DC_ERR_USAGE,
					      "distcalc: error: '%s': '%s': not a number in the report, it holds null: a figure "
					      "this run does not give (where its section has a 'missing', that says why: "
					      "step.missing for the step's figures)",
					      opt, m->path);
			else if (b->found)
				dc_diag_error(diag, DC_ERR_USAGE, "distcalc: error: '%s': '%s': not a number in the report, it holds %s",
					      opt, m->path, b->holds);
			else if (b->missing_at)
				dc_diag_error(diag, DC_ERR_USAGE,
					      "distcalc: error: '%s': '%s': not in the report: '%.*s' is unavailable without %s%s",
					      opt, m->path, (int)b->missing_at, m->path, b->missing,
					      strncmp(b->missing, "cluster.", 8) == 0 ? " (a GPU preset, cluster.gpu, sets them)" : "");
			/* near_d 0: the same name in another case (Summary) */
			else if (b->near_d <= 3 && strcmp(b->near, m->path) != 0 && !(b->near_part && b->part_hits > 1) &&
				 b->near_seen)
				dc_diag_error(diag, DC_ERR_USAGE,
					      "distcalc: error: '%s': '%s': not a field of the report; did you mean '%s'?", opt,
					      m->path, b->near);
			else if (b->matched && b->matched_leaf)
				dc_diag_error(diag, DC_ERR_USAGE,
					      "distcalc: error: '%s': '%s': not a field of the report: '%.*s' is a value, not an "
					      "object or a table",
					      opt, m->path, (int)b->matched, m->path);
			else if (b->matched && m->path[b->matched] == '[')
				dc_diag_error(diag, DC_ERR_USAGE,
					      "distcalc: error: '%s': '%s': not a field of the report: '%.*s' has no row %.*s", opt,
					      m->path, (int)b->matched, m->path,
					      (int)strcspn(m->path + b->matched, "]") + 1, m->path + b->matched);
			else if (b->matched && strcspn(m->path + b->matched + 1, ".[") == 0)
				dc_diag_error(diag, DC_ERR_USAGE,
					      "distcalc: error: '%s': '%s': not a field of the report: an empty name after '%.*s'",
					      opt, m->path, (int)b->matched, m->path);
			else if (b->matched && sweep_row(m->path, b->matched))
				/* a sweep row's columns are named by their whole
				 * paths (step.time_s): the rest is the column */
				dc_diag_error(diag, DC_ERR_USAGE,
					      "distcalc: error: '%s': '%s': not a field of the report: '%.*s' has no column "
					      "'%s' (--sweep-metrics chooses the columns)",
					      opt, m->path, (int)b->matched, m->path, m->path + b->matched + 1);
			else if (b->matched)
				dc_diag_error(diag, DC_ERR_USAGE,
					      "distcalc: error: '%s': '%s': not a field of the report: '%.*s' has no '%.*s'", opt,
					      m->path, (int)b->matched, m->path,
					      (int)strcspn(m->path + b->matched + 1, ".["), m->path + b->matched + 1);
			else if (b->near_depth <= 2)
				/* its first component is no member of the report's
				 * root object (depth 2: its members' candidates):
				 * a section --only or the experiment leaves out */
				dc_diag_error(diag, DC_ERR_USAGE,
					      "distcalc: error: '%s': '%s': not in the report: it has no '%.*s' (a section --only "
					      "leaves out, the command's or the one a --check file holds, or not one of this "
					      "experiment's; a sweep's figures are under sweep.rows[i])",
					      opt, m->path, (int)strcspn(m->path, ".["), m->path);
			else
				dc_diag_error(diag, DC_ERR_USAGE, "distcalc: error: '%s': '%s': not a field of the report", opt,
					      m->path);
			rc = -1;
			continue;
		}
		if (m->no_unit) {
			dc_diag_error(diag, DC_ERR_USAGE,
				      "distcalc: error: '%s': '%s': takes a plain number in the field's own unit (the CSV's unit column: FLOP, 1/s, ...), got '%s'", opt,
				      m->path, m->value);
			rc = -1;
			continue;
		}
		/* a plain number that reads like a slip of its unit, or an
		 * index into a table in rank order: said once the path is a
		 * field of the report (a path that is none says only that) */
		if (m->warn[0])
			dc_diag_warn(diag, "'%s': %s", opt, m->warn);
		if (m->min ? !(b->v < m->limit) : !(b->v > m->limit))
			continue;
		if (!isfinite(b->v))
			snprintf(vt, sizeof(vt), "%s", isnan(b->v) ? "nan" : b->v > 0 ? "inf" : "-inf");
		else
			dc_fmt_double(vt, sizeof(vt), b->v);
		(*exceeded)++;
		/* by how much, of the limit: none past a limit of 0 or a
		 * value that is not finite */
		by[0] = '\0';
		if (m->limit != 0 && isfinite(b->v)) {
			double pct = 100 * fabs(b->v - m->limit) / fabs(m->limit);
			/* three digits, in whole percent from 1000% up (no 1.91e+05%) */
			snprintf(by, sizeof(by), pct >= 1000 && pct < 1e15 ? " by %.0f%%" : " by %.3g%%", pct);
		}
		if (dc_check_parse_decimal(m->value + (m->value[0] == '-'), &(double){0}) == 0) {
			dc_buf_printf(out, "%s: %s %s %s%s\n", m->path, vt, m->min ? "is below the floor" : "exceeds the budget",
				      m->value, by);
		} else {
			dc_fmt_double(lt, sizeof(lt), m->limit);
			dc_buf_printf(out, "%s: %s %s %s (%s)%s\n", m->path, vt,
				      m->min ? "is below the floor" : "exceeds the budget", m->value, lt, by);
		}
	}
	if (out->failed) {
		dc_diag_error(diag, DC_ERR_INTERNAL, "distcalc: error: out of memory while checking the budgets");
		rc = -1;
	}
done:
	dc_buf_release(&s->carry);
	free(s->b);
	free(s);
	return rc;
}

int dc_check_budgets(const char *actual, size_t actual_len, const struct dc_check_max *maxes, size_t n,
		     struct dc_buf *out, size_t *exceeded, struct dc_diag *diag)
{
	struct dc_budget_stream *s = dc_budget_stream_new(maxes, n);
	*exceeded = 0;
	if (!s) {
		dc_diag_error(diag, DC_ERR_INTERNAL, "distcalc: error: out of memory while checking the budgets");
		return -1;
	}
	dc_budget_stream_feed(s, actual, actual_len);
	return dc_budget_stream_finish(s, out, exceeded, diag);
}
