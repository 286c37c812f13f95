/* check_search.c - the layout search (search.h): every layout it ranks is
 * one the report prints with the same numbers (each best and Pareto
 * layout loaded again through --set overrides, derived and estimated as
 * the report does: bit-identical step time, peak, tokens/s and MFU); the
 * same result for every --jobs; counts worked by hand on a toy space; the
 * empty spaces' reasons; the published layouts of Korthikanti et al. 2022
 * Table 3 and Megatron-LM 2021 Table 1 found, fitting and near the best. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "distcalc/config.h"
#include "distcalc/diag.h"
#include "distcalc/plan.h"
#include "distcalc/results.h"
#include "distcalc/search.h"

#define MAX_SETS 40

/* Loads `path` (relative to the source) with `sets` and then `extra`
 * overrides (NULL-terminated lists) into *cfg: 0, else -1 with the first
 * message in `why` (when given) */
static int try_load(const char *path, const char *const *sets, const char *const *extra, struct dc_config *cfg,
		    char *why, size_t len)
{
	struct dc_override ov[MAX_SETS];
	struct dc_diag d;
	char full[512];
	size_t n = 0;
	int rc;

	for (size_t i = 0; sets && sets[i]; i++)
		ov[n++] = (struct dc_override){sets[i], 0};
	for (size_t i = 0; extra && extra[i]; i++)
		ov[n++] = (struct dc_override){extra[i], 0};
	snprintf(full, sizeof(full), "%s/%s", DC_SOURCE_DIR, path);
	dc_diag_init(&d);
	rc = dc_config_load_file(full, ov, n, cfg, &d) == 0 ? 0 : -1;
	if (why)
		snprintf(why, len, "%s", d.count ? d.entries[0].text : "?");
	dc_diag_release(&d);
	return rc;
}

/* try_load, which must succeed */
static void load(const char *path, const char *const *sets, const char *const *extra, struct dc_config *cfg)
{
	char why[512];
	ck_assert_msg(try_load(path, sets, extra, cfg, why, sizeof(why)) == 0, "%s: %s", path, why);
}

static struct dc_search_result *search(const char *path, const char *const *sets, unsigned jobs)
{
	struct dc_config *cfg = malloc(sizeof(*cfg));
	struct dc_search_result *r = malloc(sizeof(*r));
	const char *err = NULL;
	ck_assert_ptr_nonnull(cfg);
	ck_assert_ptr_nonnull(r);
	load(path, sets, NULL, cfg);
	ck_assert_msg(dc_search_run(cfg, jobs, NULL, r, &err) == 0, "%s: %s", path, err ? err : "?");
	free(cfg);
	return r;
}

/* The entry's layout as --set overrides on top of `sets`, through the
 * loader, the plan and every estimator, as `distcalc --set ...` runs it:
 * the numbers must be the search's, bit for bit. */
static void same_as_report(const char *path, const char *const *sets, const struct dc_search_entry *e)
{
	char text[600], *words[16];
	const char *ov[MAX_SETS];
	size_t n = 0, k = 0;
	struct dc_config *cfg = malloc(sizeof(*cfg));
	struct dc_plan *plan = malloc(sizeof(*plan));
	struct dc_results *res = calloc(1, sizeof(*res));

	ck_assert(cfg && plan && res);
	dc_search_layout_text(&e->l, 0, text, sizeof(text));
	for (char *t = text; *t;) {
		size_t len = strcspn(t, " ");
		words[k++] = t;
		t += len;
		if (*t)
			*t++ = 0;
	}
	/* with a named schedule, the schedule each layout ran under */
	ck_assert_uint_eq(k, e->l.schedule_named ? 13 : 12);
	for (size_t i = 0; i < k; i++)
		ov[n++] = words[i];
	ov[n] = NULL;
	load(path, sets, ov, cfg);
	ck_assert_int_eq(dc_plan_derive(cfg, plan), 0);
	ck_assert_int_eq(dc_estimate(plan, DC_EST_ALL, res), 0);
	ck_assert_msg(res->memory.top.peak_bytes == e->peak_bytes, "%s %s: peak %llu, search %llu", path, text,
		      (unsigned long long)res->memory.top.peak_bytes, (unsigned long long)e->peak_bytes);
	ck_assert_int_eq(res->step.available, e->step_available);
	ck_assert_msg(res->step.time_s == e->step_time_s, "%s %s: step %.17g, search %.17g", path, text, res->step.time_s,
		      e->step_time_s);
	ck_assert(res->step.tokens_per_s_per_gpu == e->tokens_per_s_per_gpu);
	ck_assert(res->step.mfu == e->mfu);
	free(cfg);
	free(plan);
	free(res);
}

static void check_report_path(const char *path, const char *const *sets)
{
	struct dc_search_result *r = search(path, sets, 2);
	ck_assert_uint_gt(r->nbest, 0);
	for (size_t i = 0; i < r->nbest; i++)
		same_as_report(path, sets, &r->best[i]);
	for (size_t i = 0; i < r->npareto; i++)
		same_as_report(path, sets, &r->pareto[i]);
	free(r);
}

START_TEST(test_best_and_pareto_are_the_reports_numbers)
{
	static const char *const none[] = {NULL};
	/* dense GPT with learned positions, pp, v, cp; a MoE model's ep; Llama */
	check_report_path("configs/korthikanti-175b.json", none);
	check_report_path("configs/korthikanti-22b.json", none);
	{
		/* a named zero_bubble: a layout without a pipeline runs 1f1b,
		 * one with interleaved chunks the interleaved schedule, and
		 * each reloads as such */
		static const char *const zb[] = {"parallel.virtual_pipeline=1", "parallel.pipeline_schedule=zero_bubble", NULL};
		check_report_path("configs/korthikanti-175b.json", zb);
		/* DualPipe: each layout's mirror gradient sum over its own
		 * pair, under every sharding the space holds */
		static const char *const dual[] = {"parallel.virtual_pipeline=1", "parallel.pipeline_schedule=dualpipe",
						   NULL};
		check_report_path("configs/korthikanti-175b.json", dual);
		/* several schedules a step (parallel.pipeline_schedule_
		 * microbatches): each layout of m a multiple of 8 runs m / 8
		 * schedules of 8, and reloads so */
		static const char *const sched[] = {"parallel.virtual_pipeline=1",
						    "parallel.pipeline_schedule_microbatches=8", NULL};
		check_report_path("configs/korthikanti-175b.json", sched);
	}
	check_report_path("configs/llama-3-8b.json", none);
	check_report_path("configs/mixtral-8x7b-ep.json", none);
	{
		/* the input's overlaps, which the loader checks against each
		 * layout: Megatron's --tp-comm-overlap and --overlap-param-gather
		 * (sequence parallelism, the distributed optimizer), its
		 * a2a_1f1b and DualPipe expert overlaps (ep > 1, interleaving or
		 * a pipeline, no full recompute), torchtitan's async TP (a
		 * compile pass): every ranked layout reloads with them */
		static const char *const mg[] = {"training.framework=megatron", "overlap.tp=true", "parallel.sequence_parallel=true",
						 "overlap.param_gather=true", "cluster.gpu=h100-sxm5-80gb", NULL};
		/* (a MoE model at tp 2 under Megatron: sequence parallelism, which
		 * its MoE layer needs) */
		static const char *const a2a[] = {"training.framework=megatron", "overlap.ep=a2a_1f1b",
						  "parallel.virtual_pipeline=2", "cluster.gpu=h100-sxm5-80gb",
						  "cluster.gpu_memory=80 GiB", "parallel.sequence_parallel=true", NULL};
		static const char *const dualpipe[] = {"training.framework=megatron", "overlap.ep=dualpipe",
						       "parallel.pipeline_schedule=dualpipe", "cluster.gpu=h100-sxm5-80gb",
						       "cluster.gpu_memory=80 GiB", "parallel.sequence_parallel=true", NULL};
		static const char *const tt[] = {"training.framework=torchtitan", "overlap.tp=true", "parallel.tp=1",
						 "parallel.dp=16", "parallel.sequence_parallel=false",
						 "cluster.gpu=h100-sxm5-80gb", NULL};
		check_report_path("configs/llama-3-8b.json", mg);
		check_report_path("configs/mixtral-8x7b-ep.json", a2a);
		check_report_path("configs/mixtral-8x7b-ep.json", dualpipe);
		check_report_path("configs/llama-3-8b.json", tt);
		/* torchtitan's experts whole at ep > 1 (etp 1): an expert inner
		 * size no tp > 1 splits (odd) leaves tp > 1 to the layouts with
		 * expert parallelism, which rank on the front's memory end */
		static const char *const ttmoe[] = {"training.framework=torchtitan", "parallel.sharding=fsdp",
						    "parallel.sequence_parallel=true", "model.moe_ffn_hidden_size=14335",
						    "cluster.gpu=h100-sxm5-80gb", NULL};
		check_report_path("configs/mixtral-8x7b-ep.json", ttmoe);
	}
	/* the memory objective, with headroom */
	{
		static const char *const mem[] = {"search.objective=memory", "search.headroom=0.1", NULL};
		check_report_path("configs/korthikanti-22b.json", mem);
	}
}
END_TEST

