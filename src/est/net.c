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

#include <string.h>

#include "distcalc/util.h"

#define US 1e-6
#define GBPS 1e9

/* ---- the model's constants (docs/network-model.md, "Protocols") ---- */

/* Start-up latency of a call, per algorithm and protocol (NCCL's baseLat:
 * ring 6.6 / 14 / 8.4 us, tree 6.8 / 14 / 0 us, NVLS 0). */
static const double base_lat_s[DC_NET_ALGO_COUNT][DC_NET_PROTO_COUNT] = {
	[DC_NET_ALGO_RING] = {6.6 * US, 14.0 * US, 8.4 * US},
	[DC_NET_ALGO_HIER] = {6.6 * US, 14.0 * US, 8.4 * US},
	[DC_NET_ALGO_TREE] = {6.8 * US, 14.0 * US, 0},
	[DC_NET_ALGO_NVLS] = {0, 0, 0},
};

/* Latency of one hop relative to the config's per-hop latency (the ring's
 * Simple hop): NCCL's hwLat of the pair / its ring Simple hwLat, NVLink
 * (3.4 us) inside a domain and the network (14 us) between. */
static const double hop_intra[DC_NET_ALGO_COUNT][DC_NET_PROTO_COUNT] = {
	[DC_NET_ALGO_RING] = {0.6 / 3.4, 1.9 / 3.4, 1.0},
	[DC_NET_ALGO_HIER] = {0.6 / 3.4, 1.9 / 3.4, 1.0},
	[DC_NET_ALGO_TREE] = {0.6 / 3.4, 1.25 / 3.4, 28.0 / 3.4},
	[DC_NET_ALGO_NVLS] = {0, 0, 23.0 / 3.4},
};
static const double hop_inter[DC_NET_ALGO_COUNT][DC_NET_PROTO_COUNT] = {
	[DC_NET_ALGO_RING] = {2.7 / 14.0, 4.0 / 14.0, 1.0},
	[DC_NET_ALGO_HIER] = {2.7 / 14.0, 4.0 / 14.0, 1.0},
	[DC_NET_ALGO_TREE] = {5.0 / 14.0, 8.5 / 14.0, 28.0 / 14.0},
	[DC_NET_ALGO_NVLS] = {0, 0, 14.0 / 14.0},
};

/* LL moves 8 bytes of which 4 are data and its flag stores serialise:
 * 1/4 of the rate for an AllReduce or across nodes, 1/3 otherwise, and no
 * more than 87.7 GB/s of bus bandwidth in one node, 39.0 GB/s on two
 * nodes, 20.4 GB/s on more (NCCL's llMaxBws, Intel hosts). */
#define LL_SHARE_AR 0.25
#define LL_SHARE (1.0 / 3.0)
static double ll_cap_bytes_per_s(uint64_t nodes)
{
	return nodes <= 1 ? 87.7 * GBPS : nodes == 2 ? 39.0 * GBPS : 20.4 * GBPS;
}
/* LL128: 120 of every 128 bytes are data; NCCL takes 0.92 of the rate. */
#define LL128_SHARE 0.92
/* Tree: 0.92 of the rate (NCCL), LL 1/3.8 of that, LL128 7/9 in one node
 * and 120/128 across nodes. */
#define TREE_SHARE 0.92
#define TREE_LL_SHARE (1.0 / 3.8)
/* NVLS moves 5/6 of what the NVLink port could (NCCL's NVLS ratio). */
#define NVLS_SHARE (5.0 / 6.0)

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

/* ceil(log2(n)) for n >= 1 */
static uint64_t log2_ceil(uint64_t n)
{
	uint64_t k = 0;
	while (((uint64_t)1 << k) < n && k < 63)
		k++;
	return k;
}

static uint64_t domain_of(const struct dc_net *net)
{
	uint64_t d = net->nvlink_domain ? net->nvlink_domain : net->gpus_per_node;
	return d ? d : 1;
}

