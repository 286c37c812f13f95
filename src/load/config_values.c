/* config_values.c - reading one value by its key's kind (counts, bytes,
 * bandwidths, times, enums, lists, the rank order), the walk over the file's
 * objects with the unknown-key suggestions, and --set. */
#define _POSIX_C_SOURCE 200809L

#include <ctype.h>
#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "distcalc/hf.h"
#include "distcalc/memory.h"
#include "distcalc/params.h"
#include "distcalc/plan.h"
#include "distcalc/topo_file.h"
#include "distcalc/units.h"
#include "distcalc/util.h"

#include "config_int.h"

/* Marks the key a suggestion named (a path from the key table), so its
 * "required key is missing" does not repeat the suggestion. */
static void mark_suggested(struct loader *l, const char *s)
{
	int k = dc_cfg_find_key(s);
	if (k >= 0)
		l->suggested[k] = 1;
}

/* ---- suggestions ---- */

static size_t edit_distance(const char *a, const char *b)
{
	return dc_edit_distance(a, strlen(a), b, 0);
}

static const char *last_part(const char *path)
{
	const char *dot = strrchr(path, '.');
	return dot ? dot + 1 : path;
}

/* Is dc_cfg_keys[i] a direct child of the section `prefix` ("" for top level)? */
static int is_child(size_t i, const char *prefix)
{
	size_t pl = strlen(prefix);
	const char *p = dc_cfg_keys[i].info.path;
	if (pl == 0)
		return strchr(p, '.') == NULL;
	return strncmp(p, prefix, pl) == 0 && p[pl] == '.' && strchr(p + pl + 1, '.') == NULL;
}

/* The closest known key: first among the section's own keys, then any key
 * elsewhere whose last part matches exactly. Closeness ignores case first
 * ("Tp" is tp, not dp), then counts it to break ties. */
static const char *suggest(const char *prefix, const char *name)
{
	/* other tools' names for a key, too far from it to be a slip:
	 * DeepSpeed's ZeRO stage ("zero_optimization": {"stage": 3}) is
	 * parallel.sharding's zero1, zero2 or fsdp */
	static const struct {
		const char *prefix, *name, *key;
	} alias[] = {
		{"parallel", "zero", "parallel.sharding"},
		{"parallel", "zero_stage", "parallel.sharding"},
		{"parallel", "zero_optimization", "parallel.sharding"},
		/* Megatron's, torchtitan's and the papers' names for the
		 * degrees, and an FP8 switch where a key of precision goes */
		{"parallel", "tensor_parallel", "parallel.tp"},
		{"parallel", "tensor_parallel_size", "parallel.tp"},
		{"parallel", "tensor_model_parallel_size", "parallel.tp"},
		{"parallel", "tensor_parallel_degree", "parallel.tp"},
		{"parallel", "pipeline_parallel", "parallel.pp"},
		{"parallel", "pipeline_parallel_size", "parallel.pp"},
		{"parallel", "pipeline_model_parallel_size", "parallel.pp"},
		{"parallel", "pipeline_parallel_degree", "parallel.pp"},
		{"parallel", "virtual_pipeline_model_parallel_size", "parallel.virtual_pipeline"},
		/* NeMo's and Megatron-Bridge's tables head the columns TP,
		 * PP, VP, CP, EP: vp is two letters from dp and pp */
		{"parallel", "vp", "parallel.virtual_pipeline"},
		{"parallel", "vpp", "parallel.virtual_pipeline"},
		{"parallel", "data_parallel", "parallel.dp"},
		{"parallel", "data_parallel_size", "parallel.dp"},
		{"parallel", "data_parallel_shard_degree", "parallel.dp"},
		{"parallel", "data_parallel_replicate_degree", "parallel.dp_replicate"},
		{"parallel", "context_parallel", "parallel.cp"},
		{"parallel", "context_parallel_size", "parallel.cp"},
		{"parallel", "context_parallel_degree", "parallel.cp"},
		{"parallel", "expert_parallel", "parallel.ep"},
		{"parallel", "expert_model_parallel_size", "parallel.ep"},
		{"parallel", "expert_parallel_degree", "parallel.ep"},
		{"parallel", "expert_tensor_parallel", "parallel.etp"},
		{"parallel", "expert_tensor_parallel_size", "parallel.etp"},
		{"parallel", "expert_tensor_parallel_degree", "parallel.etp"},
		{"training", "fp8", "precision.compute"},
		{"precision", "fp8", "precision.compute"},
		/* a network engineer's names: a rail is a NIC of each node
		 * (a trial's cluster.rails had no hint) */
		{"cluster", "rails", "cluster.nics_per_node"},
		{"cluster", "rails_per_node", "cluster.nics_per_node"},
		{"cluster", "nics", "cluster.nics_per_node"},
		{"cluster", "hcas", "cluster.nics_per_node"},
		/* a Hugging Face config.json's names (model.hf_config reads
		 * such a file whole), and torchtitan's / Meta's Llama args */
		{"model", "num_hidden_layers", "model.num_layers"},
		{"model", "n_layers", "model.num_layers"},
		{"model", "dim", "model.hidden_size"},
		{"model", "n_heads", "model.num_attention_heads"},
		{"model", "num_key_value_heads", "model.num_kv_heads"},
		{"model", "n_kv_heads", "model.num_kv_heads"},
		{"model", "intermediate_size", "model.ffn_hidden_size"},
		{"model", "moe_intermediate_size", "model.moe_ffn_hidden_size"},
		{"model", "shared_expert_intermediate_size", "model.shared_expert_ffn_hidden_size"},
		{"model", "num_local_experts", "model.num_experts"},
		{"model", "n_routed_experts", "model.num_experts"},
		{"model", "num_experts_per_tok", "model.experts_per_token"},
		{"model", "seq_len", "model.seq_length"},
		/* DeepSpeed's, Hugging Face Trainer's, torchtitan's and
		 * Megatron's names for the batch, the sequence, the layout and
		 * checkpointing, under the section a user reaches for */
		{"training", "gradient_accumulation_steps", "training.grad_accum_steps"},
		{"training", "gradient_accumulation", "training.grad_accum_steps"},
		{"training", "micro_batch", "training.micro_batch_size"},
		{"training", "train_micro_batch_size_per_gpu", "training.micro_batch_size"},
		{"training", "per_device_train_batch_size", "training.micro_batch_size"},
		{"training", "train_batch_size", "training.global_batch_size"},
		{"training", "seq_len", "model.seq_length"},
		{"training", "seq_length", "model.seq_length"},
		{"training", "activation_checkpointing", "training.recompute"},
		{"training", "gradient_checkpointing", "training.recompute"},
		{"training", "recompute_granularity", "training.recompute"},
		{"parallel", "fsdp", "parallel.sharding"},
		{"parallel", "sequence_parallelism", "parallel.sequence_parallel"},
	};
	size_t best = 99, best_case = 99, bi = 0;
	for (size_t i = 0; i < sizeof(alias) / sizeof(alias[0]); i++)
		if (strcasecmp(prefix, alias[i].prefix) == 0 && strcasecmp(name, alias[i].name) == 0)
			return alias[i].key;
	for (size_t i = 0; i < NKEYS; i++) {
		if (!is_child(i, prefix))
			continue;
		size_t d = dc_edit_distance(name, strlen(name), last_part(dc_cfg_keys[i].info.path), 1);
		size_t dc = edit_distance(name, last_part(dc_cfg_keys[i].info.path));
		if (d < best || (d == best && dc < best_case)) {
			best = d;
			best_case = dc;
			bi = i;
		}
	}
	size_t nl = strlen(name);
	if (best <= 2 || (best <= 3 && nl > 6) || (nl > 0 && best * 3 <= nl))
		return dc_cfg_keys[bi].info.path;
	for (size_t i = 0; i < NKEYS; i++)
		if (strcmp(last_part(dc_cfg_keys[i].info.path), name) == 0)
			return dc_cfg_keys[i].info.path;
	return NULL;
}

/* Does `value` (nl bytes, at least 2) begin `choice` or one of its
 * dash-separated words ("nvl72" in "gb200-nvl72")? */
static int begins_word(const char *choice, const char *value, size_t nl)
{
	for (const char *w = choice; w; w = strchr(w, '-') ? strchr(w, '-') + 1 : NULL)
		if (strncasecmp(w, value, nl) == 0)
			return 1;
	return 0;
}

/* Whether `choice` is one suggest_choice names: `best` edits from the
 * value when that is a slip, or one the value begins. */
static int near_choice(const char *choice, const char *value, size_t nl, int slip, size_t best)
{
	return (slip && dc_edit_distance(value, nl, choice, 1) == best) || (nl >= 2 && begins_word(choice, value, nl));
}

/* 1 when choice and value (nl bytes) share a stem: a common start, case
 * ignored, of at least 4 bytes and of all but the value's last 3 */
static int same_stem(const char *choice, const char *value, size_t nl)
{
	size_t c = 0;
	while (c < nl && choice[c] && tolower((unsigned char)choice[c]) == tolower((unsigned char)value[c]))
		c++;
	return c >= 4 && c + 3 >= nl;
}

/* The choices closest to an unknown enum value, quoted into `out` ("\"a\""
 * or "\"a\", \"b\" or \"c\""), in the table's order: those close enough
 * to be a slip ("h100-sxm-80gb" for "h100-sxm5-80gb"; within 2 edits for a
 * preset's long name, 1 for an enum's short word, where 2 would turn "no"
 * into "op"), and every choice the value begins, or begins a dash-separated
 * word of ("h100": the three H100 presets; "b200": "b200-sxm-180gb" beside
 * the slip "gb200"), those alone where the nearest slip is 2 edits ("h200":
 * "h200-sxm-141gb", not "gb200"). Case is ignored, as for keys. Returns 0
 * when none is near (out is then ""). */
