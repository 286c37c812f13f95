/* main.c - the distcalc command line: exit codes, output, --check.
 *
 * Everything else lives in distcalc_core (the option table in options.c);
 * this file alone prints to the terminal and chooses the exit status.
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "distcalc/check.h"
#include "distcalc/config.h"
#include "distcalc/diag.h"
#include "distcalc/experiment.h"
#include "distcalc/options.h"
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
/* Table output wraps lists and text and splits wide tables at this column. */
#define DC_TABLE_WIDTH 100

static int print_help(void)
{
	struct dc_buf text;
	int rc = EXIT_OK;
	dc_buf_init(&text);
	if (dc_options_help(&text) != 0) {
		fprintf(stderr, "distcalc: error: out of memory\n");
		dc_buf_release(&text);
		return EXIT_INTERNAL;
	}
	if (fputs(text.data, stdout) == EOF || fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "distcalc: error: cannot write to standard output: %s\n", strerror(errno));
		rc = EXIT_OUTPUT;
	}
	dc_buf_release(&text);
	return rc;
}

static int print_version(void)
{
	if (printf("distcalc %s\n", DC_VERSION) < 0 || fflush(stdout) != 0) {
		fprintf(stderr, "distcalc: error: cannot write to standard output: %s\n", strerror(errno));
		return EXIT_OUTPUT;
	}
	return EXIT_OK;
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

/* After a failed dc_options_parse: the error, then for a usage error the
 * synopsis and a hint. Returns the exit code. */
static int parse_failed(const struct dc_diag *d)
{
	print_diag(d, 0);
	if (d->status == DC_ERR_USAGE)
		fprintf(stderr, "%sTry 'distcalc --help' for more information.\n", dc_options_usage);
	return exit_for(d->status);
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
static int emit(struct dc_report *report, const struct dc_options *o, const struct dc_render_opts *ro)
{
	struct sink s;
	struct dc_buf out;
	int rendered, written;
	/* A temporary file is renamed only at the end, so it can take the
	 * output as it comes. Standard output and devices see the report
	 * only once it is whole, except under --all and in CSV (which prints
	 * every row), whose output can run to gigabytes: there it streams,
	 * and a failure part-way leaves a partial report behind a non-zero
	 * exit status. */
	int stream;
	int rc = sink_open(&s, o->output);
	if (rc != EXIT_OK)
		return rc;
	stream = s.kind == SINK_ATOMIC || ro->max_rows == 0 || o->format == DC_FORMAT_CSV;
	dc_buf_init(&out);
	if (stream) {
		out.flush = sink_write;
		out.flush_ctx = &s;
	}
	switch (o->format) {
	case DC_FORMAT_JSON: rendered = dc_report_render_json(report, ro, &out) == 0; break;
	case DC_FORMAT_CSV: rendered = dc_report_render_csv(report, ro, &out) == 0; break;
	default: rendered = dc_report_render_table(report, ro, &out) == 0; break;
	}
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

/* --check and --check-max: renders the report as JSON in memory, compares
 * it with the stored one (`expected`, when --check) and with the budgets,
 * and prints one line per field that moved or exceeds its budget. */
static int check(struct dc_report *report, const struct dc_options *o, const struct dc_render_opts *ro,
		 const char *expected, size_t len)
{
	struct dc_buf json, lines;
	struct dc_check_result res;
	struct dc_diag d;
	size_t exceeded = 0;
	int rc = EXIT_OK;

	memset(&res, 0, sizeof(res));
	dc_buf_init(&json);
	dc_buf_init(&lines);
	dc_diag_init(&d);
	if (dc_report_render_json(report, ro, &json) != 0) {
		fprintf(stderr, "distcalc: error: out of memory while rendering the report\n");
		rc = EXIT_INTERNAL;
	} else if ((o->check && dc_check_compare_only(expected, len, o->check, json.data, json.len, o->rtol,
						      o->check_only, &lines, &res, &d) != 0) ||
		   (o->nmaxes && dc_check_budgets(json.data, json.len, o->maxes, o->nmaxes, &lines, &exceeded, &d) != 0)) {
		print_diag(&d, 0);
		rc = exit_for(d.status);
	} else {
		if (lines.len && write_all(STDOUT_FILENO, lines.data, lines.len) != 0) {
			fprintf(stderr, "distcalc: error: cannot write to standard output: %s\n", strerror(errno));
			rc = EXIT_OUTPUT;
		} else {
			if (o->check)
				fprintf(stderr, "distcalc: check '%s': %zu fields compared, %zu moved (rtol %g)\n", o->check,
					res.compared, res.differences, o->rtol);
			if (o->nmaxes)
				fprintf(stderr, "distcalc: check-max: %zu budget%s, %zu exceeded\n", o->nmaxes,
					o->nmaxes == 1 ? "" : "s", exceeded);
			rc = res.differences || exceeded ? EXIT_CHECK : EXIT_OK;
		}
	}
	dc_diag_release(&d);
	dc_buf_release(&json);
	dc_buf_release(&lines);
	return rc;
}

int main(int argc, char **argv)
{
	struct dc_options o;
	struct dc_config cfg;
	struct dc_diag diag;
	struct dc_report *report = NULL;
	struct dc_render_opts ro;
	struct dc_run_info info;
	struct dc_load_opts lo;
	const struct dc_experiment *exp;
	int rc, load_rc;
	char *expected = NULL, stored_only[256];
	size_t expected_len = 0;

	/* Over a file-size limit (ulimit -f) the kernel sends SIGXFSZ, which
	 * kills the process and strands the temporary file; ignored, the write
	 * fails with EFBIG and is reported like any other. */
	signal(SIGXFSZ, SIG_IGN);
	dc_diag_init(&diag);
	if (dc_options_parse(argc, (const char *const *)argv, &o, &diag) != 0) {
		rc = parse_failed(&diag);
		goto done;
	}
	if (o.action == DC_OPTIONS_HELP) {
		rc = print_help();
		goto done;
	}
	if (o.action == DC_OPTIONS_VERSION) {
		rc = print_version();
		goto done;
	}
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
	info.only = o.only;
	if (o.check) {
		size_t before = diag.count;
		if (!(expected = dc_check_read_file(o.check, DC_CHECK_MAX_BYTES, &expected_len, &diag))) {
			print_diag(&diag, before);
			rc = exit_for(diag.status);
			goto done;
		}
		/* a report written with --only holds those sections: compare them */
		if (!o.only && dc_check_stored_only(expected, expected_len, stored_only, sizeof(stored_only))) {
			info.only = stored_only;
			fprintf(stderr, "distcalc: check '%s': it holds --only %s; comparing those sections\n",
				o.check, stored_only);
		}
	}
	report = dc_experiment_run(exp, &cfg, &info, &diag);
	print_diag(&diag, 0);
	if (!report) {
		rc = exit_for(diag.status);
		goto done;
	}
	ro.max_rows = o.all_rows ? 0 : DC_EXCERPT_ROWS;
	ro.width = DC_TABLE_WIDTH;
	rc = o.check || o.nmaxes ? check(report, &o, &ro, expected, expected_len) : emit(report, &o, &ro);
done:
	free(expected);
	dc_report_free(report);
	dc_diag_release(&diag);
	dc_options_release(&o);
	return rc;
}
