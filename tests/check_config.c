/* check_config.c - the loader (config.h): values, defaults, every error
 * class with its exact message, --set semantics and allocation failures.
 *
 * Figures: configs/systems.json is the Llama-2-7B shape, whose published
 * total is 6,738,415,616 parameters (../shared/reference/published-figures.md,
 * from the model's safetensors index). By hand from the shape (h = 4096,
 * f = 11008, 32 layers, 32 heads, vocab 32000, untied, SwiGLU, RMSNorm):
 *   per layer  4h^2 (q, k, v, o) + 3hf (gate, up, down) + 2h (norms)
 *              = 67,108,864 + 135,266,304 + 8,192 = 202,383,360
 *   32 layers  6,476,267,520
 *   embedding and head  2 x 32000 x 4096 = 262,144,000; final norm 4096
 *   total      6,476,267,520 + 262,144,000 + 4,096 = 6,738,415,616
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "distcalc/config.h"
#include "distcalc/plan.h"
#include "distcalc/util.h"

#define SYSTEMS DC_SOURCE_DIR "/configs/systems.json"

/* A small valid config; tests edit copies of it. */
static const char base[] = "{\n"
			   "  \"model\": {\"num_layers\": 32, \"hidden_size\": 4096, \"num_attention_heads\": 32,\n"
			   "            \"vocab_size\": 32000, \"seq_length\": 4096},\n"
			   "  \"cluster\": {\"num_nodes\": 2, \"gpus_per_node\": 4, \"gpu_memory\": \"80 GiB\",\n"
			   "              \"intra_node\": {\"bandwidth\": \"300 GB/s\"},\n"
			   "              \"inter_node\": {\"bandwidth\": \"400 Gb/s\"}},\n"
			   "  \"parallel\": {\"tp\": 4}\n"
			   "}\n";

static char *read_all(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	ck_assert_msg(f != NULL, "cannot open %s", path);
	buf = malloc(2 * 1024 * 1024);
	ck_assert(buf != NULL);
	*len = fread(buf, 1, 2 * 1024 * 1024, f);
	fclose(f);
	return buf;
}

/* Loads `text` named "t.json" with `sets`; returns the joined messages. */
static int load(const char *text, const char *const *sets, size_t nsets, struct dc_config *cfg,
		struct dc_diag *d)
{
	struct dc_override ov[8];
	ck_assert(nsets <= 8);
	for (size_t i = 0; i < nsets; i++)
		ov[i] = (struct dc_override){sets[i], 0};
	dc_diag_init(d);
	return dc_config_load_buffer(text, strlen(text), "t.json", ov, nsets, cfg, d);
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

/* `text` must fail with status `st` and exactly the lines `want`. */
static void expect_error(const char *text, const char *const *sets, size_t nsets, enum dc_status st,
			 const char *want)
{
	struct dc_config cfg;
	struct dc_diag d;
	char got[4096];
	int rc = load(text, sets, nsets, &cfg, &d);
	joined(&d, got, sizeof(got));
	ck_assert_msg(rc == -1, "accepted:\n%s", text);
	ck_assert_int_eq(d.status, st);
	ck_assert_str_eq(got, want);
	dc_diag_release(&d);
}

/* base with the first `from` replaced by `to` */
static char *edit(const char *from, const char *to)
{
	static char buf[4096];
	const char *p = strstr(base, from);
	ck_assert_msg(p != NULL, "'%s' is not in the base config", from);
	snprintf(buf, sizeof(buf), "%.*s%s%s", (int)(p - base), base, to, p + strlen(from));
	return buf;
}

/* Loads `text` with `sets` (and the layout search's opts when `search`)
 * and returns its messages joined in `got`: 0 or -1 as the load. */
static int load_said(const char *text, const char *const *sets, size_t nsets, int search, char *got, size_t len)
{
	struct dc_override ov[8];
	struct dc_load_opts o;
	struct dc_config cfg;
	struct dc_diag d;
	int rc;
	ck_assert(nsets <= 8);
	for (size_t i = 0; i < nsets; i++)
		ov[i] = (struct dc_override){sets[i], 0};
	memset(&o, 0, sizeof(o));
	o.overrides = ov;
	o.noverrides = nsets;
	o.search = search;
	dc_diag_init(&d);
	rc = dc_config_load_buffer_opts(text, strlen(text), "t.json", &o, &cfg, &d);
	joined(&d, got, len);
	dc_diag_release(&d);
	return rc;
}

/* A value that overrides a preset's is worded in the preset's unit
 * without an exponent down to 20 zeros: 1.23456e-11 s is 0.0000123456 us,
 * 1e-26 s is 0.00000000000000000001 us (1e-20, 19 zeros); 1e-40 s would take 33
 * and keeps its exponent, 1e-34 us */
START_TEST(test_tiny_override_text)
{
	static const struct {
		const char *set, *text;
	} cases[] = {
		{"cluster.intra_node.latency=1.23456e-11", "'cluster.intra_node.latency': 0.0000123456 us from --set"},
		{"cluster.intra_node.latency=1e-26", "'cluster.intra_node.latency': 0.00000000000000000001 us from --set"},
		{"cluster.intra_node.latency=1e-40", "'cluster.intra_node.latency': 1e-34 us from --set"},
		/* values %g writes alike get the digits that tell them apart:
		 * 400.0000001 Gb/s / 8 = 50.0000000125 GB/s, "50" to 9 digits,
		 * "50.00000001" at 10 (a trial read "50 GB/s ... overrides 50
		 * GB/s") */
		{"cluster.inter_node.bandwidth=400.0000001 Gb/s",
		 "'cluster.inter_node.bandwidth': 50.00000001 GB/s from --set overrides 50 GB/s that cluster.system"},
	};
	char got[4096];
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		ck_assert_int_eq(load_said(base, (const char *const[]){"cluster.system=dgx-h100", cases[i].set}, 2, 0, got,
					   sizeof(got)),
				 0);
		ck_assert_msg(strstr(got, cases[i].text) != NULL, "%s: %s", cases[i].set, got);
	}
}
END_TEST

/* A world that is not a whole number of NVLink domains warns: 128 nodes
 * of 4 are 512 GPUs, 7 domains of 72 (504) and 8 over; 36 nodes are 144,
 * two whole domains; 16 nodes are 64, inside one domain */
START_TEST(test_partial_nvlink_domain)
{
	char got[2048];
	ck_assert_int_eq(load_said(base, (const char *const[]){"cluster.num_nodes=128", "cluster.nvlink_domain=72"}, 2, 0,
				   got, sizeof(got)),
			 0);
	ck_assert_msg(strstr(got, "'cluster.nvlink_domain': the world's 512 GPUs (cluster.num_nodes x gpus_per_node) are not a whole number of 72-GPU NVLink domains: the "
				  "last domain holds 8,") != NULL,
		      "%s", got);
	/* the hint: the largest whole part of a domain, at least half, that
	 * 512 fills: 68, 64 (512 = 8 x 64) */
	ck_assert_msg(strstr(got, "; if the job is given 64 GPUs of each domain (512 = 8 x 64), set cluster.nvlink_domain to "
				  "64, and the groups are priced on the domains they then span") != NULL,
		      "%s", got);
	/* 4 nodes of 4 are 16 GPUs over domains of 12: no part of 8 to 11
	 * GPUs in steps of 4 divides 16 but 8 (16 = 2 x 8) */
	ck_assert_int_eq(load_said(base, (const char *const[]){"cluster.num_nodes=4", "cluster.nvlink_domain=12"}, 2, 0,
				   got, sizeof(got)),
			 0);
	ck_assert_msg(strstr(got, "(16 = 2 x 8), set cluster.nvlink_domain to 8") != NULL, "%s", got);
	/* 5 nodes of 4 over domains of 12: 20 = 12 + 8, and 8 does not
	 * divide 20: no hint */
	ck_assert_int_eq(load_said(base, (const char *const[]){"cluster.num_nodes=5", "cluster.nvlink_domain=12"}, 2, 0,
				   got, sizeof(got)),
			 0);
	ck_assert_msg(strstr(got, "holds 8,") != NULL && strstr(got, "if the job is given") == NULL, "%s", got);
	ck_assert_int_eq(load_said(base, (const char *const[]){"cluster.num_nodes=36", "cluster.nvlink_domain=72"}, 2, 0,
				   got, sizeof(got)),
			 0);
	ck_assert_str_eq(got, "");
	ck_assert_int_eq(load_said(base, (const char *const[]){"cluster.num_nodes=16", "cluster.nvlink_domain=72"}, 2, 0,
				   got, sizeof(got)),
			 0);
	ck_assert_str_eq(got, "");
}
END_TEST

/* A key given a value this layout never reads warns as the FP8 keys do
 * under bf16: the key, its value, why, what to do; its default, or a
 * layout that reads it, says nothing. */
START_TEST(test_keys_without_effect)
{
	char got[2048], nomem[4096];
	const char *fsdp_why = "applies to FSDP, but parallel.sharding is \"none\": it has no effect on this layout "
			       "(the strategies section's fsdp row reads it); set parallel.sharding to \"fsdp\" or drop the key";
	char want[1024];

	snprintf(nomem, sizeof(nomem), "%s", edit("\"gpu_memory\": \"80 GiB\",", ""));
	/* the FSDP keys without FSDP */
	ck_assert_int_eq(load_said(base, (const char *const[]){"parallel.fsdp_unit=model"}, 1, 0, got, sizeof(got)), 0);
	snprintf(want, sizeof(want), "--set: 'parallel.fsdp_unit': \"model\" %s", fsdp_why);
	ck_assert_str_eq(got, want);
	ck_assert_int_eq(load_said(base, (const char *const[]){"parallel.reshard_after_forward=false"}, 1, 0, got,
				   sizeof(got)),
			 0);
	snprintf(want, sizeof(want), "--set: 'parallel.reshard_after_forward': false %s", fsdp_why);
	ck_assert_str_eq(got, want);
	ck_assert_int_eq(load_said(base, (const char *const[]){"overlap.fsdp_prefetch=false"}, 1, 0, got, sizeof(got)), 0);
	snprintf(want, sizeof(want), "--set: 'overlap.fsdp_prefetch': false %s", fsdp_why);
	ck_assert_str_eq(got, want);
	/* from the file: the file's name */
	ck_assert_int_eq(load_said(edit("\"tp\": 4}", "\"tp\": 4, \"fsdp_unit\": \"model\", \"sharding\": \"zero1\"}"),
				   NULL, 0, 0, got, sizeof(got)),
			 0);
	ck_assert_str_eq(got, "t.json: 'parallel.fsdp_unit': \"model\" applies to FSDP, but parallel.sharding is \"zero1\": it has no effect on this layout (the strategies section's fsdp row reads it); set parallel.sharding to \"fsdp\" or drop the key");
	/* under FSDP, at their defaults, or where the search tries FSDP: nothing */
	ck_assert_int_eq(load_said(base, (const char *const[]){"parallel.sharding=fsdp", "parallel.fsdp_unit=model",
							       "parallel.reshard_after_forward=false"},
				   3, 0, got, sizeof(got)),
			 0);
	ck_assert_str_eq(got, "");
	ck_assert_int_eq(load_said(base, (const char *const[]){"parallel.fsdp_unit=layer", "overlap.fsdp_prefetch=true",
							       "parallel.reshard_after_forward=true"},
				   3, 0, got, sizeof(got)),
			 0);
	ck_assert_str_eq(got, "");
	/* torchtitan's default with a pipeline is no resharding */
	ck_assert_int_eq(load_said(base, (const char *const[]){"training.framework=torchtitan", "parallel.pp=2",
							       "parallel.dp=1", "parallel.reshard_after_forward=false"},
				   4, 0, got, sizeof(got)),
			 0);
	ck_assert_str_eq(got, "");
	ck_assert_int_eq(load_said(base, (const char *const[]){"parallel.fsdp_unit=model"}, 1, 1, got, sizeof(got)), 0);
	ck_assert_str_eq(got, "");
	ck_assert_int_eq(load_said(base, (const char *const[]){"parallel.fsdp_unit=model",
							       "search.space.sharding=[\"none\", \"zero1\"]"},
				   2, 1, got, sizeof(got)),
			 0);
	ck_assert_str_eq(got, "--set: 'parallel.fsdp_unit': \"model\" applies to FSDP, but parallel.sharding is \"none\": it has no effect; set parallel.sharding to \"fsdp\" or drop the key");

	/* cp_comm_type at cp 1; at cp 2 (seq 4096, 8 heads per tp rank) it acts */
	ck_assert_int_eq(load_said(base, (const char *const[]){"parallel.cp_comm_type=a2a"}, 1, 0, got, sizeof(got)), 0);
	ck_assert_str_eq(got, "--set: 'parallel.cp_comm_type': \"a2a\" applies to context parallelism, but parallel.cp is 1: it has no effect; set parallel.cp above 1 or drop the key");
	ck_assert_int_eq(load_said(base, (const char *const[]){"parallel.cp_comm_type=a2a", "parallel.cp=2", "parallel.dp=1"},
				   3, 0, got, sizeof(got)),
			 0);
	ck_assert_str_eq(got, "");
	ck_assert_int_eq(load_said(base, (const char *const[]){"parallel.cp_comm_type=p2p"}, 1, 0, got, sizeof(got)), 0);
	ck_assert_str_eq(got, "");
	ck_assert_int_eq(load_said(base, (const char *const[]){"parallel.cp_comm_type=a2a"}, 1, 1, got, sizeof(got)), 0);
	ck_assert_str_eq(got, "");
	ck_assert_int_eq(load_said(base, (const char *const[]){"parallel.cp_comm_type=a2a", "search.space.cp=[1]"}, 2, 1,
				   got, sizeof(got)),
			 0);
	ck_assert_str_eq(got, "--set: 'parallel.cp_comm_type': \"a2a\" applies to context parallelism, but parallel.cp is 1: it has no effect; set parallel.cp above 1 or drop the key");

	/* NVLS on an A100 (no NVSwitch reductions), or with nvls false */
	ck_assert_int_eq(load_said(nomem, (const char *const[]){"cluster.gpu=a100-sxm4-80gb", "collective.algorithm=nvls"}, 2,
				   0, got, sizeof(got)),
			 0);
	ck_assert_str_eq(got, "--set: 'collective.algorithm': \"nvls\" needs NVLink SHARP, which 'cluster.gpu' \"a100-sxm4-80gb\" has not (no NVSwitch reductions): NVLS never runs, so every collective falls back to \"ring\", not to auto's choice; set collective.algorithm to \"auto\" or drop the key");
	ck_assert_int_eq(load_said(nomem, (const char *const[]){"cluster.gpu=h100-sxm5-80gb", "collective.algorithm=nvls"}, 2,
				   0, got, sizeof(got)),
			 0);
	ck_assert_str_eq(got, "--set: 'collective.algorithm': \"nvls\" needs NVLink SHARP, but cluster.nvls is false: NVLS never runs, so every collective falls back to \"ring\", not to auto's choice; set cluster.nvls true, or collective.algorithm to \"auto\"");
	ck_assert_int_eq(load_said(nomem, (const char *const[]){"cluster.gpu=h100-sxm5-80gb", "cluster.nvls=true",
								"collective.algorithm=nvls"},
				   3, 0, got, sizeof(got)),
			 0);
	ck_assert_str_eq(got, "");

	/* Megatron-LM runs neither ZeRO-2 nor torch.compile: priced as given */
	ck_assert_int_eq(load_said(base, (const char *const[]){"training.framework=megatron", "precision.preset=megatron", "parallel.sharding=zero2"}, 3,
				   0, got, sizeof(got)),
			 0);
	ck_assert_str_eq(got, "--set: 'parallel.sharding': \"zero2\" is not a Megatron-LM sharding (its distributed optimizer is \"zero1\", --use-torch-fsdp2 \"fsdp\"), but training.framework is \"megatron\": it is priced as given, as ZeRO-2 (gradients reduce-scattered every microbatch, no overlap.param_gather); set parallel.sharding to \"zero1\" or \"fsdp\", or training.framework to \"deepspeed\"");
	ck_assert_int_eq(load_said(base, (const char *const[]){"training.framework=megatron", "precision.preset=megatron", "training.compile=true"}, 3, 0,
				   got, sizeof(got)),
			 0);
	ck_assert_str_eq(got, "--set: 'training.compile': true is torch.compile of each block (torchtitan's [compile]), which Megatron-LM does not run, but training.framework is \"megatron\": it is priced as given, with Inductor's fusions; drop the key, or set training.framework to \"torchtitan\"");
	ck_assert_int_eq(load_said(base, (const char *const[]){"training.framework=deepspeed", "parallel.sharding=zero2"}, 2,
				   0, got, sizeof(got)),
			 0);
	ck_assert_str_eq(got, "");
	ck_assert_int_eq(load_said(base, (const char *const[]){"training.framework=torchtitan", "training.compile=true"}, 2,
				   0, got, sizeof(got)),
			 0);
	ck_assert_str_eq(got, "");

	/* one FSDP unit has nothing to prefetch */
	ck_assert_int_eq(load_said(base, (const char *const[]){"parallel.sharding=fsdp", "parallel.fsdp_unit=model",
								"overlap.fsdp_prefetch=false"},
				   3, 0, got, sizeof(got)),
			 0);
	ck_assert_str_eq(got, "--set: 'overlap.fsdp_prefetch': false turns off prefetching the next unit's AllGather, but parallel.fsdp_unit is \"model\": the one unit's gather is waited for either way, so it has no effect; set parallel.fsdp_unit to \"layer\" or drop the key");
	ck_assert_int_eq(load_said(base, (const char *const[]){"parallel.sharding=fsdp", "overlap.fsdp_prefetch=false"}, 2,
				   0, got, sizeof(got)),
			 0);
	ck_assert_str_eq(got, "");

	/* torchtitan shards with FSDP2 or replicates (DDP): no ZeRO-1/2 */
	ck_assert_int_eq(load_said(base, (const char *const[]){"training.framework=torchtitan", "parallel.sharding=zero1"}, 2,
				   0, got, sizeof(got)),
			 0);
	ck_assert_str_eq(got, "--set: 'parallel.sharding': \"zero1\" is not a torchtitan sharding (it runs FSDP2's fully_shard, \"fsdp\", or replicated DDP, \"none\"), but training.framework is \"torchtitan\": it is priced as given, as ZeRO-1; set parallel.sharding to \"fsdp\" (reshard_after_forward false keeps the parameters gathered, as ZeRO-2 does) or \"none\", or training.framework to \"deepspeed\"");
	ck_assert_int_eq(load_said(base, (const char *const[]){"training.framework=torchtitan", "parallel.sharding=zero2"}, 2,
				   0, got, sizeof(got)),
			 0);
	ck_assert_msg(strstr(got, "priced as given, as ZeRO-2;") != NULL, "%s", got);
	ck_assert_int_eq(load_said(base, (const char *const[]){"training.framework=torchtitan", "parallel.sharding=fsdp",
							     "precision.preset=fsdp2"},
				   3, 0, got, sizeof(got)),
			 0);
	ck_assert_str_eq(got, "");
	/* FSDP under torchtitan without its preset: FSDP2's FP32 shards and
	 * reduce are the fsdp2 preset's, which the framework does not set */
	ck_assert_int_eq(load_said(base, (const char *const[]){"training.framework=torchtitan", "parallel.sharding=fsdp"}, 2,
				   0, got, sizeof(got)),
			 0);
	ck_assert_str_eq(got, "--set: 'precision.preset': left at \"course\" (2-byte gradients, BF16 shards), but training.framework is \"torchtitan\", whose FSDP2 keeps FP32 parameter shards and reduces the gradients in FP32 (mixed_precision_param \"bfloat16\" gathers, mixed_precision_reduce \"float32\": torchtitan/config/configs.py:94-102 at b5bcd76c); set precision.preset \"fsdp2\" to price them so, or give the state bytes (precision.param_bytes, grad_bytes and the others)");
	/* under megatron, unless the gradients' bytes are given */
	ck_assert_int_eq(load_said(base, (const char *const[]){"training.framework=megatron"}, 1, 0, got, sizeof(got)), 0);
	ck_assert_msg(strstr(got, "whose --bf16 runs accumulate and reduce the gradients in FP32") != NULL, "%s", got);
	ck_assert_int_eq(load_said(base, (const char *const[]){"training.framework=megatron", "precision.grad_bytes=2"}, 2, 0,
				   got, sizeof(got)),
			 0);
	ck_assert_str_eq(got, "");
	/* any state's bytes given: the user chose them (a review saw FP32
	 * shards given with param_bytes 4 called "BF16 shards") */
	ck_assert_int_eq(load_said(base, (const char *const[]){"training.framework=torchtitan", "parallel.sharding=fsdp",
							     "precision.param_bytes=4"},
				   3, 0, got, sizeof(got)),
			 0);
	ck_assert_str_eq(got, "");
}
END_TEST

START_TEST(test_systems_json)
{
	struct dc_config cfg;
	struct dc_plan plan;
	struct dc_diag d;
	dc_diag_init(&d);
	ck_assert_int_eq(dc_config_load_file(SYSTEMS, NULL, 0, &cfg, &d), 0);
	ck_assert_uint_eq(d.count, 0);
	ck_assert_uint_eq(cfg.model.params, 0); /* the plan counts the shape */
	ck_assert_int_eq(dc_plan_derive(&cfg, &plan), 0);
	ck_assert_uint_eq(plan.params_total, 6738415616ull);
	ck_assert(!cfg.model.params_explicit);
	ck_assert_uint_eq(cfg.world_size, 8);
	ck_assert_uint_eq(cfg.parallel.dp, 2);
	ck_assert_uint_eq(cfg.parallel.tp, 4);
	ck_assert_uint_eq(cfg.parallel.pp, 1);
	ck_assert_uint_eq(cfg.cluster.gpu_mem_bytes, 85899345920ull); /* 80 x 2^30 */
	ck_assert(cfg.cluster.inter_node.bw_bytes_per_s == 5e10);      /* 400 Gb/s / 8 */
	ck_assert(cfg.cluster.intra_node.bw_bytes_per_s == 3e11);
	ck_assert(cfg.cluster.inter_node.latency_s == 1e-5);
	ck_assert(cfg.cluster.intra_node.latency_s == 5e-6);
	/* defaults: all ranks; the most loaded rank's gradient bytes. A tp-4
	 * rank holds 32 x (202,375,168 / 4 + 8,192) layer parameters, a quarter
	 * of embedding and head (2 x 32000 x 4096 / 4 = 65,536,000) and the
	 * final norm (4,096): 1,619,263,488 + 65,536,000 + 4,096 =
	 * 1,684,803,584 parameters x 2 B = 3,369,607,168 */
	ck_assert_uint_eq(cfg.collective.ranks, 0); /* absent: the plan's default */
	ck_assert_uint_eq(plan.ring_ranks, 8);
	ck_assert_uint_eq(plan.ring_msg_bytes, 3369607168ull);
	ck_assert_int_eq(cfg.collective.link, DC_LINK_AUTO);
	dc_diag_release(&d);
}
END_TEST

START_TEST(test_builtin_default_is_systems_json)
{
	size_t len;
	char *buf = read_all(SYSTEMS, &len);
	ck_assert_uint_eq(dc_default_config_len, len);
	ck_assert(memcmp(dc_default_config, buf, len) == 0);
	free(buf);
}
END_TEST

START_TEST(test_syntax_errors)
{
	expect_error("{\n  \"a\": 1\n  \"b\": 2\n}\n", NULL, 0, DC_ERR_CONFIG,
		     "t.json:3:3: error: expected ',' or '}' before this key\n  \"b\": 2\n  ^");
	expect_error("{\"a\": [1, 2,]}", NULL, 0, DC_ERR_CONFIG,
		     "t.json:1:12: error: trailing comma: JSON does not allow ',' before ']'\n{\"a\": [1, 2,]}\n           ^");
	expect_error("{\"a\": 01}", NULL, 0, DC_ERR_CONFIG,
		     "t.json:1:7: error: numbers must not have leading zeros\n{\"a\": 01}\n      ^");
	expect_error("{\"a\": +1}", NULL, 0, DC_ERR_CONFIG,
		     "t.json:1:7: error: numbers must not start with '+'\n{\"a\": +1}\n      ^");
	expect_error("{\"a\": NaN}", NULL, 0, DC_ERR_CONFIG,
		     "t.json:1:7: error: non-finite numbers are not allowed\n{\"a\": NaN}\n      ^");
	expect_error("{'a': 1}", NULL, 0, DC_ERR_CONFIG,
		     "t.json:1:2: error: strings take double quotes, not single quotes\n{'a': 1}\n ^");
	expect_error("{\"a\": \"x\ty\"}", NULL, 0, DC_ERR_CONFIG,
		     "t.json:1:9: error: control character 0x09 in a string: write it as an escape such as \\n or \\t\n{\"a\": \"x y\"}\n        ^");
	expect_error("{\"a\": \"\xff\"}", NULL, 0, DC_ERR_CONFIG,
		     "t.json:1:8: error: invalid UTF-8 byte 0xff in a string\n{\"a\": \"\\xff\"}\n       ^");
	/* the caret counts characters: a two-byte é is one column (col stays a byte count) */
	expect_error("{\"\xc3\xa9\": 1 \"b\": 2}", NULL, 0, DC_ERR_CONFIG,
		     "t.json:1:10: error: expected ',' or '}' before this key\n{\"\xc3\xa9\": 1 \"b\": 2}\n        ^");
	expect_error("{\"a\": 1", NULL, 0, DC_ERR_CONFIG,
		     "t.json:1:1: error: unexpected end of input: this object is not closed\n{\"a\": 1\n^");
	expect_error("{} x", NULL, 0, DC_ERR_CONFIG,
		     "t.json:1:4: error: trailing data after the JSON object\n{} x\n   ^");
	expect_error("[1]", NULL, 0, DC_ERR_CONFIG, "t.json: error: the top level must be a JSON object, got an array");
	expect_error(" \n\t", NULL, 0, DC_ERR_CONFIG, "t.json: error: the file is empty; a config is a JSON object");
	{
		/* 65 nested arrays: deeper than the limit of 64 */
		char deep[200] = "{\"a\": ";
		for (int i = 0; i < 64; i++)
			strcat(deep, "[");
		expect_error(deep, NULL, 0, DC_ERR_CONFIG,
			     "t.json:1:70: error: nesting is deeper than 64 levels\n{\"a\": [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[\n"
			     "                                                                     ^");
	}
}
END_TEST

