/* report.c - the report: field access shared by the sinks, the root field
 * table (header, sections, warnings); see report.h and section.h. */
#include <stdalign.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report_int.h"

const char *dc_fld_text(const struct dc_field *f, const void *base, char *buf, size_t len)
{
	const void *p = dc_fld_ptr(base, f);
	const char *s;
	switch (f->type) {
	case DC_FT_STR:
		memcpy(&s, p, sizeof(s));
		return s ? s : "";
	case DC_FT_TEXT:
		return (const char *)p;
	case DC_FT_FN:
		buf[0] = '\0';
		f->text(base, buf, len);
		return buf;
	default:
		return "";
	}
}

const char *dc_fld_label_fn(const struct dc_field *f, const void *base, char *buf, size_t len)
{
	buf[0] = '\0';
	f->label_fn(base, buf, len);
	return buf;
}

void dc_excerpt_bounds_max(uint64_t n, uint64_t max, uint64_t *from, uint64_t *to)
{
	if (max == 0 || n <= max) {
		*from = *to = n;
		return;
	}
	*from = max / 2;
	*to = n - (max - max / 2);
}

void dc_excerpt_bounds(uint64_t n, const struct dc_render_opts *o, uint64_t *from, uint64_t *to)
{
	dc_excerpt_bounds_max(n, o ? o->max_rows : 0, from, to);
}

uint64_t dc_rows_limit(const struct dc_report *r, const struct dc_rows *rows, uint64_t max_rows)
{
	if (rows->every)
		return 0;
	if (!rows->quadratic || r->nsec == 1)
		return max_rows;
	return max_rows && max_rows < DC_QUADRATIC_ROWS ? max_rows : DC_QUADRATIC_ROWS;
}

void dc_report_free(struct dc_report *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->nwarnings; i++)
		free(r->warnings[i]);
	free(r->warnings);
	free(r->config_name);
	free(r->views);
	free(r->whatif);
	free(r->search);
	free(r);
}

const struct dc_search_result *dc_report_search(const struct dc_report *r)
{
	return r->search;
}

const struct dc_fields *dc_report_fields(const struct dc_report *r, const void **base)
{
	*base = r->views;
	return &r->root;
}

const struct dc_fields *dc_report_fields_shown(struct dc_report *r, const void **base)
{
	*base = r->views;
	if (!r->only)
		return &r->root;
	r->secs.f = r->root_f + r->nheader;
	r->secs.n = r->nsec;
	return &r->secs;
}

int dc_report_path_is_count(const struct dc_report *r, const char *path)
{
	const struct dc_fields *fs = &r->root;
	const struct dc_field *f = NULL;
	const char *p = path;

	for (;;) {
		size_t n = strcspn(p, ".[");
		f = NULL;
		for (size_t i = 0; i < fs->n && !f; i++)
			if (fs->f[i].key && strlen(fs->f[i].key) == n && strncmp(fs->f[i].key, p, n) == 0)
				f = &fs->f[i];
		if (!f || n == 0)
			return 0;
		p += n;
		/* a table's row index, a list's index and its member's */
		while (*p == '[') {
			p += strcspn(p, "]");
			if (*p != ']' || (f->type != DC_FT_ROWS && f->type != DC_FT_LISTS))
				return 0;
			p++;
		}
		if (*p == '\0')
			break;
		if (*p != '.' || (f->type != DC_FT_OBJECT && f->type != DC_FT_ROWS) || !f->sub)
			return 0;
		fs = f->sub;
		p++;
	}
	/* a count field, or a process group's member (a rank) */
	return f->type == DC_FT_U64 || (f->type == DC_FT_LISTS && p > path && p[-1] == ']');
}

int dc_report_only_table(struct dc_report *r, const struct dc_fields *fs, const char *rest,
			 const struct dc_fields **sub)
{
	size_t depth = 0;

	for (;;) {
		size_t n = strcspn(rest, ".");
		const struct dc_field *f = NULL;
		for (size_t i = 0; i < fs->n && !f; i++)
			if (strlen(fs->f[i].key) == n && strncmp(fs->f[i].key, rest, n) == 0)
				f = &fs->f[i];
		if (!f || n == 0 || depth >= DC_ONLY_DEPTH)
			return -1;
		r->only_chain[depth] = *f;
		r->only_fs[depth].f = &r->only_chain[depth];
		r->only_fs[depth].n = 1;
		if (f->type == DC_FT_OBJECT) {
			if (rest[n] != '.')
				return -1; /* an object, not a table */
			if (depth + 1 < DC_ONLY_DEPTH)
				r->only_chain[depth].sub = &r->only_fs[depth + 1];
			fs = f->sub;
			rest += n + 1;
			depth++;
			continue;
		}
		if (rest[n] != '\0' || dc_fld_scalar(f))
			return -1; /* a value, or keys past a table */
		break;
	}
	r->only_table = 1;
	*sub = &r->only_fs[0];
	return 0;
}

void dc_report_table_paths(const struct dc_fields *fs, const char *prefix, struct dc_buf *out, const char *want,
			   char *scratch, size_t *best)
{
	char path[256];
	for (size_t i = 0; i < fs->n; i++) {
		const struct dc_field *f = &fs->f[i];
		int n;
		if (dc_fld_scalar(f))
			continue;
		n = snprintf(path, sizeof(path), "%s.%s", prefix, f->key);
		if (n < 0 || (size_t)n >= sizeof(path))
			continue;
		if (f->type == DC_FT_OBJECT) {
			dc_report_table_paths(f->sub, path, out, want, scratch, best);
			continue;
		}
		if (out->len)
			dc_buf_add(out, ", ", 2);
		dc_buf_puts(out, path);
		if (want && best) {
			size_t d = dc_edit_distance(want, strlen(want), path, 0);
			if (d < *best) {
				*best = d;
				snprintf(scratch, 256, "%s", path);
			}
		}
	}
}

void dc_section_table_paths(const struct dc_section *s, struct dc_buf *out)
{
	dc_report_table_paths(&s->fields, s->name, out, NULL, NULL, NULL);
}
