/* check_whatif.c - the what-if scenarios on the seed's two-node topology
 * (configs/systems.json with cluster.gpu a100-sxm4-80gb: 2 nodes x 4 GPUs,
 * one 400 Gb/s NIC per node, TP 4 inside a node, DP 2 across, 8
 * microbatches), every figure worked by hand in docs/whatif.md. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "distcalc/config.h"
#include "distcalc/plan.h"
#include "distcalc/results.h"
#include "distcalc/whatif.h"

static struct dc_config cfg;
static struct dc_plan plan;
static struct dc_results res;

static struct dc_whatif *run(const char *name, const char *const *sets, uint64_t seed)
{
	char path[512];
	struct dc_override ov[16];
	size_t n = 0;
	struct dc_diag d;
	struct dc_whatif *w = calloc(1, sizeof(*w));
	const char *err = NULL;
	ck_assert_ptr_nonnull(w);
	snprintf(path, sizeof(path), "%s/configs/%s", DC_SOURCE_DIR, name);
	while (sets && sets[n] && n < 16) {
		ov[n] = (struct dc_override){sets[n], 0};
		n++;
	}
	dc_diag_init(&d);
	if (dc_config_load_file(path, ov, n, &cfg, &d) != 0)
		ck_abort_msg("%s rejected: %s", name, d.count ? d.entries[0].text : "?");
	dc_diag_release(&d);
	ck_assert_int_eq(dc_plan_derive(&cfg, &plan), 0);
	memset(&res, 0, sizeof(res));
	ck_assert_int_eq(
		dc_estimate(&plan, DC_EST_BIT(DC_EST_STEP) | DC_EST_BIT(DC_EST_COMM) | DC_EST_BIT(DC_EST_MEMORY), &res),
		0);
	if (dc_whatif_compute(&plan, &res, seed, w, &err) != 0)
		ck_abort_msg("whatif: %s", err ? err : "?");
	return w;
}

static const struct dc_whatif_detail *find_detail(const struct dc_whatif *w, enum dc_whatif_scenario s,
						  const char *prefix)
{
	for (uint64_t i = 0; i < w->ndetails; i++)
		if (w->detail[i].scenario == s && strncmp(w->detail[i].what, prefix, strlen(prefix)) == 0)
			return &w->detail[i];
	ck_abort_msg("no detail '%s'", prefix);
	return NULL;
}

#define REL(a, b, tol) ck_assert_msg(fabs((a) - (b)) <= (tol) * fabs(b), "%.9g vs %.9g", (double)(a), (double)(b))

static const char *const seed_gpu[] = {"cluster.gpu=a100-sxm4-80gb", NULL};

/* The DP gradient AllReduce: M = 1,684,803,584 params x 2 B =
 * 3,369,607,168 B per rank per step over 2 ranks (one per node); the
 * node's one 50 GB/s NIC carries the 4 DP groups at once: 12.5 GB/s each.
 * A 2-rank ring sends M per rank: M / 12.5 GB/s = 269.569 ms, at half the
 * bandwidth 539.137 ms: the latency terms cancel in the difference. */
START_TEST(test_slow_network_by_hand)
{
	const char *sets[] = {"cluster.gpu=a100-sxm4-80gb", "whatif.slow_network.factor=0.5", NULL};
	struct dc_whatif *w = run("systems.json", sets, 0);
	const struct dc_whatif_detail *dp = find_detail(w, DC_WHATIF_SLOW_NETWORK, "communication per step: DP");
	const struct dc_whatif_detail *bw = find_detail(w, DC_WHATIF_SLOW_NETWORK, "nccl-tests");
	const struct dc_whatif_scn *s = &w->scn[DC_WHATIF_SLOW_NETWORK];
	double m = 3369607168.0, share = 50e9 / 4;
	REL(dp->value - dp->baseline, m / (0.5 * share) - m / share, 1e-3);
	/* nccl-tests' busbw at 8 GiB between the two nodes (8 ranks) is
	 * bandwidth-bound. At 50 GB/s the ring's 50 GB/s bus rate wins (the
	 * tree's 0.92 x 50 GB/s algbw is capped at 2 channels x 23.6 / 2 GB/s,
	 * 23.6 x 1.75 = 41.3 GB/s of busbw); at 25 GB/s the tree's 0.92 x 25 =
	 * 23 GB/s algbw, 40.25 GB/s busbw, beats the ring's 25: the ratio is
	 * 40.25 / 50, not 1/2 */
	REL(bw->value / bw->baseline, 0.92 * 25 * 1.75 / 50, 2e-3);
	ck_assert(s->available);
	/* the step grows, by no more than the slower sync itself */
	ck_assert(s->value > s->baseline);
	ck_assert(s->value - s->baseline <= dp->value - dp->baseline + 1e-9);
	ck_assert_uint_eq(s->rank_first, 0);
	ck_assert_uint_eq(s->rank_last, 3);
	free(w);
}
END_TEST

