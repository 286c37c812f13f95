/* config.c - JSON config loader and validator; see config.h.
 *
 * The only module besides the JSON reporter that sees cJSON. Every key is a
 * row of one table (path, kind, where it lands in struct dc_config), so the
 * file walk, --set, unknown-key suggestions and docs/config.md follow the
 * same list.
 */
#define _POSIX_C_SOURCE 200809L

#include "distcalc/config.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "distcalc/hf.h"
#include "distcalc/memory.h"
#include "distcalc/params.h"
#include "distcalc/units.h"
#include "distcalc/util.h"

enum kkind {
	K_SECTION,   /* a JSON object holding more keys */
	K_COUNT,     /* integer >= 1 */
	K_UINT,      /* integer >= 0 */
	K_BYTES,     /* byte quantity >= 0 */
	K_BYTES_POS, /* byte quantity >= 1 */
	K_BW,        /* bandwidth > 0 */
	K_TIME,      /* time >= 0 */
	K_BOOL,
	K_ENUM,      /* string from names[] stored as int */
	K_ORDER,     /* parallel.order */
	K_FRACTION,  /* number in [0, 1) */
	K_REAL,      /* number >= 0 */
	K_STRING,    /* free text (descriptions) */
};

struct key {
	const char *path;
	enum kkind kind;
	size_t off;
	const char *const *names;
	int required; /* 1: required; 2: required unless a Hugging Face config gives the shape */
};

static const char *const mlp_names[] = {"swiglu", "gelu", NULL};
static const char *const norm_names[] = {"rmsnorm", "layernorm", NULL};
static const char *const sharding_names[] = {"none", "zero1", "zero2", "fsdp", NULL};
static const char *const fsdp_unit_names[] = {"layer", "model", NULL};
static const char *const recompute_names[] = {"none", "selective", "full", NULL};
static const char *const link_names[] = {"auto", "intra_node", "inter_node", NULL};
static const char *const axis_names[] = {"tp", "cp", "ep", "dp", "pp", NULL};

#define OFF(field) offsetof(struct dc_config, field)
#define NOFF ((size_t)-1)

static const struct key keys[] = {
	{"description", K_STRING, NOFF, NULL, 0},
	{"model", K_SECTION, NOFF, NULL, 2},
	{"model.hf_config", K_STRING, NOFF, NULL, 0},
	{"model.num_layers", K_COUNT, OFF(model.num_layers), NULL, 2},
	{"model.hidden_size", K_COUNT, OFF(model.hidden_size), NULL, 2},
	{"model.num_attention_heads", K_COUNT, OFF(model.num_attention_heads), NULL, 2},
	{"model.num_kv_heads", K_COUNT, OFF(model.num_kv_heads), NULL, 0},
	{"model.head_dim", K_COUNT, OFF(model.head_dim), NULL, 0},
	{"model.ffn_hidden_size", K_COUNT, OFF(model.ffn_hidden_size), NULL, 0},
	{"model.vocab_size", K_COUNT, OFF(model.vocab_size), NULL, 2},
	{"model.seq_length", K_COUNT, OFF(model.seq_length), NULL, 1},
	{"model.mlp", K_ENUM, OFF(model.mlp), mlp_names, 0},
	{"model.tie_word_embeddings", K_BOOL, OFF(model.tie_word_embeddings), NULL, 0},
	{"model.params", K_COUNT, OFF(model.params), NULL, 0},
	{"model.norm", K_ENUM, OFF(model.norm), norm_names, 0},
	{"model.qkv_bias", K_BOOL, OFF(model.qkv_bias), NULL, 0},
	{"model.out_bias", K_BOOL, OFF(model.out_bias), NULL, 0},
	{"model.mlp_bias", K_BOOL, OFF(model.mlp_bias), NULL, 0},
	{"model.qk_norm", K_BOOL, OFF(model.qk_norm), NULL, 0},
	{"model.position_embeddings", K_UINT, OFF(model.position_embeddings), NULL, 0},
	{"model.num_experts", K_UINT, OFF(model.num_experts), NULL, 0},
	{"model.experts_per_token", K_COUNT, OFF(model.experts_per_token), NULL, 0},
	{"model.moe_ffn_hidden_size", K_COUNT, OFF(model.moe_ffn_hidden_size), NULL, 0},
	{"model.shared_expert_ffn_hidden_size", K_UINT, OFF(model.shared_expert_ffn_hidden_size), NULL, 0},
	{"model.shared_expert_gate", K_BOOL, OFF(model.shared_expert_gate), NULL, 0},
	{"model.router_bias", K_BOOL, OFF(model.router_bias), NULL, 0},
	{"model.dense_layers", K_UINT, OFF(model.dense_layers), NULL, 0},
	{"model.q_lora_rank", K_UINT, OFF(model.q_lora_rank), NULL, 0},
	{"model.kv_lora_rank", K_UINT, OFF(model.kv_lora_rank), NULL, 0},
	{"model.qk_rope_head_dim", K_COUNT, OFF(model.qk_rope_head_dim), NULL, 0},
	{"model.qk_nope_head_dim", K_COUNT, OFF(model.qk_nope_head_dim), NULL, 0},
	{"model.v_head_dim", K_COUNT, OFF(model.v_head_dim), NULL, 0},
	{"cluster", K_SECTION, NOFF, NULL, 1},
	{"cluster.num_nodes", K_COUNT, OFF(cluster.num_nodes), NULL, 1},
	{"cluster.gpus_per_node", K_COUNT, OFF(cluster.gpus_per_node), NULL, 1},
	{"cluster.gpu_memory", K_BYTES_POS, OFF(cluster.gpu_mem_bytes), NULL, 1},
	{"cluster.intra_node", K_SECTION, NOFF, NULL, 1},
	{"cluster.intra_node.bandwidth", K_BW, OFF(cluster.intra_node.bw_bytes_per_s), NULL, 1},
	{"cluster.intra_node.latency", K_TIME, OFF(cluster.intra_node.latency_s), NULL, 0},
	{"cluster.inter_node", K_SECTION, NOFF, NULL, 1},
	{"cluster.inter_node.bandwidth", K_BW, OFF(cluster.inter_node.bw_bytes_per_s), NULL, 1},
	{"cluster.inter_node.latency", K_TIME, OFF(cluster.inter_node.latency_s), NULL, 0},
	{"parallel", K_SECTION, NOFF, NULL, 0},
	{"parallel.dp", K_COUNT, OFF(parallel.dp), NULL, 0},
	{"parallel.tp", K_COUNT, OFF(parallel.tp), NULL, 0},
	{"parallel.pp", K_COUNT, OFF(parallel.pp), NULL, 0},
	{"parallel.ep", K_COUNT, OFF(parallel.ep), NULL, 0},
	{"parallel.order", K_ORDER, NOFF, NULL, 0},
	{"parallel.sharding", K_ENUM, OFF(parallel.sharding), sharding_names, 0},
	{"parallel.reshard_after_forward", K_BOOL, OFF(parallel.reshard_after_forward), NULL, 0},
	{"parallel.sequence_parallel", K_BOOL, OFF(parallel.sequence_parallel), NULL, 0},
	{"parallel.virtual_pipeline", K_COUNT, OFF(parallel.virtual_pipeline), NULL, 0},
	{"parallel.fsdp_unit", K_ENUM, OFF(parallel.fsdp_unit), fsdp_unit_names, 0},
	{"parallel.bucket_size", K_BYTES_POS, OFF(parallel.bucket_bytes), NULL, 0},
	{"training", K_SECTION, NOFF, NULL, 0},
	{"training.micro_batch_size", K_COUNT, OFF(training.micro_batch_size), NULL, 0},
	{"training.grad_accum_steps", K_COUNT, OFF(training.grad_accum_steps), NULL, 0},
	{"training.recompute", K_ENUM, OFF(training.recompute), recompute_names, 0},
	{"precision", K_SECTION, NOFF, NULL, 0},
	{"precision.param_bytes", K_COUNT, OFF(precision.param_bytes), NULL, 0},
	{"precision.grad_bytes", K_COUNT, OFF(precision.grad_bytes), NULL, 0},
	{"precision.master_bytes", K_UINT, OFF(precision.master_bytes), NULL, 0},
	{"precision.optimizer_bytes", K_UINT, OFF(precision.optimizer_bytes), NULL, 0},
	{"collective", K_SECTION, NOFF, NULL, 0},
	{"collective.ranks", K_COUNT, OFF(collective.ranks), NULL, 0},
	{"collective.message_size", K_BYTES_POS, OFF(collective.msg_bytes), NULL, 0},
	{"collective.link", K_ENUM, OFF(collective.link), link_names, 0},
	{"memory", K_SECTION, NOFF, NULL, 0},
	{"memory.cuda_context", K_BYTES, OFF(memory.cuda_context_bytes), NULL, 0},
	{"memory.comm_buffers", K_BYTES, OFF(memory.comm_buffer_bytes), NULL, 0},
	{"memory.workspace", K_BYTES, OFF(memory.workspace_bytes), NULL, 0},
	{"memory.allocator_reserve", K_FRACTION, OFF(memory.allocator_reserve), NULL, 0},
	{"memory.activation_bytes_per_token_per_layer", K_REAL,
	 OFF(memory.activation_bytes_per_token_per_layer), NULL, 0},
};

