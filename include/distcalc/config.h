/* config.h - the validated configuration: plain structs, no cJSON.
 *
 * The loader reads JSON (a file or a buffer), applies --set overrides,
 * validates every key and every cross-field rule, and reports all problems
 * at once through struct dc_diag. Nothing here is cJSON: the tree never
 * leaves config.c.
 *
 * Units: byte counts are uint64_t bytes, bandwidths double bytes/s, times
 * double seconds.
 *
 * The loader derives nothing an estimator computes: plan.h turns the
 * config into derived quantities (parameter totals, defaults of the ring
 * lab, degrees and links). Every estimator reads a plan made from a config
 * that came from this loader and relies on what it guarantees: counts and
 * degrees are at least 1, dp x tp x cp x pp is the world size, tp divides
 * the heads, the stages' layers (dc_plan_stage_layers) add up to the
 * layers, cp splits the sequence, ep divides dp, byte
 * products fit in 2^53. A hand-built config
 * must keep those promises. Every key, unit and default is documented in
 * docs/config.md.
 */
#ifndef DISTCALC_CONFIG_H
#define DISTCALC_CONFIG_H

#include <stddef.h>
#include <stdint.h>

#include "distcalc/diag.h"

enum dc_mlp {
	DC_MLP_SWIGLU, /* gate, up, down: 3 h x f matrices (Llama) */
	DC_MLP_GELU,   /* up, down: 2 h x f matrices (GPT) */
};

/* Normalisation layers: RMSNorm has a weight vector (h), LayerNorm a weight
 * and a bias (2h). */
enum dc_norm {
	DC_NORM_RMSNORM,
	DC_NORM_LAYERNORM,
};

enum dc_sharding {
	DC_SHARD_NONE,  /* DDP: every rank holds full model states */
	DC_SHARD_ZERO1, /* master params + optimizer states sharded over dp */
	DC_SHARD_ZERO2, /* + gradients */
	DC_SHARD_FSDP,  /* + parameters (ZeRO-3 / FSDP) */
};

/* CPU offload of model states (ZeRO-Offload, FSDP CPUOffload). */
enum dc_offload {
	DC_OFFLOAD_NONE,
	DC_OFFLOAD_OPTIMIZER,        /* master copy and optimizer states (and an FP32 grad copy) on the host */
	DC_OFFLOAD_OPTIMIZER_PARAMS, /* + the parameter and gradient shards (needs sharding fsdp) */
};

enum dc_fsdp_unit {
	DC_FSDP_UNIT_LAYER, /* one transformer layer per AllGather group */
	DC_FSDP_UNIT_MODEL, /* the whole model in one group */
};

enum dc_recompute {
	DC_RECOMPUTE_NONE,      /* keep every activation */
	DC_RECOMPUTE_SELECTIVE, /* recompute attention's softmax/dropout part */
	DC_RECOMPUTE_FULL,      /* keep only each layer's input; rerun forward */
	DC_RECOMPUTE_OP,        /* torch per-op selective policy as torchtitan configures it */
};

/* training.recompute_modules: the modules Megatron-Core's selective
 * recompute reruns (its --recompute-modules; transformer_config.py
 * recompute_modules), each a bit of the mask (docs/formulas.md,
 * "Recompute modules") */
enum dc_recompute_module {
	DC_RCM_CORE_ATTN,      /* the attention core (the default) */
	DC_RCM_MLP,            /* a dense layer's whole MLP */
	DC_RCM_MOE,            /* a MoE layer's whole MLP part: router, dispatch, experts, combine */
	DC_RCM_MOE_ACT,        /* the routed experts' activation */
	DC_RCM_LAYERNORM,      /* the norms kept apart: MLA's input norm, a MoE layer's pre-MLP norm */
	DC_RCM_MLA_UP_PROJ,    /* MLA's up-projections and rotation: q, k, v */
	DC_RCM_SHARED_EXPERTS, /* a MoE layer's shared experts */
};
#define DC_RCM(m) (1u << (m))

/* How attention's forward keeps what backward needs (docs/formulas.md,
 * "Activation memory"). */
enum dc_attention {
	DC_ATTENTION_FLASH, /* fused kernel: scores, softmax and its dropout mask never stored */
	DC_ATTENTION_EAGER, /* QK^T, softmax and dropout as separate ops (Korthikanti 5as^2b) */
};

/* training.framework: whose overlap rules the step model follows
 * (docs/step-model.md, "Framework rules"). */
enum dc_framework {
	DC_FRAMEWORK_CUSTOM,     /* the keys as given, each default as it was before the key */
	DC_FRAMEWORK_MEGATRON,   /* Megatron-LM / Megatron-Core */
	DC_FRAMEWORK_TORCHTITAN, /* torchtitan (FSDP2, DTensor TP, async TP) */
	DC_FRAMEWORK_DEEPSPEED,  /* DeepSpeed's ZeRO engine */
};

/* training.optimizer_implementation: how Adam's update runs over the
 * parameters (docs/compute-model.md, "Optimizer step") */
enum dc_optimizer_impl {
	DC_OPT_IMPL_FUSED,   /* one multi-tensor kernel: torch's fused AdamW, Apex / TE FusedAdam */
	DC_OPT_IMPL_FOREACH, /* torch's foreach AdamW: eight multi-tensor passes */
};

enum dc_axis {
	DC_AXIS_TP,
	DC_AXIS_CP,
	DC_AXIS_EP,
	DC_AXIS_DP,
	DC_AXIS_PP,
	DC_AXIS_COUNT,
};

/* cluster.gpu: a GPU preset (docs/compute-model.md, "The presets"), or none. */
enum dc_gpu {
	DC_GPU_NONE,           /* no preset: the cluster keys say what they say */
	DC_GPU_A100_SXM4_40GB, /* "a100-sxm4-40gb" */
	DC_GPU_A100_SXM4_80GB, /* "a100-sxm4-80gb" */
	DC_GPU_H100_SXM5_80GB, /* "h100-sxm5-80gb" */
	DC_GPU_H100_NVL_94GB,  /* "h100-nvl-94gb" */
	DC_GPU_H100_PCIE_80GB, /* "h100-pcie-80gb" */
	DC_GPU_H800_SXM5_80GB, /* "h800-sxm5-80gb" */
	DC_GPU_H200_SXM_141GB, /* "h200-sxm-141gb" */
	DC_GPU_GH200_96GB,     /* "gh200-96gb" */
	DC_GPU_B200_SXM_180GB, /* "b200-sxm-180gb" */
	DC_GPU_GB200,          /* "gb200" */
	DC_GPU_COUNT,
};

/* The architecture of a cluster.gpu preset: which attention kernels and
 * FP8 recipes it runs (docs/compute-model.md, "The presets"). */