static int suggest_choice(const char *const *choices, const char *value, int slack, char *out, size_t len)
{
	size_t best = 99, nl = strlen(value), used = 0, n = 0, last = 0;
	int slip;
	out[0] = '\0';
	for (size_t i = 0; choices[i]; i++) {
		size_t d = dc_edit_distance(value, nl, choices[i], 1);
		if (d < best)
			best = d;
	}
	/* the slips, every one as near ("zero4": "zero1" or "zero2"), and
	 * the choices the value begins ("h100" for "h100-sxm5-80gb") */
	slip = best <= (size_t)slack || (nl > 0 && best * 3 <= nl);
	/* a choice the value begins beats a slip of 2 edits ("h200": the
	 * H200 preset, not "gb200"); one of 1 stays beside it ("b200") */
	for (size_t i = 0; slip && best >= 2 && nl >= 2 && choices[i]; i++)
		if (begins_word(choices[i], value, nl))
			slip = 0;
	for (size_t i = 0; (slip || nl >= 2) && choices[i]; i++)
		if (near_choice(choices[i], value, nl, slip, best)) {
			n++;
			last = i;
		}
	/* none near: a choice of the same stem, the value's first four
	 * letters at least and all but its last three ("packed" for
	 * "packing", 3 edits away: a trial) */
	int stem = 0;
	for (size_t i = 0; !n && nl >= 4 && choices[i]; i++)
		if (same_stem(choices[i], value, nl)) {
			n++;
			last = i;
			stem = 1;
		}
	for (size_t i = 0, k = 0; n && choices[i] && used < len; i++) {
		if (stem ? !same_stem(choices[i], value, nl) : !near_choice(choices[i], value, nl, slip, best))
			continue;
		used += (size_t)snprintf(out + used, len - used, "%s\"%s\"", k == 0 ? "" : i == last ? " or " : ", ",
					 choices[i]);
		k++;
	}
	return n > 0;
}

/* Other tools' names for a choice: a hint in the error, never an alias
 * (the public values stay as documented). Megatron-LM's --fp8-recipe
 * tensorwise is Transformer Engine's Float8CurrentScaling, and torchao's
 * tensorwise its dynamic per-tensor scaling: both "current", as the
 * importers map them (docs/importers.md). */
static const struct {
	enum key_id k;
	const char *name, *choice, *whose;
} foreign_names[] = {
	{KEY_PRECISION_FP8_RECIPE, "tensorwise", "current", "Megatron's and torchao's tensorwise"},
	{KEY_CLUSTER_NIC_PATH, "node", "phb", "nvidia-smi's NODE: host bridges within one socket, priced as PHB"},
	{KEY_PRECISION_FP8_RECIPE, "rowwise_with_gw_hp", "rowwise", "torchao's rowwise with the weight gradient in high precision"},
	{KEY_PARALLEL_SHARDING, "zero3", "fsdp", "ZeRO-3: parameters, gradients and optimizer states sharded"},
	{KEY_PARALLEL_SHARDING, "stage3", "fsdp", "ZeRO-3: parameters, gradients and optimizer states sharded"},
	{KEY_PARALLEL_SHARDING, "stage1", "zero1", "ZeRO-1: optimizer states sharded"},
	{KEY_PARALLEL_SHARDING, "stage2", "zero2", "ZeRO-2: gradients and optimizer states sharded"},
	{KEY_PARALLEL_SHARDING, "ddp", "none", "DDP: every state replicated"},
	{KEY_PARALLEL_SHARDING, "full_shard", "fsdp", "FSDP's FULL_SHARD"},
	{KEY_PARALLEL_SHARDING, "shard_grad_op", "zero2", "FSDP's SHARD_GRAD_OP: gradients and optimizer states sharded"},
	{KEY_PARALLEL_SHARDING, "no_shard", "none", "FSDP's NO_SHARD"},
	{KEY_PARALLEL_SHARDING, "hybrid_shard", "fsdp", "FSDP's HYBRID_SHARD, with parallel.dp_replicate for its replicas"},
	{KEY_PARALLEL_PIPELINE_SCHEDULE, "zbh1", "zero_bubble", "Qi et al. 2024's ZB-H1"},
	/* GPUDirect-TCPX (GCP's A3 High): its plugin reports no latency to
	 * NCCL, as tcpxo's row takes from it (docs/network-model.md,
	 * "Fabrics"), and its hosts are Intel too: the same fabric values */
	{KEY_CLUSTER_NETWORK, "tcpx", "tcpxo",
	 "GCP's GPUDirect-TCPX, A3 High's, has the same fabric values: its plugin reports no per-hop latency and its hosts are Intel; give its NICs with cluster.nics_per_node and cluster.inter_node.bandwidth"},
	{KEY_COLLECTIVE_ALGORITHM, "nvlstree", "nvls", "NCCL's NVLS tree: NVLink SHARP in each domain, a tree between them"},
	{KEY_COLLECTIVE_ALGORITHM, "collnetdirect", "hierarchical", "NCCL's CollNet, with cluster.collnet"},
	{KEY_COLLECTIVE_ALGORITHM, "collnetchain", "hierarchical", "NCCL's CollNet, with cluster.collnet"},
	{KEY_COLLECTIVE_ALGORITHM, "collnet", "hierarchical", "NCCL's CollNet, with cluster.collnet"},
	{KEY_PARALLEL_PIPELINE_SCHEDULE, "zero_bubble_h1", "zero_bubble", "Qi et al. 2024's ZB-H1"},
	{KEY_PARALLEL_PIPELINE_SCHEDULE, "zb1p", "zero_bubble", "the DualPipe README's ZB1P, Qi et al. 2024's ZB-H1"},
	/* FlashAttention-2 is what "sdpa" prices (a trial's "fa2" was
	 * offered "fa3", which Blackwell refuses); Transformer Engine's
	 * fused attention is cuDNN's; NeMo trains on Megatron-Core */
	{KEY_TRAINING_ATTENTION_BACKEND, "fa2", "sdpa", "FlashAttention-2, which PyTorch's SDPA runs"},
	{KEY_TRAINING_ATTENTION_BACKEND, "flash_attention_2", "sdpa", "FlashAttention-2, which PyTorch's SDPA runs"},
	{KEY_TRAINING_ATTENTION_BACKEND, "flash_attn", "sdpa", "FlashAttention-2, which PyTorch's SDPA runs"},
	{KEY_TRAINING_ATTENTION_BACKEND, "flash",  "sdpa",
	 "FlashAttention-2 through PyTorch; \"flash\" is a value of training.attention, the memory choice"},
	{KEY_TRAINING_ATTENTION_BACKEND, "te", "cudnn", "Transformer Engine's fused attention, which runs cuDNN's"},
	{KEY_TRAINING_ATTENTION_BACKEND, "transformer_engine", "cudnn", "Transformer Engine's fused attention, which runs cuDNN's"},
	{KEY_TRAINING_ATTENTION_BACKEND, "math", "eager", "PyTorch SDPA's math backend, the unfused products"},
	{KEY_TRAINING_FRAMEWORK, "nemo", "megatron", "NVIDIA NeMo, which trains on Megatron-Core"},
	{KEY_TRAINING_FRAMEWORK, "mcore", "megatron", "Megatron-Core"},
	{KEY_TRAINING_FRAMEWORK, "megatron_core", "megatron", "Megatron-Core"},
	{KEY_TRAINING_FRAMEWORK, "megatron_lm", "megatron", "Megatron-LM, on Megatron-Core"},
};

/* Other tools' names for what no choice models, and a system named as a
 * GPU: the error says why rather than suggest a near name
 * ("zero_bubble_h2" is one edit from ZB-H1's "zero_bubble", a schedule
 * with another bubble and memory). */
