/* comm.c - communication per step; see comm.h and
 * docs/formulas-systems.md, "Communication per step". */
#include "distcalc/comm.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "distcalc/memo_verify.h"
#include "distcalc/memory.h"
#include "distcalc/net.h"
#include "distcalc/plan.h"
#include "distcalc/util.h"
#include "../axis/axis_int.h"

/* The two named formulas (comm.h), inline here so that push() divides M by
 * p once for both. */
static inline uint64_t bytes_sent(enum dc_coll_kind k, uint64_t p, uint64_t msg_bytes)
{
	if (p < 2)
		return 0;
	switch (k) {
	case DC_COLL_ALL_REDUCE:
		/* ring: ReduceScatter then AllGather, each every chunk but one;
		 * rank i skips chunk i+1, then chunk i+2 (docs/formulas.md), so the
		 * busiest rank skips the two smallest neighbouring chunks: two of
		 * floor(M/p), or floor(M/p) and one more when M mod p = p - 1 and
		 * only one chunk is small */
		return 2 * (msg_bytes - msg_bytes / p) - (msg_bytes % p == p - 1 ? 1 : 0);
	case DC_COLL_REDUCE_SCATTER:
	case DC_COLL_ALL_GATHER:
	case DC_COLL_ALL_TO_ALL:
		return msg_bytes - msg_bytes / p;
	case DC_COLL_SEND:
	case DC_COLL_BROADCAST: /* a pipelined ring forwards all of M once */
		break;
	}
	return msg_bytes;
}

static inline double time_s(enum dc_coll_kind k, uint64_t p, uint64_t msg_bytes, const struct dc_link *l)
{
	/* alpha-beta ring: p-1 rounds per phase, each alpha + ceil(M/p)/B */
	double round_s;
	if (p < 2)
		return 0;
	if (k == DC_COLL_SEND || k == DC_COLL_BROADCAST)
		return l->latency_s + (double)msg_bytes / l->bw_bytes_per_s;
	round_s = l->latency_s + (double)dc_ceil_div(msg_bytes, p) / l->bw_bytes_per_s;
	if (k == DC_COLL_ALL_REDUCE)
		return 2.0 * (double)(p - 1) * round_s;
	return (double)(p - 1) * round_s; /* ReduceScatter, AllGather, AlltoAll */
}

uint64_t dc_coll_bytes_sent(enum dc_coll_kind k, uint64_t p, uint64_t msg_bytes)
{
	return bytes_sent(k, p, msg_bytes);
}

double dc_coll_time_s(enum dc_coll_kind k, uint64_t p, uint64_t msg_bytes, const struct dc_link *l)
{
	return time_s(k, p, msg_bytes, l);
}

static void sum_strategy(struct dc_ck *b, struct dc_comm_strategy *s)
{
	for (uint64_t i = 0; i < s->ncoll; i++) {
		uint64_t t;
		if (dc_add_u64(s->bytes_per_rank, s->coll[i].bytes_per_rank, &t))
			b->overflow = 1;
		s->bytes_per_rank = t;
		s->time_s += s->coll[i].time_s;
	}
}

/* The axes whose calls read the sharding (dc_comm_reshard) */
static int reads_sharding(enum dc_strategy s)
{
	return s == DC_STRAT_DP || s == DC_STRAT_FSDP;
}

/* Zeroes what the strategies' sums and the readers rely on; calls past
 * each strategy's ncoll are never read. `reshard`: the strategies of the
 * axes that do not read the sharding are kept. */
static void comm_clear(struct dc_comm *c, int reshard)
{
	c->stage = c->ep_stage = 0;
	c->layers = c->moe_layers = 0;
	c->bytes_per_rank = 0;
	c->time_s = 0;
	for (int i = 0; i < DC_STRAT_COUNT; i++) {
		struct dc_comm_strategy *s = &c->s[i];
		if (reshard && !reads_sharding((enum dc_strategy)i))
			continue;
		s->in_play = 0;
		s->group_size = 0;
		s->link = DC_LINK_AUTO;
		s->link_params.bw_bytes_per_s = 0;
		s->link_params.latency_s = 0;
		s->net = NULL;
		s->net_group = NULL;
		s->ncoll = 0;
		s->bytes_per_rank = 0;
		s->time_s = 0;
	}
}