static void same_entry(const struct dc_search_entry *a, const struct dc_search_entry *b)
{
	ck_assert_uint_eq(a->l.index, b->l.index);
	ck_assert_uint_eq(a->peak_bytes, b->peak_bytes);
	ck_assert(a->step_time_s == b->step_time_s);
	ck_assert_int_eq(a->fits, b->fits);
}

START_TEST(test_every_jobs_gives_the_same_result)
{
	static const char *const none[] = {NULL};
	struct dc_search_result *one = search("configs/korthikanti-175b.json", none, 1);
	for (unsigned jobs = 2; jobs <= 7; jobs += 5) {
		struct dc_search_result *r = search("configs/korthikanti-175b.json", none, jobs);
		ck_assert_uint_eq(r->counts.enumerated, one->counts.enumerated);
		ck_assert_uint_eq(r->counts.valid, one->counts.valid);
		ck_assert_uint_eq(r->counts.rejected_by_rules, one->counts.rejected_by_rules);
		ck_assert_uint_eq(r->counts.priced_memory, one->counts.priced_memory);
		ck_assert_uint_eq(r->counts.priced_time, one->counts.priced_time);
		ck_assert_uint_eq(r->counts.fit, one->counts.fit);
		ck_assert_uint_eq(r->input_rank, one->input_rank);
		ck_assert_uint_eq(r->nbest, one->nbest);
		ck_assert_uint_eq(r->npareto, one->npareto);
		for (size_t i = 0; i < r->nbest; i++)
			same_entry(&r->best[i], &one->best[i]);
		for (size_t i = 0; i < r->npareto; i++)
			same_entry(&r->pareto[i], &one->pareto[i]);
		free(r);
	}
	/* the front: peak ascending, step strictly descending (else dominated) */
	for (size_t i = 1; i < one->npareto; i++) {
		ck_assert_uint_le(one->pareto[i - 1].peak_bytes, one->pareto[i].peak_bytes);
		ck_assert(one->pareto[i - 1].step_time_s > one->pareto[i].step_time_s);
	}
	/* the winner is the front's fastest */
	ck_assert(one->best[0].step_time_s == one->pareto[one->npareto - 1].step_time_s);
	free(one);
}
END_TEST

/* The toy space of test_counts_by_hand (80 GiB, search.top 100) as
 * --set overrides, NULL-terminated */
static const char *const toy_space[] = {
	"model.num_layers=2", "model.hidden_size=64", "model.num_attention_heads=2", "model.num_kv_heads=2", "model.ffn_hidden_size=256",
	"model.vocab_size=128", "model.seq_length=4", "cluster.num_nodes=1", "cluster.gpus_per_node=4",
	"cluster.gpu=a100-sxm4-80gb", "cluster.gpu_memory=80 GiB", "parallel.tp=1", "parallel.pp=1",
	"parallel.cp=1", "parallel.dp=4", "parallel.sharding=none", "parallel.virtual_pipeline=1",
	"parallel.sequence_parallel=false", "parallel.ep=1", "training.micro_batch_size=1",
	"training.global_batch_size=8", "training.grad_accum_steps=2", "training.recompute=none",
	"search.space.micro_batch_size=[1]", "search.space.virtual_pipeline=[1]",
	"search.space.sharding=[\"none\"]", "search.space.recompute=[\"none\"]", "search.top=100", NULL};

/* toy_space with each of the NULL-terminated overrides `over` in place of
 * the entry for its key, or after the space's entries when it has none */
static const char *const *toy_with_all(const char *const *over, const char **out)
{
	size_t n = 0;
	for (; toy_space[n]; n++)
		out[n] = toy_space[n];
	for (const char *const *o = over; *o; o++) {
		size_t key = strcspn(*o, "="), i = 0;
		while (i < n && strncmp(out[i], *o, key + 1) != 0)
			i++;
		out[i] = *o;
		n += i == n;
	}
	out[n] = NULL;
	return out;
}

/* toy_space with the one override `set` */
static const char *const *toy_with(const char *set, const char **out)
{
	return toy_with_all((const char *const[]){set, NULL}, out);
}

/* A toy space worked by hand: 4 GPUs on one node, 2 heads, 2 layers,
 * sequence 4, global batch 8; micro batch 1, v 1, no sharding, no
 * recompute. (tp, cp, pp) with tp cp pp dividing 4: exponents of 2
 * summing to at most 2, C(5, 3) = 10 triples, each with sp false and
 * true: 20 enumerated. Refused: tp 4 (2 heads), pp 4 (2 layers), cp 4
 * (2 cp = 8 does not divide 4): 7 triples left, 3 of them with tp = 2;
 * sp true needs tp 2: 7 + 3 = 10 valid. Every one fits 80 GiB. */
START_TEST(test_counts_by_hand)
{
	struct dc_search_result *r = search("configs/systems.json", toy_space, 1);
	ck_assert_uint_eq(r->counts.enumerated, 20);
	ck_assert_uint_eq(r->counts.valid, 10);
	ck_assert_uint_eq(r->counts.fit, 10);
	/* 20 - 10 refused by the integer rules, never priced; each of the 10
	 * valid priced for memory, and (all fit, the A100's speeds) for step
	 * time too */
	ck_assert_uint_eq(r->counts.rejected_by_rules, 10);
	ck_assert_uint_eq(r->counts.priced_memory, 10);
	ck_assert_uint_eq(r->counts.priced_time, 10);
	ck_assert_uint_eq(r->nbest, 10);
	ck_assert_str_eq(r->why, "");
	/* the input (tp 1, dp 4) is one of them */
	ck_assert_int_eq(r->input_in_space, 1);
	ck_assert_int_eq(r->input.fits, 1);
	free(r);
}
END_TEST