/* every link at the factor: the same step (one slow node already gates
 * every group through it), all ranks hit */
START_TEST(test_slow_network_every_link)
{
	const char *one[] = {"cluster.gpu=a100-sxm4-80gb", "whatif.slow_network.node=1", NULL};
	const char *all[] = {"cluster.gpu=a100-sxm4-80gb", "whatif.slow_network.scope=\"all\"", NULL};
	struct dc_whatif *a = run("systems.json", one, 0), *b = run("systems.json", all, 0);
	ck_assert(a->scn[DC_WHATIF_SLOW_NETWORK].value == b->scn[DC_WHATIF_SLOW_NETWORK].value);
	ck_assert_uint_eq(a->scn[DC_WHATIF_SLOW_NETWORK].rank_first, 4);
	ck_assert_uint_eq(a->scn[DC_WHATIF_SLOW_NETWORK].rank_last, 7);
	ck_assert_uint_eq(b->scn[DC_WHATIF_SLOW_NETWORK].rank_first, 0);
	ck_assert_uint_eq(b->scn[DC_WHATIF_SLOW_NETWORK].rank_last, 7);
	free(a);
	free(b);
}
END_TEST

/* A middle pipeline stage reads no batch: TP 2 x PP 4, rank 2 is stage 1
 * (order tp-cp-ep-dp-pp: the pp stride is tp x dp = 2). */
START_TEST(test_slow_data_rank_middle_stage)
{
	const char *sets[] = {"cluster.gpu=a100-sxm4-80gb", "parallel.tp=2", "parallel.dp=1", "parallel.pp=4",
			      "whatif.slow_data_rank.rank=2", NULL};
	struct dc_whatif *w = run("systems.json", sets, 0);
	ck_assert_uint_eq(w->slow_stage, 1);
	ck_assert(!w->scn[DC_WHATIF_SLOW_DATA_RANK].available);
	ck_assert_ptr_nonnull(strstr(w->scn[DC_WHATIF_SLOW_DATA_RANK].missing, "middle pipeline stage"));
	free(w);
}
END_TEST

/* 10 ms before each of 8 microbatches' forward on rank 0: +80 ms on the
 * step, which every other rank spends waiting; under DualPipe the rank
 * reads inputs for half of them and labels for the other half. */
