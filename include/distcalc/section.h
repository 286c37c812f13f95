/* section.h - sections as static field tables, walked by every sink.
 *
 * A section presents results; it never computes. Its `view` function copies
 * what it shows out of the plan and the results into a small view struct
 * (numbers, pointers to static text: no allocation, no formatting), and a
 * static field table says how to show each member: key (JSON, CSV), label
 * (table), unit, type and offset, as curl's -w variables or nccl-tests'
 * column list. Long tables are a row count and a row function that fills a
 * row struct described by its own field table, so a table of 2^24 ranks is
 * generated one row at a time at render time and costs no memory.
 *
 * The table, JSON and CSV sinks walk the same tables, so they cannot drift,
 * and a new sink is one file. A field's key, unit and type are static: the
 * list of every field a section can print is known without running it.
 */
#ifndef DISTCALC_SECTION_H
#define DISTCALC_SECTION_H

#include <stddef.h>
#include <stdint.h>

#include "distcalc/util.h"

enum dc_unit {
	DC_U_NONE,        /* a plain number or text */
	DC_U_COUNT,       /* an exact count (ranks, parameters, tokens) */
	DC_U_BYTES,       /* bytes; the table shows GiB and the exact bytes */
	DC_U_BYTES_RAW,   /* bytes; the table shows exact bytes only */
	DC_U_SECONDS,     /* seconds; the table picks s, ms or us */
	DC_U_GBPS,        /* 10^9 bytes per second */
	DC_U_BYTES_PER_S, /* bytes per second; the table shows GB/s */
	DC_U_RATIO,       /* a dimensionless fraction */
	DC_U_FLOPS,       /* floating-point operations; the table picks GFLOP to EFLOP */
	DC_U_PER_S,       /* events per second (tokens/s) */
	DC_U_SECONDS_US,  /* seconds; the table always shows us with 2 decimals (nccl-tests' time column) */
};

enum dc_ftype {
	DC_FT_U64,    /* uint64_t at off */
	DC_FT_F64,    /* double at off */
	DC_FT_BOOL,   /* int at off: JSON true/false, table yes/no */
	DC_FT_STR,    /* const char * at off (static text; NULL prints "") */
	DC_FT_TEXT,   /* char array at off (a row's formatted text) */
	DC_FT_FN,     /* text written by `text` at render time */
	DC_FT_OBJECT, /* a nested object: `sub` over base + off */
	DC_FT_ROWS,   /* a table: `rows` generates row structs described by `sub` */
	DC_FT_LISTS,  /* inline lists of integers (process groups): `lists` */
	DC_FT_PROSE,  /* strings, one a line in the table (warnings): `prose` */
};

struct dc_field;

/* A nested field table. */
struct dc_fields {
	const struct dc_field *f;
	size_t n;
};

#define DC_FIELDS(arr) {(arr), sizeof(arr) / sizeof((arr)[0])}

struct dc_rows {
	uint64_t (*count)(const void *base);
	/* fills the row struct `row` (row_size bytes, zeroed) with row i */
	void (*row)(const void *base, uint64_t i, void *row);
	size_t row_size;
	const char *what; /* names the rows in the excerpt marker ("events") */
	/* leading columns that name a row, repeated in every panel when a
	 * table is split to fit the width; 0 means 1 */
	size_t key_columns;
	/* O(p^2) rows (the ring's events): excerpted even under --all and in
	 * CSV unless the report shows this table's section alone (--only, or
	 * an experiment of that one section), so that every-row output of the
	 * per-rank tables never drags them in */
	int quadratic;
	/* a short list bounded by a static table (the config keys): every
	 * row, never excerpted */
	int every;
};

struct dc_lists {
	uint64_t (*count)(const void *base);                       /* lists */
	uint64_t (*len)(const void *base, uint64_t i);              /* items of list i */
	uint64_t (*item)(const void *base, uint64_t i, uint64_t j); /* item j of list i */
	const char *what, *item_what; /* the excerpt markers' nouns: "groups", "ranks" */
};

struct dc_prose {
	uint64_t (*count)(const void *base);
	const char *(*at)(const void *base, uint64_t i);
};

struct dc_field {
	const char *key;   /* JSON / CSV key */
	const char *label; /* table label or title; NULL: the key */
	enum dc_unit unit;
	enum dc_ftype type;
	size_t off;
	/* optional parts, by type */
	const struct dc_fields *sub;   /* OBJECT, ROWS */
	const struct dc_rows *rows;    /* ROWS */
	const struct dc_lists *lists;  /* LISTS */
	const struct dc_prose *prose;  /* PROSE */
	void (*text)(const void *base, char *buf, size_t len); /* FN */
	/* NULL: always shown; else the field exists only when it returns non-zero */
	int (*shown)(const void *base);
	/* non-NULL and non-zero: the value is undefined here (JSON null, table n/a) */
	int (*is_null)(const void *base);
	/* a label that depends on the data (table only; key and unit never do) */
	void (*label_fn)(const void *base, char *buf, size_t len);
	/* FN in a table's row only: the text is a JSON value (an object of
	 * config paths, search.best[].layout) that the JSON sink writes as it
	 * is; CSV quotes it as text, and the table leaves the column out (the
	 * row's other columns show the same values) */
	int json_value;
	/* the table's (and the Markdown and HTML pages') alone: a number
	 * formatted for reading whose exact value another field carries in
	 * JSON and CSV (json_value on a number hides that one from the table) */
	int table_only;
	/* a shell command line: the table wraps it between its words only
	 * (never inside a single-quoted one), each line but the last ending
	 * in " \\", so that pasted into a shell the lines are one command */
	int shell_words;
};

