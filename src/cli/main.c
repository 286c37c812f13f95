/* main.c - the distcalc command line: exit codes, output, --check.
 *
 * Everything else lives in distcalc_core (the option table in options.c);
 * this file alone prints to the terminal and chooses the exit status.
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "distcalc/calibrate.h"
#include "distcalc/calibrate_compute.h"
#include "distcalc/catalogue.h"
#include "distcalc/check.h"
#include "distcalc/config.h"
#include "distcalc/diag.h"
#include "distcalc/experiment.h"
#include "distcalc/import.h"
#include "distcalc/nccl_log.h"
#include "distcalc/options.h"
#include "distcalc/report.h"
#include "distcalc/search.h"
#include "distcalc/section.h"
#include "distcalc/svg.h"
#include "distcalc/sweep.h"
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

static void print_diag(const struct dc_diag *d, size_t from);

/* --list-models: the catalogue, one model a line, on stdout. */
static int list_models(void)
{
	struct dc_catalogue_entry *e = NULL;
	struct dc_diag d;
	struct dc_buf out;
	size_t n = 0;
	int rc = EXIT_OK;

	dc_diag_init(&d);
	if (dc_catalogue_list(&e, &n, &d) != 0) {
		print_diag(&d, 0);
		rc = d.status == DC_ERR_INTERNAL ? EXIT_INTERNAL : EXIT_INPUT;
		dc_diag_release(&d);
		return rc;
	}
	dc_buf_init(&out);
	dc_buf_printf(&out, "%-28s %-14s %18s  %s\n", "model", "family", "parameters", "");
	dc_buf_printf(&out, "%-28s %-14s %18s  %s\n", "", "", "count", "");
	for (size_t i = 0; i < n; i++) {
		if (e[i].error)
			dc_buf_printf(&out, "%-28s %-14s %18s  (does not load: see --model %s)\n", e[i].name, "-", "-",
				      e[i].name);
		else
			dc_buf_printf(&out, "%-28s %-14s %18llu  %.2fB\n", e[i].name, e[i].family,
				      (unsigned long long)e[i].params, (double)e[i].params / 1e9);
	}
	if (out.failed) {
		fprintf(stderr, "distcalc: error: out of memory\n");
		rc = EXIT_INTERNAL;
	} else if (fputs(out.data, stdout) == EOF || fflush(stdout) != 0) {
		fprintf(stderr, "distcalc: error: cannot write to standard output: %s\n", strerror(errno));
		rc = EXIT_OUTPUT;
	}
	dc_buf_release(&out);
	dc_catalogue_list_free(e, n);
	dc_diag_release(&d);
	return rc;
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

/* One diag line on stderr. Its lines (a syntax error brings the source
 * line and a caret) print with control bytes and bytes that are not UTF-8
 * escaped: a file name with a newline or ESC cannot forge a line or drive
 * the terminal. */
static void print_line(const char *prefix, const char *t)
{
	struct dc_buf b;
	dc_buf_init(&b);
	dc_buf_puts(&b, prefix);
	for (const char *p = t;;) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);
		char *part = dc_strndup(p, n);
		if (!part) {
			b.failed = 1;
			break;
		}
		dc_buf_printable(&b, part);
		free(part);
		dc_buf_putc(&b, '\n');
		if (!nl)
			break;
		p = nl + 1;
	}
	if (b.failed)
		fprintf(stderr, "%s%s\n", prefix, t); /* out of memory: as it is */
	else
		fputs(b.data, stderr);
	dc_buf_release(&b);
}

static void print_diag(const struct dc_diag *d, size_t from)
{
	for (size_t i = from; i < d->count; i++)
		print_line(d->entries[i].severity == DC_SEV_WARNING ? "distcalc: warning: " : "",
			   d->entries[i].text);
	if (d->oom)
		fprintf(stderr, "distcalc: error: out of memory while reporting errors\n");
}

/* A warning made before the run (the importer's, --model over an
 * import's model, a synthetic profile): printed at once, where it arises,
 * and kept in `early`, which the report lists and counts with its own
 * (dc_run_info.early_warnings). */
static void keep_warnings(struct dc_diag *early, const struct dc_diag *d)
{
	for (size_t i = 0; i < d->count; i++)
		if (d->entries[i].severity == DC_SEV_WARNING)
			dc_diag_add(early, DC_SEV_WARNING, DC_OK, "%s", d->entries[i].text);
}

static void early_warning(struct dc_diag *early, char *text)
{
	if (!text) {
		dc_diag_oom(early);
		return;
	}
	print_line("distcalc: warning: ", text);
	dc_diag_add(early, DC_SEV_WARNING, DC_OK, "%s", text);
	free(text);
}

/* whether a --sweep axis opens with `prefix` ("parallel.tp=", "cluster.") */
static int sweeps_key(const struct dc_options *o, const char *prefix)
{
	for (size_t i = 0; i < o->nsweeps; i++)
		if (strncmp(o->sweeps[i], prefix, strlen(prefix)) == 0)
			return 1;
	return 0;
}

/* a --calibrate-compute profile that says it was not measured: a heap
 * text for early_warning (NULL out of memory) */
static char *synthetic_profile(const char *path)
{
	return dc_asprintf("'%s' says it is synthetic (derived from published figures, not measured)", path);
}

/* After a failed dc_options_parse: the error, then for a usage error the
 * synopsis and a hint (not for a bad value of a well-formed option,
 * `value_error`: the line says what to write). Returns the exit code. */
static int parse_failed(const struct dc_diag *d, int value_error)
{
	print_diag(d, 0);
	if (d->status == DC_ERR_USAGE && !value_error)
		fprintf(stderr, "%sTry 'distcalc --help' for more information.\n", dc_options_usage);
	return exit_for(d->status);
}

/* A descriptor 0, 1 or 2 closed when distcalc starts (`>&-`) would be
 * the next file opened: --trace's temporary file would become standard
 * output and take the report. Each closed one is opened on /dev/null
 * first, standard output read-only, so that writing the report still
 * fails (EBADF) and exits 5 as on a closed descriptor, and no output
 * ever gets descriptor 0, 1 or 2. Returns 0, or -1 when /dev/null
 * cannot be opened there. */
static int hold_std_fds(void)
{
	for (int fd = STDIN_FILENO; fd <= STDERR_FILENO; fd++) {
		int got;
		if (fcntl(fd, F_GETFD) != -1 || errno != EBADF)
			continue;
		/* every lower descriptor is open: open() returns this one */
		got = open("/dev/null", fd == STDERR_FILENO ? O_WRONLY : O_RDONLY);
		if (got != fd) {
			if (got >= 0)
				close(got);
			return -1;
		}
	}
	return 0;
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
 * over it would replace the node) or a descriptor (/dev/stdout), or a
 * temporary file in the target's directory (symlinks followed) renamed
 * over the target at the end, so readers see the old file or the whole
 * new one, never a part. docs/reliability.md lists the promises. */
enum sink_kind {
	SINK_STDOUT,
	SINK_IN_PLACE,
	SINK_ATOMIC,
};

struct sink {
	enum sink_kind kind;
	const char *path;   /* as given: errors name it */
	char *target;       /* the file replaced: `path` with its symlinks followed */
	char *dir;          /* the target's directory, synced after the rename */
	char *tmp;
	int fd;
	mode_t mode;
	uid_t uid;       /* with keep_owner: the replaced file's owner and group */
	gid_t gid;
	int keep_owner;  /* an existing file is replaced: its owner and group are given back at the commit */
	int err;  /* errno of the first failed write */
	int slot; /* SINK_ATOMIC: its place in sink_tmp_path */
};

/* SIGHUP, SIGINT or SIGTERM while the temporary file exists removes it
 * and ends the process with that signal, so no partial report stays
 * behind. The handler may make only async-signal-safe calls, so the name
 * waits in a static buffer; a signal ignored at startup (nohup, a
 * background job's SIGINT) stays ignored. Three may be open at once: the
 * --trace and --plot files, made before the report is printed, and
 * --output's. All three signals are blocked while the handler runs (its
 * sa_mask), so a second signal (timeout(1) signals the child and then its
 * group; a supervisor signals twice) waits until every file is gone
 * instead of killing the process between two unlinks. */
#define SINK_SLOTS 3
static const int sink_signals[] = {SIGHUP, SIGINT, SIGTERM};
static char sink_tmp_path[SINK_SLOTS][PATH_MAX];
static volatile sig_atomic_t sink_tmp_armed[SINK_SLOTS];

static void sink_on_signal(int sig)
{
	struct sigaction dfl;
	sigset_t only;
	for (int i = 0; i < SINK_SLOTS; i++)
		if (sink_tmp_armed[i]) {
			unlink(sink_tmp_path[i]);
			sink_tmp_armed[i] = 0;
		}
	/* the default action, then the signal again: it waits, blocked,
	 * until unblocked below, and ends the process with its status */
	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	sigemptyset(&dfl.sa_mask);
	sigaction(sig, &dfl, NULL);
	raise(sig);
	sigemptyset(&only);
	sigaddset(&only, sig);
	/* pthread_sigmask, not sigprocmask: the latter is unspecified in a
	 * process with threads (the search's, the streamed check's) */
	pthread_sigmask(SIG_UNBLOCK, &only, NULL);
	_exit(128 + sig);
}

static void sink_catch_signals(void)
{
	struct sigaction sa, old;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = sink_on_signal;
	sa.sa_flags = 0;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof(sink_signals) / sizeof(sink_signals[0]); i++)
		sigaddset(&sa.sa_mask, sink_signals[i]);
	for (size_t i = 0; i < sizeof(sink_signals) / sizeof(sink_signals[0]); i++)
		if (sigaction(sink_signals[i], NULL, &old) == 0 && old.sa_handler != SIG_IGN && old.sa_handler != sink_on_signal)
			sigaction(sink_signals[i], &sa, NULL);
}

/* Blocks the signals while the temporary file is created, renamed or
 * removed, so the handler never sees a name half set up or gone. */
