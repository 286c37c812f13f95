/* sec_step.c - the step section: step time, tokens/s, MFU and HFU, the
 * bubble, the classes of ranks and the critical path (step.h,
 * docs/step-model.md). */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "distcalc/calibrate_compute.h"
#include "distcalc/framework.h"
#include "distcalc/plan.h"
#include "distcalc/results.h"
#include "distcalc/section.h"
#include "report_int.h"

struct view {
	struct dc_step s;
	int available, unavailable, has_total_tokens;
	int new_schedule; /* ZB-H1, DualPipe, DualPipeV: their papers' figures shown */
	int mirror;       /* DualPipe: its mirror gradient sum's calls shown */
	double mirror_sum_s;
	const char *missing, *model, *hfu_paper_means, *paper;
	char paper_buf[320];
	char schedule[160];
	const char *pipeline_schedule; /* the schedule's config value (config.h dc_pipe_schedule_name) */
	int overlap_dp, overlap_fsdp, overlap_tp;
	int fsdp_sharded; /* parallel.sharding fsdp: overlap_fsdp is read */
	int has_framework; /* training.framework other than custom */
	const char *framework, *tp_overlap;
	int overlap_param_gather;
	int has_bucket; /* a data-parallel sync reads the gradient bucket */
	uint64_t grad_bucket_bytes;
	const char *grad_bucket_from;
	/* --calibrate-compute (calibrate_compute.h) */
	int has_profile, layer_compared, layer_not_compared;
	const char *profile, *profile_device, *layer_why, *profile_attention;
	char why[200];
	char clocks[200]; /* profile_clocks' text */
	char levels_buf[160];
	const char *profile_clocks, *layer_predicted_at;
	/* the levels that are not the set's ceiling x in situ; NULL: none */
	const char *levels_from;
	const char *kernel_set_from; /* NULL: cluster.gpu's set */
	int profile_synthetic;
	double layer_measured_s, layer_predicted_s, layer_error;
	double layer_busy_s, layer_busy_error; /* 0: the profile gives no GPU busy time */
	/* the probe's head and optimizer step (gpu-probe.py --ends) */
	int head_shown, head_compared, opt_shown, opt_compared;
	char head_why[240], opt_why[240];
	double head_measured_s, head_predicted_s, head_error;
	double opt_measured_s, opt_predicted_s, opt_error;
	uint64_t opt_params;
	double host_floor_s, host_factor; /* compute.h dense_layer_host_floor_s; floor 0: none */
	double slowdown;
	double ep_slowdown; /* under DeepEP (config.h ep_slowdown); shown where it differs */
	uint64_t slowest_stage; /* the pipeline stage of s.slowest_rank */
	/* the kernel model's parameters (compute.h), so a reader can see
	 * which set priced the kernels and override it */
	const char *kernel_set;
	double matmul_efficiency, memory_efficiency;
	uint64_t sm_count;
	double gemm_ceiling, in_situ, matmul_efficiency_fp8, fp8_cast_bytes;
	const char *attention_backend;
	const char *attention_backend_from; /* NULL: the config's, or the key's default */
	double attention_fwd_efficiency, attention_bwd_efficiency;
	int fp8, fused_attention;
	/* parallel.offload: the optimizer on the host, at its slowest segment */
	int on_host;
	const char *host_model;
	double host_bandwidth, host_adam_rate;
	struct dc_host_step host;
};

/* The bubble formula of the schedule's paper (step.h bubble_paper_s). */
static const char *paper_formula(enum dc_pipe_schedule s)
{
	switch (s) {
	case DC_PIPE_ZERO_BUBBLE:
		return "(p - 1)(F + B - 2W): Qi et al. 2024 (arXiv 2401.10241) ZB-H1, the DualPipe README's ZB1P row";
	case DC_PIPE_DUALPIPE:
		return "(p/2 - 1)(F&B + B - 3W), 2x parameters, p + 1 activations: DeepSeek-V3 (arXiv 2412.19437) Table 2, deepseek-ai/DualPipe README";
	case DC_PIPE_DUALPIPEV:
		return "(PP/2 - 1)(F&B + B - 3W) over PP = 2p stages, 2p + 1 chunk activations: deepseek-ai/DualPipe README, DualPipeV row";
	case DC_PIPE_1F1B:
	case DC_PIPE_INTERLEAVED:
		break;
	}
	return "(p - 1)(F + B): Megatron-LM 2021 section 2.2";
}

/* a step of several pipeline schedules (parallel.pipeline_schedule_microbatches) */
static int has_schedules(const void *base)
{
	const struct view *v = base;
	return v->available && v->s.schedules > 1;
}

static int is_new_schedule(const void *base)
{
	return ((const struct view *)base)->new_schedule;
}

static int is_mirror(const void *base)
{
	return ((const struct view *)base)->mirror;
}

/* Which levels the step prices with are not the kernel set's isolated
 * ceiling x in situ printed above them: the matmul level the config gives
 * (cluster.matmul_efficiency; FP8 keeps the set's ratio to it), or the
 * levels --calibrate-compute measured: at boost clocks times the in situ
 * above, at sustained clocks as they are (calibrate_compute.h). NULL when
 * none. */
static void levels_from(struct view *v, const struct dc_config *in)
{
	/* [matmuls: none, BF16, BF16 and FP8], [attention: none, bwd, both] */
	static const char *const mms[3] = {"", "BF16 matmuls", "BF16 and FP8 matmuls"};
	static const char *const attns[3] = {"", "attention bwd", "attention fwd and bwd"};
	int k = dc_config_key_index("cluster.matmul_efficiency");
	int o = k >= 0 ? in->origin[k] : DC_ORIGIN_DEFAULT;
	int mm = 0, attn = 0;
	if (o == DC_ORIGIN_CALIBRATED)
		mm = v->fp8 && in->cluster.matmul_efficiency_fp8 > 0 ? 2 : 1;
	if (in->cluster.attention_bwd_efficiency > 0)
		attn = in->cluster.attention_fwd_efficiency > 0 ? 2 : 1;
	v->levels_from = NULL;
	if (mm || attn) {
		int boost = !(in->compute_profile && in->compute_profile->sustained);
		dc_text_fmt(v->levels_buf, sizeof(v->levels_buf), "measured at %s clocks (--calibrate-compute): %s%s%s, %s",
			    boost ? "boost" : "sustained", mms[mm], mm && attn ? ", " : "", attns[attn],
			    boost ? "each x the in situ above, not the ceiling" : "as measured, not the ceiling x in situ above");
		v->levels_from = v->levels_buf;
	}
	if (!v->levels_from && (o == DC_ORIGIN_CONFIG || o == DC_ORIGIN_SET))
		v->levels_from = v->fp8 ? "cluster.matmul_efficiency given: the BF16 matmuls at it, the FP8 ones at the set's "
					  "FP8 level scaled by as much, not the ceiling x in situ above"
					: "cluster.matmul_efficiency given: the matmuls at it, not the ceiling x in situ above";
}

static int has_levels_from(const void *base)
{
	const struct view *v = base;
	return v->available && v->levels_from;
}

static int has_kernel_set_from(const void *base)
{
	const struct view *v = base;
	return v->available && v->kernel_set_from;
}

/* Where the gradient bucket comes from, and whether a data-parallel sync
 * reads it: src/axis/dp.c buckets the syncs of sharding none, zero1 and
 * zero2 over dp x cp > 1; FSDP reduce-scatters each unit as one
 * (src/axis/fsdp.c); the framework rules are src/est/framework.c's. */
static void grad_bucket_from(struct view *v, const struct dc_plan *p)
{
	const struct dc_config *in = p->in;
	enum dc_sharding sh = p->layout.sharding;
	v->has_bucket = sh != DC_SHARD_FSDP && p->dp_cp > 1;
	if (sh == DC_SHARD_FSDP)
		v->grad_bucket_from =
			in->training.framework == DC_FRAMEWORK_DEEPSPEED
				? "none: ZeRO-3 is priced as FSDP, each unit's gradients reduce-scattered as one; DeepSpeed's own "
				  "stage-3 buckets of reduce_bucket_size elements (deepspeed/runtime/zero/stage3.py:1533 at "
				  "edaa7221) are not modelled"
				: "none: sharding fsdp reduce-scatters each unit's gradients as one";
	else if (p->dp_cp < 2)
		v->grad_bucket_from = "none: one data-parallel rank (dp x cp 1), no gradient sync";
	else if (in->parallel.bucket_given)
		v->grad_bucket_from = "parallel.bucket_size";
	else
		switch (in->training.framework) {
		case DC_FRAMEWORK_MEGATRON:
			v->grad_bucket_from = "Megatron's max(40M, 1M x dp x cp) parameters x grad_bytes "
					      "(megatron/training/training.py:2189)";
			break;
		case DC_FRAMEWORK_DEEPSPEED:
			v->grad_bucket_from =
				sh == DC_SHARD_NONE
					? "DeepSpeed's all-reduce bucket, 5 x 10^8 elements x grad_bytes (MEMORY_OPT_ALLREDUCE_SIZE, "
					  "deepspeed/runtime/engine.py:160)"
					: "DeepSpeed's reduce_bucket_size default, 5 x 10^8 elements x grad_bytes "
					  "(deepspeed/runtime/zero/config.py:113)";
			break;
		case DC_FRAMEWORK_TORCHTITAN:
			v->grad_bucket_from = "torchtitan's: one transformer block's gradients (per-block replicate)";
			break;
		case DC_FRAMEWORK_CUSTOM:
			v->grad_bucket_from = "PyTorch DDP's 25 MiB (bucket_cap_mb)";
			break;
		}
}

