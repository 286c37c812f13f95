/* memory.c - the per-rank memory ledger; see memory.h and
 * docs/formulas-systems.md, "Memory ledger". */
#include "distcalc/memory.h"


#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "distcalc/activation.h"
#include "distcalc/axis.h"
#include "distcalc/checkpoint.h"
#include "distcalc/framework.h"
#include "distcalc/memo_verify.h"
#include "distcalc/params.h"
#include "distcalc/plan.h"
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

/* The MTP modules' embedding: Megatron-Core builds a LanguageModelEmbedding
 * on every model chunk that runs the modules as well as on the first
 * (megatron/core/models/gpt/gpt_model.py:173-181 at d98e8a64, `pre_process
 * or mtp_process`; each virtual chunk its own GPTModel), so a chunk that
 * holds them and not the model's first layer allocates a second
 * vocabulary-parallel table, V h / tp, and the learned position table
 * whole where the model has one (language_model_embedding.py:47-78). It
 * is a parameter like any other there: zero-filled, then all-reduced with
 * the first stage's (language_module.py:253-314), its gradient in the
 * data-parallel buffers and the optimizer's shards, kept in step with the
 * first stage's by the embedding group's AllReduce. Without a pipeline
 * the one chunk holds both and the table is one. The same holds under a
 * tied head: its output layer's weight is allocated as well (pre_process
 * false: gpt_model.py:289-290), unused. The table's parameters on such a
 * chunk, 0 without the modules; the caller checks position_overflow. */
static uint64_t mtp_embedding(const struct dc_plan *pl, struct dc_ck *c)
{
	const struct dc_plan_shard *sh = &pl->shard;
	return pl->in->model.mtp_layers ? dc_ck_add(c, sh->embedding, sh->position) : 0;
}

int dc_stage_params_compute(const struct dc_plan *pl, uint64_t stage, struct dc_stage_params *p)
{
	const struct dc_model *m = &pl->in->model;
	const struct dc_plan_shard *sh = &pl->shard;
	uint64_t tp = pl->layout.tp, pp = pl->layout.pp, lin = 0, lin_moe = 0;
	struct dc_ck c = {0};

	memset(p, 0, sizeof(*p));
	p->layers = dc_plan_stage_layers(pl, stage);
	if (m->params_explicit) {
		/* an explicit count carries no shape: split it evenly over tp x pp,
		 * or, over uneven stages, by each stage's share of the layers */
		if (pl->runs.n > 1)
			p->total = dc_ceil_div(dc_ck_mul(&c, m->params, p->layers), dc_ck_mul(&c, tp, m->num_layers));
		else
			p->total = dc_ceil_div(m->params, dc_ck_mul(&c, tp, pp));
		p->layer_params = p->layers ? dc_ceil_div(p->total, p->layers) : p->total;
		p->dense_layers = p->layers;
		return c.overflow ? -1 : 0;
	}
	if (sh->overflow)
		return -1;
	p->dense_layers = dc_plan_stage_dense_layers(pl, stage);
	p->moe_layers = p->layers - p->dense_layers;
	p->layer_params = max_u64(p->dense_layers ? sh->dense_layer : 0, p->moe_layers ? sh->moe_layer : 0);
	p->expert_params = dc_ck_mul(&c, sh->layer_experts, p->moe_layers);
	if (m->full_attention_interval) {
		/* the stage's Gated DeltaNet layers, MoE ones first */
		lin = p->layers - dc_plan_stage_every(pl, stage, m->full_attention_interval);
		lin_moe = lin < p->moe_layers ? lin : p->moe_layers;
		p->layer_params = max_u64(p->layer_params, max_u64(lin > lin_moe ? sh->linear_dense_layer : 0,
								     lin_moe ? sh->linear_moe_layer : 0));
	}
	if (stage == 0) { /* and the learned position table, whole (GPT-2) */
		if (sh->position_overflow)
			return -1;
		p->other_params = dc_ck_add(&c, sh->embedding, sh->position);
	}
	if (stage == pp - 1) {
		p->other_params = dc_ck_add(&c, p->other_params, pl->parts.norm); /* final norm */
		/* the MTP modules follow the last layer (DeepSeek-V3 section 2.2) */
		p->other_params = dc_ck_add(&c, p->other_params, sh->mtp - sh->mtp_experts);
		p->expert_params = dc_ck_add(&c, p->expert_params, sh->mtp_experts);
		/* an untied head; a tied one is copied to the last stage when pp > 1 */
		if (!m->tie_word_embeddings || pp > 1)
			p->other_params = dc_ck_add(&c, p->other_params, sh->embedding);
		/* the MTP modules' own embedding, off the first stage */
		if (m->mtp_layers && pp > 1) {
			if (sh->position_overflow)
				return -1;
			p->other_params = dc_ck_add(&c, p->other_params, mtp_embedding(pl, &c));
		}
	}
	p->total = dc_ck_add(&c,
			     dc_ck_add(&c, dc_ck_mul(&c, p->dense_layers - (lin - lin_moe), sh->dense_layer),
				       dc_ck_mul(&c, p->moe_layers - lin_moe, sh->moe_layer)),
			     p->other_params);
	p->total = dc_ck_add(&c, p->total,
			     dc_ck_add(&c, dc_ck_mul(&c, lin - lin_moe, sh->linear_dense_layer),
				       dc_ck_mul(&c, lin_moe, sh->linear_moe_layer)));
	/* the MTP's experts, counted in other_params' place above */
	if (stage == pp - 1)
		p->total = dc_ck_add(&c, p->total, sh->mtp_experts);
	return c.overflow ? -1 : 0;
}

int dc_stage_params_most_loaded(const struct dc_plan *pl, struct dc_stage_params *p, uint64_t *stage)
{
	/* a segment's stages hold the same parameters: its first stage stands
	 * for all of them, and the first stage with the most is a segment's
	 * first */
	memset(p, 0, sizeof(*p));
	*stage = 0;
	for (uint64_t i = 0; i < pl->nsegments; i++) {
		const struct dc_stage_params *sp = &pl->segment_params[i];
		if (pl->segment_overflow[i])
			return -1;
		if (i == 0 || sp->total > p->total) {
			*p = *sp;
			*stage = pl->segment_first[i];
		}
	}
	return 0;
}

uint64_t dc_mem_reserve_bytes(uint64_t subtotal, double fraction)
{
	double x = fraction * (double)subtotal;
	uint64_t bits;
	int64_t t;
	/* +0 <= x < 2^52 (the bit patterns below 2^52's): its ceiling from
	 * the truncation, exact there, as the library's would give it, in a
	 * fraction of the instructions (every ledger rounds three) */
	memcpy(&bits, &x, sizeof(bits));
	if (bits >= 0x4330000000000000ull)
		return (uint64_t)ceil(x);
	t = (int64_t)x;
	return (uint64_t)t + ((double)t < x ? 1 : 0);
}

static uint64_t reserve_of(uint64_t subtotal, double fraction)
{
	return dc_mem_reserve_bytes(subtotal, fraction);
}

/* One model state of a rank: the dense parameters and the routed
 * experts' each split as the axes shard that state (axis.h). */
static int states_bytes(const struct dc_stage_params *p, uint64_t bytes_per_param, const struct dc_state_shards *sh,
			enum dc_state st, uint64_t *out)
{
	uint64_t dense, experts;
	if (dc_state_bytes(p->total - p->expert_params, bytes_per_param, sh->dense[st], 1, &dense) != 0 ||
	    dc_state_bytes(p->expert_params, bytes_per_param, sh->expert[st], 1, &experts) != 0)
		return -1;
	return dc_add_u64(dense, experts, out);
}

/* The parameters of one rank of pipeline rank `stage` under the plan's
 * schedule: the plan's stage (dc_stage_params_compute), but for DualPipe
 * (stage s and stage pp - 1 - s: twice a stage, DeepSeek-V3 section
 * 3.2.1) and DualPipeV (chunks s and 2pp - 1 - s of 2pp: the embedding
 * and the head both on rank 0, a tied head sharing the embedding's
 * table as without a pipeline). Returns 0, or -1 on overflow. */
