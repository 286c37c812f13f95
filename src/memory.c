/* memory.c - the per-rank memory ledger; see memory.h and
 * docs/formulas-systems.md, "Memory ledger". */
#include "distcalc/memory.h"

#include <math.h>
#include <string.h>

#include "distcalc/activation.h"
#include "distcalc/params.h"
#include "distcalc/util.h"

static uint64_t max_u64(uint64_t a, uint64_t b)
{
	return a > b ? a : b;
}

int dc_state_bytes(uint64_t params, uint64_t bytes_per_param, uint64_t shards, int sharded,
		   uint64_t *out)
{
	/* ZeRO section 5: a state sharded over N_d ranks costs 1/N_d per rank */
	uint64_t held = sharded && shards > 1 ? dc_ceil_div(params, shards) : params;
	return dc_mul_u64(held, bytes_per_param, out);
}

uint64_t dc_pipeline_in_flight(uint64_t pp, uint64_t stage, uint64_t grad_accum_steps)
{
	/* Megatron-LM 2021 section 2.2.1: 1F1B stashes at most p microbatches;
	 * stage s starts its first backward after p - s forwards */
	uint64_t n = pp - stage;
	if (pp <= 1)
		return 1;
	return n < grad_accum_steps ? n : grad_accum_steps;
}

/* Dense-MLP layers among those rank `stage` holds: with v model chunks
 * (interleaved 1F1B, Megatron-LM 2021 section 2.2.2) it holds chunks
 * stage, stage + pp, ..., each of L / (pp v) consecutive layers; the
 * dense ones are the first dense_layers of the model (all of them when
 * there are no experts). */
static uint64_t stage_dense_layers(const struct dc_config *cfg, uint64_t stage)
{
	const struct dc_model *m = &cfg->model;
	uint64_t pp = cfg->parallel.pp, v = cfg->parallel.virtual_pipeline ? cfg->parallel.virtual_pipeline : 1;
	uint64_t per_chunk = m->num_layers / pp / v, limit = m->num_experts ? m->dense_layers : m->num_layers;
	uint64_t n = 0;

	for (uint64_t k = 0; k < v; k++) {
		uint64_t first = (stage + k * pp) * per_chunk;
		if (first < limit)
			n += limit - first < per_chunk ? limit - first : per_chunk;
	}
	return n;
}

