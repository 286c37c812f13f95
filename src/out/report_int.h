/* report_int.h - what the sinks share: the report struct and field access.
 * Internal to the library. */
#ifndef DISTCALC_REPORT_INT_H
#define DISTCALC_REPORT_INT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "distcalc/config.h"
#include "distcalc/experiment.h"
#include "distcalc/memo_verify.h"
#include "distcalc/plan.h"
#include "distcalc/report.h"
#include "distcalc/results.h"
#include "distcalc/section.h"

#define DC_REPORT_MAX_SECTIONS 24
/* Most keys in a --only table path below its section (memory.per_rank.phases: 2) */
#define DC_ONLY_DEPTH 6

/* sec_cluster.c: the config keys under a prefix ("cluster.", "model."),
 * one row each: the key, its value, its unit and where it came from. The
 * keys a table lists are found once, when the section's view is made
 * (dc_key_list_fill), so a row is one look-up. */
struct dc_key_row {
	const struct dc_config *cfg;
	size_t key; /* the key table row (dc_config_key_at) */
	/* the key's path and unit (static), and where its value came from
	 * (static, or the list's words for a preset): the row's text columns
	 * point at them, so no sink copies them first */
	const char *path, *unit, *origin;
	/* made once per row: a default derived later (the value is 0 here),
	 * and the value's JSON text when it fits `json` (json_len > 0) */
	int derived;
	size_t json_len;
	char json[64];
};
struct dc_key_list {
	const struct dc_config *cfg;
	uint16_t n;
	uint16_t key[DC_CONFIG_MAX_KEYS]; /* key table rows, in table order */
	/* dc_config_origin_text of each origin a listed key has (NULL for
	 * the others): it words an origin the same for every key, so it is
	 * asked once per origin, into origin_buf when it is not static */
	const char *origin[DC_ORIGIN_FRAMEWORK + 1];
	char origin_buf[DC_ORIGIN_FRAMEWORK + 1][64];
};
/* The keys under `prefix` in cfg with a value of their own. */
void dc_key_list_fill(struct dc_key_list *l, const struct dc_config *cfg, const char *prefix);
uint64_t dc_key_list_count(const struct dc_key_list *l);
void dc_key_list_row(const struct dc_key_list *l, uint64_t i, struct dc_key_row *r);
extern const struct dc_fields dc_key_row_table;

struct dc_sweep;

struct dc_report {
	struct dc_config in;
	struct dc_plan plan;
	struct dc_results res;
	struct dc_run_info info;
	struct dc_run run;
	char *config_name;
	/* the command line's --model, --set and --unset of the run, for a
	 * chart's title (svg.c run_text): a sweep's its base's; borrowed */
	const char *title_model;
	const struct dc_override *title_sets;
	size_t ntitle_sets;
	char **warnings;
	size_t nwarnings;
	int only; /* --only chose the sections: the table and CSV show nothing else */
	char only_text[256]; /* the chosen sections in report order, comma-separated */
	/* --only SECTION.TABLE: the one section's fields are replaced by a
	 * chain of one-field objects down to that table, so every sink shows
	 * it alone, and CSV writes it bare (one header row, no comments) */
	int only_table;
	const struct dc_fields *only_sub; /* the chain's top: the section's fields */
	struct dc_field only_chain[DC_ONLY_DEPTH];
	struct dc_fields only_fs[DC_ONLY_DEPTH];
	size_t nsec;
	size_t nheader; /* root fields before the first section */
	const struct dc_section *sec[DC_REPORT_MAX_SECTIONS];
	/* the root: header fields, one object per section, warnings */
	struct dc_field root_f[DC_REPORT_MAX_SECTIONS + 8];
	struct dc_fields root;
	struct dc_fields secs; /* the sections alone (--only in a table or CSV) */
	unsigned char *views; /* header view, then each section's view */
	size_t views_size;
	struct dc_whatif *whatif; /* the what-if scenarios; NULL unless the experiment runs them */
	struct dc_search_result *search; /* --experiment search's result (search.h), owned; NULL otherwise */
	const struct dc_sweep *sweep; /* a sweep's report (sweep.c): its points,
				       * inside `views`; NULL otherwise */
	/* why the last failed render failed, when a row it printed held a
	 * number that is not finite (dc_report_row_check); "" otherwise */
	char render_error[400];
};

/* The header every report starts with (distcalc_version, experiment,
 * config, seed, and only when --only chose the sections) and its
 * warnings: one table for experiment.c's reports and sweep.c's, whose keys
 * --check relies on. The view is at the start of the report's `views`. */