int dc_memory_rank_params(const struct dc_plan *pl, uint64_t stage, struct dc_stage_params *out)
{
	enum dc_pipe_schedule s = dc_pipeline_schedule(pl);
	const struct dc_plan_shard *sh = &pl->shard;
	const struct dc_model *m = &pl->in->model;
	struct dc_ck c = {0};
	uint64_t lin = 0, lin_moe, mtp_experts = 0;
	if (s == DC_PIPE_DUALPIPE) {
		const struct dc_stage_params *a = dc_plan_stage_params(pl, stage);
		const struct dc_stage_params *b = dc_plan_stage_params(pl, pl->layout.pp - 1 - stage);
		if (!a || !b)
			return -1;
		out->layers = a->layers + b->layers;
		out->dense_layers = a->dense_layers + b->dense_layers;
		out->moe_layers = a->moe_layers + b->moe_layers;
		out->layer_params = max_u64(a->layer_params, b->layer_params);
		out->expert_params = dc_ck_add(&c, a->expert_params, b->expert_params);
		out->other_params = dc_ck_add(&c, a->other_params, b->other_params);
		out->total = dc_ck_add(&c, a->total, b->total);
		if (stage == 0 || stage == pl->layout.pp - 1) {
			/* the end ranks hold the embedding and the head together:
			 * a tied head is the embedding's table, and the MTP modules
			 * read it too, not copies of it (DeepSeek-V3 section 3.2.1:
			 * DualPipe puts them on one rank to share them), as
			 * DualPipeV's rank 0 below */
			uint64_t twice = m->tie_word_embeddings ? sh->embedding : 0;
			if (m->mtp_layers && !sh->position_overflow)
				twice = dc_ck_add(&c, twice, mtp_embedding(pl, &c));
			if (!m->params_explicit && twice <= out->other_params) {
				out->other_params -= twice;
				out->total -= twice;
			}
		}
		return c.overflow ? -1 : 0;
	}
	if (s != DC_PIPE_DUALPIPEV) {
		const struct dc_stage_params *a = dc_plan_stage_params(pl, stage);
		if (!a)
			return -1;
		*out = *a;
		return 0;
	}
	memset(out, 0, sizeof(*out));
	if (m->params_explicit || sh->overflow || sh->position_overflow) {
		/* no shape: the stage's even share (the plan's) */
		const struct dc_stage_params *a = dc_plan_stage_params(pl, stage);
		if (!a || sh->overflow || sh->position_overflow)
			return -1;
		*out = *a;
		return 0;
	}
	for (uint64_t k = 0; k < 2; k++) {
		struct dc_pipeline_chunk ch;
		uint64_t d;
		dc_pipeline_chunk(pl, stage, k, &ch);
		d = dc_plan_dense_in(pl, ch.first_layer, ch.layers);
		out->layers += ch.layers;
		out->dense_layers += d;
		if (m->full_attention_interval)
			lin += ch.layers - dc_params_every(ch.first_layer, ch.layers, m->full_attention_interval);
		if (ch.embedding)
			out->other_params = dc_ck_add(&c, out->other_params, dc_ck_add(&c, sh->embedding, sh->position));
		if (ch.head) {
			out->other_params = dc_ck_add(&c, out->other_params, pl->parts.norm);
			if (!m->tie_word_embeddings) /* a tied head is the embedding's table, here on the same rank */
				out->other_params = dc_ck_add(&c, out->other_params, sh->embedding);
			/* the MTP modules after the last layer, and on a chunk
			 * other than the embedding's their own embedding */
			out->other_params = dc_ck_add(&c, out->other_params, sh->mtp - sh->mtp_experts);
			mtp_experts = sh->mtp_experts;
			if (!ch.embedding)
				out->other_params = dc_ck_add(&c, out->other_params, mtp_embedding(pl, &c));
		}
	}
	out->moe_layers = out->layers - out->dense_layers;
	lin_moe = lin < out->moe_layers ? lin : out->moe_layers;
	out->layer_params =
		max_u64(out->dense_layers ? sh->dense_layer : 0, out->moe_layers ? sh->moe_layer : 0);
	out->expert_params = dc_ck_add(&c, dc_ck_mul(&c, sh->layer_experts, out->moe_layers), mtp_experts);
	out->total = dc_ck_add(&c,
			       dc_ck_add(&c, dc_ck_mul(&c, out->dense_layers - (lin - lin_moe), sh->dense_layer),
					 dc_ck_mul(&c, out->moe_layers - lin_moe, sh->moe_layer)),
			       dc_ck_add(&c, out->other_params, mtp_experts));
	out->total = dc_ck_add(&c, out->total,
			       dc_ck_add(&c, dc_ck_mul(&c, lin - lin_moe, sh->linear_dense_layer),
					 dc_ck_mul(&c, lin_moe, sh->linear_moe_layer)));
	return c.overflow ? -1 : 0;
}

/* What `dense` dense and `moe` MoE layers of one model chunk, from model
 * layer `first`, keep for one microbatch each, its first recompute_layers
 * recomputed under full recompute (dense first: they come first in the
 * model; MoE every n-th layer: counted, dc_plan_dense_in); chunks_kept_held
 * weighs each chunk by its microbatches in flight. */
static uint64_t chunk_kept_sum(const struct dc_plan *pl, uint64_t first, uint64_t dense, uint64_t moe,
			       const struct dc_act_plan *x, struct dc_ck *c)
{
	uint64_t n = pl->in->training.recompute_layers, r, rd;
	if (pl->in->training.recompute != DC_RECOMPUTE_FULL || n == 0)
		return dc_ck_add(c, dc_ck_mul(c, dense, x->kept[0]), dc_ck_mul(c, moe, x->kept[1]));
	r = n < dense + moe ? n : dense + moe;
	rd = dc_plan_moe_interleaved(pl) ? dc_plan_dense_in(pl, first, r) : r < dense ? r : dense;
	return dc_ck_add(c, dc_ck_mul(c, r, x->input_bytes),
			 dc_ck_add(c, dc_ck_mul(c, dense - rd, x->all[0]), dc_ck_mul(c, moe - (r - rd), x->all[1])));
}

/* What the layers of rank `stage` keep: each model chunk's layers, by
 * kind (dense, MoE) and recompute, times that chunk's microbatches in
 * flight (dc_pipeline_in_flight_chunk: the chunks of an interleaved or a
 * DualPipe rank hold different counts, and a rank's chunks can hold
 * different kinds, DeepSeek-V3's dense first layers in chunk 0), summed
 * exactly; *one: the same layers for one microbatch each (ZB-H1's whole
 * microbatch). Without a pipeline the one chunk holds one microbatch. */
static uint64_t chunks_kept_held(const struct dc_plan *pl, uint64_t stage, const struct dc_act_plan *x,
				 uint64_t *one, struct dc_ck *c)
{
	uint64_t sum = 0, chunks = dc_pipeline_chunks(pl);
	*one = 0;
	for (uint64_t k = 0; k < chunks; k++) {
		struct dc_pipeline_chunk ch;
		uint64_t d, kept;
		dc_pipeline_chunk(pl, stage, k, &ch);
		/* no shape: every layer counts as dense (plan.c) */
		d = pl->in->model.params_explicit ? ch.layers : dc_plan_dense_in(pl, ch.first_layer, ch.layers);
		kept = chunk_kept_sum(pl, ch.first_layer, d, ch.layers - d, x, c);
		*one = dc_ck_add(c, *one, kept);
		sum = dc_ck_add(c, sum, dc_ck_mul(c, dc_pipeline_in_flight_chunk(pl, stage, k), kept));
	}
	return sum;
}

#ifdef DISTCALC_VERIFY_MEMOS
/* act_part's one-kind product against the chunk walk it stands for */
static void uniform_kept_verify(const struct dc_plan *pl, uint64_t stage, const struct dc_act_plan *x,
				uint64_t held, uint64_t one)
{
	struct dc_ck c = {0};
	uint64_t w_one, w = chunks_kept_held(pl, stage, x, &w_one, &c);
	if (!c.overflow && (w != held || w_one != one)) {
		fprintf(stderr, "distcalc: memo verify: act_part's one-kind activations %llu (one microbatch %llu) against the chunk walk's %llu (%llu), stage %llu\n",
			(unsigned long long)held, (unsigned long long)one, (unsigned long long)w, (unsigned long long)w_one,
			(unsigned long long)stage);
		abort();
	}
}
#endif

/* Under FSDP with a pipeline (pp > 1) PyTorch's pipelining schedules,
 * torchtitan's only pipeline, run every microbatch but the last with
 * resharding after backward and the gradient sync off
 * (torch.distributed.pipelining stage.py, backward_maybe_with_nosync:
 * set_reshard_after_backward(False), set_requires_gradient_sync(False)),
 * then reduce-scatter once after the last backward: each unit stays
 * gathered from its first backward on and its unsharded gradient
 * accumulates there, the whole stage's across the microbatches. */
static int fsdp_holds_stage(const struct dc_plan *pl)
{
	return pl->layout.sharding == DC_SHARD_FSDP && pl->layout.pp > 1;
}

/* Does rank `stage` run a forward after one of its backwards, so that
 * what a backward leaves behind meets a forward? Under 1F1B the w warm-up
 * forwards are followed by m - w forward-backward pairs: a forward
 * follows a backward from the second pair on, m - w >= 2. */
