/* check_params.c - exact parameter counts of the shipped Hugging Face
 * configs (configs/models/) against published totals, each worked out by
 * hand below from the config's fields and the family's modules (never read
 * back from the code), and per-rank placement over tp, pp and ep.
 *
 * Sources of the published figures:
 *   GPT-2 124,439,808; Llama-2-7B 6,738,415,616; Llama-3-8B 8,030,261,248
 *     (safetensors total_size 16,060,522,496 / 2); Mistral-7B-v0.1
 *     7,241,732,096: ../shared/reference/published-figures.md.
 *   Mixtral-8x7B 46,702,792,704: the safetensors index of
 *     mistralai/Mixtral-8x7B-v0.1, total_size 93,405,585,408 B / 2 (bf16).
 *   Qwen2-7B 7,615,616,512: Qwen/Qwen2-7B's safetensors index, total_size
 *     15,231,233,024 B / 2 (bf16); the model card says 7.61B.
 *   Gemma-2B 2,506,172,416 and Gemma-7B 8,537,680,896: KerasHub's Gemma
 *     presets ("params") and transformers' num_parameters() printouts.
 *   Qwen1.5-MoE-A2.7B 14,315,784,192: KerasHub preset qwen1.5_moe_2.7b_en
 *     ("params"); "A2.7B" active.
 *   Qwen3-30B-A3B 30,532,122,624: general.parameter_count of its GGUF
 *     conversion (a sum of every tensor's shape); "A3B" = 3.3B active.
 *   DeepSeek-V3: README_WEIGHTS.md of deepseek-ai/DeepSeek-V3: main model
 *     "671B" total; "36.7B" activated "including 0.9B for Embedding and
 *     0.9B for the output Head", which the config does not reproduce (the
 *     same inclusion counts 37.55B below; the paper says "37B"); the MTP
 *     module (num_nextn_predict_layers) is not part of the main model and
 *     not counted here.
 */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "distcalc/config.h"
#include "distcalc/memory.h"
#include "distcalc/params.h"

#include "fixtures_plan.h"

/* A config on 8 GPUs using configs/models/<model>.json, plus `extra` keys
 * in "parallel". */
static void load_model(const char *model, const char *parallel, struct dc_config *cfg)
{
	char text[2048];
	struct dc_diag d;
	int rc;
	snprintf(text, sizeof(text),
		 "{\"model\": {\"hf_config\": \"%s/configs/models/%s.json\", \"seq_length\": 1024},\n"
		 " \"cluster\": {\"num_nodes\": 1, \"gpus_per_node\": 8, \"gpu_memory\": \"80 GiB\",\n"
		 "   \"intra_node\": {\"bandwidth\": \"300 GB/s\"}, \"inter_node\": {\"bandwidth\": \"50 GB/s\"}},\n"
		 " \"parallel\": {%s}}",
		 DC_SOURCE_DIR, model, parallel);
	dc_diag_init(&d);
	rc = dc_config_load_buffer(text, strlen(text), "t.json", NULL, 0, cfg, &d);
	for (size_t i = 0; i < d.count; i++)
		fprintf(stderr, "%s\n", d.entries[i].text);
	ck_assert_int_eq(rc, 0);
	dc_diag_release(&d);
}

static void expect_counts(const char *model, uint64_t total, uint64_t active)
{
	struct dc_config c;
	struct dc_plan p;
	load_model(model, "\"tp\": 1", &c);
	fixture_plan(&c, &p);
	ck_assert_uint_eq(p.params_total, total);
	ck_assert_uint_eq(p.params_active, active);
	ck_assert_uint_eq(c.model.params, 0); /* the loader derives nothing */
}

