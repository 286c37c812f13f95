/* sink_table.c - the human-readable table: aligned key-value blocks, tables
 * with a units row under the header, inline lists; see report.h. */
#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report_int.h"

/* the sinks' short copy (report_int.h) */
#define copy_short dc_copy_short

struct tscale {
	double mult;
	const char *unit;
	const char *head; /* the unit as the units row shows it, "[unit]" ("" for none) */
	size_t ulen; /* strlen(unit) */
};

/* t's unit, the string literal u */
#define SET_UNIT(t, u) ((t).unit = u, (t).head = "[" u "]", (t).ulen = sizeof(u) - 1)

/* A unit's text and its length, which every line that shows it needs */
static struct tscale unit_scale(enum dc_unit u)
{
	struct tscale t = {1.0, "", "", 0};
	switch (u) {
	case DC_U_BYTES: SET_UNIT(t, "GiB"); break;
	case DC_U_BYTES_RAW: SET_UNIT(t, "B"); break;
	case DC_U_GBPS:
	case DC_U_BYTES_PER_S: SET_UNIT(t, "GB/s"); break;
	case DC_U_FLOPS: SET_UNIT(t, "TFLOP"); break;
	case DC_U_PER_S: SET_UNIT(t, "1/s"); break;
	case DC_U_SECONDS: SET_UNIT(t, "s"); break;
	case DC_U_SECONDS_US: SET_UNIT(t, "us"); break;
	case DC_U_RATIO:
	case DC_U_COUNT:
	case DC_U_NONE: break;
	}
	return t;
}

static struct tscale time_scale(double max_s)
{
	struct tscale t;
	/* the rule is dc_fmt_time_unit's (the whatif tables' too); the
	 * literals give the units row its "[ms]" */
	const char *u = dc_fmt_time_unit(max_s, &t.mult);
	if (u[0] == 's')
		SET_UNIT(t, "s");
	else if (u[0] == 'm')
		SET_UNIT(t, "ms");
	else
		SET_UNIT(t, "us");
	return t;
}

/* Display scale of a unit for values up to max_abs: seconds pick s, ms or
 * us; FLOPs pick GFLOP to EFLOP; every other unit is fixed. */
static struct tscale scale_for(enum dc_unit u, double max_abs)
{
	struct tscale t;
	if (u == DC_U_SECONDS)
		return time_scale(max_abs);
	t = unit_scale(u);
	if (u == DC_U_FLOPS) {
		int k = 0;
		double div = 1e9;
		while (k < 3 && max_abs >= div * 1e3) {
			div *= 1e3;
			k++;
		}
		t.mult = 1.0 / div;
		switch (k) {
		case 0: SET_UNIT(t, "GFLOP"); break;
		case 1: SET_UNIT(t, "TFLOP"); break;
		case 2: SET_UNIT(t, "PFLOP"); break;
		default: SET_UNIT(t, "EFLOP"); break;
		}
	}
	return t;
}

/* Drops the sign of a text that printf rounded to zero: "-0.000" (of -0,
 * or of -0.0004 at three decimals) reads "0.000". */
static size_t unsign_zero(char *buf, size_t n)
{
	if (buf[0] != '-' || strspn(buf + 1, "0.") != n - 1)
		return n;
	memmove(buf, buf + 1, n);
	return n - 1;
}

/* Commas between the thousands of the whole part of the n-byte number
 * text at buf ("-1234567.8" to "-1,234,567.8"), in place, when that part
 * has `min_digits` digits or more; buf holds more than n + n / 3 bytes.
 * Returns the new length. */
static size_t group_thousands(char *buf, size_t n, size_t min_digits)
{
	size_t start = buf[0] == '-', whole = start, commas;
	while (whole < n && buf[whole] >= '0' && buf[whole] <= '9')
		whole++;
	if (whole - start < min_digits || whole == start)
		return n;
	commas = (whole - start - 1) / 3;
	if (!commas)
		return n;
	/* from the end: the fraction, then the whole part in groups of 3 */
	memmove(buf + whole + commas, buf + whole, n - whole);
	for (size_t src = whole, dst = whole + commas, k = 0; src > start; k++) {
		if (k && k % 3 == 0)
			buf[--dst] = ',';
		buf[--dst] = buf[--src];
	}
	buf[n + commas] = '\0';
	return n + commas;
}

static const char two_digits[201] = "0001020304050607080910111213141516171819202122232425262728293031323334353637383940"
				    "4142434445464748495051525354555657585960616263646566676869707172737475767778798081"
				    "828384858687888990919293949596979899";

/* The two digits of v < 100 at p */
static inline void put2(char *p, uint32_t v)
{
	memcpy(p, two_digits + 2 * v, 2);
}

/* The digits of v at buf, without a NUL; returns their count. Most
 * figures a table shows have a whole part under 1000. */
static inline size_t put_u32_digits(char *buf, uint32_t v)
{
	size_t n;
	if (v < 10) {
		buf[0] = (char)('0' + v);
		return 1;
	}
	if (v < 100) {
		put2(buf, v);
		return 2;
	}
	if (v < 1000) {
		buf[0] = (char)('0' + v / 100);
		put2(buf + 1, v % 100);
		return 3;
	}
	n = v < 10000 ? 4 : v < 100000 ? 5 : v < 1000000 ? 6 : v < 10000000 ? 7 : v < 100000000 ? 8 : 9;
	n += v >= 1000000000;
	for (size_t i = n; i > 1; i -= 2, v /= 100)
		put2(buf + i - 2, v % 100);
	if (n & 1)
		buf[0] = (char)('0' + v);
	return n;
}

/* fmt_fixed's printf path: a value too large (or not finite) to scale
 * into an integer, or one whose scaled value sits near a half */
static __attribute__((noinline)) size_t fmt_fixed_printf(char *buf, size_t len, double v, int prec)
{
	return unsign_zero(buf, (size_t)snprintf(buf, len, "%.*f", prec, v));
}

/* "%.3f" (or another fixed precision) without printf when the value is
 * small enough to scale into an integer exactly. A value that rounds to
 * zero prints without a sign. Inline: each caller's precision is a
 * constant, so the decimals are split off by a constant. */
static inline __attribute__((always_inline)) size_t fmt_fixed(char *buf, size_t len, double v, int prec)
{
	static const double scale[] = {1, 10, 100, 1000, 10000};
	static const uint32_t pow10[] = {1, 10, 100, 1000, 10000};
	double s = prec >= 0 && prec <= 4 ? v * scale[prec] : 0;
	/* below 1e9 the product is off by under 1e-7, so unless it sits near a
	 * half it rounds as printf rounds the exact binary value */
	if (prec >= 0 && prec <= 4 && fabs(s) < 1e9) {
		/* |s| = ip + fr exactly (|s| < 2^52); not a tie, so the nearest
		 * integer is ip or ip + 1 (at most 10^9: 32 bits) */
		double a = fabs(s), fr;
		uint32_t ip = (uint32_t)a;
		fr = a - (double)ip;
		if (fabs(fr - 0.5) > 1e-6) {
			uint32_t m = ip + (fr > 0.5), frac = m % pow10[prec];
			size_t o = 0;
			if (signbit(s) && m != 0)
				buf[o++] = '-';
			o += put_u32_digits(buf + o, m / pow10[prec]);
			/* the decimals with their leading zeros */
			buf[o] = '.';
			switch (prec) {
			case 0: o--; break; /* no point */
			case 1: buf[o + 1] = (char)('0' + frac); break;
			case 2: put2(buf + o + 1, frac); break;
			case 3:
				buf[o + 1] = (char)('0' + frac / 100);
				put2(buf + o + 2, frac % 100);
				break;
			default:
				put2(buf + o + 1, frac / 100);
				put2(buf + o + 3, frac % 100);
				break;
			}
			o += (size_t)prec + 1;
			buf[o] = '\0';
			return o;
		}
	}
	return fmt_fixed_printf(buf, len, v, prec);
}

/* A double in a scaled unit (seconds, FLOPs) in the column's scale */
static size_t scaled_text(char *buf, size_t len, double v, const struct tscale *ts)
{
	return fmt_fixed(buf, len, v * ts->mult, 3);
}

/* A text that would act on a terminal (a file name holding ESC or a
 * newline), escaped into buf and cut at the cell's length; `text` may be
 * buf. Out of line, as the rare case: its copy buffer stays out of the
 * frame of cell_text, which every cell calls. */
static __attribute__((noinline)) size_t escaped_text(char *buf, size_t len, const char *text)
{
	char raw[DC_CELL_MAX];
	if (text == buf) {
		snprintf(raw, sizeof(raw), "%s", buf);
		text = raw;
	}
	return dc_fmt_printable(buf, len, text);
}

/* A byte count as a key-value block shows it: GiB to three decimals and
 * the exact bytes after them, "1.500 GiB (1,610,612,736 B)" (buf: len >=
 * DC_CELL_MAX) */
static size_t gib_exact(char *buf, size_t len, uint64_t u)
{
	size_t n = fmt_fixed(buf, len, (double)u / DC_GIB, 3);
	memcpy(buf + n, " GiB (", 6);
	n += 6;
	n += dc_fmt_u64_grouped(buf + n, u);
	memcpy(buf + n, " B)", 4);
	return n + 3;
}

/* A cell's value (without unit). A scalar in a key-value block gets the
 * exact byte count after GiB. Returns the text (buf or the field's own)
 * and its length in *out_len, which the formatters know: the passes that
 * measure and print cells need not count it again. */