static void sink_block_signals(sigset_t *old)
{
	sigset_t set;
	sigemptyset(&set);
	for (size_t i = 0; i < sizeof(sink_signals) / sizeof(sink_signals[0]); i++)
		sigaddset(&set, sink_signals[i]);
	pthread_sigmask(SIG_BLOCK, &set, old);
}

static void sink_unblock_signals(const sigset_t *old)
{
	pthread_sigmask(SIG_SETMASK, old, NULL);
}

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

/* Returns N when `path` names descriptor N of this process through
 * /dev/fd/N or /proc/self/fd/N (where /dev/stdout and /dev/stderr lead),
 * else -1. */
static int fd_path(const char *path)
{
	static const char *const prefixes[] = {"/dev/fd/", "/proc/self/fd/", "/proc/thread-self/fd/"};
	for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++) {
		size_t len = strlen(prefixes[i]);
		const char *p = path + len;
		long n = 0;
		if (strncmp(path, prefixes[i], len) != 0 || !*p)
			continue;
		for (; *p >= '0' && *p <= '9' && n < 1000000; p++)
			n = n * 10 + (*p - '0');
		return *p ? -1 : (int)n;
	}
	return -1;
}

/* Follows `path` while it names a symbolic link, so the report replaces
 * the file the link names and the link stays. Sets *target (owned) to the
 * last name, one that is not a link (or does not exist), and *fd to N when
 * a name on the way is descriptor N (/dev/stdout), else -1. Returns 0, or
 * -1 with errno (ELOOP past 40 links, ENOMEM). */
static int resolve(const char *path, char **target, int *fd)
{
	char link[PATH_MAX];
	char *cur = dc_strdup(path);

	for (int hops = 0; cur; hops++) {
		struct stat st;
		const char *slash;
		char *next;
		ssize_t n;

		if ((*fd = fd_path(cur)) >= 0 || lstat(cur, &st) != 0 || !S_ISLNK(st.st_mode)) {
			*target = cur; /* a name that cannot be read is reported when created */
			return 0;
		}
		if (hops == 40) {
			free(cur);
			errno = ELOOP;
			return -1;
		}
		n = readlink(cur, link, sizeof(link) - 1);
		if (n < 0 || (size_t)n >= sizeof(link) - 1) {
			if (n >= 0)
				errno = ENAMETOOLONG;
			free(cur);
			return -1;
		}
		link[n] = '\0';
		/* a relative link is relative to the directory holding it */
		slash = strrchr(cur, '/');
		if (link[0] == '/' || !slash)
			next = dc_strdup(link);
		else
			next = dc_asprintf("%.*s%s", (int)(slash - cur + 1), cur, link);
		free(cur);
		cur = next;
	}
	errno = ENOMEM;
	return -1;
}

/* Opens the sink for `path` (NULL: stdout). Returns EXIT_OK or an exit
 * code after printing why. */
static int sink_open(struct sink *s, const char *path)
{
	struct stat st;
	sigset_t mask;
	const char *slash;
	int fd, saved;

	memset(s, 0, sizeof(*s));
	s->path = path;
	s->fd = STDOUT_FILENO;
	if (!path)
		return EXIT_OK;
	s->mode = default_mode();
	if (resolve(path, &s->target, &fd) != 0) {
		if (errno == ENOMEM) {
			fprintf(stderr, "distcalc: error: out of memory\n");
			return EXIT_INTERNAL;
		}
		fprintf(stderr, "distcalc: error: cannot write '%s': %s\n", path, strerror(errno));
		return EXIT_OUTPUT;
	}
	if (fd >= 0) {
		/* /dev/stdout and the like: the descriptor itself, so that
		 * `>> log` appends and a pipe or socket works */
		s->kind = SINK_IN_PLACE;
		s->fd = dup(fd);
		if (s->fd < 0) {
			fprintf(stderr, "distcalc: error: cannot open '%s': %s\n", path, strerror(errno));
			return EXIT_OUTPUT;
		}
		return EXIT_OK;
	}
	if (stat(s->target, &st) == 0) {
		if (S_ISDIR(st.st_mode)) {
			fprintf(stderr, "distcalc: error: cannot write '%s': is a directory\n", path);
			return EXIT_OUTPUT;
		}
		if (!S_ISREG(st.st_mode)) {
			s->kind = SINK_IN_PLACE;
			s->fd = open(s->target, O_WRONLY | O_NOCTTY);
			if (s->fd < 0) {
				fprintf(stderr, "distcalc: error: cannot open '%s': %s\n", path, strerror(errno));
				return EXIT_OUTPUT;
			}
			return EXIT_OK;
		}
		/* The rename needs only the directory, so a read-only file
		 * would be replaced without a word: refuse it, as an editor or
		 * cp would. No write bit at all counts even for root. */
		if ((st.st_mode & 0222) == 0 || access(s->target, W_OK) != 0) {
			fprintf(stderr, "distcalc: error: cannot write '%s': %s\n", path,
				(st.st_mode & 0222) == 0 || errno == EACCES ? "it is read-only" : strerror(errno));
			return EXIT_OUTPUT;
		}
		s->mode = st.st_mode & 07777; /* an existing file keeps its permissions */
		/* and its owner and group, where this process may give them
		 * (root, or a group it is in): a shared directory's group
		 * would otherwise fall to the writer's own (a trial) */
		s->uid = st.st_uid;
		s->gid = st.st_gid;
		s->keep_owner = 1; /* compared with the new file's at the commit */
	}
	s->kind = SINK_ATOMIC;
	/* A short name beside the target: "<name>.tmp.XXXXXX" would pass
	 * NAME_MAX for a name the filesystem itself accepts. */
	slash = strrchr(s->target, '/');
	if (!slash) {
		s->dir = dc_strdup(".");
		s->tmp = dc_strdup(".dc-XXXXXX");
	} else {
		s->dir = slash == s->target ? dc_strdup("/") : dc_asprintf("%.*s", (int)(slash - s->target), s->target);
		s->tmp = dc_asprintf("%.*s/.dc-XXXXXX", (int)(slash - s->target), s->target);
	}
	if (!s->tmp || !s->dir) {
		fprintf(stderr, "distcalc: error: out of memory\n");
		return EXIT_INTERNAL;
	}
	if (strlen(s->tmp) >= sizeof(sink_tmp_path[0])) {
		fprintf(stderr, "distcalc: error: cannot create '%s': %s\n", path, strerror(ENAMETOOLONG));
		return EXIT_OUTPUT;
	}
	sink_block_signals(&mask);
	sink_catch_signals();
	for (s->slot = 0; s->slot < SINK_SLOTS - 1 && sink_tmp_armed[s->slot]; s->slot++)
		;
	if (sink_tmp_armed[s->slot]) {
		/* not reached: at most the trace's, the chart's and the report's are open */
		sink_unblock_signals(&mask);
		fprintf(stderr, "distcalc: error: cannot create '%s': more than %d output files at once\n", path,
			SINK_SLOTS);
		return EXIT_INTERNAL;
	}
	s->fd = mkstemp(s->tmp);
	saved = errno;
	if (s->fd >= 0) {
		memcpy(sink_tmp_path[s->slot], s->tmp, strlen(s->tmp) + 1);
		sink_tmp_armed[s->slot] = 1;
	}
	sink_unblock_signals(&mask);
	if (s->fd < 0) {
		fprintf(stderr, "distcalc: error: cannot create '%s': %s\n", path, strerror(saved));
		free(s->tmp);
		s->tmp = NULL;
		return EXIT_OUTPUT;
	}
	return EXIT_OK;
}

/* Frees what the sink holds (after sink_commit, sink_abort or a failed
 * sink_open). */
static void sink_release(struct sink *s)
{
	free(s->tmp);
	free(s->target);
	free(s->dir);
	s->tmp = NULL;
	s->target = NULL;
	s->dir = NULL;
}

/* Drops a sink after a failure: the temporary file goes, the target stays
 * as it was. */
static void sink_abort(struct sink *s)
{
	sigset_t mask;
	if (s->kind == SINK_ATOMIC && s->tmp) {
		close(s->fd);
		sink_block_signals(&mask);
		unlink(s->tmp);
		sink_tmp_armed[s->slot] = 0;
		sink_unblock_signals(&mask);
	} else if (s->kind == SINK_IN_PLACE) {
		close(s->fd);
	}
}

/* After the rename: syncs the directory, so that after a crash the name
 * holds the new report (the data were synced before the rename; without
 * this a crash could bring the old file back). A directory that cannot be
 * opened for reading, or a filesystem that cannot sync one (EINVAL), is
 * let be; any other failure is an error. Returns an exit code. */
static int sync_dir(const struct sink *s)
{
	int rc = EXIT_OK;
	int fd = open(s->dir, O_RDONLY | O_DIRECTORY);
	if (fd < 0)
		return EXIT_OK;
	if (fsync(fd) != 0 && errno != EINVAL && errno != EROFS) {
		fprintf(stderr, "distcalc: error: cannot write '%s': syncing its directory: %s\n", s->path,
			strerror(errno));
		rc = EXIT_OUTPUT;
	}
	close(fd);
	return rc;
}

/* Finishes a sink whose every write succeeded. Returns an exit code. */
static int sink_commit(struct sink *s)
{
	sigset_t mask;
	int saved, failed;
	if (s->kind == SINK_STDOUT)
		return EXIT_OK;
	if (s->kind == SINK_IN_PLACE) {
		if (close(s->fd) != 0) {
			fprintf(stderr, "distcalc: error: cannot write '%s': %s\n", s->path, strerror(errno));
			return EXIT_OUTPUT;
		}
		return EXIT_OK;
	}
	/* the owner first: a change of owner may clear set-id bits, which
	 * the mode then restores; one this process may not give is left as
	 * the new file has it (no error: the report is whole) */
	{
		/* against what the new file got (a setgid directory gives
		 * its own group: a review) */
		struct stat now;
		if (s->keep_owner && fstat(s->fd, &now) == 0 && (now.st_uid != s->uid || now.st_gid != s->gid) &&
		    fchown(s->fd, s->uid, s->gid) != 0 && fchown(s->fd, (uid_t)-1, s->gid) != 0)
			errno = 0;
	}
	failed = fsync(s->fd) != 0 || fchmod(s->fd, s->mode) != 0;
	saved = errno;
	if (close(s->fd) != 0 && !failed) {
		failed = 1;
		saved = errno;
	}
	sink_block_signals(&mask);
	if (!failed && rename(s->tmp, s->target) != 0) {
		failed = 1;
		saved = errno;
	}
	if (failed)
		unlink(s->tmp);
	sink_tmp_armed[s->slot] = 0;
	sink_unblock_signals(&mask);
	if (failed) {
		fprintf(stderr, "distcalc: error: cannot write '%s': %s\n", s->path, strerror(saved));
		return EXIT_OUTPUT;
	}
	return sync_dir(s);
}

