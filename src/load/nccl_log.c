/* nccl_log.c - the nccl-tests log reader; see nccl_log.h and
 * docs/nccl-tools.md. The layout it reads is nccl-tests' src/util.cu
 * (writeResultHeader, writeBenchmarkLinePreamble, writeBenchmarkLineBody,
 * writeResultFooter), read, not copied. */
#include "distcalc/nccl_log.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "distcalc/textfile.h"
#include "distcalc/util.h"

static const char *const op_names[DC_NCCL_OP_COUNT] = {
	"all_reduce", "all_gather", "reduce_scatter", "all_to_all", "broadcast", "reduce", "send_recv",
};

/* the binaries' names (nccl-tests src/Makefile), in the order a file name
 * is matched: "reduce" last, as all_reduce and reduce_scatter contain it */
static const struct {
	const char *binary;
	enum dc_nccl_op op;
} binaries[] = {
	{"all_reduce", DC_NCCL_ALL_REDUCE},   {"allreduce", DC_NCCL_ALL_REDUCE},
	{"all_gather", DC_NCCL_ALL_GATHER},   {"allgather", DC_NCCL_ALL_GATHER},
	{"reduce_scatter", DC_NCCL_REDUCE_SCATTER}, {"reducescatter", DC_NCCL_REDUCE_SCATTER},
	{"alltoall", DC_NCCL_ALL_TO_ALL},     {"all_to_all", DC_NCCL_ALL_TO_ALL},
	{"broadcast", DC_NCCL_BROADCAST},     {"sendrecv", DC_NCCL_SEND_RECV},
	{"send_recv", DC_NCCL_SEND_RECV},     {"reduce", DC_NCCL_REDUCE},
};
#define NBINARIES (sizeof(binaries) / sizeof(binaries[0]))

/* nccl-tests' type names (src/common.cu test_typenames, both lists) */
static const struct {
	const char *name;
	uint64_t bytes;
} types[] = {
	{"int8", 1},  {"uint8", 1},  {"char", 1},   {"int32", 4},    {"uint32", 4}, {"int", 4},
	{"int64", 8}, {"uint64", 8}, {"half", 2},   {"float", 4},    {"double", 8}, {"bfloat16", 2},
	{"f8e4m3", 1}, {"f8e5m2", 1},
};

const char *dc_nccl_op_name(enum dc_nccl_op op)
{
	return (unsigned)op < DC_NCCL_OP_COUNT ? op_names[op] : "unknown";
}

double dc_nccl_busbw_factor(enum dc_nccl_op op, uint64_t n)
{
	double dn = (double)n;
	if (n == 0)
		return 0;
	switch (op) {
	case DC_NCCL_ALL_REDUCE: return 2.0 * (dn - 1.0) / dn;
	case DC_NCCL_ALL_GATHER:
	case DC_NCCL_REDUCE_SCATTER:
	case DC_NCCL_ALL_TO_ALL: return (dn - 1.0) / dn;
	default: return 1.0;
	}
}

double dc_nccl_row_time_s(const struct dc_nccl_row *r)
{
	if (r->has[DC_NCCL_OOP] && r->has[DC_NCCL_IP])
		return r->time_s[DC_NCCL_IP] < r->time_s[DC_NCCL_OOP] ? r->time_s[DC_NCCL_IP] : r->time_s[DC_NCCL_OOP];
	return r->has[DC_NCCL_IP] ? r->time_s[DC_NCCL_IP] : r->time_s[DC_NCCL_OOP];
}

void dc_nccl_log_release(struct dc_nccl_log *log)
{
	free(log->rows);
	memset(log, 0, sizeof(*log));
}

#define MAX_TOKENS 64
#define MAX_HOSTS 4096

enum state { S_PRE, S_HEAD, S_TABLE, S_DONE };

struct parser {
	const char *name; /* printable */
	struct dc_diag *diag;
	struct dc_nccl_log *log;
	struct dc_text_lines it;
	enum state st;
	int failed;
	/* the column header */
	size_t head_line, ncols;
	int col_redop, col_root;
	int col_time[2]; /* -1: absent */
	int col_wrong[2]; /* the '#wrong' after each group's busbw; -1: absent */
	int cputime[2];   /* the group's time is 'cputime' (the bandwidths are not of it) */
	/* "Collective test starting" */
	int named_op;    /* -1: not given */
	size_t named_line;
	/* hosts seen in "#  Rank" lines */
	char (*hosts)[64];
	uint64_t *host_ranks;
	size_t nhosts;
	size_t rows_alloc;
	size_t first_row_line;
};