static int forward_after_backward(const struct dc_plan *pl, uint64_t stage)
{
	uint64_t pp = pl->layout.pp, m = dc_layout_schedule_m(&pl->layout), v = pl->v;
	switch (dc_pipeline_schedule(pl)) {
	case DC_PIPE_INTERLEAVED:
		return 2 * (pp - stage - 1) + (v - 1) * pp + 2 <= m * v;
	case DC_PIPE_DUALPIPE:
	case DC_PIPE_DUALPIPEV:
		return 1; /* the overlapped pairs run forward and backward together */
	case DC_PIPE_1F1B:
	case DC_PIPE_ZERO_BUBBLE:
		break;
	}
	return pp - stage - 1 + 2 <= m;
}

/* Whether the ranks of `stage` hold the embedding's chunk and the head's
 * (DualPipe: both end ranks; DualPipeV: rank 0; interleaved: the first
 * stage's chunk 0 and the last stage's chunk v - 1, activation.c) */
static void rank_ends(const struct dc_plan *pl, uint64_t stage, int *has_embedding, int *has_head)
{
	int emb = 0, head = 0;
	uint64_t chunks = dc_pipeline_chunks(pl);
	if (chunks > 1 && dc_pipeline_schedule(pl) == DC_PIPE_INTERLEAVED) {
		emb = stage == 0;
		head = stage + 1 == pl->layout.pp;
		chunks = 0;
	}
	for (uint64_t k = 0; k < chunks; k++) {
		struct dc_pipeline_chunk ch;
		dc_pipeline_chunk(pl, stage, k, &ch);
		emb |= ch.embedding;
		head |= ch.head;
	}
	*has_embedding = emb;
	*has_head = head;
}

/* The ledger's activation part on `stage` (its in_flight and
 * activation_* members and activations_bytes, from l->p): what no
 * sharding changes. Returns 0, or -1 on overflow. */
static int act_part(const struct dc_plan *pl, uint64_t stage, struct dc_mem_ledger *l)
{
	const struct dc_act_plan *x = &pl->act;
	const struct dc_config *cfg = pl->in;
	uint64_t act_layer = 0, one_mb = 0;
	struct dc_ck c = {0};
	int bad = 0, has_embedding, has_head;

	/* only on some stages */
	l->activation_embedding_bytes = l->activation_output_bytes = 0;
	/* an assumption, per layer per microbatch on this rank
	 * (activation.h: Korthikanti et al. 2022, with recompute, SP and the
	 * pipeline schedule) */
	/* the interleaved schedule's count is its chunk-microbatches
	 * (activation_layer_microbatches); in_flight keeps 1F1B's warm-up
	 * count there, which the plan's rank classes key on (plan.c,
	 * derive_classes: a flat region of pp - m stages) */
	l->in_flight = dc_pipeline_schedule(pl) == DC_PIPE_INTERLEAVED
			       ? dc_pipeline_in_flight(pl->layout.pp, stage, dc_layout_schedule_m(&pl->layout))
			       : dc_pipeline_chunks_in_flight(pl, stage);
	bad |= dc_act_layer_microbatches(pl, stage, &l->activation_layer_microbatches);
	if (cfg->memory.activation_explicit) {
		bad |= x->explicit_bad;
		act_layer = x->explicit_bytes;
		l->activation_layers_bytes = dc_ck_mul(&c, act_layer, l->activation_layer_microbatches);
		one_mb = dc_ck_mul(&c, act_layer, l->p.layers);
	} else {
		/* dense and MoE layers keep different activations, and a rank's
		 * chunks hold different microbatches: each chunk's layers at its
		 * own count; the per-layer figure is their average over the
		 * layer-microbatches, rounded up */
		uint64_t mbs = l->activation_layer_microbatches;
		int kind = !cfg->model.params_explicit && l->p.moe_layers && l->p.moe_layers >= l->p.layers;
		bad |= x->kept_bad[0] | (l->p.moe_layers ? x->kept_bad[1] : 0);
		if ((l->p.moe_layers == 0 || kind) &&
		    (cfg->training.recompute != DC_RECOMPUTE_FULL || cfg->training.recompute_layers == 0)) {
			/* every layer of the stage one kind, none recomputed apart:
			 * each chunk's layers x its count sum to the
			 * layer-microbatches, so the chunk walk's sum is this
			 * product (a search's most common case, in O(1)) */
			l->activation_layers_bytes = dc_ck_mul(&c, x->kept[kind], mbs);
			one_mb = dc_ck_mul(&c, x->kept[kind], l->p.layers);
			DC_MEMO_VERIFY(uniform_kept_verify(pl, stage, x, l->activation_layers_bytes, one_mb));
		} else {
			l->activation_layers_bytes = chunks_kept_held(pl, stage, x, &one_mb, &c);
		}
		act_layer = mbs ? dc_ceil_div(l->activation_layers_bytes, mbs) : x->kept[0];
	}
	bad |= x->kept_bad[l->p.moe_layers > 0];
	l->activation_recompute_bytes = x->rebuilt[l->p.moe_layers > 0];
	l->activation_head_backward_bytes = 0;
	rank_ends(pl, stage, &has_embedding, &has_head);
	if (has_embedding) {
		bad |= x->embedding_bad;
		l->activation_embedding_bytes = x->embedding_bytes;
	}
	if (has_head) {
		bad |= x->output_bad;
		l->activation_output_bytes = x->output_bytes;
		l->activation_head_backward_bytes = x->head_backward_bytes;
	}
	l->activation_bytes_per_layer = act_layer;
	l->activations_bytes = dc_ck_add(&c, dc_ck_add(&c, l->activation_layers_bytes, l->activation_embedding_bytes),
				   l->activation_output_bytes);
	l->activation_wgrad_bytes_per_microbatch = l->activation_wgrad_microbatches = l->activation_wgrad_bytes = 0;
	if (dc_pipeline_schedule(pl) == DC_PIPE_ZERO_BUBBLE && pl->layout.pp > 1) {
		/* ZB-H1 defers stage s's weight gradients by s microbatches:
		 * one microbatch whole (what the ledger counts a layer, and the
		 * head's outputs) against what its pending W holds
		 * (activation.h, dc_pipeline_zb_deferred) */
		uint64_t whole = dc_ck_add(&c, one_mb, l->activation_output_bytes);
		uint64_t *w = &l->activation_wgrad_bytes_per_microbatch;
		bad |= x->wgrad_bad;
		*w = dc_ck_add(&c, dc_ck_mul(&c, l->p.layers - l->p.moe_layers, x->wgrad[0]),
			       dc_ck_mul(&c, l->p.moe_layers, x->wgrad[1]));
		if (has_head)
			*w = dc_ck_add(&c, *w, x->head_wgrad_bytes);
		bad |= dc_pipeline_zb_deferred(pl->layout.pp, stage, dc_layout_schedule_m(&pl->layout), whole, *w,
					       &l->activation_wgrad_microbatches, &l->activation_wgrad_bytes);
		l->activations_bytes = dc_ck_add(&c, l->activations_bytes, l->activation_wgrad_bytes);
	}

	return bad || c.overflow ? -1 : 0;
}

/* DeepSpeed ZeRO-3 under CPU offload (either parallel.offload) keeps on
 * the host, pinned by default (offload_config.py:75), the partition's
 * gradients twice (deepspeed/runtime/zero/stage3.py at edaa7221):
 * - the FP32 gradient CPU-Adam reads, one buffer a sub-group set as the
 *   FP32 master's .grad (initialize_optimizer_states, :1287-1292): 4 B
 *   an element of the master's partition, in host_grads_bytes;
 * - the gradient partitions each micro step accumulates into
 *   (grad_partitions_flat_buffer, :742-746, in the gradient-accumulation
 *   dtype, the model's by default: engine.py:1492-1493; on self.device,
 *   the CPU when offloading the optimizer, :328): the partition's
 *   elements x grad_bytes, in host_buffers_bytes. It is the rank's only
 *   persistent gradient shard, so the GPU holds none (grads_bytes 0).
 * With "optimizer+params" the 16-bit parameter partitions live in pinned
 * host buffers (param_groups_fp16_flat_cpu_memory, :857-858, pinned
 * whatever pin_memory says), host_params_bytes as for any framework.
 * So 4 + 8 + 4 + 2 = 18 B a parameter of the partition under the course
 * preset, 20 with the parameters; DeepSpeed's own estimator
 * (estimate_zero3_model_states_mem_needs, :3744-3780) says 16 and 18: it
 * leaves out the 16-bit gradient buffer. Returns 0, or -1 on overflow. */
static int zero3_host_grads(const struct dc_plan *pl, const struct dc_state_shards *shards,
			    struct dc_mem_ledger *l)
{
	int bad = states_bytes(&l->p, 4, shards, DC_STATE_MASTER, &l->host_grads_bytes);
	bad |= states_bytes(&l->p, pl->in->precision.grad_bytes, shards, DC_STATE_GRADS, &l->host_buffers_bytes);
	l->grads_bytes = 0;
	return bad;
}