static const struct {
	enum key_id k;
	const char *name, *why;
} unmodelled_names[] = {
	{KEY_PARALLEL_PIPELINE_SCHEDULE, "zbh2",
	 "Qi et al. 2024's ZB-H2 (about 2pp - 1 microbatches of activations for a near-zero bubble) is not modelled; \"zero_bubble\" is ZB-H1, with 1F1B's activations and each stage's deferred weight gradients, and a bubble of (pp - 1)(F + B - 2W)"},
	{KEY_PARALLEL_PIPELINE_SCHEDULE, "zero_bubble_h2",
	 "Qi et al. 2024's ZB-H2 (about 2pp - 1 microbatches of activations for a near-zero bubble) is not modelled; \"zero_bubble\" is ZB-H1, with 1F1B's activations and each stage's deferred weight gradients, and a bubble of (pp - 1)(F + B - 2W)"},
	{KEY_PARALLEL_PIPELINE_SCHEDULE, "zb2p",
	 "the DualPipe README's ZB2P, Qi et al. 2024's ZB-H2, is not modelled; \"zero_bubble\" is ZB-H1 (ZB1P), with 1F1B's activations and each stage's deferred weight gradients, and a bubble of (pp - 1)(F + B - 2W)"},
	{KEY_PARALLEL_PIPELINE_SCHEDULE, "gpipe",
	 "GPipe (every microbatch's forward, then every backward: Huang et al. 2019) is not modelled; its bubble is 1F1B's, (pp - 1) / (m + pp - 1) of the step, but each stage holds all m microbatches' activations where \"1f1b\" holds at most pp"},
	{KEY_PARALLEL_PIPELINE_SCHEDULE, "zbv",
	 "the V-shaped zero-bubble schedule ZB-V (Qi et al. 2024) is not modelled; \"dualpipev\" runs the same V placement of two chunks a rank with DualPipe's schedule, and \"zero_bubble\" is ZB-H1"},
	{KEY_PARALLEL_PIPELINE_SCHEDULE, "zero_bubble_v",
	 "the V-shaped zero-bubble schedule ZB-V (Qi et al. 2024) is not modelled; \"dualpipev\" runs the same V placement of two chunks a rank with DualPipe's schedule, and \"zero_bubble\" is ZB-H1"},
	/* a system named where its GPU goes: cluster.system is what was
	 * meant (it brings the GPU, the NVLink domain, the NICs and the
	 * links), the system's GPU (config_rules.c presets[]) for the GPU
	 * alone */
	{KEY_CLUSTER_GPU, "gb200-nvl72",
	 "that is a cluster.system (its GPU \"gb200\", with its NVLink domain, NICs and links): set cluster.system \"gb200-nvl72\", or cluster.gpu \"gb200\" for the GPU alone"},
	{KEY_CLUSTER_GPU, "dgx-b200",
	 "that is a cluster.system (its GPU \"b200-sxm-180gb\", with its NVLink domain, NICs and links): set cluster.system \"dgx-b200\", or cluster.gpu \"b200-sxm-180gb\" for the GPU alone"},
	{KEY_CLUSTER_GPU, "dgx-h200",
	 "that is a cluster.system (its GPU \"h200-sxm-141gb\", with its NVLink domain, NICs and links): set cluster.system \"dgx-h200\", or cluster.gpu \"h200-sxm-141gb\" for the GPU alone"},
	{KEY_CLUSTER_GPU, "dgx-h100",
	 "that is a cluster.system (its GPU \"h100-sxm5-80gb\", with its NVLink domain, NICs and links): set cluster.system \"dgx-h100\", or cluster.gpu \"h100-sxm5-80gb\" for the GPU alone"},
	{KEY_CLUSTER_GPU, "dgx-a100",
	 "that is a cluster.system (its GPU \"a100-sxm4-80gb\", with its NVLink domain, NICs and links): set cluster.system \"dgx-a100\", or cluster.gpu \"a100-sxm4-80gb\" for the GPU alone"},
	{KEY_CLUSTER_GPU, "hgx-h800",
	 "that is a cluster.system (its GPU \"h800-sxm5-80gb\", with its NVLink domain, NICs and links): set cluster.system \"hgx-h800\", or cluster.gpu \"h800-sxm5-80gb\" for the GPU alone"},
	{KEY_CLUSTER_GPU, "aws-p5",
	 "that is a cluster.system (its GPU \"h100-sxm5-80gb\", with its NVLink domain, NICs and links): set cluster.system \"aws-p5\", or cluster.gpu \"h100-sxm5-80gb\" for the GPU alone"},
	{KEY_CLUSTER_GPU, "aws-p5e",
	 "that is a cluster.system (its GPU \"h200-sxm-141gb\", with its NVLink domain, NICs and links): set cluster.system \"aws-p5e\", or cluster.gpu \"h200-sxm-141gb\" for the GPU alone"},
	{KEY_CLUSTER_GPU, "gcp-a3-mega",
	 "that is a cluster.system (its GPU \"h100-sxm5-80gb\", with its NVLink domain, NICs and links): set cluster.system \"gcp-a3-mega\", or cluster.gpu \"h100-sxm5-80gb\" for the GPU alone"},
	{KEY_CLUSTER_GPU, "azure-nd-h100-v5",
	 "that is a cluster.system (its GPU \"h100-sxm5-80gb\", with its NVLink domain, NICs and links): set cluster.system \"azure-nd-h100-v5\", or cluster.gpu \"h100-sxm5-80gb\" for the GPU alone"},
	{KEY_CLUSTER_GPU, "oci-bm-gpu-h100",
	 "that is a cluster.system (its GPU \"h100-sxm5-80gb\", with its NVLink domain, NICs and links): set cluster.system \"oci-bm-gpu-h100\", or cluster.gpu \"h100-sxm5-80gb\" for the GPU alone"},
	{KEY_TRAINING_ATTENTION_BACKEND, "fa4",
	 "FlashAttention-4 (Blackwell) is not modelled; on Blackwell \"cudnn\" (Transformer Engine / cuDNN) is the nearest"},
	/* block-scaled FP8 on Hopper, and FP4 */
	{KEY_PRECISION_FP8_RECIPE, "blockwise",
	 "Megatron's blockwise recipe (Transformer Engine's Float8BlockScaling: 1 x 128 activation and 128 x 128 weight blocks, DeepSeek-V3's scheme) is not modelled; the nearest are \"current\" (per-tensor scales taken each step) and, on Blackwell, \"mxfp8\" (1 x 32 blocks)"},
	{KEY_PRECISION_FP8_RECIPE, "nvfp4", "an FP4 recipe: distcalc prices BF16 and FP8 matmuls only (the presets' FP4 peaks are listed for reference, docs/compute-model.md)"},
	{KEY_PRECISION_FP8_RECIPE, "mxfp4", "an FP4 recipe: distcalc prices BF16 and FP8 matmuls only (the presets' FP4 peaks are listed for reference, docs/compute-model.md)"},
	{KEY_PRECISION_COMPUTE, "fp4", "FP4 matmuls are not priced: precision.compute is \"bf16\" or \"fp8\" (the presets' FP4 peaks are listed for reference, docs/compute-model.md)"},
	{KEY_PRECISION_COMPUTE, "nvfp4", "FP4 matmuls are not priced: precision.compute is \"bf16\" or \"fp8\" (the presets' FP4 peaks are listed for reference, docs/compute-model.md)"},
	{KEY_PRECISION_COMPUTE, "mxfp4", "FP4 matmuls are not priced: precision.compute is \"bf16\" or \"fp8\" (the presets' FP4 peaks are listed for reference, docs/compute-model.md)"},
	/* a recipe or a layout named where the format or the sharding goes */
	{KEY_PRECISION_COMPUTE, "mxfp8",
	 "MXFP8 is an FP8 recipe: set precision.compute \"fp8\" and precision.fp8_recipe \"mxfp8\" (Blackwell)"},
	{KEY_PRECISION_COMPUTE, "e4m3",
	 "an FP8 format: set precision.compute \"fp8\" (precision.fp8_recipe says how it is scaled)"},
	{KEY_PARALLEL_SHARDING, "hsdp",
	 "HSDP is sharding over part of dp, replicated over the rest: set parallel.sharding \"fsdp\" (or \"zero1\", \"zero2\") and parallel.dp_replicate to the number of replicas"},
};

/* 1 when a and b are the same name but for case and the separators '-',
 * '_' and ' ' ("ZeRO-3", "zero_3" and "zero3") */
static int same_name(const char *a, const char *b)
{
	for (;;) {
		while (*a == '-' || *a == '_' || *a == ' ')
			a++;
		while (*b == '-' || *b == '_' || *b == ' ')
			b++;
		if (!*a || !*b)
			return !*a && !*b;
		if (tolower((unsigned char)*a++) != tolower((unsigned char)*b++))
			return 0;
	}
}

/* The choice another tool calls `value`, quoted with whose name it is,
 * into `out`; 0 when none. */
static int foreign_choice(int ki, const char *value, char *out, size_t len)
{
	for (size_t i = 0; i < sizeof(foreign_names) / sizeof(foreign_names[0]); i++)
		if ((int)foreign_names[i].k == ki && same_name(foreign_names[i].name, value)) {
			snprintf(out, len, "\"%s\" (%s)", foreign_names[i].choice, foreign_names[i].whose);
			return 1;
		}
	return 0;
}

/* Why what another tool calls `value` has no choice here; NULL when it
 * is no such name. */
static const char *unmodelled_choice(int ki, const char *value)
{
	for (size_t i = 0; i < sizeof(unmodelled_names) / sizeof(unmodelled_names[0]); i++)
		if ((int)unmodelled_names[i].k == ki && same_name(unmodelled_names[i].name, value))
			return unmodelled_names[i].why;
	return NULL;
}

/* ---- values ---- */

const char *dc_cfg_type_name(const cJSON *v)
{
	if (cJSON_IsNull(v))
		return "null";
	if (cJSON_IsBool(v))
		return "a boolean";
	if (cJSON_IsNumber(v))
		return "a number";
	if (cJSON_IsString(v))
		return "a string";
	if (cJSON_IsArray(v))
		return "an array";
	if (cJSON_IsObject(v))
		return "an object";
	return "an unknown value";
}

void dc_cfg_fmt_num(char *buf, size_t len, double v)
{
	for (int prec = 15; prec <= 17; prec++) {
		snprintf(buf, len, "%.*g", prec, v);
		if (strtod(buf, NULL) == v)
			return;
	}
}

/* What the file holds, for "got X": the value itself when it is a scalar. */
static const char *describe(struct loader *l, const cJSON *v)
{
	if (cJSON_IsString(v)) {
		size_t n = strlen(v->valuestring);
		if (n > 40)
			snprintf(l->got, sizeof(l->got), "the string \"%.40s...\"", v->valuestring);
		else
			snprintf(l->got, sizeof(l->got), "the string \"%s\"", v->valuestring);
	} else if (cJSON_IsNumber(v) && isfinite(v->valuedouble)) {
		dc_cfg_fmt_num(l->got, sizeof(l->got), v->valuedouble);
	} else if (cJSON_IsBool(v)) {
		snprintf(l->got, sizeof(l->got), "%s", cJSON_IsTrue(v) ? "true" : "false");
	} else {
		snprintf(l->got, sizeof(l->got), "%s", dc_cfg_type_name(v));
	}
	return l->got;
}

static void *field(struct loader *l, const struct key *k)
{
	return (char *)l->cfg + k->off;
}

static int check_number(struct loader *l, int ki, const cJSON *v, double *out)
{
	const struct key *k = &dc_cfg_keys[ki];
	double d = v->valuedouble;
	if (!isfinite(d)) {
		dc_cfg_errorf(l, ki, "'%s': must be a finite number, got a number too large for a double", k->info.path);
		return -1;
	}
	*out = d;
	return 0;
}

/* The bound `v` as a message says it: 2^53 by name. */
static void fmt_bound(char *buf, size_t len, double v)
{
	if (v == DC_MAX_EXACT_INT)
		snprintf(buf, len, "2^53 (9007199254740992)");
	else
		dc_cfg_fmt_num(buf, len, v);
}

