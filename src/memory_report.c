/* memory_report.c - the memory section: the most loaded rank's ledger, the
 * peak by phase, and every class of ranks with identical ledgers. */
#include <stdio.h>
#include <string.h>

#include "distcalc/experiment.h"
#include "distcalc/memory.h"
#include "distcalc/plan.h"
#include "distcalc/topology.h"

struct mem_state {
	struct dc_config cfg; /* the plan's input, kept for the class rows */
	struct dc_plan plan;
	struct dc_memory_result res;
	struct dc_topology topo;
	uint64_t ranks_per_stage;
};

/* Ranks whose pp coordinate is in [s0, s1]: runs of consecutive ranks
 * [s0 S + k S pp, (s1 + 1) S + k S pp) with S the pp stride. */
static void class_ranks_text(const struct dc_topology *t, uint64_t s0, uint64_t s1, char *buf,
			     size_t len)
{
	uint64_t S = t->stride[DC_AXIS_PP], pp = t->degree[DC_AXIS_PP];
	uint64_t period = S * pp, runs = t->world / period;
	unsigned long long a = (unsigned long long)(s0 * S), b = (unsigned long long)((s1 + 1) * S - 1);
	unsigned long long step = (unsigned long long)period;

	if (runs == 1)
		snprintf(buf, len, a == b ? "%llu" : "%llu-%llu", a, b);
	else if (a == b)
		snprintf(buf, len, "%llu, %llu, ..., %llu (every %llu)", a, a + step,
			 a + step * (unsigned long long)(runs - 1), step);
	else if (runs == 2)
		snprintf(buf, len, "%llu-%llu, %llu-%llu", a, b, a + step, b + step);
	else
		snprintf(buf, len, "%llu-%llu, %llu-%llu, ... (%llu runs every %llu)", a, b, a + step,
			 b + step, (unsigned long long)runs, step);
}

static void stages_text(const struct dc_mem_ledger *l, char *buf, size_t len)
{
	if (l->stage_first == l->stage_last)
		snprintf(buf, len, "%llu", (unsigned long long)l->stage_first);
	else
		snprintf(buf, len, "%llu-%llu", (unsigned long long)l->stage_first,
			 (unsigned long long)l->stage_last);
}

static void class_row(const void *ctx, uint64_t i, struct dc_rnode *row)
{
	const struct mem_state *m = ctx;
	struct dc_mem_ledger ledger, *l = &ledger;
	char stages[48], ranks[160];

	if (dc_memory_class_at(&m->plan, &m->res, i, &ledger) != 0)
		memset(&ledger, 0, sizeof(ledger)); /* never: the estimator made every class */

	stages_text(l, stages, sizeof(stages));
	class_ranks_text(&m->topo, l->stage_first, l->stage_last, ranks, sizeof(ranks));
	dc_rn_u64(row, "class", "class", DC_U_COUNT, i);
	dc_rn_str(row, "stages", "stages", stages);
	dc_rn_str(row, "ranks", "ranks", ranks);
	dc_rn_u64(row, "num_ranks", "#ranks", DC_U_COUNT,
		  (l->stage_last - l->stage_first + 1) * m->ranks_per_stage);
	dc_rn_u64(row, "layers", "layers", DC_U_COUNT, l->p.layers);
	dc_rn_u64(row, "in_flight_microbatches", "in flight", DC_U_COUNT, l->in_flight);
	dc_rn_u64(row, "params_bytes", "params", DC_U_BYTES, l->params_bytes);
	dc_rn_u64(row, "grads_bytes", "grads", DC_U_BYTES, l->grads_bytes);
	dc_rn_u64(row, "master_bytes", "master", DC_U_BYTES, l->master_bytes);
	dc_rn_u64(row, "optimizer_bytes", "optim", DC_U_BYTES, l->optimizer_bytes);
	dc_rn_u64(row, "model_states_bytes", "states", DC_U_BYTES, l->model_states_bytes);
	dc_rn_u64(row, "activations_bytes", "activ", DC_U_BYTES, l->activations_bytes);
	dc_rn_u64(row, "buffers_bytes", "buffers", DC_U_BYTES, l->buffers_bytes);
	dc_rn_u64(row, "peak_bytes", "peak", DC_U_BYTES, l->peak_bytes);
	dc_rn_str(row, "peak_phase", "phase", dc_mem_phase_name(l->peak_phase));
	dc_rn_bool(row, "fits", "fits", l->fits);
}

