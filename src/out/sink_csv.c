/* sink_csv.c - RFC 4180 CSV for spreadsheets and pandas; see report.h.
 *
 *   # distcalc_version: "0.1.0"        header fields as comment lines (JSON values)
 *   # section: memory                  one block per section:
 *   key,value,unit                       its scalars, nested keys joined by '.'
 *   fits,true,
 *   # table: memory.classes            then each table: a header row of its
 *   class,stages,ranks,...               field keys and every row (no excerpt)
 *
 * Every block is a whole CSV table, so `pandas.read_csv(..., comment="#")`
 * reads one block, and a split on the "# " lines reads them all. Values are
 * in base units (the unit column says which); a value that is undefined is
 * an empty field. Lines end in CRLF, as RFC 4180 says.
 */
#include <assert.h>
#include <math.h>
#include <string.h>

#include "report_int.h"

static const char *base_unit(enum dc_unit u)
{
	switch (u) {
	case DC_U_BYTES:
	case DC_U_BYTES_RAW: return "B";
	case DC_U_SECONDS:
	case DC_U_SECONDS_US: return "s";
	case DC_U_GBPS: return "GB/s";
	case DC_U_BYTES_PER_S: return "B/s";
	case DC_U_FLOPS: return "FLOP";
	case DC_U_PER_S: return "1/s";
	case DC_U_COUNT:
	case DC_U_RATIO:
	case DC_U_NONE: break;
	}
	return "";
}

/* A field quoted when it holds a comma, a quote, CR, LF, edge spaces or '#'
 * (readers told that '#' starts a comment, as pandas' comment="#", cut an
 * unquoted field there). */

/* s (n bytes) as a quoted field: inside quotes, a quote doubled. */
static void csv_quoted(struct dc_buf *b, const char *s, size_t n)
{
	const char *q;
	dc_buf_putc(b, '"');
	while ((q = memchr(s, '"', n)) != NULL) {
		size_t k = (size_t)(q - s) + 1;
		dc_buf_add(b, s, k);
		dc_buf_putc(b, '"');
		s += k;
		n -= k;
	}
	dc_buf_add(b, s, n);
	dc_buf_putc(b, '"');
}

/* 1 for the bytes that keep a field from being written as it is: controls,
 * DEL and above, quote, '#' and comma */
static const unsigned char csv_special[256] = {
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	0, 0, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
};

/* 1 when no byte of the 8 at s is csv_special (may be 0 for a plain
 * word: see dc_csv_plain) */
static inline int csv_plain_word(const unsigned char *s)
{
	const uint64_t one = 0x0101010101010101u, top = 0x8080808080808080u, lo = 0x2020202020202020u,
		       quote_or_hash = 0x2323232323232323u, comma = 0x2c2c2c2c2c2c2c2cu;
	uint64_t x, q, c;
	memcpy(&x, s, 8);
	/* '"' (0x22) and '#' (0x23) differ in the low bit alone: with it
	 * set, both read 0x23 */
	q = (x | one) ^ quote_or_hash;
	c = x ^ comma;
	return !(((x - lo) | (x + one) | x | ((q - one) & ~q) | ((c - one) & ~c)) & top);
}

int dc_csv_plain(const char *text, size_t n)
{
	const unsigned char *s = (const unsigned char *)text;
	size_t i;
	if (n == 0)
		return 1;
	if (s[0] == ' ' || s[n - 1] == ' ')
		return 0;
	if (n < 8) {
		for (i = 0; i < n; i++)
			if (csv_special[s[i]])
				return 0;
		return 1;
	}
	for (i = 0; i + 8 <= n; i += 8)
		if (!csv_plain_word(s + i))
			return 0;
	/* the last few bytes as the word that ends the text (its first
	 * bytes checked twice) */
	return i == n || csv_plain_word(s + n - 8);
}

/* raw (n bytes, NUL-terminated after them) as a field; returns 1 when
 * it is written as it is (dc_csv_plain), else 0 */
