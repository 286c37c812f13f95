/* check_ring.c - the ring AllReduce lab (ring.h).
 *
 * The worked example (seed README section 6): p = 4 ranks, M = 1 GiB =
 * 2^30 bytes, B = 50 GB/s = 5e10 B/s, alpha = 0.
 *   chunk          M/p = 2^28 = 268,435,456 bytes
 *   sent per rank  2(p-1) x M/p = 6 x 2^28 = 1,610,612,736 bytes (1.5 GiB)
 *   events         2(p-1) rounds x p ranks = 6 x 4 = 24
 *   time           6 x 2^28 / 5e10 s = 1610612736 / 5e10 = 0.03221225472 s
 *   algbw          M/t = 2^30 / 0.03221225472 / 1e9 = 33.333... GB/s
 *   busbw          algbw x 2(p-1)/p = 33.333... x 1.5 = 50 GB/s
 * Uneven messages are checked against a brute-force sum over every event.
 */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <time.h>

#include "distcalc/ring.h"

#define REL_TOL 1e-12

static void close_to(double got, double want)
{
	ck_assert_msg(fabs(got - want) <= REL_TOL * fabs(want), "got %.17g, want %.17g", got, want);
}

START_TEST(test_worked_example)
{
	struct dc_link link = {5e10, 0.0};
	struct dc_ring r;
	dc_ring_compute(4, 1073741824u, &link, DC_LINK_INTRA, &r);
	ck_assert_uint_eq(r.chunk_base_bytes, 268435456u);
	ck_assert_uint_eq(r.chunk_rem, 0);
	ck_assert_uint_eq(r.rounds, 6);
	ck_assert_uint_eq(r.events, 24);
	ck_assert_uint_eq(r.bytes_sent_max, 1610612736u);
	ck_assert_uint_eq(r.bytes_sent_min, 1610612736u);
	ck_assert_uint_eq(r.bytes_recv_max, 1610612736u);
	for (uint64_t i = 0; i < 4; i++) {
		ck_assert_uint_eq(dc_ring_rank_bytes_sent(&r, i), 1610612736u);
		ck_assert_uint_eq(dc_ring_rank_bytes_recv(&r, i), 1610612736u);
	}
	close_to(r.time_s, 0.03221225472);
	ck_assert(r.have_bw);
	close_to(r.algbw_GBps, 100.0 / 3.0);
	close_to(r.busbw_GBps, 50.0);
	/* the last event ends when the collective does */
	{
		struct dc_ring_event e;
		dc_ring_event_at(&r, 23, &e);
		ck_assert_int_eq(e.phase, DC_PHASE_ALL_GATHER);
		ck_assert_uint_eq(e.round, 2);
		ck_assert_uint_eq(e.src, 3);
		ck_assert_uint_eq(e.dst, 0);
		ck_assert_uint_eq(e.bytes, 268435456u);
		close_to(e.end_s, 0.03221225472);
	}
}
END_TEST

/* The textbook schedule, spelled out for p = 3: in ReduceScatter round t rank
 * i sends chunk (i - t) mod p; in AllGather round t, chunk (i + 1 - t) mod p. */
START_TEST(test_schedule_p3)
{
	static const struct {
		int phase;
		uint64_t round, src, dst, chunk;
	} want[12] = {
		{DC_PHASE_REDUCE_SCATTER, 0, 0, 1, 0}, {DC_PHASE_REDUCE_SCATTER, 0, 1, 2, 1},
		{DC_PHASE_REDUCE_SCATTER, 0, 2, 0, 2}, {DC_PHASE_REDUCE_SCATTER, 1, 0, 1, 2},
		{DC_PHASE_REDUCE_SCATTER, 1, 1, 2, 0}, {DC_PHASE_REDUCE_SCATTER, 1, 2, 0, 1},
		{DC_PHASE_ALL_GATHER, 0, 0, 1, 1},     {DC_PHASE_ALL_GATHER, 0, 1, 2, 2},
		{DC_PHASE_ALL_GATHER, 0, 2, 0, 0},     {DC_PHASE_ALL_GATHER, 1, 0, 1, 0},
		{DC_PHASE_ALL_GATHER, 1, 1, 2, 1},     {DC_PHASE_ALL_GATHER, 1, 2, 0, 2},
	};
	struct dc_link link = {1e9, 1e-6};
	struct dc_ring r;
	dc_ring_compute(3, 3000, &link, DC_LINK_INTER, &r);
	ck_assert_uint_eq(r.events, 12);
	for (uint64_t i = 0; i < 12; i++) {
		struct dc_ring_event e;
		dc_ring_event_at(&r, i, &e);
		ck_assert_int_eq(e.phase, want[i].phase);
		ck_assert_uint_eq(e.round, want[i].round);
		ck_assert_uint_eq(e.src, want[i].src);
		ck_assert_uint_eq(e.dst, want[i].dst);
		ck_assert_uint_eq(e.chunk, want[i].chunk);
		ck_assert_uint_eq(e.bytes, 1000);
		/* round k starts at k x (1 us + 1000 B / 1e9 B/s) = k x 2 us */
		close_to(e.start_s + 1.0, (double)(i / 3) * 2e-6 + 1.0);
	}
	/* 4 rounds x (1e-6 + 1e-6) s */
	close_to(r.time_s, 8e-6);
}
END_TEST

