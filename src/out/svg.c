/* svg.c - the SVG sink: memory bars, the ring's timeline, a sweep's line
 * charts; see svg.h. Coordinates print with one decimal ("%.1f" in the C
 * locale, which the library never changes), so the bytes depend on the
 * report alone. */
#include "distcalc/svg.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "distcalc/calibrate.h"
#include "distcalc/checkpoint.h"
#include "distcalc/loss.h"
#include "distcalc/memory.h"
#include "distcalc/plan.h"
#include "distcalc/results.h"
#include "distcalc/search.h"
#include "distcalc/units.h"
#include "distcalc/util.h"
#include "distcalc/whatif.h"
#include "report_int.h"
#include "sweep_int.h"

#define W DC_SVG_WIDTH
#define H DC_SVG_PANEL_HEIGHT
#define FONT "DejaVu Sans, Arial, Helvetica, sans-serif"

/* colour-blind-safe palette (Okabe and Ito 2008), then greys */
static const char *const palette[] = {
	"#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#000000",
	"#999999", "#7F3C8D", "#11A579", "#3969AC", "#80BA5A",
};
#define NPALETTE (sizeof(palette) / sizeof(palette[0]))

/* ---- primitives ---- */

/* Text content or attribute value: XML's five escapes; bytes outside
 * printable ASCII become '?' (a value from the command line may hold
 * anything, XML 1.0 forbids most control characters). */
static void x_text(struct dc_buf *b, const char *s)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		switch (c) {
		case '&': dc_buf_puts(b, "&amp;"); break;
		case '<': dc_buf_puts(b, "&lt;"); break;
		case '>': dc_buf_puts(b, "&gt;"); break;
		case '"': dc_buf_puts(b, "&quot;"); break;
		case '\'': dc_buf_puts(b, "&apos;"); break;
		default: dc_buf_putc(b, c >= 0x20 && c < 0x7f ? (char)c : '?');
		}
	}
}

/* anchor: "start", "middle" or "end" */
static void text_at(struct dc_buf *b, double x, double y, const char *anchor, int size, const char *extra,
		    const char *s)
{
	dc_buf_printf(b, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\" font-size=\"%d\"%s%s>", x, y, anchor, size,
		      extra ? " " : "", extra ? extra : "");
	x_text(b, s);
	dc_buf_puts(b, "</text>\n");
}

static void rect(struct dc_buf *b, double x, double y, double w, double h, const char *fill, const char *extra)
{
	if (w < 0)
		w = 0;
	if (h < 0)
		h = 0;
	dc_buf_printf(b, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"%s%s/>\n", x, y, w, h,
		      fill, extra ? " " : "", extra ? extra : "");
}

static void line(struct dc_buf *b, double x1, double y1, double x2, double y2, const char *stroke, double width,
		 const char *extra)
{
	dc_buf_printf(b, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" stroke-width=\"%.1f\"%s%s/>\n",
		      x1, y1, x2, y2, stroke, width, extra ? " " : "", extra ? extra : "");
}

/* The run a chart draws, for its title: the config as named, then the
 * command line's --model, --set and --unset in their order, so that a
 * chart of an overridden run says so (a sweep's: its base's, each point's
 * own value on the x axis), then the --calibrate logs and the
 * --calibrate-compute profile as given. Cut with "..." within
 * RUN_TEXT_MAX bytes. */
#define RUN_TEXT_MAX 512
static const char *run_text(const struct dc_report *r, char *buf, size_t n)
{
	size_t len;
	/* an import: the cluster's config and the framework file, as given */
	int k = r->info.import_option && r->info.import_file
			? snprintf(buf, n, "%s%s%s %s", r->info.import_base ? r->info.import_base : "",
				   r->info.import_base ? " " : "", r->info.import_option, r->info.import_file)
			: snprintf(buf, n, "%s", r->config_name ? r->config_name : "");
	len = k < 0 ? 0 : (size_t)k;
	if (r->title_model && len < n) {
		k = snprintf(buf + len, n - len, " --model %s", r->title_model);
		len += k < 0 ? 0 : (size_t)k;
	}
	for (size_t i = 0; i < r->ntitle_sets && len < n; i++) {
		k = snprintf(buf + len, n - len, " %s %s", r->title_sets[i].unset ? "--unset" : "--set",
			     r->title_sets[i].text);
		len += k < 0 ? 0 : (size_t)k;
	}
	/* the fits the run priced with, as given */
	for (size_t i = 0; i < r->info.ncalibrate_logs && len < n; i++) {
		k = snprintf(buf + len, n - len, " --calibrate %s", r->info.calibrate_logs[i]);
		len += k < 0 ? 0 : (size_t)k;
	}
	if (r->info.compute_profile && len < n) {
		k = snprintf(buf + len, n - len, " --calibrate-compute %s", r->info.compute_profile);
		len += k < 0 ? 0 : (size_t)k;
	}
	if (len >= n && n > 4) {
		/* cut (snprintf ended it at n - 1), not inside a UTF-8
		 * character: back to the first byte of the one cut */
		size_t at = n - 4;
		while (at > 0 && ((unsigned char)buf[at] & 0xC0) == 0x80)
			at--;
		memcpy(buf + at, "...", 4);
	}
	return buf;
}