static int csv_text_n(struct dc_buf *b, const char *raw, size_t n)
{
	struct dc_buf esc;
	const char *s = raw;
	int quote = 0;

	/* the common case, a field written as it is, in one scan */
	if (dc_csv_plain(raw, n)) {
		dc_buf_add_short(b, raw, n);
		return 1;
	}
	/* printable ASCII, which needs no escape (dc_text_printable) and
	 * holds no CR or LF, but is quoted */
	if (dc_text_ascii_printable(raw, n)) {
		quote = (n > 0 && (raw[0] == ' ' || raw[n - 1] == ' ')) || raw[strcspn(raw, ",\"#")];
		/* printable ASCII holds no CR or LF: the same test as below */
		if (!quote)
			dc_buf_add(b, raw, n);
		else
			csv_quoted(b, raw, n);
		return 0;
	}
	quote = 0;
	/* no raw control bytes: a file name's newline or ESC is written
	 * \n, \x1b (section.h, dc_buf_printable) */
	dc_buf_init(&esc);
	if (!dc_text_printable(raw)) {
		dc_buf_printable(&esc, raw);
		if (esc.failed) {
			b->failed = 1;
			dc_buf_release(&esc);
			return 0;
		}
		s = esc.data;
	}
	n = strlen(s);
	quote = n > 0 && (s[0] == ' ' || s[n - 1] == ' ');
	for (size_t i = 0; i < n && !quote; i++)
		if (s[i] == ',' || s[i] == '"' || s[i] == '\r' || s[i] == '\n' || s[i] == '#')
			quote = 1;
	if (!quote)
		dc_buf_add(b, s, n);
	else
		csv_quoted(b, s, n);
	dc_buf_release(&esc);
	return 0;
}

static void csv_text(struct dc_buf *b, const char *raw)
{
	(void)csv_text_n(b, raw, strlen(raw));
}

static void csv_value(struct dc_buf *b, const struct dc_field *f, const void *base)
{
	const void *p = dc_fld_ptr(base, f);
	char text[DC_CELL_MAX], *o;
	uint64_t u;
	double v;

	if (dc_fld_null(f, base))
		return;
	switch (f->type) {
	case DC_FT_U64: /* the digits written in place: 20 and a NUL */
		memcpy(&u, p, sizeof(u));
		if ((o = dc_buf_room(b, 21)) != NULL)
			dc_buf_commit(b, dc_fmt_u64(o, u));
		break;
	case DC_FT_F64: /* dc_fmt_double's fast path wants 32 bytes */
		memcpy(&v, p, sizeof(v));
		if (isfinite(v) && (o = dc_buf_room(b, 32)) != NULL) /* else "null": an empty field */
			dc_buf_commit(b, dc_fmt_double(o, 32, v));
		break;
	case DC_FT_BOOL:
		dc_buf_puts(b, *(const int *)p ? "true" : "false");
		break;
	case DC_FT_STR:
	case DC_FT_TEXT:
	case DC_FT_FN: {
		const char *t = dc_fld_text(f, base, text, sizeof(text));
		size_t n = strlen(t);
		/* a JSON-valued scalar as CSV writes any value: a string as
		 * the text JSON's reader gets (its quotes gone, its escapes
		 * decoded), null empty; an object or array stays its JSON text */
		if (f->json_value && strcmp(t, "null") == 0)
			break;
		if (f->json_value && n >= 2 && t[0] == '"' && t[n - 1] == '"' && n < sizeof(text)) {
			size_t m;
			if (t != text) {
				memcpy(text, t, n + 1);
				t = text;
			}
			if ((m = dc_json_string_text(text, sizeof(text), text, n)) != (size_t)-1) {
				(void)csv_text_n(b, text, m);
				break;
			}
		}
		(void)csv_text_n(b, t, n);
		break;
	}
	default:
		break;
	}
}

static void eol(struct dc_buf *b)
{
	dc_buf_add(b, "\r\n", 2);
}

/* key path: prefix + "." + key; `tail`: where the part after the
 * section's name starts (0 while the path is the name alone) */
struct path {
	char s[256];
	size_t len;
	size_t tail;
};

static size_t path_push(struct path *p, const char *key)
{
	size_t old = p->len, k = strlen(key);
	if (p->len + k + 2 < sizeof(p->s)) {
		if (p->len)
			p->s[p->len++] = '.';
		if (!p->tail && old)
			p->tail = p->len;
		memcpy(p->s + p->len, key, k + 1);
		p->len += k;
	}
	return old;
}

