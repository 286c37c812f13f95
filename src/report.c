/* report.c - the field tree and its two renderers; see report.h. */
#include "distcalc/report.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct dc_rnode {
	enum dc_rkind kind;
	const char *key;
	const char *label; /* table label (scalars) or title (objects, arrays) */
	/* the copies key and label point to, or NULL when borrowed: rows made
	 * by a generator borrow their (literal) keys and labels, which saves
	 * two allocations per field on million-row tables */
	char *key_own, *label_own;
	int borrowed;
	enum dc_unit unit;
	union {
		uint64_t u;
		double f;
		char *s;
		int b;
	} v;
	struct dc_rnode *first, *last, *next;
	size_t nchildren;
	/* generated arrays */
	dc_row_fn gen;
	const void *gen_ctx;
	uint64_t gen_count;
	int gen_list; /* rows are arrays (inline lists), not objects */
	char *what;
	struct dc_report *report;
};

struct kept {
	struct kept *next;
};

struct dc_report {
	struct dc_rnode root;
	struct dc_rnode *spare; /* freed generated-row nodes, reused */
	struct kept *kept;
	int failed;
};

void *dc_report_keep(struct dc_report *r, size_t size)
{
	struct kept *k;
	if (!r)
		return NULL;
	k = dc_calloc(1, sizeof(*k) + size);
	if (!k) {
		r->failed = 1;
		return NULL;
	}
	k->next = r->kept;
	r->kept = k;
	return k + 1;
}

struct dc_report *dc_report_new(void)
{
	struct dc_report *r = dc_calloc(1, sizeof(*r));
	if (!r)
		return NULL;
	r->root.kind = DC_R_OBJECT;
	r->root.report = r;
	return r;
}

static void node_free_children(struct dc_rnode *n)
{
	struct dc_rnode *c = n->first, *next;
	while (c) {
		next = c->next;
		node_free_children(c);
		free(c->key_own);
		free(c->label_own);
		free(c->what);
		if (c->kind == DC_R_STR)
			free(c->v.s);
		if (c->borrowed && c->report) {
			/* generated rows come and go by the million: keep the node */
			c->next = c->report->spare;
			c->report->spare = c;
		} else {
			free(c);
		}
		c = next;
	}
	n->first = n->last = NULL;
	n->nchildren = 0;
}

void dc_report_free(struct dc_report *r)
{
	if (!r)
		return;
	node_free_children(&r->root);
	while (r->spare) {
		struct dc_rnode *n = r->spare;
		r->spare = n->next;
		free(n);
	}
	while (r->kept) {
		struct kept *k = r->kept;
		r->kept = k->next;
		free(k);
	}
	free(r);
}

struct dc_rnode *dc_report_root(struct dc_report *r)
{
	return r ? &r->root : NULL;
}

int dc_report_failed(const struct dc_report *r)
{
	return !r || r->failed;
}

static char *dup_or_null(const char *s, int *fail)
{
	char *p;
	if (!s)
		return NULL;
	p = dc_strdup(s);
	if (!p)
		*fail = 1;
	return p;
}

static struct dc_rnode *add(struct dc_rnode *parent, enum dc_rkind kind, const char *key,
			    const char *label, enum dc_unit unit)
{
	struct dc_rnode *n;
	int fail = 0;

	if (!parent)
		return NULL;
	if (parent->borrowed && parent->report->spare) {
		n = parent->report->spare;
		parent->report->spare = n->next;
		memset(n, 0, sizeof(*n));
	} else {
		n = dc_calloc(1, sizeof(*n));
	}
	if (!n) {
		parent->report->failed = 1;
		return NULL;
	}
	n->kind = kind;
	n->unit = unit;
	n->report = parent->report;
	if (parent->borrowed) {
		n->borrowed = 1;
		n->key = key;
		n->label = label;
	} else {
		n->key = n->key_own = dup_or_null(key, &fail);
		n->label = n->label_own = dup_or_null(label, &fail);
	}
	if (fail) {
		free(n->key_own);
		free(n->label_own);
		free(n);
		parent->report->failed = 1;
		return NULL;
	}
	if (parent->last)
		parent->last->next = n;
	else
		parent->first = n;
	parent->last = n;
	parent->nchildren++;
	return n;
}

