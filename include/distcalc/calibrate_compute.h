/* calibrate_compute.h - the kernel levels measured on the user's GPU
 * (--calibrate-compute PROFILE.json, written by tools/gpu-probe.py).
 *
 * The profile (docs/compute-model.md, "Calibrating from a probe", has the
 * schema) lists GEMMs the probe timed (shape, dtype, FLOP/s), attention
 * kernels per backend, the element-wise bandwidth and one transformer
 * layer's forward + backward at a stated shape. distcalc prices with:
 *
 *   matmul_efficiency = Σ FLOPs / (Σ seconds × peak_flops)  over the
 *                       "bf16" GEMMs
 *   matmul_efficiency_fp8 = Σ FLOPs / (Σ seconds × peak_flops_fp8) over
 *                       the "fp8" GEMMs, under precision.compute "fp8"
 *                       only (no key: cluster.matmul_efficiency_fp8)
 *   memory_efficiency = element-wise bytes/s / cluster.hbm_bandwidth
 *
 *   attention levels = Σ FLOPs / (Σ seconds × BF16 peak), forward and
 *                       backward, over the attention rows of the backend
 *                       the run uses ("sdpa-flash" for training.
 *                       attention_backend "sdpa", "sdpa-cudnn" for
 *                       "cudnn", "fa3"); FLOPs 4 b h s² d (half when
 *                       causal) forward, 2.5 × that backward
 *
 * each measured on its own, an isolated figure, so each then takes the
 * part of the GPU set's in-situ share that its measurement has not paid
 * (docs/compute-model.md, "Parameters" and "Calibrating from a probe"):
 *
 *   - the GEMM and attention levels: x the set's in-situ factor (on Hopper
 *     a clock ratio, 1830 / 1980 MHz) when the profile's "clocks" is
 *     "boost" (short runs at the boost clock; the default), as measured
 *     when it is "sustained" (gpu-probe.py --sustain held the GPU at its
 *     power limit first);
 *   - the element-wise level: x the set's streaming share (0.8346, the
 *     A100 fit's, no clock) in either case: no probe run pays it.
 *
 * The step section shows the layer's measured time beside the one the
 * model predicts for the same shape at the same clocks.
 */
#ifndef DISTCALC_CALIBRATE_COMPUTE_H
#define DISTCALC_CALIBRATE_COMPUTE_H

#include <stddef.h>
#include <stdint.h>

#include "distcalc/config.h"
#include "distcalc/diag.h"

#define DC_PROFILE_MAX_BYTES (1u << 20)
#define DC_PROFILE_MAX_ROWS 256

/* One transformer layer as the probe ran it on one GPU: one tp rank's
 * shard (heads / tp, kv_heads / tp, ffn / tp) of micro_batch x seq tokens,
 * no recomputation, no communication. */
struct dc_profile_layer {
	uint64_t hidden_size, num_attention_heads, num_kv_heads, head_dim, ffn_hidden_size;
	uint64_t seq_length, micro_batch_size, tp;
	enum dc_mlp mlp;
	/* the training.attention_backend of the kernel SDPA ran in the layer
	 * ("layer.attention_backend": "sdpa-flash" DC_ATTN_BACKEND_SDPA,
	 * "sdpa-cudnn" DC_ATTN_BACKEND_CUDNN, "fa3" DC_ATTN_BACKEND_FA3;
	 * "sdpa-efficient" DC_ATTN_BACKEND_EAGER, standing for none);
	 * DC_ATTN_BACKEND_SDPA when absent */
	int attention;
	int attention_given; /* 1 when the profile names it (layer.attention_backend) */
	double fwd_bwd_s; /* measured: forward then backward, mean of the timed runs */
	double compiled_fwd_bwd_s; /* the same through torch.compile ("compiled_fwd_bwd_s"); 0 when absent */
	/* the GPU time in the layer's kernels (gpu-probe.py --layer-kernels'
	 * trace: "gpu_busy_s", "compiled_gpu_busy_s"); less than the layer's
	 * time when the GPU waited for the host to launch them; 0 absent */
	double gpu_busy_s, compiled_gpu_busy_s;
};