/* The toy space under training.framework deepspeed, sharding zero2 only:
 * DeepSpeed's pipeline engine asserts a ZeRO stage below 2
 * (deepspeed/runtime/pipe/engine.py:76-77), so the layouts with pp 2 go.
 * Of the 7 triples test_counts_by_hand keeps, 3 have pp 2 ((1, 1, 2),
 * (2, 1, 2), (1, 2, 2)), one of them with tp 2 (sp true too): 4 of the
 * 10 valid layouts go, 6 valid, 14 refused. Under custom the same space
 * keeps all 10. */
/* The toy space with `over` (NULL-terminated, a free slot at over[at]):
 * 10 of 20 layouts valid under custom; with `framework` set at over[at],
 * the 4 with pp 2 go (6 valid, 14 refused), every one kept at pp 1 */
static void counts_framework_drops_pp2(const char **over, size_t at, const char *framework)
{
	const char *sets[40];
	struct dc_search_result *r;
	r = search("configs/systems.json", toy_with_all(over, sets), 1);
	ck_assert_uint_eq(r->counts.enumerated, 20);
	ck_assert_uint_eq(r->counts.valid, 10);
	free(r);
	over[at] = framework;
	r = search("configs/systems.json", toy_with_all(over, sets), 1);
	ck_assert_uint_eq(r->counts.enumerated, 20);
	ck_assert_uint_eq(r->counts.rejected_by_rules, 14);
	ck_assert_uint_eq(r->counts.valid, 6);
	for (size_t i = 0; i < r->nbest; i++)
		ck_assert_uint_eq(r->best[i].l.layout.pp, 1);
	free(r);
}

START_TEST(test_counts_deepspeed_pipeline_zero2)
{
	const char *over[] = {"search.space.sharding=[\"zero2\"]", NULL, NULL};
	counts_framework_drops_pp2(over, 1, "training.framework=deepspeed");
}
END_TEST

/* The toy space with micro batches 1 and 2 and training.loss_chunks 4
 * (torchtitan's equal chunks: n divides a cp rank's tokens, mbs x 4 /
 * cp). Without chunks: test_counts_by_hand's 10 valid layouts for each
 * micro batch (2 x dp divides 8 for dp 4, 2, 1), 20 of 40. With 4
 * chunks: at micro batch 1 the cp-2 rank holds 1 x 4 / 2 = 2 tokens,
 * which 4 does not divide; the valid triples with cp 2 are (1, 2, 1),
 * (2, 2, 1), (1, 2, 2), the one with tp 2 with sp true too (2 divides
 * 2 tokens): 4 layouts go. At micro batch 2 every rank holds 4 or 8
 * tokens: all 10 stay. 16 valid, 24 refused. */
START_TEST(test_counts_loss_chunks)
{
	const char *sets[40];
	const char *over[] = {"search.space.micro_batch_size=[1,2]", NULL, NULL, NULL, NULL};
	struct dc_search_result *r;
	r = search("configs/systems.json", toy_with_all(over, sets), 1);
	ck_assert_uint_eq(r->counts.enumerated, 40);
	ck_assert_uint_eq(r->counts.valid, 20);
	free(r);
	over[1] = "training.loss_chunks=4";
	r = search("configs/systems.json", toy_with_all(over, sets), 1);
	ck_assert_uint_eq(r->counts.enumerated, 40);
	ck_assert_uint_eq(r->counts.rejected_by_rules, 24);
	ck_assert_uint_eq(r->counts.valid, 16);
	ck_assert_uint_eq(r->nbest, 16);
	for (size_t i = 0; i < r->nbest; i++)
		ck_assert(!(r->best[i].l.layout.micro_batch_size == 1 && r->best[i].l.layout.cp == 2));
	free(r);
	/* 8 chunks on an input of micro batch 2 (gas 1, cp 1: 8 tokens):
	 * micro batch 1 holds 4 or 2 tokens, micro batch 2 at cp 2 holds 4;
	 * only micro batch 2 at cp 1 stays, the 4 triples without cp 2 and
	 * sp true on the 2 of them with tp 2 ((2, 1, 1), (2, 1, 2)): 6 */
	over[1] = "training.loss_chunks=8";
	over[2] = "training.micro_batch_size=2";
	over[3] = "training.grad_accum_steps=1";
	r = search("configs/systems.json", toy_with_all(over, sets), 1);
	ck_assert_uint_eq(r->counts.enumerated, 40);
	ck_assert_uint_eq(r->counts.valid, 6);
	for (size_t i = 0; i < r->nbest; i++) {
		ck_assert_uint_eq(r->best[i].l.layout.micro_batch_size, 2);
		ck_assert_uint_eq(r->best[i].l.layout.cp, 1);
	}
	free(r);
}
END_TEST

/* The toy space under training.framework megatron with the input's
 * overlap keys, which the loader checks against the layout: a layout
 * that cannot run them is refused, as its report would be.
 * overlap.param_gather (the distributed optimizer's AllGather) with the
 * shardings none and zero1: test_counts_by_hand's 10 valid layouts each,
 * 20 of 40; with the overlap the 10 without sharding go. overlap.tp
 * (--tp-comm-overlap needs sequence parallelism) at zero1 alone: of the 7
 * triples, the 3 with tp 2 lose their sp-false layout, 10 - 3 = 7. */
START_TEST(test_counts_overlap_keys)
{
	const char *sets[40];
	const char *over[] = {"search.space.sharding=[\"none\",\"zero1\"]", "parallel.sharding=zero1",
			      "training.framework=megatron", NULL, NULL};
	struct dc_search_result *r;
	r = search("configs/systems.json", toy_with_all(over, sets), 1);
	ck_assert_uint_eq(r->counts.enumerated, 40);
	ck_assert_uint_eq(r->counts.valid, 20);
	free(r);
	over[3] = "overlap.param_gather=true";
	r = search("configs/systems.json", toy_with_all(over, sets), 1);
	ck_assert_uint_eq(r->counts.enumerated, 40);
	ck_assert_uint_eq(r->counts.rejected_by_rules, 30);
	ck_assert_uint_eq(r->counts.valid, 10);
	for (size_t i = 0; i < r->nbest; i++)
		ck_assert_int_eq(r->best[i].l.layout.sharding, DC_SHARD_ZERO1);
	free(r);
	over[0] = "search.space.sharding=[\"zero1\"]";
	over[3] = "overlap.tp=true";
	r = search("configs/systems.json", toy_with_all(over, sets), 1);
	ck_assert_uint_eq(r->counts.enumerated, 20);
	ck_assert_uint_eq(r->counts.valid, 7);
	for (size_t i = 0; i < r->nbest; i++)
		ck_assert(r->best[i].l.layout.tp == 1 || r->best[i].l.layout.sequence_parallel);
	free(r);
}
END_TEST

/* The toy space with 4 experts of 64 (top 2) in every layer, etp = tp:
 * ep x tp must divide a stage's 4 / pp ranks. Of the 7 (tp, cp, pp)
 * triples of test_counts_by_hand: (1,1,1) ep 1, 2, 4; (2,1,1) ep 1, 2,
 * with sp false and true: 4; (1,2,1) 3; (1,1,2) 2; (2,2,1) 4; (2,1,2)
 * ep 1: 2; (1,2,2) 2: 20 valid of 3 x 20 = 60 under custom. Under
 * megatron a MoE model at tp > 1 needs sequence parallelism
 * (moe_layer.py:636-640 raises in training): the 2 + 2 + 1 tp-2 layouts
 * with sp false go, 15 valid, each tp 1 or with sp. */
