/* check_step.c - the step model: the pipeline schedule worked by hand, the
 * bubble of equal stages, the DP bucket tail, and the closed form against
 * the timeline. Every expected value is worked out on paper
 * (docs/step-model.md has the two-stage example), never read back from the
 * code under test. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "distcalc/step.h"

static void stage_eq(struct dc_step_stage *s, double f, double b, uint64_t v)
{
	memset(s, 0, sizeof(*s));
	s->fwd_s = f;
	s->bwd_s = b;
	s->fwd_first_s = s->fwd_last_s = f / (double)v;
	s->bwd_first_s = s->bwd_last_s = b / (double)v;
	s->compute_s = f + b;
}

START_TEST(test_two_stage_1f1b_by_hand)
{
	/* p 2, m 3; stage 0 f 1 b 2, stage 1 (the head) f 1.5 b 2.5; a send
	 * takes 0.25. On paper (docs/step-model.md):
	 *   stage 0: F0 [0,1] F1 [1,2] B0 [5.5,7.5] F2 [7.5,8.5] B1 [9.5,11.5] B2 [13.5,15.5]
	 *   stage 1: F0 [1.25,2.75] B0 [2.75,5.25] F1 [5.25,6.75] B1 [6.75,9.25]
	 *            F2 [9.25,10.75] B2 [10.75,13.25]
	 * so stage 0 ends at 15.5, stage 1 at 13.25 */
	struct dc_step_stage st[2];
	struct dc_step_pipe pp = {2, 3, 1, 0.25, st};
	double end[2], span;
	uint64_t crit = 9;
	stage_eq(&st[0], 1.0, 2.0, 1);
	stage_eq(&st[1], 1.5, 2.5, 1);
	ck_assert_int_eq(dc_step_pipeline_simulate(&pp, end, &span), 0);
	ck_assert_double_eq_tol(end[0], 15.5, 1e-12);
	ck_assert_double_eq_tol(end[1], 13.25, 1e-12);
	ck_assert_double_eq_tol(span, 15.5, 1e-12);
	/* the closed form: stage 1 is the bottleneck, 1.25 + 3 x 1.5 + 2 x
	 * 2.5 + 2.5 = 13.25, then the drain 2 + 0.25 */
	ck_assert_double_eq_tol(dc_step_pipeline_closed(&pp, &crit), 15.5, 1e-12);
	ck_assert_uint_eq(crit, 1);
}
END_TEST

START_TEST(test_bubble_equal_stages)
{
	/* p 4, m 8, f 1, b 2, no sends: (m + p - 1)(f + b) = 33, bubble
	 * (p - 1)/m = 3/8 of the busy 24 */
	struct dc_step_stage st[4];
	struct dc_step_pipe pp = {4, 8, 1, 0, st};
	double end[4], span;
	for (int i = 0; i < 4; i++)
		stage_eq(&st[i], 1.0, 2.0, 1);
	ck_assert_int_eq(dc_step_pipeline_simulate(&pp, end, &span), 0);
	ck_assert_double_eq_tol(span, 33.0, 1e-12);
	ck_assert_double_eq_tol((span - 24.0) / 24.0, 3.0 / 8.0, 1e-12);
	ck_assert_double_eq_tol(dc_step_pipeline_closed(&pp, NULL), 33.0, 1e-12);
}
END_TEST

START_TEST(test_bubble_interleaved)
{
	/* v 2: each chunk f 0.5 b 1; (m + (p - 1)/v)(f + b) = 9.5 x 3 = 28.5,
	 * bubble (p - 1)/(v m) = 3/16 */
	struct dc_step_stage st[4];
	struct dc_step_pipe pp = {4, 8, 2, 0, st};
	double end[4], span;
	for (int i = 0; i < 4; i++)
		stage_eq(&st[i], 1.0, 2.0, 2);
	ck_assert_int_eq(dc_step_pipeline_simulate(&pp, end, &span), 0);
	ck_assert_double_eq_tol(span, 28.5, 1e-12);
	ck_assert_double_eq_tol((span - 24.0) / 24.0, 3.0 / 16.0, 1e-12);
	ck_assert_double_eq_tol(dc_step_pipeline_closed(&pp, NULL), 28.5, 1e-12);
}
END_TEST

START_TEST(test_bubble_interleaved_v3)
{
	/* p 8, m 64, v 3 (the 175B layout): (64 + 7/3)(f + b) */
	struct dc_step_stage st[8];
	struct dc_step_pipe pp = {8, 64, 3, 0, st};
	double end[8], span;
	for (int i = 0; i < 8; i++)
		stage_eq(&st[i], 3.0, 6.0, 3);
	ck_assert_int_eq(dc_step_pipeline_simulate(&pp, end, &span), 0);
	ck_assert_double_eq_tol(span, (64.0 + 7.0 / 3.0) * 9.0, 1e-9);
	ck_assert_double_eq_tol(dc_step_pipeline_closed(&pp, NULL), (64.0 + 7.0 / 3.0) * 9.0, 1e-9);
}
END_TEST

START_TEST(test_dp_bucket_overlap)
{
	/* 4 buckets of 100 B over an 8 s backward: ready at 2, 4, 6, 8.
	 * 1 s each: they end at 3, 5, 7, 9, only the last second shows.
	 * 3 s each: the stream is the bottleneck, 2 + 4 x 3 = 14, 6 s show
	 * (n t - (n - 1) d = 12 - 6). */
	struct dc_step_buckets b = {1, {4}, {100}, {1.0}, 400, 4.0};
	ck_assert_double_eq_tol(dc_step_bucket_tail(&b, 8.0), 1.0, 1e-12);
	b.call_s[0] = 3.0;
	b.total_s = 12.0;
	ck_assert_double_eq_tol(dc_step_bucket_tail(&b, 8.0), 6.0, 1e-12);
	/* and a 50 B rest after them over 9 s: ready 2, 4, 6, 8 and 9; 1 s
	 * each, the rest 0.5 s: ends at 9.5, 0.5 s shows */
	{
		struct dc_step_buckets r = {2, {4, 1}, {100, 50}, {1.0, 0.5}, 450, 4.5};
		ck_assert_double_eq_tol(dc_step_bucket_tail(&r, 9.0), 0.5, 1e-12);
	}
	/* one bucket holding everything: ready at the end, all of it shows */
	{
		struct dc_step_buckets one = {1, {1}, {400}, {5.0}, 400, 5.0};
		ck_assert_double_eq_tol(dc_step_bucket_tail(&one, 8.0), 5.0, 1e-12);
	}
}
END_TEST

int main(void)
{
	Suite *s = suite_create("step");
	TCase *tc = tcase_create("schedule");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, test_two_stage_1f1b_by_hand);
	tcase_add_test(tc, test_bubble_equal_stages);
	tcase_add_test(tc, test_bubble_interleaved);
	tcase_add_test(tc, test_bubble_interleaved_v3);
	tcase_add_test(tc, test_dp_bucket_overlap);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
