/* check_net_memo.c - the collective-price memo (net.h, dc_net_time_memo).
 *
 * The memo is a cache: every call through it must return what
 * dc_net_time returns for the same arguments, bit for bit, whichever
 * network it was bound to before, whatever slot a call lands in and
 * whether the call fails. The reference is dc_net_time itself, called
 * directly; no figure here comes from the memo alone.
 */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "distcalc/config.h"
#include "distcalc/net.h"

#include "fixtures.h"

#define MODEL "\"model\": {\"num_layers\": 2, \"hidden_size\": 64, \"num_attention_heads\": 4," \
	      " \"vocab_size\": 100, \"seq_length\": 16}"

static struct dc_net_memo memo; /* 4096 slots: static, not on the stack */

static void two_nets(struct dc_net *a, struct dc_net *b)
{
	struct dc_config c;
	fixture_json(&c, "{" MODEL ", \"cluster\": {\"system\": \"dgx-h100\", \"num_nodes\": 4}}");
	dc_net_init(&c, a);
	/* the same cluster with NICs at half the rate and twice the hop
	 * latency: plain data (net.h), so a copy changed field by field is
	 * what --calibrate and a what-if make */
	*b = *a;
	b->nic_bw_bytes_per_s = a->nic_bw_bytes_per_s / 2;
	b->net_latency_s = a->net_latency_s * 2;
}

/* The memo's answer and dc_net_time's, compared byte for byte (the
 * choice's doubles by their bits, its names by pointer: both static). */
static void same(const struct dc_net *net, enum dc_coll_kind op, const struct dc_net_group *g, uint64_t bytes,
		 enum dc_net_algo force, const char *what)
{
	struct dc_net_choice want, got;
	int rc_want, rc_got;
	memset(&want, 0x5a, sizeof(want));
	memset(&got, 0x5a, sizeof(got));
	rc_want = dc_net_time(net, op, g, bytes, force, &want);
	rc_got = dc_net_time_memo(&memo, net, op, g, bytes, force, &got);
	ck_assert_msg(rc_got == rc_want, "%s: op %d, %llu B, force %d: rc %d, dc_net_time %d", what, (int)op,
		      (unsigned long long)bytes, (int)force, rc_got, rc_want);
	/* a failed call leaves *out as it was, in both */
	ck_assert_msg(memcmp(&got.time_s, &want.time_s, sizeof(double)) == 0 && got.algo == want.algo &&
			      got.proto == want.proto && got.algorithm == want.algorithm &&
			      got.protocol == want.protocol &&
			      memcmp(&got.algbw_bytes_per_s, &want.algbw_bytes_per_s, sizeof(double)) == 0 &&
			      memcmp(&got.busbw_bytes_per_s, &want.busbw_bytes_per_s, sizeof(double)) == 0,
		      "%s: op %d, %llu B, force %d: memo %.17g s, dc_net_time %.17g s", what, (int)op,
		      (unsigned long long)bytes, (int)force, got.time_s, want.time_s);
}

static const enum dc_coll_kind ops[] = {DC_COLL_ALL_REDUCE, DC_COLL_ALL_GATHER, DC_COLL_REDUCE_SCATTER,
					DC_COLL_ALL_TO_ALL, DC_COLL_BROADCAST};
static const enum dc_net_algo forces[] = {DC_NET_ALGO_AUTO, DC_NET_ALGO_RING, DC_NET_ALGO_TREE};

/* One memo, bound to network A, then rebound to B, to A again and to B
 * (dc_net_memo_bind: emptied each time the content changes): each call
 * is dc_net_time's on the network it names, the first of a key a miss
 * and the second a hit. The two networks price a cross-node AllReduce
 * differently (else the test could not tell them apart): a 1 GiB ring
 * AllReduce over 32 ranks on 4 nodes moves its bytes over the NICs, and
 * B's NICs run at half A's rate. Rebinding to an equal network keeps
 * the slots: the calls after it are all hits. */