START_TEST(test_counts_megatron_moe_needs_sp)
{
	const char *sets[40];
	const char *over[] = {"model.num_experts=4", "model.experts_per_token=2", "model.moe_ffn_hidden_size=64",
			      NULL, NULL};
	struct dc_search_result *r;
	r = search("configs/systems.json", toy_with_all(over, sets), 1);
	ck_assert_uint_eq(r->counts.enumerated, 60);
	ck_assert_uint_eq(r->counts.valid, 20);
	free(r);
	over[3] = "training.framework=megatron";
	r = search("configs/systems.json", toy_with_all(over, sets), 1);
	ck_assert_uint_eq(r->counts.enumerated, 60);
	ck_assert_uint_eq(r->counts.rejected_by_rules, 45);
	ck_assert_uint_eq(r->counts.valid, 15);
	for (size_t i = 0; i < r->nbest; i++)
		ck_assert(r->best[i].l.layout.tp == 1 || r->best[i].l.layout.sequence_parallel);
	free(r);
}
END_TEST

/* The toy space's 10 valid layouts under FSDP (test_counts_by_hand),
 * under training.framework megatron: sharding fsdp is its
 * --use-torch-fsdp2, which asserts no pipeline (arguments.py:1034-1035 at
 * d98e8a64): the 4 with pp 2, (1,1,2), (2,1,2) with sp false and true,
 * (1,2,2), go; 6 valid, each pp 1. Under custom all 10 stay. */
START_TEST(test_counts_megatron_fsdp_no_pipeline)
{
	const char *over[] = {"search.space.sharding=[\"fsdp\"]", "parallel.sharding=fsdp", NULL, NULL};
	counts_framework_drops_pp2(over, 2, "training.framework=megatron");
}
END_TEST

/* 1 when the loader accepts `path` with `sets` and then `extra` */
static int loads(const char *path, const char *const *sets, const char *const *extra)
{
	struct dc_config *cfg = malloc(sizeof(*cfg));
	int ok;
	ck_assert_ptr_nonnull(cfg);
	ok = try_load(path, sets, extra, cfg, NULL, 0) == 0;
	free(cfg);
	return ok;
}

/* Every (tp, cp, pp, ep, sp) of the toy space that the loader accepts
 * is one of the search's best[] (all of them: everything valid fits, and
 * search.top 100 holds them), and it shows no other: `valid` of them */
static void toy_loader_agrees(const char *const *sets, const struct dc_search_result *r, uint64_t valid)
{
	static const uint64_t tcp[][3] = {{1, 1, 1}, {2, 1, 1}, {1, 2, 1}, {1, 1, 2}, {4, 1, 1},
					  {1, 4, 1}, {1, 1, 4}, {2, 2, 1}, {2, 1, 2}, {1, 2, 2}};
	uint64_t accepted = 0;
	ck_assert_uint_eq(r->nbest, valid);
	for (size_t i = 0; i < 10; i++)
		for (uint64_t ep = 1; ep <= 4; ep *= 2)
			for (int sp = 0; sp < 2; sp++) {
				char t[5][48];
				const char *extra[7];
				uint64_t dp = 4 / (tcp[i][0] * tcp[i][1] * tcp[i][2]);
				int seen = 0;
				snprintf(t[0], sizeof(t[0]), "parallel.tp=%llu", (unsigned long long)tcp[i][0]);
				snprintf(t[1], sizeof(t[1]), "parallel.cp=%llu", (unsigned long long)tcp[i][1]);
				snprintf(t[2], sizeof(t[2]), "parallel.pp=%llu", (unsigned long long)tcp[i][2]);
				snprintf(t[3], sizeof(t[3]), "parallel.dp=%llu", (unsigned long long)dp);
				snprintf(t[4], sizeof(t[4]), "parallel.ep=%llu", (unsigned long long)ep);
				for (int k = 0; k < 5; k++)
					extra[k] = t[k];
				extra[5] = sp ? "parallel.sequence_parallel=true" : "parallel.sequence_parallel=false";
				extra[6] = NULL;
				/* grad_accum_steps 2 at dp 4: 8 / dp in general */
				for (size_t b = 0; b < r->nbest; b++) {
					const struct dc_layout *l = &r->best[b].l.layout;
					seen |= l->tp == tcp[i][0] && l->cp == tcp[i][1] && l->pp == tcp[i][2] &&
						(l->ep ? l->ep : 1) == ep && l->sequence_parallel == sp;
				}
				{
					char gas[48];
					const char *with_gas[8];
					snprintf(gas, sizeof(gas), "training.grad_accum_steps=%llu", (unsigned long long)(8 / dp));
					for (int k = 0; k < 6; k++)
						with_gas[k] = extra[k];
					with_gas[6] = gas;
					with_gas[7] = NULL;
					ck_assert_msg(loads("configs/systems.json", sets, with_gas) == seen,
						      "tp %llu cp %llu pp %llu ep %llu sp %d: the loader %s it, the search %s",
						      (unsigned long long)tcp[i][0], (unsigned long long)tcp[i][1],
						      (unsigned long long)tcp[i][2], (unsigned long long)ep, sp,
						      seen ? "refuses" : "accepts", seen ? "ranks it" : "does not");
					accepted += (uint64_t)seen;
				}
			}
	ck_assert_uint_eq(accepted, valid);
}

/* training.framework torchtitan has no expert tensor-parallel size: at
 * ep > 1 its experts are whole (etp 1), at ep 1 they split over tp
 * (dc_config_layout_etp), so model.moe_ffn_hidden_size binds tp only at
 * ep 1. The toy space of test_counts_megatron_moe_needs_sp (4 experts,
 * every layer MoE, 60 enumerated), by hand per (tp, cp, pp) triple with
 * dp = 4 / (tp cp pp); ep x etp must divide tp x dp x cp, and etp other
 * than tp > 1 needs sp true:
 *   inner size 64 under torchtitan: (1,1,1) ep 1, 2, 4: 3; (2,1,1) ep 1
 *   (etp 2) with sp false and true, ep 2 and 4 (etp 1) with sp: 4;
 *   (1,2,1) 3; (1,1,2) ep 1, 2: 2; (2,2,1) as (2,1,1): 4; (2,1,2) (2
 *   ranks) ep 1 twice, ep 2 with sp: 3; (1,2,2) 2: 21 valid.
 *   inner size 63 (odd): tp 2 splits it nowhere, so under custom (etp =
 *   tp) the tp-2 triples go whole: 20 - (4 + 4 + 2) = 10. Under
 *   torchtitan only their ep-1 layouts go: (2,1,1) and (2,2,1) keep ep 2
 *   and 4 with sp, (2,1,2) ep 2 with sp: 21 - 11 + 5 = 15 valid, every
 *   tp-2 one at ep > 1. Before, the search refused tp 2 for the inner
 *   size before it knew ep: 10, 5 fewer than the loader accepts. */
