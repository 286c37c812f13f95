/* dp.c - the data-parallel axis: DDP's gradient AllReduce, or ZeRO-1/2's
 * ReduceScatter of the gradients (DeepSpeed's AllReduce of each bucket:
 * framework.h) and AllGather of the updated parameters,
 * over dp x cp ranks (context-parallel ranks hold the same weights and
 * join the sync, Megatron-Core); routed experts over the
 * expert-data-parallel group. Under HSDP (parallel.dp_replicate = r > 1,
 * Megatron's --num-distributed-optimizer-instances) the ZeRO collectives
 * run in one replica's shard group and each reduced gradient shard is
 * all-reduced across the r replicas. docs/formulas-systems.md,
 * "Communication per step". */
#include "axis_int.h"

#include "distcalc/framework.h"

/* The groups one kind of parameter synchronises over. */
struct dp_groups {
	uint64_t shard;             /* ranks its states shard over */
	enum dc_group_id shard_g;   /* ... that group (plan.h) */
	enum dc_group_id rep_g;     /* HSDP: the ranks holding the same shard */
};

static void on(struct dc_axis_ctx *x, uint64_t size, enum dc_group_id g)
{
	x->s->group_size = size;
	dc_axis_use_link(x->s, &x->p->group[g].link, &x->p->group[g].net);
}

/* DualPipe (activation.h): rank s holds stages s and pp - 1 - s, and its
 * mirror pp - 1 - s the same two, so every parameter has two copies whose
 * gradients are summed before the optimizer steps them
 * (deepseek-ai/DualPipe examples/example_dualpipe.py sums each rank's
 * gradients with its mirror's copy's). Each bucket is all-reduced over
 * the mirror pair once a step, after the data-parallel calls, on what the
 * rank then holds reduced: the whole bucket under DDP, its shard
 * (ceil(bucket / shard) bytes) under ZeRO-1/2, as HSDP's replicas; ZeRO-2
 * sums its accumulated shard once. `full` calls of `msg` bytes and
 * `nrest` of `rest`; the pair is the one holding the embedding and the
 * head (plan.h DC_GROUP_PP_MIRROR). */
static void mirror_sum(struct dc_axis_ctx *x, int expert, uint64_t full, uint64_t msg, uint64_t nrest, uint64_t rest)
{
	dc_axis_push_mirror(x, expert, full, msg);
	dc_axis_push_mirror(x, expert, nrest, rest);
}

/* Gradient synchronisation of `params` parameters: DDP AllReduce per
 * bucket once per step (no_sync while accumulating); ZeRO-1/2
 * ReduceScatter of the grads (under DeepSpeed an AllReduce of each
 * bucket, every rank keeping its slice: dc_framework_zero_grad_allreduce)
 * and AllGather of the updated params. ZeRO-1
 * keeps full gradients and reduces once per step; ZeRO-2 keeps only its
 * shard, so it reduce-scatters every microbatch (DeepSpeed stage 2). HSDP
 * all-reduces each reduce-scatter's shard, ceil(M / shard) bytes, across
 * the replicas. */
