/* check_flops.c - FLOPs per step against Korthikanti et al. 2022 Eq. 7,
 * Megatron-LM 2021 Eq. 3 and a hand count for Llama-2-7B. Every expected
 * value is worked out by hand (a calculator for the products), never read
 * back from the code under test. */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "distcalc/config.h"
#include "distcalc/flops.h"

#include "fixtures.h"
#include "fixtures_plan.h"

/* The flops estimator on c's plan, with the batch estimator's tokens. */
static int flops_of(const struct dc_config *c, struct dc_flops *f)
{
	struct dc_plan p;
	struct dc_batch b;
	const char *err = NULL;
	fixture_plan(c, &p);
	ck_assert_int_eq(dc_batch_compute(&p, &b, &err), 0);
	return dc_flops_compute(&p, &b, f, &err);
}

/* A GPT block without biases: 4h^2 attention, 8h^2 GELU MLP (f = 4h),
 * untied head V x h; global batch B = micro 1 x accum B x dp 1. Eager
 * attention, as the papers count it (a flash kernel's backward adds QK^T
 * again: test_flash_backward). */
static void gpt_pp(struct dc_config *c, int L, int h, int a, int s, int V, const char *recompute, int pp)
{
	fixture_json(c,
		 "{\"model\": {\"num_layers\": %d, \"hidden_size\": %d, \"num_attention_heads\": %d,"
		 " \"ffn_hidden_size\": %d, \"vocab_size\": %d, \"seq_length\": %d, \"mlp\": \"gelu\"},"
		 " \"cluster\": {\"num_nodes\": 8, \"gpus_per_node\": 8, \"gpu_memory\": \"80 GiB\","
		 " \"intra_node\": {\"bandwidth\": \"300 GB/s\"}, \"inter_node\": {\"bandwidth\": \"200 Gb/s\"}},"
		 " \"parallel\": {\"tp\": 8, \"pp\": %d},"
		 " \"training\": {\"micro_batch_size\": 1, \"grad_accum_steps\": 64, \"recompute\": \"%s\","
		 " \"attention\": \"eager\"}}",
		 L, h, a, 4 * h, V, s, pp, recompute);
}

/* tp 8 x pp 8 on 64 GPUs: dp 1 */
static void gpt(struct dc_config *c, int L, int h, int a, int s, int V, const char *recompute)
{
	gpt_pp(c, L, h, a, s, V, recompute, 8);
}

START_TEST(test_korthikanti_eq7_gpt3)
{
	/* Eq. 7 per token (divide by B s): 72 L h^2 (1 + s/(6h) + V/(12 h L))
	 * = 72 L h^2 + 12 L s h + 6 V h; GPT-3 (L 96, h 12288, s 2048,
	 * V 51200): 1,043,677,052,928 + 28,991,029,248 + 3,774,873,600 =
	 * 1,076,442,955,776 FLOPs per token; per step x 64 x 2048 tokens */
	struct dc_config c;
	struct dc_flops f;
	gpt(&c, 96, 12288, 96, 2048, 51200, "none");
	ck_assert_int_eq(flops_of(&c, &f), 0);
	ck_assert_double_eq_tol(f.model_per_token, 1076442955776.0, 1.0);
	ck_assert_double_eq_tol(f.hardware_per_token, 1076442955776.0, 1.0);
	ck_assert_uint_eq(f.tokens_per_step, 131072);
	ck_assert_double_eq_tol(f.model_per_step, 1076442955776.0 * 131072.0, 1e5);
}
END_TEST

START_TEST(test_megatron_eq3_full_recompute)
{
	/* Megatron-LM 2021 Eq. 3 per token: 96 l h^2 (1 + s/(6h) + V/(16 l h))
	 * = 96 l h^2 + 16 l s h + 6 V h = 1,391,569,403,904 + 38,654,705,664 +
	 * 3,774,873,600 = 1,433,998,983,168: the logit layer is not recomputed */
	struct dc_config c;
	struct dc_flops f;
	gpt(&c, 96, 12288, 96, 2048, 51200, "full");
	ck_assert_int_eq(flops_of(&c, &f), 0);
	ck_assert_double_eq_tol(f.hardware_per_token, 1433998983168.0, 1.0);
	ck_assert_double_eq_tol(f.model_per_token, 1076442955776.0, 1.0);
}
END_TEST

