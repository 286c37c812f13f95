/* dp.c - the data-parallel axis: DDP's gradient AllReduce, or ZeRO-1/2's
 * ReduceScatter of the gradients and AllGather of the updated parameters,
 * over dp x cp ranks (context-parallel ranks hold the same weights and
 * join the sync, Megatron-Core); routed experts over the
 * expert-data-parallel group. docs/formulas-systems.md, "Communication
 * per step". */
#include "axis_int.h"

/* Gradient synchronisation of `params` parameters on the strategy's
 * current group: DDP AllReduce per bucket once per step (no_sync while
 * accumulating); ZeRO-1/2 ReduceScatter of the grads and AllGather of the
 * updated params. ZeRO-1 keeps full gradients and reduces once per step;
 * ZeRO-2 keeps only its shard, so it reduce-scatters every microbatch
 * (DeepSpeed stage 2). */
static void dp_sync(struct dc_axis_ctx *x, uint64_t params, int expert)
{
	const struct dc_plan *p = x->p;
	const struct dc_precision *pr = &p->in->precision;
	uint64_t bucket = p->in->parallel.bucket_bytes;
	enum dc_sharding sharding = p->layout.sharding;
	uint64_t gas = p->layout.grad_accum_steps;
	uint64_t grads = dc_ck_mul(x->b, params, pr->grad_bytes);
	uint64_t weights = dc_ck_mul(x->b, params, pr->param_bytes);
	enum dc_coll_what grad_what = expert ? DC_CW_EXPERT_GRAD_BUCKET : DC_CW_GRAD_BUCKET;
	if (sharding == DC_SHARD_NONE) {
		dc_axis_push_buckets(x, DC_COLL_ALL_REDUCE, grad_what, DC_CPHASE_BACKWARD, DC_OVL_GRAD_SYNC, grads,
				     bucket);
	} else {
		uint64_t times = sharding == DC_SHARD_ZERO2 ? gas : 1;
		dc_axis_push(x, DC_COLL_REDUCE_SCATTER, grad_what, DC_CPHASE_BACKWARD, DC_OVL_GRAD_SYNC,
			     dc_ck_mul(x->b, grads / bucket, times), bucket);
		dc_axis_push(x, DC_COLL_REDUCE_SCATTER, grad_what, DC_CPHASE_BACKWARD, DC_OVL_GRAD_SYNC, times,
			     grads % bucket);
		dc_axis_push_buckets(x, DC_COLL_ALL_GATHER, expert ? DC_CW_UPDATED_EXPERT_PARAMS : DC_CW_UPDATED_PARAMS,
				     DC_CPHASE_AFTER_OPTIMIZER, DC_OVL_EXPOSED, weights, bucket);
	}
}

void dc_axis_dp_comm(struct dc_axis_ctx *x)
{
	const struct dc_plan *p = x->p;
	const struct dc_stage_params *best = x->best;
	if (p->dp_cp < 2 || p->layout.sharding == DC_SHARD_FSDP)
		return;
	dc_axis_setup(x, p->dp_cp, &p->dpcp_link, &p->dpcp_net_group);
	dp_sync(x, best->total - best->expert_params, 0);
	/* routed experts are replicated only over the expert-data-parallel
	 * group, dp / ep ranks (Megatron-Core): their gradients are
	 * synchronised there */
	if (best->expert_params > 0 && p->expert_dp_cp > 1) {
		x->s->group_size = p->expert_dp_cp;
		dc_axis_use_link(x->s, &p->edpcp_link, &p->edpcp_net_group);
		dp_sync(x, best->expert_params, 1);
		x->s->group_size = p->dp_cp;
		dc_axis_use_link(x->s, &p->dpcp_link, &p->dpcp_net_group);
	}
}
