/* check_activation.c - activation memory against Korthikanti et al. 2022.
 *
 * Table 2 gives bytes per transformer layer for one microbatch on one
 * tensor-parallel rank (16-bit activations, 1-byte dropout masks):
 *   tensor parallel             sbh (10 + 24/t + 5as/(ht))
 *   tensor + sequence parallel  sbh (34/t + 5as/(ht))
 *   TP + selective recompute    sbh (10 + 24/t)
 *   TP + SP + selective         sbh (34/t)
 *   full recompute              sbh (2)
 * Every expected value below is worked out by hand from those equations
 * for the paper's own shapes, never read back from the code.
 */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "distcalc/activation.h"
#include "distcalc/config.h"
#include "distcalc/memory.h"

#include "fixtures.h"
#include "fixtures_plan.h"

/* GPT-3 175B of Table 3: a 96, h 12288, L 96, s 2048, V 51200, 4h GELU MLP,
 * t 8, p 8, micro batch 1, 64 microbatches (global batch 64, no dp). */
static void gpt3(struct dc_config *c, const char *recompute, int sp, int pp, int v)
{
	fixture_json(c,
		 "{\"model\": {\"num_layers\": 96, \"hidden_size\": 12288, \"num_attention_heads\": 96,"
		 " \"ffn_hidden_size\": 49152, \"vocab_size\": 51200, \"seq_length\": 2048, \"mlp\": \"gelu\"},"
		 " \"cluster\": {\"num_nodes\": %d, \"gpus_per_node\": 8, \"gpu_memory\": \"80 GiB\","
		 " \"intra_node\": {\"bandwidth\": \"300 GB/s\"}, \"inter_node\": {\"bandwidth\": \"200 Gb/s\"}},"
		 " \"parallel\": {\"tp\": 8, \"pp\": %d, \"dp\": 1, \"sequence_parallel\": %s, \"virtual_pipeline\": %d},"
		 " \"training\": {\"micro_batch_size\": 1, \"grad_accum_steps\": 64, \"recompute\": \"%s\"}}",
		 pp, pp, sp ? "true" : "false", v, recompute);
}

static uint64_t layer_bytes(const char *recompute, int sp)
{
	struct dc_config c;
	uint64_t v = 0;
	gpt3(&c, recompute, sp, 8, 1);
	ck_assert_int_eq(dc_act_layer_bytes(plan_of(&c), 0, &v), 0);
	return v;
}

/* sbh = 2048 x 1 x 12288 = 25,165,824; 5as/(ht) = 5 x 96 x 2048 / (12288 x 8)
 * = 10 exactly */
#define SBH 25165824ull

START_TEST(test_table2_tensor_parallel)
{
	/* sbh (10 + 3 + 10) = 23 sbh = 578,813,952 */
	ck_assert_uint_eq(layer_bytes("none", 0), 23 * SBH);
	ck_assert_uint_eq(layer_bytes("none", 0), 578813952ull);
}
END_TEST

START_TEST(test_eq1_and_22b)
{
	/* Eq. 1 (t = 1): 5as/h = 80, sbh (34 + 80) = 114 x 25,165,824 =
	 * 2,868,903,936. 22B of Table 3 (a 64, h 6144, s 2048, b 4, t 8):
	 * sbh = 50,331,648; 10 sbh = 503,316,480; 24 sbh / 8 = 150,994,944;
	 * 5 a s^2 b / t = 5 x 64 x 4,194,304 x 4 / 8 = 671,088,640: 1,325,400,064 */
	struct dc_config c;
	uint64_t v;
	gpt3(&c, "none", 0, 8, 1);
	c.parallel.tp = 1;
	ck_assert_int_eq(dc_act_layer_bytes(plan_of(&c), 0, &v), 0);
	ck_assert_uint_eq(v, 2868903936ull);
	c.parallel.tp = 8;
	c.model.num_attention_heads = 64;
	c.model.num_kv_heads = 64;
	c.model.hidden_size = 6144;
	c.model.head_dim = 96;
	c.model.ffn_hidden_size = 4 * 6144;
	c.training.micro_batch_size = 4;
	ck_assert_int_eq(dc_act_layer_bytes(plan_of(&c), 0, &v), 0);
	ck_assert_uint_eq(v, 1325400064ull);
	/* overflow is reported, not wrapped */
	c.model.seq_length = UINT64_MAX / 4;
	ck_assert_int_eq(dc_act_layer_bytes(plan_of(&c), 0, &v), -1);
}
END_TEST