START_TEST(test_slow_data_rank_by_hand)
{
	const char *sets[] = {"cluster.gpu=a100-sxm4-80gb", "whatif.slow_data_rank.rank=5",
			      "whatif.slow_data_rank.delay=\"25 ms\"", NULL};
	struct dc_whatif *w = run("systems.json", seed_gpu, 0);
	const struct dc_whatif_scn *s = &w->scn[DC_WHATIF_SLOW_DATA_RANK];
	ck_assert(s->available);
	REL(s->value - s->baseline, 8 * 0.010, 1e-9);
	REL(w->sync_wait_s, 0.080, 1e-9);
	REL(w->data_wait_s, 0.080, 1e-12);
	free(w);
	w = run("systems.json", sets, 0);
	s = &w->scn[DC_WHATIF_SLOW_DATA_RANK];
	REL(s->value - s->baseline, 8 * 0.025, 1e-9);
	ck_assert_uint_eq(w->slow_rank, 5);
	free(w);
	{
		/* DualPipe at pp 2, m 8: an end rank reads the inputs of one
		 * direction's 4 microbatches and the labels of the other's 4,
		 * so rank 0 waits 8 x 10 ms */
		const char *dual[] = {"cluster.gpu=a100-sxm4-80gb", "parallel.pp=2", "parallel.dp=1",
				      "parallel.pipeline_schedule=dualpipe", NULL};
		w = run("systems.json", dual, 0);
		ck_assert(w->scn[DC_WHATIF_SLOW_DATA_RANK].available);
		REL(w->data_wait_s, 8 * 0.010, 1e-12);
		free(w);
	}
	{
		/* DualPipeV at pp 4 (8 nodes of 4, dp 2; pp the slowest axis:
		 * pp rank = rank / 8), m 8: rank r holds stages r and 7 - r, so
		 * pp rank 0 holds the first and the last and reads each batch
		 * once (8 x 10 ms); pp rank 3 (rank 24), which holds the middle
		 * stages 3 and 4, reads none (a review found its delay priced on
		 * the head, as for a last stage) */
		const char *v0[] = {"cluster.gpu=a100-sxm4-80gb", "cluster.num_nodes=8", "parallel.pp=4", "parallel.dp=2",
				    "parallel.pipeline_schedule=dualpipev", "whatif.slow_data_rank.rank=0", NULL};
		const char *v3[] = {"cluster.gpu=a100-sxm4-80gb", "cluster.num_nodes=8", "parallel.pp=4", "parallel.dp=2",
				    "parallel.pipeline_schedule=dualpipev", "whatif.slow_data_rank.rank=24", NULL};
		w = run("systems.json", v0, 0);
		ck_assert(w->scn[DC_WHATIF_SLOW_DATA_RANK].available && !w->slow_reads_none);
		REL(w->data_wait_s, 8 * 0.010, 1e-12);
		free(w);
		w = run("systems.json", v3, 0);
		ck_assert_uint_eq(w->slow_stage, 3);
		ck_assert(!w->scn[DC_WHATIF_SLOW_DATA_RANK].available && w->slow_reads_none);
		ck_assert(strstr(w->scn[DC_WHATIF_SLOW_DATA_RANK].missing, "under DualPipeV") != NULL);
		free(w);
	}
}
END_TEST

/* The whole model as one unit is FSDP2's root, never resharded after
 * forward: per microbatch one forward AllGather and one ReduceScatter of
 * M = 3,369,607,168 B over 2 ranks, each (p - 1) / p M / 12.5 GB/s =
 * 134.784 ms; 8 microbatches: 2.157 s, none of it prefetched, so all of
 * it exposed (3.235 s when the unit was gathered again for backward). */
START_TEST(test_whole_model_allgather_by_hand)
{
	struct dc_whatif *w = run("systems.json", seed_gpu, 0);
	const struct dc_whatif_detail *ex = find_detail(w, DC_WHATIF_WHOLE_MODEL_ALLGATHER, "exposed FSDP");
	const struct dc_whatif_scn *s = &w->scn[DC_WHATIF_WHOLE_MODEL_ALLGATHER];
	double one = 0.5 * 3369607168.0 / 12.5e9;
	REL(ex->value, 8 * 2 * one, 2e-3);
	ck_assert(ex->baseline < ex->value);
	ck_assert(s->available);
	/* the backward holds the gathered unit and its unsharded gradients
	 * (2 B each): the whole model, 4P = 6,739,214,336 B, against the root
	 * (embedding, head, final norm: 65,540,096 params), the layer computing
	 * and the prefetched next (50,601,984 params each: 4h^2/4 + 3hf/4 +
	 * 2h) and the larger of a layer's and the root's gradients:
	 * 2 (65,540,096 + 2 x 50,601,984) + 2 x 65,540,096 = 464,568,320 B;
	 * the difference with the 5% allocator reserve on it */
	REL(s->value - s->baseline, 1.05 * (4 * 1684803584.0 - 464568320.0), 1e-9);
	ck_assert_str_eq(dc_mem_phase_name(w->wm_phase[1]), "backward");
	{
		/* a full save gathered on the GPU peaks above both (the
		 * checkpoint_save_peak scenario's): the training peak is still
		 * compared, the same difference (it was 1.0000, both the save's) */
		const char *sets[] = {"cluster.gpu=a100-sxm4-80gb", "checkpoint.format=full", "checkpoint.gather=gpu", NULL};
		struct dc_whatif *f = run("systems.json", sets, 0);
		const struct dc_whatif_scn *t = &f->scn[DC_WHATIF_WHOLE_MODEL_ALLGATHER];
		ck_assert(f->scn[DC_WHATIF_CHECKPOINT_SAVE_PEAK].value > t->value);
		REL(t->value - t->baseline, 1.05 * (4 * 1684803584.0 - 464568320.0), 1e-9);
		REL(t->baseline, s->baseline, 1e-12);
		free(f);
	}
	free(w);
}
END_TEST

