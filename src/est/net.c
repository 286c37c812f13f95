/* net.c - the network model; see net.h and docs/network-model.md.
 *
 * The parameters below are the model's, one set for every system: the
 * share of a link's rate each protocol carries and the latencies of each
 * (algorithm, protocol) pair, derived from NCCL's tuning model
 * (src/graph/tuning.cc, read, not copied) as docs/network-model.md
 * explains. What differs between systems (link rates, NICs, latencies per
 * hop) comes from the config through struct dc_net.
 */
#include "distcalc/net.h"

#include <math.h>
#include <assert.h>
#include <string.h>

#include "distcalc/memo_verify.h"
#include "distcalc/util.h"

#define US 1e-6
#define GBPS 1e9

/* ---- the model's constants (docs/network-model.md, "Protocols") ---- */

/* Start-up latency of a call, per algorithm and protocol (NCCL's baseLat,
 * tuning.cc v2.26.2 L120-123: tree 6.8 / 14 / 8.4 us, ring 6.6 / 14 /
 * 8.4 us, NVLS 0; PAT's 8 us is added in price_pat, L343). */
static const double base_lat_s[DC_NET_ALGO_COUNT][DC_NET_PROTO_COUNT] = {
	[DC_NET_ALGO_RING] = {6.6 * US, 14.0 * US, 8.4 * US},
	[DC_NET_ALGO_HIER] = {6.6 * US, 14.0 * US, 8.4 * US},
	[DC_NET_ALGO_TREE] = {6.8 * US, 14.0 * US, 8.4 * US},
	[DC_NET_ALGO_NVLS] = {0, 0, 0},
	[DC_NET_ALGO_PAT] = {0, 0, 0},
};

/* Latency of one hop relative to the config's per-hop latency (the ring's
 * Simple hop): NCCL's hwLat of the pair / its ring Simple hwLat, NVLink
 * (3.4 us) inside a domain and the network (14 us) between (tuning.cc
 * v2.26.2 L129-142: NVLink tree 0.6 / 1.25 / 4.0, ring 0.6 / 1.9 / 3.4,
 * NVLS 25; network tree 5.0 / 8.5 / 14, ring 2.7 / 4.0 / 14, NVLS tree 14). */
static const double hop_intra[DC_NET_ALGO_COUNT][DC_NET_PROTO_COUNT] = {
	[DC_NET_ALGO_RING] = {0.6 / 3.4, 1.9 / 3.4, 1.0},
	[DC_NET_ALGO_HIER] = {0.6 / 3.4, 1.9 / 3.4, 1.0},
	[DC_NET_ALGO_TREE] = {0.6 / 3.4, 1.25 / 3.4, 4.0 / 3.4},
	[DC_NET_ALGO_NVLS] = {0, 0, 25.0 / 3.4},
	[DC_NET_ALGO_PAT] = {0, 0, 0},
};
static const double hop_inter[DC_NET_ALGO_COUNT][DC_NET_PROTO_COUNT] = {
	[DC_NET_ALGO_RING] = {2.7 / 14.0, 4.0 / 14.0, 1.0},
	[DC_NET_ALGO_HIER] = {2.7 / 14.0, 4.0 / 14.0, 1.0},
	[DC_NET_ALGO_TREE] = {5.0 / 14.0, 8.5 / 14.0, 14.0 / 14.0},
	[DC_NET_ALGO_NVLS] = {0, 0, 14.0 / 14.0},
	[DC_NET_ALGO_PAT] = {5.0 / 14.0, 8.5 / 14.0, 14.0 / 14.0},
};

/* LL moves 8 bytes of which 4 are data and its flag stores serialise:
 * 1/4 of the rate for an AllReduce or across nodes, 1/3 otherwise, and no
 * more bus bandwidth than NCCL's llMaxBws (tuning.cc v2.26.2 L151-156):
 * in one node by GPU generation, across nodes by the hosts' CPU vendor
 * (L218-220: Intel's row 39.0 GB/s on two nodes and 20.4 on more, AMD's
 * 22.5 and 19.0; net->amd_hosts: dc_net_init). The ceiling bounds the rate of
 * every channel together (NCCL applies it when it fills comm->bandwidths,
 * L256 and L259, and scales that by the channels a call uses afterwards,
 * v2.21.5 L436): a call on fewer channels gets its share of the ceiling
 * (proto_rate, price_tree). */
#define LL_SHARE_AR 0.25
#define LL_SHARE (1.0 / 3.0)
static const double ll_max_one_node[DC_NET_GEN_COUNT] = {39.0, 87.7, 141.0, 2 * 141.0};
static double ll_cap_bytes_per_s(const struct dc_net *net, uint64_t nodes)
{
	if (nodes <= 1)
		return ll_max_one_node[net->gen] * GBPS;
	if (net->amd_hosts)
		return nodes == 2 ? 22.5 * GBPS : 19.0 * GBPS;
	return nodes == 2 ? 39.0 * GBPS : 20.4 * GBPS;
}
/* LL128: 120 of every 128 bytes are data; NCCL takes 0.92 of the rate. */
#define LL128_SHARE 0.92
/* Tree: 0.92 of the rate (NCCL), LL 1/3.8 of that, LL128 7/9 in one node
 * and 120/128 across nodes. */
#define TREE_SHARE 0.92
#define TREE_LL_SHARE (1.0 / 3.8)
/* NVLS and the NVLS tree move 5/6 of what their links could (NCCL's NVLS
 * ratio, tuning.cc v2.26.2 L293, applied to the whole bandwidth). */
#define NVLS_SHARE (5.0 / 6.0)
/* PAT keeps 3/4 of the network's rate (tuning.cc v2.26.2 L262). */
#define PAT_SHARE 0.75

/* Per-channel bus-bandwidth caps, GB/s, by generation and nodes (1, 2,
 * more): tuning.cc v2.26.2 L158-175 (ring LL128, tree LL128, tree) and
 * master's perChMaxNVLSTreeBws (src/graph/tuning.cc L205-211). */
static const double per_ch_ring_ll128[DC_NET_GEN_COUNT][3] = {
	{20.0, 20.0, 20.0}, {20.0, 20.0, 20.0}, {36.7, 36.7, 36.7}, {2 * 36.7, 2 * 36.7, 2 * 36.7}};
static const double per_ch_tree_ll128[DC_NET_GEN_COUNT][3] = {
	{20.0, 20.0, 20.0}, {20.0, 20.0, 20.0}, {36.7, 36.7, 29.0}, {2 * 36.7, 2 * 36.7, 2 * 29.0}};
static const double per_ch_tree[DC_NET_GEN_COUNT][3] = {
	{26.5, 18.5, 10.0}, {24.0, 23.6, 17.8}, {38.7, 41.4, 36.0}, {2 * 38.7, 2 * 41.4, 2 * 36.0}};
static const double per_ch_nvls_tree[DC_NET_GEN_COUNT][3] = {
	{26.5, 18.5, 10.0}, {24.0, 23.6, 17.8}, {0, 57.7, 45.5}, {0, 96.0, 80.0}};

static int nodes_index(uint64_t nodes)
{
	return nodes <= 1 ? 0 : nodes == 2 ? 1 : 2;
}

/* NCCL's treeCorrectionFactor (tuning.cc v2.26.2 L524-528): the tree's
 * AllReduce bandwidth by message size, knot k at 64 x 2^k bytes, per
 * protocol (LL, LL128, Simple), its 23 knots; 1 past the table (the last
 * column, so that dc_net_init copies the rows whole). */
static const double tree_correction[DC_NET_PROTO_COUNT][DC_NET_SIZE_KNOTS] = {
	{1.0, 1.0, 1.0, 1.0, .9, .8, .7, .7, .7, .7, .6, .5, .4, .4, .5, .6, .7, .8, .9, 1.0, 1.0, 1.0, 1.0, 1.0},
	{1.0, 1.0, 1.0, 1.0, 1.0, .9, .8, .8, .8, .7, .6, .6, .6, .6, .6, .6, .8, .9, .9, .9, .9, 1.0, 1.0, 1.0},
	{.9, .9, .9, .9, .9, .9, .9, .8, .7, .6, .6, .5, .5, .5, .5, .6, .7, .8, .7, .7, .8, .9, .9, 1.0},
};
_Static_assert(DC_NET_SIZE_KNOTS == 24, "tree_correction: NCCL's 23 knots and a last 1");

/* Threads per channel and bytes per thread before NCCL adds a channel
 * (src/include/device.h v2.26.2: 512 LL, 640 LL128, 512 Simple threads;
 * src/include/comm.h L37-39: thresholds 8, 8, 64). */
static const uint64_t ch_threads[DC_NET_PROTO_COUNT] = {512, 640, 512};
static const uint64_t ch_threshold[DC_NET_PROTO_COUNT] = {8, 8, 64};

/* ---- shapes ---- */

static uint64_t min_u64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

static uint64_t max_u64(uint64_t a, uint64_t b)
{
	return a > b ? a : b;
}

static double min_d(double a, double b)
{
	return a < b ? a : b;
}

static double max_d(double a, double b)
{
	return a > b ? a : b;
}

/* floor(log2(n)) for n >= 1 (NCCL's log2i) */
static uint64_t log2_floor(uint64_t n)
{
	return n > 1 ? (uint64_t)(63 - __builtin_clzll(n)) : 0; /* the highest bit set */
}

static uint64_t domain_of(const struct dc_net *net)
{
	uint64_t d = net->nvlink_domain ? net->nvlink_domain : net->gpus_per_node;
	return d ? d : 1;
}

