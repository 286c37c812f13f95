/* check_net.c - the network model (net.h) against a real nccl-tests log
 * (tests/data/nccl-tests-h100-2x8-ib.txt), the single-node figures NVIDIA's
 * maintainers quote, and hand-worked cases from docs/network-model.md. */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "distcalc/comm.h"
#include "distcalc/config.h"
#include "distcalc/net.h"
#include "distcalc/plan.h"
#include "distcalc/rng.h"

#include "fixtures.h"
#include "fixtures_plan.h"

#define GiB (1024.0 * 1024.0 * 1024.0)

static void assert_rel(double got, double want, double tol, const char *what)
{
	ck_assert_msg(fabs(got - want) <= tol * fabs(want), "%s: got %.9g, want %.9g (tolerance %g)", what, got, want,
		      tol);
}

/* A model shape nothing here reads, and a cluster. */
#define MODEL "\"model\": {\"num_layers\": 2, \"hidden_size\": 64, \"num_attention_heads\": 4," \
	      " \"vocab_size\": 100, \"seq_length\": 16}"

static void system_net(const char *system, uint64_t nodes, struct dc_net *net)
{
	struct dc_config c;
	fixture_json(&c, "{" MODEL ", \"cluster\": {\"system\": \"%s\", \"num_nodes\": %llu}}", system,
		     (unsigned long long)nodes);
	dc_net_init(&c, net);
}

static struct dc_net_choice run(const struct dc_net *net, enum dc_coll_kind op, uint64_t ranks, uint64_t bytes,
				enum dc_net_algo force)
{
	struct dc_net_group g;
	struct dc_net_choice ch;
	dc_net_group_ranks(net, 0, 1, ranks, &g);
	ck_assert_int_eq(dc_net_time(net, op, &g, bytes, force, &ch), 0);
	return ch;
}

/* ---- the log: 2 x 8 H100, 8 x 400 Gb/s per node ---- */

struct log_row {
	uint64_t size;
	double busbw_oop, busbw_ip; /* GB/s */
};

/* The rows of an all_reduce_perf log: size count type redop root, then
 * time algbw busbw #wrong out of place and in place. */
static size_t read_log(const char *path, struct log_row *rows, size_t max)
{
	FILE *f = fopen(path, "r");
	char line[512];
	size_t n = 0;
	ck_assert_msg(f != NULL, "cannot open %s", path);
	while (fgets(line, sizeof(line), f) && n < max) {
		unsigned long long size, count;
		char type[32], redop[32];
		int root, w1, w2;
		double t1, a1, b1, t2, a2, b2;
		if (line[0] == '#')
			continue;
		if (sscanf(line, "%llu %llu %31s %31s %d %lf %lf %lf %d %lf %lf %lf %d", &size, &count, type, redop,
			   &root, &t1, &a1, &b1, &w1, &t2, &a2, &b2, &w2) == 13) {
			rows[n].size = size;
			rows[n].busbw_oop = b1;
			rows[n].busbw_ip = b2;
			n++;
		}
	}
	fclose(f);
	return n;
}

/* With the dgx-h100 preset and no calibration, busbw for every size >=
 * 256 MiB within 15% of measured (both columns). */
static void check_log(const char *file, uint64_t nodes)
{
	struct log_row rows[64];
	char path[512];
	struct dc_net net;
	size_t n, checked = 0;
	snprintf(path, sizeof(path), "%s/tests/data/%s", DC_SOURCE_DIR, file);
	n = read_log(path, rows, 64);
	ck_assert_uint_eq(n, 32); /* 8 B .. 16 GiB by 2 */
	system_net("dgx-h100", nodes, &net);
	for (size_t i = 0; i < n; i++) {
		struct dc_net_choice ch;
		char what[96];
		if (rows[i].size < (256u << 20))
			continue;
		ch = run(&net, DC_COLL_ALL_REDUCE, 8 * nodes, rows[i].size, DC_NET_ALGO_AUTO);
		snprintf(what, sizeof(what), "%s: busbw at %llu B, out of place", file, (unsigned long long)rows[i].size);
		assert_rel(ch.busbw_bytes_per_s / 1e9, rows[i].busbw_oop, 0.15, what);
		snprintf(what, sizeof(what), "%s: busbw at %llu B, in place", file, (unsigned long long)rows[i].size);
		assert_rel(ch.busbw_bytes_per_s / 1e9, rows[i].busbw_ip, 0.15, what);
		/* NCCL has no hierarchical algorithm without CollNet */
		ck_assert_str_ne(ch.algorithm, "hierarchical");
		checked++;
	}
	ck_assert_uint_eq(checked, 7); /* 256 MiB .. 16 GiB */
}

START_TEST(test_log_h100_2x8_large_sizes)
{
	check_log("nccl-tests-h100-2x8-ib.txt", 2);
}
END_TEST

START_TEST(test_log_h100_4x8_large_sizes)
{
	check_log("nccl-tests-h100-4x8-ib.txt", 4);
}
END_TEST

/* collective.protocols reaches the model as NCCL_PROTO would: the
 * 64 KiB ring AllReduce of test_ll_ceiling_bounds_every_channel runs
 * LL128 at 75.68 us with ["ll128", "simple"], LL at 90.41 us without the
 * key. gcp-a3-mega fills that set from its provider's guide (NCCL_PROTO=
 * Simple,LL128); a config that names every protocol gets NCCL's default.
 * A send is not restricted: NCCL picks its protocol by its size and its
 * connection's LL buffers, so with ["ll128"] a small send inside a node
 * still runs LL, as it does without the key. */
START_TEST(test_protocols_key)
{
	struct dc_config c;
	struct dc_net net, free_net;
	struct dc_net_choice ch, free_ch;
	double ll128 = 75.2e-6 + 122880.0 / (0.92 * 370.8e9 * 12 / 16);
	fixture_json(&c, "{" MODEL ", \"cluster\": {\"system\": \"dgx-h100\", \"num_nodes\": 2},"
			 " \"collective\": {\"protocols\": [\"ll128\", \"simple\"]}}");
	dc_net_init(&c, &net);
	ck_assert_uint_eq(net.protocols, (1u << DC_NET_PROTO_LL128) | (1u << DC_NET_PROTO_SIMPLE));
	ch = run(&net, DC_COLL_ALL_REDUCE, 16, 64u << 10, DC_NET_ALGO_RING);
	ck_assert_str_eq(ch.protocol, "LL128");
	assert_rel(ch.time_s, ll128, 1e-12, "ring LL128 64 KiB");
	/* NCCL_PROTO's own spelling is taken too */
	fixture_json(&c, "{" MODEL ", \"cluster\": {\"system\": \"dgx-h100\", \"num_nodes\": 2},"
			 " \"collective\": {\"protocols\": [\"LL128\", \"Simple\"]}}");
	dc_net_init(&c, &net);
	ck_assert_uint_eq(net.protocols, (1u << DC_NET_PROTO_LL128) | (1u << DC_NET_PROTO_SIMPLE));
	system_net("gcp-a3-mega", 2, &net);
	ck_assert_uint_eq(net.protocols, (1u << DC_NET_PROTO_LL128) | (1u << DC_NET_PROTO_SIMPLE));
	fixture_json(&c, "{" MODEL ", \"cluster\": {\"system\": \"gcp-a3-mega\", \"num_nodes\": 2},"
			 " \"collective\": {\"protocols\": [\"ll\", \"ll128\", \"simple\"]}}");
	dc_net_init(&c, &net);
	ck_assert_uint_eq(net.protocols, 7);
	fixture_json(&c, "{" MODEL ", \"cluster\": {\"system\": \"dgx-h100\", \"num_nodes\": 2},"
			 " \"collective\": {\"protocols\": [\"ll128\"]}}");
	dc_net_init(&c, &net);
	system_net("dgx-h100", 2, &free_net);
	ch = run(&net, DC_COLL_SEND, 8, 1024, DC_NET_ALGO_AUTO);
	free_ch = run(&free_net, DC_COLL_SEND, 8, 1024, DC_NET_ALGO_AUTO);
	ck_assert_str_eq(ch.protocol, free_ch.protocol);
	ck_assert_str_eq(ch.protocol, "LL");
	ck_assert(ch.time_s == free_ch.time_s);
	/* across nodes a send runs Simple whatever the set: NCCL's network
	 * p2p connections have no LL buffers by default
	 * (NCCL_ALLOC_P2P_NET_LL_BUFFERS 0) */
	ch = run(&net, DC_COLL_SEND, 16, 1024, DC_NET_ALGO_AUTO);
	free_ch = run(&free_net, DC_COLL_SEND, 16, 1024, DC_NET_ALGO_AUTO);
	ck_assert_str_eq(ch.protocol, "Simple");
	ck_assert_str_eq(free_ch.protocol, "Simple");
	ck_assert(ch.time_s == free_ch.time_s);
	ch = run(&net, DC_COLL_ALL_REDUCE, 16, 64u << 10, DC_NET_ALGO_AUTO);
	ck_assert_str_eq(ch.protocol, "LL128");
}
END_TEST

/* ---- one node ---- */

START_TEST(test_one_node_figures)
{
	/* NVIDIA's maintainers quote ~370 GB/s ring and ~480 GB/s NVLS
	 * AllReduce busbw on 8 x H100, ~230 GB/s on 8 x A100; at 8 GiB the
	 * latency is < 0.1% of the time. Tolerance 5%. */
	struct dc_net h100, a100;
	struct dc_net_choice ch;
	system_net("dgx-h100", 1, &h100);
	system_net("dgx-a100", 1, &a100);
	ch = run(&h100, DC_COLL_ALL_REDUCE, 8, 8ull << 30, DC_NET_ALGO_RING);
	assert_rel(ch.busbw_bytes_per_s / 1e9, 370, 0.05, "8 x H100 ring");
	ch = run(&h100, DC_COLL_ALL_REDUCE, 8, 8ull << 30, DC_NET_ALGO_NVLS);
	assert_rel(ch.busbw_bytes_per_s / 1e9, 480, 0.05, "8 x H100 NVLS");
	/* and the tuner takes NVLS there */
	ch = run(&h100, DC_COLL_ALL_REDUCE, 8, 8ull << 30, DC_NET_ALGO_AUTO);
	ck_assert_str_eq(ch.algorithm, "nvls");
	ck_assert_str_eq(ch.protocol, "Simple");
	ch = run(&a100, DC_COLL_ALL_REDUCE, 8, 8ull << 30, DC_NET_ALGO_AUTO);
	assert_rel(ch.busbw_bytes_per_s / 1e9, 230, 0.05, "8 x A100 auto");
	ck_assert_str_eq(ch.algorithm, "ring");
	/* A100 has no NVLink SHARP: forcing NVLS cannot run */
	{
		struct dc_net_group g;
		dc_net_group_ranks(&a100, 0, 1, 8, &g);
		ck_assert_int_eq(dc_net_time(&a100, DC_COLL_ALL_REDUCE, &g, 1u << 30, DC_NET_ALGO_NVLS, &ch), -1);
	}
}
END_TEST

START_TEST(test_worked_example_ring)
{
	/* docs/network-model.md, worked example 1: 1 GiB AllReduce, 8 x H100,
	 * flat ring, Simple: 8.4 us + 14 hops x 3.4 us = 56 us, plus
	 * 2 x 7/8 x 2^30 B / (18 x 20.6 GB/s) = 1,879,048,192 / 370.8e9 =
	 * 5.067551 ms: 5.123551 ms; algbw 2^30 / t = 209.57 GB/s, busbw x 1.75
	 * = 366.75 GB/s */
	struct dc_net net;
	struct dc_net_choice ch;
	double t = 56e-6 + 1879048192.0 / 370.8e9;
	system_net("dgx-h100", 1, &net);
	ch = run(&net, DC_COLL_ALL_REDUCE, 8, 1ull << 30, DC_NET_ALGO_RING);
	assert_rel(ch.time_s, t, 1e-12, "time");
	ck_assert_str_eq(ch.protocol, "Simple");
	assert_rel(ch.algbw_bytes_per_s, GiB / t, 1e-12, "algbw");
	assert_rel(ch.busbw_bytes_per_s, GiB / t * 1.75, 1e-12, "busbw");
}
END_TEST