static void path_pop(struct path *p, size_t old)
{
	p->len = old;
	p->s[old] = '\0';
	if (p->tail > old)
		p->tail = 0;
}

/* A scalar number (a U64 or F64 field that is never null) as the line
 * csv_scalars writes for it, "PATH,VALUE,UNIT" and CRLF, in one piece:
 * its path is the part of p's after the section's name, then the key (a
 * key is [A-Za-z0-9_]: check_report.c keys_unique), without pushing it on
 * p. Returns 0 for any other field, or a path too long for p, which
 * csv_scalars writes as before. */
static int csv_scalar_number(struct dc_buf *b, const struct dc_field *f, const void *base, const struct path *p)
{
	const char *unit;
	size_t pre = p->tail ? p->len - p->tail : 0, k, u, n = 0;
	const void *v;
	char *o;
	if (f->is_null || (f->type != DC_FT_U64 && f->type != DC_FT_F64))
		return 0;
	k = strlen(f->key);
	if (p->len + k + 2 >= sizeof(p->s)) /* path_push would not add it */
		return 0;
	unit = base_unit(f->unit);
	u = strlen(unit);
	/* the path, its dot, the key, a comma, 32 bytes of number, a comma,
	 * the unit and CRLF */
	if (!(o = dc_buf_room(b, pre + 1 + k + 1 + 32 + 1 + u + 2)))
		return 1;
	if (pre) {
		dc_copy_short(o, p->s + p->tail, pre);
		o[pre] = '.';
		n = pre + 1;
	}
	dc_copy_short(o + n, f->key, k);
	n += k;
	assert(dc_csv_plain(o, n));
	o[n++] = ',';
	v = dc_fld_ptr(base, f);
	if (f->type == DC_FT_U64) {
		uint64_t x;
		memcpy(&x, v, sizeof(x));
		n += dc_fmt_u64(o + n, x);
	} else {
		double x;
		memcpy(&x, v, sizeof(x));
		if (isfinite(x)) /* else "null": an empty field */
			n += dc_fmt_double(o + n, 32, x);
	}
	o[n++] = ',';
	dc_copy_short(o + n, unit, u);
	n += u;
	memcpy(o + n, "\r\n", 2);
	dc_buf_commit(b, n + 2);
	return 1;
}

/* pass 1: the scalars of an object and its nested objects */
static void csv_scalars(struct dc_buf *b, const struct dc_fields *fs, const void *base, struct path *p)
{
	for (size_t i = 0; i < fs->n; i++) {
		const struct dc_field *f = &fs->f[i];
		size_t old;
		if (!dc_fld_shown(f, base) || f->table_only)
			continue;
		if (f->type == DC_FT_OBJECT) {
			old = path_push(p, f->key);
			csv_scalars(b, f->sub, dc_fld_ptr(base, f), p);
			path_pop(p, old);
		} else if (csv_scalar_number(b, f, base, p)) {
			continue;
		} else if (dc_fld_scalar(f)) {
			old = path_push(p, f->key);
			/* the section's own name leads every path: drop it. The
			 * rest is keys joined by dots, and a key is [A-Za-z0-9_]
			 * (check_report.c keys_unique, "CSV unquoted"): written as
			 * it is, without dc_csv_plain's scan */
			assert(dc_csv_plain(p->s + p->tail, p->len - p->tail));
			dc_buf_add(b, p->s + p->tail, p->len - p->tail);
			path_pop(p, old);
			dc_buf_putc(b, ',');
			csv_value(b, f, base);
			dc_buf_putc(b, ',');
			dc_buf_puts(b, base_unit(f->unit));
			eol(b);
		}
	}
}

static void table_line(struct dc_buf *b, const struct path *p)
{
	dc_buf_add(b, "# table: ", 9);
	dc_buf_add(b, p->s, p->len);
	eol(b);
}

/* How a table's cells are written: a number or a row's own text that is
 * never null (nor a JSON value) in one piece, without csv_value's text
 * buffer (most of a table's cells); anything else by csv_value. */
enum { CSV_U64, CSV_F64, CSV_TEXT, CSV_OTHER };

