/* sec_memory.c - the memory section: the most loaded rank's ledger, the
 * peak by phase, every class of ranks with identical ledgers (generated
 * row by row from the plan) and what is not modelled. */
#include <math.h>
#include <stddef.h>
#include <stdio.h>

#include "distcalc/activation.h"
#include "distcalc/framework.h"
#include "distcalc/memory.h"
#include "distcalc/search.h"
#include "distcalc/plan.h"
#include "distcalc/results.h"
#include "distcalc/section.h"

/* the ledger with what its labels say */
struct ledger_view {
	struct dc_mem_ledger l;
	const struct dc_plan *plan;
	uint64_t rank, class_index, reserve_bytes, gpu_mem_bytes;
	const char *peak_phase;
	/* one layer's activations term by term, made once with the view
	 * for the table of terms (which reads them for its count and each
	 * row); has_terms 0: the config states the activations itself */
	int has_terms;
	struct dc_act_layer terms;
};

struct not_modeled {
	const char *activations, *optimizer_step, *checkpoint_save, *ddp_bucket_copy, *other, *fragmentation;
	const char *fp8; /* NULL (not shown) unless precision.compute "fp8" */
	const char *zero_bubble; /* NULL (not shown) unless the schedule is ZB-H1 */
};

struct view {
	const struct dc_plan *plan;
	const struct dc_memory_result *m;
	uint64_t gpu_mem_bytes;
	int fits;
	uint64_t headroom_bytes, shortfall_bytes;
	uint64_t host_memory_bytes, host_rank_bytes, host_node_bytes;
	int host_fits;
	const char *offload;
	struct ledger_view top;
	struct not_modeled nm;
	char fp8_text[1024]; /* nm.fp8's, where it is made for the config */
	char fp8_base[640];  /* ... before the BF16 layers' clause (fp8_not_modeled_all) */
};

static void terms_fill(struct ledger_view *v);

/* fp8_not_modeled's text `base`, with, where precision.bf16_first_layers
 * or bf16_last_layers keep layers in BF16, what the ledger does not
 * change for them (the step prices their kernels: docs/compute-model.md,
 * "BF16 first and last layers"), in buf; base itself otherwise */
static const char *fp8_bf16_layers_clause(const struct dc_plan *p, const char *base, char *buf, size_t len)
{
	const struct dc_precision *pr = &p->in->precision;
	/* the FP8 ledger (Megatron's Transformer Engine recipes) counts FP8
	 * copies and saved inputs that the BF16 layers do not hold; the
	 * BF16 ledger of the other frameworks counts none */
	int te = dc_framework_fp8_saved_inputs(p->in) != DC_FP8_SAVED_NONE;
	if (!base || (!pr->bf16_first_layers && !pr->bf16_last_layers))
		return base;
	snprintf(buf, len,
		 "%s; and of the %llu first and %llu last layers kept in BF16 (precision.bf16_first_layers, bf16_last_layers), %s%s%stheir tensor-parallel gathers priced as an FP8 layer's (the comm rows and the step)",
		 base, (unsigned long long)pr->bf16_first_layers, (unsigned long long)pr->bf16_last_layers,
		 pr->param_bytes <= 1 ? "the weights are counted at param_bytes 1 (they are BF16, 2 B), " : "",
		 te ? "their FP8 weight copies and FP8-saved inputs counted as an FP8 layer's (they hold none), " : "",
		 pr->param_bytes <= 1 || te ? "and " : "");
	return buf;
}

/* What the ledger leaves out under precision.compute "fp8", by who
 * quantizes (docs/memory-conventions.md, "FP8"), in buf; NULL when not
 * under FP8 */
static const char *fp8_not_modeled(const struct dc_plan *p, const struct dc_mem_ledger *top, char *buf, size_t len)
{
	const struct dc_config *c = p->in;
	const char *terms = c->memory.activation_explicit
				    ? "memory.activation_bytes_per_token_per_layer replaces the activation terms: give it at FP8's bytes"
				    : "the activation terms say FP8";
	/* delayed scaling keeps an amax history per quantized tensor, the
	 * others a scale */
	const char *scales = c->precision.fp8_recipe == DC_FP8_DELAYED   ? "the amax histories and scales"
			     : c->precision.fp8_recipe == DC_FP8_MXFP8 ? "the block scales' padding (the scales are counted)"
								      : "the per-tensor scales";
	if (c->precision.compute != DC_COMPUTE_FP8)
		return NULL;
	if (dc_framework_fp8_saved_inputs(c) == DC_FP8_SAVED_NONE) {
		if (c->training.framework == DC_FRAMEWORK_TORCHTITAN && c->precision.fp8_recipe == DC_FP8_MXFP8)
			return "the ledger is the BF16 one: what torchao's MX linears (torchtitan's mx converter) keep for the backward is not modelled";
		if (c->training.framework == DC_FRAMEWORK_TORCHTITAN)
			return "torchao's Float8Linear keeps no FP8 weight copy and saves its BF16 input, as the ledger counts it; under the tensorwise (current) recipe with tp > 1 its float8 TP styles cast a linear's input before the linear, which then saves the FP8 tensor: not modelled (the ledger counts BF16)";
		if (c->precision.fp8_recipe == DC_FP8_ROWWISE)
			return "rowwise is torchao's recipe: its Float8Linear keeps no FP8 weight copy and saves its BF16 input, as the ledger counts it";
		{
			uint64_t bytes = 0;
			if (top && top->fp8_weight_params &&
			    dc_framework_fp8_weight_bytes(c, top->fp8_weight_params, &bytes) == 0 && bytes) {
				char gib[64], n[32];
				dc_fmt_gib(gib, sizeof(gib), bytes);
				dc_fmt_u64_grouped(n, top->fp8_weight_params);
				snprintf(buf, len,
					 "the ledger is the BF16 one: what Transformer Engine holds depends on how the loop builds and calls its modules, not modelled outside training.framework megatron. Its linears save FP8 copies of their inputs (1 byte an element where the ledger counts 2, one copy per separate projection), and its FP8 weight copies, here %s on the rank with the highest peak (%s weights), are kept once across the step when it is called with is_first_microbatch, else once per microbatch in flight",
					 gib, n);
				return buf;
			}
		}
		if (c->precision.param_bytes <= 1)
			/* FP8 primary weights: the weights are the FP8 tensors
			 * (no copy), but on Hopper TE keeps each one's
			 * transpose (memory.c fp8_weight_copies) */
			return "the ledger is the BF16 one: what Transformer Engine holds depends on how the loop builds and calls its modules, not modelled outside training.framework megatron. Its linears save FP8 copies of their inputs (1 byte an element where the ledger counts 2, one copy per separate projection); the FP8 primary weights (param_bytes 1) are the FP8 tensors, so no weight copy, but on Hopper under delayed or current scaling TE keeps the transpose of each, 1 B a weight (none under mxfp8, nor on Blackwell)";
		return "the ledger is the BF16 one: what Transformer Engine holds depends on how the loop builds and calls its modules, not modelled outside training.framework megatron. Its linears save FP8 copies of their inputs (1 byte an element where the ledger counts 2, one copy per separate projection), and each keeps its FP8 weight (2 B a weight on Hopper, 1 on Blackwell, 2 + 2/32 under mxfp8) once across the step when called with is_first_microbatch, else one per microbatch in flight";
	}
	if (c->precision.param_bytes <= 1)
		snprintf(buf, len,
			 "Transformer Engine's FP8-saved linear inputs are counted (%s); the FP8 primary weights (param_bytes 1, --fp8-param-gather) are the FP8 tensors, so no copy is counted, but on Hopper the transpose TE keeps of each, 1 B a weight (fp8_weight_copies_bytes; none under mxfp8 or FSDP2, nor on Blackwell). Not modelled: %s, FP8 attention's saved tensors (precision.attention fp8)",
			 terms, scales);
	else
		snprintf(buf, len,
			 "Transformer Engine's FP8 weight copies (fp8_weight_copies_bytes%s) and FP8-saved linear inputs (%s) are counted. Not modelled: %s, FP8 attention's saved tensors (precision.attention fp8)%s",
			 p->layout.sharding == DC_SHARD_FSDP ? "; under FSDP2 the grouped expert linears' alone" : "", terms,
			 scales,
			 c->model.mtp_layers ? ", the MTP modules' eh_proj input (counted in BF16)" : "");
	return buf;
}