static const char *cell_text(char *buf, size_t len, const struct dc_field *f, const void *base,
			     const struct tscale *ts, int scalar, size_t *out_len)
{
	const void *p = dc_fld_ptr(base, f);
	double v;
	size_t n = 0; /* every unit below sets it; -Wswitch names a unit left out */

	if (dc_fld_null(f, base)) {
		*out_len = 3;
		return "n/a";
	}
	switch (f->type) {
	case DC_FT_STR:
	case DC_FT_TEXT:
	case DC_FT_FN: {
		const char *text = dc_fld_text(f, base, buf, len);
		*out_len = strlen(text);
		if (dc_text_printable_fast(text, *out_len))
			return text;
		*out_len = escaped_text(buf, len, text);
		return buf;
	}
	case DC_FT_BOOL:
		*out_len = *(const int *)p ? 3 : 2;
		return *(const int *)p ? "yes" : "no";
	case DC_FT_OBJECT:
		*out_len = 5;
		return "{...}";
	case DC_FT_ROWS:
	case DC_FT_LISTS:
	case DC_FT_PROSE:
		*out_len = 5;
		return "[...]";
	case DC_FT_U64: {
		uint64_t u;
		memcpy(&u, p, sizeof(u));
		if (f->unit == DC_U_BYTES) {
			n = scalar ? gib_exact(buf, len, u) : fmt_fixed(buf, len, (double)u / DC_GIB, 3);
		} else {
			n = dc_fmt_u64_grouped(buf, u);
		}
		*out_len = n;
		return buf;
	}
	case DC_FT_F64:
		break;
	}
	memcpy(&v, p, sizeof(v));
	switch (f->unit) {
	case DC_U_BYTES:
		n = fmt_fixed(buf, len, v / DC_GIB, 3);
		if (scalar) {
			memcpy(buf + n, " GiB", 5);
			n += 4;
		}
		break;
	case DC_U_BYTES_RAW:
	case DC_U_COUNT:
		/* whole figures carried as doubles (bytes per token, FLOP counts),
		 * halves rounded away from zero (14,802,624.5 B shows 14,802,625) */
		if (fabs(v) >= 0x1p53) {
			/* past 2^53 a double is no exact count: all its digits
			 * would read as exact (a trial: 36902495346673836032 for
			 * 36,902,495,346,673,840,127); seven significant ones */
			snprintf(buf, len, "%.6e", v);
			n = strlen(buf);
		} else if (fabs(v) < 1e18) {
			long long rv = llround(v);
			size_t o = 0;
			if (rv < 0)
				buf[o++] = '-';
			n = o + dc_fmt_u64_grouped(buf + o, rv < 0 ? (uint64_t)-(rv + 1) + 1 : (uint64_t)rv);
		} else {
			snprintf(buf, len, "%.0f", v);
			n = strlen(buf);
		}
		break;
	case DC_U_SECONDS:
	case DC_U_FLOPS:
		n = scaled_text(buf, len, v, ts);
		break;
	case DC_U_GBPS:
		n = fmt_fixed(buf, len, v, 3);
		break;
	case DC_U_BYTES_PER_S:
		n = fmt_fixed(buf, len, v / 1e9, 3);
		break;
	case DC_U_RATIO:
		n = fmt_fixed(buf, len, v, 4);
		break;
	case DC_U_PER_S:
		n = fmt_fixed(buf, len, v, 1);
		/* the thousands grouped from four whole digits, as counts are
		 * (64,463.5 tokens/s; 9,340,735,183.8 parameters/s): one field
		 * reads alike at any size */
		if (n + n / 3 < len)
			n = group_thousands(buf, n, 4);
		break;
	case DC_U_SECONDS_US:
		n = fmt_fixed(buf, len, v * 1e6, 2);
		break;
	case DC_U_NONE:
		/* a plain number (a loss in nats, a z-score) with a ratio's four
		 * decimals; one below 0.01 keeps three significant digits, so
		 * it does not read 0.0000 (JSON and CSV keep every digit) */
		if (v != 0 && fabs(v) < 0.01) {
			snprintf(buf, len, "%.3g", v);
			n = strlen(buf);
		} else if (fabs(v) >= 0x1p53) {
			/* no four decimals on a figure past 2^53, where a double's
			 * units are no longer exact: seven significant digits */
			snprintf(buf, len, "%.6e", v);
			n = strlen(buf);
		} else {
			n = fmt_fixed(buf, len, v, 4);
		}
		break;
	}
	*out_len = n;
	return buf;
}

/* Units whose display scale follows the largest value shown. */
static int scaled(enum dc_unit u)
{
	return u == DC_U_SECONDS || u == DC_U_FLOPS;
}

const char *dc_table_cell(char *buf, size_t len, const struct dc_field *f, const void *base, double max_abs,
			  int scalar, const char **unit)
{
	struct tscale ts = scale_for(f->unit, scaled(f->unit) ? max_abs : 0);
	*unit = ts.unit;
	size_t n;
	return cell_text(buf, len, f, base, &ts, scalar, &n);
}

static double f64_abs(const struct dc_field *f, const void *base)
{
	double v;
	if (f->type != DC_FT_F64 || dc_fld_null(f, base))
		return 0;
	memcpy(&v, dc_fld_ptr(base, f), sizeof(v));
	return fabs(v);
}

/* Widths on a terminal are columns, not bytes: a character of UTF-8 (a
 * lead byte and the continuation bytes it calls for) takes one column
 * (wide and combining characters are not told apart: no library for
 * that), as does any other byte, a stray continuation byte or a lead byte
 * cut short (the escapes leave none in data; a raw text may have them).
 * ASCII is a byte a column, so its output is unchanged. Texts are cut and
 * wrapped only where a character starts; a space always starts one. */

/* The bytes of the character at s[0..n) (n > 0). */
static inline size_t u8_len(const char *s, size_t n)
{
	unsigned c = (unsigned char)s[0];
	size_t k;
	if (c < 0xc0 || c > 0xf7)
		return 1; /* ASCII, a stray continuation byte, or no lead byte */
	k = c < 0xe0 ? 2 : c < 0xf0 ? 3 : 4;
	if (k > n)
		return 1;
	for (size_t i = 1; i < k; i++)
		if (((unsigned char)s[i] & 0xc0) != 0x80)
			return 1;
	return k;
}

/* 1 when the 8 bytes at s are ASCII */
static inline int ascii_word(const char *s)
{
	uint64_t x;
	memcpy(&x, s, 8);
	return !(x & 0x8080808080808080u);
}

/* Of s[0..n), the bytes of its first `cols` columns (n when it has no
 * more); *used gets the columns they take. ASCII eight bytes a step. */
static size_t u8_prefix(const char *s, size_t n, size_t cols, size_t *used)
{
	size_t i = 0, c;
	while (i + 8 <= n && i + 8 <= cols && ascii_word(s + i))
		i += 8;
	for (c = i; i < n && c < cols; c++)
		i += (unsigned char)s[i] < 0x80 ? 1 : u8_len(s + i, n - i);
	*used = c;
	return i;
}

/* The columns s[0..n) takes */
static inline size_t u8_cols(const char *s, size_t n)
{
	size_t c;
	(void)u8_prefix(s, n, n, &c);
	return c;
}

size_t dc_table_text_cols(const char *s, size_t n)
{
	return u8_cols(s, n);
}

struct tctx {
	struct dc_buf *b;
	const struct dc_render_opts *o;
	int no_blank; /* the first heading opens the output: no blank line above it */
	struct dc_report *r;
	const char *section; /* the section being rendered (its key) */
};

static void t_object(struct tctx *t, const struct dc_fields *fs, const void *base, const char *title,
		     int depth);

/* The end of the shell word at s (see shell_lines). */
static const char *shell_word_end(const char *s)
{
	int quoted = 0;
	while (*s && (quoted || *s != ' ')) {
		if (*s == '\'')
			quoted = !quoted;
		else if (*s == '\\' && !quoted && s[1])
			s++; /* an escaped character: \' is no quote */
		s++;
	}
	return s;
}

/* A command line (dc_field.shell_words) from column `col`, wrapped before
 * `width` (0: never) between its words, a word being a run without
 * spaces outside single quotes (a backslash outside them escaping the
 * next character, as add_arg's '\\'' does), an option and the value
 * after it kept together; each line but the last ends in " \\" and the
 * next starts at `col`. A word longer than a line gets one of its own. */
static void shell_lines(struct dc_buf *b, const char *s, size_t col, size_t width)
{
	size_t at = col;
	while (*s) {
		/* an option and its value ("--set PATH=V") stay on one line */
		const char *w = s, *e = shell_word_end(s);
		size_t n, nc;
		if (*w == '-' && *e == ' ' && e[1] && e[1] != '-') {
			const char *v = shell_word_end(e + 1);
			if (!width || col + u8_cols(w, (size_t)(v - w)) + 2 <= width)
				e = v; /* the pair fits a line: kept together */
		}
		n = (size_t)(e - w);
		nc = u8_cols(w, n); /* a path may hold characters of several bytes */
		if (at > col && width && at + 1 + nc + 2 > width) {
			dc_buf_add(b, " \\\n", 3);
			dc_buf_pad(b, col);
			at = col;
		}
		if (at > col) {
			dc_buf_putc(b, ' ');
			at++;
		}
		dc_buf_add(b, w, n);
		at += nc;
		s = e;
		while (*s == ' ')
			s++;
	}
}

/* Text that wraps at spaces before `width`, continuation lines indented to
 * `start`: long group lists and notes. Streams: a word at a time. GLUE is a
 * space that does not break (inside one group); a word longer than a line
 * breaks where the line ends. */
#define GLUE '\x01'

/* the word buffer's columns: a word as long is cut; its bytes have room
 * for as many characters of 4 bytes */
#define WORD_COLS 128

struct wrap {
	struct dc_buf *b;
	size_t start, col, width, cap; /* columns; cap: the word buffer's */
	size_t wlen, wcols; /* the word buffer's bytes and columns */
	int sep;
	char word[WORD_COLS * 4];
};