static void fail(struct parser *p, size_t line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void fail(struct parser *p, size_t line, const char *fmt, ...)
{
	va_list ap;
	if (p->failed)
		return;
	p->failed = 1;
	va_start(ap, fmt);
	dc_text_error(p->diag, DC_ERR_INPUT, p->name, line, fmt, ap);
	va_end(ap);
}

static void oom(struct parser *p)
{
	if (p->failed)
		return;
	p->failed = 1;
	dc_diag_error(p->diag, DC_ERR_INTERNAL, "%s: error: out of memory", p->name);
}

/* Splits `s` in place at blanks; returns the count (at most MAX_TOKENS). */
static size_t tokenize(char *s, char **tok)
{
	size_t n = 0;
	while (*s && n < MAX_TOKENS) {
		while (*s == ' ' || *s == '\t')
			s++;
		if (!*s)
			break;
		tok[n++] = s;
		while (*s && *s != ' ' && *s != '\t')
			s++;
		if (*s)
			*s++ = '\0';
	}
	return n;
}

static int parse_u64(const char *s, uint64_t *out)
{
	char *end;
	unsigned long long v;
	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end)
		return -1;
	*out = (uint64_t)v;
	return 0;
}

static int parse_i64(const char *s, int64_t *out)
{
	char *end;
	long long v;
	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno || *end || end == s)
		return -1;
	*out = (int64_t)v;
	return 0;
}

static int parse_nonneg(const char *s, double *out)
{
	char *end;
	double v;
	if (!((*s >= '0' && *s <= '9') || *s == '.'))
		return -1;
	v = strtod(s, &end);
	if (*end || !isfinite(v) || v < 0)
		return -1;
	*out = v;
	return 0;
}

/* A short, printable quotation of a line for messages. */
static const char *quote(const char *s, char *buf, size_t len)
{
	char tmp[72];
	snprintf(tmp, sizeof(tmp), "%.64s%s", s, strlen(s) > 64 ? "..." : "");
	dc_fmt_printable(buf, len, tmp);
	return buf;
}

static int is_nccl_debug(const char *s)
{
	return strstr(s, "NCCL INFO") || strstr(s, "NCCL WARN") || strstr(s, "NCCL TRACE");
}

static int op_from_text(const char *s, size_t len, enum dc_nccl_op *op)
{
	for (size_t i = 0; i < NBINARIES; i++) {
		const char *b = binaries[i].binary;
		size_t bl = strlen(b);
		for (size_t k = 0; k + bl <= len; k++) {
			if (strncmp(s + k, b, bl) == 0) {
				*op = binaries[i].op;
				return 0;
			}
		}
	}
	return -1;
}

/* "# nThread 1 nGpus 1 minBytes 8 maxBytes 17179869184 step: 2(factor) ..." */
static void read_nthread(struct parser *p, char **tok, size_t n)
{
	static const char *const want[] = {"nThread", "nGpus", "minBytes", "maxBytes"};
	uint64_t *dst[] = {&p->log->nthread, &p->log->ngpus, &p->log->min_bytes, &p->log->max_bytes};
	for (size_t k = 0; k < 4; k++) {
		size_t i = 1 + 2 * k;
		if (i + 1 >= n || strcmp(tok[i], want[k]) != 0 || parse_u64(tok[i + 1], dst[k]) != 0) {
			fail(p, p->it.line, "the '# nThread' header line is not nccl-tests' (expected '%s N' as word %zu)",
			     want[k], i);
			return;
		}
	}
	/* nccl-tests runs at least one thread of at least one GPU: a 0 is
	 * an edited or broken log, not one to fit */
	if (p->log->nthread == 0 || p->log->ngpus == 0)
		fail(p, p->it.line, "'%s 0' in the '# nThread' header: nccl-tests runs at least one thread with at least one GPU",
		     p->log->nthread == 0 ? "nThread" : "nGpus");
}

/* "#  Rank  0 Group  0 Pid  29262 on bm-h100-01 device  0 [0000:19:00] NVIDIA H100 80GB HBM3"
 * (before 2.11 without "Group G") */
