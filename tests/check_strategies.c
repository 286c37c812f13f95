/* check_strategies.c - the aligned comparison: same global batch, hand-
 * computed communication of pure DP on the course's 7B setting. */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "distcalc/config.h"
#include "distcalc/results.h"
#include "distcalc/strategies.h"

#include "distcalc/plan.h"

#include "fixtures.h"
#include "fixtures_plan.h"

/* The course's setting: configs/systems.json, Llama-2-7B shape, 2 x 4
 * GPUs, tp 4 x dp 2, micro 1 x accum 8. */
static void course(struct dc_config *c)
{
	fixture_systems(c);
}

START_TEST(test_variants_keep_the_global_batch)
{
	struct dc_config c;
	struct dc_layout v;
	int aligned;

	course(&c);
	/* 1 x 8 x 2 = 16 samples over 8 replicas: 2 each, micro 1 x accum 2 */
	dc_variant_layout(plan_of(&c), DC_VARIANT_DP, &v, &aligned);
	ck_assert(aligned);
	ck_assert_uint_eq(v.tp, 1);
	ck_assert_uint_eq(v.pp, 1);
	ck_assert_uint_eq(v.dp, 8);
	ck_assert_int_eq(v.sharding, DC_SHARD_NONE);
	ck_assert_uint_eq(v.micro_batch_size, 1);
	ck_assert_uint_eq(v.grad_accum_steps, 2);
	dc_variant_layout(plan_of(&c), DC_VARIANT_FSDP, &v, &aligned);
	ck_assert_int_eq(v.sharding, DC_SHARD_FSDP);
	/* the configured row is the input's layout */
	dc_variant_layout(plan_of(&c), DC_VARIANT_CONFIGURED, &v, &aligned);
	ck_assert(aligned);
	ck_assert_uint_eq(v.tp, 4);
	ck_assert_uint_eq(v.dp, 2);
	ck_assert_uint_eq(v.grad_accum_steps, 8);
	/* micro 4 x accum 3 x dp 2 = 24 over 8: 3 each; the largest micro
	 * batch dividing 3 and not above 4 is 3, so accum 1 */
	c.training.micro_batch_size = 4;
	c.training.grad_accum_steps = 3;
	dc_variant_layout(plan_of(&c), DC_VARIANT_DP, &v, &aligned);
	ck_assert(aligned);
	ck_assert_uint_eq(v.micro_batch_size, 3);
	ck_assert_uint_eq(v.grad_accum_steps, 1);
	/* 1 x 2 x 2 = 4 samples cannot feed 8 replicas: not aligned */
	c.training.micro_batch_size = 1;
	c.training.grad_accum_steps = 2;
	dc_variant_layout(plan_of(&c), DC_VARIANT_DP, &v, &aligned);
	ck_assert(!aligned);
}
END_TEST