#define NKEYS (sizeof(keys) / sizeof(keys[0]))
#define MAX_ERRORS 50

enum key_index_hint { KI_NONE = -1 };

struct loader {
	const char *name;      /* file name for messages */
	const char *buf;       /* the text (for line/col) */
	size_t len;
	struct dc_config *cfg;
	struct dc_diag *diag;
	int seen[NKEYS];       /* key present (file or --set) */
	int from_set[NKEYS];   /* last value came from --set */
	size_t errors;
	char got[96];          /* describe()'s text for the message being built */
	const char *dir;       /* the config file's directory; NULL: the current one */
	char hf_path[DC_CONFIG_MAX_STRING + 1]; /* model.hf_config as written */
	int hf_loaded;         /* the shape came from a Hugging Face config */
	const struct dc_load_opts *opts;
};

static int find_key(const char *path)
{
	for (size_t i = 0; i < NKEYS; i++)
		if (strcmp(keys[i].path, path) == 0)
			return (int)i;
	return -1;
}

static const char *origin(const struct loader *l, int ki)
{
	return ki >= 0 && l->from_set[ki] ? "--set" : l->name;
}

static void errorf(struct loader *l, int ki, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void errorf(struct loader *l, int ki, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	l->errors++;
	if (l->errors > MAX_ERRORS) {
		if (l->errors == MAX_ERRORS + 1)
			dc_diag_error(l->diag, DC_ERR_CONFIG, "%s: error: too many errors; stopping after %d",
				      l->name, MAX_ERRORS);
		return;
	}
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	/* keys and strings from the file may hold escaped control characters:
	 * never send them to a terminal */
	for (char *p = msg; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			*p = '?';
	dc_diag_error(l->diag, DC_ERR_CONFIG, "%s: error: %s", origin(l, ki), msg);
}

static void warnf(struct loader *l, int ki, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* A value that is valid but probably not what was meant. */
static void warnf(struct loader *l, int ki, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	dc_diag_warn(l->diag, "%s: %s", origin(l, ki), msg);
}

/* ---- positions and syntax errors ---- */

static void line_col(const char *buf, size_t len, size_t pos, size_t *line, size_t *col,
		     size_t *line_start)
{
	size_t ln = 1, ls = 0;
	for (size_t i = 0; i < pos && i < len; i++)
		if (buf[i] == '\n') {
			ln++;
			ls = i + 1;
		}
	*line = ln;
	*col = pos - ls + 1;
	*line_start = ls;
}

static void syntax_error(struct loader *l, size_t pos, const char *what)
{
	size_t line, col, ls, le;
	char shown[121];
	size_t n, caret;

	if (pos > l->len)
		pos = l->len;
	line_col(l->buf, l->len, pos, &line, &col, &ls);
	for (le = ls; le < l->len && l->buf[le] != '\n' && l->buf[le] != '\r'; le++)
		;
	/* show at most 120 characters of the line, keeping the caret in view */
	n = le - ls;
	caret = pos - ls;
	if (n > 120) {
		size_t start = caret > 60 ? caret - 60 : 0;
		if (start + 120 > n)
			start = n - 120;
		ls += start;
		caret -= start;
		n = 120;
	}
	memcpy(shown, l->buf + ls, n);
	shown[n] = '\0';
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)shown[i] < 0x20)
			shown[i] = ' ';
	l->errors++;
	dc_diag_error(l->diag, DC_ERR_CONFIG, "%s:%zu:%zu: error: %s\n%s\n%*s^", l->name, line, col,
		      what, shown, (int)caret, "");
}

static int is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* ---- strict syntax check ----
 *
 * cJSON is lenient (it takes "+1", "01", raw newlines in strings, invalid
 * UTF-8) and says only where it stopped, sometimes one byte late. So the
 * text is first checked against RFC 8259 here, which finds the first error's
 * exact place and names it; cJSON then parses only text that passed. */

#define JSON_MAX_DEPTH 64

struct scan {
	const char *s;
	size_t len, pos;
	size_t err_pos;
	char what[160];
	int failed;
};

static int scan_fail(struct scan *sc, size_t pos, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static int scan_fail(struct scan *sc, size_t pos, const char *fmt, ...)
{
	va_list ap;
	if (sc->failed)
		return -1;
	sc->failed = 1;
	sc->err_pos = pos;
	va_start(ap, fmt);
	vsnprintf(sc->what, sizeof(sc->what), fmt, ap);
	va_end(ap);
	return -1;
}

static void scan_ws(struct scan *sc)
{
	while (sc->pos < sc->len && is_space(sc->s[sc->pos]))
		sc->pos++;
}

/* Names the unexpected byte at sc->pos where a value (or `want`) should be. */
static int scan_unexpected(struct scan *sc, const char *want)
{
	size_t p = sc->pos;
	unsigned char c;

	if (p >= sc->len)
		return scan_fail(sc, p, "unexpected end of input: an object or array is not closed");
	c = (unsigned char)sc->s[p];
	if (c == '\'')
		return scan_fail(sc, p, "strings take double quotes, not single quotes");
	if (c == '/')
		return scan_fail(sc, p, "JSON has no comments; use a \"description\" key for notes");
	if (c < 0x20 || c == 0x7f)
		return scan_fail(sc, p, "%s, got control character 0x%02x", want, (unsigned)c);
	if (c >= 0x80)
		return scan_fail(sc, p, "%s, got byte 0x%02x", want, (unsigned)c);
	return scan_fail(sc, p, "%s, got '%c'", want, c);
}

static int is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static int scan_digits(struct scan *sc, const char *what)
{
	if (sc->pos >= sc->len || !is_digit(sc->s[sc->pos]))
		return scan_fail(sc, sc->pos, "expected a digit %s", what);
	while (sc->pos < sc->len && is_digit(sc->s[sc->pos]))
		sc->pos++;
	return 0;
}

static int scan_number(struct scan *sc)
{
	size_t start = sc->pos;
	if (sc->s[sc->pos] == '-')
		sc->pos++;
	if (sc->pos < sc->len && sc->s[sc->pos] == '0') {
		sc->pos++;
		if (sc->pos < sc->len && is_digit(sc->s[sc->pos]))
			return scan_fail(sc, start, "numbers must not have leading zeros");
	} else if (scan_digits(sc, sc->s[start] == '-' ? "after '-'" : "") != 0) {
		return -1;
	}
	if (sc->pos < sc->len && sc->s[sc->pos] == '.') {
		sc->pos++;
		if (scan_digits(sc, "after '.'") != 0)
			return -1;
	}
	if (sc->pos < sc->len && (sc->s[sc->pos] == 'e' || sc->s[sc->pos] == 'E')) {
		sc->pos++;
		if (sc->pos < sc->len && (sc->s[sc->pos] == '+' || sc->s[sc->pos] == '-'))
			sc->pos++;
		if (scan_digits(sc, "in the exponent") != 0)
			return -1;
	}
	return 0;
}

static int hex4(const char *p, unsigned *out)
{
	unsigned v = 0;
	for (int i = 0; i < 4; i++) {
		char c = p[i];
		v <<= 4;
		if (c >= '0' && c <= '9')
			v |= (unsigned)(c - '0');
		else if (c >= 'a' && c <= 'f')
			v |= (unsigned)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			v |= (unsigned)(c - 'A' + 10);
		else
			return -1;
	}
	*out = v;
	return 0;
}

/* Length of the valid UTF-8 sequence at s[0..n), or 0 (RFC 3629: no
 * overlongs, no surrogates, nothing above U+10FFFF). */
static size_t utf8_len(const unsigned char *s, size_t n)
{
	size_t len;
	unsigned cp;
	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		len = 2, cp = s[0] & 0x1fu;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		len = 3, cp = s[0] & 0x0fu;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		len = 4, cp = s[0] & 0x07u;
	else
		return 0;
	if (len > n)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3fu);
	}
	if ((len == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) ||
	    (len == 4 && (cp < 0x10000 || cp > 0x10ffff)))
		return 0;
	return len;
}

