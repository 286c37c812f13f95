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
		expect_total(json, "deepseek_v3", 671026419200ull + 7771427328ull);
	}
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
	/* the config's own key wins over the file's rates */
	ck_assert_int_eq(hf_dropout("{\"model_type\": \"gpt2\"}", ", \"dropout\": false"), 0);
	expect_hf_error("{\"model_type\": \"llama\", \"attention_dropout\": 1.5}", DC_ERR_CONFIG,
			"%s: error: 'attention_dropout': expected a dropout rate in [0, 1], got 1.5");
	expect_hf_error("{\"model_type\": \"gpt2\", \"attn_pdrop\": \"0.1\"}", DC_ERR_CONFIG,
			"%s: error: 'attn_pdrop': expected a dropout rate in [0, 1], got \"0.1\"");
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
			"%s: error: 'model_type': unsupported architecture \"t5\"; supported: llama, mistral, mixtral, qwen2, qwen2_moe, qwen3_moe, gpt2, gemma, deepseek_v3");
	expect_hf_error("{\"hidden_size\": 8}", DC_ERR_CONFIG,
			"%s: error: 'model_type': missing, and no 'architectures' entry names the model; supported: llama, mistral, mixtral, qwen2, qwen2_moe, qwen3_moe, gpt2, gemma, deepseek_v3");
	expect_hf_error("{\"model_type\": \"llama\", \"num_attention_heads\": 32, \"num_key_value_heads\": 5}",
			DC_ERR_CONFIG, "%s: error: 'num_key_value_heads': must divide num_attention_heads (32), got 5");
	expect_hf_error("{\"model_type\": \"deepseek_v3\", \"first_k_dense_replace\": 61, \"moe_layer_freq\": 2}",
			DC_ERR_CONFIG,
			"%s: error: 'first_k_dense_replace': must be below num_hidden_layers (61), got 61\n"
			"%s: error: 'moe_layer_freq': distcalc models every layer after first_k_dense_replace as a MoE layer; only 1 is supported, got 2");
	expect_hf_error("{\"model_type\": \"llama\", \"vocab_size\": 1e300}", DC_ERR_CONFIG,
			"%s: error: 'vocab_size': must be below 2^53 (9007199254740992), got about 1e+300");
	/* a shape too large is the Hugging Face file's, named with its keys:
	 * 32 layers x 3hf with h = f = 2^40 is 3 x 2^85 parameters */
	expect_hf_error("{\"model_type\": \"llama\", \"hidden_size\": 1099511627776, \"intermediate_size\": 1099511627776, \"num_attention_heads\": 1}",
			DC_ERR_CONFIG,
			"%s: error: 'hidden_size': the parameter count of this shape overflows 64 bits; check hidden_size, intermediate_size, vocab_size and num_hidden_layers");
	/* h = f = 2^22, 32 layers, vocab 32000, untied, one head: by hand,
	 * 32 (4h^2 + 3hf + 2h) + 2 x 32000 h + h = 7 x 2^49 + 2^28 + 268,435,456,000
	 * + 4,194,304 = 3,940,918,382,034,944 parameters; x 16 bytes > 2^53 */
	expect_hf_error("{\"model_type\": \"llama\", \"hidden_size\": 4194304, \"intermediate_size\": 4194304, \"num_attention_heads\": 1}",
			DC_ERR_CONFIG,
			"%s: error: 'hidden_size': 3940918382034944 parameters x 16 bytes of model state per parameter must be below 2^53 bytes; check hidden_size, intermediate_size, vocab_size and num_hidden_layers");
	expect_hf_error("{\"model_type\": \"gpt2\", \"n_embd\": 1099511627776, \"n_head\": 1}", DC_ERR_CONFIG,
			"%s: error: 'n_embd': the parameter count of this shape overflows 64 bits; check n_embd, n_inner, vocab_size and n_layer");
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
		ck_assert_str_eq(got, "--set: error: 'parallel.ep': ep x etp (8 x 2) must divide tp x dp x cp (2 x 4 x 1), the ranks of a stage that the expert layers regroup (Megatron-Core's MoE parallel folding)");
		dc_diag_release(&d);
	}
}
END_TEST

static Suite *hf_suite(void)
{
	Suite *s = suite_create("hf");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, test_family_defaults);
	tcase_add_test(tc, test_explicit_keys_override);
	tcase_add_test(tc, test_dropout);
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