START_TEST(test_gpt2)
{
	/* h 768, L 12, V 50257, 1024 positions, tied, LayerNorm, biased:
	 *   c_attn 768 x 2304 + 2304 = 1,771,776; c_proj 768^2 + 768 = 590,592
	 *   c_fc 768 x 3072 + 3072 = 2,362,368; mlp c_proj 3072 x 768 + 768 = 2,360,064
	 *   ln_1, ln_2 2 x 1536 = 3,072 -> layer 7,087,872, x 12 = 85,054,464
	 *   wte 50257 x 768 = 38,597,376; wpe 1024 x 768 = 786,432; ln_f 1,536
	 *   total 124,439,808 */
	struct dc_config c;
	struct dc_param_terms t;
	expect_counts("gpt2", 124439808ull, 124439808ull);
	load_model("gpt2", "\"tp\": 1", &c);
	ck_assert_int_eq(dc_params_terms(&c.model, &t), 0);
	ck_assert_uint_eq(t.position, 786432);
	ck_assert_uint_eq(t.lm_head, 0);
	ck_assert_uint_eq(t.norms, 12 * 3072 + 1536);
	ck_assert_uint_eq(t.attention, 12 * (1771776 + 590592));
	ck_assert_uint_eq(t.mlp, 12 * (2362368 + 2360064));
}
END_TEST

START_TEST(test_llama_mistral)
{
	/* Llama-2-7B: docs/formulas.md's worked example */
	expect_counts("llama-2-7b", 6738415616ull, 6738415616ull);
	/* Llama-3-8B: h 4096, 8 KV heads of 128, f 14336, V 128256, untied:
	 *   attention 2 x 4096^2 + 2 x 4096 x 1024 = 41,943,040
	 *   MLP 3 x 4096 x 14336 = 176,160,768; norms 8,192
	 *   layer 218,112,000 x 32 = 6,979,584,000
	 *   embedding + head 2 x 128256 x 4096 = 1,050,673,152; final norm 4,096
	 *   total 8,030,261,248 */
	expect_counts("llama-3-8b", 8030261248ull, 8030261248ull);
	/* Mistral-7B-v0.1: Llama-3-8B's layers with V 32000:
	 *   6,979,584,000 + 2 x 32000 x 4096 (262,144,000) + 4,096 = 7,241,732,096 */
	expect_counts("mistral-7b-v0.1", 7241732096ull, 7241732096ull);
	/* Llama-3-70B: h 8192, 64 heads, 8 KV heads of 128, f 28672, V 128256:
	 *   attention 2 x 8192^2 + 2 x 8192 x 1024 = 150,994,944
	 *   MLP 3 x 8192 x 28672 = 704,643,072; norms 16,384
	 *   layer 855,654,400 x 80 = 68,452,352,000
	 *   embedding + head 2 x 128256 x 8192 = 2,101,346,304; final norm 8,192
	 *   total 70,553,706,496 (its model page: "70.6B") */
	expect_counts("llama-3-70b", 70553706496ull, 70553706496ull);
	/* Llama-3.1: the same shapes (its RoPE scaled to 131,072 positions
	 * adds no parameter), and the 405B: h 16384, 128 heads, 8 KV heads of
	 * 128, f 53248 (torchtitan b5bcd76c models/llama3/__init__.py's
	 * flavor: 8 h / 3 x 1.2 rounded up to 4096), V 128256, 126 layers:
	 *   attention 2 x 16384^2 + 2 x 16384 x 1024 = 570,425,344
	 *   MLP 3 x 16384 x 53248 = 2,617,245,696; norms 32,768
	 *   layer 3,187,703,808 x 126 = 401,650,679,808
	 *   embedding + head 2 x 128256 x 16384 = 4,202,692,608; final norm
	 *   16,384: total 405,853,388,800 (Meta's "405B") */
	expect_counts("llama-3.1-8b", 8030261248ull, 8030261248ull);
	expect_counts("llama-3.1-70b", 70553706496ull, 70553706496ull);
	expect_counts("llama-3.1-405b", 405853388800ull, 405853388800ull);
}
END_TEST

