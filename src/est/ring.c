/* ring.c - ring AllReduce estimator; see ring.h and docs/formulas.md. */
#include "distcalc/ring.h"

#include <string.h>

double dc_algbw_GBps(uint64_t msg_bytes, double time_s)
{
	/* nccl-tests: algbw = S / t, printed in 10^9 B/s */
	return (double)msg_bytes / time_s / 1e9;
}

double dc_allreduce_busbw_factor(uint64_t p)
{
	/* nccl-tests PERFORMANCE.md: AllReduce busbw = algbw x 2(n-1)/n */
	return 2.0 * (double)(p - 1) / (double)p;
}

uint64_t dc_ring_chunk_bytes(const struct dc_ring *r, uint64_t chunk)
{
	return r->chunk_base_bytes + (chunk < r->chunk_rem ? 1 : 0);
}

/* Rank i sends every chunk but (i+1) in ReduceScatter and every chunk but
 * (i+2) in AllGather: 2M - size(i+1) - size(i+2). */
uint64_t dc_ring_rank_bytes_sent(const struct dc_ring *r, uint64_t rank)
{
	uint64_t p = r->ranks;
	if (p < 2)
		return 0;
	return 2 * r->msg_bytes - dc_ring_chunk_bytes(r, (rank + 1) % p) -
	       dc_ring_chunk_bytes(r, (rank + 2) % p);
}

/* Rank i receives every chunk but i, then every chunk but (i+1). */
uint64_t dc_ring_rank_bytes_recv(const struct dc_ring *r, uint64_t rank)
{
	uint64_t p = r->ranks;
	if (p < 2)
		return 0;
	return 2 * r->msg_bytes - dc_ring_chunk_bytes(r, rank % p) -
	       dc_ring_chunk_bytes(r, (rank + 1) % p);
}

void dc_ring_compute(uint64_t p, uint64_t msg_bytes, const struct dc_link *link,
		     enum dc_link_choice link_used, struct dc_ring *r)
{
	uint64_t max_chunk;

	memset(r, 0, sizeof(*r));
	r->ranks = p;
	r->msg_bytes = msg_bytes;
	r->link = *link;
	r->link_used = link_used;
	r->chunk_base_bytes = msg_bytes / p;
	r->chunk_rem = msg_bytes % p;
	if (p < 2)
		return; /* one rank: nothing moves, zero time */
	r->rounds = 2 * (p - 1);
	r->events = r->rounds * p;
	max_chunk = r->chunk_base_bytes + (r->chunk_rem ? 1 : 0);
	/* a round lasts until its largest chunk has arrived */
	r->round_s = link->latency_s + (double)max_chunk / link->bw_bytes_per_s;
	r->time_s = (double)r->rounds * r->round_s;
	/* bytes per rank: the extremes over ranks (all equal when p | M) */
	if (r->chunk_rem == 0) {
		r->bytes_sent_max = r->bytes_sent_min = r->bytes_recv_max = 2 * (msg_bytes - r->chunk_base_bytes);
	} else {
		/* ranks differ only through which two consecutive chunks they skip */
		uint64_t two_small = 2 * r->chunk_base_bytes;
		uint64_t two_large = two_small + (r->chunk_rem >= 2 ? 2 : 1);
		uint64_t skip_min = p == 2 ? msg_bytes : two_small + (r->chunk_rem + 1 < p ? 0 : 1);
		uint64_t skip_max = p == 2 ? msg_bytes : two_large;
		/* skipping the smallest pair sends the most */
		r->bytes_sent_max = 2 * msg_bytes - skip_min;
		r->bytes_sent_min = 2 * msg_bytes - skip_max;
		r->bytes_recv_max = r->bytes_sent_max;
	}
	if (r->time_s > 0) {
		r->have_bw = 1;
		r->algbw_GBps = dc_algbw_GBps(msg_bytes, r->time_s);
		/* algbw x 2(p-1)/p, evaluated as M x 2(p-1)/p / t: the same
		 * formula with one rounding fewer, so a ring at alpha = 0 shows
		 * busbw = B exactly (50, not 49.99999999999999) */
		r->busbw_GBps = (double)msg_bytes * dc_allreduce_busbw_factor(p) / r->time_s / 1e9;
	}
}

enum dc_link_choice dc_ring_pick_link(const struct dc_config *c, uint64_t p, struct dc_link *link)
{
	enum dc_link_choice choice = c->collective.link;
	uint64_t gpn = c->cluster.gpus_per_node, dom = c->cluster.nvlink_domain;
	/* ranks 0..p-1 stay on NVLink while they fit one domain (the node
	 * unless cluster.nvlink_domain is larger: dc_topology_domain) */
	if (!dom || !gpn || dom % gpn)
		dom = gpn;
	if (choice == DC_LINK_AUTO)
		choice = p <= dom ? DC_LINK_INTRA : DC_LINK_INTER;
	*link = choice == DC_LINK_INTRA ? c->cluster.intra_node : c->cluster.inter_node;
	return choice;
}

void dc_ring_event_at(const struct dc_ring *r, uint64_t index, struct dc_ring_event *e)
{
	uint64_t p = r->ranks;
	uint64_t k = index / p; /* global round */
	uint64_t src = index % p;

	e->phase = k < p - 1 ? DC_PHASE_REDUCE_SCATTER : DC_PHASE_ALL_GATHER;
	e->round = k % (p - 1);
	e->src = src;
	e->dst = (src + 1) % p;
	/* ReduceScatter round t: rank i sends chunk (i - t); AllGather round t:
	 * chunk (i + 1 - t), the one it finished reducing / just received */
	if (e->phase == DC_PHASE_REDUCE_SCATTER)
		e->chunk = (src + p - e->round % p) % p;
	else
		e->chunk = (src + 1 + p - e->round % p) % p;
	e->bytes = dc_ring_chunk_bytes(r, e->chunk);
	e->start_s = (double)k * r->round_s;
	e->end_s = e->start_s + r->link.latency_s + (double)e->bytes / r->link.bw_bytes_per_s;
}

const char *dc_ring_phase_name(enum dc_ring_phase p)
{
	return p == DC_PHASE_REDUCE_SCATTER ? "reduce_scatter" : "all_gather";
}
