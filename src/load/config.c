/* config.c - JSON config loader and validator; see config.h.
 *
 * The only module besides the JSON reporter that sees cJSON. Every key is a
 * row of one table: its path, kind, bounds, default, unit, one-line doc and
 * where it lands in struct dc_config. The file walk, --set, the unknown-key
 * suggestions, the range checks, the defaults and docs/config.md's reference
 * tables (tests/check_config_doc.c) all follow that one list.
 */
#define _POSIX_C_SOURCE 200809L

#include "distcalc/config.h"

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

enum kkind {
	K_SECTION,   /* a JSON object holding more keys */
	K_COUNT,     /* integer >= 1 */
	K_UINT,      /* integer >= 0 */
	K_BYTES,     /* byte quantity >= 0 */
	K_BYTES_POS, /* byte quantity >= 1 */
	K_BW,        /* bandwidth in [lo, hi) */
	K_TIME,      /* time in [lo, hi) */
	K_BOOL,
	K_ENUM,      /* string from info.choices[] stored as int */
	K_GPU,       /* cluster.gpu: an enum stored as 1 + its index (0: no preset) */
	K_ORDER,     /* parallel.order */
	K_FRACTION,  /* number in [0, 1) */
	K_REAL,      /* number >= 0 */
	K_STRING,    /* free text (descriptions) */
	K_LIST,      /* a JSON array of counts >= 1 (parallel.pipeline_layers) */
	K_VALUES,    /* a JSON array of counts >= 1 into struct dc_search_values (search.space) */
	K_CHOICES,   /* a JSON array of info.choices[] strings into a uint32_t mask */
	K_BOOLS,     /* a JSON array of true / false into a uint32_t mask (bit 0 false, bit 1 true) */
};

/* One key. `info` is what dc_config_key_at() shows; the rest is how the
 * loader reads the value. lo and hi are the bounds info.bounds words, for
 * the numeric kinds: a value is at least lo (above it when lo_open) and
 * below hi. */
struct key {
	struct dc_config_key_info info;
	enum kkind kind;
	size_t off;    /* where the value lands in struct dc_config; NOFF: nowhere */
	double lo, hi;
	int lo_open;
	double def;    /* the value info.default_text writes, when that is a literal */
};

static const char *const mlp_names[] = {"swiglu", "gelu", NULL};
static const char *const norm_names[] = {"rmsnorm", "layernorm", NULL};
static const char *const sharding_names[] = {"none", "zero1", "zero2", "fsdp", NULL};
static const char *const ep_overlap_names[] = {"none", "a2a_1f1b", "dualpipe", NULL};
/* enum dc_pipe_schedule order */
static const char *const pipe_schedule_names[] = {"1f1b", "interleaved", "dualpipe", "dualpipev", "zero_bubble", NULL};
static const char *const fsdp_unit_names[] = {"layer", "model", NULL};
static const char *const offload_names[] = {"none", "optimizer", "optimizer+params", NULL};
static const char *const recompute_names[] = {"none", "selective", "full", "op", NULL};
static const char *const attention_names[] = {"flash", "eager", NULL};
static const char *const preset_names[] = {"course", "megatron", "fsdp2", "deepseek_v3", NULL};
static const char *const link_names[] = {"auto", "intra_node", "inter_node", NULL};
static const char *const axis_names[] = {"tp", "cp", "ep", "dp", "pp", NULL};
static const char *const collective_op_names[] = {"all_reduce", "all_gather", "reduce_scatter", "all_to_all",
						  "broadcast", "send_recv", NULL};
/* enum dc_system, enum dc_nic_path and enum dc_net_algo order */
static const char *const system_names[] = {"custom", "dgx-a100", "dgx-h100", "dgx-h200", NULL};
static const char *const nic_path_names[] = {"pix", "pxb", "phb", "sys", NULL};
static const char *const algorithm_names[] = {"auto", "ring", "hierarchical", "tree", "nvls", NULL};
/* in enum dc_gpu's order after DC_GPU_NONE */
static const char *const gpu_names[] = {"a100-sxm4-80gb", "h100-sxm5-80gb", "h200-sxm-141gb", NULL};
static const char *const compute_precision_names[] = {"bf16", "fp8", NULL};
static const char *const cp_comm_names[] = {"p2p", "all_gather", "a2a", NULL};
static const char *const slow_scope_names[] = {"node", "all", NULL};
static const char *const ckpt_format_names[] = {"sharded", "full", NULL};
static const char *const loss_mode_names[] = {"padding", "packing", NULL};
static const char *const objective_names[] = {"tokens_per_s", "memory", NULL};

#define OFF(field) offsetof(struct dc_config, field)
#define NOFF ((size_t)-1)
#define MiB (1024.0 * 1024.0)
#define OPT DC_KEY_OPTIONAL
#define REQ DC_KEY_REQUIRED
#define REQ_HF DC_KEY_REQUIRED_UNLESS_HF
#define REQ_SYS DC_KEY_REQUIRED_UNLESS_SYSTEM
#define REQ_GPU DC_KEY_REQUIRED_UNLESS_GPU

/* One macro per kind, so a kind's name, bounds and checks cannot disagree.
 * `def, text`: the default's value and what a user writes for it (or 0 and
 * "derived: ..."); `unit`: what a plain number means. */
#define ROW(path, kname, unit, text, bounds, doc, choices, need, kind, off, lo, hi, lo_open, def) \
	{{path, kname, unit, text, bounds, doc, choices, need}, kind, off, lo, hi, lo_open, def}
#define SECTION(path, need, doc) ROW(path, "section", "", "", "", doc, NULL, need, K_SECTION, NOFF, 0, 0, 0, 0)
/* every string value, of any kind, is at most DC_CONFIG_MAX_STRING bytes (read_value) */
#define STRING(path, doc) ROW(path, "string", "", "", "≤ 256 bytes", doc, NULL, OPT, K_STRING, NOFF, 0, 0, 0, 0)
#define COUNT(path, field, need, def, text, unit, doc) \
	ROW(path, "count", unit, text, "≥ 1", doc, NULL, need, K_COUNT, OFF(field), 1, DC_MAX_EXACT_INT, 0, def)
#define UINT(path, field, def, text, unit, doc) \
	ROW(path, "integer", unit, text, "≥ 0", doc, NULL, OPT, K_UINT, OFF(field), 0, DC_MAX_EXACT_INT, 0, def)
#define BYTES(path, field, def, text, doc) \
	ROW(path, "bytes", "bytes", text, "≥ 0", doc, NULL, OPT, K_BYTES, OFF(field), 0, DC_MAX_EXACT_INT, 0, def)
#define BYTES_POS(path, field, need, def, text, doc)                                                   \
	ROW(path, "bytes", "bytes", text, "≥ 1", doc, NULL, need, K_BYTES_POS, OFF(field), 1, DC_MAX_EXACT_INT, \
	    0, def)
/* A bandwidth of at least 1 B/s and below 10^18 B/s (1 EB/s), a time
 * below an hour: every time a result holds is then a finite multiple of
 * bytes / bandwidth + latency, and every rate a finite ratio (the runner
 * checks each number is finite, experiment.c) */
#define BW(path, field, need, doc)                                                                      \
	ROW(path, "bandwidth", "bytes/s", "", "≥ 1 and < 10^18", doc, NULL, need, K_BW, OFF(field), 1, 1e18, 0, \
	    0)
#define TIME(path, field, def, text, doc) \
	ROW(path, "time", "s", text, "≥ 0 and < 3600", doc, NULL, OPT, K_TIME, OFF(field), 0, 3600, 0, def)
#define BOOL(path, field, def, text, doc) \
	ROW(path, "boolean", "", text, "", doc, NULL, OPT, K_BOOL, OFF(field), 0, 0, 0, def)
#define ENUM(path, field, names, def, text, doc) \
	ROW(path, "enum", "", text, "", doc, names, OPT, K_ENUM, OFF(field), 0, 0, 0, def)
#define ORDER(path, text, doc) ROW(path, "string", "", text, "", doc, NULL, OPT, K_ORDER, NOFF, 0, 0, 0, 0)
#define FRACTION(path, field, def, text, doc) \
	ROW(path, "fraction", "", text, "[0, 1)", doc, NULL, OPT, K_FRACTION, OFF(field), 0, 1, 0, def)
#define LIST(path, doc)                                                                                 \
	ROW(path, "list", "", "", "each ≥ 1, at most 256", doc, NULL, OPT, K_LIST, NOFF, 1, DC_MAX_EXACT_INT, 0, 0)
/* search.space: lists that restrict one dimension of the layout search */
#define VALUES(path, field, doc)                                                                            \
	ROW(path, "list", "", "", "each ≥ 1, at most 32", doc, NULL, OPT, K_VALUES, OFF(field), 1, DC_MAX_EXACT_INT, \
	    0, 0)
#define CHOICES(path, field, names, bounds, doc) \
	ROW(path, "list", "", "", bounds, doc, NULL, OPT, K_CHOICES, OFF(field), 0, 0, 0, 0)
#define BOOLS(path, field, doc) \
	ROW(path, "list", "", "", "true, false", doc, NULL, OPT, K_BOOLS, OFF(field), 0, 0, 0, 0)
#define REAL(path, field, def, text, unit, doc) \
	ROW(path, "number", unit, text, "≥ 0", doc, NULL, OPT, K_REAL, OFF(field), 0, INFINITY, 0, def)
/* A GPU speed the cluster.gpu preset fills unless given: at least 1 and
 * below 10^18 per second, as a link's bandwidth, so every kernel time is a
 * finite multiple of FLOPs / peak + bytes / bandwidth */
#define PRESET_BW(path, field, doc)                                                                          \
	ROW(path, "bandwidth", "bytes/s", "derived: the cluster.gpu preset", "≥ 1 and < 10^18", doc, NULL, OPT, \
	    K_BW, OFF(field), 1, 1e18, 0, 0)
#define PRESET_FLOPS(path, field, doc)                                                                          \
	ROW(path, "number", "FLOP/s", "derived: the cluster.gpu preset", "≥ 1 and < 10^18", doc, NULL, OPT, K_REAL, \
	    OFF(field), 1, 1e18, 0, 0)

/* Table order is docs/config.md's order, and the unknown-key suggestions
 * prefer the earlier of two keys as close as each other. */
