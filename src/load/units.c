/* units.c - parse quantities with explicit units; see units.h. */
#include "distcalc/units.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "distcalc/util.h"

struct unit {
	const char *name;
	int binary;    /* 1: multiplier 2^(10*power); 0: 10^(3*power) */
	unsigned power;
	int bits;      /* bandwidth given in bits per second */
};

static const struct unit byte_units[] = {
	{"B", 0, 0, 0},   {"kB", 0, 1, 0},  {"MB", 0, 2, 0},  {"GB", 0, 3, 0},
	{"TB", 0, 4, 0},  {"PB", 0, 5, 0},  {"KiB", 1, 1, 0}, {"MiB", 1, 2, 0},
	{"GiB", 1, 3, 0}, {"TiB", 1, 4, 0}, {"PiB", 1, 5, 0},
};

static const struct unit bw_units[] = {
	{"B/s", 0, 0, 0},    {"kB/s", 0, 1, 0},   {"MB/s", 0, 2, 0},
	{"GB/s", 0, 3, 0},   {"TB/s", 0, 4, 0},   {"KiB/s", 1, 1, 0},
	{"MiB/s", 1, 2, 0},  {"GiB/s", 1, 3, 0},  {"TiB/s", 1, 4, 0},
	{"b/s", 0, 0, 1},    {"kb/s", 0, 1, 1},   {"Mb/s", 0, 2, 1},
	{"Gb/s", 0, 3, 1},   {"Tb/s", 0, 4, 1},   {"bit/s", 0, 0, 1},
	{"kbit/s", 0, 1, 1}, {"Mbit/s", 0, 2, 1}, {"Gbit/s", 0, 3, 1},
	{"Tbit/s", 0, 4, 1},
};

struct time_unit {
	const char *name;
	int exp10; /* units in one second, 10^exp10: "10 us" reads as 10e-6 */
};

static const struct time_unit time_units[] = {
	/* "us", the micro sign (U+00B5) and the Greek mu (U+03BC) alike */
	{"s", 0}, {"ms", 3}, {"us", 6}, {"\xc2\xb5s", 6}, {"\xce\xbcs", 6}, {"ns", 9},
};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* Splits "<number>[ ]<unit>": number text [s, *num_end), unit from *unit. */
struct split {
	const char *num;
	size_t num_len;
	const char *unit;
};

/* `like`: an example of the quantity, for the error ("80 GiB") */
static int split_quantity(const char *s, const char *like, struct split *sp, char *err, size_t errlen)
{
	const char *p = s;
	int digits = 0;

	if (*p == '+' || *p == '-') {
		if (*p == '-') {
			snprintf(err, errlen, "must not be negative, got '%s'", s);
			return -1;
		}
		p++;
	}
	while (isdigit((unsigned char)*p)) {
		p++;
		digits++;
	}
	if (*p == '.') {
		p++;
		while (isdigit((unsigned char)*p)) {
			p++;
			digits++;
		}
	}
	if (digits == 0) {
		snprintf(err, errlen, "expected a number followed by a unit, like '%s', got '%s'", like, s);
		return -1;
	}
	if (*p == 'e' || *p == 'E') {
		const char *q = p + 1;
		if (*q == '+' || *q == '-')
			q++;
		if (isdigit((unsigned char)*q)) {
			while (isdigit((unsigned char)*q))
				q++;
			p = q;
		}
	}
	sp->num = s;
	sp->num_len = (size_t)(p - s);
	if (*p == ' ')
		p++;
	sp->unit = p;
	return 0;
}

static int ieq(const char *a, const char *b)
{
	for (; *a && *b; a++, b++)
		if (tolower((unsigned char)*a) != tolower((unsigned char)*b))
			return 0;
	return *a == *b;
}

/* The SI prefix letter a case-insensitive c means in a unit: k, M, G, T
 * or P as the unit tables spell them; 0 for any other. */
static char canon_prefix(char c)
{
	switch (tolower((unsigned char)c)) {
	case 'k':
		return 'k';
	case 'm':
		return 'M';
	case 'g':
		return 'G';
	case 't':
		return 'T';
	case 'p':
		return 'P';
	default:
		return 0;
	}
}