START_TEST(test_pure_dp_comm_per_token)
{
	/* pure DP of the 7B model on 8 ranks: grads 6,738,415,616 x 2 B =
	 * 13,476,831,232 B, AllReduce sends 2 x 7/8 of it = 23,584,454,656 B per
	 * rank per step (every 25 MiB bucket and the 2,629,632 B rest divide by
	 * 8). Tokens per step 16 x 4096 = 65,536 in every variant; bytes per
	 * token 23,584,454,656 x 8 / 65,536 = 2,878,961.75. */
	struct dc_config c;
	struct dc_plan p;
	struct dc_batch b;
	struct dc_comm cm;
	struct dc_memory_result mem;
	struct dc_strategies_result sr;
	const struct dc_variant_result *r = sr.v;
	const char *err = NULL;

	course(&c);
	fixture_plan(&c, &p);
	ck_assert_int_eq(dc_batch_compute(&p, &b, &err), 0);
	ck_assert_int_eq(dc_comm_compute(&p, &cm, &err), 0);
	ck_assert_int_eq(dc_memory_compute(&p, &mem, &err), 0);
	ck_assert_int_eq(dc_strategies_compute(&p, &b, &cm, &mem, &sr, &err), 0);
	for (int i = 0; i < DC_VARIANT_COUNT; i++) {
		ck_assert_uint_eq(r[i].tokens_per_step, 65536);
		ck_assert(r[i].aligned);
	}
	ck_assert_uint_eq(r[DC_VARIANT_DP].comm_bytes_per_rank, 23584454656ull);
	ck_assert(r[DC_VARIANT_DP].comm_bytes_per_token == 2878961.75);
	/* FSDP gathers forward and backward and scatters grads per microbatch:
	 * 2 microbatches x 3 x 7/8 x 13,476,831,232 = 70,753,363,968 B, less
	 * the root unit's backward AllGather (embedding + head + norm,
	 * 524,296,192 B, stays gathered: 2 x 7/8 x 524,296,192 = 917,518,336):
	 * 69,835,845,632 B, 2.96 times DDP's once-per-step AllReduce (each
	 * unit's bytes divide by 8: layer 404,766,720 B). Its model states
	 * shrink 8-fold, while pure DP's 16 B/param x 6.7e9 = 107.8e9 B of
	 * states alone exceed 80 GiB */
	ck_assert_uint_eq(r[DC_VARIANT_FSDP].comm_bytes_per_rank, 69835845632ull);
	ck_assert(!r[DC_VARIANT_DP].fits);
	ck_assert_uint_lt(r[DC_VARIANT_FSDP].peak_bytes, r[DC_VARIANT_DP].peak_bytes);
	/* and FSDP fits at tp 1 (docs/formulas-systems.md, "Aligned
	 * comparison"): states 16 x 6,738,415,616 / 8 = 13,476,831,232 B; a
	 * layer's activations (flash attention, no dropout, sbh = 4096^2)
	 * 16 sbh + 6 sbf + 4asb = 268,435,456 + 270,532,608 + 524,288 =
	 * 539,492,352 B, x 32 = 17,263,755,264; the head's 591,396,864 and
	 * the loss's FP32 grads 1,048,576,000; buffers: two layer units and
	 * the root gathered (2 x 404,766,720 + 524,296,192), the root's grads
	 * 524,296,192 and NCCL's 268,435,456 = 2,126,561,280; context and
	 * workspace 805,306,368: 35,312,427,008 B, + 5 % reserve
	 * 1,765,621,351 = 37,078,048,359 B (34.53 GiB < 80 GiB) */
	ck_assert(r[DC_VARIANT_FSDP].fits);
	ck_assert_uint_eq(r[DC_VARIANT_FSDP].peak_bytes, 37078048359ull);
	/* each row carries its layout */
	ck_assert_uint_eq(r[DC_VARIANT_DP].tp, 1);
	ck_assert_uint_eq(r[DC_VARIANT_DP].dp, 8);
	ck_assert_uint_eq(r[DC_VARIANT_DP].micro_batch_size, 1);
	ck_assert_uint_eq(r[DC_VARIANT_DP].grad_accum_steps, 2);
	ck_assert_int_eq(r[DC_VARIANT_FSDP].sharding, DC_SHARD_FSDP);
	ck_assert_uint_eq(r[DC_VARIANT_CONFIGURED].tp, 4);
	ck_assert_uint_eq(r[DC_VARIANT_CONFIGURED].dp, 2);
	ck_assert_uint_eq(r[DC_VARIANT_CONFIGURED].grad_accum_steps, 8);
	/* the configured row is the configured layout's memory and comm */
	ck_assert_uint_eq(r[DC_VARIANT_CONFIGURED].peak_bytes, mem.top.peak_bytes);
	ck_assert_uint_eq(r[DC_VARIANT_CONFIGURED].comm_bytes_per_rank, cm.bytes_per_rank);
}
END_TEST

/* The ranking by hand: three variants, pure DP the fastest on paper
 * (3000 tokens/s per GPU) but over the GPU's memory: never ranked, listed
 * last; FSDP (2000) ranks 1, the configured layout (1000) 2. */
