/* check_estimators.c - the estimator table's runner with results the
 * caller holds (dc_estimate_with, results.h): a held row is read, never
 * recomputed, and a perturbed held result moves the step as the what-ifs
 * expect. On configs/systems.json (Llama-2-7B shape, 2 nodes x 4
 * A100-SXM4-80GB, TP 4, DP 2, PP 1, 8 microbatches of 1). */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "distcalc/config.h"
#include "distcalc/plan.h"
#include "distcalc/results.h"

#include "fixtures.h"
#include "fixtures_plan.h"

#define BIT(e) DC_EST_BIT(DC_EST_##e)
#define REL(a, b, tol) ck_assert_msg(fabs((a) - (b)) <= (tol) * fabs(b), "%.12g vs %.12g", (double)(a), (double)(b))

static struct dc_config cfg;
static struct dc_plan plan;

/* the seed's plan and its step, computed the ordinary way */
static struct dc_results *seed_step(void)
{
	struct dc_results *r = calloc(1, sizeof(*r));
	ck_assert_ptr_nonnull(r);
	fixture_systems(&cfg);
	fixture_plan(&cfg, &plan);
	ck_assert_uint_eq(plan.layout.pp, 1);
	ck_assert_uint_eq(plan.layout.grad_accum_steps, 8);
	ck_assert_msg(dc_estimate(&plan, BIT(STEP), r) == 0, "%s", r->error ? r->error : "?");
	ck_assert(r->step.available);
	ck_assert(r->step.time_s > 0);
	return r;
}

static int all_bytes(const void *p, size_t n, unsigned char v)
{
	const unsigned char *b = p;
	for (size_t i = 0; i < n; i++)
		if (b[i] != v)
			return 0;
	return 1;
}

/* The ring section's two prices of one AllReduce over ranks 0..15 of two
 * DGX H100 nodes (8 x 400 Gb/s NICs each), M = 4 GiB:
 * - the course's lab, one ring with every hop on one NIC (B = 50 GB/s,
 *   alpha 14 us): 2(p - 1)(alpha + M/(pB)) = 30 x (14 us + 4294967296 /
 *   16 / 50e9 s = 5.36871 ms) = 161.481 ms, busbw about B;
 * - the network model, as NCCL runs it over every NIC and NVLink: the
 *   measured nccl-tests all_reduce_perf on two such nodes
 *   (../shared/reference/nccl-tests-h100-2x8-ib.txt, 4 GiB out of place)
 *   took 17,262 us, busbw 466.52 GB/s; within 5% of both.
 * A trial read the lab's time as its run's; the two now stand side by side. */
START_TEST(test_ring_lab_beside_the_network_model)
{
	struct dc_results *r = calloc(1, sizeof(*r));
	ck_assert_ptr_nonnull(r);
	fixture_json(&cfg, "{\"model\": {\"num_layers\": 32, \"hidden_size\": 4096, \"num_attention_heads\": 32, "
			   "\"vocab_size\": 32000, \"seq_length\": 4096}, \"cluster\": {\"system\": \"dgx-h100\", "
			   "\"num_nodes\": 2}, \"parallel\": {\"tp\": 8}, \"collective\": {\"message_size\": 4294967296}}");
	fixture_plan(&cfg, &plan);
	ck_assert_int_eq(dc_estimate(&plan, BIT(RING), r), 0);
	ck_assert_uint_eq(r->ring.ranks, 16);
	REL(r->ring.time_s, 30 * (14e-6 + 4294967296.0 / 16 / 50e9), 1e-12);
	ck_assert(r->ring.have_net);
	REL(r->ring.net_time_s, 17262e-6, 0.05);
	REL(r->ring.net_busbw_GBps, 466.52, 0.05);
	ck_assert(r->ring.time_s > 9 * r->ring.net_time_s);
	/* one rank: nothing to price */
	cfg.collective.ranks = 1;
	fixture_plan(&cfg, &plan);
	ck_assert_int_eq(dc_estimate(&plan, BIT(RING), r), 0);
	ck_assert(!r->ring.have_net);
	free(r);
}
END_TEST

/* The step with the batch and the memory held: memory is not a need of
 * the step, so its member keeps whatever the caller left there (here a
 * pattern no estimator writes); the batch is read as held; the step's
 * other needs are computed, and the step is the ordinary one. */