struct dc_rnode *dc_rn_object(struct dc_rnode *parent, const char *key, const char *title)
{
	return add(parent, DC_R_OBJECT, key, title, DC_U_NONE);
}

struct dc_rnode *dc_rn_array(struct dc_rnode *parent, const char *key, const char *title)
{
	return add(parent, DC_R_ARRAY, key, title, DC_U_NONE);
}

struct dc_rnode *dc_rn_array_gen(struct dc_rnode *parent, const char *key, const char *title,
				 const char *what, uint64_t count, dc_row_fn fn, const void *ctx)
{
	struct dc_rnode *n = add(parent, DC_R_ARRAY, key, title, DC_U_NONE);
	int fail = 0;
	if (!n)
		return NULL;
	n->gen = fn;
	n->gen_ctx = ctx;
	n->gen_count = count;
	n->what = dup_or_null(what ? what : "rows", &fail);
	if (fail)
		n->report->failed = 1;
	return n;
}

struct dc_rnode *dc_rn_list_gen(struct dc_rnode *parent, const char *key, const char *title,
				uint64_t count, dc_row_fn fn, const void *ctx)
{
	struct dc_rnode *n = dc_rn_array_gen(parent, key, title, "lists", count, fn, ctx);
	if (n)
		n->gen_list = 1;
	return n;
}

void dc_rn_u64(struct dc_rnode *parent, const char *key, const char *label, enum dc_unit unit,
	       uint64_t v)
{
	struct dc_rnode *n = add(parent, DC_R_U64, key, label, unit);
	if (n)
		n->v.u = v;
}

void dc_rn_f64(struct dc_rnode *parent, const char *key, const char *label, enum dc_unit unit,
	       double v)
{
	struct dc_rnode *n = add(parent, DC_R_F64, key, label, unit);
	if (n)
		n->v.f = v;
}

void dc_rn_str(struct dc_rnode *parent, const char *key, const char *label, const char *v)
{
	struct dc_rnode *n = add(parent, DC_R_STR, key, label, DC_U_NONE);
	if (!n)
		return;
	n->v.s = dc_strdup(v ? v : "");
	if (!n->v.s) {
		n->kind = DC_R_NULL;
		n->report->failed = 1;
	}
}

void dc_rn_bool(struct dc_rnode *parent, const char *key, const char *label, int v)
{
	struct dc_rnode *n = add(parent, DC_R_BOOL, key, label, DC_U_NONE);
	if (n)
		n->v.b = v != 0;
}

void dc_rn_null(struct dc_rnode *parent, const char *key, const char *label, enum dc_unit unit)
{
	add(parent, DC_R_NULL, key, label, unit);
}

void dc_fmt_double(char *buf, size_t len, double v)
{
	if (!isfinite(v)) {
		snprintf(buf, len, "null");
		return;
	}
	if (v == 0) {
		snprintf(buf, len, "0");
		return;
	}
	for (int prec = 15; prec <= 17; prec++) {
		snprintf(buf, len, "%.*g", prec, v);
		if (strtod(buf, NULL) == v)
			return;
	}
}

/* ---- row iteration (stored children or generated rows) ---- */

struct row_iter {
	const struct dc_rnode *arr;
	const struct dc_rnode *child;
	uint64_t index, count, skip_from, skip_to;
	struct dc_rnode scratch;
};

static uint64_t array_len(const struct dc_rnode *a)
{
	return a->gen ? a->gen_count : a->nchildren;
}