START_TEST(test_qwen2_gemma)
{
	/* Qwen2-7B: h 3584, 28 heads, 4 KV heads of 128, f 18944, V 152064:
	 *   q, o 2 x 3584^2 = 25,690,112; k, v 2 x 3584 x 512 = 3,670,016
	 *   q, k, v biases 3584 + 512 + 512 = 4,608
	 *   MLP 3 x 3584 x 18944 = 203,685,888; norms 7,168
	 *   layer 233,057,792 x 28 = 6,525,618,176
	 *   embedding + head 2 x 152064 x 3584 = 1,089,994,752; final norm 3,584
	 *   total 7,615,616,512 */
	expect_counts("qwen2-7b", 7615616512ull, 7615616512ull);
	/* Gemma-2B: h 2048, 8 heads, 1 KV head (MQA) of 256, f 16384, V 256000, tied:
	 *   q, o 2 x 2048^2 = 8,388,608; k, v 2 x 2048 x 256 = 1,048,576
	 *   MLP 3 x 2048 x 16384 = 100,663,296; norms 4,096
	 *   layer 110,104,576 x 18 = 1,981,882,368
	 *   embedding 256000 x 2048 = 524,288,000; final norm 2,048
	 *   total 2,506,172,416 */
	expect_counts("gemma-2b", 2506172416ull, 2506172416ull);
	/* Gemma-7B: h 3072, 16 heads of 256 (a d = 4096 != h), f 24576, tied:
	 *   attention 4 x 3072 x 4096 = 50,331,648; MLP 3 x 3072 x 24576 = 226,492,416
	 *   norms 6,144; layer 276,830,208 x 28 = 7,751,245,824
	 *   embedding 256000 x 3072 = 786,432,000; final norm 3,072
	 *   total 8,537,680,896 */
	expect_counts("gemma-7b", 8537680896ull, 8537680896ull);
}
END_TEST

START_TEST(test_mixtral)
{
	/* Mixtral-8x7B: Mistral's attention, 8 experts of f 14336, top-2:
	 *   attention 41,943,040; one expert 3 x 4096 x 14336 = 176,160,768
	 *   router 8 x 4096 = 32,768; norms 8,192
	 *   layer 41,943,040 + 8 x 176,160,768 + 32,768 + 8,192 = 1,451,270,144
	 *   x 32 = 46,440,644,608; + 262,144,000 + 4,096 = 46,702,792,704
	 * active: 2 experts: layer 394,305,536 x 32 = 12,617,777,152
	 *   + 262,148,096 = 12,879,925,248 ("12.9B active", Mistral AI) */
	expect_counts("mixtral-8x7b-v0.1", 46702792704ull, 12879925248ull);
}
END_TEST

START_TEST(test_qwen_moe)
{
	/* Qwen1.5-MoE-A2.7B: h 2048, 16 heads, biased q k v, 60 experts of
	 * 1408, top-4, one shared expert of 5632 with a gate, V 151936:
	 *   attention 4 x 2048^2 + 3 x 2048 = 16,783,360
	 *   experts 60 x 3 x 2048 x 1408 = 60 x 8,650,752 = 519,045,120
	 *   router 60 x 2048 = 122,880; shared 3 x 2048 x 5632 = 34,603,008
	 *   gate 2,048; norms 4,096 -> layer 570,560,512 x 24 = 13,693,452,288
	 *   embedding + head 2 x 151936 x 2048 = 622,329,856; final norm 2,048
	 *   total 14,315,784,192
	 * active: 4 experts 34,603,008 -> layer 86,118,400 x 24 = 2,066,841,600
	 *   + 622,331,904 = 2,689,173,504 (~2.7B: "A2.7B") */
	expect_counts("qwen1.5-moe-a2.7b", 14315784192ull, 2689173504ull);
	/* Qwen3-30B-A3B: h 2048, 32 heads, 4 KV heads of 128, q/k norms, 128
	 * experts of 768, top-8, V 151936, 48 layers:
	 *   q, o 2 x 2048 x 4096 = 16,777,216; k, v 2 x 2048 x 512 = 2,097,152
	 *   q_norm + k_norm 256; router 128 x 2048 = 262,144
	 *   experts 128 x 3 x 2048 x 768 = 128 x 4,718,592 = 603,979,776
	 *   norms 4,096 -> layer 623,120,640 x 48 = 29,909,790,720
	 *   + 2 x 151936 x 2048 (622,329,856) + 2,048 = 30,532,122,624
	 * active: 8 experts 37,748,736 -> layer 56,889,600 x 48 = 2,730,700,800
	 *   + 622,331,904 = 3,353,032,704 (3.3B: "A3B") */
	expect_counts("qwen3-30b-a3b", 30532122624ull, 3353032704ull);
}
END_TEST

