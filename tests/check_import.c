/* check_import.c - the importers' mappings, each figure worked by hand from
 * the framework's own rule (cited), never read back from the code: Megatron-
 * LM's vocabulary padding, default MLP size, grouped-query attention,
 * dropout and bias defaults, the shell words and variables of a launch
 * script; torchtitan's pipeline microbatches, its TOML subset and where
 * each error points; DeepSpeed's stages and offload; the equivalent config
 * the import writes. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "distcalc/config.h"
#include "distcalc/import.h"

static struct dc_import imp;
static struct dc_diag diag;

static int parse(enum dc_import_format f, const char *text)
{
	dc_import_release(&imp);
	dc_diag_release(&diag);
	dc_diag_init(&diag);
	return dc_import_parse(f, text, strlen(text), "t", &imp, &diag);
}

static const char *get(const char *path)
{
	const char *v = dc_import_get(&imp, path);
	return v ? v : "(unset)";
}

/* parse(f torchtitan, text) returns rc, and its first diagnostic holds
 * `says` (NULL: none asked) */
static void ck_toml(const char *text, int rc, const char *says)
{
	ck_assert_int_eq(parse(DC_IMPORT_TORCHTITAN, text), rc);
	if (says)
		ck_assert_msg(diag.count > 0 && strstr(diag.entries[0].text, says), "%s: %s", text,
			      diag.count ? diag.entries[0].text : "(none)");
}

/* The text of tests/inputs/import/NAME (an upstream file kept byte for
 * byte: its README.md names the source), NUL-terminated; the caller frees */
static char *input(const char *name)
{
	char path[1024];
	FILE *f;
	char *buf;
	long n;
	snprintf(path, sizeof(path), "%s/tests/inputs/import/%s", DC_SOURCE_DIR, name);
	f = fopen(path, "rb");
	ck_assert_msg(f != NULL, "cannot open %s", path);
	ck_assert_int_eq(fseek(f, 0, SEEK_END), 0);
	n = ftell(f);
	ck_assert_int_ge(n, 0);
	rewind(f);
	buf = malloc((size_t)n + 1);
	ck_assert_ptr_nonnull(buf);
	ck_assert_uint_eq(fread(buf, 1, (size_t)n, f), (size_t)n);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

/* How many diagnostics are warnings holding `says`. */
static size_t warnings_with(const char *says)
{
	size_t k = 0;
	for (size_t i = 0; i < diag.count; i++)
		k += diag.entries[i].severity == DC_SEV_WARNING && strstr(diag.entries[i].text, says) != NULL;
	return k;
}

/* How many diagnostics, errors or warnings, hold `says`. */
static size_t diags_with(const char *says)
{
	size_t k = 0;
	for (size_t i = 0; i < diag.count; i++)
		k += strstr(diag.entries[i].text, says) != NULL;
	return k;
}

static void teardown(void)
{
	dc_import_release(&imp);
	dc_diag_release(&diag);
}

static void setup(void)
{
	memset(&imp, 0, sizeof(imp));
	dc_diag_init(&diag);
}

/* Megatron-LM's vocab_size_with_padding (megatron/core/tokenizers/utils/
 * build_tokenizer.py:133-146 at d98e8a64): up to a multiple of
 * make-vocab-size-divisible-by x tp, from the tokenizer's vocab_size:
 * NullTokenizer's is --vocab-size as given (its end-of-document id the
 * last: core/tokenizers/text/libraries/null_tokenizer.py:18-19, 60-62),
 * NullMultimodalTokenizer's one more (vision/libraries/
 * null_multimodal_tokenizer.py:65). */
START_TEST(megatron_vocab_padding)
{
	/* 128256 at tp 8: a multiple of 128 x 8 = 1024; 128256 / 1024 =
	 * 125.25, so 126 x 1024 = 129024 */
	ck_assert_int_eq(parse(DC_IMPORT_MEGATRON, "--vocab-size 128256 --tensor-model-parallel-size 8 --bf16 --position-embedding-type rope"), 0);
	ck_assert_str_eq(get("model.vocab_size"), "129024");
	/* NullTokenizer at tp 2: 128256 itself, a multiple of 128 x 2 = 256
	 * (128256 / 256 = 501 exactly): no padding. (Before, 128256 + 1 =
	 * 128257 was padded to 502 x 256 = 128512.) With Llama-3-8B's shape
	 * that is its published 8,030,261,248 parameters: the CLI case
	 * import_megatron_null_tokenizer */
	ck_assert_int_eq(parse(DC_IMPORT_MEGATRON, "--tokenizer-type NullTokenizer --vocab-size 128256 "
						   "--tensor-model-parallel-size 2 --bf16 --no-position-embedding"),
			 0);
	ck_assert_str_eq(get("model.vocab_size"), "128256");
	/* NullMultimodalTokenizer at tp 1: 128256 + 1 = 128257 up to a
	 * multiple of 128: 128256 = 1002 x 128, so 1003 x 128 = 128384 */
	ck_assert_int_eq(parse(DC_IMPORT_MEGATRON, "--tokenizer-type NullMultimodalTokenizer --vocab-size 128256 --bf16 "
						   "--no-position-embedding"),
			 0);
	ck_assert_str_eq(get("model.vocab_size"), "128384");
	/* 50257 (GPT-2) with --make-vocab-size-divisible-by 64 at tp 2:
	 * multiples of 128; 50257 / 128 = 392.6, so 393 x 128 = 50304 */
	ck_assert_int_eq(parse(DC_IMPORT_MEGATRON, "--vocab-size=50257 --make-vocab-size-divisible-by 64 "
						   "--tensor-model-parallel-size 2 --bf16 --use-rotary-position-embeddings"),
			 0);
	ck_assert_str_eq(get("model.vocab_size"), "50304");
	/* a --set of tp pads again on it, as Megatron-LM pads on the tp it
	 * runs: the first case at tp 16, multiples of 2048: 128256 / 2048 =
	 * 62.6, so 63 x 2048 = 129024 again; at tp 4, multiples of 512:
	 * 128256 / 512 = 250.5, so 251 x 512 = 128512; at tp 3, 384:
	 * 334 x 384 = 128256 exactly. A --set of the vocabulary stands. */
	{
		static const struct {
			const char *tp, *vocab;
		} at[] = {{"parallel.tp=16", "129024"}, {"parallel.tp=4", "128512"}, {"parallel.tp=3", "128256"}};
		for (size_t i = 0; i < sizeof(at) / sizeof(at[0]); i++) {
			ck_assert_int_eq(parse(DC_IMPORT_MEGATRON, "--vocab-size 128256 --tensor-model-parallel-size 8 "
								   "--bf16 --position-embedding-type rope"),
					 0);
			ck_assert_int_eq(dc_import_override(&imp, at[i].tp, &diag), 0);
			ck_assert_int_eq(dc_import_finish(&imp, "t", &diag), 0);
			ck_assert_str_eq(get("model.vocab_size"), at[i].vocab);
		}
		ck_assert_int_eq(parse(DC_IMPORT_MEGATRON, "--vocab-size 128256 --tensor-model-parallel-size 8 --bf16 "
							   "--position-embedding-type rope"),
				 0);
		ck_assert_int_eq(dc_import_override(&imp, "model.vocab_size=128000", &diag), 0);
		ck_assert_int_eq(dc_import_override(&imp, "parallel.tp=4", &diag), 0);
		ck_assert_int_eq(dc_import_finish(&imp, "t", &diag), 0);
		ck_assert_str_eq(get("model.vocab_size"), "128000");
	}
}
END_TEST

/* What Megatron-LM derives from the pp and tp it runs, derived again on a
 * --set of them: the chunks of --num-layers-per-virtual-pipeline-stage
 * (arguments.py:957-975 at d98e8a64: 80 layers, n 5: 80 / 4 / 5 = 4 at
 * pp 4, 80 / 2 / 5 = 8 at pp 2, 80 / 3 no whole number: refused), and
 * --sequence-parallel, off at tp 1 (a trial's --set parallel.tp=1 was
 * refused, its pp 2 kept 4 chunks of 10 layers) */
START_TEST(megatron_set_rederives)
{
	static const char script[] = "--num-layers 80 --pipeline-model-parallel-size 4 --tensor-model-parallel-size 8 "
				     "--num-layers-per-virtual-pipeline-stage 5 --sequence-parallel --bf16 "
				     "--position-embedding-type rope";
	static const struct {
		const char *set;
		int rc;
		const char *vp;
	} cases[] = {{NULL, 0, "4"}, {"parallel.pp=2", 0, "8"}, {"parallel.pp=8", 0, "2"}, {"parallel.pp=3", -1, NULL}};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		ck_assert_int_eq(parse(DC_IMPORT_MEGATRON, script), 0);
		if (cases[i].set)
			ck_assert_int_eq(dc_import_override(&imp, cases[i].set, &diag), 0);
		ck_assert_int_eq(dc_import_finish(&imp, "t", &diag), cases[i].rc);
		if (cases[i].vp)
			ck_assert_str_eq(get("parallel.virtual_pipeline"), cases[i].vp);
	}
	/* a --set of the chunks stands */
	ck_assert_int_eq(parse(DC_IMPORT_MEGATRON, script), 0);
	ck_assert_int_eq(dc_import_override(&imp, "parallel.virtual_pipeline=5", &diag), 0);
	ck_assert_int_eq(dc_import_override(&imp, "parallel.pp=2", &diag), 0);
	ck_assert_int_eq(dc_import_finish(&imp, "t", &diag), 0);
	ck_assert_str_eq(get("parallel.virtual_pipeline"), "5");
	/* sequence parallelism off at a --set tp of 1, with a warning */
	ck_assert_int_eq(parse(DC_IMPORT_MEGATRON, script), 0);
	ck_assert_str_eq(get("parallel.sequence_parallel"), "true");
	ck_assert_int_eq(dc_import_override(&imp, "parallel.tp=1", &diag), 0);
	ck_assert_int_eq(dc_import_finish(&imp, "t", &diag), 0);
	ck_assert_str_eq(get("parallel.sequence_parallel"), "(unset)");
	ck_assert_uint_eq(warnings_with("off at the --set tensor-model-parallel-size 1"), 1);
}
END_TEST

/* arguments.py: ffn_hidden_size defaults to 4h, or with --swiglu to
 * int((4h * 2 / 3) / 64) * 64 */
START_TEST(megatron_ffn_default)
{
	/* h 4096, SwiGLU: 4 x 4096 x 2 / 3 = 10922.67; / 64 = 170.67; 170 x 64 = 10880 */
	ck_assert_int_eq(parse(DC_IMPORT_MEGATRON, "--hidden-size 4096 --swiglu --bf16 --position-embedding-type rope"), 0);
	ck_assert_str_eq(get("model.ffn_hidden_size"), "10880");
	ck_assert_str_eq(get("model.mlp"), "\"swiglu\"");
	/* h 1024, GeLU (Megatron's default MLP): 4096 */
	ck_assert_int_eq(parse(DC_IMPORT_MEGATRON, "--hidden-size 1024 --bf16 --position-embedding-type rope"), 0);
	ck_assert_str_eq(get("model.ffn_hidden_size"), "4096");
	ck_assert_str_eq(get("model.mlp"), "\"gelu\"");
}
END_TEST

/* TransformerConfig's defaults: biases on, LayerNorm, dropout 0.1, tied
 * embeddings, a learned position table; --num-query-groups counts only
 * with --group-query-attention */
/* Megatron-LM's own refusals, mirrored: --fp8-param-gather without the
 * distributed optimizer or FSDP2 (arguments.py:1095-1097 at d98e8a64), and
 * --max-position-embeddings below --seq-length (:1353-1356), rope or not */
START_TEST(megatron_validations)
{
	ck_assert_int_eq(parse(DC_IMPORT_MEGATRON, "--bf16 --fp8-format hybrid --fp8-param-gather --position-embedding-type rope"), -1);
	ck_assert_uint_eq(diags_with("'--fp8-param-gather': needs --use-distributed-optimizer or --use-torch-fsdp2"), 1);
	ck_assert_int_eq(parse(DC_IMPORT_MEGATRON, "--bf16 --fp8-format hybrid --fp8-param-gather --use-distributed-optimizer --position-embedding-type rope"), 0);
	ck_assert_str_eq(get("precision.param_bytes"), "1");
	ck_assert_int_eq(parse(DC_IMPORT_MEGATRON, "--max-position-embeddings 2048 --seq-length 4096"), -1);
	ck_assert_uint_eq(diags_with("'--max-position-embeddings': 2048 is below --seq-length 4096"), 1);
	ck_assert_int_eq(parse(DC_IMPORT_MEGATRON, "--position-embedding-type rope --max-position-embeddings 2048 --seq-length 4096"),
			 -1);
	ck_assert_uint_eq(diags_with("'--max-position-embeddings': 2048 is below --seq-length 4096"), 1);
	/* equal: accepted, the table that long */
	ck_assert_int_eq(parse(DC_IMPORT_MEGATRON, "--max-position-embeddings 4096 --seq-length 4096"), 0);
	ck_assert_str_eq(get("model.position_embeddings"), "4096");
}
END_TEST

START_TEST(megatron_defaults)
{
	ck_assert_int_eq(parse(DC_IMPORT_MEGATRON, "--num-layers 2 --max-position-embeddings 1024 --num-query-groups 2"), 0);
	ck_assert_str_eq(get("model.qkv_bias"), "true");
	ck_assert_str_eq(get("model.mlp_bias"), "true");
	ck_assert_str_eq(get("model.norm"), "\"layernorm\"");
	ck_assert_str_eq(get("model.dropout"), "true");
	ck_assert_str_eq(get("model.tie_word_embeddings"), "true");
	ck_assert_str_eq(get("model.position_embeddings"), "1024");
	ck_assert_str_eq(get("model.num_kv_heads"), "(unset)");
	/* no --bf16: FP32 training, 4 + 4 bytes and Adam's 8, no master copy */
	ck_assert_str_eq(get("precision.param_bytes"), "4");
	ck_assert_str_eq(get("precision.master_bytes"), "0");
	/* gradients reduce after the backward without --overlap-grad-reduce */
	ck_assert_str_eq(get("overlap.dp"), "false");
	ck_assert_str_eq(get("parallel.sharding"), "\"none\"");
	ck_assert_uint_eq(diag.count, 1); /* the warning about --num-query-groups */
	ck_assert_int_eq(parse(DC_IMPORT_MEGATRON, "--group-query-attention --num-query-groups 2 --disable-bias-linear "
						   "--add-qkv-bias --position-embedding-type rope --attention-dropout 0 "
						   "--hidden-dropout 0.0 --use-distributed-optimizer --bf16"),
			 0);
	ck_assert_str_eq(get("model.num_kv_heads"), "2");
	ck_assert_str_eq(get("model.qkv_bias"), "true");
	ck_assert_str_eq(get("model.out_bias"), "false");
	ck_assert_str_eq(get("model.dropout"), "false");
	ck_assert_str_eq(get("model.position_embeddings"), "(unset)");
	ck_assert_str_eq(get("parallel.sharding"), "\"zero1\"");
	ck_assert_str_eq(get("precision.preset"), "\"megatron\"");
	/* --group-query-attention alone: --num-query-groups' default, 1
	 * (arguments.py), multi-query, with a warning (a trial's was priced
	 * as multi-head) */
	ck_assert_int_eq(parse(DC_IMPORT_MEGATRON, "--num-layers 2 --position-embedding-type rope --group-query-attention"), 0);
	ck_assert_str_eq(get("model.num_kv_heads"), "1");
	ck_assert_uint_eq(warnings_with("Megatron-LM's default is 1 group"), 1);
}
END_TEST

/* Megatron's recompute methods (megatron/core/recompute.py:157-181 at
 * d98e8a64): block n keeps n layers of a chunk recomputed, as
 * training.recompute_layers n; uniform 1 is distcalc's every layer;
 * uniform n > 1 checkpoints each run of n layers, which distcalc does not
 * price: a warning naming the argument, the method left as uniform 1 */
START_TEST(megatron_recompute_methods)
{
	ck_assert_int_eq(parse(DC_IMPORT_MEGATRON, "--position-embedding-type rope --recompute-granularity full --recompute-method block "
						   "--recompute-num-layers 2\n"),
			 0);
	ck_assert_str_eq(get("training.recompute_layers"), "2");
	ck_assert_uint_eq(diag.count, 0);
	ck_assert_int_eq(parse(DC_IMPORT_MEGATRON, "--position-embedding-type rope --recompute-granularity full --recompute-method uniform "
						   "--recompute-num-layers 1\n"),
			 0);
	ck_assert_str_eq(get("training.recompute_layers"), "(unset)");
	ck_assert_uint_eq(diag.count, 0);
	ck_assert_int_eq(parse(DC_IMPORT_MEGATRON, "--position-embedding-type rope --recompute-granularity full --recompute-method uniform "
						   "--recompute-num-layers 4\n"),
			 0);
	ck_assert_str_eq(get("training.recompute"), "\"full\"");
	ck_assert_str_eq(get("training.recompute_layers"), "(unset)");
	ck_assert_uint_eq(diag.count, 1);
	ck_assert_str_eq(diag.entries[0].text,
			 "t:1: '--recompute-num-layers': 4 under --recompute-method uniform checkpoints each run of 4 "
			 "layers' input and reruns the run (megatron/core/recompute.py:157-165); distcalc prices "
			 "--recompute-num-layers 1 (one input kept a layer, one layer rebuilt at a time), so its "
			 "activations differ from the run's");
	/* block 0 would recompute no layer, where recompute_layers 0 means
	 * every one: refused, and only once */
	ck_assert_int_eq(parse(DC_IMPORT_MEGATRON, "--position-embedding-type rope --recompute-granularity full --recompute-method block "
						   "--recompute-num-layers 0\n"),
			 -1);
	ck_assert_uint_eq(diag.count, 1);
	ck_assert_str_eq(diag.entries[0].text, "t:1: error: '--recompute-num-layers': expected a whole number from 1, got '0'");
}
END_TEST

/* Megatron-Core's own recompute checks (transformer_config.py:1908-1932
 * at d98e8a64): full without a method or a layer count, and selective
 * with a layer count, raise there, so the script does not start: refused,
 * once each, naming the argument */
