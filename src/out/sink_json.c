/* sink_json.c - JSON in base units, the same fields as the table; see
 * report.h. Objects one member a line, table rows one object a line, lists
 * of scalars on one line. */
#include <string.h>

#include "report_int.h"

struct jctx {
	struct dc_buf *b;
	const struct dc_render_opts *o;
	struct dc_report *r;
};

/* A line break and the indent of `depth`, after a comma when `comma`, in
 * one piece (the indent as a fixed-size copy of spaces, as j_key's). In
 * line: once a table row, it cost about as much called as it writes. */
static inline __attribute__((always_inline)) void j_break(struct dc_buf *b, int comma, int depth)
{
	static const char spaces[16] = "                ";
	size_t pad = (size_t)depth * 2, lead = comma ? 2 : 1;
	char *o = dc_buf_room(b, 2 + pad + sizeof(spaces));
	if (!o)
		return;
	memcpy(o, comma ? ",\n" : "\n", 2); /* "\n" with its NUL: two bytes either way */
	if (pad <= sizeof(spaces))
		memcpy(o + lead, spaces, sizeof(spaces));
	else
		memset(o + lead, ' ', pad);
	dc_buf_commit(b, lead + pad);
}

static void j_indent(struct dc_buf *b, int depth)
{
	j_break(b, 0, depth);
}

static void j_scalar(struct dc_buf *b, const struct dc_field *f, const void *base)
{
	const void *p = dc_fld_ptr(base, f);
	char text[DC_CELL_MAX], *o;
	uint64_t u;
	double v;

	if (dc_fld_null(f, base)) {
		dc_buf_add(b, "null", 4);
		return;
	}
	switch (f->type) {
	case DC_FT_U64: /* the digits written in place: 20 and a NUL */
		memcpy(&u, p, sizeof(u));
		if ((o = dc_buf_room(b, 21)) != NULL)
			dc_buf_commit(b, dc_fmt_u64(o, u));
		break;
	case DC_FT_F64: /* dc_fmt_double's fast path wants 32 bytes */
		memcpy(&v, p, sizeof(v));
		if ((o = dc_buf_room(b, 32)) != NULL)
			dc_buf_commit(b, dc_fmt_double(o, 32, v));
		break;
	case DC_FT_BOOL:
		if (*(const int *)p)
			dc_buf_add(b, "true", 4);
		else
			dc_buf_add(b, "false", 5);
		break;
	case DC_FT_STR:
	case DC_FT_TEXT:
	case DC_FT_FN:
		if (f->json_value && f->type == DC_FT_FN)
			dc_buf_puts(b, dc_fld_text(f, base, text, sizeof(text)));
		else
			dc_buf_json_string(b, dc_fld_text(f, base, text, sizeof(text)));
		break;
	default:
		dc_buf_add(b, "null", 4);
	}
}

/* A member's start: `lead` (what ends the member before it and the line
 * break, lead_n <= 2 bytes), `pad` spaces, then the key quoted and ": ",
 * in one piece. Keys are static identifiers (check_report.c checks every
 * field table): nothing to escape. The lead and the indent are written as
 * fixed-size copies (two bytes, sixteen spaces) of which only lead_n and
 * pad count: no call for a copy of a few bytes. */
static void j_key(struct dc_buf *b, const char *lead, size_t lead_n, size_t pad, const char *key)
{
	static const char spaces[16] = "                ";
	size_t k = strlen(key), room = 2 + pad + sizeof(spaces) + k + 3;
	char *o = dc_buf_room(b, room), *start = o;
	if (!o)
		return;
	memcpy(o, lead, 2);
	o += lead_n;
	if (pad <= sizeof(spaces))
		memcpy(o, spaces, sizeof(spaces));
	else
		memset(o, ' ', pad);
	o += pad;
	*o++ = '"';
	dc_copy_short(o, key, k);
	o += k;
	memcpy(o, "\": ", 3);
	dc_buf_commit(b, (size_t)(o + 3 - start));
}