static int scan_string(struct scan *sc)
{
	size_t start = sc->pos;
	sc->pos++; /* the opening quote */
	while (sc->pos < sc->len) {
		unsigned char c = (unsigned char)sc->s[sc->pos];
		if (c == '"') {
			sc->pos++;
			return 0;
		}
		if (c == '\\') {
			unsigned u, lo;
			char e = sc->pos + 1 < sc->len ? sc->s[sc->pos + 1] : '\0';
			if (e && strchr("\"\\/bfnrt", e)) {
				sc->pos += 2;
				continue;
			}
			if (e != 'u')
				return scan_fail(sc, sc->pos, "invalid escape in a string: use \\\", \\\\, \\/, \\b, \\f, \\n, \\r, \\t or \\uXXXX");
			if (sc->pos + 6 > sc->len || hex4(sc->s + sc->pos + 2, &u) != 0)
				return scan_fail(sc, sc->pos, "expected 4 hex digits after \\u");
			if (u == 0)
				return scan_fail(sc, sc->pos, "\\u0000 is not allowed in a config string");
			if (u >= 0xdc00 && u <= 0xdfff)
				return scan_fail(sc, sc->pos, "\\u%04X is a lone low surrogate", u);
			if (u >= 0xd800 && u <= 0xdbff) {
				if (sc->pos + 12 > sc->len || sc->s[sc->pos + 6] != '\\' || sc->s[sc->pos + 7] != 'u' ||
				    hex4(sc->s + sc->pos + 8, &lo) != 0 || lo < 0xdc00 || lo > 0xdfff)
					return scan_fail(sc, sc->pos, "\\u%04X must be followed by a low surrogate \\uDC00..\\uDFFF", u);
				sc->pos += 6;
			}
			sc->pos += 6;
			continue;
		}
		if (c < 0x20)
			return scan_fail(sc, sc->pos, "control character 0x%02x in a string: write it as an escape such as \\n or \\t",
					 (unsigned)c);
		if (c >= 0x80) {
			size_t n = utf8_len((const unsigned char *)sc->s + sc->pos, sc->len - sc->pos);
			if (n == 0)
				return scan_fail(sc, sc->pos, "invalid UTF-8 byte 0x%02x in a string", (unsigned)c);
			sc->pos += n;
			continue;
		}
		sc->pos++;
	}
	return scan_fail(sc, start, "unexpected end of input: this string is not closed");
}

static int scan_value(struct scan *sc, int depth);

static int scan_container(struct scan *sc, int depth)
{
	int object = sc->s[sc->pos] == '{';
	char close = object ? '}' : ']';
	size_t open = sc->pos, comma = 0;
	int n = 0;

	if (depth >= JSON_MAX_DEPTH)
		return scan_fail(sc, sc->pos, "nesting is deeper than %d levels", JSON_MAX_DEPTH);
	sc->pos++;
	for (;;) {
		scan_ws(sc);
		if (sc->pos >= sc->len)
			return scan_fail(sc, open, "unexpected end of input: this %s is not closed",
					 object ? "object" : "array");
		if (sc->s[sc->pos] == close) {
			if (n > 0)
				return scan_fail(sc, comma, "trailing comma: JSON does not allow ',' before '%c'", close);
			sc->pos++;
			return 0;
		}
		if (object) {
			if (sc->s[sc->pos] != '"')
				return scan_unexpected(sc, n ? "expected a key in double quotes after ','"
							     : "expected a key in double quotes or '}'");
			if (scan_string(sc) != 0)
				return -1;
			scan_ws(sc);
			if (sc->pos >= sc->len || sc->s[sc->pos] != ':')
				return scan_unexpected(sc, "expected ':' after the key");
			sc->pos++;
			scan_ws(sc);
		}
		if (scan_value(sc, depth + 1) != 0)
			return -1;
		n++;
		scan_ws(sc);
		if (sc->pos >= sc->len)
			return scan_fail(sc, open, "unexpected end of input: this %s is not closed",
					 object ? "object" : "array");
		if (sc->s[sc->pos] == close) {
			sc->pos++;
			return 0;
		}
		if (sc->s[sc->pos] != ',') {
			if (object && sc->s[sc->pos] == '"')
				return scan_fail(sc, sc->pos, "expected ',' or '}' before this key");
			return scan_unexpected(sc, object ? "expected ',' or '}'" : "expected ',' or ']'");
		}
		comma = sc->pos++;
	}
}

/* Does the text at sc->pos start with `w`? */
static int scan_at(const struct scan *sc, const char *w)
{
	size_t n = strlen(w);
	return sc->pos + n <= sc->len && memcmp(sc->s + sc->pos, w, n) == 0;
}

static int scan_value(struct scan *sc, int depth)
{
	static const char *const literals[] = {"true", "false", "null"};
	char c;
	if (sc->pos >= sc->len)
		return scan_fail(sc, sc->pos, "unexpected end of input: expected a value");
	c = sc->s[sc->pos];
	if (c == '{' || c == '[')
		return scan_container(sc, depth);
	if (c == '"')
		return scan_string(sc);
	if (scan_at(sc, "NaN") || scan_at(sc, "Infinity") || scan_at(sc, "-Infinity"))
		return scan_fail(sc, sc->pos, "non-finite numbers are not allowed");
	if (c == '-' || is_digit(c))
		return scan_number(sc);
	for (size_t i = 0; i < sizeof(literals) / sizeof(literals[0]); i++)
		if (scan_at(sc, literals[i])) {
			sc->pos += strlen(literals[i]);
			return 0;
		}
	if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'))
		return scan_fail(sc, sc->pos, "expected a value: strings need double quotes");
	if (c == '+')
		return scan_fail(sc, sc->pos, "numbers must not start with '+'");
	if (c == '.')
		return scan_fail(sc, sc->pos, "numbers need a digit before '.'");
	return scan_unexpected(sc, "expected a value");
}

/* Checks `len` bytes as one JSON text. Returns 0, or -1 with the first
 * problem in sc. A UTF-8 byte-order mark at the start is skipped. */
static int scan_text(struct scan *sc, const char *s, size_t len)
{
	char first;

	memset(sc, 0, sizeof(*sc));
	sc->s = s;
	sc->len = len;
	if (len >= 3 && memcmp(s, "\xef\xbb\xbf", 3) == 0)
		sc->pos = 3;
	scan_ws(sc);
	first = sc->pos < len ? s[sc->pos] : '\0';
	if (scan_value(sc, 0) != 0)
		return -1;
	scan_ws(sc);
	if (sc->pos < sc->len)
		return scan_fail(sc, sc->pos, "trailing data after the JSON %s", first == '{' ? "object" : "value");
	return 0;
}

/* ---- suggestions ---- */

static size_t edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	size_t row[64];
	if (la >= 63 || lb >= 63)
		return 99;
	for (size_t j = 0; j <= lb; j++)
		row[j] = j;
	for (size_t i = 1; i <= la; i++) {
		size_t diag = row[0];
		row[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t up = row[j];
			size_t best = diag + (a[i - 1] != b[j - 1]);
			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			row[j] = best;
			diag = up;
		}
	}
	return row[lb];
}

static const char *last_part(const char *path)
{
	const char *dot = strrchr(path, '.');
	return dot ? dot + 1 : path;
}

/* Is keys[i] a direct child of the section `prefix` ("" for top level)? */
static int is_child(size_t i, const char *prefix)
{
	size_t pl = strlen(prefix);
	const char *p = keys[i].path;
	if (pl == 0)
		return strchr(p, '.') == NULL;
	return strncmp(p, prefix, pl) == 0 && p[pl] == '.' && strchr(p + pl + 1, '.') == NULL;
}

/* The closest known key: first among the section's own keys, then any key
 * elsewhere whose last part matches exactly. */
static const char *suggest(const char *prefix, const char *name)
{
	size_t best = 99, bi = 0;
	for (size_t i = 0; i < NKEYS; i++) {
		if (!is_child(i, prefix))
			continue;
		size_t d = edit_distance(name, last_part(keys[i].path));
		if (d < best) {
			best = d;
			bi = i;
		}
	}
	size_t nl = strlen(name);
	if (best <= 2 || (best <= 3 && nl > 6) || (nl > 0 && best * 3 <= nl))
		return keys[bi].path;
	for (size_t i = 0; i < NKEYS; i++)
		if (strcmp(last_part(keys[i].path), name) == 0)
			return keys[i].path;
	return NULL;
}

/* ---- values ---- */

static const char *type_name(const cJSON *v)
{
	if (cJSON_IsNull(v))
		return "null";
	if (cJSON_IsBool(v))
		return "a boolean";
	if (cJSON_IsNumber(v))
		return "a number";
	if (cJSON_IsString(v))
		return "a string";
	if (cJSON_IsArray(v))
		return "an array";
	if (cJSON_IsObject(v))
		return "an object";
	return "an unknown value";
}