/* 3 x the power of ten of prefix p (canon_prefix's): "10^9" for G */
static int prefix_exp10(char p)
{
	return p == 'k' ? 3 : p == 'M' ? 6 : p == 'G' ? 9 : p == 'T' ? 12 : 15;
}

/* Explains an unrecognised unit for a quantity kind. */
static void explain_unit(enum dc_quantity q, const struct split *sp, char *err, size_t errlen)
{
	int n = (int)sp->num_len;
	const char *u = sp->unit;
	size_t i;

	if (*u == '\0') {
		snprintf(err, errlen, "missing unit in '%.*s': write a plain number for base units (%s) or add a unit, like '%.*s %s'",
			 n, sp->num, q == DC_Q_BYTES ? "bytes" : q == DC_Q_BANDWIDTH ? "bytes/s" : "seconds",
			 n, sp->num, q == DC_Q_BYTES ? "GiB" : q == DC_Q_BANDWIDTH ? "GB/s" : "us");
		return;
	}
	/* a decimal comma ("79,5 GiB", a German or French habit): the number
	 * stopped at the comma; say which separator the parser reads */
	if (u[0] == ',' && isdigit((unsigned char)u[1])) {
		size_t d = 1;
		while (isdigit((unsigned char)u[d]))
			d++;
		if (d == 4) /* ",024": a thousands separator, or a decimal comma (a review's "1,024 GiB") */
			snprintf(err, errlen,
				 "'%.*s%.*s': write '%.*s%.*s%s' (no thousands separator) or '%.*s.%.*s%s' (the decimal separator is '.', whatever the locale)",
				 n, sp->num, (int)d, u, n, sp->num, (int)d - 1, u + 1, u + d, n, sp->num, (int)d - 1, u + 1,
				 u + d);
		else
			snprintf(err, errlen, "'%.*s%.*s': the decimal separator is '.', whatever the locale: write '%.*s.%.*s%s'",
				 n, sp->num, (int)d, u, n, sp->num, (int)d - 1, u + 1, u + d);
		return;
	}
	if (q == DC_Q_TIME) {
		snprintf(err, errlen, "unknown time unit '%s' (units are case-sensitive): use s, ms, us or ns, like '%.*s us'",
			 u, n, sp->num);
		return;
	}
	/* a bare prefix: "80G", "80 M" (no bandwidth unit has P: the list) */
	if (strlen(u) == 1 && strchr("kKMGTP", *u) && (q == DC_Q_BYTES || *u != 'P')) {
		char up = canon_prefix(*u);
		int e = prefix_exp10(up);
		if (q == DC_Q_BYTES)
			snprintf(err, errlen, "ambiguous unit '%s': write '%.*s %cB' (10^%d bytes) or '%.*s %ciB' (2^%d bytes)",
				 u, n, sp->num, up, e, n, sp->num, up == 'k' ? 'K' : up, 10 * (e / 3));
		else
			snprintf(err, errlen, "ambiguous unit '%s': write '%.*s %cB/s' (bytes per second) or '%.*s %cb/s' (bits per second)",
				 u, n, sp->num, up, n, sp->num, up);
		return;
	}
	if (q == DC_Q_BANDWIDTH) {
		size_t ulen = strlen(u);
		for (i = 0; i < COUNT(byte_units); i++) {
			if (strcmp(u, byte_units[i].name) == 0) {
				snprintf(err, errlen, "'%s' is a size, not a bandwidth: write '%.*s %s/s'", u, n, sp->num, u);
				return;
			}
		}
		/* "Gbps", "GBps", "Mbps", "bps": say both spellings it could mean */
		if (ulen >= 3 && ulen <= 5 && strcmp(u + ulen - 2, "ps") == 0 &&
		    (u[ulen - 3] == 'b' || u[ulen - 3] == 'B')) {
			int pl = (int)ulen - 3;
			/* the prefix in the tables' case ("mbps": M), so that
			 * every hint is a unit the parser takes: k, M, G, T
			 * for both, a binary Ki..Ti for bytes alone; another
			 * (P, x) falls to the list of units below */
			char p = pl ? canon_prefix(u[0]) : 0;
			if (pl == 0 || (pl == 1 && p && p != 'P')) {
				char pre[2] = {p, 0};
				snprintf(err, errlen, "ambiguous unit '%s': write '%.*s %sB/s' (bytes per second) or '%.*s %sb/s' (bits per second)",
					 u, n, sp->num, pre, n, sp->num, pre);
				return;
			}
			if (pl == 2 && (u[1] == 'i' || u[1] == 'I') && p && p != 'P') {
				snprintf(err, errlen, "unknown unit '%s': write '%.*s %ciB/s' (2^%d bytes per second; binary units have no bit rate)",
					 u, n, sp->num, p == 'k' ? 'K' : p, 10 * (prefix_exp10(p) / 3));
				return;
			}
		}
		for (i = 0; i < COUNT(bw_units); i++) {
			if (ieq(u, bw_units[i].name)) {
				/* the spellings it could mean, in the tables' case:
				 * "mB/s" is MB/s or Mb/s, "gbit/s" Gbit/s */
				char p = canon_prefix(u[0]);
				int e = prefix_exp10(p);
				if (bw_units[i].binary)
					snprintf(err, errlen, "unknown unit '%s' (units are case-sensitive): write '%.*s %s' (2^%d bytes/s)",
						 u, n, sp->num, bw_units[i].name, 10 * (int)bw_units[i].power);
				else if (!p || strchr(u, 'i'))
					snprintf(err, errlen, "unknown unit '%s' (units are case-sensitive): write '%.*s %s'", u, n,
						 sp->num, bw_units[i].name);
				else
					snprintf(err, errlen, "unknown unit '%s' (units are case-sensitive): write '%.*s %cB/s' (10^%d bytes/s) or '%.*s %cb/s' (10^%d bits/s)",
						 u, n, sp->num, p, e, n, sp->num, p, e);
				return;
			}
		}
		snprintf(err, errlen, "unknown bandwidth unit '%s': use B/s, kB/s, MB/s, GB/s, TB/s, KiB/s..TiB/s, or bits b/s, kb/s, Mb/s, Gb/s, Tb/s",
			 u);
		return;
	}
	for (i = 0; i < COUNT(byte_units); i++) {
		if (ieq(u, byte_units[i].name)) {
			/* the prefix the letters mean, in the tables' case:
			 * "mb" is MB or MiB, "gib" GiB */
			char p = canon_prefix(u[0]);
			if (byte_units[i].binary)
				snprintf(err, errlen, "unknown unit '%s' (units are case-sensitive): write '%.*s %s' (2^%d bytes)",
					 u, n, sp->num, byte_units[i].name, 10 * (int)byte_units[i].power);
			else if (!p)
				snprintf(err, errlen, "unknown unit '%s' (units are case-sensitive): write '%.*s B'", u, n,
					 sp->num);
			else
				snprintf(err, errlen, "unknown unit '%s' (units are case-sensitive): write '%.*s %cB' (10^%d bytes) or '%.*s %ciB' (2^%d bytes)",
					 u, n, sp->num, p, prefix_exp10(p), n, sp->num, p == 'k' ? 'K' : p,
					 10 * (prefix_exp10(p) / 3));
			return;
		}
	}
	snprintf(err, errlen, "unknown size unit '%s': use B, kB, MB, GB, TB, PB or KiB, MiB, GiB, TiB, PiB", u);
}