#ifdef DISTCALC_VERIFY_MEMOS
static const struct dc_memo_field strategy_fields[] = {
	DC_MEMO_FIELD(struct dc_comm_strategy, in_play),
	DC_MEMO_FIELD(struct dc_comm_strategy, group_size),
	DC_MEMO_FIELD(struct dc_comm_strategy, link),
	DC_MEMO_FIELD(struct dc_comm_strategy, link_params),
	DC_MEMO_FIELD(struct dc_comm_strategy, ncoll),
	DC_MEMO_FIELD(struct dc_comm_strategy, bytes_per_rank),
	DC_MEMO_FIELD(struct dc_comm_strategy, time_s),
};

static const struct dc_memo_field coll_fields[] = {
	DC_MEMO_FIELD(struct dc_coll, axis),      DC_MEMO_FIELD(struct dc_coll, kind),
	DC_MEMO_FIELD(struct dc_coll, what),      DC_MEMO_FIELD(struct dc_coll, phase),
	DC_MEMO_FIELD(struct dc_coll, overlap),   DC_MEMO_FIELD(struct dc_coll, count),
	DC_MEMO_FIELD(struct dc_coll, msg_bytes), DC_MEMO_FIELD(struct dc_coll, group_size),
	DC_MEMO_FIELD(struct dc_coll, link),      DC_MEMO_FIELD(struct dc_coll, bytes_per_rank),
	DC_MEMO_FIELD(struct dc_coll, time_s),    DC_MEMO_FIELD(struct dc_coll, algorithm),
	DC_MEMO_FIELD(struct dc_coll, protocol),
};

static const struct dc_memo_field group_fields[] = {
	DC_MEMO_FIELD(struct dc_net_group, ranks),	    DC_MEMO_FIELD(struct dc_net_group, nodes),
	DC_MEMO_FIELD(struct dc_net_group, ranks_per_node), DC_MEMO_FIELD(struct dc_net_group, ranks_least),
	DC_MEMO_FIELD(struct dc_net_group, rails),
	DC_MEMO_FIELD(struct dc_net_group, concurrent),	    DC_MEMO_FIELD(struct dc_net_group, cross_leaf),
};

static const struct dc_memo_field comm_fields[] = {
	DC_MEMO_FIELD(struct dc_comm, stage),
	DC_MEMO_FIELD(struct dc_comm, ep_stage),
	DC_MEMO_FIELD(struct dc_comm, layers),
	DC_MEMO_FIELD(struct dc_comm, moe_layers),
	DC_MEMO_FIELD(struct dc_comm, bytes_per_rank),
	DC_MEMO_FIELD(struct dc_comm, time_s),
};

/* The collectives kept from another sharding's, the data-parallel
 * axes' emitted again (dc_comm_reshard), against dc_comm_compute's: each
 * strategy's header and its ncoll calls */
static void reshard_verify(const struct dc_plan *p, const struct dc_comm *c)
{
	static const char memo[] = "collectives kept across shardings (src/est/comm.c dc_comm_reshard)";
	/* not dc_malloc: outside the allocations a test counts or fails */
	struct dc_comm *fresh = malloc(sizeof(*fresh));
	const char *err = NULL;
	char what[48];
	if (!fresh)
		abort(); /* a debug build's check: no way on without it */
	if (dc_comm_compute(p, fresh, &err) != 0)
		dc_memo_verify_u64(memo, "dc_comm_compute's return", 0, (uint64_t)-1);
	dc_memo_verify_fields(memo, "comm", c, fresh, comm_fields, sizeof(comm_fields) / sizeof(comm_fields[0]));
	for (int i = 0; i < DC_STRAT_COUNT; i++) {
		snprintf(what, sizeof(what), "s[%s]", dc_strategy_name((enum dc_strategy)i));
		dc_memo_verify_fields(memo, what, &c->s[i], &fresh->s[i], strategy_fields,
				      sizeof(strategy_fields) / sizeof(strategy_fields[0]));
		/* the network and group a kept strategy borrowed: another
		 * plan's (a copy's) may hold them, so compared by content */
		if (c->s[i].in_play && fresh->s[i].in_play) {
			dc_memo_verify_bytes(memo, what, c->s[i].net, fresh->s[i].net, sizeof(*c->s[i].net), NULL, 0);
			dc_memo_verify_fields(memo, what, c->s[i].net_group, fresh->s[i].net_group, group_fields,
					      sizeof(group_fields) / sizeof(group_fields[0]));
		}
		for (uint64_t k = 0; k < c->s[i].ncoll && k < DC_COMM_MAX_COLL; k++) {
			snprintf(what, sizeof(what), "s[%s].coll[%llu]", dc_strategy_name((enum dc_strategy)i),
				 (unsigned long long)k);
			dc_memo_verify_fields(memo, what, &c->s[i].coll[k], &fresh->s[i].coll[k], coll_fields,
					      sizeof(coll_fields) / sizeof(coll_fields[0]));
		}
	}
	free(fresh);
}
#endif

