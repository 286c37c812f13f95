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
 * for the paper's own shapes, never read back from the code. The paper's
 * setup is eager attention with dropout; the defaults (flash attention, no
 * dropout) are worked by hand for small shapes below.
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
		 " \"ffn_hidden_size\": 49152, \"vocab_size\": 51200, \"seq_length\": 2048, \"mlp\": \"gelu\","
		 " \"dropout\": true},"
		 " \"cluster\": {\"num_nodes\": %d, \"gpus_per_node\": 8, \"gpu_memory\": \"80 GiB\","
		 " \"intra_node\": {\"bandwidth\": \"300 GB/s\"}, \"inter_node\": {\"bandwidth\": \"200 Gb/s\"}},"
		 " \"parallel\": {\"tp\": 8, \"pp\": %d, \"dp\": 1, \"sequence_parallel\": %s, \"virtual_pipeline\": %d},"
		 " \"training\": {\"micro_batch_size\": 1, \"grad_accum_steps\": 64, \"recompute\": \"%s\","
		 " \"attention\": \"eager\"}}",
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
	/* while the loss runs backward: nll_loss's and log_softmax's FP32
	 * gradients, 8 s b V / t = 8 x 2048 x 51200 / 8 = 104,857,600 */
	ck_assert_int_eq(dc_act_head_backward_bytes(plan_of(&c), &v), 0);
	ck_assert_uint_eq(v, 104857600ull);
	/* Megatron's vocabulary-parallel cross entropy writes its gradient in
	 * place of the FP32 softmax it saved (cross_entropy.py:88, :114 at
	 * d98e8a64): only the 16-bit copy the head reads, 2 x 2048 x 51200 / 8
	 * = 26,214,400 */
	c.training.framework = DC_FRAMEWORK_MEGATRON;
	ck_assert_int_eq(dc_act_head_backward_bytes(plan_of(&c), &v), 0);
	ck_assert_uint_eq(v, 26214400ull);
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
	 * total 11,945,377,792 with eager attention and dropout; the paper's
	 * MHA + 4h-GELU formula would give sbh(34 + 5as/h) = 33,554,432 x
	 * (34 + 320) = 11,878,268,928. The defaults (flash, no dropout) drop
	 * the two residual masks (2 sbh = 67,108,864) and the scores, and keep
	 * 4 a s b = 4 x 32 x 8192 = 1,048,576 bytes of softmax statistics:
	 * 268,435,456 + 134,217,728 + 33,554,432 + 704,643,072 + 1,048,576 =
	 * 1,141,899,264. Eager without dropout keeps the softmax output
	 * 2 a s^2 b = 4,294,967,296 instead: 5,435,817,984 */
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
	ck_assert_uint_eq(v, 1141899264ull);
	c.training.attention = DC_ATTENTION_EAGER;
	ck_assert_int_eq(dc_act_layer_bytes(plan_of(&c), 0, &v), 0);
	ck_assert_uint_eq(v, 5435817984ull);
	c.model.dropout = 1;
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
	 * 67,108,864 gathered over etp = tp = 2 (each rank's grouped FC1
	 * saves the tokens its etp group received: 134,217,728); linear
	 * (83,886,080 + 838,860,800) / 2 = 461,373,440; scores 5 x 32 x 4096^2
	 * / 2 = 1,342,177,280: 1,971,322,880 with eager attention and
	 * dropout. The defaults (flash, no dropout): replicated 8 sbh =
	 * 134,217,728, the same linear part, softmax statistics 4 x 32 x 4096
	 * / 2 = 262,144: 595,853,312. At etp 1 (Megatron's EP folded over tp)
	 * the copies are a rank's own, 67,108,864 / 2: 562,298,880 (before
	 * the etp factor every etp read so, a trial's ep 8 at etp 4 36 GiB
	 * short) */
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
	ck_assert_uint_eq(v, 595853312ull);
	c.parallel.etp = 1;
	ck_assert_int_eq(dc_act_layer_bytes(plan_of(&c), 1, &v), 0);
	ck_assert_uint_eq(v, 562298880ull);
	c.parallel.etp = 0;
	c.training.attention = DC_ATTENTION_EAGER;
	c.model.dropout = 1;
	ck_assert_int_eq(dc_act_layer_bytes(plan_of(&c), 1, &v), 0);
	ck_assert_uint_eq(v, 1971322880ull);
}
END_TEST

/* Megatron-Core's recompute modules on Mixtral's layers (test_moe_layer's
 * shape: tp 2, s 4096, b 1, sbh = 16,777,216; flash, no dropout) with
 * sequence parallelism, which Megatron needs for MoE at tp 2: the
 * replicated terms split over t, 8 sbh / 2 = 67,108,864, so a MoE layer
 * holds 67,108,864 + 427,819,008 (linear) + 262,144 (softmax statistics
 * 4 a s b / t) = 495,190,016 B without recompute. The terms the modules
 * drop: the MLP input 2sbh / t = 16,777,216, fc1's output 4 s b k f / t =
 * 4 x 4096 x 2 x 14336 / 2 = 234,881,024, the activation's 2 s b k f / t
 * = 117,440,512, the routed copies 2 x 2sbh / t = 33,554,432, the
 * statistics. core_attn (the default) drops the statistics: 494,927,872;
 * moe_act the activation's output: 377,749,504; moe fc1's and the
 * activation's outputs and the routed copies, its BF16 input kept:
 * 495,190,016 - 385,875,968 = 109,314,048; layernorm the pre-MLP norm's
 * output: 478,412,800; mlp nothing of a MoE layer. A dense layer of the
 * same shape (f 14336) holds 67,108,864 replicated, q, k, v and the
 * projection input 41,943,040, fc1's output 4 s b f / t = 117,440,512,
 * the activation's 58,720,256 and the statistics: 285,474,816; mlp drops
 * the MLP input, fc1's and the activation's outputs: 285,474,816 -
 * 192,937,984 = 92,536,832; with core_attn 92,274,688. */
