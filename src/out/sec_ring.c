/* sec_ring.c - the ring section: the course's teaching ring, its totals,
 * bytes per rank and every transfer event, generated from its index. */
#include <stddef.h>

#include "distcalc/plan.h"
#include "distcalc/results.h"
#include "distcalc/section.h"
#include "distcalc/topology.h"

struct view {
	struct dc_ring r;
	const char *note, *link;
	double bw_GBps;
	uint64_t chunk_bytes;
};

static void view(const struct dc_run *run, void *out)
{
	struct view *v = out;
	v->r = run->res->ring;
	/* the lab is no NCCL: collective.algorithm and collective.protocols
	 * are the network model's (docs/network-model.md) */
	v->note = run->plan->in->collective.protocols_mask ||
				  run->plan->in->collective.algorithm != DC_NET_ALGO_AUTO
			  ? "the course's teaching ring over global ranks 0..p-1 (collective.*), one ring with every hop on one link B, not one of this layout's groups: those are under comm; NCCL runs several rings or trees at once over every NIC and NVLink of the ranks, which the network model prices (below: plan with that); collective.algorithm and collective.protocols are the network model's (comm, --experiment collectives), not this lab's"
			  : "the course's teaching ring over global ranks 0..p-1 (collective.*), one ring with every hop on one link B, not one of this layout's groups: those are under comm; NCCL runs several rings or trees at once over every NIC and NVLink of the ranks, which the network model prices (below: plan with that)";
	v->link = dc_link_choice_name(v->r.link_used);
	v->bw_GBps = v->r.link.bw_bytes_per_s / 1e9;
	v->chunk_bytes = v->r.chunk_base_bytes + (v->r.chunk_rem ? 1 : 0);
}

static int no_bw(const void *base)
{
	return !((const struct view *)base)->r.have_bw;
}

static int no_net(const void *base)
{
	return !((const struct view *)base)->r.have_net;
}

struct rank_row {
	uint64_t rank, sent, received;
};

static uint64_t rank_count(const void *base)
{
	return ((const struct view *)base)->r.ranks;
}

static void rank_row(const void *base, uint64_t i, void *out)
{
	const struct dc_ring *r = &((const struct view *)base)->r;
	struct rank_row *row = out;
	row->rank = i;
	row->sent = dc_ring_rank_bytes_sent(r, i);
	row->received = dc_ring_rank_bytes_recv(r, i);
}

static const struct dc_field rank_fields[] = {
	{"rank", "rank", DC_U_COUNT, DC_FT_U64, offsetof(struct rank_row, rank)},
	{"bytes_sent", "sent", DC_U_BYTES_RAW, DC_FT_U64, offsetof(struct rank_row, sent)},
	{"bytes_received", "received", DC_U_BYTES_RAW, DC_FT_U64, offsetof(struct rank_row, received)},
};
static const struct dc_fields rank_table = DC_FIELDS(rank_fields);
static const struct dc_rows rank_rows = {rank_count, rank_row, sizeof(struct rank_row), "ranks"};

struct event_row {
	const char *phase;
	uint64_t round, src, dst, chunk, bytes;
	double start_s, end_s;
};

static uint64_t event_count(const void *base)
{
	return ((const struct view *)base)->r.events;
}

static void event_row(const void *base, uint64_t i, void *out)
{
	struct event_row *row = out;
	struct dc_ring_event e;
	dc_ring_event_at(&((const struct view *)base)->r, i, &e);
	row->phase = dc_ring_phase_name(e.phase);
	row->round = e.round;
	row->src = e.src;
	row->dst = e.dst;
	row->chunk = e.chunk;
	row->bytes = e.bytes;
	row->start_s = e.start_s;
	row->end_s = e.end_s;
}

#define E(m) offsetof(struct event_row, m)
static const struct dc_field event_fields[] = {
	{"phase", "phase", DC_U_NONE, DC_FT_STR, E(phase)},
	{"round", "round", DC_U_COUNT, DC_FT_U64, E(round)},
	{"src", "src", DC_U_COUNT, DC_FT_U64, E(src)},
	{"dst", "dst", DC_U_COUNT, DC_FT_U64, E(dst)},
	{"chunk", "chunk", DC_U_COUNT, DC_FT_U64, E(chunk)},
	{"bytes", "bytes", DC_U_BYTES_RAW, DC_FT_U64, E(bytes)},
	{"start_s", "start", DC_U_SECONDS, DC_FT_F64, E(start_s)},
	{"end_s", "end", DC_U_SECONDS, DC_FT_F64, E(end_s)},
};
static const struct dc_fields event_table = DC_FIELDS(event_fields);
static const struct dc_rows event_rows = {event_count, event_row, sizeof(struct event_row), "events", 0, 1};