START_TEST(test_counts_torchtitan_experts_whole_at_ep)
{
	const char *sets[40];
	const char *over[] = {"model.num_experts=4", "model.experts_per_token=2", "model.moe_ffn_hidden_size=64",
			      "training.framework=torchtitan", NULL};
	struct dc_search_result *r;
	r = search("configs/systems.json", toy_with_all(over, sets), 1);
	ck_assert_uint_eq(r->counts.enumerated, 60);
	ck_assert_uint_eq(r->counts.valid, 21);
	toy_loader_agrees(sets, r, 21);
	free(r);
	over[2] = "model.moe_ffn_hidden_size=63";
	over[3] = "training.framework=custom";
	r = search("configs/systems.json", toy_with_all(over, sets), 1);
	ck_assert_uint_eq(r->counts.enumerated, 60);
	ck_assert_uint_eq(r->counts.valid, 10);
	toy_loader_agrees(sets, r, 10);
	for (size_t i = 0; i < r->nbest; i++)
		ck_assert_uint_eq(r->best[i].l.layout.tp, 1);
	free(r);
	over[3] = "training.framework=torchtitan";
	r = search("configs/systems.json", toy_with_all(over, sets), 1);
	ck_assert_uint_eq(r->counts.enumerated, 60);
	ck_assert_uint_eq(r->counts.rejected_by_rules, 45);
	ck_assert_uint_eq(r->counts.valid, 15);
	toy_loader_agrees(sets, r, 15);
	for (size_t i = 0; i < r->nbest; i++) {
		const struct dc_layout *l = &r->best[i].l.layout;
		ck_assert(l->tp == 1 || (l->ep > 1 && l->sequence_parallel));
	}
	free(r);
}
END_TEST

/* The toy space at 4 layers with v 1 or 2: DeepSpeed's pipeline engine
 * runs 1F1B alone (deepspeed/runtime/pipe/engine.py:389), so its layouts
 * with v 2 go. By hand: (tp, cp, pp) triples dividing 4, 10; refused tp
 * 4 (2 heads) and cp 4 (2 cp = 8 does not divide 4): 8 left, pp 4 now
 * among them; sp true on the 3 with tp 2: 11 valid at v 1. v 2 needs pp
 * 2 (pp 4 x 2 = 8 does not divide 4 layers), m a multiple of pp (8 / dp,
 * dp 2 or 1: 4 or 8): (1, 1, 2), (2, 1, 2) with sp false and true,
 * (1, 2, 2): 4. Custom: 15 valid of 40; deepspeed 11. */
START_TEST(test_counts_deepspeed_interleaved)
{
	const char *sets[40];
	const char *over[] = {"search.space.virtual_pipeline=[1,2]", "model.num_layers=4", NULL, NULL};
	struct dc_search_result *r;
	r = search("configs/systems.json", toy_with_all(over, sets), 1);
	ck_assert_uint_eq(r->counts.enumerated, 40);
	ck_assert_uint_eq(r->counts.valid, 15);
	free(r);
	over[2] = "training.framework=deepspeed";
	r = search("configs/systems.json", toy_with_all(over, sets), 1);
	ck_assert_uint_eq(r->counts.enumerated, 40);
	ck_assert_uint_eq(r->counts.valid, 11);
	for (size_t i = 0; i < r->nbest; i++)
		ck_assert_uint_eq(r->best[i].l.layout.virtual_pipeline, 1);
	free(r);
}
END_TEST

/* search.space.sharding left out: the shardings training.framework runs
 * (docs/search.md). The toy space at 4 GPUs with every sharding: custom
 * tries all four; torchtitan none and fsdp (FSDP2 or DDP), half the
 * layouts; megatron none, zero1 and fsdp (its distributed optimizer or
 * FSDP2; no ZeRO-2), three quarters; deepspeed all four. */
START_TEST(test_counts_framework_shardings)
{
	static const struct {
		const char *framework;
		uint64_t quarters;
		uint32_t allowed; /* bits of enum dc_sharding */
	} rows[] = {
		{"training.framework=custom", 4, 15},
		{"training.framework=torchtitan", 2, (1u << DC_SHARD_NONE) | (1u << DC_SHARD_FSDP)},
		{"training.framework=megatron", 3, (1u << DC_SHARD_NONE) | (1u << DC_SHARD_ZERO1) | (1u << DC_SHARD_FSDP)},
		{"training.framework=deepspeed", 4, 15},
	};
	const char *sets[40];
	uint64_t all = 0;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		const char *over[] = {rows[i].framework, NULL};
		struct dc_search_result *r;
		size_t n = 0;
		/* the toy space but its search.space.sharding */
		toy_with_all(over, sets);
		for (size_t k = 0; sets[k]; k++)
			if (strncmp(sets[k], "search.space.sharding=", 22) != 0)
				sets[n++] = sets[k];
		sets[n] = NULL;
		r = search("configs/systems.json", sets, 1);
		if (i == 0)
			all = r->counts.enumerated;
		ck_assert_uint_eq(r->counts.enumerated * 4, all * rows[i].quarters);
		ck_assert_uint_gt(r->nbest, 0);
		for (size_t k = 0; k < r->nbest; k++)
			ck_assert_msg(rows[i].allowed >> r->best[k].l.layout.sharding & 1, "%s: %s", rows[i].framework,
				      dc_sharding_name(r->best[k].l.layout.sharding));
		free(r);
	}
	ck_assert_uint_gt(all, 0);
}
END_TEST

/* The recompute policies a space tries by default are those its framework
 * runs (config.h dc_search_recompute_mask): none, selective and full, but
 * none, op and full under torchtitan, whose selective checkpointing is per
 * op (torchtitan b5bcd76c distributed/activation_checkpoint.py:333-336).
 * The toy space without its search.space.recompute: 20 tuples, each under
 * 3 policies, 60 enumerated either way; under torchtitan no best layout
 * reruns the attention core alone, and the input's "selective" is outside
 * the space with the reason. */
START_TEST(test_recompute_space_by_framework)
{
	static const char *const fw[] = {"training.framework=custom", "training.framework=torchtitan"};
	for (int i = 0; i < 2; i++) {
		const char *sets[40], *over[] = {fw[i], "training.recompute=selective", NULL};
		struct dc_config cfg;
		struct dc_search_result *r;
		size_t n = 0;
		unsigned seen = 0;
		toy_with_all(over, sets);
		for (size_t k = 0; sets[k]; k++)
			if (strncmp(sets[k], "search.space.recompute=", 23) != 0)
				sets[n++] = sets[k];
		sets[n] = NULL;
		load("configs/systems.json", sets, NULL, &cfg);
		ck_assert_uint_eq(dc_search_recompute_mask(&cfg),
				  (1u << DC_RECOMPUTE_NONE) | (1u << DC_RECOMPUTE_FULL) |
					  (1u << (i ? DC_RECOMPUTE_OP : DC_RECOMPUTE_SELECTIVE)));
		r = search("configs/systems.json", sets, 1);
		ck_assert_uint_eq(r->counts.enumerated, 60);
		for (size_t k = 0; k < r->nbest; k++)
			seen |= 1u << r->best[k].l.recompute;
		ck_assert_uint_eq(seen, dc_search_recompute_mask(&cfg));
		ck_assert_int_eq(r->input_in_space, !i);
		if (i)
			ck_assert_str_eq(r->input_outside,
					 "its training.recompute \"selective\" is searched only when search.space.recompute "
					 "lists it (the default tries none, op and full, what training.framework \"torchtitan\" runs)");
		free(r);
	}
}
END_TEST

/* Nothing fits the host: the toy space's optimizer offloaded onto 1 MB
 * of host memory a node. Every layout's GPU peak is within 80 GiB, so the
 * reason names the host, not the GPU limit. */
