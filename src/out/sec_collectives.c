/* sec_collectives.c - `--experiment collectives`: an nccl-tests-style
 * sweep of one collective (collective.op) over ranks 0..p-1
 * (collective.ranks) from collective.min_bytes to collective.max_bytes by
 * collective.step_factor, priced by the network model (net.h). The columns
 * are all_reduce_perf's (nccl-tests src/util.cu: size, count, type, redop,
 * root, time, algbw, busbw) plus the algorithm and protocol the model
 * chose, and the closing "# Avg bus bandwidth" is the mean busbw of the
 * rows (an empty one's 0), as nccl-tests averages it. docs/nccl-tools.md, "The sweep". */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "distcalc/net.h"
#include "distcalc/plan.h"
#include "distcalc/results.h"
#include "distcalc/section.h"
#include "distcalc/util.h"

#define MAX_ROWS 128 /* 1 B to 2^53 B by 2 is 54 rows */

struct view {
	struct dc_net net;
	struct dc_net_group group;
	enum dc_collective_op op;
	enum dc_coll_kind kind;
	const char *binary, *note, *type, *redop, *root;
	uint64_t ranks, nodes, ranks_per_node, rails, type_bytes;
	uint64_t min_bytes, max_bytes, step_factor, nrows;
	int fell_back; /* the forced collective.algorithm cannot run the op: auto instead */
	int p2p;       /* the op is point to point (send, AlltoAll): no algorithm or NCCL_PROTO of a collective's */
	double avg_busbw_GBps;
	/* NCCL_ALGO and NCCL_PROTO as the sweep runs them, and where each
	 * came from (config, --set, preset:<system>, default) */
	const char *algorithm;
	char algorithm_from[72], protocols[64], protocols_from[72];
};

static const struct {
	const char *binary;
	enum dc_coll_kind kind;
	const char *redop, *root;
} ops[] = {
	[DC_COLLECTIVE_ALL_REDUCE] = {"all_reduce_perf", DC_COLL_ALL_REDUCE, "sum", "-1"},
	[DC_COLLECTIVE_ALL_GATHER] = {"all_gather_perf", DC_COLL_ALL_GATHER, "none", "-1"},
	[DC_COLLECTIVE_REDUCE_SCATTER] = {"reduce_scatter_perf", DC_COLL_REDUCE_SCATTER, "sum", "-1"},
	[DC_COLLECTIVE_ALL_TO_ALL] = {"alltoall_perf", DC_COLL_ALL_TO_ALL, "none", "-1"},
	[DC_COLLECTIVE_BROADCAST] = {"broadcast_perf", DC_COLL_BROADCAST, "none", "0"},
	[DC_COLLECTIVE_SEND_RECV] = {"sendrecv_perf", DC_COLL_SEND, "sum", "-1"},
};

/* The k-th requested size, min x f^k; 0 past max_bytes or 2^63. */
static uint64_t requested(const struct view *v, uint64_t k)
{
	uint64_t s = v->min_bytes;
	for (uint64_t i = 0; i < k; i++)
		if (dc_mul_u64(s, v->step_factor, &s))
			return 0;
	return s <= v->max_bytes ? s : 0;
}

/* nccl-tests' setupArgs for elements of `eb` bytes (collective.dtype): the
 * count argument of the call and the size printed, max(send, recv) bytes
 * of one rank. all_gather, reduce_scatter and alltoall take count / p
 * elements per rank rounded down to a multiple of 16 bytes (nccl-tests
 * src/all_gather.cu, reduce_scatter.cu, alltoall.cu GetCollByteCount:
 * (count / nranks) & ~(16 / eltSize - 1), since 2.19.3). */
static void size_count(enum dc_collective_op op, uint64_t req, uint64_t p, uint64_t eb, uint64_t *size,
		       uint64_t *count)
{
	uint64_t n = req / eb, align = eb < 16 ? 16 / eb : 1;
	switch (op) {
	case DC_COLLECTIVE_ALL_GATHER:
	case DC_COLLECTIVE_REDUCE_SCATTER:
	case DC_COLLECTIVE_ALL_TO_ALL:
		*count = (n / p) & ~(align - 1);
		*size = *count * p * eb;
		break;
	default:
		*count = n;
		*size = n * eb;
		break;
	}
}