/* The stage whose MoE layers the EP axis prices when the analysed one
 * holds fewer (DeepSeek-V3's dense first layers with the embedding, the
 * heaviest stage): the one with the most MoE layers, the first on a tie.
 * A segment's stages hold the same layers (plan.h). Returns its
 * parameters, NULL when no stage holds a MoE layer. */
static const struct dc_stage_params *most_moe_stage(const struct dc_plan *p, uint64_t *stage)
{
	const struct dc_stage_params *moe = NULL;
	for (uint64_t i = 0; i < p->nsegments; i++) {
		const struct dc_stage_params *sp = &p->segment_params[i];
		if (!p->segment_overflow[i] && sp->moe_layers > (moe ? moe->moe_layers : 0)) {
			moe = sp;
			*stage = p->segment_first[i];
		}
	}
	return moe;
}

/* Full recompute of the first training.recompute_layers layers of each
 * chunk replays their MoE layers' AlltoAlls in backward (src/axis/ep.c):
 * a rank sends 2 calls a MoE layer and 1 more a replayed one (dispatch and
 * combine each), so the busiest EP rank is the one with the most of those,
 * which a stage of fewer MoE layers, all of them replayed, can be. Moves
 * *moe and *stage there when one holds strictly more; with every layer
 * replayed (or none) the stage with the most MoE layers stays. O(pp). */
static void replay_stage(const struct dc_plan *p, int dual, struct dc_ck *b, const struct dc_stage_params *best,
			 const struct dc_stage_params **moe, struct dc_stage_params *keep, uint64_t *stage)
{
	const struct dc_training *t = &p->in->training;
	struct dc_axis_ctx x = {.b = b, .p = p, .best = best};
	uint64_t top;
	if (!p->in->model.num_experts || p->in->model.params_explicit || t->recompute != DC_RECOMPUTE_FULL ||
	    !t->recompute_layers || !(*moe)->moe_layers)
		return;
	x.moe = *moe;
	x.moe_stage = *stage;
	top = 2 * (*moe)->moe_layers + dc_axis_recomputed_layers(&x, 1);
	for (uint64_t s = 0; s < p->layout.pp; s++) {
		struct dc_stage_params r;
		const struct dc_stage_params *sp;
		uint64_t w;
		if (dual) {
			if (dc_memory_rank_params(p, s, &r) != 0)
				return;
		} else {
			if (!(sp = dc_plan_stage_params(p, s)))
				return;
			r = *sp;
		}
		if (!r.moe_layers)
			continue;
		x.moe = &r;
		x.moe_stage = s;
		w = 2 * r.moe_layers + dc_axis_recomputed_layers(&x, 1);
		if (w > top) {
			top = w;
			*keep = r;
			*moe = keep;
			*stage = s;
		}
	}
}