struct dc_header_view {
	const struct dc_report *report; /* its warnings, read when the report is written */
	const char *version, *experiment, *config, *only;
	uint64_t seed;
	int all_rows; /* --all */
};
extern const struct dc_field dc_header_fields[];
extern const size_t dc_header_nfields;
extern const struct dc_field dc_warnings_field;

/* A row of search.calibrate and sweep.calibrate: one --calibrate log, as
 * given; dc_log_row_table its one column */
struct dc_log_row {
	const char *log;
};
extern const struct dc_fields dc_log_row_table;

/* Copies every warning of `early` (NULL: none; those printed before the
 * run, dc_run_info) and then of `diag` into r->warnings (r->nwarnings of
 * them).
 * Returns 0, or -1 out of memory (what was copied stays, for the report's
 * release). */
int dc_report_take_warnings(struct dc_report *r, const struct dc_diag *early, const struct dc_diag *diag);

/* Longest cell text: strings in a config are at most 256 bytes, warnings
 * and notes a few hundred. */
#define DC_CELL_MAX 1024

static inline const void *dc_fld_ptr(const void *base, const struct dc_field *f)
{
	return (const char *)base + f->off;
}

static inline int dc_fld_shown(const struct dc_field *f, const void *base)
{
	return !f->shown || f->shown(base);
}

static inline int dc_fld_scalar(const struct dc_field *f)
{
	return f->type != DC_FT_OBJECT && f->type != DC_FT_ROWS && f->type != DC_FT_LISTS &&
	       f->type != DC_FT_PROSE;
}

static inline int dc_fld_null(const struct dc_field *f, const void *base)
{
	return f->is_null && f->is_null(base);
}

/* The text of a STR, TEXT or FN field: a pointer into the data or into buf. */
const char *dc_fld_text(const struct dc_field *f, const void *base, char *buf, size_t len);
/* The label a field's label_fn writes into buf (report.c). */
const char *dc_fld_label_fn(const struct dc_field *f, const void *base, char *buf, size_t len);

/* The table label (or title) of a field; `base` is the field's container,
 * or for an object the object itself. In line: most labels are static. */
static inline const char *dc_fld_label(const struct dc_field *f, const void *base, char *buf, size_t len)
{
	if (f->label_fn)
		return dc_fld_label_fn(f, base, buf, len);
	return f->label ? f->label : f->key ? f->key : "";
}

/* --only SECTION.TABLE: resolves `rest` (the path after the section's name,
 * keys joined by '.') in the section's fields `fs` to a table (a ROWS,
 * LISTS or PROSE field, possibly inside nested objects) and points *sub at
 * the chain that shows it alone (in r->only_chain; r->only_table set).
 * Returns 0, or -1 when no such table (the caller lists the valid ones). */
int dc_report_only_table(struct dc_report *r, const struct dc_fields *fs, const char *rest,
			 const struct dc_fields **sub);
/* Appends the table paths under `fs` to `out`, ", "-separated (`prefix`:
 * the section's name), statically: a table a run does not show is
 * listed too. With `want` and `best` non-NULL, the path nearest `want`
 * whose edit distance is below *best is copied into `scratch` (256 bytes)
 * and *best lowered to it. */
void dc_report_table_paths(const struct dc_fields *fs, const char *prefix, struct dc_buf *out, const char *want,
			   char *scratch, size_t *best);

/* The root fields the table and Markdown/HTML pages show: with --only,
 * the sections alone (JSON keeps the header and the warnings, CSV its
 * header comments, the pages their header table). */
const struct dc_fields *dc_report_fields_shown(struct dc_report *r, const void **base);

/* A value as the table sink shows it (sink_table.c), into buf (len >=
 * DC_CELL_MAX): seconds and FLOPs scaled for values up to max_abs (a
 * column's largest), the unit it is shown in in *unit ("" for none); a
 * scalar's bytes carry " GiB (exact B)". Returns buf or the field's text. */
const char *dc_table_cell(char *buf, size_t len, const struct dc_field *f, const void *base, double max_abs,
			  int scalar, const char **unit);

/* The table's wrap of a text with no escapes (sink_table.c) that starts
 * at column `col` of lines `width` wide (0: one line), into b: a line at a
 * time where the text allows it and `line_at_a_time` is set, else a word
 * at a time. Both write the same; tests/check_fmt.c compares them.
 * Columns are characters (dc_table_text_cols): a word longer than a line
 * is cut between two of them. */