START_TEST(test_worked_example_hierarchical)
{
	/* docs/network-model.md, worked example 2: 1 GiB AllReduce on 2 x 8
	 * A100 (12 x 20.0 = 240 GB/s NVLink, 8 x 200 Gb/s NICs: 200 GB/s a
	 * node). Hierarchical: NVLink carries 2 x 7/8 S = 1,879,048,192 B at
	 * 240 GB/s = 7.829367 ms; the NICs 2 x 1/2 x S = 2^30 B at 200 GB/s =
	 * 5.368709 ms; pipelined, the NVLink side sets it; latency 8.4 +
	 * 2 x 7 x 3.4 + 2 x 1 x 14 = 84 us: 7.913367 ms. NCCL has no such
	 * algorithm without CollNet, so auto takes it only with
	 * cluster.collnet. Without: the tree, Simple: 8.4 + 2 x (7 x 4.0 + 1 x
	 * 14) = 92.4 us + 2^30 / (0.92 x min(240 / 2, 200) GB/s) = 9.725931 ms
	 * (16 channels x 23.6 / 2 GB/s does not cap it; the size factor is 1
	 * past 256 MiB); the ring: (8.4 + 28 x 6.0 + 2 x 14) x 1.4 us + 2 x
	 * 15/16 x S / 200 GB/s = 10.35 ms, each of the 28 steps inside a node
	 * at least the AMD hosts' 3 x 2 us post of a network step (a DGX
	 * A100's two EPYC 7742: tuning.cc L193; a review found Intel's 1 us
	 * here, 10.25 ms). */
	struct dc_net net;
	struct dc_net_choice ch;
	double t = 84e-6 + 1879048192.0 / 240e9;
	system_net("dgx-a100", 2, &net);
	ch = run(&net, DC_COLL_ALL_REDUCE, 16, 1ull << 30, DC_NET_ALGO_HIER);
	assert_rel(ch.time_s, t, 1e-12, "hierarchical");
	ch = run(&net, DC_COLL_ALL_REDUCE, 16, 1ull << 30, DC_NET_ALGO_AUTO);
	ck_assert_str_eq(ch.algorithm, "tree");
	ck_assert_str_eq(ch.protocol, "Simple");
	assert_rel(ch.time_s, 92.4e-6 + GiB / (0.92 * 120e9), 1e-12, "auto without collnet");
	ch = run(&net, DC_COLL_ALL_REDUCE, 16, 1ull << 30, DC_NET_ALGO_RING);
	assert_rel(ch.time_s, 2.0 * 15 / 16 * GiB / 200e9 + (8.4 + 28 * 6.0 + 2 * 14) * 1.4e-6, 1e-12, "ring");
	net.collnet = 1;
	ch = run(&net, DC_COLL_ALL_REDUCE, 16, 1ull << 30, DC_NET_ALGO_AUTO);
	ck_assert_str_eq(ch.algorithm, "hierarchical");
	assert_rel(ch.time_s, t, 1e-12, "auto with collnet");
}
END_TEST

START_TEST(test_small_messages_take_a_low_latency_protocol)
{
	/* 8 B on 2 x 8 H100: the tree with LL, 6.8 us + 2 x (7 hops x 0.6
	 * us + 1 hop x 5.0 us) = 25.2 us (the log measures 24.7 us); its
	 * bytes are nothing: one channel of 16 (8 B < 512 threads x 8 B) of
	 * the full-channel rate min(370.8 / 2 x 0.92 / 3.8 = 44.886, LL's
	 * ceiling on two nodes 39.0 / 2 = 19.5) GB/s, so 8 B / (19.5 / 16 GB/s)
	 * (size factor 1 below 64 B) */
	struct dc_net net;
	struct dc_net_choice ch;
	system_net("dgx-h100", 2, &net);
	ch = run(&net, DC_COLL_ALL_REDUCE, 16, 8, DC_NET_ALGO_AUTO);
	ck_assert_str_eq(ch.algorithm, "tree");
	ck_assert_str_eq(ch.protocol, "LL");
	assert_rel(ch.time_s, 25.2e-6 + 8.0 / (19.5e9 / 16), 1e-12, "8 B");
}
END_TEST

START_TEST(test_ll_ceiling_bounds_every_channel)
{
	/* NCCL's LL ceiling (llMaxBws, tuning.cc v2.26.2 L151-156: 39.0 GB/s
	 * of bus bandwidth on two nodes) bounds the rate of all the channels
	 * together (L256, L259); a call on fewer channels gets their share of
	 * it (v2.21.5 L436). NCCL picks the pair on every channel
	 * (ncclTopoGetAlgoTime reads comm->bandwidths whole, L530-545; the
	 * cheapest, enqueue.cc v2.26.2 L1654-1708) and cuts the channels of
	 * the pair it picked afterwards (L1734-1774). 2 x 8 H100 (dgx-h100:
	 * B = 370.8 GB/s, B_node = 8 x 50 = 400 GB/s, 16 channels), AllReduce
	 * on 16 ranks.
	 *
	 * Ring, 64 KiB: bus bytes 2 x 15/16 x 65,536 = 122,880 B; 30 steps,
	 * 2 of them between nodes. The pick, every pair on 16 channels:
	 * - LL: 6.6 + 28 x max(0.6, 1 us overhead) + 2 x 2.7 = 40.0 us; rate
	 *   min(370.8 / 4 = 92.7, 39.0) = 39.0 GB/s: 122,880 / 39.0 GB/s =
	 *   3.15 us, 43.15 us (NCCL's own estimate, the same ceiling);
	 * - LL128: 14 + 28 x 1.9 + 2 x 4.0 = 75.2 us; 0.92 x 370.8 = 341.136
	 *   GB/s (under 16 x 36.7): 0.36 us, 75.56 us;
	 * - Simple: (8.4 + 28 x 3.4 + 2 x 14) x 1.4 (the plateau, 65,536 /
	 *   (16 x 16) = 256 B >= 64) = 184.24 us plus its bytes;
	 * so the ring runs LL. It runs on one channel of 16 (512 threads x 8 B
	 * x 16 ranks = 64 KiB a channel): 39.0 / 16 = 2.4375 GB/s, 122,880 B in
	 * 50.41 us: 90.41 us. (Picking on the cut channels instead, as the
	 * model did before, LL128 on its 12 channels (65,536 / 5,120 = 12.8):
	 * 0.92 x 370.8 x 12/16 = 255.852 GB/s, 0.48 us, 75.68 us, would have
	 * won: not NCCL's pick.) With LL left out (NCCL_PROTO=LL128,Simple)
	 * the ring runs LL128 on its 12 channels: 75.68 us. */
	struct dc_net net;
	struct dc_net_choice ch;
	double ll = 40.0e-6 + 122880.0 / (39.0e9 / 16), ll128 = 75.2e-6 + 122880.0 / (0.92 * 370.8e9 * 12 / 16);
	system_net("dgx-h100", 2, &net);
	ch = run(&net, DC_COLL_ALL_REDUCE, 16, 64u << 10, DC_NET_ALGO_RING);
	ck_assert_str_eq(ch.protocol, "LL");
	assert_rel(ch.time_s, ll, 1e-12, "ring 64 KiB");
	assert_rel(ll, 90.41e-6, 1e-4, "ring LL by hand");
	net.protocols = (1u << DC_NET_PROTO_LL128) | (1u << DC_NET_PROTO_SIMPLE);
	ch = run(&net, DC_COLL_ALL_REDUCE, 16, 64u << 10, DC_NET_ALGO_RING);
	ck_assert_str_eq(ch.protocol, "LL128");
	assert_rel(ch.time_s, ll128, 1e-12, "ring LL128 64 KiB");
	assert_rel(ll128, 75.68e-6, 1e-4, "ring LL128 by hand");
	/* 16 channels (1 MiB: 1,048,576 / 65,536): the whole ceiling, 39.0
	 * GB/s, 40.0 + 1,966,080 / 39.0 GB/s = 90.41 us as well */
	net.protocols = 1u << DC_NET_PROTO_LL;
	ch = run(&net, DC_COLL_ALL_REDUCE, 16, 1u << 20, DC_NET_ALGO_RING);
	ck_assert_str_eq(ch.protocol, "LL");
	assert_rel(ch.time_s, 40.0e-6 + 1966080.0 / 39.0e9, 1e-12, "ring LL 1 MiB");

	/* Tree, 8 KiB (auto), where the pick does not change. Full-channel
	 * rate: link min(370.8 / 2, 400) = 185.4 GB/s, x 0.92 = 170.568
	 * (under 16 x 41.4 / 2 = 331.2), LL min(170.568 / 3.8 = 44.886,
	 * 39.0 / 2 = 19.5) = 19.5 GB/s; the size factor at knot log2(8,192 /
	 * 64) = 7 is LL's 0.7: 13.65 GB/s; latency 6.8 + 2 x (7 x 0.6 + 5.0)
	 * = 25.2 us. The pick on 16 channels: the tree's LL 25.2 + 8,192 /
	 * 13.65 GB/s = 25.80 us; its LL128 starts at 14 + 2 x (7 x 1.25 +
	 * 8.5) = 48.5 us, the ring's LL at 40 us plus 8,192 x 30/16 / 39.0
	 * GB/s = 0.39 us, NVLS at 25 + 2 x 14 = 53 us: the tree's LL, as it
	 * was on the cut channels. It runs 8,192 / (512 x 8) = 2 channels of
	 * 16: 19.5 x 2/16 x 0.7 = 1.70625 GB/s, 8,192 B in 4.80 us: 30.00 us
	 * (the log measures 31.67 us). */
	net.protocols = 0;
	ch = run(&net, DC_COLL_ALL_REDUCE, 16, 8u << 10, DC_NET_ALGO_AUTO);
	ck_assert_str_eq(ch.algorithm, "tree");
	ck_assert_str_eq(ch.protocol, "LL");
	assert_rel(ch.time_s, 25.2e-6 + 8192.0 / (19.5e9 * 2 / 16 * 0.7), 1e-12, "tree LL 8 KiB");
	assert_rel(ch.time_s, 30.00e-6, 1e-4, "tree LL by hand");
}
END_TEST

START_TEST(test_channels_used)
{
	/* enqueue.cc v2.26.2 L1752-1756: a channel is dropped while bytes <
	 * channels x threads x threshold: Simple 512 x 64 = 32 KiB a channel,
	 * LL128 640 x 8 = 5 KiB, LL 512 x 8 = 4 KiB x the ring's ranks; NVLS
	 * keeps its 16. On 2 x 8 H100 (16 channels, 2 x 8 NICs): */
	struct dc_net net;
	system_net("dgx-h100", 2, &net);
	ck_assert_uint_eq(net.channels, 16);
	ck_assert_uint_eq(dc_net_channels_used(&net, DC_NET_ALGO_RING, DC_NET_PROTO_SIMPLE, 16, 1u << 20), 16);
	ck_assert_uint_eq(dc_net_channels_used(&net, DC_NET_ALGO_RING, DC_NET_PROTO_SIMPLE, 16, 64u << 10), 2);
	ck_assert_uint_eq(dc_net_channels_used(&net, DC_NET_ALGO_TREE, DC_NET_PROTO_SIMPLE, 16, 16u << 10), 1);
	ck_assert_uint_eq(dc_net_channels_used(&net, DC_NET_ALGO_TREE, DC_NET_PROTO_LL128, 16, 40960), 8);
	/* LL on a ring of 16: 4 KiB x 16 = 64 KiB a channel: 256 KiB is 4 */
	ck_assert_uint_eq(dc_net_channels_used(&net, DC_NET_ALGO_RING, DC_NET_PROTO_LL, 16, 256u << 10), 4);
	ck_assert_uint_eq(dc_net_channels_used(&net, DC_NET_ALGO_TREE, DC_NET_PROTO_LL, 16, 256u << 10), 16);
	ck_assert_uint_eq(dc_net_channels_used(&net, DC_NET_ALGO_NVLS, DC_NET_PROTO_SIMPLE, 16, 8), 16);
}
END_TEST

START_TEST(test_channel_cap)
{
	/* One node of 8 H100 with a 10 TB/s NVLink and one channel
	 * (cluster.nccl_channels 1): the tree's bus rate is capped at one
	 * channel's 38.7 GB/s (perChMaxTreeBws, Hopper, one node; tuning.cc
	 * v2.26.2 L170-175), 19.35 GB/s of algbw (NCCL's ratio 1/2). 1 GiB,
	 * tree forced: Simple 2^30 / 19.35e9 = 55.490 ms + 8.4 + 2 x 7 x 4.0 =
	 * 64.4 us (the size factor is 1 past 256 MiB); LL128 min(19.35 x 7/9,
	 * 36.7 / 2) = 15.05 GB/s and LL 19.35 / 3.8 are slower. */
	struct dc_config c;
	struct dc_net net;
	struct dc_net_choice ch;
	fixture_json(&c, "{" MODEL ", \"cluster\": {\"system\": \"dgx-h100\", \"num_nodes\": 1, \"nccl_channels\": 1,"
			 " \"intra_node\": {\"bandwidth\": \"10000 GB/s\"}}}");
	dc_net_init(&c, &net);
	ck_assert_uint_eq(net.channels, 1);
	ch = run(&net, DC_COLL_ALL_REDUCE, 8, 1ull << 30, DC_NET_ALGO_TREE);
	ck_assert_str_eq(ch.protocol, "Simple");
	assert_rel(ch.time_s, 64.4e-6 + GiB / 19.35e9, 1e-12, "one channel");
	/* 16 channels: 0.92 x 5000 GB/s against 16 x 19.35: the cap still */
	c.cluster.nccl_channels = 16;
	dc_net_init(&c, &net);
	ch = run(&net, DC_COLL_ALL_REDUCE, 8, 1ull << 30, DC_NET_ALGO_TREE);
	assert_rel(ch.time_s, 64.4e-6 + GiB / (16 * 19.35e9), 1e-12, "sixteen channels");
}
END_TEST

