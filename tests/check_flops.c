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
	/* A flash kernel runs what the causal mask leaves: query i meets i
	 * keys, s/2 on average (compute.c prices it so), where the model count
	 * (Eq. 7) has the core whole. GPT-3 (L 96, h 12288, s 2048): the core
	 * forward 4 s h = 100,663,296 a layer and token, x 96 x 3 =
	 * 28,991,029,248 in the model count, of which the kernels skip half,
	 * 14,495,514,624. FlashAttention-2 (Dao 2023, section 3.1.2) rebuilds
	 * S = QK^T in its backward: 2 (s/2) a d = 25,165,824 a layer, x 96 =
	 * 2,415,919,104. Hardware FLOPs per token: 1,076,442,955,776 -
	 * 14,495,514,624 + 2,415,919,104 = 1,064,363,360,256, below the model
	 * count; model FLOPs unchanged. Eager runs every score (the test
	 * above: hardware = model). */
	struct dc_config c;
	struct dc_flops f;
	gpt(&c, 96, 12288, 96, 2048, 51200, "none");
	c.training.attention = DC_ATTENTION_FLASH;
	ck_assert_int_eq(flops_of(&c, &f), 0);
	ck_assert_double_eq_tol(f.model_per_token, 1076442955776.0, 1.0);
	ck_assert_double_eq_tol(f.masked_per_token, 14495514624.0, 1e-3);
	ck_assert_double_eq_tol(f.flash_backward_per_token, 2415919104.0, 1e-3);
	ck_assert_double_eq_tol(f.hardware_per_token, 1064363360256.0, 1.0);
	/* selective recompute reruns the core's forward as the kernel runs
	 * it: 96 x 100,663,296 / 2 = 4,831,838,208 */
	gpt(&c, 96, 12288, 96, 2048, 51200, "selective");
	c.training.attention = DC_ATTENTION_FLASH;
	ck_assert_int_eq(flops_of(&c, &f), 0);
	ck_assert_double_eq_tol(f.recompute_per_token, 4831838208.0, 1e-3);
	ck_assert_double_eq_tol(f.hardware_per_token, 1064363360256.0 + 4831838208.0, 1.0);
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

/* mla_up_proj reruns MLA's q up-projection [q_lora -> a (d_nope + d_rope)]
 * and kv up-projection [kv_lora -> a (d_nope + d_v)] in every layer, MTP's
 * too: 2 (1536 x 128 x 192 + 512 x 128 x 256) = 109,051,904 FLOPs a token
 * a layer; DeepSeek-V3's 61 layers and one MTP module: 6,761,218,048. Its
 * attention core is no longer rerun. */