START_TEST(megatron_recompute_refusals)
{
	static const struct {
		const char *script, *error;
	} cases[] = {
		{"--recompute-granularity full",
		 "t:1: error: '--recompute-granularity': full without --recompute-method: Megatron-Core raises "
		 "\"recompute_method must be \"block\" or \"uniform\"\" (transformer_config.py:1913-1917); give "
		 "--recompute-method uniform --recompute-num-layers 1 to recompute every layer"},
		{"--recompute-granularity full --recompute-method uniform",
		 "t:1: error: '--recompute-granularity': full without --recompute-num-layers: Megatron-Core raises "
		 "\"recompute_num_layers must be between 1 and num_layers_per_pipeline_rank\" "
		 "(transformer_config.py:1919-1925)"},
		{"--recompute-activations --recompute-num-layers 2",
		 "t:1: error: '--recompute-num-layers': under selective recompute Megatron-Core raises "
		 "\"recompute_num_layers must be None\" (transformer_config.py:1926-1932): remove it"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char script[256];
		snprintf(script, sizeof(script), "--position-embedding-type rope %s\n", cases[i].script);
		ck_assert_int_eq(parse(DC_IMPORT_MEGATRON, script), -1);
		ck_assert_uint_eq(diag.count, 1);
		ck_assert_str_eq(diag.entries[0].text, cases[i].error);
	}
}
END_TEST

/* --fp16: Megatron-LM accumulates and reduces the gradients in FP32 under
 * --bf16 alone (arguments.py:1194-1217 at d98e8a64), so under --fp16 they
 * are the parameters' 2 bytes, and --ddp-bucket-size 50,000,000
 * parameters 100,000,000 bytes; --accumulate-allreduce-grads-in-fp32
 * makes them 4 (the preset's); under --bf16 it is the default */
START_TEST(megatron_fp16_gradients)
{
	ck_assert_int_eq(parse(DC_IMPORT_MEGATRON, "--fp16 --overlap-grad-reduce --ddp-bucket-size 50000000 "
						   "--position-embedding-type rope\n"),
			 0);
	ck_assert_str_eq(get("precision.preset"), "\"megatron\"");
	ck_assert_str_eq(get("precision.grad_bytes"), "2");
	ck_assert_str_eq(get("parallel.bucket_size"), "100000000");
	ck_assert_uint_eq(diag.count, 1);
	ck_assert(strstr(diag.entries[0].text, "t:1: '--fp16': the gradients are FP16") == diag.entries[0].text);
	ck_assert_int_eq(parse(DC_IMPORT_MEGATRON, "--fp16 --accumulate-allreduce-grads-in-fp32 --overlap-grad-reduce "
						   "--ddp-bucket-size 50000000 --position-embedding-type rope\n"),
			 0);
	ck_assert_str_eq(get("precision.grad_bytes"), "(unset)");
	ck_assert_str_eq(get("parallel.bucket_size"), "200000000");
	ck_assert_uint_eq(diag.count, 0);
	ck_assert_int_eq(parse(DC_IMPORT_MEGATRON, "--bf16 --accumulate-allreduce-grads-in-fp32 "
						   "--position-embedding-type rope\n"),
			 0);
	ck_assert_str_eq(get("precision.grad_bytes"), "(unset)");
	ck_assert_uint_eq(diag.count, 0);
	/* both flags: under --bf16 the BF16 reduction wins, as Megatron-LM's
	 * arguments.py:1213-1214 turns the FP32 one off; under --fp16 the
	 * FP32 one stands and the BF16 one is not read */
	ck_assert_int_eq(parse(DC_IMPORT_MEGATRON, "--bf16 --accumulate-allreduce-grads-in-fp32 --grad-reduce-in-bf16 "
						   "--position-embedding-type rope\n"),
			 0);
	ck_assert_str_eq(get("precision.grad_bytes"), "2");
	ck_assert_uint_eq(diag.count, 1);
	ck_assert_ptr_nonnull(strstr(diag.entries[0].text, "overridden by --grad-reduce-in-bf16"));
	ck_assert_int_eq(parse(DC_IMPORT_MEGATRON, "--fp16 --accumulate-allreduce-grads-in-fp32 --grad-reduce-in-bf16 "
						   "--position-embedding-type rope\n"),
			 0);
	ck_assert_str_eq(get("precision.grad_bytes"), "(unset)");
	ck_assert_uint_eq(diag.count, 1);
	ck_assert_ptr_nonnull(strstr(diag.entries[0].text, "under --fp16 it changes nothing"));
}
END_TEST

/* The flex dispatcher with DeepEP (its default backend, transformer_config.py:898
 * at d98e8a64) and group-limited routing; another backend is refused, and
 * a backend without flex, which Megatron-Core does not read, warns */
START_TEST(megatron_deepep)
{
	const char *moe = "--position-embedding-type rope --num-experts 64 --moe-router-topk 8 ";
	char line[512];
	snprintf(line, sizeof(line), "%s--moe-token-dispatcher-type flex --moe-router-num-groups 8 --moe-router-group-topk 4\n",
		 moe);
	ck_assert_int_eq(parse(DC_IMPORT_MEGATRON, line), 0);
	ck_assert_str_eq(get("training.moe_dispatcher"), "\"deepep\"");
	ck_assert_str_eq(get("model.router_groups"), "8");
	ck_assert_str_eq(get("model.router_group_topk"), "4");
	snprintf(line, sizeof(line), "%s--moe-token-dispatcher-type flex --moe-flex-dispatcher-backend deepep\n", moe);
	ck_assert_int_eq(parse(DC_IMPORT_MEGATRON, line), 0);
	ck_assert_str_eq(get("training.moe_dispatcher"), "\"deepep\"");
	snprintf(line, sizeof(line), "%s--moe-token-dispatcher-type flex --moe-flex-dispatcher-backend hybridep\n", moe);
	ck_assert_int_eq(parse(DC_IMPORT_MEGATRON, line), -1);
	ck_assert_str_eq(diag.entries[0].text, "t:1: error: '--moe-flex-dispatcher-backend': 'hybridep' is not mapped "
					       "(distcalc prices DeepEP's dispatch: deepep)");
	snprintf(line, sizeof(line), "%s--moe-token-dispatcher-type alltoall --moe-enable-deepep\n", moe);
	ck_assert_int_eq(parse(DC_IMPORT_MEGATRON, line), 0);
	ck_assert_str_eq(get("training.moe_dispatcher"), "(unset)");
	ck_assert_uint_eq(diag.count, 1);
	ck_assert_str_eq(diag.entries[0].text, "t:1: '--moe-enable-deepep': applies to --moe-token-dispatcher-type "
					       "flex, and the dispatcher is alltoall: not imported");
	snprintf(line, sizeof(line), "%s--moe-token-dispatcher-type alltoall\n", moe);
	ck_assert_int_eq(parse(DC_IMPORT_MEGATRON, line), 0);
	ck_assert_str_eq(get("training.moe_dispatcher"), "(unset)");
}
END_TEST

/* --recompute-modules takes argparse's nargs '*' (transformer_config.py
 * recompute_modules): its words up to the next argument become the list;
 * without selective Megatron does not read it (a warning, nothing set);
 * an empty list under selective reruns nothing (refused) */
START_TEST(megatron_recompute_modules)
{
	ck_assert_int_eq(parse(DC_IMPORT_MEGATRON, "--position-embedding-type rope --recompute-granularity selective "
						   "--recompute-modules mla_up_proj mlp --bf16\n"),
			 0);
	ck_assert_str_eq(get("training.recompute_modules"), "[\"mla_up_proj\", \"mlp\"]");
	ck_assert_uint_eq(diag.count, 0);
	ck_assert_int_eq(parse(DC_IMPORT_MEGATRON, "--position-embedding-type rope --recompute-granularity full "
						   "--recompute-method uniform --recompute-num-layers 1 --recompute-modules mlp\n"),
			 0);
	ck_assert_str_eq(get("training.recompute_modules"), "(unset)");
	ck_assert_uint_eq(diag.count, 1);
	ck_assert_str_eq(diag.entries[0].text, "t:1: '--recompute-modules': Megatron-Core reads it under "
					       "--recompute-granularity selective alone, and this run's is full: not imported");
	/* the list ends with its command: at a pipe, a redirection, the
	 * line's end (no continuation), an array's close; a variable's
	 * quoted value is the whole list */
	ck_assert_int_eq(parse(DC_IMPORT_MEGATRON, "--position-embedding-type rope --recompute-granularity selective "
						   "--recompute-modules core_attn mlp 2>&1 | tee log\necho done\n"),
			 0);
	ck_assert_str_eq(get("training.recompute_modules"), "[\"core_attn\", \"mlp\"]");
	ck_assert_int_eq(parse(DC_IMPORT_MEGATRON, "RM='mlp moe'\nARGS=(\n --position-embedding-type rope\n"
						   " --recompute-granularity selective --recompute-modules $RM\n)\n"
						   "torchrun ${DISTRIBUTED_ARGS[@]} pretrain_gpt.py ${ARGS[@]}\n"),
			 0);
	ck_assert_str_eq(get("training.recompute_modules"), "[\"mlp\", \"moe\"]");
	ck_assert_uint_eq(diag.count, 0);
	/* an empty list reruns nothing: recompute none; a name twice is
	 * one; moe_act needs the grouped GEMM experts, as Megatron refuses */
	ck_assert_int_eq(parse(DC_IMPORT_MEGATRON, "--position-embedding-type rope --recompute-activations "
						   "--recompute-modules --bf16\n"),
			 0);
	ck_assert_str_eq(get("training.recompute"), "\"none\"");
	ck_assert_str_eq(get("training.recompute_modules"), "(unset)");
	ck_assert_uint_eq(diag.count, 1);
	ck_assert_str_eq(diag.entries[0].text, "t:1: '--recompute-modules': no module given, so selective recompute "
					       "reruns nothing: imported as training.recompute \"none\"");
	ck_assert_int_eq(parse(DC_IMPORT_MEGATRON, "--position-embedding-type rope --recompute-activations "
						   "--recompute-modules mlp core_attn mlp\n"),
			 0);
	ck_assert_str_eq(get("training.recompute_modules"), "[\"mlp\", \"core_attn\"]");
	ck_assert_int_eq(parse(DC_IMPORT_MEGATRON, "--position-embedding-type rope --recompute-activations "
						   "--recompute-modules moe_act\n"),
			 -1);
	ck_assert_str_eq(diag.entries[0].text, "t:1: error: '--recompute-modules': moe_act needs --moe-grouped-gemm, "
					       "as Megatron-Core refuses (transformer_config.py:1964-1967)");
	ck_assert_int_eq(parse(DC_IMPORT_MEGATRON, "--position-embedding-type rope --recompute-activations "
						   "--moe-grouped-gemm --recompute-modules moe_act\n"),
			 0);
	ck_assert_str_eq(get("training.recompute_modules"), "[\"moe_act\"]");
}
END_TEST

/* A launch script: arrays, quoted groups, comments, line continuations,
 * variables with defaults; the virtual pipeline from layers per stage
 * (32 layers / (pp 4 x 2 per virtual stage) = 4 chunks) */
START_TEST(megatron_script_words)
{
	static const char script[] = "#!/bin/bash\n"
				     "TP=${TP:-2}\n"
				     "PP=4 # stages\n"
				     "ARGS=(\n"
				     "  --num-layers 32 \\\n"
				     "  --tensor-model-parallel-size $TP\n"
				     "  \"--pipeline-model-parallel-size ${PP}\"\n"
				     "  # --context-parallel-size 8\n"
				     "  --num-layers-per-virtual-pipeline-stage=2\n"
				     "  --recompute-granularity full --recompute-method block --recompute-num-layers 3\n"
				     "  --lr 1e-4 --log-interval 1 --bf16 --position-embedding-type rope\n"
				     ")\n"
				     "torchrun --nproc_per_node 8 pretrain_gpt.py ${ARGS[@]}\n";
	ck_assert_int_eq(parse(DC_IMPORT_MEGATRON, script), 0);
	ck_assert_str_eq(get("parallel.tp"), "2");
	ck_assert_str_eq(get("parallel.pp"), "4");
	ck_assert_str_eq(get("parallel.cp"), "(unset)");
	ck_assert_str_eq(get("parallel.virtual_pipeline"), "4");
	ck_assert_str_eq(get("training.recompute"), "\"full\"");
	ck_assert_str_eq(get("training.recompute_layers"), "3");
	for (size_t i = 0; i < imp.nkeys; i++)
		if (strcmp(imp.keys[i].path, "parallel.pp") == 0)
			ck_assert_uint_eq(imp.keys[i].line, 7);
}
END_TEST

START_TEST(megatron_errors)
{
	ck_assert_int_eq(parse(DC_IMPORT_MEGATRON, "--num-layers 2\n--moe-expert-capacity-factor 1.0 --num-experts 8\n"
						   "--fancy\n\"--seq-length 4096\n"),
			 -1);
	ck_assert_uint_eq(diag.count, 1); /* the quote first: nothing else is read */
	ck_assert_str_eq(diag.entries[0].text, "t:4: error: a double quote that never closes");
	ck_assert_int_eq(parse(DC_IMPORT_MEGATRON, "--num-layers two --fancy\n--num-experts 8 --moe-expert-capacity-factor 1.0\n"), -1);
	ck_assert_str_eq(diag.entries[0].text, "t:1: error: '--fancy': not an argument distcalc maps or knows to change "
					       "nothing it computes (docs/importers.md lists both); remove it to import the rest");
	/* a slip of a known argument (one letter left out: 1 edit) is named */
	ck_assert_int_eq(parse(DC_IMPORT_MEGATRON, "--num-layers 2 --sequence-paralel\n"), -1);
	ck_assert_str_eq(diag.entries[0].text, "t:1: error: '--sequence-paralel': not an argument distcalc maps or knows "
					       "to change nothing it computes (docs/importers.md lists both); did you mean "
					       "'--sequence-parallel'? Else remove it to import the rest");
	/* another real argument a word away is no slip: Megatron's
	 * --window-size is 4 edits from --hidden-size, so nothing is offered */
	ck_assert_int_eq(parse(DC_IMPORT_MEGATRON, "--num-layers 2 --window-size 4096\n"), -1);
	ck_assert_str_eq(diag.entries[0].text, "t:1: error: '--window-size': not an argument distcalc maps or knows to "
					       "change nothing it computes (docs/importers.md lists both); remove it to import "
					       "the rest");
	ck_assert_int_eq(parse(DC_IMPORT_MEGATRON, "--num-layers two\n--num-experts 8 --moe-expert-capacity-factor 1.0\n"), -1);
	ck_assert_str_eq(diag.entries[0].text, "t:1: error: '--num-layers': expected a whole number from 1, got 'two'");
	ck_assert_str_eq(diag.entries[diag.count - 1].text,
			 "t:2: error: '--moe-expert-capacity-factor': not mapped (distcalc routes every token: no capacity, "
			 "no drops)");
	/* no dispatcher named: Megatron-Core's default, allgather
	 * (transformer_config.py:891 at d98e8a64), not priced: refused at
	 * the --num-experts line */
	ck_assert_str_eq(diag.entries[diag.count - 2].text,
			 "t:2: error: '--num-experts': without --moe-token-dispatcher-type Megatron-Core dispatches tokens "
			 "with allgather, which distcalc does not price; give --moe-token-dispatcher-type alltoall to price "
			 "the alltoall dispatcher");
	ck_assert_int_eq(parse(DC_IMPORT_MEGATRON, "echo hello\n"), -1);
}
END_TEST

/* --multi-latent-attention: MLA's shape is not mapped, so the model must
 * come from --model, which main.c applies after the import; the importer
 * leaves the refusal to main.c (model_unresolved: an error without
 * --model), and MLA's own arguments (arguments.py:3546-3565 at d98e8a64,
 * read by MLATransformerConfig alone) change nothing then. Before, it was
 * refused even with --model, though the message asked for it. CLI cases
 * import_megatron_mla_with_model and import_megatron_mla_no_model. */
START_TEST(megatron_mla)
{
	ck_assert_int_eq(parse(DC_IMPORT_MEGATRON, "--num-layers 61 --hidden-size 7168 --position-embedding-type rope\n--multi-latent-attention --q-lora-rank 1536 "
						   "--kv-lora-rank 512 --qk-head-dim 128 --qk-pos-emb-head-dim 64 --v-head-dim 128 "
						   "--mscale 1.0 --mscale-all-dim 1.0\n"),
			 0);
	ck_assert_str_eq(imp.model_unresolved,
			 "'--multi-latent-attention' (line 2): Megatron-LM's MLA shape is not mapped; give the model with "
			 "--model (a catalogue name, or its Hugging Face config.json)");
	ck_assert_uint_eq(diag.count, 1);
	ck_assert_uint_eq(warnings_with("t:2: '--multi-latent-attention': its shape"), 1);
	/* without it the file's model is its own */
	ck_assert_int_eq(parse(DC_IMPORT_MEGATRON, "--num-layers 61 --hidden-size 7168 --position-embedding-type rope\n"), 0);
	ck_assert_str_eq(imp.model_unresolved, "");
}
END_TEST

/* Real Megatron-LM d98e8a64 arguments that change nothing distcalc
 * computes, refused as unknown before (a trial's upstream scripts): the
 * log level, the memory-history snapshot, MoE's per-layer logging, two
 * checkpoint-loading switches, the expert bias's update rate. --rope-type
 * is read to refuse what Megatron-LM refuses: yarn without MLA
 * (argument_utils.py:335-340), a name outside its choices. */
START_TEST(megatron_left_out_arguments)
{
	static const char base[] = "--num-layers 2 --hidden-size 64 --num-attention-heads 4 --position-embedding-type rope\n";
	char text[600];
	snprintf(text, sizeof(text),
		 "%s--logging-level 20 --record-memory-history --moe-per-layer-logging --dist-ckpt-strictness log_all\n"
		 "--auto-detect-ckpt-format --moe-router-bias-update-rate 1e-3 --rope-type rope\n",
		 base);
	ck_assert_int_eq(parse(DC_IMPORT_MEGATRON, text), 0);
	ck_assert_uint_eq(diag.count, 0);
	snprintf(text, sizeof(text), "%s--rope-type yarn\n", base);
	ck_assert_int_eq(parse(DC_IMPORT_MEGATRON, text), -1);
	ck_assert_str_eq(diag.entries[0].text,
			 "t:2: error: '--rope-type': 'yarn' without --multi-latent-attention, which Megatron-LM refuses "
			 "(megatron/training/argument_utils.py:335-340 asserts \"Common attention only support "
			 "rope_type=\"rope\"\"); give rope");
	snprintf(text, sizeof(text), "%s--rope-type yarn --multi-latent-attention\n", base);
	ck_assert_int_eq(parse(DC_IMPORT_MEGATRON, text), 0);
	snprintf(text, sizeof(text), "%s--rope-type ntk\n", base);
	ck_assert_int_eq(parse(DC_IMPORT_MEGATRON, text), -1);
	ck_assert_str_eq(diag.entries[0].text, "t:2: error: '--rope-type': 'ntk' is none of Megatron-LM's choices, rope "
					       "and yarn (arguments.py:2906-2909)");
}
END_TEST

/* torchtitan: under pp the local batch splits into microbatches of
 * pipeline_parallel_microbatch_size (config_manager.py): batch 8 of
 * microbatch 2 is 4 microbatches; tp > 1 brings sequence parallelism, and
 * FSDP keeps its parameters gathered under pp by default */
START_TEST(torchtitan_mapping)
{
	static const char toml[] = "# a comment\n"
				   "[model]\nname = \"llama3\"\nflavor = '8B'\n"
				   "converters = [\n  \"float8\", # FP8\n]\n"
				   "[training]\nbatch_size = 8\nseq_len = 4_096\nmax_norm = 1.0\n"
				   "[parallelism]\ndata_parallel_replicate_degree = 2\ndata_parallel_shard_degree = 4\n"
				   "tensor_parallel_degree = 2\npipeline_parallel_degree = 2\n"
				   "pipeline_parallel_microbatch_size = 2\n"
				   "[activation_checkpoint]\nmode = \"full\"\n"
				   "[job]\nanything = [[1, 2], [\"a\"]]\n";
	ck_assert_int_eq(parse(DC_IMPORT_TORCHTITAN, toml), 0);
	ck_assert_str_eq(get("model.hf_config"), "\"llama-3.1-8b\"");
	ck_assert_str_eq(get("model.seq_length"), "4096");
	ck_assert_str_eq(get("precision.compute"), "\"fp8\"");
	ck_assert_str_eq(get("training.micro_batch_size"), "2");
	ck_assert_str_eq(get("training.grad_accum_steps"), "4");
	ck_assert_str_eq(get("parallel.dp"), "8"); /* 2 replicas x 4 shards */
	ck_assert_str_eq(get("parallel.dp_replicate"), "2");
	/* left to training.framework torchtitan's default (docs/config.md
	 * rule 16: on at tp > 1) */
	ck_assert_str_eq(get("parallel.sequence_parallel"), "(unset)");
	ck_assert_str_eq(get("parallel.reshard_after_forward"), "false");
	ck_assert_str_eq(get("training.recompute"), "\"full\"");
	ck_assert_str_eq(get("precision.preset"), "\"fsdp2\"");
}
END_TEST

/* torchtitan dcefff5's names: local_batch_size (batch_size's) and
 * global_batch_size, whose excess over local x dp accumulates: 64 of local
 * 2 on dp 8 is 4 steps, which the loader derives from the global batch */
START_TEST(torchtitan_local_global)
{
	ck_assert_int_eq(parse(DC_IMPORT_TORCHTITAN, "[model]\nname = \"llama3\"\nflavor = \"8B\"\n"
						     "[training]\nlocal_batch_size = 2\nglobal_batch_size = 64\n"
						     "[activation_checkpoint]\nmode = \"none\"\n"),
			 0);
	ck_assert_str_eq(get("training.micro_batch_size"), "2");
	ck_assert_str_eq(get("training.global_batch_size"), "64");
	ck_assert_str_eq(get("training.grad_accum_steps"), "(unset)");
	ck_assert_str_eq(get("training.recompute"), "\"none\"");
	ck_assert_int_eq(parse(DC_IMPORT_TORCHTITAN, "[training]\nbatch_size = 2\nlocal_batch_size = 2\n"), -1);
	ck_assert_str_eq(diag.entries[0].text, "t:3: error: [training] local_batch_size: with batch_size on line 2: give one");
	/* under pp a microbatch size that does not divide the local batch
	 * names the key the file gives */
	ck_assert_int_eq(parse(DC_IMPORT_TORCHTITAN, "[training]\nlocal_batch_size = 3\n[parallelism]\n"
						     "pipeline_parallel_degree = 2\npipeline_parallel_microbatch_size = 2\n"),
			 -1);
	/* after the warning that no [model] flavor gives the stage split */
	ck_assert_str_eq(diag.entries[1].text,
			 "t:5: error: [parallelism] pipeline_parallel_microbatch_size: must divide "
			 "[training] local_batch_size (3)");
}
END_TEST

/* torchtitan's stage split (torchtitan/distributed/pipeline_parallel.py
 * at b5bcd76c, _generate_llm_fqn_per_model_part): the embedding and the
 * head count as 1 layer each by default; S stages share L + 2 "layers",
 * (L + 2) / S each, the first (L + 2) mod S one more, the first and last
 * stage one fewer transformer layer. Llama 3 70B (80 layers) at pp 8:
 * 82 / 8 = 10 rem 2: 11 - 1, 11, 10 x 5, 10 - 1 = [10,11,10,10,10,10,10,9].
 * 8B (32) at pp 4: 34 / 4 = 8 rem 2: [8,9,8,7]. 70B at pp 2: 41 each,
 * [40,40], even: left to distcalc's own split. 405B (126) at pp 8
 * under Interleaved1F1B, 2 stages a rank: 128 / 16 = 8: [7, 8 x 14, 7].
 * Weights 0: 32 / 4 = 8, even. layers_per_stage 4 on the 8B at pp 4:
 * ceil(34 / 4) = 9 stages, not a multiple of 4: torchtitan raises. */
START_TEST(torchtitan_stage_split)
{
	ck_assert_int_eq(parse(DC_IMPORT_TORCHTITAN, "[model]\nname = \"llama3\"\nflavor = \"70B\"\n[parallelism]\n"
						     "pipeline_parallel_degree = 8\n[activation_checkpoint]\nmode = \"none\"\n"),
			 0);
	ck_assert_str_eq(get("parallel.pipeline_layers"), "[10,11,10,10,10,10,10,9]");
	ck_assert_int_eq(parse(DC_IMPORT_TORCHTITAN, "[model]\nname = \"llama3\"\nflavor = \"8B\"\n[parallelism]\n"
						     "pipeline_parallel_degree = 4\n[activation_checkpoint]\nmode = \"none\"\n"),
			 0);
	ck_assert_str_eq(get("parallel.pipeline_layers"), "[8,9,8,7]");
	ck_assert_int_eq(parse(DC_IMPORT_TORCHTITAN, "[model]\nname = \"llama3\"\nflavor = \"70B\"\n[parallelism]\n"
						     "pipeline_parallel_degree = 2\n[activation_checkpoint]\nmode = \"none\"\n"),
			 0);
	ck_assert_str_eq(get("parallel.pipeline_layers"), "(unset)");
	ck_assert_int_eq(parse(DC_IMPORT_TORCHTITAN, "[model]\nname = \"llama3\"\nflavor = \"405B\"\n[parallelism]\n"
						     "pipeline_parallel_degree = 8\npipeline_parallel_schedule = \"Interleaved1F1B\"\n"
						     "[activation_checkpoint]\nmode = \"none\"\n"),
			 0);
	ck_assert_str_eq(get("parallel.pipeline_schedule"), "\"interleaved\"");
	ck_assert_str_eq(get("parallel.virtual_pipeline"), "2");
	ck_assert_str_eq(get("parallel.pipeline_layers"), "[7,8,8,8,8,8,8,8,8,8,8,8,8,8,8,7]");
	ck_assert_int_eq(parse(DC_IMPORT_TORCHTITAN, "[model]\nname = \"llama3\"\nflavor = \"8B\"\n[parallelism]\n"
						     "pipeline_parallel_degree = 4\npipeline_parallel_first_stage_less_layers = 0\n"
						     "pipeline_parallel_last_stage_less_layers = 0\n[activation_checkpoint]\nmode = \"none\"\n"),
			 0);
	ck_assert_str_eq(get("parallel.pipeline_layers"), "(unset)");
	ck_assert_int_eq(parse(DC_IMPORT_TORCHTITAN, "[model]\nname = \"llama3\"\nflavor = \"8B\"\n[parallelism]\n"
						     "pipeline_parallel_degree = 4\npipeline_parallel_schedule = \"Interleaved1F1B\"\n"
						     "pipeline_parallel_layers_per_stage = 4\n[activation_checkpoint]\nmode = \"none\"\n"),
			 -1);
	ck_assert_msg(strstr(diag.entries[0].text, "9 virtual stages (ceil((32 layers + 1 + 1) / 4)) do not divide"), "%s",
		      diag.entries[0].text);
}
END_TEST

/* torchtitan's llama4 and deepseek_v3 flavors stay refused, naming
 * --model (their TOMLs are torchtitan's up to 238fa9953, which
 * 9810191bb replaced; why each differs from the catalogue: the comment
 * above import_torchtitan.c's flavors[]), and the --model and --set that
 * docs/importers.md gives for two of them load torchtitan's shape. The
 * figures, read by hand at 238fa9953: llama4 17bx16e
 * (torchtitan/models/llama4/__init__.py:38-50, model/args.py:35, 56):
 * dim 5120, 48 layers, 40 heads (of 5120 / 40 = 128), 8 KV heads,
 * vocabulary 202,048, 16 experts, top 1 and one shared expert (MoEArgs,
 * models/moe/moe.py:22-38), MoE on every layer (step 1); an expert's
 * hidden size (model/model.py:389-402) int(2 x 4 x 5120 / 3) = 13653,
 * x 1.2 = 16383, / (1 + 1) = 8191, up to a multiple of 2048: 8192, the
 * shared expert the same; full causal attention on every layer
 * (every_n_layers_nope None): no chunk. deepseek_v3 671B
 * (deepseek_v3/__init__.py:130-156): dim 7168, 61 layers of which the
 * first 3 dense of 18432, 128 heads, vocabulary 129,280, 256 experts of
 * 2048, 1 shared, top 8 from 4 of 8 groups, q rank 1536, kv rank 512,
 * q/k 128 + 64, v 128, and no multi-token-prediction module (none in
 * torchtitan before f59c215e8). */
/* A torchtitan TOML of [model] name and flavor at seq_len `seq`, imported
 * onto a 4-node cluster and loaded with --model `model` and `sets` */
static void load_flavor(const char *name, const char *flavor, unsigned seq, const char *model,
			const struct dc_override *sets, size_t nsets, struct dc_config *cfg)
{
	static const char base[] = "{\"cluster\": {\"num_nodes\": 4, \"gpus_per_node\": 8, \"gpu_memory\": \"80 GiB\", "
				   "\"intra_node\": {\"bandwidth\": \"300 GB/s\"}, \"inter_node\": {\"bandwidth\": \"50 GB/s\"}}}";
	char toml[256];
	struct dc_load_opts o;
	struct dc_buf out;
	snprintf(toml, sizeof(toml),
		 "[model]\nname = \"%s\"\nflavor = \"%s\"\n[training]\nseq_len = %u\n[activation_checkpoint]\nmode = \"none\"\n",
		 name, flavor, seq);
	ck_toml(toml, 0, NULL);
	dc_buf_init(&out);
	ck_assert_int_eq(dc_import_config(&imp, "t", base, strlen(base), "base.json", &out, &diag), 0);
	memset(&o, 0, sizeof(o));
	o.model_file = model;
	o.overrides = sets;
	o.noverrides = nsets;
	dc_diag_release(&diag);
	dc_diag_init(&diag);
	ck_assert_int_eq(dc_config_load_buffer_opts(out.data, out.len, "t", &o, cfg, &diag), 0);
	dc_buf_release(&out);
}

START_TEST(torchtitan_flavors_left_refused)
{
	static const char *const refused[][2] = {
		{"llama4", "17bx16e"}, {"llama4", "17bx128e"}, {"llama4", "17bx16e_irope"}, {"llama4", "17bx128e_irope"},
		{"deepseek_v3", "671B"}, {"deepseek_v3", "236B"},
	};
	static const struct dc_override l4_sets[] = {
		{"model.attention_chunked=false", 0}, {"model.sliding_window=0", 0}, {"model.sliding_window_pattern=0", 0}};
	static const struct dc_override ds_sets[] = {{"model.mtp_layers=0", 0}};
	char toml[256], want[512];
	struct dc_config cfg;
	for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		snprintf(toml, sizeof(toml), "[model]\nname = \"%s\"\nflavor = \"%s\"\n[activation_checkpoint]\nmode = \"none\"\n",
			 refused[i][0], refused[i][1]);
		ck_toml(toml, 0, NULL);
		ck_assert_str_eq(get("model.hf_config"), "(unset)");
		snprintf(want, sizeof(want), "[model] name \"%s\" flavor \"%s\" (line 3) has no catalogue entry%s; give "
					     "its Hugging Face config.json with --model FILE or NAME",
			 refused[i][0], refused[i][1],
			 i == 0 ? ": Llama-4-Scout's weights with full causal attention on every layer, which --model "
				  "llama-4-scout-17b-16e --set model.attention_chunked=false --set model.sliding_window=0 "
				  "--set model.sliding_window_pattern=0 gives"
			 : i == 4 ? ": DeepSeek-V3's shape without its multi-token-prediction module, which --model "
				    "deepseek-v3 --set model.mtp_layers=0 gives"
				  : "");
		ck_assert_str_eq(imp.model_unresolved, want);
	}

	/* llama4 17bx16e as --model llama-4-scout-17b-16e without the chunks */
	load_flavor("llama4", "17bx16e", 8192, "llama-4-scout-17b-16e", l4_sets, sizeof(l4_sets) / sizeof(l4_sets[0]),
		    &cfg);
	ck_assert_uint_eq(cfg.model.num_layers, 48);
	ck_assert_uint_eq(cfg.model.hidden_size, 5120);
	ck_assert_uint_eq(cfg.model.num_attention_heads, 40);
	ck_assert_uint_eq(cfg.model.num_kv_heads, 8);
	ck_assert_uint_eq(cfg.model.head_dim, 128);
	ck_assert_uint_eq(cfg.model.vocab_size, 202048);
	ck_assert_uint_eq(cfg.model.num_experts, 16);
	ck_assert_uint_eq(cfg.model.experts_per_token, 1);
	ck_assert_uint_eq(cfg.model.moe_ffn_hidden_size, 8192);
	ck_assert_uint_eq(cfg.model.shared_expert_ffn_hidden_size, 8192);
	ck_assert_uint_le(cfg.model.moe_layer_interval, 1);
	ck_assert_uint_eq(cfg.model.dense_layers, 0);
	ck_assert_uint_eq(cfg.model.sliding_window, 0);
	ck_assert_int_eq(cfg.model.attention_chunked, 0);
	ck_assert_int_eq(cfg.model.tie_word_embeddings, 0);

	/* deepseek_v3 671B as --model deepseek-v3 without its MTP module */
	load_flavor("deepseek_v3", "671B", 4096, "deepseek-v3", ds_sets, 1, &cfg);
	ck_assert_uint_eq(cfg.model.num_layers, 61);
	ck_assert_uint_eq(cfg.model.hidden_size, 7168);
	ck_assert_uint_eq(cfg.model.ffn_hidden_size, 18432);
	ck_assert_uint_eq(cfg.model.dense_layers, 3);
	ck_assert_uint_eq(cfg.model.num_attention_heads, 128);
	ck_assert_uint_eq(cfg.model.vocab_size, 129280);
	ck_assert_uint_eq(cfg.model.num_experts, 256);
	ck_assert_uint_eq(cfg.model.moe_ffn_hidden_size, 2048);
	ck_assert_uint_eq(cfg.model.shared_expert_ffn_hidden_size, 2048);
	ck_assert_uint_eq(cfg.model.experts_per_token, 8);
	ck_assert_uint_eq(cfg.model.router_groups, 8);
	ck_assert_uint_eq(cfg.model.router_group_topk, 4);
	ck_assert_uint_eq(cfg.model.q_lora_rank, 1536);
	ck_assert_uint_eq(cfg.model.kv_lora_rank, 512);
	ck_assert_uint_eq(cfg.model.qk_nope_head_dim, 128);
	ck_assert_uint_eq(cfg.model.qk_rope_head_dim, 64);
	ck_assert_uint_eq(cfg.model.v_head_dim, 128);
	ck_assert_uint_eq(cfg.model.mtp_layers, 0);
	ck_assert_int_eq(cfg.model.tie_word_embeddings, 0);
}
END_TEST