int dc_stage_params_compute(const struct dc_config *cfg, uint64_t stage, struct dc_stage_params *p)
{
	const struct dc_model *m = &cfg->model;
	uint64_t tp = cfg->parallel.tp, pp = cfg->parallel.pp, ep = cfg->parallel.ep ? cfg->parallel.ep : 1;
	struct dc_ck c = {0};

	memset(p, 0, sizeof(*p));
	p->layers = m->num_layers / pp;
	if (m->params_explicit) {
		/* an explicit count carries no shape: split it evenly over tp x pp */
		p->total = dc_ceil_div(m->params, dc_ck_mul(&c, tp, pp));
		p->layer_params = p->layers ? dc_ceil_div(p->total, p->layers) : p->total;
		p->dense_layers = p->layers;
		return c.overflow ? -1 : 0;
	}
	{
		struct dc_param_part attn, mlp, expert, router, shared;
		uint64_t norm_h, norms, embed, dense_layer = 0, moe_layer = 0, local_experts;

		if (dc_params_attention(m, &attn) || dc_params_mlp(m, m->ffn_hidden_size, &mlp) ||
		    dc_params_mlp(m, m->moe_ffn_hidden_size, &expert) || dc_params_router(m, &router) ||
		    dc_params_shared_experts(m, &shared) || dc_params_norm(m, m->hidden_size, &norm_h))
			return -1;
		norms = dc_ck_mul(&c, 2, norm_h);
		/* Megatron-LM 2021 section 2.3: linear layers split over tp
		 * (column-parallel biases with them); norms, row-parallel biases
		 * and MLA down-projections whole on every tp rank */
		dense_layer = dc_ck_add(&c, dc_ceil_div(dc_ck_add(&c, attn.split, mlp.split), tp),
				  dc_ck_add(&c, dc_ck_add(&c, attn.replicated, mlp.replicated), norms));
		/* MoE layer (Megatron-Core): attention and shared experts split
		 * over tp; num_experts / ep routed experts on this rank, each
		 * split over the expert tp group (expert_tensor_parallel_size
		 * defaults to tp); the router whole */
		local_experts = m->num_experts / ep;
		p->expert_params = dc_ck_mul(&c, local_experts,
				       dc_ck_add(&c, dc_ceil_div(expert.split, tp), expert.replicated));
		moe_layer = dc_ck_add(&c, dc_ck_add(&c, dc_ceil_div(dc_ck_add(&c, attn.split, shared.split), tp), p->expert_params),
				dc_ck_add(&c, dc_ck_add(&c, attn.replicated, shared.replicated), dc_ck_add(&c, router.replicated, norms)));
		p->dense_layers = stage_dense_layers(cfg, stage);
		p->moe_layers = p->layers - p->dense_layers;
		p->layer_params = max_u64(p->dense_layers ? dense_layer : 0, p->moe_layers ? moe_layer : 0);
		p->expert_params = dc_ck_mul(&c, p->expert_params, p->moe_layers);

		embed = dc_ceil_div(dc_ck_mul(&c, m->vocab_size, m->hidden_size), tp); /* vocab-parallel */
		if (stage == 0) /* and the learned position table, whole (GPT-2) */
			p->other_params = dc_ck_add(&c, embed, dc_ck_mul(&c, m->position_embeddings, m->hidden_size));
		if (stage == pp - 1) {
			p->other_params = dc_ck_add(&c, p->other_params, norm_h); /* final norm */
			/* an untied head; a tied one is copied to the last stage when pp > 1 */
			if (!m->tie_word_embeddings || pp > 1)
				p->other_params = dc_ck_add(&c, p->other_params, embed);
		}
		p->total = dc_ck_add(&c, dc_ck_add(&c, dc_ck_mul(&c, p->dense_layers, dense_layer), dc_ck_mul(&c, p->moe_layers, moe_layer)),
			       p->other_params);
	}
	return c.overflow ? -1 : 0;
}

int dc_stage_params_most_loaded(const struct dc_config *cfg, struct dc_stage_params *p, uint64_t *stage)
{
	/* stages differ by the embedding (first), the head (last) and how many
	 * dense layers they hold: the candidates are the first, the last and
	 * the two around the first chunk without dense layers */
	const struct dc_model *m = &cfg->model;
	uint64_t pp = cfg->parallel.pp, v = cfg->parallel.virtual_pipeline ? cfg->parallel.virtual_pipeline : 1;
	uint64_t per_chunk = m->num_layers / pp / v;
	uint64_t b = per_chunk ? dc_ceil_div(m->num_experts ? m->dense_layers : 0, per_chunk) : 0;
	uint64_t cand[4] = {0, pp - 1, b < pp ? b : pp - 1, b > 0 && b - 1 < pp ? b - 1 : 0};
	struct dc_stage_params sp;

	memset(p, 0, sizeof(*p));
	*stage = 0;
	for (int i = 0; i < 4; i++) {
		if (dc_stage_params_compute(cfg, cand[i], &sp) != 0)
			return -1;
		if (i == 0 || sp.total > p->total || (sp.total == p->total && cand[i] < *stage)) {
			*p = sp;
			*stage = cand[i];
		}
	}
	return 0;
}

static uint64_t reserve_of(uint64_t subtotal, double fraction)
{
	return (uint64_t)ceil(fraction * (double)subtotal);
}

/* One model state of a rank: the dense parameters sharded over dp, the
 * routed-expert parameters over the expert-data-parallel group dp / ep. */