enum dc_gpu_arch {
	DC_GPU_ARCH_UNKNOWN,   /* no preset */
	DC_GPU_ARCH_AMPERE,    /* sm80 */
	DC_GPU_ARCH_HOPPER,    /* sm90 */
	DC_GPU_ARCH_BLACKWELL, /* sm100 */
};

/* training.attention_backend: the fused-attention kernel whose speed the
 * attention core runs at (docs/compute-model.md, "Attention backends"). */
enum dc_attention_backend {
	DC_ATTN_BACKEND_EAGER, /* QK^T, softmax, dropout, AV as separate kernels */
	DC_ATTN_BACKEND_SDPA,  /* FlashAttention-2 through PyTorch's scaled_dot_product_attention */
	DC_ATTN_BACKEND_CUDNN, /* cuDNN's fused attention (Transformer Engine) */
	DC_ATTN_BACKEND_FA3,   /* FlashAttention-3 (Hopper only) */
	DC_ATTN_BACKEND_COUNT,
};

/* training.moe_dispatcher: how a MoE layer's tokens reach their experts
 * and come back (docs/formulas-systems.md, "Expert parallel"). */
enum dc_moe_dispatcher {
	DC_MOE_DISPATCH_ALLTOALL, /* an AlltoAll of each token's k routed copies (Megatron's alltoall, torchtitan's) */
	DC_MOE_DISPATCH_DEEPEP,   /* DeepEP's normal kernels: once per destination node over the network, then NVLink */
	DC_MOE_DISPATCH_COUNT,
};

/* precision.fp8_recipe: how FP8 GEMM inputs are scaled and cast
 * (docs/compute-model.md, "FP8 recipes"). */
enum dc_fp8_recipe {
	DC_FP8_DELAYED, /* Transformer Engine: per-tensor scale from the amax history, fused cast+transpose */
	DC_FP8_CURRENT, /* Transformer Engine: per-tensor scale from this tensor's amax (two reads) */
	DC_FP8_ROWWISE, /* torchao: dynamic rowwise scales, each GEMM input cast along both axes */
	DC_FP8_MXFP8,   /* Transformer Engine: 1 x 32 E8M0 block scales (Blackwell) */
};

/* precision.attention: the number format of the attention core. */
enum dc_attention_precision {
	DC_ATTN_PRECISION_BF16,
	DC_ATTN_PRECISION_FP8, /* FP8 fused attention (cudnn or fa3, with precision.compute "fp8") */
};

/* precision.compute: the number format matmuls run in. */
enum dc_compute_precision {
	DC_COMPUTE_BF16, /* BF16/FP16 tensor cores */
	DC_COMPUTE_FP8,  /* FP8 tensor cores (cluster.peak_flops_fp8) */
};

enum dc_link_choice {
	DC_LINK_AUTO,
	DC_LINK_INTRA,
	DC_LINK_INTER,
};

/* Collective algorithms of the network model (net.h), as
 * collective.algorithm names them. */
/* Knots of the fitted bandwidth ramp (net.h, dc_net_ramp_factor). */
#define DC_NET_RAMP_KNOTS 5

enum dc_net_algo {
	DC_NET_ALGO_AUTO, /* the fastest the op supports (NCCL's tuner) */
	DC_NET_ALGO_RING, /* flat ring over every rank */
	DC_NET_ALGO_HIER, /* intra reduce-scatter, inter over every rail, intra all-gather */
	DC_NET_ALGO_TREE, /* double binary tree between nodes, chain inside */
	DC_NET_ALGO_NVLS, /* NVLink SHARP inside a domain (+ every rail between) */
	DC_NET_ALGO_PAT,  /* NCCL's PAT: AllGather / ReduceScatter at one GPU per node */
	DC_NET_ALGO_COUNT,
};

/* cluster.system presets (docs/network-model.md, "Systems"). */
enum dc_system {
	DC_SYSTEM_CUSTOM, /* no preset: the config gives every value */
	DC_SYSTEM_DGX_A100,
	DC_SYSTEM_DGX_H100,
	DC_SYSTEM_DGX_H200,
	DC_SYSTEM_DGX_B200,
	DC_SYSTEM_GB200_NVL72,
	DC_SYSTEM_HGX_H800,
	DC_SYSTEM_AWS_P5,           /* p5.48xlarge: 8 H100, 32 x 100 Gb/s EFA */
	DC_SYSTEM_AWS_P5E,          /* p5e.48xlarge: 8 H200, 32 x 100 Gb/s EFA */
	DC_SYSTEM_GCP_A3_MEGA,      /* a3-megagpu-8g: 8 H100, 8 x 200 Gb/s GPUDirect-TCPXO */
	DC_SYSTEM_AZURE_ND_H100_V5, /* Standard_ND96isr_H100_v5: 8 H100, 8 x 400 Gb/s NDR InfiniBand */
	DC_SYSTEM_OCI_BM_GPU_H100,  /* BM.GPU.H100.8: 8 H100, 16 x 200 Gb/s RoCE */
};

/* cluster.network: the fabric between nodes, for its latency and CPU
 * overhead per step (docs/network-model.md, "Fabrics"). */
enum dc_network {
	DC_NETWORK_IB,    /* InfiniBand (NCCL's own IB transport) */
	DC_NETWORK_ROCE,  /* RoCE (NCCL's IB transport over Ethernet) */
	DC_NETWORK_EFA,   /* AWS Elastic Fabric Adapter (aws-ofi-nccl plugin) */
	DC_NETWORK_TCPXO, /* GCP GPUDirect-TCPXO (the FasTrak plugin) */
};

/* cluster.nic_path: the slowest GPU-to-NIC path, as `nvidia-smi topo -m`
 * names it (docs/network-model.md, "GPU-to-NIC paths"). */
enum dc_nic_path {
	DC_NIC_PATH_PIX, /* through at most one PCIe switch: GPUDirect RDMA at the NIC's rate */
	DC_NIC_PATH_PXB, /* through several PCIe switches (the GPU shares a switch with another GPU's NIC) */
	DC_NIC_PATH_PHB, /* through the CPU's PCIe host bridge */
	DC_NIC_PATH_SYS, /* across the CPU sockets' interconnect (UPI, xGMI) */
};

struct dc_link {
	double bw_bytes_per_s; /* effective one-way bandwidth, > 0 */
	double latency_s;      /* per-message start-up, >= 0 */
};

struct dc_model {
	uint64_t num_layers;
	uint64_t hidden_size;
	uint64_t num_attention_heads;
	uint64_t num_kv_heads; /* default: num_attention_heads */
	uint64_t head_dim;     /* default: hidden_size / num_attention_heads */
	uint64_t ffn_hidden_size;
	uint64_t vocab_size;
	uint64_t seq_length;
	enum dc_mlp mlp;
	int tie_word_embeddings;
	uint64_t params;      /* model.params as given; 0 when absent (the plan counts the shape) */
	int params_explicit;  /* 1 when model.params was given */
	int params_as_shape;  /* 1 when model.params was given equal to the shape's
	                       * count (params_explicit then 0: the shape's report) */

