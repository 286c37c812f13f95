/* fmt.c - number and string formatting shared by the sinks; see section.h.
 *
 * Rendering is most of a run's work, so nothing here goes through printf
 * in the common cases: an integer is written digit by digit, and a double
 * gets "%.15g" ... "%.17g"'s text (the first that reads back) from exact
 * integer arithmetic (fmt_exact below); only a subnormal or a magnitude
 * outside about [1e-11, 1e33] takes the printf loop. Both paths give the
 * same text: tests/check_report.c compares them on millions of seeded
 * doubles and on the hard cases (ties, powers of two and of ten).
 */
#include "distcalc/section.h"
#include "report_int.h"

#include <assert.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char two_digits[] = "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
				 "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
				 "8081828384858687888990919293949596979899";

static const uint64_t pow10_u64[20] = {1ull,
				       10ull,
				       100ull,
				       1000ull,
				       10000ull,
				       100000ull,
				       1000000ull,
				       10000000ull,
				       100000000ull,
				       1000000000ull,
				       10000000000ull,
				       100000000000ull,
				       1000000000000ull,
				       10000000000000ull,
				       100000000000000ull,
				       1000000000000000ull,
				       10000000000000000ull,
				       100000000000000000ull,
				       1000000000000000000ull,
				       10000000000000000000ull};

/* Decimal digits in v (1 to 20), from its bit length b (2^(b-1) <= v <
 * 2^b): n = floor(b log10 2), with 1233 / 4096 for log10 2 (exact for b <=
 * 64), is the digit count or one fewer, and one comparison with 10^n
 * settles which (0 counts as 1, one digit). */
static size_t u64_digits(uint64_t v)
{
	uint64_t w = v | 1;
	unsigned b = 64 - (unsigned)__builtin_clzll(w), n = (b * 1233) >> 12;
	return n + (n < 20 && w >= pow10_u64[n]);
}

/* Writes the two digits of v < 100 at p. */
static void put2(char *p, uint32_t v)
{
	memcpy(p, two_digits + 2 * v, 2);
}

/* Writes the decimal digits of v ending just before `end`. Eight digits a
 * step in 32-bit arithmetic: a 64-bit division by a constant (a 128-bit
 * product) is needed once per eight digits, not once per two. */
static void put_digits(char *end, uint64_t v)
{
	char *p = end;
	uint32_t w;
	while (v >= 100000000) {
		uint32_t low = (uint32_t)(v % 100000000), hi4 = low / 10000, lo4 = low % 10000;
		v /= 100000000;
		p -= 8;
		put2(p, hi4 / 100);
		put2(p + 2, hi4 % 100);
		put2(p + 4, lo4 / 100);
		put2(p + 6, lo4 % 100);
	}
	w = (uint32_t)v;
	while (w >= 100) {
		p -= 2;
		put2(p, w % 100);
		w /= 100;
	}
	if (w >= 10)
		put2(p - 2, w);
	else
		p[-1] = (char)('0' + w);
}

/* v < 1000 (no comma) and its NUL: most counts a report prints, written
 * without measuring them first */
static size_t put_small(char *buf, uint32_t v)
{
	if (v < 10) {
		buf[0] = (char)('0' + v);
		buf[1] = '\0';
		return 1;
	}
	if (v < 100) {
		put2(buf, v);
		buf[2] = '\0';
		return 2;
	}
	buf[0] = (char)('0' + v / 100);
	put2(buf + 1, v % 100);
	buf[3] = '\0';
	return 3;
}

size_t dc_fmt_u64(char *buf, uint64_t v)
{
	size_t n;
	if (v < 1000)
		return put_small(buf, (uint32_t)v);
	n = u64_digits(v);
	put_digits(buf + n, v);
	buf[n] = '\0';
	return n;
}

/* ",000" to ",999": a group of three digits with the comma before it, as
 * one 4-byte copy. G1(a, b) is the ten groups ",ab0" to ",ab9", G10(a)
 * the hundred ",a00" to ",a99". */
#define G1(a, b)                                                                                          \
	"," #a #b "0" "," #a #b "1" "," #a #b "2" "," #a #b "3" "," #a #b "4" "," #a #b "5" "," #a #b "6" \
	"," #a #b "7" "," #a #b "8" "," #a #b "9"
