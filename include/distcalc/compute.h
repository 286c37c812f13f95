/* compute.h - how long one rank's kernels take on the configured GPU.
 *
 * The compute estimator (DC_EST_COMPUTE, results.h) prices the work of one
 * microbatch on one rank: each kind of transformer layer (its tp / sp shard),
 * the embedding on the first stage, the final norm, logits and loss on the
 * last, and the optimizer step once per step. Matmuls run at the GPU's peak
 * (BF16, or FP8 with precision.compute = "fp8") times an efficiency that
 * depends on the GEMM's shape per rank, the attention core at its backend's
 * measured level; memory-bound work (norms, softmax,
 * dropout, element-wise ops, the optimizer) moves its bytes at a fraction of
 * HBM bandwidth. One parameter set per GPU type, derived in
 * docs/compute-model.md with its source data.
 *
 * The step estimator (step.h) composes these per stage and model chunk with
 * the plan's layer counts (dc_plan_stage_dense_layers) and the comm result,
 * through the pipeline schedule. Nothing here overlaps or communicates.
 */
#ifndef DISTCALC_COMPUTE_H
#define DISTCALC_COMPUTE_H

#include <stdint.h>

#include "distcalc/plan.h"

/* One piece of work for one microbatch on one rank, in seconds. */
struct dc_work_time {
	double fwd_s;       /* forward */
	double bwd_s;       /* backward (input and weight gradients), no recomputation */
	double recompute_s; /* what training.recompute adds before the backward */
	double fwd_matmul_s; /* the matmul part of fwd_s (the rest is memory-bound) */
	double bwd_matmul_s; /* the matmul part of bwd_s */
	double bwd_wgrad_s;  /* of bwd_s: the weight-gradient GEMMs (all of the embedding's), W of a zero-bubble schedule */
	/* of bwd_matmul_s: the input-gradient and weight-gradient GEMMs of the
	 * layer's column-parallel linears, whose backward issues the
	 * asynchronous TP collectives (framework.h DC_TP_ASYNC_BWD; Megatron's
	 * ColumnParallelLinear): [0] the attention's (q, k, v; MLA's up
	 * projections together; a hybrid layer's the mean over its kinds, as
	 * every time here), [1] the MLP's fc1 (a MoE layer's shared expert's
	 * fc1, 0 without one: the routed experts issue none). 0 for the
	 * embedding and the head */
	double tp_col_dgrad_s[2], tp_col_wgrad_s[2];
	/* tiled TP overlap only (framework.h DC_TP_TILED; 0 otherwise): what
	 * cutting the TP-paired GEMMs into tp row tiles adds to fwd_s and
	 * bwd_s (each tile's waves and launch), with torch's ReduceScatter
	 * reductions under torchtitan; the step adds it in that mode */
	double tp_tiled_fwd_s, tp_tiled_bwd_s;
};

struct dc_compute {
	/* 0 when cluster.peak_flops or cluster.hbm_bandwidth is unknown (no
	 * preset, not given): every time below is then 0 and `missing` names
	 * the keys ("cluster.peak_flops"); the rest of the report is unaffected */
	int available;
	const char *missing;
	double peak_flops;    /* the matmul peak used: BF16/FP16, or FP8 under precision.compute */
	double hbm_bandwidth; /* bytes/s */

	/* the kernel-efficiency parameters used (docs/compute-model.md): a
	 * kernel takes max(FLOPs / (peak x matmul_efficiency x q), bytes / (HBM
	 * x memory_efficiency)) plus a fixed overhead, matmul_overhead_s for a
	 * GEMM, memory_overhead_s for an element-wise kernel; q is the share of
	 * sm_count SMs a GEMM's waves of output tiles keep busy */
	const char *gpu;          /* the parameter set: a preset name (cluster.gpu, else "a100-sxm4-80gb") */
	double gemm_ceiling;      /* the set's isolated large BF16 GEMM, fraction of the BF16 peak */
	double gemm_ceiling_fp8;  /* the same for FP8 GEMMs, of the FP8 peak */
	double in_situ;           /* what a training step keeps of the isolated levels */
	double matmul_efficiency; /* BF16 GEMMs: gemm_ceiling x in_situ, or cluster.matmul_efficiency */
	double matmul_efficiency_fp8; /* FP8 GEMMs (the linear layers under precision.compute "fp8") */
	/* the attention core: training.attention_backend as used ("eager":
	 * GEMMs and element-wise kernels, the two levels 0), its forward and
	 * backward levels of the BF16 peak (forward: of the FP8 peak under
	 * precision.attention "fp8") */
	const char *attention_backend;
	double attention_fwd_efficiency, attention_bwd_efficiency;
	/* bytes the FP8 recipe moves per element of each cast GEMM input (X
	 * forward, dY backward); 0 under BF16 */
	double fp8_cast_bytes;
	double matmul_overhead_s;
	double memory_efficiency;
	double memory_overhead_s;
	double sm_count;
	/* matmul FLOPs one rank runs for one microbatch of one layer, forward
	 * (backward runs twice this; recompute what training.recompute adds) */
	double dense_layer_fwd_flops;
	double moe_layer_fwd_flops;
	/* --calibrate-compute with a profile whose layer waited for its host
	 * (calibrate_compute.h dc_compute_profile_host_floor_s): that layer's
	 * time, the least a dense layer of the same block takes on that host,
	 * and what dense_layer's times were multiplied by to reach it (1: the
	 * GPU's time was longer; floor 0: none) */
	double dense_layer_host_floor_s, dense_layer_host_factor;