static void view(const struct dc_run *run, void *out)
{
	struct view *v = out;
	const struct dc_memory_result *m = &run->res->memory;
	v->plan = run->plan;
	v->m = m;
	v->gpu_mem_bytes = run->plan->in->cluster.gpu_mem_bytes;
	v->fits = m->top.fits;
	v->headroom_bytes = m->top.headroom_bytes;
	v->shortfall_bytes = m->top.shortfall_bytes;
	v->host_memory_bytes = run->plan->in->cluster.host_mem_bytes;
	v->host_rank_bytes = m->host_rank_bytes;
	v->host_node_bytes = m->host_node_bytes;
	v->host_fits = m->host_fits;
	v->offload = dc_offload_name(run->plan->in->parallel.offload);
	v->top.l = m->top;
	v->top.plan = run->plan;
	v->top.rank = m->top.stage_first * run->plan->topo.stride[DC_AXIS_PP];
	v->top.class_index = m->most_loaded;
	v->top.reserve_bytes = m->top.phase_reserve_bytes[m->top.peak_phase];
	v->top.gpu_mem_bytes = v->gpu_mem_bytes;
	v->top.peak_phase = dc_mem_phase_name(m->top.peak_phase);
	terms_fill(&v->top);
	v->nm.activations =
		run->plan->in->training.recompute == DC_RECOMPUTE_SELECTIVE &&
				run->plan->in->training.framework == DC_FRAMEWORK_CUSTOM
			? "assumed (Korthikanti et al. 2022 Table 2, generalised to GQA, SwiGLU and flash attention, or the override); framework temporaries and a non-fused SwiGLU's extra silu output are not counted; selective recompute reruns the attention core alone: Megatron's other recompute modules (training.recompute_modules mla_up_proj, mlp, moe_act, layernorm, moe, shared_experts), which recipes such as DeepSeek-V3's use to fit, need training.framework megatron"
			: "assumed (Korthikanti et al. 2022 Table 2, generalised to GQA, SwiGLU and flash attention, or the override); framework temporaries and a non-fused SwiGLU's extra silu output are not counted";
	v->nm.optimizer_step = "the gradient clip's and the fused Adam kernel's scratch (foreach Adam's list of square roots is counted, optimizer_temp_bytes)";
	v->nm.checkpoint_save = "the phase follows checkpoint.format and checkpoint.gather (full adds the largest gathered tensor, or under gather gpu the stage's gathered state dict); an async save's staging copy is host memory: --experiment checkpoint";
	switch (run->plan->in->training.framework) {
	case DC_FRAMEWORK_MEGATRON:
		v->nm.ddp_bucket_copy =
			"none under Megatron-Core's defaults: its DDP reduces each bucket in place, a view of its contiguous gradient buffer (no ddp_buckets_bytes either); its reduce-scatter with FP32 accumulation and FP32 local accumulation, both off by default, allocate more";
		break;
	case DC_FRAMEWORK_DEEPSPEED:
		v->nm.ddp_bucket_copy =
			"none of PyTorch DDP's: DeepSpeed reduces the gradients from its own flattened buckets (ddp_buckets_bytes)";
		break;
	case DC_FRAMEWORK_TORCHTITAN:
	case DC_FRAMEWORK_CUSTOM:
		v->nm.ddp_bucket_copy = "PyTorch DDP with gradient_as_bucket_view=False (its default) keeps a flat copy of every gradient: add grads_bytes once more";
		break;
	}
	v->nm.other = "vocabulary padding, loss buffers, pipeline send/receive buffers";
	v->nm.fragmentation = "beyond memory.allocator_reserve: fits is not a passed OOM test";
	v->nm.fp8 = fp8_not_modeled(run->plan, &m->top, v->fp8_base, sizeof(v->fp8_base));
	v->nm.fp8 = fp8_bf16_layers_clause(run->plan, v->nm.fp8, v->fp8_text, sizeof(v->fp8_text));
	/* what ZB-H1's deferred weight gradients hold beyond the linears'
	 * inputs and output gradients (docs/memory-conventions.md, "ZB-H1") */
	v->nm.zero_bubble =
		dc_pipeline_schedule(run->plan) == DC_PIPE_ZERO_BUBBLE
			? "ZB-H1's deferred weight gradients are counted as each linear's input and output gradient; the router's, the MTP modules' and the embedding's, and the state midway through a B (some layers' W inputs, the rest whole), are not"
			: NULL;
}