static void read_rank(struct parser *p, char **tok, size_t n)
{
	uint64_t rank, num;
	size_t h, on = 0, dev = 0;
	const char *host;
	for (size_t i = 3; i + 1 < n; i++) {
		if (!on && strcmp(tok[i], "on") == 0)
			on = i;
		else if (on && !dev && strcmp(tok[i], "device") == 0)
			dev = i;
	}
	if (n < 6 || parse_u64(tok[2], &rank) != 0 || !on || !dev || dev != on + 2 ||
	    parse_u64(tok[dev + 1], &num) != 0) {
		fail(p, p->it.line, "a '#  Rank' line that is not 'Rank R [Group G] Pid P on HOST device D ...'");
		return;
	}
	if (rank != p->log->ranks) {
		fail(p, p->it.line, "rank %llu where rank %llu was expected (the device lines list ranks in order)",
		     (unsigned long long)rank, (unsigned long long)p->log->ranks);
		return;
	}
	p->log->ranks++;
	if (rank == 0 && n >= dev + 4) {
		size_t used = 0;
		for (size_t i = dev + 3; i < n && used + 1 < sizeof(p->log->device); i++)
			used += (size_t)snprintf(p->log->device + used, sizeof(p->log->device) - used, "%s%s",
						 i > dev + 3 ? " " : "", tok[i]);
	}
	host = tok[on + 1];
	for (h = 0; h < p->nhosts; h++)
		if (strncmp(p->hosts[h], host, sizeof(p->hosts[h]) - 1) == 0)
			break;
	if (h == p->nhosts) {
		if (p->nhosts == MAX_HOSTS) {
			fail(p, p->it.line, "more than %d hosts", MAX_HOSTS);
			return;
		}
		if (p->nhosts % 64 == 0) {
			void *a = dc_realloc(p->hosts, (p->nhosts + 64) * sizeof(*p->hosts));
			void *b;
			if (!a) {
				oom(p);
				return;
			}
			p->hosts = a;
			b = dc_realloc(p->host_ranks, (p->nhosts + 64) * sizeof(*p->host_ranks));
			if (!b) {
				oom(p);
				return;
			}
			p->host_ranks = b;
		}
		snprintf(p->hosts[h], sizeof(p->hosts[h]), "%s", host);
		p->host_ranks[h] = 0;
		p->nhosts++;
	}
	p->host_ranks[h]++;
}

/* "#  size  count  type  redop  root  time  algbw  busbw  #wrong  time ..." */
static void read_columns(struct parser *p, char **tok, size_t n)
{
	int groups = 0;
	p->col_redop = p->col_root = -1;
	p->col_time[0] = p->col_time[1] = -1;
	p->col_wrong[0] = p->col_wrong[1] = -1;
	/* tok[0] is "#": column c is tok[c + 1] */
	for (size_t i = 4; i < n; i++) {
		int c = (int)i - 1;
		if (strcmp(tok[i], "redop") == 0)
			p->col_redop = c;
		else if (strcmp(tok[i], "root") == 0)
			p->col_root = c;
		else if ((strcmp(tok[i], "time") == 0 || strcmp(tok[i], "cputime") == 0) && groups < 2) {
			if (i + 2 >= n || strcmp(tok[i + 1], "algbw") != 0 || strcmp(tok[i + 2], "busbw") != 0) {
				fail(p, p->it.line, "a column header whose 'time' is not followed by 'algbw busbw'");
				return;
			}
			p->cputime[groups] = strcmp(tok[i], "cputime") == 0;
			p->col_wrong[groups] = i + 3 < n && strcmp(tok[i + 3], "#wrong") == 0 ? c + 3 : -1;
			p->col_time[groups++] = c;
		}
	}
	if (groups == 0) {
		fail(p, p->it.line, "a column header without 'time algbw busbw' columns");
		return;
	}
	p->ncols = 0;
	for (size_t i = 1; i < n; i++)
		if (strcmp(tok[i], "timestamp") != 0)
			p->ncols++;
	p->head_line = p->it.line;
	p->st = S_TABLE;
}