#define G10(a) G1(a, 0) G1(a, 1) G1(a, 2) G1(a, 3) G1(a, 4) G1(a, 5) G1(a, 6) G1(a, 7) G1(a, 8) G1(a, 9)
static const char comma_groups[4 * 1000 + 1] =
	G10(0) G10(1) G10(2) G10(3) G10(4) G10(5) G10(6) G10(7) G10(8) G10(9);
#undef G10
#undef G1

size_t dc_fmt_u64_grouped(char *buf, uint64_t v)
{
	size_t nd, len;
	char *p;
	uint32_t head;
	if (v < 1000)
		return put_small(buf, (uint32_t)v);
	nd = u64_digits(v);
	len = nd + (nd - 1) / 3;
	p = buf + len;
	*p = '\0';
	/* groups of three from the end, each with its comma */
	while (v >= 1000) {
		uint64_t q = v / 1000;
		uint32_t g = (uint32_t)(v - q * 1000);
		v = q;
		p -= 4;
		memcpy(p, comma_groups + 4 * g, 4);
	}
	/* the first group, 1 to 3 digits, ends at p */
	head = (uint32_t)v;
	if (head >= 100) {
		p[-3] = (char)('0' + head / 100);
		put2(p - 2, head % 100);
	} else if (head >= 10) {
		put2(p - 2, head);
	} else {
		p[-1] = (char)('0' + head);
	}
	return len;
}

size_t dc_fmt_fixed_u64(char *buf, uint64_t m, unsigned prec)
{
	static const uint32_t pow10_u32[5] = {1, 10, 100, 1000, 10000};
	uint64_t whole;
	uint32_t frac;
	size_t nw;
	assert(prec < sizeof(pow10_u32) / sizeof(pow10_u32[0]) && "dc_fmt_fixed_u64: at most 4 decimals");
	if (!prec)
		return m < 1000 ? put_small(buf, (uint32_t)m) : dc_fmt_u64(buf, m);
	whole = m / pow10_u32[prec];
	frac = (uint32_t)(m - whole * pow10_u32[prec]);
	if (whole < 1000) {
		nw = put_small(buf, (uint32_t)whole);
	} else {
		nw = u64_digits(whole);
		put_digits(buf + nw, whole);
	}
	/* the decimals with their leading zeros */
	buf[nw] = '.';
	switch (prec) {
	case 1: buf[nw + 1] = (char)('0' + frac); break;
	case 2: put2(buf + nw + 1, frac); break;
	case 3:
		buf[nw + 1] = (char)('0' + frac / 100);
		put2(buf + nw + 2, frac % 100);
		break;
	default:
		put2(buf + nw + 1, frac / 100);
		put2(buf + nw + 3, frac % 100);
		break;
	}
	nw += 1 + prec;
	buf[nw] = '\0';
	return nw;
}

/* dc_text_add for n bytes of s (not NUL-terminated); len > 0. An `at`
 * already at or past the end appends nothing (the text is full). */
static size_t text_add_n(char *buf, size_t len, size_t at, const char *s, size_t n)
{
	if (at >= len)
		return len - 1;
	if (at + n >= len)
		n = len - 1 - at;
	memcpy(buf + at, s, n);
	at += n;
	buf[at] = '\0';
	return at;
}

size_t dc_text_add(char *buf, size_t len, size_t at, const char *s)
{
	if (!len)
		return 0;
	return text_add_n(buf, len, at, s, strlen(s));
}

size_t dc_text_add_u64(char *buf, size_t len, size_t at, uint64_t v)
{
	char num[24] = {0}; /* 2^64 - 1 has 20 digits */
	size_t n = dc_fmt_u64(num, v);
	if (!len)
		return 0;
	/* never more than num holds: says so to a compiler that inlines
	 * dc_fmt_u64 across files (-flto) and bounds n by len alone */
	if (n > sizeof(num) - 1)
		n = sizeof(num) - 1;
	return text_add_n(buf, len, at, num, n);
}

