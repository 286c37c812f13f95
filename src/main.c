/* main.c - the distcalc command line: options, exit codes, output.
 *
 * Everything else lives in distcalc_core; this file alone prints to the
 * terminal and chooses the exit status.
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "distcalc/check.h"
#include "distcalc/config.h"
#include "distcalc/diag.h"
#include "distcalc/experiment.h"
#include "distcalc/report.h"
#include "distcalc/util.h"

enum exit_code {
	EXIT_OK = 0,
	EXIT_INTERNAL = 1,
	EXIT_USAGE = 2,
	EXIT_CONFIG = 3,
	EXIT_INPUT = 4,
	EXIT_OUTPUT = 5,
	EXIT_CHECK = 6,
};

/* Rows shown of a long table unless --all: the first and last 16. */
#define DC_EXCERPT_ROWS 32

static const char usage_text[] =
	"usage: distcalc [--config FILE] [--model HF_CONFIG] [--experiment NAME] [--seed N]\n"
	"                [--format table|json] [--output FILE] [--set PATH=VALUE]... [--all]\n"
	"                [--check EXPECTED.json [--rtol X]] [--help] [--version]\n";

static const char help_head[] =
	"\n"
	"distcalc estimates what multi-GPU training costs from a JSON config: exact\n"
	"parameter counts, per-rank memory, ring AllReduce bytes and time,\n"
	"communication and FLOPs per step, and strategies compared on the same work.\n"
	"\n"
	"options:\n"
	"  -c, --config FILE      read the config from FILE (default: the built-in copy\n"
	"                         of configs/systems.json)\n"
	"  -m, --model FILE       read the model shape from a Hugging Face config.json\n"
	"                         (Llama 2/3, Mistral, Mixtral, Qwen2/2.5, Qwen2-MoE,\n"
	"                         Qwen3-MoE, GPT-2, Gemma, DeepSeek-V3); cluster, layout,\n"
	"                         training and model.seq_length stay the config's\n"
	"  -e, --experiment NAME  what to compute (default: systems); see below\n"
	"      --seed N           seed for every random choice (default: 0); recorded in\n"
	"                         the output. Same inputs and seed give identical output\n"
	"  -f, --format FMT       table (default) or json\n"
	"  -o, --output FILE      write to FILE atomically instead of standard output\n"
	"  -s, --set PATH=VALUE   override one config value, validated as if it were in\n"
	"                         the file; repeatable, applied in order. Examples:\n"
	"                           --set model.hidden_size=4096\n"
	"                           --set 'cluster.inter_node.bandwidth=200 GB/s'\n"
	"      --all              print every row of long tables (events, per-rank)\n"
	"      --check FILE       compare the report with a stored JSON report (written\n"
	"                         by --format json --output FILE): one line per field\n"
	"                         that moved; exit 6 if any did. Whole numbers (bytes,\n"
	"                         counts) must match exactly\n"
	"      --rtol X           relative tolerance for other numbers under --check\n"
	"                         (default: 1e-9)\n"
	"  -h, --help             print this help and exit\n"
	"  -V, --version          print the version and exit\n"
	"\n"
	"experiments:\n";

static const char help_tail[] =
	"\n"
	"exit status:\n"
	"  0  success\n"
	"  1  internal error (out of memory, a bug)\n"
	"  2  usage error (bad option or argument)\n"
	"  3  invalid config (syntax, unknown key, bad value, inconsistent layout)\n"
	"  4  unreadable input (missing file, directory, over 1 MiB, read error)\n"
	"  5  unwritable output (cannot create, full disk, closed stdout)\n"
	"  6  --check found fields that moved\n"
	"\n"
	"Units in configs are explicit and case-sensitive: \"80 GiB\", \"1.5 GB\",\n"
	"\"50 GB/s\", \"400 Gb/s\", \"5 us\". Docs: README.md, docs/config.md (every key),\n"
	"docs/formulas.md and docs/formulas-systems.md (every formula), docs/models.md.\n";

