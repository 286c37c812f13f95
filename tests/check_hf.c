/* check_hf.c - reading Hugging Face config.json files: family defaults for
 * missing keys, explicit distcalc keys over the file, --model replacing the
 * config's shape, paths relative to the config file, and every error class
 * with its exact message.
 *
 * The defaults of transformers' configuration classes describe real models:
 * LlamaConfig() is Llama-2-7B's shape (6,738,415,616 parameters, the
 * published total), MistralConfig() Mistral-7B's (7,241,732,096) and
 * GPT2Config() GPT-2's (124,439,808); see ../shared/reference/
 * published-figures.md and tests/check_params.c for the arithmetic.
 */
#define _POSIX_C_SOURCE 200809L

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "distcalc/config.h"
#include "distcalc/params.h"

#include "fixtures_plan.h"

static const char cluster[] =
	" \"cluster\": {\"num_nodes\": 1, \"gpus_per_node\": 8, \"gpu_memory\": \"80 GiB\","
	"   \"intra_node\": {\"bandwidth\": \"300 GB/s\"}, \"inter_node\": {\"bandwidth\": \"50 GB/s\"}}";

/* Writes `json` to a fresh temporary file; returns its path (static). */
static const char *temp_hf(const char *json)
{
	static char path[64];
	int fd;
	snprintf(path, sizeof(path), "/tmp/distcalc-hf-XXXXXX");
	fd = mkstemp(path);
	ck_assert(fd >= 0);
	ck_assert(write(fd, json, strlen(json)) == (ssize_t)strlen(json));
	close(fd);
	return path;
}

/* Loads a config whose model section is `model` (JSON members). */
static int load(const char *model, const struct dc_load_opts *o, struct dc_config *cfg, struct dc_diag *d)
{
	char text[4096];
	snprintf(text, sizeof(text), "{\"model\": {%s},\n%s}", model, cluster);
	dc_diag_init(d);
	return dc_config_load_buffer_opts(text, strlen(text), "t.json", o, cfg, d);
}

static void joined(const struct dc_diag *d, char *out, size_t len)
{
	out[0] = '\0';
	for (size_t i = 0; i < d->count; i++) {
		if (i)
			strncat(out, "\n", len - strlen(out) - 1);
		strncat(out, d->entries[i].text, len - strlen(out) - 1);
	}
}

/* `want` with every "%s" replaced by `path`. */
static void subst(const char *want, const char *path, char *out, size_t len)
{
	const char *p;
	out[0] = '\0';
	while ((p = strstr(want, "%s")) != NULL) {
		strncat(out, want, (size_t)(p - want) < len - strlen(out) - 1 ? (size_t)(p - want) : len - strlen(out) - 1);
		strncat(out, path, len - strlen(out) - 1);
		want = p + 2;
	}
	strncat(out, want, len - strlen(out) - 1);
}

/* The HF file `json` must fail with exactly `want` (%s: its path). */
static void expect_hf_error(const char *json, enum dc_status st, const char *want)
{
	struct dc_config cfg;
	struct dc_diag d;
	char model[512], got[4096], expected[4096];
	const char *path = temp_hf(json);
	snprintf(model, sizeof(model), "\"hf_config\": \"%s\", \"seq_length\": 1024", path);
	ck_assert_int_eq(load(model, NULL, &cfg, &d), -1);
	ck_assert_int_eq(d.status, st);
	joined(&d, got, sizeof(got));
	subst(want, path, expected, sizeof(expected));
	ck_assert_str_eq(got, expected);
	dc_diag_release(&d);
	unlink(path);
}

static void expect_total(const char *json, const char *family, uint64_t total)
{
	struct dc_config cfg;
	struct dc_diag d;
	char model[512];
	const char *path = temp_hf(json);
	snprintf(model, sizeof(model), "\"hf_config\": \"%s\", \"seq_length\": 1024", path);
	ck_assert_int_eq(load(model, NULL, &cfg, &d), 0);
	ck_assert_str_eq(cfg.model.family, family);
	ck_assert_str_eq(cfg.model.hf_config, path);
	ck_assert_uint_eq(plan_of(&cfg)->params_total, total);
	dc_diag_release(&d);
	unlink(path);
}

START_TEST(test_family_defaults)
{
	/* missing keys take the configuration class's defaults */
	expect_total("{\"model_type\": \"llama\"}", "llama", 6738415616ull);
	expect_total("{\"model_type\": \"mistral\"}", "mistral", 7241732096ull);
	/* no model_type: the first architecture names the family; null is
	 * "use the default" (GPT-2's n_inner is null in its config.json) */
	expect_total("{\"architectures\": [\"GPT2LMHeadModel\"], \"n_inner\": null}", "gpt2", 124439808ull);
	/* keys distcalc does not read are ignored, whatever their type */
	expect_total("{\"model_type\": \"llama\", \"rope_scaling\": {\"type\": \"yarn\"}, \"x\": [1, null]}",
		     "llama", 6738415616ull);
	/* DeepSeek-V3 with "q_lora_rank": null has no q compression (a plain
	 * q_proj), unlike a missing key (1536). Per layer the plain q_proj is
	 * 7168 x 128 x 192 = 176,160,768 against q_a 7168 x 1536 + its norm
	 * 1536 + q_b 1536 x 24576 = 48,760,320: 127,400,448 more, x 61 layers =
	 * 7,771,427,328 over the published 671,026,419,200 */
	{
		char json[8192];
		FILE *f;
		char path[512];
		size_t n;
		char *at;
		snprintf(path, sizeof(path), "%s/configs/models/deepseek-v3.json", DC_SOURCE_DIR);
		f = fopen(path, "rb");
		ck_assert_ptr_nonnull(f);
		n = fread(json, 1, sizeof(json) - 1, f);
		fclose(f);
		json[n] = '\0';
		at = strstr(json, "\"q_lora_rank\": 1536");
		ck_assert_ptr_nonnull(at);
		memcpy(at, "\"q_lora_rank\": null", strlen("\"q_lora_rank\": null"));
		/* the MTP module off (its attention would change too) */
		at = strstr(json, "\"num_nextn_predict_layers\": 1");
		ck_assert_ptr_nonnull(at);
		at[strlen("\"num_nextn_predict_layers\": ")] = '0';
		expect_total(json, "deepseek_v3", 671026419200ull + 7771427328ull);
	}
}
END_TEST

/* max_position_embeddings, and rope_scaling's factor over the original
 * length where that is longer (hf.c max_positions), read into
 * model.hf_max_positions for the seq_length warning; a value that is no
 * positive whole number is not read (0) and the file loads */
static uint64_t max_positions_file(const char *json)
{
	struct dc_config cfg;
	struct dc_diag d;
	char model[512];
	const char *path = temp_hf(json);
	snprintf(model, sizeof(model), "\"hf_config\": \"%s\", \"seq_length\": 1024", path);
	ck_assert_int_eq(load(model, NULL, &cfg, &d), 0);
	dc_diag_release(&d);
	unlink(path);
	return cfg.model.hf_max_positions;
}

static uint64_t max_positions_of(const char *extra)
{
	char json[1024];
	snprintf(json, sizeof(json),
		 "{\"model_type\": \"llama\", \"hidden_size\": 512, \"num_attention_heads\": 8, "
		 "\"num_hidden_layers\": 2, \"intermediate_size\": 1024, \"vocab_size\": 1000%s}",
		 extra);
	return max_positions_file(json);
}

