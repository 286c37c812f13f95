/* check.h - budget regression: compare a new JSON report with a stored one.
 *
 * `distcalc --check expected.json` renders the report as JSON and compares
 * it with the stored file field by field:
 *   - numbers that are whole on both sides, and every field the new report
 *     types as a count (a caller's is_count: byte counts, ranks, world
 *     sizes, batch sizes, tokens, events), a seed ("seed", "*_seed"), or
 *     whose key names bytes or params, must be equal exactly whatever
 *     rtol: 8.000000001 ranks is a change, not rounding. Two such numbers
 *     written as integer digits are compared digit for digit, so above
 *     2^53 (where doubles stop holding every integer) 9007199254740993 is
 *     not 9007199254740992, and up to 2^64 - 1 (a seed) and beyond;
 *   - a difference line gives the change in percent for a quantity, none
 *     for a seed (a changed value); two texts that part past the 200
 *     bytes a line shows are shown from 40 bytes before where they part,
 *     so a line never reads "expected X, got X";
 *   - other numbers must agree within a relative tolerance rtol:
 *     |got - expected| <= rtol * max(|got|, |expected|);
 *   - strings, booleans and null must match exactly, except that a string
 *     opening with a file its report names and ": " (a warning naming the
 *     config or the model's config.json) is compared past that prefix on
 *     both sides;
 *   - a field present on one side only is a difference;
 *   - a stored number no report can hold is always a difference, whatever
 *     the tolerance: one that is not finite (1e400 reads as inf, and
 *     inf > rtol * inf is false): "PATH: the stored value 1e400 is not a
 *     plausible number (it reads as inf); got X";
 *   - "distcalc_version" is not compared (a new release is not a budget
 *     change), nor the paths of the files a report names: "config",
 *     "model.hf_config", and the value and text of a keys row whose key is
 *     model.hf_config or cluster.topology_file. Where a file lies (the
 *     checkout, the install, how --config was spelled) is not a budget;
 *     what it holds is compared through the fields it fills.
 * The stored file is read strictly: the whole text must be one JSON object
 * that passes the loader's strict check (dc_json_check_strict: nothing but
 * whitespace after it), with no key held twice anywhere, and it must be a
 * distcalc report: its top level holds the header fields every report opens
 * with, "distcalc_version" (a string), "experiment" (a string) and "seed"
 * (a number). Anything else is "not a distcalc JSON report (why)".
 * A report written with --only records the sections in "only"; --check
 * without --only compares those sections alone (dc_check_stored_only).
 * This module parses JSON, so it includes cJSON besides the loader and the
 * JSON reporter; the tree never leaves check.c.
 */
#ifndef DISTCALC_CHECK_H
#define DISTCALC_CHECK_H

#include <stddef.h>

#include "distcalc/diag.h"
#include "distcalc/util.h"

#define DC_CHECK_DEFAULT_RTOL 1e-9

struct dc_check_result {
	size_t compared;    /* leaf fields compared */
	size_t differences; /* lines written to `out` */
};

/* Compares `actual` (a report distcalc just rendered, NUL-terminated) with
 * `expected` (named `expected_name` in messages). Writes one line per
 * difference to `out`: "PATH: expected X, got Y (change +Z%)", in the new
 * report's order, a field only the stored report holds at the end of its
 * object. Only the stored report is parsed into a tree, and its members
 * are freed as they are matched: the new report is read as a stream, so a
 * check costs about one parsed copy of the stored file. Returns 0 when the
 * comparison ran (see res->differences), or -1 when `expected` is not a
 * distcalc report, read strictly as above (DC_ERR_INPUT in diag: one line
 * "NAME: error: not a distcalc JSON report (WHY; write one with ...)", WHY
 * "NAME:LINE:COL: reason" for a syntax error), or memory ran out
 * (DC_ERR_INTERNAL). */
int dc_check_compare(const char *expected, size_t expected_len, const char *expected_name,
		     const char *actual, size_t actual_len, double rtol, struct dc_buf *out,
		     struct dc_check_result *res, struct dc_diag *diag);

/* 0 when `expected` (named `name` in messages) is a distcalc JSON report
 * (strict JSON, one object, no duplicate key, the header fields), as
 * dc_check_compare reads it; else -1 with its reason in diag
 * (DC_ERR_INPUT; DC_ERR_INTERNAL when out of memory). --check asks before
 * it reads the report's --only or --all, so that a file that is no report
 * is refused with its one line. */
int dc_check_is_report(const char *expected, size_t expected_len, const char *name, struct dc_diag *diag);

/* The "only" header field of a stored report: the sections it was written
 * with (--only), comma-separated. Returns 1 with it copied into buf (len
 * bytes), or 0 when the report has none, it does not fit, or the bytes are
 * not JSON (dc_check_compare then says so). */