/* The head and loss as the probe ran them (gpu-probe.py --ends; tp 1):
 * the final RMSNorm, the output projection [tokens x hidden] x [hidden x
 * vocab] in BF16 and cross_entropy(logits.float()), torchtitan's. */
struct dc_profile_head {
	uint64_t tokens, hidden_size, vocab_size;
	double fwd_s, fwd_bwd_s; /* measured: forward; forward then backward */
};

/* One AdamW step over `params` FP32 parameters in `tensors` tensors (one
 * layer's shard) as torch.optim.AdamW runs it, foreach and fused, and
 * torch.nn.utils.clip_grad_norm_(foreach=True) over the same gradients
 * (gpu-probe.py --ends). */
struct dc_profile_optimizer {
	uint64_t params, tensors;
	double foreach_step_s, fused_step_s, clip_grad_norm_s;
};

struct dc_compute_profile {
	char name[256];         /* the file as given, printable */
	int synthetic;          /* "synthetic": true: derived from published figures, not measured */
	int sustained;          /* "clocks": 1 "sustained", 0 "boost" (the default when absent) */
	char device[128];       /* "device.name" */
	uint64_t device_sm_count; /* "device.sm_count"; 0 when absent */
	double device_sm_clock_mhz; /* "device.sm_clock_mhz" (for the record, read by nothing); 0 when absent */
	size_t ngemm[2];        /* GEMM rows per dtype: [0] bf16, [1] fp8 */
	double gemm_flops[2], gemm_s[2]; /* their FLOPs and seconds summed (seconds = FLOPs / FLOP/s) */
	double gemm_top_rate[2];         /* the fastest row's FLOP/s, per dtype */
	int gemm_top_row[2];             /* its index in "gemm" */
	size_t nattention;      /* attention rows */
	/* per training.attention_backend (config.h; [DC_ATTN_BACKEND_EAGER]
	 * unused, "sdpa-efficient" rows counted in nattention only): rows,
	 * forward FLOPs and seconds, backward FLOPs and seconds, summed */
	size_t nattn[DC_ATTN_BACKEND_COUNT];
	double attn_fwd_flops[DC_ATTN_BACKEND_COUNT], attn_fwd_s[DC_ATTN_BACKEND_COUNT];
	double attn_bwd_flops[DC_ATTN_BACKEND_COUNT], attn_bwd_s[DC_ATTN_BACKEND_COUNT];
	double elementwise_bytes_per_s;
	int has_layer;
	struct dc_profile_layer layer;
	int has_head, has_optimizer; /* "head", "optimizer": gpu-probe.py --ends */
	struct dc_profile_head head;
	struct dc_profile_optimizer optimizer;
};

/* Parses `len` bytes of profile JSON named `name` into *out. Returns 0, or
 * -1 with every problem found in `diag` (DC_ERR_CONFIG), each naming the
 * member ("NAME: error: 'gemm[3].flops_per_s': ..."). No I/O. */
int dc_compute_profile_parse(const char *buf, size_t len, const char *name, struct dc_compute_profile *out,
			     struct dc_diag *diag);

/* Reads the file at `path` (at most DC_PROFILE_MAX_BYTES) and parses it. */
int dc_compute_profile_read(const char *path, struct dc_compute_profile *out, struct dc_diag *diag);

/* The levels the profile gives `cfg` (the header's formulas, times the
 * in-situ shares above for cluster.gpu's set, the A100's without one), written
 * into cfg->cluster.matmul_efficiency and memory_efficiency, under
 * precision.compute "fp8" into cfg->cluster.matmul_efficiency_fp8, and,
 * under a fused attention backend the profile has rows of, into
 * cfg->cluster.attention_fwd_efficiency and attention_bwd_efficiency (the
 * forward left to the kernel set under precision.attention "fp8": the
 * probe times BF16). Returns 0, or -1 with one error in `diag`
 * (DC_ERR_CONFIG): the profile's GPU is not the config's (device.name
 * names another cluster.gpu preset's GPU, or device.sm_count is not the
 * config's SM count), the config already gives one of the two keys (the
 * profile would override it), a peak or the HBM bandwidth is unknown, the
 * profile has no "bf16" GEMM, no "fp8" one under FP8, or no element-wise
 * figure, or a level is not in [0.01, 1). *cfg unchanged then. */
