/* check_step.c - the step model: the pipeline schedule worked by hand, the
 * bubble of equal stages, the DP bucket tail, and the closed form against
 * the timeline. Every expected value is worked out on paper
 * (docs/step-model.md has the two-stage example), never read back from the
 * code under test. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "distcalc/comm.h"
#include "distcalc/config.h"
#include "distcalc/plan.h"
#include "distcalc/results.h"
#include "distcalc/memory.h"
#include "distcalc/net.h"
#include "distcalc/step.h"
#include "published/korthikanti2022.h"

/* Loads configs/NAME with --set overrides (NULL-terminated), derives its
 * plan and runs the step estimator. The structs are large: static. */
static struct dc_config run_cfg;
static struct dc_plan run_plan;
static struct dc_results run_res;

/* As run_config; returns 0 (running nothing) when the loader rejects the
 * config and `may_reject`. */
static int load_and_run(const char *name, const char *const *sets, int may_reject)
{
	char path[512];
	struct dc_override ov[16];
	size_t n = 0;
	struct dc_diag d;
	snprintf(path, sizeof(path), "%s/configs/%s", DC_SOURCE_DIR, name);
	while (sets && sets[n] && n < 16) {
		ov[n] = (struct dc_override){sets[n], 0};
		n++;
	}
	dc_diag_init(&d);
	if (dc_config_load_file(path, ov, n, &run_cfg, &d) != 0) {
		if (!may_reject)
			ck_abort_msg("%s rejected: %s", name, d.count ? d.entries[0].text : "?");
		dc_diag_release(&d);
		return 0;
	}
	dc_diag_release(&d);
	if (dc_plan_derive(&run_cfg, &run_plan) != 0)
		ck_abort_msg("%s: plan: %s", name, run_plan.error);
	if (dc_estimate(&run_plan, DC_EST_BIT(DC_EST_STEP), &run_res) != 0)
		ck_abort_msg("%s: %s", name, run_res.error);
	return 1;
}

static void run_config(const char *name, const char *const *sets)
{
	load_and_run(name, sets, 0);
}

static void stage_eq(struct dc_step_stage *s, double f, double b, uint64_t v)
{
	memset(s, 0, sizeof(*s));
	s->fwd_s = f;
	s->bwd_s = b;
	s->fwd_first_s = s->fwd_last_s = f / (double)v;
	s->bwd_first_s = s->bwd_last_s = b / (double)v;
	s->compute_s = f + b;
}

/* DeepSpeed ZeRO-3's copies on the host link (docs/step-model.md,
 * "ZeRO-3's copies on the host link"): systems.json on one node, tp 1,
 * dp 4 (N = 4), micro batch 2, m = 8, 32 GB/s one way. Llama-2-7B: 32
 * layers of 202,383,360 parameters (6,476,267,520) and 262,148,096 in the
 * embedding, head and final norm (6,738,415,616 in all), 2 B each.
 * Every gather copies the rank's partition up first ("optimizer+params"):
 * a microbatch gathers the layers before forward and again before
 * backward, the root once:
 *   forward  8 x 6,738,415,616 / 4 x 2 = 26,953,662,464 B, 0.842301952 s
 *   backward 8 x 6,476,267,520 / 4 x 2 = 25,905,070,080 B, 0.809533440 s
 *   host_param_copies_s = 1.651835392 s.
 * Every micro step's gradient partitions go out and back, under either
 * offload: 2 x 8 x 6,738,415,616 / 4 x 2 = 53,907,324,928 B, 1.684603904 s.
 * With fsdp prefetch the layers' kernels hide each layer's copies but the
 * first one's of each forward and backward, whose gather is waited for
 * whole: per layer and microbatch 1/256 of each, so the exposed FSDP time
 * rises by (0.842301952 + 0.809533440) / 32 = 0.051619856 s from
 * "optimizer" (whose gradient copies are the same) to "optimizer+params",
 * whose parameters no longer come back after the step (0.105287744 s:
 * 1,684,603,904 x 2 B at 32 GB/s): the step changes by 0.051619856 -
 * 0.105287744 = -0.053667888 s. The hidden copies run on the copy
 * engines and slow no kernel. Under framework custom nothing is copied. */
START_TEST(test_deepspeed_zero3_host_copies)
{
	static const char *const params[] = {"cluster.num_nodes=1", "parallel.tp=1", "parallel.dp=4",
					     "parallel.sharding=fsdp", "training.framework=deepspeed",
					     "training.micro_batch_size=2", "parallel.offload=optimizer+params", NULL};
	static const char *const opt[] = {"cluster.num_nodes=1", "parallel.tp=1", "parallel.dp=4",
					  "parallel.sharding=fsdp", "training.framework=deepspeed",
					  "training.micro_batch_size=2", "parallel.offload=optimizer", NULL};
	static const char *const custom[] = {"cluster.num_nodes=1", "parallel.tp=1", "parallel.dp=4",
					     "parallel.sharding=fsdp", "training.framework=custom",
					     "training.micro_batch_size=2", "parallel.offload=optimizer+params", NULL};
	double t_params, ex_params;
	run_config("systems.json", params);
	ck_assert_int_eq(run_res.step.available, 1);
	ck_assert_double_le(fabs(run_res.step.host_param_copies_s - 1.651835392), 1e-9);
	ck_assert_double_le(fabs(run_res.step.host_grad_copies_s - 1.684603904), 1e-9);
	ck_assert_double_eq(run_res.compute.host_step[0].h2d_s, 0);
	t_params = run_res.step.time_s;
	ex_params = run_res.step.classes[0].exposed_s[DC_STRAT_FSDP];
	run_config("systems.json", opt);
	ck_assert_double_eq(run_res.step.host_param_copies_s, 0);
	ck_assert_double_le(fabs(run_res.step.host_grad_copies_s - 1.684603904), 1e-9);
	ck_assert_double_le(fabs(run_res.compute.host_step[0].h2d_s - 0.105287744), 1e-12);
	ck_assert_double_le(fabs(ex_params - run_res.step.classes[0].exposed_s[DC_STRAT_FSDP] - 0.051619856), 1e-9);
	ck_assert_double_le(fabs(t_params - run_res.step.time_s + 0.053667888), 1e-9);
	run_config("systems.json", custom);
	ck_assert_double_eq(run_res.step.host_param_copies_s, 0);
	ck_assert_double_eq(run_res.step.host_grad_copies_s, 0);
}
END_TEST

/* training.loss_chunks 8 at tp 2 (configs/llama-3-8b-torchtitan.json on
 * an H100, torchtitan, dp 4; docs/compute-model.md, "Chunked head and
 * loss"): T = 2 x 8192 = 16,384 tokens a microbatch, c = 2,048 a chunk;
 * each chunk's _LossParallelCrossEntropy all-reduces three FP32 columns
 * of 2,048 entries, 8,192 B each: 3 x 8 = 24 a microbatch, x m 2 = 48
 * calls, each sending 2 (8192 - 8192 / 2) = 8,192 B, 393,216 B in all.
 * One such call, by hand from docs/network-model.md ("Protocols",
 * "Channels"): an 8 KiB AllReduce on 2 ranks runs NCCL's ring LL on one
 * channel (8,192 B is not below 1 x 512 threads x 8 B x 2 ranks); its
 * start-up 6.6 us, 2 (n - 1) = 2 hops of the config's 5 us x 0.6 / 3.4 =
 * 0.882353 us; LL's quarter of 450 GB/s on 1 of its 16 channels
 * (2 x 8 NICs), 7.03125 GB/s, at n / (2 (n - 1)) = 1: 8,192 B / 7.03125
 * GB/s = 1.165084 us; 6.6 + 1.764706 + 1.165084 = 9.529790 us, x 48 =
 * 457.430 us a step, all of it on the step's exposed tp time, in place of
 * n = 1's three reductions of the whole microbatch's 16,384 tokens, 3 x 2
 * = 6 calls of 65,536 B (tp.c loss_reduces). */
START_TEST(test_loss_chunk_tp_reductions)
{
	static const char *const one[] = {"cluster.gpu=h100-sxm5-80gb", "training.framework=torchtitan",
					  "parallel.tp=2", "parallel.dp=auto", "training.loss_chunks=1", NULL};
	static const char *const eight[] = {"cluster.gpu=h100-sxm5-80gb", "training.framework=torchtitan",
					    "parallel.tp=2", "parallel.dp=auto", "training.loss_chunks=8", NULL};
	const double call_s = 6.6e-6 + 2.0 * 5e-6 * 0.6 / 3.4 + 8192.0 / (450e9 / 4.0 / 16.0);
	const struct dc_comm_strategy *s;
	const struct dc_coll *row = NULL;
	double exposed_one, whole_s = 0;
	run_config("llama-3-8b-torchtitan.json", one);
	s = &run_res.comm.s[DC_STRAT_TP];
	for (uint64_t i = 0; i < s->ncoll; i++)
		if (s->coll[i].what == DC_CW_TP_LOSS_CHUNK) {
			ck_assert_uint_eq(s->coll[i].count, 6);
			ck_assert_uint_eq(s->coll[i].msg_bytes, 65536);
			whole_s += s->coll[i].time_s;
		}
	ck_assert_double_gt(whole_s, 0);
	exposed_one = run_res.step.classes[0].exposed_s[DC_STRAT_TP];
	run_config("llama-3-8b-torchtitan.json", eight);
	s = &run_res.comm.s[DC_STRAT_TP];
	for (uint64_t i = 0; i < s->ncoll; i++)
		if (s->coll[i].what == DC_CW_TP_LOSS_CHUNK)
			row = &s->coll[i];
	ck_assert_ptr_nonnull(row);
	ck_assert_int_eq(row->kind, DC_COLL_ALL_REDUCE);
	ck_assert_int_eq(row->phase, DC_CPHASE_FORWARD);
	ck_assert_uint_eq(row->count, 48);
	ck_assert_uint_eq(row->msg_bytes, 8192);
	ck_assert_uint_eq(row->group_size, 2);
	ck_assert_uint_eq(row->bytes_per_rank, 393216ull);
	ck_assert_double_eq_tol(row->time_s, 48.0 * call_s, 1e-9 * 48.0 * call_s);
	ck_assert_double_eq_tol(48.0 * call_s, 457.430e-6, 1e-9);
	ck_assert_double_eq_tol(run_res.step.classes[0].exposed_s[DC_STRAT_TP] - exposed_one, 48.0 * call_s - whole_s,
				1e-9 * exposed_one);
}
END_TEST

/* The same reductions where the comm analyses another stage than the
 * head's: pp 2 as [20, 12], stage 0 (20 layers and the embedding) the
 * most parameters. The head's stage 1 still runs 24 calls of call_s a
 * microbatch (comm.h tp_head), m x 24 x 9.529790 us more exposed tp than
 * at loss_chunks 1, less the whole loss's 3 a microbatch there (comm.h
 * tp_head's rows at loss_chunks 1); stage 0 none (before: both none, the
 * analysed stage holding no head). */
START_TEST(test_loss_chunk_tp_reductions_on_the_head_stage)
{
	static const char *const one[] = {"cluster.gpu=h100-sxm5-80gb", "training.framework=torchtitan",
					  "parallel.tp=2", "parallel.pp=2", "parallel.pipeline_layers=[20,12]",
					  "parallel.dp=auto", "training.loss_chunks=1", NULL};
	static const char *const eight[] = {"cluster.gpu=h100-sxm5-80gb", "training.framework=torchtitan",
					    "parallel.tp=2", "parallel.pp=2", "parallel.pipeline_layers=[20,12]",
					    "parallel.dp=auto", "training.loss_chunks=8", NULL};
	const double call_s = 6.6e-6 + 2.0 * 5e-6 * 0.6 / 3.4 + 8192.0 / (450e9 / 4.0 / 16.0);
	double ex0, ex1, m, whole_s = 0;
	run_config("llama-3-8b-torchtitan.json", one);
	ck_assert_uint_eq(run_res.step.nclasses, 2);
	for (uint64_t i = 0; i < run_res.comm.tp_head.ncoll; i++)
		if (run_res.comm.tp_head.coll[i].what == DC_CW_TP_LOSS_CHUNK)
			whole_s += run_res.comm.tp_head.coll[i].time_s;
	ck_assert_double_gt(whole_s, 0);
	ex0 = run_res.step.classes[0].exposed_s[DC_STRAT_TP];
	ex1 = run_res.step.classes[1].exposed_s[DC_STRAT_TP];
	run_config("llama-3-8b-torchtitan.json", eight);
	ck_assert_uint_eq(run_res.comm.stage, 0);
	ck_assert_uint_eq(run_res.step.nclasses, 2);
	m = (double)run_plan.layout.grad_accum_steps;
	ck_assert_double_eq_tol(run_res.step.classes[0].exposed_s[DC_STRAT_TP], ex0, 1e-12);
	ck_assert_double_eq_tol(run_res.step.classes[1].exposed_s[DC_STRAT_TP] - ex1, m * 24.0 * call_s - whole_s,
				1e-9 * ex1);
}
END_TEST

/* Megatron-LM 2021's 1.7B row runs at pp 1: no stage sends to another, so
 * no time is exposed on pp, exactly 0 s, and no class shows a negative
 * time (the pipeline's span and m x (fwd + bwd) add the same times in
 * two orders and differed by 4.4e-16 s, printed as -4.440892098500626e-16) */
START_TEST(test_no_negative_time_at_pp1)
{
	run_config("../tests/inputs/megatron-2021/gpt-1_7b.json", NULL);
	ck_assert_uint_eq(run_plan.layout.pp, 1);
	ck_assert_uint_ge(run_res.step.nclasses, 1);
	for (uint64_t i = 0; i < run_res.step.nclasses; i++) {
		const struct dc_step_class *cl = &run_res.step.classes[i];
		ck_assert(cl->exposed_s[DC_STRAT_PP] == 0.0);
		for (int j = 0; j < DC_STRAT_COUNT; j++)
			ck_assert_msg(cl->exposed_s[j] >= 0, "class %llu axis %d: %g s", (unsigned long long)i, j,
				      cl->exposed_s[j]);
		ck_assert(cl->compute_s >= 0 && cl->bubble_s >= 0 && cl->hidden_s >= 0 && cl->tail_wait_s >= 0);
	}
}
END_TEST

/* No microbatches (or no chunks) is an empty schedule, for every
 * schedule with ops of its own: every stage ends at 0, and nothing is
 * divided by the zero (a review found the op order's index bound did) */
START_TEST(test_simulate_empty_schedule)
{
	static const enum dc_pipe_schedule scheds[] = {DC_PIPE_1F1B, DC_PIPE_INTERLEAVED, DC_PIPE_ZERO_BUBBLE};
	struct dc_step_stage st[3];
	double end[3], span;
	for (int i = 0; i < 3; i++)
		stage_eq(&st[i], 1.0, 2.0, 1);
	for (size_t k = 0; k < sizeof(scheds) / sizeof(scheds[0]); k++)
		for (uint64_t v = 0; v < 2; v++) {
			struct dc_step_pipe pp = {3, 0, v ? 2 : 0, 0.25, st, scheds[k]};
			end[0] = end[1] = end[2] = span = -1;
			ck_assert_int_eq(dc_step_pipeline_simulate(&pp, end, &span), 0);
			ck_assert_double_eq(span, 0);
			for (int i = 0; i < 3; i++)
				ck_assert_double_eq(end[i], 0);
		}
}
END_TEST

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

/* 1F1B on uneven stages: a stage that waits for a slower one after it
 * passes the wait up the pipeline on a path the closed form does not
 * take (docs/step-model.md, "Uneven 1F1B stages"). p 3, m 3, no sends,
 * stage 0 f 4 b 8, stage 1 f 3 b 6, stage 2 f 1 b 2. On paper (stage 0
 * warms up with 2 forwards, stage 1 with 1, stage 2 with none):
 *   stage 0: F0 [0,4] F1 [4,8] F2 [8,12] B0 [17,25] B1 [26,34] B2 [34,42]
 *   stage 1: F0 [4,7] F1 [8,11] B0 [11,17] F2 [17,20] B1 [20,26] B2 [26,32]
 *   stage 2: F0 [7,8] B0 [8,10] F1 [11,12] B1 [12,14] F2 [20,21] B2 [21,23]
 * Stage 0's B1 waits for stage 1's, which ran after its B0 and F2 (the
 * forward stage 0 sent at 12): the timeline ends at 42. The closed form's
 * paths (step.c one_f_one_b_at, drain added) are shorter: T_1 = 4 + 3 x 3
 * + 6 (its last forward ends at 19) + 6 + max(6, D_1 = 3) + 8 = 39, T_0 =
 * 3 x 4 + 8 + max(2 x 8, D_0 = 12) = 36, T_2 = 7 + 3 + 2 x 2 + 2 + 14 =
 * 30: 39, 3 short. So the step simulates 1F1B on uneven stages (step.c
 * f1b_simulated). */
START_TEST(test_uneven_1f1b_by_hand)
{
	struct dc_step_stage st[3];
	struct dc_step_pipe pp = {3, 3, 1, 0, st};
	double end[3], span;
	stage_eq(&st[0], 4.0, 8.0, 1);
	stage_eq(&st[1], 3.0, 6.0, 1);
	stage_eq(&st[2], 1.0, 2.0, 1);
	ck_assert_int_eq(dc_step_pipeline_simulate(&pp, end, &span), 0);
	ck_assert_double_eq_tol(end[0], 42.0, 1e-12);
	ck_assert_double_eq_tol(end[1], 32.0, 1e-12);
	ck_assert_double_eq_tol(end[2], 23.0, 1e-12);
	ck_assert_double_eq_tol(span, 42.0, 1e-12);
	ck_assert_double_eq_tol(dc_step_pipeline_closed(&pp, NULL), 39.0, 1e-12);
}
END_TEST

/* Two stages at m 2 (an independent review's find): p 2, no sends, stage
 * 0 f 2 b 8, stage 1 f 1 b 4. On paper:
 *   stage 0: F0 [0,2] F1 [2,4] B0 [7,15] B1 [15,23]
 *   stage 1: F0 [2,3] B0 [3,7] F1 [7,8] B1 [8,12]
 * Stage 0's first backward waits from 4 to 7 for the round trip. The
 * form's T_0 = 2 x 2 + 8 + max(8, D_0 = 5) = 20 leaves that wait out when
 * the last forward comes right before the first backward (m - w - 1 = 0),
 * T_1 = 2 + 2 + 4 + 4 + 8 = 20: 3 short. */
START_TEST(test_uneven_1f1b_two_stages_by_hand)
{
	struct dc_step_stage st[2];
	struct dc_step_pipe pp = {2, 2, 1, 0, st};
	double end[2], span;
	stage_eq(&st[0], 2.0, 8.0, 1);
	stage_eq(&st[1], 1.0, 4.0, 1);
	ck_assert_int_eq(dc_step_pipeline_simulate(&pp, end, &span), 0);
	ck_assert_double_eq_tol(end[0], 23.0, 1e-12);
	ck_assert_double_eq_tol(end[1], 12.0, 1e-12);
	ck_assert_double_eq_tol(dc_step_pipeline_closed(&pp, NULL), 20.0, 1e-12);
}
END_TEST

/* The same on the course config (tp 2, pp 4, dp 1, stages of 4, 12, 10
 * and 6 layers, m 4): stage 1 (12 layers) waits in its cool-down for
 * stage 2's backward of microbatch 2, which follows stage 2's last
 * forward, which follows stage 1's; the closed form put the step 18.3
 * ms (2.1%) under the trace's end. The report now is the timeline: its
 * step and span equal dc_step_timeline's, for m 2, 4 and 8 (the wait
 * happens once), for the mirrored stages [6, 10, 12, 4], where it was
 * already, and for two stages of 20 and 12 layers at tp 4 (m 2: the
 * form 2.8 ms short). */
START_TEST(test_uneven_1f1b_step_is_the_timeline)
{
	static const char *const layers[] = {"parallel.pipeline_layers=[4,12,10,6]",
					     "parallel.pipeline_layers=[6,10,12,4]", "parallel.pipeline_layers=[20,12]"};
	static const char *const gas[] = {"training.grad_accum_steps=4", "training.grad_accum_steps=8",
					  "training.grad_accum_steps=2"};
	for (int i = 0; i < 3; i++)
		for (int j = 0; j < 3; j++) {
			const char *sets[] = {i < 2 ? "parallel.tp=2" : "parallel.tp=4",
					      i < 2 ? "parallel.pp=4" : "parallel.pp=2",
					      "parallel.dp=1",
					      layers[i],
					      gas[j],
					      NULL};
			struct dc_step tl;
			const char *err = NULL;
			run_config("systems.json", sets);
			ck_assert_int_eq(run_res.step.schedule, DC_PIPE_1F1B);
			ck_assert_int_eq(dc_step_timeline(&run_plan, &run_res.compute, &run_res.comm, &run_res.flops,
							  &run_res.batch, &tl, NULL, NULL, NULL, &err),
					 0);
			ck_assert_double_eq_tol(run_res.step.time_s, tl.time_s, 1e-12 * tl.time_s);
			ck_assert_double_eq_tol(run_res.step.pipeline_s, tl.pipeline_s, 1e-12 * tl.pipeline_s);
		}
}
END_TEST

/* Uneven 1F1B's critical stage comes from the simulation (step.c
 * sim_critical): on the course config at tp 1, pp 8, dp 1, stages of 8,
 * 2, 4, 7, 2, 1, 7 and 1 layers, m 9, the closed form named stage 6,
 * whose last op (an independent review read the trace) ends 17.6 ms
 * before the path's drain began, the last backward waiting on its way
 * down; stage 0, the busiest, whose last op ends the span, is the
 * critical stage, and its path rows end where the span does */
START_TEST(test_uneven_1f1b_critical_stage)
{
	const char *sets[] = {"parallel.tp=1", "parallel.pp=8", "parallel.dp=1",
			      "parallel.pipeline_layers=[8,2,4,7,2,1,7,1]", "training.grad_accum_steps=9", NULL};
	double crit_end = -1;
	run_config("systems.json", sets);
	ck_assert_uint_eq(run_res.step.critical_stage, 0);
	for (uint64_t i = 0; i < run_res.step.npath; i++)
		if (strncmp(run_res.step.path[i].what, "critical stage", 14) == 0)
			crit_end = run_res.step.path[i].start_s + run_res.step.path[i].duration_s;
	ck_assert_double_eq_tol(crit_end, run_res.step.pipeline_s, 1e-12 * run_res.step.pipeline_s);
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

/* Interleaving with sends: at each change of chunk a stage waits while a
 * group's first microbatch goes round the other stages. p 2, v 2, m 2,
 * every chunk f 1 b 2, a send 0.5 (docs/step-model.md, "The closed
 * form"). On paper, Megatron's order (forwards mb 0, 1 of chunk 0, then
 * of chunk 1; stage 0 warms up with all 4, stage 1 with 2):
 *   stage 0: F(0,c0) [0,1] F(1,c0) [1,2] (waits: mb 0 is on stage 1)
 *            F(0,c1) [3,4] F(1,c1) [4,5] B(0,c1) [8,10] B(1,c1) [11,13]
 *            B(0,c0) [13,15] B(1,c0) [16,18]
 *   stage 1: F(0,c0) [1.5,2.5] F(1,c0) [2.5,3.5] F(0,c1) [4.5,5.5]
 *            B(0,c1) [5.5,7.5] F(1,c1) [7.5,8.5] B(1,c1) [8.5,10.5]
 *            B(0,c0) [10.5,12.5] B(1,c0) [13.5,15.5]
 * Stage 0 idles [2,3] in the warm-up and [15,16] in the cool-down: p c
 * = 1 each, (p - 1) f = 1 of its own work against the other stage's
 * chunk and p sends, 1 + 2 x 0.5 = 2. Span 18 = m (f + b) 12 + the
 * stage after it, (f + b) / v = 3, + 2 (p - 1) c = 1 + (v - 1) 2 p c = 2;
 * before stop 50 the closed form left the last term out (16). */
START_TEST(test_interleaved_chunk_change_waits)
{
	struct dc_step_stage st[2];
	struct dc_step_pipe pp = {2, 2, 2, 0.5, st};
	double end[2], span;
	stage_eq(&st[0], 2.0, 4.0, 2);
	stage_eq(&st[1], 2.0, 4.0, 2);
	ck_assert_int_eq(dc_step_pipeline_simulate(&pp, end, &span), 0);
	ck_assert_double_eq_tol(span, 18.0, 1e-12);
	ck_assert_double_eq_tol(end[0], 18.0, 1e-12);
	ck_assert_double_eq_tol(dc_step_pipeline_closed(&pp, NULL), 18.0, 1e-12);
}
END_TEST

/* The interleaved closed form against the simulation (two independent
 * implementations of the schedule, step.c pipe_closed and
 * dc_step_pipeline_simulate) on 2,000 drawn pipelines: pp 2-8, v 2-5,
 * m a multiple of pp up to 4 pp, a send 0-0.5 of a chunk. Equal layer
 * chunks on every stage, or stage 0's first one lighter: equal to 1e-9
 * (before stop 50, up to 32% short: the waits at a change of chunk). With an embedding (up to 10% of a
 * chunk) on stage 0's first chunk and a head (up to 60%) on the last
 * stage's last, the form is no bound either way: within 5% each, 1% on
 * average (measured: 0.61% mean, -2.9% to +4.6% over 20,000 draws;
 * docs/step-model.md, "The closed form"). */
static double lcg_unit(uint64_t *x)
{
	*x = *x * 6364136223846793005ull + 1442695040888963407ull;
	return (double)(*x >> 11) / 9007199254740992.0;
}

START_TEST(test_interleaved_closed_form_drawn)
{
	uint64_t seed = 7;
	double sum = 0;
	int n = 0;
	for (int ends = 0; ends < 3; ends++)
		for (int it = 0; it < 1000; it++) {
			struct dc_step_stage st[8];
			uint64_t p = 2 + (uint64_t)(lcg_unit(&seed) * 7), v = 2 + (uint64_t)(lcg_unit(&seed) * 4);
			uint64_t m = p * (1 + (uint64_t)(lcg_unit(&seed) * 4));
			/* sends up to a chunk's forward, where the closed form
			 * holds (past it: test_interleaved_sends_past_a_chunk) */
			double f = 0.5 + lcg_unit(&seed), b = f * (1.5 + lcg_unit(&seed)), c = lcg_unit(&seed) * f;
			struct dc_step_pipe pp = {p, m, v, c, st};
			double end[8], span, closed, err;
			for (uint64_t s = 0; s < p; s++)
				stage_eq(&st[s], f * (double)v, b * (double)v, v);
			if (ends == 2) {
				/* stage 0's first chunk lighter (DeepSeek-V3's dense
				 * first layers): exact too, the waits at the middle
				 * chunks (an independent review found a first form
				 * 14% over here) */
				double l = (0.2 + 0.4 * lcg_unit(&seed)) * f;
				st[0].fwd_first_s -= l;
				st[0].fwd_s -= l;
				st[0].bwd_first_s -= 2 * l;
				st[0].bwd_s -= 2 * l;
			} else if (ends) {
				double e0 = 0.1 * f * lcg_unit(&seed), e = 0.6 * f * lcg_unit(&seed);
				st[0].fwd_first_s += e0;
				st[0].fwd_s += e0;
				st[0].bwd_first_s += 2 * e0;
				st[0].bwd_s += 2 * e0;
				st[p - 1].fwd_last_s += e;
				st[p - 1].fwd_s += e;
				st[p - 1].bwd_last_s += 2 * e;
				st[p - 1].bwd_s += 2 * e;
			}
			ck_assert_int_eq(dc_step_pipeline_simulate(&pp, end, &span), 0);
			closed = dc_step_pipeline_closed(&pp, NULL);
			err = closed / span - 1;
			if (ends != 1) {
				ck_assert_msg(fabs(err) <= 1e-9, "p %llu v %llu m %llu: closed %.12g, simulated %.12g",
					      (unsigned long long)p, (unsigned long long)v, (unsigned long long)m, closed, span);
			} else {
				ck_assert_msg(fabs(err) <= 0.05, "p %llu v %llu m %llu: closed %.12g, simulated %.12g",
					      (unsigned long long)p, (unsigned long long)v, (unsigned long long)m, closed, span);
				sum += fabs(err);
				n++;
			}
		}
	ck_assert_msg(sum / n <= 0.01, "mean |error| %.3f%%", 100 * sum / n);
}
END_TEST

/* 1F1B's closed form against the simulation on uneven stages (why the
 * step simulates them: step.c f1b_simulated): 2,000 drawn pipelines, pp
 * 3-12, each stage 1-12 layers of f 1 b 2, m 1-4 pp, half of them with a
 * send of up to half a layer's forward on every boundary. The form is a
 * lower bound (each T_k a path through the schedule): never over; and
 * short on 578 of them (28.9%), 0.396% on average, 10.34% at worst
 * (docs/step-model.md, "Uneven 1F1B stages": 20,000 draws, 29.2%, 0.407%,
 * 10.61%). */
START_TEST(test_uneven_1f1b_closed_form_drawn)
{
	uint64_t seed = 11;
	int shortn = 0;
	double sum = 0, worst = 0;
	for (int it = 0; it < 2000; it++) {
		struct dc_step_stage st[12];
		uint64_t p = 3 + (uint64_t)(lcg_unit(&seed) * 10), m = 1 + (uint64_t)(lcg_unit(&seed) * 4 * (double)p);
		double c = lcg_unit(&seed) < 0.5 ? 0 : lcg_unit(&seed) * 0.5;
		struct dc_step_pipe pp = {p, m, 1, c, st};
		double end[12], span, closed, err;
		for (uint64_t s = 0; s < p; s++) {
			double layers = 1 + (double)(int)(lcg_unit(&seed) * 12);
			stage_eq(&st[s], layers, 2 * layers, 1);
		}
		ck_assert_int_eq(dc_step_pipeline_simulate(&pp, end, &span), 0);
		closed = dc_step_pipeline_closed(&pp, NULL);
		err = (closed - span) / span;
		ck_assert_msg(err < 1e-12, "draw %d: the form %.17g over the timeline %.17g", it, closed, span);
		sum += err;
		if (err < -1e-9)
			shortn++;
		if (err < worst)
			worst = err;
	}
	ck_assert_int_eq(shortn, 578);
	ck_assert_double_eq_tol(sum / 2000, -0.00396, 0.00001);
	ck_assert_double_eq_tol(worst, -0.1034, 0.0001);
}
END_TEST

/* 1F1B's sends in the steady phase (docs/step-model.md, "The sends in
 * 1F1B's steady phase"). p 2, m 5, every stage f 1 b 2, a send 1. On
 * paper, Megatron's order (stage 0 warms up with one forward):
 *   stage 0: F0 [0,1] F1 [1,2] B0 [6,8] F2 [8,9] B1 [9,11] F3 [11,12]
 *            B2 [14,16] F4 [16,17] B3 [17,19] B4 [22,24]
 *   stage 1: F0 [2,3] B0 [3,5] F1 [5,6] B1 [6,8] F2 [10,11] B2 [11,13]
 *            F3 [13,14] B3 [14,16] F4 [18,19] B4 [19,21]
 * Stage 1 idles [8,10] and [16,18] in the steady phase: F2 leaves stage
 * 0 after B0 came back down to it, 2c after stage 1 could have run it.
 * Span 24: (m + p - 1)(f + b) 18 + the fill's and drain's 2 (p - 1) c 2 +
 * two such waits, 2 x 2c; the path F0 F0' B0' B0 F2 F2' B2' B2 F4 F4'
 * B4' B4 (' on stage 1) never waits. Before this stop the closed form
 * had the first wait alone (22). In general, equal stages: every group of
 * p microbatches but the first adds 2 (p - 1) c less what the warm-up
 * hides, 2c (m - 1 - ceil((m - 1) / p)) in all: p 4, m 16, c 1 (f 1, b
 * 2): 19 x 3 + 6 + 22 = 85; p 8, m 32: 39 x 3 + 14 + 54 = 185. */
START_TEST(test_one_f_one_b_steady_sends)
{
	static const struct {
		uint64_t p, m;
		double span;
	} rows[] = {{2, 5, 24}, {4, 16, 85}, {8, 32, 185}};
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct dc_step_stage st[8];
		struct dc_step_pipe pp = {rows[i].p, rows[i].m, 1, 1.0, st, DC_PIPE_1F1B};
		double end[8], span;
		for (uint64_t s = 0; s < rows[i].p; s++)
			stage_eq(&st[s], 1.0, 2.0, 1);
		ck_assert_int_eq(dc_step_pipeline_simulate(&pp, end, &span), 0);
		ck_assert_double_eq_tol(span, rows[i].span, 1e-12);
		ck_assert_double_eq_tol(dc_step_pipeline_closed(&pp, NULL), rows[i].span, 1e-12);
	}
}
END_TEST

