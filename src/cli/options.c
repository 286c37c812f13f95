/* options.c - the option table and what walks it; see options.h. */
#include "distcalc/options.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "distcalc/check.h"
#include "distcalc/experiment.h"
#include "distcalc/import.h"
#include "distcalc/section.h"
#include "distcalc/sweep.h"
#include "distcalc/util.h"

const char dc_options_usage[] =
	"usage: distcalc [--config FILE] [--model HF_CONFIG] [--experiment NAME] [--seed N]\n"
	"                [--format table|json|csv|markdown|html] [--only SECTIONS] [--output FILE]\n"
	"                [--set PATH=VALUE]... [--all] [--trace FILE] [--jobs N]\n"
	"                [--sweep PATH=V1,V2,...]... [--sweep-metrics PATHS] [--plot FILE.svg]\n"
	"                [--calibrate LOG]... [--calibrate-compute PROFILE.json]\n"
	"                [--check EXPECTED.json [--rtol X] [--check-only PATHS]]\n"
	"                [--check-max PATH=VALUE]... [--check-min PATH=VALUE]... [--unset PATH]...\n"
	"                [--from-megatron FILE] [--from-torchtitan FILE] [--from-deepspeed FILE]\n"
	"                [--emit-config] [--list-models] [--help] [--version]\n";

static const char help_head[] =
	"\n"
	"distcalc estimates what multi-GPU training costs from a JSON config: exact\n"
	"parameter counts, per-rank memory, ring AllReduce bytes and time,\n"
	"communication and FLOPs per step, the step time (kernels on the GPU,\n"
	"overlap, the pipeline schedule), and strategies compared on the same work.\n"
	"\n"
	"options:\n";

static const char help_tail[] =
	"\n"
	"exit status:\n"
	"  0  success\n"
	"  1  internal error (out of memory, a bug)\n"
	"  2  usage error (bad option or argument)\n"
	"  3  invalid config (syntax, unknown key, bad value, inconsistent layout;\n"
	"     a --sweep in which no point runs; a --trace that cannot be made)\n"
	"  4  unreadable input (missing file, directory, over 1 MiB, read error,\n"
	"     a --check file that is not a distcalc JSON report)\n"
	"  5  unwritable output (cannot create, full disk, closed stdout, a reader\n"
	"     gone from the pipe, a read-only existing file)\n"
	"  6  --check found fields that moved, a --check-max budget is exceeded,\n"
	"     or a --check-min floor is not met\n"
	"\n"
	"Units in configs are explicit and case-sensitive: \"80 GiB\", \"1.5 GB\",\n"
	"\"50 GB/s\", \"400 Gb/s\", \"5 us\". Docs: README.md, docs/config.md (every key),\n"
	"docs/formulas.md and docs/formulas-systems.md (every formula), docs/models.md.\n";

/* Column where an option's help text starts in --help. */
#define HELP_COLUMN 25

/* The line of an allocation that failed. Returns -1. */
static int out_of_memory(struct dc_diag *d)
{
	dc_diag_error(d, DC_ERR_INTERNAL, "distcalc: error: out of memory");
	return -1;
}

/* One "distcalc: error: ..." line of a usage error. Returns -1. */
static int vusage(struct dc_diag *d, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));

static int vusage(struct dc_diag *d, const char *fmt, va_list ap)
{
	char *msg = dc_vasprintf(fmt, ap);
	if (!msg)
		return out_of_memory(d);
	dc_diag_error(d, DC_ERR_USAGE, "distcalc: error: %s", msg);
	free(msg);
	return -1;
}