void dc_table_wrap_text(struct dc_buf *b, const char *s, size_t col, size_t width, int line_at_a_time);

/* The columns the table gives s[0..n): one a UTF-8 character, one any
 * other byte (sink_table.c). */
size_t dc_table_text_cols(const char *s, size_t n);

/* 1 when s[0..n) holds a word (a run of bytes other than ' ') of `len`
 * bytes or more (len > 0; 0 has none): the table's check that a text can
 * be wrapped a line at a time (sink_table.c). A text of n bytes is read
 * in about n / len steps and the words that cross them. */
int dc_table_has_word(const char *s, size_t n, size_t len);

/* 1 when s[0..n) holds two spaces in a row: the table's check that a
 * text's words are single-spaced, as its wrap would write them
 * (sink_table.c). */
int dc_table_has_double_space(const char *s, size_t n);

/* A table column's last number and its text, so that a cell equal to the
 * one above it is copied instead of formatted again: a report's tables
 * repeat a column's value from row to row (a ring's rounds share their
 * times and chunk bytes, identical ranks their figures), and a number's
 * text costs more than anything else a row writes. The text is
 * dc_fmt_double's for a double, dc_fmt_u64's for a count, its NUL, then
 * what earlier numbers left (zeros at first): a sink copies it as
 * DC_NUM_MEMO_TEXT bytes of which len count. A column holds one type, so
 * the value's bits are its key. */
#define DC_NUM_MEMO_TEXT 32
struct dc_num_memo {
	uint64_t bits; /* the count, or the double's bits (0 and -0 differ) */
	size_t len; /* 0: none yet */
	char text[DC_NUM_MEMO_TEXT];
};

static inline void dc_num_memo_init(struct dc_num_memo *m)
{
	memset(m, 0, sizeof(*m));
}

/* DISTCALC_VERIFY_MEMOS: m's text for the double v or the count u
 * (is_double 0), formatted again and compared (fmt.c; aborts when they
 * differ) */
void dc_num_memo_verify(const struct dc_num_memo *m, int is_double, double v, uint64_t u);

/* Makes m hold the double v and its text: kept when v is m's number
 * already, else formatted. */
static inline void dc_num_memo_f64(struct dc_num_memo *m, double v)
{
	uint64_t bits;
	memcpy(&bits, &v, sizeof(bits));
	if (m->len && bits == m->bits) {
		DC_MEMO_VERIFY(dc_num_memo_verify(m, 1, v, 0));
		return;
	}
	m->bits = bits;
	m->len = dc_fmt_double(m->text, sizeof(m->text), v);
}

/* The same for the count u. A count under 1000 is cheaper written than
 * compared: the sinks write those themselves. */
static inline void dc_num_memo_u64(struct dc_num_memo *m, uint64_t u)
{
	if (m->len && u == m->bits) {
		DC_MEMO_VERIFY(dc_num_memo_verify(m, 0, 0, u));
		return;
	}
	m->bits = u;
	m->len = dc_fmt_u64(m->text, u);
}

/* n bytes of s at o in fixed-size moves that read and write [0, n) alone
 * (two overlapping ones at most): a label, a value or a key is mostly
 * under 64 bytes, where a call to memcpy costs more than the copy. */
static inline void dc_copy_short(char *o, const char *s, size_t n)
{
	if (n >= 16) {
		if (n > 64) {
			memcpy(o, s, n);
		} else if (n > 32) {
			memcpy(o, s, 32);
			memcpy(o + n - 32, s + n - 32, 32);
		} else {
			memcpy(o, s, 16);
			memcpy(o + n - 16, s + n - 16, 16);
		}
	} else if (n >= 8) {
		memcpy(o, s, 8);
		memcpy(o + n - 8, s + n - 8, 8);
	} else if (n >= 4) {
		memcpy(o, s, 4);
		memcpy(o + n - 4, s + n - 4, 4);
	} else if (n >= 2) {
		memcpy(o, s, 2);
		memcpy(o + n - 2, s + n - 2, 2);
	} else if (n) {
		o[0] = s[0];
	}
}

/* dc_buf_add of a short text, copied by dc_copy_short */
static inline void dc_buf_add_short(struct dc_buf *b, const char *s, size_t n)
{
	char *o = dc_buf_room(b, n);
	if (!o)
		return;
	dc_copy_short(o, s, n);
	dc_buf_commit(b, n);
}

/* dc_buf_json_string (fmt.c) that says how it wrote s: its length when
 * it wrote it as it is, between quotes (nothing to escape), else
 * (size_t)-1. */