/* Rows [skip_from, skip_to) are left out of an excerpt. */
static void excerpt_bounds(uint64_t n, const struct dc_render_opts *o, uint64_t *from, uint64_t *to)
{
	uint64_t max = o ? o->max_rows : 0;
	if (max == 0 || n <= max) {
		*from = *to = n;
		return;
	}
	*from = max / 2;
	*to = n - (max - max / 2);
}

static void iter_init(struct row_iter *it, const struct dc_rnode *arr, const struct dc_render_opts *o)
{
	memset(it, 0, sizeof(*it));
	it->arr = arr;
	it->count = array_len(arr);
	it->child = arr->first;
	excerpt_bounds(it->count, o, &it->skip_from, &it->skip_to);
	it->scratch.kind = arr->gen_list ? DC_R_ARRAY : DC_R_OBJECT;
	it->scratch.report = arr->report;
	it->scratch.borrowed = 1;
}

/* Returns the next row, or NULL at the end. *gap is set when rows were
 * skipped just before this one. The returned row is valid until the next
 * call. */
static const struct dc_rnode *iter_next(struct row_iter *it, int *gap)
{
	*gap = 0;
	if (it->index == it->skip_from && it->skip_to > it->skip_from) {
		*gap = 1;
		if (!it->arr->gen)
			for (uint64_t i = it->skip_from; i < it->skip_to; i++)
				it->child = it->child->next;
		it->index = it->skip_to;
	}
	if (it->index >= it->count)
		return NULL;
	if (it->arr->gen) {
		node_free_children(&it->scratch);
		it->arr->gen(it->arr->gen_ctx, it->index, &it->scratch);
		it->index++;
		return &it->scratch;
	}
	const struct dc_rnode *c = it->child;
	it->child = c->next;
	it->index++;
	return c;
}

static void iter_release(struct row_iter *it)
{
	node_free_children(&it->scratch);
}

/* ---- JSON ---- */

static void json_string(struct dc_buf *b, const char *s)
{
	dc_buf_putc(b, '"');
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		switch (*p) {
		case '"': dc_buf_puts(b, "\\\""); break;
		case '\\': dc_buf_puts(b, "\\\\"); break;
		case '\n': dc_buf_puts(b, "\\n"); break;
		case '\t': dc_buf_puts(b, "\\t"); break;
		case '\r': dc_buf_puts(b, "\\r"); break;
		default:
			if (*p < 0x20)
				dc_buf_printf(b, "\\u%04x", *p);
			else
				dc_buf_putc(b, (char)*p);
		}
	}
	dc_buf_putc(b, '"');
}

static void json_indent(struct dc_buf *b, int depth)
{
	dc_buf_putc(b, '\n');
	dc_buf_pad(b, (size_t)depth * 2);
}

/* Arrays whose elements are all scalars print on one line. */
static int is_flat(const struct dc_rnode *n)
{
	if (n->kind == DC_R_OBJECT)
		return 0;
	if (n->kind != DC_R_ARRAY)
		return 1;
	if (n->gen)
		return 0;
	for (const struct dc_rnode *c = n->first; c; c = c->next)
		if (c->kind == DC_R_OBJECT || c->kind == DC_R_ARRAY)
			return 0;
	return 1;
}

static void json_value(struct dc_buf *b, const struct dc_rnode *n, const struct dc_render_opts *o,
		       int depth);

/* An object of scalars inside an array (a table row) prints on one line. */
static int is_row(const struct dc_rnode *n)
{
	if (n->key && n->key[0])
		return 0;
	for (const struct dc_rnode *c = n->first; c; c = c->next)
		if (c->kind == DC_R_OBJECT || c->kind == DC_R_ARRAY)
			return 0;
	return 1;
}

static void json_row(struct dc_buf *b, const struct dc_rnode *n)
{
	int first = 1;
	dc_buf_putc(b, '{');
	for (const struct dc_rnode *c = n->first; c; c = c->next) {
		if (!first)
			dc_buf_puts(b, ", ");
		first = 0;
		json_string(b, c->key ? c->key : "");
		dc_buf_puts(b, ": ");
		json_value(b, c, NULL, 0);
	}
	dc_buf_putc(b, '}');
}