static const struct key keys[] = {
	STRING("description", "free text; JSON has no comments"),
	SECTION("model", REQ_HF, "the model's shape, here or from a Hugging Face config"),
	STRING("model.hf_config",
	       "a Hugging Face config.json, relative to this file's directory (from `--set`: to the current one)"),
	COUNT("model.num_layers", model.num_layers, REQ_HF, 0, "", "", "transformer layers L"),
	COUNT("model.hidden_size", model.hidden_size, REQ_HF, 0, "", "", "h"),
	COUNT("model.num_attention_heads", model.num_attention_heads, REQ_HF, 0, "", "", "a"),
	COUNT("model.num_kv_heads", model.num_kv_heads, OPT, 0, "derived: num_attention_heads", "",
	      "KV heads (GQA/MQA); must divide a"),
	COUNT("model.head_dim", model.head_dim, OPT, 0, "derived: hidden_size / num_attention_heads", "",
	      "per-head dimension d; without it a must divide h (MLA: qk_nope_head_dim + qk_rope_head_dim)"),
	COUNT("model.ffn_hidden_size", model.ffn_hidden_size, OPT, 0, "derived: 4 × hidden_size", "",
	      "MLP inner size f"),
	COUNT("model.vocab_size", model.vocab_size, REQ_HF, 0, "", "", "V"),
	COUNT("model.seq_length", model.seq_length, REQ, 0, "", "",
	      "tokens per sample s; required even with a Hugging Face config"),
	ENUM("model.mlp", model.mlp, mlp_names, DC_MLP_SWIGLU, "\"swiglu\"", "3 or 2 h×f matrices per layer"),
	BOOL("model.tie_word_embeddings", model.tie_word_embeddings, 0, "false", "output head shares the embedding"),
	COUNT("model.params", model.params, OPT, 0, "derived: from the shape", "",
	      "explicit parameter count; when present it drives the model-state ledger (docs/formulas.md, \"Parameter count\")"),
	ENUM("model.norm", model.norm, norm_names, DC_NORM_RMSNORM, "\"rmsnorm\"",
	     "h or 2h (weight and bias) parameters per norm"),
	BOOL("model.qkv_bias", model.qkv_bias, 0, "false", "biases on q, k and v (Qwen2, GPT-2)"),
	BOOL("model.out_bias", model.out_bias, 0, "false", "bias on the attention output projection (GPT-2)"),
	BOOL("model.mlp_bias", model.mlp_bias, 0, "false", "biases on the MLP projections (GPT-2)"),
	BOOL("model.qk_norm", model.qk_norm, 0, "false", "an RMSNorm of head_dim on q and on k per layer (Qwen3)"),
	BOOL("model.dropout", model.dropout, 0, "false",
	     "dropout on the attention probabilities and after attention and the MLP (GPT-2, Megatron 2022); a Hugging Face config's dropout rates set it when one is above 0"),
	UINT("model.position_embeddings", model.position_embeddings, 0, "0", "",
	     "rows of a learned position table (GPT-2's n_positions); 0 for RoPE"),
	UINT("model.num_experts", model.num_experts, 0, "0", "", "routed experts per MoE layer E; 0: a dense model"),
	COUNT("model.experts_per_token", model.experts_per_token, OPT, 0, "", "",
	      "top-k; required with `num_experts`, at most E"),
	COUNT("model.moe_ffn_hidden_size", model.moe_ffn_hidden_size, OPT, 0, "derived: ffn_hidden_size", "",
	      "one routed expert's inner size"),
	UINT("model.shared_expert_ffn_hidden_size", model.shared_expert_ffn_hidden_size, 0, "0", "",
	     "the shared experts' inner size, together (DeepSeek: n_shared × moe size); 0: none"),
	BOOL("model.shared_expert_gate", model.shared_expert_gate, 0, "false",
	     "a sigmoid gate h → 1 on the shared expert (Qwen2-MoE)"),
	BOOL("model.router_bias", model.router_bias, 0, "false", "a per-expert score bias in the router (DeepSeek-V3)"),
	UINT("model.dense_layers", model.dense_layers, 0, "0", "",
	     "the first layers keep a dense MLP of ffn_hidden_size (DeepSeek first_k_dense_replace); below num_layers"),
	UINT("model.q_lora_rank", model.q_lora_rank, 0, "0", "",
	     "MLA query compression rank; 0: one h × a(nope + rope) projection"),
	UINT("model.kv_lora_rank", model.kv_lora_rank, 0, "0", "", "MLA key/value compression rank; 0: standard attention"),
	COUNT("model.qk_rope_head_dim", model.qk_rope_head_dim, OPT, 0, "", "",
	      "MLA: the rotary part of a query/key head; required with `kv_lora_rank`"),
	COUNT("model.qk_nope_head_dim", model.qk_nope_head_dim, OPT, 0, "", "",
	      "MLA: the rest of a query/key head; required with `kv_lora_rank`"),
	COUNT("model.v_head_dim", model.v_head_dim, OPT, 0, "", "",
	      "MLA: a value head; required with `kv_lora_rank`"),
	SECTION("cluster", REQ, "the machines and their links"),
	ENUM("cluster.system", cluster.system, system_names, DC_SYSTEM_CUSTOM, "\"custom\"",
	     "a preset that fills every cluster key below the config leaves out from vendor data (docs/network-model.md, \"Systems\"); with one, the keys marked required are not"),
	COUNT("cluster.num_nodes", cluster.num_nodes, REQ, 0, "", "", "machines"),
	COUNT("cluster.gpus_per_node", cluster.gpus_per_node, REQ_SYS, 0, "", "", "GPUs (ranks) per machine"),
	BYTES_POS("cluster.gpu_memory", cluster.gpu_mem_bytes, REQ_GPU, 0, "derived: the cluster.gpu preset",
		  "memory of one GPU, e.g. `\"80 GiB\"`; required unless `gpu` (or `system`) names a preset"),
	ROW("cluster.gpu", "enum", "", "", "",
	    "a GPU preset: fills gpu_memory, peak_flops, peak_flops_fp8 and hbm_bandwidth unless they are given (vendor data sheets, docs/compute-model.md)",
	    gpu_names, OPT, K_GPU, OFF(cluster.gpu), 0, 0, 0, 0),
	PRESET_FLOPS("cluster.peak_flops", cluster.peak_flops,
		     "dense BF16/FP16 matmul peak of one GPU, e.g. `312e12`; kernel times need it (docs/compute-model.md)"),
	PRESET_FLOPS("cluster.peak_flops_fp8", cluster.peak_flops_fp8,
		     "dense FP8 matmul peak of one GPU; needed with `precision.compute` \"fp8\""),
	PRESET_BW("cluster.hbm_bandwidth", cluster.hbm_bandwidth,
		  "HBM bandwidth of one GPU, e.g. `\"2.039 TB/s\"`; kernel times need it"),
	/* below 1024: today's largest GPUs have under 200 SMs, and a count
	 * far above the real one would make a wave of any GEMM one tile */
	ROW("cluster.sm_count", "count", "", "derived: the cluster.gpu preset's (the A100's 108 without one)", "≥ 1 and < 1024",
	    "streaming multiprocessors of one GPU: a wave of GEMM tiles, one per SM (docs/compute-model.md, \"Waves of tiles\"); it sets the wave, not the peak",
	    NULL, OPT, K_COUNT, OFF(cluster.sm_count), 1, 1024, 0, 0),
	ROW("cluster.matmul_efficiency", "fraction", "", "derived: the cluster.gpu preset's (docs/compute-model.md)", "(0, 1)",
	    "sustained fraction of the matmul peak on a large GEMM of whole waves; give a measured one to replace the preset's",
	    NULL, OPT, K_REAL, OFF(cluster.matmul_efficiency), 0, 1, 1, 0),
	ROW("cluster.memory_efficiency", "fraction", "", "derived: the cluster.gpu preset's (docs/compute-model.md)", "(0, 1)",
	    "sustained fraction of `hbm_bandwidth` on a large element-wise kernel",
	    NULL, OPT, K_REAL, OFF(cluster.memory_efficiency), 0, 1, 1, 0),
	BYTES("cluster.host_memory", cluster.host_mem_bytes, 0, "0",
	      "CPU memory of one node, which offloaded states must fit (the memory section's host ledger); 0: not checked"),
	SECTION("cluster.intra_node", REQ_SYS, "the links between the GPUs of one node (NVLink domain)"),
	BW("cluster.intra_node.bandwidth", cluster.intra_node.bw_bytes_per_s, REQ_SYS,
	   "effective one-way bandwidth of one GPU into the NVLink/NVSwitch fabric (or PCIe)"),
	TIME("cluster.intra_node.latency", cluster.intra_node.latency_s, 0, "0",
	     "per-hop start-up α inside a node (the ring's Simple protocol; the other protocols scale it, docs/network-model.md)"),
	SECTION("cluster.inter_node", REQ_SYS, "the links between nodes"),
	BW("cluster.inter_node.bandwidth", cluster.inter_node.bw_bytes_per_s, REQ_SYS,
	   "effective one-way bandwidth of one NIC (InfiniBand, RoCE); GPU i of a node uses NIC i mod `nics_per_node`"),
	TIME("cluster.inter_node.latency", cluster.inter_node.latency_s, 0, "0",
	     "per-hop start-up α between nodes (the ring's Simple protocol)"),
	COUNT("cluster.nics_per_node", cluster.nics_per_node, OPT, 0, "derived: gpus_per_node", "",
	      "NICs per node for traffic between nodes; groups whose ranks share a NIC share its bandwidth"),
	COUNT("cluster.nvlink_domain", cluster.nvlink_domain, OPT, 0, "derived: gpus_per_node", "",
	      "GPUs that share one NVLink/NVSwitch fabric; a multiple of gpus_per_node (NVL72-style racks: 72)"),
	BOOL("cluster.nvls", cluster.nvls, 0, "false", "NVLink SHARP (NVSwitch reductions and multicast) is available"),
	ROW("cluster.oversubscription", "number", "", "1", "≥ 1",
	    "the fabric's oversubscription (leaf downlinks / uplinks): traffic between nodes under different leaf switches gets 1 / this of the NIC rate",
	    NULL, OPT, K_REAL, OFF(cluster.oversubscription), 1, INFINITY, 0, 1),
	UINT("cluster.nodes_per_leaf", cluster.nodes_per_leaf, 0, "0", "",
	     "nodes under one leaf switch; 0: every node under one (no oversubscribed hop)"),
	ENUM("cluster.nic_path", cluster.nic_path, nic_path_names, DC_NIC_PATH_PIX, "\"pix\"",
	     "the slowest GPU-to-NIC path, as `nvidia-smi topo -m` names it: one PCIe switch, several, the CPU's host bridge (no GPUDirect RDMA), across CPU sockets (docs/network-model.md)"),
	STRING("cluster.topology_file",
	       "`nvidia-smi topo -m` output of one node, relative to this file's directory (from `--set`: to the current one): sets nvlink_domain, nics_per_node and nic_path where the config leaves them out (docs/nccl-tools.md)"),
	SECTION("parallel", OPT, "the parallel layout"),
	COUNT("parallel.dp", parallel.dp, OPT, 0, "derived: world / (tp × cp × pp)", "",
	      "data-parallel replicas; dp·tp·cp·pp must equal the world size"),
	COUNT("parallel.tp", parallel.tp, OPT, 1, "1", "", "tensor-parallel size; must divide a and num_kv_heads"),
	COUNT("parallel.pp", parallel.pp, OPT, 1, "1", "",
	      "pipeline stages; must divide num_layers unless the stages are uneven (`pipeline_layers`, `first_stage_layers`, `last_stage_layers`, `account_for_*`)"),
	COUNT("parallel.cp", parallel.cp, OPT, 1, "1", "",
	      "context-parallel size: each replica's sequence split over cp ranks (Megatron-Core); 2·cp must divide seq_length (a2a: cp must divide seq_length and the heads per tp rank)"),
	ENUM("parallel.cp_comm_type", parallel.cp_comm_type, cp_comm_names, DC_CP_P2P, "\"p2p\"",
	     "how cp ranks exchange K/V (Megatron's `cp_comm_type`): ring of sends layer by layer, all-gathered, or AlltoAll to head shards (Ulysses)"),
	LIST("parallel.pipeline_layers",
	     "transformer layers on each pipeline stage, first to last: pp entries adding up to num_layers (`--set 'parallel.pipeline_layers=[4,4,3]'`); at most 16 runs of equal consecutive stages. With virtual_pipeline v > 1: pp entries, each a multiple of v (split evenly over the stage's chunks), or pp × v entries, one per model chunk in model order (Megatron-Core's `--pipeline-model-parallel-layout`; chunk c of stage s is entry c·pp + s), a stage's chunks equal but for the model's first and last, which may hold 0"),
	UINT("parallel.first_stage_layers", parallel.first_stage_layers, 0, "", "",
	     "layers on the first stage (Megatron's `--decoder-first-pipeline-num-layers`); the rest split evenly over the other stages"),
	UINT("parallel.last_stage_layers", parallel.last_stage_layers, 0, "", "",
	     "layers on the last stage (Megatron's `--decoder-last-pipeline-num-layers`)"),
	BOOL("parallel.account_for_embedding", parallel.account_for_embedding, 0, "false",
	     "count the input embedding as one layer of the first stage when splitting (Megatron's `--account-for-embedding-in-pipeline-split`)"),
	BOOL("parallel.account_for_loss", parallel.account_for_loss, 0, "false",
	     "count the output head and loss as one layer of the last stage when splitting (Megatron's `--account-for-loss-in-pipeline-split`)"),
	COUNT("parallel.ep", parallel.ep, OPT, 1, "1", "",
	      "expert-parallel size (Megatron-Core): must divide model.num_experts; each rank holds num_experts / ep experts of every MoE layer. Carved out of dp when it divides dp and etp = tp; otherwise folded (Megatron-Core's MoE parallel folding): ep × etp divides tp × dp × cp and the expert layers regroup a stage's ranks as etp × ep × expert-dp (needs pp as the slowest axis of `order`)"),
	COUNT("parallel.etp", parallel.etp, OPT, 0, "derived: parallel.tp (Megatron's default)", "",
	      "expert tensor parallel size (Megatron's `--expert-tensor-parallel-size`): each routed expert's ffn split over etp ranks; other than tp it folds the expert layout (see ep); with tp > 1 and etp ≠ tp it needs sequence_parallel, as Megatron does"),
	COUNT("parallel.dp_replicate", parallel.dp_replicate, OPT, 1, "1", "",
	      "HSDP: replicas of the sharded states (torchtitan's `data_parallel_replicate_degree`, Megatron's `--num-distributed-optimizer-instances`); dp = dp_replicate × shard, ZeRO/FSDP shard over the dp / dp_replicate ranks of a replica (× cp) and gradients all-reduce across the replicas; must divide dp (and dp / ep with expert parallelism) and needs sharding zero1, zero2 or fsdp when > 1"),
	ORDER("parallel.order", "\"tp-cp-ep-dp-pp\"",
	      "rank order, first axis varying fastest (Megatron-LM's rank generator); names tp, dp, pp once each, cp and ep optional, joined by `-`"),
	ENUM("parallel.sharding", parallel.sharding, sharding_names, DC_SHARD_NONE, "\"none\"",
	     "what is sharded over dp: nothing (DDP); master params + optimizer states; + gradients; + parameters"),
	ENUM("parallel.offload", parallel.offload, offload_names, DC_OFFLOAD_NONE, "\"none\"",
	     "CPU offload: optimizer (ZeRO-Offload: master copy, optimizer states and an FP32 gradient copy on the host, the step on the CPU); optimizer+params (also the parameter and gradient shards, as FSDP's CPUOffload; needs sharding fsdp)"),
	BOOL("parallel.reshard_after_forward", parallel.reshard_after_forward, 1, "true",
	     "FSDP frees gathered parameters after forward and gathers them again for backward"),
	BOOL("parallel.sequence_parallel", parallel.sequence_parallel, 0, "false",
	     "Megatron sequence parallelism: the norm and dropout activations are split over the tp group (Korthikanti et al. 2022 §4.2.2); needs tp > 1"),
	COUNT("parallel.virtual_pipeline", parallel.virtual_pipeline, OPT, 1, "1", "",
	      "model chunks per pipeline rank, v (interleaved 1F1B, Megatron-LM 2021 §2.2.2); v > 1 needs pp > 1, pp·v dividing num_layers and grad_accum_steps a multiple of pp"),
	ENUM("parallel.pipeline_schedule", parallel.pipeline_schedule, pipe_schedule_names, DC_PIPE_1F1B,
	     "derived: \"interleaved\" when virtual_pipeline > 1, else \"1f1b\"",
	     "the pipeline schedule (docs/step-model.md §3): 1f1b (PipeDream-Flush, v = 1), interleaved (Megatron-Core, v > 1), zero_bubble (Qi et al. 2023 ZB-H1: 1F1B with the weight-gradient GEMMs deferred into the bubble; pp > 1), dualpipe (DeepSeek-V3's bidirectional schedule: each rank holds stages s and pp - 1 - s; even pp, an even grad_accum_steps ≥ 2·pp, even stages), dualpipev (DualPipe cut in half: each rank holds chunks s and 2pp - 1 - s of L / 2pp layers; pp > 1, grad_accum_steps ≥ 2·pp, 2·pp dividing num_layers); all but interleaved need virtual_pipeline 1"),
	ENUM("parallel.fsdp_unit", parallel.fsdp_unit, fsdp_unit_names, DC_FSDP_UNIT_LAYER, "\"layer\"",
	     "FSDP AllGather granularity: one transformer layer, or the whole model in one group"),
	BYTES_POS("parallel.bucket_size", parallel.bucket_bytes, OPT, 25 * MiB, "\"25 MiB\"",
		  "DDP gradient bucket (PyTorch DDP's `bucket_cap_mb` default)"),
	SECTION("training", OPT, "the batch and activation recomputation"),
	COUNT("training.micro_batch_size", training.micro_batch_size, OPT, 1, "1", "", "samples per microbatch b"),
	COUNT("training.grad_accum_steps", training.grad_accum_steps, OPT, 1,
	      "1", "", "microbatches per optimizer step; derived from `global_batch_size` when that is given"),
	COUNT("training.global_batch_size", training.global_batch_size, OPT, 0,
	      "derived: micro_batch_size × dp × grad_accum_steps", "",
	      "samples per optimizer step; when given, grad_accum_steps = global_batch_size / (micro_batch_size × dp), so a `--set` of the micro batch or dp keeps the work"),
	ENUM("training.recompute", training.recompute, recompute_names, DC_RECOMPUTE_NONE, "\"none\"",
	     "activation recomputation: selective recomputes the attention core (Korthikanti et al. 2022 §5), full keeps only each layer's input, op is torch's per-op selective policy as torchtitan configures it (docs/formulas.md)"),
	UINT("training.recompute_layers", training.recompute_layers, 0, "0", "",
	     "with `recompute` full: only this many layers of each model chunk (the stage, when virtual_pipeline is 1) are recomputed, the rest keep everything (Megatron's --recompute-method block --recompute-num-layers); 0: every layer"),
	ENUM("training.attention", training.attention, attention_names, DC_ATTENTION_FLASH, "\"flash\"",
	     "flash: a fused kernel that never stores the attention scores, softmax or its dropout mask (only per-row softmax statistics); eager: QKᵀ, softmax and dropout stored as in Korthikanti et al. 2022"),
	COUNT("training.total_tokens", training.total_tokens, OPT, 0, "", "tokens",
	      "tokens to train on; adds `step.time_to_train_s` (docs/step-model.md)"),
	FRACTION("training.jitter", training.jitter, 0, "0",
		 "coefficient of variation of each rank's per-step compute time: `--experiment whatif` draws it (a normal, seeded by --seed) for its stragglers (docs/whatif.md)"),
	SECTION("whatif", OPT, "the scenarios of `--experiment whatif` (docs/whatif.md)"),
	SECTION("whatif.slow_network", OPT, "one node's NICs, or every link between nodes, slower"),
	UINT("whatif.slow_network.node", whatif.slow_node, 0, "0", "",
	     "the node whose NICs slow down; below cluster.num_nodes"),
	ENUM("whatif.slow_network.scope", whatif.slow_all_links, slow_scope_names, 0, "\"node\"",
	     "node: the NICs of `node`; all: every link between nodes"),
	ROW("whatif.slow_network.factor", "number", "", "0.5", "> 0 and ≤ 1",
	    "the share of their bandwidth the slowed links keep", NULL, OPT, K_REAL, OFF(whatif.slow_factor), 0,
	    INFINITY, 1, 0.5),
	SECTION("whatif.slow_data_rank", OPT, "one rank waits for its data every microbatch"),
	UINT("whatif.slow_data_rank.rank", whatif.data_rank, 0, "0", "", "the slow rank; below the world size"),
	TIME("whatif.slow_data_rank.delay", whatif.data_delay_s, 0.01, "\"10 ms\"",
	     "what the rank waits for its data before each microbatch's forward"),
	ROW("whatif.steps", "count", "", "1000", "≥ 1 and < 100000", "steps the straggler simulation draws", NULL,
	    OPT, K_COUNT, OFF(whatif.steps), 1, 100000, 0, 1000),
	ROW("whatif.expert_imbalance", "number", "", "1", "≥ 1 and ≤ num_experts / experts_per_token",
	    "the busiest expert's share of the routed tokens over the uniform share (1: balanced); its ranks' MoE layers and AlltoAlls grow with it",
	    NULL, OPT, K_REAL, OFF(whatif.expert_imbalance), 1, INFINITY, 0, 1),
	SECTION("overlap", OPT, "what the step model lets communication hide behind compute (docs/step-model.md)"),
	BOOL("overlap.dp", overlap.dp, 1, "true",
	     "DDP / ZeRO gradient buckets reduce while the backward produces them; only the tail is exposed"),
	BOOL("overlap.fsdp_prefetch", overlap.fsdp_prefetch, 1, "true",
	     "FSDP gathers the next unit's parameters while this one computes; reduce-scatters run behind the backward"),
	BOOL("overlap.tp", overlap.tp, 0, "false",
	     "TP collectives run behind the matmuls (tiled overlap); false puts them on the critical path"),
	ENUM("overlap.ep", overlap.ep, ep_overlap_names, DC_EP_OVERLAP_NONE, "\"none\"",
	     "the expert AlltoAlls: none waits for every dispatch and combine; a2a_1f1b runs one microbatch's dispatch and combine behind another's compute, forward paired with backward (Megatron-Core's combined 1F1B, `--overlap-moe-expert-parallel-comm`; needs ep > 1 and, with pp > 1, virtual_pipeline > 1, as Megatron does); dualpipe hides them behind the other chunk of DualPipe's overlapped forward-and-backward pairs (DeepSeek-V3 §3.2.1; needs ep > 1 and pipeline_schedule dualpipe or dualpipev)"),
	FRACTION("overlap.compute_slowdown", overlap.compute_slowdown, 0.075, "0.075",
		 "kernels slow by this fraction of the communication they overlap (NCCL's 8 channels of 108 A100 SMs; docs/step-model.md)"),
	SECTION("precision", OPT, "bytes per parameter of each model state"),
	ENUM("precision.preset", precision.preset, preset_names, DC_PRECISION_COURSE, "\"course\"",
	     "the bytes of each state (docs/formulas.md, \"Precision presets\"): course 2+2+4+8; megatron FP32 main grads 2+4+4+8; fsdp2 FP32 sharded params 4+4+0+8 with a BF16 working copy; deepseek_v3 BF16 Adam moments 2+4+4+4"),
	COUNT("precision.param_bytes", precision.param_bytes, OPT, 0, "derived: the preset (course 2)", "bytes/param",
	      "parameters as each rank stores them (fsdp2: the FP32 shard)"),
	COUNT("precision.grad_bytes", precision.grad_bytes, OPT, 0, "derived: the preset (course 2)", "bytes/param",
	      "gradients"),
	UINT("precision.master_bytes", precision.master_bytes, 0, "derived: the preset (course 4)", "bytes/param",
	     "FP32 master copy (0: none)"),
	UINT("precision.optimizer_bytes", precision.optimizer_bytes, 0, "derived: the preset (course 8)", "bytes/param",
	     "optimizer states (Adam: 2 × 4)"),
	COUNT("precision.working_bytes", precision.working_bytes, OPT, 0, "derived: the preset (fsdp2 2, else param_bytes)",
	      "bytes/param",
	      "the copy the layers compute with: FSDP's gathered unit, and the activations sent between ranks"),
	ENUM("precision.compute", precision.compute, compute_precision_names, DC_COMPUTE_BF16, "\"bf16\"",
	     "number format of the matmuls: their time uses cluster.peak_flops (bf16) or cluster.peak_flops_fp8 (fp8); the model-state bytes above are unchanged"),
	SECTION("collective", OPT, "the ring AllReduce lab, and the algorithm of every collective"),
	COUNT("collective.ranks", collective.ranks, OPT, 0, "derived: the world size", "",
	      "ring size p (global ranks 0..p−1); at most the world size"),
	BYTES_POS("collective.message_size", collective.msg_bytes, OPT, 0,
		  "derived: the gradient bytes of the rank holding the most parameters",
		  "M, the tensor each rank holds; by default the most loaded rank's tp and ep shard of the heaviest pipeline stage (embedding or head included) × grad_bytes"),
	ENUM("collective.link", collective.link, link_names, DC_LINK_AUTO, "\"auto\"",
	     "auto: intra_node when p ≤ gpus_per_node, else inter_node; forcing the link ranks 0..p−1 do not use warns"),
	ENUM("collective.op", collective.op, collective_op_names, DC_COLLECTIVE_ALL_REDUCE, "\"all_reduce\"",
	     "the collective `--experiment collectives` sweeps, as nccl-tests' `*_perf` binaries name them (docs/nccl-tools.md)"),
	BYTES_POS("collective.min_bytes", collective.min_bytes, OPT, 8, "\"8 B\"",
		  "the sweep's first size S, nccl-tests' `-b`"),
	BYTES_POS("collective.max_bytes", collective.max_bytes, OPT, 8.0 * 1024 * MiB, "\"8 GiB\"",
		  "the sweep's last size at most, nccl-tests' `-e`; at least min_bytes"),
	COUNT("collective.step_factor", collective.step_factor, OPT, 2, "2", "",
	      "each size is the one before × this, nccl-tests' `-f`; at least 2"),
	ENUM("collective.algorithm", collective.algorithm, algorithm_names, DC_NET_ALGO_AUTO, "\"auto\"",
	     "the algorithm of every collective the network model prices (not the ring lab): auto picks the fastest as NCCL's tuner does; a name forces it where it can run (docs/network-model.md)"),
	SECTION("memory", OPT, "named per-rank overheads of the memory ledger"),
	BYTES("memory.cuda_context", memory.cuda_context_bytes, 512 * MiB, "\"512 MiB\"",
	      "CUDA context and loaded kernels"),
	BYTES("memory.comm_buffers", memory.comm_buffer_bytes, 256 * MiB, "\"256 MiB\"",
	      "communication library (NCCL) buffers"),
	BYTES("memory.workspace", memory.workspace_bytes, 256 * MiB, "\"256 MiB\"",
	      "framework workspace (cuBLAS, temporary buffers)"),
	FRACTION("memory.allocator_reserve", memory.allocator_reserve, 0.05, "0.05",
		 "caching-allocator fragmentation and reserve, as a fraction of each phase's subtotal (rounded up to a byte)"),
	REAL("memory.activation_bytes_per_token_per_layer", memory.activation_bytes_per_token_per_layer, 0,
	     "derived: Korthikanti et al. 2022", "bytes",
	     "overrides the activation estimate: bytes one rank holds per token (of one microbatch) per layer, after its tp split"),
	SECTION("checkpoint", OPT, "saving and restoring the training state (`--experiment checkpoint`, docs/checkpoint-and-loss.md)"),
	ENUM("checkpoint.format", checkpoint.format, ckpt_format_names, DC_CKPT_SHARDED, "\"sharded\"",
	     "sharded: every rank writes its own shard (PyTorch DCP); full: one rank gathers the full state dict and writes it; the memory ledger's checkpoint_save phase follows it"),
	BOOL("checkpoint.async", checkpoint.async, 0, "false",
	     "stage a copy in host memory, then write it while training goes on (DCP async_save)"),
	ROW("checkpoint.storage_bandwidth", "bandwidth", "bytes/s", "\"10 GB/s\"", "≥ 1 and < 10^18",
	    "aggregate write bandwidth of the checkpoint storage, all writers together", NULL, OPT, K_BW,
	    OFF(checkpoint.storage_bw_bytes_per_s), 1, 1e18, 0, 10e9),
	ROW("checkpoint.staging_bandwidth", "bandwidth", "bytes/s", "\"25 GB/s\"", "≥ 1 and < 10^18",
	    "one GPU's device-to-host copy into pinned host memory (async staging; PCIe 4.0 x16 moves about 25 GB/s)",
	    NULL, OPT, K_BW, OFF(checkpoint.staging_bw_bytes_per_s), 1, 1e18, 0, 25e9),
	UINT("checkpoint.step", checkpoint.step, 1000, "1000", "",
	     "the optimizer step the checkpoint is saved at: samples consumed = step × global batch"),
	SECTION("checkpoint.restore", OPT, "the layout the checkpoint is restored into; each key not given keeps the saved one"),
	UINT("checkpoint.restore.tp", checkpoint.restore.tp, 0, "derived: parallel.tp", "", "tensor-parallel degree after restore; divides num_attention_heads"),
	UINT("checkpoint.restore.pp", checkpoint.restore.pp, 0, "derived: parallel.pp", "", "pipeline stages after restore (layers split evenly); at most num_layers"),
	UINT("checkpoint.restore.dp", checkpoint.restore.dp, 0, "derived: the new world / (tp × pp × cp)", "", "data-parallel degree after restore"),
	UINT("checkpoint.restore.cp", checkpoint.restore.cp, 0, "derived: parallel.cp", "", "context-parallel degree after restore; divides seq_length"),
	UINT("checkpoint.restore.ep", checkpoint.restore.ep, 0, "derived: parallel.ep", "", "expert-parallel degree after restore; ep × etp divides the new tp × dp × cp"),
	UINT("checkpoint.restore.num_nodes", checkpoint.restore.num_nodes, 0, "derived: cluster.num_nodes", "", "machines after restore"),
	UINT("checkpoint.restore.gpus_per_node", checkpoint.restore.gpus_per_node, 0, "derived: cluster.gpus_per_node", "", "GPUs per machine after restore"),
	SECTION("loss", OPT, "loss normalisation over ranks and microbatches (`--experiment loss`, docs/checkpoint-and-loss.md)"),
	SECTION("loss.tokens", OPT, "the valid tokens of a sample, drawn with the `--seed` SplitMix64"),
	ENUM("loss.tokens.mode", loss.mode, loss_mode_names, DC_LOSS_PADDING, "\"padding\"",
	     "padding: one document per sample, the rest padding; packing: documents back to back while the next fits, the tail padding"),
	COUNT("loss.tokens.min_length", loss.min_length, OPT, 1, "1", "", "a document's fewest tokens; at most max_length"),
	UINT("loss.tokens.max_length", loss.max_length, 0, "derived: model.seq_length", "",
	     "a document's most tokens (lengths uniform in [min_length, max_length]); at most seq_length"),
	REAL("loss.token_loss", loss.token_loss, 2.0, "2.0", "nats",
	     "mean per-token cross-entropy of the drawn model of per-token losses; above 0 and below 1000"),
	FRACTION("loss.token_loss_spread", loss.token_loss_spread, 0.5, "0.5",
		 "each sample's tokens share one loss, uniform in token_loss × [1 − spread, 1 + spread]"),
	SECTION("search", OPT, "`--experiment search`: every valid layout ranked (docs/search.md)"),
	BOOL("search.tp_across_nodes", search.tp_across_nodes, 0, "false",
	     "let tp span NVLink domains (by default tp stays within `cluster.nvlink_domain`)"),
	FRACTION("search.headroom", search.headroom, 0, "0",
		 "the fraction of gpu_memory a layout must leave free: it fits when its most loaded rank's peak is at most gpu_memory × (1 − headroom)"),
	ENUM("search.objective", search.objective, objective_names, DC_SEARCH_TOKENS_PER_S, "\"tokens_per_s\"",
	     "what ranks the layouts that fit: the most tokens per second (the shortest step), or the smallest peak memory"),
	ROW("search.top", "count", "", "10", "≥ 1 and ≤ 100", "layouts listed in `search.best`", NULL, OPT, K_COUNT,
	    OFF(search.top), 1, 101, 0, 10),
	SECTION("search.space", OPT, "lists that restrict the search's dimensions; a dimension left out takes every valid value"),
	VALUES("search.space.tp", search.tp, "tensor-parallel sizes to try"),
	VALUES("search.space.pp", search.pp, "pipeline stages to try (even splits)"),
	VALUES("search.space.dp", search.dp, "data-parallel replicas to allow (dp is what tp × cp × pp leaves of the world)"),
	VALUES("search.space.cp", search.cp, "context-parallel sizes to try"),
	VALUES("search.space.ep", search.ep, "expert-parallel sizes to try (a MoE model; dense models take 1)"),
	VALUES("search.space.virtual_pipeline", search.virtual_pipeline, "model chunks per pipeline rank to try"),
	VALUES("search.space.micro_batch_size", search.micro_batch_size,
	       "micro-batch sizes to try (grad_accum_steps follows from training.global_batch_size)"),
	CHOICES("search.space.sharding", search.sharding_mask, sharding_names, "of \"none\", \"zero1\", \"zero2\", \"fsdp\"",
		"shardings to try (default: all four)"),
	CHOICES("search.space.recompute", search.recompute_mask, recompute_names,
		"of \"none\", \"selective\", \"full\", \"op\"",
		"recompute policies to try (default: none, selective, full; `op` is torchtitan's per-op policy, tried when listed)"),
	BOOLS("search.space.sequence_parallel", search.sequence_parallel_mask,
	      "sequence_parallel values to try (default: both where tp > 1)"),
};