START_TEST(test_deepseek_v3)
{
	/* DeepSeek-V3: h 7168, 128 heads, MLA (q_lora 1536, kv_lora 512, nope
	 * 128, rope 64, v 128), 61 layers of which the first 3 dense (f 18432),
	 * 256 experts of 2048, top-8, 1 shared expert, V 129280, untied:
	 *   q_a 7168 x 1536 = 11,010,048; q_a norm 1,536
	 *   q_b 1536 x 128 x 192 = 37,748,736
	 *   kv_a 7168 x 576 = 4,128,768; kv_a norm 512
	 *   kv_b 512 x 128 x 256 = 16,777,216; o 128 x 128 x 7168 = 117,440,512
	 *   attention 187,107,328; norms 14,336
	 *   dense MLP 3 x 7168 x 18432 = 396,361,728
	 *   -> dense layer 583,483,392, x 3 = 1,750,450,176
	 *   expert 3 x 7168 x 2048 = 44,040,192; x 256 = 11,274,289,152
	 *   shared 44,040,192; router 256 x 7168 + 256 = 1,835,264
	 *   -> MoE layer 187,107,328 + 14,336 + 11,274,289,152 + 44,040,192
	 *      + 1,835,264 = 11,507,286,272, x 58 = 667,422,603,776
	 *   embedding + head 2 x 129280 x 7168 = 1,853,358,080; final norm 7,168
	 *   total 671,026,419,200 ("671B")
	 * active: 8 experts 352,321,536 -> MoE layer 585,318,656 x 58
	 *   = 33,948,482,048; + 1,750,450,176 + 1,853,358,080 + 7,168
	 *   = 37,552,297,472 (the README's "36.7B" with the embedding and the
	 *   head does not reproduce: docs/models.md); without the input
	 *   embedding (926,679,040) 36,625,618,432
	 * The MTP module (num_nextn_predict_layers 1; arXiv 2412.19437 section
	 * 2.2: a MoE layer, enorm and hnorm, the projection M of 2h x h, and
	 * the model's embedding and head shared), by hand:
	 *   MoE layer 11,507,286,272 (above, its two norms included)
	 *   + eh_proj 2 x 7168 x 7168 = 102,760,448
	 *   + enorm, hnorm, its final norm 3 x 7168 = 21,504
	 *   = 11,610,068,224, the "+11.6B" (the same term counts
	 *   GLM-4.5-Air's checkpoint exactly: check_hf.c)
	 * active MTP: the MoE layer with 8 experts 585,318,656 + 102,760,448 +
	 *   21,504 = 688,100,608 */
	struct dc_config c;
	struct dc_param_terms t;
	expect_counts("deepseek-v3", 671026419200ull + 11610068224ull, 37552297472ull + 688100608ull);
	load_model("deepseek-v3", "\"tp\": 1", &c);
	ck_assert_int_eq(dc_params_terms(&c.model, &t), 0);
	ck_assert_uint_eq(t.mtp, 11610068224ull);
	ck_assert_uint_eq(t.mtp_experts, 11274289152ull);
	ck_assert_uint_eq(t.total - t.mtp, 671026419200ull);
	ck_assert_uint_eq(t.active - t.mtp_active - t.embedding, 36625618432ull);
	ck_assert_uint_eq(t.dense_layers, 3);
	ck_assert_uint_eq(t.moe_layers, 58);
	ck_assert_uint_eq(t.attention, 61ull * 187107328ull);
}
END_TEST

START_TEST(test_placement_tp)
{
	/* GPT-2 on tp 4 (Megatron): per layer the column-parallel c_attn and
	 * c_fc with their biases and the row-parallel projections split,
	 * (1,771,776 + 589,824 + 2,362,368 + 2,359,296) / 4 = 1,770,816; whole:
	 * c_proj biases 768 + 768 and the LayerNorms 3,072 -> 1,775,424 per
	 * layer, x 12 = 21,305,088; embedding 38,597,376 / 4 = 9,649,344, the
	 * position table 786,432 whole, ln_f 1,536, tied head on the same stage:
	 * 21,305,088 + 9,649,344 + 786,432 + 1,536 = 31,742,400 */
	struct dc_config c;
	struct dc_stage_params p;
	load_model("gpt2", "\"tp\": 4", &c);
	ck_assert_int_eq(dc_stage_params_compute(plan_of(&c), 0, &p), 0);
	ck_assert_uint_eq(p.layer_params, 1775424);
	ck_assert_uint_eq(p.total, 31742400);
}
END_TEST