	/* family details (docs/models.md); the defaults describe a Llama-style model */
	char family[32];          /* "llama", "gpt2", ... from a Hugging Face config, else "custom" */
	int dropout;              /* dropout after attention, MLP and inside attention (GPT-2, Megatron 2022) */
	enum dc_norm norm;        /* default RMSNorm */
	int qkv_bias;             /* biases on q, k and v (Qwen2, GPT-2) */
	int out_bias;             /* bias on the attention output projection (GPT-2) */
	int mlp_bias;             /* biases on the MLP projections (GPT-2) */
	int qk_norm;              /* RMSNorm of head_dim on q and k per layer (Qwen3) */
	uint64_t position_embeddings; /* rows of a learned position table (GPT-2); 0: RoPE */
	uint64_t hf_max_positions;    /* a Hugging Face config's max_position_embeddings (0: none given), the
				       * longest context its rotary positions were set up for */

	/* mixture of experts: 0 experts is a dense model */
	uint64_t num_experts;         /* routed experts per MoE layer */
	uint64_t experts_per_token;   /* top-k */
	uint64_t moe_ffn_hidden_size; /* one routed expert's inner size */
	uint64_t shared_expert_ffn_hidden_size; /* all shared experts together; 0: none */
	int shared_expert_gate;       /* sigmoid gate h -> 1 on the shared expert (Qwen2-MoE) */
	int router_bias;              /* per-expert score bias (DeepSeek-V3 e_score_correction_bias) */
	uint64_t dense_layers;        /* the first layers keep a dense MLP (DeepSeek first_k_dense_replace) */
	uint64_t router_groups;       /* experts split into this many equal groups (DeepSeek n_group); 1: none */
	uint64_t router_group_topk;   /* a token's experts come from this many groups (topk_group) */

	/* multi-head latent attention (DeepSeek-V2/V3): kv_lora_rank 0 is plain attention */
	uint64_t q_lora_rank;         /* 0: q is one h x a(nope + rope) projection */
	uint64_t kv_lora_rank;
	uint64_t qk_rope_head_dim;
	uint64_t qk_nope_head_dim;
	uint64_t v_head_dim;

	/* layer kinds (docs/models.md, "Layer kinds"); layer i counts from 1
	 * in the "every n-th" rules, as transformers' layer_types do */
	uint64_t sliding_window;          /* keys a sliding-window layer attends to; 0: every layer global */
	uint64_t sliding_window_pattern;  /* with a window, every n-th layer is global; 0: none is */
	int attention_sinks;              /* a learned sink logit per head and layer (gpt-oss) */
	int attention_output_gate;        /* q_proj also gives a sigmoid gate of a d per token (Qwen3-Next) */
	int sandwich_norm;                /* a norm after attention and after the MLP too (Gemma 2 and 3) */
	/* the sliding_window layers attend within fixed chunks of
	 * sliding_window tokens (Llama 4's chunked attention), not a window */
	int attention_chunked;
	uint64_t full_attention_interval; /* 0: no linear attention; n: every n-th layer softmax, the rest Gated DeltaNet */
	uint64_t linear_num_key_heads;    /* Gated DeltaNet: query/key heads */
	uint64_t linear_num_value_heads;  /* Gated DeltaNet: value heads (a multiple of the key heads) */
	uint64_t linear_key_head_dim;
	uint64_t linear_value_head_dim;
	uint64_t linear_conv_kernel_dim;  /* the depthwise causal convolution's width */
	uint64_t moe_layer_interval;      /* routed experts on every n-th layer (Llama 4); 0 and 1: every layer */
	uint64_t mtp_layers;              /* multi-token-prediction modules after the last layer (DeepSeek-V3) */

	char hf_config[512];          /* the Hugging Face config.json read, as opened; "" if none */
};

/* The SMs Transformer Engine's userbuffers keep from the GEMMs for the
 * "pipeline" and "bulk" TP-overlap collectives under Megatron's
 * --tp-comm-overlap (num_sm 16 with set_sm_margin in
 * transformer_engine/pytorch/module/base.py, get_default_config):
 * cluster.sm_count must exceed it (config rule), and the tiled GEMMs run
 * on the rest (compute.c). */
#define DC_TE_COMM_SMS 16

struct dc_cluster {
	uint64_t num_nodes;
	uint64_t gpus_per_node;
	uint64_t gpu_mem_bytes;
	enum dc_gpu gpu;       /* cluster.gpu; DC_GPU_NONE when absent */
	/* the GPU's speeds, from the preset unless given; 0 = unknown */
	double peak_flops;     /* dense BF16/FP16 matmul FLOP/s */
	double peak_flops_fp8; /* dense FP8 matmul FLOP/s (0: none or unknown) */
	double hbm_bandwidth;  /* bytes/s */
	/* the kernel model's GPU parameters (compute.h); 0 = the cluster.gpu
	 * preset's set (the A100's without a preset) */
	uint64_t sm_count;        /* streaming multiprocessors: one wave of GEMM tiles */
	double matmul_efficiency; /* sustained fraction of the matmul peak, (0, 1) */
	double memory_efficiency; /* sustained fraction of hbm_bandwidth, (0, 1) */
	/* the fused attention core's levels, fractions of the BF16 peak, set
	 * only by --calibrate-compute (no key); 0: the GPU set's */
	double attention_fwd_efficiency, attention_bwd_efficiency;
	/* the FP8 GEMMs' level, a fraction of peak_flops_fp8, set only by
	 * --calibrate-compute under precision.compute "fp8" (no key); 0: the
	 * GPU set's, scaled as matmul_efficiency scales the BF16 one */
	double matmul_efficiency_fp8;
	uint64_t host_mem_bytes; /* cluster.host_memory per node; 0: not checked */
	/* parallel.offload's host optimizer (docs/step-model.md, "The optimizer
	 * on the host"): one GPU's copy to or from host memory, one way, bytes/s
	 * (0: the cluster.gpu preset's, the A100's without one); and the
	 * parameters a node's CPUs step with Adam per second */
	double host_bw_bytes_per_s;
	double host_adam_params_per_s;
	struct dc_link intra_node;  /* bandwidth per GPU, one way; latency per hop */
	struct dc_link inter_node;  /* bandwidth per NIC, one way; latency per hop */
	enum dc_system system;      /* cluster.system; its values fill keys the config leaves out */
	uint64_t nvlink_domain;     /* GPUs sharing NVLink; the loader fills gpus_per_node by default */
	int nvls;                   /* NVLink SHARP available */
	int collnet;                /* cluster.collnet: CollNet / SHARP in the network switches */
	uint64_t nccl_channels;     /* cluster.nccl_channels; 0: NCCL's default for the system (net.h) */
	enum dc_network network;    /* cluster.network */
	uint64_t nics_per_node;     /* the loader fills gpus_per_node by default: one NIC per GPU */
	double oversubscription;    /* >= 1 */
	uint64_t nodes_per_leaf;    /* 0: every node under one leaf switch */
	enum dc_nic_path nic_path;
	char topology_file[520];    /* cluster.topology_file as opened; "" if none */
	/* the bandwidth's ramp with message size (cluster.intra_node.ramp,
	 * cluster.inter_node.ramp; --calibrate fits them): [0] in one NVLink
	 * domain, [1] across domains, the factor at DC_NET_RAMP_KNOTS sizes
	 * (net.h); all 0: no ramp (1) */
	double bw_ramp[2][DC_NET_RAMP_KNOTS];
	/* the network plugin's latency per hop, cluster.inter_node.plugin_latency
	 * (given or fitted by --calibrate), used when plugin_latency_fitted;
	 * else cluster.network's */
	int plugin_latency_fitted;
	double plugin_latency_s;
};