size_t dc_fmt_gib(char *buf, size_t len, uint64_t bytes)
{
	const uint64_t gib = 1ull << 30;
	uint64_t whole = bytes >> 30, frac = bytes & (gib - 1), milli, rem;
	char num[32] = {0}; /* 2^64 / 2^30 x 1000 has 14 digits, the grouped 2^64 26 */
	size_t at;

	if (!len)
		return 0;
	buf[0] = '\0';
	if (!frac) {
		at = dc_text_add_u64(buf, len, 0, whole);
		return dc_text_add(buf, len, at, " GiB");
	}
	/* frac x 1000 / 2^30 rounded half to even, as "%.3f" rounds the
	 * exact quotient; frac < 2^30, so frac x 1000 fits 40 bits */
	milli = frac * 1000 >> 30;
	rem = frac * 1000 & (gib - 1);
	if (rem > gib / 2 || (rem == gib / 2 && (milli & 1)))
		milli++;
	dc_fmt_fixed_u64(num, whole * 1000 + milli, 3);
	at = dc_text_add(buf, len, 0, num);
	at = dc_text_add(buf, len, at, " GiB (");
	dc_fmt_u64_grouped(num, bytes);
	at = dc_text_add(buf, len, at, num);
	return dc_text_add(buf, len, at, " B)");
}

const char *dc_fmt_time_unit(double max_s, double *mult)
{
	if (max_s >= 1.0 || max_s == 0) {
		*mult = 1.0;
		return "s";
	}
	if (max_s >= 1e-3) {
		*mult = 1e3;
		return "ms";
	}
	*mult = 1e6;
	return "us";
}

void dc_text_fmt(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap, again;
	const char *p = fmt;
	size_t at = 0;

	if (!len)
		return;
	buf[0] = '\0';
	va_start(ap, fmt);
	va_copy(again, ap);
	for (;;) {
		const char *pc = strchr(p, '%');
		at = text_add_n(buf, len, at, p, pc ? (size_t)(pc - p) : strlen(p));
		if (!pc)
			break;
		if (pc[1] == 's') {
			const char *s = va_arg(ap, const char *);
			if (!s) /* printf's own text for NULL */
				goto general;
			at = dc_text_add(buf, len, at, s);
			p = pc + 2;
		} else if (pc[1] == 'l' && pc[2] == 'l' && pc[3] == 'u') {
			at = dc_text_add_u64(buf, len, at, (uint64_t)va_arg(ap, unsigned long long));
			p = pc + 4;
		} else if (pc[1] == '%') {
			at = text_add_n(buf, len, at, "%", 1);
			p = pc + 2;
		} else {
			goto general;
		}
	}
	va_end(ap);
	va_end(again);
	return;
general: /* any other conversion: printf's text, from the start */
	va_end(ap);
	vsnprintf(buf, len, fmt, again);
	va_end(again);
}

/* ---- doubles: "%.15g", "%.16g" or "%.17g", the first that reads back ----
 *
 * What printf does, done exactly in integers (the method of Steele and
 * White's "How to print floating-point numbers accurately", PLDI 1990:
 * scale the binary value by a power of ten and round the integer, with the
 * 128-bit products Adams' Ryu (PLDI 2018) uses where bignums would be).
 * A normal double is v = m 2^e2 with m < 2^53. "%.Ng" rounds v 10^s to an
 * integer D of N digits (s = N - 1 - X, X the decimal exponent of v's
 * first digit), ties to even as glibc does; strtod reads D 10^-s back as v
 * when it lies within half an ulp of v (a quarter below a power of two,
 * where the gap below is half as wide), the ends included when m is even
 * (a tie goes to the even mantissa). Both tests are integer comparisons
 * once everything is scaled to a common unit; they fit 128 bits for
 * |v| in about [1e-11, 1e33], which holds every figure a report prints.
 * Anything else (and a subnormal) goes to printf. */

__extension__ typedef unsigned __int128 dc_u128;

/* 5^0 ... 5^27, the powers of five below 2^63 */
static const uint64_t pow5_u64[28] = {1ull,
				      5ull,
				      25ull,
				      125ull,
				      625ull,
				      3125ull,
				      15625ull,
				      78125ull,
				      390625ull,
				      1953125ull,
				      9765625ull,
				      48828125ull,
				      244140625ull,
				      1220703125ull,
				      6103515625ull,
				      30517578125ull,
				      152587890625ull,
				      762939453125ull,
				      3814697265625ull,
				      19073486328125ull,
				      95367431640625ull,
				      476837158203125ull,
				      2384185791015625ull,
				      11920928955078125ull,
				      59604644775390625ull,
				      298023223876953125ull,
				      1490116119384765625ull,
				      7450580596923828125ull};