static void view(const struct dc_run *run, void *out)
{
	struct view *v = out;
	const struct dc_step *s = &run->res->step;
	const struct dc_config *in = run->plan->in;
	v->s = *s;
	{
		const struct dc_topology *t = &run->plan->topo;
		v->slowest_stage = t->stride[DC_AXIS_PP] ? s->slowest_rank / t->stride[DC_AXIS_PP] % t->degree[DC_AXIS_PP] : 0;
	}
	v->available = s->available;
	v->unavailable = !s->available;
	v->missing = s->missing;
	v->has_total_tokens = in->training.total_tokens > 0 && s->available;
	v->model = "kernel times from the compute result, collective times from the comm result; 1F1B or interleaved 1F1B; "
		   "gradient buckets behind the last backward; every rank meets at the gradient sync and the optimizer";
	v->new_schedule = s->available && s->schedule != DC_PIPE_1F1B && s->schedule != DC_PIPE_INTERLEAVED;
	if (v->new_schedule)
		v->model = "kernel times from the compute result, collective times from the comm result; the schedule's own "
			   "op order simulated op by op (ZB-H1 too, within the step's bound: docs/step-model.md section 3); "
			   "gradient buckets behind the last backward; every rank meets at the gradient sync and the optimizer";
	if (v->new_schedule) {
		/* the paper's count assumes equal stages and free sends; the
		 * simulated bubble above holds the waits for heavier ranks and
		 * for sends too (a user trial read the two as one, 7x apart) */
		dc_text_fmt(v->paper_buf, sizeof(v->paper_buf),
			    "%s; for equal stages and free sends, where the bubble above is the simulated schedule's, "
			    "its waits for heavier ranks and for sends included",
			    paper_formula(s->schedule));
		v->paper = v->paper_buf;
	} else {
		v->paper = "";
	}
	/* DualPipe's sum of each copy's gradients with the mirror rank's
	 * (src/axis/dp.c mirror_sum): its calls' time, the comm result's */
	v->mirror = s->available && s->schedule == DC_PIPE_DUALPIPE;
	v->mirror_sum_s = 0;
	for (int k = 0; v->mirror && k < 2; k++) {
		const struct dc_comm_strategy *st = &run->res->comm.s[k ? DC_STRAT_FSDP : DC_STRAT_DP];
		for (uint64_t i = 0; st->in_play && i < st->ncoll; i++)
			if (st->coll[i].what == DC_CW_MIRROR_GRAD_BUCKET ||
			    st->coll[i].what == DC_CW_MIRROR_EXPERT_GRAD_BUCKET)
				v->mirror_sum_s += st->coll[i].time_s;
	}
	v->hfu_paper_means = "hardware FLOPs as Korthikanti et al. 2022 count them: Eq. 8 with selective recompute (s/(3h)), "
			     "Megatron-LM 2021 Eq. 3 with full, Eq. 7 with none; formulas for a GPT-shaped dense model (4h GELU MLP, "
			     "as many key/value heads as heads), so on another model they can fall below the MFU counted here";
	{
		/* m: one schedule's microbatches, where a step runs several
		 * (parallel.pipeline_schedule_microbatches) */
		unsigned long long pp = s->p, m = s->schedules > 1 ? s->schedule_m : s->m;
		size_t n;
		if (s->schedule == DC_PIPE_ZERO_BUBBLE)
			dc_text_fmt(v->schedule, sizeof(v->schedule), "ZB-H1: p %llu, m %llu", pp, m);
		else if (s->schedule == DC_PIPE_DUALPIPE)
			dc_text_fmt(v->schedule, sizeof(v->schedule), "DualPipe: p %llu, m %llu (%llu each way)", pp, m,
				    m / 2);
		else if (s->schedule == DC_PIPE_DUALPIPEV)
			dc_text_fmt(v->schedule, sizeof(v->schedule), "DualPipeV: p %llu (%llu chunks), m %llu", pp, 2 * pp,
				    m);
		else if (s->v > 1)
			dc_text_fmt(v->schedule, sizeof(v->schedule), "interleaved 1F1B: p %llu, m %llu, v %llu", pp, m,
				    (unsigned long long)s->v);
		else
			dc_text_fmt(v->schedule, sizeof(v->schedule), "1F1B: p %llu, m %llu", pp, m);
		if (s->schedules > 1) {
			n = strlen(v->schedule);
			snprintf(v->schedule + n, sizeof(v->schedule) - n, "; %llu schedules a step, one after another",
				 (unsigned long long)s->schedules);
		}
	}
	v->pipeline_schedule = dc_pipe_schedule_name(s->schedule);
	v->overlap_dp = dc_framework_overlap_dp(run->plan);
	v->has_framework = s->available && in->training.framework != DC_FRAMEWORK_CUSTOM;
	v->framework = dc_framework_name(in->training.framework);
	v->overlap_param_gather = dc_framework_param_gather(run->plan);
	if (in->compute_profile && s->available) {
		const struct dc_compute_profile *pr = in->compute_profile;
		v->has_profile = 1;
		v->profile = pr->name;
		v->profile_device = pr->device;
		v->profile_synthetic = pr->synthetic;
		v->layer_compared = dc_compute_profile_layer_matches(pr, run->plan, v->why, sizeof(v->why));
		v->layer_why = v->why;
		if (in->cluster.attention_bwd_efficiency > 0)
			v->profile_attention = in->cluster.attention_fwd_efficiency > 0
						       ? "calibrated: the profile's rows of the backend"
						       : "backward calibrated; the FP8 forward the GPU set's (the probe times BF16)";
		else if (run->res->compute.attention_fwd_efficiency > 0)
			v->profile_attention = "the GPU set's: the profile has no rows of the backend";
		else
			v->profile_attention = "eager: its products are GEMMs";
		v->layer_not_compared = !v->layer_compared;
		/* calibrate_compute.h: the shares each measured level takes */
		{
			double gemm_in_situ, share;
			dc_compute_in_situ(in->cluster.gpu, &gemm_in_situ, &share);
			(void)gemm_in_situ;
			snprintf(v->clocks, sizeof(v->clocks), "%s; element-wise x the sets' streaming share, %.4f (no clock)",
				 pr->sustained ? "sustained (\"clocks\"): GEMM and attention levels as measured"
					       : "boost (\"clocks\" absent or \"boost\": short runs): GEMM and attention levels x "
						 "the in situ above",
				 share);
			v->profile_clocks = v->clocks;
		}
		if (v->layer_compared) {
			/* the probe's layer: forward then backward, no recompute,
			 * predicted at the clocks it ran at */
			v->layer_measured_s = dc_compute_profile_layer_measured_s(pr, run->plan);
			v->layer_predicted_s = dc_compute_profile_layer_predicted_s(pr, &run->res->compute);
			v->layer_error = v->layer_predicted_s / v->layer_measured_s - 1.0;
			v->layer_busy_s = dc_compute_profile_layer_busy_s(pr, run->plan);
			if (v->layer_busy_s > 0)
				v->layer_busy_error = v->layer_predicted_s / v->layer_busy_s - 1.0;
			if (run->plan->in->training.compile)
				v->layer_predicted_at =
					pr->sustained ? "sustained clocks: the layer as the step prices it; the probe's "
							"compiled layer (training.compile)"
						      : "boost clocks, as the probe ran it: its matmuls and attention at the "
							"measured levels before the in situ; the probe's compiled layer "
							"(training.compile)";
			else
				v->layer_predicted_at = pr->sustained
								? "sustained clocks: the layer as the step prices it"
								: "boost clocks, as the probe ran it: its matmuls and attention at "
								  "the measured levels before the in situ";
		}
	}
	if (in->compute_profile && s->available) {
		const struct dc_compute_profile *pr = in->compute_profile;
		const struct dc_compute *c = &run->res->compute;
		v->host_floor_s = c->dense_layer_host_floor_s;
		v->host_factor = c->dense_layer_host_factor;
		v->head_shown = pr->has_head;
		v->head_compared = dc_compute_profile_head_matches(pr, run->plan, v->head_why, sizeof(v->head_why));
		if (v->head_compared) {
			v->head_measured_s = pr->head.fwd_bwd_s;
			v->head_predicted_s = dc_compute_profile_head_predicted_s(pr, c);
			v->head_error = v->head_predicted_s / v->head_measured_s - 1.0;
		}
		v->opt_shown = pr->has_optimizer;
		v->opt_compared =
			dc_compute_profile_optimizer_matches(pr, run->plan, v->opt_why, sizeof(v->opt_why));
		if (v->opt_compared) {
			v->opt_params = pr->optimizer.params;
			v->opt_measured_s = dc_compute_profile_optimizer_measured_s(pr, run->plan);
			v->opt_predicted_s = dc_compute_profile_optimizer_predicted_s(pr, c);
			v->opt_error = v->opt_predicted_s / v->opt_measured_s - 1.0;
		}
	}
	v->grad_bucket_bytes = dc_framework_grad_bucket_bytes(run->plan);
	grad_bucket_from(v, run->plan);
	if (run->plan->layout.tp < 2)
		v->tp_overlap = "none (tp 1)";
	else
		switch (dc_framework_tp_overlap(run->plan)) {
		case DC_TP_WAIT_ALL:
			v->tp_overlap = "every collective waited for (DTensor TP)";
			break;
		case DC_TP_ASYNC_BWD:
			v->tp_overlap = in->training.framework == DC_FRAMEWORK_MEGATRON
						? "the backward's input-gradient collectives, each behind its own linear's GEMM (Megatron async)"
						: "the backward's input-gradient collectives, each behind its own linear's GEMM (Megatron's async rule)";
			break;
		case DC_TP_ALL:
			v->tp_overlap = "every collective behind the layer's matmuls";
			break;
		case DC_TP_TILED:
			v->tp_overlap = "tiled: tp tiles beside each collective's GEMM, one tile exposed";
			break;
		}
	v->overlap_fsdp = in->overlap.fsdp_prefetch;
	v->fsdp_sharded = run->plan->layout.sharding == DC_SHARD_FSDP;
	v->overlap_tp = in->overlap.tp;
	v->slowdown = in->overlap.compute_slowdown;
	v->ep_slowdown = in->overlap.ep_slowdown;
	v->kernel_set = run->res->compute.gpu;
	v->matmul_efficiency = run->res->compute.matmul_efficiency;
	v->memory_efficiency = run->res->compute.memory_efficiency;
	v->sm_count = (uint64_t)run->res->compute.sm_count;
	v->gemm_ceiling = run->res->compute.gemm_ceiling;
	v->in_situ = run->res->compute.in_situ;
	v->matmul_efficiency_fp8 = run->res->compute.matmul_efficiency_fp8;
	v->fp8_cast_bytes = run->res->compute.fp8_cast_bytes;
	v->attention_backend = run->res->compute.attention_backend;
	v->attention_backend_from = NULL;
	{
		int k = dc_config_key_index("training.attention_backend");
		if (k >= 0 && in->origin[k] == DC_ORIGIN_FRAMEWORK)
			v->attention_backend_from =
				in->training.attention_backend == DC_ATTN_BACKEND_CUDNN
					? "derived from training.framework \"megatron\": Transformer Engine prefers its cuDNN fused attention to FlashAttention on a Hopper or Blackwell GPU"
					: "derived from training.framework";
		else if (k >= 0 && in->origin[k] == DC_ORIGIN_GPU)
			v->attention_backend_from =
				"derived from cluster.gpu (Blackwell): PyTorch with a cuDNN newer than 9.15 runs SDPA on cuDNN's fused attention there, as torchtitan did from May 2025 to June 2026; FlashAttention-2 runs Ampere's instructions at a fraction of its speed";
	}
	v->attention_fwd_efficiency = run->res->compute.attention_fwd_efficiency;
	v->attention_bwd_efficiency = run->res->compute.attention_bwd_efficiency;
	v->fp8 = in->precision.compute == DC_COMPUTE_FP8;
	v->fused_attention = run->res->compute.attention_fwd_efficiency > 0;
	levels_from(v, in);
	if (v->fp8 && (in->cluster.gpu == DC_GPU_NONE || in->cluster.gpu >= DC_GPU_COUNT) &&
	    !(in->cluster.matmul_efficiency_fp8 > 0))
		v->kernel_set_from = "no cluster.gpu: the A100's set, which has no FP8 level of its own: its FP8 matmuls run at "
				     "its BF16 level over the FP8 peak (docs/compute-model.md, \"Parameters\"); set cluster.gpu, "
				     "or calibrate (--calibrate-compute)";
	v->on_host = s->available && run->res->compute.optimizer_on_host;
	if (v->on_host) {
		const struct dc_compute *c = &run->res->compute;
		double worst = -1;
		v->host_model = "per step, one after the other: the rank's gradient shard to the host, Adam on the node's "
				"CPUs over every GPU's shard, the updated parameters back (ZeRO-Offload, Ren et al. 2021); "
				"nothing behind the backward, no delayed update";
		if (in->training.framework == DC_FRAMEWORK_DEEPSPEED &&
		    (run->plan->layout.sharding == DC_SHARD_ZERO1 || run->plan->layout.sharding == DC_SHARD_ZERO2))
			v->host_model = "DeepSpeed ZeRO-1/2 (stage_1_and_2.py), one after the other: under gradient "
					"accumulation ZeRO-2's micro-step gradient copies on the compute stream (every micro "
					"step's out, each later one's sum back; ZeRO-1 none); the boundary's gradients cast to "
					"FP32 out, Adam on the node's CPUs over every GPU's shard, the parameters cast to their "
					"16-bit dtype on those CPUs and back; no delayed update";
		if (in->training.framework == DC_FRAMEWORK_DEEPSPEED && run->plan->layout.sharding == DC_SHARD_FSDP)
			v->host_model = "DeepSpeed ZeRO-3 (stage3.py): each micro step's gradient partitions out to their host "
					"buffer and back on the reduce stream, and with \"optimizer+params\" the parameter "
					"partitions up before each gather on its stream, both beside those collectives; then "
					"one after the other the boundary's gradients cast to FP32 out, Adam on the node's CPUs "
					"over every GPU's shard, the parameters cast to their 16-bit dtype on those CPUs and back "
					"(with \"optimizer+params\" into their host buffer, nothing back); no delayed update";
		v->host_bandwidth = c->host_bandwidth;
		v->host_adam_rate = c->host_adam_rate;
		for (uint64_t i = 0; i < run->plan->nsegments && i < DC_PLAN_MAX_SEGMENTS; i++)
			if (c->optimizer_s[i] > worst) {
				worst = c->optimizer_s[i];
				v->host = c->host_step[i];
			}
	}
}

