/* check_comm.c - communication per step against the ZeRO paper section 7
 * (2 psi vs 3 psi), Megatron-LM 2021 section 3 (TP 8bsh(t-1)/t), the
 * course's ring example (seed README section 6) and hand-computed shapes. */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "distcalc/comm.h"
#include "distcalc/config.h"
#include "distcalc/diag.h"
#include "distcalc/memory.h"
#include "distcalc/net.h"
#include "distcalc/plan.h"

#include "fixtures.h"
#include "fixtures_plan.h"

#define REL_TOL 1e-12

static void assert_close(double got, double want)
{
	ck_assert_msg(fabs(got - want) <= REL_TOL * fabs(want), "got %.17g, want %.17g", got, want);
}

/* psi = 64e6 parameters given explicitly over 4 layers, 8 ranks on one node
 * (dp 8), 2-byte params and grads, one microbatch, buckets larger than the
 * gradients. Intra-node link 100 GB/s, 0 latency; inter 50 GB/s, 10 us. */
static void zero_comm_config(struct dc_config *c, enum dc_sharding sh)
{
	static const char *const names[] = {"none", "zero1", "zero2", "fsdp"};
	fixture_json(c,
		     "{\"model\": {\"params\": 64000000, \"num_layers\": 4, \"hidden_size\": 1024,"
		     " \"num_attention_heads\": 8, \"vocab_size\": 32000, \"seq_length\": 1024},"
		     " \"cluster\": {\"num_nodes\": 1, \"gpus_per_node\": 8, \"gpu_memory\": \"80 GiB\","
		     " \"intra_node\": {\"bandwidth\": \"100 GB/s\"},"
		     " \"inter_node\": {\"bandwidth\": \"50 GB/s\", \"latency\": \"10 us\"}},"
		     " \"parallel\": {\"sharding\": \"%s\", \"bucket_size\": \"1 GiB\"}}",
		     names[sh]);
}

static struct dc_comm compute(const struct dc_config *c)
{
	struct dc_comm out;
	const char *err = NULL;
	ck_assert_int_eq(dc_comm_compute(plan_of(c), &out, &err), 0);
	ck_assert_ptr_null(err);
	return out;
}

START_TEST(test_course_ring_example)
{
	/* seed README section 6: 4 ranks, 1 GiB each, 50 GB/s, no latency:
	 * 2 x 3/4 x 1 GiB = 1.5 GiB sent per rank; time 2 x 3 x 2^28 / 50e9 =
	 * 32.21225472 ms */
	struct dc_link l = {50e9, 0};
	ck_assert_uint_eq(dc_coll_bytes_sent(DC_COLL_ALL_REDUCE, 4, 1ull << 30), 3ull << 29);
	assert_close(dc_coll_time_s(DC_COLL_ALL_REDUCE, 4, 1ull << 30, &l), 0.03221225472);
	/* half of it for ReduceScatter or AllGather of the same 1 GiB buffer */
	ck_assert_uint_eq(dc_coll_bytes_sent(DC_COLL_ALL_GATHER, 4, 1ull << 30), 3ull << 28);
	assert_close(dc_coll_time_s(DC_COLL_REDUCE_SCATTER, 4, 1ull << 30, &l), 0.01610612736);
	/* uneven chunks, by hand: 7 B on 4 ranks are chunks 2, 2, 2, 1. Rank i
	 * skips chunk i+1 in ReduceScatter and chunk i+2 in AllGather, so the
	 * busiest rank skips two neighbours of 2 + 1 B (rank 1 or 2) and sends
	 * 14 - 3 = 11 B, not 2 x (7 - 1) = 12; with 6 B (2, 2, 1, 1) it skips
	 * 1 + 1 and sends 10 B. Two ranks: each sends the whole message. */
	ck_assert_uint_eq(dc_coll_bytes_sent(DC_COLL_ALL_REDUCE, 4, 7), 11);
	ck_assert_uint_eq(dc_coll_bytes_sent(DC_COLL_ALL_REDUCE, 4, 6), 10);
	ck_assert_uint_eq(dc_coll_bytes_sent(DC_COLL_ALL_REDUCE, 2, 7), 7);
	ck_assert_uint_eq(dc_coll_bytes_sent(DC_COLL_REDUCE_SCATTER, 4, 7), 6);
	/* one rank moves nothing */
	ck_assert_uint_eq(dc_coll_bytes_sent(DC_COLL_ALL_REDUCE, 1, 1000), 0);
	ck_assert(dc_coll_time_s(DC_COLL_ALL_REDUCE, 1, 1000, &l) == 0);
}
END_TEST

START_TEST(test_zero_2psi_vs_3psi)
{
	/* ZeRO section 7, psi = 64e6 elements of 2 bytes, N_d = 8, (p-1)/p = 7/8:
	 * DDP AllReduce 2 psi -> 2 x 7/8 x 128e6 B = 224,000,000 B;
	 * ZeRO-2 ReduceScatter + AllGather, also 2 psi = 224,000,000 B;
	 * FSDP AllGather (forward) + AllGather (backward) + ReduceScatter,
	 * 3 psi = 336,000,000 B, 1.5x the baseline */
	struct dc_config c;
	struct dc_comm m;

	zero_comm_config(&c, DC_SHARD_NONE);
	m = compute(&c);
	ck_assert(m.s[DC_STRAT_DP].in_play);
	ck_assert(!m.s[DC_STRAT_FSDP].in_play);
	ck_assert_uint_eq(m.s[DC_STRAT_DP].bytes_per_rank, 224000000ull);
	ck_assert_uint_eq(m.s[DC_STRAT_DP].ncoll, 1);
	ck_assert_int_eq(m.s[DC_STRAT_DP].coll[0].kind, DC_COLL_ALL_REDUCE);

	zero_comm_config(&c, DC_SHARD_ZERO2);
	m = compute(&c);
	ck_assert_uint_eq(m.s[DC_STRAT_DP].bytes_per_rank, 224000000ull);
	ck_assert_uint_eq(m.s[DC_STRAT_DP].ncoll, 2);
	ck_assert_int_eq(m.s[DC_STRAT_DP].coll[0].kind, DC_COLL_REDUCE_SCATTER);
	ck_assert_int_eq(m.s[DC_STRAT_DP].coll[1].kind, DC_COLL_ALL_GATHER);

	zero_comm_config(&c, DC_SHARD_FSDP);
	m = compute(&c);
	ck_assert(!m.s[DC_STRAT_DP].in_play);
	ck_assert_uint_eq(m.s[DC_STRAT_FSDP].bytes_per_rank, 336000000ull);
	ck_assert_uint_eq(m.bytes_per_rank, 336000000ull);
	/* per layer unit: 16e6 params x 2 B = 32e6 B messages, 4 per pass */
	ck_assert_uint_eq(m.s[DC_STRAT_FSDP].coll[0].msg_bytes, 32000000ull);
	ck_assert_uint_eq(m.s[DC_STRAT_FSDP].coll[0].count, 4);

	/* without resharding the backward AllGather goes: back to 2 psi */
	c.parallel.reshard_after_forward = 0;
	m = compute(&c);
	ck_assert_uint_eq(m.s[DC_STRAT_FSDP].bytes_per_rank, 224000000ull);
}
END_TEST

/* HSDP 2 x 4 (parallel.dp_replicate 2 of dp 8, one node) on the ZeRO
 * config above, by hand: psi = 64e6 parameters of 2 bytes, 4 layer units
 * of 16e6 (32e6 B).
 *   fsdp: each unit gathered twice and reduce-scattered once on the 4
 *   ranks of a replica, 3/4 of 32e6 = 24e6 B a call: 3 x 4 x 24e6 =
 *   288e6 B; then each unit's gradient shard, 32e6 / 4 = 8e6 B, is
 *   all-reduced over the 2 replicas: 2 x 1/2 x 8e6 = 8e6 B a call, 4
 *   calls = 32e6 B. 320e6 B in all, against 336e6 B for FSDP over 8.
 *   zero1: one bucket (1 GiB holds all 128e6 B of gradients):
 *   ReduceScatter on 4 ranks 3/4 x 128e6 = 96e6 B, AllReduce of the
 *   32e6 B shard on 2 ranks 32e6 B, AllGather of the 128e6 B of updated
 *   params on 4 ranks 96e6 B: 224e6 B, as ZeRO-1 over 8 (2 x 7/8 x
 *   128e6), with a quarter of it on the replica group. */
START_TEST(test_hsdp_2x4)
{
	struct dc_config c;
	struct dc_comm m;
	const struct dc_comm_strategy *s;
	uint64_t ar = 0, shard = 0;

	zero_comm_config(&c, DC_SHARD_FSDP);
	c.parallel.dp_replicate = 2;
	m = compute(&c);
	s = &m.s[DC_STRAT_FSDP];
	ck_assert_uint_eq(s->group_size, 4);
	for (uint64_t i = 0; i < s->ncoll; i++) {
		const struct dc_coll *k = &s->coll[i];
		if (k->kind == DC_COLL_ALL_REDUCE) {
			ck_assert_uint_eq(k->group_size, 2);
			ck_assert_uint_eq(k->msg_bytes, 8000000ull);
			ck_assert_int_eq(k->what, DC_CW_REPLICA_GRAD_BUCKET);
			ck_assert_int_eq(k->overlap, DC_OVL_GRAD_SYNC);
			ar += k->bytes_per_rank;
		} else {
			ck_assert_uint_eq(k->group_size, 4);
			ck_assert_uint_eq(k->msg_bytes, 32000000ull);
			shard += k->bytes_per_rank;
		}
	}
	ck_assert_uint_eq(shard, 288000000ull);
	ck_assert_uint_eq(ar, 32000000ull);
	ck_assert_uint_eq(m.bytes_per_rank, 320000000ull);

	zero_comm_config(&c, DC_SHARD_ZERO1);
	c.parallel.dp_replicate = 2;
	m = compute(&c);
	s = &m.s[DC_STRAT_DP];
	ck_assert_uint_eq(s->ncoll, 3);
	ck_assert_int_eq(s->coll[0].kind, DC_COLL_REDUCE_SCATTER);
	ck_assert_uint_eq(s->coll[0].group_size, 4);
	ck_assert_uint_eq(s->coll[0].bytes_per_rank, 96000000ull);
	ck_assert_int_eq(s->coll[1].kind, DC_COLL_ALL_REDUCE);
	ck_assert_uint_eq(s->coll[1].group_size, 2);
	ck_assert_uint_eq(s->coll[1].msg_bytes, 32000000ull);
	ck_assert_uint_eq(s->coll[1].bytes_per_rank, 32000000ull);
	ck_assert_int_eq(s->coll[2].kind, DC_COLL_ALL_GATHER);
	ck_assert_int_eq(s->coll[2].phase, DC_CPHASE_AFTER_OPTIMIZER);
	ck_assert_uint_eq(s->coll[2].bytes_per_rank, 96000000ull);
	ck_assert_uint_eq(s->bytes_per_rank, 224000000ull);
}
END_TEST

/* Mixtral's config (tp 2, pp 4, dp 4, 16 microbatches of 1 x 4096
 * tokens; 8 MoE layers on a stage) with sequence parallelism:
 *   EP 8 folded over TP 2 x DP 4 (etp 1): each AlltoAll on 8 ranks
 *   carries a rank's 4096 / 2 = 2048 tokens x top-2 x 4096 x 2 B =
 *   33,554,432 B, 2 x 8 x 16 = 256 calls forward and as many backward;
 *   one rank per expert (expert-dp 1): no expert gradient sync, and no
 *   expert tp gather.
 *   EP 4 out of dp (etp = tp 2): AlltoAlls on 4 ranks of the same bytes,
 *   and each expert's 2 etp ranks gather what both received, 2 x
 *   33,554,432 = 67,108,864 B, 8 x 16 = 128 times a phase per op: an
 *   AllGather and a ReduceScatter forward, the same backward. */
START_TEST(test_expert_folding_comm)
{
	struct dc_config c;
	struct dc_comm m;
	const struct dc_comm_strategy *s;
	char path[512];
	struct dc_diag d;
	snprintf(path, sizeof(path), "%s/configs/mixtral-8x7b-ep.json", DC_SOURCE_DIR);
	dc_diag_init(&d);
	ck_assert_int_eq(dc_config_load_file(path, (const struct dc_override[]){{"parallel.sequence_parallel=true"},
										{"parallel.ep=8"}, {"parallel.etp=1"}},
					     3, &c, &d),
			 0);
	dc_diag_release(&d);
	m = compute(&c);
	s = &m.s[DC_STRAT_EP];
	ck_assert_uint_eq(s->ncoll, 2);
	for (int i = 0; i < 2; i++) {
		ck_assert_int_eq(s->coll[i].kind, DC_COLL_ALL_TO_ALL);
		ck_assert_uint_eq(s->coll[i].group_size, 8);
		ck_assert_uint_eq(s->coll[i].msg_bytes, 33554432ull);
		ck_assert_uint_eq(s->coll[i].count, 256);
	}
	for (uint64_t i = 0; i < m.s[DC_STRAT_DP].ncoll; i++)
		ck_assert_int_ne(m.s[DC_STRAT_DP].coll[i].what, DC_CW_EXPERT_GRAD_BUCKET);

	dc_diag_init(&d);
	ck_assert_int_eq(dc_config_load_file(path, (const struct dc_override[]){{"parallel.sequence_parallel=true"}}, 1,
					     &c, &d),
			 0);
	dc_diag_release(&d);
	m = compute(&c);
	s = &m.s[DC_STRAT_EP];
	ck_assert_uint_eq(s->ncoll, 6);
	ck_assert_uint_eq(s->coll[0].group_size, 4);
	ck_assert_uint_eq(s->coll[0].msg_bytes, 33554432ull);
	for (int i = 2; i < 6; i++) {
		ck_assert_uint_eq(s->coll[i].group_size, 2);
		ck_assert_uint_eq(s->coll[i].msg_bytes, 67108864ull);
		ck_assert_uint_eq(s->coll[i].count, 128);
	}
	ck_assert_int_eq(s->coll[2].kind, DC_COLL_ALL_GATHER);
	ck_assert_int_eq(s->coll[3].kind, DC_COLL_REDUCE_SCATTER);
	ck_assert_int_eq(s->coll[4].phase, DC_CPHASE_BACKWARD);

	/* tp 1, dp 8, ep 4, etp 2 (folded: etp differs from tp): each rank's
	 * 4096 tokens are its own without sequence parallelism too, so the
	 * expert tp pair gathers them: 2 x 4096 x 2 x 4096 x 2 B =
	 * 134,217,728 B, 128 times a phase */
	dc_diag_init(&d);
	ck_assert_int_eq(dc_config_load_file(path, (const struct dc_override[]){{"parallel.tp=1"}, {"parallel.dp=8"},
										{"parallel.etp=2"}},
					     3, &c, &d),
			 0);
	dc_diag_release(&d);
	m = compute(&c);
	s = &m.s[DC_STRAT_EP];
	ck_assert_uint_eq(s->ncoll, 6);
	ck_assert_uint_eq(s->coll[0].msg_bytes, 67108864ull);
	for (int i = 2; i < 6; i++) {
		ck_assert_uint_eq(s->coll[i].group_size, 2);
		ck_assert_uint_eq(s->coll[i].msg_bytes, 134217728ull);
		ck_assert_uint_eq(s->coll[i].count, 128);
	}
}
END_TEST

/* Pipeline sends per schedule on pp 4, 8 microbatches (the analysed
 * rank's, an end rank here): 1F1B's, the last stage (the head's), its 8
 * gradients back and no activation on (a middle stage a forward and a
 * backward send per microbatch, 8 and 8); DualPipe's 4 and 4 (each
 * direction carries half the microbatches and an end rank holds a first
 * and a last stage; a middle rank 8 and 8); DualPipeV's 8 and 8 (an end
 * rank passes each microbatch on once each way; a middle rank, holding
 * chunks s and 7 - s of the V, twice: 16 and 16). */
START_TEST(test_pipeline_sends_per_schedule)
{
	static const char *const sched[] = {"1f1b", "dualpipe", "dualpipev"};
	static const uint64_t want[] = {8, 4, 8};
	for (int i = 0; i < 3; i++) {
		struct dc_config c;
		struct dc_comm m;
		fixture_json(&c,
			     "{\"model\": {\"num_layers\": 8, \"hidden_size\": 1024, \"num_attention_heads\": 8,"
			     " \"vocab_size\": 1000, \"seq_length\": 1024},"
			     " \"cluster\": {\"num_nodes\": 1, \"gpus_per_node\": 4, \"gpu_memory\": \"80 GiB\","
			     " \"intra_node\": {\"bandwidth\": \"300 GB/s\"}, \"inter_node\": {\"bandwidth\": \"400 Gb/s\"}},"
			     " \"parallel\": {\"pp\": 4, \"pipeline_schedule\": \"%s\"},"
			     " \"training\": {\"grad_accum_steps\": 8}}",
			     sched[i]);
		m = compute(&c);
		if (i == 0) {
			ck_assert_uint_eq(m.stage, 3);
			ck_assert_uint_eq(m.s[DC_STRAT_PP].ncoll, 1);
			ck_assert_uint_eq(m.s[DC_STRAT_PP].coll[0].what, DC_CW_PP_GRADIENTS);
			ck_assert_uint_eq(m.s[DC_STRAT_PP].coll[0].count, want[i]);
			continue;
		}
		ck_assert(m.stage == 0 || m.stage == 3);
		ck_assert_uint_eq(m.s[DC_STRAT_PP].ncoll, 2);
		ck_assert_uint_eq(m.s[DC_STRAT_PP].coll[0].count, want[i]);
		ck_assert_uint_eq(m.s[DC_STRAT_PP].coll[1].count, want[i]);
	}
}
END_TEST

/* The calls (`bytes` 0) or the bytes a rank sends (1) of `what`'s rows
 * in strategy `s`, summed */
static uint64_t rows_sum(const struct dc_comm *m, enum dc_strategy s, enum dc_coll_what what, int bytes)
{
	uint64_t n = 0;
	for (uint64_t i = 0; i < m->s[s].ncoll; i++)
		if (m->s[s].coll[i].what == what)
			n += bytes ? m->s[s].coll[i].bytes_per_rank : m->s[s].coll[i].count;
	return n;
}

static uint64_t calls_of(const struct dc_comm *m, enum dc_strategy s, enum dc_coll_what what)
{
	return rows_sum(m, s, what, 0);
}

static uint64_t bytes_of(const struct dc_comm *m, enum dc_strategy s, enum dc_coll_what what)
{
	return rows_sum(m, s, what, 1);
}

/* A DualPipe rank holds two stages (s and pp - 1 - s), so its data-
 * parallel gradient sync carries both: 64e6 parameters given explicitly
 * over 8 layers on pp 4 are 16e6 a stage, 2 B of gradient each, 32e6 B;
 * DDP's AllReduce on dp 2 sends 2 x 1/2 x 32e6 = 32e6 B a step under
 * 1F1B, 64e6 B under DualPipe (a bucket holds them all). Its mirror rank
 * (pp - 1 - s) holds the same two stages: the reduced bucket, 64e6 B, is
 * all-reduced over the pair once, 2 x 1/2 x 64e6 = 64e6 B more, 128e6 B
 * in all; 1F1B has no mirror. */
START_TEST(test_dualpipe_syncs_both_stages)
{
	static const char *const sched[] = {"1f1b", "dualpipe"};
	static const uint64_t want[] = {32000000ull, 64000000ull};
	for (int i = 0; i < 2; i++) {
		struct dc_config c;
		struct dc_comm m;
		fixture_json(&c,
			     "{\"model\": {\"params\": 64000000, \"num_layers\": 8, \"hidden_size\": 1024,"
			     " \"num_attention_heads\": 8, \"vocab_size\": 32000, \"seq_length\": 1024},"
			     " \"cluster\": {\"num_nodes\": 1, \"gpus_per_node\": 8, \"gpu_memory\": \"80 GiB\","
			     " \"intra_node\": {\"bandwidth\": \"300 GB/s\"}, \"inter_node\": {\"bandwidth\": \"400 Gb/s\"}},"
			     " \"parallel\": {\"pp\": 4, \"dp\": 2, \"pipeline_schedule\": \"%s\", \"bucket_size\": \"1 GiB\"},"
			     " \"training\": {\"grad_accum_steps\": 8}}",
			     sched[i]);
		m = compute(&c);
		ck_assert_uint_eq(bytes_of(&m, DC_STRAT_DP, DC_CW_GRAD_BUCKET), want[i]);
		ck_assert_uint_eq(calls_of(&m, DC_STRAT_DP, DC_CW_MIRROR_GRAD_BUCKET), i == 0 ? 0 : 1);
		ck_assert_uint_eq(bytes_of(&m, DC_STRAT_DP, DC_CW_MIRROR_GRAD_BUCKET), i == 0 ? 0 : 64000000ull);
		ck_assert_uint_eq(m.s[DC_STRAT_DP].bytes_per_rank, i == 0 ? 32000000ull : 128000000ull);
		ck_assert_uint_eq(m.layers, i == 0 ? 2 : 4);
	}
}
END_TEST

/* A row of the model's ends, not a layer (tp.c ends_calls, loss_reduces):
 * test_tp_model_ends_by_hand prices them; the layer tests below leave
 * them out */
static int tp_end_row(const struct dc_coll *c)
{
	return (c->what >= DC_CW_TP_LOSS_CHUNK && c->what <= DC_CW_TP_EMBED_GRAD) || c->what == DC_CW_TP_MTP_EMBED ||
	       c->what == DC_CW_TP_MTP_EMBED_GRAD;
}

/* The TP bytes of the analysed rank's layers (and MTP eh_proj), and their
 * rows: the strategy's less the ends' */
static uint64_t tp_layers_bytes(const struct dc_comm *m)
{
	uint64_t n = 0;
	for (uint64_t i = 0; i < m->s[DC_STRAT_TP].ncoll; i++)
		if (!tp_end_row(&m->s[DC_STRAT_TP].coll[i]))
			n += m->s[DC_STRAT_TP].coll[i].bytes_per_rank;
	return n;
}