START_TEST(test_recompute_modules)
{
	struct dc_config c;
	struct dc_diag d;
	char path[512];
	uint64_t v;
	const struct {
		uint32_t mods;
		int moe;
		uint64_t bytes;
	} rows[] = {
		{0, 1, 494927872ull},
		{DC_RCM(DC_RCM_CORE_ATTN), 1, 494927872ull},
		{DC_RCM(DC_RCM_MOE_ACT), 1, 377749504ull},
		{DC_RCM(DC_RCM_MOE), 1, 109314048ull},
		{DC_RCM(DC_RCM_LAYERNORM), 1, 478412800ull},
		{DC_RCM(DC_RCM_MLP), 1, 495190016ull},
		{DC_RCM(DC_RCM_MOE), 0, 285474816ull},
		{DC_RCM(DC_RCM_MLP), 0, 92536832ull},
		{DC_RCM(DC_RCM_MLP) | DC_RCM(DC_RCM_CORE_ATTN), 0, 92274688ull},
	};
	snprintf(path, sizeof(path), "%s/configs/mixtral-8x7b-ep.json", DC_SOURCE_DIR);
	dc_diag_init(&d);
	ck_assert_int_eq(dc_config_load_file(path, NULL, 0, &c, &d), 0);
	dc_diag_release(&d);
	c.training.recompute = DC_RECOMPUTE_SELECTIVE;
	c.training.framework = DC_FRAMEWORK_MEGATRON;
	c.parallel.sequence_parallel = 1;
	c.parallel.etp = 1; /* the routed copies a rank's own (test_moe_layer) */
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		c.training.recompute_modules_mask = rows[i].mods;
		ck_assert_int_eq(dc_act_layer_bytes(plan_of(&c), rows[i].moe, &v), 0);
		ck_assert_msg(v == rows[i].bytes, "row %zu: %llu, expected %llu", i, (unsigned long long)v,
			      (unsigned long long)rows[i].bytes);
	}
	/* under full recompute the mask is not read */
	c.training.recompute = DC_RECOMPUTE_FULL;
	c.training.recompute_modules_mask = DC_RCM(DC_RCM_MOE);
	ck_assert_uint_eq(dc_recompute_modules(&c), 0);
}
END_TEST

/* Megatron-Core's Transformer Engine FP8 saving on Mixtral's MoE layer
 * (test_moe_layer: tp 2, no sequence parallelism, s 4096, b 1, sbh =
 * 16,777,216; flash, no dropout, 562,298,880 B under BF16). Its linears
 * keep their inputs' FP8 copies: the Q/K/V input 2sbh = 33,554,432
 * becomes sbh = 16,777,216; the experts' down input 2 s b (2 x 14336) / 2
 * = 117,440,512 becomes 58,720,256; the routed copies 2 x 2 sbh / 2 =
 * 33,554,432 become 16,777,216. The MLP input stays 2sbh: the router
 * keeps it in BF16. Under delayed the projection keeps an FP8 copy too,
 * 16,777,216 -> 8,388,608, and the flash kernel its BF16 output O,
 * 16,777,216, beside it: 562,298,880 - 16,777,216 - 8,388,608 +
 * 16,777,216 - 58,720,256 - 16,777,216 = 478,412,800. Under current and
 * mxfp8 Megatron has the projection save the BF16 O itself (attention.py:
 * 428-444): MXFP8 adds a byte per 32 elements to each copy before the tp
 * split, so the Q/K/V input 16,777,216 + 524,288, the down input
 * (117,440,512 + 3,670,016) / 2 and the routed copies (33,554,432 +
 * 1,048,576) / 2: 562,298,880 - 16,252,928 - 56,885,248 - 16,252,928 =
 * 472,907,776. Selective drops the core: the statistics (262,144) and,
 * under delayed, O: 478,412,800 - 262,144 - 16,777,216 = 461,373,440;
 * under current O is the projection's input and stays: 562,036,736 -
 * 16,777,216 - 58,720,256 - 16,777,216 = 469,762,048. Eager attention
 * keeps no O. torchtitan (torchao saves the BF16 input) and deepspeed
 * (TE's modules as its loop calls them: not modelled) keep the BF16
 * figure. With shared experts the MLP input under delayed is the
 * router's BF16 and the shared experts' FP8 copy, 3 sbh = 50,331,648
 * (under current the shared experts save the router's tensor: 2 sbh); in
 * a dense layer it is sbh. */
START_TEST(test_fp8_saved_inputs)
{
	struct dc_config c;
	struct dc_diag d;
	struct dc_act_layer t;
	char path[512];
	uint64_t v, bf16_eager;
	snprintf(path, sizeof(path), "%s/configs/mixtral-8x7b-ep.json", DC_SOURCE_DIR);
	dc_diag_init(&d);
	ck_assert_int_eq(dc_config_load_file(path, NULL, 0, &c, &d), 0);
	dc_diag_release(&d);
	c.training.recompute = DC_RECOMPUTE_NONE;
	c.training.framework = DC_FRAMEWORK_MEGATRON;
	c.parallel.etp = 1; /* the routed copies a rank's own (test_moe_layer) */
	c.precision.compute = DC_COMPUTE_FP8;
	c.precision.fp8_recipe = DC_FP8_DELAYED;
	ck_assert_int_eq(dc_act_layer_parts(plan_of(&c), 1, &t), 0);
	ck_assert_uint_eq(t.term_bytes[DC_ACT_ATTN_INPUT], 16777216ull);
	ck_assert_uint_eq(t.term_bytes[DC_ACT_PROJ_INPUT], 8388608ull);
	ck_assert_uint_eq(t.term_bytes[DC_ACT_CORE_OUTPUT], 16777216ull);
	ck_assert_uint_eq(t.term_bytes[DC_ACT_MLP_ACT], 58720256ull);
	ck_assert_uint_eq(t.term_bytes[DC_ACT_ROUTED], 16777216ull);
	ck_assert_uint_eq(t.term_bytes[DC_ACT_MLP_INPUT], 33554432ull);
	ck_assert_int_eq(dc_act_layer_bytes(plan_of(&c), 1, &v), 0);
	ck_assert_uint_eq(v, 478412800ull);
	c.precision.fp8_recipe = DC_FP8_MXFP8;
	ck_assert_int_eq(dc_act_layer_parts(plan_of(&c), 1, &t), 0);
	ck_assert_uint_eq(t.term_bytes[DC_ACT_PROJ_INPUT], 16777216ull);
	ck_assert_uint_eq(t.term_bytes[DC_ACT_CORE_OUTPUT], 0);
	ck_assert_int_eq(dc_act_layer_bytes(plan_of(&c), 1, &v), 0);
	ck_assert_uint_eq(v, 472907776ull);
	c.training.recompute = DC_RECOMPUTE_SELECTIVE;
	c.precision.fp8_recipe = DC_FP8_DELAYED;
	ck_assert_int_eq(dc_act_layer_bytes(plan_of(&c), 1, &v), 0);
	ck_assert_uint_eq(v, 461373440ull);
	c.precision.fp8_recipe = DC_FP8_CURRENT;
	ck_assert_int_eq(dc_act_layer_bytes(plan_of(&c), 1, &v), 0);
	ck_assert_uint_eq(v, 469762048ull);
	/* eager: no kernel output kept; without dropout the scores'
	 * 2as^2b = 1,073,741,824 / 2 in place of the statistics */
	c.training.recompute = DC_RECOMPUTE_NONE;
	c.training.attention = DC_ATTENTION_EAGER;
	c.precision.compute = DC_COMPUTE_BF16;
	ck_assert_int_eq(dc_act_layer_bytes(plan_of(&c), 1, &bf16_eager), 0);
	ck_assert_uint_eq(bf16_eager, 562298880ull - 262144ull + 536870912ull);
	c.precision.compute = DC_COMPUTE_FP8;
	c.precision.fp8_recipe = DC_FP8_DELAYED;
	ck_assert_int_eq(dc_act_layer_parts(plan_of(&c), 1, &t), 0);
	ck_assert_uint_eq(t.term_bytes[DC_ACT_CORE_OUTPUT], 0);
	ck_assert_int_eq(dc_act_layer_bytes(plan_of(&c), 1, &v), 0);
	ck_assert_uint_eq(v, bf16_eager - 16777216ull - 8388608ull - 58720256ull - 16777216ull);
	/* torchao keeps the BF16 input; another loop's TE is not modelled */
	c.training.attention = DC_ATTENTION_FLASH;
	c.training.framework = DC_FRAMEWORK_TORCHTITAN;
	ck_assert_int_eq(dc_act_layer_bytes(plan_of(&c), 1, &v), 0);
	ck_assert_uint_eq(v, 562298880ull);
	c.training.framework = DC_FRAMEWORK_DEEPSPEED;
	ck_assert_int_eq(dc_act_layer_bytes(plan_of(&c), 1, &v), 0);
	ck_assert_uint_eq(v, 562298880ull);
	c.training.framework = DC_FRAMEWORK_MEGATRON;
	c.model.shared_expert_ffn_hidden_size = 14336;
	ck_assert_int_eq(dc_act_layer_parts(plan_of(&c), 1, &t), 0);
	ck_assert_uint_eq(t.term_bytes[DC_ACT_MLP_INPUT], 50331648ull);
	c.precision.fp8_recipe = DC_FP8_CURRENT;
	ck_assert_int_eq(dc_act_layer_parts(plan_of(&c), 1, &t), 0);
	ck_assert_uint_eq(t.term_bytes[DC_ACT_MLP_INPUT], 33554432ull);
	ck_assert_int_eq(dc_act_layer_parts(plan_of(&c), 0, &t), 0);
	ck_assert_uint_eq(t.term_bytes[DC_ACT_MLP_INPUT], 16777216ull);
}
END_TEST