static int csv_kind(const struct dc_field *f)
{
	if (f->is_null)
		return CSV_OTHER;
	switch (f->type) {
	case DC_FT_U64: return CSV_U64;
	case DC_FT_F64: return CSV_F64;
	case DC_FT_STR:
	case DC_FT_TEXT: return f->json_value ? CSV_OTHER : CSV_TEXT;
	default: return CSV_OTHER;
	}
}

/* A table's columns CSV writes (not table_only) and each one's kind,
 * found once per table; a column's numbers go through its memo (the row
 * above's text when equal), its static texts through its text memo. n
 * is 0 for a table of more than DC_MAX_COLUMNS columns (check_report.c
 * allows none), written column by column with no memo. */
struct csv_plan {
	size_t n;
	const struct dc_field *f[DC_MAX_COLUMNS];
	int kind[DC_MAX_COLUMNS];
	struct dc_num_memo memo[DC_MAX_COLUMNS];
	struct dc_str_memo str[DC_MAX_COLUMNS];
};

static void csv_plan_init(struct csv_plan *p, const struct dc_fields *cf)
{
	p->n = 0;
	if (cf->n > DC_MAX_COLUMNS)
		return;
	for (size_t c = 0; c < cf->n; c++) {
		if (cf->f[c].table_only)
			continue;
		p->f[p->n] = &cf->f[c];
		p->kind[p->n] = csv_kind(&cf->f[c]);
		if (p->kind[p->n] == CSV_F64 || p->kind[p->n] == CSV_U64)
			dc_num_memo_init(&p->memo[p->n]);
		p->str[p->n].s = NULL;
		p->n++;
	}
}

/* A row's cell of `kind`, after a comma unless it leads the row (a
 * buffer of DC_ROW_MAX bytes); a number's text from the memo `m`, a
 * static text through the memo `ms` (NULL: formatted and measured). In
 * line: called once a cell, most of which are a few bytes. */
static inline __attribute__((always_inline)) void csv_cell(struct dc_buf *b, const struct dc_field *f, int kind,
							   const void *row, int comma, struct dc_num_memo *m,
							   struct dc_str_memo *ms)
{
	const void *p = dc_fld_ptr(row, f);
	const char *t;
	char *o;
	size_t k = 0;
	uint64_t u;
	double v;

	switch (kind) {
	case CSV_U64:
	case CSV_F64:
		/* a comma, then a count under 1000 in place, or a number's 32
		 * bytes from its memo */
		if (!(o = dc_buf_room(b, 1 + DC_NUM_MEMO_TEXT)))
			return;
		if (comma)
			o[k++] = ',';
		if (kind == CSV_U64) {
			memcpy(&u, p, sizeof(u));
			if (u < 1000 || !m) {
				k += dc_fmt_u64(o + k, u);
			} else {
				dc_num_memo_u64(m, u);
				memcpy(o + k, m->text, DC_NUM_MEMO_TEXT);
				k += m->len;
			}
		} else {
			memcpy(&v, p, sizeof(v));
			if (!isfinite(v)) {
				/* "null": an empty field */
			} else if (m) {
				dc_num_memo_f64(m, v);
				memcpy(o + k, m->text, DC_NUM_MEMO_TEXT);
				k += m->len;
			} else {
				k += dc_fmt_double(o + k, 32, v);
			}
		}
		dc_buf_commit(b, k);
		return;
	case CSV_TEXT: /* the row's own text (NULL as an empty field) */
		if (comma)
			dc_buf_putc(b, ',');
		if (f->type == DC_FT_TEXT) {
			(void)csv_text_n(b, p, strlen(p));
			return;
		}
		memcpy(&t, p, sizeof(t));
		if (ms && dc_str_memo_hit(ms, t)) {
			dc_buf_add_short(b, t, ms->len);
			return;
		}
		k = t ? strlen(t) : 0;
		if (!t)
			t = "";
		k = csv_text_n(b, t, k) ? k : (size_t)-1;
		if (ms)
			dc_str_memo_keep(ms, t, k, k != (size_t)-1, row);
		return;
	default:
		if (comma)
			dc_buf_putc(b, ',');
		csv_value(b, f, row);
	}
}

/* a ROWS table's header row and rows: every row, but the ring's O(p^2)
 * events, excerpted beside other sections as under --all, and alone
 * (--only ring, --experiment ring) unless --all (max_rows 0): a trial's
 * `-e ring -f csv` at 2^20 GPUs streamed events for six minutes, of 2.2 x
 * 10^12, where JSON printed 8 KB */