START_TEST(test_table2_sequence_parallel)
{
	/* sbh (34/8 + 10) = 14.25 sbh = 358,612,992 */
	ck_assert_uint_eq(layer_bytes("none", 1), 358612992ull);
}
END_TEST

START_TEST(test_table2_selective)
{
	/* sbh (10 + 3) = 13 sbh = 327,155,712 */
	ck_assert_uint_eq(layer_bytes("selective", 0), 13 * SBH);
	/* with SP: 34/8 sbh = 4.25 sbh = 106,954,752 */
	ck_assert_uint_eq(layer_bytes("selective", 1), 106954752ull);
}
END_TEST

START_TEST(test_table2_full)
{
	/* sbh (2) = 50,331,648; with SP the kept input is the sequence shard:
	 * 2sbh/8 = 6,291,456 */
	ck_assert_uint_eq(layer_bytes("full", 0), 2 * SBH);
	ck_assert_uint_eq(layer_bytes("full", 1), 6291456ull);
}
END_TEST

START_TEST(test_selective_saves_70_percent)
{
	/* Korthikanti section 5: selective recompute saves 70% of activation
	 * memory for GPT-3 (5as/h = 80: 80 / (34 + 80) = 70.2%). With SP both
	 * are divided by t: (14.25 - 4.25) / 14.25 = 70.18% */
	double none = (double)layer_bytes("none", 1), sel = (double)layer_bytes("selective", 1);
	ck_assert_double_eq_tol((none - sel) / none, 80.0 / 114.0, 1e-12);
}
END_TEST

START_TEST(test_recompute_working_set)
{
	/* during backward one layer is rebuilt: selective rebuilds the scores
	 * 5as^2b/t = 10 sbh = 251,658,240; full the whole layer 23 sbh */
	struct dc_config c;
	uint64_t v;
	gpt3(&c, "selective", 0, 8, 1);
	ck_assert_int_eq(dc_act_recompute_working_bytes(plan_of(&c), 0, &v), 0);
	ck_assert_uint_eq(v, 10 * SBH);
	gpt3(&c, "full", 0, 8, 1);
	ck_assert_int_eq(dc_act_recompute_working_bytes(plan_of(&c), 0, &v), 0);
	ck_assert_uint_eq(v, 23 * SBH);
	gpt3(&c, "none", 0, 8, 1);
	ck_assert_int_eq(dc_act_recompute_working_bytes(plan_of(&c), 0, &v), 0);
	ck_assert_uint_eq(v, 0);
}
END_TEST

START_TEST(test_pipeline_in_flight)
{
	/* Eq. 5: under 1F1B the first stage holds p microbatches of L/p layers:
	 * 8 x 12 = 96 layer-microbatches; the last stage 12 x 1 */
	struct dc_config c;
	uint64_t n;
	gpt3(&c, "selective", 1, 8, 1);
	ck_assert_int_eq(dc_act_layer_microbatches(plan_of(&c), 0, &n), 0);
	ck_assert_uint_eq(n, 96);
	ck_assert_int_eq(dc_act_layer_microbatches(plan_of(&c), 7, &n), 0);
	ck_assert_uint_eq(n, 12);
	ck_assert_int_eq(dc_act_layer_microbatches(plan_of(&c), 3, &n), 0);
	ck_assert_uint_eq(n, 12 * 5);
}
END_TEST

START_TEST(test_interleaved_factor)
{
	/* Korthikanti section 4.2.3: the interleaved schedule multiplies the
	 * first stage by 1 + (p-1)/(pm); Table 3 runs 175B with m = 3 chunks:
	 * 96 x (1 + 7/24) = 124 layer-microbatches */
	struct dc_config c;
	uint64_t n;
	gpt3(&c, "selective", 1, 8, 3);
	ck_assert_int_eq(dc_act_layer_microbatches(plan_of(&c), 0, &n), 0);
	ck_assert_uint_eq(n, 124);
	/* the last stage: warm-up (v - 1) p = 16 chunk-microbatches plus one,
	 * 4 layers each: 68 */
	ck_assert_int_eq(dc_act_layer_microbatches(plan_of(&c), 7, &n), 0);
	ck_assert_uint_eq(n, 68);
}
END_TEST