/* A whole number in the row's bounds [lo, hi). */
static int read_integer(struct loader *l, int ki, const cJSON *v, uint64_t *out)
{
	const struct key *k = &dc_cfg_keys[ki];
	double d;
	char num[40];
	if (!cJSON_IsNumber(v)) {
		dc_cfg_errorf(l, ki, "'%s': expected an integer, got %s", k->info.path, describe(l, v));
		return -1;
	}
	if (check_number(l, ki, v, &d) != 0)
		return -1;
	if (d != floor(d)) {
		dc_cfg_fmt_num(num, sizeof(num), d);
		dc_cfg_errorf(l, ki, "'%s': must be a whole number, got %s", k->info.path, num);
		return -1;
	}
	if (d < k->lo) {
		/* 0 for a derived default (some tools write 0 for "derive
		 * it"): say how to get that default */
		if (k->lo > 0 && d == 0 && k->info.default_text && strncmp(k->info.default_text, "derived", 7) == 0)
			dc_cfg_errorf(l, ki, "'%s': must be at least %.0f, got 0; leave it out for its default (%s)",
				      k->info.path, k->lo, k->info.default_text);
		else if (k->lo > 0)
			dc_cfg_errorf(l, ki, "'%s': must be at least %.0f, got %.0f", k->info.path, k->lo, d);
		else
			dc_cfg_errorf(l, ki, "'%s': must be non-negative, got %.0f", k->info.path, d);
		return -1;
	}
	if (d >= k->hi) {
		/* past 2^53 the text may not be exactly d (2^53 + 1 reads as
		 * 2^53): say "about" there, the value itself below */
		fmt_bound(num, sizeof(num), k->hi);
		if (k->hi < DC_MAX_EXACT_INT && d < DC_MAX_EXACT_INT)
			dc_cfg_errorf(l, ki, "'%s': must be at most %.0f, got %.0f", k->info.path, k->hi - 1, d);
		else if (k->hi < DC_MAX_EXACT_INT)
			dc_cfg_errorf(l, ki, "'%s': must be at most %.0f, got about %.6g", k->info.path, k->hi - 1, d);
		else
			dc_cfg_errorf(l, ki, "'%s': must be below %s, got about %.6g", k->info.path, num, d);
		return -1;
	}
	*out = (uint64_t)d;
	return 0;
}

/* GPU memory written in decimal units ("80 GB") that is a card's marketed
 * size: the card holds that many GiB, so "80 GB" (74.5 GiB) is most likely
 * a slip. Sizes of NVIDIA and AMD data-centre and workstation cards. */
static void warn_decimal_gpu_memory(struct loader *l, int ki, const char *text, uint64_t bytes)
{
	static const unsigned marketed_gb[] = {8, 12, 16, 20, 24, 32, 40, 48, 64, 80, 94, 96, 128, 141, 144, 180, 192, 256, 288};
	const char *unit;
	char *end;

	(void)strtod(text, &end);
	unit = end + strspn(end, " ");
	if (strcmp(unit, "GB") != 0 || bytes % 1000000000u != 0)
		return;
	for (size_t i = 0; i < sizeof(marketed_gb) / sizeof(marketed_gb[0]); i++)
		if (bytes / 1000000000u == marketed_gb[i]) {
			dc_cfg_warnf(l, ki, "'%s': \"%s\" reads as %u x 10^9 bytes (%.1f GiB), but a card sold as %uGB holds %u GiB; if you meant that, write \"%u GiB\"",
			      dc_cfg_keys[ki].info.path, text, marketed_gb[i], (double)bytes / 1073741824.0, marketed_gb[i],
			      marketed_gb[i], marketed_gb[i]);
			return;
		}
}

/* A plain number of bytes below 1 MiB where a size of memory or a bucket
 * is meant is most likely the number of a unit string without its unit
 * ("cluster.gpu_memory": 80): warned as bandwidths are, the hint in the
 * key's usual unit. The nccl-tests sizes (collective.*) start at 8 bytes,
 * and 0 ("none") is meant, so those are left alone. */
static void warn_plain_bytes(struct loader *l, int ki, uint64_t bytes)
{
	const char *path = dc_cfg_keys[ki].info.path, *unit;
	if (bytes == 0 || bytes >= 1048576u || strncmp(path, "collective.", 11) == 0)
		return;
	unit = strcmp(path, "cluster.gpu_memory") == 0 || strcmp(path, "cluster.host_memory") == 0 ? "GiB" : "MiB";
	dc_cfg_warnf(l, ki, "'%s': %llu is in bytes (a plain number is bytes); if you meant %llu %s, write \"%llu %s\"",
		     path, (unsigned long long)bytes, (unsigned long long)bytes, unit, (unsigned long long)bytes, unit);
}

/* Bytes as a number or a string with a unit, at least the row's lo (the
 * units parser refuses strings above 2^53 bytes). */
static int read_bytes(struct loader *l, int ki, const cJSON *v, uint64_t *out)
{
	const struct key *k = &dc_cfg_keys[ki];
	char err[256];
	if (cJSON_IsString(v)) {
		if (dc_units_parse_bytes(v->valuestring, out, err, sizeof(err)) != 0) {
			dc_cfg_errorf(l, ki, "'%s': %s", k->info.path, err);
			return -1;
		}
		if ((double)*out < k->lo) {
			dc_cfg_errorf(l, ki, "'%s': must be at least %.0f byte%s, got '%s'", k->info.path, k->lo,
			       k->lo == 1 ? "" : "s", v->valuestring);
			return -1;
		}
		if (strcmp(k->info.path, "cluster.gpu_memory") == 0)
			warn_decimal_gpu_memory(l, ki, v->valuestring, *out);
		return 0;
	}
	if (!cJSON_IsNumber(v)) {
		dc_cfg_errorf(l, ki, "'%s': expected bytes as a number or a string like \"80 GiB\", got %s", k->info.path,
		       describe(l, v));
		return -1;
	}
	if (read_integer(l, ki, v, out) != 0)
		return -1;
	warn_plain_bytes(l, ki, *out);
	return 0;
}

/* Is `v` below the row's lower bound? */
static int below(const struct key *k, double v)
{
	return k->lo_open ? !(v > k->lo) : v < k->lo;
}

/* The row's lower bound as a message words it: "must be positive", "must
 * not be negative", "must be at least 2". */
static void lower_bound_text(const struct key *k, char *buf, size_t len)
{
	if (k->lo == 0)
		snprintf(buf, len, "%s", k->lo_open ? "must be positive" : "must not be negative");
	else
		snprintf(buf, len, "must be %s %g", k->lo_open ? "above" : "at least", k->lo);
}

/* A bandwidth or a time, as a number in base units or a string with a unit,
 * in the row's bounds. */
static int read_real(struct loader *l, int ki, const cJSON *v, enum dc_quantity q, double *out)
{
	const struct key *k = &dc_cfg_keys[ki];
	char err[256];
	if (cJSON_IsString(v)) {
		int rc = q == DC_Q_BANDWIDTH ? dc_units_parse_bandwidth(v->valuestring, out, err, sizeof(err))
					     : dc_units_parse_time(v->valuestring, out, err, sizeof(err));
		if (rc != 0) {
			dc_cfg_errorf(l, ki, "'%s': %s", k->info.path, err);
			return -1;
		}
	} else if (cJSON_IsNumber(v)) {
		if (check_number(l, ki, v, out) != 0)
			return -1;
	} else {
		dc_cfg_errorf(l, ki, "'%s': expected %s, got %s", k->info.path,
		       q == DC_Q_BANDWIDTH ? "a bandwidth like \"50 GB/s\" or a number in bytes/s"
					   : "a time like \"5 us\" or a number in seconds",
		       describe(l, v));
		return -1;
	}
	if (below(k, *out)) {
		char want[64];
		lower_bound_text(k, want, sizeof(want));
		if (q == DC_Q_BANDWIDTH && cJSON_IsString(v))
			/* the bound is in bytes/s, the text maybe in bits: "7 b/s"
			 * is 0.875 bytes/s (a trial read "at least 1, got 7" as a
			 * contradiction) */
			dc_cfg_errorf(l, ki, "'%s': %s bytes/s, got \"%s\" (%g bytes/s)", k->info.path, want,
				      v->valuestring, *out);
		else
			dc_cfg_errorf(l, ki, "'%s': %s, got %s", k->info.path, want, describe(l, v));
		return -1;
	}
	if (*out >= k->hi) {
		dc_cfg_errorf(l, ki, "'%s': must be below %g %s, got %g", k->info.path, k->hi, k->info.unit, *out);
		return -1;
	}
	/* a plain number is in base units: flag the classic slip of writing
	 * the number of a unit string without the unit */
	/* the number as given, exactly: the text to write must be the same
	 * number (%g would make 0.0012345678 "0.00123457") */
	/* a key whose default is in ms (whatif.slow_data_rank.delay, 10 ms)
	 * takes tenths of a second plausibly: the slip is 10 for 10 ms, so
	 * 1 s and more warns; a latency (us) from 1 ms */
	if (cJSON_IsNumber(v) && q == DC_Q_TIME &&
	    *out >= (strstr(k->info.default_text, " ms") ? 1.0 : 1e-3)) {
		const char *unit = strstr(k->info.default_text, " ms") ? "ms" : "us";
		char num[32];
		dc_cfg_fmt_num(num, sizeof(num), *out);
		/* the slip is a count of the unit (5 for 5 us): a fraction
		 * read in it is a nanosecond or less, no reading to suggest */
		if (*out >= 1.0)
			dc_cfg_warnf(l, ki, "'%s': %s is in seconds (a plain number is seconds); if you meant %s %s, write \"%s %s\"",
				     k->info.path, num, num, unit, num, unit);
		else
		{
			char ms[32];
			dc_cfg_fmt_num(ms, sizeof(ms), *out * 1e3);
			dc_cfg_warnf(l, ki, "'%s': %s is in seconds (a plain number is seconds), %s ms; write the time with its unit, like \"5 %s\"",
				     k->info.path, num, ms, unit);
		}
	}
	if (cJSON_IsNumber(v) && q == DC_Q_BANDWIDTH && *out < 1e6) {
		/* HBM runs at TB/s (2.039 TB/s on an A100): a small number is that */
		/* a NIC's rate is sold in Gb/s (400 for a 400 Gb/s NIC; a
		 * trial was told "400 GB/s", 8x too fast), from 100 Gb/s;
		 * below that a number is its GB/s (12.5, 50) */
		const char *unit = ki == KEY_CLUSTER_HBM_BANDWIDTH && *out < 100 ? "TB/s"
				   : ki == KEY_CLUSTER_INTER_NODE_BANDWIDTH && *out >= 100 ? "Gb/s"
									      : "GB/s";
		char num[32];
		/* a reading past any part's rate (3.2 Tb/s NICs, 1.8 TB/s
		 * NVLink, 8 TB/s HBM) is no reading to suggest */
		int hbm = ki == KEY_CLUSTER_HBM_BANDWIDTH;
		int plausible = unit[0] == 'T' ? *out <= 20 : unit[1] == 'b' ? *out <= 6400 : *out <= (hbm ? 20000 : 4000);
		dc_cfg_fmt_num(num, sizeof(num), *out);
		if (plausible)
			dc_cfg_warnf(l, ki, "'%s': %s is in bytes per second (a plain number is bytes/s); if you meant %s %s, write \"%s %s\"",
				     k->info.path, num, num, unit, num, unit);
		else
			dc_cfg_warnf(l, ki, "'%s': %s is in bytes per second (a plain number is bytes/s); write the bandwidth with its unit, like %s",
				     k->info.path, num, hbm ? "\"3.35 TB/s\"" : "\"400 Gb/s\" or \"450 GB/s\"");
	}
	return 0;
}