static void read_row(struct parser *p, char **tok, size_t n)
{
	struct dc_nccl_log *log = p->log;
	struct dc_nccl_row r;
	char q[128];
	memset(&r, 0, sizeof(r));
	r.line = p->it.line;
	if (n < p->ncols) {
		fail(p, r.line, "a short result row: %zu columns where the header (line %zu) has %zu; is the log truncated?",
		     n, p->head_line, p->ncols);
		return;
	}
	if (parse_u64(tok[0], &r.size_bytes) != 0 || parse_u64(tok[1], &r.count) != 0) {
		fail(p, r.line, "bad size or count '%s %s'", quote(tok[0], q, 40), tok[1]);
		return;
	}
	if (log->nrows == 0) {
		snprintf(log->type, sizeof(log->type), "%s", tok[2]);
		for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++)
			if (strcmp(types[i].name, tok[2]) == 0)
				log->type_bytes = types[i].bytes;
		if (p->col_redop >= 0)
			snprintf(log->redop, sizeof(log->redop), "%s", tok[p->col_redop]);
		log->root = -1;
		if (p->col_root >= 0 && parse_i64(tok[p->col_root], &log->root) != 0) {
			fail(p, r.line, "bad root '%s'", quote(tok[p->col_root], q, 40));
			return;
		}
		p->first_row_line = r.line;
	} else {
		const struct dc_nccl_row *prev = &log->rows[log->nrows - 1];
		int64_t root = -1;
		if (strcmp(log->type, tok[2]) != 0) {
			fail(p, r.line, "mixes data types: '%s' from line %zu, '%s' here; one type per log (-d)", log->type,
			     p->first_row_line, quote(tok[2], q, 40));
			return;
		}
		if (p->col_redop >= 0 && strcmp(log->redop, tok[p->col_redop]) != 0) {
			fail(p, r.line, "mixes ops: redop '%s' from line %zu, '%s' here; one op per log (-o)", log->redop,
			     p->first_row_line, quote(tok[p->col_redop], q, 40));
			return;
		}
		if (p->col_root >= 0 && (parse_i64(tok[p->col_root], &root) != 0 || root != log->root)) {
			fail(p, r.line, "mixes roots: root %lld from line %zu, '%s' here; one root per log (-r)",
			     (long long)log->root, p->first_row_line, quote(tok[p->col_root], q, 40));
			return;
		}
		if (r.size_bytes <= prev->size_bytes) {
			fail(p, r.line, "size column out of order: %llu B after %llu B on line %zu (sizes must increase)",
			     (unsigned long long)r.size_bytes, (unsigned long long)prev->size_bytes, prev->line);
			return;
		}
	}
	for (int g = 0; g < 2; g++) {
		int c = p->col_time[g];
		double us;
		if (c < 0)
			continue;
		if (parse_nonneg(tok[c], &us) != 0 || parse_nonneg(tok[c + 1], &r.algbw_GBps[g]) != 0 ||
		    parse_nonneg(tok[c + 2], &r.busbw_GBps[g]) != 0) {
			fail(p, r.line, "bad %s time, algbw or busbw '%s %s %s'", g ? "in-place" : "out-of-place",
			     quote(tok[c], q, 40), tok[c + 1], tok[c + 2]);
			return;
		}
		if (us <= 0) {
			fail(p, r.line, "a time of 0 us");
			return;
		}
		r.time_s[g] = us * 1e-6;
		r.has[g] = 1;
		/* nccl-tests' validation (-c 1, its default) counts the wrong
		 * elements; "N/A" without it. A row that failed measured a
		 * broken collective: nothing to fit. */
		if (p->col_wrong[g] >= 0 && (size_t)p->col_wrong[g] < n) {
			char *end;
			double wrong = strtod(tok[p->col_wrong[g]], &end);
			if (end != tok[p->col_wrong[g]] && !*end && wrong != 0) {
				fail(p, r.line,
				     "'#wrong' is %s %s: nccl-tests' validation found wrong results at %llu B, so the "
				     "collective is broken there; fix the run (or drop the row) before fitting it",
				     quote(tok[p->col_wrong[g]], q, 40), g ? "in-place" : "out-of-place",
				     (unsigned long long)r.size_bytes);
				return;
			}
		}
	}
	if (log->nrows == p->rows_alloc) {
		size_t na = p->rows_alloc ? 2 * p->rows_alloc : 64;
		struct dc_nccl_row *a = dc_realloc(log->rows, na * sizeof(*a));
		if (!a) {
			oom(p);
			return;
		}
		log->rows = a;
		p->rows_alloc = na;
	}
	log->rows[log->nrows++] = r;
}

/* "# Avg bus bandwidth    : 139.56" (possibly followed by OK / FAILED) */
static int read_footer(struct parser *p, const char *line)
{
	const char *colon = strchr(line, ':');
	char num[64];
	size_t k = 0;
	if (!colon) {
		fail(p, p->it.line, "the '# Avg bus bandwidth' line has no ':'");
		return -1;
	}
	colon++;
	while (*colon == ' ')
		colon++;
	while (colon[k] && colon[k] != ' ' && k + 1 < sizeof(num)) {
		num[k] = colon[k];
		k++;
	}
	num[k] = '\0';
	if (parse_nonneg(num, &p->log->avg_busbw_GBps) != 0) {
		fail(p, p->it.line, "the '# Avg bus bandwidth' value is not a number");
		return -1;
	}
	return 0;
}

/* A "# Collective test starting: NAME" line. */
static void read_starting(struct parser *p, const char *line)
{
	const char *v = strchr(line, ':');
	enum dc_nccl_op op;
	char q[128];
	v = v ? v + 1 : line;
	while (*v == ' ')
		v++;
	if (op_from_text(v, strlen(v), &op) != 0) {
		fail(p, p->it.line, "unknown collective '%s' (distcalc reads %s)", quote(v, q, 60),
		     "all_reduce, all_gather, reduce_scatter, alltoall, broadcast, reduce and sendrecv");
		return;
	}
	if (p->named_op >= 0 && (enum dc_nccl_op)p->named_op != op) {
		fail(p, p->it.line, "mixes ops: %s from line %zu, %s here; one collective per log",
		     op_names[p->named_op], p->named_line, op_names[op]);
		return;
	}
	p->named_op = (int)op;
	p->named_line = p->it.line;
}