START_TEST(test_nul_and_size)
{
	static const char nul[] = "{\"a\":\0 1}";
	struct dc_config cfg;
	struct dc_diag d;
	char got[512];
	char *big;

	dc_diag_init(&d);
	ck_assert_int_eq(dc_config_load_buffer(nul, sizeof(nul) - 1, "t.json", NULL, 0, &cfg, &d), -1);
	joined(&d, got, sizeof(got));
	ck_assert_str_eq(got, "t.json:1:6: error: NUL byte in the file; a config is UTF-8 JSON text\n{\"a\":  1}\n     ^");
	ck_assert_int_eq(d.status, DC_ERR_CONFIG);
	dc_diag_release(&d);
	/* a byte that is not UTF-8 before the NUL: escaped, four columns wide */
	{
		static const char bad[] = "{\"\xfe\":\0 1}";
		dc_diag_init(&d);
		ck_assert_int_eq(dc_config_load_buffer(bad, sizeof(bad) - 1, "t.json", NULL, 0, &cfg, &d), -1);
		joined(&d, got, sizeof(got));
		ck_assert_str_eq(got, "t.json:1:6: error: NUL byte in the file; a config is UTF-8 JSON text\n{\"\\xfe\":  1}\n        ^");
		dc_diag_release(&d);
	}

	/* 1 MiB + 1 bytes: refused before parsing, as unreadable input */
	big = malloc(DC_CONFIG_MAX_BYTES + 1);
	ck_assert(big != NULL);
	memset(big, ' ', DC_CONFIG_MAX_BYTES + 1);
	dc_diag_init(&d);
	ck_assert_int_eq(dc_config_load_buffer(big, DC_CONFIG_MAX_BYTES + 1, "t.json", NULL, 0, &cfg, &d), -1);
	joined(&d, got, sizeof(got));
	ck_assert_str_eq(got, "t.json: error: file is larger than 1 MiB (1048577 bytes)");
	ck_assert_int_eq(d.status, DC_ERR_INPUT);
	dc_diag_release(&d);
	free(big);

	dc_diag_init(&d);
	ck_assert_int_eq(dc_config_load_file(DC_SOURCE_DIR "/configs", NULL, 0, &cfg, &d), -1);
	joined(&d, got, sizeof(got));
	ck_assert_str_eq(got, DC_SOURCE_DIR "/configs: error: is a directory, not a config file");
	ck_assert_int_eq(d.status, DC_ERR_INPUT);
	dc_diag_release(&d);
}
END_TEST

START_TEST(test_value_errors)
{
	expect_error(edit("\"hidden_size\"", "\"hidden_siz\""), NULL, 0, DC_ERR_CONFIG,
		     "t.json: error: 'model.hidden_siz': unknown key; did you mean 'model.hidden_size'?");
	/* a duplicate names its line:column and the first copy's, counted
	 * by hand in base: line 3 is 12 spaces, then "vocab_size": 32000,
	 * and a space (21 bytes), so the first seq_length opens at column 34
	 * and the copy after "seq_length": 4096, and a space (20) at 54 */
	expect_error(edit("\"seq_length\": 4096", "\"seq_length\": 4096, \"seq_length\": 4096"), NULL, 0, DC_ERR_CONFIG,
		     "t.json:3:54: error: 'model.seq_length': duplicate key (first at 3:34)");
	/* the copy spelled with an escape is the same key, at the same place */
	expect_error(edit("\"seq_length\": 4096", "\"seq_length\": 4096, \"seq\\u005flength\": 1"), NULL, 0,
		     DC_ERR_CONFIG, "t.json:3:54: error: 'model.seq_length': duplicate key (first at 3:34)");
	/* nested: line 5 is 14 spaces and "intra_node": { (15 bytes), so
	 * bandwidth opens at 30, its copy after "bandwidth": "300 GB/s", and a
	 * space (25) at 55 */
	expect_error(edit("{\"bandwidth\": \"300 GB/s\"}", "{\"bandwidth\": \"300 GB/s\", \"bandwidth\": \"1 GB/s\"}"),
		     NULL, 0, DC_ERR_CONFIG,
		     "t.json:5:55: error: 'cluster.intra_node.bandwidth': duplicate key (first at 5:30)");
	/* a section given twice: line 7, 2 spaces, then "parallel": {"tp": 4},
	 * and a space (23 bytes) */
	expect_error(edit("\"parallel\": {\"tp\": 4}", "\"parallel\": {\"tp\": 4}, \"parallel\": {\"tp\": 2}"), NULL, 0,
		     DC_ERR_CONFIG, "t.json:7:26: error: 'parallel': duplicate key (first at 7:3)");
	expect_error(edit("\"num_layers\": 32", "\"num_layers\": \"32\""), NULL, 0, DC_ERR_CONFIG,
		     "t.json: error: 'model.num_layers': expected an integer, got the string \"32\"");
	expect_error(edit("\"num_layers\": 32", "\"num_layers\": null"), NULL, 0, DC_ERR_CONFIG,
		     "t.json: error: 'model.num_layers': null is not allowed; remove the key to use the default");
	expect_error(edit("\"hidden_size\": 4096", "\"hidden_size\": 4096.0000001"), NULL, 0, DC_ERR_CONFIG,
		     "t.json: error: 'model.hidden_size': must be a whole number, got 4096.0000001");
	expect_error(edit("\"num_layers\": 32", "\"num_layers\": 0"), NULL, 0, DC_ERR_CONFIG,
		     "t.json: error: 'model.num_layers': must be at least 1, got 0");
	expect_error(edit("\"num_nodes\": 2", "\"num_nodes\": -2"), NULL, 0, DC_ERR_CONFIG,
		     "t.json: error: 'cluster.num_nodes': must be at least 1, got -2");
	expect_error(edit("\"vocab_size\": 32000", "\"vocab_size\": 1e999"), NULL, 0, DC_ERR_CONFIG,
		     "t.json: error: 'model.vocab_size': must be a finite number, got a number too large for a double");
	/* 2^53 + 1 reads as 2^53, which is already refused */
	expect_error(edit("\"vocab_size\": 32000", "\"vocab_size\": 9007199254740993"), NULL, 0, DC_ERR_CONFIG,
		     "t.json: error: 'model.vocab_size': must be below 2^53 (9007199254740992), got about 9.0072e+15");
	expect_error(edit("\"gpu_memory\": \"80 GiB\"", "\"gpu_memory\": \"80G\""), NULL, 0, DC_ERR_CONFIG,
		     "t.json: error: 'cluster.gpu_memory': ambiguous unit 'G': write '80 GB' (10^9 bytes) or '80 GiB' (2^30 bytes)");
	expect_error(edit("\"300 GB/s\"", "\"0 GB/s\""), NULL, 0, DC_ERR_CONFIG,
		     "t.json: error: 'cluster.intra_node.bandwidth': must be at least 1 bytes/s, got \"0 GB/s\" (0 bytes/s)");
	expect_error(edit("\"parallel\": {\"tp\": 4}", "\"parallel\": {\"tp\": 4, \"sharding\": \"zero4\"}"), NULL, 0,
		     DC_ERR_CONFIG,
		     "t.json: error: 'parallel.sharding': unknown value \"zero4\"; did you mean \"zero1\" or \"zero2\"? (expected one of \"none\", \"zero1\", \"zero2\", \"fsdp\")");
	expect_error(edit("{\n", "{\n  \"model\\u001b[31m\": 1,\n"), NULL, 0, DC_ERR_CONFIG,
		     "t.json: error: 'model?[31m': unknown key");
	{
		char text[1024];
		char want[128];
		char desc[301];
		memset(desc, 'x', 300);
		desc[300] = '\0';
		snprintf(text, sizeof(text), "{\"description\": \"%s\",%s", desc, base + 1);
		snprintf(want, sizeof(want), "t.json: error: 'description': string must be at most 256 bytes, got 300 bytes");
		expect_error(text, NULL, 0, DC_ERR_CONFIG, want);
	}
}
END_TEST

/* Uneven pipelines and context parallelism: every bad value names its key
 * (base: 32 layers, 32 heads, seq 4096, 8 ranks, tp 4). */
/* cluster.inter_node.plugin_latency and cluster.*.ramp (what --calibrate
 * fits, docs/network-model.md): left out, cluster.network's latency and no
 * ramp; given, the values land where dc_net_init reads them; every bad
 * value is refused with the key and the reason. */
START_TEST(test_ramp_and_plugin_keys)
{
	struct dc_config cfg;
	struct dc_diag d;
	const double zero[DC_NET_RAMP_KNOTS] = {0};
	const char *const sets[] = {"cluster.inter_node.ramp=[0.5, 0.625, 0.75, 0.875, 1]",
				    "cluster.inter_node.plugin_latency=20 us"};
	ck_assert_int_eq(load(base, NULL, 0, &cfg, &d), 0);
	ck_assert_int_eq(cfg.cluster.plugin_latency_fitted, 0);
	ck_assert_mem_eq(cfg.cluster.bw_ramp[0], zero, sizeof(zero));
	ck_assert_mem_eq(cfg.cluster.bw_ramp[1], zero, sizeof(zero));
	dc_diag_release(&d);
	ck_assert_int_eq(load(base, sets, 2, &cfg, &d), 0);
	ck_assert_int_eq(cfg.cluster.plugin_latency_fitted, 1);
	ck_assert(cfg.cluster.plugin_latency_s == 20e-6); /* "20 us" reads as the decimal 20e-6 */
	ck_assert_mem_eq(cfg.cluster.bw_ramp[0], zero, sizeof(zero));
	ck_assert(cfg.cluster.bw_ramp[1][0] == 0.5 && cfg.cluster.bw_ramp[1][1] == 0.625 &&
		  cfg.cluster.bw_ramp[1][2] == 0.75 && cfg.cluster.bw_ramp[1][3] == 0.875 && cfg.cluster.bw_ramp[1][4] == 1);
	dc_diag_release(&d);
	/* 0 is a latency (InfiniBand's): given, it replaces EFA's 20 us */
	ck_assert_int_eq(load(base, (const char *const[]){"cluster.network=efa", "cluster.inter_node.plugin_latency=0",
							  "cluster.intra_node.ramp=[1,1,1,1,0.25]"},
			      3, &cfg, &d),
			 0);
	ck_assert_int_eq(cfg.cluster.plugin_latency_fitted, 1);
	ck_assert(cfg.cluster.plugin_latency_s == 0);
	ck_assert(cfg.cluster.bw_ramp[0][4] == 0.25 && cfg.cluster.bw_ramp[0][0] == 1);
	dc_diag_release(&d);

	expect_error(base, (const char *const[]){"cluster.inter_node.ramp=[0.5, 0.6, 0.7, 0.8]"}, 1, DC_ERR_CONFIG,
		     "--set: error: 'cluster.inter_node.ramp': expected 5 numbers, one per knot (8 KiB, 128 KiB, 2 MiB, 32 MiB, 512 MiB), got 4");
	expect_error(base, (const char *const[]){"cluster.inter_node.ramp=[0.5, 0.6, 0.7, 0.8, 0.9, 1]"}, 1,
		     DC_ERR_CONFIG,
		     "--set: error: 'cluster.inter_node.ramp': expected 5 numbers, one per knot (8 KiB, 128 KiB, 2 MiB, 32 MiB, 512 MiB), got more");
	expect_error(base, (const char *const[]){"cluster.intra_node.ramp=[]"}, 1, DC_ERR_CONFIG,
		     "--set: error: 'cluster.intra_node.ramp': expected 5 numbers, one per knot (8 KiB, 128 KiB, 2 MiB, 32 MiB, 512 MiB), got 0");
	expect_error(base, (const char *const[]){"cluster.intra_node.ramp=[0.5, 0, 0.7, 0.8, 1]"}, 1, DC_ERR_CONFIG,
		     "--set: error: 'cluster.intra_node.ramp': entry 2: a bandwidth factor must be from 0.001 to 1, got 0");
	expect_error(base, (const char *const[]){"cluster.intra_node.ramp=[0.5, 0.6, 0.7, 0.8, 1.5]"}, 1, DC_ERR_CONFIG,
		     "--set: error: 'cluster.intra_node.ramp': entry 5: a bandwidth factor must be from 0.001 to 1, got 1.5");
	expect_error(base, (const char *const[]){"cluster.inter_node.ramp=[-0.5, 0.6, 0.7, 0.8, 1]"}, 1, DC_ERR_CONFIG,
		     "--set: error: 'cluster.inter_node.ramp': entry 1: a bandwidth factor must be from 0.001 to 1, got -0.5");
	/* 1e-310 made the comm time infinite, the run an internal error (a
	 * config review): the bound keeps every result finite, 0.001 taken */
	expect_error(base, (const char *const[]){"cluster.inter_node.ramp=[1e-300, 1e-300, 1e-300, 1e-300, 1e-300]"}, 1,
		     DC_ERR_CONFIG,
		     "--set: error: 'cluster.inter_node.ramp': entry 1: a bandwidth factor must be from 0.001 to 1, got 1e-300");
	expect_error(base, (const char *const[]){"cluster.inter_node.ramp=[0.5, \"0.6\", 0.7, 0.8, 1]"}, 1, DC_ERR_CONFIG,
		     "--set: error: 'cluster.inter_node.ramp': entry 2: expected a number, got the string \"0.6\"");
	expect_error(base, (const char *const[]){"cluster.inter_node.ramp=0.5"}, 1, DC_ERR_CONFIG,
		     "--set: error: 'cluster.inter_node.ramp': expected an array of 5 numbers like [0.5, 0.7, 0.8, 0.9, 1], got 0.5");
	expect_error(edit("\"400 Gb/s\"}", "\"400 Gb/s\", \"ramp\": [0.5, 1e999, 0.7, 0.8, 1]}"), NULL, 0, DC_ERR_CONFIG,
		     "t.json: error: 'cluster.inter_node.ramp': entry 2: must be a finite number, got a number too large for a double");
	expect_error(base, (const char *const[]){"cluster.inter_node.plugin_latency=-1 us"}, 1, DC_ERR_CONFIG,
		     "--set: error: 'cluster.inter_node.plugin_latency': must not be negative, got '-1 us'");
	expect_error(base, (const char *const[]){"cluster.inter_node.plugin_latency=[20]"}, 1, DC_ERR_CONFIG,
		     "--set: error: 'cluster.inter_node.plugin_latency': expected a number followed by a unit, like '5 us', got '[20]'");
}
END_TEST