/* j_key on a line of its own at `depth`, after a comma unless `first` */
static void j_member(struct dc_buf *b, int first, int depth, const char *key)
{
	j_key(b, first ? "\n" : ",\n", first ? 1 : 2, (size_t)depth * 2, key);
}

static void j_members(struct jctx *j, const struct dc_fields *fs, const void *base, int depth);

/* How a row's cell is written: a count, a double or a row's own text
 * that is never null in line (a number through its column's memo, a
 * static text through its text memo), anything else by j_scalar. */
enum { J_U64, J_F64, J_STR, J_TEXT, J_OTHER };

static unsigned char j_kind(const struct dc_field *f)
{
	if (f->is_null)
		return J_OTHER;
	switch (f->type) {
	case DC_FT_U64: return J_U64;
	case DC_FT_F64: return J_F64;
	case DC_FT_STR: return J_STR;
	case DC_FT_TEXT: return J_TEXT;
	default: return J_OTHER;
	}
}

int dc_json_row_plan_init(struct dc_json_row_plan *p, const struct dc_fields *cf)
{
	size_t at = 0;
	p->n = 0;
	for (size_t c = 0; c < cf->n; c++) {
		const struct dc_field *f = &cf->f[c];
		size_t k, lead = p->n ? 2 : 1;
		char *o = p->text + at;
		if (f->table_only)
			continue;
		k = strlen(f->key);
		if (p->n == DC_MAX_COLUMNS || lead + k + 4 > DC_JSON_PIECE_MAX) {
			p->n = 0;
			return -1;
		}
		p->f[p->n] = f;
		p->kind[p->n] = j_kind(f);
		if (p->kind[p->n] == J_F64 || p->kind[p->n] == J_U64)
			dc_num_memo_init(&p->num[p->n]);
		p->str[p->n].s = NULL;
		p->at[p->n] = (uint16_t)at;
		p->len[p->n] = (uint8_t)(lead + k + 4);
		memcpy(o, p->n ? ", \"" : "{\"\"", 3); /* "{\"" then the key over the third byte */
		dc_copy_short(o + lead + 1, f->key, k);
		memcpy(o + lead + 1 + k, "\": ", 3);
		at += lead + k + 4;
		p->n++;
	}
	/* the last piece's fixed-size copy reads this far (at <= 24 pieces) */
	memset(p->text + at, 0, DC_JSON_PIECE_MAX);
	return p->n ? 0 : -1;
}

void dc_json_row_write(struct dc_buf *b, struct dc_json_row_plan *p, const void *row)
{
	for (size_t c = 0; c < p->n; c++) {
		const struct dc_field *f = p->f[c];
		size_t len = p->len[c];
		const void *v = dc_fld_ptr(row, f);
		/* the piece, then a count under 1000 in place, or a number's
		 * text from its memo (32 bytes) */
		char *o = dc_buf_room(b, DC_JSON_PIECE_MAX + DC_NUM_MEMO_TEXT);
		struct dc_num_memo *m = &p->num[c];
		struct dc_str_memo *sm = &p->str[c];
		const char *t;
		uint64_t u;
		double d;
		size_t n;
		if (!o)
			return;
		memcpy(o, p->text + p->at[c], DC_JSON_PIECE_MAX);
		switch (p->kind[c]) {
		case J_U64:
			memcpy(&u, v, sizeof(u));
			if (u < 1000) {
				dc_buf_commit(b, len + dc_fmt_u64(o + len, u));
				break;
			}
			dc_num_memo_u64(m, u);
			memcpy(o + len, m->text, DC_NUM_MEMO_TEXT);
			dc_buf_commit(b, len + m->len);
			break;
		case J_F64:
			memcpy(&d, v, sizeof(d));
			dc_num_memo_f64(m, d);
			memcpy(o + len, m->text, DC_NUM_MEMO_TEXT);
			dc_buf_commit(b, len + m->len);
			break;
		case J_STR: /* as j_scalar writes it (NULL as ""), a static text
			     * the row above wrote from its memo */
			dc_buf_commit(b, len);
			memcpy(&t, v, sizeof(t));
			if (dc_str_memo_hit(sm, t)) {
				dc_json_string_plain(b, t, sm->len);
				break;
			}
			n = dc_json_string_put(b, t);
			dc_str_memo_keep(sm, t, n, n != (size_t)-1, row);
			break;
		case J_TEXT: /* the row's own text */
			dc_buf_commit(b, len);
			dc_buf_json_string(b, v);
			break;
		default:
			dc_buf_commit(b, len);
			j_scalar(b, f, row);
		}
	}
	dc_buf_putc(b, '}');
}