/* The NICs `c` ranks of a progression of step `stride` use on one node
 * (GPU i of a node uses NIC i mod nics: the progression visits
 * nics / gcd(stride, nics) of them; with more NICs than GPUs each rank
 * brings nics / gpn, as shape() says) */
static uint64_t node_rails_of(uint64_t c, uint64_t stride, uint64_t gpn, uint64_t nics)
{
	uint64_t r = min_u64(c, nics / dc_gcd_u64(stride % nics ? stride % nics : nics, nics));
	if (nics > gpn && stride < gpn)
		r = c * nics / gpn; /* the product first, as shape() */
	else if (nics > gpn)
		r = nics / gpn;
	return r ? r : 1;
}

/* Members of the progression first + k stride (k < size) in ranks
 * [lo, hi), lo >= first */
static uint64_t members_in(uint64_t first, uint64_t stride, uint64_t size, uint64_t lo, uint64_t hi)
{
	uint64_t last = first + (size - 1) * stride, a, b;
	if (hi > last + 1)
		hi = last + 1;
	if (hi <= lo)
		return 0;
	a = (lo - first + stride - 1) / stride; /* the first k at or after lo */
	b = (hi - first + stride - 1) / stride; /* the first k at or after hi */
	return b - a;
}

/* The smallest x >= 0 with (phase + x step) mod s in [lo, hi] (phase < s,
 * lo <= hi < s), UINT64_MAX when there is none: dc_first_in_range over
 * the interval moved by -phase, which holds no 0 (and so does not wrap)
 * once phase lies outside it. */
static uint64_t first_phase_in(uint64_t phase, uint64_t step, uint64_t s, uint64_t lo, uint64_t hi)
{
	if (phase >= lo && phase <= hi)
		return 0;
	return dc_first_in_range(step, s, (lo + s - phase) % s, (hi + s - phase) % s);
}

/* The m middle domains d0 + 1 .. d0 + m of the progression first + k
 * stride (stride < dom), each wholly inside its span. Domain j's first
 * member sits phi_j = (first - j dom) mod stride into it, so it holds
 * ceil((dom - phi_j) / stride) of them: q + 1 = ceil(dom / stride) when
 * phi_j < dom mod stride, else q = floor(dom / stride); from one domain
 * to the next phi steps by -dom mod stride, so the first domain of a
 * kind is a dc_first_in_range away. Returns the fewest members a middle
 * domain holds, the first one holding them in *at. O(log stride). */
static uint64_t middle_least(uint64_t dom, uint64_t first, uint64_t stride, uint64_t d0, uint64_t m,
			     uint64_t *at)
{
	uint64_t q = dom / stride, rem = dom % stride, lo = (d0 + 1) * dom;
	uint64_t phase = (stride - (lo - first) % stride) % stride, x;

	*at = d0 + 1;
	if (!rem)
		return q;
	x = first_phase_in(phase, stride - rem, stride, rem, stride - 1);
	if (x >= m)
		return q + 1;
	*at = d0 + 1 + x;
	return q;
}

/* The most members one of those middle domains holds (as middle_least) */
static uint64_t middle_most(uint64_t dom, uint64_t first, uint64_t stride, uint64_t d0, uint64_t m)
{
	uint64_t q = dom / stride, rem = dom % stride, lo = (d0 + 1) * dom;
	uint64_t phase = (stride - (lo - first) % stride) % stride;

	if (!rem)
		return q;
	return first_phase_in(phase, stride - rem, stride, 0, rem - 1) < m ? q + 1 : q;
}

/* A group whose domains hold different counts: one that straddles a
 * boundary off its alignment (ranks 32-47 on 36-GPU domains: 4 and 12;
 * 64-79 on 72: 8 and 8, fewer than min(size, ceil(dom / stride))), or
 * whose stride does not divide dom (ranks 0, 16, ..., 496 on 72-GPU
 * domains: 5, 4, 5, 4, 5, 4, 5). The busiest domain's count is r; the
 * least-filled domain's sets what the crossing gets: its ranks send the
 * most over the network (AlltoAll) and its NICs are the fewest the
 * group's traffic between domains can use (every algorithm's B_node).
 * Every domain is counted: the first and last exactly, the middle ones
 * in closed form (middle_least); of several least-filled domains the
 * lowest-numbered gives the NICs, node by node (O(dom / gpn)). */
static void shape_straddle(uint64_t dom, uint64_t gpn, uint64_t nics, uint64_t first, uint64_t stride,
			   uint64_t size, struct dc_net_group *g)
{
	uint64_t last = first + (size - 1) * stride, d0 = first / dom, dl = last / dom;
	uint64_t c0 = members_in(first, stride, size, first, (d0 + 1) * dom);
	uint64_t cl = members_in(first, stride, size, dl * dom, last + 1);
	uint64_t least = c0, busiest = max_u64(c0, cl), at = d0, rails = 0;

	if (dl > d0 + 1) {
		uint64_t mid_at, mid = middle_least(dom, first, stride, d0, dl - d0 - 1, &mid_at);
		busiest = max_u64(busiest, middle_most(dom, first, stride, d0, dl - d0 - 1));
		if (mid < least) {
			least = mid;
			at = mid_at;
		}
	}
	if (cl < least) {
		least = cl;
		at = dl;
	}
	g->ranks_per_node = busiest;
	g->ranks_least = least;
	/* the least-filled domain's NICs, node by node over the nodes its
	 * members sit on (fewer than size + 1 when stride < gpn; one member
	 * a node otherwise) */
	if (stride >= gpn) {
		rails = least * node_rails_of(1, stride, gpn, nics);
	} else {
		uint64_t from = max_u64(at * dom, first);
		uint64_t to = min_u64(at * dom + dom, last + 1);
		for (uint64_t n = from / gpn; n * gpn < to; n++) {
			uint64_t a = max_u64(n * gpn, from);
			uint64_t c = members_in(first, stride, size, a, min_u64(n * gpn + gpn, to));
			if (c)
				rails += node_rails_of(c, stride, gpn, nics);
		}
	}
	g->rails = rails ? rails : 1;
}

/* The domains holding members of first + k stride (k < size) in ranks
 * [lo, hi): each member its own with stride >= dom, else every domain
 * from the first member's to the last's (a step below dom skips none). */
static uint64_t domains_in(uint64_t first, uint64_t stride, uint64_t size, uint64_t lo, uint64_t hi, uint64_t dom)
{
	uint64_t n = members_in(first, stride, size, max_u64(lo, first), hi), a, b;
	if (n == 0 || stride >= dom)
		return n;
	a = first + (max_u64(lo, first) - first + stride - 1) / stride * stride; /* the first member in range */
	b = a + (n - 1) * stride;
	return b / dom - a / dom + 1;
}

/* cross_leaf of the progression first .. last (step stride): 0 under one
 * leaf switch, else the fewest of its domains under one leaf it reaches,
 * k >= 1 (docs/network-model.md, "The spine": a ring leaves each leaf once a
 * direction, so its slowdown is max(1, oversubscription / k)). Domains
 * that are not whole parts of a leaf (a rack wider than a leaf) count 1:
 * the whole ratio, as before stop 70. */
static int leaf_least(const struct dc_net *net, uint64_t first, uint64_t stride, uint64_t size, uint64_t last,
		      uint64_t dom, uint64_t gpn)
{
	uint64_t leaf, lf, ll, least, n;
	if (!net->nodes_per_leaf || dc_mul_u64(net->nodes_per_leaf, gpn, &leaf) || first / leaf == last / leaf)
		return 0;
	if (dom > leaf || leaf % dom || stride >= leaf)
		return 1;
	lf = first / leaf;
	ll = last / leaf;
	least = domains_in(first, stride, size, first, lf * leaf + leaf, dom);
	n = domains_in(first, stride, size, ll * leaf, last + 1, dom);
	if (n < least)
		least = n;
	/* a leaf in between: every domain of it (a step below dom), or at
	 * least leaf / stride members, one a domain */
	if (ll > lf + 1) {
		n = stride < dom ? leaf / dom : leaf / stride;
		if (n < least)
			least = n;
	}
	if (least < 1)
		least = 1;
	return least > (uint64_t)INT32_MAX ? INT32_MAX : (int)least;
}

/* The shape of ranks first + k stride, k < size, and the flows through
 * each NIC when every GPU of a node belongs to a group like it
 * (`symmetric`), else alone. */
static void shape(const struct dc_net *net, uint64_t first, uint64_t stride, uint64_t size, int symmetric,
		  struct dc_net_group *g)
{
	uint64_t dom = domain_of(net), gpn = net->gpus_per_node ? net->gpus_per_node : 1;
	uint64_t nics = net->nics_per_node ? net->nics_per_node : 1;
	uint64_t last, node_ranks, node_rails, node_end;