static void json_members(struct dc_buf *b, const struct dc_rnode *n, const struct dc_render_opts *o,
			 int depth)
{
	int first = 1;
	dc_buf_putc(b, '{');
	for (const struct dc_rnode *c = n->first; c; c = c->next) {
		uint64_t from, to;
		if (!first)
			dc_buf_putc(b, ',');
		first = 0;
		json_indent(b, depth + 1);
		json_string(b, c->key ? c->key : "");
		dc_buf_puts(b, ": ");
		json_value(b, c, o, depth + 1);
		if (c->kind == DC_R_ARRAY) {
			excerpt_bounds(array_len(c), o, &from, &to);
			if (to > from) {
				dc_buf_putc(b, ',');
				json_indent(b, depth + 1);
				dc_buf_printf(b, "\"%s_omitted\": %llu", c->key ? c->key : "",
					      (unsigned long long)(to - from));
			}
		}
	}
	if (!first)
		json_indent(b, depth);
	dc_buf_putc(b, '}');
}

static void json_value(struct dc_buf *b, const struct dc_rnode *n, const struct dc_render_opts *o,
		       int depth)
{
	char num[64];
	switch (n->kind) {
	case DC_R_OBJECT:
		if (is_row(n))
			json_row(b, n);
		else
			json_members(b, n, o, depth);
		break;
	case DC_R_ARRAY: {
		struct row_iter it;
		const struct dc_rnode *row;
		int gap, first = 1, flat = is_flat(n);
		iter_init(&it, n, o);
		dc_buf_putc(b, '[');
		while ((row = iter_next(&it, &gap)) != NULL) {
			if (!first)
				dc_buf_puts(b, flat ? ", " : ",");
			first = 0;
			if (!flat)
				json_indent(b, depth + 1);
			json_value(b, row, o, depth + 1);
		}
		iter_release(&it);
		if (!first && !flat)
			json_indent(b, depth);
		dc_buf_putc(b, ']');
		break;
	}
	case DC_R_U64:
		dc_buf_printf(b, "%llu", (unsigned long long)n->v.u);
		break;
	case DC_R_F64:
		dc_fmt_double(num, sizeof(num), n->v.f);
		dc_buf_puts(b, num);
		break;
	case DC_R_STR:
		json_string(b, n->v.s);
		break;
	case DC_R_BOOL:
		dc_buf_puts(b, n->v.b ? "true" : "false");
		break;
	case DC_R_NULL:
		dc_buf_puts(b, "null");
		break;
	}
}

int dc_report_render_json(struct dc_report *r, const struct dc_render_opts *o, struct dc_buf *out)
{
	json_members(out, &r->root, o, 0);
	dc_buf_putc(out, '\n');
	/* generated rows allocate while rendering: a row that could not be
	 * built would be missing from the output, so that is a failure too */
	return out->failed || r->failed ? -1 : 0;
}

/* ---- table ---- */

/* Longest cell text: strings in a config are at most 256 bytes, warnings
 * and notes a few hundred. */
#define DC_CELL_MAX 1024

static void group_u64(char *buf, size_t len, uint64_t v)
{
	char tmp[32];
	size_t n, o = 0;
	snprintf(tmp, sizeof(tmp), "%llu", (unsigned long long)v);
	n = strlen(tmp);
	for (size_t i = 0; i < n && o + 2 < len; i++) {
		if (i > 0 && (n - i) % 3 == 0)
			buf[o++] = ',';
		buf[o++] = tmp[i];
	}
	buf[o] = '\0';
}

/* Time display scale for a column or a scalar. */
struct tscale {
	double mult;
	const char *unit;
};

static const char *unit_text(enum dc_unit u);

static struct tscale time_scale(double max_s);