/* An FP8 term's formula says what it holds */
START_TEST(test_fp8_formulas)
{
	struct dc_config c;
	char buf[80];
	fixture_systems(&c);
	c.training.framework = DC_FRAMEWORK_MEGATRON;
	c.precision.compute = DC_COMPUTE_FP8;
	c.precision.fp8_recipe = DC_FP8_DELAYED;
	dc_act_term_formula(DC_ACT_ATTN_INPUT, &c, 0, buf, sizeof(buf));
	ck_assert_str_eq(buf, "sbh in FP8");
	dc_act_term_formula(DC_ACT_PROJ_INPUT, &c, 0, buf, sizeof(buf));
	ck_assert_str_eq(buf, "sb a d in FP8");
	dc_act_term_formula(DC_ACT_CORE_OUTPUT, &c, 0, buf, sizeof(buf));
	ck_assert_str_eq(buf, "2sb a d (BF16)");
	c.model.num_experts = 8;
	c.model.shared_expert_ffn_hidden_size = 1024;
	dc_act_term_formula(DC_ACT_MLP_INPUT, &c, 1, buf, sizeof(buf));
	ck_assert_str_eq(buf, "2sbh + sbh in FP8");
	c.precision.fp8_recipe = DC_FP8_MXFP8;
	dc_act_term_formula(DC_ACT_ATTN_INPUT, &c, 0, buf, sizeof(buf));
	ck_assert_str_eq(buf, "33/32 x sbh in MXFP8");
	dc_act_term_formula(DC_ACT_PROJ_INPUT, &c, 0, buf, sizeof(buf));
	ck_assert_str_eq(buf, "2sb a d");
	dc_act_term_formula(DC_ACT_MLP_INPUT, &c, 1, buf, sizeof(buf));
	ck_assert_str_eq(buf, "2sbh");
	c.training.framework = DC_FRAMEWORK_CUSTOM;
	dc_act_term_formula(DC_ACT_ATTN_INPUT, &c, 0, buf, sizeof(buf));
	ck_assert_str_eq(buf, "2sbh");
}
END_TEST

/* An MTP module's activations on the last stage under each recompute, as
 * Megatron-Core runs it (multi_token_prediction.py at d98e8a64). Mixtral
 * (test_moe_layer: tp 2, no sequence parallelism, s 4096, b 1, sbh =
 * 16,777,216; a MoE layer keeps 562,298,880 B with flash and no dropout)
 * with one module. The last stage's output terms hold the head's, O, and
 * the module's own head copy O with its body B, so B = O(1) - 2 O(0):
 * - none: the layer's all and enorm, hnorm and eh_proj's inputs, 2 + 2 +
 *   4 = 8 sbh = 134,217,728: 696,516,608;
 * - block (full with recompute_layers 2 of the 8 a chunk): the module runs
 *   without a checkpoint (:1630-1634), so the same 696,516,608 (before:
 *   a recomputed layer's input 2 sbh + 8 sbh = 167,772,160);
 * - uniform (full, recompute_layers 0): only the checkpoint's inputs, the
 *   hidden states and the embedding, 2 sbh each (:1621-1629):
 *   67,108,864 (before: 167,772,160). */
START_TEST(test_mtp_module_activations)
{
	static const struct {
		enum dc_recompute rc;
		uint64_t layers, body;
	} rows[] = {
		{DC_RECOMPUTE_NONE, 0, 696516608ull},
		{DC_RECOMPUTE_FULL, 2, 696516608ull},
		{DC_RECOMPUTE_FULL, 0, 67108864ull},
	};
	struct dc_config c;
	struct dc_diag d;
	char path[512];
	snprintf(path, sizeof(path), "%s/configs/mixtral-8x7b-ep.json", DC_SOURCE_DIR);
	dc_diag_init(&d);
	ck_assert_int_eq(dc_config_load_file(path, NULL, 0, &c, &d), 0);
	dc_diag_release(&d);
	c.parallel.etp = 1; /* the routed copies a rank's own (test_moe_layer) */
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct dc_act_plan x0, x1;
		c.training.recompute = rows[i].rc;
		c.training.recompute_layers = rows[i].layers;
		c.model.mtp_layers = 0;
		dc_act_plan_compute(plan_of(&c), &x0);
		c.model.mtp_layers = 1;
		dc_act_plan_compute(plan_of(&c), &x1);
		ck_assert(!x0.output_bad && !x1.output_bad);
		ck_assert_msg(x1.output_bytes - 2 * x0.output_bytes == rows[i].body, "row %zu: %llu", i,
			      (unsigned long long)(x1.output_bytes - 2 * x0.output_bytes));
	}
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