/* 1F1B against its simulation over drawn pipelines, sends up to twice a
 * stage's forward: equal stages, with a heavier or lighter stage 0 and
 * last stage (the embedding, the head), equal to 1e-9; every stage
 * drawn on its own (0.7 to 1.3 of a mean), never above (each of the
 * closed form's paths is one the schedule runs) and within 0.5% mean
 * (0.12% today, worst -4.6%; -41% and 8.4% mean before this stop's
 * steady-phase sends) */
START_TEST(test_one_f_one_b_closed_form_drawn)
{
	uint64_t seed = 11;
	double sum = 0;
	int n = 0;
	for (int kind = 0; kind < 3; kind++)
		for (int it = 0; it < 1000; it++) {
			struct dc_step_stage st[16];
			uint64_t p = 2 + (uint64_t)(lcg_unit(&seed) * 14), m = 1 + (uint64_t)(lcg_unit(&seed) * 40);
			double f = 0.5 + lcg_unit(&seed), b = f * (1.5 + lcg_unit(&seed)), c = 2.0 * f * lcg_unit(&seed);
			struct dc_step_pipe pp = {p, m, 1, c, st, DC_PIPE_1F1B};
			double end[16], span, closed, err;
			for (uint64_t s = 0; s < p; s++) {
				double r = kind == 2 ? 0.7 + 0.6 * lcg_unit(&seed) : 1.0;
				stage_eq(&st[s], f * r, b * r, 1);
			}
			if (kind == 1) {
				double e0 = (0.6 * lcg_unit(&seed) - 0.3) * f, e = 0.8 * f * lcg_unit(&seed);
				stage_eq(&st[0], f + e0, b + 2 * e0, 1);
				stage_eq(&st[p - 1], f + e, b + 2 * e, 1);
			}
			ck_assert_int_eq(dc_step_pipeline_simulate(&pp, end, &span), 0);
			closed = dc_step_pipeline_closed(&pp, NULL);
			err = closed / span - 1;
			if (kind < 2) {
				ck_assert_msg(fabs(err) <= 1e-9, "p %llu m %llu c %g: closed %.12g, simulated %.12g",
					      (unsigned long long)p, (unsigned long long)m, c, closed, span);
			} else {
				ck_assert_msg(err <= 1e-9, "p %llu m %llu: closed %.12g above simulated %.12g",
					      (unsigned long long)p, (unsigned long long)m, closed, span);
				sum += fabs(err);
				n++;
			}
		}
	ck_assert_msg(sum / n <= 0.005, "mean |error| %.3f%%", 100 * sum / n);
}
END_TEST

/* Interleaving with sends longer than a chunk's forward: pp 4, v 2, m
 * 16, every chunk f 1 b 2. Up to c = f the closed form is the timeline
 * (c 1: 119 = 16 x 6 + (3 x 6) / 2 + 2 x 3 x 1 + 2 x 4 x 1); at c 1.5 a
 * microbatch's backward hopping a stage a pair (b + c = 3.5 against the
 * f + b = 3 a stage runs meanwhile) outruns the stages and the steady
 * phase waits: simulated 132, the closed form 126. So the step simulates
 * such layouts (step.c inter_simulated; test_interleaved_slow_sends_step
 * checks the report against the timeline). */