START_TEST(test_size_factor)
{
	/* The tree's AllReduce on 2 x 8 H100 at two sizes: NCCL's
	 * treeCorrectionFactor (tuning.cc v2.26.2 L524-528) at knot
	 * log2(S / 64): 4 MiB is knot 16, 64 MiB knot 20. At both LL128 wins:
	 * 14 + 2 x (7 x 1.25 + 1 x 8.5) = 48.5 us, and 0.92 x min(370.8 / 2,
	 * 400) x 120/128 GB/s (under 16 x 36.7 / 2) times the factor, LL128's
	 * 0.8 at knot 16 and 0.9 at knot 20 (Simple: 0.7 and 0.8, with 92.4 us
	 * of latency; LL: at most 39 / 2 GB/s). */
	struct dc_net net;
	struct dc_net_choice ch;
	double rate = 0.92 * 185.4e9 * 120.0 / 128.0;
	system_net("dgx-h100", 2, &net);
	ck_assert_int_eq(dc_net_size_knot(4u << 20), 16);
	ck_assert_int_eq(dc_net_size_knot(64u << 20), 20);
	ck_assert_int_eq(dc_net_size_knot(63), -1);
	/* knot k holds [64 x 2^k, 64 x 2^(k+1)) bytes, the last one all above:
	 * by hand, 64 and 127 in knot 0, 128 in 1, 2^20 - 1 = 64 x (2^14 - 1)
	 * + 63 in 13, 2^64 - 1 past 64 x 2^23 in the last (23) */
	ck_assert_int_eq(dc_net_size_knot(64), 0);
	ck_assert_int_eq(dc_net_size_knot(127), 0);
	ck_assert_int_eq(dc_net_size_knot(128), 1);
	ck_assert_int_eq(dc_net_size_knot((1u << 20) - 1), 13);
	ck_assert_int_eq(dc_net_size_knot(UINT64_MAX), 23);
	ch = run(&net, DC_COLL_ALL_REDUCE, 16, 4u << 20, DC_NET_ALGO_TREE);
	ck_assert_str_eq(ch.protocol, "LL128");
	assert_rel(ch.time_s, 48.5e-6 + 4194304.0 / (rate * 0.8), 1e-12, "4 MiB");
	ch = run(&net, DC_COLL_ALL_REDUCE, 16, 64u << 20, DC_NET_ALGO_TREE);
	ck_assert_str_eq(ch.protocol, "LL128");
	assert_rel(ch.time_s, 48.5e-6 + 67108864.0 / (rate * 0.9), 1e-12, "64 MiB");
}
END_TEST

/* The fitted ramp (dc_net_ramp_factor): knots 0.5, 0.6, 0.7, 0.8, 0.9 at
 * 2^13, 2^17, 2^21, 2^25, 2^29 B, linear in log2(size), the first knot's
 * below, 1 at 2^33 and above: 4 KiB 0.5; 32 KiB (log2 15, half way from
 * 13 to 17) 0.55; 512 MiB 0.9; 2 GiB (log2 31, half way from 29 to 33)
 * 0.95; 8 GiB 1; no knots set: 1. On a call: 1 GiB tree on 2 x 8 H100
 * with the ramp across nodes at 0.5 everywhere runs its bandwidth term
 * at 0.5 + 0.5 x 1/4 = 0.625 of the rate (log2 30: a quarter of the way
 * from 29 to 33). */
START_TEST(test_ramp_factor)
{
	static const double k[DC_NET_RAMP_KNOTS] = {0.5, 0.6, 0.7, 0.8, 0.9}, none[DC_NET_RAMP_KNOTS] = {0};
	struct dc_net net;
	struct dc_net_choice a, b;
	double lat;
	assert_rel(dc_net_ramp_factor(k, 4096), 0.5, 1e-12, "4 KiB");
	assert_rel(dc_net_ramp_factor(k, 32768), 0.55, 1e-12, "32 KiB");
	assert_rel(dc_net_ramp_factor(k, 512ull << 20), 0.9, 1e-12, "512 MiB");
	assert_rel(dc_net_ramp_factor(k, 2ull << 30), 0.95, 1e-12, "2 GiB");
	assert_rel(dc_net_ramp_factor(k, 8ull << 30), 1.0, 1e-12, "8 GiB");
	assert_rel(dc_net_ramp_factor(none, 32768), 1.0, 1e-12, "no ramp");
	system_net("dgx-h100", 2, &net);
	/* By hand, without a ramp: Simple wins at 1 GiB; its latency on 2 x 8
	 * (network-model.md) is 8.4 + 2 x (7 x 4.0 + 14) = 92.4 us; its rate
	 * 0.92 x min(370.8 / 2, 400) = 170.568 GB/s (under the channels' 16 x
	 * 36.7 / 2 = 293.6), NCCL's tree factor 1 at knot log2(2^30 / 64) = 24,
	 * past its table: 92.4 us + 2^30 B / 170.568 GB/s = 6.387495 ms. With
	 * the ramp: 2^30 B / (170.568 GB/s x 0.625) = 10.072153 ms + 92.4 us. */
	lat = 92.4e-6;
	a = run(&net, DC_COLL_ALL_REDUCE, 16, 1ull << 30, DC_NET_ALGO_TREE);
	ck_assert_str_eq(a.protocol, "Simple");
	assert_rel(a.time_s, lat + 1073741824.0 / (0.92 * 185.4e9), 1e-9, "1 GiB without a ramp");
	for (int i = 0; i < DC_NET_RAMP_KNOTS; i++)
		net.ramp[1][i] = 0.5;
	b = run(&net, DC_COLL_ALL_REDUCE, 16, 1ull << 30, DC_NET_ALGO_TREE);
	ck_assert_str_eq(b.protocol, "Simple");
	assert_rel(b.time_s, lat + 1073741824.0 / (0.92 * 185.4e9 * 0.625), 1e-9, "1 GiB at 0.625 of the rate");
	for (int i = 0; i < DC_NET_RAMP_KNOTS; i++)
		net.ramp[1][i] = 0;
	net.ramp[0][0] = 0.5; /* a ramp in one node leaves calls across nodes alone */
	b = run(&net, DC_COLL_ALL_REDUCE, 16, 1ull << 30, DC_NET_ALGO_TREE);
	assert_rel(b.time_s, a.time_s, 1e-12, "the one-node ramp across nodes");
}
END_TEST

START_TEST(test_pat_one_gpu_per_node)
{
	/* AllGather of 1 MiB over 8 nodes of one H100 each, one 50 GB/s NIC,
	 * 14 us a network hop. PAT (tuning.cc v2.26.2 L341-346): 8 us +
	 * log2(8) x 14 / 3.5 + 8 x 2.8 = 42.4 us, and S / (0.75 x 50 GB/s) =
	 * 27.962 us: 70.362 us. The ring: Simple 8.4 + 7 x 14 = 106.4 us +
	 * 7/8 S / 50 GB/s = 124.75 us; LL128 14 + 7 x 8.5 = 73.5 us + 7/8 S /
	 * 46 GB/s = 93.45 us; LL 6.6 + 7 x 5 = 41.6 us + 7/8 S / 12.5 GB/s.
	 * With two GPUs a node PAT cannot run. */
	struct dc_config c;
	struct dc_net net;
	struct dc_net_choice ch;
	fixture_json(&c, "{" MODEL ", \"cluster\": {\"num_nodes\": 8, \"gpus_per_node\": 1, \"gpu\": \"h100-sxm5-80gb\","
			 " \"intra_node\": {\"bandwidth\": \"300 GB/s\", \"latency\": \"3.4 us\"},"
			 " \"inter_node\": {\"bandwidth\": \"50 GB/s\", \"latency\": \"14 us\"}}}");
	dc_net_init(&c, &net);
	ch = run(&net, DC_COLL_ALL_GATHER, 8, 1u << 20, DC_NET_ALGO_AUTO);
	ck_assert_str_eq(ch.algorithm, "pat");
	ck_assert_str_eq(ch.protocol, "Simple");
	assert_rel(ch.time_s, 42.4e-6 + 1048576.0 / 37.5e9, 1e-12, "pat");
	ch = run(&net, DC_COLL_REDUCE_SCATTER, 8, 1u << 20, DC_NET_ALGO_AUTO);
	ck_assert_str_eq(ch.algorithm, "pat");
	/* AllReduce has no PAT */
	{
		struct dc_net_group g;
		dc_net_group_ranks(&net, 0, 1, 8, &g);
		ck_assert_int_eq(dc_net_time(&net, DC_COLL_ALL_REDUCE, &g, 1u << 20, DC_NET_ALGO_PAT, &ch), -1);
	}
	c.cluster.gpus_per_node = 2;
	c.cluster.nvlink_domain = 2;
	c.cluster.num_nodes = 4;
	dc_net_init(&c, &net);
	ch = run(&net, DC_COLL_ALL_GATHER, 8, 1u << 20, DC_NET_ALGO_AUTO);
	ck_assert_str_ne(ch.algorithm, "pat");
}
END_TEST

START_TEST(test_every_nic)
{
	/* 8 GPUs and 32 NICs of 100 Gb/s a node (an AWS p5's 32 x 100 Gb/s
	 * EFA): a group over every GPU of two nodes uses all 32, 32 x 12.5 =
	 * 400 GB/s a node (one NIC per GPU would give 100 GB/s); a group of
	 * every other GPU (4 a node) brings 4 x 4 = 16 NICs, 200 GB/s. */
	struct dc_config c;
	struct dc_net net;
	struct dc_net_group g;
	fixture_json(&c, "{" MODEL ", \"cluster\": {\"num_nodes\": 2, \"gpus_per_node\": 8, \"gpu_memory\": \"80 GiB\","
			 " \"intra_node\": {\"bandwidth\": \"370.8 GB/s\"}, \"inter_node\": {\"bandwidth\": \"100 Gb/s\"},"
			 " \"nics_per_node\": 32}}");
	dc_net_init(&c, &net);
	dc_net_group_ranks(&net, 0, 1, 16, &g);
	ck_assert_uint_eq(g.rails, 32);
	assert_rel(dc_net_node_bw(&net, &g), 400e9, 1e-15, "32 NICs");
	dc_net_group_progression(&net, 0, 2, 8, &g);
	ck_assert_uint_eq(g.rails, 16);
	ck_assert_uint_eq(g.concurrent, 1);
	assert_rel(dc_net_node_bw(&net, &g), 200e9, 1e-15, "16 NICs");
	/* NCCL's default channels: 2 x 32 NICs, at most 32 */
	ck_assert_uint_eq(net.channels, 32);
	/* 12 NICs for 8 GPUs (not a multiple): the node's 8 GPUs bring all
	 * 12, 12 x 12.5 = 150 GB/s; every other GPU, 4 x 12 / 8 = 6 of them,
	 * 75 GB/s (12 / 8 taken first kept 8 and 4: a user trial) */
	fixture_json(&c, "{" MODEL ", \"cluster\": {\"num_nodes\": 2, \"gpus_per_node\": 8, \"gpu_memory\": \"80 GiB\","
			 " \"intra_node\": {\"bandwidth\": \"370.8 GB/s\"}, \"inter_node\": {\"bandwidth\": \"100 Gb/s\"},"
			 " \"nics_per_node\": 12}}");
	dc_net_init(&c, &net);
	dc_net_group_ranks(&net, 0, 1, 16, &g);
	ck_assert_uint_eq(g.rails, 12);
	assert_rel(dc_net_node_bw(&net, &g), 150e9, 1e-15, "12 NICs");
	dc_net_group_progression(&net, 0, 2, 8, &g);
	ck_assert_uint_eq(g.rails, 6);
	assert_rel(dc_net_node_bw(&net, &g), 75e9, 1e-15, "6 NICs");
}
END_TEST

/* Each ring channel leaves a node through one NIC: 2 nodes x 8 H100s
 * with 8 NICs of 50 GB/s, a 1 GiB ring AllReduce over all 16. At NCCL's
 * default 16 channels the node's 400 GB/s is above NVLink's 370.8, which
 * sets the bus rate; with cluster.nccl_channels 1 one NIC, 50 GB/s, with
 * 2 two, 100 GB/s: the bus bandwidth (2 x 15/16 x 2^30 B over the time)
 * stays under each and within 3% of it (latency: about 0.1 ms of 5.6 at
 * 16 channels, of 40 at one). */