/* Context parallelism's K/V exchange (Megatron-Core's cp_comm_type). */
enum dc_cp_comm {
	DC_CP_P2P,        /* ring attention: K/V passed to the next cp rank, cp - 1 steps */
	DC_CP_ALL_GATHER, /* K/V all-gathered before attention (Llama 3 section 3.3.2) */
	DC_CP_A2A,        /* Ulysses: sequence shards swapped for head shards, AlltoAll */
};

/* Longest parallel.pipeline_layers list, and the most runs of equal
 * consecutive stages the plan keeps in closed form (plan.h). */
#define DC_MAX_PIPELINE_LIST 256
#define DC_MAX_PIPELINE_RUNS 16

/* parallel.pipeline_schedule (docs/step-model.md, section 3), in the
 * order of its names */
enum dc_pipe_schedule {
	DC_PIPE_1F1B,        /* PipeDream-Flush, Megatron's default */
	DC_PIPE_INTERLEAVED, /* Megatron-Core's interleaved 1F1B: virtual_pipeline > 1 */
	DC_PIPE_DUALPIPE,    /* DeepSeek-V3's bidirectional DualPipe: two stages a rank */
	DC_PIPE_DUALPIPEV,   /* DualPipe cut in half (Sea AI Lab): a V of two chunks a rank */
	DC_PIPE_ZERO_BUBBLE, /* Qi et al. 2024 ZB-H1: 1F1B with the weight gradients deferred */
};

struct dc_parallel {
	uint64_t dp, tp, pp;
	uint64_t cp; /* context parallel: the sequence split over cp ranks of one replica */
	enum dc_cp_comm cp_comm_type;
	/* uneven pipelines: an explicit list of layers per stage (n > 0), or
	 * Megatron's first/last-stage forms (0: even), with the embedding and
	 * the loss optionally counted as a layer of the first and last stage */
	uint64_t pipeline_layers[DC_MAX_PIPELINE_LIST];
	uint64_t pipeline_layers_n;
	uint64_t first_stage_layers; /* 0: not given */
	uint64_t last_stage_layers;  /* 0: not given */
	int first_stage_layers_given, last_stage_layers_given;
	int account_for_embedding;
	int account_for_loss;
	uint64_t ep; /* expert parallel: experts split over it; out of dp, or folded (etp) */
	/* expert tensor parallel (Megatron's --expert-tensor-parallel-size):
	 * a routed expert's f split over etp ranks; 0 when not given: tp, as
	 * Megatron defaults it. ep x etp divides tp x dp x cp (folding) */
	uint64_t etp;
	/* HSDP (torchtitan's data_parallel_replicate_degree; Megatron's
	 * --num-distributed-optimizer-instances): dp = dp_replicate x shard
	 * ranks; sharded states shard over the shard group, gradients are
	 * all-reduced across the replicas. 1: every dp rank in one shard group */
	uint64_t dp_replicate;
	int dp_explicit;
	/* order[0] varies fastest; every axis appears once */
	enum dc_axis order[DC_AXIS_COUNT];
	char order_text[64];
	enum dc_sharding sharding;
	enum dc_offload offload;
	int reshard_after_forward;
	enum dc_fsdp_unit fsdp_unit;
	uint64_t bucket_bytes; /* DDP gradient bucket */
	int bucket_given;      /* parallel.bucket_size given: it wins over training.framework's buckets */
	int reshard_given;     /* parallel.reshard_after_forward given (else training.framework's default) */
	int sequence_parallel;     /* Megatron SP: norms/dropout split over tp */
	uint64_t virtual_pipeline; /* model chunks per pipeline rank (interleaved), v */
	/* parallel.pipeline_schedule: given, or derived from virtual_pipeline
	 * (interleaved when v > 1, else 1f1b) by the loader */
	enum dc_pipe_schedule pipeline_schedule;
	/* parallel.pipeline_schedule_microbatches: the microbatches of one
	 * pipeline schedule, a step running grad_accum_steps / it schedules
	 * one after another (torchtitan: one per gradient-accumulation
	 * step); 0 when not given (one schedule of all) */
	uint64_t pipeline_schedule_microbatches;
};

struct dc_training {
	uint64_t micro_batch_size;
	uint64_t grad_accum_steps;   /* derived from global_batch_size when that is given */
	uint64_t global_batch_size;  /* samples per optimizer step as given; 0: not given */
	enum dc_recompute recompute;
	uint64_t recompute_layers;   /* full: layers per model chunk recomputed (Megatron block); 0: all */
	uint32_t recompute_modules_mask; /* training.recompute_modules, DC_RCM bits; 0: not given (core_attn) */
	enum dc_attention attention;
	enum dc_attention_backend attention_backend; /* derived from attention when not given */
	enum dc_moe_dispatcher moe_dispatcher;       /* how the expert AlltoAlls move tokens */
	uint64_t total_tokens; /* training.total_tokens; 0 when not given (step.time_to_train_s) */
	double jitter;         /* training.jitter: coefficient of variation of a rank's per-step compute (whatif.h) */
	enum dc_framework framework; /* training.framework */
	int compile;                 /* training.compile: torch.compile's fused element-wise kernels */
	enum dc_optimizer_impl optimizer_implementation; /* training.optimizer_implementation */
	uint64_t loss_chunks;        /* training.loss_chunks: the head and loss on tokens / n at a time; 1: whole */
};

/* What the step model lets run behind compute (docs/step-model.md). */
/* overlap.ep: how the expert AlltoAlls meet compute. */
enum dc_ep_overlap {
	DC_EP_OVERLAP_NONE,     /* every dispatch and combine waited for */
	DC_EP_OVERLAP_A2A_1F1B, /* Megatron-Core's combined 1F1B (--overlap-moe-expert-parallel-comm) */
	DC_EP_OVERLAP_DUALPIPE, /* DualPipe's overlapped forward and backward chunks (DeepSeek-V3 section 3.2.1) */
};