/* Rows [from, to) of n are left out; 0 when every row shows. */
static uint64_t omitted(uint64_t n, const struct dc_render_opts *o, uint64_t *from, uint64_t *to)
{
	dc_excerpt_bounds(n, o, from, to);
	return *to - *from;
}

static int skip(uint64_t *i, uint64_t from, uint64_t to)
{
	if (*i == from && to > from)
		*i = to;
	return 1;
}

static uint64_t j_value(struct jctx *j, const struct dc_field *f, const void *base, int depth,
		       uint64_t *members_gone)
{
	uint64_t n, from, to, gone = 0, i, first;

	switch (f->type) {
	case DC_FT_OBJECT:
		j_members(j, f->sub, dc_fld_ptr(base, f), depth);
		break;
	case DC_FT_ROWS: {
		_Alignas(max_align_t) unsigned char row[DC_ROW_MAX];
		const struct dc_fields *cf = f->sub;
		struct dc_json_row_plan plan;
		n = f->rows->count(base);
		dc_excerpt_bounds_max(n, dc_rows_limit(j->r, f->rows, j->o ? j->o->max_rows : 0), &from, &to);
		gone = to - from;
		int planned = dc_json_row_plan_init(&plan, cf) == 0;
		struct dc_row_doubles dbl;
		dc_row_doubles_init(&dbl, cf);
		dc_buf_putc(j->b, '[');
		for (i = 0, first = 1; skip(&i, from, to) && i < n; i++, first = 0) {
			j_break(j->b, !first, depth + 1);
			memset(row, 0, f->rows->row_size);
			f->rows->row(base, i, row);
			if (!dc_row_doubles_finite(&dbl, row) && dc_report_row_check(j->r, f, base, i, row, j->b) != 0)
				break;
			if (planned) {
				dc_json_row_write(j->b, &plan, row);
				continue;
			}
			/* a key too long for the plan: each member as an object's */
			dc_buf_putc(j->b, '{');
			for (size_t c = 0, sep = 0; c < cf->n; c++) {
				if (cf->f[c].table_only)
					continue;
				j_key(j->b, ", ", sep++ ? 2 : 0, 0, cf->f[c].key);
				j_scalar(j->b, &cf->f[c], row);
			}
			dc_buf_putc(j->b, '}');
		}
		if (n)
			j_indent(j->b, depth);
		dc_buf_putc(j->b, ']');
		break;
	}
	case DC_FT_LISTS: {
		char num[24];
		n = f->lists->count(base);
		gone = omitted(n, j->o, &from, &to);
		dc_buf_putc(j->b, '[');
		for (i = 0, first = 1; skip(&i, from, to) && i < n; i++, first = 0) {
			uint64_t m = f->lists->len(base, i), f2, t2;
			j_break(j->b, !first, depth + 1);
			/* a long group is excerpted too; the members left out are
			 * counted in KEY_members_omitted (--all and CSV show all) */
			*members_gone += omitted(m, j->o, &f2, &t2);
			dc_buf_putc(j->b, '[');
			for (uint64_t k = 0, kfirst = 1; skip(&k, f2, t2) && k < m; k++, kfirst = 0) {
				if (!kfirst)
					dc_buf_add(j->b, ", ", 2);
				dc_buf_add(j->b, num, dc_fmt_u64(num, f->lists->item(base, i, k)));
			}
			dc_buf_putc(j->b, ']');
		}
		if (n)
			j_indent(j->b, depth);
		dc_buf_putc(j->b, ']');
		break;
	}
	case DC_FT_PROSE:
		n = f->prose->count(base);
		gone = omitted(n, j->o, &from, &to);
		dc_buf_putc(j->b, '[');
		for (i = 0, first = 1; skip(&i, from, to) && i < n; i++, first = 0) {
			if (!first)
				dc_buf_add(j->b, ", ", 2);
			dc_buf_json_string(j->b, f->prose->at(base, i));
		}
		dc_buf_putc(j->b, ']');
		break;
	default:
		j_scalar(j->b, f, base);
	}
	return gone;
}