START_TEST(test_placement_ep)
{
	/* Mixtral-8x7B, tp 2, ep 4 (dp 4): per layer attention 41,943,040 / 2
	 * = 20,971,520, 8 / 4 = 2 experts of 176,160,768 / 2 = 88,080,384
	 * (176,160,768), router 32,768 and norms 8,192 whole: 197,173,248,
	 * x 32 = 6,309,543,936; embedding and head 2 x 131,072,000 / 2 =
	 * 131,072,000, final norm 4,096: 6,440,620,032 */
	struct dc_config c;
	struct dc_stage_params p;
	uint64_t stage;
	load_model("mixtral-8x7b-v0.1", "\"tp\": 2, \"ep\": 4", &c);
	ck_assert_uint_eq(c.parallel.dp, 4);
	ck_assert_int_eq(dc_stage_params_compute(plan_of(&c), 0, &p), 0);
	ck_assert_uint_eq(p.layer_params, 197173248);
	ck_assert_uint_eq(p.expert_params, 32ull * 176160768ull);
	ck_assert_uint_eq(p.total, 6440620032ull);
	ck_assert_int_eq(dc_stage_params_most_loaded(plan_of(&c), &p, &stage), 0);
	ck_assert_uint_eq(stage, 0);
	/* the ring's default message: that rank's gradient, 2 B each */
	ck_assert_uint_eq(plan_of(&c)->ring_msg_bytes, 2 * 6440620032ull);
	ck_assert_uint_eq(c.collective.msg_bytes, 0); /* the loader derives nothing */
}
END_TEST

START_TEST(test_placement_dense_layers_pp)
{
	/* DeepSeek-V3 cut to 8 layers by an explicit model.num_layers (the
	 * first 3 dense), tp 1, pp 2 on 8 GPUs: dp 4, ep 4, 64 experts a rank.
	 * Stage 0 holds layers 0-3: 3 dense + 1 MoE; stage 1 layers 4-7: 4 MoE.
	 *   dense layer 583,483,392
	 *   MoE layer on a rank: 187,107,328 + 14,336 + 64 x 44,040,192
	 *     (2,818,572,288) + shared 44,040,192 + router 1,835,264 = 3,051,569,408
	 *   stage 0: 3 x 583,483,392 + 3,051,569,408 + embedding 926,679,040
	 *     = 5,728,698,624
	 *   stage 1: 4 x 3,051,569,408 + final norm 7,168 + head 926,679,040
	 *     = 13,132,963,840
	 *     + the MTP module after the last layer (a MoE layer 3,051,569,408,
	 *     eh_proj 2 x 7168^2 = 102,760,448, enorm, hnorm and its norm
	 *     21,504: 3,154,351,360, of which 2,818,572,288 routed experts)
	 *     = 16,287,315,200
	 *     + the module's own embedding (Megatron-Core builds one on the
	 *     chunk that runs it when that is not the first: gpt_model.py:173
	 *     at d98e8a64) 7168 x 129280 = 926,679,040
	 *     = 17,213,994,240, the most loaded */
	struct dc_config c;
	struct dc_stage_params p0, p1, most;
	uint64_t stage;
	char text[1024];
	struct dc_diag d;
	snprintf(text, sizeof(text),
		 "{\"model\": {\"hf_config\": \"%s/configs/models/deepseek-v3.json\", \"seq_length\": 4096,"
		 " \"num_layers\": 8},"
		 " \"cluster\": {\"num_nodes\": 1, \"gpus_per_node\": 8, \"gpu_memory\": \"80 GiB\","
		 "   \"intra_node\": {\"bandwidth\": \"300 GB/s\"}, \"inter_node\": {\"bandwidth\": \"50 GB/s\"}},"
		 " \"parallel\": {\"pp\": 2, \"ep\": 4}}",
		 DC_SOURCE_DIR);
	dc_diag_init(&d);
	ck_assert_int_eq(dc_config_load_buffer(text, strlen(text), "t.json", NULL, 0, &c, &d), 0);
	dc_diag_release(&d);
	ck_assert_int_eq(dc_stage_params_compute(plan_of(&c), 0, &p0), 0);
	ck_assert_int_eq(dc_stage_params_compute(plan_of(&c), 1, &p1), 0);
	ck_assert_uint_eq(p0.dense_layers, 3);
	ck_assert_uint_eq(p0.moe_layers, 1);
	ck_assert_uint_eq(p0.total, 5728698624ull);
	ck_assert_uint_eq(p1.moe_layers, 4);
	ck_assert_uint_eq(p1.total, 17213994240ull);
	ck_assert_uint_eq(p1.expert_params, 5ull * 2818572288ull);
	ck_assert_int_eq(dc_stage_params_most_loaded(plan_of(&c), &most, &stage), 0);
	ck_assert_uint_eq(stage, 1);
	ck_assert_uint_eq(most.total, 17213994240ull);
}
END_TEST