struct dc_overlap {
	int dp;                  /* DDP / ZeRO gradient buckets behind the backward */
	enum dc_ep_overlap ep;   /* the expert AlltoAlls (overlap.ep) */
	int fsdp_prefetch;       /* FSDP gathers the next unit while this one computes */
	int tp;                  /* TP and EP collectives behind the matmuls */
	double compute_slowdown; /* kernels slow by this fraction while communication overlaps them */
	double ep_slowdown;      /* derived: the same while DeepEP's AlltoAlls overlap them (its SMs; else compute_slowdown) */
	int dp_given;            /* overlap.dp given (else training.framework's default) */
	int param_gather;        /* overlap.param_gather: Megatron's --overlap-param-gather */
	int param_gather_given;  /* ... given (else training.framework's default) */
};

/* Conventions for the bytes of each model state (docs/formulas.md,
 * "Precision presets"); the explicit byte keys override them. */
enum dc_precision_preset {
	DC_PRECISION_COURSE,      /* 2 + 2 + 4 + 8 = 16 B/param (ZeRO, the course) */
	DC_PRECISION_MEGATRON,    /* 2 + 4 (FP32 main grads) + 4 + 8 = 18 B/param */
	DC_PRECISION_FSDP2,       /* FP32 sharded params 4 + FP32 grads 4 + Adam 8, no master; BF16 working copy */
	DC_PRECISION_DEEPSEEK_V3, /* 2 + 4 + 4 + BF16 moments 4 = 14 B/param */
};

/* Bytes per parameter of each model state. */
struct dc_precision {
	enum dc_precision_preset preset;
	uint64_t param_bytes;
	uint64_t grad_bytes;
	uint64_t master_bytes;
	uint64_t optimizer_bytes;
	uint64_t working_bytes; /* the copy layers compute with: FSDP's gathered unit, activation messages */
	enum dc_compute_precision compute; /* precision.compute, default BF16 */
	enum dc_fp8_recipe fp8_recipe;     /* precision.fp8_recipe (with compute FP8) */
	int fp8_lm_head;                   /* precision.fp8_lm_head: the logits GEMM in FP8 too */
	/* precision.bf16_first_layers, bf16_last_layers: under compute FP8,
	 * the model's first and last transformer layers that run in BF16
	 * (Megatron-Core's first_last_layers_bf16) */
	uint64_t bf16_first_layers, bf16_last_layers;
	enum dc_attention_precision attention; /* precision.attention */
};

/* collective.op: the collective `--experiment collectives` sweeps, named
 * as nccl-tests' binaries are (all_reduce_perf, ...). */
enum dc_collective_op {
	DC_COLLECTIVE_ALL_REDUCE,
	DC_COLLECTIVE_ALL_GATHER,
	DC_COLLECTIVE_REDUCE_SCATTER,
	DC_COLLECTIVE_ALL_TO_ALL,
	DC_COLLECTIVE_BROADCAST,
	DC_COLLECTIVE_SEND_RECV,
};

/* collective.dtype: the element type of the nccl-tests-style sweep, as
 * nccl-tests' -d names it (src/common.cu test_typenames). */
enum dc_dtype {
	DC_DTYPE_INT8,
	DC_DTYPE_UINT8,
	DC_DTYPE_INT32,
	DC_DTYPE_UINT32,
	DC_DTYPE_INT64,
	DC_DTYPE_UINT64,
	DC_DTYPE_HALF,
	DC_DTYPE_FLOAT,
	DC_DTYPE_DOUBLE,
	DC_DTYPE_BFLOAT16,
	DC_DTYPE_F8E4M3,
	DC_DTYPE_F8E5M2,
};

struct dc_collective {
	uint64_t ranks;      /* as given, 0 when absent: the plan defaults it to the world size */
	uint64_t msg_bytes;  /* as given, 0 when absent: the plan defaults it to one rank's gradient bytes */
	enum dc_link_choice link;
	enum dc_net_algo algorithm; /* collective.algorithm, every collective the model prices */
	/* collective.protocols: the protocols a collective may run (NCCL_PROTO),
	 * a mask over enum dc_net_proto (net.h); 0: every one */
	uint32_t protocols_mask;
	/* the nccl-tests-style sweep (--experiment collectives) */
	enum dc_collective_op op;
	enum dc_dtype dtype;           /* -d, default float */
	uint64_t min_bytes, max_bytes; /* -b, -e */
	uint64_t step_factor;          /* -f, >= 2 */
};

/* Named memory overheads per rank (documented assumptions). */
struct dc_memory {
	uint64_t cuda_context_bytes;
	uint64_t comm_buffer_bytes;
	uint64_t workspace_bytes;
	double allocator_reserve;          /* fraction of the peak, [0, 1) */
	double activation_bytes_per_token_per_layer; /* 0: Korthikanti default */
	int activation_explicit;
};

/* The what-if scenarios' knobs (`--experiment whatif`, whatif.h). */
struct dc_whatif_config {
	uint64_t slow_node;      /* whatif.slow_network.node */
	int slow_all_links;      /* whatif.slow_network.scope "all": every inter-node link */
	double slow_factor;      /* whatif.slow_network.factor, (0, 1] of the bandwidth */
	uint64_t data_rank;      /* whatif.slow_data_rank.rank */
	double data_delay_s;     /* whatif.slow_data_rank.delay, per microbatch */
	uint64_t steps;          /* whatif.steps: simulated steps of the stragglers */
	double expert_imbalance; /* whatif.expert_imbalance: busiest expert's share over uniform, >= 1 */
};

/* checkpoint.format (docs/checkpoint-and-loss.md). */
enum dc_ckpt_format {
	DC_CKPT_SHARDED, /* every rank writes its own shard (PyTorch DCP) */
	DC_CKPT_FULL,    /* one rank gathers the full state dict and writes it */
};

/* checkpoint.gather: where a full state dict's gathered tensors live
 * (docs/checkpoint-and-loss.md, "Save-phase memory"). */
enum dc_ckpt_gather {
	DC_CKPT_GATHER_CPU, /* each gathered tensor moved to host memory at once (cpu_offload=True) */
	DC_CKPT_GATHER_GPU, /* the gathered state dict kept on the GPU (cpu_offload=False) */
};

/* checkpoint.restore: the layout a checkpoint is loaded into; the loader
 * fills every degree not given from the saved layout (dp from the new
 * world), so after a load each is >= 1 and tp x pp x dp x cp is
 * num_nodes x gpus_per_node. */
struct dc_ckpt_restore {
	uint64_t tp, pp, dp, cp, ep;
	uint64_t num_nodes, gpus_per_node;
	/* the new stages' layers (checkpoint.restore.pipeline_layers), pp
	 * entries; 0 entries: the saved stages' at the saved pp, else even */
	uint64_t pipeline_layers[DC_MAX_PIPELINE_LIST];
	uint64_t pipeline_layers_n;
};

