/* report.h - one run's results and the sections that present them.
 *
 * A report holds a copy of the input, its plan, the results of the
 * estimators the chosen sections need, the run's warnings and the list of
 * sections to show. It is rendered by walking the sections' field tables
 * (section.h): as a table, as JSON or as CSV. Rendering allocates nothing
 * but the output buffer, and long tables are generated row by row, so a
 * report of 2^24 ranks costs the memory of one row.
 *
 * Ownership: dc_experiment_run (experiment.h) returns a report the caller
 * frees with dc_report_free().
 */
#ifndef DISTCALC_REPORT_H
#define DISTCALC_REPORT_H

#include <stddef.h>
#include <stdint.h>

#include "distcalc/section.h"
#include "distcalc/units.h"
#include "distcalc/util.h"

struct dc_report;

void dc_report_free(struct dc_report *r);

struct dc_search_result;
/* The layout search's result of a report of --experiment search (search.h),
 * or NULL for any other report. Owned by the report. */
const struct dc_search_result *dc_report_search(const struct dc_report *r);

/* 1 when the report field at `path` (a --check path: "memory.per_rank[3].
 * peak_bytes") is a whole count, a uint64_t the sinks print as an integer;
 * 0 for any other field or a path the report's field tables do not hold.
 * --check compares counts exactly whatever --rtol (docs/reliability.md). */
int dc_report_path_is_count(const struct dc_report *r, const char *path);

/* Render into `out`. Return 0, or -1 when `out` failed (allocation or a
 * streaming flush) or a table row to print holds a number that is not
 * finite (a bug: dc_report_render_error says which; what was streamed
 * before it stays). Under --only (dc_run_info.only), the table shows the
 * chosen sections alone and JSON keeps its header fields and warnings. */
int dc_report_render_table(struct dc_report *r, const struct dc_render_opts *o, struct dc_buf *out);
int dc_report_render_json(struct dc_report *r, const struct dc_render_opts *o, struct dc_buf *out);
/* RFC 4180 CSV: a "# section: NAME" line per section, then a key,value,unit
 * block of its scalars (nested keys joined with '.'), then per table a
 * "# table: PATH" line, a header row of its field keys and every row.
 * Header fields are "# key: value" comment lines (values as JSON);
 * warnings are the table "warnings", left out under --only like the
 * table output leaves them out. */
int dc_report_render_csv(struct dc_report *r, const struct dc_render_opts *o, struct dc_buf *out);
/* GitHub-flavoured Markdown (--format markdown): a heading per section
 * and nested object, its scalars as a "quantity | value" table, every
 * table with a header row of labels and units and one row per row (the
 * same excerpts as the table), warnings and prose as lists; values as the
 * table shows them. */
int dc_report_render_markdown(struct dc_report *r, const struct dc_render_opts *o, struct dc_buf *out);
/* One self-contained HTML page (--format html): inline CSS, no scripts,
 * nothing fetched; the header, the summary section first, the report's
 * chart inline (the --plot SVG; a report with none says why), then every
 * other section as the Markdown sink lays it out. */
int dc_report_render_html(struct dc_report *r, const struct dc_render_opts *o, struct dc_buf *out);

/* --trace: one step of the report's plan as Chrome trace-event JSON
 * (sink_trace.c, docs/step-model.md section 6): a process per rank class
 * (pipeline stage; at most 16: the first and last 8), a compute track that
 * tiles the step (each stage's ops up to microbatch 32, the rest one
 * summary span), a track per communication stream and a memory counter.
 * Returns 0, or -1 with *error set to static text (no GPU data for a step
 * time, a step past the trace's bound, out of memory, a failed flush). */
int dc_report_render_trace(struct dc_report *r, struct dc_buf *out, const char **error);

/* After a render returned -1: "error: 'PATH' is not finite (nan)" when a
 * table row it printed held a number that is not finite (the render
 * stopped there), or NULL when `out` failed (out of memory, a flush). */
const char *dc_report_render_error(const struct dc_report *r);

/* The root field table of the report: the header fields, one object per
 * shown section, the warnings; and the base its offsets are relative to.
 * For sinks and tests. */
const struct dc_fields *dc_report_fields(const struct dc_report *r, const void **base);

#endif
