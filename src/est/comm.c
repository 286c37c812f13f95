/* comm.c - communication per step; see comm.h and
 * docs/formulas-systems.md, "Communication per step". */
#include "distcalc/comm.h"

#include <string.h>

#include "distcalc/memory.h"
#include "distcalc/plan.h"
#include "distcalc/util.h"

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
	if (k == DC_COLL_SEND)
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

/* Appends `count` calls of `kind` on M bytes to strategy `s`. */
static void push(struct dc_ck *b, struct dc_comm_strategy *s, enum dc_coll_kind kind,
		 const char *what, const char *phase, uint64_t count, uint64_t msg_bytes)
{
	struct dc_coll *c;
	if (count == 0 || msg_bytes == 0 || s->ncoll == DC_COMM_MAX_COLL)
		return;
	c = &s->coll[s->ncoll++];
	c->kind = kind;
	c->what = what;
	c->phase = phase;
	c->count = count;
	c->msg_bytes = msg_bytes;
	c->group_size = s->group_size;
	c->link = s->link;
	c->bytes_per_rank = dc_ck_mul(b, count, bytes_sent(kind, s->group_size, msg_bytes));
	c->time_s = (double)count * time_s(kind, s->group_size, msg_bytes, &s->link_params);
}

/* `total` bytes in buckets of `bucket` bytes: full buckets and the rest. */
static void push_buckets(struct dc_ck *b, struct dc_comm_strategy *s, enum dc_coll_kind kind,
			 const char *what, const char *phase, uint64_t total, uint64_t bucket)
{
	uint64_t full = total / bucket, rest = total % bucket;
	push(b, s, kind, what, phase, full, bucket);
	push(b, s, kind, what, phase, 1, rest);
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

static void use_link(struct dc_comm_strategy *s, const struct dc_plan_link *l)
{
	s->link = l->choice;
	s->link_params = l->params;
}

static void setup(const struct dc_plan *p, struct dc_comm_strategy *s, enum dc_axis axis)
{
	s->in_play = 1;
	s->group_size = p->topo.degree[axis];
	use_link(s, &p->link[axis]);
}

/* DP gradient synchronisation of `params` parameters on the strategy's
 * current group: DDP AllReduce per bucket once per step (no_sync while
 * accumulating); ZeRO-1/2 ReduceScatter of the grads and AllGather of the
 * updated params. ZeRO-1 keeps full gradients and reduces once per step;
 * ZeRO-2 keeps only its shard, so it reduce-scatters every microbatch
 * (DeepSpeed stage 2). `tag` prefixes the rows ("expert "). */
static void dp_sync(struct dc_ck *b, struct dc_comm_strategy *s, const struct dc_plan *p, uint64_t params,
		    const char *tag)
{
	const struct dc_precision *pr = &p->in->precision;
	const struct dc_parallel *par = &p->in->parallel; /* buckets */
	enum dc_sharding sharding = p->layout.sharding;
	uint64_t gas = p->layout.grad_accum_steps;
	uint64_t grads = dc_ck_mul(b, params, pr->grad_bytes);
	uint64_t weights = dc_ck_mul(b, params, pr->param_bytes);
	int expert = *tag != '\0';
	const char *bucket = expert ? "expert gradient bucket" : "gradient bucket";
	if (sharding == DC_SHARD_NONE) {
		push_buckets(b, s, DC_COLL_ALL_REDUCE, bucket, "backward", grads, par->bucket_bytes);
	} else {
		uint64_t times = sharding == DC_SHARD_ZERO2 ? gas : 1;
		push(b, s, DC_COLL_REDUCE_SCATTER, bucket, "backward",
		     dc_ck_mul(b, grads / par->bucket_bytes, times), par->bucket_bytes);
		push(b, s, DC_COLL_REDUCE_SCATTER, bucket, "backward", times, grads % par->bucket_bytes);
		push_buckets(b, s, DC_COLL_ALL_GATHER, expert ? "updated expert params" : "updated params",
			     "after optimizer step", weights, par->bucket_bytes);
	}
}

/* Zeroes what the strategies' sums and the readers rely on; calls past
 * each strategy's ncoll are never read. */
static void comm_clear(struct dc_comm *c)
{
	c->stage = 0;
	c->bytes_per_rank = 0;
	c->time_s = 0;
	for (int i = 0; i < DC_STRAT_COUNT; i++) {
		struct dc_comm_strategy *s = &c->s[i];
		s->in_play = 0;
		s->group_size = 0;
		s->link = DC_LINK_AUTO;
		s->link_params.bw_bytes_per_s = 0;
		s->link_params.latency_s = 0;
		s->ncoll = 0;
		s->bytes_per_rank = 0;
		s->time_s = 0;
	}
}

int dc_comm_compute(const struct dc_plan *p, struct dc_comm *c, const char **error)
{
	const struct dc_config *cfg = p->in;
	const struct dc_layout *par = &p->layout;
	const struct dc_precision *pr = &cfg->precision;
	uint64_t gas = par->grad_accum_steps;
	struct dc_ck b = {0};
	/* the stage with the most parameters sends the most DP/FSDP bytes */
	const struct dc_stage_params best = p->most;

	comm_clear(c);
	c->stage = p->most_stage;
	if (p->most_overflow)
		b.overflow = 1;

	if (par->dp > 1 && par->sharding != DC_SHARD_FSDP) {
		struct dc_comm_strategy *s = &c->s[DC_STRAT_DP];
		/* routed experts are replicated only over the expert-data-parallel
		 * group, dp / ep ranks (Megatron-Core): their gradients are
		 * synchronised there, the rest over all of dp */
		uint64_t edp = p->expert_dp;
		uint64_t dense = best.total - best.expert_params;
		setup(p, s, DC_AXIS_DP);
		dp_sync(&b, s, p, dense, "");
		if (best.expert_params > 0 && edp > 1) {
			uint64_t dp_size = s->group_size;
			s->group_size = edp;
			use_link(s, &p->edp_link);
			dp_sync(&b, s, p, best.expert_params, "expert ");
			s->group_size = dp_size;
			use_link(s, &p->link[DC_AXIS_DP]);
		}
	}
	if (par->dp > 1 && par->sharding == DC_SHARD_FSDP) {
		struct dc_comm_strategy *s = &c->s[DC_STRAT_FSDP];
		/* layers may differ in size (dense layers before MoE ones): split
		 * the stage's layer parameters into units of q and q + 1 so the
		 * units add up to the stage exactly */
		uint64_t layer_units = best.layers ? best.layers : 1;
		uint64_t layer_total = best.total - best.other_params;
		uint64_t other_params = best.other_params;
		uint64_t q, r;
		setup(p, s, DC_AXIS_DP);
		if (cfg->parallel.fsdp_unit == DC_FSDP_UNIT_MODEL) {
			layer_units = 1;
			layer_total = best.total;
			other_params = 0;
		}
		q = layer_total / layer_units;
		r = layer_total % layer_units;
		/* FSDP2 per unit per microbatch: AllGather before forward, again
		 * before backward when resharded, ReduceScatter the grads */
		push(&b, s, DC_COLL_ALL_GATHER, "unit params", "forward", dc_ck_mul(&b, layer_units - r, gas),
		     dc_ck_mul(&b, q, pr->working_bytes));
		push(&b, s, DC_COLL_ALL_GATHER, "unit params", "forward", dc_ck_mul(&b, r, gas),
		     dc_ck_mul(&b, q + 1, pr->working_bytes));
		push(&b, s, DC_COLL_ALL_GATHER, "embedding/head params", "forward", gas,
		     dc_ck_mul(&b, other_params, pr->working_bytes));
		if (cfg->parallel.reshard_after_forward) {
			push(&b, s, DC_COLL_ALL_GATHER, "unit params", "backward", dc_ck_mul(&b, layer_units - r, gas),
			     dc_ck_mul(&b, q, pr->working_bytes));
			push(&b, s, DC_COLL_ALL_GATHER, "unit params", "backward", dc_ck_mul(&b, r, gas),
			     dc_ck_mul(&b, q + 1, pr->working_bytes));
			/* the root unit (embedding, head) stays gathered through
			 * backward: FSDP2 never reshards the root after forward */
		}
		push(&b, s, DC_COLL_REDUCE_SCATTER, "unit grads", "backward", dc_ck_mul(&b, layer_units - r, gas),
		     dc_ck_mul(&b, q, pr->grad_bytes));
		push(&b, s, DC_COLL_REDUCE_SCATTER, "unit grads", "backward", dc_ck_mul(&b, r, gas),
		     dc_ck_mul(&b, q + 1, pr->grad_bytes));
		push(&b, s, DC_COLL_REDUCE_SCATTER, "embedding/head grads", "backward", gas,
		     dc_ck_mul(&b, other_params, pr->grad_bytes));
	}
	{
		/* b s h activations, in the layers' working precision */
		uint64_t act = dc_ck_mul(&b, dc_ck_mul(&b, p->tokens_per_microbatch, cfg->model.hidden_size),
					 pr->working_bytes);
		uint64_t layers = p->layers_per_stage;
		if (par->tp > 1) {
			struct dc_comm_strategy *s = &c->s[DC_STRAT_TP];
			uint64_t per_mb = dc_ck_mul(&b, dc_ck_mul(&b, 2, layers), gas);
			/* full recompute runs every layer's forward again in
			 * backward, and with it the forward's collectives */
			int refwd = cfg->training.recompute == DC_RECOMPUTE_FULL;
			setup(p, s, DC_AXIS_TP);
			if (!par->sequence_parallel) {
				/* Megatron-LM 2021 section 3: 2 AllReduces forward, 2
				 * backward, per layer per microbatch */
				push(&b, s, DC_COLL_ALL_REDUCE, "layer output (f/g)", "forward", per_mb, act);
				push(&b, s, DC_COLL_ALL_REDUCE, "layer input grad (f/g)", "backward", per_mb, act);
				if (refwd)
					push(&b, s, DC_COLL_ALL_REDUCE, "layer output, recomputed", "backward",
					     per_mb, act);
			} else {
				/* Korthikanti et al. 2022 section 4.2.2: each AllReduce
				 * becomes an AllGather and a ReduceScatter of the full
				 * b s h tensor, the same bytes */
				push(&b, s, DC_COLL_ALL_GATHER, "sequence shards in (g)", "forward", per_mb, act);
				push(&b, s, DC_COLL_REDUCE_SCATTER, "layer output (g-bar)", "forward", per_mb, act);
				push(&b, s, DC_COLL_ALL_GATHER, "output grad (g-bar)", "backward", per_mb, act);
				push(&b, s, DC_COLL_REDUCE_SCATTER, "input grad (g)", "backward", per_mb, act);
				/* the gathered input is not kept (activations hold s/t):
				 * Megatron gathers it again for the weight gradients */
				push(&b, s, DC_COLL_ALL_GATHER, "input re-gathered for weight grads", "backward", per_mb,
				     act);
				if (refwd) {
					push(&b, s, DC_COLL_ALL_GATHER, "sequence shards, recomputed", "backward",
					     per_mb, act);
					push(&b, s, DC_COLL_REDUCE_SCATTER, "layer output, recomputed", "backward",
					     per_mb, act);
				}
			}
		}
		if (par->pp > 1) {
			struct dc_comm_strategy *s = &c->s[DC_STRAT_PP];
			/* interleaving: each microbatch crosses every rank's
			 * boundaries v times (Megatron-LM 2021 section 2.2.2) */
			uint64_t v = p->v;
			/* with sequence parallelism each tp rank holds and sends
			 * only its s/t slice (Megatron-Core's pipeline tensor shape) */
			uint64_t msg = par->sequence_parallel ? act / par->tp + (act % par->tp != 0) : act;
			setup(p, s, DC_AXIS_PP);
			s->group_size = 2; /* a send crosses one stage boundary */
			/* a middle stage sends v activations forward and v gradients
			 * back per microbatch; with two stages the ring of chunks
			 * folds: rank 0 sends v forward and v - 1 back, rank 1 the
			 * reverse, 2v - 1 in all (v = 1: one direction only) */
			push(&b, s, DC_COLL_SEND, "activations to next stage", "forward", dc_ck_mul(&b, gas, v), msg);
			push(&b, s, DC_COLL_SEND, "gradients to previous stage", "backward",
			     dc_ck_mul(&b, gas, par->pp == 2 ? v - 1 : v), msg);
			s->group_size = par->pp;
		}
	}
	if (par->ep > 1 && best.moe_layers > 0) {
		/* MoE token dispatch and combine: an AlltoAll each in forward and
		 * again in backward, per MoE layer per microbatch, over the ep
		 * ranks that hold the experts (consecutive dp ranks,
		 * Megatron-Core). Each carries the microbatch's tokens on this
		 * rank (s/t of them under sequence parallelism) x top-k x h
		 * 16-bit values; routing is assumed uniform, M/ep to each peer */
		struct dc_comm_strategy *s = &c->s[DC_STRAT_EP];
		uint64_t tokens = p->tokens_per_microbatch_rank;
		uint64_t calls = dc_ck_mul(&b, dc_ck_mul(&b, 2, best.moe_layers), gas);
		uint64_t msg = dc_ck_mul(&b, dc_ck_mul(&b, tokens, cfg->model.experts_per_token),
					 dc_ck_mul(&b, cfg->model.hidden_size, pr->working_bytes));
		s->in_play = 1;
		s->group_size = par->ep;
		use_link(s, &p->ep_link);
		push(&b, s, DC_COLL_ALL_TO_ALL, "token dispatch and combine", "forward", calls, msg);
		push(&b, s, DC_COLL_ALL_TO_ALL, "their gradients", "backward", calls, msg);
	}
	for (int i = 0; i < DC_STRAT_COUNT; i++)
		sum_strategy(&b, &c->s[i]);
	for (int i = 0; i < DC_STRAT_COUNT; i++) {
		uint64_t tmp;
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

const char *dc_coll_kind_name(enum dc_coll_kind k)
{
	static const char *const names[] = {"all_reduce", "reduce_scatter", "all_gather", "send",
					    "all_to_all"};
	return names[k];
}

const char *dc_strategy_name(enum dc_strategy s)
{
	static const char *const names[] = {"dp", "fsdp", "tp", "pp", "ep"};
	return names[s];
}