struct options {
	const char *config;
	const char *model;
	const char *experiment;
	uint64_t seed;
	int json;
	const char *output;
	struct dc_override *sets;
	size_t nsets;
	int all_rows;
	const char *check;
	double rtol;
	int rtol_set;
};

static int usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static int usage_error(const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "distcalc: error: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n%sTry 'distcalc --help' for more information.\n", usage_text);
	return EXIT_USAGE;
}

static int parse_seed(const char *s, uint64_t *out)
{
	char *end;
	unsigned long long v;
	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno != 0 || *end != '\0')
		return -1;
	*out = (uint64_t)v;
	return 0;
}

static int print_help(void)
{
	struct dc_buf list;
	int rc = 0;
	dc_buf_init(&list);
	for (size_t i = 0; dc_experiments[i]; i++)
		dc_buf_printf(&list, "  %-10s %s\n", dc_experiments[i]->name, dc_experiments[i]->summary);
	if (list.failed) {
		fprintf(stderr, "distcalc: error: out of memory\n");
		dc_buf_release(&list);
		return EXIT_INTERNAL;
	}
	if (fputs(usage_text, stdout) == EOF || fputs(help_head, stdout) == EOF ||
	    fputs(list.data, stdout) == EOF || fputs(help_tail, stdout) == EOF)
		rc = -1;
	dc_buf_release(&list);
	if (fflush(stdout) != 0 || ferror(stdout) || rc != 0) {
		fprintf(stderr, "distcalc: error: cannot write to standard output: %s\n", strerror(errno));
		return EXIT_OUTPUT;
	}
	return EXIT_OK;
}

/* Option value: "--opt=value" or "--opt value". */
static const char *opt_value(int argc, char **argv, int *i, const char *arg, const char *name,
			     int *err)
{
	size_t n = strlen(name);
	if (strncmp(arg, name, n) == 0 && arg[n] == '=')
		return arg + n + 1;
	if (*i + 1 >= argc) {
		*err = usage_error("'%s': needs a value", name);
		return NULL;
	}
	return argv[++*i];
}

static int matches(const char *arg, const char *lng, const char *shrt)
{
	size_t n = strlen(lng);
	if (shrt && strcmp(arg, shrt) == 0)
		return 1;
	return strncmp(arg, lng, n) == 0 && (arg[n] == '\0' || arg[n] == '=');
}

/* Returns -1 to go on, or an exit code. */
static int unknown_option(const char *arg);