size_t dc_json_string_put(struct dc_buf *b, const char *s);
/* The n bytes of s between quotes: dc_buf_json_string for a text it
 * writes as it is (dc_json_string_put said so). */
static inline void dc_json_string_plain(struct dc_buf *b, const char *s, size_t n)
{
	char *o = dc_buf_room(b, n + 2);
	if (!o)
		return;
	o[0] = '"';
	dc_copy_short(o + 1, s, n);
	o[n + 1] = '"';
	dc_buf_commit(b, n + 2);
}

/* A table column's last static text that a sink wrote as it is (nothing
 * to escape or quote), and its length: a STR field's pointer outside the
 * row being written (a literal, or text in the section's view, which no
 * row rewrites), so that the same pointer in the next row is the same
 * text, written again without measuring or checking it. Rows repeat a
 * column's names (a ring's phases, a group's axis and link). s NULL:
 * none. */
struct dc_str_memo {
	const char *s;
	size_t len;
};

/* DISTCALC_VERIFY_MEMOS: s measured again against m's length (fmt.c;
 * aborts when they differ) */
void dc_str_memo_verify(const struct dc_str_memo *m, const char *s);

/* 1 when s is m's text: its length is m->len and it is written as it is */
static inline int dc_str_memo_hit(const struct dc_str_memo *m, const char *s)
{
	if (!s || s != m->s)
		return 0;
	DC_MEMO_VERIFY(dc_str_memo_verify(m, s));
	return 1;
}

/* Keeps s (len bytes), a text the sink wrote as it is, unless it lies in
 * the row buffer `row` (DC_ROW_MAX bytes), which the next row rewrites;
 * plain 0 (the sink escaped or quoted it) keeps none. */
static inline void dc_str_memo_keep(struct dc_str_memo *m, const char *s, size_t len, int plain, const void *row)
{
	int in_row = (uintptr_t)s - (uintptr_t)row < DC_ROW_MAX;
	m->s = plain && !in_row ? s : NULL;
	m->len = len;
}

/* The JSON sink's rows (sink_json.c). A table's rows repeat the same keys,
 * four in five of a report's, so each shown column's member start
 * ("{\"key\": " for the first, ", \"key\": " after it) is written once per
 * table into a plan, and a row copies it with its length known instead of
 * measuring the key and assembling the piece again. The copy is a fixed
 * DC_JSON_PIECE_MAX bytes of which only the piece's length counts, which
 * relies on `text` holding that many bytes from any piece's start: init
 * zeroes that many bytes after the last piece, and `text` has room for
 * one more piece than there are columns. A column's numbers go through
 * its memo (struct dc_num_memo): one equal to the row above's is copied;
 * its static texts through its text memo (struct dc_str_memo). */
#define DC_JSON_PIECE_MAX 48
struct dc_json_row_plan {
	size_t n; /* the columns JSON shows (not table_only) */
	const struct dc_field *f[DC_MAX_COLUMNS];
	unsigned char kind[DC_MAX_COLUMNS]; /* how its cells are written (sink_json.c) */
	uint16_t at[DC_MAX_COLUMNS]; /* each piece's start in text */
	uint8_t len[DC_MAX_COLUMNS];
	char text[(DC_MAX_COLUMNS + 1) * DC_JSON_PIECE_MAX];
	struct dc_num_memo num[DC_MAX_COLUMNS];
	struct dc_str_memo str[DC_MAX_COLUMNS];
};
/* Returns 0, or -1 (n = 0) when a piece is longer than DC_JSON_PIECE_MAX
 * (a key of more than 42 bytes), there are more than DC_MAX_COLUMNS
 * columns, or none: the caller writes such a table's rows member by
 * member. */
int dc_json_row_plan_init(struct dc_json_row_plan *p, const struct dc_fields *cf);
/* Appends the row (a buffer of DC_ROW_MAX bytes) as the JSON sink writes
 * it: "{\"a\": 1, \"b\": 0.5}"; keeps its numbers and static texts in
 * the plan's memos. */
void dc_json_row_write(struct dc_buf *b, struct dc_json_row_plan *p, const void *row);

