/* sink_doc.c - the report as a document: GitHub-flavoured Markdown
 * (--format markdown, for pull-request comments) and one self-contained
 * HTML page (--format html: no network, no scripts; the summary first,
 * then the charts inline, then every section). Both walk the same field
 * tables as the other sinks and show every value as the table sink does
 * (dc_table_cell): the same units and precision. See report.h. */
#include <stdio.h>
#include <string.h>

#include "distcalc/svg.h"
#include "report_int.h"

enum doc_kind { DOC_MARKDOWN, DOC_HTML };

struct dctx {
	struct dc_buf *b;
	const struct dc_render_opts *o;
	struct dc_report *r;
	enum doc_kind kind;
	const char *section; /* the top-level field being written, for an excerpt's hint */
};

#define DOC_MAX_COLS 32
#define DOC_MAX_LIST_ITEMS 64

/* Text as a Markdown table cell or HTML text: Markdown escapes the pipe
 * and keeps every cell on one line; HTML escapes its four specials. Bytes
 * that are not printable ASCII or UTF-8 go through dc_fmt_printable. */
static void esc(struct dctx *d, const char *s)
{
	char safe[DC_CELL_MAX];
	if (!dc_text_printable(s)) {
		dc_fmt_printable(safe, sizeof(safe), s);
		s = safe;
	}
	for (; *s; s++) {
		char c = *s;
		if (d->kind == DOC_HTML) {
			switch (c) {
			case '&': dc_buf_puts(d->b, "&amp;"); break;
			case '<': dc_buf_puts(d->b, "&lt;"); break;
			case '>': dc_buf_puts(d->b, "&gt;"); break;
			case '"': dc_buf_puts(d->b, "&quot;"); break;
			default: dc_buf_putc(d->b, c);
			}
		} else {
			switch (c) {
			case '|': dc_buf_puts(d->b, "\\|"); break;
			case '\n':
			case '\r': dc_buf_putc(d->b, ' '); break;
			case '<': dc_buf_puts(d->b, "&lt;"); break;
			default: dc_buf_putc(d->b, c);
			}
		}
	}
}

static void heading(struct dctx *d, int level, const char *text)
{
	if (level > 6)
		level = 6;
	if (d->kind == DOC_HTML) {
		dc_buf_printf(d->b, "<h%d>", level);
		esc(d, text);
		dc_buf_printf(d->b, "</h%d>\n", level);
	} else {
		dc_buf_printf(d->b, "\n%.*s ", level, "######");
		esc(d, text);
		dc_buf_puts(d->b, "\n\n");
	}
}

/* Table pieces: a header row of n cells, then rows, then the end. */
static void t_begin(struct dctx *d)
{
	if (d->kind == DOC_HTML)
		dc_buf_puts(d->b, "<table>\n");
}

static void t_row_begin(struct dctx *d)
{
	dc_buf_puts(d->b, d->kind == DOC_HTML ? "<tr>" : "|");
}

static void t_cell(struct dctx *d, const char *text, int head, int num)
{
	if (d->kind == DOC_HTML) {
		dc_buf_puts(d->b, head ? "<th>" : num ? "<td class=\"n\">" : "<td>");
		esc(d, text);
		dc_buf_puts(d->b, head ? "</th>" : "</td>");
	} else {
		dc_buf_putc(d->b, ' ');
		esc(d, text);
		dc_buf_puts(d->b, " |");
	}
}

static void t_row_end(struct dctx *d)
{
	dc_buf_puts(d->b, d->kind == DOC_HTML ? "</tr>\n" : "\n");
}

/* Markdown's delimiter row under the header: numbers right-aligned. */
static void t_head_end(struct dctx *d, size_t n, const int *num)
{
	if (d->kind == DOC_HTML)
		return;
	dc_buf_putc(d->b, '|');
	for (size_t i = 0; i < n; i++)
		dc_buf_puts(d->b, num && num[i] ? " ---: |" : " --- |");
	dc_buf_putc(d->b, '\n');
}