/* 10^e into *out; -1 on overflow. */
static int pow10_u64(unsigned e, uint64_t *out)
{
	uint64_t v = 1;
	while (e--)
		if (dc_mul_u64(v, 10, &v) != 0)
			return -1;
	*out = v;
	return 0;
}

int dc_units_parse_bytes(const char *s, uint64_t *out, char *err, size_t errlen)
{
	struct split sp;
	const struct unit *unit = NULL;
	uint64_t mant = 0, scale, value;
	long exp10 = 0;
	int frac = 0, in_frac = 0;
	size_t i;

	if (split_quantity(s, "80 GiB", &sp, err, errlen) != 0)
		return -1;
	for (i = 0; i < COUNT(byte_units); i++)
		if (strcmp(sp.unit, byte_units[i].name) == 0)
			unit = &byte_units[i];
	if (!unit) {
		explain_unit(DC_Q_BYTES, &sp, err, errlen);
		return -1;
	}
	/* exact decimal: mantissa digits, a count of fractional digits, exponent */
	for (i = 0; i < sp.num_len; i++) {
		char c = sp.num[i];
		if (c == '+')
			continue;
		if (c == '.') {
			in_frac = 1;
			continue;
		}
		if (c == 'e' || c == 'E') {
			char *end;
			errno = 0;
			exp10 = strtol(sp.num + i + 1, &end, 10);
			if (errno != 0 || exp10 > 60 || exp10 < -60) {
				/* 1e-400 GiB is not "too large": name the exponent */
				snprintf(err, errlen, "'%s': the exponent must be from -60 to 60", s);
				return -1;
			}
			break;
		}
		if (dc_mul_u64(mant, 10, &mant) != 0 || dc_add_u64(mant, (uint64_t)(c - '0'), &mant) != 0)
			goto too_large;
		frac += in_frac;
	}
	exp10 -= frac;
	exp10 += unit->binary ? 0 : 3 * (long)unit->power;
	value = mant;
	if (unit->binary && dc_mul_u64(value, (uint64_t)1 << (10 * unit->power), &value) != 0)
		goto too_large;
	if (exp10 >= 0) {
		if (pow10_u64((unsigned)exp10, &scale) != 0 || dc_mul_u64(value, scale, &value) != 0)
			goto too_large;
	} else {
		if (value != 0 && (pow10_u64((unsigned)-exp10, &scale) != 0 || value % scale != 0)) {
			snprintf(err, errlen, "'%s' is not a whole number of bytes", s);
			return -1;
		}
		value = value == 0 ? 0 : value / scale;
	}
	/* compared as integers: as a double 2^53 + 1 rounds to 2^53 and passed */
	if (value > ((uint64_t)1 << 53))
		goto too_large;
	*out = value;
	return 0;
too_large:
	snprintf(err, errlen, "'%s' is too large (above 2^53 bytes) or has too many digits", s);
	return -1;
}

