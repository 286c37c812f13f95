/* check_units.c - quantities with explicit units (units.h).
 *
 * Expected values are worked out by hand from the unit definitions:
 * k/M/G/T = 10^3/10^6/10^9/10^12, Ki/Mi/Gi = 2^10/2^20/2^30, a bit rate is
 * bytes/s x 8. Byte counts are exact integers; bandwidths and times are
 * compared exactly where the value is a representable double reached by one
 * correct rounding (the parser reads "0.5 ms" as the decimal 0.5e-3).
 */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "distcalc/units.h"

static uint64_t bytes_ok(const char *s)
{
	uint64_t v = 0;
	char err[256] = "";
	ck_assert_msg(dc_units_parse_bytes(s, &v, err, sizeof(err)) == 0, "'%s' failed: %s", s, err);
	return v;
}

static double bw_ok(const char *s)
{
	double v = 0;
	char err[256] = "";
	ck_assert_msg(dc_units_parse_bandwidth(s, &v, err, sizeof(err)) == 0, "'%s' failed: %s", s, err);
	return v;
}

static double time_ok(const char *s)
{
	double v = -1;
	char err[256] = "";
	ck_assert_msg(dc_units_parse_time(s, &v, err, sizeof(err)) == 0, "'%s' failed: %s", s, err);
	return v;
}

/* The parser must fail and its reason must be exactly `want`. */
static void bytes_err(const char *s, const char *want)
{
	uint64_t v = 12345;
	char err[256] = "";
	ck_assert_msg(dc_units_parse_bytes(s, &v, err, sizeof(err)) == -1, "'%s' was accepted", s);
	ck_assert_str_eq(err, want);
}

static void bw_err(const char *s, const char *want)
{
	double v = 0;
	char err[256] = "";
	ck_assert_msg(dc_units_parse_bandwidth(s, &v, err, sizeof(err)) == -1, "'%s' was accepted", s);
	ck_assert_str_eq(err, want);
}

static void time_err(const char *s, const char *want)
{
	double v = 0;
	char err[256] = "";
	ck_assert_msg(dc_units_parse_time(s, &v, err, sizeof(err)) == -1, "'%s' was accepted", s);
	ck_assert_str_eq(err, want);
}

START_TEST(test_bytes)
{
	ck_assert_uint_eq(bytes_ok("1 GiB"), 1073741824u);        /* 2^30 */
	ck_assert_uint_eq(bytes_ok("1 GB"), 1000000000u);         /* 10^9 */
	ck_assert_uint_eq(bytes_ok("1.5 GB"), 1500000000u);       /* 1.5 x 10^9 */
	ck_assert_uint_eq(bytes_ok("25 MiB"), 26214400u);         /* 25 x 1048576 */
	ck_assert_uint_eq(bytes_ok("80 GiB"), 85899345920ull);    /* 80 x 2^30 */
	ck_assert_uint_eq(bytes_ok("1.5 GiB"), 1610612736u);      /* 3 x 2^29 */
	ck_assert_uint_eq(bytes_ok("512 B"), 512u);
	ck_assert_uint_eq(bytes_ok("512B"), 512u);                /* the space is optional */
	ck_assert_uint_eq(bytes_ok("2 kB"), 2000u);
	ck_assert_uint_eq(bytes_ok("2 KiB"), 2048u);
	ck_assert_uint_eq(bytes_ok("1e3 B"), 1000u);
	ck_assert_uint_eq(bytes_ok("0.5 kB"), 500u);
	ck_assert_uint_eq(bytes_ok("1 TiB"), 1099511627776ull);   /* 2^40 */
	ck_assert_uint_eq(bytes_ok("8 PiB"), 9007199254740992ull); /* 2^53, the largest allowed */
	ck_assert_uint_eq(bytes_ok("0 B"), 0u);
}
END_TEST