static void wr_init(struct wrap *w, struct dc_buf *b, size_t col, size_t width)
{
	w->b = b;
	w->start = w->col = col;
	w->width = width;
	w->wlen = w->wcols = 0;
	w->sep = 0;
	w->cap = WORD_COLS;
	if (width > col + 8 && width - col < w->cap)
		w->cap = width - col;
}

/* Writes a word of n bytes and `cols` columns: on a new line when it
 * would pass the width, else after a space when one came before it. */
static void wr_emit(struct wrap *w, const char *word, size_t n, size_t cols)
{
	if (w->width && w->col > w->start && w->col + (size_t)w->sep + cols > w->width) {
		dc_buf_putc(w->b, '\n');
		dc_buf_pad(w->b, w->start);
		w->col = w->start;
	} else if (w->sep) {
		dc_buf_putc(w->b, ' ');
		w->col++;
	}
	dc_buf_add(w->b, word, n);
	w->col += cols;
	w->sep = 0;
}

static void wr_word(struct wrap *w)
{
	if (!w->wlen)
		return;
	wr_emit(w, w->word, w->wlen, w->wcols);
	w->wlen = w->wcols = 0;
}

static void wr_put(struct wrap *w, const char *s, size_t n)
{
	for (size_t i = 0; i < n;) {
		size_t run;
		if (s[i] == ' ') {
			wr_word(w);
			w->sep = 1;
			i++;
			continue;
		}
		if (w->wcols == w->cap) {
			/* a glued run longer than a line: break it at its last glue
			 * (a space, which starts a character) */
			size_t k = w->wlen;
			while (k > 0 && w->word[k - 1] != ' ')
				k--;
			if (k > 1) {
				size_t rest = w->wlen - k, head = u8_cols(w->word, k - 1);
				size_t rest_cols = w->wcols - head - 1;
				char tail[sizeof(w->word)];
				memcpy(tail, w->word + k, rest);
				w->wlen = k - 1;
				w->wcols = head;
				wr_word(w);
				memcpy(w->word, tail, rest);
				w->wlen = rest;
				w->wcols = rest_cols;
				w->sep = 1;
			} else {
				wr_word(w);
			}
		}
		/* whole words that a space ends, GLUE-free and shorter than the
		 * buffer, are written from s as wr_word would write them, the
		 * words of a line and their single spaces in one piece */
		if (!w->wlen) {
			const char *span = s + i;
			size_t span_len = 0, j = i, run_cols;
			for (;;) {
				for (run = 0; j + run < n && s[j + run] != ' ' && s[j + run] != GLUE; run++)
					;
				if (j + run >= n || s[j + run] != ' ')
					break;
				if ((run_cols = u8_cols(s + j, run)) >= w->cap)
					break;
				if (w->width && w->col > w->start && w->col + (size_t)w->sep + run_cols > w->width) {
					dc_buf_add(w->b, span, span_len);
					dc_buf_putc(w->b, '\n');
					dc_buf_pad(w->b, w->start);
					w->col = w->start;
					span = s + j;
					span_len = 0;
				} else if (w->sep) {
					if (span + span_len + 1 == s + j && span_len) {
						span_len++; /* the one space before this word */
					} else {
						dc_buf_add(w->b, span, span_len);
						dc_buf_putc(w->b, ' ');
						span = s + j;
						span_len = 0;
					}
					w->col++;
				}
				span_len += run;
				w->col += run_cols;
				w->sep = 0;
				for (j += run; j < n && s[j] == ' '; j++)
					w->sep = 1;
			}
			dc_buf_add(w->b, span, span_len);
			if (j > i) {
				i = j;
				continue;
			}
		}
		/* the run of the word up to the next space or the buffer's end,
		 * whole characters (the buffer has room for its columns' worth
		 * of the longest) */
		for (; w->wcols < w->cap && i < n && s[i] != ' '; w->wcols++) {
			size_t k = (unsigned char)s[i] < 0x80 ? 1 : u8_len(s + i, n - i);
			if (k == 1) {
				w->word[w->wlen++] = s[i] == GLUE ? ' ' : s[i];
			} else {
				memcpy(w->word + w->wlen, s + i, k);
				w->wlen += k;
			}
			i += k;
		}
	}
}

static void wr_puts(struct wrap *w, const char *s)
{
	wr_put(w, s, strlen(s));
}

int dc_table_has_word(const char *s, size_t n, size_t len)
{
	/* a run of `len` non-spaces or more covers one of the positions
	 * len - 1, 2 len - 1, ...: only the runs through those are measured,
	 * each once (a shorter run ends before the next position) */
	for (size_t i = len - 1; len && i < n; i += len) {
		size_t a = i, b = i;
		if (s[i] == ' ')
			continue;
		while (a > 0 && s[a - 1] != ' ')
			a--;
		while (b + 1 < n && s[b + 1] != ' ')
			b++;
		if (b - a + 1 >= len)
			return 1;
	}
	return 0;
}

/* 1 when one of the byte pairs (0, 1) to (6, 7) of the 8 bytes at s is
 * two spaces: y = x ^ 0x20.. is zero at a space, y | y >> 8 at the first
 * of two (byte 7 set apart: it pairs with the next word), and a zero
 * byte of z shows in (z - 0x01..) & ~z & 0x80.., exactly whether there
 * is one (a borrow only runs on from a zero byte). */
static inline int double_space_word(const char *s)
{
	const uint64_t one = 0x0101010101010101u, top = 0x8080808080808080u, spaces = 0x2020202020202020u;
	uint64_t x, y, z;
	memcpy(&x, s, 8);
	y = x ^ spaces;
	z = y | y >> 8 | (uint64_t)0xff << 56;
	return ((z - one) & ~z & top) != 0;
}

/* A text of 8 bytes or more a word at a time, 7 bytes a step so that
 * each pair lies within a word, the last pairs in the word that ends it;
 * a shorter one byte by byte. (strstr's "  " counted fewer instructions
 * but took longer: about 1.5 us of a 30 us table render.) */
int dc_table_has_double_space(const char *s, size_t n)
{
	size_t i = 0;
	if (n < 8) {
		for (i = 1; i < n; i++)
			if (s[i] == ' ' && s[i - 1] == ' ')
				return 1;
		return 0;
	}
	for (; i + 8 <= n; i += 7)
		if (double_space_word(s + i))
			return 1;
	return double_space_word(s + n - 8);
}

/* n spaces at o, as SPACES_COPY of them when n is no more: the caller
 * leaves that much room, and what lies past n is written over after */
#define SPACES_COPY 64
static inline void put_spaces(char *o, size_t n)
{
	static const char spaces[SPACES_COPY] = "                                                                ";
	if (n <= SPACES_COPY)
		memcpy(o, spaces, SPACES_COPY);
	else
		memset(o, ' ', n);
}

/* wr_puts for a text (n bytes, NUL-terminated after them, as the caller
 * measured it) that is all the wrap holds, when it is single spaces
 * between words shorter than the word buffer, none at either end: what
 * wr_put writes, found a line at a time. wr_put places each word on the
 * line when the line is empty or the word and its space end within the
 * width, else on a new line; so a line runs to its last word end within
 * the width (the last space at or before it), or to the end of its first
 * word when even that is wider. Returns 0, having written nothing, for any
 * other text. */
static int wr_simple(struct wrap *w, const char *s, size_t n)
{
	size_t pos = 0;
	if (w->wlen || w->sep || w->col != w->start || s[0] == ' ')
		return 0;
	if ((n && s[n - 1] == ' ') || dc_table_has_double_space(s, n))
		return 0;
	/* a word as long as the buffer is left to wr_put (only a text that
	 * long can hold one; one as many bytes long may be fewer columns,
	 * which wr_put writes alike) */
	if (n >= w->cap && dc_table_has_word(s, n, w->cap))
		return 0;
	for (;;) {
		size_t limit = w->width > w->col ? w->width - w->col : 0, e, cols;
		char *o;
		if (!w->width) { /* one line */
			dc_buf_add_short(w->b, s + pos, n - pos);
			w->col += u8_cols(s + pos, n - pos);
			return 1;
		}
		/* e: where the line's `limit` columns end, at a character */
		e = pos + u8_prefix(s + pos, n - pos, limit, &cols);
		if (e == n) { /* the rest fits */
			dc_buf_add_short(w->b, s + pos, n - pos);
			w->col += cols;
			return 1;
		}
		for (; e > pos && s[e] != ' '; e--)
			;
		if (e == pos) /* the first word alone is wider: it ends the line */
			for (e = pos + 1; e < n && s[e] != ' '; e++)
				;
		if (e == n) {
			dc_buf_add_short(w->b, s + pos, e - pos);
			w->col += u8_cols(s + pos, e - pos);
			return 1;
		}
		/* the line, its newline and the next one's indent in one piece */
		if (!(o = dc_buf_room(w->b, e - pos + 1 + w->start + SPACES_COPY)))
			return 1; /* the buffer failed: nothing more is written */
		copy_short(o, s + pos, e - pos);
		o[e - pos] = '\n';
		put_spaces(o + e - pos + 1, w->start);
		dc_buf_commit(w->b, e - pos + 1 + w->start);
		w->col = w->start;
		pos = e + 1;
	}
}

/* Text from the data (a warning, a file name), escaped as a cell is, never
 * cut: a raw byte 1 in it is not the sink's GLUE. */
static void wr_puts_data(struct wrap *w, const char *s)
{
	struct dc_buf esc;
	size_t n;
	if (!s)
		s = "";
	n = strlen(s);
	if (dc_text_printable_fast(s, n)) {
		if (!wr_simple(w, s, n))
			wr_put(w, s, n);
		return;
	}
	dc_buf_init(&esc);
	dc_buf_printable(&esc, s);
	if (esc.failed)
		w->b->failed = 1;
	else
		wr_put(w, esc.data, esc.len);
	dc_buf_release(&esc);
}