START_TEST(test_channels_reach_nics)
{
	static const uint64_t ch[] = {0, 1, 2};
	static const double cap[] = {370.8e9, 50e9, 100e9};
	for (int i = 0; i < 3; i++) {
		struct dc_config c;
		struct dc_net net;
		struct dc_net_group g;
		struct dc_net_choice o;
		char json[512];
		snprintf(json, sizeof(json),
			 "{" MODEL ", \"cluster\": {\"num_nodes\": 2, \"gpus_per_node\": 8, \"gpu_memory\": \"80 GiB\","
			 " \"intra_node\": {\"bandwidth\": \"370.8 GB/s\"}, \"inter_node\": {\"bandwidth\": \"50 GB/s\"},"
			 " \"nics_per_node\": 8%s%llu}}",
			 ch[i] ? ", \"nccl_channels\": " : "", ch[i] ? (unsigned long long)ch[i] : 0ull);
		if (!ch[i])
			snprintf(json, sizeof(json),
				 "{" MODEL ", \"cluster\": {\"num_nodes\": 2, \"gpus_per_node\": 8, \"gpu_memory\": \"80 GiB\","
				 " \"intra_node\": {\"bandwidth\": \"370.8 GB/s\"}, \"inter_node\": {\"bandwidth\": \"50 GB/s\"},"
				 " \"nics_per_node\": 8}}");
		fixture_json(&c, "%s", json);
		dc_net_init(&c, &net);
		dc_net_group_ranks(&net, 0, 1, 16, &g);
		ck_assert_int_eq(dc_net_time(&net, DC_COLL_ALL_REDUCE, &g, 1ull << 30, DC_NET_ALGO_RING, &o), 0);
		ck_assert_msg(o.busbw_bytes_per_s <= cap[i] && o.busbw_bytes_per_s >= 0.97 * cap[i],
			      "channels %llu: bus bandwidth %g, cap %g", (unsigned long long)ch[i], o.busbw_bytes_per_s, cap[i]);
	}
	/* NCCL's default count is one node's NICs' (4 on a GB200 tray, 8
	 * channels) and never cuts: a ring over two NVL72 racks holds 72
	 * rails a domain, which a review found cut to 8 (the 1 GiB ring
	 * AllReduce's bus bandwidth 508.6 -> 335.5 GB/s); given 8 channels,
	 * it is cut */
	{
		struct dc_config c;
		struct dc_net net;
		struct dc_net_group g;
		struct dc_net_choice dflt, eight;
		fixture_json(&c, "{" MODEL ", \"cluster\": {\"system\": \"gb200-nvl72\", \"num_nodes\": 36}}");
		dc_net_init(&c, &net);
		dc_net_group_ranks(&net, 0, 1, 144, &g);
		ck_assert_uint_eq(g.rails, 72);
		ck_assert_int_eq(dc_net_time(&net, DC_COLL_ALL_REDUCE, &g, 1ull << 30, DC_NET_ALGO_RING, &dflt), 0);
		fixture_json(&c, "{" MODEL ", \"cluster\": {\"system\": \"gb200-nvl72\", \"num_nodes\": 36, \"nccl_channels\": 8}}");
		dc_net_init(&c, &net);
		dc_net_group_ranks(&net, 0, 1, 144, &g);
		ck_assert_int_eq(dc_net_time(&net, DC_COLL_ALL_REDUCE, &g, 1ull << 30, DC_NET_ALGO_RING, &eight), 0);
		ck_assert_msg(dflt.busbw_bytes_per_s > 500e9, "default channels: %g", dflt.busbw_bytes_per_s);
		ck_assert_msg(eight.busbw_bytes_per_s < 0.7 * dflt.busbw_bytes_per_s, "8 channels given: %g",
			      eight.busbw_bytes_per_s);
	}
}
END_TEST

/* ---- NICs shared ---- */

START_TEST(test_contention_halves_a_shared_nic)
{
	/* 2 nodes x 2 GPUs, one 50 GB/s NIC per node, latencies 0. The two
	 * pipeline pairs (rank 0 -> 2 and 1 -> 3) both leave through NIC 0:
	 * sending 1 GB alone takes 8.4 us + 1e9 / 50e9 = 20.0084 ms; with the
	 * other pair on the wire each gets 25 GB/s: 8.4 us + 40 ms. */
	struct dc_config c;
	struct dc_net net;
	struct dc_net_group alone, both;
	struct dc_net_choice ch;
	fixture_json(&c, "{" MODEL ", \"cluster\": {\"num_nodes\": 2, \"gpus_per_node\": 2, \"gpu_memory\": \"80 GiB\","
			 " \"intra_node\": {\"bandwidth\": \"300 GB/s\"}, \"inter_node\": {\"bandwidth\": \"50 GB/s\"},"
			 " \"nics_per_node\": 1}}");
	dc_net_init(&c, &net);
	dc_net_group_ranks(&net, 0, 2, 2, &alone);
	dc_net_group_progression(&net, 0, 2, 2, &both);
	ck_assert_uint_eq(alone.concurrent, 1);
	ck_assert_uint_eq(both.concurrent, 2);
	assert_rel(dc_net_node_bw(&net, &alone), 50e9, 1e-15, "alone");
	assert_rel(dc_net_node_bw(&net, &both), 25e9, 1e-15, "shared");
	ck_assert_int_eq(dc_net_time(&net, DC_COLL_SEND, &alone, 1000000000, DC_NET_ALGO_AUTO, &ch), 0);
	assert_rel(ch.time_s, 8.4e-6 + 0.02, 1e-12, "send alone");
	ck_assert_int_eq(dc_net_time(&net, DC_COLL_SEND, &both, 1000000000, DC_NET_ALGO_AUTO, &ch), 0);
	assert_rel(ch.time_s, 8.4e-6 + 0.04, 1e-12, "send shared");
	ck_assert_str_eq(ch.algorithm, "p2p");
	/* two NICs, one per GPU: no sharing */
	c.cluster.nics_per_node = 2;
	dc_net_init(&c, &net);
	dc_net_group_progression(&net, 0, 2, 2, &both);
	ck_assert_uint_eq(both.concurrent, 1);
	assert_rel(dc_net_node_bw(&net, &both), 50e9, 1e-15, "own NIC");
}
END_TEST

START_TEST(test_default_config_dp_follows_its_nics)
{
	/* configs/systems.json: 2 nodes x 4 GPUs, TP 4 inside, DP 2 across,
	 * one 400 Gb/s NIC per node, 10 us a network hop. The four DP groups
	 * ([0, 4] .. [3, 7]) share the NIC: 12.5 GB/s each. A 25 MiB bucket
	 * AllReduce on 2 ranks (ring, Simple: 2 steps, both over the network;
	 * the ring's plateau x 1.4 across nodes): (8.4 us + 2 x 10 us) x 1.4 +
	 * 26,214,400 B / 12.5e9 = 2.136912 ms; with one NIC per GPU 39.76 us +
	 * 26,214,400 / 50e9 = 0.564048 ms. */
	struct dc_config c;
	struct dc_comm m;
	const char *err = NULL;
	const struct dc_coll *x;
	fixture_systems(&c);
	ck_assert_uint_eq(c.cluster.nics_per_node, 1);
	ck_assert_int_eq(dc_comm_compute(plan_of(&c), &m, &err), 0);
	x = &m.s[DC_STRAT_DP].coll[0];
	ck_assert_uint_eq(x->msg_bytes, 26214400);
	assert_rel(x->time_s / (double)x->count, 39.76e-6 + 26214400.0 / 12.5e9, 1e-12, "one NIC");
	ck_assert_str_eq(x->algorithm, "ring");
	c.cluster.nics_per_node = 4;
	ck_assert_int_eq(dc_comm_compute(plan_of(&c), &m, &err), 0);
	x = &m.s[DC_STRAT_DP].coll[0];
	assert_rel(x->time_s / (double)x->count, 39.76e-6 + 26214400.0 / 50e9, 1e-12, "four NICs");
	/* collective.algorithm forces it: a tree on one rank per node, 0.92
	 * of the NIC; LL128 wins: 14 us + 2 x log2(2) network hops of 10 us x
	 * 8.5/14, and 120/128 of the rate times the size factor at knot 18
	 * (25 MiB / 64 B = 2^18.6), 0.9 (Simple: 0.7) */
	c.collective.algorithm = DC_NET_ALGO_TREE;
	ck_assert_int_eq(dc_comm_compute(plan_of(&c), &m, &err), 0);
	x = &m.s[DC_STRAT_DP].coll[0];
	ck_assert_str_eq(x->algorithm, "tree");
	ck_assert_str_eq(x->protocol, "LL128");
	assert_rel(x->time_s / (double)x->count, (14 + 2 * 10 * 8.5 / 14) * 1e-6 + 26214400.0 / (0.92 * 50e9 * 120 / 128 * 0.9),
		   1e-12, "tree");
}
END_TEST

START_TEST(test_selene_dp_bucket_one_gpu_per_node)
{
	/* Megatron-LM 2021 Table 1 at tp 8 (docs/step-model.md): a DP group is
	 * GPU i of 32 Selene nodes (stride 8), one per node, each on its own
	 * 200 Gb/s HDR NIC (8 a node), 10 us a network hop. A 25 MiB gradient
	 * bucket, ring: 2 x 31 = 62 steps, every one across the network. With
	 * one GPU per node NCCL takes the tree's network hop (tuning.cc v2.26.2
	 * L300-301), LL128's 8.5 of the ring Simple's 14 us:
	 *   LL128: 14 + 62 x 10 x 8.5/14 = 390.43 us + 2 x 31/32 x 26,214,400 B
	 *          / (0.92 x 25 GB/s) = 2,208.28 us: 2,598.71 us;
	 *   Simple (NCCL_PROTO=Simple): the plateau's 1.4 x (8.4 + 62 x 10) =
	 *          879.76 us + 50,790,400 B / 25 GB/s = 2,031.62 us: 2,911.38 us;
	 *   tree (forced), LL128: 14 + 2 x log2(32) x 6.0714 = 74.71 us + S /
	 *          (25 / 2 x 0.92 x 120/128 x 0.9 GB/s) = 2,701.57 us: 2,776.29 us.
	 * Before the ppn = 1 rule the LL128 ring cost 14 + 62 x 10 x 4/14 +
	 * 2,208.28 = 2,399.42 us; NCCL 2.9 (2021) priced the same call with
	 * LL128 at 0.7 of the bus rate instead (tuning.cc v2.9.9 L103, L128). */
	struct dc_config c;
	struct dc_net net;
	struct dc_net_group g;
	struct dc_net_choice ch;
	const double S = 26214400.0, bus = 2.0 * 31.0 / 32.0 * S;
	fixture_json(&c, "{" MODEL ", \"cluster\": {\"num_nodes\": 32, \"gpus_per_node\": 8, \"gpu\": \"a100-sxm4-80gb\","
			 " \"intra_node\": {\"bandwidth\": \"300 GB/s\", \"latency\": \"5 us\"},"
			 " \"inter_node\": {\"bandwidth\": \"200 Gb/s\", \"latency\": \"10 us\"}, \"nics_per_node\": 8}}");
	dc_net_init(&c, &net);
	dc_net_group_progression(&net, 0, 8, 32, &g);
	ck_assert_uint_eq(g.nodes, 32);
	ck_assert_uint_eq(g.ranks_per_node, 1);
	ck_assert_uint_eq(g.concurrent, 1);
	assert_rel(dc_net_node_bw(&net, &g), 25e9, 1e-15, "own NIC");
	ck_assert_int_eq(dc_net_time(&net, DC_COLL_ALL_REDUCE, &g, 26214400, DC_NET_ALGO_AUTO, &ch), 0);
	ck_assert_str_eq(ch.algorithm, "ring");
	ck_assert_str_eq(ch.protocol, "LL128");
	assert_rel(ch.time_s, (14 + 62 * 10 * 8.5 / 14) * 1e-6 + bus / (0.92 * 25e9), 1e-12, "ring LL128");
	ck_assert_int_eq(dc_net_time(&net, DC_COLL_ALL_REDUCE, &g, 26214400, DC_NET_ALGO_TREE, &ch), 0);
	ck_assert_str_eq(ch.protocol, "LL128");
	assert_rel(ch.time_s, (14 + 2 * 5 * 10 * 8.5 / 14) * 1e-6 + S / (12.5e9 * 0.92 * 120 / 128 * 0.9), 1e-12,
		   "tree LL128");
	net.protocols = 1u << DC_NET_PROTO_SIMPLE;
	ck_assert_int_eq(dc_net_time(&net, DC_COLL_ALL_REDUCE, &g, 26214400, DC_NET_ALGO_AUTO, &ch), 0);
	ck_assert_str_eq(ch.algorithm, "ring");
	ck_assert_str_eq(ch.protocol, "Simple");
	assert_rel(ch.time_s, 1.4 * (8.4 + 62 * 10) * 1e-6 + bus / 25e9, 1e-12, "ring Simple");
}
END_TEST