/* 1 when the CSV sink writes the n bytes of s as they are: printable
 * ASCII (0x20 to 0x7e) with no comma, quote or '#', and no space at
 * either end; 0 when it may quote or escape them (sink_csv.c then
 * decides byte by byte). A text of 8 bytes or more is checked eight
 * bytes a step, the last step the word that ends it: a byte below 0x20 sets its
 * top bit in x - 0x20.., one at 0x7f in x + 0x01.., one at 0x80 or above
 * in x, and a zero byte of y (x ^ ',', (x | 1) ^ '#' for '"' and '#')
 * in (y - 0x01..) & ~y. A borrow or carry between bytes can flag a plain
 * byte, never hide one, so a 0 only costs the slower path. */
int dc_csv_plain(const char *s, size_t n);

/* A sink calls this on every row it prints, right after generating it:
 * row `i` of the table `table` (a DC_FT_ROWS field over `base`). Returns
 * 0 when every double the row shows is finite; else -1, with the report's
 * render error set to "error: 'PATH[i].KEY' is not finite (nan)" and
 * `out` marked failed, so the sink writes nothing more and returns -1 (a
 * field whose is_null hook says null is exempt). The scalars and nested
 * objects were checked by the runner before any sink ran (experiment.h). */
int dc_report_row_check(struct dc_report *r, const struct dc_field *table, const void *base, uint64_t i,
			const void *row, struct dc_buf *out);

/* A table's doubles, found once per table: the offsets of its rows' F64
 * fields, those of nested objects included (what dc_report_row_check
 * walks the field table for), so that a sink's check of each row it
 * prints reads the doubles alone:
 *
 *     if (!dc_row_doubles_finite(&d, row) && dc_report_row_check(...) != 0)
 *
 * Offsets fit 16 bits (a row is at most DC_ROW_MAX bytes); a table of more
 * than DC_ROW_DOUBLES_MAX doubles is walked field by field (`walk`). */
#define DC_ROW_DOUBLES_MAX 32
struct dc_row_doubles {
	const struct dc_fields *fs;
	int walk;
	size_t n;
	uint16_t off[DC_ROW_DOUBLES_MAX];
};
void dc_row_doubles_init(struct dc_row_doubles *d, const struct dc_fields *cf);
/* 1 when every double of the row is finite, shown or not; 0 when one is
 * not (dc_report_row_check then says which). */
int dc_row_doubles_finite(const struct dc_row_doubles *d, const void *row);

/* The text of the JSON string literal t[0..n) (quotes included), its
 * escapes decoded, into dst (cap bytes, NUL-terminated, cut at cap - 1):
 * what a JSON reader gets from it. dst may be t (the text is never longer
 * than its JSON). Returns its length, or (size_t)-1 when t[0..n) is not
 * one JSON string (an object, a number, "a" "b") or holds \u0000. The
 * sinks show a JSON-valued string field (struct dc_field.json_value) so,
 * as they show any other string (fmt.c). */
size_t dc_json_string_text(char *dst, size_t cap, const char *t, size_t n);

/* Rows [*from, *to) are left out of an excerpt of n rows. */
void dc_excerpt_bounds(uint64_t n, const struct dc_render_opts *o, uint64_t *from, uint64_t *to);

/* Rows of O(p^2) tables shown when the report does not show their section
 * alone (struct dc_rows.quadratic). */
#define DC_QUADRATIC_ROWS 32

/* The most rows a sink shows of `rows` (0: every one): `max_rows` (the
 * render option; CSV passes 0), unless the table is quadratic and the
 * report shows other sections too. */
uint64_t dc_rows_limit(const struct dc_report *r, const struct dc_rows *rows, uint64_t max_rows);

/* As dc_excerpt_bounds for at most `max` rows (0: all). */
void dc_excerpt_bounds_max(uint64_t n, uint64_t max, uint64_t *from, uint64_t *to);

/* --calibrate-compute: warns when the probe saw PyTorch's SDPA run another
 * kernel than the one the plan prices by default (sec_step.c; the step
 * section's warnings and the search's). 1 when it warned, else 0. */
int dc_profile_backend_note(const struct dc_plan *p, struct dc_diag *diag);

/* The warnings a finished layout search calls for (sec_search.c): with
 * --calibrate-compute, the profile's SDPA kernel against the run's
 * default, and a winner whose layer is not the profile's. */
struct dc_search_result;
/* The highest step.mfu_bf16_peak of the published runs in p's format on
 * p's compute die that the step model is checked against, with which
 * runs they are into *row (sec_step.c); 0 where none holds p (another
 * die or format, a --calibrate-compute profile, a peak of the config's). */
double dc_published_mfu_bound(const struct dc_plan *p, const char **row);
void dc_search_warn(const struct dc_plan *plan, const struct dc_search_result *s, struct dc_diag *diag);

#endif