void dc_table_wrap_text(struct dc_buf *b, const char *s, size_t col, size_t width, int line_at_a_time)
{
	struct wrap w;
	wr_init(&w, b, col, width);
	if (!line_at_a_time || !wr_simple(&w, s, strlen(s)))
		wr_puts(&w, s);
	wr_word(&w);
}

static int is_textual(const struct dc_field *f)
{
	return f->type == DC_FT_STR || f->type == DC_FT_TEXT || f->type == DC_FT_FN;
}


/* The kinds of cell the table formats itself, without cell_text's
 * dispatch on type and unit: what cell_text writes for them, done in line
 * (a text that needs an escape still goes to cell_text). A column's cells
 * (col_cell, cache_column) and a key-value block's counts. A field that
 * can be null is CK_ANY. */
enum { CK_ANY, CK_COUNT, CK_TEXT, CK_STR, CK_FN };

static int col_kind(const struct dc_field *f)
{
	if (f->is_null)
		return CK_ANY;
	switch (f->type) {
	case DC_FT_U64: return f->unit == DC_U_BYTES ? CK_ANY : CK_COUNT;
	case DC_FT_TEXT: return CK_TEXT;
	case DC_FT_STR: return CK_STR;
	case DC_FT_FN: return CK_FN;
	default: return CK_ANY;
	}
}

/* cell_text(buf, DC_CELL_MAX, f, row, ts, 0, len) for a column of `kind` */
static inline const char *col_cell(int kind, char *buf, const struct dc_field *f, const void *row,
				   const struct tscale *ts, size_t *len)
{
	const char *text;
	switch (kind) {
	case CK_COUNT: {
		uint64_t u;
		memcpy(&u, dc_fld_ptr(row, f), sizeof(u));
		/* a count under 1000 (most are) has no comma; a cached cell
		 * needs no NUL (its length is kept), so none is written */
		*len = u < 1000 ? put_u32_digits(buf, (uint32_t)u) : dc_fmt_u64_grouped(buf, u);
		return buf;
	}
	case CK_TEXT: text = dc_fld_ptr(row, f); break;
	case CK_STR:
		memcpy(&text, dc_fld_ptr(row, f), sizeof(text));
		if (!text)
			text = "";
		break;
	case CK_FN:
		buf[0] = '\0';
		f->text(row, buf, DC_CELL_MAX);
		text = buf;
		break;
	default: return cell_text(buf, DC_CELL_MAX, f, row, ts, 0, len);
	}
	*len = strlen(text);
	if (dc_text_printable_fast(text, *len))
		return text;
	return cell_text(buf, DC_CELL_MAX, f, row, ts, 0, len);
}

/* Key-value block: label, value and unit; labels aligned. Within a width,
 * a label too long to leave room for the widest number goes on a line of
 * its own, and text values wrap under their column. */
static void t_scalars(struct tctx *t, const struct dc_field *const *run, size_t n, const void *base,
		      int depth)
{
	/* each label and number is formatted once: measured, then printed.
	 * A number is formatted into `vals` at `at`, and kept there (at moves
	 * past it) when under VALUE_KEPT bytes: so each of 64 has room for
	 * the longest cell. */
	enum { VALUE_KEPT = 64 };
	char labels[64][160], vals[64 * VALUE_KEPT + DC_CELL_MAX], cell[DC_CELL_MAX];
	const char *label[64], *value[64];
	int kept[64]; /* value[i] holds the number; else it is formatted again */
	size_t label_len[64], label_cols[64], value_len[64];
	struct tscale ts[64];
	size_t w = 0, vmax = 0, indent = (size_t)depth * 2, at = 0;

	for (size_t i = 0; i < n; i++) {
		const struct dc_field *f = run[i];
		size_t l;
		label[i] = dc_fld_label(f, base, labels[i], sizeof(labels[i]));
		label_len[i] = strlen(label[i]);
		/* aligned by columns: a label from the data may hold characters
		 * of several bytes (numbers and units are ASCII) */
		l = label_cols[i] = u8_cols(label[i], label_len[i]);
		if (l > w)
			w = l;
		ts[i] = scaled(f->unit) ? scale_for(f->unit, f64_abs(f, base)) : unit_scale(f->unit);
		kept[i] = 0;
		value_len[i] = 0;
		if (!is_textual(f)) {
			size_t vl;
			uint64_t u;
			/* a count, as a column of counts formats it, and bytes
			 * never null as GiB and exact bytes (what cell_text
			 * writes for them), else cell_text with a scalar's bytes */
			const char *v = vals + at;
			if (col_kind(f) == CK_COUNT) {
				v = col_cell(CK_COUNT, vals + at, f, base, &ts[i], &vl);
			} else if (f->type == DC_FT_U64 && f->unit == DC_U_BYTES && !f->is_null) {
				memcpy(&u, dc_fld_ptr(base, f), sizeof(u));
				vl = gib_exact(vals + at, DC_CELL_MAX, u);
			} else {
				v = cell_text(vals + at, DC_CELL_MAX, f, base, &ts[i], 1, &vl);
			}
			value_len[i] = vl;
			kept[i] = vl < VALUE_KEPT;
			value[i] = v;
			if (kept[i] && v == vals + at)
				at += vl;
			vl += ts[i].ulen + 1;
			if (vl > vmax)
				vmax = vl;
		}
	}
	if (t->o->width && indent + w + 2 + vmax > t->o->width && t->o->width > indent + 2 + vmax + 20)
		w = t->o->width - indent - 2 - vmax;
	for (size_t i = 0; i < n; i++) {
		const struct dc_field *f = run[i];
		size_t l = label_cols[i], lb = label_len[i]; /* its columns and bytes */
		const char *text = NULL; /* a textual field's */

		/* the common line, a number beside a label that fits, in one
		 * piece: what the general case below writes for it */
		if (!is_textual(f) && kept[i] && l <= w && !(t->o->width && indent + l > t->o->width)) {
			int has_unit = f->unit != DC_U_BYTES && ts[i].ulen && !dc_fld_null(f, base);
			size_t ul = has_unit ? ts[i].ulen : 0, vl = value_len[i], pad = w - l + 2;
			size_t need = indent + lb + pad + vl + (has_unit ? 1 + ul : 0) + 1;
			char *o = dc_buf_room(t->b, need + SPACES_COPY);
			if (!o)
				return;
			put_spaces(o, indent);
			o += indent;
			copy_short(o, label[i], lb);
			put_spaces(o + lb, pad);
			o += lb + pad;
			copy_short(o, value[i], vl);
			o += vl;
			if (has_unit) {
				*o++ = ' ';
				copy_short(o, ts[i].unit, ul);
				o += ul;
			}
			*o = '\n';
			dc_buf_commit(t->b, need);
			continue;
		}
		if (is_textual(f))
			text = dc_fld_null(f, base) ? "n/a" : dc_fld_text(f, base, cell, sizeof(cell));
		if (text && l <= w && !(t->o->width && indent + l > t->o->width)) {
			/* a text beside a label that fits, the text on the rest of
			 * the line as wr_simple writes it (printable, no space at
			 * either end or twice in a row, no word as long as the
			 * wrap's buffer): the line in one piece */
			size_t col = indent + w + 2, tl = strlen(text), tc;
			size_t to = indent + lb + w - l + 2, need = to + tl + 1; /* bytes */
			struct wrap wr;
			char *o;
			wr_init(&wr, t->b, col, t->o->width);
			tc = u8_cols(text, tl);
			if (tl && tc < wr.cap && (!t->o->width || col + tc <= t->o->width) && text[0] != ' ' &&
			    text[tl - 1] != ' ' && !dc_table_has_double_space(text, tl) && dc_text_printable_fast(text, tl)) {
				if (!(o = dc_buf_room(t->b, need + SPACES_COPY)))
					return;
				put_spaces(o, indent);
				copy_short(o + indent, label[i], lb);
				put_spaces(o + indent + lb, w - l + 2);
				copy_short(o + to, text, tl);
				o[to + tl] = '\n';
				dc_buf_commit(t->b, need);
				continue;
			}
		}
		dc_buf_pad(t->b, indent);
		if (t->o->width && indent + l > t->o->width) {
			/* a label longer than a line wraps at spaces */
			struct wrap wr;
			wr_init(&wr, t->b, indent, t->o->width);
			wr_puts_data(&wr, label[i]);
			wr_word(&wr);
		} else {
			dc_buf_add(t->b, label[i], lb);
		}
		if (l > w) {
			dc_buf_putc(t->b, '\n');
			dc_buf_pad(t->b, indent + w + 2);
		} else {
			dc_buf_pad(t->b, w - l + 2);
		}
		if (text && f->shell_words && dc_text_printable_fast(text, strlen(text))) {
			shell_lines(t->b, text, indent + w + 2, t->o->width);
		} else if (text) {
			struct wrap wr;
			wr_init(&wr, t->b, indent + w + 2, t->o->width);
			wr_puts_data(&wr, text);
			wr_word(&wr);
		} else if (kept[i]) {
			dc_buf_add(t->b, value[i], value_len[i]);
		} else {
			size_t vl;
			const char *v = cell_text(cell, sizeof(cell), f, base, &ts[i], 1, &vl);
			dc_buf_add(t->b, v, vl);
		}
		/* GiB scalars carry their unit inside the cell */
		if (f->unit != DC_U_BYTES && !dc_fld_null(f, base) && !is_textual(f) && ts[i].ulen) {
			dc_buf_putc(t->b, ' ');
			dc_buf_add(t->b, ts[i].unit, ts[i].ulen);
		}
		dc_buf_putc(t->b, '\n');
	}
}

#define MAX_COLS DC_MAX_COLUMNS

struct col {
	size_t width;
	double max_abs;
	struct tscale ts;
	int wrap; /* text wider than the output width: left-aligned, wrapped at spaces */
	int scaled; /* its unit's scale follows its largest value (scaled()) */
	int kind; /* how its cells are formatted (col_kind) */
	size_t label_len, label_cols; /* its heading's bytes and columns */
};