START_TEST(test_max_positions)
{
	ck_assert_uint_eq(max_positions_of(", \"max_position_embeddings\": 8192"), 8192);
	/* Llama 3.1: the extended length stated, 8 x 8192 no longer */
	ck_assert_uint_eq(max_positions_of(", \"max_position_embeddings\": 131072, \"rope_scaling\": {\"factor\": 8.0, "
					   "\"original_max_position_embeddings\": 8192, \"rope_type\": \"llama3\"}"),
			  131072);
	/* Qwen's YaRN setup: 4 x 32768 beside 40960 */
	ck_assert_uint_eq(max_positions_of(", \"max_position_embeddings\": 40960, \"rope_scaling\": {\"rope_type\": \"yarn\", "
					   "\"factor\": 4.0, \"original_max_position_embeddings\": 32768}"),
			  131072);
	/* a factor without the original length scales max_position_embeddings */
	ck_assert_uint_eq(max_positions_of(", \"max_position_embeddings\": 4096, \"rope_scaling\": {\"factor\": 2.0}"), 8192);
	ck_assert_uint_eq(max_positions_of(""), 0);
	ck_assert_uint_eq(max_positions_of(", \"max_position_embeddings\": null"), 0);
	ck_assert_uint_eq(max_positions_of(", \"max_position_embeddings\": 0"), 0);
	ck_assert_uint_eq(max_positions_of(", \"max_position_embeddings\": 4096.5"), 0);
	ck_assert_uint_eq(max_positions_of(", \"max_position_embeddings\": \"4096\""), 0);
	/* Llama 3.2 1B: 131072 stated beside factor 32 of 8192, not 262144 (a
	 * trial's 262,144-token run drew no warning) */
	ck_assert_uint_eq(max_positions_of(", \"max_position_embeddings\": 131072, \"rope_scaling\": {\"factor\": 32.0, "
					   "\"original_max_position_embeddings\": 8192, \"rope_type\": \"llama3\"}"),
			  131072);
	/* a linear scaling beside the original length extends it
	 * (lmsys/vicuna-7b-v1.5-16k: 4096 x 4 = 16384, in the older "type"
	 * key; a review's case, which warned when linear was read as stating
	 * the extended length) */
	ck_assert_uint_eq(max_positions_of(", \"max_position_embeddings\": 4096, \"rope_scaling\": {\"factor\": 4.0, "
					   "\"type\": \"linear\"}"),
			  16384);
	/* DeepSeek-V3's YaRN: 40 x 4096 is the 163840 it states */
	ck_assert_uint_eq(max_positions_of(", \"max_position_embeddings\": 163840, \"rope_scaling\": {\"type\": \"yarn\", "
					   "\"factor\": 40, \"original_max_position_embeddings\": 4096}"),
			  163840);
	/* transformers v5's rope_parameters, per layer kind in Gemma's */
	ck_assert_uint_eq(max_positions_of(", \"max_position_embeddings\": 32768, \"rope_parameters\": {\"rope_type\": \"yarn\", "
					   "\"factor\": 4.0, \"original_max_position_embeddings\": 32768, \"rope_theta\": 1e6}"),
			  131072);
	ck_assert_uint_eq(max_positions_of(", \"max_position_embeddings\": 32768, \"rope_parameters\": {\"full_attention\": "
					   "{\"rope_type\": \"yarn\", \"factor\": 2.0}, \"sliding_attention\": {\"rope_theta\": 1e4}}"),
			  65536);
	/* Gemma 3: gemma-3-4b-it's text_config gives no max_position_embeddings,
	 * and Gemma3TextConfig's default is 131_072 (a trial's 2M tokens drew
	 * no warning); a wrapper's text_config is where its keys are (Llama 4
	 * Scout's 10,485,760, "llama3" scaled) */
	ck_assert_uint_eq(max_positions_file("{\"model_type\": \"gemma3\", \"text_config\": {\"model_type\": \"gemma3_text\", "
					     "\"hidden_size\": 2560, \"intermediate_size\": 10240, \"num_hidden_layers\": 34, "
					     "\"num_attention_heads\": 8, \"rope_scaling\": {\"factor\": 8.0, \"rope_type\": \"linear\"}}}"),
			  131072);
	ck_assert_uint_eq(max_positions_file("{\"model_type\": \"gemma3_text\", \"hidden_size\": 1152, \"intermediate_size\": 6912, "
					     "\"num_hidden_layers\": 26, \"num_attention_heads\": 4, \"max_position_embeddings\": 32768}"),
			  32768);
}
END_TEST

START_TEST(test_max_positions_wrapped)
{
	/* the catalogue's Scout: its text_config's 10,485,760, not the outer
	 * object's (none, so no check before) */
	struct dc_config cfg;
	struct dc_diag d;
	char model[512];
	snprintf(model, sizeof(model), "\"hf_config\": \"%s/configs/models/llama-4-scout-17b-16e.json\", \"seq_length\": 4096",
		 DC_SOURCE_DIR);
	ck_assert_int_eq(load(model, NULL, &cfg, &d), 0);
	dc_diag_release(&d);
	ck_assert_uint_eq(cfg.model.hf_max_positions, 10485760);
	snprintf(model, sizeof(model), "\"hf_config\": \"%s/configs/models/gemma-3-27b-it.json\", \"seq_length\": 4096",
		 DC_SOURCE_DIR);
	ck_assert_int_eq(load(model, NULL, &cfg, &d), 0);
	dc_diag_release(&d);
	ck_assert_uint_eq(cfg.model.hf_max_positions, 131072);
}
END_TEST

/* configs/models/<name>.json through model.hf_config: the plan's total and
 * active counts, and the MTP term. */
static void expect_model(const char *name, const char *family, uint64_t total, uint64_t active, uint64_t mtp)
{
	struct dc_config cfg;
	struct dc_diag d;
	struct dc_param_terms t;
	char model[512];
	snprintf(model, sizeof(model), "\"hf_config\": \"%s/configs/models/%s.json\", \"seq_length\": 4096",
		 DC_SOURCE_DIR, name);
	ck_assert_int_eq(load(model, NULL, &cfg, &d), 0);
	dc_diag_release(&d);
	ck_assert_str_eq(cfg.model.family, family);
	ck_assert_uint_eq(plan_of(&cfg)->params_total, total);
	ck_assert_uint_eq(plan_of(&cfg)->params_active, active);
	ck_assert_int_eq(dc_params_terms(&cfg.model, &t), 0);
	ck_assert_uint_eq(t.mtp, mtp);
}

/* Every new family against its published total (docs/models.md names each
 * source; the totals are the safetensors index's total_size / bytes per
 * weight or the model card's exact figure). Hand counts, term by term:
 *
 * Qwen/Qwen3-8B (qwen3): h 4096, 36 layers, 32 heads, 8 KV, d 128, f 12288,
 *   V 151936 untied. Layer: q 16,777,216 + k, v 8,388,608 + o 16,777,216 +
 *   q/k norms 256 + MLP 150,994,944 + norms 8,192 = 192,946,432; x 36 =
 *   6,946,071,552 + embedding and head 1,244,659,712 + 4,096
 *   = 8,190,735,360; total_size 16,381,470,720 B = 2 B x this.
 * google/gemma-2-9b (gemma2): h 3584, 42 layers, 16 heads, 8 KV, d 256,
 *   f 14336, V 256000 tied. Layer: q, k+v, o 3 x 14,680,064 + MLP
 *   154,140,672 + four norms 14,336 = 198,195,200; x 42 + 917,504,000 +
 *   3,584 = 9,241,705,984, the safetensors total (9,241,705,984).
 * google/gemma-3-1b-it (gemma3_text): h 1152, 26 layers, 4 heads, 1 KV,
 *   d 256, f 6912, V 262144 tied. Layer: q 1,179,648 + k+v 589,824 + o
 *   1,179,648 + q/k norms 512 + MLP 23,887,872 + 4,608 = 26,842,112; x 26 +
 *   301,989,888 + 1,152 = 999,885,952; 1,999,771,904 B in 16 bits.
 * google/gemma-3-27b-it (gemma3, text_config; the SigLIP tower is not
 *   counted, a warning says so): h 5376, 62 layers, 32 heads, 16 KV, d 128,
 *   f 21504, V 262208 (Gemma3TextConfig's default) tied; q 22,020,096, k+v
 *   22,020,096, o 22,020,096, q/k norms 256, MLP 346,816,512, norms 21,504
 *   = 412,898,560 a layer; x 62 + 1,409,630,208 + 5,376 = 27,009,346,304,
 *   llama.cpp's n_params of its text model (27,009,346,304).
 * meta-llama/Llama-4-Scout-17B-16E (llama4, text_config): h 5120, 48
 *   layers all MoE (interleave_moe_layer_step 1), 40 heads, 8 KV, d 128, 16
 *   experts of 8192 + a shared one of 8192, top-1, V 202048 untied. Layer:
 *   attention 62,914,560 + 17 x 125,829,120 + router 81,920 + norms 10,240
 *   = 2,202,101,760; x 48 + 2 x 1,034,485,760 + 5,120 = 107,769,861,120;
 *   active: 15 experts fewer a layer, -90,596,966,400 = 17,172,894,720,
 *   Meta's "17B active"; its "109B total" adds the vision encoder.
 * openai/gpt-oss-20b and -120b (gpt_oss): h 2880, 64 heads, 8 KV, d 64,
 *   experts of 2880, top-4, V 201088 untied. Attention with biases and 64
 *   sinks: 5,898,240 + 1,179,648 + 5,898,240 + 5,120 + 2,880 + 64 =
 *   12,984,192; an expert 3 x 2880^2 + 2 x 2880 + 2880 = 24,891,840; the
 *   router 2880 E + E; norms 5,760.
 *   20b: 24 layers of 32 experts: 12,984,192 + 796,538,880 + 92,192 +
 *   5,760 = 809,621,024; x 24 + 1,158,266,880 + 2,880 = 20,914,757,184
 *   (model card 20.91B); active 4 experts: 4,187,440,704.
 *   120b: 36 layers of 128: 12,984,192 + 3,186,155,520 + 368,768 + 5,760
 *   = 3,199,514,240; x 36 + 1,158,266,880 + 2,880 = 116,829,156,672 (model
 *   card 116.83B); active 5,711,982,912.
 * zai-org/GLM-4.5-Air (glm4_moe): h 4096, 46 layers (first dense, f
 *   10944), 96 heads, 8 KV, d 128, q/k/v biased, 128 experts of 1408 + 1
 *   shared, top-8, router and score bias, V 151552 untied, one MTP layer.
 *   Attention 50,331,648 + 4,194,304 + 50,331,648 + 14,336 = 104,871,936;
 *   MoE layer 104,871,936 + 129 x 17,301,504 + 524,416 + 8,192 =
 *   2,337,298,432; dense layer 104,871,936 + 134,479,872 + 8,192.
 *   Main model: 2,337,298,432 x 45 + 239,360,000 + 1,241,513,984 + 4,096
 *   = 106,852,251,264 ("106B"); MTP: 2,337,298,432 + 2 x 4096^2 + 3 x 4096
 *   = 2,375,059,584; with the checkpoint's own embedding and head copies in
 *   its layer 46 (2 x 620,756,992) the main and MTP make 110,468,824,832,
 *   the safetensors total. Active: 8 experts: 13,424,129,664 main (12.18B
 *   without embedding and head: "12B active") + 2,375,059,584 - 120 x
 *   17,301,504 = 298,879,104 for the MTP layer.
 * moonshotai/Kimi-K2-Instruct (model_type kimi_k2, read as its
 *   DeepseekV3ForCausalLM): DeepSeek-V3's layer with 64 heads and 384
 *   experts, 1 dense layer, V 163840, no MTP: 1,026,408,232,448, the
 *   checkpoint's logical parameter count ("1T total, 32B active":
 *   32,861,500,928 active).
 * Qwen/Qwen3-Next-80B-A3B (qwen3_next): 12 gated-attention layers
 *   (q 2048 x 8192 = 16,777,216, k, v 1,048,576 each, o 8,388,608, q/k
 *   norms 512: 27,263,488) and 36 Gated DeltaNet layers (in_proj_qkvz 2048 x
 *   12288 = 25,165,824, in_proj_ba 131,072, conv1d 8192 x 4 = 32,768,
 *   dt_bias and A_log 64, norm 128, out_proj 8,388,608: 33,718,464); every
 *   layer MoE: 512 x 3,145,728 + shared 3,145,728 + gate 2,048 + router
 *   1,048,576 = 1,614,809,088, norms 4,096; + 622,329,856 + 2,048
 *   = 79,674,391,296 ("80B"); active 10 experts: 3,874,929,408 ("A3B"). */