static void dp_sync(struct dc_axis_ctx *x, uint64_t params, int expert, const struct dp_groups *g)
{
	const struct dc_plan *p = x->p;
	const struct dc_precision *pr = &p->in->precision;
	struct dc_ck *b = x->b;
	/* training.framework's buckets (framework.h): the gradients', and the
	 * updated parameters' AllGather's */
	uint64_t bucket = dc_framework_grad_bucket_bytes(p), pbucket = dc_framework_param_bucket_bytes(p);
	enum dc_sharding sharding = p->layout.sharding;
	/* ZeRO-2 reduce-scatters each chunk's gradients every microbatch it
	 * runs: m / 2 under DualPipe (its rank's two stages, one direction's
	 * half each: activation.h) */
	uint64_t gas = dc_pipeline_chunk_microbatches(p), r = p->dp_replicate;
	/* several pipeline schedules a step (parallel.pipeline_schedule_
	 * microbatches): each ends with its own gradient sync, as
	 * torch.distributed.pipelining syncs at a schedule's last backward */
	uint64_t sched = dc_layout_schedules(&p->layout);
	uint64_t grads = dc_ck_mul(b, params, pr->grad_bytes);
	uint64_t weights = dc_ck_mul(b, params, pr->param_bytes);
	enum dc_coll_what grad_what = expert ? DC_CW_EXPERT_GRAD_BUCKET : DC_CW_GRAD_BUCKET;
	uint64_t times = sharding == DC_SHARD_ZERO2 ? gas : sched;
	uint64_t full = dc_ck_mul(b, grads / bucket, times), rest = grads % bucket;
	enum dc_coll_kind reduce = dc_framework_zero_grad_allreduce(p) ? DC_COLL_ALL_REDUCE : DC_COLL_REDUCE_SCATTER;
	if (sharding == DC_SHARD_NONE || sharding == DC_SHARD_FSDP) {
		if (g->shard > 1) {
			on(x, g->shard, g->shard_g);
			dc_axis_push(x, DC_COLL_ALL_REDUCE, grad_what, DC_CPHASE_BACKWARD, DC_OVL_GRAD_SYNC,
				     dc_ck_mul(b, grads / bucket, sched), bucket);
			dc_axis_push(x, DC_COLL_ALL_REDUCE, grad_what, DC_CPHASE_BACKWARD, DC_OVL_GRAD_SYNC, sched, rest);
		}
		mirror_sum(x, expert, dc_ck_mul(b, grads / bucket, sched), bucket, rest ? sched : 0, rest);
		return;
	}
	if (g->shard > 1) {
		on(x, g->shard, g->shard_g);
		dc_axis_push(x, reduce, grad_what, DC_CPHASE_BACKWARD, DC_OVL_GRAD_SYNC, full, bucket);
		dc_axis_push(x, reduce, grad_what, DC_CPHASE_BACKWARD, DC_OVL_GRAD_SYNC, times, rest);
	}
	if (r > 1) {
		enum dc_coll_what w = expert ? DC_CW_REPLICA_EXPERT_GRAD_BUCKET : DC_CW_REPLICA_GRAD_BUCKET;
		on(x, r, g->rep_g);
		dc_axis_push(x, DC_COLL_ALL_REDUCE, w, DC_CPHASE_BACKWARD, DC_OVL_GRAD_SYNC, full,
			     dc_ceil_div(bucket, g->shard));
		dc_axis_push(x, DC_COLL_ALL_REDUCE, w, DC_CPHASE_BACKWARD, DC_OVL_GRAD_SYNC, rest ? times : 0,
			     dc_ceil_div(rest, g->shard));
	}
	mirror_sum(x, expert, dc_ck_mul(b, grads / bucket, sched), dc_ceil_div(bucket, g->shard), rest ? sched : 0,
		   dc_ceil_div(rest, g->shard));
	if (g->shard > 1) {
		on(x, g->shard, g->shard_g);
		dc_axis_push_buckets(x, DC_COLL_ALL_GATHER, expert ? DC_CW_UPDATED_EXPERT_PARAMS : DC_CW_UPDATED_PARAMS,
				     DC_CPHASE_AFTER_OPTIMIZER, DC_OVL_EXPOSED, weights, pbucket);
	}
}

void dc_axis_dp_comm(struct dc_axis_ctx *x)
{
	const struct dc_plan *p = x->p;
	const struct dc_stage_params *best = x->best;
	int none = p->layout.sharding == DC_SHARD_NONE;
	/* DDP all-reduces over the whole dp x cp group: it has no shards */
	struct dp_groups dense = {none ? p->dp_cp : p->shard_dp_cp, none ? DC_GROUP_DP_CP : DC_GROUP_SHARD,
				  DC_GROUP_REP};
	struct dp_groups expert = {none ? p->expert_dp_cp : p->expert_shard_dp_cp,
				   none ? DC_GROUP_EDP_CP : DC_GROUP_ESHARD, DC_GROUP_EREP};
	/* DualPipe's mirror sum (mirror_sum) runs without data parallelism
	 * too; FSDP over one rank shards nothing (the loader's warning: as
	 * under none), so its mirror sum is priced here */
	int mirror = dc_pipeline_schedule(p) == DC_PIPE_DUALPIPE;
	if ((p->dp_cp < 2 && !mirror) || (p->layout.sharding == DC_SHARD_FSDP && p->dp_cp >= 2))
		return;
	dc_axis_setup(x, dense.shard, &p->group[dense.shard_g].link, &p->group[dense.shard_g].net);
	dp_sync(x, best->total - best->expert_params, 0, &dense);
	/* routed experts are replicated only over the expert-data-parallel
	 * group, dp / ep ranks (Megatron-Core): their gradients are
	 * synchronised there */
	if (best->expert_params > 0 && (p->expert_dp_cp > 1 || mirror))
		dp_sync(x, best->expert_params, 1, &expert);
	/* the mirror sum alone (dp 1): its pair, where the last call left
	 * the strategy, is its group */
	if (p->dp_cp >= 2)
		on(x, dense.shard, dense.shard_g);
}

/* ZeRO-1 (Rajbhandari et al. 2020, section 5) shards the master copy and
 * the optimizer states, ZeRO-2 the gradients too, over the states' shard
 * group: dp x cp (context-parallel ranks hold the same weights), one
 * replica's dp x cp / dp_replicate under HSDP; the routed experts' over
 * their expert-data-parallel ranks likewise. */
void dc_axis_dp_shards(const struct dc_plan *p, struct dc_state_shards *out)
{
	enum dc_sharding sh = p->layout.sharding;
	if (sh != DC_SHARD_ZERO1 && sh != DC_SHARD_ZERO2)
		return;
	out->dense[DC_STATE_MASTER] = out->dense[DC_STATE_OPTIMIZER] = p->shard_dp_cp;
	out->expert[DC_STATE_MASTER] = out->expert[DC_STATE_OPTIMIZER] = p->expert_shard_dp_cp;
	if (sh == DC_SHARD_ZERO2) {
		out->dense[DC_STATE_GRADS] = p->shard_dp_cp;
		out->expert[DC_STATE_GRADS] = p->expert_shard_dp_cp;
	}
}