static int parse_args(int argc, char **argv, struct options *o)
{
	int err = 0;
	o->experiment = "systems";
	o->sets = calloc((size_t)argc, sizeof(*o->sets));
	if (!o->sets) {
		fprintf(stderr, "distcalc: error: out of memory\n");
		return EXIT_INTERNAL;
	}
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char *v;
		if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0)
			return print_help();
		if (strcmp(a, "--version") == 0 || strcmp(a, "-V") == 0) {
			if (printf("distcalc %s\n", DC_VERSION) < 0 || fflush(stdout) != 0) {
				fprintf(stderr, "distcalc: error: cannot write to standard output: %s\n",
					strerror(errno));
				return EXIT_OUTPUT;
			}
			return EXIT_OK;
		}
		if (strcmp(a, "--all") == 0) {
			o->all_rows = 1;
		} else if (matches(a, "--config", "-c")) {
			if (!(v = opt_value(argc, argv, &i, a, "--config", &err)))
				return err;
			if (!*v)
				return usage_error("'--config': empty file name");
			o->config = v;
		} else if (matches(a, "--model", "-m")) {
			if (!(v = opt_value(argc, argv, &i, a, "--model", &err)))
				return err;
			if (!*v)
				return usage_error("'--model': empty file name");
			o->model = v;
		} else if (matches(a, "--experiment", "-e")) {
			if (!(v = opt_value(argc, argv, &i, a, "--experiment", &err)))
				return err;
			o->experiment = v;
		} else if (matches(a, "--seed", NULL)) {
			if (!(v = opt_value(argc, argv, &i, a, "--seed", &err)))
				return err;
			if (parse_seed(v, &o->seed) != 0)
				return usage_error("'--seed': expected an integer from 0 to 18446744073709551615, got '%s'", v);
		} else if (matches(a, "--format", "-f")) {
			if (!(v = opt_value(argc, argv, &i, a, "--format", &err)))
				return err;
			if (strcmp(v, "json") == 0)
				o->json = 1;
			else if (strcmp(v, "table") == 0)
				o->json = 0;
			else
				return usage_error("'--format': expected 'table' or 'json', got '%s'", v);
		} else if (matches(a, "--output", "-o")) {
			if (!(v = opt_value(argc, argv, &i, a, "--output", &err)))
				return err;
			if (!*v)
				return usage_error("'--output': empty file name");
			o->output = v;
		} else if (matches(a, "--check", NULL)) {
			if (!(v = opt_value(argc, argv, &i, a, "--check", &err)))
				return err;
			if (!*v)
				return usage_error("'--check': empty file name");
			o->check = v;
		} else if (matches(a, "--rtol", NULL)) {
			char *end;
			if (!(v = opt_value(argc, argv, &i, a, "--rtol", &err)))
				return err;
			errno = 0;
			o->rtol = strtod(v, &end);
			if (!*v || *end || errno || !(o->rtol >= 0) || o->rtol > 1)
				return usage_error("'--rtol': expected a number from 0 to 1, got '%s'", v);
			o->rtol_set = 1;
		} else if (matches(a, "--set", "-s")) {
			if (!(v = opt_value(argc, argv, &i, a, "--set", &err)))
				return err;
			o->sets[o->nsets++].text = v;
		} else if (a[0] == '-') {
			return unknown_option(a);
		} else {
			return usage_error("unexpected argument '%s'", a);
		}
	}
	if (o->check && o->output)
		return usage_error("'--check' prints differences to standard output; it cannot be combined with '--output'");
	if (o->rtol_set && !o->check)
		return usage_error("'--rtol' only applies with '--check'");
	if (!o->rtol_set)
		o->rtol = DC_CHECK_DEFAULT_RTOL;
	return -1;
}

/* Edit distance between the first n bytes of a and b (short strings). */
static size_t option_distance(const char *a, size_t n, const char *b)
{
	size_t lb = strlen(b), row[32];
	if (n >= 31 || lb >= 31)
		return 99;
	for (size_t j = 0; j <= lb; j++)
		row[j] = j;
	for (size_t i = 1; i <= n; i++) {
		size_t diag = row[0];
		row[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t up = row[j], best = diag + (a[i - 1] != b[j - 1]);
			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			row[j] = best;
			diag = up;
		}
	}
	return row[lb];
}

/* "unknown option" with the closest long option, when one is near. */
static int unknown_option(const char *arg)
{
	static const char *const longs[] = {"--config", "--model",  "--experiment", "--seed", "--format",
					    "--output", "--set",    "--all",        "--check", "--rtol",
					    "--help",   "--version"};
	size_t best = 99, bi = 0, n = strcspn(arg, "=");
	for (size_t i = 0; i < sizeof(longs) / sizeof(longs[0]); i++) {
		size_t d = option_distance(arg, n, longs[i]);
		if (d < best) {
			best = d;
			bi = i;
		}
	}
	if (best <= 2)
		return usage_error("unknown option '%s'; did you mean '%s'?", arg, longs[bi]);
	return usage_error("unknown option '%s'", arg);
}

static int exit_for(enum dc_status s)
{
	switch (s) {
	case DC_OK: return EXIT_OK;
	case DC_ERR_USAGE: return EXIT_USAGE;
	case DC_ERR_CONFIG: return EXIT_CONFIG;
	case DC_ERR_INPUT: return EXIT_INPUT;
	case DC_ERR_OUTPUT: return EXIT_OUTPUT;
	case DC_ERR_INTERNAL: break;
	}
	return EXIT_INTERNAL;
}

static void print_diag(const struct dc_diag *d, size_t from)
{
	for (size_t i = from; i < d->count; i++) {
		const char *t = d->entries[i].text;
		if (d->entries[i].severity == DC_SEV_WARNING)
			fprintf(stderr, "distcalc: warning: %s\n", t);
		else
			fprintf(stderr, "%s\n", t);
	}
	if (d->oom)
		fprintf(stderr, "distcalc: error: out of memory while reporting errors\n");
}