	if (size <= 1) {
		/* one rank (a layout's axes of degree 1): what the lines below
		 * give for it, without their divisions */
		g->ranks = 1;
		g->nodes = 1;
		g->ranks_per_node = 1;
		g->ranks_least = 1;
		g->rails = nics > gpn ? nics / gpn : 1;
		g->concurrent = 1;
		g->cross_leaf = 0;
		return;
	}
	if (stride == 0)
		stride = 1;
	last = first + (size - 1) * stride;
	g->ranks = size;
	/* domains: members a domain apart sit in distinct ones, closer ones
	 * leave none between the first and the last unvisited */
	g->nodes = stride >= dom ? size : last / dom - first / dom + 1;
	g->ranks_per_node = stride >= dom ? 1 : min_u64(size, (dom + stride - 1) / stride);
	/* the group's ranks on the first rank's node, and the NICs they use
	 * (GPU i of a node uses NIC i mod nics: a progression of step s
	 * visits nics / gcd(s, nics) of them) */
	node_end = (first / gpn + 1) * gpn;
	node_ranks = stride >= gpn ? 1 : min_u64(size, (node_end - first - 1) / stride + 1);
	node_rails = min_u64(node_ranks, nics / dc_gcd_u64(stride % nics ? stride % nics : nics, nics));
	if (node_rails == 0)
		node_rails = 1;
	/* more NICs than GPUs (a p5's 32 for 8): NCCL spreads a GPU's
	 * channels over the NICs nearest it, so each rank brings nics / gpn of
	 * them (every NIC of the node when all its GPUs take part) */
	if (nics > gpn && stride < gpn)
		/* node_ranks x nics / gpn, the product first: 12 NICs for 8
		 * GPUs give the node's 8 all 12 (nics / gpn first kept 8) */
		node_rails = node_ranks * nics / gpn; /* both within the loader's 2^24 */
	else if (nics > gpn)
		node_rails = nics / gpn;
	/* a domain of several nodes holds ranks_per_node / node_ranks of them */
	g->rails = node_rails * max_u64(1, g->ranks_per_node / node_ranks);
	g->ranks_least = g->ranks_per_node;
	/* a group with a domain that holds fewer than r: its first or last
	 * (it straddles a boundary off its alignment), or a middle one when
	 * stride does not divide dom; its real counts and the least-filled
	 * domain's NICs. An aligned group asks no more than its two ends. */
	if (stride < dom && g->nodes > 1) {
		uint64_t d0 = first / dom, dl = last / dom, r = g->ranks_per_node, at;
		if (members_in(first, stride, size, first, (d0 + 1) * dom) != r ||
		    members_in(first, stride, size, dl * dom, last + 1) != r ||
		    (dl > d0 + 1 && dom % stride && middle_least(dom, first, stride, d0, dl - d0 - 1, &at) < r))
			shape_straddle(dom, gpn, nics, first, stride, size, g);
	}
	/* every GPU of the node in a group like this one: a NIC serves
	 * gpn / nics GPUs, node_ranks / node_rails of them ours */
	g->concurrent = 1;
	if (symmetric && g->nodes > 1) {
		uint64_t num = (gpn > nics ? gpn : nics) * node_rails;
		uint64_t den = nics * node_ranks;
		g->concurrent = max_u64(1, (num + den - 1) / den);
		if (gpn < nics) /* more NICs than GPUs: each GPU has its own */
			g->concurrent = 1;
	}
	g->cross_leaf = leaf_least(net, first, stride, size, last, dom, gpn);
}

void dc_net_group_ranks(const struct dc_net *net, uint64_t first, uint64_t stride, uint64_t size,
			struct dc_net_group *g)
{
	shape(net, first, stride, size, 0, g);
}

void dc_net_group_progression(const struct dc_net *net, uint64_t first, uint64_t stride, uint64_t size,
			      struct dc_net_group *g)
{
	shape(net, first, stride, size, 1, g);
}

/* The NICs the lattice's members in ranks [lo, hi) use, node by node:
 * on a node, its distinct NICs (GPU i uses NIC i mod nics, i the rank
 * mod gpn), or nics / gpn per member with more NICs than GPUs (shape()).
 * Walks the members, at most hi - lo of them. */
static uint64_t lattice_rails(uint64_t gpn, uint64_t nics, uint64_t first, uint64_t a, uint64_t na, uint64_t b,
			      uint64_t nb, uint64_t lo, uint64_t hi)
{
	uint64_t rails = 0, node = UINT64_MAX, seen[4] = {0}, members = 0;
	uint64_t j0 = lo > first ? (lo - first) / b : 0;

	for (uint64_t j = j0; j < nb; j++) {
		uint64_t c = first + j * b;
		if (c >= hi)
			break;
		for (uint64_t i = 0; i < na; i++) {
			uint64_t r = c + i * a, k;
			if (r >= hi)
				break;
			if (r < lo)
				continue;
			if (r / gpn != node) {
				node = r / gpn;
				memset(seen, 0, sizeof(seen));
			}
			members++;
			if (nics > gpn)
				continue;
			k = r % gpn % nics;
			if (k >= 256) { /* past the bitmap: count it as its own */
				rails++;
				continue;
			}
			if (!(seen[k / 64] >> (k % 64) & 1)) {
				seen[k / 64] |= (uint64_t)1 << (k % 64);
				rails++;
			}
		}
	}
	if (nics > gpn)
		rails = members * (nics / gpn);
	return rails ? rails : 1;
}

/* Domain counts of a walk that visits domains in increasing order: each
 * domain's count is done when the walk leaves it. */
struct domain_walk {
	uint64_t cur, count, nodes, busiest, least, at;
};

static void walk_add(struct domain_walk *w, uint64_t d, uint64_t n)
{
	if (!n)
		return;
	if (d != w->cur && w->count) {
		w->nodes++;
		w->busiest = max_u64(w->busiest, w->count);
		if (w->count < w->least) { /* strictly: the lowest-numbered of ties */
			w->least = w->count;
			w->at = w->cur;
		}
		w->count = 0;
	}
	w->cur = d;
	w->count += n;
}

void dc_net_group_lattice(const struct dc_net *net, uint64_t first, uint64_t a, uint64_t na, uint64_t b,
			  uint64_t nb, struct dc_net_group *g)
{
	uint64_t dom = domain_of(net), gpn = net->gpus_per_node ? net->gpus_per_node : 1;
	uint64_t nics = net->nics_per_node ? net->nics_per_node : 1;
	struct domain_walk w = {UINT64_MAX, 0, 0, 0, UINT64_MAX, 0};
	uint64_t span, last;

	if (a == 0)
		a = 1;
	if (na <= 1 || nb <= 1 || a * na == b) {
		/* one progression (the axes adjacent, or one of them of
		 * degree 1): shape() as it is, bit for bit */
		if (na <= 1)
			shape(net, first, b, nb, 1, g);
		else if (nb <= 1)
			shape(net, first, a, na, 1, g);
		else
			shape(net, first, a, na * nb, 1, g);
		return;
	}
	assert(a * na < b);
	span = (na - 1) * a;
	last = first + (nb - 1) * b + span;
	/* the clusters first + j b, j < nb, in increasing order and apart
	 * (a na < b): the domains they visit never decrease. A cluster's
	 * members a domain or more apart sit one a domain; closer ones are
	 * counted domain by domain (members_in). */
	for (uint64_t j = 0; j < nb; j++) {
		uint64_t c = first + j * b, d0 = c / dom, dl = (c + span) / dom;
		if (d0 == dl)
			walk_add(&w, d0, na);
		else if (a >= dom)
			for (uint64_t i = 0; i < na; i++)
				walk_add(&w, (c + i * a) / dom, 1);
		else
			for (uint64_t d = d0; d <= dl; d++)
				walk_add(&w, d, members_in(c, a, na, max_u64(c, d * dom), d * dom + dom));
	}
	walk_add(&w, UINT64_MAX, 1); /* closes the last domain */
	g->ranks = na * nb;
	g->nodes = w.nodes;
	g->ranks_per_node = w.busiest;
	g->ranks_least = w.least;
	/* the least-filled (lowest-numbered of them) domain's NICs */
	g->rails = lattice_rails(gpn, nics, first, a, na, b, nb, max_u64(w.at * dom, first),
				 min_u64(w.at * dom + dom, last + 1));
	/* every GPU of a node in a group like this one: a NIC serves
	 * gpn / nics GPUs, least / rails of them ours (shape()) */
	g->concurrent = 1;
	if (w.nodes > 1 && gpn >= nics) {
		uint64_t num = gpn * g->rails, den = nics * w.least;
		g->concurrent = max_u64(1, (num + den - 1) / den);
	}
	/* a lattice's domains under each leaf are not counted: the whole
	 * ratio (k 1) */
	g->cross_leaf = net->nodes_per_leaf > 0 &&
			first / gpn / net->nodes_per_leaf != last / gpn / net->nodes_per_leaf;
}

void dc_net_group_axis(const struct dc_net *net, const struct dc_topology *t, enum dc_axis axis,
		       uint64_t index, struct dc_net_group *g)
{
	struct dc_group grp;
	dc_topology_group(t, axis, index, &grp);
	shape(net, grp.first, grp.stride, grp.size, 1, g);
}

/* A group's node rate without the spine */
static double node_bw_flat(const struct dc_net *net, const struct dc_net_group *g)
{
	return (double)(g->rails ? g->rails : 1) * net->nic_bw_bytes_per_s * net->nic_path_factor /
	       (double)(g->concurrent ? g->concurrent : 1);
}

double dc_net_leaf_slowdown(const struct dc_net *net, const struct dc_net_group *g, enum dc_net_leaf_pattern pat)
{
	double rho = net->oversubscription, k, n, f;
	if (!g->cross_leaf || !(rho > 1))
		return 1;
	k = (double)g->cross_leaf;
	switch (pat) {
	case DC_NET_LEAF_RING:
		return max_d(1.0, rho / k);
	case DC_NET_LEAF_ALL_TO_ALL:
		/* a domain's traffic to the group's domains outside its leaf,
		 * (N - k) of its N - 1 peers, over the leaf's uplinks */
		n = (double)g->nodes;
		f = n > 1 ? (n - min_d(k, n - 1)) / (n - 1) : 1;
		return max_d(1.0, rho * f);
	case DC_NET_LEAF_WHOLE:
		break;
	}
	return rho;
}

double dc_net_node_bw(const struct dc_net *net, const struct dc_net_group *g)
{
	double bw = node_bw_flat(net, g);
	if (g->cross_leaf && net->oversubscription > 1)
		bw /= dc_net_leaf_slowdown(net, g, DC_NET_LEAF_RING);
	return bw;
}