/* Copies `in` to `out` without mpirun --tag-output's "[J,R]<stdout>:" and
 * "[J,R]<stderr>:" tags, wherever they sit. */
static void untag(const char *in, char *out, size_t len)
{
	size_t o = 0;
	while (*in && o + 1 < len) {
		if (*in == '[') {
			size_t k = 1 + strspn(in + 1, "0123456789");
			if (k > 1 && in[k] == ',') {
				size_t m = k + 1 + strspn(in + k + 1, "0123456789");
				if (m > k + 1 && (strncmp(in + m, "]<stdout>:", 10) == 0 || strncmp(in + m, "]<stderr>:", 10) == 0)) {
					in += m + 10;
					continue;
				}
			}
		}
		out[o++] = *in++;
	}
	out[o] = '\0';
}

/* NCCL_ALGO and NCCL_PROTO as the log states them: an environment line
 * ("NCCL_ALGO=Ring", "export NCCL_ALGO=Ring"), mpirun's "-x NCCL_ALGO=Ring"
 * or NCCL's own "NCCL INFO NCCL_ALGO set by environment to Ring"; the last
 * one read wins. A value too long for the field fails the parse. */
static void scan_env(struct parser *p, const char *line)
{
	static const char *const names[] = {"NCCL_ALGO", "NCCL_PROTO"};
	for (int k = 0; k < 2; k++) {
		char *dst = k ? p->log->nccl_proto : p->log->nccl_algo;
		size_t cap = k ? sizeof(p->log->nccl_proto) : sizeof(p->log->nccl_algo);
		size_t nl = strlen(names[k]);
		const char *s = line;
		while ((s = strstr(s, names[k])) != NULL) {
			const char *v = NULL;
			int word_start = s == line || s[-1] == ' ' || s[-1] == '\t' || s[-1] == '"' || s[-1] == '\'';
			if (word_start && s[nl] == '=')
				v = s + nl + 1;
			else if (word_start && strncmp(s + nl, " set by environment to ", 23) == 0)
				v = s + nl + 23;
			s += nl;
			if (v) {
				size_t vl = strcspn(v, " \t\"'");
				if (vl >= cap) {
					/* a cut list can drop the entry that names the
					 * log's collective: refused, never cut */
					fail(p, p->it.line, "%s is longer than %zu bytes (%zu)", names[k], cap - 1, vl);
					return;
				}
				memcpy(dst, v, vl);
				dst[vl] = '\0';
			}
		}
	}
}

/* "NAME=VALUE" or "export NAME=VALUE": a shell's environment line, as
 * job scripts print them (env | grep NCCL). */
static int is_env_line(char **tok, size_t n)
{
	const char *t = n >= 2 && strcmp(tok[0], "export") == 0 ? tok[1] : tok[0];
	size_t k = strspn(t, "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_");
	return k > 0 && t[k] == '=' && (n == 1 || (n == 2 && t == tok[1]));
}