/* The number times 10^exp_add, rounded once: "0.1 GB/s" reads as the
 * decimal text 0.1e9, so it is exactly the double nearest 10^8, where
 * 0.1 x 1e9 would round twice. */
static int parse_double(const struct split *sp, const char *s, int exp_add, double *out, char *err,
			size_t errlen)
{
	char tmp[96];
	char *end;
	double v;
	size_t mant_len = sp->num_len;
	long e = 0;

	if (sp->num_len >= 64) {
		snprintf(err, errlen, "number in '%.40s...' has too many characters", s);
		return -1;
	}
	for (size_t i = 0; i < sp->num_len; i++)
		if (sp->num[i] == 'e' || sp->num[i] == 'E') {
			mant_len = i;
			errno = 0;
			e = strtol(sp->num + i + 1, &end, 10);
			if (errno != 0 || e > 100000 || e < -100000) {
				snprintf(err, errlen, "'%s' is out of range", s);
				return -1;
			}
			break;
		}
	snprintf(tmp, sizeof(tmp), "%.*se%ld", (int)mant_len, sp->num, e + exp_add);
	errno = 0;
	v = strtod(tmp, &end);
	if (*end != '\0' || !isfinite(v) || errno == ERANGE) {
		snprintf(err, errlen, "'%s' is out of range", s);
		return -1;
	}
	*out = v;
	return 0;
}