START_TEST(test_recompute_modules_flops)
{
	struct dc_config c;
	struct dc_flops f;
	struct dc_diag d;
	dc_diag_init(&d);
	ck_assert_int_eq(dc_config_load_file(DC_SOURCE_DIR "/configs/deepseek-v3-bridge-h100.json", NULL, 0, &c, &d), 0);
	dc_diag_release(&d);
	c.training.framework = DC_FRAMEWORK_MEGATRON;
	c.training.recompute_modules_mask = DC_RCM(DC_RCM_MLA_UP_PROJ);
	ck_assert_int_eq(flops_of(&c, &f), 0);
	ck_assert_double_eq_tol(f.recompute_per_token, 6761218048.0, 1e-3);
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
	/* Megatron-LM's count halves the causal core: 46,084,915,200 -
	 * 6,442,450,944 / 2 = 42,863,689,728 */
	ck_assert_double_eq(f.model_causal_per_token, 42863689728.0);
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
	 * token. Averaging the layers would be off by about 5e-5. (Its MTP
	 * module off here: mtp_layers 0; test_mtp_on_last_stage has it.) */
	const char *json =
		"{\"model\": {\"hf_config\": \"" DC_SOURCE_DIR "/configs/models/deepseek-v3.json\", \"seq_length\": 4096,"
		" \"mtp_layers\": 0},"
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

START_TEST(test_mtp_on_last_stage)
{
	/* The same DeepSeek-V3 layout with its MTP module (num_nextn_predict_
	 * layers 1, arXiv 2412.19437 section 2.2) on the last stage. Per token
	 * the module multiplies a MoE layer's 585,304,320 (above), its eh_proj
	 * 2 x 7168 x 7168 = 102,760,448 and the shared head again 926,679,040:
	 * 1,614,743,808, and runs one attention core 335,544,320:
	 * 6 x 1,614,743,808 + 3 x 335,544,320 = 10,695,095,808. The last
	 * stage: 10,078,533,120 + 10,695,095,808 = 20,773,628,928 per token,
	 * x 4096 / 8 = 10,636,098,011,136. The whole model gains the same per
	 * token: matmul parameters + 1,614,743,808. */
	const char *json =
		"{\"model\": {\"hf_config\": \"" DC_SOURCE_DIR "/configs/models/deepseek-v3.json\", \"seq_length\": 4096},"
		" \"cluster\": {\"num_nodes\": 61, \"gpus_per_node\": 8, \"gpu_memory\": \"80 GiB\","
		" \"intra_node\": {\"bandwidth\": \"300 GB/s\"}, \"inter_node\": {\"bandwidth\": \"400 Gb/s\"}},"
		" \"parallel\": {\"tp\": 8, \"pp\": 61, \"dp\": 1}}";
	struct dc_config c;
	struct dc_flops f, off;
	struct dc_diag d;
	dc_diag_init(&d);
	if (dc_config_load_buffer(json, strlen(json), "ds.json", NULL, 0, &c, &d) != 0)
		ck_abort_msg("config rejected: %s", d.count ? d.entries[0].text : "?");
	dc_diag_release(&d);
	ck_assert_uint_eq(c.model.mtp_layers, 1);
	ck_assert_int_eq(flops_of(&c, &f), 0);
	ck_assert_uint_eq(f.busiest_stage, 60);
	ck_assert_double_eq(f.model_per_rank, 10636098011136.0);
	c.model.mtp_layers = 0;
	ck_assert_int_eq(flops_of(&c, &off), 0);
	ck_assert_uint_eq(f.matmul_params - off.matmul_params, 1614743808ull);
	ck_assert_double_eq(f.model_per_token - off.model_per_token, 10695095808.0);
}
END_TEST

/* DualPipe (configs/deepseek-v3-h800.json: pp 16, pipeline_layers [4 x
 * 15, 1], tp 1, dp 128 over its 2048 GPUs with ep 64 folded, micro batch
 * 1 of 4096 tokens, global batch 15,360: 120 samples, 491,520 tokens a
 * replica): rank r runs stage r for half its microbatches and stage 15 - r
 * for the other half (DeepSeek-V3 report section 3.2.1; the memory ledger
 * holds both). Per token, by hand (test_per_rank_dense_and_moe_layers,
 * test_mtp_on_last_stage): stage 0, three dense layers and a MoE one,
 * 3 x 4,507,447,296 + (6 x 585,304,320 + 3 x 335,544,320) = 18,040,800,768;
 * stage 15, a MoE layer, the head and the MTP module, 20,773,628,928; a
 * middle stage, four MoE layers, 4 x 4,518,458,880 = 18,073,835,520. Rank
 * 0, the busiest: (18,040,800,768 + 20,773,628,928) / 2 x 491,520 =
 * 9,539,034,242,088,960; a middle rank 8,883,651,634,790,400 (the pair of
 * middle stages). Under 1F1B the last stage runs every microbatch:
 * 20,773,628,928 x 491,520 = 10,210,654,090,690,560, 7% above DualPipe's
 * busiest rank, which was reported so before stop 50. */
START_TEST(test_per_rank_dualpipe_pairs_stages)
{
	struct dc_config c;
	struct dc_flops dual, one;
	struct dc_diag d;
	const double tokens = 120.0 * 4096.0;
	dc_diag_init(&d);
	ck_assert_int_eq(dc_config_load_file(DC_SOURCE_DIR "/configs/deepseek-v3-h800.json", NULL, 0, &c, &d), 0);
	dc_diag_release(&d);
	ck_assert_uint_eq(c.parallel.dp, 128);
	ck_assert_int_eq(flops_of(&c, &dual), 0);
	ck_assert_uint_eq(dual.busiest_stage, 0);
	ck_assert_double_eq(dual.model_per_rank, 9539034242088960.0);
	ck_assert_double_gt(dual.model_per_rank, 18073835520.0 * tokens);
	c.parallel.pipeline_schedule = DC_PIPE_1F1B;
	ck_assert_int_eq(flops_of(&c, &one), 0);
	ck_assert_uint_eq(one.busiest_stage, 15);
	ck_assert_double_eq(one.model_per_rank, 10210654090690560.0);
	/* the step's FLOPs do not depend on the schedule */
	ck_assert_double_eq(one.model_per_step, dual.model_per_step);
}
END_TEST

/* DualPipeV (configs/korthikanti-175b.json, pp 8, v 1): rank s holds the
 * V's chunks s and 15 - s of 6 layers each, so rank 0 holds the first and
 * the last, with the head: 12 layers and the head, as the last stage of
 * 1F1B holds, the busiest either way (before stop 50 the head was counted
 * on rank 7, which holds the V's middle). */
START_TEST(test_per_rank_dualpipev_head_on_rank_0)
{
	struct dc_config c;
	struct dc_flops v, one;
	struct dc_diag d;
	dc_diag_init(&d);
	ck_assert_int_eq(dc_config_load_file(DC_SOURCE_DIR "/configs/korthikanti-175b.json", NULL, 0, &c, &d), 0);
	dc_diag_release(&d);
	c.parallel.virtual_pipeline = 1;
	c.parallel.pipeline_schedule = DC_PIPE_1F1B;
	ck_assert_int_eq(flops_of(&c, &one), 0);
	ck_assert_uint_eq(one.busiest_stage, 7);
	c.parallel.pipeline_schedule = DC_PIPE_DUALPIPEV;
	ck_assert_int_eq(flops_of(&c, &v), 0);
	ck_assert_uint_eq(v.busiest_stage, 0);
	ck_assert_double_eq(v.model_per_rank, one.model_per_rank);
}
END_TEST

/* DeepSeek-V3 on tp 8 x pp 61 (above) with `mtp` MTP modules under
 * training.recompute `rc` and training.recompute_layers `k`. */
static void deepseek_pp61(uint64_t mtp, const char *rc, uint64_t k, struct dc_flops *f)
{
	char json[1024];
	struct dc_config c;
	struct dc_diag d;
	snprintf(json, sizeof(json),
		 "{\"model\": {\"hf_config\": \"%s/configs/models/deepseek-v3.json\", \"seq_length\": 4096,"
		 " \"mtp_layers\": %llu},"
		 " \"cluster\": {\"num_nodes\": 61, \"gpus_per_node\": 8, \"gpu_memory\": \"80 GiB\","
		 " \"intra_node\": {\"bandwidth\": \"300 GB/s\"}, \"inter_node\": {\"bandwidth\": \"400 Gb/s\"}},"
		 " \"parallel\": {\"tp\": 8, \"pp\": 61, \"dp\": 1},"
		 " \"training\": {\"recompute\": \"%s\", \"recompute_layers\": %llu}}",
		 DC_SOURCE_DIR, (unsigned long long)mtp, rc, (unsigned long long)k);
	dc_diag_init(&d);
	if (dc_config_load_buffer(json, strlen(json), "ds.json", NULL, 0, &c, &d) != 0)
		ck_abort_msg("config rejected: %s", d.count ? d.entries[0].text : "?");
	dc_diag_release(&d);
	ck_assert_int_eq(flops_of(&c, f), 0);
	ck_assert_uint_eq(f->busiest_stage, 60);
}

START_TEST(test_mtp_recompute_flops)
{
	/* The MTP module's recompute, as Megatron-Core at d98e8a64 reruns it
	 * (multi_token_prediction.py): full recompute's uniform method
	 * checkpoints eh_proj and the layer together (:1621-1629), the block
	 * method skips the module (:1630-1634); the shared head after it is
	 * never rerun. From test_mtp_on_last_stage's figures: the module's
	 * matmuls without the head, a MoE layer 585,304,320 + eh_proj
	 * 102,760,448 = 688,064,768, and its core 335,544,320 in the model
	 * count, of which the causal flash kernel runs half, 167,772,160.
	 * Uniform (recompute_layers 0) reruns 2 x 688,064,768 + 167,772,160 =
	 * 1,543,901,696 a token (before: 2 x 1,614,743,808 + 335,544,320 =
	 * 3,565,031,936, the head's 926,679,040 included, and the core
	 * whole); on the last stage x 4096 / 8 = 790,477,668,352 a rank. Block
	 * with recompute_layers 1 (every stage's one layer, as uniform for the
	 * decoder) reruns none of it (before: the same as uniform). Selective:
	 * its layer's core as the kernel runs it, 167,772,160, as any
	 * layer's. */
	struct dc_flops u1, u0, b1, b0, n1, n0, s1, s0;
	deepseek_pp61(1, "full", 0, &u1);
	deepseek_pp61(0, "full", 0, &u0);
	deepseek_pp61(1, "full", 1, &b1);
	deepseek_pp61(0, "full", 1, &b0);
	deepseek_pp61(1, "none", 0, &n1);
	deepseek_pp61(0, "none", 0, &n0);
	deepseek_pp61(1, "selective", 0, &s1);
	deepseek_pp61(0, "selective", 0, &s0);
	ck_assert_double_eq(u1.recompute_per_token - u0.recompute_per_token, 1543901696.0);
	ck_assert_double_eq(b1.recompute_per_token - b0.recompute_per_token, 0.0);
	ck_assert_double_eq(s1.recompute_per_token - s0.recompute_per_token, 167772160.0);
	ck_assert_double_eq(n1.recompute_per_token, 0.0);
	/* the decoder's layers rerun alike under both methods here */
	ck_assert_double_eq(u0.recompute_per_token, b0.recompute_per_token);
	ck_assert_double_eq((u1.hardware_per_rank - n1.hardware_per_rank) - (u0.hardware_per_rank - n0.hardware_per_rank),
			    790477668352.0);
	ck_assert_double_eq((b1.hardware_per_rank - n1.hardware_per_rank) - (b0.hardware_per_rank - n0.hardware_per_rank),
			    0.0);
}
END_TEST

/* A model from <dir>/<name>.json under the source tree at `seq` tokens on
 * one node of 8 GPUs with the parallel section `parallel` (JSON members). */
static void load_hf_file(const char *dir, const char *name, uint64_t seq, const char *parallel, struct dc_config *c)
{
	char json[1024];
	struct dc_diag d;
	snprintf(json, sizeof(json),
		 "{\"model\": {\"hf_config\": \"%s/%s/%s.json\", \"seq_length\": %llu},"
		 " \"cluster\": {\"num_nodes\": 1, \"gpus_per_node\": 8, \"gpu_memory\": \"80 GiB\","
		 " \"intra_node\": {\"bandwidth\": \"300 GB/s\"}, \"inter_node\": {\"bandwidth\": \"400 Gb/s\"}},"
		 " \"parallel\": {%s}, \"training\": {\"micro_batch_size\": 1, \"grad_accum_steps\": 8}}",
		 DC_SOURCE_DIR, dir, name, (unsigned long long)seq, parallel);
	dc_diag_init(&d);
	if (dc_config_load_buffer(json, strlen(json), "m.json", NULL, 0, c, &d) != 0)
		ck_abort_msg("config rejected: %s", d.count ? d.entries[0].text : "?");
	dc_diag_release(&d);
}

/* configs/models/<name>.json, as load_hf_file */
static void load_hf_model(const char *name, uint64_t seq, const char *parallel, struct dc_config *c)
{
	load_hf_file("configs/models", name, seq, parallel, c);
}

START_TEST(test_sliding_window_mistral_32k)
{
	/* Mistral-7B-v0.1 (sliding_window 4096 on all 32 layers) at s 32768:
	 * a query meets 4096 keys, not 32768. Per layer and token the core
	 * is 2 x 4096 x 32 heads x (128 + 128) = 67,108,864 forward, against
	 * 2 x 32768 x 32 x 256 = 536,870,912 without the window (8x); x 32
	 * layers = 2,147,483,648. Matmul parameters: 7,241,732,096 - the
	 * embedding 131,072,000 - norms 32 x 2 x 4096 + 4096 = 266,240 =
	 * 7,110,393,856; model FLOPs per token 6 x 7,110,393,856 + 3 x
	 * 2,147,483,648 = 42,662,363,136 + 6,442,450,944 = 49,104,814,080. */
	struct dc_config c;
	struct dc_flops f;
	load_hf_model("mistral-7b-v0.1", 32768, "\"tp\": 8", &c);
	ck_assert_uint_eq(c.model.sliding_window, 4096);
	ck_assert_int_eq(flops_of(&c, &f), 0);
	ck_assert_uint_eq(f.matmul_params, 7110393856ull);
	ck_assert_double_eq(f.attention_core_fwd_per_token, 2147483648.0);
	ck_assert_double_eq(f.model_per_token, 49104814080.0);
	/* Megatron-LM's count has no window: every layer at half the whole
	 * sequence's core, 32 x 536,870,912 / 2 = 8,589,934,592 forward,
	 * x 3: 42,662,363,136 + 25,769,803,776 = 68,432,166,912 */
	ck_assert_double_eq(f.model_causal_per_token, 68432166912.0);
	/* the flash kernel runs min(i, 4096) keys for query i: 4096 -
	 * 4096^2 / (2 x 32768) = 3840 on average, 2 x 3840 x 32 x 256 =
	 * 62,914,560 a layer forward, 2,013,265,920 over 32; it skips 3 x
	 * (2,147,483,648 - 2,013,265,920) = 402,653,184 of the count and
	 * rebuilds QK^T on 3840 keys, 2 x 3840 x 32 x 128 x 32 =
	 * 1,006,632,960: hardware 49,104,814,080 - 402,653,184 +
	 * 1,006,632,960 = 49,708,793,856 without recompute */
	c.training.recompute = DC_RECOMPUTE_NONE;
	ck_assert_int_eq(flops_of(&c, &f), 0);
	ck_assert_double_eq(f.masked_per_token, 402653184.0);
	ck_assert_double_eq(f.flash_backward_per_token, 1006632960.0);
	ck_assert_double_eq(f.hardware_per_token, 49708793856.0);
	/* without the window every layer meets all 32768 keys */
	c.model.sliding_window = 0;
	ck_assert_int_eq(flops_of(&c, &f), 0);
	ck_assert_double_eq(f.attention_core_fwd_per_token, 32.0 * 536870912.0);
	/* and the kernel runs half of them: 3 x 32 x 536,870,912 / 2 */
	ck_assert_double_eq(f.masked_per_token, 25769803776.0);
	/* a window no shorter than the sequence changes nothing */
	load_hf_model("mistral-7b-v0.1", 4096, "\"tp\": 8", &c);
	ck_assert_int_eq(flops_of(&c, &f), 0);
	ck_assert_double_eq(f.attention_core_fwd_per_token, 32.0 * 2.0 * 4096 * 32 * 256);
}
END_TEST

/* Llama 4's chunked attention (model.attention_chunked): Scout at s 32768,
 * 48 layers, every fourth global, the other 36 in chunks of 8192; 40
 * heads of 128. A flash kernel runs query i against the i mod 8192 before
 * it in its chunk: n = 4 whole chunks, (4 x 8192^2) / (2 x 32768) = 4096
 * keys a query, where a window of 8192 runs 8192 - 8192^2 / 65536 = 7168
 * and a global layer 16384. The rebuild 2 k a d: 12 x 2 x 16384 x 40 x
 * 128 = 2,013,265,920 and 36 x 2 x 4096 x 5120 = 1,509,949,440:
 * 3,523,215,360 a token (a window: 36 x 73,400,320 = 2,642,411,520 for the
 * chunked layers, 4,655,677,440). The model count is the same for both
 * (a chunk's 8192 keys, as a window's). */
START_TEST(test_chunked_attention_llama4)
{
	struct dc_config c;
	struct dc_flops f, w;
	load_hf_model("llama-4-scout-17b-16e", 32768, "\"tp\": 8", &c);
	ck_assert_int_eq(c.model.attention_chunked, 1);
	ck_assert_uint_eq(c.model.sliding_window, 8192);
	ck_assert_int_eq(flops_of(&c, &f), 0);
	ck_assert_double_eq(f.flash_backward_per_token, 3523215360.0);
	c.model.attention_chunked = 0;
	ck_assert_int_eq(flops_of(&c, &w), 0);
	ck_assert_double_eq(w.flash_backward_per_token, 4655677440.0);
	ck_assert_double_eq(f.model_per_token, w.model_per_token);
}
END_TEST

START_TEST(test_sliding_window_null_mistral_small)
{
	/* Mistral-Small-3.1-24B (sliding_window null: no window, as
	 * MistralModel builds the full causal mask for None) at s 32768: every
	 * one of the 40 layers meets all 32768 keys, 2 x 32768 x 32 heads x
	 * (128 + 128) = 536,870,912 a layer and token forward, x 40 =
	 * 21,474,836,480. Matmul parameters: 23,572,403,200 - the embedding
	 * 671,088,640 - norms 40 x 2 x 5120 + 5120 = 414,720 =
	 * 22,900,899,840. Model FLOPs per token 6 x 22,900,899,840 + 3 x
	 * 21,474,836,480 = 137,405,399,040 + 64,424,509,440 = 201,829,908,480
	 * (= 6 N + 12 L s a d). Read as a 4096-token window it was
	 * 145,458,462,720. */
	struct dc_config c;
	struct dc_flops f;
	load_hf_file("tests/inputs", "hf_mistral_small_3_1", 32768, "\"tp\": 8", &c);
	ck_assert_uint_eq(c.model.sliding_window, 0);
	ck_assert_int_eq(flops_of(&c, &f), 0);
	ck_assert_uint_eq(f.matmul_params, 22900899840ull);
	ck_assert_double_eq(f.attention_core_fwd_per_token, 21474836480.0);
	ck_assert_double_eq(f.model_per_token, 201829908480.0);
}
END_TEST

START_TEST(test_sliding_window_phi3_mini)
{
	/* Phi-3-mini-4k (sliding_window 2047 on all 32 layers, as Phi3Model
	 * passes it to every layer) at s 4096: a query meets 2047 keys, 2 x
	 * 2047 x 32 heads x (96 + 96) = 25,153,536 a layer and token forward,
	 * x 32 = 804,913,152. Matmul parameters: 3,821,079,552 - the embedding
	 * 98,500,608 - norms 32 x 2 x 3072 + 3072 = 199,680 = 3,722,379,264.
	 * Model FLOPs per token 6 x 3,722,379,264 + 3 x 804,913,152 =
	 * 22,334,275,584 + 2,414,739,456 = 24,749,015,040. */
	struct dc_config c;
	struct dc_flops f;
	load_hf_file("tests/inputs", "hf_phi_3_mini_4k_instruct", 4096, "\"tp\": 8", &c);
	ck_assert_int_eq(flops_of(&c, &f), 0);
	ck_assert_uint_eq(f.matmul_params, 3722379264ull);
	ck_assert_double_eq(f.attention_core_fwd_per_token, 804913152.0);
	ck_assert_double_eq(f.model_per_token, 24749015040.0);
}
END_TEST

START_TEST(test_sliding_window_gemma2_alternating)
{
	/* Gemma-2-9B at s 8192: the odd layers (1, 3, ... from 1) slide over
	 * 4096 keys, the even ones see all 8192 (sliding_window_pattern 2):
	 * 16 heads x (256 + 256) = 8192 per key, so 2 x 8192 x 8192 =
	 * 134,217,728 a global layer and 2 x 4096 x 8192 = 67,108,864 a sliding
	 * one; 21 of each: 4,227,858,432 per token forward. A flash kernel's
	 * backward adds 2 k a d_qk on the keys it runs, k (1 - k / 2s): 4096
	 * of a global layer's 8192, 4096 - 4096^2 / 16384 = 3072 of a sliding
	 * one's: 21 x (2 x 4096 + 2 x 3072) x 16 x 256 = 1,233,125,376. */
	struct dc_config c;
	struct dc_flops f;
	load_hf_model("gemma-2-9b", 8192, "\"tp\": 8", &c);
	ck_assert_int_eq(flops_of(&c, &f), 0);
	ck_assert_double_eq(f.attention_core_fwd_per_token, 4227858432.0);
	c.training.attention = DC_ATTENTION_FLASH;
	ck_assert_int_eq(flops_of(&c, &f), 0);
	ck_assert_double_eq(f.flash_backward_per_token, 1233125376.0);
}
END_TEST

START_TEST(test_gated_deltanet_qwen3_next)
{
	/* Qwen3-Next-80B-A3B at s 4096: 12 softmax layers (every 4th), each
	 * 2 x 4096 x 16 heads x (256 + 256) = 67,108,864 forward per token,
	 * and 36 Gated DeltaNet layers, each over 32 value heads of d_k = d_v
	 * = 128 in chunks of 64: 2 x 64 x (3 x 128 + 2 x 128) + 6 x 128 x 128 =
	 * 81,920 + 98,304 = 180,224 a head, 5,767,168 a layer. Core: 12 x
	 * 67,108,864 + 36 x 5,767,168 = 805,306,368 + 207,618,048 =
	 * 1,012,924,416.
	 * Per rank on pp 8 (6 layers a stage): the last stage holds layers 43-48,
	 * softmax at 44 and 48, and the head. Its matmul parameters per token:
	 * 6 MoE layers of 10 experts x 3,145,728 + shared 3,145,728 + gate 2,048
	 * + router 1,048,576 = 35,653,632 each; 2 gated attention blocks of
	 * 27,263,488 (q and gate 2048 x 8192, k and v 2048 x 512 each, o
	 * 4096 x 2048, q/k norms 512) and 4 Gated DeltaNet blocks of
	 * 33,718,464; the head 311,164,928: 714,487,552. FLOPs per token
	 * 6 x 714,487,552 + 3 x (2 x 67,108,864 + 4 x 5,767,168) =
	 * 4,286,925,312 + 471,859,200 = 4,758,784,512; x 32,768 tokens a step
	 * (8 microbatches of 4096, dp 1). The first stage (layers 1-6, one
	 * softmax layer) has fewer, so the last is the busiest. */
	struct dc_config c;
	struct dc_flops f;
	load_hf_model("qwen3-next-80b-a3b", 4096, "\"tp\": 1, \"pp\": 8", &c);
	ck_assert_int_eq(flops_of(&c, &f), 0);
	ck_assert_double_eq(f.attention_core_fwd_per_token, 1012924416.0);
	/* the causal count halves the softmax layers' core only, not the
	 * Gated DeltaNet's: 1.5 x 805,306,368 = 1,207,959,552 less */
	ck_assert_double_eq(f.model_per_token - f.model_causal_per_token, 1207959552.0);
	ck_assert_uint_eq(f.busiest_stage, 7);
	ck_assert_uint_eq(f.tokens_per_step, 32768);
	ck_assert_double_eq_tol(f.model_per_rank, 4758784512.0 * 32768.0, 1e-9 * f.model_per_rank);
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
	tcase_add_test(tc, test_recompute_modules_flops);
	tcase_add_test(tc, test_llama2_7b_default);
	tcase_add_test(tc, test_per_rank_pipeline);
	tcase_add_test(tc, test_per_rank_dense_and_moe_layers);
	tcase_add_test(tc, test_mtp_on_last_stage);
	tcase_add_test(tc, test_per_rank_dualpipe_pairs_stages);
	tcase_add_test(tc, test_per_rank_dualpipev_head_on_rank_0);
	tcase_add_test(tc, test_mtp_recompute_flops);
	tcase_add_test(tc, test_sliding_window_mistral_32k);
	tcase_add_test(tc, test_chunked_attention_llama4);
	tcase_add_test(tc, test_sliding_window_null_mistral_small);
	tcase_add_test(tc, test_sliding_window_phi3_mini);
	tcase_add_test(tc, test_sliding_window_gemma2_alternating);
	tcase_add_test(tc, test_gated_deltanet_qwen3_next);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