/* v 10^s for v = m 2^e2: *q = its floor, *up = 1 when rounding it to the
 * nearest integer, ties to even, goes up, *inexact = 1 when it is not an
 * integer. Returns 0 when the figures do
 * not fit 128 bits. */
static int scale10(uint64_t m, int e2, int s, uint64_t *q, int *up, int *inexact)
{
	dc_u128 x, f, r, d;
	if (s >= 0) {
		int k = e2 + s; /* v 10^s = m 5^s 2^k */
		if (s > 27)
			return 0;
		x = (dc_u128)m * pow5_u64[s]; /* < 2^116 */
		if (k >= 0) {
			if (k > 63 || (x >> (64 - k)) != 0)
				return 0;
			*q = (uint64_t)(x << k);
			*up = 0;
			*inexact = 0;
			return 1;
		}
		if (k < -126)
			return 0;
		f = x >> -k;
		r = x - (f << -k);
		d = (dc_u128)1 << (-k - 1); /* one half */
		if (f >> 64)
			return 0;
		*q = (uint64_t)f;
		*up = r > d || (r == d && (f & 1));
		*inexact = r != 0;
		return 1;
	}
	if (s < -19) /* v 10^s = m 2^e2 / 10^-s */
		return 0;
	d = pow10_u64[-s];
	if (e2 >= 0) {
		if (e2 > 74)
			return 0;
		x = (dc_u128)m << e2;
	} else {
		if (e2 < -60)
			return 0;
		x = m;
		d <<= -e2;
	}
	f = x / d;
	r = x - f * d;
	if (f >> 64)
		return 0;
	*q = (uint64_t)f;
	*up = 2 * r > d || (2 * r == d && (f & 1));
	*inexact = r != 0;
	return 1;
}

/* 1 when strtod reads D 10^-s back as v = m 2^e2, 0 when it does not, -1
 * when that does not fit 128 bits. `narrow`: m is 2^52 above the smallest
 * exponent, so the gap below v is half an ulp. */
static int reads_back(uint64_t m, int e2, int s, uint64_t d, int narrow)
{
	dc_u128 a, b, above, below; /* w, v, half an ulp and the gap below / 2, in one unit */
	if (s >= 0) {
		int k = e2 + s;
		if (k >= 0) /* v 10^s is an integer: D is v itself */
			return 1;
		if (k < -68 || s > 27) /* D < 2^57 shifted by 2 - k */
			return -1;
		/* the unit 2^(k - 2) 10^-s: w = D 2^(2 - k), v = 4 m 5^s,
		 * half an ulp = 2^(e2 - 1) = 2 5^s */
		a = (dc_u128)d << (2 - k);
		b = ((dc_u128)m * pow5_u64[s]) << 2;
		above = (dc_u128)pow5_u64[s] << 1;
	} else {
		int c = e2 >= 2 ? 0 : 2 - e2;
		if (s < -19 || e2 > 74 || e2 < -60)
			return -1;
		/* the unit 2^(min(e2, 2) - 2): w = D 10^-s 2^c, v = m 2^(e2 + c) */
		a = ((dc_u128)d * pow10_u64[-s]) << c;
		b = (dc_u128)m << (e2 + c);
		above = (dc_u128)1 << (e2 + c - 1);
	}
	below = narrow ? above >> 1 : above;
	if (a >= b)
		return a - b < above || (!(m & 1) && a - b == above);
	return b - a < below || (!(m & 1) && b - a == below);
}

/* reads_back's answer when v's place between q and q + 1 settles it,
 * else -1: in units of q's last digit, with V = v 10^(16 - X) in [q, q +
 * 1) (q = floor(V)) and the candidate D (d scaled to q's digits, within
 * about 100 of q), half the gap above v is G = V / (2m) (v = m 2^e2, the
 * gap 2^e2 10^(16 - X) = V / m), in [q / (2m), (q + 1) / (2m)), and half
 * the gap below is G, or G / 2 when `narrow`. The distance |D - V| lies
 * in [lo, hi] with hi = lo + 1; lo 2m >= q + 1 puts it past G for sure
 * (0: D does not read back), hi 2m < q within it (1; below v, with
 * narrow, hi 4m <= q). Most of the 15- and 16-digit candidates a report
 * tries are settled here, without reads_back's 128-bit products. The
 * products fit 64 bits: m < 2^53, hi <= 101. */
