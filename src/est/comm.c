/* comm.c - communication per step; see comm.h and
 * docs/formulas-systems.md, "Communication per step". */
#include "distcalc/comm.h"

#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "distcalc/activation.h"
#include "distcalc/framework.h"
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

/* What comm_run emits: every axis; those that read the sharding
 * (dc_comm_reshard); those and the pipeline's, which reads the model
 * chunks (dc_comm_rechunk) */
enum comm_mode { COMM_ALL, COMM_RESHARD, COMM_RECHUNK };

static int emitted(enum comm_mode mode, enum dc_strategy s)
{
	return mode == COMM_ALL || reads_sharding(s) || (mode == COMM_RECHUNK && s == DC_STRAT_PP);
}

/* Zeroes what the strategies' sums and the readers rely on; calls past
 * each strategy's ncoll are never read. The strategies of the axes `mode`
 * does not emit are kept. */
static void strategy_clear(struct dc_comm_strategy *s)
{
	s->in_play = 0;
	s->group_size = 0;
	s->link = DC_LINK_AUTO;
	s->link_params.bw_bytes_per_s = 0;
	s->link_params.latency_s = 0;
	s->net = NULL;
	s->net_group = NULL;
	s->ncoll = 0;
	s->full = 0;
	s->bytes_per_rank = 0;
	s->time_s = 0;
}

/* tp.c's rows besides the displayed ones (comm.h tp_kind, tp_head):
 * emitted, and cleared, with the tp axis's */
static const struct dc_comm_strategy *tp_extra(const struct dc_comm *c, int i)
{
	return i < 2 ? &c->tp_kind[i] : &c->tp_head;
}
#define NTP_EXTRA 3

static void comm_clear(struct dc_comm *c, enum comm_mode mode)
{
	c->stage = c->ep_stage = 0;
	c->layers = c->moe_layers = c->stage_moe_layers = c->mtp_layers = 0;
	c->bytes_per_rank = 0;
	c->time_s = 0;
	if (emitted(mode, DC_STRAT_TP)) {
		strategy_clear(&c->tp_kind[0]);
		strategy_clear(&c->tp_kind[1]);
		strategy_clear(&c->tp_head);
	}
	for (int i = 0; i < DC_STRAT_COUNT; i++) {
		struct dc_comm_strategy *s = &c->s[i];
		if (!emitted(mode, (enum dc_strategy)i))
			continue;
		strategy_clear(s);
	}
}

#ifdef DISTCALC_VERIFY_MEMOS
static const struct dc_memo_field strategy_fields[] = {
	DC_MEMO_FIELD(struct dc_comm_strategy, in_play),
	DC_MEMO_FIELD(struct dc_comm_strategy, group_size),
	DC_MEMO_FIELD(struct dc_comm_strategy, link),
	DC_MEMO_FIELD(struct dc_comm_strategy, link_params),
	DC_MEMO_FIELD(struct dc_comm_strategy, ncoll),
	DC_MEMO_FIELD(struct dc_comm_strategy, full),
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
	DC_MEMO_FIELD(struct dc_coll, protocol),  DC_MEMO_FIELD(struct dc_coll, per_layer),
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
	DC_MEMO_FIELD(struct dc_comm, stage_moe_layers),
	DC_MEMO_FIELD(struct dc_comm, mtp_layers),
	DC_MEMO_FIELD(struct dc_comm, dp_params),
	DC_MEMO_FIELD(struct dc_comm, dp_expert_params),
	DC_MEMO_FIELD(struct dc_comm, bytes_per_rank),
	DC_MEMO_FIELD(struct dc_comm, time_s),
};

static int comm_run(const struct dc_plan *p, struct dc_comm *c, const char **error, enum comm_mode mode,
		    struct dc_comm_memo *cm);

/* A kept strategy `s` (named `name`) against the same emitted afresh:
 * its header, its network and group (another plan's, a copy's, may hold
 * them: compared by content) and its ncoll calls */
static void strategy_verify(const char *memo, const char *name, const struct dc_comm_strategy *s,
			    const struct dc_comm_strategy *f)
{
	char what[64];
	dc_memo_verify_fields(memo, name, s, f, strategy_fields, sizeof(strategy_fields) / sizeof(strategy_fields[0]));
	if (s->in_play && f->in_play) {
		dc_memo_verify_bytes(memo, name, s->net, f->net, sizeof(*s->net), NULL, 0);
		dc_memo_verify_fields(memo, name, s->net_group, f->net_group, group_fields,
				      sizeof(group_fields) / sizeof(group_fields[0]));
	}
	for (uint64_t k = 0; k < s->ncoll && k < DC_COMM_MAX_COLL; k++) {
		snprintf(what, sizeof(what), "%s.coll[%llu]", name, (unsigned long long)k);
		dc_memo_verify_fields(memo, what, &s->coll[k], &f->coll[k], coll_fields,
				      sizeof(coll_fields) / sizeof(coll_fields[0]));
	}
}