/* training.recompute as the labels name it: with the recompute modules
 * where given (config.h dc_recompute_modules) */
static void recompute_text(const struct dc_config *in, char *buf, size_t len)
{
	char mods[160];
	if (!dc_recompute_modules(in) || !in->training.recompute_modules_mask) {
		snprintf(buf, len, "%s", dc_recompute_name(in->training.recompute));
		return;
	}
	dc_recompute_modules_text(in->training.recompute_modules_mask, mods, sizeof(mods));
	snprintf(buf, len, "selective of %s", mods);
}

static void activation_model(const void *base, char *buf, size_t len)
{
	char rc[192];
	const struct dc_config *in = ((const struct view *)base)->plan->in;
	if (in->memory.activation_explicit)
		snprintf(buf, len,
			 "assumption: %g bytes per token per layer (memory.activation_bytes_per_token_per_layer)",
			 in->memory.activation_bytes_per_token_per_layer);
	else {
		recompute_text(in, rc, sizeof(rc));
		dc_text_fmt(buf, len,
			    "assumption: Korthikanti et al. 2022 Table 2 (attention %s, dropout %s, recompute %s, sequence parallel %s), generalised to GQA, SwiGLU and flash attention: docs/formulas.md",
			    dc_attention_name(in->training.attention), in->model.dropout ? "on" : "off", rc,
			    ((const struct view *)base)->plan->layout.sequence_parallel ? "on" : "off");
	}
}

/* Ranks whose pp coordinate is in [s0, s1]: runs of consecutive ranks
 * [s0 S + k S pp, (s1 + 1) S + k S pp) with S the pp stride. */
static void class_ranks_text(const struct dc_topology *t, uint64_t s0, uint64_t s1, char *buf, size_t len)
{
	uint64_t S = t->stride[DC_AXIS_PP], pp = t->degree[DC_AXIS_PP];
	uint64_t period = S * pp, runs = t->world / period;
	unsigned long long a = (unsigned long long)(s0 * S), b = (unsigned long long)((s1 + 1) * S - 1);
	unsigned long long step = (unsigned long long)period;

	if (runs == 1)
		dc_text_fmt(buf, len, a == b ? "%llu" : "%llu-%llu", a, b);
	else if (a == b)
		dc_text_fmt(buf, len, "%llu, %llu, ..., %llu (every %llu)", a, a + step,
			    a + step * (unsigned long long)(runs - 1), step);
	else if (runs == 2)
		dc_text_fmt(buf, len, "%llu-%llu, %llu-%llu", a, b, a + step, b + step);
	else
		dc_text_fmt(buf, len, "%llu-%llu, %llu-%llu, ... (%llu runs every %llu)", a, b, a + step, b + step,
			    (unsigned long long)runs, step);
}

static void stages_text(const struct dc_mem_ledger *l, char *buf, size_t len)
{
	if (l->stage_first == l->stage_last)
		dc_text_fmt(buf, len, "%llu", (unsigned long long)l->stage_first);
	else
		dc_text_fmt(buf, len, "%llu-%llu", (unsigned long long)l->stage_first,
			    (unsigned long long)l->stage_last);
}

/* ---- the most loaded rank ---- */

static void top_stages(const void *base, char *buf, size_t len)
{
	stages_text(&((const struct ledger_view *)base)->l, buf, len);
}

/* Under DualPipe a rank at pipeline position s holds stages s and pp - 1
 * - s (activation.h): the label says so, the value stays the position */
static void stages_label(const void *base, char *buf, size_t len)
{
	const struct ledger_view *v = base;
	if (dc_pipeline_schedule(v->plan) == DC_PIPE_DUALPIPE)
		dc_text_fmt(buf, len, "pipeline position(s) (DualPipe: position s holds stages s and %llu - s)",
			    (unsigned long long)(v->plan->layout.pp - 1));
	else
		dc_text_fmt(buf, len, "pipeline stage(s)");
}

static void top_ranks(const void *base, char *buf, size_t len)
{
	const struct ledger_view *v = base;
	class_ranks_text(&v->plan->topo, v->l.stage_first, v->l.stage_last, buf, len);
}

static const char *sharding_says(const struct ledger_view *v, int level)
{
	/* level: 3 params, 2 grads, 1 master/optimizer */
	int sharded = (int)v->plan->layout.sharding >= level;
	int moe = v->plan->ep > 1 || v->plan->expert_folded;
	if (v->plan->dp_replicate > 1 || v->plan->expert_folded) {
		/* HSDP's shard groups, Megatron-Core's folded expert-dp (plan.h) */
		if (!sharded)
			return moe ? "replicated over dp x cp, experts over their expert-data-parallel ranks"
				   : "replicated over dp x cp";
		if (v->plan->dp_replicate > 1)
			return moe ? "sharded over the dp x cp / dp_replicate ranks of one replica (HSDP), experts over expert-dp / dp_replicate"
				   : "sharded over the dp x cp / dp_replicate ranks of one replica (HSDP)";
		return "sharded over dp x cp, experts over their expert-data-parallel ranks (tp dp cp / (ep etp), folded)";
	}
	if (v->plan->layout.cp > 1) {
		if (sharded)
			return v->plan->ep > 1 ? "sharded over dp x cp, experts over dp/ep x cp" : "sharded over dp x cp";
		return v->plan->ep > 1 ? "replicated over dp x cp, experts over dp/ep x cp" : "replicated over dp x cp";
	}
	if (sharded)
		return v->plan->ep > 1 ? "sharded over dp, experts over dp/ep" : "sharded over dp";
	return v->plan->ep > 1 ? "replicated over dp, experts over dp/ep" : "replicated over dp";
}

/* " on the host" when parallel.offload moved the state (1: params and
 * grads, 2: master and optimizer) */
static const char *offloaded(const struct ledger_view *v, int what)
{
	enum dc_offload o = v->plan->in->parallel.offload;
	return (what == 2 && o != DC_OFFLOAD_NONE) || (what == 1 && o == DC_OFFLOAD_OPTIMIZER_PARAMS) ? "; offloaded"
												  : "";
}