/* Of `s` (n bytes), the part that fits in `width` columns: up to its last
 * space within the width (a word longer than the width is cut between
 * two characters); *skip also counts the space that ends it. Returns the
 * part's bytes; *cols gets its columns. */
static size_t fit_part(const char *s, size_t n, size_t width, size_t *skip, size_t *cols)
{
	size_t k, e = u8_prefix(s, n, width, cols);
	if (e == n) {
		*skip = n;
		return n;
	}
	/* s[e] starts the character past the width; a space starts one */
	for (k = e; k > 0 && s[k] != ' '; k--)
		;
	if (k == 0) {
		*skip = e;
		return e;
	}
	*skip = k + 1;
	*cols = u8_cols(s, k);
	return k;
}

struct panel_col {
	size_t col, width, step; /* the column, its width, and its width with the gap before it */
};

/* The text c[0..len) right-aligned in a column of `width` after `gap`
 * spaces, in one piece: a column's padding is mostly a few spaces,
 * written as a fixed-size copy of which pad count. Padded by the text's
 * columns, not its bytes. */
static void put_cell(struct dc_buf *b, size_t width, size_t gap, const char *c, size_t len)
{
	static const char spaces[32] = "                                ";
	size_t cols = u8_cols(c, len), pad = (width > cols ? width - cols : 0) + gap;
	char *o = dc_buf_room(b, pad + sizeof(spaces) + len);
	if (!o)
		return;
	if (pad <= sizeof(spaces))
		memcpy(o, spaces, sizeof(spaces));
	else
		memset(o, ' ', pad);
	copy_short(o + pad, c, len);
	dc_buf_commit(b, pad + len);
}

/* A line of a panel's heading: `indent` spaces, each text[k] (len[k]
 * bytes, wid[k] columns) right-aligned in its column after its gap (a
 * text wider than its column, a wrapped one's label, pushes the rest
 * right), a newline; in one piece of at most `line` bytes (the caller's
 * sum of columns, and of the bytes past them of characters of several),
 * spaces first (fixed-size copies), then each text in its place. */
static void put_heading(struct dc_buf *b, size_t indent, const struct panel_col *pc, size_t np,
			const char *const *text, const size_t *len, const size_t *wid, size_t line)
{
	static const char spaces[32] = "                                ";
	char *o, *start;
	if (!(o = start = dc_buf_room(b, line + sizeof(spaces))))
		return;
	for (size_t i = 0; i < line; i += sizeof(spaces))
		memcpy(o + i, spaces, sizeof(spaces));
	o += indent;
	for (size_t k = 0; k < np; k++) {
		size_t pad = (pc[k].width > wid[k] ? pc[k].width - wid[k] : 0) + pc[k].step - pc[k].width;
		copy_short(o + pad, text[k], len[k]);
		o += pad + len[k];
	}
	assert((size_t)(o - start) < line);
	*o++ = '\n';
	dc_buf_commit(b, (size_t)(o - start));
}

/* Rows to visit: [0, from) and [to, n). */
static int next_row(uint64_t *i, uint64_t from, uint64_t to, uint64_t n, int *gap)
{
	*gap = 0;
	if (*i == from && to > from) {
		*i = to;
		*gap = 1;
	}
	return *i < n;
}

/* The text of the cells of the first rows shown, kept from the passes
 * that measure widths for the pass that prints them: each cell is
 * formatted once. Rows past the cache (--all on a long table) are
 * generated and formatted again. */
#define CACHE_ROWS 64
#define CACHE_BYTES 16384
/* the rows whose cells are cached are kept whole while they are measured
 * (t_rows): CACHE_ROWS of them while a row is at most 512 bytes, fewer of
 * a larger one (DC_ROW_MAX: 32) */
#define ROW_STORE_BYTES 32768

struct cell_cache {
	size_t used, ncols;
	/* a cached cell holds a character of several bytes: its bytes are
	 * not its columns, which put_cached_row's one piece counts on */
	int multibyte;
	size_t rows; /* the first rows shown whose cells are kept: at most CACHE_ROWS */
	uint16_t off[CACHE_ROWS][MAX_COLS];
	uint16_t len[CACHE_ROWS][MAX_COLS];
	/* cells of the row kept: a row is printed from the cache when all
	 * ncols are (each is put once), else generated again */
	unsigned char cells[CACHE_ROWS];
	/* CELL_COPY bytes more: a short cell is copied out as that many
	 * bytes from its start, the last one's included */
	char text[CACHE_BYTES + 16];
};

/* A cell of up to CELL_COPY bytes is copied as CELL_COPY bytes of which
 * its length counts (a fixed-size copy is two moves; a call to memcpy of
 * a variable length costs more than most cells' bytes): the source has
 * that many bytes readable, the destination room for them. */
#define CELL_COPY 16

static inline void copy_cell(char *o, const char *c, size_t len)
{
	if (len <= CELL_COPY)
		memcpy(o, c, CELL_COPY);
	else
		copy_short(o, c, len);
}

/* Where to format a cell of row `slot`: the cache's free end while it has
 * room for the longest cell (DC_CELL_MAX), so that cache_put finds the
 * text in place and copies nothing; else `scratch` (DC_CELL_MAX bytes). */
static inline char *cache_room(struct cell_cache *c, uint64_t slot, char *scratch)
{
	return slot < c->rows && CACHE_BYTES - c->used >= DC_CELL_MAX ? c->text + c->used : scratch;
}

/* Keeps the cell; returns 1, or 0 when it is not kept (a row past the
 * cache's, or no room). */
static inline int cache_put(struct cell_cache *c, uint64_t slot, size_t col, const char *text, size_t len)
{
	if (slot >= c->rows || c->used + len > CACHE_BYTES)
		return 0;
	if (text != c->text + c->used) /* else formatted in place (cache_room) */
		memcpy(c->text + c->used, text, len);
	c->off[slot][col] = (uint16_t)c->used;
	c->len[slot][col] = (uint16_t)len;
	c->cells[slot]++;
	c->used += len;
	return 1;
}

/* Row `slot`'s cell of column `col` (slot > 0) is the cached cell above
 * it, the same value: it points at that text, neither formatted nor
 * copied again, and is no wider. A table's columns often repeat from row
 * to row (a ring's phases, rounds and chunk bytes, identical ranks). */
static inline void cache_same(struct cell_cache *c, uint64_t slot, size_t col)
{
	c->off[slot][col] = c->off[slot - 1][col];
	c->len[slot][col] = c->len[slot - 1][col];
	c->cells[slot]++;
}

/* The width of a column of `width` so far with the cell c[0..len) of
 * more bytes than that: the cell's columns when they are more. A cell's
 * columns are at most its bytes, so the caller counts only a cell longer
 * than the width (never most cells). */
static size_t cell_width(const char *c, size_t len, size_t width)
{
	size_t cols = u8_cols(c, len);
	return cols > width ? cols : width;
}

/* A cached text cell that is printable but maybe not ASCII (the check
 * that says ASCII can err the other way, at a cost of speed alone) marks
 * the cache multibyte; 0 when the text needs an escape */
static inline int cache_printable(struct cell_cache *cc, const char *text, size_t len)
{
	if (dc_text_ascii_printable(text, len))
		return 1;
	if (!dc_text_printable_n(text, len))
		return 0;
	cc->multibyte = 1;
	return 1;
}

/* 1 when a column's text is its 8-byte value's alone: a number that is
 * never null (its unit and scale are the column's) */
static int cell_is_number(const struct dc_field *f)
{
	return (f->type == DC_FT_U64 || f->type == DC_FT_F64) && !f->is_null;
}

/* The cells of column `i` (one of a fixed display unit) in the stored
 * rows [0, nrows) (row s at rows + s * stride), formatted into the cache
 * as cache_room and cache_put would keep them one at a time, the column
 * widened to each. A column at a time, so that its kind is dispatched on
 * once, not once a cell, and its width and the cache's end stay in
 * registers: counts, texts and text functions are written in a loop of
 * their own kind; the rest of a column (a column of any other kind:
 * doubles, bytes in GiB, a field that can be null; from a text that needs
 * an escape on; or once the cache has too little room for the loop) goes
 * cell by cell through cell_text. A number, or a static text (the same
 * pointer), equal to the cell above it takes that cell's text
 * (cache_same). `scratch`: DC_CELL_MAX bytes. */