START_TEST(test_new_families_published)
{
	expect_model("qwen3-8b", "qwen3", 8190735360ull, 8190735360ull, 0);
	expect_model("gemma-2-9b", "gemma2", 9241705984ull, 9241705984ull, 0);
	expect_model("gemma-3-1b-it", "gemma3_text", 999885952ull, 999885952ull, 0);
	expect_model("gemma-3-27b-it", "gemma3", 27009346304ull, 27009346304ull, 0);
	expect_model("llama-4-scout-17b-16e", "llama4", 107769861120ull, 17172894720ull, 0);
	expect_model("gpt-oss-20b", "gpt_oss", 20914757184ull, 4187440704ull, 0);
	expect_model("gpt-oss-120b", "gpt_oss", 116829156672ull, 5711982912ull, 0);
	expect_model("glm-4.5-air", "glm4_moe", 106852251264ull + 2375059584ull, 13424129664ull + 298879104ull,
		     2375059584ull);
	ck_assert_uint_eq(106852251264ull + 2375059584ull + 2 * 620756992ull, 110468824832ull);
	expect_model("kimi-k2-instruct", "deepseek_v3", 1026408232448ull, 32861500928ull, 0);
	/* node-limited routing: DeepSeek-V3's n_group 8, topk_group 4 (its
	 * config.json); Kimi K2's 1 and 1, the same family; a family without
	 * them routes over every expert */
	{
		static const struct {
			const char *name;
			uint64_t groups, topk;
		} routes[] = {{"deepseek-v3", 8, 4}, {"kimi-k2-instruct", 1, 1}, {"mixtral-8x7b-v0.1", 1, 1}};
		for (size_t i = 0; i < sizeof(routes) / sizeof(routes[0]); i++) {
			struct dc_config cfg;
			struct dc_diag d;
			char model[512];
			snprintf(model, sizeof(model), "\"hf_config\": \"%s/configs/models/%s.json\", \"seq_length\": 4096",
				 DC_SOURCE_DIR, routes[i].name);
			ck_assert_int_eq(load(model, NULL, &cfg, &d), 0);
			dc_diag_release(&d);
			ck_assert_uint_eq(cfg.model.router_groups, routes[i].groups);
			ck_assert_uint_eq(cfg.model.router_group_topk, routes[i].topk);
		}
	}
	expect_model("qwen3-next-80b-a3b", "qwen3_next", 79674391296ull, 3874929408ull, 0);
	/* Llama 4 Maverick's text model (meta-llama/Llama-4-Maverick-17B-128E:
	 * Scout's layer with 128 experts on every second layer,
	 * interleave_moe_layer_step 2, the other 24 layers dense of
	 * intermediate_size_mlp 16384): 24 MoE layers of 62,914,560 + 129 x
	 * 125,829,120 + router 655,360 + norms 10,240 = 16,295,536,640 and 24
	 * dense ones of 62,914,560 + 251,658,240 + 10,240 = 314,583,040; x 24
	 * each + 2,068,971,520 + 5,120 = 400,711,848,960 (Meta: "400B total",
	 * the vision encoder besides); active: 127 experts fewer a MoE layer,
	 * 17,184,691,200 ("17B active"). */
	expect_total("{\"model_type\": \"llama4\", \"text_config\": {\"interleave_moe_layer_step\": 2, "
		     "\"num_local_experts\": 128}}",
		     "llama4", 400711848960ull);
	/* an empty no_rope_layers list and a null moe_layers are "derive
	 * them" (configuration_llama4.py: `no_rope_layers if no_rope_layers
	 * else ...`, `moe_layers if moe_layers is not None else ...`) */
	expect_total("{\"model_type\": \"llama4\", \"text_config\": {\"interleave_moe_layer_step\": 2, "
		     "\"num_local_experts\": 128, \"moe_layers\": null, \"no_rope_layers\": []}}",
		     "llama4", 400711848960ull);
}
END_TEST