/* ---- prices ---- */

double dc_net_busbw_factor(enum dc_coll_kind op, uint64_t p)
{
	double n = (double)p;
	if (p < 2)
		return 1;
	switch (op) {
	case DC_COLL_ALL_REDUCE:
		return 2.0 * (n - 1) / n;
	case DC_COLL_REDUCE_SCATTER:
	case DC_COLL_ALL_GATHER:
	case DC_COLL_ALL_TO_ALL:
		return (n - 1) / n;
	case DC_COLL_SEND:
	case DC_COLL_BROADCAST:
		break;
	}
	return 1;
}

/* What one (algorithm, protocol) pair costs */
struct price {
	double lat_s, bw_s;
};

/* The share of the rate protocol p carries on a ring-like pattern. */
static double ring_share(enum dc_net_proto p, enum dc_coll_kind op, uint64_t nodes)
{
	switch (p) {
	case DC_NET_PROTO_LL:
		return nodes > 1 || op == DC_COLL_ALL_REDUCE ? LL_SHARE_AR : LL_SHARE;
	case DC_NET_PROTO_LL128:
		return LL128_SHARE;
	case DC_NET_PROTO_SIMPLE:
	case DC_NET_PROTO_COUNT:
		break;
	}
	return 1;
}

int dc_net_size_knot(uint64_t bytes)
{
	uint64_t b = bytes >> 6;
	int k;
	if (b == 0)
		return -1;
	k = 63 - __builtin_clzll(b); /* floor(log2 b): the highest bit set */
	return k >= DC_NET_SIZE_KNOTS ? DC_NET_SIZE_KNOTS - 1 : k;
}

uint64_t dc_net_channels_used(const struct dc_net *net, enum dc_net_algo a, enum dc_net_proto p, uint64_t ranks,
			      uint64_t bytes)
{
	uint64_t nc = net->channels ? net->channels : 1, per;
	if (a == DC_NET_ALGO_NVLS)
		return net->nvls_channels ? net->nvls_channels : 1;
	if (a == DC_NET_ALGO_PAT || a == DC_NET_ALGO_HIER)
		return nc;
	per = ch_threads[p] * ch_threshold[p];
	if (a == DC_NET_ALGO_RING && p == DC_NET_PROTO_LL)
		per *= ranks ? ranks : 1; /* tuning.cc v2.26.2 L493 */
	return bytes / per >= nc ? nc : max_u64(1, bytes / per);
}

/* What a call of S bytes on one group sees, the same for every
 * (algorithm, protocol) pair it tries, so found once (call_size): its size
 * knot and ramp, one node's rate between domains and nccl-tests' bus
 * bytes. The channels a pair runs on depend on the pair: each price
 * function that needs them asks (pair_channels). A call marked `tuner` is
 * priced as NCCL's tuner prices it to choose the pair: on every channel
 * (comm->bandwidths, tuning.cc v2.26.2 L253-297, read whole by
 * ncclTopoGetAlgoTime, L530-545; dc_net_time). */
struct call {
	double S;
	uint64_t bytes;
	int knot;
	int tuner;        /* every channel: the tuner's price */
	double ramp;      /* the fitted ramp's factor (1 without one) */
	double node_bw;   /* dc_net_node_bw(net, g): a ring's across a leaf */
	/* node_bw x these: an algorithm whose crossings of a leaf are not
	 * counted (the tree, NVLS, PAT: the whole ratio), and AlltoAll's
	 * share of traffic to other leaves (dc_net_leaf_slowdown); 1
	 * without a crossing */
	double leaf_whole, leaf_a2a;
	double node_bw_ch; /* node_bw as the ring's and the tree's channels reach it (call_size) */
	double busbw;     /* dc_net_busbw_factor(op, g->ranks) */
	double bus_bytes; /* S x busbw */
};

static double knot_value(const double knots[DC_NET_RAMP_KNOTS], int k)
{
	return knots[k] > 0 ? knots[k] : 1.0; /* a knot left 0 counts as 1 */
}

double dc_net_ramp_factor(const double knots[DC_NET_RAMP_KNOTS], uint64_t bytes)
{
	double x, lo_at, hi_at, lo_v, hi_v;
	int i = 0;
	/* the first knot set, if any (a network without a fitted ramp, the
	 * usual one, has none: every call looks at all of them) */
	while (i < DC_NET_RAMP_KNOTS && !(knots[i] > 0))
		i++;
	if (i == DC_NET_RAMP_KNOTS || bytes == 0)
		return 1.0;
	x = log2((double)bytes);
	if (x <= DC_NET_RAMP_LOG2_FIRST)
		return knot_value(knots, 0);
	if (x >= DC_NET_RAMP_LOG2_ONE)
		return 1.0;
	/* between knot i and the next, or the last knot and 1 at LOG2_ONE */
	i = (int)((x - DC_NET_RAMP_LOG2_FIRST) / DC_NET_RAMP_LOG2_STEP);
	if (i >= DC_NET_RAMP_KNOTS - 1) {
		lo_at = DC_NET_RAMP_LOG2_FIRST + DC_NET_RAMP_LOG2_STEP * (DC_NET_RAMP_KNOTS - 1);
		hi_at = DC_NET_RAMP_LOG2_ONE;
		lo_v = knot_value(knots, DC_NET_RAMP_KNOTS - 1);
		hi_v = 1.0;
	} else {
		lo_at = DC_NET_RAMP_LOG2_FIRST + DC_NET_RAMP_LOG2_STEP * i;
		hi_at = lo_at + DC_NET_RAMP_LOG2_STEP;
		lo_v = knot_value(knots, i);
		hi_v = knot_value(knots, i + 1);
	}
	return lo_v + (hi_v - lo_v) * (x - lo_at) / (hi_at - lo_at);
}

/* c for `bytes` of `op` on g. Each member is the value the pair's
 * formula computed for itself before (the same function of the same
 * arguments), so a price reading it is bit for bit the one computing it. */
static void call_size(const struct dc_net *net, enum dc_coll_kind op, const struct dc_net_group *g, uint64_t bytes,
		      struct call *c)
{
	c->S = (double)bytes;
	c->bytes = bytes;
	c->knot = dc_net_size_knot(bytes);
	c->tuner = 0;
	c->ramp = dc_net_ramp_factor(net->ramp[g->nodes > 1 ? 1 : 0], bytes);
	c->node_bw = c->node_bw_ch = dc_net_node_bw(net, g);
	c->leaf_whole = c->leaf_a2a = 1;
	if (g->cross_leaf && net->oversubscription > 1) {
		double ring = dc_net_leaf_slowdown(net, g, DC_NET_LEAF_RING);
		c->leaf_whole = ring / net->oversubscription;
		c->leaf_a2a = ring / dc_net_leaf_slowdown(net, g, DC_NET_LEAF_ALL_TO_ALL);
	}
	/* each ring or tree channel leaves a node through one NIC (NCCL's
	 * search finds about one channel per NIC: default_channels), so a
	 * ring or tree on fewer channels than the group's NICs reaches only
	 * as many of them (a user trial's cluster.nccl_channels 1 kept all 8
	 * rails of a DGX H100, 7x the one NIC's rate). Only a given count:
	 * the default is one node's NICs' and a multi-node NVLink domain's
	 * group holds the domain's (NVL72: 72 rails, 8 channels), which NCCL
	 * runs on more channels than the default says. NVLS, the hierarchy,
	 * PAT, sends and AlltoAll run on channels of their own */
	if (op != DC_COLL_SEND && op != DC_COLL_ALL_TO_ALL && g->nodes > 1 && net->channels_given &&
	    net->channels < g->rails)
		c->node_bw_ch *= (double)net->channels / (double)g->rails;
	c->busbw = dc_net_busbw_factor(op, g->ranks);
	c->bus_bytes = c->S * c->busbw;
}

/* The channels pair (a, p) runs the call on, and their share of the
 * full-channel rate; every channel for the tuner's price */
static uint64_t pair_channels(const struct dc_net *net, enum dc_net_algo a, enum dc_net_proto p,
			      const struct dc_net_group *g, const struct call *c, double *ch_share)
{
	uint64_t all = net->channels ? net->channels : 1;
	uint64_t nc = c->tuner ? all : dc_net_channels_used(net, a, p, g->ranks, c->bytes);
	/* every channel (a large call): the quotient is 1 exactly, without
	 * the division */
	*ch_share = nc == all ? 1.0 : (double)nc / (double)all;
	return nc;
}

static double size_factor(const struct dc_net *net, const struct call *c)
{
	(void)net;
	return c->ramp;
}

static double tree_factor(const struct dc_net *net, enum dc_net_proto p, const struct call *c)
{
	return c->knot >= 0 && net->tree_factor[p][c->knot] > 0 ? net->tree_factor[p][c->knot] : 1.0;
}

/* A bus rate after the protocol: its share, and LL's ceiling. `rate` is
 * already the share ch_share of the full-channel rate (pair_channels);
 * the ceiling bounds the full-channel rate, so it scales by the same share
 * (min(R, cap) x share = min(R x share, cap x share); ch_share 1 for a
 * call on every channel, or a rate without channels). */
static double proto_rate(const struct dc_net *net, enum dc_net_proto p, enum dc_coll_kind op, uint64_t nodes,
			 double rate, double ch_share)
{
	double r = rate * ring_share(p, op, nodes);
	if (p == DC_NET_PROTO_LL)
		r = min_d(r, ll_cap_bytes_per_s(net, nodes) * ch_share);
	return r;
}