static void cache_column(struct cell_cache *cc, struct col *col, size_t i, const struct dc_field *f,
			 const unsigned char *rows, size_t stride, size_t nrows, char *scratch)
{
	size_t used = cc->used, width = col->width, s = 0;
	const unsigned char *p = rows + f->off; /* the field in row s */
	uint64_t above = 0; /* the number (or a STR's pointer) of the cell above, when kept */
	int kept = 0, number = cell_is_number(f);

	switch (col->kind) {
	case CK_COUNT:
		/* a grouped count is at most 26 bytes ("18,446,744,073,709,551,615")
		 * and its NUL: written in place while the cache has room for that */
		for (; s < nrows && used <= CACHE_BYTES - 32; s++, p += stride) {
			uint64_t u;
			size_t l;
			memcpy(&u, p, sizeof(u));
			if (s && u == above) {
				cache_same(cc, s, i);
				continue;
			}
			above = u;
			l = u < 1000 ? put_u32_digits(cc->text + used, (uint32_t)u)
				     : dc_fmt_u64_grouped(cc->text + used, u);
			if (l > width)
				width = l;
			cc->off[s][i] = (uint16_t)used;
			cc->len[s][i] = (uint16_t)l;
			cc->cells[s]++;
			used += l;
		}
		break;
	case CK_TEXT:
	case CK_STR:
		for (; s < nrows; s++, p += stride) {
			const char *text = (const char *)p;
			size_t l;
			if (col->kind == CK_STR) {
				/* the stored rows are apart: the same pointer is
				 * the same static text */
				memcpy(&text, p, sizeof(text));
				if (s && (uint64_t)(uintptr_t)text == above) {
					cache_same(cc, s, i);
					continue;
				}
				above = (uint64_t)(uintptr_t)text;
				if (!text)
					text = "";
			}
			l = strlen(text);
			if (l > CACHE_BYTES - used || !cache_printable(cc, text, l))
				break; /* left to cell_text, below */
			copy_short(cc->text + used, text, l);
			if (l > width)
				width = cell_width(text, l, width);
			cc->off[s][i] = (uint16_t)used;
			cc->len[s][i] = (uint16_t)l;
			cc->cells[s]++;
			used += l;
		}
		break;
	case CK_FN:
		/* written in place while the cache has room for the longest cell */
		for (; s < nrows && used <= CACHE_BYTES - DC_CELL_MAX; s++) {
			char *at = cc->text + used;
			size_t l;
			at[0] = '\0';
			f->text(rows + s * stride, at, DC_CELL_MAX);
			l = strlen(at);
			if (!cache_printable(cc, at, l))
				break; /* escaped by cell_text, below */
			if (l > width)
				width = cell_width(at, l, width);
			cc->off[s][i] = (uint16_t)used;
			cc->len[s][i] = (uint16_t)l;
			cc->cells[s]++;
			used += l;
		}
		break;
	default: break;
	}
	cc->used = used;
	for (; s < nrows; s++) {
		const unsigned char *row = rows + s * stride;
		char *dst = cache_room(cc, s, scratch);
		size_t l;
		const char *c;
		if (number) {
			uint64_t v;
			memcpy(&v, row + f->off, sizeof(v));
			if (kept && v == above) {
				cache_same(cc, s, i);
				continue;
			}
			above = v;
		}
		c = cell_text(dst, DC_CELL_MAX, f, row, &col->ts, 0, &l);
		if (l > width)
			width = cell_width(c, l, width);
		if (!number && !dc_text_ascii_printable(c, l))
			cc->multibyte = 1; /* an escaped text keeps its characters */
		kept = cache_put(cc, s, i, c, l);
	}
	col->width = width;
}

/* A cached row of a panel with no wrapped column, as the cell loop of
 * t_panel writes it (`indent` spaces, each cell right-aligned in its
 * column after its gap, a newline), in one piece of `line` bytes: no
 * cached cell is wider than its column (the widths were measured on
 * them), so the line's length is known before it is written. Each
 * column's padding is a fixed-size copy of spaces (put_cell's), and each
 * short cell one of CELL_COPY bytes, for which the piece reserves that
 * many bytes more. Should a cell ever be wider
 * than its column, nothing is committed and 0 returned (the caller then
 * writes the row cell by cell), so a broken width cannot write past the
 * room; 1 when the row is written. */
static int put_cached_row(struct dc_buf *b, const struct cell_cache *cc, uint64_t slot, const struct panel_col *pc,
			  size_t np, size_t indent, size_t line)
{
	static const char spaces[32] = "                                ";
	const uint16_t *off = cc->off[slot], *lens = cc->len[slot];
	char *o = dc_buf_room(b, line + sizeof(spaces) + CELL_COPY), *start = o;
	if (!o)
		return 1; /* the buffer has failed: nothing more is written */
	if (indent <= sizeof(spaces))
		memcpy(o, spaces, sizeof(spaces)); /* the first cell's step writes over the rest */
	else
		memset(o, ' ', indent);
	o += indent;
	for (size_t k = 0; k < np; k++) {
		size_t c = pc[k].col, len = lens[c], step = pc[k].step;
		if (len > pc[k].width)
			return 0;
		if (step <= sizeof(spaces))
			memcpy(o, spaces, sizeof(spaces));
		else
			memset(o, ' ', step - len);
		o += step; /* the cell ends the step */
		copy_cell(o - len, cc->text + off[c], len);
	}
	*o++ = '\n';
	assert((size_t)(o - start) == line);
	dc_buf_commit(b, (size_t)(o - start));
	return 1;
}

/* One panel of a table: the columns in `panel`, header, units row (when a
 * column has a unit), rows, and a marker where rows were left out. */
/* `cf`: the columns the table shows (f->sub less its JSON-valued ones),
 * which `panel` indexes. */
static void t_panel(struct tctx *t, const struct dc_field *f, const struct dc_fields *cf, const void *base,
		    int depth, const struct col *cols, const size_t *panel, size_t np, uint64_t from, uint64_t to,
		    uint64_t n, const struct cell_cache *cc)
{
	_Alignas(max_align_t) unsigned char row[DC_ROW_MAX];
	const struct dc_rows *rs = f->rows;
	char cell[DC_CELL_MAX];
	size_t k, any_unit = 0;
	int gap;

	size_t line = (size_t)depth * 2 + 2 + 1; /* a row's line: indent, cells, gaps, newline */
	int wraps = 0;
	struct panel_col pc[MAX_COLS];

	const char *text[MAX_COLS];
	size_t len[MAX_COLS], wid[MAX_COLS];

	/* what headings wider than their columns add, and their bytes past
	 * their columns */
	size_t wider = 0;
	for (k = 0; k < np; k++) {
		const struct dc_field *c = &cf->f[panel[k]];
		text[k] = c->label ? c->label : c->key;
		len[k] = cols[panel[k]].label_len;
		wid[k] = cols[panel[k]].label_cols;
		wider += len[k] - wid[k];
		if (wid[k] > cols[panel[k]].width)
			wider += wid[k] - cols[panel[k]].width;
		any_unit |= cols[panel[k]].ts.ulen != 0;
		line += cols[panel[k]].width + (k ? 2 : 0);
		wraps |= cols[panel[k]].wrap;
		pc[k].col = panel[k];
		pc[k].width = cols[panel[k]].width;
		pc[k].step = cols[panel[k]].width + (k ? 2 : 0);
	}
	put_heading(t->b, (size_t)depth * 2 + 2, pc, np, text, len, wid, line + wider);
	if (any_unit) {
		wider = 0;
		for (k = 0; k < np; k++) {
			size_t ul = cols[panel[k]].ts.ulen;
			text[k] = cols[panel[k]].ts.head;
			len[k] = wid[k] = ul ? ul + 2 : 0; /* ASCII */
			if (len[k] > cols[panel[k]].width)
				wider += len[k] - cols[panel[k]].width;
		}
		put_heading(t->b, (size_t)depth * 2 + 2, pc, np, text, len, wid, line + wider);
	}
	for (uint64_t slot = 0, r = 0; next_row(&r, from, to, n, &gap); r++, slot++) {
		int cached = slot < cc->rows;
		if (gap) {
			dc_buf_pad(t->b, (size_t)depth * 2 + 2);
			char num[32];
			/* "... N rows not shown (...) ...", piece by piece, not
			 * through printf */
			dc_buf_add(t->b, "... ", 4);
			dc_buf_add(t->b, num, dc_fmt_u64_grouped(num, to - from));
			dc_buf_putc(t->b, ' ');
			dc_buf_puts(t->b, rs->what ? rs->what : "rows");
			if (rs->quadratic && t->r->nsec > 1) {
				dc_buf_puts(t->b, " not shown (--only ");
				dc_buf_puts(t->b, t->section ? t->section : "?");
				dc_buf_puts(t->b, " --all prints every one) ...\n");
			} else {
				dc_buf_puts(t->b, " not shown (--all prints every row) ...\n");
			}
		}
		cached = cached && cc->cells[slot] == cc->ncols;
		/* a row in one piece counts a byte a column: not with a
		 * character of several bytes, whose cells put_cell pads */
		if (cached && !wraps && !cc->multibyte && put_cached_row(t->b, cc, slot, pc, np, (size_t)depth * 2 + 2, line))
			continue;
		if (!cached) {
			memset(row, 0, rs->row_size);
			rs->row(base, r, row);
		}
		dc_buf_pad(t->b, (size_t)depth * 2 + 2);
		{
			/* a wrapped cell's rest, printed on the lines that follow
			 * under its column (the panel holds one: it fills the line) */
			char rest[DC_CELL_MAX];
			size_t rest_len = 0, rest_col = 0, rest_w = 0, at = (size_t)depth * 2 + 2;
			for (k = 0; k < np; k++) {
				const char *c;
				size_t l, w = cols[panel[k]].width;
				if (cached) {
					c = cc->text + cc->off[slot][panel[k]];
					l = cc->len[slot][panel[k]];
				} else {
					c = cell_text(cell, sizeof(cell), &cf->f[panel[k]], row, &cols[panel[k]].ts, 0, &l);
				}
				if (cols[panel[k]].wrap) {
					/* left-aligned, the rest on the following lines */
					size_t skip, pc_cols, part = fit_part(c, l, w, &skip, &pc_cols);
					if (k)
						dc_buf_pad(t->b, 2);
					dc_buf_add(t->b, c, part);
					if (k + 1 < np)
						dc_buf_pad(t->b, w - pc_cols);
					if (l > skip && !rest_len) {
						rest_col = at + (k ? 2 : 0);
						rest_w = w;
						rest_len = l - skip < sizeof(rest) ? l - skip : sizeof(rest) - 1;
						memcpy(rest, c + skip, rest_len);
					}
				} else {
					put_cell(t->b, w, k ? 2 : 0, c, l);
				}
				at += w + (k ? 2 : 0);
			}
			dc_buf_putc(t->b, '\n');
			for (size_t pos = 0; pos < rest_len;) {
				size_t skip, part_cols, part = fit_part(rest + pos, rest_len - pos, rest_w, &skip, &part_cols);
				dc_buf_pad(t->b, rest_col);
				dc_buf_add(t->b, rest + pos, part);
				dc_buf_putc(t->b, '\n');
				pos += skip;
			}
		}
	}
}