static int states_bytes(const struct dc_stage_params *p, uint64_t bytes_per_param, uint64_t dp,
			uint64_t ep, int sharded, uint64_t *out)
{
	uint64_t dense, experts;
	uint64_t edp = ep > 1 && dp % ep == 0 ? dp / ep : dp;
	if (dc_state_bytes(p->total - p->expert_params, bytes_per_param, dp, sharded, &dense) != 0 ||
	    dc_state_bytes(p->expert_params, bytes_per_param, edp, sharded, &experts) != 0)
		return -1;
	return dc_add_u64(dense, experts, out);
}

int dc_memory_stage(const struct dc_config *cfg, uint64_t stage, struct dc_mem_ledger *l,
		    const char *name, struct dc_diag *diag)
{
	const struct dc_parallel *par = &cfg->parallel;
	const struct dc_precision *pr = &cfg->precision;
	enum dc_sharding sh = par->sharding;
	uint64_t dp = par->dp, act_layer = 0, grads_full;
	struct dc_ck c = {0};
	int bad = 0;

	memset(l, 0, sizeof(*l));
	l->stage_first = l->stage_last = stage;
	if (dc_stage_params_compute(cfg, stage, &l->p) != 0) {
		dc_diag_error(diag, DC_ERR_CONFIG,
			      "%s: error: 'model' / 'parallel.tp': parameters per rank overflow 64 bits", name);
		return -1;
	}

	/* model states (ZeRO section 5): none < zero1 (master, optimizer) <
	 * zero2 (+ grads) < fsdp (+ params). Routed experts are replicated
	 * only over the expert-data-parallel group, dp / ep ranks, so their
	 * states shard over that (Megatron-Core's distributed optimizer) */
	bad |= states_bytes(&l->p, pr->param_bytes, dp, par->ep, sh == DC_SHARD_FSDP, &l->params_bytes);
	bad |= states_bytes(&l->p, pr->grad_bytes, dp, par->ep, sh >= DC_SHARD_ZERO2, &l->grads_bytes);
	bad |= states_bytes(&l->p, pr->master_bytes, dp, par->ep, sh >= DC_SHARD_ZERO1, &l->master_bytes);
	bad |= states_bytes(&l->p, pr->optimizer_bytes, dp, par->ep, sh >= DC_SHARD_ZERO1,
			    &l->optimizer_bytes);
	l->model_states_bytes = dc_ck_add(&c, dc_ck_add(&c, l->params_bytes, l->grads_bytes),
				    dc_ck_add(&c, l->master_bytes, l->optimizer_bytes));
	if (bad || c.overflow) {
		dc_diag_error(diag, DC_ERR_CONFIG,
			      "%s: error: 'model' x 'precision': model-state bytes per rank overflow 64 bits",
			      name);
		return -1;
	}

	/* activations: an assumption, per layer per microbatch on this rank
	 * (activation.h: Korthikanti et al. 2022, with recompute, SP and the
	 * pipeline schedule) */
	l->in_flight = dc_pipeline_in_flight(par->pp, stage, cfg->training.grad_accum_steps);
	if (cfg->memory.activation_explicit) {
		double tokens = (double)cfg->training.micro_batch_size * (double)cfg->model.seq_length;
		double v = ceil(cfg->memory.activation_bytes_per_token_per_layer * tokens);
		if (!(v >= 0) || v >= DC_MAX_EXACT_INT)
			bad = 1;
		else
			act_layer = (uint64_t)v;
	} else {
		/* dense and MoE layers keep different activations: the stage's
		 * per-layer figure is their average over the layers it holds */
		uint64_t dense_act = 0, moe_act = 0, sum;
		bad = dc_act_layer_bytes(cfg, 0, &dense_act);
		if (l->p.moe_layers)
			bad |= dc_act_layer_bytes(cfg, 1, &moe_act);
		sum = dc_ck_add(&c, dc_ck_mul(&c, l->p.layers - l->p.moe_layers, dense_act),
				dc_ck_mul(&c, l->p.moe_layers, moe_act));
		act_layer = l->p.layers ? dc_ceil_div(sum, l->p.layers) : dense_act;
	}
	bad |= dc_act_layer_microbatches(cfg, stage, &l->activation_layer_microbatches);
	bad |= dc_act_recompute_working_bytes(cfg, l->p.moe_layers > 0, &l->activation_recompute_bytes);
	if (stage == 0) {
		bad |= dc_act_embedding_bytes(cfg, &l->activation_embedding_bytes);
		l->activation_embedding_bytes =
			dc_ck_mul(&c, l->activation_embedding_bytes, dc_act_first_stage_microbatches(cfg));
	}
	if (stage == par->pp - 1)
		bad |= dc_act_output_bytes(cfg, &l->activation_output_bytes);
	l->activation_bytes_per_layer = act_layer;
	l->activation_layers_bytes = dc_ck_mul(&c, act_layer, l->activation_layer_microbatches);
	l->activations_bytes = dc_ck_add(&c, dc_ck_add(&c, l->activation_layers_bytes, l->activation_embedding_bytes),
				   l->activation_output_bytes);
	if (bad || c.overflow) {
		dc_diag_error(diag, DC_ERR_CONFIG,
			      "%s: error: 'memory.activation_bytes_per_token_per_layer' / 'training.micro_batch_size' x 'model.seq_length': activation bytes overflow 64 bits",
			      name);
		return -1;
	}

	/* FSDP2 lifecycle: AllGather before forward, free after it when
	 * reshard_after_forward, AllGather before backward, ReduceScatter
	 * grads. The root unit (embedding, final norm, head: what is left
	 * after wrapping each layer) never reshards after forward: "the root
	 * FSDP state has its value specially set to False" (fully_shard) */
	if (sh == DC_SHARD_FSDP && dp > 1) { /* one rank shards nothing and gathers nothing */
		uint64_t resident;
		if (par->fsdp_unit == DC_FSDP_UNIT_MODEL) {
			l->fsdp_unit_params = l->p.total;
			resident = dc_ck_mul(&c, l->p.total, pr->param_bytes);
			l->fsdp_unsharded_grads_bytes = dc_ck_mul(&c, l->p.total, pr->grad_bytes);
		} else {
			uint64_t window = l->p.layers < 2 ? l->p.layers : 2;
			l->fsdp_unit_params = l->p.layer_params;
			/* the root, the layer computing now and the prefetched next */
			resident = dc_ck_mul(&c, dc_ck_add(&c, l->p.other_params,
							   dc_ck_mul(&c, window, l->p.layer_params)),
					     pr->param_bytes);
			l->fsdp_unsharded_grads_bytes =
				dc_ck_mul(&c, max_u64(l->p.layer_params, l->p.other_params), pr->grad_bytes);
		}
		l->fsdp_backward_params_bytes = resident;
		/* without resharding every unit stays gathered from forward on */
		l->fsdp_forward_params_bytes =
			par->reshard_after_forward ? resident : dc_ck_mul(&c, l->p.total, pr->param_bytes);
		if (!par->reshard_after_forward)
			l->fsdp_backward_params_bytes = l->fsdp_forward_params_bytes;
	}

	/* buffers: two DDP buckets in flight (one reducing, one filling),
	 * never more than the gradients themselves */
	grads_full = dc_ck_mul(&c, l->p.total, pr->grad_bytes);
	if (sh != DC_SHARD_FSDP && dp > 1) {
		uint64_t two = dc_ck_mul(&c, 2, par->bucket_bytes);
		l->ddp_buckets_bytes = two < grads_full ? two : grads_full;
	}
	l->comm_buffers_bytes = cfg->memory.comm_buffer_bytes;
	l->cuda_context_bytes = cfg->memory.cuda_context_bytes;
	l->workspace_bytes = cfg->memory.workspace_bytes;
	l->buffers_bytes = dc_ck_add(&c, dc_ck_add(&c, l->ddp_buckets_bytes, l->comm_buffers_bytes),
			       max_u64(l->fsdp_forward_params_bytes,
				       dc_ck_add(&c, l->fsdp_backward_params_bytes, l->fsdp_unsharded_grads_bytes)));

	/* peak by phase */
	{
		uint64_t base = dc_ck_add(&c, dc_ck_add(&c, l->model_states_bytes, l->comm_buffers_bytes),
				    dc_ck_add(&c, l->cuda_context_bytes, l->workspace_bytes));
		uint64_t *sub = l->phase_subtotal_bytes;
		sub[DC_MEM_FORWARD] = dc_ck_add(&c, dc_ck_add(&c, base, l->activations_bytes), l->fsdp_forward_params_bytes);
		sub[DC_MEM_BACKWARD] =
			dc_ck_add(&c, dc_ck_add(&c, dc_ck_add(&c, base, l->activations_bytes), l->ddp_buckets_bytes),
			    dc_ck_add(&c, dc_ck_add(&c, l->fsdp_backward_params_bytes, l->fsdp_unsharded_grads_bytes),
				l->activation_recompute_bytes));
		sub[DC_MEM_OPTIMIZER] = base;
		sub[DC_MEM_CHECKPOINT] = base;
		for (int ph = 0; ph < DC_MEM_PHASE_COUNT; ph++) {
			l->phase_reserve_bytes[ph] = reserve_of(sub[ph], cfg->memory.allocator_reserve);
			l->phase_bytes[ph] = dc_ck_add(&c, sub[ph], l->phase_reserve_bytes[ph]);
			if (ph == 0 || l->phase_bytes[ph] > l->peak_bytes) {
				l->peak_bytes = l->phase_bytes[ph];
				l->peak_phase = (enum dc_mem_phase)ph;
			}
		}
	}
	if (c.overflow) {
		dc_diag_error(diag, DC_ERR_CONFIG,
			      "%s: error: 'memory' / 'parallel.bucket_size': per-rank memory overflows 64 bits",
			      name);
		return -1;
	}
	l->fits = l->peak_bytes <= cfg->cluster.gpu_mem_bytes;
	if (l->fits)
		l->headroom_bytes = cfg->cluster.gpu_mem_bytes - l->peak_bytes;
	else
		l->shortfall_bytes = l->peak_bytes - cfg->cluster.gpu_mem_bytes;
	return 0;
}

