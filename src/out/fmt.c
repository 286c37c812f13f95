/* fmt.c - number and string formatting shared by the sinks; see section.h.
 *
 * Rendering is most of a run's work, so the common cases skip printf: an
 * integer is written digit by digit, and a double whose shortest exact
 * decimal has at most 15 significant digits in %g's fixed range is found by
 * scaling with powers of ten and checking the round trip with one division
 * (correctly rounded, so it equals what strtod would read back). Everything
 * else goes through the "%.15g" ... "%.17g" loop. Both paths give the same
 * text; tests/check_report.c compares them on a million seeded doubles.
 */
#include "distcalc/section.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char two_digits[] = "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
				 "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
				 "8081828384858687888990919293949596979899";

size_t dc_fmt_u64(char *buf, uint64_t v)
{
	char tmp[24];
	char *p = tmp + sizeof(tmp);
	size_t n;
	while (v >= 100) {
		unsigned d = (unsigned)(v % 100) * 2;
		v /= 100;
		*--p = two_digits[d + 1];
		*--p = two_digits[d];
	}
	if (v >= 10) {
		unsigned d = (unsigned)v * 2;
		*--p = two_digits[d + 1];
		*--p = two_digits[d];
	} else {
		*--p = (char)('0' + v);
	}
	n = (size_t)(tmp + sizeof(tmp) - p);
	memcpy(buf, p, n);
	buf[n] = '\0';
	return n;
}

size_t dc_fmt_u64_grouped(char *buf, uint64_t v)
{
	char tmp[32];
	char *p = tmp + sizeof(tmp);
	size_t n;
	for (int d = 0;; d++) {
		if (d && d % 3 == 0)
			*--p = ',';
		*--p = (char)('0' + v % 10);
		v /= 10;
		if (!v)
			break;
	}
	n = (size_t)(tmp + sizeof(tmp) - p);
	memcpy(buf, p, n);
	buf[n] = '\0';
	return n;
}

static const double pow10_tab[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,
				   1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17,
				   1e18, 1e19};

/* Writes the decimal digits[0..n) with k of them after the point, as %g's
 * fixed form does (0.000ddd when k >= n), after a '-' when neg. Returns
 * the length. */
static size_t put_fixed(char *buf, const char *digits, size_t n, size_t k, int neg)
{
	size_t o = 0;
	if (neg)
		buf[o++] = '-';
	if (k >= n) {
		buf[o++] = '0';
		buf[o++] = '.';
		for (size_t z = n; z < k; z++)
			buf[o++] = '0';
		memcpy(buf + o, digits, n);
		o += n;
	} else {
		memcpy(buf + o, digits, n - k);
		o += n - k;
		if (k > 0) {
			buf[o++] = '.';
			memcpy(buf + o, digits + n - k, k);
			o += k;
		}
	}
	buf[o] = '\0';
	return o;
}

/* The fast path: |v| in [1e-4, 1e15) with a round-tripping decimal of at
 * most 15 significant digits, which is exactly what "%.15g" prints there
 * (the 15-digit grid is over four ulps wide, so rounding v to it lands on
 * that decimal). Returns the length, or 0 when the slow path must decide. */
static size_t fmt_fixed(char *buf, double v)
{
	double a = fabs(v);
	if (!(a >= 1e-4 && a < 1e15))
		return 0;
	for (int k = 0; k <= 19; k++) {
		double s = a * pow10_tab[k], m = floor(s + 0.5);
		if (m >= 1e15)
			return 0;
		if (m / pow10_tab[k] == a) {
			char digits[24];
			size_t n = dc_fmt_u64(digits, (uint64_t)m);
			return put_fixed(buf, digits, n, (size_t)k, v < 0);
		}
	}
	return 0;
}

/* The other fast path: "%.15g"'s exponent form (|v| < 1e-4 or >= 1e15)
 * for a value that is m x 10^e with m of at most 15 digits: 1e-05,
 * 8.29756306640625e-06, 3.0202210025472e+15. The round trip is checked
 * with one correctly rounded division or product, as above. */
