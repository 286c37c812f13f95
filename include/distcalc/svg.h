/* svg.h - a report as a chart: SVG written by distcalc itself.
 *
 * The chart follows what the report holds:
 *   - a sweep (sweep.h): one line chart per numeric metric against the
 *     first swept value, one line per combination of the other axes; log
 *     axes where the values span decades;
 *   - a report with the memory ledger (the systems experiment): per rank
 *     class one stacked bar per phase, against the GPU-memory line;
 *   - a report with the teaching ring alone (--experiment ring, or
 *     --only ring): the per-round timeline, one lane per rank,
 *     ReduceScatter and AllGather coloured apart;
 *   - whatif: baseline and each fault, one panel per metric unit (step
 *     time, peak memory against the GPU's);
 *   - checkpoint: each rank's bytes and save-phase peak, the save time by
 *     part, what each new rank loads on restore against the GPU;
 *   - search: the Pareto front, step time against peak memory, the
 *     chosen layout ringed, the memory limit dashed;
 *   - loss: the step's loss by recipe, each microbatch's token weight;
 *   - collectives: busbw and algbw against the message size, log axes.
 * Every chart panel is 800 x 500 px (several stack vertically), axes say
 * their units (GiB, ms, GB/s) and a legend names every colour. The bytes
 * depend on the report alone: the same report draws the same file.
 * docs/sweeps.md shows each kind.
 */
#ifndef DISTCALC_SVG_H
#define DISTCALC_SVG_H

#include "distcalc/report.h"
#include "distcalc/util.h"

/* Width and height of one chart panel, in px. */
#define DC_SVG_WIDTH 800
#define DC_SVG_PANEL_HEIGHT 500

/* Appends the chart of `r` to `out` as one standalone SVG document
 * (XML declaration first, UTF-8, ASCII only in practice). Returns 0, or -1:
 * with *why static text when the report has nothing to draw (nothing was
 * appended: an experiment with nothing to draw is an error, never a blank
 * chart), with *why NULL when `out` failed (out->failed). */
int dc_report_render_svg_why(const struct dc_report *r, struct dc_buf *out, const char **why);

/* As dc_report_render_svg_why, without the reason. */
int dc_report_render_svg(const struct dc_report *r, struct dc_buf *out);

#endif