/* The MoE layers of a range, layer by layer: layer i has routed experts
 * when i >= dense and every divides i + 1 (every <= 1: each from dense) */
static uint64_t moe_span_loop(uint64_t dense, uint64_t every, uint64_t first, uint64_t n)
{
	uint64_t k = 0;
	for (uint64_t i = first; i < first + n; i++)
		k += i >= dense && (every <= 1 || (i + 1) % every == 0);
	return k;
}

START_TEST(test_moe_span_closed_form)
{
	/* every (dense, every, first, n) up to 40 layers against the loop */
	for (uint64_t dense = 0; dense <= 6; dense++)
		for (uint64_t every = 0; every <= 5; every++)
			for (uint64_t first = 0; first <= 40; first++)
				for (uint64_t n = 0; first + n <= 40; n++)
					ck_assert_msg(dc_params_moe_span(dense, every, first, n) ==
							      moe_span_loop(dense, every, first, n),
						      "dense %llu every %llu first %llu n %llu", (unsigned long long)dense,
						      (unsigned long long)every, (unsigned long long)first,
						      (unsigned long long)n);
	/* Llama-4-Maverick: layers 1, 3, ..., 47 of 48 */
	ck_assert_uint_eq(dc_params_moe_span(0, 2, 0, 48), 24);
	ck_assert_uint_eq(dc_params_moe_span(0, 2, 0, 11), 5);  /* 1, 3, 5, 7, 9 */
	ck_assert_uint_eq(dc_params_moe_span(0, 2, 11, 13), 7); /* 11, 13, ..., 23 */
	ck_assert_uint_eq(dc_params_moe_span(0, 2, 24, 13), 6); /* 25, ..., 35 */
	ck_assert_uint_eq(dc_params_moe_span(0, 2, 37, 11), 6); /* 37, ..., 47 */
}
END_TEST

/* Llama-4-Maverick's text model (tests/inputs/llama-4-maverick-pp4.json:
 * h 5120, 48 layers, 40 heads of 128, kv 8, dense MLP 16384, 128 experts
 * of 8192 and a shared one, MoE on layers 1, 3, ..., 47, vocab 202048) at
 * tp 8, ep 8 (etp 8), `pp` stages split as `list` ("" even), stage by
 * stage. On one rank:
 *   attention q, o 5120 x 5120, k, v 5120 x 1024: 62,914,560 / 8 = 7,864,320
 *   norms 2 x 5120 = 10,240 whole
 *   dense layer: 7,864,320 + 3 x 5120 x 16384 / 8 (31,457,280) + 10,240
 *     = 39,331,840
 *   MoE layer: 7,864,320 + 128 / 8 experts x 3 x 5120 x 8192 / 8
 *     (251,658,240) + shared 125,829,120 / 8 (15,728,640) + router
 *     5120 x 128 (655,360) + 10,240 = 275,916,800
 *   embedding 202048 x 5120 / 8 = 129,310,720 on stage 0; the head as
 *     much and the final norm 5,120 on the last */
