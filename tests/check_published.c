/* check_published.c - distcalc's bandwidth definitions against a published
 * nccl-tests log (NVIDIA/nccl-tests issue #309: 2 nodes x 8 H100, 16 ranks,
 * all_reduce_perf; copied in ../shared/reference/published-figures.md).
 *
 * Each row: size in bytes, out-of-place time in us, algbw and busbw in GB/s
 * as printed (two decimals). nccl-tests computes algbw = size / time / 1e9
 * and busbw = algbw * 2(n-1)/n; our functions must reproduce the printed
 * figures to their printed precision.
 */
#include <check.h>
#include <math.h>
#include <stdint.h>

#include "distcalc/ring.h"

struct row {
	uint64_t size;
	double time_us, algbw, busbw;
};

static const struct row rows[] = {
	{1048576, 71.93, 14.58, 27.33},
	{16777216, 185.4, 90.49, 169.67},
	{134217728, 748.3, 179.35, 336.29},
	{1073741824, 4484.9, 239.41, 448.90},
	{8589934592ULL, 34381, 249.84, 468.46},
	{17179869184ULL, 68652, 250.24, 469.21},
};

START_TEST(test_nccl_tests_log)
{
	const struct row *r = &rows[_i];
	double algbw = dc_algbw_GBps(r->size, r->time_us * 1e-6);
	double busbw = algbw * dc_allreduce_busbw_factor(16);
	/* the printed time has 4-5 significant digits, so allow 0.1% */
	ck_assert_double_eq_tol(algbw, r->algbw, r->algbw * 1e-3);
	ck_assert_double_eq_tol(busbw, r->busbw, r->busbw * 1e-3);
	/* and busbw/algbw is exactly 2*15/16 = 1.875 */
	ck_assert_double_eq_tol(dc_allreduce_busbw_factor(16), 1.875, 1e-15);
}
END_TEST

START_TEST(test_busbw_factor_small)
{
	/* 2(p-1)/p by hand: p=2 -> 1, p=4 -> 1.5, p=8 -> 1.75 */
	ck_assert_double_eq_tol(dc_allreduce_busbw_factor(2), 1.0, 1e-15);
	ck_assert_double_eq_tol(dc_allreduce_busbw_factor(4), 1.5, 1e-15);
	ck_assert_double_eq_tol(dc_allreduce_busbw_factor(8), 1.75, 1e-15);
}
END_TEST

START_TEST(test_default_config_ring)
{
	/* docs/formulas.md, "Worked example (the default config)": p = 8,
	 * M = 3,369,607,168 B, 50 GB/s, alpha = 10 us. By hand:
	 * chunk 421,200,896 B; sent 2*7*421,200,896 = 5,896,812,544 B;
	 * round 10e-6 + 421200896/5e10 = 0.00843401792 s; t = 14 x that =
	 * 0.11807625088 s; algbw = 3369607168 / t / 1e9 = 28.5375522; busbw =
	 * algbw x 1.75 = 49.9407163 (worked with a calculator). */
	struct dc_link link = {5e10, 10e-6};
	struct dc_ring r;
	dc_ring_compute(8, 3369607168ULL, &link, DC_LINK_INTER, &r);
	ck_assert_uint_eq(r.chunk_base_bytes, 421200896ULL);
	ck_assert_uint_eq(r.bytes_sent_max, 5896812544ULL);
	ck_assert_double_eq_tol(r.round_s, 0.00843401792, 1e-15);
	ck_assert_double_eq_tol(r.time_s, 0.11807625088, 1e-14);
	ck_assert_double_eq_tol(r.algbw_GBps, 28.5375522, 1e-6);
	ck_assert_double_eq_tol(r.busbw_GBps, 49.9407163, 1e-6);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("published");
	TCase *tc = tcase_create("nccl-tests");
	SRunner *sr;
	int failed;

	tcase_add_loop_test(tc, test_nccl_tests_log, 0, (int)(sizeof(rows) / sizeof(rows[0])));
	tcase_add_test(tc, test_busbw_factor_small);
	tcase_add_test(tc, test_default_config_ring);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