/* After a failed render that could still write: why (a row to print held
 * a number that is not finite, a bug; else out of memory). */
static void render_failed(const struct dc_report *report)
{
	const char *why = dc_report_render_error(report);
	if (why)
		print_line("", why);
	else
		fprintf(stderr, "distcalc: error: out of memory while rendering the report\n");
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
	if (rc != EXIT_OK) {
		sink_release(&s);
		return rc;
	}
	stream = s.kind == SINK_ATOMIC || ro->max_rows == 0 || o->format == DC_FORMAT_CSV;
	dc_buf_init(&out);
	if (stream) {
		out.flush = sink_write;
		out.flush_ctx = &s;
	}
	switch (o->format) {
	case DC_FORMAT_JSON: rendered = dc_report_render_json(report, ro, &out) == 0; break;
	case DC_FORMAT_CSV: rendered = dc_report_render_csv(report, ro, &out) == 0; break;
	case DC_FORMAT_MARKDOWN: rendered = dc_report_render_markdown(report, ro, &out) == 0; break;
	case DC_FORMAT_HTML: rendered = dc_report_render_html(report, ro, &out) == 0; break;
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
			render_failed(report);
		rc = written ? EXIT_INTERNAL : EXIT_OUTPUT;
		sink_abort(&s);
	} else {
		rc = sink_commit(&s);
	}
	sink_release(&s);
	dc_buf_release(&out);
	return rc;
}

/* The side outputs, --trace FILE and --plot FILE.svg, are made before the
 * report is printed, so that one that cannot be made (a trace of one
 * rank or with no step time, a chart with nothing to draw) stops the run
 * before anything reaches standard output: a file is rendered into its
 * temporary file, a device or descriptor (/dev/stdout) into memory, and
 * side_finish commits it after the report, or drops it when the report
 * failed. */
struct side_out {
	struct sink s;
	struct dc_buf buf;
	int open;
};

static int trace_prepare(struct dc_report *report, const struct dc_options *o, struct side_out *t)
{
	const char *why = NULL;
	int rc = sink_open(&t->s, o->trace);
	dc_buf_init(&t->buf);
	if (rc != EXIT_OK) {
		sink_release(&t->s);
		return rc;
	}
	if (t->s.kind == SINK_ATOMIC) {
		t->buf.flush = sink_write;
		t->buf.flush_ctx = &t->s;
	}
	if (dc_report_render_trace(report, &t->buf, &why) != 0 ||
	    (t->s.kind == SINK_ATOMIC && dc_buf_flush(&t->buf) != 0)) {
		if (t->buf.flush_failed) {
			fprintf(stderr, "distcalc: error: cannot write '%s': %s\n", t->s.path, strerror(t->s.err));
			rc = EXIT_OUTPUT;
		} else {
			fprintf(stderr, "distcalc: error: '--trace': %s\n", why ? why : "out of memory");
			rc = why && strcmp(why, "out of memory") != 0 ? EXIT_CONFIG : EXIT_INTERNAL;
		}
		sink_abort(&t->s);
		sink_release(&t->s);
		dc_buf_release(&t->buf);
		return rc;
	}
	t->open = 1;
	return EXIT_OK;
}

/* Commits the prepared side output when `ok` (the report went out), else
 * drops it. Returns an exit code. */
static int side_finish(struct side_out *t, int ok)
{
	int rc = EXIT_OK;
	if (!t->open)
		return EXIT_OK;
	t->open = 0;
	if (ok && t->s.kind != SINK_ATOMIC && sink_write(&t->s, t->buf.data, t->buf.len) != 0) {
		fprintf(stderr, "distcalc: error: cannot write '%s': %s\n", t->s.path, strerror(t->s.err));
		rc = EXIT_OUTPUT;
		ok = 0;
	}
	if (ok)
		rc = sink_commit(&t->s);
	else
		sink_abort(&t->s);
	sink_release(&t->s);
	dc_buf_release(&t->buf);
	return rc;
}

/* A side output after the run's own exit code rc: kept where the report
 * was made, even when a --check or a budget failed (EXIT_CHECK: the chart
 * and the trace are what a reviewer of that failure looks at), dropped
 * otherwise. Returns rc, or the side output's own failure where writing
 * it failed (a file not written outranks a budget moved). */
static int side_finish_after(struct side_out *t, int rc)
{
	int src = side_finish(t, rc == EXIT_OK || rc == EXIT_CHECK);
	return src != EXIT_OK ? src : rc;
}

/* --config -: the config read from standard input, once, before anything
 * loads it; every load of the command's config then takes these bytes,
 * named "-" (a relative model.hf_config or cluster.topology_file in them
 * is relative to the current directory, as in any config not read from a
 * file). NULL text: --config names a file, or is not given. */
static struct {
	char *text;
	size_t len;
} stdin_config;

/* Loads the command's own config (not an imported one): the bytes
 * --config - read, --config FILE, or the built-in default. */
static int load_command_config(const struct dc_options *o, const struct dc_load_opts *lo, struct dc_config *cfg,
			       struct dc_diag *d)
{
	if (stdin_config.text)
		return dc_config_load_buffer_opts(stdin_config.text, stdin_config.len, "-", lo, cfg, d);
	if (o->config)
		return dc_config_load_file_opts(o->config, lo, cfg, d);
	return dc_config_load_buffer_opts(dc_default_config, dc_default_config_len, "configs/systems.json", lo, cfg, d);
}

/* -o onto a file this run reads (the same inode, through any link) would
 * replace an input with the report: refuse. Devices are left alone:
 * --config /dev/stdin with -o /dev/stdout may be one terminal. Returns
 * EXIT_OK, or EXIT_USAGE after printing why. */
static int output_not_input_as(const struct dc_options *o, const char *option);

static int output_not_input(const struct dc_options *o)
{
	return output_not_input_as(o, "--output");
}

static int output_not_input_as(const struct dc_options *o, const char *option)
{
	const char *const options[] = {"--config", "--model", "--check",
				       o->import ? dc_import_option((enum dc_import_format)o->import_format) : "--from",
				       "--calibrate-compute"};
	const char *const paths[] = {o->config, o->model, o->check, o->import, o->calibrate_compute};
	struct stat out, in;

	if (o->trace) {
		struct dc_options t = *o;
		int rc;
		t.output = o->trace;
		t.trace = NULL;
		if (o->output && strcmp(o->output, o->trace) == 0) {
			fprintf(stderr, "distcalc: error: '--trace': '%s' is the '--output' file too\n", o->trace);
			return EXIT_USAGE;
		}
		if ((rc = output_not_input_as(&t, "--trace")) != EXIT_OK)
			return rc;
	}

	if (o->plot) {
		struct dc_options t = *o;
		int rc;
		t.output = o->plot;
		t.plot = NULL;
		t.trace = NULL;
		if (o->trace && strcmp(o->trace, o->plot) == 0) {
			fprintf(stderr, "distcalc: error: '--plot': '%s' is the '--trace' file too\n", o->plot);
			return EXIT_USAGE;
		}
		if ((rc = output_not_input_as(&t, "--plot")) != EXIT_OK)
			return rc;
	}

	if (!o->output || stat(o->output, &out) != 0 || !S_ISREG(out.st_mode))
		return EXIT_OK;
	for (size_t i = 0; i < o->ncalibrate; i++) {
		if (stat(o->calibrate[i], &in) == 0 && in.st_dev == out.st_dev && in.st_ino == out.st_ino) {
			fprintf(stderr,
				"distcalc: error: '%s': '%s' is the '--calibrate' file '%s'; "
				"refusing to overwrite an input\n",
				option, o->output, o->calibrate[i]);
			return EXIT_USAGE;
		}
	}
	for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
		/* "-" (--config, --check) is standard input: the file behind
		 * it, when it is one (`-c - <plan.json -o plan.json`) */
		int got = paths[i] && (strcmp(paths[i], "-") == 0 ? fstat(STDIN_FILENO, &in) == 0 && S_ISREG(in.st_mode)
								  : stat(paths[i], &in) == 0);
		if (got && in.st_dev == out.st_dev && in.st_ino == out.st_ino) {
			fprintf(stderr,
				"distcalc: error: '%s': '%s' is the '%s' file '%s'; "
				"refusing to overwrite an input\n",
				option, o->output, options[i], paths[i]);
			return EXIT_USAGE;
		}
	}
	return EXIT_OK;
}

/* The outputs against the files the config named (model.hf_config,
 * cluster.topology_file, resolved as the loader read them) and against
 * each other, by device and inode: a name that differs (./t.txt, a hard
 * link, a symlink) is still the same file. Run once the config loaded,
 * before anything is written. Returns EXIT_OK, or EXIT_USAGE after
 * printing why. */