struct dc_checkpoint {
	enum dc_ckpt_format format;
	enum dc_ckpt_gather gather;
	int async;                      /* staged in host memory, written while training goes on */
	double storage_bw_bytes_per_s;  /* aggregate write bandwidth of the storage */
	double staging_bw_bytes_per_s;  /* one GPU's device-to-host copy (async staging) */
	uint64_t step;                  /* the optimizer step the checkpoint is saved at */
	struct dc_ckpt_restore restore;
};

/* loss.tokens.mode: how samples carry valid tokens. */
enum dc_loss_mode {
	DC_LOSS_PADDING, /* one document per sample, the rest padding */
	DC_LOSS_PACKING, /* documents packed back to back, the tail padding */
};

struct dc_loss {
	enum dc_loss_mode mode;
	uint64_t min_length, max_length; /* a document's tokens, uniform in [min, max]; the loader fills max */
	double token_loss;               /* mean per-token loss (nats) */
	double token_loss_spread;        /* a sample's loss uniform in token_loss x [1 - spread, 1 + spread] */
};

/* search.objective: what --experiment search ranks by (search.h). */
enum dc_search_objective {
	DC_SEARCH_TOKENS_PER_S, /* the fastest step first */
	DC_SEARCH_MEMORY,       /* the smallest peak first */
};

/* Longest search.space.<dimension> list. */
#define DC_SEARCH_MAX_VALUES 32

/* A search.space list of counts; n = 0: not given (every value). */
struct dc_search_values {
	uint32_t n;
	uint64_t v[DC_SEARCH_MAX_VALUES];
};

/* --experiment search (search.h): its options and the space's limits. */
struct dc_search {
	int tp_across_nodes;  /* tp may span NVLink domains */
	double headroom;      /* the fraction of gpu memory left unused */
	enum dc_search_objective objective;
	uint64_t top;         /* search.best's length */
	struct dc_search_values tp, pp, dp, cp, ep, virtual_pipeline, micro_batch_size;
	/* bit i: the i-th value (enum order; false, true); 0: every value */
	uint32_t sharding_mask, recompute_mask, sequence_parallel_mask;
};

/* Where a key's value came from (struct dc_config's origin[], one entry
 * per key table row; dc_config_origin_text words it). */
enum dc_origin {
	DC_ORIGIN_DEFAULT,    /* the key's default, literal or derived */
	DC_ORIGIN_CONFIG,     /* the config file */
	DC_ORIGIN_SET,        /* a --set */
	DC_ORIGIN_SYSTEM,     /* the cluster.system preset */
	DC_ORIGIN_GPU,        /* the cluster.gpu preset */
	DC_ORIGIN_HF,         /* the Hugging Face config of model.hf_config */
	DC_ORIGIN_MODEL,      /* the Hugging Face config of --model */
	DC_ORIGIN_TOPOLOGY,   /* the matrix of cluster.topology_file */
	DC_ORIGIN_CALIBRATED, /* a --calibrate fit */
	DC_ORIGIN_FRAMEWORK,  /* derived from training.framework (a value it
			       * picks on this GPU, not the key's default) */
};

/* Rows the key table may grow to (config_keys.c asserts it). */
#define DC_CONFIG_MAX_KEYS 384

struct dc_config {
	struct dc_model model;
	struct dc_cluster cluster;
	struct dc_parallel parallel;
	struct dc_training training;
	struct dc_precision precision;
	struct dc_collective collective;
	struct dc_memory memory;
	struct dc_overlap overlap;
	struct dc_whatif_config whatif;
	struct dc_search search;
	uint64_t world_size; /* num_nodes x gpus_per_node */
	struct dc_checkpoint checkpoint;
	struct dc_loss loss;
	/* enum dc_origin of every key, by key table row (dc_config_key_at) */
	unsigned char origin[DC_CONFIG_MAX_KEYS];
	/* --calibrate-compute: the profile whose levels cluster.matmul_efficiency
	 * and memory_efficiency hold (calibrate_compute.h); NULL: none.
	 * Borrowed from the caller, which keeps it for the run */
	const struct dc_compute_profile *compute_profile;
};

struct dc_compute_profile;

/* One --set override: "PATH=VALUE". VALUE is read as JSON when it is a JSON
 * number, true, false or a quoted string, else as a string. */
struct dc_override {
	const char *text; /* "PATH=VALUE" (--set), or "PATH" when unset */
	int unset;        /* 1: --unset PATH, which removes PATH (a key or a
			   * section) from the config as if the file left it
			   * out; a PATH the config does not give warns */
};

/* Parses and validates `len` bytes of `buf` named `name` (for messages),
 * then applies `overrides` in order. Returns 0 with *cfg filled, or -1 with
 * every problem recorded in `diag` (status DC_ERR_CONFIG, DC_ERR_INPUT for
 * unreadable bytes, DC_ERR_INTERNAL for allocation failure). `buf` need not
 * be NUL-terminated. */
int dc_config_load_buffer(const char *buf, size_t len, const char *name,
			  const struct dc_override *overrides, size_t noverrides,
			  struct dc_config *cfg, struct dc_diag *diag);

/* Reads `path` (at most DC_CONFIG_MAX_BYTES) and loads it as above. A
 * model.hf_config path in the file is resolved relative to the file's
 * directory; in a buffer or from --set, relative to the current one. */
int dc_config_load_file(const char *path, const struct dc_override *overrides, size_t noverrides,
			struct dc_config *cfg, struct dc_diag *diag);

/* What the command line adds to a load: --set overrides and --model. */
struct dc_load_opts {
	const struct dc_override *overrides;
	size_t noverrides;
	/* --model FILE: a Hugging Face config.json whose shape replaces the
	 * config's model keys (all but model.seq_length); --set model.* still
	 * applies on top. NULL: none. */
	const char *model_file;
	/* 1: the layout is the built-in default's, not the user's (--model
	 * without --config): when its tp does not divide the model's heads or
	 * KV heads and no --set names parallel.tp, dp, pp or cp, the loader
	 * takes the largest tp below it that does (and divides the world),
	 * dp the rest, and says so in a warning. */
	int auto_layout;
	/* 1: the run is the layout search (--experiment search), which tries
	 * the shardings and cp degrees of search.space itself: a key that
	 * only an FSDP layout or cp > 1 reads draws no warning that the
	 * config's own layout ignores it, where the space tries those. */
	int search;
	/* the run's experiment (--experiment), NULL where none is known
	 * (a library load): outside "search" a given search.* key warns
	 * that it has no effect */
	const char *experiment;
	/* a sweep point's axes (the last nswept overrides' keys), which the
	 * sweep's own check of an axis that moves nothing speaks for: no
	 * key of them draws the loader's warning that the experiment does
	 * not read it (NULL, 0: none) */
	const char *const *swept;
	size_t nswept;
};

/* As dc_config_load_buffer / dc_config_load_file, with `opts` (NULL: none). */
int dc_config_load_buffer_opts(const char *buf, size_t len, const char *name,
			       const struct dc_load_opts *opts, struct dc_config *cfg,
			       struct dc_diag *diag);