START_TEST(test_flash_backward)
{
	/* FlashAttention-2 (Dao 2023, section 3.1.2) rebuilds S = QK^T in its
	 * backward: 2 s a d per token per layer, 2 x 2048 x 12288 x 96 =
	 * 4,831,838,208 for GPT-3, on top of Eq. 7's 1,076,442,955,776:
	 * 1,081,274,793,984 hardware FLOPs per token; model FLOPs unchanged */
	struct dc_config c;
	struct dc_flops f;
	gpt(&c, 96, 12288, 96, 2048, 51200, "none");
	c.training.attention = DC_ATTENTION_FLASH;
	ck_assert_int_eq(flops_of(&c, &f), 0);
	ck_assert_double_eq_tol(f.model_per_token, 1076442955776.0, 1.0);
	ck_assert_double_eq_tol(f.flash_backward_per_token, 4831838208.0, 1e-3);
	ck_assert_double_eq_tol(f.hardware_per_token, 1081274793984.0, 1.0);
}
END_TEST

START_TEST(test_op_policy_flops)
{
	/* torchtitan's per-op policy recomputes the even-numbered matmuls of
	 * a layer: wk, wo and fc2 of a GELU layer, 2 (h^2 + h^2 + 4h^2) = 12 h^2
	 * per token; GPT-3: 12 x 12288^2 x 96 layers = 173,946,175,488 per
	 * token. Flash keeps the attention core (on the save list); eager
	 * attention's batched matmuls are not on it and rerun: + 4 s h L =
	 * 4 x 2048 x 12288 x 96 = 9,663,676,416 */
	struct dc_config c;
	struct dc_flops f;
	gpt(&c, 96, 12288, 96, 2048, 51200, "op");
	c.training.attention = DC_ATTENTION_FLASH;
	ck_assert_int_eq(flops_of(&c, &f), 0);
	ck_assert_double_eq_tol(f.recompute_per_token, 173946175488.0, 1e-3);
	c.training.attention = DC_ATTENTION_EAGER;
	ck_assert_int_eq(flops_of(&c, &f), 0);
	ck_assert_double_eq_tol(f.recompute_per_token, 173946175488.0 + 9663676416.0, 1e-3);
	/* full recompute of 4 of each stage's 12 layers (Megatron block) reruns
	 * a third of Eq. 3's recompute: (1,433,998,983,168 - 1,076,442,955,776)
	 * / 3 = 119,185,342,464 */
	gpt(&c, 96, 12288, 96, 2048, 51200, "full");
	c.training.recompute_layers = 4;
	ck_assert_int_eq(flops_of(&c, &f), 0);
	ck_assert_double_eq_tol(f.recompute_per_token, 119185342464.0, 1e-2);
}
END_TEST

START_TEST(test_selective_overhead)
{
	/* Korthikanti section 5: selective recompute costs 2.7% (GPT-3) and
	 * 1.6% (MT-NLG) FLOPs: the attention core's forward 4 s h per layer
	 * against the layers' dense forward 24 h^2: s/(6h) = 2048/73728 =
	 * 2.78% and 2048/122880 = 1.67% */
	struct dc_config c;
	struct dc_flops f;
	gpt(&c, 96, 12288, 96, 2048, 51200, "selective");
	ck_assert_int_eq(flops_of(&c, &f), 0);
	ck_assert_double_eq_tol(f.recompute_per_token / (2.0 * (double)f.layer_matmul_params), 2048.0 / 73728.0, 1e-12);
	gpt_pp(&c, 105, 20480, 128, 2048, 51200, "selective", 1);
	ck_assert_int_eq(flops_of(&c, &f), 0);
	ck_assert_double_eq_tol(f.recompute_per_token / (2.0 * (double)f.layer_matmul_params), 2048.0 / 122880.0, 1e-12);
}
END_TEST

START_TEST(test_llama2_7b_default)
{
	/* configs/systems.json: N = 6,738,415,616 - embedding 131,072,000 -
	 * norms (32 x 2 x 4096 + 4096 = 266,240) = 6,607,077,376 (the untied
	 * head stays); 6N + 12 L s h = 39,642,464,256 + 6,442,450,944 =
	 * 46,084,915,200 per token; 65,536 tokens per step =
	 * 3,020,221,002,547,200; per rank (tp 4 x dp 2, pp 1) an eighth:
	 * 377,527,625,318,400 */
	struct dc_config c;
	struct dc_flops f;
	struct dc_diag d;
	char path[512];
	snprintf(path, sizeof(path), "%s/configs/systems.json", DC_SOURCE_DIR);
	dc_diag_init(&d);
	ck_assert_int_eq(dc_config_load_file(path, NULL, 0, &c, &d), 0);
	dc_diag_release(&d);
	ck_assert_int_eq(flops_of(&c, &f), 0);
	ck_assert_uint_eq(f.matmul_params, 6607077376ull);
	ck_assert_double_eq(f.model_per_token, 46084915200.0);
	ck_assert_double_eq_tol(f.model_per_step, 3020221002547200.0, 1);
	ck_assert_double_eq_tol(f.model_per_rank, 377527625318400.0, 1);
}
END_TEST