struct row {
	uint64_t size_bytes, count;
	const char *type, *redop, *root;
	double time_s, algbw_GBps, busbw_GBps;
	const char *algorithm, *protocol;
	int empty; /* 0 bytes: nothing moves, no bandwidth */
};

static void fill_row(const struct view *v, uint64_t i, struct row *r)
{
	struct dc_net_choice c;
	memset(&c, 0, sizeof(c));
	size_count(v->op, requested(v, i), v->ranks, v->type_bytes, &r->size_bytes, &r->count);
	r->type = v->type;
	r->redop = v->redop;
	r->root = v->root;
	if (dc_net_time(&v->net, v->kind, &v->group, r->size_bytes, DC_NET_ALGO_AUTO, &c) != 0)
		c.algorithm = c.protocol = "n/a"; /* view() made sure the algorithm can run */
	r->time_s = c.time_s;
	r->empty = c.time_s <= 0;
	r->algbw_GBps = r->empty ? 0 : (double)r->size_bytes / c.time_s / 1e9;
	r->busbw_GBps = r->algbw_GBps * dc_net_busbw_factor(v->kind, v->ranks);
	r->algorithm = c.algorithm;
	r->protocol = c.protocol;
}

static void view(const struct dc_run *run, void *out)
{
	struct view *v = out;
	const struct dc_config *c = run->plan->in;
	struct dc_net_choice probe;
	double sum = 0;
	uint64_t used = 0;

	v->op = c->collective.op;
	v->kind = ops[v->op].kind;
	v->binary = ops[v->op].binary;
	v->redop = ops[v->op].redop;
	v->root = ops[v->op].root;
	v->type = dc_dtype_name(c->collective.dtype);
	v->type_bytes = dc_dtype_bytes(c->collective.dtype);
	v->ranks = run->plan->ring_ranks;
	v->min_bytes = c->collective.min_bytes;
	v->max_bytes = c->collective.max_bytes;
	v->step_factor = c->collective.step_factor;
	dc_net_init(c, &v->net);
	v->net.fp8_data = c->collective.dtype == DC_DTYPE_F8E4M3 || c->collective.dtype == DC_DTYPE_F8E5M2;
	dc_net_group_ranks(&v->net, 0, 1, v->ranks, &v->group);
	v->nodes = v->group.nodes;
	v->ranks_per_node = v->group.ranks_per_node;
	v->rails = v->group.nodes > 1 ? v->group.rails : 0; /* inside one domain no NIC carries it */
	if (v->net.algorithm != DC_NET_ALGO_AUTO &&
	    dc_net_time(&v->net, v->kind, &v->group, v->max_bytes, DC_NET_ALGO_AUTO, &probe) != 0) {
		v->net.algorithm = DC_NET_ALGO_AUTO;
		v->fell_back = 1;
	}
	/* point to point runs no collective algorithm, and NCCL picks its
	 * protocol by size, never by NCCL_PROTO (net.c dc_net_time): the
	 * header says so, not the keys' values (a trial read "tree" above
	 * rows of p2p) */
	v->p2p = v->kind == DC_COLL_SEND || v->kind == DC_COLL_ALL_TO_ALL;
	v->algorithm = v->p2p ? "p2p" : dc_net_algo_name(v->net.algorithm);
	{
		char buf[48];
		unsigned all = (1u << DC_NET_PROTO_COUNT) - 1;
		snprintf(v->algorithm_from, sizeof(v->algorithm_from), "%s",
			 v->p2p ? "point to point: collective.algorithm does not apply"
			 : v->fell_back ? "auto: the forced one cannot run"
					: dc_config_origin_of(c, "collective.algorithm", buf, sizeof(buf)));
		/* a send runs LL or Simple (net.c p2p_runs) */
		dc_protocols_text(v->p2p ? (1u << DC_NET_PROTO_LL) | (1u << DC_NET_PROTO_SIMPLE)
				  : c->collective.protocols_mask ? c->collective.protocols_mask : all,
				  v->protocols, sizeof(v->protocols));
		snprintf(v->protocols_from, sizeof(v->protocols_from), "%s",
			 v->p2p ? "point to point: by size, collective.protocols does not apply"
				: dc_config_origin_of(c, "collective.protocols", buf, sizeof(buf)));
	}
	v->note = v->fell_back ? "collective.algorithm cannot run this op on this group: every row is the auto choice"
			       : "priced by the network model (docs/network-model.md); one group alone on the cluster";
	while (v->nrows < MAX_ROWS && requested(v, v->nrows))
		v->nrows++;
	/* every row, one that moves no bytes counting 0: nccl-tests' common.cu
	 * adds each printed row's busbw (0.00 at a count of 0) and counts it
	 * (139.56 in nccl-tests-h100-2x8-ib.txt is the mean of all its 64
	 * values; a trial found the empty rows left out here) */
	for (uint64_t i = 0; i < v->nrows; i++) {
		struct row r;
		fill_row(v, i, &r);
		if (!r.empty) {
			sum += r.busbw_GBps;
			used++;
		}
	}
	v->avg_busbw_GBps = used ? sum / (double)v->nrows : 0;
}