static void t_end(struct dctx *d)
{
	dc_buf_puts(d->b, d->kind == DOC_HTML ? "</table>\n" : "\n");
}

static void para(struct dctx *d, const char *text)
{
	dc_buf_puts(d->b, d->kind == DOC_HTML ? "<p class=\"note\">" : "_");
	esc(d, text);
	dc_buf_puts(d->b, d->kind == DOC_HTML ? "</p>\n" : "_\n\n");
}

static int numeric(const struct dc_field *f)
{
	return f->type == DC_FT_U64 || f->type == DC_FT_F64;
}

/* "value unit": the table sink's text, its unit after it unless the text
 * names it already (a scalar's bytes: "1.000 GiB (1,073,741,824 B)"). */
static void value_text(char *out, size_t len, const struct dc_field *f, const void *base, double max_abs, int scalar)
{
	char cell[DC_CELL_MAX];
	const char *unit = "";
	const char *t = dc_table_cell(cell, sizeof(cell), f, base, max_abs, scalar, &unit);
	int has_unit = unit[0] && numeric(f) && !dc_fld_null(f, base) && !(scalar && f->unit == DC_U_BYTES);
	snprintf(out, len, "%s%s%s", t, has_unit ? " " : "", has_unit ? unit : "");
}

static double f64_abs(const struct dc_field *f, const void *base)
{
	double v;
	if (f->type != DC_FT_F64 || dc_fld_null(f, base))
		return 0;
	memcpy(&v, dc_fld_ptr(base, f), sizeof(v));
	return v < 0 ? -v : v;
}

static void d_fields(struct dctx *d, const struct dc_fields *fs, const void *base, int level);

/* The scalars of an object as a two-column table. */
static void d_scalars(struct dctx *d, const struct dc_fields *fs, const void *base)
{
	char v[DC_CELL_MAX + 32];
	int any = 0, num[2] = {0, 0};
	for (size_t i = 0; i < fs->n; i++) {
		const struct dc_field *f = &fs->f[i];
		char label[256];
		if (!dc_fld_shown(f, base) || !dc_fld_scalar(f))
			continue;
		if (!any) {
			t_begin(d);
			t_row_begin(d);
			t_cell(d, "quantity", 1, 0);
			t_cell(d, "value", 1, 0);
			t_row_end(d);
			t_head_end(d, 2, num);
			any = 1;
		}
		if (f->label_fn)
			f->label_fn(base, label, sizeof(label));
		else
			snprintf(label, sizeof(label), "%s", f->label ? f->label : f->key);
		value_text(v, sizeof(v), f, base, f64_abs(f, base), 1);
		t_row_begin(d);
		t_cell(d, label, 0, 0);
		t_cell(d, v, 0, numeric(f));
		t_row_end(d);
	}
	if (any)
		t_end(d);
}