/* The save phase holds the model states (16 B x 1,684,803,584 =
 * 26,956,857,344 B), the CUDA context 512 MiB, the workspace 256 MiB and
 * NCCL's 256 MiB, plus the 5% reserve: 29,432,129,126.4 B, against the
 * backward's 37,884,542,976 B peak. */
START_TEST(test_checkpoint_save_peak_by_hand)
{
	struct dc_whatif *w = run("systems.json", NULL, 0);
	const struct dc_whatif_scn *s = &w->scn[DC_WHATIF_CHECKPOINT_SAVE_PEAK];
	double sub = 26956857344.0 + 536870912.0 + 268435456.0 + 268435456.0;
	ck_assert(s->available);
	REL(s->value, sub * 1.05, 1e-9);
	ck_assert(s->value < s->baseline);
	free(w);
}
END_TEST

/* A full state dict gathered on the GPU (checkpoint.gather "gpu",
 * cpu_offload=False): the rank keeps every item of its stage (pp 1: all
 * 6,738,415,616 elements) at 2 + 4 + 8 = 14 B, 94,337,818,624 B, above the
 * optimizer step's 28,030,599,168 B (the subtotal above): 122,368,417,792
 * B, + 5% reserve rounded up, 6,118,420,890: 128,486,838,682 B (119.66
 * GiB), above the backward's 37,884,542,976 B. Gathered to the host
 * instead ("cpu"), one tensor at a time: the largest, the embedding's
 * 131,072,000 elements, at 4 B (master, or one of Adam's two moments) =
 * 524,288,000 B: 28,554,887,168 x 1.05 = 29,982,631,526.4, rounded up
 * 29,982,631,527 B, still below training. */
START_TEST(test_checkpoint_save_peak_full_gpu_by_hand)
{
	const char *const gpu[] = {"checkpoint.format=\"full\"", "checkpoint.gather=\"gpu\"", NULL};
	const char *const cpu[] = {"checkpoint.format=\"full\"", NULL};
	struct dc_whatif *w = run("systems.json", gpu, 0);
	const struct dc_whatif_scn *s = &w->scn[DC_WHATIF_CHECKPOINT_SAVE_PEAK];
	const struct dc_whatif_detail *d =
		find_detail(w, DC_WHATIF_CHECKPOINT_SAVE_PEAK, "the save phase against the optimizer step");
	ck_assert(s->available);
	ck_assert(s->baseline == 37884542976.0);
	ck_assert(s->value == 128486838682.0);
	ck_assert(s->value > s->baseline);
	ck_assert_ptr_nonnull(strstr(d->what, "full state dict kept on the GPU"));
	ck_assert(d->baseline == 28030599168.0 + 1401529959.0); /* 5% of it, rounded up */
	free(w);
	w = run("systems.json", cpu, 0);
	s = &w->scn[DC_WHATIF_CHECKPOINT_SAVE_PEAK];
	ck_assert(s->value == 29982631527.0);
	ck_assert(s->value < s->baseline);
	free(w);
}
END_TEST

/* Without GPU data the step scenarios name the missing keys; the
 * checkpoint and the peaks still run. */
START_TEST(test_missing_gpu_data)
{
	/* llama-3-8b.json names no GPU */
	struct dc_whatif *w = run("llama-3-8b.json", NULL, 0);
	ck_assert(!w->scn[DC_WHATIF_SLOW_NETWORK].available);
	ck_assert_ptr_nonnull(strstr(w->scn[DC_WHATIF_SLOW_NETWORK].missing, "cluster.peak_flops"));
	ck_assert(!w->scn[DC_WHATIF_SLOW_DATA_RANK].available);
	ck_assert_ptr_nonnull(strstr(w->scn[DC_WHATIF_STRAGGLERS].missing, "cluster.peak_flops"));
	ck_assert(w->scn[DC_WHATIF_WHOLE_MODEL_ALLGATHER].available);
	ck_assert(w->scn[DC_WHATIF_CHECKPOINT_SAVE_PEAK].available);
	free(w);
}
END_TEST