/* --only SECTION.TABLE where this run has no such table (comm.ep with ep
 * 1): the path down to it written empty, so a script finds an empty
 * array where the table would be, as CSV writes a bare header */
static int j_only_chain(const struct jctx *j, const struct dc_field *f)
{
	return j->r->only_table && f >= j->r->only_chain && f < j->r->only_chain + DC_ONLY_DEPTH;
}

static void j_empty_path(struct jctx *j, const struct dc_field *f, int depth)
{
	if (f->type != DC_FT_OBJECT || !f->sub || f->sub->n != 1) {
		dc_buf_add(j->b, "[]", 2);
		return;
	}
	dc_buf_putc(j->b, '{');
	j_member(j->b, 1, depth + 1, f->sub->f[0].key);
	j_empty_path(j, &f->sub->f[0], depth + 1);
	j_indent(j->b, depth);
	dc_buf_putc(j->b, '}');
}

static void j_members(struct jctx *j, const struct dc_fields *fs, const void *base, int depth)
{
	int first = 1;
	char num[24];

	dc_buf_putc(j->b, '{');
	for (size_t i = 0; i < fs->n; i++) {
		const struct dc_field *f = &fs->f[i];
		uint64_t gone, members_gone = 0;
		int shown = dc_fld_shown(f, base); /* asked once: a hook's call */
		if (!shown && j_only_chain(j, f)) {
			j_member(j->b, first, depth + 1, f->key);
			first = 0;
			j_empty_path(j, f, depth + 1);
			continue;
		}
		if (!shown || f->table_only)
			continue;
		j_member(j->b, first, depth + 1, f->key);
		first = 0;
		gone = j_value(j, f, base, depth + 1, &members_gone);
		if (gone) {
			dc_buf_putc(j->b, ',');
			j_indent(j->b, depth + 1);
			dc_buf_putc(j->b, '"');
			dc_buf_puts(j->b, f->key);
			dc_buf_add(j->b, "_omitted\": ", 11);
			dc_buf_add(j->b, num, dc_fmt_u64(num, gone));
		}
		if (members_gone) {
			dc_buf_putc(j->b, ',');
			j_indent(j->b, depth + 1);
			dc_buf_putc(j->b, '"');
			dc_buf_puts(j->b, f->key);
			dc_buf_add(j->b, "_members_omitted\": ", 19);
			dc_buf_add(j->b, num, dc_fmt_u64(num, members_gone));
		}
	}
	if (!first)
		j_indent(j->b, depth);
	dc_buf_putc(j->b, '}');
}

int dc_report_render_json(struct dc_report *r, const struct dc_render_opts *o, struct dc_buf *out)
{
	struct jctx j = {out, o, r};
	const void *base;
	const struct dc_fields *root = dc_report_fields(r, &base);
	j_members(&j, root, base, 0);
	dc_buf_putc(out, '\n');
	return out->failed ? -1 : 0;
}
