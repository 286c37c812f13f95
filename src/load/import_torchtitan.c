/* import_torchtitan.c - a torchtitan train config (.toml) onto distcalc
 * keys (docs/importers.md, "torchtitan").
 *
 * The TOML reader takes the subset torchtitan's shipped train configs use:
 * comments, [table] and [a.b] headers, key = value with a bare or quoted
 * key, basic and literal strings, decimal integers and floats, booleans and
 * arrays (over several lines, nested, a trailing comma). Anything else
 * (inline tables, [[arrays of tables]], multi-line strings, dates, dotted
 * keys, hex numbers) is an error naming its line. Names and defaults are
 * torchtitan's torchtitan/config_manager.py at f3534d7 (the commit of the
 * shipped llama3 train configs).
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "distcalc/util.h"
#include "import_int.h"

#define MAX_KEY 64
#define MAX_TEXT 256
#define MAX_NEST 32

enum tval { T_STRING, T_INT, T_FLOAT, T_BOOL, T_ARRAY };

struct entry {
	char table[MAX_KEY];
	char key[MAX_KEY];
	enum tval type;
	char text[MAX_TEXT]; /* strings decoded; numbers and booleans as written; arrays: string items, '\n'-separated */
	long long i;
	double f;
	int b;
	unsigned line;
	int used;
};

struct toml {
	const char *name, *p, *end;
	unsigned line;
	struct entry *e;
	size_t n, cap;
	char tables[64][MAX_KEY]; /* headers seen, for duplicates */
	size_t ntables;
	struct dc_diag *diag;
	int failed;
};

