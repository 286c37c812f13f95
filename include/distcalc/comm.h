/* comm.h - communication per training step, per rank, for every strategy in
 * play: DP (DDP, ZeRO-1/2), FSDP, TP (Megatron, with or without sequence
 * parallelism), PP and EP (MoE token AlltoAll).
 *
 * Each strategy lists its collectives (kind, calls per step, message bytes,
 * group size, link); bytes are what one rank sends (the ring's count),
 * time is the network model's (net.h: the algorithm and protocol NCCL's
 * tuner would pick, with every group of the strategy on the wire at once)
 * with nothing overlapped (an upper bound on the exposed time). Groups, their links and the stage analysed (the one
 * holding the most parameters) come from the plan (plan.h), in O(1).
 * Derivations and worked examples: docs/formulas-systems.md,
 * "Communication per step".
 */
#ifndef DISTCALC_COMM_H
#define DISTCALC_COMM_H

#include <stdint.h>

#include "distcalc/config.h"

struct dc_plan;
struct dc_net;
struct dc_net_group;

enum dc_coll_kind {
	DC_COLL_ALL_REDUCE,
	DC_COLL_REDUCE_SCATTER,
	DC_COLL_ALL_GATHER,
	DC_COLL_SEND, /* point-to-point, one message to one peer */
	DC_COLL_ALL_TO_ALL, /* every rank sends M/p to every other (MoE token dispatch) */
	DC_COLL_BROADCAST,  /* one root's M to every other rank */
};

/* One kind of call, made `count` times per step. */
struct dc_coll {
	enum dc_coll_kind kind;
	const char *what;  /* static text: "gradient bucket", "layer params" */
	const char *phase; /* static text: "forward", "backward", ... */
	uint64_t count;
	/* M: the AllReduce buffer; the full (unsharded) buffer of a
	 * ReduceScatter or AllGather (nccl-tests' S); the message of a send */
	uint64_t msg_bytes;
	uint64_t group_size;
	enum dc_link_choice link;
	uint64_t bytes_per_rank; /* count x bytes one rank sends per call */
	double time_s;           /* count x time of one call */
	const char *algorithm;   /* static: the network model's choice (net.h), "ring", ... */
	const char *protocol;    /* static: "LL", "LL128", "Simple" */
};

enum dc_strategy {
	DC_STRAT_DP,   /* DDP AllReduce, or ZeRO-1/2 ReduceScatter + AllGather */
	DC_STRAT_FSDP, /* ZeRO-3 / FSDP */
	DC_STRAT_TP,
	DC_STRAT_PP,
	DC_STRAT_EP,   /* MoE token dispatch and combine (AlltoAll) */
	DC_STRAT_COUNT,
};

#define DC_COMM_MAX_COLL 16

struct dc_comm_strategy {
	int in_play;
	uint64_t group_size;
	enum dc_link_choice link;
	struct dc_link link_params;
	/* the network model and the group it prices this strategy's calls on,
	 * borrowed from the plan (valid while the plan is) */
	const struct dc_net *net;
	const struct dc_net_group *net_group;
	uint64_t ncoll;
	struct dc_coll coll[DC_COMM_MAX_COLL];
	uint64_t bytes_per_rank; /* per step, the busiest rank */
	double time_s;           /* per step, nothing overlapped */
};

struct dc_comm {
	uint64_t stage; /* the pipeline stage analysed: the one with the most parameters */
	struct dc_comm_strategy s[DC_STRAT_COUNT];
	uint64_t bytes_per_rank; /* sum over strategies */
	double time_s;
};

/* Named formulas (teaching ring, docs/formulas-systems.md; the ring lab's
 * alpha-beta model, not what dc_comm_compute prices with). */

/* Bytes the busiest rank sends in one call on p ranks: AllReduce
 * 2(M - floor(M/p)), one less when M mod p = p - 1 (it skips a small and a
 * large chunk; the ring lab's bytes_sent_max), ReduceScatter and AllGather
 * M - floor(M/p), AlltoAll M - floor(M/p) (uniform: M/p to each peer),
 * send and Broadcast M; 0 when p = 1. Exact (2(p-1)M/p, (p-1)M/p) when p divides M. */
uint64_t dc_coll_bytes_sent(enum dc_coll_kind k, uint64_t p, uint64_t msg_bytes);

/* Time of one call: AllReduce 2(p-1)(alpha + ceil(M/p)/B), ReduceScatter,
 * AllGather and AlltoAll (pairwise exchange) (p-1)(alpha + ceil(M/p)/B),
 * send and Broadcast (pipelined) alpha + M/B; 0 when p = 1. */
double dc_coll_time_s(enum dc_coll_kind k, uint64_t p, uint64_t msg_bytes, const struct dc_link *l);


/* Fills *c for the plan's layout: each strategy's header and its first
 * ncoll calls (calls past ncoll are left as they were). Returns 0, or -1
 * with *error set to static text naming the keys on overflow. */
int dc_comm_compute(const struct dc_plan *p, struct dc_comm *c, const char **error);

const char *dc_coll_kind_name(enum dc_coll_kind k);
const char *dc_strategy_name(enum dc_strategy s);

#endif