/* The layer kinds each family's file sets (docs/models.md, "Layer kinds"). */
START_TEST(test_layer_kinds_read)
{
	struct dc_config cfg;
	struct dc_diag d;
	char model[512], got[4096];
	static const struct {
		const char *name;
		uint64_t window, pattern, full_every, moe_every;
		int sinks, sandwich, gate;
	} want[] = {
		/* Mistral-7B-v0.1: 4096 tokens on every layer */
		{"mistral-7b-v0.1", 4096, 0, 0, 1, 0, 0, 0},
		{"gemma-2-9b", 4096, 2, 0, 1, 0, 1, 0},
		{"gemma-3-27b-it", 1024, 6, 0, 1, 0, 1, 0},
		{"gemma-3-1b-it", 512, 6, 0, 1, 0, 1, 0},
		/* chunked attention of 8192 on the RoPE layers, every 4th global */
		{"llama-4-scout-17b-16e", 8192, 4, 0, 1, 0, 0, 0},
		{"gpt-oss-20b", 128, 2, 0, 1, 1, 0, 0},
		{"qwen3-next-80b-a3b", 0, 0, 4, 1, 0, 0, 1},
		{"qwen3-8b", 0, 0, 0, 1, 0, 0, 0},
		{"llama-3-8b", 0, 0, 0, 1, 0, 0, 0},
	};
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		snprintf(model, sizeof(model), "\"hf_config\": \"%s/configs/models/%s.json\", \"seq_length\": 4096",
			 DC_SOURCE_DIR, want[i].name);
		ck_assert_int_eq(load(model, NULL, &cfg, &d), 0);
		ck_assert_msg(cfg.model.sliding_window == want[i].window, "%s: window %llu", want[i].name,
			      (unsigned long long)cfg.model.sliding_window);
		ck_assert_uint_eq(cfg.model.sliding_window_pattern, want[i].pattern);
		ck_assert_uint_eq(cfg.model.full_attention_interval, want[i].full_every);
		ck_assert_uint_eq(cfg.model.moe_layer_interval, want[i].moe_every);
		ck_assert_int_eq(cfg.model.attention_sinks, want[i].sinks);
		ck_assert_int_eq(cfg.model.sandwich_norm, want[i].sandwich);
		ck_assert_int_eq(cfg.model.attention_output_gate, want[i].gate);
		/* Llama 4's chunks, the others' windows */
		ck_assert_int_eq(cfg.model.attention_chunked, strncmp(want[i].name, "llama-4", 7) == 0);
		dc_diag_release(&d);
	}
	/* Kimi K2: read as deepseek_v3 from its architectures, with a warning
	 * that says so */
	snprintf(model, sizeof(model), "\"hf_config\": \"%s/configs/models/kimi-k2-instruct.json\", \"seq_length\": 4096",
		 DC_SOURCE_DIR);
	ck_assert_int_eq(load(model, NULL, &cfg, &d), 0);
	joined(&d, got, sizeof(got));
	ck_assert_ptr_nonnull(strstr(got, "kimi-k2-instruct.json: 'model_type': \"kimi_k2\" is not a family distcalc reads; read as deepseek_v3, the family of 'architectures' \"DeepseekV3ForCausalLM\""));
	dc_diag_release(&d);
	/* gpt-oss: the MXFP4 storage named */
	snprintf(model, sizeof(model), "\"hf_config\": \"%s/configs/models/gpt-oss-20b.json\", \"seq_length\": 4096",
		 DC_SOURCE_DIR);
	ck_assert_int_eq(load(model, NULL, &cfg, &d), 0);
	joined(&d, got, sizeof(got));
	ck_assert_ptr_nonnull(strstr(got, "'quantization_config': the checkpoint's \"mxfp4\" storage"));
	dc_diag_release(&d);
}
END_TEST

/* Qwen2-MoE's decoder_sparse_step (modeling_qwen2_moe.py: experts on
 * layer_idx when (layer_idx + 1) % step == 0, a dense MLP of
 * intermediate_size elsewhere) is model.moe_layer_interval. Qwen1.5-MoE's
 * shape (the class defaults: h 2048, 24 layers, 60 experts of 1408, top 4,
 * a gated shared expert of 5632, V 151936; check_params test_qwen_moe)
 * at step 2: 12 MoE layers of 570,560,512 and 12 dense of 16,783,360
 * attention + 3 x 2048 x 5632 = 34,603,008 MLP + 4,096 norms = 51,390,464,
 * with embedding, head and final norm 622,331,904: 8,085,743,616; active
 * 12 x 86,118,400 + 12 x 51,390,464 + 622,331,904 = 2,272,438,272. */
START_TEST(test_qwen_moe_sparse_step)
{
	struct dc_config cfg;
	struct dc_diag d;
	char model[512];
	const char *path = temp_hf("{\"model_type\": \"qwen2_moe\", \"decoder_sparse_step\": 2, \"mlp_only_layers\": []}");
	snprintf(model, sizeof(model), "\"hf_config\": \"%s\", \"seq_length\": 1024", path);
	ck_assert_int_eq(load(model, NULL, &cfg, &d), 0);
	ck_assert_uint_eq(cfg.model.moe_layer_interval, 2);
	ck_assert_uint_eq(plan_of(&cfg)->params_total, 8085743616ull);
	ck_assert_uint_eq(plan_of(&cfg)->params_active, 2272438272ull);
	dc_diag_release(&d);
	unlink(path);
	expect_hf_error("{\"model_type\": \"qwen3_moe\", \"mlp_only_layers\": [0, 5]}", DC_ERR_CONFIG,
			"%s: error: 'mlp_only_layers': distcalc models MoE layers as every decoder_sparse_step-th "
			"layer; only an empty list is supported, got 2 entries");
}
END_TEST

/* Layer kinds distcalc cannot express are errors naming the key. */
START_TEST(test_layer_kind_errors)
{
	expect_hf_error("{\"model_type\": \"gpt_oss\", \"num_hidden_layers\": 4, \"layer_types\": [\"sliding_attention\", "
			"\"full_attention\", \"full_attention\", \"full_attention\"]}",
			DC_ERR_CONFIG,
			"%s: error: 'layer_types': distcalc models every n-th layer as full attention and the others as "
			"\"sliding_attention\"; layer 3 (from 1) breaks the period 2 of the first full one");
	expect_hf_error("{\"model_type\": \"gemma2\", \"num_hidden_layers\": 2, \"layer_types\": [\"sliding_attention\"]}",
			DC_ERR_CONFIG,
			"%s: error: 'layer_types': expected one entry a layer (num_hidden_layers 2), got 1");
	expect_hf_error("{\"model_type\": \"gemma2\", \"num_hidden_layers\": 2, \"layer_types\": [\"sliding_attention\", "
			"\"chunked_attention\"]}",
			DC_ERR_CONFIG,
			"%s: error: 'layer_types': entry 2 is \"chunked_attention\"; this family's layers are "
			"\"full_attention\" or \"sliding_attention\"");
	expect_hf_error("{\"model_type\": \"qwen3\", \"use_sliding_window\": true, \"max_window_layers\": 28}",
			DC_ERR_CONFIG,
			"%s: error: 'max_window_layers': distcalc models a window on every layer or on all but every n-th; "
			"with use_sliding_window only 0 or at least num_hidden_layers (32) is supported, got 28");
	expect_hf_error("{\"model_type\": \"llama4\", \"text_config\": {\"num_hidden_layers\": 4, \"interleave_moe_layer_step\": 2, "
			"\"moe_layers\": [1]}}",
			DC_ERR_CONFIG,
			"%s: error: 'moe_layers': distcalc models MoE layers as every interleave_moe_layer_step-th layer "
			"(2); the list must be 1, 3, ... below num_hidden_layers");
	/* an empty moe_layers is kept by transformers: no MoE layer (a
	 * trial's [] counted 24 of them) */
	expect_hf_error("{\"model_type\": \"llama4\", \"text_config\": {\"interleave_moe_layer_step\": 2, "
			"\"moe_layers\": []}}",
			DC_ERR_CONFIG,
			"%s: error: 'moe_layers': [] makes no layer MoE (transformers keeps an empty list: every layer is then "
			"an MLP of intermediate_size_mlp, 16384); distcalc reads a Llama 4 file with its MoE layers: drop the "
			"key (or give null) for every interleave_moe_layer_step-th layer, or describe the dense model with "
			"model.* keys");
	expect_hf_error("{\"model_type\": \"gemma3\", \"text_config\": 5}", DC_ERR_CONFIG,
			"%s: error: 'text_config': expected an object, got 5");
	/* a key given twice: its second copy's line:column and the first's,
	 * counted by hand ({"model_type": "mixtral", is 26 bytes, then
	 * "num_local_experts": 8, 24) */
	expect_hf_error("{\"model_type\": \"mixtral\", \"num_local_experts\": 8, \"num_local_experts\": 16}",
			DC_ERR_CONFIG, "%s:1:51: error: 'num_local_experts': duplicate key (first at 1:27)");
	/* inside text_config, not the top level's key of the same name:
	 * 25 + 18 bytes, then "text_config": { (16), then "hidden_size": 640,
	 * and a space (20) */
	expect_hf_error("{\"model_type\": \"gemma3\", \"hidden_size\": 1, \"text_config\": {\"hidden_size\": 640, "
			"\"hidden_size\": 1152}}",
			DC_ERR_CONFIG, "%s:1:80: error: 'hidden_size': duplicate key (first at 1:60)");
	/* keys that change the numbers in a family that does not read them */
	expect_hf_error("{\"model_type\": \"llama\", \"num_nextn_predict_layers\": 1}", DC_ERR_CONFIG,
			"%s: error: 'num_nextn_predict_layers': distcalc reads multi-token-prediction modules for "
			"deepseek_v3, glm4_moe and qwen3_next, not llama; got 1 (give model.mtp_layers for them)");
	expect_hf_error("{\"model_type\": \"llama\", \"num_hidden_layers\": 2, \"layer_types\": [\"full_attention\", "
			"\"sliding_attention\"]}",
			DC_ERR_CONFIG,
			"%s: error: 'layer_types': distcalc reads layer kinds for mistral, qwen2, qwen3, gemma2, gemma3, "
			"gpt_oss and qwen3_next, not llama; this list has layers other than \"full_attention\"");
	{
		/* a list of full layers changes nothing; a vision tower is named */
		struct dc_config cfg;
		struct dc_diag d;
		char model[512], got[2048];
		const char *path = temp_hf("{\"model_type\": \"llama\", \"num_hidden_layers\": 2, \"layer_types\": "
					   "[\"full_attention\", \"full_attention\"], \"vision_config\": {}}");
		snprintf(model, sizeof(model), "\"hf_config\": \"%s\", \"seq_length\": 1024", path);
		ck_assert_int_eq(load(model, NULL, &cfg, &d), 0);
		joined(&d, got, sizeof(got));
		ck_assert_ptr_nonnull(strstr(got, "'vision_config': the vision tower is not counted; distcalc models the llama text model"));
		dc_diag_release(&d);
		unlink(path);
	}
}
END_TEST