static uint64_t row_count(const void *base)
{
	return ((const struct view *)base)->nrows;
}

static void row_at(const void *base, uint64_t i, void *out)
{
	fill_row(base, i, out);
}

static int row_empty(const void *base)
{
	return ((const struct row *)base)->empty;
}

#define W(m) offsetof(struct row, m)
static const struct dc_field row_fields[] = {
	{"size_bytes", "size", DC_U_BYTES_RAW, DC_FT_U64, W(size_bytes)},
	{"count", "count", DC_U_COUNT, DC_FT_U64, W(count)},
	{"type", "type", DC_U_NONE, DC_FT_STR, W(type)},
	{"redop", "redop", DC_U_NONE, DC_FT_STR, W(redop)},
	{"root", "root", DC_U_NONE, DC_FT_STR, W(root)},
	{"time_s", "time", DC_U_SECONDS_US, DC_FT_F64, W(time_s), .is_null = row_empty},
	{"algbw_GBps", "algbw", DC_U_GBPS, DC_FT_F64, W(algbw_GBps), .is_null = row_empty},
	{"busbw_GBps", "busbw", DC_U_GBPS, DC_FT_F64, W(busbw_GBps), .is_null = row_empty},
	{"algorithm", "algorithm", DC_U_NONE, DC_FT_STR, W(algorithm)},
	{"protocol", "protocol", DC_U_NONE, DC_FT_STR, W(protocol)},
};
static const struct dc_fields row_table = DC_FIELDS(row_fields);
static const struct dc_rows rows = {row_count, row_at, sizeof(struct row), "sizes"};

static void protocols_text(const void *base, char *buf, size_t len)
{
	dc_text_fmt(buf, len, "%s", ((const struct view *)base)->protocols);
}

static int no_avg(const void *base)
{
	return ((const struct view *)base)->avg_busbw_GBps <= 0;
}