START_TEST(test_default_channels_shown)
{
	/* the channels the model runs where cluster.nccl_channels is left
	 * out, as the cluster section shows them: 2 x NICs in [2, 32]; by
	 * hand, 1 NIC 2, 4 NICs 8, none given on 8 GPUs a node 16, 32 NICs
	 * (aws-p5) 32, not 64 */
	struct dc_config c;
	fixture_json(&c, "{" MODEL ", \"cluster\": {\"num_nodes\": 2, \"gpus_per_node\": 8, \"gpu_memory\": \"80 GiB\","
			 " \"intra_node\": {\"bandwidth\": \"300 GB/s\"}, \"inter_node\": {\"bandwidth\": \"50 GB/s\"}}}");
	ck_assert_uint_eq(dc_net_default_channels(&c), 16);
	c.cluster.nics_per_node = 1;
	ck_assert_uint_eq(dc_net_default_channels(&c), 2);
	c.cluster.nics_per_node = 4;
	ck_assert_uint_eq(dc_net_default_channels(&c), 8);
	c.cluster.nics_per_node = 32;
	ck_assert_uint_eq(dc_net_default_channels(&c), 32);
}
END_TEST

START_TEST(test_oversubscribed_spine)
{
	/* 4 nodes, 2 under each leaf, 2:1 oversubscribed: a group on nodes 0
	 * and 1 keeps the NIC rate, one on nodes 1 and 2 gets half */
	struct dc_config c;
	struct dc_net net;
	struct dc_net_group g;
	fixture_json(&c, "{" MODEL ", \"cluster\": {\"num_nodes\": 4, \"gpus_per_node\": 1, \"gpu_memory\": \"80 GiB\","
			 " \"intra_node\": {\"bandwidth\": \"300 GB/s\"}, \"inter_node\": {\"bandwidth\": \"50 GB/s\"},"
			 " \"oversubscription\": 2, \"nodes_per_leaf\": 2}}");
	dc_net_init(&c, &net);
	dc_net_group_ranks(&net, 0, 1, 2, &g);
	ck_assert_int_eq(g.cross_leaf, 0);
	assert_rel(dc_net_node_bw(&net, &g), 50e9, 1e-15, "one leaf");
	dc_net_group_ranks(&net, 1, 1, 2, &g);
	ck_assert_int_eq(g.cross_leaf, 1);
	assert_rel(dc_net_node_bw(&net, &g), 25e9, 1e-15, "two leaves");
}
END_TEST

/* What a spine costs depends on the pattern (docs/network-model.md,
 * "The spine"). 4:1, 50 GB/s NICs, one GPU a node. A leaf of L nodes has L x
 * 50 / 4 GB/s of uplinks; a ring leaves it once a direction, however many
 * of its k nodes sit there, so k nodes' traffic shares one node's
 * crossing: max(1, 4 / k). AlltoAll sends (N - k) / (N - 1) of each node's
 * traffic out of the leaf: max(1, 4 (N - k) / (N - 1)). A tree's
 * crossings are not counted: the whole 4. (A trial: 4 DGX H100 nodes, 2 a
 * leaf, 4:1 printed a ring's busbw 98 GB/s where the uplinks allow ~194.) */
START_TEST(test_oversubscribed_spine_by_pattern)
{
	struct dc_config c;
	struct dc_net net;
	struct dc_net_group g;
	fixture_json(&c, "{" MODEL ", \"cluster\": {\"num_nodes\": 12, \"gpus_per_node\": 1, \"gpu_memory\": \"80 GiB\","
			 " \"intra_node\": {\"bandwidth\": \"300 GB/s\"}, \"inter_node\": {\"bandwidth\": \"50 GB/s\"},"
			 " \"oversubscription\": 4, \"nodes_per_leaf\": 2}}");
	dc_net_init(&c, &net);
	/* nodes 0-3: two under each leaf, k 2 */
	dc_net_group_ranks(&net, 0, 1, 4, &g);
	ck_assert_int_eq(g.cross_leaf, 2);
	assert_rel(dc_net_leaf_slowdown(&net, &g, DC_NET_LEAF_RING), 2.0, 1e-15, "ring, k 2");
	assert_rel(dc_net_node_bw(&net, &g), 25e9, 1e-15, "ring rate, k 2");
	/* 4 x (4 - 2) / 3 = 8 / 3 */
	assert_rel(dc_net_leaf_slowdown(&net, &g, DC_NET_LEAF_ALL_TO_ALL), 8.0 / 3.0, 1e-15, "alltoall, k 2");
	assert_rel(dc_net_leaf_slowdown(&net, &g, DC_NET_LEAF_WHOLE), 4.0, 1e-15, "tree");
	/* nodes 1-4: one under leaf 0, two under leaf 1, one under leaf 2: k 1,
	 * the whole ratio for the ring too */
	dc_net_group_ranks(&net, 1, 1, 4, &g);
	ck_assert_int_eq(g.cross_leaf, 1);
	assert_rel(dc_net_node_bw(&net, &g), 12.5e9, 1e-15, "ring rate, k 1");
	/* nodes 0, 3, 6, 9 (stride 3, wider than a leaf): one a leaf */
	dc_net_group_ranks(&net, 0, 3, 4, &g);
	ck_assert_int_eq(g.cross_leaf, 1);
	/* leaves of 6 nodes: nodes 0-11 are two leaves of 6, k 6, 4 / 6
	 * below 1: no slowdown for a ring; AlltoAll 4 x 6 / 11 */
	net.nodes_per_leaf = 6;
	dc_net_group_ranks(&net, 0, 1, 12, &g);
	ck_assert_int_eq(g.cross_leaf, 6);
	assert_rel(dc_net_node_bw(&net, &g), 50e9, 1e-15, "ring, k 6");
	assert_rel(dc_net_leaf_slowdown(&net, &g, DC_NET_LEAF_ALL_TO_ALL), 24.0 / 11.0, 1e-15, "alltoall, k 6");
	/* nodes 4-9 under leaves of 6: 2 under leaf 0, 4 under leaf 1 */
	dc_net_group_ranks(&net, 4, 1, 6, &g);
	ck_assert_int_eq(g.cross_leaf, 2);
	/* every other node, 0-10: 3 under each leaf */
	dc_net_group_ranks(&net, 0, 2, 6, &g);
	ck_assert_int_eq(g.cross_leaf, 3);
	assert_rel(dc_net_node_bw(&net, &g), 50e9 / (4.0 / 3.0), 1e-15, "ring, k 3");
}
END_TEST

START_TEST(test_rails)
{
	/* 8 GPUs and 8 NICs a node: the tp-2 layout's DP group 0 holds local
	 * GPUs 0, 2, 4, 6 on each node, so 4 rails; with 2 NICs GPU i uses
	 * NIC i mod 2 and that group reaches only NIC 0, alone on it */
	struct dc_net net;
	struct dc_net_group g;
	system_net("dgx-h100", 2, &net);
	dc_net_group_progression(&net, 0, 2, 8, &g);
	ck_assert_uint_eq(g.nodes, 2);
	ck_assert_uint_eq(g.ranks_per_node, 4);
	ck_assert_uint_eq(g.rails, 4);
	ck_assert_uint_eq(g.concurrent, 1);
	net.nics_per_node = 2;
	dc_net_group_progression(&net, 0, 2, 8, &g);
	ck_assert_uint_eq(g.rails, 1);
	ck_assert_uint_eq(g.concurrent, 1);
	assert_rel(dc_net_node_bw(&net, &g), 50e9, 1e-15, "one rail");
	/* with tp 8 inside the node, DP groups are one rank per node and all
	 * eight share the 2 NICs 4 to a NIC */
	dc_net_group_progression(&net, 0, 8, 2, &g);
	ck_assert_uint_eq(g.rails, 1);
	ck_assert_uint_eq(g.concurrent, 4);
}
END_TEST

/* ---- nccl-tests' definitions ---- */

START_TEST(test_busbw_factors)
{
	/* doc/PERFORMANCE.md: AllReduce 2(n-1)/n, ReduceScatter, AllGather
	 * and AlltoAll (n-1)/n, Broadcast and send 1; on 8 ranks: 1.75,
	 * 0.875, 1 */
	struct dc_net net;
	static const enum dc_coll_kind ops[] = {DC_COLL_ALL_REDUCE, DC_COLL_REDUCE_SCATTER, DC_COLL_ALL_GATHER,
						DC_COLL_ALL_TO_ALL, DC_COLL_BROADCAST, DC_COLL_SEND};
	static const double want[] = {1.75, 0.875, 0.875, 0.875, 1, 1};
	system_net("dgx-h100", 1, &net);
	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		struct dc_net_choice ch = run(&net, ops[i], 8, 1u << 28, DC_NET_ALGO_AUTO);
		ck_assert(dc_net_busbw_factor(ops[i], 8) == want[i]);
		ck_assert(dc_net_busbw_factor(ops[i], 1) == 1);
		assert_rel(ch.algbw_bytes_per_s, (double)(1u << 28) / ch.time_s, 1e-15, dc_coll_kind_name(ops[i]));
		assert_rel(ch.busbw_bytes_per_s, ch.algbw_bytes_per_s * want[i], 1e-15, dc_coll_kind_name(ops[i]));
	}
	ck_assert(dc_net_busbw_factor(DC_COLL_ALL_REDUCE, 16) == 1.875);
	ck_assert(dc_net_busbw_factor(DC_COLL_ALL_GATHER, 2) == 0.5);
}
END_TEST

START_TEST(test_forced_and_trivial)
{
	struct dc_net net;
	struct dc_net_group g;
	struct dc_net_choice ch;
	system_net("dgx-h100", 2, &net);
	dc_net_group_ranks(&net, 0, 1, 16, &g);
	/* a tree runs AllReduce only */
	ck_assert_int_eq(dc_net_time(&net, DC_COLL_REDUCE_SCATTER, &g, 1u << 20, DC_NET_ALGO_TREE, &ch), -1);
	ck_assert_int_eq(dc_net_time(&net, DC_COLL_ALL_GATHER, &g, 1u << 20, DC_NET_ALGO_RING, &ch), 0);
	ck_assert_str_eq(ch.algorithm, "ring");
	/* net->algorithm (collective.algorithm) forces when the call does not */
	net.algorithm = DC_NET_ALGO_RING;
	ck_assert_int_eq(dc_net_time(&net, DC_COLL_ALL_REDUCE, &g, 1u << 30, DC_NET_ALGO_AUTO, &ch), 0);
	ck_assert_str_eq(ch.algorithm, "ring");
	/* one rank, or nothing to send, costs nothing */
	dc_net_group_ranks(&net, 0, 1, 1, &g);
	ck_assert_int_eq(dc_net_time(&net, DC_COLL_ALL_REDUCE, &g, 1u << 30, DC_NET_ALGO_AUTO, &ch), 0);
	ck_assert(ch.time_s == 0);
	ck_assert_str_eq(ch.algorithm, "none");
	ck_assert_str_eq(dc_net_algo_name(DC_NET_ALGO_HIER), "hierarchical");
	ck_assert_str_eq(dc_net_proto_name(DC_NET_PROTO_LL128), "LL128");
	{
		enum dc_net_algo a;
		ck_assert_int_eq(dc_net_algo_parse("nvls", &a), 0);
		ck_assert_int_eq(a, DC_NET_ALGO_NVLS);
		ck_assert_int_eq(dc_net_algo_parse("NVLS", &a), -1);
	}
}
END_TEST

/* ---- the presets ---- */

static int load_msg(const char *json, char *msg, size_t len, struct dc_config *c)
{
	struct dc_diag d;
	int rc;
	size_t k = 0;
	dc_diag_init(&d);
	rc = dc_config_load_buffer(json, strlen(json), "t.json", NULL, 0, c, &d);
	/* the first error, else the first message */
	while (k < d.count && d.entries[k].severity != DC_SEV_ERROR)
		k++;
	snprintf(msg, len, "%s", k < d.count ? d.entries[k].text : d.count ? d.entries[0].text : "");
	dc_diag_release(&d);
	return rc;
}