/* A small SwiGLU/GQA layer worked by hand, term by term: h 64, a 4 heads
 * of d 16, kv 2, f 128, s 32, b 2, t 1 (sb = 64, sbh = 4096):
 *   norm inputs 2 x 2sbh                    16,384
 *   Q/K/V input 2sbh                         8,192
 *   Q and K 2sb(a + kv)d = 128 x 96         12,288
 *   V 2sb kv d = 128 x 32                    4,096
 *   attention output 2sb a d = 128 x 64      8,192
 *   MLP input 2sbh                           8,192
 *   gate and up 4sbf = 4 x 64 x 128         32,768
 *   silu(gate) x up 2sbf                    16,384
 *   common part                            106,496
 * flash: + softmax statistics 4asb = 4 x 4 x 32 x 2 = 1,024: 107,520;
 * eager: + softmax output 2as^2b = 2 x 4 x 1024 x 2 = 16,384: 122,880;
 * eager with dropout: + mask as^2b 8,192 + dropped probabilities 16,384
 * + residual masks 2sbh 8,192: 155,648; flash with dropout: + the residual
 * masks only (the kernel regenerates its mask): 115,712. */
static void small_layer(struct dc_config *c, const char *attention, int dropout, const char *recompute)
{
	fixture_json(c,
		     "{\"model\": {\"num_layers\": 2, \"hidden_size\": 64, \"num_attention_heads\": 4,"
		     " \"num_kv_heads\": 2, \"ffn_hidden_size\": 128, \"vocab_size\": 1000, \"seq_length\": 32,"
		     " \"dropout\": %s},"
		     " \"cluster\": {\"num_nodes\": 1, \"gpus_per_node\": 1, \"gpu_memory\": \"80 GiB\","
		     " \"intra_node\": {\"bandwidth\": \"300 GB/s\"}, \"inter_node\": {\"bandwidth\": \"200 Gb/s\"}},"
		     " \"training\": {\"micro_batch_size\": 2, \"attention\": \"%s\", \"recompute\": \"%s\"}}",
		     dropout ? "true" : "false", attention, recompute);
}

/* training.loss_chunks (docs/formulas.md, "Chunked loss"): h 256, V 1000,
 * tp 2, micro 2 x s 512 = 1,024 tokens a microbatch, sbh = 262,144. */
static void chunked_head(struct dc_config *c, uint64_t seq, uint64_t micro, int sp, uint64_t chunks)
{
	fixture_json(c,
		     "{\"model\": {\"num_layers\": 2, \"hidden_size\": 256, \"num_attention_heads\": 4,"
		     " \"ffn_hidden_size\": 1024, \"vocab_size\": 1000, \"seq_length\": %llu},"
		     " \"cluster\": {\"num_nodes\": 1, \"gpus_per_node\": 2, \"gpu_memory\": \"80 GiB\","
		     " \"intra_node\": {\"bandwidth\": \"300 GB/s\"}, \"inter_node\": {\"bandwidth\": \"200 Gb/s\"}},"
		     " \"parallel\": {\"tp\": 2, \"dp\": 1, \"sequence_parallel\": %s},"
		     " \"training\": {\"micro_batch_size\": %llu, \"loss_chunks\": %llu}}",
		     (unsigned long long)seq, sp ? "true" : "false", (unsigned long long)micro, (unsigned long long)chunks);
}

/* chunked_head's layer under torchtitan's rules */
static void titan_head_chunks(struct dc_config *c, int sp, uint64_t chunks)
{
	fixture_json(c,
		     "{\"model\": {\"num_layers\": 2, \"hidden_size\": 256, \"num_attention_heads\": 4,"
		     " \"ffn_hidden_size\": 1024, \"vocab_size\": 1000, \"seq_length\": 512},"
		     " \"cluster\": {\"num_nodes\": 1, \"gpus_per_node\": 2, \"gpu_memory\": \"80 GiB\","
		     " \"intra_node\": {\"bandwidth\": \"300 GB/s\"}, \"inter_node\": {\"bandwidth\": \"200 Gb/s\"}},"
		     " \"parallel\": {\"tp\": 2, \"dp\": 1, \"sequence_parallel\": %s},"
		     " \"training\": {\"micro_batch_size\": 2, \"framework\": \"torchtitan\", \"loss_chunks\": %llu}}",
		     sp ? "true" : "false", (unsigned long long)chunks);
}

/* ... at loss_chunks 1 */
static void titan_head(struct dc_config *c, int sp)
{
	titan_head_chunks(c, sp, 1);
}

/* torchtitan's output layer and loss at tp 2 (docs/formulas.md,
 * "Embedding and output"), by hand: sbh = 1,024 x 256 = 262,144, sbV =
 * 1,024 x 1,000 = 1,024,000. With SP the final norm keeps its input shard
 * 2sbh/2 = 262,144 and the head its gathered input 2sbh = 524,288
 * (Megatron: 262,144 each), beside the FP32 log-probabilities 4sbV/2 =
 * 2,048,000: 2,834,432 (Megatron's 2,572,288). The loss parallel
 * backward holds the zeroed gradient, exp(x) and their sum, 12sbV/2 =
 * 6,144,000 (the fused path's 8sbV/2 = 4,096,000). The head's weight
 * gradient reads the gathered input and the 16-bit logits' gradient:
 * 524,288 + 2sbV/2 = 1,024,000: 1,548,288. Without SP both inputs are
 * whole, 4sbh = 1,048,576, as before: 3,096,576; the loss line is the
 * same 6,144,000. */
START_TEST(test_torchtitan_head_and_loss_parallel)
{
	struct dc_config c;
	uint64_t v;
	titan_head(&c, 1);
	ck_assert_int_eq(dc_act_output_bytes(plan_of(&c), &v), 0);
	ck_assert_uint_eq(v, 2834432ull);
	ck_assert_int_eq(dc_act_head_backward_bytes(plan_of(&c), &v), 0);
	ck_assert_uint_eq(v, 6144000ull);
	ck_assert_int_eq(dc_act_head_wgrad_bytes(plan_of(&c), &v), 0);
	ck_assert_uint_eq(v, 1548288ull);
	titan_head(&c, 0);
	ck_assert_int_eq(dc_act_output_bytes(plan_of(&c), &v), 0);
	ck_assert_uint_eq(v, 3096576ull);
	ck_assert_int_eq(dc_act_head_backward_bytes(plan_of(&c), &v), 0);
	ck_assert_uint_eq(v, 6144000ull);
	/* the same layer under Megatron's rules, with SP */
	chunked_head(&c, 512, 2, 1, 1);
	ck_assert_int_eq(dc_act_output_bytes(plan_of(&c), &v), 0);
	ck_assert_uint_eq(v, 2572288ull);
	ck_assert_int_eq(dc_act_head_backward_bytes(plan_of(&c), &v), 0);
	ck_assert_uint_eq(v, 4096000ull);
	ck_assert_int_eq(dc_act_head_wgrad_bytes(plan_of(&c), &v), 0);
	ck_assert_uint_eq(v, 1286144ull);
}
END_TEST