/* E[max of n standard normals]: 1/sqrt(pi) for 2, 3/(2 sqrt(pi)) for 3,
 * 1.423600 for 8 (Harter 1961, Table 1); the 2.5% upper quantile 1.959964. */
START_TEST(test_expected_max_normal)
{
	ck_assert(dc_whatif_expected_max_normal(1) == 0);
	REL(dc_whatif_expected_max_normal(2), 1 / sqrt(3.14159265358979323846), 1e-6);
	REL(dc_whatif_expected_max_normal(3), 1.5 / sqrt(3.14159265358979323846), 1e-6);
	REL(dc_whatif_expected_max_normal(8), 1.423600, 1e-5);
	REL(dc_whatif_normal_upper_quantile(0.025), 1.959964, 1e-6);
	REL(dc_whatif_normal_upper_quantile(0.5) + 1.0, 1.0, 1e-12);
}
END_TEST

/* jitter 0.1 on 8 ranks: the mean step is the step without jitter plus
 * 0.1 x 1.4236 x the jittering compute (50,000 steps: the standard error
 * of the mean maximum is 0.6 / sqrt(5 x 10^4) = 0.003 of a standard normal);
 * same seed same numbers, another seed other draws. */
START_TEST(test_stragglers_by_hand)
{
	const char *sets[] = {"cluster.gpu=a100-sxm4-80gb", "training.jitter=0.1", "whatif.steps=50000", NULL};
	struct dc_whatif *a = run("systems.json", sets, 7), *b, *c;
	const struct dc_whatif_stragglers *g = &a->strag;
	double step0 = res.step.time_s, want = step0 + g->compute_s * 0.1 * 1.4236;
	uint64_t total = 0;
	ck_assert(g->available);
	REL(g->mean_s, want, 0.01 * (want - step0) / want);
	ck_assert(g->p50_s < g->p99_s);
	ck_assert_uint_eq(g->nblocks, 8);
	for (uint64_t i = 0; i < 8; i++) {
		total += g->slowest[i];
		/* each rank the slowest about 1/8 of the time */
		ck_assert(fabs((double)g->slowest[i] / 5e4 - 0.125) < 0.01);
	}
	ck_assert_uint_eq(total, 50000);
	b = run("systems.json", sets, 7);
	ck_assert(a->strag.mean_s == b->strag.mean_s && a->strag.p99_s == b->strag.p99_s);
	ck_assert(memcmp(a->strag.slowest, b->strag.slowest, sizeof(a->strag.slowest)) == 0);
	c = run("systems.json", sets, 8);
	ck_assert(a->strag.mean_s != c->strag.mean_s);
	/* the expected maximum at the world, 8 ranks, is the same 1.4236 */
	{
		int found = 0;
		for (uint64_t i = 0; i < a->strag.nscale; i++)
			if (a->strag.scale[i].ranks == 8) {
				REL(a->strag.scale[i].step_s, want, 1e-5);
				found = 1;
			}
		ck_assert_msg(found, "no scale row at the world's 8 ranks");
	}
	free(a);
	free(b);
	free(c);
	{
		/* 68 ranks (17 nodes: dp 17 at tp 4): blocks of ceil(68 / 64) =
		 * 2 ranks, 34 of them, each inside the world (64 blocks left 30
		 * starting past it); every step counted once */
		const char *big[] = {"cluster.gpu=a100-sxm4-80gb", "training.jitter=0.1", "whatif.steps=1000",
				     "cluster.num_nodes=17", "parallel.dp=auto", NULL};
		struct dc_whatif *d = run("systems.json", big, 7);
		uint64_t sum = 0;
		ck_assert_uint_eq(d->world, 68);
		ck_assert_uint_eq(d->strag.block_ranks, 2);
		ck_assert_uint_eq(d->strag.nblocks, 34);
		for (uint64_t i = 0; i < d->strag.nblocks; i++)
			sum += d->strag.slowest[i];
		ck_assert_uint_eq(sum, 1000);
		free(d);
	}
}
END_TEST

/* No jitter: every one of the 1000 steps is the step, so their mean,
 * median, 99th percentile and maximum are the step to the last bit and
 * the scenario's ratio is 1 (a CI trial: the mean summed a thousand
 * rounded steps, 1.0000000000000089, and a budget of ratio 1 failed) */