struct dc_plan;
struct dc_results;
struct dc_run_info;
struct dc_diag;
struct dc_whatif;
struct dc_search_result;

/* What a section's view reads. */
struct dc_run {
	const struct dc_plan *plan;
	const struct dc_results *res;
	const struct dc_run_info *info;
	const struct dc_search_result *search; /* --experiment search's result (search.h), else NULL */
	const char *const *warnings; /* every warning of the run */
	size_t nwarnings;
	const struct dc_whatif *whatif; /* the what-if scenarios (whatif.h); NULL unless the experiment runs them */
};

/* Largest view struct a section may have (checked by a static assert in
 * each section file). */
#define DC_VIEW_MAX 8192
/* Largest row struct, and most fields a row may have (the table sink keeps
 * one width per column; tests/check_report.c checks every table). */
#define DC_ROW_MAX 1024
#define DC_MAX_COLUMNS 24

struct dc_section {
	const char *name;  /* JSON key and --only name */
	const char *title; /* table heading */
	const char *doc;   /* one line for --help and docs */
	uint32_t needs;    /* DC_EST_BIT of the estimators it shows */
	size_t view_size;
	void (*view)(const struct dc_run *run, void *view);
	struct dc_fields fields;
	/* NULL: `title`; else a heading that depends on the data */
	void (*title_fn)(const void *view, char *buf, size_t len);
	/* NULL, or adds the warnings the plan calls for (the runner calls it
	 * for every section of the experiment, shown or not, so it reads the
	 * plan alone: `res` holds only what the shown sections need) */
	void (*warn)(const struct dc_plan *plan, const struct dc_results *res, const char *config_name,
		     struct dc_diag *diag);
};

/* The sections (sec_*.c). */
extern const struct dc_section dc_section_summary, dc_section_model, dc_section_cluster, dc_section_topology,
	dc_section_groups, dc_section_batch, dc_section_memory, dc_section_ring, dc_section_comm,
	dc_section_strategies, dc_section_flops, dc_section_step, dc_section_collectives, dc_section_calibration,
	dc_section_whatif, dc_section_checkpoint, dc_section_loss, dc_section_search;

/* Every section, NULL-terminated, in report order. */
extern const struct dc_section *const dc_sections[];

const struct dc_section *dc_section_find(const char *name);

/* Appends the paths of the section's tables (--only SECTION.TABLE:
 * "memory.classes", "memory.per_rank.phases"), ", "-separated after what
 * `out` holds, from its static field table: a table only some runs show
 * is listed too. */
void dc_section_table_paths(const struct dc_section *s, struct dc_buf *out);

/* Render options. */
struct dc_render_opts {
	/* Tables and lists longer than this show their first and last
	 * max_rows/2 rows and a marker; 0 shows every row. */
	uint64_t max_rows;
	/* Table output: wrap long lists and text at this column; 0: never. */
	size_t width;
};

/* ---- number and text formatting shared by the sinks (fmt.c) ---- */

/* Shortest "%.*g" text of v (15 to 17 digits) that reads back to the same
 * double; "0" for either zero; "null" when v is not finite. Returns the
 * length. `buf` should hold 32 bytes (the fast paths need them). */
size_t dc_fmt_double(char *buf, size_t len, double v);
/* Appends s (or v's digits) to the text in buf[len] that ends at `at`,
 * cut at len - 1 bytes and NUL-terminated as snprintf cuts; returns where
 * the text now ends. A row's labels built piece by piece without printf:
 * "tp" then tp's digits then " x pp" ... */
size_t dc_text_add(char *buf, size_t len, size_t at, const char *s);
size_t dc_text_add_u64(char *buf, size_t len, size_t at, uint64_t v);
/* snprintf(buf, len, fmt, ...) with nothing returned, for the labels and
 * texts a report prints: "%s", "%llu" and "%%" are written without
 * printf's machinery, and a format with any other conversion (or a NULL
 * string) goes to vsnprintf whole, so the text is always printf's. */
void dc_text_fmt(char *buf, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Decimal digits of v; returns the length (buf holds 21 bytes). */
size_t dc_fmt_u64(char *buf, uint64_t v);
/* Decimal digits with thousands separators, "1,234,567". */
size_t dc_fmt_u64_grouped(char *buf, uint64_t v);
/* m 10^-prec with prec (0 to 4) decimals, as "%.*f" prints it: 1234 at
 * prec 3 is "1.234", 5 is "0.005"; returns the length (buf holds 26
 * bytes). */
size_t dc_fmt_fixed_u64(char *buf, uint64_t m, unsigned prec);
/* The unit a table shows seconds in when the largest magnitude among
 * them is max_s: "s" from 1 s (and for 0), "ms" from 1 ms, else "us";
 * *mult scales seconds to it. The table sink's rule for a column of
 * seconds, for a section that writes times into text cells itself (the
 * whatif tables, whose columns mix times with bytes), so that one
 * column's times share one unit. */
const char *dc_fmt_time_unit(double max_s, double *mult);
/* Appends s as a JSON string (quotes, escapes). The result is always valid
 * UTF-8: a byte of s that does not begin a well-formed UTF-8 sequence
 * (RFC 3629) is written as \ufffd, the replacement character, one for each
 * such byte (a file name's stray Latin-1 byte cannot be told apart from a
 * real U+00XX, so it is not guessed at). NULL writes "". */
void dc_buf_json_string(struct dc_buf *b, const char *s);

/* dc_text_printable, dc_buf_printable, dc_fmt_printable: util.h. */

#endif