START_TEST(test_stage_and_cp_errors)
{
	struct dc_config cfg;
	struct dc_diag d;
	const char *pp2 = "\"tp\": 4, \"pp\": 2";

	/* cluster.nccl_channels: NCCL's 64 channels at most, as documented
	 * ("1 to 64"); the value past the bound is said exactly */
	ck_assert_int_eq(load(edit("\"tp\": 4", pp2), (const char *const[]){"cluster.nccl_channels=64"}, 1, &cfg, &d), 0);
	ck_assert_uint_eq(cfg.cluster.nccl_channels, 64);
	dc_diag_release(&d);
	expect_error(edit("\"tp\": 4", pp2), (const char *const[]){"cluster.nccl_channels=65"}, 1, DC_ERR_CONFIG,
		     "--set: error: 'cluster.nccl_channels': must be at most 64, got 65");
	/* the interleaved schedule's microbatches, derived from the global
	 * batch: a --set of the micro batch that moves them is named, with
	 * the derivation (16 / (8 x 2) = 1) */
	{
		const char *vpp = "\"tp\": 2, \"pp\": 2, \"virtual_pipeline\": 2},\n"
				  "  \"training\": {\"global_batch_size\": 16}";
		ck_assert_int_eq(load(edit("\"tp\": 4}", vpp), NULL, 0, &cfg, &d), 0);
		dc_diag_release(&d);
		expect_error(edit("\"tp\": 4}", vpp), (const char *const[]){"training.micro_batch_size=8"}, 1,
			     DC_ERR_CONFIG,
			     "--set: error: 'parallel.virtual_pipeline': the interleaved schedule needs training.grad_accum_steps (1 microbatch, derived: global_batch_size / (micro_batch_size x dp) = 16 / (8 x 2)) to be a multiple of parallel.pp (2)");
		/* given in the file, the microbatches move with no --set of the
		 * batch or the GPUs: the file is named */
		expect_error(edit("\"tp\": 4}", "\"tp\": 2, \"pp\": 2, \"virtual_pipeline\": 2},\n"
						  "  \"training\": {\"grad_accum_steps\": 3}"),
			     (const char *const[]){"cluster.num_nodes=4"}, 1, DC_ERR_CONFIG,
			     "t.json: error: 'parallel.virtual_pipeline': the interleaved schedule needs training.grad_accum_steps (3 microbatches) to be a multiple of parallel.pp (2)");
	}
	/* the list: sum, length, zero, type */
	expect_error(edit("\"tp\": 4", pp2), (const char *const[]){"parallel.pipeline_layers=[16,15]"}, 1, DC_ERR_CONFIG,
		     "--set: error: 'parallel.pipeline_layers': the stages' layers must add up to model.num_layers (32), got 31");
	expect_error(edit("\"tp\": 4", pp2), (const char *const[]){"parallel.pipeline_layers=[10,10,12]"}, 1, DC_ERR_CONFIG,
		     "--set: error: 'parallel.pipeline_layers': needs one entry per pipeline stage (parallel.pp = 2), got 3");
	expect_error(edit("\"tp\": 4", pp2), (const char *const[]){"parallel.pipeline_layers=[32,0]"}, 1, DC_ERR_CONFIG,
		     "--set: error: 'parallel.pipeline_layers': entry 2: every stage needs a whole number of layers, at least 1, got 0");
	expect_error(edit("\"tp\": 4", "\"tp\": 4, \"pp\": 2, \"pipeline_layers\": 16"), NULL, 0, DC_ERR_CONFIG,
		     "t.json: error: 'parallel.pipeline_layers': expected an array of layer counts like [4, 4, 3], got 16");
	expect_error(edit("\"tp\": 4", pp2), (const char *const[]){"parallel.pipeline_layers=[]"}, 1, DC_ERR_CONFIG,
		     "--set: error: 'parallel.pipeline_layers': expected one entry per pipeline stage, got an empty array");
	/* a list for a scalar key is still a string */
	expect_error(base, (const char *const[]){"parallel.tp=[4]"}, 1, DC_ERR_CONFIG,
		     "--set: error: 'parallel.tp': expected an integer, got the string \"[4]\"");
	/* the first/last forms: the rest must split evenly; not with the list */
	expect_error(edit("\"tp\": 4", "\"tp\": 1, \"pp\": 4, \"first_stage_layers\": 7"), NULL, 0, DC_ERR_CONFIG,
		     "t.json: error: 'parallel.first_stage_layers': the other 3 stages must split the remaining 25 of model.num_layers (32) evenly, at least one layer each");
	expect_error(edit("\"tp\": 4", "\"tp\": 1, \"pp\": 4, \"account_for_embedding\": true"), NULL, 0, DC_ERR_CONFIG,
		     "t.json: error: 'parallel.account_for_embedding': model.num_layers (32) plus the 1 counted as layers must split evenly over parallel.pp (4), each stage holding at least one layer");
	expect_error(edit("\"tp\": 4", "\"tp\": 1, \"pp\": 8, \"first_stage_layers\": 3, \"account_for_loss\": true"), NULL, 0,
		     DC_ERR_CONFIG,
		     "t.json: error: 'parallel.first_stage_layers': give first_stage_layers / last_stage_layers or account_for_embedding / account_for_loss, not both (Megatron-LM refuses the pair)");
	expect_error(edit("\"tp\": 4", "\"tp\": 4, \"pp\": 2, \"pipeline_layers\": [16, 16], \"last_stage_layers\": 16"), NULL, 0,
		     DC_ERR_CONFIG,
		     "t.json: error: 'parallel.pipeline_layers': give either the list or first_stage_layers / last_stage_layers / account_for_*, not both");
	/* interleaving with uneven stages: a stage's chunks split its layers
	 * evenly, or the list names every chunk */
	expect_error(edit("\"tp\": 4", "\"tp\": 4, \"pp\": 2, \"pipeline_layers\": [17, 15], \"virtual_pipeline\": 2"),
		     (const char *const[]){"training.grad_accum_steps=2"}, 1, DC_ERR_CONFIG,
		     "t.json: error: 'parallel.pipeline_layers': entry 1: with virtual_pipeline 2 a stage's layers split evenly over its model chunks, so each entry must be a multiple of 2, got 17 (or give pp x virtual_pipeline entries, one per chunk)");
	expect_error(edit("\"tp\": 4", "\"tp\": 4, \"pp\": 2, \"pipeline_layers\": [4, 5, 6, 7, 6, 4], \"virtual_pipeline\": 3"),
		     (const char *const[]){"training.grad_accum_steps=2"}, 1, DC_ERR_CONFIG,
		     "t.json: error: 'parallel.pipeline_layers': entry 4: the model chunks of one stage hold the same layers (but for the model's first and last chunk), as Megatron-Core's interleaved schedule assumes; stage 1's chunk 1 holds 7, its chunk 0 5");
	/* a member name with a dot past the 299 bytes of a key path: the path
	 * is cut before the dot, and the loader still says what it is (it
	 * read past a NULL dot once; fuzz_loader found it) */
	{
		char json[700];
		char name[401];
		memset(name, 'n', 400);
		name[400] = '\0';
		name[350] = '.';
		struct dc_config lc;
		struct dc_diag ld;
		snprintf(json, sizeof(json), "{\"%s\": 1}", name);
		ck_assert_int_eq(load(json, NULL, 0, &lc, &ld), -1);
		ck_assert_int_eq(ld.status, DC_ERR_CONFIG);
		ck_assert_ptr_nonnull(strstr(ld.entries[0].text, "unknown key (a member name is one name, never a dotted path)"));
		dc_diag_release(&ld);
	}
	/* HSDP: dp_replicate divides dp, replicates shards (not DDP) */
	expect_error(edit("\"tp\": 4", "\"tp\": 1, \"sharding\": \"fsdp\", \"dp_replicate\": 3"), NULL, 0, DC_ERR_CONFIG,
		     "t.json: error: 'parallel.dp_replicate': must divide parallel.dp (8), got 3");
	expect_error(edit("\"tp\": 4", "\"tp\": 1"), (const char *const[]){"parallel.dp_replicate=2"}, 1,
		     DC_ERR_CONFIG,
		     "--set: error: 'parallel.dp_replicate': replicates sharded states, so it needs parallel.sharding zero1, zero2 or fsdp (DDP already replicates everything), got 2 with sharding \"none\"");
	expect_error(edit("\"tp\": 4", "\"tp\": 1, \"dp_replicate\": 0"), NULL, 0, DC_ERR_CONFIG,
		     "t.json: error: 'parallel.dp_replicate': must be at least 1, got 0");
	/* replicas as many as dp: one-rank shards, nothing sharded, said */
	{
		ck_assert_int_eq(load(edit("\"tp\": 4", "\"tp\": 1, \"sharding\": \"fsdp\""),
				      (const char *const[]){"parallel.dp_replicate=8"}, 1, &cfg, &d),
				 0);
		ck_assert_uint_eq(dc_diag_warnings(&d), 1);
		ck_assert_str_eq(d.entries[0].text,
				 "--set: 'parallel.dp_replicate': equals parallel.dp (8), so each shard group is one "
				 "rank: nothing is sharded (DDP's memory), and each microbatch all-reduces the gradients "
				 "across the replicas (HSDP), where DDP reduces once a step; priced as given (sharding "
				 "\"none\" is plain DDP)");
		dc_diag_release(&d);
		/* with a pipeline the replicas reduce once a step, as DDP does */
		ck_assert_int_eq(load(edit("\"tp\": 4", "\"tp\": 1, \"sharding\": \"fsdp\""),
				      (const char *const[]){"parallel.pp=2", "parallel.dp=4", "parallel.dp_replicate=4"}, 3,
				      &cfg, &d),
				 0);
		ck_assert_uint_eq(dc_diag_warnings(&d), 1);
		ck_assert_ptr_nonnull(strstr(d.entries[0].text, "nothing is sharded (DDP's memory); priced as given"));
		dc_diag_release(&d);
	}
	/* overlap.ep a2a_1f1b: expert parallelism, and interleaving with a pipeline */
	expect_error(base, (const char *const[]){"overlap.ep=a2a_1f1b"}, 1, DC_ERR_CONFIG,
		     "--set: error: 'overlap.ep': \"a2a_1f1b\" hides expert AlltoAlls, so it needs parallel.ep > 1, got ep 1");
	expect_error(base, (const char *const[]){"overlap.ep=dualpipes"}, 1, DC_ERR_CONFIG,
		     "--set: error: 'overlap.ep': unknown value \"dualpipes\"; did you mean \"dualpipe\"? (expected one of \"none\", \"a2a_1f1b\", \"dualpipe\")");
	/* overlap.ep dualpipe: expert parallelism, and a DualPipe schedule */
	expect_error(base, (const char *const[]){"overlap.ep=dualpipe"}, 1, DC_ERR_CONFIG,
		     "--set: error: 'overlap.ep': \"dualpipe\" hides expert AlltoAlls, so it needs parallel.ep > 1, got ep 1");
	expect_error(base,
		     (const char *const[]){"model.num_experts=8", "model.experts_per_token=2", "parallel.ep=2",
					   "overlap.ep=dualpipe"},
		     4, DC_ERR_CONFIG,
		     "--set: error: 'overlap.ep': \"dualpipe\" overlaps one microbatch's forward chunk with another's backward chunk, so it needs parallel.pipeline_schedule \"dualpipe\" or \"dualpipev\", got \"1f1b\"");
	/* parallel.pipeline_schedule: agrees with virtual_pipeline, and each
	 * schedule's pp, microbatches and stages (deepseek-ai/DualPipe's
	 * step() asserts) */
	expect_error(edit("\"tp\": 4", "\"tp\": 1, \"pp\": 4, \"virtual_pipeline\": 2"),
		     (const char *const[]){"training.grad_accum_steps=8", "parallel.pipeline_schedule=1f1b"}, 2,
		     DC_ERR_CONFIG,
		     "--set: error: 'parallel.pipeline_schedule': \"1f1b\" runs one model chunk a rank, so it needs parallel.virtual_pipeline 1, got 2 (virtual_pipeline > 1 is \"interleaved\")");
	expect_error(edit("\"tp\": 4", "\"tp\": 1, \"pp\": 4, \"virtual_pipeline\": 2"),
		     (const char *const[]){"training.grad_accum_steps=8", "parallel.pipeline_schedule=dualpipev"}, 2,
		     DC_ERR_CONFIG,
		     "--set: error: 'parallel.pipeline_schedule': \"dualpipev\" places its own model chunks, so it needs parallel.virtual_pipeline 1, got 2 (virtual_pipeline > 1 is \"interleaved\")");
	expect_error(edit("\"tp\": 4", "\"tp\": 2, \"pp\": 4"), (const char *const[]){"parallel.pipeline_schedule=interleaved"},
		     1, DC_ERR_CONFIG,
		     "--set: error: 'parallel.pipeline_schedule': \"interleaved\" runs parallel.virtual_pipeline > 1 model chunks a rank, got virtual_pipeline 1 (one chunk a rank is \"1f1b\")");
	expect_error(base, (const char *const[]){"parallel.pipeline_schedule=zero_bubble"}, 1, DC_ERR_CONFIG,
		     "--set: error: 'parallel.pipeline_schedule': \"zero_bubble\" is a pipeline schedule, so it needs parallel.pp > 1, got pp 1");
	expect_error(edit("\"tp\": 4", "\"tp\": 4, \"pp\": 3"),
		     (const char *const[]){"cluster.num_nodes=3", "model.num_layers=30", "parallel.pipeline_schedule=dualpipe"},
		     3, DC_ERR_CONFIG,
		     "--set: error: 'parallel.pipeline_schedule': \"dualpipe\" needs an even parallel.pp (rank s holds stages s and pp - 1 - s, fed from both ends), got pp 3");
	expect_error(edit("\"tp\": 4", "\"tp\": 2, \"pp\": 4"),
		     (const char *const[]){"parallel.pipeline_schedule=dualpipe", "training.grad_accum_steps=6"}, 2,
		     DC_ERR_CONFIG,
		     "--set: error: 'parallel.pipeline_schedule': \"dualpipe\" needs an even training.grad_accum_steps of at least 2 x pp = 8 (deepseek-ai/DualPipe's step() asserts num_chunks >= 2 x ranks, half of them fed from each end), got 6");
	expect_error(edit("\"tp\": 4", "\"tp\": 2, \"pp\": 4"),
		     (const char *const[]){"parallel.pipeline_schedule=dualpipe", "training.grad_accum_steps=9"}, 2,
		     DC_ERR_CONFIG,
		     "--set: error: 'parallel.pipeline_schedule': \"dualpipe\" needs an even training.grad_accum_steps of at least 2 x pp = 8 (deepseek-ai/DualPipe's step() asserts num_chunks >= 2 x ranks, half of them fed from each end), got 9");
	/* an accumulation derived from the global batch says so, and a
	 * --set of the batch is what the message blames */
	expect_error(edit("\"tp\": 4", "\"tp\": 2, \"pp\": 4, \"pipeline_schedule\": \"dualpipe\""),
		     (const char *const[]){"training.global_batch_size=6"}, 1, DC_ERR_CONFIG,
		     "--set: error: 'parallel.pipeline_schedule': \"dualpipe\" needs an even training.grad_accum_steps of at least 2 x pp = 8 (deepseek-ai/DualPipe's step() asserts num_chunks >= 2 x ranks, half of them fed from each end), got 6 (derived: global_batch_size / (micro_batch_size x dp) = 6 / (1 x 1))");
	expect_error(edit("\"tp\": 4", "\"tp\": 2, \"pp\": 4"),
		     (const char *const[]){"parallel.pipeline_schedule=dualpipev", "training.grad_accum_steps=7"}, 2,
		     DC_ERR_CONFIG,
		     "--set: error: 'parallel.pipeline_schedule': \"dualpipev\" needs training.grad_accum_steps of at least 2 x pp = 8 (deepseek-ai/DualPipe's step() asserts num_chunks >= 2 x ranks), got 7");
	expect_error(edit("\"tp\": 4", "\"tp\": 2, \"pp\": 4"),
		     (const char *const[]){"parallel.pipeline_schedule=dualpipev", "training.grad_accum_steps=8",
					   "model.num_layers=36"},
		     3, DC_ERR_CONFIG,
		     "--set: error: 'parallel.pipeline_schedule': \"dualpipev\" splits the model into 2 x pp = 8 chunks, two a rank, so 2 x pp must divide model.num_layers (36)");
	expect_error(edit("\"tp\": 4", "\"tp\": 2, \"pp\": 4, \"first_stage_layers\": 5"),
		     (const char *const[]){"parallel.pipeline_schedule=dualpipev", "training.grad_accum_steps=8",
					   "model.num_layers=35"},
		     3, DC_ERR_CONFIG,
		     "--set: error: 'parallel.pipeline_schedule': \"dualpipev\" cuts the model into 2 x pp chunks of equal layers itself; drop pipeline_layers, first_stage_layers, last_stage_layers and account_for_* (\"dualpipe\" takes uneven stages)");
	/* cp: into the world, the sequence in 2 cp chunks, a2a by heads; tp
	 * 4 divides the 8 GPUs, cp 3 does not: the world's error names cp */
	expect_error(edit("\"tp\": 4", "\"tp\": 4, \"cp\": 3"), NULL, 0, DC_ERR_CONFIG,
		     "t.json: error: 'parallel.cp': tp x cp x pp (12) must divide the world size num_nodes x gpus_per_node (8)\n"
		     "t.json: error: 'parallel.cp': 2 x cp must divide model.seq_length (4096): each cp rank holds two of 2 x cp equal chunks, got cp 3");
	expect_error(edit("\"tp\": 4", "\"tp\": 2, \"cp\": 4"), (const char *const[]){"model.seq_length=4100"}, 1,
		     DC_ERR_CONFIG,
		     "--set: error: 'parallel.cp': 2 x cp must divide model.seq_length (4100): each cp rank holds two of 2 x cp equal chunks, got cp 4");
	expect_error(edit("\"tp\": 4", "\"tp\": 4, \"cp\": 2, \"cp_comm_type\": \"a2a\""),
		     (const char *const[]){"model.num_kv_heads=4"}, 1, DC_ERR_CONFIG,
		     "t.json: error: 'parallel.cp': with cp_comm_type \"a2a\" cp must divide the heads of each tp rank (8 query, 1 key/value heads), got 2");
	expect_error(edit("\"tp\": 4", "\"tp\": 4, \"cp\": 2, \"cp_comm_type\": \"ring\""), NULL, 0, DC_ERR_CONFIG,
		     "t.json: error: 'parallel.cp_comm_type': unknown value \"ring\"; expected one of \"p2p\", \"all_gather\", \"a2a\"");
	/* and what loads: [4,4,3]-style lists from --set, cp into dp */
	ck_assert_int_eq(load(edit("\"tp\": 4", "\"tp\": 1, \"pp\": 3, \"dp\": 2"),
			      (const char *const[]){"model.num_layers=11", "parallel.pipeline_layers=[4,4,3]",
						    "cluster.num_nodes=3", "cluster.gpus_per_node=2"},
			      4, &cfg, &d),
			 0);
	ck_assert_uint_eq(cfg.parallel.pipeline_layers_n, 3);
	ck_assert_uint_eq(cfg.parallel.pipeline_layers[2], 3);
	dc_diag_release(&d);
	ck_assert_int_eq(load(edit("\"tp\": 4", "\"tp\": 2, \"cp\": 2"), NULL, 0, &cfg, &d), 0);
	ck_assert_uint_eq(cfg.parallel.dp, 2); /* 8 / (2 x 2) */
	dc_diag_release(&d);
}
END_TEST

START_TEST(test_cross_field_errors)
{
	expect_error(edit("\"tp\": 4", "\"dp\": 4, \"tp\": 4"), NULL, 0, DC_ERR_CONFIG,
		     "t.json: error: 'parallel.dp': dp x tp x pp (4 x 4 x 1) must equal num_nodes x gpus_per_node (8); set parallel.dp to \"auto\" (or --unset parallel.dp) to derive it from the GPU count (2 here)");
	/* tp = 3 breaks two rules at once: 3 does not divide 8 ranks or 32 heads */
	expect_error(edit("\"tp\": 4", "\"tp\": 3"), NULL, 0, DC_ERR_CONFIG,
		     "t.json: error: 'parallel.tp': tp x pp (3) must divide the world size num_nodes x gpus_per_node (8)\n"
		     /* the hint: tp 2 divides the 32 heads and the 8 GPUs, leaving dp 4 */
		     "t.json: error: 'parallel.tp': must divide model.num_attention_heads (32), got 3; --set parallel.tp=2 "
		     "--set parallel.dp=4 would fit the heads");
	expect_error(edit("\"num_attention_heads\": 32,", "\"num_attention_heads\": 32, \"num_kv_heads\": 2,"), NULL, 0,
		     DC_ERR_CONFIG, "t.json: error: 'parallel.tp': must divide model.num_kv_heads (2), got 4; --set parallel.tp=2 --set "
		     "parallel.dp=4 would fit the heads" /* tp 2 divides the 2 KV heads and 8 GPUs: dp 4 */);
	/* a rule an override broke names the --set, though the message is about the file's key */
	expect_error(edit("\"tp\": 4", "\"tp\": 1, \"pp\": 8, \"dp\": 1"), (const char *const[]){"model.num_layers=30"}, 1,
		     DC_ERR_CONFIG, "--set: error: 'parallel.pp': must divide model.num_layers (30), got 8; for uneven stages give parallel.pipeline_layers or first_stage_layers / last_stage_layers; "
		     "or give parallel.account_for_embedding and account_for_loss, which count the embedding and the loss as a layer each (30 + 2 = 32 split evenly: Megatron-LM's --account-for-embedding-in-pipeline-split and --account-for-loss-in-pipeline-split)");
	expect_error(edit("\"hidden_size\": 4096, \"num_attention_heads\": 32,", "\"hidden_size\": 3072, \"num_attention_heads\": 24,"),
		     (const char *const[]){"model.num_kv_heads=6"}, 1, DC_ERR_CONFIG,
		     "--set: error: 'parallel.tp': must divide model.num_kv_heads (6), got 4; --set parallel.tp=2 "
		     "--set parallel.dp=4 would fit the heads"); /* 3 divides 24 and 6 but not 8 GPUs: 2, dp 4 */
	expect_error(base, (const char *const[]){"model.num_attention_heads=2"}, 1, DC_ERR_CONFIG,
		     "--set: error: 'parallel.tp': must divide model.num_attention_heads (2), got 4; --set parallel.tp=2 "
		     "--set parallel.dp=4 would fit the heads"); /* 2 heads, 8 GPUs: tp 2, dp 4 */
	/* the file's own tp against the file's heads stays the file's */
	expect_error(edit("\"hidden_size\": 4096, \"num_attention_heads\": 32,", "\"hidden_size\": 3072, \"num_attention_heads\": 24, \"num_kv_heads\": 6,"),
		     (const char *const[]){"model.seq_length=1024"}, 1, DC_ERR_CONFIG,
		     "t.json: error: 'parallel.tp': must divide model.num_kv_heads (6), got 4; --set parallel.tp=2 "
		     "--set parallel.dp=4 would fit the heads"); /* 3 divides 24 and 6 but not 8 GPUs: 2, dp 4 */
	expect_error(edit("\"parallel\": {\"tp\": 4}", "\"parallel\": {\"tp\": 4}, \"collective\": {\"ranks\": 9}"), NULL, 0,
		     DC_ERR_CONFIG, "t.json: error: 'collective.ranks': must be at most the world size (8), got 9");
	/* 10^15 parameters x 16 bytes = 1.6e16 bytes > 2^53 = 9.007e15 */
	expect_error(edit("\"seq_length\": 4096", "\"seq_length\": 4096, \"params\": 1000000000000000"), NULL, 0,
		     DC_ERR_CONFIG,
		     "t.json: error: 'model.params': 1000000000000000 parameters x 16 bytes of model state per parameter must be below 2^53 bytes");
	/* a size the command line gave is named with its value: 4e12 tokens
	 * x 4096 x 2 (embedding and untied head) = 32768000000000000, plus
	 * 32 layers x (4 x 4096^2 + 3 x 4096 x 16384 + 2 x 4096) = 8590196736
	 * and the final norm's 4096: 32768008590200832 x 16 > 2^53 */
	expect_error(base, (const char *const[]){"model.vocab_size=4000000000000"}, 1, DC_ERR_CONFIG,
		     "--set: error: 'model.vocab_size': 4000000000000 makes the model too large; 32768008590200832 "
		     "parameters x 16 bytes of model state per parameter must be below 2^53 bytes");
	/* from the file: every size it multiplies is named */
	expect_error(edit("\"vocab_size\": 32000", "\"vocab_size\": 4000000000000"), NULL, 0, DC_ERR_CONFIG,
		     "t.json: error: 'model': 32768008590200832 parameters x 16 bytes of model state per parameter must "
		     "be below 2^53 bytes; check hidden_size, ffn_hidden_size, vocab_size, num_layers and the expert sizes");
	/* the world is capped at 2^24 = 16,777,216 ranks: 33,554,432 x 4 is over */
	expect_error(edit("\"num_nodes\": 2", "\"num_nodes\": 33554432"), NULL, 0, DC_ERR_CONFIG,
		     "t.json: error: 'cluster.num_nodes': num_nodes x gpus_per_node must be at most 16777216 ranks, got 33554432 x 4");
	/* 2^22 nodes x 4 = 2^24 ranks is the largest world accepted */
	{
		struct dc_config cfg;
		struct dc_diag d;
		ck_assert_int_eq(load(edit("\"num_nodes\": 2", "\"num_nodes\": 4194304"), NULL, 0, &cfg, &d), 0);
		struct dc_plan plan;
		ck_assert_int_eq(dc_plan_derive(&cfg, &plan), 0);
		ck_assert_uint_eq(plan.ring_ranks, 16777216u);
		dc_diag_release(&d);
	}
	expect_error(edit("\"num_attention_heads\": 32", "\"num_attention_heads\": 24"), NULL, 0, DC_ERR_CONFIG,
		     "t.json: error: 'model.num_attention_heads': must divide model.hidden_size (4096) unless model.head_dim is given, got 24");
	expect_error("{\"model\": {\"num_layers\": 2}}", NULL, 0, DC_ERR_CONFIG,
		     "t.json: error: 'model.hidden_size': required key is missing\n"
		     "t.json: error: 'model.num_attention_heads': required key is missing\n"
		     "t.json: error: 'model.vocab_size': required key is missing\n"
		     "t.json: error: 'model.seq_length': required key is missing\n"
		     "t.json: error: 'cluster': required key is missing");
}
END_TEST

/* training.attention, model.dropout and training.global_batch_size: the
 * defaults (flash, no dropout, gbs not given), the values and the rule.
 * base is 8 ranks at tp 4, so dp = 2. */
START_TEST(test_attention_dropout_global_batch)
{
	struct dc_config cfg;
	struct dc_diag d;

	ck_assert_int_eq(load(base, NULL, 0, &cfg, &d), 0);
	ck_assert_int_eq(cfg.training.attention, DC_ATTENTION_FLASH);
	ck_assert_int_eq(cfg.model.dropout, 0);
	ck_assert_uint_eq(cfg.training.global_batch_size, 0);
	ck_assert_uint_eq(cfg.training.grad_accum_steps, 1);
	dc_diag_release(&d);
	{
		const char *sets[] = {"training.attention=\"eager\"", "model.dropout=true"};
		ck_assert_int_eq(load(base, sets, 2, &cfg, &d), 0);
		ck_assert_int_eq(cfg.training.attention, DC_ATTENTION_EAGER);
		ck_assert_str_eq(dc_attention_name(cfg.training.attention), "eager");
		ck_assert_int_eq(cfg.model.dropout, 1);
		dc_diag_release(&d);
	}
	expect_error(base, (const char *const[]){"training.attention=\"sdpa\""}, 1, DC_ERR_CONFIG,
		     "--set: error: 'training.attention': unknown value \"sdpa\"; expected one of \"flash\", \"eager\"");
	expect_error(base, (const char *const[]){"model.dropout=0.1"}, 1, DC_ERR_CONFIG,
		     "--set: error: 'model.dropout': expected true or false, got 0.1");
	/* 64 samples = 2 per microbatch x dp 2 x 16 microbatches */
	{
		const char *sets[] = {"training.global_batch_size=64", "training.micro_batch_size=2"};
		ck_assert_int_eq(load(base, sets, 2, &cfg, &d), 0);
		ck_assert_uint_eq(cfg.training.global_batch_size, 64);
		ck_assert_uint_eq(cfg.training.grad_accum_steps, 16);
		dc_diag_release(&d);
	}
	/* the same work at tp 2 (dp 4) and micro batch 4: 64 / (4 x 4) = 4 */
	{
		const char *file = edit("\"tp\": 4", "\"tp\": 4}, \"training\": {\"global_batch_size\": 64");
		const char *sets[] = {"parallel.tp=2", "training.micro_batch_size=4"};
		ck_assert_int_eq(load(file, sets, 2, &cfg, &d), 0);
		ck_assert_uint_eq(cfg.parallel.dp, 4);
		ck_assert_uint_eq(cfg.training.grad_accum_steps, 4);
		dc_diag_release(&d);
	}
	/* 64 / (3 x 2) does not divide; the --set that broke it is blamed */
	expect_error(edit("\"tp\": 4", "\"tp\": 4}, \"training\": {\"global_batch_size\": 64"),
		     (const char *const[]){"training.micro_batch_size=3"}, 1, DC_ERR_CONFIG,
		     "--set: error: 'training.global_batch_size': must be a multiple of training.micro_batch_size x parallel.dp (3 x 2), got 64; "
		     "parallel.dp 2 is derived: num_nodes x gpus_per_node (8) / (tp x cp x pp) (4)");
	expect_error(edit("\"tp\": 4", "\"tp\": 4}, \"training\": {\"global_batch_size\": 7"), NULL, 0,
		     DC_ERR_CONFIG,
		     "t.json: error: 'training.global_batch_size': must be a multiple of training.micro_batch_size x parallel.dp (1 x 2), got 7; "
		     "parallel.dp 2 is derived: num_nodes x gpus_per_node (8) / (tp x cp x pp) (4)");
	/* all three given: they must agree (64 / (1 x 2) = 32) */
	expect_error(edit("\"tp\": 4", "\"tp\": 4}, \"training\": {\"global_batch_size\": 64, \"grad_accum_steps\": 8, \"micro_batch_size\": 1"),
		     NULL, 0, DC_ERR_CONFIG,
		     "t.json: error: 'training.grad_accum_steps': 8 disagrees with training.global_batch_size: 64 = micro_batch_size 1 x dp 2 x 32 accumulation steps; leave it out (--unset training.grad_accum_steps) to derive it");
	/* the batch and the accumulation without the micro batch give it, as
	 * DeepSpeed derives it: 64 / (8 x 2) = 4; 64 is no multiple of 3 x 2 */
	ck_assert_int_eq(load(edit("\"tp\": 4", "\"tp\": 4}, \"training\": {\"global_batch_size\": 64, \"grad_accum_steps\": 8"),
			      NULL, 0, &cfg, &d), 0);
	ck_assert_uint_eq(cfg.training.micro_batch_size, 4);
	ck_assert_uint_eq(cfg.training.grad_accum_steps, 8);
	ck_assert_uint_eq(d.count, 0);
	dc_diag_release(&d);
	expect_error(edit("\"tp\": 4", "\"tp\": 4}, \"training\": {\"global_batch_size\": 64, \"grad_accum_steps\": 3"),
		     NULL, 0, DC_ERR_CONFIG,
		     "t.json: error: 'training.global_batch_size': with training.grad_accum_steps given and no micro_batch_size, must be a multiple of grad_accum_steps x parallel.dp (3 x 2), got 64; "
		     "parallel.dp 2 is derived: num_nodes x gpus_per_node (8) / (tp x cp x pp) (4); or give training.micro_batch_size");
	ck_assert_int_eq(load(edit("\"tp\": 4", "\"tp\": 4}, \"training\": {\"global_batch_size\": 64, \"grad_accum_steps\": 32"),
			      NULL, 0, &cfg, &d), 0);
	ck_assert_uint_eq(d.count, 0);
	dc_diag_release(&d);
	/* ... unless a --set of the micro batch changed the division: 64 / (4 x 2) = 8, with a warning */
	{
		char got[1024];
		ck_assert_int_eq(load(edit("\"tp\": 4", "\"tp\": 4}, \"training\": {\"global_batch_size\": 64, \"grad_accum_steps\": 32"),
				      (const char *const[]){"training.micro_batch_size=4"}, 1, &cfg, &d), 0);
		ck_assert_uint_eq(cfg.training.grad_accum_steps, 8);
		joined(&d, got, sizeof(got));
		ck_assert_str_eq(got, "--set: 'training.grad_accum_steps': the file's 32 becomes 8 = training.global_batch_size / (micro_batch_size x dp) = 64 / (4 x 2)");
		dc_diag_release(&d);
	}
	/* ... or, all three given, a --set that moves the derived dp, as a
	 * --set of dp does (a user trial: --set parallel.tp was refused where
	 * --set parallel.dp of the same dp ran): tp 2 on 8 GPUs, dp 4, 64 / (1
	 * x 4) = 16; 4 nodes of 4 at tp 4, dp 4, the same */
	{
		static const char *const sets[] = {"parallel.tp=2", "cluster.num_nodes=4"};
		for (size_t i = 0; i < 2; i++) {
			char got[1024];
			ck_assert_int_eq(load(edit("\"tp\": 4", "\"tp\": 4}, \"training\": {\"global_batch_size\": 64, "
							      "\"grad_accum_steps\": 32, \"micro_batch_size\": 1"),
					      &sets[i], 1, &cfg, &d),
					 0);
			ck_assert_uint_eq(cfg.parallel.dp, 4);
			ck_assert_uint_eq(cfg.training.grad_accum_steps, 16);
			joined(&d, got, sizeof(got));
			ck_assert_str_eq(got, "--set: 'training.grad_accum_steps': the file's 32 becomes 16 = training.global_batch_size / (micro_batch_size x dp) = 64 / (1 x 4)");
			dc_diag_release(&d);
		}
	}
	/* ... but a file whose own batch contradicts itself under any dp (10
	 * steps of 1 sample do not divide 64) stays an error, whatever --set
	 * of tp comes with it (a review's case: the file's own tp again) */
	expect_error(edit("\"tp\": 4", "\"tp\": 4}, \"training\": {\"global_batch_size\": 64, \"grad_accum_steps\": 10, "
					 "\"micro_batch_size\": 1"),
		     (const char *const[]){"parallel.tp=4"}, 1, DC_ERR_CONFIG,
		     "--set: error: 'training.grad_accum_steps': 10 disagrees with training.global_batch_size: 64 = micro_batch_size 1 x dp 2 x 32 accumulation steps; leave it out (--unset training.grad_accum_steps) to derive it");
}
END_TEST