START_TEST(test_interleaved_sends_past_a_chunk)
{
	struct dc_step_stage st[4];
	struct dc_step_pipe pp = {4, 16, 2, 1.0, st, DC_PIPE_INTERLEAVED};
	double end[4], span;
	for (int i = 0; i < 4; i++)
		stage_eq(&st[i], 2.0, 4.0, 2);
	ck_assert_int_eq(dc_step_pipeline_simulate(&pp, end, &span), 0);
	ck_assert_double_eq_tol(span, 119.0, 1e-9);
	ck_assert_double_eq_tol(dc_step_pipeline_closed(&pp, NULL), 119.0, 1e-9);
	pp.send_s = 1.5;
	ck_assert_int_eq(dc_step_pipeline_simulate(&pp, end, &span), 0);
	ck_assert_double_eq_tol(span, 132.0, 1e-9);
	ck_assert_double_eq_tol(dc_step_pipeline_closed(&pp, NULL), 126.0, 1e-9);
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

/* One chunk of a ZB-H1 or DualPipe stage: forward f, full backward b of
 * which w the weight gradients; a DualPipe pair takes fp + bp (0: as
 * alone). Two chunks (DualPipe, DualPipeV) alike. */
static void stage_w(struct dc_step_stage *s, double f, double b, double w, double fp, double bp, int chunks)
{
	stage_eq(s, chunks * f, chunks * b, (uint64_t)chunks);
	s->wgrad_s = chunks * w;
	s->wgrad_first_s = s->wgrad_last_s = w;
	s->fwd_pair_first_s = s->fwd_pair_last_s = fp;
	s->bwd_pair_first_s = s->bwd_pair_last_s = bp;
}

START_TEST(test_zero_bubble_h1_by_hand)
{
	/* ZB-H1 on p 2, m 3, f 1, b 2 = B 1 + W 1, no sends. Stage 0 (W's
	 * deferred by 0): F0 F1 B0 W0 F2 B1 W1 B2 W2; stage 1 (by 1):
	 * F0 B0 F1 B1 W0 F2 B2 W1 W2. On paper:
	 *   stage 1: F0 [1,2] B0 [2,3] F1 [3,4] B1 [4,5] W0 [5,6] F2 [6,7] B2 [7,8] W1 [8,9] W2 [9,10]
	 *   stage 0: F0 [0,1] F1 [1,2] B0 [3,4] W0 [4,5] F2 [5,6] B1 [6,7] W1 [7,8] B2 [8,9] W2 [9,10]
	 * a span of 10 against 1F1B's (m + p - 1)(f + b) = 12: the bubble
	 * (p - 1)(f + b - 2W) = 1 (Qi et al. 2024, the DualPipe README's
	 * ZB1P row), a third of 1F1B's (p - 1)(f + b) = 3 */
	struct dc_step_stage st[4];
	struct dc_step_pipe pp = {2, 3, 1, 0, st, DC_PIPE_ZERO_BUBBLE};
	double end[4], span;
	uint64_t crit = 9;
	stage_w(&st[0], 1.0, 2.0, 1.0, 0, 0, 1);
	stage_w(&st[1], 1.0, 2.0, 1.0, 0, 0, 1);
	ck_assert_int_eq(dc_step_pipeline_simulate(&pp, end, &span), 0);
	ck_assert_double_eq_tol(span, 10.0, 1e-12);
	ck_assert_double_eq_tol(end[0], 10.0, 1e-12);
	ck_assert_double_eq_tol(end[1], 10.0, 1e-12);
	ck_assert_double_eq_tol(dc_step_pipeline_closed(&pp, &crit), 10.0, 1e-12);
	pp.schedule = DC_PIPE_1F1B;
	ck_assert_double_eq_tol(dc_step_pipeline_closed(&pp, NULL), 12.0, 1e-12);
	/* p 4, m 8: m (f + b) + (p - 1)(f + b - 2W) = 24 + 3; with W 0.5,
	 * 24 + 3 x 2 = 30 (1F1B: 33) */
	pp = (struct dc_step_pipe){4, 8, 1, 0, st, DC_PIPE_ZERO_BUBBLE};
	for (int i = 0; i < 4; i++)
		stage_w(&st[i], 1.0, 2.0, 1.0, 0, 0, 1);
	ck_assert_int_eq(dc_step_pipeline_simulate(&pp, end, &span), 0);
	ck_assert_double_eq_tol(span, 27.0, 1e-12);
	ck_assert_double_eq_tol(dc_step_pipeline_closed(&pp, NULL), 27.0, 1e-12);
	for (int i = 0; i < 4; i++)
		stage_w(&st[i], 1.0, 2.0, 0.5, 0, 0, 1);
	ck_assert_int_eq(dc_step_pipeline_simulate(&pp, end, &span), 0);
	ck_assert_double_eq_tol(span, 30.0, 1e-12);
	ck_assert_double_eq_tol(dc_step_pipeline_closed(&pp, NULL), 30.0, 1e-12);
}
END_TEST

/* ZB-H1 with its last forward before its first backward (m = p - k):
 * p 2, m 2, f 1, b 2 = B 1.5 + W 0.5, a send 0.5. On paper:
 *   stage 0: F0 [0,1] F1 [1,2] B0 [4.5,6] W0 [6,6.5] B1 [7,8.5] W1 [8.5,9]
 *   stage 1: F0 [1.5,2.5] B0 [2.5,4] F1 [4,5] B1 [5,6.5] W0 [6.5,7] W1 [7,7.5]
 * span 9. Stage 0's F1 ends at 2, before it waits for B0's round trip;
 * the closed form counted that wait before F1 too and gave 10, over the
 * schedule (zb_stage_at's t_F; found over drawn pipelines, 5% over at
 * worst, none now) */
START_TEST(test_zero_bubble_h1_last_forward_before_the_wait)
{
	struct dc_step_stage st[2];
	struct dc_step_pipe pp = {2, 2, 1, 0.5, st, DC_PIPE_ZERO_BUBBLE};
	double end[2], span;
	stage_w(&st[0], 1.0, 2.0, 0.5, 0, 0, 1);
	stage_w(&st[1], 1.0, 2.0, 0.5, 0, 0, 1);
	ck_assert_int_eq(dc_step_pipeline_simulate(&pp, end, &span), 0);
	ck_assert_double_eq_tol(span, 9.0, 1e-12);
	ck_assert_double_eq_tol(dc_step_pipeline_closed(&pp, NULL), 9.0, 1e-12);
}
END_TEST

/* ZB-H1's closed form is the longest of four paths of the schedule, so
 * never above its simulation: 2,000 drawn pipelines of equal stages (pp
 * 2-13, m 1-40, W 0.2-0.6 of the backward, sends up to twice a forward) */
START_TEST(test_zero_bubble_h1_closed_form_below_timeline)
{
	uint64_t seed = 13;
	for (int it = 0; it < 2000; it++) {
		struct dc_step_stage st[16];
		uint64_t p = 2 + (uint64_t)(lcg_unit(&seed) * 12), m = 1 + (uint64_t)(lcg_unit(&seed) * 40);
		double f = 0.5 + lcg_unit(&seed), b = f * (1.5 + lcg_unit(&seed)), w = b * (0.2 + 0.4 * lcg_unit(&seed));
		struct dc_step_pipe pp = {p, m, 1, 2.0 * f * lcg_unit(&seed), st, DC_PIPE_ZERO_BUBBLE};
		double end[16], span, closed;
		for (uint64_t s = 0; s < p; s++)
			stage_w(&st[s], f, b, w, 0, 0, 1);
		ck_assert_int_eq(dc_step_pipeline_simulate(&pp, end, &span), 0);
		closed = dc_step_pipeline_closed(&pp, NULL);
		ck_assert_msg(closed <= span * (1 + 1e-12), "p %llu m %llu c %g: closed %.12g above simulated %.12g",
			      (unsigned long long)p, (unsigned long long)m, pp.send_s, closed, span);
	}
}
END_TEST

START_TEST(test_dualpipe_bubble_by_hand)
{
	/* DualPipe on p 4, m 8 (4 each way), every chunk f 1, b 2 of which W 1,
	 * a pair F&B 2.5 (forward 0.75 + backward 1.75 beside each other),
	 * no sends. Each rank runs 3 pairs (deepseek-ai/DualPipe step():
	 * rank 0 two in step 4's one iteration and one in step 5; rank 1, a
	 * middle rank, one in its first iteration, which runs F and B apart,
	 * two in its second), so it is busy 8 x 3 - 3 x 0.5 = 22.5; the
	 * README's bubble (PP/2 - 1)(F&B + B - 3W) = (2 - 1)(2.5 + 2 - 3) =
	 * 1.5 leaves a span of 24 on every rank */
	struct dc_step_stage st[4];
	struct dc_step_pipe pp = {4, 8, 1, 0, st, DC_PIPE_DUALPIPE};
	double end[4], span;
	for (int i = 0; i < 4; i++)
		stage_w(&st[i], 1.0, 2.0, 1.0, 0.75, 1.75, 2);
	ck_assert_int_eq(dc_step_pipeline_simulate(&pp, end, &span), 0);
	ck_assert_double_eq_tol(span, 22.5 + 1.5, 1e-12);
	for (int i = 0; i < 4; i++)
		ck_assert_double_eq_tol(end[i], 24.0, 1e-12);
	ck_assert_double_eq_tol(dc_step_pipeline_closed(&pp, NULL), 24.0, 1e-12);
	/* pairs that overlap nothing (F&B = f + b = 3): busy 24, bubble
	 * (2 - 1)(3 + 2 - 3) = 2 */
	for (int i = 0; i < 4; i++)
		stage_w(&st[i], 1.0, 2.0, 1.0, 0, 0, 2);
	ck_assert_int_eq(dc_step_pipeline_simulate(&pp, end, &span), 0);
	ck_assert_double_eq_tol(span, 26.0, 1e-12);
	/* W 0.5 < F: the formula, (2 - 1)(3 + 2 - 1.5) = 3.5, is an upper
	 * bound; the schedule idles 3 */
	for (int i = 0; i < 4; i++)
		stage_w(&st[i], 1.0, 2.0, 0.5, 0, 0, 2);
	ck_assert_int_eq(dc_step_pipeline_simulate(&pp, end, &span), 0);
	ck_assert_double_eq_tol(span, 24.0 + 3.0, 1e-12);
	for (int i = 0; i < 4; i++)
		stage_w(&st[i], 1.0, 2.0, 1.0, 0, 0, 2);
	/* DualPipeV on the same 4 ranks: 8 chunks (the README's PP = 8), each
	 * microbatch through both chunks of every rank, busy 8 x 2 x 3 = 48;
	 * bubble (8/2 - 1)(3 + 2 - 3) = 6 */
	pp.schedule = DC_PIPE_DUALPIPEV;
	ck_assert_int_eq(dc_step_pipeline_simulate(&pp, end, &span), 0);
	ck_assert_double_eq_tol(span, 54.0, 1e-12);
	for (int i = 0; i < 4; i++)
		ck_assert_double_eq_tol(end[i], 54.0, 1e-12);
}
END_TEST

/* DualPipe's two copies of every stage (rank s and its mirror pp - 1 - s
 * hold stages s and pp - 1 - s) sum their gradients before the optimizer
 * (deepseek-ai/DualPipe examples/example_dualpipe.py). On
 * configs/mixtral-8x7b-ep.json (ZeRO-1 over dp 4, ep 4 = dp: the experts
 * have no data-parallel replica, pp 4 over 4 nodes of 8): each 25 MiB
 * gradient bucket (26,214,400 B) is reduce-scattered over the 4 dp ranks,
 * and its shard, 26,214,400 / 4 = 6,553,600 B, all-reduced over the
 * mirror pair, ranks 0 and 3 x (tp 2 x dp 4) = 24 of the pipeline, on
 * two nodes (inter_node), once a step as many times as the buckets; the expert
 * gradients, unsharded, go whole, 26,214,400 B a call. With the buckets
 * not overlapped (overlap.dp false) the step waits after its last
 * backward for every backward row of the data-parallel strategy, the
 * mirror's included, then for the updated parameters' AllGather: the
 * class that ends last, stage 0's (the last backward of either schedule
 * ends on it), exposes its rank's whole data-parallel comm time (the
 * network model's), which under 1F1B lacks the mirror rows. Its rank's own
 * rows: under 1F1B the comm result analyses stage 3, which holds the
 * head's final norm, 4,096 parameters more than stage 0's embedding
 * (test_each_rank_syncs_its_own_gradients); under DualPipe ranks 0 and 3
 * hold the same two stages and rank 0 is the one analysed. */
START_TEST(test_dualpipe_sums_gradients_with_the_mirror)
{
	static const char *const sched[] = {"parallel.pipeline_schedule=1f1b", "parallel.pipeline_schedule=dualpipe"};
	for (int i = 0; i < 2; i++) {
		const char *sets[] = {"cluster.gpu=a100-sxm4-80gb", sched[i], "overlap.dp=false", NULL};
		const struct dc_comm_strategy *s;
		uint64_t rs = 0, mirror = 0, emirror = 0;
		double bwd = 0, ex = 0;
		run_config("mixtral-8x7b-ep.json", sets);
		s = &run_res.comm.s[DC_STRAT_DP];
		for (uint64_t j = 0; j < s->ncoll; j++) {
			const struct dc_coll *c = &s->coll[j];
			if (c->phase == DC_CPHASE_BACKWARD)
				bwd += c->time_s;
			if (c->what == DC_CW_GRAD_BUCKET && c->msg_bytes == 26214400ull)
				rs = c->count;
			if (c->what == DC_CW_MIRROR_GRAD_BUCKET || c->what == DC_CW_MIRROR_EXPERT_GRAD_BUCKET) {
				ck_assert_uint_eq(c->group_size, 2);
				ck_assert_int_eq(c->link, DC_LINK_INTER);
				ck_assert_int_eq(c->kind, DC_COLL_ALL_REDUCE);
			}
			if (c->what == DC_CW_MIRROR_GRAD_BUCKET && c->msg_bytes == 6553600ull)
				mirror = c->count;
			if (c->what == DC_CW_MIRROR_EXPERT_GRAD_BUCKET && c->msg_bytes == 26214400ull)
				emirror = c->count;
		}
		ck_assert_uint_gt(rs, 0);
		ck_assert_uint_eq(mirror, i == 0 ? 0 : rs);
		if (i == 0)
			ck_assert_uint_eq(emirror, 0);
		else
			ck_assert_uint_gt(emirror, 0);
		for (uint64_t c = 0; c < run_res.step.nclasses; c++)
			if (run_res.step.classes[c].exposed_s[DC_STRAT_DP] > ex)
				ex = run_res.step.classes[c].exposed_s[DC_STRAT_DP];
		/* ... and, after the optimizer, ZeRO-1's AllGather of the
		 * updated parameters: the whole strategy */
		ck_assert_double_gt(s->time_s, bwd);
		ck_assert_uint_eq(run_res.comm.stage, i == 0 ? 3 : 0);
		{
			struct dc_stage_params r;
			struct dc_comm_strategy own;
			const char *err = NULL;
			ck_assert_int_eq(dc_memory_rank_params(&run_plan, 0, &r), 0);
			ck_assert_int_eq(dc_comm_sync_rows(&run_plan, &run_res.comm, DC_STRAT_DP, 0, &r, &own, &err), 0);
			/* 1F1B: stage 0 holds no final norm, 4,096 gradients
			 * fewer than stage 3, in its last bucket */
			ck_assert_uint_eq(run_res.comm.dp_params - r.total, i == 0 ? 4096 : 0);
			ck_assert_double_eq_tol(ex, own.time_s, 1e-12 * own.time_s);
			if (i == 0)
				ck_assert_double_lt(own.time_s, s->time_s);
			else
				ck_assert_double_eq(own.time_s, s->time_s);
		}
	}
}
END_TEST

/* The trace's data-parallel buckets per stage (the first two): overlapped,
 * one event each; not overlapped, one span of them all */
struct bucket_count {
	uint64_t buckets[2];
	double unlapped_s[2];
};

static int count_buckets(void *ctx, const struct dc_step_event *e)
{
	struct bucket_count *x = ctx;
	if (e->stage > 1 || e->kind != DC_EV_SPAN || e->track != DC_TRACK_DP)
		return 0;
	x->buckets[e->stage] += strncmp(e->name, "dp bucket ", 10) == 0;
	if (strcmp(e->name, "dp gradient buckets (not overlapped)") == 0)
		x->unlapped_s[e->stage] += e->duration_s;
	return 0;
}

/* Each rank's own gradients (docs/step-model.md, "Each rank's own
 * gradients"): the step syncs each rank's gradient buckets, not the
 * analysed rank's for all. configs/systems.json (the Llama-2-7B shape)
 * at tp 2, dp 2, pp 2 with stages of 8 and 24 layers, DDP (sharding
 * none), buckets not overlapped. By hand, per tp rank: a layer
 * 4 h^2 / 2 + 3 h f / 2 + 2 h = 33,554,432 + 67,633,152 + 8,192 =
 * 101,195,776 parameters (h 4096, f 11008), the vocabulary-parallel
 * embedding 32,000 x 4,096 / 2 = 65,536,000, the untied head as much and
 * the final norm 4,096:
 *   stage 0: 8 x 101,195,776 + 65,536,000 = 875,102,208 parameters,
 *            1,750,204,416 B of BF16 gradients = 66 buckets of 25 MiB
 *            (26,214,400 B) and one of 20,054,016 B;
 *   stage 1: 24 x 101,195,776 + 65,536,000 + 4,096 = 2,494,238,720,
 *            4,988,477,440 B = 190 buckets and one of 7,741,440 B: the
 *            rank the comm result analyses (the most parameters).
 * An AllReduce over 2 ranks sends M a rank, so stage 0's rank sends its
 * whole gradient, 1,750,204,416 B. The rows of the analysed stage are
 * the comm result's, row for row. Under 1F1B stage 0's last backward ends
 * the schedule, so with nothing overlapped its class exposes its own
 * buckets' time whole and the step is the span, those buckets and the
 * optimizer step; with stage 1's buckets (the one set of rows before) it
 * was 2.8 times as long a tail. */
START_TEST(test_each_rank_syncs_its_own_gradients)
{
	const char *sets[] = {"parallel.tp=2", "parallel.dp=2", "parallel.pp=2", "parallel.pipeline_layers=[8,24]",
			      "overlap.dp=false", NULL};
	const struct dc_comm_strategy *an;
	struct dc_comm_strategy own[2];
	struct dc_stage_params r[2];
	const struct dc_step *st;
	const char *err = NULL;
	double opt = 0;
	run_config("systems.json", sets);
	an = &run_res.comm.s[DC_STRAT_DP];
	st = &run_res.step;
	for (uint64_t k = 0; k < 2; k++) {
		ck_assert_int_eq(dc_memory_rank_params(&run_plan, k, &r[k]), 0);
		ck_assert_int_eq(dc_comm_sync_rows(&run_plan, &run_res.comm, DC_STRAT_DP, k, &r[k], &own[k], &err), 0);
		ck_assert_uint_eq(own[k].ncoll, 2);
		for (uint64_t j = 0; j < 2; j++) {
			ck_assert_int_eq(own[k].coll[j].kind, DC_COLL_ALL_REDUCE);
			ck_assert_int_eq(own[k].coll[j].what, DC_CW_GRAD_BUCKET);
			ck_assert_uint_eq(own[k].coll[j].group_size, 2);
		}
	}
	ck_assert_uint_eq(r[0].total, 875102208ull);
	ck_assert_uint_eq(r[1].total, 2494238720ull);
	ck_assert_uint_eq(own[0].coll[0].count, 66);
	ck_assert_uint_eq(own[0].coll[0].msg_bytes, 26214400ull);
	ck_assert_uint_eq(own[0].coll[1].count, 1);
	ck_assert_uint_eq(own[0].coll[1].msg_bytes, 20054016ull);
	ck_assert_uint_eq(own[0].bytes_per_rank, 1750204416ull);
	ck_assert_uint_eq(own[1].coll[0].count, 190);
	ck_assert_uint_eq(own[1].coll[1].msg_bytes, 7741440ull);
	/* the analysed stage's rows are the comm result's, bit for bit */
	ck_assert_uint_eq(run_res.comm.stage, 1);
	ck_assert_uint_eq(an->ncoll, own[1].ncoll);
	for (uint64_t j = 0; j < an->ncoll; j++) {
		ck_assert_uint_eq(an->coll[j].count, own[1].coll[j].count);
		ck_assert_uint_eq(an->coll[j].msg_bytes, own[1].coll[j].msg_bytes);
		ck_assert_double_eq(an->coll[j].time_s, own[1].coll[j].time_s);
	}
	ck_assert_double_eq(an->time_s, own[1].time_s);
	ck_assert_double_gt(own[1].time_s, 2.5 * own[0].time_s);
	/* the step: stage 0's class exposes its own buckets whole */
	ck_assert_uint_eq(st->nclasses, 2);
	ck_assert_double_eq_tol(st->classes[0].exposed_s[DC_STRAT_DP], own[0].time_s, 1e-12 * own[0].time_s);
	for (uint64_t c = 0; c < st->nclasses; c++)
		if (st->classes[c].optimizer_s > opt)
			opt = st->classes[c].optimizer_s;
	ck_assert_double_eq_tol(st->time_s, st->pipeline_s + own[0].time_s + opt, 1e-12 * st->time_s);
	/* the trace: each stage's own buckets, 66 + 1 on stage 0 and
	 * 190 + 1 on stage 1, and stage 0's not-overlapped buckets one span
	 * of its own rows' time */
	{
		struct bucket_count bc;
		struct dc_step_show show = {.microbatches = 2, .max_chunks = 1u << 20};
		struct dc_step tr;
		const char *terr = NULL;
		memset(&bc, 0, sizeof(bc));
		ck_assert_int_eq(dc_step_trace(&run_plan, &run_res.compute, &run_res.comm, &run_res.flops,
					       &run_res.batch, &tr, &show, NULL, count_buckets, &bc, &terr),
				 0);
		ck_assert_double_eq_tol(bc.unlapped_s[0], own[0].time_s, 1e-12 * own[0].time_s);
		ck_assert_double_eq_tol(bc.unlapped_s[1], own[1].time_s, 1e-12 * own[1].time_s);
	}
	{
		/* overlapped, each bucket its own event */
		const char *ov[] = {"parallel.tp=2", "parallel.dp=2", "parallel.pp=2", "parallel.pipeline_layers=[8,24]",
				    NULL};
		struct bucket_count bc;
		struct dc_step_show show = {.microbatches = 2, .max_chunks = 1u << 20};
		struct dc_step tr;
		const char *terr = NULL;
		run_config("systems.json", ov);
		memset(&bc, 0, sizeof(bc));
		ck_assert_int_eq(dc_step_trace(&run_plan, &run_res.compute, &run_res.comm, &run_res.flops,
					       &run_res.batch, &tr, &show, NULL, count_buckets, &bc, &terr),
				 0);
		ck_assert_uint_eq(bc.buckets[0], 67);
		ck_assert_uint_eq(bc.buckets[1], 191);
	}
}
END_TEST

/* A step of several pipeline schedules (parallel.pipeline_schedule_
 * microbatches; docs/step-model.md, "Several schedules a step"): the
 * layout above (tp 2, dp 2, pp 2, stages of 8 and 24 layers, DDP not
 * overlapped) at m = 8 cut into F = 4 schedules of 2 microbatches. Each
 * schedule runs as the step of 2 microbatches does on its own (the same
 * ops, fill, drain and stage 0's exposed AllReduce buckets, 66 of 25 MiB
 * and one of 20,054,016 B), one after another, and the optimizer steps
 * once after the last: time(m 8, F 4) = 4 (time(m 2) - opt) + opt. The
 * buckets run 4 times: 264 and 4 calls a step. The tokens are the m 8
 * step's, four times the m 2 step's, so tokens/s is 4 x tokens over
 * that time. */
START_TEST(test_schedules_a_step)
{
	const char *one[] = {"parallel.tp=2", "parallel.dp=2", "parallel.pp=2", "parallel.pipeline_layers=[8,24]",
			     "overlap.dp=false", "training.grad_accum_steps=2", NULL};
	const char *four[] = {"parallel.tp=2", "parallel.dp=2", "parallel.pp=2", "parallel.pipeline_layers=[8,24]",
			      "overlap.dp=false", "training.grad_accum_steps=8",
			      "parallel.pipeline_schedule_microbatches=2", NULL};
	const struct dc_comm_strategy *dp;
	double t1, tok1, opt = 0, span1, exposed1;
	run_config("systems.json", one);
	t1 = run_res.step.time_s;
	tok1 = run_res.step.tokens_per_s;
	span1 = run_res.step.pipeline_s;
	ck_assert_uint_eq(run_res.step.schedules, 1);
	for (uint64_t c = 0; c < run_res.step.nclasses; c++)
		if (run_res.step.classes[c].optimizer_s > opt)
			opt = run_res.step.classes[c].optimizer_s;
	exposed1 = run_res.step.classes[0].exposed_s[DC_STRAT_DP];
	ck_assert_double_gt(opt, 0);
	run_config("systems.json", four);
	ck_assert_uint_eq(run_res.step.schedules, 4);
	ck_assert_uint_eq(run_res.step.schedule_m, 2);
	ck_assert_double_eq_tol(run_res.step.pipeline_s, span1, 1e-12 * span1);
	ck_assert_double_eq_tol(run_res.step.time_s, 4.0 * (t1 - opt) + opt, 1e-12 * t1);
	ck_assert_double_eq_tol(run_res.step.tokens_per_s, tok1 * 4.0 * t1 / (4.0 * (t1 - opt) + opt), 1e-9 * tok1);
	/* stage 0's buckets: each schedule's, exposed whole */
	ck_assert_double_eq_tol(run_res.step.classes[0].exposed_s[DC_STRAT_DP], 4.0 * exposed1, 1e-12 * exposed1);
	/* the analysed stage (1) holds 2,494,238,720 parameters: 190 buckets
	 * of 25 MiB and one of 7,741,440 B a schedule */
	dp = &run_res.comm.s[DC_STRAT_DP];
	ck_assert_uint_eq(dp->ncoll, 2);
	ck_assert_uint_eq(dp->coll[0].count, 4 * 190);
	ck_assert_uint_eq(dp->coll[1].count, 4);
	ck_assert_uint_eq(dp->coll[1].msg_bytes, 7741440ull);
	/* the path: the first schedule's rows, then the other three */
	{
		const struct dc_step_path *last = NULL;
		for (uint64_t i = 0; i < run_res.step.npath; i++)
			if (strstr(run_res.step.path[i].what, "other pipeline schedules"))
				last = &run_res.step.path[i];
		ck_assert_ptr_nonnull(last);
		ck_assert_double_eq_tol(last->duration_s, 3.0 * (t1 - opt), 1e-12 * t1);
	}
}
END_TEST

/* One schedule's 1F1B holds min(pp - s, m') microbatches in flight,
 * m' its own: at m' 1 on two stages stage 0 holds one, where the step's
 * m 8 in one schedule holds two (Megatron-LM 2021 section 2.2.1) */
START_TEST(test_schedules_hold_their_own_microbatches)
{
	const char *sets[] = {"parallel.tp=2", "parallel.dp=2", "parallel.pp=2", "training.grad_accum_steps=8",
			      "parallel.pipeline_schedule_microbatches=1", NULL};
	static struct dc_memory_result mem;
	struct dc_mem_ledger led;
	const char *err = NULL;
	ck_assert_uint_eq(dc_pipeline_in_flight(2, 0, 8), 2);
	run_config("systems.json", sets);
	ck_assert_uint_eq(dc_layout_schedule_m(&run_plan.layout), 1);
	ck_assert_uint_eq(dc_layout_schedules(&run_plan.layout), 8);
	ck_assert_int_eq(dc_memory_compute(&run_plan, &mem, &err), 0);
	ck_assert_int_eq(dc_memory_class_at(&run_plan, &mem, 0, &led), 0);
	ck_assert_uint_eq(led.stage_first, 0);
	ck_assert_uint_eq(led.in_flight, 1);
}
END_TEST

/* After the sync each rank steps its optimizer and gathers its own
 * updated parameters; the step ends with the rank whose two end last.
 * The layout above under ZeRO-1 (reduce-scatter over dp 2, then each
 * rank's AllGather of its BF16 parameters, 25 MiB at a time), nothing
 * overlapped: stage 0, whose last backward ends the schedule, syncs its
 * own reduce-scatters (its gradient, 1,750,204,416 B, in 66 buckets and
 * one of 20,054,016 B, M/2 a call sent), then stage 1, holding 2.85 times
 * the parameters, steps and gathers the longest: the step is the span,
 * stage 0's reduce-scatters, stage 1's optimizer and stage 1's AllGather
 * (2,494,238,720 x 2 B in 25 MiB buckets: 190 and one of 7,741,440 B). */
START_TEST(test_each_rank_gathers_its_own_parameters)
{
	const char *sets[] = {"parallel.tp=2", "parallel.dp=2", "parallel.pp=2", "parallel.pipeline_layers=[8,24]",
			      "parallel.sharding=zero1", "overlap.dp=false", NULL};
	struct dc_comm_strategy own[2];
	struct dc_stage_params r[2];
	const struct dc_step *st = &run_res.step;
	const char *err = NULL;
	double rs0 = 0, ag1 = 0, ag0 = 0;
	uint64_t rs0_calls = 0, ag1_calls = 0;
	run_config("systems.json", sets);
	for (uint64_t k = 0; k < 2; k++) {
		ck_assert_int_eq(dc_memory_rank_params(&run_plan, k, &r[k]), 0);
		ck_assert_int_eq(dc_comm_sync_rows(&run_plan, &run_res.comm, DC_STRAT_DP, k, &r[k], &own[k], &err), 0);
	}
	for (uint64_t j = 0; j < own[0].ncoll; j++) {
		const struct dc_coll *c = &own[0].coll[j];
		if (c->kind == DC_COLL_REDUCE_SCATTER) {
			rs0 += c->time_s;
			rs0_calls += c->count;
		} else {
			ag0 += c->time_s;
		}
	}
	for (uint64_t j = 0; j < own[1].ncoll; j++) {
		const struct dc_coll *c = &own[1].coll[j];
		if (c->kind == DC_COLL_ALL_GATHER) {
			ag1 += c->time_s;
			ag1_calls += c->count;
			ck_assert_uint_eq(c->msg_bytes, c->count == 1 ? 7741440ull : 26214400ull);
		}
	}
	ck_assert_uint_eq(rs0_calls, 67);
	ck_assert_uint_eq(ag1_calls, 191);
	ck_assert_uint_eq(own[0].bytes_per_rank, 1750204416ull); /* M/2 of each reduce-scatter, M/2 of each gather */
	ck_assert_double_gt(st->classes[1].optimizer_s + ag1, st->classes[0].optimizer_s + ag0);
	ck_assert_double_eq_tol(st->time_s, st->pipeline_s + rs0 + st->classes[1].optimizer_s + ag1,
				1e-12 * st->time_s);
	/* the critical path's last two rows: stage 1's */
	ck_assert_uint_ge(st->npath, 2);
	ck_assert_str_eq(st->path[st->npath - 1].what, "updated parameters all_gather (ZeRO)");
	ck_assert_uint_eq(st->path[st->npath - 1].stage, 1);
	ck_assert_double_eq_tol(st->path[st->npath - 1].duration_s, ag1, 1e-12 * ag1);
	ck_assert_uint_eq(st->path[st->npath - 2].stage, 1);
}
END_TEST

static void step_with(const char *name, const char *const *sets, struct dc_step_memo *memo, struct dc_step *out);

/* DualPipe on uneven stages: rank s runs stage s and stage pp - 1 - s,
 * each for m / 2 microbatches, so its kernels are its two stages' layers
 * (and the embedding and head on ranks 0 and pp - 1). korthikanti-175b
 * (96 layers, pp 8, no compute slowdown): with 12 layers a stage a
 * middle rank runs 24 layers, l = its compute / 24 each; with
 * pipeline_layers [13, 12, 12, 12, 12, 12, 11, 12] rank 0 holds 13 + 12
 * layers, one more, and rank 1 12 + 11, one fewer: 23 l, and rank 0's
 * compute grows by l; ranks 2-5 hold 12 + 12, 24 l, and are a class of
 * their own: the rank classes follow the pairs of stages. */
START_TEST(test_dualpipe_uneven_stages_compute)
{
	static const char *const even[] = {"parallel.pipeline_schedule=dualpipe", "parallel.virtual_pipeline=1",
					   "overlap.compute_slowdown=0", NULL};
	static const char *const uneven[] = {"parallel.pipeline_schedule=dualpipe", "parallel.virtual_pipeline=1",
					     "overlap.compute_slowdown=0",
					     "parallel.pipeline_layers=[13,12,12,12,12,12,11,12]", NULL};
	static struct dc_step e, u;
	double e0 = 0, e1 = 0, u0 = 0, u1 = 0, u2 = 0, l;
	step_with("korthikanti-175b.json", even, NULL, &e);
	step_with("korthikanti-175b.json", uneven, NULL, &u);
	for (uint64_t i = 0; i < e.nclasses; i++) {
		if (e.classes[i].stage_first == 0)
			e0 = e.classes[i].compute_s;
		if (e.classes[i].stage_first <= 1 && 1 <= e.classes[i].stage_last)
			e1 = e.classes[i].compute_s;
	}
	for (uint64_t i = 0; i < u.nclasses; i++) {
		if (u.classes[i].stage_first == 0)
			u0 = u.classes[i].compute_s;
		if (u.classes[i].stage_first == 1) {
			ck_assert_uint_eq(u.classes[i].stage_last, 1);
			u1 = u.classes[i].compute_s;
		}
		if (u.classes[i].stage_first == 2) {
			ck_assert_uint_eq(u.classes[i].stage_last, 5);
			u2 = u.classes[i].compute_s;
		}
	}
	ck_assert(e0 > 0 && e1 > 0);
	l = e1 / 24.0;
	ck_assert_double_eq_tol(u1, 23.0 * l, 1e-9 * e1);
	ck_assert_double_eq_tol(u0, e0 + l, 1e-9 * e1);
	/* ranks 2-5 hold 12 + 12 layers, as every middle rank of the equal
	 * split: a class of their own (rank 1's pair differs from theirs) */
	ck_assert_double_eq_tol(u2, 24.0 * l, 1e-9 * e1);
}
END_TEST

/* precision.bf16_first_layers / bf16_last_layers (Megatron-Core's
 * first_last_layers_bf16: the layer runs outside the FP8 context,
 * megatron/core/fp8_utils.py:711-727 at d98e8a64). A BF16 layer under
 * compute fp8 is the layer of the same run under compute bf16, bit for
 * bit (its linears at the BF16 level with no casts, its norm writing
 * BF16, its attention at the BF16 level). On korthikanti-175b at 1F1B
 * (96 layers on pp 8, 12 a stage; custom rules, no compute slowdown) on
 * H100s under FP8 current scaling, the first layer in BF16 adds to stage
 * 0's kernels, over m microbatches, that layer's forward, backward and
 * recompute difference once each, d = m (dF + dB + dR), and nothing to
 * any other stage; the last layer adds the same to stage 7's alone. */
static void bf16_class_compute(const struct dc_step *st, double *first, double *mid, double *last)
{
	*first = *mid = *last = -1;
	for (uint64_t i = 0; i < st->nclasses; i++) {
		const struct dc_step_class *c = &st->classes[i];
		if (c->stage_first == 0)
			*first = c->compute_s;
		else if (c->stage_last == 7)
			*last = c->compute_s;
		else
			*mid = c->compute_s;
	}
}

START_TEST(test_bf16_first_last_layers)
{
#define BF16_BASE "cluster.gpu=h100-sxm5-80gb", "training.framework=custom", "overlap.compute_slowdown=0", \
		  "parallel.virtual_pipeline=1"
	static const char *const fp8[] = {BF16_BASE, "precision.compute=fp8", "precision.fp8_recipe=current", NULL};
	static const char *const first[] = {BF16_BASE, "precision.compute=fp8", "precision.fp8_recipe=current",
					    "precision.bf16_first_layers=1", NULL};
	static const char *const last[] = {BF16_BASE, "precision.compute=fp8", "precision.fp8_recipe=current",
					   "precision.bf16_last_layers=1", NULL};
	static const char *const bf16[] = {BF16_BASE, "precision.compute=bf16", NULL};
#undef BF16_BASE
	static struct dc_step a, f, l;
	struct dc_work_time w8, w16, b16;
	double a0, a1, a7, f0, f1, f7, l0, l1, l7, m, d;
	step_with("korthikanti-175b.json", bf16, NULL, &a);
	b16 = run_res.compute.dense_layer;
	step_with("korthikanti-175b.json", fp8, NULL, &a);
	ck_assert_int_eq(run_res.compute.bf16_layers, 0);
	w8 = run_res.compute.dense_layer;
	step_with("korthikanti-175b.json", first, NULL, &f);
	ck_assert_int_eq(run_res.compute.bf16_layers, 1);
	w16 = run_res.compute.dense_layer_bf16;
	ck_assert(memcmp(&w16, &b16, sizeof(w16)) == 0);
	ck_assert(memcmp(&run_res.compute.dense_layer, &w8, sizeof(w8)) == 0);
	/* BF16 is the slower of the two here: the FP8 GEMMs' gain is larger
	 * than their casts */
	ck_assert(w16.fwd_s > w8.fwd_s && w16.bwd_s > w8.bwd_s);
	m = (double)run_plan.layout.grad_accum_steps;
	d = m * ((w16.fwd_s - w8.fwd_s) + (w16.bwd_s - w8.bwd_s) + (w16.recompute_s - w8.recompute_s));
	step_with("korthikanti-175b.json", last, NULL, &l);
	bf16_class_compute(&a, &a0, &a1, &a7);
	bf16_class_compute(&f, &f0, &f1, &f7);
	bf16_class_compute(&l, &l0, &l1, &l7);
	ck_assert(a0 > 0 && a1 > 0 && a7 > 0);
	ck_assert_double_eq_tol(f0, a0 + d, 1e-9 * a0);
	ck_assert_double_eq_tol(f1, a1, 1e-12 * a1);
	ck_assert_double_eq_tol(f7, a7, 1e-12 * a7);
	ck_assert_double_eq_tol(l0, a0, 1e-12 * a0);
	ck_assert_double_eq_tol(l1, a1, 1e-12 * a1);
	ck_assert_double_eq_tol(l7, a7 + d, 1e-9 * a7);
	ck_assert(f.time_s > a.time_s);
	/* a MoE layer in BF16 is the BF16 run's MoE layer too (Mixtral, EP:
	 * configs/mixtral-8x7b-ep.json, the last layer in BF16) */
	{
		static const char *const moe16[] = {"cluster.gpu=h100-sxm5-80gb", "precision.compute=bf16", NULL};
		static const char *const moe8[] = {"cluster.gpu=h100-sxm5-80gb", "precision.compute=fp8",
						   "precision.fp8_recipe=current", "precision.bf16_last_layers=1", NULL};
		struct dc_work_time m16;
		run_config("mixtral-8x7b-ep.json", moe16);
		m16 = run_res.compute.moe_layer;
		run_config("mixtral-8x7b-ep.json", moe8);
		ck_assert(memcmp(&run_res.compute.moe_layer_bf16, &m16, sizeof(m16)) == 0);
		ck_assert(run_res.compute.moe_layer_bf16.fwd_s > run_res.compute.moe_layer.fwd_s);
	}
	/* interleaved, v 3 (4 layers a chunk): stage 0's chunk 0 holds the
	 * first layer, stage 7's chunk 2 the last; the same differences */
	{
		static const char *const fp8v[] = {"cluster.gpu=h100-sxm5-80gb", "training.framework=custom",
						   "overlap.compute_slowdown=0", "parallel.virtual_pipeline=3",
						   "precision.compute=fp8", "precision.fp8_recipe=current", NULL};
		static const char *const bothv[] = {"cluster.gpu=h100-sxm5-80gb", "training.framework=custom",
						    "overlap.compute_slowdown=0", "parallel.virtual_pipeline=3",
						    "precision.compute=fp8", "precision.fp8_recipe=current",
						    "precision.bf16_first_layers=1", "precision.bf16_last_layers=1", NULL};
		step_with("korthikanti-175b.json", fp8v, NULL, &a);
		step_with("korthikanti-175b.json", bothv, NULL, &f);
		bf16_class_compute(&a, &a0, &a1, &a7);
		bf16_class_compute(&f, &f0, &f1, &f7);
		ck_assert_double_eq_tol(f0, a0 + d, 1e-9 * a0);
		ck_assert_double_eq_tol(f1, a1, 1e-12 * a1);
		ck_assert_double_eq_tol(f7, a7 + d, 1e-9 * a7);
	}
}
END_TEST

/* The step prices one layer's collectives for one microbatch from the
 * comm result's rows over the layer-microbatches they count: a DualPipe
 * rank's two stages, each run by m / 2 microbatches (deepseek-ai/DualPipe
 * step()). By hand on configs/mixtral-8x7b-ep.json (pp 4, tp 2 without
 * sequence parallelism) under full recompute of 1 layer of each stage's 8
 * (training.recompute_layers): forward, 2 AllReduces of t each, 2t;
 * backward, the 2 input-gradient AllReduces and the recomputed forward's
 * 2 on 1 layer in 8, 2t + 2t / 8 = 2.25t: 1.125 times the forward under
 * 1F1B and DualPipe alike. Before, DualPipe's rows counted both stages for
 * all 16 microbatches except the recomputed ones (1 layer of each of its
 * 2 stages for 8, as now), so the step spread them over twice the
 * layer-microbatches: 2t + 2t / 16, 1.0625 times the forward. */
START_TEST(test_dualpipe_tp_layer_per_chunk_microbatch)
{
	static const char *const sched[] = {"parallel.pipeline_schedule=1f1b", "parallel.pipeline_schedule=dualpipe"};
	for (int i = 0; i < 2; i++) {
		const char *sets[] = {"cluster.gpu=a100-sxm4-80gb", sched[i], "training.recompute=full",
				      "training.recompute_layers=1", NULL};
		const struct dc_comm_strategy *s;
		struct dc_step_tp_layer tp;
		double t = 0;
		run_config("mixtral-8x7b-ep.json", sets);
		s = &run_res.comm.s[DC_STRAT_TP];
		for (uint64_t j = 0; j < s->ncoll; j++)
			if (s->coll[j].what == DC_CW_TP_OUTPUT_FG)
				t = s->coll[j].time_s / (double)s->coll[j].count;
		ck_assert(t > 0);
		dc_step_tp_layer(&run_plan, &run_res.comm, &tp);
		ck_assert_double_eq_tol(tp.fwd_s, 2.0 * t, 1e-12 * t);
		ck_assert_double_eq_tol(tp.bwd_s, 2.25 * t, 1e-12 * t);
	}
}
END_TEST

/* A MoE layer without a shared expert takes only its attention's TP pair
 * under sequence parallelism (src/axis/tp.c), a dense layer both. On
 * configs/mixtral-8x7b-ep.json with sequence parallelism, t_g and t_r
 * one AllGather's and one ReduceScatter's time (each layer's calls carry
 * the same b s h):
 *   as shipped (every layer MoE): forward t_g + t_r, backward the output
 *   gradients' gather, the input gradients' reduce-scatter and the
 *   re-gather, 2 t_g + t_r (before: twice each);
 *   pp 1, dp 16, the first 8 of 32 layers dense: the analysed rank holds
 *   8 dense and 24 MoE layers, (8 x 2 + 24) x 16 = 640 calls of each; a
 *   dense layer takes 2 (t_g + t_r) forward, 2 (2 t_g + t_r) backward;
 *   pp 4 with the first 2 layers dense: the analysed (last) stage holds
 *   MoE layers only, and the first stage's dense layers take the same
 *   2 (t_g + t_r) forward, priced per call. */
START_TEST(test_moe_layer_tp_pair_in_the_step)
{
	static const char *const runs[][4] = {
		{"parallel.sequence_parallel=true", NULL, NULL, NULL},
		{"parallel.sequence_parallel=true", "parallel.pp=1", "parallel.dp=16", "model.dense_layers=8"},
		{"parallel.sequence_parallel=true", "model.dense_layers=2", NULL, NULL},
	};
	for (int i = 0; i < 3; i++) {
		const char *sets[6] = {"cluster.gpu=a100-sxm4-80gb", runs[i][0], runs[i][1], runs[i][2], runs[i][3], NULL};
		const struct dc_comm_strategy *s;
		struct dc_step_tp_layer tp;
		double tg = 0, tr = 0, mult = i == 0 ? 1.0 : 2.0;
		run_config("mixtral-8x7b-ep.json", sets);
		s = &run_res.comm.s[DC_STRAT_TP];
		for (uint64_t j = 0; j < s->ncoll; j++) {
			if (s->coll[j].what == DC_CW_TP_SEQ_IN_G)
				tg = s->coll[j].time_s / (double)s->coll[j].count;
			if (s->coll[j].what == DC_CW_TP_OUTPUT_GBAR) {
				tr = s->coll[j].time_s / (double)s->coll[j].count;
				ck_assert_uint_eq(s->coll[j].count, i == 1 ? 640 : 128);
			}
		}
		ck_assert(tg > 0 && tr > 0);
		dc_step_tp_layer(&run_plan, &run_res.comm, &tp);
		if (i == 2) {
			/* the analysed stage holds MoE layers only: the MoE layer's */
			ck_assert_double_eq_tol(tp.fwd_s, tg + tr, 1e-12 * tg);
			continue;
		}
		ck_assert_double_eq_tol(tp.fwd_s, mult * (tg + tr), 1e-12 * tg);
		ck_assert_double_eq_tol(tp.bwd_s, mult * (2.0 * tg + tr), 1e-12 * tg);
	}
}
END_TEST

/* One AllGather's and one ReduceScatter's time of the last run's TP rows
 * (each layer's calls carry the same b s h, so every call of a kind takes
 * the same) */
static void tp_call_times(double *tg, double *tr)
{
	const struct dc_comm_strategy *s = &run_res.comm.s[DC_STRAT_TP];
	*tg = *tr = 0;
	for (uint64_t j = 0; j < s->ncoll; j++) {
		if (s->coll[j].what == DC_CW_TP_SEQ_IN_G)
			*tg = s->coll[j].time_s / (double)s->coll[j].count;
		if (s->coll[j].what == DC_CW_TP_OUTPUT_GBAR)
			*tr = s->coll[j].time_s / (double)s->coll[j].count;
	}
	ck_assert(*tg > 0 && *tr > 0);
}

/* dc_step_tp_layer_of(moe) is fwd, bwd and async, to 1e-12 of each */
static void tp_kind_eq(int moe, double fwd, double bwd, double async)
{
	struct dc_step_tp_layer t;
	dc_step_tp_layer_of(&run_plan, &run_res.comm, moe, &t);
	ck_assert_msg(fabs(t.fwd_s - fwd) <= 1e-12 * fwd, "kind %d fwd %.17g, by hand %.17g", moe, t.fwd_s, fwd);
	ck_assert_msg(fabs(t.bwd_s - bwd) <= 1e-12 * bwd, "kind %d bwd %.17g, by hand %.17g", moe, t.bwd_s, bwd);
	ck_assert_msg(fabs(t.bwd_async_s - async) <= 1e-12 * async, "kind %d async %.17g, by hand %.17g", moe,
		      t.bwd_async_s, async);
}

/* step.classes[i]'s exposed TP time is `want`, to 1e-12 */
static void class_tp_eq(uint64_t i, uint64_t first, uint64_t last, double want)
{
	const struct dc_step_class *c = &run_res.step.classes[i];
	ck_assert_uint_gt(run_res.step.nclasses, i);
	ck_assert_uint_eq(c->stage_first, first);
	ck_assert_uint_eq(c->stage_last, last);
	ck_assert_msg(fabs(c->exposed_s[DC_STRAT_TP] - want) <= 1e-12 * want, "class %llu: exposed tp %.17g, by hand %.17g",
		      (unsigned long long)i, c->exposed_s[DC_STRAT_TP], want);
}

/* The TP time of each kind of layer on every stage (docs/step-model.md,
 * "TP per layer kind"), worked by hand on configs/mixtral-8x7b-ep.json
 * with sequence parallelism (tp 2, m 16, 8 layers a stage at pp 4) and
 * the first layers dense. t_g, t_r: one AllGather's and one
 * ReduceScatter's time (the comm result's rows, per call). Per layer and
 * microbatch a dense layer sends 2 gathers and 2 reduce-scatters forward
 * and backward 2 output-gradient gathers, 2 input-gradient
 * reduce-scatters and 2 re-gathers; a MoE layer without a shared expert
 * one of each (src/axis/tp.c). So
 *   dense: forward 2 (t_g + t_r), backward 2 (2 t_g + t_r), of it
 *          asynchronous (input gradients, re-gathers) 2 (t_g + t_r);
 *   MoE:   forward t_g + t_r, backward 2 t_g + t_r, async t_g + t_r.
 * Under framework custom without overlap.tp the asynchronous ones hide
 * behind the backward's GEMMs (a Mixtral layer's are milliseconds, the
 * pair tens of microseconds: asserted), so a layer shows its forward and
 * its output-gradient gathers: a dense layer 2 (2 t_g + t_r), a MoE layer
 * 2 t_g + t_r = u, half.
 * (a) pp 1, dp 16, the first 8 of 32 layers dense: the analysed rank
 *     holds both kinds, each priced as above; the stage shows
 *     16 x (8 x 2u + 24 u) = 640 u.
 * (b) pp 4, the first 2 layers dense: stage 0 holds 2 dense and 6 MoE
 *     layers, the others 8 MoE; the analysed stage (the most parameters)
 *     is a MoE one, so a dense layer is priced per call, the same as in
 *     (a). Stage 0 shows 16 x (2 x 2u + 6u) = 160 u, stages 1-2 and 3
 *     16 x 8u = 128 u.
 * (c) (b) under DualPipe: ranks 0 and 3 hold stages 0 and 3 (2 dense,
 *     14 MoE), ranks 1 and 2 stages 1 and 2 (16 MoE), each stage run by
 *     m / 2 = 8 microbatches: 8 x (2 x 2u + 14u) = 144 u on the classes
 *     of stages 0 and 3, 8 x 16u = 128 u on 1-2.
 * (d) (b) with 2 chunks a rank (4 layers each) under full recompute of 1
 *     layer a chunk: the analysed MoE rank reruns 2 of its 8 layers, so
 *     a MoE layer's recomputed forward is 1/4 of its pair, t_g + t_r over
 *     4; a dense layer, which that rank lacks, takes the rank's share
 *     over all its layers (tp.c re_share), 1/4 of its 2 (t_g + t_r): 
 *     backward 2 (2 t_g + t_r) + (t_g + t_r) / 2 and 2 t_g + t_r +
 *     (t_g + t_r) / 4, all of the recomputed forward waited for. Stage 0
 *     shows 16 x (2 x (2u + (t_g + t_r) / 2) + 6 x (u + (t_g + t_r) / 4))
 *     = 16 x (10u + 5 (t_g + t_r) / 2), the others 16 x (8u + 2 (t_g +
 *     t_r)).
 * The model's ends (tp.c ends_calls) carry the same b s h: the
 * embedding's ReduceScatter forward and its gradient's AllGather
 * backward, t_g + t_r a microbatch on the embedding's stage; the head's
 * input AllGather forward, t_g, and the loss's three AllReduces, 3 t_l,
 * on the head's; the head's input-gradient ReduceScatter and its input's
 * re-gather hide behind its GEMMs (milliseconds: asserted). So (a) adds
 * 16 (t_g + t_r + t_g + 3 t_l) = 16u + 48 t_l; (b) and (d) 16 (t_g + t_r)
 * on stage 0 and 16 (t_g + 3 t_l) on stage 3; (c) 8 (u + 3 t_l) on the
 * class of stages 0 and 3, whose ranks hold both ends. */
START_TEST(test_tp_per_layer_kind_on_every_stage)
{
	static const char *const runs[][5] = {
		{"parallel.pp=1", "parallel.dp=16", "model.dense_layers=8", NULL, NULL},
		{"model.dense_layers=2", NULL, NULL, NULL, NULL},
		{"model.dense_layers=2", "parallel.pipeline_schedule=dualpipe", NULL, NULL, NULL},
		{"model.dense_layers=2", "parallel.virtual_pipeline=2", "training.recompute=full",
		 "training.recompute_layers=1", NULL},
	};
	for (int i = 0; i < 4; i++) {
		const char *sets[8] = {"cluster.gpu=a100-sxm4-80gb", "parallel.sequence_parallel=true", runs[i][0],
				       runs[i][1],                  runs[i][2],                        runs[i][3],
				       NULL};
		double tg, tr, u, pair, re_d, re_m, tl = 0, emb, head;
		run_config("mixtral-8x7b-ep.json", sets);
		tp_call_times(&tg, &tr);
		for (uint64_t j = 0; j < run_res.comm.tp_head.ncoll; j++)
			if (run_res.comm.tp_head.coll[j].what == DC_CW_TP_LOSS_CHUNK)
				tl = run_res.comm.tp_head.coll[j].time_s / (double)run_res.comm.tp_head.coll[j].count;
		ck_assert(tl > 0);
		ck_assert(run_res.compute.head.bwd_wgrad_s > tr);
		ck_assert(run_res.compute.head.bwd_matmul_s - run_res.compute.head.bwd_wgrad_s > tg);
		u = 2.0 * tg + tr;
		pair = tg + tr;
		emb = tg + tr;
		head = tg + 3.0 * tl;
		ck_assert(run_res.compute.moe_layer.bwd_matmul_s > 2.0 * pair);
		ck_assert(run_res.compute.dense_layer.bwd_matmul_s > 2.0 * pair);
		/* the analysed rank: both kinds in (a), MoE layers only else */
		ck_assert_uint_eq(run_res.comm.stage_moe_layers, i == 0 ? 24 : run_res.comm.layers);
		re_d = i == 3 ? pair / 2.0 : 0;
		re_m = i == 3 ? pair / 4.0 : 0;
		tp_kind_eq(0, 2.0 * pair, 2.0 * u + re_d, 2.0 * pair);
		tp_kind_eq(1, pair, u + re_m, pair);
		switch (i) {
		case 0:
			ck_assert_uint_eq(run_res.step.nclasses, 1);
			class_tp_eq(0, 0, 0, 640.0 * u + 16.0 * (emb + head));
			break;
		case 1:
			class_tp_eq(0, 0, 0, 160.0 * u + 16.0 * emb);
			class_tp_eq(1, 1, 2, 128.0 * u);
			class_tp_eq(2, 3, 3, 128.0 * u + 16.0 * head);
			break;
		case 2:
			class_tp_eq(0, 0, 0, 144.0 * u + 8.0 * (emb + head));
			class_tp_eq(1, 1, 2, 128.0 * u);
			class_tp_eq(2, 3, 3, 144.0 * u + 8.0 * (emb + head));
			break;
		default:
			class_tp_eq(0, 0, 0, 16.0 * (10.0 * u + 2.5 * pair) + 16.0 * emb);
			class_tp_eq(1, 1, 2, 16.0 * (8.0 * u + 2.0 * pair));
			class_tp_eq(2, 3, 3, 16.0 * (8.0 * u + 2.0 * pair) + 16.0 * head);
			break;
		}
	}
}
END_TEST

/* What the trace sink sees of a timeline: per stage and track, events in
 * time order that never overlap; per stage the compute track tiling
 * [0, step]; and the schedule's own ops by name. */
struct tiling {
	double last_end[16][DC_TRACK_COUNT];
	double compute[16];
	int overlap, pairs, wgrads, inputs;
};

static int tile_event(void *ctx, const struct dc_step_event *e)
{
	struct tiling *t = ctx;
	ck_assert_uint_lt(e->stage, 16);
	if (e->start_s < t->last_end[e->stage][e->track] - 1e-9 * (1 + e->start_s))
		t->overlap++;
	t->last_end[e->stage][e->track] = e->start_s + e->duration_s;
	if (e->track == DC_TRACK_COMPUTE)
		t->compute[e->stage] += e->duration_s;
	t->pairs += strstr(e->name, "(F&B pair)") != NULL;
	t->wgrads += strstr(e->name, "weight grads") != NULL;
	t->inputs += strstr(e->name, "bwd (input grads)") != NULL;
	return 0;
}

START_TEST(test_trace_shows_the_schedule)
{
	/* Mixtral (pp 4, m 16, ep 4) under ZB-H1, DualPipe with its EP overlap
	 * and DualPipeV: every track's events apart, every stage's compute
	 * track summing to the step, the deferred weight gradients and
	 * DualPipe's pairs named */
	static const char *const runs[][3] = {
		{"parallel.pipeline_schedule=zero_bubble", NULL, NULL},
		{"parallel.pipeline_schedule=dualpipe", "overlap.ep=dualpipe", NULL},
		{"parallel.pipeline_schedule=dualpipev", NULL, NULL},
	};
	for (size_t i = 0; i < 3; i++) {
		static struct tiling t;
		struct dc_step tl;
		const char *err = NULL;
		const char *sets[] = {"cluster.gpu=a100-sxm4-80gb", runs[i][0], runs[i][1], NULL};
		memset(&t, 0, sizeof(t));
		run_config("mixtral-8x7b-ep.json", sets);
		ck_assert_int_eq(dc_step_timeline(&run_plan, &run_res.compute, &run_res.comm, &run_res.flops,
						  &run_res.batch, &tl, NULL, tile_event, &t, &err),
				 0);
		ck_assert_msg(t.overlap == 0, "%s: %d events overlap on their track", runs[i][0], t.overlap);
		for (uint64_t s = 0; s < 4; s++)
			ck_assert_double_eq_tol(t.compute[s], tl.time_s, 1e-9 * tl.time_s);
		ck_assert_int_gt(t.wgrads, 0);
		ck_assert_int_gt(t.inputs, 0);
		ck_assert(i == 0 ? t.pairs == 0 : t.pairs > 0);
		ck_assert_int_eq(tl.schedule, i == 0 ? DC_PIPE_ZERO_BUBBLE : i == 1 ? DC_PIPE_DUALPIPE : DC_PIPE_DUALPIPEV);
		ck_assert(tl.bubble_s > 0 && tl.bubble_paper_s > 0);
	}
}
END_TEST

/* The trace's cp track draws every layer's CP exchange, waited or sent on
 * the ring beside the kernels: over the step its events add up to the comm
 * result's CP time (one stage, tp 4 x cp 2 on systems.json). A review found
 * the track empty under cp_comm_type p2p, whose rows are all ring sends,
 * after the step came to tell the waited part from the ring's. */
static int cp_track_event(void *ctx, const struct dc_step_event *e)
{
	double *sum = ctx;
	if (e->kind == DC_EV_SPAN && e->track == DC_TRACK_CP && e->stage == 0)
		*sum += e->duration_s;
	return 0;
}

START_TEST(test_trace_cp_track_holds_every_exchange)
{
	static const char *const types[] = {"parallel.cp_comm_type=p2p", "parallel.cp_comm_type=all_gather"};
	for (int i = 0; i < 2; i++) {
		const char *sets[] = {"cluster.gpu=h100-sxm5-80gb", "parallel.cp=2", "parallel.dp=1", types[i],
				      "training.framework=torchtitan", NULL};
		struct dc_step tl;
		const char *err = NULL;
		double sum = 0, want;
		run_config("systems.json", sets);
		want = run_res.comm.s[DC_STRAT_CP].time_s;
		ck_assert_double_gt(want, 0);
		ck_assert_int_eq(dc_step_timeline(&run_plan, &run_res.compute, &run_res.comm, &run_res.flops,
						  &run_res.batch, &tl, NULL, cp_track_event, &sum, &err),
				 0);
		ck_assert_msg(fabs(sum - want) <= 1e-9 * want, "%s: the cp track holds %.12g s of %.12g s", types[i], sum,
			      want);
	}
}
END_TEST

/* The critical path ends the critical stage where its last op ends: under
 * ZB-H1 a stage's delayed weight gradients run after its last backward,
 * and where the heaviest stage is the last (a 131,072-token head, 4
 * stages of 4 layers, m 8) they end the pipeline themselves, so no drain
 * follows. A pipeline trial read a "pipeline drain" row of 25.8 ms after
 * that stage's end, stage 0 finishing 9.3 ms before it. Held against the
 * timeline's own events: each stage's last op ("... mb N"), and the
 * latest of them the pipeline's end. */
struct op_ends {
	double end[16];
};

static int op_end_event(void *ctx, const struct dc_step_event *e)
{
	struct op_ends *o = ctx;
	if (e->track == DC_TRACK_COMPUTE && e->kind != DC_EV_MEMORY && e->stage < 16 && strstr(e->name, " mb ") &&
	    e->start_s + e->duration_s > o->end[e->stage])
		o->end[e->stage] = e->start_s + e->duration_s;
	return 0;
}

START_TEST(test_zb_critical_path_ends_with_the_stage)
{
	struct op_ends o;
	struct dc_step tl;
	const char *err = NULL;
	double last = 0, crit_end = -1;
	int drains = 0;
	memset(&o, 0, sizeof(o));
	run_config("../tests/inputs/zb_heavy_last_stage.json", NULL);
	ck_assert_int_eq(dc_step_timeline(&run_plan, &run_res.compute, &run_res.comm, &run_res.flops, &run_res.batch,
					  &tl, NULL, op_end_event, &o, &err),
			 0);
	for (int s = 0; s < 4; s++)
		if (o.end[s] > last)
			last = o.end[s];
	ck_assert_uint_eq(run_res.step.critical_stage, 3);
	ck_assert_double_eq_tol(o.end[3], last, 1e-12 * last); /* the last stage ends the pipeline */
	ck_assert_double_gt(o.end[3] - o.end[0], 1e-3);
	for (uint64_t i = 0; i < run_res.step.npath; i++) {
		const struct dc_step_path *r = &run_res.step.path[i];
		if (strncmp(r->what, "critical stage", 14) == 0)
			crit_end = r->start_s + r->duration_s;
		if (strncmp(r->what, "pipeline drain", 14) == 0)
			drains++;
	}
	ck_assert_msg(fabs(crit_end - o.end[3]) <= 1e-9 * last, "critical stage row ends at %.9g s, its ops at %.9g s",
		      crit_end, o.end[3]);
	ck_assert_int_eq(drains, 0);
	ck_assert_double_eq_tol(run_res.step.pipeline_s, last, 1e-9 * last);
}
END_TEST

/* DualPipe's sends against their consumers in the trace: a pair of the
 * two directions' chunks sends its activations and its gradients to one
 * neighbour over one link, the gradients after the activations (sim_run),
 * so no op starts before the send it takes has ended. A pipeline trial
 * found 6 of 48 gradient sends at pp 4, m 8 (2 GB/s NVLink) still under
 * way when the pair that takes them started: the timeline had both sends
 * leave at the pair's end and arrive one send later each. For every send
 * event, the first op of its microbatch and direction on the stage it
 * goes to that starts after the send does must start after it ends. */
#define SEND_MAX 512
#define OPEV_MAX 8192
struct send_check {
	struct { double start, end; uint64_t to, mb; int bwd; } send[SEND_MAX];
	struct { double start; uint64_t stage, mb; int bwd; } op[OPEV_MAX];
	size_t nsend, nop;
	double pair_start[16]; /* a pair's first event (its forward's): when it takes its inputs */
	int in_pair_fwd[16];
};

static int send_check_event(void *ctx, const struct dc_step_event *e)
{
	struct send_check *c = ctx;
	unsigned long long mb, ch, to, layer;
	char dir[8];
	if (e->kind != DC_EV_SPAN)
		return 0;
	if (e->track == DC_TRACK_PP && c->nsend < SEND_MAX) {
		int bwd = strncmp(e->name, "gradients", 9) == 0;
		if (sscanf(e->name + (bwd ? 9 : 11), " mb %llu chunk %llu send to stage %llu", &mb, &ch, &to) == 3) {
			c->send[c->nsend].start = e->start_s;
			c->send[c->nsend].end = e->start_s + e->duration_s;
			c->send[c->nsend].to = to;
			c->send[c->nsend].mb = mb;
			c->send[c->nsend].bwd = bwd;
			c->nsend++;
		}
	} else if (e->track == DC_TRACK_COMPUTE && e->stage < 16 && c->nop < OPEV_MAX &&
		   sscanf(e->name, "layer %llu %7s mb %llu", &layer, dir, &mb) == 3 &&
		   (strcmp(dir, "fwd") == 0 || strcmp(dir, "bwd") == 0)) {
		int pair = strstr(e->name, "(F&B pair)") != NULL, fwd = dir[0] == 'f';
		if (pair && fwd && !c->in_pair_fwd[e->stage])
			c->pair_start[e->stage] = e->start_s;
		c->in_pair_fwd[e->stage] = pair && fwd;
		/* a pair's backward takes its gradients when the pair starts */
		c->op[c->nop].start = pair && !fwd ? c->pair_start[e->stage] : e->start_s;
		c->op[c->nop].stage = e->stage;
		c->op[c->nop].mb = mb;
		c->op[c->nop].bwd = dir[0] == 'b';
		c->nop++;
	}
	return 0;
}

START_TEST(test_dualpipe_pair_sends_before_their_consumers)
{
	static struct send_check c;
	const char *sets[] = {"parallel.pipeline_schedule=dualpipe", "cluster.intra_node.bandwidth=2 GB/s",
			      "model.vocab_size=256", NULL};
	struct dc_step tl;
	const char *err = NULL;
	size_t checked = 0;
	memset(&c, 0, sizeof(c));
	run_config("../tests/inputs/zb_heavy_last_stage.json", sets);
	ck_assert_int_eq(dc_step_timeline(&run_plan, &run_res.compute, &run_res.comm, &run_res.flops, &run_res.batch,
					  &tl, NULL, send_check_event, &c, &err),
			 0);
	ck_assert_uint_eq(c.nsend, 48);
	for (size_t i = 0; i < c.nsend; i++) {
		double first = HUGE_VAL;
		for (size_t j = 0; j < c.nop; j++)
			if (c.op[j].stage == c.send[i].to && c.op[j].mb == c.send[i].mb && c.op[j].bwd == c.send[i].bwd &&
			    c.op[j].start >= c.send[i].start && c.op[j].start < first)
				first = c.op[j].start;
		if (first == HUGE_VAL)
			continue;
		checked++;
		ck_assert_msg(first >= c.send[i].end - 1e-12, "send %zu to stage %llu (mb %llu, %s) ends at %.9g s, its consumer starts at %.9g s",
			      i, (unsigned long long)c.send[i].to, (unsigned long long)c.send[i].mb,
			      c.send[i].bwd ? "gradients" : "activations", c.send[i].end, first);
	}
	ck_assert_uint_ge(checked, 40); /* the others' consumers start before the send is drawn: none of its microbatch after it */
}
END_TEST

/* Which stage runs each layer and which layers dispatch tokens: the
 * timeline's events by layer */
struct by_layer {
	int stage[64];    /* the stage of its forward (-1: none seen) */
	int a2a[64];      /* an ep all_to_all event with time on it */
};

static int layer_event(void *ctx, const struct dc_step_event *e)
{
	struct by_layer *x = ctx;
	unsigned long long i;
	if (sscanf(e->name, "layer %llu", &i) != 1 || i >= 64)
		return 0;
	if (e->track == DC_TRACK_COMPUTE && strstr(e->name, " fwd mb "))
		x->stage[i] = (int)e->stage;
	if (e->track == DC_TRACK_EP && e->duration_s > 0)
		x->a2a[i] = 1;
	return 0;
}

/* Llama-4-Maverick (tests/inputs/llama-4-maverick-pp4.json), MoE on
 * layers 1, 3, ..., 47, pp 4 as [11, 13, 13, 11], 4 microbatches: the
 * stages run layers 0-10, 11-23, 24-36, 37-47, and exactly the odd layers
 * carry an EP AlltoAll, on every stage (dense first would have sent none
 * before layer 24) */
START_TEST(test_trace_moe_interval_layers)
{
	static struct by_layer x;
	const char *sets[] = {"parallel.pipeline_layers=[11,13,13,11]", "training.grad_accum_steps=4", NULL};
	struct dc_step tl;
	const char *err = NULL;
	for (int i = 0; i < 64; i++)
		x.stage[i] = -1;
	run_config("../tests/inputs/llama-4-maverick-pp4.json", sets);
	ck_assert_int_eq(dc_step_timeline(&run_plan, &run_res.compute, &run_res.comm, &run_res.flops, &run_res.batch,
					  &tl, NULL, layer_event, &x, &err),
			 0);
	for (int i = 0; i < 48; i++) {
		int want = i < 11 ? 0 : i < 24 ? 1 : i < 37 ? 2 : 3;
		ck_assert_msg(x.stage[i] == want, "layer %d on stage %d, want %d", i, x.stage[i], want);
		ck_assert_msg(x.a2a[i] == (i % 2), "layer %d: all_to_all %d", i, x.a2a[i]);
	}
	ck_assert_int_eq(x.stage[48], -1);
}
END_TEST

/* The first forward of layers 0, 1 and 95 (microbatch 0) */
struct bf16_events {
	double fwd[3];
};

static int bf16_event(void *ctx, const struct dc_step_event *e)
{
	struct bf16_events *x = ctx;
	if (e->track != DC_TRACK_COMPUTE || strstr(e->name, "wait"))
		return 0;
	if (strcmp(e->name, "layer 0 fwd mb 0") == 0)
		x->fwd[0] = e->duration_s;
	else if (strcmp(e->name, "layer 1 fwd mb 0") == 0)
		x->fwd[1] = e->duration_s;
	else if (strcmp(e->name, "layer 95 fwd mb 0") == 0)
		x->fwd[2] = e->duration_s;
	return 0;
}

/* The trace draws a BF16 layer at its own kernels, as the step prices it
 * (a review: it drew the FP8 layer's and left the difference as an
 * unlabelled gap). korthikanti-175b at 1F1B on H100 under FP8 current
 * scaling with the first and the last layer in BF16: layers 0 and 95's
 * forward kernels are the BF16 layer's forward, layer 1's the FP8 one's */
START_TEST(test_trace_bf16_layers)
{
	static struct bf16_events x;
	const char *sets[] = {"cluster.gpu=h100-sxm5-80gb", "training.framework=custom", "overlap.compute_slowdown=0",
			      "parallel.virtual_pipeline=1", "precision.compute=fp8", "precision.fp8_recipe=current",
			      "precision.bf16_first_layers=1", "precision.bf16_last_layers=1", NULL};
	struct dc_step tl;
	const char *err = NULL;
	run_config("korthikanti-175b.json", sets);
	ck_assert_int_eq(dc_step_timeline(&run_plan, &run_res.compute, &run_res.comm, &run_res.flops, &run_res.batch,
					  &tl, NULL, bf16_event, &x, &err),
			 0);
	ck_assert_double_eq_tol(x.fwd[0], run_res.compute.dense_layer_bf16.fwd_s, 1e-12);
	ck_assert_double_eq_tol(x.fwd[1], run_res.compute.dense_layer.fwd_s, 1e-12);
	ck_assert_double_eq_tol(x.fwd[2], run_res.compute.dense_layer_bf16.fwd_s, 1e-12);
	ck_assert(x.fwd[0] > x.fwd[1]);
}
END_TEST

/* The events dc_step_trace shows before each stage's summary, in order. */
struct shown {
	struct dc_step_event ev[4096];
	size_t n;
	int summary[16]; /* the stage's summary came */
	uint64_t summarised[16];
	double summary_end[16], summary_busy[16]; /* the summary span's end and kernel time */
	uint64_t held[16][64], nheld[16]; /* the memory counter's held counts, in order */
	enum dc_step_mem mem[16][64];
};

static int collect_shown(void *ctx, const struct dc_step_event *e)
{
	struct shown *x = ctx;
	ck_assert_uint_lt(e->stage, 16);
	if (e->kind == DC_EV_SUMMARY) {
		x->summary[e->stage] = 1;
		x->summarised[e->stage] = e->ops;
		x->summary_end[e->stage] = e->start_s + e->duration_s;
		x->summary_busy[e->stage] = e->busy_s;
	}
	if (e->kind == DC_EV_MEMORY && x->nheld[e->stage] < 64) {
		x->mem[e->stage][x->nheld[e->stage]] = e->mem;
		x->held[e->stage][x->nheld[e->stage]++] = e->held;
	}
	if (x->summary[e->stage] || e->kind != DC_EV_SPAN)
		return 0;
	ck_assert_uint_lt(x->n, 4096);
	x->ev[x->n++] = *e;
	return 0;
}

START_TEST(test_trace_prefix_is_the_schedule)
{
	/* The trace's bound (step.h dc_step_trace): above max_chunks the
	 * timeline simulates only a prefix of the schedule, which must give
	 * every shown op the order and time the whole schedule gives it. The
	 * course model on pp 4 (dp 1 on 4 nodes of 4), 64 microbatches, 4
	 * shown: the whole schedule (max_chunks large) against the prefix
	 * (max_chunks = what the prefix needs: 1F1B and ZB-H1 4 + pp = 8
	 * microbatches, 4 x 8 chunks; interleaved v 2: (ceil(4 / 4) + 3) x 4
	 * = 16 microbatches, 4 x 2 x 16), event by event */
	static const char *const runs[][3] = {
		{"parallel.pipeline_schedule=1f1b", "parallel.virtual_pipeline=1", NULL},
		{"parallel.pipeline_schedule=zero_bubble", "parallel.virtual_pipeline=1", NULL},
		{"parallel.pipeline_schedule=interleaved", "parallel.virtual_pipeline=2", NULL},
	};
	static const uint64_t need[] = {4 * 8, 4 * 8, 4 * 2 * 16};
	static struct shown whole, prefix;
	for (size_t i = 0; i < 3; i++) {
		const char *sets[] = {"parallel.pp=4", "parallel.dp=1", "cluster.num_nodes=4", "training.grad_accum_steps=64",
				      runs[i][0], runs[i][1], NULL};
		struct dc_step_show a = {.microbatches = 4, .max_chunks = 1 << 20};
		struct dc_step_show b = {.microbatches = 4, .max_chunks = need[i]};
		struct dc_step_show c = {.microbatches = 4, .max_chunks = need[i] - 1};
		struct dc_step sa, sb, sc;
		const char *err = NULL;
		load_and_run("systems.json", sets, 0);
		memset(&whole, 0, sizeof(whole));
		memset(&prefix, 0, sizeof(prefix));
		ck_assert_int_eq(dc_step_trace(&run_plan, &run_res.compute, &run_res.comm, &run_res.flops, &run_res.batch,
					       &sa, &a, NULL, collect_shown, &whole, &err),
				 0);
		ck_assert_int_eq(dc_step_trace(&run_plan, &run_res.compute, &run_res.comm, &run_res.flops, &run_res.batch,
					       &sb, &b, NULL, collect_shown, &prefix, &err),
				 0);
		ck_assert_uint_eq(a.m_simulated, 64);
		ck_assert(!a.from_closed_form);
		/* ZB-H1's step simulates its whole schedule within the step's
		 * own bound (step.c zb_simulated), and so does its trace */
		ck_assert_uint_eq(b.m_simulated, i == 2 ? 16 : i == 1 ? 64 : 8);
		ck_assert(b.from_closed_form == (i != 1));
		/* the prefix's step is the closed form's, the report's */
		ck_assert_double_eq(sb.time_s, run_res.step.time_s);
		ck_assert_uint_eq(whole.n, prefix.n);
		ck_assert_uint_gt(whole.n, 0);
		for (size_t k = 0; k < whole.n; k++) {
			ck_assert_uint_eq(whole.ev[k].stage, prefix.ev[k].stage);
			ck_assert_str_eq(whole.ev[k].name, prefix.ev[k].name);
			ck_assert_double_eq_tol(whole.ev[k].start_s, prefix.ev[k].start_s, 1e-12 * (1 + whole.ev[k].start_s));
			ck_assert_double_eq_tol(whole.ev[k].duration_s, prefix.ev[k].duration_s, 1e-12);
		}
		for (uint64_t s = 0; s < 4; s++) {
			/* the whole schedule's ops either shown or summarised, the
			 * same count both ways: 1F1B and interleaved 2 m v, ZB-H1 3 m */
			ck_assert(whole.summary[s] && prefix.summary[s]);
			ck_assert_uint_eq(whole.summarised[s], prefix.summarised[s]);
			ck_assert_uint_lt(whole.summarised[s], i == 1 ? 3 * 64 : i == 2 ? 2 * 64 * 2 : 2 * 64);
		}
		/* one chunk fewer than the prefix needs: refused (ZB-H1: the
		 * whole schedule still) */
		ck_assert_int_eq(dc_step_trace(&run_plan, &run_res.compute, &run_res.comm, &run_res.flops, &run_res.batch,
					       &sc, &c, NULL, collect_shown, &prefix, &err),
				 i == 1 ? 0 : -2);
		ck_assert(!c.no_closed_form);
	}
	/* 1F1B's counts by hand: stage s of 4 shows its 3 - s warm-up
	 * forwards, 4 forward-backward pairs and the forward of microbatch
	 * 7 - s before the backward of microbatch 4: 3 - s + 9 ops, and
	 * summarises 128 - (12 - s) */
	{
		const char *sets[] = {"parallel.pp=4", "parallel.dp=1", "cluster.num_nodes=4",
				      "training.grad_accum_steps=64", NULL};
		struct dc_step_show a = {.microbatches = 4, .max_chunks = 1 << 20};
		struct dc_step sa;
		const char *err = NULL;
		load_and_run("systems.json", sets, 0);
		memset(&whole, 0, sizeof(whole));
		ck_assert_int_eq(dc_step_trace(&run_plan, &run_res.compute, &run_res.comm, &run_res.flops, &run_res.batch,
					       &sa, &a, NULL, collect_shown, &whole, &err),
				 0);
		for (uint64_t s = 0; s < 4; s++)
			ck_assert_uint_eq(whole.summarised[s], 128 - (12 - s));
	}
}
END_TEST

/* a and b within 1e-12 of `of` (the quantity itself, or the span an idle
 * time is the difference of: the span's rounding, not the idle's size) */
static void ck_rel_tol(double a, double b, double of, double tol, const char *what)
{
	ck_assert_msg(fabs(a - b) <= tol * fabs(of), "%s: %.17g against %.17g", what, a, b);
}

static void ck_rel(double a, double b, double of, const char *what)
{
	ck_rel_tol(a, b, of, 1e-12, what);
}

/* The step of the loaded run under two bounds: the whole schedule's
 * (sw, whole) and a lowered one's (sl, low); both must run. */
static void bounded_pair(struct dc_step *sw, struct dc_step_bound *whole, struct dc_step *sl, struct dc_step_bound *low)
{
	const char *err = NULL;
	ck_assert_int_eq(dc_step_compute_bounded(&run_plan, &run_res.compute, &run_res.comm, &run_res.flops,
						 &run_res.batch, sw, whole, &err),
			 0);
	ck_assert_int_eq(dc_step_compute_bounded(&run_plan, &run_res.compute, &run_res.comm, &run_res.flops,
						 &run_res.batch, sl, low, &err),
			 0);
}

/* A step extended past its bound against the whole schedule's (w): the
 * step, the span, the bubble, the throughput (and the MFU with `mfu`),
 * the critical stage and every class, within 1e-12 relative. */
static void ck_same_step(const struct dc_step *w, const struct dc_step *l, int mfu)
{
	ck_rel(w->time_s, l->time_s, w->time_s, "time_s");
	ck_rel(w->pipeline_s, l->pipeline_s, w->pipeline_s, "pipeline_s");
	ck_rel(w->bubble_s, l->bubble_s, w->pipeline_s, "bubble_s (of the span)");
	ck_rel(w->tokens_per_s, l->tokens_per_s, w->tokens_per_s, "tokens_per_s");
	if (mfu)
		ck_rel(w->mfu, l->mfu, w->mfu, "mfu");
	ck_assert_uint_eq(w->critical_stage, l->critical_stage);
	ck_assert_uint_eq(w->nclasses, l->nclasses);
	for (uint64_t k = 0; k < w->nclasses; k++) {
		ck_rel(w->classes[k].compute_s, l->classes[k].compute_s, w->classes[k].compute_s, "class compute_s");
		ck_rel(w->classes[k].bubble_s, l->classes[k].bubble_s, w->classes[k].total_s, "class bubble_s (of the step)");
		ck_rel(w->classes[k].total_s, l->classes[k].total_s, w->classes[k].total_s, "class total_s");
	}
}

START_TEST(test_dualpipe_bound_extends_the_steady_state)
{
	/* DualPipe and DualPipeV past the step's bound (step.h
	 * dc_step_bound; docs/step-model.md, "DualPipe past the bound"): a
	 * prefix simulated, its steady phase's cycle found, every rank's end
	 * moved on by a cycle's time for each cycle left out. The course
	 * model, 2000 microbatches, against the whole schedule simulated
	 * (bound 2^18 chunks: 2pp x 2000 fits), with the bound lowered to 256
	 * chunks. The prefix by hand (dual_prefix): 256 / 2pp microbatches,
	 * at least the least steady phase (DualPipe pp 2: 2 (5 x 2 + 7) = 34;
	 * DualPipeV pp 2: 6 x 2 + 7 = 19, pp 4: 31), the pairs left out a
	 * multiple of 840: DualPipe pp 2: 64, (2000 - 64) / 2 = 968 pairs ->
	 * 840, 2000 - 1680 = 320 simulated; DualPipeV pp 2: 64, 1936 -> 1680
	 * pairs, 320; pp 4: 32, 1968 -> 1680, 320. On pp 16 (bound 4096:
	 * 4096 / 32 = 128 microbatches, least DualPipeV 6 x 16 + 7 = 103,
	 * DualPipe 2 (5 x 16 + 7) = 174): DualPipeV 1872 -> 1680 pairs, 320;
	 * DualPipe (2000 - 174) / 2 = 913 -> 840 pairs, 2000 - 1680 = 320.
	 * Each also by the max-plus power (maxplus_first).
	 *
	 * Equal to within 1e-12 relative, not exactly: the whole simulation
	 * adds 2 x 2000 op times one after another along a rank, each sum
	 * rounded (at most 2^-53 of it), at most 4000 x 1.1e-16 = 4.4e-13 of
	 * the end apart from the exact sum; the prefix adds 640 and then
	 * periods / cycle cycle times at once, its own rounding smaller. In
	 * exact arithmetic both are the same number (the derivation in the
	 * docs); the float sums differ in their last bits. An idle time (a
	 * bubble) is a difference of such sums: held to 1e-12 of the span or
	 * step it is taken from. */
	static const char *const runs[][3] = {
		{"parallel.pipeline_schedule=dualpipe", "parallel.pp=2", "cluster.num_nodes=2"},
		{"parallel.pipeline_schedule=dualpipev", "parallel.pp=2", "cluster.num_nodes=2"},
		{"parallel.pipeline_schedule=dualpipev", "parallel.pp=4", "cluster.num_nodes=4"},
		{"parallel.pipeline_schedule=dualpipev", "parallel.pp=16", "cluster.num_nodes=16"},
		{"parallel.pipeline_schedule=dualpipe", "parallel.pp=16", "cluster.num_nodes=16"},
	};
	static const uint64_t periods[] = {1680 / 2, 1680, 1680, 1680, 840};
	static const uint64_t bounds[] = {256, 256, 256, 4096, 4096};
	for (size_t i = 0; i < 5 * 2; i++) {
		/* i / 5: the max-plus power first (7 of the derivation) */
		const char *sets[] = {runs[i % 5][0], runs[i % 5][1], runs[i % 5][2], "parallel.dp=1",
				      "training.grad_accum_steps=2000", NULL};
		struct dc_step_bound whole = {.max_chunks = DC_STEP_SIM_MAX_CHUNKS};
		struct dc_step_bound low = {.max_chunks = bounds[i % 5], .maxplus_first = i >= 5};
		struct dc_step sw, sl;
		load_and_run("systems.json", sets, 0);
		bounded_pair(&sw, &whole, &sl, &low);
		ck_assert(!whole.extended);
		ck_assert_uint_eq(whole.m_simulated, 2000);
		/* the default bound is the report's: the same step, bit for bit */
		ck_assert(sw.time_s == run_res.step.time_s);
		ck_assert(low.extended && !low.again);
		ck_assert_uint_eq(low.m_simulated, 320);
		ck_assert_uint_eq(low.periods, periods[i % 5]);
		if (i >= 5)
			ck_assert(low.by_maxplus);
		if (!low.by_maxplus) {
			ck_assert_uint_eq(low.periods % low.cycle, 0);
			ck_assert(low.period_s > 0);
		}
		ck_same_step(&sw, &sl, 1);
		ck_rel(sw.chunk_fb_s, sl.chunk_fb_s, sw.chunk_fb_s, "chunk_fb_s");
	}
}
END_TEST

START_TEST(test_uneven_interleaved_bound_extends_the_steady_state)
{
	/* Interleaved chunks of unequal cost past the step's bound (step.h
	 * dc_step_bound; docs/step-model.md, "Uneven interleaved chunks past
	 * the bound"): a prefix simulated and every stage's end taken from
	 * the max-plus power of its steady period (pp microbatches: pp v
	 * steady pairs on every stage). The course model (32 layers), 2000
	 * microbatches, against the whole schedule simulated (pp v 2000 fits
	 * 2^18), the bound lowered to 256 chunks. The prefix by hand
	 * (inter_prefix): stage 0's warm-up 2 (pp - 1) + (v - 1) pp plus
	 * 4 pp v + pp steady pairs, over v, rounded up to a multiple of pp:
	 *   pp 2 v 2: 2 + 2 + 16 + 2 = 22 pairs, 11 -> 12 microbatches
	 *   pp 4 v 2: 6 + 4 + 32 + 4 = 46, 23 -> 24
	 *   pp 8 v 2: 14 + 8 + 64 + 8 = 94, 47 -> 48
	 *   pp 2 v 3: 2 + 4 + 24 + 2 = 32, 11 -> 12
	 *   pp 4 v 3: 6 + 8 + 48 + 4 = 66, 22 -> 24
	 *   pp 8 v 3: 14 + 16 + 96 + 8 = 134, 45 -> 48
	 * and the periods left out (2000 - m') / pp: 994, 494, 244. Layouts:
	 * uneven stages split evenly over their chunks (v 2), and one entry a
	 * model chunk with the model's first and last chunks apart (v 3:
	 * chunk c of stage s is entry c pp + s). Within 1e-12 relative, for
	 * the reason test_dualpipe_bound_extends_the_steady_state gives (the
	 * whole simulation rounds 2 v 2000 sums along a stage). */
	static const char *const runs[][4] = {
		{"parallel.pp=2", "cluster.num_nodes=2", "parallel.virtual_pipeline=2", "parallel.pipeline_layers=[18,14]"},
		{"parallel.pp=4", "cluster.num_nodes=4", "parallel.virtual_pipeline=2",
		 "parallel.pipeline_layers=[10,8,8,6]"},
		{"parallel.pp=8", "cluster.num_nodes=8", "parallel.virtual_pipeline=2",
		 "parallel.pipeline_layers=[6,4,4,4,4,4,4,2]"},
		{"parallel.pp=2", "cluster.num_nodes=2", "parallel.virtual_pipeline=3",
		 "parallel.pipeline_layers=[4,6,6,6,6,4]"},
		{"parallel.pp=4", "cluster.num_nodes=4", "parallel.virtual_pipeline=3",
		 "parallel.pipeline_layers=[1,3,3,3,3,3,3,3,3,3,3,1]"},
		{"parallel.pp=8", "cluster.num_nodes=8", "parallel.virtual_pipeline=3",
		 "parallel.pipeline_layers=[5,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,5]"},
	};
	static const uint64_t prefix[] = {12, 24, 48, 12, 24, 48};
	static const uint64_t periods[] = {994, 494, 244, 994, 494, 244};
	for (size_t i = 0; i < sizeof(prefix) / sizeof(prefix[0]); i++) {
		const char *sets[] = {runs[i][0], runs[i][1], runs[i][2], runs[i][3], "parallel.dp=1",
				      "training.grad_accum_steps=2000", NULL};
		struct dc_step_bound whole = {.max_chunks = DC_STEP_SIM_MAX_CHUNKS};
		struct dc_step_bound low = {.max_chunks = 256};
		struct dc_step sw, sl;
		load_and_run("systems.json", sets, 0);
		ck_assert(run_plan.chunks_uneven);
		bounded_pair(&sw, &whole, &sl, &low);
		ck_assert(!whole.extended);
		ck_assert_uint_eq(whole.m_simulated, 2000);
		/* the default bound is the report's: the same step, bit for bit */
		ck_assert(sw.time_s == run_res.step.time_s);
		ck_assert(low.extended && !low.again && low.by_maxplus);
		ck_assert_uint_eq(low.m_simulated, prefix[i]);
		ck_assert_uint_eq(low.periods, periods[i]);
		ck_same_step(&sw, &sl, 1);
	}
}
END_TEST

START_TEST(test_uneven_interleaved_deep_extends)
{
	/* A deep interleaved pipeline of uneven chunks, pp 64, v 8 (stage 0
	 * 16 layers, the rest 8: one or two a chunk), 512 microbatches,
	 * against its whole schedule (64 x 8 x 512 = 2^18 chunks: within the
	 * default bound), the bound lowered to 256. The prefix by hand
	 * (inter_prefix): stage 0's warm-up 2 x 63 + 7 x 64 = 574 plus
	 * 4 x 512 + 64 steady pairs, 2,686 pairs over v 8, 336 microbatches,
	 * rounded up to a multiple of 64: 384 (196,608 chunks); (512 - 384) /
	 * 64 = 2 periods; its max-plus state 3 pp - 2 ends and the constant,
	 * 191. Until stop 67 the step kept every form after the cut, 379 MB by
	 * inter_prefix's estimate, above the 256 MiB it allowed, and refused
	 * this layout past 2 x 2^18 chunks (tests/cli/cases/
	 * bound_uneven_interleaved_deep); the forms in flight alone are kept
	 * now. Within 1e-12 relative, for the reason
	 * test_dualpipe_bound_extends_the_steady_state gives. */
	char layers[400] = "parallel.pipeline_layers=[16";
	const char *sets[] = {"parallel.tp=1", "parallel.dp=1", "cluster.gpus_per_node=1", "cluster.num_nodes=64",
			      "parallel.pp=64", "parallel.virtual_pipeline=8", "model.num_layers=520", layers,
			      "training.grad_accum_steps=512", NULL};
	struct dc_step_bound whole = {.max_chunks = DC_STEP_SIM_MAX_CHUNKS};
	struct dc_step_bound low = {.max_chunks = 256};
	struct dc_step sw, sl;
	for (int i = 1; i < 64; i++)
		strcat(layers, ",8");
	strcat(layers, "]");
	load_and_run("systems.json", sets, 0);
	bounded_pair(&sw, &whole, &sl, &low);
	ck_assert(!whole.extended && !whole.again);
	ck_assert_uint_eq(whole.m_simulated, 512);
	ck_assert(sw.time_s == run_res.step.time_s);
	ck_assert(low.extended && !low.again && low.by_maxplus);
	ck_assert_uint_eq(low.m_simulated, 384);
	ck_assert_uint_eq(low.periods, 2);
	ck_same_step(&sw, &sl, 1);
}
END_TEST

/* The loaded run's step past a bound lowered to 256 chunks against its
 * whole schedule (m microbatches, within the default bound): extended by
 * the max-plus power (uneven 1F1B, ZB-H1) from a prefix of `prefix`
 * microbatches, `periods` periods left out, the same step within 1e-12;
 * the default bound's step the report's, bit for bit. */
static void ck_extends(uint64_t m, uint64_t prefix, uint64_t periods)
{
	struct dc_step_bound whole = {.max_chunks = DC_STEP_SIM_MAX_CHUNKS};
	struct dc_step_bound low = {.max_chunks = 256};
	struct dc_step sw, sl;
	bounded_pair(&sw, &whole, &sl, &low);
	ck_assert(!whole.extended && !whole.f1b_closed_form && !sw.f1b_closed_form);
	ck_assert_uint_eq(whole.m_simulated, m);
	ck_assert(sw.time_s == run_res.step.time_s);
	ck_assert(low.extended && low.by_maxplus && !low.f1b_closed_form && !sl.f1b_closed_form);
	ck_assert_uint_eq(low.m_simulated, prefix);
	ck_assert_uint_eq(low.periods, periods);
	ck_same_step(&sw, &sl, 0);
}

/* A trace's events, counted (dc_step_event_fn) */
static int count_events(void *ctx, const struct dc_step_event *e)
{
	(void)e;
	(*(uint64_t *)ctx)++;
	return 0;
}

/* The loaded run's step where its extension does not apply (the bound
 * lowered to 256 chunks, the schedule past DC_STEP_SIM_AGAIN times it): the closed form,
 * flagged, at most the whole schedule's and within 10% of it. */
static void ck_falls_back(void)
{
	struct dc_step_bound whole = {.max_chunks = DC_STEP_SIM_MAX_CHUNKS};
	struct dc_step_bound low = {.max_chunks = 256};
	struct dc_step sw, sl;
	bounded_pair(&sw, &whole, &sl, &low);
	ck_assert(!whole.f1b_closed_form && !sw.f1b_closed_form);
	ck_assert(low.f1b_closed_form && sl.f1b_closed_form && !low.extended && !low.by_maxplus);
	ck_assert(sl.available);
	ck_assert(sl.time_s <= sw.time_s * (1 + 1e-12));
	ck_assert(sl.time_s > 0.9 * sw.time_s);
}

START_TEST(test_uneven_1f1b_bound_extends_the_steady_state)
{
	/* 1F1B on stages of unequal layers past the step's bound (step.h
	 * dc_step_bound; docs/step-model.md, "Uneven 1F1B past the bound"):
	 * a prefix simulated and every stage's end from the max-plus power
	 * of its steady period (pp microbatches), as uneven interleaving. The
	 * course model (32 layers), 2000 and 2003 microbatches, against the
	 * whole schedule simulated (pp 2003 fits 2^18), the bound lowered to
	 * 256 chunks. The prefix by hand (inter_prefix): stage 0's warm-up
	 * pp - 1 plus 4 pp + pp steady pairs, 6 pp - 1 microbatches, raised
	 * to the least count congruent to m modulo pp:
	 *   pp 2: 11 -> 12 (m 2000), 11 (m 2003); periods 994, 996
	 *   pp 4: 23 -> 24, 23 (2003 = 3 mod 4); periods 494, 495
	 *   pp 8: 47 -> 48, 51 (2003 = 3 mod 8, 47 = 7); periods 244, 244
	 * The pp 8 split is docs/step-model.md's, whose closed form is short
	 * of its timeline (0.0055 s at m 32,768). Within 1e-12 relative, for
	 * the reason test_dualpipe_bound_extends_the_steady_state gives. */
	static const char *const runs[][3] = {
		{"parallel.pp=2", "cluster.num_nodes=2", "parallel.pipeline_layers=[18,14]"},
		{"parallel.pp=4", "cluster.num_nodes=4", "parallel.pipeline_layers=[10,8,8,6]"},
		{"parallel.pp=8", "cluster.num_nodes=8", "parallel.pipeline_layers=[8,2,4,7,2,1,7,1]"},
	};
	static const char *const ms[] = {"training.grad_accum_steps=2000", "training.grad_accum_steps=2003"};
	static const uint64_t prefix[][2] = {{12, 11}, {24, 23}, {48, 51}};
	static const uint64_t periods[][2] = {{994, 996}, {494, 495}, {244, 244}};
	for (size_t i = 0; i < 3; i++)
		for (size_t j = 0; j < 2; j++) {
			const char *sets[] = {runs[i][0], runs[i][1], runs[i][2], "parallel.dp=1", ms[j], NULL};
			load_and_run("systems.json", sets, 0);
			ck_assert(dc_step_uneven_1f1b(&run_plan));
			ck_extends(j ? 2003 : 2000, prefix[i][j], periods[i][j]);
		}
}
END_TEST

START_TEST(test_uneven_1f1b_past_its_extension_takes_the_closed_form)
{
	/* Where the extension does not apply the step takes 1F1B's closed
	 * form, a lower bound, and says so (dc_step f1b_closed_form: the
	 * report's warning). pp 130 (131 layers, stage 0 two of them), 1000
	 * microbatches, the bound lowered to 256 chunks: the prefix, 870
	 * microbatches (6 pp - 1 = 779 raised to 1000's class modulo 130:
	 * 1000 = 90, 779 = 129), fits 2^18 chunks, but its max-plus state is
	 * 2 pp - 1 ends and the constant, 260, above INTER_MAX_STATE (257:
	 * pp 128 at most): no extension. Against the whole schedule (130,000
	 * chunks, within the default bound): the form is at most the timeline
	 * (docs/step-model.md, "Uneven 1F1B stages").
	 *
	 * pp 120 extends now: until stop 67 every max-plus form of the
	 * prefix was kept, 120 x 760 chunks x 2 ops x 241 ends x 8 B =
	 * 351,686,400 B by inter_prefix's estimate, above the 256 MiB it
	 * allowed, and it took this closed form; the forms in flight alone
	 * are kept now. The prefix by hand: 719 raised to 1000's class
	 * modulo 120 (40; 719 = 119), 760; (1000 - 760) / 120 = 2 periods. */
	char layers[600] = "parallel.pipeline_layers=[2";
	const char *sets[] = {"parallel.pp=130", "cluster.num_nodes=130", "parallel.dp=1", "model.num_layers=131",
			      layers, "training.grad_accum_steps=1000", NULL};
	char layers120[600] = "parallel.pipeline_layers=[2";
	const char *sets120[] = {"parallel.pp=120", "cluster.num_nodes=120", "parallel.dp=1", "model.num_layers=121",
				 layers120, "training.grad_accum_steps=1000", NULL};
	for (int i = 1; i < 130; i++)
		strcat(layers, ",1");
	strcat(layers, "]");
	for (int i = 1; i < 120; i++)
		strcat(layers120, ",1");
	strcat(layers120, "]");
	load_and_run("systems.json", sets, 0);
	ck_assert(dc_step_uneven_1f1b(&run_plan));
	ck_assert(!run_res.step.f1b_closed_form);
	ck_falls_back();
	load_and_run("systems.json", sets120, 0);
	ck_assert(dc_step_uneven_1f1b(&run_plan));
	ck_extends(1000, 760, 2);
}
END_TEST

START_TEST(test_zb_bound_extends_the_steady_state)
{
	/* ZB-H1 past the step's bound (docs/step-model.md, "ZB-H1 past the
	 * bound"): as uneven 1F1B, a prefix and the max-plus power of its
	 * steady period, whose units are triples (F, BX, W) from the forward
	 * of microbatch pp - 1 on every stage (gen_zb). The prefix by hand:
	 * stage 0's pp - 1 warm-up forwards and 5 pp steady triples (m' - pp
	 * + 1 of them), 6 pp - 1 microbatches raised to m's class modulo pp,
	 * the same counts as 1F1B's (test_uneven_1f1b_bound_extends_the_
	 * steady_state); equal stages on pp 2, unequal on 4 and 8, with the
	 * course config's sends between nodes, and equal stages on pp 8 at
	 * 1 Gb/s, whose sends outlast a W: there the closed form, which the
	 * step took past the bound before stop 57, is 66% short (at 40,000
	 * microbatches 4,828 s against 14,325 s). Against the whole schedule,
	 * the bound lowered to 256 chunks, within 1e-12. */
	static const char *const runs[][3] = {
		{"parallel.pp=2", "cluster.num_nodes=2", NULL},
		{"parallel.pp=4", "cluster.num_nodes=4", "parallel.pipeline_layers=[10,8,8,6]"},
		{"parallel.pp=8", "cluster.num_nodes=8", "parallel.pipeline_layers=[8,2,4,7,2,1,7,1]"},
		{"parallel.pp=8", "cluster.num_nodes=8", "cluster.inter_node.bandwidth=1 Gb/s"},
	};
	static const char *const ms[] = {"training.grad_accum_steps=2000", "training.grad_accum_steps=2003"};
	static const uint64_t prefix[][2] = {{12, 11}, {24, 23}, {48, 51}, {48, 51}};
	static const uint64_t periods[][2] = {{994, 996}, {494, 495}, {244, 244}, {244, 244}};
	for (size_t i = 0; i < 4; i++)
		for (size_t j = 0; j < 2; j++) {
			const char *sets[] = {"parallel.pipeline_schedule=zero_bubble", "parallel.dp=1", ms[j],
					      runs[i][0], runs[i][1], runs[i][2], NULL};
			load_and_run("systems.json", sets, 0);
			ck_extends(j ? 2003 : 2000, prefix[i][j], periods[i][j]);
		}
}
END_TEST

START_TEST(test_zb_past_its_extension_takes_the_closed_form)
{
	/* Where the extension does not apply, ZB-H1 takes its closed form
	 * and says so (dc_step f1b_closed_form: the report's warning). pp 130
	 * on 130 layers, 1000 microbatches, the bound lowered to 256 chunks:
	 * the prefix (870 microbatches, as 1F1B's) fits, but its max-plus
	 * state, 2 pp - 1 ends and the constant, 260, is above
	 * INTER_MAX_STATE (257). The course config's sends outlast half a W
	 * here, so the form is short of the timeline (docs/step-model.md,
	 * "ZB-H1"): at most it, within 10%. pp 120 extends (until stop 67 its
	 * forms, 120 x 760 x 3 x 241 x 8 B = 527,529,600 B by inter_prefix's
	 * estimate, were above the 256 MiB it allowed): 760 microbatches, 2
	 * periods. */
	const char *sets[] = {"parallel.pp=130", "cluster.num_nodes=130", "parallel.dp=1", "model.num_layers=130",
			      "parallel.pipeline_schedule=zero_bubble", "training.grad_accum_steps=1000", NULL};
	const char *sets120[] = {"parallel.pp=120", "cluster.num_nodes=120", "parallel.dp=1", "model.num_layers=120",
				 "parallel.pipeline_schedule=zero_bubble", "training.grad_accum_steps=1000", NULL};
	load_and_run("systems.json", sets, 0);
	ck_assert(!run_res.step.f1b_closed_form);
	ck_falls_back();
	load_and_run("systems.json", sets120, 0);
	ck_extends(1000, 760, 2);
	{
		/* within DC_STEP_SIM_AGAIN times the bound the whole schedule
		 * instead (a review found the form 86-92% short at pp 96 on slow
		 * links): 3000 microbatches, 390,000 chunks, past 2^18 and within
		 * 2 x 2^18, at the default bound, against a bound the schedule fits
		 * whole (2^23), bit for bit */
		const char *more[] = {"parallel.pp=130", "cluster.num_nodes=130", "parallel.dp=1", "model.num_layers=130",
				      "parallel.pipeline_schedule=zero_bubble", "training.grad_accum_steps=3000", NULL};
		struct dc_step_bound big = {.max_chunks = UINT64_C(1) << 23};
		struct dc_step_bound def = {.max_chunks = DC_STEP_SIM_MAX_CHUNKS};
		struct dc_step sb, sd;
		load_and_run("systems.json", more, 0);
		ck_assert(!run_res.step.f1b_closed_form);
		bounded_pair(&sb, &big, &sd, &def);
		ck_assert(!big.again && def.again && !def.f1b_closed_form && !sd.f1b_closed_form);
		ck_assert_uint_eq(def.m_simulated, 3000);
		ck_assert(sd.time_s == sb.time_s && run_res.step.time_s == sb.time_s);
		{
			/* and the trace the same way, so that its step is the
			 * report's (it took the closed form's prefix before) */
			struct dc_step_show show = {.microbatches = 4, .max_chunks = DC_STEP_SIM_MAX_CHUNKS};
			struct dc_step st;
			const char *err = NULL;
			uint64_t events = 0;
			ck_assert_int_eq(dc_step_trace(&run_plan, &run_res.compute, &run_res.comm, &run_res.flops,
						       &run_res.batch, &st, &show, NULL, count_events, &events, &err),
					 0);
			ck_assert_uint_gt(events, 0);
			ck_assert(!show.from_closed_form && show.m_simulated == 3000);
			ck_assert(st.time_s == sb.time_s);
		}
	}
	{
		/* the edge of the whole simulation, DC_STEP_SIM_AGAIN x 2^18 =
		 * 524,288 chunks: 130 x 4,032 = 524,160 is simulated whole,
		 * 130 x 4,033 = 524,290 takes the closed form (at 16 x 2^18, until
		 * stop 66, a fuzzer's pp 120, m 20,000 ran 51 s under ASan) */
		const char *edge[] = {"parallel.pp=130", "cluster.num_nodes=130", "parallel.dp=1", "model.num_layers=130",
				      "parallel.pipeline_schedule=zero_bubble", "training.grad_accum_steps=4032", NULL};
		const char *past[] = {"parallel.pp=130", "cluster.num_nodes=130", "parallel.dp=1", "model.num_layers=130",
				      "parallel.pipeline_schedule=zero_bubble", "training.grad_accum_steps=4033", NULL};
		struct dc_step_bound def = {.max_chunks = DC_STEP_SIM_MAX_CHUNKS};
		struct dc_step sd;
		const char *err = NULL;
		ck_assert_uint_eq(DC_STEP_SIM_AGAIN * DC_STEP_SIM_MAX_CHUNKS, 524288);
		load_and_run("systems.json", edge, 0);
		ck_assert(!run_res.step.f1b_closed_form);
		ck_assert_int_eq(dc_step_compute_bounded(&run_plan, &run_res.compute, &run_res.comm, &run_res.flops,
							 &run_res.batch, &sd, &def, &err),
				 0);
		ck_assert(def.again && !def.f1b_closed_form);
		ck_assert_uint_eq(def.m_simulated, 4032);
		load_and_run("systems.json", past, 0);
		ck_assert(run_res.step.f1b_closed_form);
	}
}
END_TEST

START_TEST(test_trace_extended_prefix_is_the_schedule)
{
	/* The trace above its bound for the schedules without a closed form
	 * (DualPipe, DualPipeV, uneven interleaved chunks; step.h
	 * dc_step_trace): the step's bound, a prefix and every stage's end
	 * moved on by its steady state. The shown ops must be the whole
	 * schedule's, the summaries the same op counts, every stage's end (the
	 * summary's) the same to within 1e-12. The course model, pp 4, 2000
	 * microbatches, 4 shown, against the whole schedule (max_chunks
	 * large), the bound lowered to 256 chunks. The prefix by hand:
	 * DualPipe and DualPipeV take 2 (4 + 4 pp) = 40 microbatches at least
	 * (the trace's: 40 x 2pp = 320 chunks), the least steady phase (54
	 * DualPipe, 31 DualPipeV), the pairs left out a multiple of 840:
	 * (2000 - 54) / 2 = 973 -> 840 pairs, 2000 - 1680 = 320; DualPipeV
	 * 1960 -> 1680, 320. Uneven interleaved v 2 [10, 8, 8, 6]: 24
	 * microbatches (test_uneven_interleaved_bound_extends_the_steady_state;
	 * the trace's (1 + 3) 4 = 16 is less), (2000 - 24) / 4 = 494 periods.
	 * Uneven 1F1B [10, 8, 8, 6], which the step and the trace simulate
	 * whole up to 2^18 chunks, at 70,000 microbatches (280,000 chunks):
	 * 24 microbatches (6 pp - 1 = 23 raised to 70,000's class modulo 4;
	 * the trace's 4 + pp = 8 is less), (70,000 - 24) / 4 = 17,494. Its
	 * ends within 1e-10: the whole simulation rounds 140,000 sums along a
	 * stage, up to about 140,000 half-ulps (1.6e-11) apart from the
	 * power's (2.4e-12 measured). ZB-H1 on equal stages at 70,000
	 * microbatches the same way: its prefix is 1F1B's (steady_units),
	 * 24 microbatches, 17,494 periods of 3 pp ops each a stage. */
	static const char *const runs[][3] = {
		{"parallel.pipeline_schedule=dualpipe", "parallel.virtual_pipeline=1", NULL},
		{"parallel.pipeline_schedule=dualpipev", "parallel.virtual_pipeline=1", NULL},
		{"parallel.virtual_pipeline=2", "parallel.pipeline_layers=[10,8,8,6]", NULL},
		{"parallel.pipeline_layers=[10,8,8,6]", "training.grad_accum_steps=70000", NULL},
		{"parallel.pipeline_schedule=zero_bubble", "training.grad_accum_steps=70000", NULL},
	};
	static const uint64_t msim[] = {320, 320, 24, 24, 24}, periods[] = {840, 1680, 494, 17494, 17494};
	static struct shown whole, prefix;
	for (size_t i = 0; i < 5; i++) {
		const char *sets[] = {"parallel.pp=4", "parallel.dp=1", "cluster.num_nodes=4",
				      "training.grad_accum_steps=2000", runs[i][0], runs[i][1], NULL};
		struct dc_step_show a = {.microbatches = 4, .max_chunks = 1 << 20};
		struct dc_step_show b = {.microbatches = 4, .max_chunks = 256};
		struct dc_step sa, sb;
		const char *err = NULL;
		load_and_run("systems.json", sets, 0);
		memset(&whole, 0, sizeof(whole));
		memset(&prefix, 0, sizeof(prefix));
		ck_assert_int_eq(dc_step_trace(&run_plan, &run_res.compute, &run_res.comm, &run_res.flops, &run_res.batch,
					       &sa, &a, NULL, collect_shown, &whole, &err),
				 0);
		ck_assert_int_eq(dc_step_trace(&run_plan, &run_res.compute, &run_res.comm, &run_res.flops, &run_res.batch,
					       &sb, &b, NULL, collect_shown, &prefix, &err),
				 0);
		ck_assert(!a.extended && !b.from_closed_form);
		ck_assert_uint_eq(a.m_simulated, i >= 3 ? 70000 : 2000);
		ck_assert(b.extended);
		ck_assert_uint_eq(b.m_simulated, msim[i]);
		ck_assert_uint_eq(b.periods, periods[i]);
		ck_rel_tol(sa.time_s, sb.time_s, sa.time_s, i >= 3 ? 1e-10 : 1e-12, "time_s");
		ck_assert_uint_eq(whole.n, prefix.n);
		ck_assert_uint_gt(whole.n, 0);
		for (size_t k = 0; k < whole.n; k++) {
			ck_assert_uint_eq(whole.ev[k].stage, prefix.ev[k].stage);
			ck_assert_str_eq(whole.ev[k].name, prefix.ev[k].name);
			ck_assert_double_eq_tol(whole.ev[k].start_s, prefix.ev[k].start_s, 1e-12 * (1 + whole.ev[k].start_s));
			ck_assert_double_eq_tol(whole.ev[k].duration_s, prefix.ev[k].duration_s, 1e-12);
		}
		for (uint64_t s = 0; s < 4; s++) {
			ck_assert(whole.summary[s] && prefix.summary[s]);
			ck_assert_uint_eq(whole.summarised[s], prefix.summarised[s]);
			ck_rel_tol(whole.summary_end[s], prefix.summary_end[s], whole.summary_end[s], i >= 3 ? 1e-10 : 1e-12,
				   "the stage's end");
			ck_rel_tol(whole.summary_busy[s], prefix.summary_busy[s], whole.summary_end[s],
				   i >= 3 ? 1e-10 : 1e-12, "the summary's busy time");
		}
	}
}
END_TEST

START_TEST(test_trace_memory_held_by_hand)
{
	/* The memory counter's held microbatches under 1F1B, pp 2, 4
	 * microbatches (the course model, dp 1 on 2 nodes of 4), by hand: a
	 * forward holds its microbatch from its start, a backward frees it at
	 * its end; a point at each op's start and end (f: forward or idle, b:
	 * backward). Stage 0 runs F0 F1 B0 F2 B1 F3 B2 B3:
	 *   F0 1f 1f  F1 2f 2f  B0 2b 1f  F2 2f 2f  B1 2b 1f  F3 2f 2f
	 *   B2 2b 1f  B3 1b 0 (after)
	 * at most 2, the ledger's in-flight count min(pp - 0, m) = 2
	 * (memory.h). Stage 1 (no warm-up) F0 B0 F1 B1 F2 B2 F3 B3:
	 *   F 1f 1f  B 1b 0f, four times, the last end 0 (after)
	 * at most 1 = min(2 - 1, 4). */
	static const uint64_t held0[] = {1, 1, 2, 2, 2, 1, 2, 2, 2, 1, 2, 2, 2, 1, 1, 0};
	static const enum dc_step_mem mem0[] = {
		DC_STEP_MEM_FORWARD, DC_STEP_MEM_FORWARD,  DC_STEP_MEM_FORWARD, DC_STEP_MEM_FORWARD,
		DC_STEP_MEM_BACKWARD, DC_STEP_MEM_FORWARD, DC_STEP_MEM_FORWARD, DC_STEP_MEM_FORWARD,
		DC_STEP_MEM_BACKWARD, DC_STEP_MEM_FORWARD, DC_STEP_MEM_FORWARD, DC_STEP_MEM_FORWARD,
		DC_STEP_MEM_BACKWARD, DC_STEP_MEM_FORWARD, DC_STEP_MEM_BACKWARD, DC_STEP_MEM_AFTER};
	static const uint64_t held1[] = {1, 1, 1, 0, 1, 1, 1, 0, 1, 1, 1, 0, 1, 1, 1, 0};
	const char *sets[] = {"parallel.pp=2", "parallel.dp=1", "training.grad_accum_steps=4", NULL};
	struct dc_step_show a = {.microbatches = 32, .max_chunks = 1 << 20};
	static struct shown x;
	struct dc_step st;
	const char *err = NULL;
	load_and_run("systems.json", sets, 0);
	memset(&x, 0, sizeof(x));
	ck_assert_int_eq(dc_step_trace(&run_plan, &run_res.compute, &run_res.comm, &run_res.flops, &run_res.batch, &st,
				       &a, NULL, collect_shown, &x, &err),
			 0);
	ck_assert(!x.summary[0] && !x.summary[1]);
	ck_assert_uint_eq(x.nheld[0], sizeof(held0) / sizeof(held0[0]));
	for (size_t k = 0; k < x.nheld[0]; k++) {
		ck_assert_msg(x.held[0][k] == held0[k] && x.mem[0][k] == mem0[k], "stage 0 point %zu: held %llu mem %d",
			      k, (unsigned long long)x.held[0][k], (int)x.mem[0][k]);
	}
	ck_assert_uint_eq(x.nheld[1], sizeof(held1) / sizeof(held1[0]));
	for (size_t k = 0; k < x.nheld[1]; k++)
		ck_assert_uint_eq(x.held[1][k], held1[k]);
	ck_assert_uint_eq(dc_pipeline_in_flight(2, 0, 4), 2);
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

/* A bucket's second sum (HSDP's across the replicas, DualPipe's with the
 * mirror) runs right after the reduction it follows, in the same call,
 * however that reduction is spelled: on configs/mixtral-8x7b-ep.json at ep
 * 1, ZeRO-1 with dp_replicate = dp = 4 shards nothing (a shard group of
 * one rank), so its rows are DDP's, an AllReduce of each whole bucket over
 * the 4 replicas, and the step must be the one of sharding "none" (whose
 * AllReduce is the DDP row itself), under 1F1B and under DualPipe, where
 * the mirror's sum follows that AllReduce (a review found it queued behind
 * every replica call, 7.6% apart): the trace shows each mirror call right
 * after its bucket's, none on its own */
struct resum_count {
	uint64_t followed, alone;
};

static int count_resums(void *ctx, const struct dc_step_event *e)
{
	struct resum_count *x = ctx;
	if (e->stage != 0 || e->kind != DC_EV_SPAN || e->track != DC_TRACK_DP)
		return 0;
	x->followed += strstr(e->name, "then all_reduce (with the mirror rank)") != NULL;
	x->alone += strstr(e->name, "mirror gradient sum") != NULL;
	return 0;
}

START_TEST(test_resums_follow_their_bucket)
{
	static const char *const sched[] = {"parallel.pipeline_schedule=1f1b", "parallel.pipeline_schedule=dualpipe"};
	for (int i = 0; i < 2; i++) {
		const char *hsdp[] = {"cluster.gpu=h100-sxm5-80gb", "parallel.ep=1", sched[i], "parallel.dp_replicate=4",
				      NULL};
		const char *none[] = {"cluster.gpu=h100-sxm5-80gb", "parallel.ep=1", sched[i], "parallel.sharding=none",
				      NULL};
		double t;
		run_config("mixtral-8x7b-ep.json", hsdp);
		t = run_res.step.time_s;
		ck_assert_uint_eq(run_res.comm.s[DC_STRAT_DP].coll[0].what, DC_CW_REPLICA_GRAD_BUCKET);
		if (i == 1) {
			/* the trace: every mirror call right after its bucket's
			 * AllReduce across the replicas, none on its own */
			struct resum_count rc = {0, 0};
			struct dc_step_show show = {.microbatches = 2, .max_chunks = 1u << 20};
			struct dc_step st;
			const char *err = NULL;
			uint64_t calls = 0;
			const struct dc_comm_strategy *dp = &run_res.comm.s[DC_STRAT_DP];
			for (uint64_t j = 0; j < dp->ncoll; j++)
				if (dp->coll[j].what == DC_CW_MIRROR_GRAD_BUCKET ||
				    dp->coll[j].what == DC_CW_MIRROR_EXPERT_GRAD_BUCKET)
					calls += dp->coll[j].count;
			ck_assert_int_eq(dc_step_trace(&run_plan, &run_res.compute, &run_res.comm, &run_res.flops,
						       &run_res.batch, &st, &show, NULL, count_resums, &rc, &err),
					 0);
			ck_assert_uint_gt(calls, 0);
			ck_assert_uint_eq(rc.followed, calls);
			ck_assert_uint_eq(rc.alone, 0);
		}
		run_config("mixtral-8x7b-ep.json", none);
		ck_assert_uint_eq(run_res.comm.s[DC_STRAT_DP].coll[0].what, DC_CW_GRAD_BUCKET);
		ck_assert_double_eq_tol(t, run_res.step.time_s, 1e-12 * t);
	}
}
END_TEST

/* Every shipped config (on an A100 where it names no GPU): the closed form
 * and the timeline within 0.5% of each other, and every class's parts
 * adding up to the step. */
static const char *const shipped[] = {"gpt2.json", "korthikanti-175b.json", "korthikanti-1t.json",
				      "korthikanti-22b.json", "korthikanti-530b.json", "llama-3-8b.json",
				      "mixtral-8x7b-ep.json", "systems.json", "deepseek-v3-bridge-h100.json"};

/* The step just run (run_res) against its timeline: within 0.5%, and
 * every class's parts adding up to the step. */
static void closed_vs_timeline_one(const char *name, const char *schedule)
{
	struct dc_step tl;
	const char *err = NULL;
	double closed = run_res.step.time_s;
	ck_assert_int_eq(dc_step_timeline(&run_plan, &run_res.compute, &run_res.comm, &run_res.flops, &run_res.batch,
					  &tl, NULL, NULL, NULL, &err),
			 0);
	ck_assert_msg(fabs(tl.time_s - closed) <= 0.005 * tl.time_s, "%s %s: closed %.9g s, timeline %.9g s", name,
		      schedule, closed, tl.time_s);
	for (uint64_t c = 0; c < run_res.step.nclasses; c++) {
		const struct dc_step_class *k = &run_res.step.classes[c];
		double sum = k->compute_s + k->bubble_s + k->tail_wait_s + k->optimizer_s;
		for (int j = 0; j < DC_STRAT_COUNT; j++)
			sum += k->exposed_s[j];
		ck_assert_msg(fabs(sum - k->total_s) <= 1e-9 * k->total_s, "%s %s class %llu: parts %.12g, total %.12g",
			      name, schedule, (unsigned long long)c, sum, k->total_s);
		ck_assert_double_eq(k->total_s, closed);
	}
}

/* Every shipped config under its own schedule and under each other one
 * its layout allows (the loader's rules; zero_bubble, dualpipe and
 * dualpipev with virtual_pipeline 1): the closed form (ZB-H1's paths;
 * DualPipe's is the simulation) against the timeline. Returns how many
 * (config, schedule) pairs ran. */
static const char *const schedules[] = {NULL, "parallel.pipeline_schedule=zero_bubble",
					"parallel.pipeline_schedule=dualpipe", "parallel.pipeline_schedule=dualpipev"};

static int closed_vs_timeline(const char *const *sets)
{
	int ran = 0;
	for (size_t i = 0; i < sizeof(shipped) / sizeof(shipped[0]); i++)
		for (size_t k = 0; k < sizeof(schedules) / sizeof(schedules[0]); k++) {
			const char *with[8];
			int loaded = 0;
			/* as shipped, then on an A100 where it names no GPU */
			for (int gpu = 0; gpu < 2 && !(loaded && run_res.step.available); gpu++) {
				size_t n = 0;
				if (gpu)
					with[n++] = "cluster.gpu=a100-sxm4-80gb";
				for (size_t j = 0; sets && sets[j] && n < 4; j++)
					with[n++] = sets[j];
				if (schedules[k]) {
					with[n++] = schedules[k];
					with[n++] = "parallel.virtual_pipeline=1";
				}
				with[n] = NULL;
				loaded = load_and_run(shipped[i], with, schedules[k] != NULL);
				if (!loaded)
					break; /* the schedule does not fit this layout */
			}
			if (!loaded)
				continue;
			ck_assert_msg(run_res.step.available, "%s: no step time", shipped[i]);
			closed_vs_timeline_one(shipped[i], schedules[k] ? schedules[k] : "as shipped");
			ran++;
		}
	return ran;
}

/* configs/NAME with `sets`, its step with `memo` lent to the plan (NULL:
 * none), into *out */
static void step_with(const char *name, const char *const *sets, struct dc_step_memo *memo, struct dc_step *out)
{
	load_and_run(name, sets, 0);
	run_plan.step_memo = memo;
	if (dc_estimate(&run_plan, DC_EST_BIT(DC_EST_STEP), &run_res) != 0)
		ck_abort_msg("%s: %s", name, run_res.error);
	*out = run_res.step;
}

/* A search's step (plan.h step_rank_only) is the report's time, token
 * rates and MFU bit for bit, on every schedule the closed form and the
 * timeline compose; the figures a search never reads are left out (no
 * classes, no path, no HFU). */
START_TEST(test_step_rank_only_same_figures)
{
	static const char *const interleaved[] = {"parallel.virtual_pipeline=2", NULL};
	static const char *const zb[] = {"parallel.pipeline_schedule=zero_bubble", "parallel.virtual_pipeline=1", NULL};
	static const char *const dualpipe[] = {"parallel.pipeline_schedule=dualpipe", "parallel.virtual_pipeline=1",
					       NULL};
	static const char *const fsdp[] = {"parallel.sharding=fsdp", NULL};
	static const struct {
		const char *name;
		const char *const *sets;
	} runs[] = {
		{"korthikanti-175b.json", NULL}, {"korthikanti-175b.json", interleaved}, {"korthikanti-175b.json", zb},
		{"korthikanti-175b.json", dualpipe}, {"korthikanti-175b.json", fsdp}, {"systems.json", NULL},
	};
	static struct dc_step full, only;
	for (size_t i = 0; i < sizeof(runs) / sizeof(runs[0]); i++) {
		step_with(runs[i].name, runs[i].sets, NULL, &full);
		load_and_run(runs[i].name, runs[i].sets, 0);
		run_plan.step_rank_only = 1;
		if (dc_estimate(&run_plan, DC_EST_BIT(DC_EST_STEP), &run_res) != 0)
			ck_abort_msg("%s: %s", runs[i].name, run_res.error);
		only = run_res.step;
		ck_assert_msg(full.available && only.available, "run %zu (%s): no step time", i, runs[i].name);
		ck_assert_msg(memcmp(&full.time_s, &only.time_s, sizeof(double)) == 0 &&
				      memcmp(&full.tokens_per_s_per_gpu, &only.tokens_per_s_per_gpu, sizeof(double)) == 0 &&
				      memcmp(&full.tokens_per_s, &only.tokens_per_s, sizeof(double)) == 0 &&
				      memcmp(&full.mfu, &only.mfu, sizeof(double)) == 0,
			      "run %zu (%s): %.17g s, mfu %.17g in full; %.17g s, mfu %.17g ranked only", i, runs[i].name,
			      full.time_s, full.mfu, only.time_s, only.mfu);
		ck_assert_msg(full.nclasses > 0 && full.npath > 0 && full.hfu > 0,
			      "run %zu (%s): the full step has its classes, path and hfu", i, runs[i].name);
		ck_assert_msg(only.nclasses == 0 && only.npath == 0 && only.hfu == 0,
			      "run %zu (%s): the ranked-only step left its classes, path and hfu out", i, runs[i].name);
	}
}
END_TEST

/* Run i, `name` with `sets`, priced without a step memo and with `memo`
 * (which keeps what the runs before left in it): the same step, bit for
 * bit. Returns the fresh step (static: valid until the next call). */
static const struct dc_step *same_with_memo(size_t i, const char *name, const char *const *sets,
					    struct dc_step_memo *memo)
{
	static struct dc_step fresh, memoised;
	step_with(name, sets, NULL, &fresh);
	step_with(name, sets, memo, &memoised);
	ck_assert_msg(fresh.available && memcmp(&fresh, &memoised, sizeof(fresh)) == 0,
		      "run %zu (%s): %.17g s without the memos, %.17g s with them", i, name, fresh.time_s,
		      memoised.time_s);
	return &fresh;
}

/* A search's step memo (step.h) gives every layout the step it has
 * without one, bit for bit, whatever it held before: the same layout
 * again (every input the same), a sharding that keeps the layers' costs
 * (ZeRO-1 after none: the stages' ops reused), one that does not (FSDP:
 * its gathers sit in the layers), another schedule, another model. */
START_TEST(test_step_memo_changes_nothing)
{
	static const char *const none[] = {"parallel.sharding=none", NULL};
	static const char *const zero1[] = {"parallel.sharding=zero1", NULL};
	static const char *const fsdp[] = {"parallel.sharding=fsdp", NULL};
	static const char *const zb[] = {"parallel.pipeline_schedule=zero_bubble", "parallel.virtual_pipeline=1", NULL};
	static const struct {
		const char *name;
		const char *const *sets;
	} runs[] = {
		{"korthikanti-175b.json", none}, {"korthikanti-175b.json", none}, {"korthikanti-175b.json", zero1},
		{"korthikanti-175b.json", fsdp}, {"korthikanti-175b.json", zero1}, {"korthikanti-175b.json", zb},
		{"korthikanti-530b.json", NULL}, {"korthikanti-175b.json", none},
	};
	struct dc_step_memo *memo = dc_step_memo_new();
	ck_assert_ptr_nonnull(memo);
	for (size_t i = 0; i < sizeof(runs) / sizeof(runs[0]); i++)
		same_with_memo(i, runs[i].name, runs[i].sets, memo);
	dc_step_memo_free(memo);
}
END_TEST

/* Each rank's DP calls kept across a search's layouts (step.c rank_dp's
 * dp slots) follow the comm memo's context: plans a and b are
 * configs/systems.json at tp 2, dp 2, pp 2 (stages of 8 and 24 layers,
 * gradients not overlapped), the same network, degrees, buckets and
 * parameters, so the same keys; a's dp groups sit inside a node (order
 * tp-cp-ep-dp-pp), b's across the two (pp before dp). Stage 0 (not the
 * analysed stage) syncs rows of its own. With one step, comm and network
 * memo lent to both, as a search's thread lends them, b's step keeps its
 * stage 0's calls (over the NIC); a's step after it must not take them
 * (its comm result's memo_epoch differs) and equals a's without any memo,
 * bit for bit. */
START_TEST(test_rank_dp_calls_follow_the_memo_context)
{
	static const char *const a_sets[] = {"parallel.tp=2", "parallel.dp=2", "parallel.pp=2",
					     "parallel.pipeline_layers=[8,24]", "parallel.order=tp-cp-ep-dp-pp",
					     "overlap.dp=false", NULL};
	static const char *const b_sets[] = {"parallel.tp=2", "parallel.dp=2", "parallel.pp=2",
					     "parallel.pipeline_layers=[8,24]", "parallel.order=tp-cp-ep-pp-dp",
					     "overlap.dp=false", NULL};
	static struct dc_step fresh_a, fresh_b, via;
	struct dc_step_memo *sm = dc_step_memo_new();
	struct dc_comm_memo *cm = dc_comm_memo_new();
	struct dc_net_memo *nm = calloc(1, sizeof(*nm));
	ck_assert(sm && cm && nm);
	step_with("systems.json", a_sets, NULL, &fresh_a);
	step_with("systems.json", b_sets, NULL, &fresh_b);
	ck_assert_uint_eq(run_res.comm.stage, 1);
	/* stage 0's own sync differs between the two: the test can fail */
	ck_assert(fresh_a.classes[0].exposed_s[DC_STRAT_DP] < fresh_b.classes[0].exposed_s[DC_STRAT_DP]);
	for (int i = 0; i < 3; i++) {
		load_and_run("systems.json", i == 1 ? a_sets : b_sets, 0);
		run_plan.step_memo = sm;
		run_plan.comm_memo = cm;
		run_plan.net_memo = nm;
		dc_net_memo_bind(nm, &run_plan.net);
		if (dc_estimate(&run_plan, DC_EST_BIT(DC_EST_STEP), &run_res) != 0)
			ck_abort_msg("%s", run_res.error);
		via = run_res.step;
		ck_assert_msg(memcmp(&via.time_s, i == 1 ? &fresh_a.time_s : &fresh_b.time_s, sizeof(double)) == 0,
			      "run %d: %.17g s", i, via.time_s);
		ck_assert(memcmp(&via.classes[0].exposed_s[DC_STRAT_DP],
				 i == 1 ? &fresh_a.classes[0].exposed_s[DC_STRAT_DP]
					: &fresh_b.classes[0].exposed_s[DC_STRAT_DP],
				 sizeof(double)) == 0);
	}
	dc_step_memo_free(sm);
	dc_comm_memo_free(cm);
	free(nm);
}
END_TEST

/* The simulated schedules' memos (uneven chunks, DualPipe: the op orders
 * and the last simulation, step.c) give every step what it has without
 * them, bit for bit, whatever they held before: a step alike in all the
 * simulation reads (no sharding after ZeRO-1: the last simulation
 * reused), and steps that differ from the one before in what a reuse
 * keys on: the microbatches m alone (half the batch), the op times alone
 * (full recomputation), the chunks a rank v, the send and the op times
 * (shorter sequences), the send alone (slower links between nodes: tp 8
 * within a node, no expert parallelism, so the same ops), the ranks p,
 * the schedule. A key that missed one would hand the step before's
 * schedule on, or crash. */
START_TEST(test_sim_memos_key_every_input)
{
	static const char *const none[] = {"parallel.sharding=none", NULL};
	static const char *const m64[] = {"training.global_batch_size=4096", NULL};
	static const char *const v2[] = {"parallel.virtual_pipeline=2",
					 "parallel.pipeline_layers=[1,4,4,4,4,4,4,4,4,4,4,4,4,4,4,4]", NULL};
	static const char *const slow[] = {"parallel.pipeline_schedule=dualpipe", "parallel.virtual_pipeline=1",
					   "cluster.inter_node.bandwidth=100 Gb/s", NULL};
	static const char *const fast[] = {"model.seq_length=2048", NULL};
	static const char *const full[] = {"training.recompute=full", "training.global_batch_size=4096", NULL};
	static const char *const dual[] = {"parallel.pipeline_schedule=dualpipe", "parallel.virtual_pipeline=1", NULL};
	static const char *const dual4[] = {"parallel.pipeline_schedule=dualpipe", "parallel.virtual_pipeline=1",
					    "cluster.inter_node.bandwidth=100 Gb/s", "parallel.pp=4", "parallel.dp=2", NULL};
	static const char *const dualv4[] = {"parallel.pipeline_schedule=dualpipev", "parallel.virtual_pipeline=1",
					     "cluster.inter_node.bandwidth=100 Gb/s", "parallel.pp=4", "parallel.dp=2", NULL};
	static const struct {
		const char *name;
		const char *const *sets;
	} runs[] = {
		{"deepseek-v3-bridge-h100.json", NULL}, {"deepseek-v3-bridge-h100.json", NULL},
		{"deepseek-v3-bridge-h100.json", none}, {"deepseek-v3-bridge-h100.json", m64},
		{"deepseek-v3-bridge-h100.json", full}, {"deepseek-v3-bridge-h100.json", v2},
		{"deepseek-v3-bridge-h100.json", fast},
		{"korthikanti-175b.json", dual},        {"korthikanti-175b.json", slow},
		{"korthikanti-175b.json", dual4},       {"korthikanti-175b.json", dualv4},
		{"deepseek-v3-bridge-h100.json", NULL},
	};
	struct dc_step_memo *memo = dc_step_memo_new();
	ck_assert_ptr_nonnull(memo);
	for (size_t i = 0; i < sizeof(runs) / sizeof(runs[0]); i++) {
		const struct dc_step *fresh = same_with_memo(i, runs[i].name, runs[i].sets, memo);
		if (i > 2 && i + 1 != sizeof(runs) / sizeof(runs[0])) {
			/* each run's schedule differs from the one before */
			static struct dc_step before;
			step_with(runs[i - 1].name, runs[i - 1].sets, NULL, &before);
			ck_assert_msg(memcmp(&before.time_s, &fresh->time_s, sizeof(double)) != 0,
				      "run %zu (%s): the same step time as the run before tests no key", i, runs[i].name);
		}
	}
	dc_step_memo_free(memo);
}
END_TEST

/* The course config interleaved over a slow link (tp 2, pp 4, v 8, m
 * 16, 10 Gb/s between nodes): a send outlasts a chunk's forward, so the
 * step is the simulated schedule (step.c inter_simulated), which the
 * timeline is too: 6.466 s; before stop 51 the closed form gave 8.64 s
 * against the timeline's 9.89 s, sends then priced at the crossing's
 * with four of them through the node's NIC (docs/step-model.md, "The
 * closed form") */
START_TEST(test_interleaved_slow_sends_step)
{
	const char *sets[] = {"parallel.tp=2", "parallel.pp=4", "parallel.dp=1", "parallel.virtual_pipeline=8",
			      "training.grad_accum_steps=16", "cluster.inter_node.bandwidth=10 Gb/s", NULL};
	struct dc_step tl;
	const char *err = NULL;
	run_config("systems.json", sets);
	ck_assert_int_eq(dc_step_timeline(&run_plan, &run_res.compute, &run_res.comm, &run_res.flops, &run_res.batch,
					  &tl, NULL, NULL, NULL, &err),
			 0);
	ck_assert_double_eq_tol(run_res.step.time_s, tl.time_s, 1e-12 * tl.time_s);
}
END_TEST

/* The sends by boundary (docs/step-model.md, "A send's time"): the
 * course config at tp 1, pp 8, dp 1 on its two nodes of 4 GPUs puts
 * stages 0-3 on one node and 4-7 on the other, so of the 7 boundaries
 * only 3 | 4 crosses between nodes, priced as the comm result's send
 * (c_x), the 6 others as a send inside the node (c_in, the plan's pair
 * there). The fill and the drain cross every boundary once: the step's
 * exposed pp is 2 (6 c_in + c_x). At 10 Gb/s the crossing's round trip
 * sets the steady phase, and the closed form meets the timeline (which
 * sends each op on its own boundary) under 1F1B, interleaved (v 2) and
 * ZB-H1 (simulated); pricing every boundary at the mean of the seven, as
 * stop 51's first version did, was 11-33% short of such a timeline (an
 * independent review's) */
START_TEST(test_sends_by_boundary)
{
	static const char *const sched[][2] = {{"parallel.pipeline_schedule=1f1b", "parallel.virtual_pipeline=1"},
					       {"parallel.pipeline_schedule=interleaved", "parallel.virtual_pipeline=2"},
					       {"parallel.pipeline_schedule=zero_bubble", "parallel.virtual_pipeline=1"}};
	for (size_t i = 0; i < 3; i++) {
		const char *sets[] = {"parallel.tp=1", "parallel.pp=8", "parallel.dp=1", "training.grad_accum_steps=32",
				      "cluster.inter_node.bandwidth=10 Gb/s", sched[i][0], sched[i][1], NULL};
		const struct dc_comm_strategy *pp;
		struct dc_net_choice in;
		struct dc_step tl;
		const char *err = NULL;
		double cx, sends;
		run_config("systems.json", sets);
		pp = &run_res.comm.s[DC_STRAT_PP];
		ck_assert_uint_eq(run_plan.pp_cross, 1);
		/* one send crosses at a time, stage 3's (rank 3) through the
		 * node's one NIC, not its four GPUs' */
		ck_assert_uint_eq(run_plan.group[DC_GROUP_PP_PAIR].net.concurrent, 1);
		/* the rows are the analysed stage's, the last (the head's):
		 * gradients alone without interleaving; activations too with
		 * v 2 (its first chunk's), the same message either way */
		ck_assert_uint_eq(run_res.comm.stage, 7);
		ck_assert_uint_eq(pp->coll[0].phase, i == 1 ? DC_CPHASE_FORWARD : DC_CPHASE_BACKWARD);
		cx = pp->coll[0].time_s / (double)pp->coll[0].count;
		ck_assert_int_eq(dc_net_time(&run_plan.net, DC_COLL_SEND, &run_plan.pp_pair_in, pp->coll[0].msg_bytes,
					     DC_NET_ALGO_AUTO, &in),
				 0);
		ck_assert(in.time_s < cx / 4); /* NVLink against a 10 Gb/s NIC */
		sends = 2.0 * (6.0 * in.time_s + cx);
		if (i == 0) /* the exposed sends: the fill's and the drain's */
			ck_assert_double_eq_tol(run_res.step.classes[0].exposed_s[DC_STRAT_PP], sends, 1e-12 * sends);
		ck_assert_int_eq(dc_step_timeline(&run_plan, &run_res.compute, &run_res.comm, &run_res.flops,
						  &run_res.batch, &tl, NULL, NULL, NULL, &err),
				 0);
		ck_assert_msg(fabs(run_res.step.time_s - tl.time_s) <= 1e-9 * tl.time_s, "%s: %.9g s, timeline %.9g s",
			      sched[i][0], run_res.step.time_s, tl.time_s);
	}
	/* three crossings (pp 16 on four nodes: 3 | 4, 7 | 8, 11 | 12), and a
	 * link inside the node slower than the one between (5 GB/s, PCIe
	 * class: the interleaved check takes the slower send), 1F1B and
	 * interleaved: the report is the timeline */
	{
		static const char *const more[][8] = {
			{"cluster.num_nodes=4", "parallel.tp=1", "parallel.pp=16", "parallel.dp=1", "model.num_layers=32",
			 "training.grad_accum_steps=32", "cluster.inter_node.bandwidth=10 Gb/s", NULL},
			{"cluster.num_nodes=4", "parallel.tp=1", "parallel.pp=8", "parallel.dp=2",
			 "cluster.intra_node.bandwidth=5 GB/s", "parallel.virtual_pipeline=2", "training.grad_accum_steps=16",
			 NULL},
		};
		for (size_t i = 0; i < 2; i++) {
			struct dc_step tl;
			const char *err = NULL;
			run_config("systems.json", more[i]);
			ck_assert_int_eq(dc_step_timeline(&run_plan, &run_res.compute, &run_res.comm, &run_res.flops,
							  &run_res.batch, &tl, NULL, NULL, NULL, &err),
					 0);
			ck_assert_msg(fabs(run_res.step.time_s - tl.time_s) <= 1e-9 * tl.time_s,
				      "case %zu: %.9g s, timeline %.9g s", i, run_res.step.time_s, tl.time_s);
		}
		ck_assert_uint_eq(run_plan.pp_cross, 3); /* the last: 8 stages over 4 nodes, dp 2 */
	}
}
END_TEST

START_TEST(test_closed_form_matches_timeline)
{
	/* the shipped configs as they are, and under ZB-H1 (pp > 1: 1T,
	 * 175B, 530B, Mixtral), DualPipe (even pp: 1T, 175B, Mixtral) and
	 * DualPipeV (2pp dividing the layers: 1T, 175B, Mixtral) */
	ck_assert_int_eq(closed_vs_timeline(NULL), (int)(sizeof(shipped) / sizeof(shipped[0])) + 4 + 3 + 3);
}
END_TEST

START_TEST(test_closed_form_matches_timeline_overlap_off)
{
	/* nothing hidden: the other branch of every overlap */
	const char *off[] = {"overlap.dp=false", "overlap.fsdp_prefetch=false", NULL};
	ck_assert_int_eq(closed_vs_timeline(off), (int)(sizeof(shipped) / sizeof(shipped[0])) + 4 + 3 + 3);
}
END_TEST

/* The DP bucket size on configs/systems.json (DDP, dp 2 across the
 * 400 Gb/s link, one NIC per DP group, tp 4): tiny buckets pay the latency of every call, huge
 * ones expose the whole AllReduce; 25 MiB buckets hide almost all of it. */
static double dp_exposed(const char *bucket)
{
	/* a NIC per DP group (systems.json's one NIC would be shared by the
	 * four groups, docs/network-model.md), so one bucket costs what the
	 * hand calculation below says */
	const char *sets[] = {"cluster.gpu=a100-sxm4-80gb", "cluster.nics_per_node=4", bucket, NULL};
	run_config("systems.json", sets);
	return run_res.step.classes[0].exposed_s[DC_STRAT_DP];
}

START_TEST(test_bucket_size_u_shape)
{
	double tiny = dp_exposed("parallel.bucket_size=64 KiB");
	double mid = dp_exposed("parallel.bucket_size=25 MiB");
	double huge = dp_exposed("parallel.bucket_size=64 GiB");
	double all_reduce = run_res.comm.s[DC_STRAT_DP].time_s;
	/* one bucket of everything: ready when the backward ends, all of its
	 * AllReduce shows (the comm result's time of that one call) */
	ck_assert_uint_eq(run_res.comm.s[DC_STRAT_DP].ncoll, 1);
	ck_assert_double_eq_tol(huge, all_reduce, 1e-12 * all_reduce);
	/* 25 MiB: what shows is the AllReduce of the last bucket ready
	 * after the last gradient (the network model's price of it, 0.32 ms
	 * today, is not worked here); bounded by the course ring's price of
	 * a whole 25 MiB bucket, 2 (p - 1) (alpha + ceil(M/p)/B) with p 2,
	 * 50 GB/s, 10 us: 2 x (10 us + 13,107,200 B / 50 GB/s) = 0.544 ms,
	 * and at most a rest bucket's more: under 2 x 0.544 ms */
	ck_assert_msg(mid < 2.0 * 0.54429e-3, "25 MiB buckets expose %.6g s", mid);
	ck_assert_msg(mid > 0, "the last bucket always shows");
	/* 64 KiB: 2 x 10 us of latency per call over ~52,000 calls is about
	 * 1 s: far more than the backward hides */
	ck_assert_msg(tiny > 10.0 * mid && huge > 10.0 * mid, "tiny %.6g mid %.6g huge %.6g", tiny, mid, huge);
}
END_TEST

/* Megatron-LM 2021 Eq. 4: end-to-end training time ~ 8 T P / (n X); GPT-3
 * (P 175e9, T 300e9 tokens) on n 1024 A100s at X 140 TFLOP/s: 8 x 300e9 x
 * 175e9 / (1024 x 140e12) = 2.93e6 s, about 34 days. The layout: tp 8, pp
 * 8, dp 16, batch 1536, full recompute (what Eq. 3 and X count). */
/* MFU under FP8, by hand: configs/llama-3-8b.json on H100s (cluster.gpu:
 * 989 TFLOP/s BF16, 1979 FP8 dense), precision.compute fp8. The model's
 * FLOPs per token, Korthikanti Eq. 7 counted for Llama-3-8B (L 32, h 4096,
 * 8 kv heads of 128, ffn 14336, V 128256, untied): N = 32 (2·4096² +
 * 2·4096·1024 + 3·4096·14336) + 128256·4096 = 7,504,658,432 matmul
 * parameters, 6 N + 12 L s h = 45,027,950,592 + 12,884,901,888 =
 * 57,912,852,480, times 16 × 2 × 8192 = 262,144 tokens a step, over the
 * step's time × 16 GPUs × the peak: `mfu` over the FP8 peak the linear
 * layers run at, `mfu_bf16_peak` over the BF16 one, twice as large
 * (1979 / 989); under bf16 the two are one figure. */
START_TEST(test_mfu_fp8_both_peaks)
{
	const char *fp8[] = {"cluster.gpu=h100-sxm5-80gb", "precision.compute=fp8", NULL};
	const char *bf16[] = {"cluster.gpu=h100-sxm5-80gb", NULL};
	double flops = 57912852480.0 * 262144.0, t;
	run_config("llama-3-8b.json", fp8);
	t = run_res.step.time_s;
	ck_assert(t > 0);
	ck_assert_double_eq_tol(run_res.step.mfu, flops / (t * 16 * 1979e12), 1e-12);
	ck_assert_double_eq_tol(run_res.step.mfu_bf16_peak, flops / (t * 16 * 989e12), 1e-12);
	ck_assert_double_eq_tol(run_res.step.mfu_bf16_peak / run_res.step.mfu, 1979.0 / 989.0, 1e-12);
	run_config("llama-3-8b.json", bf16);
	t = run_res.step.time_s;
	ck_assert_double_eq_tol(run_res.step.mfu, flops / (t * 16 * 989e12), 1e-12);
	ck_assert(run_res.step.mfu_bf16_peak == run_res.step.mfu);
}
END_TEST

START_TEST(test_time_to_train_gpt3)
{
	const char *sets[] = {"cluster.num_nodes=128", "parallel.dp=16", "training.grad_accum_steps=96",
			      "training.recompute=full", "parallel.sequence_parallel=false",
			      "training.total_tokens=300000000000", NULL};
	double eq4 = 8.0 * 300e9 * 175e9 / (1024.0 * 140e12);
	run_config("korthikanti-175b.json", sets);
	ck_assert_double_eq_tol(eq4 / 86400.0, 33.9, 0.05);
	ck_assert_msg(fabs(run_res.step.time_to_train_s - eq4) <= 0.15 * eq4, "time to train %.4g days, Eq. 4 %.4g",
		      run_res.step.time_to_train_s / 86400.0, eq4 / 86400.0);
	ck_assert_double_eq_tol(run_res.step.time_to_train_s,
				300e9 / run_res.step.tokens_per_s, 1e-9 * run_res.step.time_to_train_s);
}
END_TEST

/* Korthikanti et al. 2022 Table 5, iteration time (s): present work
 * (selective recompute + sequence parallelism, the configs as shipped) and
 * full recompute without sequence parallelism
 * (tests/published/korthikanti2022.h). */
START_TEST(test_korthikanti_table5)
{
	const char *full[] = {"training.recompute=full", "parallel.sequence_parallel=false", NULL};
	double sum = 0, worst = 0;
	for (size_t i = 0; i < KORTHIKANTI_TABLE5_ROWS; i++) {
		const struct korthikanti_table5_row *row = &korthikanti_table5[i];
		for (int f = 0; f < 2; f++) {
			double pub = f ? row->full_s : row->present_s, err;
			run_config(row->config, f ? full : NULL);
			err = fabs(run_res.step.time_s - pub) / pub;
			sum += err;
			if (err > worst)
				worst = err;
		}
	}
	/* the issue's goal; docs/step-model.md lists every row (mean 2.39%,
	 * max 4.11%; 2.30% before the interleaved closed form counted the
	 * waits at a change of chunk, which lengthened the full-recompute 175B
	 * and 530B rows by 0.36% and 0.96%, as their timelines ran them) */
	ck_assert_msg(sum / 8.0 <= 0.03 && worst <= 0.05, "mean %.2f%%, max %.2f%%", 100.0 * sum / 8.0,
		      100.0 * worst);
}
END_TEST

/* Korthikanti et al. 2022 section 6.3: the 530B on 2240 GPUs (dp 8,
 * batch 2240, the same 280 microbatches per pipeline) ran 39.15 s per
 * iteration against 37.83 s without data parallelism. Not fitted: the
 * model's FP32 gradient AllReduce after the flush, one call per stage as
 * Megatron-LM 2022 reduced its contiguous buffer (allreduce_gradients,
 * megatron/model/distributed.py lines 205-235 at a84d3ce), makes up about
 * half the difference (docs/step-model.md): -5.9%, bounded at 6%. */
START_TEST(test_korthikanti_530b_data_parallel)
{
	const char *dp8[] = {"cluster.num_nodes=280", "parallel.dp=8", "parallel.bucket_size=1 TiB", NULL};
	double dp1;
	run_config("korthikanti-530b.json", NULL);
	dp1 = run_res.step.time_s;
	run_config("korthikanti-530b.json", dp8);
	ck_assert_msg(run_res.step.time_s > dp1, "dp 8 %.4g s, dp 1 %.4g s", run_res.step.time_s, dp1);
	ck_assert_msg(fabs(run_res.step.time_s / 39.15 - 1) <= 0.06, "dp 8: %.4g s, published 39.15 s",
		      run_res.step.time_s);
}
END_TEST

/* Megatron-LM 2021 Table 1: TFLOP/s per GPU (Eq. 3 FLOPs over the
 * iteration time and the GPUs) of the ten rows, on the 175B config's
 * machine (A100, eager attention, dropout) with full recompute. Two
 * settings of each row:
 * - as the table has run since before issue 21 (the baseline its "no
 *   worse than today" holds the model to): micro batch 4 without a
 *   pipeline and 1 with one, v = 2 where pp x 2 divides the layers, else
 *   3, the gradients all-reduced after the flush in the default 25 MiB
 *   buckets, FP32 gradients (the config's megatron preset);
 * - as the paper's runs were launched: Megatron-LM v2.5 (e269e20064, the
 *   SC21 release), examples/sc21/run_table_1.sh and CONFIG.sh, whose
 *   README says they produced the paper's results: micro batches 16, 16,
 *   16, 8, 4, 2, 2, 1, 1, 1; --num-layers-per-virtual-pipeline-stage 5,
 *   5, 3, 1 on the 76.1B to 529.6B rows (v 3, 2, 2, 3; the 39.1B and 1T
 *   not interleaved); --DDP-impl torch without a pipeline (PyTorch DDP:
 *   25 MiB buckets reduced behind the last microbatch's backward, no_sync
 *   before it; megatron/training.py lines 246-250 and 366-369), local with
 *   one (one all_reduce of each chunk's contiguous buffer after the flush,
 *   megatron/model/distributed.py lines 188-218: one bucket larger than
 *   any stage's gradients); --fp16 without
 *   --accumulate-allreduce-grads-in-fp32, so 2-byte gradients. */
static double table1_error(int published, double *worst)
{
	static const struct {
		int heads, hidden, layers, tp, pp, gpus, batch, mb, v;
		double tflops;
	} rows[] = {
		{24, 2304, 24, 1, 1, 32, 512, 16, 1, 137},      {32, 3072, 30, 2, 1, 64, 512, 16, 1, 138},
		{32, 4096, 36, 4, 1, 128, 512, 16, 1, 142},     {48, 6144, 40, 8, 1, 256, 1024, 8, 1, 135},
		{64, 8192, 48, 8, 2, 512, 1536, 4, 1, 138},     {80, 10240, 60, 8, 4, 1024, 1792, 2, 3, 140},
		{96, 12288, 80, 8, 8, 1536, 2304, 2, 2, 148},   {128, 16384, 96, 8, 16, 1920, 2160, 1, 2, 155},
		{128, 20480, 105, 8, 35, 2520, 2520, 1, 3, 163}, {160, 25600, 128, 8, 64, 3072, 3072, 1, 1, 163},
	};
	double sum = 0;
	*worst = 0;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		char set[16][64];
		const char *sets[17];
		int dp = rows[i].gpus / (rows[i].tp * rows[i].pp), b, v, k = 0;
		double L = rows[i].layers, h = rows[i].hidden, B = rows[i].batch, x, err;
		if (published) {
			b = rows[i].mb;
			v = rows[i].v;
		} else {
			b = rows[i].pp == 1 ? 4 : 1;
			v = rows[i].pp == 1 ? 1 : rows[i].layers % (2 * rows[i].pp) == 0 ? 2 : 3;
		}
		snprintf(set[k++], 64, "model.num_layers=%d", rows[i].layers);
		snprintf(set[k++], 64, "model.hidden_size=%d", rows[i].hidden);
		snprintf(set[k++], 64, "model.num_attention_heads=%d", rows[i].heads);
		snprintf(set[k++], 64, "model.ffn_hidden_size=%d", 4 * rows[i].hidden);
		snprintf(set[k++], 64, "cluster.num_nodes=%d", rows[i].gpus / 8);
		snprintf(set[k++], 64, "parallel.tp=%d", rows[i].tp);
		snprintf(set[k++], 64, "parallel.pp=%d", rows[i].pp);
		snprintf(set[k++], 64, "parallel.dp=%d", dp);
		snprintf(set[k++], 64, "parallel.virtual_pipeline=%d", v);
		snprintf(set[k++], 64, "parallel.sequence_parallel=false");
		snprintf(set[k++], 64, "training.micro_batch_size=%d", b);
		snprintf(set[k++], 64, "training.grad_accum_steps=%d", rows[i].batch / (dp * b));
		snprintf(set[k++], 64, "training.recompute=full");
		if (published) {
			snprintf(set[k++], 64, "precision.grad_bytes=2");
			snprintf(set[k++], 64, "%s", rows[i].pp == 1 ? "overlap.dp=true" : "parallel.bucket_size=1 TiB");
		}
		for (int j = 0; j < k; j++)
			sets[j] = set[j];
		sets[k] = NULL;
		run_config("korthikanti-175b.json", sets);
		/* Eq. 3: 96 B s l h^2 (1 + s/(6h) + V/(16 l h)), s 2048, V 51200 */
		x = 96.0 * B * 2048.0 * L * h * h * (1.0 + 2048.0 / (6.0 * h) + 51200.0 / (16.0 * L * h)) /
		    (run_res.step.time_s * rows[i].gpus) / 1e12;
		err = fabs(x - rows[i].tflops) / rows[i].tflops;
		sum += err;
		if (err > *worst)
			*worst = err;
	}
	return sum / 10.0;
}

START_TEST(test_megatron_table1)
{
	double worst, mean = table1_error(0, &worst);
	/* achieved (docs/step-model.md lists every row): mean 4.65%, max 8.73%
	 * (4.87%, 9.35% before the interleaved closed form counted the waits
	 * at a change of chunk, stop 50), the four largest faster than the
	 * 2021 software ran them */
	ck_assert_msg(mean <= 0.047 && worst <= 0.088, "mean %.2f%%, max %.2f%%", 100.0 * mean, 100.0 * worst);
}
END_TEST

/* The same table as its runs were launched (table1_error above): every row
 * predicted faster than published, 4-14% (docs/step-model.md). */
START_TEST(test_megatron_table1_published_settings)
{
	double worst, mean = table1_error(1, &worst);
	/* achieved: mean 7.98%, max 14.04% (8.19%, 14.48% before the
	 * interleaved closed form counted the waits at a change of chunk, stop
	 * 50; 7.91%, 14.24% before the model's ends were priced and the A100's
	 * memory level re-fitted from 0.71 to 0.72: docs/step-model.md) */
	ck_assert_msg(mean <= 0.080 && worst <= 0.141, "mean %.2f%%, max %.2f%%", 100.0 * mean, 100.0 * worst);
}
END_TEST

/* Context parallelism on the course cluster (tp 4 x cp 2): all_gather's
 * K/V collectives are waited for, so the step exposes exactly the comm
 * result's cp time per step; ring attention (p2p) runs its sends behind
 * the layer's kernels, exposing at most that and hiding the rest. */
START_TEST(test_context_parallel_exposure)
{
	const char *ag[] = {"cluster.gpu=a100-sxm4-80gb", "parallel.dp=1", "parallel.cp=2",
			    "parallel.cp_comm_type=all_gather", NULL};
	const char *ring[] = {"cluster.gpu=a100-sxm4-80gb", "parallel.dp=1", "parallel.cp=2",
			      "parallel.cp_comm_type=p2p", NULL};
	const char *ag_sel[] = {"cluster.gpu=a100-sxm4-80gb", "parallel.dp=1", "parallel.cp=2",
				"parallel.cp_comm_type=all_gather", "training.recompute=selective", NULL};
	double cp_time, exposed, gather;
	run_config("systems.json", ag);
	cp_time = run_res.comm.s[DC_STRAT_CP].time_s;
	exposed = run_res.step.classes[0].exposed_s[DC_STRAT_CP];
	ck_assert(cp_time > 0);
	ck_assert_double_eq_tol(exposed, cp_time, 1e-9 * cp_time);
	/* selective recompute gathers each layer's K/V once more in
	 * backward (core attention rerun, TransformerEngine's gather inside
	 * it), waited for like the forward's: the step's exposed CP grows by
	 * the forward gathers' time */
	gather = run_res.comm.s[DC_STRAT_CP].coll[0].time_s;
	ck_assert_int_eq(run_res.comm.s[DC_STRAT_CP].coll[0].what, DC_CW_CP_KV_WHOLE);
	run_config("systems.json", ag_sel);
	ck_assert_double_eq_tol(run_res.step.classes[0].exposed_s[DC_STRAT_CP], exposed + gather, 1e-9 * cp_time);
	run_config("systems.json", ring);
	cp_time = run_res.comm.s[DC_STRAT_CP].time_s;
	exposed = run_res.step.classes[0].exposed_s[DC_STRAT_CP];
	ck_assert(cp_time > 0);
	ck_assert_msg(exposed >= 0 && exposed < 0.5 * cp_time, "p2p exposes %g of %g s", exposed, cp_time);
	ck_assert(run_res.step.classes[0].hidden_s >= cp_time - exposed - 1e-12);
}
END_TEST

/* overlap.ep a2a_1f1b on two MoE layers (Mixtral's shape cut to 2
 * layers, tp 2, pp 1, ep 4, m = 4 microbatches). Megatron's combined 1F1B
 * runs microbatch 0's forward alone (the one extra warm-up), then three
 * steps that each pair a forward with a backward, then the last backward
 * alone: 3 of the 4 forwards and 3 of the 4 backwards of every layer are
 * paired, a share of 3/4. A paired forward and backward of a layer expose
 * max(0, e_f + e_b - C) of their AlltoAlls e_f + e_b, C the two ops'
 * compute; the unpaired ones expose theirs whole. So per layer and
 * microbatch pair (E = e_f + e_b):
 *   compute covers the AlltoAlls (E <= C): 1/4 E exposed, the rest hidden;
 *   a slow link (E > C): 3/4 (E - C) + 1/4 E = E - 3/4 C.
 * Over 2 layers x 4 microbatches: 1/4 of the comm result's EP time, and
 * that time less 8 x 3/4 C. Without overlap.ep every AlltoAll is exposed. */
/* The critical path and the classes split the time after the pipeline the
 * same way: the kernels slowed by the buckets hidden behind them are
 * compute in a class and their own path row, the buckets' tail the
 * class's exposed dp (the path put the slowdown in the tail: 0.119 s of
 * systems.json's step against the class's 0.106 s). Two sums from two
 * code paths: at pp 1 (one class, no fill, drain or bubble) critical
 * stage + slowdown rows = compute + exposed tp, ep and cp, and the tail
 * and ZeRO's AllGather rows = exposed dp; on every config the rows tile
 * [0, step]. */
START_TEST(test_path_splits_the_tail_as_the_classes_do)
{
	static const char *const names[] = {"systems.json", "korthikanti-22b.json", "korthikanti-175b.json",
					     "deepseek-v3-bridge-h100.json", "korthikanti-1t.json"};
	int slowed = 0;
	for (size_t k = 0; k < sizeof(names) / sizeof(names[0]); k++) {
		const struct dc_step *st = &run_res.step;
		double t = 0, crit = 0, slow = 0, tail = 0;
		run_config(names[k], NULL);
		ck_assert_uint_gt(st->npath, 0);
		for (uint64_t i = 0; i < st->npath; i++) {
			const struct dc_step_path *r = &st->path[i];
			ck_assert_msg(fabs(r->start_s - t) <= 1e-12 * st->time_s, "%s: row %llu starts at %.17g, not %.17g",
				      names[k], (unsigned long long)i, r->start_s, t);
			ck_assert_double_gt(r->duration_s, 0);
			t = r->start_s + r->duration_s;
			if (strncmp(r->what, "critical stage", 14) == 0)
				crit = r->duration_s;
			else if (strncmp(r->what, "slowdown", 8) == 0)
				slow = r->duration_s;
			else if (strncmp(r->what, "gradient synchronisation", 24) == 0 ||
				 strncmp(r->what, "updated parameters all_gather", 29) == 0)
				tail += r->duration_s;
		}
		ck_assert_msg(fabs(t - st->time_s) <= 1e-12 * st->time_s, "%s: rows end at %.17g, step %.17g", names[k], t,
			      st->time_s);
		if (run_plan.layout.pp == 1) {
			const struct dc_step_class *c = &st->classes[0];
			double pipe = c->compute_s + c->exposed_s[DC_STRAT_TP] + c->exposed_s[DC_STRAT_EP] +
				      c->exposed_s[DC_STRAT_CP];
			ck_assert_uint_eq(st->nclasses, 1);
			ck_assert_double_le(fabs(crit + slow - pipe), 1e-12 * st->time_s);
			ck_assert_double_le(fabs(tail - c->exposed_s[DC_STRAT_DP]), 1e-12 * st->time_s);
			slowed += slow > 0;
		}
	}
	ck_assert_int_gt(slowed, 0); /* systems.json: 12.6 ms of slowdown */
}
END_TEST

/* torchtitan's embedding unit (audit O3; configs/llama-3-8b-torchtitan.json
 * on an H100 with compile, m 1, dp 8, fsdp2: docs/step-model.md, "FSDP's
 * embedding unit"). Each AllGather or ReduceScatter on 8 ranks runs the
 * Simple ring: 8.4 us start-up + 7 hops x 5 us = 43.4 us, plus 7 x
 * ceil(M / 8) / 450 GB/s (docs/network-model.md, "Protocols"):
 *   layer unit, 218,112,000 params: AG of 436,224,000 B 891.613333 us,
 *     RS of 872,448,000 B 1,739.826667 us;
 *   embedding unit, 525,336,576 params: AG 2,086.375573 us (forward,
 *     and again before its backward), RS 2,101,346,304 B 4,129.351147 us;
 *   [norm, lm_head], 525,340,672 params: AG 2,086.391502 us (forward
 *     only), RS 4,129.383004 us.
 * Prefetch hides every unit but the first a direction (14 ms or more of
 * compute each against 2 ms of communication). What waits: the
 * embedding's gather before the forward, 2,086.375573; layer 0's gather
 * with the head's spread over 32 layers, 891.613333 + 2,086.391502 / 32
 * = 956.813068; layer 31's backward gather with the embedding's second
 * one spread, 891.613333 + 2,086.375573 / 32 = 956.812570, and its
 * reduce-scatter with the head's, 1,739.826667 + 4,129.383004 / 32 =
 * 1,868.869886; the embedding's reduce-scatter after the backward,
 * 4,129.351147: 9,998.222243 us exposed (3,908.825247 when the root
 * unit's rows were all spread over the layers). */
START_TEST(test_fsdp_torchtitan_embedding_unit_exposed)
{
	static const char *const sets[] = {"cluster.gpu=h100-sxm5-80gb", "training.compile=true", NULL};
	run_config("llama-3-8b-torchtitan.json", sets);
	ck_assert_uint_eq(run_plan.layout.grad_accum_steps, 1);
	ck_assert_uint_eq(run_res.step.nclasses, 1);
	ck_assert_msg(fabs(run_res.step.classes[0].exposed_s[DC_STRAT_FSDP] - 9998.222243e-6) <= 1e-9,
		      "exposed fsdp %.17g", run_res.step.classes[0].exposed_s[DC_STRAT_FSDP]);
}
END_TEST

/* A layer's backward runs the next unit's gather and its own unit's
 * reduce-scatter at once, on two streams (PyTorch FSDP2), over the same
 * links: one call alone keeps the link busy, so the two take the sum of
 * their times, not the longer one's (docs/step-model.md, "FSDP: the
 * gather and the reduce-scatter share a link"). The course config with
 * FSDP over its dp 2 (tp 4, custom rules, one 400 Gb/s NIC a node shared
 * by the node's four shard groups): a layer's unit is 50,601,984
 * parameters a rank (202,375,168 / 4 + its norms' 8,192, whole on every
 * tp rank), gathered in 2 B and reduced in 2 B, so each call sends
 * 50,601,984 B a rank over the NIC at 12.5 GB/s (50 GB/s over 4 flows):
 * 4.0482 ms and its start-up, plus the root
 * unit's calls spread over the layers (the reduce-scatter's in the
 * backward, the gather's in the forward: 4.07 and 4.23 ms a layer). The
 * layer's backward kernels take 5.18 ms on the A100 preset: longer than
 * either call, shorter than both, so under the longer-call rule none of
 * the layers' backward showed and under the sum 3.12 ms a layer does,
 * 31 x 8 x 3.12 ms = 0.77 s more a step (exposed FSDP 0.536 -> 1.310 s).
 * Composed from the comm rows and the kernel times, a microbatch: the
 * first unit of each direction waits whole, every other layer shows
 * max(0, ag_f - fwd) in the forward and max(0, ag_b + rs_b - bwd) in the
 * backward. */
START_TEST(test_fsdp_gather_and_reduce_share_the_link)
{
	/* overlap.tp: the TP AllReduces behind the GEMMs, so the compute
	 * stream waits for none and the FSDP stream's window is the kernels
	 * alone ("Several streams beside the kernels") */
	static const char *const sets[] = {"parallel.sharding=fsdp", "overlap.tp=true", NULL};
	const struct dc_comm_strategy *f;
	const struct dc_work_time *w;
	double agf = 0, agb = 0, rsb = 0, per, want, got, old;
	uint64_t L, m;
	run_config("systems.json", sets);
	f = &run_res.comm.s[DC_STRAT_FSDP];
	w = &run_res.compute.dense_layer;
	L = run_plan.in->model.num_layers;
	m = run_plan.layout.grad_accum_steps;
	per = (double)(L * m);
	for (uint64_t i = 0; i < f->ncoll; i++) {
		const struct dc_coll *c = &f->coll[i];
		ck_assert_int_eq(c->link, DC_LINK_INTER); /* one link: both cross the NIC */
		if (c->kind == DC_COLL_ALL_GATHER && c->phase == DC_CPHASE_FORWARD)
			agf += c->time_s / per;
		else if (c->kind == DC_COLL_ALL_GATHER && c->phase == DC_CPHASE_BACKWARD)
			agb += c->time_s / per;
		else if (c->kind == DC_COLL_REDUCE_SCATTER)
			rsb += c->time_s / per;
	}
	/* the shapes where the two rules differ: each call shorter than the
	 * layer's backward kernels, the two together longer */
	ck_assert_double_gt(agb, 4.06e-3);
	ck_assert_double_lt(agb, 4.07e-3);
	ck_assert_double_gt(rsb, 4.23e-3);
	ck_assert_double_lt(rsb, 4.24e-3);
	ck_assert_double_lt(fmax(agb, rsb), w->bwd_s + w->recompute_s);
	ck_assert_double_lt(w->bwd_s + w->recompute_s, agb + rsb);
	want = (double)m * (agf + (double)(L - 1) * fmax(0.0, agf - w->fwd_s) + agb + rsb +
			    (double)(L - 1) * fmax(0.0, agb + rsb - w->bwd_s - w->recompute_s));
	old = (double)m * (agf + (double)(L - 1) * fmax(0.0, agf - w->fwd_s) + agb + rsb +
			   (double)(L - 1) * fmax(0.0, fmax(agb, rsb) - w->bwd_s - w->recompute_s));
	ck_assert_uint_eq(run_res.step.nclasses, 1);
	/* TP exposes the ends' calls alone, the loss's reductions and the
	 * embedding's output AllReduce (the head's gradient hides behind its
	 * GEMMs), none of a layer's: 0.301 + 1.649 ms */
	{
		const struct dc_comm_strategy *t = &run_res.comm.s[DC_STRAT_TP];
		double ends = 0;
		for (uint64_t i = 0; i < t->ncoll; i++)
			if (t->coll[i].what == DC_CW_TP_LOSS_CHUNK || t->coll[i].what == DC_CW_TP_EMBED_OUT)
				ends += t->coll[i].time_s;
		ck_assert_double_gt(ends, 1.94e-3);
		ck_assert_double_lt(ends, 1.96e-3);
		ck_assert_double_eq_tol(run_res.step.classes[0].exposed_s[DC_STRAT_TP], ends, 1e-12);
	}
	got = run_res.step.classes[0].exposed_s[DC_STRAT_FSDP];
	ck_assert_msg(fabs(got - want) <= 1e-9 * want, "exposed fsdp %.17g, by the rule %.17g (max rule %.17g)", got,
		      want, old);
	/* 31 layers x 8 microbatches x (4.07 + 4.23 - 5.18) ms */
	ck_assert_double_gt(want - old, 0.77);
	ck_assert_double_lt(want - old, 0.78);
}
END_TEST

/* The CP exposure of the last run by three rules, from the comm rows (a
 * layer's TP calls, the ends' rows apart, and its CP exchange over L
 * layers and m microbatches) and the dense layer's kernels, m L times a
 * layer's, both directions: the sends against the kernels and the TP
 * waits (*span), against the kernels alone (*kernels) */
static void cp_rules(double *span, double *kernels)
{
	const struct dc_comm_strategy *t = &run_res.comm.s[DC_STRAT_TP], *c = &run_res.comm.s[DC_STRAT_CP];
	const struct dc_work_time *w = &run_res.compute.dense_layer;
	double ml = (double)(run_plan.in->model.num_layers * run_plan.layout.grad_accum_steps);
	double tp[2] = {0, 0}, cp[2] = {0, 0}, k[2] = {w->fwd_s, w->bwd_s + w->recompute_s};
	for (uint64_t i = 0; i < t->ncoll; i++)
		if (t->coll[i].what < DC_CW_TP_LOSS_CHUNK)
			tp[t->coll[i].phase != DC_CPHASE_FORWARD] += t->coll[i].time_s / ml;
	for (uint64_t i = 0; i < c->ncoll; i++)
		cp[c->coll[i].phase != DC_CPHASE_FORWARD] += c->coll[i].time_s / ml;
	*span = ml * (fmax(0, cp[0] - (k[0] + tp[0])) + fmax(0, cp[1] - (k[1] + tp[1])));
	*kernels = ml * (fmax(0, cp[0] - k[0]) + fmax(0, cp[1] - k[1]));
}

/* Ring attention's sends (cp_comm_type p2p) beside a layer whose TP
 * calls are all waited for (torchtitan's rules without async TP:
 * DC_TP_WAIT_ALL): systems.json on H100 at tp 4, cp 2, dp 1. On 4-GPU
 * nodes TP is a node's NVLink and CP crosses the NIC: the sends run on
 * through the TP waits, so a layer shows max(0, cp - (kernels + tp)) of
 * them forward and backward; on 8-GPU nodes both ride NVLink, which the
 * TP calls keep busy, and it (at 10 GB/s, for the sends to outlast the
 * kernels) shows max(0, cp + tp - (kernels + tp)) = max(0, cp - kernels),
 * as before stop 63 (docs/step-model.md, "Several streams beside the
 * kernels"). */
START_TEST(test_side_stream_span)
{
	static const char *const apart[] = {"cluster.gpu=h100-sxm5-80gb", "parallel.cp=2", "parallel.dp=1",
					    "training.framework=torchtitan", "parallel.cp_comm_type=p2p", NULL};
	static const char *const shared[] = {"cluster.gpu=h100-sxm5-80gb", "parallel.cp=2", "parallel.dp=1",
					     "training.framework=torchtitan", "parallel.cp_comm_type=p2p",
					     "cluster.gpus_per_node=8", "cluster.num_nodes=1",
					     "cluster.intra_node.bandwidth=10 GB/s", NULL};
	double span, kernels, got;
	run_config("systems.json", apart);
	ck_assert_int_eq(run_res.comm.s[DC_STRAT_TP].link, DC_LINK_INTRA);
	ck_assert_int_eq(run_res.comm.s[DC_STRAT_CP].link, DC_LINK_INTER);
	cp_rules(&span, &kernels);
	ck_assert_uint_eq(run_res.step.nclasses, 1);
	got = run_res.step.classes[0].exposed_s[DC_STRAT_CP];
	ck_assert_msg(fabs(got - span) <= 1e-9 * kernels, "cp apart: %.12g, by the rule %.12g (kernels alone %.12g)",
		      got, span, kernels);
	ck_assert_double_lt(span, kernels - 1e-3); /* the waits hide some */
	ck_assert_double_gt(span, 0);
	run_config("systems.json", shared);
	ck_assert_int_eq(run_res.comm.s[DC_STRAT_TP].link, DC_LINK_INTRA);
	ck_assert_int_eq(run_res.comm.s[DC_STRAT_CP].link, DC_LINK_INTRA);
	cp_rules(&span, &kernels);
	got = run_res.step.classes[0].exposed_s[DC_STRAT_CP];
	ck_assert_msg(fabs(got - kernels) <= 1e-9 * kernels, "cp shared: %.12g, by the rule %.12g (waits as free %.12g)",
		      got, kernels, span);
	ck_assert_double_gt(kernels, span + 1e-3); /* the shared link hides less */
}
END_TEST

/* PyTorch's ring attention under torchtitan with cp_comm_type
 * all_gather (src/axis/cp.c): each layer waits for its K/V gathers,
 * forward and backward, and passes the FP32 dK/dV on in cp sends behind
 * the backward's kernels. systems.json on H100 at tp 4, cp 2, dp 1, on
 * 4-GPU nodes (TP on NVLink, CP over the NIC). Per layer and microbatch,
 * from the comm rows by overlap class and the dense layer's kernels:
 * forward the gathers g_f; backward the gathers g_b and of the sends r
 * what outlasts the layer's span, the kernels k_b, the TP waits t_b and
 * the gathers, which share the sends' link (docs/step-model.md, "Several
 * streams beside the kernels"):
 *   g_f + g_b + min(r, max(0, r + g_b - (k_b + t_b + g_b)))
 * At 3200 Gb/s the sends hide; at 40 Gb/s they outlast the span. */
START_TEST(test_torch_ring_sends_behind_the_backward)
{
	static const char *const links[] = {"cluster.inter_node.bandwidth=3200 Gb/s", "cluster.inter_node.bandwidth=40 Gb/s"};
	for (int l = 0; l < 2; l++) {
		const char *sets[] = {"cluster.gpu=h100-sxm5-80gb", "parallel.cp=2", "parallel.dp=1",
				      "training.framework=torchtitan", "parallel.cp_comm_type=all_gather", links[l], NULL};
		const struct dc_comm_strategy *t, *c;
		const struct dc_work_time *w;
		double ml, tp_b = 0, g_f = 0, g_b = 0, r = 0, k_b, shown, want, got;
		run_config("systems.json", sets);
		t = &run_res.comm.s[DC_STRAT_TP];
		c = &run_res.comm.s[DC_STRAT_CP];
		w = &run_res.compute.dense_layer;
		ml = (double)(run_plan.in->model.num_layers * run_plan.layout.grad_accum_steps);
		ck_assert_int_eq(c->link, DC_LINK_INTER);
		for (uint64_t i = 0; i < t->ncoll; i++)
			if (t->coll[i].what < DC_CW_TP_LOSS_CHUNK && t->coll[i].phase != DC_CPHASE_FORWARD)
				tp_b += t->coll[i].time_s / ml;
		for (uint64_t i = 0; i < c->ncoll; i++) {
			double each = c->coll[i].time_s / ml;
			if (c->coll[i].overlap == DC_OVL_RING) {
				ck_assert_int_eq(c->coll[i].what, DC_CW_CP_DKV_RING);
				r += each;
			} else if (c->coll[i].phase == DC_CPHASE_FORWARD) {
				g_f += each;
			} else {
				g_b += each;
			}
		}
		ck_assert_double_gt(r, 0);
		k_b = w->bwd_s + w->recompute_s;
		shown = fmin(r, fmax(0, r + g_b - (k_b + tp_b + g_b)));
		want = ml * (g_f + g_b + shown);
		ck_assert_uint_eq(run_res.step.nclasses, 1);
		got = run_res.step.classes[0].exposed_s[DC_STRAT_CP];
		ck_assert_msg(fabs(got - want) <= 1e-9 * want, "link %d: exposed cp %.12g, by hand %.12g", l, got, want);
		if (l == 0)
			ck_assert_double_eq(shown, 0);
		else
			ck_assert_double_gt(shown, 0);
	}
}
END_TEST

/* The streams beside the kernels (ring attention's sends under
 * cp_comm_type p2p, FSDP's prefetch) run while the layer lasts, its
 * kernels and what the compute stream waits for (TP without overlap):
 * a layer takes max(kernels + waits, cp, fsdp), so faster kernels
 * never lengthen a step (docs/step-model.md, "Several streams beside the
 * kernels"). Each was set against the kernels alone, and the waits'
 * time, in which the other streams run on, was counted twice: a user
 * trial raised cluster.matmul_efficiency from 0.75 to 0.9 on
 * systems.json at cp 2 (H100) and the step grew from 0.88547 to 0.88833 s
 * (the CP exposure +40.2 ms, TP +7.0 ms against 43.8 ms less compute).
 * Held here over the levels and the peak on the trial's three layouts:
 * cp 2 at tp 4, FSDP at tp 4, and both. */
START_TEST(test_faster_kernels_never_lengthen_the_step)
{
	static const char *const layouts[][6] = {
		{"cluster.gpu=h100-sxm5-80gb", "parallel.cp=2", "parallel.dp=1", NULL},
		{"cluster.gpu=h100-sxm5-80gb", "parallel.sharding=fsdp", NULL},
		{"cluster.gpu=h100-sxm5-80gb", "parallel.sharding=fsdp", "parallel.cp=2", "parallel.dp=2",
		 "cluster.num_nodes=4", NULL},
	};
	static const char *const levels[] = {"cluster.matmul_efficiency=0.5", "cluster.matmul_efficiency=0.6",
					     "cluster.matmul_efficiency=0.7", "cluster.matmul_efficiency=0.75",
					     "cluster.matmul_efficiency=0.8", "cluster.matmul_efficiency=0.9",
					     "cluster.matmul_efficiency=0.99"};
	static const char *const peaks[] = {"cluster.peak_flops=989 TFLOP/s", "cluster.peak_flops=1500 TFLOP/s",
					    "cluster.peak_flops=2500 TFLOP/s", "cluster.peak_flops=5000 TFLOP/s"};
	for (size_t l = 0; l < sizeof(layouts) / sizeof(layouts[0]); l++)
		for (int which = 0; which < 2; which++) {
			size_t n = which ? sizeof(peaks) / sizeof(peaks[0]) : sizeof(levels) / sizeof(levels[0]);
			double prev = 0;
			for (size_t i = 0; i < n; i++) {
				const char *sets[8];
				size_t k = 0;
				while (layouts[l][k]) {
					sets[k] = layouts[l][k];
					k++;
				}
				sets[k++] = which ? peaks[i] : levels[i];
				sets[k] = NULL;
				run_config("systems.json", sets);
				ck_assert_msg(i == 0 || run_res.step.time_s <= prev * (1 + 1e-12),
					      "layout %zu: %s gave %.9g s after %.9g s", l, sets[k - 1],
					      run_res.step.time_s, prev);
				prev = run_res.step.time_s;
			}
		}
}
END_TEST

/* FSDP under a pipeline (systems.json at tp 2 x pp 2 x dp 2, torchtitan,
 * 1F1B, m 8): torch.distributed.pipelining reduce-scatters each unit once,
 * in the stage's _post_backward after its last backward, behind no
 * compute (docs/formulas-systems.md, "FSDP"). Stage 0 ends the schedule,
 * so the step runs exactly its own reduce-scatters past the pipeline
 * span, before the optimizer (docs/step-model.md, "Each rank's own
 * gradients"): the critical path's gradient-synchronisation row is their
 * time, and stage 0's class shows it as exposed FSDP. The comm result
 * analyses stage 1, whose root unit (the untied head, 32,000 x 4,096 / 2
 * = 65,536,000 parameters, and the final norm's 4,096) holds 4,096 more
 * than stage 0's embedding unit: the two stages' 16 layer units are the
 * same calls, their last ones 8,192 B of BF16 gradients apart. */
START_TEST(test_fsdp_pipeline_reduces_after_the_last_backward)
{
	static const char *const sets[] = {"parallel.tp=2", "parallel.pp=2", "parallel.dp=2", "parallel.sharding=fsdp",
					   "training.framework=torchtitan", NULL};
	const struct dc_step *st = &run_res.step;
	struct dc_comm_strategy own;
	struct dc_stage_params r0;
	const struct dc_comm_strategy *f;
	const char *err = NULL;
	double rs = 0, rs1 = 0, row = -1;
	uint64_t calls = 0, calls1 = 0, root = 0, root1 = 0;
	run_config("systems.json", sets);
	f = &run_res.comm.s[DC_STRAT_FSDP];
	ck_assert_uint_eq(run_res.comm.stage, 1);
	ck_assert_int_eq(dc_memory_rank_params(&run_plan, 0, &r0), 0);
	ck_assert_int_eq(dc_comm_sync_rows(&run_plan, &run_res.comm, DC_STRAT_FSDP, 0, &r0, &own, &err), 0);
	for (uint64_t i = 0; i < f->ncoll; i++)
		if (f->coll[i].kind == DC_COLL_REDUCE_SCATTER) {
			calls1 += f->coll[i].count;
			rs1 += f->coll[i].time_s;
			if (f->coll[i].what == DC_CW_HEAD_GRADS)
				root1 = f->coll[i].msg_bytes;
		}
	for (uint64_t i = 0; i < own.ncoll; i++)
		if (own.coll[i].kind == DC_COLL_REDUCE_SCATTER) {
			calls += own.coll[i].count;
			rs += own.coll[i].time_s;
			if (own.coll[i].what == DC_CW_EMBED_GRADS)
				root = own.coll[i].msg_bytes;
		}
	/* each stage's 16 layer units and its root, once a step each */
	ck_assert_uint_eq(calls, 17);
	ck_assert_uint_eq(calls1, 17);
	ck_assert_uint_eq(root, 65536000ull * 2);
	ck_assert_uint_eq(root1, 65540096ull * 2);
	ck_assert_double_gt(rs, 0);
	ck_assert_double_lt(rs, rs1);
	for (uint64_t i = 0; i < st->npath; i++)
		if (strstr(st->path[i].what, "FSDP reduce_scatter"))
			row = st->path[i].duration_s;
	ck_assert_msg(fabs(row - rs) <= 1e-9 * rs, "path row %.17g, reduce-scatters %.17g", row, rs);
	ck_assert_uint_eq(st->classes[0].stage_first, 0);
	ck_assert_double_ge(st->classes[0].exposed_s[DC_STRAT_FSDP], rs * (1 - 1e-12));
	for (uint64_t k = 0; k < st->nclasses; k++) {
		const struct dc_step_class *c = &st->classes[k];
		double sum = c->compute_s + c->bubble_s + c->tail_wait_s + c->optimizer_s;
		for (int j = 0; j < DC_STRAT_COUNT; j++)
			sum += c->exposed_s[j];
		ck_assert_msg(fabs(sum - c->total_s) <= 1e-9 * c->total_s, "class %llu: parts %.17g, total %.17g",
			      (unsigned long long)k, sum, c->total_s);
	}
}
END_TEST

/* The same with stages of 8 and 24 layers: stage 0 reduce-scatters its 8
 * layer units and its embedding unit (9 calls), stage 1 its 24 and its
 * head's (25), and stage 0, which ends the schedule, waits for its own 9
 * alone past the span (stage 1's took about 2.8 times as long: the
 * analysed stage's, which every stage waited for before) */
START_TEST(test_fsdp_pipeline_each_stage_reduces_its_own_units)
{
	static const char *const sets[] = {"parallel.tp=2", "parallel.pp=2", "parallel.dp=2", "parallel.sharding=fsdp",
					   "training.framework=torchtitan", "parallel.pipeline_layers=[8,24]", NULL};
	const struct dc_step *st = &run_res.step;
	struct dc_comm_strategy own[2];
	struct dc_stage_params r;
	const char *err = NULL;
	double rs[2] = {0, 0}, row = -1;
	uint64_t calls[2] = {0, 0};
	run_config("systems.json", sets);
	ck_assert_uint_eq(run_res.comm.stage, 1);
	for (uint64_t k = 0; k < 2; k++) {
		ck_assert_int_eq(dc_memory_rank_params(&run_plan, k, &r), 0);
		ck_assert_int_eq(dc_comm_sync_rows(&run_plan, &run_res.comm, DC_STRAT_FSDP, k, &r, &own[k], &err), 0);
		for (uint64_t i = 0; i < own[k].ncoll; i++)
			if (own[k].coll[i].kind == DC_COLL_REDUCE_SCATTER) {
				calls[k] += own[k].coll[i].count;
				rs[k] += own[k].coll[i].time_s;
			}
	}
	ck_assert_uint_eq(calls[0], 9);
	ck_assert_uint_eq(calls[1], 25);
	ck_assert_double_gt(rs[1], 2.5 * rs[0]);
	/* stage 1's rows are the comm result's */
	ck_assert_double_eq(own[1].time_s, run_res.comm.s[DC_STRAT_FSDP].time_s);
	for (uint64_t i = 0; i < st->npath; i++)
		if (strstr(st->path[i].what, "FSDP reduce_scatter"))
			row = st->path[i].duration_s;
	ck_assert_msg(fabs(row - rs[0]) <= 1e-9 * rs[0], "path row %.17g, stage 0's reduce-scatters %.17g", row,
		      rs[0]);
	{
		/* under DualPipe (tp 1, dp 2, pp 4) ranks 0 and 3 both hold
		 * stages 0 and 3: the same units, torchtitan's embedding unit
		 * on each (framework.h), so the same reduce-scatters: 8 + 8
		 * layer units, the embedding's and the head's, 18 calls */
		static const char *const dual[] = {"parallel.tp=1", "parallel.dp=2", "parallel.pp=4",
						   "parallel.sharding=fsdp", "training.framework=torchtitan",
						   "parallel.pipeline_schedule=dualpipe", NULL};
		struct dc_comm_strategy end[2];
		uint64_t n[2] = {0, 0}, emb[2] = {0, 0};
		run_config("systems.json", dual);
		for (uint64_t k = 0; k < 2; k++) {
			uint64_t rank = k ? 3 : 0;
			ck_assert_int_eq(dc_memory_rank_params(&run_plan, rank, &r), 0);
			ck_assert_int_eq(
				dc_comm_sync_rows(&run_plan, &run_res.comm, DC_STRAT_FSDP, rank, &r, &end[k], &err), 0);
			for (uint64_t i = 0; i < end[k].ncoll; i++)
				if (end[k].coll[i].kind == DC_COLL_REDUCE_SCATTER) {
					n[k] += end[k].coll[i].count;
					emb[k] += end[k].coll[i].what == DC_CW_EMBED_GRADS;
				}
		}
		ck_assert_uint_eq(n[0], 18);
		ck_assert_uint_eq(n[1], 18);
		ck_assert_uint_eq(emb[0], 1);
		ck_assert_uint_eq(emb[1], 1);
		ck_assert_double_eq(end[0].time_s, end[1].time_s);
	}
}
END_TEST

/* Issue 21's context-parallel sweep against the run it comes from:
 * torchtitan's benchmarks/llama3_h100_202412_torchtitan.md (pytorch/
 * torchtitan, runs at 9dec370, December 2024), Table 2: Llama 3.1 8B on
 * one node of 8 H100 (96 GB parts: the config's 95 GiB), FSDP 8 / c, CP
 * c, sequence 32,768 c, local batch 1 (32,768 tokens a GPU a step), full
 * activation checkpointing, torch.compile and Float8; 3,890, 2,540,
 * 1,071 and 548 tokens/s a GPU, so steps 1 : 1.532 : 3.632 : 7.099 from
 * cp 1 to 8, and cp 8 in 84.5 GiB reserved. (The issue's "1 : 1.6 : 2.5
 * : 4.8" are the same file's Table 6, the 405B at TP 8 PP 8: 76 / 47,
 * 76 / 31, 76 / 16 tokens/s; this test held the 8B to them until stop 61.)
 * The goal is the right order, each ratio within 25%, and peak memory
 * within 10%. Achieved (docs/compute-model.md, "Context parallelism"),
 * K and V all-gathered as torchtitan runs them (PyTorch's ring attention,
 * since stop 64 with the query heads' K/V and the FP32 dK/dV sends):
 * 1 : 1.676 : 3.005 : 5.663 (+9.4%, -17.3%, -20.2%), 78.9 GiB (-6.6%).
 * Before the kernels were priced on a rank's s / c tokens it stepped
 * 1 : 2.7 : 8.3 : 28 and cp 8 peaked at 310 GiB. */

/* A context-parallel sweep of torchtitan's benchmark: `config` (with
 * `fixed` set) at cp 1, 2, 4, 8, FSDP over dp_cp / c, 32,768 tokens a GPU
 * (sequence 32,768 c), global batch gb_cp1 / c: each step longer than the
 * one before and within 25% of `measured`'s ratio to cp 1. Returns the cp 8
 * run's peak memory in GiB (run_plan holds that run). */
static double cp_sweep(const char *config, const char *const *fixed, int dp_cp, int gb_cp1, const double *measured)
{
	double first = 0, prev = 0;
	struct dc_results r;
	for (int i = 0; i < 4; i++) {
		int cp = 1 << i;
		char c[48], dp[48], seq[48], gb[48];
		const char *sets[16];
		size_t n = 0;
		double t, ratio;
		snprintf(c, sizeof(c), "parallel.cp=%d", cp);
		snprintf(dp, sizeof(dp), "parallel.dp=%d", dp_cp / cp);
		snprintf(seq, sizeof(seq), "model.seq_length=%d", 32768 * cp);
		snprintf(gb, sizeof(gb), "training.global_batch_size=%d", gb_cp1 / cp);
		for (; fixed && fixed[n] && n < 11; n++)
			sets[n] = fixed[n];
		sets[n++] = c;
		sets[n++] = dp;
		sets[n++] = seq;
		sets[n++] = gb;
		sets[n] = NULL;
		run_config(config, sets);
		t = run_res.step.time_s;
		ck_assert_msg(t > prev, "%s cp %d: %g s after %g s", config, cp, t, prev);
		if (i == 0)
			first = t;
		ratio = t / first;
		ck_assert_msg(fabs(ratio / measured[i] - 1.0) <= 0.25, "%s cp %d: ratio %.3f, measured %.3f", config, cp,
			      ratio, measured[i]);
		prev = t;
	}
	ck_assert_int_eq(dc_estimate(&run_plan, DC_EST_BIT(DC_EST_MEMORY), &r), 0);
	return (double)r.memory.top.peak_bytes / 1073741824.0;
}

START_TEST(test_context_parallel_sweep_ratios)
{
	/* steps 32,768 / (tokens/s a GPU): ratios 3,890 / tokens/s */
	static const double measured[] = {1.0, 3890.0 / 2540.0, 3890.0 / 1071.0, 3890.0 / 548.0};
	static const char *const fixed[] = {"cluster.gpu=h100-sxm5-80gb", "training.micro_batch_size=1",
					    "training.recompute=full", "training.framework=torchtitan",
					    "training.compile=true", "precision.compute=fp8", NULL};
	double peak = cp_sweep("llama-3-8b-torchtitan.json", fixed, 8, 8, measured);
	ck_assert_msg(fabs(peak / 84.5 - 1.0) <= 0.10, "cp 8 peak %.2f GiB, measured 84.5", peak);
}
END_TEST

/* The same file's Table 6: Llama 3.1 405B on 512 H100 at cp 1, 2, 4, 8
 * (tests/inputs/torchtitan-2024/llama-3.1-405b-cp.json: tp 8, pp 8,
 * FSDP 8 / c, 32,768 tokens a GPU, full recompute, compile, FP8, async
 * TP), 76, 47, 31 and 16 tokens/s a GPU: steps 1 : 1.617 : 2.452 : 4.750.
 * The order holds and every ratio within the goal's 25% (achieved
 * -7.2%, -2.6%, -12.4%; -15.9%, -15.1%, -25.8% before PyTorch's ring
 * attention was priced as torchtitan runs it: K/V at the query heads, the
 * FP32 dK/dV sends, docs/compute-model.md, "Context parallelism"). */
START_TEST(test_context_parallel_sweep_405b)
{
	static const double measured[] = {1.0, 76.0 / 47.0, 76.0 / 31.0, 76.0 / 16.0};
	cp_sweep("../tests/inputs/torchtitan-2024/llama-3.1-405b-cp.json", NULL, 8, 64, measured);
}
END_TEST

/* Issue 21's schedules against measured runs: Qi et al., "Zero Bubble
 * Pipeline Parallelism" (ICLR 2024, arXiv 2401.10241), Table 4, samples
 * per GPU per second on A100 SXM 80G (Megatron-LM), the four GPT models
 * of Table 3 at tp 1, dp 1, every GPU a stage, the first and last stage
 * one layer short (§5.1); tests/inputs/zero-bubble-2024 holds them with
 * what the paper leaves unstated assumed (docs/step-model.md, "Schedules
 * against measured runs"). Columns: 1F1B, 1F1B-I (one layer a chunk: v
 * the layers of a middle stage, the model's first and last chunk empty)
 * and ZB-1p, the automatic schedule under 1F1B's memory, which the paper's
 * own Table 5 finds has ZB-H1's bubble in every row: distcalc's
 * zero_bubble is ZB-H1. ZB-2p (twice 1F1B's memory) has no schedule here.
 * Both speed-ups over 1F1B hold within 25% (achieved: ZB 3.5%, 1F1B-I
 * 8.7%, asserted 5% and 10%; 1F1B-I 6.9% before stop 51, when 1F1B's
 * closed form came to count the waits for sends in its steady phase and
 * every boundary its own send: on the 14.6B and 28.3B rows 1F1B moved
 * -0.3% to +0.9%, its steady phase paced by the one boundary between
 * nodes, interleaving 0.7-1.9% faster with the cheaper sends inside a
 * node), and 1F1B is the slowest in every row. What
 * does not hold is ZB-1p against 1F1B-I: measured ZB-1p is ahead in the
 * 16- and 32-GPU rows and at 64 microbatches on 8, distcalc has 1F1B-I
 * ahead but at 32 GPUs (1.5B m 64, 6.2B m 64, all three 14.6B rows
 * wrong; 1.5B m 32 measured a tie). distcalc's interleaving gains 1.3 to
 * 5.8 times the measured gain over 1F1B, close to the paper's own profiled bubble
 * rates (Table 5), which rank 1F1B-I over ZB-H1 in the same rows: neither
 * model prices what one-layer chunks cost a real run. So the order of
 * those two is asserted only where measured and predicted agree. */
struct zb_row {
	const char *file;
	int pp, v, m;
	double f1b, interleaved, zb1p; /* samples per GPU per second */
	int zb_vs_i;			/* asserted order: 1 ZB ahead, -1 1F1B-I ahead, 0 not asserted */
};

static double zb_run(const struct zb_row *r, int sched)
{
	char path[96], m[48], v[48], layers[32 + 4 * 64] = "parallel.pipeline_layers=[0";
	const char *sets[5] = {m, NULL, NULL, NULL, NULL};
	snprintf(path, sizeof(path), "../tests/inputs/zero-bubble-2024/%s", r->file);
	snprintf(m, sizeof(m), "training.grad_accum_steps=%d", r->m);
	if (sched == 1) {
		/* pp x v one-layer chunks, chunk c of stage s entry c pp + s: the
		 * model's first (entry 0) and last hold none, the short stages */
		for (int i = 1; i < r->pp * r->v - 1; i++)
			strcat(layers, ",1");
		strcat(layers, ",0]");
		snprintf(v, sizeof(v), "parallel.virtual_pipeline=%d", r->v);
		sets[1] = v;
		sets[2] = layers;
	} else if (sched == 2)
		sets[1] = "parallel.pipeline_schedule=zero_bubble";
	run_config(path, sets);
	return run_res.step.time_s;
}

START_TEST(test_zero_bubble_schedules_measured)
{
	static const struct zb_row rows[] = {
		{"gpt-1_5b.json", 8, 3, 24, 11.8, 13.1, 12.9, -1},
		{"gpt-1_5b.json", 8, 3, 32, 12.5, 13.4, 13.4, 0},
		{"gpt-1_5b.json", 8, 3, 64, 13.6, 13.9, 14.2, 0},
		{"gpt-6_2b.json", 8, 4, 24, 3.50, 4.01, 3.88, -1},
		{"gpt-6_2b.json", 8, 4, 32, 3.70, 4.08, 4.00, -1},
		{"gpt-6_2b.json", 8, 4, 64, 4.03, 4.19, 4.20, 0},
		{"gpt-14_6b.json", 16, 3, 48, 1.40, 1.54, 1.61, 0},
		{"gpt-14_6b.json", 16, 3, 64, 1.49, 1.59, 1.67, 0},
		{"gpt-14_6b.json", 16, 3, 128, 1.64, 1.66, 1.76, 0},
		{"gpt-28_3b.json", 32, 2, 96, 0.76, 0.82, 0.87, 1},
		{"gpt-28_3b.json", 32, 2, 128, 0.80, 0.85, 0.90, 1},
		{"gpt-28_3b.json", 32, 2, 256, 0.88, 0.90, 0.96, 1},
	};
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		const struct zb_row *r = &rows[i];
		double t1 = zb_run(r, 0), ti = zb_run(r, 1), tz = zb_run(r, 2);
		/* same samples a step: the throughput ratio is the time's inverse */
		double zb = t1 / tz, il = t1 / ti;
		ck_assert_msg(zb > 1.0 && il > 1.0, "%s m %d: 1F1B not the slowest (ZB %.3f, I %.3f)", r->file, r->m,
			      zb, il);
		ck_assert_msg(fabs(zb / (r->zb1p / r->f1b) - 1.0) <= 0.05, "%s m %d: ZB-H1/1F1B %.3f, measured %.3f",
			      r->file, r->m, zb, r->zb1p / r->f1b);
		ck_assert_msg(fabs(il / (r->interleaved / r->f1b) - 1.0) <= 0.10,
			      "%s m %d: 1F1B-I/1F1B %.3f, measured %.3f", r->file, r->m, il, r->interleaved / r->f1b);
		if (r->zb_vs_i)
			ck_assert_msg((tz < ti) == (r->zb_vs_i > 0), "%s m %d: ZB-H1 %g s, 1F1B-I %g s", r->file, r->m,
				      tz, ti);
	}
}
END_TEST