static int is_on_host(const void *base)
{
	return ((const struct view *)base)->on_host;
}

static int has_accum_copies(const void *base)
{
	const struct view *v = base;
	return v->on_host && v->host.accum_s > 0;
}

static int has_param_copies(const void *base)
{
	const struct view *v = base;
	return v->on_host && v->s.host_param_copies_s > 0;
}

static int has_grad_copies(const void *base)
{
	const struct view *v = base;
	return v->on_host && v->s.host_grad_copies_s > 0;
}

static int has_host_cast(const void *base)
{
	const struct view *v = base;
	return v->on_host && v->host.cast_s > 0;
}

static int has_backend_from(const void *base)
{
	const struct view *v = base;
	return v->available && v->attention_backend_from;
}

static int is_available(const void *base)
{
	return ((const struct view *)base)->available;
}

/* DeepEP's own SMs: a slowdown of its own while its AlltoAlls overlap */
static int has_ep_slowdown(const void *base)
{
	const struct view *v = base;
	return v->available && v->ep_slowdown != v->slowdown;
}

static int has_framework(const void *base)
{
	return ((const struct view *)base)->has_framework;
}

static int has_bucket(const void *base)
{
	const struct view *v = base;
	return v->has_framework && v->has_bucket;
}

static int is_fp8(const void *base)
{
	const struct view *v = base;
	return v->available && v->fp8;
}

static int is_fused_attention(const void *base)
{
	const struct view *v = base;
	return v->available && v->fused_attention;
}

static int has_profile(const void *base)
{
	return ((const struct view *)base)->has_profile;
}

static int layer_compared(const void *base)
{
	return ((const struct view *)base)->layer_compared;
}

static int layer_busy_shown(const void *base)
{
	const struct view *v = base;
	return v->layer_compared && v->layer_busy_s > 0;
}

static int layer_not_compared(const void *base)
{
	return ((const struct view *)base)->layer_not_compared;
}

static int host_floor_shown(const void *base)
{
	return ((const struct view *)base)->host_floor_s > 0;
}

static int head_compared(const void *base)
{
	return ((const struct view *)base)->head_compared;
}

static int head_not_compared(const void *base)
{
	const struct view *v = base;
	return v->head_shown && !v->head_compared;
}

static int opt_compared(const void *base)
{
	return ((const struct view *)base)->opt_compared;
}

static int opt_not_compared(const void *base)
{
	const struct view *v = base;
	return v->opt_shown && !v->opt_compared;
}

static int is_unavailable(const void *base)
{
	return ((const struct view *)base)->unavailable;
}

static int has_total_tokens(const void *base)
{
	return ((const struct view *)base)->has_total_tokens;
}

/* time_to_train_s for reading, beside the seconds: hours below two days,
 * days from there, and Julian years (365.25 days) past one; the table's
 * alone (JSON and CSV keep the seconds) */
static void time_to_train_text(const void *base, char *buf, size_t len)
{
	double s = ((const struct view *)base)->s.time_to_train_s, days = s / 86400.0;
	if (days < 2)
		snprintf(buf, len, "%.1f hours", s / 3600.0);
	else if (days < 365.25)
		snprintf(buf, len, "%.1f days", days);
	else
		snprintf(buf, len, "%.1f days, %.2f years", days, days / 365.25);
}

/* ---- classes ---- */

struct class_row {
	char stages[48];
	uint64_t ranks, first_rank;
	double compute_s, bubble_s, exposed_comm_s, exposed[DC_STRAT_COUNT], hidden_s, tail_wait_s, optimizer_s,
		total_s;
};

static uint64_t class_count(const void *base)
{
	const struct view *v = base;
	return v->available ? v->s.nclasses : 0;
}

static void class_row(const void *base, uint64_t i, void *out)
{
	const struct dc_step_class *c = &((const struct view *)base)->s.classes[i];
	struct class_row *row = out;
	if (c->stage_first == c->stage_last)
		dc_text_fmt(row->stages, sizeof(row->stages), "%llu", (unsigned long long)c->stage_first);
	else
		dc_text_fmt(row->stages, sizeof(row->stages), "%llu-%llu", (unsigned long long)c->stage_first,
			    (unsigned long long)c->stage_last);
	row->ranks = c->ranks;
	row->first_rank = c->first_rank;
	row->compute_s = c->compute_s;
	row->bubble_s = c->bubble_s;
	row->exposed_comm_s = 0;
	for (int j = 0; j < DC_STRAT_COUNT; j++) {
		row->exposed[j] = c->exposed_s[j];
		row->exposed_comm_s += c->exposed_s[j];
	}
	row->hidden_s = c->hidden_s;
	row->tail_wait_s = c->tail_wait_s;
	row->optimizer_s = c->optimizer_s;
	row->total_s = c->total_s;
}