static void params_label(const void *base, char *buf, size_t len)
{
	const struct ledger_view *v = base;
	dc_text_fmt(buf, len, "params (%llu B/param%s, %s%s)", (unsigned long long)v->plan->in->precision.param_bytes,
		    dc_framework_fp8_params_spare_ends(v->plan->in) ? ", the embedding and head 2" : "",
		    sharding_says(v, DC_SHARD_FSDP), offloaded(v, 1));
}

static void grads_label(const void *base, char *buf, size_t len)
{
	const struct ledger_view *v = base;
	dc_text_fmt(buf, len, "grads (%llu B/param, %s%s)", (unsigned long long)v->plan->in->precision.grad_bytes,
		    sharding_says(v, DC_SHARD_ZERO2), offloaded(v, 1));
}

static void master_label(const void *base, char *buf, size_t len)
{
	const struct ledger_view *v = base;
	dc_text_fmt(buf, len, "master copy (%llu B/param, %s%s)", (unsigned long long)v->plan->in->precision.master_bytes,
		    sharding_says(v, DC_SHARD_ZERO1), offloaded(v, 2));
}

static void optim_label(const void *base, char *buf, size_t len)
{
	const struct ledger_view *v = base;
	dc_text_fmt(buf, len, "optimizer states (%llu B/param, %s%s)",
		    (unsigned long long)v->plan->in->precision.optimizer_bytes, sharding_says(v, DC_SHARD_ZERO1),
		    offloaded(v, 2));
}

static int is_offloaded(const void *base)
{
	return ((const struct ledger_view *)base)->plan->in->parallel.offload != DC_OFFLOAD_NONE;
}

/* DeepSpeed ZeRO-1/2's offload buffers (memory.h), where it makes them */
static int has_host_buffers(const void *base)
{
	return ((const struct ledger_view *)base)->l.host_buffers_bytes > 0;
}

static int view_offloaded(const void *base)
{
	return ((const struct view *)base)->plan->in->parallel.offload != DC_OFFLOAD_NONE;
}

static void act_label(const void *base, char *buf, size_t len)
{
	const struct dc_config *in = ((const struct ledger_view *)base)->plan->in;
	const struct dc_training *t = &in->training;
	char rc[192];
	recompute_text(in, rc, sizeof(rc));
	if (t->recompute == DC_RECOMPUTE_FULL && t->recompute_layers)
		dc_text_fmt(buf, len, "activations per layer per microbatch (assumed, recompute full, %llu layers a chunk)",
			    (unsigned long long)t->recompute_layers);
	else
		dc_text_fmt(buf, len, "activations per layer per microbatch (assumed, recompute %s)", rc);
}

/* The schedule the ledger's counts follow, as the labels name it. */
static const char *schedule_label(const struct dc_plan *p)
{
	switch (dc_pipeline_schedule(p)) {
	case DC_PIPE_INTERLEAVED:
		return "interleaved 1F1B";
	case DC_PIPE_ZERO_BUBBLE:
		return "ZB-H1";
	case DC_PIPE_DUALPIPE:
		return "DualPipe";
	case DC_PIPE_DUALPIPEV:
		return "DualPipeV";
	case DC_PIPE_1F1B:
		break;
	}
	return "1F1B";
}

static void held_label(const void *base, char *buf, size_t len)
{
	dc_text_fmt(buf, len, "layer-microbatches held (%s)", schedule_label(((const struct ledger_view *)base)->plan));
}

/* DualPipe and DualPipeV count chunk-microbatches: a rank's two chunks */
static void in_flight_label(const void *base, char *buf, size_t len)
{
	const struct dc_plan *p = ((const struct ledger_view *)base)->plan;
	enum dc_pipe_schedule s = dc_pipeline_schedule(p);
	if (s == DC_PIPE_DUALPIPE || s == DC_PIPE_DUALPIPEV)
		dc_text_fmt(buf, len, "chunk-microbatches in flight (%s: %s)", schedule_label(p),
			    s == DC_PIPE_DUALPIPE ? "pp + 1" : "2pp + 1");
	else if (s == DC_PIPE_ZERO_BUBBLE)
		dc_text_fmt(buf, len, "microbatches in flight (ZB-H1: whole, B not run)");
	else if (s == DC_PIPE_INTERLEAVED)
		/* the count is 1F1B's; the interleaved warm-up holds chunk-
		 * microbatches, which the layer-microbatches line counts */
		dc_text_fmt(buf, len, "microbatches in flight (1F1B's count; the chunks held: the next line)");
	else
		dc_text_fmt(buf, len, "microbatches in flight");
}

/* Under FSDP with a pipeline the unsharded gradients are the stage's,
 * held across the microbatches (memory.c, fsdp_holds_stage) */
static void fsdp_grads_label(const void *base, char *buf, size_t len)
{
	const struct dc_plan *p = ((const struct ledger_view *)base)->plan;
	if (p->layout.pp > 1)
		dc_text_fmt(buf, len, "FSDP unsharded grads of the stage, held across microbatches (no reshard after backward)");
	else
		dc_text_fmt(buf, len, "FSDP unit grads before ReduceScatter");
}

static void reserve_label(const void *base, char *buf, size_t len)
{
	const struct ledger_view *v = base;
	double pct = v->plan->in->memory.allocator_reserve * 100;
	/* "%.0f" of a percent from 0 to 100 is the integer nearest it, ties
	 * to even: rint's in the default rounding mode, written without printf */
	if (pct >= 0 && pct <= 100)
		dc_text_fmt(buf, len, "allocator reserve (%llu%% of the %s subtotal)", (unsigned long long)rint(pct),
			    v->peak_phase);
	else
		snprintf(buf, len, "allocator reserve (%.0f%% of the %s subtotal)", pct, v->peak_phase);
}

/* FP8 primary weights (param_bytes 1) are the FP8 tensors: what TE
 * keeps beside them on Hopper is the transpose of each (framework.c) */
static void fp8_copies_label(const void *base, char *buf, size_t len)
{
	const struct ledger_view *v = base;
	snprintf(buf, len, "%s", v->plan->in->precision.param_bytes <= 1
					 ? "Transformer Engine's transposes of the FP8 weights"
					 : "Transformer Engine's FP8 weight copies");
}