/* The file at `json` loads with this window and pattern. */
static void expect_window(const char *json, uint64_t window, uint64_t pattern)
{
	struct dc_config cfg;
	struct dc_diag d;
	char model[512];
	const char *path = temp_hf(json);
	snprintf(model, sizeof(model), "\"hf_config\": \"%s\", \"seq_length\": 1024", path);
	ck_assert_int_eq(load(model, NULL, &cfg, &d), 0);
	ck_assert_msg(cfg.model.sliding_window == window, "%s: window %llu", json,
		      (unsigned long long)cfg.model.sliding_window);
	ck_assert_uint_eq(cfg.model.sliding_window_pattern, pattern);
	dc_diag_release(&d);
	unlink(path);
}

/* A null is what transformers makes of None (docs/models.md, "null"). */
START_TEST(test_null_keys)
{
	/* MistralModel, MixtralModel: create_causal_mask when
	 * config.sliding_window is None; a missing key is MistralConfig's 4096 */
	expect_window("{\"model_type\": \"mistral\", \"sliding_window\": null}", 0, 0);
	expect_window("{\"model_type\": \"mistral\"}", 4096, 0);
	expect_window("{\"model_type\": \"mixtral\", \"sliding_window\": null}", 0, 0);
	/* Qwen2Config, Qwen3Config: no layer slides when the window is None,
	 * whatever max_window_layers (28 is refused with a window) */
	expect_window("{\"model_type\": \"qwen2\", \"use_sliding_window\": true, \"sliding_window\": null, "
		      "\"max_window_layers\": 28}",
		      0, 0);
	expect_window("{\"model_type\": \"qwen3_moe\", \"use_sliding_window\": true, \"sliding_window\": null}", 0, 0);
	expect_hf_error("{\"model_type\": \"qwen3\", \"num_hidden_layers\": 2, \"use_sliding_window\": true, "
			"\"sliding_window\": null, \"layer_types\": [\"sliding_attention\", \"full_attention\"]}",
			DC_ERR_CONFIG,
			"%s: error: 'sliding_window': null with sliding layers in 'layer_types'; transformers' sliding "
			"mask needs a window");
	/* Gemma 2 and 3, gpt-oss build a sliding mask for their sliding
	 * layers, and create_sliding_window_causal_mask raises on None */
	expect_hf_error("{\"model_type\": \"gemma2\", \"sliding_window\": null}", DC_ERR_CONFIG,
			"%s: error: 'sliding_window': null leaves this family's sliding layers without a window "
			"(transformers' create_sliding_window_causal_mask refuses it); give the window, or a "
			"'layer_types' of \"full_attention\" only");
	expect_hf_error("{\"model_type\": \"gpt_oss\", \"sliding_window\": null}", DC_ERR_CONFIG,
			"%s: error: 'sliding_window': null leaves this family's sliding layers without a window "
			"(transformers' create_sliding_window_causal_mask refuses it); give the window, or a "
			"'layer_types' of \"full_attention\" only");
	expect_hf_error("{\"model_type\": \"gemma3\", \"text_config\": {\"sliding_window\": null}}", DC_ERR_CONFIG,
			"%s: error: 'sliding_window': null leaves this family's sliding layers without a window "
			"(transformers' create_sliding_window_causal_mask refuses it); give the window, or a "
			"'layer_types' of \"full_attention\" only");
	/* ... unless no layer slides */
	expect_window("{\"model_type\": \"gemma3_text\", \"sliding_window\": null, \"sliding_window_pattern\": 1}", 0, 0);
	expect_window("{\"model_type\": \"gemma2\", \"num_hidden_layers\": 2, \"sliding_window\": null, "
		      "\"layer_types\": [\"full_attention\", \"full_attention\"]}",
		      0, 0);
	/* Llama 4's chunked layers: create_chunked_causal_mask raises on None */
	expect_hf_error("{\"model_type\": \"llama4\", \"text_config\": {\"attention_chunk_size\": null}}", DC_ERR_CONFIG,
			"%s: error: 'attention_chunk_size': null leaves the chunked layers without a chunk "
			"(transformers' create_chunked_causal_mask refuses it); give the chunk size");
	/* num_key_value_heads None is multi-head attention (MistralConfig:
	 * "for backward compatibility"), not the class's 8: Mistral-7B's k and
	 * v grow from 4096 x 1024 to 4096 x 4096 each, 2 x 4096 x 3072 =
	 * 25,165,824 a layer, x 32 = 805,306,368 over 7,241,732,096 */
	expect_total("{\"model_type\": \"mistral\", \"num_key_value_heads\": null}", "mistral", 8047038464ull);
	expect_total("{\"model_type\": \"mistral\"}", "mistral", 7241732096ull);
	/* Gemma's and Llama 4's classes keep None (no multi-head rule) */
	expect_hf_error("{\"model_type\": \"gemma2\", \"num_key_value_heads\": null}", DC_ERR_CONFIG,
			"%s: error: 'num_key_value_heads': null; this family's configuration class keeps None (no "
			"fallback) and the attention cannot be built with it: give the number, or leave the "
			"key out for the default");
	expect_hf_error("{\"model_type\": \"llama4\", \"text_config\": {\"num_key_value_heads\": null}}",
			DC_ERR_CONFIG,
			"%s: error: 'num_key_value_heads': null; this family's configuration class keeps None (no "
			"fallback) and the attention cannot be built with it: give the number, or leave the "
			"key out for the default");
	expect_hf_error("{\"model_type\": \"gemma2\", \"head_dim\": null}", DC_ERR_CONFIG,
			"%s: error: 'head_dim': null; this family's configuration class keeps None (no fallback) and "
			"the attention cannot be built with it: give the number, or leave the key out for the default");
	/* a size's None reaches the model, not the class's default: Mistral's
	 * hidden_size */
	expect_hf_error("{\"model_type\": \"mistral\", \"hidden_size\": null}", DC_ERR_CONFIG,
			"%s: error: 'hidden_size': null; transformers passes None on (not its default of 4096), and the "
			"model cannot be built with it: give the number, or leave the key out for the default");
}
END_TEST

/* The file tests/inputs/<name>.json through model.hf_config: its family
 * and total, and that its warnings hold `warning` (NULL: none). */
static void expect_input(const char *name, const char *family, uint64_t total, const char *warning)
{
	struct dc_config cfg;
	struct dc_diag d;
	char model[512], got[4096];
	snprintf(model, sizeof(model), "\"hf_config\": \"%s/tests/inputs/%s.json\", \"seq_length\": 4096",
		 DC_SOURCE_DIR, name);
	ck_assert_int_eq(load(model, NULL, &cfg, &d), 0);
	ck_assert_str_eq(cfg.model.family, family);
	ck_assert_uint_eq(plan_of(&cfg)->params_total, total);
	ck_assert_uint_eq(plan_of(&cfg)->params_active, total);
	joined(&d, got, sizeof(got));
	if (warning)
		ck_assert_msg(strstr(got, warning) != NULL, "%s: warnings \"%s\"", name, got);
	else
		ck_assert_str_eq(got, "");
	dc_diag_release(&d);
}

/* Mistral3ForConditionalGeneration (Mistral-Small-3.1 and 3.2): the text
 * model is the MistralConfig in text_config. Mistral-Small-3.1-24B
 * (tests/inputs/hf_mistral_small_3_1.json, its config.json): h 5120, 40
 * layers, 32 heads of 128, 8 KV heads, f 32768, V 131072 untied,
 * sliding_window null. Layer: q 5120 x 4096 = 20,971,520, k and v 5120 x
 * 1024 = 5,242,880 each, o 4096 x 5120 = 20,971,520 (52,428,800), MLP 3 x
 * 5120 x 32768 = 503,316,480, norms 2 x 5120 = 10,240: 555,755,520; x 40
 * = 22,230,220,800; embedding and head 2 x 671,088,640 = 1,342,177,280;
 * final norm 5,120: 23,572,403,200, the card's "24B" without the Pixtral
 * tower. */