/* Display scale of a unit for values up to max_abs: seconds pick s, ms or
 * us; FLOPs pick GFLOP to EFLOP; every other unit is fixed. */
static struct tscale scale_for(enum dc_unit u, double max_abs)
{
	struct tscale t;
	if (u == DC_U_SECONDS)
		return time_scale(max_abs);
	t.mult = 1.0;
	t.unit = unit_text(u);
	if (u == DC_U_FLOPS) {
		static const char *const names[] = {"GFLOP", "TFLOP", "PFLOP", "EFLOP"};
		int k = 0;
		double div = 1e9;
		while (k < 3 && max_abs >= div * 1e3) {
			div *= 1e3;
			k++;
		}
		t.mult = 1.0 / div;
		t.unit = names[k];
	}
	return t;
}

static struct tscale time_scale(double max_s)
{
	struct tscale t;
	if (max_s >= 1.0 || max_s == 0) {
		t.mult = 1.0;
		t.unit = "s";
	} else if (max_s >= 1e-3) {
		t.mult = 1e3;
		t.unit = "ms";
	} else {
		t.mult = 1e6;
		t.unit = "us";
	}
	return t;
}

static const char *unit_text(enum dc_unit u)
{
	switch (u) {
	case DC_U_BYTES: return "GiB";
	case DC_U_BYTES_RAW: return "B";
	case DC_U_GBPS:
	case DC_U_BYTES_PER_S: return "GB/s";
	case DC_U_FLOPS: return "TFLOP";
	case DC_U_PER_S: return "1/s";
	case DC_U_SECONDS: return "s";
	case DC_U_RATIO:
	case DC_U_COUNT:
	case DC_U_NONE: break;
	}
	return "";
}

/* Formats a cell's value (without unit) into buf. A scalar in a key-value
 * block gets the exact byte count after GiB. */
static void cell_text(char *buf, size_t len, const struct dc_rnode *n, const struct tscale *ts,
		      int scalar)
{
	char g[48];
	switch (n->kind) {
	case DC_R_NULL:
		snprintf(buf, len, "n/a");
		return;
	case DC_R_STR:
		snprintf(buf, len, "%s", n->v.s);
		return;
	case DC_R_BOOL:
		snprintf(buf, len, "%s", n->v.b ? "yes" : "no");
		return;
	case DC_R_OBJECT:
		snprintf(buf, len, "{...}");
		return;
	case DC_R_ARRAY:
		snprintf(buf, len, "[...]");
		return;
	case DC_R_U64:
		if (n->unit == DC_U_BYTES) {
			group_u64(g, sizeof(g), n->v.u);
			if (scalar)
				snprintf(buf, len, "%.3f GiB (%s B)", (double)n->v.u / DC_GIB, g);
			else
				snprintf(buf, len, "%.3f", (double)n->v.u / DC_GIB);
		} else {
			group_u64(buf, len, n->v.u);
		}
		return;
	case DC_R_F64:
		break;
	}
	switch (n->unit) {
	case DC_U_BYTES:
		snprintf(buf, len, scalar ? "%.3f GiB" : "%.3f", n->v.f / DC_GIB);
		break;
	case DC_U_BYTES_RAW:
	case DC_U_COUNT:
		/* whole figures carried as doubles (bytes per token, FLOP counts) */
		if (n->v.f >= 0 && n->v.f < 1e18)
			group_u64(buf, len, (uint64_t)llround(n->v.f));
		else
			snprintf(buf, len, "%.0f", n->v.f);
		break;
	case DC_U_SECONDS:
		snprintf(buf, len, "%.3f", n->v.f * ts->mult);
		break;
	case DC_U_GBPS:
		snprintf(buf, len, "%.3f", n->v.f);
		break;
	case DC_U_BYTES_PER_S:
		snprintf(buf, len, "%.3f", n->v.f / 1e9);
		break;
	case DC_U_FLOPS:
		snprintf(buf, len, "%.3f", n->v.f * ts->mult);
		break;
	case DC_U_RATIO:
		snprintf(buf, len, "%.4f", n->v.f);
		break;
	case DC_U_PER_S:
		snprintf(buf, len, "%.1f", n->v.f);
		break;
	case DC_U_NONE:
		dc_fmt_double(buf, len, n->v.f);
		break;
	}
}