static int is_zero_bubble(const void *base)
{
	return dc_pipeline_schedule(((const struct ledger_view *)base)->plan) == DC_PIPE_ZERO_BUBBLE;
}

static int has_optimizer_temp(const void *base)
{
	return ((const struct ledger_view *)base)->l.optimizer_temp_bytes > 0;
}

static int has_fp8_copies(const void *base)
{
	return ((const struct ledger_view *)base)->l.fp8_weight_copies_bytes > 0;
}

static int is_fsdp(const void *base)
{
	return ((const struct ledger_view *)base)->plan->layout.sharding == DC_SHARD_FSDP;
}

struct phase_row {
	const char *phase;
	uint64_t subtotal, reserve, total;
	int fits;
};

static uint64_t phase_count(const void *base)
{
	(void)base;
	return DC_MEM_PHASE_COUNT;
}

static void phase_row(const void *base, uint64_t i, void *out)
{
	const struct ledger_view *v = base;
	struct phase_row *row = out;
	row->phase = dc_mem_phase_name((enum dc_mem_phase)i);
	row->subtotal = v->l.phase_subtotal_bytes[i];
	row->reserve = v->l.phase_reserve_bytes[i];
	row->total = v->l.phase_bytes[i];
	row->fits = v->l.phase_bytes[i] <= v->gpu_mem_bytes;
}

#define PR(m) offsetof(struct phase_row, m)
static const struct dc_field phase_fields[] = {
	{"phase", "phase", DC_U_NONE, DC_FT_STR, PR(phase)},
	{"subtotal_bytes", "subtotal", DC_U_BYTES, DC_FT_U64, PR(subtotal)},
	{"reserve_bytes", "reserve", DC_U_BYTES, DC_FT_U64, PR(reserve)},
	{"total_bytes", "total", DC_U_BYTES, DC_FT_U64, PR(total)},
	{"fits", "fits", DC_U_NONE, DC_FT_BOOL, PR(fits)},
};
static const struct dc_fields phase_table = DC_FIELDS(phase_fields);
static const struct dc_rows phase_rows = {phase_count, phase_row, sizeof(struct phase_row), "phases"};

/* ---- one layer's activations, term by term (activation.h) ---- */

struct term_row {
	const char *term, *split;
	char formula[80];
	uint64_t bytes, kept;
};

/* the layer kind the ledger's stage holds most of: MoE when it has any.
 * Called once, by view(). */
static void terms_fill(struct ledger_view *v)
{
	v->has_terms = !v->plan->in->memory.activation_explicit &&
		       dc_act_layer_parts(v->plan, v->l.p.moe_layers > 0, &v->terms) == 0;
}

static const struct dc_act_layer *term_layer(const struct ledger_view *v)
{
	return v->has_terms ? &v->terms : NULL;
}

/* the i-th term that applies (held without recompute, or kept by it) */
static int nth_term(const struct dc_act_layer *t, uint64_t i)
{
	for (int k = 0; k < DC_ACT_TERM_COUNT; k++)
		if ((t->term_bytes[k] || t->kept_bytes[k]) && i-- == 0)
			return k;
	return -1;
}

static uint64_t term_count(const void *base)
{
	const struct dc_act_layer *t = term_layer(base);
	uint64_t n = 0;
	if (!t)
		return 0;
	for (int k = 0; k < DC_ACT_TERM_COUNT; k++)
		n += t->term_bytes[k] || t->kept_bytes[k];
	return n;
}

static void term_row(const void *base, uint64_t i, void *out)
{
	static const char *const splits[] = {"replicated", "tp", "core"};
	const struct ledger_view *v = base;
	struct term_row *row = out;
	const struct dc_act_layer *t = term_layer(v);
	int k;
	if (!t || (k = nth_term(t, i)) < 0)
		return; /* counted from the same terms: it cannot fail now */
	row->term = dc_act_term_name((enum dc_act_term)k);
	dc_act_term_formula((enum dc_act_term)k, v->plan->in, v->l.p.moe_layers > 0, row->formula,
			    sizeof(row->formula));
	row->split = splits[dc_act_term_group((enum dc_act_term)k)];
	row->bytes = t->term_bytes[k];
	row->kept = t->kept_bytes[k];
}

#define TR(m) offsetof(struct term_row, m)
static const struct dc_field term_fields[] = {
	{"term", "term", DC_U_NONE, DC_FT_STR, TR(term)},
	{"formula", "formula", DC_U_NONE, DC_FT_TEXT, TR(formula)},
	{"split", "split", DC_U_NONE, DC_FT_STR, TR(split)},
	{"held_bytes", "held (B)", DC_U_COUNT, DC_FT_U64, TR(bytes)},
	{"kept_bytes", "kept (B)", DC_U_COUNT, DC_FT_U64, TR(kept)},
};
static const struct dc_fields term_table = DC_FIELDS(term_fields);
static const struct dc_rows term_rows = {term_count, term_row, sizeof(struct term_row), "terms"};

#define LV(m) offsetof(struct ledger_view, m)
/* the MTP modules keep theirs beside the head's (activation.c) */
static void output_label(const void *base, char *buf, size_t len)
{
	const struct ledger_view *v = base;
	if (v->plan->in->training.loss_chunks > 1) /* no MTP with it (the loader's rule) */
		dc_text_fmt(buf, len, "%s", "final norm input, head input gradient (last stage)");
	else
		dc_text_fmt(buf, len, "%s", v->plan->in->model.mtp_layers
					      ? "final norm, head input, FP32 logits, MTP modules (last stage)"
					      : "final norm, head input, FP32 logits (last stage)");
}

static void head_backward_label(const void *base, char *buf, size_t len)
{
	const struct ledger_view *v = base;
	dc_text_fmt(buf, len, "%s", v->plan->in->training.loss_chunks > 1
				      ? "one loss chunk's logits and gradients (last stage)"
				      : "the loss's FP32 gradients in its backward (last stage)");
}