static double hop_in(const struct dc_net *net, enum dc_net_algo a, enum dc_net_proto p)
{
	return net->nvlink_latency_s * hop_intra[a][p];
}

/* One hop between nodes: NCCL's hwLat scaled to the config's, with one GPU
 * per node the tree's (every hop exposed), plus the network plugin's
 * latency, twice for Simple (its flush; tuning.cc v2.26.2 L300-304). */
static double hop_out(const struct dc_net *net, enum dc_net_algo a, enum dc_net_proto p, int one_per_node)
{
	double hw = hop_inter[one_per_node ? DC_NET_ALGO_TREE : a][p];
	return net->net_latency_s * hw + net->plugin_latency_s * (p == DC_NET_PROTO_SIMPLE ? 2.0 : 1.0);
}

/* The protocols, as a mask over enum dc_net_proto */
#define PROTO_BIT(p) (1u << (p))
#define PROTO_ALL (PROTO_BIT(DC_NET_PROTO_LL) | PROTO_BIT(DC_NET_PROTO_LL128) | PROTO_BIT(DC_NET_PROTO_SIMPLE))
#define PROTO_SIMPLE_ONLY PROTO_BIT(DC_NET_PROTO_SIMPLE)

/* Each algorithm below is two functions: the protocols it runs `op` with
 * on group g (its_runs: a mask, 0 when it cannot run the op there), and
 * the price of each of them (price_its: every protocol of the mask, which
 * the runs function has admitted, into out[protocol]; what the protocols
 * share found once). Every rule that refuses a pair sits in the runs
 * function, so that a call (dc_net_time tries 5 algorithms x 3
 * protocols) pays for the channels and rates of the pairs it prices only. */

/* Each protocol of mask `protos`, lowest first: `pr` names it. The loop
 * keeps the protocols left in its own `rest_`, so two of these cannot be
 * nested in one scope (nor is one needed: a call prices one mask). */
#define EACH_PROTO(pr, protos)                                                                   \
	for (unsigned rest_ = (protos); rest_ && ((pr) = (enum dc_net_proto)__builtin_ctz(rest_), 1); \
	     rest_ &= rest_ - 1)

/* Flat ring over p ranks in N domains: the busiest link per rank carries
 * busbw; a node's ring crossings share its NICs (docs: "Ring"). Every
 * collective op, every protocol; send and AlltoAll are point to point. */
static unsigned ring_runs(const struct dc_net *net, enum dc_coll_kind op, const struct dc_net_group *g)
{
	(void)net;
	(void)g;
	return op == DC_COLL_SEND || op == DC_COLL_ALL_TO_ALL ? 0 : PROTO_ALL;
}

static void price_ring(const struct dc_net *net, enum dc_coll_kind op, const struct dc_net_group *g,
		       const struct call *c, unsigned protos, struct price *out)
{
	uint64_t p = g->ranks, N = g->nodes, steps, inter;
	double link = net->nvlink_bw_bytes_per_s;
	int one = g->ranks_per_node <= 1;
	enum dc_net_proto pr;
	if (N > 1)
		link = min_d(link, c->node_bw_ch);
	if (one && N > 1)
		link = c->node_bw_ch; /* every hop is a NIC */
	switch (op) {
	case DC_COLL_ALL_REDUCE:
		steps = 2 * (p - 1);
		inter = N > 1 ? min_u64(steps, 2 * (N - 1)) : 0;
		break;
	case DC_COLL_REDUCE_SCATTER:
	case DC_COLL_ALL_GATHER:
		steps = p - 1;
		inter = N - 1;
		break;
	case DC_COLL_BROADCAST:
	case DC_COLL_SEND:
	case DC_COLL_ALL_TO_ALL:
	default:
		/* a pipelined chain: the data crosses every hop once (send and
		 * AlltoAll never come here: ring_runs) */
		steps = p - 1;
		inter = N - 1;
		break;
	}
	EACH_PROTO(pr, protos) {
		struct price *o = &out[pr];
		double rate, intra_lat, ch_share;
		uint64_t nc = pair_channels(net, DC_NET_ALGO_RING, pr, g, c, &ch_share);
		rate = link * ch_share;
		rate = proto_rate(net, pr, op, N, rate, ch_share);
		if (pr == DC_NET_PROTO_LL128)
			rate = min_d(rate, (double)nc * per_ch_ring_ll128[net->gen][nodes_index(N)] * GBPS);
		rate *= size_factor(net, c);
		/* across nodes an intra-node step costs at least the CPU's post
		 * of a network step, three of them for Simple (tuning.cc
		 * v2.26.2 L316-322) */
		intra_lat = hop_in(net, DC_NET_ALGO_RING, pr);
		if (N > 1)
			intra_lat = max_d(intra_lat, net->net_overhead_s * (pr == DC_NET_PROTO_SIMPLE ? 3.0 : 1.0));
		o->lat_s = base_lat_s[DC_NET_ALGO_RING][pr] + (double)(steps - inter) * intra_lat +
			   (double)inter * hop_out(net, DC_NET_ALGO_RING, pr, one);
		/* the ring's plateau: a multi-node Simple AllReduce of 64 B or
		 * more per channel and rank costs 1.4x its latency (1.9x before
		 * Ampere; tuning.cc v2.26.2 L539-542) */
		if (pr == DC_NET_PROTO_SIMPLE && N > 1 && op == DC_COLL_ALL_REDUCE &&
		    c->bytes / ((net->channels ? net->channels : 1) * p) >= 64)
			o->lat_s *= net->gen == DC_NET_GEN_VOLTA ? 1.9 : 1.4;
		o->bw_s = c->bus_bytes / rate;
	}
}

/* Hierarchical: reduce-scatter among the r ranks of a domain, the op on
 * each 1/r shard between domains over every rail at once, all-gather back;
 * the three pipelined, so the busiest resource sets the rate. Simple only
 * (a composite of three phases, bulk only, as NCCL's NVLS and CollNet
 * are); AllReduce, ReduceScatter and AllGather, on two or more domains of
 * two or more ranks each, evenly (else the ring is the same or better).
 * NCCL has no such algorithm without CollNet (SHARP in the switches): auto
 * takes it only with cluster.collnet, as its stand-in. */
static unsigned hier_runs(const struct dc_net *net, enum dc_coll_kind op, const struct dc_net_group *g)
{
	uint64_t r = g->ranks_per_node, N = g->nodes;
	(void)net;
	if (N < 2 || r < 2 || g->ranks != r * N)
		return 0;
	return op == DC_COLL_ALL_REDUCE || op == DC_COLL_REDUCE_SCATTER || op == DC_COLL_ALL_GATHER
		       ? PROTO_SIMPLE_ONLY
		       : 0;
}

static void price_hier_one(const struct dc_net *net, enum dc_coll_kind op, const struct dc_net_group *g,
		       const struct call *c, enum dc_net_proto pr, struct price *o)
{
	uint64_t r = g->ranks_per_node, N = g->nodes;
	double rn = (double)r, nn = (double)N, S = c->S;
	double nv = proto_rate(net, pr, op, N, net->nvlink_bw_bytes_per_s, 1.0) * size_factor(net, c);
	double nic = proto_rate(net, pr, op, N, c->node_bw, 1.0) * size_factor(net, c);
	double intra_phases, intra_bytes, inter_bytes, hi = hop_in(net, DC_NET_ALGO_HIER, pr),
						      ho = hop_out(net, DC_NET_ALGO_HIER, pr, 0);
	if (op == DC_COLL_ALL_REDUCE) {
		intra_phases = 2; /* reduce-scatter and all-gather */
		inter_bytes = 2.0 * (nn - 1) / nn * S;
		o->lat_s = 2.0 * (rn - 1) * hi + 2.0 * (nn - 1) * ho;
	} else { /* ReduceScatter, AllGather (hier_runs) */
		intra_phases = 1;
		inter_bytes = (nn - 1) / nn * S;
		o->lat_s = (rn - 1) * hi + (nn - 1) * ho;
	}
	/* a rank sends (r-1)/r of the buffer per intra phase */
	intra_bytes = intra_phases * (rn - 1) / rn * S;
	o->lat_s += base_lat_s[DC_NET_ALGO_HIER][pr];
	o->bw_s = max_d(intra_bytes / nv, inter_bytes / nic);
}

/* Double binary tree between domains, a chain inside: every rank sends
 * the buffer up (reduce) and down (broadcast), so a port carries 2S; a
 * domain sends S to the network on two domains, 2S on more. AllReduce
 * only, every protocol. NCCL's caps per channel and its size factor
 * apply. */
static unsigned tree_runs(const struct dc_net *net, enum dc_coll_kind op, const struct dc_net_group *g)
{
	(void)net;
	return op == DC_COLL_ALL_REDUCE && g->ranks >= 2 ? PROTO_ALL : 0;
}