static int comm_run(const struct dc_plan *p, struct dc_comm *c, const char **error, int reshard)
{
	struct dc_ck b = {0};
	/* the stage with the most parameters sends the most DP/FSDP bytes */
	struct dc_stage_params best = p->most, rank_moe;
	const struct dc_stage_params *moe = NULL;
	uint64_t moe_stage = 0;
	enum dc_pipe_schedule sch = dc_pipeline_schedule(p);
	int dual = sch == DC_PIPE_DUALPIPE || sch == DC_PIPE_DUALPIPEV;
	struct dc_axis_memo memo;

	comm_clear(c, reshard);
	c->stage = p->most_stage;
	if (p->most_overflow)
		b.overflow = 1;
	if (dual) {
		/* a DualPipe rank holds two stages, a DualPipeV rank two
		 * chunks: their gradients all sync over dp (memory.h) */
		for (uint64_t s = 0; s < p->layout.pp; s++) {
			struct dc_stage_params r;
			if (dc_memory_rank_params(p, s, &r) != 0) {
				b.overflow = 1;
				break;
			}
			if (s == 0 || r.total > best.total) {
				best = r;
				c->stage = s;
			}
			if (r.moe_layers > (moe ? moe->moe_layers : 0)) {
				rank_moe = r;
				moe = &rank_moe;
				moe_stage = s;
			}
		}
	}
	c->layers = best.layers;
	/* the EP calls are per MoE layer: priced on the stage that holds
	 * the most (a MoE model's segments searched), the analysed one
	 * when it holds as many */
	c->ep_stage = c->stage;
	if (!dual && p->in->model.num_experts > 0)
		moe = most_moe_stage(p, &moe_stage);
	if (moe && moe->moe_layers > best.moe_layers)
		c->ep_stage = moe_stage;
	else
		moe = &best;
	replay_stage(p, dual, &b, &best, &moe, &rank_moe, &c->ep_stage);
	c->moe_layers = moe->moe_layers;
	/* each axis emits its own calls (src/axis/) */
	memo.used = memo.next = 0;
	for (int i = 0; i < DC_STRAT_COUNT; i++) {
		const struct dc_axis_row *row = &dc_axis_rows[i];
		struct dc_axis_ctx x = {&b, p, &best, moe, &c->s[row->strategy], row->strategy, &memo, c->stage,
					 c->ep_stage};
		if (reshard && !reads_sharding(row->strategy))
			continue; /* kept, summed when it was emitted */
		row->comm(&x);
	}
	/* each strategy's sums, then the totals, in strategy order */
	for (int i = 0; i < DC_STRAT_COUNT; i++) {
		uint64_t tmp;
		if (!reshard || reads_sharding((enum dc_strategy)i))
			sum_strategy(&b, &c->s[i]);
		if (dc_add_u64(c->bytes_per_rank, c->s[i].bytes_per_rank, &tmp))
			b.overflow = 1;
		c->bytes_per_rank = tmp;
		c->time_s += c->s[i].time_s;
	}
	if (b.overflow) {
		*error = "'model' x 'training' x 'precision': communication bytes per step overflow 64 bits";
		return -1;
	}
	return 0;
}

int dc_comm_compute(const struct dc_plan *p, struct dc_comm *c, const char **error)
{
	return comm_run(p, c, error, 0);
}

int dc_comm_reshard(const struct dc_plan *p, struct dc_comm *c, const char **error)
{
	int rc = comm_run(p, c, error, 1);
	if (rc == 0)
		DC_MEMO_VERIFY(reshard_verify(p, c));
	return rc;
}

const char *dc_coll_kind_name(enum dc_coll_kind k)
{
	static const char *const names[] = {"all_reduce", "reduce_scatter", "all_gather", "send",
					    "all_to_all", "broadcast"};
	return names[k];
}

const char *dc_strategy_name(enum dc_strategy s)
{
	static const char *const names[] = {"dp", "fsdp", "tp", "pp", "ep", "cp"};
	return names[s];
}