/* tp_layers_bytes of c's comm */
static uint64_t tp_bytes_of(const struct dc_config *c)
{
	struct dc_comm m = compute(c);
	return tp_layers_bytes(&m);
}

static uint64_t tp_layer_rows(const struct dc_comm_strategy *s)
{
	uint64_t n = 0;
	for (uint64_t i = 0; i < s->ncoll; i++)
		n += !tp_end_row(&s->coll[i]);
	return n;
}

/* The most TP rows an axis issues (comm.h DC_COMM_MAX_COLL): DeepSeek-V3
 * at tp 4 with sequence parallelism, FP8 current scaling, full recompute,
 * pp 1 (the rank holds both ends) and its MTP module. A layer's 14: the
 * gathers in two formats (MLA's attention gathers BF16, the MLP's FP8) for
 * the forward's g, the output gradient's g-bar, the re-gather and the
 * recomputed forward's g, 8; the reduce-scatters g-bar, g and the
 * recomputed one, 3; the amax reductions forward, backward and
 * recomputed, 3. The eh_proj's 8 (tp.c mtp_eh_proj: in, out, out grad,
 * in grad, re-gather, two recomputed, amax). The ends' 8: the loss's,
 * the embedding's two, the module's embedding's two, the head's three.
 * 30 rows: before the ends were priced this shape had 22, and the limit
 * of 28 failed it once they were (the review of stop 49). */
START_TEST(test_tp_rows_bound)
{
	char path[512];
	struct dc_override ov[] = {{"parallel.tp=4", 0},
				   {"parallel.etp=1", 0},
				   {"parallel.sequence_parallel=true", 0},
				   {"parallel.pp=1", 0},
				   {"parallel.pipeline_layers", 0},
				   {"parallel.pipeline_schedule=1f1b", 0},
				   {"overlap.ep=none", 0},
				   {"parallel.ep=64", 0},
				   {"training.recompute=full", 0}};
	struct dc_config c;
	struct dc_diag d;
	struct dc_comm m;
	uint64_t ends = 0, eh = 0;
	ov[4].unset = 1;
	snprintf(path, sizeof(path), "%s/configs/deepseek-v3-h800.json", DC_SOURCE_DIR);
	dc_diag_init(&d);
	ck_assert_int_eq(dc_config_load_file(path, ov, sizeof(ov) / sizeof(ov[0]), &c, &d), 0);
	dc_diag_release(&d);
	ck_assert_int_eq(c.precision.fp8_recipe, DC_FP8_CURRENT);
	ck_assert_uint_eq(c.model.mtp_layers, 1);
	m = compute(&c);
	for (uint64_t i = 0; i < m.s[DC_STRAT_TP].ncoll; i++) {
		const struct dc_coll *r = &m.s[DC_STRAT_TP].coll[i];
		ends += tp_end_row(r);
		eh += !tp_end_row(r) && r->what >= DC_CW_TP_MTP_IN && r->what <= DC_CW_TP_MTP_AMAX;
	}
	ck_assert_uint_eq(m.s[DC_STRAT_TP].ncoll, 30);
	ck_assert_uint_eq(ends, 8);
	ck_assert_uint_eq(eh, 8);
	ck_assert_uint_lt(m.s[DC_STRAT_TP].ncoll, DC_COMM_MAX_COLL);
}
END_TEST

/* configs/mixtral-8x7b-ep.json with the overrides `sets` up to the first
 * NULL (so a NULL in the middle drops those after it), its comm */
static struct dc_comm mixtral_with(const char *const *sets)
{
	char path[512];
	struct dc_override ov[8];
	size_t n = 0;
	struct dc_config c;
	struct dc_diag d;
	snprintf(path, sizeof(path), "%s/configs/mixtral-8x7b-ep.json", DC_SOURCE_DIR);
	for (; sets[n] && n < 8; n++)
		ov[n] = (struct dc_override){sets[n], 0};
	dc_diag_init(&d);
	ck_assert_int_eq(dc_config_load_file(path, ov, n, &c, &d), 0);
	dc_diag_release(&d);
	return compute(&c);
}

/* ... under `sched`, at pp 4 (as shipped) or pp 2 (dp 8) */
static struct dc_comm mixtral_comm(const char *sched, int pp2)
{
	char s[64];
	const char *sets[] = {s, pp2 ? "parallel.pp=2" : NULL, "parallel.dp=8", NULL};
	snprintf(s, sizeof(s), "parallel.pipeline_schedule=%s", sched);
	return mixtral_with(sets);
}

/* ... under DualPipe with `sharding`, as shipped or (`one`) on one node of
 * 8 at dp 1 and ep 1 */
static struct dc_comm mixtral_dualpipe(const char *sharding, int one)
{
	char s[64];
	const char *sets[] = {"parallel.pipeline_schedule=dualpipe", s, one ? "cluster.num_nodes=1" : NULL,
			      "parallel.dp=1", "parallel.ep=1", NULL};
	snprintf(s, sizeof(s), "parallel.sharding=%s", sharding);
	return mixtral_with(sets);
}

/* DualPipe's mirror sum where nothing else reduces: on
 * configs/mixtral-8x7b-ep.json (tp 2, ep 4 = dp 4, so the routed experts
 * have no data-parallel replica) under FSDP, each MoE layer's expert unit,
 * 8 / 4 = 2 local experts of 3 x 4096 x 14336 weights split over etp 2, 2 B
 * of gradient each, 2 x 3 x 4096 x 14336 / 2 x 2 = 352,321,536 B, is
 * summed whole with the mirror once a step: 16 calls (the rank's two
 * stages of 8 layers), as ZeRO-1 sums the same bytes in 25 MiB buckets
 * (5,637,144,576 B = 16 x 352,321,536). At dp 1 (one node of 8, ep 1)
 * FSDP shards nothing (the loader: as under none) and its rank's
 * gradients are summed whole, as under none: the same rows, in the
 * data-parallel strategy. */
START_TEST(test_dualpipe_mirror_where_nothing_else_reduces)
{
	struct dc_comm f = mixtral_dualpipe("fsdp", 0), z = mixtral_dualpipe("zero1", 0);
	struct dc_comm f1, n1;
	ck_assert_uint_eq(calls_of(&f, DC_STRAT_FSDP, DC_CW_MIRROR_EXPERT_GRAD_BUCKET), 16);
	ck_assert_uint_eq(bytes_of(&f, DC_STRAT_FSDP, DC_CW_MIRROR_EXPERT_GRAD_BUCKET), 16ull * 352321536ull);
	ck_assert_uint_eq(bytes_of(&z, DC_STRAT_DP, DC_CW_MIRROR_EXPERT_GRAD_BUCKET), 16ull * 352321536ull);
	f1 = mixtral_dualpipe("fsdp", 1);
	n1 = mixtral_dualpipe("none", 1);
	ck_assert(!f1.s[DC_STRAT_FSDP].in_play);
	ck_assert_uint_gt(bytes_of(&n1, DC_STRAT_DP, DC_CW_MIRROR_GRAD_BUCKET), 0);
	ck_assert_uint_eq(bytes_of(&f1, DC_STRAT_DP, DC_CW_MIRROR_GRAD_BUCKET),
			  bytes_of(&n1, DC_STRAT_DP, DC_CW_MIRROR_GRAD_BUCKET));
	ck_assert_uint_eq(bytes_of(&f1, DC_STRAT_DP, DC_CW_MIRROR_EXPERT_GRAD_BUCKET),
			  bytes_of(&n1, DC_STRAT_DP, DC_CW_MIRROR_EXPERT_GRAD_BUCKET));
	ck_assert_uint_eq(f1.s[DC_STRAT_DP].bytes_per_rank, n1.s[DC_STRAT_DP].bytes_per_rank);
}
END_TEST

/* DualPipe (DeepSeek-V3 section 3.2.1; deepseek-ai/DualPipe step()): rank
 * s holds stage s of the forward direction and stage pp - 1 - s of the
 * reverse one, and each direction carries half of the m microbatches
 * (step() scatters its inputs into num_chunks / 2 on each end rank; rank
 * s runs 2 (pp/2 - h - 1) + (h + 1) + (m/2 - pp + h + 1) = m / 2 forwards
 * of each stage, h = min(s, pp - 1 - s)). A per-layer, per-microbatch
 * call is made (L/pp) x m/2 times for each of the two stages, (L/pp) x m
 * in all: as often as on a 1F1B rank, which holds one stage run by all m.
 * By hand on configs/mixtral-8x7b-ep.json (32 MoE layers, tp 2, ep 4,
 * 16 microbatches of 4096 tokens, top-2, h 4096):
 *   pp 4: 1F1B 8 layers x 16; DualPipe (8 + 8) layers x 8. EP: 2 AlltoAlls
 *   a MoE layer each way, 2 x 8 x 16 = 2 x 16 x 8 = 256 calls each way
 *   of M = 4096 x 2 x 4096 x 2 = 67,108,864 B, 3/4 of it sent:
 *   512 x 50,331,648 = 25,769,803,776 B (the review found 512 calls and
 *   twice the bytes under DualPipe: both stages counted for all 16).
 *   TP: 2 AllReduces a layer each way, 256 calls each way of
 *   4096 x 4096 x 2 = 33,554,432 B, a 2-rank AllReduce sending M:
 *   17,179,869,184 B. PP: a middle rank sends each stage's activations on
 *   and its gradients back, 2 x 8 = 16 each way, as 1F1B's middle stage.
 *   pp 2 (dp 8): 1F1B 16 layers x 16, DualPipe (16 + 16) x 8: EP 512
 *   calls each way, 1024 x 50,331,648 = 51,539,607,552 B; TP 512 each way,
 *   34,359,738,368 B. PP: 1F1B's rank 0 sends 16 activations and no
 *   gradient; a DualPipe rank's two stages are a first (8 activations
 *   on) and a last (8 gradients back): 16 x 33,554,432 = 536,870,912 B
 *   either way.
 * The model's ends (tp.c ends_calls, no sequence parallelism): the
 * embedding's AllReduce of M forward a microbatch, the head's input
 * gradient's backward, and the loss's three AllReduces of 4 B a token
 * (16,384 B, a 2-rank AllReduce sending it whole). 1F1B's analysed rank
 * is the last stage: 16 head calls, 48 loss calls, 16 M + 48 x 16,384 =
 * 537,657,344 B. A DualPipe rank 0 holds stage 0 and stage pp - 1, each
 * for 8 microbatches: 8 embedding and 8 head calls, 24 loss calls,
 * 16 M + 24 x 16,384 = 537,264,128 B. */
START_TEST(test_dualpipe_runs_each_stage_half_the_microbatches)
{
	static const char *const sched[] = {"1f1b", "dualpipe"};
	for (int i = 0; i < 2; i++) {
		struct dc_comm m = mixtral_comm(sched[i], 0);
		ck_assert_uint_eq(m.moe_layers, i == 0 ? 8 : 16);
		ck_assert_uint_eq(calls_of(&m, DC_STRAT_EP, DC_CW_EP_DISPATCH_COMBINE), 256);
		ck_assert_uint_eq(calls_of(&m, DC_STRAT_EP, DC_CW_EP_GRADIENTS), 256);
		ck_assert_uint_eq(m.s[DC_STRAT_EP].bytes_per_rank, 25769803776ull);
		ck_assert_uint_eq(calls_of(&m, DC_STRAT_TP, DC_CW_TP_OUTPUT_FG), 256);
		ck_assert_uint_eq(calls_of(&m, DC_STRAT_TP, DC_CW_TP_INPUT_GRAD_FG), 256);
		ck_assert_uint_eq(calls_of(&m, DC_STRAT_TP, DC_CW_TP_EMBED_OUT), i == 0 ? 0 : 8);
		ck_assert_uint_eq(calls_of(&m, DC_STRAT_TP, DC_CW_TP_HEAD_IN_GRAD), i == 0 ? 16 : 8);
		ck_assert_uint_eq(calls_of(&m, DC_STRAT_TP, DC_CW_TP_LOSS_CHUNK), i == 0 ? 48 : 24);
		ck_assert_uint_eq(m.s[DC_STRAT_TP].bytes_per_rank, 17179869184ull + (i == 0 ? 537657344ull : 537264128ull));
		/* 1F1B's analysed rank is the last stage (stage 3): its 16
		 * gradients back and no activation on (a trial found a middle
		 * stage's 16 + 16 counted for it). DualPipe's is rank 0, an
		 * end rank: its stage 0 sends 8 activations on, its stage 3 (of
		 * the reverse direction) 8 gradients back (a review found a
		 * middle rank's 16 + 16 counted for it) */
		ck_assert_uint_eq(m.stage, i == 0 ? 3 : 0);
		ck_assert_uint_eq(calls_of(&m, DC_STRAT_PP, DC_CW_PP_ACTIVATIONS), i == 0 ? 0 : 8);
		ck_assert_uint_eq(calls_of(&m, DC_STRAT_PP, DC_CW_PP_GRADIENTS), i == 0 ? 16 : 8);

		m = mixtral_comm(sched[i], 1);
		ck_assert_uint_eq(m.layers, i == 0 ? 16 : 32);
		ck_assert_uint_eq(calls_of(&m, DC_STRAT_EP, DC_CW_EP_DISPATCH_COMBINE), 512);
		ck_assert_uint_eq(calls_of(&m, DC_STRAT_EP, DC_CW_EP_GRADIENTS), 512);
		ck_assert_uint_eq(m.s[DC_STRAT_EP].bytes_per_rank, 51539607552ull);
		ck_assert_uint_eq(calls_of(&m, DC_STRAT_TP, DC_CW_TP_OUTPUT_FG), 512);
		ck_assert_uint_eq(m.s[DC_STRAT_TP].bytes_per_rank, 34359738368ull + (i == 0 ? 537657344ull : 537264128ull));
		/* two stages under 1F1B: the analysed rank, the last stage,
		 * sends its 16 gradients back and no activations (its own
		 * direction: stage 0 would send the 16 activations) */
		ck_assert_uint_eq(calls_of(&m, DC_STRAT_PP, DC_CW_PP_ACTIVATIONS), i == 0 ? 0 : 8);
		ck_assert_uint_eq(calls_of(&m, DC_STRAT_PP, DC_CW_PP_GRADIENTS), i == 0 ? 16 : 8);
		ck_assert_uint_eq(m.s[DC_STRAT_PP].bytes_per_rank, 536870912ull);
	}
}
END_TEST

/* The other per-microbatch axes under DualPipe, by hand: 8 layers, h
 * 1024, 8 heads of 128 (8 KV heads), s 1024, tp 2, cp 2 (p2p), pp 4, 8
 * microbatches of b 1, sequence parallelism, full recompute of 1 layer a
 * chunk (training.recompute_layers; a chunk is a stage, L / pp = 2
 * layers). 1F1B: 2 layers x 8 microbatches; DualPipe: (2 + 2) x 4.
 *   TP (SP): AllGather and ReduceScatter twice a layer each way, the
 *   backward's re-gather twice, 2 x 2 x 8 = 2 x 4 x 4 = 32 calls each;
 *   the recomputed forward's AllGather and ReduceScatter for 1 layer of
 *   each chunk, 2 x 1 x 8 = 2 x (1 + 1) x 4 = 16 each. M = b (s/cp) h x
 *   2 = 512 x 1024 x 2 = 1,048,576 B, half of it sent on 2 ranks:
 *   (5 x 32 + 2 x 16) x 524,288 = 100,663,296 B.
 *   CP (p2p, 2 ranks): K/V chunk C = 512 tokens x 4 KV heads x (128 +
 *   128) x 2 B = 1,048,576 B, passed once a layer forward, once again and
 *   dK/dV once backward, 2 x 8 = 4 x 4 = 16 sends each, and once more
 *   for the recomputed forward of 1 layer of each chunk, as TP's, 1 x 8 =
 *   (1 + 1) x 4 = 8 sends: 56 C = 58,720,256 B (before, every layer's
 *   forward was replayed: 64 C).
 *   PP: a middle rank, 8 sends each way (DualPipe: 4 of each stage) of
 *   the s/t slice, 524,288 B: 8,388,608 B.
 *   The model's ends (tp.c ends_calls, sequence parallel, custom: the
 *   head's input re-gathered): 1F1B's analysed rank is the last stage,
 *   the head's gather, reduce-scatter and re-gather 8 times each, 24 x
 *   524,288, and the loss's 3 x 8 AllReduces of 4 x 512 = 2,048 B, sent
 *   whole on 2 ranks: 12,582,912 + 49,152 = 12,632,064 B. DualPipe's rank
 *   0 holds stage 0 and stage 3, 4 microbatches each: the embedding's
 *   reduce-scatter and its gradient's gather, 8 calls, the head's 12, the
 *   loss's 12: 20 x 524,288 + 12 x 2,048 = 10,510,336 B.
 * Before, DualPipe counted both stages for all 8 microbatches: twice the
 * TP's non-recomputed calls and the CP's sends. */
/* 8 layers, 2 nodes of 8, tp 2 with SP, cp 2, pp 4: the model, the
 * cluster and the parallel section's start, for the tests below */
#define TP_CP_FIXTURE                                                                                         \
	"{\"model\": {\"num_layers\": 8, \"hidden_size\": 1024, \"num_attention_heads\": 8,"                     \
	" \"num_kv_heads\": 8, \"ffn_hidden_size\": 4096, \"vocab_size\": 1000, \"seq_length\": 1024},"           \
	" \"cluster\": {\"num_nodes\": 2, \"gpus_per_node\": 8, \"gpu_memory\": \"80 GiB\","                      \
	" \"intra_node\": {\"bandwidth\": \"300 GB/s\"}, \"inter_node\": {\"bandwidth\": \"400 Gb/s\"}},"         \
	" \"parallel\": {\"tp\": 2, \"cp\": 2, \"pp\": 4, \"sequence_parallel\": true,"

START_TEST(test_dualpipe_tp_cp_per_chunk_microbatch)
{
	static const char *const sched[] = {"1f1b", "dualpipe"};
	for (int i = 0; i < 2; i++) {
		struct dc_config c;
		struct dc_comm m;
		fixture_json(&c,
			     TP_CP_FIXTURE
			     " \"cp_comm_type\": \"p2p\", \"pipeline_schedule\": \"%s\"},"
			     " \"training\": {\"grad_accum_steps\": 8, \"recompute\": \"full\", \"recompute_layers\": 1}}",
			     sched[i]);
		m = compute(&c);
		ck_assert_uint_eq(m.layers, i == 0 ? 2 : 4);
		ck_assert_uint_eq(calls_of(&m, DC_STRAT_TP, DC_CW_TP_SEQ_IN_G), 32);
		ck_assert_uint_eq(calls_of(&m, DC_STRAT_TP, DC_CW_TP_INPUT_REGATHER), 32);
		ck_assert_uint_eq(calls_of(&m, DC_STRAT_TP, DC_CW_TP_SEQ_RECOMPUTED), 16);
		ck_assert_uint_eq(calls_of(&m, DC_STRAT_TP, DC_CW_TP_OUTPUT_RECOMPUTED), 16);
		ck_assert_uint_eq(calls_of(&m, DC_STRAT_TP, DC_CW_TP_EMBED_OUT), i == 0 ? 0 : 4);
		ck_assert_uint_eq(calls_of(&m, DC_STRAT_TP, DC_CW_TP_EMBED_GRAD), i == 0 ? 0 : 4);
		ck_assert_uint_eq(calls_of(&m, DC_STRAT_TP, DC_CW_TP_HEAD_IN), i == 0 ? 8 : 4);
		ck_assert_uint_eq(calls_of(&m, DC_STRAT_TP, DC_CW_TP_HEAD_REGATHER), i == 0 ? 8 : 4);
		ck_assert_uint_eq(m.s[DC_STRAT_TP].bytes_per_rank, 100663296ull + (i == 0 ? 12632064ull : 10510336ull));
		ck_assert_uint_eq(calls_of(&m, DC_STRAT_CP, DC_CW_CP_KV_NEXT), 16);
		ck_assert_uint_eq(calls_of(&m, DC_STRAT_CP, DC_CW_CP_DKV_HOME), 16);
		ck_assert_uint_eq(calls_of(&m, DC_STRAT_CP, DC_CW_CP_KV_NEXT_RECOMPUTED), 8);
		ck_assert_uint_eq(m.s[DC_STRAT_CP].bytes_per_rank, 58720256ull);
		/* 1F1B's analysed rank, the last stage (its head calls above),
		 * sends its 8 gradients back and no activation on: 8 x 524,288
		 * = 4,194,304 B; DualPipe's, an end rank (its embedding and head
		 * calls above), 4 of each for its two stages' 4 microbatches:
		 * the same bytes */
		ck_assert_uint_eq(calls_of(&m, DC_STRAT_PP, DC_CW_PP_ACTIVATIONS), i == 0 ? 0 : 4);
		ck_assert_uint_eq(calls_of(&m, DC_STRAT_PP, DC_CW_PP_GRADIENTS), i == 0 ? 8 : 4);
		ck_assert_uint_eq(m.s[DC_STRAT_PP].bytes_per_rank, 4194304ull);
	}
}
END_TEST

/* Selective recompute's modules rerun their own collectives (tp.c
 * module_replays, cp.c): on the fixture above (2 dense layers a rank, 8
 * microbatches, tp 2 with SP, cp 2 p2p) core_attn, the default, replays
 * each layer's K/V ring in backward, 2 x 8 x (cp - 1) = 16 sends, and no
 * TP call; mlp reruns fc1's gather and fc2's reduce-scatter, 2 x 8 = 16
 * each, and without core_attn no K/V send is replayed. */