/* DeepSpeed ZeRO-1/2 under CPU offload of the optimizer allocates, beside
 * the FP32 master partition, its gradient and the CPU-Adam states (the
 * ledger's host_master, host_grads, host_optimizer), host buffers in the
 * parameters' 16-bit dtype, pinned by default (offload_config.py:75, read
 * at stage_1_and_2.py:188; deepspeed/runtime/zero/stage_1_and_2.py at
 * edaa7221):
 * - the buffer the updated FP32 partition is cast into before it goes
 *   back, one a partition, shaped as the master's (:495-507; step(),
 *   :2338-2341): the master's elements x param_bytes;
 * - under ZeRO-2 with grad_accum_steps m > 1, where
 *   copy_grads_in_partition calls async_accumulate_grad_in_cpu_via_gpu
 *   (:1650-1665), a buffer of each of the partition's parameters, kept in
 *   accumulated_grads_in_cpu (:1524-1528, :1555-1556): the partition's
 *   elements x param_bytes again. A parameter that straddles the
 *   partition's edge gets a buffer of its whole size there, so this is a
 *   lower bound by at most the two edge parameters' parts outside it.
 *   ZeRO-1 never calls it (docs/step-model.md, "DeepSpeed's copies").
 * Not counted: temp_grad_buffer_for_cpu_offload (:585-590), pinned, the
 * rank's largest parameter x param_bytes, whose size depends on how the
 * model's code splits its tensors. Returns 0, or -1 on overflow. */
static int deepspeed_host_buffers(const struct dc_plan *pl, const struct dc_state_shards *shards,
				  struct dc_mem_ledger *l)
{
	const struct dc_config *cfg = pl->in;
	enum dc_sharding sh = pl->layout.sharding;
	uint64_t one = 0;
	int bad;
	l->host_buffers_bytes = 0;
	if (cfg->parallel.offload != DC_OFFLOAD_NONE && cfg->training.framework == DC_FRAMEWORK_DEEPSPEED &&
	    sh == DC_SHARD_FSDP)
		return zero3_host_grads(pl, shards, l);
	if (cfg->parallel.offload != DC_OFFLOAD_OPTIMIZER || cfg->training.framework != DC_FRAMEWORK_DEEPSPEED ||
	    (sh != DC_SHARD_ZERO1 && sh != DC_SHARD_ZERO2))
		return 0;
	bad = states_bytes(&l->p, cfg->precision.param_bytes, shards, DC_STATE_MASTER, &one);
	l->host_buffers_bytes = one;
	if (sh == DC_SHARD_ZERO2 && pl->layout.grad_accum_steps > 1 &&
	    __builtin_add_overflow(one, one, &l->host_buffers_bytes))
		bad = -1;
	return bad;
}

/* The ledger's model states from l->p (its *_bytes states, host_* and
 * model_states_bytes), sharded as `shards` says. Returns 0, or -1 on
 * overflow. */
static int states_part(const struct dc_plan *pl, const struct dc_state_shards *shards, struct dc_mem_ledger *l)
{
	const struct dc_config *cfg = pl->in;
	const struct dc_precision *pr = &cfg->precision;
	struct dc_ck c = {0};
	int bad = 0;

	/* model states (ZeRO section 5): none < zero1 (master, optimizer) <
	 * zero2 (+ grads) < fsdp (+ params). Routed experts are replicated
	 * only over the expert-data-parallel group, dp / ep ranks, so their
	 * states shard over that (Megatron-Core's distributed optimizer) */
	bad |= states_bytes(&l->p, pr->param_bytes, shards, DC_STATE_PARAMS, &l->params_bytes);
	if (dc_framework_fp8_params_spare_ends(cfg)) {
		/* the embedding and the head at 2 bytes: one more each */
		uint64_t ends;
		bad |= dc_state_bytes(l->p.other_params, 1, shards->dense[DC_STATE_PARAMS], 1, &ends) != 0 ||
		       dc_add_u64(l->params_bytes, ends, &l->params_bytes) != 0;
	}
	bad |= states_bytes(&l->p, pr->grad_bytes, shards, DC_STATE_GRADS, &l->grads_bytes);
	bad |= states_bytes(&l->p, pr->master_bytes, shards, DC_STATE_MASTER, &l->master_bytes);
	bad |= states_bytes(&l->p, pr->optimizer_bytes, shards, DC_STATE_OPTIMIZER, &l->optimizer_bytes);
	/* CPU offload: ZeRO-Offload (Ren et al. 2021, section 4.1) moves the
	 * FP32 master, the optimizer states and an FP32 copy of the gradient
	 * partition to the host and runs the step there; offloading the
	 * parameters too (FSDP CPUOffload, ZeRO-Infinity) moves the parameter
	 * and gradient shards, and the GPU keeps only the gathered working set */
	l->host_params_bytes = l->host_grads_bytes = l->host_master_bytes = l->host_optimizer_bytes = 0;
	if (cfg->parallel.offload != DC_OFFLOAD_NONE) {
		l->host_master_bytes = l->master_bytes;
		l->host_optimizer_bytes = l->optimizer_bytes;
		l->master_bytes = l->optimizer_bytes = 0;
		if (cfg->parallel.offload == DC_OFFLOAD_OPTIMIZER_PARAMS) {
			l->host_params_bytes = l->params_bytes;
			l->host_grads_bytes = l->grads_bytes;
			l->params_bytes = l->grads_bytes = 0;
		} else {
			/* the FP32 gradient copy of the master's partition: sharded
			 * exactly as the master is (over cp too) */
			bad |= states_bytes(&l->p, 4, shards, DC_STATE_MASTER, &l->host_grads_bytes);
		}
	}
	bad |= deepspeed_host_buffers(pl, shards, l);
	l->host_bytes = dc_ck_add(&c, dc_ck_add(&c, l->host_params_bytes, l->host_grads_bytes),
			      dc_ck_add(&c, l->host_master_bytes, l->host_optimizer_bytes));
	l->host_bytes = dc_ck_add(&c, l->host_bytes, l->host_buffers_bytes);
	l->model_states_bytes = dc_ck_add(&c, dc_ck_add(&c, l->params_bytes, l->grads_bytes),
				    dc_ck_add(&c, l->master_bytes, l->optimizer_bytes));
	return bad || c.overflow ? -1 : 0;
}

/* ---- the ledger memoised across a search's layouts ---- */

#define MEM_MEMO_SLOTS 8

/* What every stage's activation part reads of the plan (act_part, on a
 * plan memo_fits admits): the pipeline's shape, the schedule as
 * dc_pipeline_schedule finds it, the keys of the input it reads and the
 * plan's activation figures, compared as bytes, and where the model's
 * dense layers sit (which of a chunk's layers keep what: chunks_kept_held).
 * A slot adds the stage and what act_part reads of its parameters, its
 * layers and MoE layers. */
struct act_plan_key {
	uint64_t pp, v, gas, layers_per_stage, layers_per_chunk, num_layers, recompute_layers;
	uint64_t dense_layers, moe_layer_interval, num_experts;
	int params_explicit;
	enum dc_pipe_schedule schedule;
	enum dc_recompute recompute;
	uint32_t recompute_modules;
	int activation_explicit;
	struct dc_act_plan x;
};

/* act_part's results */
struct act_vals {
	uint64_t in_flight, layer_microbatches, per_layer, layers, embedding, output, recompute, head_backward, all;
	uint64_t wgrad_per_mb, wgrad_mbs, wgrad;
};

/* What states_part reads of the plan: the shards, the precision's bytes
 * a parameter and the offload. A slot adds what it reads of the stage's
 * parameters, their total and expert_params. */
struct states_plan_key {
	struct dc_state_shards shards;
	uint64_t param_bytes, grad_bytes, master_bytes, optimizer_bytes;
	enum dc_offload offload;
	enum dc_framework framework;
	int accumulates; /* grad_accum_steps > 1: DeepSpeed ZeRO-2's host buffers */
};

/* states_part's results */
struct states_vals {
	uint64_t params, grads, master, optimizer, model_states;
	uint64_t host_params, host_grads, host_master, host_optimizer, host_buffers, host;
};

struct dc_mem_memo {
	/* plan: the key of the slots' activation parts (have_plan: set);
	 * act_ok: the computation under way (mem_memo_bind) is of a plan
	 * memo_fits admits, with that key */
	int have_plan, act_ok;
	struct act_plan_key plan;
	struct {
		int have;
		uint64_t stage, layers, moe_layers;
		struct act_vals v;
	} slot[MEM_MEMO_SLOTS];
	/* a row a sharding, kept for the same sharding a few layouts on;
	 * row: the computation's (-1: none) */
	int row;
	struct {
		int have_key;
		struct states_plan_key key;
		struct {
			int have;
			uint64_t total, expert_params;
			struct states_vals v;
		} slot[MEM_MEMO_SLOTS];
	} states[DC_SHARD_FSDP + 1];
};