static size_t fmt_exp(char *buf, double v)
{
	double a = fabs(v), m = 0;
	int e = 0, found = 0;
	char digits[24];
	size_t n, o = 0;
	int x;

	if (a < 1e-4 && a >= 1e-22) {
		for (int k = 1; k <= 19 + 3 && !found; k++) {
			double p10 = k <= 19 ? pow10_tab[k] : pow10_tab[19] * pow10_tab[k - 19];
			m = floor(a * p10 + 0.5);
			if (m >= 1e15 || k > 22)
				return 0;
			if (m > 0 && m / p10 == a) {
				e = -k;
				found = 1;
			}
		}
	} else if (a >= 1e15 && a < 1e30) {
		for (int j = 15; j >= 1 && !found; j--) {
			m = floor(a / pow10_tab[j] + 0.5);
			if (m >= 1 && m < 1e15 && m * pow10_tab[j] == a) {
				e = j;
				found = 1;
			}
		}
	}
	if (!found)
		return 0;
	n = dc_fmt_u64(digits, (uint64_t)m);
	while (n > 1 && digits[n - 1] == '0') { /* %g drops trailing zeros */
		n--;
		e++;
	}
	x = (int)n - 1 + e; /* the decimal exponent of the first digit */
	if (x >= -4 && x < 15)
		return 0; /* fixed notation: fmt_fixed's business */
	if (v < 0)
		buf[o++] = '-';
	buf[o++] = digits[0];
	if (n > 1) {
		buf[o++] = '.';
		memcpy(buf + o, digits + 1, n - 1);
		o += n - 1;
	}
	buf[o++] = 'e';
	buf[o++] = x < 0 ? '-' : '+';
	if (x < 0)
		x = -x;
	if (x >= 100)
		buf[o++] = (char)('0' + x / 100);
	buf[o++] = (char)('0' + x / 10 % 10);
	buf[o++] = (char)('0' + x % 10);
	buf[o] = '\0';
	return o;
}

__extension__ typedef unsigned __int128 dc_u128;

/* round(a x 10^s) to the nearest integer, ties to even, computed exactly:
 * a = M 2^E, so a 10^s = M 5^s 2^(E + s), with M < 2^53 and 5^s < 2^47
 * (0 <= s <= 20) the product fits in 128 bits. What printf's %.Ng rounds
 * the exact binary value to. Returns 0 when it does not fit 64 bits. */
static const uint64_t pow5_tab[] = {1u, 5u, 25u, 125u, 625u, 3125u, 15625u, 78125u, 390625u, 1953125u,
				    9765625u, 48828125u, 244140625u, 1220703125u, 6103515625u, 30517578125u,
				    152587890625u, 762939453125u, 3814697265625u, 19073486328125u, 95367431640625u};

static int scaled_digits(double a, int s, uint64_t *out)
{
	int e;
	uint64_t bits, m;
	int shift;
	dc_u128 x;

	if (s < 0 || s > 20)
		return 0;
	/* a = M 2^(e - 53) with M in [2^52, 2^53), as frexp and ldexp(fr, 53)
	 * give it: a normal double's fraction bits with the hidden one, its
	 * exponent unbiased (a here is in [1e-4, 1e15): never subnormal) */
	memcpy(&bits, &a, sizeof(bits));
	if (((bits >> 52) & 0x7ff) == 0) {
		double fr = frexp(a, &e);
		m = (uint64_t)ldexp(fr, 53);
	} else {
		e = (int)((bits >> 52) & 0x7ff) - 1022;
		m = (bits & (((uint64_t)1 << 52) - 1)) | ((uint64_t)1 << 52);
	}
	shift = e - 53 + s;
	x = (dc_u128)m * pow5_tab[s];
	if (shift >= 0) {
		if (shift > 40)
			return 0;
		x <<= shift;
	} else {
		dc_u128 q, r, half;
		if (-shift >= 120)
			return 0;
		q = x >> -shift;
		r = x - (q << -shift);
		half = (dc_u128)1 << (-shift - 1);
		if (r > half || (r == half && (q & 1)))
			q++;
		x = q;
	}
	if (x >> 64)
		return 0;
	*out = (uint64_t)x;
	return 1;
}