static const char *label_of(const struct dc_rnode *n)
{
	return n->label ? n->label : n->key ? n->key : "";
}

static int is_scalar(const struct dc_rnode *n)
{
	return n->kind != DC_R_OBJECT && n->kind != DC_R_ARRAY;
}

static void table_object(struct dc_buf *b, const struct dc_rnode *n, const struct dc_render_opts *o,
			 int depth);

/* Key-value block: label, value and unit; labels aligned. */
static void table_scalars(struct dc_buf *b, const struct dc_rnode *from, const struct dc_rnode *to,
			  int depth)
{
	size_t w = 0;
	char cell[DC_CELL_MAX];
	const struct dc_rnode *c;

	for (c = from; c != to; c = c->next)
		if (strlen(label_of(c)) > w)
			w = strlen(label_of(c));
	for (c = from; c != to; c = c->next) {
		struct tscale ts = scale_for(c->unit, c->kind == DC_R_F64 ? fabs(c->v.f) : 0);
		const char *unit = ts.unit;
		dc_buf_pad(b, (size_t)depth * 2);
		dc_buf_puts(b, label_of(c));
		dc_buf_pad(b, w - strlen(label_of(c)) + 2);
		cell_text(cell, sizeof(cell), c, &ts, 1);
		dc_buf_puts(b, cell);
		/* GiB scalars carry their unit inside the cell */
		if (c->unit != DC_U_BYTES && c->kind != DC_R_NULL && c->kind != DC_R_STR && *unit)
			dc_buf_printf(b, " %s", unit);
		dc_buf_putc(b, '\n');
	}
}

/* An inline list: "label  [0, 1, 2] [3, 4, 5]". */
static void list_inline(struct dc_buf *b, const struct dc_rnode *a, const struct dc_render_opts *o)
{
	struct row_iter it;
	const struct dc_rnode *row;
	int gap, first = 1;
	char cell[DC_CELL_MAX];
	struct tscale ts = time_scale(0);

	iter_init(&it, a, o);
	dc_buf_putc(b, '[');
	while ((row = iter_next(&it, &gap)) != NULL) {
		if (!first)
			dc_buf_puts(b, row->kind == DC_R_ARRAY ? " " : ", ");
		if (gap)
			dc_buf_printf(b, "... (%llu more) ", (unsigned long long)(it.skip_to - it.skip_from));
		first = 0;
		if (row->kind == DC_R_ARRAY) {
			list_inline(b, row, o);
		} else if (row->kind == DC_R_U64 && row->unit != DC_U_BYTES) {
			/* no thousands separators where a comma separates items:
			 * "[4032, 4036]", not "[4,032, 4,036]" */
			dc_buf_printf(b, "%llu", (unsigned long long)row->v.u);
		} else {
			cell_text(cell, sizeof(cell), row, &ts, 0);
			dc_buf_puts(b, cell);
		}
	}
	iter_release(&it);
	dc_buf_putc(b, ']');
}

struct col {
	const char *label;
	enum dc_unit unit;
	size_t width;
	double max_abs;
	struct tscale ts;
};

#define MAX_COLS 24

/* Right-aligns text of `len` in a column of `width` after `gap` spaces. A
 * row generated after an allocation failure can lack fields and so be wider
 * than the widths measured before; it must never underflow the padding (the
 * render then fails as a whole). */
static void pad_cell(struct dc_buf *b, size_t width, size_t len, size_t gap)
{
	dc_buf_pad(b, (width > len ? width - len : 0) + gap);
}