const char *dc_coll_what_label(enum dc_coll_what w)
{
	static const char *const labels[DC_CW_COUNT] = {
		[DC_CW_GRAD_BUCKET] = "gradient bucket",
		[DC_CW_EXPERT_GRAD_BUCKET] = "expert gradient bucket",
		[DC_CW_UPDATED_PARAMS] = "updated params",
		[DC_CW_UPDATED_EXPERT_PARAMS] = "updated expert params",
		[DC_CW_REPLICA_GRAD_BUCKET] = "gradient shard across replicas",
		[DC_CW_REPLICA_EXPERT_GRAD_BUCKET] = "expert gradient shard across replicas",
		[DC_CW_UNIT_PARAMS] = "unit params",
		[DC_CW_EXPERT_UNIT_PARAMS] = "expert unit params",
		[DC_CW_UNIT_GRADS] = "unit grads",
		[DC_CW_EXPERT_UNIT_GRADS] = "expert unit grads",
		[DC_CW_ROOT_PARAMS] = "embedding/head params",
		[DC_CW_ROOT_GRADS] = "embedding/head grads",
		[DC_CW_TP_OUTPUT_FG] = "layer output (f/g)",
		[DC_CW_TP_INPUT_GRAD_FG] = "layer input grad (f/g)",
		[DC_CW_TP_OUTPUT_RECOMPUTED] = "layer output, recomputed",
		[DC_CW_TP_SEQ_IN_G] = "sequence shards in (g)",
		[DC_CW_TP_OUTPUT_GBAR] = "layer output (g-bar)",
		[DC_CW_TP_OUTPUT_GRAD_GBAR] = "output grad (g-bar)",
		[DC_CW_TP_INPUT_GRAD_G] = "input grad (g)",
		[DC_CW_TP_INPUT_REGATHER] = "input re-gathered for weight grads",
		[DC_CW_TP_SEQ_RECOMPUTED] = "sequence shards, recomputed",
		[DC_CW_TP_AMAX] = "FP8 shard amax (max)",
		[DC_CW_TP_AMAX_RECOMPUTED] = "FP8 shard amax, recomputed",
		[DC_CW_PP_ACTIVATIONS] = "activations to next stage",
		[DC_CW_PP_GRADIENTS] = "gradients to previous stage",
		[DC_CW_CP_KV_NEXT] = "K/V chunk to next cp rank",
		[DC_CW_CP_KV_NEXT_AGAIN] = "K/V chunk to next cp rank, again",
		[DC_CW_CP_KV_AND_DKV] = "K/V chunk and dK/dV together",
		[DC_CW_CP_DKV_HOME] = "dK/dV to their cp rank",
		[DC_CW_CP_KV_NEXT_RECOMPUTED] = "K/V chunk, recomputed",
		[DC_CW_CP_KV_WHOLE] = "K/V of the whole sequence",
		[DC_CW_CP_KV_WHOLE_AGAIN] = "K/V of the whole sequence, again",
		[DC_CW_CP_DKV_SCATTER] = "dK/dV to their cp ranks",
		[DC_CW_CP_KV_RECOMPUTED] = "K/V, recomputed",
		[DC_CW_CP_QKV_TO_HEADS] = "q, k, v to head shards",
		[DC_CW_CP_OUT_TO_SEQ] = "output to sequence shards",
		[DC_CW_CP_DOUT_TO_HEADS] = "output grad to head shards",
		[DC_CW_CP_DQKV_TO_SEQ] = "dq, dk, dv to sequence shards",
		[DC_CW_CP_QKV_RECOMPUTED] = "q, k, v, recomputed",
		[DC_CW_CP_OUT_RECOMPUTED] = "output, recomputed",
		[DC_CW_EP_DISPATCH_COMBINE] = "token dispatch and combine",
		[DC_CW_EP_GRADIENTS] = "their gradients",
		[DC_CW_EP_DISPATCH_COMBINE_RECOMPUTED] = "token dispatch and combine, recomputed",
		[DC_CW_ETP_TOKENS] = "routed tokens gathered over etp",
		[DC_CW_ETP_OUTPUTS] = "expert outputs reduce-scattered over etp",
		[DC_CW_ETP_TOKEN_GRADS] = "output grads gathered over etp",
		[DC_CW_ETP_INPUT_GRADS] = "token grads reduce-scattered over etp",
		[DC_CW_ETP_TOKENS_RECOMPUTED] = "routed tokens gathered over etp, recomputed",
		[DC_CW_ETP_OUTPUTS_RECOMPUTED] = "expert outputs reduce-scattered over etp, recomputed",
	};
	return (unsigned)w < DC_CW_COUNT && labels[w] ? labels[w] : "?";
}

const char *dc_coll_phase_name(enum dc_coll_phase ph)
{
	static const char *const names[DC_CPHASE_COUNT] = {"forward", "backward", "after optimizer step"};
	return (unsigned)ph < DC_CPHASE_COUNT ? names[ph] : "?";
}

const char *dc_overlap_class_name(enum dc_overlap_class o)
{
	static const char *const names[DC_OVL_COUNT] = {"exposed",     "grad_sync", "prefetch",  "behind_gemm",
							"ring",        "expert_a2a", "pipeline",  "inline"};
	return (unsigned)o < DC_OVL_COUNT ? names[o] : "?";
}