static void ep_run(const char *overlap, const char *link)
{
	const char *sets[] = {"cluster.gpu=a100-sxm4-80gb", "model.num_layers=2", "parallel.pp=1",
			      "parallel.dp=16", "training.grad_accum_steps=4", overlap, link, NULL};
	run_config("mixtral-8x7b-ep.json", sets);
}

START_TEST(test_ep_a2a_1f1b_two_layers)
{
	const char *fast = "cluster.intra_node.bandwidth=300 GB/s", *slow = "cluster.intra_node.bandwidth=1 GB/s";
	double ep, E, C;
	ep_run("overlap.ep=none", fast);
	ep = run_res.comm.s[DC_STRAT_EP].time_s;
	ck_assert(ep > 0);
	ck_assert_double_eq_tol(run_res.step.classes[0].exposed_s[DC_STRAT_EP], ep, 1e-9 * ep);

	ep_run("overlap.ep=a2a_1f1b", fast);
	E = run_res.comm.s[DC_STRAT_EP].time_s / 8; /* e_f + e_b of one layer and microbatch */
	C = run_res.compute.moe_layer.fwd_s + run_res.compute.moe_layer.bwd_s + run_res.compute.moe_layer.recompute_s;
	ck_assert_msg(E <= C, "the case needs compute to cover the AlltoAlls: E %g, C %g", E, C);
	ck_assert_double_eq_tol(run_res.step.classes[0].exposed_s[DC_STRAT_EP], 0.25 * 8 * E, 1e-9 * E);

	ep_run("overlap.ep=a2a_1f1b", slow);
	E = run_res.comm.s[DC_STRAT_EP].time_s / 8;
	C = run_res.compute.moe_layer.fwd_s + run_res.compute.moe_layer.bwd_s + run_res.compute.moe_layer.recompute_s;
	ck_assert_msg(E > C, "the case needs the AlltoAlls to outlast compute: E %g, C %g", E, C);
	ck_assert_double_eq_tol(run_res.step.classes[0].exposed_s[DC_STRAT_EP], 8 * (E - 0.75 * C), 1e-9 * E);
}
END_TEST