START_TEST(test_mistral3)
{
	struct dc_config cfg;
	struct dc_diag d;
	char model[512];
	expect_input("hf_mistral_small_3_1", "mistral3", 23572403200ull,
		     "'vision_config': the vision tower and its projector are not counted; distcalc models the text "
		     "model in 'text_config'");
	snprintf(model, sizeof(model), "\"hf_config\": \"%s/tests/inputs/hf_mistral_small_3_1.json\", \"seq_length\": 4096",
		 DC_SOURCE_DIR);
	ck_assert_int_eq(load(model, NULL, &cfg, &d), 0);
	ck_assert_uint_eq(cfg.model.sliding_window, 0);
	ck_assert_uint_eq(cfg.model.num_kv_heads, 8);
	ck_assert_uint_eq(cfg.model.head_dim, 128);
	dc_diag_release(&d);
	/* no text_config: Mistral3Config builds Mistral-Small-3.1's, no window */
	expect_total("{\"model_type\": \"mistral3\"}", "mistral3", 23572403200ull);
	expect_window("{\"model_type\": \"mistral3\"}", 0, 0);
	/* a text_config of its own: MistralConfig's defaults for its missing
	 * keys (Mistral-7B, a 4096 window) */
	expect_total("{\"model_type\": \"mistral3\", \"text_config\": {}}", "mistral3", 7241732096ull);
	expect_window("{\"model_type\": \"mistral3\", \"text_config\": {}}", 4096, 0);
	/* by architecture alone */
	expect_total("{\"architectures\": [\"Mistral3ForConditionalGeneration\"]}", "mistral3", 23572403200ull);
	/* Ministral 3's text model is not a MistralConfig */
	expect_hf_error("{\"model_type\": \"mistral3\", \"text_config\": {\"model_type\": \"ministral3\"}}", DC_ERR_CONFIG,
			"%s: error: 'text_config.model_type': distcalc reads a mistral3 model's text model as "
			"\"mistral\" (MistralConfig), got \"ministral3\"");
}
END_TEST

/* Phi3ForCausalLM: Llama's layer, q, k, v fused in qkv_proj and gate and
 * up in gate_up_proj with the same shapes, no bias anywhere.
 * microsoft/phi-4 (tests/inputs/hf_phi_4.json): h 5120, 40 layers, 40
 * heads of 128, 10 KV, f 17920, V 100352 untied. Layer: qkv_proj 5120 x
 * (5120 + 2 x 1280) = 39,321,600, o 5120 x 5120 = 26,214,400 (65,536,000),
 * gate_up_proj 5120 x 35840 + down 17920 x 5120 = 275,251,200, norms
 * 10,240: 340,797,440; x 40 = 13,631,897,600; embedding and head 2 x
 * 513,802,240 = 1,027,604,480; final norm 5,120: 14,659,507,200 (the
 * card's 14.7B).
 * microsoft/Phi-3-mini-4k-instruct (tests/inputs/hf_phi_3_mini_4k_instruct
 * .json): h 3072, 32 layers, 32 heads of 96, KV 32, f 8192, V 32064.
 * Layer: attention 4 x 3072^2 = 37,748,736, MLP 3 x 3072 x 8192 =
 * 75,497,472, norms 6,144: 113,252,352; x 32 = 3,624,075,264; embedding
 * and head 2 x 98,500,608 = 197,001,216; final norm 3,072: 3,821,079,552
 * (the card's 3.8B). Its sliding_window 2047 windows every layer. */
START_TEST(test_phi3)
{
	expect_input("hf_phi_4", "phi3", 14659507200ull, NULL);
	expect_window("{\"model_type\": \"phi3\", \"sliding_window\": null}", 0, 0);
	expect_input("hf_phi_3_mini_4k_instruct", "phi3", 3821079552ull, NULL);
	expect_window("{\"model_type\": \"phi3\", \"sliding_window\": 2047}", 2047, 0);
	/* Phi3Config's defaults are Phi-3-mini's shape (num_key_value_heads
	 * None: as many as the heads), no window */
	expect_total("{\"model_type\": \"phi3\"}", "phi3", 3821079552ull);
	expect_window("{\"model_type\": \"phi3\"}", 0, 0);
	/* Phi3Attention reads no attention_bias; the RoPE keys hold no weights */
	expect_total("{\"model_type\": \"phi3\", \"attention_bias\": true, \"partial_rotary_factor\": 0.75, "
		     "\"original_max_position_embeddings\": 4096, \"max_position_embeddings\": 131072, "
		     "\"rope_scaling\": {\"type\": \"longrope\", \"short_factor\": [1.0], \"long_factor\": [1.0]}}",
		     "phi3", 3821079552ull);
	/* a tied head (Phi-4-mini's tie_word_embeddings): minus 98,500,608 */
	expect_total("{\"model_type\": \"phi3\", \"tie_word_embeddings\": true}", "phi3", 3722578944ull);
	/* by architecture alone */
	expect_total("{\"architectures\": [\"Phi3ForCausalLM\"]}", "phi3", 3821079552ull);
}
END_TEST

/* model.dropout from the dropout rates: any above 0 turns it on */
static int hf_dropout(const char *json, const char *model_extra)
{
	struct dc_config cfg;
	struct dc_diag d;
	char model[512];
	const char *path = temp_hf(json);
	snprintf(model, sizeof(model), "\"hf_config\": \"%s\", \"seq_length\": 1024%s", path, model_extra);
	ck_assert_int_eq(load(model, NULL, &cfg, &d), 0);
	dc_diag_release(&d);
	unlink(path);
	return cfg.model.dropout;
}

START_TEST(test_dropout)
{
	/* LlamaConfig's attention_dropout defaults to 0.0 */
	ck_assert_int_eq(hf_dropout("{\"model_type\": \"llama\"}", ""), 0);
	ck_assert_int_eq(hf_dropout("{\"model_type\": \"llama\", \"attention_dropout\": 0.0}", ""), 0);
	ck_assert_int_eq(hf_dropout("{\"model_type\": \"qwen2\", \"attention_dropout\": 0.1}", ""), 1);
	ck_assert_int_eq(hf_dropout("{\"model_type\": \"deepseek_v3\", \"attention_dropout\": 0.05}", ""), 1);
	/* GPT2Config's attn_pdrop, resid_pdrop and embd_pdrop default to 0.1 */
	ck_assert_int_eq(hf_dropout("{\"model_type\": \"gpt2\"}", ""), 1);
	ck_assert_int_eq(hf_dropout("{\"model_type\": \"gpt2\", \"attn_pdrop\": 0, \"resid_pdrop\": 0, \"embd_pdrop\": 0}", ""), 0);
	ck_assert_int_eq(hf_dropout("{\"model_type\": \"gpt2\", \"attn_pdrop\": 0, \"resid_pdrop\": 0.1, \"embd_pdrop\": 0}", ""), 1);
	/* Phi3DecoderLayer drops both residual branches at resid_pdrop;
	 * Phi3Model has no module for embd_pdrop */
	ck_assert_int_eq(hf_dropout("{\"model_type\": \"phi3\"}", ""), 0);
	ck_assert_int_eq(hf_dropout("{\"model_type\": \"phi3\", \"resid_pdrop\": 0.1}", ""), 1);
	ck_assert_int_eq(hf_dropout("{\"model_type\": \"phi3\", \"embd_pdrop\": 0.1}", ""), 0);
	/* the config's own key wins over the file's rates */
	ck_assert_int_eq(hf_dropout("{\"model_type\": \"gpt2\"}", ", \"dropout\": false"), 0);
	expect_hf_error("{\"model_type\": \"llama\", \"attention_dropout\": 1.5}", DC_ERR_CONFIG,
			"%s: error: 'attention_dropout': expected a dropout rate in [0, 1], got 1.5");
	expect_hf_error("{\"model_type\": \"gpt2\", \"attn_pdrop\": \"0.1\"}", DC_ERR_CONFIG,
			"%s: error: 'attn_pdrop': expected a dropout rate in [0, 1], got \"0.1\"");
}
END_TEST