int dc_config_load_file_opts(const char *path, const struct dc_load_opts *opts,
			     struct dc_config *cfg, struct dc_diag *diag);

/* A config read and parsed once, then loaded many times with different
 * options (a sweep's points): dc_config_load_parsed(dc_config_parse_X(A),
 * opts) gives the same config, the same diagnostics and the same return
 * as dc_config_load_X_opts(A, opts), without reading or parsing the text
 * again (each load applies its --set to a copy of the parsed tree).
 * dc_config_parse_* return NULL with the problem in `diag` when the text
 * cannot be read or parsed (a caller that wants each load to say so loads
 * the usual way then); free with dc_config_parsed_free (NULL is a no-op). */
struct dc_config_parsed;
struct dc_config_parsed *dc_config_parse_file(const char *path, struct dc_diag *diag);
struct dc_config_parsed *dc_config_parse_buffer(const char *buf, size_t len, const char *name, struct dc_diag *diag);
int dc_config_load_parsed(const struct dc_config_parsed *p, const struct dc_load_opts *opts, struct dc_config *cfg,
			  struct dc_diag *diag);
void dc_config_parsed_free(struct dc_config_parsed *p);

#define DC_CONFIG_MAX_BYTES (1024 * 1024)
#define DC_CONFIG_MAX_STRING 256
/* Largest world size accepted: 2^24 ranks. */
#define DC_MAX_WORLD ((uint64_t)1 << 24)

/* The built-in default, byte-identical to configs/systems.json. */
extern const char dc_default_config[];
extern const size_t dc_default_config_len;

/* Names of enum values as written in the config. */
const char *dc_sharding_name(enum dc_sharding s);
const char *dc_axis_name(enum dc_axis a);
const char *dc_link_choice_name(enum dc_link_choice l);
const char *dc_recompute_name(enum dc_recompute r);
/* The modules selective recompute reruns: training.recompute_modules, or
 * the attention core when not given; 0 under any other recompute. */
uint32_t dc_recompute_modules(const struct dc_config *c);
/* The recompute policies the layout search tries (bits of enum
 * dc_recompute): search.space.recompute, else those the framework runs,
 * none, op (its per-op selective policy) and full under torchtitan
 * (torchtitan b5bcd76c distributed/activation_checkpoint.py:333-336:
 * selective is per-op, full, memory budget), none, selective and full
 * under every other. */
uint32_t dc_search_recompute_mask(const struct dc_config *c);
const char *dc_pipe_schedule_name(enum dc_pipe_schedule s);
const char *dc_collective_op_name(enum dc_collective_op op);
/* "float", ...; and the element's size in bytes (1, 2, 4 or 8) */
const char *dc_dtype_name(enum dc_dtype t);
uint64_t dc_dtype_bytes(enum dc_dtype t);
const char *dc_system_name(enum dc_system s);
const char *dc_nic_path_name(enum dc_nic_path p);
const char *dc_network_name(enum dc_network n);
const char *dc_attention_name(enum dc_attention a);
const char *dc_framework_name(enum dc_framework f);
const char *dc_precision_preset_name(enum dc_precision_preset p);
const char *dc_offload_name(enum dc_offload o);
/* A collective.protocols mask as the config writes it, ["ll128", "simple"]
 * (empty for 0), in buf, truncated to len. */
void dc_protocols_text(uint32_t mask, char *buf, size_t len);
/* training.recompute_modules' mask as a JSON list of its names */
void dc_recompute_modules_text(uint32_t mask, char *buf, size_t len);
const char *dc_cp_comm_name(enum dc_cp_comm c);
const char *dc_ckpt_format_name(enum dc_ckpt_format f);
const char *dc_ckpt_gather_name(enum dc_ckpt_gather g);
const char *dc_loss_mode_name(enum dc_loss_mode m);
const char *dc_search_objective_name(enum dc_search_objective o);

/* Parameter count of the configured shape (see docs/formulas.md and
 * docs/models.md; the terms are in params.h). Returns 0, or -1 on overflow. */
int dc_model_param_count(const struct dc_model *m, uint64_t *out);

const char *dc_norm_name(enum dc_norm n);
/* "a100-sxm4-80gb", ...; "" for DC_GPU_NONE */
const char *dc_gpu_name(enum dc_gpu g);
/* A cluster.gpu preset's data-sheet figures (docs/compute-model.md, "The
 * presets"): dense peaks, no sparsity. */
struct dc_gpu_spec {
	double mem_gib;        /* a card sold as N GB holds N GiB */
	double peak_flops;     /* BF16/FP16 matmul, FLOP/s */
	double peak_flops_fp8; /* FLOP/s; 0: no FP8 tensor cores */
	double peak_flops_fp4; /* FLOP/s; 0: no FP4 tensor cores (the table's; no key prices FP4) */
	double hbm_bandwidth;  /* bytes/s */
	uint64_t sms;          /* streaming multiprocessors */
	double nvlink_bw;      /* NVLink line rate per GPU, one way, bytes/s (a system preset sets the effective one) */
	const char *no_fp8;    /* why precision.compute "fp8" is refused, or NULL */
	double host_bw;        /* the GPU's link to host memory (PCIe, NVLink-C2C), one way, bytes/s */
	/* the CPU memory bandwidth that serves this GPU where the CPU is part
	 * of the superchip (Grace), bytes/s; 0: an x86 host the GPU does not
	 * fix (a cluster.system preset names it) */
	double host_mem_bw;
};
/* NULL for DC_GPU_NONE. Static data, never freed. */
const struct dc_gpu_spec *dc_gpu_spec(enum dc_gpu g);
/* the preset's architecture; DC_GPU_ARCH_UNKNOWN for DC_GPU_NONE */
enum dc_gpu_arch dc_gpu_arch(enum dc_gpu g);
const char *dc_attention_backend_name(enum dc_attention_backend b);
const char *dc_moe_dispatcher_name(enum dc_moe_dispatcher d);
const char *dc_fp8_recipe_name(enum dc_fp8_recipe r);
const char *dc_compute_precision_name(enum dc_compute_precision c);

/* ---- the key table, read-only ----
 *
 * Every key the loader knows is one row of one table in config.c: the file
 * walk, --set, the unknown-key suggestions, the range checks and defaults
 * follow it, and docs/config.md's reference tables list the same rows
 * (tests/check_config_doc.c fails when they disagree; `check_config_doc
 * --print` writes the tables). Sections are rows too. */

enum dc_config_need {
	DC_KEY_OPTIONAL,
	DC_KEY_REQUIRED,
	DC_KEY_REQUIRED_UNLESS_HF, /* required unless a Hugging Face config gives the shape */
	DC_KEY_REQUIRED_UNLESS_GPU, /* required unless cluster.gpu names a preset that gives it */
	DC_KEY_REQUIRED_UNLESS_SYSTEM, /* required unless cluster.system names a preset */
};