/* Every (p, M) pair: chunks differ by at most one byte and add up to M; each
 * rank's event bytes add up to what the ring reports for it; the reported
 * extremes are the brute-force extremes. */
static void check_uneven(uint64_t p, uint64_t m)
{
	struct dc_link link = {1e9, 0.0};
	struct dc_ring r;
	uint64_t sent[16] = {0}, recv[16] = {0}, chunk_sum = 0, cmin = UINT64_MAX, cmax = 0;
	uint64_t smin = UINT64_MAX, smax = 0, rmax = 0;

	ck_assert(p <= 16);
	dc_ring_compute(p, m, &link, DC_LINK_INTRA, &r);
	for (uint64_t c = 0; c < p; c++) {
		uint64_t b = dc_ring_chunk_bytes(&r, c);
		chunk_sum += b;
		cmin = b < cmin ? b : cmin;
		cmax = b > cmax ? b : cmax;
	}
	ck_assert_uint_eq(chunk_sum, m);
	ck_assert_msg(cmax - cmin <= 1, "p=%llu M=%llu: chunks %llu..%llu", (unsigned long long)p,
		      (unsigned long long)m, (unsigned long long)cmin, (unsigned long long)cmax);
	ck_assert_uint_eq(r.events, p > 1 ? 2 * (p - 1) * p : 0);
	for (uint64_t i = 0; i < r.events; i++) {
		struct dc_ring_event e;
		dc_ring_event_at(&r, i, &e);
		ck_assert_uint_eq(e.dst, (e.src + 1) % p);
		ck_assert_uint_eq(e.bytes, dc_ring_chunk_bytes(&r, e.chunk));
		sent[e.src] += e.bytes;
		recv[e.dst] += e.bytes;
	}
	for (uint64_t i = 0; i < p; i++) {
		ck_assert_msg(sent[i] == dc_ring_rank_bytes_sent(&r, i), "p=%llu M=%llu rank %llu sent %llu vs %llu",
			      (unsigned long long)p, (unsigned long long)m, (unsigned long long)i,
			      (unsigned long long)sent[i], (unsigned long long)dc_ring_rank_bytes_sent(&r, i));
		ck_assert_uint_eq(recv[i], dc_ring_rank_bytes_recv(&r, i));
		smin = sent[i] < smin ? sent[i] : smin;
		smax = sent[i] > smax ? sent[i] : smax;
		rmax = recv[i] > rmax ? recv[i] : rmax;
	}
	if (p > 1) {
		ck_assert_msg(r.bytes_sent_max == smax && r.bytes_sent_min == smin,
			      "p=%llu M=%llu: reported %llu..%llu, brute force %llu..%llu", (unsigned long long)p,
			      (unsigned long long)m, (unsigned long long)r.bytes_sent_min,
			      (unsigned long long)r.bytes_sent_max, (unsigned long long)smin, (unsigned long long)smax);
		ck_assert_uint_eq(r.bytes_recv_max, rmax);
	}
	if (m % p == 0 && p > 1)
		ck_assert_uint_eq(smax, 2 * (p - 1) * (m / p)); /* 2(p-1)M/p */
}

START_TEST(test_uneven_chunks)
{
	static const uint64_t ms[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 15, 16, 17, 31, 100, 1001, 65537};
	for (uint64_t p = 2; p <= 16; p++)
		for (size_t j = 0; j < sizeof(ms) / sizeof(ms[0]); j++)
			check_uneven(p, ms[j]);
	/* hand-checked: p = 3, M = 10 -> chunks 4, 3, 3; rank i skips chunks
	 * i+1 and i+2, so rank 0 sends 20 - 3 - 3 = 14, ranks 1, 2 send
	 * 20 - 3 - 4 = 13 */
	{
		struct dc_link link = {1e9, 0.0};
		struct dc_ring r;
		dc_ring_compute(3, 10, &link, DC_LINK_INTRA, &r);
		ck_assert_uint_eq(dc_ring_rank_bytes_sent(&r, 0), 14);
		ck_assert_uint_eq(dc_ring_rank_bytes_sent(&r, 1), 13);
		ck_assert_uint_eq(dc_ring_rank_bytes_sent(&r, 2), 13);
		ck_assert_uint_eq(r.bytes_sent_max, 14);
		ck_assert_uint_eq(r.bytes_sent_min, 13);
		/* a round lasts for the largest chunk: 4 rounds x 4 B / 1e9 B/s */
		close_to(r.time_s, 16e-9);
	}
	/* p = 2: each rank sends one whole message's worth, M, whatever M is */
	{
		struct dc_link link = {1e9, 0.0};
		struct dc_ring r;
		dc_ring_compute(2, 7, &link, DC_LINK_INTRA, &r);
		ck_assert_uint_eq(r.bytes_sent_max, 7);
		ck_assert_uint_eq(r.bytes_sent_min, 7);
	}
}
END_TEST