/* A file without the model's scale (hidden_size, num_hidden_layers,
 * num_attention_heads) takes the class's defaults, as transformers does,
 * and says which and what (a user trial: a truncated file read as a
 * Llama-2-7B without a word); a file with all three says nothing. */
START_TEST(test_scale_defaults_warn)
{
	static const struct {
		const char *json, *want;
	} cases[] = {
		{"{\"model_type\": \"llama\"}",
		 "%s: not in the file, the configuration class's defaults are taken, as transformers does: hidden_size "
		 "4096, num_hidden_layers 32, num_attention_heads 32; check the file against the "
		 "model's released config.json (one may leave out a key equal to its class's default; a truncated or "
		 "hand-made file reads the same way)"},
		{"{\"model_type\": \"llama\", \"hidden_size\": 2048, \"num_hidden_layers\": 16}",
		 "%s: not in the file, the configuration class's default is taken, as transformers does: "
		 "num_attention_heads 32; check the file against the model's "
		 "released config.json (one may leave out a key equal to its class's default; a truncated or hand-made "
		 "file reads the same way)"},
		/* Qwen3MoeConfig's own default: 24 layers, not Llama's 32 */
		{"{\"model_type\": \"qwen3_moe\", \"hidden_size\": 2048, \"num_attention_heads\": 32}",
		 "%s: not in the file, the configuration class's default is taken, as transformers does: "
		 "num_hidden_layers 24; check the file against the model's "
		 "released config.json (one may leave out a key equal to its class's default; a truncated or hand-made "
		 "file reads the same way)"},
		/* the families with readers of their own: DeepseekV3Config's
		 * defaults (the 671B), GPT2Config's under its own names */
		{"{\"model_type\": \"deepseek_v3\", \"hidden_size\": 7168, \"num_attention_heads\": 128}",
		 "%s: not in the file, the configuration class's default is taken, as transformers does: "
		 "num_hidden_layers 61; check the file against the model's "
		 "released config.json (one may leave out a key equal to its class's default; a truncated or hand-made "
		 "file reads the same way)"},
		{"{\"model_type\": \"gpt2\"}",
		 "%s: not in the file, the configuration class's defaults are taken, as transformers does: n_embd "
		 "768, n_layer 12, n_head 12; check the file against the model's "
		 "released config.json (one may leave out a key equal to its class's default; a truncated or hand-made "
		 "file reads the same way)"},
		{"{\"model_type\": \"llama\", \"hidden_size\": 4096, \"num_hidden_layers\": 32, "
		 "\"num_attention_heads\": 32}",
		 ""},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct dc_config cfg;
		struct dc_diag d;
		char model[512], got[4096], expected[4096];
		const char *path = temp_hf(cases[i].json);
		snprintf(model, sizeof(model), "\"hf_config\": \"%s\", \"seq_length\": 1024", path);
		ck_assert_int_eq(load(model, NULL, &cfg, &d), 0);
		joined(&d, got, sizeof(got));
		subst(cases[i].want, path, expected, sizeof(expected));
		ck_assert_str_eq(got, expected);
		dc_diag_release(&d);
		unlink(path);
	}
}
END_TEST

START_TEST(test_explicit_keys_override)
{
	/* Llama-2-7B shape with 16 layers instead of 32 (an explicit key):
	 * 16 x 202,383,360 + 262,144,000 + 4,096 = 3,500,281,856; and a tied
	 * head: minus 131,072,000 = 3,369,209,856 */
	struct dc_config cfg;
	struct dc_diag d;
	char model[512];
	const char *path = temp_hf("{\"model_type\": \"llama\"}");
	snprintf(model, sizeof(model), "\"hf_config\": \"%s\", \"seq_length\": 1024, \"num_layers\": 16", path);
	ck_assert_int_eq(load(model, NULL, &cfg, &d), 0);
	ck_assert_uint_eq(plan_of(&cfg)->params_total, 3500281856ull);
	dc_diag_release(&d);
	snprintf(model, sizeof(model),
		 "\"hf_config\": \"%s\", \"seq_length\": 1024, \"num_layers\": 16, \"tie_word_embeddings\": true",
		 path);
	ck_assert_int_eq(load(model, NULL, &cfg, &d), 0);
	ck_assert_uint_eq(plan_of(&cfg)->params_total, 3369209856ull);
	dc_diag_release(&d);
	unlink(path);
}
END_TEST

START_TEST(test_model_option_replaces_shape)
{
	/* --model: the file's shape replaces the config's model keys, but
	 * model.seq_length stays and --set still applies on top */
	struct dc_config cfg;
	struct dc_diag d;
	struct dc_override ov[1] = {{"model.num_layers=6"}};
	struct dc_load_opts o = {NULL, 0, DC_SOURCE_DIR "/configs/models/gpt2.json", 0};
	ck_assert_int_eq(load("\"num_layers\": 32, \"hidden_size\": 4096, \"num_attention_heads\": 32,"
			      " \"vocab_size\": 32000, \"seq_length\": 1024, \"params\": 5",
			      &o, &cfg, &d),
			 0);
	ck_assert_str_eq(cfg.model.family, "gpt2");
	ck_assert_uint_eq(cfg.model.seq_length, 1024);
	ck_assert(!cfg.model.params_explicit);
	ck_assert_uint_eq(cfg.model.params, 0); /* the dropped count is not kept */
	ck_assert_uint_eq(plan_of(&cfg)->params_total, 124439808ull);
	dc_diag_release(&d);
	/* GPT-2 with 6 layers: 124,439,808 - 6 x 7,087,872 = 81,912,576 */
	o.overrides = ov;
	o.noverrides = 1;
	ck_assert_int_eq(load("\"num_layers\": 32, \"hidden_size\": 4096, \"num_attention_heads\": 32,"
			      " \"vocab_size\": 32000, \"seq_length\": 1024",
			      &o, &cfg, &d),
			 0);
	ck_assert_uint_eq(plan_of(&cfg)->params_total, 81912576ull);
	dc_diag_release(&d);
	/* --model with a config that has no model section at all */
	{
		char text[1024];
		o.noverrides = 0;
		snprintf(text, sizeof(text), "{%s}", cluster);
		dc_diag_init(&d);
		ck_assert_int_eq(dc_config_load_buffer_opts(text, strlen(text), "t.json", &o, &cfg, &d), -1);
		joined(&d, text, sizeof(text));
		ck_assert_str_eq(text, "t.json: error: 'model.seq_length': required key is missing; a Hugging Face config gives no training sequence length (max_position_embeddings is the longest context)");
		dc_diag_release(&d);
	}
}
END_TEST

START_TEST(test_path_relative_to_config)
{
	/* tests/inputs/hf_config_gpt2.json names ../../configs/models/gpt2.json */
	struct dc_config cfg;
	struct dc_diag d;
	dc_diag_init(&d);
	ck_assert_int_eq(dc_config_load_file(DC_SOURCE_DIR "/tests/inputs/hf_config_gpt2.json", NULL, 0, &cfg, &d), 0);
	ck_assert_str_eq(cfg.model.family, "gpt2");
	ck_assert_str_eq(cfg.model.hf_config, DC_SOURCE_DIR "/tests/inputs/../../configs/models/gpt2.json");
	ck_assert_uint_eq(plan_of(&cfg)->params_total, 124439808ull);
	dc_diag_release(&d);
}
END_TEST