START_TEST(test_stragglers_without_jitter_are_the_step)
{
	const char *sets[] = {"cluster.gpu=a100-sxm4-80gb", "training.jitter=0", NULL};
	struct dc_whatif *w = run("systems.json", sets, 7);
	const struct dc_whatif_stragglers *g = &w->strag;
	double step0 = res.step.time_s;
	ck_assert(g->available);
	ck_assert(g->mean_s == step0 && g->p50_s == step0 && g->p99_s == step0 && g->max_s == step0);
	ck_assert(w->scn[DC_WHATIF_STRAGGLERS].value == step0);
	free(w);
}
END_TEST

/* Mixtral on EP 4: 8 experts, 2 per rank. The busiest at 2 x the uniform
 * share loads its rank's experts (2 - 1 + 2) / 2 = 1.5 x. */
START_TEST(test_expert_imbalance_by_hand)
{
	const char *sets[] = {"cluster.gpu=h100-sxm5-80gb", "whatif.expert_imbalance=2", NULL};
	struct dc_whatif *w = run("mixtral-8x7b-ep.json", sets, 0);
	const struct dc_whatif_scn *s = &w->scn[DC_WHATIF_EXPERT_IMBALANCE];
	const struct dc_whatif_detail *a2a = find_detail(w, DC_WHATIF_EXPERT_IMBALANCE, "communication per step: EP");
	REL(w->load_factor, 1.5, 1e-12);
	ck_assert(s->available);
	ck_assert(s->value > s->baseline);
	ck_assert(a2a->value > a2a->baseline && a2a->value <= 1.5 * a2a->baseline * (1 + 1e-9));
	free(w);
}
END_TEST

/* DeepEP's rows (configs/deepseek-v3-h800.json): re-priced on their own
 * groups (the 8 nodes' ranks, a node's 8), the longer of a call's two
 * kept: at imbalance 1 (load factor 1) the AlltoAlls and the step are the
 * input's, as under the AlltoAll dispatcher; at 2 the 64 ranks of 256
 * experts carry 1 + 64 / 256 = 1.25 x, and the EP time grows at most so */
START_TEST(test_expert_imbalance_deepep)
{
	const char *one[] = {"whatif.expert_imbalance=1", NULL}, *two[] = {"whatif.expert_imbalance=2", NULL};
	struct dc_whatif *w = run("deepseek-v3-h800.json", one, 0);
	const struct dc_whatif_scn *s = &w->scn[DC_WHATIF_EXPERT_IMBALANCE];
	const struct dc_whatif_detail *a2a = find_detail(w, DC_WHATIF_EXPERT_IMBALANCE, "communication per step: EP");
	ck_assert(s->available);
	REL(a2a->value, a2a->baseline, 1e-12);
	REL(s->value, s->baseline, 1e-12);
	free(w);
	w = run("deepseek-v3-h800.json", two, 0);
	a2a = find_detail(w, DC_WHATIF_EXPERT_IMBALANCE, "communication per step: EP");
	REL(w->load_factor, 1.25, 1e-12);
	ck_assert(a2a->value > a2a->baseline && a2a->value <= 1.25 * a2a->baseline * (1 + 1e-9));
	free(w);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("whatif");
	TCase *tc = tcase_create("seed");
	SRunner *sr;
	int failed;

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_slow_network_by_hand);
	tcase_add_test(tc, test_slow_network_every_link);
	tcase_add_test(tc, test_slow_data_rank_by_hand);
	tcase_add_test(tc, test_slow_data_rank_middle_stage);
	tcase_add_test(tc, test_whole_model_allgather_by_hand);
	tcase_add_test(tc, test_checkpoint_save_peak_by_hand);
	tcase_add_test(tc, test_checkpoint_save_peak_full_gpu_by_hand);
	tcase_add_test(tc, test_missing_gpu_data);
	tcase_add_test(tc, test_expected_max_normal);
	tcase_add_test(tc, test_stragglers_by_hand);
	tcase_add_test(tc, test_stragglers_without_jitter_are_the_step);
	tcase_add_test(tc, test_expert_imbalance_by_hand);
	tcase_add_test(tc, test_expert_imbalance_deepep);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