static const char *sharding_says(enum dc_sharding s, int level, uint64_t ep)
{
	/* level: 3 params, 2 grads, 1 master/optimizer */
	int sharded = (int)s >= level;
	if (sharded)
		return ep > 1 ? "sharded over dp, experts over dp/ep" : "sharded over dp";
	return ep > 1 ? "replicated over dp, experts over dp/ep" : "replicated over dp";
}

static void ledger_fields(struct dc_rnode *o, const struct dc_config *cfg,
			  const struct dc_mem_ledger *l)
{
	const struct dc_precision *pr = &cfg->precision;
	enum dc_sharding sh = cfg->parallel.sharding;
	char label[160];
	struct dc_rnode *ph;
	enum dc_mem_phase p = l->peak_phase;

	dc_rn_u64(o, "layers", "transformer layers held", DC_U_COUNT, l->p.layers);
	dc_rn_u64(o, "params", "parameters held (its tp x pp x ep shard)", DC_U_COUNT, l->p.total);
	snprintf(label, sizeof(label), "params (%llu B/param, %s)", (unsigned long long)pr->param_bytes,
		 sharding_says(sh, DC_SHARD_FSDP, cfg->parallel.ep));
	dc_rn_u64(o, "params_bytes", label, DC_U_BYTES, l->params_bytes);
	snprintf(label, sizeof(label), "grads (%llu B/param, %s)", (unsigned long long)pr->grad_bytes,
		 sharding_says(sh, DC_SHARD_ZERO2, cfg->parallel.ep));
	dc_rn_u64(o, "grads_bytes", label, DC_U_BYTES, l->grads_bytes);
	snprintf(label, sizeof(label), "master copy (%llu B/param, %s)",
		 (unsigned long long)pr->master_bytes, sharding_says(sh, DC_SHARD_ZERO1, cfg->parallel.ep));
	dc_rn_u64(o, "master_bytes", label, DC_U_BYTES, l->master_bytes);
	snprintf(label, sizeof(label), "optimizer states (%llu B/param, %s)",
		 (unsigned long long)pr->optimizer_bytes, sharding_says(sh, DC_SHARD_ZERO1, cfg->parallel.ep));
	dc_rn_u64(o, "optimizer_bytes", label, DC_U_BYTES, l->optimizer_bytes);
	dc_rn_u64(o, "model_states_bytes", "= model states", DC_U_BYTES, l->model_states_bytes);
	snprintf(label, sizeof(label), "activations per layer per microbatch (assumed, recompute %s)",
		 dc_recompute_name(cfg->training.recompute));
	dc_rn_u64(o, "activation_bytes_per_layer", label, DC_U_BYTES, l->activation_bytes_per_layer);
	dc_rn_u64(o, "in_flight_microbatches", "microbatches in flight", DC_U_COUNT, l->in_flight);
	snprintf(label, sizeof(label), "layer-microbatches held (%s)",
		 cfg->parallel.pp > 1 && cfg->parallel.virtual_pipeline > 1 ? "interleaved 1F1B" : "1F1B");
	dc_rn_u64(o, "activation_layer_microbatches", label, DC_U_COUNT, l->activation_layer_microbatches);
	dc_rn_u64(o, "activation_layers_bytes", "activations of the layers held", DC_U_BYTES,
		  l->activation_layers_bytes);
	dc_rn_u64(o, "activation_embedding_bytes", "embedding dropout masks (first stage)", DC_U_BYTES,
		  l->activation_embedding_bytes);
	dc_rn_u64(o, "activation_output_bytes", "final norm, head input, FP32 logits (last stage)",
		  DC_U_BYTES, l->activation_output_bytes);
	dc_rn_u64(o, "activations_bytes", "= activations (assumed)", DC_U_BYTES, l->activations_bytes);
	dc_rn_u64(o, "activation_recompute_bytes", "one layer rebuilt during backward (recompute)",
		  DC_U_BYTES, l->activation_recompute_bytes);
	if (sh == DC_SHARD_FSDP) {
		dc_rn_u64(o, "fsdp_unit_params", "FSDP unit parameters", DC_U_COUNT, l->fsdp_unit_params);
		dc_rn_u64(o, "fsdp_forward_params_bytes", "FSDP gathered params in forward", DC_U_BYTES,
			  l->fsdp_forward_params_bytes);
		dc_rn_u64(o, "fsdp_backward_params_bytes", "FSDP gathered params in backward", DC_U_BYTES,
			  l->fsdp_backward_params_bytes);
		dc_rn_u64(o, "fsdp_unsharded_grads_bytes", "FSDP unit grads before ReduceScatter", DC_U_BYTES,
			  l->fsdp_unsharded_grads_bytes);
	}
	dc_rn_u64(o, "ddp_buckets_bytes", "DDP gradient buckets (2 in flight)", DC_U_BYTES,
		  l->ddp_buckets_bytes);
	dc_rn_u64(o, "comm_buffers_bytes", "communication (NCCL) buffers", DC_U_BYTES,
		  l->comm_buffers_bytes);
	dc_rn_u64(o, "buffers_bytes", "= buffers (buckets + FSDP + comm)", DC_U_BYTES, l->buffers_bytes);
	dc_rn_u64(o, "cuda_context_bytes", "CUDA context", DC_U_BYTES, l->cuda_context_bytes);
	dc_rn_u64(o, "workspace_bytes", "framework workspace", DC_U_BYTES, l->workspace_bytes);
	snprintf(label, sizeof(label), "allocator reserve (%.0f%% of the %s subtotal)",
		 cfg->memory.allocator_reserve * 100, dc_mem_phase_name(p));
	dc_rn_u64(o, "allocator_reserve_bytes", label, DC_U_BYTES, l->phase_reserve_bytes[p]);
	dc_rn_u64(o, "peak_bytes", "= peak", DC_U_BYTES, l->peak_bytes);
	dc_rn_str(o, "peak_phase", "peak phase", dc_mem_phase_name(p));

	ph = dc_rn_array(o, "phases", "Peak by phase");
	for (int i = 0; i < DC_MEM_PHASE_COUNT; i++) {
		struct dc_rnode *row = dc_rn_object(ph, NULL, NULL);
		dc_rn_str(row, "phase", "phase", dc_mem_phase_name((enum dc_mem_phase)i));
		dc_rn_u64(row, "subtotal_bytes", "subtotal", DC_U_BYTES, l->phase_subtotal_bytes[i]);
		dc_rn_u64(row, "reserve_bytes", "reserve", DC_U_BYTES, l->phase_reserve_bytes[i]);
		dc_rn_u64(row, "total_bytes", "total", DC_U_BYTES, l->phase_bytes[i]);
		dc_rn_bool(row, "fits", "fits", l->phase_bytes[i] <= cfg->cluster.gpu_mem_bytes);
	}
}