/* Shortest "%.*g" text that reads back to the same double, so a message
 * never shows 1.0000001 as "1". */
static void fmt_num(char *buf, size_t len, double v)
{
	for (int prec = 15; prec <= 17; prec++) {
		snprintf(buf, len, "%.*g", prec, v);
		if (strtod(buf, NULL) == v)
			return;
	}
}

/* What the file holds, for "got X": the value itself when it is a scalar. */
static const char *describe(struct loader *l, const cJSON *v)
{
	if (cJSON_IsString(v)) {
		size_t n = strlen(v->valuestring);
		if (n > 40)
			snprintf(l->got, sizeof(l->got), "the string \"%.40s...\"", v->valuestring);
		else
			snprintf(l->got, sizeof(l->got), "the string \"%s\"", v->valuestring);
	} else if (cJSON_IsNumber(v) && isfinite(v->valuedouble)) {
		fmt_num(l->got, sizeof(l->got), v->valuedouble);
	} else if (cJSON_IsBool(v)) {
		snprintf(l->got, sizeof(l->got), "%s", cJSON_IsTrue(v) ? "true" : "false");
	} else {
		snprintf(l->got, sizeof(l->got), "%s", type_name(v));
	}
	return l->got;
}

static void *field(struct loader *l, const struct key *k)
{
	return (char *)l->cfg + k->off;
}

static int check_number(struct loader *l, int ki, const cJSON *v, double *out)
{
	const struct key *k = &keys[ki];
	double d = v->valuedouble;
	if (!isfinite(d)) {
		errorf(l, ki, "'%s': must be a finite number, got a number too large for a double", k->path);
		return -1;
	}
	*out = d;
	return 0;
}

static int read_integer(struct loader *l, int ki, const cJSON *v, uint64_t min, uint64_t *out)
{
	const struct key *k = &keys[ki];
	double d;
	char num[40];
	if (!cJSON_IsNumber(v)) {
		errorf(l, ki, "'%s': expected an integer, got %s", k->path, describe(l, v));
		return -1;
	}
	if (check_number(l, ki, v, &d) != 0)
		return -1;
	if (d != floor(d)) {
		fmt_num(num, sizeof(num), d);
		errorf(l, ki, "'%s': must be a whole number, got %s", k->path, num);
		return -1;
	}
	if (d < (double)min) {
		errorf(l, ki, "'%s': must be %s, got %.0f", k->path, min ? "at least 1" : "non-negative", d);
		return -1;
	}
	if (d >= DC_MAX_EXACT_INT) {
		/* the text may not be exactly d (2^53 + 1 reads as 2^53): say "about" */
		errorf(l, ki, "'%s': must be below 2^53 (9007199254740992), got about %.6g", k->path, d);
		return -1;
	}
	*out = (uint64_t)d;
	return 0;
}

static int read_bytes(struct loader *l, int ki, const cJSON *v, uint64_t min, uint64_t *out)
{
	const struct key *k = &keys[ki];
	char err[256];
	if (cJSON_IsString(v)) {
		if (dc_units_parse_bytes(v->valuestring, out, err, sizeof(err)) != 0) {
			errorf(l, ki, "'%s': %s", k->path, err);
			return -1;
		}
		if (*out < min) {
			errorf(l, ki, "'%s': must be at least 1 byte, got '%s'", k->path, v->valuestring);
			return -1;
		}
		return 0;
	}
	if (!cJSON_IsNumber(v)) {
		errorf(l, ki, "'%s': expected bytes as a number or a string like \"80 GiB\", got %s", k->path,
		       describe(l, v));
		return -1;
	}
	return read_integer(l, ki, v, min, out);
}

static int read_real(struct loader *l, int ki, const cJSON *v, enum dc_quantity q, double *out)
{
	const struct key *k = &keys[ki];
	char err[256];
	if (cJSON_IsString(v)) {
		int rc = q == DC_Q_BANDWIDTH ? dc_units_parse_bandwidth(v->valuestring, out, err, sizeof(err))
					     : dc_units_parse_time(v->valuestring, out, err, sizeof(err));
		if (rc != 0) {
			errorf(l, ki, "'%s': %s", k->path, err);
			return -1;
		}
	} else if (cJSON_IsNumber(v)) {
		if (check_number(l, ki, v, out) != 0)
			return -1;
	} else {
		errorf(l, ki, "'%s': expected %s, got %s", k->path,
		       q == DC_Q_BANDWIDTH ? "a bandwidth like \"50 GB/s\" or a number in bytes/s"
					   : "a time like \"5 us\" or a number in seconds",
		       describe(l, v));
		return -1;
	}
	if (q == DC_Q_BANDWIDTH && !(*out > 0)) {
		if (cJSON_IsString(v))
			errorf(l, ki, "'%s': must be positive, got \"%s\"", k->path, v->valuestring);
		else
			errorf(l, ki, "'%s': must be positive, got %s", k->path, describe(l, v));
		return -1;
	}
	if (q == DC_Q_TIME && *out < 0) {
		errorf(l, ki, "'%s': must not be negative, got %s", k->path, describe(l, v));
		return -1;
	}
	/* a plain number is in base units: flag the classic slip of writing
	 * the number of a unit string without the unit */
	if (cJSON_IsNumber(v) && q == DC_Q_TIME && *out >= 1e-3)
		warnf(l, ki, "'%s': %g is in seconds (a plain number is seconds); if you meant %g us, write \"%g us\"",
		      k->path, *out, *out, *out);
	if (cJSON_IsNumber(v) && q == DC_Q_BANDWIDTH && *out < 1e6)
		warnf(l, ki, "'%s': %g is in bytes per second (a plain number is bytes/s); if you meant %g GB/s, write \"%g GB/s\"",
		      k->path, *out, *out, *out);
	return 0;
}

static int parse_order(struct loader *l, int ki, const char *s)
{
	enum dc_axis order[DC_AXIS_COUNT];
	int used[DC_AXIS_COUNT] = {0};
	size_t n = 0;
	const char *p = s;

	while (*p) {
		const char *e = strchr(p, '-');
		size_t len = e ? (size_t)(e - p) : strlen(p);
		int found = -1;
		for (int a = 0; axis_names[a]; a++)
			if (strlen(axis_names[a]) == len && strncmp(p, axis_names[a], len) == 0)
				found = a;
		if (found < 0) {
			errorf(l, ki, "'parallel.order': unknown axis '%.*s' in \"%s\": use tp, cp, ep, dp and pp joined by '-', like \"tp-cp-ep-dp-pp\"",
			       (int)len, p, s);
			return -1;
		}
		if (used[found]) {
			errorf(l, ki, "'parallel.order': axis '%s' appears twice in \"%s\"", axis_names[found], s);
			return -1;
		}
		used[found] = 1;
		order[n++] = (enum dc_axis)found;
		if (!e)
			break;
		p = e + 1;
		if (!*p) {
			errorf(l, ki, "'parallel.order': \"%s\" ends with '-'", s);
			return -1;
		}
	}
	if (!used[DC_AXIS_TP] || !used[DC_AXIS_DP] || !used[DC_AXIS_PP]) {
		errorf(l, ki, "'parallel.order': \"%s\" must name tp, dp and pp (cp and ep are optional)", s);
		return -1;
	}
	/* axes not named have size 1; they go last */
	for (int a = 0; a < DC_AXIS_COUNT; a++)
		if (!used[a])
			order[n++] = (enum dc_axis)a;
	memcpy(l->cfg->parallel.order, order, sizeof(order));
	snprintf(l->cfg->parallel.order_text, sizeof(l->cfg->parallel.order_text), "%s", s);
	return 0;
}