/* torchtitan runs one pipeline schedule per gradient-accumulation step
 * (trainer.py:856-902 at b5bcd76c), each of local_batch_size /
 * pipeline_parallel_microbatch_size microbatches: local 8 of 1 at pp 2 is
 * 8 a schedule, so 32 microbatches a step (global 128 over dp 4) are 4
 * schedules, 3 fills and drains more than the one schedule distcalc
 * prices; one schedule's global batch is 128 / 4 = 32. No warning where
 * the step is one schedule, or without pp. */
START_TEST(torchtitan_pipeline_schedules_a_step)
{
	/* torchtitan/trainer.py:856-902 at b5bcd76c: one pp_schedule.step()
	 * a gradient-accumulation step, over local_batch_size /
	 * pipeline_parallel_microbatch_size = 8 / 2 = 4 microbatches */
	ck_assert_int_eq(parse(DC_IMPORT_TORCHTITAN, "[training]\nlocal_batch_size = 8\nglobal_batch_size = 128\n"
						     "[parallelism]\npipeline_parallel_degree = 2\n"
						     "pipeline_parallel_microbatch_size = 2\n"
						     "[activation_checkpoint]\nmode = \"none\"\n"),
			 0);
	ck_assert_str_eq(get("parallel.pipeline_schedule_microbatches"), "4");
	ck_assert_str_eq(get("training.micro_batch_size"), "2");
	ck_assert_str_eq(get("training.global_batch_size"), "128");
	/* no pipeline: no schedule, the local batch one microbatch */
	ck_assert_int_eq(parse(DC_IMPORT_TORCHTITAN, "[training]\nlocal_batch_size = 8\nglobal_batch_size = 128\n"
						     "[activation_checkpoint]\nmode = \"none\"\n"),
			 0);
	ck_assert_str_eq(get("parallel.pipeline_schedule_microbatches"), "(unset)");
	ck_assert_str_eq(get("training.micro_batch_size"), "8");
}
END_TEST

/* An older torchtitan's layout in [experimental] (pipeline and context
 * parallelism, async TP) is refused naming its later home, where the rest
 * of the table is left out */
START_TEST(torchtitan_experimental_layout)
{
	ck_assert_int_eq(parse(DC_IMPORT_TORCHTITAN, "[experimental]\ncustom_import = \"x\"\n"
						     "context_parallel_degree = 2\n[activation_checkpoint]\nmode = \"none\"\n"),
			 -1);
	ck_assert_uint_eq(diag.count, 1);
	ck_assert_str_eq(diag.entries[0].text, "t:3: error: [experimental] context_parallel_degree: an older torchtitan's "
					       "[experimental] setting, which changes the layout: later torchtitans read it as "
					       "[parallelism] context_parallel_degree; give it there (docs/importers.md says "
					       "what distcalc maps of it)");
}
END_TEST

/* [model] hf_assets_path (torchtitan fd5a87fa on; job_config.py:81-86 at
 * 08b8b244f, the trainer's hf_assets_path at b5bcd76c, trainer.py:79-84)
 * names where the tokenizer and a Hugging Face checkpoint are read: it
 * maps to nothing, draws no diagnostic, and changes no mapped key */
START_TEST(torchtitan_hf_assets_path)
{
	ck_assert_int_eq(parse(DC_IMPORT_TORCHTITAN, "[model]\nname = \"llama3\"\nflavor = \"8B\"\n"
						     "hf_assets_path = \"./assets/hf/Llama-3.1-8B\"\n"
						     "[activation_checkpoint]\nmode = \"none\"\n"),
			 0);
	ck_assert_uint_eq(diag.count, 0);
	ck_assert_str_eq(get("model.hf_config"), "\"llama-3.1-8b\"");
	ck_assert_str_eq(get("training.recompute"), "\"none\"");
	/* a key torchtitan's [model] does not have is still refused */
	ck_assert_int_eq(parse(DC_IMPORT_TORCHTITAN, "[model]\nhf_asset_path = \"x\"\n"), -1);
	ck_assert_str_eq(diag.entries[diag.count - 1].text,
			 "t:2: error: [model] hf_asset_path: not a torchtitan setting distcalc maps or knows to change "
			 "nothing it computes (docs/importers.md lists both); did you mean hf_assets_path?");
}
END_TEST