START_TEST(test_one_rank)
{
	struct dc_link link = {5e10, 5e-6};
	struct dc_ring r;
	dc_ring_compute(1, 1073741824u, &link, DC_LINK_INTRA, &r);
	ck_assert_uint_eq(r.events, 0);
	ck_assert_uint_eq(r.rounds, 0);
	ck_assert_uint_eq(r.bytes_sent_max, 0);
	ck_assert_uint_eq(r.bytes_sent_min, 0);
	ck_assert(r.time_s == 0.0);
	ck_assert(!r.have_bw); /* algbw = M/0 is undefined: reported as null */
	ck_assert_uint_eq(dc_ring_rank_bytes_sent(&r, 0), 0);
	ck_assert_uint_eq(dc_ring_rank_bytes_recv(&r, 0), 0);
}
END_TEST

START_TEST(test_busbw_definition)
{
	/* nccl-tests: busbw = algbw x 2(p-1)/p; with alpha = 0 it equals B */
	static const uint64_t ps[] = {2, 3, 4, 8, 16, 1000};
	for (size_t i = 0; i < sizeof(ps) / sizeof(ps[0]); i++) {
		uint64_t p = ps[i];
		struct dc_link link = {2.5e10, 2e-6};
		struct dc_ring r;
		double factor = 2.0 * (double)(p - 1) / (double)p;
		dc_ring_compute(p, p * 1048576u, &link, DC_LINK_INTER, &r);
		close_to(dc_allreduce_busbw_factor(p), factor);
		close_to(r.busbw_GBps, r.algbw_GBps * factor);
		/* t = 2(p-1)(alpha + M/(pB)) with M/p = 2^20 */
		close_to(r.time_s, 2.0 * (double)(p - 1) * (2e-6 + 1048576.0 / 2.5e10));
		close_to(r.algbw_GBps, (double)(p * 1048576u) / r.time_s / 1e9);
	}
	/* algbw definition: 1e9 bytes in 1 s is 1 GB/s */
	close_to(dc_algbw_GBps(1000000000u, 1.0), 1.0);
}
END_TEST

START_TEST(test_many_ranks_fast)
{
	/* 4096 ranks: closed forms, no O(p^2) work. The event count alone is
	 * 2 x 4095 x 4096 = 33,546,240; the test reads only a few events. */
	struct dc_link link = {5e10, 1e-5};
	struct dc_ring r;
	struct dc_ring_event e;
	clock_t t0 = clock();
	for (int rep = 0; rep < 1000; rep++)
		dc_ring_compute(4096, 1073741824u, &link, DC_LINK_INTER, &r);
	ck_assert_uint_eq(r.events, 33546240u);
	ck_assert_uint_eq(r.chunk_base_bytes, 262144u); /* 2^30 / 2^12 */
	ck_assert_uint_eq(r.bytes_sent_max, 2u * 4095u * 262144u); /* 2,146,959,360 */
	dc_ring_event_at(&r, r.events - 1, &e);
	ck_assert_int_eq(e.phase, DC_PHASE_ALL_GATHER);
	ck_assert_uint_eq(e.round, 4094);
	ck_assert_uint_eq(e.src, 4095);
	/* 1000 closed-form evaluations take microseconds; O(p^2) would take
	 * 1000 x 33M steps. A generous bound keeps slow sanitizer builds green. */
	ck_assert_msg((double)(clock() - t0) / CLOCKS_PER_SEC < 1.0, "dc_ring_compute is not O(1)");
}
END_TEST

START_TEST(test_pick_link)
{
	struct dc_config c = {0};
	struct dc_link l;
	c.cluster.gpus_per_node = 4;
	c.cluster.intra_node.bw_bytes_per_s = 3e11;
	c.cluster.inter_node.bw_bytes_per_s = 5e10;
	c.collective.link = DC_LINK_AUTO;
	ck_assert_int_eq(dc_ring_pick_link(&c, 4, &l), DC_LINK_INTRA); /* ranks 0..3 share node 0 */
	ck_assert(l.bw_bytes_per_s == 3e11);
	ck_assert_int_eq(dc_ring_pick_link(&c, 5, &l), DC_LINK_INTER); /* rank 4 is on node 1 */
	ck_assert(l.bw_bytes_per_s == 5e10);
	c.collective.link = DC_LINK_INTER;
	ck_assert_int_eq(dc_ring_pick_link(&c, 2, &l), DC_LINK_INTER);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("ring");
	TCase *tc = tcase_create("ring");
	SRunner *sr;
	int failed;

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_worked_example);
	tcase_add_test(tc, test_schedule_p3);
	tcase_add_test(tc, test_uneven_chunks);
	tcase_add_test(tc, test_one_rank);
	tcase_add_test(tc, test_busbw_definition);
	tcase_add_test(tc, test_many_ranks_fast);
	tcase_add_test(tc, test_pick_link);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? 0 : 1;
}