/* The heaviest stage holds no MoE layer (check_comm's
 * test_ep_on_the_stage_with_moe_layers: configs/mixtral-8x7b-ep.json cut
 * to 7 layers, 3 dense, tp 1, pp 4 as [3, 2, 1, 1], dp 8, ep 8). One MoE
 * layer's AlltoAlls of one microbatch are 2 forward and 2 backward point
 * to point calls of 7/8 x 67,108,864 B on one node's NVLink, 13.4 us +
 * 58,720,256 / 3e11 s each, all on the critical path (overlap.ep none):
 * over 16 microbatches stage 1 (2 MoE layers) waits 128 of them,
 * 26.7691758933 ms, stages 2 and 3 (1 each) 64, stage 0 (dense) none.
 * Before, stage 0's 0 MoE layers priced every stage's at 0. */
START_TEST(test_ep_on_stages_without_the_most_parameters)
{
	const char *sets[] = {"cluster.gpu=a100-sxm4-80gb", "model.num_layers=7", "model.dense_layers=3",
			      "parallel.tp=1", "parallel.pp=4", "parallel.dp=8", "parallel.ep=8",
			      "parallel.pipeline_layers=[3,2,1,1]", NULL};
	double call = 13.4e-6 + 58720256 / 3e11;
	run_config("mixtral-8x7b-ep.json", sets);
	ck_assert_uint_eq(run_res.step.nclasses, 4);
	for (uint64_t i = 0; i < 4; i++)
		ck_assert_uint_eq(run_res.step.classes[i].stage_first, i);
	ck_assert(run_res.step.classes[0].exposed_s[DC_STRAT_EP] == 0);
	ck_assert_double_eq_tol(run_res.step.classes[1].exposed_s[DC_STRAT_EP], 128 * call, 1e-12);
	ck_assert_double_eq_tol(run_res.step.classes[2].exposed_s[DC_STRAT_EP], 64 * call, 1e-12);
	ck_assert_double_eq_tol(run_res.step.classes[3].exposed_s[DC_STRAT_EP], 64 * call, 1e-12);
}
END_TEST