static const char *const not_modeled[][2] = {
	{"activations", "assumed (Korthikanti et al. 2022 Table 2, generalised to GQA and SwiGLU, or the override); flash/fused attention kernels that never store the scores make the real figure smaller"},
	{"optimizer_step", "foreach/fused Adam scratch and gradient-clipping buffers"},
	{"checkpoint_save", "a full (unsharded) state dict gathered on one rank; the phase above assumes a sharded save"},
	{"ddp_bucket_copy", "PyTorch DDP with gradient_as_bucket_view=False (its default) keeps a flat copy of every gradient: add grads_bytes once more"},
	{"other", "vocabulary padding, loss buffers, pipeline send/receive buffers"},
	{"fragmentation", "beyond memory.allocator_reserve: fits is not a passed OOM test"},
};

static int memory_run(const struct dc_config *cfg, const struct dc_run_info *info,
		      struct dc_report *report, struct dc_diag *diag)
{
	struct mem_state *m = dc_report_keep(report, sizeof(*m));
	struct dc_rnode *s, *pr, *nm;
	const struct dc_mem_ledger *top;
	uint64_t most;
	char stages[48], text[200];
	const char *err = NULL;

	if (!m)
		return 0; /* the runner reports the failed report */
	m->cfg = *cfg;
	if (dc_plan_derive(&m->cfg, &m->plan) != 0 || dc_memory_compute(&m->plan, &m->res, &err) != 0) {
		dc_diag_error(diag, DC_ERR_CONFIG, "%s: error: %s", info->config_name, err ? err : m->plan.error);
		return -1;
	}
	m->topo = m->plan.topo;
	m->ranks_per_stage = cfg->world_size / cfg->parallel.pp;
	most = m->res.most_loaded;
	top = &m->res.top;