static void read_line(struct parser *p)
{
	char copy[DC_TEXT_LINE_MAX], clean[DC_TEXT_LINE_MAX];
	char *tok[MAX_TOKENS], q[128];
	const char *line = p->it.text;
	size_t n, digits;

	/* srun --label puts "0: " before every line: drop it; mpirun
	 * --tag-output puts "[1,0]<stdout>:" before every piece of output it
	 * forwards, and nccl-tests prints a row in several pieces, so the tag
	 * can sit inside a row too: drop every one */
	digits = strspn(line, "0123456789");
	if (digits && line[digits] == ':' && line[digits + 1] == ' ')
		line += digits + 2;
	untag(line, clean, sizeof(clean));
	line = clean;
	scan_env(p, line);
	if (p->failed)
		return;
	if (is_nccl_debug(line))
		return;
	memcpy(copy, line, strlen(line) + 1);
	n = tokenize(copy, tok);
	if (n == 0)
		return;
	if (strncmp(tok[0], "NCCL", 4) == 0 && n >= 2 && strcmp(tok[1], "version") == 0) {
		/* "NCCL version 2.26.2+cuda12.8": NCCL prints it on the first
		 * communicator's set-up, after the device list */
		snprintf(p->log->nccl_version, sizeof(p->log->nccl_version), "%s", n >= 3 ? tok[2] : "");
		return;
	}
	if (p->st != S_PRE && is_env_line(tok, n))
		return;
	if (p->st == S_DONE) {
		if (strncmp(line, "# nThread", 9) == 0 || strstr(line, "# Collective test starting")) {
			if (strstr(line, "# Collective test starting"))
				read_starting(p, line);
			fail(p, p->it.line,
			     "a second run starts here, after the one that ended on an earlier line; one run per log "
			     "(give each its own --calibrate)");
		}
		return;
	}
	if (strncmp(line, "# Collective test starting", 26) == 0) {
		if (p->st != S_PRE) {
			fail(p, p->it.line, "'# Collective test starting' inside a run");
			return;
		}
		read_starting(p, line);
		return;
	}
	if (p->st == S_PRE) {
		if (strcmp(tok[0], "#") == 0 && n > 1 && strcmp(tok[1], "nThread") == 0) {
			read_nthread(p, tok, n);
			p->st = S_HEAD;
		}
		return; /* anything else before the header: mpirun's or a shell's chatter */
	}
	if (strcmp(tok[0], "#") == 0 || tok[0][0] == '#') {
		if (n >= 2 && strcmp(tok[0], "#") == 0 && strcmp(tok[1], "nThread") == 0) {
			fail(p, p->it.line, "a second '# nThread' header before the first run ended; one run per log");
			return;
		}
		if (n >= 3 && strcmp(tok[0], "#") == 0 && strcmp(tok[1], "Rank") == 0) {
			if (p->st != S_HEAD) {
				fail(p, p->it.line, "a '#  Rank' device line after the column header");
				return;
			}
			read_rank(p, tok, n);
			return;
		}
		if (n >= 4 && strcmp(tok[0], "#") == 0 && strcmp(tok[1], "size") == 0 && strcmp(tok[2], "count") == 0) {
			if (p->st == S_TABLE) {
				fail(p, p->it.line, "a second column header (line %zu had one); one run per log", p->head_line);
				return;
			}
			read_columns(p, tok, n);
			return;
		}
		if (strncmp(line, "# Avg bus bandwidth", 19) == 0) {
			if (p->st != S_TABLE || p->log->nrows == 0) {
				fail(p, p->it.line, "the '# Avg bus bandwidth' footer before any result row");
				return;
			}
			if (read_footer(p, line) == 0)
				p->st = S_DONE;
			return;
		}
		return; /* other comments: the legend, "Reducing maxBytes", "Out of bounds" */
	}
	if (p->st == S_TABLE && tok[0][0] >= '0' && tok[0][0] <= '9') {
		read_row(p, tok, n);
		return;
	}
	if (p->st == S_HEAD && tok[0][0] >= '0' && tok[0][0] <= '9') {
		fail(p, p->it.line, "a result row before the '# size count type ...' column header");
		return;
	}
	fail(p, p->it.line, "not a line of nccl-tests output: '%s'", quote(line, q, sizeof(q)));
}

/* Which collective: the named one, the file name's, or the rows'. */
static void settle_op(struct parser *p)
{
	struct dc_nccl_log *log = p->log;
	const struct dc_nccl_row *last = &log->rows[log->nrows - 1];
	const char *base = strrchr(p->name, '/');
	enum dc_nccl_op op;
	int scatter = 0, known_ratio = 0, none = strcmp(log->redop, "none") == 0 || !log->redop[0];
	double bus_ratio = 0;

	base = base ? base + 1 : p->name;
	if (log->type_bytes && last->count) {
		uint64_t per = last->count * log->type_bytes;
		known_ratio = 1;
		scatter = per != last->size_bytes; /* size = count x type x ranks */
		if (scatter && per * log->ranks != last->size_bytes)
			known_ratio = 0;
	}
	/* busbw / algbw of the row with the most algbw (the printed digits
	 * are the most precise there) */
	for (size_t i = 0, best = 0; i < log->nrows; i++) {
		const struct dc_nccl_row *r = &log->rows[i];
		int g = r->has[0] ? 0 : 1;
		if (r->algbw_GBps[g] > 0 && (bus_ratio == 0 || r->algbw_GBps[g] > log->rows[best].algbw_GBps[g])) {
			bus_ratio = r->busbw_GBps[g] / r->algbw_GBps[g];
			best = i;
		}
	}
	if (p->named_op >= 0) {
		log->op = (enum dc_nccl_op)p->named_op;
		log->op_source = "the 'Collective test starting' line";
	} else if (op_from_text(base, strlen(base), &op) == 0) {
		log->op = op;
		log->op_source = "the file name";
	} else if (!known_ratio) {
		fail(p, p->first_row_line,
		     "cannot tell which collective ran: no '# Collective test starting' line, no collective in the file "
		     "name and an unknown data type '%s'; name the file after the binary (all_reduce_perf.log)",
		     log->type);
		return;
	} else if (scatter) {
		if (none) {
			fail(p, p->first_row_line,
			     "cannot tell all_gather_perf from alltoall_perf output (same columns): the log has no "
			     "'# Collective test starting' line; name the file after the binary (all_gather_perf.log)");
			return;
		}
		log->op = DC_NCCL_REDUCE_SCATTER;
		log->op_source = "the rows";
	} else if (log->root >= 0) {
		log->op = none ? DC_NCCL_BROADCAST : DC_NCCL_REDUCE;
		log->op_source = "the rows";
	} else {
		double f = dc_nccl_busbw_factor(DC_NCCL_ALL_REDUCE, log->ranks);
		if (log->ranks <= 2 || bus_ratio == 0) {
			fail(p, p->first_row_line,
			     "cannot tell all_reduce_perf from sendrecv_perf output on %llu ranks: the log has no "
			     "'# Collective test starting' line; name the file after the binary (all_reduce_perf.log)",
			     (unsigned long long)log->ranks);
			return;
		}
		log->op = fabs(bus_ratio - f) < fabs(bus_ratio - 1.0) ? DC_NCCL_ALL_REDUCE : DC_NCCL_SEND_RECV;
		log->op_source = "the rows";
	}
	/* the rows must be the named collective's */
	if (known_ratio) {
		int want_scatter = log->op == DC_NCCL_ALL_GATHER || log->op == DC_NCCL_REDUCE_SCATTER ||
				   log->op == DC_NCCL_ALL_TO_ALL;
		if (want_scatter != scatter && log->ranks > 1) {
			fail(p, last->line,
			     "%s (from %s) prints size = count x %s x ranks%s, but this row has %llu B for %llu elements",
			     op_names[log->op], log->op_source, log->type, want_scatter ? "" : " / ranks",
			     (unsigned long long)last->size_bytes, (unsigned long long)last->count);
			return;
		}
	}
}