#define L(m) offsetof(struct ledger_view, l.m)
static const struct dc_field top_fields[] = {
	{"rank", "rank", DC_U_COUNT, DC_FT_U64, LV(rank)},
	{"class", "class", DC_U_COUNT, DC_FT_U64, LV(class_index)},
	{"stages", NULL, DC_U_NONE, DC_FT_FN, 0, .text = top_stages, .label_fn = stages_label},
	{"class_ranks", "ranks with this ledger", DC_U_NONE, DC_FT_FN, 0, .text = top_ranks},
	{"layers", "transformer layers held", DC_U_COUNT, DC_FT_U64, L(p.layers)},
	{"params", "parameters held (its tp x pp x ep shard)", DC_U_COUNT, DC_FT_U64, L(p.total)},
	{"params_bytes", NULL, DC_U_BYTES, DC_FT_U64, L(params_bytes), .label_fn = params_label},
	{"grads_bytes", NULL, DC_U_BYTES, DC_FT_U64, L(grads_bytes), .label_fn = grads_label},
	{"master_bytes", NULL, DC_U_BYTES, DC_FT_U64, L(master_bytes), .label_fn = master_label},
	{"optimizer_bytes", NULL, DC_U_BYTES, DC_FT_U64, L(optimizer_bytes), .label_fn = optim_label},
	{"model_states_bytes", "= model states (on the GPU)", DC_U_BYTES, DC_FT_U64, L(model_states_bytes)},
	{"host_params_bytes", "host: parameter shard", DC_U_BYTES, DC_FT_U64, L(host_params_bytes), .shown = is_offloaded},
	{"host_grads_bytes", "host: gradients (FP32 copy, or the shard)", DC_U_BYTES, DC_FT_U64, L(host_grads_bytes),
	 .shown = is_offloaded},
	{"host_master_bytes", "host: master copy", DC_U_BYTES, DC_FT_U64, L(host_master_bytes), .shown = is_offloaded},
	{"host_optimizer_bytes", "host: optimizer states", DC_U_BYTES, DC_FT_U64, L(host_optimizer_bytes),
	 .shown = is_offloaded},
	{"host_buffers_bytes", "host: DeepSpeed's pinned 16-bit buffers", DC_U_BYTES, DC_FT_U64, L(host_buffers_bytes),
	 .shown = has_host_buffers},
	{"host_bytes", "= host memory of this rank", DC_U_BYTES, DC_FT_U64, L(host_bytes), .shown = is_offloaded},
	{"activation_bytes_per_layer", NULL, DC_U_BYTES, DC_FT_U64, L(activation_bytes_per_layer),
	 .label_fn = act_label},
	{"activation_terms", "One layer, one microbatch, term by term (held: no recompute; kept: under it; split: replicated = whole unless SP, then 1/tp, but torchtitan keeps its gathered Q/K/V and MLP inputs whole; tp = 1/tp; core = the attention core's, 1/tp)", DC_U_NONE,
	 DC_FT_ROWS, 0, .sub = &term_table, .rows = &term_rows},
	{"in_flight_microbatches", NULL, DC_U_COUNT, DC_FT_U64, L(in_flight), .label_fn = in_flight_label},
	{"activation_layer_microbatches", NULL, DC_U_COUNT, DC_FT_U64, L(activation_layer_microbatches),
	 .label_fn = held_label},
	{"activation_layers_bytes", "activations of the layers held", DC_U_BYTES, DC_FT_U64, L(activation_layers_bytes)},
	{"activation_embedding_bytes", "embedding dropout masks (first stage, with dropout)", DC_U_BYTES, DC_FT_U64,
	 L(activation_embedding_bytes)},
	{"activation_output_bytes", NULL, DC_U_BYTES, DC_FT_U64, L(activation_output_bytes), .label_fn = output_label},
	{"activation_wgrad_bytes_per_microbatch",
	 "ZB-H1: deferred W of one microbatch (linears' X and dY)", DC_U_BYTES,
	 DC_FT_U64, L(activation_wgrad_bytes_per_microbatch), .shown = is_zero_bubble},
	{"activation_wgrad_microbatches", "ZB-H1: microbatches awaiting W at the peak", DC_U_COUNT,
	 DC_FT_U64, L(activation_wgrad_microbatches), .shown = is_zero_bubble},
	{"activation_wgrad_bytes", "ZB-H1: deferred W over 1F1B's activations", DC_U_BYTES, DC_FT_U64,
	 L(activation_wgrad_bytes), .shown = is_zero_bubble},
	{"activations_bytes", "= activations (assumed)", DC_U_BYTES, DC_FT_U64, L(activations_bytes)},
	{"activation_recompute_bytes", "one layer rebuilt during backward (recompute)", DC_U_BYTES, DC_FT_U64,
	 L(activation_recompute_bytes)},
	{"activation_head_backward_bytes", NULL, DC_U_BYTES, DC_FT_U64, L(activation_head_backward_bytes),
	 .label_fn = head_backward_label},
	{"fsdp_unit_params", "FSDP unit parameters", DC_U_COUNT, DC_FT_U64, L(fsdp_unit_params), .shown = is_fsdp},
	{"fsdp_forward_params_bytes", "FSDP gathered params in forward", DC_U_BYTES, DC_FT_U64,
	 L(fsdp_forward_params_bytes), .shown = is_fsdp},
	{"fsdp_backward_params_bytes", "FSDP gathered params in backward", DC_U_BYTES, DC_FT_U64,
	 L(fsdp_backward_params_bytes), .shown = is_fsdp},
	{"fsdp_unsharded_grads_bytes", NULL, DC_U_BYTES, DC_FT_U64, L(fsdp_unsharded_grads_bytes), .shown = is_fsdp,
	 .label_fn = fsdp_grads_label},
	{"ddp_buckets_bytes", "DDP gradient buckets in flight", DC_U_BYTES, DC_FT_U64, L(ddp_buckets_bytes)},
	{"comm_buffers_bytes", "communication (NCCL) buffers", DC_U_BYTES, DC_FT_U64, L(comm_buffers_bytes)},
	{"buffers_bytes", "= buffers (buckets + FSDP + comm)", DC_U_BYTES, DC_FT_U64, L(buffers_bytes)},
	{"cuda_context_bytes", "CUDA context", DC_U_BYTES, DC_FT_U64, L(cuda_context_bytes)},
	{"workspace_bytes", "framework workspace", DC_U_BYTES, DC_FT_U64, L(workspace_bytes)},
	{"fp8_weight_params", "FP8-cast linear weights (parameters)", DC_U_COUNT, DC_FT_U64, L(fp8_weight_params),
	 .shown = has_fp8_copies},
	{"fp8_weight_copies_bytes", NULL, DC_U_BYTES, DC_FT_U64, L(fp8_weight_copies_bytes), .shown = has_fp8_copies,
	 .label_fn = fp8_copies_label},
	{"allocator_reserve_bytes", NULL, DC_U_BYTES, DC_FT_U64, LV(reserve_bytes), .label_fn = reserve_label},
	{"peak_bytes", "= peak", DC_U_BYTES, DC_FT_U64, L(peak_bytes)},
	{"peak_phase", "peak phase", DC_U_NONE, DC_FT_STR, LV(peak_phase)},
	{"optimizer_temp_bytes", "optimizer_step phase only: foreach AdamW's square roots", DC_U_BYTES, DC_FT_U64,
	 L(optimizer_temp_bytes), .shown = has_optimizer_temp},
	{"phases", "Peak by phase", DC_U_NONE, DC_FT_ROWS, 0, .sub = &phase_table, .rows = &phase_rows},
};
static const struct dc_fields top_obj = DC_FIELDS(top_fields);