struct dc_mem_memo *dc_mem_memo_new(void)
{
	return dc_calloc(1, sizeof(struct dc_mem_memo));
}

void dc_mem_memo_free(struct dc_mem_memo *m)
{
	free(m);
}

/* 1 when act_part reads no more than the keys hold: one run, even
 * chunks, a schedule of one chunk a stage or the interleaved one (the
 * DualPipes read the chunks' layers and the model's shape) */
static int memo_fits(const struct dc_plan *pl, enum dc_pipe_schedule s)
{
	return pl->runs.n <= 1 && !pl->chunks_uneven && s != DC_PIPE_DUALPIPE && s != DC_PIPE_DUALPIPEV;
}

static int act_plan_same(const struct act_plan_key *k, const struct dc_plan *pl, enum dc_pipe_schedule s)
{
	const struct dc_config *cfg = pl->in;
	return k->pp == pl->layout.pp && k->v == pl->v && k->gas == dc_layout_schedule_m(&pl->layout) &&
	       k->layers_per_stage == pl->layers_per_stage && k->layers_per_chunk == pl->layers_per_chunk &&
	       k->num_layers == cfg->model.num_layers && k->recompute_layers == cfg->training.recompute_layers &&
	       k->dense_layers == cfg->model.dense_layers && k->moe_layer_interval == cfg->model.moe_layer_interval &&
	       k->num_experts == cfg->model.num_experts && k->params_explicit == cfg->model.params_explicit &&
	       k->schedule == s && k->recompute == cfg->training.recompute &&
	       k->recompute_modules == dc_recompute_modules(cfg) &&
	       k->activation_explicit == cfg->memory.activation_explicit && memcmp(&k->x, &pl->act, sizeof(k->x)) == 0;
}

static void act_plan_put(struct act_plan_key *k, const struct dc_plan *pl, enum dc_pipe_schedule s)
{
	memset(k, 0, sizeof(*k));
	k->pp = pl->layout.pp;
	k->v = pl->v;
	k->gas = dc_layout_schedule_m(&pl->layout);
	k->layers_per_stage = pl->layers_per_stage;
	k->layers_per_chunk = pl->layers_per_chunk;
	k->num_layers = pl->in->model.num_layers;
	k->recompute_layers = pl->in->training.recompute_layers;
	k->dense_layers = pl->in->model.dense_layers;
	k->moe_layer_interval = pl->in->model.moe_layer_interval;
	k->num_experts = pl->in->model.num_experts;
	k->params_explicit = pl->in->model.params_explicit;
	k->schedule = s;
	k->recompute = pl->in->training.recompute;
	k->recompute_modules = dc_recompute_modules(pl->in);
	k->activation_explicit = pl->in->memory.activation_explicit;
	memcpy(&k->x, &pl->act, sizeof(k->x));
}

static int states_plan_same(const struct states_plan_key *k, const struct dc_plan *pl,
			    const struct dc_state_shards *shards)
{
	const struct dc_precision *pr = &pl->in->precision;
	return k->param_bytes == pr->param_bytes && k->grad_bytes == pr->grad_bytes &&
	       k->master_bytes == pr->master_bytes && k->optimizer_bytes == pr->optimizer_bytes &&
	       k->offload == pl->in->parallel.offload && k->framework == pl->in->training.framework &&
	       k->accumulates == (pl->layout.grad_accum_steps > 1) && memcmp(&k->shards, shards, sizeof(*shards)) == 0;
}

static void states_plan_put(struct states_plan_key *k, const struct dc_plan *pl, const struct dc_state_shards *shards)
{
	const struct dc_precision *pr = &pl->in->precision;
	memset(k, 0, sizeof(*k));
	k->shards = *shards;
	k->param_bytes = pr->param_bytes;
	k->grad_bytes = pr->grad_bytes;
	k->master_bytes = pr->master_bytes;
	k->optimizer_bytes = pr->optimizer_bytes;
	k->offload = pl->in->parallel.offload;
	k->framework = pl->in->training.framework;
	k->accumulates = pl->layout.grad_accum_steps > 1;
}

/* Readies the memo for one computation of the plan's ledgers: its slots
 * stay when the plan's keys are those they were kept with, and are
 * emptied for the plan's keys when not. */
static void mem_memo_bind(struct dc_mem_memo *m, const struct dc_plan *pl, const struct dc_state_shards *shards)
{
	enum dc_pipe_schedule s = dc_pipeline_schedule(pl);
	m->act_ok = memo_fits(pl, s);
	if (m->act_ok && !(m->have_plan && act_plan_same(&m->plan, pl, s))) {
		act_plan_put(&m->plan, pl, s);
		for (int i = 0; i < MEM_MEMO_SLOTS; i++)
			m->slot[i].have = 0;
		m->have_plan = 1;
	}
	m->row = pl->layout.sharding <= DC_SHARD_FSDP ? (int)pl->layout.sharding : -1;
	if (m->row >= 0 && !(m->states[m->row].have_key && states_plan_same(&m->states[m->row].key, pl, shards))) {
		states_plan_put(&m->states[m->row].key, pl, shards);
		for (int i = 0; i < MEM_MEMO_SLOTS; i++)
			m->states[m->row].slot[i].have = 0;
		m->states[m->row].have_key = 1;
	}
}

/* The plan's memo when slot `slot` of it may serve (bound), else NULL */
static struct dc_mem_memo *memo_of(const struct dc_plan *pl, int slot)
{
	return slot >= 0 && slot < MEM_MEMO_SLOTS ? pl->mem_memo : NULL;
}

/* act_part's results from the bound memo: 1 with l's members set when
 * slot `slot` holds this stage's, else 0 */
static int act_memo_take(const struct dc_plan *pl, uint64_t stage, int slot, struct dc_mem_ledger *l)
{
	struct dc_mem_memo *m = memo_of(pl, slot);
	const struct act_vals *v;
	if (!m || !m->act_ok || !m->slot[slot].have || m->slot[slot].stage != stage ||
	    m->slot[slot].layers != l->p.layers || m->slot[slot].moe_layers != l->p.moe_layers)
		return 0;
	v = &m->slot[slot].v;
	l->in_flight = v->in_flight;
	l->activation_layer_microbatches = v->layer_microbatches;
	l->activation_bytes_per_layer = v->per_layer;
	l->activation_layers_bytes = v->layers;
	l->activation_embedding_bytes = v->embedding;
	l->activation_output_bytes = v->output;
	l->activation_recompute_bytes = v->recompute;
	l->activation_head_backward_bytes = v->head_backward;
	l->activation_wgrad_bytes_per_microbatch = v->wgrad_per_mb;
	l->activation_wgrad_microbatches = v->wgrad_mbs;
	l->activation_wgrad_bytes = v->wgrad;
	l->activations_bytes = v->all;
	return 1;
}

/* Keeps act_part's results in slot `slot` of the bound memo */
static void act_memo_put(const struct dc_plan *pl, uint64_t stage, int slot, const struct dc_mem_ledger *l)
{
	struct dc_mem_memo *m = memo_of(pl, slot);
	struct act_vals *v;
	if (!m || !m->act_ok)
		return;
	m->slot[slot].stage = stage;
	m->slot[slot].layers = l->p.layers;
	m->slot[slot].moe_layers = l->p.moe_layers;
	v = &m->slot[slot].v;
	v->in_flight = l->in_flight;
	v->layer_microbatches = l->activation_layer_microbatches;
	v->per_layer = l->activation_bytes_per_layer;
	v->layers = l->activation_layers_bytes;
	v->embedding = l->activation_embedding_bytes;
	v->output = l->activation_output_bytes;
	v->recompute = l->activation_recompute_bytes;
	v->head_backward = l->activation_head_backward_bytes;
	v->wgrad_per_mb = l->activation_wgrad_bytes_per_microbatch;
	v->wgrad_mbs = l->activation_wgrad_microbatches;
	v->wgrad = l->activation_wgrad_bytes;
	v->all = l->activations_bytes;
	m->slot[slot].have = 1;
}

/* states_part's results from the bound memo: 1 with l's members set when
 * slot `slot` of the sharding's row holds these parameters', else 0 */
static int states_memo_take(const struct dc_plan *pl, int slot, struct dc_mem_ledger *l)
{
	struct dc_mem_memo *m = memo_of(pl, slot);
	const struct states_vals *v;
	if (!m || m->row < 0 || !m->states[m->row].slot[slot].have ||
	    m->states[m->row].slot[slot].total != l->p.total ||
	    m->states[m->row].slot[slot].expert_params != l->p.expert_params)
		return 0;
	v = &m->states[m->row].slot[slot].v;
	l->params_bytes = v->params;
	l->grads_bytes = v->grads;
	l->master_bytes = v->master;
	l->optimizer_bytes = v->optimizer;
	l->model_states_bytes = v->model_states;
	l->host_params_bytes = v->host_params;
	l->host_grads_bytes = v->host_grads;
	l->host_master_bytes = v->host_master;
	l->host_optimizer_bytes = v->host_optimizer;
	l->host_buffers_bytes = v->host_buffers;
	l->host_bytes = v->host;
	return 1;
}