int dc_check_stored_only(const char *expected, size_t expected_len, char *buf, size_t len);

/* 1 when the stored report's "all" header field is true: it was written
 * with --all, so --check shows every row too (an excerpt compared with
 * every row would part at the first row left out). */
int dc_check_stored_all(const char *expected, size_t expected_len);

/* The largest stored report --check reads. */
#define DC_CHECK_MAX_BYTES ((size_t)512 * 1024 * 1024)

/* Reads the stored report `path` whole for --check, at most `max` bytes.
 * A regular file gets one buffer of its size (fstat), grown only when it
 * grows while being read; anything else (a pipe, a device) starts at
 * 64 KiB and doubles. `path` "-" is standard input (--check -, --config
 * -), read from where it stands through a copy of descriptor 0, which
 * stays open; messages call it "standard input". Returns the bytes,
 * NUL-terminated (the caller frees them), with their count in *len; or NULL with one line in diag:
 * DC_ERR_INPUT when it cannot be opened or read, is a directory or is over
 * `max` bytes, DC_ERR_INTERNAL when out of memory. */
char *dc_check_read_file(const char *path, size_t max, size_t *len, struct dc_diag *diag);
/* The rank-ordered table `path` indexes ("strategies.variants[",
 * "search.best[", "search.pareto["), whose row i is whatever ranks i + 1
 * in this run; NULL for any other path. */
const char *dc_check_ranked_table(const char *path);
/* The same, its messages naming `opt` ("--config") as the option that
 * named the file. */
char *dc_check_read_file_as(const char *path, const char *opt, size_t max, size_t *len, struct dc_diag *diag);

/* ---- --check-only: compare a subset ----
 *
 * A list of dotted paths, comma-separated ("memory.per_rank,comm.time_s"),
 * names the fields to compare: a field is compared when its path is one of
 * them or lies under one, at a component boundary ("memory" takes
 * "memory.per_rank.peak_bytes" and "memory.classes[0]", never
 * "memory_x"); every other field, the header fields included, is left
 * out. The blanks around each path are dropped ("memory, comm "). At most
 * DC_CHECK_ONLY_MAX paths, none empty. */
#define DC_CHECK_ONLY_MAX 32

/* As dc_check_compare, comparing only the fields under the paths in
 * `only` and with is_count(count_ctx, path) (NULL: none) saying which
 * fields are counts, compared exactly (dc_report_path_is_count). Also
 * `only` (NULL: every field, exactly dc_check_compare). A path of `only`
 * that matches no field of either report is an error too: -1 with
 * "distcalc: error: '--check-only': 'PATH' matches no field of either
 * report" for each (DC_ERR_USAGE), as is an empty or too long list. */
int dc_check_compare_only(const char *expected, size_t expected_len, const char *expected_name,
			  const char *actual, size_t actual_len, double rtol, const char *only,
			  struct dc_buf *out, struct dc_check_result *res, struct dc_diag *diag,
			  int (*is_count)(const void *ctx, const char *path), const void *count_ctx);

/* ---- --check against a large stored report, streamed ---- */

/* A stored report above this many bytes is compared streamed. */
#define DC_CHECK_STREAM_BYTES ((size_t)1 << 20)

/* 1 when `path` is a regular file above DC_CHECK_STREAM_BYTES (and at
 * most DC_CHECK_MAX_BYTES): --check compares it with
 * dc_check_compare_file instead of reading it whole. Never for "-"
 * (standard input cannot be read twice: its header, then the report). */
int dc_check_stream_wanted(const char *path);

/* As dc_check_stored_only, reading the file `path` as a stream. */
int dc_check_stored_only_file(const char *path, char *buf, size_t len);
/* As dc_check_stored_all, reading the file `path` as a stream. */
int dc_check_stored_all_file(const char *path);

/* As dc_check_compare_only, with the stored report read from the file
 * `path` through a window and the new report rendered by render(render_ctx,
 * buf) on a second thread into a bounded channel (buf streams: render
 * appends, the caller's code need not flush); each chunk is also handed to
 * tee (when not NULL: the --check-max budgets' stream). The two are walked
 * in step; where an object's keys part, the rest of that object is parsed
 * into trees and compared as dc_check_compare does. Memory: two 64 KiB
 * windows, a 256 KiB channel, the open objects' keys and the lines
 * written. The stored report is read as strictly as dc_check_compare
 * reads one (RFC 8259 numbers and strings, valid UTF-8, nesting at most 64
 * deep, an object with the header fields and their types, no key twice in
 * an object; a syntax error names the byte offset, not line and column).
 * Returns 0 or -1 with diag as
 * dc_check_compare_only. */