START_TEST(test_embedding_and_output_terms)
{
	/* section 4.3 extra terms, with SP: embedding dropout mask sbh/t per
	 * microbatch = 3,145,728; last stage: final norm and output-layer inputs
	 * 4sbh/t = 12,582,912 and FP32 logits 4 s b V / t = 4 x 2048 x 51200 / 8
	 * = 52,428,800: 65,011,712. Without SP the sbh terms are not divided. */
	struct dc_config c;
	uint64_t v;
	gpt3(&c, "selective", 1, 8, 1);
	ck_assert_int_eq(dc_act_embedding_bytes(plan_of(&c), &v), 0);
	ck_assert_uint_eq(v, SBH / 8);
	ck_assert_int_eq(dc_act_output_bytes(plan_of(&c), &v), 0);
	ck_assert_uint_eq(v, 65011712ull);
	gpt3(&c, "selective", 0, 8, 1);
	ck_assert_int_eq(dc_act_embedding_bytes(plan_of(&c), &v), 0);
	ck_assert_uint_eq(v, SBH);
	ck_assert_int_eq(dc_act_output_bytes(plan_of(&c), &v), 0);
	ck_assert_uint_eq(v, 4 * SBH + 52428800ull);
}
END_TEST

START_TEST(test_gqa_swiglu_generalisation)
{
	/* Llama-3-8B-like layer: h 4096, a 32, kv 8, d 128, SwiGLU f 14336,
	 * s 8192, b 1, t 1. By hand (activation.h):
	 *   replicated 10 sbh                 = 10 x 33,554,432  = 335,544,320
	 *   Q and projection input 2 x 2sbh   = 134,217,728
	 *   K and V 2 x 2 s b (8 x 128)       = 2 x 2 x 8192 x 1024 = 33,554,432
	 *   SwiGLU 6 s b f = 6 x 8192 x 14336 = 704,643,072
	 *   scores 5 a s^2 b = 5 x 32 x 67,108,864 = 10,737,418,240
	 * total 11,945,377,792; the paper's MHA + 4h-GELU formula would give
	 * sbh(34 + 5as/h) = 33,554,432 x (34 + 320) = 11,878,268,928 */
	const char *json =
		"{\"model\": {\"num_layers\": 32, \"hidden_size\": 4096, \"num_attention_heads\": 32,"
		" \"num_kv_heads\": 8, \"ffn_hidden_size\": 14336, \"vocab_size\": 128256, \"seq_length\": 8192},"
		" \"cluster\": {\"num_nodes\": 1, \"gpus_per_node\": 1, \"gpu_memory\": \"80 GiB\","
		" \"intra_node\": {\"bandwidth\": \"300 GB/s\"}, \"inter_node\": {\"bandwidth\": \"200 Gb/s\"}}}";
	struct dc_config c;
	struct dc_diag d;
	uint64_t v;
	dc_diag_init(&d);
	ck_assert_int_eq(dc_config_load_buffer(json, strlen(json), "l3.json", NULL, 0, &c, &d), 0);
	dc_diag_release(&d);
	ck_assert_int_eq(dc_act_layer_bytes(plan_of(&c), 0, &v), 0);
	ck_assert_uint_eq(v, 11945377792ull);
}
END_TEST

START_TEST(test_moe_layer)
{
	/* Mixtral-8x7B (configs/mixtral-8x7b-ep.json: tp 2, s 4096, b 1; h 4096,
	 * a 32, kv 8, d 128, top-2 of experts with f 14336, SwiGLU), no
	 * recompute. By hand: sbh = 16,777,216; replicated 10 sbh =
	 * 167,772,160; Q and projection input 2 x 2 x 4096 x 4096 and K, V
	 * 2 x 2 x 4096 x 1024: 83,886,080; experts 6 s b (2 x 14336) =
	 * 704,643,072 plus the two routed copies of each token 2 x 2 sbh =
	 * 67,108,864; linear (83,886,080 + 771,751,936) / 2 = 427,819,008;
	 * scores 5 x 32 x 4096^2 / 2 = 1,342,177,280: 1,937,768,448 */
	struct dc_config c;
	struct dc_diag d;
	char path[512];
	uint64_t v;
	snprintf(path, sizeof(path), "%s/configs/mixtral-8x7b-ep.json", DC_SOURCE_DIR);
	dc_diag_init(&d);
	ck_assert_int_eq(dc_config_load_file(path, NULL, 0, &c, &d), 0);
	dc_diag_release(&d);
	c.training.recompute = DC_RECOMPUTE_NONE;
	ck_assert_int_eq(dc_act_layer_bytes(plan_of(&c), 1, &v), 0);
	ck_assert_uint_eq(v, 1937768448ull);
}
END_TEST