static int usage(struct dc_diag *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int usage(struct dc_diag *d, const char *fmt, ...)
{
	va_list ap;
	int rc;
	va_start(ap, fmt);
	rc = vusage(d, fmt, ap);
	va_end(ap);
	return rc;
}

/* A value a well-formed option cannot take (a number out of range, an
 * unknown format, a budget's unit): the error alone, no synopsis after
 * it (the line says what to write) */
static int bad_value(struct dc_options *o, struct dc_diag *d, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static int bad_value(struct dc_options *o, struct dc_diag *d, const char *fmt, ...)
{
	va_list ap;
	int rc;
	o->value_error = 1;
	va_start(ap, fmt);
	rc = vusage(d, fmt, ap);
	va_end(ap);
	return rc;
}

/* A file name must not be empty; `name` is the option. */
static int file_name(const char *name, const char *v, const char **out, struct dc_diag *d)
{
	if (!*v)
		return usage(d, "'%s': empty file name", name);
	*out = v;
	return 0;
}

/* An input that cannot come from standard input: "-" would be opened as
 * a file named "-" (a trial's "-: cannot open"), so it is refused with
 * what does read it; a file of that name is ./- */
static int not_stdin(struct dc_options *o, const char *name, const char *v, struct dc_diag *d)
{
	if (strcmp(v, "-") != 0)
		return 0;
	return bad_value(o, d,
			 "'%s': '-' (standard input) is read only by '--config' and '--check'; give a file (./- for one "
			 "named '-')",
			 name);
}

/* An output other than the report's: "-" would create a file named "-"
 * (a trial's chart did), and standard output takes the report */
static int not_stdout(struct dc_options *o, const char *name, const char *v, struct dc_diag *d)
{
	if (strcmp(v, "-") != 0)
		return 0;
	return bad_value(o, d,
			 "'%s': '-' is not taken: standard output holds the report; give /dev/stdout to write it there "
			 "after the report, or ./- for a file named '-'",
			 name);
}

/* `v` with the blanks around each comma-separated item dropped, as --set
 * and --sweep drop them around a value (a CI file's YAML adds them:
 * --only 'summary, memory' was "unknown section ' memory'"): `v` itself
 * when it has none, else a copy kept in *copy. NULL when out of memory. */
static const char *trim_items(const char *v, char **copy)
{
	size_t w = 0;
	char *t;
	if (!strpbrk(v, " \t\r\n"))
		return v;
	if (!(t = dc_malloc(strlen(v) + 1)))
		return NULL;
	for (const char *p = v;;) {
		size_t n = strcspn(p, ","), len;
		const char *a = dc_text_trim(p, n, &len);
		memcpy(t + w, a, len);
		w += len;
		if (!p[n])
			break;
		t[w++] = ',';
		p += n + 1;
	}
	t[w] = '\0';
	if (strcmp(t, v) == 0) {
		free(t);
		return v;
	}
	*copy = t;
	return t;
}

static int apply_config(struct dc_options *o, const char *v, struct dc_diag *d)
{
	return file_name("--config", v, &o->config, d);
}

static int apply_model(struct dc_options *o, const char *v, struct dc_diag *d)
{
	if (not_stdin(o, "--model", v, d) != 0)
		return -1;
	return file_name("--model", v, &o->model, d);
}

static int apply_experiment(struct dc_options *o, const char *v, struct dc_diag *d)
{
	(void)d;
	o->experiment = v;
	return 0;
}

static int apply_seed(struct dc_options *o, const char *v, struct dc_diag *d)
{
	char *end;
	unsigned long long n;
	if (*v >= '0' && *v <= '9') {
		errno = 0;
		n = strtoull(v, &end, 10);
		if (errno == 0 && *end == '\0') {
			o->seed = (uint64_t)n;
			return 0;
		}
	}
	return bad_value(o, d, "'--seed': expected an integer from 0 to 18446744073709551615, got '%s'", v);
}

static int apply_jobs(struct dc_options *o, const char *v, struct dc_diag *d)
{
	char *end;
	unsigned long long n;
	if (*v >= '1' && *v <= '9') {
		errno = 0;
		n = strtoull(v, &end, 10);
		if (errno == 0 && *end == '\0' && n <= 1024) {
			o->jobs = (unsigned)n;
			return 0;
		}
	}
	return bad_value(o, d, "'--jobs': expected a number of threads from 1 to 1024, got '%s'", v);
}

static int apply_format(struct dc_options *o, const char *v, struct dc_diag *d)
{
	static const struct {
		const char *name;
		enum dc_format format;
	} formats[] = {
		{"table", DC_FORMAT_TABLE},
		{"json", DC_FORMAT_JSON},
		{"csv", DC_FORMAT_CSV},
		{"markdown", DC_FORMAT_MARKDOWN},
		{"html", DC_FORMAT_HTML},
	};
	for (size_t i = 0; i < sizeof(formats) / sizeof(formats[0]); i++) {
		if (strcmp(v, formats[i].name) == 0) {
			o->format = formats[i].format;
			return 0;
		}
	}
	return bad_value(o, d, "'--format': expected 'table', 'json', 'csv', 'markdown' or 'html', got '%s'", v);
}

static int apply_only(struct dc_options *o, const char *v, struct dc_diag *d)
{
	const char *t;
	if (!*v)
		return usage(d, "'--only': empty section list");
	if (o->only)
		return usage(d, "'--only': given twice; list every section in one, as in --only memory,comm");
	if (!(t = trim_items(v, &o->only_copy)))
		return out_of_memory(d);
	if (!*t)
		return usage(d, "'--only': empty section list");
	o->only = t;
	return 0;
}

static int apply_output(struct dc_options *o, const char *v, struct dc_diag *d)
{
	if (file_name("--output", v, &o->output, d) != 0)
		return -1;
	/* "-" is standard output, as a Unix tool reads it: it made a file
	 * named "-" (a file of that name is ./-) */
	if (strcmp(v, "-") == 0)
		o->output = NULL;
	return 0;
}

/* Names whose ending promises another format than the trace's plain
 * JSON (an image, a chart, a page, a table, a compressed file): the trace
 * would land under a name that says otherwise, as --plot refuses (a
 * trial wrote a trace into a .svg) */
static const char *const not_trace[] = {".svg", ".png", ".jpg", ".jpeg", ".gif", ".webp", ".pdf", ".html",
					".htm", ".csv", ".md", ".gz", ".zip", NULL};

static int apply_trace(struct dc_options *o, const char *v, struct dc_diag *d)
{
	size_t n = strlen(v);
	for (size_t i = 0; not_trace[i]; i++) {
		size_t e = strlen(not_trace[i]);
		if (n > e && strcasecmp(v + n - e, not_trace[i]) == 0)
		{
			/* the name without that ending, .json added unless it
			 * ends so already (out.json.gz: out.json) */
			int stem = (int)(n - e);
			int json = stem >= 5 && strncasecmp(v + stem - 5, ".json", 5) == 0;
			return bad_value(o, d, "'--trace': the trace is Chrome trace-event JSON, but '%s' ends in %s (another format); name it %.*s%s",
					 v, not_trace[i], stem, v, json ? "" : ".json");
		}
	}
	if (not_stdout(o, "--trace", v, d) != 0)
		return -1;
	return file_name("--trace", v, &o->trace, d);
}

static int apply_set(struct dc_options *o, const char *v, struct dc_diag *d)
{
	/* one more each time: a command line holds a handful */
	struct dc_override *s = dc_realloc(o->sets, (o->nsets + 1) * sizeof(*s));
	if (!s)
		return out_of_memory(d);
	o->sets = s;
	o->sets[o->nsets].text = v;
	o->sets[o->nsets++].unset = 0;
	return 0;
}

static int apply_all(struct dc_options *o, const char *v, struct dc_diag *d)
{
	(void)v;
	(void)d;
	o->all_rows = 1;
	return 0;
}

static int apply_check(struct dc_options *o, const char *v, struct dc_diag *d)
{
	return file_name("--check", v, &o->check, d);
}

static int apply_rtol(struct dc_options *o, const char *v, struct dc_diag *d)
{
	double x = 0;
	/* a subnormal (1e-310) is fine: strtod's ERANGE for it is no error;
	 * a tolerance that rounds to 0 (1e-400) is 0, exact comparison */
	int r = dc_check_parse_decimal(v, &x);
	/* |got - expected| <= X times the larger of the two: at 1 any change
	 * of the same sign would pass (a CI trial's --rtol 1 let a 1000x drop
	 * through), so a tolerance is below 1 */
	if (r == -1 || !(x < 1))
		return bad_value(o, d, "'--rtol': expected a number from 0 to below 1, got '%s'", v);
	o->rtol = x;
	o->rtol_set = 1;
	return 0;
}

/* --check-max and --check-min: one budget (min: a floor) each time */
static int add_budget(struct dc_options *o, const char *opt, int min, const char *v, struct dc_diag *d)
{
	char err[256];
	struct dc_check_max m;
	/* one more each time, as --set */
	struct dc_check_max *a = dc_realloc(o->maxes, (o->nmaxes + 1) * sizeof(*a));
	if (!a)
		return out_of_memory(d);
	o->maxes = a;
	if (dc_check_max_parse(v, &m, err, sizeof(err)) != 0) {
		if (strcmp(err, "out of memory") == 0)
			return out_of_memory(d);
		return bad_value(o, d, "'%s': '%s': %s", opt, v, err);
	}
	m.min = min;
	o->maxes[o->nmaxes++] = m;
	return 0;
}

static int apply_check_max(struct dc_options *o, const char *v, struct dc_diag *d)
{
	return add_budget(o, "--check-max", 0, v, d);
}

/* --check-min PATH=VALUE: a floor (a throughput that must not drop) */
static int apply_check_min(struct dc_options *o, const char *v, struct dc_diag *d)
{
	return add_budget(o, "--check-min", 1, v, d);
}

/* --unset PATH: one more override that removes PATH from the config */
static int apply_unset(struct dc_options *o, const char *v, struct dc_diag *d)
{
	struct dc_override *s;
	if (!*v)
		return usage(d, "'--unset': empty key path");
	if (strchr(v, '='))
		return usage(d, "'--unset': expected a key path such as parallel.dp, got '%s' (to give a value, use --set)", v);
	s = dc_realloc(o->sets, (o->nsets + 1) * sizeof(*s));
	if (!s)
		return out_of_memory(d);
	o->sets = s;
	o->sets[o->nsets].text = v;
	o->sets[o->nsets++].unset = 1;
	return 0;
}

static int apply_check_only(struct dc_options *o, const char *v, struct dc_diag *d)
{
	size_t n = 1;
	const char *t;
	if (o->check_only)
		return usage(d, "'--check-only': given twice; list every path in one, as in --check-only memory,comm");
	if (!(t = trim_items(v, &o->check_only_copy)))
		return out_of_memory(d);
	/* a path of blanks alone is as empty as none */
	for (const char *p = t;; p++) {
		if (*p == ',' || *p == '\0') {
			if (p == t || p[-1] == ',' || (*p == ',' && !p[1]))
				return usage(d, "'--check-only': empty path in '%s'", v);
		}
		if (*p == '\0')
			break;
		n += *p == ',';
	}
	if (n > DC_CHECK_ONLY_MAX)
		return usage(d, "'--check-only': more than %d paths", DC_CHECK_ONLY_MAX);
	o->check_only = t;
	return 0;
}

static int apply_calibrate(struct dc_options *o, const char *v, struct dc_diag *d)
{
	const char **a;
	if (!*v)
		return usage(d, "'--calibrate': empty file name");
	if (not_stdin(o, "--calibrate", v, d) != 0)
		return -1;
	a = dc_realloc(o->calibrate, (o->ncalibrate + 1) * sizeof(*a));
	if (!a)
		return out_of_memory(d);
	o->calibrate = a;
	o->calibrate[o->ncalibrate++] = v;
	return 0;
}

static int apply_calibrate_compute(struct dc_options *o, const char *v, struct dc_diag *d)
{
	if (!*v)
		return usage(d, "'--calibrate-compute': empty file name");
	if (not_stdin(o, "--calibrate-compute", v, d) != 0)
		return -1;
	o->calibrate_compute = v;
	return 0;
}

static int apply_sweep(struct dc_options *o, const char *v, struct dc_diag *d)
{
	char err[300];
	const char **a;
	if (!dc_sweep_axis_check(v, err, sizeof(err)))
		return bad_value(o, d, "'--sweep': %s", err);
	for (size_t i = 0; i < o->nsweeps; i++) {
		size_t n = strcspn(v, "=");
		if (strncmp(o->sweeps[i], v, n) == 0 && o->sweeps[i][n] == '=')
			return usage(d, "'--sweep': '%.*s' swept twice; list every value in one, as in %.*s=1,2,4", (int)n, v,
				     (int)n, v);
	}
	if (o->nsweeps == DC_SWEEP_MAX_AXES)
		return usage(d, "'--sweep': given more than %d times", DC_SWEEP_MAX_AXES);
	/* one more each time, as --set */
	a = dc_realloc(o->sweeps, (o->nsweeps + 1) * sizeof(*a));
	if (!a)
		return out_of_memory(d);
	o->sweeps = a;
	o->sweeps[o->nsweeps++] = v;
	return 0;
}

static int apply_sweep_metrics(struct dc_options *o, const char *v, struct dc_diag *d)
{
	const char *t;
	if (!*v)
		return usage(d, "'--sweep-metrics': empty path list");
	if (o->sweep_metrics)
		return usage(d, "'--sweep-metrics': given twice; list every path in one, as in --sweep-metrics summary.peak_bytes,comm.dp.time_s");
	if (!(t = trim_items(v, &o->sweep_metrics_copy)))
		return out_of_memory(d);
	if (!*t)
		return usage(d, "'--sweep-metrics': empty path list");
	o->sweep_metrics = t;
	return 0;
}

/* The image formats a chart's name could promise that SVG is not: the
 * chart would be SVG under a name that says otherwise. */
static const char *const not_svg[] = {".png", ".jpg", ".jpeg", ".gif", ".webp", ".pdf", ".bmp", ".tif", ".tiff", NULL};

static int apply_plot(struct dc_options *o, const char *v, struct dc_diag *d)
{
	size_t n = strlen(v);
	for (size_t i = 0; not_svg[i]; i++) {
		size_t e = strlen(not_svg[i]);
		if (n > e && strcasecmp(v + n - e, not_svg[i]) == 0)
			return bad_value(o, d, "'--plot': the chart is SVG, but '%s' names a %s file; name it %.*s.svg (and convert it if you need %s)",
				     v, not_svg[i] + 1, (int)(n - e), v, not_svg[i] + 1);
	}
	if (not_stdout(o, "--plot", v, d) != 0)
		return -1;
	return file_name("--plot", v, &o->plot, d);
}

static int apply_help(struct dc_options *o, const char *v, struct dc_diag *d)
{
	(void)v;
	(void)d;
	o->action = DC_OPTIONS_HELP;
	return 0;
}

static int apply_import(struct dc_options *o, const char *v, struct dc_diag *d, enum dc_import_format f)
{
	if (o->import && o->import_format == (int)f)
		return usage(d, "'%s': given twice; give one file", dc_import_option(f));
	if (o->import)
		return usage(d, "'%s': one import at a time ('%s' was given)", dc_import_option(f),
			     dc_import_option((enum dc_import_format)o->import_format));
	if (not_stdin(o, dc_import_option(f), v, d) != 0)
		return -1;
	if (file_name(dc_import_option(f), v, &o->import, d) != 0)
		return -1;
	o->import_format = (int)f;
	return 0;
}

static int apply_from_megatron(struct dc_options *o, const char *v, struct dc_diag *d)
{
	return apply_import(o, v, d, DC_IMPORT_MEGATRON);
}

static int apply_from_torchtitan(struct dc_options *o, const char *v, struct dc_diag *d)
{
	return apply_import(o, v, d, DC_IMPORT_TORCHTITAN);
}

static int apply_from_deepspeed(struct dc_options *o, const char *v, struct dc_diag *d)
{
	return apply_import(o, v, d, DC_IMPORT_DEEPSPEED);
}

static int apply_emit_config(struct dc_options *o, const char *v, struct dc_diag *d)
{
	(void)v;
	(void)d;
	o->emit_config = 1;
	return 0;
}

static int apply_list_models(struct dc_options *o, const char *v, struct dc_diag *d)
{
	(void)v;
	(void)d;
	o->action = DC_OPTIONS_LIST_MODELS;
	return 0;
}

static int apply_version(struct dc_options *o, const char *v, struct dc_diag *d)
{
	(void)v;
	(void)d;
	o->action = DC_OPTIONS_VERSION;
	return 0;
}

const struct dc_option dc_option_table[] = {
	{"--config", 'c', "FILE", "read the config from FILE (default: the built-in copy\n"
				  "of configs/systems.json)\n"
				  "'-' reads standard input; the files it names\n"
				  "(model.hf_config, cluster.topology_file) are then\n"
				  "relative to the current directory",
	 apply_config},
	{"--model", 'm', "FILE|NAME", "read the model shape from a Hugging Face config.json\n"
				 "(Llama 2/3, Mistral, Mistral Small 3.x, Mixtral,\n"
				 "Phi-3, phi-4, Qwen2/2.5, Qwen2-MoE, Qwen3, Qwen3-MoE,\n"
				 "Qwen3-Next, GPT-2, Gemma 1/2/3, Llama 4, gpt-oss,\n"
				 "GLM-4.5, DeepSeek-V3, Kimi K2;\n"
				 "docs/models.md); cluster, layout, training and\n"
				 "model.seq_length stay the config's. A NAME without\n"
				 "'/' or .json is the catalogue's (--list-models).\n"
				 "Without --config, a tp the model's heads admit\n"
				 "replaces the built-in tp 4 (a warning says which)",
	 apply_model},
	{"--from-megatron", 0, "FILE", "import Megatron-LM's pretrain_gpt.py arguments (a list\n"
				       "or a launch script): parallel sizes, model shape, MoE,\n"
				       "recompute, batch, precision. The cluster stays the\n"
				       "config's; an argument distcalc cannot map is an error\n"
				       "naming it and its line (docs/importers.md)",
	 apply_from_megatron},
	{"--from-torchtitan", 0, "FILE", "import a torchtitan train config (.toml): [model]\n"
					 "name and flavor through the catalogue, [parallelism],\n"
					 "[training], [activation_checkpointing]; the cluster\n"
					 "stays the config's",
	 apply_from_torchtitan},
	{"--from-deepspeed", 0, "FILE", "import a DeepSpeed config (.json): ZeRO stage, offload,\n"
					"micro batch, accumulation, precision; the model and\n"
					"cluster stay the config's (or --model's)",
	 apply_from_deepspeed},
	{"--emit-config", 0, NULL, "with --from-*: print the equivalent distcalc config\n"
				   "(JSON, validated) instead of the report",
	 apply_emit_config},
	{"--list-models", 0, NULL, "print the model catalogue (configs/models, or\n"
				   "$DISTCALC_DATA_DIR/models) with each model's parameter\n"
				   "total as a text table, and exit; it takes no other\n"
				   "option (a --format or --only is refused)",
	 apply_list_models},
	{"--experiment", 'e', "NAME", "what to compute (default: systems); see below", apply_experiment},
	{"--seed", 0, "N", "seed for every random choice (default: 0); recorded in\n"
			   "the output. Same inputs and seed give identical output",
	 apply_seed},
	{"--format", 'f', "FMT", "table (default), json, csv, markdown (GitHub tables,\n"
				 "for a pull request) or html (one self-contained\n"
				 "page: the summary, the chart inline, every section)",
	 apply_format},
	{"--only", 0, "SECTIONS", "print only these sections, comma-separated (any\n"
				  "format; JSON keeps its header fields); an unknown\n"
				  "name lists the known ones. Or one table's path,\n"
				  "SECTION.TABLE (strategies.variants, sweep.rows; listed\n"
				  "below): that table alone, in CSV a plain table",
	 apply_only},
	{"--output", 'o', "FILE", "write to FILE atomically instead of standard output\n"
				  "('-' is standard output)",
	 apply_output},
	{"--trace", 0, "FILE", "also write one step as Chrome trace-event JSON to FILE\n"
			       "(atomically; open it in Perfetto or chrome://tracing):\n"
			       "a process per pipeline stage (at most 16), compute,\n"
			       "communication and memory tracks, 32 microbatches\n"
			       "shown, the rest summarised; --experiment ring:\n"
			       "the ring's rounds (docs/step-model.md). Any other\n"
			       "experiment (search, whatif, loss, ...) traces the\n"
			       "config's own layout, not the search's winner or a\n"
			       "what-if scenario: --set a layout to trace it. A\n"
			       "name ending .svg, .png, .html, .csv, .gz (another\n"
			       "format) is refused",
	 apply_trace},
	{"--set", 's', "PATH=VALUE", "override one config value, validated as if it were in\n"
				     "the file; repeatable, applied in order. Examples:\n"
				     "  --set model.hidden_size=4096\n"
				     "  --set 'cluster.inter_node.bandwidth=200 GB/s'",
	 apply_set},
	{"--unset", 0, "PATH", "remove config key PATH (or a section) as if the file\n"
			       "left it out, so its default or derived value applies;\n"
			       "repeatable, applied in order with --set. Example:\n"
			       "  --unset parallel.dp",
	 apply_unset},
	{"--all", 0, NULL, "print every row of long tables (events, per-rank)", apply_all},
	{"--check", 0, "FILE", "compare the report with a stored JSON report (written\n"
			       "by --format json --output FILE; '-' reads standard\n"
			       "input): one line per field that moved; exit 6 if any\n"
			       "did. Whole numbers (bytes, counts) must match\n"
			       "exactly. It compares the JSON report: --format json\n"
			       "is taken, any other --format refused",
	 apply_check},
	{"--rtol", 0, "X", "relative tolerance for other numbers under --check:\n"
			   "|got - expected| <= X times the larger of the two, so\n"
			   "0.5 passes a value halved or doubled; 0 to below 1\n"
			   "(default: 1e-9)",
	 apply_rtol},
	{"--check-max", 0, "PATH=VALUE", "a budget for CI: exit 6 when the report's number at\n"
				     "PATH is above VALUE; VALUE takes the field's unit\n"
				     "(bytes \"80GiB\", times \"0.5s\", bandwidths \"50GB/s\"),\n"
				     "a plain number is in its base unit. Repeatable; with\n"
				     "or without --check; --format as with --check.\n"
				     "Example:\n"
				     "  --check-max memory.per_rank.peak_bytes=80GiB",
	 apply_check_max},
	{"--check-min", 0, "PATH=VALUE", "a floor for CI: exit 6 when the report's number at\n"
				     "PATH is below VALUE (units as --check-max).\n"
				     "Repeatable. Example:\n"
				     "  --check-min step.tokens_per_s_per_gpu=3000",
	 apply_check_min},
	{"--check-only", 0, "PATHS", "with --check, compare only the fields under these\n"
				     "dotted paths, comma-separated (memory,comm.dp)",
	 apply_check_only},
	{"--calibrate", 0, "LOG", "fit the network to an nccl-tests log (what\n"
				  "all_reduce_perf or another *_perf binary printed)\n"
				  "and apply the fit to this run; repeatable, the logs\n"
				  "fit together: a one-node log fits NVLink, a\n"
				  "multi-node log the network (rate, latency, bandwidth\n"
				  "ramp), each within its physical bounds, with the\n"
				  "log's NCCL_ALGO. The report ends with a section\n"
				  "'calibration': measured vs fitted time per size,\n"
				  "warnings, the fitted cluster; with --plot, measured\n"
				  "and modelled busbw per log",
	 apply_calibrate},
	{"--calibrate-compute", 0, "PROFILE.json", "price the kernels with the levels tools/gpu-probe.py\n"
						    "measured on a GPU (its GEMMs' FLOP/s over the peak,\n"
						    "the attention backend's forward and backward,\n"
						    "its element-wise bytes/s over the HBM bandwidth);\n"
						    "the step section then shows the probe's layer time,\n"
						    "measured and predicted, and with gpu-probe.py --ends\n"
						    "its head and optimizer step; a layer that waited for\n"
						    "its host makes that host's time each layer's least\n"
						    "(docs/compute-model.md)",
	 apply_calibrate_compute},
	{"--sweep", 0, "PATH=V1,V2,...", "run the experiment once per value of config key PATH\n"
					 "(each applied as a --set after the others; an invalid\n"
					 "point is a row saying why) and print one row per point:\n"
					 "the values, then the metrics. Repeatable: several make\n"
					 "a grid, the first varying slowest. Example:\n"
					 "  --sweep cluster.num_nodes=1,2,4,8\n"
					 "docs/sweeps.md",
	 apply_sweep},
	{"--sweep-metrics", 0, "PATHS", "with --sweep, the columns: JSON paths of the report,\n"
					"comma-separated (default: the experiment's headline\n"
					"figures, docs/sweeps.md: topology.world_size first\n"
					"where a swept key moves the GPU count; for systems\n"
					"summary.peak_bytes, summary.fits,\n"
					"summary.comm_bytes_per_step, summary.comm_time_s,\n"
					"bytes_per_rank and time_s of comm.dp, comm.fsdp or\n"
					"both (as the points' shardings have them),\n"
					"step.time_s, step.tokens_per_s_per_gpu, step.mfu,\n"
					"and step.mfu_bf16_peak under FP8; the ring\n"
					"experiment: ring.time_s, ring.busbw_GBps,\n"
					"ring.bytes_sent_per_rank); a table's row by index:\n"
					"memory.per_rank.phases[1].total_bytes",
	 apply_sweep_metrics},
	{"--plot", 0, "FILE.svg", "also write a chart as SVG, atomically: the memory\n"
				  "ledger per rank class and phase against GPU memory\n"
				  "(systems), the ring's rounds per rank (ring), each\n"
				  "fault against the baseline (whatif), per-rank bytes,\n"
				  "save time and restore (checkpoint), the loss recipes\n"
				  "(loss), busbw against size (collectives), the Pareto\n"
				  "front (search), or one line chart per metric\n"
				  "(--sweep); nothing to draw is an error (exit 2),\n"
				  "found before anything is printed. docs/sweeps.md",
	 apply_plot},
	{"--jobs", 'j', "N", "threads for --experiment search (default: 1), at\n"
			     "most one per online CPU (a note says when fewer);\n"
			     "the result is the same for every N",
	 apply_jobs},
	{"--help", 'h', NULL, "print this help and exit", apply_help},
	{"--version", 'V', NULL, "print the version and exit", apply_version},
	{NULL, 0, NULL, NULL, NULL},
};

void dc_options_init(struct dc_options *o)
{
	memset(o, 0, sizeof(*o));
	o->action = DC_OPTIONS_RUN;
	o->experiment = "systems";
	o->format = DC_FORMAT_TABLE;
	o->rtol = DC_CHECK_DEFAULT_RTOL;
	o->jobs = 1;
}

void dc_options_release(struct dc_options *o)
{
	for (size_t i = 0; i < o->nmaxes; i++)
		free(o->maxes[i].path);
	free(o->maxes);
	free(o->sets);
	free(o->calibrate);
	free(o->sweeps);
	free(o->only_copy);
	free(o->check_only_copy);
	free(o->sweep_metrics_copy);
	dc_options_init(o);
}

/* The row `arg` names, with *value pointing after "=" for "--opt=value"
 * (else NULL). A flag matches its exact spelling only. */
static const struct dc_option *find_row(const char *arg, const char **value)
{
	*value = NULL;
	for (const struct dc_option *r = dc_option_table; r->long_name; r++) {
		size_t n = strlen(r->long_name);
		if (r->short_name && arg[0] == '-' && arg[1] == r->short_name && arg[2] == '\0')
			return r;
		if (strncmp(arg, r->long_name, n) != 0)
			continue;
		if (arg[n] == '\0')
			return r;
		if (arg[n] == '=' && r->metavar) {
			*value = arg + n + 1;
			return r;
		}
	}
	return NULL;
}

int dc_options_parse(int argc, const char *const *argv, struct dc_options *o,
		     struct dc_diag *diag)
{
	/* an option that takes one value, given twice, is refused: the last
	 * one silently winning hid a slip (--only, --check-only and
	 * --sweep-metrics say so themselves, with a hint) */
	static const char *const once[] = {"--config", "--model", "--experiment", "--seed", "--format", "--output",
					   "--trace", "--check", "--rtol", "--plot", "--jobs", "--calibrate-compute", NULL};
	const char *given[sizeof(once) / sizeof(once[0])] = {NULL};

	dc_options_init(o);
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v;
		const struct dc_option *r = find_row(a, &v);
		if (!r) {
			const char *near;
			if (a[0] != '-') {
				/* a config named without its option (distcalc takes
				 * none by position) */
				size_t n = strlen(a);
				if (n > 5 && strcasecmp(a + n - 5, ".json") == 0)
					return usage(diag,
						     "unexpected argument '%s'; did you mean '--config %s' (or '--model %s' for a Hugging Face config.json)?",
						     a, a, a);
				return usage(diag, "unexpected argument '%s'", a);
			}
			near = dc_options_suggest(a);
			if (near)
				return usage(diag, "unknown option '%s'; did you mean '%s'?", a, near);
			return usage(diag, "unknown option '%s'", a);
		}
		if (r->metavar && !v) {
			const char *nv;
			if (i + 1 >= argc)
				return usage(diag, "'%s': needs a value", r->long_name);
			/* the next word is one of our options: the value was left
			 * out (a CI trial's `--output --all` wrote a file named
			 * --all and dropped --all); a file of such a name is
			 * given as ./--all */
			if (argv[i + 1][0] == '-' && argv[i + 1][1] && find_row(argv[i + 1], &nv)) {
				if (strstr(r->metavar, "FILE") || strstr(r->metavar, "LOG") || strstr(r->metavar, ".json"))
					return usage(diag, "'%s': needs a value, but the next word is the option '%s' (a value that is that text: '%s=%s', or './%s' for a file)",
						     r->long_name, argv[i + 1], r->long_name, argv[i + 1], argv[i + 1]);
				return usage(diag, "'%s': needs a value, but the next word is the option '%s'", r->long_name,
					     argv[i + 1]);
			}
			v = argv[++i];
		}
		for (size_t k = 0; r->metavar && once[k]; k++) {
			if (strcmp(r->long_name, once[k]) != 0)
				continue;
			if (given[k])
				return usage(diag, "'%s': given twice ('%s', then '%s'); give it once", r->long_name, given[k], v);
			given[k] = v;
		}
		if (r->apply(o, v, diag) != 0)
			return -1;
		if (o->action != DC_OPTIONS_RUN && o->action != DC_OPTIONS_LIST_MODELS)
			return 0;
	}
	if (o->action == DC_OPTIONS_LIST_MODELS) {
		/* the catalogue is a text table of its own, not a report: an
		 * option of a report (--format json, --only, --output) would
		 * be dropped without a word, so it is refused, as
		 * --emit-config refuses one */
		for (int i = 1; i < argc; i++)
			if (strcmp(argv[i], "--list-models") != 0)
				return usage(diag, "'--list-models' prints the model catalogue as a text table, not a report: it takes no other option (got '%s')",
					     argv[i]);
		return 0;
	}
	if (o->emit_config && !o->import)
		return usage(diag, "'--emit-config' only applies with '--from-megatron', '--from-torchtitan' or '--from-deepspeed'");
	if (o->emit_config && (o->check || o->nmaxes || o->nsweeps || o->trace || o->plot || o->only || o->ncalibrate ||
			       o->all_rows || given[2] || given[3] || given[4] || given[10] || given[11]))
		return usage(diag, "'--emit-config' prints a config, not a report: it takes only '--config', '--model', '--set', '--unset' and '--output'");
	if (given[10] && strcmp(o->experiment, "search") != 0)
		return usage(diag, "'--jobs' only applies with '--experiment search' (the threads of the layout search)");
	/* --format json is what they compare: the command that stored a
	 * report takes --check as it is */
	if (given[4] && o->format != DC_FORMAT_JSON && (o->check || o->nmaxes))
		return usage(diag, "'--format %s' does not apply with '%s': it compares the JSON report and prints the differences as lines",
			     given[4], o->check ? "--check" : o->maxes[0].min ? "--check-min" : "--check-max");
	for (size_t i = 0; i < o->ncalibrate; i++)
		for (size_t j = 0; j < i; j++)
			if (strcmp(o->calibrate[i], o->calibrate[j]) == 0)
				return usage(diag, "'--calibrate': '%s' given twice; a log fitted twice would weigh double", o->calibrate[i]);
	/* a --sweep of a key replaces its --set or --unset at every point */
	for (size_t i = 0; i < o->nsweeps; i++) {
		size_t n = strcspn(o->sweeps[i], "=");
		for (size_t j = 0; j < o->nsets; j++) {
			const char *t = o->sets[j].text;
			size_t m = o->sets[j].unset ? strlen(t) : strcspn(t, "=");
			if (m == n && strncmp(t, o->sweeps[i], n) == 0)
				return usage(diag, "'--sweep %.*s' sets that key at every point; the '%s %s' before it would be replaced: give one",
					     (int)n, o->sweeps[i], o->sets[j].unset ? "--unset" : "--set", t);
		}
	}
	/* two budgets on one path: the same kind twice (which one holds is
	 * not for the order to decide), or a floor above a budget, which no
	 * number passes (a CI trial's, accepted without a word) */
	for (size_t i = 0; i < o->nmaxes; i++)
		for (size_t j = 0; j < i; j++) {
			const struct dc_check_max *a = &o->maxes[j], *b = &o->maxes[i];
			const struct dc_check_max *lo = a->min ? a : b, *hi = a->min ? b : a;
			if (strcmp(a->path, b->path) != 0)
				continue;
			if (a->min == b->min)
				return usage(diag, "'%s': '%s' given twice (%s and %s): give one", b->min ? "--check-min" : "--check-max",
					     b->path, a->value, b->value);
			if (lo->limit > hi->limit)
				return usage(diag, "'%s': the floor %s (--check-min) is above the budget %s (--check-max): no value passes both",
					     b->path, lo->value, hi->value);
		}
	/* standard input is read once: two inputs cannot both be it */
	if (o->config && o->check && strcmp(o->config, "-") == 0 && strcmp(o->check, "-") == 0)
		return usage(diag, "'--config -' and '--check -' both read standard input; give one of them a file");
	if (o->check && o->output)
		return usage(diag, "'--check' prints differences to standard output; it cannot be combined with '--output'");
	if (o->nmaxes && o->output)
		return usage(diag, "'%s' prints what exceeds a budget to standard output; it cannot be combined with '--output'",
			     o->maxes[0].min ? "--check-min" : "--check-max");
	if (o->rtol_set && !o->check)
		return usage(diag, "'--rtol' only applies with '--check'");
	if (o->check_only && !o->check)
		return usage(diag, "'--check-only' only applies with '--check'");
	if (o->sweep_metrics && !o->nsweeps)
		return usage(diag, "'--sweep-metrics' only applies with '--sweep'");
	if (o->nsweeps && o->trace)
		return usage(diag, "'--trace' draws one step of one run; it does not apply to '--sweep' (trace a point with --set)");
	if (o->plot && o->output && strcmp(o->plot, o->output) == 0)
		return usage(diag, "'--plot' and '--output' name the same file '%s'", o->plot);
	return 0;
}

const char *dc_options_suggest(const char *arg)
{
	size_t best = 99, n = strcspn(arg, "=");
	const char *near = NULL;
	for (const struct dc_option *r = dc_option_table; r->long_name; r++) {
		size_t d = dc_edit_distance(arg, n, r->long_name, 0);
		if (d < best) {
			best = d;
			near = r->long_name;
		}
	}
	return best <= 2 ? near : NULL;
}

/* One row of the options section: "  -c, --config FILE" padded to
 * HELP_COLUMN, then the help text, its continuation lines indented to the
 * same column. A left part too wide for the column puts the text below. */
static void help_row(struct dc_buf *out, const struct dc_option *r)
{
	size_t start = out->len, width;
	const char *t = r->help;
	if (r->short_name)
		dc_buf_printf(out, "  -%c, %s", r->short_name, r->long_name);
	else
		dc_buf_printf(out, "      %s", r->long_name);
	if (r->metavar)
		dc_buf_printf(out, " %s", r->metavar);
	width = out->len - start;
	if (out->failed)
		return;
	if (width + 2 > HELP_COLUMN) {
		dc_buf_putc(out, '\n');
		width = 0;
	}
	dc_buf_pad(out, HELP_COLUMN - width);
	for (;;) {
		size_t n = strcspn(t, "\n");
		dc_buf_add(out, t, n);
		dc_buf_putc(out, '\n');
		if (t[n] == '\0')
			break;
		t += n + 1;
		dc_buf_pad(out, HELP_COLUMN);
	}
}

/* Every section's tables, wrapped at 79 columns, and a sweep's. */
static void help_tables(struct dc_buf *out)
{
	struct dc_buf all;
	size_t col = 0;
	const char *p;

	dc_buf_puts(out, "\ntables (--only SECTION.TABLE prints that table alone; with --format csv\n"
			 "one header row and its rows, nothing else; docs/output.md):\n");
	dc_buf_init(&all);
	for (size_t i = 0; dc_sections[i]; i++)
		dc_section_table_paths(dc_sections[i], &all);
	dc_buf_puts(&all, ", sweep.rows (with --sweep)");
	if (all.failed) {
		out->failed = 1;
		dc_buf_release(&all);
		return;
	}
	for (p = all.data; *p;) {
		size_t n = strcspn(p, ",");
		if (col && col + 1 + n + 1 > 79) {
			dc_buf_putc(out, '\n');
			col = 0;
		}
		if (!col) {
			dc_buf_puts(out, "  ");
			col = 2;
		} else {
			dc_buf_putc(out, ' ');
			col++;
		}
		dc_buf_add(out, p, n);
		col += n;
		p += n;
		if (*p == ',') {
			dc_buf_putc(out, ',');
			col++;
			p++;
			while (*p == ' ')
				p++;
		}
	}
	dc_buf_putc(out, '\n');
	dc_buf_release(&all);
}

int dc_options_help(struct dc_buf *out)
{
	dc_buf_puts(out, dc_options_usage);
	dc_buf_puts(out, help_head);
	for (const struct dc_option *r = dc_option_table; r->long_name; r++)
		help_row(out, r);
	dc_buf_puts(out, "\nexperiments:\n");
	for (size_t i = 0; dc_experiments[i]; i++)
		dc_buf_printf(out, "  %-11s %s\n", dc_experiments[i]->name, dc_experiments[i]->summary);
	dc_buf_puts(out, "\nsections (for --only; the systems experiment prints them in this order):\n");
	for (size_t i = 0; dc_sections[i]; i++) {
		/* the other experiments' own sections (collectives, and
		 * calibration under --calibrate) are named above */
		const struct dc_experiment *sys = dc_experiment_find("systems");
		int in_systems = 0;
		for (size_t k = 0; sys && sys->sections[k]; k++)
			in_systems |= sys->sections[k] == dc_sections[i];
		if (in_systems)
			dc_buf_printf(out, "  %-10s %s\n", dc_sections[i]->name, dc_sections[i]->doc);
	}
	help_tables(out);
	dc_buf_puts(out, help_tail);
	return out->failed ? -1 : 0;
}