#define CR(m) offsetof(struct class_row, m)
static const struct dc_field class_fields[] = {
	{"stages", "stages", DC_U_NONE, DC_FT_TEXT, CR(stages)},
	{"ranks", "ranks", DC_U_COUNT, DC_FT_U64, CR(ranks)},
	{"first_rank", "first rank", DC_U_COUNT, DC_FT_U64, CR(first_rank)},
	{"compute_s", "compute", DC_U_SECONDS, DC_FT_F64, CR(compute_s)},
	{"bubble_s", "bubble", DC_U_SECONDS, DC_FT_F64, CR(bubble_s)},
	{"exposed_comm_s", "exposed comm", DC_U_SECONDS, DC_FT_F64, CR(exposed_comm_s)},
	{"exposed_comm_dp_s", "dp", DC_U_SECONDS, DC_FT_F64, CR(exposed[DC_STRAT_DP])},
	{"exposed_comm_fsdp_s", "fsdp", DC_U_SECONDS, DC_FT_F64, CR(exposed[DC_STRAT_FSDP])},
	{"exposed_comm_tp_s", "tp", DC_U_SECONDS, DC_FT_F64, CR(exposed[DC_STRAT_TP])},
	{"exposed_comm_pp_s", "pp", DC_U_SECONDS, DC_FT_F64, CR(exposed[DC_STRAT_PP])},
	{"exposed_comm_ep_s", "ep", DC_U_SECONDS, DC_FT_F64, CR(exposed[DC_STRAT_EP])},
	{"exposed_comm_cp_s", "cp", DC_U_SECONDS, DC_FT_F64, CR(exposed[DC_STRAT_CP])},
	{"hidden_comm_s", "hidden comm", DC_U_SECONDS, DC_FT_F64, CR(hidden_s)},
	{"tail_wait_s", "tail wait", DC_U_SECONDS, DC_FT_F64, CR(tail_wait_s)},
	{"optimizer_s", "optimizer", DC_U_SECONDS, DC_FT_F64, CR(optimizer_s)},
	{"total_s", "total", DC_U_SECONDS, DC_FT_F64, CR(total_s)},
};
static const struct dc_fields class_table = DC_FIELDS(class_fields);
static const struct dc_rows class_rows = {class_count, class_row, sizeof(struct class_row), "classes"};

/* ---- the critical path ---- */

struct path_row {
	const char *what;
	uint64_t stage;
	double start_s, duration_s;
};

static uint64_t path_count(const void *base)
{
	const struct view *v = base;
	return v->available ? v->s.npath : 0;
}

static void path_row(const void *base, uint64_t i, void *out)
{
	const struct dc_step_path *p = &((const struct view *)base)->s.path[i];
	struct path_row *row = out;
	row->what = p->what;
	row->stage = p->stage;
	row->start_s = p->start_s;
	row->duration_s = p->duration_s;
}

#define PR(m) offsetof(struct path_row, m)
static const struct dc_field path_fields[] = {
	{"what", "what", DC_U_NONE, DC_FT_STR, PR(what)},
	{"stage", "stage", DC_U_COUNT, DC_FT_U64, PR(stage)},
	{"start_s", "start", DC_U_SECONDS, DC_FT_F64, PR(start_s)},
	{"duration_s", "duration", DC_U_SECONDS, DC_FT_F64, PR(duration_s)},
};
static const struct dc_fields path_table = DC_FIELDS(path_fields);
static const struct dc_rows path_rows = {path_count, path_row, sizeof(struct path_row), "steps"};

/* overlap.fsdp_prefetch is the key's value; a layout without FSDP gathers
 * nothing to prefetch, and says so */
static void fsdp_prefetch_label(const void *base, char *buf, size_t len)
{
	dc_text_fmt(buf, len, "%s", ((const struct view *)base)->fsdp_sharded ? "overlap: fsdp prefetch"
									       : "overlap: fsdp prefetch (no FSDP here: unused)");
}

#define V(m) offsetof(struct view, m)
#define SV(m) offsetof(struct view, s.m)

/* The slowest rank's label names its stage: under a pipeline the stage
 * that ends last (1F1B's stage 0, which drains last) is not the critical
 * stage, whose work bounds the schedule, and side by side the two read as
 * a contradiction without it (a student trial) */
static void slowest_rank_label(const void *base, char *buf, size_t len)
{
	const struct view *v = base;
	if (v->s.critical_stage == v->slowest_stage)
		snprintf(buf, len, "slowest rank (sets the step)");
	else
		snprintf(buf, len, "slowest rank (sets the step: stage %llu ends last)", (unsigned long long)v->slowest_stage);
}