static int outputs_not_config_inputs(const struct dc_options *o, const struct dc_config *cfg)
{
	const char *const out_opts[] = {"--output", "--trace", "--plot"};
	const char *const outs[] = {o->output, o->trace, o->plot};
	const char *const in_keys[] = {"model.hf_config", "cluster.topology_file"};
	const char *const ins[] = {cfg->model.hf_config, cfg->cluster.topology_file};
	struct stat os[3], is;
	int have[3];

	for (size_t k = 0; k < 3; k++) {
		have[k] = outs[k] && stat(outs[k], &os[k]) == 0 && S_ISREG(os[k].st_mode);
		if (!have[k])
			continue;
		for (size_t i = 0; i < 2; i++)
			if (ins[i][0] && stat(ins[i], &is) == 0 && is.st_dev == os[k].st_dev && is.st_ino == os[k].st_ino) {
				fprintf(stderr,
					"distcalc: error: '%s': '%s' is the file '%s' the config names ('%s'); "
					"refusing to overwrite an input\n",
					out_opts[k], outs[k], ins[i], in_keys[i]);
				return EXIT_USAGE;
			}
		for (size_t j = 0; j < k; j++)
			if (have[j] && os[j].st_dev == os[k].st_dev && os[j].st_ino == os[k].st_ino) {
				fprintf(stderr, "distcalc: error: '%s': '%s' is the '%s' file '%s' too\n", out_opts[k], outs[k],
					out_opts[j], outs[j]);
				return EXIT_USAGE;
			}
	}
	return EXIT_OK;
}

/* A sweep over a key that names a file (cluster.topology_file,
 * model.hf_config): every value is an input of the points that take it,
 * read as a --set reads it (relative to the current directory; a model
 * name is the catalogue's file). The outputs are compared with each, by
 * device and inode, before any point runs; the error names the first
 * point taking the value (points count from 0, the first axis slowest,
 * as the sweep's rows). Returns EXIT_OK, or EXIT_USAGE after printing
 * why. */
static int outputs_not_sweep_inputs(const struct dc_options *o)
{
	const char *const out_opts[] = {"--output", "--trace", "--plot"};
	const char *const outs[] = {o->output, o->trace, o->plot};
	size_t nvalues[DC_SWEEP_MAX_AXES], stride = 1;

	for (size_t a = 0; a < o->nsweeps && a < DC_SWEEP_MAX_AXES; a++) {
		const char *v = strchr(o->sweeps[a], '=');
		nvalues[a] = 1;
		for (v = v ? v + 1 : ""; *(v += dc_sweep_value_len(v)); v++)
			nvalues[a]++;
	}
	for (size_t a = o->nsweeps < DC_SWEEP_MAX_AXES ? o->nsweeps : DC_SWEEP_MAX_AXES; a-- > 0;) {
		const char *axis = o->sweeps[a], *eq = strchr(axis, '='), *v;
		size_t keylen = eq ? (size_t)(eq - axis) : 0;
		int hf = keylen == 15 && strncmp(axis, "model.hf_config", 15) == 0;
		int topo = keylen == 21 && strncmp(axis, "cluster.topology_file", 21) == 0;
		size_t j = 0;
		if (hf || topo) {
			for (v = eq + 1;; j++) {
				char value[DC_SWEEP_MAX_VALUE + 1], path[PATH_MAX];
				size_t n;
				const char *t = dc_sweep_value_trim(v, dc_sweep_value_len(v), &n);
				struct stat is, os;
				if (n > DC_SWEEP_MAX_VALUE)
					n = DC_SWEEP_MAX_VALUE;
				memcpy(value, t, n);
				value[n] = '\0';
				snprintf(path, sizeof(path), "%s", value);
				if (hf && dc_catalogue_is_name(value)) {
					struct dc_diag scratch;
					dc_diag_init(&scratch);
					if (dc_catalogue_path(value, "'model.hf_config'", path, sizeof(path), &scratch) != 0)
						path[0] = '\0'; /* no such model: the point says so */
					dc_diag_release(&scratch);
				}
				for (size_t k = 0; k < 3 && path[0]; k++) {
					if (!outs[k] || stat(outs[k], &os) != 0 || !S_ISREG(os.st_mode) || stat(path, &is) != 0 ||
					    is.st_dev != os.st_dev || is.st_ino != os.st_ino)
						continue;
					fprintf(stderr,
						"distcalc: error: '%s': '%s' is the file '%s' sweep point %zu reads ('%.*s=%s'); "
						"refusing to overwrite an input\n",
						out_opts[k], outs[k], path, j * stride, (int)keylen, axis, value);
					return EXIT_USAGE;
				}
				v += dc_sweep_value_len(v);
				if (!*v)
					break;
				v++;
			}
		}
		stride *= nvalues[a];
	}
	return EXIT_OK;
}

/* Two --calibrate logs that are one file (another spelling, a link: by
 * device and inode, as the output guard compares) would weigh it double
 * in the fit: refused, naming both. EXIT_OK or EXIT_USAGE. */
