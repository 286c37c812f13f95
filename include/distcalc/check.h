/* check.h - budget regression: compare a new JSON report with a stored one.
 *
 * `distcalc --check expected.json` renders the report as JSON and compares
 * it with the stored file field by field:
 *   - numbers that are whole on both sides (byte counts, ranks) must be
 *     equal exactly;
 *   - other numbers must agree within a relative tolerance rtol:
 *     |got - expected| <= rtol * max(|got|, |expected|);
 *   - strings, booleans and null must match exactly;
 *   - a field present on one side only is a difference;
 *   - a stored number no report can hold is always a difference, whatever
 *     the tolerance: one that is not finite (1e400 reads as inf, and
 *     inf > rtol * inf is false) or, in a field whose key names "bytes", one
 *     above 2^53 (no byte count distcalc writes is larger);
 *   - "distcalc_version" and "config" are not compared (a new release or a
 *     different path to the same config is not a budget change).
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

/* Compares `actual` (a report distcalc just rendered) with `expected`
 * (named `expected_name` in messages). Writes one line per difference to
 * `out`: "PATH: expected X, got Y (change +Z%)". Returns 0 when the
 * comparison ran (see res->differences), or -1 when `expected` is not a
 * distcalc report, read strictly as above (DC_ERR_INPUT in diag: one line
 * "NAME: error: not a distcalc JSON report (WHY; write one with ...)", WHY
 * "NAME:LINE:COL: reason" for a syntax error), or memory ran out
 * (DC_ERR_INTERNAL). */
int dc_check_compare(const char *expected, size_t expected_len, const char *expected_name,
		     const char *actual, size_t actual_len, double rtol, struct dc_buf *out,
		     struct dc_check_result *res, struct dc_diag *diag);

/* The "only" header field of a stored report: the sections it was written
 * with (--only), comma-separated. Returns 1 with it copied into buf (len
 * bytes), or 0 when the report has none, it does not fit, or the bytes are
 * not JSON (dc_check_compare then says so). */
int dc_check_stored_only(const char *expected, size_t expected_len, char *buf, size_t len);

/* The largest stored report --check reads. */
#define DC_CHECK_MAX_BYTES ((size_t)512 * 1024 * 1024)

/* Reads the stored report `path` whole for --check, at most `max` bytes.
 * A regular file gets one buffer of its size (fstat), grown only when it
 * grows while being read; anything else (a pipe, a device) starts at
 * 64 KiB and doubles. Returns the bytes, NUL-terminated (the caller frees
 * them), with their count in *len; or NULL with one line in diag:
 * DC_ERR_INPUT when it cannot be opened or read, is a directory or is over
 * `max` bytes, DC_ERR_INTERNAL when out of memory. */
char *dc_check_read_file(const char *path, size_t max, size_t *len, struct dc_diag *diag);

#endif