static int reads_back_bounds(uint64_t q, uint64_t D, uint64_t m, int narrow)
{
	uint64_t lo, hi;
	if (D > q) { /* above v: D - V in (D - q - 1, D - q] */
		lo = D - q - 1;
		hi = D - q;
		if (lo * 2 * m >= q + 1)
			return 0;
		return hi * 2 * m < q ? 1 : -1;
	}
	lo = q - D; /* below v: V - D in [q - D, q + 1 - D) */
	hi = lo + 1;
	if (lo * 2 * m >= q + 1)
		return 0;
	return hi * 2 * m * (narrow ? 2u : 1u) <= q ? 1 : -1;
}

/* The 8 digits of v < 10^8 (leading zeros included) as ASCII at p, the
 * first digit first, and in *tz the zeros that end them (8 for v = 0).
 * The digits are split in the lanes of one 64-bit word, each step a
 * multiplication for every lane at once: v's two 4-digit halves in 32-bit
 * lanes, each cut in two 2-digit quarters (x / 100 is x * 5243 >> 19 for
 * x < 10^4) in 16-bit lanes, each cut in two digits (x / 10 is x * 103 >>
 * 10 for x < 100) in bytes. The first digit lands in the low byte, so the
 * zeros that end the number are the word's high zero bytes. */
static inline void put8(char *p, uint32_t v, unsigned *tz)
{
	uint64_t x = (uint64_t)(v / 10000) | (uint64_t)(v % 10000) << 32;
	uint64_t h = ((x * 5243) >> 19) & 0x0000007f0000007full;
	x = h | (x - h * 100) << 16;
	h = ((x * 103) >> 10) & 0x000f000f000f000full;
	x = h | (x - h * 10) << 8;
	*tz = x ? (unsigned)__builtin_clzll(x) / 8 : 8;
	x |= 0x3030303030303030ull;
	/* byte by byte, low byte first: any byte order, and gcc's store
	 * merging makes the eight stores one on a little-endian machine (a
	 * memcpy of x trips -fanalyzer's uninitialised-value check, gcc 12) */
	p[0] = (char)x;
	p[1] = (char)(x >> 8);
	p[2] = (char)(x >> 16);
	p[3] = (char)(x >> 24);
	p[4] = (char)(x >> 32);
	p[5] = (char)(x >> 40);
	p[6] = (char)(x >> 48);
	p[7] = (char)(x >> 56);
}

/* The shortest of "%.15g", "%.16g", "%.17g" that reads back, for a
 * positive or negative normal v in the range the integers cover. Returns
 * the length, or 0 to leave v to printf. */