/* precision.preset: each preset's bytes per parameter, by hand from its
 * convention (docs/formulas.md, "Precision presets"); an explicit byte key
 * overrides its preset */
START_TEST(test_precision_presets)
{
	static const struct {
		const char *set;
		uint64_t param, grad, master, optim, working, total;
	} want[] = {
		{"precision.preset=\"course\"", 2, 2, 4, 8, 2, 16},
		{"precision.preset=\"megatron\"", 2, 4, 4, 8, 2, 18},
		{"precision.preset=\"fsdp2\"", 4, 4, 0, 8, 2, 16},
		{"precision.preset=\"deepseek_v3\"", 2, 4, 4, 4, 2, 14},
	};
	struct dc_config cfg;
	struct dc_diag d;
	ck_assert_int_eq(load(base, NULL, 0, &cfg, &d), 0);
	ck_assert_int_eq(cfg.precision.preset, DC_PRECISION_COURSE);
	ck_assert_uint_eq(cfg.precision.param_bytes + cfg.precision.grad_bytes + cfg.precision.master_bytes +
				  cfg.precision.optimizer_bytes, 16);
	dc_diag_release(&d);
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		const struct dc_precision *p = &cfg.precision;
		ck_assert_int_eq(load(base, &want[i].set, 1, &cfg, &d), 0);
		ck_assert_uint_eq(p->param_bytes, want[i].param);
		ck_assert_uint_eq(p->grad_bytes, want[i].grad);
		ck_assert_uint_eq(p->master_bytes, want[i].master);
		ck_assert_uint_eq(p->optimizer_bytes, want[i].optim);
		ck_assert_uint_eq(p->working_bytes, want[i].working);
		ck_assert_uint_eq(p->param_bytes + p->grad_bytes + p->master_bytes + p->optimizer_bytes, want[i].total);
		dc_diag_release(&d);
	}
	{
		const char *sets[] = {"precision.preset=\"megatron\"", "precision.grad_bytes=2", "precision.param_bytes=4"};
		ck_assert_int_eq(load(base, sets, 3, &cfg, &d), 0);
		ck_assert_uint_eq(cfg.precision.grad_bytes, 2);
		ck_assert_uint_eq(cfg.precision.param_bytes, 4);
		ck_assert_uint_eq(cfg.precision.working_bytes, 4); /* follows param_bytes */
		ck_assert_uint_eq(cfg.precision.master_bytes, 4);
		dc_diag_release(&d);
	}
	expect_error(base, (const char *const[]){"parallel.offload=\"optimizer+params\""}, 1, DC_ERR_CONFIG,
		     "--set: error: 'parallel.offload': \"optimizer+params\" offloads the parameter shards, so it needs parallel.sharding \"fsdp\", got \"none\"");
	expect_error(base, (const char *const[]){"precision.preset=\"fp8\""}, 1, DC_ERR_CONFIG,
		     "--set: error: 'precision.preset': unknown value \"fp8\"; expected one of \"course\", \"megatron\", \"fsdp2\", \"deepseek_v3\"");
}
END_TEST

START_TEST(test_set_overrides)
{
	struct dc_config cfg;
	struct dc_diag d;

	/* applied in order, the last one wins; units as in the file */
	{
		const char *sets[] = {"cluster.inter_node.bandwidth=200 GB/s", "cluster.inter_node.bandwidth=800 Gb/s",
				      "model.mlp=\"gelu\"", "parallel.tp=2"};
		ck_assert_int_eq(load(base, sets, 4, &cfg, &d), 0);
		ck_assert(cfg.cluster.inter_node.bw_bytes_per_s == 1e11); /* 800e9 / 8 */
		ck_assert_int_eq(cfg.model.mlp, DC_MLP_GELU);
		ck_assert_uint_eq(cfg.parallel.tp, 2);
		ck_assert_uint_eq(cfg.parallel.dp, 4); /* derived: 8 / (2 x 1) */
		dc_diag_release(&d);
	}
	/* a section the file does not have is created */
	{
		const char *sets[] = {"collective.ranks=4", "collective.message_size=1 GiB", "model.seq_length=2048"};
		ck_assert_int_eq(load(base, sets, 3, &cfg, &d), 0);
		ck_assert_uint_eq(cfg.collective.ranks, 4);
		ck_assert_uint_eq(cfg.collective.msg_bytes, 1073741824u);
		ck_assert_uint_eq(cfg.model.seq_length, 2048);
		dc_diag_release(&d);
	}
	/* a key the file holds twice stays the file's error under --set */
	expect_error(edit("\"seq_length\": 4096", "\"seq_length\": 4096, \"seq_length\": 1"),
		     (const char *const[]){"model.seq_length=2048"}, 1, DC_ERR_CONFIG,
		     "t.json:3:54: error: 'model.seq_length': duplicate key (first at 3:34)");
	/* validated as if in the file, blamed on --set */
	expect_error(base, (const char *const[]){"model.hidden_size=4096 x"}, 1, DC_ERR_CONFIG,
		     "--set: error: 'model.hidden_size': expected an integer, got the string \"4096 x\"");
	expect_error(base, (const char *const[]){"model.hidden_size=+4096"}, 1, DC_ERR_CONFIG,
		     "--set: error: 'model.hidden_size': expected an integer, got the string \"+4096\"");
	expect_error(base, (const char *const[]){"model.hidden_siz=1"}, 1, DC_ERR_CONFIG,
		     "--set: error: 'model.hidden_siz': unknown key; did you mean 'model.hidden_size'?");
	/* case first: "Tp" is one edit from dp as from tp */
	expect_error(base, (const char *const[]){"parallel.Tp=2"}, 1, DC_ERR_CONFIG,
		     "--set: error: 'parallel.Tp': unknown key; did you mean 'parallel.tp'?");
	expect_error(edit("\"parallel\": {\"tp\": 4}", "\"parallel\": {\"Tp\": 4}"), NULL, 0, DC_ERR_CONFIG,
		     "t.json: error: 'parallel.Tp': unknown key; did you mean 'parallel.tp'?");
	/* NeMo's column name, two letters from dp and pp: the key it means */
	expect_error(base, (const char *const[]){"parallel.vp=5"}, 1, DC_ERR_CONFIG,
		     "--set: error: 'parallel.vp': unknown key; did you mean 'parallel.virtual_pipeline'?");
	expect_error(base, (const char *const[]){"model.Hidden_Size=1"}, 1, DC_ERR_CONFIG,
		     "--set: error: 'model.Hidden_Size': unknown key; did you mean 'model.hidden_size'?");
	expect_error(base, (const char *const[]){"model=1"}, 1, DC_ERR_CONFIG,
		     "--set: error: 'model': is a section; set one of its keys");
	expect_error(base, (const char *const[]){"model.hidden_size"}, 1, DC_ERR_USAGE,
		     "--set: error: 'model.hidden_size': expected PATH=VALUE, like model.hidden_size=4096");
	expect_error(base, (const char *const[]){"parallel.dp=3"}, 1, DC_ERR_CONFIG,
		     "--set: error: 'parallel.dp': dp x tp x pp (3 x 4 x 1) must equal num_nodes x gpus_per_node (8); --set parallel.dp=auto (or drop the --set of parallel.dp) to derive it from the GPU count (2 here)");
	/* no dp fits where the other degrees do not divide the GPUs */
	{
		char all[4096];
		ck_assert_int_eq(load(base, (const char *const[]){"parallel.dp=2", "parallel.pp=3"}, 2, &cfg, &d), -1);
		joined(&d, all, sizeof(all));
		ck_assert_msg(strstr(all, "--set: error: 'parallel.dp': dp x tp x pp (2 x 4 x 3) must equal num_nodes x "
					  "gpus_per_node (8); no dp fits, since tp x pp (12) does not divide 8 GPUs") != NULL,
			      "%s", all);
		dc_diag_release(&d);
	}
	/* an error in the file stays the file's */
	expect_error(edit("\"num_layers\": 32", "\"num_layers\": 0"), (const char *const[]){"model.hidden_size=0"}, 1,
		     DC_ERR_CONFIG,
		     "t.json: error: 'model.num_layers': must be at least 1, got 0\n"
		     "--set: error: 'model.hidden_size': must be at least 1, got 0");
}
END_TEST

/* Loads `text` with `sets`: it must fail (or, when `want_rc` is 0, pass) with
 * exactly `n` entries whose keys are `want` in order (NULL: no key). */
static void expect_keys(const char *text, const char *const *sets, size_t nsets, int want_rc,
			const char *const *want, size_t n)
{
	struct dc_config cfg;
	struct dc_diag d;
	char got[4096];
	int rc = load(text, sets, nsets, &cfg, &d);
	joined(&d, got, sizeof(got));
	ck_assert_msg(rc == want_rc, "rc %d:\n%s", rc, got);
	ck_assert_msg(d.count == n, "%zu entries, want %zu:\n%s", d.count, n, got);
	for (size_t i = 0; i < n; i++) {
		if (!want[i])
			ck_assert_msg(d.entries[i].key == NULL, "entry %zu has key '%s': %s", i, d.entries[i].key,
				      d.entries[i].text);
		else
			ck_assert_msg(d.entries[i].key && strcmp(d.entries[i].key, want[i]) == 0,
				      "entry %zu: key '%s', want '%s': %s", i, d.entries[i].key ? d.entries[i].key : "(null)",
				      want[i], d.entries[i].text);
	}
	dc_diag_release(&d);
}

START_TEST(test_entries_carry_the_key)
{
	/* a value, an unknown key (as written) and a bad unit: every line its key */
	expect_keys("{\n"
		    "  \"model\": {\"num_layers\": true, \"hiden_size\": 4096, \"num_attention_heads\": 32,\n"
		    "            \"vocab_size\": 32000, \"seq_length\": 4096},\n"
		    "  \"cluster\": {\"num_nodes\": 2, \"gpus_per_node\": 4, \"gpu_memory\": \"80gb\",\n"
		    "              \"intra_node\": {\"bandwidth\": \"300 GB/s\"},\n"
		    "              \"inter_node\": {\"bandwidth\": \"10 Gbps\"}}\n"
		    "}\n",
		    NULL, 0, -1,
		    (const char *const[]){"model.num_layers", "model.hiden_size", "cluster.gpu_memory",
					  "cluster.inter_node.bandwidth"},
		    4);
	/* two rules on one key; the missing keys of a section */
	expect_keys(edit("\"tp\": 4", "\"tp\": 3"), NULL, 0, -1, (const char *const[]){"parallel.tp", "parallel.tp"}, 2);
	expect_keys("{\"model\": {\"num_layers\": 2}}", NULL, 0, -1,
		    (const char *const[]){"model.hidden_size", "model.num_attention_heads", "model.vocab_size",
					  "model.seq_length", "cluster"},
		    5);
	/* the key a line is about, not the one --set blamed: --set tp=2 breaks dp x tp x pp */
	expect_keys(edit("\"tp\": 4", "\"dp\": 2, \"tp\": 4"), (const char *const[]){"parallel.tp=2"}, 1, -1,
		    (const char *const[]){"parallel.dp"}, 1);
	/* a rule about a key that is absent */
	expect_keys(edit("\"seq_length\": 4096", "\"seq_length\": 4096, \"num_experts\": 8"), NULL, 0, -1,
		    (const char *const[]){"model.experts_per_token"}, 1);
	/* --set: an unknown key, a section; a usage error names no key */
	expect_keys(base, (const char *const[]){"model.hidden_siz=1", "model=1"}, 2, -1,
		    (const char *const[]){"model.hidden_siz", "model"}, 2);
	expect_keys(base, (const char *const[]){"model.hidden_size"}, 1, -1, (const char *const[]){NULL}, 1);
	/* a syntax error is about no key */
	expect_keys("{\"a\": 01}", NULL, 0, -1, (const char *const[]){NULL}, 1);
	/* warnings too: 5 is 5 seconds of latency, probably meant as 5 us */
	expect_keys(edit("{\"bandwidth\": \"300 GB/s\"}", "{\"bandwidth\": \"300 GB/s\", \"latency\": 5}"), NULL, 0, 0,
		    (const char *const[]){"cluster.intra_node.latency"}, 1);
	/* a Hugging Face config named by model.hf_config that cannot be read */
	{
		struct dc_config cfg;
		struct dc_diag d;
		dc_diag_init(&d);
		ck_assert_int_eq(dc_config_load_file(DC_SOURCE_DIR "/tests/inputs/hf_config_missing.json", NULL, 0, &cfg, &d),
				 -1);
		ck_assert_uint_eq(d.count, 1);
		ck_assert_ptr_nonnull(strstr(d.entries[0].text, "cannot open"));
		ck_assert_ptr_nonnull(d.entries[0].key);
		ck_assert_str_eq(d.entries[0].key, "model.hf_config");
		dc_diag_release(&d);
	}
}
END_TEST

/* Every allocation the loader makes can fail: the load then fails cleanly
 * with DC_ERR_INTERNAL (never a crash, a leak under ASan, or a wrong
 * "syntax error"), until n passes the number of allocations and it works. */
static void fail_each_allocation(const char *buf, size_t len, const char *const *sets, size_t nsets, int want_rc)
{
	struct dc_override ov[4];
	unsigned long n;
	int done = 0;

	for (size_t i = 0; i < nsets; i++)
		ov[i] = (struct dc_override){sets[i], 0};
	for (n = 1; n < 100000 && !done; n++) {
		struct dc_config cfg;
		struct dc_diag d;
		int rc;
		unsigned long failures;
		dc_diag_init(&d);
		failures = dc_alloc_failures();
		dc_alloc_fail_at(n);
		rc = dc_config_load_buffer(buf, len, "t.json", ov, nsets, &cfg, &d);
		dc_alloc_fail_at(0);
		if (dc_alloc_failures() == failures) {
			/* n is past the last allocation: the real result */
			ck_assert_int_eq(rc, want_rc);
			done = 1;
		} else {
			ck_assert_msg(rc == -1, "allocation %lu failed but the load succeeded", n);
			ck_assert_msg(d.status == DC_ERR_INTERNAL, "allocation %lu failed: status %d", n, (int)d.status);
		}
		dc_diag_release(&d);
	}
	ck_assert_msg(done, "never ran out of allocations to fail");
	ck_assert_msg(n > 2, "the loader allocated nothing: injection tested nothing");
}

START_TEST(test_allocation_failures)
{
	size_t len;
	char *buf = read_all(SYSTEMS, &len);
	fail_each_allocation(buf, len, NULL, 0, 0);
	fail_each_allocation(buf, len, (const char *const[]){"collective.ranks=4", "model.mlp=gelu"}, 2, 0);
	/* a bad config: its messages are allocations too */
	fail_each_allocation(edit("\"num_layers\": 32", "\"num_layers\": 0, \"x\": 1"),
			     strlen(edit("\"num_layers\": 32", "\"num_layers\": 0, \"x\": 1")), NULL, 0, -1);
	free(buf);
}
END_TEST

START_TEST(test_several_errors_at_once)
{
	const char *text = "{\n"
			   "  \"model\": {\"num_layers\": true, \"hiden_size\": 4096, \"num_attention_heads\": 32,\n"
			   "            \"vocab_size\": 32000, \"seq_length\": 4096},\n"
			   "  \"cluster\": {\"num_nodes\": 2, \"gpus_per_node\": 4, \"gpu_memory\": \"80gb\",\n"
			   "              \"intra_node\": {\"bandwidth\": \"300 GB/s\"},\n"
			   "              \"inter_node\": {\"bandwidth\": \"10 Gbps\"}}\n"
			   "}\n";
	expect_error(text, NULL, 0, DC_ERR_CONFIG,
		     "t.json: error: 'model.num_layers': expected an integer, got true\n"
		     "t.json: error: 'model.hiden_size': unknown key; did you mean 'model.hidden_size'?\n"
		     "t.json: error: 'cluster.gpu_memory': unknown unit 'gb' (units are case-sensitive): write '80 GB' (10^9 bytes) or '80 GiB' (2^30 bytes)\n"
		     "t.json: error: 'cluster.inter_node.bandwidth': ambiguous unit 'Gbps': write '10 GB/s' (bytes per second) or '10 Gb/s' (bits per second)");
	/* an unknown key does not hide the missing ones (but the key it
	 * suggests is not reported missing again) */
	expect_error("{\"model\": {\"num_layers\": 32, \"hidden_size\": 4096, \"num_attention_heads\": 32,\n"
		     "           \"vocab_size\": 32000, \"seq_length\": 4096, \"colour\": 1},\n"
		     " \"cluster\": {\"gpu_memory\": \"80 GiB\", \"num_node\": 2}}\n",
		     NULL, 0, DC_ERR_CONFIG,
		     "t.json: error: 'model.colour': unknown key\n"
		     "t.json: error: 'cluster.num_node': unknown key; did you mean 'cluster.num_nodes'?\n"
		     "t.json: error: 'cluster.gpus_per_node': required key is missing\n"
		     "t.json: error: 'cluster.intra_node': required key is missing\n"
		     "t.json: error: 'cluster.inter_node': required key is missing");
	expect_error("{\"model\": {\"num_layers\": 32, \"hidden_size\": 4096, \"num_attention_heads\": 32,\n"
		     "           \"vocab_size\": 32000, \"seq_length\": 4096, \"colour\": 1},\n"
		     " \"cluster\": {\"gpu_memory\": \"80 GiB\"}}\n",
		     NULL, 0, DC_ERR_CONFIG,
		     "t.json: error: 'model.colour': unknown key\n"
		     "t.json: error: 'cluster.num_nodes': required key is missing\n"
		     "t.json: error: 'cluster.gpus_per_node': required key is missing\n"
		     "t.json: error: 'cluster.intra_node': required key is missing\n"
		     "t.json: error: 'cluster.inter_node': required key is missing");
	/* a section of the wrong type does not drag its keys in as missing */
	expect_error("{\"model\": {\"num_layers\": 32, \"hidden_size\": 4096, \"num_attention_heads\": 32,\n"
		     "           \"vocab_size\": 32000, \"seq_length\": 4096}, \"cluster\": 5}\n",
		     NULL, 0, DC_ERR_CONFIG, "t.json: error: 'cluster': expected an object, got a number");
	/* an unknown --set key does not hide the file's errors */
	expect_error(edit("\"num_layers\": 32", "\"num_layers\": 0"), (const char *const[]){"model.hidden_siz=1"}, 1,
		     DC_ERR_CONFIG,
		     "--set: error: 'model.hidden_siz': unknown key; did you mean 'model.hidden_size'?\n"
		     "t.json: error: 'model.num_layers': must be at least 1, got 0");
}
END_TEST

/* A member name with '.' is one (unknown) name, never a path: it must not
 * set the key it looks like, nor slip past unknown-key detection. */
START_TEST(test_dotted_member_names)
{
	expect_error(edit("\"parallel\": {\"tp\": 4}", "\"parallel.tp\": 4"), NULL, 0, DC_ERR_CONFIG,
		     "t.json: error: 'parallel.tp': unknown key (a member name is one name, never a dotted path); did you mean \"parallel\": {\"tp\": ...}?");
	/* inside a section, spelled relative to it; a typo is still suggested */
	expect_error(edit("\"intra_node\": {\"bandwidth\": \"300 GB/s\"}",
			  "\"intra_node\": {\"bandwidth\": \"300 GB/s\"}, \"inter_node.latency\": \"5 us\""),
		     NULL, 0, DC_ERR_CONFIG,
		     "t.json: error: 'cluster.inter_node.latency': unknown key (a member name is one name, never a dotted path); did you mean \"inter_node\": {\"latency\": ...}?");
	expect_error(edit("\"parallel\": {\"tp\": 4}", "\"parallel\": {\"tp\": 4}, \"parallel.tpp\": 4"), NULL, 0,
		     DC_ERR_CONFIG,
		     "t.json: error: 'parallel.tpp': unknown key (a member name is one name, never a dotted path); did you mean \"parallel\": {\"tp\": ...}?");
	expect_error(edit("\"parallel\": {\"tp\": 4}", "\"parallel\": {\"tp\": 4}, \"x.y\": 4"), NULL, 0, DC_ERR_CONFIG,
		     "t.json: error: 'x.y': unknown key (a member name is one name, never a dotted path)");
}
END_TEST

/* search.space values no layout can take are left out with a warning
 * each, naming what they must divide: base is 8 GPUs (2 x 4), a dense
 * model of 32 layers, global batch 1 x 1 x dp 2 = 2 samples. */
START_TEST(test_search_space_left_out)
{
	struct dc_config cfg;
	struct dc_diag d;
	char got[2048];

	ck_assert_int_eq(load(base,
			      (const char *const[]){"search.space.tp=[3,4,6]", "search.space.ep=[2]",
						    "search.space.virtual_pipeline=[3,4]", "search.space.micro_batch_size=[2,3]",
						    "search.space.dp=[8]"},
			      5, &cfg, &d),
			 0);
	joined(&d, got, sizeof(got));
	ck_assert_uint_eq(dc_diag_warnings(&d), 4);
	ck_assert_str_eq(got, "--set: 'search.space.tp': 3, 6 do not divide the 8 GPUs (num_nodes x gpus_per_node), so no layout takes them: left out of the search\n"
			      "--set: 'search.space.ep': 2 does not divide 1 (a dense model takes ep 1 alone), so no layout takes it: left out of the search, which then has no layout\n"
			      "--set: 'search.space.virtual_pipeline': 3 does not divide model.num_layers (32), so no layout takes it: left out of the search\n"
			      "--set: 'search.space.micro_batch_size': 3 does not divide the global batch (2 samples), so no layout takes it: left out of the search");
	dc_diag_release(&d);
	/* pp splits the layers evenly too: on 30 layers pp 4 divides the 8
	 * GPUs but not the layers (a trial's DeepSeek-V3, 61 layers, lost
	 * every pp but 1 unsaid); 3 divides neither and is said once */
	ck_assert_int_eq(load(base, (const char *const[]){"model.num_layers=30", "search.space.pp=[4,2,3]"}, 2, &cfg, &d),
			 0);
	joined(&d, got, sizeof(got));
	ck_assert_uint_eq(dc_diag_warnings(&d), 2);
	ck_assert_str_eq(got, "--set: 'search.space.pp': 3 does not divide the 8 GPUs (num_nodes x gpus_per_node), so no layout takes it: left out of the search\n"
			      "--set: 'search.space.pp': 4 does not divide model.num_layers (30), so no layout takes it: left out of the search");
	dc_diag_release(&d);
	/* uneven stages fix the config's pp: every other value is left out
	 * (a review: 1 and 2 divide 30 and were dropped unsaid) */
	ck_assert_int_eq(load(base,
			      (const char *const[]){"model.num_layers=30", "parallel.pp=4", "parallel.dp=2",
						    "parallel.tp=1", "parallel.pipeline_layers=[8,8,7,7]",
						    "search.space.pp=[1,2,3,4]"},
			      6, &cfg, &d),
			 0);
	joined(&d, got, sizeof(got));
	ck_assert_msg(strstr(got, "--set: 'search.space.pp': 1, 2 are not the config's own pp (4), which its uneven stages fix, so no layout takes them: left out of the search") != NULL,
		      "%s", got);
	dc_diag_release(&d);
}
END_TEST

/* An explicit model.params the shape does not give warns, naming both
 * counts and which figures follow which. configs/systems.json's shape by
 * hand (docs/formulas-systems.md, the strategies' worked example): 32
 * layers of 4 x 4096^2 + 3 x 4096 x 11008 + 2 x 4096 = 202,383,360 and
 * the root (embedding and head 2 x 32,000 x 4096, final norm 4096)
 * 262,148,096: 6,738,415,616. 7 x 10^9 / 6,738,415,616 = 1.0388: +3.9%.
 * The shape's own count is quiet. */
START_TEST(test_params_differing_from_the_shape_warn)
{
	size_t len;
	char *buf = read_all(SYSTEMS, &len);
	struct dc_config cfg;
	struct dc_diag d;
	char got[2048];
	const char *differs[] = {"model.params=7000000000"}, *same[] = {"model.params=6738415616"};
	buf[len] = '\0';
	ck_assert_int_eq(load(buf, differs, 1, &cfg, &d), 0);
	joined(&d, got, sizeof(got));
	ck_assert_uint_eq(dc_diag_warnings(&d), 1);
	ck_assert_str_eq(got, "--set: 'model.params': 7000000000 differs from the shape's 6738415616 (+3.9%); the "
			      "model-state memory, the DP, FSDP, ring and checkpoint bytes, the optimizer step and the "
			      "model FLOPs (so MFU) follow model.params, while the activations, the TP, PP, CP and EP "
			      "bytes and the layers' kernel times follow the shape, so the step time mixes the two; leave "
			      "model.params out for one model");
	ck_assert_str_eq(d.entries[0].key, "model.params");
	dc_diag_release(&d);
	ck_assert_int_eq(load(buf, same, 1, &cfg, &d), 0);
	ck_assert_uint_eq(d.count, 0);
	/* and is the shape's: placed and counted by its terms (a trial's
	 * shape's own count had moved 348 report fields) */
	ck_assert(!cfg.model.params_explicit);
	ck_assert_uint_eq(cfg.model.params, 6738415616);
	/* the model section still says the count was given (a trial read
	 * "the shape" and no sign of the key) */
	ck_assert(cfg.model.params_as_shape);
	dc_diag_release(&d);
	ck_assert_int_eq(load(buf, differs, 1, &cfg, &d), 0);
	ck_assert(cfg.model.params_explicit && !cfg.model.params_as_shape);
	dc_diag_release(&d);
	free(buf);
}
END_TEST