/* The class that holds pipeline stage `stage` */
static const struct dc_step_class *class_of(uint64_t stage)
{
	for (uint64_t i = 0; i < run_res.step.nclasses; i++)
		if (run_res.step.classes[i].stage_first <= stage && stage <= run_res.step.classes[i].stage_last)
			return &run_res.step.classes[i];
	ck_abort_msg("no class holds stage %llu", (unsigned long long)stage);
	return NULL;
}

/* The MTP module is priced on the stage that holds the head whichever
 * stage the comm analyses (docs/step-model.md, "MTP modules"). The case
 * above with model.mtp_layers 1: stage 3 holds layer 6 (MoE), the head
 * and the module, whose layer is a MoE layer, with its own embedding
 * copy and its eh_proj. Parameters a rank holds (ep 8: one expert of
 * 3 x 4,096 x 14,336 = 176,160,768; attention 2 x 4,096^2 + 2 x 4,096 x
 * 1,024 = 41,943,040; a dense MLP 176,160,768; an embedding or head
 * 32,000 x 4,096 = 131,072,000; eh_proj 2 x 4,096^2 = 33,554,432), norms
 * and routers aside: [3, 2, 1, 1] puts the most on stage 0, 3 x
 * 218,103,808 + 131,072,000 = 785,383,424, against stage 3's 2 x
 * 218,103,808 + 2 x 131,072,000 + 33,554,432 = 731,906,048; [2, 3, 1, 1]
 * on stage 3 (stage 0 567,279,616, stage 1 654,311,424); stage 3's
 * content is the same in both. Its AlltoAlls: layer 6's and the
 * module's, 2 MoE layers x 4 calls x 16 microbatches = 128 calls of
 * 13.4 us + 58,720,256 / 3e11 s, 26.7691758933 ms, in both (before: 64
 * calls, 13.3845879467 ms, with stage 0 analysed: the module's dropped). */