static int parse_order(struct loader *l, int ki, const char *s)
{
	enum dc_axis order[DC_AXIS_COUNT];
	int used[DC_AXIS_COUNT] = {0};
	size_t n = 0;
	const char *p = s;

	while (*p) {
		const char *e = strchr(p, '-');
		size_t len = e ? (size_t)(e - p) : strlen(p);
		int found = -1;
		for (int a = 0; dc_cfg_axis_names[a]; a++)
			if (strlen(dc_cfg_axis_names[a]) == len && strncmp(p, dc_cfg_axis_names[a], len) == 0)
				found = a;
		if (found < 0) {
			dc_cfg_errorf(l, ki, "'parallel.order': unknown axis '%.*s' in \"%s\": use tp, cp, ep, dp and pp joined by '-', like \"tp-cp-ep-dp-pp\"",
			       (int)len, p, s);
			return -1;
		}
		if (used[found]) {
			dc_cfg_errorf(l, ki, "'parallel.order': axis '%s' appears twice in \"%s\"", dc_cfg_axis_names[found], s);
			return -1;
		}
		used[found] = 1;
		order[n++] = (enum dc_axis)found;
		if (!e)
			break;
		p = e + 1;
		if (!*p) {
			dc_cfg_errorf(l, ki, "'parallel.order': \"%s\" ends with '-'", s);
			return -1;
		}
	}
	if (!used[DC_AXIS_TP] || !used[DC_AXIS_DP] || !used[DC_AXIS_PP]) {
		dc_cfg_errorf(l, ki, "'parallel.order': \"%s\" must name tp, dp and pp (cp and ep are optional)", s);
		return -1;
	}
	/* axes not named have size 1; they go last */
	for (int a = 0; a < DC_AXIS_COUNT; a++)
		if (!used[a])
			order[n++] = (enum dc_axis)a;
	memcpy(l->cfg->parallel.order, order, sizeof(order));
	snprintf(l->cfg->parallel.order_text, sizeof(l->cfg->parallel.order_text), "%s", s);
	return 0;
}

/* parallel.pipeline_layers and checkpoint.restore.pipeline_layers: a JSON
 * array of 1..DC_MAX_PIPELINE_LIST whole numbers >= 1, each entry checked
 * as a count. */
static void read_list(struct loader *l, int ki, const cJSON *v)
{
	const struct key *k = &dc_cfg_keys[ki];
	int restore = ki == KEY_CHECKPOINT_RESTORE_PIPELINE_LAYERS;
	uint64_t *list = restore ? l->cfg->checkpoint.restore.pipeline_layers : l->cfg->parallel.pipeline_layers;
	uint64_t *count = restore ? &l->cfg->checkpoint.restore.pipeline_layers_n : &l->cfg->parallel.pipeline_layers_n;
	uint64_t n = 0;
	char num[40];

	if (!cJSON_IsArray(v)) {
		dc_cfg_errorf(l, ki, "'%s': expected an array of layer counts like [4, 4, 3], got %s", k->info.path,
		       describe(l, v));
		return;
	}
	for (const cJSON *e = v->child; e; e = e->next, n++) {
		double d;
		if (n >= DC_MAX_PIPELINE_LIST) {
			dc_cfg_errorf(l, ki, "'%s': at most %d stages, got more", k->info.path, DC_MAX_PIPELINE_LIST);
			return;
		}
		if (!cJSON_IsNumber(e)) {
			dc_cfg_errorf(l, ki, "'%s': entry %llu: expected a whole number of layers, got %s", k->info.path,
			       (unsigned long long)n + 1, describe(l, e));
			return;
		}
		if (check_number(l, ki, e, &d) != 0)
			return;
		/* 0: the model's first or last chunk of an interleaved
		 * layout may hold none (dc_stage_split checks the rest); a
		 * restored stage is one chunk and holds at least 1 */
		if (d != floor(d) || d < (restore ? 1 : 0) || d >= DC_MAX_EXACT_INT) {
			dc_cfg_fmt_num(num, sizeof(num), d);
			dc_cfg_errorf(l, ki, "'%s': entry %llu: every stage needs a whole number of layers, at least 1, got %s",
			       k->info.path, (unsigned long long)n + 1, num);
			return;
		}
		list[n] = (uint64_t)d;
	}
	if (n == 0) {
		dc_cfg_errorf(l, ki, "'%s': expected one entry per pipeline stage, got an empty array", k->info.path);
		return;
	}
	*count = n;
}

/* The names a list row of choices takes (a list row's info names no
 * choices: only an enum's does) */
static const char *const *names_of(const struct key *k)
{
	if (strcmp(k->info.path, "search.space.sharding") == 0)
		return dc_cfg_sharding_names;
	if (strcmp(k->info.path, "collective.protocols") == 0)
		return dc_cfg_protocol_names;
	if (strcmp(k->info.path, "training.recompute_modules") == 0)
		return dc_cfg_recompute_module_names;
	return dc_cfg_recompute_names;
}

/* The one-value key whose choices list key k lists (search.space.sharding:
 * parallel.sharding), for its hints: other tools' names (foreign_names)
 * read alike in both; -1 for none */
static int listed_key(const struct key *k)
{
	if (strcmp(k->info.path, "search.space.sharding") == 0)
		return KEY_PARALLEL_SHARDING;
	return -1;
}

/* Megatron-Core's recompute modules (transformer_config.py:1947-1958 at
 * d98e8a64) that training.recompute_modules does not take */
static int megatron_unmodelled(const char *v)
{
	static const char *const names[] = {"gdn_norm_out", "gdp_in_proj", "gdp_qkv", "mhc", NULL};
	for (int i = 0; names[i]; i++)
		if (strcmp(v, names[i]) == 0)
			return 1;
	return 0;
}

/* A list row's example value, for its errors */
static const char *example_of(const struct key *k)
{
	const char *const *names = names_of(k);
	if (k->kind == K_VALUES)
		return "[1, 2, 4]";
	if (k->kind == K_BOOLS)
		return "[true, false]";
	if (names == dc_cfg_protocol_names)
		return "[\"ll128\", \"simple\"]";
	if (names == dc_cfg_recompute_module_names)
		return "[\"core_attn\", \"mlp\"]";
	return "[\"none\", \"zero1\"]";
}

/* NCCL_PROTO's own form ("Simple,LL128", "^LL") given to
 * collective.protocols: the list it means, as a hint. 0 when `v` is no
 * such form. */
static int protocols_hint(const char *v, char *out, size_t len)
{
	char buf[64];
	unsigned mask = 0, all = (1u << DC_NET_PROTO_COUNT) - 1;
	int excl = v[0] == '^';
	size_t n = strlen(v);
	const char *p = v + excl;
	if (n >= sizeof(buf) || !*p)
		return 0;
	while (*p) {
		size_t w = strcspn(p, ","), i;
		for (i = 0; dc_cfg_protocol_names[i]; i++)
			if (strlen(dc_cfg_protocol_names[i]) == w && strncasecmp(p, dc_cfg_protocol_names[i], w) == 0)
				break;
		if (!dc_cfg_protocol_names[i])
			return 0;
		mask |= 1u << i;
		p += w;
		if (*p == ',')
			p++;
	}
	if (excl)
		mask = all & ~mask;
	if (!mask)
		return 0;
	dc_protocols_text(mask, buf, sizeof(buf));
	snprintf(out, len, "NCCL_PROTO=%s is %s", v, buf);
	return 1;
}

/* search.space lists and collective.protocols: a non-empty JSON array of
 * at most DC_SEARCH_MAX_VALUES counts, choices or booleans. */