static int write_all(int fd, const char *p, size_t n)
{
	while (n > 0) {
		ssize_t w = write(fd, p, n);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/* The mode a plain new file gets: 0666 less the umask (mkstemp uses 0600). */
static mode_t default_mode(void)
{
	mode_t mask = umask(0);
	umask(mask);
	return 0666 & ~mask;
}

/* Where the report goes. Output streams through a sink: standard output, an
 * existing device or FIFO written in place ("/dev/full", a pipe: renaming
 * over it would replace the node), or a temporary file in the target's
 * directory renamed over the target at the end, so readers see the old
 * file or the whole new one, never a part. */
enum sink_kind {
	SINK_STDOUT,
	SINK_IN_PLACE,
	SINK_ATOMIC,
};

struct sink {
	enum sink_kind kind;
	const char *path;
	char *tmp;
	int fd;
	mode_t mode;
	int err; /* errno of the first failed write */
};

static int sink_write(void *ctx, const char *p, size_t n)
{
	struct sink *s = ctx;
	if (write_all(s->fd, p, n) != 0) {
		s->err = errno;
		return -1;
	}
	return 0;
}

static const char *sink_name(const struct sink *s)
{
	return s->kind == SINK_STDOUT ? "standard output" : s->path;
}

/* Opens the sink for `path` (NULL: stdout). Returns EXIT_OK or an exit
 * code after printing why. */
static int sink_open(struct sink *s, const char *path)
{
	struct stat st;

	memset(s, 0, sizeof(*s));
	s->path = path;
	s->fd = STDOUT_FILENO;
	if (!path)
		return EXIT_OK;
	s->mode = default_mode();
	if (stat(path, &st) == 0) {
		if (S_ISDIR(st.st_mode)) {
			fprintf(stderr, "distcalc: error: cannot write '%s': is a directory\n", path);
			return EXIT_OUTPUT;
		}
		if (!S_ISREG(st.st_mode)) {
			s->kind = SINK_IN_PLACE;
			s->fd = open(path, O_WRONLY | O_NOCTTY);
			if (s->fd < 0) {
				fprintf(stderr, "distcalc: error: cannot open '%s': %s\n", path, strerror(errno));
				return EXIT_OUTPUT;
			}
			return EXIT_OK;
		}
		s->mode = st.st_mode & 07777; /* an existing file keeps its permissions */
	}
	s->kind = SINK_ATOMIC;
	s->tmp = dc_asprintf("%s.tmp.XXXXXX", path);
	if (!s->tmp) {
		fprintf(stderr, "distcalc: error: out of memory\n");
		return EXIT_INTERNAL;
	}
	s->fd = mkstemp(s->tmp);
	if (s->fd < 0) {
		fprintf(stderr, "distcalc: error: cannot create '%s': %s\n", path, strerror(errno));
		free(s->tmp);
		s->tmp = NULL;
		return EXIT_OUTPUT;
	}
	return EXIT_OK;
}

/* Drops a sink after a failure: the temporary file goes, the target stays
 * as it was. */
static void sink_abort(struct sink *s)
{
	if (s->kind == SINK_ATOMIC && s->tmp) {
		close(s->fd);
		unlink(s->tmp);
	} else if (s->kind == SINK_IN_PLACE) {
		close(s->fd);
	}
	free(s->tmp);
	s->tmp = NULL;
}

/* Finishes a sink whose every write succeeded. Returns an exit code. */
static int sink_commit(struct sink *s)
{
	int saved;
	if (s->kind == SINK_STDOUT)
		return EXIT_OK;
	if (s->kind == SINK_IN_PLACE) {
		if (close(s->fd) != 0) {
			fprintf(stderr, "distcalc: error: cannot write '%s': %s\n", s->path, strerror(errno));
			return EXIT_OUTPUT;
		}
		return EXIT_OK;
	}
	if (fsync(s->fd) != 0 || fchmod(s->fd, s->mode) != 0 || close(s->fd) != 0 ||
	    rename(s->tmp, s->path) != 0) {
		saved = errno;
		unlink(s->tmp);
		fprintf(stderr, "distcalc: error: cannot write '%s': %s\n", s->path, strerror(saved));
		free(s->tmp);
		s->tmp = NULL;
		return EXIT_OUTPUT;
	}
	free(s->tmp);
	s->tmp = NULL;
	return EXIT_OK;
}

/* Renders the report into the sink, streaming. Returns an exit code. */
static int emit(struct dc_report *report, const struct options *o, const struct dc_render_opts *ro)
{
	struct sink s;
	struct dc_buf out;
	int rendered, written;
	/* A temporary file is renamed only at the end, so it can take the
	 * output as it comes. Standard output and devices see the report
	 * only once it is whole, except under --all, whose output can run to
	 * gigabytes: there it streams, and a failure part-way leaves a partial
	 * report behind a non-zero exit status. */
	int stream;
	int rc = sink_open(&s, o->output);
	if (rc != EXIT_OK)
		return rc;
	stream = s.kind == SINK_ATOMIC || ro->max_rows == 0;
	dc_buf_init(&out);
	if (stream) {
		out.flush = sink_write;
		out.flush_ctx = &s;
	}
	rendered = (o->json ? dc_report_render_json(report, ro, &out) : dc_report_render_table(report, ro, &out)) == 0;
	if (rendered)
		written = stream ? dc_buf_flush(&out) == 0 : sink_write(&s, out.data, out.len) == 0;
	else
		written = !out.flush_failed;
	if (!rendered || !written) {
		if (!written)
			fprintf(stderr, "distcalc: error: cannot write %s%s%s: %s\n", s.kind == SINK_STDOUT ? "to " : "'",
				sink_name(&s), s.kind == SINK_STDOUT ? "" : "'", strerror(s.err));
		else
			fprintf(stderr, "distcalc: error: out of memory while rendering the report\n");
		rc = written ? EXIT_INTERNAL : EXIT_OUTPUT;
		sink_abort(&s);
	} else {
		rc = sink_commit(&s);
	}
	dc_buf_release(&out);
	return rc;
}

/* Reads a whole file (at most `max` bytes) for --check. */
static char *read_file(const char *path, size_t max, size_t *len, int *rc)
{
	struct stat st;
	char *buf;
	size_t n = 0;
	int fd = open(path, O_RDONLY);

	if (fd < 0 || fstat(fd, &st) != 0) {
		fprintf(stderr, "distcalc: error: '--check': cannot open '%s': %s\n", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		*rc = EXIT_INPUT;
		return NULL;
	}
	if (S_ISDIR(st.st_mode) || (S_ISREG(st.st_mode) && (uint64_t)st.st_size > max)) {
		fprintf(stderr, "distcalc: error: '--check': '%s' is %s\n", path,
			S_ISDIR(st.st_mode) ? "a directory" : "larger than 512 MiB");
		close(fd);
		*rc = EXIT_INPUT;
		return NULL;
	}
	buf = dc_malloc(max + 1);
	if (!buf) {
		close(fd);
		fprintf(stderr, "distcalc: error: out of memory\n");
		*rc = EXIT_INTERNAL;
		return NULL;
	}
	for (;;) {
		ssize_t r = read(fd, buf + n, max + 1 - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			fprintf(stderr, "distcalc: error: '--check': cannot read '%s': %s\n", path, strerror(errno));
			close(fd);
			free(buf);
			*rc = EXIT_INPUT;
			return NULL;
		}
		if (r == 0 || n + (size_t)r > max) {
			n += (size_t)r;
			break;
		}
		n += (size_t)r;
	}
	close(fd);
	if (n > max) {
		fprintf(stderr, "distcalc: error: '--check': '%s' is larger than 512 MiB\n", path);
		free(buf);
		*rc = EXIT_INPUT;
		return NULL;
	}
	*len = n;
	return buf;
}

#define CHECK_MAX_BYTES ((size_t)512 * 1024 * 1024)

/* --check: renders the report as JSON in memory, compares it with the
 * stored one and prints one line per field that moved. */
static int check(struct dc_report *report, const struct options *o, const struct dc_render_opts *ro)
{
	struct dc_buf json, lines;
	struct dc_check_result res;
	struct dc_diag d;
	size_t len = 0;
	int rc = EXIT_OK;
	char *expected = read_file(o->check, CHECK_MAX_BYTES, &len, &rc);

	if (!expected)
		return rc;
	dc_buf_init(&json);
	dc_buf_init(&lines);
	dc_diag_init(&d);
	if (dc_report_render_json(report, ro, &json) != 0) {
		fprintf(stderr, "distcalc: error: out of memory while rendering the report\n");
		rc = EXIT_INTERNAL;
	} else if (dc_check_compare(expected, len, o->check, json.data, json.len, o->rtol, &lines, &res, &d) != 0) {
		print_diag(&d, 0);
		rc = exit_for(d.status);
	} else {
		if (lines.len && write_all(STDOUT_FILENO, lines.data, lines.len) != 0) {
			fprintf(stderr, "distcalc: error: cannot write to standard output: %s\n", strerror(errno));
			rc = EXIT_OUTPUT;
		} else {
			fprintf(stderr, "distcalc: check '%s': %zu fields compared, %zu moved (rtol %g)\n", o->check,
				res.compared, res.differences, o->rtol);
			rc = res.differences ? EXIT_CHECK : EXIT_OK;
		}
	}
	dc_diag_release(&d);
	dc_buf_release(&json);
	dc_buf_release(&lines);
	free(expected);
	return rc;
}

int main(int argc, char **argv)
{
	struct options o;
	struct dc_config cfg;
	struct dc_diag diag;
	struct dc_report *report = NULL;
	struct dc_render_opts ro;
	struct dc_run_info info;
	struct dc_load_opts lo;
	const struct dc_experiment *exp;
	int rc, load_rc;

	/* Over a file-size limit (ulimit -f) the kernel sends SIGXFSZ, which
	 * kills the process and strands the temporary file; ignored, the write
	 * fails with EFBIG and is reported like any other. */
	signal(SIGXFSZ, SIG_IGN);
	memset(&o, 0, sizeof(o));
	dc_diag_init(&diag);
	rc = parse_args(argc, argv, &o);
	if (rc >= 0)
		goto done;

	exp = dc_experiment_find(o.experiment);
	if (!exp) {
		fprintf(stderr, "distcalc: error: '--experiment': unknown experiment '%s'; known experiments:",
			o.experiment);
		for (size_t i = 0; dc_experiments[i]; i++)
			fprintf(stderr, "%s %s", i ? "," : "", dc_experiments[i]->name);
		fprintf(stderr, "\n");
		rc = EXIT_USAGE;
		goto done;
	}
	lo.overrides = o.sets;
	lo.noverrides = o.nsets;
	lo.model_file = o.model;
	if (o.config) {
		load_rc = dc_config_load_file_opts(o.config, &lo, &cfg, &diag);
	} else {
		fprintf(stderr, "distcalc: no --config given; using the built-in default (configs/systems.json)%s\n",
			o.model ? " with the model from --model" : "");
		load_rc = dc_config_load_buffer_opts(dc_default_config, dc_default_config_len,
						     "configs/systems.json", &lo, &cfg, &diag);
	}
	if (load_rc != 0) {
		print_diag(&diag, 0);
		rc = exit_for(diag.status);
		goto done;
	}

	info.experiment = exp->name;
	info.config_name = o.config ? o.config : "built-in default (configs/systems.json)";
	info.seed = o.seed;
	report = dc_experiment_run(exp, &cfg, &info, &diag);
	print_diag(&diag, 0);
	if (!report) {
		rc = exit_for(diag.status);
		goto done;
	}
	ro.max_rows = o.all_rows ? 0 : DC_EXCERPT_ROWS;
	rc = o.check ? check(report, &o, &ro) : emit(report, &o, &ro);
done:
	dc_report_free(report);
	dc_diag_release(&diag);
	free(o.sets);
	return rc;
}