static void maverick(const char *list, const char *pp, const char *dp, struct dc_config *c)
{
	struct dc_override ov[4] = {{pp, 0}, {dp, 0}, {"parallel.ep=2", 0}, {list, 0}};
	struct dc_diag d;
	char path[512];
	size_t n = pp[0] ? 3 : 0;
	if (list[0])
		ov[n++] = (struct dc_override){list, 0};
	snprintf(path, sizeof(path), "%s/tests/inputs/llama-4-maverick-pp4.json", DC_SOURCE_DIR);
	dc_diag_init(&d);
	ck_assert_int_eq(dc_config_load_file(path, ov, n, c, &d), 0);
	dc_diag_release(&d);
}

#define MAV_DENSE 39331840ull
#define MAV_MOE 275916800ull
#define MAV_EMB 129310720ull

static void expect_stage(const struct dc_plan *p, uint64_t s, uint64_t dense, uint64_t moe, uint64_t other)
{
	struct dc_stage_params sp;
	ck_assert_int_eq(dc_stage_params_compute(p, s, &sp), 0);
	ck_assert_uint_eq(sp.dense_layers, dense);
	ck_assert_uint_eq(sp.moe_layers, moe);
	ck_assert_uint_eq(sp.expert_params, moe * 251658240ull);
	ck_assert_uint_eq(sp.total, dense * MAV_DENSE + moe * MAV_MOE + other);
	/* the plan's segment of the stage holds the same */
	ck_assert_uint_eq(dc_plan_stage_params(p, s)->total, sp.total);
	ck_assert_uint_eq(dc_plan_stage_params(p, s)->moe_layers, moe);
}

START_TEST(test_placement_moe_interval_pp)
{
	struct dc_config c;
	struct dc_plan p;
	struct dc_stage_params most;
	uint64_t stage;

	/* pp 4 even: layers 12 s .. 12 s + 11, MoE the odd ones: 6 dense and
	 * 6 MoE a stage; stage 3 the most, 6 x 315,248,640 + 129,315,840 =
	 * 2,020,807,680 */
	maverick("", "", "", &c);
	fixture_plan(&c, &p);
	expect_stage(&p, 0, 6, 6, MAV_EMB);
	expect_stage(&p, 1, 6, 6, 0);
	expect_stage(&p, 2, 6, 6, 0);
	expect_stage(&p, 3, 6, 6, MAV_EMB + 5120);
	ck_assert_int_eq(dc_stage_params_most_loaded(&p, &most, &stage), 0);
	ck_assert_uint_eq(stage, 3);
	ck_assert_uint_eq(most.total, 2020807680ull);
	ck_assert_uint_eq(p.nsegments, 3); /* 0, 1-2, 3 */

	/* [13, 12, 12, 11]: layers 0-12 (MoE 1, ..., 11: 6 of 13), 13-24
	 * (13, ..., 23: 6 of 12), 25-36 (25, ..., 35: 6 of 12), 37-47 (37,
	 * ..., 47: 6 of 11); stage 0 the most: 7 x 39,331,840 + 6 x
	 * 275,916,800 + 129,310,720 = 2,060,134,400 */
	maverick("parallel.pipeline_layers=[13,12,12,11]", "", "", &c);
	fixture_plan(&c, &p);
	expect_stage(&p, 0, 7, 6, MAV_EMB);
	expect_stage(&p, 1, 6, 6, 0);
	expect_stage(&p, 2, 6, 6, 0);
	expect_stage(&p, 3, 5, 6, MAV_EMB + 5120);
	ck_assert_int_eq(dc_stage_params_most_loaded(&p, &most, &stage), 0);
	ck_assert_uint_eq(stage, 0);
	ck_assert_uint_eq(most.total, 2060134400ull);

	/* [11, 13, 13, 11]: layers 0-10 (MoE 1, ..., 9: 5), 11-23 (11, ...,
	 * 23: 7), 24-36 (25, ..., 35: 6), 37-47 (6): the stages differ in
	 * MoE layers; stage 1 the most: 6 x 39,331,840 + 7 x 275,916,800 =
	 * 2,167,408,640 (dense first would give stage 0 all 11 dense) */
	maverick("parallel.pipeline_layers=[11,13,13,11]", "", "", &c);
	fixture_plan(&c, &p);
	expect_stage(&p, 0, 6, 5, MAV_EMB);
	expect_stage(&p, 1, 6, 7, 0);
	expect_stage(&p, 2, 7, 6, 0);
	expect_stage(&p, 3, 5, 6, MAV_EMB + 5120);
	ck_assert_int_eq(dc_stage_params_most_loaded(&p, &most, &stage), 0);
	ck_assert_uint_eq(stage, 1);
	ck_assert_uint_eq(most.total, 2167408640ull);

	/* pp 16 even: 3 layers a stage, 3 s .. 3 s + 2: MoE 1 on even
	 * stages (3 s + 1), 2 on odd ones (3 s, 3 s + 2): 16 segments */
	maverick("", "parallel.pp=16", "parallel.dp=2", &c);
	fixture_plan(&c, &p);
	ck_assert_uint_eq(p.nsegments, 16);
	for (uint64_t s = 0; s < 16; s++)
		ck_assert_uint_eq(dc_plan_stage_params(&p, s)->moe_layers, s % 2 ? 2 : 1);
}
END_TEST