/* A table of object rows: header, units row, rows; an excerpt marker where
 * rows were left out. */
static void table_rows(struct dc_buf *b, const struct dc_rnode *a, const struct dc_render_opts *o,
		       int depth)
{
	struct col cols[MAX_COLS];
	size_t ncols = 0, i;
	struct row_iter it;
	const struct dc_rnode *row, *c;
	int gap;
	char cell[DC_CELL_MAX];
	uint64_t n = array_len(a);

	dc_buf_pad(b, (size_t)depth * 2);
	dc_buf_printf(b, "%s", a->label ? a->label : a->key);
	if (n == 0) {
		dc_buf_puts(b, ": none\n");
		return;
	}
	dc_buf_putc(b, '\n');
	/* pass 1: columns from the first row, widths and time scales */
	iter_init(&it, a, o);
	while ((row = iter_next(&it, &gap)) != NULL) {
		if (ncols == 0) {
			for (c = row->first; c && ncols < MAX_COLS; c = c->next) {
				cols[ncols].label = label_of(c);
				cols[ncols].unit = c->unit;
				cols[ncols].width = strlen(label_of(c));
				cols[ncols].max_abs = 0;
				ncols++;
			}
			/* labels of generated rows die with the scratch row: keep the
			 * first row's labels by copying them below */
		}
		for (c = row->first, i = 0; c && i < ncols; c = c->next, i++)
			if (c->kind == DC_R_F64 && fabs(c->v.f) > cols[i].max_abs)
				cols[i].max_abs = fabs(c->v.f);
	}
	iter_release(&it);
	/* labels: re-read from a fresh first row (scratch rows were freed) */
	{
		struct dc_rnode hdr;
		memset(&hdr, 0, sizeof(hdr));
		hdr.kind = DC_R_OBJECT;
		hdr.report = a->report;
		hdr.borrowed = 1;
		const struct dc_rnode *first = a->gen ? &hdr : a->first;
		if (a->gen)
			a->gen(a->gen_ctx, 0, &hdr);
		/* every column gets its scale even when the header row came out
		 * short (an allocation failed while generating it) */
		for (i = 0; i < ncols; i++) {
			cols[i].ts = scale_for(cols[i].unit, cols[i].max_abs);
			cols[i].width = 0;
		}
		for (c = first->first, i = 0; c && i < ncols; c = c->next, i++)
			cols[i].width = strlen(label_of(c));
		/* widths over all shown rows */
		iter_init(&it, a, o);
		while ((row = iter_next(&it, &gap)) != NULL)
			for (c = row->first, i = 0; c && i < ncols; c = c->next, i++) {
				cell_text(cell, sizeof(cell), c, &cols[i].ts, 0);
				if (strlen(cell) > cols[i].width)
					cols[i].width = strlen(cell);
			}
		iter_release(&it);
		for (i = 0; i < ncols; i++) {
			const char *u = cols[i].ts.unit;
			if (strlen(u) + 2 > cols[i].width)
				cols[i].width = strlen(u) + 2;
		}
		/* header and units row */
		dc_buf_pad(b, (size_t)depth * 2 + 2);
		for (c = first->first, i = 0; c && i < ncols; c = c->next, i++) {
			pad_cell(b, cols[i].width, strlen(label_of(c)), i ? 2 : 0);
			dc_buf_puts(b, label_of(c));
		}
		dc_buf_putc(b, '\n');
		/* the units row, unless no column has a unit */
		for (i = 0; i < ncols && !*cols[i].ts.unit; i++)
			;
		if (i == ncols)
			goto units_done;
		dc_buf_pad(b, (size_t)depth * 2 + 2);
		for (i = 0; i < ncols; i++) {
			const char *u = cols[i].ts.unit;
			char ub[32];
			if (*u)
				snprintf(ub, sizeof(ub), "[%s]", u);
			else
				ub[0] = '\0';
			pad_cell(b, cols[i].width, strlen(ub), i ? 2 : 0);
			dc_buf_puts(b, ub);
		}
		dc_buf_putc(b, '\n');
units_done:
		node_free_children(&hdr);
	}
	/* pass 2: rows */
	iter_init(&it, a, o);
	while ((row = iter_next(&it, &gap)) != NULL) {
		if (gap) {
			dc_buf_pad(b, (size_t)depth * 2 + 2);
			dc_buf_printf(b, "... %llu %s not shown (--all prints every row) ...\n",
				      (unsigned long long)(it.skip_to - it.skip_from), a->what ? a->what : "rows");
		}
		dc_buf_pad(b, (size_t)depth * 2 + 2);
		for (c = row->first, i = 0; c && i < ncols; c = c->next, i++) {
			cell_text(cell, sizeof(cell), c, &cols[i].ts, 0);
			pad_cell(b, cols[i].width, strlen(cell), i ? 2 : 0);
			dc_buf_puts(b, cell);
		}
		dc_buf_putc(b, '\n');
	}
	iter_release(&it);
}

