/* net.h - the network model: what one collective costs on the cluster.
 *
 * Every estimator that prices communication (the comm estimator per step,
 * the step-time model through r->comm, the nccl-tests sweep, calibration)
 * calls dc_net_time here; nothing else in the library has its own alpha-beta
 * formula, except the teaching ring lab (ring.h), which stays the course's
 * flat ring on purpose.
 *
 * The model (derivation, parameters per system and a worked example:
 * docs/network-model.md):
 *   - Links. Inside an NVLink domain every GPU has nvlink_bw_bytes_per_s one
 *     way through a non-blocking NVSwitch (cluster.intra_node.bandwidth;
 *     cluster.nvlink_domain GPUs share it, default gpus_per_node). Between
 *     domains a node has nics_per_node NICs of nic_bw_bytes_per_s one way
 *     each (cluster.inter_node.bandwidth per NIC); GPU i of a node uses NIC
 *     i mod nics_per_node (rail-optimised). The GPU-to-NIC path can cost a
 *     share of the NIC's rate (nic_path_factor: a path through a CPU socket
 *     or a shared PCIe switch); traffic between nodes under different leaf
 *     switches shares the spine's uplinks, 1 / oversubscription of the
 *     leaf's rate, as much of it as the pattern sends across
 *     (dc_net_leaf_slowdown).
 *   - Algorithms (enum dc_net_algo): flat ring; hierarchical (intra-node
 *     reduce-scatter, inter-node over every rail in parallel, intra-node
 *     all-gather, pipelined); double binary tree; NVLS (NVLink SHARP,
 *     cluster.nvls; multi-node: NVLS inside, every rail between).
 *   - Protocols (enum dc_net_proto) LL, LL128, Simple: a start-up latency,
 *     a per-hop latency and a share of the link bandwidth each, after
 *     NCCL's tuning model (src/graph/tuning.cc).
 *   - time = latency(algo, proto, shape) + bytes through the busiest
 *     resource / its rate; DC_NET_ALGO_AUTO takes the fastest (algo,
 *     proto) pair the op supports, as NCCL's tuner does.
 *   - Contention: `concurrent` groups of one strategy move data at once
 *     through the same NIC and share its rate equally.
 *
 * Units: bytes, seconds, bytes/s. No allocation, no I/O: safe to call from
 * an estimator's compute function millions of times.
 */
#ifndef DISTCALC_NET_H
#define DISTCALC_NET_H

#include <stdint.h>

#include "distcalc/comm.h" /* enum dc_coll_kind */
#include "distcalc/config.h"
#include "distcalc/topology.h"

/* enum dc_net_algo (AUTO, RING, HIER, TREE, NVLS) lives in config.h, where
 * collective.algorithm is read into it. */

enum dc_net_proto {
	DC_NET_PROTO_LL,     /* 8-byte flag+data stores: lowest latency, 1/4 of the bandwidth */
	DC_NET_PROTO_LL128,  /* 128-byte lines with a flag: 120/128 of the bandwidth */
	DC_NET_PROTO_SIMPLE, /* bulk copies and a fence per chunk: full bandwidth */
	DC_NET_PROTO_COUNT,
};

/* GPU generations, for NCCL's per-generation protocol caps (tuning.cc's
 * compCapIndex: SM70, SM80 (and SM86/89), SM90, SM100 on). */
enum dc_net_gen {
	DC_NET_GEN_VOLTA,
	DC_NET_GEN_AMPERE,
	DC_NET_GEN_HOPPER,
	DC_NET_GEN_BLACKWELL,
	DC_NET_GEN_COUNT,
};

/* Knots of the size-dependent bandwidth factor: one per power of two of
 * the message size from 64 B (knot k covers [64 x 2^k, 64 x 2^(k+1)) B),
 * as NCCL's treeCorrectionFactor (tuning.cc v2.26.2 L524-528). */
#define DC_NET_SIZE_KNOTS 24

/* The cluster as the model sees it, made once from the config
 * (dc_net_init); plain data, so a caller (calibration) may change any
 * field before pricing. */