#define NKEYS (sizeof(keys) / sizeof(keys[0]))
#define MAX_ERRORS 50

enum key_index_hint { KI_NONE = -1 };

struct loader {
	const char *name;      /* file name for messages */
	const char *buf;       /* the text (for line/col) */
	size_t len;
	struct dc_config *cfg;
	struct dc_diag *diag;
	int seen[NKEYS];       /* key present (file or --set) */
	int from_set[NKEYS];   /* last value came from --set */
	int suggested[NKEYS];  /* an unknown key's suggestion: its "missing" would repeat it */
	int from_hf[NKEYS];    /* the value came from the Hugging Face config */
	int walked[NKEYS];     /* a section whose object was walked (not of a wrong type) */
	size_t errors;
	char got[96];          /* describe()'s text for the message being built */
	const char *dir;       /* the config file's directory; NULL: the current one */
	char hf_path[DC_CONFIG_MAX_STRING + 1]; /* model.hf_config as written */
	int hf_loaded;         /* the shape came from a Hugging Face config */
	char topo_path[DC_CONFIG_MAX_STRING + 1]; /* cluster.topology_file as written */
	const struct dc_load_opts *opts;
};

static int find_key(const char *path)
{
	for (size_t i = 0; i < NKEYS; i++)
		if (strcmp(keys[i].info.path, path) == 0)
			return (int)i;
	return -1;
}

static const char *origin(const struct loader *l, int ki)
{
	return ki >= 0 && l->from_set[ki] ? "--set" : l->name;
}

/* The one grammar of a loader message is "'PATH': problem": the path it
 * is about comes first, in quotes. Copies that path into `key` and returns
 * it, or NULL when `msg` does not start with one. */
static const char *subject(const char *msg, char *key, size_t len)
{
	const char *end;
	if (msg[0] != '\'' || !(end = strstr(msg + 1, "': ")) || (size_t)(end - msg - 1) >= len)
		return NULL;
	memcpy(key, msg + 1, (size_t)(end - msg - 1));
	key[end - msg - 1] = '\0';
	return key;
}

/* Records an error "ORIGIN: error: MSG" whose entry's key is the path MSG
 * starts with; `ki` (or -1) is the key whose value is blamed, for ORIGIN. */