START_TEST(test_recompute_modules_replays)
{
	static const char *const mods[] = {"[\"core_attn\"]", "[\"mlp\"]", "[\"mlp\", \"core_attn\"]"};
	static const uint64_t tp_re[] = {0, 16, 16}, cp_re[] = {16, 0, 16};
	for (int i = 0; i < 3; i++) {
		struct dc_config c;
		struct dc_comm m;
		fixture_json(&c,
			     TP_CP_FIXTURE
			     " \"cp_comm_type\": \"p2p\"},"
			     " \"training\": {\"grad_accum_steps\": 8, \"recompute\": \"selective\", \"framework\": \"megatron\","
			     " \"recompute_modules\": %s}}",
			     mods[i]);
		m = compute(&c);
		ck_assert_uint_eq(m.layers, 2);
		ck_assert_uint_eq(calls_of(&m, DC_STRAT_TP, DC_CW_TP_SEQ_IN_G), 32);
		ck_assert_uint_eq(calls_of(&m, DC_STRAT_TP, DC_CW_TP_SEQ_RECOMPUTED), tp_re[i]);
		ck_assert_uint_eq(calls_of(&m, DC_STRAT_TP, DC_CW_TP_OUTPUT_RECOMPUTED), tp_re[i]);
		ck_assert_uint_eq(calls_of(&m, DC_STRAT_CP, DC_CW_CP_KV_NEXT_RECOMPUTED), cp_re[i]);
	}
}
END_TEST

/* The moe module checkpoints every MoE layer's MLP part, the token
 * dispatcher inside it (moe_layer.py:701): on configs/mixtral-8x7b-ep.json
 * (32 MoE layers on pp 4: 8 a rank, 16 microbatches, ep 4) a rank sends
 * 2 x 8 x 16 = 256 dispatch and combine AlltoAlls forward and as many
 * again in backward; with the default core_attn none. Mixtral has no
 * shared expert and no MLA, so no TP call is rerun. */
/* The chance that a token's experts meet a span of experts, by hand.
 * DeepSeek-V3 (256 experts in 8 groups of 32, a token's 8 from 4 groups,
 * 8 / 4 = 2 from each): a node of EP 64 on 8 nodes holds one whole group,
 * met when it is chosen, 4/8; a rank's 4 experts when their group is
 * chosen and one of its 2 draws from its 32 lands on them, 4/8 x (1 -
 * C(28, 2) / C(32, 2)) = 0.5 x (1 - 378/496). Without groups, experts 0-31
 * are met with 1 - C(224, 8) / C(256, 8). A span across groups: 12
 * experts in 3 groups of 4, 2 groups a token, 1 expert each: [2, 6) holds
 * 2 of group 0 and 2 of group 1; groups {0, 1} miss it with (2/4)(2/4),
 * {0, 2} and {1, 2} with 2/4: 1 - (1/4 + 1/2 + 1/2) / 3 = 7/12. Where T
 * does not divide k the k are drawn over the chosen groups' experts: 3 of
 * them over 2 groups of 4, {0, 1} missing [2, 6) with C(4, 3) / C(8, 3) =
 * 4/56, the others with 20/56: 1 - 44/168 = 31/42. 1024 groups of one
 * expert, 512 drawn, 8 experts among them: any 8 of 1024, so [0, 16) is
 * met with 1 - C(1008, 8) / C(1024, 8) = 0.1187580 (no overflow). */
START_TEST(test_ep_hit_chance_by_hand)
{
	double flat = 1, big = 1;
	for (int i = 0; i < 8; i++) {
		flat *= (224.0 - i) / (256.0 - i);
		big *= (1008.0 - i) / (1024.0 - i);
	}
	assert_close(dc_ep_hit_chance(256, 8, 4, 8, 32, 64), 0.5);
	assert_close(dc_ep_hit_chance(256, 8, 4, 8, 0, 4), 0.5 * (1 - 378.0 / 496.0));
	assert_close(dc_ep_hit_chance(256, 1, 1, 8, 0, 32), 1 - flat);
	assert_close(dc_ep_hit_chance(12, 3, 2, 2, 2, 6), 7.0 / 12.0);
	assert_close(dc_ep_hit_chance(12, 3, 2, 3, 2, 6), 31.0 / 42.0);
	/* the weights in logarithms (lgamma near 1024!): 1e-10, not exact */
	ck_assert_double_eq_tol(dc_ep_hit_chance(1024, 1024, 512, 8, 0, 16), 1 - big, 1e-10);
	/* every expert: met for sure; one group of two, both drawn: met */
	assert_close(dc_ep_hit_chance(256, 8, 4, 8, 0, 256), 1.0);
	assert_close(dc_ep_hit_chance(4, 2, 1, 2, 0, 2), 0.5);
}
END_TEST

/* DeepEP's rows (training.moe_dispatcher "deepep", ep.c deepep_push) on
 * configs/deepseek-v3-h800.json: EP 64 over 8 nodes of 8 ranks, 4096
 * tokens a microbatch on a rank, 7168 x 2 B a token. The network row: an
 * AlltoAll over the 8 nodes of D = 8 x 0.5 = 4 tokens a token
 * (test_ep_hit_chance_by_hand: a node is a group), 4096 x 14336 x 4 =
 * 234,881,024 B; the NVLink row over a node's 8 ranks of R = 64 x 0.5 x
 * (1 - 378/496) = 7.6129, 447,031,626 B. The two run at once: the NVLink
 * part (7/8 of 447 MB on the H800's NVLink) is the shorter, its row
 * carries no time. Under "alltoall" one row of 4096 x 8 x 14336 =
 * 469,762,048 B over the 64 ranks. */
START_TEST(test_deepep_rows_by_hand)
{
	struct dc_override ov[1] = {{"training.moe_dispatcher=alltoall", 0}};
	struct dc_config c;
	struct dc_diag d;
	struct dc_comm m;
	const struct dc_comm_strategy *s;
	double row = 4096.0 * 14336.0;
	dc_diag_init(&d);
	ck_assert_int_eq(dc_config_load_file(DC_SOURCE_DIR "/configs/deepseek-v3-h800.json", NULL, 0, &c, &d), 0);
	dc_diag_release(&d);
	m = compute(&c);
	s = &m.s[DC_STRAT_EP];
	ck_assert_uint_ge(s->ncoll, 4);
	ck_assert_int_eq(s->coll[0].what, DC_CW_EP_DISPATCH_COMBINE);
	ck_assert_uint_eq(s->coll[0].group_size, 8);
	ck_assert_int_eq(s->coll[0].link, DC_LINK_INTER);
	ck_assert_uint_eq(s->coll[0].msg_bytes, (uint64_t)llround(row * 4));
	ck_assert_uint_eq(s->coll[0].msg_bytes, 234881024ull);
	ck_assert_uint_eq(s->coll[1].group_size, 8);
	ck_assert_int_eq(s->coll[1].link, DC_LINK_INTRA);
	ck_assert_uint_eq(s->coll[1].msg_bytes, (uint64_t)llround(row * 64 * 0.5 * (1 - 378.0 / 496.0)));
	ck_assert_uint_eq(s->coll[1].msg_bytes, 447031626ull);
	ck_assert(s->coll[0].time_s > 0);
	ck_assert(s->coll[1].time_s == 0);
	ck_assert_uint_eq(s->coll[0].count, s->coll[1].count);
	/* the backward's gradients: the same two rows */
	ck_assert_int_eq(s->coll[2].what, DC_CW_EP_GRADIENTS);
	ck_assert_uint_eq(s->coll[2].msg_bytes, 234881024ull);
	ck_assert_uint_eq(s->coll[3].msg_bytes, 447031626ull);
	dc_diag_init(&d);
	ck_assert_int_eq(dc_config_load_file(DC_SOURCE_DIR "/configs/deepseek-v3-h800.json", ov, 1, &c, &d), 0);
	dc_diag_release(&d);
	m = compute(&c);
	s = &m.s[DC_STRAT_EP];
	ck_assert_uint_eq(s->coll[0].group_size, 64);
	ck_assert_uint_eq(s->coll[0].msg_bytes, 469762048ull);
}
END_TEST

START_TEST(test_moe_module_replays_dispatch)
{
	struct dc_override ov[2] = {{"training.framework=megatron", 0}, {"parallel.sequence_parallel=true", 0}};
	struct dc_config c;
	struct dc_diag d;
	struct dc_comm m;
	dc_diag_init(&d);
	ck_assert_int_eq(dc_config_load_file(DC_SOURCE_DIR "/configs/mixtral-8x7b-ep.json", ov, 2, &c, &d), 0);
	dc_diag_release(&d);
	m = compute(&c);
	ck_assert_uint_eq(calls_of(&m, DC_STRAT_EP, DC_CW_EP_DISPATCH_COMBINE), 256);
	ck_assert_uint_eq(calls_of(&m, DC_STRAT_EP, DC_CW_EP_DISPATCH_COMBINE_RECOMPUTED), 0);
	c.training.recompute_modules_mask = DC_RCM(DC_RCM_MOE);
	m = compute(&c);
	ck_assert_uint_eq(calls_of(&m, DC_STRAT_EP, DC_CW_EP_DISPATCH_COMBINE_RECOMPUTED), 256);
	ck_assert_uint_eq(calls_of(&m, DC_STRAT_TP, DC_CW_TP_SEQ_RECOMPUTED), 0);
}
END_TEST

/* The data-parallel axes that reduce every microbatch, under DualPipe:
 * the test above's 64e6 parameters given over 8 layers on pp 4 (16e6 a
 * stage, 8e6 a layer), dp 2, 8 microbatches, 2-byte gradients and
 * parameters, one bucket. ZeRO-2 reduce-scatters a chunk's gradients
 * every microbatch it runs: 1F1B 8 x 32e6 B, DualPipe 4 x (32e6 + 32e6)
 * B, half of each sent on 2 ranks, 128e6 B either way, and gathers the
 * updated parameters once, 16e6 (1F1B) or 32e6 B (both stages): 144e6
 * and 160e6 B (before: DualPipe 8 x 64e6 / 2 + 32e6 = 288e6). FSDP under
 * a pipeline reduce-scatters each unit once a step, after the last
 * backward, and (resharding after forward, the custom default) gathers a
 * unit before the chunk's first op and again after each of its forwards,
 * 1 + the microbatches its chunk runs: 1F1B 2 units x (9 + 1) = 20 calls,
 * DualPipe 4 units x (5 + 1) = 24 calls of 16e6 B, 8e6 B sent each:
 * 160e6 and 192e6 B (before: 3 x 2 x 8 = 3 x 4 x 4 = 48 calls, 384e6 B,
 * a gather before every forward and backward and a reduce-scatter every
 * microbatch). DualPipe then sums with the mirror rank, once a step, what
 * each rank holds reduced: ZeRO-2's accumulated shard, 64e6 / 2 = 32e6 B,
 * 32e6 B sent on 2 ranks (192e6 B in all); FSDP each unit's shard, 4
 * calls of 8e6 B, 32e6 B sent (224e6 B). */
START_TEST(test_dualpipe_reduces_per_chunk_microbatch)
{
	static const char *const sched[] = {"1f1b", "dualpipe"};
	static const uint64_t zero2[] = {144000000ull, 192000000ull};
	for (int i = 0; i < 2; i++) {
		for (int fsdp = 0; fsdp < 2; fsdp++) {
			struct dc_config c;
			struct dc_comm m;
			fixture_json(&c,
				     "{\"model\": {\"params\": 64000000, \"num_layers\": 8, \"hidden_size\": 1024,"
				     " \"num_attention_heads\": 8, \"vocab_size\": 32000, \"seq_length\": 1024},"
				     " \"cluster\": {\"num_nodes\": 1, \"gpus_per_node\": 8, \"gpu_memory\": \"80 GiB\","
				     " \"intra_node\": {\"bandwidth\": \"300 GB/s\"}, \"inter_node\": {\"bandwidth\": \"400 Gb/s\"}},"
				     " \"parallel\": {\"pp\": 4, \"dp\": 2, \"pipeline_schedule\": \"%s\", \"sharding\": \"%s\","
				     " \"bucket_size\": \"1 GiB\"},"
				     " \"training\": {\"grad_accum_steps\": 8}}",
				     sched[i], fsdp ? "fsdp" : "zero2");
			m = compute(&c);
			if (fsdp) {
				ck_assert_uint_eq(calls_of(&m, DC_STRAT_FSDP, DC_CW_UNIT_PARAMS), i == 0 ? 18 : 20);
				ck_assert_uint_eq(calls_of(&m, DC_STRAT_FSDP, DC_CW_UNIT_GRADS), i == 0 ? 2 : 4);
				ck_assert_uint_eq(calls_of(&m, DC_STRAT_FSDP, DC_CW_MIRROR_GRAD_BUCKET), i == 0 ? 0 : 4);
				ck_assert_uint_eq(bytes_of(&m, DC_STRAT_FSDP, DC_CW_MIRROR_GRAD_BUCKET), i == 0 ? 0 : 32000000ull);
				ck_assert_uint_eq(m.s[DC_STRAT_FSDP].bytes_per_rank, i == 0 ? 160000000ull : 224000000ull);
			} else {
				ck_assert_uint_eq(calls_of(&m, DC_STRAT_DP, DC_CW_GRAD_BUCKET), i == 0 ? 8 : 4);
				ck_assert_uint_eq(calls_of(&m, DC_STRAT_DP, DC_CW_MIRROR_GRAD_BUCKET), i == 0 ? 0 : 1);
				ck_assert_uint_eq(m.s[DC_STRAT_DP].bytes_per_rank, zero2[i]);
			}
		}
	}
}
END_TEST

/* The calls of one phase of the FSDP strategy that move `what`. */
static uint64_t fsdp_calls_in(const struct dc_comm *m, enum dc_coll_what what, enum dc_coll_phase ph)
{
	uint64_t n = 0;
	for (uint64_t i = 0; i < m->s[DC_STRAT_FSDP].ncoll; i++)
		if (m->s[DC_STRAT_FSDP].coll[i].what == what && m->s[DC_STRAT_FSDP].coll[i].phase == ph)
			n += m->s[DC_STRAT_FSDP].coll[i].count;
	return n;
}

/* FSDP under a pipeline (torch.distributed.pipelining: every backward
 * with reshard_after_backward and requires_gradient_sync false, one
 * post-backward after the last; stage.py backward_maybe_with_nosync,
 * _post_backward). The test above's pp 4 x dp 2, m 8, 1F1B, stage 0
 * analysed: 2 layer units of 8e6 parameters, 16e6 B, 8e6 B sent a call
 * on 2 ranks.
 *   torchtitan (reshard_after_forward false under pp): each unit
 *   gathered once, before the first forward, and reduce-scattered once:
 *   4 calls, 32e6 B (before: 2 x 2 x 8 = 32 calls, 256e6 B).
 *   torchtitan with reshard_after_forward true: 1 + 8 gathers a unit,
 *   the 4 forwards before stage 0's first backward (min(pp - s, m))
 *   taken as forward, the 5 after as backward: 8 forward, 10 backward
 *   and 2 reduce-scatter calls, 160e6 B. */
START_TEST(test_fsdp_pipeline_reduces_once)
{
	for (int reshard = 0; reshard < 2; reshard++) {
		struct dc_config c;
		struct dc_comm m;
		fixture_json(&c,
			     "{\"model\": {\"params\": 64000000, \"num_layers\": 8, \"hidden_size\": 1024,"
			     " \"num_attention_heads\": 8, \"vocab_size\": 32000, \"seq_length\": 1024},"
			     " \"cluster\": {\"num_nodes\": 1, \"gpus_per_node\": 8, \"gpu_memory\": \"80 GiB\","
			     " \"intra_node\": {\"bandwidth\": \"300 GB/s\"}, \"inter_node\": {\"bandwidth\": \"400 Gb/s\"}},"
			     " \"parallel\": {\"pp\": 4, \"dp\": 2, \"sharding\": \"fsdp\"%s},"
			     " \"training\": {\"grad_accum_steps\": 8, \"framework\": \"torchtitan\"}}",
			     reshard ? ", \"reshard_after_forward\": true" : "");
		m = compute(&c);
		ck_assert_uint_eq(m.stage, 0);
		ck_assert_uint_eq(fsdp_calls_in(&m, DC_CW_UNIT_PARAMS, DC_CPHASE_FORWARD), reshard ? 8 : 2);
		ck_assert_uint_eq(fsdp_calls_in(&m, DC_CW_UNIT_PARAMS, DC_CPHASE_BACKWARD), reshard ? 10 : 0);
		ck_assert_uint_eq(calls_of(&m, DC_STRAT_FSDP, DC_CW_UNIT_GRADS), 2);
		ck_assert_uint_eq(m.s[DC_STRAT_FSDP].bytes_per_rank, reshard ? 160000000ull : 32000000ull);
	}
}
END_TEST

/* A torchtitan Llama-3-70B on 8 DGX H100: tp 8 + SP, pp 2,
 * FSDP dp 4, global batch 128 (m 32), fsdp2 preset (2 B gathered
 * parameters, 4 B reduced gradients). Stage 1 (the head) is analysed:
 * 40 layers of (2 x 8192^2 + 2 x 8192 x 1024 + 3 x 8192 x 28672) / 8 +
 * 2 x 8192 = 106,971,136 parameters a rank, and the root's head and
 * final norm, 128,256 x 8192 / 8 + 8192 = 131,342,336. Under the
 * pipeline each unit is gathered once and reduce-scattered once a step:
 * 41 AllGathers and 41 ReduceScatters (1,280 + 32 of each before), 3/4
 * of each message sent: 3/4 x (40 x (213,942,272 + 427,884,544) +
 * 262,684,672 + 525,369,344) = 19,845,844,992 B (32 times that,
 * 635,067,039,744 B, before). */
START_TEST(test_fsdp_pipeline_llama3_70b)
{
	struct dc_config c;
	struct dc_comm m;
	fixture_json(&c, "{\"model\": {\"hf_config\": \"llama-3-70b\", \"seq_length\": 8192},"
			 " \"cluster\": {\"system\": \"dgx-h100\", \"num_nodes\": 8},"
			 " \"parallel\": {\"tp\": 8, \"pp\": 2, \"dp\": 4, \"sharding\": \"fsdp\","
			 " \"sequence_parallel\": true},"
			 " \"training\": {\"micro_batch_size\": 1, \"global_batch_size\": 128,"
			 " \"framework\": \"torchtitan\", \"recompute\": \"op\"},"
			 " \"precision\": {\"preset\": \"fsdp2\"}}");
	m = compute(&c);
	ck_assert_uint_eq(m.stage, 1);
	ck_assert_uint_eq(calls_of(&m, DC_STRAT_FSDP, DC_CW_UNIT_PARAMS), 40);
	ck_assert_uint_eq(calls_of(&m, DC_STRAT_FSDP, DC_CW_HEAD_PARAMS), 1);
	ck_assert_uint_eq(calls_of(&m, DC_STRAT_FSDP, DC_CW_UNIT_GRADS), 40);
	ck_assert_uint_eq(calls_of(&m, DC_STRAT_FSDP, DC_CW_HEAD_GRADS), 1);
	ck_assert_uint_eq(m.s[DC_STRAT_FSDP].coll[0].msg_bytes, 213942272ull);
	ck_assert_uint_eq(m.s[DC_STRAT_FSDP].bytes_per_rank, 19845844992ull);
	/* "always" (reshard_after_forward true under pp): [norm, lm_head]
	 * reshards too, gathered 1 + 32 times like a layer unit, the
	 * min(pp - 1, m) = 1 before stage 1's first backward as forward */
	c.parallel.reshard_after_forward = 1;
	c.parallel.reshard_given = 1;
	m = compute(&c);
	ck_assert_uint_eq(fsdp_calls_in(&m, DC_CW_HEAD_PARAMS, DC_CPHASE_FORWARD), 1);
	ck_assert_uint_eq(fsdp_calls_in(&m, DC_CW_HEAD_PARAMS, DC_CPHASE_BACKWARD), 32);
	ck_assert_uint_eq(calls_of(&m, DC_STRAT_FSDP, DC_CW_HEAD_GRADS), 1);
}
END_TEST

/* torchtitan's own units for the embedding and the head
 * (torchtitan/distributed/fsdp.py:238-265 at b5bcd76c): Llama-3-8B,
 * untied, on 8 ranks (dp 8, tp 1), fsdp2 preset (2 B gathered, 4 B
 * reduced). tok_embeddings, 128,256 x 4,096 = 525,336,576 parameters, is
 * a unit under the layers' policy (resharded at pp 1): gathered before
 * its forward and again before its backward, 1,050,673,152 B each, and
 * reduce-scattered, 2,101,346,304 B. [norm, lm_head], 525,336,576 +
 * 4,096 = 525,340,672 parameters, is not resharded after forward: one
 * gather of 1,050,681,344 B, one reduce-scatter of 2,101,362,688 B, a
 * microbatch: with 2 microbatches every count doubles. Tied weights:
 * the three are one
 * unit, resharded only under "always": the root's single gather. Under
 * framework custom the root unit is unchanged: one gather of both,
 * 2,101,354,496 B. */