struct dc_net {
	uint64_t num_nodes;
	uint64_t gpus_per_node;
	uint64_t nvlink_domain;        /* GPUs sharing NVLink, a multiple of gpus_per_node or a divisor */
	int nvls;                      /* NVLink SHARP available in a domain */
	uint64_t nics_per_node;        /* >= 1 */
	double nvlink_bw_bytes_per_s;  /* per GPU, one way, effective (> 0) */
	double nvlink_latency_s;       /* per hop, Simple protocol */
	double nic_bw_bytes_per_s;     /* per NIC, one way, effective (> 0) */
	double net_latency_s;          /* per hop between nodes, Simple protocol */
	double nic_path_factor;        /* (0, 1]: share of a NIC's rate the slowest GPU's path carries */
	double oversubscription;       /* >= 1: leaf uplinks / downlinks */
	uint64_t nodes_per_leaf;       /* nodes under one leaf switch; 0: all under one */
	enum dc_net_algo algorithm;    /* collective.algorithm: AUTO or one forced */
	int collnet;                   /* cluster.collnet: auto may take the hierarchical algorithm */
	enum dc_net_gen gen;           /* from cluster.gpu (Ampere without one) */
	uint64_t channels;             /* ring / tree channels (cluster.nccl_channels or NCCL's default), >= 1 */
	int channels_given;            /* 1: channels is cluster.nccl_channels's (net.c call_size's NIC cut) */
	uint64_t nvls_channels;        /* NVLS channels: NCCL_NVLS_NCHANNELS' default, 16 */
	double plugin_latency_s;       /* the network plugin's latency, added per hop between nodes (twice for Simple) */
	unsigned protocols;            /* protocols NCCL may use, a mask over enum dc_net_proto (NCCL_PROTO); 0: all */
	double net_overhead_s;         /* the CPU's cost of posting one network step (Simple: 3x) */
	int amd_hosts;                 /* the hosts' CPUs are AMD's: NCCL's AMD row of LL's ceiling across nodes */
	int fp8_data;                  /* the calls carry FP8 elements (collective.dtype f8e4m3 / f8e5m2, set by the
					* collectives sweep): NCCL's tuner relegates the ring over more than 8 ranks */
	/* bandwidth factor by message size: tree_factor[p] for the tree's
	 * AllReduce (NCCL's treeCorrectionFactor; also the NVLS tree's on
	 * Blackwell, as NCCL master); ramp[0] for every call inside one
	 * domain, ramp[1] for every call across domains, the factor at the
	 * knots DC_NET_RAMP_LOG2 (cluster.*.ramp, fitted by --calibrate; all
	 * 0 for none) */
	double tree_factor[DC_NET_PROTO_COUNT][DC_NET_SIZE_KNOTS];
	double ramp[2][DC_NET_RAMP_KNOTS];
};

/* The ramp's knots: log2 of the message size at knot i is
 * DC_NET_RAMP_LOG2_FIRST + DC_NET_RAMP_LOG2_STEP x i (8 KiB, 128 KiB,
 * 2 MiB, 32 MiB, 512 MiB); the factor is 1 at DC_NET_RAMP_LOG2_ONE
 * (8 GiB) and above, the first knot's below the first, and linear in
 * log2(size) between (docs/network-model.md, "The size factor"). */
#define DC_NET_RAMP_LOG2_FIRST 13
#define DC_NET_RAMP_LOG2_STEP 4
#define DC_NET_RAMP_LOG2_ONE 33

/* The ramp's factor for a message of `bytes` (knots[] as above; all 0:
 * 1). */
double dc_net_ramp_factor(const double knots[DC_NET_RAMP_KNOTS], uint64_t bytes);

/* cluster.network's plugin latency per network hop (docs/network-model.md,
 * "Fabrics"), seconds. */
double dc_net_fabric_latency(enum dc_network network);

/* The NCCL channels the network model runs where cluster.nccl_channels is
 * left out: 2 x the node's NICs (gpus_per_node where nics_per_node is
 * not given), at least 2, at most 32 (docs/network-model.md, "The default
 * channel count"); the cluster section shows it */
uint64_t dc_net_default_channels(const struct dc_config *cfg);

/* The knot of a message of `bytes` (log2(bytes / 64), clamped to the
 * table), or -1 below 64 B. */
int dc_net_size_knot(uint64_t bytes);

/* The channels NCCL runs a call of `bytes` on (enqueue.cc v2.26.2
 * L1752-1756): it drops a channel while bytes < channels x threads x
 * threshold, down to one; threads and threshold per protocol (512 x 8 for
 * LL, x nranks on a ring; 640 x 8 for LL128; 512 x 64 for Simple). NVLS
 * always runs nvls_channels. */
uint64_t dc_net_channels_used(const struct dc_net *net, enum dc_net_algo a, enum dc_net_proto p, uint64_t ranks,
			      uint64_t bytes);

/* The shape of one group and its neighbours on the wire. Nodes here are
 * NVLink domains: ranks of one domain talk over NVLink. */