static const struct dc_field fields[] = {
	{"available", "step time available", DC_U_NONE, DC_FT_BOOL, V(available)},
	{"missing", "missing (set cluster.gpu or these keys)", DC_U_NONE, DC_FT_STR, V(missing), .shown = is_unavailable},
	{"model", "model", DC_U_NONE, DC_FT_STR, V(model), .shown = is_available},
	{"schedule", "schedule", DC_U_NONE, DC_FT_TEXT, V(schedule), .shown = is_available},
	{"pipeline_schedule", "schedule (parallel.pipeline_schedule)", DC_U_NONE, DC_FT_STR, V(pipeline_schedule),
	 .shown = is_available},
	{"kernel_set", "kernel parameter set (docs/compute-model.md)", DC_U_NONE, DC_FT_STR, V(kernel_set),
	 .shown = is_available},
	{"kernel_set_from", "kernel parameter set from", DC_U_NONE, DC_FT_STR, V(kernel_set_from),
	 .shown = has_kernel_set_from},
	{"gemm_ceiling", "matmuls alone (isolated): fraction of peak", DC_U_RATIO, DC_FT_F64, V(gemm_ceiling),
	 .shown = is_available},
	{"in_situ", "in situ: share of isolated levels kept", DC_U_RATIO, DC_FT_F64, V(in_situ),
	 .shown = is_available},
	{"kernel_levels_from", "levels below come from", DC_U_NONE, DC_FT_STR, V(levels_from),
	 .shown = has_levels_from},
	{"matmul_efficiency", "matmuls: fraction of peak on whole waves", DC_U_RATIO, DC_FT_F64, V(matmul_efficiency),
	 .shown = is_available},
	{"matmul_efficiency_fp8", "FP8 matmuls: fraction of the FP8 peak", DC_U_RATIO, DC_FT_F64,
	 V(matmul_efficiency_fp8), .shown = is_fp8},
	{"fp8_cast_bytes_per_element", "FP8 casts: bytes per input element [B]", DC_U_NONE, DC_FT_F64,
	 V(fp8_cast_bytes),
	 .shown = is_fp8},
	{"attention_backend", "attention backend", DC_U_NONE, DC_FT_STR, V(attention_backend), .shown = is_available},
	{"attention_backend_from", "attention backend from", DC_U_NONE, DC_FT_STR, V(attention_backend_from),
	 .shown = has_backend_from},
	{"attention_fwd_efficiency", "fused attention fwd: fraction of peak", DC_U_RATIO, DC_FT_F64,
	 V(attention_fwd_efficiency), .shown = is_fused_attention},
	{"attention_bwd_efficiency", "fused attention bwd: fraction of peak", DC_U_RATIO, DC_FT_F64,
	 V(attention_bwd_efficiency), .shown = is_fused_attention},
	{"memory_efficiency", "element-wise: fraction of HBM bandwidth", DC_U_RATIO, DC_FT_F64, V(memory_efficiency),
	 .shown = is_available},
	{"sm_count", "SMs (one wave of GEMM tiles)", DC_U_COUNT, DC_FT_U64, V(sm_count), .shown = is_available},
	{"framework", "framework (training.framework)", DC_U_NONE, DC_FT_STR, V(framework), .shown = has_framework},
	{"grad_bucket_bytes", "gradient bucket", DC_U_BYTES, DC_FT_U64, V(grad_bucket_bytes), .shown = has_bucket},
	{"grad_bucket_from", "gradient bucket from", DC_U_NONE, DC_FT_STR, V(grad_bucket_from),
	 .shown = has_framework},
	{"overlap_param_gather", "overlap: updated params all_gather behind the next forward", DC_U_NONE, DC_FT_BOOL,
	 V(overlap_param_gather), .shown = has_framework},
	/* under custom too: Megatron's async rule hides backward tp calls
	 * whatever overlap.tp says (a student read "tp behind the matmuls
	 * no" as every tp call exposed) */
	{"tp_overlap", "overlap: tp collectives", DC_U_NONE, DC_FT_STR, V(tp_overlap), .shown = is_available},
	{"compute_profile", "kernel levels from (--calibrate-compute)", DC_U_NONE, DC_FT_STR, V(profile),
	 .shown = has_profile},
	{"compute_profile_device", "profile's GPU", DC_U_NONE, DC_FT_STR, V(profile_device), .shown = has_profile},
	{"compute_profile_synthetic", "profile synthetic (not a measurement)", DC_U_NONE, DC_FT_BOOL,
	 V(profile_synthetic), .shown = has_profile},
	{"compute_profile_attention", "attention levels", DC_U_NONE, DC_FT_STR, V(profile_attention),
	 .shown = has_profile},
	{"compute_profile_clocks", "profile's clocks", DC_U_NONE, DC_FT_STR, V(profile_clocks), .shown = has_profile},
	{"profile_layer_measured_s", "probe's layer fwd+bwd, measured", DC_U_SECONDS, DC_FT_F64, V(layer_measured_s),
	 .shown = layer_compared},
	{"profile_layer_predicted_s", "probe's layer fwd+bwd, predicted", DC_U_SECONDS, DC_FT_F64,
	 V(layer_predicted_s), .shown = layer_compared},
	{"profile_layer_predicted_at", "probe's layer predicted at", DC_U_NONE, DC_FT_STR, V(layer_predicted_at),
	 .shown = layer_compared},
	{"profile_layer_error", "probe's layer: predicted / measured - 1", DC_U_RATIO, DC_FT_F64, V(layer_error),
	 .shown = layer_compared},
	{"profile_layer_gpu_busy_s", "probe's layer: GPU busy in its kernels", DC_U_SECONDS, DC_FT_F64,
	 V(layer_busy_s), .shown = layer_busy_shown},
	{"profile_layer_busy_error", "probe's layer: predicted / GPU busy - 1", DC_U_RATIO, DC_FT_F64,
	 V(layer_busy_error), .shown = layer_busy_shown},
	{"profile_layer_not_compared", "probe's layer not compared", DC_U_NONE, DC_FT_STR, V(layer_why),
	 .shown = layer_not_compared},
	{"profile_layer_host_floor_s", "a layer at least (its host's time: the probe's layer waited for it)",
	 DC_U_SECONDS, DC_FT_F64, V(host_floor_s), .shown = host_floor_shown},
	{"profile_layer_host_factor", "layer's kernel times x (1: the GPU's time was longer)", DC_U_RATIO, DC_FT_F64,
	 V(host_factor), .shown = host_floor_shown},
	{"profile_head_measured_s", "probe's head and loss fwd+bwd, measured", DC_U_SECONDS, DC_FT_F64,
	 V(head_measured_s), .shown = head_compared},
	{"profile_head_predicted_s", "probe's head and loss fwd+bwd, predicted", DC_U_SECONDS, DC_FT_F64,
	 V(head_predicted_s), .shown = head_compared},
	{"profile_head_error", "probe's head: predicted / measured - 1", DC_U_RATIO, DC_FT_F64, V(head_error),
	 .shown = head_compared},
	{"profile_head_not_compared", "probe's head not compared", DC_U_NONE, DC_FT_TEXT, V(head_why),
	 .shown = head_not_compared},
	{"profile_optimizer_params", "probe's optimizer step: parameters", DC_U_COUNT, DC_FT_U64, V(opt_params),
	 .shown = opt_compared},
	{"profile_optimizer_measured_s", "probe's optimizer step and clip, measured", DC_U_SECONDS, DC_FT_F64,
	 V(opt_measured_s), .shown = opt_compared},
	{"profile_optimizer_predicted_s", "probe's optimizer step and clip, predicted", DC_U_SECONDS, DC_FT_F64,
	 V(opt_predicted_s), .shown = opt_compared},
	{"profile_optimizer_error", "probe's optimizer step: predicted / measured - 1", DC_U_RATIO, DC_FT_F64,
	 V(opt_error), .shown = opt_compared},
	{"profile_optimizer_not_compared", "probe's optimizer step not compared", DC_U_NONE, DC_FT_TEXT,
	 V(opt_why), .shown = opt_not_compared},
	{"overlap_dp", "overlap: dp buckets behind the backward", DC_U_NONE, DC_FT_BOOL, V(overlap_dp), .shown = is_available},
	{"overlap_fsdp_prefetch", NULL, DC_U_NONE, DC_FT_BOOL, V(overlap_fsdp), .shown = is_available,
	 .label_fn = fsdp_prefetch_label},
	{"overlap_tp", "overlap: tp behind the matmuls (overlap.tp)", DC_U_NONE, DC_FT_BOOL, V(overlap_tp),
	 .shown = is_available},
	{"compute_slowdown", "compute slowdown while communication overlaps", DC_U_RATIO, DC_FT_F64, V(slowdown),
	 .shown = is_available},
	{"ep_compute_slowdown", "compute slowdown while DeepEP's AlltoAlls overlap (its 20 SMs)", DC_U_RATIO,
	 DC_FT_F64, V(ep_slowdown), .shown = has_ep_slowdown},
	{"optimizer_on_host", "optimizer on the host (parallel.offload)", DC_U_NONE, DC_FT_BOOL, V(on_host),
	 .shown = is_on_host},
	{"host_optimizer_model", "host optimizer", DC_U_NONE, DC_FT_STR, V(host_model), .shown = is_on_host},
	{"host_bandwidth_bytes_per_s", "host link, one way (cluster.host_bandwidth)", DC_U_BYTES_PER_S, DC_FT_F64,
	 V(host_bandwidth), .shown = is_on_host},
	{"host_adam_params_per_s", "host Adam: parameters/s of a node's CPUs", DC_U_PER_S, DC_FT_F64,
	 V(host_adam_rate), .shown = is_on_host},
	{"host_params", "host step (slowest stage): parameters of a rank's shard", DC_U_COUNT, DC_FT_F64,
	 V(host.params), .shown = is_on_host},
	{"host_accum_copies_s", "host step: gradient copies of the micro steps (DeepSpeed)", DC_U_SECONDS, DC_FT_F64,
	 V(host.accum_s), .shown = has_accum_copies},
	{"host_grads_d2h_s", "host step: gradients to the host", DC_U_SECONDS, DC_FT_F64, V(host.d2h_s),
	 .shown = is_on_host},
	{"host_adam_s", "host step: Adam on the node's CPUs", DC_U_SECONDS, DC_FT_F64, V(host.cpu_s),
	 .shown = is_on_host},
	{"host_params_cast_s", "host step: parameters cast on the node's CPUs (DeepSpeed)", DC_U_SECONDS, DC_FT_F64,
	 V(host.cast_s), .shown = has_host_cast},
	{"host_params_h2d_s", "host step: parameters back to the GPU", DC_U_SECONDS, DC_FT_F64, V(host.h2d_s),
	 .shown = is_on_host},
	{"host_param_copies_s", "host link: parameter partitions up, every gather (ZeRO-3)",
	 DC_U_SECONDS, DC_FT_F64, SV(host_param_copies_s), .shown = has_param_copies},
	{"host_grad_copies_s", "host link: gradient partitions out and back (ZeRO-3)",
	 DC_U_SECONDS, DC_FT_F64, SV(host_grad_copies_s), .shown = has_grad_copies},
	{"time_s", "step time", DC_U_SECONDS, DC_FT_F64, SV(time_s), .shown = is_available},
	{"pipeline_s", "pipeline schedule span", DC_U_SECONDS, DC_FT_F64, SV(pipeline_s), .shown = is_available},
	{"pipeline_schedules", "pipeline schedules a step, one after another", DC_U_COUNT, DC_FT_U64, SV(schedules),
	 .shown = has_schedules},
	{"pipeline_schedule_microbatches", "microbatches a schedule (parallel.pipeline_schedule_microbatches)",
	 DC_U_COUNT, DC_FT_U64, SV(schedule_m), .shown = has_schedules},
	{"tokens_per_s", "tokens/s", DC_U_PER_S, DC_FT_F64, SV(tokens_per_s), .shown = is_available},
	{"tokens_per_s_per_gpu", "tokens/s per GPU", DC_U_PER_S, DC_FT_F64, SV(tokens_per_s_per_gpu),
	 .shown = is_available},
	{"gpu_s_per_token", "GPU-seconds per token", DC_U_SECONDS, DC_FT_F64, SV(gpu_s_per_token), .shown = is_available},
	{"mfu", "MFU (model FLOPs / matmul peak, FP8 if fp8)", DC_U_RATIO, DC_FT_F64, SV(mfu),
	 .shown = is_available},
	{"mfu_bf16_peak", "MFU (model FLOPs / BF16 dense peak)", DC_U_RATIO, DC_FT_F64,
	 SV(mfu_bf16_peak), .shown = is_available},
	{"mfu_causal", "MFU, Megatron's count (attention s/2, no window)", DC_U_RATIO, DC_FT_F64,
	 SV(mfu_causal), .shown = is_available},
	{"hfu", "HFU (FLOPs the kernels run / the same peak as MFU)", DC_U_RATIO, DC_FT_F64, SV(hfu), .shown = is_available},
	{"hfu_paper", "HFU, paper convention (GPT-shaped formula)", DC_U_RATIO, DC_FT_F64, SV(hfu_paper),
	 .shown = is_available},
	{"hfu_paper_means", "paper convention", DC_U_NONE, DC_FT_STR, V(hfu_paper_means), .shown = is_available},
	{"bubble_fraction", "pipeline bubble / busy time (critical stage)", DC_U_RATIO, DC_FT_F64, SV(bubble_fraction),
	 .shown = is_available},
	{"bubble_s", "pipeline bubble of the critical stage, its exposed sends too", DC_U_SECONDS, DC_FT_F64, SV(bubble_s),
	 .shown = is_new_schedule},
	{"bubble_paper_s", "the paper's bubble for its F, B, W, F&B", DC_U_SECONDS, DC_FT_F64, SV(bubble_paper_s),
	 .shown = is_new_schedule},
	{"bubble_paper_formula", "the paper's formula", DC_U_NONE, DC_FT_STR, V(paper), .shown = is_new_schedule},
	{"chunk_fwd_s", "F: a forward chunk (critical stage)", DC_U_SECONDS, DC_FT_F64, SV(chunk_fwd_s),
	 .shown = is_new_schedule},
	{"chunk_bwd_s", "B: a full backward chunk", DC_U_SECONDS, DC_FT_F64, SV(chunk_bwd_s), .shown = is_new_schedule},
	{"chunk_wgrad_s", "W: its weight-gradient GEMMs", DC_U_SECONDS, DC_FT_F64, SV(chunk_wgrad_s),
	 .shown = is_new_schedule},
	{"chunk_fb_s", "F&B: an overlapped forward and backward pair", DC_U_SECONDS, DC_FT_F64, SV(chunk_fb_s),
	 .shown = is_new_schedule},
	{"param_copies", "parameters a rank holds, in stages", DC_U_RATIO, DC_FT_F64, SV(param_copies),
	 .shown = is_new_schedule},
	{"mirror_sum_s", "DualPipe mirror gradient sum: its calls",
	 DC_U_SECONDS, DC_FT_F64, V(mirror_sum_s), .shown = is_mirror},
	{"p2p_per_microbatch", "point-to-point sends of a microbatch each way", DC_U_COUNT, DC_FT_F64,
	 SV(p2p_per_microbatch), .shown = is_new_schedule},
	{"critical_stage", "critical pipeline stage", DC_U_COUNT, DC_FT_U64, SV(critical_stage), .shown = is_available},
	{"slowest_rank", "slowest rank (sets the step)", DC_U_COUNT, DC_FT_U64, SV(slowest_rank), .shown = is_available,
	 .label_fn = slowest_rank_label},
	{"time_to_train_s", "time to train on training.total_tokens", DC_U_SECONDS, DC_FT_F64, SV(time_to_train_s),
	 .shown = has_total_tokens},
	{"time_to_train_shown", "time to train in hours, days or years", DC_U_NONE, DC_FT_FN, 0,
	 .text = time_to_train_text, .shown = has_total_tokens, .table_only = 1},
	{"classes", "Rank classes (stages of identical parameters), each at its slowest stage", DC_U_NONE, DC_FT_ROWS, 0,
	 .sub = &class_table, .rows = &class_rows, .shown = is_available},
	{"critical_path", "Critical path", DC_U_NONE, DC_FT_ROWS, 0, .sub = &path_table, .rows = &path_rows,
	 .shown = is_available},
};