/* Collectives kept from earlier work (`memo` names it: another
 * sharding's, dc_comm_reshard; the data-parallel axes' from the search's
 * memo) against dc_comm_compute's with no memo: each strategy's header
 * and its ncoll calls */
static void comm_verify(const char *memo, const struct dc_plan *p, const struct dc_comm *c)
{
	/* not dc_malloc: outside the allocations a test counts or fails */
	struct dc_comm *fresh = malloc(sizeof(*fresh));
	const char *err = NULL;
	char what[48];
	if (!fresh)
		abort(); /* a debug build's check: no way on without it */
	if (comm_run(p, fresh, &err, COMM_ALL, NULL) != 0)
		dc_memo_verify_u64(memo, "dc_comm_compute's return", 0, (uint64_t)-1);
	dc_memo_verify_fields(memo, "comm", c, fresh, comm_fields, sizeof(comm_fields) / sizeof(comm_fields[0]));
	for (int i = 0; i < DC_STRAT_COUNT + NTP_EXTRA; i++) {
		static const char *const extra[NTP_EXTRA] = {"tp_kind[0]", "tp_kind[1]", "tp_head"};
		const char *name = i < DC_STRAT_COUNT ? dc_strategy_name((enum dc_strategy)i) : extra[i - DC_STRAT_COUNT];
		snprintf(what, sizeof(what), "s[%s]", name);
		strategy_verify(memo, what, i < DC_STRAT_COUNT ? &c->s[i] : tp_extra(c, i - DC_STRAT_COUNT),
				i < DC_STRAT_COUNT ? &fresh->s[i] : tp_extra(fresh, i - DC_STRAT_COUNT));
	}
	free(fresh);
}
#endif

/* ---- the data-parallel axes' calls memoised across a search's layouts ---- */

/* dp's and fsdp's strategies (kept[0], kept[1]) as comm_run left them,
 * summed, for key; `overflow`: their emission's; group_of[i]: the plan
 * group kept[i] priced its last calls on (its net_group), -1 when none */
struct sharded_slot {
	int have, overflow;
	int group_of[2];
	struct dc_comm_sync_key key;
	struct dc_comm_strategy kept[2];
};

/* The groups dp.c and fsdp.c price their calls on */
static const enum dc_group_id sharded_groups[] = {DC_GROUP_DP_CP, DC_GROUP_SHARD,  DC_GROUP_REP,
						  DC_GROUP_EDP_CP, DC_GROUP_ESHARD, DC_GROUP_EREP};
#define NSHARDED_GROUPS (sizeof(sharded_groups) / sizeof(sharded_groups[0]))

/* The slots hold calls priced on `group` (sharded_groups') and on the
 * network net_memo was bound to the net_binds-th time (net.h: the plan's
 * network is its net memo's), the context: a plan with other groups or
 * another network empties them */
struct dc_comm_memo {
	int have_context;
	/* the context's number, from every memo's contexts in the process
	 * (next_epoch): a comm result's memo_epoch, never another memo's,
	 * even one at the address of a freed one */
	uint64_t epoch;
	const struct dc_net_memo *net_memo;
	uint64_t net_binds;
	struct dc_plan_group group[NSHARDED_GROUPS];
	struct sharded_slot slot[DC_COMM_MEMO_SLOTS];
};

static atomic_uint_fast64_t next_epoch = 1;

struct dc_comm_memo *dc_comm_memo_new(void)
{
	return dc_calloc(1, sizeof(struct dc_comm_memo));
}

void dc_comm_memo_free(struct dc_comm_memo *m)
{
	free(m);
}

static const enum dc_strategy sharded_axes[2] = {DC_STRAT_DP, DC_STRAT_FSDP};