START_TEST(toml_errors)
{
	static const struct {
		const char *text, *error;
	} cases[] = {
		{"[model]\nname = \"llama3\"\nname = \"x\"\n", "t:3: error: 'name' given twice in [model] (line 2)"},
		{"[model]\n[model]\n", "t:2: error: table [model] defined twice"},
		{"[[model]]\n", "t:1: error: arrays of tables ([[...]]) are not part of the TOML distcalc reads"},
		{"[training]\nseq_len = 0x10\n", "t:2: error: '0x10': hex, octal, binary, inf and nan are not part of the TOML distcalc reads"},
		{"[job]\nwhen = 1979-05-27\n", "t:2: error: dates and times are not part of the TOML distcalc reads"},
		{"[job]\ns = \"\"\"x\"\"\"\n", "t:2: error: multi-line strings are not part of the TOML distcalc reads"},
		{"[job]\ns = \"open\n", "t:2: error: a string that does not end on its line"},
		{"[job]\na.b = 1\n", "t:2: error: dotted keys are not part of the TOML distcalc reads; use a [table]"},
		{"[job]\nx = 1 2\n", "t:2: error: unexpected '2' after the value"},
		{"[job]\nx = [1, 2\ny = 3\n", "t:3: error: expected ',' or ']' in an array"},
		{"[job]\nx = bare\n", "t:2: error: 'bare': a string needs quotes"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		ck_assert_int_eq(parse(DC_IMPORT_TORCHTITAN, cases[i].text), -1);
		ck_assert_uint_ge(diag.count, 1);
		ck_assert_str_eq(diag.entries[0].text, cases[i].error);
	}
}
END_TEST

/* DeepSpeed: stage 1/2/3 shard optimizer states, + gradients, + parameters
 * (ZeRO's P_os, P_os+g, P_os+g+p); offload to the cpu */
START_TEST(deepspeed_mapping)
{
	ck_assert_int_eq(parse(DC_IMPORT_DEEPSPEED, "{\"zero_optimization\": {\"stage\": 2, \"offload_optimizer\": "
						    "{\"device\": \"cpu\"}}, \"bf16\": {\"enabled\": true},"
						    " \"train_micro_batch_size_per_gpu\": 4, \"gradient_accumulation_steps\": 8}"),
			 0);
	ck_assert_str_eq(get("parallel.sharding"), "\"zero2\"");
	ck_assert_str_eq(get("parallel.offload"), "\"optimizer\"");
	ck_assert_str_eq(get("precision.preset"), "\"course\"");
	ck_assert_str_eq(get("training.micro_batch_size"), "4");
	ck_assert_str_eq(get("training.grad_accum_steps"), "8");
	ck_assert_int_eq(parse(DC_IMPORT_DEEPSPEED, "{\"train_micro_batch_size_per_gpu\": 1, \"zero_optimization\": {\"stage\": 2, \"offload_param\": "
						    "{\"device\": \"cpu\"}}}"),
			 -1);
	ck_assert_str_eq(diag.entries[0].text, "t:1: error: 'offload_param': needs ZeRO stage 3, as DeepSpeed does");
	ck_assert_int_eq(parse(DC_IMPORT_DEEPSPEED, "{\"train_micro_batch_size_per_gpu\": 1, \n\"fp16\": {\"enabled\": true},\n\"bf16\": {\"enabled\": true}\n}"), -1);
	ck_assert_str_eq(diag.entries[0].text, "t:2: error: 'fp16': enabled together with bf16: give one");
}
END_TEST

/* The FP8 recipe is never dropped. Megatron-LM's --fp8-recipe
 * (transformer_config.py:594) goes to Transformer Engine as
 * (fp8_utils.py:771-792): delayed DelayedScaling, tensorwise
 * Float8CurrentScaling (distcalc's "current"), mxfp8 MXFP8BlockScaling;
 * blockwise is refused. torchtitan's float8 converter is torchao's
 * tensorwise dynamic scaling unless [float8] recipe_name says otherwise,
 * and converts the LM head ("output") unless filter_fqns names it
 * (components/float8.py, _module_filter_fn). */
START_TEST(fp8_recipes)
{
	static const char *const tt = "[model]\nname = \"llama3\"\nflavor = \"8B\"\nconverters = [\"float8\"]\n[activation_checkpoint]\nmode = \"none\"\n";
	char toml[512];
	ck_assert_int_eq(parse(DC_IMPORT_MEGATRON, "--bf16 --fp8-format hybrid --fp8-recipe tensorwise --position-embedding-type rope"), 0);
	ck_assert_str_eq(get("precision.fp8_recipe"), "\"current\"");
	ck_assert_str_eq(get("precision.fp8_lm_head"), "(unset)");
	ck_assert_int_eq(parse(DC_IMPORT_MEGATRON, "--bf16 --fp8-format hybrid --fp8-recipe mxfp8 --position-embedding-type rope"), 0);
	ck_assert_str_eq(get("precision.fp8_recipe"), "\"mxfp8\"");
	ck_assert_int_eq(parse(DC_IMPORT_MEGATRON, "--bf16 --fp8-format hybrid --fp8-recipe delayed --position-embedding-type rope"), 0);
	ck_assert_str_eq(get("precision.fp8_recipe"), "\"delayed\"");
	ck_assert_int_eq(parse(DC_IMPORT_MEGATRON, "--bf16 --fp8-format hybrid --position-embedding-type rope\n--fp8-recipe blockwise"), -1);
	ck_assert_str_eq(diag.entries[0].text, "t:2: error: '--fp8-recipe': 'blockwise' is not a recipe distcalc prices (it "
					       "prices delayed, tensorwise as Transformer Engine's current scaling, and mxfp8)");
	/* torchtitan: no recipe_name, no filter_fqns: tensorwise, the head converted */
	ck_assert_int_eq(parse(DC_IMPORT_TORCHTITAN, tt), 0);
	ck_assert_str_eq(get("precision.fp8_recipe"), "\"current\"");
	ck_assert_str_eq(get("precision.fp8_lm_head"), "true");
	snprintf(toml, sizeof(toml), "%s[float8]\nrecipe_name = \"rowwise\"\nfilter_fqns = [\"output\"]\n", tt);
	ck_assert_int_eq(parse(DC_IMPORT_TORCHTITAN, toml), 0);
	ck_assert_str_eq(get("precision.fp8_recipe"), "\"rowwise\"");
	ck_assert_str_eq(get("precision.fp8_lm_head"), "(unset)");
	/* "out" is a substring of "output": filtered too */
	snprintf(toml, sizeof(toml), "%s[float8]\nrecipe_name = \"tensorwise\"\nfilter_fqns = [\"wq\", \"out\"]\n", tt);
	ck_assert_int_eq(parse(DC_IMPORT_TORCHTITAN, toml), 0);
	ck_assert_str_eq(get("precision.fp8_recipe"), "\"current\"");
	ck_assert_str_eq(get("precision.fp8_lm_head"), "(unset)");
	snprintf(toml, sizeof(toml), "%s[float8]\nfilter_fqns = [\"attention.wq\"]\n", tt);
	ck_assert_int_eq(parse(DC_IMPORT_TORCHTITAN, toml), 0);
	ck_assert_str_eq(get("precision.fp8_lm_head"), "true");
	snprintf(toml, sizeof(toml), "%s[float8]\nrecipe_name = \"delayed\"\n", tt);
	ck_assert_int_eq(parse(DC_IMPORT_TORCHTITAN, toml), -1);
	ck_assert_str_eq(diag.entries[0].text, "t:8: error: [float8] recipe_name: \"delayed\" is not a torchao float8 "
					       "recipe torchtitan takes (tensorwise, rowwise, rowwise_with_gw_hp)");
}
END_TEST

/* torchtitan's MX converter, converters = ["mx"] (job_config.py:594-618,
 * components/quantization/mx.py:27-112 at 08b8b244f): torchao's recipe
 * names (pytorch/ao c993d64d mx_formats/config.py:46-51) mxfp8_cublas (the
 * default), mxfp8_cublas_rceil and torchtitan's earlier "mxfp8" are the
 * 1x32 block-scaled FP8 GEMM, distcalc's mxfp8; emulated and FP4 recipes
 * are refused; filter_fqns defaults to ["output"], so the head stays BF16
 * unless the list names no substring of "output" */
START_TEST(torchtitan_mx)
{
	static const char *const tt = "[model]\nname = \"llama3\"\nflavor = \"8B\"\nconverters = [\"mx\"]\n"
				      "[activation_checkpoint]\nmode = \"none\"\n";
	char toml[512];
	size_t warned = 0;
	/* no [mx] table: mxfp8_cublas, the head filtered by the default */
	ck_assert_int_eq(parse(DC_IMPORT_TORCHTITAN, tt), 0);
	ck_assert_str_eq(get("precision.compute"), "\"fp8\"");
	ck_assert_str_eq(get("precision.fp8_recipe"), "\"mxfp8\"");
	ck_assert_str_eq(get("precision.fp8_lm_head"), "(unset)");
	/* one warning: torchao's two casts per input against TE's one,
	 * 2 x (2 + 1 + 1/32) = 6.0625 B against 2 + 1 + 1 + 2/32 = 4.0625 B */
	for (size_t i = 0; i < diag.count; i++)
		warned += diag.entries[i].severity == DC_SEV_WARNING && strstr(diag.entries[i].text, "t:4: [model] converters: ") &&
			  strstr(diag.entries[i].text, "(4.0625 B an element)") && strstr(diag.entries[i].text, "6.0625 B");
	ck_assert_uint_eq(diag.count, 1);
	ck_assert_uint_eq(warned, 1);
	/* rceil rounds the E8M0 scales another way: the same GEMM; a filter
	 * that names no part of "output" converts the head */
	snprintf(toml, sizeof(toml),
		 "%s[mx]\nrecipe_name = \"mxfp8_cublas_rceil\"\nfilter_fqns = [\"attention.wq\"]\n"
		 "mxfp8_dim1_cast_kernel_choice = \"cuda\"\nmoe_fqns_prototype = []\n",
		 tt);
	ck_assert_int_eq(parse(DC_IMPORT_TORCHTITAN, toml), 0);
	ck_assert_str_eq(get("precision.fp8_recipe"), "\"mxfp8\"");
	ck_assert_str_eq(get("precision.fp8_lm_head"), "true");
	/* torchtitan's name before 48d8dcde, read as mxfp8_cublas */
	snprintf(toml, sizeof(toml), "%s[mx]\nrecipe_name = \"mxfp8\"\nfilter_fqns = [\"output\"]\n", tt);
	ck_assert_int_eq(parse(DC_IMPORT_TORCHTITAN, toml), 0);
	ck_assert_str_eq(get("precision.fp8_recipe"), "\"mxfp8\"");
	ck_assert_str_eq(get("precision.fp8_lm_head"), "(unset)");
	/* what distcalc cannot price: the key, the value and why */
	snprintf(toml, sizeof(toml), "%s[mx]\nrecipe_name = \"mxfp8_emulated\"\n", tt);
	ck_assert_int_eq(parse(DC_IMPORT_TORCHTITAN, toml), -1);
	ck_assert_str_eq(diag.entries[0].text,
			 "t:8: error: [mx] recipe_name: \"mxfp8_emulated\" dequantizes the MX tensors and multiplies in high "
			 "precision (torchao mx_formats/config.py:184-185), a GEMM distcalc does not price; give "
			 "\"mxfp8_cublas\"");
	snprintf(toml, sizeof(toml), "%s[mx]\nrecipe_name = \"mxfp4_cutlass\"\n", tt);
	ck_assert_int_eq(parse(DC_IMPORT_TORCHTITAN, toml), -1);
	ck_assert_str_eq(diag.entries[0].text,
			 "t:8: error: [mx] recipe_name: \"mxfp4_cutlass\" casts to FP4 (torchao mx_formats/config.py:195-201), "
			 "and distcalc prices FP8 and BF16 GEMMs only; give \"mxfp8_cublas\"");
	snprintf(toml, sizeof(toml), "%s[mx]\nrecipe_name = \"nvfp4\"\n", tt);
	ck_assert_int_eq(parse(DC_IMPORT_TORCHTITAN, toml), -1);
	ck_assert_str_eq(diag.entries[0].text,
			 "t:8: error: [mx] recipe_name: \"nvfp4\" is not a torchao MX recipe distcalc prices (mxfp8_cublas, "
			 "mxfp8_cublas_rceil, and mxfp8, torchtitan's earlier name of mxfp8_cublas)");
	/* two converters: not mapped */
	ck_assert_int_eq(parse(DC_IMPORT_TORCHTITAN, "[model]\nconverters = [\"float8\", \"mx\"]\n"), -1);
	ck_assert_str_eq(diag.entries[0].text,
			 "t:2: error: [model] converters: only [\"float8\"] or [\"mx\"] is mapped (FP8 matmuls)");
	/* [mx] without the converter changes nothing */
	ck_assert_int_eq(parse(DC_IMPORT_TORCHTITAN, "[model]\nname = \"llama3\"\nflavor = \"8B\"\n"
						     "[activation_checkpoint]\nmode = \"none\"\n[mx]\nrecipe_name = \"mxfp4_cutlass\"\n"),
			 0);
	ck_assert_str_eq(get("precision.compute"), "(unset)");
	ck_assert_uint_eq(diag.count, 0);
	/* tp 2 with the model compiled: torchtitan f3e2a75e to 2b976ee8
	 * asserts; a warning naming the converters line */
	snprintf(toml, sizeof(toml), "%s[parallelism]\ntensor_parallel_degree = 2\n[compile]\nenable = true\n", tt);
	ck_assert_int_eq(parse(DC_IMPORT_TORCHTITAN, toml), 0);
	ck_assert_uint_eq(diag.count, 2);
	ck_assert_str_eq(diag.entries[1].text,
			 "t:4: [model] converters: with tensor_parallel_degree 2 and the model compiled: torchtitan from "
			 "f3e2a75e to 2b976ee8 refuses it (\"TP not yet supported with torch.compile for mxfp8\", "
			 "components/quantization/mx.py:54-61 at 08b8b244f); priced as given");
}
END_TEST

/* torchtitan 8a2686c4a (2025-09-30) to 238fa9953, the last main with TOML
 * configs: the converters are "quantize.linear.float8", "quantize.linear.mx",
 * "quantize.grouped_mm.float8" and "quantize.grouped_mm.mx", each reading
 * its [quantize.*] table (238fa9953 torchtitan/config/job_config.py:731-835;
 * components/quantization/float8.py:238-239, mx.py:171-172), and every
 * shipped TOML has [quantize.linear.float8] with the converter commented
 * out. The upstream files are tests/inputs/import/torchtitan_238fa9953_*
 * (README.md there). */
START_TEST(torchtitan_quantize_tables)
{
	char *text = input("torchtitan_238fa9953_llama3_8b.toml"), *p;
	char toml[4096];
	/* llama3_8b.toml: "# converters" commented out, so the
	 * [quantize.linear.float8] keys of lines 62-64 change nothing (BF16);
	 * the rest read by hand: flavor 8B -> llama-3.1-8b, seq_len 8192,
	 * local_batch_size 1 and no pp -> micro batch 1, no accumulation;
	 * shard degree -1 -> fsdp; mode selective + option "op" -> op */
	ck_assert_int_eq(parse(DC_IMPORT_TORCHTITAN, text), 0);
	ck_assert_uint_eq(diag.count, 0);
	ck_assert_str_eq(get("model.hf_config"), "\"llama-3.1-8b\"");
	ck_assert_str_eq(get("model.seq_length"), "8192");
	ck_assert_str_eq(get("training.micro_batch_size"), "1");
	ck_assert_str_eq(get("training.grad_accum_steps"), "1");
	ck_assert_str_eq(get("parallel.sharding"), "\"fsdp\"");
	ck_assert_str_eq(get("training.recompute"), "\"op\"");
	ck_assert_str_eq(get("precision.compute"), "(unset)");
	ck_assert_str_eq(get("precision.fp8_recipe"), "(unset)");
	free(text);

	/* llama3_405b.toml at 238fa9953 keeps converters = ["float8"] (line
	 * 21), a name that torchtitan no longer registers (a KeyError), beside
	 * [quantize.linear.float8] (keys from line 62): refused, naming both */
	text = input("torchtitan_238fa9953_llama3_405b.toml");
	ck_assert_int_eq(parse(DC_IMPORT_TORCHTITAN, text), -1);
	ck_assert_str_eq(diag.entries[0].text,
			 "t:21: error: [model] converters: \"float8\" reads its settings from [float8], but this file gives "
			 "them in [quantize.linear.float8] (line 62), which torchtitan from 8a2686c4a reads for the "
			 "converter \"quantize.linear.float8\" and registers no \"float8\" (components/quantization/"
			 "float8.py:238 at 238fa9953): give converters = [\"quantize.linear.float8\"]");
	/* the same file with the converter's name: float8 on, no recipe_name
	 * -> tensorwise, distcalc's "current"; filter_fqns ["output"] keeps the
	 * head in BF16; tp 8 with async TP and the model compiled -> overlap.tp;
	 * enable_fsdp_float8_all_gather true (line 62) is warned, not priced */
	p = strstr(text, "converters = [\"float8\"]");
	ck_assert_ptr_nonnull(p);
	snprintf(toml, sizeof(toml), "%.*sconverters = [\"quantize.linear.float8\"]%s", (int)(p - text), text,
		 p + strlen("converters = [\"float8\"]"));
	ck_assert_int_eq(parse(DC_IMPORT_TORCHTITAN, toml), 0);
	ck_assert_str_eq(get("precision.compute"), "\"fp8\"");
	ck_assert_str_eq(get("precision.fp8_recipe"), "\"current\"");
	ck_assert_str_eq(get("precision.fp8_lm_head"), "(unset)");
	ck_assert_str_eq(get("parallel.tp"), "8");
	ck_assert_str_eq(get("overlap.tp"), "true");
	ck_assert_str_eq(get("training.recompute"), "\"full\"");
	ck_assert_uint_eq(diag.count, 1);
	ck_assert_str_eq(diag.entries[0].text, "t:62: [quantize.linear.float8] enable_fsdp_float8_all_gather: not "
					       "modelled: distcalc gathers the parameters at precision.working_bytes");
	free(text);

	/* deepseek_v3_16b.toml (MoE): [quantize.linear.float8] and
	 * [quantize.grouped_mm.float8] with no converter: BF16. By hand:
	 * expert_parallel_degree 8 -> ep 8; local_batch_size 4 -> micro 4;
	 * compile of the loss alone -> training.compile unset; the flavor has
	 * no catalogue entry (the model is --model's); Interleaved1F1B at pp
	 * 1 is the one warning */
	text = input("torchtitan_238fa9953_deepseek_v3_16b.toml");
	ck_assert_int_eq(parse(DC_IMPORT_TORCHTITAN, text), 0);
	ck_assert_str_eq(get("parallel.ep"), "8");
	ck_assert_str_eq(get("training.micro_batch_size"), "4");
	ck_assert_str_eq(get("training.compile"), "(unset)");
	ck_assert_str_eq(get("precision.compute"), "(unset)");
	ck_assert_uint_eq(diag.count, 1);
	ck_assert_uint_eq(warnings_with("t:51: [parallelism] pipeline_parallel_schedule: changes nothing"), 1);
	ck_assert_ptr_nonnull(strstr(imp.model_unresolved, "\"deepseek_v3\" flavor \"16B\""));
	free(text);

#define TT "[model]\nname = \"llama3\"\nflavor = \"8B\"\n"
#define AC "[activation_checkpoint]\nmode = \"none\"\n"
	/* linear and grouped-GEMM float8 on, experts named, rowwise: every
	 * linear layer, the experts' too, in FP8 rowwise: precision.compute
	 * fp8 as distcalc prices it, nothing warned */
	ck_assert_int_eq(parse(DC_IMPORT_TORCHTITAN, TT "converters = [\"quantize.linear.float8\", "
						     "\"quantize.grouped_mm.float8\"]\n" AC "[quantize.linear.float8]\n"
						     "recipe_name = \"rowwise\"\nfilter_fqns = [\"output\"]\n"
						     "[quantize.grouped_mm.float8]\nfqns = [\"experts\"]\n"),
			 0);
	ck_assert_str_eq(get("precision.compute"), "\"fp8\"");
	ck_assert_str_eq(get("precision.fp8_recipe"), "\"rowwise\"");
	ck_assert_str_eq(get("precision.fp8_lm_head"), "(unset)");
	ck_assert_uint_eq(diag.count, 0);
	/* the linear converter's default, tensorwise, against the experts'
	 * rowwise (float8.py:205-231): a warning */
	ck_assert_int_eq(parse(DC_IMPORT_TORCHTITAN, TT "converters = [\"quantize.linear.float8\", "
						     "\"quantize.grouped_mm.float8\"]\n" AC "[quantize.grouped_mm.float8]\n"
						     "fqns = [\"experts\"]\n"),
			 0);
	ck_assert_str_eq(get("precision.fp8_recipe"), "\"current\"");
	ck_assert_str_eq(get("precision.fp8_lm_head"), "true"); /* no filter_fqns: [] converts "output" */
	ck_assert_uint_eq(diag.count, 1);
	ck_assert_uint_eq(warnings_with("t:4: [model] converters: quantize.grouped_mm.float8 scales the experts'"), 1);
	/* the grouped-GEMM converter alone: experts FP8, the rest BF16, not a
	 * distcalc precision: BF16, warned */
	ck_assert_int_eq(parse(DC_IMPORT_TORCHTITAN, TT "converters = [\"quantize.grouped_mm.mx\"]\n" AC
						     "[quantize.grouped_mm.mx]\nfqns = [\"experts\"]\n"),
			 0);
	ck_assert_str_eq(get("precision.compute"), "(unset)");
	ck_assert_uint_eq(warnings_with("quantize.grouped_mm.mx alone converts the MoE experts' grouped GEMMs"), 1);
	/* fqns empty (the default []): it converts nothing; the linear one
	 * alone gives FP8, and the warning names the converters line */
	ck_assert_int_eq(parse(DC_IMPORT_TORCHTITAN, TT "converters = [\"quantize.linear.float8\", "
						     "\"quantize.grouped_mm.float8\"]\n" AC),
			 0);
	ck_assert_str_eq(get("precision.compute"), "\"fp8\"");
	ck_assert_uint_eq(diag.count, 1);
	ck_assert_uint_eq(warnings_with("t:4: [model] converters: [quantize.grouped_mm.float8] fqns is empty (its "
					"default): the converter converts no module"),
			  1);
	/* the linear mx converter: as [mx], from its own table */
	ck_assert_int_eq(parse(DC_IMPORT_TORCHTITAN, TT "converters = [\"quantize.linear.mx\"]\n" AC
						     "[quantize.linear.mx]\nrecipe_name = \"mxfp8_cublas_rceil\"\n"
						     "filter_fqns = [\"attention.wq\"]\nmxfp8_dim1_cast_kernel_choice = \"cuda\"\n"),
			 0);
	ck_assert_str_eq(get("precision.fp8_recipe"), "\"mxfp8\"");
	ck_assert_str_eq(get("precision.fp8_lm_head"), "true");
	/* what torchtitan refuses, refused so */
	ck_assert_int_eq(parse(DC_IMPORT_TORCHTITAN, TT "converters = [\"quantize.linear.float8\", "
						     "\"quantize.grouped_mm.mx\"]\n" AC),
			 -1);
	ck_assert_ptr_nonnull(strstr(diag.entries[0].text, "t:4: error: [model] converters: combines float8 and mx "
							   "converters, which torchtitan refuses"));
	ck_assert_int_eq(parse(DC_IMPORT_TORCHTITAN, TT "converters = [\"quantize.linear.float8\", "
						     "\"quantize.grouped_mm.float8\"]\n" AC "[quantize.grouped_mm.float8]\n"
						     "fqns = [\"experts\"]\n[parallelism]\npipeline_parallel_degree = 2\n"),
			 -1);
	ck_assert_uint_eq(diags_with("t:4: error: [model] converters: quantize.grouped_mm.float8 with "
				     "pipeline_parallel_degree 2 and context_parallel_degree 1: torchtitan asserts both are 1"),
			  1);
	ck_assert_int_eq(parse(DC_IMPORT_TORCHTITAN, TT "converters = [\"quantize.linear.mx\"]\n" AC
						     "[parallelism]\ntensor_parallel_degree = 2\n[compile]\nenable = true\n"),
			 -1);
	ck_assert_uint_eq(diags_with("t:4: error: [model] converters: quantize.linear.mx with tensor_parallel_degree 2 "
				     "and the model compiled"),
			  1);
	ck_assert_int_eq(parse(DC_IMPORT_TORCHTITAN, TT "converters = [\"quantize.linear.float8\"]\n" AC
						     "[quantize.linear.float8]\nemulate = true\n"),
			 -1);
	ck_assert_uint_eq(diags_with("t:8: error: [quantize.linear.float8] emulate: true emulates the FP8 GEMMs in high "
				     "precision"),
			  1);
	/* the new name with the old table, and 5b5d4685's short-lived names */
	ck_assert_int_eq(parse(DC_IMPORT_TORCHTITAN, TT "converters = [\"quantize.linear.float8\"]\n" AC
						     "[float8]\nfilter_fqns = [\"output\"]\n"),
			 -1);
	ck_assert_str_eq(diag.entries[0].text,
			 "t:4: error: [model] converters: \"quantize.linear.float8\" reads its settings from "
			 "[quantize.linear.float8], but this file gives them in [float8] (line 8), the table of "
			 "torchtitan's converter \"float8\" before 8a2686c4a: move them to [quantize.linear.float8]");
	ck_assert_int_eq(parse(DC_IMPORT_TORCHTITAN, TT "converters = [\"quantize.dense.float8\"]\n" AC), -1);
	ck_assert_ptr_nonnull(strstr(diag.entries[0].text, "t:4: error: [model] converters: \"quantize.dense.float8\" "
							   "is torchtitan 5b5d4685's name, which 8a2686c4a renamed"));
	/* "quantize.moe.mx" is 15 bytes, as long as the dense prefix alone
	 * (a review: it drew the generic refusal) */
	ck_assert_int_eq(parse(DC_IMPORT_TORCHTITAN, TT "converters = [\"quantize.moe.mx\"]\n" AC), -1);
	ck_assert_ptr_nonnull(strstr(diag.entries[0].text, "t:4: error: [model] converters: \"quantize.moe.mx\" "
							   "is torchtitan 5b5d4685's name, which 8a2686c4a renamed"));
	ck_assert_int_eq(parse(DC_IMPORT_TORCHTITAN, TT "converters = [\"float8\", \"quantize.grouped_mm.float8\"]\n" AC),
			 -1);
	ck_assert_ptr_nonnull(strstr(diag.entries[0].text, "mixes the converter names before torchtitan 8a2686c4a"));
#undef TT
#undef AC
}
END_TEST

/* The virtual pipeline as Megatron-LM d98e8a64 derives it (megatron/
 * training/arguments.py:927-980): --num-virtual-stages-per-pipeline-rank
 * is the chunks a rank; --num-layers-per-virtual-pipeline-stage n gives
 * (L + 1 for each --account-for-*-in-pipeline-split) / pp / n; n beside
 * --decoder-first/last-pipeline-num-layers, or beside the other, is
 * refused as Megatron asserts; --virtual-pipeline-model-parallel-size is
 * no argument of its parser. */
START_TEST(megatron_virtual_pipeline)
{
#define B "--bf16 --position-embedding-type rope --pipeline-model-parallel-size 4 "
	/* the chunks a rank, as given */
	ck_assert_int_eq(parse(DC_IMPORT_MEGATRON, B "--num-layers 32 --num-virtual-stages-per-pipeline-rank 2"), 0);
	ck_assert_str_eq(get("parallel.virtual_pipeline"), "2");
	/* 32 layers / pp 4 = 8 a stage; 8 / n 2 = 4 chunks */
	ck_assert_int_eq(parse(DC_IMPORT_MEGATRON, B "--num-layers 32 --num-layers-per-virtual-pipeline-stage 2"), 0);
	ck_assert_str_eq(get("parallel.virtual_pipeline"), "4");
	/* 30 layers + 1 (embedding) + 1 (loss) = 32; / pp 4 = 8; / n 2 = 4
	 * (before, 30 / 4 was refused as not whole) */
	ck_assert_int_eq(parse(DC_IMPORT_MEGATRON, B "--num-layers 30 --account-for-embedding-in-pipeline-split "
						 "--account-for-loss-in-pipeline-split --num-layers-per-virtual-pipeline-stage 2"),
			 0);
	ck_assert_str_eq(get("parallel.virtual_pipeline"), "4");
	ck_assert_str_eq(get("parallel.account_for_loss"), "true");
	/* 31 + 1 (embedding) = 32; / 4 = 8; / 4 = 2 */
	ck_assert_int_eq(parse(DC_IMPORT_MEGATRON, B "--num-layers 31 --account-for-embedding-in-pipeline-split "
						 "--num-layers-per-virtual-pipeline-stage 4"),
			 0);
	ck_assert_str_eq(get("parallel.virtual_pipeline"), "2");
	/* 30 + 2 = 32; / 4 = 8, which 3 does not divide */
	ck_assert_int_eq(parse(DC_IMPORT_MEGATRON, B "--num-layers 30 --account-for-embedding-in-pipeline-split "
						 "--account-for-loss-in-pipeline-split --num-layers-per-virtual-pipeline-stage 3"),
			 -1);
	ck_assert_str_eq(diag.entries[0].text,
			 "t:1: error: '--num-layers-per-virtual-pipeline-stage': 3 must divide (--num-layers 30 + 1 + 1, the "
			 "embedding and the loss) / --pipeline-model-parallel-size 4, a whole number, as Megatron-LM asserts "
			 "(megatron/training/arguments.py:968-973 at d98e8a64)");
	/* uneven first/last stages with n: Megatron asserts */
	ck_assert_int_eq(parse(DC_IMPORT_MEGATRON, B "--num-layers 32 --decoder-last-pipeline-num-layers 12\n"
						 "--num-layers-per-virtual-pipeline-stage 4"),
			 -1);
	ck_assert_str_eq(diag.entries[0].text,
			 "t:2: error: '--num-layers-per-virtual-pipeline-stage': with '--decoder-last-pipeline-num-layers' on "
			 "line 1: Megatron-LM asserts \"please use --num-virtual-stages-per-pipeline-rank to specify virtual "
			 "pipeline parallel degree when enable uneven pipeline parallelism\" (megatron/training/"
			 "arguments.py:954-956 at d98e8a64); give that instead");
	/* both: no more than one */
	ck_assert_int_eq(parse(DC_IMPORT_MEGATRON, B "--num-layers 32 --num-virtual-stages-per-pipeline-rank 2\n"
						 "--num-layers-per-virtual-pipeline-stage 4"),
			 -1);
	ck_assert_ptr_nonnull(strstr(diag.entries[0].text, "t:2: error: '--num-layers-per-virtual-pipeline-stage': with "
							   "--num-virtual-stages-per-pipeline-rank on line 1: Megatron-LM allows "
							   "no more than one of them"));
	/* the name Megatron-LM's parser does not have */
	ck_assert_int_eq(parse(DC_IMPORT_MEGATRON, B "--num-layers 32\n--virtual-pipeline-model-parallel-size 4"), -1);
	ck_assert_str_eq(diag.entries[0].text,
			 "t:2: error: '--virtual-pipeline-model-parallel-size': not an argument of Megatron-LM d98e8a64, whose "
			 "parser (megatron/training/arguments.py:119-132, allow_abbrev=False) rejects it; give "
			 "--num-virtual-stages-per-pipeline-rank 4 (arguments.py:3116), the model chunks a rank");
	/* --no-overlap-p2p-communication: read; interleaved at pp 4 it warns
	 * (the blocking sends are not priced), at pp 2 Megatron-LM asserts
	 * (arguments.py:1005-1009), and without a virtual pipeline it changes
	 * nothing (Megatron turns the overlap off itself, :1010-1013) */
	ck_assert_int_eq(parse(DC_IMPORT_MEGATRON, B "--num-layers 32 --num-virtual-stages-per-pipeline-rank 2 "
						 "--no-overlap-p2p-communication"),
			 0);
	ck_assert_uint_eq(warnings_with("'--no-overlap-p2p-communication': the interleaved schedule's sends then "
					"block"),
			  1);
	ck_assert_int_eq(parse(DC_IMPORT_MEGATRON, "--bf16 --position-embedding-type rope --num-layers 32 "
						 "--pipeline-model-parallel-size 2 --num-virtual-stages-per-pipeline-rank 2 "
						 "--no-overlap-p2p-communication"),
			 -1);
	ck_assert_str_eq(diag.entries[0].text,
			 "t:1: error: '--no-overlap-p2p-communication': with a virtual pipeline at "
			 "--pipeline-model-parallel-size 2 Megatron-LM asserts \"pipeline-model-parallel size should be "
			 "greater than 2\" when p2p communication overlap is disabled (megatron/training/arguments.py:"
			 "1005-1009 at d98e8a64): remove it, or give pp 3 or more");
	ck_assert_int_eq(parse(DC_IMPORT_MEGATRON, B "--num-layers 32 --no-overlap-p2p-communication"), 0);
	ck_assert_uint_eq(diags_with("--no-overlap-p2p-communication"), 0);
#undef B
}
END_TEST

/* A `case` pattern list is what a shell matches, never a command: its
 * words ("--foo)", "-h|--help)", "(--data)") are no arguments (before,
 * upstream examples/gptoss/02_train.sh at d98e8a64 was refused for its
 * own option parser's --checkpoint-path, --tokenizer, --data, ... and a
 * pattern spelled as a mapped argument was taken as one). A branch's
 * commands are read as before, with the block's warning. */
START_TEST(megatron_case_patterns)
{
	static const char *const script =
		"while [[ $# -gt 0 ]]; do\n"                                 /* 1 */
		"  case $1 in\n"                                              /* 2 */
		"    --checkpoint-path)\n"                                    /* 3 */
		"      CKPT=\"$2\"; shift 2 ;;\n"                             /* 4 */
		"    -h|--help) echo usage; exit 0 ;;\n"                      /* 5 */
		"    (--tensor-model-parallel-size) shift ;&\n"              /* 6 */
		"    --data) case $2 in --inner) shift ;; esac ;;&\n"       /* 7 */
		"    --bf16-branch)\n"                                        /* 8 */
		"      EXTRA=--sequence-parallel ;;\n"                        /* 9 */
		"    *) shift ;;\n"                                           /* 10 */
		"  esac\n"                                                    /* 11 */
		"done\n"                                                      /* 12 */
		"torchrun pretrain_gpt.py --bf16 --position-embedding-type rope --tensor-model-parallel-size 2\n";
	ck_assert_int_eq(parse(DC_IMPORT_MEGATRON, script), 0);
	/* tp from line 13 alone: the pattern on line 6 gave none (a second
	 * value, or a duplicate, would show) */
	ck_assert_str_eq(get("parallel.tp"), "2");
	/* the branch's command on line 9 is read, with the case's warning */
	ck_assert_str_eq(get("parallel.sequence_parallel"), "true");
	ck_assert_uint_eq(diags_with("t:9: '--sequence-parallel': inside the shell 'case' of line 2"), 1);
	/* nothing refused: no pattern word was taken for an argument */
	for (size_t i = 0; i < diag.count; i++)
		ck_assert_msg(diag.entries[i].severity == DC_SEV_WARNING, "%s", diag.entries[i].text);
	/* a pattern named as a mapped argument on its own: not taken */
	ck_assert_int_eq(parse(DC_IMPORT_MEGATRON, "case $1 in --pipeline-model-parallel-size) PP=$2 ;; esac\n"
						   "--bf16 --position-embedding-type rope\n"),
			 0);
	ck_assert_str_eq(get("parallel.pp"), "(unset)");
}
END_TEST

/* A '\' with blanks after it at a line's end escapes a space: bash ends
 * the command at the newline (the launch gets a stray ' ' and runs
 * without the next line's arguments, which run as a failing command of
 * their own). Taken as a comment that ends a continued command is: not
 * taken, with a warning naming both lines (before, taken silently). */
START_TEST(megatron_backslash_space)
{
	ck_assert_int_eq(parse(DC_IMPORT_MEGATRON, "torchrun pretrain_gpt.py --bf16 --position-embedding-type rope \\\n"
						   "  --tensor-model-parallel-size 2 \\ \n"
						   "  --sequence-parallel\n"),
			 0);
	ck_assert_str_eq(get("parallel.tp"), "2");
	ck_assert_str_eq(get("parallel.sequence_parallel"), "(unset)");
	ck_assert_uint_eq(diag.count, 1);
	ck_assert_str_eq(diag.entries[0].text,
			 "t:3: '--sequence-parallel': the '\\' at the end of line 2 has blanks after it, so it escapes a space "
			 "instead of continuing the command: a shell ends the command there and runs this line as a command "
			 "of its own, which fails, and the launch runs without its arguments: not taken (delete the blanks "
			 "after the '\\' to pass them)");
	/* a '\' then a space mid-line is a word's escaped space, and inside
	 * an array's parentheses a line's end ends nothing: both taken */
	ck_assert_int_eq(parse(DC_IMPORT_MEGATRON, "A=(--bf16 --position-embedding-type rope \\ \n"
						   "  --sequence-parallel --tensor-model-parallel-size 2)\n"),
			 0);
	ck_assert_str_eq(get("parallel.sequence_parallel"), "true");
	ck_assert_uint_eq(diag.count, 0);
}
END_TEST

/* A prefix assignment (TP=2 torchrun ... ${TP:-8}) is no value of its own
 * command's words: bash expands them first and puts TP in the command's
 * environment alone (bash -c 'TP=2 echo ${TP:-8}' prints 8), and no later
 * command sees it either. Before, tp 2 was taken silently. */
START_TEST(megatron_prefix_assignment)
{
	/* ${TP:-8} with the prefix TP=2: the default, 8, and a warning */
	ck_assert_int_eq(parse(DC_IMPORT_MEGATRON, "TP=2 torchrun pretrain_gpt.py --bf16 --position-embedding-type rope "
						   "--tensor-model-parallel-size ${TP:-8}\n"),
			 0);
	ck_assert_str_eq(get("parallel.tp"), "8");
	ck_assert_uint_eq(diags_with("t:1: '--tensor-model-parallel-size': its value '8' is not TP=2 of line 1: that "
				     "assignment prefixes a command"),
			  1);
	/* the line before's TP=4 is the value (the prefix is skipped) */
	ck_assert_int_eq(parse(DC_IMPORT_MEGATRON, "TP=4\nTP=2 CP=1 torchrun pretrain_gpt.py --bf16 "
						   "--position-embedding-type rope --tensor-model-parallel-size $TP\n"),
			 0);
	ck_assert_str_eq(get("parallel.tp"), "4");
	/* nor does a later command see it: no value, an error */
	ck_assert_int_eq(parse(DC_IMPORT_MEGATRON, "TP=2 env\ntorchrun pretrain_gpt.py --bf16 --position-embedding-type "
						   "rope --tensor-model-parallel-size $TP\n"),
			 -1);
	ck_assert_ptr_nonnull(strstr(diag.entries[0].text, "t:2: error: '--tensor-model-parallel-size': cannot tell the "
							   "value of '$TP'"));
	/* an assignment of its own, or export's argument, holds */
	ck_assert_int_eq(parse(DC_IMPORT_MEGATRON, "TP=2\nexport CP=1\ntorchrun pretrain_gpt.py --bf16 "
						   "--position-embedding-type rope --tensor-model-parallel-size $TP "
						   "--context-parallel-size $CP\n"),
			 0);
	ck_assert_str_eq(get("parallel.tp"), "2");
	ck_assert_str_eq(get("parallel.cp"), "1");
	ck_assert_uint_eq(diag.count, 0);
	/* single quotes keep '$TP' from bash: Megatron's argparse (type=int)
	 * gets the text and refuses it, and so does the import (a trial's
	 * '$TP' was read as TP's 2); double quotes expand it, and a value
	 * single-quoted in an assignment stays text too */
	ck_assert_int_eq(parse(DC_IMPORT_MEGATRON, "TP=2\ntorchrun pretrain_gpt.py --bf16 --position-embedding-type rope "
						   "--tensor-model-parallel-size '$TP'\n"),
			 -1);
	ck_assert_ptr_nonnull(strstr(diag.entries[0].text, "expected a whole number from 1, got '$TP'"));
	ck_assert_int_eq(parse(DC_IMPORT_MEGATRON, "TP=2\ntorchrun pretrain_gpt.py --bf16 --position-embedding-type rope "
						   "--tensor-model-parallel-size \"$TP\"\n"),
			 0);
	ck_assert_str_eq(get("parallel.tp"), "2");
	ck_assert_int_eq(parse(DC_IMPORT_MEGATRON, "CP=2\nTP='$CP'\ntorchrun pretrain_gpt.py --bf16 --position-embedding-type "
						   "rope --tensor-model-parallel-size $TP\n"),
			 -1);
	ck_assert_ptr_nonnull(strstr(diag.entries[0].text, "got '$CP'"));
}
END_TEST

/* The reader evaluates no shell condition: each mapped argument inside an
 * `if` or `case` block warns with its line and the block's; one outside,
 * an ignored one and an `if` that is only a word (an echo's) do not. An
 * echo's words are text it prints: its --vocab-size is not taken, and
 * says so (before, it set the vocabulary) */
START_TEST(megatron_conditions)
{
	static const char *const script = "#!/bin/bash\n"
					  "echo if --vocab-size 128256\n"
					  "if [ \"$X\" = 1 ]; then\n"
					  "  A=(--tensor-model-parallel-size 2 --log-interval 1)\n"
					  "fi\n"
					  "case \"$Y\" in\n"
					  "  a) B=(--bf16) ;;\n"
					  "esac\n"
					  "torchrun pretrain_gpt.py $A $B --position-embedding-type rope\n";
	size_t warned = 0;
	ck_assert_int_eq(parse(DC_IMPORT_MEGATRON, script), 0);
	for (size_t i = 0; i < diag.count; i++)
		warned += diag.entries[i].severity == DC_SEV_WARNING && strstr(diag.entries[i].text, "inside the shell");
	ck_assert_uint_eq(warned, 2);
	ck_assert_str_eq(get("parallel.tp"), "2");
	ck_assert_str_eq(get("model.vocab_size"), "(unset)");
	ck_assert_str_eq(diag.entries[0].text, "t:2: '--vocab-size': printed by echo, not an argument of the launch: not taken");
	ck_assert_ptr_nonnull(strstr(diag.entries[1].text, "t:4: '--tensor-model-parallel-size': inside the shell 'if' "
							      "of line 3, taken as if the branch ran"));
	ck_assert_ptr_nonnull(strstr(diag.entries[2].text, "t:7: '--bf16': inside the shell 'case' of line 6"));
	/* a variable assigned in the branches: the last assignment written
	 * above is taken (the 70B, where the script's default is the 7B), so
	 * the argument that reads it warns, naming the assignment and its
	 * block (a trial: one launcher for two sizes priced the other size
	 * without a word); one set outside any block does not */
	ck_assert_int_eq(parse(DC_IMPORT_MEGATRON, "SIZE=${SIZE:-7B}\n"
						   "PP=1\n"
						   "case $SIZE in\n"
						   "  7B) TP=1 ;;\n"
						   "  70B) TP=8 ;;\n"
						   "esac\n"
						   "torchrun pretrain_gpt.py --tensor-model-parallel-size $TP "
						   "--pipeline-model-parallel-size $PP --position-embedding-type rope\n"),
			 0);
	ck_assert_str_eq(get("parallel.tp"), "8");
	ck_assert_uint_eq(diag.count, 1);
	ck_assert_str_eq(diag.entries[0].text,
			 "t:7: '--tensor-model-parallel-size': its value '8' comes from TP=8 on line 5, inside the shell "
			 "'case' of line 3, taken as if that branch ran (distcalc evaluates no shell conditions and takes "
			 "the last assignment written above): check it, or --set the key it gives");
}
END_TEST

/* A shell ends a command at a comment, even one on a line the command was
 * continued onto with '\\' or one whose text ends in '\\': the lines after
 * it form a command of their own, which starting with an argument fails,
 * so the launch ran without them. Their arguments are not taken, with one
 * warning a command. Inside an array's parentheses a comment ends nothing,
 * and a comment before any word of a command neither. */
START_TEST(megatron_comment_ends_continuation)
{
	static const char *const script = "#!/bin/bash\n"
					  "A=(--num-layers 2 \\\n"
					  "  # --num-layers 9 \\\n"
					  "  --hidden-size 512)\n"
					  "# a note \\\n"
					  "--seq-length 2048\n"
					  "torchrun pretrain_gpt.py \\\n"
					  "  --tensor-model-parallel-size 2 --position-embedding-type rope \\\n"
					  "  # --pipeline-model-parallel-size 2 \\\n"
					  "  --num-attention-heads 8 \\\n"
					  "  --max-position-embeddings 4096\n"
					  "python x.py --vocab-size 1000 # note \\\n"
					  "  --micro-batch-size 3\n"
					  "C=(--global-batch-size 64 LOG=$(date) \\\n"
					  "  # a note inside the array, after a $(...) \\\n"
					  "  --kv-channels 64)\n";
	ck_assert_int_eq(parse(DC_IMPORT_MEGATRON, script), 0);
	ck_assert_uint_eq(diag.count, 2);
	ck_assert_str_eq(diag.entries[0].text,
			 "t:10: '--num-attention-heads': the comment on line 9 ended the command continued with '\\' "
			 "above it, so a shell runs this line as a command of its own, which fails, and the launch "
			 "runs without its arguments: not taken (delete the comment line, or move it below the "
			 "command, to pass them)");
	ck_assert_ptr_nonnull(strstr(diag.entries[1].text, "t:13: '--micro-batch-size': the comment on line 12 ended"));
	ck_assert_str_eq(get("model.num_layers"), "2");
	ck_assert_str_eq(get("model.hidden_size"), "512");
	ck_assert_str_eq(get("model.seq_length"), "2048");
	ck_assert_str_eq(get("parallel.tp"), "2");
	ck_assert_str_eq(get("model.vocab_size"), "1024"); /* padded to 128 x tp */
	ck_assert_str_eq(get("model.num_attention_heads"), "(unset)");
	ck_assert_str_eq(get("training.micro_batch_size"), "(unset)");
	/* a $(...) closes no array: the comment after it ends nothing */
	ck_assert_str_eq(get("training.global_batch_size"), "64");
	ck_assert_str_eq(get("model.head_dim"), "64");
}
END_TEST

/* DeepSpeed refuses a key given twice (deepspeed/runtime/config.py:699 at
 * edaa7221 reads with dict_raise_error_on_duplicate_keys); distcalc too,
 * at the second line, also inside a section and when escaped the same
 * elsewhere. A file DeepSpeed's hjson takes and JSON does not (a trailing
 * comma, a comment) is named as such, at its line */
/* What DeepSpeed edaa7221 reads that changes the priced job, from a trial:
 * the deprecated cpu_offload and cpu_offload_param are a cpu
 * offload_optimizer and offload_param (zero/config.py:181-213); an offload
 * at stage 0 offloads nothing (no ZeRO optimizer: engine.py:1980-1997); a
 * ratio below 1 offloads a share; Apex AMP, 16-bit master weights and a
 * gradient accumulation type other than the model's change the bytes; a
 * file with neither batch key is refused by DeepSpeed itself
 * (runtime/config.py:984-985). Each refused naming its key. */
START_TEST(deepspeed_offload_and_precision_keys)
{
	static const struct {
		const char *zero, *offload;
	} legacy[] = {
		{"\"stage\": 2, \"cpu_offload\": true", "\"optimizer\""},
		{"\"stage\": 3, \"cpu_offload\": true, \"cpu_offload_param\": true", "\"optimizer+params\""},
		{"\"stage\": 2, \"cpu_offload\": false", "(unset)"},
	};
	/* the rest of a file with a micro batch of 2, and the one error it
	 * draws (its start), NULL for none */
	static const struct {
		const char *rest, *error;
	} cases[] = {
		{"\"zero_optimization\": {\"stage\": 0, \"offload_optimizer\": {\"device\": \"cpu\"}}",
		 "t:1: error: 'offload_optimizer': needs ZeRO stage 1, 2 or 3: at stage 0 DeepSpeed builds no ZeRO "
		 "optimizer and offloads nothing"},
		{"\"zero_optimization\": {\"stage\": 3, \"offload_optimizer\": {\"device\": \"cpu\", \"ratio\": 0.3, "
		 "\"pin_memory\": true}}",
		 "t:1: error: 'ratio': in offload_optimizer: a ratio below 1"},
		{"\"zero_optimization\": {\"stage\": 3, \"offload_optimizer\": {\"device\": \"cpu\", \"ratio\": 1}}", NULL},
		/* ratio is DeepSpeed's at stage 3 alone (offload_config.py:99-100) */
		{"\"zero_optimization\": {\"stage\": 2, \"offload_optimizer\": {\"device\": \"cpu\", \"ratio\": 0.3}}", NULL},
		{"\"zero_optimization\": {\"stage\": 3, \"offload_optimizer\": {\"device\": \"cpu\", \"ratio\": 2}}",
		 "t:1: error: 'ratio': in offload_optimizer: expected a number from 0 to 1"},
		{"\"zero_optimization\": {\"stage\": 3, \"offload_param\": {\"device\": \"cpu\", \"fast_init\": true}, "
		 "\"offload_optimizer\": {\"device\": \"cpu\"}}",
		 "t:1: error: 'fast_init': not an offload_param key"},
		{"\"zero_optimization\": {\"stage\": 2, \"cpu_offload\": true, \"cpu_offload_param\": true}",
		 "t:1: error: 'cpu_offload_param': needs ZeRO stage 3"},
		{"\"zero_optimization\": {\"stage\": 3, \"offload_optimizer\": {\"device\": \"cpu\", \"bogus\": 1}}",
		 "t:1: error: 'bogus': not an offload_optimizer key"},
		{"\"amp\": {\"enabled\": true, \"opt_level\": \"O2\"}", "t:1: error: 'amp': Apex AMP's mixed precision is not priced"},
		{"\"amp\": {\"enabled\": false}", NULL},
		{"\"fp16\": {\"enabled\": true, \"loss_scale_window\": 500, \"fp16_master_weights_and_grads\": true}",
		 "t:1: error: 'fp16_master_weights_and_grads': in fp16: 16-bit master"},
		{"\"bf16\": {\"enabled\": true}, \"zero_optimization\": {\"stage\": 1}, \"data_types\": "
		 "{\"grad_accum_dtype\": \"bfloat16\"}",
		 NULL},
		/* FP32 accumulation with bf16 at stage 2: DeepSpeed's ZeRO
		 * optimizer, not BF16_Optimizer (deepspeed_bf16_optimizer) */
		{"\"bf16\": {\"enabled\": true}, \"zero_optimization\": {\"stage\": 2}, \"data_types\": "
		 "{\"grad_accum_dtype\": \"fp32\"}",
		 "t:1: error: 'grad_accum_dtype': in data_types: gradients accumulated in fp32, not the model's bf16"},
	};
	for (size_t i = 0; i < sizeof(legacy) / sizeof(legacy[0]); i++) {
		char json[200];
		snprintf(json, sizeof(json), "{\"train_micro_batch_size_per_gpu\": 2, \"zero_optimization\": {%s}}",
			 legacy[i].zero);
		ck_assert_int_eq(parse(DC_IMPORT_DEEPSPEED, json), 0);
		ck_assert_str_eq(get("parallel.offload"), legacy[i].offload);
	}
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char json[300];
		snprintf(json, sizeof(json), "{\"train_micro_batch_size_per_gpu\": 2, %s}", cases[i].rest);
		ck_assert_int_eq(parse(DC_IMPORT_DEEPSPEED, json), cases[i].error ? -1 : 0);
		if (!cases[i].error)
			continue;
		ck_assert_uint_eq(diag.count, 1);
		ck_assert_msg(strncmp(diag.entries[0].text, cases[i].error, strlen(cases[i].error)) == 0, "%s: %s",
			      cases[i].rest, diag.entries[0].text);
	}
	ck_assert_int_eq(parse(DC_IMPORT_DEEPSPEED, "{\"gradient_accumulation_steps\": 4, \"bf16\": {\"enabled\": true}}"), -1);
	ck_assert_str_eq(diag.entries[0].text,
			 "t:1: error: neither train_batch_size nor train_micro_batch_size_per_gpu: DeepSpeed asserts "
			 "\"Either train_batch_size or train_micro_batch_size_per_gpu needs to be provided\" "
			 "(deepspeed/runtime/config.py:984-985); give one");
}
END_TEST