/* Each row's columns agree with one another as nccl-tests prints them
 * (src/common.cu): count x type bytes is the size (x ranks for all_gather,
 * reduce_scatter and alltoall, the relation settle_op read from the last
 * row), algbw = size / time (doc/PERFORMANCE.md, "algbw = S/t") and
 * busbw = algbw x the collective's factor. The bandwidths are printed with
 * two decimals and the time with 2, 1 or 0 decimals below 100 us, 10,000 us
 * and above, so a row is refused only past that rounding and 1% more; a
 * 'cputime' group's bandwidths are of the GPU time, not checked. */
static void check_rows(struct parser *p)
{
	const struct dc_nccl_log *log = p->log;
	int scatter = log->op == DC_NCCL_ALL_GATHER || log->op == DC_NCCL_REDUCE_SCATTER || log->op == DC_NCCL_ALL_TO_ALL;
	double f = dc_nccl_busbw_factor(log->op, log->ranks);
	for (size_t i = 0; i < log->nrows && !p->failed; i++) {
		const struct dc_nccl_row *r = &log->rows[i];
		uint64_t per, want;
		if (log->type_bytes && log->ranks > 1 && !dc_mul_u64(r->count, log->type_bytes, &per) &&
		    !dc_mul_u64(per, scatter ? log->ranks : 1, &want) && want != r->size_bytes) {
			fail(p, r->line,
			     "the 'count' column (%llu elements) x %s (%llu B)%s is %llu B, not the size column's %llu B: "
			     "nccl-tests prints size = count x type bytes%s; the row was edited or mis-pasted",
			     (unsigned long long)r->count, log->type, (unsigned long long)log->type_bytes,
			     scatter ? " x ranks" : "", (unsigned long long)want, (unsigned long long)r->size_bytes,
			     scatter ? " x ranks for this collective" : "");
			return;
		}
		for (int g = 0; g < 2; g++) {
			double us, half, alg, bus;
			if (!r->has[g] || p->cputime[g])
				continue;
			us = r->time_s[g] * 1e6;
			half = us >= 10000 ? 0.5 : us >= 100 ? 0.05 : 0.005;
			if (us <= 2 * half)
				continue;
			alg = (double)r->size_bytes / (us * 1e3); /* GB/s: 1e9 B */
			if (fabs(r->algbw_GBps[g] - alg) > 0.0051 + alg * (half / (us - half) + 0.01)) {
				fail(p, r->line,
				     "the %s 'algbw' column says %.2f GB/s but size / time is %llu B / %.2f us = %.2f GB/s; the "
				     "row was edited or mis-pasted",
				     g ? "in-place" : "out-of-place", r->algbw_GBps[g], (unsigned long long)r->size_bytes, us,
				     alg);
				return;
			}
			bus = r->algbw_GBps[g] * f;
			if (fabs(r->busbw_GBps[g] - bus) > 0.0051 + 0.0051 * f + 0.01 * bus) {
				fail(p, r->line,
				     "the %s 'busbw' column says %.2f GB/s but algbw x %s's factor on %llu ranks is %.2f x "
				     "%.4f = %.2f GB/s; the row was edited or mis-pasted",
				     g ? "in-place" : "out-of-place", r->busbw_GBps[g], op_names[log->op],
				     (unsigned long long)log->ranks, r->algbw_GBps[g], f, bus);
				return;
			}
		}
	}
}