static void read_value(struct loader *l, int ki, const cJSON *v)
{
	const struct key *k = &keys[ki];
	uint64_t u;
	double d;

	if (cJSON_IsNull(v)) {
		errorf(l, ki, "'%s': null is not allowed; remove the key to use the default", k->path);
		return;
	}
	if (cJSON_IsString(v) && strlen(v->valuestring) > DC_CONFIG_MAX_STRING) {
		errorf(l, ki, "'%s': string must be at most %d bytes, got %zu bytes", k->path, DC_CONFIG_MAX_STRING,
		       strlen(v->valuestring));
		return;
	}
	switch (k->kind) {
	case K_SECTION:
		break;
	case K_COUNT:
	case K_UINT:
		if (read_integer(l, ki, v, k->kind == K_COUNT, &u) == 0)
			*(uint64_t *)field(l, k) = u;
		break;
	case K_BYTES:
	case K_BYTES_POS:
		if (read_bytes(l, ki, v, k->kind == K_BYTES_POS, &u) == 0)
			*(uint64_t *)field(l, k) = u;
		break;
	case K_BW:
	case K_TIME:
		if (read_real(l, ki, v, k->kind == K_BW ? DC_Q_BANDWIDTH : DC_Q_TIME, &d) == 0)
			*(double *)field(l, k) = d;
		break;
	case K_BOOL:
		if (!cJSON_IsBool(v))
			errorf(l, ki, "'%s': expected true or false, got %s", k->path, describe(l, v));
		else
			*(int *)field(l, k) = cJSON_IsTrue(v);
		break;
	case K_ENUM: {
		char list[160] = "";
		if (cJSON_IsString(v)) {
			for (int i = 0; k->names[i]; i++)
				if (strcmp(v->valuestring, k->names[i]) == 0) {
					*(int *)field(l, k) = i;
					return;
				}
		}
		for (int i = 0; k->names[i]; i++) {
			strcat(list, i ? ", \"" : "\"");
			strcat(list, k->names[i]);
			strcat(list, "\"");
		}
		if (cJSON_IsString(v))
			errorf(l, ki, "'%s': unknown value \"%s\"; expected one of %s", k->path, v->valuestring, list);
		else
			errorf(l, ki, "'%s': expected one of %s, got %s", k->path, list, describe(l, v));
		break;
	}
	case K_ORDER:
		if (!cJSON_IsString(v))
			errorf(l, ki, "'%s': expected a string like \"tp-cp-ep-dp-pp\", got %s", k->path, describe(l, v));
		else
			parse_order(l, ki, v->valuestring);
		break;
	case K_FRACTION:
		if (!cJSON_IsNumber(v)) {
			errorf(l, ki, "'%s': expected a number in [0, 1), got %s", k->path, describe(l, v));
		} else if (check_number(l, ki, v, &d) == 0) {
			if (d < 0 || d >= 1)
				errorf(l, ki, "'%s': must be in [0, 1), got %g", k->path, d);
			else
				*(double *)field(l, k) = d;
		}
		break;
	case K_REAL:
		if (!cJSON_IsNumber(v)) {
			errorf(l, ki, "'%s': expected a number, got %s", k->path, describe(l, v));
		} else if (check_number(l, ki, v, &d) == 0) {
			if (d < 0)
				errorf(l, ki, "'%s': must not be negative, got %g", k->path, d);
			else
				*(double *)field(l, k) = d;
		}
		break;
	case K_STRING:
		if (!cJSON_IsString(v))
			errorf(l, ki, "'%s': expected a string, got %s", k->path, describe(l, v));
		else if (strcmp(k->path, "model.hf_config") == 0 && !*v->valuestring)
			errorf(l, ki, "'%s': expected the path of a Hugging Face config.json, got an empty string", k->path);
		else if (strcmp(k->path, "model.hf_config") == 0)
			snprintf(l->hf_path, sizeof(l->hf_path), "%s", v->valuestring);
		break;
	}
}

/* Walks one JSON object that is the section `prefix` ("" for the root). */
static void walk(struct loader *l, const cJSON *obj, const char *prefix)
{
	char path[300];
	for (const cJSON *c = obj->child; c; c = c->next) {
		const char *name = c->string ? c->string : "";
		int ki;

		snprintf(path, sizeof(path), "%s%s%s", prefix, *prefix ? "." : "", name);
		ki = find_key(path);
		if (ki < 0 || strlen(path) >= sizeof(path) - 1) {
			const char *s = suggest(prefix, name);
			if (strcmp(path, "parallel.cp") == 0)
				errorf(l, -1, "'parallel.cp': context parallelism is not modelled yet (cp is always 1; \"order\" may name it)");
			else if (s)
				errorf(l, -1, "'%.200s': unknown key; did you mean '%s'?", path, s);
			else
				errorf(l, -1, "'%.200s': unknown key", path);
			continue;
		}
		/* a path lives in one object (a repeated section is itself a
		 * duplicate and is not walked), so a path seen before is a
		 * duplicate key; O(1), where comparing siblings is O(n^2) */
		if (l->seen[ki]) {
			errorf(l, ki, "'%s': duplicate key", path);
			continue;
		}
		l->seen[ki] = 1;
		if (keys[ki].kind == K_SECTION) {
			if (!cJSON_IsObject(c))
				errorf(l, ki, "'%s': expected an object, got %s", path, type_name(c));
			else
				walk(l, c, path);
		} else {
			read_value(l, ki, c);
		}
	}
}

/* ---- --set ---- */

/* Applies "PATH=VALUE" to the tree; returns the key index or -1. */
static int apply_override(struct loader *l, cJSON *root, const char *text)
{
	const char *eq = strchr(text, '=');
	char path[300];
	cJSON *val, *obj = root;
	int ki;

	if (!eq || eq == text) {
		dc_diag_error(l->diag, DC_ERR_USAGE, "--set: error: '%s': expected PATH=VALUE, like model.hidden_size=4096", text);
		return -1;
	}
	if ((size_t)(eq - text) >= sizeof(path)) {
		dc_diag_error(l->diag, DC_ERR_USAGE, "--set: error: path is too long");
		return -1;
	}
	memcpy(path, text, (size_t)(eq - text));
	path[eq - text] = '\0';
	ki = find_key(path);
	if (ki < 0) {
		const char *dot = strrchr(path, '.');
		char prefix[300] = "";
		const char *s;
		if (dot)
			snprintf(prefix, sizeof(prefix), "%.*s", (int)(dot - path), path);
		s = suggest(prefix, dot ? dot + 1 : path);
		l->errors++;
		if (strcmp(path, "parallel.cp") == 0)
			dc_diag_error(l->diag, DC_ERR_CONFIG,
				      "--set: error: 'parallel.cp': context parallelism is not modelled yet (cp is always 1; \"order\" may name it)");
		else if (s)
			dc_diag_error(l->diag, DC_ERR_CONFIG, "--set: error: '%s': unknown key; did you mean '%s'?", path, s);
		else
			dc_diag_error(l->diag, DC_ERR_CONFIG, "--set: error: '%s': unknown key", path);
		return -1;
	}
	if (keys[ki].kind == K_SECTION) {
		l->errors++;
		dc_diag_error(l->diag, DC_ERR_CONFIG, "--set: error: '%s': is a section; set one of its keys", path);
		return -1;
	}
	/* the value: a strict JSON scalar (number, true, false, null, "string")
	 * is read as JSON; anything else ("80 GiB", "+1", "[1]") is a string */
	{
		const char *vs = eq + 1;
		struct scan sc;
		val = NULL;
		if (scan_text(&sc, vs, strlen(vs)) == 0 && vs[strspn(vs, " \t\r\n")] != '{' &&
		    vs[strspn(vs, " \t\r\n")] != '[') {
			val = cJSON_Parse(vs);
			if (!val)
				return -2; /* it scanned, so only an allocation fails */
		}
		if (!val)
			val = cJSON_CreateString(vs);
		if (!val)
			return -2;
	}
	/* create the sections along the path */
	{
		char part[300];
		const char *p = path;
		const char *dot;
		while ((dot = strchr(p, '.')) != NULL) {
			cJSON *next;
			snprintf(part, sizeof(part), "%.*s", (int)(dot - p), p);
			next = cJSON_GetObjectItemCaseSensitive(obj, part);
			if (!next) {
				next = cJSON_CreateObject();
				if (!next || !cJSON_AddItemToObject(obj, part, next)) {
					cJSON_Delete(next);
					cJSON_Delete(val);
					return -2;
				}
			} else if (!cJSON_IsObject(next)) {
				/* the file has a wrong type here; it is reported by the walk */
				cJSON_Delete(val);
				return ki;
			}
			obj = next;
			p = dot + 1;
		}
		/* drop every copy (duplicates included), then add the new value */
		while (cJSON_GetObjectItemCaseSensitive(obj, p))
			cJSON_DeleteItemFromObjectCaseSensitive(obj, p);
		if (!cJSON_AddItemToObject(obj, p, val)) {
			cJSON_Delete(val);
			return -2;
		}
	}
	return ki;
}

/* ---- defaults and cross-field checks ---- */