#define V(m) offsetof(struct view, m)
static const struct dc_field fields[] = {
	{"note", "note", DC_U_NONE, DC_FT_STR, V(note)},
	{"binary", "nccl-tests binary", DC_U_NONE, DC_FT_STR, V(binary)},
	{"ranks", "ranks (nThread 1 nGpus 1, one process per GPU)", DC_U_COUNT, DC_FT_U64, V(ranks)},
	{"nodes", "NVLink domains spanned", DC_U_COUNT, DC_FT_U64, V(nodes)},
	{"ranks_per_node", "ranks per domain (busiest)", DC_U_COUNT, DC_FT_U64, V(ranks_per_node)},
	{"rails", "NICs (rails) used per domain (0: inside one)", DC_U_COUNT, DC_FT_U64, V(rails)},
	{"min_bytes", "minBytes (-b)", DC_U_BYTES_RAW, DC_FT_U64, V(min_bytes)},
	{"max_bytes", "maxBytes (-e)", DC_U_BYTES_RAW, DC_FT_U64, V(max_bytes)},
	{"step_factor", "step factor (-f)", DC_U_COUNT, DC_FT_U64, V(step_factor)},
	{"algorithm", "algorithm (collective.algorithm, NCCL_ALGO)", DC_U_NONE, DC_FT_STR, V(algorithm)},
	{"algorithm_from", "algorithm from", DC_U_NONE, DC_FT_TEXT, V(algorithm_from)},
	{"protocols", "protocols (collective.protocols, NCCL_PROTO)", DC_U_NONE, DC_FT_FN, 0, .text = protocols_text,
	 .json_value = 1},
	{"protocols_from", "protocols from", DC_U_NONE, DC_FT_TEXT, V(protocols_from)},
	{"rows", "Sweep (out-of-place; in-place is the same in the model)", DC_U_NONE, DC_FT_ROWS, 0,
	 .sub = &row_table, .rows = &rows},
	{"avg_busbw_GBps", "# Avg bus bandwidth", DC_U_GBPS, DC_FT_F64, V(avg_busbw_GBps), .is_null = no_avg},
};

_Static_assert(sizeof(struct view) <= DC_VIEW_MAX, "view too large");

static void title(const void *base, char *buf, size_t len)
{
	const struct view *v = base;
	dc_text_fmt(buf, len, "Collectives: %s sweep over %llu ranks", v->binary, (unsigned long long)v->ranks);
}

/* A forced collective.algorithm that cannot run the swept op. */
static void warn(const struct dc_plan *plan, const struct dc_results *res, const char *name, struct dc_diag *diag)
{
	const struct dc_config *c = plan->in;
	struct dc_net net;
	struct dc_net_group g;
	struct dc_net_choice probe;
	enum dc_coll_kind kind = ops[c->collective.op].kind;
	(void)res;
	(void)name;
	if (kind == DC_COLL_SEND || kind == DC_COLL_ALL_TO_ALL) {
		/* NCCL_ALGO and NCCL_PROTO steer collectives; a send's protocol
		 * is picked by its size and connection (net.c dc_net_time) */
		if (c->collective.algorithm != DC_NET_ALGO_AUTO || c->collective.protocols_mask)
			dc_diag_warn(diag,
				     "%s%s%s: %s is point to point, which runs no collective algorithm and picks its "
				     "protocol by size (NCCL_ALGO and NCCL_PROTO steer collectives alone: src/enqueue.cc's "
				     "p2p scheduling), so %s no effect on this sweep",
				     c->collective.algorithm != DC_NET_ALGO_AUTO ? "'collective.algorithm'" : "",
				     c->collective.algorithm != DC_NET_ALGO_AUTO && c->collective.protocols_mask ? " and " : "",
				     c->collective.protocols_mask ? "'collective.protocols'" : "",
				     dc_collective_op_name(c->collective.op),
				     c->collective.algorithm != DC_NET_ALGO_AUTO && c->collective.protocols_mask ? "they have"
														  : "it has");
		return;
	}
	if (c->collective.algorithm == DC_NET_ALGO_AUTO)
		return;
	dc_net_init(c, &net);
	dc_net_group_ranks(&net, 0, 1, plan->ring_ranks, &g);
	if (dc_net_time(&net, ops[c->collective.op].kind, &g, c->collective.max_bytes, DC_NET_ALGO_AUTO, &probe) != 0)
		dc_diag_warn(diag,
			     "'collective.algorithm' \"%s\" cannot run %s over %llu ranks here; the collectives sweep "
			     "uses \"auto\"",
			     dc_net_algo_name(c->collective.algorithm), dc_collective_op_name(c->collective.op),
			     (unsigned long long)plan->ring_ranks);
}

const struct dc_section dc_section_collectives = {
	"collectives", "Collectives",
	"an nccl-tests-style sweep of collective.op: size, count, time, algbw, busbw, algorithm, protocol",
	0, sizeof(struct view), view, DC_FIELDS(fields), title, warn,
};