	struct dc_work_time dense_layer; /* one transformer layer with a dense MLP */
	struct dc_work_time moe_layer;   /* one MoE layer (its experts' share of the tokens) */
	struct dc_work_time embedding;   /* first stage: token (and position) embedding */
	struct dc_work_time head;        /* last stage: final norm, logits, loss (and the MTP modules) */
	/* one MTP module's layer (model.mtp_layers; all 0 without them): its
	 * kind's kernels (moe_layer with experts, else dense_layer), recomputed
	 * as Megatron-Core recomputes a module (plan.h dc_plan_mtp_recomputed:
	 * its whole forward under the uniform method, nothing under the block
	 * method, the attention core under selective, the kind's share under
	 * op); `head` holds it once a module */
	struct dc_work_time mtp_layer;
	/* precision.bf16_first_layers / bf16_last_layers under compute FP8:
	 * a dense and a MoE layer priced in BF16 (its linears, attention and
	 * norms as under compute "bf16"; all 0 without such layers). The step
	 * counts them on the chunks that hold those layers (dc_plan_bf16_in) */
	int bf16_layers;
	struct dc_work_time dense_layer_bf16, moe_layer_bf16;

	/* the optimizer step of the ranks of each plan segment
	 * (plan.h: segment_first), once per step; under parallel.offload the
	 * host's: host_step[i]'s parts added up. Set for the plan's
	 * nsegments first ones alone, as host_step (the rest unset) */
	double optimizer_s[DC_PLAN_MAX_SEGMENTS];
	/* the device step's bytes through HBM per updated parameter and its
	 * kernel passes (training.optimizer_implementation, the framework's
	 * clip; without Megatron's extra master read and buffer zeroing):
	 * what the step of a given count costs, as the probe's is compared */
	double optimizer_bytes_per_param, optimizer_passes;
	/* 1 under parallel.offload: the step runs on the host (ZeRO-Offload's
	 * CPU-Adam, Ren et al. 2021; docs/step-model.md, "The optimizer on the
	 * host"): a rank's gradient shard goes to host memory, the node's CPUs
	 * step every shard of the node's GPUs, the updated parameters come
	 * back; one after the other, nothing behind the backward */
	int optimizer_on_host;
	double host_bandwidth;  /* bytes/s one way: cluster.host_bandwidth, else the preset's */
	double host_adam_rate;  /* parameters/s of a node's CPUs: cluster.host_adam_rate */
	struct dc_host_step {
		double params;  /* the parameters one rank's optimizer shard holds */
		/* DeepSpeed ZeRO-2's per-micro-step gradient copies under
		 * gradient accumulation: params x (2m - 1) x param_bytes /
		 * host_bandwidth (0 elsewhere, ZeRO-1 included) */
		double accum_s;
		double d2h_s;   /* params x precision.grad_bytes (deepspeed: 4) / host_bandwidth */
		double cpu_s;   /* params x gpus_per_node / host_adam_rate */
		/* DeepSpeed ZeRO-1/2 and ZeRO-3: the node's CPUs cast the FP32
		 * partitions to param_bytes before they go back, params x
		 * gpus_per_node x (4 + param_bytes) / 28 / host_adam_rate (0
		 * elsewhere) */
		double cast_s;
		/* params x precision.param_bytes / host_bandwidth; 0 under
		 * DeepSpeed ZeRO-3 with offload "optimizer+params", whose
		 * parameters stay on the host (step.h host_param_copies_s) */
		double h2d_s;
	} host_step[DC_PLAN_MAX_SEGMENTS]; /* the plan's nsegments first ones; all 0 without offload */
};

/* Fills *c for the plan. Returns 0 (also when c->available is 0), or -1
 * with *error set to static text. No I/O, no allocation. */
int dc_compute_compute(const struct dc_plan *p, struct dc_compute *c, const char **error);

/* The one part of *c that the sharding changes: refills c->optimizer_s
 * (and c->host_step) for
 * p, where *c is dc_compute_compute's result for a plan that differs from
 * p in layout.sharding alone (every kernel but the optimizer step is the
 * same; plan.h: nothing else in a plan depends on the sharding). The same
 * numbers as dc_compute_compute(p) bit for bit, at a fraction of its cost:
 * what a layout search reuses across its shardings. */
void dc_compute_reshard(const struct dc_plan *p, struct dc_compute *c);

/* As dc_compute_compute(p, c, error), where *c is dc_compute_compute's
 * result for a plan that differs from p in its virtual pipeline (and
 * sharding) alone: the kernels read no model chunk but through full
 * recompute's training.recompute_layers (plan.h dc_plan_recompute_share),
 * so without those only the optimizer step is refilled (as
 * dc_compute_reshard), else all of *c is computed again. The same numbers
 * bit for bit: what a layout search reuses across the virtual pipelines
 * of a micro batch. */
int dc_compute_rechunk(const struct dc_plan *p, struct dc_compute *c, const char **error);

/* The kernel set's in-situ shares for cluster.gpu `g` (DC_GPU_NONE or out
 * of range: the A100 set's, as dc_compute_compute falls back to):
 * *gemm, what a training step keeps of an isolated GEMM's or fused
 * attention kernel's level (a clock ratio on Hopper and Blackwell, 1830 /
 * 1980 MHz; the A100's fitted 0.907), and *mem, what it keeps of an
 * isolated streaming kernel's (the STREAM triad's) bandwidth (0.8346 on
 * every set: the A100 fit's share, not a clock). docs/compute-model.md,
 * "Parameters". What --calibrate-compute multiplies a probe's isolated
 * figures by (calibrate_compute.h). A table lookup: no I/O. */
void dc_compute_in_situ(enum dc_gpu g, double *gemm, double *mem);

#endif