static void sharded_key_of(const struct dc_plan *p, const struct dc_stage_params *best, uint64_t stage,
			   struct dc_comm_sync_key *k)
{
	const struct dc_config *in = p->in;
	enum dc_sharding sh = p->layout.sharding;
	k->sharding = (uint64_t)sh;
	k->chunk_mbs = sh == DC_SHARD_ZERO2 || sh == DC_SHARD_FSDP ? dc_pipeline_chunk_microbatches(p) : 0;
	k->in_flight = sh == DC_SHARD_FSDP && p->layout.pp > 1 ? dc_pipeline_in_flight_chunk(p, stage, 0) : 0;
	k->stage = stage;
	k->pp = p->layout.pp;
	k->schedules = dc_layout_schedules(&p->layout);
	k->reshard_fwd = (uint64_t)dc_framework_reshard_after_forward(p);
	k->zero_allreduce = (uint64_t)dc_framework_zero_grad_allreduce(p);
	k->dp_cp = p->dp_cp;
	k->shard_dp_cp = p->shard_dp_cp;
	k->expert_dp_cp = p->expert_dp_cp;
	k->expert_shard_dp_cp = p->expert_shard_dp_cp;
	k->dp_replicate = p->dp_replicate;
	k->grad_bucket = dc_framework_grad_bucket_bytes(p);
	k->param_bucket = dc_framework_param_bucket_bytes(p);
	k->grad_bytes = in->precision.grad_bytes;
	k->param_bytes = in->precision.param_bytes;
	k->working_bytes = in->precision.working_bytes;
	k->fsdp_unit = (uint64_t)in->parallel.fsdp_unit;
	k->framework = (uint64_t)in->training.framework;
	k->tied = (uint64_t)in->model.tie_word_embeddings;
	memset(k->mirror, 0, sizeof(k->mirror));
	if (dc_pipeline_schedule(p) == DC_PIPE_DUALPIPE) {
		const struct dc_net_group *g = &p->group[DC_GROUP_PP_MIRROR].net;
		k->mirror[0] = 1;
		k->mirror[1] = (uint64_t)p->group[DC_AXIS_PP].link.choice;
		k->mirror[2] = g->ranks;
		k->mirror[3] = g->nodes;
		k->mirror[4] = g->ranks_per_node;
		k->mirror[5] = g->ranks_least;
		k->mirror[6] = g->rails;
		k->mirror[7] = g->concurrent;
		k->mirror[8] = (uint64_t)g->cross_leaf;
	}
	k->dp_only = 0;
	k->best = *best;
}

/* The slot key maps to (its sharding, microbatches, stage and
 * parameters mixed) */
static struct sharded_slot *sharded_slot_of(struct dc_comm_memo *m, const struct dc_comm_sync_key *k)
{
	uint64_t h = (k->sharding + 1) * 0x9e3779b97f4a7c15ull ^ (k->chunk_mbs + 3 * k->in_flight) * 0xff51afd7ed558ccdull ^
		     (k->stage + k->best.total) * 0xc4ceb9fe1a85ec53ull;
	h ^= h >> 29;
	return &m->slot[h % DC_COMM_MEMO_SLOTS];
}

/* a and b alike member by member (their link's doubles bit for bit) */
static int same_plan_group(const struct dc_plan_group *a, const struct dc_plan_group *b)
{
	return a->link.choice == b->link.choice && memcmp(&a->link.params, &b->link.params, sizeof(a->link.params)) == 0 &&
	       a->net.ranks == b->net.ranks && a->net.nodes == b->net.nodes &&
	       a->net.ranks_per_node == b->net.ranks_per_node && a->net.ranks_least == b->net.ranks_least &&
	       a->net.rails == b->net.rails && a->net.concurrent == b->net.concurrent &&
	       a->net.cross_leaf == b->net.cross_leaf;
}

/* The slot holding key for p's groups and network (p has a net memo),
 * NULL: none. A plan of another context empties the slots and becomes
 * the memo's context */
static const struct sharded_slot *sharded_find_in(struct dc_comm_memo *m, const struct dc_plan *p,
						  const struct dc_comm_sync_key *key, int groups_known)
{
	const struct sharded_slot *sl = sharded_slot_of(m, key);
	int same = m->have_context && m->net_memo == p->net_memo && m->net_binds == p->net_memo->binds;
	for (size_t g = 0; same && !groups_known && g < NSHARDED_GROUPS; g++)
		same = same_plan_group(&m->group[g], &p->group[sharded_groups[g]]);
	if (!same) {
		m->epoch = (uint64_t)atomic_fetch_add(&next_epoch, 1);
		for (unsigned i = 0; i < DC_COMM_MEMO_SLOTS; i++)
			m->slot[i].have = 0;
		for (size_t g = 0; g < NSHARDED_GROUPS; g++)
			m->group[g] = p->group[sharded_groups[g]];
		m->net_memo = p->net_memo;
		m->net_binds = p->net_memo->binds;
		m->have_context = 1;
		return NULL;
	}
	return sl->have && memcmp(&sl->key, key, sizeof(*key)) == 0 ? sl : NULL;
}