START_TEST(test_mtp_priced_on_the_head_stage_whichever_is_analysed)
{
	const char *splits[2] = {"parallel.pipeline_layers=[3,2,1,1]", "parallel.pipeline_layers=[2,3,1,1]"};
	const uint64_t analysed[2] = {0, 3};
	double call = 13.4e-6 + 58720256 / 3e11;
	for (int i = 0; i < 2; i++) {
		const char *sets[] = {"cluster.gpu=a100-sxm4-80gb", "model.num_layers=7", "model.dense_layers=3",
				      "model.mtp_layers=1", "parallel.tp=1", "parallel.pp=4", "parallel.dp=8",
				      "parallel.ep=8", splits[i], NULL};
		run_config("mixtral-8x7b-ep.json", sets);
		ck_assert_uint_eq(run_res.comm.stage, analysed[i]);
		ck_assert_double_eq_tol(class_of(3)->exposed_s[DC_STRAT_EP], 128 * call, 1e-12);
		ck_assert_double_eq_tol(class_of(2)->exposed_s[DC_STRAT_EP], 64 * call, 1e-12);
	}
}
END_TEST

/* The same module's TP calls, tp 2 with sequence parallelism (dp 4, ep
 * 4: two experts a rank), on the A100 preset's NVLink: an AllGather or
 * ReduceScatter of M bytes over 2 ranks takes 13.4 us + (M / 2) / 3e11 s,
 * t = 69.3240533 us for a layer's M = 4,096 x 4,096 x 2 = 33,554,432 B,
 * t2 = 125.2481067 us for eh_proj's 2h-wide 67,108,864 B. Per layer
 * (custom framework, Mixtral's MoE MLP takes no tp call): forward the
 * attention's gather and reduce-scatter, 2t; backward the output
 * gradient's gather, t, waited for, and the input gradient's
 * reduce-scatter and the input's re-gather, hidden behind the backward's
 * GEMMs. The module's eh_proj (tp.c mtp_eh_proj), waited for: forward
 * its input gathered (t2) and its output (t), backward its output
 * gradient (t), its input gradient reduce-scattered (t2) and its input
 * re-gathered (t2). Stage 3 (layer 6 and the module's layer, both MoE,
 * and eh_proj): 16 x (2 x 3t + 3 t2 + 2t) = 16 x (8t + 3 t2) =
 * 14.8853879 ms, with stage 0 analysed ([4, 1, 1, 1]: 3 dense + 1 MoE +
 * the embedding, about 590 M parameters a rank against stage 3's 542 M) as with
 * stage 3 ([2, 3, 1, 1]). Before, with stage 0 analysed the module was
 * not priced: 16 x 3t = 3.3275546 ms.
 * The model's ends (tp.c ends_calls), per microbatch on stage 3: the head
 * and the loss run for the model and for the module, so 2 head input
 * gathers (2t) and 2 x 3 loss AllReduces of 4 x 4,096 = 16,384 B (6 t_l,
 * t_l a row's per call), waited for, and the module's lookup in the
 * shared embedding, its ReduceScatter and its gradient's gather (2t);
 * the head's 2 input-gradient reduce-scatters and 2 re-gathers hide
 * behind its GEMMs (milliseconds: asserted). Stage 3: 16 x (12t + 3 t2 +
 * 6 t_l), 16 x (12t + 3 t2) = 19.3221274 ms. */