/* the errors and warnings name the bound again as "2 x 2^18" */
_Static_assert(DC_STEP_SIM_AGAIN == 2 && DC_STEP_SIM_MAX_CHUNKS == UINT64_C(1) << 18, "the messages' bound");

_Static_assert(sizeof(struct view) <= DC_VIEW_MAX, "view too large");

/* parallel.offload "optimizer": the per-micro-step gradient copies the
 * step does not price (docs/step-model.md, "The optimizer on the host").
 * DeepSpeed ZeRO-2's are priced (compute.c host_step; ZeRO-1 makes none
 * at edaa7221), and ZeRO-3's, every micro step's gradient partition out
 * to its host buffer and back (stage3.py partition_grads; step.c
 * zero3_host_copies); Megatron-Core
 * accumulates in the GPU's main_grad buffer and copies at the step
 * alone, so it makes none; another framework's are not known. */
static void warn_offload_copies(const struct dc_plan *p, struct dc_diag *diag)
{
	const struct dc_config *in = p->in;
	enum dc_sharding sh = p->layout.sharding;
	enum dc_framework f = in->training.framework;
	if (in->parallel.offload != DC_OFFLOAD_OPTIMIZER || f == DC_FRAMEWORK_MEGATRON)
		return;
	if (f == DC_FRAMEWORK_DEEPSPEED && sh == DC_SHARD_FSDP)
		return; /* priced: step.c zero3_host_copies */
	if ((f == DC_FRAMEWORK_DEEPSPEED && (sh == DC_SHARD_ZERO1 || sh == DC_SHARD_ZERO2)) ||
	    p->layout.grad_accum_steps < 2)
		return;
	dc_diag_warn(diag,
		     "'parallel.offload': with %llu micro steps an offloading optimizer may copy each one's gradients "
		     "to the host or back (DeepSpeed ZeRO-2 does, priced under training.framework \"deepspeed\"); "
		     "under training.framework \"%s\" with sharding \"%s\" the step prices one copy each way a step, "
		     "not such per-micro-step copies",
		     (unsigned long long)p->layout.grad_accum_steps, dc_framework_name(f), dc_sharding_name(sh));
}

/* The probe saw SDPA run a kernel (layer.attention_backend) other than
 * the one this run prices by default (training.attention_backend not
 * given: the key's default, or derived from the framework or from a
 * Blackwell cluster.gpu): a warning naming both and the
 * --set, since the probe's PyTorch ran that kernel on this GPU (PyTorch's
 * sdp_utils.cpp puts cuDNN first on Hopper and Blackwell with a recent
 * cuDNN; docs/compute-model.md, "Attention backends"). */
int dc_profile_backend_note(const struct dc_plan *p, struct dc_diag *diag)
{
	const struct dc_compute_profile *pr = p->in->compute_profile;
	const struct dc_config *in = p->in;
	int k = dc_config_key_index("training.attention_backend");
	int b = pr->layer.attention;
	/* Megatron's derived "cudnn" is Transformer Engine's choice, not
	 * SDPA's: what the probe's SDPA ran says nothing about it */
	if (!pr->has_layer || !pr->layer.attention_given || b == DC_ATTN_BACKEND_EAGER ||
	    (int)in->training.attention_backend == b || in->training.attention_backend == DC_ATTN_BACKEND_EAGER || k < 0 ||
	    (in->origin[k] != DC_ORIGIN_DEFAULT && in->origin[k] != DC_ORIGIN_FRAMEWORK &&
	     in->origin[k] != DC_ORIGIN_GPU) ||
	    in->training.framework == DC_FRAMEWORK_MEGATRON)
		return 0;
	dc_diag_warn(diag,
		     "'%s': the probe saw PyTorch's SDPA run %s's kernel on this GPU (layer.attention_backend), and this "
		     "run prices training.attention_backend \"%s\" by default; if it runs the probe's PyTorch, give "
		     "--set training.attention_backend=%s",
		     pr->name, dc_attention_kernel_text((enum dc_attention_backend)b),
		     dc_attention_backend_name(in->training.attention_backend),
		     dc_attention_backend_name((enum dc_attention_backend)b));
	return 1;
}

/* --calibrate-compute with gpu-probe.py --ends: the probe's head and
 * optimizer step against the model's, further off than
 * DC_PROFILE_LAYER_WARN; where the probe's layer waited for its host, the
 * step's small kernels may have too */
static void warn_profile_ends(const struct dc_plan *p, const struct dc_results *res, struct dc_diag *diag)
{
	const struct dc_compute_profile *pr = p->in->compute_profile;
	char why[240];
	double busy = pr->layer.gpu_busy_s;
	int host = busy > 0 && busy < DC_PROFILE_LAYER_BUSY_WARN * pr->layer.fwd_bwd_s;
	if (dc_compute_profile_head_matches(pr, p, why, sizeof(why))) {
		double m = pr->head.fwd_bwd_s, q = dc_compute_profile_head_predicted_s(pr, &res->compute);
		if (fabs(q / m - 1.0) > DC_PROFILE_LAYER_WARN)
			dc_diag_warn(diag,
				     "'%s': the probe's head and loss took %.3f ms forward and backward, the model predicts "
				     "%.3f ms at the same clocks (%+.0f%%): the levels may not hold in it, nor in the step "
				     "(docs/compute-model.md, \"The head and the optimizer step, measured\")",
				     pr->name, m * 1e3, q * 1e3, (q / m - 1.0) * 100.0);
	}
	if (dc_compute_profile_optimizer_matches(pr, p, why, sizeof(why))) {
		double m = dc_compute_profile_optimizer_measured_s(pr, p);
		double q = dc_compute_profile_optimizer_predicted_s(pr, &res->compute);
		if (fabs(q / m - 1.0) > DC_PROFILE_LAYER_WARN)
			dc_diag_warn(diag,
				     "'%s': the probe's optimizer step and clip took %.3f ms for %llu parameters, the model "
				     "predicts %.3f ms (%+.0f%%)%s (docs/compute-model.md, \"The head and the optimizer "
				     "step, measured\")",
				     pr->name, m * 1e3, (unsigned long long)pr->optimizer.params, q * 1e3,
				     (q / m - 1.0) * 100.0,
				     host && q < m ? ": the probe's layer waited for its host, and the step's many small "
						     "kernels may have too, which the model does not price"
						   : ": its bytes per parameter may not be what this framework's step moves");
	}
}

/* --calibrate-compute: the probe's layer against the model's at the same
 * clocks, further off than DC_PROFILE_LAYER_WARN (calibrate_compute.h) */