START_TEST(test_loss_chunks_head_terms)
{
	struct dc_config c;
	uint64_t v;
	/* loss_chunks 1, as before: held 4sbh + 4sbV/t = 1,048,576 + 4 x
	 * 1,024 x 1,000 / 2 = 2,048,000: 3,096,576; the loss's backward
	 * 8sbV/t = 4,096,000 */
	chunked_head(&c, 512, 2, 0, 1);
	ck_assert_int_eq(dc_act_output_bytes(plan_of(&c), &v), 0);
	ck_assert_uint_eq(v, 3096576ull);
	ck_assert_int_eq(dc_act_head_backward_bytes(plan_of(&c), &v), 0);
	ck_assert_uint_eq(v, 4096000ull);
	/* loss_chunks 8, c = 1,024 / 8 = 128 tokens a chunk. Held: the norm's
	 * input 2sbh = 524,288 and the gathered 16-bit gradient 2sbh =
	 * 524,288: 1,048,576. The loss call over it: in the loop 4sbh =
	 * 1,048,576 (norm output 2 + FP32 buffer 4 - the 16-bit gradient not
	 * made yet 2) and one chunk's 14cV/t = 14 x 128 x 1,000 / 2 = 896,000:
	 * 1,944,576; at the cast 6sbh = 1,572,864; the larger 1,944,576 */
	chunked_head(&c, 512, 2, 0, 8);
	ck_assert_int_eq(dc_act_output_bytes(plan_of(&c), &v), 0);
	ck_assert_uint_eq(v, 1048576ull);
	ck_assert_int_eq(dc_act_head_backward_bytes(plan_of(&c), &v), 0);
	ck_assert_uint_eq(v, 1944576ull);
	/* with SP the norm's input is split, 524,288 / 2 = 262,144; the
	 * gradient stays whole (the chunks enter the head replicated):
	 * 786,432; the loss call's line is unchanged */
	chunked_head(&c, 512, 2, 1, 8);
	ck_assert_int_eq(dc_act_output_bytes(plan_of(&c), &v), 0);
	ck_assert_uint_eq(v, 786432ull);
	ck_assert_int_eq(dc_act_head_backward_bytes(plan_of(&c), &v), 0);
	ck_assert_uint_eq(v, 1944576ull);
	/* 16 chunks of 64: loop 1,048,576 + 14 x 64 x 1,000 / 2 = 448,000 =
	 * 1,496,576 is below the cast's 6sbh = 1,572,864, which wins */
	chunked_head(&c, 512, 2, 0, 16);
	ck_assert_int_eq(dc_act_head_backward_bytes(plan_of(&c), &v), 0);
	ck_assert_uint_eq(v, 1572864ull);
	/* under torchtitan at tp 2 a chunk's loss is loss parallel's
	 * (torchtitan b5bcd76c components/loss.py: _LossParallelCrossEntropy
	 * saves the FP32 log-probs :179; its backward holds zeros_like of
	 * them :201, their exp and the sum :214): 2 + 4 + 12 = 18 bytes a
	 * logit. 8 chunks: 1,048,576 + 18 x 128 x 1,000 / 2 = 1,152,000:
	 * 2,200,576; the held line is the same 786,432 with SP */
	titan_head_chunks(&c, 1, 8);
	ck_assert_int_eq(dc_act_output_bytes(plan_of(&c), &v), 0);
	ck_assert_uint_eq(v, 786432ull);
	ck_assert_int_eq(dc_act_head_backward_bytes(plan_of(&c), &v), 0);
	ck_assert_uint_eq(v, 2200576ull);
	/* 16 chunks: 1,048,576 + 18 x 64 x 1,000 / 2 = 576,000: 1,624,576,
	 * now above the cast's 1,572,864 (14 bytes left the cast above) */
	titan_head_chunks(&c, 1, 16);
	ck_assert_int_eq(dc_act_head_backward_bytes(plan_of(&c), &v), 0);
	ck_assert_uint_eq(v, 1624576ull);
	/* an n that does not divide the tokens (s 500, micro 1, 8 chunks:
	 * 500 = 8 x 62 + 4) is the loader's error, as torchtitan's
	 * torch._check is (tests/cli/cases/bad_loss_chunks_uneven) */
}
END_TEST

START_TEST(test_flash_vs_eager_small)
{
	struct dc_config c;
	struct dc_act_layer t;
	uint64_t v;
	small_layer(&c, "flash", 0, "none");
	ck_assert_int_eq(dc_act_layer_parts(plan_of(&c), 0, &t), 0);
	ck_assert_uint_eq(t.term_bytes[DC_ACT_NORM_INPUTS], 16384);
	ck_assert_uint_eq(t.term_bytes[DC_ACT_QK], 12288);
	ck_assert_uint_eq(t.term_bytes[DC_ACT_V], 4096);
	ck_assert_uint_eq(t.term_bytes[DC_ACT_PROJ_INPUT], 8192);
	ck_assert_uint_eq(t.term_bytes[DC_ACT_MLP_UP], 32768);
	ck_assert_uint_eq(t.term_bytes[DC_ACT_MLP_ACT], 16384);
	ck_assert_uint_eq(t.term_bytes[DC_ACT_SOFTMAX_STATS], 1024);
	ck_assert_uint_eq(t.term_bytes[DC_ACT_SOFTMAX], 0);
	ck_assert_uint_eq(t.term_bytes[DC_ACT_DROPOUT_MASKS], 0);
	ck_assert_int_eq(dc_act_layer_bytes(plan_of(&c), 0, &v), 0);
	ck_assert_uint_eq(v, 107520);
	small_layer(&c, "eager", 0, "none");
	ck_assert_int_eq(dc_act_layer_bytes(plan_of(&c), 0, &v), 0);
	ck_assert_uint_eq(v, 122880);
	small_layer(&c, "eager", 1, "none");
	ck_assert_int_eq(dc_act_layer_parts(plan_of(&c), 0, &t), 0);
	ck_assert_uint_eq(t.term_bytes[DC_ACT_SOFTMAX], 16384);
	ck_assert_uint_eq(t.term_bytes[DC_ACT_ATTN_MASK], 8192);
	ck_assert_uint_eq(t.term_bytes[DC_ACT_ATTN_DROPOUT], 16384);
	ck_assert_uint_eq(t.term_bytes[DC_ACT_DROPOUT_MASKS], 8192);
	ck_assert_int_eq(dc_act_layer_bytes(plan_of(&c), 0, &v), 0);
	ck_assert_uint_eq(v, 155648);
	small_layer(&c, "flash", 1, "none");
	ck_assert_int_eq(dc_act_layer_bytes(plan_of(&c), 0, &v), 0);
	ck_assert_uint_eq(v, 115712);
	/* selective drops the attention core: 106,496 under either kernel,
	 * rebuilding 1,024 (flash) or 16,384 (eager) bytes */
	small_layer(&c, "flash", 0, "selective");
	ck_assert_int_eq(dc_act_layer_kept_rebuilt(plan_of(&c), 0, &v, &(uint64_t){0}), 0);
	ck_assert_uint_eq(v, 106496);
	ck_assert_int_eq(dc_act_recompute_working_bytes(plan_of(&c), 0, &v), 0);
	ck_assert_uint_eq(v, 1024);
	small_layer(&c, "eager", 0, "selective");
	ck_assert_int_eq(dc_act_recompute_working_bytes(plan_of(&c), 0, &v), 0);
	ck_assert_uint_eq(v, 16384);
	/* the embedding keeps a dropout mask only with dropout: sbh = 4096 */
	ck_assert_int_eq(dc_act_embedding_bytes(plan_of(&c), &v), 0);
	ck_assert_uint_eq(v, 0);
	small_layer(&c, "eager", 1, "none");
	ck_assert_int_eq(dc_act_embedding_bytes(plan_of(&c), &v), 0);
	ck_assert_uint_eq(v, 4096);
}
END_TEST