/* bf16 without ZeRO (and at stage 1 with FP32 accumulation, no offload):
 * DeepSpeed's engine.py get_data_types() makes the accumulation FP32,
 * _do_optimizer_sanity_check returns BFLOAT16 and _configure_bf16_optimizer
 * builds BF16_Optimizer (runtime/bf16_optimizer.py): BF16 parameters, a
 * whole FP32 gradient buffer, a 1/dp partition of the FP32 master with
 * Adam's states on it. By hand, Llama-3-8B (8,030,261,248 parameters) at
 * tp 1, dp 16 (two nodes of 8 H100):
 *   parameters 2 x 8,030,261,248        = 16,060,522,496 B
 *   gradients  4 x 8,030,261,248        = 32,121,044,992 B
 *   master     4 x 8,030,261,248 / 16   =  2,007,565,312 B
 *   Adam       8 x 8,030,261,248 / 16   =  4,015,130,624 B
 *   model states                          54,204,263,424 B = 50.482 GiB
 * (before: 16 x 8,030,261,248 = 128,484,179,968 B = 119.660 GiB, unsharded);
 * tests/cli/cases/import_deepspeed_bf16_stage0 pins the report's ledger.
 * bf16 with bf16 accumulation at stage 0 DeepSpeed refuses
 * (NotImplementedError "Bfloat16 wrapper must use a gradient accumulation
 * type of fp32"). */