static size_t fmt_exact(char *buf, double v)
{
	uint64_t bits, m, q = 0, d;
	int64_t l2;
	int be, e2, x, n, up = 0, inexact = 0, narrow, nd;
	size_t o = 0;
	char dig[40];
	const char *ds;

	memcpy(&bits, &v, sizeof(bits));
	be = (int)((bits >> 52) & 0x7ff);
	if (be == 0 || be == 0x7ff)
		return 0;
	m = (bits & (((uint64_t)1 << 52) - 1)) | ((uint64_t)1 << 52);
	e2 = be - 1075;
	narrow = m == (uint64_t)1 << 52 && be > 1;
	/* X = floor(log10 |v|), nearly: log2 |v| is t + log2(m / 2^52), at
	 * least t + (m - 2^52) / 2^52 (20 bits of it here) and less than 0.09
	 * more; times log10 2 (315653 / 2^20) the guess is X or one below
	 * near a power of ten. The 17-digit scaling settles it: its floor
	 * has 17 digits just when X is right. */
	l2 = (int64_t)(be - 1023) * (1 << 20) + (int64_t)((m >> 32) & 0xfffff);
	x = l2 >= 0 ? (int)((l2 * 315653) >> 40) : -(int)((-l2 * 315653 + ((int64_t)1 << 40) - 1) >> 40);
	for (int tries = 0;; tries++) {
		if (tries > 2 || !scale10(m, e2, 16 - x, &q, &up, &inexact))
			return 0;
		if (q >= pow10_u64[17])
			x++;
		else if (q < pow10_u64[16])
			x--;
		else
			break;
	}
	/* q is floor(v 10^(16 - X)); v rounded to 15 or 16 digits is q
	 * without its last 2 or 1 digits, rounded on them and on whether
	 * anything was left below q (a tie only when nothing was) */
	for (n = 15;; n++) {
		uint64_t hi, low, half;
		int ok;
		if (n == 17) { /* 17 digits always read back */
			d = q + (uint64_t)up;
			break;
		}
		/* constant divisors: a multiplication, not a division */
		if (n == 15) {
			hi = q / 100;
			low = q % 100;
			half = 50;
		} else {
			hi = q / 10;
			low = q % 10;
			half = 5;
		}
		d = hi + (low > half || (low == half && (inexact || (hi & 1))));
		/* v within half a unit of q's last place of d: the digits
		 * dropped are zeros and v's fraction of that unit is at most
		 * a half (not `up`), or nines rounded up from at least a
		 * half. That reads back without the test: half the gap around
		 * a double is more than 0.55 of that unit (the gap is v / m,
		 * m < 2^53, and v 10^(16 - X) is at least 10^16; a quarter
		 * of it below a power of two, 2^52 / m there), so v is the
		 * double nearest D. A short decimal (0.7, 5e-06) takes this. */
		if ((low == 0 && !up) || (low == 2 * half - 1 && up))
			break;
		if ((ok = reads_back_bounds(q, d * (2 * half), m, narrow)) == 0)
			continue;
		if (ok < 0 && (ok = reads_back(m, e2, n - 1 - x, d, narrow)) < 0)
			return 0;
		if (ok)
			break;
	}
	if (d == pow10_u64[n]) { /* rounding carried into a new digit: 9.99.. to 10.0.. */
		d = pow10_u64[n - 1];
		x++;
	}
	/* d (< 10^17) as 17 digits, a leading one and two groups of eight,
	 * of which the last n are its own; %g drops the zeros that end them,
	 * counted as put8 writes the groups (d >= 10^(n-1): nd >= 1) */
	{
		uint64_t rest = d % 10000000000000000ull;
		unsigned tz_hi, tz_lo;
		dig[0] = (char)('0' + d / 10000000000000000ull);
		put8(dig + 1, (uint32_t)(rest / 100000000), &tz_hi);
		put8(dig + 9, (uint32_t)(rest % 100000000), &tz_lo);
		nd = n - (int)(tz_lo < 8 ? tz_lo : tz_hi < 8 ? 8 + tz_hi : 16);
		ds = dig + 17 - n;
		memset(dig + 17, 0, sizeof(dig) - 17);
	}
	/* the text is at most 24 bytes and buf holds 32: the digits are
	 * copied as fixed-size blocks (ds has 16 bytes more readable, dig's
	 * zeros), of which o counts what the text keeps */
	if (v < 0)
		buf[o++] = '-';
	if (x < n && x >= -4) { /* %g's fixed form */
		if (x < 0) { /* "0.", -x - 1 zeros and the digits: at most 1 + 5 + 17 */
			memcpy(buf + o, "0.000000", 8);
			o += (size_t)(1 - x);
			memcpy(buf + o, ds, 17);
			o += (size_t)nd;
		} else if (nd <= x + 1) { /* an integer: its x + 1 digits, zeros included */
			memcpy(buf + o, ds, 17);
			o += (size_t)x + 1;
		} else { /* x + 1 digits, the point, the rest (x <= 15) */
			memcpy(buf + o, ds, 17);
			buf[o + (size_t)x + 1] = '.';
			if (o + (size_t)x + 18 <= 32)
				memcpy(buf + o + x + 2, ds + x + 1, 16);
			else
				memcpy(buf + o + x + 2, ds + x + 1, (size_t)(nd - x - 1));
			o += (size_t)nd + 1;
		}
	} else { /* the exponent form: d.ddde+XX */
		buf[o++] = ds[0];
		if (nd > 1) {
			buf[o++] = '.';
			memcpy(buf + o, ds + 1, 16);
			o += (size_t)nd - 1;
		}
		buf[o++] = 'e';
		buf[o++] = x < 0 ? '-' : '+';
		if (x < 0)
			x = -x;
		if (x >= 100)
			buf[o++] = (char)('0' + x / 100);
		buf[o++] = (char)('0' + x / 10 % 10);
		buf[o++] = (char)('0' + x % 10);
	}
	buf[o] = '\0';
	return o;
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
	/* A whole number below 10^15 in magnitude has at most 15 significant
	 * digits, so "%.15g" writes it exactly (it reads back) and in the fixed
	 * form (its exponent is below 15), trailing zeros of the fraction
	 * dropped: its integer's digits, with the sign. Reports carry many
	 * (byte counts, FLOPs kept as doubles). check_fmt.c compares
	 * dc_fmt_double with printf on integers of every size. */
	if (len >= 32 && fabs(v) < 1e15 && v == (double)(int64_t)v) {
		int64_t i = (int64_t)v;
		size_t o = 0;
		if (i < 0)
			buf[o++] = '-';
		return o + dc_fmt_u64(buf + o, i < 0 ? (uint64_t)-i : (uint64_t)i);
	}
	if (len >= 32 && (n = fmt_exact(buf, v)) > 0)
		return n;
	for (int prec = 15; prec <= 17; prec++) {
		snprintf(buf, len, "%.*g", prec, v);
		if (strtod(buf, NULL) == v)
			break;
	}
	return strlen(buf);
}