START_TEST(test_fsdp_torchtitan_embedding_and_head_units)
{
	static const char *const fw[] = {"torchtitan", "custom"};
	for (int m = 1; m <= 2; m++)
		for (int f = 0; f < 2; f++) {
			struct dc_config c;
			struct dc_comm r;
			uint64_t n = (uint64_t)m;
			fixture_json(&c,
				     "{\"model\": {\"hf_config\": \"llama-3-8b\", \"seq_length\": 8192},"
				     " \"cluster\": {\"num_nodes\": 1, \"gpus_per_node\": 8, \"gpu_memory\": \"95 GiB\","
				     " \"intra_node\": {\"bandwidth\": \"450 GB/s\", \"latency\": \"5 us\"},"
				     " \"inter_node\": {\"bandwidth\": \"400 Gb/s\", \"latency\": \"10 us\"}},"
				     " \"parallel\": {\"dp\": 8, \"sharding\": \"fsdp\"},"
				     " \"training\": {\"micro_batch_size\": 2, \"global_batch_size\": %d,"
				     " \"recompute\": \"op\", \"framework\": \"%s\"},"
				     " \"precision\": {\"preset\": \"fsdp2\"}}",
				     16 * m, fw[f]);
			r = compute(&c);
			if (f == 1) {
				ck_assert_uint_eq(fsdp_calls_in(&r, DC_CW_ROOT_PARAMS, DC_CPHASE_FORWARD), n);
				ck_assert_uint_eq(fsdp_calls_in(&r, DC_CW_ROOT_PARAMS, DC_CPHASE_BACKWARD), 0);
				ck_assert_uint_eq(calls_of(&r, DC_STRAT_FSDP, DC_CW_EMBED_PARAMS), 0);
				ck_assert_uint_eq(calls_of(&r, DC_STRAT_FSDP, DC_CW_HEAD_PARAMS), 0);
				continue;
			}
			ck_assert_uint_eq(calls_of(&r, DC_STRAT_FSDP, DC_CW_ROOT_PARAMS), 0);
			ck_assert_uint_eq(calls_of(&r, DC_STRAT_FSDP, DC_CW_ROOT_GRADS), 0);
			ck_assert_uint_eq(fsdp_calls_in(&r, DC_CW_EMBED_PARAMS, DC_CPHASE_FORWARD), n);
			ck_assert_uint_eq(fsdp_calls_in(&r, DC_CW_EMBED_PARAMS, DC_CPHASE_BACKWARD), n);
			ck_assert_uint_eq(fsdp_calls_in(&r, DC_CW_HEAD_PARAMS, DC_CPHASE_FORWARD), n);
			ck_assert_uint_eq(fsdp_calls_in(&r, DC_CW_HEAD_PARAMS, DC_CPHASE_BACKWARD), 0);
			ck_assert_uint_eq(calls_of(&r, DC_STRAT_FSDP, DC_CW_EMBED_GRADS), n);
			ck_assert_uint_eq(calls_of(&r, DC_STRAT_FSDP, DC_CW_HEAD_GRADS), n);
			for (uint64_t i = 0; i < r.s[DC_STRAT_FSDP].ncoll; i++) {
				const struct dc_coll *row = &r.s[DC_STRAT_FSDP].coll[i];
				if (row->what == DC_CW_EMBED_PARAMS)
					ck_assert_uint_eq(row->msg_bytes, 1050673152ull);
				else if (row->what == DC_CW_EMBED_GRADS)
					ck_assert_uint_eq(row->msg_bytes, 2101346304ull);
				else if (row->what == DC_CW_HEAD_PARAMS)
					ck_assert_uint_eq(row->msg_bytes, 1050681344ull);
				else if (row->what == DC_CW_HEAD_GRADS)
					ck_assert_uint_eq(row->msg_bytes, 2101362688ull);
			}
			if (m == 1) {
				/* tied: one unit of all three, kept through backward */
				c.model.tie_word_embeddings = 1;
				r = compute(&c);
				ck_assert_uint_eq(fsdp_calls_in(&r, DC_CW_ROOT_PARAMS, DC_CPHASE_FORWARD), 1);
				ck_assert_uint_eq(fsdp_calls_in(&r, DC_CW_ROOT_PARAMS, DC_CPHASE_BACKWARD), 0);
				ck_assert_uint_eq(calls_of(&r, DC_STRAT_FSDP, DC_CW_EMBED_PARAMS), 0);
			}
		}
}
END_TEST

/* fsdp_unit "model": one fully_shard(model), the root, which FSDP2 never
 * reshards after forward (FSDPState._lazy_init): the ZeRO config's psi =
 * 64e6 parameters, 128e6 B, gathered once and reduce-scattered once a
 * microbatch on 8 ranks: 2 x 7/8 x 128e6 = 224e6 B (336e6 B when it was
 * gathered again for backward); 4 microbatches: 896e6 B. Resharding
 * after forward (the key's default) does not apply to the root. */
START_TEST(test_fsdp_whole_model_is_root)
{
	struct dc_config c;
	struct dc_comm m;
	zero_comm_config(&c, DC_SHARD_FSDP);
	c.parallel.fsdp_unit = DC_FSDP_UNIT_MODEL;
	m = compute(&c);
	ck_assert_uint_eq(fsdp_calls_in(&m, DC_CW_UNIT_PARAMS, DC_CPHASE_FORWARD), 1);
	ck_assert_uint_eq(fsdp_calls_in(&m, DC_CW_UNIT_PARAMS, DC_CPHASE_BACKWARD), 0);
	ck_assert_uint_eq(calls_of(&m, DC_STRAT_FSDP, DC_CW_UNIT_GRADS), 1);
	ck_assert_uint_eq(m.s[DC_STRAT_FSDP].coll[0].msg_bytes, 128000000ull);
	ck_assert_uint_eq(m.s[DC_STRAT_FSDP].bytes_per_rank, 224000000ull);
	c.training.grad_accum_steps = 4;
	m = compute(&c);
	ck_assert_uint_eq(m.s[DC_STRAT_FSDP].bytes_per_rank, 896000000ull);
}
END_TEST

START_TEST(test_ddp_buckets)
{
	/* 128,000,000 B of grads in 25 MiB (26,214,400 B) buckets: 4 full
	 * buckets and one of 128,000,000 - 104,857,600 = 23,142,400 B. One
	 * full-bucket AllReduce on 8 ranks, one per node, one 50 GB/s NIC each,
	 * 10 us per network hop, 2 channels (2 x 1 NIC), no GPU preset
	 * (Ampere's caps; docs/network-model.md, by hand): the ring carries
	 * 2 x 7/8 x 26,214,400 = 45,875,200 bus bytes; every one of its 14
	 * steps crosses the network, at the tree's network hop (one GPU per
	 * node). Simple: (8.4 us + 14 x 10 us) x 1.4 (the ring's plateau) =
	 * 207.76 us + 45,875,200 / 50e9 = 917.504 us: 1125.264 us, the
	 * fastest. LL128: 14 + 14 x 10 x 8.5/14 = 99 us + 45,875,200 /
	 * min(0.92 x 50, 2 channels x 20) GB/s = 1146.88 us: 1245.88 us; LL:
	 * 1/4 of the rate; tree: min(0.92 x 25, 2 x 17.8 / 2) GB/s x 0.7 (the
	 * size factor); no hierarchy with one rank per node. */
	struct dc_config c;
	struct dc_comm m;
	const struct dc_comm_strategy *s;

	zero_comm_config(&c, DC_SHARD_NONE);
	c.parallel.bucket_bytes = 25u << 20;
	c.cluster.gpus_per_node = 1; /* every rank on its own node */
	c.cluster.nvlink_domain = 1;
	c.cluster.nics_per_node = 1;
	c.cluster.num_nodes = 8;
	m = compute(&c);
	s = &m.s[DC_STRAT_DP];
	ck_assert_int_eq(s->link, DC_LINK_INTER);
	ck_assert_uint_eq(s->ncoll, 2);
	ck_assert_uint_eq(s->coll[0].count, 4);
	ck_assert_uint_eq(s->coll[0].msg_bytes, 26214400ull);
	ck_assert_uint_eq(s->coll[1].count, 1);
	ck_assert_uint_eq(s->coll[1].msg_bytes, 23142400ull);
	assert_close(s->coll[0].time_s, 4 * (207.76e-6 + 45875200.0 / 50e9));
	ck_assert_str_eq(s->coll[0].algorithm, "ring");
	ck_assert_str_eq(s->coll[0].protocol, "Simple");
	/* 2 x 7/8 of each: 4 x 45,875,200 + 40,499,200 = 224,000,000 */
	ck_assert_uint_eq(s->bytes_per_rank, 224000000ull);
}
END_TEST

START_TEST(test_tp_bytes_per_layer)
{
	/* Megatron-LM 2021 section 3: 8 b s h (t-1)/t elements per layer per
	 * microbatch. b 2, s 1024, h 2048, t 4: bsh = 4,194,304;
	 * 8 x 4,194,304 x 3/4 = 25,165,824 elements x 2 B = 50,331,648 B */
	struct dc_config c;
	struct dc_comm m;

	/* one call: 2 x 3/4 x 8,388,608 = 12,582,912 B; four per layer */
	ck_assert_uint_eq(4 * dc_coll_bytes_sent(DC_COLL_ALL_REDUCE, 4, 8388608), 50331648ull);
	/* t = 1: nothing */
	ck_assert_uint_eq(dc_coll_bytes_sent(DC_COLL_ALL_REDUCE, 1, 8388608), 0);

	/* the same shape in a config: 4 layers, 3 microbatches, tp 4 x dp 2 */
	zero_comm_config(&c, DC_SHARD_NONE);
	c.model.params_explicit = 0;
	c.model.hidden_size = 2048;
	c.model.num_attention_heads = 16;
	c.model.num_kv_heads = 16;
	c.model.head_dim = 128;
	c.model.ffn_hidden_size = 8192;
	c.model.vocab_size = 1000;
	c.model.mlp = DC_MLP_GELU;
	c.training.micro_batch_size = 2;
	c.training.grad_accum_steps = 3;
	c.parallel.tp = 4;
	c.parallel.dp = 2;
	m = compute(&c);
	/* 4 layers x 3 microbatches x 50,331,648 = 603,979,776 B; 2 x 4 x 3
	 * = 24 AllReduces of 2 x 1024 x 2048 x 2 = 8,388,608 B each way */
	ck_assert_uint_eq(tp_layers_bytes(&m), 603979776ull);
	ck_assert_uint_eq(m.s[DC_STRAT_TP].coll[0].count, 24);
	ck_assert_uint_eq(m.s[DC_STRAT_TP].coll[0].msg_bytes, 8388608ull);
	ck_assert_int_eq(m.s[DC_STRAT_TP].link, DC_LINK_INTRA);
}
END_TEST

START_TEST(test_pp_boundaries)
{
	/* b s h = 1 x 1024 x 1024 = 1,048,576 elements x 2 B = 2,097,152 B per
	 * microbatch per boundary; 5 microbatches. pp 4: a middle stage sends
	 * activations forward and gradients back, 2 x 5 x 2,097,152 =
	 * 20,971,520 B; the analysed one, the first (the embedding's: the most
	 * parameters here), sends its activations alone, 10,485,760 B. pp 2:
	 * one direction, 10,485,760 B. */
	struct dc_config c;
	struct dc_comm m;

	zero_comm_config(&c, DC_SHARD_NONE);
	c.training.grad_accum_steps = 5;
	c.parallel.pp = 4;
	c.parallel.dp = 2;
	m = compute(&c);
	ck_assert(m.s[DC_STRAT_PP].in_play);
	ck_assert_uint_eq(m.stage, 0);
	ck_assert_uint_eq(m.s[DC_STRAT_PP].bytes_per_rank, 10485760ull);
	ck_assert_uint_eq(m.s[DC_STRAT_PP].ncoll, 1);
	ck_assert_uint_eq(m.s[DC_STRAT_PP].coll[0].what, DC_CW_PP_ACTIVATIONS);
	ck_assert_uint_eq(m.s[DC_STRAT_PP].coll[0].count, 5);
	c.parallel.pp = 2;
	c.parallel.dp = 4;
	m = compute(&c);
	ck_assert_uint_eq(m.s[DC_STRAT_PP].bytes_per_rank, 10485760ull);
	/* pp 1: not in play */
	c.parallel.pp = 1;
	c.parallel.dp = 8;
	m = compute(&c);
	ck_assert(!m.s[DC_STRAT_PP].in_play);
}
END_TEST

START_TEST(test_zero2_reduces_every_microbatch)
{
	/* psi = 64e6 x 2 B = 128e6 B of grads, N_d 8, 4 microbatches.
	 * ZeRO-1 keeps full gradients: one ReduceScatter per step, 7/8 x 128e6
	 * = 112e6 B, and one AllGather of the params, 112e6 B: 224e6.
	 * ZeRO-2 keeps only its shard: a ReduceScatter every microbatch,
	 * 4 x 112e6, plus the AllGather: 560e6 B */
	struct dc_config c;
	struct dc_comm m;

	zero_comm_config(&c, DC_SHARD_ZERO1);
	c.training.grad_accum_steps = 4;
	m = compute(&c);
	ck_assert_uint_eq(m.s[DC_STRAT_DP].bytes_per_rank, 224000000ull);
	zero_comm_config(&c, DC_SHARD_ZERO2);
	c.training.grad_accum_steps = 4;
	m = compute(&c);
	ck_assert_uint_eq(m.s[DC_STRAT_DP].bytes_per_rank, 560000000ull);
	ck_assert_uint_eq(m.s[DC_STRAT_DP].coll[0].count, 4);
}
END_TEST

/* The same buffers under training.framework deepspeed, which all-reduces
 * each ZeRO-1/2 gradient bucket (use_multi_rank_bucket_allreduce,
 * deepspeed/runtime/zero/stage_1_and_2.py average_tensor at edaa7221):
 * ZeRO-1 one AllReduce of 128e6 B, 2 x 7/8 x 128e6 = 224e6 B, plus the
 * AllGather's 112e6: 336e6 B; ZeRO-2 one a microbatch, 4 x 224e6, plus
 * the AllGather: 1,008e6 B. */
START_TEST(test_deepspeed_zero_reduces_with_allreduce)
{
	struct dc_config c;
	struct dc_comm m;

	zero_comm_config(&c, DC_SHARD_ZERO1);
	c.training.grad_accum_steps = 4;
	c.training.framework = DC_FRAMEWORK_DEEPSPEED;
	m = compute(&c);
	ck_assert_int_eq(m.s[DC_STRAT_DP].coll[0].kind, DC_COLL_ALL_REDUCE);
	ck_assert_uint_eq(m.s[DC_STRAT_DP].coll[0].count, 1);
	ck_assert_uint_eq(m.s[DC_STRAT_DP].bytes_per_rank, 336000000ull);
	zero_comm_config(&c, DC_SHARD_ZERO2);
	c.training.grad_accum_steps = 4;
	c.training.framework = DC_FRAMEWORK_DEEPSPEED;
	m = compute(&c);
	ck_assert_int_eq(m.s[DC_STRAT_DP].coll[0].kind, DC_COLL_ALL_REDUCE);
	ck_assert_uint_eq(m.s[DC_STRAT_DP].coll[0].count, 4);
	ck_assert_uint_eq(m.s[DC_STRAT_DP].bytes_per_rank, 1008000000ull);
}
END_TEST

/* the tp test's shape: 4 layers, h 2048, b 2, s 1024, 3 microbatches,
 * tp 4 x dp 2; each b s h message is 8,388,608 B */
static void tp_config(struct dc_config *c)
{
	zero_comm_config(c, DC_SHARD_NONE);
	c->model.params_explicit = 0;
	c->model.hidden_size = 2048;
	c->model.num_attention_heads = 16;
	c->model.num_kv_heads = 16;
	c->model.head_dim = 128;
	c->model.ffn_hidden_size = 8192;
	c->model.vocab_size = 1000;
	c->model.mlp = DC_MLP_GELU;
	c->training.micro_batch_size = 2;
	c->training.grad_accum_steps = 3;
	c->parallel.tp = 4;
	c->parallel.dp = 2;
}

START_TEST(test_tp_sequence_parallel_and_recompute)
{
	/* Korthikanti 4.2.2: with SP each AllReduce becomes an AllGather and a
	 * ReduceScatter: 2 AG + 2 RS per layer per microbatch each way, 24 calls
	 * of each kind, each sending 3/4 x 8,388,608 = 6,291,456 B:
	 * 4 x 24 x 6,291,456 = 603,979,776 B, the same bytes as the AllReduces;
	 * Megatron gathers each layer input once more in backward for the
	 * weight gradients (it keeps only the s/t shard): + 24 x 6,291,456 =
	 * 754,974,720 B. Full recompute repeats the forward's collectives in
	 * backward: + 301,989,888 B with SP (1,056,964,608), half as much
	 * again without (905,969,664). */
	struct dc_config c;
	struct dc_comm m;
	const struct dc_comm_strategy *s;

	tp_config(&c);
	c.parallel.sequence_parallel = 1;
	m = compute(&c);
	s = &m.s[DC_STRAT_TP];
	ck_assert_uint_eq(tp_layers_bytes(&m), 754974720ull);
	ck_assert_uint_eq(tp_layer_rows(s), 5);
	ck_assert_int_eq(s->coll[0].kind, DC_COLL_ALL_GATHER);
	ck_assert_int_eq(s->coll[1].kind, DC_COLL_REDUCE_SCATTER);
	ck_assert_uint_eq(s->coll[0].count, 24);
	c.training.recompute = DC_RECOMPUTE_FULL;
	m = compute(&c);
	ck_assert_uint_eq(tp_layers_bytes(&m), 1056964608ull);
	c.parallel.sequence_parallel = 0;
	m = compute(&c);
	ck_assert_uint_eq(tp_layers_bytes(&m), 905969664ull);
	/* recompute_layers 1 of the 4 layers: 2 x 1 x 3 = 6 recomputed
	 * AllReduces of 12,582,912 B, a quarter of the 301,989,888:
	 * 603,979,776 + 75,497,472 = 679,477,248 */
	c.training.recompute_layers = 1;
	m = compute(&c);
	ck_assert_uint_eq(tp_layers_bytes(&m), 679477248ull);
	c.training.recompute_layers = 0;
	/* selective recompute reruns only the attention core: no TP traffic */
	c.training.recompute = DC_RECOMPUTE_SELECTIVE;
	m = compute(&c);
	ck_assert_uint_eq(tp_layers_bytes(&m), 603979776ull);
	/* torchtitan keeps the gathered inputs its linears saved (framework.h
	 * dc_framework_tp_keeps_gathered_input): with SP no re-gather, 4 x
	 * 24 x 6,291,456 = 603,979,776 B; full recompute's forward gathers
	 * again what the backward reads: + 301,989,888 = 905,969,664 B; its
	 * per-op policy saves no all-gather, so the recompute gathers the
	 * inputs again, the 24 re-gathers: 754,974,720 B */
	c.parallel.sequence_parallel = 1;
	c.training.framework = DC_FRAMEWORK_TORCHTITAN;
	m = compute(&c);
	ck_assert_uint_eq(tp_layer_rows(&m.s[DC_STRAT_TP]), 4);
	ck_assert_uint_eq(tp_layers_bytes(&m), 603979776ull);
	c.training.recompute = DC_RECOMPUTE_NONE;
	ck_assert_uint_eq(tp_bytes_of(&c), 603979776ull);
	c.training.recompute = DC_RECOMPUTE_FULL;
	ck_assert_uint_eq(tp_bytes_of(&c), 905969664ull);
	c.training.recompute = DC_RECOMPUTE_OP;
	ck_assert_uint_eq(tp_bytes_of(&c), 754974720ull);
}
END_TEST

/* The model's ends on the tp group (tp.c ends_calls, loss_reduces), by
 * hand on tp_config (pp 1: the rank holds the embedding and the head; 3
 * microbatches of b s = 2,048 tokens, h 2048, tp 4): M = 2,048 x 2,048 x 2
 * = 8,388,608 B; on 4 ranks an AllReduce sends 2 x 3/4 M = 12,582,912 B,
 * a ReduceScatter or an AllGather 3/4 M = 6,291,456 B. The loss: 3
 * AllReduces a microbatch of 4 x 2,048 = 8,192 B (FP32 maxima, sums,
 * target logits), 9 calls sending 12,288 B each, 110,592 B.
 * - no sequence parallelism: the embedding's AllReduce forward and the
 *   head's input-gradient AllReduce backward, 3 each: 6 x 12,582,912 +
 *   110,592 = 75,608,064 B;
 * - sequence parallelism (custom, as Megatron): the embedding's
 *   ReduceScatter and its gradient's AllGather, the head's input gathered,
 *   its gradient reduce-scattered, its input re-gathered for the weight
 *   gradient: 15 x 6,291,456 + 110,592 = 94,482,432 B;
 * - torchtitan keeps the head's gathered input: no re-gather, 12 x
 *   6,291,456 + 110,592 = 75,608,064 B;
 * - learned positions (Megatron reduce-scatters the embedding only
 *   without them): its AllReduce, then the split whose backward gathers:
 *   3 x 12,582,912 + 12 x 6,291,456 + 110,592 = 113,356,800 B;
 * - one MTP module (model.mtp_layers 1): the head and the loss run twice
 *   a microbatch, and the module's lookup in the shared embedding adds
 *   its ReduceScatter and gather: (6 + 18 + 6) x 6,291,456 + 18 x 12,288
 *   = 188,964,864 B;
 * - the head in FP8 (precision.fp8_lm_head under Megatron's MXFP8: its
 *   Transformer Engine output layer gathers as a layer's linear does):
 *   the head's gather and re-gather carry a row of 2048 FP8 bytes and 64
 *   scales, 2,048 x 2,112 = 4,325,376 B, sending 3,244,032; its
 *   reduce-scatter stays BF16: 6 x 3,244,032 + 9 x 6,291,456 + 110,592
 *   = 76,197,888 B. */
static uint64_t tp_ends_bytes(const struct dc_config *c, const struct dc_comm_strategy **rows)
{
	static struct dc_comm m;
	uint64_t n = 0;
	m = compute(c);
	for (uint64_t i = 0; i < m.s[DC_STRAT_TP].ncoll; i++)
		if (tp_end_row(&m.s[DC_STRAT_TP].coll[i]))
			n += m.s[DC_STRAT_TP].coll[i].bytes_per_rank;
	*rows = &m.s[DC_STRAT_TP];
	return n;
}