static void errorf(struct loader *l, int ki, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void errorf(struct loader *l, int ki, const char *fmt, ...)
{
	char msg[512], key[512];
	va_list ap;

	l->errors++;
	if (l->errors > MAX_ERRORS) {
		if (l->errors == MAX_ERRORS + 1)
			dc_diag_error(l->diag, DC_ERR_CONFIG, "%s: error: too many errors; stopping after %d",
				      l->name, MAX_ERRORS);
		return;
	}
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	/* keys and strings from the file may hold escaped control characters:
	 * never send them to a terminal */
	for (char *p = msg; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			*p = '?';
	dc_diag_add_key(l->diag, DC_SEV_ERROR, DC_ERR_CONFIG, subject(msg, key, sizeof(key)), "%s: error: %s",
			origin(l, ki), msg);
}

static void warnf(struct loader *l, int ki, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* A value that is valid but probably not what was meant; as errorf. */
static void warnf(struct loader *l, int ki, const char *fmt, ...)
{
	char msg[512], key[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	dc_diag_add_key(l->diag, DC_SEV_WARNING, DC_OK, subject(msg, key, sizeof(key)), "%s: %s", origin(l, ki), msg);
}

/* ---- positions and syntax errors ---- */

static void line_col(const char *buf, size_t len, size_t pos, size_t *line, size_t *col,
		     size_t *line_start)
{
	size_t ln = 1, ls = 0;
	for (size_t i = 0; i < pos && i < len; i++)
		if (buf[i] == '\n') {
			ln++;
			ls = i + 1;
		}
	*line = ln;
	*col = pos - ls + 1;
	*line_start = ls;
}

static size_t utf8_len(const unsigned char *s, size_t n);

static void syntax_error(struct loader *l, size_t pos, const char *what)
{
	size_t line, col, ls, le;
	char shown[4 * 120 + 1];
	size_t n, caret;

	if (pos > l->len)
		pos = l->len;
	line_col(l->buf, l->len, pos, &line, &col, &ls);
	for (le = ls; le < l->len && l->buf[le] != '\n' && l->buf[le] != '\r'; le++)
		;
	/* show at most 120 characters of the line, keeping the caret in view */
	n = le - ls;
	caret = pos - ls;
	if (n > 120) {
		size_t start = caret > 60 ? caret - 60 : 0;
		if (start + 120 > n)
			start = n - 120;
		ls += start;
		caret -= start;
		n = 120;
	}
	/* the line as a terminal may show it: control characters as spaces,
	 * bytes that are not UTF-8 escaped as \xff (four columns); the caret
	 * counts columns, one per character */
	{
		size_t out = 0, cols = 0, caret_col = 0;
		const unsigned char *u = (const unsigned char *)l->buf + ls;
		for (size_t i = 0; i < n;) {
			size_t k = utf8_len(u + i, n - i);
			if (i <= caret)
				caret_col = cols;
			if (k == 0) {
				out += (size_t)snprintf(shown + out, sizeof(shown) - out, "\\x%02x", (unsigned)u[i]);
				cols += 4;
				i++;
				continue;
			}
			if (k == 1 && (u[i] < 0x20 || u[i] == 0x7f))
				shown[out++] = ' ';
			else
				memcpy(shown + out, u + i, k), out += k;
			cols++;
			i += k;
		}
		if (caret >= n)
			caret_col = cols + (caret - n);
		shown[out] = '\0';
		caret = caret_col;
	}
	l->errors++;
	dc_diag_error(l->diag, DC_ERR_CONFIG, "%s:%zu:%zu: error: %s\n%s\n%*s^", l->name, line, col,
		      what, shown, (int)caret, "");
}

static int is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* ---- strict syntax check ----
 *
 * cJSON is lenient (it takes "+1", "01", raw newlines in strings, invalid
 * UTF-8) and says only where it stopped, sometimes one byte late. So the
 * text is first checked against RFC 8259 here, which finds the first error's
 * exact place and names it; cJSON then parses only text that passed. */

#define JSON_MAX_DEPTH 64

struct scan {
	const char *s;
	size_t len, pos;
	size_t err_pos;
	char what[160];
	int failed;
};

static int scan_fail(struct scan *sc, size_t pos, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static int scan_fail(struct scan *sc, size_t pos, const char *fmt, ...)
{
	va_list ap;
	if (sc->failed)
		return -1;
	sc->failed = 1;
	sc->err_pos = pos;
	va_start(ap, fmt);
	vsnprintf(sc->what, sizeof(sc->what), fmt, ap);
	va_end(ap);
	return -1;
}

static void scan_ws(struct scan *sc)
{
	while (sc->pos < sc->len && is_space(sc->s[sc->pos]))
		sc->pos++;
}

/* Names the unexpected byte at sc->pos where a value (or `want`) should be. */
static int scan_unexpected(struct scan *sc, const char *want)
{
	size_t p = sc->pos;
	unsigned char c;

	if (p >= sc->len)
		return scan_fail(sc, p, "unexpected end of input: an object or array is not closed");
	c = (unsigned char)sc->s[p];
	if (c == '\'')
		return scan_fail(sc, p, "strings take double quotes, not single quotes");
	if (c == '/')
		return scan_fail(sc, p, "JSON has no comments; use a \"description\" key for notes");
	if (c < 0x20 || c == 0x7f)
		return scan_fail(sc, p, "%s, got control character 0x%02x", want, (unsigned)c);
	if (c >= 0x80)
		return scan_fail(sc, p, "%s, got byte 0x%02x", want, (unsigned)c);
	return scan_fail(sc, p, "%s, got '%c'", want, c);
}

static int is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static int scan_digits(struct scan *sc, const char *what)
{
	if (sc->pos >= sc->len || !is_digit(sc->s[sc->pos]))
		return scan_fail(sc, sc->pos, "expected a digit %s", what);
	while (sc->pos < sc->len && is_digit(sc->s[sc->pos]))
		sc->pos++;
	return 0;
}

static int scan_number(struct scan *sc)
{
	size_t start = sc->pos;
	if (sc->s[sc->pos] == '-')
		sc->pos++;
	if (sc->pos < sc->len && sc->s[sc->pos] == '0') {
		sc->pos++;
		if (sc->pos < sc->len && is_digit(sc->s[sc->pos]))
			return scan_fail(sc, start, "numbers must not have leading zeros");
	} else if (scan_digits(sc, sc->s[start] == '-' ? "after '-'" : "") != 0) {
		return -1;
	}
	if (sc->pos < sc->len && sc->s[sc->pos] == '.') {
		sc->pos++;
		if (scan_digits(sc, "after '.'") != 0)
			return -1;
	}
	if (sc->pos < sc->len && (sc->s[sc->pos] == 'e' || sc->s[sc->pos] == 'E')) {
		sc->pos++;
		if (sc->pos < sc->len && (sc->s[sc->pos] == '+' || sc->s[sc->pos] == '-'))
			sc->pos++;
		if (scan_digits(sc, "in the exponent") != 0)
			return -1;
	}
	return 0;
}

static int hex4(const char *p, unsigned *out)
{
	unsigned v = 0;
	for (int i = 0; i < 4; i++) {
		char c = p[i];
		v <<= 4;
		if (c >= '0' && c <= '9')
			v |= (unsigned)(c - '0');
		else if (c >= 'a' && c <= 'f')
			v |= (unsigned)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			v |= (unsigned)(c - 'A' + 10);
		else
			return -1;
	}
	*out = v;
	return 0;
}

/* Length of the valid UTF-8 sequence at s[0..n), or 0 (RFC 3629: no
 * overlongs, no surrogates, nothing above U+10FFFF). */
static size_t utf8_len(const unsigned char *s, size_t n)
{
	size_t len;
	unsigned cp;
	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		len = 2, cp = s[0] & 0x1fu;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		len = 3, cp = s[0] & 0x0fu;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		len = 4, cp = s[0] & 0x07u;
	else
		return 0;
	if (len > n)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3fu);
	}
	if ((len == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) ||
	    (len == 4 && (cp < 0x10000 || cp > 0x10ffff)))
		return 0;
	return len;
}

static int scan_string(struct scan *sc)
{
	size_t start = sc->pos;
	sc->pos++; /* the opening quote */
	while (sc->pos < sc->len) {
		unsigned char c = (unsigned char)sc->s[sc->pos];
		if (c == '"') {
			sc->pos++;
			return 0;
		}
		if (c == '\\') {
			unsigned u, lo;
			char e = sc->pos + 1 < sc->len ? sc->s[sc->pos + 1] : '\0';
			if (e && strchr("\"\\/bfnrt", e)) {
				sc->pos += 2;
				continue;
			}
			if (e != 'u')
				return scan_fail(sc, sc->pos, "invalid escape in a string: use \\\", \\\\, \\/, \\b, \\f, \\n, \\r, \\t or \\uXXXX");
			if (sc->pos + 6 > sc->len || hex4(sc->s + sc->pos + 2, &u) != 0)
				return scan_fail(sc, sc->pos, "expected 4 hex digits after \\u");
			if (u == 0)
				return scan_fail(sc, sc->pos, "\\u0000 is not allowed in a config string");
			if (u >= 0xdc00 && u <= 0xdfff)
				return scan_fail(sc, sc->pos, "\\u%04X is a lone low surrogate", u);
			if (u >= 0xd800 && u <= 0xdbff) {
				if (sc->pos + 12 > sc->len || sc->s[sc->pos + 6] != '\\' || sc->s[sc->pos + 7] != 'u' ||
				    hex4(sc->s + sc->pos + 8, &lo) != 0 || lo < 0xdc00 || lo > 0xdfff)
					return scan_fail(sc, sc->pos, "\\u%04X must be followed by a low surrogate \\uDC00..\\uDFFF", u);
				sc->pos += 6;
			}
			sc->pos += 6;
			continue;
		}
		if (c < 0x20)
			return scan_fail(sc, sc->pos, "control character 0x%02x in a string: write it as an escape such as \\n or \\t",
					 (unsigned)c);
		if (c >= 0x80) {
			size_t n = utf8_len((const unsigned char *)sc->s + sc->pos, sc->len - sc->pos);
			if (n == 0)
				return scan_fail(sc, sc->pos, "invalid UTF-8 byte 0x%02x in a string", (unsigned)c);
			sc->pos += n;
			continue;
		}
		sc->pos++;
	}
	return scan_fail(sc, start, "unexpected end of input: this string is not closed");
}

static int scan_value(struct scan *sc, int depth);

static int scan_container(struct scan *sc, int depth)
{
	int object = sc->s[sc->pos] == '{';
	char close = object ? '}' : ']';
	size_t open = sc->pos, comma = 0;
	int n = 0;

	if (depth >= JSON_MAX_DEPTH)
		return scan_fail(sc, sc->pos, "nesting is deeper than %d levels", JSON_MAX_DEPTH);
	sc->pos++;
	for (;;) {
		scan_ws(sc);
		if (sc->pos >= sc->len)
			return scan_fail(sc, open, "unexpected end of input: this %s is not closed",
					 object ? "object" : "array");
		if (sc->s[sc->pos] == close) {
			if (n > 0)
				return scan_fail(sc, comma, "trailing comma: JSON does not allow ',' before '%c'", close);
			sc->pos++;
			return 0;
		}
		if (object) {
			if (sc->s[sc->pos] != '"')
				return scan_unexpected(sc, n ? "expected a key in double quotes after ','"
							     : "expected a key in double quotes or '}'");
			if (scan_string(sc) != 0)
				return -1;
			scan_ws(sc);
			if (sc->pos >= sc->len || sc->s[sc->pos] != ':')
				return scan_unexpected(sc, "expected ':' after the key");
			sc->pos++;
			scan_ws(sc);
		}
		if (scan_value(sc, depth + 1) != 0)
			return -1;
		n++;
		scan_ws(sc);
		if (sc->pos >= sc->len)
			return scan_fail(sc, open, "unexpected end of input: this %s is not closed",
					 object ? "object" : "array");
		if (sc->s[sc->pos] == close) {
			sc->pos++;
			return 0;
		}
		if (sc->s[sc->pos] != ',') {
			if (object && sc->s[sc->pos] == '"')
				return scan_fail(sc, sc->pos, "expected ',' or '}' before this key");
			return scan_unexpected(sc, object ? "expected ',' or '}'" : "expected ',' or ']'");
		}
		comma = sc->pos++;
	}
}

/* Does the text at sc->pos start with `w`? */
static int scan_at(const struct scan *sc, const char *w)
{
	size_t n = strlen(w);
	return sc->pos + n <= sc->len && memcmp(sc->s + sc->pos, w, n) == 0;
}

static int scan_value(struct scan *sc, int depth)
{
	static const char *const literals[] = {"true", "false", "null"};
	char c;
	if (sc->pos >= sc->len)
		return scan_fail(sc, sc->pos, "unexpected end of input: expected a value");
	c = sc->s[sc->pos];
	if (c == '{' || c == '[')
		return scan_container(sc, depth);
	if (c == '"')
		return scan_string(sc);
	if (scan_at(sc, "NaN") || scan_at(sc, "Infinity") || scan_at(sc, "-Infinity"))
		return scan_fail(sc, sc->pos, "non-finite numbers are not allowed");
	if (c == '-' || is_digit(c))
		return scan_number(sc);
	for (size_t i = 0; i < sizeof(literals) / sizeof(literals[0]); i++)
		if (scan_at(sc, literals[i])) {
			sc->pos += strlen(literals[i]);
			return 0;
		}
	if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'))
		return scan_fail(sc, sc->pos, "expected a value: strings need double quotes");
	if (c == '+')
		return scan_fail(sc, sc->pos, "numbers must not start with '+'");
	if (c == '.')
		return scan_fail(sc, sc->pos, "numbers need a digit before '.'");
	return scan_unexpected(sc, "expected a value");
}

/* Checks `len` bytes as one JSON text. Returns 0, or -1 with the first
 * problem in sc. A UTF-8 byte-order mark at the start is skipped. */
static int scan_text(struct scan *sc, const char *s, size_t len)
{
	char first;

	memset(sc, 0, sizeof(*sc));
	sc->s = s;
	sc->len = len;
	if (len >= 3 && memcmp(s, "\xef\xbb\xbf", 3) == 0)
		sc->pos = 3;
	scan_ws(sc);
	first = sc->pos < len ? s[sc->pos] : '\0';
	if (scan_value(sc, 0) != 0)
		return -1;
	scan_ws(sc);
	if (sc->pos < sc->len)
		return scan_fail(sc, sc->pos, "trailing data after the JSON %s", first == '{' ? "object" : "value");
	return 0;
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

/* Is keys[i] a direct child of the section `prefix` ("" for top level)? */
static int is_child(size_t i, const char *prefix)
{
	size_t pl = strlen(prefix);
	const char *p = keys[i].info.path;
	if (pl == 0)
		return strchr(p, '.') == NULL;
	return strncmp(p, prefix, pl) == 0 && p[pl] == '.' && strchr(p + pl + 1, '.') == NULL;
}

/* The closest known key: first among the section's own keys, then any key
 * elsewhere whose last part matches exactly. Closeness ignores case first
 * ("Tp" is tp, not dp), then counts it to break ties. */
static const char *suggest(const char *prefix, const char *name)
{
	size_t best = 99, best_case = 99, bi = 0;
	for (size_t i = 0; i < NKEYS; i++) {
		if (!is_child(i, prefix))
			continue;
		size_t d = dc_edit_distance(name, strlen(name), last_part(keys[i].info.path), 1);
		size_t dc = edit_distance(name, last_part(keys[i].info.path));
		if (d < best || (d == best && dc < best_case)) {
			best = d;
			best_case = dc;
			bi = i;
		}
	}
	size_t nl = strlen(name);
	if (best <= 2 || (best <= 3 && nl > 6) || (nl > 0 && best * 3 <= nl))
		return keys[bi].info.path;
	for (size_t i = 0; i < NKEYS; i++)
		if (strcmp(last_part(keys[i].info.path), name) == 0)
			return keys[i].info.path;
	return NULL;
}

/* The choice closest to an unknown enum value, when it is close enough to
 * be a slip ("h100-sxm-80gb" for "h100-sxm5-80gb") or the unique choice it
 * begins ("H100"); else NULL. Case is ignored, as for keys. */
static const char *suggest_choice(const char *const *choices, const char *value)
{
	size_t best = 99, nl = strlen(value);
	const char *bc = NULL;
	for (size_t i = 0; choices[i]; i++) {
		size_t d = dc_edit_distance(value, nl, choices[i], 1);
		if (d < best) {
			best = d;
			bc = choices[i];
		}
	}
	if (bc && (best <= 2 || (nl > 0 && best * 3 <= nl)))
		return bc;
	/* a unique choice the value begins ("h100" for "h100-sxm5-80gb") */
	bc = NULL;
	for (size_t i = 0; nl >= 2 && choices[i]; i++)
		if (strncasecmp(choices[i], value, nl) == 0) {
			if (bc)
				return NULL;
			bc = choices[i];
		}
	return bc;
}

/* ---- values ---- */

static const char *type_name(const cJSON *v)
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

/* Shortest "%.*g" text that reads back to the same double, so a message
 * never shows 1.0000001 as "1". */
static void fmt_num(char *buf, size_t len, double v)
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
		fmt_num(l->got, sizeof(l->got), v->valuedouble);
	} else if (cJSON_IsBool(v)) {
		snprintf(l->got, sizeof(l->got), "%s", cJSON_IsTrue(v) ? "true" : "false");
	} else {
		snprintf(l->got, sizeof(l->got), "%s", type_name(v));
	}
	return l->got;
}

static void *field(struct loader *l, const struct key *k)
{
	return (char *)l->cfg + k->off;
}

static int check_number(struct loader *l, int ki, const cJSON *v, double *out)
{
	const struct key *k = &keys[ki];
	double d = v->valuedouble;
	if (!isfinite(d)) {
		errorf(l, ki, "'%s': must be a finite number, got a number too large for a double", k->info.path);
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
		fmt_num(buf, len, v);
}

/* A whole number in the row's bounds [lo, hi). */
static int read_integer(struct loader *l, int ki, const cJSON *v, uint64_t *out)
{
	const struct key *k = &keys[ki];
	double d;
	char num[40];
	if (!cJSON_IsNumber(v)) {
		errorf(l, ki, "'%s': expected an integer, got %s", k->info.path, describe(l, v));
		return -1;
	}
	if (check_number(l, ki, v, &d) != 0)
		return -1;
	if (d != floor(d)) {
		fmt_num(num, sizeof(num), d);
		errorf(l, ki, "'%s': must be a whole number, got %s", k->info.path, num);
		return -1;
	}
	if (d < k->lo) {
		if (k->lo > 0)
			errorf(l, ki, "'%s': must be at least %.0f, got %.0f", k->info.path, k->lo, d);
		else
			errorf(l, ki, "'%s': must be non-negative, got %.0f", k->info.path, d);
		return -1;
	}
	if (d >= k->hi) {
		/* the text may not be exactly d (2^53 + 1 reads as 2^53): say "about" */
		fmt_bound(num, sizeof(num), k->hi);
		errorf(l, ki, "'%s': must be below %s, got about %.6g", k->info.path, num, d);
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
			warnf(l, ki, "'%s': \"%s\" reads as %u x 10^9 bytes (%.1f GiB), but a card sold as %uGB holds %u GiB; if you meant that, write \"%u GiB\"",
			      keys[ki].info.path, text, marketed_gb[i], (double)bytes / 1073741824.0, marketed_gb[i],
			      marketed_gb[i], marketed_gb[i]);
			return;
		}
}

/* Bytes as a number or a string with a unit, at least the row's lo (the
 * units parser refuses strings above 2^53 bytes). */
static int read_bytes(struct loader *l, int ki, const cJSON *v, uint64_t *out)
{
	const struct key *k = &keys[ki];
	char err[256];
	if (cJSON_IsString(v)) {
		if (dc_units_parse_bytes(v->valuestring, out, err, sizeof(err)) != 0) {
			errorf(l, ki, "'%s': %s", k->info.path, err);
			return -1;
		}
		if ((double)*out < k->lo) {
			errorf(l, ki, "'%s': must be at least %.0f byte%s, got '%s'", k->info.path, k->lo,
			       k->lo == 1 ? "" : "s", v->valuestring);
			return -1;
		}
		if (strcmp(k->info.path, "cluster.gpu_memory") == 0)
			warn_decimal_gpu_memory(l, ki, v->valuestring, *out);
		return 0;
	}
	if (!cJSON_IsNumber(v)) {
		errorf(l, ki, "'%s': expected bytes as a number or a string like \"80 GiB\", got %s", k->info.path,
		       describe(l, v));
		return -1;
	}
	return read_integer(l, ki, v, out);
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
	const struct key *k = &keys[ki];
	char err[256];
	if (cJSON_IsString(v)) {
		int rc = q == DC_Q_BANDWIDTH ? dc_units_parse_bandwidth(v->valuestring, out, err, sizeof(err))
					     : dc_units_parse_time(v->valuestring, out, err, sizeof(err));
		if (rc != 0) {
			errorf(l, ki, "'%s': %s", k->info.path, err);
			return -1;
		}
	} else if (cJSON_IsNumber(v)) {
		if (check_number(l, ki, v, out) != 0)
			return -1;
	} else {
		errorf(l, ki, "'%s': expected %s, got %s", k->info.path,
		       q == DC_Q_BANDWIDTH ? "a bandwidth like \"50 GB/s\" or a number in bytes/s"
					   : "a time like \"5 us\" or a number in seconds",
		       describe(l, v));
		return -1;
	}
	if (below(k, *out)) {
		char want[64];
		lower_bound_text(k, want, sizeof(want));
		if (q == DC_Q_BANDWIDTH && cJSON_IsString(v))
			errorf(l, ki, "'%s': %s, got \"%s\"", k->info.path, want, v->valuestring);
		else
			errorf(l, ki, "'%s': %s, got %s", k->info.path, want, describe(l, v));
		return -1;
	}
	if (*out >= k->hi) {
		errorf(l, ki, "'%s': must be below %g %s, got %g", k->info.path, k->hi, k->info.unit, *out);
		return -1;
	}
	/* a plain number is in base units: flag the classic slip of writing
	 * the number of a unit string without the unit */
	if (cJSON_IsNumber(v) && q == DC_Q_TIME && *out >= 1e-3)
		warnf(l, ki, "'%s': %g is in seconds (a plain number is seconds); if you meant %g us, write \"%g us\"",
		      k->info.path, *out, *out, *out);
	if (cJSON_IsNumber(v) && q == DC_Q_BANDWIDTH && *out < 1e6)
		warnf(l, ki, "'%s': %g is in bytes per second (a plain number is bytes/s); if you meant %g GB/s, write \"%g GB/s\"",
		      k->info.path, *out, *out, *out);
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
		for (int a = 0; axis_names[a]; a++)
			if (strlen(axis_names[a]) == len && strncmp(p, axis_names[a], len) == 0)
				found = a;
		if (found < 0) {
			errorf(l, ki, "'parallel.order': unknown axis '%.*s' in \"%s\": use tp, cp, ep, dp and pp joined by '-', like \"tp-cp-ep-dp-pp\"",
			       (int)len, p, s);
			return -1;
		}
		if (used[found]) {
			errorf(l, ki, "'parallel.order': axis '%s' appears twice in \"%s\"", axis_names[found], s);
			return -1;
		}
		used[found] = 1;
		order[n++] = (enum dc_axis)found;
		if (!e)
			break;
		p = e + 1;
		if (!*p) {
			errorf(l, ki, "'parallel.order': \"%s\" ends with '-'", s);
			return -1;
		}
	}
	if (!used[DC_AXIS_TP] || !used[DC_AXIS_DP] || !used[DC_AXIS_PP]) {
		errorf(l, ki, "'parallel.order': \"%s\" must name tp, dp and pp (cp and ep are optional)", s);
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

/* parallel.pipeline_layers: a JSON array of 1..DC_MAX_PIPELINE_LIST
 * whole numbers >= 1, each entry checked as a count. */
static void read_list(struct loader *l, int ki, const cJSON *v)
{
	const struct key *k = &keys[ki];
	struct dc_parallel *p = &l->cfg->parallel;
	uint64_t n = 0;
	char num[40];

	if (!cJSON_IsArray(v)) {
		errorf(l, ki, "'%s': expected an array of layer counts like [4, 4, 3], got %s", k->info.path,
		       describe(l, v));
		return;
	}
	for (const cJSON *e = v->child; e; e = e->next, n++) {
		double d;
		if (n >= DC_MAX_PIPELINE_LIST) {
			errorf(l, ki, "'%s': at most %d stages, got more", k->info.path, DC_MAX_PIPELINE_LIST);
			return;
		}
		if (!cJSON_IsNumber(e)) {
			errorf(l, ki, "'%s': entry %llu: expected a whole number of layers, got %s", k->info.path,
			       (unsigned long long)n + 1, describe(l, e));
			return;
		}
		if (check_number(l, ki, e, &d) != 0)
			return;
		/* 0: the model's first or last chunk of an interleaved
		 * layout may hold none (dc_stage_split checks the rest) */
		if (d != floor(d) || d < 0 || d >= DC_MAX_EXACT_INT) {
			fmt_num(num, sizeof(num), d);
			errorf(l, ki, "'%s': entry %llu: every stage needs a whole number of layers, at least 1, got %s",
			       k->info.path, (unsigned long long)n + 1, num);
			return;
		}
		p->pipeline_layers[n] = (uint64_t)d;
	}
	if (n == 0) {
		errorf(l, ki, "'%s': expected one entry per pipeline stage, got an empty array", k->info.path);
		return;
	}
	p->pipeline_layers_n = n;
}

/* search.space lists: a non-empty JSON array of at most
 * DC_SEARCH_MAX_VALUES counts, choices or booleans. */
static void read_space(struct loader *l, int ki, const cJSON *v)
{
	const struct key *k = &keys[ki];
	void *dst = (char *)l->cfg + k->off;
	struct dc_search_values vals = {0};
	uint32_t mask = 0;
	uint32_t n = 0;
	uint64_t u;

	if (!cJSON_IsArray(v) || !v->child) {
		errorf(l, ki, "'%s': expected a non-empty array like %s, got %s", k->info.path,
		       k->kind == K_VALUES ? "[1, 2, 4]" : k->kind == K_BOOLS ? "[true, false]" : "[\"none\", \"zero1\"]",
		       describe(l, v));
		return;
	}
	for (const cJSON *e = v->child; e; e = e->next, n++) {
		if (n >= DC_SEARCH_MAX_VALUES) {
			errorf(l, ki, "'%s': at most %d values, got more", k->info.path, DC_SEARCH_MAX_VALUES);
			return;
		}
		if (k->kind == K_VALUES) {
			if (read_integer(l, ki, e, &u) != 0)
				return;
			vals.v[vals.n++] = u;
		} else if (k->kind == K_BOOLS) {
			if (!cJSON_IsBool(e)) {
				errorf(l, ki, "'%s': entry %u: expected true or false, got %s", k->info.path, n + 1,
				       describe(l, e));
				return;
			}
			mask |= 1u << (cJSON_IsTrue(e) ? 1 : 0);
		} else {
			/* a list row's info names no choices (only an enum's does) */
			const char *const *names = strcmp(k->info.path, "search.space.sharding") == 0 ? sharding_names
										       : recompute_names;
			int i, found = -1;
			for (i = 0; cJSON_IsString(e) && names[i]; i++)
				if (strcmp(e->valuestring, names[i]) == 0)
					found = i;
			if (found < 0) {
				errorf(l, ki, "'%s': entry %u: expected one of %s, got %s", k->info.path, n + 1,
				       k->info.bounds + 3, describe(l, e));
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

static void read_value(struct loader *l, int ki, const cJSON *v)
{
	const struct key *k = &keys[ki];
	uint64_t u;
	double d;

	if (cJSON_IsNull(v)) {
		errorf(l, ki, "'%s': null is not allowed; remove the key to use the default", k->info.path);
		return;
	}
	if (cJSON_IsString(v) && strlen(v->valuestring) > DC_CONFIG_MAX_STRING) {
		errorf(l, ki, "'%s': string must be at most %d bytes, got %zu bytes", k->info.path, DC_CONFIG_MAX_STRING,
		       strlen(v->valuestring));
		return;
	}
	switch (k->kind) {
	case K_SECTION:
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
		if (read_real(l, ki, v, k->kind == K_BW ? DC_Q_BANDWIDTH : DC_Q_TIME, &d) == 0)
			*(double *)field(l, k) = d;
		break;
	case K_BOOL:
		if (!cJSON_IsBool(v))
			errorf(l, ki, "'%s': expected true or false, got %s", k->info.path, describe(l, v));
		else
			*(int *)field(l, k) = cJSON_IsTrue(v);
		break;
	case K_ENUM:
	case K_GPU: {
		char list[160] = "";
		const char *near;
		if (cJSON_IsString(v)) {
			for (int i = 0; k->info.choices[i]; i++)
				if (strcmp(v->valuestring, k->info.choices[i]) == 0) {
					*(int *)field(l, k) = i + (k->kind == K_GPU);
					return;
				}
		}
		for (int i = 0; k->info.choices[i]; i++) {
			strcat(list, i ? ", \"" : "\"");
			strcat(list, k->info.choices[i]);
			strcat(list, "\"");
		}
		/* a preset name is long and easy to mistype: suggest one */
		near = k->kind == K_GPU && cJSON_IsString(v) ? suggest_choice(k->info.choices, v->valuestring) : NULL;
		if (near)
			errorf(l, ki, "'%s': unknown value \"%s\"; did you mean \"%s\"? (expected one of %s)", k->info.path,
			       v->valuestring, near, list);
		else if (cJSON_IsString(v))
			errorf(l, ki, "'%s': unknown value \"%s\"; expected one of %s", k->info.path, v->valuestring, list);
		else
			errorf(l, ki, "'%s': expected one of %s, got %s", k->info.path, list, describe(l, v));
		break;
	}
	case K_ORDER:
		if (!cJSON_IsString(v))
			errorf(l, ki, "'%s': expected a string like \"tp-cp-ep-dp-pp\", got %s", k->info.path, describe(l, v));
		else
			parse_order(l, ki, v->valuestring);
		break;
	case K_FRACTION:
		if (!cJSON_IsNumber(v)) {
			errorf(l, ki, "'%s': expected a number in [%g, %g), got %s", k->info.path, k->lo, k->hi,
			       describe(l, v));
		} else if (check_number(l, ki, v, &d) == 0) {
			if (below(k, d) || d >= k->hi)
				errorf(l, ki, "'%s': must be in [%g, %g), got %g", k->info.path, k->lo, k->hi, d);
			else
				*(double *)field(l, k) = d;
		}
		break;
	case K_REAL:
		if (!cJSON_IsNumber(v)) {
			errorf(l, ki, "'%s': expected a number, got %s", k->info.path, describe(l, v));
		} else if (check_number(l, ki, v, &d) == 0) {
			if (below(k, d)) {
				char want[64];
				lower_bound_text(k, want, sizeof(want));
				errorf(l, ki, "'%s': %s, got %g", k->info.path, want, d);
			} else if (d >= k->hi) {
				errorf(l, ki, "'%s': must be below %g%s%s, got %g", k->info.path, k->hi,
				       k->info.unit[0] ? " " : "", k->info.unit, d);
			} else {
				*(double *)field(l, k) = d;
			}
		}
		break;
	case K_LIST:
		read_list(l, ki, v);
		break;
	case K_VALUES:
	case K_CHOICES:
	case K_BOOLS:
		read_space(l, ki, v);
		break;
	case K_STRING:
		if (!cJSON_IsString(v))
			errorf(l, ki, "'%s': expected a string, got %s", k->info.path, describe(l, v));
		else if (strcmp(k->info.path, "model.hf_config") == 0 && !*v->valuestring)
			errorf(l, ki, "'%s': expected the path of a Hugging Face config.json, got an empty string", k->info.path);
		else if (strcmp(k->info.path, "model.hf_config") == 0)
			snprintf(l->hf_path, sizeof(l->hf_path), "%s", v->valuestring);
		else if (strcmp(k->info.path, "cluster.topology_file") == 0 && !*v->valuestring)
			errorf(l, ki, "'%s': expected the path of a file of `nvidia-smi topo -m` output, got an empty string",
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
	int ki = find_key(path);

	if (ki >= 0) {
		s = keys[ki].info.path;
	} else {
		const char *dot = strrchr(path, '.');
		snprintf(pre, sizeof(pre), "%.*s", (int)(dot - path), path);
		s = suggest(pre, dot + 1);
	}
	if (!s || strlen(path) >= 299 || (pl && (strncmp(s, prefix, pl) != 0 || s[pl] != '.'))) {
		errorf(l, -1, "'%.200s': unknown key (a member name is one name, never a dotted path)", path);
		return;
	}
	l->suggested[find_key(s)] = 1;
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
	errorf(l, -1, "'%.200s': unknown key (a member name is one name, never a dotted path); did you mean %s?",
	       path, nested);
}

/* Walks one JSON object that is the section `prefix` ("" for the root). */
static void walk(struct loader *l, const cJSON *obj, const char *prefix)
{
	char path[300];
	for (const cJSON *c = obj->child; c; c = c->next) {
		const char *name = c->string ? c->string : "";
		int ki;

		snprintf(path, sizeof(path), "%s%s%s", prefix, *prefix ? "." : "", name);
		if (strchr(name, '.')) {
			unknown_dotted(l, path, prefix);
			continue;
		}
		ki = find_key(path);
		if (ki < 0 || strlen(path) >= sizeof(path) - 1) {
			const char *s = suggest(prefix, name);
			if (s) {
				errorf(l, -1, "'%.200s': unknown key; did you mean '%s'?", path, s);
				l->suggested[find_key(s)] = 1;
			}
			else
				errorf(l, -1, "'%.200s': unknown key", path);
			continue;
		}
		/* a path lives in one object (a repeated section is itself a
		 * duplicate and is not walked), so a path seen before is a
		 * duplicate key; O(1), where comparing siblings is O(n^2) */
		if (l->seen[ki]) {
			errorf(l, ki, "'%s': duplicate key", path);
			continue;
		}
		l->seen[ki] = 1;
		if (keys[ki].kind == K_SECTION) {
			if (!cJSON_IsObject(c))
				errorf(l, ki, "'%s': expected an object, got %s", path, type_name(c));
			else {
				walk(l, c, path);
				l->walked[ki] = 1;
			}
		} else {
			read_value(l, ki, c);
		}
	}
}

/* ---- --set ---- */

/* Applies "PATH=VALUE" to the tree; returns the key index or -1. */
static int apply_override(struct loader *l, cJSON *root, const char *text)
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
	ki = find_key(path);
	if (ki < 0) {
		const char *dot = strrchr(path, '.');
		char prefix[300] = "";
		const char *s;
		if (dot)
			snprintf(prefix, sizeof(prefix), "%.*s", (int)(dot - path), path);
		s = suggest(prefix, dot ? dot + 1 : path);
		l->errors++;
		if (s) {
			dc_diag_add_key(l->diag, DC_SEV_ERROR, DC_ERR_CONFIG, path,
					"--set: error: '%s': unknown key; did you mean '%s'?", path, s);
			l->suggested[find_key(s)] = 1;
		}
		else
			dc_diag_add_key(l->diag, DC_SEV_ERROR, DC_ERR_CONFIG, path, "--set: error: '%s': unknown key",
					path);
		return -1;
	}
	if (keys[ki].kind == K_SECTION) {
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
		if (scan_text(&sc, vs, strlen(vs)) == 0 && lead != '{' && (lead != '[' || keys[ki].kind == K_LIST || keys[ki].kind == K_VALUES ||
										  keys[ki].kind == K_CHOICES || keys[ki].kind == K_BOOLS)) {
			val = cJSON_Parse(vs);
			if (!val)
				return -2; /* it scanned, so only an allocation fails */
		}
		if (!val)
			val = cJSON_CreateString(vs);
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
				errorf(l, -1, "'%s': duplicate key", path);
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

/* ---- defaults and cross-field checks ---- */

/* Does the row's default text write a value (rather than "derived: ...",
 * or nothing)? */
static int literal_default(const struct key *k)
{
	return k->info.default_text[0] && strncmp(k->info.default_text, "derived:", 8) != 0;
}

/* Every row's literal default; what is derived stays 0 until cross_check. */
static void set_defaults(struct dc_config *c)
{
	static const enum dc_axis megatron[DC_AXIS_COUNT] = {DC_AXIS_TP, DC_AXIS_CP, DC_AXIS_EP,
							     DC_AXIS_DP, DC_AXIS_PP};
	memset(c, 0, sizeof(*c));
	for (size_t i = 0; i < NKEYS; i++) {
		const struct key *k = &keys[i];
		void *f;
		if (k->off == NOFF || !literal_default(k))
			continue;
		f = (char *)c + k->off;
		switch (k->kind) {
		case K_COUNT:
		case K_UINT:
		case K_BYTES:
		case K_BYTES_POS:
			*(uint64_t *)f = (uint64_t)k->def;
			break;
		case K_BW:
		case K_TIME:
		case K_FRACTION:
		case K_REAL:
			*(double *)f = k->def;
			break;
		case K_BOOL:
		case K_ENUM:
			*(int *)f = (int)k->def;
			break;
		case K_GPU:
		case K_SECTION:
		case K_ORDER:
		case K_STRING:
		case K_LIST:
		case K_VALUES:
		case K_CHOICES:
		case K_BOOLS:
			break;
		}
	}
	/* parallel.order's row says "tp-cp-ep-dp-pp": Megatron-LM's order */
	memcpy(c->parallel.order, megatron, sizeof(megatron));
	snprintf(c->parallel.order_text, sizeof(c->parallel.order_text), "tp-cp-ep-dp-pp");
	snprintf(c->model.family, sizeof(c->model.family), "custom");
}

/* Is a Hugging Face config named (--model or model.hf_config), loaded or
 * not? Then it gives the shape, or its own errors say why not. */
static int hf_named(const struct loader *l)
{
	return l->hf_loaded || (l->opts && l->opts->model_file) || l->seen[find_key("model.hf_config")];
}

static int is_required(const struct loader *l, size_t i)
{
	enum dc_config_need need = keys[i].info.need;
	return need == DC_KEY_REQUIRED || (need == DC_KEY_REQUIRED_UNLESS_HF && !hf_named(l)) ||
	       (need == DC_KEY_REQUIRED_UNLESS_GPU && l->cfg->cluster.gpu == DC_GPU_NONE) ||
	       (need == DC_KEY_REQUIRED_UNLESS_SYSTEM && l->cfg->cluster.system == DC_SYSTEM_CUSTOM);
}

/* ---- cross-field rules ----
 *
 * Once every key read cleanly, the rules run in table order, each reporting
 * every problem it finds, so one load names them all. A rule returns -1 to
 * end the walk when the rules below would read what it could not vouch for
 * (the world size, a product that overflows, the shape); else 0. A rule
 * also fills the derived default of a key it checks, before the rules
 * below read it. */

struct rule {
	struct dc_config_rule_info info;
	int (*check)(struct loader *l);
};

static int seen(const struct loader *l, const char *path)
{
	return l->seen[find_key(path)];
}

/* The key a rule's message blames, for its origin: `ki`, unless only the
 * other key it compares against (`other_path`) came from --set, so a rule
 * an override broke names the --set. */
static int blame(const struct loader *l, int ki, const char *other_path)
{
	int other = find_key(other_path);
	return l->from_set[ki] || !l->from_set[other] ? ki : other;
}

/* The report lists every rank and group: O(world) work and output, so the
 * world is capped at 2^24 ranks (today's largest clusters are ~10^5 GPUs)
 * to keep a typo from running for minutes. */
static int rule_world(struct loader *l)
{
	struct dc_config *c = l->cfg;
	if (dc_mul_u64(c->cluster.num_nodes, c->cluster.gpus_per_node, &c->world_size) ||
	    c->world_size > DC_MAX_WORLD) {
		errorf(l, find_key("cluster.num_nodes"),
		       "'cluster.num_nodes': num_nodes x gpus_per_node must be at most %llu ranks, got %llu x %llu",
		       (unsigned long long)DC_MAX_WORLD, (unsigned long long)c->cluster.num_nodes,
		       (unsigned long long)c->cluster.gpus_per_node);
		return -1;
	}
	return 0;
}

/* The network's derived defaults: one NIC per GPU and one NVLink domain
 * per node; a domain holds whole nodes. */
static int rule_network(struct loader *l)
{
	struct dc_cluster *c = &l->cfg->cluster;
	int ki = find_key("cluster.nvlink_domain");
	if (!c->nics_per_node)
		c->nics_per_node = c->gpus_per_node;
	if (!c->nvlink_domain)
		c->nvlink_domain = c->gpus_per_node;
	if (c->nvlink_domain % c->gpus_per_node != 0) {
		errorf(l, blame(l, ki, "cluster.gpus_per_node"),
		       "'cluster.nvlink_domain': must be a multiple of cluster.gpus_per_node (%llu), got %llu",
		       (unsigned long long)c->gpus_per_node, (unsigned long long)c->nvlink_domain);
	}
	return 0;
}

static int rule_ffn_default(struct loader *l)
{
	struct dc_model *m = &l->cfg->model;
	if (!seen(l, "model.ffn_hidden_size") && dc_mul_u64(m->hidden_size, 4, &m->ffn_hidden_size)) {
		errorf(l, find_key("model.hidden_size"),
		       "'model.hidden_size': 4 x hidden_size (the default ffn_hidden_size) overflows 64 bits, got %llu",
		       (unsigned long long)m->hidden_size);
		return -1;
	}
	return 0;
}

/* Mixture-of-experts and MLA keys: defaults and rules (docs/config.md). */
static int rule_moe_mla(struct loader *l)
{
	struct dc_model *m = &l->cfg->model;
	int k_ept = find_key("model.experts_per_token");
	size_t errors = l->errors;

	if (m->num_experts) {
		if (!seen(l, "model.moe_ffn_hidden_size"))
			m->moe_ffn_hidden_size = m->ffn_hidden_size;
		if (!l->seen[k_ept])
			errorf(l, find_key("model.num_experts"),
			       "'model.experts_per_token': required with model.num_experts (%llu)",
			       (unsigned long long)m->num_experts);
		else if (m->experts_per_token > m->num_experts)
			errorf(l, k_ept, "'model.experts_per_token': must be at most model.num_experts (%llu), got %llu",
			       (unsigned long long)m->num_experts, (unsigned long long)m->experts_per_token);
		if (m->dense_layers >= m->num_layers)
			errorf(l, find_key("model.dense_layers"),
			       "'model.dense_layers': must be below model.num_layers (%llu), got %llu",
			       (unsigned long long)m->num_layers, (unsigned long long)m->dense_layers);
	}
	if (m->kv_lora_rank) {
		static const char *const need[] = {"model.qk_rope_head_dim", "model.qk_nope_head_dim",
						   "model.v_head_dim"};
		for (size_t i = 0; i < 3; i++)
			if (!seen(l, need[i]))
				errorf(l, find_key("model.kv_lora_rank"), "'%s': required with model.kv_lora_rank (MLA)",
				       need[i]);
		/* MLA: every head has its own k and v after the up-projection */
		if (!seen(l, "model.num_kv_heads"))
			m->num_kv_heads = m->num_attention_heads;
		if (!seen(l, "model.head_dim"))
			m->head_dim = m->qk_nope_head_dim + m->qk_rope_head_dim;
	}
	return l->errors > errors ? -1 : 0;
}

static int rule_head_dim(struct loader *l)
{
	struct dc_model *m = &l->cfg->model;
	if (seen(l, "model.head_dim") || m->kv_lora_rank)
		return 0;
	if (m->hidden_size % m->num_attention_heads != 0) {
		errorf(l, blame(l, find_key("model.num_attention_heads"), "model.hidden_size"),
		       "'model.num_attention_heads': must divide model.hidden_size (%llu) unless model.head_dim is given, got %llu",
		       (unsigned long long)m->hidden_size, (unsigned long long)m->num_attention_heads);
		return -1;
	}
	m->head_dim = m->hidden_size / m->num_attention_heads;
	return 0;
}

static int rule_positions(struct loader *l)
{
	const struct dc_model *m = &l->cfg->model;
	if (m->position_embeddings > 0 && m->seq_length > m->position_embeddings)
		errorf(l, blame(l, find_key("model.seq_length"), "model.position_embeddings"),
		       "'model.seq_length': %llu tokens do not fit the learned position table of %llu positions (GPT-2's n_positions); use at most %llu",
		       (unsigned long long)m->seq_length, (unsigned long long)m->position_embeddings,
		       (unsigned long long)m->position_embeddings);
	return 0;
}

static int rule_kv_heads(struct loader *l)
{
	struct dc_model *m = &l->cfg->model;
	if (!seen(l, "model.num_kv_heads"))
		m->num_kv_heads = m->num_attention_heads;
	if (m->num_kv_heads > m->num_attention_heads || m->num_attention_heads % m->num_kv_heads != 0)
		errorf(l, blame(l, find_key("model.num_kv_heads"), "model.num_attention_heads"),
		       "'model.num_kv_heads': must divide model.num_attention_heads (%llu), got %llu",
		       (unsigned long long)m->num_attention_heads, (unsigned long long)m->num_kv_heads);
	return 0;
}

static int rule_tp_pp(struct loader *l)
{
	const struct dc_parallel *p = &l->cfg->parallel;
	uint64_t tp_pp;
	if (dc_mul_u64(p->tp, p->pp, &tp_pp) || dc_mul_u64(tp_pp, p->cp, &tp_pp)) {
		errorf(l, find_key("parallel.tp"), "'parallel.tp': tp x cp x pp overflows 64 bits, got %llu x %llu x %llu",
		       (unsigned long long)p->tp, (unsigned long long)p->cp, (unsigned long long)p->pp);
		return -1;
	}
	return 0;
}

/* dp x tp x cp x pp = world; dp, when absent, is what makes it so. */
static int rule_layout(struct loader *l)
{
	struct dc_config *c = l->cfg;
	struct dc_parallel *p = &c->parallel;
	int k_tp = find_key("parallel.tp"), k_pp = find_key("parallel.pp"), k_dp = find_key("parallel.dp");
	int k_cp = find_key("parallel.cp");
	uint64_t tp_pp = p->tp * p->pp * p->cp; /* rule_tp_pp: no overflow */

	p->dp_explicit = l->seen[k_dp];
	if (!p->dp_explicit) {
		if (c->world_size % tp_pp != 0) {
			int ki = l->from_set[k_cp] && !l->from_set[k_tp] ? k_cp
				 : l->from_set[k_pp] && !l->from_set[k_tp] ? k_pp : k_tp;
			if (p->cp > 1)
				errorf(l, ki,
				       "'parallel.tp': tp x cp x pp (%llu) must divide the world size num_nodes x gpus_per_node (%llu)",
				       (unsigned long long)tp_pp, (unsigned long long)c->world_size);
			else
				errorf(l, ki,
				       "'parallel.tp': tp x pp (%llu) must divide the world size num_nodes x gpus_per_node (%llu)",
				       (unsigned long long)tp_pp, (unsigned long long)c->world_size);
		} else {
			p->dp = c->world_size / tp_pp;
		}
	} else {
		uint64_t prod;
		if (dc_mul_u64(tp_pp, p->dp, &prod) || prod != c->world_size) {
			char hint[96] = "";
			if (c->world_size % tp_pp == 0)
				snprintf(hint, sizeof(hint), "; set parallel.dp to %llu, or leave it out to derive it",
					 (unsigned long long)(c->world_size / tp_pp));
			/* blame the override that broke the product, if one did */
			if (p->cp > 1)
				errorf(l, l->from_set[k_tp] ? k_tp : l->from_set[k_pp] ? k_pp : l->from_set[k_cp] ? k_cp : k_dp,
				       "'parallel.dp': dp x tp x cp x pp (%llu x %llu x %llu x %llu) must equal num_nodes x gpus_per_node (%llu)%s",
				       (unsigned long long)p->dp, (unsigned long long)p->tp, (unsigned long long)p->cp,
				       (unsigned long long)p->pp, (unsigned long long)c->world_size, hint);
			else
				errorf(l, l->from_set[k_tp] ? k_tp : l->from_set[k_pp] ? k_pp : k_dp,
				       "'parallel.dp': dp x tp x pp (%llu x %llu x %llu) must equal num_nodes x gpus_per_node (%llu)%s",
				       (unsigned long long)p->dp, (unsigned long long)p->tp, (unsigned long long)p->pp,
				       (unsigned long long)c->world_size, hint);
		}
	}
	return 0;
}

/* Context parallelism (Megatron-Core): the sequence splits into 2 cp
 * chunks, rank i holding chunks i and 2cp - 1 - i so causal attention
 * balances (TransformerEngine asserts an even sequence per rank); the
 * AlltoAll form swaps sequence shards for head shards, so cp must also
 * divide the heads each tp rank holds. */
static int rule_cp(struct loader *l)
{
	const struct dc_model *m = &l->cfg->model;
	const struct dc_parallel *p = &l->cfg->parallel;
	int k_cp = find_key("parallel.cp");
	if (p->cp <= 1)
		return 0;
	if (p->cp_comm_type != DC_CP_A2A && m->seq_length % (2 * p->cp) != 0)
		errorf(l, blame(l, k_cp, "model.seq_length"),
		       "'parallel.cp': 2 x cp must divide model.seq_length (%llu): each cp rank holds two of 2 x cp equal chunks, got cp %llu",
		       (unsigned long long)m->seq_length, (unsigned long long)p->cp);
	else if (p->cp_comm_type == DC_CP_A2A && m->seq_length % p->cp != 0)
		errorf(l, blame(l, k_cp, "model.seq_length"), "'parallel.cp': must divide model.seq_length (%llu), got %llu",
		       (unsigned long long)m->seq_length, (unsigned long long)p->cp);
	else if (p->cp_comm_type == DC_CP_A2A &&
		 (m->num_attention_heads / p->tp % p->cp != 0 || m->num_kv_heads / p->tp % p->cp != 0))
		errorf(l, blame(l, k_cp, "model.num_attention_heads"),
		       "'parallel.cp': with cp_comm_type \"a2a\" cp must divide the heads of each tp rank (%llu query, %llu key/value heads), got %llu",
		       (unsigned long long)(m->num_attention_heads / p->tp),
		       (unsigned long long)(m->num_kv_heads / p->tp), (unsigned long long)p->cp);
	return 0;
}

static int rule_tp_heads(struct loader *l)
{
	const struct dc_model *m = &l->cfg->model;
	const struct dc_parallel *p = &l->cfg->parallel;
	int k_tp = find_key("parallel.tp");
	if (m->num_attention_heads % p->tp != 0)
		errorf(l, blame(l, k_tp, "model.num_attention_heads"),
		       "'parallel.tp': must divide model.num_attention_heads (%llu), got %llu",
		       (unsigned long long)m->num_attention_heads, (unsigned long long)p->tp);
	else if (m->num_kv_heads % p->tp != 0)
		errorf(l, blame(l, k_tp, "model.num_kv_heads"), "'parallel.tp': must divide model.num_kv_heads (%llu), got %llu",
		       (unsigned long long)m->num_kv_heads, (unsigned long long)p->tp);
	return 0;
}

/* Expert parallelism (Megatron-Core): ep ranks are carved out of dp, each
 * holding num_experts / ep experts of every MoE layer. */
static int rule_ep(struct loader *l)
{
	const struct dc_model *m = &l->cfg->model;
	const struct dc_parallel *p = &l->cfg->parallel;
	int k_ep = find_key("parallel.ep"), k_etp = find_key("parallel.etp");
	uint64_t ep = p->ep ? p->ep : 1, etp = p->etp ? p->etp : p->tp, cp = p->cp ? p->cp : 1;
	struct dc_layout lay;
	int outer = 1, seen_pp = 0;
	const char *why;
	if (ep <= 1 && etp == p->tp)
		return 0;
	if (!p->dp)
		return 0; /* the layout is wrong already (reported above) */
	/* pp the slowest axis: no axis of degree > 1 after it in the order */
	for (int i = 0; i < DC_AXIS_COUNT; i++) {
		enum dc_axis a = p->order[i];
		uint64_t deg = a == DC_AXIS_TP ? p->tp : a == DC_AXIS_CP ? cp : a == DC_AXIS_DP ? p->dp : 1;
		if (a == DC_AXIS_PP)
			seen_pp = 1;
		else if (seen_pp && deg > 1 && p->pp > 1)
			outer = 0;
	}
	memset(&lay, 0, sizeof(lay));
	lay.tp = p->tp;
	lay.dp = p->dp;
	lay.cp = cp;
	lay.pp = p->pp;
	lay.ep = ep;
	lay.etp = p->etp;
	why = dc_layout_expert_error(&lay, m->num_experts, outer);
	if (!why)
		;
	else if (!m->num_experts)
		errorf(l, blame(l, ep > 1 ? k_ep : k_etp, "model.num_experts"), "%s, got %s %llu", why,
		       ep > 1 ? "ep" : "etp", (unsigned long long)(ep > 1 ? ep : etp));
	else if (m->num_experts % ep != 0)
		errorf(l, blame(l, k_ep, "model.num_experts"), "'parallel.ep': must divide model.num_experts (%llu), got %llu",
		       (unsigned long long)m->num_experts, (unsigned long long)ep);
	else if (strncmp(why, "'parallel.order'", 16) == 0)
		errorf(l, find_key("parallel.order"), "%s, got \"%s\" with pp %llu", why, p->order_text,
		       (unsigned long long)p->pp);
	else
		errorf(l, blame(l, k_ep, "parallel.dp"),
		       "'parallel.ep': ep x etp (%llu x %llu) must divide tp x dp x cp (%llu x %llu x %llu), the ranks of a stage that the expert layers regroup (Megatron-Core's MoE parallel folding)",
		       (unsigned long long)ep, (unsigned long long)etp, (unsigned long long)p->tp,
		       (unsigned long long)p->dp, (unsigned long long)cp);
	if (why)
		return 0;
	if (etp != p->tp && p->tp > 1 && !p->sequence_parallel)
		errorf(l, blame(l, k_etp, "parallel.sequence_parallel"),
		       "'parallel.etp': an expert tp group other than tp (%llu) regroups the attention's tokens, which Megatron-Core does only with sequence parallelism; set parallel.sequence_parallel, got etp %llu",
		       (unsigned long long)p->tp, (unsigned long long)etp);
	return 0;
}

/* HSDP: dp = dp_replicate x shard; the replicas of one shard group are
 * dp / dp_replicate dp ranks apart, so an expert's shard group (its dp / ep
 * expert-data-parallel ranks) splits the same way. */
static int rule_dp_replicate(struct loader *l)
{
	const struct dc_parallel *p = &l->cfg->parallel;
	int k = find_key("parallel.dp_replicate");
	uint64_t r = p->dp_replicate ? p->dp_replicate : 1, ep = p->ep ? p->ep : 1;
	if (r <= 1 || !p->dp)
		return 0;
	if (p->dp % r != 0)
		errorf(l, blame(l, k, "parallel.dp"), "'parallel.dp_replicate': must divide parallel.dp (%llu), got %llu",
		       (unsigned long long)p->dp, (unsigned long long)r);
	else if (p->sharding == DC_SHARD_NONE)
		errorf(l, blame(l, k, "parallel.sharding"),
		       "'parallel.dp_replicate': replicates sharded states, so it needs parallel.sharding zero1, zero2 or fsdp (DDP already replicates everything), got %llu with sharding \"none\"",
		       (unsigned long long)r);
	else {
		/* the expert-data-parallel ranks: dp / ep, or tp dp cp / (ep etp) folded */
		uint64_t etp = p->etp ? p->etp : p->tp, cp = p->cp ? p->cp : 1;
		uint64_t edp = etp == p->tp && p->dp % ep == 0 ? p->dp / ep : p->tp * p->dp * cp / (ep * etp);
		if ((ep > 1 || etp != p->tp) && (p->tp * p->dp * cp) % (ep * etp) == 0 && edp % r != 0)
			errorf(l, blame(l, k, "parallel.ep"),
			       "'parallel.dp_replicate': must divide the expert-data-parallel ranks (%llu), got %llu",
			       (unsigned long long)edp, (unsigned long long)r);
	}
	return 0;
}

/* The pipeline's stages: even (pp divides the layers), an explicit list,
 * or Megatron's first/last-stage forms; dc_stage_split (plan.h) resolves
 * them, the plan reads the same runs. */
static int rule_pp_layers(struct loader *l)
{
	struct dc_parallel *p = &l->cfg->parallel;
	struct dc_stage_runs runs;
	char err[320];
	const char *key = NULL;

	p->first_stage_layers_given = seen(l, "parallel.first_stage_layers");
	p->last_stage_layers_given = seen(l, "parallel.last_stage_layers");
	if (seen(l, "parallel.pipeline_layers") && !p->pipeline_layers_n)
		return 0; /* the list itself was an error */
	if (dc_stage_split(p, l->cfg->model.num_layers, &runs, &key, err, sizeof(err)) != 0) {
		int ki = find_key(key);
		errorf(l, blame(l, ki, strcmp(key, "parallel.pp") == 0 ? "model.num_layers" : "parallel.pp"), "%s", err);
	}
	return 0;
}

static int rule_sequence_parallel(struct loader *l)
{
	const struct dc_parallel *p = &l->cfg->parallel;
	if (p->sequence_parallel && p->tp < 2)
		errorf(l, blame(l, find_key("parallel.sequence_parallel"), "parallel.tp"),
		       "'parallel.sequence_parallel': needs parallel.tp > 1 (it splits the tp group's activations), got tp %llu",
		       (unsigned long long)p->tp);
	return 0;
}

/* overlap.ep a2a_1f1b: Megatron-Core's combined 1F1B pairs one
 * microbatch's forward with another's backward, which it does for expert
 * parallelism and, with a pipeline, only in the interleaved schedule
 * (Megatron-LM arguments.py: --overlap-moe-expert-parallel-comm needs
 * expert_model_parallel_size > 1 and a virtual pipeline when pp > 1). */
static int rule_ep_overlap(struct loader *l)
{
	const struct dc_config *c = l->cfg;
	const struct dc_parallel *p = &c->parallel;
	int k = find_key("overlap.ep");
	if (c->overlap.ep == DC_EP_OVERLAP_DUALPIPE) {
		/* the schedule as given (rule_pipeline_schedule derives the
		 * default later; it is never a DualPipe) */
		if (p->ep < 2)
			errorf(l, blame(l, k, "parallel.ep"),
			       "'overlap.ep': \"dualpipe\" hides expert AlltoAlls, so it needs parallel.ep > 1, got ep %llu",
			       (unsigned long long)(p->ep ? p->ep : 1));
		else if (p->pipeline_schedule != DC_PIPE_DUALPIPE && p->pipeline_schedule != DC_PIPE_DUALPIPEV)
			errorf(l, blame(l, k, "parallel.pipeline_schedule"),
			       "'overlap.ep': \"dualpipe\" overlaps one microbatch's forward chunk with another's backward chunk, so it needs parallel.pipeline_schedule \"dualpipe\" or \"dualpipev\", got \"%s\"",
			       seen(l, "parallel.pipeline_schedule") ? pipe_schedule_names[p->pipeline_schedule]
								      : (p->virtual_pipeline > 1 ? "interleaved" : "1f1b"));
		return 0;
	}
	if (c->overlap.ep != DC_EP_OVERLAP_A2A_1F1B)
		return 0;
	if (p->ep < 2)
		errorf(l, blame(l, k, "parallel.ep"),
		       "'overlap.ep': \"a2a_1f1b\" hides expert AlltoAlls, so it needs parallel.ep > 1, got ep %llu",
		       (unsigned long long)(p->ep ? p->ep : 1));
	else if (p->pp > 1 && p->virtual_pipeline < 2)
		errorf(l, blame(l, k, "parallel.virtual_pipeline"),
		       "'overlap.ep': \"a2a_1f1b\" with a pipeline needs the interleaved schedule (parallel.virtual_pipeline > 1), as Megatron-Core does, got pp %llu, virtual_pipeline %llu",
		       (unsigned long long)p->pp, (unsigned long long)(p->virtual_pipeline ? p->virtual_pipeline : 1));
	else if (c->training.recompute == DC_RECOMPUTE_FULL)
		/* Megatron-Core's TransformerConfig: "Disable full recomputation
		 * when enabling overlap_moe_expert_parallel_comm" (a checkpointed
		 * layer's backward cannot be split into the overlapped parts) */
		errorf(l, blame(l, k, "training.recompute"),
		       "'overlap.ep': \"a2a_1f1b\" cannot run with training.recompute \"full\" (Megatron-Core refuses full recomputation with the overlap); use \"selective\" or \"none\"");
	return 0;
}

/* checkpoint.restore: the saved layout unless given; dp from the new world */
static int rule_restore(struct loader *l)
{
	struct dc_config *c = l->cfg;
	struct dc_ckpt_restore *r = &c->checkpoint.restore;
	int kd = find_key("checkpoint.restore.dp");
	uint64_t world, mp;

	if (!r->tp)
		r->tp = c->parallel.tp;
	if (!r->pp)
		r->pp = c->parallel.pp;
	if (!r->cp)
		r->cp = c->parallel.cp ? c->parallel.cp : 1;
	if (!r->ep)
		r->ep = c->parallel.ep ? c->parallel.ep : 1;
	if (!r->num_nodes)
		r->num_nodes = c->cluster.num_nodes;
	if (!r->gpus_per_node)
		r->gpus_per_node = c->cluster.gpus_per_node;
	/* the saved layout is wrong already (reported above): the restored
	 * one, derived from it, would only repeat that */
	if (l->errors)
		return 0;
	if (dc_mul_u64(r->num_nodes, r->gpus_per_node, &world) != 0 || world > DC_MAX_WORLD) {
		errorf(l, find_key("checkpoint.restore.num_nodes"),
		       "'checkpoint.restore.num_nodes': num_nodes x gpus_per_node must be at most 2^24 ranks, got %llu x %llu",
		       (unsigned long long)r->num_nodes, (unsigned long long)r->gpus_per_node);
		return 0;
	}
	if (c->model.num_attention_heads && c->model.num_attention_heads % r->tp != 0)
		errorf(l, find_key("checkpoint.restore.tp"),
		       "'checkpoint.restore.tp': must divide model.num_attention_heads (%llu), got %llu",
		       (unsigned long long)c->model.num_attention_heads, (unsigned long long)r->tp);
	if (c->model.num_layers && r->pp > c->model.num_layers && l->seen[find_key("checkpoint.restore.pp")])
		errorf(l, find_key("checkpoint.restore.pp"),
		       "'checkpoint.restore.pp': must be at most model.num_layers (%llu), got %llu",
		       (unsigned long long)c->model.num_layers, (unsigned long long)r->pp);
	if (c->model.seq_length && c->model.seq_length % r->cp != 0)
		errorf(l, find_key("checkpoint.restore.cp"),
		       "'checkpoint.restore.cp': must divide model.seq_length (%llu), got %llu",
		       (unsigned long long)c->model.seq_length, (unsigned long long)r->cp);
	if (dc_mul_u64(r->tp, r->pp, &mp) != 0 || dc_mul_u64(mp, r->cp, &mp) != 0)
		mp = UINT64_MAX;
	if (mp > world || world % mp != 0) {
		errorf(l, find_key("checkpoint.restore.tp"),
		       "'checkpoint.restore.tp': tp x pp x cp (%llu x %llu x %llu) must divide the new world, num_nodes x gpus_per_node = %llu",
		       (unsigned long long)r->tp, (unsigned long long)r->pp, (unsigned long long)r->cp,
		       (unsigned long long)world);
		return 0;
	}
	if (!r->dp)
		r->dp = world / mp;
	else if (r->dp != world / mp)
		errorf(l, kd,
		       "'checkpoint.restore.dp': tp x pp x dp x cp must be the new world (%llu ranks), so dp must be %llu, got %llu",
		       (unsigned long long)world, (unsigned long long)(world / mp), (unsigned long long)r->dp);
	{
		/* as parallel.ep (rule_ep): out of dp, or folded over tp dp cp
		 * with the expert tp group (parallel.etp, else the new tp) */
		uint64_t etp = c->parallel.etp ? c->parallel.etp : r->tp;
		if (r->dp && (r->tp * r->dp * r->cp) % (r->ep * etp) != 0)
			errorf(l, find_key("checkpoint.restore.ep"),
			       "'checkpoint.restore.ep': ep x etp (%llu x %llu) must divide the new tp x dp x cp (%llu x %llu x %llu), got ep %llu",
			       (unsigned long long)r->ep, (unsigned long long)etp, (unsigned long long)r->tp,
			       (unsigned long long)r->dp, (unsigned long long)r->cp, (unsigned long long)r->ep);
	}
	return 0;
}

static int rule_loss_tokens(struct loader *l)
{
	struct dc_loss *s = &l->cfg->loss;
	uint64_t seq = l->cfg->model.seq_length;
	if (!s->max_length)
		s->max_length = seq;
	if (seq && s->max_length > seq)
		errorf(l, find_key("loss.tokens.max_length"),
		       "'loss.tokens.max_length': must be at most model.seq_length (%llu), got %llu",
		       (unsigned long long)seq, (unsigned long long)s->max_length);
	if (s->min_length > s->max_length)
		errorf(l, find_key("loss.tokens.min_length"),
		       "'loss.tokens.min_length': must be at most loss.tokens.max_length (%llu), got %llu",
		       (unsigned long long)s->max_length, (unsigned long long)s->min_length);
	if (!(s->token_loss > 0 && s->token_loss < 1000))
		errorf(l, find_key("loss.token_loss"), "'loss.token_loss': must be above 0 and below 1000 nats, got %g",
		       s->token_loss);
	return 0;
}

static int rule_sweep(struct loader *l)
{
	const struct dc_collective *c = &l->cfg->collective;
	if (c->step_factor < 2)
		errorf(l, find_key("collective.step_factor"),
		       "'collective.step_factor': must be at least 2 (each size is the one before times it), got %llu",
		       (unsigned long long)c->step_factor);
	if (c->min_bytes > c->max_bytes)
		errorf(l, blame(l, find_key("collective.min_bytes"), "collective.max_bytes"),
		       "'collective.min_bytes': must be at most collective.max_bytes (%llu B), got %llu B",
		       (unsigned long long)c->max_bytes, (unsigned long long)c->min_bytes);
	return 0;
}

/* training.global_batch_size, when given, fixes the work of a step:
 * grad_accum_steps = global_batch_size / (micro_batch_size x dp), so a
 * --set of the micro batch or of dp keeps the samples per step. */
static int rule_global_batch(struct loader *l)
{
	struct dc_config *c = l->cfg;
	struct dc_training *t = &c->training;
	int kg = find_key("training.global_batch_size"), ka = find_key("training.grad_accum_steps");
	int kb = find_key("training.micro_batch_size"), kd = find_key("parallel.dp");
	int who;
	uint64_t per_micro;
	/* dp 0: the layout rule could not derive it and said why (a sweep of
	 * parallel.tp=3 on 8 GPUs divided by it) */
	if (!l->seen[kg] || c->parallel.dp == 0)
		return 0;
	/* blame the --set that broke the division, if one did */
	who = l->from_set[kg] ? kg : l->from_set[kb] ? kb : l->from_set[kd] ? kd : kg;
	if (dc_mul_u64(t->micro_batch_size, c->parallel.dp, &per_micro) || t->global_batch_size % per_micro != 0) {
		errorf(l, who,
		       "'training.global_batch_size': must be a multiple of training.micro_batch_size x parallel.dp (%llu x %llu), got %llu",
		       (unsigned long long)t->micro_batch_size, (unsigned long long)c->parallel.dp,
		       (unsigned long long)t->global_batch_size);
		return -1;
	}
	if (l->seen[ka] && t->grad_accum_steps != t->global_batch_size / per_micro && !l->from_set[ka] &&
	    !l->from_set[kg] && (l->from_set[kb] || l->from_set[kd])) {
		/* the file gave both; a --set of the micro batch or dp keeps the work */
		warnf(l, kb,
		      "'training.grad_accum_steps': the file's %llu becomes %llu = training.global_batch_size / (micro_batch_size x dp) = %llu / (%llu x %llu)",
		      (unsigned long long)t->grad_accum_steps, (unsigned long long)(t->global_batch_size / per_micro),
		      (unsigned long long)t->global_batch_size, (unsigned long long)t->micro_batch_size,
		      (unsigned long long)c->parallel.dp);
	} else if (l->seen[ka] && t->grad_accum_steps != t->global_batch_size / per_micro) {
		errorf(l, l->from_set[ka] ? ka : who,
		       "'training.grad_accum_steps': %llu disagrees with training.global_batch_size (%llu = %llu x %llu x %llu); leave it out to derive it",
		       (unsigned long long)t->grad_accum_steps, (unsigned long long)t->global_batch_size,
		       (unsigned long long)t->micro_batch_size, (unsigned long long)c->parallel.dp,
		       (unsigned long long)(t->global_batch_size / per_micro));
		return -1;
	}
	t->grad_accum_steps = t->global_batch_size / per_micro;
	return 0;
}

/* precision.preset fills every byte key not given (docs/formulas.md,
 * "Precision presets"). */
static int rule_precision_preset(struct loader *l)
{
	static const uint64_t bytes[][5] = {
		/* param, grad, master, optimizer, working (0: param) */
		[DC_PRECISION_COURSE] = {2, 2, 4, 8, 0},
		[DC_PRECISION_MEGATRON] = {2, 4, 4, 8, 0},
		[DC_PRECISION_FSDP2] = {4, 4, 0, 8, 2},
		[DC_PRECISION_DEEPSEEK_V3] = {2, 4, 4, 4, 0},
	};
	static const char *const path[] = {"precision.param_bytes", "precision.grad_bytes", "precision.master_bytes",
					   "precision.optimizer_bytes", "precision.working_bytes"};
	struct dc_precision *pr = &l->cfg->precision;
	uint64_t *field[] = {&pr->param_bytes, &pr->grad_bytes, &pr->master_bytes, &pr->optimizer_bytes,
			     &pr->working_bytes};
	for (size_t i = 0; i < 5; i++)
		if (!seen(l, path[i]))
			*field[i] = i == 4 && !bytes[pr->preset][i] ? pr->param_bytes : bytes[pr->preset][i];
	return 0;
}

static int rule_offload(struct loader *l)
{
	const struct dc_parallel *p = &l->cfg->parallel;
	if (p->offload == DC_OFFLOAD_OPTIMIZER_PARAMS && p->sharding != DC_SHARD_FSDP)
		errorf(l, blame(l, find_key("parallel.offload"), "parallel.sharding"),
		       "'parallel.offload': \"optimizer+params\" offloads the parameter shards, so it needs parallel.sharding \"fsdp\", got \"%s\"",
		       sharding_names[p->sharding]);
	return 0;
}

static int rule_recompute_layers(struct loader *l)
{
	const struct dc_config *c = l->cfg;
	int k = find_key("training.recompute_layers");
	uint64_t chunk, chunks;
	if (!c->training.recompute_layers)
		return 0;
	if (dc_mul_u64(c->parallel.pp, c->parallel.virtual_pipeline, &chunks))
		return 0; /* rule_virtual_pipeline said why */
	chunk = c->model.num_layers / chunks;
	if (dc_stages_uneven(&c->parallel)) {
		/* uneven stages or chunks: the largest chunk (plan.h) */
		struct dc_stage_runs runs;
		const char *key;
		char err[8];
		uint64_t v = c->parallel.virtual_pipeline ? c->parallel.virtual_pipeline : 1;
		if (dc_stage_split(&c->parallel, c->model.num_layers, &runs, &key, err, sizeof(err)) != 0)
			return 0; /* rule_pp_layers said why */
		chunk = runs.vfirst > runs.vlast ? runs.vfirst : runs.vlast;
		for (uint64_t i = 0; i < runs.n; i++) {
			/* a run's chunks: its stage's layers over v, the first
			 * and last stage's others over v - 1 */
			uint64_t st = runs.first[i], n = runs.layers[i], b = n / v;
			if (v > 1 && st == 0)
				b = (n - runs.vfirst) / (v - 1);
			else if (v > 1 && runs.first[i + 1] == c->parallel.pp)
				b = (n - runs.vlast) / (v - 1);
			if (b > chunk)
				chunk = b;
		}
	}
	if (c->training.recompute != DC_RECOMPUTE_FULL)
		errorf(l, blame(l, k, "training.recompute"),
		       "'training.recompute_layers': needs training.recompute \"full\" (it says how many layers are recomputed fully), got \"%s\"",
		       recompute_names[c->training.recompute]);
	else if (c->training.recompute_layers > chunk)
		errorf(l, blame(l, k, "parallel.pp"),
		       "'training.recompute_layers': must be at most the %llu layers of a model chunk (num_layers / (pp x virtual_pipeline), or the largest chunk of uneven stages), got %llu",
		       (unsigned long long)chunk, (unsigned long long)c->training.recompute_layers);
	return 0;
}

static int rule_virtual_pipeline(struct loader *l)
{
	const struct dc_config *c = l->cfg;
	const struct dc_parallel *p = &c->parallel;
	int kv = find_key("parallel.virtual_pipeline");
	uint64_t chunks;
	if (p->virtual_pipeline <= 1)
		return 0;
	if (p->pp < 2)
		errorf(l, kv, "'parallel.virtual_pipeline': an interleaved schedule needs parallel.pp > 1, got pp %llu",
		       (unsigned long long)p->pp);
	else if (!dc_stages_uneven(p) && /* uneven: rule_pp_layers checks each chunk */
		 (dc_mul_u64(p->pp, p->virtual_pipeline, &chunks) || c->model.num_layers % chunks != 0))
		errorf(l, kv,
		       "'parallel.virtual_pipeline': pp x virtual_pipeline (%llu x %llu) must divide model.num_layers (%llu)",
		       (unsigned long long)p->pp, (unsigned long long)p->virtual_pipeline,
		       (unsigned long long)c->model.num_layers);
	else if (c->training.grad_accum_steps % p->pp != 0)
		errorf(l, kv,
		       "'parallel.virtual_pipeline': the interleaved schedule needs training.grad_accum_steps (%llu microbatches) to be a multiple of parallel.pp (%llu)",
		       (unsigned long long)c->training.grad_accum_steps, (unsigned long long)p->pp);
	return 0;
}

/* parallel.pipeline_schedule: derived from virtual_pipeline when not
 * given (interleaved when v > 1, else 1f1b: every shipped config's
 * schedule); a given one must agree with virtual_pipeline and meet its
 * schedule's needs (docs/step-model.md, section 3): DualPipe's step()
 * asserts an even rank count and an even num_chunks >= 2 x ranks,
 * DualPipeV's num_chunks >= 2 x ranks (deepseek-ai/DualPipe); both place
 * stages of num_layers / pp (DualPipeV: / 2pp) layers themselves. */
static int rule_pipeline_schedule(struct loader *l)
{
	struct dc_config *c = l->cfg;
	struct dc_parallel *p = &c->parallel;
	int k = find_key("parallel.pipeline_schedule");
	uint64_t v = p->virtual_pipeline ? p->virtual_pipeline : 1, pp = p->pp, m = c->training.grad_accum_steps;
	enum dc_pipe_schedule s = p->pipeline_schedule;
	const char *name = pipe_schedule_names[s];

	if (!seen(l, "parallel.pipeline_schedule")) {
		p->pipeline_schedule = v > 1 ? DC_PIPE_INTERLEAVED : DC_PIPE_1F1B;
		return 0;
	}
	if (s == DC_PIPE_INTERLEAVED) {
		if (v < 2)
			errorf(l, blame(l, k, "parallel.virtual_pipeline"),
			       "'parallel.pipeline_schedule': \"interleaved\" runs parallel.virtual_pipeline > 1 model chunks a rank, got virtual_pipeline 1 (one chunk a rank is \"1f1b\")");
		return 0;
	}
	if (v > 1) {
		errorf(l, blame(l, k, "parallel.virtual_pipeline"),
		       "'parallel.pipeline_schedule': \"%s\" %s, so it needs parallel.virtual_pipeline 1, got %llu (virtual_pipeline > 1 is \"interleaved\")",
		       name, s == DC_PIPE_1F1B ? "runs one model chunk a rank" : "places its own model chunks",
		       (unsigned long long)v);
		return 0;
	}
	if (s == DC_PIPE_1F1B)
		return 0;
	if (s == DC_PIPE_DUALPIPE && pp % 2 != 0) {
		errorf(l, blame(l, k, "parallel.pp"),
		       "'parallel.pipeline_schedule': \"dualpipe\" needs an even parallel.pp (rank s holds stages s and pp - 1 - s, fed from both ends), got pp %llu",
		       (unsigned long long)pp);
		return 0;
	}
	if (pp < 2) {
		errorf(l, blame(l, k, "parallel.pp"),
		       "'parallel.pipeline_schedule': \"%s\" is a pipeline schedule, so it needs parallel.pp > 1, got pp %llu",
		       name, (unsigned long long)pp);
		return 0;
	}
	if (s == DC_PIPE_ZERO_BUBBLE)
		return 0;
	if (dc_stages_uneven(p)) {
		errorf(l, k,
		       "'parallel.pipeline_schedule': \"%s\" places stages of equal layers itself; drop pipeline_layers, first_stage_layers, last_stage_layers and account_for_*",
		       name);
		return 0;
	}
	if (s == DC_PIPE_DUALPIPEV && c->model.num_layers % (2 * pp) != 0) {
		errorf(l, blame(l, k, "model.num_layers"),
		       "'parallel.pipeline_schedule': \"dualpipev\" splits the model into 2 x pp = %llu chunks, two a rank, so 2 x pp must divide model.num_layers (%llu)",
		       (unsigned long long)(2 * pp), (unsigned long long)c->model.num_layers);
		return 0;
	}
	if (m < 2 * pp || (s == DC_PIPE_DUALPIPE && m % 2 != 0))
		errorf(l, blame(l, k, "training.grad_accum_steps"),
		       "'parallel.pipeline_schedule': \"%s\" needs %straining.grad_accum_steps of at least 2 x pp = %llu (deepseek-ai/DualPipe's step() asserts num_chunks >= 2 x ranks%s), got %llu",
		       name, s == DC_PIPE_DUALPIPE ? "an even " : "", (unsigned long long)(2 * pp),
		       s == DC_PIPE_DUALPIPE ? ", half of them fed from each end" : "", (unsigned long long)m);
	return 0;
}

/* The vendor data sheets' figures (dense, no sparsity; docs/compute-model.md,
 * "The presets"). A card sold as N GB holds N GiB (warn_decimal_gpu_memory). */
struct gpu_preset {
	double mem_gib;
	double peak_flops, peak_flops_fp8; /* FLOP/s; fp8 0: no FP8 tensor cores */
	double hbm_bandwidth;              /* bytes/s */
	const char *no_fp8;                /* why fp8 is refused, or NULL */
};

static const struct gpu_preset gpu_presets[DC_GPU_COUNT] = {
	[DC_GPU_A100_SXM4_80GB] = {80, 312e12, 0, 2.039e12, "the A100 has no FP8 tensor cores"},
	[DC_GPU_H100_SXM5_80GB] = {80, 989e12, 1979e12, 3.35e12, NULL},
	[DC_GPU_H200_SXM_141GB] = {141, 989e12, 1979e12, 4.8e12, NULL},
};

/* cluster.gpu fills what the config leaves out; precision.compute "fp8"
 * on a preset without FP8 (and no peak_flops_fp8 given) is refused. */
static int rule_gpu_preset(struct loader *l)
{
	struct dc_cluster *c = &l->cfg->cluster;
	const struct gpu_preset *g;
	if (c->gpu == DC_GPU_NONE || c->gpu >= DC_GPU_COUNT)
		return 0;
	g = &gpu_presets[c->gpu];
	if (!seen(l, "cluster.gpu_memory"))
		c->gpu_mem_bytes = (uint64_t)(g->mem_gib * 1073741824.0);
	if (!seen(l, "cluster.peak_flops"))
		c->peak_flops = g->peak_flops;
	if (!seen(l, "cluster.peak_flops_fp8"))
		c->peak_flops_fp8 = g->peak_flops_fp8;
	if (!seen(l, "cluster.hbm_bandwidth"))
		c->hbm_bandwidth = g->hbm_bandwidth;
	if (l->cfg->precision.compute == DC_COMPUTE_FP8 && c->peak_flops_fp8 == 0)
		errorf(l, blame(l, find_key("precision.compute"), "cluster.gpu"),
		       "'precision.compute': \"fp8\" needs an FP8 matmul peak, but 'cluster.gpu' \"%s\" has none (%s); use \"bf16\" or give cluster.peak_flops_fp8",
		       dc_gpu_name(c->gpu), g->no_fp8 ? g->no_fp8 : "no FP8 figure");
	return 0;
}

/* The what-if scenarios' knobs name a node, a rank and a share that exist. */
static int rule_whatif(struct loader *l)
{
	const struct dc_config *c = l->cfg;
	const struct dc_whatif_config *w = &c->whatif;
	if (w->slow_node >= c->cluster.num_nodes)
		errorf(l, blame(l, find_key("whatif.slow_network.node"), "cluster.num_nodes"),
		       "'whatif.slow_network.node': must be below cluster.num_nodes (%llu), got %llu",
		       (unsigned long long)c->cluster.num_nodes, (unsigned long long)w->slow_node);
	if (w->slow_factor > 1)
		errorf(l, find_key("whatif.slow_network.factor"),
		       "'whatif.slow_network.factor': must be at most 1 (the share of the bandwidth kept), got %g",
		       w->slow_factor);
	if (w->data_rank >= c->world_size)
		errorf(l, blame(l, find_key("whatif.slow_data_rank.rank"), "cluster.num_nodes"),
		       "'whatif.slow_data_rank.rank': must be below the world size (%llu), got %llu",
		       (unsigned long long)c->world_size, (unsigned long long)w->data_rank);
	if (c->model.num_experts && c->model.experts_per_token &&
	    w->expert_imbalance > (double)c->model.num_experts / (double)c->model.experts_per_token)
		errorf(l, blame(l, find_key("whatif.expert_imbalance"), "model.num_experts"),
		       "'whatif.expert_imbalance': must be at most num_experts / experts_per_token (%g: the busiest expert then takes every token), got %g",
		       (double)c->model.num_experts / (double)c->model.experts_per_token, w->expert_imbalance);
	return 0;
}

#define KEYS(...) ((const char *const[]){__VA_ARGS__, NULL})

static const struct rule rules[] = {
	{{"the world, num_nodes × gpus_per_node, is at most 2^24 ranks",
	  KEYS("cluster.num_nodes", "cluster.gpus_per_node")}, rule_world},
	{{"ffn_hidden_size defaults to 4 × hidden_size, which fits 64 bits",
	  KEYS("model.ffn_hidden_size", "model.hidden_size")}, rule_ffn_default},
	{{"experts_per_token comes with num_experts and is at most it; dense_layers is below num_layers; "
	  "kv_lora_rank (MLA) comes with the three MLA head sizes",
	  KEYS("model.num_experts", "model.experts_per_token", "model.moe_ffn_hidden_size", "model.dense_layers",
	       "model.num_layers", "model.kv_lora_rank", "model.qk_rope_head_dim", "model.qk_nope_head_dim",
	       "model.v_head_dim")}, rule_moe_mla},
	{{"num_attention_heads divides hidden_size unless head_dim is given",
	  KEYS("model.num_attention_heads", "model.hidden_size", "model.head_dim")}, rule_head_dim},
	{{"seq_length fits a learned position table",
	  KEYS("model.seq_length", "model.position_embeddings")}, rule_positions},
	{{"num_kv_heads divides num_attention_heads",
	  KEYS("model.num_kv_heads", "model.num_attention_heads")}, rule_kv_heads},
	{{"tp × cp × pp fits 64 bits", KEYS("parallel.tp", "parallel.cp", "parallel.pp")}, rule_tp_pp},
	{{"dp × tp × cp × pp equals the world size; without dp, tp × cp × pp divides it",
	  KEYS("parallel.dp", "parallel.tp", "parallel.cp", "parallel.pp", "cluster.num_nodes", "cluster.gpus_per_node")},
	 rule_layout},
	{{"tp divides num_attention_heads and num_kv_heads",
	  KEYS("parallel.tp", "model.num_attention_heads", "model.num_kv_heads")}, rule_tp_heads},
	{{"ep > 1 or etp other than tp: a mixture-of-experts model, ep divides num_experts, ep × etp divides tp × dp × cp, pp the slowest axis when folded, sequence_parallel when etp ≠ tp > 1",
	  KEYS("parallel.ep", "parallel.etp", "parallel.dp", "parallel.tp", "parallel.cp", "parallel.order",
	       "parallel.sequence_parallel", "model.num_experts")}, rule_ep},
	{{"dp_replicate > 1 divides dp (and dp / ep), with sharding zero1, zero2 or fsdp",
	  KEYS("parallel.dp_replicate", "parallel.dp", "parallel.ep", "parallel.sharding")}, rule_dp_replicate},
	{{"2 × cp divides seq_length (a2a: cp divides seq_length and the heads per tp rank)",
	  KEYS("parallel.cp", "parallel.cp_comm_type", "model.seq_length", "model.num_attention_heads",
	       "model.num_kv_heads", "parallel.tp")}, rule_cp},
	{{"the stages hold num_layers: pp divides them, or pipeline_layers (pp entries) adds up to them, or the first/last-stage forms leave an even split",
	  KEYS("parallel.pp", "model.num_layers", "parallel.pipeline_layers", "parallel.first_stage_layers",
	       "parallel.last_stage_layers", "parallel.account_for_embedding", "parallel.account_for_loss")},
	 rule_pp_layers},
	{{"sequence_parallel needs tp > 1", KEYS("parallel.sequence_parallel", "parallel.tp")},
	 rule_sequence_parallel},
	{{"overlap.ep a2a_1f1b needs ep > 1, with pp > 1 virtual_pipeline > 1, and no full recompute; dualpipe needs ep > 1 and pipeline_schedule dualpipe or dualpipev",
	  KEYS("overlap.ep", "parallel.ep", "parallel.pp", "parallel.virtual_pipeline", "parallel.pipeline_schedule",
	       "training.recompute")},
	 rule_ep_overlap},
	{{"global_batch_size, when given, is a multiple of micro_batch_size × dp and gives grad_accum_steps (which, when also given, must agree)",
	  KEYS("training.global_batch_size", "training.micro_batch_size", "parallel.dp", "training.grad_accum_steps")},
	 rule_global_batch},
	{{"virtual_pipeline > 1 needs pp > 1, pp × virtual_pipeline dividing num_layers and grad_accum_steps a multiple of pp",
	  KEYS("parallel.virtual_pipeline", "parallel.pp", "model.num_layers", "training.grad_accum_steps")},
	 rule_virtual_pipeline},
	{{"pipeline_schedule defaults to interleaved when virtual_pipeline > 1, else 1f1b; a given one agrees with virtual_pipeline (1 for all but interleaved); zero_bubble needs pp > 1; dualpipe an even pp and an even grad_accum_steps ≥ 2·pp; dualpipev pp > 1, grad_accum_steps ≥ 2·pp and 2·pp dividing num_layers; both even stages",
	  KEYS("parallel.pipeline_schedule", "parallel.virtual_pipeline", "parallel.pp", "training.grad_accum_steps",
	       "model.num_layers", "parallel.pipeline_layers", "parallel.first_stage_layers", "parallel.last_stage_layers")},
	 rule_pipeline_schedule},
	{{"precision.preset gives every byte key not given; working_bytes defaults to param_bytes but under fsdp2",
	  KEYS("precision.preset", "precision.param_bytes", "precision.grad_bytes", "precision.master_bytes",
	       "precision.optimizer_bytes", "precision.working_bytes")},
	 rule_precision_preset},
	{{"offload optimizer+params needs sharding fsdp", KEYS("parallel.offload", "parallel.sharding")}, rule_offload},
	{{"recompute_layers needs recompute full and is at most the layers of a model chunk",
	  KEYS("training.recompute_layers", "training.recompute", "model.num_layers", "parallel.pp",
	       "parallel.virtual_pipeline")},
	 rule_recompute_layers},
	{{"cluster.gpu fills gpu_memory, peak_flops, peak_flops_fp8 and hbm_bandwidth unless given; precision.compute \"fp8\" needs an FP8 peak",
	  KEYS("cluster.gpu", "cluster.gpu_memory", "cluster.peak_flops", "cluster.peak_flops_fp8",
	       "cluster.hbm_bandwidth", "precision.compute")}, rule_gpu_preset},
	{{"the sweep's step_factor is at least 2 and min_bytes at most max_bytes",
	  KEYS("collective.step_factor", "collective.min_bytes", "collective.max_bytes")}, rule_sweep},
	{{"the what-if node is below num_nodes, its factor at most 1, the slow data rank below the world size, and expert_imbalance at most num_experts / experts_per_token",
	  KEYS("whatif.slow_network.node", "whatif.slow_network.factor", "whatif.slow_data_rank.rank",
	       "whatif.expert_imbalance", "cluster.num_nodes", "model.num_experts")}, rule_whatif},
	{{"nvlink_domain is a multiple of gpus_per_node",
	  KEYS("cluster.nvlink_domain", "cluster.gpus_per_node", "cluster.nics_per_node")}, rule_network},
	{{"checkpoint.restore: degrees not given keep the saved ones (dp: the new world / (tp × pp × cp)); tp × pp × dp × cp is num_nodes × gpus_per_node, tp divides the heads, pp (when given) at most num_layers, cp divides seq_length, ep divides dp",
	  KEYS("checkpoint.restore.tp", "checkpoint.restore.pp", "checkpoint.restore.dp", "checkpoint.restore.cp",
	       "checkpoint.restore.ep", "checkpoint.restore.num_nodes", "checkpoint.restore.gpus_per_node")},
	 rule_restore},
	{{"loss.tokens: min_length at most max_length at most seq_length; token_loss above 0 and below 1000",
	  KEYS("loss.tokens.min_length", "loss.tokens.max_length", "model.seq_length", "loss.token_loss")},
	 rule_loss_tokens},
};

#define NRULES (sizeof(rules) / sizeof(rules[0]))

/* Returns 0, or -1 when a rule ended the walk. */
static int check_rules(struct loader *l)
{
	for (size_t i = 0; i < NRULES; i++)
		if (rules[i].check(l) != 0)
			return -1;
	return 0;
}

/* ---- cluster.system presets (docs/network-model.md, "Systems") ----
 *
 * Vendor data: GPUs and NICs from NVIDIA's DGX user guides (the GPU's own
 * figures from its cluster.gpu preset); the
 * NVLink rate per GPU is links x NCCL's effective rate per link (its
 * topology model: 20.0 GB/s on SM80, 20.6 GB/s on SM90); per-hop latencies
 * are NCCL's ring/Simple hop latencies over NVLink (3.4 us) and the
 * network (14 us). A key the config (or --set) gives wins. */
struct system_preset {
	enum dc_gpu gpu; /* its cluster.gpu preset: memory, peaks, HBM */
	uint64_t gpus_per_node, nics_per_node;
	double nvlink_bw, nvlink_lat, nic_bw, nic_lat;
	int nvls;
};

static const struct system_preset presets[] = {
	[DC_SYSTEM_DGX_A100] = {DC_GPU_A100_SXM4_80GB, 8, 8, 12 * 20.0e9, 3.4e-6, 200e9 / 8, 14e-6, 0},
	[DC_SYSTEM_DGX_H100] = {DC_GPU_H100_SXM5_80GB, 8, 8, 18 * 20.6e9, 3.4e-6, 400e9 / 8, 14e-6, 1},
	[DC_SYSTEM_DGX_H200] = {DC_GPU_H200_SXM_141GB, 8, 8, 18 * 20.6e9, 3.4e-6, 400e9 / 8, 14e-6, 1},
};

static void apply_system(struct loader *l)
{
	struct dc_cluster *c = &l->cfg->cluster;
	const struct system_preset *ps;
	if (c->system == DC_SYSTEM_CUSTOM)
		return;
	ps = &presets[c->system];
	if (!seen(l, "cluster.gpus_per_node"))
		c->gpus_per_node = ps->gpus_per_node;
	if (!seen(l, "cluster.gpu"))
		c->gpu = ps->gpu; /* which fills gpu_memory and the GPU's speeds (rule_gpu_preset) */
	if (!seen(l, "cluster.nics_per_node"))
		c->nics_per_node = ps->nics_per_node;
	if (!seen(l, "cluster.intra_node.bandwidth"))
		c->intra_node.bw_bytes_per_s = ps->nvlink_bw;
	if (!seen(l, "cluster.intra_node.latency"))
		c->intra_node.latency_s = ps->nvlink_lat;
	if (!seen(l, "cluster.inter_node.bandwidth"))
		c->inter_node.bw_bytes_per_s = ps->nic_bw;
	if (!seen(l, "cluster.inter_node.latency"))
		c->inter_node.latency_s = ps->nic_lat;
	if (!seen(l, "cluster.nvls"))
		c->nvls = ps->nvls;
}

/* Every required key that is missing, reported whatever else is wrong. */
static void check_missing(struct loader *l)
{
	for (size_t i = 0; i < NKEYS; i++)
		if (is_required(l, i) && !l->seen[i] && !l->suggested[i]) {
			/* a missing section already implies its keys */
			const char *dot = strrchr(keys[i].info.path, '.');
			if (dot) {
				char sec[64];
				snprintf(sec, sizeof(sec), "%.*s", (int)(dot - keys[i].info.path), keys[i].info.path);
				int si = find_key(sec);
				if (si >= 0 && !l->seen[si] && is_required(l, (size_t)si))
					continue;
				/* a section of the wrong type is its own error */
				if (si >= 0 && l->seen[si] && !l->walked[si])
					continue;
			}
			if (hf_named(l) && strcmp(keys[i].info.path, "model.seq_length") == 0)
				errorf(l, -1, "'%s': required key is missing; a Hugging Face config gives no training sequence length (max_position_embeddings is the longest context)",
				       keys[i].info.path);
			else
				errorf(l, -1, "'%s': required key is missing", keys[i].info.path);
		}
}

/* Did the Hugging Face config give every key a parameter count grows
 * with (none from the config file or --set)? */
static int shape_from_hf(const struct loader *l)
{
	static const char *const sizes[] = {"model.hidden_size", "model.ffn_hidden_size", "model.vocab_size",
					    "model.num_layers", "model.num_experts", "model.moe_ffn_hidden_size",
					    "model.shared_expert_ffn_hidden_size"};
	if (!l->hf_loaded)
		return 0;
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		int ki = find_key(sizes[i]);
		if (l->seen[ki] && !l->from_hf[ki])
			return 0;
	}
	return 1;
}

/* An error about the size of a shape the Hugging Face config gave: names
 * that file and its keys ("'hidden_size': WHAT; check hidden_size, ..."). */
static void hf_size_error(struct loader *l, const char *what)
{
	const char *list = dc_hf_size_keys(l->cfg->model.family);
	size_t first;
	if (!list)
		list = "hidden_size";
	first = strcspn(list, ",");
	if (first == strlen(list))
		first = strcspn(list, " ");
	l->errors++;
	dc_diag_add_key(l->diag, DC_SEV_ERROR, DC_ERR_CONFIG, l->opts && l->opts->model_file ? NULL : "model.hf_config",
			"%s: error: '%.*s': %s; check %s",
			l->cfg->model.hf_config, (int)first, list, what, list);
}

static void cross_check(struct loader *l)
{
	struct dc_config *c = l->cfg;
	struct dc_model *m = &c->model;
	uint64_t state_bytes;

	if (l->errors)
		return;
	if (check_rules(l) != 0)
		return;

	/* parameters: explicit or from the shape (blamed on the Hugging Face
	 * file when it gave every size). The loader only validates
	 * the count; the plan (plan.h) derives it */
	uint64_t params;
	m->params_explicit = l->seen[find_key("model.params")];
	if (!m->params_explicit)
		m->params = 0; /* dropped by --model: the shape's count applies */
	{
		struct dc_param_terms t;
		if (dc_params_terms(m, &t) != 0) {
			if (shape_from_hf(l))
				hf_size_error(l, "the parameter count of this shape overflows 64 bits");
			else
				errorf(l, find_key("model.hidden_size"),
				       "'model': the parameter count of this shape overflows 64 bits; check hidden_size, ffn_hidden_size, vocab_size, num_layers and the expert sizes");
			return;
		}
		params = m->params_explicit ? m->params : t.total;
	}
	/* model-state bytes must be representable (overflow guard for the ledger) */
	{
		uint64_t per_param = c->precision.param_bytes;
		if (dc_add_u64(per_param, c->precision.grad_bytes, &per_param) ||
		    dc_add_u64(per_param, c->precision.master_bytes, &per_param) ||
		    dc_add_u64(per_param, c->precision.optimizer_bytes, &per_param) ||
		    dc_mul_u64(params, per_param, &state_bytes) || (double)state_bytes >= DC_MAX_EXACT_INT) {
			char what[160];
			snprintf(what, sizeof(what),
				 "%llu parameters x %llu bytes of model state per parameter must be below 2^53 bytes",
				 (unsigned long long)params, (unsigned long long)per_param);
			if (!m->params_explicit && shape_from_hf(l))
				hf_size_error(l, what);
			else
				errorf(l, m->params_explicit ? find_key("model.params") : find_key("model.hidden_size"),
				       "'%s': %s", m->params_explicit ? "model.params" : "model", what);
		}
	}
	{
		uint64_t tokens;
		if (dc_mul_u64(c->training.micro_batch_size, m->seq_length, &tokens) ||
		    dc_mul_u64(tokens, m->hidden_size, &tokens) || dc_mul_u64(tokens, 64, &tokens) ||
		    (double)tokens >= DC_MAX_EXACT_INT)
			errorf(l, find_key("training.micro_batch_size"),
			       "'training.micro_batch_size': micro_batch_size x seq_length x hidden_size is too large for the activation ledger");
	}
	if (l->errors)
		return;

	/* collective: as given (0 when absent); the plan defaults them to all
	 * ranks and one rank's gradient bytes */
	if (l->seen[find_key("collective.ranks")] && c->collective.ranks > c->world_size)
		errorf(l, find_key("collective.ranks"),
		       "'collective.ranks': must be at most the world size (%llu), got %llu",
		       (unsigned long long)c->world_size, (unsigned long long)c->collective.ranks);
	/* the ring lists 2(p-1) x p transfer events: below 2^49 with the
	 * world capped at 2^24 ranks, so the count is exact */
	c->memory.activation_explicit = l->seen[find_key("memory.activation_bytes_per_token_per_layer")];
}

/* ---- entry points ---- */

/* cJSON allocates through distcalc's wrappers so tests can inject failures. */
static void use_dc_allocator(void)
{
	static int done;
	cJSON_Hooks hooks;
	if (done)
		return;
	hooks.malloc_fn = dc_malloc;
	hooks.free_fn = free;
	cJSON_InitHooks(&hooks);
	done = 1;
}

/* Checks l->buf against the loader's limits and strict JSON, then parses
 * it. Returns the tree, or NULL with the problem recorded (*oom set when
 * only an allocation failed). */
static cJSON *parse_text(struct loader *l, int *oom)
{
	const char *buf = l->buf, *end = NULL;
	size_t len = l->len, i;
	struct scan sc;
	unsigned long failed_before;
	cJSON *root;

	*oom = 0;
	if (len > DC_CONFIG_MAX_BYTES) {
		dc_diag_error(l->diag, DC_ERR_INPUT, "%s: error: file is larger than 1 MiB (%zu bytes)", l->name, len);
		return NULL;
	}
	if (memchr(buf, '\0', len)) {
		size_t pos = (size_t)((const char *)memchr(buf, '\0', len) - buf);
		syntax_error(l, pos, "NUL byte in the file; a config is UTF-8 JSON text");
		return NULL;
	}
	i = len >= 3 && memcmp(buf, "\xef\xbb\xbf", 3) == 0 ? 3 : 0;
	while (i < len && is_space(buf[i]))
		i++;
	if (i == len) {
		dc_diag_error(l->diag, DC_ERR_CONFIG, "%s: error: the file is empty; a config is a JSON object", l->name);
		return NULL;
	}
	if (scan_text(&sc, buf, len) != 0) {
		syntax_error(l, sc.err_pos, sc.what);
		return NULL;
	}
	use_dc_allocator();
	failed_before = dc_alloc_failures();
	root = cJSON_ParseWithLengthOpts(buf, len, &end, 0);
	if (!root) {
		/* the text passed scan_text, so only a failed allocation stops cJSON */
		if (dc_alloc_failures() != failed_before)
			*oom = 1;
		else
			syntax_error(l, end ? (size_t)(end - buf) : 0, "cannot parse this JSON");
	}
	return root;
}

/* Reads `path` whole (at most DC_CONFIG_MAX_BYTES). Returns the bytes (the
 * caller frees them), or NULL with the reason in `diag`; `via` (NULL for a
 * config) says who named the file, and `key` (or NULL) is the config key
 * that did, for the entry. */
static char *read_limited(const char *path, const char *via, const char *key, size_t *len,
			  struct dc_diag *diag)
{
	const char *open_paren = via ? " (" : "", *close_paren = via ? ")" : "";
	char shown[DC_CONFIG_MAX_STRING * 4]; /* the name as messages print it */

	if (!via)
		via = "";
	FILE *f;
	struct stat st;
	char *buf;
	size_t n;

	dc_fmt_printable(shown, sizeof(shown), path);
	f = fopen(path, "rb");
	if (!f) {
		dc_diag_add_key(diag, DC_SEV_ERROR, DC_ERR_INPUT, key, "%s: error: cannot open: %s%s%s%s", shown,
				strerror(errno), open_paren, via, close_paren);
		return NULL;
	}
	if (fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
		fclose(f);
		dc_diag_add_key(diag, DC_SEV_ERROR, DC_ERR_INPUT, key,
				"%s: error: is a directory, not a config file%s%s%s", shown, open_paren, via, close_paren);
		return NULL;
	}
	buf = dc_malloc(DC_CONFIG_MAX_BYTES + 1);
	if (!buf) {
		fclose(f);
		dc_diag_error(diag, DC_ERR_INTERNAL, "%s: error: out of memory", shown);
		return NULL;
	}
	n = fread(buf, 1, DC_CONFIG_MAX_BYTES + 1, f);
	if (ferror(f)) {
		dc_diag_add_key(diag, DC_SEV_ERROR, DC_ERR_INPUT, key, "%s: error: read failed: %s", shown,
				strerror(errno));
		fclose(f);
		free(buf);
		return NULL;
	}
	fclose(f);
	if (n > DC_CONFIG_MAX_BYTES) {
		dc_diag_add_key(diag, DC_SEV_ERROR, DC_ERR_INPUT, key, "%s: error: file is larger than 1 MiB%s%s%s",
				shown, open_paren, via, close_paren);
		free(buf);
		return NULL;
	}
	*len = n;
	return buf;
}

static int is_model_shape_key(size_t i)
{
	return strncmp(keys[i].info.path, "model.", 6) == 0 && keys[i].off != NOFF &&
	       strcmp(keys[i].info.path, "model.params") != 0 && strcmp(keys[i].info.path, "model.seq_length") != 0;
}

/* The Hugging Face config named by --model or model.hf_config: read it
 * (hf.c maps it), then take its value for every model key the config does
 * not give. With --model its shape replaces the config file's model keys
 * (model.seq_length stays; --set still applies on top). */
static void load_hf(struct loader *l)
{
	const struct dc_load_opts *o = l->opts;
	int k_hf = find_key("model.hf_config"), oom = 0;
	const char *rel, *dir = NULL;
	char path[sizeof(l->cfg->model.hf_config)];
	struct loader hl;
	struct dc_model hm;
	cJSON *root;
	char *buf;
	size_t n = 0;
	int len;

	if (o && o->model_file) {
		rel = o->model_file;
	} else if (l->hf_path[0]) {
		rel = l->hf_path;
		dir = l->from_set[k_hf] ? NULL : l->dir;
	} else {
		return;
	}
	if (dir && *dir && rel[0] != '/')
		len = snprintf(path, sizeof(path), "%s/%s", dir, rel);
	else
		len = snprintf(path, sizeof(path), "%s", rel);
	if (len < 0 || (size_t)len >= sizeof(path)) {
		errorf(l, k_hf, "'model.hf_config': the path is longer than %zu bytes", sizeof(path) - 1);
		return;
	}
	{
		char via[320];
		if (o && o->model_file)
			snprintf(via, sizeof(via), "named by --model");
		else
			snprintf(via, sizeof(via), "named by 'model.hf_config' in %.256s", origin(l, k_hf));
		buf = read_limited(path, via, o && o->model_file ? NULL : "model.hf_config", &n, l->diag);
	}
	if (!buf) {
		l->errors++;
		return;
	}
	memset(&hl, 0, sizeof(hl));
	hl.name = path;
	hl.buf = buf;
	hl.len = n;
	hl.cfg = l->cfg;
	hl.diag = l->diag;
	root = parse_text(&hl, &oom);
	if (!root) {
		if (oom)
			dc_diag_error(l->diag, DC_ERR_INTERNAL, "%s: error: out of memory", path);
		l->errors++;
		free(buf);
		return;
	}
	if (dc_hf_model_read(root, path, &hm, l->diag) != 0) {
		l->errors++;
	} else {
		struct dc_model *m = &l->cfg->model;
		for (size_t i = 0; i < NKEYS; i++) {
			size_t moff;
			if (!is_model_shape_key(i))
				continue;
			if (o && o->model_file && !l->from_set[i])
				l->seen[i] = 0;
			if (l->seen[i])
				continue;
			moff = keys[i].off - offsetof(struct dc_config, model);
			if (keys[i].kind == K_COUNT || keys[i].kind == K_UINT)
				memcpy((char *)m + moff, (const char *)&hm + moff, sizeof(uint64_t));
			else
				memcpy((char *)m + moff, (const char *)&hm + moff, sizeof(int));
			l->seen[i] = 1;
			l->from_hf[i] = 1;
		}
		if (o && o->model_file && !l->from_set[find_key("model.params")])
			l->seen[find_key("model.params")] = 0;
		snprintf(m->family, sizeof(m->family), "%s", hm.family);
		snprintf(m->hf_config, sizeof(m->hf_config), "%s", path);
		l->hf_loaded = 1;
	}
	cJSON_Delete(root);
	free(buf);
}

/* cluster.topology_file: reads the matrix (topo_file.h) and fills the
 * cluster keys it settles that the config (or --set) does not give:
 * nvlink_domain (when every GPU of the node shares NVLink; fewer warns),
 * nics_per_node (the NICs some GPU is nearest to) and
 * nic_path (the worst GPU-to-NIC path; NODE, between the host bridges of
 * one socket, counts as PHB). Its GPU count must be gpus_per_node. */
static void load_topology(struct loader *l)
{
	static struct dc_topo_file t; /* 12 KiB: off the stack; the loader is not reentrant per thread anyway */
	int kt = find_key("cluster.topology_file");
	struct dc_cluster *c = &l->cfg->cluster;
	char path[DC_CONFIG_MAX_STRING * 2 + 2];
	const char *dir = l->from_set[kt] ? NULL : l->dir;
	size_t before = l->diag->count;
	int k, len;

	if (!l->topo_path[0])
		return;
	if (dir && *dir && l->topo_path[0] != '/')
		len = snprintf(path, sizeof(path), "%s/%s", dir, l->topo_path);
	else
		len = snprintf(path, sizeof(path), "%s", l->topo_path);
	if (len < 0 || (size_t)len >= sizeof(path)) {
		errorf(l, kt, "'cluster.topology_file': the path is longer than %zu bytes", sizeof(path) - 1);
		return;
	}
	if (dc_topo_file_read(path, &t, l->diag) != 0) {
		/* the reader's line names the file and the line; the entry names the key too */
		for (size_t i = before; i < l->diag->count; i++)
			if (!l->diag->entries[i].key)
				l->diag->entries[i].key = dc_strdup("cluster.topology_file");
		l->errors++;
		return;
	}
	if (t.ngpus != c->gpus_per_node) {
		errorf(l, kt, "'cluster.topology_file': '%s' lists %zu GPUs but cluster.gpus_per_node is %llu", path,
		       t.ngpus, (unsigned long long)c->gpus_per_node);
		return;
	}
	snprintf(c->topology_file, sizeof(c->topology_file), "%s", path);
	/* the model's NVLink domain is the node or a multiple of it: a node
	 * whose GPUs share NVLink in smaller groups (bridged pairs) or not at
	 * all is one domain at the intra-node rate the config gives */
	if (t.nvlink_domain == t.ngpus && ((k = find_key("cluster.nvlink_domain")) < 0 || !l->seen[k]))
		c->nvlink_domain = t.nvlink_domain;
	else if (t.nvlink_domain < t.ngpus)
		warnf(l, kt,
		      "'cluster.topology_file': %s; the network model prices the node as one domain at "
		      "cluster.intra_node.bandwidth (%g GB/s): give the PCIe or bridge rate there",
		      t.nvlink_domain == 1 ? "no two GPUs share NVLink" : "GPUs share NVLink only in groups",
		      c->intra_node.bw_bytes_per_s / 1e9);
	if (t.nics_per_node && ((k = find_key("cluster.nics_per_node")) < 0 || !l->seen[k]))
		c->nics_per_node = t.nics_per_node;
	if (t.nnics && ((k = find_key("cluster.nic_path")) < 0 || !l->seen[k])) {
		switch (t.worst_nic_path) {
		case DC_TOPO_SYS: c->nic_path = DC_NIC_PATH_SYS; break;
		case DC_TOPO_NODE:
		case DC_TOPO_PHB: c->nic_path = DC_NIC_PATH_PHB; break;
		case DC_TOPO_PXB: c->nic_path = DC_NIC_PATH_PXB; break;
		default: c->nic_path = DC_NIC_PATH_PIX; break;
		}
	}
}

/* `dir`: the directory model.hf_config is relative to (NULL: the current
 * one). */
static int load_buffer(const char *buf, size_t len, const char *name, const char *dir,
		       const struct dc_load_opts *opts, struct dc_config *cfg, struct dc_diag *diag)
{
	struct loader l;
	char shown[DC_CONFIG_MAX_STRING * 4];
	cJSON *root = NULL;
	size_t i, noverrides = opts ? opts->noverrides : 0;
	unsigned long failed_before;
	int rc = -1, oom = 0;

	memset(&l, 0, sizeof(l));
	/* messages name the file escaped: a newline or ESC in it stays text */
	dc_fmt_printable(shown, sizeof(shown), name);
	l.name = shown;
	l.buf = buf;
	l.len = len;
	l.cfg = cfg;
	l.diag = diag;
	l.opts = opts;
	l.dir = dir;
	set_defaults(cfg);

	root = parse_text(&l, &oom);
	if (!root) {
		if (oom)
			goto oom;
		return -1;
	}
	if (!cJSON_IsObject(root)) {
		dc_diag_error(diag, DC_ERR_CONFIG, "%s: error: the top level must be a JSON object, got %s", name,
			      type_name(root));
		goto out;
	}
	for (i = 0; i < noverrides; i++) {
		failed_before = dc_alloc_failures();
		int ki = apply_override(&l, root, opts->overrides[i].text);
		if (ki == -2 || dc_alloc_failures() != failed_before)
			goto oom;
		if (ki >= 0)
			l.from_set[ki] = 1;
	}
	/* a --set that is not PATH=VALUE is a usage error and ends the load;
	 * one that names an unknown key still lets the file be checked */
	if (diag->status == DC_ERR_USAGE)
		goto out;
	walk(&l, root, "");
	if (l.errors == 0)
		load_hf(&l);
	apply_system(&l);
	if (l.errors == 0)
		load_topology(&l);
	check_missing(&l);
	if (l.errors == 0)
		cross_check(&l);
	rc = l.errors || diag->errors ? -1 : 0;
out:
	cJSON_Delete(root);
	return rc;
oom:
	cJSON_Delete(root);
	dc_diag_error(diag, DC_ERR_INTERNAL, "%s: error: out of memory", name);
	return -1;
}

int dc_config_load_buffer_opts(const char *buf, size_t len, const char *name,
			       const struct dc_load_opts *opts, struct dc_config *cfg,
			       struct dc_diag *diag)
{
	return load_buffer(buf, len, name, NULL, opts, cfg, diag);
}

int dc_config_load_buffer(const char *buf, size_t len, const char *name,
			  const struct dc_override *overrides, size_t noverrides,
			  struct dc_config *cfg, struct dc_diag *diag)
{
	struct dc_load_opts o = {overrides, noverrides, NULL};
	return load_buffer(buf, len, name, NULL, &o, cfg, diag);
}

int dc_config_load_file_opts(const char *path, const struct dc_load_opts *opts,
			     struct dc_config *cfg, struct dc_diag *diag)
{
	char *buf, *dir = NULL;
	size_t n = 0;
	int rc;
	const char *slash = strrchr(path, '/');

	set_defaults(cfg);
	buf = read_limited(path, NULL, NULL, &n, diag);
	if (!buf)
		return -1;
	/* model.hf_config is relative to the config file's directory */
	if (slash) {
		dir = dc_strndup(path, slash == path ? 1 : (size_t)(slash - path));
		if (!dir) {
			free(buf);
			dc_diag_error(diag, DC_ERR_INTERNAL, "%s: error: out of memory", path);
			return -1;
		}
	}
	rc = load_buffer(buf, n, path, dir, opts, cfg, diag);
	free(dir);
	free(buf);
	return rc;
}

int dc_config_load_file(const char *path, const struct dc_override *overrides, size_t noverrides,
			struct dc_config *cfg, struct dc_diag *diag)
{
	struct dc_load_opts o = {overrides, noverrides, NULL};
	return dc_config_load_file_opts(path, &o, cfg, diag);
}

const char *dc_sharding_name(enum dc_sharding s)
{
	return sharding_names[s];
}

const char *dc_axis_name(enum dc_axis a)
{
	return axis_names[a];
}

const char *dc_cp_comm_name(enum dc_cp_comm c)
{
	return cp_comm_names[c];
}

const char *dc_ckpt_format_name(enum dc_ckpt_format f)
{
	return ckpt_format_names[f];
}

const char *dc_loss_mode_name(enum dc_loss_mode m)
{
	return loss_mode_names[m];
}

const char *dc_search_objective_name(enum dc_search_objective o)
{
	return objective_names[o];
}

const char *dc_pipe_schedule_name(enum dc_pipe_schedule s)
{
	return pipe_schedule_names[s];
}

const char *dc_recompute_name(enum dc_recompute r)
{
	return recompute_names[r];
}

const char *dc_collective_op_name(enum dc_collective_op op)
{
	return collective_op_names[op];
}

const char *dc_system_name(enum dc_system s)
{
	return system_names[s];
}

const char *dc_nic_path_name(enum dc_nic_path p)
{
	return nic_path_names[p];
}

const char *dc_attention_name(enum dc_attention a)
{
	return attention_names[a];
}

const char *dc_precision_preset_name(enum dc_precision_preset p)
{
	return preset_names[p];
}

const char *dc_offload_name(enum dc_offload o)
{
	return offload_names[o];
}

const char *dc_norm_name(enum dc_norm n)
{
	return norm_names[n];
}

const char *dc_gpu_name(enum dc_gpu g)
{
	return g == DC_GPU_NONE || g >= DC_GPU_COUNT ? "" : gpu_names[g - 1];
}

const char *dc_compute_precision_name(enum dc_compute_precision c)
{
	return compute_precision_names[c];
}

const char *dc_link_choice_name(enum dc_link_choice l)
{
	return link_names[l];
}

/* ---- the key table, read-only (config.h) ---- */

size_t dc_config_key_count(void)
{
	return NKEYS;
}

const struct dc_config_key_info *dc_config_key_at(size_t i)
{
	return i < NKEYS ? &keys[i].info : NULL;
}

const struct dc_config_key_info *dc_config_key_find(const char *path)
{
	int ki = find_key(path);
	return ki < 0 ? NULL : &keys[ki].info;
}

size_t dc_config_rule_count(void)
{
	return NRULES;
}

const struct dc_config_rule_info *dc_config_rule_at(size_t i)
{
	return i < NRULES ? &rules[i].info : NULL;
}

/* ---- the strict JSON check, for other readers of JSON (config.h) ---- */

int dc_json_check_strict(const char *buf, size_t len, size_t *line, size_t *col, char *what, size_t whatlen)
{
	struct scan sc;
	size_t line_start;

	if (scan_text(&sc, buf, len) == 0)
		return 0;
	line_col(buf, len, sc.err_pos, line, col, &line_start);
	snprintf(what, whatlen, "%s", sc.what);
	return -1;
}