START_TEST(test_errors)
{
	expect_hf_error("{\"model_type\": \"llama\", \"num_hidden_layers\": \"x\", \"hidden_size\": -4096}",
			DC_ERR_CONFIG,
			"%s: error: 'hidden_size': must be at least 1, got -4096\n"
			"%s: error: 'num_hidden_layers': expected an integer, got \"x\"");
	expect_hf_error("{\"model_type\": \"t5\"}", DC_ERR_CONFIG,
			"%s: error: 'model_type': unsupported architecture \"t5\"; supported: llama, mistral, mistral3, mixtral, phi3, qwen2, qwen2_moe, qwen3, qwen3_moe, qwen3_next, gpt2, gemma, gemma2, gemma3, gemma3_text, llama4, llama4_text, gpt_oss, glm4_moe, deepseek_v3");
	expect_hf_error("{\"hidden_size\": 8}", DC_ERR_CONFIG,
			"%s: error: 'model_type': missing, and no 'architectures' entry names the model; supported: llama, mistral, mistral3, mixtral, phi3, qwen2, qwen2_moe, qwen3, qwen3_moe, qwen3_next, gpt2, gemma, gemma2, gemma3, gemma3_text, llama4, llama4_text, gpt_oss, glm4_moe, deepseek_v3");
	expect_hf_error("{\"model_type\": \"llama\", \"num_attention_heads\": 32, \"num_key_value_heads\": 5}",
			DC_ERR_CONFIG, "%s: error: 'num_key_value_heads': must divide num_attention_heads (32), got 5");
	/* the router's groups: named in the file, under its own keys */
	expect_hf_error("{\"model_type\": \"deepseek_v3\", \"n_group\": 3}", DC_ERR_CONFIG,
			"%s: error: 'n_group': must divide n_routed_experts (256) into equal groups, got 3");
	expect_hf_error("{\"model_type\": \"deepseek_v3\", \"topk_group\": 9}", DC_ERR_CONFIG,
			"%s: error: 'topk_group': must be at most n_group (8), got 9");
	expect_hf_error("{\"model_type\": \"deepseek_v3\", \"n_group\": 256, \"topk_group\": 4}", DC_ERR_CONFIG,
			"%s: error: 'topk_group': 4 groups of 1 experts hold fewer than num_experts_per_tok (8)");
	expect_hf_error("{\"model_type\": \"deepseek_v3\", \"first_k_dense_replace\": 61, \"moe_layer_freq\": 2}",
			DC_ERR_CONFIG,
			"%s: error: 'first_k_dense_replace': must be below num_hidden_layers (61), got 61\n"
			"%s: error: 'moe_layer_freq': distcalc models every layer after first_k_dense_replace as a MoE layer; only 1 is supported, got 2");
	expect_hf_error("{\"model_type\": \"llama\", \"vocab_size\": 1e300}", DC_ERR_CONFIG,
			"%s: error: 'vocab_size': must be below 2^53 (9007199254740992), got about 1e+300");
	/* a shape too large is the Hugging Face file's, named with its keys:
	 * 32 layers x 3hf with h = f = 2^40 is 3 x 2^85 parameters */
	expect_hf_error("{\"model_type\": \"llama\", \"hidden_size\": 1099511627776, \"intermediate_size\": 1099511627776, \"num_attention_heads\": 1, \"num_hidden_layers\": 32}",
			DC_ERR_CONFIG,
			"%s: error: the parameter count of this shape overflows 64 bits (read as model.hidden_size 1099511627776, model.ffn_hidden_size 1099511627776, model.vocab_size 32000, model.num_layers 32, model.head_dim 1099511627776); check hidden_size, intermediate_size, vocab_size and num_hidden_layers");
	/* h = f = 2^22, 32 layers, vocab 32000, untied, one head: by hand,
	 * 32 (4h^2 + 3hf + 2h) + 2 x 32000 h + h = 7 x 2^49 + 2^28 + 268,435,456,000
	 * + 4,194,304 = 3,940,918,382,034,944 parameters; x 16 bytes > 2^53 */
	expect_hf_error("{\"model_type\": \"llama\", \"hidden_size\": 4194304, \"intermediate_size\": 4194304, \"num_attention_heads\": 1, \"num_hidden_layers\": 32}",
			DC_ERR_CONFIG,
			"%s: error: 3940918382034944 parameters x 16 bytes of model state per parameter must be below 2^53 bytes (read as model.hidden_size 4194304, model.ffn_hidden_size 4194304, model.vocab_size 32000, model.num_layers 32, model.head_dim 4194304); check hidden_size, intermediate_size, vocab_size and num_hidden_layers");
	/* the size out of range shows among the sizes read, not a plain
	 * hidden_size blamed (a trial's 67,108,864 layers): Llama, h 4096, f
	 * 11008, vocab 32000 untied, one head: 67,108,864 x (4h^2 + 3hf + 2h =
	 * 202,383,360) + 2 x 32000 h + h = 13,581,717,382,103,040 + 262,144,000
	 * + 4,096 = 13,581,717,644,251,136, x 16 bytes past 2^53 */
	expect_hf_error("{\"model_type\": \"llama\", \"hidden_size\": 4096, \"intermediate_size\": 11008, \"num_attention_heads\": 1, \"num_hidden_layers\": 67108864}",
			DC_ERR_CONFIG,
			"%s: error: 13581717644251136 parameters x 16 bytes of model state per parameter must be below 2^53 bytes (read as model.hidden_size 4096, model.ffn_hidden_size 11008, model.vocab_size 32000, model.num_layers 67108864, model.head_dim 4096); check hidden_size, intermediate_size, vocab_size and num_hidden_layers");
	expect_hf_error("{\"model_type\": \"gpt2\", \"n_embd\": 1099511627776, \"n_head\": 1, \"n_layer\": 12}", DC_ERR_CONFIG,
			"%s: error: the parameter count of this shape overflows 64 bits (read as model.hidden_size 1099511627776, model.ffn_hidden_size 4398046511104, model.vocab_size 50257, model.num_layers 12, model.head_dim 1099511627776); check n_embd, n_inner, vocab_size and n_layer");
	expect_hf_error("[1, 2]", DC_ERR_CONFIG, "%s: error: a Hugging Face config is a JSON object");
	/* the loader's limits hold for the model file too */
	expect_hf_error("", DC_ERR_CONFIG, "%s: error: the file is empty; a config is a JSON object");
	expect_hf_error("{\"model_type\": \"llama\",}", DC_ERR_CONFIG,
			"%s:1:23: error: trailing comma: JSON does not allow ',' before '}'\n"
			"{\"model_type\": \"llama\",}\n"
			"                      ^");
}
END_TEST

START_TEST(test_missing_file_and_ep)
{
	struct dc_config cfg;
	struct dc_diag d;
	char got[1024];
	ck_assert_int_eq(load("\"hf_config\": \"/nonexistent/config.json\", \"seq_length\": 8", NULL, &cfg, &d), -1);
	ck_assert_int_eq(d.status, DC_ERR_INPUT);
	joined(&d, got, sizeof(got));
	ck_assert_str_eq(got, "/nonexistent/config.json: error: cannot open: No such file or directory (named by 'model.hf_config' in t.json)");
	dc_diag_release(&d);
	/* ep must divide the experts, and ep x etp the tp x dp x cp ranks
	 * (here 8: tp 2 x dp 4) */
	{
		static const struct dc_override ov[2] = {{"parallel.ep=3"}, {"parallel.tp=2"}};
		struct dc_load_opts o = {ov, 2, DC_SOURCE_DIR "/configs/models/mixtral-8x7b-v0.1.json", 0};
		ck_assert_int_eq(load("\"seq_length\": 8", &o, &cfg, &d), -1);
		joined(&d, got, sizeof(got));
		ck_assert_str_eq(got, "--set: error: 'parallel.ep': must divide model.num_experts (8), got 3");
		dc_diag_release(&d);
	}
	{
		static const struct dc_override ov[2] = {{"parallel.ep=8"}, {"parallel.tp=2"}};
		struct dc_load_opts o = {ov, 2, DC_SOURCE_DIR "/configs/models/mixtral-8x7b-v0.1.json", 0};
		ck_assert_int_eq(load("\"seq_length\": 8", &o, &cfg, &d), -1);
		joined(&d, got, sizeof(got));
		ck_assert_str_eq(got, "--set: error: 'parallel.ep': ep x etp (8 x 2) must divide tp x dp x cp (2 x 4 x 1), the ranks of a stage that the expert layers regroup (Megatron-Core's MoE parallel folding); parallel.dp 4 is derived: num_nodes x gpus_per_node (8) / (tp x cp x pp) (2); --set parallel.etp=1 --set parallel.sequence_parallel=true (each expert whole on its rank) would fit");
		dc_diag_release(&d);
	}
}
END_TEST

static Suite *hf_suite(void)
{
	Suite *s = suite_create("hf");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, test_max_positions);
	tcase_add_test(tc, test_max_positions_wrapped);
	tcase_add_test(tc, test_family_defaults);
	tcase_add_test(tc, test_new_families_published);
	tcase_add_test(tc, test_layer_kinds_read);
	tcase_add_test(tc, test_qwen_moe_sparse_step);
	tcase_add_test(tc, test_layer_kind_errors);
	tcase_add_test(tc, test_null_keys);
	tcase_add_test(tc, test_mistral3);
	tcase_add_test(tc, test_phi3);
	tcase_add_test(tc, test_explicit_keys_override);
	tcase_add_test(tc, test_dropout);
	tcase_add_test(tc, test_scale_defaults_warn);
	tcase_add_test(tc, test_model_option_replaces_shape);
	tcase_add_test(tc, test_path_relative_to_config);
	tcase_add_test(tc, test_errors);
	tcase_add_test(tc, test_missing_file_and_ep);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(hf_suite());
	int failed;
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