START_TEST(test_ledger_uses_schedule)
{
	/* the ledger's first stage: 124 layer-microbatches x 4.25 sbh
	 * (106,954,752) = 13,262,389,248, plus the embedding mask sbh/t =
	 * 3,145,728 for the microbatches in flight in its first chunk: of the
	 * 31 chunk-microbatches in flight (2 x 7 + 2 x 8 + 1), run in blocks of
	 * 8 per chunk (chunk 0, 1, 2, then 0 again), 8 + 7 = 15 are chunk 0's
	 * (47,185,920): 13,309,575,168; backward adds the scores of one layer
	 * being rebuilt */
	struct dc_config c;
	struct dc_mem_ledger l;
	const char *err = NULL;
	gpt3(&c, "selective", 1, 8, 3);
	ck_assert_int_eq(dc_memory_stage(plan_of(&c), 0, &l, &err), 0);
	ck_assert_uint_eq(l.activation_layers_bytes, 13262389248ull);
	ck_assert_uint_eq(l.activations_bytes, 13309575168ull);
	ck_assert_uint_eq(dc_act_first_stage_microbatches(plan_of(&c)), 15);
	ck_assert_uint_eq(l.activation_recompute_bytes, 10 * SBH);
}
END_TEST

/* Context parallelism by hand: a layer of h 1024, 16 heads (4 KV heads of
 * 64), SwiGLU f 4096, s 8192, b 1, tp 2, cp 4 (one node of 8). A cp rank
 * holds sb = 8192 / 4 = 2048 tokens, and its queries meet all 8192 keys:
 *   replicated 10 sbh                      = 10 x 2048 x 1024 = 20,971,520
 *   linear     (2sb(q+k+v+o) + 6sbf) / t   = (2 x 2048 x 2560 + 6 x 2048 x 4096) / 2
 *                                          = (10,485,760 + 50,331,648) / 2 = 30,408,704
 *   scores     5 a (s/cp) s b / t          = 5 x 16 x 2048 x 8192 / 2 = 671,088,640
 *   input      2 sbh (what full recompute keeps) = 4,194,304
 * the first stage's embedding mask sbh = 2,097,152 and the last stage's
 * 4 sbh + 4 sbV / t = 8,388,608 + 131,072,000 = 139,460,608. */
START_TEST(test_context_parallel_layer)
{
	struct dc_config c;
	struct dc_act_layer parts;
	uint64_t v = 0;

	fixture_json(&c, "{\"model\": {\"num_layers\": 2, \"hidden_size\": 1024, \"num_attention_heads\": 16,"
			 " \"num_kv_heads\": 4, \"ffn_hidden_size\": 4096, \"vocab_size\": 32000, \"seq_length\": 8192},"
			 " \"cluster\": {\"num_nodes\": 1, \"gpus_per_node\": 8, \"gpu_memory\": \"80 GiB\","
			 " \"intra_node\": {\"bandwidth\": \"300 GB/s\"}, \"inter_node\": {\"bandwidth\": \"50 GB/s\"}},"
			 " \"parallel\": {\"tp\": 2, \"cp\": 4}, \"training\": {\"recompute\": \"full\"}}");
	ck_assert_int_eq(dc_act_layer_parts(plan_of(&c), 0, &parts), 0);
	ck_assert_uint_eq(parts.replicated_bytes, 20971520ull);
	ck_assert_uint_eq(parts.linear_bytes, 30408704ull);
	ck_assert_uint_eq(parts.scores_bytes, 671088640ull);
	ck_assert_uint_eq(parts.input_bytes, 4194304ull);
	ck_assert_int_eq(dc_act_layer_bytes(plan_of(&c), 0, &v), 0);
	ck_assert_uint_eq(v, 4194304ull); /* full recompute keeps the input */
	ck_assert_int_eq(dc_act_embedding_bytes(plan_of(&c), &v), 0);
	ck_assert_uint_eq(v, 2097152ull);
	ck_assert_int_eq(dc_act_output_bytes(plan_of(&c), &v), 0);
	ck_assert_uint_eq(v, 139460608ull);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("activation");
	TCase *tc = tcase_create("korthikanti");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, test_table2_tensor_parallel);
	tcase_add_test(tc, test_eq1_and_22b);
	tcase_add_test(tc, test_table2_sequence_parallel);
	tcase_add_test(tc, test_table2_selective);
	tcase_add_test(tc, test_table2_full);
	tcase_add_test(tc, test_selective_saves_70_percent);
	tcase_add_test(tc, test_recompute_working_set);
	tcase_add_test(tc, test_pipeline_in_flight);
	tcase_add_test(tc, test_interleaved_factor);
	tcase_add_test(tc, test_embedding_and_output_terms);
	tcase_add_test(tc, test_gqa_swiglu_generalisation);
	tcase_add_test(tc, test_moe_layer);
	tcase_add_test(tc, test_ledger_uses_schedule);
	tcase_add_test(tc, test_context_parallel_layer);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