struct dc_config_key_info {
	const char *path;    /* "cluster.gpu_memory" */
	const char *kind;    /* "section", "string", "count", "integer", "bytes",
			      * "bandwidth", "time", "boolean", "enum", "fraction",
			      * "number" (docs/config.md, "Value kinds") */
	const char *unit;    /* what a plain number means: "bytes", "bytes/s",
			      * "s", "bytes/param"; "" for none */
	const char *default_text; /* what a user would write for the default, as
				   * JSON ("1", "false", "\"25 MiB\""), or
				   * "derived: ..." for a computed one; "" for
				   * none (required, or absent means nothing) */
	const char *bounds;  /* the values accepted ("≥ 1", "> 0", "[0, 1)",
			      * "≤ 256 bytes"); "" when the kind has none */
	const char *doc;     /* one line of Markdown, docs/config.md's "meaning" */
	const char *const *choices; /* an enum's strings, NULL-terminated; else NULL */
	enum dc_config_need need;
};

/* Number of rows in the key table. */
size_t dc_config_key_count(void);

/* Row `i` (table order: a section comes before its keys), or NULL when
 * i >= dc_config_key_count(). The row is static: never free it. */
const struct dc_config_key_info *dc_config_key_at(size_t i);

/* The row whose path is `path`, or NULL. */
const struct dc_config_key_info *dc_config_key_find(const char *path);

/* The known key closest to an unknown `path`, as --set suggests it
 * ("parallel.tp" for "parallel.tpp"), or NULL when none is close. */
const char *dc_config_key_suggest(const char *path);

/* The row index of `path` (for origin[]), or -1. */
int dc_config_key_index(const char *path);

/* Key row `i`'s value in `c` as JSON text in its base unit ("2",
 * "85899345920", "3.7e+11", "true", "\"a100-sxm4-80gb\"", null for a
 * key with nothing set). Returns 0, or -1 when the row holds no value of
 * its own (a section, a list, free text). */
int dc_config_value_json(const struct dc_config *c, size_t i, char *buf, size_t len);

/* Whether key row `i` holds a value of its own in `c`: 1 exactly when
 * dc_config_value_json would return 0, without formatting it. */
int dc_config_key_has_value(const struct dc_config *c, size_t i);

/* Where row `i`'s value in `c` came from, as reports word it: "config",
 * "--set", "preset:<cluster.system>", "preset:<cluster.gpu>", "hf_config",
 * "--model", "topology_file", "calibrated", "framework:<training.framework>"
 * or "default". Static text or
 * buf. */
const char *dc_config_origin_text(const struct dc_config *c, size_t i, char *buf, size_t len);

/* The same for the key at `path` ("default" for a path that is no key). */
const char *dc_config_origin_of(const struct dc_config *c, const char *path, char *buf, size_t len);

/* Marks the row of `path` as coming from `origin` (a step after the load,
 * such as --calibrate, that changes a value). */
void dc_config_set_origin(struct dc_config *c, const char *path, enum dc_origin origin);

/* An estimator's or the plan's overflow text (results.h: "'model' x
 * 'training' x 'precision': communication bytes per step overflow 64
 * bits") worded against the key that drove it, with its value: the factor
 * a --set gave, else the one the config gave ("'training.grad_accum_steps':
 * 4000000000 microbatches make the communication bytes per step overflow
 * 64 bits; use a smaller value"), else every factor with its value.
 * `where` (NULL: the configured run) says which run overflowed, after
 * "64 bits": "in a layout the search tried", "in the what-if scenario
 * slow_network". Returns buf, or `error` itself when it is no overflow
 * text this knows. */
const char *dc_config_blame_overflow(const struct dc_config *c, const char *error, const char *where, char *buf,
				     size_t len);

/* One cross-field rule, as the loader checks them: in table order, after
 * every key has been read, each problem reported (a rule whose values later
 * rules read stops the walk when it fails). */
struct dc_config_rule_info {
	const char *name;          /* one line: "pp divides num_layers" */
	const char *const *keys;   /* the keys it reads, NULL-terminated */
};

size_t dc_config_rule_count(void);
/* Rule `i`, or NULL when i >= dc_config_rule_count(). Static. */
const struct dc_config_rule_info *dc_config_rule_at(size_t i);

/* Layout rules of the model's sizes, shared by the loader (which words
 * each failure) and the layout search (which counts the layouts that
 * break them). dc_config_tp_splits_mlp: does tensor parallelism split
 * every MLP inner size evenly, model.ffn_hidden_size (where a dense MLP
 * runs) and shared_expert_ffn_hidden_size over tp, moe_ffn_hidden_size
 * over the expert tp group `etp` (0: tp), as Megatron-Core's row-parallel
 * linears assert (docs/config.md, "Rules between keys")?
 * dc_config_sp_splits_tokens: with sequence parallelism, does tp divide
 * the tokens of a cp rank, seq_length / cp (Megatron-Core's scatter to the
 * sequence-parallel region asserts it)? 1 yes, 0 no; a degree of 0 is 0. */
int dc_config_tp_splits_mlp(const struct dc_model *m, uint64_t tp, uint64_t etp);
int dc_config_sp_splits_tokens(const struct dc_model *m, uint64_t tp, uint64_t cp);

/* The expert tensor-parallel size of a layout of tp and ep under the
 * config: parallel.etp where given; else, under training.framework
 * torchtitan with ep > 1, 1 (its EP borrows the ranks of dp_shard x cp x
 * tp and splits no expert over tp: torchtitan/config/configs.py:282-289,
 * distributed/parallel_dims.py:185-191 at b5bcd76c); else tp (Megatron's
 * default). dc_config_layout_etp is the same as a layout holds it: 0
 * where it follows tp. */
uint64_t dc_config_etp(const struct dc_config *c, uint64_t tp, uint64_t ep);
/* 0 when the key at `path` is one only other experiments read than
 * `experiment` ("systems", "search", ...: whatif.*, loss.*, checkpoint's
 * save and restore keys, search.*, the collectives sweep's), else 1 */
int dc_config_key_read_by(const char *path, const char *experiment);
uint64_t dc_config_layout_etp(const struct dc_config *c, uint64_t ep);

/* The loader's strict JSON check (RFC 8259: no leading zeros, no raw
 * controls or invalid UTF-8 in strings, no comments, no NaN/Infinity,
 * nesting at most 64 deep, nothing but whitespace after the one value; a
 * UTF-8 byte-order mark may lead) on `len` bytes, for other readers of
 * JSON. Duplicate keys are not looked for. Returns 0, or -1 with the first
 * problem's 1-based line and column and a one-line reason (no subject) in
 * what[whatlen]. */
int dc_json_check_strict(const char *buf, size_t len, size_t *line, size_t *col, char *what, size_t whatlen);

#endif