/* A key the preset gave, required again because the command line took the
 * preset away, is blamed on that --unset or --set, not on the file (a
 * trial's --unset cluster.system blamed t.json for four keys it never
 * needed). The file's own missing key stays the file's. */
START_TEST(test_missing_after_the_preset_is_removed_blames_the_command_line)
{
	static const char cfgtext[] =
		"{\"model\": {\"num_layers\": 2, \"hidden_size\": 256, \"num_attention_heads\": 4, \"vocab_size\": 1000,"
		" \"seq_length\": 128},"
		" \"cluster\": {\"system\": \"dgx-h100\", \"num_nodes\": 1},"
		" \"parallel\": {\"tp\": 1, \"pp\": 1}, \"training\": {\"micro_batch_size\": 1}}";
	struct dc_override un = {"cluster.system", 1}, set = {"cluster.system=custom", 0};
	struct dc_config cfg;
	struct dc_diag d;
	char got[4096];
	dc_diag_init(&d);
	ck_assert_int_eq(dc_config_load_buffer(cfgtext, strlen(cfgtext), "t.json", NULL, 0, &cfg, &d), 0);
	dc_diag_release(&d);
	dc_diag_init(&d);
	ck_assert_int_ne(dc_config_load_buffer(cfgtext, strlen(cfgtext), "t.json", &un, 1, &cfg, &d), 0);
	joined(&d, got, sizeof(got));
	ck_assert_msg(strstr(got, "--unset: error: 'cluster.gpus_per_node': required key is missing (the --unset of "
				  "cluster.system left no preset to give it)") != NULL, "%s", got);
	ck_assert_msg(strstr(got, "--unset: error: 'cluster.inter_node': required key is missing") != NULL, "%s", got);
	ck_assert_msg(strstr(got, "t.json") == NULL, "%s", got);
	dc_diag_release(&d);
	dc_diag_init(&d);
	ck_assert_int_ne(dc_config_load_buffer(cfgtext, strlen(cfgtext), "t.json", &set, 1, &cfg, &d), 0);
	joined(&d, got, sizeof(got));
	ck_assert_msg(strstr(got, "--set: error: 'cluster.gpu_memory': required key is missing (--set cluster.system "
				  "custom left no preset to give it)") != NULL, "%s", got);
	ck_assert_msg(strstr(got, "t.json") == NULL, "%s", got);
	dc_diag_release(&d);
	{
		/* an --unset that removed no preset blames nothing: the file
		 * named none and misses the key itself (a review) */
		static const char nosys[] =
			"{\"model\": {\"num_layers\": 2, \"hidden_size\": 256, \"num_attention_heads\": 4,"
			" \"vocab_size\": 1000, \"seq_length\": 128},"
			" \"cluster\": {\"num_nodes\": 1, \"gpu\": \"h100-sxm5-80gb\","
			" \"intra_node\": {\"bandwidth\": \"300 GB/s\", \"latency\": \"5 us\"},"
			" \"inter_node\": {\"bandwidth\": \"200 Gb/s\", \"latency\": \"10 us\"}},"
			" \"parallel\": {\"tp\": 1, \"pp\": 1}, \"training\": {\"micro_batch_size\": 1}}";
		struct dc_override two[] = {{"cluster.system=custom", 0}, {"cluster.gpu", 1}};
		dc_diag_init(&d);
		ck_assert_int_ne(dc_config_load_buffer(nosys, strlen(nosys), "t.json", &un, 1, &cfg, &d), 0);
		joined(&d, got, sizeof(got));
		ck_assert_msg(strstr(got, "t.json: error: 'cluster.gpus_per_node': required key is missing\n") != NULL ||
				      strstr(got, "t.json: error: 'cluster.gpus_per_node': required key is missing") != NULL,
			      "%s", got);
		ck_assert_msg(strstr(got, "left no preset") == NULL, "%s", got);
		dc_diag_release(&d);
		/* the GPU preset's key blames the --unset of cluster.gpu, not
		 * the --set of a system the file never named */
		dc_diag_init(&d);
		ck_assert_int_ne(dc_config_load_buffer(nosys, strlen(nosys), "t.json", two, 2, &cfg, &d), 0);
		joined(&d, got, sizeof(got));
		ck_assert_msg(strstr(got, "--unset: error: 'cluster.gpu_memory': required key is missing (the --unset of "
					  "cluster.gpu left no preset to give it)") != NULL, "%s", got);
		ck_assert_msg(strstr(got, "--set cluster.system custom") == NULL, "%s", got);
		dc_diag_release(&d);
	}
}
END_TEST

/* A model with routed experts takes no count apart from its shape: one
 * would be held dense and counted all active (a trial's Mixtral read MFU
 * 1.58, DeepSeek-V3 5.64). The course shape with 8 experts of 11,008,
 * 2 a token, by hand: a layer 4 x 4096^2 + 2 x 4096 (norms) + 8 x 3 x
 * 4096 x 11008 + 4096 x 8 (router) = 1,149,280,256, 32 of them and the
 * root 262,148,096: 37,039,116,288; active, 2 experts a token:
 * 67,108,864 + 8,192 + 270,532,608 + 32,768 = 337,682,432 a layer,
 * 11,067,985,920. The shape's own total loads as the shape. */
START_TEST(test_params_apart_from_a_moe_shape_refused)
{
	size_t len;
	char *buf = read_all(SYSTEMS, &len);
	struct dc_config cfg;
	struct dc_diag d;
	char got[2048];
	const char *moe_other[] = {"model.num_experts=8", "model.experts_per_token=2", "model.moe_ffn_hidden_size=11008",
				   "model.params=37000000000"};
	const char *moe_same[] = {"model.num_experts=8", "model.experts_per_token=2", "model.moe_ffn_hidden_size=11008",
				  "model.params=37039116288"};
	buf[len] = '\0';
	ck_assert_int_ne(load(buf, moe_other, 4, &cfg, &d), 0);
	joined(&d, got, sizeof(got));
	ck_assert_str_eq(got, "--set: error: 'model.params': 37000000000 differs from the shape's 37039116288, and a "
			      "model with routed experts (model.num_experts 8) cannot take a count apart from its shape: "
			      "it would hold every parameter as dense (no expert split over parallel.ep) and count all of "
			      "them active in the model FLOPs (the shape's active count is 11067985920); leave "
			      "model.params out, or give the shape's 37039116288");
	dc_diag_release(&d);
	ck_assert_int_eq(load(buf, moe_same, 4, &cfg, &d), 0);
	ck_assert_uint_eq(d.count, 0);
	ck_assert(!cfg.model.params_explicit);
	dc_diag_release(&d);
	free(buf);
}
END_TEST

/* training.recompute_layers above a chunk's layers: Megatron-Core's
 * block method takes it (every layer of the chunk, recompute.py:167-181
 * at d98e8a64), so the loader warns and loads. 32 layers over pp 4 x
 * virtual 2: chunks of 4; 4 is quiet, 5 warns; selective still refuses. */
START_TEST(test_recompute_layers_above_a_chunk_warns)
{
	static const char *const at[] = {"parallel.tp=1", "parallel.pp=4", "parallel.virtual_pipeline=2",
					 "training.grad_accum_steps=8", "training.recompute=full",
					 "training.recompute_layers=4"};
	struct dc_config cfg;
	struct dc_diag d;
	char got[1024];
	const char *over[6];

	ck_assert_int_eq(load(base, at, 6, &cfg, &d), 0);
	ck_assert_msg(d.count == 0, "4 of a chunk's 4 warned");
	dc_diag_release(&d);
	memcpy(over, at, sizeof(over));
	over[5] = "training.recompute_layers=5";
	ck_assert_int_eq(load(base, over, 6, &cfg, &d), 0);
	ck_assert_uint_eq(cfg.training.recompute_layers, 5);
	ck_assert_uint_eq(dc_diag_warnings(&d), 1);
	joined(&d, got, sizeof(got));
	ck_assert_str_eq(got, "--set: 'training.recompute_layers': 5 is above the 4 layers of the largest model chunk "
			      "(num_layers / (pp x virtual_pipeline), or the largest chunk of uneven stages): every "
			      "layer of each chunk is recomputed, as Megatron-Core's block method does with it");
	dc_diag_release(&d);
	over[4] = "training.recompute=selective";
	ck_assert_int_ne(load(base, over, 6, &cfg, &d), 0);
	dc_diag_release(&d);
}
END_TEST

/* Decimal GPU memory at a card's marketed size: read as written, with a
 * warning; 80 x 10^9 / 2^30 = 74.5 GiB. */
START_TEST(test_gpu_memory_decimal_warning)
{
	struct dc_config cfg;
	struct dc_diag d;
	char got[1024];

	ck_assert_int_eq(load(edit("\"80 GiB\"", "\"80 GB\""), NULL, 0, &cfg, &d), 0);
	ck_assert_uint_eq(cfg.cluster.gpu_mem_bytes, 80000000000u);
	joined(&d, got, sizeof(got));
	ck_assert_uint_eq(dc_diag_warnings(&d), 1);
	ck_assert_str_eq(got, "t.json: 'cluster.gpu_memory': \"80 GB\" reads as 80 x 10^9 bytes (74.5 GiB), but a card sold as 80GB holds 80 GiB; if you meant that, write \"80 GiB\"");
	ck_assert_str_eq(d.entries[0].key, "cluster.gpu_memory");
	dc_diag_release(&d);
	/* 141 x 10^9 / 2^30 = 131.3 GiB */
	ck_assert_int_eq(load(base, (const char *const[]){"cluster.gpu_memory=141GB"}, 1, &cfg, &d), 0);
	joined(&d, got, sizeof(got));
	ck_assert_str_eq(got, "--set: 'cluster.gpu_memory': \"141GB\" reads as 141 x 10^9 bytes (131.3 GiB), but a card sold as 141GB holds 141 GiB; if you meant that, write \"141 GiB\"");
	dc_diag_release(&d);
	/* no card size, binary units, or another decimal unit: no warning */
	{
		static const char *const quiet[] = {"cluster.gpu_memory=81 GB", "cluster.gpu_memory=80 GiB",
						    "cluster.gpu_memory=80000 MB", "cluster.gpu_memory=80000000000"};
		for (size_t i = 0; i < 4; i++) {
			ck_assert_int_eq(load(base, &quiet[i], 1, &cfg, &d), 0);
			ck_assert_msg(d.count == 0, "%s warned", quiet[i]);
			dc_diag_release(&d);
		}
	}
}
END_TEST

/* cluster.gpu presets: the vendor data sheets' figures
 * (../shared/reference/step-time.md, "GPU facts"; dense, no sparsity):
 *   A100-SXM4-80GB  312 TFLOP/s BF16, no FP8, 80 GiB, 2.039 TB/s
 *   H100-SXM5-80GB  989 TFLOP/s BF16, 1979 FP8, 80 GiB, 3.35 TB/s
 *   H200-SXM-141GB  989 TFLOP/s BF16, 1979 FP8, 141 GiB (a card sold as
 *                   N GB holds N GiB, as the decimal warning says), 4.8 TB/s
 * A key the config gives wins over its preset. */
START_TEST(test_gpu_presets)
{
	static const struct {
		const char *set;
		enum dc_gpu gpu;
		uint64_t mem;
		double bf16, fp8, hbm;
	} want[] = {
		{"cluster.gpu=a100-sxm4-80gb", DC_GPU_A100_SXM4_80GB, 85899345920u, 312e12, 0, 2.039e12},
		{"cluster.gpu=h100-sxm5-80gb", DC_GPU_H100_SXM5_80GB, 85899345920u, 989e12, 1979e12, 3.35e12},
		{"cluster.gpu=h200-sxm-141gb", DC_GPU_H200_SXM_141GB, 151397597184u, 989e12, 1979e12, 4.8e12},
	};
	const char *no_mem = edit("\"gpu_memory\": \"80 GiB\",", "");
	char text[4096];
	struct dc_config cfg;
	struct dc_diag d;

	snprintf(text, sizeof(text), "%s", no_mem);
	for (size_t i = 0; i < 3; i++) {
		ck_assert_int_eq(load(text, &want[i].set, 1, &cfg, &d), 0);
		ck_assert_uint_eq(cfg.cluster.gpu, (unsigned)want[i].gpu);
		ck_assert_uint_eq(cfg.cluster.gpu_mem_bytes, want[i].mem);
		ck_assert_double_eq(cfg.cluster.peak_flops, want[i].bf16);
		ck_assert_double_eq(cfg.cluster.peak_flops_fp8, want[i].fp8);
		ck_assert_double_eq(cfg.cluster.hbm_bandwidth, want[i].hbm);
		dc_diag_release(&d);
	}
	ck_assert_str_eq(dc_gpu_name(DC_GPU_H200_SXM_141GB), "h200-sxm-141gb");
	ck_assert_str_eq(dc_gpu_name(DC_GPU_NONE), "");
	/* given keys win; bandwidth through the units parser */
	{
		const char *sets[] = {"cluster.gpu=h100-sxm5-80gb", "cluster.peak_flops=700e12",
				      "cluster.hbm_bandwidth=2 TB/s", "cluster.gpu_memory=64 GiB"};
		ck_assert_int_eq(load(text, sets, 4, &cfg, &d), 0);
		ck_assert_double_eq(cfg.cluster.peak_flops, 700e12);
		ck_assert_double_eq(cfg.cluster.peak_flops_fp8, 1979e12);
		ck_assert_double_eq(cfg.cluster.hbm_bandwidth, 2e12);
		ck_assert_uint_eq(cfg.cluster.gpu_mem_bytes, 68719476736u);
		dc_diag_release(&d);
	}
	/* no preset: nothing filled, no error; precision.compute defaults to bf16 */
	ck_assert_int_eq(load(base, NULL, 0, &cfg, &d), 0);
	ck_assert_uint_eq(cfg.cluster.gpu, DC_GPU_NONE);
	ck_assert_double_eq(cfg.cluster.peak_flops, 0);
	ck_assert_double_eq(cfg.cluster.hbm_bandwidth, 0);
	ck_assert_uint_eq(cfg.precision.compute, DC_COMPUTE_BF16);
	dc_diag_release(&d);
	/* fp8 without a preset is no error here (the compute result names the key) */
	ck_assert_int_eq(load(base, (const char *const[]){"precision.compute=fp8"}, 1, &cfg, &d), 0);
	ck_assert_uint_eq(cfg.precision.compute, DC_COMPUTE_FP8);
	dc_diag_release(&d);
	/* without a preset gpu_memory stays required */
	expect_error(text, NULL, 0, DC_ERR_CONFIG, "t.json: error: 'cluster.gpu_memory': required key is missing");
	/* errors: fp8 on the A100 names both keys; a near miss gets a suggestion */
	expect_error(base, (const char *const[]){"cluster.gpu=a100-sxm4-80gb", "precision.compute=fp8"}, 2,
		     DC_ERR_CONFIG,
		     "--set: error: 'precision.compute': \"fp8\" needs an FP8 matmul peak, but 'cluster.gpu' \"a100-sxm4-80gb\" has none (the A100 has no FP8 tensor cores); use \"bf16\" or give cluster.peak_flops_fp8");
	expect_error(base, (const char *const[]){"cluster.gpu=h100-sxm-80gb"}, 1, DC_ERR_CONFIG,
		     "--set: error: 'cluster.gpu': unknown value \"h100-sxm-80gb\"; did you mean \"h100-sxm5-80gb\"? (expected one of \"a100-sxm4-40gb\", \"a100-sxm4-80gb\", \"h100-sxm5-80gb\", \"h100-nvl-94gb\", \"h100-pcie-80gb\", \"h800-sxm5-80gb\", \"h200-sxm-141gb\", \"gh200-96gb\", \"b200-sxm-180gb\", \"gb200\")");
	expect_error(base, (const char *const[]){"cluster.gpu=a100"}, 1, DC_ERR_CONFIG,
		     "--set: error: 'cluster.gpu': unknown value \"a100\"; did you mean \"a100-sxm4-40gb\" or \"a100-sxm4-80gb\"? (expected one of \"a100-sxm4-40gb\", \"a100-sxm4-80gb\", \"h100-sxm5-80gb\", \"h100-nvl-94gb\", \"h100-pcie-80gb\", \"h800-sxm5-80gb\", \"h200-sxm-141gb\", \"gh200-96gb\", \"b200-sxm-180gb\", \"gb200\")");
	/* a prefix of several presets: each of them (the review's "h100") */
	expect_error(base, (const char *const[]){"cluster.gpu=h100"}, 1, DC_ERR_CONFIG,
		     "--set: error: 'cluster.gpu': unknown value \"h100\"; did you mean \"h100-sxm5-80gb\", \"h100-nvl-94gb\" or \"h100-pcie-80gb\"? (expected one of \"a100-sxm4-40gb\", \"a100-sxm4-80gb\", \"h100-sxm5-80gb\", \"h100-nvl-94gb\", \"h100-pcie-80gb\", \"h800-sxm5-80gb\", \"h200-sxm-141gb\", \"gh200-96gb\", \"b200-sxm-180gb\", \"gb200\")");
	/* every preset the value begins, or begins a word of, beside the
	 * slips: the trial's "b200" got only the slip "gb200" */
	expect_error(base, (const char *const[]){"cluster.gpu=b200"}, 1, DC_ERR_CONFIG,
		     "--set: error: 'cluster.gpu': unknown value \"b200\"; did you mean \"b200-sxm-180gb\" or \"gb200\"? (expected one of \"a100-sxm4-40gb\", \"a100-sxm4-80gb\", \"h100-sxm5-80gb\", \"h100-nvl-94gb\", \"h100-pcie-80gb\", \"h800-sxm5-80gb\", \"h200-sxm-141gb\", \"gh200-96gb\", \"b200-sxm-180gb\", \"gb200\")");
	expect_error(base, (const char *const[]){"cluster.system=nvl72"}, 1, DC_ERR_CONFIG,
		     "--set: error: 'cluster.system': unknown value \"nvl72\"; did you mean \"gb200-nvl72\"? (expected one of \"custom\", \"dgx-a100\", \"dgx-h100\", \"dgx-h200\", \"dgx-b200\", \"gb200-nvl72\", \"hgx-h800\", \"aws-p5\", \"aws-p5e\", \"gcp-a3-mega\", \"azure-nd-h100-v5\", \"oci-bm-gpu-h100\")");
	expect_error(base, (const char *const[]){"cluster.system=h100"}, 1, DC_ERR_CONFIG,
		     "--set: error: 'cluster.system': unknown value \"h100\"; did you mean \"dgx-h100\", \"azure-nd-h100-v5\" or \"oci-bm-gpu-h100\"? (expected one of \"custom\", \"dgx-a100\", \"dgx-h100\", \"dgx-h200\", \"dgx-b200\", \"gb200-nvl72\", \"hgx-h800\", \"aws-p5\", \"aws-p5e\", \"gcp-a3-mega\", \"azure-nd-h100-v5\", \"oci-bm-gpu-h100\")");
	/* a refused preset's error stands alone: no "required key is missing"
	 * for what it would fill, no warning that the refused value overrides
	 * the system's GPU (the trial's cluster.gpu=h100, cluster.system=gb200) */
	{
		static const char sys[] = "{\"model\": {\"num_layers\": 2, \"hidden_size\": 64, \"num_attention_heads\": 4,"
					  " \"vocab_size\": 100, \"seq_length\": 16}, \"cluster\": {\"num_nodes\": 2}}";
		expect_error(sys, (const char *const[]){"cluster.system=dgx-h100", "cluster.gpu=h100"}, 2, DC_ERR_CONFIG,
			     "--set: error: 'cluster.gpu': unknown value \"h100\"; did you mean \"h100-sxm5-80gb\", \"h100-nvl-94gb\" or \"h100-pcie-80gb\"? (expected one of \"a100-sxm4-40gb\", \"a100-sxm4-80gb\", \"h100-sxm5-80gb\", \"h100-nvl-94gb\", \"h100-pcie-80gb\", \"h800-sxm5-80gb\", \"h200-sxm-141gb\", \"gh200-96gb\", \"b200-sxm-180gb\", \"gb200\")");
		expect_error(sys, (const char *const[]){"cluster.system=gb200"}, 1, DC_ERR_CONFIG,
			     "--set: error: 'cluster.system': unknown value \"gb200\"; did you mean \"gb200-nvl72\"? (expected one of \"custom\", \"dgx-a100\", \"dgx-h100\", \"dgx-h200\", \"dgx-b200\", \"gb200-nvl72\", \"hgx-h800\", \"aws-p5\", \"aws-p5e\", \"gcp-a3-mega\", \"azure-nd-h100-v5\", \"oci-bm-gpu-h100\")");
		/* a refused count the system would fill: its error alone */
		expect_error(sys, (const char *const[]){"cluster.system=dgx-h100", "cluster.gpus_per_node=eight"}, 2,
			     DC_ERR_CONFIG, "--set: error: 'cluster.gpus_per_node': expected an integer, got the string \"eight\"");
		/* no system and no GPU preset: still missing, and the file's
		 * (the --set took no preset away: the file named none) */
		expect_error(sys, (const char *const[]){"cluster.system=custom"}, 1, DC_ERR_CONFIG,
			     "t.json: error: 'cluster.gpus_per_node': required key is missing\n"
			     "t.json: error: 'cluster.gpu_memory': required key is missing\n"
			     "t.json: error: 'cluster.intra_node': required key is missing\n"
			     "t.json: error: 'cluster.inter_node': required key is missing");
	}
	/* an enum's short word: one edit is a slip ("ful"); two are not ("no"
	 * is 2 from "op" as from "none"), so "no" gets the choice it begins */
	expect_error(base, (const char *const[]){"training.recompute=ful"}, 1, DC_ERR_CONFIG,
		     "--set: error: 'training.recompute': unknown value \"ful\"; did you mean \"full\"? (expected one of \"none\", \"selective\", \"full\", \"op\")");
	expect_error(base, (const char *const[]){"training.recompute=no"}, 1, DC_ERR_CONFIG,
		     "--set: error: 'training.recompute': unknown value \"no\"; did you mean \"none\"? (expected one of \"none\", \"selective\", \"full\", \"op\")");
	expect_error(base, (const char *const[]){"cluster.peak_flops=0"}, 1, DC_ERR_CONFIG,
		     "--set: error: 'cluster.peak_flops': must be at least 1, got 0");
	expect_error(base, (const char *const[]){"cluster.peak_flops=1e18"}, 1, DC_ERR_CONFIG,
		     "--set: error: 'cluster.peak_flops': must be below 1e+18 FLOP/s, got 1e+18");
	/* a user's FP8 figure makes fp8 on the A100 preset legal */
	{
		const char *sets[] = {"cluster.gpu=a100-sxm4-80gb", "precision.compute=fp8",
				      "cluster.peak_flops_fp8=624e12"};
		ck_assert_int_eq(load(base, sets, 3, &cfg, &d), 0);
		ck_assert_double_eq(cfg.cluster.peak_flops_fp8, 624e12);
		dc_diag_release(&d);
	}
}
END_TEST

/* parallel.dp "auto": derived as if absent. The test config's 2 x 4 GPUs
 * at tp 4 give dp 8 / 4 = 2; --set cluster.num_nodes=4 makes 16 GPUs and
 * dp 16 / 4 = 4, where the file's dp 2 would be an error; a --set of a
 * number after it gives dp again, "auto" from --set on a file's dp 2
 * derives it; any other string is an error naming the key. */