static void read_space(struct loader *l, int ki, const cJSON *v)
{
	const struct key *k = &dc_cfg_keys[ki];
	void *dst = (char *)l->cfg + k->off;
	struct dc_search_values vals = {0};
	uint32_t mask = 0;
	uint32_t n = 0;
	uint64_t u;
	char hint[128];

	if (cJSON_IsString(v) && v->valuestring[0] == '[') {
		/* a --set list that is not JSON: single quotes, a bracket missing */
		dc_cfg_errorf(l, ki, "'%s': \"%.64s%s\" is not a JSON array (a JSON string takes double quotes, and the array ends with ']'); write it like %s",
			      k->info.path, v->valuestring, strlen(v->valuestring) > 64 ? "..." : "",
			      example_of(k));
		return;
	}
	if (cJSON_IsString(v) && names_of(k) == dc_cfg_protocol_names && protocols_hint(v->valuestring, hint, sizeof(hint))) {
		dc_cfg_errorf(l, ki, "'%s': expected a non-empty array like [\"ll128\", \"simple\"], got the string \"%s\"; %s",
			      k->info.path, v->valuestring, hint);
		return;
	}
	if (!cJSON_IsArray(v) || !v->child) {
		dc_cfg_errorf(l, ki, "'%s': expected a non-empty array like %s, got %s", k->info.path,
		       example_of(k),
		       cJSON_IsArray(v) ? "an empty array" : describe(l, v));
		return;
	}
	for (const cJSON *e = v->child; e; e = e->next, n++) {
		if (n >= DC_SEARCH_MAX_VALUES) {
			dc_cfg_errorf(l, ki, "'%s': at most %d values, got more", k->info.path, DC_SEARCH_MAX_VALUES);
			return;
		}
		if (k->kind == K_VALUES) {
			if (read_integer(l, ki, e, &u) != 0)
				return;
			/* a value given twice would be searched twice: a slip */
			for (uint32_t j = 0; j < vals.n; j++)
				if (vals.v[j] == u) {
					dc_cfg_errorf(l, ki, "'%s': entry %u: %llu is given twice (entry %u); give each value once",
						      k->info.path, n + 1, (unsigned long long)u, j + 1);
					return;
				}
			vals.v[vals.n++] = u;
		} else if (k->kind == K_BOOLS) {
			if (!cJSON_IsBool(e)) {
				dc_cfg_errorf(l, ki, "'%s': entry %u: expected true or false, got %s", k->info.path, n + 1,
				       describe(l, e));
				return;
			}
			if (mask & (1u << (cJSON_IsTrue(e) ? 1 : 0))) {
				dc_cfg_errorf(l, ki, "'%s': entry %u: %s is given twice; give each value once", k->info.path,
					      n + 1, cJSON_IsTrue(e) ? "true" : "false");
				return;
			}
			mask |= 1u << (cJSON_IsTrue(e) ? 1 : 0);
		} else {
			const char *const *names = names_of(k);
			int i, found = -1;
			/* NCCL_PROTO's names are NCCL's spelling (LL128, Simple):
			 * taken in any case */
			int any_case = names == dc_cfg_protocol_names;
			for (i = 0; cJSON_IsString(e) && names[i]; i++)
				if ((any_case ? strcasecmp(e->valuestring, names[i]) : strcmp(e->valuestring, names[i])) == 0)
					found = i;
			if (found < 0 && names == dc_cfg_recompute_module_names && cJSON_IsString(e) &&
			    megatron_unmodelled(e->valuestring)) {
				dc_cfg_errorf(l, ki, "'%s': entry %u: \"%s\" is a Megatron-Core module distcalc does not model (Gated DeltaNet's and mHC's recompute); expected one of %s",
					      k->info.path, n + 1, e->valuestring, k->info.bounds + 3);
				return;
			}
			if (found < 0 && cJSON_IsString(e) && listed_key(k) >= 0 &&
			    unmodelled_choice(listed_key(k), e->valuestring)) {
				/* what the listed key's own error says of it
				 * ("hsdp": a sharding and parallel.dp_replicate) */
				dc_cfg_errorf(l, ki, "'%s': entry %u: unknown value \"%s\": %s (expected one of %s)",
					      k->info.path, n + 1, e->valuestring, unmodelled_choice(listed_key(k), e->valuestring),
					      k->info.bounds + 3);
				return;
			}
			if (found < 0) {
				char near[256];
				/* another tool's name for a choice, as the listed
				 * key's own error says it; else a slip of a name,
				 * which is short: a long entry is no name */
				if (cJSON_IsString(e) && strlen(e->valuestring) <= 32 &&
				    (foreign_choice(listed_key(k), e->valuestring, near, sizeof(near)) ||
				     suggest_choice(names, e->valuestring, 1, near, sizeof(near))))
					dc_cfg_errorf(l, ki, "'%s': entry %u: unknown value \"%s\"; did you mean %s? (expected one of %s)",
						      k->info.path, n + 1, e->valuestring, near, k->info.bounds + 3);
				else
					dc_cfg_errorf(l, ki, "'%s': entry %u: expected one of %s, got %s", k->info.path, n + 1,
						      k->info.bounds + 3, describe(l, e));
				return;
			}
			if (mask & (1u << found)) {
				dc_cfg_errorf(l, ki, "'%s': entry %u: \"%s\" is given twice; give each value once", k->info.path,
					      n + 1, names[found]);
				return;
			}
			mask |= 1u << found;
		}
	}
	if (k->kind == K_VALUES)
		memcpy(dst, &vals, sizeof(vals));
	else
		memcpy(dst, &mask, sizeof(mask));
}

/* cluster.*.ramp: exactly DC_NET_RAMP_KNOTS finite numbers, each from
 * 0.001 to 1 (a factor on a link's bandwidth: the link is never faster
 * than its rate; a factor near 0 would make every size take forever, and
 * one of 1e-310 made the comm time infinite: 0.001, as
 * whatif.slow_network.factor, keeps every result finite, and is far
 * below what --calibrate fits, 0.05 to 1). */
static void read_ramp(struct loader *l, int ki, const cJSON *v)
{
	const struct key *k = &dc_cfg_keys[ki];
	double knots[DC_NET_RAMP_KNOTS];
	int n = 0;

	if (!cJSON_IsArray(v)) {
		dc_cfg_errorf(l, ki, "'%s': expected an array of %d numbers like [0.5, 0.7, 0.8, 0.9, 1], got %s",
			      k->info.path, DC_NET_RAMP_KNOTS, describe(l, v));
		return;
	}
	for (const cJSON *e = v->child; e; e = e->next, n++) {
		if (n >= DC_NET_RAMP_KNOTS) {
			dc_cfg_errorf(l, ki,
				      "'%s': expected %d numbers, one per knot (8 KiB, 128 KiB, 2 MiB, 32 MiB, 512 MiB), got more",
				      k->info.path, DC_NET_RAMP_KNOTS);
			return;
		}
		if (!cJSON_IsNumber(e)) {
			dc_cfg_errorf(l, ki, "'%s': entry %d: expected a number, got %s", k->info.path, n + 1, describe(l, e));
			return;
		}
		if (!isfinite(e->valuedouble)) {
			dc_cfg_errorf(l, ki, "'%s': entry %d: must be a finite number, got a number too large for a double",
				      k->info.path, n + 1);
			return;
		}
		if (!(e->valuedouble >= 0.001 && e->valuedouble <= 1)) {
			char num[40];
			dc_cfg_fmt_num(num, sizeof(num), e->valuedouble);
			dc_cfg_errorf(l, ki, "'%s': entry %d: a bandwidth factor must be from 0.001 to 1, got %s",
				      k->info.path, n + 1, num);
			return;
		}
		knots[n] = e->valuedouble;
	}
	if (n != DC_NET_RAMP_KNOTS) {
		dc_cfg_errorf(l, ki,
			      "'%s': expected %d numbers, one per knot (8 KiB, 128 KiB, 2 MiB, 32 MiB, 512 MiB), got %d",
			      k->info.path, DC_NET_RAMP_KNOTS, n);
		return;
	}
	memcpy((char *)l->cfg + k->off, knots, sizeof(knots));
}