#define V(m) offsetof(struct view, m)
#define R(m) offsetof(struct view, r.m)
static const struct dc_field fields[] = {
	{"note", "note", DC_U_NONE, DC_FT_STR, V(note)},
	{"ranks", "ranks p", DC_U_COUNT, DC_FT_U64, R(ranks)},
	{"message_bytes", "message M", DC_U_BYTES, DC_FT_U64, R(msg_bytes)},
	{"link", "link", DC_U_NONE, DC_FT_STR, V(link)},
	{"link_bandwidth_GBps", "link bandwidth B", DC_U_GBPS, DC_FT_F64, V(bw_GBps)},
	{"link_latency_s", "link latency alpha", DC_U_SECONDS, DC_FT_F64, R(link.latency_s)},
	{"rounds", "rounds 2(p-1)", DC_U_COUNT, DC_FT_U64, R(rounds)},
	{"chunk_bytes", "chunk ceil(M/p)", DC_U_BYTES_RAW, DC_FT_U64, V(chunk_bytes)},
	{"bytes_sent_per_rank", "bytes sent per rank (max)", DC_U_BYTES, DC_FT_U64, R(bytes_sent_max)},
	{"bytes_sent_per_rank_min", "bytes sent per rank (min)", DC_U_BYTES, DC_FT_U64, R(bytes_sent_min)},
	{"bytes_received_per_rank", "bytes received per rank (max)", DC_U_BYTES, DC_FT_U64, R(bytes_recv_max)},
	{"round_time_s", "time per round", DC_U_SECONDS, DC_FT_F64, R(round_s)},
	{"time_s", "time 2(p-1)(alpha + M/(pB))", DC_U_SECONDS, DC_FT_F64, R(time_s)},
	{"algbw_GBps", "algbw M/t", DC_U_GBPS, DC_FT_F64, R(algbw_GBps), .is_null = no_bw},
	{"busbw_GBps", "busbw algbw*2(p-1)/p", DC_U_GBPS, DC_FT_F64, R(busbw_GBps), .is_null = no_bw},
	{"network_model_time_s", "network model: time", DC_U_SECONDS, DC_FT_F64, R(net_time_s),
	 .is_null = no_net},
	{"network_model_busbw_GBps", "network model: busbw", DC_U_GBPS, DC_FT_F64, R(net_busbw_GBps), .is_null = no_net},
	{"network_model_algorithm", "network model: algorithm", DC_U_NONE, DC_FT_STR, R(net_algorithm), .is_null = no_net},
	{"network_model_protocol", "network model: protocol", DC_U_NONE, DC_FT_STR, R(net_protocol), .is_null = no_net},
	{"events_total", "transfer events", DC_U_COUNT, DC_FT_U64, R(events)},
	{"per_rank", "Bytes per rank", DC_U_NONE, DC_FT_ROWS, 0, .sub = &rank_table, .rows = &rank_rows},
	{"events", "Transfer events (one per rank per round)", DC_U_NONE, DC_FT_ROWS, 0, .sub = &event_table,
	 .rows = &event_rows},
};

_Static_assert(sizeof(struct view) <= DC_VIEW_MAX, "view too large");

/* collective.link forcing a link the ring's ranks 0..p-1 do not use: a ring
 * that crosses NVLink domains (nodes, unless cluster.nvlink_domain is
 * larger) priced at the intra-node link (too fast), or one inside a domain
 * priced at the inter-node link (too slow). The link they use
 * is the one their group crosses (topology.h), what "auto" picks. */
static void warn(const struct dc_plan *plan, const struct dc_results *res, const char *name,
		 struct dc_diag *diag)
{
	const struct dc_config *c = plan->in;
	struct dc_group g = {.axis = DC_AXIS_DP, .index = 0, .first = 0, .stride = 1, .size = plan->ring_ranks};
	enum dc_link_choice used;
	uint64_t nodes, dom;

	(void)res;
	(void)name;
	if (c->collective.link == DC_LINK_AUTO || plan->ring_ranks < 2)
		return;
	used = dc_group_link(&plan->topo, &g);
	if (used == c->collective.link)
		return;
	nodes = dc_group_domains(&plan->topo, &g);
	dom = dc_topology_domain(&plan->topo);
	if (used == DC_LINK_INTER)
		dc_diag_warn(diag,
			     "'collective.link' \"intra_node\": the ring over ranks 0..%llu spans %llu %s of %llu GPUs, so it crosses the inter-node link, but is priced at the intra-node one (%g GB/s, not %g GB/s); remove collective.link to price the link it uses",
			     (unsigned long long)(plan->ring_ranks - 1), (unsigned long long)nodes,
			     dom == plan->topo.gpus_per_node ? "nodes" : "NVLink domains", (unsigned long long)dom,
			     c->cluster.intra_node.bw_bytes_per_s / 1e9,
			     c->cluster.inter_node.bw_bytes_per_s / 1e9);
	else
		dc_diag_warn(diag,
			     "'collective.link' \"inter_node\": the ring over ranks 0..%llu stays inside one %s, so it uses the intra-node link, but is priced at the inter-node one (%g GB/s, not %g GB/s); remove collective.link to price the link it uses",
			     (unsigned long long)(plan->ring_ranks - 1),
			     dom == plan->topo.gpus_per_node ? "node" : "NVLink domain", c->cluster.inter_node.bw_bytes_per_s / 1e9,
			     c->cluster.intra_node.bw_bytes_per_s / 1e9);
}

const struct dc_section dc_section_ring = {
	"ring", "Ring AllReduce (ReduceScatter + AllGather)",
	"the teaching ring: bytes, time, busbw, per-round events",
	DC_EST_BIT(DC_EST_RING), sizeof(struct view), view, DC_FIELDS(fields), NULL, warn,
};