START_TEST(test_tp_model_ends_by_hand)
{
	struct dc_config c;
	const struct dc_comm_strategy *s;
	tp_config(&c);
	ck_assert_uint_eq(tp_ends_bytes(&c, &s), 75608064ull);
	ck_assert_uint_eq(s->bytes_per_rank, 603979776ull + 75608064ull);
	for (uint64_t i = 0; i < s->ncoll; i++) {
		const struct dc_coll *r = &s->coll[i];
		if (r->what == DC_CW_TP_LOSS_CHUNK) {
			ck_assert_uint_eq(r->count, 9);
			ck_assert_uint_eq(r->msg_bytes, 8192);
			ck_assert_int_eq(r->overlap, DC_OVL_EXPOSED);
		}
		if (r->what == DC_CW_TP_EMBED_OUT) {
			ck_assert_int_eq(r->kind, DC_COLL_ALL_REDUCE);
			ck_assert_int_eq(r->phase, DC_CPHASE_FORWARD);
			ck_assert_uint_eq(r->count, 3);
		}
		if (r->what == DC_CW_TP_HEAD_IN_GRAD) {
			ck_assert_int_eq(r->kind, DC_COLL_ALL_REDUCE);
			ck_assert_int_eq(r->overlap, DC_OVL_BEHIND_GEMM);
			ck_assert_uint_eq(r->count, 3);
		}
	}
	c.parallel.sequence_parallel = 1;
	ck_assert_uint_eq(tp_ends_bytes(&c, &s), 94482432ull);
	c.training.framework = DC_FRAMEWORK_TORCHTITAN;
	ck_assert_uint_eq(tp_ends_bytes(&c, &s), 75608064ull);
	c.training.framework = DC_FRAMEWORK_MEGATRON;
	ck_assert_uint_eq(tp_ends_bytes(&c, &s), 94482432ull);
	c.model.position_embeddings = 1024;
	ck_assert_uint_eq(tp_ends_bytes(&c, &s), 113356800ull);
	c.model.position_embeddings = 0;
	c.model.mtp_layers = 1;
	ck_assert_uint_eq(tp_ends_bytes(&c, &s), 188964864ull);
	c.model.mtp_layers = 0;
	c.precision.compute = DC_COMPUTE_FP8;
	c.precision.fp8_recipe = DC_FP8_MXFP8;
	ck_assert_uint_eq(tp_ends_bytes(&c, &s), 94482432ull);
	c.precision.fp8_lm_head = 1;
	ck_assert_uint_eq(tp_ends_bytes(&c, &s), 76197888ull);
}
END_TEST

/* Under precision.compute "fp8" the sequence-parallel AllGathers that
 * feed a linear layer's GEMM carry its quantized input or output gradient
 * (Transformer Engine d0067d0d: layernorm_linear.py 283-313 and
 * linear.py 371-412 quantize the local shard and gather it,
 * base.py 1719-1751 the output gradient, linear.py 979-998 and
 * layernorm_linear.py 766-795 the backward's re-gather; distributed.py
 * 989-1081 gathers one byte an element and no scale, 1618-1662 MXFP8's
 * row-wise and column-wise data with their E8M0 scales); the
 * ReduceScatters carry GEMM outputs and input gradients, in BF16.
 * The tp test's shape: b 2, s 1024, h 2048, t 4, 4 layers, 3
 * microbatches: b s h = 4,194,304 elements, 24 calls of each kind (two a
 * layer a microbatch). Figures by hand:
 *   BF16 message 4,194,304 x 2 = 8,388,608 B, each call sends 3/4 of it,
 *     6,291,456 B; the ReduceScatters 2 x 24 x 6,291,456 = 301,989,888 B
 *   FP8 (delayed, current): 4,194,304 B, sends 3,145,728 B; three
 *     gathers (g, the output gradient's g-bar, the re-gather):
 *     3 x 24 x 3,145,728 = 226,492,416; total 528,482,304 B (BF16:
 *     754,974,720, test_tp_sequence_parallel_and_recompute)
 *   MXFP8: a row of 2048 B and 2048 / 32 = 64 scale bytes, 2112 B;
 *     g and the re-gather 2048 x 2112 = 4,325,376 B (sends 3,244,032),
 *     the output gradient both copies, 8,650,752 B (sends 6,488,064):
 *     24 x (2 x 3,244,032 + 6,488,064) = 311,427,072; total
 *     613,416,960 B
 *   full recompute under FP8: the forward's g again, 24 x 3,145,728,
 *     and its ReduceScatter, 24 x 6,291,456: + 226,492,416 =
 *     754,974,720 B
 *   current scaling adds one amax AllReduce (max) of one FP32, 4 B, per
 *     FP8 gather the shard is cast for: the forward's g and the output
 *     gradient's g-bar, 24 each (the re-gather moves FP8 shards cast in
 *     the forward); each sends 2 (4 - floor(4 / 4)) = 6 B: 48 x 6 = 288
 *     B more, 528,482,592 B
 *   MoE layers 3 and 4 (dense_layers 2), no shared expert: their MLP
 *     takes no TP pair (the token dispatcher regroups over the expert
 *     tp group: src/axis/tp.c), so a microbatch's calls of each kind are
 *     2 x 2 + 2 x 1 = 6, all FP8 (the attention's and the dense MLPs'):
 *     18 a kind, 3 x 18 x 3,145,728 + 2 x 18 x 6,291,456 = 396,361,728 B;
 *     full recompute of the first 3 layers (layer 3 MoE): 2 x 2 + 1 = 5
 *     gathers a microbatch, 15 FP8 and 15 ReduceScatters, + 47,185,920 +
 *     94,371,840 = 537,919,488 B; of the first layer alone (dense): 6
 *     and 6, + 18,874,368 + 37,748,736 = 452,984,832 B
 *   with a shared expert (shared_expert_ffn_hidden_size 1024) its pair
 *     over the tp group: under Megatron an ordinary MLP of Transformer
 *     Engine linears, whose gathers carry the FP8 cast input as a dense
 *     MLP's (moe_layer.py:507-530, shared_experts.py:200-207): 8 calls of
 *     each kind a microbatch, 24 a kind, every gather FP8, the dense
 *     model's 528,482,304 B again; under torchtitan the gather is of the
 *     block's BF16 input (moe_sharding.py:172-189) */
START_TEST(test_tp_fp8_gathers)
{
	struct dc_config c;
	struct dc_comm m;
	const struct dc_comm_strategy *s;

	tp_config(&c);
	c.parallel.sequence_parallel = 1;
	c.precision.compute = DC_COMPUTE_FP8;
	c.precision.fp8_recipe = DC_FP8_DELAYED;
	c.training.framework = DC_FRAMEWORK_MEGATRON;
	m = compute(&c);
	s = &m.s[DC_STRAT_TP];
	ck_assert_uint_eq(tp_layer_rows(s), 5);
	ck_assert_uint_eq(s->coll[0].msg_bytes, 4194304ull);
	ck_assert_uint_eq(s->coll[1].msg_bytes, 8388608ull);
	ck_assert_uint_eq(s->coll[2].msg_bytes, 4194304ull);
	ck_assert_uint_eq(s->coll[3].msg_bytes, 8388608ull);
	ck_assert_uint_eq(s->coll[4].msg_bytes, 4194304ull);
	ck_assert_uint_eq(tp_layers_bytes(&m), 528482304ull);
	/* current scaling: the same gathers and the amax AllReduces, 24
	 * forward and 24 backward of 4 B, on the compute stream; custom and
	 * deepspeed run Transformer Engine's recipes as megatron does */
	c.precision.fp8_recipe = DC_FP8_CURRENT;
	m = compute(&c);
	s = &m.s[DC_STRAT_TP];
	ck_assert_uint_eq(tp_layer_rows(s), 7);
	ck_assert_int_eq(s->coll[5].kind, DC_COLL_ALL_REDUCE);
	ck_assert_int_eq(s->coll[5].what, DC_CW_TP_AMAX);
	ck_assert_int_eq(s->coll[5].phase, DC_CPHASE_FORWARD);
	ck_assert_int_eq(s->coll[5].overlap, DC_OVL_INLINE);
	ck_assert_uint_eq(s->coll[5].count, 24);
	ck_assert_uint_eq(s->coll[5].msg_bytes, 4);
	ck_assert_int_eq(s->coll[6].phase, DC_CPHASE_BACKWARD);
	ck_assert_uint_eq(s->coll[6].count, 24);
	ck_assert_uint_eq(tp_layers_bytes(&m), 528482592ull);
	c.training.framework = DC_FRAMEWORK_CUSTOM;
	ck_assert_uint_eq(tp_bytes_of(&c), 528482592ull);
	c.training.framework = DC_FRAMEWORK_DEEPSPEED;
	ck_assert_uint_eq(tp_bytes_of(&c), 528482592ull);
	/* full recompute casts the recomputed forward's shards again: 24
	 * more, 144 B, beside the gathers' 226,492,416 (below) */
	c.training.recompute = DC_RECOMPUTE_FULL;
	m = compute(&c);
	ck_assert_uint_eq(tp_layer_rows(&m.s[DC_STRAT_TP]), 10);
	ck_assert_int_eq(m.s[DC_STRAT_TP].coll[9].what, DC_CW_TP_AMAX_RECOMPUTED);
	ck_assert_uint_eq(m.s[DC_STRAT_TP].coll[9].count, 24);
	ck_assert_uint_eq(tp_layers_bytes(&m), 754974720ull + 432ull);
	c.training.recompute = DC_RECOMPUTE_SELECTIVE;
	/* torchtitan: torchao's float8 TP styles gather FP8 under tensorwise
	 * scaling (current) only, and DTensor reduces each shard's amax;
	 * torchtitan keeps the gathered inputs, so no re-gather: 528,482,592
	 * - 24 x 3,145,728 = 452,985,120 B; BF16 gathers 754,974,720 - 24 x
	 * 6,291,456 = 603,979,776 B */
	c.training.framework = DC_FRAMEWORK_TORCHTITAN;
	ck_assert_uint_eq(tp_bytes_of(&c), 452985120ull);
	/* per-op recompute gathers the inputs again (its save list holds no
	 * all-gather), cast anew: their 24 amax AllReduces run again too,
	 * 24 x 3,145,728 + 24 x 6 = 75,497,616 B more */
	c.training.recompute = DC_RECOMPUTE_OP;
	m = compute(&c);
	s = &m.s[DC_STRAT_TP];
	ck_assert_int_eq(s->coll[tp_layer_rows(s) - 1].what, DC_CW_TP_AMAX_RECOMPUTED);
	ck_assert_uint_eq(s->coll[tp_layer_rows(s) - 1].count, 24);
	ck_assert_uint_eq(tp_layers_bytes(&m), 452985120ull + 75497616ull);
	c.training.recompute = DC_RECOMPUTE_SELECTIVE;
	c.precision.fp8_recipe = DC_FP8_DELAYED;
	ck_assert_uint_eq(tp_bytes_of(&c), 603979776ull);
	c.precision.fp8_recipe = DC_FP8_ROWWISE;
	ck_assert_uint_eq(tp_bytes_of(&c), 603979776ull);
	c.precision.fp8_recipe = DC_FP8_MXFP8;
	ck_assert_uint_eq(tp_bytes_of(&c), 603979776ull);
	/* Transformer Engine's MXFP8 */
	c.training.framework = DC_FRAMEWORK_MEGATRON;
	m = compute(&c);
	s = &m.s[DC_STRAT_TP];
	ck_assert_uint_eq(s->coll[0].msg_bytes, 4325376ull);
	ck_assert_uint_eq(s->coll[2].msg_bytes, 8650752ull);
	ck_assert_uint_eq(s->coll[4].msg_bytes, 4325376ull);
	ck_assert_uint_eq(tp_layers_bytes(&m), 613416960ull);
	/* rowwise is torchao's: BF16 gathers under any framework */
	c.precision.fp8_recipe = DC_FP8_ROWWISE;
	ck_assert_uint_eq(tp_bytes_of(&c), 754974720ull);
	/* full recompute gathers the quantized input again */
	c.precision.fp8_recipe = DC_FP8_DELAYED;
	c.training.recompute = DC_RECOMPUTE_FULL;
	ck_assert_uint_eq(tp_bytes_of(&c), 754974720ull);
	c.training.recompute = DC_RECOMPUTE_SELECTIVE;
	/* without sequence parallelism the AllReduces carry GEMM outputs:
	 * 603,979,776 B as under BF16 (test_tp_bytes_per_layer) */
	c.parallel.sequence_parallel = 0;
	ck_assert_uint_eq(tp_bytes_of(&c), 603979776ull);
	c.parallel.sequence_parallel = 1;
	/* MoE on layers 3 and 4: the attention's pair alone, FP8 */
	c.model.num_experts = 4;
	c.model.experts_per_token = 2;
	c.model.moe_ffn_hidden_size = 1024;
	c.model.dense_layers = 2;
	m = compute(&c);
	s = &m.s[DC_STRAT_TP];
	ck_assert_uint_eq(tp_layer_rows(s), 5);
	ck_assert_uint_eq(s->coll[0].count, 18);
	ck_assert_uint_eq(s->coll[0].msg_bytes, 4194304ull);
	ck_assert_uint_eq(s->coll[1].count, 18);
	ck_assert_uint_eq(tp_layers_bytes(&m), 396361728ull);
	c.training.recompute = DC_RECOMPUTE_FULL;
	c.training.recompute_layers = 3;
	ck_assert_uint_eq(tp_bytes_of(&c), 537919488ull);
	c.training.recompute_layers = 1;
	ck_assert_uint_eq(tp_bytes_of(&c), 452984832ull);
	c.training.recompute = DC_RECOMPUTE_SELECTIVE;
	c.training.recompute_layers = 0;
	/* a shared expert: one row of 24 FP8 calls for each gather */
	c.model.shared_expert_ffn_hidden_size = 1024;
	m = compute(&c);
	s = &m.s[DC_STRAT_TP];
	ck_assert_uint_eq(tp_layer_rows(s), 5);
	ck_assert_uint_eq(s->coll[0].count, 24);
	ck_assert_uint_eq(s->coll[0].msg_bytes, 4194304ull);
	ck_assert_uint_eq(s->coll[1].count, 24);
	ck_assert_uint_eq(s->coll[1].msg_bytes, 8388608ull);
	ck_assert_uint_eq(tp_layers_bytes(&m), 528482304ull);
}
END_TEST

START_TEST(test_pp_interleaved)
{
	/* Megatron-LM 2021 2.2.2: with v chunks per rank every microbatch
	 * crosses each boundary v times. pp 4, v 2, 8 layers, 4 microbatches
	 * of 2,097,152 B: a middle stage sends 2 directions x 4 x 2 x
	 * 2,097,152 = 33,554,432 B; the analysed one, the first, sends both
	 * chunks' activations on and its second chunk's gradients back (to
	 * the last stage, the chunks wrapping): 4 x (2 + 1) x 2,097,152 =
	 * 25,165,824 B */
	struct dc_config c;
	struct dc_comm m;

	zero_comm_config(&c, DC_SHARD_NONE);
	c.model.num_layers = 8;
	c.training.grad_accum_steps = 4;
	c.parallel.pp = 4;
	c.parallel.dp = 2;
	c.parallel.virtual_pipeline = 2;
	m = compute(&c);
	ck_assert_uint_eq(m.stage, 0);
	ck_assert_uint_eq(m.s[DC_STRAT_PP].bytes_per_rank, 25165824ull);
	ck_assert_uint_eq(m.s[DC_STRAT_PP].coll[0].count, 8);
	ck_assert_uint_eq(m.s[DC_STRAT_PP].coll[1].count, 4);
	/* two stages fold the chunk ring: v = 2 forward sends and v - 1 = 1
	 * backward per microbatch, 4 x 3 x 2,097,152 = 25,165,824 B */
	c.parallel.pp = 2;
	c.parallel.dp = 4;
	m = compute(&c);
	ck_assert_uint_eq(m.s[DC_STRAT_PP].bytes_per_rank, 25165824ull);
	c.parallel.pp = 4;
	c.parallel.dp = 2;
	/* with sequence parallelism (tp 2, dp 1) a rank sends its s/t slice:
	 * half of each message, the first stage's 12 of them 12,582,912 B */
	c.parallel.tp = 2;
	c.parallel.dp = 1;
	c.parallel.sequence_parallel = 1;
	m = compute(&c);
	ck_assert_uint_eq(m.s[DC_STRAT_PP].coll[0].msg_bytes, 1048576ull);
	ck_assert_uint_eq(m.s[DC_STRAT_PP].bytes_per_rank, 12582912ull);
}
END_TEST

START_TEST(test_expert_parallel)
{
	/* configs/mixtral-8x7b-ep.json: tp 2, pp 4, dp 4, ep 4, ZeRO-1, 16
	 * microbatches of 1 x 4096 tokens. The last stage holds 1,642,926,080
	 * parameters of which 1,409,286,144 are its 2 local experts x 8 layers
	 * (docs/models.md). Experts live on dp / ep = 1 rank each, so only the
	 * 233,639,936 dense parameters are synchronised over dp 4: ReduceScatter
	 * and AllGather of 467,279,872 B, 2 x 3/4 x 467,279,872 = 700,919,808 B.
	 * Token AlltoAll: 4096 tokens x top-2 x h 4096 x 2 B = 67,108,864 B per
	 * call, 3/4 of it sent; 2 calls x 8 MoE layers x 16 microbatches = 256
	 * forward and 256 backward: 512 x 50,331,648 = 25,769,803,776 B */
	struct dc_config c;
	struct dc_diag d;
	struct dc_comm m;
	char path[512];
	snprintf(path, sizeof(path), "%s/configs/mixtral-8x7b-ep.json", DC_SOURCE_DIR);
	dc_diag_init(&d);
	ck_assert_int_eq(dc_config_load_file(path, NULL, 0, &c, &d), 0);
	dc_diag_release(&d);
	m = compute(&c);
	ck_assert_uint_eq(m.s[DC_STRAT_DP].bytes_per_rank, 700919808ull);
	ck_assert(m.s[DC_STRAT_EP].in_play);
	ck_assert_uint_eq(m.s[DC_STRAT_EP].coll[0].msg_bytes, 67108864ull);
	ck_assert_uint_eq(m.s[DC_STRAT_EP].coll[0].count, 256);
	ck_assert_uint_eq(m.s[DC_STRAT_EP].bytes_per_rank, 25769803776ull);
	ck_assert_int_eq(m.s[DC_STRAT_EP].link, DC_LINK_INTRA);
	/* with dp 8 and ep 4 the experts have 2 replicas: their 2,818,572,288 B
	 * of gradients are synchronised over that pair as well: 2 x 1/2 x
	 * 2,818,572,288 = 2,818,572,288 B more, on top of the dense part over
	 * dp 8: 2 x 7/8 x 467,279,872 = 817,739,776 B */
	c.cluster.num_nodes = 8;
	c.world_size = 64;
	c.parallel.dp = 8;
	m = compute(&c);
	ck_assert_uint_eq(m.s[DC_STRAT_DP].bytes_per_rank, 817739776ull + 2818572288ull);
}
END_TEST

/* Context parallelism by hand: 2 layers, h 1024, 16 heads, 4 KV heads of
 * 64, s 8192, b 1, tp 2, cp 4 on one node of 8 (dp 1), one microbatch,
 * 300 GB/s and no latency. A cp rank holds 8192 / 4 = 2048 tokens; its K/V
 * chunk on one tp rank is 2048 tokens x 2 KV heads x (64 + 64) x 2 B =
 * 1,048,576 B. */
static void cp_config(struct dc_config *c, const char *type, const char *recompute, int kv_heads)
{
	fixture_json(c,
		     "{\"model\": {\"num_layers\": 2, \"hidden_size\": 1024, \"num_attention_heads\": 16,"
		     " \"num_kv_heads\": %d, \"ffn_hidden_size\": 4096, \"vocab_size\": 32000, \"seq_length\": 8192},"
		     " \"cluster\": {\"num_nodes\": 1, \"gpus_per_node\": 8, \"gpu_memory\": \"80 GiB\","
		     " \"intra_node\": {\"bandwidth\": \"300 GB/s\"}, \"inter_node\": {\"bandwidth\": \"50 GB/s\"}},"
		     " \"parallel\": {\"tp\": 2, \"cp\": 4, \"cp_comm_type\": \"%s\"},"
		     " \"training\": {\"recompute\": \"%s\"}}",
		     kv_heads, type, recompute);
}