START_TEST(memo_two_networks)
{
	struct dc_net a, b, a2;
	struct dc_net_group g8, g32;
	struct dc_net_choice ca, cb;
	uint64_t misses;
	two_nets(&a, &b);
	dc_net_group_ranks(&a, 0, 1, 8, &g8);
	dc_net_group_ranks(&a, 0, 1, 32, &g32);
	ck_assert_int_eq(dc_net_time(&a, DC_COLL_ALL_REDUCE, &g32, 1ull << 30, DC_NET_ALGO_RING, &ca), 0);
	ck_assert_int_eq(dc_net_time(&b, DC_COLL_ALL_REDUCE, &g32, 1ull << 30, DC_NET_ALGO_RING, &cb), 0);
	ck_assert_msg(cb.time_s > 1.5 * ca.time_s, "A %.6g s, B %.6g s", ca.time_s, cb.time_s);

	memset(&memo, 0, sizeof(memo));
	for (int round = 0; round < 4; round++) {
		const struct dc_net *net = round % 2 ? &b : &a;
		uint64_t hits = memo.hits;
		dc_net_memo_bind(&memo, net);
		/* each key twice: the second call is a hit */
		for (int twice = 0; twice < 2; twice++)
			for (size_t o = 0; o < sizeof(ops) / sizeof(ops[0]); o++)
				for (size_t f = 0; f < sizeof(forces) / sizeof(forces[0]); f++)
					for (int s = 0; s < 34; s += 3) {
						same(net, ops[o], &g8, 8ull << s, forces[f], round % 2 ? "B" : "A");
						same(net, ops[o], &g32, 8ull << s, forces[f], round % 2 ? "B" : "A");
					}
		ck_assert_uint_gt(memo.hits, hits);
	}
	/* an equal copy at another address: the slots stay, every call hits */
	a2 = a;
	dc_net_memo_bind(&memo, &a);
	misses = memo.misses;
	for (int s = 0; s < 34; s += 3)
		same(&a, DC_COLL_ALL_REDUCE, &g32, 8ull << s, DC_NET_ALGO_AUTO, "A");
	dc_net_memo_bind(&memo, &a2);
	ck_assert_uint_eq(memo.misses, misses + 12);
	for (int s = 0; s < 34; s += 3)
		same(&a2, DC_COLL_ALL_REDUCE, &g32, 8ull << s, DC_NET_ALGO_AUTO, "A copy");
	ck_assert_uint_eq(memo.misses, misses + 12);
}
END_TEST

/* More keys than slots (4096): calls overwrite each other's slots, and a
 * second pass over all of them (hits and re-priced misses alike) still
 * answers dc_net_time's; a failed call (the tree for an AllGather, -1)
 * is cached as failed. */
START_TEST(memo_collisions_and_failures)
{
	struct dc_net a, b;
	struct dc_net_group g;
	struct dc_net_choice ch;
	two_nets(&a, &b);
	dc_net_group_ranks(&a, 0, 1, 16, &g);
	memset(&memo, 0, sizeof(memo));
	dc_net_memo_bind(&memo, &a);
	for (int pass = 0; pass < 2; pass++)
		for (uint64_t k = 1; k <= 3 * DC_NET_MEMO_SLOTS; k++)
			same(&a, DC_COLL_ALL_REDUCE, &g, k * 1000, DC_NET_ALGO_AUTO, "collisions");
	ck_assert_uint_gt(memo.misses, 3 * DC_NET_MEMO_SLOTS);
	for (int twice = 0; twice < 2; twice++) {
		ck_assert_int_eq(dc_net_time(&a, DC_COLL_ALL_GATHER, &g, 1 << 20, DC_NET_ALGO_TREE, &ch), -1);
		same(&a, DC_COLL_ALL_GATHER, &g, 1 << 20, DC_NET_ALGO_TREE, "failed");
	}
}
END_TEST