START_TEST(test_presets)
{
	/* DGX H100 user guide: 8 H100 80GB, NVLink 4 (18 links), NVLink
	 * SHARP, 8 ConnectX-7 at 400 Gb/s; NCCL's 20.6 GB/s per SM90 link */
	struct dc_config c;
	char msg[512];
	fixture_json(&c, "{" MODEL ", \"cluster\": {\"system\": \"dgx-h100\", \"num_nodes\": 4}}");
	ck_assert_uint_eq(c.cluster.gpus_per_node, 8);
	ck_assert_uint_eq(c.cluster.gpu_mem_bytes, 80ull << 30);
	ck_assert_int_eq(c.cluster.gpu, DC_GPU_H100_SXM5_80GB); /* the GPU preset, with its speeds */
	ck_assert(c.cluster.peak_flops > 0);
	ck_assert_uint_eq(c.cluster.nics_per_node, 8);
	ck_assert_uint_eq(c.cluster.nvlink_domain, 8);
	ck_assert_int_eq(c.cluster.nvls, 1);
	assert_rel(c.cluster.intra_node.bw_bytes_per_s, 370.8e9, 1e-12, "nvlink");
	assert_rel(c.cluster.inter_node.bw_bytes_per_s, 50e9, 1e-12, "nic");
	/* DGX A100: 12 NVLink 3 links at 20.0 GB/s, 8 x 200 Gb/s, no NVLS */
	fixture_json(&c, "{" MODEL ", \"cluster\": {\"system\": \"dgx-a100\", \"num_nodes\": 1}}");
	assert_rel(c.cluster.intra_node.bw_bytes_per_s, 240e9, 1e-12, "a100 nvlink");
	assert_rel(c.cluster.inter_node.bw_bytes_per_s, 25e9, 1e-12, "a100 nic");
	ck_assert_int_eq(c.cluster.nvls, 0);
	/* every value overridable */
	fixture_json(&c, "{" MODEL ", \"cluster\": {\"system\": \"dgx-h200\", \"num_nodes\": 1, \"nics_per_node\": 4,"
			 " \"nvls\": false, \"inter_node\": {\"bandwidth\": \"200 Gb/s\"}}}");
	ck_assert_uint_eq(c.cluster.nics_per_node, 4);
	ck_assert_int_eq(c.cluster.nvls, 0);
	ck_assert_int_eq(c.cluster.gpu, DC_GPU_H200_SXM_141GB);
	assert_rel(c.cluster.inter_node.bw_bytes_per_s, 25e9, 1e-12, "override");
	assert_rel(c.cluster.intra_node.bw_bytes_per_s, 370.8e9, 1e-12, "h200 nvlink");
	/* without a preset the links stay required */
	ck_assert_int_eq(load_msg("{" MODEL ", \"cluster\": {\"num_nodes\": 1, \"gpus_per_node\": 8,"
				  " \"gpu_memory\": \"80 GiB\"}}", msg, sizeof(msg), &c), -1);
	ck_assert_msg(strstr(msg, "'cluster.intra_node': required key is missing") != NULL, "%s", msg);
	ck_assert_int_eq(load_msg("{" MODEL ", \"cluster\": {\"system\": \"dgx-b300\", \"num_nodes\": 1}}", msg,
				  sizeof(msg), &c), -1);
	ck_assert_msg(strstr(msg, "'cluster.system': unknown value \"dgx-b300\"") != NULL, "%s", msg);
	ck_assert_int_eq(load_msg("{" MODEL ", \"cluster\": {\"system\": \"dgx-h100\", \"num_nodes\": 2,"
				  " \"nvlink_domain\": 12}}", msg, sizeof(msg), &c), -1);
	ck_assert_msg(strstr(msg, "'cluster.nvlink_domain': must be a multiple of cluster.gpus_per_node (8), got 12") !=
			      NULL, "%s", msg);
	/* the DGX's NVLink domain is its node, filled like the others: a
	 * domain across two nodes (an NVLink Switch System) is the config's
	 * to give, and says what it overrides */
	fixture_json(&c, "{" MODEL ", \"cluster\": {\"system\": \"dgx-h100\", \"num_nodes\": 2}}");
	ck_assert_uint_eq(c.cluster.nvlink_domain, 8);
	ck_assert_int_eq(load_msg("{" MODEL ", \"cluster\": {\"system\": \"dgx-h100\", \"num_nodes\": 2,"
				  " \"nvlink_domain\": 16}}", msg, sizeof(msg), &c), 0);
	ck_assert_str_eq(msg, "t.json: 'cluster.nvlink_domain': 16 from the config overrides 8 that cluster.system \"dgx-h100\" would fill");
	ck_assert_int_eq(load_msg("{" MODEL ", \"cluster\": {\"system\": \"dgx-h100\", \"num_nodes\": 2,"
				  " \"oversubscription\": 0.5}}", msg, sizeof(msg), &c), -1);
	ck_assert_msg(strstr(msg, "'cluster.oversubscription'") != NULL, "%s", msg);
	/* collective.algorithm names the model's algorithms */
	fixture_json(&c, "{" MODEL ", \"cluster\": {\"system\": \"dgx-h100\", \"num_nodes\": 2},"
			 " \"collective\": {\"algorithm\": \"hierarchical\"}}");
	ck_assert_int_eq(c.collective.algorithm, DC_NET_ALGO_HIER);
	ck_assert_int_eq(load_msg("{" MODEL ", \"cluster\": {\"system\": \"dgx-h100\", \"num_nodes\": 2},"
				  " \"collective\": {\"algorithm\": \"collnet\"}}", msg, sizeof(msg), &c), -1);
	/* NCCL's own name is a hint, never an alias */
	ck_assert_msg(strstr(msg, "'collective.algorithm': unknown value \"collnet\"; did you mean \"hierarchical\" (NCCL's CollNet, with cluster.collnet)? (expected one of \"auto\", \"ring\", \"hierarchical\", \"tree\", \"nvls\", \"pat\")") != NULL, "%s", msg);
}
END_TEST

START_TEST(test_cloud_presets)
{
	/* each figure from the provider's documentation (docs/network-model.md,
	 * "Systems"): GPUs, NICs and the NIC's line rate per node, the fabric */
	static const struct {
		const char *name;
		enum dc_gpu gpu;
		uint64_t nics;
		double nic_gbps;
		enum dc_network network;
	} want[] = {
		{"aws-p5", DC_GPU_H100_SXM5_80GB, 32, 100, DC_NETWORK_EFA},
		{"aws-p5e", DC_GPU_H200_SXM_141GB, 32, 100, DC_NETWORK_EFA},
		{"gcp-a3-mega", DC_GPU_H100_SXM5_80GB, 8, 200, DC_NETWORK_TCPXO},
		{"azure-nd-h100-v5", DC_GPU_H100_SXM5_80GB, 8, 400, DC_NETWORK_IB},
		{"oci-bm-gpu-h100", DC_GPU_H100_SXM5_80GB, 16, 200, DC_NETWORK_ROCE},
	};
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		struct dc_config c;
		struct dc_net net;
		struct dc_net_group g;
		fixture_json(&c, "{" MODEL ", \"cluster\": {\"system\": \"%s\", \"num_nodes\": 2}}", want[i].name);
		ck_assert_uint_eq(c.cluster.gpus_per_node, 8);
		ck_assert_int_eq(c.cluster.gpu, want[i].gpu);
		ck_assert_uint_eq(c.cluster.nics_per_node, want[i].nics);
		assert_rel(c.cluster.inter_node.bw_bytes_per_s, want[i].nic_gbps * 1e9 / 8, 1e-12, want[i].name);
		ck_assert_int_eq(c.cluster.network, want[i].network);
		/* a node's share of a 16-rank group: every NIC */
		dc_net_init(&c, &net);
		dc_net_group_ranks(&net, 0, 1, 16, &g);
		assert_rel(dc_net_node_bw(&net, &g), (double)want[i].nics * want[i].nic_gbps * 1e9 / 8, 1e-12,
			   want[i].name);
	}
	/* the p5's EFA: 20 us of plugin latency a network hop (aws-ofi-nccl's
	 * TUNER_NET_LATENCY; twice for Simple), 2 us of CPU overhead. 8 B
	 * AllReduce on 2 x 8: the tree with LL, 6.8 + 2 x (7 x 0.6 + 5.0 + 20)
	 * = 65.2 us (measured EFA floors: 63-65 us, issue 22), plus 8 B on one
	 * channel of 32 (2 x 32 NICs, at most 32) of the full-channel rate
	 * min(370.8 / 2 x 0.92 / 3.8 = 44.886, LL's ceiling 22.5 / 2) = 11.25
	 * GB/s: 11.25 / 32 GB/s. 22.5 is NCCL's AMD row of llMaxBws on two
	 * nodes (tuning.cc v2.26.2 L151-156, L218-220: the hosts' vendor, as
	 * the 2 us overhead's; a trial found the Intel row's 39.0 here) */
	{
		struct dc_net net;
		struct dc_net_choice ch;
		system_net("aws-p5", 2, &net);
		ck_assert_uint_eq(net.channels, 32);
		ch = run(&net, DC_COLL_ALL_REDUCE, 16, 8, DC_NET_ALGO_AUTO);
		ck_assert_str_eq(ch.algorithm, "tree");
		ck_assert_str_eq(ch.protocol, "LL");
		assert_rel(ch.time_s, 65.2e-6 + 8.0 / (11.25e9 / 32), 1e-12, "p5 8 B");
		/* on 4 nodes: 6.8 + 2 x (7 x 0.6 + log2(4) x (5.0 + 20)) = 115.2
		 * us, and AMD's ceiling on more than two nodes, 19.0 / 2 GB/s
		 * over the channels, on one of 32 */
		system_net("aws-p5", 4, &net);
		ch = run(&net, DC_COLL_ALL_REDUCE, 32, 8, DC_NET_ALGO_AUTO);
		ck_assert_str_eq(ch.algorithm, "tree");
		ck_assert_str_eq(ch.protocol, "LL");
		assert_rel(ch.time_s, 115.2e-6 + 8.0 / (9.5e9 / 32), 1e-12, "p5 4 nodes 8 B");
	}
}
END_TEST

/* FP8 elements (the collectives sweep's collective.dtype f8e4m3 /
 * f8e5m2): NCCL's tuner multiplies the ring's cost by 1024 over more than
 * 8 ranks, for the pick alone (src/enqueue.cc v2.26.2 L1678-1684). On 4 x
 * 8 H100 a 1 GiB AllReduce is the ring's in BF16; in FP8 the cheapest
 * other algorithm's, at that algorithm's own price; on 8 ranks, or for
 * sends, nothing changes. A trial found FP8 priced as BF16. */
START_TEST(test_fp8_relegates_ring)
{
	struct dc_net net;
	struct dc_net_choice plain, fp8, tree, nvls, other;
	const uint64_t S = 1ull << 30;
	system_net("dgx-h100", 4, &net);
	plain = run(&net, DC_COLL_ALL_REDUCE, 32, S, DC_NET_ALGO_AUTO);
	ck_assert_str_eq(plain.algorithm, "ring");
	tree = run(&net, DC_COLL_ALL_REDUCE, 32, S, DC_NET_ALGO_TREE);
	nvls = run(&net, DC_COLL_ALL_REDUCE, 32, S, DC_NET_ALGO_NVLS);
	other = tree.time_s <= nvls.time_s ? tree : nvls;
	ck_assert(other.time_s > plain.time_s); /* the ring was the cheapest */
	net.fp8_data = 1;
	fp8 = run(&net, DC_COLL_ALL_REDUCE, 32, S, DC_NET_ALGO_AUTO);
	ck_assert_str_eq(fp8.algorithm, other.algorithm);
	ck_assert_str_eq(fp8.protocol, other.protocol);
	ck_assert(fp8.time_s == other.time_s);
	/* 8 ranks: the ring stays where it wins */
	net.fp8_data = 0;
	plain = run(&net, DC_COLL_ALL_GATHER, 8, S, DC_NET_ALGO_AUTO);
	net.fp8_data = 1;
	fp8 = run(&net, DC_COLL_ALL_GATHER, 8, S, DC_NET_ALGO_AUTO);
	ck_assert_str_eq(fp8.algorithm, plain.algorithm);
	ck_assert(fp8.time_s == plain.time_s);
	/* a forced ring is priced as the ring: the factor is the pick's */
	fp8 = run(&net, DC_COLL_ALL_REDUCE, 32, S, DC_NET_ALGO_RING);
	net.fp8_data = 0;
	plain = run(&net, DC_COLL_ALL_REDUCE, 32, S, DC_NET_ALGO_RING);
	ck_assert(fp8.time_s == plain.time_s);
}
END_TEST

START_TEST(test_nvlink_domain_spans_nodes)
{
	/* an NVL72-style rack: 18 nodes x 4 GPUs in one NVLink domain; a
	 * group of 8 ranks on two nodes of it talks over NVLink only */
	struct dc_config c;
	struct dc_net net;
	struct dc_net_group g;
	fixture_json(&c, "{" MODEL ", \"cluster\": {\"num_nodes\": 18, \"gpus_per_node\": 4, \"gpu_memory\": \"80 GiB\","
			 " \"intra_node\": {\"bandwidth\": \"900 GB/s\"}, \"inter_node\": {\"bandwidth\": \"50 GB/s\"},"
			 " \"nvlink_domain\": 72}}");
	dc_net_init(&c, &net);
	dc_net_group_ranks(&net, 0, 1, 8, &g);
	ck_assert_uint_eq(g.nodes, 1);
	ck_assert_uint_eq(g.ranks_per_node, 8);
}
END_TEST

/* Groups across NVLink domains (docs/network-model.md, "Groups across
 * NVLink domains"): 36 trays of 4 GPUs, 720 GB/s NVLink, one 50 GB/s NIC
 * per GPU, Ampere caps (no cluster.gpu), 8 channels; S = 1 GiB. */