START_TEST(test_per_rank_pipeline)
{
	/* GPT-3 on tp 8 x pp 8: the last stage runs 12 layers and the head for
	 * all 131,072 tokens, split over 8 tp ranks. Per token and layer
	 * 72 h^2 + 12 s h = 10,871,635,968 + 301,989,888 = 11,173,625,856;
	 * x 12 layers = 134,083,510,272; head 6 V h = 3,774,873,600;
	 * stage total 137,858,383,872 x 131,072 / 8 = 2,258,671,761,358,848 */
	struct dc_config c;
	struct dc_flops f;
	gpt(&c, 96, 12288, 96, 2048, 51200, "none");
	ck_assert_int_eq(flops_of(&c, &f), 0);
	ck_assert_uint_eq(f.busiest_stage, 7);
	ck_assert_double_eq_tol(f.model_per_rank, 2258671761358848.0, 16);
}
END_TEST

START_TEST(test_per_rank_dense_and_moe_layers)
{
	/* DeepSeek-V3 (configs/models/deepseek-v3.json) on tp 8 x pp 61: one
	 * layer per stage, the first three dense, the rest MoE; s 4096, one
	 * microbatch. Parameters one token multiplies, by hand from the HF
	 * modules: MLA attention q_a 7168 x 1536 + its norm 1536 + q_b 1536 x
	 * (128 x 192) + kv_a 7168 x 576 + its norm 512 + kv_b 512 x (128 x 256)
	 * + o 16384 x 7168 = 187,107,328; a dense layer adds 3 x 7168 x 18432 =
	 * 396,361,728 (583,469,056); a MoE layer 8 routed and 1 shared expert of
	 * 3 x 7168 x 2048 and the router 256 x 7168 + 256 (585,304,320).
	 * Attention core 2 s a (192 + 128) = 335,544,320 per layer forward.
	 * The last stage: 6 x 585,304,320 + 3 x 335,544,320 + head 6 x 129280 x
	 * 7168 = 10,078,533,120 FLOPs per token, x 4096 tokens / tp 8 =
	 * 5,160,208,957,440; the first (dense) stage has only 4,507,447,296 per
	 * token. Averaging the layers would be off by about 5e-5. */
	const char *json =
		"{\"model\": {\"hf_config\": \"" DC_SOURCE_DIR "/configs/models/deepseek-v3.json\", \"seq_length\": 4096},"
		" \"cluster\": {\"num_nodes\": 61, \"gpus_per_node\": 8, \"gpu_memory\": \"80 GiB\","
		" \"intra_node\": {\"bandwidth\": \"300 GB/s\"}, \"inter_node\": {\"bandwidth\": \"400 Gb/s\"}},"
		" \"parallel\": {\"tp\": 8, \"pp\": 61, \"dp\": 1}}";
	struct dc_config c;
	struct dc_flops f;
	struct dc_diag d;
	dc_diag_init(&d);
	if (dc_config_load_buffer(json, strlen(json), "ds.json", NULL, 0, &c, &d) != 0)
		ck_abort_msg("config rejected: %s", d.count ? d.entries[0].text : "?");
	dc_diag_release(&d);
	ck_assert_int_eq(flops_of(&c, &f), 0);
	ck_assert_uint_eq(f.busiest_stage, 60);
	ck_assert_double_eq(f.model_per_rank, 5160208957440.0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("flops");
	TCase *tc = tcase_create("papers");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, test_korthikanti_eq7_gpt3);
	tcase_add_test(tc, test_megatron_eq3_full_recompute);
	tcase_add_test(tc, test_selective_overhead);
	tcase_add_test(tc, test_flash_backward);
	tcase_add_test(tc, test_op_policy_flops);
	tcase_add_test(tc, test_llama2_7b_default);
	tcase_add_test(tc, test_per_rank_pipeline);
	tcase_add_test(tc, test_per_rank_dense_and_moe_layers);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