static void price_tree(const struct dc_net *net, enum dc_coll_kind op, const struct dc_net_group *g,
		       const struct call *c, unsigned protos, struct price *out)
{
	uint64_t N = g->nodes, r = g->ranks_per_node;
	int ni = nodes_index(N);
	double link = net->nvlink_bw_bytes_per_s / 2.0;
	/* the hops inside a domain and between domains, converted once */
	double hops_in = (double)(r > 0 ? r - 1 : 0), hops_out = (double)log2_floor(N);
	enum dc_net_proto pr;
	(void)op;
	if (r <= 1 && N > 1)
		link = c->node_bw_ch * c->leaf_whole / (N > 2 ? 2.0 : 1.0);
	else if (N > 1)
		link = min_d(link, c->node_bw_ch * c->leaf_whole / (N > 2 ? 2.0 : 1.0));
	EACH_PROTO(pr, protos) {
		struct price *o = &out[pr];
		double rate, share = 1, nc, ch_share;
		nc = (double)pair_channels(net, DC_NET_ALGO_TREE, pr, g, c, &ch_share);
		rate = link * ch_share;
		/* NCCL's bus rate is twice this (its ratio 0.5, tuning.cc
		 * L294): the per-channel caps halve, and so does LL's ceiling,
		 * which bounds every channel together: the nc used get their
		 * share of it (ll_cap_bytes_per_s) */
		rate = min_d(rate * TREE_SHARE, nc * per_ch_tree[net->gen][ni] * GBPS / 2.0);
		if (pr == DC_NET_PROTO_LL)
			rate = min_d(rate * TREE_LL_SHARE, ll_cap_bytes_per_s(net, N) / 2.0 * ch_share);
		else if (pr == DC_NET_PROTO_LL128) {
			share = N == 1 ? 7.0 / 9.0 : 120.0 / 128.0;
			rate = min_d(rate * share, nc * per_ch_tree_ll128[net->gen][ni] * GBPS / 2.0);
		}
		rate *= tree_factor(net, pr, c) * size_factor(net, c);
		o->lat_s = base_lat_s[DC_NET_ALGO_TREE][pr] +
			   2.0 * (hops_in * hop_in(net, DC_NET_ALGO_TREE, pr) +
				  hops_out * hop_out(net, DC_NET_ALGO_TREE, pr, r <= 1));
		o->bw_s = c->S / rate;
	}
}

/* NVLS: the NVSwitch reduces and multicasts. In one domain a rank's port
 * carries (1 + 1/r) S each way (every rank's buffer read once by the
 * switch, its reduced 1/r written once and multicast); across domains
 * (NCCL's NVLS tree) each 1/r shard also moves between the GPU that
 * reduces it and the GPU whose NIC carries it, (1 + 2/r) S, while the
 * domains run a tree over every rail (S per domain on two, 2S on more).
 * NCCL keeps 5/6 of both (tuning.cc v2.26.2 L293) and caps an NVLS-tree
 * channel (master L205-211). Simple only, with cluster.nvls, over two or
 * more ranks per domain, evenly: AllReduce, and ReduceScatter and
 * AllGather in one domain. */
static unsigned nvls_runs(const struct dc_net *net, enum dc_coll_kind op, const struct dc_net_group *g)
{
	uint64_t N = g->nodes, r = g->ranks_per_node;
	if (!net->nvls || r < 2 || g->ranks != r * N)
		return 0;
	if (op == DC_COLL_ALL_REDUCE || ((op == DC_COLL_REDUCE_SCATTER || op == DC_COLL_ALL_GATHER) && N == 1))
		return PROTO_SIMPLE_ONLY;
	return 0;
}

static void price_nvls_one(const struct dc_net *net, enum dc_coll_kind op, const struct dc_net_group *g,
		       const struct call *c, enum dc_net_proto pr, struct price *o)
{
	uint64_t N = g->nodes, r = g->ranks_per_node;
	double rn = (double)r, port = NVLS_SHARE * net->nvlink_bw_bytes_per_s * size_factor(net, c), load, S = c->S;
	if (op == DC_COLL_ALL_REDUCE) {
		double f = net->gen == DC_NET_GEN_BLACKWELL && N > 1 ? tree_factor(net, pr, c) : 1.0;
		load = N > 1 ? (1.0 + 2.0 / rn) * S : (1.0 + 1.0 / rn) * S;
		o->bw_s = load / (port * f);
		if (N > 1) {
			/* NVLS runs nvls_channels whatever the size */
			uint64_t nc = dc_net_channels_used(net, DC_NET_ALGO_NVLS, pr, g->ranks, c->bytes);
			double cap = (double)nc * per_ch_nvls_tree[net->gen][nodes_index(N)] * GBPS;
			o->bw_s = max_d(o->bw_s, (N > 2 ? 2.0 : 1.0) * S / (NVLS_SHARE * c->node_bw * c->leaf_whole * size_factor(net, c) * f));
			if (cap > 0) /* a bus rate: busbw = 2(p-1)/p x algbw */
				o->bw_s = max_d(o->bw_s, c->bus_bytes / cap);
		}
		o->lat_s = hop_in(net, DC_NET_ALGO_NVLS, pr);
		if (N > 1)
			o->lat_s += 2.0 * (double)log2_floor(N) * hop_out(net, DC_NET_ALGO_NVLS, pr, 0);
		return;
	}
	/* ReduceScatter in one domain: the switch reads all of every buffer
	 * (S out of each port); AllGather: it multicasts all of S into each */
	o->bw_s = S / port;
	o->lat_s = hop_in(net, DC_NET_ALGO_NVLS, pr);
}

/* PAT (NCCL 2.23 on): AllGather and ReduceScatter over one GPU per node,
 * Simple only, 3/4 of the network's rate for the whole buffer S, and a
 * latency of 8 us + log2(N) network hops / 3.5 + 2.8 us per rank
 * (tuning.cc v2.26.2 L177-185, L240-248, L262, L341-346). */
static unsigned pat_runs(const struct dc_net *net, enum dc_coll_kind op, const struct dc_net_group *g)
{
	uint64_t N = g->nodes;
	(void)net;
	if ((op != DC_COLL_ALL_GATHER && op != DC_COLL_REDUCE_SCATTER) || g->ranks_per_node != 1 || N < 2 ||
	    g->ranks != N)
		return 0;
	return PROTO_SIMPLE_ONLY;
}

static void price_pat_one(const struct dc_net *net, enum dc_coll_kind op, const struct dc_net_group *g,
		      const struct call *c, enum dc_net_proto pr, struct price *o)
{
	uint64_t N = g->nodes;
	(void)op;
	o->bw_s = c->S / (PAT_SHARE * c->node_bw * c->leaf_whole * size_factor(net, c));
	o->lat_s = 8.0 * US + (double)log2_floor(N) * hop_out(net, DC_NET_ALGO_PAT, pr, 1) / 3.5 +
		   (double)g->ranks * 2.8 * US;
}

/* Point to point (send, AlltoAll): every peer's share on the link to it,
 * all at once; LL or Simple inside one NVLink domain, Simple across
 * domains: NCCL gives a network p2p connection no LL buffers unless
 * NCCL_ALLOC_P2P_NET_LL_BUFFERS is set (default 0: src/init.cc's
 * AllocP2pNetLLBuffers; src/transport/net.cc maps the LL buffer of a
 * shared p2p connection only under it), and a send runs LL only where its
 * connection has them (enqueue.cc). An AlltoAll across domains is priced
 * at its far peers' protocol, Simple. */
static unsigned p2p_runs(const struct dc_net *net, enum dc_coll_kind op, const struct dc_net_group *g)
{
	(void)net;
	if (op != DC_COLL_SEND && op != DC_COLL_ALL_TO_ALL)
		return 0;
	return g->nodes > 1 ? PROTO_BIT(DC_NET_PROTO_SIMPLE) : PROTO_BIT(DC_NET_PROTO_LL) | PROTO_BIT(DC_NET_PROTO_SIMPLE);
}

static void price_p2p_one(const struct dc_net *net, enum dc_coll_kind op, const struct dc_net_group *g,
		      const struct call *c, enum dc_net_proto pr, struct price *o)
{
	/* the slowest rank: on the least-filled domain (straddling groups),
	 * the one that sends the most through its NIC share */
	uint64_t p = g->ranks, r = g->ranks_least ? g->ranks_least : g->ranks_per_node;
	double nv = net->nvlink_bw_bytes_per_s, nic = c->node_bw * c->leaf_a2a / (double)(r ? r : 1);
	double share = (pr == DC_NET_PROTO_LL ? LL_SHARE_AR : 1) * size_factor(net, c), S = c->S, local, far;
	int remote = g->nodes > 1;
	if (op == DC_COLL_SEND) {
		/* a pair group spans two domains when its ranks do; a ring of
		 * sends in rank order (nccl-tests' sendrecv, cp's K/V) crosses
		 * each domain's edge once a direction, whatever its ranks there:
		 * the one flow that crosses has its rank's NICs (nics / gpn of
		 * them with more NICs than GPUs, else one: node_rails_of) of the
		 * rails the node's share holds, not one rank's share of r */
		uint64_t own = net->nics_per_node > net->gpus_per_node ? net->nics_per_node / net->gpus_per_node : 1;
		double rail = min_d(c->node_bw, c->node_bw * (double)own / (double)(g->rails ? g->rails : 1));
		double rate = (remote ? rail : nv) * share;
		o->bw_s = S / rate;
		o->lat_s = base_lat_s[DC_NET_ALGO_RING][pr] +
			   (remote ? hop_out(net, DC_NET_ALGO_RING, pr, 0) : hop_in(net, DC_NET_ALGO_RING, pr));
		return;
	}
	/* AlltoAll (p2p_runs) */
	local = (double)(r > 0 ? r - 1 : 0) * S / (double)p;
	far = (double)(p - (r < p ? r : p)) * S / (double)p;
	o->bw_s = max_d(local / (nv * share), remote ? far / (nic * share) : 0);
	o->lat_s = base_lat_s[DC_NET_ALGO_RING][pr] +
		   (remote ? hop_out(net, DC_NET_ALGO_RING, pr, 0) : hop_in(net, DC_NET_ALGO_RING, pr));
}

/* price_its for an algorithm priced one protocol at a time (nothing
 * shared worth keeping: most run Simple alone) */