START_TEST(test_rank_skips_what_does_not_fit)
{
	struct dc_strategies_result r;
	struct dc_strategies_order o;
	static const double tps[DC_VARIANT_COUNT] = {3000, 2000, 1000};

	memset(&r, 0, sizeof(r));
	for (int v = 0; v < DC_VARIANT_COUNT; v++)
		r.v[v].aligned = 1;
	r.v[DC_VARIANT_DP].fits = 0;
	r.v[DC_VARIANT_FSDP].fits = 1;
	r.v[DC_VARIANT_CONFIGURED].fits = 1;
	dc_strategies_rank(&r, tps, &o);
	ck_assert_int_eq(o.by_step, 1);
	ck_assert_uint_eq(o.rank[DC_VARIANT_DP], 0);
	ck_assert_uint_eq(o.rank[DC_VARIANT_FSDP], 1);
	ck_assert_uint_eq(o.rank[DC_VARIANT_CONFIGURED], 2);
	ck_assert_int_eq(o.order[0], DC_VARIANT_FSDP);
	ck_assert_int_eq(o.order[1], DC_VARIANT_CONFIGURED);
	ck_assert_int_eq(o.order[2], DC_VARIANT_DP);
	/* without step times: communication time per token, lowest first
	 * (1 us beats 2 us); pure DP's 0.5 us does not count, it does not fit */
	r.v[DC_VARIANT_DP].comm_time_per_token_s = 0.5e-6;
	r.v[DC_VARIANT_FSDP].comm_time_per_token_s = 2e-6;
	r.v[DC_VARIANT_CONFIGURED].comm_time_per_token_s = 1e-6;
	dc_strategies_rank(&r, NULL, &o);
	ck_assert_int_eq(o.by_step, 0);
	ck_assert_uint_eq(o.rank[DC_VARIANT_CONFIGURED], 1);
	ck_assert_uint_eq(o.rank[DC_VARIANT_FSDP], 2);
	ck_assert_uint_eq(o.rank[DC_VARIANT_DP], 0);
	ck_assert_int_eq(o.order[2], DC_VARIANT_DP);
	/* nothing fits: nothing ranked, variant order kept */
	r.v[DC_VARIANT_FSDP].fits = r.v[DC_VARIANT_CONFIGURED].fits = 0;
	dc_strategies_rank(&r, tps, &o);
	for (int v = 0; v < DC_VARIANT_COUNT; v++) {
		ck_assert_uint_eq(o.rank[v], 0);
		ck_assert_int_eq(o.order[v], v);
	}
}
END_TEST

/* The course (configs/systems.json): pure DP's 16 B/param x 6,738,415,616
 * = 107,814,649,856 B of model states alone exceed the A100's 80 GiB =
 * 85,899,345,920 B, so even as the fastest on paper it is not ranked. */
START_TEST(test_course_pure_dp_not_ranked)
{
	struct dc_config c;
	struct dc_plan p;
	struct dc_batch b;
	struct dc_comm cm;
	struct dc_memory_result mem;
	struct dc_strategies_result sr;
	struct dc_strategies_order o;
	static const double tps[DC_VARIANT_COUNT] = {1e9, 1, 1};
	const char *err = NULL;

	course(&c);
	fixture_plan(&c, &p);
	ck_assert_int_eq(dc_batch_compute(&p, &b, &err), 0);
	ck_assert_int_eq(dc_comm_compute(&p, &cm, &err), 0);
	ck_assert_int_eq(dc_memory_compute(&p, &mem, &err), 0);
	ck_assert_int_eq(dc_strategies_compute(&p, &b, &cm, &mem, &sr, &err), 0);
	/* the model states alone are over the 80 GiB: the peak is more */
	ck_assert_uint_gt(sr.v[DC_VARIANT_DP].peak_bytes, 107814649856ull);
	ck_assert(!sr.v[DC_VARIANT_DP].fits);
	dc_strategies_rank(&sr, tps, &o);
	ck_assert_uint_eq(o.rank[DC_VARIANT_DP], 0);
	ck_assert_int_eq(o.order[DC_VARIANT_COUNT - 1], DC_VARIANT_DP);
	ck_assert_uint_eq(o.rank[o.order[0]], 1);
}
END_TEST

/* Not the same work, not ranked: the course at accum 1 has a global
 * batch of 1 x 1 x 2 = 2 samples, 2 x 4096 = 8,192 tokens a step; 8
 * replicas of pure DP or FSDP cannot split 2 samples, so each takes 1:
 * 8 x 4096 = 32,768 tokens, four times the work. FSDP fits (and would
 * rank first on tokens/s per GPU) but is not aligned: only the configured
 * layout ranks; FSDP and pure DP follow it in variant order. */