static void read_value(struct loader *l, int ki, const cJSON *v)
{
	const struct key *k = &dc_cfg_keys[ki];
	uint64_t u;
	double d;

	if (cJSON_IsNull(v)) {
		dc_cfg_errorf(l, ki, "'%s': null is not allowed; remove the key to use the default%s", k->info.path,
			      l->from_set[ki] ? " (drop the --set, or --unset the key the config gives)" : "");
		return;
	}
	if (cJSON_IsString(v) && strlen(v->valuestring) > DC_CONFIG_MAX_STRING) {
		dc_cfg_errorf(l, ki, "'%s': string must be at most %d bytes, got %zu bytes", k->info.path, DC_CONFIG_MAX_STRING,
		       strlen(v->valuestring));
		return;
	}
	switch (k->kind) {
	case K_SECTION:
		break;
	case K_COUNT_AUTO:
		l->is_auto[ki] = 0;
		if (cJSON_IsString(v) && strcmp(v->valuestring, "auto") == 0) {
			l->is_auto[ki] = 1; /* the rules derive it */
			break;
		}
		if (!cJSON_IsNumber(v)) {
			dc_cfg_errorf(l, ki, "'%s': expected an integer or \"auto\", got %s", k->info.path, describe(l, v));
			break;
		}
		if (read_integer(l, ki, v, &u) == 0)
			*(uint64_t *)field(l, k) = u;
		break;
	case K_COUNT:
	case K_UINT:
		if (read_integer(l, ki, v, &u) == 0)
			*(uint64_t *)field(l, k) = u;
		break;
	case K_BYTES:
	case K_BYTES_POS:
		if (read_bytes(l, ki, v, &u) == 0)
			*(uint64_t *)field(l, k) = u;
		break;
	case K_BW:
	case K_TIME:
		if (read_real(l, ki, v, k->kind == K_BW ? DC_Q_BANDWIDTH : DC_Q_TIME, &d) == 0) {
			*(double *)field(l, k) = d;
			/* given: it replaces cluster.network's (net.c) */
			if (ki == KEY_CLUSTER_INTER_NODE_PLUGIN_LATENCY)
				l->cfg->cluster.plugin_latency_fitted = 1;
		}
		break;
	case K_BOOL:
		if (!cJSON_IsBool(v))
			dc_cfg_errorf(l, ki, "'%s': expected true or false, got %s", k->info.path, describe(l, v));
		else
			*(int *)field(l, k) = cJSON_IsTrue(v);
		break;
	case K_ENUM:
	case K_GPU: {
		/* every choice quoted: 12 system and 10 GPU names fit with room to
		 * spare; a longer list is cut, never written past the buffer */
		char list[1024] = "";
		size_t used = 0;
		char near[256];
		if (cJSON_IsString(v)) {
			for (int i = 0; k->info.choices[i]; i++)
				if (strcmp(v->valuestring, k->info.choices[i]) == 0) {
					*(int *)field(l, k) = i + (k->kind == K_GPU);
					return;
				}
		}
		for (int i = 0; k->info.choices[i] && used < sizeof list; i++) {
			int n = snprintf(list + used, sizeof list - used, "%s\"%s\"", i ? ", " : "", k->info.choices[i]);
			if (n < 0)
				break;
			used += (size_t)n;
		}
		/* a preset name is long and easy to mistype, an enum's word
		 * less so: a slip of 2 edits, or of 1 */
		if (cJSON_IsString(v) && unmodelled_choice(ki, v->valuestring))
			dc_cfg_errorf(l, ki, "'%s': unknown value \"%s\": %s (expected one of %s)", k->info.path,
				      v->valuestring, unmodelled_choice(ki, v->valuestring), list);
		else if (cJSON_IsString(v) && (foreign_choice(ki, v->valuestring, near, sizeof(near)) ||
		    suggest_choice(k->info.choices, v->valuestring, k->kind == K_GPU || ki == KEY_CLUSTER_SYSTEM ? 2 : 1, near, sizeof(near))))
			dc_cfg_errorf(l, ki, "'%s': unknown value \"%s\"; did you mean %s? (expected one of %s)", k->info.path,
			       v->valuestring, near, list);
		else if (cJSON_IsString(v))
			dc_cfg_errorf(l, ki, "'%s': unknown value \"%s\"; expected one of %s", k->info.path, v->valuestring, list);
		else
			dc_cfg_errorf(l, ki, "'%s': expected one of %s, got %s", k->info.path, list, describe(l, v));
		break;
	}
	case K_ORDER:
		if (!cJSON_IsString(v))
			dc_cfg_errorf(l, ki, "'%s': expected a string like \"tp-cp-ep-dp-pp\", got %s", k->info.path, describe(l, v));
		else
			parse_order(l, ki, v->valuestring);
		break;
	case K_FRACTION:
		if (!cJSON_IsNumber(v)) {
			dc_cfg_errorf(l, ki, "'%s': expected a number in [%g, %g), got %s", k->info.path, k->lo, k->hi,
			       describe(l, v));
		} else if (check_number(l, ki, v, &d) == 0) {
			if (below(k, d) || d >= k->hi)
				dc_cfg_errorf(l, ki, "'%s': must be in [%g, %g), got %g", k->info.path, k->lo, k->hi, d);
			else
				*(double *)field(l, k) = d;
		}
		break;
	case K_REAL: {
		/* a GPU's peak also as a string with a unit, "989 TFLOP/s",
		 * as a bandwidth takes one */
		int rate = ki == KEY_CLUSTER_PEAK_FLOPS || ki == KEY_CLUSTER_PEAK_FLOPS_FP8;
		char err[256];
		if (rate && cJSON_IsString(v)) {
			if (dc_units_parse_flops(v->valuestring, &d, err, sizeof(err)) != 0)
				dc_cfg_errorf(l, ki, "'%s': %s", k->info.path, err);
			else if (below(k, d))
				dc_cfg_errorf(l, ki, "'%s': must be at least 1 FLOP/s, got \"%s\"", k->info.path, v->valuestring);
			else if (d >= k->hi)
				dc_cfg_errorf(l, ki, "'%s': must be below %g FLOP/s, got \"%s\"", k->info.path, k->hi,
					      v->valuestring);
			else
				*(double *)field(l, k) = d;
		} else if (!cJSON_IsNumber(v)) {
			dc_cfg_errorf(l, ki, "'%s': expected %s, got %s", k->info.path,
				      rate ? "a rate like \"989 TFLOP/s\" or a number in FLOP/s" : "a number", describe(l, v));
		} else if (check_number(l, ki, v, &d) == 0) {
			if (below(k, d)) {
				char want[64];
				lower_bound_text(k, want, sizeof(want));
				dc_cfg_errorf(l, ki, "'%s': %s, got %g", k->info.path, want, d);
			} else if (d >= k->hi) {
				dc_cfg_errorf(l, ki, "'%s': must be below %g%s%s, got %g", k->info.path, k->hi,
				       k->info.unit[0] ? " " : "", k->info.unit, d);
			} else {
				*(double *)field(l, k) = d;
				/* a GPU peak runs at TFLOP/s: a number below 10^9 is
				 * most likely TFLOP/s written without its 10^12 */
				if ((ki == KEY_CLUSTER_PEAK_FLOPS || ki == KEY_CLUSTER_PEAK_FLOPS_FP8) && d < 1e9) {
					/* d is at least 1 (the row's lo), so its exact
					 * text has no exponent and "e12" makes the JSON
					 * number in TFLOP/s */
					char num[32];
					dc_cfg_fmt_num(num, sizeof(num), d);
					/* past 100,000 TFLOP/s (any part's dense peak is
					 * below 20,000) there is no reading to suggest */
					if (d <= 1e5)
						dc_cfg_warnf(l, ki, "'%s': %s is in FLOP/s (a plain number is FLOP/s); if you meant %s TFLOP/s, write \"%s TFLOP/s\" or %se12",
							     k->info.path, num, num, num, num);
					else
						dc_cfg_warnf(l, ki, "'%s': %s is in FLOP/s (a plain number is FLOP/s); write the peak with its unit, like \"989 TFLOP/s\"",
							     k->info.path, num);
				}
			}
		}
		break;
	}
	case K_LIST:
		read_list(l, ki, v);
		break;
	case K_VALUES:
	case K_CHOICES:
	case K_BOOLS:
		read_space(l, ki, v);
		break;
	case K_RAMP:
		read_ramp(l, ki, v);
		break;
	case K_STRING:
		if (!cJSON_IsString(v))
			dc_cfg_errorf(l, ki, "'%s': expected a string, got %s", k->info.path, describe(l, v));
		else if (strcmp(k->info.path, "model.hf_config") == 0 && !*v->valuestring)
			dc_cfg_errorf(l, ki, "'%s': expected the path of a Hugging Face config.json, got an empty string", k->info.path);
		else if (strcmp(k->info.path, "model.hf_config") == 0)
			snprintf(l->hf_path, sizeof(l->hf_path), "%s", v->valuestring);
		else if (strcmp(k->info.path, "cluster.topology_file") == 0 && !*v->valuestring)
			dc_cfg_errorf(l, ki, "'%s': expected the path of a file of `nvidia-smi topo -m` output, got an empty string",
			       k->info.path);
		else if (strcmp(k->info.path, "cluster.topology_file") == 0)
			snprintf(l->topo_path, sizeof(l->topo_path), "%s", v->valuestring);
		break;
	}
}

/* A member name holding '.' ({"parallel.tp": 4}) is one name, never a
 * path: an unknown key, and the suggestion spells the key it looks like
 * nested, relative to the section `prefix` it sits in. */
static void unknown_dotted(struct loader *l, const char *path, const char *prefix)
{
	size_t pl = strlen(prefix);
	const char *s = NULL, *rel, *p;
	char nested[400], pre[300];
	size_t n = 0, depth = 0;
	int ki = dc_cfg_find_key(path);

	if (ki >= 0) {
		s = dc_cfg_keys[ki].info.path;
	} else {
		/* a path cut short at its buffer may have lost the dot */
		const char *dot = strrchr(path, '.');
		if (dot) {
			snprintf(pre, sizeof(pre), "%.*s", (int)(dot - path), path);
			s = suggest(pre, dot + 1);
		}
	}
	if (!s || strlen(path) >= 299 || (pl && (strncmp(s, prefix, pl) != 0 || s[pl] != '.'))) {
		dc_cfg_errorf(l, -1, "'%.200s': unknown key (a member name is one name, never a dotted path)", path);
		return;
	}
	mark_suggested(l, s);
	rel = s + (pl ? pl + 1 : 0);
	nested[0] = '\0';
	for (p = rel; n < sizeof(nested);) {
		const char *dot = strchr(p, '.');
		if (!dot) {
			n += (size_t)snprintf(nested + n, sizeof(nested) - n, "\"%s\": ...", p);
			break;
		}
		n += (size_t)snprintf(nested + n, sizeof(nested) - n, "\"%.*s\": {", (int)(dot - p), p);
		depth++;
		p = dot + 1;
	}
	while (depth-- && n + 1 < sizeof(nested)) {
		nested[n++] = '}';
		nested[n] = '\0';
	}
	dc_cfg_errorf(l, -1, "'%.200s': unknown key (a member name is one name, never a dotted path); did you mean %s?",
	       path, nested);
}

/* "'PATH': duplicate key" for the nth copy (from 0) of the key `path`
 * in the file, at its line:column with the first copy's, where the text
 * shows them (a key --set made is not in it); not looked for once the
 * errors are past those printed. */
static void duplicate(struct loader *l, int ki, const char *path, size_t nth)
{
	size_t first, at, line, col, ls;
	if (l->errors >= MAX_ERRORS || !l->buf || dc_cfg_key_pos(l->buf, l->len, path, nth, &at) != 0) {
		dc_cfg_errorf(l, ki, "'%s': duplicate key", path);
	} else if (nth > 0 && dc_cfg_key_pos(l->buf, l->len, path, 0, &first) == 0) {
		dc_cfg_line_col(l->buf, l->len, first, &line, &col, &ls);
		dc_cfg_errorf_at(l, at, "'%s': duplicate key (first at %zu:%zu)", path, line, col);
	} else {
		dc_cfg_errorf_at(l, at, "'%s': duplicate key", path);
	}
}