/* "%.16g" or "%.17g", whichever is the shorter that reads back, for |v| in
 * [1e-4, 1e15) once no 15-digit decimal does (fmt_fixed failed). Returns
 * the length, or 0 to leave it to printf. */
static size_t fmt_long(char *buf, double v)
{
	double a = fabs(v);
	int x = 0, k, prec = 16;
	uint64_t d;
	char digits[24];
	size_t n;

	if (!(a >= 1e-4 && a < 1e15))
		return 0;
	while (x < 15 && a >= pow10_tab[x + 1])
		x++;
	while (x > -5 && a < (x >= 0 ? pow10_tab[x] : 1.0 / pow10_tab[-x]))
		x--;
	for (;;) {
		k = prec - 1 - x; /* decimals */
		if (k < 0 || k > 20 || !scaled_digits(a, k, &d))
			return 0;
		n = dc_fmt_u64(digits, d);
		if (n != (size_t)prec) /* x was off by one at a power of ten */
			return 0;
		if (prec == 17)
			break;
		/* the round trip of 16 digits is one correctly rounded division
		 * when both operands are exact doubles; otherwise ask printf */
		if (d >= ((uint64_t)1 << 53) || k > 19)
			return 0;
		if ((double)d / pow10_tab[k] == a)
			break;
		prec = 17;
	}
	while (k > 0 && digits[n - 1] == '0') { /* %g drops trailing zeros */
		n--;
		k--;
	}
	return put_fixed(buf, digits, n, (size_t)k, v < 0);
}

size_t dc_fmt_double(char *buf, size_t len, double v)
{
	size_t n;
	if (!isfinite(v) || v == 0) { /* -0 too: a report has no use for the sign of zero */
		const char *t = v == 0 ? "0" : "null";
		size_t tn = v == 0 ? 1 : 4, k = tn < len ? tn : len ? len - 1 : 0;
		if (len) { /* as snprintf writes it, cut to len - 1 bytes */
			memcpy(buf, t, k);
			buf[k] = '\0';
		}
		return tn;
	}
	if (len >= 32 && ((n = fmt_fixed(buf, v)) > 0 || (n = fmt_exp(buf, v)) > 0 || (n = fmt_long(buf, v)) > 0))
		return n;
	for (int prec = 15; prec <= 17; prec++) {
		snprintf(buf, len, "%.*g", prec, v);
		if (strtod(buf, NULL) == v)
			break;
	}
	return strlen(buf);
}

/* Length of the well-formed UTF-8 sequence at p (1 to 4), or 0 when the
 * byte at p does not start one (a stray continuation byte, an overlong
 * form, a surrogate, a code point above U+10FFFF, a sequence cut short by
 * the end of the string): RFC 3629's table. */
static size_t utf8_len(const unsigned char *p)
{
	unsigned char c = p[0];
	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		return (p[1] & 0xc0) == 0x80 ? 2 : 0;
	if (c >= 0xe0 && c <= 0xef) {
		unsigned char lo = c == 0xe0 ? 0xa0 : 0x80, hi = c == 0xed ? 0x9f : 0xbf;
		return p[1] >= lo && p[1] <= hi && (p[2] & 0xc0) == 0x80 ? 3 : 0;
	}
	if (c >= 0xf0 && c <= 0xf4) {
		unsigned char lo = c == 0xf0 ? 0x90 : 0x80, hi = c == 0xf4 ? 0x8f : 0xbf;
		return p[1] >= lo && p[1] <= hi && (p[2] & 0xc0) == 0x80 && (p[3] & 0xc0) == 0x80 ? 4 : 0;
	}
	return 0;
}

/* 1 for the bytes a JSON string must escape: controls, quote, backslash;
 * 2 for the bytes that start a multi-byte UTF-8 sequence or cannot (checked
 * by utf8_len) */