/* Keeps states_part's results in slot `slot` of the sharding's row */
static void states_memo_put(const struct dc_plan *pl, int slot, const struct dc_mem_ledger *l)
{
	struct dc_mem_memo *m = memo_of(pl, slot);
	struct states_vals *v;
	if (!m || m->row < 0)
		return;
	m->states[m->row].slot[slot].total = l->p.total;
	m->states[m->row].slot[slot].expert_params = l->p.expert_params;
	v = &m->states[m->row].slot[slot].v;
	v->params = l->params_bytes;
	v->grads = l->grads_bytes;
	v->master = l->master_bytes;
	v->optimizer = l->optimizer_bytes;
	v->model_states = l->model_states_bytes;
	v->host_params = l->host_params_bytes;
	v->host_grads = l->host_grads_bytes;
	v->host_master = l->host_master_bytes;
	v->host_optimizer = l->host_optimizer_bytes;
	v->host_buffers = l->host_buffers_bytes;
	v->host = l->host_bytes;
	m->states[m->row].slot[slot].have = 1;
}

#ifdef DISTCALC_VERIFY_MEMOS
/* What states_memo_take and act_memo_take set of a ledger */
static const struct dc_memo_field states_fields[] = {
	DC_MEMO_FIELD(struct dc_mem_ledger, params_bytes),
	DC_MEMO_FIELD(struct dc_mem_ledger, grads_bytes),
	DC_MEMO_FIELD(struct dc_mem_ledger, master_bytes),
	DC_MEMO_FIELD(struct dc_mem_ledger, optimizer_bytes),
	DC_MEMO_FIELD(struct dc_mem_ledger, model_states_bytes),
	DC_MEMO_FIELD(struct dc_mem_ledger, host_params_bytes),
	DC_MEMO_FIELD(struct dc_mem_ledger, host_grads_bytes),
	DC_MEMO_FIELD(struct dc_mem_ledger, host_master_bytes),
	DC_MEMO_FIELD(struct dc_mem_ledger, host_optimizer_bytes),
	DC_MEMO_FIELD(struct dc_mem_ledger, host_buffers_bytes),
	DC_MEMO_FIELD(struct dc_mem_ledger, host_bytes),
};

static const struct dc_memo_field act_fields[] = {
	DC_MEMO_FIELD(struct dc_mem_ledger, in_flight),
	DC_MEMO_FIELD(struct dc_mem_ledger, activation_layer_microbatches),
	DC_MEMO_FIELD(struct dc_mem_ledger, activation_bytes_per_layer),
	DC_MEMO_FIELD(struct dc_mem_ledger, activation_layers_bytes),
	DC_MEMO_FIELD(struct dc_mem_ledger, activation_embedding_bytes),
	DC_MEMO_FIELD(struct dc_mem_ledger, activation_output_bytes),
	DC_MEMO_FIELD(struct dc_mem_ledger, activation_recompute_bytes),
	DC_MEMO_FIELD(struct dc_mem_ledger, activation_head_backward_bytes),
	DC_MEMO_FIELD(struct dc_mem_ledger, activation_wgrad_bytes_per_microbatch),
	DC_MEMO_FIELD(struct dc_mem_ledger, activation_wgrad_microbatches),
	DC_MEMO_FIELD(struct dc_mem_ledger, activation_wgrad_bytes),
	DC_MEMO_FIELD(struct dc_mem_ledger, activations_bytes),
};

/* A ledger memo hit (l: the members it set) against states_part or
 * act_part run again on a copy of l (`act`: the activation part) */
static void mem_memo_verify(const struct dc_plan *pl, uint64_t stage, const struct dc_state_shards *shards, int act,
			    const struct dc_mem_ledger *l)
{
	static const char memo[] = "memory-ledger memo (src/est/memory.c)";
	struct dc_mem_ledger fresh = *l;
	char what[48];
	if (act) {
		snprintf(what, sizeof(what), "stage %llu's activation part", (unsigned long long)stage);
		if (act_part(pl, stage, &fresh) != 0)
			dc_memo_verify_u64(memo, what, 0, 1); /* the hit had no overflow */
		dc_memo_verify_fields(memo, what, l, &fresh, act_fields, sizeof(act_fields) / sizeof(act_fields[0]));
	} else {
		snprintf(what, sizeof(what), "stage %llu's model states", (unsigned long long)stage);
		if (states_part(pl, shards, &fresh) != 0)
			dc_memo_verify_u64(memo, what, 0, 1);
		dc_memo_verify_fields(memo, what, l, &fresh, states_fields,
				      sizeof(states_fields) / sizeof(states_fields[0]));
	}
}

void dc_mem_memo_corrupt(struct dc_mem_memo *m)
{
	for (int i = 0; i < MEM_MEMO_SLOTS; i++)
		m->slot[i].v.layers++;
}
#endif

/* Transformer Engine's FP8 weight copies on this rank (framework.h):
 * the layers' parameters on it (the rank's total but the embedding, the
 * head, the final norm and the MTP modules' own, which other_params
 * holds) less each layer's norms and each MoE layer's router, which stay
 * BF16: the attention, MLP and expert weights, with their biases (a few
 * hidden sizes a layer, which TE does not quantize) and MLA's two small
 * norms; and, on the rank that holds the head, the head (vocab-parallel,
 * V h / tp) where it runs in FP8 (precision.fp8_lm_head) and the MTP
 * modules (their routed experts are in total already, the rest in
 * other_params). With model.params (no shape) every parameter counts.
 * docs/memory-conventions.md, "FP8". */
static int fp8_weight_copies(const struct dc_plan *pl, uint64_t stage, struct dc_mem_ledger *l)
{
	struct dc_ck c = {0};
	const struct dc_stage_params *p = &l->p;
	uint64_t kept_bf16 = 0, n = p->total - p->other_params;
	int emb, head;
	if (!pl->in->model.params_explicit) {
		uint64_t norms = dc_ck_mul(&c, dc_params_layer_norms(&pl->in->model), pl->parts.norm);
		kept_bf16 = dc_ck_add(&c, dc_ck_mul(&c, p->layers, norms),
				      dc_ck_mul(&c, p->moe_layers, pl->parts.router.replicated));
	}
	l->fp8_weight_params = l->fp8_weight_copies_bytes = 0;
	if (c.overflow || kept_bf16 > n)
		return c.overflow ? -1 : 0;
	n -= kept_bf16;
	rank_ends(pl, stage, &emb, &head);
	if (head && pl->in->precision.fp8_lm_head && !pl->in->model.params_explicit)
		n = dc_ck_add(&c, n, pl->shard.embedding);
	if (head && pl->in->model.mtp_layers && !pl->in->model.params_explicit) {
		/* the MTP modules beside the head: each a layer (its experts
		 * counted above) and eh_proj, less the layer's norms, enorm,
		 * hnorm and its final norm, and its router (plan.c
		 * derive_shard) */
		const struct dc_model *m = &pl->in->model;
		uint64_t bf16 = dc_ck_mul(&c, m->mtp_layers,
					  dc_ck_add(&c, dc_ck_mul(&c, dc_params_layer_norms(m) + 3, pl->parts.norm),
						    pl->parts.router.replicated));
		uint64_t mtp = pl->shard.mtp - pl->shard.mtp_experts;
		if (bf16 <= mtp)
			n = dc_ck_add(&c, n, mtp - bf16);
	}
	if (c.overflow)
		return -1;
	if (dc_framework_fp8_weight_copies(pl, n, p->expert_params, &l->fp8_weight_copies_bytes,
					   &l->fp8_weight_params) != 0)
		return -1;
	/* under another framework's Transformer Engine (not modelled): the
	 * weights its copies would hold, for the memory section's
	 * not_modeled.fp8 (fp8_weight_copies_bytes stays 0) */
	if (!l->fp8_weight_copies_bytes && dc_framework_te_fp8(pl->in) &&
	    pl->in->training.framework != DC_FRAMEWORK_MEGATRON && pl->in->training.framework != DC_FRAMEWORK_TORCHTITAN &&
	    pl->in->precision.param_bytes > 1)
		l->fp8_weight_params = n;
	return 0;
}

/* The ledger of `stage`, its states sharded as `shards` says (the
 * plan's: dc_axis_state_shards, which reads no stage), with the memo's
 * slot `slot` (-1: none) */