START_TEST(test_context_parallel_kv)
{
	struct dc_config c;
	struct dc_comm m;
	const struct dc_comm_strategy *s;

	/* p2p ring: forward passes the chunk on cp - 1 = 3 times per layer (6
	 * sends); backward sends K/V alone, then K/V with dK/dV in cp - 2 = 2
	 * steps (2,097,152 B each), then dK/dV alone: 2 x (1 + 2 x 2 + 1) = 12
	 * chunks: 18 x 1,048,576 B */
	cp_config(&c, "p2p", "none", 4);
	m = compute(&c);
	s = &m.s[DC_STRAT_CP];
	ck_assert(s->in_play);
	ck_assert_uint_eq(s->group_size, 4);
	ck_assert_uint_eq(s->ncoll, 4);
	ck_assert_int_eq(s->coll[0].kind, DC_COLL_SEND);
	ck_assert_uint_eq(s->coll[0].count, 6);
	ck_assert_uint_eq(s->coll[0].msg_bytes, 1048576);
	ck_assert_uint_eq(s->coll[1].count, 2);
	ck_assert_uint_eq(s->coll[2].count, 4);
	ck_assert_uint_eq(s->coll[2].msg_bytes, 2097152);
	ck_assert_uint_eq(s->coll[3].count, 2);
	ck_assert_uint_eq(s->bytes_per_rank, 18874368ull);
	/* time: the network model (docs/network-model.md, point to point)
	 * moves the 18 MiB over NVLink at 300 GB/s, each of the 14 sends one
	 * hop of Simple: its ring start-up, 8.4 us, and the fixture's hop
	 * latency, 0: 14 x 8.4 us + 18,874,368 B / 3e11 B/s = 180.51456 us */
	ck_assert_msg(fabs(s->time_s / (14 * 8.4e-6 + 18874368.0 / 3e11) - 1) < 1e-12, "%.12g s", s->time_s);
	/* the layer's TP AllReduces carry b s/cp h x 2 B = 4,194,304 B; the
	 * gradients sync over dp x cp = 4 ranks */
	ck_assert_uint_eq(m.s[DC_STRAT_TP].coll[0].msg_bytes, 4194304);
	ck_assert_uint_eq(m.s[DC_STRAT_DP].group_size, 4);
	/* full recompute repeats the forward's 6 sends: 24 C = 25,165,824 B */
	cp_config(&c, "p2p", "full", 4);
	m = compute(&c);
	ck_assert_uint_eq(m.s[DC_STRAT_CP].bytes_per_rank, 25165824ull);
	/* of 1 layer of the chunk's 2 (training.recompute_layers 1): the
	 * forward's 3 sends of that layer, 21 C = 22,020,096 B */
	c.training.recompute_layers = 1;
	m = compute(&c);
	ck_assert_uint_eq(calls_of(&m, DC_STRAT_CP, DC_CW_CP_KV_NEXT_RECOMPUTED), 3);
	ck_assert_uint_eq(m.s[DC_STRAT_CP].bytes_per_rank, 22020096ull);
	/* selective recompute reruns core attention, TransformerEngine's
	 * ring inside it (AttnFuncWithCPAndKVP2P.forward): every layer's 3
	 * forward sends again, 24 C as full */
	cp_config(&c, "p2p", "selective", 4);
	m = compute(&c);
	ck_assert_uint_eq(calls_of(&m, DC_STRAT_CP, DC_CW_CP_KV_NEXT_RECOMPUTED), 6);
	ck_assert_int_eq(m.s[DC_STRAT_CP].coll[4].phase, DC_CPHASE_BACKWARD);
	ck_assert_int_eq(m.s[DC_STRAT_CP].coll[4].overlap, DC_OVL_RING);
	ck_assert_uint_eq(m.s[DC_STRAT_CP].bytes_per_rank, 25165824ull);
	/* all_gather: the whole sequence's K/V, 4 x 1,048,576 B, gathered in
	 * forward and backward and reduce-scattered, once per layer each:
	 * 6 calls x 3/4 x 4,194,304 B = 18,874,368 B, the ring's bytes */
	cp_config(&c, "all_gather", "none", 4);
	m = compute(&c);
	s = &m.s[DC_STRAT_CP];
	ck_assert_uint_eq(s->ncoll, 3);
	ck_assert_int_eq(s->coll[0].kind, DC_COLL_ALL_GATHER);
	ck_assert_uint_eq(s->coll[0].msg_bytes, 4194304);
	ck_assert_int_eq(s->coll[2].kind, DC_COLL_REDUCE_SCATTER);
	ck_assert_uint_eq(s->bytes_per_rank, 18874368ull);
	/* selective: the forward's gather once more a layer, in backward
	 * and waited for (AttnFuncWithCPAndKVAllGather.forward inside core
	 * attention): 8 x 3,145,728 = 25,165,824 B */
	cp_config(&c, "all_gather", "selective", 4);
	m = compute(&c);
	s = &m.s[DC_STRAT_CP];
	ck_assert_uint_eq(s->ncoll, 4);
	ck_assert_int_eq(s->coll[3].what, DC_CW_CP_KV_RECOMPUTED);
	ck_assert_int_eq(s->coll[3].kind, DC_COLL_ALL_GATHER);
	ck_assert_int_eq(s->coll[3].phase, DC_CPHASE_BACKWARD);
	ck_assert_int_eq(s->coll[3].overlap, DC_OVL_EXPOSED);
	ck_assert_uint_eq(s->coll[3].count, 2);
	ck_assert_uint_eq(s->bytes_per_rank, 25165824ull);
	/* a2a (Ulysses) needs cp to divide the KV heads per tp rank: with 8
	 * KV heads, q, k, v of 8 query and 4 KV heads per tp rank are 2048
	 * tokens x (8 x 64 + 4 x 128) x 2 B = 4,194,304 B, the output 2048 x
	 * 8 x 64 x 2 B = 2,097,152 B, each way once per layer in forward and
	 * backward, 3/4 sent: 2 layers x 2 x (3,145,728 + 1,572,864) B */
	cp_config(&c, "a2a", "none", 8);
	m = compute(&c);
	s = &m.s[DC_STRAT_CP];
	ck_assert_uint_eq(s->ncoll, 4);
	ck_assert_int_eq(s->coll[0].kind, DC_COLL_ALL_TO_ALL);
	ck_assert_uint_eq(s->coll[0].msg_bytes, 4194304);
	ck_assert_uint_eq(s->coll[1].msg_bytes, 2097152);
	ck_assert_uint_eq(s->bytes_per_rank, 18874368ull);
	/* selective: TransformerEngine's AttnFuncWithCPAndQKVOA2A.forward
	 * runs both AlltoAlls (q, k, v to head shards, the output back)
	 * inside core attention, so both run again: + 2 layers x (3,145,728
	 * + 1,572,864) = 9,437,184 B, 28,311,552 B */
	cp_config(&c, "a2a", "selective", 8);
	m = compute(&c);
	s = &m.s[DC_STRAT_CP];
	ck_assert_uint_eq(s->ncoll, 6);
	ck_assert_int_eq(s->coll[4].what, DC_CW_CP_QKV_RECOMPUTED);
	ck_assert_uint_eq(s->coll[4].msg_bytes, 4194304);
	ck_assert_uint_eq(s->coll[4].count, 2);
	ck_assert_int_eq(s->coll[5].what, DC_CW_CP_OUT_RECOMPUTED);
	ck_assert_uint_eq(s->coll[5].msg_bytes, 2097152);
	ck_assert_uint_eq(s->coll[5].count, 2);
	ck_assert_uint_eq(s->bytes_per_rank, 28311552ull);
}
END_TEST

/* PyTorch's ring attention under training.framework torchtitan, on the
 * same shape (tp 2, cp 4, 2048 tokens a cp rank). torchtitan (9dec370,
 * torchtitan/models/llama/model.py:201-202) repeats the 4 KV heads to the
 * 16 query heads before the SDPA call the ring replaces, so a tp rank's
 * chunk holds its 8 query heads: 2048 x 8 x (64 + 64) x 2 B = 4,194,304
 * B, 4 times the GQA chunk above. The backward passes the FP32 dK/dV
 * accumulators of that chunk on after each of the cp = 4 blocks
 * (_templated_ring_attention_backward, the dkv rotater an all-to-all
 * whatever the rotate method): 2048 x 8 x 128 x 4 B = 8,388,608 B, 4
 * sends a layer, 8 in all: 3 a layer behind the next block's backward
 * (class ring), the last waited for after the loop, 6 and 2.
 *   all_gather: K/V of the whole sequence, 4 x 4,194,304 = 16,777,216 B,
 *     gathered in forward and again in backward, 3/4 sent: 4 x
 *     12,582,912 = 50,331,648 B; the sends 8 x 8,388,608 = 67,108,864 B;
 *     117,440,512 B, no reduce-scatter.
 *   p2p (torchtitan's "alltoall" rotation): K/V on cp - 1 = 3 times a
 *     layer forward and again backward, 12 x 4,194,304 = 50,331,648 B,
 *     and the same 8 dK/dV sends: 117,440,512 B.
 * Under custom the same all_gather run sends 18,874,368 B (above); a2a is
 * not PyTorch's and keeps the GQA heads. */
static void torch_cp_config(struct dc_config *c, const char *type, const char *framework)
{
	fixture_json(c,
		     "{\"model\": {\"num_layers\": 2, \"hidden_size\": 1024, \"num_attention_heads\": 16,"
		     " \"num_kv_heads\": 4, \"ffn_hidden_size\": 4096, \"vocab_size\": 32000, \"seq_length\": 8192},"
		     " \"cluster\": {\"num_nodes\": 1, \"gpus_per_node\": 8, \"gpu_memory\": \"80 GiB\","
		     " \"intra_node\": {\"bandwidth\": \"300 GB/s\"}, \"inter_node\": {\"bandwidth\": \"50 GB/s\"}},"
		     " \"parallel\": {\"tp\": 2, \"cp\": 4, \"cp_comm_type\": \"%s\"},"
		     " \"training\": {\"recompute\": \"none\", \"framework\": \"%s\"}}",
		     type, framework);
}

START_TEST(test_context_parallel_torch_ring)
{
	struct dc_config c;
	struct dc_comm m;
	const struct dc_comm_strategy *s;

	torch_cp_config(&c, "all_gather", "torchtitan");
	m = compute(&c);
	s = &m.s[DC_STRAT_CP];
	ck_assert_uint_eq(s->ncoll, 4);
	ck_assert_int_eq(s->coll[0].what, DC_CW_CP_KV_WHOLE);
	ck_assert_uint_eq(s->coll[0].msg_bytes, 16777216);
	ck_assert_uint_eq(s->coll[0].count, 2);
	ck_assert_int_eq(s->coll[0].overlap, DC_OVL_EXPOSED);
	ck_assert_int_eq(s->coll[1].what, DC_CW_CP_KV_WHOLE_AGAIN);
	ck_assert_int_eq(s->coll[2].what, DC_CW_CP_DKV_RING);
	ck_assert_int_eq(s->coll[2].kind, DC_COLL_SEND);
	ck_assert_int_eq(s->coll[2].phase, DC_CPHASE_BACKWARD);
	ck_assert_int_eq(s->coll[2].overlap, DC_OVL_RING);
	ck_assert_uint_eq(s->coll[2].group_size, 2);
	ck_assert_uint_eq(s->coll[2].msg_bytes, 8388608);
	ck_assert_uint_eq(s->coll[2].count, 6);
	ck_assert_int_eq(s->coll[3].what, DC_CW_CP_DKV_RING_LAST);
	ck_assert_int_eq(s->coll[3].overlap, DC_OVL_EXPOSED);
	ck_assert_uint_eq(s->coll[3].group_size, 2);
	ck_assert_uint_eq(s->coll[3].msg_bytes, 8388608);
	ck_assert_uint_eq(s->coll[3].count, 2);
	ck_assert_uint_eq(s->group_size, 4);
	ck_assert_uint_eq(s->bytes_per_rank, 117440512ull);

	torch_cp_config(&c, "p2p", "torchtitan");
	m = compute(&c);
	s = &m.s[DC_STRAT_CP];
	ck_assert_uint_eq(s->ncoll, 4);
	ck_assert_uint_eq(s->coll[0].msg_bytes, 4194304);
	ck_assert_uint_eq(s->coll[0].count, 6);
	ck_assert_int_eq(s->coll[1].what, DC_CW_CP_KV_NEXT_AGAIN);
	ck_assert_uint_eq(s->coll[1].count, 6);
	ck_assert_int_eq(s->coll[2].what, DC_CW_CP_DKV_RING);
	ck_assert_uint_eq(s->coll[2].count, 6);
	ck_assert_int_eq(s->coll[3].what, DC_CW_CP_DKV_RING_LAST);
	ck_assert_uint_eq(s->coll[3].count, 2);
	ck_assert_uint_eq(s->coll[2].msg_bytes, 8388608);
	ck_assert_uint_eq(s->bytes_per_rank, 117440512ull);

	torch_cp_config(&c, "all_gather", "custom");
	m = compute(&c);
	ck_assert_uint_eq(m.s[DC_STRAT_CP].bytes_per_rank, 18874368ull);
	ck_assert_int_eq(m.s[DC_STRAT_CP].coll[2].kind, DC_COLL_REDUCE_SCATTER);
}
END_TEST

/* FSDP with ep 4 of dp 8 by hand: 2 MoE layers, h 64, 4 heads, 4 experts
 * of 3 x 64 x 128 = 24,576 parameters (top-2), V 1000 untied, tp 1, one
 * node of 8, one microbatch. A layer holds 4h^2 = 16,384 attention, 2h =
 * 128 norm, h E = 256 router and 4 / 4 = 1 expert: the stage 2 x 41,344 +
 * 2 x 64,000 + 64 = 210,752 parameters, 49,152 of them experts. The
 * ledger shards experts over dp / ep = 2 ranks, the rest over 8, so the
 * expert units are gathered and scattered over 2: per layer AllGather
 * forward and backward and ReduceScatter of 24,576 x 2 B, half sent:
 * 6 x 24,576 = 147,456 B. The dense part of a layer, (210,752 - 128,064 -
 * 49,152) / 2 = 16,768 parameters, goes over 8: 6 x 7/8 x 33,536 =
 * 176,064 B, and the root (128,064 params) gathered once and scattered
 * once: 2 x 7/8 x 256,128 = 448,224 B. */
START_TEST(test_fsdp_expert_units)
{
	struct dc_config c;
	struct dc_comm m;
	const struct dc_comm_strategy *s;
	uint64_t expert = 0, dense = 0;

	fixture_json(&c, "{\"model\": {\"num_layers\": 2, \"hidden_size\": 64, \"num_attention_heads\": 4,"
			 " \"ffn_hidden_size\": 256, \"vocab_size\": 1000, \"seq_length\": 128, \"num_experts\": 4,"
			 " \"experts_per_token\": 2, \"moe_ffn_hidden_size\": 128},"
			 " \"cluster\": {\"num_nodes\": 1, \"gpus_per_node\": 8, \"gpu_memory\": \"80 GiB\","
			 " \"intra_node\": {\"bandwidth\": \"300 GB/s\"}, \"inter_node\": {\"bandwidth\": \"50 GB/s\"}},"
			 " \"parallel\": {\"ep\": 4, \"sharding\": \"fsdp\"}}");
	m = compute(&c);
	s = &m.s[DC_STRAT_FSDP];
	for (uint64_t i = 0; i < s->ncoll; i++) {
		if (s->coll[i].what == DC_CW_EXPERT_UNIT_PARAMS || s->coll[i].what == DC_CW_EXPERT_UNIT_GRADS) {
			ck_assert_uint_eq(s->coll[i].group_size, 2);
			ck_assert_uint_eq(s->coll[i].msg_bytes, 49152);
			expert += s->coll[i].bytes_per_rank;
		} else {
			ck_assert_uint_eq(s->coll[i].group_size, 8);
			dense += s->coll[i].bytes_per_rank;
		}
	}
	ck_assert_uint_eq(expert, 147456);
	ck_assert_uint_eq(dense, 176064 + 448224);
	ck_assert_uint_eq(s->bytes_per_rank, 147456 + 176064 + 448224);
}
END_TEST

/* The heaviest stage holds no MoE layer (DeepSeek-V3's dense first layers
 * with the embedding): configs/mixtral-8x7b-ep.json cut to 7 layers, the
 * first 3 dense (model.dense_layers), tp 1, pp 4 as [3, 2, 1, 1], dp 8,
 * ep 8 (one local expert a rank). Stage 0 holds the embedding (32000 x
 * 4096) and 3 dense layers of about 218 M parameters, stage 1 two MoE
 * layers of as many, so stage 0 is analysed; the EP rows count stage 1's
 * 2 MoE layers, the most of any stage. Each call carries 4096 tokens x
 * top-2 x h 4096 x 2 B = 67,108,864 B, 7/8 of it sent: 58,720,256 B;
 * 2 calls x 2 layers x 16 microbatches = 64 forward and 64 backward:
 * 128 x 58,720,256 = 7,516,192,768 B. One node's NVLink (300 GB/s, 5 us)
 * carries each point to point in 8.4 + 5 us + 58,720,256 / 3e11 s =
 * 209.134186667 us: 128 calls 26.7691758933 ms. Before, stage 0's 0 MoE
 * layers left EP out of play. */
/* The cut Mixtral's seven overrides `sets` as `ov`, and its path */
static void ep_overrides(const char *const *sets, struct dc_override *ov, char *path, size_t len)
{
	for (size_t i = 0; i < 7; i++)
		ov[i] = (struct dc_override){sets[i], 0};
	snprintf(path, len, "%s/configs/mixtral-8x7b-ep.json", DC_SOURCE_DIR);
}

/* configs at `path` under the seven overrides `ov`, its comm */
static struct dc_comm ep_compute(const char *path, const struct dc_override *ov, struct dc_config *c)
{
	struct dc_diag d;
	dc_diag_init(&d);
	ck_assert_int_eq(dc_config_load_file(path, ov, 7, c, &d), 0);
	dc_diag_release(&d);
	return compute(c);
}

START_TEST(test_ep_on_the_stage_with_moe_layers)
{
	static const char *const sets[] = {"model.num_layers=7", "model.dense_layers=3", "parallel.tp=1",
					   "parallel.pp=4", "parallel.dp=8", "parallel.ep=8",
					   "parallel.pipeline_layers=[3,2,1,1]"};
	struct dc_override ov[7];
	struct dc_config c;
	struct dc_comm m;
	char path[512];
	ep_overrides(sets, ov, path, sizeof(path));
	m = ep_compute(path, ov, &c);
	ck_assert_uint_eq(m.stage, 0);
	ck_assert_uint_eq(m.ep_stage, 1);
	ck_assert_uint_eq(m.layers, 3);
	ck_assert_uint_eq(m.moe_layers, 2);
	ck_assert(m.s[DC_STRAT_EP].in_play);
	ck_assert_uint_eq(m.s[DC_STRAT_EP].group_size, 8);
	ck_assert_uint_eq(m.s[DC_STRAT_EP].ncoll, 2);
	ck_assert_uint_eq(m.s[DC_STRAT_EP].coll[0].count, 64);
	ck_assert_uint_eq(m.s[DC_STRAT_EP].coll[1].count, 64);
	ck_assert_uint_eq(m.s[DC_STRAT_EP].coll[0].msg_bytes, 67108864ull);
	ck_assert_uint_eq(m.s[DC_STRAT_EP].bytes_per_rank, 7516192768ull);
	ck_assert_double_eq_tol(m.s[DC_STRAT_EP].time_s, 128 * (13.4e-6 + 58720256 / 3e11), 1e-12);
	/* dense_layers 6: layer 7 alone has experts, on stage 3: 32 + 32
	 * calls, 64 x 58,720,256 = 3,758,096,384 B */
	ov[1] = (struct dc_override){"model.dense_layers=6", 0};
	m = ep_compute(path, ov, &c);
	ck_assert_uint_eq(m.stage, 0);
	ck_assert_uint_eq(m.ep_stage, 3);
	ck_assert_uint_eq(m.moe_layers, 1);
	ck_assert_uint_eq(m.s[DC_STRAT_EP].bytes_per_rank, 3758096384ull);
	/* [4, 1, 1, 1] with 3 dense layers: stage 0 holds a MoE layer and
	 * is priced as before, its own */
	ov[1] = (struct dc_override){"model.dense_layers=3", 0};
	ov[6] = (struct dc_override){"parallel.pipeline_layers=[4,1,1,1]", 0};
	m = ep_compute(path, ov, &c);
	ck_assert_uint_eq(m.stage, 0);
	ck_assert_uint_eq(m.ep_stage, 0);
	ck_assert_uint_eq(m.moe_layers, 1);
	ck_assert_uint_eq(m.s[DC_STRAT_EP].bytes_per_rank, 3758096384ull);
	/* 8 layers, [4, 2, 1, 1]: stage 0, the heaviest, holds one MoE layer
	 * and stage 1 two: EP on stage 1's two, the first case's 64 + 64
	 * calls and 7,516,192,768 B */
	ov[0] = (struct dc_override){"model.num_layers=8", 0};
	ov[6] = (struct dc_override){"parallel.pipeline_layers=[4,2,1,1]", 0};
	m = ep_compute(path, ov, &c);
	ck_assert_uint_eq(m.stage, 0);
	ck_assert_uint_eq(m.ep_stage, 1);
	ck_assert_uint_eq(m.moe_layers, 2);
	ck_assert_uint_eq(m.s[DC_STRAT_EP].coll[0].count, 64);
	ck_assert_uint_eq(m.s[DC_STRAT_EP].bytes_per_rank, 7516192768ull);
}
END_TEST

/* MoE on every second layer (Llama 4's interleave_moe_layer_step 2):
 * the same cut Mixtral, 8 layers with routed experts on layers 1, 3, 5, 7
 * (model.moe_layer_interval 2, no dense_layers), pp 4 as [3, 3, 1, 1]:
 * stage 0 holds layers 0-2 (MoE 1: one), stage 1 layers 3-5 (3 and 5:
 * two), stage 2 layer 6 (none), stage 3 layer 7 (one). Stage 0, with the
 * embedding, holds the most parameters and one MoE layer; EP is priced
 * on stage 1's two: 64 + 64 calls, 7,516,192,768 B, as the first case
 * of test_ep_on_the_stage_with_moe_layers. Dense first would have put
 * layers 0-3 dense and given stage 0 none, stage 1 two (4, 5) all the
 * same, so [2, 2, 2, 2] tells them apart: stages of layers 0-1, 2-3,
 * 4-5, 6-7 hold one MoE layer each (dense first: 0, 0, 2, 2), and EP
 * prices one: 32 + 32 calls, 3,758,096,384 B. */
START_TEST(test_ep_on_the_stage_with_moe_layers_interleaved)
{
	static const char *const sets[] = {"model.num_layers=8", "model.moe_layer_interval=2", "parallel.tp=1",
					   "parallel.pp=4", "parallel.dp=8", "parallel.ep=8",
					   "parallel.pipeline_layers=[3,3,1,1]"};
	struct dc_override ov[7];
	struct dc_config c;
	struct dc_comm m;
	char path[512];
	ep_overrides(sets, ov, path, sizeof(path));
	m = ep_compute(path, ov, &c);
	ck_assert_uint_eq(m.stage, 0);
	ck_assert_uint_eq(m.ep_stage, 1);
	ck_assert_uint_eq(m.layers, 3);
	ck_assert_uint_eq(m.moe_layers, 2);
	ck_assert_uint_eq(m.s[DC_STRAT_EP].coll[0].count, 64);
	ck_assert_uint_eq(m.s[DC_STRAT_EP].coll[1].count, 64);
	ck_assert_uint_eq(m.s[DC_STRAT_EP].bytes_per_rank, 7516192768ull);
	ov[6] = (struct dc_override){"parallel.pipeline_layers=[2,2,2,2]", 0};
	m = ep_compute(path, ov, &c);
	ck_assert_uint_eq(m.moe_layers, 1);
	ck_assert_uint_eq(m.s[DC_STRAT_EP].coll[0].count, 32);
	ck_assert_uint_eq(m.s[DC_STRAT_EP].bytes_per_rank, 3758096384ull);
}
END_TEST