static void csv_rows(struct dc_buf *b, struct dc_report *r, const struct dc_field *f, const void *base,
		     const struct path *p, int shown, uint64_t max_rows)
{
	_Alignas(max_align_t) unsigned char row[DC_ROW_MAX];
	const struct dc_fields *cf = f->sub;
	uint64_t n = shown ? f->rows->count(base) : 0, from, to;
	struct dc_row_doubles dbl;
	struct csv_plan plan;

	dc_row_doubles_init(&dbl, cf);
	csv_plan_init(&plan, cf);
	dc_excerpt_bounds_max(n, dc_rows_limit(r, f->rows, f->rows->quadratic ? max_rows : 0), &from, &to);
	if (to > from) {
		/* the ring's O(p^2) events */
		char num[32];
		/* "# excerpt: the first and last N of M rows; --only SECTION
		 * --all prints every one", piece by piece, not through printf */
		dc_buf_puts(b, "# excerpt: the first and last ");
		dc_buf_add(b, num, dc_fmt_u64(num, from));
		dc_buf_add(b, " of ", 4);
		dc_buf_add(b, num, dc_fmt_u64(num, n));
		dc_buf_puts(b, " rows; --only ");
		dc_buf_add(b, p->s, strcspn(p->s, "."));
		dc_buf_puts(b, " --all prints every one\r\n");
	}
	/* the header row: field keys, [A-Za-z0-9_] (check_report.c
	 * keys_unique, "CSV unquoted"), or a sweep's config and metric paths
	 * (letters, digits, '_', '.', '[', ']'): written as they are */
	for (size_t c = 0, sep = 0; c < cf->n; c++) {
		const char *key = cf->f[c].key;
		if (cf->f[c].table_only)
			continue;
		if (sep++)
			dc_buf_putc(b, ',');
		assert(dc_csv_plain(key, strlen(key)));
		dc_buf_add_short(b, key, strlen(key));
	}
	eol(b);
	for (uint64_t k = 0; k < n; k++) {
		if (k == from && to > from)
			k = to;
		if (k >= n)
			break;
		memset(row, 0, f->rows->row_size);
		f->rows->row(base, k, row);
		if (!dc_row_doubles_finite(&dbl, row) && dc_report_row_check(r, f, base, k, row, b) != 0)
			break;
		for (size_t c = 0; c < plan.n; c++)
			csv_cell(b, plan.f[c], plan.kind[c], row, c != 0, &plan.memo[c], &plan.str[c]);
		for (size_t c = 0, sep = 0; !plan.n && c < cf->n; c++)
			if (!cf->f[c].table_only)
				csv_cell(b, &cf->f[c], csv_kind(&cf->f[c]), row, sep++ != 0, NULL, NULL);
		eol(b);
	}
}

/* a LISTS table: one row per group, its index and its members
 * space-separated; a PROSE table: one text a row */
static void csv_lists(struct dc_buf *b, const struct dc_field *f, const void *base, int shown)
{
	char num[24];
	uint64_t n = shown ? f->lists->count(base) : 0;
	dc_buf_puts(b, "index,members");
	eol(b);
	for (uint64_t g = 0; g < n; g++) {
		uint64_t m = f->lists->len(base, g);
		dc_buf_add(b, num, dc_fmt_u64(num, g));
		dc_buf_putc(b, ',');
		for (uint64_t k = 0; k < m; k++) {
			if (k)
				dc_buf_putc(b, ' ');
			dc_buf_add(b, num, dc_fmt_u64(num, f->lists->item(base, g, k)));
		}
		eol(b);
	}
}

static void csv_prose(struct dc_buf *b, const struct dc_field *f, const void *base, int shown)
{
	uint64_t n = shown ? f->prose->count(base) : 0;
	dc_buf_puts(b, "text");
	eol(b);
	for (uint64_t k = 0; k < n; k++) {
		csv_text(b, f->prose->at(base, k));
		eol(b);
	}
}