void dc_num_memo_verify(const struct dc_num_memo *m, int is_double, double v, uint64_t u)
{
	static const char memo[] = "a cell's number text (src/out/report_int.h dc_num_memo_f64, dc_num_memo_u64)";
	char fresh[DC_NUM_MEMO_TEXT] = {0};
	size_t n = is_double ? dc_fmt_double(fresh, sizeof(fresh), v) : dc_fmt_u64(fresh, u);
	dc_memo_verify_u64(memo, "length", m->len, n);
	dc_memo_verify_bytes(memo, "text", m->text, fresh, n + 1, NULL, 0);
}

void dc_str_memo_verify(const struct dc_str_memo *m, const char *s)
{
	dc_memo_verify_u64("a cell's static text (src/out/report_int.h dc_str_memo_hit)", "length", m->len, strlen(s));
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

/* 1 when no byte of s[0..n) is escaped or starts a multi-byte character
 * (json_escape 0 for each). */
static int json_escape_none(const unsigned char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (json_escape[s[i]])
			return 0;
	return 1;
}

/* 1 when s[0..n) holds nothing a JSON string escapes or that starts a
 * multi-byte character. Eight bytes a step while whole words remain: no
 * byte below 0x20 (it sets its top bit in x - 0x20..), at 0x7f or above
 * (x + 0x01.., x), no quote and no backslash (a zero byte in x ^ 0x22..,
 * x ^ 0x5c..: y - 0x01.. sets the top bit of every zero byte of y not
 * already set in y). Borrows and carries between bytes can flag a plain
 * byte, never hide one to escape: a string flagged is left to the byte
 * loop, which decides every byte itself. A text shorter than a word one
 * byte at a time; a longer one's last few bytes as the word that ends it
 * (its first bytes checked twice), not one at a time. */
static int json_plain_word(const unsigned char *s)
{
	const uint64_t one = 0x0101010101010101u, top = 0x8080808080808080u, lo = 0x2020202020202020u,
		       quote = 0x2222222222222222u, backslash = 0x5c5c5c5c5c5c5c5cu;
	uint64_t x, q, k;
	memcpy(&x, s, 8);
	q = x ^ quote;
	k = x ^ backslash;
	return !(((x - lo) | (x + one) | x | ((q - one) & ~q) | ((k - one) & ~k)) & top);
}

static int json_plain(const unsigned char *s, size_t n)
{
	size_t i = 0;
	if (n < 8)
		return json_escape_none(s, n);
	for (; i + 8 <= n; i += 8)
		if (!json_plain_word(s + i))
			return 0;
	return i == n || json_plain_word(s + n - 8);
}

static int hex_digit(char h)
{
	if (h >= '0' && h <= '9')
		return h - '0';
	if (h >= 'a' && h <= 'f')
		return h - 'a' + 10;
	if (h >= 'A' && h <= 'F')
		return h - 'A' + 10;
	return -1;
}

/* Four hex digits at p as a number, or -1. */
static long hex4_at(const char *p, const char *end)
{
	long v = 0;
	if (end - p < 4)
		return -1;
	for (int i = 0; i < 4; i++) {
		int d = hex_digit(p[i]);
		if (d < 0)
			return -1;
		v = v * 16 + d;
	}
	return v;
}

size_t dc_json_string_text(char *dst, size_t cap, const char *t, size_t n)
{
	const char *p = t + 1, *end = t + n - 1;
	size_t o = 0;
	if (n < 2 || t[0] != '"' || t[n - 1] != '"' || !cap)
		return (size_t)-1;
	while (p < end) {
		char u[4];
		size_t k = 1;
		long cp;
		if (*p == '"')
			return (size_t)-1; /* a quote ends the string before t does */
		if (*p != '\\') {
			u[0] = *p++;
		} else {
			if (end - p < 2)
				return (size_t)-1;
			p += 2; /* the escape; a \\u's four digits after it */
			switch (p[-1]) {
			case '"': u[0] = '"'; break;
			case '\\': u[0] = '\\'; break;
			case '/': u[0] = '/'; break;
			case 'b': u[0] = '\b'; break;
			case 'f': u[0] = '\f'; break;
			case 'n': u[0] = '\n'; break;
			case 'r': u[0] = '\r'; break;
			case 't': u[0] = '\t'; break;
			case 'u':
				if ((cp = hex4_at(p, end)) <= 0)
					return (size_t)-1; /* not hex, or a NUL that would cut the text */
				p += 4;
				if (cp >= 0xd800 && cp < 0xdc00 && end - p >= 6 && p[0] == '\\' && p[1] == 'u') {
					long lo = hex4_at(p + 2, end);
					if (lo >= 0xdc00 && lo < 0xe000) {
						cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
						p += 6;
					}
				}
				if (cp >= 0xd800 && cp < 0xe000)
					cp = 0xfffd; /* a lone surrogate: the replacement character */
				if (cp < 0x80) {
					u[0] = (char)cp;
				} else if (cp < 0x800) {
					u[0] = (char)(0xc0 | (cp >> 6));
					u[1] = (char)(0x80 | (cp & 0x3f));
					k = 2;
				} else if (cp < 0x10000) {
					u[0] = (char)(0xe0 | (cp >> 12));
					u[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
					u[2] = (char)(0x80 | (cp & 0x3f));
					k = 3;
				} else {
					u[0] = (char)(0xf0 | (cp >> 18));
					u[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
					u[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
					u[3] = (char)(0x80 | (cp & 0x3f));
					k = 4;
				}
				break;
			default:
				return (size_t)-1;
			}
		}
		/* the text is never longer than its JSON: dst may be t */
		for (size_t i = 0; i < k && o + 1 < cap; i++)
			dst[o++] = u[i];
	}
	dst[o] = '\0';
	return o;
}

void dc_buf_json_string(struct dc_buf *b, const char *s)
{
	(void)dc_json_string_put(b, s);
}

size_t dc_json_string_put(struct dc_buf *b, const char *s)
{
	const unsigned char *p = (const unsigned char *)(s ? s : ""), *run, *end;
	size_t len = strlen((const char *)p);

	/* the common case, a string with nothing to escape, in one piece */
	if (json_plain(p, len)) {
		dc_json_string_plain(b, (const char *)p, len);
		return len;
	}
	end = p + len;
	dc_buf_putc(b, '"');
	for (;;) {
		size_t n;
		run = p;
		while (p < end) {
			if (!json_escape[*p])
				p++;
			else if (json_escape[*p] == 2 && (n = utf8_len(p)) > 0)
				p += n;
			else
				break;
		}
		if (p > run)
			dc_buf_add(b, (const char *)run, (size_t)(p - run));
		if (p == end)
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
	return (size_t)-1;
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
	return dc_text_printable_n(s ? s : "", s ? strlen(s) : 0);
}

int dc_text_printable_n(const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	char esc[8];
	size_t used;
	if (dc_text_ascii_printable(s, n))
		return 1;
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