/* The shape of ranks first + k stride, k < size, and the flows through
 * each NIC when every GPU of a node belongs to a group like it
 * (`symmetric`), else alone. */
static void shape(const struct dc_net *net, uint64_t first, uint64_t stride, uint64_t size, int symmetric,
		  struct dc_net_group *g)
{
	uint64_t dom = domain_of(net), gpn = net->gpus_per_node ? net->gpus_per_node : 1;
	uint64_t nics = net->nics_per_node ? net->nics_per_node : 1;
	uint64_t last, node_ranks, node_rails, node_end, first_node, last_node;

	if (size == 0)
		size = 1;
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
	/* a domain of several nodes holds ranks_per_node / node_ranks of them */
	g->rails = node_rails * max_u64(1, g->ranks_per_node / node_ranks);
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
	first_node = first / gpn;
	last_node = last / gpn;
	g->cross_leaf = net->nodes_per_leaf > 0 && first_node / net->nodes_per_leaf != last_node / net->nodes_per_leaf;
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

void dc_net_group_axis(const struct dc_net *net, const struct dc_topology *t, enum dc_axis axis,
		       uint64_t index, struct dc_net_group *g)
{
	struct dc_group grp;
	dc_topology_group(t, axis, index, &grp);
	shape(net, grp.first, grp.stride, grp.size, 1, g);
}

double dc_net_node_bw(const struct dc_net *net, const struct dc_net_group *g)
{
	double bw = (double)(g->rails ? g->rails : 1) * net->nic_bw_bytes_per_s * net->nic_path_factor /
		    (double)(g->concurrent ? g->concurrent : 1);
	if (g->cross_leaf && net->oversubscription > 1)
		bw /= net->oversubscription;
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

/* What one (algorithm, protocol) pair costs; a negative time when the
 * pair cannot run the op on this group. */
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

/* A bus rate after the protocol: its share, and LL's ceiling. */
static double proto_rate(enum dc_net_proto p, enum dc_coll_kind op, uint64_t nodes, double rate)
{
	double r = rate * ring_share(p, op, nodes);
	if (p == DC_NET_PROTO_LL)
		r = min_d(r, ll_cap_bytes_per_s(nodes));
	return r;
}

static double hop_in(const struct dc_net *net, enum dc_net_algo a, enum dc_net_proto p)
{
	return net->nvlink_latency_s * hop_intra[a][p];
}

static double hop_out(const struct dc_net *net, enum dc_net_algo a, enum dc_net_proto p)
{
	return net->net_latency_s * hop_inter[a][p];
}

/* Flat ring over p ranks in N domains: the busiest link per rank carries
 * busbw; a node's ring crossings share its NICs (docs: "Ring"). */
static int price_ring(const struct dc_net *net, enum dc_coll_kind op, const struct dc_net_group *g, double S,
		      enum dc_net_proto pr, struct price *o)
{
	uint64_t p = g->ranks, N = g->nodes, steps, inter;
	double rate = net->nvlink_bw_bytes_per_s, bus_bytes;
	if (N > 1)
		rate = min_d(rate, dc_net_node_bw(net, g));
	if (g->ranks_per_node <= 1 && N > 1)
		rate = dc_net_node_bw(net, g); /* every hop is a NIC */
	rate = proto_rate(pr, op, N, rate);
	switch (op) {
	case DC_COLL_ALL_REDUCE:
		steps = 2 * (p - 1);
		inter = N > 1 ? min_u64(steps, 2 * N) : 0;
		break;
	case DC_COLL_REDUCE_SCATTER:
	case DC_COLL_ALL_GATHER:
		steps = p - 1;
		inter = N - 1;
		break;
	case DC_COLL_BROADCAST:
		/* a pipelined chain: the data crosses every hop once */
		steps = p - 1;
		inter = N - 1;
		break;
	case DC_COLL_SEND:
	case DC_COLL_ALL_TO_ALL:
	default:
		return -1;
	}
	bus_bytes = S * dc_net_busbw_factor(op, p);
	o->lat_s = base_lat_s[DC_NET_ALGO_RING][pr] + (double)(steps - inter) * hop_in(net, DC_NET_ALGO_RING, pr) +
		   (double)inter * hop_out(net, DC_NET_ALGO_RING, pr);
	o->bw_s = bus_bytes / rate;
	return 0;
}

/* Hierarchical: reduce-scatter among the r ranks of a domain, the op on
 * each 1/r shard between domains over every rail at once, all-gather back;
 * the three pipelined, so the busiest resource sets the rate. Simple only. */
static int price_hier(const struct dc_net *net, enum dc_coll_kind op, const struct dc_net_group *g, double S,
		      enum dc_net_proto pr, struct price *o)
{
	uint64_t r = g->ranks_per_node, N = g->nodes;
	double rn = (double)r, nn = (double)N;
	double nv = proto_rate(pr, op, N, net->nvlink_bw_bytes_per_s);
	double nic = proto_rate(pr, op, N, dc_net_node_bw(net, g));
	double intra_phases, intra_bytes, inter_bytes, hi = hop_in(net, DC_NET_ALGO_HIER, pr),
						      ho = hop_out(net, DC_NET_ALGO_HIER, pr);
	if (N < 2 || r < 2 || g->ranks != r * N)
		return -1; /* one domain, one rank per domain or uneven: the ring is the same or better */
	if (pr != DC_NET_PROTO_SIMPLE)
		return -1; /* a composite of three phases, bulk only, as NCCL's NVLS and CollNet are */
	switch (op) {
	case DC_COLL_ALL_REDUCE:
		intra_phases = 2; /* reduce-scatter and all-gather */
		inter_bytes = 2.0 * (nn - 1) / nn * S;
		o->lat_s = 2.0 * (rn - 1) * hi + 2.0 * (nn - 1) * ho;
		break;
	case DC_COLL_REDUCE_SCATTER:
	case DC_COLL_ALL_GATHER:
		intra_phases = 1;
		inter_bytes = (nn - 1) / nn * S;
		o->lat_s = (rn - 1) * hi + (nn - 1) * ho;
		break;
	case DC_COLL_SEND:
	case DC_COLL_ALL_TO_ALL:
	case DC_COLL_BROADCAST:
	default:
		return -1;
	}
	/* a rank sends (r-1)/r of the buffer per intra phase */
	intra_bytes = intra_phases * (rn - 1) / rn * S;
	o->lat_s += base_lat_s[DC_NET_ALGO_HIER][pr];
	o->bw_s = max_d(intra_bytes / nv, inter_bytes / nic);
	return 0;
}

/* Double binary tree between domains, a chain inside: every rank sends
 * the buffer up (reduce) and down (broadcast), so a port carries 2S; a
 * domain sends S to the network on two domains, 2S on more. AllReduce
 * only. */
static int price_tree(const struct dc_net *net, enum dc_coll_kind op, const struct dc_net_group *g, double S,
		      enum dc_net_proto pr, struct price *o)
{
	uint64_t N = g->nodes, r = g->ranks_per_node;
	double rate = net->nvlink_bw_bytes_per_s / 2.0, share = 1;
	if (op != DC_COLL_ALL_REDUCE || g->ranks < 2)
		return -1;
	if (r <= 1 && N > 1)
		rate = dc_net_node_bw(net, g) / (N > 2 ? 2.0 : 1.0);
	else if (N > 1)
		rate = min_d(rate, dc_net_node_bw(net, g) / (N > 2 ? 2.0 : 1.0));
	rate *= TREE_SHARE;
	if (pr == DC_NET_PROTO_LL)
		rate = min_d(rate * TREE_LL_SHARE, ll_cap_bytes_per_s(N) / 2.0);
	else if (pr == DC_NET_PROTO_LL128)
		share = N == 1 ? 7.0 / 9.0 : 120.0 / 128.0;
	rate *= share;
	o->lat_s = base_lat_s[DC_NET_ALGO_TREE][pr] +
		   2.0 * ((double)(r > 0 ? r - 1 : 0) * hop_in(net, DC_NET_ALGO_TREE, pr) +
			  (double)log2_ceil(N) * hop_out(net, DC_NET_ALGO_TREE, pr));
	o->bw_s = S / rate;
	return 0;
}

/* NVLS: the NVSwitch reduces and multicasts. In one domain a rank's port
 * carries (1 + 1/r) S each way (every rank's buffer read once by the
 * switch, its reduced 1/r written once and multicast); across domains each
 * 1/r shard also moves between the GPU that reduces it and the GPU whose
 * NIC carries it, (1 + 2/r) S, while the domains run a tree over every
 * rail (S per domain on two, 2S on more). Simple only. */
static int price_nvls(const struct dc_net *net, enum dc_coll_kind op, const struct dc_net_group *g, double S,
		      enum dc_net_proto pr, struct price *o)
{
	uint64_t N = g->nodes, r = g->ranks_per_node;
	double rn = (double)r, port = NVLS_SHARE * net->nvlink_bw_bytes_per_s, load;
	if (!net->nvls || pr != DC_NET_PROTO_SIMPLE || r < 2 || g->ranks != r * N)
		return -1;
	if (op == DC_COLL_ALL_REDUCE) {
		load = N > 1 ? (1.0 + 2.0 / rn) * S : (1.0 + 1.0 / rn) * S;
		o->bw_s = load / port;
		if (N > 1)
			o->bw_s = max_d(o->bw_s, (N > 2 ? 2.0 : 1.0) * S / dc_net_node_bw(net, g));
		o->lat_s = hop_in(net, DC_NET_ALGO_NVLS, pr);
		if (N > 1)
			o->lat_s += 2.0 * (double)log2_ceil(N) * hop_out(net, DC_NET_ALGO_NVLS, pr);
		return 0;
	}
	if ((op == DC_COLL_REDUCE_SCATTER || op == DC_COLL_ALL_GATHER) && N == 1) {
		/* ReduceScatter: the switch reads all of every buffer (S out of
		 * each port); AllGather: it multicasts all of S into each */
		o->bw_s = S / port;
		o->lat_s = hop_in(net, DC_NET_ALGO_NVLS, pr);
		return 0;
	}
	return -1;
}

/* Point to point (send, AlltoAll): every peer's share on the link to it,
 * all at once; LL or Simple. */
static int price_p2p(const struct dc_net *net, enum dc_coll_kind op, const struct dc_net_group *g, double S,
		     enum dc_net_proto pr, struct price *o)
{
	uint64_t p = g->ranks, r = g->ranks_per_node;
	double nv = net->nvlink_bw_bytes_per_s, nic = dc_net_node_bw(net, g) / (double)(r ? r : 1);
	double share = pr == DC_NET_PROTO_LL ? LL_SHARE_AR : 1;
	int remote = g->nodes > 1;
	if (pr == DC_NET_PROTO_LL128)
		return -1;
	if (op == DC_COLL_SEND) {
		/* a pair group spans two domains when its ranks do */
		double rate = (remote ? nic : nv) * share;
		o->bw_s = S / rate;
		o->lat_s = base_lat_s[DC_NET_ALGO_RING][pr] +
			   (remote ? hop_out(net, DC_NET_ALGO_RING, pr) : hop_in(net, DC_NET_ALGO_RING, pr));
		return 0;
	}
	if (op == DC_COLL_ALL_TO_ALL) {
		double local = (double)(r > 0 ? r - 1 : 0) * S / (double)p;
		double far = (double)(p - (r < p ? r : p)) * S / (double)p;
		o->bw_s = max_d(local / (nv * share), remote ? far / (nic * share) : 0);
		o->lat_s = base_lat_s[DC_NET_ALGO_RING][pr] +
			   (remote ? hop_out(net, DC_NET_ALGO_RING, pr) : hop_in(net, DC_NET_ALGO_RING, pr));
		return 0;
	}
	return -1;
}

/* The algorithms, one row each (ARCHITECTURE.md: a new algorithm is one
 * function and one row); point to point is the ring row's. */
static int (*const algos[DC_NET_ALGO_COUNT])(const struct dc_net *net, enum dc_coll_kind op,
					    const struct dc_net_group *g, double S, enum dc_net_proto pr,
					    struct price *o) = {
	[DC_NET_ALGO_RING] = price_ring,
	[DC_NET_ALGO_HIER] = price_hier,
	[DC_NET_ALGO_TREE] = price_tree,
	[DC_NET_ALGO_NVLS] = price_nvls,
};

static int price(const struct dc_net *net, enum dc_net_algo a, enum dc_coll_kind op, const struct dc_net_group *g,
		 double S, enum dc_net_proto pr, struct price *o)
{
	if (op == DC_COLL_SEND || op == DC_COLL_ALL_TO_ALL)
		return a == DC_NET_ALGO_RING ? price_p2p(net, op, g, S, pr, o) : -1;
	return algos[a] ? algos[a](net, op, g, S, pr, o) : -1;
}

static void fill(enum dc_coll_kind op, const struct dc_net_group *g, double S, double t, enum dc_net_algo a,
		 enum dc_net_proto p, int p2p, struct dc_net_choice *out)
{
	out->time_s = t;
	out->algo = a;
	out->proto = p;
	out->algorithm = p2p ? "p2p" : dc_net_algo_name(a);
	out->protocol = dc_net_proto_name(p);
	out->algbw_bytes_per_s = t > 0 ? S / t : 0;
	out->busbw_bytes_per_s = out->algbw_bytes_per_s * dc_net_busbw_factor(op, g->ranks);
}

int dc_net_time(const struct dc_net *net, enum dc_coll_kind op, const struct dc_net_group *g, uint64_t bytes,
		enum dc_net_algo force, struct dc_net_choice *out)
{
	double S = (double)bytes, best = -1;
	enum dc_net_algo want = force != DC_NET_ALGO_AUTO ? force : net->algorithm;
	enum dc_net_algo best_a = DC_NET_ALGO_RING;
	enum dc_net_proto best_p = DC_NET_PROTO_SIMPLE;
	int p2p = op == DC_COLL_SEND || op == DC_COLL_ALL_TO_ALL;

	if (g->ranks < 2 || bytes == 0) {
		fill(op, g, S, 0, DC_NET_ALGO_RING, DC_NET_PROTO_SIMPLE, 0, out);
		out->algorithm = "none";
		out->protocol = "none";
		return 0;
	}
	if (p2p && want != DC_NET_ALGO_AUTO)
		want = DC_NET_ALGO_RING; /* a forced collective algorithm leaves point to point alone */
	/* hierarchical on one domain, or one rank per domain, is the ring */
	if (want == DC_NET_ALGO_HIER && (g->nodes < 2 || g->ranks_per_node < 2) && op != DC_COLL_BROADCAST)
		want = DC_NET_ALGO_RING;
	for (int a = DC_NET_ALGO_RING; a < DC_NET_ALGO_COUNT; a++) {
		if (want != DC_NET_ALGO_AUTO && a != (int)want)
			continue;
		for (int pr = 0; pr < DC_NET_PROTO_COUNT; pr++) {
			struct price pc;
			double t;
			if (price(net, (enum dc_net_algo)a, op, g, S, (enum dc_net_proto)pr, &pc) != 0)
				continue;
			t = pc.lat_s + pc.bw_s;
			if (best < 0 || t < best) {
				best = t;
				best_a = (enum dc_net_algo)a;
				best_p = (enum dc_net_proto)pr;
			}
		}
	}
	if (best < 0)
		return -1;
	fill(op, g, S, best, best_a, best_p, p2p, out);
	return 0;
}

const char *dc_net_algo_name(enum dc_net_algo a)
{
	static const char *const names[] = {"auto", "ring", "hierarchical", "tree", "nvls"};
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
}