/* Two ledgers are the same class when everything but the stage range agrees. */
static int same_ledger(const struct dc_mem_ledger *a, const struct dc_mem_ledger *b)
{
	struct dc_mem_ledger x, y;
	memcpy(&x, a, sizeof(x));
	memcpy(&y, b, sizeof(y));
	x.stage_first = x.stage_last = y.stage_first = y.stage_last = 0;
	return memcmp(&x, &y, sizeof(x)) == 0;
}

int dc_memory_compute(const struct dc_config *cfg, struct dc_mem_ledger *classes,
		      uint64_t *nclasses, uint64_t *most_loaded, const char *name,
		      struct dc_diag *diag)
{
	uint64_t n = 0;
	struct dc_mem_ledger l;

	*nclasses = 0;
	*most_loaded = 0;
	for (uint64_t s = 0; s < cfg->parallel.pp; s++) {
		if (dc_memory_stage(cfg, s, &l, name, diag) != 0)
			return -1;
		if (n > 0 && same_ledger(&classes[n - 1], &l)) {
			classes[n - 1].stage_last = s;
			continue;
		}
		classes[n++] = l;
	}
	for (uint64_t i = 1; i < n; i++)
		if (classes[i].peak_bytes > classes[*most_loaded].peak_bytes)
			*most_loaded = i;
	*nclasses = n;
	return 0;
}

const char *dc_mem_phase_name(enum dc_mem_phase p)
{
	static const char *const names[] = {"forward", "backward", "optimizer_step", "checkpoint_save"};
	return names[p];
}
