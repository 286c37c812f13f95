/* axis.h - what the parallel axes (src/axis/) say beyond their
 * collectives (comm.h): how the data-parallel axes shard each model
 * state. Each axis file is the only place that knows what its axis
 * shards; the memory ledger and the optimizer's kernel time read this. */
#ifndef DISTCALC_AXIS_H
#define DISTCALC_AXIS_H

#include <stdint.h>

struct dc_plan;
struct dc_coll;
struct dc_net_group;

/* The model states of ZeRO section 5. */
enum dc_state {
	DC_STATE_PARAMS,
	DC_STATE_GRADS,
	DC_STATE_MASTER,    /* the FP32 master copy, and ZeRO-Offload's FP32 gradient copy of it */
	DC_STATE_OPTIMIZER, /* Adam's moments */
	DC_STATE_COUNT,
};

/* The ranks each state is split over (1: every rank holds it whole), for
 * the dense parameters and for the routed experts' (which shard over their
 * expert-data-parallel group). */
struct dc_state_shards {
	uint64_t dense[DC_STATE_COUNT];
	uint64_t expert[DC_STATE_COUNT];
};

/* Fills *out for the plan's layout from every axis that shards a state
 * (dp.c: ZeRO-1/2, fsdp.c: ZeRO-3/FSDP, over the HSDP shard groups). */
void dc_axis_state_shards(const struct dc_plan *p, struct dc_state_shards *out);

/* The group an EP row of comm.s[DC_STRAT_EP] was priced on (src/axis/ep.c):
 * the expert tp group's for its gathers, DeepEP's two levels for its
 * rows (plan.c derive_ep_levels: the network row over the nodes, the
 * NVLink row over a node), else the ep group. For pricing a row again. */
const struct dc_net_group *dc_axis_ep_row_group(const struct dc_plan *p, const struct dc_coll *k);

/* When a and b are one DeepEP call's network and NVLink rows (ep.c pushes
 * them in that order), which run at once: the shorter's time to 0, and 1;
 * else 0, nothing changed. */
int dc_axis_ep_keep_longer(const struct dc_plan *p, struct dc_coll *a, struct dc_coll *b);

#endif