START_TEST(test_held_rows_are_not_recomputed)
{
	struct dc_results *base = seed_step();
	struct dc_results *r = calloc(1, sizeof(*r));
	ck_assert_ptr_nonnull(r);
	r->batch = base->batch;
	memset(&r->memory, 0x5a, sizeof(r->memory));
	ck_assert_int_eq(dc_estimate_with(&plan, BIT(STEP), BIT(BATCH) | BIT(MEMORY), r), 0);
	ck_assert_uint_eq(r->done, BIT(BATCH) | BIT(MEMORY) | BIT(COMM) | BIT(FLOPS) | BIT(COMPUTE) | BIT(STEP));
	ck_assert(all_bytes(&r->memory, sizeof(r->memory), 0x5a));
	ck_assert(r->step.time_s == base->step.time_s);
	ck_assert(r->step.mfu == base->step.mfu);
	/* the rows wanted are all held: nothing runs */
	memset(&r->comm, 0x3c, sizeof(r->comm));
	ck_assert_int_eq(dc_estimate_with(&plan, BIT(COMM), BIT(COMM), r), 0);
	ck_assert_uint_eq(r->done, BIT(COMM));
	ck_assert(all_bytes(&r->comm, sizeof(r->comm), 0x3c));
	free(r);
	free(base);
}
END_TEST

/* A held row's own needs are not run for it: the step held, the
 * strategies' variants read it (their configured entry is the held step)
 * and neither the kernels nor the collectives are computed. */
START_TEST(test_held_row_needs_nothing)
{
	struct dc_results *base = seed_step();
	struct dc_results *r = calloc(1, sizeof(*r));
	ck_assert_ptr_nonnull(r);
	r->step = base->step;
	r->step.time_s = 123.0;
	memset(&r->comm, 0x3c, sizeof(r->comm));
	memset(&r->compute, 0x3c, sizeof(r->compute));
	ck_assert_int_eq(dc_estimate_with(&plan, BIT(STEP_VARIANTS), BIT(STEP), r), 0);
	ck_assert_uint_eq(r->done, BIT(STEP) | BIT(STEP_VARIANTS));
	ck_assert(r->step.variants[DC_VARIANT_CONFIGURED].time_s == 123.0);
	ck_assert(r->step.time_s == 123.0);
	ck_assert(all_bytes(&r->comm, sizeof(r->comm), 0x3c));
	ck_assert(all_bytes(&r->compute, sizeof(r->compute), 0x3c));
	free(r);
	free(base);
}
END_TEST

/* The slow data rank's what-if by hand: 10 ms more in the embedding's
 * forward, held, is a 10 ms wait before each microbatch's forward. With
 * one pipeline stage the 8 forwards run one after the other on every
 * rank, so the step is 8 x 10 ms = 80 ms longer (the gradient sync
 * follows the backward as before). Without the compute held, the runner
 * prices the kernels afresh and the delay is gone. */
START_TEST(test_held_compute_perturbed)
{
	struct dc_results *base = seed_step();
	struct dc_results *r = calloc(1, sizeof(*r));
	ck_assert_ptr_nonnull(r);
	*r = *base;
	r->compute.embedding.fwd_s += 0.010;
	ck_assert_int_eq(dc_estimate_with(&plan, BIT(STEP), BIT(COMPUTE) | BIT(COMM) | BIT(FLOPS) | BIT(BATCH), r), 0);
	ck_assert_uint_eq(r->done, BIT(COMPUTE) | BIT(COMM) | BIT(FLOPS) | BIT(BATCH) | BIT(STEP));
	ck_assert(r->compute.embedding.fwd_s == base->compute.embedding.fwd_s + 0.010);
	REL(r->step.time_s - base->step.time_s, 8 * 0.010, 1e-9);
	/* held only the inputs the step does not read again: recomputed */
	ck_assert_int_eq(dc_estimate_with(&plan, BIT(STEP), BIT(MEMORY), r), 0);
	ck_assert(r->compute.embedding.fwd_s == base->compute.embedding.fwd_s);
	ck_assert(r->step.time_s == base->step.time_s);
	free(r);
	free(base);
}
END_TEST

/* MFU is the model's FLOPs per step over the step time x GPUs x peak
 * (Narayanan et al. 2021, Sec. 5.1): twice the FLOPs held, the same step
 * time, twice the MFU. */
START_TEST(test_held_flops_perturbed)
{
	struct dc_results *base = seed_step();
	struct dc_results *r = calloc(1, sizeof(*r));
	ck_assert_ptr_nonnull(r);
	*r = *base;
	r->flops.model_per_step *= 2;
	ck_assert_int_eq(dc_estimate_with(&plan, BIT(STEP), BIT(FLOPS) | BIT(BATCH), r), 0);
	ck_assert(r->step.time_s == base->step.time_s);
	REL(r->step.mfu, 2 * base->step.mfu, 1e-12);
	free(r);
	free(base);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("estimators");
	TCase *tc = tcase_create("have");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, test_held_rows_are_not_recomputed);
	tcase_add_test(tc, test_ring_lab_beside_the_network_model);
	tcase_add_test(tc, test_held_row_needs_nothing);
	tcase_add_test(tc, test_held_compute_perturbed);
	tcase_add_test(tc, test_held_flops_perturbed);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