/* FP32 training (no bf16 or fp16): ZeRO-1/2 still clone the rank's
 * partition into the copy the optimizer steps (stage_1_and_2.py at
 * edaa7221, `.clone()` into single_partition_of_fp32_groups), and ZeRO-3
 * when it offloads the optimizer (its CPU copy); ZeRO-3 on the GPU steps
 * its partition in place and stage 0 the parameters (a trial: FP32 ZeRO-2
 * offload priced no host copy for CPU-Adam to step) */
/* Sections that switch a feature on: off (enabled false or absent) they
 * change nothing and import; on, refused (a trial: DeepSpeed-Chat's
 * "hybrid_engine": {"enabled": false} failed; elasticity on was priced at
 * the file's batch, which elasticity replaces) */
START_TEST(deepspeed_switched_sections)
{
	ck_assert_int_eq(parse(DC_IMPORT_DEEPSPEED, "{\"train_micro_batch_size_per_gpu\": 1, \"hybrid_engine\": "
						     "{\"enabled\": false, \"max_out_tokens\": 512}, \"compile\": "
						     "{\"deepcompile\": false}}"),
			 0);
	/* compile's switch is deepcompile (CompileConfig forbids "enabled") */
	ck_assert_int_eq(parse(DC_IMPORT_DEEPSPEED, "{\"train_micro_batch_size_per_gpu\": 1, \"compile\": "
						     "{\"deepcompile\": true}}"),
			 -1);
	ck_assert_uint_eq(diags_with("DeepCompile reorders ZeRO's gathers"), 1);
	ck_assert_int_eq(parse(DC_IMPORT_DEEPSPEED, "{\"train_micro_batch_size_per_gpu\": 1, \"elasticity\": "
						     "{\"enabled\": true, \"max_train_batch_size\": 64}}"),
			 -1);
	ck_assert_uint_eq(diags_with("DeepSpeed's elasticity then chooses the micro batch"), 1);
	ck_assert_int_eq(parse(DC_IMPORT_DEEPSPEED, "{\"train_micro_batch_size_per_gpu\": 1, \"curriculum_learning\": "
						     "{\"enabled\": true}}"),
			 -1);
	ck_assert_uint_eq(diags_with("enabled: distcalc does not price it"), 1);
	ck_assert_int_eq(parse(DC_IMPORT_DEEPSPEED, "{\"train_micro_batch_size_per_gpu\": 1, \"nebula\": "
						     "{\"enabled\": \"no\"}}"),
			 -1);
	ck_assert_uint_eq(diags_with("'enabled': expected true or false"), 1);
	ck_assert_int_eq(parse(DC_IMPORT_DEEPSPEED, "{\"train_micro_batch_size_per_gpu\": 1, \"zero_hpz\": 1}"), -1);
	ck_assert_uint_eq(diags_with("a key distcalc neither maps nor knows"), 1);
	/* ZeRO-3's tuning keys: counts (or "auto"), and at stage 3 one warning
	 * naming those given, not priced (a trial's persistence threshold
	 * 1e10 moved nothing, without a word) */
	ck_assert_int_eq(parse(DC_IMPORT_DEEPSPEED, "{\"train_micro_batch_size_per_gpu\": 1, \"zero_optimization\": "
						     "{\"stage\": 3, \"stage3_param_persistence_threshold\": 1e10, "
						     "\"stage3_prefetch_bucket_size\": \"auto\"}}"),
			 0);
	ck_assert_uint_eq(diags_with("stage3_param_persistence_threshold, stage3_prefetch_bucket_size: not priced"), 1);
	ck_assert_int_eq(parse(DC_IMPORT_DEEPSPEED, "{\"train_micro_batch_size_per_gpu\": 1, \"zero_optimization\": "
						     "{\"stage\": 3, \"sub_group_size\": -1}}"),
			 -1);
	ck_assert_uint_eq(diags_with("expected a count, 0 or more"), 1);
}
END_TEST