/* A table of rows: header, units row, rows; an excerpt marker where rows
 * were left out. Wider than the output width, it splits into panels. */
static void t_rows(struct tctx *t, const struct dc_field *f, const void *base, int depth)
{
	_Alignas(max_align_t) unsigned char row[DC_ROW_MAX];
	/* the first rows shown, kept whole for the passes that measure and
	 * cache their cells a column at a time (cache_column) */
	_Alignas(max_align_t) unsigned char store[ROW_STORE_BYTES];
	const struct dc_rows *rs = f->rows;
	const struct dc_fields *cf = f->sub;
	struct dc_field kept[MAX_COLS];
	struct dc_fields kept_fs = {kept, 0};
	struct col cols[MAX_COLS];
	size_t ncols = cf->n < MAX_COLS ? cf->n : MAX_COLS, i;
	uint64_t n = rs->count(base), from, to, r, shown;
	char cell[DC_CELL_MAX], lb[256];
	int gap, any_unit = 0;
	size_t nscaled = 0, keys, nplain = 0, nstored, stride;
	size_t plain[MAX_COLS], scaled_col[MAX_COLS]; /* the columns of each sort, in order */
	struct cell_cache cc;
	uint64_t slot;
	struct dc_row_doubles dbl;

	/* a JSON-valued column (struct dc_field.json_value) is JSON's alone:
	 * the others copied, when there is one */
	for (i = 0; i < ncols && !cf->f[i].json_value; i++)
		;
	if (i < ncols) {
		for (i = 0; i < cf->n && kept_fs.n < MAX_COLS; i++)
			if (!cf->f[i].json_value)
				kept[kept_fs.n++] = cf->f[i];
		cf = &kept_fs;
		ncols = cf->n;
	}
	dc_buf_pad(t->b, (size_t)depth * 2);
	{
		/* a long label wraps at the width, its lines indented alike; a
		 * static one is simple text (printable ASCII, single spaces,
		 * none at either end: check_report.c), which the wrap writes
		 * as it is when it fits */
		const char *label = dc_fld_label(f, base, lb, sizeof(lb));
		size_t ll = strlen(label);
		struct wrap wr;
		if (!f->label_fn && (!t->o->width || (size_t)depth * 2 + u8_cols(label, ll) <= t->o->width)) {
			dc_buf_add_short(t->b, label, ll);
		} else {
			wr_init(&wr, t->b, (size_t)depth * 2, t->o->width);
			wr_puts_data(&wr, label);
			wr_word(&wr);
		}
	}
	if (n == 0) {
		dc_buf_puts(t->b, ": none\n");
		return;
	}
	dc_buf_putc(t->b, '\n');
	dc_excerpt_bounds_max(n, dc_rows_limit(t->r, rs, t->o->max_rows), &from, &to);
	dc_row_doubles_init(&dbl, f->sub); /* every double, a JSON-valued column's too */
	/* the rows shown ([0, from) and [to, n)), of which the store and the
	 * cache keep the first nstored, each at a multiple of the alignment */
	shown = to > from ? from + (n - to) : n;
	stride = (rs->row_size + _Alignof(max_align_t) - 1) / _Alignof(max_align_t) * _Alignof(max_align_t);
	nstored = stride ? ROW_STORE_BYTES / stride : CACHE_ROWS;
	if (nstored > CACHE_ROWS)
		nstored = CACHE_ROWS;
	if (nstored > shown)
		nstored = (size_t)shown;
	cc.used = 0;
	cc.multibyte = 0;
	cc.ncols = ncols;
	cc.rows = nstored;
	memset(cc.cells, 0, sizeof(cc.cells));
	/* pass 1: widths of the columns with a fixed display unit, and the
	 * largest value of those whose scale depends on it (time, FLOPs) */
	for (i = 0; i < ncols; i++) {
		cols[i].max_abs = 0;
		cols[i].wrap = 0;
		const char *head = cf->f[i].label ? cf->f[i].label : cf->f[i].key;
		cols[i].label_len = strlen(head);
		cols[i].width = cols[i].label_cols = u8_cols(head, cols[i].label_len);
		cols[i].ts = unit_scale(cf->f[i].unit); /* a scaled one's is chosen in pass 2 */
		cols[i].scaled = scaled(cf->f[i].unit);
		cols[i].kind = col_kind(&cf->f[i]);
		if (cols[i].scaled)
			scaled_col[nscaled++] = i;
		else
			plain[nplain++] = i;
	}
	/* the stored rows, made and checked in order, then cached a column
	 * at a time */
	for (r = 0, slot = 0; slot < nstored && next_row(&r, from, to, n, &gap); r++, slot++) {
		unsigned char *sr = store + slot * stride;
		memset(sr, 0, rs->row_size);
		rs->row(base, r, sr);
		if (!dc_row_doubles_finite(&dbl, sr) && dc_report_row_check(t->r, f, base, r, sr, t->b) != 0)
			return;
	}
	for (size_t k = 0; k < nplain; k++)
		cache_column(&cc, &cols[plain[k]], plain[k], &cf->f[plain[k]], store, stride, nstored, cell);
	for (size_t si = 0; si < nscaled; si++) {
		const struct dc_field *sf = &cf->f[scaled_col[si]];
		for (slot = 0; slot < nstored; slot++) {
			double a = f64_abs(sf, store + slot * stride);
			if (a > cols[scaled_col[si]].max_abs)
				cols[scaled_col[si]].max_abs = a;
		}
	}
	/* the rows past the store: measured, made again to be printed */
	for (; next_row(&r, from, to, n, &gap); r++) {
		memset(row, 0, rs->row_size);
		rs->row(base, r, row);
		if (!dc_row_doubles_finite(&dbl, row) && dc_report_row_check(t->r, f, base, r, row, t->b) != 0)
			return;
		for (size_t si = 0; si < nscaled; si++) {
			i = scaled_col[si];
			double a = f64_abs(&cf->f[i], row);
			if (a > cols[i].max_abs)
				cols[i].max_abs = a;
		}
		for (size_t k = 0; k < nplain; k++) {
			size_t l;
			i = plain[k];
			const char *c = col_cell(cols[i].kind, cell, &cf->f[i], row, &cols[i].ts, &l);
			if (l > cols[i].width)
				cols[i].width = cell_width(c, l, cols[i].width);
		}
	}
	/* pass 2, only for scaled columns: their widths in the chosen scale,
	 * the stored rows' cells cached (a double's as cell_text formats it) */
	for (size_t si = 0; si < nscaled; si++) {
		const struct dc_field *sf = &cf->f[scaled_col[si]];
		struct col *col = &cols[scaled_col[si]];
		uint64_t above = 0; /* the cell above's double, when kept */
		int above_kept = 0;
		col->ts = scale_for(sf->unit, col->max_abs);
		for (slot = 0; slot < nstored; slot++) {
			const unsigned char *sr = store + slot * stride;
			char *dst = cache_room(&cc, slot, cell);
			const char *text = dst;
			size_t l;
			if (cell_is_number(sf)) { /* equal to the cell above: its text */
				uint64_t v;
				memcpy(&v, sr + sf->off, sizeof(v));
				if (above_kept && v == above) {
					cache_same(&cc, slot, scaled_col[si]);
					continue;
				}
				above = v;
			}
			if (sf->type != DC_FT_F64) {
				text = cell_text(dst, DC_CELL_MAX, sf, sr, &col->ts, 0, &l);
			} else if (dc_fld_null(sf, sr)) { /* as cell_text writes a null */
				text = "n/a";
				l = 3;
			} else {
				double v;
				memcpy(&v, sr + sf->off, sizeof(v));
				l = scaled_text(dst, DC_CELL_MAX, v, &col->ts);
			}
			above_kept = cache_put(&cc, slot, scaled_col[si], text, l);
			if (l > col->width)
				col->width = cell_width(text, l, col->width);
			if (sf->type != DC_FT_F64 && !dc_text_ascii_printable(text, l))
				cc.multibyte = 1; /* not a number's text */
		}
	}
	for (r = 0, slot = 0; nscaled && shown > nstored && next_row(&r, from, to, n, &gap); r++, slot++) {
		if (slot < nstored)
			continue;
		memset(row, 0, rs->row_size);
		rs->row(base, r, row);
		for (size_t si = 0; si < nscaled; si++) {
			size_t l;
			i = scaled_col[si];
			const char *c = cell_text(cell, DC_CELL_MAX, &cf->f[i], row, &cols[i].ts, 0, &l);
			if (l > cols[i].width)
				cols[i].width = cell_width(c, l, cols[i].width);
		}
	}
	for (i = 0; i < ncols; i++) {
		size_t ul = cols[i].ts.ulen;
		if (ul + 2 > cols[i].width)
			cols[i].width = ul + 2;
		if (ul)
			any_unit = 1;
	}
	/* columns that fit the width make a panel; each further panel repeats
	 * the key columns, which name the row */
	keys = rs->key_columns ? rs->key_columns : 1;
	if (keys > ncols)
		keys = ncols;
	/* a text column wider than what the line leaves beside the key
	 * columns wraps to that width, in a panel of its own */
	if (t->o->width) {
		size_t used = (size_t)depth * 2 + 2, widest = 0;
		/* the widest short column (a number, a unit-bearing text) */
		for (i = keys; i < ncols; i++)
			if (cols[i].width <= 24 && cols[i].width > widest)
				widest = cols[i].width;
		/* key columns too wide to leave a number beside them: the
		 * widest textual key wraps */
		for (i = 0; i < keys; i++)
			used += cols[i].width + 2;
		if (keys < ncols && used + widest + 2 > t->o->width) {
			size_t k = keys;
			for (i = 0; i < keys; i++)
				if (is_textual(&cf->f[i]) && (k == keys || cols[i].width > cols[k].width))
					k = i;
			if (k < keys && used + widest + 2 - t->o->width + 16 < cols[k].width) {
				size_t cut = used + widest + 2 - t->o->width;
				cols[k].width -= cut;
				cols[k].wrap = 1;
				used -= cut;
			}
		}
		for (i = keys; i < ncols; i++) {
			if (is_textual(&cf->f[i]) && used + 16 < t->o->width && cols[i].width > t->o->width - used) {
				cols[i].width = t->o->width - used;
				cols[i].wrap = 1;
			}
		}
	}
	for (size_t next = keys, first_panel = 1; first_panel || next < ncols; first_panel = 0) {
		size_t panel[MAX_COLS], np = 0, linew = (size_t)depth * 2;
		for (; np < keys; np++) {
			panel[np] = np;
			linew += cols[np].width + 2;
		}
		while (next < ncols &&
		       (np == keys || !t->o->width || linew + 2 + cols[next].width <= t->o->width)) {
			linew += 2 + cols[next].width;
			panel[np++] = next++;
		}
		t_panel(t, f, cf, base, depth, cols, panel, np, from, to, n, &cc);
	}
	(void)any_unit;
}