static void set_defaults(struct dc_config *c)
{
	static const enum dc_axis megatron[DC_AXIS_COUNT] = {DC_AXIS_TP, DC_AXIS_CP, DC_AXIS_EP,
							     DC_AXIS_DP, DC_AXIS_PP};
	memset(c, 0, sizeof(*c));
	c->model.mlp = DC_MLP_SWIGLU;
	c->parallel.tp = 1;
	c->parallel.pp = 1;
	c->parallel.ep = 1;
	snprintf(c->model.family, sizeof(c->model.family), "custom");
	memcpy(c->parallel.order, megatron, sizeof(megatron));
	snprintf(c->parallel.order_text, sizeof(c->parallel.order_text), "tp-cp-ep-dp-pp");
	c->parallel.sharding = DC_SHARD_NONE;
	c->parallel.reshard_after_forward = 1;
	c->parallel.fsdp_unit = DC_FSDP_UNIT_LAYER;
	c->parallel.bucket_bytes = 25u * 1024u * 1024u; /* PyTorch DDP bucket_cap_mb = 25 */
	c->parallel.virtual_pipeline = 1;
	c->training.recompute = DC_RECOMPUTE_NONE;
	c->training.micro_batch_size = 1;
	c->training.grad_accum_steps = 1;
	c->precision.param_bytes = 2;
	c->precision.grad_bytes = 2;
	c->precision.master_bytes = 4;
	c->precision.optimizer_bytes = 8;
	c->collective.link = DC_LINK_AUTO;
	c->memory.cuda_context_bytes = 512u * 1024u * 1024u;
	c->memory.comm_buffer_bytes = 256u * 1024u * 1024u;
	c->memory.workspace_bytes = 256u * 1024u * 1024u;
	c->memory.allocator_reserve = 0.05;
}

static int is_required(const struct loader *l, size_t i)
{
	return keys[i].required == 1 || (keys[i].required == 2 && !l->hf_loaded);
}

/* Mixture-of-experts and MLA keys: defaults and rules (docs/config.md). */
static void check_moe_mla(struct loader *l)
{
	struct dc_model *m = &l->cfg->model;
	int k_ept = find_key("model.experts_per_token");

	if (m->num_experts) {
		if (!l->seen[find_key("model.moe_ffn_hidden_size")])
			m->moe_ffn_hidden_size = m->ffn_hidden_size;
		if (!l->seen[k_ept])
			errorf(l, find_key("model.num_experts"),
			       "'model.experts_per_token': required with model.num_experts (%llu)",
			       (unsigned long long)m->num_experts);
		else if (m->experts_per_token > m->num_experts)
			errorf(l, k_ept, "'model.experts_per_token': must be at most model.num_experts (%llu), got %llu",
			       (unsigned long long)m->num_experts, (unsigned long long)m->experts_per_token);
		if (m->dense_layers >= m->num_layers)
			errorf(l, find_key("model.dense_layers"),
			       "'model.dense_layers': must be below model.num_layers (%llu), got %llu",
			       (unsigned long long)m->num_layers, (unsigned long long)m->dense_layers);
	}
	if (m->kv_lora_rank) {
		static const char *const need[] = {"model.qk_rope_head_dim", "model.qk_nope_head_dim",
						   "model.v_head_dim"};
		for (size_t i = 0; i < 3; i++)
			if (!l->seen[find_key(need[i])])
				errorf(l, find_key("model.kv_lora_rank"), "'%s': required with model.kv_lora_rank (MLA)",
				       need[i]);
		/* MLA: every head has its own k and v after the up-projection */
		if (!l->seen[find_key("model.num_kv_heads")])
			m->num_kv_heads = m->num_attention_heads;
		if (!l->seen[find_key("model.head_dim")])
			m->head_dim = m->qk_nope_head_dim + m->qk_rope_head_dim;
	}
}