START_TEST(test_nothing_fits_the_host)
{
	const char *sets[40];
	const char *over[] = {"parallel.offload=optimizer", "cluster.host_memory=1MB", NULL};
	struct dc_search_result *r;
	r = search("configs/systems.json", toy_with_all(over, sets), 1);
	ck_assert_uint_eq(r->counts.valid, 10);
	ck_assert_uint_eq(r->counts.fit, 0);
	ck_assert_msg(strstr(r->why, "no layout fits GPU and host memory together") != NULL, "%s", r->why);
	free(r);
}
END_TEST

/* The config's own layout outside the space says why: the toy space
 * searches recompute none and sharding none only. */
START_TEST(test_input_outside_says_why)
{
	const char *sets[40];
	struct dc_search_result *r;
	r = search("configs/systems.json", toy_with("training.recompute=selective", sets), 1);
	ck_assert_int_eq(r->input_in_space, 0);
	ck_assert_str_eq(r->input_outside, "its training.recompute \"selective\" is not in search.space.recompute");
	free(r);
	r = search("configs/systems.json", toy_with("parallel.sharding=zero1", sets), 1);
	ck_assert_int_eq(r->input_in_space, 0);
	ck_assert_str_eq(r->input_outside, "its parallel.sharding \"zero1\" is not in the space's shardings");
	free(r);
	r = search("configs/systems.json", toy_space, 1);
	ck_assert_int_eq(r->input_in_space, 1);
	ck_assert_str_eq(r->input_outside, "");
	free(r);
}
END_TEST

/* The toy space above with sizes tp 2 cannot split: the same 20
 * enumerated. An MLP of 255 (odd): tp 2 no longer divides it, so the 3
 * triples with tp 2 go too, 4 triples left, all tp 1, each valid with sp
 * false only: 4 valid, 16 refused. A sequence of 5 tokens instead: 2 cp
 * = 4 does not divide it, so cp 2 goes ((1, 2, 1), (2, 2, 1), (1, 2, 2)),
 * 4 triples left, 2 of them with tp 2 ((2, 1, 1), (2, 1, 2)); sequence
 * parallelism would split the 5 tokens over 2 tp ranks, so sp true is
 * refused there too: 4 valid, 16 refused (with sequence 4: 10 valid). */
START_TEST(test_counts_by_hand_mlp_and_sequence)
{
	const char *sets[32];
	struct dc_search_result *r = search("configs/systems.json", toy_with("model.ffn_hidden_size=255", sets), 1);
	ck_assert_uint_eq(r->counts.enumerated, 20);
	ck_assert_uint_eq(r->counts.rejected_by_rules, 16);
	ck_assert_uint_eq(r->counts.valid, 4);
	ck_assert_uint_eq(r->nbest, 4);
	for (size_t i = 0; i < r->nbest; i++) {
		ck_assert_uint_eq(r->best[i].l.layout.tp, 1);
		ck_assert_int_eq(r->best[i].l.layout.sequence_parallel, 0);
	}
	free(r);
	r = search("configs/systems.json", toy_with("model.seq_length=5", sets), 1);
	ck_assert_uint_eq(r->counts.enumerated, 20);
	ck_assert_uint_eq(r->counts.rejected_by_rules, 16);
	ck_assert_uint_eq(r->counts.valid, 4);
	for (size_t i = 0; i < r->nbest; i++)
		ck_assert_int_eq(r->best[i].l.layout.sequence_parallel, 0);
	free(r);
}
END_TEST

/* The same toy space, 20 enumerated and 10 valid as above, where nothing
 * fits (1 MiB of GPU memory holds no layout of a 2-layer model with a
 * 128-token vocabulary: its CUDA context alone is larger): each valid
 * layout is priced for memory, none for step time in the search, and then
 * only the search.top = 3 smallest peaks shown in best[] are priced in
 * full: priced_time 3. Without GPU speeds (gpt2.json names no cluster.gpu)
 * nothing is priced for step time at all: 10 priced for memory, 0 for
 * time, all 10 fitting its 24 GiB. */
START_TEST(test_priced_counts_by_hand)
{
	static const char *const toy[] = {
		"model.num_layers=2", "model.hidden_size=64", "model.num_attention_heads=2", "model.num_kv_heads=2", "model.ffn_hidden_size=256",
		"model.vocab_size=128", "model.seq_length=4", "cluster.num_nodes=1", "cluster.gpus_per_node=4",
		"cluster.gpu=a100-sxm4-80gb", "cluster.gpu_memory=1 MiB", "parallel.tp=1", "parallel.pp=1",
		"parallel.cp=1", "parallel.dp=4", "parallel.sharding=none", "parallel.virtual_pipeline=1",
		"parallel.sequence_parallel=false", "parallel.ep=1", "training.micro_batch_size=1",
		"training.global_batch_size=8", "training.grad_accum_steps=2", "training.recompute=none",
		"search.space.micro_batch_size=[1]", "search.space.virtual_pipeline=[1]",
		"search.space.sharding=[\"none\"]", "search.space.recompute=[\"none\"]", "search.top=3", NULL};
	static const char *const toy_no_gpu[] = {
		"model.num_layers=2", "model.hidden_size=64", "model.num_attention_heads=2", "model.num_kv_heads=2", "model.ffn_hidden_size=256",
		"model.vocab_size=128", "model.seq_length=4", "cluster.num_nodes=1", "cluster.gpus_per_node=4",
		"parallel.tp=1", "parallel.pp=1",
		"parallel.cp=1", "parallel.dp=4", "parallel.sharding=none", "parallel.virtual_pipeline=1",
		"parallel.sequence_parallel=false", "parallel.ep=1", "training.micro_batch_size=1",
		"training.global_batch_size=8", "training.grad_accum_steps=2", "training.recompute=none",
		"search.space.micro_batch_size=[1]", "search.space.virtual_pipeline=[1]",
		"search.space.sharding=[\"none\"]", "search.space.recompute=[\"none\"]", "search.top=3", NULL};
	struct dc_search_result *r = search("configs/systems.json", toy, 1);
	ck_assert_uint_eq(r->counts.enumerated, 20);
	ck_assert_uint_eq(r->counts.rejected_by_rules, 10);
	ck_assert_uint_eq(r->counts.valid, 10);
	ck_assert_uint_eq(r->counts.priced_memory, 10);
	ck_assert_uint_eq(r->counts.fit, 0);
	ck_assert_uint_eq(r->counts.priced_time, 3);
	ck_assert_uint_eq(r->nbest, 3);
	free(r);
	r = search("configs/gpt2.json", toy_no_gpu, 2);
	ck_assert_int_eq(r->step_available, 0);
	ck_assert_uint_eq(r->counts.enumerated, 20);
	ck_assert_uint_eq(r->counts.rejected_by_rules, 10);
	ck_assert_uint_eq(r->counts.priced_memory, 10);
	ck_assert_uint_eq(r->counts.priced_time, 0);
	ck_assert_uint_eq(r->counts.fit, 10);
	free(r);
}
END_TEST

/* The 1T model on one node: nothing fits; the smallest peak is named
 * with its layout, and it is the first of best[], all fits = false. */
