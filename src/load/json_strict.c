/* json_strict.c - the strict JSON syntax check the loader runs before
 * cJSON parses (duplicate-free objects, no trailing commas, no leading
 * zeros, valid UTF-8 and escapes, bounded depth), with the position and
 * words of the first problem; and its API for other readers of JSON
 * (config.h). */
#define _POSIX_C_SOURCE 200809L

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "distcalc/config.h"

#include "config_int.h"

/* ---- strict syntax check ----
 *
 * cJSON is lenient (it takes "+1", "01", raw newlines in strings, invalid
 * UTF-8) and says only where it stopped, sometimes one byte late. So the
 * text is first checked against RFC 8259 here, which finds the first error's
 * exact place and names it; cJSON then parses only text that passed. */


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
	while (sc->pos < sc->len && dc_cfg_is_space(sc->s[sc->pos]))
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
size_t dc_cfg_utf8_len(const unsigned char *s, size_t n)
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
			size_t n = dc_cfg_utf8_len((const unsigned char *)sc->s + sc->pos, sc->len - sc->pos);
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
int dc_cfg_scan_text(struct scan *sc, const char *s, size_t len)
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

/* ---- where a key stands in the text ---- */

/* 1 when the JSON string s[k..end) (its quotes included; the text passed
 * the strict check) reads as the n bytes of `name`. A key written with
 * escapes ("seq\u005flength") is read by cJSON, as the walk read it. */
static int key_is(const char *s, size_t k, size_t end, const char *name, size_t n)
{
	const char *raw = s + k + 1;
	size_t rn = end - k - 2;
	cJSON *v;
	int same;

	if (!memchr(raw, '\\', rn))
		return rn == n && memcmp(raw, name, n) == 0;
	v = cJSON_ParseWithLength(s + k, end - k);
	same = v && cJSON_IsString(v) && strlen(v->valuestring) == n && memcmp(v->valuestring, name, n) == 0;
	cJSON_Delete(v);
	return same;
}

int dc_cfg_key_pos(const char *buf, size_t len, const char *path, size_t nth, size_t *pos)
{
	struct scan sc;
	const char *name = path;

	memset(&sc, 0, sizeof(sc));
	sc.s = buf;
	sc.len = len;
	if (len >= 3 && memcmp(buf, "\xef\xbb\xbf", 3) == 0)
		sc.pos = 3;
	scan_ws(&sc);
	for (;;) {
		const char *dot = strchr(name, '.');
		size_t n = dot ? (size_t)(dot - name) : strlen(name), copies = 0;
		int found = 0;

		if (sc.pos >= len || buf[sc.pos] != '{')
			return -1;
		sc.pos++;
		/* the object's members up to the name's copy: the first for a
		 * section (the one the walk reads), the nth for the key */
		while (!found) {
			size_t k;
			scan_ws(&sc);
			if (sc.pos >= len || buf[sc.pos] != '"')
				return -1; /* the object's end: not there */
			k = sc.pos;
			if (scan_string(&sc) != 0)
				return -1;
			if (key_is(buf, k, sc.pos, name, n)) {
				if (!dot && copies++ == nth) {
					*pos = k;
					return 0;
				}
				found = dot != NULL;
			}
			scan_ws(&sc);
			if (sc.pos >= len || buf[sc.pos] != ':')
				return -1;
			sc.pos++;
			scan_ws(&sc);
			if (found)
				break;
			if (scan_value(&sc, 0) != 0)
				return -1;
			scan_ws(&sc);
			if (sc.pos >= len || buf[sc.pos] != ',')
				return -1;
			sc.pos++;
		}
		name = dot + 1;
	}
}

/* ---- the strict JSON check, for other readers of JSON (config.h) ---- */

int dc_json_check_strict(const char *buf, size_t len, size_t *line, size_t *col, char *what, size_t whatlen)
{
	struct scan sc;
	size_t line_start;

	if (dc_cfg_scan_text(&sc, buf, len) == 0)
		return 0;
	dc_cfg_line_col(buf, len, sc.err_pos, line, col, &line_start);
	snprintf(what, whatlen, "%s", sc.what);
	return -1;
}