#define PRICE_EACH(name)                                                                                   \
	static void price_##name(const struct dc_net *net, enum dc_coll_kind op, const struct dc_net_group *g, \
				 const struct call *c, unsigned protos, struct price *out)                    \
	{                                                                                                  \
		enum dc_net_proto pr;                                                                      \
		EACH_PROTO(pr, protos)                                                                     \
		price_##name##_one(net, op, g, c, pr, &out[pr]);                                           \
	}
PRICE_EACH(hier)
PRICE_EACH(nvls)
PRICE_EACH(pat)
PRICE_EACH(p2p)
#undef PRICE_EACH

struct algo_row {
	unsigned (*runs)(const struct dc_net *net, enum dc_coll_kind op, const struct dc_net_group *g);
	void (*price)(const struct dc_net *net, enum dc_coll_kind op, const struct dc_net_group *g,
		      const struct call *c, unsigned protos, struct price *out);
};

/* The algorithms, one row each (ARCHITECTURE.md: a new algorithm is two
 * functions and one row); point to point is the ring row's, alone. */
static const struct algo_row algos[DC_NET_ALGO_COUNT] = {
	[DC_NET_ALGO_RING] = {ring_runs, price_ring},
	[DC_NET_ALGO_HIER] = {hier_runs, price_hier},
	[DC_NET_ALGO_TREE] = {tree_runs, price_tree},
	[DC_NET_ALGO_NVLS] = {nvls_runs, price_nvls},
	[DC_NET_ALGO_PAT] = {pat_runs, price_pat},
};
static const struct algo_row p2p_algos[DC_NET_ALGO_COUNT] = {
	[DC_NET_ALGO_RING] = {p2p_runs, price_p2p},
};

static void fill(double t, enum dc_net_algo a, enum dc_net_proto p, int p2p, const struct call *c,
		 struct dc_net_choice *out)
{
	out->time_s = t;
	out->algo = a;
	out->proto = p;
	out->algorithm = p2p ? "p2p" : dc_net_algo_name(a);
	out->protocol = dc_net_proto_name(p);
	out->algbw_bytes_per_s = t > 0 ? c->S / t : 0;
	out->busbw_bytes_per_s = out->algbw_bytes_per_s * c->busbw;
}

int dc_net_time(const struct dc_net *net, enum dc_coll_kind op, const struct dc_net_group *g, uint64_t bytes,
		enum dc_net_algo force, struct dc_net_choice *out)
{
	double best = -1, best_cost = 0; /* the pick's time, and its cost to the tuner */
	enum dc_net_algo want = force != DC_NET_ALGO_AUTO ? force : net->algorithm;
	enum dc_net_algo best_a = DC_NET_ALGO_RING;
	enum dc_net_proto best_p = DC_NET_PROTO_SIMPLE;
	int p2p = op == DC_COLL_SEND || op == DC_COLL_ALL_TO_ALL;
	const struct algo_row *rows = p2p ? p2p_algos : algos;
	/* NCCL_PROTO's; a send's protocol NCCL picks by its size and its
	 * connection's LL buffers (enqueue.cc's p2p scheduling: LL at most
	 * NCCL_P2P_LL_THRESHOLD a channel, else Simple), never by
	 * NCCL_PROTO: the model prices sends as it did without the key */
	unsigned allowed = net->protocols && !p2p ? net->protocols : PROTO_ALL;
	struct call c, tune;
	struct price pc[DC_NET_PROTO_COUNT];
	enum dc_net_proto pr;

	if (g->ranks < 2 || bytes == 0) {
		out->time_s = 0;
		out->algo = DC_NET_ALGO_RING;
		out->proto = DC_NET_PROTO_SIMPLE;
		out->algorithm = "none";
		out->protocol = "none";
		out->algbw_bytes_per_s = 0;
		out->busbw_bytes_per_s = 0;
		return 0;
	}
	if (p2p && want != DC_NET_ALGO_AUTO)
		want = DC_NET_ALGO_RING; /* a forced collective algorithm leaves point to point alone */
	/* hierarchical on one domain, or one rank per domain, is the ring */
	if (want == DC_NET_ALGO_HIER && (g->nodes < 2 || g->ranks_per_node < 2) && op != DC_COLL_BROADCAST)
		want = DC_NET_ALGO_RING;
	/* NCCL picks the pair on its tuner's prices, every pair on every
	 * channel (updateCollCostTable, then the cheapest: src/enqueue.cc
	 * v2.26.2 L1654-1708), and only then cuts the channels the picked
	 * pair runs on (L1734-1774); v2.21.5 too (topoGetAlgoInfo with
	 * info->nChannels still 0, L1484-1538, L1548; channels after,
	 * L1566-1595). So the pick is made on `tune`, and the picked pair
	 * alone is priced again on the channels it runs on. A fitted ramp
	 * (none in the presets), which NCCL does not know, stays in the
	 * pick: it is one factor on every pair's rate. */
	call_size(net, op, g, bytes, &c);
	tune = c;
	tune.tuner = 1;
	/* in order of algorithm, then protocol, the first of equal times
	 * kept: the pairs a runs function refuses were never priced */
	for (int a = DC_NET_ALGO_RING; a < DC_NET_ALGO_COUNT; a++) {
		unsigned protos;
		if (!rows[a].runs || (want != DC_NET_ALGO_AUTO && a != (int)want))
			continue;
		/* NCCL runs Ring, Tree, NVLS / NVLS tree and PAT; the
		 * hierarchy only stands in for CollNet (tuning.cc v2.26.2
		 * L413-417 disable it without collNetSupport) */
		if (want == DC_NET_ALGO_AUTO && a == DC_NET_ALGO_HIER && !net->collnet)
			continue;
		protos = rows[a].runs(net, op, g) & allowed;
		if (!protos)
			continue;
		rows[a].price(net, op, g, &tune, protos, pc);
		/* the protocols it runs, lowest first (the lowest bit set) */
		EACH_PROTO(pr, protos) {
			double t = pc[pr].lat_s + pc[pr].bw_s, cost = t;
			/* FP8 elements: NCCL's tuner relegates the ring over more
			 * than 8 ranks, its cost x 1024 for the pick alone
			 * (updateCollCostTable, src/enqueue.cc v2.26.2 L1678-1684:
			 * "fp8 reduction trees of sufficient depth that they incur
			 * precision loss"; any op of the type) */
			if (net->fp8_data && a == DC_NET_ALGO_RING && !p2p && g->ranks > 8)
				cost *= 1024.0;
			if (best < 0 || cost < best_cost) {
				best = t;
				best_cost = cost;
				best_a = (enum dc_net_algo)a;
				best_p = pr;
			}
		}
	}
	if (best < 0)
		return -1;
	/* a pair that runs on every channel (a large call; PAT, the
	 * hierarchical ring) or whose price reads no channel count (NVLS:
	 * its own channels whatever the size) costs what the tuner priced */
	if (best_a == DC_NET_ALGO_NVLS ||
	    dc_net_channels_used(net, best_a, best_p, g->ranks, c.bytes) ==
		    (net->channels ? net->channels : 1)) {
		fill(best, best_a, best_p, p2p, &c, out);
		return 0;
	}
	rows[best_a].price(net, op, g, &c, PROTO_BIT(best_p), pc);
	fill(pc[best_p].lat_s + pc[best_p].bw_s, best_a, best_p, p2p, &c, out);
	return 0;
}

enum dc_coll_kind dc_net_price_kind(enum dc_coll_kind op)
{
	return op == DC_COLL_REDUCE_SCATTER ? DC_COLL_ALL_GATHER : op;
}

void dc_net_memo_bind(struct dc_net_memo *m, const struct dc_net *net)
{
	/* dc_net_init zeroes the padding: equal bytes are equal content (an
	 * unequal padding only empties the memo) */
	if (m->bound && memcmp(&m->net, net, sizeof(*net)) == 0)
		return;
	m->net = *net;
	m->bound = 1;
	m->binds++;
	for (size_t i = 0; i < DC_NET_MEMO_SLOTS; i++)
		m->slot[i].used = 0;
}

static int same_group(const struct dc_net_group *a, const struct dc_net_group *b)
{
	return a->ranks == b->ranks && a->nodes == b->nodes && a->ranks_per_node == b->ranks_per_node &&
	       a->ranks_least == b->ranks_least && a->rails == b->rails && a->concurrent == b->concurrent &&
	       a->cross_leaf == b->cross_leaf;
}

static uint64_t mix(uint64_t h, uint64_t v)
{
	h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
	return h;
}

#ifdef DISTCALC_VERIFY_MEMOS
void dc_net_choice_verify(const char *memo, const char *what, int reused_rc, const struct dc_net_choice *reused,
			  int fresh_rc, const struct dc_net_choice *fresh)
{
	static const struct dc_memo_field fields[] = {
		DC_MEMO_FIELD(struct dc_net_choice, time_s),
		DC_MEMO_FIELD(struct dc_net_choice, algo),
		DC_MEMO_FIELD(struct dc_net_choice, proto),
		DC_MEMO_FIELD(struct dc_net_choice, algorithm),
		DC_MEMO_FIELD(struct dc_net_choice, protocol),
		DC_MEMO_FIELD(struct dc_net_choice, algbw_bytes_per_s),
		DC_MEMO_FIELD(struct dc_net_choice, busbw_bytes_per_s),
	};
	dc_memo_verify_u64(memo, "return code", (uint64_t)(int64_t)reused_rc, (uint64_t)(int64_t)fresh_rc);
	if (reused_rc == 0)
		dc_memo_verify_fields(memo, what, reused, fresh, fields, sizeof(fields) / sizeof(fields[0]));
}