START_TEST(test_nothing_fits_names_the_smallest_peak)
{
	static const char *const one_node[] = {"cluster.num_nodes=1", "parallel.pp=1", "parallel.dp=1",
					       "training.grad_accum_steps=8", NULL};
	struct dc_search_result *r = search("configs/korthikanti-1t.json", one_node, 2);
	ck_assert_uint_gt(r->counts.valid, 0);
	ck_assert_uint_eq(r->counts.fit, 0);
	ck_assert_int_eq(r->has_tightest, 1);
	ck_assert_uint_gt(r->tightest.peak_bytes, r->limit_bytes);
	ck_assert_ptr_nonnull(strstr(r->why, "no layout fits: the smallest peak is"));
	ck_assert_ptr_nonnull(strstr(r->why, "parallel.tp="));
	ck_assert_uint_gt(r->nbest, 0);
	ck_assert_uint_eq(r->best[0].peak_bytes, r->tightest.peak_bytes);
	for (size_t i = 0; i < r->nbest; i++) {
		ck_assert_int_eq(r->best[i].fits, 0);
		if (i)
			ck_assert_uint_le(r->best[i - 1].peak_bytes, r->best[i].peak_bytes);
	}
	ck_assert_uint_eq(r->npareto, 0);
	/* the smallest peak is the report's too */
	same_as_report("configs/korthikanti-1t.json", one_node, &r->best[0]);
	free(r);
}
END_TEST

/* tp 3 divides neither the 96 heads' ... it does divide 96, but not the
 * 8 GPUs of a node: every tuple with it is refused by the domain rule, and
 * no other tp is in the space. */
START_TEST(test_nothing_valid_names_the_rule)
{
	static const char *const tp3[] = {"search.space.tp=[3]", NULL};
	static const char *const tp5[] = {"search.space.tp=[5]", NULL};
	struct dc_search_result *r = search("configs/korthikanti-175b.json", tp3, 1);
	/* 3 does not divide the world of 64: no tuple at all */
	ck_assert_uint_eq(r->counts.enumerated, 0);
	ck_assert_uint_eq(r->counts.valid, 0);
	ck_assert_str_eq(r->why, "the space holds no layout: no value of search.space.tp divides the GPUs (the "
				 "warnings name the values left out)");
	ck_assert_uint_eq(r->nbest, 0);
	free(r);
	{
		/* tp 64 and pp 2 each divide the 64 GPUs, not together (128) */
		static const char *const tp64pp2[] = {"search.space.tp=[64]", "search.space.pp=[2]", NULL};
		r = search("configs/korthikanti-175b.json", tp64pp2, 1);
		ck_assert_uint_eq(r->counts.enumerated, 0);
		ck_assert_str_eq(r->why, "the space holds no layout: no tp x cp x pp of search.space divides the 64 GPUs");
		free(r);
	}
	/* the 22B model on 8 GPUs with tp 4 only and 2 cp ... use heads: 64
	 * heads, tp 5 does not divide the 8-GPU world either; tp 16 on
	 * the 175B's 64 GPUs divides the world and the 96 heads but not the
	 * 8-GPU NVLink domain */
	r = search("configs/korthikanti-175b.json", tp5, 1);
	ck_assert_uint_eq(r->counts.enumerated, 0);
	free(r);
	{
		static const char *const tp16[] = {"search.space.tp=[16]", NULL};
		r = search("configs/korthikanti-175b.json", tp16, 1);
		ck_assert_uint_gt(r->counts.enumerated, 0);
		ck_assert_uint_eq(r->counts.valid, 0);
		ck_assert_ptr_nonnull(strstr(r->why, "parallel.tp must stay within the NVLink domain"));
		free(r);
	}
	{
		static const char *const across[] = {"search.space.tp=[16]", "search.tp_across_nodes=true", NULL};
		r = search("configs/korthikanti-175b.json", across, 1);
		ck_assert_uint_gt(r->counts.valid, 0);
		free(r);
	}
}
END_TEST

/* The published layout is the config's own: found, fitting, and its step
 * within `slack` of the search's best (docs/search.md gives the ranks). */
static void published(const char *path, const char *const *sets, double slack)
{
	struct dc_search_result *r = search(path, sets, 2);
	char best[600];
	ck_assert_msg(r->input_in_space, "%s: the published layout is not in the space", path);
	ck_assert_msg(r->input.fits, "%s: the published layout does not fit", path);
	ck_assert_uint_gt(r->nbest, 0);
	ck_assert_msg(r->input.step_time_s <= r->best[0].step_time_s * slack, "%s: rank %llu, %.4g s against %.4g s",
		      path, (unsigned long long)r->input_rank, r->input.step_time_s, r->best[0].step_time_s);
	dc_search_layout_text(&r->best[0].l, 0, best, sizeof(best));
	fprintf(stderr, "%s: published layout ranks %llu of %llu that fit, %.3f x the best step (best: %s)\n", path,
		(unsigned long long)r->input_rank, (unsigned long long)r->counts.fit,
		r->input.step_time_s / r->best[0].step_time_s, best);
	free(r);
}

/* Korthikanti et al. 2022 Table 3: the whole space (every technique of
 * the paper's own setup) */
START_TEST(test_korthikanti_published_layouts)
{
	static const char *const none[] = {NULL};
	published("configs/korthikanti-22b.json", none, 1.15);
	published("configs/korthikanti-175b.json", none, 1.15);
	published("configs/korthikanti-530b.json", none, 1.15);
	published("configs/korthikanti-1t.json", none, 1.15);
}
END_TEST

/* Megatron-LM 2021 Table 1: the techniques of 2021 (full recompute, no
 * sequence parallelism, no ZeRO, no cp), the published tp and pp with
 * the micro batch and v the paper leaves unstated at their best: first
 * the search over those, then that layout as the input of the whole
 * search. */
static void table1(const char *name, uint64_t tp, uint64_t pp)
{
	char path[128], stp[64], spp[64];
	const char *sets[] = {"search.space.recompute=[\"full\"]", "search.space.sequence_parallel=[false]",
			      "search.space.sharding=[\"none\"]", "search.space.cp=[1]", stp, spp, "search.top=1", NULL};
	const char *with[MAX_SETS];
	char text[600];
	struct dc_search_result *r;
	size_t n = 0;

	snprintf(path, sizeof(path), "tests/inputs/megatron-2021/%s.json", name);
	snprintf(stp, sizeof(stp), "search.space.tp=[%llu]", (unsigned long long)tp);
	snprintf(spp, sizeof(spp), "search.space.pp=[%llu]", (unsigned long long)pp);
	r = search(path, sets, 2);
	ck_assert_uint_eq(r->nbest, 1);
	dc_search_layout_text(&r->best[0].l, 0, text, sizeof(text));
	free(r);
	for (size_t i = 0; i < 4; i++)
		with[n++] = sets[i];
	for (char *t = text; *t;) {
		size_t len = strcspn(t, " ");
		with[n++] = t;
		t += len;
		if (*t)
			*t++ = 0;
	}
	with[n] = NULL;
	/* 1.21, not the 1.15 of Table 3: with the 2021 gradient AllReduce after
	 * the flush (overlap.dp false), the 18.4B's tp 8 without a pipeline
	 * pays it all, and the model, which charges no per-microbatch cost,
	 * prefers tp 2 with an interleaved pipeline (docs/search.md); the
	 * ring's plateau latency across nodes (NCCL tuning.cc v2.26.2
	 * L539-542) moved it from 1.198 to 1.201, 1F1B's waits for sends in
	 * its steady phase (docs/step-model.md) to 1.170 */
	published(path, with, 1.21);
}