static int ledger(const struct dc_plan *pl, uint64_t stage, const struct dc_state_shards *shards, int slot,
		  struct dc_mem_ledger *l, const char **error)
{
	const struct dc_config *cfg = pl->in;
	const struct dc_precision *pr = &cfg->precision;
	enum dc_sharding sh = pl->layout.sharding;
	/* states shard over dp x cp: context-parallel ranks hold the same
	 * parameters and join the data-parallel gradient sync (Megatron-Core);
	 * under HSDP over one replica's shard group, dp x cp / dp_replicate */
	uint64_t dp = pl->shard_dp_cp, grads_full;
	struct dc_ck c = {0};
	int held_grads;

	/* every member is set below; these only on some stages or layouts */
	l->fsdp_unit_params = l->fsdp_forward_params_bytes = l->fsdp_backward_params_bytes = 0;
	l->fsdp_unsharded_grads_bytes = l->ddp_buckets_bytes = 0;
	l->headroom_bytes = l->shortfall_bytes = 0;
	l->stage_first = l->stage_last = stage;
	if (dc_memory_rank_params(pl, stage, &l->p) != 0) {
		*error = "'model' / 'parallel.tp': parameters per rank overflow 64 bits";
		return -1;
	}

	/* model states: from the search's memo when it holds these
	 * (states_memo_take) */
	if (!states_memo_take(pl, slot, l)) {
		if (states_part(pl, shards, l) != 0) {
			*error = "'model' x 'precision': model-state bytes per rank overflow 64 bits";
			return -1;
		}
		states_memo_put(pl, slot, l);
	} else {
		DC_MEMO_VERIFY(mem_memo_verify(pl, stage, shards, 0, l));
	}

	/* activations: what no sharding changes, from the search's memo
	 * when it holds this stage's (act_memo_take) */
	if (!act_memo_take(pl, stage, slot, l)) {
		if (act_part(pl, stage, l) != 0) {
			*error = "'memory.activation_bytes_per_token_per_layer' / 'training.micro_batch_size' x 'model.seq_length': activation bytes overflow 64 bits";
			return -1;
		}
		act_memo_put(pl, stage, slot, l);
	} else {
		DC_MEMO_VERIFY(mem_memo_verify(pl, stage, shards, 1, l));
	}

	/* FSDP2 lifecycle (the gathered copy at precision.working_bytes, BF16
	 * under the fsdp2 preset's FP32 shards): AllGather before forward, free after it when
	 * reshard_after_forward, AllGather before backward, ReduceScatter
	 * grads. The root unit (embedding, final norm, head: what is left
	 * after wrapping each layer) never reshards after forward: "the root
	 * FSDP state has its value specially set to False" (fully_shard) */
	if (sh == DC_SHARD_FSDP && dp > 1) { /* one rank shards nothing and gathers nothing */
		const struct dc_parallel *par = &cfg->parallel;
		uint64_t resident;
		if (par->fsdp_unit == DC_FSDP_UNIT_MODEL) {
			l->fsdp_unit_params = l->p.total;
			resident = dc_ck_mul(&c, l->p.total, pr->working_bytes);
			l->fsdp_unsharded_grads_bytes = dc_ck_mul(&c, l->p.total, pr->grad_bytes);
		} else {
			uint64_t window = l->p.layers < 2 ? l->p.layers : 2;
			/* torchtitan's embedding unit (its own, resharded with
			 * the layers): gathered before the first layer's forward
			 * and after the first layer's backward, never beside
			 * the head at either peak, so what stays gathered is the
			 * rest of the root ([norm, lm_head]; src/axis/fsdp.c
			 * root_units), the larger of the two */
			uint64_t emb = dc_framework_reshard_after_forward(pl)
					       ? dc_framework_fsdp_embedding_unit(pl, stage, l->p.other_params)
					       : 0;
			uint64_t root = max_u64(l->p.other_params - emb, emb);
			l->fsdp_unit_params = l->p.layer_params;
			/* the root, the layer computing now and the prefetched next */
			resident = dc_ck_mul(&c, dc_ck_add(&c, root, dc_ck_mul(&c, window, l->p.layer_params)),
					     pr->working_bytes);
			l->fsdp_unsharded_grads_bytes =
				dc_ck_mul(&c, max_u64(l->p.layer_params, root), pr->grad_bytes);
		}
		l->fsdp_backward_params_bytes = resident;
		/* without resharding every unit stays gathered from forward on */
		l->fsdp_forward_params_bytes =
			dc_framework_reshard_after_forward(pl) ? resident : dc_ck_mul(&c, l->p.total, pr->working_bytes);
		if (!dc_framework_reshard_after_forward(pl))
			l->fsdp_backward_params_bytes = l->fsdp_forward_params_bytes;
		if (fsdp_holds_stage(pl)) {
			/* no resharding after backward: the whole stage gathered
			 * and its unsharded gradients held across the
			 * microbatches (fsdp_holds_stage) */
			uint64_t all = dc_ck_mul(&c, l->p.total, pr->working_bytes);
			l->fsdp_backward_params_bytes = all;
			l->fsdp_unsharded_grads_bytes = dc_ck_mul(&c, l->p.total, pr->grad_bytes);
			if (forward_after_backward(pl, stage))
				l->fsdp_forward_params_bytes = all;
		}
	}
	/* the accumulated gradients meet the forwards that follow a backward */
	held_grads = fsdp_holds_stage(pl) && forward_after_backward(pl, stage) ? 1 : 0;

	/* buffers: two DDP buckets in flight (one reducing, one filling),
	 * never more than the gradients themselves */
	grads_full = dc_ck_mul(&c, l->p.total, pr->grad_bytes);
	/* Megatron-Core's DDP has none of its own: each bucket is a view of
	 * its contiguous gradient buffer (megatron/core/distributed/
	 * param_and_grad_buffer.py:1596-1598 at d98e8a64), all-reduced or
	 * reduce-scattered in place (:715, the local shard's view) */
	if (sh != DC_SHARD_FSDP && pl->dp_cp > 1 && cfg->training.framework != DC_FRAMEWORK_MEGATRON) {
		/* DeepSpeed's ZeRO-1/2 allocate the second bucket (ipg_buffer)
		 * only with overlap_comm, which overlap.dp is (stage_1_and_2.py
		 * at edaa7221, the ipg_buffer set up at the backward's start:
		 * `if self.overlap_comm` appends the second; a trial's
		 * overlap_comm false kept two) */
		/* (the overlap as the framework runs it: DeepSpeed's
		 * overlap_comm is off at ZeRO-1/2 unless given, and its engine
		 * without ZeRO all-reduces one flat bucket at a time, a
		 * review found) */
		uint64_t n = cfg->training.framework == DC_FRAMEWORK_DEEPSPEED &&
				     (!dc_framework_overlap_dp(pl) || sh == DC_SHARD_NONE)
			     ? 1
			     : 2;
		uint64_t two = dc_ck_mul(&c, n, dc_framework_grad_bucket_bytes(pl));
		l->ddp_buckets_bytes = two < grads_full ? two : grads_full;
	}
	l->comm_buffers_bytes = cfg->memory.comm_buffer_bytes;
	l->cuda_context_bytes = cfg->memory.cuda_context_bytes;
	l->workspace_bytes = cfg->memory.workspace_bytes;
	if (fp8_weight_copies(pl, stage, l) != 0) {
		*error = "'model' / 'precision.compute': the FP8 weight copies per rank overflow 64 bits";
		return -1;
	}
	l->buffers_bytes = dc_ck_add(&c, dc_ck_add(&c, l->ddp_buckets_bytes, l->comm_buffers_bytes),
			       max_u64(dc_ck_add(&c, l->fsdp_forward_params_bytes,
						 held_grads ? l->fsdp_unsharded_grads_bytes : 0),
				       dc_ck_add(&c, l->fsdp_backward_params_bytes, l->fsdp_unsharded_grads_bytes)));