START_TEST(test_mtp_tp_on_the_head_stage_whichever_is_analysed)
{
	const char *splits[2] = {"parallel.pipeline_layers=[4,1,1,1]", "parallel.pipeline_layers=[2,3,1,1]"};
	const uint64_t analysed[2] = {0, 3};
	double t = 13.4e-6 + 16777216 / 3e11, t2 = 13.4e-6 + 33554432 / 3e11;
	for (int i = 0; i < 2; i++) {
		const char *sets[] = {"cluster.gpu=a100-sxm4-80gb", "model.num_layers=7", "model.dense_layers=3",
				      "model.mtp_layers=1", "parallel.tp=2", "parallel.pp=4", "parallel.dp=4",
				      "parallel.ep=4", "parallel.sequence_parallel=true", splits[i], NULL};
		double tl = 0;
		run_config("mixtral-8x7b-ep.json", sets);
		ck_assert_uint_eq(run_res.comm.stage, analysed[i]);
		for (uint64_t j = 0; j < run_res.comm.tp_head.ncoll; j++)
			if (run_res.comm.tp_head.coll[j].what == DC_CW_TP_LOSS_CHUNK) {
				ck_assert_uint_eq(run_res.comm.tp_head.coll[j].msg_bytes, 16384);
				tl = run_res.comm.tp_head.coll[j].time_s / (double)run_res.comm.tp_head.coll[j].count;
			}
		ck_assert(tl > 0);
		ck_assert(run_res.compute.head.bwd_wgrad_s > 2 * t);
		ck_assert(run_res.compute.head.bwd_matmul_s - run_res.compute.head.bwd_wgrad_s > 2 * t);
		ck_assert_double_eq_tol(class_of(3)->exposed_s[DC_STRAT_TP], 16 * (12 * t + 3 * t2 + 6 * tl), 1e-12);
		ck_assert_double_eq_tol(16 * (12 * t + 3 * t2), 19.3221274e-3, 1e-10);
	}
}
END_TEST

/* A layer kind the analysed stage lacks takes its own gather formats
 * under FP8 (comm.h tp_kind; tpsplit's known gap). DeepSeek-V3 as
 * tests/inputs/deepseek-v3-dense-stage0.json at tp 2, dp 64 with
 * sequence parallelism under torchtitan's current scaling (FSDP): MLA
 * attention gathers BF16 (M = 4,096 x 7,168 x 2 = 58,720,256 B), and with
 * ep 64 so does the shared expert, so the analysed stage 15 (MoE layers,
 * the head, the MTP module and its embedding copy) sends no FP8 gather
 * and no amax reduction. A dense layer gathers its attention's input in
 * BF16 and its FC1 input in FP8 (29,360,128 B) after reducing the
 * shard's amax (4 B), and reduce-scatters twice: forward
 * t_g16 + t_g8 + 2 t_r + t_a; backward its two output gradients the
 * same way (FC2's in FP8, its amax), t_g8 + t_g16 + 2 t_r + t_a, of which
 * the reduce-scatters, 2 t_r, hide (torchtitan keeps the gathered
 * input: no re-gather). A MoE layer 2 t_g16 + 2 t_r either way. The
 * per-call times are the rows' of [4, ..., 4, 1], whose analysed stage 0
 * (3 dense layers, a MoE one, the embedding) sends both formats:
 * 90.98 us (58,720,256 B), 51.39 us (29,360,128 B), 7.80 us (4 B), so a
 * dense layer 0.3321 ms forward on both layouts (before: 0.3639 ms with
 * stage 15 analysed, 4 x 90.98 us). */
START_TEST(test_fp8_lacking_kind_takes_its_own_formats)
{
	const char *base[] = {"../tests/inputs/deepseek-v3-dense-stage0.json"};
	const char *pl = "parallel.pipeline_layers=[4,4,4,4,4,4,4,4,4,4,4,4,4,4,4,1]";
	double tg16 = 0, tg8 = 0, tr = 0, ta = 0;
	struct dc_step_tp_layer dense, moe;
	for (int i = 1; i >= 0; i--) {
		const char *sets[] = {"training.framework=torchtitan", "precision.fp8_recipe=current",
				      "parallel.sharding=fsdp", "parallel.tp=2", "parallel.dp=64",
				      "parallel.sequence_parallel=true", i ? pl : NULL, NULL};
		const struct dc_comm_strategy *s;
		run_config(base[0], sets);
		s = &run_res.comm.s[DC_STRAT_TP];
		if (i) {
			ck_assert_uint_eq(run_res.comm.stage, 0);
			for (uint64_t k = 0; k < s->ncoll; k++) {
				const struct dc_coll *c = &s->coll[k];
				double one = c->time_s / (double)c->count;
				if (c->kind == DC_COLL_ALL_GATHER && c->msg_bytes == 58720256)
					tg16 = one;
				else if (c->kind == DC_COLL_ALL_GATHER && c->msg_bytes == 29360128)
					tg8 = one;
				else if (c->kind == DC_COLL_REDUCE_SCATTER && c->msg_bytes == 58720256)
					tr = one;
				else if (c->kind == DC_COLL_ALL_REDUCE && c->msg_bytes == 4)
					ta = one;
			}
			ck_assert(tg16 > 0 && tg8 > 0 && tr > 0 && ta > 0);
		} else {
			ck_assert_uint_eq(run_res.comm.stage, 15);
			for (uint64_t k = 0; k < s->ncoll; k++)
				ck_assert(s->coll[k].kind != DC_COLL_ALL_GATHER || s->coll[k].per_layer[1] == 0 ||
					  s->coll[k].msg_bytes == 58720256);
		}
		dc_step_tp_layer_of(&run_plan, &run_res.comm, 0, &dense);
		dc_step_tp_layer_of(&run_plan, &run_res.comm, 1, &moe);
		ck_assert_double_eq_tol(dense.fwd_s, tg16 + tg8 + 2 * tr + ta, 1e-15);
		ck_assert_double_eq_tol(dense.bwd_s, tg8 + tg16 + 2 * tr + ta, 1e-15);
		ck_assert_double_eq_tol(dense.bwd_async_s, 2 * tr, 1e-15);
		ck_assert_double_eq_tol(dense.fwd_s, 0.3321e-3, 0.00005e-3);
		ck_assert_double_eq_tol(moe.fwd_s, 2 * tg16 + 2 * tr, 1e-15);
		ck_assert_double_eq_tol(moe.fwd_s, 0.3639e-3, 0.00005e-3);
	}
}
END_TEST


/* The same under full recompute: backward runs each MoE layer's forward
 * again, its dispatch and combine with it (check_comm's
 * test_ep_replayed_under_full_recompute), 2 more calls a MoE layer and
 * microbatch, waited for in backward as the others (overlap.ep none):
 * stage 1 waits 128 + 2 x 2 x 16 = 192 calls, 40.1537638400 ms, stages 2
 * and 3 64 + 32 = 96, stage 0 none. */
START_TEST(test_ep_replayed_in_the_backward)
{
	const char *sets[] = {"cluster.gpu=a100-sxm4-80gb", "model.num_layers=7", "model.dense_layers=3",
			      "parallel.tp=1", "parallel.pp=4", "parallel.dp=8", "parallel.ep=8",
			      "parallel.pipeline_layers=[3,2,1,1]", "training.recompute=full", NULL};
	double call = 13.4e-6 + 58720256 / 3e11;
	run_config("mixtral-8x7b-ep.json", sets);
	ck_assert_uint_eq(run_res.step.nclasses, 4);
	ck_assert(run_res.step.classes[0].exposed_s[DC_STRAT_EP] == 0);
	ck_assert_double_eq_tol(run_res.step.classes[1].exposed_s[DC_STRAT_EP], 192 * call, 1e-12);
	ck_assert_double_eq_tol(run_res.step.classes[2].exposed_s[DC_STRAT_EP], 96 * call, 1e-12);
	ck_assert_double_eq_tol(run_res.step.classes[3].exposed_s[DC_STRAT_EP], 96 * call, 1e-12);
}
END_TEST

/* Uneven stages (parallel.pipeline_layers [24, 8] on pp 2, tp 4): with no
 * slowdown from overlap each stage's compute per step is m x (its layers x
 * one dense layer's forward, backward and recompute, plus the embedding on
 * the first and the head on the last), composed from the compute result */
START_TEST(test_uneven_stage_compute)
{
	const char *sets[] = {"cluster.gpu=a100-sxm4-80gb", "parallel.dp=1", "parallel.pp=2",
			      "parallel.pipeline_layers=[24,8]", "overlap.compute_slowdown=0", NULL};
	const struct dc_work_time *l, *e, *h;
	double m, want0, want1;
	run_config("systems.json", sets);
	l = &run_res.compute.dense_layer;
	e = &run_res.compute.embedding;
	h = &run_res.compute.head;
	m = (double)run_plan.layout.grad_accum_steps;
	want0 = m * (24 * (l->fwd_s + l->bwd_s + l->recompute_s) + e->fwd_s + e->bwd_s + e->recompute_s);
	want1 = m * (8 * (l->fwd_s + l->bwd_s + l->recompute_s) + h->fwd_s + h->bwd_s + h->recompute_s);
	ck_assert_uint_eq(run_res.step.nclasses, 2);
	ck_assert_double_eq_tol(run_res.step.classes[0].compute_s, want0, 1e-9 * want0);
	ck_assert_double_eq_tol(run_res.step.classes[1].compute_s, want1, 1e-9 * want1);
	/* the long first stage sets the step */
	ck_assert_uint_eq(run_res.step.slowest_rank, 0);
}
END_TEST

/* The step without FLOPs (the strategies variants' step, f NULL) clears
 * the figures before its classes but leaves the classes and path arrays
 * as they were: into a struct filled with 0xa5 bytes it gives the full
 * step's time, span and rates bit for bit, no class, path, MFU or
 * schedule figure, and zero variants. In closed form (systems.json, 1F1B
 * pp 1 and Megatron's 1T at pp 64) and by the timeline (Mixtral under
 * DualPipeV). */
START_TEST(test_step_without_flops_is_the_steps_time)
{
	static const char *const cfgs[] = {"systems.json", "korthikanti-1t.json", "mixtral-8x7b-ep.json"};
	static const char *const dual[] = {"cluster.gpu=a100-sxm4-80gb", "parallel.pipeline_schedule=dualpipev", NULL};
	for (size_t i = 0; i < 3; i++) {
		static struct dc_step s;
		const char *err = NULL;
		run_config(cfgs[i], i == 2 ? dual : NULL);
		memset(&s, 0xa5, sizeof(s));
		ck_assert_int_eq(dc_step_compute(&run_plan, &run_res.compute, &run_res.comm, NULL, &run_res.batch, &s, &err),
				 0);
		ck_assert(s.available && run_res.step.available);
		ck_assert(run_res.step.time_s > 0);
		ck_assert(s.time_s == run_res.step.time_s);
		ck_assert(s.pipeline_s == run_res.step.pipeline_s);
		ck_assert(s.tokens_per_s == run_res.step.tokens_per_s);
		ck_assert(s.tokens_per_s_per_gpu == run_res.step.tokens_per_s_per_gpu);
		ck_assert(s.gpu_s_per_token == run_res.step.gpu_s_per_token);
		ck_assert(s.slowdown == run_res.step.slowdown);
		ck_assert_uint_eq(s.critical_stage, run_res.step.critical_stage);
		ck_assert_uint_eq(s.slowest_rank, run_res.step.slowest_rank);
		ck_assert_uint_eq(s.p, run_res.step.p);
		ck_assert_uint_eq(s.m, run_res.step.m);
		ck_assert_uint_eq(s.nclasses, 0);
		ck_assert_uint_eq(s.npath, 0);
		ck_assert(s.mfu == 0 && s.hfu == 0 && s.bubble_s == 0 && s.time_to_train_s == 0);
		for (int v = 0; v < DC_VARIANT_COUNT; v++)
			ck_assert(!s.variants[v].available && s.variants[v].time_s == 0);
	}
}
END_TEST

int main(void)
{
	Suite *s = suite_create("step");
	TCase *tc = tcase_create("schedule");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, test_simulate_empty_schedule);
	tcase_add_test(tc, test_two_stage_1f1b_by_hand);
	tcase_add_test(tc, test_bubble_equal_stages);
	tcase_add_test(tc, test_bubble_interleaved);
	tcase_add_test(tc, test_bubble_interleaved_v3);
	tcase_add_test(tc, test_interleaved_chunk_change_waits);
	tcase_add_test(tc, test_uneven_1f1b_by_hand);
	tcase_add_test(tc, test_uneven_1f1b_two_stages_by_hand);
	tcase_add_test(tc, test_uneven_1f1b_step_is_the_timeline);
	tcase_add_test(tc, test_uneven_1f1b_critical_stage);
	tcase_add_test(tc, test_interleaved_closed_form_drawn);
	tcase_add_test(tc, test_uneven_1f1b_closed_form_drawn);
	tcase_add_test(tc, test_one_f_one_b_steady_sends);
	tcase_add_test(tc, test_interleaved_sends_past_a_chunk);
	tcase_add_test(tc, test_one_f_one_b_closed_form_drawn);
	tcase_add_test(tc, test_zero_bubble_h1_by_hand);
	tcase_add_test(tc, test_zero_bubble_h1_last_forward_before_the_wait);
	tcase_add_test(tc, test_zero_bubble_h1_closed_form_below_timeline);
	tcase_add_test(tc, test_dualpipe_bubble_by_hand);
	tcase_add_test(tc, test_dualpipe_sums_gradients_with_the_mirror);
	tcase_add_test(tc, test_each_rank_syncs_its_own_gradients);
	tcase_add_test(tc, test_schedules_a_step);
	tcase_add_test(tc, test_schedules_hold_their_own_microbatches);
	tcase_add_test(tc, test_each_rank_gathers_its_own_parameters);
	tcase_add_test(tc, test_resums_follow_their_bucket);
	tcase_add_test(tc, test_dualpipe_uneven_stages_compute);
	tcase_add_test(tc, test_bf16_first_last_layers);
	tcase_add_test(tc, test_trace_bf16_layers);
	tcase_add_test(tc, test_dp_bucket_overlap);
	suite_add_tcase(s, tc);
	tc = tcase_create("configs");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_closed_form_matches_timeline);
	tcase_add_test(tc, test_interleaved_slow_sends_step);
	tcase_add_test(tc, test_sends_by_boundary);
	tcase_add_test(tc, test_closed_form_matches_timeline_overlap_off);
	tcase_add_test(tc, test_bucket_size_u_shape);
	tcase_add_test(tc, test_time_to_train_gpt3);
	tcase_add_test(tc, test_mfu_fp8_both_peaks);
	tcase_add_test(tc, test_korthikanti_table5);
	tcase_add_test(tc, test_korthikanti_530b_data_parallel);
	tcase_add_test(tc, test_megatron_table1);
	tcase_add_test(tc, test_megatron_table1_published_settings);
	tcase_add_test(tc, test_context_parallel_exposure);
	tcase_add_test(tc, test_context_parallel_sweep_ratios);
	tcase_add_test(tc, test_context_parallel_sweep_405b);
	tcase_add_test(tc, test_path_splits_the_tail_as_the_classes_do);
	tcase_add_test(tc, test_fsdp_torchtitan_embedding_unit_exposed);
	tcase_add_test(tc, test_fsdp_pipeline_reduces_after_the_last_backward);
	tcase_add_test(tc, test_fsdp_pipeline_each_stage_reduces_its_own_units);
	tcase_add_test(tc, test_fsdp_gather_and_reduce_share_the_link);
	tcase_add_test(tc, test_faster_kernels_never_lengthen_the_step);
	tcase_add_test(tc, test_side_stream_span);
	tcase_add_test(tc, test_torch_ring_sends_behind_the_backward);
	tcase_add_test(tc, test_zero_bubble_schedules_measured);
	tcase_add_test(tc, test_ep_a2a_1f1b_two_layers);
	tcase_add_test(tc, test_trace_shows_the_schedule);
	tcase_add_test(tc, test_zb_critical_path_ends_with_the_stage);
	tcase_add_test(tc, test_trace_cp_track_holds_every_exchange);
	tcase_add_test(tc, test_dualpipe_pair_sends_before_their_consumers);
	tcase_add_test(tc, test_trace_moe_interval_layers);
	tcase_add_test(tc, test_trace_prefix_is_the_schedule);
	tcase_add_test(tc, test_trace_memory_held_by_hand);
	tcase_add_test(tc, test_dualpipe_bound_extends_the_steady_state);
	tcase_add_test(tc, test_dualpipe_tp_layer_per_chunk_microbatch);
	tcase_add_test(tc, test_moe_layer_tp_pair_in_the_step);
	tcase_add_test(tc, test_tp_per_layer_kind_on_every_stage);
	tcase_add_test(tc, test_uneven_interleaved_bound_extends_the_steady_state);
	tcase_add_test(tc, test_uneven_interleaved_deep_extends);
	tcase_add_test(tc, test_uneven_1f1b_bound_extends_the_steady_state);
	tcase_add_test(tc, test_uneven_1f1b_past_its_extension_takes_the_closed_form);
	tcase_add_test(tc, test_zb_bound_extends_the_steady_state);
	tcase_add_test(tc, test_zb_past_its_extension_takes_the_closed_form);
	tcase_add_test(tc, test_trace_extended_prefix_is_the_schedule);
	tcase_add_test(tc, test_uneven_stage_compute);
	tcase_add_test(tc, test_ep_on_stages_without_the_most_parameters);
	tcase_add_test(tc, test_ep_replayed_in_the_backward);
	tcase_add_test(tc, test_mtp_priced_on_the_head_stage_whichever_is_analysed);
	tcase_add_test(tc, test_mtp_tp_on_the_head_stage_whichever_is_analysed);
	tcase_add_test(tc, test_fp8_lacking_kind_takes_its_own_formats);
	tcase_add_test(tc, test_no_negative_time_at_pp1);
	tcase_add_test(tc, test_loss_chunk_tp_reductions);
	tcase_add_test(tc, test_loss_chunk_tp_reductions_on_the_head_stage);
	tcase_add_test(tc, test_deepspeed_zero3_host_copies);
	tcase_add_test(tc, test_step_memo_changes_nothing);
	tcase_add_test(tc, test_rank_dp_calls_follow_the_memo_context);
	tcase_add_test(tc, test_sim_memos_key_every_input);
	tcase_add_test(tc, test_step_rank_only_same_figures);
	tcase_add_test(tc, test_step_without_flops_is_the_steps_time);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