static void cross_check(struct loader *l)
{
	struct dc_config *c = l->cfg;
	struct dc_model *m = &c->model;
	struct dc_parallel *p = &c->parallel;
	int k_tp = find_key("parallel.tp"), k_pp = find_key("parallel.pp"), k_dp = find_key("parallel.dp");
	uint64_t tp_pp, state_bytes;

	for (size_t i = 0; i < NKEYS; i++)
		if (is_required(l, i) && !l->seen[i]) {
			/* a missing section already implies its keys */
			const char *dot = strrchr(keys[i].path, '.');
			if (dot) {
				char sec[64];
				snprintf(sec, sizeof(sec), "%.*s", (int)(dot - keys[i].path), keys[i].path);
				int si = find_key(sec);
				if (si >= 0 && !l->seen[si] && is_required(l, (size_t)si))
					continue;
			}
			if (l->hf_loaded && strcmp(keys[i].path, "model.seq_length") == 0)
				errorf(l, -1, "'%s': required key is missing; a Hugging Face config gives no training sequence length (max_position_embeddings is the longest context)",
				       keys[i].path);
			else
				errorf(l, -1, "'%s': required key is missing", keys[i].path);
		}
	if (l->errors)
		return;

	/* the report lists every rank and group: O(world) work and output, so
	 * the world is capped at 2^24 ranks (today's largest clusters are
	 * ~10^5 GPUs) to keep a typo from running for minutes */
	if (dc_mul_u64(c->cluster.num_nodes, c->cluster.gpus_per_node, &c->world_size) ||
	    c->world_size > DC_MAX_WORLD) {
		errorf(l, find_key("cluster.num_nodes"),
		       "'cluster.num_nodes': num_nodes x gpus_per_node must be at most %llu ranks, got %llu x %llu",
		       (unsigned long long)DC_MAX_WORLD, (unsigned long long)c->cluster.num_nodes,
		       (unsigned long long)c->cluster.gpus_per_node);
		return;
	}
	if (!l->seen[find_key("model.num_kv_heads")])
		m->num_kv_heads = m->num_attention_heads;
	if (!l->seen[find_key("model.ffn_hidden_size")]) {
		if (dc_mul_u64(m->hidden_size, 4, &m->ffn_hidden_size)) {
			errorf(l, find_key("model.hidden_size"),
			       "'model.hidden_size': 4 x hidden_size (the default ffn_hidden_size) overflows 64 bits, got %llu",
			       (unsigned long long)m->hidden_size);
			return;
		}
	}
	check_moe_mla(l);
	if (l->errors)
		return;
	if (!l->seen[find_key("model.head_dim")] && !m->kv_lora_rank) {
		if (m->hidden_size % m->num_attention_heads != 0) {
			errorf(l, find_key("model.num_attention_heads"),
			       "'model.num_attention_heads': must divide model.hidden_size (%llu) unless model.head_dim is given, got %llu",
			       (unsigned long long)m->hidden_size, (unsigned long long)m->num_attention_heads);
			return;
		}
		m->head_dim = m->hidden_size / m->num_attention_heads;
	}
	if (m->position_embeddings > 0 && m->seq_length > m->position_embeddings)
		errorf(l, find_key("model.seq_length"),
		       "'model.seq_length': %llu tokens do not fit the learned position table of %llu positions (GPT-2's n_positions); use at most %llu",
		       (unsigned long long)m->seq_length, (unsigned long long)m->position_embeddings,
		       (unsigned long long)m->position_embeddings);
	if (m->num_kv_heads > m->num_attention_heads || m->num_attention_heads % m->num_kv_heads != 0)
		errorf(l, find_key("model.num_kv_heads"),
		       "'model.num_kv_heads': must divide model.num_attention_heads (%llu), got %llu",
		       (unsigned long long)m->num_attention_heads, (unsigned long long)m->num_kv_heads);

	/* layout: dp x tp x pp = world */
	if (dc_mul_u64(p->tp, p->pp, &tp_pp)) {
		errorf(l, k_tp, "'parallel.tp': tp x pp overflows 64 bits, got %llu x %llu", (unsigned long long)p->tp,
		       (unsigned long long)p->pp);
		return;
	}
	p->dp_explicit = l->seen[k_dp];
	if (!p->dp_explicit) {
		if (c->world_size % tp_pp != 0) {
			errorf(l, l->from_set[k_pp] && !l->from_set[k_tp] ? k_pp : k_tp,
			       "'parallel.tp': tp x pp (%llu) must divide the world size num_nodes x gpus_per_node (%llu)",
			       (unsigned long long)tp_pp, (unsigned long long)c->world_size);
		} else {
			p->dp = c->world_size / tp_pp;
		}
	} else {
		uint64_t prod;
		if (dc_mul_u64(tp_pp, p->dp, &prod) || prod != c->world_size) {
			char hint[96] = "";
			if (c->world_size % tp_pp == 0)
				snprintf(hint, sizeof(hint), "; set parallel.dp to %llu, or leave it out to derive it",
					 (unsigned long long)(c->world_size / tp_pp));
			/* blame the override that broke the product, if one did */
			errorf(l, l->from_set[k_tp] ? k_tp : l->from_set[k_pp] ? k_pp : k_dp,
			       "'parallel.dp': dp x tp x pp (%llu x %llu x %llu) must equal num_nodes x gpus_per_node (%llu)%s",
			       (unsigned long long)p->dp, (unsigned long long)p->tp, (unsigned long long)p->pp,
			       (unsigned long long)c->world_size, hint);
		}
	}
	if (m->num_attention_heads % p->tp != 0)
		errorf(l, k_tp, "'parallel.tp': must divide model.num_attention_heads (%llu), got %llu",
		       (unsigned long long)m->num_attention_heads, (unsigned long long)p->tp);
	else if (m->num_kv_heads % p->tp != 0)
		errorf(l, k_tp, "'parallel.tp': must divide model.num_kv_heads (%llu), got %llu",
		       (unsigned long long)m->num_kv_heads, (unsigned long long)p->tp);
	/* expert parallelism (Megatron-Core): ep ranks are carved out of dp,
	 * each holding num_experts / ep experts of every MoE layer */
	if (p->ep > 1) {
		int k_ep = find_key("parallel.ep");
		if (p->dp % p->ep != 0)
			errorf(l, k_ep, "'parallel.ep': must divide parallel.dp (%llu): expert-parallel ranks come out of the data-parallel ones, got %llu",
			       (unsigned long long)p->dp, (unsigned long long)p->ep);
		else if (!m->num_experts)
			errorf(l, k_ep, "'parallel.ep': needs a mixture-of-experts model (model.num_experts), got ep %llu",
			       (unsigned long long)p->ep);
		else if (m->num_experts % p->ep != 0)
			errorf(l, k_ep, "'parallel.ep': must divide model.num_experts (%llu), got %llu",
			       (unsigned long long)m->num_experts, (unsigned long long)p->ep);
	}
	if (m->num_layers % p->pp != 0)
		errorf(l, k_pp, "'parallel.pp': must divide model.num_layers (%llu), got %llu",
		       (unsigned long long)m->num_layers, (unsigned long long)p->pp);
	if (p->sequence_parallel && p->tp < 2)
		errorf(l, find_key("parallel.sequence_parallel"),
		       "'parallel.sequence_parallel': needs parallel.tp > 1 (it splits the tp group's activations), got tp %llu",
		       (unsigned long long)p->tp);
	if (p->virtual_pipeline > 1) {
		int kv = find_key("parallel.virtual_pipeline");
		uint64_t chunks;
		if (p->pp < 2)
			errorf(l, kv, "'parallel.virtual_pipeline': an interleaved schedule needs parallel.pp > 1, got pp %llu",
			       (unsigned long long)p->pp);
		else if (dc_mul_u64(p->pp, p->virtual_pipeline, &chunks) || m->num_layers % chunks != 0)
			errorf(l, kv,
			       "'parallel.virtual_pipeline': pp x virtual_pipeline (%llu x %llu) must divide model.num_layers (%llu)",
			       (unsigned long long)p->pp, (unsigned long long)p->virtual_pipeline,
			       (unsigned long long)m->num_layers);
		else if (c->training.grad_accum_steps % p->pp != 0)
			errorf(l, kv,
			       "'parallel.virtual_pipeline': the interleaved schedule needs training.grad_accum_steps (%llu microbatches) to be a multiple of parallel.pp (%llu)",
			       (unsigned long long)c->training.grad_accum_steps, (unsigned long long)p->pp);
	}

	/* parameters: explicit or from the shape. The loader only validates
	 * the count; the plan (plan.h) derives it */
	uint64_t params;
	m->params_explicit = l->seen[find_key("model.params")];
	if (!m->params_explicit)
		m->params = 0; /* dropped by --model: the shape's count applies */
	{
		struct dc_param_terms t;
		if (dc_params_terms(m, &t) != 0) {
			errorf(l, find_key("model.hidden_size"),
			       "'model': the parameter count of this shape overflows 64 bits; check hidden_size, ffn_hidden_size, vocab_size, num_layers and the expert sizes");
			return;
		}
		params = m->params_explicit ? m->params : t.total;
	}
	/* model-state bytes must be representable (overflow guard for the ledger) */
	{
		uint64_t per_param = c->precision.param_bytes;
		if (dc_add_u64(per_param, c->precision.grad_bytes, &per_param) ||
		    dc_add_u64(per_param, c->precision.master_bytes, &per_param) ||
		    dc_add_u64(per_param, c->precision.optimizer_bytes, &per_param) ||
		    dc_mul_u64(params, per_param, &state_bytes) || (double)state_bytes >= DC_MAX_EXACT_INT)
			errorf(l, m->params_explicit ? find_key("model.params") : find_key("model.hidden_size"),
			       "'%s': %llu parameters x %llu bytes of model state per parameter must be below 2^53 bytes",
			       m->params_explicit ? "model.params" : "model", (unsigned long long)params,
			       (unsigned long long)per_param);
	}
	{
		uint64_t tokens;
		if (dc_mul_u64(c->training.micro_batch_size, m->seq_length, &tokens) ||
		    dc_mul_u64(tokens, m->hidden_size, &tokens) || dc_mul_u64(tokens, 64, &tokens) ||
		    (double)tokens >= DC_MAX_EXACT_INT)
			errorf(l, find_key("training.micro_batch_size"),
			       "'training.micro_batch_size': micro_batch_size x seq_length x hidden_size is too large for the activation ledger");
	}
	if (l->errors)
		return;

	/* collective: as given (0 when absent); the plan defaults them to all
	 * ranks and one rank's gradient bytes */
	if (l->seen[find_key("collective.ranks")] && c->collective.ranks > c->world_size)
		errorf(l, find_key("collective.ranks"),
		       "'collective.ranks': must be at most the world size (%llu), got %llu",
		       (unsigned long long)c->world_size, (unsigned long long)c->collective.ranks);
	/* the ring lists 2(p-1) x p transfer events: below 2^49 with the
	 * world capped at 2^24 ranks, so the count is exact */
	c->memory.activation_explicit = l->seen[find_key("memory.activation_bytes_per_token_per_layer")];
}

/* ---- entry points ---- */

/* cJSON allocates through distcalc's wrappers so tests can inject failures. */
static void use_dc_allocator(void)
{
	static int done;
	cJSON_Hooks hooks;
	if (done)
		return;
	hooks.malloc_fn = dc_malloc;
	hooks.free_fn = free;
	cJSON_InitHooks(&hooks);
	done = 1;
}

/* Checks l->buf against the loader's limits and strict JSON, then parses
 * it. Returns the tree, or NULL with the problem recorded (*oom set when
 * only an allocation failed). */
static cJSON *parse_text(struct loader *l, int *oom)
{
	const char *buf = l->buf, *end = NULL;
	size_t len = l->len, i;
	struct scan sc;
	unsigned long failed_before;
	cJSON *root;

	*oom = 0;
	if (len > DC_CONFIG_MAX_BYTES) {
		dc_diag_error(l->diag, DC_ERR_INPUT, "%s: error: file is larger than 1 MiB (%zu bytes)", l->name, len);
		return NULL;
	}
	if (memchr(buf, '\0', len)) {
		size_t pos = (size_t)((const char *)memchr(buf, '\0', len) - buf);
		syntax_error(l, pos, "NUL byte in the file; a config is UTF-8 JSON text");
		return NULL;
	}
	i = len >= 3 && memcmp(buf, "\xef\xbb\xbf", 3) == 0 ? 3 : 0;
	while (i < len && is_space(buf[i]))
		i++;
	if (i == len) {
		dc_diag_error(l->diag, DC_ERR_CONFIG, "%s: error: the file is empty; a config is a JSON object", l->name);
		return NULL;
	}
	if (scan_text(&sc, buf, len) != 0) {
		syntax_error(l, sc.err_pos, sc.what);
		return NULL;
	}
	use_dc_allocator();
	failed_before = dc_alloc_failures();
	root = cJSON_ParseWithLengthOpts(buf, len, &end, 0);
	if (!root) {
		/* the text passed scan_text, so only a failed allocation stops cJSON */
		if (dc_alloc_failures() != failed_before)
			*oom = 1;
		else
			syntax_error(l, end ? (size_t)(end - buf) : 0, "cannot parse this JSON");
	}
	return root;
}

/* Reads `path` whole (at most DC_CONFIG_MAX_BYTES). Returns the bytes (the
 * caller frees them), or NULL with the reason in `diag`; `via` (NULL for a
 * config) says who named the file. */