	s = dc_rn_object(dc_report_root(report), "memory", "Memory per rank (exact bytes)");
	if (cfg->memory.activation_explicit)
		snprintf(text, sizeof(text),
			 "assumption: %g bytes per token per layer (memory.activation_bytes_per_token_per_layer)",
			 cfg->memory.activation_bytes_per_token_per_layer);
	else
		snprintf(text, sizeof(text),
			 "assumption: Korthikanti et al. 2022 Table 2 (recompute %s, sequence parallel %s), generalised to GQA and SwiGLU: docs/formulas.md",
			 dc_recompute_name(cfg->training.recompute), cfg->parallel.sequence_parallel ? "on" : "off");
	dc_rn_str(s, "activation_model", "activations", text);
	dc_rn_u64(s, "gpu_memory_bytes", "GPU memory", DC_U_BYTES, cfg->cluster.gpu_mem_bytes);
	dc_rn_bool(s, "fits", "fits (rank with the highest peak)", top->fits);
	dc_rn_u64(s, "headroom_bytes", "headroom", DC_U_BYTES, top->headroom_bytes);
	dc_rn_u64(s, "shortfall_bytes", "shortfall", DC_U_BYTES, top->shortfall_bytes);

	stages_text(top, stages, sizeof(stages));
	class_ranks_text(&m->topo, top->stage_first, top->stage_last, text, sizeof(text));
	pr = dc_rn_object(s, "per_rank", "Rank with the highest peak memory");
	dc_rn_u64(pr, "rank", "rank", DC_U_COUNT, top->stage_first * m->topo.stride[DC_AXIS_PP]);
	dc_rn_u64(pr, "class", "class", DC_U_COUNT, most);
	dc_rn_str(pr, "stages", "pipeline stage(s)", stages);
	dc_rn_str(pr, "class_ranks", "ranks with this ledger", text);
	ledger_fields(pr, cfg, top);

	dc_rn_array_gen(s, "classes", "Classes of ranks with identical ledgers", "classes", m->res.nclasses,
			class_row, m);
	nm = dc_rn_object(s, "not_modeled", "Not modelled (each can still make a rank run out of memory)");
	for (size_t i = 0; i < sizeof(not_modeled) / sizeof(not_modeled[0]); i++)
		dc_rn_str(nm, not_modeled[i][0], not_modeled[i][0], not_modeled[i][1]);
	return 0;
}

const struct dc_estimator dc_estimator_memory = {"memory", memory_run};