START_TEST(test_bytes_errors)
{
	bytes_err("80G", "ambiguous unit 'G': write '80 GB' (10^9 bytes) or '80 GiB' (2^30 bytes)");
	bytes_err("80 M", "ambiguous unit 'M': write '80 MB' (10^6 bytes) or '80 MiB' (2^20 bytes)");
	bytes_err("80gb", "unknown unit 'gb' (units are case-sensitive): write '80 GB' (10^9 bytes) or '80 GiB' (2^30 bytes)");
	bytes_err("80 mb", "unknown unit 'mb' (units are case-sensitive): write '80 MB' (10^6 bytes) or '80 MiB' (2^20 bytes)");
	bytes_err("80 KB", "unknown unit 'KB' (units are case-sensitive): write '80 kB' (10^3 bytes) or '80 KiB' (2^10 bytes)");
	bytes_err("80 gib", "unknown unit 'gib' (units are case-sensitive): write '80 GiB' (2^30 bytes)");
	bytes_err("0.3 B", "'0.3 B' is not a whole number of bytes");
	bytes_err("1.0000000001 kB", "'1.0000000001 kB' is not a whole number of bytes");
	bytes_err("-1 GiB", "must not be negative, got '-1 GiB'");
	bytes_err("80", "missing unit in '80': write a plain number for base units (bytes) or add a unit, like '80 GiB'");
	bytes_err("GiB", "expected a number followed by a unit, like '80 GiB', got 'GiB'");
	bytes_err("", "expected a number followed by a unit, like '80 GiB', got ''");
	bytes_err("5 GB/s", "unknown size unit 'GB/s': use B, kB, MB, GB, TB, PB or KiB, MiB, GiB, TiB, PiB");
	bytes_err("9 PiB", "'9 PiB' is too large (above 2^53 bytes) or has too many digits");
	/* 2^53 + 1: as a double it rounds to 2^53, so the bound is integer */
	bytes_err("9007199254740993 B", "'9007199254740993 B' is too large (above 2^53 bytes) or has too many digits");
	bytes_err("8388608.0000000009765625 GiB", "'8388608.0000000009765625 GiB' is too large (above 2^53 bytes) or has too many digits");
	bytes_err("99999999999999999999 B", "'99999999999999999999 B' is too large (above 2^53 bytes) or has too many digits");
	/* an exponent out of range is named as such: 1e-400 GiB is not "too large" */
	bytes_err("1e-400 GiB", "'1e-400 GiB': the exponent must be from -60 to 60");
	bytes_err("nan B", "expected a number followed by a unit, like '80 GiB', got 'nan B'");
	/* a decimal comma, whatever the locale: the separator is '.' */
	bytes_err("79,5 GiB", "'79,5': the decimal separator is '.', whatever the locale: write '79.5 GiB'");
	bw_err("12,25GB/s", "'12,25': the decimal separator is '.', whatever the locale: write '12.25GB/s'");
	time_err("2,5 us", "'2,5': the decimal separator is '.', whatever the locale: write '2.5 us'");
	/* three digits after it: a thousands separator as likely */
	bytes_err("1,024 GiB", "'1,024': write '1024 GiB' (no thousands separator) or '1.024 GiB' (the decimal separator is '.', whatever the locale)");
}
END_TEST

/* Every spelling a hint offers is one the parser takes: each '...' quoted
 * after "write" in the error for a wrong case or a "ps" unit, for every
 * prefix letter in both cases */
START_TEST(test_unit_hints_parse)
{
	static const char *const bw[] = {"", "bps", "Bps", "B/S", "b/S", "bit/S", "iBps", "ibps", "IBps"};
	static const char *const sz[] = {"", "b", "ib"};
	const char prefixes[] = "kKmMgGtTpPx";
	for (size_t i = 0; i < sizeof(prefixes) - 1; i++) {
		for (size_t j = 0; j < sizeof(bw) / sizeof(bw[0]) + sizeof(sz) / sizeof(sz[0]); j++) {
			int is_bw = j < sizeof(bw) / sizeof(bw[0]);
			char in[32], err[256] = "";
			const char *q;
			double d;
			uint64_t u;
			int rc;
			snprintf(in, sizeof(in), "1 %c%s", prefixes[i], is_bw ? bw[j] : sz[j - sizeof(bw) / sizeof(bw[0])]);
			rc = is_bw ? dc_units_parse_bandwidth(in, &d, err, sizeof(err))
				   : dc_units_parse_bytes(in, &u, err, sizeof(err));
			if (rc == 0)
				continue; /* a spelling that is right: no hint */
			q = strstr(err, "write '");
			if (!q) /* no hint: the list of units */
				continue;
			for (q += 6; q; q = strstr(q + 1, " or '")) {
				const char *start = strchr(q, '\'') + 1, *end = strchr(start, '\'');
				char hint[64], e2[256] = "";
				ck_assert(end && (size_t)(end - start) < sizeof(hint));
				memcpy(hint, start, (size_t)(end - start));
				hint[end - start] = '\0';
				rc = is_bw ? dc_units_parse_bandwidth(hint, &d, e2, sizeof(e2))
					   : dc_units_parse_bytes(hint, &u, e2, sizeof(e2));
				ck_assert_msg(rc == 0, "'%s' hints '%s', which fails: %s", in, hint, e2);
				q = end;
			}
		}
	}
}
END_TEST