/* ---- the classes, generated from the plan one at a time ---- */

struct class_row {
	uint64_t index, num_ranks, layers, in_flight, layer_mb, params, grads, master, optim, states, activ, buffers, peak;
	const char *phase;
	int fits;
	char stages[48], ranks[160];
};

static uint64_t class_count(const void *base)
{
	return ((const struct view *)base)->m->nclasses;
}

static void class_row(const void *base, uint64_t i, void *out)
{
	const struct view *v = base;
	const struct dc_topology *t = &v->plan->topo;
	struct class_row *row = out;
	struct dc_mem_ledger l;

	if (dc_memory_class_at(v->plan, v->m, i, &l) != 0)
		return; /* computed once already: it cannot fail now */
	row->index = i;
	stages_text(&l, row->stages, sizeof(row->stages));
	class_ranks_text(t, l.stage_first, l.stage_last, row->ranks, sizeof(row->ranks));
	row->num_ranks = (l.stage_last - l.stage_first + 1) * (t->world / t->degree[DC_AXIS_PP]);
	row->layers = l.p.layers;
	row->in_flight = l.in_flight;
	row->layer_mb = l.activation_layer_microbatches;
	row->params = l.params_bytes;
	row->grads = l.grads_bytes;
	row->master = l.master_bytes;
	row->optim = l.optimizer_bytes;
	row->states = l.model_states_bytes;
	row->activ = l.activations_bytes;
	row->buffers = l.buffers_bytes;
	row->peak = l.peak_bytes;
	row->phase = dc_mem_phase_name(l.peak_phase);
	row->fits = l.fits;
}

#define CR(m) offsetof(struct class_row, m)
static const struct dc_field class_fields[] = {
	{"class", "class", DC_U_COUNT, DC_FT_U64, CR(index)},
	{"stages", "stages", DC_U_NONE, DC_FT_TEXT, CR(stages)},
	{"ranks", "ranks", DC_U_NONE, DC_FT_TEXT, CR(ranks)},
	{"num_ranks", "#ranks", DC_U_COUNT, DC_FT_U64, CR(num_ranks)},
	{"layers", "layers", DC_U_COUNT, DC_FT_U64, CR(layers)},
	{"in_flight_microbatches", "in flight", DC_U_COUNT, DC_FT_U64, CR(in_flight)},
	/* what the activations count: under interleaving (and the two-chunk
	 * schedules) not layers x in flight (1F1B's, which the classes key on) */
	{"activation_layer_microbatches", "layer-mb", DC_U_COUNT, DC_FT_U64, CR(layer_mb)},
	{"params_bytes", "params", DC_U_BYTES, DC_FT_U64, CR(params)},
	{"grads_bytes", "grads", DC_U_BYTES, DC_FT_U64, CR(grads)},
	{"master_bytes", "master", DC_U_BYTES, DC_FT_U64, CR(master)},
	{"optimizer_bytes", "optim", DC_U_BYTES, DC_FT_U64, CR(optim)},
	{"model_states_bytes", "states", DC_U_BYTES, DC_FT_U64, CR(states)},
	{"activations_bytes", "activ", DC_U_BYTES, DC_FT_U64, CR(activ)},
	{"buffers_bytes", "buffers", DC_U_BYTES, DC_FT_U64, CR(buffers)},
	{"peak_bytes", "peak", DC_U_BYTES, DC_FT_U64, CR(peak)},
	{"peak_phase", "phase", DC_U_NONE, DC_FT_STR, CR(phase)},
	{"fits", "fits", DC_U_NONE, DC_FT_BOOL, CR(fits)},
};
static const struct dc_fields class_table = DC_FIELDS(class_fields);
static const struct dc_rows class_rows = {class_count, class_row, sizeof(struct class_row), "classes"};

static int nm_has_fp8(const void *base)
{
	return ((const struct not_modeled *)base)->fp8 != NULL;
}

static int nm_has_zero_bubble(const void *base)
{
	return ((const struct not_modeled *)base)->zero_bubble != NULL;
}

#define NM(m) offsetof(struct not_modeled, m)
static const struct dc_field nm_fields[] = {
	{"activations", NULL, DC_U_NONE, DC_FT_STR, NM(activations)},
	{"optimizer_step", NULL, DC_U_NONE, DC_FT_STR, NM(optimizer_step)},
	{"checkpoint_save", NULL, DC_U_NONE, DC_FT_STR, NM(checkpoint_save)},
	{"ddp_bucket_copy", NULL, DC_U_NONE, DC_FT_STR, NM(ddp_bucket_copy)},
	{"other", NULL, DC_U_NONE, DC_FT_STR, NM(other)},
	{"fragmentation", NULL, DC_U_NONE, DC_FT_STR, NM(fragmentation)},
	{"fp8", NULL, DC_U_NONE, DC_FT_STR, NM(fp8), .shown = nm_has_fp8},
	{"zero_bubble", NULL, DC_U_NONE, DC_FT_STR, NM(zero_bubble), .shown = nm_has_zero_bubble},
};
static const struct dc_fields nm_obj = DC_FIELDS(nm_fields);