START_TEST(test_dp_auto)
{
	struct dc_override ov[2] = {{"cluster.num_nodes=4", 0}, {"parallel.dp=4", 0}};
	struct dc_config cfg;
	struct dc_diag d;
	const char *text = edit("\"parallel\": {\"tp\": 4}", "\"parallel\": {\"tp\": 4, \"dp\": \"auto\"}");

	dc_diag_init(&d);
	ck_assert_int_eq(dc_config_load_buffer(text, strlen(text), "t.json", NULL, 0, &cfg, &d), 0);
	ck_assert_uint_eq(cfg.parallel.dp, 2);
	ck_assert_int_eq(cfg.parallel.dp_explicit, 0);
	dc_diag_release(&d);

	dc_diag_init(&d);
	ck_assert_int_eq(dc_config_load_buffer(text, strlen(text), "t.json", ov, 1, &cfg, &d), 0);
	ck_assert_uint_eq(cfg.parallel.dp, 4);
	dc_diag_release(&d);

	dc_diag_init(&d);
	ck_assert_int_eq(dc_config_load_buffer(text, strlen(text), "t.json", ov, 2, &cfg, &d), 0);
	ck_assert_uint_eq(cfg.parallel.dp, 4);
	ck_assert_int_eq(cfg.parallel.dp_explicit, 1);
	dc_diag_release(&d);

	text = edit("\"parallel\": {\"tp\": 4}", "\"parallel\": {\"tp\": 4, \"dp\": 2}");
	ov[1].text = "parallel.dp=auto";
	dc_diag_init(&d);
	ck_assert_int_eq(dc_config_load_buffer(text, strlen(text), "t.json", ov, 2, &cfg, &d), 0);
	ck_assert_uint_eq(cfg.parallel.dp, 4);
	dc_diag_release(&d);

	text = edit("\"parallel\": {\"tp\": 4}", "\"parallel\": {\"tp\": 4, \"dp\": \"AUTO\"}");
	dc_diag_init(&d);
	ck_assert_int_eq(dc_config_load_buffer(text, strlen(text), "t.json", NULL, 0, &cfg, &d), -1);
	ck_assert_str_eq(d.entries[0].text, "t.json: error: 'parallel.dp': expected an integer or \"auto\", got the string \"AUTO\"");
	dc_diag_release(&d);
}
END_TEST

/* --unset removes a key the file gives, so its derived value applies: the
 * file's dp 2 on 2 x 4 GPUs at tp 4; 4 nodes make 16 GPUs, and with dp
 * unset it is derived as 16 / tp 4 = 4. A path the config lacks warns, an
 * unknown one is an error with a suggestion. */
START_TEST(test_unset)
{
	struct dc_override ov[3] = {{"cluster.num_nodes=4", 0}, {"parallel.dp", 1}, {"parallel.pp", 1}};
	struct dc_config cfg;
	struct dc_diag d;
	const char *text = edit("\"parallel\": {\"tp\": 4}", "\"parallel\": {\"tp\": 4, \"dp\": 2}");

	dc_diag_init(&d);
	ck_assert_int_eq(dc_config_load_buffer(text, strlen(text), "t.json", ov, 1, &cfg, &d), -1);
	ck_assert_str_eq(d.entries[0].text, "--set: error: 'parallel.dp': dp x tp x pp (2 x 4 x 1) must equal num_nodes x gpus_per_node (16); set parallel.dp to \"auto\" (or --unset parallel.dp) to derive it from the GPU count (4 here)");
	dc_diag_release(&d);

	dc_diag_init(&d);
	ck_assert_int_eq(dc_config_load_buffer(text, strlen(text), "t.json", ov, 3, &cfg, &d), 0);
	ck_assert_uint_eq(cfg.parallel.dp, 4);
	ck_assert_uint_eq(d.count, 1);
	ck_assert_str_eq(d.entries[0].text, "--unset: 'parallel.pp': the config does not give it (nor an earlier --set); nothing to remove");
	dc_diag_release(&d);

	ov[1].text = "parallel.dpp";
	dc_diag_init(&d);
	ck_assert_int_eq(dc_config_load_buffer(text, strlen(text), "t.json", ov, 2, &cfg, &d), -1);
	ck_assert_str_eq(d.entries[0].text, "--unset: error: 'parallel.dpp': unknown key; did you mean 'parallel.dp'?");
	dc_diag_release(&d);
}
END_TEST

/* Where each cluster value came from, and a preset that loses says so.
 * tests/inputs/dgx_h100_2x8.json gives system "dgx-h100" and num_nodes 2:
 * the preset fills 8 GPUs a node and the H100 (NVIDIA's DGX H100 user
 * guide), whose preset fills 80 GiB = 80 x 2^30 = 85,899,345,920 bytes.
 * A --set of the NVLink rate beats the preset's 18 links x 20.6 GB/s =
 * 370.8 GB/s, with a warning naming both. */