static void nvl_net(uint64_t domain, struct dc_net *net)
{
	struct dc_config c;
	fixture_json(&c, "{" MODEL ", \"cluster\": {\"num_nodes\": 36, \"gpus_per_node\": 4, \"gpu_memory\": \"80 GiB\","
			 " \"intra_node\": {\"bandwidth\": \"720 GB/s\", \"latency\": \"3.4 us\"},"
			 " \"inter_node\": {\"bandwidth\": \"400 Gb/s\", \"latency\": \"14 us\"},"
			 " \"nvlink_domain\": %llu}}", (unsigned long long)domain);
	dc_net_init(&c, net);
}

START_TEST(test_groups_across_nvlink_domains)
{
	const double S = 1073741824.0;
	struct dc_net net;
	struct dc_net_group g, aligned;
	struct dc_net_choice ch;

	/* domain 72, ranks 64-79: 8 on rack 0, 8 on rack 1, 8 NICs a side.
	 * AlltoAll (p2p, Simple): a rank sends 7/16 S over NVLink and 8/16 S
	 * through its own NIC (400 GB/s / 8 ranks), the NIC sets it: 8.4 us +
	 * 14 us (one network hop) + S / 2 / 50 GB/s = 10.759818 ms */
	nvl_net(72, &net);
	dc_net_group_progression(&net, 64, 1, 16, &g);
	ck_assert_uint_eq(g.nodes, 2);
	ck_assert_uint_eq(g.ranks_per_node, 8);
	ck_assert_uint_eq(g.ranks_least, 8);
	ck_assert_uint_eq(g.rails, 8);
	ck_assert_uint_eq(g.concurrent, 1);
	assert_rel(dc_net_node_bw(&net, &g), 400e9, 1e-15, "8 NICs");
	ck_assert_int_eq(dc_net_time(&net, DC_COLL_ALL_TO_ALL, &g, (uint64_t)S, DC_NET_ALGO_AUTO, &ch), 0);
	ck_assert_str_eq(ch.protocol, "Simple");
	assert_rel(ch.time_s, 22.4e-6 + S / 2 / 50e9, 1e-12, "alltoall 8 | 8");
	/* a ring AllReduce over it: min(720, 400) GB/s; latency (8.4 + 28 x
	 * 3.4 + 2 x 14) x 1.4 = 184.24 us; 2 x 15/16 x S / 400 GB/s =
	 * 5.0331648 ms */
	ck_assert_int_eq(dc_net_time(&net, DC_COLL_ALL_REDUCE, &g, (uint64_t)S, DC_NET_ALGO_RING, &ch), 0);
	ck_assert_str_eq(ch.protocol, "Simple");
	assert_rel(ch.time_s, 184.24e-6 + 2.0 * 15.0 / 16.0 * S / 400e9, 1e-12, "ring 8 | 8");
	/* the same shape as an aligned group of two 8-GPU domains */
	nvl_net(8, &net);
	dc_net_group_progression(&net, 0, 1, 16, &aligned);
	ck_assert_uint_eq(aligned.nodes, g.nodes);
	ck_assert_uint_eq(aligned.ranks_per_node, g.ranks_per_node);
	ck_assert_uint_eq(aligned.rails, g.rails);
	ck_assert_uint_eq(aligned.concurrent, g.concurrent);

	/* domain 72, ranks 0-15: inside rack 0, unchanged: NVLink alone,
	 * 8.4 + 3.4 us + 15/16 S / 720 GB/s */
	nvl_net(72, &net);
	dc_net_group_progression(&net, 0, 1, 16, &g);
	ck_assert_uint_eq(g.nodes, 1);
	ck_assert_uint_eq(g.ranks_per_node, 16);
	ck_assert_uint_eq(g.ranks_least, 16);
	ck_assert_int_eq(dc_net_time(&net, DC_COLL_ALL_TO_ALL, &g, (uint64_t)S, DC_NET_ALGO_AUTO, &ch), 0);
	assert_rel(ch.time_s, 11.8e-6 + 15.0 / 16.0 * S / 720e9, 1e-12, "alltoall in a domain");
	/* one domain of 144 prices ranks 64-79 the same way */
	nvl_net(144, &net);
	dc_net_group_progression(&net, 64, 1, 16, &g);
	ck_assert_uint_eq(g.nodes, 1);
	ck_assert_int_eq(dc_net_time(&net, DC_COLL_ALL_TO_ALL, &g, (uint64_t)S, DC_NET_ALGO_AUTO, &ch), 0);
	assert_rel(ch.time_s, 11.8e-6 + 15.0 / 16.0 * S / 720e9, 1e-12, "alltoall in one 144 domain");

	/* domain 36, ranks 32-47: 4 on domain 0, 12 on domain 1. The 4-rank
	 * side is the slowest: each of its ranks sends 12/16 S through its
	 * NIC, 22.4 us + 0.75 S / 50 GB/s = 16.128527 ms; the crossing has
	 * that side's 4 NICs, 200 GB/s, so the ring takes 2 x 15/16 S /
	 * 200 GB/s = 10.0663296 ms + 184.24 us */
	nvl_net(36, &net);
	dc_net_group_progression(&net, 32, 1, 16, &g);
	ck_assert_uint_eq(g.nodes, 2);
	ck_assert_uint_eq(g.ranks_per_node, 12);
	ck_assert_uint_eq(g.ranks_least, 4);
	ck_assert_uint_eq(g.rails, 4);
	assert_rel(dc_net_node_bw(&net, &g), 200e9, 1e-15, "4 NICs");
	ck_assert_int_eq(dc_net_time(&net, DC_COLL_ALL_TO_ALL, &g, (uint64_t)S, DC_NET_ALGO_AUTO, &ch), 0);
	assert_rel(ch.time_s, 22.4e-6 + 0.75 * S / 50e9, 1e-12, "alltoall 4 | 12");
	ck_assert_int_eq(dc_net_time(&net, DC_COLL_ALL_REDUCE, &g, (uint64_t)S, DC_NET_ALGO_RING, &ch), 0);
	assert_rel(ch.time_s, 184.24e-6 + 2.0 * 15.0 / 16.0 * S / 200e9, 1e-12, "ring 4 | 12");
	/* uneven: the hierarchy cannot run it (it needs equal domains) */
	ck_assert_int_eq(dc_net_time(&net, DC_COLL_ALL_REDUCE, &g, (uint64_t)S, DC_NET_ALGO_HIER, &ch), -1);
}
END_TEST

/* A group whose stride does not divide the domain (docs/network-model.md,
 * "Groups across NVLink domains", "Its counts"): 128 trays of 4 GPUs,
 * 4 NICs of 50 GB/s a tray, domains of 72. DP group 0 of tp 4, pp 4,
 * dp 32 in order tp-pp-cp-ep-dp is ranks 0, 16, ..., 496 (stride 16):
 *   domain 0 (0-71):     0, 16, 32, 48, 64       5
 *   domain 1 (72-143):   80, 96, 112, 128        4
 *   domain 2 (144-215):  144, ..., 208           5
 *   domain 3 (216-287):  224, 240, 256, 272      4
 *   domain 4 (288-359):  288, ..., 352           5
 *   domain 5 (360-431):  368, 384, 400, 416      4
 *   domain 6 (432-503):  432, ..., 496           5
 * Its ends hold 5 = ceil(72 / 16), its middle domains 1, 3 and 5 only 4:
 * r = 5, r_min = 4, and the least-filled domain (1) has 4 members on 4
 * trays, each on NIC 0 of its tray (local index 0): 4 rails, 200 GB/s. */
static void tray_net(uint64_t nodes, struct dc_net *net)
{
	struct dc_config c;
	fixture_json(&c, "{" MODEL ", \"cluster\": {\"num_nodes\": %llu, \"gpus_per_node\": 4, \"gpu_memory\": \"80 GiB\","
			 " \"nics_per_node\": 4, \"intra_node\": {\"bandwidth\": \"720 GB/s\", \"latency\": \"3.4 us\"},"
			 " \"inter_node\": {\"bandwidth\": \"400 Gb/s\", \"latency\": \"14 us\"},"
			 " \"nvlink_domain\": 72}}", (unsigned long long)nodes);
	dc_net_init(&c, net);
}

START_TEST(test_short_middle_domain)
{
	struct dc_net net;
	struct dc_net_group g;

	tray_net(128, &net);
	dc_net_group_progression(&net, 0, 16, 32, &g);
	ck_assert_uint_eq(g.ranks, 32);
	ck_assert_uint_eq(g.nodes, 7);
	ck_assert_uint_eq(g.ranks_per_node, 5);
	ck_assert_uint_eq(g.ranks_least, 4);
	ck_assert_uint_eq(g.rails, 4);
	ck_assert_uint_eq(g.concurrent, 1);
	assert_rel(dc_net_node_bw(&net, &g), 200e9, 1e-15, "4 NICs of the 4-rank domain");

	/* stride 64 on the same domains, 64 ranks from 32810 (tray 8202,
	 * local index 2): 64 < 72, so a domain holds 1 or 2 of them. Domain
	 * 455 (32760-32831) holds 32810 alone, 456 (32832-32903) 32874 alone,
	 * the last, 511 (36792-36863), 36842 alone; domain 461 (33192-33263)
	 * holds 33194 and 33258 (32810 + 6 x 64 and + 7 x 64). 57 domains
	 * (455-511), r = 2, r_min = 1: domain 455's one rank, NIC 2 of its
	 * tray, 1 rail, 50 GB/s */
	tray_net(9216, &net);
	dc_net_group_progression(&net, 32810, 64, 64, &g);
	ck_assert_uint_eq(g.nodes, 57);
	ck_assert_uint_eq(g.ranks_per_node, 2);
	ck_assert_uint_eq(g.ranks_least, 1);
	ck_assert_uint_eq(g.rails, 1);
	assert_rel(dc_net_node_bw(&net, &g), 50e9, 1e-15, "1 NIC");
}
END_TEST

/* The NICs the members of `rank`'s node use, as a mask: GPU i of a node
 * uses NIC i mod nics, and with more NICs than GPUs its own nics / gpn
 * (docs/network-model.md, "Every NIC"; nics <= 64). */
static uint64_t nic_mask(uint64_t rank, uint64_t gpn, uint64_t nics)
{
	uint64_t i = rank % gpn, per = nics / gpn;
	if (nics <= gpn)
		return 1ull << (i % nics);
	return (per == 64 ? ~0ull : (1ull << per) - 1) << (i * per);
}

/* Every progression's per-domain counts, rank by rank: random first
 * ranks, strides, sizes, nodes, NICs and domains (short middle domains,
 * straddled ends, strides of a domain or more), against the domains the
 * members fall in. The busiest and least counts always; the rails (the
 * lowest-numbered least-filled domain's distinct NICs, node by node)
 * whenever the counts differ. */
START_TEST(test_domain_counts_brute_force)
{
	static const uint64_t gpns[] = {1, 2, 4, 6, 8};
	static const uint64_t nicss[] = {1, 2, 3, 4, 8, 16, 32};
	struct dc_net net;
	struct dc_rng rng;
	uint64_t uneven = 0, short_middle = 0;

	tray_net(128, &net);
	dc_rng_seed(&rng, 72);
	for (int it = 0; it < 200000; it++) {
		uint64_t gpn = gpns[dc_rng_range(&rng, 0, 4)], nics = nicss[dc_rng_range(&rng, 0, 6)];
		uint64_t dom = gpn * dc_rng_range(&rng, 1, 20), stride = dc_rng_range(&rng, 1, 2 * dom + 1);
		uint64_t size = dc_rng_range(&rng, 2, 80), first = dc_rng_range(&rng, 0, 40000);
		uint64_t doms = 0, most = 0, least = UINT64_MAX, at = 0, run = 0, rails = 0, mask = 0;
		struct dc_net_group g;

		if (gpn % nics && nics % gpn)
			continue;
		net.gpus_per_node = gpn;
		net.nics_per_node = nics;
		net.nvlink_domain = dom;
		dc_net_group_ranks(&net, first, stride, size, &g);
		/* members increase: a domain's members are a run */
		for (uint64_t k = 0; k < size; k++) {
			uint64_t d = (first + k * stride) / dom;
			run++;
			if (k + 1 < size && (first + (k + 1) * stride) / dom == d)
				continue;
			doms++;
			most = run > most ? run : most;
			if (run < least) {
				least = run;
				at = d;
			}
			short_middle += k + 1 < size && k + 1 > run && run < (dom + stride - 1) / stride;
			run = 0;
		}
		ck_assert_msg(g.nodes == doms && g.ranks_per_node == most && g.ranks_least == least,
			      "first %llu stride %llu size %llu dom %llu: domains %llu, r %llu, r_min %llu;"
			      " want %llu, %llu, %llu",
			      (unsigned long long)first, (unsigned long long)stride, (unsigned long long)size,
			      (unsigned long long)dom, (unsigned long long)g.nodes,
			      (unsigned long long)g.ranks_per_node, (unsigned long long)g.ranks_least,
			      (unsigned long long)doms, (unsigned long long)most, (unsigned long long)least);
		if (most == least)
			continue;
		uneven++;
		for (uint64_t k = 0; k < size; k++) {
			uint64_t rank = first + k * stride;
			if (rank / dom != at)
				continue;
			mask |= nic_mask(rank, gpn, nics);
			if (k + 1 == size || (rank + stride) / gpn != rank / gpn || (rank + stride) / dom != at) {
				rails += (uint64_t)__builtin_popcountll(mask);
				mask = 0;
			}
		}
		ck_assert_msg(g.rails == rails,
			      "first %llu stride %llu size %llu dom %llu gpn %llu nics %llu: rails %llu, want %llu",
			      (unsigned long long)first, (unsigned long long)stride, (unsigned long long)size,
			      (unsigned long long)dom, (unsigned long long)gpn, (unsigned long long)nics,
			      (unsigned long long)g.rails, (unsigned long long)rails);
	}
	/* the draw covers what it is for */
	ck_assert_uint_gt(uneven, 10000);
	ck_assert_uint_gt(short_middle, 1000);
}
END_TEST