int dc_check_compare_file(const char *path, double rtol, const char *only,
			  int (*render)(void *ctx, struct dc_buf *b), void *render_ctx,
			  int (*tee)(void *ctx, const char *data, size_t len), void *tee_ctx, struct dc_buf *out,
			  struct dc_check_result *res, struct dc_diag *diag,
			  int (*is_count)(const void *ctx, const char *path), const void *count_ctx);

/* ---- --check-max: budget assertions ---- */

/* One --check-max PATH=VALUE. */
struct dc_check_max {
	char *path;        /* the field's dotted path, as difference lines write it
			    * ("memory.per_rank.peak_bytes", "ring.events[0].bytes");
			    * owned: one allocation that VALUE lies in too */
	const char *value; /* VALUE as given, inside path's allocation */
	double limit;      /* VALUE in the field's base unit */
	int min;           /* 1: a --check-min floor (the number must not be
			    * below limit); 0: a --check-max budget */
	char warn[200];    /* a plain number that looks like a slip of the unit
			    * (a time budget of 100 s or more, a byte budget
			    * under 1 MiB): the warning to print; "" none */
	int no_unit;       /* VALUE has a unit the key names none of: reported
			    * by dc_check_budgets once the path is known to be a
			    * field (a mistyped field is named first), limit 0 */
};

/* Parses `arg` ("PATH=VALUE") into `m`, the blanks (spaces, tabs, line
 * ends) around PATH and around VALUE dropped, as --set drops a value's
 * (" a.time_s = 5 us " is "a.time_s" and "5 us"). VALUE is a plain
 * decimal number in the field's base unit, or a quantity with a unit,
 * whose kind the field's key (the last component of PATH) names, as
 * report keys carry their unit:
 *   a key ending in "_GBps"  a bandwidth ("50 GB/s", "400 Gb/s"), in GB/s;
 *   a key ending in "_bytes_per_s" a bandwidth, in bytes/s;
 *   a key ending in "_per_s" otherwise (tokens_per_s) a rate: a plain number;
 *   a key ending in "_s"     a time ("0.5 s", "5 us"), in seconds;
 *   a key naming "bytes"     a byte count ("80GiB", "1.5 GB"), in bytes;
 *   any other key            a plain number only.
 * Returns 0 (m->path allocated: free it), or -1 with a one-line reason (no
 * subject: the caller names `arg`) in err[errlen], m untouched; exactly
 * "out of memory" when only the allocation failed. */
int dc_check_max_parse(const char *arg, struct dc_check_max *m, char *err, size_t errlen);

/* Checks the report `actual` (JSON distcalc just rendered) against the
 * budgets: each number above its limit (below it, for a --check-min
 * floor) writes one line to `out`, "PATH: VALUE exceeds the budget LIMIT"
 * ("PATH: VALUE is below the floor LIMIT"; LIMIT as given, then its value
 * in base units when it had a unit), and counts in *exceeded. Returns 0
 * when every budget was checked; -1 when a PATH is not a field of the
 * report (the nearest field's name suggested; where the report's "only"
 * header names one table, SECTION.TABLE, a PATH elsewhere in SECTION is
 * said to be left out by that --only), or not a number there, or
 * its VALUE had a unit the field has not (DC_ERR_USAGE, one line per such
 * path: "distcalc: error: '--check-max': 'PATH': ..."), or memory ran out
 * (DC_ERR_INTERNAL). The report is read as a stream, holding only the
 * budgets' numbers: memory does not grow with the report. */
int dc_check_budgets(const char *actual, size_t actual_len, const struct dc_check_max *maxes, size_t n,
		     struct dc_buf *out, size_t *exceeded, struct dc_diag *diag);

/* The same check as a stream, for a report too large to hold: feed the
 * report as it is rendered (dc_budget_stream_feed is a struct dc_buf flush
 * callback; ctx is the stream), then finish, which writes the lines and
 * messages as dc_check_budgets does and frees the stream. Memory: the
 * longest line of the report and the budgets. new returns NULL when out of
 * memory; feed returns 0, or -1 when out of memory. */
struct dc_budget_stream;
struct dc_budget_stream *dc_budget_stream_new(const struct dc_check_max *maxes, size_t n);
int dc_budget_stream_feed(void *ctx, const char *data, size_t len);
int dc_budget_stream_finish(struct dc_budget_stream *s, struct dc_buf *out, size_t *exceeded, struct dc_diag *diag);

/* Parses `s` as a plain decimal number: digits with an optional '.' (a
 * digit on one side at least) and an optional exponent, no sign, space,
 * hex float, inf or nan. Returns 0 with the value (a subnormal included;
 * strtod's ERANGE for one is no error), -1 when `s` is not one, or -2
 * when it is one out of range: too large for a double (the value inf), or
 * rounding to 0 though it has a digit other than 0 (1e-400; the value 0). */
int dc_check_parse_decimal(const char *s, double *out);

#endif