static void d_rows(struct dctx *d, const struct dc_field *f, const void *base, int level)
{
	_Alignas(max_align_t) unsigned char row[DC_ROW_MAX];
	const struct dc_rows *rs = f->rows;
	const struct dc_fields *cf = f->sub;
	const struct dc_field *col[DOC_MAX_COLS];
	double max_abs[DOC_MAX_COLS];
	int num[DOC_MAX_COLS];
	size_t ncols = 0;
	uint64_t n = rs->count(base), from, to, limit;
	char v[DC_CELL_MAX + 32], head[300];

	heading(d, level, f->label ? f->label : f->key);
	if (rs->row_size > sizeof(row))
		return;
	if (n == 0) {
		/* a table with no rows this run: its heading and a line saying
		 * so, as the table format's "none", not a bare header row (a
		 * trial) */
		para(d, "(none in this run)");
		return;
	}
	for (size_t i = 0; i < cf->n && ncols < DOC_MAX_COLS; i++)
		if (!cf->f[i].json_value && dc_fld_scalar(&cf->f[i]))
			col[ncols++] = &cf->f[i];
	limit = dc_rows_limit(d->r, rs, d->o->max_rows);
	dc_excerpt_bounds_max(n, limit, &from, &to);
	/* a scaled unit's display scale follows the column's largest value */
	for (size_t c = 0; c < ncols; c++) {
		max_abs[c] = 0;
		num[c] = numeric(col[c]);
	}
	for (uint64_t i = 0; i < n; i++) {
		if (i == from && to > from)
			i = to;
		if (i >= n)
			break;
		memset(row, 0, rs->row_size);
		rs->row(base, i, row);
		if (dc_report_row_check(d->r, f, base, i, row, d->b) != 0)
			return;
		for (size_t c = 0; c < ncols; c++) {
			double a = f64_abs(col[c], row);
			if (a > max_abs[c])
				max_abs[c] = a;
		}
	}
	t_begin(d);
	t_row_begin(d);
	for (size_t c = 0; c < ncols; c++) {
		const char *unit = "";
		char cell[DC_CELL_MAX];
		/* the unit the column shows in, from a row's formatting */
		memset(row, 0, rs->row_size);
		if (n)
			rs->row(base, 0, row);
		(void)dc_table_cell(cell, sizeof(cell), col[c], row, max_abs[c], 0, &unit);
		snprintf(head, sizeof(head), "%s%s%s%s", col[c]->label ? col[c]->label : col[c]->key,
			 unit[0] && num[c] ? " [" : "", unit[0] && num[c] ? unit : "", unit[0] && num[c] ? "]" : "");
		t_cell(d, head, 1, 0);
	}
	t_row_end(d);
	t_head_end(d, ncols, num);
	for (uint64_t i = 0; i < n; i++) {
		if (i == from && to > from)
			i = to;
		if (i >= n)
			break;
		memset(row, 0, rs->row_size);
		rs->row(base, i, row);
		t_row_begin(d);
		for (size_t c = 0; c < ncols; c++) {
			char cell[DC_CELL_MAX];
			const char *unit;
			snprintf(v, sizeof(v), "%s", dc_table_cell(cell, sizeof(cell), col[c], row, max_abs[c], 0, &unit));
			t_cell(d, v, 0, num[c]);
		}
		t_row_end(d);
		if (d->b->failed)
			return;
	}
	t_end(d);
	if (to > from) {
		/* rows counted from 1; an O(p^2) table beside other sections
		 * stays an excerpt under --all (dc_rows_limit): its own
		 * section alone shows it whole, as the table format says */
		int alone = rs->quadratic && d->r->nsec > 1;
		snprintf(v, sizeof(v), "%llu of %llu %s left out (rows %llu to %llu); %s%s%s shows every row",
			 (unsigned long long)(to - from), (unsigned long long)n, rs->what ? rs->what : "rows",
			 (unsigned long long)from + 1, (unsigned long long)to, alone ? "--only " : "",
			 alone ? (d->section ? d->section : "?") : "", alone ? " --all" : "--all");
		para(d, v);
	}
}