struct dc_net_group {
	uint64_t ranks;          /* p >= 1 */
	uint64_t nodes;          /* distinct NVLink domains the ranks span, >= 1 */
	uint64_t ranks_per_node; /* ranks of the group on its busiest domain */
	/* ranks on its least-filled domain: ranks_per_node but for a group
	 * that straddles a domain boundary off its alignment (ranks 32-47 on
	 * 36-GPU domains: 4 and 12) or whose stride does not divide the
	 * domain (0, 16, ..., 496 on 72: 5, 4, 5, 4, 5, 4, 5); 0 (a
	 * hand-built group): ranks_per_node */
	uint64_t ranks_least;
	uint64_t rails;          /* distinct NICs the group's ranks of one domain use (the least-filled one), >= 1 */
	uint64_t concurrent;     /* groups (this one included) moving data through each of those NICs at once, >= 1 */
	/* 0 when its nodes sit under one leaf switch, else the fewest of
	 * its domains under one leaf it reaches (>= 1; 1 where they are not
	 * counted: a lattice, domains wider than a leaf) */
	int cross_leaf;
};

/* What one call costs. Bandwidths are nccl-tests' (doc/PERFORMANCE.md):
 * algbw = S / t with S nccl-tests' size (the full buffer: AllReduce and
 * Broadcast the buffer, ReduceScatter and AllGather the whole array
 * (p x one rank's shard), AlltoAll one rank's send buffer, send the
 * message), busbw = algbw x dc_net_busbw_factor(op, p). */
struct dc_net_choice {
	double time_s;
	enum dc_net_algo algo;
	enum dc_net_proto proto;
	const char *algorithm; /* static: dc_net_algo_name(algo) */
	const char *protocol;  /* static: dc_net_proto_name(proto) */
	double algbw_bytes_per_s;
	double busbw_bytes_per_s;
};

/* Fills *net from the validated config's cluster and collective keys
 * (docs/config.md; presets already applied by the loader). */
void dc_net_init(const struct dc_config *cfg, struct dc_net *net);

/* The shape of group `index` along `axis` (dc_topology_group) and of its
 * neighbours: all the axis's groups run their collectives at once, so a NIC
 * carries the flows of every group whose ranks use it. O(log nics). */
void dc_net_group_axis(const struct dc_net *net, const struct dc_topology *t, enum dc_axis axis,
		       uint64_t index, struct dc_net_group *g);

/* The shape of an arbitrary progression of ranks (first, first + stride,
 * ... size ranks) alone on the cluster (concurrent = 1), e.g. the
 * nccl-tests sweep over ranks 0..p-1. */
void dc_net_group_ranks(const struct dc_net *net, uint64_t first, uint64_t stride, uint64_t size,
			struct dc_net_group *g);

/* As dc_net_group_ranks, with every GPU of a node in a group like this one
 * moving data at once (the groups of one axis: concurrent counts them). */
void dc_net_group_progression(const struct dc_net *net, uint64_t first, uint64_t stride, uint64_t size,
			      struct dc_net_group *g);

/* As dc_net_group_progression, for the lattice first + i a + j b (i < na,
 * j < nb) with a na <= b: the group of two axes of the layout that are
 * not adjacent in the order (the dp x cp group with an axis between
 * them, cp with the expert-data-parallel ranks, ep dp-strides apart): nb
 * clusters of na ranks a apart, b apart. Its domains, busiest and
 * least-filled counts are counted cluster by cluster; its rails are the
 * least-filled (lowest-numbered of them) domain's NICs, node by node;
 * concurrent as a progression's (a NIC's GPUs over the group's ranks per
 * NIC there). a na = b (one progression of na nb ranks a apart), na = 1
 * or nb = 1: dc_net_group_progression, bit for bit. O(nb min(na, span
 * / domain) + domain). */
void dc_net_group_lattice(const struct dc_net *net, uint64_t first, uint64_t a, uint64_t na, uint64_t b,
			  uint64_t nb, struct dc_net_group *g);

/* Prices one call of `op` on `bytes` (nccl-tests' S, above) over group `g`
 * with algorithm `force` (DC_NET_ALGO_AUTO: net->algorithm, and when that
 * is AUTO too, the supported one NCCL's tuner picks). The algorithm and
 * protocol are picked as NCCL picks them, the cheapest with every pair
 * priced on all its channels; the time is the picked pair's on the
 * channels it runs on (fewer for a small call: docs/network-model.md,
 * "Channels"), which can exceed another pair's. Returns 0 with *out filled; -1 when
 * the forced algorithm cannot run `op` on this group (NVLS without
 * cluster.nvls, a tree for anything but AllReduce), *out then unchanged.
 * A group of one rank or 0 bytes costs 0 s ("none"/"none"). Supported:
 * ring every op; hierarchical AllReduce, ReduceScatter, AllGather (falls
 * back to ring on one node); tree AllReduce; NVLS AllReduce,
 * ReduceScatter, AllGather; AlltoAll and send are priced point to point
 * and report "p2p". */
int dc_net_time(const struct dc_net *net, enum dc_coll_kind op, const struct dc_net_group *g, uint64_t bytes,
		enum dc_net_algo force, struct dc_net_choice *out);