static const struct sharded_slot *sharded_find(struct dc_comm_memo *m, const struct dc_plan *p,
					       const struct dc_comm_sync_key *key)
{
	return sharded_find_in(m, p, key, 0);
}

/* a strategy's header and its ncoll calls (the calls past them are never
 * read) */
static void strategy_copy(struct dc_comm_strategy *to, const struct dc_comm_strategy *from)
{
	to->in_play = from->in_play;
	to->group_size = from->group_size;
	to->link = from->link;
	to->link_params = from->link_params;
	to->net = from->net;
	to->net_group = from->net_group;
	to->ncoll = from->ncoll;
	memcpy(to->coll, from->coll, (size_t)from->ncoll * sizeof(from->coll[0]));
	to->bytes_per_rank = from->bytes_per_rank;
	to->time_s = from->time_s;
}

/* c's dp and fsdp strategies from the slot, borrowing p's network and
 * groups as an emission on p would */
static void kept_take(const struct sharded_slot *sl, int i, const struct dc_plan *p, struct dc_comm_strategy *s)
{
	strategy_copy(s, &sl->kept[i]);
	s->net = sl->kept[i].in_play ? &p->net : NULL;
	s->net_group = sl->group_of[i] >= 0 ? &p->group[sl->group_of[i]].net : NULL;
}

static void sharded_take(const struct sharded_slot *sl, const struct dc_plan *p, struct dc_comm *c)
{
	for (int i = 0; i < 2; i++)
		kept_take(sl, i, p, &c->s[sharded_axes[i]]);
}

/* Keeps c's dp and fsdp strategies, emitted on p (the memo's context)
 * for key, in key's slot (not when a strategy borrowed a network or group
 * outside p) */
static void sharded_put(struct dc_comm_memo *m, const struct dc_plan *p, const struct dc_comm_sync_key *key,
			const struct dc_comm_strategy *const kept[2], int overflow)
{
	struct sharded_slot *sl = sharded_slot_of(m, key);
	int group_of[2];
	for (int i = 0; i < 2; i++) {
		const struct dc_comm_strategy *s = kept[i];
		group_of[i] = -1;
		for (int g = 0; s->net_group && g < DC_GROUP_COUNT; g++)
			if (s->net_group == &p->group[g].net)
				group_of[i] = g;
		if ((s->net_group && group_of[i] < 0) || (s->net && s->net != &p->net) || (!s->in_play && s->net))
			return;
	}
	sl->have = 1;
	sl->overflow = overflow;
	sl->key = *key;
	for (int i = 0; i < 2; i++) {
		sl->group_of[i] = group_of[i];
		strategy_copy(&sl->kept[i], kept[i]);
	}
}

#ifdef DISTCALC_VERIFY_MEMOS
void dc_comm_memo_corrupt(struct dc_comm_memo *m)
{
	for (unsigned i = 0; i < DC_COMM_MEMO_SLOTS; i++)
		for (int k = 0; k < 2; k++)
			for (uint64_t j = 0; j < m->slot[i].kept[k].ncoll; j++)
				m->slot[i].kept[k].coll[j].time_s = nextafter(m->slot[i].kept[k].coll[j].time_s, INFINITY);
}
#endif

/* The MoE layers of the multi-token-prediction modules rank `stage` runs
 * (src/axis/emit.c dc_axis_mtp_layers): one a module where the model has
 * experts, which the EP axis counts beside the stage's own */
static uint64_t ep_mtp(const struct dc_plan *p, uint64_t stage)
{
	return dc_axis_mtp_moe(p) ? dc_axis_mtp_layers(p, stage) : 0;
}

/* The stage whose MoE layers the EP axis prices when the analysed one
 * holds fewer (DeepSeek-V3's dense first layers with the embedding, the
 * heaviest stage): the one with the most MoE layers, its MTP modules'
 * included (*mtp: those), the first on a tie. A segment's stages hold the
 * same layers (plan.h); the last stage, which runs the modules (no
 * DualPipe here: comm_run), counts them beside its segment's. Returns its
 * parameters, NULL when no stage holds a MoE layer. */