/* dc_net_price_kind: a ReduceScatter costs what an AllGather of the same
 * bytes on the same group costs, in every field of the choice, on every
 * network variant a config can make (NVLS, CollNet, NCCL_PROTO masks, a
 * set algorithm, each GPU generation, one GPU per node for PAT), every
 * forced algorithm and sizes from 1 B to 2^40 B; the comm emitters keep
 * one for the other on this (axis/emit.c). An AllReduce is its own. */
START_TEST(reduce_scatter_priced_as_all_gather)
{
	struct dc_net a, b, net;
	uint64_t checked = 0;
	two_nets(&a, &b);
	ck_assert_int_eq(dc_net_price_kind(DC_COLL_REDUCE_SCATTER), DC_COLL_ALL_GATHER);
	for (int o = DC_COLL_ALL_REDUCE; o <= DC_COLL_BROADCAST; o++)
		if (o != DC_COLL_REDUCE_SCATTER)
			ck_assert_int_eq(dc_net_price_kind((enum dc_coll_kind)o), o);
	for (int v = 0; v < 2 * 2 * 4 * 2 * DC_NET_GEN_COUNT * 2; v++) {
		int k = v;
		net = k % 2 ? b : a;
		k /= 2;
		net.nvls = k % 2;
		k /= 2;
		net.collnet = k % 2;
		net.protocols = (unsigned[]){0, 1u << DC_NET_PROTO_SIMPLE, 1u << DC_NET_PROTO_LL,
					     1u << DC_NET_PROTO_LL128}[(k / 2) % 4];
		k /= 8;
		net.gen = (enum dc_net_gen)(k % DC_NET_GEN_COUNT);
		k /= DC_NET_GEN_COUNT;
		if (k % 2)
			net.gpus_per_node = 1; /* one rank per node: PAT's case */
		for (uint64_t size = 2; size <= 32; size *= 2)
			for (uint64_t stride = 1; stride <= 8; stride *= 8)
				for (int prog = 0; prog < 2; prog++) {
					struct dc_net_group g;
					if (size * stride > net.num_nodes * net.gpus_per_node)
						continue;
					if (prog)
						dc_net_group_progression(&net, 0, stride, size, &g);
					else
						dc_net_group_ranks(&net, 0, stride, size, &g);
					for (int f = DC_NET_ALGO_AUTO; f < DC_NET_ALGO_COUNT; f++)
						for (int s = 0; s <= 40; s += 5) {
							struct dc_net_choice ag, rs;
							int rc_ag, rc_rs;
							memset(&ag, 0x5a, sizeof(ag));
							memset(&rs, 0x5a, sizeof(rs));
							rc_ag = dc_net_time(&net, DC_COLL_ALL_GATHER, &g, (1ull << s) + 3 * (uint64_t)s,
									    (enum dc_net_algo)f, &ag);
							rc_rs = dc_net_time(&net, DC_COLL_REDUCE_SCATTER, &g,
									    (1ull << s) + 3 * (uint64_t)s, (enum dc_net_algo)f, &rs);
							ck_assert_int_eq(rc_rs, rc_ag);
							ck_assert_msg(memcmp(&ag, &rs, sizeof(ag)) == 0,
								      "variant %d, %llu ranks, force %d, 2^%d B: all_gather %.17g s %s/%s, reduce_scatter %.17g s %s/%s",
								      v, (unsigned long long)g.ranks, f, s, ag.time_s,
								      rc_ag ? "-" : ag.algorithm, rc_ag ? "-" : ag.protocol,
								      rs.time_s, rc_rs ? "-" : rs.algorithm, rc_rs ? "-" : rs.protocol);
							checked += rc_ag == 0;
						}
				}
	}
	ck_assert_uint_gt(checked, 10000);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("net_memo");
	TCase *tc = tcase_create("memo");
	SRunner *sr;
	int failed;
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, memo_two_networks);
	tcase_add_test(tc, memo_collisions_and_failures);
	tcase_add_test(tc, reduce_scatter_priced_as_all_gather);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