/* Megatron-Core's full recompute checkpoints whole transformer layers
 * (transformer_block.py _checkpointed_forward), and a MoE layer's forward
 * dispatches and combines inside it (moe_layer.py forward,
 * token_dispatcher.py token_dispatch / token_combine), so backward runs
 * the forward's two AlltoAlls again: 6 a MoE layer and microbatch, not 4.
 * Selective recompute (core attention) replays none.
 *   The stage-1 case above (7 layers, 3 dense, [3, 2, 1, 1], ep 8, M =
 *   67,108,864 B, 7/8 sent): none and selective 64 + 64 calls, 128 x
 *   58,720,256 = 7,516,192,768 B; full + 2 x 2 x 16 = 64 replayed,
 *   192 x 58,720,256 = 11,274,289,152 B. recompute_layers 1: stage 1's
 *   first layer of its 2, a MoE layer, + 2 x 1 x 16 = 32: 160 x
 *   58,720,256 = 9,395,240,960 B. With [4, 1, 1, 1] every stage holds
 *   one MoE layer and EP is priced on stage 0 (layers 0-3, the first 3
 *   dense; the most parameters): recompute_layers 1 reruns its dense
 *   layer 0 alone, no AlltoAll (64 calls), while stages 1-3 rerun their
 *   one layer, a MoE layer: 64 + 32 = 96 calls, the busiest EP rank, so
 *   EP moves to stage 1: 96 x 58,720,256 = 5,637,144,576 B;
 *   recompute_layers 4 reruns stage 0's MoE layer 3 too, 96 calls
 *   everywhere, stage 0 kept: the same bytes. */
START_TEST(test_ep_replayed_under_full_recompute)
{
	static const char *const sets[] = {"model.num_layers=7", "model.dense_layers=3", "parallel.tp=1",
					   "parallel.pp=4", "parallel.dp=8", "parallel.ep=8",
					   "parallel.pipeline_layers=[3,2,1,1]"};
	static const enum dc_recompute modes[] = {DC_RECOMPUTE_NONE, DC_RECOMPUTE_SELECTIVE};
	struct dc_override ov[7];
	struct dc_config c;
	struct dc_comm m;
	const struct dc_comm_strategy *s;
	char path[512];
	ep_overrides(sets, ov, path, sizeof(path));
	ep_compute(path, ov, &c);
	for (int i = 0; i < 2; i++) {
		c.training.recompute = modes[i];
		m = compute(&c);
		ck_assert_uint_eq(m.s[DC_STRAT_EP].ncoll, 2);
		ck_assert_uint_eq(m.s[DC_STRAT_EP].bytes_per_rank, 7516192768ull);
	}
	c.training.recompute = DC_RECOMPUTE_FULL;
	m = compute(&c);
	s = &m.s[DC_STRAT_EP];
	ck_assert_uint_eq(m.ep_stage, 1);
	ck_assert_uint_eq(s->ncoll, 3);
	ck_assert_int_eq(s->coll[2].what, DC_CW_EP_DISPATCH_COMBINE_RECOMPUTED);
	ck_assert_int_eq(s->coll[2].kind, DC_COLL_ALL_TO_ALL);
	ck_assert_int_eq(s->coll[2].phase, DC_CPHASE_BACKWARD);
	ck_assert_int_eq(s->coll[2].overlap, DC_OVL_EXPERT_A2A);
	ck_assert_uint_eq(s->coll[2].count, 64);
	ck_assert_uint_eq(s->coll[2].msg_bytes, 67108864ull);
	ck_assert_uint_eq(s->bytes_per_rank, 11274289152ull);
	ck_assert_double_eq_tol(s->time_s, 192 * (13.4e-6 + 58720256 / 3e11), 1e-12);
	c.training.recompute_layers = 1;
	m = compute(&c);
	ck_assert_uint_eq(calls_of(&m, DC_STRAT_EP, DC_CW_EP_DISPATCH_COMBINE_RECOMPUTED), 32);
	ck_assert_uint_eq(m.s[DC_STRAT_EP].bytes_per_rank, 9395240960ull);

	ov[6] = (struct dc_override){"parallel.pipeline_layers=[4,1,1,1]", 0};
	ep_compute(path, ov, &c);
	c.training.recompute = DC_RECOMPUTE_FULL;
	c.training.recompute_layers = 1;
	m = compute(&c);
	ck_assert_uint_eq(m.ep_stage, 1);
	ck_assert_uint_eq(calls_of(&m, DC_STRAT_EP, DC_CW_EP_DISPATCH_COMBINE_RECOMPUTED), 32);
	ck_assert_uint_eq(m.s[DC_STRAT_EP].bytes_per_rank, 5637144576ull);
	c.training.recompute_layers = 4;
	m = compute(&c);
	ck_assert_uint_eq(m.ep_stage, 0);
	ck_assert_uint_eq(calls_of(&m, DC_STRAT_EP, DC_CW_EP_DISPATCH_COMBINE_RECOMPUTED), 32);
	ck_assert_uint_eq(m.s[DC_STRAT_EP].bytes_per_rank, 5637144576ull);
}
END_TEST

/* The replayed layers' kinds with MoE on every second layer (the
 * interleaved case above: 8 layers, routed experts on 1, 3, 5, 7, pp 4
 * as [3, 3, 1, 1], EP on stage 1's layers 3-5, MoE 3 and 5, 7/8 x
 * 67,108,864 B a call, 128 calls without recompute): recompute_layers 1
 * reruns layer 3, a MoE layer, + 2 x 1 x 16 = 32 calls, 160 x 58,720,256
 * = 9,395,240,960 B; 2 reruns layers 3 and 4 (dense), the same 32;
 * 3 reruns 3-5, + 64, 192 x 58,720,256 = 11,274,289,152 B (dense
 * first would have counted layer 4 first and replayed none at 1).
 * [2, 2, 2, 2]: every stage holds one MoE layer, EP on the analysed
 * stage 3 (the head's: the most parameters), layers 6-7, MoE 7 (64
 * calls, 3,758,096,384 B): recompute_layers 1 reruns dense layer 6
 * alone, no replay; 2 reruns layer 7 too, + 32, 96 x 58,720,256 =
 * 5,637,144,576 B. */
START_TEST(test_ep_replayed_interleaved_moe)
{
	static const char *const sets[] = {"model.num_layers=8", "model.moe_layer_interval=2", "parallel.tp=1",
					   "parallel.pp=4", "parallel.dp=8", "parallel.ep=8",
					   "parallel.pipeline_layers=[3,3,1,1]"};
	static const uint64_t n13[] = {1, 2, 3}, calls13[] = {32, 32, 64};
	static const uint64_t bytes13[] = {9395240960ull, 9395240960ull, 11274289152ull};
	struct dc_override ov[7];
	struct dc_config c;
	struct dc_comm m;
	char path[512];
	ep_overrides(sets, ov, path, sizeof(path));
	ep_compute(path, ov, &c);
	c.training.recompute = DC_RECOMPUTE_FULL;
	for (int i = 0; i < 3; i++) {
		c.training.recompute_layers = n13[i];
		m = compute(&c);
		ck_assert_uint_eq(m.ep_stage, 1);
		ck_assert_uint_eq(calls_of(&m, DC_STRAT_EP, DC_CW_EP_DISPATCH_COMBINE_RECOMPUTED), calls13[i]);
		ck_assert_uint_eq(m.s[DC_STRAT_EP].bytes_per_rank, bytes13[i]);
	}
	ov[6] = (struct dc_override){"parallel.pipeline_layers=[2,2,2,2]", 0};
	ep_compute(path, ov, &c);
	c.training.recompute = DC_RECOMPUTE_FULL;
	c.training.recompute_layers = 1;
	m = compute(&c);
	ck_assert_uint_eq(m.stage, 3);
	ck_assert_uint_eq(m.ep_stage, 3);
	ck_assert_uint_eq(calls_of(&m, DC_STRAT_EP, DC_CW_EP_DISPATCH_COMBINE_RECOMPUTED), 0);
	ck_assert_uint_eq(m.s[DC_STRAT_EP].bytes_per_rank, 3758096384ull);
	c.training.recompute_layers = 2;
	m = compute(&c);
	ck_assert_uint_eq(calls_of(&m, DC_STRAT_EP, DC_CW_EP_DISPATCH_COMBINE_RECOMPUTED), 32);
	ck_assert_uint_eq(m.s[DC_STRAT_EP].bytes_per_rank, 5637144576ull);
}
END_TEST

/* The expert tp group's gathers replay with the AlltoAlls
 * (token_dispatcher.py dispatch_postprocess's all-gather and
 * combine_preprocess's reduce-scatter run inside the MoE layer's
 * forward): configs/mixtral-8x7b-ep.json (tp 2 = etp, pp 4, ep 4, 8 MoE
 * layers a stage, 16 microbatches) with sequence parallelism. Each
 * AlltoAll carries 4096 / 2 tokens x top-2 x 4096 x 2 B = 33,554,432 B,
 * 3/4 sent; each etp gather and reduce-scatter 2 x that, 67,108,864 B,
 * 1/2 sent: 33,554,432 B.
 *   none: 2 x 8 x 16 = 256 AlltoAlls each way and 8 x 16 = 128 of each
 *   of the 4 etp calls: 512 x 25,165,824 + 512 x 33,554,432 =
 *   30,064,771,072 B.
 *   full: + 256 AlltoAlls and 128 + 128 etp calls, 1.5 x:
 *   768 x 25,165,824 + 768 x 33,554,432 = 45,097,156,608 B.
 *   full, recompute_layers 2 of the stage's 8: + 2 x 2 x 16 = 64
 *   AlltoAlls and 32 + 32: 576 x (25,165,824 + 33,554,432) =
 *   33,822,867,456 B. */
START_TEST(test_etp_replayed_under_full_recompute)
{
	struct dc_override ov[1] = {{"parallel.sequence_parallel=true", 0}};
	struct dc_config c;
	struct dc_diag d;
	struct dc_comm m;
	char path[512];
	snprintf(path, sizeof(path), "%s/configs/mixtral-8x7b-ep.json", DC_SOURCE_DIR);
	dc_diag_init(&d);
	ck_assert_int_eq(dc_config_load_file(path, ov, 1, &c, &d), 0);
	dc_diag_release(&d);
	c.training.recompute = DC_RECOMPUTE_NONE;
	m = compute(&c);
	ck_assert_uint_eq(m.s[DC_STRAT_EP].ncoll, 6);
	ck_assert_uint_eq(calls_of(&m, DC_STRAT_EP, DC_CW_ETP_TOKENS), 128);
	ck_assert_uint_eq(m.s[DC_STRAT_EP].bytes_per_rank, 30064771072ull);
	c.training.recompute = DC_RECOMPUTE_FULL;
	m = compute(&c);
	ck_assert_uint_eq(m.s[DC_STRAT_EP].ncoll, 9);
	ck_assert_uint_eq(calls_of(&m, DC_STRAT_EP, DC_CW_EP_DISPATCH_COMBINE_RECOMPUTED), 256);
	ck_assert_uint_eq(calls_of(&m, DC_STRAT_EP, DC_CW_ETP_TOKENS_RECOMPUTED), 128);
	ck_assert_uint_eq(calls_of(&m, DC_STRAT_EP, DC_CW_ETP_OUTPUTS_RECOMPUTED), 128);
	for (uint64_t i = 0; i < m.s[DC_STRAT_EP].ncoll; i++) {
		const struct dc_coll *cl = &m.s[DC_STRAT_EP].coll[i];
		if (cl->what == DC_CW_ETP_TOKENS_RECOMPUTED)
			ck_assert_int_eq(cl->kind, DC_COLL_ALL_GATHER);
		if (cl->what == DC_CW_ETP_OUTPUTS_RECOMPUTED)
			ck_assert_int_eq(cl->kind, DC_COLL_REDUCE_SCATTER);
		if (cl->what == DC_CW_ETP_TOKENS_RECOMPUTED || cl->what == DC_CW_ETP_OUTPUTS_RECOMPUTED) {
			ck_assert_int_eq(cl->phase, DC_CPHASE_BACKWARD);
			ck_assert_uint_eq(cl->msg_bytes, 67108864ull);
			ck_assert_uint_eq(cl->group_size, 2);
		}
	}
	ck_assert_uint_eq(m.s[DC_STRAT_EP].bytes_per_rank, 45097156608ull);
	c.training.recompute_layers = 2;
	m = compute(&c);
	ck_assert_uint_eq(calls_of(&m, DC_STRAT_EP, DC_CW_EP_DISPATCH_COMBINE_RECOMPUTED), 64);
	ck_assert_uint_eq(calls_of(&m, DC_STRAT_EP, DC_CW_ETP_OUTPUTS_RECOMPUTED), 32);
	ck_assert_uint_eq(m.s[DC_STRAT_EP].bytes_per_rank, 33822867456ull);
}
END_TEST

/* Under sequence parallelism a MoE layer's MLP takes a TP gather and
 * reduce-scatter only where a shared expert gathers over the attention's
 * tp group (Megatron-Core's token dispatcher regroups over the expert tp
 * group: ep.c's etp rows), or under torchtitan with ep 1, whose MoE block
 * gathers its input as a dense MLP would (framework.h,
 * dc_framework_moe_tp_calls). configs/mixtral-8x7b-ep.json with
 * sequence parallelism: tp 2, pp 4, ep 4, 8 MoE layers a stage, 16
 * microbatches of b s = 4096 tokens, h 4096, BF16: every TP call carries
 * M = 4096 x 4096 x 2 = 33,554,432 B, of which a rank sends M / 2 =
 * 16,777,216 B; no recompute rows (selective), and the custom framework
 * re-gathers the input for the weight gradients.
 *   no shared expert: the attention's pair only, 8 x 16 = 128 calls of
 *   each of the 5 rows (g, g-bar, the output gradients' gather, the input
 *   gradients' reduce-scatter, the re-gather): 640 x 16,777,216 =
 *   10,737,418,240 B (before: 256 of each, twice that);
 *   a shared expert (model.shared_expert_ffn_hidden_size 14336): its
 *   pair too, 256 of each: 1280 x 16,777,216 = 21,474,836,480 B;
 *   torchtitan, ep 1: the block's gather and the routed experts'
 *   reduce-scatter, 256 of each of the 4 rows (torchtitan keeps the
 *   gathered input: no re-gather), 1024 x 16,777,216 =
 *   17,179,869,184 B, and no etp rows; with a shared expert its own
 *   reduce-scatter too: g 2 and g-bar 3 a layer, forward 256 gathers and
 *   384 reduce-scatters, backward 384 gathers and 256 reduce-scatters,
 *   1280 x 16,777,216 B again. */
START_TEST(test_moe_layer_tp_pair)
{
	static const char *const shared[] = {"model.shared_expert_ffn_hidden_size=0",
					     "model.shared_expert_ffn_hidden_size=14336"};
	struct dc_override ov[3] = {{"parallel.sequence_parallel=true", 0}, {NULL, 0}, {"parallel.ep=1", 0}};
	struct dc_config c;
	struct dc_diag d;
	struct dc_comm m;
	char path[512];
	snprintf(path, sizeof(path), "%s/configs/mixtral-8x7b-ep.json", DC_SOURCE_DIR);
	for (int i = 0; i < 2; i++) {
		ov[1].text = shared[i];
		dc_diag_init(&d);
		ck_assert_int_eq(dc_config_load_file(path, ov, 2, &c, &d), 0);
		dc_diag_release(&d);
		m = compute(&c);
		ck_assert_uint_eq(calls_of(&m, DC_STRAT_TP, DC_CW_TP_SEQ_IN_G), i ? 256 : 128);
		ck_assert_uint_eq(calls_of(&m, DC_STRAT_TP, DC_CW_TP_OUTPUT_GBAR), i ? 256 : 128);
		ck_assert_uint_eq(calls_of(&m, DC_STRAT_TP, DC_CW_TP_OUTPUT_GRAD_GBAR), i ? 256 : 128);
		ck_assert_uint_eq(calls_of(&m, DC_STRAT_TP, DC_CW_TP_INPUT_GRAD_G), i ? 256 : 128);
		ck_assert_uint_eq(calls_of(&m, DC_STRAT_TP, DC_CW_TP_INPUT_REGATHER), i ? 256 : 128);
		ck_assert_uint_eq(tp_layers_bytes(&m), i ? 21474836480ull : 10737418240ull);
		/* the dispatcher's gathers over the expert tp group (etp = tp 2)
		 * stay the EP axis's */
		ck_assert_uint_eq(calls_of(&m, DC_STRAT_EP, DC_CW_ETP_TOKENS), 128);
		/* torchtitan, ep 1 */
		dc_diag_init(&d);
		ck_assert_int_eq(dc_config_load_file(path, ov, 3, &c, &d), 0);
		dc_diag_release(&d);
		c.training.framework = DC_FRAMEWORK_TORCHTITAN;
		m = compute(&c);
		ck_assert_uint_eq(calls_of(&m, DC_STRAT_TP, DC_CW_TP_SEQ_IN_G), 256);
		ck_assert_uint_eq(calls_of(&m, DC_STRAT_TP, DC_CW_TP_OUTPUT_GBAR), i ? 384 : 256);
		ck_assert_uint_eq(calls_of(&m, DC_STRAT_TP, DC_CW_TP_OUTPUT_GRAD_GBAR), i ? 384 : 256);
		ck_assert_uint_eq(calls_of(&m, DC_STRAT_TP, DC_CW_TP_INPUT_GRAD_G), 256);
		ck_assert_uint_eq(calls_of(&m, DC_STRAT_TP, DC_CW_TP_INPUT_REGATHER), 0);
		ck_assert_uint_eq(tp_layers_bytes(&m), i ? 21474836480ull : 17179869184ull);
		ck_assert_int_eq(m.s[DC_STRAT_EP].in_play, 0);
	}
}
END_TEST

/* A multi-token-prediction module (model.mtp_layers 1) on the rank that
 * runs the head: one more layer of the model's kind and its eh_proj
 * (Megatron-Core d98e8a64 multi_token_prediction.py, docs/formulas-
 * systems.md "Tensor parallel", "Expert parallel"). Worked by hand:
 * configs/mixtral-8x7b-ep.json with sequence parallelism: tp 2, pp 4,
 * 8 MoE layers a stage (no shared expert: one pair a MoE layer), 16
 * microbatches, s 4096, h 4096, M = 4096 x 4096 x 2 = 33,554,432 B (a
 * rank sends M / 2). The last stage (3, the most parameters) runs the
 * module: 9 layers x 16 = 144 calls of each of the five layer rows,
 * 5 x 144 x 16,777,216 = 12,079,595,520 B (8 layers: 10,737,418,240);
 * its eh_proj 16 calls each of the input gather (2M = 67,108,864 B),
 * the output gather (M), the output gradient's gather (M), the input
 * gradient's reduce-scatter (2M) and the re-gather (2M): 16 x (3 x
 * 33,554,432 + 2 x 16,777,216) = 2,147,483,648 B; TP 14,227,079,168 B.
 * EP (ep 4, etp 2): its MoE layer on stage 3, now the stage with the
 * most (9): 2 x 9 x 16 = 288 AlltoAlls of 2048 tokens x top-2 x 4096 x
 * 2 B = 33,554,432 B, each sending 3/4 of it, 25,165,824; 144 of each
 * of the four etp rows of 2 x that, each sending 33,554,432 B:
 * 576 x 25,165,824 + 576 x 33,554,432 = 33,822,867,456 B (was
 * 30,064,771,072). Full recompute of every layer (Megatron's uniform
 * method) reruns the module: 144 recomputed gathers and reduce-scatters
 * and the eh_proj's two gathers, 16 each; with recompute_layers 1 (the
 * block method, which Megatron-Core skips for the module) one layer a
 * chunk, 16, and none of the eh_proj's.
 * Without sequence parallelism, configs/llama-3-8b.json (dense, tp 8,
 * pp 1, s 8192, h 4096, 32 layers, 16 microbatches; M = 67,108,864 B, an
 * AllReduce sends 2 x 7/8 M = 117,440,512 B): 2 x 33 x 16 = 1,056 of
 * each AllReduce row, 2 x 1,056 x 117,440,512 = 248,034,361,344 B; the
 * eh_proj's output gather, 16 of M (7/8 M = 58,720,256 B sent), and its
 * input gradient's AllReduce, 16 of 2M (234,881,024 B sent):
 * 4,697,620,480 B; the layers' and eh_proj's TP 252,731,981,824 B
 * (tp_layers_bytes: the model's ends apart, test_tp_model_ends_by_hand). */