static int terr(struct toml *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int terr(struct toml *t, const char *fmt, ...)
{
	char at[600];
	char *msg;
	const char *text;
	va_list ap;
	va_start(ap, fmt);
	msg = dc_vasprintf(fmt, ap);
	text = msg ? msg : "(out of memory formatting a message)";
	if (!msg)
		dc_diag_oom(t->diag);
	va_end(ap);
	dc_diag_error(t->diag, DC_ERR_CONFIG, "%s: error: %s", dc_import_where(at, sizeof(at), t->name, t->line), text);
	t->failed = 1;
	free(msg);
	return -1;
}

/* spaces and tabs (not newlines) */
static void skip_ws(struct toml *t)
{
	while (t->p < t->end && (*t->p == ' ' || *t->p == '\t'))
		t->p++;
}

/* to the end of the line: white space and a comment only; consumes the newline */
static int end_of_line(struct toml *t)
{
	skip_ws(t);
	if (t->p < t->end && *t->p == '#')
		while (t->p < t->end && *t->p != '\n')
			t->p++;
	if (t->p < t->end && *t->p == '\r')
		t->p++;
	if (t->p < t->end && *t->p != '\n')
		return terr(t, "unexpected '%c' after the value", *t->p);
	if (t->p < t->end) {
		t->p++;
		t->line++;
	}
	return 0;
}

/* white space, newlines and comments (inside an array) */
static void skip_all(struct toml *t)
{
	while (t->p < t->end) {
		if (*t->p == ' ' || *t->p == '\t' || *t->p == '\r') {
			t->p++;
		} else if (*t->p == '\n') {
			t->p++;
			t->line++;
		} else if (*t->p == '#') {
			while (t->p < t->end && *t->p != '\n')
				t->p++;
		} else {
			break;
		}
	}
}

static int bare_char(char c)
{
	return isalnum((unsigned char)c) || c == '_' || c == '-';
}

static int put(char *out, size_t *n, char c)
{
	if (*n + 1 >= MAX_TEXT)
		return -1;
	out[(*n)++] = c;
	out[*n] = '\0';
	return 0;
}

/* A basic ("...") or literal ('...') string at t->p into out[MAX_TEXT]. */
static int string(struct toml *t, char *out)
{
	char q = *t->p;
	size_t n = 0;
	out[0] = '\0';
	if (t->end - t->p >= 3 && t->p[1] == q && t->p[2] == q)
		return terr(t, "multi-line strings are not part of the TOML distcalc reads");
	t->p++;
	while (t->p < t->end && *t->p != q) {
		char c = *t->p++;
		if (c == '\n')
			return terr(t, "a string that does not end on its line");
		if (q == '"' && c == '\\') {
			char e = t->p < t->end ? *t->p++ : '\0';
			switch (e) {
			case '"': c = '"'; break;
			case '\\': c = '\\'; break;
			case 'n': c = '\n'; break;
			case 't': c = '\t'; break;
			case 'r': c = '\r'; break;
			case 'b': c = '\b'; break;
			case 'f': c = '\f'; break;
			default: return terr(t, "the escape '\\%c' is not part of the TOML distcalc reads", e ? e : ' ');
			}
		} else if ((unsigned char)c < 0x20 && c != '\t') {
			return terr(t, "a control character in a string");
		}
		if (put(out, &n, c) != 0)
			return terr(t, "a string over %d bytes", MAX_TEXT - 1);
	}
	if (t->p >= t->end)
		return terr(t, "a string that does not end");
	t->p++;
	return 0;
}

/* A key: bare or quoted, into out[MAX_KEY]. */
static int key(struct toml *t, char *out)
{
	size_t n = 0;
	if (t->p < t->end && (*t->p == '"' || *t->p == '\'')) {
		char buf[MAX_TEXT];
		if (string(t, buf) != 0)
			return -1;
		if (strlen(buf) >= MAX_KEY || !*buf)
			return terr(t, "a key that is empty or over %d bytes", MAX_KEY - 1);
		memcpy(out, buf, strlen(buf) + 1);
		return 0;
	}
	while (t->p < t->end && bare_char(*t->p)) {
		if (n + 1 >= MAX_KEY)
			return terr(t, "a key over %d bytes", MAX_KEY - 1);
		out[n++] = *t->p++;
	}
	out[n] = '\0';
	if (!n)
		return terr(t, "expected a key, got '%c'", t->p < t->end ? *t->p : ' ');
	return 0;
}

static int value(struct toml *t, struct entry *e, int depth);

/* [ v, v, ... ] at t->p; string items land in e->text. */
static int array(struct toml *t, struct entry *e, int depth)
{
	size_t n = strlen(e->text);
	int first = 1;
	if (depth >= MAX_NEST)
		return terr(t, "arrays nested over %d deep", MAX_NEST);
	t->p++;
	for (;;) {
		struct entry item;
		skip_all(t);
		if (t->p >= t->end)
			return terr(t, "an array that does not end");
		if (*t->p == ']') {
			t->p++;
			return 0;
		}
		memset(&item, 0, sizeof(item));
		if (value(t, &item, depth + 1) != 0)
			return -1;
		if (item.type == T_STRING) {
			size_t l = strlen(item.text);
			if (n + l + 2 >= MAX_TEXT)
				return terr(t, "an array over %d bytes", MAX_TEXT - 1);
			if (!first)
				e->text[n++] = '\n';
			memcpy(e->text + n, item.text, l + 1);
			n += l;
		}
		first = 0;
		e->i++;
		skip_all(t);
		if (t->p < t->end && *t->p == ',') {
			t->p++;
			continue;
		}
		skip_all(t);
		if (t->p < t->end && *t->p == ']') {
			t->p++;
			return 0;
		}
		return terr(t, "expected ',' or ']' in an array");
	}
}

static int number(struct toml *t, struct entry *e)
{
	char buf[64];
	size_t n = 0;
	int is_float = 0;
	char *end;
	while (t->p < t->end && (isalnum((unsigned char)*t->p) || strchr("+-._:", *t->p))) {
		char c = *t->p++;
		if (c == '_')
			continue;
		if (c == ':' || (c == '-' && n > 0 && buf[n - 1] != 'e' && buf[n - 1] != 'E'))
			return terr(t, "dates and times are not part of the TOML distcalc reads");
		if (n + 1 >= sizeof(buf))
			return terr(t, "a number over %zu characters", sizeof(buf) - 1);
		buf[n++] = c;
		if (c == '.' || c == 'e' || c == 'E')
			is_float = 1;
	}
	buf[n] = '\0';
	if (!n)
		return terr(t, "expected a value, got '%c'", t->p < t->end ? *t->p : ' ');
	if (strcmp(buf, "true") == 0 || strcmp(buf, "false") == 0) {
		e->type = T_BOOL;
		e->b = buf[0] == 't';
		snprintf(e->text, sizeof(e->text), "%s", buf);
		return 0;
	}
	{
		const char *d = buf + (buf[0] == '+' || buf[0] == '-');
		if ((d[0] == '0' && (d[1] == 'x' || d[1] == 'o' || d[1] == 'b')) || strcmp(d, "inf") == 0 ||
		    strcmp(d, "nan") == 0)
			return terr(t, "'%s': hex, octal, binary, inf and nan are not part of the TOML distcalc reads", buf);
		if (isalpha((unsigned char)buf[0]))
			return terr(t, "'%s': a string needs quotes", buf);
		if (!isdigit((unsigned char)d[0]))
			return terr(t, "'%s': not a number", buf);
	}
	errno = 0;
	if (is_float) {
		e->type = T_FLOAT;
		e->f = strtod(buf, &end);
		if (*end || errno || !isfinite(e->f))
			return terr(t, "'%s': not a number distcalc reads", buf);
	} else {
		e->type = T_INT;
		e->i = strtoll(buf, &end, 10);
		if (*end || errno)
			return terr(t, "'%s': not a whole number distcalc reads", buf);
		e->f = (double)e->i;
	}
	snprintf(e->text, sizeof(e->text), "%s", buf);
	return 0;
}

static int value(struct toml *t, struct entry *e, int depth)
{
	if (t->p >= t->end || *t->p == '\n')
		return terr(t, "expected a value");
	if (*t->p == '"' || *t->p == '\'') {
		e->type = T_STRING;
		return string(t, e->text);
	}
	if (*t->p == '[') {
		e->type = T_ARRAY;
		return array(t, e, depth);
	}
	if (*t->p == '{')
		return terr(t, "inline tables are not part of the TOML distcalc reads");
	return number(t, e);
}

static int header(struct toml *t, char *table)
{
	size_t n = 0;
	t->p++;
	if (t->p < t->end && *t->p == '[')
		return terr(t, "arrays of tables ([[...]]) are not part of the TOML distcalc reads");
	for (;;) {
		char part[MAX_KEY];
		skip_ws(t);
		if (key(t, part) != 0)
			return -1;
		if (n + strlen(part) + 2 >= MAX_KEY)
			return terr(t, "a table name over %d bytes", MAX_KEY - 1);
		if (n)
			table[n++] = '.';
		memcpy(table + n, part, strlen(part) + 1);
		n += strlen(part);
		skip_ws(t);
		if (t->p < t->end && *t->p == '.') {
			t->p++;
			continue;
		}
		break;
	}
	if (t->p >= t->end || *t->p != ']')
		return terr(t, "expected ']' after the table name");
	t->p++;
	for (size_t i = 0; i < t->ntables; i++)
		if (strcmp(t->tables[i], table) == 0)
			return terr(t, "table [%s] defined twice", table);
	if (t->ntables >= sizeof(t->tables) / sizeof(t->tables[0]))
		return terr(t, "more than %zu tables", sizeof(t->tables) / sizeof(t->tables[0]));
	snprintf(t->tables[t->ntables++], MAX_KEY, "%s", table);
	return end_of_line(t);
}

static int parse(struct toml *t)
{
	char table[MAX_KEY] = "";
	while (t->p < t->end && !t->failed) {
		struct entry e, *g;
		skip_ws(t);
		if (t->p >= t->end)
			break;
		if (*t->p == '\n' || *t->p == '#' || *t->p == '\r') {
			if (end_of_line(t) != 0)
				return -1;
			continue;
		}
		if (*t->p == '[') {
			if (header(t, table) != 0)
				return -1;
			continue;
		}
		memset(&e, 0, sizeof(e));
		e.line = t->line;
		snprintf(e.table, sizeof(e.table), "%s", table);
		if (key(t, e.key) != 0)
			return -1;
		skip_ws(t);
		if (t->p < t->end && *t->p == '.')
			return terr(t, "dotted keys are not part of the TOML distcalc reads; use a [table]");
		if (t->p >= t->end || *t->p != '=')
			return terr(t, "expected '=' after '%s'", e.key);
		t->p++;
		skip_ws(t);
		if (value(t, &e, 0) != 0 || end_of_line(t) != 0)
			return -1;
		for (size_t i = 0; i < t->n; i++) {
			if (strcmp(t->e[i].table, e.table) == 0 && strcmp(t->e[i].key, e.key) == 0) {
				t->line = e.line;
				return terr(t, "'%s' given twice in [%s] (line %u)", e.key, e.table, t->e[i].line);
			}
		}
		if (t->n >= DC_IMPORT_MAX_ITEMS)
			return terr(t, "more than %d keys", DC_IMPORT_MAX_ITEMS);
		if (t->n == t->cap) {
			size_t cap = t->cap ? t->cap * 2 : 32;
			g = dc_realloc(t->e, cap * sizeof(*g));
			if (!g) {
				dc_diag_error(t->diag, DC_ERR_INTERNAL, "%s: error: out of memory", t->name);
				return -1;
			}
			t->e = g;
			t->cap = cap;
		}
		t->e[t->n++] = e;
	}
	return t->failed ? -1 : 0;
}

/* ---- the mapping ---- */

#define MAX_ASKED 256

struct tctx {
	struct toml *t;
	struct dc_import *imp;
	int errors;
	const struct entry *mx; /* [model] converters when it holds "mx" or "quantize.linear.mx" */
	int mx_newer;           /* ... the latter */
	const struct entry *gmm_float8; /* [model] converters when it holds "quantize.grouped_mm.float8" */
	long long layers;       /* the model's layers when [model] names a flavor distcalc knows; 0 else */
	/* the settings the mapping asked for (static strings), for a near
	 * name to an unknown one */
	const char *asked_table[MAX_ASKED], *asked_key[MAX_ASKED];
	size_t nasked;
};

static struct entry *get(struct tctx *c, const char *table, const char *k)
{
	if (c->nasked < MAX_ASKED) {
		c->asked_table[c->nasked] = table;
		c->asked_key[c->nasked++] = k;
	}
	for (size_t i = 0; i < c->t->n; i++) {
		struct entry *e = &c->t->e[i];
		if (strcmp(e->table, table) == 0 && strcmp(e->key, k) == 0) {
			e->used = 1;
			return e;
		}
	}
	return NULL;
}

static void merr(struct tctx *c, const struct entry *e, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void merr(struct tctx *c, const struct entry *e, const char *fmt, ...)
{
	char at[600];
	char *msg;
	const char *text;
	va_list ap;
	va_start(ap, fmt);
	msg = dc_vasprintf(fmt, ap);
	text = msg ? msg : "(out of memory formatting a message)";
	if (!msg)
		dc_diag_oom(c->t->diag);
	va_end(ap);
	if (e)
		dc_diag_error(c->t->diag, DC_ERR_CONFIG, "%s: error: [%s] %s: %s",
			      dc_import_where(at, sizeof(at), c->t->name, e->line), e->table, e->key, text);
	else
		dc_diag_error(c->t->diag, DC_ERR_CONFIG, "%s: error: %s", dc_import_where(at, sizeof(at), c->t->name, 0), text);
	c->errors++;
	free(msg);
}

static void mwarn(struct tctx *c, const struct entry *e, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void mwarn(struct tctx *c, const struct entry *e, const char *fmt, ...)
{
	char at[600];
	char *msg;
	const char *text;
	va_list ap;
	va_start(ap, fmt);
	msg = dc_vasprintf(fmt, ap);
	text = msg ? msg : "(out of memory formatting a message)";
	if (!msg)
		dc_diag_oom(c->t->diag);
	va_end(ap);
	dc_diag_warn(c->t->diag, "%s: [%s] %s: %s", dc_import_where(at, sizeof(at), c->t->name, e->line), e->table, e->key,
		     text);
	free(msg);
}

static void setj(struct tctx *c, const char *path, const char *json, const struct entry *e, const char *from)
{
	char f[2 * MAX_KEY + 4];
	if (e)
		snprintf(f, sizeof(f), "[%s] %s", e->table, e->key);
	if (dc_import_set(c->imp, path, json, e ? f : from, e ? e->line : 0, c->t->name, c->t->diag) != 0)
		c->errors++;
}

static void setu(struct tctx *c, const char *path, unsigned long long v, const struct entry *e, const char *from)
{
	char t[32];
	snprintf(t, sizeof(t), "%llu", v);
	setj(c, path, t, e, from);
}

static void sets(struct tctx *c, const char *path, const char *v, const struct entry *e, const char *from)
{
	char t[MAX_TEXT + 2];
	snprintf(t, sizeof(t), "\"%s\"", v); /* only our own names, never the file's text */
	setj(c, path, t, e, from);
}

/* How a wrong value reads in a message: a string quoted, so "2" and 2 are
 * told apart */
static const char *as_read(const struct entry *e, char *buf, size_t n)
{
	if (e->type != T_STRING)
		return e->text;
	snprintf(buf, n, "the string \"%s\"", e->text);
	return buf;
}

/* An integer entry from `lo`; *out untouched when absent. -1 after an error. */
static int integer(struct tctx *c, struct entry *e, long long lo, long long *out)
{
	if (!e)
		return 0;
	if (e->type != T_INT || e->i < lo || e->i > (1ll << 40)) {
		char q[MAX_TEXT + 16];
		merr(c, e, "expected a whole number from %lld, got %s", lo, as_read(e, q, sizeof(q)));
		return -1;
	}
	*out = e->i;
	return 0;
}

static int boolean(struct tctx *c, struct entry *e, int *out)
{
	if (!e)
		return 0;
	if (e->type != T_BOOL) {
		char q[MAX_TEXT + 16];
		merr(c, e, "expected true or false, got %s", as_read(e, q, sizeof(q)));
		return -1;
	}
	*out = e->b;
	return 0;
}

static const char *str(struct tctx *c, struct entry *e)
{
	if (!e)
		return NULL;
	if (e->type != T_STRING) {
		merr(c, e, "expected a string, got %s", e->text);
		return NULL;
	}
	return e->text;
}

/* [model] name and flavor: the catalogue's entry of the same model. The
 * llama3 flavors are Llama 3.1's: their shapes (torchtitan b5bcd76c
 * torchtitan/models/llama3/__init__.py, _8b, _70b, _405b) and their RoPE,
 * scaled to 131,072 positions ("llama" scaling, max_context_length
 * 131072: :226-228, 267-269, 308-310), as the Llama-3.1 Hugging Face
 * configs give them (docs/importers.md). The qwen3 flavors 8B and 30B-A3B
 * (torchtitan/models/qwen3/__init__.py, _8b and _30b_a3b: dim 4096, 36
 * layers, 32 / 8 heads of 128, ffn 12288; dim 2048, 48 layers, 32 / 4
 * heads, 128 experts of 768, top 8; vocabulary 151,936 untied) are
 * Qwen3-8B's and Qwen3-30B-A3B's Hugging Face configs.
 *
 * No row for llama4 or deepseek_v3: their TOMLs are a torchtitan's up to
 * 238fa9953 (9810191bb replaced the TOMLs), whose flavors differ from the
 * catalogue's models in what distcalc prices, so --model and a --set give
 * the shape (docs/importers.md). At 238fa9953, llama4 "17bx16e"
 * (torchtitan/models/llama4/__init__.py:38-50) has Llama-4-Scout's
 * weights (dim 5120, 48 layers, 40 / 8 heads, 16 experts of 8192 and a
 * shared one, top 1, every layer MoE, vocabulary 202,048: model/args.py:
 * 35, model/model.py:387-402) but full causal attention on every layer
 * (every_n_layers_nope None, sdpa causal: args.py:47-48, 56), where
 * llama-4-scout-17b-16e chunks three layers of four at 8192;
 * "17bx16e_irope" (:73-88) chunks them but keeps layers 0, 4, 8, ...
 * global (model.py:376-382; the Hugging Face config 3, 7, 11, ..., which
 * a stage's share prices) and masks documents (block_causal); the
 * 17bx128e flavors (:51-60, 89-101) have no entry. deepseek_v3 "671B"
 * (deepseek_v3/__init__.py:130-156) is deepseek-v3's shape but for its
 * multi-token-prediction module (num_nextn_predict_layers 1, priced),
 * which torchtitan builds only from f59c215e8, after the TOMLs; "16B" and
 * "236B" (:78-129) have no entry. Were one mapped, its layers would be
 * n_layers (48, 61), the count pipeline_llm splits
 * (distributed/pipeline_parallel.py:60-61 at 238fa9953). */
static const struct {
	const char *name, *flavor, *catalogue;
	long long layers; /* the flavor's n_layers, which torchtitan splits over its stages */
} flavors[] = {
	{"llama3", "8B", "llama-3.1-8b", 32},
	{"llama3", "70B", "llama-3.1-70b", 80},
	{"llama3", "405B", "llama-3.1-405b", 126},
	{"qwen3", "8B", "qwen3-8b", 36},
	{"qwen3", "30B-A3B", "qwen3-30b-a3b", 48},
};

/* Whether an item of a filter_fqns array is a substring of "output", the
 * LM head's name: torchtitan's module filter skips a Linear whose name
 * contains an item (torchtitan/components/quantization/utils.py:24-25 at
 * 08b8b244f). Items '\n'-separated. */
static int filters_output(const struct entry *ff)
{
	const char *p = ff->text;
	for (long long k = 0; k < ff->i; k++) {
		size_t n = strcspn(p, "\n");
		for (size_t at = 0; at + n <= 6; at++)
			if (strncmp(&"output"[at], p, n) == 0)
				return 1;
		p += n + (p[n] != '\0');
	}
	return 0;
}

/* The float8 converter (torchtitan/components/float8.py, Float8Converter):
 * torchao's Float8LinearConfig from [float8] recipe_name (config_manager.py
 * Float8: "tensorwise", "rowwise", "rowwise_with_gw_hp"), else its default,
 * tensorwise dynamic scaling ("Float8 tensorwise scaled training active"):
 * per-tensor scales computed from the tensor itself, distcalc's "current",
 * never Transformer Engine's "delayed". Every nn.Linear is converted unless
 * an item of [float8] filter_fqns (default []) is a substring of its name
 * (_module_filter_fn), so the LM head, "output", runs in FP8 unless one
 * is. From torchtitan 8a2686c4a the converter is "quantize.linear.float8"
 * and reads the same keys from [quantize.linear.float8] (238fa9953
 * torchtitan/config/job_config.py:731-752, components/quantization/
 * float8.py:28-102), with emulate beside them: `tbl` is the table and
 * `what` the converter's name, for messages. */
static void map_float8(struct tctx *c, const struct entry *conv, const char *tbl, const char *what)
{
	struct entry *rn = get(c, tbl, "recipe_name"), *ff = get(c, tbl, "filter_fqns");
	char from[160];
	int head = 1;
	snprintf(from, sizeof(from), "[model] converters %s (tensorwise, torchao's default)", what);
	if (!rn)
		sets(c, "precision.fp8_recipe", "current", conv, from);
	else if (rn->type != T_STRING)
		merr(c, rn, "expected \"tensorwise\", \"rowwise\" or \"rowwise_with_gw_hp\"");
	else if (strcmp(rn->text, "tensorwise") == 0)
		sets(c, "precision.fp8_recipe", "current", rn, NULL);
	else if (strcmp(rn->text, "rowwise") == 0)
		sets(c, "precision.fp8_recipe", "rowwise", rn, NULL);
	else if (strcmp(rn->text, "rowwise_with_gw_hp") == 0) {
		sets(c, "precision.fp8_recipe", "rowwise", rn, NULL);
		mwarn(c, rn, "priced as \"rowwise\": this recipe keeps the weight gradients' GEMM in BF16, which "
			     "distcalc prices in FP8 (the step comes out short)");
	} else
		merr(c, rn, "\"%.40s\" is not a torchao float8 recipe torchtitan takes (tensorwise, rowwise, "
			    "rowwise_with_gw_hp)",
		     rn->text);
	if (strcmp(tbl, "float8") != 0) {
		/* [quantize.linear.float8] (238fa9953 components/quantization/
		 * float8.py:65-100): a recipe_name beside the FP8 all-gather
		 * trips torchtitan's assert (:66-69); emulate is read only
		 * without a recipe_name (:91-94), where it multiplies in high
		 * precision */
		struct entry *ag = get(c, tbl, "enable_fsdp_float8_all_gather"), *em = get(c, tbl, "emulate");
		int on = 0;
		get(c, tbl, "precompute_float8_dynamic_scale_for_fsdp");
		if (boolean(c, ag, &on) == 0 && on) {
			if (rn)
				merr(c, ag, "true with recipe_name (line %u): torchtitan asserts they are not used together "
					    "(components/quantization/float8.py:66-69 at 238fa9953)",
				     rn->line);
			else
				mwarn(c, ag, "not modelled: distcalc gathers the parameters at precision.working_bytes");
		}
		on = 0;
		if (boolean(c, em, &on) == 0 && on) {
			if (rn)
				mwarn(c, em, "changes nothing with recipe_name (line %u): torchtitan builds the recipe's "
					     "config without it (components/quantization/float8.py:71-73 at 238fa9953)",
				      rn->line);
			else
				merr(c, em, "true emulates the FP8 GEMMs in high precision (components/quantization/"
					    "float8.py:91-94 at 238fa9953), which distcalc does not price; remove it, or "
					    "the converter to price BF16");
		}
	}
	if (ff && ff->type != T_ARRAY) {
		merr(c, ff, "expected an array of module names");
		return;
	}
	if (ff)
		head = !filters_output(ff);
	if (head) {
		/* the note's source is kept to 95 bytes (struct dc_import_key) */
		snprintf(from, sizeof(from), "[model] converters %s (no filter_fqns: head converted)", what);
		setj(c, "precision.fp8_lm_head", "true", ff ? ff : NULL, ff ? NULL : from);
	}
}

/* The MX converter, converters = ["mx"] with its [mx] table (torchtitan
 * f3e2a75e to 08b8b244f, before 5b5d4685 renamed it quantize.dense.mx;
 * torchtitan/config/job_config.py:594-618 and components/quantization/
 * mx.py:27-112 at 08b8b244f): torchao's MXLinear on every nn.Linear
 * whose name contains no item of [mx] filter_fqns (default ["output"],
 * job_config.py:605: the LM head stays BF16; quantization/utils.py:10-27),
 * with MXLinearConfig.from_recipe_name([mx] recipe_name) (mx.py:76;
 * default "mxfp8_cublas", job_config.py:599; before 48d8dcde the only
 * name was "mxfp8", read as "mxfp8_cublas"). torchao's names (pytorch/ao
 * c993d64d, torchao/prototype/mx_formats/config.py:46-51, 184-201):
 * mxfp8_cublas and mxfp8_cublas_rceil run the 1x32 block-scaled FP8 GEMM
 * (E8M0 scales; rceil rounds the scales another way), distcalc's
 * "mxfp8"; mxfp8_emulated dequantizes and multiplies in high precision,
 * mxfp4_* casts to FP4: neither is priced. The converter asserts sm100
 * (mx.py:49-52; still at b5bcd76c, quantization/mx.py:70-71), which the
 * loader's refusal of mxfp8 off Blackwell matches. From torchtitan
 * 8a2686c4a the converter is "quantize.linear.mx" with the same keys in
 * [quantize.linear.mx] (238fa9953 torchtitan/config/job_config.py:766-
 * 790, components/quantization/mx.py:27-68): `tbl` is the table and
 * `what` the converter's name. */
static void map_mx(struct tctx *c, const struct entry *conv, const char *tbl, const char *what)
{
	struct entry *rn = get(c, tbl, "recipe_name"), *ff = get(c, tbl, "filter_fqns");
	char from[160];
	get(c, tbl, "mxfp8_dim1_cast_kernel_choice");
	snprintf(from, sizeof(from), "[model] converters %s (no recipe_name: mxfp8_cublas)", what);
	if (!rn || (rn->type == T_STRING && (strcmp(rn->text, "mxfp8") == 0 || strcmp(rn->text, "mxfp8_cublas") == 0 ||
					     strcmp(rn->text, "mxfp8_cublas_rceil") == 0)))
		sets(c, "precision.fp8_recipe", "mxfp8", rn ? rn : conv, rn ? NULL : from);
	else if (rn->type != T_STRING)
		merr(c, rn, "expected \"mxfp8_cublas\", \"mxfp8_cublas_rceil\" or \"mxfp8\"");
	else if (strcmp(rn->text, "mxfp8_emulated") == 0)
		merr(c, rn, "\"mxfp8_emulated\" dequantizes the MX tensors and multiplies in high precision (torchao "
			    "mx_formats/config.py:184-185), a GEMM distcalc does not price; give \"mxfp8_cublas\"");
	else if (strcmp(rn->text, "mxfp4_emulated") == 0 || strcmp(rn->text, "mxfp4_cutlass") == 0)
		merr(c, rn, "\"%s\" casts to FP4 (torchao mx_formats/config.py:195-201), and distcalc prices FP8 and BF16 "
			    "GEMMs only; give \"mxfp8_cublas\"",
		     rn->text);
	else
		merr(c, rn, "\"%.40s\" is not a torchao MX recipe distcalc prices (mxfp8_cublas, mxfp8_cublas_rceil, and "
			    "mxfp8, torchtitan's earlier name of mxfp8_cublas)",
		     rn->text);
	mwarn(c, conv, "priced as Transformer Engine's mxfp8 casts, one read of each input for its row- and column-wise "
		       "copies (4.0625 B an element); torchao's MXLinear casts each input once per axis, each cast "
		       "reading it (torchao/prototype/mx_formats/mx_linear.py:130-143, 167-238 at pytorch/ao c993d64d), "
		       "6.0625 B: the casts come out short");
	if (ff && ff->type != T_ARRAY)
		merr(c, ff, "expected an array of module names");
	else if (ff && !filters_output(ff))
		setj(c, "precision.fp8_lm_head", "true", ff, NULL);
	c->mx = conv;
	c->mx_newer = strcmp(tbl, "mx") != 0;
}

/* torchtitan f3e2a75e to 2b976ee8 asserts "TP not yet supported with
 * torch.compile for mxfp8" (components/quantization/mx.py:54-61 at
 * 08b8b244f); the converter before f3e2a75e runs it: a warning. The
 * converter "quantize.linear.mx" exists only from 8a2686c4a, inside that
 * span (mx.py:50-52 at 238fa9953): an error. The grouped-GEMM float8
 * converter asserts pp 1 and cp 1 (components/quantization/float8.py:
 * 193-198 at 238fa9953): an error too. */
static void check_converters(struct tctx *c)
{
	const char *tp = dc_import_get(c->imp, "parallel.tp"), *comp = dc_import_get(c->imp, "training.compile");
	const char *pp = dc_import_get(c->imp, "parallel.pp"), *cp = dc_import_get(c->imp, "parallel.cp");
	if (c->gmm_float8 && ((pp && strcmp(pp, "1") != 0) || (cp && strcmp(cp, "1") != 0)))
		merr(c, c->gmm_float8, "quantize.grouped_mm.float8 with pipeline_parallel_degree %s and "
				       "context_parallel_degree %s: torchtitan asserts both are 1 (\"Float8 MoE training "
				       "prototype does not yet support pipeline parallelism\", components/quantization/"
				       "float8.py:193-198 at 238fa9953)",
		     pp ? pp : "1", cp ? cp : "1");
	if (c->mx && c->mx_newer && tp && strcmp(tp, "1") != 0 && comp && strcmp(comp, "true") == 0)
		merr(c, c->mx, "quantize.linear.mx with tensor_parallel_degree %s and the model compiled: torchtitan "
			       "asserts \"TP not yet supported with torch.compile for mxfp8\" (components/quantization/"
			       "mx.py:50-52 at 238fa9953); compile the loss only, or give tensor_parallel_degree 1",
		     tp);
	else if (c->mx && tp && strcmp(tp, "1") != 0 && comp && strcmp(comp, "true") == 0)
		mwarn(c, c->mx, "with tensor_parallel_degree %s and the model compiled: torchtitan from f3e2a75e to 2b976ee8 "
				"refuses it (\"TP not yet supported with torch.compile for mxfp8\", components/quantization/"
				"mx.py:54-61 at 08b8b244f); priced as given",
		      tp);
}

/* Whether the file has a table `tbl` (a key in it, or its header alone). */
static const struct entry *has_table(const struct tctx *c, const char *tbl, unsigned *line)
{
	for (size_t i = 0; i < c->t->n; i++)
		if (strcmp(c->t->e[i].table, tbl) == 0) {
			*line = c->t->e[i].line;
			return &c->t->e[i];
		}
	return NULL;
}

/* A grouped-GEMM converter's fqns (list[str] | str, default []: 238fa9953
 * job_config.py:757, 802): the MoE modules it converts, matched by
 * substring (float8.py:221-225, mx.py:151-155). Empty converts nothing. */
static int gmm_converts(struct tctx *c, const char *tbl, const struct entry *conv)
{
	struct entry *f = get(c, tbl, "fqns");
	if (f && f->type != T_ARRAY && f->type != T_STRING) {
		merr(c, f, "expected an array of module names");
		return 0;
	}
	if (!f || (f->type == T_ARRAY && f->i == 0) || (f->type == T_STRING && !f->text[0])) {
		mwarn(c, f ? f : conv, "[%s] fqns is empty%s: the converter converts no module (torchtitan matches "
				       "the MoE modules it names, components/quantization/float8.py:221-225 at 238fa9953); "
				       "priced as without it",
		      tbl, f ? "" : " (its default)");
		return 0;
	}
	return 1;
}

/* [model] converters (torchtitan/protocols/model_converter.py: each name
 * a registered converter, applied in turn). Names: "float8" and "mx" with
 * their [float8] and [mx] tables (torchtitan before 5b5d4685); from
 * 8a2686c4a to the last TOML-era main, 238fa9953,
 * "quantize.linear.float8", "quantize.linear.mx" (nn.Linear) and
 * "quantize.grouped_mm.float8", "quantize.grouped_mm.mx" (the MoE
 * experts' grouped GEMMs), each with its [quantize.*] table (job_config.py:
 * 731-835, registered at components/quantization/float8.py:238-239 and
 * mx.py:171-172). torchtitan refuses float8 and mx together (quantization/
 * __init__.py:36-56). distcalc's precision.compute "fp8" prices every
 * linear layer, the experts' too, in FP8: the linear converter maps onto
 * it; a grouped-GEMM converter beside it converts the experts the same
 * way; one alone (experts FP8, the rest BF16) is not a distcalc precision
 * and is priced BF16 with a warning. The 5b5d4685 names (quantize.dense.*,
 * quantize.moe.*) lived four days: refused, naming the later ones. */
static void map_converters(struct tctx *c, struct entry *e)
{
	int lin_f8 = 0, lin_mx = 0, gmm_f8 = 0, gmm_mx = 0, older = 0, newer = 0, bad = 0;
	const char *p = e->text;
	long long k, named = 0;
	unsigned line;
	if (e->type != T_ARRAY) {
		merr(c, e, "expected an array of names");
		return;
	}
	for (k = 0; k < e->i && *p; k++) {
		size_t n = strcspn(p, "\n");
		int *on = NULL;
		named++;
#define IS(lit) (n == sizeof(lit) - 1 && strncmp(p, lit, n) == 0)
		if (IS("float8"))
			on = &lin_f8, older = 1;
		else if (IS("mx"))
			on = &lin_mx, older = 1;
		else if (IS("quantize.linear.float8"))
			on = &lin_f8, newer = 1;
		else if (IS("quantize.linear.mx"))
			on = &lin_mx, newer = 1;
		else if (IS("quantize.grouped_mm.float8"))
			on = &gmm_f8, newer = 1;
		else if (IS("quantize.grouped_mm.mx"))
			on = &gmm_mx, newer = 1;
		else if ((n > 15 && strncmp(p, "quantize.dense.", 15) == 0) || (n > 13 && strncmp(p, "quantize.moe.", 13) == 0)) {
			merr(c, e, "\"%.*s\" is torchtitan 5b5d4685's name, which 8a2686c4a renamed (quantize.dense.* to "
				   "quantize.linear.*, quantize.moe.* to quantize.grouped_mm.*, and their tables with them): "
				   "give the later name and table",
			     (int)(n > 64 ? 64 : n), p);
			bad = 1;
		} else {
			merr(c, e, "\"%.*s\" is not a converter distcalc maps (float8, mx; quantize.linear.float8, "
				   "quantize.linear.mx, quantize.grouped_mm.float8, quantize.grouped_mm.mx)",
			     (int)(n > 64 ? 64 : n), p);
			bad = 1;
		}
#undef IS
		if (on && *on) {
			merr(c, e, "\"%.*s\" given twice", (int)(n > 64 ? 64 : n), p);
			bad = 1;
		}
		if (on)
			*on = 1;
		p += n + (p[n] != '\0');
	}
	if (named != e->i) {
		merr(c, e, "expected an array of names (strings)");
		return;
	}
	if (bad)
		return;
	if (older && newer) {
		merr(c, e, "mixes the converter names before torchtitan 8a2686c4a (float8, mx) with the later quantize.* "
			   "ones: no torchtitan registers both");
		return;
	}
	if (older && lin_f8 && lin_mx) {
		merr(c, e, "only [\"float8\"] or [\"mx\"] is mapped (FP8 matmuls)");
		return;
	}
	if ((lin_f8 || gmm_f8) && (lin_mx || gmm_mx)) {
		merr(c, e, "combines float8 and mx converters, which torchtitan refuses (\"Cannot combine model converters "
			   "with different quantization types\", components/quantization/__init__.py:51-56 at 238fa9953)");
		return;
	}
	/* a converter's table under the other era's name: torchtitan reads
	 * the keys from its own converter's table alone, and 238fa9953
	 * registers no "float8" or "mx" (a KeyError in model_converter.py:62) */
	{
		static const char *const pair[][3] = {
			{"float8", "quantize.linear.float8", "float8.py:238"},
			{"mx", "quantize.linear.mx", "mx.py:171"},
		};
		for (size_t i = 0; i < 2; i++) {
			int on = i == 0 ? lin_f8 : lin_mx;
			const char *other = older ? pair[i][1] : pair[i][0];
			if (on && has_table(c, other, &line)) {
				if (older)
					merr(c, e, "\"%s\" reads its settings from [%s], but this file gives them in [%s] "
						   "(line %u), which torchtitan from 8a2686c4a reads for the converter \"%s\" "
						   "and registers no \"%s\" (components/quantization/%s at 238fa9953): give "
						   "converters = [\"%s\"]",
					     pair[i][0], pair[i][0], pair[i][1], line, pair[i][1], pair[i][0], pair[i][2],
					     pair[i][1]);
				else
					merr(c, e, "\"%s\" reads its settings from [%s], but this file gives them in [%s] "
						   "(line %u), the table of torchtitan's converter \"%s\" before 8a2686c4a: "
						   "move them to [%s]",
					     pair[i][1], pair[i][1], pair[i][0], line, pair[i][0], pair[i][1]);
				return;
			}
		}
	}
	if (gmm_f8)
		c->gmm_float8 = e; /* its pp and cp asserts run whatever it converts */
	if (gmm_f8 && !gmm_converts(c, "quantize.grouped_mm.float8", e))
		gmm_f8 = 0;
	if (gmm_mx) {
		struct entry *rn = get(c, "quantize.grouped_mm.mx", "recipe_name");
		const char *r = rn ? str(c, rn) : "mxfp8";
		if (r && strcmp(r, "mxfp8") != 0) {
			merr(c, rn, "expected \"mxfp8\", the one recipe torchtitan takes here (torchtitan/config/"
				    "job_config.py:795 at 238fa9953)");
			return;
		}
		if (!gmm_converts(c, "quantize.grouped_mm.mx", e))
			gmm_mx = 0;
	}
	if ((gmm_f8 || gmm_mx) && !lin_f8 && !lin_mx) {
		mwarn(c, e, "%s alone converts the MoE experts' grouped GEMMs to FP8 and leaves the other linear layers in "
			    "BF16, which is not a distcalc precision (precision.compute prices every linear layer at one "
			    "format): priced in BF16, so the step comes out long; --set precision.compute=fp8 prices all in "
			    "FP8",
		      gmm_f8 ? "quantize.grouped_mm.float8" : "quantize.grouped_mm.mx");
		return;
	}
	if (lin_f8) {
		sets(c, "precision.compute", "fp8", e, NULL);
		map_float8(c, e, older ? "float8" : "quantize.linear.float8", older ? "float8" : "quantize.linear.float8");
		if (gmm_f8) {
			/* the experts' grouped GEMMs run torchao's dynamic rowwise
			 * scaling (float8.py:205-231 at 238fa9953) */
			const char *r = dc_import_get(c->imp, "precision.fp8_recipe");
			if (r && strcmp(r, "\"rowwise\"") != 0)
				mwarn(c, e, "quantize.grouped_mm.float8 scales the experts' grouped GEMMs row-wise "
					    "(components/quantization/float8.py:205-231 at 238fa9953), but distcalc prices "
					    "every linear layer at the linear converter's recipe, %s",
				      r);
		}
	} else if (lin_mx) {
		sets(c, "precision.compute", "fp8", e, NULL);
		map_mx(c, e, older ? "mx" : "quantize.linear.mx", older ? "mx" : "quantize.linear.mx");
	}
}

static void map_model(struct tctx *c)
{
	struct entry *en = get(c, "model", "name"), *ef = get(c, "model", "flavor"), *e;
	const char *name = en ? str(c, en) : "llama3", *flavor = ef ? str(c, ef) : "debugmodel";
	size_t i;
	if (!name || !flavor)
		return;
	for (i = 0; i < sizeof(flavors) / sizeof(flavors[0]); i++)
		if (strcmp(flavors[i].name, name) == 0 && strcmp(flavors[i].flavor, flavor) == 0)
			break;
	if (i < sizeof(flavors) / sizeof(flavors[0])) {
		char j[80];
		snprintf(j, sizeof(j), "\"%s\"", flavors[i].catalogue);
		setj(c, "model.hf_config", j, ef ? ef : en, "[model] name and flavor");
		c->layers = flavors[i].layers;
	} else if (!en && !ef) {
		/* neither given: torchtitan's own defaults (llama3, debugmodel) */
		snprintf(c->imp->model_unresolved, sizeof(c->imp->model_unresolved),
			 "no [model] name or flavor: torchtitan's defaults, name \"%.40s\" flavor \"%.40s\", have no catalogue "
			 "entry; give them, or the model's Hugging Face config.json with --model FILE or NAME",
			 name, flavor);
	} else {
		/* the two flavors a catalogue model and a --set give exactly
		 * (the comment above flavors[]) */
		static const struct {
			const char *name, *flavor, *hint;
		} near[] = {
			{"llama4", "17bx16e",
			 ": Llama-4-Scout's weights with full causal attention on every layer, which --model "
			 "llama-4-scout-17b-16e --set model.attention_chunked=false --set model.sliding_window=0 --set "
			 "model.sliding_window_pattern=0 gives"},
			{"deepseek_v3", "671B",
			 ": DeepSeek-V3's shape without its multi-token-prediction module, which --model deepseek-v3 --set "
			 "model.mtp_layers=0 gives"},
		};
		const char *hint = "";
		for (i = 0; i < sizeof(near) / sizeof(near[0]); i++)
			if (strcmp(near[i].name, name) == 0 && strcmp(near[i].flavor, flavor) == 0)
				hint = near[i].hint;
		snprintf(c->imp->model_unresolved, sizeof(c->imp->model_unresolved),
			 "[model] name \"%.40s\" flavor \"%.40s\"%s (line %u) has no catalogue entry%s; give its Hugging "
			 "Face config.json with --model FILE or NAME",
			 name, flavor, ef ? "" : " (torchtitan's default flavor)", ef ? ef->line : en->line, hint);
	}
	if ((e = get(c, "model", "norm_type")) && str(c, e)) {
		if (strcmp(e->text, "layernorm") == 0)
			sets(c, "model.norm", "layernorm", e, NULL);
		else if (strcmp(e->text, "rmsnorm") != 0)
			merr(c, e, "\"%s\" is not mapped (rmsnorm, layernorm)", e->text);
	}
	if ((e = get(c, "model", "converters")) != NULL)
		map_converters(c, e);
	/* where the tokenizer and a Hugging Face checkpoint are read from:
	 * tokenizer_path, and hf_assets_path, its replacement from fd5a87fa
	 * (torchtitan/config/job_config.py:81-89 at 08b8b244f; at b5bcd76c
	 * the trainer's top-level hf_assets_path, torchtitan/trainer.py:79-84,
	 * read for the tokenizer, :555, and the checkpoint's state-dict
	 * adapter, :575): nothing distcalc computes */
	get(c, "model", "tokenizer_path");
	get(c, "model", "hf_assets_path");
	get(c, "model", "print_after_conversion");
}

static void map_training(struct tctx *c, long long pp)
{
	long long batch = 8, seq = 2048, mb = 1, global = -1;
	int offload = 0;
	struct entry *e, *eb = get(c, "training", "batch_size"), *el = get(c, "training", "local_batch_size"), *eg;
	/* local_batch_size is batch_size's later name (torchtitan dcefff5),
	 * with global_batch_size beside it: -1 is local x dp, more accumulates */
	if (eb && el)
		merr(c, el, "with batch_size on line %u: give one", eb->line);
	integer(c, eb ? eb : el, 1, &batch);
	eg = get(c, "training", "global_batch_size");
	if (eg && (eg->type != T_INT || (eg->i < 1 && eg->i != -1)))
		merr(c, eg, "expected -1 (local_batch_size x dp) or a whole number from 1, got %s", eg->text);
	else if (eg)
		global = eg->i;
	if (global > 0)
		setu(c, "training.global_batch_size", (unsigned long long)global, eg, NULL);
	if (integer(c, (e = get(c, "training", "seq_len")), 1, &seq) == 0)
		setu(c, "model.seq_length", (unsigned long long)seq, e, "no [training] seq_len (2048)");
	/* the local batch: split into pipeline microbatches under pp */
	e = get(c, "parallelism", "pipeline_parallel_microbatch_size");
	integer(c, e, 1, &mb);
	if (pp > 1) {
		if (batch % mb != 0) {
			merr(c, e, "must divide [training] %s (%lld)", el ? "local_batch_size" : "batch_size", batch);
		} else {
			/* one pipeline schedule runs the local batch's
			 * microbatches, one schedule a gradient-accumulation
			 * step (torchtitan/trainer.py:856-902 at b5bcd76c): a
			 * global batch above local x dp runs several a step */
			setu(c, "parallel.pipeline_schedule_microbatches", (unsigned long long)(batch / mb), eb ? eb : el,
			     "no [training] batch_size (8)");
			setu(c, "training.micro_batch_size", (unsigned long long)mb, e, "no pipeline_parallel_microbatch_size (1)");
			if (global < 0)
				setu(c, "training.grad_accum_steps", (unsigned long long)(batch / mb), eb ? eb : el,
				     "no [training] batch_size (8)");
		}
	} else {
		setu(c, "training.micro_batch_size", (unsigned long long)batch, eb ? eb : el, "no [training] batch_size (8)");
		if (global < 0)
			setj(c, "training.grad_accum_steps", "1", NULL, "torchtitan (no accumulation)");
	}
	if (boolean(c, (e = get(c, "training", "enable_cpu_offload")), &offload) == 0 && offload)
		sets(c, "parallel.offload", "optimizer+params", e, NULL);
	e = get(c, "training", "mixed_precision_param");
	if (e && str(c, e) && strcmp(e->text, "bfloat16") != 0 && strcmp(e->text, "float32") != 0)
		merr(c, e, "expected \"bfloat16\" or \"float32\"");
	/* FSDP2 mixed precision: FP32 sharded parameters, gradients and Adam
	 * moments, a BF16 (or FP32) working copy */
	sets(c, "precision.preset", "fsdp2", e, "no [training] mixed_precision_param (bfloat16)");
	if (e && strcmp(e->text, "float32") == 0) {
		setj(c, "precision.working_bytes", "4", e, NULL);
		mwarn(c, e, "the gathered parameters are priced at 4 bytes (precision.working_bytes), but the matmuls "
			    "at the BF16 peak and the activations at 2 bytes: FP32 compute is not modelled");
	}
	if ((e = get(c, "training", "mixed_precision_reduce")) && str(c, e) && strcmp(e->text, "float32") != 0)
		merr(c, e, "\"%s\" is not mapped: distcalc's fsdp2 preset reduce-scatters FP32 gradients, 4 bytes "
			   "(precision.grad_bytes); remove it to price FP32, or remove it and give --set "
			   "precision.grad_bytes=2 to price 2-byte gradients, held and reduced",
		     e->text);
	setj(c, "training.attention", "\"flash\"", NULL, "torchtitan's SDPA (flash)");
}

/* torch.compile of the model: [compile] enable with "model" in components
 * (torchtitan/config/configs.py:295-302 at b5bcd76c; components default
 * ["model", "loss"]), or the older [training] compile: each transformer
 * block compiled (torchtitan/distributed/compile.py apply_compile), which
 * is training.compile. Compiling the loss alone leaves it false. */
static int compiled(struct tctx *c)
{
	struct entry *e, *eo, *comp = get(c, "compile", "components"), *eb = get(c, "compile", "backend");
	int on = 0, old = 0;
	if (boolean(c, (eo = get(c, "training", "compile")), &old) == 0 && old)
		setj(c, "training.compile", "true", eo, NULL);
	if (boolean(c, (e = get(c, "compile", "enable")), &on) != 0 || !on) {
		/* torchtitan's stock files spell enable = false beside the
		 * default components: only a table without enable is told */
		if (!e && (comp || eb))
			mwarn(c, comp ? comp : eb, "changes nothing without [compile] enable = true");
		return old;
	}
	if (comp && comp->type != T_ARRAY) {
		merr(c, comp, "expected an array of names");
		return old;
	}
	if (comp) {
		/* items '\n'-separated; torchtitan compiles "model" and "loss"
		 * (configs.py:301, train.py's checks of each name) */
		const char *p = comp->text;
		int model = 0, bad = 0;
		for (long long k = 0; k < comp->i; k++) {
			size_t n = strcspn(p, "\n");
			if (n == 5 && strncmp(p, "model", 5) == 0)
				model = 1;
			else if (!(n == 4 && strncmp(p, "loss", 4) == 0) && !bad) {
				merr(c, comp, "\"%.*s\" is no component torchtitan compiles: expected \"model\" or \"loss\"",
				     (int)(n > 64 ? 64 : n), p);
				bad = 1;
			}
			p += n + (p[n] != '\0');
		}
		if (bad || !model)
			return old;
	}
	{
		/* the backend: "inductor" (configs.py:304) fuses the element-wise
		 * ops that training.compile prices; another (aot_eager, eager)
		 * runs them as eager PyTorch does */
		const char *b = eb ? str(c, eb) : NULL;
		if (eb && b && strcmp(b, "inductor") != 0) {
			merr(c, eb, "\"%s\" does not fuse kernels as Inductor does, which training.compile prices; use "
				    "\"inductor\" (torchtitan's default), or leave compile off to price the eager block",
			     b);
			return old;
		}
	}
	if (!old)
		setj(c, "training.compile", "true", e, NULL);
	return 1;
}

/* Async TP: [compile] enable_async_tensor_parallel (configs.py:298), in
 * torchtitan before that [parallelism] enable_async_tensor_parallel. It
 * needs the model compiled (configs.py:306-312 raises otherwise) and acts
 * only on a TP mesh (torchtitan/distributed/compile.py:80). */
static void map_async_tp(struct tctx *c, long long tp)
{
	struct entry *ep = get(c, "parallelism", "enable_async_tensor_parallel");
	struct entry *ec = get(c, "compile", "enable_async_tensor_parallel");
	struct entry *e = ec ? ec : ep;
	int on = 0, comp = compiled(c);
	if (ep && ec) {
		merr(c, ec, "with [parallelism] enable_async_tensor_parallel on line %u: give one", ep->line);
		return;
	}
	if (boolean(c, e, &on) != 0 || !on)
		return;
	if (!comp)
		merr(c, e, "async TP needs the model compiled ([compile] enable = true with \"model\" in components), "
			   "as torchtitan requires");
	else if (tp <= 1)
		mwarn(c, e, "changes nothing at tensor_parallel_degree 1");
	else
		setj(c, "overlap.tp", "true", e, NULL);
}

/* torchtitan's split of the model over its pipeline stages
 * (torchtitan/distributed/pipeline_parallel.py at b5bcd76c): S virtual
 * stages, pp x 1 for a single-stage schedule (1F1B) and pp x 2 for a
 * looped one (Interleaved1F1B), or ceil((L + iw + ow) /
 * pipeline_parallel_layers_per_stage) where that is given (:204-262);
 * the embedding counts as iw layers and the norm and head as ow
 * (pipeline_parallel_first_stage_less_layers and last_stage_less_layers,
 * 1 each by default: config/configs.py:197-209); each stage takes (L + iw
 * + ow) / S, the first (L + iw + ow) mod S one more, the first stage iw
 * and the last ow fewer transformer layers (_generate_llm_fqn_per_model_
 * part, :384-470). Virtual stage i runs on rank i mod pp, distcalc's
 * chunk order (parallel.pipeline_layers, pp x v entries). An even split
 * is left to distcalc's own; the layers are the [model] flavor's. */
static void map_stage_split(struct tctx *c, long long pp, int multi)
{
	struct entry *ef = get(c, "parallelism", "pipeline_parallel_first_stage_less_layers");
	struct entry *el = get(c, "parallelism", "pipeline_parallel_last_stage_less_layers");
	struct entry *ev = get(c, "parallelism", "pipeline_parallel_layers_per_stage");
	long long iw = 1, ow = 1, lps = 0, L = c->layers, spr, S, eff, per, extra;
	char list[2048];
	size_t used = 0;
	int even = 1;
	if (integer(c, ef, 0, &iw) != 0 || integer(c, el, 0, &ow) != 0 || integer(c, ev, 1, &lps) != 0)
		return;
	if (pp < 2) {
		/* torchtitan builds no pipeline at degree 1: the schedule is
		 * never read */
		if (multi)
			mwarn(c, get(c, "parallelism", "pipeline_parallel_schedule"),
			      "changes nothing at pipeline_parallel_degree 1 (no pipeline)");
		return;
	}
	if (!L) {
		/* no flavor distcalc knows: its layers are --model's */
		mwarn(c, ev ? ev : ef ? ef : el ? el : get(c, "parallelism", "pipeline_parallel_degree"), "torchtitan splits the model's layers over its stages counting the "
						 "embedding and the head as layers, but [model] names no flavor distcalc "
						 "knows: the stages are split evenly; give the split with --set "
						 "parallel.pipeline_layers=[...]");
		if (multi) {
			setu(c, "parallel.virtual_pipeline", 2, NULL, "Interleaved1F1B (2 stages a rank)");
			sets(c, "parallel.pipeline_schedule", "interleaved", NULL, "Interleaved1F1B");
		}
		return;
	}
	eff = L + iw + ow;
	if (lps) {
		S = (eff + lps - 1) / lps;
		if (S % pp != 0) {
			merr(c, ev, "%lld virtual stages (ceil((%lld layers + %lld + %lld) / %lld)) do not divide over "
				    "pipeline_parallel_degree %lld, as torchtitan requires",
			     S, L, iw, ow, lps, pp);
			return;
		}
		spr = S / pp;
		if (!multi && spr != 1) {
			merr(c, ev, "gives %lld stages a rank; the single-stage schedule 1F1B runs one", spr);
			return;
		}
		if (multi && spr < 2) {
			merr(c, ev, "gives 1 stage a rank; Interleaved1F1B runs 2 or more");
			return;
		}
	} else {
		spr = multi ? 2 : 1;
		S = pp * spr;
	}
	per = eff / S;
	extra = eff % S;
	if (S > eff || per == 0 || iw > per || ow > per) {
		merr(c, ev ? ev : ef ? ef : el ? el : get(c, "parallelism", "pipeline_parallel_degree"),
		     "torchtitan refuses the split: %lld stages of %lld layers + %lld + %lld (each stage's share, %lld, "
		     "must be at least 1 and not below either weight)",
		     S, L, iw, ow, per);
		return;
	}
	list[used++] = '[';
	for (long long i = 0; i < S; i++) {
		long long n = per + (i < extra ? 1 : 0) - (i == 0 ? iw : 0) - (i == S - 1 ? ow : 0);
		if (i && n != per + (0 < extra ? 1 : 0) - iw)
			even = 0;
		used += (size_t)snprintf(list + used, sizeof(list) - used, "%s%lld", i ? "," : "", n);
		if (used >= sizeof(list) - 2)
			return; /* 2^8 stages at most: never */
	}
	list[used++] = ']';
	list[used] = '\0';
	if (multi) {
		setu(c, "parallel.virtual_pipeline", (unsigned long long)spr, ev,
		     "Interleaved1F1B (2 stages a rank without pipeline_parallel_layers_per_stage)");
		sets(c, "parallel.pipeline_schedule", "interleaved", get(c, "parallelism", "pipeline_parallel_schedule"),
		     NULL);
	}
	if (!even) {
		setj(c, "parallel.pipeline_layers", list, ev ? ev : ef ? ef : el,
		     "torchtitan's stage split (the embedding and the head weigh 1 layer each by default)");
		c->imp->split_of_flavor = 1;
	}
}

static long long map_parallel(struct tctx *c)
{
	long long rep = 1, shard = -1, tp = 1, pp = 1, cp = 1;
	struct entry *e, *es;
	const char *s;

	struct entry *er;
	integer(c, (er = get(c, "parallelism", "data_parallel_replicate_degree")), 1, &rep);
	es = get(c, "parallelism", "data_parallel_shard_degree");
	if (es && (es->type != T_INT || (es->i < 1 && es->i != -1)))
		merr(c, es, "expected -1 (the ranks left) or a whole number from 1, got %s", es->text);
	else if (es)
		shard = es->i;
	/* replicas of FSDP shards: HSDP, whatever the shard degree: torchtitan
	 * b5bcd76c always applies FSDP over the ("dp_replicate", "fsdp") mesh
	 * ("with shard_degree=1 it is a no-op for the all-gather but still
	 * installs the MixedPrecisionPolicy": models/llama3/parallelize.py:
	 * 57-78), so shard degree 1 with replicas is HSDP over shard groups of
	 * one rank, as a shard degree of -1 that the replicas leave at 1 is */
	if (er)
		setu(c, "parallel.dp_replicate", (unsigned long long)rep, er, NULL);
	integer(c, (e = get(c, "parallelism", "tensor_parallel_degree")), 1, &tp);
	setu(c, "parallel.tp", (unsigned long long)tp, e, "no tensor_parallel_degree (1)");
	{
		/* enable_sequence_parallel, true by default (torchtitan/config/
		 * configs.py:169 at b5bcd76c): SequenceParallel in the tp plan.
		 * Left out, training.framework torchtitan derives it per layout
		 * (on at tp > 1: docs/config.md rule 16), so that a --set or a
		 * sweep of parallel.tp keeps torchtitan's default */
		struct entry *es_ = get(c, "parallelism", "enable_sequence_parallel");
		int on = 1;
		/* true is the default, left to the framework too (at tp 1
		 * torchtitan ignores it: a sweep of tp over 1 stays valid) */
		if (es_ && boolean(c, es_, &on) == 0 && !on) {
			if (tp > 1)
				setj(c, "parallel.sequence_parallel", "false", es_, NULL);
			else
				mwarn(c, es_, "changes nothing at tensor_parallel_degree 1");
		}
	}
	integer(c, (e = get(c, "parallelism", "pipeline_parallel_degree")), 1, &pp);
	setu(c, "parallel.pp", (unsigned long long)pp, e, "no pipeline_parallel_degree (1)");
	integer(c, (e = get(c, "parallelism", "context_parallel_degree")), 1, &cp);
	setu(c, "parallel.cp", (unsigned long long)cp, e, "no context_parallel_degree (1)");
	{
		/* expert_parallel_degree (configs.py:282, 1): the experts over
		 * ep ranks borrowed from dp_shard x cp x tp, which training.
		 * framework torchtitan prices (docs/config.md rule 11) */
		long long ep = 1;
		struct entry *ee = get(c, "parallelism", "expert_parallel_degree");
		integer(c, ee, 1, &ep);
		if (ee && ep > 1)
			setu(c, "parallel.ep", (unsigned long long)ep, ee, NULL);
		/* an older torchtitan's expert_tensor_parallel_degree (its stock
		 * MoE files spell 1): 1 splits no expert over tp, as torchtitan
		 * at b5bcd76c does with ep (rule 11); more is not modelled */
		ee = get(c, "parallelism", "expert_tensor_parallel_degree");
		if (ee && integer(c, ee, 1, &ep) == 0 && ep > 1)
			merr(c, ee, "%lld splits each expert over tensor-parallel ranks, which the torchtitan distcalc "
				    "follows (b5bcd76c) no longer runs and distcalc does not price under training.framework "
				    "torchtitan; give 1 (the experts whole)",
			     ep);
	}
	if (shard > 0) {
		unsigned long long dp = (unsigned long long)rep * (unsigned long long)shard;
		setu(c, "parallel.dp", dp, es, NULL);
	}
	/* -1: the ranks left, which the loader derives as dp */
	if (shard == 1 && rep == 1)
		sets(c, "parallel.sharding", "none", es, NULL);
	else
		sets(c, "parallel.sharding", "fsdp", es, "no data_parallel_shard_degree (-1: FSDP over the ranks left)");
	if ((e = get(c, "parallelism", "fsdp_reshard_after_forward")) && (s = str(c, e))) {
		if (strcmp(s, "always") == 0)
			setj(c, "parallel.reshard_after_forward", "true", e, NULL);
		else if (strcmp(s, "never") == 0)
			setj(c, "parallel.reshard_after_forward", "false", e, NULL);
		else if (strcmp(s, "default") != 0)
			merr(c, e, "expected \"default\", \"always\" or \"never\"");
	}
	if (!e || strcmp(e->text, "default") == 0)
		/* torchtitan's default: reshard unless pipelined */
		setj(c, "parallel.reshard_after_forward", pp > 1 ? "false" : "true", e,
		     "no fsdp_reshard_after_forward (default)");
	map_async_tp(c, tp);
	/* an older torchtitan's switch (b5bcd76c has none): true replicates
	 * the logits over the tp group before a whole loss, which distcalc
	 * does not price (its loss is vocabulary-parallel: tp.c) */
	if ((e = get(c, "parallelism", "disable_loss_parallel")) && e->type == T_BOOL && e->b && tp > 1)
		merr(c, e, "true gathers the logits over the tp group for a whole loss, which distcalc does not price (its "
			   "loss is vocabulary-parallel, three AllReduces a microbatch); remove it to import the rest");
	get(c, "parallelism", "enable_compiled_autograd");
	{
		int multi = 0, known = 1;
		if ((e = get(c, "parallelism", "pipeline_parallel_schedule")) && (s = str(c, e))) {
			if (strcmp(s, "1F1B") == 0) {
				sets(c, "parallel.pipeline_schedule", "1f1b", e, NULL);
			} else if (strcmp(s, "Interleaved1F1B") == 0) {
				multi = 1; /* interleaved and its chunks: map_stage_split */
			} else {
				known = 0;
				merr(c, e, "\"%s\" is not mapped (1F1B, Interleaved1F1B; give the others with --set "
					   "parallel.pipeline_schedule and parallel.virtual_pipeline)",
				     s);
			}
		}
		if ((e = get(c, "parallelism", "pipeline_parallel_split_points")) && e->type == T_ARRAY && e->i > 0)
			merr(c, e, "not mapped; give the stages' layers with --set parallel.pipeline_layers=[...]");
		else if (known)
			map_stage_split(c, pp, multi);
	}
	if ((e = get(c, "parallelism", "pipeline_parallel_schedule_csv")) && e->type == T_STRING && e->text[0])
		merr(c, e, "not mapped: a schedule from a file");
	if ((e = get(c, "parallelism", "context_parallel_rotate_method")) && (s = str(c, e))) {
		if (strcmp(s, "allgather") == 0)
			sets(c, "parallel.cp_comm_type", "all_gather", e, NULL);
		else if (strcmp(s, "alltoall") == 0)
			sets(c, "parallel.cp_comm_type", "p2p", e, NULL);
		else
			merr(c, e, "expected \"allgather\" or \"alltoall\"");
	} else if (cp > 1) {
		sets(c, "parallel.cp_comm_type", "all_gather", NULL, "no context_parallel_rotate_method (allgather)");
	}
	return pp;
}

static void map_ac(struct tctx *c)
{
	const char *table = "activation_checkpoint";
	struct entry *m, *o;
	const char *mode = "selective", *opt = "2";
	if (!get(c, table, "mode") && !get(c, table, "selective_ac_option"))
		table = "activation_checkpointing"; /* the later name of the table */
	m = get(c, table, "mode");
	o = get(c, table, "selective_ac_option");
	if (m && !(mode = str(c, m)))
		return;
	if (o && !(opt = str(c, o)))
		return;
	if (strcmp(mode, "none") == 0) {
		sets(c, "training.recompute", "none", m, NULL);
	} else if (strcmp(mode, "full") == 0) {
		sets(c, "training.recompute", "full", m, NULL);
	} else if (strcmp(mode, "selective") != 0) {
		merr(c, m, "expected \"none\", \"selective\" or \"full\", got \"%s\"", mode);
	} else if (strcmp(opt, "op") == 0) {
		sets(c, "training.recompute", "op", o, NULL);
	} else if (strcmp(opt, "1") == 0) {
		sets(c, "training.recompute", "full", o, NULL); /* every layer */
	} else {
		char at[600];
		/* every n-th layer: distcalc recomputes the first k of a stage */
		if (o)
			merr(c, o, "\"%s\" (every n-th layer) is not mapped; give --set training.recompute=full --set "
				   "training.recompute_layers=K (K the layers of a stage it recomputes)",
			     opt);
		else
			dc_diag_error(c->t->diag, DC_ERR_CONFIG,
				      "%s: error: [activation_checkpoint] selective_ac_option: torchtitan's default \"2\" "
				      "(every second layer) is not mapped; give mode or selective_ac_option, or --set "
				      "training.recompute",
				      dc_import_where(at, sizeof(at), c->t->name, m ? m->line : 0)),
				c->errors++;
	}
}

/* Tables whose keys change nothing distcalc computes. */
static const char *const ignored_tables[] = {"job", "profiling", "metrics", "lr_scheduler", "checkpoint", "comm",
					     "memory_estimation", "fault_tolerance", "experimental", "validation", NULL};
/* Keys of mapped tables that change nothing distcalc computes. */
static const char *const ignored_keys[] = {
	"training.dataset", "training.dataset_path", "training.max_norm", "training.steps",
	"training.gc_freq", "training.seed", "training.deterministic", "optimizer.lr", "optimizer.eps",
	"optimizer.weight_decay", "optimizer.beta1",
	"optimizer.beta2", "float8.enable_fsdp_float8_all_gather", "float8.precompute_float8_dynamic_scale_for_fsdp",
	"float8.force_recompute_fp8_weight_in_bwd", "float8.recipe_name", "float8.filter_fqns",
	/* [mx] (job_config.py:594-618 at 08b8b244f): its cast kernel (distcalc
	 * prices the bytes a cast moves, not which kernel moves them); the MoE
	 * experts it converts (distcalc prices the experts in FP8 with the
	 * other linears); recipe_name and filter_fqns without the converter */
	"mx.mxfp8_dim1_cast_kernel_choice", "mx.moe_fqns_prototype", "mx.recipe_name", "mx.filter_fqns",
	/* the [quantize.*] tables of torchtitan 8a2686c4a to 238fa9953
	 * (job_config.py:731-835 at 238fa9953) without their converter in
	 * [model] converters: torchtitan reads them only for it (every
	 * shipped TOML of that span has them, the converter commented out) */
	"quantize.linear.float8.enable_fsdp_float8_all_gather",
	"quantize.linear.float8.precompute_float8_dynamic_scale_for_fsdp", "quantize.linear.float8.recipe_name",
	"quantize.linear.float8.filter_fqns", "quantize.linear.float8.emulate",
	"quantize.linear.mx.mxfp8_dim1_cast_kernel_choice", "quantize.linear.mx.recipe_name",
	"quantize.linear.mx.filter_fqns", "quantize.grouped_mm.float8.fqns", "quantize.grouped_mm.mx.recipe_name",
	"quantize.grouped_mm.mx.fqns", NULL,
};

int dc_import_torchtitan(const char *buf, size_t len, const char *name, struct dc_import *imp, struct dc_diag *diag)
{
	struct toml t;
	struct tctx c;
	struct entry *e;
	long long pp;
	int early = 0;

	memset(&t, 0, sizeof(t));
	t.name = name;
	t.p = buf;
	t.end = buf + len;
	t.line = 1;
	t.diag = diag;
	if (parse(&t) != 0) {
		free(t.e);
		return -1;
	}
	c.t = &t;
	c.imp = imp;
	c.errors = 0;
	c.mx = NULL;
	c.mx_newer = 0;
	c.gmm_float8 = NULL;
	c.layers = 0;
	c.nasked = 0;
	map_model(&c);
	pp = map_parallel(&c);
	check_converters(&c);
	map_training(&c, pp);
	map_ac(&c);
	/* whose overlap rules (docs/step-model.md, "Framework rules"); --set
	 * training.framework replaces it */
	setj(&c, "training.framework", "\"torchtitan\"", NULL, "torchtitan job config");
	if ((e = get(&c, "optimizer", "name")) && str(&c, e) && strcmp(e->text, "AdamW") != 0 &&
	    strcmp(e->text, "Adam") != 0)
		merr(&c, e, "\"%s\" is not mapped (distcalc's optimizer states are Adam's two moments)", e->text);
	/* [optimizer] implementation (components/optimizer/optimizer.py:109-
	 * 111 at b5bcd76c, "fused" by default): fused and foreach are
	 * training.optimizer_implementation's; for-loop (a kernel a
	 * parameter) and fused_opt_states_bf16 (BF16 moments) are not
	 * priced */
	if ((e = get(&c, "optimizer", "implementation")) && str(&c, e)) {
		if (strcmp(e->text, "fused") == 0 || strcmp(e->text, "foreach") == 0)
			setj(&c, "training.optimizer_implementation", strcmp(e->text, "fused") == 0 ? "\"fused\"" : "\"foreach\"",
			     e, NULL);
		else if (strcmp(e->text, "for-loop") == 0 || strcmp(e->text, "fused_opt_states_bf16") == 0)
			merr(&c, e, "\"%s\" is not priced (%s); use \"fused\" or \"foreach\"", e->text,
			     strcmp(e->text, "for-loop") == 0 ? "it runs a kernel a parameter"
							      : "its Adam moments in BF16 are not a distcalc precision");
		else
			merr(&c, e, "expected \"fused\", \"foreach\", \"for-loop\" or \"fused_opt_states_bf16\", got \"%s\"",
			     e->text);
	}
	if ((e = get(&c, "optimizer", "early_step_in_backward")) && boolean(&c, e, &early) == 0 && early)
		mwarn(&c, e, "not modelled: each parameter's optimizer step runs in the backward as its gradient "
			     "arrives and frees it, which distcalc's ledger and step do not price (the step after the "
			     "backward, every gradient held until then)");
	if ((e = get(&c, "float8", "enable_fsdp_float8_all_gather")) && e->type == T_BOOL && e->b)
		mwarn(&c, e, "not modelled: distcalc gathers the parameters at precision.working_bytes");
	/* an older torchtitan's layout in [experimental] (its 2024
	 * config_manager.py held the pipeline, context-parallel and async-TP
	 * switches there before [parallelism] and [compile] took them):
	 * refused, naming the later home, never left out with the table */
	for (size_t i = 0; i < t.n; i++) {
		static const char *const moved[][2] = {
			{"pipeline_parallel_degree", "[parallelism] pipeline_parallel_degree"},
			{"pipeline_parallel_split_points", "[parallelism] pipeline_parallel_split_points"},
			{"pipeline_parallel_schedule", "[parallelism] pipeline_parallel_schedule"},
			{"pipeline_parallel_microbatches", "[parallelism] pipeline_parallel_microbatch_size (the samples a microbatch holds: the count is the local batch over it)"},
			{"context_parallel_degree", "[parallelism] context_parallel_degree"},
			{"context_parallel_rotate_method", "[parallelism] context_parallel_rotate_method"},
			{"enable_async_tensor_parallel", "[compile] enable_async_tensor_parallel"},
		};
		if (strcmp(t.e[i].table, "experimental") != 0)
			continue;
		for (size_t k = 0; k < sizeof(moved) / sizeof(moved[0]); k++)
			if (strcmp(t.e[i].key, moved[k][0]) == 0) {
				merr(&c, &t.e[i], "an older torchtitan's [experimental] setting, which changes the layout: "
						  "later torchtitans read it as %s; give it there (docs/importers.md says "
						  "what distcalc maps of it)",
				     moved[k][1]);
				t.e[i].used = 1;
			}
	}
	/* everything else: an ignored table or key, else an error naming it */
	for (size_t i = 0; i < t.n; i++) {
		char path[2 * MAX_KEY + 2];
		int ok = t.e[i].used;
		snprintf(path, sizeof(path), "%s.%s", t.e[i].table, t.e[i].key);
		for (size_t k = 0; !ok && ignored_tables[k]; k++)
			ok = strcmp(t.e[i].table, ignored_tables[k]) == 0 ||
			     (strncmp(t.e[i].table, ignored_tables[k], strlen(ignored_tables[k])) == 0 &&
			      t.e[i].table[strlen(ignored_tables[k])] == '.');
		for (size_t k = 0; !ok && ignored_keys[k]; k++)
			ok = strcmp(path, ignored_keys[k]) == 0;
		if (!ok) {
			/* a slip of a setting the mapping reads, within two
			 * edits, in the same table */
			const char *near = NULL;
			size_t best = 3;
			for (size_t k = 0; k < c.nasked; k++) {
				size_t d;
				if (strcmp(c.asked_table[k], t.e[i].table) != 0)
					continue;
				d = dc_edit_distance(t.e[i].key, strlen(t.e[i].key), c.asked_key[k], 0);
				if (d > 0 && d < best) {
					best = d;
					near = c.asked_key[k];
				}
			}
			if (near)
				merr(&c, &t.e[i], "not a torchtitan setting distcalc maps or knows to change nothing it "
						  "computes (docs/importers.md lists both); did you mean %s?", near);
			else
				merr(&c, &t.e[i], "not a torchtitan setting distcalc maps or knows to change nothing it "
						  "computes (docs/importers.md lists both)");
		}
	}
	free(t.e);
	return c.errors ? -1 : 0;
}