#define V(m) offsetof(struct view, m)
static const struct dc_field fields[] = {
	{"activation_model", "activations", DC_U_NONE, DC_FT_FN, 0, .text = activation_model},
	{"gpu_memory_bytes", "GPU memory", DC_U_BYTES, DC_FT_U64, V(gpu_mem_bytes)},
	{"fits", "fits (rank with the highest peak)", DC_U_NONE, DC_FT_BOOL, V(fits)},
	{"headroom_bytes", "headroom", DC_U_BYTES, DC_FT_U64, V(headroom_bytes)},
	{"shortfall_bytes", "shortfall", DC_U_BYTES, DC_FT_U64, V(shortfall_bytes)},
	{"offload", "CPU offload", DC_U_NONE, DC_FT_STR, V(offload)},
	{"host_memory_bytes", "host memory per node (0: not checked)", DC_U_BYTES, DC_FT_U64, V(host_memory_bytes),
	 .shown = view_offloaded},
	{"host_bytes_per_rank", "host bytes of the rank offloading the most", DC_U_BYTES, DC_FT_U64, V(host_rank_bytes),
	 .shown = view_offloaded},
	{"host_bytes_per_node", "host bytes per node (x gpus_per_node)", DC_U_BYTES, DC_FT_U64, V(host_node_bytes),
	 .shown = view_offloaded},
	{"host_fits", "host ledger fits (yes when not checked)", DC_U_NONE, DC_FT_BOOL, V(host_fits), .shown = view_offloaded},
	{"per_rank", "Rank with the highest peak memory", DC_U_NONE, DC_FT_OBJECT, V(top), .sub = &top_obj},
	{"classes", "Classes of ranks with identical ledgers", DC_U_NONE, DC_FT_ROWS, 0, .sub = &class_table,
	 .rows = &class_rows},
	{"not_modeled", "Not modelled (each can still make a rank run out of memory)", DC_U_NONE, DC_FT_OBJECT,
	 V(nm), .sub = &nm_obj},
};

_Static_assert(sizeof(struct view) <= DC_VIEW_MAX, "view too large");
_Static_assert(sizeof(struct class_row) <= DC_ROW_MAX, "row too large");

/* A most loaded rank that fits within 5% of the GPU's memory (tight),
 * and offloaded states beyond cluster.host_memory: the run would not
 * start, whatever the GPU ledger says. Reads the ledgers from the results,
 * or works it out when the shown sections did not need it, so the
 * warning does not depend on --only. */
static void warn(const struct dc_plan *plan, const struct dc_results *res, const char *config_name,
		 struct dc_diag *diag)
{
	struct dc_memory_result own;
	const struct dc_memory_result *m = &res->memory;
	(void)config_name;
	if (!(res->done & DC_EST_BIT(DC_EST_MEMORY))) {
		if (dc_memory_compute(plan, &own, NULL) != 0)
			return; /* the estimator's error is reported where it runs */
		m = &own;
	}
	if (!m->top.fits) {
		/* said as a tight fit is: a CI job gating on summary.warnings, or a
		 * reader of stderr, saw a rank within 5% flagged and one 67 GiB
		 * over not (a trial); the exit status stays 0 (README, "Pinning
		 * a budget": summary.shortfall_bytes is the budget to pin) */
		uint64_t gpu = plan->in->cluster.gpu_mem_bytes;
		dc_diag_warn(diag,
			     "'cluster.gpu_memory': the most loaded rank's peak, %.3f GiB (%llu bytes), is %.3f GiB "
			     "(summary.shortfall_bytes %llu) over the %.3f GiB of GPU memory: this plan does not fit, and "
			     "its times are those of a run that could not start; shard or offload more, recompute more, "
			     "take a smaller micro batch, or let the layout search (--experiment search) find one that fits",
			     (double)m->top.peak_bytes / 1073741824.0, (unsigned long long)m->top.peak_bytes,
			     (double)m->top.shortfall_bytes / 1073741824.0, (unsigned long long)m->top.shortfall_bytes,
			     (double)gpu / 1073741824.0);
	}
	if (m->top.fits && dc_search_tight(m->top.peak_bytes, plan->in->cluster.gpu_mem_bytes)) {
		/* fits on paper, within 5% (as the layout search's `tight`):
		 * what the ledger leaves out, and a card's usable memory below
		 * its data sheet's, can make it not (a trial's NVIDIA FP8
		 * example: 0.144 GiB to spare on the 80 GiB preset, 0.208 GiB
		 * short at the 79.65 GiB an H100 SXM5 reports) */
		uint64_t gpu = plan->in->cluster.gpu_mem_bytes, left = gpu - m->top.peak_bytes;
		const char *clause, *fix;
		dc_search_tight_usable(plan->in->cluster.gpu, &clause, &fix);
		dc_diag_warn(diag,
			     "'cluster.gpu_memory': the most loaded rank's peak, %.3f GiB (%llu bytes), leaves %.3f GiB "
			     "(%.1f%%) of the %.3f GiB free: 5%% or less, tight, as the layout search flags it. The ledger "
			     "leaves out fragmentation beyond its allocator reserve and the framework's own buffers "
			     "(memory.not_modeled)%s: check it against a real run, %sor leave room (a smaller micro "
			     "batch, more recompute)",
			     (double)m->top.peak_bytes / 1073741824.0, (unsigned long long)m->top.peak_bytes,
			     (double)left / 1073741824.0, 100.0 * (double)left / (double)gpu, (double)gpu / 1073741824.0,
			     clause, fix);
	}
	if (plan->in->cluster.host_mem_bytes == 0 || plan->in->parallel.offload == DC_OFFLOAD_NONE || m->host_fits)
		return;
	dc_diag_warn(diag,
		     "'cluster.host_memory': the offloaded states need %llu bytes (%.1f GiB) of host memory per node "
		     "(%llu bytes a rank x %llu GPUs), more than the %llu bytes (%.1f GiB) given",
		     (unsigned long long)m->host_node_bytes, (double)m->host_node_bytes / 1073741824.0,
		     (unsigned long long)m->host_rank_bytes, (unsigned long long)plan->in->cluster.gpus_per_node,
		     (unsigned long long)plan->in->cluster.host_mem_bytes,
		     (double)plan->in->cluster.host_mem_bytes / 1073741824.0);
}

const struct dc_section dc_section_memory = {
	"memory", "Memory per rank (exact bytes)",
	"the most loaded rank's ledger, peak by phase, classes of ranks",
	DC_EST_BIT(DC_EST_MEMORY), sizeof(struct view), view, DC_FIELDS(fields), NULL, warn,
};