START_TEST(deepspeed_fp32_master_copy)
{
	static const struct {
		const char *zero;
		const char *master;
	} cases[] = {
		{"{\"stage\": 0}", "0"},
		{"{\"stage\": 1}", "4"},
		{"{\"stage\": 2}", "4"},
		{"{\"stage\": 2, \"offload_optimizer\": {\"device\": \"cpu\"}}", "4"},
		{"{\"stage\": 3}", "0"},
		{"{\"stage\": 3, \"offload_optimizer\": {\"device\": \"cpu\"}}", "4"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char text[256];
		snprintf(text, sizeof(text), "{\"train_micro_batch_size_per_gpu\": 1, \"zero_optimization\": %s}",
			 cases[i].zero);
		ck_assert_int_eq(parse(DC_IMPORT_DEEPSPEED, text), 0);
		ck_assert_msg(strcmp(get("precision.master_bytes"), cases[i].master) == 0, "%s: master_bytes %s", text,
			      get("precision.master_bytes"));
		ck_assert_str_eq(get("precision.param_bytes"), "4");
	}
}
END_TEST

START_TEST(deepspeed_bf16_optimizer)
{
	static const struct {
		const char *rest;
		int bf16_opt; /* 1: zero1 with 4-byte gradients */
		const char *sharding;
	} cases[] = {
		{"\"bf16\": {\"enabled\": true}, \"zero_optimization\": {\"stage\": 0}", 1, "\"zero1\""},
		{"\"bf16\": {\"enabled\": true}", 1, "\"zero1\""},
		/* no "enabled": off, DeepSpeed's default (BFLOAT16_ENABLED_DEFAULT
		 * False, runtime/constants.py; a trial's {} was priced as bf16),
		 * FP32 as "enabled": false, with a warning */
		{"\"bf16\": {}", 0, "\"none\""},
		{"\"bf16\": {\"enabled\": true}, \"data_types\": {\"grad_accum_dtype\": \"torch.float32\"}", 1,
		 "\"zero1\""},
		{"\"bf16\": {\"enabled\": true}, \"zero_optimization\": {\"stage\": 1}, \"data_types\": "
		 "{\"grad_accum_dtype\": \"fp32\"}",
		 1, "\"zero1\""},
		/* bf16 accumulation at stage 1: DeepSpeed's ZeRO-1 */
		{"\"bf16\": {\"enabled\": true}, \"zero_optimization\": {\"stage\": 1}", 0, "\"zero1\""},
		/* FP32: 4-byte gradients, no BF16_Optimizer */
		{"\"bf16\": {\"enabled\": false}", 0, "\"none\""},
		/* fp16 without ZeRO: FP16_Optimizer, the master unsharded */
		{"\"fp16\": {\"enabled\": true}", 0, "\"none\""},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char json[300];
		snprintf(json, sizeof(json), "{\"train_micro_batch_size_per_gpu\": 1, %s}", cases[i].rest);
		ck_assert_msg(parse(DC_IMPORT_DEEPSPEED, json) == 0, "%s: %s", json, diag.count ? diag.entries[0].text : "");
		ck_assert_str_eq(get("parallel.sharding"), cases[i].sharding);
		ck_assert_str_eq(get("precision.grad_bytes"),
				 cases[i].bf16_opt || strstr(json, "false") || strstr(json, "{}") ? "4" : "(unset)");
		ck_assert_uint_eq(warnings_with("DeepSpeed reads the section as off"), strstr(json, "{}") != NULL);
		ck_assert_uint_eq(warnings_with("DeepSpeed runs its BF16_Optimizer"), (size_t)cases[i].bf16_opt);
	}
	ck_assert_int_eq(parse(DC_IMPORT_DEEPSPEED, "{\"train_micro_batch_size_per_gpu\": 1, \"bf16\": {\"enabled\": true}}"), 0);
	ck_assert_str_eq(get("precision.preset"), "\"course\"");
	ck_assert_uint_eq(warnings_with("Not priced: the BF16 .grad of every parameter"), 1);
	/* offloaded at stage 1: DeepSpeed's ZeRO optimizer, refused as before */
	ck_assert_int_eq(parse(DC_IMPORT_DEEPSPEED, "{\"train_micro_batch_size_per_gpu\": 1, \"bf16\": {\"enabled\": true}, "
						    "\"zero_optimization\": {\"stage\": 1, \"offload_optimizer\": {\"device\": "
						    "\"cpu\"}}, \"data_types\": {\"grad_accum_dtype\": \"fp32\"}}"),
			 -1);
	ck_assert_uint_eq(diags_with("gradients accumulated in fp32, not the model's bf16"), 1);
	/* bf16 accumulation without ZeRO: refused, as DeepSpeed does */
	ck_assert_int_eq(parse(DC_IMPORT_DEEPSPEED, "{\"train_micro_batch_size_per_gpu\": 1,\n\"bf16\": {\"enabled\": true},\n"
						    "\"data_types\": {\"grad_accum_dtype\": \"bf16\"}}"),
			 -1);
	ck_assert_uint_eq(diag.count, 1);
	ck_assert_msg(strncmp(diag.entries[0].text,
			      "t:3: error: 'grad_accum_dtype': in data_types: bf16 gradient accumulation with bf16 at ZeRO "
			      "stage 0, which DeepSpeed refuses",
			      strlen("t:3: error: 'grad_accum_dtype': in data_types: bf16 gradient accumulation with bf16 at "
				     "ZeRO stage 0, which DeepSpeed refuses")) == 0,
		      "%s", diag.entries[0].text);
	/* a bucket size under BF16_Optimizer is warned, not mapped */
	ck_assert_int_eq(parse(DC_IMPORT_DEEPSPEED, "{\"train_micro_batch_size_per_gpu\": 1, \"bf16\": {\"enabled\": true}, "
						    "\"zero_optimization\": {\"stage\": 0, \"allgather_bucket_size\": 200000000}}"),
			 0);
	ck_assert_str_eq(get("parallel.bucket_size"), "(unset)");
	ck_assert_uint_eq(warnings_with("not mapped under DeepSpeed's BF16_Optimizer"), 1);
}
END_TEST

/* DeepSpeed's older name for the BF16 section, "bfloat16", which it reads
 * where "bf16" is absent (runtime/precision_config.py get_bfloat16_config:
 * BFLOAT16_OLD, "keeping for backwards compatibility"): the same mapping
 * as "bf16"; beside "bf16" it is never read, refused */
START_TEST(deepspeed_bfloat16_legacy)
{
	ck_assert_int_eq(parse(DC_IMPORT_DEEPSPEED, "{\"train_micro_batch_size_per_gpu\": 1, \"bfloat16\": {\"enabled\": true}, "
						    "\"zero_optimization\": {\"stage\": 2}}"),
			 0);
	ck_assert_str_eq(get("precision.preset"), "\"course\"");
	ck_assert_str_eq(get("parallel.sharding"), "\"zero2\"");
	ck_assert_str_eq(get("precision.grad_bytes"), "(unset)");
	/* without ZeRO: BF16_Optimizer, as under "bf16" (2 + 4 + 12/dp) */
	ck_assert_int_eq(parse(DC_IMPORT_DEEPSPEED, "{\"train_micro_batch_size_per_gpu\": 1, \"bfloat16\": {\"enabled\": true}}"), 0);
	ck_assert_str_eq(get("parallel.sharding"), "\"zero1\"");
	ck_assert_str_eq(get("precision.grad_bytes"), "4");
	ck_assert_uint_eq(warnings_with("DeepSpeed runs its BF16_Optimizer"), 1);
	/* off: FP32 */
	ck_assert_int_eq(parse(DC_IMPORT_DEEPSPEED, "{\"train_micro_batch_size_per_gpu\": 1, \"bfloat16\": {\"enabled\": false}}"), 0);
	ck_assert_str_eq(get("precision.param_bytes"), "4");
	/* a key inside it is named at its own line */
	ck_assert_int_eq(parse(DC_IMPORT_DEEPSPEED, "{\"train_micro_batch_size_per_gpu\": 1,\n\"bfloat16\": {\"enabled\": true,\n"
						    "\"bf16_master_weights_and_grads\": true}}"),
			 -1);
	ck_assert_uint_eq(diags_with("t:3: error: 'bf16_master_weights_and_grads': in bfloat16: 16-bit master"), 1);
	/* beside "bf16": refused */
	ck_assert_int_eq(parse(DC_IMPORT_DEEPSPEED, "{\"train_micro_batch_size_per_gpu\": 1,\n\"bf16\": {\"enabled\": true},\n"
						    "\"bfloat16\": {\"enabled\": false}}"),
			 -1);
	ck_assert_uint_eq(diags_with("error:"), 1);
	ck_assert_uint_eq(diags_with("t:3: error: 'bfloat16': given beside bf16: DeepSpeed reads bfloat16 only where bf16 is "
				     "absent"),
			  1);
}
END_TEST

START_TEST(deepspeed_duplicates)
{
	ck_assert_int_eq(parse(DC_IMPORT_DEEPSPEED, "{\"train_micro_batch_size_per_gpu\": 1, \n\"zero_optimization\": {\n\"stage\": 3,\n\"stage\": 1\n}\n}"), -1);
	ck_assert_uint_eq(diag.count, 1);
	ck_assert_str_eq(diag.entries[0].text, "t:4: error: 'stage' given twice (first on line 3), which DeepSpeed "
					       "refuses too (runtime/config.py reads it with dict_raise_error_on_duplicate_keys); "
					       "give it once");
	/* the same name in two objects is not a duplicate; the top level's is */
	ck_assert_int_eq(parse(DC_IMPORT_DEEPSPEED, "{\"bf16\": {\"enabled\": true},\n\"fp16\": {\"enabled\": false},\n"
						    "\"train_batch_size\": 16,\n\"train_batch_size\": 32}"),
			 -1);
	ck_assert_uint_eq(diag.count, 1);
	ck_assert_str_eq(diag.entries[0].text, "t:4: error: 'train_batch_size' given twice (first on line 3), which "
					       "DeepSpeed refuses too (runtime/config.py reads it with "
					       "dict_raise_error_on_duplicate_keys); give it once");
	ck_assert_int_eq(parse(DC_IMPORT_DEEPSPEED, "{\"train_micro_batch_size_per_gpu\": 1, \"bf16\": {\"enabled\": true}, \"fp16\": {\"enabled\": false}}"), 0);
	ck_assert_int_eq(parse(DC_IMPORT_DEEPSPEED, "{\n\"train_micro_batch_size_per_gpu\": 1,\n}"), -1);
	ck_assert_str_eq(diag.entries[0].text, "t:3: error: not strict JSON here (DeepSpeed reads its configs with hjson, "
					       "which takes comments, trailing commas and unquoted keys; distcalc reads JSON: "
					       "remove them)");
	ck_assert_int_eq(parse(DC_IMPORT_DEEPSPEED, "[1, 2]"), -1);
	ck_assert_str_eq(diag.entries[0].text, "t:1: error: not a JSON object (a DeepSpeed config is one)");
	/* a file cut short is not an hjson matter (a trial) */
	ck_assert_int_eq(parse(DC_IMPORT_DEEPSPEED, "{\"train_micro_batch_size_per_gpu\": 1,\n\"bf16\": {\"enabled\": true\n"),
			 -1);
	ck_assert_str_eq(diag.entries[0].text, "t:2: error: the JSON ends here, before every object, array and string it "
					       "opened is closed (a file cut short?)");
	/* cut inside a value, with no white space after it */
	ck_assert_int_eq(parse(DC_IMPORT_DEEPSPEED, "{\"train_micro_batch_size_per_gpu\": 1,\n\"bf16\": {\"enabled\": true"),
			 -1);
	ck_assert(strstr(diag.entries[0].text, "error: the JSON ends here, before every object") != NULL);
	/* a second object after the first is refused, not dropped */
	ck_assert_int_eq(parse(DC_IMPORT_DEEPSPEED, "{\"train_micro_batch_size_per_gpu\": 1}\n{\"bf16\": {}}\n"), -1);
	ck_assert_str_eq(diag.entries[0].text, "t:2: error: text after the config's JSON object: remove it");
	/* a key named in several objects is placed in its own (a trial's
	 * bf16 "enabled" was named at fp16's line 5, offload_param's ratio at
	 * offload_optimizer's line) */
	ck_assert_int_eq(parse(DC_IMPORT_DEEPSPEED, "{\"train_micro_batch_size_per_gpu\": 1,\n\"fp16\": {\n\"enabled\": false\n},\n"
						    "\"bf16\": {\n\"enabled\": \"auto\"\n}}"),
			 -1);
	ck_assert_str_eq(diag.entries[0].text, "t:6: error: 'enabled': \"auto\" in 'bf16' is filled in by the Hugging Face "
					       "Trainer; give true or false");
	ck_assert_int_eq(parse(DC_IMPORT_DEEPSPEED, "{\"train_micro_batch_size_per_gpu\": 1,\n\"fp16\": {\n\"enabled\": false,\n"
						    "\"loss_scale\": 0\n},\n\"bf16\": {\n\"enabled\": true,\n\"loss_scale\": 0\n}}"),
			 -1);
	ck_assert(strncmp(diag.entries[0].text, "t:8: error: 'loss_scale': in bf16:", 34) == 0);
	ck_assert_int_eq(parse(DC_IMPORT_DEEPSPEED, "{\"train_micro_batch_size_per_gpu\": 1,\n\"zero_optimization\": {\"stage\": 3,\n"
						    "\"offload_optimizer\": {\"device\": \"cpu\",\n\"ratio\": 1.0},\n"
						    "\"offload_param\": {\"device\": \"cpu\",\n\"ratio\": 0.5}}}"),
			 -1);
	ck_assert(strncmp(diag.entries[0].text, "t:6: error: 'ratio': not an offload_param key", 45) == 0);
}
END_TEST

/* DeepSpeed asserts train_batch_size = micro x accumulation x data-parallel
 * world (runtime/config.py): with all three, 16 = 1 x 2 x 8 carries the
 * accumulation to the loader (which checks the world); 15 is no multiple
 * of 1 x 2 and 24 none of 4 x 4 */
START_TEST(deepspeed_batch_triple)
{
	ck_assert_int_eq(parse(DC_IMPORT_DEEPSPEED, "{\"train_batch_size\": 16, \"train_micro_batch_size_per_gpu\": 1,"
						    " \"gradient_accumulation_steps\": 2}"),
			 0);
	ck_assert_str_eq(get("training.global_batch_size"), "16");
	ck_assert_str_eq(get("training.micro_batch_size"), "1");
	ck_assert_str_eq(get("training.grad_accum_steps"), "2");
	ck_assert_int_eq(parse(DC_IMPORT_DEEPSPEED, "{\"train_batch_size\": 15,\n\"train_micro_batch_size_per_gpu\": 1,\n"
						    "\"gradient_accumulation_steps\": 2}"),
			 -1);
	ck_assert_str_eq(diag.entries[0].text,
			 "t:3: error: 'gradient_accumulation_steps': train_batch_size 15 is not "
			 "train_micro_batch_size_per_gpu 1 x gradient_accumulation_steps 2 x a whole number of "
			 "data-parallel GPUs, as DeepSpeed asserts; give the three consistent");
	ck_assert_int_eq(parse(DC_IMPORT_DEEPSPEED, "{\"train_batch_size\": 24, \"train_micro_batch_size_per_gpu\": 4,"
						    " \"gradient_accumulation_steps\": 4}"),
			 -1);
}
END_TEST

/* torchtitan's replicas with shard degree 1: torchtitan b5bcd76c applies
 * FSDP over the (dp_replicate, fsdp) mesh whatever the shard degree
 * (models/llama3/parallelize.py:57-78), so HSDP over one-rank shard groups:
 * sharding fsdp, dp 64, dp_replicate 64, as a shard degree of -1 that the
 * replicas leave at 1 (before, sharding none with dp_replicate 64, which the
 * loader refused); with shard degree 4 the same HSDP over 4 */
START_TEST(torchtitan_ddp)
{
	ck_assert_int_eq(parse(DC_IMPORT_TORCHTITAN, "[model]\nname = \"llama3\"\nflavor = \"8B\"\n[parallelism]\n"
						     "data_parallel_shard_degree = 1\ndata_parallel_replicate_degree = 64\n"
						     "[activation_checkpoint]\nmode = \"none\"\n"),
			 0);
	ck_assert_str_eq(get("parallel.dp"), "64");
	ck_assert_str_eq(get("parallel.sharding"), "\"fsdp\"");
	ck_assert_str_eq(get("parallel.dp_replicate"), "64");
	ck_assert_int_eq(parse(DC_IMPORT_TORCHTITAN, "[model]\nname = \"llama3\"\nflavor = \"8B\"\n[parallelism]\n"
						     "data_parallel_shard_degree = 4\ndata_parallel_replicate_degree = 16\n"
						     "[activation_checkpoint]\nmode = \"none\"\n"),
			 0);
	ck_assert_str_eq(get("parallel.dp"), "64");
	ck_assert_str_eq(get("parallel.sharding"), "\"fsdp\"");
	ck_assert_str_eq(get("parallel.dp_replicate"), "16");
	/* an older torchtitan's disable_loss_parallel: true at tp > 1 gathers
	 * the logits for a whole loss, not priced: refused; false is the
	 * vocabulary-parallel loss distcalc prices */
	ck_assert_int_eq(parse(DC_IMPORT_TORCHTITAN, "[model]\nname = \"llama3\"\nflavor = \"8B\"\n[parallelism]\n"
						     "tensor_parallel_degree = 2\ndisable_loss_parallel = true\n"
						     "[activation_checkpoint]\nmode = \"none\"\n"),
			 -1);
	ck_assert_ptr_nonnull(strstr(diag.entries[0].text, "t:6: error: [parallelism] disable_loss_parallel: true gathers "
								"the logits over the tp group"));
	ck_assert_int_eq(parse(DC_IMPORT_TORCHTITAN, "[model]\nname = \"llama3\"\nflavor = \"8B\"\n[parallelism]\n"
						     "tensor_parallel_degree = 2\ndisable_loss_parallel = false\n"
						     "[activation_checkpoint]\nmode = \"none\"\n"),
			 0);
	/* enable_sequence_parallel (true by default: torchtitan/config/
	 * configs.py:169 at b5bcd76c): at tp > 1 sequence_parallel as given;
	 * left out, left to training.framework torchtitan's default (on at
	 * tp > 1, derived per layout); at tp 1 it changes nothing (warned);
	 * not a boolean: refused */
	ck_assert_str_eq(get("parallel.sequence_parallel"), "(unset)");
	ck_assert_str_eq(get("training.framework"), "\"torchtitan\"");
#define SP_TOML(tp, sp)                                                                                         \
	"[model]\nname = \"llama3\"\nflavor = \"8B\"\n[parallelism]\ntensor_parallel_degree = " tp                      \
	"\nenable_sequence_parallel = " sp "\n[activation_checkpoint]\nmode = \"none\"\n"
	ck_toml(SP_TOML("2", "false"), 0, NULL);
	ck_assert_str_eq(get("parallel.sequence_parallel"), "false");
	ck_toml(SP_TOML("2", "true"), 0, NULL);
	ck_assert_str_eq(get("parallel.sequence_parallel"), "(unset)"); /* the default, as left out */
	ck_toml(SP_TOML("1", "false"), 0, "enable_sequence_parallel: changes nothing at tensor_parallel_degree 1");
	ck_toml(SP_TOML("2", "1"), -1, "enable_sequence_parallel: expected true or false");
#undef SP_TOML
}
END_TEST

/* [compile] and [optimizer] keys that change what distcalc prices: a
 * misspelt [compile] key is refused with the nearest name (it passed
 * silently, compile left off, before stop 57); a backend other than
 * Inductor fuses nothing and is refused; a component other than model or
 * loss is refused; backend without enable warns; [optimizer]
 * implementation maps fused and foreach and refuses the others;
 * early_step_in_backward true warns */
START_TEST(torchtitan_compile_and_optimizer_keys)
{
	static const char head[] = "[model]\nname = \"llama3\"\nflavor = \"8B\"\n[activation_checkpoint]\nmode = \"none\"\n";
	static const struct {
		const char *tail, *msg;
		int rc;
	} cases[] = {
		{"[compile]\nenabel = true\n", "[compile] enabel: not a torchtitan setting distcalc maps", -1},
		{"[compile]\nenabel = true\n", "did you mean enable?", -1},
		{"[compile]\nenable = true\nbackend = \"aot_eager\"\n", "backend: \"aot_eager\" does not fuse kernels", -1},
		{"[compile]\nenable = true\ncomponents = [\"modle\"]\n", "\"modle\" is no component torchtitan compiles", -1},
		{"[compile]\nbackend = \"inductor\"\n", "backend: changes nothing without [compile] enable = true", 0},
		{"[optimizer]\nimplementation = \"for-loop\"\n", "\"for-loop\" is not priced", -1},
		{"[optimizer]\nimplementation = \"fusd\"\n", "expected \"fused\", \"foreach\"", -1},
		{"[optimizer]\nearly_step_in_backward = true\n", "early_step_in_backward: not modelled", 0},
	};
	char buf[512];
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		snprintf(buf, sizeof(buf), "%s%s", head, cases[i].tail);
		ck_toml(buf, cases[i].rc, cases[i].msg);
	}
	snprintf(buf, sizeof(buf), "%s[optimizer]\nimplementation = \"foreach\"\n[compile]\nenable = true\n"
				   "components = [\"model\", \"loss\"]\nbackend = \"inductor\"\n", head);
	ck_assert_int_eq(parse(DC_IMPORT_TORCHTITAN, buf), 0);
	ck_assert_str_eq(get("training.optimizer_implementation"), "\"foreach\"");
	ck_assert_str_eq(get("training.compile"), "true");
	/* qwen3 30B-A3B with expert parallelism 8: the catalogue's model
	 * (its shape is the Hugging Face config's), parallel.ep */
#define MOE_TOML(more)                                                                                          \
	"[model]\nname = \"qwen3\"\nflavor = \"30B-A3B\"\n[activation_checkpoint]\nmode = \"none\"\n[parallelism]\n"  \
	"expert_parallel_degree = 8\n" more
	ck_toml(MOE_TOML(""), 0, NULL);
	ck_assert_str_eq(get("model.hf_config"), "\"qwen3-30b-a3b\"");
	ck_assert_str_eq(get("parallel.ep"), "8");
	/* an older torchtitan's expert_tensor_parallel_degree: 1 (its stock
	 * MoE files) changes nothing, more is refused */
	ck_toml(MOE_TOML("expert_tensor_parallel_degree = 1\n"), 0, NULL);
	ck_assert_str_eq(get("parallel.ep"), "8");
	ck_toml(MOE_TOML("expert_tensor_parallel_degree = 2\n"), -1, "expert_tensor_parallel_degree: 2 splits each expert");
#undef MOE_TOML
}
END_TEST

/* torchtitan's TOML types: a quoted number or boolean is a string, and
 * the message says so ("got 2" read as if 2 were refused) */
START_TEST(torchtitan_string_values_named)
{
	ck_assert_int_eq(parse(DC_IMPORT_TORCHTITAN, "[model]\nname = \"llama3\"\nflavor = \"8B\"\n[parallelism]\n"
						     "tensor_parallel_degree = \"2\"\n[compile]\nenable = \"true\"\n"),
			 -1);
	ck_assert_str_eq(diag.entries[0].text,
			 "t:5: error: [parallelism] tensor_parallel_degree: expected a whole number from 1, got the string \"2\"");
	ck_assert_str_eq(diag.entries[1].text, "t:7: error: [compile] enable: expected true or false, got the string \"true\"");
	/* no [model] at all: torchtitan's defaults, named as such */
	parse(DC_IMPORT_TORCHTITAN, "[activation_checkpoint]\nmode = \"none\"\n");
	ck_assert_str_eq(imp.model_unresolved, "no [model] name or flavor: torchtitan's defaults, name \"llama3\" flavor "
					       "\"debugmodel\", have no catalogue entry; give them, or the model's Hugging "
					       "Face config.json with --model FILE or NAME");
	/* a slip of a setting the mapping reads is named */
	ck_assert_int_eq(parse(DC_IMPORT_TORCHTITAN, "[model]\nname = \"llama3\"\nflavor = \"8B\"\n[parallelism]\n"
						     "tensor_parallel_degre = 8\n[activation_checkpoint]\nmode = \"none\"\n"),
			 -1);
	ck_assert_str_eq(diag.entries[0].text, "t:5: error: [parallelism] tensor_parallel_degre: not a torchtitan setting "
					       "distcalc maps or knows to change nothing it computes (docs/importers.md lists "
					       "both); did you mean tensor_parallel_degree?");
}
END_TEST

/* DeepSpeed derives the micro batch where the file gives train_batch_size
 * without it (runtime/config.py, _set_batch_related_parameters): micro =
 * train_batch_size / (accumulation x data-parallel world), the
 * accumulation 1 when absent. The import carries the accumulation and
 * drops the base config's micro batch, which the loader then derives
 * (check_config test_micro_batch_derived); before, 64 with accumulation
 * 1 on 16 GPUs kept the base's micro batch 1 and ran 4 microbatches. */
static int removed(const char *path)
{
	for (size_t i = 0; i < imp.nkeys; i++)
		if (strcmp(imp.keys[i].path, path) == 0)
			return imp.keys[i].json == NULL;
	return 0;
}