static char *read_limited(const char *path, const char *via, size_t *len, struct dc_diag *diag)
{
	const char *open_paren = via ? " (" : "", *close_paren = via ? ")" : "";

	if (!via)
		via = "";
	FILE *f;
	struct stat st;
	char *buf;
	size_t n;

	f = fopen(path, "rb");
	if (!f) {
		dc_diag_error(diag, DC_ERR_INPUT, "%s: error: cannot open: %s%s%s%s", path, strerror(errno),
			      open_paren, via, close_paren);
		return NULL;
	}
	if (fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
		fclose(f);
		dc_diag_error(diag, DC_ERR_INPUT, "%s: error: is a directory, not a config file%s%s%s", path,
			      open_paren, via, close_paren);
		return NULL;
	}
	buf = dc_malloc(DC_CONFIG_MAX_BYTES + 1);
	if (!buf) {
		fclose(f);
		dc_diag_error(diag, DC_ERR_INTERNAL, "%s: error: out of memory", path);
		return NULL;
	}
	n = fread(buf, 1, DC_CONFIG_MAX_BYTES + 1, f);
	if (ferror(f)) {
		dc_diag_error(diag, DC_ERR_INPUT, "%s: error: read failed: %s", path, strerror(errno));
		fclose(f);
		free(buf);
		return NULL;
	}
	fclose(f);
	if (n > DC_CONFIG_MAX_BYTES) {
		dc_diag_error(diag, DC_ERR_INPUT, "%s: error: file is larger than 1 MiB%s%s%s", path, open_paren,
			      via, close_paren);
		free(buf);
		return NULL;
	}
	*len = n;
	return buf;
}

static int is_model_shape_key(size_t i)
{
	return strncmp(keys[i].path, "model.", 6) == 0 && keys[i].off != NOFF &&
	       strcmp(keys[i].path, "model.params") != 0 && strcmp(keys[i].path, "model.seq_length") != 0;
}

/* The Hugging Face config named by --model or model.hf_config: read it
 * (hf.c maps it), then take its value for every model key the config does
 * not give. With --model its shape replaces the config file's model keys
 * (model.seq_length stays; --set still applies on top). */
static void load_hf(struct loader *l)
{
	const struct dc_load_opts *o = l->opts;
	int k_hf = find_key("model.hf_config"), oom = 0;
	const char *rel, *dir = NULL;
	char path[sizeof(l->cfg->model.hf_config)];
	struct loader hl;
	struct dc_model hm;
	cJSON *root;
	char *buf;
	size_t n = 0;
	int len;

	if (o && o->model_file) {
		rel = o->model_file;
	} else if (l->hf_path[0]) {
		rel = l->hf_path;
		dir = l->from_set[k_hf] ? NULL : l->dir;
	} else {
		return;
	}
	if (dir && *dir && rel[0] != '/')
		len = snprintf(path, sizeof(path), "%s/%s", dir, rel);
	else
		len = snprintf(path, sizeof(path), "%s", rel);
	if (len < 0 || (size_t)len >= sizeof(path)) {
		errorf(l, k_hf, "'model.hf_config': the path is longer than %zu bytes", sizeof(path) - 1);
		return;
	}
	{
		char via[320];
		if (o && o->model_file)
			snprintf(via, sizeof(via), "named by --model");
		else
			snprintf(via, sizeof(via), "named by 'model.hf_config' in %.256s", origin(l, k_hf));
		buf = read_limited(path, via, &n, l->diag);
	}
	if (!buf) {
		l->errors++;
		return;
	}
	memset(&hl, 0, sizeof(hl));
	hl.name = path;
	hl.buf = buf;
	hl.len = n;
	hl.cfg = l->cfg;
	hl.diag = l->diag;
	root = parse_text(&hl, &oom);
	if (!root) {
		if (oom)
			dc_diag_error(l->diag, DC_ERR_INTERNAL, "%s: error: out of memory", path);
		l->errors++;
		free(buf);
		return;
	}
	if (dc_hf_model_read(root, path, &hm, l->diag) != 0) {
		l->errors++;
	} else {
		struct dc_model *m = &l->cfg->model;
		for (size_t i = 0; i < NKEYS; i++) {
			size_t moff;
			if (!is_model_shape_key(i))
				continue;
			if (o && o->model_file && !l->from_set[i])
				l->seen[i] = 0;
			if (l->seen[i])
				continue;
			moff = keys[i].off - offsetof(struct dc_config, model);
			if (keys[i].kind == K_COUNT || keys[i].kind == K_UINT)
				memcpy((char *)m + moff, (const char *)&hm + moff, sizeof(uint64_t));
			else
				memcpy((char *)m + moff, (const char *)&hm + moff, sizeof(int));
			l->seen[i] = 1;
		}
		if (o && o->model_file && !l->from_set[find_key("model.params")])
			l->seen[find_key("model.params")] = 0;
		snprintf(m->family, sizeof(m->family), "%s", hm.family);
		snprintf(m->hf_config, sizeof(m->hf_config), "%s", path);
		l->hf_loaded = 1;
	}
	cJSON_Delete(root);
	free(buf);
}

/* `dir`: the directory model.hf_config is relative to (NULL: the current
 * one). */
static int load_buffer(const char *buf, size_t len, const char *name, const char *dir,
		       const struct dc_load_opts *opts, struct dc_config *cfg, struct dc_diag *diag)
{
	struct loader l;
	cJSON *root = NULL;
	size_t i, noverrides = opts ? opts->noverrides : 0;
	unsigned long failed_before;
	int rc = -1, oom = 0;

	memset(&l, 0, sizeof(l));
	l.name = name;
	l.buf = buf;
	l.len = len;
	l.cfg = cfg;
	l.diag = diag;
	l.opts = opts;
	l.dir = dir;
	set_defaults(cfg);

	root = parse_text(&l, &oom);
	if (!root) {
		if (oom)
			goto oom;
		return -1;
	}
	if (!cJSON_IsObject(root)) {
		dc_diag_error(diag, DC_ERR_CONFIG, "%s: error: the top level must be a JSON object, got %s", name,
			      type_name(root));
		goto out;
	}
	for (i = 0; i < noverrides; i++) {
		failed_before = dc_alloc_failures();
		int ki = apply_override(&l, root, opts->overrides[i].text);
		if (ki == -2 || dc_alloc_failures() != failed_before)
			goto oom;
		if (ki >= 0)
			l.from_set[ki] = 1;
	}
	if (diag->errors)
		goto out;
	walk(&l, root, "");
	if (l.errors == 0)
		load_hf(&l);
	if (l.errors == 0)
		cross_check(&l);
	rc = l.errors || diag->errors ? -1 : 0;
out:
	cJSON_Delete(root);
	return rc;
oom:
	cJSON_Delete(root);
	dc_diag_error(diag, DC_ERR_INTERNAL, "%s: error: out of memory", name);
	return -1;
}

int dc_config_load_buffer_opts(const char *buf, size_t len, const char *name,
			       const struct dc_load_opts *opts, struct dc_config *cfg,
			       struct dc_diag *diag)
{
	return load_buffer(buf, len, name, NULL, opts, cfg, diag);
}

int dc_config_load_buffer(const char *buf, size_t len, const char *name,
			  const struct dc_override *overrides, size_t noverrides,
			  struct dc_config *cfg, struct dc_diag *diag)
{
	struct dc_load_opts o = {overrides, noverrides, NULL};
	return load_buffer(buf, len, name, NULL, &o, cfg, diag);
}

int dc_config_load_file_opts(const char *path, const struct dc_load_opts *opts,
			     struct dc_config *cfg, struct dc_diag *diag)
{
	char *buf, *dir = NULL;
	size_t n = 0;
	int rc;
	const char *slash = strrchr(path, '/');

	set_defaults(cfg);
	buf = read_limited(path, NULL, &n, diag);
	if (!buf)
		return -1;
	/* model.hf_config is relative to the config file's directory */
	if (slash) {
		dir = dc_strndup(path, slash == path ? 1 : (size_t)(slash - path));
		if (!dir) {
			free(buf);
			dc_diag_error(diag, DC_ERR_INTERNAL, "%s: error: out of memory", path);
			return -1;
		}
	}
	rc = load_buffer(buf, n, path, dir, opts, cfg, diag);
	free(dir);
	free(buf);
	return rc;
}

int dc_config_load_file(const char *path, const struct dc_override *overrides, size_t noverrides,
			struct dc_config *cfg, struct dc_diag *diag)
{
	struct dc_load_opts o = {overrides, noverrides, NULL};
	return dc_config_load_file_opts(path, &o, cfg, diag);
}

const char *dc_sharding_name(enum dc_sharding s)
{
	return sharding_names[s];
}

const char *dc_axis_name(enum dc_axis a)
{
	return axis_names[a];
}

const char *dc_recompute_name(enum dc_recompute r)
{
	return recompute_names[r];
}

const char *dc_norm_name(enum dc_norm n)
{
	return norm_names[n];
}

const char *dc_link_choice_name(enum dc_link_choice l)
{
	return link_names[l];
}