static void warn_profile_layer(const struct dc_plan *p, const struct dc_results *res, struct dc_diag *diag)
{
	const struct dc_compute_profile *pr = p->in->compute_profile;
	char why[512];
	double measured, predicted, busy;
	enum dc_profile_layer_fit fit;
	int noted;
	if (!pr || !res->step.available)
		return;
	noted = dc_profile_backend_note(p, diag);
	warn_profile_ends(p, res, diag);
	/* a host-bound eager layer says nothing of a compiled one's host */
	if (p->in->training.compile && !(pr->layer.compiled_gpu_busy_s > 0) && pr->layer.gpu_busy_s > 0 &&
	    pr->layer.gpu_busy_s < DC_PROFILE_LAYER_BUSY_WARN * pr->layer.fwd_bwd_s)
		dc_diag_warn(diag,
			     "'%s': the probe's eager layer waited for its host (its kernels busy %.3f ms of %.3f ms), "
			     "but this run is compiled (training.compile), whose fused kernels launch fewer, and the "
			     "profile has no compiled layer's busy time: no host time floors this run's layers, which "
			     "may be short on that host; probe with --compile --layer-kernels (docs/compute-model.md, "
			     "\"A layer that waited for its host\")",
			     pr->name, pr->layer.gpu_busy_s * 1e3, pr->layer.fwd_bwd_s * 1e3);
	fit = dc_compute_profile_layer_fit(pr, p, why, sizeof(why));
	if (!pr->has_layer)
		/* the layer is what shows a row that is off: an edited or
		 * cut-short profile (a trial's, without one, priced silently) */
		dc_diag_warn(diag,
			     "'%s': the profile has no 'layer': no measured layer checks the GEMM and element-wise levels "
			     "it prices this run with; run tools/gpu-probe.py with --config to measure one "
			     "(docs/compute-model.md, \"Calibrating from a probe\")",
			     pr->name);
	if (fit != DC_LAYER_FITS) {
		/* levels of another layer price this one: say so, with the shapes */
		static const char shape[] = "the profile's layer ran another shape: ";
		if (fit == DC_LAYER_OTHER_SHAPE)
			dc_diag_warn(diag,
				     "'%s': its levels were measured on another layer than this run's (%s) and price this "
				     "run all the same; for levels of this run's own layer, run tools/gpu-probe.py on it "
				     "(--config with this run's model, --tp %llu) (docs/compute-model.md, \"Calibrating from "
				     "a probe\")",
				     pr->name, strncmp(why, shape, sizeof(shape) - 1) == 0 ? why + sizeof(shape) - 1 : why,
				     (unsigned long long)p->layout.tp);
		if (res->compute.dense_layer_host_factor > 1.0)
			dc_diag_warn(diag,
				     "'%s': the probe's layer waited for its host, which took %.3f ms to issue it; this "
				     "run's layers are the same block (at another shape or attention kernel: the same "
				     "launches), so each is priced at no less than that, %.4g x the GPU's time "
				     "(step.profile_layer_host_floor_s; docs/compute-model.md, \"A layer that waited for "
				     "its host\")",
				     pr->name, res->compute.dense_layer_host_floor_s * 1e3,
				     res->compute.dense_layer_host_factor);
		else if (fit == DC_LAYER_OTHER_KIND)
			dc_diag_warn(diag,
				     "'%s': its levels were measured on a dense layer and price this run's (mixture-of-experts "
				     "or latent-attention) layers all the same; tools/gpu-probe.py measures dense layers only "
				     "(docs/compute-model.md, \"Calibrating from a probe\")",
				     pr->name);
		/* the same block priced otherwise, where the user can act (a
		 * kernel the backend note above did not name already, a compiled
		 * run against an eager layer): the report's row alone said so (a
		 * trial). Another framework's or model's block (OTHER_BLOCK) no
		 * probe run measures: the row says it, no warning */
		if (fit == DC_LAYER_UNLIKE && pr->has_layer && !noted)
			dc_diag_warn(diag,
				     "'%s': the probe's layer is not compared with this run's (%s): its levels price the run "
				     "unchecked by it (step.profile_layer_not_compared; docs/compute-model.md, \"Calibrating "
				     "from a probe\")",
				     pr->name, why);
		return;
	}
	measured = dc_compute_profile_layer_measured_s(pr, p);
	predicted = dc_compute_profile_layer_predicted_s(pr, &res->compute);
	busy = dc_compute_profile_layer_busy_s(pr, p);
	if (busy > 0 && busy < DC_PROFILE_LAYER_BUSY_WARN * measured) {
		/* host-bound: the model prices the GPU's time, which the busy
		 * time is; against the layer's it would blame the levels */
		dc_diag_warn(diag,
			     "'%s': the probe's %slayer kept the GPU busy %.3f ms of its %.3f ms: for %.0f%% of it the GPU "
			     "waited for the host to launch its kernels (the model's GPU time is %.3f ms, %+.1f%% of the "
			     "busy time); each layer of this block is priced at no less than the %.3f ms that host took "
			     "(step.profile_layer_host_floor_s; docs/compute-model.md, \"A layer that waited for its "
			     "host\")",
			     pr->name, p->in->training.compile ? "compiled " : "", busy * 1e3, measured * 1e3,
			     (1.0 - busy / measured) * 100.0, predicted * 1e3, (predicted / busy - 1.0) * 100.0,
			     measured * 1e3);
		measured = busy;
	} else {
		busy = 0;
	}
	if (fabs(predicted / measured - 1.0) > DC_PROFILE_LAYER_WARN)
		dc_diag_warn(diag,
			     "'%s': the probe's %slayer %s %.3f ms forward and backward, the model predicts %.3f ms at the "
			     "same clocks (%+.0f%%): the kernel levels measured in isolation may not hold in the layer, nor "
			     "in the step priced with them (docs/compute-model.md, \"Calibrating from a probe\")",
			     pr->name, p->in->training.compile ? "compiled " : "",
			     busy > 0 ? "kept the GPU busy" : "took", measured * 1e3, predicted * 1e3,
			     (predicted / measured - 1.0) * 100.0);
}

/* Stages priced on a group that crosses NVLink domains though their own
 * GPUs sit in one (docs/network-model.md, "Every stage at that group's
 * price"): with pp the outermost axis a position's GPUs are one block of
 * world / pp ranks, which straddles a domain boundary or not. The blocks'
 * offsets in their domains repeat with period D / gcd(B, D): one period
 * counted, then the whole periods and the rest. */
static void warn_stage_domains(const struct dc_plan *p, const struct dc_results *res, struct dc_diag *diag)
{
	uint64_t pp = p->layout.pp, world = p->world, domain_ranks = p->in->cluster.nvlink_domain, block_ranks, g;
	uint64_t period, across = 0, within, first = 0;
	int crossing = 0;
	if (!res->step.available || pp < 2 || !domain_ranks || domain_ranks >= world ||
	    p->topo.stride[DC_AXIS_PP] * pp != world)
		return;
	for (int i = 0; i < DC_STRAT_COUNT; i++)
		if (i != DC_STRAT_PP && res->comm.s[i].in_play && res->comm.s[i].net_group &&
		    res->comm.s[i].net_group->nodes > 1)
			crossing = 1;
	block_ranks = world / pp;
	if (!crossing || block_ranks >= domain_ranks)
		return; /* no crossing group, or no block inside one domain */
	g = block_ranks; /* gcd(block_ranks, domain_ranks) */
	for (uint64_t y = domain_ranks, t; y; g = y, y = t)
		t = g % y;
	period = domain_ranks / g;
	/* position s of one period stands for the positions s, s + period,
	 * ... below pp: pp / period of them, one more when s < pp % period */
	for (uint64_t s = 0; s < period && s < pp; s++)
		if (s * block_ranks % domain_ranks + block_ranks > domain_ranks) { /* its block straddles */
			if (!across)
				first = s;
			across += pp / period + (s < pp % period);
		}
	within = pp - across;
	if (!across || !within)
		return;
	dc_diag_warn(diag,
		     "'cluster.nvlink_domain': the GPUs of %llu of the %llu pipeline positions (parallel.pp) sit inside "
		     "one %llu-GPU NVLink domain and those of the other %llu (the first: position %llu) straddle two; "
		     "a strategy priced on a group that crosses domains is priced so at every position, so the step's "
		     "rank-class rows whose positions all sit inside one domain are upper bounds; the step follows the "
		     "slowest position (docs/network-model.md, \"Every stage at that group's price\")",
		     (unsigned long long)within, (unsigned long long)pp, (unsigned long long)domain_ranks,
		     (unsigned long long)across, (unsigned long long)first);
}

/* The highest MFU (model FLOPs over the BF16 dense peak, as
 * step.mfu_bf16_peak counts them) of the published runs on the GH100 die
 * (H100, H800, H200, GH200: one compute die, one 989 TFLOP/s dense peak)
 * that the step model is checked against (docs/compute-model.md, "Hopper
 * rows"), a format's own:
 * - BF16: the Megatron-LM README's 16B row, 489.1 TFLOP/s a GPU, 0.4945.
 *   There the model runs fastest against the measured steps at the small
 *   models (a trial priced Llama-3-8B at tp 2 at 0.636 and found no word
 *   of it).
 * - FP8: torchtitan's one FP8 row (Llama 3 8B on 8 H100, compiled, torchao
 *   row-wise FP8, 8,532 tokens/s a GPU: 16 x 8192 tokens in 1.9203 s),
 *   by distcalc's model FLOPs of that run, 57.91 GFLOP a token
 *   (6 x 7,504,924,672 parameters past the input embedding + 12 L s h =
 *   12,884,901,888 for its non-causal attention): 7.5907 x 10^15 a step
 *   / (1.9203 s x 8 x 989 x 10^12) = 0.4996. A trial's search ranked a
 *   70B FP8 layout at 1.0067, past the BF16 peak itself, without a word. */
#define GH100_BEST_PUBLISHED_BF16_MFU 0.4945
#define GH100_BEST_PUBLISHED_FP8_MFU 0.4996

double dc_published_mfu_bound(const struct dc_plan *p, const char **row)
{
	enum dc_gpu g = p->in->cluster.gpu;
	const struct dc_gpu_spec *sp;
	/* Blackwell (B200, GB200): no measured run of it is among the rows
	 * the model is checked against, and its in-situ factor is Hopper's
	 * (docs/compute-model.md, "Parameters"): Hopper's lines, of the
	 * newest GPU it is checked on, hold it (a trial's search ranked
	 * Llama-3-70B on GB200 NVL72 first at 0.625 without a word, where an
	 * H100 at 0.4945 warns; the A100 rows of Korthikanti et al. reach
	 * 0.56, on an older GPU at other levels) */
	int blackwell = g == DC_GPU_B200_SXM_180GB || g == DC_GPU_GB200;
	if (g != DC_GPU_H100_SXM5_80GB && g != DC_GPU_H800_SXM5_80GB && g != DC_GPU_H200_SXM_141GB &&
	    g != DC_GPU_GH200_96GB && !blackwell)
		return 0;
	sp = dc_gpu_spec(g);
	/* a --calibrate-compute profile prices it at measured levels: the
	 * measured GPU, not the published rows, holds it; a peak of the
	 * config's own moves the fraction: no published row to hold it to */
	if (!sp || p->in->compute_profile || p->in->cluster.peak_flops != sp->peak_flops)
		return 0;
	if (blackwell && p->in->precision.compute == DC_COMPUTE_BF16) {
		*row = "BF16 runs on Hopper, the newest GPU the step model is checked against (the Megatron-LM "
		       "README's 16B row, 489.1 TFLOP/s an H100): no Blackwell run is among the rows, and Blackwell's "
		       "in-situ factor is Hopper's, so none holds a step above it";
		return GH100_BEST_PUBLISHED_BF16_MFU;
	}
	if (blackwell && p->in->precision.compute == DC_COMPUTE_FP8 &&
	    p->in->cluster.peak_flops_fp8 == sp->peak_flops_fp8) {
		*row = "FP8 runs the step model is checked against (its one: torchtitan's Llama 3 8B on 8 H100, "
		       "compiled, torchao's row-wise FP8): no Blackwell run is among the rows, and Blackwell's "
		       "in-situ factor is Hopper's, so none holds a step above it";
		return GH100_BEST_PUBLISHED_FP8_MFU;
	}
	if (p->in->precision.compute == DC_COMPUTE_BF16) {
		*row = "BF16 runs on this compute die that the step model is checked against (the Megatron-LM "
		       "README's 16B row, 489.1 TFLOP/s a GPU): none of those rows reaches it, and on them the model was "
		       "fastest at the smaller models, its step up to nearly a quarter short";
		return GH100_BEST_PUBLISHED_BF16_MFU;
	}
	if (p->in->precision.compute == DC_COMPUTE_FP8 && p->in->cluster.peak_flops_fp8 == sp->peak_flops_fp8) {
		*row = "FP8 runs on this compute die that the step model is checked against (its one: torchtitan's "
		       "Llama 3 8B on 8 H100 of the 500 W part, compiled, torchao's row-wise FP8, 8,532 tokens/s a "
		       "GPU; a 700 W part would reach more): it does not reach it, and on it the model's step was 11.5% "
		       "short";
		return GH100_BEST_PUBLISHED_FP8_MFU;
	}
	return 0;
}

