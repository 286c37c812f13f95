/* estimators.c - the estimator registry and its runner; see results.h.
 *
 * One row per estimator: its name, the results it reads and its compute.
 * Each compute wraps one module's function (batch.h, memory.h, ...) and
 * fills its own member of struct dc_results. */
#include "distcalc/results.h"

#include "distcalc/net.h"
#include "distcalc/plan.h"

/* The model's terms and its most loaded rank: both derived with the plan
 * (the ring's default message needs the latter), shown here; under the
 * DualPipes the rank holding the most of its two stages or chunks. */
static int model_compute(const struct dc_plan *p, struct dc_results *r)
{
	if (p->most_overflow) {
		r->error = "'model': parameter count overflows 64 bits";
		return -1;
	}
	r->model.terms = p->terms;
	r->model.most = p->most;
	r->model.most_stage = p->most_stage;
	{
		/* DualPipe puts stages s and pp - 1 - s on rank s, DualPipeV
		 * chunks s and 2pp - 1 - s: a rank's parameters are both
		 * (memory.h dc_memory_rank_params), the first rank with the
		 * most */
		enum dc_pipe_schedule sc = dc_pipeline_schedule(p);
		if (sc != DC_PIPE_DUALPIPE && sc != DC_PIPE_DUALPIPEV)
			return 0;
		for (uint64_t s = 0; s < p->layout.pp; s++) {
			struct dc_stage_params sp;
			if (dc_memory_rank_params(p, s, &sp) != 0) {
				r->error = "'model': parameter count overflows 64 bits";
				return -1;
			}
			if (s == 0 || sp.total > r->model.most.total) {
				r->model.most = sp;
				r->model.most_stage = s;
			}
		}
	}
	return 0;
}

static int batch_compute(const struct dc_plan *p, struct dc_results *r)
{
	return dc_batch_compute(p, &r->batch, &r->error);
}

static int memory_compute(const struct dc_plan *p, struct dc_results *r)
{
	return dc_memory_compute(p, &r->memory, &r->error);
}

static int ring_compute(const struct dc_plan *p, struct dc_results *r)
{
	struct dc_net_group g;
	struct dc_net_choice ch;
	dc_ring_compute(p->ring_ranks, p->ring_msg_bytes, &p->ring_link.params, p->ring_link.choice, &r->ring);
	/* beside the lab's one ring, every hop on one link, what the network
	 * model prices for the same AllReduce over the same ranks: NCCL runs
	 * several rings (or trees) at once over every NIC and NVLink the ranks
	 * have (a trial read the lab's time, 6 to 29 times longer on DGX and
	 * p5 nodes, as the run's) */
	if (p->ring_ranks < 2 || p->ring_ranks > p->world)
		return 0;
	dc_net_group_ranks(&p->net, 0, 1, p->ring_ranks, &g);
	if (dc_net_time(&p->net, DC_COLL_ALL_REDUCE, &g, p->ring_msg_bytes, DC_NET_ALGO_AUTO, &ch) != 0)
		return 0;
	r->ring.have_net = 1;
	r->ring.net_time_s = ch.time_s;
	r->ring.net_busbw_GBps = ch.busbw_bytes_per_s / 1e9;
	r->ring.net_algorithm = ch.algorithm;
	r->ring.net_protocol = ch.protocol;
	return 0;
}

static int comm_compute(const struct dc_plan *p, struct dc_results *r)
{
	return dc_comm_compute(p, &r->comm, &r->error);
}

static int strategies_compute(const struct dc_plan *p, struct dc_results *r)
{
	return dc_strategies_compute_parts(p, &r->batch, &r->comm, &r->memory, &r->strategies, &r->variant_parts,
					   &r->error);
}

static int flops_compute(const struct dc_plan *p, struct dc_results *r)
{
	return dc_flops_compute(p, &r->batch, &r->flops, &r->error);
}

static int compute_compute(const struct dc_plan *p, struct dc_results *r)
{
	return dc_compute_compute(p, &r->compute, &r->error);
}

/* the step reads the kernel times, the collectives, the FLOPs and the
 * batch as data (step.h) */