static int calibrate_logs_distinct(const struct dc_options *o)
{
	for (size_t i = 0; i < o->ncalibrate; i++) {
		struct stat a, b;
		if (stat(o->calibrate[i], &a) != 0)
			continue; /* the reader says why it cannot open it */
		for (size_t j = 0; j < i; j++)
			if (stat(o->calibrate[j], &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino) {
				fprintf(stderr,
					"distcalc: error: '--calibrate': '%s' and '%s' are one file; a log fitted twice "
					"would weigh double\n",
					o->calibrate[j], o->calibrate[i]);
				return EXIT_USAGE;
			}
	}
	return EXIT_OK;
}

/* --calibrate: reads every log, fits the links they exercised and applies
 * the fit to *cfg. A bad log or a fit that cannot be made changes nothing.
 * Returns EXIT_OK, or an exit code after printing why. */
static int calibrate(const struct dc_options *o, struct dc_config *cfg, struct dc_calibration *cal,
		     struct dc_diag *diag)
{
	struct dc_nccl_log logs[DC_CALIB_MAX_LOGS];
	size_t n = 0, before = diag->count;
	int rc = EXIT_OK;

	if (o->ncalibrate > DC_CALIB_MAX_LOGS) {
		fprintf(stderr, "distcalc: error: '--calibrate': at most %d logs, got %zu\n", DC_CALIB_MAX_LOGS,
			o->ncalibrate);
		return EXIT_USAGE;
	}
	if ((rc = calibrate_logs_distinct(o)) != EXIT_OK)
		return rc;
	for (; n < o->ncalibrate; n++)
		if (dc_nccl_log_read(o->calibrate[n], &logs[n], diag) != 0)
			break;
	if (n < o->ncalibrate || dc_calibrate(cfg, logs, o->calibrate, n, cal, diag) != 0) {
		print_diag(diag, before);
		rc = exit_for(diag->status);
	}
	for (size_t i = 0; i < n; i++)
		dc_nccl_log_release(&logs[i]);
	return rc;
}

/* --plot FILE.svg: the report's chart, drawn into memory and, for a
 * file, into its temporary file before the report is printed (see
 * struct side_out); side_finish renames it over the target. A report
 * with nothing to draw is exit 2 with the reason. Returns an exit code. */
static int plot_prepare(struct dc_report *report, const char *path, struct side_out *p)
{
	const char *why = NULL;
	int rc = sink_open(&p->s, path);
	dc_buf_init(&p->buf);
	if (rc != EXIT_OK) {
		sink_release(&p->s);
		return rc;
	}
	if (dc_report_render_svg_why(report, &p->buf, &why) != 0) {
		if (why && strcmp(why, "out of memory") != 0) {
			fprintf(stderr, "distcalc: error: '--plot': %s\n", why);
			rc = EXIT_USAGE;
		} else {
			fprintf(stderr, "distcalc: error: out of memory while drawing '%s'\n", path);
			rc = EXIT_INTERNAL;
		}
	} else if (p->s.kind == SINK_ATOMIC && sink_write(&p->s, p->buf.data, p->buf.len) != 0) {
		fprintf(stderr, "distcalc: error: cannot write '%s': %s\n", path, strerror(p->s.err));
		rc = EXIT_OUTPUT;
	}
	if (rc != EXIT_OK) {
		sink_abort(&p->s);
		sink_release(&p->s);
		dc_buf_release(&p->buf);
		return rc;
	}
	if (p->s.kind == SINK_ATOMIC) {
		/* the file holds it now: only a device's copy waits in memory */
		dc_buf_release(&p->buf);
		dc_buf_init(&p->buf);
	}
	p->open = 1;
	return EXIT_OK;
}

struct render_json {
	struct dc_report *report;
	const struct dc_render_opts *ro;
};

/* --check: the new report's count fields compare exactly (check.h) */
static int report_is_count(const void *ctx, const char *path)
{
	return dc_report_path_is_count(ctx, path);
}

static int render_json_cb(void *ctx, struct dc_buf *b)
{
	struct render_json *rj = ctx;
	return dc_report_render_json(rj->report, rj->ro, b);
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
	if (!o->check) {
		/* budgets alone: the report streams through them as it is
		 * rendered, never held whole (docs/reliability.md) */
		struct dc_budget_stream *bs = dc_budget_stream_new(o->maxes, o->nmaxes);
		int failed = !bs;
		if (bs) {
			json.flush = dc_budget_stream_feed;
			json.flush_ctx = bs;
			failed = dc_report_render_json(report, ro, &json) != 0 || dc_buf_flush(&json) != 0;
			if (dc_budget_stream_finish(bs, &lines, &exceeded, &d) != 0 && !failed) {
				print_diag(&d, 0);
				rc = exit_for(d.status);
				goto out;
			}
		}
		if (failed) {
			render_failed(report);
			rc = EXIT_INTERNAL;
			goto out;
		}
		goto lines;
	}
	if (!expected) {
		/* a large stored report: both streamed, the budgets fed on the way
		 * (docs/reliability.md) */
		struct dc_budget_stream *bs = o->nmaxes ? dc_budget_stream_new(o->maxes, o->nmaxes) : NULL;
		struct render_json rj = {report, ro};
		if (o->nmaxes && !bs) {
			fprintf(stderr, "distcalc: error: out of memory while rendering the report\n");
			rc = EXIT_INTERNAL;
			goto out;
		}
		if (dc_check_compare_file(o->check, o->rtol, o->check_only, render_json_cb, &rj,
					  bs ? dc_budget_stream_feed : NULL, bs, &lines, &res, &d, report_is_count, report) != 0) {
			if (bs) { /* frees the stream; the compare's error is the one */
				struct dc_diag scratch;
				dc_diag_init(&scratch);
				dc_budget_stream_finish(bs, &json, &exceeded, &scratch);
				dc_diag_release(&scratch);
			}
			if (dc_report_render_error(report)) {
				/* the render stopped at a number that is not finite:
				 * that, not the compare's cut-off, is why */
				render_failed(report);
				rc = EXIT_INTERNAL;
				goto out;
			}
			print_diag(&d, 0);
			rc = exit_for(d.status);
			goto out;
		}
		if (bs && dc_budget_stream_finish(bs, &lines, &exceeded, &d) != 0) {
			print_diag(&d, 0);
			rc = exit_for(d.status);
			goto out;
		}
		goto lines;
	}
	if (dc_report_render_json(report, ro, &json) != 0) {
		render_failed(report);
		rc = EXIT_INTERNAL;
	} else if ((o->check && dc_check_compare_only(expected, len, o->check, json.data, json.len, o->rtol,
						      o->check_only, &lines, &res, &d, report_is_count, report) != 0) ||
		   (o->nmaxes && dc_check_budgets(json.data, json.len, o->maxes, o->nmaxes, &lines, &exceeded, &d) != 0)) {
		print_diag(&d, 0);
		rc = exit_for(d.status);
	} else {
	lines:
		/* the budgets' warnings (dc_budget_stream_finish): on stderr,
		 * never in the report (a --check of it would move) */
		print_diag(&d, 0);
		if (lines.len && write_all(STDOUT_FILENO, lines.data, lines.len) != 0) {
			fprintf(stderr, "distcalc: error: cannot write to standard output: %s\n", strerror(errno));
			rc = EXIT_OUTPUT;
		} else {
			if (o->check)
				fprintf(stderr, "distcalc: check '%s': %zu field%s compared, %zu moved (rtol %g)\n", o->check,
					res.compared, res.compared == 1 ? "" : "s", res.differences, o->rtol);
			size_t nmin = 0;
			for (size_t i = 0; i < o->nmaxes; i++)
				nmin += (size_t)o->maxes[i].min;
			if (o->nmaxes && !nmin)
				fprintf(stderr, "distcalc: check-max: %zu budget%s, %zu exceeded\n", o->nmaxes,
					o->nmaxes == 1 ? "" : "s", exceeded);
			else if (o->nmaxes && o->nmaxes == nmin)
				fprintf(stderr, "distcalc: check-min: %zu floor%s, %zu not met\n", nmin, nmin == 1 ? "" : "s",
					exceeded);
			else if (o->nmaxes)
				fprintf(stderr, "distcalc: check-max/check-min: %zu budget%s and %zu floor%s, %zu not met\n",
					o->nmaxes - nmin, o->nmaxes - nmin == 1 ? "" : "s", nmin, nmin == 1 ? "" : "s",
					exceeded);
			rc = res.differences || exceeded ? EXIT_CHECK : EXIT_OK;
		}
	}
out:
	dc_diag_release(&d);
	dc_buf_release(&json);
	dc_buf_release(&lines);
	return rc;
}

/* ---- --experiment search: the rate and the progress line on stderr ---- */

static double wall_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

struct progress {
	double start_s, last_s;
	int shown; /* a progress line is on the terminal */
};

/* After a second, on a terminal only: how far, and when it will end. */
static void progress_line(void *ctx, uint64_t done, uint64_t total)
{
	struct progress *p = ctx;
	double now = wall_s(), spent = now - p->start_s;
	if (spent < 1.0 || now - p->last_s < 0.2 || !total || done >= total)
		return;
	p->last_s = now;
	p->shown = 1;
	fprintf(stderr, "\rdistcalc: search: %3.0f%% of %llu layouts, about %.0f s left ", 100.0 * (double)done / (double)total,
		(unsigned long long)total, spent * (double)(total - done) / (double)done);
	fflush(stderr);
}

/* --calibrate and --calibrate-compute under --sweep: the logs and the
 * profile are read once, before any point runs (a bad one ends the run
 * as it ends a single run), and each point's config is fitted and given
 * the profile's levels exactly as a single run's is (calibrate() and
 * main()), so a point equals the --set run it stands for. */
struct sweep_calib {
	const struct dc_options *o;
	struct dc_nccl_log logs[DC_CALIB_MAX_LOGS];
	size_t nlogs;
	const struct dc_compute_profile *profile;
	struct dc_calibration cal;
};

static int sweep_prepare(void *ctx, struct dc_config *cfg, struct dc_run_info *info, struct dc_diag *diag)
{
	struct sweep_calib *sc = ctx;
	if (sc->nlogs) {
		if (dc_calibrate(cfg, sc->logs, sc->o->calibrate, sc->nlogs, &sc->cal, diag) != 0)
			return -1;
		info->calibration = &sc->cal;
	}
	if (sc->profile && dc_compute_profile_apply(sc->profile, cfg, diag) != 0)
		return -1;
	return 0;
}

static void sweep_finish(void *ctx, struct dc_run_info *info)
{
	struct sweep_calib *sc = ctx;
	dc_calibration_release(&sc->cal);
	info->calibration = NULL;
}

/* --sweep: one run per point of the grid, one report of rows (sweep.h),
 * rendered as any report; --plot draws its line charts. A sweep in which
 * no point ran exits 3 after printing why each did not. */
static size_t import_sets_from(const struct dc_options *o);

/* Whether every item of a stored --only names a sweep's report: the
 * section sweep or one of its tables (sweep.rows) */
static int sweep_sections_only(const char *only)
{
	for (const char *p = only; *p;) {
		size_t n = strcspn(p, ",");
		if (!((n == 5 && strncmp(p, "sweep", 5) == 0) || (n > 6 && strncmp(p, "sweep.", 6) == 0)))
			return 0;
		p += n + (p[n] == ',');
	}
	return 1;
}

static int sweep(const struct dc_experiment *exp, const struct dc_options *o, const char *imported, size_t imported_len,
		 const char *imported_name, struct dc_diag *early)
{
	struct dc_sweep_load sl;
	struct dc_run_info info;
	struct dc_render_opts ro;
	struct dc_diag diag;
	struct dc_report *report;
	struct side_out chart = {.open = 0};
	static struct sweep_calib sc; /* logs and a profile: off the stack */
	static struct dc_compute_profile profile;
	char *expected = NULL, stored_only[256];
	size_t expected_len = 0;
	int rc;

	memset(&sl, 0, sizeof(sl));
	memset(&info, 0, sizeof(info)); /* no calibration, no search progress */
	info.jobs = o->jobs;
	sl.config_path = o->config;
	sl.buf = dc_default_config;
	sl.len = dc_default_config_len;
	sl.name = "configs/systems.json";
	sl.model_file = o->model;
	sl.auto_layout = o->model && !o->config && !imported;
	if (stdin_config.text) {
		sl.config_path = NULL;
		sl.buf = stdin_config.text;
		sl.len = stdin_config.len;
		sl.name = "-";
	}
	if (imported) {
		sl.config_path = NULL;
		sl.buf = imported;
		sl.len = imported_len;
		sl.name = imported_name;
	}
	sl.sets = o->sets + (imported ? import_sets_from(o) : 0);
	sl.nsets = o->nsets - (imported ? import_sets_from(o) : 0);
	if (!o->config && !imported)
		fprintf(stderr, "distcalc: no --config given; using the built-in default (configs/systems.json as it was when distcalc was built; --config configs/systems.json runs the file as it is now)%s\n",
			o->model ? " with the model from --model" : "");
	info.experiment = exp->name;
	info.config_name = imported_name ? imported_name : o->config ? o->config : "built-in default (configs/systems.json)";
	info.seed = o->seed;
	info.early_warnings = early;
	info.only = o->only;
	dc_diag_init(&diag);
	{
		/* the outputs against the files the config names: the base
		 * config (the sweep's --set and --unset applied), when it loads */
		struct dc_config bc;
		struct dc_diag bd;
		struct dc_load_opts lo = {o->sets, o->nsets, o->model, o->model && !o->config};
		int loaded;
		dc_diag_init(&bd);
		loaded = load_command_config(o, &lo, &bc, &bd);
		dc_diag_release(&bd);
		if (loaded == 0 && (rc = outputs_not_config_inputs(o, &bc)) != EXIT_OK) {
			dc_diag_release(&diag);
			return rc;
		}
	}
	if ((rc = outputs_not_sweep_inputs(o)) != EXIT_OK) {
		dc_diag_release(&diag);
		return rc;
	}
	memset(&sc, 0, sizeof(sc));
	sc.o = o;
	if (o->ncalibrate > DC_CALIB_MAX_LOGS) {
		fprintf(stderr, "distcalc: error: '--calibrate': at most %d logs, got %zu\n", DC_CALIB_MAX_LOGS,
			o->ncalibrate);
		dc_diag_release(&diag);
		return EXIT_USAGE;
	}
	if ((rc = calibrate_logs_distinct(o)) != EXIT_OK) {
		dc_diag_release(&diag);
		return rc;
	}
	for (rc = EXIT_OK; sc.nlogs < o->ncalibrate; sc.nlogs++)
		if (dc_nccl_log_read(o->calibrate[sc.nlogs], &sc.logs[sc.nlogs], &diag) != 0) {
			print_diag(&diag, 0);
			rc = exit_for(diag.status);
			break;
		}
	if (rc == EXIT_OK && o->calibrate_compute) {
		if (dc_compute_profile_read(o->calibrate_compute, &profile, &diag) != 0) {
			print_diag(&diag, 0);
			rc = exit_for(diag.status);
		} else {
			sc.profile = &profile;
			if (profile.synthetic)
				early_warning(early, synthetic_profile(o->calibrate_compute));
		}
	}
	if (rc != EXIT_OK) {
		for (size_t i = 0; i < sc.nlogs; i++)
			dc_nccl_log_release(&sc.logs[i]);
		dc_diag_release(&diag);
		return rc;
	}
	sl.calibrate_logs = o->calibrate;
	sl.ncalibrate_logs = o->ncalibrate;
	sl.compute_profile = o->calibrate_compute;
	if (sc.nlogs || sc.profile) {
		sl.prepare = sweep_prepare;
		sl.finish = sweep_finish;
		sl.ctx = &sc;
	}
	/* the stored report, read before the points run: one written with
	 * --only holds those sections, and --check without --only compares
	 * them, as a single run's does (a CI trial's `--only sweep.rows`
	 * budget moved on every run: exit 6) */
	if (o->check && !(expected = dc_check_read_file(o->check, DC_CHECK_MAX_BYTES, &expected_len, &diag))) {
		for (size_t i = 0; i < sc.nlogs; i++)
			dc_nccl_log_release(&sc.logs[i]);
		print_diag(&diag, diag.count - 1);
		rc = exit_for(diag.status);
		dc_diag_release(&diag);
		return rc;
	}
	/* (a sweep's own sections alone: a single run's --only summary is no
	 * sweep's, and the comparison says what moved, as before; a review) */
	if (expected && !o->only && dc_check_stored_only(expected, expected_len, stored_only, sizeof(stored_only)) &&
	    sweep_sections_only(stored_only)) {
		info.only = stored_only;
		fprintf(stderr, "distcalc: check '%s': it holds --only %s; comparing those sections\n", o->check,
			stored_only);
	}
	report = dc_sweep_run(exp, &sl, o->sweeps, o->nsweeps, o->sweep_metrics, &info, &diag);
	for (size_t i = 0; i < sc.nlogs; i++)
		dc_nccl_log_release(&sc.logs[i]);
	print_diag(&diag, 0);
	if (!report) {
		/* a sweep's path or metric that names nothing: the line names
		 * what would be valid, as an unknown --only section's does
		 * (no synopsis: the options were read) */
		rc = exit_for(diag.status);
		free(expected);
		dc_diag_release(&diag);
		return rc;
	}
	/* every row: a sweep is at most DC_SWEEP_MAX_POINTS of them, and its
	 * middle is what one asked to see */
	ro.max_rows = 0;
	ro.width = DC_TABLE_WIDTH;
	/* the chart first: a sweep with nothing to draw stops before its
	 * rows are printed */
	if (o->plot && (rc = plot_prepare(report, o->plot, &chart)) != EXIT_OK) {
		free(expected);
		dc_report_free(report);
		dc_diag_release(&diag);
		return rc;
	}
	if (o->check || o->nmaxes) {
		rc = check(report, o, &ro, expected, expected_len);
		free(expected);
	} else {
		rc = emit(report, o, &ro);
	}
	rc = side_finish_after(&chart, rc);
	/* no point ran: the sweep's own failure, exit 3 (docs/sweeps.md),
	 * said whatever the checks found, as a single run's invalid config
	 * exits 3 before any check */
	if ((rc == EXIT_OK || rc == EXIT_CHECK) && dc_sweep_valid_points(report) == 0) {
		fprintf(stderr, "distcalc: error: '--sweep': no point of the sweep ran (each row says why)\n");
		rc = EXIT_CONFIG;
	} else if ((rc == EXIT_OK || rc == EXIT_CHECK) && dc_sweep_valid_points(report) < dc_sweep_points(report)) {
		/* the run still succeeds (docs/sweeps.md), but a CI log sees it
		 * (a CI trial's 3 of 4 invalid points left stderr empty); the
		 * gate named unless a floor on sweep.valid is given */
		size_t all = dc_sweep_points(report), ok = dc_sweep_valid_points(report), bad = all - ok;
		int gated = 0;
		for (size_t i = 0; i < o->nmaxes; i++)
			if (o->maxes[i].min && strcmp(o->maxes[i].path, "sweep.valid") == 0)
				gated = 1;
		fprintf(stderr, "distcalc: note: '--sweep': %zu of %zu points %s invalid (their rows say why)", bad, all,
			bad == 1 ? "is" : "are");
		if (!gated)
			fprintf(stderr, "; to fail on it: --check-min sweep.valid=%zu", all);
		fputc('\n', stderr);
	}
	dc_report_free(report);
	dc_diag_release(&diag);
	return rc;
}

/* After a failed load of an imported config: for each error about a key
 * the import set, where in the framework file it came from; once a key,
 * however many of its rules it broke. */
static void import_blame(const struct dc_import *imp, const char *file, const struct dc_diag *d)
{
	for (size_t i = 0; i < d->count; i++) {
		const char *key = d->entries[i].key;
		int said = 0;
		if (d->entries[i].severity != DC_SEV_ERROR || !key)
			continue;
		for (size_t j = 0; j < i && !said; j++)
			said = d->entries[j].severity == DC_SEV_ERROR && d->entries[j].key &&
			       strcmp(d->entries[j].key, key) == 0;
		if (said)
			continue;
		/* a DeepSpeed config names no model: its base config must (a
		 * trial read only "'model': required key is missing") */
		if (imp->format == DC_IMPORT_DEEPSPEED && strcmp(key, "model") == 0) {
			fprintf(stderr, "distcalc: note: a DeepSpeed config names no model: give one with --model NAME "
					"(--list-models) or FILE, or a --config with a model section\n");
			continue;
		}
		for (size_t k = 0; k < imp->nkeys; k++) {
			if (!imp->keys[k].json || strcmp(imp->keys[k].path, key) != 0)
				continue;
			if (imp->keys[k].line)
				fprintf(stderr, "distcalc: note: '%s' came from '%s' on line %u of ", key, imp->keys[k].from,
					imp->keys[k].line);
			else
				fprintf(stderr, "distcalc: note: '%s' came from %s in ", key, imp->keys[k].from);
			print_line("", file);
			break;
		}
	}
}

/* An error of the load names a cluster key: the cluster read may be
 * the defaults', not the config's */
static int cluster_refused(const struct dc_diag *d)
{
	for (size_t i = 0; i < d->count; i++)
		if (d->entries[i].severity == DC_SEV_ERROR &&
		    (!d->entries[i].key || strncmp(d->entries[i].key, "cluster", 7) == 0))
			return 1;
	return 0;
}

/* --emit-config --output DIR/FILE: the imported config with the files it
 * names relative to DIR (import_config), written instead of the text
 * loaded, whose paths are read from the current directory */
static struct {
	char *text;
	size_t len;
} emit_rebased;

/* --from-*: reads the framework file and the base config (--config, or the
 * built-in default), and writes the equivalent distcalc config into *text
 * (owned) and its name into *name (owned). Returns an exit code after
 * printing why. */
static int import_config(const struct dc_options *o, struct dc_import *imp, char **text, size_t *len, char **name,
			 struct dc_diag *early)
{
	struct dc_diag d;
	struct dc_buf out;
	char *base = NULL, *out_dir = NULL;
	size_t base_len = 0;
	int rc = EXIT_OK;
	const char *base_name = o->config ? o->config : "configs/systems.json";
	int gives_model = 0;
	char file_hf[256];

	*text = NULL;
	*name = NULL;
	dc_diag_init(&d);
	dc_buf_init(&out);
	if (dc_import_read((enum dc_import_format)o->import_format, o->import, imp, &d) != 0) {
		print_diag(&d, 0);
		if (imp->model_unresolved[0] && !o->model) {
			char *msg = dc_asprintf("%s: error: %s", o->import, imp->model_unresolved);
			print_line("", msg ? msg : imp->model_unresolved);
			free(msg);
		}
		rc = exit_for(d.status);
		goto done;
	}
	print_diag(&d, 0); /* warnings */
	keep_warnings(early, &d);
	dc_diag_release(&d);
	/* whether the file gives a model (Megatron's shape arguments,
	 * torchtitan's name and flavor), before --set adds to it: a DeepSpeed
	 * config names none, and --model is how one gives it */
	for (size_t i = 0; i < imp->nkeys; i++)
		gives_model |= strncmp(imp->keys[i].path, "model.", 6) == 0 &&
			       strcmp(imp->keys[i].path, "model.seq_length") != 0;
	dc_diag_init(&d);
	{
		/* the file's own model, for the warning below */
		const char *hf = dc_import_get(imp, "model.hf_config");
		snprintf(file_hf, sizeof(file_hf), "%s", hf ? hf : "");
	}
	if (o->emit_config && o->model) {
		/* --model replaces the file's model keys when the config loads
		 * (docs/config.md, "Which value wins"): the emitted config says
		 * so itself, its hf_config the catalogue's name and the file's
		 * shape keys left out (its sequence kept), so that it loads to
		 * the model the report prices. A path would be read against the
		 * emitted file's directory, which is not known here: refused */
		if (!dc_catalogue_is_name(o->model)) {
			fprintf(stderr, "distcalc: error: '--emit-config' with '--model %s': a path is read against the "
					"emitted config's own directory, which distcalc does not know; give a catalogue name "
					"(--list-models), or leave --model out and add \"hf_config\" to the emitted "
					"config's model section yourself\n",
				o->model);
			rc = EXIT_USAGE;
			goto done;
		}
		for (size_t i = imp->nkeys; i-- > 0;) {
			const char *key = imp->keys[i].path;
			if (strncmp(key, "model.", 6) == 0 && strcmp(key, "model.seq_length") != 0 &&
			    dc_import_unset(imp, key, &d) != 0) {
				print_diag(&d, 0);
				rc = exit_for(d.status);
				goto done;
			}
		}
		{
			char *set = dc_asprintf("model.hf_config=%s", o->model);
			int bad = !set || dc_import_override(imp, set, &d) != 0;
			free(set);
			if (bad) {
				print_diag(&d, 0);
				rc = set ? exit_for(d.status) : EXIT_INTERNAL;
				goto done;
			}
		}
	}
	/* --set on top, so that --emit-config prints it too (the loader
	 * applies it again, to the same value) */
	for (size_t i = 0; i < o->nsets; i++) {
		if ((o->sets[i].unset ? dc_import_unset(imp, o->sets[i].text, &d)
				      : dc_import_override(imp, o->sets[i].text, &d)) != 0) {
			print_diag(&d, 0);
			rc = exit_for(d.status);
			goto done;
		}
	}
	/* what reads the --set's: Megatron's sequence parallelism at tp 1 and
	 * its vocabulary padded on the final tp */
	if (dc_import_finish(imp, o->import, &d) != 0) {
		print_diag(&d, 0);
		rc = exit_for(d.status);
		goto done;
	}
	print_diag(&d, 0); /* its warning */
	keep_warnings(early, &d);
	dc_diag_release(&d);
	dc_diag_init(&d);
	if (imp->model_unresolved[0] && !o->model) {
		char *msg = dc_asprintf("%s: error: %s", o->import, imp->model_unresolved);
		print_line("", msg ? msg : imp->model_unresolved);
		free(msg);
		rc = EXIT_CONFIG;
		goto done;
	}
	if (!o->config)
		fprintf(stderr, "distcalc: no --config given; the cluster is the built-in default's (configs/systems.json)\n");
	if (o->model && gives_model && !imp->model_unresolved[0]) {
		/* the file named a model of its own: --model wins (docs/config.md,
		 * "Which value wins"), said so rather than silently */
		early_warning(early, dc_asprintf("'--model %s' replaces the model '%s' gives%s%s%s", o->model, o->import,
						 file_hf[0] ? " (" : "", file_hf, file_hf[0] ? ")" : ""));
		/* torchtitan's stage split counts the file's model's layers
		 * (import_torchtitan.c map_stage_split): another model's are
		 * split evenly, as distcalc's own split does */
		if (imp->split_of_flavor && dc_import_get(imp, "parallel.pipeline_layers")) {
			if (dc_import_unset(imp, "parallel.pipeline_layers", &d) != 0) {
				print_diag(&d, 0);
				rc = exit_for(d.status);
				goto done;
			}
			early_warning(early, dc_asprintf("'--model %s': torchtitan's stage split of '%s' counts its own "
							 "model's layers; the stages of --model's are split evenly "
							 "(give parallel.pipeline_layers with --set for another split)",
							 o->model, o->import));
		}
	}
	if (imp->format == DC_IMPORT_MEGATRON && !dc_import_get(imp, "model.vocab_size") && !o->model) {
		int given = 0;
		for (size_t i = 0; i < o->nsets; i++)
			given |= strncmp(o->sets[i].text, "model.vocab_size=", 17) == 0;
		if (!given)
			fprintf(stderr, "distcalc: note: '--from-megatron': no '--vocab-size': the vocabulary is the "
					"tokenizer's, which distcalc does not read; give --set model.vocab_size=N, N the padded "
					"size (Megatron-LM pads the tokenizer's to a multiple of --make-vocab-size-divisible-by "
					"x tp; a --set is taken as given, unpadded), or --vocab-size in the script, which is padded\n");
	}
	if (stdin_config.text) {
		/* read once already: a copy, freed as a file's bytes are */
		if (!(base = dc_strndup(stdin_config.text, stdin_config.len))) {
			fprintf(stderr, "distcalc: error: out of memory\n");
			rc = EXIT_INTERNAL;
			goto done;
		}
		base_len = stdin_config.len;
	} else if (o->config) {
		if (!(base = dc_check_read_file_as(o->config, "--config", DC_CONFIG_MAX_BYTES, &base_len, &d))) {
			print_diag(&d, 0);
			rc = exit_for(d.status);
			goto done;
		}
	}
	/* --emit-config to a file in another folder: the base's files named
	 * from there (a trial's sub/x.json read sub/sub/models/...) */
	if (o->emit_config && o->output && strcmp(o->output, "-") != 0 && strrchr(o->output, '/') &&
	    !(out_dir = dc_strndup(o->output, (size_t)(strrchr(o->output, '/') - o->output) + 1))) {
		fprintf(stderr, "distcalc: error: out of memory\n");
		rc = EXIT_INTERNAL;
		goto done;
	}
	if (dc_import_config(imp, o->import, base ? base : dc_default_config, base ? base_len : dc_default_config_len,
			     base_name, &out, &d) != 0) {
		print_diag(&d, 0);
		rc = exit_for(d.status);
		goto done;
	}
	if (out_dir) {
		/* the text loaded reads the files from here; the one written,
		 * from its own folder */
		struct dc_buf e;
		dc_buf_init(&e);
		if (dc_import_config_in(imp, o->import, base ? base : dc_default_config,
					base ? base_len : dc_default_config_len, base_name, out_dir, &e, &d) != 0) {
			dc_buf_release(&e);
			print_diag(&d, 0);
			rc = exit_for(d.status);
			goto done;
		}
		emit_rebased.len = e.len;
		emit_rebased.text = e.data;
	}
	*name = dc_asprintf("%s (as imported)", o->import);
	if (!*name) {
		fprintf(stderr, "distcalc: error: out of memory\n");
		rc = EXIT_INTERNAL;
		goto done;
	}
	*len = out.len;
	*text = out.data;
	out.data = NULL;
done:
	free(out_dir);
	free(base);
	dc_buf_release(&out);
	dc_diag_release(&d);
	return rc;
}

/* The --set and --unset the loader applies to an imported config: those
 * after the last --unset. The imported text holds them all already
 * (import_config), so those before it are there; an --unset given to the
 * loader again would find nothing to remove and warn. The later --set are
 * applied again, to the same value, so the loader names them as --set. */
static size_t import_sets_from(const struct dc_options *o)
{
	size_t from = 0;
	for (size_t i = 0; i < o->nsets; i++)
		if (o->sets[i].unset)
			from = i + 1;
	return from;
}

/* The loader's options for the command's config: its --set and --unset
 * (an imported config's after its last --unset), --model, the
 * experiment */
static void load_opts(const struct dc_options *o, const struct dc_experiment *exp, int imported,
		      struct dc_load_opts *lo)
{
	memset(lo, 0, sizeof(*lo));
	lo->overrides = o->sets + (imported ? import_sets_from(o) : 0);
	lo->noverrides = o->nsets - (imported ? import_sets_from(o) : 0);
	lo->model_file = o->model;
	lo->auto_layout = o->model && !o->config && !o->import;
	lo->search = strcmp(exp->name, "search") == 0;
	lo->experiment = exp->name;
}

/* --jobs past the machine's online CPUs: the extra threads only wait for
 * a CPU, and each costs its start and its share of the results (1000 on
 * a few CPUs made a search 40 times slower than 4), so the search runs
 * one a CPU and a note says so. The search itself takes no more threads
 * than it has outer tuples (search.h); the result is the same for any
 * count. */
static void cap_jobs(struct dc_options *o)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	if (o->jobs <= 1 || cpus < 1 || (unsigned long)cpus >= o->jobs)
		return;
	fprintf(stderr, "distcalc: note: '--jobs %u': this machine has %ld online CPU%s; the search runs at most %ld "
			"thread%s (more would only wait for a CPU; the result is the same)\n",
		o->jobs, cpus, cpus == 1 ? "" : "s", cpus, cpus == 1 ? "" : "s");
	o->jobs = (unsigned)cpus;
}