/* The text of inline lists as the wrap takes it (GLUE inside a list),
 * gathered in `s` and handed to the wrap a bufferful at a time: most
 * process groups fit on their line, and a text that fits is written as
 * it is, its GLUE as spaces, which is what the wrap writes for it (no
 * word passes the width, so no line breaks; a glued run longer than the
 * wrap's buffer breaks at a glue, which a space then separates). */
struct list_text {
	struct wrap *w;
	size_t n;
	int handed; /* part of the text went to the wrap */
	char s[1024];
};

static void lt_add(struct list_text *lt, const char *s, size_t n)
{
	if (lt->n + n > sizeof(lt->s)) {
		wr_put(lt->w, lt->s, lt->n);
		lt->n = 0;
		lt->handed = 1;
		if (n > sizeof(lt->s)) {
			wr_put(lt->w, s, n);
			return;
		}
	}
	memcpy(lt->s + lt->n, s, n);
	lt->n += n;
}

static void lt_adds(struct list_text *lt, const char *s)
{
	lt_add(lt, s, strlen(s));
}

/* Writes what lt holds: as it is when it is the whole text and fits on
 * the wrap's line, else through the wrap */
static void lt_end(struct list_text *lt)
{
	struct wrap *w = lt->w;
	char *o;
	if (lt->handed || (w->width && w->col + lt->n > w->width)) {
		wr_put(w, lt->s, lt->n);
		wr_word(w);
		return;
	}
	if (!(o = dc_buf_room(w->b, lt->n)))
		return;
	for (size_t i = 0; i < lt->n; i++)
		o[i] = lt->s[i] == GLUE ? ' ' : lt->s[i];
	dc_buf_commit(w->b, lt->n);
}

/* Inline lists: "label  [[0, 1, 2] [3, 4, 5]]", excerpted at both levels,
 * wrapped under the first list. */
static void t_lists(struct tctx *t, const struct dc_field *f, const void *base, int depth)
{
	const struct dc_lists *ls = f->lists;
	uint64_t n = ls->count(base), from, to;
	char lb[256], num[40];
	const char *label = dc_fld_label(f, base, lb, sizeof(lb));
	struct wrap wr;
	struct list_text lt;
	int gap;

	dc_buf_pad(t->b, (size_t)depth * 2);
	dc_buf_puts(t->b, label);
	dc_buf_pad(t->b, 2);
	if (n == 0) {
		dc_buf_puts(t->b, "none\n");
		return;
	}
	dc_excerpt_bounds(n, t->o, &from, &to);
	dc_buf_putc(t->b, '[');
	wr_init(&wr, t->b, (size_t)depth * 2 + u8_cols(label, strlen(label)) + 3, t->o->width);
	lt.w = &wr;
	lt.n = 0;
	lt.handed = 0;
	/* lines break between lists; a list breaks only when longer than a line */
	for (uint64_t i = 0, first = 1; next_row(&i, from, to, n, &gap); i++, first = 0) {
		uint64_t m = ls->len(base, i), f2, t2;
		if (!first)
			lt_add(&lt, " ", 1);
		if (gap) {
			dc_fmt_u64_grouped(num, to - from);
			lt_adds(&lt, "...\x01(");
			lt_adds(&lt, num);
			lt_adds(&lt, "\x01more\x01");
			lt_adds(&lt, ls->what ? ls->what : "lists");
			lt_adds(&lt, ") ");
		}
		dc_excerpt_bounds(m, t->o, &f2, &t2);
		lt_add(&lt, "[", 1);
		for (uint64_t j = 0, jfirst = 1; next_row(&j, f2, t2, m, &gap); j++, jfirst = 0) {
			if (!jfirst)
				lt_add(&lt, ",\x01", 2);
			if (gap) {
				dc_fmt_u64_grouped(num, t2 - f2);
				lt_adds(&lt, "...\x01(");
				lt_adds(&lt, num);
				lt_adds(&lt, "\x01more\x01");
				lt_adds(&lt, ls->item_what ? ls->item_what : "items");
				lt_adds(&lt, ")\x01");
			}
			lt_add(&lt, num, dc_fmt_u64(num, ls->item(base, i, j)));
		}
		lt_add(&lt, "]", 1);
	}
	lt_add(&lt, "]", 1);
	lt_end(&lt);
	dc_buf_putc(t->b, '\n');
}

/* Prose: one item a line, never cut. */
static void t_prose(struct tctx *t, const struct dc_field *f, const void *base, int depth)
{
	uint64_t n = f->prose->count(base);
	char lb[256];

	dc_buf_pad(t->b, (size_t)depth * 2);
	dc_buf_puts(t->b, dc_fld_label(f, base, lb, sizeof(lb)));
	if (n == 0) {
		dc_buf_puts(t->b, "  none\n");
		return;
	}
	dc_buf_putc(t->b, '\n');
	for (uint64_t i = 0; i < n; i++) {
		dc_buf_pad(t->b, (size_t)depth * 2 + 2);
		dc_buf_add(t->b, "- ", 2);
		{
			struct wrap wr;
			wr_init(&wr, t->b, (size_t)depth * 2 + 4, t->o->width);
			wr_puts_data(&wr, f->prose->at(base, i));
			wr_word(&wr);
		}
		dc_buf_putc(t->b, '\n');
	}
}

/* --only SECTION.TABLE where this run has no such table (comm.ep with ep
 * 1): the path's titles down to it and a line saying so, as JSON writes
 * an empty array there and CSV a bare header */
static void t_empty_path(struct tctx *t, const struct dc_field *f, int depth)
{
	dc_buf_pad(t->b, (size_t)depth * 2);
	dc_buf_puts(t->b, f->label ? f->label : f->key);
	dc_buf_putc(t->b, '\n');
	if (f->type == DC_FT_OBJECT && f->sub && f->sub->n == 1) {
		t_empty_path(t, &f->sub->f[0], depth + 1);
		return;
	}
	dc_buf_pad(t->b, (size_t)(depth + 1) * 2);
	dc_buf_puts(t->b, "(none in this run)\n");
}

static void t_fields(struct tctx *t, const struct dc_fields *fs, const void *base, int depth)
{
	const struct dc_field *run[64];
	size_t nrun = 0;
	char lb[256];

	for (size_t i = 0; i <= fs->n; i++) {
		const struct dc_field *f = i < fs->n ? &fs->f[i] : NULL;
		if (f && !dc_fld_shown(f, base)) {
			if (t->r->only_table && f >= t->r->only_chain && f < t->r->only_chain + DC_ONLY_DEPTH)
				t_empty_path(t, f, depth);
			continue;
		}
		if (f && dc_fld_scalar(f)) {
			if (nrun == 64) { /* a longer block aligns in parts */
				t_scalars(t, run, nrun, base, depth);
				nrun = 0;
			}
			run[nrun++] = f;
			continue;
		}
		if (nrun) {
			t_scalars(t, run, nrun, base, depth);
			nrun = 0;
		}
		if (!f)
			break;
		switch (f->type) {
		case DC_FT_OBJECT: {
			const void *sub = dc_fld_ptr(base, f);
			if (depth == 0)
				t->section = f->key;
			t_object(t, f->sub, sub, dc_fld_label(f, sub, lb, sizeof(lb)), depth);
			break;
		}
		case DC_FT_ROWS: t_rows(t, f, base, depth); break;
		case DC_FT_LISTS: t_lists(t, f, base, depth); break;
		case DC_FT_PROSE: t_prose(t, f, base, depth); break;
		default: break;
		}
	}
}

static void t_object(struct tctx *t, const struct dc_fields *fs, const void *base, const char *title,
		     int depth)
{
	int inner = depth;
	if (title) {
		if (depth == 0) {
			size_t l = strlen(title), c = u8_cols(title, l); /* underlined by columns */
			if (!t->no_blank)
				dc_buf_putc(t->b, '\n');
			t->no_blank = 0;
			dc_buf_add(t->b, title, l);
			dc_buf_putc(t->b, '\n');
			char *u = dc_buf_room(t->b, c + 1);
			if (u) { /* the underline in one piece */
				memset(u, '=', c);
				u[c] = '\n';
				dc_buf_commit(t->b, c + 1);
			}
		} else {
			dc_buf_pad(t->b, (size_t)depth * 2);
			dc_buf_puts(t->b, title);
			dc_buf_putc(t->b, '\n');
		}
		inner = depth + 1;
	}
	t_fields(t, fs, base, inner);
}

int dc_report_render_table(struct dc_report *r, const struct dc_render_opts *o, struct dc_buf *out)
{
	struct tctx t = {out, o, r->only, r, NULL};
	const void *base;
	const struct dc_fields *root = dc_report_fields_shown(r, &base);
	t_fields(&t, root, base, 0);
	return out->failed ? -1 : 0;
}