START_TEST(deepspeed_micro_derived)
{
	ck_assert_int_eq(parse(DC_IMPORT_DEEPSPEED, "{\"train_batch_size\": 64, \"gradient_accumulation_steps\": 1}"), 0);
	ck_assert_str_eq(get("training.global_batch_size"), "64");
	ck_assert_str_eq(get("training.grad_accum_steps"), "1");
	ck_assert(removed("training.micro_batch_size"));
	ck_assert_int_eq(parse(DC_IMPORT_DEEPSPEED, "{\"train_batch_size\": 64}"), 0);
	ck_assert_str_eq(get("training.grad_accum_steps"), "1");
	ck_assert(removed("training.micro_batch_size"));
	ck_assert_int_eq(parse(DC_IMPORT_DEEPSPEED, "{\"train_batch_size\": 64, \"gradient_accumulation_steps\": 2}"), 0);
	ck_assert_str_eq(get("training.grad_accum_steps"), "2");
	ck_assert(removed("training.micro_batch_size"));
	/* the micro batch given: nothing dropped */
	ck_assert_int_eq(parse(DC_IMPORT_DEEPSPEED, "{\"train_batch_size\": 64, \"train_micro_batch_size_per_gpu\": 2}"), 0);
	ck_assert(!removed("training.micro_batch_size"));
	ck_assert_str_eq(get("training.micro_batch_size"), "2");
}
END_TEST

/* A bad value is said once, however many mappings read it (tp's is read
 * by the model's, the count's and the layout's) */
START_TEST(megatron_bad_value_once)
{
	ck_assert_int_eq(parse(DC_IMPORT_MEGATRON, "--num-layers 2 --position-embedding-type rope "
						  "--tensor-model-parallel-size four"),
			 -1);
	ck_assert_uint_eq(diag.count, 1);
	ck_assert_str_eq(diag.entries[0].text,
			 "t:1: error: '--tensor-model-parallel-size': expected a whole number from 1, got 'four'");
	/* a flag followed by a boolean word: the flag is taken, the word
	 * named (argparse would refuse it) */
	ck_assert_int_eq(parse(DC_IMPORT_MEGATRON, "--num-layers 2 --position-embedding-type rope "
						  "--sequence-parallel true --tensor-model-parallel-size 2"),
			 0);
	ck_assert_str_eq(get("parallel.sequence_parallel"), "true");
	ck_assert_str_eq(diag.entries[0].text, "t:1: '--sequence-parallel' is a flag, taken as given; the word after it, "
					       "'true', is no value of it (Megatron-LM's argparse refuses it: remove it, or "
					       "the flag for false)");
}
END_TEST

/* A variable's quoted arguments (OPTS="--a --b", then $OPTS on the
 * command): the first word is glued to the assignment, the rest are
 * pieces of their own; every one is an argument, as any "--" word of the
 * file is. Before, the first was dropped (sharding none, overlap on), and
 * ARG="--tensor-model-parallel-size 8" lost tp altogether. */
START_TEST(megatron_arguments_in_a_variable)
{
	ck_assert_int_eq(parse(DC_IMPORT_MEGATRON, "OPT_ARGS=\"--use-distributed-optimizer --overlap-grad-reduce\"\n"
						  "TPARG=\"--tensor-model-parallel-size 8\"\n"
						  "torchrun pretrain_gpt.py --num-layers 2 --position-embedding-type rope $TPARG $OPT_ARGS\n"),
			 0);
	ck_assert_str_eq(get("parallel.sharding"), "\"zero1\"");
	ck_assert_str_eq(get("overlap.dp"), "true");
	ck_assert_str_eq(get("parallel.tp"), "8");
}
END_TEST

/* Each importer names its framework (training.framework), and the
 * framework options with a key map onto it: Megatron-LM's parameter gather
 * (arguments.py:1024-1029 asserts the distributed optimizer and
 * --overlap-grad-reduce; off by default, arguments.py:3148), its bucket in
 * parameters (distributed_data_parallel_config.py:48-51; no buckets without
 * --overlap-grad-reduce, training.py:2192-2193); torchtitan's async TP
 * (needs the model compiled, configs.py:306-312; only on a TP mesh,
 * distributed/compile.py:80); DeepSpeed's ZeRO buckets in elements
 * (zero/config.py:113, :132). */
START_TEST(framework_mapping)
{
	/* Megatron: named; the gather off unless asked for, which
	 * training.framework megatron would otherwise derive on under zero1 */
	ck_assert_int_eq(parse(DC_IMPORT_MEGATRON, "--bf16 --use-distributed-optimizer --position-embedding-type rope"), 0);
	ck_assert_str_eq(get("training.framework"), "\"megatron\"");
	ck_assert_str_eq(get("overlap.param_gather"), "false");
	ck_assert_str_eq(get("parallel.bucket_size"), "(unset)");
	/* --attention-backend auto (the default) leaves the kernel to the
	 * framework rule; fused is TE's cuDNN FusedAttention, flash its
	 * FlashAttention (flash-attn 2), unfused the separate kernels */
	ck_assert_str_eq(get("training.attention"), "\"flash\"");
	ck_assert_str_eq(get("training.attention_backend"), "(unset)");
	ck_assert_int_eq(parse(DC_IMPORT_MEGATRON, "--bf16 --position-embedding-type rope --attention-backend auto"), 0);
	ck_assert_str_eq(get("training.attention_backend"), "(unset)");
	ck_assert_int_eq(parse(DC_IMPORT_MEGATRON, "--bf16 --position-embedding-type rope --attention-backend fused"), 0);
	ck_assert_str_eq(get("training.attention"), "\"flash\"");
	ck_assert_str_eq(get("training.attention_backend"), "\"cudnn\"");
	ck_assert_int_eq(parse(DC_IMPORT_MEGATRON, "--bf16 --position-embedding-type rope --attention-backend flash"), 0);
	ck_assert_str_eq(get("training.attention_backend"), "\"sdpa\"");
	ck_assert_int_eq(parse(DC_IMPORT_MEGATRON, "--bf16 --position-embedding-type rope --attention-backend unfused"), 0);
	ck_assert_str_eq(get("training.attention"), "\"eager\"");
	ck_assert_str_eq(get("training.attention_backend"), "(unset)");
	ck_assert_int_eq(parse(DC_IMPORT_MEGATRON, "--bf16 --use-distributed-optimizer --position-embedding-type rope"), 0);
	ck_assert_int_eq(parse(DC_IMPORT_MEGATRON, "--bf16 --use-distributed-optimizer --overlap-grad-reduce "
						   "--overlap-param-gather --position-embedding-type rope"),
			 0);
	ck_assert_str_eq(get("overlap.param_gather"), "true");
	ck_assert_str_eq(get("overlap.dp"), "true");
	ck_assert_int_eq(parse(DC_IMPORT_MEGATRON, "--bf16 --use-distributed-optimizer --position-embedding-type rope\n--overlap-param-gather\n"), -1);
	ck_assert_str_eq(diag.entries[0].text, "t:2: error: '--overlap-param-gather': needs --overlap-grad-reduce, as "
					       "Megatron-LM asserts");
	ck_assert_int_eq(parse(DC_IMPORT_MEGATRON, "--bf16 --overlap-grad-reduce --overlap-param-gather --position-embedding-type rope"), -1);
	ck_assert_str_eq(diag.entries[0].text, "t:1: error: '--overlap-param-gather': needs --use-distributed-optimizer, "
					       "as Megatron-LM asserts");
	/* 50,000,000 parameters of FP32 main gradients (the megatron preset):
	 * 50,000,000 x 4 = 200,000,000 bytes */
	ck_assert_int_eq(parse(DC_IMPORT_MEGATRON, "--bf16 --overlap-grad-reduce --ddp-bucket-size 50000000 "
						   "--position-embedding-type rope"),
			 0);
	ck_assert_str_eq(get("parallel.bucket_size"), "200000000");
	/* BF16 gradients and BF16 parameters under the distributed
	 * optimizer: both 50,000,000 x 2 = 100,000,000 bytes */
	ck_assert_int_eq(parse(DC_IMPORT_MEGATRON, "--bf16 --grad-reduce-in-bf16 --use-distributed-optimizer "
						   "--overlap-grad-reduce --ddp-bucket-size 50000000 --position-embedding-type rope"),
			 0);
	ck_assert_str_eq(get("parallel.bucket_size"), "100000000");
	/* FP32 gradients (x 4) but BF16 parameters (x 2): no one size */
	ck_assert_int_eq(parse(DC_IMPORT_MEGATRON, "--bf16 --use-distributed-optimizer --overlap-grad-reduce "
						   "--ddp-bucket-size 50000000 --position-embedding-type rope"),
			 -1);
	ck_assert_str_eq(diag.entries[0].text,
			 "t:1: error: '--ddp-bucket-size': 50000000 parameters are 200000000 bytes of gradients but "
			 "100000000 bytes of parameters for the distributed optimizer's gather, and distcalc's "
			 "parallel.bucket_size is one size in bytes for both; remove it and give --set "
			 "parallel.bucket_size=BYTES");
	/* without --overlap-grad-reduce Megatron-LM makes no buckets */
	ck_assert_int_eq(parse(DC_IMPORT_MEGATRON, "--bf16 --ddp-bucket-size 50000000 --position-embedding-type rope"), 0);
	ck_assert_str_eq(get("parallel.bucket_size"), "(unset)");
	ck_assert_uint_eq(diag.count, 1);

	/* torchtitan: async TP at tp 2 with the model compiled */
	ck_assert_int_eq(parse(DC_IMPORT_TORCHTITAN, "[model]\nname = \"llama3\"\nflavor = \"8B\"\n"
						     "[parallelism]\ntensor_parallel_degree = 2\n"
						     "[compile]\nenable = true\nenable_async_tensor_parallel = true\n"
						     "[activation_checkpoint]\nmode = \"none\"\n"),
			 0);
	ck_assert_str_eq(get("training.framework"), "\"torchtitan\"");
	ck_assert_str_eq(get("overlap.tp"), "true");
	ck_assert_str_eq(get("parallel.sequence_parallel"), "(unset)"); /* torchtitan's default: on */
	/* each block compiled (compile.py apply_compile): training.compile */
	ck_assert_str_eq(get("training.compile"), "true");
	/* compiling the loss only: torchtitan raises */
	ck_assert_int_eq(parse(DC_IMPORT_TORCHTITAN, "[parallelism]\ntensor_parallel_degree = 2\n"
						     "[compile]\nenable = true\ncomponents = [\"loss\"]\n"
						     "enable_async_tensor_parallel = true\n"
						     "[activation_checkpoint]\nmode = \"none\"\n"),
			 -1);
	ck_assert_str_eq(diag.entries[0].text,
			 "t:6: error: [compile] enable_async_tensor_parallel: async TP needs the model compiled ([compile] "
			 "enable = true with \"model\" in components), as torchtitan requires");
	/* the older place, [parallelism], with [training] compile, at tp 1:
	 * nothing to overlap */
	ck_assert_int_eq(parse(DC_IMPORT_TORCHTITAN, "[training]\ncompile = true\n"
						     "[parallelism]\nenable_async_tensor_parallel = true\n"
						     "[activation_checkpoint]\nmode = \"none\"\n"),
			 0);
	ck_assert_str_eq(get("overlap.tp"), "(unset)");
	ck_assert_str_eq(get("training.compile"), "true");
	/* the loss compiled, not the model: no training.compile */
	ck_assert_int_eq(parse(DC_IMPORT_TORCHTITAN, "[compile]\nenable = true\ncomponents = [\"loss\"]\n"
						     "[activation_checkpoint]\nmode = \"none\"\n"),
			 0);
	ck_assert_str_eq(get("training.compile"), "(unset)");

	/* DeepSpeed ZeRO-2 in BF16: 2e8 elements of 2 bytes = 400,000,000 */
	ck_assert_int_eq(parse(DC_IMPORT_DEEPSPEED, "{\"train_micro_batch_size_per_gpu\": 1, \"zero_optimization\": {\"stage\": 2, \"reduce_bucket_size\": 2e8,"
						    " \"allgather_bucket_size\": 200000000}, \"bf16\": {\"enabled\": true}}"),
			 0);
	ck_assert_str_eq(get("training.framework"), "\"deepspeed\"");
	ck_assert_str_eq(get("parallel.bucket_size"), "400000000");
	/* the allgather bucket left at DeepSpeed's 5e8 */
	ck_assert_int_eq(parse(DC_IMPORT_DEEPSPEED, "{\"train_micro_batch_size_per_gpu\": 1, \"zero_optimization\": {\"stage\": 1, \"reduce_bucket_size\": 2e8}}"), -1);
	ck_assert_str_eq(diag.entries[0].text,
			 "t:1: error: 'reduce_bucket_size': 200000000 elements for the gradients' reduction but 500000000 "
			 "for the parameters' gather (DeepSpeed's default 5e8 for the one left out); distcalc's "
			 "parallel.bucket_size is one size for both: give them equal, or remove them and give --set "
			 "parallel.bucket_size=BYTES");
	/* ZeRO-3 runs as FSDP: warned, not mapped */
	ck_assert_int_eq(parse(DC_IMPORT_DEEPSPEED, "{\"train_micro_batch_size_per_gpu\": 1, \"zero_optimization\": {\"stage\": 3, \"reduce_bucket_size\": 5e7}}"), 0);
	ck_assert_str_eq(get("parallel.bucket_size"), "(unset)");
	ck_assert_uint_eq(diag.count, 1);
}
END_TEST

/* The equivalent config: the base's cluster (and, when the file names no
 * model, its model), the imported keys by section, two-space indent */
START_TEST(config_text)
{
	static const char base[] = "{\"model\": {\"hf_config\": \"models/x.json\", \"seq_length\": 8},"
				   " \"cluster\": {\"num_nodes\": 2, \"gpus_per_node\": 8}, \"parallel\": {\"tp\": 4}}";
	static const char want[] = "{\n"
				   "  \"description\": \"Imported by distcalc --from-deepspeed from ds.json (a DeepSpeed "
				   "config); the cluster from base.json.\",\n"
				   "  \"model\": {\n"
				   "    \"hf_config\": \"dir/models/x.json\",\n"
				   "    \"seq_length\": 8\n"
				   "  },\n"
				   "  \"cluster\": {\n"
				   "    \"num_nodes\": 2,\n"
				   "    \"gpus_per_node\": 4\n"
				   "  },\n"
				   "  \"parallel\": {\n"
				   "    \"sharding\": \"fsdp\"\n"
				   "  },\n"
				   "  \"training\": {\n"
				   "    \"micro_batch_size\": 1,\n"
				   "    \"framework\": \"deepspeed\"\n"
				   "  },\n"
				   "  \"precision\": {\n"
				   "    \"param_bytes\": 4,\n"
				   "    \"grad_bytes\": 4,\n"
				   "    \"master_bytes\": 0,\n"
				   "    \"optimizer_bytes\": 8\n"
				   "  },\n"
				   "  \"checkpoint\": {\n"
				   "    \"async\": true\n"
				   "  }\n"
				   "}\n";
	struct dc_buf out;
	ck_assert_int_eq(parse(DC_IMPORT_DEEPSPEED, "{\"train_micro_batch_size_per_gpu\": 1, \"zero_optimization\": {\"stage\": 3}}"), 0);
	ck_assert_int_eq(dc_import_override(&imp, "cluster.gpus_per_node=4", &diag), 0);
	ck_assert_int_eq(dc_import_override(&imp, "checkpoint.async=true", &diag), 0);
	dc_buf_init(&out);
	ck_assert_int_eq(dc_import_config(&imp, "in/ds.json", base, strlen(base), "dir/base.json", &out, &diag), 0);
	ck_assert_str_eq(out.data, want);
	dc_buf_release(&out);
	{
		/* the base's files against its folder, then against the folder
		 * the config is emitted to (a trial's --emit-config --output
		 * sub/x.json named sub/models/..., read as sub/sub/models/...;
		 * its topology file was never rebased): by hand, dir/models/x.json
		 * from out/deep/ is ../../dir/models/x.json, dir/t.txt from dir/
		 * t.txt, and an absolute path stays */
		static const char base2[] = "{\"model\": {\"hf_config\": \"models/x.json\", \"seq_length\": 8},"
					    " \"cluster\": {\"num_nodes\": 2, \"gpus_per_node\": 8, \"topology_file\": \"t.txt\"}}";
		static const char base3[] = "{\"model\": {\"hf_config\": \"/abs/x.json\", \"seq_length\": 8},"
					    " \"cluster\": {\"num_nodes\": 2, \"gpus_per_node\": 8, \"topology_file\": \"./t.txt\"}}";
		static const struct {
			const char *base, *dir, *hf, *topo;
		} cases[] = {
			{base2, NULL, "\"hf_config\": \"dir/models/x.json\"", "\"topology_file\": \"dir/t.txt\""},
			{base2, "out/deep/", "\"hf_config\": \"../../dir/models/x.json\"",
			 "\"topology_file\": \"../../dir/t.txt\""},
			{base2, "dir/", "\"hf_config\": \"models/x.json\"", "\"topology_file\": \"t.txt\""},
			{base2, "./dir/models/", "\"hf_config\": \"x.json\"", "\"topology_file\": \"../t.txt\""},
			{base3, "out/", "\"hf_config\": \"/abs/x.json\"", "\"topology_file\": \"../dir/t.txt\""},
			/* a folder past a "..": the path from here */
			{base2, "../up/", "\"hf_config\": \"dir/models/x.json\"", "\"topology_file\": \"dir/t.txt\""},
		};
		for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
			dc_buf_init(&out);
			ck_assert_int_eq(dc_import_config_in(&imp, "in/ds.json", cases[i].base, strlen(cases[i].base),
							     "dir/base.json", cases[i].dir, &out, &diag),
					 0);
			ck_assert_msg(strstr(out.data, cases[i].hf) && strstr(out.data, cases[i].topo), "case %zu: %s", i,
				      out.data);
			dc_buf_release(&out);
		}
	}
}
END_TEST

int main(void)
{
	Suite *s = suite_create("import");
	TCase *tc = tcase_create("core");
	SRunner *sr;
	int failed;
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, megatron_vocab_padding);
	tcase_add_test(tc, megatron_ffn_default);
	tcase_add_test(tc, megatron_set_rederives);
	tcase_add_test(tc, megatron_recompute_methods);
	tcase_add_test(tc, megatron_recompute_refusals);
	tcase_add_test(tc, megatron_fp16_gradients);
	tcase_add_test(tc, megatron_recompute_modules);
	tcase_add_test(tc, megatron_deepep);
	tcase_add_test(tc, megatron_defaults);
	tcase_add_test(tc, megatron_validations);
	tcase_add_test(tc, megatron_script_words);
	tcase_add_test(tc, megatron_errors);
	tcase_add_test(tc, torchtitan_mapping);
	tcase_add_test(tc, torchtitan_local_global);
	tcase_add_test(tc, torchtitan_pipeline_schedules_a_step);
	tcase_add_test(tc, torchtitan_stage_split);
	tcase_add_test(tc, torchtitan_flavors_left_refused);
	tcase_add_test(tc, torchtitan_experimental_layout);
	tcase_add_test(tc, torchtitan_hf_assets_path);
	tcase_add_test(tc, torchtitan_mx);
	tcase_add_test(tc, torchtitan_quantize_tables);
	tcase_add_test(tc, megatron_virtual_pipeline);
	tcase_add_test(tc, megatron_case_patterns);
	tcase_add_test(tc, megatron_backslash_space);
	tcase_add_test(tc, megatron_prefix_assignment);
	tcase_add_test(tc, toml_errors);
	tcase_add_test(tc, deepspeed_mapping);
	tcase_add_test(tc, deepspeed_duplicates);
	tcase_add_test(tc, deepspeed_bf16_optimizer);
	tcase_add_test(tc, deepspeed_fp32_master_copy);
	tcase_add_test(tc, deepspeed_switched_sections);
	tcase_add_test(tc, deepspeed_bfloat16_legacy);
	tcase_add_test(tc, megatron_mla);
	tcase_add_test(tc, megatron_left_out_arguments);
	tcase_add_test(tc, deepspeed_offload_and_precision_keys);
	tcase_add_test(tc, megatron_conditions);
	tcase_add_test(tc, megatron_comment_ends_continuation);
	tcase_add_test(tc, fp8_recipes);
	tcase_add_test(tc, deepspeed_batch_triple);
	tcase_add_test(tc, deepspeed_micro_derived);
	tcase_add_test(tc, torchtitan_string_values_named);
	tcase_add_test(tc, torchtitan_compile_and_optimizer_keys);
	tcase_add_test(tc, torchtitan_ddp);
	tcase_add_test(tc, megatron_arguments_in_a_variable);
	tcase_add_test(tc, megatron_bad_value_once);
	tcase_add_test(tc, framework_mapping);
	tcase_add_test(tc, config_text);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
