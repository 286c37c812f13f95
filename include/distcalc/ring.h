/* ring.h - the course's ring AllReduce lab: bytes, time and transfer events.
 *
 * p ranks each hold M bytes. ReduceScatter then AllGather, p-1 rounds each;
 * in every round each rank sends one chunk to its right neighbour. Chunks
 * split M as evenly as bytes allow (sizes differ by at most one byte).
 * Derivation and worked example: docs/formulas.md, "Ring AllReduce".
 *
 * Everything here is O(1) in memory: totals are closed forms and events are
 * computed from their index, so thousands of ranks cost nothing. The ring
 * estimator (results.h) runs dc_ring_compute on the plan's ring_ranks,
 * ring_msg_bytes and ring_link (plan.h: collective.* or their defaults).
 */
#ifndef DISTCALC_RING_H
#define DISTCALC_RING_H

#include <stdint.h>

#include "distcalc/config.h"

enum dc_ring_phase {
	DC_PHASE_REDUCE_SCATTER,
	DC_PHASE_ALL_GATHER,
};

struct dc_ring {
	uint64_t ranks;         /* p */
	uint64_t msg_bytes;     /* M */
	struct dc_link link;
	enum dc_link_choice link_used; /* DC_LINK_INTRA or DC_LINK_INTER */
	uint64_t chunk_base_bytes;     /* floor(M / p) */
	uint64_t chunk_rem;            /* M mod p: chunks 0..rem-1 get one byte more */
	uint64_t rounds;               /* 2(p - 1) */
	uint64_t events;               /* rounds x p */
	uint64_t bytes_sent_max;       /* over ranks; 2(p-1)M/p when p divides M */
	uint64_t bytes_sent_min;
	uint64_t bytes_recv_max;
	double round_s;                /* alpha + ceil(M/p) / B */
	double time_s;                 /* rounds x round_s */
	int have_bw;                   /* algbw/busbw defined (time > 0) */
	double algbw_GBps;             /* M / t, 10^9 B/s (nccl-tests) */
	double busbw_GBps;             /* algbw x 2(p-1)/p (nccl-tests) */
	/* the network model's price of the same AllReduce over ranks 0..p-1
	 * (comm's: NCCL's algorithms on every link the ranks use), set by the
	 * ring estimator beside the lab's one link a hop; have_net 0: none
	 * (p < 2, or more ranks than the cluster's) */
	int have_net;
	double net_time_s, net_busbw_GBps;
	const char *net_algorithm, *net_protocol; /* static */
};

struct dc_ring_event {
	enum dc_ring_phase phase;
	uint64_t round; /* within the phase, 0..p-2 */
	uint64_t src, dst, chunk, bytes;
	double start_s, end_s;
};

/* Fills *r for p >= 1 ranks and M >= 1 bytes over `link`. */
void dc_ring_compute(uint64_t p, uint64_t msg_bytes, const struct dc_link *link,
		     enum dc_link_choice link_used, struct dc_ring *r);

/* The link the course's ring crosses for config `c`: global ranks 0..p-1 in
 * one NVLink domain (cluster.nvlink_domain, the node by default) use
 * intra_node, otherwise inter_node (the slowest hop sets every
 * round). collective.link overrides "auto". dc_plan_derive calls it once. */
enum dc_link_choice dc_ring_pick_link(const struct dc_config *c, uint64_t p,
				      struct dc_link *link);

uint64_t dc_ring_chunk_bytes(const struct dc_ring *r, uint64_t chunk);
uint64_t dc_ring_rank_bytes_sent(const struct dc_ring *r, uint64_t rank);
uint64_t dc_ring_rank_bytes_recv(const struct dc_ring *r, uint64_t rank);

/* Event `index` in [0, r->events): round-major, then by sending rank. */
void dc_ring_event_at(const struct dc_ring *r, uint64_t index, struct dc_ring_event *e);

const char *dc_ring_phase_name(enum dc_ring_phase p);

/* Named formulas (nccl-tests doc/PERFORMANCE.md). */
double dc_algbw_GBps(uint64_t msg_bytes, double time_s);
double dc_allreduce_busbw_factor(uint64_t p); /* 2(p-1)/p */

#endif