static int all_strings(const struct dc_rnode *a)
{
	for (const struct dc_rnode *x = a->first; x; x = x->next)
		if (x->kind != DC_R_STR)
			return 0;
	return 1;
}

static void table_child(struct dc_buf *b, const struct dc_rnode *c, const struct dc_render_opts *o,
			int depth)
{
	if (c->kind == DC_R_OBJECT) {
		table_object(b, c, o, depth);
	} else if (c->kind == DC_R_ARRAY && !is_flat(c) &&
		   ((c->gen && !c->gen_list) || (c->first && c->first->kind == DC_R_OBJECT))) {
		table_rows(b, c, o, depth);
	} else if (c->kind == DC_R_ARRAY && !c->gen && c->first && all_strings(c)) {
		/* prose (warnings, notes): one item a line, never cut */
		dc_buf_pad(b, (size_t)depth * 2);
		dc_buf_printf(b, "%s\n", label_of(c));
		for (const struct dc_rnode *x = c->first; x; x = x->next) {
			dc_buf_pad(b, (size_t)depth * 2 + 2);
			dc_buf_printf(b, "- %s\n", x->v.s);
		}
	} else if (c->kind == DC_R_ARRAY) {
		dc_buf_pad(b, (size_t)depth * 2);
		dc_buf_printf(b, "%s  ", label_of(c));
		if (array_len(c) == 0)
			dc_buf_puts(b, "none");
		else
			list_inline(b, c, o);
		dc_buf_putc(b, '\n');
	}
}

static void table_object(struct dc_buf *b, const struct dc_rnode *n, const struct dc_render_opts *o,
			 int depth)
{
	const struct dc_rnode *c = n->first, *run;
	int inner = depth;

	if (n->label) {
		if (depth == 0) {
			dc_buf_printf(b, "\n%s\n", n->label);
			for (size_t i = strlen(n->label); i > 0; i--)
				dc_buf_putc(b, '=');
			dc_buf_putc(b, '\n');
		} else {
			dc_buf_pad(b, (size_t)depth * 2);
			dc_buf_printf(b, "%s\n", n->label);
		}
		inner = depth + 1;
	}
	while (c) {
		if (is_scalar(c)) {
			run = c;
			while (c && is_scalar(c))
				c = c->next;
			table_scalars(b, run, c, inner);
			continue;
		}
		table_child(b, c, o, inner);
		c = c->next;
	}
}

int dc_report_render_table(struct dc_report *r, const struct dc_render_opts *o, struct dc_buf *out)
{
	const struct dc_rnode *c = r->root.first, *run;
	while (c) {
		if (is_scalar(c)) {
			run = c;
			while (c && is_scalar(c))
				c = c->next;
			table_scalars(out, run, c, 0);
			continue;
		}
		table_child(out, c, o, 0);
		c = c->next;
	}
	return out->failed || r->failed ? -1 : 0;
}