/* model.qk_norm and model.sandwich_norm (docs/formulas.md, "Activation
 * memory"): an RMSNorm saves its input. Q and K normed per head (Qwen3's
 * q_norm and k_norm, Megatron-Core's qk_layernorm) keep the unnormed q
 * and k beside the rotated ones the kernel saves: 2sb(a + kv)d = 2 x 64 x
 * (4 + 2) x 16 = 12,288 B on small_layer (sb 64, h 64, a 4, kv 2, d 16);
 * Gemma 2/3's post-attention and post-MLP norms keep their inputs, the
 * projection's and the MLP's outputs: 2 x 2sbh = 16,384. Without
 * recompute the layer holds 107,520 + 12,288 + 16,384 = 136,192;
 * selective keeps both (106,496 + 28,672 = 135,168); full keeps the
 * input alone (2sbh = 8,192); the op policy neither (its list is the
 * matmuls' outputs). At tp 2 the q/k term splits over the heads (6,144)
 * and the sandwich's splits only under sequence parallelism. */
START_TEST(test_qk_norm_and_sandwich_inputs)
{
	struct dc_config c;
	struct dc_act_layer t;
	uint64_t v;
	small_layer(&c, "flash", 0, "none");
	ck_assert_int_eq(dc_act_layer_parts(plan_of(&c), 0, &t), 0);
	ck_assert_uint_eq(t.term_bytes[DC_ACT_QK_NORM_INPUTS], 0);
	ck_assert_uint_eq(t.term_bytes[DC_ACT_SANDWICH_NORM_INPUTS], 0);
	c.model.qk_norm = 1;
	c.model.sandwich_norm = 1;
	ck_assert_int_eq(dc_act_layer_parts(plan_of(&c), 0, &t), 0);
	ck_assert_uint_eq(t.term_bytes[DC_ACT_QK_NORM_INPUTS], 12288);
	ck_assert_uint_eq(t.term_bytes[DC_ACT_SANDWICH_NORM_INPUTS], 16384);
	ck_assert_int_eq(dc_act_layer_bytes(plan_of(&c), 0, &v), 0);
	ck_assert_uint_eq(v, 136192);
	c.training.recompute = DC_RECOMPUTE_SELECTIVE;
	ck_assert_int_eq(dc_act_layer_bytes(plan_of(&c), 0, &v), 0);
	ck_assert_uint_eq(v, 135168);
	c.training.recompute = DC_RECOMPUTE_FULL;
	ck_assert_int_eq(dc_act_layer_bytes(plan_of(&c), 0, &v), 0);
	ck_assert_uint_eq(v, 8192);
	c.training.recompute = DC_RECOMPUTE_OP;
	ck_assert_int_eq(dc_act_layer_parts(plan_of(&c), 0, &t), 0);
	ck_assert_uint_eq(t.kept_bytes[DC_ACT_QK_NORM_INPUTS], 0);
	ck_assert_uint_eq(t.kept_bytes[DC_ACT_SANDWICH_NORM_INPUTS], 0);
	/* tp 2 on two GPUs, without and with sequence parallelism */
	fixture_json(&c,
		     "{\"model\": {\"num_layers\": 2, \"hidden_size\": 64, \"num_attention_heads\": 4,"
		     " \"num_kv_heads\": 2, \"ffn_hidden_size\": 128, \"vocab_size\": 1000, \"seq_length\": 32,"
		     " \"qk_norm\": true, \"sandwich_norm\": true},"
		     " \"cluster\": {\"num_nodes\": 1, \"gpus_per_node\": 2, \"gpu_memory\": \"80 GiB\","
		     " \"intra_node\": {\"bandwidth\": \"300 GB/s\"}, \"inter_node\": {\"bandwidth\": \"200 Gb/s\"}},"
		     " \"parallel\": {\"tp\": 2},"
		     " \"training\": {\"micro_batch_size\": 2}}");
	ck_assert_int_eq(dc_act_layer_parts(plan_of(&c), 0, &t), 0);
	ck_assert_uint_eq(t.term_bytes[DC_ACT_QK_NORM_INPUTS], 6144);
	ck_assert_uint_eq(t.term_bytes[DC_ACT_SANDWICH_NORM_INPUTS], 16384);
	c.parallel.sequence_parallel = 1;
	ck_assert_int_eq(dc_act_layer_parts(plan_of(&c), 0, &t), 0);
	ck_assert_uint_eq(t.term_bytes[DC_ACT_SANDWICH_NORM_INPUTS], 8192);
}
END_TEST

/* torchtitan keeps what its sequence-parallel AllGathers bring (the
 * stock linear's matmul saves its gathered input: framework.h
 * dc_framework_tp_keeps_gathered_input), where Megatron keeps the s/t
 * shard and gathers it again: the Q/K/V input and the MLP input, 2sbh
 * each, are not split over t. GPT-3 175B (t 8, SP): each is 2 sbh, not
 * 2 sbh / 8, 2 x 2 x 7/8 = 3.5 sbh more a layer: none 14.25 + 3.5 =
 * 17.75 sbh = 446,693,376; selective 4.25 + 3.5 = 7.75 sbh = 195,035,136;
 * full keeps the input shard (2 sbh / 8 = 6,291,456) and rebuilds the
 * whole layer, now 17.75 sbh; without SP nothing changes (the inputs are
 * whole already): 23 sbh. */