static void doc_begin(struct dc_buf *b, int height, const char *title)
{
	dc_buf_puts(b, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
	dc_buf_printf(b,
		      "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"%d\" height=\"%d\" "
		      "viewBox=\"0 0 %d %d\" font-family=\"%s\">\n",
		      W, height, W, height, FONT);
	dc_buf_puts(b, "<title>");
	x_text(b, title);
	dc_buf_puts(b, "</title>\n");
	rect(b, 0, 0, W, height, "#ffffff", NULL);
}

static void doc_end(struct dc_buf *b)
{
	dc_buf_puts(b, "</svg>\n");
}

/* ---- axes ---- */

/* A display unit: what a base-unit value is divided by, and its name. */
struct dunit {
	double div;
	const char *name; /* "" for none */
};

static struct dunit display_unit(enum dc_unit u)
{
	switch (u) {
	case DC_U_BYTES:
	case DC_U_BYTES_RAW: return (struct dunit){1073741824.0, "GiB"};
	case DC_U_SECONDS: return (struct dunit){1e-3, "ms"};
	case DC_U_GBPS: return (struct dunit){1.0, "GB/s"};
	case DC_U_BYTES_PER_S: return (struct dunit){1e9, "GB/s"};
	case DC_U_RATIO: return (struct dunit){0.01, "%"};
	case DC_U_FLOPS: return (struct dunit){1e12, "TFLOP"};
	case DC_U_PER_S: return (struct dunit){1.0, "1/s"};
	default: return (struct dunit){1.0, ""};
	}
}

/* A number as a tick label: at most 4 significant digits, no trailing
 * zeros, k/M/G suffixes past 10^4. */
static void tick_label(char *buf, size_t len, double v)
{
	static const char *const suffix[] = {"", "k", "M", "G", "T", "P"};
	double a = fabs(v);
	int s = 0;
	if (a >= 1e4) {
		while (a >= 1e3 && s < 5) {
			a /= 1e3;
			v /= 1e3;
			s++;
		}
	}
	if (a == 0)
		snprintf(buf, len, "0");
	else if (a < 1e-3 || a >= 1e4)
		snprintf(buf, len, "%.3g%s", v, suffix[s]);
	else {
		char *p;
		snprintf(buf, len, "%.4g", v);
		/* %.4g gives 1e+03 for 1000 */
		if (strchr(buf, 'e'))
			snprintf(buf, len, "%.0f", v);
		p = buf + strlen(buf);
		snprintf(p, len - (size_t)(p - buf), "%s", suffix[s]);
	}
}

/* A step of 1, 2 or 5 times a power of ten near range / target. */
static double nice_step(double range, int target)
{
	double raw = range / target, mag, f;
	if (!(raw > 0) || !isfinite(raw))
		return 1;
	mag = pow(10, floor(log10(raw)));
	f = raw / mag;
	return (f < 1.5 ? 1 : f < 3.5 ? 2 : f < 7.5 ? 5 : 10) * mag;
}

struct axis {
	double lo, hi; /* in display units (for a log axis, lo > 0) */
	int log;
	double px0, px1; /* screen positions of lo and hi */
};

static double ax_map(const struct axis *a, double v)
{
	double t;
	if (a->log) {
		if (!(v > 0))
			v = a->lo;
		t = (log10(v) - log10(a->lo)) / (log10(a->hi) - log10(a->lo));
	} else {
		t = (v - a->lo) / (a->hi - a->lo);
	}
	if (!isfinite(t))
		t = 0;
	return a->px0 + t * (a->px1 - a->px0);
}

/* Fits an axis to [mn, mx]: log when `may_log`, every value > 0 and they
 * span two decades or more; a linear axis starts at 0 when the values are
 * all >= 0, and both end on a tick. */
static void ax_fit(struct axis *a, double mn, double mx, int may_log, int from_zero)
{
	if (!isfinite(mn) || !isfinite(mx)) {
		mn = 0;
		mx = 1;
	}
	a->log = may_log && mn > 0 && mx / mn >= 100;
	if (a->log) {
		a->lo = pow(10, floor(log10(mn)));
		a->hi = pow(10, ceil(log10(mx)));
		if (a->hi <= a->lo)
			a->hi = a->lo * 10;
		return;
	}
	if (from_zero && mn > 0)
		mn = 0;
	if (mx <= mn) {
		mx = mn + (mn == 0 ? 1 : fabs(mn) * 0.1);
	}
	{
		double st = nice_step(mx - mn, 5);
		a->lo = floor(mn / st) * st;
		a->hi = ceil(mx / st) * st;
		if (a->hi <= a->lo)
			a->hi = a->lo + st;
	}
}

/* Grid lines and tick labels of a vertical (value) axis at x = px, plot
 * from xl to xr. */
static void ax_draw_y(struct dc_buf *b, const struct axis *a, double xl, double xr)
{
	char lab[32];
	if (a->log) {
		for (double v = a->lo; v <= a->hi * 1.0001; v *= 10) {
			double y = ax_map(a, v);
			line(b, xl, y, xr, y, "#dddddd", 1, NULL);
			tick_label(lab, sizeof(lab), v);
			text_at(b, xl - 6, y + 4, "end", 12, NULL, lab);
		}
		return;
	}
	{
		double st = nice_step(a->hi - a->lo, 5);
		for (int i = 0; i <= 12; i++) {
			double v = a->lo + i * st, y;
			if (v > a->hi + st * 1e-6)
				break;
			y = ax_map(a, v);
			line(b, xl, y, xr, y, "#dddddd", 1, NULL);
			tick_label(lab, sizeof(lab), fabs(v) < st * 1e-9 ? 0 : v);
			text_at(b, xl - 6, y + 4, "end", 12, NULL, lab);
		}
	}
}

/* Ticks of a horizontal axis at y = yb (plot bottom), grid up to yt. */
static void ax_draw_x(struct dc_buf *b, const struct axis *a, double yt, double yb)
{
	char lab[32];
	if (a->log) {
		for (double v = a->lo; v <= a->hi * 1.0001; v *= 10) {
			double x = ax_map(a, v);
			line(b, x, yt, x, yb, "#dddddd", 1, NULL);
			tick_label(lab, sizeof(lab), v);
			text_at(b, x, yb + 18, "middle", 12, NULL, lab);
		}
		return;
	}
	{
		double st = nice_step(a->hi - a->lo, 6);
		for (int i = 0; i <= 14; i++) {
			double v = a->lo + i * st, x;
			if (v > a->hi + st * 1e-6)
				break;
			x = ax_map(a, v);
			line(b, x, yt, x, yb, "#dddddd", 1, NULL);
			tick_label(lab, sizeof(lab), fabs(v) < st * 1e-9 ? 0 : v);
			text_at(b, x, yb + 18, "middle", 12, NULL, lab);
		}
	}
}

/* The plot frame and the axis titles (y rotated). */
static void frame(struct dc_buf *b, double x0, double y0, double x1, double y1, const char *xtitle,
		  const char *ytitle)
{
	char attr[96];
	line(b, x0, y1, x1, y1, "#333333", 1, NULL);
	line(b, x0, y0, x0, y1, "#333333", 1, NULL);
	if (xtitle)
		text_at(b, (x0 + x1) / 2, y1 + 40, "middle", 13, NULL, xtitle);
	if (ytitle) {
		snprintf(attr, sizeof(attr), "transform=\"rotate(-90 %.1f %.1f)\"", 18.0, (y0 + y1) / 2);
		text_at(b, 18, (y0 + y1) / 2, "middle", 13, attr, ytitle);
	}
}

/* One legend entry at (x, y): a swatch (a bar or a line) and its name. */
static void legend_entry(struct dc_buf *b, double x, double y, const char *colour, int as_line, const char *name)
{
	char attr[64];
	if (as_line) {
		line(b, x, y - 4, x + 18, y - 4, colour, 2.5, NULL);
		snprintf(attr, sizeof(attr), "fill=\"%s\"", colour);
		dc_buf_printf(b, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" %s/>\n", x + 9, y - 4, attr);
	} else {
		rect(b, x, y - 10, 14, 12, colour, "stroke=\"#333333\" stroke-width=\"0.5\"");
	}
	text_at(b, x + 24, y, "start", 12, NULL, name);
}

/* ---- systems with step time: the step's breakdown per rank class ---- */

#define STEP_PARTS (4 + DC_STRAT_COUNT + 1)
static const char *const step_part_names[STEP_PARTS] = {
	"compute", "exposed dp comm", "exposed fsdp comm", "exposed tp comm", "exposed pp comm", "exposed ep comm",
	"exposed cp comm", "pipeline bubble", "waiting at the sync", "optimizer step", "other",
};
static const char *const step_part_colours[STEP_PARTS] = {
	"#0072B2", "#E69F00", "#8C564B", "#CC79A7", "#009E73", "#F0E442", "#D55E00", "#A6A6A6", "#E5E5E5", "#56B4E9",
	"#17BECF",
};

/* A class's step, part by part (step.h, struct dc_step_class): compute,
 * the exposed communication of each strategy, the bubble, the wait at the
 * gradient sync, the optimizer; "other" is what they leave of the class's
 * total, so a bar always ends at the step time the report prints. */
static void step_parts(const struct dc_step_class *c, double part[STEP_PARTS])
{
	double sum = 0;
	part[0] = c->compute_s;
	for (int s = 0; s < DC_STRAT_COUNT; s++)
		part[1 + s] = c->exposed_s[s];
	part[1 + DC_STRAT_COUNT] = c->bubble_s;
	part[2 + DC_STRAT_COUNT] = c->tail_wait_s;
	part[3 + DC_STRAT_COUNT] = c->optimizer_s;
	for (int k = 0; k < STEP_PARTS - 1; k++)
		sum += part[k];
	/* below a nanosecond of a second-long step is rounding */
	part[STEP_PARTS - 1] = c->total_s - sum > 1e-9 * c->total_s ? c->total_s - sum : 0;
}

/* One panel at y offset `oy`: a horizontal stacked bar per class. */
static void draw_step(const struct dc_report *r, double oy, struct dc_buf *b)
{
	const struct dc_step *st = &r->res.step;
	const double x0 = 120, x1 = 560, y0 = oy + 70, y1 = oy + 420;
	struct dunit tu = st->time_s < 2 ? (struct dunit){1e-3, "ms"} : (struct dunit){1.0, "s"};
	uint64_t n = st->nclasses < DC_PLAN_MAX_SEGMENTS ? st->nclasses : DC_PLAN_MAX_SEGMENTS;
	int used[STEP_PARTS] = {0};
	double top = st->time_s, row_h;
	struct axis ax;
	char buf[320];

	for (uint64_t i = 0; i < n; i++)
		if (st->classes[i].total_s > top)
			top = st->classes[i].total_s;
	snprintf(buf, sizeof(buf), "Step time per rank class: %.3f %s", st->time_s / tu.div, tu.name);
	text_at(b, W / 2.0, oy + 26, "middle", 17, "font-weight=\"bold\"", buf);
	snprintf(buf, sizeof(buf), "%.0f tokens/s per GPU, MFU %.1f%%, bubble %.1f%% of the critical stage's busy time",
		 st->tokens_per_s_per_gpu, st->mfu * 100, st->bubble_fraction * 100);
	text_at(b, W / 2.0, oy + 45, "middle", 12, "fill=\"#555555\"", buf);
	ax.px0 = x0;
	ax.px1 = x1;
	/* room right of the longest bar for its label */
	ax_fit(&ax, 0, top / tu.div * 1.2, 0, 1);
	ax_draw_x(b, &ax, y0, y1);
	snprintf(buf, sizeof(buf), "time per step [%s]", tu.name);
	frame(b, x0, y0, x1, y1, buf, NULL);
	row_h = (y1 - y0) / (double)(n ? n : 1);
	if (row_h > 70)
		row_h = 70;
	for (uint64_t i = 0; i < n; i++) {
		const struct dc_step_class *c = &st->classes[i];
		double part[STEP_PARTS], acc = 0, y = y0 + 10 + (double)i * row_h;
		step_parts(c, part);
		for (int k = 0; k < STEP_PARTS; k++) {
			double xa, xb;
			if (!(part[k] > 0))
				continue;
			used[k] = 1;
			xa = ax_map(&ax, acc / tu.div);
			acc += part[k];
			xb = ax_map(&ax, acc / tu.div);
			rect(b, xa, y, xb - xa, row_h - 20, step_part_colours[k], "stroke=\"#ffffff\" stroke-width=\"0.5\"");
		}
		if (c->stage_first == c->stage_last)
			snprintf(buf, sizeof(buf), "stage %llu", (unsigned long long)c->stage_first);
		else
			snprintf(buf, sizeof(buf), "stages %llu-%llu", (unsigned long long)c->stage_first,
				 (unsigned long long)c->stage_last);
		text_at(b, x0 - 6, y + (row_h - 20) / 2 + 4, "end", 12, NULL, buf);
		snprintf(buf, sizeof(buf), "%.3f %s", c->total_s / tu.div, tu.name);
		text_at(b, ax_map(&ax, acc / tu.div) + 4, y + (row_h - 20) / 2 + 4, "start", 11, NULL, buf);
	}
	{
		double ly = y0 + 6;
		text_at(b, 600, ly, "start", 13, "font-weight=\"bold\"", "legend");
		ly += 20;
		for (int k = 0; k < STEP_PARTS; k++) {
			if (!used[k])
				continue;
			legend_entry(b, 600, ly, step_part_colours[k], 0, step_part_names[k]);
			ly += 20;
		}
	}
}

/* ---- systems: the memory ledger per class, one bar per phase ---- */

#define MEM_PARTS 14
/* one colour per part, none the GPU line's */
static const char *const part_colours[MEM_PARTS] = {
	"#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#8C564B", "#F0E442",
	"#555555", "#7F3C8D", "#A6A6A6", "#BCBD22", "#D55E00", "#E5E5E5", "#17BECF",
};
static const char *const part_names[MEM_PARTS] = {
	"params", "grads", "master copy", "optimizer states", "activations", "FSDP gathered params",
	"FSDP unsharded grads", "DDP buckets", "backward working set", "NCCL buffers", "CUDA context + workspace",
	"FP8 weight copies", "allocator reserve", "other",
};

/* What phase `ph` of ledger `l` holds, part by part (memory.c's phase sums,
 * docs/formulas-systems.md "Memory ledger"); "other" is what the named
 * parts leave of the phase's total, so a bar is always the total the
 * report prints. */
static void mem_parts(const struct dc_mem_ledger *l, int ph, uint64_t part[MEM_PARTS])
{
	uint64_t sum = 0;
	memset(part, 0, MEM_PARTS * sizeof(part[0]));
	part[0] = l->params_bytes;
	part[1] = l->grads_bytes;
	part[2] = l->master_bytes;
	part[3] = l->optimizer_bytes;
	part[9] = l->comm_buffers_bytes;
	part[10] = l->cuda_context_bytes + l->workspace_bytes;
	if (ph == DC_MEM_FORWARD) {
		part[4] = l->activations_bytes;
		part[5] = l->fsdp_forward_params_bytes;
	} else if (ph == DC_MEM_BACKWARD) {
		part[4] = l->activations_bytes;
		part[5] = l->fsdp_backward_params_bytes;
		part[6] = l->fsdp_unsharded_grads_bytes;
		part[7] = l->ddp_buckets_bytes;
		/* the backward working set: the head's loss gradients, then a
		 * layer rebuilt, the larger of the two */
		part[8] = l->activation_recompute_bytes > l->activation_head_backward_bytes ? l->activation_recompute_bytes
											: l->activation_head_backward_bytes;
	}
	part[11] = l->fp8_weight_copies_bytes; /* every phase (memory.c) */
	part[12] = l->phase_reserve_bytes[ph];
	for (int i = 0; i < MEM_PARTS - 1; i++)
		sum += part[i];
	part[13] = l->phase_bytes[ph] > sum ? l->phase_bytes[ph] - sum : 0;
}

#define MEM_MAX_CLASSES 4

static void draw_memory(const struct dc_report *r, struct dc_buf *b)
{
	const struct dc_memory_result *m = &r->res.memory;
	struct dc_mem_ledger led[MEM_MAX_CLASSES];
	uint64_t cls[MEM_MAX_CLASSES], gpu = r->in.cluster.gpu_mem_bytes, top = gpu;
	size_t n = 0, used_parts[MEM_PARTS] = {0};
	const double x0 = 70, x1 = 560, y0 = 60, y1 = 430;
	struct axis ay;
	char buf[800], run[RUN_TEXT_MAX];
	double group_w, bar_w;
	/* with step time (cluster.gpu or the peak FLOPs given), a second panel */
	int with_step = (r->res.done & DC_EST_BIT(DC_EST_STEP)) && r->res.step.available;

	for (uint64_t i = 0; i < m->nclasses && n < MEM_MAX_CLASSES; i++)
		cls[n++] = i;
	/* the most loaded class is always drawn */
	if (m->most_loaded >= n && n > 0)
		cls[n - 1] = m->most_loaded;
	for (size_t i = 0; i < n; i++) {
		if (dc_memory_class_at(&r->plan, m, cls[i], &led[i]) != 0)
			memset(&led[i], 0, sizeof(led[i]));
		for (int ph = 0; ph < DC_MEM_PHASE_COUNT; ph++)
			if (led[i].phase_bytes[ph] > top)
				top = led[i].phase_bytes[ph];
	}
	/* the document's title names the whole run; the heading drawn, the
	 * config alone (a command line's overrides would run off the page) */
	snprintf(buf, sizeof(buf), "Memory per rank by phase: %s", run_text(r, run, sizeof(run)));
	doc_begin(b, with_step ? 2 * H : H, buf);
	snprintf(buf, sizeof(buf), "Memory per rank by phase: %s", r->config_name ? r->config_name : "");
	text_at(b, W / 2.0, 26, "middle", 17, "font-weight=\"bold\"", buf);
	group_w = (x1 - x0) / (double)(n ? n : 1);
	bar_w = (group_w - 24) / DC_MEM_PHASE_COUNT;
	{
		char more[64] = "";
		if (m->nclasses > n)
			snprintf(more, sizeof(more), "; %zu of %llu classes: the first, the most loaded", n,
				 (unsigned long long)m->nclasses);
		if (bar_w < 40)
			snprintf(buf, sizeof(buf), "per class of ranks: F forward, B backward, O optimizer, C checkpoint%s",
				 more);
		else
			snprintf(buf, sizeof(buf), "one bar per phase, per class of ranks with identical ledgers%s", more);
	}
	text_at(b, W / 2.0, 45, "middle", 12, "fill=\"#555555\"", buf);

	ay.px0 = y1;
	ay.px1 = y0;
	ax_fit(&ay, 0, (double)top / 1073741824.0 * 1.05, 0, 1);
	ax_draw_y(b, &ay, x0, x1);
	frame(b, x0, y0, x1, y1, NULL, "memory per rank [GiB]");

	for (size_t i = 0; i < n; i++) {
		double gx = x0 + (double)i * group_w + 12;
		for (int ph = 0; ph < DC_MEM_PHASE_COUNT; ph++) {
			uint64_t part[MEM_PARTS], acc = 0;
			double bx = gx + ph * bar_w + 2, peak_y;
			static const char *const short_phase[] = {"fwd", "bwd", "optim", "ckpt"};
			static const char *const letter_phase[] = {"F", "B", "O", "C"};
			mem_parts(&led[i], ph, part);
			for (int k = 0; k < MEM_PARTS; k++) {
				double ya, yb;
				if (!part[k])
					continue;
				used_parts[k] = 1;
				ya = ax_map(&ay, (double)acc / 1073741824.0);
				acc += part[k];
				yb = ax_map(&ay, (double)acc / 1073741824.0);
				rect(b, bx, yb, bar_w - 4, ya - yb, part_colours[k], "stroke=\"#ffffff\" stroke-width=\"0.5\"");
			}
			peak_y = ax_map(&ay, (double)led[i].phase_bytes[ph] / 1073741824.0);
			snprintf(buf, sizeof(buf), "%.1f", (double)led[i].phase_bytes[ph] / 1073741824.0);
			text_at(b, bx + (bar_w - 4) / 2, peak_y - 4, "middle", 10, NULL, buf);
			text_at(b, bx + (bar_w - 4) / 2, y1 + 14, "middle", 11, NULL,
				(bar_w < 40 ? letter_phase : short_phase)[ph]);
		}
		if (led[i].stage_first == led[i].stage_last)
			snprintf(buf, sizeof(buf), "class %llu: stage %llu", (unsigned long long)cls[i],
				 (unsigned long long)led[i].stage_first);
		else
			snprintf(buf, sizeof(buf), "class %llu: stages %llu-%llu", (unsigned long long)cls[i],
				 (unsigned long long)led[i].stage_first, (unsigned long long)led[i].stage_last);
		text_at(b, gx + group_w / 2 - 12, y1 + 32, "middle", 12, NULL, buf);
	}
	/* the GPU's memory */
	{
		double gy = ax_map(&ay, (double)gpu / 1073741824.0);
		line(b, x0, gy, x1, gy, "#D55E00", 2, "stroke-dasharray=\"8 4\"");
	}
	/* legend, top part first as the bars stack bottom up; the GPU's
	 * memory is named here, not beside its line, where the bars' totals
	 * would collide with it near the limit */
	{
		double ly = y0 + 6;
		text_at(b, 580, ly, "start", 13, "font-weight=\"bold\"", "legend");
		ly += 20;
		line(b, 580, ly - 4, 598, ly - 4, "#D55E00", 2, "stroke-dasharray=\"8 4\"");
		snprintf(buf, sizeof(buf), "GPU memory %.1f GiB", (double)gpu / 1073741824.0);
		text_at(b, 604, ly, "start", 12, NULL, buf);
		ly += 20;
		for (int k = MEM_PARTS - 1; k >= 0; k--) {
			if (!used_parts[k])
				continue;
			legend_entry(b, 580, ly, part_colours[k], 0, part_names[k]);
			ly += 20;
		}
	}
	snprintf(buf, sizeof(buf), "peak %.2f GiB (%s): %s %.1f GiB", (double)m->top.peak_bytes / 1073741824.0,
		 dc_mem_phase_name(m->top.peak_phase), m->top.fits ? "fits in" : "does NOT fit in",
		 (double)gpu / 1073741824.0);
	text_at(b, W / 2.0, 488, "middle", 12, NULL, buf);
	if (with_step) {
		line(b, 0, H, W, H, "#bbbbbb", 1, NULL);
		draw_step(r, H, b);
	}
	doc_end(b);
}

/* ---- ring: one lane per rank, one box per round ---- */

#define RING_MAX_LANES 32
#define RING_MAX_ROUNDS 256

static void draw_ring(const struct dc_report *r, struct dc_buf *b)
{
	const struct dc_ring *ring = &r->res.ring;
	uint64_t lanes = ring->ranks < RING_MAX_LANES ? ring->ranks : RING_MAX_LANES;
	/* the lanes end at 400: the x axis's title (y1 + 40) clear of the
	 * legend at 470 (at 420 it sat on the legend's second entry) */
	const double x0 = 80, x1 = 770, y0 = 70, y1 = 400;
	struct axis ax;
	struct dunit tu = ring->time_s < 1e-3 ? (struct dunit){1e-6, "us"} : (struct dunit){1e-3, "ms"};
	char buf[320], title[600], run[RUN_TEXT_MAX];
	double lane_h = (y1 - y0) / (double)(lanes ? lanes : 1);
	int merged = ring->rounds > RING_MAX_ROUNDS;

	snprintf(title, sizeof(title), "Ring AllReduce: %s", run_text(r, run, sizeof(run)));
	doc_begin(b, H, title);
	snprintf(buf, sizeof(buf), "Ring AllReduce: %llu ranks, %.3f GiB each, %s link %.1f GB/s",
		 (unsigned long long)ring->ranks, (double)ring->msg_bytes / 1073741824.0,
		 dc_link_choice_name(ring->link_used), ring->link.bw_bytes_per_s / 1e9);
	text_at(b, W / 2.0, 26, "middle", 17, "font-weight=\"bold\"", buf);
	snprintf(buf, sizeof(buf), "%llu rounds of %.3f %s: time %.3f %s, busbw %.2f GB/s%s",
		 (unsigned long long)ring->rounds, ring->round_s / tu.div, tu.name, ring->time_s / tu.div, tu.name,
		 ring->have_bw ? ring->busbw_GBps : 0.0, merged ? " (rounds merged per phase)" : "");
	text_at(b, W / 2.0, 45, "middle", 12, "fill=\"#555555\"", buf);

	ax.px0 = x0;
	ax.px1 = x1;
	ax_fit(&ax, 0, ring->time_s / tu.div, 0, 1);
	ax_draw_x(b, &ax, y0, y1);
	snprintf(buf, sizeof(buf), "time [%s]", tu.name);
	frame(b, x0, y0, x1, y1, buf, NULL);

	for (uint64_t k = 0; k < lanes; k++) {
		double ly = y0 + (double)k * lane_h;
		snprintf(buf, sizeof(buf), "rank %llu", (unsigned long long)k);
		if (lane_h >= 9)
			text_at(b, x0 - 6, ly + lane_h / 2 + 4, "end", lane_h >= 14 ? 12 : 9, NULL, buf);
		if (merged) {
			double mid = ring->time_s / 2 / tu.div;
			rect(b, ax_map(&ax, 0), ly + 1, ax_map(&ax, mid) - ax_map(&ax, 0), lane_h - 2, palette[0], NULL);
			rect(b, ax_map(&ax, mid), ly + 1, ax_map(&ax, ring->time_s / tu.div) - ax_map(&ax, mid), lane_h - 2,
			     palette[1], NULL);
			continue;
		}
		for (uint64_t rd = 0; rd < ring->rounds; rd++) {
			struct dc_ring_event e;
			double xa, xb;
			dc_ring_event_at(ring, rd * ring->ranks + k, &e);
			xa = ax_map(&ax, e.start_s / tu.div);
			xb = ax_map(&ax, e.end_s / tu.div);
			rect(b, xa, ly + 1, xb - xa, lane_h - 2, palette[e.phase == DC_PHASE_REDUCE_SCATTER ? 0 : 1],
			     "stroke=\"#ffffff\" stroke-width=\"0.5\"");
			if (xb - xa >= 22 && lane_h >= 12) {
				snprintf(buf, sizeof(buf), "c%llu", (unsigned long long)e.chunk);
				text_at(b, (xa + xb) / 2, ly + lane_h / 2 + 4, "middle", lane_h >= 16 ? 11 : 9,
					"fill=\"#ffffff\"", buf);
			}
		}
	}
	legend_entry(b, x0, 470, palette[0], 0, "reduce-scatter (send chunk, add)");
	legend_entry(b, x0 + 280, 470, palette[1], 0, "all-gather (send reduced chunk)");
	if (ring->ranks > lanes) {
		snprintf(buf, sizeof(buf), "ranks %llu-%llu run the same rounds (not drawn)", (unsigned long long)lanes,
			 (unsigned long long)(ring->ranks - 1));
		text_at(b, x1, 488, "end", 11, "fill=\"#555555\"", buf);
	} else {
		text_at(b, x1, 488, "end", 11, "fill=\"#555555\"", "cN: the chunk a rank sends in that round");
	}
	doc_end(b);
}

/* ---- sweep: one line chart per numeric metric ---- */

#define SWEEP_MAX_SERIES 8

/* The number a value's text starts with ("400 Gb/s": 400) and what
 * follows it; -1 when it starts with none. */
static int leading_number(const char *s, double *v, const char **rest)
{
	char *end;
	*v = strtod(s, &end);
	if (end == s || !isfinite(*v))
		return -1;
	while (*end == ' ')
		end++;
	*rest = end;
	return 0;
}

static double cell_value(const struct dc_sweep_metric *m, const union dc_sweep_cell *c)
{
	return m->type == DC_FT_U64 ? (double)c->u : c->d;
}

static void draw_sweep_panel(const struct dc_sweep *sw, size_t k, double oy, int numeric, const double *xs,
			     const char *xunit, struct dc_buf *b)
{
	const struct dc_sweep_metric *m = &sw->metric[k];
	struct dunit du = display_unit(m->unit);
	const double x0 = 80, x1 = 560, y0 = oy + 60, y1 = oy + 410;
	size_t nx = sw->nvalues[0], nseries = sw->npoints / nx, invalid = 0, nofit = 0;
	double mn = INFINITY, mx = -INFINITY, xmn = INFINITY, xmx = -INFINITY;
	uint64_t gpu_bytes = 0;
	int mark_fits = 0;
	struct axis ax, ay;
	char buf[320];

	/* seconds: ms unless the values run to seconds (a step) or stay
	 * under a millisecond (a small message's ring) */
	if (m->unit == DC_U_SECONDS) {
		double top = 0;
		for (size_t i = 0; i < sw->npoints; i++)
			if (sw->points[i].ok && !sw->points[i].null[k] && cell_value(m, &sw->points[i].cell[k]) > top)
				top = cell_value(m, &sw->points[i].cell[k]);
		if (top >= 2)
			du = (struct dunit){1.0, "s"};
		else if (top > 0 && top < 1e-3)
			du = (struct dunit){1e-6, "us"};
	}
	for (size_t i = 0; i < sw->npoints; i++) {
		const struct dc_sweep_point *pt = &sw->points[i];
		double v;
		if (!pt->ok) {
			invalid++;
			continue;
		}
		if (pt->null[k])
			continue;
		v = cell_value(m, &pt->cell[k]) / du.div;
		mn = v < mn ? v : mn;
		mx = v > mx ? v : mx;
	}
	for (size_t j = 0; j < nx; j++) {
		xmn = xs[j] < xmn ? xs[j] : xmn;
		xmx = xs[j] > xmx ? xs[j] : xmx;
	}
	if (mn > mx)
		mn = mx = 0;
	/* a peak memory panel shows the GPU's memory, when every point that
	 * ran has the same, and marks the points that do not fit */
	if ((m->unit == DC_U_BYTES || m->unit == DC_U_BYTES_RAW) && strstr(m->path, "peak_bytes")) {
		for (size_t i = 0; i < sw->npoints; i++) {
			const struct dc_sweep_point *pt = &sw->points[i];
			if (!pt->ok || !pt->has_memory)
				continue;
			if (gpu_bytes && pt->gpu_mem_bytes != gpu_bytes) {
				gpu_bytes = 0;
				break;
			}
			gpu_bytes = pt->gpu_mem_bytes;
		}
		mark_fits = 1;
		/* room above the line for its label */
		if (gpu_bytes && (double)gpu_bytes / du.div * 1.08 > mx)
			mx = (double)gpu_bytes / du.div * 1.08;
	}
	/* the title in words (the table's column label) and its unit; the
	 * JSON path below it */
	snprintf(buf, sizeof(buf), "%s%s%s%s against %s", m->label[0] ? m->label : m->path, du.name[0] ? " [" : "",
		 du.name, du.name[0] ? "]" : "", sw->axis[0]);
	text_at(b, W / 2.0, oy + 26, "middle", 17, "font-weight=\"bold\"", buf);
	if (invalid)
		snprintf(buf, sizeof(buf), "%s: %zu of %zu points did not run (the table says why): gaps in the lines",
			 m->path, invalid, sw->npoints);
	else
		snprintf(buf, sizeof(buf), "%s: %zu points", m->path, sw->npoints);
	text_at(b, W / 2.0, oy + 45, "middle", 12, "fill=\"#555555\"", buf);

	ax.px0 = x0 + 10;
	ax.px1 = x1 - 10;
	if (numeric) {
		/* the values themselves bound the axis (their ticks are the
		 * values): no empty margin */
		ax_fit(&ax, xmn, xmx, 1, 0);
		ax.lo = xmn;
		ax.hi = xmx > xmn ? xmx : xmn + 1;
	} else {
		ax.log = 0;
		ax.lo = 0;
		ax.hi = nx > 1 ? (double)(nx - 1) : 1;
	}
	ay.px0 = y1;
	ay.px1 = y0;
	ax_fit(&ay, mn, mx, 1, 1);
	ax_draw_y(b, &ay, x0, x1);
	/* a tick at each swept value, labelled as written (on a log axis too:
	 * "1 KiB" says more than a decade's "1k"); past 12 values, every
	 * other one or fewer */
	{
		size_t every = nx > 12 ? (nx + 11) / 12 : 1;
		for (size_t j = 0; j < nx; j++) {
			double x = ax_map(&ax, numeric ? xs[j] : (double)j);
			line(b, x, y0, x, y1, "#eeeeee", 1, NULL);
			line(b, x, y1, x, y1 + 5, "#333333", 1, NULL);
			if (j % every == 0)
				text_at(b, x, y1 + 18, "middle", 12, NULL, sw->points[j * nseries].value[0]);
		}
	}
	snprintf(buf, sizeof(buf), "%s%s%s%s%s", sw->axis[0], xunit && *xunit ? " [" : "", xunit ? xunit : "",
		 xunit && *xunit ? "]" : "", numeric && ax.log ? " (log scale)" : "");
	frame(b, x0, y0, x1, y1, buf, NULL);
	{
		char yt[200], attr[96];
		snprintf(yt, sizeof(yt), "%s%s%s%s%s", m->label, du.name[0] ? " [" : "", du.name,
			 du.name[0] ? "]" : "", ay.log ? " (log)" : "");
		snprintf(attr, sizeof(attr), "transform=\"rotate(-90 %.1f %.1f)\"", 18.0, (y0 + y1) / 2);
		text_at(b, 18, (y0 + y1) / 2, "middle", 13, attr, yt);
	}

	if (gpu_bytes) {
		double gy = ax_map(&ay, (double)gpu_bytes / du.div);
		line(b, x0, gy, x1, gy, "#D55E00", 2, "stroke-dasharray=\"8 4\"");
		snprintf(buf, sizeof(buf), "GPU memory %.1f GiB", (double)gpu_bytes / 1073741824.0);
		text_at(b, x1 - 4, gy - 6, "end", 12, "fill=\"#D55E00\"", buf);
	}
	/* the series: points that share every axis but the first */
	for (size_t s = 0; s < nseries && s < SWEEP_MAX_SERIES; s++) {
		const char *col = palette[s % NPALETTE];
		int open = 0;
		for (size_t j = 0; j < nx; j++) {
			const struct dc_sweep_point *pt = &sw->points[j * nseries + s];
			double x = ax_map(&ax, numeric ? xs[j] : (double)j), y;
			if (!pt->ok || pt->null[k]) {
				if (open)
					dc_buf_puts(b, "\"/>\n");
				open = 0;
				if (!pt->ok)
					text_at(b, x, y1 - 6, "middle", 14, "fill=\"#D55E00\"", "x");
				continue;
			}
			y = ax_map(&ay, cell_value(m, &pt->cell[k]) / du.div);
			if (!open)
				dc_buf_printf(b, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2.5\" points=\"", col);
			dc_buf_printf(b, "%s%.1f,%.1f", open ? " " : "", x, y);
			open = 1;
		}
		if (open)
			dc_buf_puts(b, "\"/>\n");
		for (size_t j = 0; j < nx; j++) {
			const struct dc_sweep_point *pt = &sw->points[j * nseries + s];
			double x = ax_map(&ax, numeric ? xs[j] : (double)j);
			if (!pt->ok || pt->null[k])
				continue;
			if (mark_fits && pt->has_memory && !pt->fits) {
				/* hollow: the most loaded rank does not fit */
				nofit++;
				dc_buf_printf(b,
					      "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"5\" fill=\"#ffffff\" stroke=\"%s\" "
					      "stroke-width=\"2.5\"/>\n",
					      x, ax_map(&ay, cell_value(m, &pt->cell[k]) / du.div), col);
				continue;
			}
			dc_buf_printf(b, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"%s\"/>\n", x,
				      ax_map(&ay, cell_value(m, &pt->cell[k]) / du.div), col);
		}
	}
	/* legend */
	{
		double ly = y0 + 6;
		text_at(b, 580, ly, "start", 13, "font-weight=\"bold\"", "legend");
		ly += 20;
		for (size_t s = 0; s < nseries && s < SWEEP_MAX_SERIES; s++) {
			size_t used = 0;
			buf[0] = '\0';
			for (size_t a = 1; a < sw->naxes; a++)
				used += (size_t)snprintf(buf + used, sizeof(buf) - used, "%s%s=%s", a > 1 ? ", " : "",
							 sw->axis[a], sw->points[s].value[a]);
			if (sw->naxes == 1)
				snprintf(buf, sizeof(buf), "%s", m->label);
			legend_entry(b, 580, ly, palette[s % NPALETTE], 1, buf);
			ly += 20;
		}
		if (nseries > SWEEP_MAX_SERIES) {
			snprintf(buf, sizeof(buf), "%zu more series not drawn", nseries - SWEEP_MAX_SERIES);
			text_at(b, 580, ly, "start", 11, "fill=\"#555555\"", buf);
			ly += 20;
		}
		if (gpu_bytes) {
			line(b, 580, ly - 4, 598, ly - 4, "#D55E00", 2, "stroke-dasharray=\"8 4\"");
			text_at(b, 604, ly, "start", 12, NULL, "GPU memory");
			ly += 20;
		}
		if (nofit) {
			dc_buf_printf(b, "<circle cx=\"589\" cy=\"%.1f\" r=\"5\" fill=\"#ffffff\" stroke=\"#333333\" "
				      "stroke-width=\"2\"/>\n", ly - 4);
			text_at(b, 604, ly, "start", 12, NULL, "does not fit");
			ly += 20;
		}
		if (invalid) {
			text_at(b, 589, ly, "middle", 14, "fill=\"#D55E00\"", "x");
			text_at(b, 604, ly, "start", 12, NULL, "point did not run");
		}
	}
}

/* A metric gets a panel when it is a number and some point that ran has
 * it (the step's metrics are null without cluster.gpu), or none ran; a
 * default column of context (the GPU count beside the values) does not. */
static int drawable(const struct dc_sweep *sw, size_t k)
{
	if ((sw->metric[k].type != DC_FT_U64 && sw->metric[k].type != DC_FT_F64) || sw->metric[k].context)
		return 0;
	if (sw->valid == 0)
		return 1;
	for (size_t i = 0; i < sw->npoints; i++)
		if (sw->points[i].ok && !sw->points[i].null[k])
			return 1;
	return 0;
}

static void draw_sweep(const struct dc_sweep *sw, const char *run_name, struct dc_buf *b)
{
	size_t nx = sw->nvalues[0], panels = 0, drawn = 0;
	double xs[DC_SWEEP_MAX_POINTS];
	const char *unit = NULL;
	int numeric = 1;
	char title[1200];
	size_t nseries = sw->npoints / (nx ? nx : 1);

	for (size_t k = 0; k < sw->nmetrics; k++)
		panels += (size_t)drawable(sw, k);
	/* the first axis is numeric when every value is a quantity of the
	 * key's kind ("1 KiB, 1 MiB": bytes; "100 Gb/s, 50 GB/s": bytes/s),
	 * or a number with one shared suffix ("1, 2, 4") */
	{
		const struct dc_config_key_info *key = dc_config_key_find(sw->axis[0]);
		const char *kind = key ? key->kind : "";
		for (size_t j = 0; j < nx && numeric; j++) {
			const char *v = sw->points[j * nseries].value[0], *rest;
			char err[160];
			uint64_t u;
			if (strcmp(kind, "bytes") == 0) {
				numeric = dc_units_parse_bytes(v, &u, err, sizeof(err)) == 0;
				xs[j] = (double)u;
				unit = "";
			} else if (strcmp(kind, "bandwidth") == 0) {
				numeric = dc_units_parse_bandwidth(v, &xs[j], err, sizeof(err)) == 0;
				xs[j] /= 1e9;
				unit = "";
			} else if (strcmp(kind, "time") == 0) {
				numeric = dc_units_parse_time(v, &xs[j], err, sizeof(err)) == 0;
				unit = "";
			} else if (leading_number(v, &xs[j], &rest) != 0 || (unit && strcmp(unit, rest) != 0)) {
				numeric = 0;
			} else {
				unit = rest;
			}
		}
	}
	snprintf(title, sizeof(title), "distcalc sweep over %s: %s", sw->axes_text, run_name);
	doc_begin(b, (int)(H * (panels ? panels : 1)), title);
	for (size_t k = 0; k < sw->nmetrics; k++) {
		if (!drawable(sw, k))
			continue;
		draw_sweep_panel(sw, k, (double)(drawn * H), numeric, xs, numeric ? unit : NULL, b);
		drawn++;
		if (drawn < panels)
			line(b, 0, (double)(drawn * H), W, (double)(drawn * H), "#bbbbbb", 1, NULL);
	}
	if (!panels)
		text_at(b, W / 2.0, H / 2.0, "middle", 16, NULL,
			"no metric with a number to draw: pick some with --sweep-metrics");
	doc_end(b);
}

/* ---- the experiments' charts: grouped bars and x-y points ---- */

/* One panel's title (bold) and subtitle at the top of the panel at oy. */
static void panel_titles(struct dc_buf *b, double oy, const char *title, const char *sub)
{
	text_at(b, W / 2.0, oy + 26, "middle", 17, "font-weight=\"bold\"", title);
	if (sub && sub[0])
		text_at(b, W / 2.0, oy + 45, "middle", 12, "fill=\"#555555\"", sub);
}

/* A category label under its group, split at the space or underscore
 * nearest its middle when it is wider than the group (about 6 px a
 * character at 11 px), on two lines; a label of one word is never split,
 * its font made smaller to fit instead (6 px at least). */
static void category_label(struct dc_buf *b, double x, double y, double width, const char *s)
{
	char l1[64], l2[64];
	size_t n = strlen(s), cut = 0, best = n;
	if (n >= sizeof(l1))
		n = sizeof(l1) - 1;
	if ((double)n * 6.2 <= width) {
		memcpy(l1, s, n);
		l1[n] = 0;
		for (char *p = l1; *p; p++)
			if (*p == '_')
				*p = ' ';
		text_at(b, x, y, "middle", 11, NULL, l1);
		return;
	}
	for (size_t i = 1; i + 1 < n; i++)
		if ((s[i] == ' ' || s[i] == '_') &&
		    (best == n || (i > n / 2 ? i - n / 2 : n / 2 - i) < (best > n / 2 ? best - n / 2 : n / 2 - best)))
			best = i;
	if (best == n) {
		/* one word (a rank, "0.10"): never cut inside it (a trial read
		 * "0." over "10"), but a smaller font where the group is
		 * narrow, down to 6 px */
		int size = (int)(11.0 * width / ((double)n * 6.2));
		memcpy(l1, s, n);
		l1[n] = 0;
		text_at(b, x, y, "middle", size < 6 ? 6 : size > 11 ? 11 : size, NULL, l1);
		return;
	}
	cut = best;
	memcpy(l1, s, cut);
	l1[cut] = 0;
	snprintf(l2, sizeof(l2), "%.*s", (int)(n - cut - 1), s + cut + 1);
	for (char *p = l1; *p; p++)
		if (*p == '_')
			*p = ' ';
	for (char *p = l2; *p; p++)
		if (*p == '_')
			*p = ' ';
	text_at(b, x, y, "middle", 11, NULL, l1);
	text_at(b, x, y + 13, "middle", 11, NULL, l2);
}

#define BAR_MAX_SERIES 4

struct bar_series {
	const char *name, *colour;
	const double *v; /* one value a category, display units; NAN: none */
};

/* Grouped bars in the panel at oy: ncat categories, nser series; a
 * dashed reference line at `ref` (NAN: none) named in the legend. Every
 * label has its own place: titles above the plot, category names under
 * it, the legend right of it, a bar's value above the bar only when the
 * bar is wide enough for it. */
static void bar_panel(struct dc_buf *b, double oy, const char *title, const char *sub, const char *ytitle, size_t ncat,
		      const char *const *cat, size_t nser, const struct bar_series *ser, double ref,
		      const char *ref_name)
{
	const double x0 = 80, x1 = 560, y0 = oy + 60, y1 = oy + 400;
	double top = isfinite(ref) ? ref : 0, group_w, bar_w;
	struct axis ay;
	char buf[64];
	size_t n = ncat ? ncat : 1;

	panel_titles(b, oy, title, sub);
	for (size_t s = 0; s < nser; s++)
		for (size_t i = 0; i < ncat; i++)
			if (isfinite(ser[s].v[i]) && ser[s].v[i] > top)
				top = ser[s].v[i];
	ay.px0 = y1;
	ay.px1 = y0;
	ax_fit(&ay, 0, top * 1.08, 0, 1);
	ax_draw_y(b, &ay, x0, x1);
	frame(b, x0, y0, x1, y1, NULL, ytitle);
	group_w = (x1 - x0) / (double)n;
	bar_w = (group_w - 12) / (double)(nser ? nser : 1);
	for (size_t i = 0; i < ncat; i++) {
		double gx = x0 + (double)i * group_w + 6;
		for (size_t s = 0; s < nser; s++) {
			double v = ser[s].v[i], bx = gx + (double)s * bar_w, yv;
			if (!isfinite(v))
				continue;
			yv = ax_map(&ay, v);
			rect(b, bx + 1, yv, bar_w - 2, y1 - yv, ser[s].colour, NULL);
			if (bar_w >= 34) {
				snprintf(buf, sizeof(buf), "%.3g", v);
				text_at(b, bx + bar_w / 2, yv - 4, "middle", 10, NULL, buf);
			}
		}
		category_label(b, gx + (group_w - 12) / 2, y1 + 16, group_w, cat[i]);
	}
	{
		double ly = y0 + 6;
		text_at(b, 580, ly, "start", 13, "font-weight=\"bold\"", "legend");
		ly += 20;
		for (size_t s = 0; s < nser; s++) {
			legend_entry(b, 580, ly, ser[s].colour, 0, ser[s].name);
			ly += 20;
		}
		if (isfinite(ref)) {
			double gy = ax_map(&ay, ref);
			line(b, x0, gy, x1, gy, "#D55E00", 2, "stroke-dasharray=\"8 4\"");
			line(b, 580, ly - 4, 598, ly - 4, "#D55E00", 2, "stroke-dasharray=\"8 4\"");
			text_at(b, 604, ly, "start", 12, NULL, ref_name);
		}
	}
}

struct xy_series {
	const char *name, *colour;
	size_t n;
	const double *x, *y; /* display units */
	int joined;          /* 1: a line through the points, 0: points alone */
};

/* Points and lines in the panel at oy; log axes where the values span
 * two decades (may_log_x / may_log_y allow it). One point may be marked
 * (a ring and its name in the legend); a vertical dashed line at vx (NAN:
 * none) is named in the legend too. */
static void xy_panel(struct dc_buf *b, double oy, const char *title, const char *sub, const char *xtitle,
		     const char *ytitle, int may_log_x, int may_log_y, size_t nser, const struct xy_series *ser,
		     double mark_x, double mark_y, const char *mark_name, double vx, const char *vx_name)
{
	const double x0 = 80, x1 = 560, y0 = oy + 60, y1 = oy + 410;
	double xmn = INFINITY, xmx = -INFINITY, ymn = INFINITY, ymx = -INFINITY;
	struct axis ax, ay;
	char t[160];

	panel_titles(b, oy, title, sub);
	for (size_t s = 0; s < nser; s++)
		for (size_t i = 0; i < ser[s].n; i++) {
			if (!isfinite(ser[s].x[i]) || !isfinite(ser[s].y[i]))
				continue;
			xmn = fmin(xmn, ser[s].x[i]);
			xmx = fmax(xmx, ser[s].x[i]);
			ymn = fmin(ymn, ser[s].y[i]);
			ymx = fmax(ymx, ser[s].y[i]);
		}
	if (isfinite(vx)) {
		xmn = fmin(xmn, vx);
		xmx = fmax(xmx, vx);
	}
	ax.px0 = x0 + 10;
	ax.px1 = x1 - 10;
	ax_fit(&ax, xmn, xmx * (may_log_x ? 1 : 1.02), may_log_x, 0);
	ay.px0 = y1 - 10;
	ay.px1 = y0;
	ax_fit(&ay, ymn, ymx * 1.05, may_log_y, 1);
	ax_draw_x(b, &ax, y0, y1);
	ax_draw_y(b, &ay, x0, x1);
	snprintf(t, sizeof(t), "%s%s", xtitle, ax.log ? " (log)" : "");
	{
		char yt[160];
		snprintf(yt, sizeof(yt), "%s%s", ytitle, ay.log ? " (log)" : "");
		frame(b, x0, y0, x1, y1, t, yt);
	}
	if (isfinite(vx)) {
		double gx = ax_map(&ax, vx);
		line(b, gx, y0, gx, y1, "#D55E00", 2, "stroke-dasharray=\"8 4\"");
	}
	for (size_t s = 0; s < nser; s++) {
		const struct xy_series *q = &ser[s];
		if (q->joined && q->n > 1) {
			dc_buf_puts(b, "<polyline fill=\"none\" stroke-width=\"2\" stroke=\"");
			dc_buf_puts(b, q->colour);
			dc_buf_puts(b, "\" points=\"");
			for (size_t i = 0; i < q->n; i++)
				if (isfinite(q->x[i]) && isfinite(q->y[i]))
					dc_buf_printf(b, "%.1f,%.1f ", ax_map(&ax, q->x[i]), ax_map(&ay, q->y[i]));
			dc_buf_puts(b, "\"/>\n");
		}
		for (size_t i = 0; i < q->n; i++)
			if (isfinite(q->x[i]) && isfinite(q->y[i]))
				dc_buf_printf(b, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\" fill=\"%s\"/>\n",
					      ax_map(&ax, q->x[i]), ax_map(&ay, q->y[i]), q->colour);
	}
	if (isfinite(mark_x) && isfinite(mark_y))
		dc_buf_printf(b,
			      "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"9\" fill=\"none\" stroke=\"#000000\" "
			      "stroke-width=\"2.5\"/>\n",
			      ax_map(&ax, mark_x), ax_map(&ay, mark_y));
	{
		double ly = y0 + 6;
		text_at(b, 580, ly, "start", 13, "font-weight=\"bold\"", "legend");
		ly += 20;
		for (size_t s = 0; s < nser; s++) {
			legend_entry(b, 580, ly, ser[s].colour, ser[s].joined, ser[s].name);
			ly += 20;
		}
		if (isfinite(mark_x) && isfinite(mark_y)) {
			dc_buf_printf(b,
				      "<circle cx=\"589.0\" cy=\"%.1f\" r=\"7\" fill=\"none\" stroke=\"#000000\" "
				      "stroke-width=\"2.5\"/>\n",
				      ly - 4);
			text_at(b, 604, ly, "start", 12, NULL, mark_name);
			ly += 20;
		}
		if (isfinite(vx)) {
			line(b, 580, ly - 4, 598, ly - 4, "#D55E00", 2, "stroke-dasharray=\"8 4\"");
			text_at(b, 604, ly, "start", 12, NULL, vx_name);
		}
	}
}

#define GIB 1073741824.0

/* ---- whatif: baseline against each fault, per unit ---- */

static int draw_whatif(const struct dc_report *r, struct dc_buf *b, const char **why)
{
	const struct dc_whatif *w = r->whatif;
	const char *cat[2][DC_WHATIF_COUNT];
	double base[2][DC_WHATIF_COUNT], val[2][DC_WHATIF_COUNT];
	size_t n[2] = {0, 0}, panels, drawn = 0;
	char title[800], run[RUN_TEXT_MAX];

	for (int i = 0; i < DC_WHATIF_COUNT; i++) {
		const struct dc_whatif_scn *s = &w->scn[i];
		int k;
		if (!s->available)
			continue;
		k = s->unit == DC_WHATIF_SECONDS ? 0 : s->unit == DC_WHATIF_BYTES ? 1 : -1;
		if (k < 0)
			continue;
		cat[k][n[k]] = dc_whatif_scenario_name((enum dc_whatif_scenario)i);
		base[k][n[k]] = k ? s->baseline / GIB : s->baseline;
		val[k][n[k]] = k ? s->value / GIB : s->value;
		n[k]++;
	}
	panels = (n[0] ? 1u : 0u) + (n[1] ? 1u : 0u);
	if (!panels) {
		*why = "no what-if scenario ran (each says why in the report): nothing to draw";
		return -1;
	}
	snprintf(title, sizeof(title), "What-if: each fault against the baseline: %s",
		 run_text(r, run, sizeof(run)));
	doc_begin(b, (int)(H * panels), title);
	if (n[0]) {
		struct bar_series s[2] = {{"baseline", "#999999", base[0]}, {"with the fault", palette[1], val[0]}};
		bar_panel(b, 0, "Step time: baseline and each fault [s]",
			  "the metric the step-time faults name: the step, seconds", "step time [s]", n[0], cat[0], 2, s,
			  NAN, NULL);
		drawn++;
	}
	if (n[1]) {
		struct bar_series s[2] = {{"baseline", "#999999", base[1]}, {"with the fault", palette[0], val[1]}};
		char gpu[64];
		double oy = (double)(drawn * H);
		if (drawn)
			line(b, 0, oy, W, oy, "#bbbbbb", 1, NULL);
		snprintf(gpu, sizeof(gpu), "GPU memory %.1f GiB", (double)r->in.cluster.gpu_mem_bytes / GIB);
		bar_panel(b, oy, "Peak memory per rank: baseline and each fault [GiB]",
			  "the metric the memory faults name: the most loaded rank's peak (checkpoint: save vs training)",
			  "peak memory per rank [GiB]", n[1], cat[1], 2, s, (double)r->in.cluster.gpu_mem_bytes / GIB,
			  gpu);
	}
	doc_end(b);
	return 0;
}

/* ---- checkpoint: per-rank bytes, save time, the restore's ranks ---- */

#define CKPT_MAX_BARS 32

static int draw_checkpoint(const struct dc_report *r, struct dc_buf *b)
{
	const struct dc_checkpoint_result *c = &r->res.checkpoint;
	static const char *const tcat[] = {"gather to rank 0", "copy to host", "write", "training waits",
					   "until on storage"};
	double tv[5] = {c->gather_time_s, c->staging_time_s, c->write_time_s, c->blocking_time_s, c->save_time_s};
	uint64_t nsave = c->saved.world < CKPT_MAX_BARS ? c->saved.world : CKPT_MAX_BARS;
	uint64_t nread = c->restored.world < CKPT_MAX_BARS ? c->restored.world : CKPT_MAX_BARS;
	char names[2][CKPT_MAX_BARS][24], title[800], sub[200], gpu[64], run[RUN_TEXT_MAX];
	const char *cat[2][CKPT_MAX_BARS];
	double wr[CKPT_MAX_BARS], pk[CKPT_MAX_BARS], rd[CKPT_MAX_BARS], rt[CKPT_MAX_BARS];
	double gmem = (double)r->in.cluster.gpu_mem_bytes / GIB;

	for (uint64_t i = 0; i < nsave; i++) {
		/* rank i of the saved layout in (stage, k) order: stage i / K */
		struct dc_ckpt_rank k;
		struct dc_mem_ledger l;
		uint64_t s = i / c->saved.slices, kk = i % c->saved.slices;
		dc_ckpt_rank_of(&r->plan, c, s, kk, &k);
		snprintf(names[0][i], sizeof(names[0][i]), "%llu.%llu", (unsigned long long)s, (unsigned long long)kk);
		cat[0][i] = names[0][i];
		wr[i] = (double)k.total_bytes / GIB;
		pk[i] = dc_memory_stage(&r->plan, s, &l, NULL) == 0 ? (double)l.phase_bytes[DC_MEM_CHECKPOINT] / GIB : NAN;
	}
	for (uint64_t j = 0; j < nread; j++) {
		struct dc_ckpt_read d;
		dc_ckpt_read_of(&r->plan, c, j, &d);
		snprintf(names[1][j], sizeof(names[1][j]), "%llu", (unsigned long long)j);
		cat[1][j] = names[1][j];
		rd[j] = (double)d.bytes / GIB;
		rt[j] = (double)(d.bytes + c->restore_buffer_bytes + c->restore_context_bytes) / GIB;
	}
	snprintf(title, sizeof(title), "Checkpoint: %s save, restore onto %llu ranks: %s",
		 dc_ckpt_format_name(r->in.checkpoint.format), (unsigned long long)c->restored.world,
		 run_text(r, run, sizeof(run)));
	snprintf(gpu, sizeof(gpu), "GPU memory %.1f GiB", gmem);
	doc_begin(b, 3 * H, title);
	{
		struct bar_series s[2] = {{"bytes it writes", palette[0], wr}, {"its save-phase GPU peak", palette[1], pk}};
		snprintf(sub, sizeof(sub), "saved ranks as stage.slice%s",
			 c->saved.world > nsave ? " (the first 32)" : "");
		bar_panel(b, 0, "Each rank's checkpoint bytes and save-phase peak [GiB]", sub, "per rank [GiB]", nsave,
			  cat[0], 2, s, gmem, gpu);
	}
	line(b, 0, H, W, H, "#bbbbbb", 1, NULL);
	{
		struct bar_series s[1] = {{"seconds", palette[2], tv}};
		snprintf(sub, sizeof(sub), "%.2f GiB at %.1f GB/s (storage, aggregate)%s", (double)c->saved_bytes / GIB,
			 r->in.checkpoint.storage_bw_bytes_per_s / 1e9, r->in.checkpoint.async ? ", async" : "");
		bar_panel(b, H, "Save time by part [s]", sub, "time [s]", 5, tcat, 1, s, NAN, NULL);
	}
	line(b, 0, 2 * H, W, 2 * H, "#bbbbbb", 1, NULL);
	{
		struct bar_series s[2] = {{"states it reads", palette[4], rd},
					  {"+ load buffer + CUDA context", palette[5], rt}};
		snprintf(sub, sizeof(sub), "new ranks (stage x K' + k')%s; the largest %s its GPU",
			 c->restored.world > nread ? ", the first 32" : "", c->restore_fits ? "fits" : "does NOT fit");
		bar_panel(b, 2 * H, "Restore: what each new rank loads [GiB]", sub, "per new rank [GiB]", nread, cat[1],
			  2, s, gmem, gpu);
	}
	doc_end(b);
	return 0;
}

/* ---- search: the Pareto front, the chosen layout marked ---- */

static int draw_search(const struct dc_report *r, struct dc_buf *b, const char **why)
{
	const struct dc_search_result *q = r->search;
	double px[DC_SEARCH_MAX_PARETO], py[DC_SEARCH_MAX_PARETO], bx[DC_SEARCH_MAX_TOP], by[DC_SEARCH_MAX_TOP];
	size_t np = 0, nb = 0;
	char title[800], run[RUN_TEXT_MAX], sub[256], lim[64];

	if (!q->step_available) {
		*why = "the search ranked by memory alone (no GPU speeds: cluster.gpu or cluster.peak_flops): no step "
		       "time to draw the Pareto front against";
		return -1;
	}
	for (size_t i = 0; i < q->npareto; i++)
		if (q->pareto[i].fits && q->pareto[i].step_available) {
			px[np] = (double)q->pareto[i].peak_bytes / GIB;
			py[np] = q->pareto[i].step_time_s;
			np++;
		}
	for (size_t i = 0; i < q->nbest; i++)
		if (q->best[i].fits && q->best[i].step_available) {
			bx[nb] = (double)q->best[i].peak_bytes / GIB;
			by[nb] = q->best[i].step_time_s;
			nb++;
		}
	if (!np && !nb) {
		*why = q->why[0] ? q->why : "no layout fits: nothing to draw";
		return -1;
	}
	snprintf(title, sizeof(title), "Layout search: step time against peak memory: %s",
		 run_text(r, run, sizeof(run)));
	doc_begin(b, H, title);
	snprintf(sub, sizeof(sub), "%llu layouts fit of %llu valid; the front: no layout faster and smaller%s",
		 (unsigned long long)q->counts.fit, (unsigned long long)q->counts.valid,
		 q->pareto_truncated ? " (truncated)" : "");
	snprintf(lim, sizeof(lim), "memory limit %.1f GiB", (double)q->limit_bytes / GIB);
	{
		struct xy_series s[2] = {{"Pareto front", palette[0], np, px, py, 1},
					 {"best by the objective", palette[1], nb, bx, by, 0}};
		xy_panel(b, 0, "Pareto front: step time against peak memory", sub, "peak memory per rank [GiB]",
			 "step time [s]", 0, 0, 2, s, nb ? bx[0] : NAN, nb ? by[0] : NAN, "the chosen layout",
			 (double)q->limit_bytes / GIB, lim);
	}
	doc_end(b);
	return 0;
}

/* ---- loss: the three recipes, each microbatch's token weight ---- */

#define LOSS_MAX_POINTS 1024

static int draw_loss(const struct dc_report *r, struct dc_buf *b)
{
	const struct dc_loss_result *l = &r->res.loss;
	static const char *const cat[] = {"global token mean", "mean of per-rank means", "mean of per-microbatch means"};
	double v[3] = {l->recipes.global_mean, l->recipes.mean_of_rank_means, l->recipes.mean_of_mb_means};
	/* above the draw: E[N], the microbatches' count saturated, and no
	 * points where a microbatch holds too many documents to redraw */
	uint64_t total = l->mb_rows ? l->ranks * l->microbatches : 0, n = total < LOSS_MAX_POINTS ? total : LOSS_MAX_POINTS;
	double N = l->expected ? l->e.tokens : (double)l->acc.tokens, RM = (double)l->ranks * (double)l->microbatches;
	double xs[LOSS_MAX_POINTS], ys[LOSS_MAX_POINTS], one[2] = {1, 1}, ends[2];
	char title[800], run[RUN_TEXT_MAX], sub[200], ntext[64];

	for (uint64_t i = 0; i < n; i++) {
		uint64_t tok;
		double sum;
		dc_loss_microbatch(&r->plan, i / l->microbatches, i % l->microbatches, &tok, &sum);
		xs[i] = (double)i;
		/* a token's weight under the per-microbatch recipe over 1 / N:
		 * N / (R M n_rm) (docs/checkpoint-and-loss.md) */
		ys[i] = tok ? N / (RM * (double)tok) : NAN;
	}
	ends[0] = 0;
	ends[1] = n > 1 ? (double)(n - 1) : 1;
	snprintf(title, sizeof(title), "Loss normalisation: %s", run_text(r, run, sizeof(run)));
	doc_begin(b, 2 * H, title);
	{
		struct bar_series s[1] = {{"loss of the step [nats]", palette[0], v}};
		if (l->expected)
			snprintf(ntext, sizeof(ntext), "%.6g expected", l->e.tokens);
		else
			snprintf(ntext, sizeof(ntext), "%llu", (unsigned long long)l->acc.tokens);
		snprintf(sub, sizeof(sub), "%s valid tokens over %llu ranks x %llu microbatches; seed %llu", ntext,
			 (unsigned long long)l->ranks,
			 (unsigned long long)l->microbatches, (unsigned long long)r->info.seed);
		bar_panel(b, 0, "The step's loss by recipe [nats]", sub, "loss [nats]", 3, cat, 1, s, NAN, NULL);
	}
	line(b, 0, H, W, H, "#bbbbbb", 1, NULL);
	{
		struct xy_series s[2] = {{"per-microbatch recipe", palette[1], n, xs, ys, 0},
					 {"global token mean (1)", "#999999", 2, ends, one, 1}};
		snprintf(sub, sizeof(sub), "a token's weight over 1 / N, microbatch i = r x M + m%s",
			 total > n ? " (the first 1024)" : "");
		xy_panel(b, H, "Each microbatch's token weight under the per-microbatch mean", sub,
			 "microbatch (rank x M + m)", "weight over 1 / N", 0, 1, 2, s, NAN, NAN, NULL, NAN, NULL);
	}
	doc_end(b);
	return 0;
}

/* ---- collectives: busbw and algbw against the size, from the rows ---- */

/* The field `key` of the table `rows_key` of section `sec`: its rows
 * description and the base they are generated from. */
static const struct dc_field *section_rows(const struct dc_report *r, const char *sec, const char *rows_key,
					   const void **base)
{
	for (size_t i = 0; i < r->root.n; i++) {
		const struct dc_field *f = &r->root.f[i];
		if (f->type != DC_FT_OBJECT || strcmp(f->key, sec) != 0 || !f->sub)
			continue;
		for (size_t j = 0; j < f->sub->n; j++) {
			const struct dc_field *g = &f->sub->f[j];
			if (g->type == DC_FT_ROWS && strcmp(g->key, rows_key) == 0 && g->rows && g->sub) {
				*base = (const char *)r->views + f->off;
				return g;
			}
		}
	}
	return NULL;
}

static double row_number(const struct dc_fields *sub, const void *row, const char *key)
{
	for (size_t i = 0; i < sub->n; i++) {
		const struct dc_field *f = &sub->f[i];
		if (strcmp(f->key, key) != 0)
			continue;
		if (f->type == DC_FT_U64)
			return (double)*(const uint64_t *)dc_fld_ptr(row, f);
		if (f->type == DC_FT_F64)
			return *(const double *)dc_fld_ptr(row, f);
	}
	return NAN;
}

#define COLL_MAX_ROWS 128

/* The model's sweep in the first panel of a document of 1 + `more`
 * panels (the calibration's logs below it); the caller ends it. */
static int draw_collectives(const struct dc_report *r, struct dc_buf *b, const char **why, int more)
{
	const void *base;
	const struct dc_field *g = section_rows(r, "collectives", "rows", &base);
	double xs[COLL_MAX_ROWS], bus[COLL_MAX_ROWS], alg[COLL_MAX_ROWS];
	unsigned char row[DC_ROW_MAX];
	uint64_t n;
	char title[800], run[RUN_TEXT_MAX];

	if (!g || g->rows->row_size > sizeof(row)) {
		*why = "the collectives section has no rows: nothing to draw";
		return -1;
	}
	n = g->rows->count(base);
	if (n > COLL_MAX_ROWS)
		n = COLL_MAX_ROWS;
	for (uint64_t i = 0; i < n; i++) {
		memset(row, 0, g->rows->row_size);
		g->rows->row(base, i, row);
		xs[i] = row_number(g->sub, row, "size_bytes");
		bus[i] = row_number(g->sub, row, "busbw_GBps");
		alg[i] = row_number(g->sub, row, "algbw_GBps");
		/* an empty size has no bandwidth to show on log axes */
		if (!(xs[i] > 0) || !(bus[i] > 0))
			xs[i] = NAN;
	}
	if (!n) {
		*why = "the collectives sweep has no sizes: nothing to draw";
		return -1;
	}
	snprintf(title, sizeof(title), "Collective sweep: bus bandwidth against message size: %s",
		 run_text(r, run, sizeof(run)));
	doc_begin(b, H * (1 + more), title);
	{
		struct xy_series s[2] = {{"busbw (model)", palette[0], (size_t)n, xs, bus, 1},
					 {"algbw (model)", palette[1], (size_t)n, xs, alg, 1}};
		char sub[200];
		snprintf(sub, sizeof(sub), "%s over %llu ranks, as nccl-tests prints it",
			 dc_collective_op_name(r->in.collective.op), (unsigned long long)(r->in.collective.ranks ? r->in.collective.ranks : r->plan.world));
		xy_panel(b, 0, "Bandwidth against message size [GB/s]", sub, "message size [B]", "bandwidth [GB/s]", 1, 1,
			 2, s, NAN, NAN, NULL, NAN, NULL);
	}
	return 0;
}

/* ---- --calibrate: measured and modelled busbw per log ---- */

/* nccl-tests' busbw / algbw (doc/PERFORMANCE.md) for a log's op on n ranks. */
static double nccl_bus_factor(enum dc_nccl_op op, uint64_t ranks)
{
	double n = (double)ranks;
	if (ranks < 2)
		return 1;
	switch (op) {
	case DC_NCCL_ALL_REDUCE: return 2 * (n - 1) / n;
	case DC_NCCL_ALL_GATHER:
	case DC_NCCL_REDUCE_SCATTER:
	case DC_NCCL_ALL_TO_ALL: return (n - 1) / n;
	default: return 1;
	}
}

/* One panel per log from oy: the measured busbw (points), the fitted
 * model's and the model's before the fit (lines), against the size.
 * Returns -1 when out of memory. */
static int draw_calibration(const struct dc_calibration *c, double oy, struct dc_buf *b)
{
	for (size_t k = 0; k < c->nlogs; k++) {
		const struct dc_calib_log *l = &c->logs[k];
		const char *file = strrchr(l->name, '/') ? strrchr(l->name, '/') + 1 : l->name;
		double *v = dc_calloc(4 * (c->npoints ? c->npoints : 1), sizeof(double)), f = nccl_bus_factor(l->op, l->ranks);
		double *xs, *meas, *fit, *before;
		size_t n = 0;
		char title[320], sub[200];
		if (!v)
			return -1;
		xs = v;
		meas = v + c->npoints;
		fit = v + 2 * c->npoints;
		before = v + 3 * c->npoints;
		for (size_t i = 0; i < c->npoints; i++) {
			const struct dc_calib_point *p = &c->points[i];
			double S = (double)p->size_bytes;
			if (p->log != k || !(p->measured_s > 0) || !(p->predicted_s > 0))
				continue;
			xs[n] = S;
			meas[n] = S / p->measured_s * f / 1e9;
			fit[n] = S / p->predicted_s * f / 1e9;
			before[n] = p->before_s > 0 ? S / p->before_s * f / 1e9 : NAN;
			n++;
		}
		snprintf(title, sizeof(title), "%s: bus bandwidth against message size [GB/s]", file);
		snprintf(sub, sizeof(sub),
			 "%s over %llu ranks (%llu hosts); after the fit: median |error| %.1f%%, largest %.1f%%",
			 dc_nccl_op_name(l->op), (unsigned long long)l->ranks, (unsigned long long)l->nodes,
			 100 * l->median_abs_error, 100 * l->max_abs_error);
		{
			/* the measured points last, over the lines */
			struct xy_series s[3] = {{"model, before the fit", palette[1], n, xs, before, 1},
						 {"model, fitted", palette[0], n, xs, fit, 1},
						 {"measured (the log)", "#000000", n, xs, meas, 0}};
			xy_panel(b, oy + (double)k * H, title, sub, "message size [B]", "busbw [GB/s]", 1, 1, 3, s, NAN,
				 NAN, NULL, NAN, NULL);
		}
		free(v);
	}
	return 0;
}

int dc_report_render_svg_why(const struct dc_report *r, struct dc_buf *out, const char **why)
{
	const char *e = r->info.experiment ? r->info.experiment : "";
	int rc = 0;
	char run[RUN_TEXT_MAX];
	*why = NULL;
	if (r->sweep) {
		size_t k = 0;
		while (k < r->sweep->nmetrics && !drawable(r->sweep, k))
			k++;
		if (k == r->sweep->nmetrics) {
			*why = "no metric of the sweep has a number to draw: pick some with --sweep-metrics";
			return -1;
		}
		draw_sweep(r->sweep, run_text(r, run, sizeof(run)), out);
	} else if (strcmp(e, "whatif") == 0 && r->whatif) {
		rc = draw_whatif(r, out, why);
	} else if (strcmp(e, "search") == 0 && r->search) {
		rc = draw_search(r, out, why);
	} else if (strcmp(e, "checkpoint") == 0 && (r->res.done & DC_EST_BIT(DC_EST_CHECKPOINT))) {
		rc = draw_checkpoint(r, out);
	} else if (strcmp(e, "loss") == 0 && (r->res.done & DC_EST_BIT(DC_EST_LOSS))) {
		rc = draw_loss(r, out);
	} else if (r->info.calibration && r->info.calibration->nlogs) {
		/* after --calibrate: the model's sweep (collectives) and each log */
		const struct dc_calibration *c = r->info.calibration;
		int coll = strcmp(e, "collectives") == 0;
		rc = coll ? draw_collectives(r, out, why, (int)c->nlogs) : 0;
		if (!coll) {
			char title[600];
			snprintf(title, sizeof(title), "Calibration: measured and modelled bus bandwidth per log: %s",
				 run_text(r, run, sizeof(run)));
			doc_begin(out, H * (int)c->nlogs, title);
		}
		if (rc == 0 && draw_calibration(c, coll ? H : 0, out) != 0) {
			*why = "out of memory";
			rc = -1;
		}
		if (rc == 0)
			doc_end(out);
	} else if (strcmp(e, "collectives") == 0) {
		rc = draw_collectives(r, out, why, 0);
		if (rc == 0)
			doc_end(out);
	} else if (r->res.done & DC_EST_BIT(DC_EST_MEMORY)) {
		draw_memory(r, out);
	} else if ((r->res.done & DC_EST_BIT(DC_EST_RING)) && r->res.ring.rounds == 0) {
		/* one rank: no round, no bandwidth (the table's n/a), no box
		 * (a trial's chart was blank with a busbw of 0.00) */
		*why = "the ring has one rank (collective.ranks 1): no round to draw";
		return -1;
	} else if (r->res.done & DC_EST_BIT(DC_EST_RING)) {
		draw_ring(r, out);
	} else {
		*why = "nothing to draw: the sections shown have no chart (the memory ledger's, drawn with the memory, "
		       "summary or strategies section; the ring section's; or an experiment's own)";
		return -1;
	}
	if (rc != 0)
		return -1;
	return out->failed ? -1 : 0;
}

int dc_report_render_svg(const struct dc_report *r, struct dc_buf *out)
{
	const char *why;
	return dc_report_render_svg_why(r, out, &why);
}