START_TEST(test_megatron_2021_published_layouts)
{
	table1("gpt-1_7b", 1, 1);
	table1("gpt-3_6b", 2, 1);
	table1("gpt-7_5b", 4, 1);
	table1("gpt-18_4b", 8, 1);
	table1("gpt-39_1b", 8, 2);
	table1("gpt-76_1b", 8, 4);
	table1("gpt-145_6b", 8, 8);
	table1("gpt-310_1b", 8, 16);
	table1("gpt-529_6b", 8, 35);
	table1("gpt-1008b", 8, 64);
}
END_TEST

START_TEST(test_layout_text)
{
	struct dc_search_layout l = {{8, 4, 2, 1, 1, 3, 1, DC_SHARD_ZERO1, 2, 16}, DC_RECOMPUTE_SELECTIVE, 0};
	char buf[600];
	dc_search_layout_text(&l, 0, buf, sizeof(buf));
	ck_assert_str_eq(buf, "parallel.tp=8 parallel.cp=1 parallel.pp=4 parallel.dp=2 parallel.ep=1 "
			      "parallel.dp_replicate=1 parallel.virtual_pipeline=3 parallel.sequence_parallel=true parallel.sharding=zero1 "
			      "training.micro_batch_size=2 training.grad_accum_steps=16 training.recompute=selective");
	dc_search_layout_text(&l, 1, buf, sizeof(buf));
	ck_assert_str_eq(buf, "{\"parallel.tp\": 8, \"parallel.cp\": 1, \"parallel.pp\": 4, \"parallel.dp\": 2, "
			      "\"parallel.ep\": 1, \"parallel.dp_replicate\": 1, \"parallel.virtual_pipeline\": 3, "
			      "\"parallel.sequence_parallel\": true, "
			      "\"parallel.sharding\": \"zero1\", \"training.micro_batch_size\": 2, "
			      "\"training.grad_accum_steps\": 16, \"training.recompute\": \"selective\"}");
	l.schedule = DC_PIPE_ZERO_BUBBLE;
	l.schedule_named = 1;
	dc_search_layout_text(&l, 0, buf, sizeof(buf));
	ck_assert_ptr_nonnull(strstr(buf, "training.recompute=selective parallel.pipeline_schedule=zero_bubble"));
	dc_search_layout_text(&l, 1, buf, sizeof(buf));
	ck_assert_ptr_nonnull(strstr(buf, "\"training.recompute\": \"selective\", \"parallel.pipeline_schedule\": \"zero_bubble\"}"));
	l.schedule_named = 0;
	/* truncation keeps the text terminated */
	ck_assert_uint_eq(dc_search_layout_text(&l, 0, buf, 8), 7);
	ck_assert_str_eq(buf, "paralle");
}
END_TEST

/* Tight by hand: the limit 80 GiB = 85,899,345,920 B, 5% of it
 * 4,294,967,296 B, so a peak from 81,604,378,624 B (76 GiB) up to the
 * limit is tight. 79.5 GiB = 85,362,475,008 B is; 75.5 GiB is not; a peak
 * above the limit does not fit at all, so it is not "tight". */
START_TEST(test_tight_by_hand)
{
	const uint64_t gib = 1073741824ull, limit = 80 * gib;
	ck_assert_uint_eq(limit, 85899345920ull);
	ck_assert_int_eq(dc_search_tight(85362475008ull, limit), 1); /* 79.5 GiB */
	ck_assert_int_eq(dc_search_tight(81604378624ull, limit), 1); /* 76 GiB exactly */
	ck_assert_int_eq(dc_search_tight(81604378623ull, limit), 0);
	ck_assert_int_eq(dc_search_tight(75 * gib + gib / 2, limit), 0);
	ck_assert_int_eq(dc_search_tight(limit, limit), 1);
	ck_assert_int_eq(dc_search_tight(limit + 1, limit), 0);
}
END_TEST

/* The toy space of test_counts_by_hand, searched again with the GPU's
 * memory just above the best layout's peak P: P + P / 100 bytes leaves
 * under 1% free, so that layout is flagged tight (and still ranked: it
 * fits); with search.headroom 0.5 on 80 GiB the limit is half of it,
 * 42,949,672,960 B, and a peak of that toy (well under 1 GiB) is not. */
START_TEST(test_tight_layout_flagged)
{
	const char *sets[MAX_SETS];
	const char *over[] = {"cluster.gpu_memory=80 GiB", "search.headroom=0.5", NULL};
	char mem[64];
	struct dc_search_result *r;
	uint64_t peak;
	size_t examined;

	r = search("configs/systems.json", toy_with_all(over, sets), 1);
	ck_assert_uint_eq(r->limit_bytes, 42949672960ull);
	ck_assert_uint_gt(r->nbest, 0);
	ck_assert_int_eq(r->best[0].tight, 0);
	ck_assert_uint_eq(r->counts.tight, 0);
	peak = r->best[0].peak_bytes;
	free(r);
	snprintf(mem, sizeof(mem), "cluster.gpu_memory=%llu B", (unsigned long long)(peak + peak / 100));
	/* the default headroom, 0: the limit is all of it */
	over[0] = mem;
	over[1] = NULL;
	r = search("configs/systems.json", toy_with_all(over, sets), 1);
	ck_assert_uint_eq(r->limit_bytes, peak + peak / 100);
	ck_assert_uint_gt(r->nbest, 0);
	examined = 0;
	for (size_t i = 0; i < r->nbest; i++) {
		if (r->best[i].peak_bytes != peak)
			continue;
		ck_assert_int_eq(r->best[i].fits, 1);
		ck_assert_int_eq(r->best[i].tight, 1);
		examined++;
	}
	/* the layout of peak P is among those listed, so the loop checked it */
	ck_assert_uint_ge(examined, 1);
	ck_assert_uint_gt(r->counts.tight, 0);
	free(r);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("search");
	TCase *c = tcase_create("core");
	tcase_set_timeout(c, 600);
	tcase_add_test(c, test_layout_text);
	tcase_add_test(c, test_counts_by_hand);
	tcase_add_test(c, test_counts_by_hand_mlp_and_sequence);
	tcase_add_test(c, test_counts_deepspeed_pipeline_zero2);
	tcase_add_test(c, test_counts_loss_chunks);
	tcase_add_test(c, test_counts_overlap_keys);
	tcase_add_test(c, test_counts_megatron_moe_needs_sp);
	tcase_add_test(c, test_counts_megatron_fsdp_no_pipeline);
	tcase_add_test(c, test_counts_torchtitan_experts_whole_at_ep);
	tcase_add_test(c, test_counts_deepspeed_interleaved);
	tcase_add_test(c, test_counts_framework_shardings);
	tcase_add_test(c, test_recompute_space_by_framework);
	tcase_add_test(c, test_nothing_fits_the_host);
	tcase_add_test(c, test_input_outside_says_why);
	tcase_add_test(c, test_priced_counts_by_hand);
	tcase_add_test(c, test_tight_by_hand);
	tcase_add_test(c, test_tight_layout_flagged);
	tcase_add_test(c, test_best_and_pareto_are_the_reports_numbers);
	tcase_add_test(c, test_every_jobs_gives_the_same_result);
	tcase_add_test(c, test_nothing_fits_names_the_smallest_peak);
	tcase_add_test(c, test_nothing_valid_names_the_rule);
	tcase_add_test(c, test_korthikanti_published_layouts);
	tcase_add_test(c, test_megatron_2021_published_layouts);
	suite_add_tcase(s, c);
	return s;
}

int main(void)
{
	SRunner *r = srunner_create(suite());
	int failed;
	srunner_run_all(r, CK_NORMAL);
	failed = srunner_ntests_failed(r);
	srunner_free(r);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