/* Walks one JSON object that is the section `prefix` ("" for the root). */
/* "prefix.name" ("name" under the top level) into path[size], cut at
 * size - 1 bytes as snprintf would cut it; without printf, as the walk
 * does it for every key of every load. */
static void join_path(char *path, size_t size, const char *prefix, const char *name)
{
	size_t n = 0;
	for (const char *s = prefix; *s && n + 1 < size; s++)
		path[n++] = *s;
	if (*prefix && n + 1 < size)
		path[n++] = '.';
	for (const char *s = name; *s && n + 1 < size; s++)
		path[n++] = *s;
	path[n] = '\0';
}

void dc_cfg_walk(struct loader *l, const cJSON *obj, const char *prefix)
{
	char path[300];
	for (const cJSON *c = obj->child; c; c = c->next) {
		const char *name = c->string ? c->string : "";
		int ki;

		join_path(path, sizeof(path), prefix, name);
		if (strchr(name, '.')) {
			unknown_dotted(l, path, prefix);
			continue;
		}
		ki = dc_cfg_find_key(path);
		if (ki < 0 || strlen(path) >= sizeof(path) - 1) {
			const char *s = suggest(prefix, name);
			if (s) {
				dc_cfg_errorf(l, -1, "'%.200s': unknown key; did you mean '%s'?", path, s);
				mark_suggested(l, s);
			}
			else
				dc_cfg_errorf(l, -1, "'%.200s': unknown key", path);
			continue;
		}
		/* a path lives in one object (a repeated section is itself a
		 * duplicate and is not walked), so a path seen before is a
		 * duplicate key; O(1), where comparing siblings is O(n^2) */
		if (l->seen[ki]) {
			size_t nth = 0;
			/* which copy this is: counted only for the errors
			 * that are printed, so a flood stays linear */
			if (l->errors < MAX_ERRORS)
				for (const cJSON *s = obj->child; s != c; s = s->next)
					nth += s->string && strcmp(s->string, name) == 0;
			duplicate(l, ki, path, nth);
			continue;
		}
		l->seen[ki] = 1;
		if (dc_cfg_keys[ki].kind == K_SECTION) {
			if (!cJSON_IsObject(c))
				dc_cfg_errorf(l, ki, "'%s': expected an object, got %s", path, dc_cfg_type_name(c));
			else {
				dc_cfg_walk(l, c, path);
				l->walked[ki] = 1;
			}
		} else {
			size_t before = l->errors;
			read_value(l, ki, c);
			l->refused[ki] = l->errors != before;
		}
	}
}

/* ---- --set ---- */

const char *dc_config_key_suggest(const char *path)
{
	const char *dot = strrchr(path, '.');
	char prefix[300] = "";
	if (dot)
		snprintf(prefix, sizeof(prefix), "%.*s", (int)(dot - path), path);
	return suggest(prefix, dot ? dot + 1 : path);
}

/* Applies "PATH=VALUE" to the tree; returns the key index or -1. */
/* An unknown key named by --set or --unset: recorded, with a suggestion. */
static void unknown_override(struct loader *l, const char *opt, const char *path)
{
	const char *dot = strrchr(path, '.');
	char prefix[300] = "";
	const char *s;
	size_t tl;
	const char *t = dc_text_trim(path, strlen(path), &tl);
	if (dot)
		snprintf(prefix, sizeof(prefix), "%.*s", (int)(dot - path), path);
	s = suggest(prefix, dot ? dot + 1 : path);
	/* a key with blanks around it: the key without them (a path keeps
	 * its blanks, as a key in the file does; a trial's ' parallel.sharding '
	 * drew no suggestion) */
	if (tl != strlen(path) && tl > 0 && tl < sizeof(prefix)) {
		snprintf(prefix, sizeof(prefix), "%.*s", (int)tl, t);
		if (dc_cfg_find_key(prefix) >= 0 && dc_cfg_keys[dc_cfg_find_key(prefix)].kind != K_SECTION)
			s = dc_cfg_keys[dc_cfg_find_key(prefix)].info.path;
	}
	l->errors++;
	if (s) {
		dc_diag_add_key(l->diag, DC_SEV_ERROR, DC_ERR_CONFIG, path, "%s: error: '%s': unknown key; did you mean '%s'?",
				opt, path, s);
		mark_suggested(l, s);
	} else {
		dc_diag_add_key(l->diag, DC_SEV_ERROR, DC_ERR_CONFIG, path, "%s: error: '%s': unknown key", opt, path);
	}
}

int dc_cfg_apply_unset(struct loader *l, cJSON *root, const char *path)
{
	cJSON *obj = root;
	const char *p = path;
	const char *dot;
	char part[300];
	int ki;

	if (strlen(path) >= sizeof(part)) {
		dc_diag_error(l->diag, DC_ERR_USAGE, "--unset: error: path is too long");
		return -1;
	}
	ki = dc_cfg_find_key(path);
	if (ki < 0) {
		unknown_override(l, "--unset", path);
		return -1;
	}
	while ((dot = strchr(p, '.')) != NULL) {
		snprintf(part, sizeof(part), "%.*s", (int)(dot - p), p);
		obj = cJSON_GetObjectItemCaseSensitive(obj, part);
		if (!obj || !cJSON_IsObject(obj))
			break;
		p = dot + 1;
	}
	if (dot || !cJSON_GetObjectItemCaseSensitive(obj, p)) {
		dc_diag_add_key(l->diag, DC_SEV_WARNING, DC_OK, path,
				"--unset: '%s': the config does not give it (nor an earlier --set); nothing to remove", path);
		return ki;
	}
	/* every copy: a key the file holds twice is reported by neither */
	while (cJSON_GetObjectItemCaseSensitive(obj, p))
		cJSON_DeleteItemFromObjectCaseSensitive(obj, p);
	return ki;
}

int dc_cfg_apply_override(struct loader *l, cJSON *root, const char *text)
{
	const char *eq = strchr(text, '=');
	char path[300];
	cJSON *val, *obj = root;
	int ki;

	if (!eq || eq == text) {
		dc_diag_error(l->diag, DC_ERR_USAGE, "--set: error: '%s': expected PATH=VALUE, like model.hidden_size=4096", text);
		return -1;
	}
	if ((size_t)(eq - text) >= sizeof(path)) {
		dc_diag_error(l->diag, DC_ERR_USAGE, "--set: error: path is too long");
		return -1;
	}
	memcpy(path, text, (size_t)(eq - text));
	path[eq - text] = '\0';
	ki = dc_cfg_find_key(path);
	if (ki < 0) {
		unknown_override(l, "--set", path);
		return -1;
	}
	if (dc_cfg_keys[ki].kind == K_SECTION) {
		l->errors++;
		dc_diag_add_key(l->diag, DC_SEV_ERROR, DC_ERR_CONFIG, path,
				"--set: error: '%s': is a section; set one of its keys", path);
		return -1;
	}
	/* the value: a strict JSON scalar (number, true, false, null, "string"),
	 * or an array for a list key, is read as JSON; anything else
	 * ("80 GiB", "+1", "[1]" for a scalar key) is a string */
	{
		const char *vs = eq + 1;
		struct scan sc;
		val = NULL;
		char lead = vs[strspn(vs, " \t\r\n")];
		/* a list key takes a JSON array: --set 'parallel.pipeline_layers=[4,4,3]' */
		if (dc_cfg_scan_text(&sc, vs, strlen(vs)) == 0 && lead != '{' && (lead != '[' || dc_cfg_keys[ki].kind == K_LIST || dc_cfg_keys[ki].kind == K_VALUES ||
										  dc_cfg_keys[ki].kind == K_CHOICES || dc_cfg_keys[ki].kind == K_BOOLS ||
										  dc_cfg_keys[ki].kind == K_RAMP)) {
			val = cJSON_Parse(vs);
			if (!val)
				return -2; /* it scanned, so only an allocation fails */
		}
		if (!val) {
			/* a plain string without its leading and trailing
			 * blanks, as --sweep takes its values ('80 GiB ' was
			 * "unknown size unit 'GiB '": a student trial) */
			const char *t = vs + strspn(vs, " \t\r\n");
			size_t tl = strlen(t);
			char *trimmed;
			while (tl > 0 && strchr(" \t\r\n", t[tl - 1]))
				tl--;
			trimmed = dc_strndup(t, tl);
			if (!trimmed)
				return -2;
			val = cJSON_CreateString(trimmed);
			free(trimmed);
		}
		if (!val)
			return -2;
	}
	/* create the sections along the path */
	{
		char part[300];
		const char *p = path;
		const char *dot;
		while ((dot = strchr(p, '.')) != NULL) {
			cJSON *next;
			snprintf(part, sizeof(part), "%.*s", (int)(dot - p), p);
			next = cJSON_GetObjectItemCaseSensitive(obj, part);
			if (!next) {
				next = cJSON_CreateObject();
				if (!next || !cJSON_AddItemToObject(obj, part, next)) {
					cJSON_Delete(next);
					cJSON_Delete(val);
					return -2;
				}
			} else if (!cJSON_IsObject(next)) {
				/* the file has a wrong type here; it is reported by the walk */
				cJSON_Delete(val);
				return ki;
			}
			obj = next;
			p = dot + 1;
		}
		/* a key the file holds twice is the file's error, whatever --set
		 * gives; then drop every copy and add the new value */
		{
			size_t copies = 0;
			for (const cJSON *c = obj->child; c; c = c->next)
				copies += c->string && strcmp(c->string, p) == 0;
			if (copies > 1)
				duplicate(l, -1, path, 1);
		}
		while (cJSON_GetObjectItemCaseSensitive(obj, p))
			cJSON_DeleteItemFromObjectCaseSensitive(obj, p);
		if (!cJSON_AddItemToObject(obj, p, val)) {
			cJSON_Delete(val);
			return -2;
		}
	}
	return ki;
}