/* The op whose dc_net_time `op` costs: a ReduceScatter is priced as an
 * AllGather of the same bytes on the same group (the same bus factor,
 * the same algorithms and protocols admitted, the same formulas: every
 * rule in net.c reads the two alike), so its choice is the AllGather's,
 * bit for bit, and a caller pricing both may keep one for the other;
 * every other op is its own. check_net_memo holds dc_net_time to this. */
enum dc_coll_kind dc_net_price_kind(enum dc_coll_kind op);

/* A memo of dc_net_time for callers that price the same calls over and
 * over (the layout search: every layout of a (tp, cp, pp) prices the same
 * groups, mostly on the same message sizes). One memo serves one network:
 * dc_net_memo_bind before use, with the net every later
 * dc_net_time_memo call passes (equal content; the pointer may differ).
 * A call's result is dc_net_time's, copied: bit for bit the same. Not
 * shared between threads: one per thread. Fixed size, no allocation:
 * a slot is overwritten when another call hashes to it. */
#define DC_NET_MEMO_SLOTS 4096

struct dc_net_memo_slot {
	struct dc_net_group g;
	uint64_t bytes;
	int op, force, used, rc;
	struct dc_net_choice out;
};

struct dc_net_memo {
	struct dc_net net; /* the network the slots were priced on */
	int bound;
	/* the binds that took another network (and emptied the slots): with
	 * the memo's address it names net's content for a caller that keeps
	 * prices of its own (comm.h dc_comm_memo) */
	uint64_t binds;
	uint64_t hits, misses;
	struct dc_net_memo_slot slot[DC_NET_MEMO_SLOTS];
};

/* Readies m for calls on `net`: the slots are kept when m was last bound
 * to a net of the same content, else emptied. */
void dc_net_memo_bind(struct dc_net_memo *m, const struct dc_net *net);

/* dc_net_time(net, ...) through memo m, bound (dc_net_memo_bind) to a
 * net of the same content as `net`: rebind before calling with another
 * (a debug build aborts on a mismatch; checking every call costs the
 * search 7%). m may be NULL (then it is dc_net_time). Same returns, same
 * *out. */
int dc_net_time_memo(struct dc_net_memo *m, const struct dc_net *net, enum dc_coll_kind op,
		     const struct dc_net_group *g, uint64_t bytes, enum dc_net_algo force, struct dc_net_choice *out);

#ifdef DISTCALC_VERIFY_MEMOS
/* The switch's comparison of a reused choice (and its call's return)
 * with a fresh one (memo_verify.h): aborts when they differ. */
void dc_net_choice_verify(const char *memo, const char *what, int reused_rc, const struct dc_net_choice *reused,
			  int fresh_rc, const struct dc_net_choice *fresh);
/* Tests of the switch only: doubles the time every slot keeps. */
void dc_net_memo_corrupt(struct dc_net_memo *m);
#endif

/* nccl-tests' busbw / algbw for `op` on p ranks: AllReduce 2(p-1)/p,
 * ReduceScatter, AllGather, AlltoAll (p-1)/p, Broadcast and send 1;
 * 1 when p < 2. */
double dc_net_busbw_factor(enum dc_coll_kind op, uint64_t p);

/* Bandwidth one node's share of the group gets between nodes: rails x
 * NIC rate x path factor / concurrent, / the spine's slowdown of a ring
 * across leaves (dc_net_leaf_slowdown, DC_NET_LEAF_RING); other patterns
 * scale it by their own. */
double dc_net_node_bw(const struct dc_net *net, const struct dc_net_group *g);

/* What an oversubscribed spine costs a group that crosses a leaf, as a
 * divisor of its node rate (1 without a crossing or an oversubscription
 * rho): a ring leaves each leaf once a direction, so the k domains it
 * has under a leaf share one crossing, max(1, rho / k); AlltoAll sends
 * (N - k) / (N - 1) of a domain's traffic to other leaves, max(1, rho x
 * that); the whole rho for patterns whose crossings are not counted
 * (trees). docs/network-model.md, "The spine". */
enum dc_net_leaf_pattern { DC_NET_LEAF_RING, DC_NET_LEAF_ALL_TO_ALL, DC_NET_LEAF_WHOLE };
double dc_net_leaf_slowdown(const struct dc_net *net, const struct dc_net_group *g, enum dc_net_leaf_pattern pat);

/* "auto", "ring", "hierarchical", "tree", "nvls", "pat"; "LL", "LL128", "Simple". */
const char *dc_net_algo_name(enum dc_net_algo a);
const char *dc_net_proto_name(enum dc_net_proto p);

/* The algorithm named `name` (as collective.algorithm spells it), or -1. */
int dc_net_algo_parse(const char *name, enum dc_net_algo *out);

#endif