static const unsigned char json_escape[256] = {
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2,
	2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2,
	2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2,
	2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2,
};

void dc_buf_json_string(struct dc_buf *b, const char *s)
{
	const unsigned char *p = (const unsigned char *)(s ? s : ""), *run;
	dc_buf_putc(b, '"');
	for (;;) {
		size_t n;
		run = p;
		while (*p) {
			if (!json_escape[*p])
				p++;
			else if (json_escape[*p] == 2 && (n = utf8_len(p)) > 0)
				p += n;
			else
				break;
		}
		if (p > run)
			dc_buf_add(b, (const char *)run, (size_t)(p - run));
		if (!*p)
			break;
		switch (*p) {
		case '"': dc_buf_add(b, "\\\"", 2); break;
		case '\\': dc_buf_add(b, "\\\\", 2); break;
		case '\n': dc_buf_add(b, "\\n", 2); break;
		case '\t': dc_buf_add(b, "\\t", 2); break;
		case '\r': dc_buf_add(b, "\\r", 2); break;
		default:
			if (*p >= 0x80) /* not UTF-8: the replacement character */
				dc_buf_add(b, "\\ufffd", 6);
			else
				dc_buf_printf(b, "\\u%04x", *p);
		}
		p++;
	}
	dc_buf_putc(b, '"');
}

/* The escape of the unit at p, in esc (at most 4 bytes and a NUL), and the
 * bytes it stands for in *used; 0 when the unit prints as it is (*used
 * bytes of plain text, a character or a run of ASCII). */
static size_t printable_unit(const unsigned char *p, char *esc, size_t *used)
{
	static const char hex[] = "0123456789abcdef";
	size_t n;
	unsigned char c = p[0];

	if (c >= 0x20 && c < 0x7f) {
		n = 1;
		while (p[n] >= 0x20 && p[n] < 0x7f)
			n++;
		*used = n;
		return 0;
	}
	*used = 1;
	if (c == '\n' || c == '\t' || c == '\r') {
		esc[0] = '\\';
		esc[1] = c == '\n' ? 'n' : c == '\t' ? 't' : 'r';
		esc[2] = '\0';
		return 2;
	}
	/* a character of two or more bytes prints, but for the C1 controls
	 * (U+0080 to U+009F: 0xc2 0x80 to 0x9f), which terminals obey as ESC */
	if (c >= 0x80 && (n = utf8_len(p)) > 0 && !(c == 0xc2 && p[1] < 0xa0)) {
		*used = n;
		return 0;
	}
	esc[0] = '\\';
	esc[1] = 'x';
	esc[2] = hex[c >> 4];
	esc[3] = hex[c & 15];
	esc[4] = '\0';
	return 4;
}

int dc_text_printable(const char *s)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	char esc[8];
	size_t used;
	while (*p) {
		if (printable_unit(p, esc, &used))
			return 0;
		p += used;
	}
	return 1;
}

void dc_buf_printable(struct dc_buf *b, const char *s)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	char esc[8];
	size_t used, n;
	while (*p) {
		if ((n = printable_unit(p, esc, &used)) > 0)
			dc_buf_add(b, esc, n);
		else
			dc_buf_add(b, (const char *)p, used);
		p += used;
	}
}

size_t dc_fmt_printable(char *buf, size_t len, const char *s)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	char esc[8];
	size_t used, n, o = 0;
	if (!len)
		return 0;
	while (*p) {
		const char *from = esc;
		if ((n = printable_unit(p, esc, &used)) == 0) {
			from = (const char *)p;
			n = used;
			/* a run of ASCII may be cut anywhere; a character never */
			if (used > 1 && p[0] < 0x80 && o + n >= len)
				n = used = len - 1 - o;
		}
		if (n == 0 || o + n >= len)
			break;
		memcpy(buf + o, from, n);
		o += n;
		p += used;
	}
	buf[o] = '\0';
	return o;
}