START_TEST(test_provenance)
{
	struct dc_override ov[1] = {{"cluster.intra_node.bandwidth=300 GB/s", 0}};
	struct dc_load_opts o = {ov, 1, NULL, 0};
	struct dc_config cfg;
	struct dc_diag d;
	char buf[64], got[4096];
	int k;

	dc_diag_init(&d);
	ck_assert_int_eq(dc_config_load_file_opts(DC_SOURCE_DIR "/tests/inputs/dgx_h100_2x8.json", &o, &cfg, &d), 0);
	joined(&d, got, sizeof(got));
	ck_assert_str_eq(got, "--set: 'cluster.intra_node.bandwidth': 300 GB/s from --set overrides 370.8 GB/s that cluster.system \"dgx-h100\" would fill");
	ck_assert_int_eq(cfg.origin[dc_config_key_index("cluster.system")], DC_ORIGIN_CONFIG);
	ck_assert_int_eq(cfg.origin[dc_config_key_index("cluster.num_nodes")], DC_ORIGIN_CONFIG);
	k = dc_config_key_index("cluster.gpus_per_node");
	ck_assert_int_eq(cfg.origin[k], DC_ORIGIN_SYSTEM);
	ck_assert_uint_eq(cfg.cluster.gpus_per_node, 8);
	ck_assert_str_eq(dc_config_origin_text(&cfg, (size_t)k, buf, sizeof(buf)), "preset:dgx-h100");
	k = dc_config_key_index("cluster.gpu_memory");
	ck_assert_int_eq(cfg.origin[k], DC_ORIGIN_GPU);
	ck_assert_str_eq(dc_config_origin_text(&cfg, (size_t)k, buf, sizeof(buf)), "preset:h100-sxm5-80gb");
	ck_assert_int_eq(dc_config_value_json(&cfg, (size_t)k, buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "85899345920");
	/* a count in a buffer of 21 bytes (20 digits and the NUL, written in
	 * place) and cut as snprintf would in 21 - 1 and 5 bytes */
	ck_assert_int_eq(dc_config_value_json(&cfg, (size_t)k, buf, 21), 0);
	ck_assert_str_eq(buf, "85899345920");
	ck_assert_int_eq(dc_config_value_json(&cfg, (size_t)k, buf, 20), 0);
	ck_assert_str_eq(buf, "85899345920");
	ck_assert_int_eq(dc_config_value_json(&cfg, (size_t)k, buf, 5), 0);
	ck_assert_str_eq(buf, "8589");
	/* no topology file: null, cut to "nu" in 3 bytes */
	k = dc_config_key_index("cluster.topology_file");
	ck_assert_int_eq(dc_config_value_json(&cfg, (size_t)k, buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "null");
	ck_assert_int_eq(dc_config_value_json(&cfg, (size_t)k, buf, 3), 0);
	ck_assert_str_eq(buf, "nu");
	k = dc_config_key_index("cluster.intra_node.bandwidth");
	ck_assert_int_eq(cfg.origin[k], DC_ORIGIN_SET);
	ck_assert_int_eq(dc_config_value_json(&cfg, (size_t)k, buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "300000000000");
	k = dc_config_key_index("cluster.host_memory");
	ck_assert_str_eq(dc_config_origin_text(&cfg, (size_t)k, buf, sizeof(buf)), "default");
	ck_assert_int_eq(cfg.cluster.nvls, 1); /* Hopper's NVSwitch does NVLink SHARP */
	dc_diag_release(&d);
}
END_TEST

/* NVLink SHARP only where the GPU has it: the A100's NVSwitch does no
 * in-switch reductions. Asked for on the base config's A100: an error; a
 * DGX H100 preset over a config's A100: the GPU warns, nvls stays off. */
START_TEST(test_nvls_needs_the_gpu)
{
	struct dc_config cfg;
	struct dc_diag d;
	char got[4096];
	const char *a100 = edit("\"gpu_memory\": \"80 GiB\",", "\"gpu\": \"a100-sxm4-80gb\",");
	static const char *const nvls[] = {"cluster.nvls=true"};
	static const char *const dgx[] = {"cluster.system=dgx-h100"};
	expect_error(a100, nvls, 1, DC_ERR_CONFIG,
		     "--set: error: 'cluster.nvls': NVLink SHARP needs NVSwitch reductions (Hopper's third-generation NVSwitch), which 'cluster.gpu' \"a100-sxm4-80gb\" has not; leave nvls false");
	ck_assert_int_eq(load(a100, dgx, 1, &cfg, &d), 0);
	joined(&d, got, sizeof(got));
	ck_assert_ptr_nonnull(strstr(got, "'cluster.gpu': \"a100-sxm4-80gb\" from the config overrides \"h100-sxm5-80gb\" that cluster.system \"dgx-h100\" would fill"));
	ck_assert_ptr_nonnull(strstr(got, "'cluster.gpus_per_node': 4 from the config overrides 8 that cluster.system \"dgx-h100\" would fill"));
	ck_assert_ptr_nonnull(strstr(got, "t.json: 'cluster.nvls': cluster.system \"dgx-h100\" has NVLink SHARP, but 'cluster.gpu' \"a100-sxm4-80gb\" has no NVSwitch reductions: nvls false"));
	ck_assert_int_eq(cfg.cluster.nvls, 0);
	/* false because of the GPU: the cluster table says its preset's (a
	 * user trial read "preset:dgx-h100" beside the A100's false) */
	ck_assert_int_eq(cfg.origin[dc_config_key_index("cluster.nvls")], DC_ORIGIN_GPU);
	dc_diag_release(&d);
}
END_TEST

/* NVLink only as far as the GPU's fabric reaches: H100 PCIe and NVL cards
 * pair over bridges inside a node, and an A100's NVSwitch joins at most two
 * 8-GPU boards (a trial's 64-GPU domains of both priced every group on
 * NVLink without a word). On the base config's 4-GPU nodes. */
START_TEST(test_nvlink_domain_within_the_fabric)
{
	struct dc_config cfg;
	struct dc_diag d;
	char got[4096];
	const char *a100 = edit("\"gpu_memory\": \"80 GiB\",", "\"gpu\": \"a100-sxm4-80gb\",");
	const char *pcie;
	static const char *const d32[] = {"cluster.nvlink_domain=32"}, *const d16[] = {"cluster.nvlink_domain=16"};
	static const char *const d8[] = {"cluster.nvlink_domain=8", "cluster.intra_node.bandwidth=64 GB/s"};
	static const char *const slow[] = {"cluster.intra_node.bandwidth=64 GB/s"};
	expect_error(a100, d32, 1, DC_ERR_CONFIG,
		     "--set: error: 'cluster.nvlink_domain': 32 GPUs, but 'cluster.gpu' \"a100-sxm4-80gb\"'s NVSwitch joins at most 16 (an HGX A100 board of 8, or two of them joined by their NVSwitches; the A100 has no NVLink Switch System between nodes): set nvlink_domain to at most 16, a multiple of gpus_per_node, or drop it");
	ck_assert_int_eq(load(a100, d16, 1, &cfg, &d), 0);
	ck_assert_uint_eq(cfg.cluster.nvlink_domain, 16);
	dc_diag_release(&d);
	pcie = edit("\"gpu_memory\": \"80 GiB\",", "\"gpu\": \"h100-pcie-80gb\","); /* edit()'s buffer */
	expect_error(pcie, d8, 2, DC_ERR_CONFIG,
		     "--set: error: 'cluster.nvlink_domain': 8 GPUs over several nodes, but 'cluster.gpu' \"h100-pcie-80gb\" links over NVLink bridges between pairs of cards (no NVSwitch; NVIDIA's H100 data sheet), so no NVLink leaves a node: set nvlink_domain to gpus_per_node (4) or drop it");
	/* four cards a node at the bridge's 300 GB/s: warned; at the PCIe
	 * Gen5 x16 rate, 64 GB/s one way, not */
	ck_assert_int_eq(load(pcie, NULL, 0, &cfg, &d), 0);
	joined(&d, got, sizeof(got));
	ck_assert_ptr_nonnull(strstr(got, "t.json: 'cluster.intra_node.bandwidth': 300 GB/s between any two of a node's 4 GPUs, but 'cluster.gpu' \"h100-pcie-80gb\" cards pair over NVLink bridges (2 cards a bridge, no NVSwitch): a group of more than 2 of a node's GPUs moves data over PCIe, at most 64 GB/s one way (Gen5 x16); priced as given"));
	dc_diag_release(&d);
	ck_assert_int_eq(load(pcie, slow, 1, &cfg, &d), 0);
	joined(&d, got, sizeof(got));
	ck_assert_ptr_null(strstr(got, "NVLink bridges"));
	dc_diag_release(&d);
}
END_TEST

/* A config parsed once and loaded many times (a sweep's points) loads as
 * a load from the text would, point for point: the same config, the same
 * return and the same messages in the same order (value errors, unknown
 * keys with their suggestion, --unset, a wrong --set, a rule between keys,
 * a warning, a Hugging Face config relative to the file's directory that
 * cannot be read, --model), whichever load came before. */
static void same_load(const struct dc_config_parsed *p, const char *path, const char *text,
		      const struct dc_load_opts *o)
{
	struct dc_config a, b;
	struct dc_diag da, db;
	int ra, rb;

	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	dc_diag_init(&da);
	dc_diag_init(&db);
	ra = path ? dc_config_load_file_opts(path, o, &a, &da)
		  : dc_config_load_buffer_opts(text, strlen(text), "t.json", o, &a, &da);
	rb = dc_config_load_parsed(p, o, &b, &db);
	ck_assert_int_eq(ra, rb);
	ck_assert_int_eq(da.status, db.status);
	ck_assert_uint_eq(da.count, db.count);
	for (size_t i = 0; i < da.count; i++) {
		ck_assert_int_eq(da.entries[i].severity, db.entries[i].severity);
		ck_assert_str_eq(da.entries[i].text, db.entries[i].text);
		ck_assert_pstr_eq(da.entries[i].key, db.entries[i].key);
	}
	if (ra == 0)
		ck_assert(memcmp(&a, &b, sizeof(a)) == 0);
	dc_diag_release(&da);
	dc_diag_release(&db);
}

START_TEST(test_parse_once_loads_alike)
{
	static const char *const sets[][2] = {
		{NULL, NULL},
		{"cluster.num_nodes=4", "parallel.dp=4"},
		{"parallel.tp=8", NULL},                 /* tp x dp above the world */
		{"parallel.tq=2", NULL},                 /* unknown, with a suggestion */
		{"cluster.gpu_memory=80G", NULL},        /* an ambiguous unit */
		{"training.micro_batch_size=3", "training.global_batch_size=64"}, /* a rule */
		{"cluster.gpus_per_node=2", "parallel.tp=4"},
		{"parallel.tp", NULL},                   /* not PATH=VALUE: a usage error */
		{"model.hf_config=" DC_SOURCE_DIR "/configs/models/llama-3-8b.json", NULL},
	};
	const char *paths[] = {SYSTEMS, DC_SOURCE_DIR "/tests/inputs/hf_config_missing.json",
			       DC_SOURCE_DIR "/tests/inputs/hf_config_gpt2.json", NULL};
	struct dc_diag d;

	for (size_t f = 0; f < sizeof(paths) / sizeof(paths[0]); f++) {
		struct dc_config_parsed *p;
		dc_diag_init(&d);
		p = paths[f] ? dc_config_parse_file(paths[f], &d) : dc_config_parse_buffer(base, strlen(base), "t.json", &d);
		ck_assert_msg(p != NULL, "%s", paths[f] ? paths[f] : "base");
		ck_assert_uint_eq(d.count, 0);
		dc_diag_release(&d);
		for (size_t k = 0; k < sizeof(sets) / sizeof(sets[0]); k++) {
			struct dc_override ov[3];
			size_t n = 0;
			for (size_t j = 0; j < 2; j++)
				if (sets[k][j])
					ov[n++] = (struct dc_override){sets[k][j], 0};
			{
				struct dc_load_opts o = {ov, n, NULL, 0};
				same_load(p, paths[f], base, &o);
			}
			/* --unset and --model on top */
			ov[n++] = (struct dc_override){"cluster.inter_node", 1};
			{
				struct dc_load_opts o = {ov, n, DC_SOURCE_DIR "/configs/models/llama-3-8b.json", 0};
				same_load(p, paths[f], base, &o);
			}
		}
		dc_config_parsed_free(p);
	}

	/* what cannot be read or parsed is said once, as a load would say it */
	{
		static const char bad[] = "{\"a\": 1,}";
		struct dc_config cfg;
		struct dc_diag dl;
		dc_diag_init(&d);
		dc_diag_init(&dl);
		ck_assert(dc_config_parse_buffer(bad, strlen(bad), "t.json", &d) == NULL);
		ck_assert_int_eq(dc_config_load_buffer(bad, strlen(bad), "t.json", NULL, 0, &cfg, &dl), -1);
		ck_assert_uint_eq(d.count, 1);
		ck_assert_uint_eq(dl.count, 1);
		ck_assert_str_eq(d.entries[0].text, dl.entries[0].text);
		dc_diag_release(&d);
		dc_diag_release(&dl);
	}
	dc_diag_init(&d);
	ck_assert(dc_config_parse_file(DC_SOURCE_DIR "/configs/nope.json", &d) == NULL);
	ck_assert_int_eq(d.status, DC_ERR_INPUT);
	dc_diag_release(&d);
	dc_config_parsed_free(NULL);
}
END_TEST

/* Every key of the table is found at its own row by its path, and a path
 * that is no key is not (the look-up is a hash table over the rows). */
START_TEST(test_key_lookup)
{
	for (size_t i = 0; i < dc_config_key_count(); i++)
		ck_assert_int_eq(dc_config_key_index(dc_config_key_at(i)->path), (int)i);
	ck_assert_int_eq(dc_config_key_index(""), -1);
	ck_assert_int_eq(dc_config_key_index("parallel.tq"), -1);
	ck_assert_int_eq(dc_config_key_index("parallel.tp.x"), -1);
	ck_assert_int_eq(dc_config_key_index("Parallel.tp"), -1);
	ck_assert(dc_config_key_find("parallel.tp") == dc_config_key_at((size_t)dc_config_key_index("parallel.tp")));
	ck_assert_str_eq(dc_config_key_find("parallel")->path, "parallel");
}
END_TEST

/* Which value wins with a Hugging Face config (docs/config.md): named by
 * --set model.hf_config, the file replaces the config's shape keys, each
 * replaced key warned, so Llama-3-8B's shape counts Llama-3-8B's
 * parameters; named in the config file, the config's own keys win, each
 * warned. Llama-3-8B by hand (L 32, h 4096, 32 heads, 8 KV heads of 128,
 * f 14336, V 128256, untied): embedding and head 2 x 128256 x 4096 =
 * 1,050,673,152; a layer q and o 2 x 4096^2 = 33,554,432, k and v 2 x
 * 4096 x 1024 = 8,388,608, MLP 3 x 4096 x 14336 = 176,160,768, two norms
 * 8,192: 218,112,000, x 32 = 6,979,584,000; final norm 4,096: in all
 * 8,030,261,248. */
START_TEST(test_hf_config_which_wins)
{
	struct dc_config cfg;
	struct dc_diag d;
	struct dc_plan plan;
	char got[8192];
	static const char *const set_hf[] = {"model.hf_config=" DC_SOURCE_DIR "/configs/models/llama-3-8b.json"};
	const char *in_file = edit("\"seq_length\": 4096}", "\"seq_length\": 4096, \"hf_config\": \"" DC_SOURCE_DIR "/configs/models/llama-3-8b.json\"}");

	ck_assert_int_eq(load(base, set_hf, 1, &cfg, &d), 0);
	joined(&d, got, sizeof(got));
	ck_assert_ptr_nonnull(strstr(got, "t.json: 'model.vocab_size': the config's 32000 is replaced by 128256 from llama-3-8b.json (named by --set model.hf_config)"));
	ck_assert_uint_eq(cfg.model.vocab_size, 128256);
	ck_assert_int_eq(cfg.origin[dc_config_key_index("model.vocab_size")], DC_ORIGIN_HF);
	ck_assert_int_eq(cfg.origin[dc_config_key_index("model.seq_length")], DC_ORIGIN_CONFIG);
	ck_assert_int_eq(dc_plan_derive(&cfg, &plan), 0);
	ck_assert_uint_eq(plan.params_total, 8030261248u);
	dc_diag_release(&d);

	ck_assert_int_eq(load(in_file, NULL, 0, &cfg, &d), 0);
	joined(&d, got, sizeof(got));
	ck_assert_ptr_nonnull(strstr(got, "t.json: 'model.vocab_size': the config's 32000 overrides 128256 from llama-3-8b.json (model.hf_config)"));
	ck_assert_uint_eq(cfg.model.vocab_size, 32000);
	ck_assert_int_eq(cfg.origin[dc_config_key_index("model.vocab_size")], DC_ORIGIN_CONFIG);
	ck_assert_int_eq(cfg.origin[dc_config_key_index("model.num_kv_heads")], DC_ORIGIN_HF);
	dc_diag_release(&d);
}
END_TEST

/* The new presets fill every figure from their data sheets (dense: half
 * the "with sparsity" figures), the SMs and the derived compute slowdown
 * (NCCL's 8 channels over the SMs: 8 / 132 = 0.060606 on Hopper, 8 / 148 =
 * 0.054054 on Blackwell; the A100 keeps 0.075); the attention backend
 * follows training.attention; the FP8 keys are checked against the GPU. */
/* parallel.cp_comm_type not given under training.framework torchtitan:
 * "all_gather", what torchtitan's and PyTorch's context parallelism run
 * (the rotate method ALL_GATHER at 9dec370 and in torch's
 * _ContextParallelOptions; K and V gathered at the attention boundary
 * since June 2026), its origin the framework; Megatron's "p2p" under
 * every other framework, and a given type wins */
START_TEST(test_cp_comm_type_from_framework)
{
	static const struct {
		const char *framework, *extra;
		enum dc_cp_comm want;
		enum dc_origin origin;
	} cases[] = {
		{"training.framework=torchtitan", NULL, DC_CP_ALL_GATHER, DC_ORIGIN_FRAMEWORK},
		{"training.framework=megatron", NULL, DC_CP_P2P, DC_ORIGIN_DEFAULT},
		{"training.framework=custom", NULL, DC_CP_P2P, DC_ORIGIN_DEFAULT},
		{"training.framework=deepspeed", NULL, DC_CP_P2P, DC_ORIGIN_DEFAULT},
		{"training.framework=torchtitan", "parallel.cp_comm_type=p2p", DC_CP_P2P, DC_ORIGIN_SET},
	};
	int k = dc_config_key_index("parallel.cp_comm_type");
	char from[64];
	struct dc_config cfg;
	struct dc_diag d;
	ck_assert_int_ge(k, 0);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *sets[] = {"parallel.cp=2", "parallel.dp=1", cases[i].framework, cases[i].extra};
		ck_assert_msg(load(base, sets, cases[i].extra ? 4 : 3, &cfg, &d) == 0, "case %zu", i);
		ck_assert_msg(cfg.parallel.cp_comm_type == cases[i].want, "case %zu: type %d", i,
			      (int)cfg.parallel.cp_comm_type);
		ck_assert_msg(cfg.origin[k] == cases[i].origin, "case %zu: origin %d", i, (int)cfg.origin[k]);
		if (cases[i].origin == DC_ORIGIN_FRAMEWORK)
			ck_assert_str_eq(dc_config_origin_text(&cfg, (size_t)k, from, sizeof(from)), "framework:torchtitan");
		dc_diag_release(&d);
	}
}
END_TEST

/* training.attention_backend not given: Megatron-Core runs attention
 * through Transformer Engine (--transformer-impl transformer_engine,
 * --attention-backend auto), whose get_attention_backend prefers the cuDNN
 * FusedAttention to FlashAttention on compute capability 9.0 and above
 * (TransformerEngine d0067d0d, transformer_engine/pytorch/attention/
 * dot_product_attention/utils.py:1647-1653) and keeps FlashAttention(-2)
 * on sm80. torchtitan's language models run FlexAttention (torchtitan
 * 169545712; models/common/config_utils.py get_attention_config at
 * b5bcd76c), FlashAttention-2's class: sdpa. So megatron on H100 and
 * B200: cudnn, its origin the framework; on Blackwell every other
 * framework: cudnn, its origin the GPU preset; megatron on A100, and
 * torchtitan, custom and deepspeed off Blackwell: sdpa; a given backend
 * and attention "eager" win. */
START_TEST(test_attention_backend_from_framework)
{
	static const struct {
		const char *gpu, *framework, *extra;
		enum dc_attention_backend want;
		enum dc_origin origin;
	} cases[] = {
		{"cluster.gpu=h100-sxm5-80gb", "training.framework=megatron", NULL, DC_ATTN_BACKEND_CUDNN,
		 DC_ORIGIN_FRAMEWORK},
		{"cluster.gpu=h200-sxm-141gb", "training.framework=megatron", NULL, DC_ATTN_BACKEND_CUDNN,
		 DC_ORIGIN_FRAMEWORK},
		{"cluster.gpu=b200-sxm-180gb", "training.framework=megatron", NULL, DC_ATTN_BACKEND_CUDNN,
		 DC_ORIGIN_FRAMEWORK},
		{"cluster.gpu=gb200", "training.framework=megatron", NULL, DC_ATTN_BACKEND_CUDNN, DC_ORIGIN_FRAMEWORK},
		{"cluster.gpu=a100-sxm4-80gb", "training.framework=megatron", NULL, DC_ATTN_BACKEND_SDPA,
		 DC_ORIGIN_DEFAULT},
		{"cluster.gpu=h100-sxm5-80gb", "training.framework=torchtitan", NULL, DC_ATTN_BACKEND_SDPA,
		 DC_ORIGIN_DEFAULT},
		/* Blackwell under any framework: cuDNN's (PyTorch's and
		 * torchtitan's order there), unless a backend is given */
		{"cluster.gpu=b200-sxm-180gb", "training.framework=torchtitan", NULL, DC_ATTN_BACKEND_CUDNN,
		 DC_ORIGIN_GPU},
		{"cluster.gpu=gb200", "training.framework=custom", NULL, DC_ATTN_BACKEND_CUDNN, DC_ORIGIN_GPU},
		{"cluster.gpu=b200-sxm-180gb", "training.framework=deepspeed", NULL, DC_ATTN_BACKEND_CUDNN,
		 DC_ORIGIN_GPU},
		{"cluster.gpu=b200-sxm-180gb", "training.framework=torchtitan", "training.attention_backend=sdpa",
		 DC_ATTN_BACKEND_SDPA, DC_ORIGIN_SET},
		{"cluster.gpu=b200-sxm-180gb", "training.framework=custom", "training.attention=eager",
		 DC_ATTN_BACKEND_EAGER, DC_ORIGIN_DEFAULT},
		{"cluster.gpu=h100-sxm5-80gb", "training.framework=torchtitan", "training.attention_backend=cudnn",
		 DC_ATTN_BACKEND_CUDNN, DC_ORIGIN_SET},
		{"cluster.gpu=h100-sxm5-80gb", "training.framework=custom", NULL, DC_ATTN_BACKEND_SDPA,
		 DC_ORIGIN_DEFAULT},
		{"cluster.gpu=h100-sxm5-80gb", "training.framework=deepspeed", NULL, DC_ATTN_BACKEND_SDPA,
		 DC_ORIGIN_DEFAULT},
		{"cluster.gpu=h100-sxm5-80gb", "training.framework=megatron", "training.attention_backend=sdpa",
		 DC_ATTN_BACKEND_SDPA, DC_ORIGIN_SET},
		{"cluster.gpu=h100-sxm5-80gb", "training.framework=megatron", "training.attention_backend=fa3",
		 DC_ATTN_BACKEND_FA3, DC_ORIGIN_SET},
		{"cluster.gpu=h100-sxm5-80gb", "training.framework=megatron", "training.attention=eager",
		 DC_ATTN_BACKEND_EAGER, DC_ORIGIN_DEFAULT},
	};
	int k = dc_config_key_index("training.attention_backend");
	char nomem[4096], from[64];
	struct dc_config cfg;
	struct dc_diag d;

	ck_assert_int_ge(k, 0);
	snprintf(nomem, sizeof(nomem), "%s", edit("\"gpu_memory\": \"80 GiB\",", ""));
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *sets[] = {cases[i].gpu, cases[i].framework, cases[i].extra};
		ck_assert_msg(load(nomem, sets, cases[i].extra ? 3 : 2, &cfg, &d) == 0, "case %zu", i);
		ck_assert_msg(cfg.training.attention_backend == cases[i].want, "case %zu: backend %d", i,
			      (int)cfg.training.attention_backend);
		ck_assert_msg(cfg.origin[k] == cases[i].origin, "case %zu: origin %d", i, (int)cfg.origin[k]);
		dc_diag_release(&d);
	}
	/* the origin words why: the framework */
	ck_assert_int_eq(load(nomem, (const char *const[]){"cluster.gpu=h100-sxm5-80gb", "training.framework=megatron"}, 2,
			      &cfg, &d),
			 0);
	ck_assert_str_eq(dc_config_origin_text(&cfg, (size_t)k, from, sizeof(from)), "framework:megatron");
	dc_diag_release(&d);
	/* ... and the GPU on Blackwell */
	ck_assert_int_eq(load(nomem, (const char *const[]){"cluster.gpu=b200-sxm-180gb", "training.framework=torchtitan"},
			      2, &cfg, &d),
			 0);
	ck_assert_str_eq(dc_config_origin_text(&cfg, (size_t)k, from, sizeof(from)), "preset:b200-sxm-180gb");
	dc_diag_release(&d);
	/* megatron with no GPU preset (the architecture unknown): sdpa */
	ck_assert_int_eq(load(base, (const char *const[]){"training.framework=megatron"}, 1, &cfg, &d), 0);
	ck_assert_int_eq(cfg.training.attention_backend, DC_ATTN_BACKEND_SDPA);
	ck_assert_int_eq(cfg.origin[k], DC_ORIGIN_DEFAULT);
	dc_diag_release(&d);
	/* the config file's framework, the system preset's GPU */
	ck_assert_int_eq(load(edit("\"tp\": 4}", "\"tp\": 4}, \"training\": {\"framework\": \"megatron\"}"),
			      (const char *const[]){"cluster.system=dgx-h100", "cluster.num_nodes=1"}, 2, &cfg, &d),
			 0);
	ck_assert_int_eq(cfg.training.attention_backend, DC_ATTN_BACKEND_CUDNN);
	dc_diag_release(&d);
}
END_TEST

START_TEST(test_attention_and_fp8_keys)
{
	struct dc_config cfg;
	struct dc_diag d;
	char got[1024], nomem[4096];

	/* without gpu_memory, so no preset loses to the config's 80 GiB */
	snprintf(nomem, sizeof(nomem), "%s", edit("\"gpu_memory\": \"80 GiB\",", ""));

	/* B200: 4.5 PFLOP/s FP8 and 2.25 BF16 dense (HGX B200 data sheet:
	 * 9 and 4.5 with sparsity), 180 GB, 8 TB/s, 148 SMs */
	ck_assert_int_eq(load(nomem, (const char *const[]){"cluster.gpu=b200-sxm-180gb"}, 1, &cfg, &d), 0);
	ck_assert_double_eq(cfg.cluster.peak_flops, 2250e12);
	ck_assert_double_eq(cfg.cluster.peak_flops_fp8, 4500e12);
	ck_assert_double_eq(cfg.cluster.hbm_bandwidth, 8e12);
	ck_assert_uint_eq(cfg.cluster.gpu_mem_bytes, 180ull << 30);
	ck_assert_uint_eq(cfg.cluster.sm_count, 148);
	ck_assert_double_le(fabs(cfg.overlap.compute_slowdown - 8.0 / 148.0), 1e-15);
	ck_assert_int_eq(cfg.training.attention_backend, DC_ATTN_BACKEND_CUDNN); /* Blackwell's default */
	dc_diag_release(&d);
	/* H100 PCIe: 1513 FP8 and 756.5 BF16 dense, 114 SMs, 8 / 114 */
	ck_assert_int_eq(load(nomem, (const char *const[]){"cluster.gpu=h100-pcie-80gb"}, 1, &cfg, &d), 0);
	ck_assert_double_eq(cfg.cluster.peak_flops, 756.5e12);
	ck_assert_uint_eq(cfg.cluster.sm_count, 114);
	ck_assert_double_le(fabs(cfg.overlap.compute_slowdown - 8.0 / 114.0), 1e-15);
	dc_diag_release(&d);
	/* the A100 and no preset keep 0.075; a given value wins */
	ck_assert_int_eq(load(nomem, (const char *const[]){"cluster.gpu=a100-sxm4-40gb"}, 1, &cfg, &d), 0);
	ck_assert_double_eq(cfg.overlap.compute_slowdown, 0.075);
	ck_assert_double_eq(cfg.cluster.hbm_bandwidth, 1.555e12);
	dc_diag_release(&d);
	ck_assert_int_eq(load(nomem, (const char *const[]){"cluster.gpu=gb200", "overlap.compute_slowdown=0.1"}, 2, &cfg, &d), 0);
	ck_assert_double_eq(cfg.overlap.compute_slowdown, 0.1);
	dc_diag_release(&d);
	/* no preset and no SMs: 0.075 too (it was left 0, no slowdown at all) */
	ck_assert_int_eq(load(base, NULL, 0, &cfg, &d), 0);
	ck_assert_double_eq(cfg.overlap.compute_slowdown, 0.075);
	dc_diag_release(&d);
	/* given SMs are what the channels share, preset or not, the A100's
	 * too: 8 / 132, 8 / 200 (it kept 0.075 whatever sm_count said) */
	ck_assert_int_eq(load(base, (const char *const[]){"cluster.sm_count=132"}, 1, &cfg, &d), 0);
	ck_assert_double_le(fabs(cfg.overlap.compute_slowdown - 8.0 / 132.0), 1e-15);
	dc_diag_release(&d);
	ck_assert_int_eq(load(nomem, (const char *const[]){"cluster.gpu=a100-sxm4-80gb", "cluster.sm_count=200"}, 2, &cfg,
			      &d),
			 0);
	ck_assert_double_eq(cfg.overlap.compute_slowdown, 0.04);
	dc_diag_release(&d);
	/* backend eager sets attention eager when that is not given */
	ck_assert_int_eq(load(base, (const char *const[]){"training.attention_backend=eager"}, 1, &cfg, &d), 0);
	ck_assert_int_eq(cfg.training.attention, DC_ATTENTION_EAGER);
	{ /* from the --set of the backend, not the default */
		char from[64];
		ck_assert_str_eq(dc_config_origin_text(&cfg, (size_t)dc_config_key_index("training.attention"), from,
						       sizeof(from)),
				 "--set");
	}
	dc_diag_release(&d);
	ck_assert_int_eq(load(edit("\"tp\": 4}", "\"tp\": 4}, \"training\": {\"attention_backend\": \"cudnn\"}"), NULL, 0,
			      &cfg, &d),
			 0);
	ck_assert_int_eq(cfg.training.attention, DC_ATTENTION_FLASH);
	ck_assert_int_eq(cfg.origin[dc_config_key_index("training.attention")], DC_ORIGIN_CONFIG);
	dc_diag_release(&d);
	ck_assert_int_eq(load(base, NULL, 0, &cfg, &d), 0);
	ck_assert_int_eq(cfg.origin[dc_config_key_index("training.attention")], DC_ORIGIN_DEFAULT);
	dc_diag_release(&d);
	ck_assert_int_eq(load(base, (const char *const[]){"training.attention=eager"}, 1, &cfg, &d), 0);
	ck_assert_int_eq(cfg.training.attention_backend, DC_ATTN_BACKEND_EAGER);
	dc_diag_release(&d);
	expect_error(base, (const char *const[]){"training.attention=eager", "training.attention_backend=cudnn"}, 2,
		     DC_ERR_CONFIG,
		     "--set: error: 'training.attention_backend': \"cudnn\" is a fused kernel that stores no scores (attention \"flash\"), but training.attention is \"eager\"");
	expect_error(nomem, (const char *const[]){"cluster.gpu=b200-sxm-180gb", "training.attention_backend=fa3"}, 2,
		     DC_ERR_CONFIG,
		     "--set: error: 'training.attention_backend': \"fa3\" runs on Hopper GPUs only (FlashAttention-3 is built for sm90), but 'cluster.gpu' is \"b200-sxm-180gb\"");
	expect_error(base, (const char *const[]){"training.attention_backend=fa3"}, 1, DC_ERR_CONFIG,
		     "--set: error: 'training.attention_backend': \"fa3\" runs on Hopper GPUs only (FlashAttention-3 is built for sm90), but 'cluster.gpu' names no preset; name a Hopper one");
	expect_error(nomem, (const char *const[]){"cluster.gpu=h100-sxm5-80gb", "precision.compute=fp8",
						 "precision.fp8_recipe=mxfp8"}, 3, DC_ERR_CONFIG,
		     "--set: error: 'precision.fp8_recipe': \"mxfp8\" needs the block-scaled FP8 GEMMs of Blackwell GPUs, but 'cluster.gpu' is \"h100-sxm5-80gb\"");
	expect_error(nomem, (const char *const[]){"cluster.gpu=h100-sxm5-80gb", "precision.attention=fp8"}, 2,
		     DC_ERR_CONFIG,
		     "--set: error: 'precision.attention': \"fp8\" needs precision.compute \"fp8\" (the FP8 peak and recipe), got \"bf16\"");
	expect_error(nomem, (const char *const[]){"cluster.gpu=h100-sxm5-80gb", "precision.compute=fp8",
						 "precision.attention=fp8"}, 3, DC_ERR_CONFIG,
		     "--set: error: 'precision.attention': \"fp8\" needs an FP8 fused-attention kernel, training.attention_backend \"cudnn\" or \"fa3\", got \"sdpa\"");
	/* on Blackwell the default backend is cuDNN's, which has an FP8
	 * kernel: FP8 attention runs without a backend given */
	ck_assert_int_eq(load(nomem, (const char *const[]){"cluster.gpu=b200-sxm-180gb", "precision.compute=fp8",
							    "precision.attention=fp8"},
			      3, &cfg, &d),
			 0);
	ck_assert_int_eq(cfg.training.attention_backend, DC_ATTN_BACKEND_CUDNN);
	ck_assert_int_eq(cfg.precision.attention, DC_ATTN_PRECISION_FP8);
	dc_diag_release(&d);
	/* current scaling's FP8 attention on Hopper: Transformer Engine turns
	 * every backend off (utils.py:650-689 at d0067d0d) and raises
	 * (dot_product_attention.py:2159-2164): refused, never priced */
	expect_error(nomem, (const char *const[]){"cluster.gpu=h100-sxm5-80gb", "precision.compute=fp8",
						 "precision.fp8_recipe=current", "training.attention_backend=cudnn",
						 "precision.attention=fp8"}, 5, DC_ERR_CONFIG,
		     "--set: error: 'precision.attention': \"fp8\" with precision.fp8_recipe \"current\" on 'cluster.gpu' \"h100-sxm5-80gb\" does not run: Transformer Engine turns off cuDNN FP8 attention for current scaling below sm100 and every other backend for FP8 attention in training (transformer_engine/pytorch/attention/dot_product_attention/utils.py:650-689 at d0067d0d), so it raises \"No dot product attention backend is available\" (dot_product_attention.py:2159-2164); set precision.attention to \"bf16\" or fp8_recipe to \"delayed\"");
	/* Megatron's and torchao's name for "current": a hint, not an alias */
	expect_error(base, (const char *const[]){"precision.fp8_recipe=tensorwise"}, 1, DC_ERR_CONFIG,
		     "--set: error: 'precision.fp8_recipe': unknown value \"tensorwise\"; did you mean \"current\" (Megatron's and torchao's tensorwise)? (expected one of \"delayed\", \"current\", \"rowwise\", \"mxfp8\")");
	/* FlashAttention-2 is "sdpa" (a trial's "fa2" was offered "fa3",
	 * which Blackwell refuses), NeMo is Megatron-Core's */
	expect_error(base, (const char *const[]){"training.attention_backend=fa2"}, 1, DC_ERR_CONFIG,
		     "--set: error: 'training.attention_backend': unknown value \"fa2\"; did you mean \"sdpa\" (FlashAttention-2, which PyTorch's SDPA runs)? (expected one of \"eager\", \"sdpa\", \"cudnn\", \"fa3\")");
	expect_error(base, (const char *const[]){"training.framework=NeMo"}, 1, DC_ERR_CONFIG,
		     "--set: error: 'training.framework': unknown value \"NeMo\"; did you mean \"megatron\" (NVIDIA NeMo, which trains on Megatron-Core)? (expected one of \"custom\", \"megatron\", \"torchtitan\", \"deepspeed\")");
	/* GPipe: the course's other schedule, said not modelled, with what
	 * 1F1B shares with it (a student trial) */
	expect_error(base, (const char *const[]){"parallel.pipeline_schedule=gpipe"}, 1, DC_ERR_CONFIG,
		     "--set: error: 'parallel.pipeline_schedule': unknown value \"gpipe\": GPipe (every microbatch's forward, then every backward: Huang et al. 2019) is not modelled; its bubble is 1F1B's, (pp - 1) / (m + pp - 1) of the step, but each stage holds all m microbatches' activations where \"1f1b\" holds at most pp (expected one of \"1f1b\", \"interleaved\", \"dualpipe\", \"dualpipev\", \"zero_bubble\")");
	/* the course's and DeepSpeed's names for the shardings */
	expect_error(base, (const char *const[]){"parallel.sharding=ZeRO-3"}, 1, DC_ERR_CONFIG,
		     "--set: error: 'parallel.sharding': unknown value \"ZeRO-3\"; did you mean \"fsdp\" (ZeRO-3: parameters, gradients and optimizer states sharded)? (expected one of \"none\", \"zero1\", \"zero2\", \"fsdp\")");
	expect_error(base, (const char *const[]){"parallel.sharding=ddp"}, 1, DC_ERR_CONFIG,
		     "--set: error: 'parallel.sharding': unknown value \"ddp\"; did you mean \"none\" (DDP: every state replicated)? (expected one of \"none\", \"zero1\", \"zero2\", \"fsdp\")");
	/* what no recipe models says so: Megatron's blockwise, FP4 */
	expect_error(base, (const char *const[]){"precision.fp8_recipe=blockwise"}, 1, DC_ERR_CONFIG,
		     "--set: error: 'precision.fp8_recipe': unknown value \"blockwise\": Megatron's blockwise recipe (Transformer Engine's Float8BlockScaling: 1 x 128 activation and 128 x 128 weight blocks, DeepSeek-V3's scheme) is not modelled; the nearest are \"current\" (per-tensor scales taken each step) and, on Blackwell, \"mxfp8\" (1 x 32 blocks) (expected one of \"delayed\", \"current\", \"rowwise\", \"mxfp8\")");
	expect_error(base, (const char *const[]){"precision.compute=NVFP4"}, 1, DC_ERR_CONFIG,
		     "--set: error: 'precision.compute': unknown value \"NVFP4\": FP4 matmuls are not priced: precision.compute is \"bf16\" or \"fp8\" (the presets' FP4 peaks are listed for reference, docs/compute-model.md) (expected one of \"bf16\", \"fp8\")");
	/* a recipe where the format goes, a layout where the sharding goes
	 * (a trial's: a bare did-you-mean "fsdp" left dp_replicate unsaid) */
	expect_error(base, (const char *const[]){"precision.compute=mxfp8"}, 1, DC_ERR_CONFIG,
		     "--set: error: 'precision.compute': unknown value \"mxfp8\": MXFP8 is an FP8 recipe: set precision.compute \"fp8\" and precision.fp8_recipe \"mxfp8\" (Blackwell) (expected one of \"bf16\", \"fp8\")");
	expect_error(base, (const char *const[]){"parallel.sharding=HSDP"}, 1, DC_ERR_CONFIG,
		     "--set: error: 'parallel.sharding': unknown value \"HSDP\": HSDP is sharding over part of dp, replicated over the rest: set parallel.sharding \"fsdp\" (or \"zero1\", \"zero2\") and parallel.dp_replicate to the number of replicas (expected one of \"none\", \"zero1\", \"zero2\", \"fsdp\")");
	/* a system where its GPU goes: the system's GPU */
	expect_error(base, (const char *const[]){"cluster.gpu=gb200-nvl72"}, 1, DC_ERR_CONFIG,
		     "--set: error: 'cluster.gpu': unknown value \"gb200-nvl72\": that is a cluster.system (its GPU \"gb200\", with its NVLink domain, NICs and links): set cluster.system \"gb200-nvl72\", or cluster.gpu \"gb200\" for the GPU alone (expected one of \"a100-sxm4-40gb\", \"a100-sxm4-80gb\", \"h100-sxm5-80gb\", \"h100-nvl-94gb\", \"h100-pcie-80gb\", \"h800-sxm5-80gb\", \"h200-sxm-141gb\", \"gh200-96gb\", \"b200-sxm-180gb\", \"gb200\")");
	/* every system's name as a GPU: its hint names the GPU that the
	 * system itself fills (the presets, read by loading the system) */
	for (int sys = DC_SYSTEM_CUSTOM + 1; sys <= DC_SYSTEM_OCI_BM_GPU_H100; sys++) {
		char set[96], want[160], got_hint[4096];
		const char *name = dc_system_name((enum dc_system)sys);
		snprintf(set, sizeof(set), "cluster.system=%s", name);
		ck_assert_msg(load(nomem, (const char *const[]){set, "cluster.num_nodes=1", "parallel.tp=1",
								 "parallel.dp=auto"},
				   4, &cfg, &d) == 0,
			      "%s", name);
		snprintf(want, sizeof(want), "that is a cluster.system (its GPU \"%s\",", dc_gpu_name(cfg.cluster.gpu));
		dc_diag_release(&d);
		snprintf(set, sizeof(set), "cluster.gpu=%s", name);
		ck_assert_int_eq(load(base, (const char *const[]){set}, 1, &cfg, &d), -1);
		joined(&d, got_hint, sizeof(got_hint));
		ck_assert_msg(strstr(got_hint, want) != NULL, "%s: %s", name, got_hint);
		dc_diag_release(&d);
	}
	/* Megatron's names for the degrees, a precision switch under training */
	expect_error(base, (const char *const[]){"parallel.expert_model_parallel_size=8"}, 1, DC_ERR_CONFIG,
		     "--set: error: 'parallel.expert_model_parallel_size': unknown key; did you mean 'parallel.ep'?");
	expect_error(base, (const char *const[]){"parallel.expert_tensor_parallel=1"}, 1, DC_ERR_CONFIG,
		     "--set: error: 'parallel.expert_tensor_parallel': unknown key; did you mean 'parallel.etp'?");
	expect_error(base, (const char *const[]){"training.fp8=true"}, 1, DC_ERR_CONFIG,
		     "--set: error: 'training.fp8': unknown key; did you mean 'precision.compute'?");
	/* a Hugging Face config.json's names (a student copied them from a
	 * model card): too far from ours to be a slip */
	expect_error(base, (const char *const[]){"model.num_key_value_heads=8"}, 1, DC_ERR_CONFIG,
		     "--set: error: 'model.num_key_value_heads': unknown key; did you mean 'model.num_kv_heads'?");
	expect_error(base, (const char *const[]){"model.intermediate_size=11008"}, 1, DC_ERR_CONFIG,
		     "--set: error: 'model.intermediate_size': unknown key; did you mean 'model.ffn_hidden_size'?");
	expect_error(base, (const char *const[]){"model.num_hidden_layers=32"}, 1, DC_ERR_CONFIG,
		     "--set: error: 'model.num_hidden_layers': unknown key; did you mean 'model.num_layers'?");
	expect_error(base, (const char *const[]){"model.num_experts_per_tok=2"}, 1, DC_ERR_CONFIG,
		     "--set: error: 'model.num_experts_per_tok': unknown key; did you mean 'model.experts_per_token'?");
	/* DeepSpeed's, Hugging Face Trainer's and torchtitan's names in the
	 * section a user reaches for, and FSDP, which is a sharding here */
	expect_error(base, (const char *const[]){"training.gradient_accumulation_steps=2"}, 1, DC_ERR_CONFIG,
		     "--set: error: 'training.gradient_accumulation_steps': unknown key; did you mean 'training.grad_accum_steps'?");
	expect_error(base, (const char *const[]){"training.seq_len=2"}, 1, DC_ERR_CONFIG,
		     "--set: error: 'training.seq_len': unknown key; did you mean 'model.seq_length'?");
	expect_error(base, (const char *const[]){"training.activation_checkpointing=2"}, 1, DC_ERR_CONFIG,
		     "--set: error: 'training.activation_checkpointing': unknown key; did you mean 'training.recompute'?");
	expect_error(base, (const char *const[]){"parallel.fsdp=2"}, 1, DC_ERR_CONFIG,
		     "--set: error: 'parallel.fsdp': unknown key; did you mean 'parallel.sharding'?");
	/* a rail is a NIC of each node (a trial's cluster.rails had no hint) */
	expect_error(base, (const char *const[]){"cluster.rails=4"}, 1, DC_ERR_CONFIG,
		     "--set: error: 'cluster.rails': unknown key; did you mean 'cluster.nics_per_node'?");
	/* group-limited routing and DeepEP (training.moe_dispatcher) */
	{
		const char *moe = "\"vocab_size\": 32000, \"seq_length\": 4096, \"num_experts\": 8, \"experts_per_token\": 2},";
		char *text = edit("\"vocab_size\": 32000, \"seq_length\": 4096},", moe);
		expect_error(text, (const char *const[]){"model.router_groups=3"}, 1, DC_ERR_CONFIG,
			     "--set: error: 'model.router_groups': must divide model.num_experts (8) into equal groups, got 3");
		expect_error(text, (const char *const[]){"model.router_groups=4", "model.router_group_topk=5"}, 2,
			     DC_ERR_CONFIG, "--set: error: 'model.router_group_topk': must be at most model.router_groups (4), got 5");
		expect_error(text, (const char *const[]){"model.router_groups=8", "model.router_group_topk=1"}, 2,
			     DC_ERR_CONFIG,
			     "--set: error: 'model.router_group_topk': 1 group of 1 experts hold fewer than model.experts_per_token (2)");
		/* more experts a token than the model has: that error alone,
		 * not the groups' too */
		{
			size_t errors = 0;
			ck_assert_int_eq(load(text, (const char *const[]){"model.experts_per_token=16"}, 1, &cfg, &d), -1);
			for (size_t i = 0; i < d.count; i++)
				errors += d.entries[i].severity == DC_SEV_ERROR;
			ck_assert_uint_eq(errors, 1);
			ck_assert_ptr_nonnull(strstr(d.entries[d.count - 1].text, "must be at most model.num_experts (8), got 16"));
			dc_diag_release(&d);
		}
		expect_error(text, (const char *const[]){"training.moe_dispatcher=deepep", "parallel.ep=2"}, 2, DC_ERR_CONFIG,
			     "--set: error: 'training.moe_dispatcher': \"deepep\" is priced over the expert-parallel group alone, with expert tensor parallelism 1; got etp 4 (parallel.etp left out: tp's) (Megatron-Core's flex dispatcher then runs over etp x ep ranks, which distcalc does not model): set parallel.etp 1");
		ck_assert_int_eq(load(text, (const char *const[]){"model.router_groups=4"}, 1, &cfg, &d), 0);
		ck_assert_uint_eq(cfg.model.router_group_topk, 4); /* derived: no limit */
		dc_diag_release(&d);
	}
	expect_error(base, (const char *const[]){"model.router_groups=2"}, 1, DC_ERR_CONFIG,
		     "--set: error: 'model.router_groups': groups the routed experts, but model.num_experts is 0 (a dense model); leave it out");
	/* DeepEP's kernels hold 20 SMs while they overlap compute: 20 / 132 on
	 * an H100; NCCL's 8 channels otherwise; a given slowdown stands for
	 * both */
	{
		const char *h100 = "\"gpu\": \"h100-sxm5-80gb\", \"gpu_memory\": \"80 GiB\",";
		char *text = edit("\"gpu_memory\": \"80 GiB\",", h100);
		ck_assert_int_eq(load(text, (const char *const[]){"training.moe_dispatcher=alltoall"}, 1, &cfg, &d), 0);
		ck_assert_double_eq_tol(cfg.overlap.ep_slowdown, 8.0 / 132.0, 1e-15);
		dc_diag_release(&d);
		ck_assert_int_eq(load(text, (const char *const[]){"model.num_experts=8", "model.experts_per_token=2",
								 "training.moe_dispatcher=deepep"},
				      3, &cfg, &d),
				 0);
		ck_assert_double_eq_tol(cfg.overlap.ep_slowdown, 20.0 / 132.0, 1e-15);
		ck_assert_double_eq_tol(cfg.overlap.compute_slowdown, 8.0 / 132.0, 1e-15);
		dc_diag_release(&d);
		ck_assert_int_eq(load(text, (const char *const[]){"model.num_experts=8", "model.experts_per_token=2",
								 "training.moe_dispatcher=deepep", "overlap.compute_slowdown=0.1"},
				      4, &cfg, &d),
				 0);
		ck_assert_double_eq_tol(cfg.overlap.ep_slowdown, 0.1, 1e-15);
		dc_diag_release(&d);
	}
	/* a recipe other than the default under bf16: said, not an error */
	ck_assert_int_eq(load(base, (const char *const[]){"precision.fp8_recipe=rowwise"}, 1, &cfg, &d), 0);
	joined(&d, got, sizeof(got));
	ck_assert_str_eq(got, "--set: 'precision.fp8_recipe': applies to FP8 matmuls, but precision.compute is \"bf16\": it has no effect; set precision.compute to \"fp8\" or drop the key");
	dc_diag_release(&d);
	/* a peak as the data sheets write it, the same double as the number
	 * (a user trial found "2250 TFLOP/s" refused while bandwidths took
	 * units); in the file too */
	ck_assert_int_eq(load(base, (const char *const[]){"cluster.peak_flops=989 TFLOP/s",
							 "cluster.peak_flops_fp8=1.979 PFLOP/s"},
			      2, &cfg, &d),
			 0);
	ck_assert(cfg.cluster.peak_flops == 989e12);
	ck_assert(cfg.cluster.peak_flops_fp8 == 1.979e15);
	joined(&d, got, sizeof(got));
	ck_assert_str_eq(got, "");
	dc_diag_release(&d);
	ck_assert_int_eq(load(edit("\"gpus_per_node\": 4,", "\"gpus_per_node\": 4, \"peak_flops\": \"312 TFLOP/s\","), NULL, 0,
			      &cfg, &d),
			 0);
	ck_assert(cfg.cluster.peak_flops == 312e12);
	dc_diag_release(&d);
	/* mxfp8 on a GPU described by hand (no preset): loaded, and said,
	 * since nothing can check the Blackwell it needs and the A100's
	 * kernel set prices it */
	ck_assert_int_eq(load(base, (const char *const[]){"cluster.peak_flops_fp8=4.5e15", "precision.compute=fp8",
							 "precision.fp8_recipe=mxfp8"},
			      3, &cfg, &d),
			 0);
	joined(&d, got, sizeof(got));
	ck_assert_str_eq(got, "--set: 'precision.fp8_recipe': \"mxfp8\" needs the block-scaled FP8 GEMMs of Blackwell GPUs, but cluster.gpu names no preset to check that by; without one the matmuls are priced with the A100's kernel set (its BF16 level over the FP8 peak, its FlashAttention-2 level) unless --calibrate-compute gives measured levels: name the GPU (cluster.gpu b200-sxm-180gb or gb200)");
	dc_diag_release(&d);
	/* the systems: DGX B200's 18 NVLink 5 links at NCCL's 40 GB/s, the
	 * NVL72's 72-GPU domain of 4-GPU trays, the H800's 8 links */
	{
		static const char sys[] = "{\"model\": {\"num_layers\": 2, \"hidden_size\": 64, \"num_attention_heads\": 4,"
					  " \"vocab_size\": 100, \"seq_length\": 16}, \"cluster\": {\"num_nodes\": 2}}";
		ck_assert_int_eq(load(sys, (const char *const[]){"cluster.system=gb200-nvl72"}, 1, &cfg, &d), 0);
		ck_assert_int_eq(cfg.cluster.gpu, DC_GPU_GB200);
		ck_assert_uint_eq(cfg.cluster.gpus_per_node, 4);
		ck_assert_uint_eq(cfg.cluster.nvlink_domain, 72);
		ck_assert_double_eq(cfg.cluster.intra_node.bw_bytes_per_s, 720e9);
		dc_diag_release(&d);
		ck_assert_int_eq(load(sys, (const char *const[]){"cluster.system=dgx-b200"}, 1, &cfg, &d), 0);
		ck_assert_int_eq(cfg.cluster.gpu, DC_GPU_B200_SXM_180GB);
		ck_assert_uint_eq(cfg.cluster.gpu_mem_bytes, 180ull << 30);
		ck_assert_uint_eq(cfg.cluster.nvlink_domain, 8);
		{
			/* the domain of 8 is the preset's, as docs/network-model.md's
			 * table lists it, not the default */
			char buf[64];
			int k = dc_config_key_index("cluster.nvlink_domain");
			ck_assert_int_eq(cfg.origin[k], DC_ORIGIN_SYSTEM);
			ck_assert_str_eq(dc_config_origin_text(&cfg, (size_t)k, buf, sizeof(buf)), "preset:dgx-b200");
			dc_diag_release(&d);
			/* a node of 4 given over the preset's 8: the domain follows
			 * the node, the default, as before */
			ck_assert_int_eq(load(sys, (const char *const[]){"cluster.system=dgx-b200", "cluster.gpus_per_node=4"}, 2,
					      &cfg, &d), 0);
			ck_assert_uint_eq(cfg.cluster.nvlink_domain, 4);
			ck_assert_int_eq(cfg.origin[k], DC_ORIGIN_DEFAULT);
		}
		dc_diag_release(&d);
		ck_assert_int_eq(load(sys, (const char *const[]){"cluster.system=hgx-h800"}, 1, &cfg, &d), 0);
		ck_assert_int_eq(cfg.origin[dc_config_key_index("cluster.nvlink_domain")], DC_ORIGIN_SYSTEM);
		ck_assert_int_eq(cfg.cluster.gpu, DC_GPU_H800_SXM5_80GB);
		ck_assert_double_le(fabs(cfg.cluster.intra_node.bw_bytes_per_s - 164.8e9), 1e-3);
		ck_assert_double_eq(cfg.cluster.inter_node.bw_bytes_per_s, 50e9);
		dc_diag_release(&d);
	}
}
END_TEST

/* The host side of parallel.offload from the presets (docs/step-model.md,
 * "The optimizer on the host"), worked from the data sheets. CPU-Adam on
 * ZeRO-Offload's DGX-2 stepped 3.891e9 parameters/s (Ren et al. 2021,
 * Table 4) on 2 Xeon Platinum 8168 x 6 channels x 2666 MT/s x 8 B =
 * 255.936 GB/s. A DGX H100's 2 Xeon Platinum 8480C x 8 x 4800 MT/s x 8 B =
 * 614.4 GB/s: 3.891e9 x 614.4 / 255.936 = 2390.6304e9 / 255.936 =
 * 9.340735184e9. A DGX A100's 2 EPYC 7742 x 8 x 3200 MT/s x 8 B =
 * 409.6 GB/s: 3.891e9 x 409.6 / 255.936 = 1593.7536e9 / 255.936 =
 * 6.227156790e9, and its GPUs share a PCIe Gen4 x16 uplink in pairs:
 * 32 GB/s / 2 = 16 GB/s each. A GH200 brings its Grace, 512 GB/s: four
 * on a node are 2048 GB/s, 3.891e9 x 2048 / 255.936 = 7968.768e9 /
 * 255.936 = 31.135783946e9. The HGX H800 names no host CPU: the DGX-2's
 * 3.891e9 stays, the key's default. */
START_TEST(test_host_side_presets)
{
	static const char sys[] = "{\"model\": {\"num_layers\": 2, \"hidden_size\": 64, \"num_attention_heads\": 4,"
				  " \"vocab_size\": 100, \"seq_length\": 16}, \"cluster\": {\"num_nodes\": 2}}";
	static const char gh[] = "{\"model\": {\"num_layers\": 2, \"hidden_size\": 64, \"num_attention_heads\": 4,"
				 " \"vocab_size\": 100, \"seq_length\": 16}, \"cluster\": {\"num_nodes\": 2,"
				 " \"gpus_per_node\": 4, \"gpu\": \"gh200-96gb\", \"intra_node\": {\"bandwidth\": \"300 GB/s\"},"
				 " \"inter_node\": {\"bandwidth\": \"400 Gb/s\"}}}";
	int kr = dc_config_key_index("cluster.host_adam_rate"), kb = dc_config_key_index("cluster.host_bandwidth");
	struct dc_config cfg;
	struct dc_diag d;
	char got[512];
	ck_assert_int_ge(kr, 0);
	ck_assert_int_ge(kb, 0);
	ck_assert_int_eq(load(sys, (const char *const[]){"cluster.system=dgx-h100"}, 1, &cfg, &d), 0);
	ck_assert_double_le(fabs(cfg.cluster.host_adam_params_per_s - 9.340735184e9), 1);
	ck_assert_int_eq(cfg.origin[kr], DC_ORIGIN_SYSTEM);
	ck_assert_double_eq(cfg.cluster.host_bw_bytes_per_s, 0); /* the GPU preset's, in compute.c */
	ck_assert_int_eq(cfg.origin[kb], DC_ORIGIN_DEFAULT);
	dc_diag_release(&d);
	ck_assert_int_eq(load(sys, (const char *const[]){"cluster.system=dgx-a100"}, 1, &cfg, &d), 0);
	ck_assert_double_le(fabs(cfg.cluster.host_adam_params_per_s - 6.227156790e9), 1);
	ck_assert_double_eq(cfg.cluster.host_bw_bytes_per_s, 16e9);
	ck_assert_int_eq(cfg.origin[kb], DC_ORIGIN_SYSTEM);
	dc_diag_release(&d);
	ck_assert_int_eq(load(gh, NULL, 0, &cfg, &d), 0);
	ck_assert_double_le(fabs(cfg.cluster.host_adam_params_per_s - 31.135783946e9), 1);
	ck_assert_int_eq(cfg.origin[kr], DC_ORIGIN_GPU);
	dc_diag_release(&d);
	ck_assert_int_eq(load(sys, (const char *const[]){"cluster.system=hgx-h800"}, 1, &cfg, &d), 0);
	ck_assert_double_eq(cfg.cluster.host_adam_params_per_s, 3.891e9);
	ck_assert_int_eq(cfg.origin[kr], DC_ORIGIN_DEFAULT);
	dc_diag_release(&d);
	/* the key given wins, and says what it overrides */
	ck_assert_int_eq(load(sys, (const char *const[]){"cluster.system=dgx-a100", "cluster.host_adam_rate=5e9"}, 2, &cfg,
			      &d), 0);
	ck_assert_double_eq(cfg.cluster.host_adam_params_per_s, 5e9);
	ck_assert_int_eq(cfg.origin[kr], DC_ORIGIN_SET);
	joined(&d, got, sizeof(got));
	ck_assert_str_eq(got, "--set: 'cluster.host_adam_rate': 5000000000 param/s from --set overrides 6227156789 param/s that cluster.system \"dgx-a100\" would fill");
	dc_diag_release(&d);
}
END_TEST

/* A count-or-"auto" key has a value: parallel.dp "auto" on the base's 2
 * nodes x 4 GPUs with tp 4 is 8 / 4 = 2, and a given dp 2 is 2. */
START_TEST(test_count_auto_has_value)
{
	static const char *const sets[][1] = {{"parallel.dp=\"auto\""}, {"parallel.dp=2"}};
	int k = dc_config_key_index("parallel.dp");
	ck_assert_int_ge(k, 0);
	for (size_t i = 0; i < 2; i++) {
		struct dc_config cfg;
		struct dc_diag d;
		char buf[64];
		ck_assert_int_eq(load(base, sets[i], 1, &cfg, &d), 0);
		ck_assert_int_eq(dc_config_key_has_value(&cfg, (size_t)k), 1);
		ck_assert_int_eq(dc_config_value_json(&cfg, (size_t)k, buf, sizeof(buf)), 0);
		ck_assert_str_eq(buf, "2");
		dc_diag_release(&d);
	}
}
END_TEST

/* The SM counts that leave the kernels none. Megatron's --tp-comm-overlap
 * keeps 16 SMs for its collectives (Transformer Engine's userbuffers
 * num_sm 16): 16 SMs leave 0, so 16 is refused and 17 loads. The derived
 * compute slowdown is NCCL's 8 channels over the SMs: 8 / 8 = 1 is
 * outside [0, 1) and refused, 8 / 9 = 0.888... loads; a given slowdown
 * replaces the derivation, so 8 SMs then load. */
/* An estimator's overflow named against the key that drove it */
START_TEST(test_blame_overflow)
{
	static const char comm[] = "'model' x 'training' x 'precision': communication bytes per step overflow 64 bits";
	struct dc_config cfg;
	struct dc_diag d;
	char buf[512];

	/* a --set factor: that key, with its value */
	ck_assert_int_eq(load(base, (const char *const[]){"training.grad_accum_steps=4000000000"}, 1, &cfg, &d), 0);
	ck_assert_str_eq(dc_config_blame_overflow(&cfg, comm, NULL, buf, sizeof(buf)),
			 "'training.grad_accum_steps': 4000000000 microbatches make the communication bytes per "
			 "step overflow 64 bits; use a smaller value");
	ck_assert_str_eq(dc_config_blame_overflow(&cfg, "'model' x 'precision': model-state bytes per rank overflow 64 bits", NULL, buf, sizeof(buf)),
			 "'model.hidden_size' x 'model.num_layers' x 'model.vocab_size': model-state bytes per rank overflow 64 bits; got 4096 x 32 x 32000");
	dc_diag_release(&d);
	/* a --set among the file's: the --set one */
	ck_assert_int_eq(load(base, (const char *const[]){"model.seq_length=8192"}, 1, &cfg, &d), 0);
	ck_assert_str_eq(dc_config_blame_overflow(&cfg, comm, NULL, buf, sizeof(buf)),
			 "'model.seq_length': 8192 tokens make the communication bytes per step overflow 64 bits; use a smaller value");
	dc_diag_release(&d);
	/* only the file's: each factor it gave, with its value (base gives
	 * no training keys) */
	ck_assert_int_eq(load(base, NULL, 0, &cfg, &d), 0);
	ck_assert_str_eq(dc_config_blame_overflow(&cfg, comm, NULL, buf, sizeof(buf)),
			 "'model.seq_length' x 'model.num_layers' x 'model.hidden_size': communication bytes per step "
			 "overflow 64 bits; got 4096 x 32 x 4096");
	/* one factor given: that one */
	ck_assert_str_eq(dc_config_blame_overflow(&cfg, "'cluster.gpus_per_node' x 'parallel.offload': host bytes per node overflow 64 bits", NULL, buf, sizeof(buf)),
			 "'cluster.gpus_per_node': 4 GPUs make the host bytes per node overflow 64 bits; use a smaller value");
	/* a run other than the configured one says which, after "64 bits" */
	ck_assert_str_eq(dc_config_blame_overflow(&cfg, "'cluster.gpus_per_node' x 'parallel.offload': host bytes per node overflow 64 bits",
						  "in a layout the search tried", buf, sizeof(buf)),
			 "'cluster.gpus_per_node': 4 GPUs make the host bytes per node overflow 64 bits in a layout the "
			 "search tried; use a smaller value");
	ck_assert_str_eq(dc_config_blame_overflow(&cfg, comm, "in the what-if scenario slow_network", buf, sizeof(buf)),
			 "'model.seq_length' x 'model.num_layers' x 'model.hidden_size': communication bytes per step "
			 "overflow 64 bits in the what-if scenario slow_network; got 4096 x 32 x 4096");
	/* any other text is returned as it is */
	{
		static const char other[] = "'checkpoint.restore': the restored rank's bytes overflow 64 bits";
		ck_assert_ptr_eq(dc_config_blame_overflow(&cfg, other, NULL, buf, sizeof(buf)), other);
		ck_assert_ptr_eq(dc_config_blame_overflow(&cfg, other, "in a layout the search tried", buf, sizeof(buf)),
				 other);
	}
	dc_diag_release(&d);
}
END_TEST

START_TEST(test_sm_count_floor)
{
	static const char *const mega16[] = {"training.framework=megatron", "parallel.sequence_parallel=true",
					     "overlap.tp=true", "cluster.sm_count=16", "precision.preset=megatron"};
	static const char *const mega17[] = {"training.framework=megatron", "parallel.sequence_parallel=true",
					     "overlap.tp=true", "cluster.sm_count=17", "precision.preset=megatron"};
	static const char *const titan16[] = {"training.framework=torchtitan", "parallel.sequence_parallel=true",
					      "training.compile=true", "overlap.tp=true", "cluster.sm_count=16"};
	struct dc_config cfg;
	struct dc_diag d;
	char nomem[4096];

	expect_error(base, mega16, 5, DC_ERR_CONFIG,
		     "--set: error: 'cluster.sm_count': Megatron's --tp-comm-overlap (overlap.tp true, training.framework \"megatron\") keeps 16 SMs for communication (Transformer Engine's userbuffers num_sm), so it needs more than 16 SMs, got 16; set overlap.tp false or give more SMs");
	ck_assert_int_eq(load(base, mega17, 5, &cfg, &d), 0);
	ck_assert_uint_eq(cfg.cluster.sm_count, 17);
	dc_diag_release(&d);
	/* torchtitan's async TP runs its transfers on copy engines: no SMs kept */
	ck_assert_int_eq(load(base, titan16, 5, &cfg, &d), 0);
	dc_diag_release(&d);

	snprintf(nomem, sizeof(nomem), "%s", edit("\"gpu_memory\": \"80 GiB\",", ""));
	expect_error(nomem, (const char *const[]){"cluster.gpu=h100-sxm5-80gb", "cluster.sm_count=8"}, 2, DC_ERR_CONFIG,
		     "--set: 'cluster.sm_count': 8 from --set overrides 132 that cluster.gpu \"h100-sxm5-80gb\" would fill\n"
		     "--set: error: 'cluster.sm_count': NCCL's 8 channels each hold one SM while a collective runs behind kernels, so 8 SMs leave none to the kernels (overlap.compute_slowdown, derived as 8 / sm_count, would be 1, outside [0, 1)); give more than 8 SMs, or give overlap.compute_slowdown");
	ck_assert_int_eq(load(nomem, (const char *const[]){"cluster.gpu=h100-sxm5-80gb", "cluster.sm_count=9"}, 2, &cfg, &d), 0);
	ck_assert_double_le(fabs(cfg.overlap.compute_slowdown - 8.0 / 9.0), 1e-15);
	dc_diag_release(&d);
	ck_assert_int_eq(load(nomem,
			      (const char *const[]){"cluster.gpu=h100-sxm5-80gb", "cluster.sm_count=8",
						    "overlap.compute_slowdown=0.5"},
			      3, &cfg, &d),
			 0);
	ck_assert_double_eq(cfg.overlap.compute_slowdown, 0.5);
	dc_diag_release(&d);
	/* the same refusal on the A100 and without a preset (both let 8 SMs by) */
	expect_error(nomem, (const char *const[]){"cluster.gpu=a100-sxm4-80gb", "cluster.sm_count=8"}, 2, DC_ERR_CONFIG,
		     "--set: 'cluster.sm_count': 8 from --set overrides 108 that cluster.gpu \"a100-sxm4-80gb\" would fill\n"
		     "--set: error: 'cluster.sm_count': NCCL's 8 channels each hold one SM while a collective runs behind kernels, so 8 SMs leave none to the kernels (overlap.compute_slowdown, derived as 8 / sm_count, would be 1, outside [0, 1)); give more than 8 SMs, or give overlap.compute_slowdown");
	expect_error(base, (const char *const[]){"cluster.sm_count=4"}, 1, DC_ERR_CONFIG,
		     "--set: error: 'cluster.sm_count': NCCL's 8 channels each hold one SM while a collective runs behind kernels, so 4 SMs leave none to the kernels (overlap.compute_slowdown, derived as 8 / sm_count, would be 2, outside [0, 1)); give more than 8 SMs, or give overlap.compute_slowdown");
}
END_TEST

int main(void)
{
Suite *s = suite_create("config");
	TCase *tc = tcase_create("config");
	SRunner *sr;
	int failed;

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_systems_json);
	tcase_add_test(tc, test_host_side_presets);
	tcase_add_test(tc, test_attention_and_fp8_keys);
	tcase_add_test(tc, test_keys_without_effect);
	tcase_add_test(tc, test_partial_nvlink_domain);
	tcase_add_test(tc, test_tiny_override_text);
	tcase_add_test(tc, test_attention_backend_from_framework);
	tcase_add_test(tc, test_cp_comm_type_from_framework);
	tcase_add_test(tc, test_sm_count_floor);
	tcase_add_test(tc, test_count_auto_has_value);
	tcase_add_test(tc, test_builtin_default_is_systems_json);
	tcase_add_test(tc, test_syntax_errors);
	tcase_add_test(tc, test_nul_and_size);
	tcase_add_test(tc, test_ramp_and_plugin_keys);
	tcase_add_test(tc, test_value_errors);
	tcase_add_test(tc, test_cross_field_errors);
	tcase_add_test(tc, test_stage_and_cp_errors);
	tcase_add_test(tc, test_several_errors_at_once);
	tcase_add_test(tc, test_set_overrides);
	tcase_add_test(tc, test_attention_dropout_global_batch);
	tcase_add_test(tc, test_precision_presets);
	tcase_add_test(tc, test_entries_carry_the_key);
	tcase_add_test(tc, test_allocation_failures);
	tcase_add_test(tc, test_dotted_member_names);
	tcase_add_test(tc, test_gpu_memory_decimal_warning);
	tcase_add_test(tc, test_recompute_layers_above_a_chunk_warns);
	tcase_add_test(tc, test_params_differing_from_the_shape_warn);
	tcase_add_test(tc, test_params_apart_from_a_moe_shape_refused);
	tcase_add_test(tc, test_missing_after_the_preset_is_removed_blames_the_command_line);
	tcase_add_test(tc, test_search_space_left_out);
	tcase_add_test(tc, test_gpu_presets);
	tcase_add_test(tc, test_unset);
	tcase_add_test(tc, test_dp_auto);
	tcase_add_test(tc, test_provenance);
	tcase_add_test(tc, test_nvls_needs_the_gpu);
	tcase_add_test(tc, test_nvlink_domain_within_the_fabric);
	tcase_add_test(tc, test_hf_config_which_wins);
	tcase_add_test(tc, test_parse_once_loads_alike);
	tcase_add_test(tc, test_key_lookup);
	tcase_add_test(tc, test_blame_overflow);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? 0 : 1;
}