static void warn_mfu_above_published(const struct dc_plan *p, const struct dc_results *res, struct dc_diag *diag)
{
	const char *row = NULL;
	double bound = dc_published_mfu_bound(p, &row);
	if (!(bound > 0) || !(res->done & DC_EST_BIT(DC_EST_STEP)) || !res->step.available ||
	    !(res->step.mfu_bf16_peak > bound))
		return;
	dc_diag_warn(diag,
		     "'step.mfu_bf16_peak': %.4f (%s, model FLOPs over the %s's dense BF16 peak) is above %.4f, the highest of the published %s (docs/compute-model.md, \"Hopper rows\"); check it against a run, or price the GPU's measured levels with --calibrate-compute (tools/gpu-probe.py)",
		     res->step.mfu_bf16_peak, p->in->precision.compute == DC_COMPUTE_FP8 ? "FP8" : "BF16",
		     dc_gpu_name(p->in->cluster.gpu), bound, row);
}

/* grad_accum_steps < pp: the pipeline never fills; offload
 * optimizer+params: FSDP's per-microbatch copies of the parameter shards
 * are not priced but under DeepSpeed (step.c zero3_host_copies); offload
 * optimizer: warn_offload_copies */
static void warn(const struct dc_plan *p, const struct dc_results *res, const char *config_name,
		 struct dc_diag *diag)
{
	(void)config_name;
	warn_profile_layer(p, res, diag);
	warn_mfu_above_published(p, res, diag);
	{
		/* DeepEP's internode kernels move tokens with NVSHMEM over RDMA
		 * (deepseek-ai/DeepEP README: InfiniBand GPUDirect Async, RoCE),
		 * its published rates CX7 InfiniBand's; GPUDirect-TCPXO is TCP
		 * (no RDMA), and EFA runs NVSHMEM over libfabric at rates the
		 * model does not know. Where the expert AlltoAlls cross nodes
		 * (comm.ep.link) on those fabrics (a trial saw both priced at
		 * InfiniBand's gain without a word) */
		const struct dc_config *in = p->in;
		const struct dc_comm_strategy *ep = &res->comm.s[DC_STRAT_EP];
		if (in->training.moe_dispatcher == DC_MOE_DISPATCH_DEEPEP && ep->in_play && ep->link == DC_LINK_INTER &&
		    (in->cluster.network == DC_NETWORK_TCPXO || in->cluster.network == DC_NETWORK_EFA))
			dc_diag_warn(diag,
				     "'training.moe_dispatcher': \"deepep\" is priced at DeepEP's InfiniBand rates (its internode kernels move tokens with NVSHMEM over RDMA, measured on CX7 InfiniBand: deepseek-ai/DeepEP README), and the expert AlltoAlls cross nodes on cluster.network \"%s\"%s: priced as given",
				     dc_network_name(in->cluster.network),
				     in->cluster.network == DC_NETWORK_TCPXO
					     ? ", GCP's GPUDirect-TCPXO, which is TCP with no RDMA for NVSHMEM to use: DeepEP cannot run across nodes there; set training.moe_dispatcher \"alltoall\""
					     : ", AWS EFA, where NVSHMEM runs over libfabric at rates not measured for DeepEP: the gain may not hold");
	}
	warn_stage_domains(p, res, diag);
	if (res->step.available)
		warn_offload_copies(p, diag);
	if (res->step.available && p->in->parallel.offload == DC_OFFLOAD_OPTIMIZER_PARAMS &&
	    p->in->training.framework != DC_FRAMEWORK_DEEPSPEED)
		dc_diag_warn(diag,
			     "'parallel.offload': \"optimizer+params\" keeps the parameter shards on the host, so every "
			     "microbatch copies them to the GPU before its all_gathers and its gradient shards back; the "
			     "step prices the host optimizer's copies and Adam once a step, not those per-microbatch copies");
	/* at long sequences the causal core Megatron-LM counts at half is a
	 * large part of the FLOPs: step.mfu (the core whole, Korthikanti's and
	 * torchtitan's count) then reads well above the MFU Megatron logs, and
	 * a sweep, a search or a --check-min on it compares another figure */
	if (res->step.available && res->step.mfu_causal > 0 && res->step.mfu > 1.25 * res->step.mfu_causal)
		dc_diag_warn(diag,
			     "'step.mfu' is %.4f with the causal attention core counted whole, %.2f times the %.4f of "
			     "Megatron-LM's count (step.mfu_causal: the core at half); at this sequence length the two "
			     "differ this much, so compare a framework's logged MFU or TFLOP/s with the count it uses "
			     "(docs/step-model.md, section 4)",
			     res->step.mfu, res->step.mfu / res->step.mfu_causal, res->step.mfu_causal);
	/* the paper convention's hardware FLOPs are a GPT's formula (a 4h
	 * GELU MLP, full heads, whole attention; recomputed cores counted
	 * again): on a long sequence, or a model shaped otherwise (a narrow
	 * FFN: a trial's hidden 10^6 with ffn 28,672), they exceed what the
	 * GPUs ran, and the ratio passes 1 */
	if (res->step.available && res->step.hfu_paper > 1)
		dc_diag_warn(diag,
			     "'step.hfu_paper' is %.4f, above 1: Korthikanti et al.'s formula counts a GPT-shaped model "
			     "(a 4h GELU MLP, as many key/value heads as heads, attention whole rather than causal), "
			     "so on this model's shape and sequence length it counts more FLOPs than the GPUs run and "
			     "is no utilisation here; read step.hfu and step.mfu_causal (docs/step-model.md, section 4)",
			     res->step.hfu_paper);
	/* ZB-H1 and uneven 1F1B past DC_STEP_SIM_AGAIN x the step's simulation bound whose
	 * max-plus extension did not apply (step.c f1b_closed): their closed
	 * form, which leaves out waits there */
	if (res->step.available && res->step.f1b_closed_form)
		dc_diag_warn(diag,
			     res->step.schedule == DC_PIPE_ZERO_BUBBLE
				     ? "'parallel.pipeline_schedule': zero_bubble with pp x grad_accum_steps above 2 x 2^18 "
				       "and pp above what its steady period's max-plus extension takes (2 pp ends at most "
				       "257: pp up to 128) is priced by ZB-H1's closed "
				       "form, not simulated: it leaves out the steady phase's waits for sends (short where "
				       "a send outlasts half a weight-gradient pass) and is an estimate with an embedding "
				       "or a head (docs/step-model.md, \"ZB-H1 past the bound\")"
				     : "'parallel.pipeline_schedule': 1f1b on stages of unequal layers or layer kinds with pp "
				       "x grad_accum_steps above 2 x 2^18 and pp above what its steady period's max-plus "
				       "extension takes (2 pp ends at most 257: pp up to 128) is priced by its closed form, not simulated: a lower "
				       "bound, short by the waits a slower stage passes up the pipeline "
				       "(docs/step-model.md, \"Uneven 1F1B past the bound\")");
	/* the schedules the loader lets run with m < pp: 1F1B, and ZB-H1,
	 * whose paper bubble assumes m >= pp (interleaved needs m a multiple
	 * of pp, DualPipe and DualPipeV at least 2 pp) */
	if (p->layout.pp > 1 && dc_layout_schedule_m(&p->layout) < p->layout.pp) {
		enum dc_pipe_schedule s = res->step.available ? res->step.schedule : p->in->parallel.pipeline_schedule;
		int cut = dc_layout_schedules(&p->layout) > 1;
		dc_diag_warn(diag,
			     "'%s' (%llu) < 'parallel.pp' (%llu): the pipeline never fills, "
			     "so every stage idles for most of %s (%s)",
			     cut ? "parallel.pipeline_schedule_microbatches" : "training.grad_accum_steps",
			     (unsigned long long)dc_layout_schedule_m(&p->layout), (unsigned long long)p->layout.pp,
			     cut ? "each schedule" : "the step",
			     s == DC_PIPE_ZERO_BUBBLE
				     ? "ZB-H1, as 1F1B, wants at least pp microbatches; its paper bubble (p - 1)(F + B - 2W), "
				       "bubble_paper_s, assumes that many and understates the idle time here, where the deferred "
				       "weight-gradient passes cannot fill it: the simulated bubble_s is the schedule's"
				     : "1F1B wants at least pp microbatches");
	}
}

const struct dc_section dc_section_step = {
	"step", "Step time", "step time, tokens/s, MFU and HFU, the pipeline bubble, exposed communication, the critical path",
	DC_EST_BIT(DC_EST_STEP), sizeof(struct view), view, DC_FIELDS(fields), NULL, warn,
};