/* ---- groups of two axes not adjacent in the order ---- */

/* Mixtral-8x7B on 4 nodes x 8 H100, 8 x 400 Gb/s NICs a node, tp 1, cp 2,
 * pp 8, dp 2, order tp-cp-pp-ep-dp: cp stride 1, pp 2, dp 16, so the dp x
 * cp group (the dense gradients' sync) is the lattice {0, 1} + {0, 16} =
 * 0, 1, 16, 17 (it was first a trial's experts' FSDP group, tp 1, cp 2,
 * dp 16, ep 8, before experts with cp were folded: docs/network-model.md,
 * "Groups of two axes"): nodes 0 and 2, two ranks each on GPUs 0 and 1, so
 * NICs 0 and 1 (two rails); every GPU of a node sits in such a group, a
 * NIC's one GPU of it: concurrent 1. Its node reaches 2 x 50 = 100 GB/s
 * between nodes. A ring AllGather of S = 352,321,536 B (the whole array)
 * crosses the nodes on two of its four hops; each hop carries
 * (p - 1) / p S = 264,241,152 B, at 100 GB/s 2.64241152 ms, plus the
 * ring's base latency under Simple, 8.4 us, every hop latency zeroed:
 * 2.65081152 ms (0..3, one progression at the finer stride, would stay
 * on NVLink). The same bytes on ranks 0, 8, 16, 24 (one a node, one
 * NIC): 8.4 us + 264,241,152 / 50e9 = 5.29322304 ms. */
START_TEST(test_lattice_mixtral_cp2)
{
	struct dc_config c;
	struct dc_net net;
	struct dc_net_group g, line;
	struct dc_net_choice ch;
	const uint64_t S = 352321536;

	fixture_json(&c, "{" MODEL ", \"cluster\": {\"num_nodes\": 4, \"gpus_per_node\": 8, \"gpu_memory\": \"80 GiB\","
			 " \"intra_node\": {\"bandwidth\": \"450 GB/s\"}, \"inter_node\": {\"bandwidth\": \"400 Gb/s\"},"
			 " \"nics_per_node\": 8}}");
	dc_net_init(&c, &net);
	net.nvlink_latency_s = 0;
	net.net_latency_s = 0;
	net.plugin_latency_s = 0;
	net.net_overhead_s = 0;
	memset(net.ramp, 0, sizeof(net.ramp));
	dc_net_group_lattice(&net, 0, 1, 2, 16, 2, &g);
	ck_assert_uint_eq(g.ranks, 4);
	ck_assert_uint_eq(g.nodes, 2);
	ck_assert_uint_eq(g.ranks_per_node, 2);
	ck_assert_uint_eq(g.ranks_least, 2);
	ck_assert_uint_eq(g.rails, 2);
	ck_assert_uint_eq(g.concurrent, 1);
	ck_assert_int_eq(g.cross_leaf, 0);
	assert_rel(dc_net_node_bw(&net, &g), 100e9, 1e-15, "two NICs");
	ck_assert_int_eq(dc_net_time(&net, DC_COLL_ALL_GATHER, &g, S, DC_NET_ALGO_RING, &ch), 0);
	ck_assert_str_eq(ch.protocol, "Simple");
	assert_rel(ch.time_s, 8.4e-6 + 264241152.0 / 100e9, 1e-12, "cp 2 gather");
	assert_rel(ch.time_s, 2.65081152e-3, 1e-12, "cp 2 gather, figure");
	/* one progression 0..3 sits on one node */
	dc_net_group_progression(&net, 0, 1, 4, &line);
	ck_assert_uint_eq(line.nodes, 1);
	/* 0, 8, 16, 24 */
	dc_net_group_progression(&net, 0, 8, 4, &line);
	ck_assert_int_eq(dc_net_time(&net, DC_COLL_ALL_GATHER, &line, S, DC_NET_ALGO_RING, &ch), 0);
	assert_rel(ch.time_s, 5.29322304e-3, 1e-12, "cp 1 gather");
	/* a na = b (cp next to dp: 0..3 at stride 1), or an axis of one:
	 * the progression's shape, bit for bit */
	dc_net_group_lattice(&net, 0, 1, 2, 2, 2, &g);
	dc_net_group_progression(&net, 0, 1, 4, &line);
	ck_assert(memcmp(&g, &line, sizeof(g)) == 0);
	dc_net_group_lattice(&net, 3, 1, 1, 16, 2, &g);
	dc_net_group_progression(&net, 3, 16, 2, &line);
	ck_assert(memcmp(&g, &line, sizeof(g)) == 0);
	dc_net_group_lattice(&net, 3, 2, 4, 16, 1, &g);
	dc_net_group_progression(&net, 3, 2, 4, &line);
	ck_assert(memcmp(&g, &line, sizeof(g)) == 0);
}
END_TEST

/* Every lattice's shape against its members counted rank by rank: random
 * first ranks, strides, sizes, node sizes, NICs and domains (multiples of
 * a node and divisors of one; clusters straddling a domain or not,
 * clusters wider than a domain, several clusters a domain): domains, the
 * busiest and least-filled domain's counts, the least-filled
 * (lowest-numbered) domain's distinct NICs node by node, the leaf span,
 * and the concurrency a progression's rule gives for them. */
START_TEST(test_lattice_brute_force)
{
	static const uint64_t gpns[] = {1, 2, 4, 6, 8};
	static const uint64_t nicss[] = {1, 2, 3, 4, 8, 16, 32};
	static uint64_t count[4096];
	struct dc_net net;
	struct dc_rng rng;
	uint64_t straddled = 0, shared = 0, uneven = 0;

	tray_net(128, &net);
	net.nodes_per_leaf = 4;
	dc_rng_seed(&rng, 2);
	for (int it = 0; it < 40000; it++) {
		uint64_t gpn = gpns[dc_rng_range(&rng, 0, 4)], nics = nicss[dc_rng_range(&rng, 0, 6)];
		uint64_t dom = dc_rng_range(&rng, 0, 3) ? gpn * dc_rng_range(&rng, 1, 12) : 0;
		uint64_t a, na, b, nb, first, last, lo, doms = 0, most = 0, least = UINT64_MAX, at = 0;
		uint64_t rails = 0, mask = 0, node = UINT64_MAX, conc = 1, crossed = 0;
		int small;
		struct dc_net_group g;

		if (gpn % nics && nics % gpn)
			continue;
		if (!dom) { /* a divisor of the node */
			do
				dom = dc_rng_range(&rng, 1, gpn);
			while (gpn % dom);
		}
		/* half the draws small clusters, several of them a domain */
		small = dc_rng_range(&rng, 0, 1);
		a = small ? dc_rng_range(&rng, 1, dom / 4 + 1) : dc_rng_range(&rng, 1, 2 * dom + 2);
		na = dc_rng_range(&rng, 2, small ? 4 : 9);
		b = a * na + dc_rng_range(&rng, 1, small ? dom / 2 + 1 : 3 * dom + 3);
		nb = dc_rng_range(&rng, 2, 12);
		first = dc_rng_range(&rng, 0, 3000);
		last = first + (nb - 1) * b + (na - 1) * a;
		lo = first / dom;
		if (last / dom - lo >= 4096)
			continue;
		net.gpus_per_node = gpn;
		net.nics_per_node = nics;
		net.nvlink_domain = dom;
		dc_net_group_lattice(&net, first, a, na, b, nb, &g);
		memset(count, 0, (last / dom - lo + 1) * sizeof(count[0]));
		for (uint64_t j = 0; j < nb; j++) {
			uint64_t c = first + j * b;
			crossed += c / dom != (c + (na - 1) * a) / dom;
			for (uint64_t i = 0; i < na; i++)
				count[(c + i * a) / dom - lo]++;
		}
		for (uint64_t d = 0; d <= last / dom - lo; d++) {
			if (!count[d])
				continue;
			doms++;
			most = count[d] > most ? count[d] : most;
			if (count[d] < least) {
				least = count[d];
				at = d + lo;
			}
		}
		straddled += crossed > 0;
		shared += b < dom;
		uneven += most != least;
		for (uint64_t j = 0; j < nb; j++)
			for (uint64_t i = 0; i < na; i++) {
				uint64_t r = first + j * b + i * a;
				if (r / dom != at)
					continue;
				if (r / gpn != node) {
					rails += (uint64_t)__builtin_popcountll(mask);
					mask = 0;
					node = r / gpn;
				}
				mask |= nic_mask(r, gpn, nics);
			}
		rails += (uint64_t)__builtin_popcountll(mask);
		if (doms > 1 && gpn >= nics)
			conc = (gpn * rails + nics * least - 1) / (nics * least);
		ck_assert_msg(g.ranks == na * nb && g.nodes == doms && g.ranks_per_node == most &&
				      g.ranks_least == least && g.rails == rails && g.concurrent == conc &&
				      g.cross_leaf == (first / gpn / 4 != last / gpn / 4),
			      "first %llu a %llu na %llu b %llu nb %llu gpn %llu dom %llu nics %llu: domains %llu"
			      " r %llu least %llu rails %llu conc %llu; want %llu %llu %llu %llu %llu",
			      (unsigned long long)first, (unsigned long long)a, (unsigned long long)na,
			      (unsigned long long)b, (unsigned long long)nb, (unsigned long long)gpn,
			      (unsigned long long)dom, (unsigned long long)nics, (unsigned long long)g.nodes,
			      (unsigned long long)g.ranks_per_node, (unsigned long long)g.ranks_least,
			      (unsigned long long)g.rails, (unsigned long long)g.concurrent, (unsigned long long)doms,
			      (unsigned long long)most, (unsigned long long)least, (unsigned long long)rails,
			      (unsigned long long)conc);
	}
	/* the draw covers what it is for */
	ck_assert_uint_gt(straddled, 15000);
	ck_assert_uint_gt(shared, 3500);
	ck_assert_uint_gt(uneven, 8000);
}
END_TEST

static Suite *net_suite(void)
{
	Suite *s = suite_create("net");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, test_log_h100_2x8_large_sizes);
	tcase_add_test(tc, test_one_node_figures);
	tcase_add_test(tc, test_worked_example_ring);
	tcase_add_test(tc, test_worked_example_hierarchical);
	tcase_add_test(tc, test_small_messages_take_a_low_latency_protocol);
	tcase_add_test(tc, test_ll_ceiling_bounds_every_channel);
	tcase_add_test(tc, test_protocols_key);
	tcase_add_test(tc, test_contention_halves_a_shared_nic);
	tcase_add_test(tc, test_default_config_dp_follows_its_nics);
	tcase_add_test(tc, test_selene_dp_bucket_one_gpu_per_node);
	tcase_add_test(tc, test_default_channels_shown);
	tcase_add_test(tc, test_oversubscribed_spine);
	tcase_add_test(tc, test_oversubscribed_spine_by_pattern);
	tcase_add_test(tc, test_rails);
	tcase_add_test(tc, test_busbw_factors);
	tcase_add_test(tc, test_forced_and_trivial);
	tcase_add_test(tc, test_presets);
	tcase_add_test(tc, test_nvlink_domain_spans_nodes);
	tcase_add_test(tc, test_groups_across_nvlink_domains);
	tcase_add_test(tc, test_short_middle_domain);
	tcase_add_test(tc, test_domain_counts_brute_force);
	tcase_add_test(tc, test_log_h100_4x8_large_sizes);
	tcase_add_test(tc, test_channels_used);
	tcase_add_test(tc, test_channel_cap);
	tcase_add_test(tc, test_size_factor);
	tcase_add_test(tc, test_ramp_factor);
	tcase_add_test(tc, test_pat_one_gpu_per_node);
	tcase_add_test(tc, test_every_nic);
	tcase_add_test(tc, test_channels_reach_nics);
	tcase_add_test(tc, test_cloud_presets);
	tcase_add_test(tc, test_fp8_relegates_ring);
	tcase_add_test(tc, test_lattice_mixtral_cp2);
	tcase_add_test(tc, test_lattice_brute_force);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(net_suite());
	int failed;
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