static void csv_table(struct dc_buf *b, struct dc_report *r, const struct dc_field *f, const void *base,
		      const struct path *p, int shown, uint64_t max_rows)
{
	if (f->type == DC_FT_ROWS)
		csv_rows(b, r, f, base, p, shown, max_rows);
	else if (f->type == DC_FT_LISTS)
		csv_lists(b, f, base, shown);
	else if (f->type == DC_FT_PROSE)
		csv_prose(b, f, base, shown);
}

/* pass 2: every table, every row */
static void csv_tables(struct dc_buf *b, struct dc_report *r, const struct dc_fields *fs, const void *base,
		       struct path *p, uint64_t max_rows)
{
	for (size_t i = 0; i < fs->n; i++) {
		const struct dc_field *f = &fs->f[i];
		size_t old;
		if (!dc_fld_shown(f, base) || dc_fld_scalar(f))
			continue;
		old = path_push(p, f->key);
		if (f->type == DC_FT_OBJECT) {
			csv_tables(b, r, f->sub, dc_fld_ptr(base, f), p, max_rows);
		} else {
			table_line(b, p);
			csv_table(b, r, f, base, p, 1, max_rows);
		}
		path_pop(p, old);
	}
}

/* --only SECTION.TABLE: that table alone, its header row and every row,
 * nothing else (no comment lines), so a plain CSV reader takes the file.
 * A table the run does not show (comm.dp without dp) is its header row. */
static int csv_bare(struct dc_report *r, const struct dc_fields *root, const void *base, struct dc_buf *out)
{
	const struct dc_field *f = NULL;
	struct path p = {{0}, 0, 0};
	int shown = 1;

	for (size_t i = 0; i < root->n && !f; i++)
		if (root->f[i].type == DC_FT_OBJECT)
			f = &root->f[i];
	/* down the chain of one-field objects (dc_report_only_table) */
	while (f && f->type == DC_FT_OBJECT) {
		shown &= dc_fld_shown(f, base);
		path_push(&p, f->key);
		base = dc_fld_ptr(base, f);
		f = f->sub->n ? &f->sub->f[0] : NULL;
	}
	if (f) {
		shown &= dc_fld_shown(f, base);
		path_push(&p, f->key);
		csv_table(out, r, f, base, &p, shown, 0); /* a table asked for by its path: every row */
	}
	return out->failed ? -1 : 0;
}

int dc_report_render_csv(struct dc_report *r, const struct dc_render_opts *o, struct dc_buf *out)
{
	const void *base;
	const struct dc_fields *root = dc_report_fields(r, &base);
	struct path p = {{0}, 0, 0};
	char text[DC_CELL_MAX];

	if (r->only_table)
		return csv_bare(r, root, base, out);
	for (size_t i = 0; i < root->n; i++) {
		const struct dc_field *f = &root->f[i];
		if (!dc_fld_shown(f, base))
			continue;
		if (dc_fld_scalar(f)) {
			/* header fields: comment lines, each value its JSON text
			 * (a string quoted, control bytes escaped; "all": true) */
			dc_buf_add(out, "# ", 2);
			dc_buf_puts(out, f->key);
			dc_buf_add(out, ": ", 2);
			if (f->type == DC_FT_U64)
				dc_buf_add(out, text, dc_fmt_u64(text, *(const uint64_t *)dc_fld_ptr(base, f)));
			else if (f->type == DC_FT_BOOL)
				dc_buf_puts(out, *(const int *)dc_fld_ptr(base, f) ? "true" : "false");
			else
				dc_buf_json_string(out, dc_fld_text(f, base, text, sizeof(text)));
			eol(out);
		} else if (f->type == DC_FT_OBJECT) {
			const void *sub = dc_fld_ptr(base, f);
			size_t old = path_push(&p, f->key);
			dc_buf_add(out, "# section: ", 11);
			dc_buf_puts(out, f->key);
			eol(out);
			dc_buf_puts(out, "key,value,unit");
			eol(out);
			csv_scalars(out, f->sub, sub, &p);
			csv_tables(out, r, f->sub, sub, &p, o ? o->max_rows : 0);
			path_pop(&p, old);
		} else if (!r->only) {
			/* the warnings; with --only, as in the table, sections alone
			 * (the header comments stay: they say what made the file) */
			struct dc_fields one = {f, 1};
			csv_tables(out, r, &one, base, &p, o ? o->max_rows : 0);
		}
	}
	return out->failed ? -1 : 0;
}