int dc_compute_profile_apply(const struct dc_compute_profile *p, struct dc_config *cfg, struct dc_diag *diag);

/* Is this plan's per-rank layer the probe's, priced as the probe ran it
 * (dc_compute_profile_layer_fit says which way it is not)?
 * The same shape (dense layer, cp 1), a Llama block (RMSNorm, rotary
 * positions, none of biases, q/k norm, dropout, a window, a sandwich norm,
 * sinks, an output gate or linear attention), training.framework
 * "torchtitan" (the probe runs torchtitan's block), a compiled layer in
 * the profile when training.compile is true, the attention backend of the
 * kernel SDPA ran (layer.attention_backend) and BF16. 1 yes ("" in why);
 * 0 with the reason in why[n], naming each setting that differs with both
 * values ("tp 1, this run's 2") or the first feature or setting that
 * does. */
struct dc_plan;
enum dc_profile_layer_fit {
	DC_LAYER_FITS,        /* it compares */
	DC_LAYER_OTHER_SHAPE, /* a dense layer of another shape: the levels still price the run */
	DC_LAYER_OTHER_KIND,  /* a MoE or MLA model: the probe measures dense layers only */
	DC_LAYER_OTHER_BLOCK, /* another block than the probe's torchtitan Llama one: another framework's rules,
			       * or a model whose block is not Llama's (no probe run measures it) */
	DC_LAYER_UNLIKE,      /* no layer, or the same layer priced otherwise (kernel, precision, compile) */
};
enum dc_profile_layer_fit dc_compute_profile_layer_fit(const struct dc_compute_profile *p, const struct dc_plan *plan,
						       char *why, size_t n);
/* dc_compute_profile_layer_fit(...) == DC_LAYER_FITS */
int dc_compute_profile_layer_matches(const struct dc_compute_profile *p, const struct dc_plan *plan, char *why,
				     size_t n);

/* The kernel a training.attention_backend stands for, in words ("cuDNN",
 * "FlashAttention-3", else "FlashAttention-2"). */
const char *dc_attention_kernel_text(enum dc_attention_backend b);

/* The probe's measured layer a plan the layer matches compares with
 * (call it only after dc_compute_profile_layer_matches returned 1): the
 * compiled one (layer.compiled_fwd_bwd_s) under training.compile, else
 * the eager one (layer.fwd_bwd_s). */
double dc_compute_profile_layer_measured_s(const struct dc_compute_profile *p, const struct dc_plan *plan);

/* The GPU busy time of that layer (layer.compiled_gpu_busy_s under
 * training.compile, else layer.gpu_busy_s); 0 when the profile has none. */
double dc_compute_profile_layer_busy_s(const struct dc_compute_profile *p, const struct dc_plan *plan);

/* The model's forward + backward of the probe's layer (c->dense_layer, no
 * recomputation, for a plan the layer matches; the GPU's time, before a
 * host floor, dc_compute_profile_host_floor_s) at the clocks the profile
 * ran at, so that it compares with the measured layer like with like:
 * "sustained", the layer as the step prices it; "boost", its clock-bound
 * part (fwd_matmul_s + bwd_matmul_s: the GEMMs and the attention core,
 * each priced at a level that is an isolated figure x c->in_situ, its
 * time inversely proportional to that level while compute-bound) times
 * c->in_situ, the memory-bound rest as it is (the element-wise level has
 * no clock in it). */
struct dc_compute;
double dc_compute_profile_layer_predicted_s(const struct dc_compute_profile *p, const struct dc_compute *c);

