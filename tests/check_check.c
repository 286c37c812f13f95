/* check_check.c - budget regression comparison rules. */
#include <check.h>
#include <string.h>

#include "distcalc/check.h"

static size_t run(const char *e, const char *a, double rtol, struct dc_buf *out)
{
	struct dc_check_result res;
	struct dc_diag d;
	dc_diag_init(&d);
	dc_buf_init(out);
	ck_assert_int_eq(dc_check_compare(e, strlen(e), "exp.json", a, strlen(a), rtol, out, &res, &d), 0);
	dc_diag_release(&d);
	return res.differences;
}

START_TEST(test_identical)
{
	struct dc_buf out;
	const char *j = "{\"a\": 1, \"b\": {\"c\": [1, 2.5, \"x\", true, null]}}";
	ck_assert_uint_eq(run(j, j, 0, &out), 0);
	ck_assert_uint_eq(out.len, 0);
	dc_buf_release(&out);
}
END_TEST

START_TEST(test_integers_are_exact)
{
	struct dc_buf out;
	/* one byte out of 1.6e9 is far inside any relative tolerance, yet a
	 * byte count must match exactly */
	ck_assert_uint_eq(run("{\"m\": {\"bytes\": 1610612736}}", "{\"m\": {\"bytes\": 1610612737}}", 0.01, &out), 1);
	ck_assert_str_eq(out.data, "m.bytes: expected 1610612736, got 1610612737 (change +6.20882e-08%)\n");
	dc_buf_release(&out);
}
END_TEST

START_TEST(test_floats_use_rtol)
{
	struct dc_buf out;
	/* 0.0322122547 vs 0.0322122548: relative change 3.1e-9 */
	ck_assert_uint_eq(run("{\"t\": 0.0322122547}", "{\"t\": 0.0322122548}", 1e-8, &out), 0);
	dc_buf_release(&out);
	ck_assert_uint_eq(run("{\"t\": 0.0322122547}", "{\"t\": 0.0322122548}", 1e-9, &out), 1);
	dc_buf_release(&out);
	/* 0.5 -> 0.75 is +50% */
	ck_assert_uint_eq(run("{\"t\": 0.5}", "{\"t\": 0.75}", 1e-9, &out), 1);
	ck_assert_str_eq(out.data, "t: expected 0.5, got 0.75 (change +50%)\n");
	dc_buf_release(&out);
}
END_TEST

START_TEST(test_one_side_only_and_types)
{
	struct dc_buf out;
	ck_assert_uint_eq(run("{\"a\": 1, \"gone\": 2}", "{\"a\": 1, \"new\": \"x\"}", 0, &out), 2);
	ck_assert_str_eq(out.data, "gone: expected 2, missing from the new report\n"
				   "new: not in the expected report, got \"x\"\n");
	dc_buf_release(&out);
	ck_assert_uint_eq(run("{\"a\": [1, 2]}", "{\"a\": [1, 2, 3]}", 0, &out), 1);
	ck_assert_str_eq(out.data, "a[2]: not in the expected report, got 3\n");
	dc_buf_release(&out);
	ck_assert_uint_eq(run("{\"s\": \"fsdp\"}", "{\"s\": \"none\"}", 0, &out), 1);
	ck_assert_str_eq(out.data, "s: expected \"fsdp\", got \"none\"\n");
	dc_buf_release(&out);
	ck_assert_uint_eq(run("{\"f\": true}", "{\"f\": false}", 0, &out), 1);
	dc_buf_release(&out);
}
END_TEST

START_TEST(test_version_and_config_ignored)
{
	struct dc_buf out;
	ck_assert_uint_eq(run("{\"distcalc_version\": \"0.1.0\", \"config\": \"a.json\", \"x\": 1}",
			      "{\"distcalc_version\": \"9.9.9\", \"config\": \"b/a.json\", \"x\": 1}", 0, &out), 0);
	dc_buf_release(&out);
}
END_TEST

START_TEST(test_absurd_expected)
{
	struct dc_buf out;
	/* 1e400 overflows a double: cJSON reads inf, and inf > rtol * inf is
	 * false, so a tolerance test alone would pass it against anything */
	ck_assert_uint_eq(run("{\"t\": 1e400}", "{\"t\": 0.5}", 1e-9, &out), 1);
	ck_assert_str_eq(out.data, "t: expected inf, got 0.5 (the stored value is not a plausible number)\n");
	dc_buf_release(&out);
	ck_assert_uint_eq(run("{\"t\": -1e400}", "{\"t\": -1e400}", 1, &out), 1);
	ck_assert_str_eq(out.data, "t: expected -inf, got -inf (the stored value is not a plausible number)\n");
	dc_buf_release(&out);
	/* a byte count above 2^53 = 9007199254740992 is no count distcalc
	 * writes, even when the new report holds the same number */
	ck_assert_uint_eq(run("{\"m\": {\"peak_bytes\": 1e20}}", "{\"m\": {\"peak_bytes\": 1e20}}", 1e-9, &out), 1);
	ck_assert_str_eq(out.data,
			 "m.peak_bytes: expected 1e+20, got 1e+20 (the stored value is not a plausible number)\n");
	dc_buf_release(&out);
	ck_assert_uint_eq(run("{\"bytes_sent\": 9007199254740994}", "{\"bytes_sent\": 9007199254740994}", 0, &out), 1);
	dc_buf_release(&out);
	/* 2^53 itself is still a count; a huge time is only compared */
	ck_assert_uint_eq(run("{\"bytes\": 9007199254740992}", "{\"bytes\": 9007199254740992}", 0, &out), 0);
	dc_buf_release(&out);
	ck_assert_uint_eq(run("{\"time_s\": 1e300}", "{\"time_s\": 1e300}", 1e-9, &out), 0);
	dc_buf_release(&out);
}
END_TEST

START_TEST(test_bad_expected)
{
	struct dc_buf out;
	struct dc_check_result res;
	struct dc_diag d;
	dc_diag_init(&d);
	dc_buf_init(&out);
	ck_assert_int_eq(dc_check_compare("[1]", 3, "exp.json", "{}", 2, 0, &out, &res, &d), -1);
	ck_assert_int_eq(d.status, DC_ERR_INPUT);
	ck_assert_str_eq(d.entries[0].text,
			 "exp.json: error: not a distcalc JSON report (write one with --format json --output FILE)");
	dc_diag_release(&d);
	dc_buf_release(&out);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("check");
	TCase *tc = tcase_create("compare");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, test_identical);
	tcase_add_test(tc, test_integers_are_exact);
	tcase_add_test(tc, test_floats_use_rtol);
	tcase_add_test(tc, test_one_side_only_and_types);
	tcase_add_test(tc, test_version_and_config_ignored);
	tcase_add_test(tc, test_absurd_expected);
	tcase_add_test(tc, test_bad_expected);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