START_TEST(test_rank_skips_what_is_not_aligned)
{
	struct dc_config c;
	struct dc_plan p;
	struct dc_batch b;
	struct dc_comm cm;
	struct dc_memory_result mem;
	struct dc_strategies_result sr;
	struct dc_strategies_order o;
	static const double tps[DC_VARIANT_COUNT] = {3000, 4000, 1000};
	const char *err = NULL;

	course(&c);
	c.training.grad_accum_steps = 1;
	fixture_plan(&c, &p);
	ck_assert_int_eq(dc_batch_compute(&p, &b, &err), 0);
	ck_assert_int_eq(dc_comm_compute(&p, &cm, &err), 0);
	ck_assert_int_eq(dc_memory_compute(&p, &mem, &err), 0);
	ck_assert_int_eq(dc_strategies_compute(&p, &b, &cm, &mem, &sr, &err), 0);
	ck_assert_uint_eq(sr.v[DC_VARIANT_CONFIGURED].tokens_per_step, 8192);
	ck_assert(sr.v[DC_VARIANT_CONFIGURED].aligned);
	for (int v = DC_VARIANT_DP; v <= DC_VARIANT_FSDP; v++) {
		ck_assert_uint_eq(sr.v[v].tokens_per_step, 32768);
		ck_assert_uint_eq(sr.v[v].micro_batch_size, 1);
		ck_assert_uint_eq(sr.v[v].grad_accum_steps, 1);
		ck_assert(!sr.v[v].aligned);
	}
	ck_assert(sr.v[DC_VARIANT_FSDP].fits);
	dc_strategies_rank(&sr, tps, &o);
	ck_assert_uint_eq(o.rank[DC_VARIANT_CONFIGURED], 1);
	ck_assert_uint_eq(o.rank[DC_VARIANT_FSDP], 0);
	ck_assert_uint_eq(o.rank[DC_VARIANT_DP], 0);
	ck_assert_int_eq(o.order[0], DC_VARIANT_CONFIGURED);
	ck_assert_int_eq(o.order[1], DC_VARIANT_DP);
	ck_assert_int_eq(o.order[2], DC_VARIANT_FSDP);
	/* without step times likewise */
	dc_strategies_rank(&sr, NULL, &o);
	ck_assert_uint_eq(o.rank[DC_VARIANT_CONFIGURED], 1);
	ck_assert_uint_eq(o.rank[DC_VARIANT_FSDP], 0);
}
END_TEST

/* Offloaded states must fit the host as summary.fits says: the course
 * layout with the optimizer offloaded holds on the host, per rank, FP32
 * grads and master weights (6,739,214,336 B each) and Adam's two moments
 * (13,478,428,672 B): 26,956,857,344 B, so 4 ranks a node need
 * 107,827,429,376 B: 100 GiB (107,374,182,400 B) is short, 101 GiB
 * (108,447,924,224 B) holds it. */
START_TEST(test_configured_needs_the_host)
{
	struct dc_config c;
	struct dc_plan p;
	struct dc_batch b;
	struct dc_comm cm;
	struct dc_memory_result mem;
	struct dc_strategies_result sr;
	const char *err = NULL;
	static const uint64_t host[2] = {107374182400ull, 108447924224ull};

	for (int i = 0; i < 2; i++) {
		course(&c);
		c.parallel.offload = DC_OFFLOAD_OPTIMIZER;
		c.cluster.host_mem_bytes = host[i];
		fixture_plan(&c, &p);
		ck_assert_int_eq(dc_batch_compute(&p, &b, &err), 0);
		ck_assert_int_eq(dc_comm_compute(&p, &cm, &err), 0);
		ck_assert_int_eq(dc_memory_compute(&p, &mem, &err), 0);
		ck_assert_uint_eq(mem.host_node_bytes, 107827429376ull);
		ck_assert_int_eq(dc_strategies_compute(&p, &b, &cm, &mem, &sr, &err), 0);
		ck_assert(mem.top.fits); /* the GPUs hold it either way */
		ck_assert_int_eq(sr.v[DC_VARIANT_CONFIGURED].fits, i == 1);
	}
}
END_TEST

/* The course's 8 GPUs as plain DDP (tp 1 x dp 8, micro 1 x accum 2,
 * the same 16 samples): its pure-DP variant (16 over 8 replicas, 2 each,
 * micro 1 x accum 2) is the configured layout itself, its FSDP variant is
 * not; as plain FSDP the other way round; as HSDP (2 replicas) neither,
 * nor is either of the course's tp 4 x dp 2. A variant that is the
 * configured layout shows the configured row and step. */