/* --emit-config: the config text, through the --output sink. */
static int emit_text(const char *text, size_t len, const char *path)
{
	struct sink s;
	int rc = sink_open(&s, path);
	if (rc != EXIT_OK) {
		sink_release(&s);
		return rc;
	}
	if (sink_write(&s, text, len) != 0) {
		fprintf(stderr, "distcalc: error: cannot write %s%s%s: %s\n", s.kind == SINK_STDOUT ? "to " : "'",
			sink_name(&s), s.kind == SINK_STDOUT ? "" : "'", strerror(s.err));
		sink_abort(&s);
		rc = EXIT_OUTPUT;
	} else {
		rc = sink_commit(&s);
	}
	sink_release(&s);
	return rc;
}

int main(int argc, char **argv)
{
	struct dc_options o;
	struct dc_config cfg;
	struct dc_diag diag, early;
	struct dc_report *report = NULL;
	struct dc_render_opts ro;
	struct side_out trace = {.open = 0}, chart = {.open = 0};
	struct dc_run_info info;
	struct dc_load_opts lo;
	const struct dc_experiment *exp;
	int rc, load_rc;
	char *expected = NULL, stored_only[256];
	struct dc_calibration cal;
	static struct dc_compute_profile profile;
	size_t expected_len = 0;
	struct progress prog = {0, 0, 0};
	struct dc_search_progress search_progress = {progress_line, &prog};
	struct dc_import imp;
	char *imported = NULL, *imported_name = NULL;
	size_t imported_len = 0;

	/* Over a file-size limit (ulimit -f) the kernel sends SIGXFSZ, which
	 * kills the process and strands the temporary file; ignored, the write
	 * fails with EFBIG and is reported like any other. */
	signal(SIGXFSZ, SIG_IGN);
	/* A reader that goes away (`| head`, `| true`) is a failed write,
	 * reported like any other (exit 5, temporary files removed), not a
	 * death by SIGPIPE that strands them. */
	signal(SIGPIPE, SIG_IGN);
	if (hold_std_fds() != 0) {
		fprintf(stderr, "distcalc: error: descriptor 0, 1 or 2 is closed and /dev/null cannot be opened in its place: %s\n",
			strerror(errno));
		return EXIT_OUTPUT;
	}
	dc_diag_init(&diag);
	dc_diag_init(&early);
	memset(&imp, 0, sizeof(imp));
	memset(&cal, 0, sizeof(cal));
	memset(&info, 0, sizeof(info));
	if (dc_options_parse(argc, (const char *const *)argv, &o, &diag) != 0) {
		rc = parse_failed(&diag, o.value_error);
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
	if (o.action == DC_OPTIONS_LIST_MODELS) {
		rc = list_models();
		goto done;
	}
	exp = dc_experiment_find(o.experiment);
	if (!exp) {
		const char *near = NULL;
		size_t best = 3; /* within two edits, as --only's sections */
		for (size_t i = 0; dc_experiments[i]; i++) {
			size_t d = dc_edit_distance(o.experiment, strlen(o.experiment), dc_experiments[i]->name, 1);
			if (d < best) {
				best = d;
				near = dc_experiments[i]->name;
			}
		}
		fprintf(stderr, "distcalc: error: '--experiment': unknown experiment '%s';", o.experiment);
		if (near)
			fprintf(stderr, " did you mean '%s'?", near);
		fprintf(stderr, " known experiments:");
		for (size_t i = 0; dc_experiments[i]; i++)
			fprintf(stderr, "%s %s", i ? "," : "", dc_experiments[i]->name);
		fprintf(stderr, "\n");
		rc = EXIT_USAGE;
		goto done;
	}
	if ((rc = output_not_input(&o)) != EXIT_OK)
		goto done;
	if (o.config && strcmp(o.config, "-") == 0) {
		/* --config -: standard input, read whole once (a file named
		 * "-" is ./-); every load below takes these bytes */
		if (!(stdin_config.text = dc_check_read_file_as("-", "--config", DC_CONFIG_MAX_BYTES, &stdin_config.len, &diag))) {
			print_diag(&diag, 0);
			rc = exit_for(diag.status);
			goto done;
		}
	}
	cap_jobs(&o);
	if (o.import && (rc = import_config(&o, &imp, &imported, &imported_len, &imported_name, &early)) != EXIT_OK)
		goto done;
	if (o.nsweeps) {
		/* the script's GPUs against the config's cluster, once, where
		 * no axis moves the cluster's size (each point then has its own) */
		if (imported && !sweeps_key(&o, "cluster.")) {
			struct dc_diag scratch;
			load_opts(&o, exp, imported != NULL, &lo);
			dc_diag_init(&scratch);
			if (dc_config_load_buffer_opts(imported, imported_len, imported_name, &lo, &cfg, &scratch) == 0)
				dc_import_launch_check(&imp, o.import, &cfg, &early);
			dc_diag_release(&scratch);
		}
		/* a --set of tp pads Megatron's vocabulary again on it
		 * (dc_import_finish), once; a sweep's points load the imported
		 * config with their own tp and keep the script's padding */
		if (imported && imp.vocab_line && sweeps_key(&o, "parallel.tp="))
			early_warning(&early, dc_asprintf("'--sweep': parallel.tp: every point keeps the vocabulary "
							  "padded at the script's tp %llu (%s line %u: a multiple "
							  "of %llu x %llu); a single run's --set parallel.tp pads it "
							  "again on its tp, as Megatron-LM does "
							  "(docs/importers.md); run a point so for its own padding",
							  imp.vocab_tp, o.import, imp.vocab_line, imp.vocab_div,
							  imp.vocab_tp));
		/* the chunks Megatron derives from the layers per virtual
		 * stage, likewise: a --set of pp derives them again, a sweep's
		 * points keep the script's */
		if (imported && imp.vpp_line && sweeps_key(&o, "parallel.pp="))
			early_warning(&early, dc_asprintf("'--sweep': parallel.pp: every point keeps the script's "
							  "%llu model chunks a rank (%s line %u: "
							  "--num-layers-per-virtual-pipeline-stage %llu at pp %llu); "
							  "a single run's --set parallel.pp derives them again on its "
							  "pp, as Megatron-LM does (docs/importers.md); run a point so, "
							  "or --sweep parallel.virtual_pipeline with it",
							  imp.vpp_layers / imp.vpp_pp / imp.vpp_per_chunk, o.import,
							  imp.vpp_line, imp.vpp_per_chunk, imp.vpp_pp));
		rc = sweep(exp, &o, imported, imported_len, imported_name, &early);
		goto done;
	}
	load_opts(&o, exp, imported != NULL, &lo);
	if (imported) {
		load_rc = dc_config_load_buffer_opts(imported, imported_len, imported_name, &lo, &cfg, &diag);
		/* the script's own GPU count, against the cluster the config
		 * loaded (its layout's error may be that count's: a 16-GPU
		 * script's batch on a 32-GPU config) */
		if (cfg.cluster.num_nodes && cfg.cluster.gpus_per_node && !cluster_refused(&diag))
			dc_import_launch_check(&imp, o.import, &cfg, &diag);
		if (load_rc == 0)
			dc_import_model_check(&imp, o.import, o.model, &cfg, &diag);
		if (load_rc != 0) {
			print_diag(&diag, 0);
			import_blame(&imp, o.import, &diag);
			rc = exit_for(diag.status);
			goto done;
		}
		if (o.emit_config) {
			print_diag(&diag, 0);
			/* the config is written only once the output is known not to
			 * be a file the config names (cluster.topology_file, ...) */
			if ((rc = outputs_not_config_inputs(&o, &cfg)) == EXIT_OK)
				rc = emit_rebased.text ? emit_text(emit_rebased.text, emit_rebased.len, o.output)
						       : emit_text(imported, imported_len, o.output);
			goto done;
		}
	} else {
		if (!o.config)
			fprintf(stderr, "distcalc: no --config given; using the built-in default (configs/systems.json as it was when distcalc was built; --config configs/systems.json runs the file as it is now)%s\n",
				o.model ? " with the model from --model" : "");
		load_rc = load_command_config(&o, &lo, &cfg, &diag);
	}
	if (load_rc != 0) {
		print_diag(&diag, 0);
		rc = exit_for(diag.status);
		goto done;
	}
	if ((rc = outputs_not_config_inputs(&o, &cfg)) != EXIT_OK) {
		print_diag(&diag, 0);
		goto done;
	}

	if (o.ncalibrate) {
		if ((rc = calibrate(&o, &cfg, &cal, &diag)) != EXIT_OK)
			goto done;
		info.calibration = &cal;
	}
	if (o.calibrate_compute) {
		size_t before = diag.count;
		if (dc_compute_profile_read(o.calibrate_compute, &profile, &diag) != 0 ||
		    dc_compute_profile_apply(&profile, &cfg, &diag) != 0) {
			print_diag(&diag, before);
			rc = exit_for(diag.status);
			goto done;
		}
		if (profile.synthetic)
			early_warning(&early, synthetic_profile(o.calibrate_compute));
	}
	info.experiment = exp->name;
	info.config_name = imported_name ? imported_name : o.config ? o.config : "built-in default (configs/systems.json)";
	info.seed = o.seed;
	info.early_warnings = &early;
	info.only = o.only;
	if (o.check && dc_check_stream_wanted(o.check)) {
		/* a large stored report is streamed, never read whole */
		if (!o.only && dc_check_stored_only_file(o.check, stored_only, sizeof(stored_only))) {
			info.only = stored_only;
			fprintf(stderr, "distcalc: check '%s': it holds --only %s; comparing those sections\n",
				o.check, stored_only);
		}
		if (!o.all_rows && dc_check_stored_all_file(o.check)) {
			o.all_rows = 1;
			fprintf(stderr, "distcalc: check '%s': it holds every row (--all); comparing every row\n", o.check);
		}
	} else if (o.check) {
		size_t before = diag.count;
		if (!(expected = dc_check_read_file(o.check, DC_CHECK_MAX_BYTES, &expected_len, &diag)) ||
		    dc_check_is_report(expected, expected_len, o.check, &diag) != 0) {
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
		if (!o.all_rows && dc_check_stored_all(expected, expected_len)) {
			o.all_rows = 1;
			fprintf(stderr, "distcalc: check '%s': it holds every row (--all); comparing every row\n", o.check);
		}
	}
	info.all_rows = o.all_rows;
	info.jobs = o.jobs;
	if (o.import) {
		info.import_option = dc_import_option((enum dc_import_format)o.import_format);
		info.import_file = o.import;
		info.import_base = o.config;
	}
	info.model_file = o.model;
	info.calibrate_logs = o.calibrate;
	info.ncalibrate_logs = o.ncalibrate;
	info.compute_profile = o.calibrate_compute;
	info.sets = o.sets;
	info.nsets = o.nsets;
	if (strcmp(exp->name, "search") == 0 && isatty(STDERR_FILENO))
		info.progress = &search_progress;
	prog.start_s = prog.last_s = wall_s();
	report = dc_experiment_run(exp, &cfg, &info, &diag);
	if (prog.shown)
		fprintf(stderr, "\r\033[K");
	if (report && dc_report_search(report)) {
		const struct dc_search_result *sr = dc_report_search(report);
		double spent = wall_s() - prog.start_s;
		/* the rate of layouts priced, not of tuples enumerated: most
		 * of those fall to an integer rule and cost next to nothing */
		fprintf(stderr,
			"distcalc: search: %llu layouts enumerated, %llu rejected by the rules, %llu priced for memory, "
			"%llu for step time, %llu fit, in %.3f s: %.0f priced layouts/s on %u thread%s\n",
			(unsigned long long)sr->counts.enumerated, (unsigned long long)sr->counts.rejected_by_rules,
			(unsigned long long)sr->counts.priced_memory, (unsigned long long)sr->counts.priced_time,
			(unsigned long long)sr->counts.fit, spent,
			spent > 0 ? (double)sr->counts.priced_memory / spent : 0.0, o.jobs, o.jobs == 1 ? "" : "s");
	}
	print_diag(&diag, 0);
	if (!report) {
		rc = exit_for(diag.status);
		goto done;
	}
	ro.max_rows = o.all_rows ? 0 : DC_EXCERPT_ROWS;
	ro.width = DC_TABLE_WIDTH;
	/* the trace and the chart first: one that cannot be made stops the
	 * run before the report is printed */
	if (o.trace && (rc = trace_prepare(report, &o, &trace)) != EXIT_OK)
		goto done;
	if (o.plot && (rc = plot_prepare(report, o.plot, &chart)) != EXIT_OK) {
		side_finish(&trace, 0);
		goto done;
	}
	rc = o.check || o.nmaxes ? check(report, &o, &ro, expected, expected_len) : emit(report, &o, &ro);
	rc = side_finish_after(&trace, rc);
	rc = side_finish_after(&chart, rc);
done:
	free(stdin_config.text);
	stdin_config.text = NULL;
	free(imported);
	free(imported_name);
	free(emit_rebased.text);
	emit_rebased.text = NULL;
	dc_import_release(&imp);
	free(expected);
	dc_report_free(report);
	dc_calibration_release(&cal);
	dc_diag_release(&diag);
	dc_diag_release(&early);
	dc_options_release(&o);
	return rc;
}