/* A hit of slot sl against dc_net_time on the same call */
static void net_memo_verify(const struct dc_net *net, enum dc_coll_kind op, const struct dc_net_group *g,
			    uint64_t bytes, enum dc_net_algo force, const struct dc_net_memo_slot *sl)
{
	struct dc_net_choice fresh;
	int rc = dc_net_time(net, op, g, bytes, force, &fresh);
	dc_net_choice_verify("network price memo (src/est/net.c dc_net_time_memo)", "choice", sl->rc, &sl->out, rc,
			     &fresh);
}

void dc_net_memo_corrupt(struct dc_net_memo *m)
{
	for (size_t i = 0; i < DC_NET_MEMO_SLOTS; i++)
		m->slot[i].out.time_s *= 2;
}
#endif

int dc_net_time_memo(struct dc_net_memo *m, const struct dc_net *net, enum dc_coll_kind op,
		     const struct dc_net_group *g, uint64_t bytes, enum dc_net_algo force, struct dc_net_choice *out)
{
	struct dc_net_memo_slot *sl;
	uint64_t h;
	if (!m)
		return dc_net_time(net, op, g, bytes, force, out);
	/* the slots hold the prices of the network m is bound to: a caller
	 * with another rebinds first (dc_net_memo_bind), and a plan whose
	 * network differs from its lent memo's drops the memo (plan.c,
	 * derive). Comparing here on every call would cost the search 7% of
	 * its instructions (13B space: 712 M against 666 M), so a debug
	 * build checks it, as the ASan CI build runs every test */
	assert(memcmp(net, &m->net, sizeof(*net)) == 0 && "dc_net_time_memo: memo bound to another network");
	h = mix(mix(mix(mix(bytes * 0xff51afd7ed558ccdull, g->ranks), g->nodes), g->ranks_per_node),
		g->rails ^ (g->concurrent << 20) ^ ((uint64_t)g->cross_leaf << 40) ^ ((uint64_t)op << 48) ^
			((uint64_t)force << 56));
	/* MurmurHash3's finaliser: every key bit reaches the slot's bits */
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdull;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ull;
	h ^= h >> 33;
	sl = &m->slot[h & (DC_NET_MEMO_SLOTS - 1)];
	if (sl->used && sl->bytes == bytes && sl->op == (int)op && sl->force == (int)force && same_group(&sl->g, g)) {
		m->hits++;
		DC_MEMO_VERIFY(net_memo_verify(net, op, g, bytes, force, sl));
		if (sl->rc == 0)
			*out = sl->out;
		return sl->rc;
	}
	m->misses++;
	sl->rc = dc_net_time(net, op, g, bytes, force, &sl->out);
	sl->g = *g;
	sl->bytes = bytes;
	sl->op = (int)op;
	sl->force = (int)force;
	sl->used = 1;
	if (sl->rc == 0)
		*out = sl->out;
	return sl->rc;
}

const char *dc_net_algo_name(enum dc_net_algo a)
{
	static const char *const names[] = {"auto", "ring", "hierarchical", "tree", "nvls", "pat"};
	return (unsigned)a < DC_NET_ALGO_COUNT ? names[a] : "?";
}

const char *dc_net_proto_name(enum dc_net_proto p)
{
	static const char *const names[] = {"LL", "LL128", "Simple"};
	return (unsigned)p < DC_NET_PROTO_COUNT ? names[p] : "?";
}

int dc_net_algo_parse(const char *name, enum dc_net_algo *out)
{
	for (int a = 0; a < DC_NET_ALGO_COUNT; a++)
		if (strcmp(name, dc_net_algo_name((enum dc_net_algo)a)) == 0) {
			*out = (enum dc_net_algo)a;
			return 0;
		}
	return -1;
}

/* GPU-to-NIC path share (docs/network-model.md, "GPU-to-NIC paths"). */
static double path_factor(enum dc_nic_path p)
{
	switch (p) {
	case DC_NIC_PATH_PIX:
	case DC_NIC_PATH_PXB:
		return 1.0;
	case DC_NIC_PATH_PHB:
		return 0.5;
	case DC_NIC_PATH_SYS:
		return 0.25;
	}
	return 1.0;
}

/* The GPU's generation, by its preset's name (a100-..., h100-..., b200-,
 * gb200-...); Ampere without a preset. */
static enum dc_net_gen gpu_gen(enum dc_gpu gpu)
{
	const char *n = gpu == DC_GPU_NONE ? "" : dc_gpu_name(gpu);
	if (n[0] == 'g' && n[1] != '\0')
		n++; /* gb200, gh200: the GPU's letter follows */
	switch (n[0]) {
	case 'v': return DC_NET_GEN_VOLTA;
	case 'h': return DC_NET_GEN_HOPPER;
	case 'b': return DC_NET_GEN_BLACKWELL;
	default: return DC_NET_GEN_AMPERE;
	}
}

/* NCCL's ring and tree channels: its topology search finds about one
 * channel per NIC on a rail-optimised node and runs twice the search's
 * channels (NVIDIA/nccl issue #1041, sjeaugey; 16 on an 8-NIC H100 node,
 * "Channel 00/16" in issue #1453), at least 2, at most 32. */
static uint64_t default_channels(uint64_t nics)
{
	uint64_t c = 2 * (nics ? nics : 1);
	return c < 2 ? 2 : c > 32 ? 32 : c;
}

uint64_t dc_net_default_channels(const struct dc_config *cfg)
{
	const struct dc_cluster *c = &cfg->cluster;
	return default_channels(c->nics_per_node ? c->nics_per_node : c->gpus_per_node);
}

/* cluster.network: the plugin's latency NCCL adds per network hop
 * (graph->latencyInter, tuning.cc v2.26.2 L302-304), and the hosts' CPU
 * vendor, from which NCCL takes both the CPU's post of one network step
 * (getNetOverhead, L190-195: Intel 1 us, AMD 2 us) and LL's ceiling
 * across nodes (llMaxBws' row, L218-220: ll_cap_bytes_per_s).
 * docs/network-model.md, "Fabrics", gives each source. */
#define AMD_OVERHEAD_S 2e-6 /* getNetOverhead's AMD row (tuning.cc v2.26.2 L193) */
static const struct {
	double plugin_latency_s, overhead_s;
	int amd_hosts;
} fabrics[] = {
	[DC_NETWORK_IB] = {0, 1.0 * US, 0},   /* net_ib.cc: latency 0 ("not set"); Intel hosts */
	[DC_NETWORK_ROCE] = {0, 1.0 * US, 0}, /* the same IB transport */
	/* aws-ofi-nccl's own cost model: TUNER_NET_LATENCY 20 us a network
	 * step (include/nccl_ofi_param.h; not the 75 us platform-aws.c reports
	 * to NCCL's tuner "by design"); AMD hosts (p5: EPYC) */
	[DC_NETWORK_EFA] = {20e-6, AMD_OVERHEAD_S, 1}, /* a literal: 20.0 * US is not the double nearest 20 us */
	[DC_NETWORK_TCPXO] = {0, 1.0 * US, 0}, /* no published plugin latency found: none added */
};

double dc_net_fabric_latency(enum dc_network network)
{
	return (unsigned)network < sizeof(fabrics) / sizeof(fabrics[0]) ? fabrics[network].plugin_latency_s : 0;
}

void dc_net_init(const struct dc_config *cfg, struct dc_net *net)
{
	const struct dc_cluster *c = &cfg->cluster;
	memset(net, 0, sizeof(*net));
	net->num_nodes = c->num_nodes;
	net->gpus_per_node = c->gpus_per_node;
	/* a hand-built config may leave the derived keys 0 or out of step
	 * with gpus_per_node: one domain per node, one NIC per GPU then */
	net->nvlink_domain = c->nvlink_domain;
	if (!net->nvlink_domain || !c->gpus_per_node || net->nvlink_domain % c->gpus_per_node)
		net->nvlink_domain = c->gpus_per_node;
	net->nvls = c->nvls;
	net->nics_per_node = c->nics_per_node ? c->nics_per_node : c->gpus_per_node;
	net->nvlink_bw_bytes_per_s = c->intra_node.bw_bytes_per_s;
	net->nvlink_latency_s = c->intra_node.latency_s;
	net->nic_bw_bytes_per_s = c->inter_node.bw_bytes_per_s;
	net->net_latency_s = c->inter_node.latency_s;
	net->nic_path_factor = path_factor(c->nic_path);
	net->oversubscription = c->oversubscription >= 1 ? c->oversubscription : 1;
	net->nodes_per_leaf = c->nodes_per_leaf;
	net->algorithm = cfg->collective.algorithm;
	net->protocols = cfg->collective.protocols_mask;
	net->collnet = c->collnet;
	net->gen = gpu_gen(c->gpu);
	net->channels = c->nccl_channels ? c->nccl_channels : default_channels(net->nics_per_node);
	net->channels_given = c->nccl_channels != 0;
	net->nvls_channels = 16; /* NCCL_NVLS_NCHANNELS' default (src/transport/nvls.cc) */
	net->plugin_latency_s =
		c->plugin_latency_fitted ? c->plugin_latency_s : fabrics[c->network].plugin_latency_s;
	/* the hosts' vendor: the fabric's (EFA's p5 hosts), or the system
	 * preset's where its data sheet names an AMD host (a DGX A100's two
	 * EPYC 7742: a review found it priced as Intel's) */
	net->amd_hosts = fabrics[c->network].amd_hosts || c->system == DC_SYSTEM_DGX_A100;
	net->net_overhead_s = net->amd_hosts ? AMD_OVERHEAD_S : fabrics[c->network].overhead_s;
	memcpy(net->tree_factor, tree_correction, sizeof(net->tree_factor));
	memcpy(net->ramp, c->bw_ramp, sizeof(net->ramp));
}