START_TEST(test_bandwidth)
{
	/* 400 Gb/s = 400e9 bits/s / 8 = 5e10 bytes/s exactly */
	ck_assert(bw_ok("400 Gb/s") == 5e10);
	ck_assert(bw_ok("50 GB/s") == 5e10);
	ck_assert(bw_ok("400 Gbit/s") == 5e10);
	ck_assert(bw_ok("300 GB/s") == 3e11);
	ck_assert(bw_ok("1 GiB/s") == 1073741824.0);
	ck_assert(bw_ok("12.5 GB/s") == 1.25e10);
	/* one rounding: 0.1 GB/s is the double nearest 10^8 (= 1e8 exactly) */
	ck_assert(bw_ok("0.1 GB/s") == 1e8);
	ck_assert(bw_ok("1.1 GB/s") == 1.1e9);
	ck_assert(bw_ok("100 Mb/s") == 1.25e7);
	ck_assert(bw_ok("2e1 GB/s") == 2e10);
}
END_TEST

START_TEST(test_bandwidth_errors)
{
	bw_err("10 Gbps", "ambiguous unit 'Gbps': write '10 GB/s' (bytes per second) or '10 Gb/s' (bits per second)");
	bw_err("10 G", "ambiguous unit 'G': write '10 GB/s' (bytes per second) or '10 Gb/s' (bits per second)");
	bw_err("10 gb/s", "unknown unit 'gb/s' (units are case-sensitive): write '10 GB/s' (10^9 bytes/s) or '10 Gb/s' (10^9 bits/s)");
	/* the hints name the prefix the letters mean, in the case the parser
	 * takes: m is M (no unit here is milli-), K is k for decimal units */
	bw_err("100 mbps", "ambiguous unit 'mbps': write '100 MB/s' (bytes per second) or '100 Mb/s' (bits per second)");
	bw_err("100 mB/s", "unknown unit 'mB/s' (units are case-sensitive): write '100 MB/s' (10^6 bytes/s) or '100 Mb/s' (10^6 bits/s)");
	bw_err("100 Kbps", "ambiguous unit 'Kbps': write '100 kB/s' (bytes per second) or '100 kb/s' (bits per second)");
	bw_err("100 KB/s", "unknown unit 'KB/s' (units are case-sensitive): write '100 kB/s' (10^3 bytes/s) or '100 kb/s' (10^3 bits/s)");
	bw_err("100 gbit/s", "unknown unit 'gbit/s' (units are case-sensitive): write '100 Gbit/s'");
	bw_err("100 kib/s", "unknown unit 'kib/s' (units are case-sensitive): write '100 KiB/s' (2^10 bytes/s)");
	bw_err("10 GiBps", "unknown unit 'GiBps': write '10 GiB/s' (2^30 bytes per second; binary units have no bit rate)");
	bw_err("10 Pbps", "unknown bandwidth unit 'Pbps': use B/s, kB/s, MB/s, GB/s, TB/s, KiB/s..TiB/s, or bits b/s, kb/s, Mb/s, Gb/s, Tb/s");
	bw_err("10 P", "unknown bandwidth unit 'P': use B/s, kB/s, MB/s, GB/s, TB/s, KiB/s..TiB/s, or bits b/s, kb/s, Mb/s, Gb/s, Tb/s");
	bw_err("10 bps", "ambiguous unit 'bps': write '10 B/s' (bytes per second) or '10 b/s' (bits per second)");
	bw_err("10 GB", "'GB' is a size, not a bandwidth: write '10 GB/s'");
	bw_err("-5 GB/s", "must not be negative, got '-5 GB/s'");
	bw_err("1e999 GB/s", "'1e999 GB/s' is out of range");
}
END_TEST