int dc_units_parse_bandwidth(const char *s, double *out, char *err, size_t errlen)
{
	struct split sp;
	const struct unit *unit = NULL;
	double v;
	size_t i;

	if (split_quantity(s, "50 GB/s", &sp, err, errlen) != 0)
		return -1;
	for (i = 0; i < COUNT(bw_units); i++)
		if (strcmp(sp.unit, bw_units[i].name) == 0)
			unit = &bw_units[i];
	if (!unit) {
		explain_unit(DC_Q_BANDWIDTH, &sp, err, errlen);
		return -1;
	}
	if (parse_double(&sp, s, unit->binary ? 0 : 3 * (int)unit->power, &v, err, errlen) != 0)
		return -1;
	/* powers of two and the division by 8 bits are exact */
	if (unit->binary)
		v = ldexp(v, 10 * (int)unit->power);
	if (unit->bits)
		v /= 8.0;
	if (!isfinite(v)) {
		snprintf(err, errlen, "'%s' is out of range", s);
		return -1;
	}
	*out = v;
	return 0;
}

int dc_units_parse_time(const char *s, double *out, char *err, size_t errlen)
{
	struct split sp;
	const struct time_unit *unit = NULL;
	double v;
	size_t i;

	if (split_quantity(s, "5 us", &sp, err, errlen) != 0)
		return -1;
	for (i = 0; i < COUNT(time_units); i++)
		if (strcmp(sp.unit, time_units[i].name) == 0)
			unit = &time_units[i];
	if (!unit) {
		explain_unit(DC_Q_TIME, &sp, err, errlen);
		return -1;
	}
	if (parse_double(&sp, s, -unit->exp10, &v, err, errlen) != 0)
		return -1;
	*out = v;
	return 0;
}

/* FLOP/s and its SI multiples, as the data sheets write a GPU's peak */
static const struct time_unit flops_units[] = {
	{"FLOP/s", 0}, {"kFLOP/s", 3}, {"MFLOP/s", 6}, {"GFLOP/s", 9}, {"TFLOP/s", 12}, {"PFLOP/s", 15},
};

/* 1 when u starts with "flop" in any case */
static int starts_flop(const char *u)
{
	for (const char *w = "flop"; *w; w++, u++)
		if (tolower((unsigned char)*u) != *w)
			return 0;
	return 1;
}

int dc_units_parse_flops(const char *s, double *out, char *err, size_t errlen)
{
	struct split sp;
	const struct time_unit *unit = NULL;
	size_t i;
	if (split_quantity(s, "989 TFLOP/s", &sp, err, errlen) != 0) {
		if (*s != '-')
			snprintf(err, errlen, "expected a number followed by a unit, like '989 TFLOP/s', got '%s'", s);
		return -1;
	}
	for (i = 0; i < COUNT(flops_units); i++)
		if (strcmp(sp.unit, flops_units[i].name) == 0)
			unit = &flops_units[i];
	if (!unit) {
		int n = (int)sp.num_len;
		const char *u = sp.unit;
		/* "TFLOPS", "tflop/s", "TFLOPs", "Tflops", "PFLOP": the prefix
		 * it means (none: FLOP/s), spelled as the table spells it */
		char p = canon_prefix(u[0]);
		const char *rest = p && u[1] ? u + 1 : u;
		char pre[2] = {rest == u ? 0 : p, 0};
		if (*u == '\0')
			snprintf(err, errlen, "missing unit in '%.*s': write a plain number for FLOP/s or add a unit, like '%.*s TFLOP/s'",
				 n, sp.num, n, sp.num);
		else if (starts_flop(rest)) {
			char want[16];
			snprintf(want, sizeof(want), "%sFLOP/s", pre);
			snprintf(err, errlen, "unknown unit '%s'%s: write '%.*s %s'", u,
				 ieq(u, want) ? " (units are case-sensitive)" : "", n, sp.num, want);
		}
		else
			snprintf(err, errlen, "unknown FLOP rate unit '%s': use FLOP/s, kFLOP/s, MFLOP/s, GFLOP/s, TFLOP/s or PFLOP/s",
				 u);
		return -1;
	}
	return parse_double(&sp, s, unit->exp10, out, err, errlen);
}