/* The time the host took to issue one layer of the probe's block, where
 * the probe's layer waited for it (host-bound: its kernels kept the GPU
 * busy under DC_PROFILE_LAYER_BUSY_WARN of its time; layer.gpu_busy_s, or
 * compiled_gpu_busy_s under training.compile): the layer's measured time,
 * the host's, since the GPU finished first. Taken for any layer of this
 * run that is the same block whatever its shape (the same dense Llama
 * block under torchtitan, the same MLP kind, precision and compile mode,
 * any attention kernel: the same kernels launched), as each
 * layer's least time on that host (compute.h dense_layer_host_floor_s).
 * 0 otherwise: no busy time, a GPU-bound layer, another block. */
double dc_compute_profile_host_floor_s(const struct dc_compute_profile *p, const struct dc_plan *plan);

/* The probe's head and loss (gpu-probe.py --ends) against this run's: 1
 * when they are the same work (training.framework "torchtitan", whose
 * loss the probe runs; tp 1; training.loss_chunks 1; no MTP modules; a
 * BF16 head; RMSNorm; the same tokens a microbatch on a cp rank, hidden
 * size and vocabulary), else 0 with the reason in why[n]; 0 and "" when
 * the profile has no head. */
int dc_compute_profile_head_matches(const struct dc_compute_profile *p, const struct dc_plan *plan, char *why,
				    size_t n);

/* The model's forward + backward of that head (c->head) at the profile's
 * clocks, as dc_compute_profile_layer_predicted_s prices the layer. */
double dc_compute_profile_head_predicted_s(const struct dc_compute_profile *p, const struct dc_compute *c);

/* The probe's optimizer step against this run's: 1 when they run the
 * same code on the same states (training.framework "torchtitan", which
 * calls torch's AdamW and clip_grad_norm_; FP32 parameters or master,
 * gradients and moments; the step on the GPU), else 0 with the reason in
 * why[n]; 0 and "" when the profile has none. */
int dc_compute_profile_optimizer_matches(const struct dc_compute_profile *p, const struct dc_plan *plan, char *why,
					 size_t n);

/* The measured step of the probe's parameters by the run's
 * training.optimizer_implementation (optimizer.foreach_step_s or
 * fused_step_s) and the clip (clip_grad_norm_s), and the model's time for
 * as many parameters (compute.h optimizer_bytes_per_param and
 * optimizer_passes). */
double dc_compute_profile_optimizer_measured_s(const struct dc_compute_profile *p, const struct dc_plan *plan);
double dc_compute_profile_optimizer_predicted_s(const struct dc_compute_profile *p, const struct dc_compute *c);

/* |predicted / measured - 1| above which the layer comparison warns: the
 * model's largest error against a published Hopper run is 25.9% (11 rows,
 * mean 10.1%: docs/compute-model.md, "Hopper rows"), on whole steps with
 * communication; one layer on one GPU is simpler, so a layer further off
 * than that is more than the model's known error: the levels measured in
 * isolation do not hold in the layer, or the layer ran something else. */
#define DC_PROFILE_LAYER_WARN 0.25

/* The share of the probe's layer its kernels kept the GPU busy below
 * which distcalc takes the layer as waiting for its host (host-bound):
 * it says so, and takes the layer's time as the host's
 * (dc_compute_profile_host_floor_s). A threshold between the two regimes,
 * not fitted to a time: the H200's layers ran at 0.92-1.06 of theirs when
 * GPU-bound and 0.66-0.72 when host-bound (docs/compute-model.md, "A
 * measured H200"). */
#define DC_PROFILE_LAYER_BUSY_WARN 0.85

/* The largest GPU busy time a profile may give, over its layer's time:
 * the trace's runs are separate from the timed ones (and run under the
 * profiler), so a little above 1 is measurement; far above is a profile
 * whose members do not belong together. */
#define DC_PROFILE_LAYER_BUSY_MAX 1.5

#endif