static void gpt3_titan(struct dc_config *c, const char *recompute, int sp)
{
	fixture_json(c,
		     "{\"model\": {\"num_layers\": 96, \"hidden_size\": 12288, \"num_attention_heads\": 96,"
		     " \"ffn_hidden_size\": 49152, \"vocab_size\": 51200, \"seq_length\": 2048, \"mlp\": \"gelu\","
		     " \"dropout\": true},"
		     " \"cluster\": {\"num_nodes\": 8, \"gpus_per_node\": 8, \"gpu_memory\": \"80 GiB\","
		     " \"intra_node\": {\"bandwidth\": \"300 GB/s\"}, \"inter_node\": {\"bandwidth\": \"200 Gb/s\"}},"
		     " \"parallel\": {\"tp\": 8, \"pp\": 8, \"dp\": 1, \"sequence_parallel\": %s},"
		     " \"training\": {\"micro_batch_size\": 1, \"grad_accum_steps\": 64, \"recompute\": \"%s\","
		     " \"attention\": \"eager\", \"framework\": \"torchtitan\"}}",
		     sp ? "true" : "false", recompute);
}

START_TEST(test_torchtitan_keeps_gathered_inputs)
{
	struct dc_config c;
	struct dc_act_layer t;
	uint64_t kept, rebuilt;
	gpt3_titan(&c, "none", 1);
	ck_assert_int_eq(dc_act_layer_parts(plan_of(&c), 0, &t), 0);
	ck_assert_uint_eq(t.term_bytes[DC_ACT_ATTN_INPUT], 2 * SBH);
	ck_assert_uint_eq(t.term_bytes[DC_ACT_MLP_INPUT], 2 * SBH);
	ck_assert_uint_eq(t.term_bytes[DC_ACT_NORM_INPUTS], 4 * SBH / 8);
	ck_assert_int_eq(dc_act_layer_bytes(plan_of(&c), 0, &kept), 0);
	ck_assert_uint_eq(kept, 446693376ull);
	gpt3_titan(&c, "selective", 1);
	ck_assert_int_eq(dc_act_layer_bytes(plan_of(&c), 0, &kept), 0);
	ck_assert_uint_eq(kept, 195035136ull);
	gpt3_titan(&c, "full", 1);
	ck_assert_int_eq(dc_act_layer_kept_rebuilt(plan_of(&c), 0, &kept, &rebuilt), 0);
	ck_assert_uint_eq(kept, 6291456ull);
	ck_assert_uint_eq(rebuilt, 446693376ull);
	gpt3_titan(&c, "none", 0);
	ck_assert_int_eq(dc_act_layer_bytes(plan_of(&c), 0, &kept), 0);
	ck_assert_uint_eq(kept, 23 * SBH);
}
END_TEST

/* torchtitan's per-op policy on the small layer (flash, no dropout): it
 * keeps the layer input 2sbh = 8,192, the outputs of the 1st, 3rd, 5th and
 * 7th matmuls (wq: 2sb a d = 8,192; wv: 4,096; w1, the gate: 2sbf =
 * 16,384; w2, the MLP output: 2sbh = 8,192) and the flash kernel's output
 * (8,192) and logsumexp (1,024): 54,272. Backward rebuilds what the layer
 * held but the policy did not keep: 107,520 - 46,080 = 61,440. Eager: the
 * softmax is not on the save list, the statistics do not exist: 53,248
 * kept, 122,880 - 45,056 = 77,824 rebuilt. */
START_TEST(test_op_policy_one_layer)
{
	struct dc_config c;
	struct dc_act_layer t;
	uint64_t kept, rebuilt;
	small_layer(&c, "flash", 0, "op");
	ck_assert_int_eq(dc_act_layer_parts(plan_of(&c), 0, &t), 0);
	ck_assert_uint_eq(t.kept_bytes[DC_ACT_NORM_INPUTS], 8192);
	ck_assert_uint_eq(t.kept_bytes[DC_ACT_QK], 8192);
	ck_assert_uint_eq(t.kept_bytes[DC_ACT_V], 4096);
	ck_assert_uint_eq(t.kept_bytes[DC_ACT_PROJ_INPUT], 8192);
	ck_assert_uint_eq(t.kept_bytes[DC_ACT_SOFTMAX_STATS], 1024);
	ck_assert_uint_eq(t.kept_bytes[DC_ACT_MLP_UP], 16384);
	ck_assert_uint_eq(t.kept_bytes[DC_ACT_MLP_ACT], 0);
	ck_assert_uint_eq(t.kept_bytes[DC_ACT_MLP_OUTPUT], 8192);
	ck_assert_int_eq(dc_act_layer_kept_rebuilt(plan_of(&c), 0, &kept, &rebuilt), 0);
	ck_assert_uint_eq(kept, 54272);
	ck_assert_uint_eq(rebuilt, 61440);
	small_layer(&c, "eager", 0, "op");
	ck_assert_int_eq(dc_act_layer_kept_rebuilt(plan_of(&c), 0, &kept, &rebuilt), 0);
	ck_assert_uint_eq(kept, 53248);
	ck_assert_uint_eq(rebuilt, 77824);
}
END_TEST

/* Megatron's --recompute-num-layers (block): GPT-3 on pp 8 holds 12
 * layers a stage; with 4 of them recomputed fully they keep the input
 * 2 sbh = 50,331,648 and the other 8 everything, 23 sbh = 578,813,952:
 * 4,831,838,208 / 12 = 402,653,184 per layer; the first stage's 96
 * layer-microbatches hold 38,654,705,664 bytes, and one rebuilt layer
 * (23 sbh) is the backward working set */
START_TEST(test_recompute_layers)
{
	struct dc_config c;
	struct dc_mem_ledger l;
	const char *err = NULL;
	gpt3(&c, "full", 0, 8, 1);
	c.training.recompute_layers = 4;
	ck_assert_int_eq(dc_memory_stage(plan_of(&c), 0, &l, &err), 0);
	ck_assert_uint_eq(l.activation_bytes_per_layer, 402653184ull);
	ck_assert_uint_eq(l.activation_layers_bytes, 38654705664ull);
	ck_assert_uint_eq(l.activation_recompute_bytes, 23 * SBH);
	/* all 12: the input only */
	c.training.recompute_layers = 12;
	ck_assert_int_eq(dc_memory_stage(plan_of(&c), 0, &l, &err), 0);
	ck_assert_uint_eq(l.activation_bytes_per_layer, 2 * SBH);
	/* 20, above the stage's 12: Megatron-Core's block method checkpoints
	 * layers 0 .. 19 of the 12 (recompute.py:167-181 at d98e8a64), all
	 * of them: the input only again, and the whole forward rerun */
	c.training.recompute_layers = 20;
	ck_assert_int_eq(dc_memory_stage(plan_of(&c), 0, &l, &err), 0);
	ck_assert_uint_eq(l.activation_bytes_per_layer, 2 * SBH);
	ck_assert_uint_eq(l.activation_layers_bytes, 96 * 2 * SBH);
	ck_assert_double_eq(dc_plan_recompute_share(plan_of(&c)), 1.0);
}
END_TEST