static const struct dc_stage_params *most_moe_stage(const struct dc_plan *p, uint64_t *stage, uint64_t *mtp)
{
	const struct dc_stage_params *moe = NULL;
	uint64_t top = 0, last = p->layout.pp - 1, head = ep_mtp(p, last);
	for (uint64_t i = 0; i < p->nsegments; i++) {
		const struct dc_stage_params *sp = &p->segment_params[i];
		int has_last = p->segment_first[i + 1] > last;
		uint64_t n = sp->moe_layers + (has_last ? head : 0);
		if (!p->segment_overflow[i] && n > top) {
			moe = sp;
			top = n;
			*stage = has_last && head ? last : p->segment_first[i];
			*mtp = has_last ? head : 0;
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
 * replayed (or none) the stage with the most MoE layers stays. A rank's
 * MTP modules count as MoE layers that are never replayed (the block
 * method skips them: dc_axis_mtp_recomputed); *mtp: the chosen rank's.
 * O(pp). */
static void replay_stage(const struct dc_plan *p, int dual, struct dc_ck *b, const struct dc_stage_params *best,
			 const struct dc_stage_params **moe, struct dc_stage_params *keep, uint64_t *stage, uint64_t *mtp)
{
	const struct dc_training *t = &p->in->training;
	struct dc_axis_ctx x = {.b = b, .p = p, .best = best};
	uint64_t top;
	if (!p->in->model.num_experts || p->in->model.params_explicit || t->recompute != DC_RECOMPUTE_FULL ||
	    !t->recompute_layers || !(*moe)->moe_layers)
		return;
	x.moe = *moe;
	x.moe_stage = *stage;
	top = 2 * ((*moe)->moe_layers + *mtp) + dc_axis_recomputed_layers(&x, 1);
	for (uint64_t s = 0; s < p->layout.pp; s++) {
		struct dc_stage_params r;
		const struct dc_stage_params *sp;
		uint64_t w, n;
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
		n = ep_mtp(p, s);
		w = 2 * (r.moe_layers + n) + dc_axis_recomputed_layers(&x, 1);
		if (w > top) {
			top = w;
			*keep = r;
			*moe = keep;
			*stage = s;
			*mtp = n;
		}
	}
}

/* Under COMM_RECHUNK (*c computed for a plan that differs from p in its
 * virtual pipeline and sharding alone), whether tp's, cp's and ep's calls
 * read nothing the model chunks change: a model without experts (no MoE
 * layer to move between stages) and without MTP modules (they follow the
 * head's chunk), no full recompute of
 * training.recompute_layers of each chunk (dc_axis_recomputed_layers), no
 * DualPipe, whose chunks run half the microbatches (the input names it
 * for either plan: dc_layout_schedule; without it both analyse the stage
 * with the most parameters, p->most: comm_run), and the same analysed
 * stage and layers as c's */
static int rechunk_keeps(const struct dc_plan *p, const struct dc_comm *c)
{
	const struct dc_config *in = p->in;
	enum dc_pipe_schedule named = in->parallel.pipeline_schedule;
	return !in->model.num_experts && !in->model.mtp_layers &&
	       !(in->training.recompute == DC_RECOMPUTE_FULL && in->training.recompute_layers) &&
	       named != DC_PIPE_DUALPIPE && named != DC_PIPE_DUALPIPEV && c->stage == p->most_stage &&
	       c->layers == p->most.layers;
}

/* What a computation that overflows, or that issues more kinds of call
 * than a strategy holds, says */
static const char overflow_error[] = "'model' x 'training' x 'precision': communication bytes per step overflow 64 bits";
static const char full_error[] = "internal: an axis issues more kinds of collective than distcalc holds "
				 "(DC_COMM_MAX_COLL, include/distcalc/comm.h); please report the config";

/* `cm`: the search's memo of the data-parallel axes' calls (NULL: none) */
static int comm_run(const struct dc_plan *p, struct dc_comm *c, const char **error, enum comm_mode mode,
		    struct dc_comm_memo *cm)
{
	/* the data-parallel axes' overflow apart (bs), so that the memo
	 * keeps theirs */
	struct dc_ck b = {0}, bs = {0};
	struct dc_comm_sync_key key;
	const struct sharded_slot *hit = NULL;
	/* the stage with the most parameters sends the most DP/FSDP bytes */
	struct dc_stage_params best = p->most, rank_moe;
	const struct dc_stage_params *moe = NULL;
	uint64_t moe_stage = 0, moe_mtp = 0, moe_n = 0, best_n;
	enum dc_pipe_schedule sch = dc_pipeline_schedule(p);
	int dual = sch == DC_PIPE_DUALPIPE || sch == DC_PIPE_DUALPIPEV;
	struct dc_axis_memo memo;
	struct dc_axis_ctx x;

	c->memo = NULL;
	c->memo_epoch = 0;
	if (mode == COMM_RECHUNK && !rechunk_keeps(p, c))
		mode = COMM_ALL; /* the kept axes read the chunks: every axis again */
	comm_clear(c, mode);
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
			/* the rank's MoE layers, its MTP modules' included */
			if (r.moe_layers + ep_mtp(p, s) > moe_n) {
				rank_moe = r;
				moe = &rank_moe;
				moe_stage = s;
				moe_mtp = ep_mtp(p, s);
				moe_n = r.moe_layers + moe_mtp;
			}
		}
	}
	c->layers = best.layers;
	c->stage_moe_layers = best.moe_layers;
	c->dp_params = best.total;
	c->dp_expert_params = best.expert_params;
	/* the EP calls are per MoE layer: priced on the stage that holds
	 * the most (a MoE model's segments searched), the analysed one
	 * when it holds as many */
	c->ep_stage = c->stage;
	c->mtp_layers = dc_axis_mtp_layers(p, c->stage);
	best_n = best.moe_layers + (dc_axis_mtp_moe(p) ? c->mtp_layers : 0);
	if (!dual && p->in->model.num_experts > 0) {
		moe = most_moe_stage(p, &moe_stage, &moe_mtp);
		moe_n = moe ? moe->moe_layers + moe_mtp : 0;
	}
	if (moe && moe_n > best_n) {
		c->ep_stage = moe_stage;
	} else {
		moe = &best;
		moe_mtp = best_n - best.moe_layers;
	}
	replay_stage(p, dual, &b, &best, &moe, &rank_moe, &c->ep_stage, &moe_mtp);
	c->moe_layers = moe->moe_layers + moe_mtp;
	/* each axis emits its own calls (src/axis/): dp's and fsdp's from
	 * the search's memo when it holds them for what they read */
	memo.used = memo.next = 0;
	if (cm && p->net_memo) { /* the network known by its net memo */
		sharded_key_of(p, &best, c->stage, &key);
		if ((hit = sharded_find(cm, p, &key)) != NULL) {
			sharded_take(hit, p, c);
			bs.overflow = hit->overflow;
		}
		/* the memo's context is p's groups until its next one */
		c->memo = cm;
		c->memo_epoch = cm->epoch;
	}
	/* one context for every axis (no emitter writes its members): each
	 * axis its own strategy and overflow flag */
	x = (struct dc_axis_ctx){&b, p, &best, moe, NULL, DC_STRAT_DP, &memo, c->stage, c->ep_stage, c->mtp_layers,
				 moe_mtp, c->tp_kind, &c->tp_head};
	for (int i = 0; i < DC_STRAT_COUNT; i++) {
		const struct dc_axis_row *row = &dc_axis_rows[i];
		int sharded = reads_sharding(row->strategy);
		if (!emitted(mode, row->strategy) || (hit && sharded))
			continue; /* kept, summed when it was emitted */
		x.b = sharded ? &bs : &b;
		x.s = &c->s[row->strategy];
		x.axis = row->strategy;
		row->comm(&x);
	}
	/* each strategy's sums, then the totals, in strategy order */
	for (int i = 0; i < DC_STRAT_COUNT; i++) {
		uint64_t tmp;
		int sharded = reads_sharding((enum dc_strategy)i);
		if (emitted(mode, (enum dc_strategy)i) && !(hit && sharded))
			sum_strategy(sharded ? &bs : &b, &c->s[i]);
		if (dc_add_u64(c->bytes_per_rank, c->s[i].bytes_per_rank, &tmp))
			b.overflow = 1;
		c->bytes_per_rank = tmp;
		c->time_s += c->s[i].time_s;
	}
	if (cm && p->net_memo && !hit) {
		const struct dc_comm_strategy *const kept[2] = {&c->s[sharded_axes[0]], &c->s[sharded_axes[1]]};
		sharded_put(cm, p, &key, kept, bs.overflow);
	}
	if (bs.overflow)
		b.overflow = 1;
	if (hit && !b.overflow)
		DC_MEMO_VERIFY(comm_verify("the data-parallel axes' calls kept for their inputs (src/est/comm.c comm_memo)",
					   p, c));
	if (b.overflow) {
		*error = overflow_error;
		return -1;
	}
	for (int i = 0; i < DC_STRAT_COUNT + NTP_EXTRA; i++)
		if (i < DC_STRAT_COUNT ? c->s[i].full : tp_extra(c, i - DC_STRAT_COUNT)->full) {
			*error = full_error;
			return -1;
		}
	return 0;
}

/* dc_comm_sync_rows with no memo: `axis` (DC_STRAT_DP or DC_STRAT_FSDP)
 * emitted for the rank as comm_run emits it for the analysed one */
static void sync_rows_emit(const struct dc_plan *p, enum dc_strategy axis, uint64_t stage,
			   const struct dc_stage_params *params, struct dc_comm_strategy *out, struct dc_ck *b)
{
	struct dc_axis_memo memo;
	/* dp.c and fsdp.c read the rank's parameters and its stage, neither
	 * another stage's experts nor the layers' kinds */
	struct dc_axis_ctx x = {.b = b, .p = p, .best = params, .moe = params, .s = out, .axis = axis,
				.memo = &memo, .stage = stage, .moe_stage = stage};
	memo.used = memo.next = 0;
	strategy_clear(out);
	dc_axis_rows[axis].comm(&x);
	sum_strategy(b, out);
}

#ifdef DISTCALC_VERIFY_MEMOS
/* A rank's rows from the search's memo against their emission */
static void sync_rows_verify(const struct dc_plan *p, enum dc_strategy axis, uint64_t stage,
			     const struct dc_stage_params *params, const struct dc_comm_strategy *s)
{
	static const char memo[] = "a rank's dp or fsdp rows kept for their inputs (src/est/comm.c dc_comm_sync_rows)";
	struct dc_comm_strategy *f = malloc(sizeof(*f));
	struct dc_ck b = {0};
	if (!f)
		abort(); /* a debug build's check: no way on without it */
	sync_rows_emit(p, axis, stage, params, f, &b);
	strategy_verify(memo, "rows", s, f);
	free(f);
}
#endif

void dc_comm_sync_key(const struct dc_plan *p, enum dc_strategy axis, uint64_t stage,
		      const struct dc_stage_params *params, struct dc_comm_sync_key *key)
{
	if (axis != DC_STRAT_FSDP) {
		/* keyed on what dp.c reads alone: the rank's stage and its
		 * layers are not read, so ranks of other stages, and other
		 * layouts' ranks, with the same counts share rows */
		struct dc_stage_params counts;
		memset(&counts, 0, sizeof(counts));
		counts.total = params->total;
		counts.expert_params = params->expert_params;
		sharded_key_of(p, &counts, 0, key);
		key->in_flight = 0;
		key->fsdp_unit = 0;
		key->reshard_fwd = 0;
		key->working_bytes = 0;
		/* the framework's buckets and reduce, what dp.c reads of it,
		 * are keyed above */
		key->framework = 0;
		key->tied = 0;
		key->dp_only = 1;
	} else {
		/* fsdp.c reads the stage and every count: the key comm_run's
		 * analysed rank has, whose slot holds the same two strategies
		 * (dp's not in play beside fsdp's) */
		sharded_key_of(p, params, stage, key);
	}
}

int dc_comm_sync_rows(const struct dc_plan *p, const struct dc_comm *c, enum dc_strategy axis, uint64_t stage,
		      const struct dc_stage_params *params, struct dc_comm_strategy *out, const char **error)
{
	return dc_comm_sync_rows_keyed(p, c, axis, stage, params, NULL, out, error);
}

int dc_comm_sync_rows_keyed(const struct dc_plan *p, const struct dc_comm *c, enum dc_strategy axis, uint64_t stage,
			    const struct dc_stage_params *params, const struct dc_comm_sync_key *key,
			    struct dc_comm_strategy *out, const char **error)
{
	struct dc_ck b = {0};
	struct dc_comm_memo *cm = p->comm_memo;
	const struct dc_comm_sync_key *k = key;
	struct dc_comm_sync_key own;
	const struct sharded_slot *hit = NULL;
	int i = axis == DC_STRAT_FSDP; /* the slot's kept[] */
	if (cm && p->net_memo) {
		if (!k) {
			dc_comm_sync_key(p, axis, stage, params, &own);
			k = &own;
		}
		/* c's emission on p found the memo's context p's groups: no
		 * other context since, they still are */
		hit = sharded_find_in(cm, p, k, c && c->memo == cm && c->memo_epoch == cm->epoch);
	}
	if (hit) {
		strategy_clear(out); /* `full` 0: a kept emission never was */
		kept_take(hit, i, p, out);
		b.overflow = hit->overflow;
		if (!b.overflow)
			DC_MEMO_VERIFY(sync_rows_verify(p, axis, stage, params, out));
	} else {
		sync_rows_emit(p, axis, stage, params, out, &b);
		if (cm && p->net_memo && !out->full) {
			struct dc_comm_strategy none;
			const struct dc_comm_strategy *const kept[2] = {i ? &none : out, i ? out : &none};
			strategy_clear(&none);
			sharded_put(cm, p, k, kept, b.overflow);
		}
	}
	if (b.overflow) {
		*error = overflow_error;
		return -1;
	}
	if (out->full) {
		*error = full_error;
		return -1;
	}
	return 0;
}

int dc_comm_mtp_moe(const struct dc_plan *p)
{
	return dc_axis_mtp_moe(p);
}

int dc_comm_compute(const struct dc_plan *p, struct dc_comm *c, const char **error)
{
	return comm_run(p, c, error, COMM_ALL, p->comm_memo);
}

int dc_comm_reshard(const struct dc_plan *p, struct dc_comm *c, const char **error)
{
	int rc = comm_run(p, c, error, COMM_RESHARD, p->comm_memo);
	if (rc == 0)
		DC_MEMO_VERIFY(comm_verify("collectives kept across shardings (src/est/comm.c dc_comm_reshard)", p, c));
	return rc;
}

int dc_comm_rechunk(const struct dc_plan *p, struct dc_comm *c, const char **error)
{
	int rc = comm_run(p, c, error, COMM_RECHUNK, p->comm_memo);
	if (rc == 0)
		DC_MEMO_VERIFY(comm_verify("collectives kept across virtual pipelines (src/est/comm.c dc_comm_rechunk)", p,
					   c));
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
		[DC_CW_MIRROR_GRAD_BUCKET] = "mirror gradient sum",
		[DC_CW_MIRROR_EXPERT_GRAD_BUCKET] = "expert mirror gradient sum",
		[DC_CW_UNIT_PARAMS] = "unit params",
		[DC_CW_EXPERT_UNIT_PARAMS] = "expert unit params",
		[DC_CW_UNIT_GRADS] = "unit grads",
		[DC_CW_EXPERT_UNIT_GRADS] = "expert unit grads",
		[DC_CW_ROOT_PARAMS] = "embedding/head params",
		[DC_CW_ROOT_GRADS] = "embedding/head grads",
		[DC_CW_EMBED_PARAMS] = "embedding unit params",
		[DC_CW_EMBED_GRADS] = "embedding unit grads",
		[DC_CW_HEAD_PARAMS] = "norm/head unit params",
		[DC_CW_HEAD_GRADS] = "norm/head unit grads",
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
		[DC_CW_TP_LOSS_CHUNK] = "loss's max, sum and target logit (head)",
		[DC_CW_TP_HEAD_IN] = "head input gathered (head's stage)",
		[DC_CW_TP_HEAD_IN_GRAD] = "head input grad (head's stage)",
		[DC_CW_TP_HEAD_REGATHER] = "head input re-gathered for weight grads",
		[DC_CW_TP_EMBED_OUT] = "embedding output (embedding's stage)",
		[DC_CW_TP_EMBED_GRAD] = "embedding output grad gathered",
		[DC_CW_TP_MTP_IN] = "MTP eh_proj input (2h) gathered",
		[DC_CW_TP_MTP_OUT] = "MTP eh_proj output gathered over h",
		[DC_CW_TP_MTP_OUT_GRAD] = "MTP eh_proj output grad gathered",
		[DC_CW_TP_MTP_IN_GRAD] = "MTP eh_proj input grad (2h)",
		[DC_CW_TP_MTP_REGATHER] = "MTP eh_proj input re-gathered",
		[DC_CW_TP_MTP_RECOMPUTED] = "MTP eh_proj gathers, recomputed",
		[DC_CW_TP_MTP_EMBED] = "MTP embedding output",
		[DC_CW_TP_MTP_EMBED_GRAD] = "MTP embedding output grad gathered",
		[DC_CW_TP_MTP_AMAX] = "MTP eh_proj FP8 input amax (max)",
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
		[DC_CW_CP_DKV_RING] = "dK/dV (FP32) to next cp rank",
		[DC_CW_CP_DKV_RING_LAST] = "dK/dV (FP32) home, waited for",
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