static void d_lists(struct dctx *d, const struct dc_field *f, const void *base, int level)
{
	const struct dc_lists *ls = f->lists;
	uint64_t n = ls->count(base), from, to;
	char cell[64];
	int num[2] = {1, 0};

	heading(d, level, f->label ? f->label : f->key);
	dc_excerpt_bounds(n, d->o, &from, &to);
	t_begin(d);
	t_row_begin(d);
	t_cell(d, ls->what ? ls->what : "list", 1, 0);
	t_cell(d, ls->item_what ? ls->item_what : "items", 1, 0);
	t_row_end(d);
	t_head_end(d, 2, num);
	for (uint64_t i = 0; i < n; i++) {
		uint64_t len;
		if (i == from && to > from)
			i = to;
		if (i >= n)
			break;
		len = ls->len(base, i);
		t_row_begin(d);
		dc_fmt_u64(cell, i);
		t_cell(d, cell, 0, 1);
		dc_buf_puts(d->b, d->kind == DOC_HTML ? "<td>" : " ");
		for (uint64_t j = 0; j < len && j < DOC_MAX_LIST_ITEMS; j++) {
			if (j)
				dc_buf_puts(d->b, ", ");
			dc_buf_add(d->b, cell, dc_fmt_u64(cell, ls->item(base, i, j)));
		}
		if (len > DOC_MAX_LIST_ITEMS)
			dc_buf_printf(d->b, ", ... (%llu in all)", (unsigned long long)len);
		dc_buf_puts(d->b, d->kind == DOC_HTML ? "</td>" : " |");
		t_row_end(d);
	}
	t_end(d);
	if (to > from) {
		snprintf(cell, sizeof(cell), "%llu of %llu left out", (unsigned long long)(to - from),
			 (unsigned long long)n);
		para(d, cell);
	}
}

static void d_prose(struct dctx *d, const struct dc_field *f, const void *base, int level)
{
	uint64_t n = f->prose->count(base);
	heading(d, level, f->label ? f->label : f->key);
	if (!n) {
		para(d, "none");
		return;
	}
	if (d->kind == DOC_HTML)
		dc_buf_puts(d->b, "<ul>\n");
	for (uint64_t i = 0; i < n; i++) {
		dc_buf_puts(d->b, d->kind == DOC_HTML ? "<li>" : "- ");
		esc(d, f->prose->at(base, i));
		dc_buf_puts(d->b, d->kind == DOC_HTML ? "</li>\n" : "\n");
	}
	dc_buf_puts(d->b, d->kind == DOC_HTML ? "</ul>\n" : "\n");
}

/* --only SECTION.TABLE where this run has no such table (comm.ep with ep
 * 1): the path's headings down to it and a line saying so, as JSON writes
 * an empty array there and CSV a bare header */
static void d_empty_path(struct dctx *d, const struct dc_field *f, int level)
{
	heading(d, level, f->label ? f->label : f->key);
	if (f->type == DC_FT_OBJECT && f->sub && f->sub->n == 1)
		d_empty_path(d, &f->sub->f[0], level + 1);
	else
		para(d, "(none in this run)");
}

static void d_fields(struct dctx *d, const struct dc_fields *fs, const void *base, int level)
{
	d_scalars(d, fs, base);
	for (size_t i = 0; i < fs->n; i++) {
		const struct dc_field *f = &fs->f[i];
		if (!dc_fld_shown(f, base) && d->r->only_table && f >= d->r->only_chain &&
		    f < d->r->only_chain + DC_ONLY_DEPTH) {
			d_empty_path(d, f, level);
			continue;
		}
		if (!dc_fld_shown(f, base) || dc_fld_scalar(f))
			continue;
		switch (f->type) {
		case DC_FT_OBJECT:
			heading(d, level, f->label ? f->label : f->key);
			d_fields(d, f->sub, dc_fld_ptr(base, f), level + 1);
			break;
		case DC_FT_ROWS: d_rows(d, f, base, level); break;
		case DC_FT_LISTS: d_lists(d, f, base, level); break;
		case DC_FT_PROSE: d_prose(d, f, base, level); break;
		default: break;
		}
	}
}

/* The header fields (root scalars) as a table, then each section. With
 * `summary_first`, the section "summary" comes before the rest and the
 * charts after it. */