START_TEST(test_variant_that_is_the_configured_layout)
{
	struct dc_config c;
	struct dc_plan p;
	struct dc_layout v;
	static struct dc_results r;
	int aligned;

	course(&c);
	dc_variant_layout(plan_of(&c), DC_VARIANT_DP, &v, &aligned);
	ck_assert(!dc_variant_is_configured(plan_of(&c), &v));
	c.parallel.tp = 1;
	c.parallel.dp = 8;
	c.training.grad_accum_steps = 2;
	fixture_plan(&c, &p);
	dc_variant_layout(&p, DC_VARIANT_DP, &v, &aligned);
	ck_assert(dc_variant_is_configured(&p, &v));
	dc_variant_layout(&p, DC_VARIANT_FSDP, &v, &aligned);
	ck_assert(!dc_variant_is_configured(&p, &v));
	ck_assert_int_eq(dc_estimate(&p, DC_EST_BIT(DC_EST_STRATEGIES) | DC_EST_BIT(DC_EST_STEP_VARIANTS), &r), 0);
	ck_assert(r.step.available);
	ck_assert(r.step.variants[DC_VARIANT_DP].time_s == r.step.time_s);
	ck_assert(r.step.variants[DC_VARIANT_FSDP].time_s != r.step.time_s);
	ck_assert_uint_eq(r.strategies.v[DC_VARIANT_DP].peak_bytes, r.memory.top.peak_bytes);
	ck_assert_uint_eq(r.strategies.v[DC_VARIANT_DP].comm_bytes_per_rank, r.comm.bytes_per_rank);
	c.parallel.sharding = DC_SHARD_FSDP;
	fixture_plan(&c, &p);
	dc_variant_layout(&p, DC_VARIANT_DP, &v, &aligned);
	ck_assert(!dc_variant_is_configured(&p, &v));
	dc_variant_layout(&p, DC_VARIANT_FSDP, &v, &aligned);
	ck_assert(dc_variant_is_configured(&p, &v));
	c.parallel.dp_replicate = 2;
	fixture_plan(&c, &p);
	dc_variant_layout(&p, DC_VARIANT_FSDP, &v, &aligned);
	ck_assert(!dc_variant_is_configured(&p, &v));
}
END_TEST

/* The step's variants read the strategies row's plan, batch and
 * collectives when it ran in the same evaluation, and derive and price
 * their own when it did not: the same step times either way, bit for
 * bit, on the course's tp 4 x dp 2, as plain DDP, plain FSDP and ZeRO-1
 * over its 8 GPUs (a variant that is the configured layout, or is it but
 * for the sharding). */
START_TEST(test_step_variants_with_and_without_the_strategies_row)
{
	static const enum dc_sharding sh[] = {DC_SHARD_NONE, DC_SHARD_NONE, DC_SHARD_FSDP, DC_SHARD_ZERO1};
	static struct dc_results with, without;
	struct dc_config c;
	struct dc_plan p;

	for (int i = 0; i < 4; i++) {
		course(&c);
		if (i > 0) {
			c.parallel.tp = 1;
			c.parallel.dp = 8;
			c.training.grad_accum_steps = 2;
			c.parallel.sharding = sh[i];
		}
		fixture_plan(&c, &p);
		ck_assert_int_eq(dc_estimate(&p, DC_EST_BIT(DC_EST_STRATEGIES) | DC_EST_BIT(DC_EST_STEP_VARIANTS), &with), 0);
		ck_assert_int_eq(dc_estimate(&p, DC_EST_BIT(DC_EST_STEP_VARIANTS), &without), 0);
		ck_assert(!(without.done & DC_EST_BIT(DC_EST_STRATEGIES)));
		for (int v = 0; v < DC_VARIANT_COUNT; v++) {
			ck_assert(with.step.variants[v].available);
			ck_assert(with.step.variants[v].time_s > 0);
			ck_assert(with.step.variants[v].time_s == without.step.variants[v].time_s);
			ck_assert(with.step.variants[v].tokens_per_s_per_gpu == without.step.variants[v].tokens_per_s_per_gpu);
			ck_assert(with.step.variants[v].gpu_s_per_token == without.step.variants[v].gpu_s_per_token);
		}
	}
}
END_TEST

int main(void)
{
	Suite *s = suite_create("strategies");
	TCase *tc = tcase_create("core");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, test_variants_keep_the_global_batch);
	tcase_add_test(tc, test_pure_dp_comm_per_token);
	tcase_add_test(tc, test_rank_skips_what_does_not_fit);
	tcase_add_test(tc, test_course_pure_dp_not_ranked);
	tcase_add_test(tc, test_rank_skips_what_is_not_aligned);
	tcase_add_test(tc, test_configured_needs_the_host);
	tcase_add_test(tc, test_variant_that_is_the_configured_layout);
	tcase_add_test(tc, test_step_variants_with_and_without_the_strategies_row);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