/* Korthikanti et al. 2022 Figure 1, from the four shipped configs (Table
 * 3's layouts, the 2022 Megatron setup). Weights and optimizer state: 18
 * bytes per parameter (BF16 weights 2, FP32 main gradients 4, FP32 master
 * 4, Adam 8). A GPT layer on one of t = 8 ranks holds 12h^2/t weights,
 * 7h/t column-parallel biases (QKV 3h, fc1 4h) and 6h replicated ones (the
 * projection and fc2 biases, two LayerNorms of 2h):
 *   175B (h 12288): 226,492,416 + 10,752 + 73,728 = 226,576,896 a layer,
 *        12 a stage: 2,718,922,752 x 18 = 48,940,609,536
 *   530B (h 20480): 629,145,600 + 17,920 + 122,880 = 629,286,400, 3 a stage:
 *        1,887,859,200 x 18 = 33,981,465,600
 *   1T (h 25600): 983,040,000 + 22,400 + 153,600 = 983,216,000, 2 a stage:
 *        1,966,432,000 x 18 = 35,395,776,000
 *   22B (h 6144, pp 1): 56,665,344 x 48 = 2,719,936,512, plus the
 *        vocab-parallel embedding 51200 x 6144 / 8 = 39,321,600, the
 *        position table 2048 x 6144 = 12,582,912 and the final LayerNorm
 *        12,288: 2,771,853,312 x 18 = 49,893,359,616
 * Activations of the first stage, Eq. 5 and 6 with Table 2 per layer and
 * the interleaved factor (1 + (p-1)/(pv)) (175B and 530B run v = 3):
 *   layer-microbatches 22B 48, 175B 96 (1 + 7/24) = 124,
 *   530B 105 (1 + 34/105) = 139, 1T 128
 *   present work (SP + selective) 34 sbh/t: 22B sbh = 50,331,648:
 *   213,909,504 x 48 = 10,267,656,192; 175B sbh = 25,165,824: 106,954,752 x
 *   124 = 13,262,389,248; 530B sbh = 41,943,040: 178,257,920 x 139 =
 *   24,777,850,880; 1T sbh = 52,428,800: 222,822,400 x 128 = 28,521,267,200
 *   baseline (TP only, no recompute) sbh (10 + 24/t + 5as/(ht)): 22B
 *   1,325,400,064 x 48 = 63,619,203,072; 175B 23 sbh = 578,813,952 x 124 =
 *   71,772,930,048; 530B 21 sbh = 880,803,840 x 139 = 122,431,733,760;
 *   1T 21 sbh = 1,101,004,800 x 128 = 140,928,614,400 */
static void korthikanti(struct dc_config *c, const char *name, int baseline)
{
	char path[512];
	struct dc_diag d;
	const struct dc_override base_sets[] = {{"parallel.sequence_parallel=false"}, {"training.recompute=\"none\""}};
	snprintf(path, sizeof(path), "%s/configs/korthikanti-%s.json", DC_SOURCE_DIR, name);
	dc_diag_init(&d);
	ck_assert_int_eq(dc_config_load_file(path, baseline ? base_sets : NULL, baseline ? 2 : 0, c, &d), 0);
	dc_diag_release(&d);
}

START_TEST(test_figure1)
{
	static const struct {
		const char *name;
		uint64_t stage, states, present, baseline;
	} fig[] = {
		{"22b", 0, 49893359616ull, 10267656192ull, 63619203072ull},
		{"175b", 1, 48940609536ull, 13262389248ull, 71772930048ull},
		{"530b", 1, 33981465600ull, 24777850880ull, 122431733760ull},
		{"1t", 1, 35395776000ull, 28521267200ull, 140928614400ull},
	};
	for (size_t i = 0; i < sizeof(fig) / sizeof(fig[0]); i++) {
		struct dc_config c;
		struct dc_mem_ledger l;
		const char *err = NULL;
		korthikanti(&c, fig[i].name, 0);
		ck_assert_int_eq(dc_memory_stage(plan_of(&c), fig[i].stage, &l, &err), 0);
		ck_assert_msg(l.model_states_bytes == fig[i].states, "%s: states %llu", fig[i].name,
			      (unsigned long long)l.model_states_bytes);
		ck_assert_uint_eq(l.model_states_bytes, 18 * l.p.total);
		ck_assert_int_eq(dc_memory_stage(plan_of(&c), 0, &l, &err), 0);
		ck_assert_msg(l.activation_layers_bytes == fig[i].present, "%s: present %llu", fig[i].name,
			      (unsigned long long)l.activation_layers_bytes);
		korthikanti(&c, fig[i].name, 1);
		ck_assert_int_eq(dc_memory_stage(plan_of(&c), 0, &l, &err), 0);
		ck_assert_msg(l.activation_layers_bytes == fig[i].baseline, "%s: baseline %llu", fig[i].name,
			      (unsigned long long)l.activation_layers_bytes);
	}
}
END_TEST

/* Context parallelism by hand: a layer of h 1024, 16 heads (4 KV heads of
 * 64), SwiGLU f 4096, s 8192, b 1, tp 2, cp 4 (one node of 8), eager attention
 * with dropout (Korthikanti's terms). A cp rank
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
			 " \"num_kv_heads\": 4, \"ffn_hidden_size\": 4096, \"vocab_size\": 32000, \"seq_length\": 8192,"
			 " \"dropout\": true},"
			 " \"cluster\": {\"num_nodes\": 1, \"gpus_per_node\": 8, \"gpu_memory\": \"80 GiB\","
			 " \"intra_node\": {\"bandwidth\": \"300 GB/s\"}, \"inter_node\": {\"bandwidth\": \"50 GB/s\"}},"
			 " \"parallel\": {\"tp\": 2, \"cp\": 4},"
			 " \"training\": {\"recompute\": \"full\", \"attention\": \"eager\"}}");
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
	tcase_add_test(tc, test_mtp_module_activations);
	tcase_add_test(tc, test_ledger_uses_schedule);
	tcase_add_test(tc, test_flash_vs_eager_small);
	tcase_add_test(tc, test_qk_norm_and_sandwich_inputs);
	tcase_add_test(tc, test_loss_chunks_head_terms);
	tcase_add_test(tc, test_torchtitan_head_and_loss_parallel);
	tcase_add_test(tc, test_op_policy_one_layer);
	tcase_add_test(tc, test_torchtitan_keeps_gathered_inputs);
	tcase_add_test(tc, test_recompute_layers);
	tcase_add_test(tc, test_figure1);
	tcase_add_test(tc, test_context_parallel_layer);
	tcase_add_test(tc, test_fp8_saved_inputs);
	tcase_add_test(tc, test_recompute_modules);
	tcase_add_test(tc, test_fp8_formulas);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