static void d_report(struct dctx *d, struct dc_report *r)
{
	const void *base;
	const struct dc_fields *root = dc_report_fields(r, &base);
	const struct dc_fields *shown;
	const void *sbase;
	int html = d->kind == DOC_HTML;

	d_scalars(d, root, base);
	shown = dc_report_fields_shown(r, &sbase);
	/* the summary first */
	for (size_t i = 0; i < shown->n; i++) {
		const struct dc_field *f = &shown->f[i];
		if (f->type == DC_FT_OBJECT && strcmp(f->key, "summary") == 0 && dc_fld_shown(f, sbase)) {
			heading(d, 2, f->label ? f->label : f->key);
			d_fields(d, f->sub, dc_fld_ptr(sbase, f), 3);
		}
	}
	if (html) {
		struct dc_buf svg;
		const char *why = NULL;
		dc_buf_init(&svg);
		heading(d, 2, "Charts");
		if (dc_report_render_svg_why(r, &svg, &why) == 0) {
			/* inline SVG: the document without its XML declaration */
			const char *s = svg.data, *e = strstr(s, "<svg");
			dc_buf_puts(d->b, "<div class=\"chart\">\n");
			if (e)
				dc_buf_add(d->b, e, svg.len - (size_t)(e - s));
			dc_buf_puts(d->b, "</div>\n");
		} else if (why) {
			para(d, why);
		} else {
			d->b->failed = 1;
		}
		dc_buf_release(&svg);
	}
	for (size_t i = 0; i < shown->n; i++) {
		const struct dc_field *f = &shown->f[i];
		if (!dc_fld_shown(f, sbase) || dc_fld_scalar(f))
			continue;
		if (f->type == DC_FT_OBJECT && strcmp(f->key, "summary") == 0)
			continue;
		d->section = f->key;
		switch (f->type) {
		case DC_FT_OBJECT:
			heading(d, 2, f->label ? f->label : f->key);
			d_fields(d, f->sub, dc_fld_ptr(sbase, f), 3);
			break;
		case DC_FT_ROWS: d_rows(d, f, sbase, 2); break;
		case DC_FT_LISTS: d_lists(d, f, sbase, 2); break;
		case DC_FT_PROSE: d_prose(d, f, sbase, 2); break;
		default: break;
		}
	}
}

int dc_report_render_markdown(struct dc_report *r, const struct dc_render_opts *o, struct dc_buf *out)
{
	struct dctx d = {out, o, r, DOC_MARKDOWN, NULL};
	dc_buf_printf(out, "# distcalc: %s\n\n", r->info.experiment ? r->info.experiment : "report");
	d_report(&d, r);
	return out->failed ? -1 : 0;
}

static const char css[] =
	"body{font-family:DejaVu Sans,Arial,Helvetica,sans-serif;margin:24px;color:#222;max-width:1100px}"
	"h1{font-size:24px}h2{font-size:20px;border-bottom:1px solid #ccc;margin-top:32px}"
	"h3{font-size:16px}h4,h5,h6{font-size:14px}"
	"table{border-collapse:collapse;margin:8px 0 16px 0;font-size:13px}"
	"th,td{border:1px solid #ccc;padding:3px 8px;text-align:left;vertical-align:top}"
	"th{background:#f0f0f0}td.n{text-align:right;font-variant-numeric:tabular-nums}"
	"p.note{color:#555;font-size:13px}.chart svg{max-width:100%;height:auto;border:1px solid #ddd}";

int dc_report_render_html(struct dc_report *r, const struct dc_render_opts *o, struct dc_buf *out)
{
	struct dctx d = {out, o, r, DOC_HTML, NULL};
	dc_buf_puts(out, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>distcalc: ");
	esc(&d, r->info.experiment ? r->info.experiment : "report");
	dc_buf_puts(out, "</title>\n<style>");
	dc_buf_puts(out, css);
	dc_buf_puts(out, "</style>\n</head>\n<body>\n<h1>distcalc: ");
	esc(&d, r->info.experiment ? r->info.experiment : "report");
	dc_buf_puts(out, "</h1>\n");
	d_report(&d, r);
	dc_buf_puts(out, "</body>\n</html>\n");
	return out->failed ? -1 : 0;
}