/* The hosts hold as many ranks each: distcalc's cluster has gpus_per_node
 * GPUs on every node, so a log of 8, 7 and 1 ranks per host describes no
 * cluster it can fit. Names the first host that differs. */
static void check_hosts(struct parser *p)
{
	for (size_t h = 1; h < p->nhosts; h++)
		if (p->host_ranks[h] != p->host_ranks[0]) {
			char a[72], b[72];
			fail(p, 0,
			     "uneven ranks per host: %llu on '%s' but %llu on '%s' (%zu hosts, %llu ranks); distcalc's "
			     "cluster has the same GPUs on every node: run the test on whole nodes",
			     (unsigned long long)p->host_ranks[0], quote(p->hosts[0], a, sizeof(a)),
			     (unsigned long long)p->host_ranks[h], quote(p->hosts[h], b, sizeof(b)), p->nhosts,
			     (unsigned long long)p->log->ranks);
			return;
		}
}

int dc_nccl_log_parse(const char *buf, size_t len, const char *name, struct dc_nccl_log *log,
		      struct dc_diag *diag)
{
	struct parser p;
	char shown[1024];
	size_t bad_line;

	memset(log, 0, sizeof(*log));
	memset(&p, 0, sizeof(p));
	dc_fmt_printable(shown, sizeof(shown), name);
	p.name = shown;
	p.diag = diag;
	p.log = log;
	p.named_op = -1;
	p.col_time[0] = p.col_time[1] = -1;
	p.col_wrong[0] = p.col_wrong[1] = -1;
	if (len == 0) {
		fail(&p, 0, "empty file; expected the output of an nccl-tests *_perf binary");
		return -1;
	}
	if (dc_text_check(buf, len, &bad_line) != 0) {
		fail(&p, bad_line, "binary data (a NUL or control byte); expected the text output of an nccl-tests "
				   "*_perf binary");
		return -1;
	}
	dc_text_lines_init(&p.it, buf, len);
	while (!p.failed && dc_text_lines_next(&p.it)) {
		if (p.it.long_line) {
			fail(&p, p.it.line, "a line longer than %d bytes", DC_TEXT_LINE_MAX - 1);
			break;
		}
		read_line(&p);
	}
	if (!p.failed) {
		if (p.st == S_PRE) {
			char q[128];
			dc_text_lines_init(&p.it, buf, len);
			while (dc_text_lines_next(&p.it) && !p.it.text[strspn(p.it.text, " \t")])
				;
			fail(&p, p.it.line,
			     "not nccl-tests output: no '# nThread N nGpus N minBytes ...' header (this line reads '%s')",
			     quote(p.it.text, q, sizeof(q)));
		} else if (p.st == S_HEAD) {
			fail(&p, p.it.line, "truncated: the log ends before the '# size count type ...' column header");
		} else if (p.st == S_TABLE && log->nrows == 0) {
			fail(&p, p.it.line, "truncated: the log ends before the first result row");
		} else if (p.st == S_TABLE) {
			fail(&p, p.it.line,
			     "truncated: the log ends after the row on line %zu without the '# Avg bus bandwidth' footer",
			     log->rows[log->nrows - 1].line);
		} else if (log->ranks == 0) {
			fail(&p, p.head_line, "no '#  Rank R ... on HOST device D' lines: cannot tell how many ranks ran");
		}
	}
	if (!p.failed) {
		uint64_t most = 0;
		for (size_t h = 0; h < p.nhosts; h++)
			most = p.host_ranks[h] > most ? p.host_ranks[h] : most;
		log->nodes = p.nhosts;
		log->ranks_per_node = most;
		check_hosts(&p);
		if (!p.failed)
			settle_op(&p);
		if (!p.failed)
			check_rows(&p);
	}
	free(p.hosts);
	free(p.host_ranks);
	if (p.failed) {
		dc_nccl_log_release(log);
		return -1;
	}
	return 0;
}

int dc_nccl_log_read(const char *path, struct dc_nccl_log *log, struct dc_diag *diag)
{
	size_t len = 0;
	char *buf;
	int rc;
	memset(log, 0, sizeof(*log));
	buf = dc_text_read_file(path, DC_NCCL_LOG_MAX_BYTES, "nccl-tests log", &len, diag);
	if (!buf)
		return -1;
	rc = dc_nccl_log_parse(buf, len, path, log, diag);
	free(buf);
	return rc;
}
