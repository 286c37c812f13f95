/* report.h - one field tree, rendered as a table or as JSON.
 *
 * Estimators fill a tree of named fields (key for JSON, label for the table,
 * a unit, a value). Both renderers walk the same tree, so text and JSON
 * cannot drift (curl's -w / %{json} idea). Large arrays are generators: rows
 * are produced on demand from an index, never stored, so a ring of 4096 ranks
 * (33 million events) costs no memory.
 *
 * Ownership: the report owns every node and string; dc_report_free() frees
 * all. Builder functions never fail visibly: on allocation failure they mark
 * the report failed and return NULL; every builder accepts a NULL parent and
 * then does nothing. Check dc_report_failed() once after building.
 */
#ifndef DISTCALC_REPORT_H
#define DISTCALC_REPORT_H

#include <stddef.h>
#include <stdint.h>

#include "distcalc/units.h"
#include "distcalc/util.h"

enum dc_unit {
	DC_U_NONE,      /* a plain number or text */
	DC_U_COUNT,     /* an exact count (ranks, parameters, tokens) */
	DC_U_BYTES,     /* bytes; the table shows GiB and the exact bytes */
	DC_U_BYTES_RAW, /* bytes; the table shows exact bytes only */
	DC_U_SECONDS,   /* seconds; the table picks s, ms or us */
	DC_U_GBPS,      /* 10^9 bytes per second */
	DC_U_BYTES_PER_S, /* bytes per second; the table shows GB/s */
	DC_U_RATIO,     /* a dimensionless fraction */
	DC_U_FLOPS,     /* floating-point operations; the table shows TFLOP */
	DC_U_PER_S,     /* events per second (tokens/s) */
};

enum dc_rkind {
	DC_R_OBJECT,
	DC_R_ARRAY,
	DC_R_U64,
	DC_R_F64,
	DC_R_STR,
	DC_R_BOOL,
	DC_R_NULL,
};

struct dc_report;
struct dc_rnode;

/* Fills `row` (an empty object, or an empty array for dc_rn_list_gen) with
 * row `index` of a generated array. Keys and labels of what it adds are
 * borrowed, not copied: they must outlive the report (string literals);
 * string values are copied. */
typedef void (*dc_row_fn)(const void *ctx, uint64_t index, struct dc_rnode *row);

struct dc_report *dc_report_new(void);
void dc_report_free(struct dc_report *r);
struct dc_rnode *dc_report_root(struct dc_report *r);
int dc_report_failed(const struct dc_report *r);
/* Zeroed memory owned by the report, freed with it: state that generated
 * arrays read while rendering. NULL (and the report marked failed) on
 * allocation failure. */
void *dc_report_keep(struct dc_report *r, size_t size);

/* A section (JSON object). `title` heads it in the table; NULL hides the
 * heading (fields then print under the parent's). */
struct dc_rnode *dc_rn_object(struct dc_rnode *parent, const char *key, const char *title);
/* An array of objects (a table) or of scalars/arrays (inline list). */
struct dc_rnode *dc_rn_array(struct dc_rnode *parent, const char *key, const char *title);
/* A generated array of `count` object rows. `what` names the rows in the
 * excerpt marker ("events"). */
struct dc_rnode *dc_rn_array_gen(struct dc_rnode *parent, const char *key, const char *title,
				 const char *what, uint64_t count, dc_row_fn fn, const void *ctx);

/* A generated array of `count` inline lists: `fn` fills `row`, an empty
 * array, with the scalars of list `index`. Only one list exists at a time,
 * so a list of lists costs the memory of its longest list, not of all. */
struct dc_rnode *dc_rn_list_gen(struct dc_rnode *parent, const char *key, const char *title,
				uint64_t count, dc_row_fn fn, const void *ctx);

/* Scalars. `label` is the table text; NULL uses the key. In an array, key
 * may be NULL. Strings are copied. */
void dc_rn_u64(struct dc_rnode *parent, const char *key, const char *label, enum dc_unit unit,
	       uint64_t v);
void dc_rn_f64(struct dc_rnode *parent, const char *key, const char *label, enum dc_unit unit,
	       double v);
void dc_rn_str(struct dc_rnode *parent, const char *key, const char *label, const char *v);
void dc_rn_bool(struct dc_rnode *parent, const char *key, const char *label, int v);
/* A value that is undefined here (algbw of a zero-time ring): JSON null,
 * table "n/a". */
void dc_rn_null(struct dc_rnode *parent, const char *key, const char *label, enum dc_unit unit);

struct dc_render_opts {
	/* Arrays longer than this show their first and last max_rows/2 rows
	 * and a marker; 0 shows every row. */
	uint64_t max_rows;
};

/* Render into `out`. Return 0, or -1 when `out` failed to grow or a
 * generated row could not be built (the output would miss fields). */
int dc_report_render_table(struct dc_report *r, const struct dc_render_opts *o, struct dc_buf *out);
int dc_report_render_json(struct dc_report *r, const struct dc_render_opts *o, struct dc_buf *out);

/* Shortest "%.*g" text of v that reads back to the same double. */
void dc_fmt_double(char *buf, size_t len, double v);

#endif