static int step_compute(const struct dc_plan *p, struct dc_results *r)
{
	return dc_step_compute(p, &r->compute, &r->comm, &r->flops, &r->batch, &r->step, &r->error);
}

/* the strategies comparison's variants get their step times beside the
 * step's own: a row of their own, so that a search or a what-if that
 * wants the step alone does not pay for two more layouts, and so that
 * dc_step_variants can run the step row on each variant */
static int step_variants_compute(const struct dc_plan *p, struct dc_results *r)
{
	/* the variants' plans and collectives as the strategies row left
	 * them, when it ran on this plan in this evaluation, and the
	 * kernels they may keep */
	return dc_step_variants_from(p, &r->step, r->done & DC_EST_BIT(DC_EST_COMPUTE) ? &r->compute : NULL,
				     r->done & DC_EST_BIT(DC_EST_STRATEGIES) ? &r->variant_parts : NULL, &r->error);
}

static int checkpoint_compute(const struct dc_plan *p, struct dc_results *r)
{
	return dc_checkpoint_compute(p, &r->memory, &r->batch, &r->checkpoint, &r->error);
}

static int loss_compute(const struct dc_plan *p, struct dc_results *r)
{
	return dc_loss_compute(p, &r->loss, &r->error);
}

const struct dc_estimator dc_estimators[DC_EST_COUNT] = {
	[DC_EST_MODEL] = {"model", 0, model_compute},
	[DC_EST_BATCH] = {"batch", 0, batch_compute},
	[DC_EST_MEMORY] = {"memory", 0, memory_compute},
	[DC_EST_RING] = {"ring", 0, ring_compute},
	[DC_EST_COMM] = {"comm", 0, comm_compute},
	[DC_EST_STRATEGIES] = {"strategies", DC_EST_BIT(DC_EST_BATCH) | DC_EST_BIT(DC_EST_COMM) | DC_EST_BIT(DC_EST_MEMORY),
			       strategies_compute},
	[DC_EST_FLOPS] = {"flops", DC_EST_BIT(DC_EST_BATCH), flops_compute},
	[DC_EST_COMPUTE] = {"compute", 0, compute_compute},
	[DC_EST_STEP] = {"step",
			 DC_EST_BIT(DC_EST_COMPUTE) | DC_EST_BIT(DC_EST_COMM) | DC_EST_BIT(DC_EST_FLOPS) |
				 DC_EST_BIT(DC_EST_BATCH),
			 step_compute},
	[DC_EST_STEP_VARIANTS] = {"step_variants", DC_EST_BIT(DC_EST_STEP), step_variants_compute},
	[DC_EST_CHECKPOINT] = {"checkpoint", DC_EST_BIT(DC_EST_BATCH) | DC_EST_BIT(DC_EST_MEMORY), checkpoint_compute},
	[DC_EST_LOSS] = {"loss", 0, loss_compute},
};

int dc_estimate(const struct dc_plan *plan, uint32_t wanted, struct dc_results *r)
{
	return dc_estimate_with(plan, wanted, 0, r);
}

int dc_estimate_with(const struct dc_plan *plan, uint32_t wanted, uint32_t have, struct dc_results *r)
{
	uint32_t todo;

	have &= DC_EST_ALL;
	todo = wanted & DC_EST_ALL & ~have;
	r->done = have;
	r->error = NULL;
	/* every row needs only rows above it (check_plan holds the table to
	 * that): one pass upwards adds what the wanted ones need, less what
	 * the caller holds (a held row's own needs are not wanted for it),
	 * one pass downwards runs them in dependency order */
	/* (both passes visit the set bits alone, the highest first, then the
	 * lowest first: a search runs this twice a layout; a row's
	 * needs are all below its bit, so the upward pass meets them later,
	 * as the loop over every row did) */
	for (uint32_t up = todo; up;) {
		int e = 31 - __builtin_clz(up);
		uint32_t add = dc_estimators[e].needs & ~have & ~todo;
		up = (up & ~DC_EST_BIT(e)) | add;
		todo |= add;
	}
	for (uint32_t down = todo; down; down &= down - 1) {
		int e = __builtin_ctz(down);
		if (dc_estimators[e].compute(plan, r) != 0)
			return -1;
		r->done |= DC_EST_BIT(e);
	}
	return 0;
}