START_TEST(test_time)
{
	ck_assert(time_ok("2 us") == 2e-6);
	ck_assert(time_ok("0.5 ms") == 5e-4);
	ck_assert(time_ok("10 us") == 1e-5);
	ck_assert(time_ok("5 \xc2\xb5s") == 5e-6);
	ck_assert(time_ok("5 \xce\xbcs") == 5e-6); /* the Greek mu, as many keyboards type it */
	ck_assert(time_ok("3 ns") == 3e-9);
	ck_assert(time_ok("1.5 s") == 1.5);
	ck_assert(time_ok("0 us") == 0.0);
	time_err("5 US", "unknown time unit 'US' (units are case-sensitive): use s, ms, us or ns, like '5 us'");
	time_err("5", "missing unit in '5': write a plain number for base units (seconds) or add a unit, like '5 us'");
	time_err("-2 us", "must not be negative, got '-2 us'");
}
END_TEST

static double flops_ok(const char *s)
{
	double v = -1;
	char err[256] = "";
	ck_assert_msg(dc_units_parse_flops(s, &v, err, sizeof(err)) == 0, "'%s' failed: %s", s, err);
	return v;
}

static void flops_err(const char *s, const char *want)
{
	double v = 0;
	char err[256] = "";
	ck_assert_msg(dc_units_parse_flops(s, &v, err, sizeof(err)) == -1, "'%s' was accepted", s);
	ck_assert_str_eq(err, want);
}

/* A GPU peak as the data sheets write it: the decimal text scaled once,
 * so each is the double nearest the exact rate */
START_TEST(test_flops)
{
	ck_assert(flops_ok("989 TFLOP/s") == 989e12);   /* H100 SXM5 dense BF16 */
	ck_assert(flops_ok("1.979 PFLOP/s") == 1.979e15); /* its dense FP8 */
	ck_assert(flops_ok("312TFLOP/s") == 312e12);
	ck_assert(flops_ok("0.1 GFLOP/s") == 1e8);
	ck_assert(flops_ok("312e12 FLOP/s") == 312e12);
	ck_assert(flops_ok("5 kFLOP/s") == 5e3);
	ck_assert(flops_ok("7 MFLOP/s") == 7e6);
	flops_err("312 TFLOPS", "unknown unit 'TFLOPS': write '312 TFLOP/s'");
	flops_err("2.25 pflop/s", "unknown unit 'pflop/s' (units are case-sensitive): write '2.25 PFLOP/s'");
	flops_err("312 flops", "unknown unit 'flops': write '312 FLOP/s'");
	flops_err("312 tflop/s", "unknown unit 'tflop/s' (units are case-sensitive): write '312 TFLOP/s'");
	flops_err("312 TB/s", "unknown FLOP rate unit 'TB/s': use FLOP/s, kFLOP/s, MFLOP/s, GFLOP/s, TFLOP/s or PFLOP/s");
	flops_err("312", "missing unit in '312': write a plain number for FLOP/s or add a unit, like '312 TFLOP/s'");
	flops_err("TFLOP/s", "expected a number followed by a unit, like '989 TFLOP/s', got 'TFLOP/s'");
	flops_err("-3 TFLOP/s", "must not be negative, got '-3 TFLOP/s'");
}
END_TEST

int main(void)
{
	Suite *s = suite_create("units");
	TCase *tc = tcase_create("units");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, test_bytes);
	tcase_add_test(tc, test_bytes_errors);
	tcase_add_test(tc, test_bandwidth);
	tcase_add_test(tc, test_unit_hints_parse);
	tcase_add_test(tc, test_bandwidth_errors);
	tcase_add_test(tc, test_time);
	tcase_add_test(tc, test_flops);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? 0 : 1;
}