	/* peak by phase */
	{
		uint64_t base = dc_ck_add(&c, dc_ck_add(&c, l->model_states_bytes, l->comm_buffers_bytes),
				    dc_ck_add(&c, dc_ck_add(&c, l->cuda_context_bytes, l->workspace_bytes),
					      l->fp8_weight_copies_bytes));
		uint64_t *sub = l->phase_subtotal_bytes;
		sub[DC_MEM_FORWARD] = dc_ck_add(&c, dc_ck_add(&c, base, l->activations_bytes),
						dc_ck_add(&c, l->fsdp_forward_params_bytes,
							  held_grads ? l->fsdp_unsharded_grads_bytes : 0));
		/* backward: the head's runs first (its logits' gradients), a
		 * layer rebuilt by recompute after it: the larger of the two */
		sub[DC_MEM_BACKWARD] =
			dc_ck_add(&c, dc_ck_add(&c, dc_ck_add(&c, base, l->activations_bytes), l->ddp_buckets_bytes),
			    dc_ck_add(&c, dc_ck_add(&c, l->fsdp_backward_params_bytes, l->fsdp_unsharded_grads_bytes),
				max_u64(l->activation_recompute_bytes, l->activation_head_backward_bytes)));
		/* foreach AdamW's list of square roots (compute.c adam_bytes) */
		l->optimizer_temp_bytes =
			cfg->training.optimizer_implementation == DC_OPT_IMPL_FOREACH ? l->optimizer_bytes / 2 : 0;
		sub[DC_MEM_OPTIMIZER] = dc_ck_add(&c, base, l->optimizer_temp_bytes);
		/* the save: the optimizer step's states and, under a full state
		 * dict, what checkpoint.gather keeps on the GPU (checkpoint.h) */
		{
			uint64_t extra;
			if (dc_ckpt_gpu_extra(pl, stage, &extra) != 0)
				c.overflow = 1;
			sub[DC_MEM_CHECKPOINT] = dc_ck_add(&c, base, extra);
		}
		for (int ph = 0; ph < DC_MEM_PHASE_COUNT; ph++) {
			/* the checkpoint's subtotal is the optimizer step's */
			l->phase_reserve_bytes[ph] = reserve_of(sub[ph], cfg->memory.allocator_reserve);
			l->phase_bytes[ph] = dc_ck_add(&c, sub[ph], l->phase_reserve_bytes[ph]);
			if (ph == 0 || l->phase_bytes[ph] > l->peak_bytes) {
				l->peak_bytes = l->phase_bytes[ph];
				l->peak_phase = (enum dc_mem_phase)ph;
			}
		}
	}
	if (c.overflow) {
		*error = "'memory' / 'parallel.bucket_size': per-rank memory overflows 64 bits";
		return -1;
	}
	l->fits = l->peak_bytes <= cfg->cluster.gpu_mem_bytes;
	if (l->fits)
		l->headroom_bytes = cfg->cluster.gpu_mem_bytes - l->peak_bytes;
	else
		l->shortfall_bytes = l->peak_bytes - cfg->cluster.gpu_mem_bytes;
	return 0;
}

int dc_memory_stage(const struct dc_plan *p, uint64_t stage, struct dc_mem_ledger *l, const char **error)
{
	const char *e = NULL;
	struct dc_state_shards shards;
	dc_axis_state_shards(p, &shards);
	if (ledger(p, stage, &shards, -1, l, &e) != 0) {
		if (error)
			*error = e;
		return -1;
	}
	return 0;
}

#define MAX_CANDIDATES (8 * DC_PLAN_MAX_SEGMENTS + 16)

static uint64_t add_candidate(uint64_t *cand, uint64_t n, uint64_t pp, uint64_t s)
{
	if (s >= pp || n >= MAX_CANDIDATES)
		return n;
	for (uint64_t i = 0; i < n; i++)
		if (cand[i] == s)
			return n;
	cand[n] = s;
	return n + 1;
}

/* The ranks whose ledger can be the highest, in stage order: each
 * segment's first stage; under DualPipe also the ranks whose mirror
 * stage (pp - 1 - s) starts or ends a segment, and under DualPipeV the
 * ranks whose chunks hold the partly dense layer, with their
 * neighbours (the rank's two chunks hold different counts in flight, so
 * between those ranks the peak moves linearly: the ends bound it).
 * O(segments). */
static uint64_t candidates(const struct dc_plan *p, uint64_t *cand)
{
	uint64_t n = 0, pp = p->layout.pp;
	enum dc_pipe_schedule s = dc_pipeline_schedule(p);
	for (uint64_t i = 0; i < p->nsegments; i++)
		n = add_candidate(cand, n, pp, p->segment_first[i]);
	if (s == DC_PIPE_DUALPIPE || s == DC_PIPE_DUALPIPEV) {
		uint64_t base = n;
		for (uint64_t i = 0; i < base; i++) {
			uint64_t f = cand[i], l = p->segment_first[i + 1] - 1;
			n = add_candidate(cand, n, pp, pp - 1 - f);
			n = add_candidate(cand, n, pp, pp - 1 - l);
			n = add_candidate(cand, n, pp, l);
		}
	}
	if (s == DC_PIPE_ZERO_BUBBLE) {
		/* a stage's deferred W's grow with it (s of them): the peak
		 * within a segment is linear in the stage between kinks where
		 * the warm-up covers every microbatch (pp - m - 1, pp - m) and
		 * where the pending count stops growing (m - 1): the segments'
		 * ends and those bound it */
		uint64_t m = dc_layout_schedule_m(&p->layout);
		for (uint64_t i = 0; i < p->nsegments; i++)
			n = add_candidate(cand, n, pp, p->segment_first[i + 1] - 1);
		for (uint64_t d = 0; d < 3; d++) {
			if (m + d >= 2)
				n = add_candidate(cand, n, pp, m + d - 2);
			if (pp + d >= m + 1)
				n = add_candidate(cand, n, pp, pp + d - m - 1);
		}
	}
	if (s == DC_PIPE_DUALPIPEV && dc_plan_moe_interleaved(p)) {
		/* MoE every n-th layer: a rank's two chunks' MoE layers change
		 * from rank to rank, so every rank (pp <= DC_PLAN_MAX_SEGMENTS:
		 * the layout rules) */
		for (uint64_t r = 0; r < pp; r++)
			n = add_candidate(cand, n, pp, r);
	} else if (s == DC_PIPE_DUALPIPEV) {
		uint64_t cl = p->in->model.num_layers / (2 * pp), q = cl ? p->dense_limit / cl : 0;
		for (uint64_t d = 0; d < 3; d++) {
			if (q + d >= 1)
				n = add_candidate(cand, n, pp, q + d - 1);
			if (q + d <= 2 * pp) /* chunk 1 of rank 2pp - 1 - q holds layer dense_limit */
				n = add_candidate(cand, n, pp, 2 * pp - q - d);
		}
	}
	/* ascending */
	for (uint64_t i = 1; i < n; i++)
		for (uint64_t j = i; j > 0 && cand[j - 1] > cand[j]; j--) {
			uint64_t t = cand[j];
			cand[j] = cand[j - 1];
			cand[j - 1] = t;
		}
	return n;
}

int dc_memory_compute(const struct dc_plan *p, struct dc_memory_result *m, const char **error)
{
	struct dc_mem_ledger cur;
	struct dc_state_shards shards;
	const char *e = NULL;
	uint64_t best_stage = 0, host = 0, cand[MAX_CANDIDATES], n;

	/* within a segment the parameters are the same and the microbatches
	 * in flight never grow with the stage, so neither does the peak: the
	 * first stage with the highest peak starts a segment (DualPipe and
	 * DualPipeV add the ranks where a mirrored chunk changes, candidates).
	 * Stage order also makes the first failing stage the one reported */
	n = candidates(p, cand);
	/* the states' shards: the same on every stage */
	dc_axis_state_shards(p, &shards);
	if (p->mem_memo)
		mem_memo_bind(p->mem_memo, p, &shards);
	for (uint64_t i = 0; i < n; i++) {
		uint64_t s = cand[i];
		if (ledger(p, s, &shards, (int)i, i == 0 ? &m->top : &cur, &e) != 0) {
			if (error)
				*error = e;
			return -1;
		}
		if (i == 0 || cur.host_bytes > host)
			host = i == 0 ? m->top.host_bytes : cur.host_bytes;
		if (i > 0 && cur.peak_bytes > m->top.peak_bytes) {
			m->top = cur;
			best_stage = s;
		}
	}
	m->nclasses = p->nclasses;
	m->most_loaded = dc_plan_stage_class(p, best_stage);
	/* the host ledger: the rank offloading the most, on every GPU of a node */
	m->host_rank_bytes = host;
	if (dc_mul_u64(m->host_rank_bytes, p->in->cluster.gpus_per_node, &m->host_node_bytes)) {
		if (error)
			*error = "'cluster.gpus_per_node' x 'parallel.offload': host bytes per node overflow 64 bits";
		return -1;
	}
	m->host_checked = p->in->cluster.host_mem_bytes > 0;
	m->host_fits = !m->host_checked || m->host_node_bytes <= p->in->cluster.host_mem_bytes;
	dc_plan_class_stages(p, m->most_loaded, &m->top.stage_first, &m->top.stage_last);
	return 0;
}

int dc_memory_class_at(const struct dc_plan *p, const struct dc_memory_result *m, uint64_t i,
		       struct dc_mem_ledger *out)
{
	uint64_t first, last;
	if (i >= m->nclasses || i >= p->nclasses)
		return -1;
	dc_plan_class_stages(p, i, &first, &last);
	if (dc_memory_stage(p, first, out, NULL) != 0)
		return -1;
	out->stage_last = last;
	return 0;
}

const char *dc_mem_phase_name(enum dc_mem_phase p)
{
	static const char *const names[] = {"forward", "backward", "optimizer_step", "checkpoint_save"};
	return names[p];
}