START_TEST(test_mtp_module_tp_ep)
{
	struct dc_override ov[4] = {{"parallel.sequence_parallel=true", 0},
				    {"model.mtp_layers=1", 0},
				    {"training.recompute=\"full\"", 0},
				    {"training.recompute_layers=1", 0}};
	struct dc_config c;
	struct dc_diag d;
	struct dc_comm m;
	char path[512];
	snprintf(path, sizeof(path), "%s/configs/mixtral-8x7b-ep.json", DC_SOURCE_DIR);
	dc_diag_init(&d);
	ck_assert_int_eq(dc_config_load_file(path, ov, 2, &c, &d), 0);
	dc_diag_release(&d);
	m = compute(&c);
	ck_assert_uint_eq(m.stage, 3);
	ck_assert_uint_eq(m.mtp_layers, 1);
	ck_assert_uint_eq(m.layers, 8);
	ck_assert_uint_eq(m.ep_stage, 3);
	ck_assert_uint_eq(m.moe_layers, 9);
	ck_assert_uint_eq(calls_of(&m, DC_STRAT_TP, DC_CW_TP_SEQ_IN_G), 144);
	ck_assert_uint_eq(calls_of(&m, DC_STRAT_TP, DC_CW_TP_OUTPUT_GBAR), 144);
	ck_assert_uint_eq(calls_of(&m, DC_STRAT_TP, DC_CW_TP_OUTPUT_GRAD_GBAR), 144);
	ck_assert_uint_eq(calls_of(&m, DC_STRAT_TP, DC_CW_TP_INPUT_GRAD_G), 144);
	ck_assert_uint_eq(calls_of(&m, DC_STRAT_TP, DC_CW_TP_INPUT_REGATHER), 144);
	for (int w = DC_CW_TP_MTP_IN; w <= DC_CW_TP_MTP_REGATHER; w++)
		ck_assert_uint_eq(calls_of(&m, DC_STRAT_TP, (enum dc_coll_what)w), 16);
	ck_assert_uint_eq(calls_of(&m, DC_STRAT_TP, DC_CW_TP_MTP_RECOMPUTED), 0);
	ck_assert_uint_eq(tp_layers_bytes(&m), 14227079168ull);
	ck_assert_uint_eq(calls_of(&m, DC_STRAT_EP, DC_CW_EP_DISPATCH_COMBINE), 288);
	ck_assert_uint_eq(calls_of(&m, DC_STRAT_EP, DC_CW_ETP_TOKENS), 144);
	ck_assert_uint_eq(m.s[DC_STRAT_EP].bytes_per_rank, 33822867456ull);
	/* full recompute, every layer (uniform): the module reruns */
	dc_diag_init(&d);
	ck_assert_int_eq(dc_config_load_file(path, ov, 3, &c, &d), 0);
	dc_diag_release(&d);
	m = compute(&c);
	ck_assert_uint_eq(calls_of(&m, DC_STRAT_TP, DC_CW_TP_SEQ_RECOMPUTED), 144);
	ck_assert_uint_eq(calls_of(&m, DC_STRAT_TP, DC_CW_TP_OUTPUT_RECOMPUTED), 144);
	ck_assert_uint_eq(calls_of(&m, DC_STRAT_TP, DC_CW_TP_MTP_RECOMPUTED), 32);
	ck_assert_uint_eq(calls_of(&m, DC_STRAT_EP, DC_CW_EP_DISPATCH_COMBINE_RECOMPUTED), 288);
	/* recompute_layers 1 (block): one layer a chunk, not the module */
	dc_diag_init(&d);
	ck_assert_int_eq(dc_config_load_file(path, ov, 4, &c, &d), 0);
	dc_diag_release(&d);
	m = compute(&c);
	ck_assert_uint_eq(calls_of(&m, DC_STRAT_TP, DC_CW_TP_SEQ_RECOMPUTED), 16);
	ck_assert_uint_eq(calls_of(&m, DC_STRAT_TP, DC_CW_TP_MTP_RECOMPUTED), 0);
	ck_assert_uint_eq(calls_of(&m, DC_STRAT_EP, DC_CW_EP_DISPATCH_COMBINE_RECOMPUTED), 32);
	/* a dense model without sequence parallelism */
	snprintf(path, sizeof(path), "%s/configs/llama-3-8b.json", DC_SOURCE_DIR);
	dc_diag_init(&d);
	ck_assert_int_eq(dc_config_load_file(path, ov + 1, 1, &c, &d), 0);
	dc_diag_release(&d);
	m = compute(&c);
	ck_assert_uint_eq(m.mtp_layers, 1);
	ck_assert_uint_eq(calls_of(&m, DC_STRAT_TP, DC_CW_TP_OUTPUT_FG), 1056);
	ck_assert_uint_eq(calls_of(&m, DC_STRAT_TP, DC_CW_TP_INPUT_GRAD_FG), 1056);
	ck_assert_uint_eq(calls_of(&m, DC_STRAT_TP, DC_CW_TP_MTP_OUT), 16);
	ck_assert_uint_eq(calls_of(&m, DC_STRAT_TP, DC_CW_TP_MTP_IN_GRAD), 16);
	ck_assert_uint_eq(calls_of(&m, DC_STRAT_TP, DC_CW_TP_MTP_IN), 0);
	ck_assert_uint_eq(tp_layers_bytes(&m), 252731981824ull);
}
END_TEST

START_TEST(test_overflow_is_an_error)
{
	struct dc_config c;
	struct dc_comm m;
	const char *err = NULL;

	zero_comm_config(&c, DC_SHARD_FSDP);
	c.training.grad_accum_steps = UINT64_MAX / 2;
	ck_assert_int_eq(dc_comm_compute(plan_of(&c), &m, &err), -1);
	ck_assert_str_eq(err, "'model' x 'training' x 'precision': communication bytes per step overflow 64 bits");
}
END_TEST

static void assert_same_comm(const struct dc_comm *a, const struct dc_comm *b)
{
	ck_assert_uint_eq(a->stage, b->stage);
	ck_assert_uint_eq(a->layers, b->layers);
	ck_assert_uint_eq(a->bytes_per_rank, b->bytes_per_rank);
	ck_assert(a->time_s == b->time_s);
	for (int i = 0; i < DC_STRAT_COUNT; i++) {
		const struct dc_comm_strategy *x = &a->s[i], *y = &b->s[i];
		ck_assert_int_eq(x->in_play, y->in_play);
		ck_assert_uint_eq(x->group_size, y->group_size);
		ck_assert_uint_eq(x->ncoll, y->ncoll);
		ck_assert_uint_eq(x->bytes_per_rank, y->bytes_per_rank);
		ck_assert(x->time_s == y->time_s);
		for (uint64_t k = 0; k < x->ncoll; k++) {
			ck_assert_int_eq(x->coll[k].kind, y->coll[k].kind);
			ck_assert_int_eq(x->coll[k].what, y->coll[k].what);
			ck_assert_uint_eq(x->coll[k].count, y->coll[k].count);
			ck_assert_uint_eq(x->coll[k].msg_bytes, y->coll[k].msg_bytes);
			ck_assert_uint_eq(x->coll[k].bytes_per_rank, y->coll[k].bytes_per_rank);
			ck_assert(x->coll[k].time_s == y->coll[k].time_s);
			ck_assert_str_eq(x->coll[k].algorithm, y->coll[k].algorithm);
		}
	}
}

/* dc_comm_reshard from DDP to FSDP on tp 2 x dp 4 of the 64e6-parameter
 * config: psi / tp = 32e6 parameters a rank, M = 64e6 B; FSDP's two
 * AllGathers and ReduceScatter send 3 x 3/4 x 64e6 = 144e6 B a rank
 * (DDP's AllReduce 2 x 3/4 x 64e6 = 96e6); TP's calls are DDP's, kept;
 * every number is dc_comm_compute's for the FSDP plan. And back. */
START_TEST(test_reshard_emits_the_data_parallel_axes_alone)
{
	struct dc_config c;
	struct dc_plan ddp, fsdp;
	struct dc_comm a, b, full;
	struct dc_layout lay;
	const char *err = NULL;

	zero_comm_config(&c, DC_SHARD_NONE);
	c.parallel.tp = 2;
	c.parallel.dp = 4;
	fixture_plan(&c, &ddp);
	ck_assert_int_eq(dc_comm_compute(&ddp, &a, &err), 0);
	ck_assert_uint_eq(a.s[DC_STRAT_DP].bytes_per_rank, 96000000ull);
	ck_assert(a.s[DC_STRAT_TP].in_play);
	lay = ddp.layout;
	lay.sharding = DC_SHARD_FSDP;
	ck_assert_int_eq(dc_plan_derive_from(&ddp, &lay, &fsdp), 0);
	b = a;
	ck_assert_int_eq(dc_comm_reshard(&fsdp, &b, &err), 0);
	ck_assert(!b.s[DC_STRAT_DP].in_play);
	ck_assert_uint_eq(b.s[DC_STRAT_FSDP].bytes_per_rank, 144000000ull);
	ck_assert_uint_eq(b.bytes_per_rank, 144000000ull + a.s[DC_STRAT_TP].bytes_per_rank);
	ck_assert_int_eq(dc_comm_compute(&fsdp, &full, &err), 0);
	assert_same_comm(&b, &full);
	/* back to DDP from the FSDP result */
	ck_assert_int_eq(dc_comm_reshard(&ddp, &b, &err), 0);
	assert_same_comm(&b, &a);
}
END_TEST

static void memo_plan(const char *name, const char *const *sets, struct dc_config *c, struct dc_plan *p,
		      struct dc_net_memo *nm, struct dc_comm_memo *cm);

/* dc_comm_rechunk from v 3 to v 2 on the 175B (pp 8, 64 microbatches):
 * the pipeline's sends are emitted again, 64 x 3 = 192 activations a
 * rank a step become 64 x 2 = 128 (Megatron-LM 2021 section 2.2.2: a
 * microbatch crosses a rank's boundary once a chunk); tp's calls are
 * kept (one layer's AllReduces read no chunk); every number is
 * dc_comm_compute's for the v 2 plan. Under full recompute of
 * training.recompute_layers 2, tp's replayed forwards count each chunk's
 * first 2 layers, 3 x 2 = 6 of a stage's 12 on v 3, 2 x 2 = 4 on v 2: tp
 * is emitted again, and the same holds. A MoE model (mixtral, pp 4,
 * v 2 to 1) emits every axis again. */
START_TEST(test_rechunk_emits_the_pipeline_again)
{
	static const char *const v3[] = {"parallel.virtual_pipeline=3", NULL};
	static const char *const v3_full[] = {"parallel.virtual_pipeline=3", "training.recompute=full",
					      "training.recompute_layers=2", NULL};
	static const char *const moe_v2[] = {"parallel.virtual_pipeline=2", NULL};
	static const struct {
		const char *name;
		const char *const *sets;
		uint64_t v;
	} runs[] = {
		{"korthikanti-175b.json", v3, 2}, {"korthikanti-175b.json", v3_full, 2}, {"mixtral-8x7b-ep.json", moe_v2, 1}};
	static struct dc_config c;
	static struct dc_plan p, q;
	static struct dc_comm a, b, full;
	struct dc_net_memo *nm = calloc(1, sizeof(*nm));
	const char *err = NULL;
	ck_assert_ptr_nonnull(nm);
	for (size_t i = 0; i < sizeof(runs) / sizeof(runs[0]); i++) {
		struct dc_layout lay;
		memo_plan(runs[i].name, runs[i].sets, &c, &p, nm, NULL);
		ck_assert_int_eq(dc_comm_compute(&p, &a, &err), 0);
		lay = p.layout;
		lay.virtual_pipeline = runs[i].v;
		ck_assert_int_eq(dc_plan_derive_from(&p, &lay, &q), 0);
		b = a;
		ck_assert_int_eq(dc_comm_rechunk(&q, &b, &err), 0);
		ck_assert_int_eq(dc_comm_compute(&q, &full, &err), 0);
		assert_same_comm(&b, &full);
		if (i == 0) {
			ck_assert_uint_eq(a.s[DC_STRAT_PP].coll[0].count, 192);
			ck_assert_uint_eq(b.s[DC_STRAT_PP].coll[0].count, 128);
			ck_assert(a.s[DC_STRAT_TP].time_s == b.s[DC_STRAT_TP].time_s);
		}
		if (i == 1)
			ck_assert(a.s[DC_STRAT_TP].time_s > b.s[DC_STRAT_TP].time_s);
	}
	free(nm);
}
END_TEST

/* configs/NAME with `sets` (NULL-ended), derived into *p with the net
 * memo bound to its network and `cm` lent (NULL: none), as a search lends
 * them */
static void memo_plan(const char *name, const char *const *sets, struct dc_config *c, struct dc_plan *p,
		      struct dc_net_memo *nm, struct dc_comm_memo *cm)
{
	char path[512];
	struct dc_override ov[8];
	size_t n = 0;
	struct dc_diag d;
	snprintf(path, sizeof(path), "%s/configs/%s", DC_SOURCE_DIR, name);
	while (sets && sets[n] && n < 8) {
		ov[n] = (struct dc_override){sets[n], 0};
		n++;
	}
	dc_diag_init(&d);
	if (dc_config_load_file(path, ov, n, c, &d) != 0)
		ck_abort_msg("%s rejected: %s", name, d.count ? d.entries[0].text : "?");
	dc_diag_release(&d);
	fixture_plan(c, p);
	dc_net_memo_bind(nm, &p->net);
	p->net_memo = nm;
	p->comm_memo = cm;
}

/* A search's memo of the data-parallel axes' calls (comm.h) gives every
 * layout the collectives it has without one, whatever it held before:
 * each sharding once and again, ZeRO-2 and FSDP on another microbatch
 * count (their calls a microbatch), HSDP, a pipeline, another model and
 * network, and back; through dc_comm_compute and dc_comm_reshard. */
START_TEST(test_comm_memo_changes_nothing)
{
	static const char *const none[] = {"parallel.sharding=none", NULL};
	static const char *const zero1[] = {"parallel.sharding=zero1", NULL};
	static const char *const zero2[] = {"parallel.sharding=zero2", NULL};
	static const char *const fsdp[] = {"parallel.sharding=fsdp", NULL};
	static const char *const zero2_gas[] = {"parallel.sharding=zero2", "training.micro_batch_size=2", NULL};
	static const char *const fsdp_gas[] = {"parallel.sharding=fsdp", "training.micro_batch_size=2", NULL};
	static const char *const hsdp[] = {"parallel.sharding=fsdp", "parallel.dp_replicate=2", NULL};
	static const char *const dp2_none[] = {"parallel.sharding=none", "parallel.tp=4", "parallel.dp=2", NULL};
	static const char *const dp2_fsdp[] = {"parallel.sharding=fsdp", "parallel.tp=4", "parallel.dp=2", NULL};
	/* DeepSpeed all-reduces ZeRO's gradient buckets (framework.h): the
	 * same values but the framework */
	static const char *const zero1_ds[] = {"parallel.sharding=zero1", "training.framework=deepspeed",
					       "parallel.bucket_size=1 GiB", NULL};
	static const char *const zero1_mg[] = {"parallel.sharding=zero1", "parallel.bucket_size=1 GiB", NULL};
	static const struct {
		const char *name;
		const char *const *sets;
	} runs[] = {
		{"mixtral-8x7b-ep.json", none},	 {"mixtral-8x7b-ep.json", zero1},     {"mixtral-8x7b-ep.json", zero2},
		{"mixtral-8x7b-ep.json", fsdp},	 {"mixtral-8x7b-ep.json", none},      {"mixtral-8x7b-ep.json", zero2_gas},
		{"mixtral-8x7b-ep.json", zero2}, {"mixtral-8x7b-ep.json", fsdp_gas},  {"mixtral-8x7b-ep.json", fsdp},
		{"llama-3-8b.json", fsdp},	 {"llama-3-8b.json", hsdp},	      {"llama-3-8b.json", zero1},
		{"korthikanti-175b.json", dp2_none}, {"korthikanti-175b.json", dp2_fsdp}, {"mixtral-8x7b-ep.json", zero1},
		{"mixtral-8x7b-ep.json", fsdp},	 {"llama-3-8b.json", zero1_mg},	      {"llama-3-8b.json", zero1_ds},
	};
	static struct dc_config c;
	static struct dc_plan p;
	static struct dc_comm fresh, memoised, resharded;
	struct dc_net_memo *nm = calloc(1, sizeof(*nm));
	struct dc_comm_memo *cm = dc_comm_memo_new();
	const char *err = NULL;
	ck_assert(nm && cm);
	for (size_t i = 0; i < sizeof(runs) / sizeof(runs[0]); i++) {
		memo_plan(runs[i].name, runs[i].sets, &c, &p, nm, NULL);
		ck_assert_int_eq(dc_comm_compute(&p, &fresh, &err), 0);
		p.comm_memo = cm;
		ck_assert_int_eq(dc_comm_compute(&p, &memoised, &err), 0);
		assert_same_comm(&memoised, &fresh);
		/* and from the last layout's collectives, the sharding's again */
		if (i > 0 && strcmp(runs[i].name, runs[i - 1].name) == 0 && runs[i].sets[1] == NULL &&
		    runs[i - 1].sets[1] == NULL) {
			ck_assert_int_eq(dc_comm_reshard(&p, &resharded, &err), 0);
			assert_same_comm(&resharded, &fresh);
		}
		resharded = memoised;
	}
	dc_comm_memo_free(cm);
	free(nm);
}
END_TEST

/* A rank's own rows (dc_comm_sync_rows, what the step syncs each rank on)
 * through a search's memo are the rows it has without one, though another
 * plan took the memo between its comm result and them. Plans a and b:
 * configs/systems.json at tp 2, dp 2, pp 2 (stages of 8 and 24 layers),
 * the same network, degrees, buckets and parameters, so the same keys,
 * but a's dp groups inside a node (order tp-cp-ep-dp-pp: 4 GPUs a node,
 * tp 2 x dp 2) and b's across the two nodes (pp before dp). b's stage-0
 * rows, kept while b held the memo, are priced on b's NIC; a's lookup
 * after them must see the context change (comm.h memo_epoch) and price
 * its own on NVLink, whatever a's comm result knew of the memo. */
START_TEST(test_rank_rows_follow_the_memo_context)
{
	static const char *const a_sets[] = {"parallel.tp=2", "parallel.dp=2", "parallel.pp=2",
					     "parallel.pipeline_layers=[8,24]", "parallel.order=tp-cp-ep-dp-pp", NULL};
	static const char *const b_sets[] = {"parallel.tp=2", "parallel.dp=2", "parallel.pp=2",
					     "parallel.pipeline_layers=[8,24]", "parallel.order=tp-cp-ep-pp-dp", NULL};
	static struct dc_config ca, cb;
	static struct dc_plan a, b;
	static struct dc_comm comm_a, comm_b;
	static struct dc_comm_strategy fresh, via_b, via_a, again;
	struct dc_net_memo *nm = calloc(1, sizeof(*nm));
	struct dc_comm_memo *cm = dc_comm_memo_new();
	struct dc_stage_params r;
	const char *err = NULL;
	ck_assert(nm && cm);
	memo_plan("systems.json", a_sets, &ca, &a, nm, NULL);
	memo_plan("systems.json", b_sets, &cb, &b, nm, NULL);
	b.net_memo = a.net_memo; /* one network, bound once, as a search's */
	dc_net_memo_bind(nm, &a.net);
	ck_assert_int_eq(dc_memory_rank_params(&a, 0, &r), 0);
	ck_assert_int_eq(dc_comm_sync_rows(&a, NULL, DC_STRAT_DP, 0, &r, &fresh, &err), 0);
	ck_assert_int_eq(fresh.coll[0].link, DC_LINK_INTRA);
	a.comm_memo = cm;
	b.comm_memo = cm;
	ck_assert_int_eq(dc_comm_compute(&a, &comm_a, &err), 0);
	ck_assert_int_eq(dc_comm_compute(&b, &comm_b, &err), 0);
	ck_assert_int_eq(dc_comm_sync_rows(&b, &comm_b, DC_STRAT_DP, 0, &r, &via_b, &err), 0);
	ck_assert_int_eq(via_b.coll[0].link, DC_LINK_INTER);
	ck_assert_double_gt(via_b.time_s, fresh.time_s);
	ck_assert_int_eq(dc_comm_sync_rows(&a, &comm_a, DC_STRAT_DP, 0, &r, &via_a, &err), 0);
	ck_assert_int_eq(via_a.coll[0].link, DC_LINK_INTRA);
	ck_assert_uint_eq(via_a.ncoll, fresh.ncoll);
	ck_assert_double_eq(via_a.time_s, fresh.time_s);
	/* and kept: a's again, now a memo hit */
	ck_assert_int_eq(dc_comm_sync_rows(&a, &comm_a, DC_STRAT_DP, 0, &r, &again, &err), 0);
	ck_assert_double_eq(again.time_s, fresh.time_s);
	dc_comm_memo_free(cm);
	free(nm);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("comm");
	TCase *tc = tcase_create("core");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, test_course_ring_example);
	tcase_add_test(tc, test_zero_2psi_vs_3psi);
	tcase_add_test(tc, test_ddp_buckets);
	tcase_add_test(tc, test_hsdp_2x4);
	tcase_add_test(tc, test_pipeline_sends_per_schedule);
	tcase_add_test(tc, test_dualpipe_syncs_both_stages);
	tcase_add_test(tc, test_dualpipe_runs_each_stage_half_the_microbatches);
	tcase_add_test(tc, test_dualpipe_tp_cp_per_chunk_microbatch);
	tcase_add_test(tc, test_recompute_modules_replays);
	tcase_add_test(tc, test_moe_module_replays_dispatch);
	tcase_add_test(tc, test_ep_hit_chance_by_hand);
	tcase_add_test(tc, test_deepep_rows_by_hand);
	tcase_add_test(tc, test_dualpipe_reduces_per_chunk_microbatch);
	tcase_add_test(tc, test_dualpipe_mirror_where_nothing_else_reduces);
	tcase_add_test(tc, test_expert_folding_comm);
	tcase_add_test(tc, test_tp_bytes_per_layer);
	tcase_add_test(tc, test_pp_boundaries);
	tcase_add_test(tc, test_zero2_reduces_every_microbatch);
	tcase_add_test(tc, test_deepspeed_zero_reduces_with_allreduce);
	tcase_add_test(tc, test_tp_sequence_parallel_and_recompute);
	tcase_add_test(tc, test_tp_model_ends_by_hand);
	tcase_add_test(tc, test_tp_rows_bound);
	tcase_add_test(tc, test_tp_fp8_gathers);
	tcase_add_test(tc, test_pp_interleaved);
	tcase_add_test(tc, test_expert_parallel);
	tcase_add_test(tc, test_context_parallel_kv);
	tcase_add_test(tc, test_context_parallel_torch_ring);
	tcase_add_test(tc, test_fsdp_expert_units);
	tcase_add_test(tc, test_fsdp_pipeline_reduces_once);
	tcase_add_test(tc, test_fsdp_pipeline_llama3_70b);
	tcase_add_test(tc, test_fsdp_torchtitan_embedding_and_head_units);
	tcase_add_test(tc, test_fsdp_whole_model_is_root);
	tcase_add_test(tc, test_ep_on_the_stage_with_moe_layers);
	tcase_add_test(tc, test_ep_on_the_stage_with_moe_layers_interleaved);
	tcase_add_test(tc, test_ep_replayed_under_full_recompute);
	tcase_add_test(tc, test_etp_replayed_under_full_recompute);
	tcase_add_test(tc, test_moe_layer_tp_pair);
	tcase_add_test(tc, test_mtp_module_tp_ep);
	tcase_add_test(tc, test_ep_replayed_interleaved_moe);
	tcase_add_test(tc, test_overflow_is_an_error);
	tcase_add_test(tc, test_reshard_emits_the_data_parallel_axes_alone);
	tcase_add_test(tc, test_comm_memo_changes_nothing);
	tcase_add_test(tc, test_rank_rows_follow_the_memo_context);
	tcase_add_test(tc, test_rechunk_emits_the_pipeline_again);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