/* The memory ledger of each stage of Maverick at [11, 13, 13, 11] (the
 * placement above): T parameters a rank of which E routed experts (5, 7,
 * 6, 6 MoE layers x 251,658,240), D = T - E dense ones. ZeRO-1 over dp 8
 * with ep 8 (expert data parallel 1): params and grads 2 B x T, master
 * 4 B and Adam 8 B x (D / 8 + E). Full recompute with sequence
 * parallelism keeps a layer's input, 2 s b h / tp = 2 x 4096 x 5120 / 8
 * = 5,242,880 B, for each of pp - s microbatches in flight under 1F1B. */
START_TEST(test_memory_moe_interval_stages)
{
	static const uint64_t T[4] = {1744885760ull, 2167408640ull, 1930823680ull, 1981475840ull};
	static const uint64_t moe[4] = {5, 7, 6, 6}, layers[4] = {11, 13, 13, 11};
	struct dc_config c;
	struct dc_plan p;
	struct dc_mem_ledger l;
	const char *err = NULL;
	maverick("parallel.pipeline_layers=[11,13,13,11]", "", "", &c);
	fixture_plan(&c, &p);
	for (uint64_t s = 0; s < 4; s++) {
		uint64_t E = moe[s] * 251658240ull, D = T[s] - E;
		ck_assert_int_eq(dc_memory_stage(&p, s, &l, &err), 0);
		ck_assert_uint_eq(l.p.total, T[s]);
		ck_assert_uint_eq(l.params_bytes, 2 * T[s]);
		ck_assert_uint_eq(l.grads_bytes, 2 * T[s]);
		ck_assert_uint_eq(l.master_bytes, 4 * (D / 8 + E));
		ck_assert_uint_eq(l.optimizer_bytes, 8 * (D / 8 + E));
		ck_assert_uint_eq(l.activation_layer_microbatches, layers[s] * (4 - s));
		ck_assert_uint_eq(l.activation_layers_bytes, layers[s] * (4 - s) * 5242880ull);
	}
	/* stage 1: 7,249,331,200 B of master weights, 14,498,662,400 of Adam */
	ck_assert_int_eq(dc_memory_stage(&p, 1, &l, &err), 0);
	ck_assert_uint_eq(l.master_bytes, 7249331200ull);
	ck_assert_uint_eq(l.optimizer_bytes, 14498662400ull);
}
END_TEST

static Suite *params_suite(void)
{
	Suite *s = suite_create("params");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, test_gpt2);
	tcase_add_test(tc, test_llama_mistral);
	tcase_add_test(tc, test_qwen2_gemma);
	tcase_add_test(tc, test_mixtral);
	tcase_add_test(tc, test_qwen_moe);
	tcase_add_test(tc, test_deepseek_v3);
	tcase_add_test(tc, test_placement_tp);
	tcase_add_test(tc, test_placement_ep);
	tcase_add_test(tc, test_placement_dense_layers_pp);
	tcase_add_test(tc, test_moe_span_closed_form);
	tcase_add_test(tc, test_placement_moe_interval_pp);
	tcase_add_test(tc, test_memory_moe_interval_stages);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(params_suite());
	int failed;
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
