/* check_checkpoint.c - checkpoint save, restore map and loss normalisation
 * (checkpoint.h, loss.h), against figures worked by hand in
 * docs/checkpoint-and-loss.md. */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "distcalc/checkpoint.h"
#include "distcalc/loss.h"
#include "distcalc/results.h"

#include "fixtures.h"
#include "fixtures_plan.h"

/* configs/systems.json (Llama-2-7B shape, 2 nodes x 4 GPUs, TP 4, DP 2)
 * with --set overrides */
/* configs/NAME with `sets` (at most 8) */
static void config_set(const char *name, struct dc_config *c, const char *const *sets, size_t n)
{
	char path[512];
	struct dc_override ov[8];
	struct dc_diag d;
	ck_assert(n <= 8);
	for (size_t i = 0; i < n; i++)
		ov[i] = (struct dc_override){sets[i], 0};
	snprintf(path, sizeof(path), "%s/configs/%s", DC_SOURCE_DIR, name);
	dc_diag_init(&d);
	if (dc_config_load_file(path, ov, n, c, &d) != 0)
		ck_abort_msg("rejected: %s", d.count ? d.entries[0].text : "?");
	dc_diag_release(&d);
}

static void systems_set(struct dc_config *c, const char *const *sets, size_t n)
{
	config_set("systems.json", c, sets, n);
}

static void run(const struct dc_config *c, struct dc_plan *p, struct dc_results *r, uint32_t what)
{
	fixture_plan(c, p);
	ck_assert_msg(dc_estimate(p, DC_EST_BIT(what), r) == 0, "%s", r->error ? r->error : "?");
}

/* By hand, the Llama-2-7B shape: embedding V h = 32000 x 4096 =
 * 131,072,000; a layer 4 h^2 + 3 h f + 2 h = 67,108,864 + 135,266,304 +
 * 8,192 = 202,383,360; the head and final norm 131,072,000 + 4,096 =
 * 131,076,096; in all 6,738,415,616. K = tp x dp = 8 slices, each exact:
 * 16,384,000 + 32 x 25,297,920 + 16,384,512 = 842,301,952 elements. */
#define SEVEN_B 6738415616ull
#define SLICE 842301952ull

START_TEST(test_systems_save_by_hand)
{
	static struct dc_config c;
	static struct dc_plan p;
	static struct dc_results r;
	const struct dc_checkpoint_result *k = &r.checkpoint;
	struct dc_ckpt_rank rk;

	fixture_systems(&c);
	run(&c, &p, &r, DC_EST_CHECKPOINT);
	ck_assert_uint_eq(k->items.embedding, 131072000ull);
	ck_assert_uint_eq(k->items.dense_layer, 202383360ull);
	ck_assert_uint_eq(k->items.head, 131076096ull);
	ck_assert_uint_eq(k->items.total, SEVEN_B);
	for (uint64_t kk = 0; kk < 8; kk++) {
		dc_ckpt_rank_of(&p, k, 0, kk, &rk);
		ck_assert_uint_eq(rk.elements, SLICE);
		ck_assert_uint_eq(rk.params_bytes, 1684603904ull);    /* x 2 */
		ck_assert_uint_eq(rk.master_bytes, 3369207808ull);    /* x 4 */
		ck_assert_uint_eq(rk.optimizer_bytes, 6738415616ull); /* x 8 */
		/* RNG 5056 + 16 and the data position 8 on every rank; rank 0
		 * adds the scaler 40 and the scheduler and step 24 */
		ck_assert_uint_eq(rk.total_bytes, 11792227328ull + 5080 + (kk == 0 ? 64 : 0));
	}
	ck_assert_uint_eq(k->states_bytes, 94337818624ull); /* 14 x 6,738,415,616 */
	ck_assert_uint_eq(k->saved_bytes, 94337818624ull + 8 * 5080 + 64);
	ck_assert_uint_eq(k->writers, 8);
	/* 94,337,859,328 B at 10 GB/s */
	ck_assert(fabs(k->save_time_s - 9.4337859328) < 1e-9);
	ck_assert(k->blocking_time_s == k->save_time_s);
	/* a sharded save adds nothing on the GPU: the optimizer step's bytes */
	ck_assert_uint_eq(k->gpu_extra_bytes, 0);
	ck_assert_uint_eq(k->gpu_peak_bytes, r.memory.top.phase_bytes[DC_MEM_OPTIMIZER]);
	ck_assert_uint_eq(k->host_rank_bytes, 0);
	/* data: step 1000 x global batch 1 x 8 x 2 = 16,000 samples */
	ck_assert_uint_eq(k->samples_consumed, 16000);
}
END_TEST

START_TEST(test_systems_full_and_async_by_hand)
{
	static struct dc_config c, cs;
	static struct dc_plan p, ps;
	static struct dc_results r, rs;
	const char *const full[] = {"checkpoint.format=\"full\""};
	const char *const async[] = {"checkpoint.async=true"};
	const struct dc_checkpoint_result *k = &r.checkpoint;
	double gather;

	systems_set(&c, full, 1);
	run(&c, &p, &r, DC_EST_CHECKPOINT);
	ck_assert_uint_eq(k->writers, 1);
	ck_assert_uint_eq(k->rank0.elements, SEVEN_B);
	/* DDP, tp 4 x dp 2 on 2 nodes of 4: rank 0 holds tp shard 0 of every
	 * state; its node holds the other 3 (ranks 1-3, tp 1-3 of dp 0), so
	 * it receives 3/4 x 94,337,818,624 = 70,753,363,968 B over NVLink
	 * (300 GB/s) and nothing over its NIC: 0.23584454656 s (the old
	 * every-rank-a-distinct-1/8 model gave 3/8 over NVLink + 4/8 over
	 * the NIC, 1.0613 s) */
	gather = 94337818624.0 * 3 / 4 / 300e9;
	ck_assert_uint_eq(k->gather_intra_bytes, 70753363968ull);
	ck_assert_uint_eq(k->gather_inter_bytes, 0);
	ck_assert(fabs(k->gather_time_s - gather) < 1e-12);
	ck_assert(fabs(k->gather_time_s - 0.23584454656) < 1e-12);
	/* then rank 0 copies the whole state dict to the host, one gathered
	 * tensor after another (cpu_offload), 94,337,823,768 B at the 25
	 * GB/s default: 3.77351295072 s, before the write (a trial found
	 * the copy left out: 9.670 s sync, 0.236 s blocking async) */
	ck_assert_uint_eq(k->rank0.total_bytes, 94337823768ull);
	ck_assert(fabs(k->staging_time_s - 3.77351295072) < 1e-12);
	ck_assert(fabs(k->save_time_s - (0.23584454656 + 3.77351295072 + 9.4337859328)) < 1e-9);
	ck_assert(k->blocking_time_s == k->save_time_s);
	/* one gathered tensor at a time (tp 4: every state is a DTensor):
	 * the largest tensor is the embedding (or head), 32,000 x 4,096 =
	 * 131,072,000 elements (a layer's largest, an MLP matrix, is 4,096
	 * x 11,008 = 45,088,768), at the most bytes one tensor's element has:
	 * master 4, exp_avg 4 (Adam's 8 B are two 4-byte tensors), param 2:
	 * 524,288,000 B (the old whole-layer x 8 B figure was 1,619,066,880) */
	ck_assert_uint_eq(k->gpu_extra_bytes, 524288000ull);
	ck_assert_uint_eq(r.memory.top.phase_subtotal_bytes[DC_MEM_CHECKPOINT],
			  r.memory.top.phase_subtotal_bytes[DC_MEM_OPTIMIZER] + 524288000ull);
	ck_assert_uint_eq(k->host_rank_bytes, 94337818624ull + 5080 + 64);

	systems_set(&cs, async, 1);
	run(&cs, &ps, &rs, DC_EST_CHECKPOINT);
	/* async sharded: training waits for the largest rank's copy to host,
	 * 11,792,232,472 B at 25 GB/s; the node stages 4 ranks' shares */
	ck_assert(fabs(rs.checkpoint.blocking_time_s - 11792232472.0 / 25e9) < 1e-9);
	ck_assert(fabs(rs.checkpoint.save_time_s - (11792232472.0 / 25e9 + 9.4337859328)) < 1e-9);
	ck_assert_uint_eq(rs.checkpoint.host_rank_bytes, 11792232472ull);
	ck_assert_uint_eq(rs.checkpoint.host_node_bytes, 4 * 11792232472ull);
	/* no cluster.host_bandwidth in systems.json: the 25 GB/s default */
	ck_assert(rs.checkpoint.staging_bw_bytes_per_s == 25e9);
	ck_assert_int_eq(rs.checkpoint.staging_bw_from, DC_CKPT_STAGING_DEFAULT);

	/* a sync sharded save copies each rank's share ahead of its write
	 * (DCP's FileSystemWriter): at 400 GB/s of storage the write is
	 * 94,337,859,328 / 400e9 = 0.23584464832 s, the largest rank's copy
	 * 0.47168929888 s, so training waits for the copy, as long as an
	 * async save blocks (a trial's sync save blocked half as long) */
	{
		const char *const fast[] = {"checkpoint.storage_bandwidth=\"400 GB/s\""};
		systems_set(&cs, fast, 1);
		run(&cs, &ps, &rs, DC_EST_CHECKPOINT);
		ck_assert(fabs(rs.checkpoint.write_time_s - 0.23584464832) < 1e-12);
		ck_assert(fabs(rs.checkpoint.staging_time_s - 0.47168929888) < 1e-12);
		ck_assert(rs.checkpoint.blocking_time_s == rs.checkpoint.staging_time_s);
		ck_assert(rs.checkpoint.save_time_s == rs.checkpoint.staging_time_s);
	}
}
END_TEST

/* The gather of a full save from what each rank holds, on systems.json
 * (2 nodes x 4 GPUs, NVLink 300 GB/s, NIC 50 GB/s, E = 6,738,415,616
 * elements; parameters 2 B, master 4 B, optimizer 8 B: 2E = 13,476,831,232,
 * 12E = 80,860,987,392, 14E = 94,337,818,624), by hand:
 * - DDP, tp 1, dp 8: rank 0 holds every state whole: 0 B, 0 s. gather
 *   "gpu" copies nothing (plain tensors pass through _gather_state_dict's
 *   _identity_func) and gather "cpu" gathers nothing on the GPU: 0 B.
 * - ZeRO-1, tp 1, dp 8: the parameters are whole on rank 0 (0 B); the
 *   master and optimizer (12 B) are 1/8 a rank: ranks 1-3 of its node
 *   send 3/8 x 12E = 30,322,870,272 B over NVLink, the other node's 4
 *   ranks 4/8 x 12E = 40,430,493,696 B through the NIC: 0.10107623424 +
 *   0.80860987392 = 0.90968610816 s. gather "gpu" keeps the gathered
 *   master and optimizer states, 12E = 80,860,987,392 B; "cpu" one
 *   tensor, the embedding's master or exp_avg, 131,072,000 x 4 =
 *   524,288,000 B.
 * - ZeRO-1, tp 4, dp 2: node 0 is tp 0-3 of dp 0. Parameters: 3/4 x 2E =
 *   10,107,623,424 B over NVLink; master and optimizer, slice t x 2 + d
 *   of 8: node 0 holds d = 0 of each t, 4/8, rank 0 1/8: 3/8 x 12E =
 *   30,322,870,272 B over NVLink and 4/8 x 12E = 40,430,493,696 B through
 *   the NIC: 40,430,493,696 / 300e9 + 40,430,493,696 / 50e9 =
 *   0.13476831232 + 0.80860987392 = 0.94337818624 s.
 * - FSDP, tp 1, dp 8: every state 1/8 a rank: 3/8 x 14E = 35,376,681,984
 *   B over NVLink, 4/8 x 14E = 47,168,909,312 B through the NIC: 0.11792227328
 *   + 0.94337818624 = 1.06130045952 s (the old formula's, right here).
 * - DDP, tp 4, pp 2, dp 1: node 0 is stage 0 (tp 0-3), 131,072,000 + 16 x
 *   202,383,360 = 3,369,205,760 elements, rank 0 1/4 of them: 3/4 x 14 x
 *   3,369,205,760 = 35,376,660,480 B over NVLink; stage 1, 3,369,209,856
 *   elements x 14 = 47,168,937,984 B through the NIC: 0.1179222016 +
 *   0.94337875968 = 1.06130096128 s.
 * - HSDP, tp 1, dp 8, dp_replicate 2 (G = 4): rank 0's node is one
 *   replica's shard group, d = 0-3, so it holds every state whole: 3/4 x
 *   14E = 70,753,363,968 B over NVLink, none through the NIC: 0.23584454656 s.
 * - cp 2 (tp 1, dp 4): FSDP shards over dp x cp = 8, the same 1.06130045952
 *   s as dp 8; DDP replicates the states over cp too: 0 s. */
START_TEST(test_full_gather_by_holding)
{
	static struct dc_config c;
	static struct dc_plan p;
	static struct dc_results r;
	const struct dc_checkpoint_result *k = &r.checkpoint;
	struct case_ {
		const char *sharding, *tp, *dp, *pp, *more;
		uint64_t intra, inter;
		double t;
	} cases[] = {
		{"parallel.sharding=\"none\"", "parallel.tp=1", "parallel.dp=8", "parallel.pp=1", NULL, 0, 0, 0.0},
		{"parallel.sharding=\"zero1\"", "parallel.tp=1", "parallel.dp=8", "parallel.pp=1", NULL,
		 30322870272ull, 40430493696ull, 0.90968610816},
		{"parallel.sharding=\"zero1\"", "parallel.tp=4", "parallel.dp=2", "parallel.pp=1", NULL,
		 40430493696ull, 40430493696ull, 0.94337818624},
		{"parallel.sharding=\"fsdp\"", "parallel.tp=1", "parallel.dp=8", "parallel.pp=1", NULL,
		 35376681984ull, 47168909312ull, 1.06130045952},
		{"parallel.sharding=\"none\"", "parallel.tp=4", "parallel.dp=1", "parallel.pp=2", NULL,
		 35376660480ull, 47168937984ull, 1.06130096128},
		{"parallel.sharding=\"fsdp\"", "parallel.tp=1", "parallel.dp=8", "parallel.pp=1",
		 "parallel.dp_replicate=2", 70753363968ull, 0, 0.23584454656},
		{"parallel.sharding=\"fsdp\"", "parallel.tp=1", "parallel.dp=4", "parallel.pp=1", "parallel.cp=2",
		 35376681984ull, 47168909312ull, 1.06130045952},
		{"parallel.sharding=\"none\"", "parallel.tp=1", "parallel.dp=4", "parallel.pp=1", "parallel.cp=2", 0,
		 0, 0.0},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *const sets[] = {"checkpoint.format=\"full\"", cases[i].sharding, cases[i].tp, cases[i].dp,
					    cases[i].pp, cases[i].more};
		systems_set(&c, sets, cases[i].more ? 6 : 5);
		run(&c, &p, &r, DC_EST_CHECKPOINT);
		ck_assert_uint_eq(k->gather_intra_bytes, cases[i].intra);
		ck_assert_uint_eq(k->gather_inter_bytes, cases[i].inter);
		ck_assert_msg(fabs(k->gather_time_s - cases[i].t) < 1e-9, "case %zu: %.12f", i, k->gather_time_s);
		if (i == 0)
			ck_assert_uint_eq(k->gpu_extra_bytes, 0);
		if (i == 1)
			ck_assert_uint_eq(k->gpu_extra_bytes, 524288000ull);
	}
	{
		const char *const ddp[] = {"checkpoint.format=\"full\"", "checkpoint.gather=\"gpu\"",
					   "parallel.tp=1", "parallel.dp=8"};
		const char *const zero1[] = {"checkpoint.format=\"full\"", "checkpoint.gather=\"gpu\"", "parallel.tp=1",
					     "parallel.dp=8", "parallel.sharding=\"zero1\""};
		systems_set(&c, ddp, 4);
		run(&c, &p, &r, DC_EST_CHECKPOINT);
		ck_assert_uint_eq(k->gpu_extra_bytes, 0);
		ck_assert(k->gather_time_s == 0.0);
		ck_assert_uint_eq(k->gpu_peak_bytes, r.memory.top.phase_bytes[DC_MEM_OPTIMIZER]);
		systems_set(&c, zero1, 5);
		run(&c, &p, &r, DC_EST_CHECKPOINT);
		ck_assert_uint_eq(k->gpu_extra_bytes, 80860987392ull);
	}
}
END_TEST

/* The largest gathered tensor of Mixtral-8x7B (configs/mixtral-8x7b-ep.json:
 * h 4,096, V 32,000, one expert's f 14,336; tp 2, ep 4, ZeRO-1): the
 * embedding and the head are 32,000 x 4,096 = 131,072,000 elements; one
 * expert's w1, w2 or w3 4,096 x 14,336 = 58,720,256; so 131,072,000 x 4
 * = 524,288,000 B, as for the restore's broadcast buffer (the old whole
 * MoE layer x 8 B was 11,610,161,152). Under training.framework
 * "torchtitan" GroupedExperts holds a layer's 8 experts in one E x f x h
 * tensor, 8 x 58,720,256 = 469,762,048 elements: 1,879,048,192 B. */
START_TEST(test_full_largest_tensor_moe)
{
	static struct dc_config c;
	static struct dc_plan p;
	static struct dc_results r;
	const char *const full[] = {"checkpoint.format=\"full\""};
	/* (torchtitan's EP at tp 2: its default sequence parallelism) */
	const char *const titan[] = {"checkpoint.format=\"full\"", "training.framework=\"torchtitan\"",
				     "parallel.sequence_parallel=true"};

	config_set("mixtral-8x7b-ep.json", &c, full, 1);
	run(&c, &p, &r, DC_EST_CHECKPOINT);
	ck_assert_uint_eq(r.checkpoint.gpu_extra_bytes, 524288000ull);
	ck_assert_uint_eq(r.checkpoint.restore_buffer_bytes, 524288000ull);
	config_set("mixtral-8x7b-ep.json", &c, titan, 3);
	run(&c, &p, &r, DC_EST_CHECKPOINT);
	ck_assert_uint_eq(r.checkpoint.gpu_extra_bytes, 1879048192ull);
	ck_assert_uint_eq(r.checkpoint.restore_buffer_bytes, 1879048192ull);
}
END_TEST

/* Async staging at cluster.host_bandwidth when the cluster keys give it:
 * systems.json's largest rank stages 11,792,232,472 B; at 16 GB/s (a
 * dgx-a100's shared PCIe uplink) 0.7370145295 s, 25/16 = 1.5625 x the 25
 * GB/s default's 0.47168929888 s. A staging_bandwidth given wins. */
START_TEST(test_staging_bandwidth_default)
{
	static struct dc_config c;
	static struct dc_plan p;
	static struct dc_results r;
	const char *const host[] = {"checkpoint.async=true", "cluster.host_bandwidth=\"16 GB/s\""};
	const char *const both[] = {"checkpoint.async=true", "cluster.host_bandwidth=\"16 GB/s\"",
				    "checkpoint.staging_bandwidth=\"25 GB/s\""};

	systems_set(&c, host, 2);
	run(&c, &p, &r, DC_EST_CHECKPOINT);
	ck_assert(r.checkpoint.staging_bw_bytes_per_s == 16e9);
	ck_assert_int_eq(r.checkpoint.staging_bw_from, DC_CKPT_STAGING_HOST);
	ck_assert(fabs(r.checkpoint.staging_time_s - 0.7370145295) < 1e-12);
	ck_assert(fabs(r.checkpoint.blocking_time_s - 0.7370145295) < 1e-12);
	systems_set(&c, both, 3);
	run(&c, &p, &r, DC_EST_CHECKPOINT);
	ck_assert(r.checkpoint.staging_bw_bytes_per_s == 25e9);
	ck_assert_int_eq(r.checkpoint.staging_bw_from, DC_CKPT_STAGING_KEY);
	ck_assert(fabs(r.checkpoint.staging_time_s - 0.47168929888) < 1e-12);
}
END_TEST

/* A new dp that does not divide the global batch: the nearest multiple of
 * dp', its share split as when dp' divides it (the micro batch the gcd of
 * the share and the saved one). systems.json with micro batch 4 x 2
 * accumulation steps x dp 2 = 16: on 3 nodes of 4 at tp 4 (dp' 3) 16 / 3
 * = 5.33, so 5 a replica, 15 in all (-6%), micro batch gcd(5, 4) = 1, 5
 * steps (keeping micro batch 4 gave 12, -25%); on 6 nodes (dp' 6) 16 / 6
 * = 2.67, 3 a replica, 18 (+12.5%; the old rule's 24 was +50%), micro
 * batch gcd(3, 4) = 1, 3 steps. */
START_TEST(test_restore_batch_nearest)
{
	static struct dc_config c;
	static struct dc_plan p;
	static struct dc_results r;
	const char *const three[] = {"training.micro_batch_size=4", "training.grad_accum_steps=2",
				     "checkpoint.restore.num_nodes=3", "checkpoint.restore.tp=4"};
	const char *const six[] = {"training.micro_batch_size=4", "training.grad_accum_steps=2",
				   "checkpoint.restore.num_nodes=6", "checkpoint.restore.tp=4"};

	systems_set(&c, three, 4);
	run(&c, &p, &r, DC_EST_CHECKPOINT);
	ck_assert_uint_eq(r.checkpoint.global_batch, 16);
	ck_assert(!r.checkpoint.batch_kept);
	ck_assert_uint_eq(r.checkpoint.new_global_batch, 15);
	ck_assert_uint_eq(r.checkpoint.new_micro_batch, 1);
	ck_assert_uint_eq(r.checkpoint.new_grad_accum, 5);
	/* 1000 x 16 = 16,000 samples, 16,000 mod 15 = 10 */
	ck_assert_uint_eq(r.checkpoint.remaining_check, 10);
	systems_set(&c, six, 4);
	run(&c, &p, &r, DC_EST_CHECKPOINT);
	ck_assert_uint_eq(r.checkpoint.new_global_batch, 18);
	ck_assert_uint_eq(r.checkpoint.new_micro_batch, 1);
	ck_assert_uint_eq(r.checkpoint.new_grad_accum, 3);
}
END_TEST

/* The save's host memory against cluster.host_memory (systems.json):
 * async, a node stages 4 x 11,792,232,472 = 47,168,929,888 B: above 32
 * GiB (34,359,738,368), below 64 GiB (68,719,476,736); full, rank 0's
 * node holds its state dict, 94,337,818,624 + 5,080 + 64 = 94,337,823,768
 * B: above 64 GiB, below 128 GiB (137,438,953,472). Without host_memory
 * nothing is checked. */
START_TEST(test_save_host_memory)
{
	static struct dc_config c;
	static struct dc_plan p;
	static struct dc_results r;
	struct {
		const char *what, *mem;
		uint64_t node;
		int fits;
	} cases[] = {
		{"checkpoint.async=true", "cluster.host_memory=\"32 GiB\"", 47168929888ull, 0},
		{"checkpoint.async=true", "cluster.host_memory=\"64 GiB\"", 47168929888ull, 1},
		{"checkpoint.format=\"full\"", "cluster.host_memory=\"64 GiB\"", 94337823768ull, 0},
		{"checkpoint.format=\"full\"", "cluster.host_memory=\"128 GiB\"", 94337823768ull, 1},
	};
	const char *const none[] = {"checkpoint.format=\"full\""};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *const sets[] = {cases[i].what, cases[i].mem};
		systems_set(&c, sets, 2);
		run(&c, &p, &r, DC_EST_CHECKPOINT);
		ck_assert_uint_eq(r.checkpoint.host_node_bytes, cases[i].node);
		ck_assert_int_eq(r.checkpoint.save_host_fits, cases[i].fits);
	}
	ck_assert_uint_eq(r.checkpoint.save_host_mem_bytes, 137438953472ull);
	systems_set(&c, none, 1);
	run(&c, &p, &r, DC_EST_CHECKPOINT);
	ck_assert_uint_eq(r.checkpoint.save_host_mem_bytes, 0);
	ck_assert(r.checkpoint.save_host_fits);
	ck_assert(r.checkpoint.save_gpu_fits); /* a sharded save: the ledger's checkpoint_save phase fits 80 GiB */
}
END_TEST

/* checkpoint.gather "gpu" (get_state_dict full_state_dict=True,
 * cpu_offload=False) keeps a stage's items whole on its GPU, every state
 * at 2 + 4 + 8 = 14 B. PP 1: all 6,738,415,616 elements, 94,337,818,624 B.
 * PP 2 (dp 1), 16 layers a stage: stage 0 the embedding and 16 layers,
 * 131,072,000 + 16 x 202,383,360 = 3,369,205,760 elements, 47,168,880,640
 * B; stage 1 16 layers and the head, 3,238,133,760 + 131,076,096 =
 * 3,369,209,856 elements, 47,168,937,984 B. "gpu" with a sharded save is
 * an error (nothing is gathered). */
START_TEST(test_full_gather_gpu_by_hand)
{
	static struct dc_config c, c2;
	static struct dc_plan p, p2;
	static struct dc_results r;
	const char *const gpu[] = {"checkpoint.format=\"full\"", "checkpoint.gather=\"gpu\""};
	const char *const gpu2[] = {"checkpoint.format=\"full\"", "checkpoint.gather=\"gpu\"", "parallel.pp=2",
				    "parallel.dp=1"};
	uint64_t x;
	char path[512];
	struct dc_override ov[1] = {{"checkpoint.gather=\"gpu\""}};
	struct dc_diag d;

	systems_set(&c, gpu, 2);
	run(&c, &p, &r, DC_EST_CHECKPOINT);
	ck_assert_uint_eq(r.checkpoint.gpu_extra_bytes, 94337818624ull);
	/* the optimizer step's 28,030,599,168 (docs/whatif.md) + the state
	 * dict: 122,368,417,792, + 5% rounded up: 128,486,838,682 */
	ck_assert_uint_eq(r.checkpoint.gpu_peak_bytes, 128486838682ull);
	ck_assert(r.checkpoint.gpu_peak_bytes > r.checkpoint.gpu_training_peak_bytes);
	/* above the 80 GiB (85,899,345,920 B) GPU: the save runs out of
	 * memory (save_gpu_fits; the acceptance condition says FAILS) */
	ck_assert(!r.checkpoint.save_gpu_fits);

	systems_set(&c2, gpu2, 4);
	fixture_plan(&c2, &p2);
	ck_assert_int_eq(dc_ckpt_gpu_extra(&p2, 0, &x), 0);
	ck_assert_uint_eq(x, 47168880640ull);
	ck_assert_int_eq(dc_ckpt_gpu_extra(&p2, 1, &x), 0);
	ck_assert_uint_eq(x, 47168937984ull);

	snprintf(path, sizeof(path), "%s/configs/systems.json", DC_SOURCE_DIR);
	dc_diag_init(&d);
	ck_assert_int_ne(dc_config_load_file(path, ov, 1, &c2, &d), 0);
	ck_assert_ptr_nonnull(strstr(d.entries[0].text, "'checkpoint.gather'"));
	ck_assert_ptr_nonnull(strstr(d.entries[0].text, "sharded"));
	dc_diag_release(&d);
}
END_TEST

/* The restore prices its largest new rank against the GPU. Onto one 80
 * GiB GPU (tp 1, one node of 1): it reads all 94,337,818,624 B of states,
 * + 0 buffer (sharded: read through host memory) + the 536,870,912 B CUDA
 * context = 94,874,689,536 B > 85,899,345,920: fails. Onto the saved
 * layout (sharding "none": DDP) each rank holds its tp shard of every
 * state, 6,738,415,616 / 4 = 1,684,603,904 elements x 14 B =
 * 23,584,454,656 B, + 536,870,912 = 24,121,325,568: fits. A full
 * checkpoint broadcast from rank 0 adds one tensor at a time, the
 * largest (the embedding, 131,072,000 elements) at the most bytes of one
 * tensor's element (master or exp_avg, 4): 524,288,000 B. */
START_TEST(test_restore_memory_by_hand)
{
	static struct dc_config c, c2, c3;
	static struct dc_plan p, p2, p3;
	static struct dc_results r, r2, r3;
	const char *const one[] = {"checkpoint.restore.num_nodes=1", "checkpoint.restore.gpus_per_node=1",
				   "checkpoint.restore.tp=1"};
	const char *const full[] = {"checkpoint.format=\"full\""};

	systems_set(&c, one, 3);
	run(&c, &p, &r, DC_EST_CHECKPOINT);
	ck_assert_uint_eq(r.checkpoint.restore_read_max_bytes, 94337818624ull);
	ck_assert_uint_eq(r.checkpoint.restore_buffer_bytes, 0);
	ck_assert_uint_eq(r.checkpoint.restore_rank_bytes, 94874689536ull);
	ck_assert_uint_eq(r.checkpoint.restore_gpu_mem_bytes, 85899345920ull);
	ck_assert(!r.checkpoint.restore_fits);

	fixture_systems(&c2);
	run(&c2, &p2, &r2, DC_EST_CHECKPOINT);
	ck_assert_uint_eq(r2.checkpoint.restore_read_max_bytes, 23584454656ull);
	ck_assert_uint_eq(r2.checkpoint.restore_rank_bytes, 24121325568ull);
	ck_assert(r2.checkpoint.restore_fits);

	systems_set(&c3, full, 1);
	run(&c3, &p3, &r3, DC_EST_CHECKPOINT);
	ck_assert_uint_eq(r3.checkpoint.restore_buffer_bytes, 524288000ull);
	ck_assert_uint_eq(r3.checkpoint.restore_rank_bytes, 24121325568ull + 524288000ull);
}
END_TEST

/* Saved on TP 4 x DP 2, restored on 3 nodes of 4 with TP 2, PP 2 (dp 3,
 * K' = 6). Under "none" (DDP) new rank 0 (stage 0: the embedding and
 * layers 0..15, tp shard 0 of 2) holds half of each item: the embedding
 * [0, 65,536,000), old slices 0..3 of 8 (16,384,000 each); each layer's
 * 101,191,680 = 4 x 25,297,920, old slices 0..3 as well: 4 old shards,
 * (tp 0, dp 0) to (tp 1, dp 1). Elements 65,536,000 + 16 x 101,191,680 =
 * 1,684,602,880 of every state, x 14 B = 23,584,440,320 B. Under "fsdp"
 * it holds slice 0 of 6: the embedding [0, 21,845,333), 16,384,000 from
 * old slice 0 and 5,461,333 from slice 1; of each layer's 33,730,560,
 * 25,297,920 and 8,432,640. Elements 21,845,333 + 16 x 33,730,560 =
 * 561,534,293, x 14. The global batch 16 does not split over dp 3: the
 * nearest that does, with the micro batch kept, is 15. */
START_TEST(test_reshard_by_hand)
{
	static struct dc_config c, cf;
	static struct dc_plan p, pf;
	static struct dc_results r, rf;
	const char *const sets[] = {"checkpoint.restore.num_nodes=3", "checkpoint.restore.tp=2",
				    "checkpoint.restore.pp=2", "parallel.sharding=\"fsdp\""};
	struct dc_ckpt_read rd;

	systems_set(&c, sets, 3);
	ck_assert_uint_eq(c.checkpoint.restore.dp, 3);
	run(&c, &p, &r, DC_EST_CHECKPOINT);
	dc_ckpt_read_of(&p, &r.checkpoint, 0, &rd);
	ck_assert_uint_eq(rd.old_shards, 4);
	ck_assert_uint_eq(rd.params_elements, 1684602880ull);
	ck_assert_uint_eq(rd.master_elements, 1684602880ull);
	ck_assert_uint_eq(rd.optimizer_elements, 1684602880ull);
	ck_assert_uint_eq(rd.bytes, 23584440320ull);
	ck_assert_uint_eq(rd.first_tp, 0);
	ck_assert_uint_eq(rd.first_dp, 0);
	ck_assert_uint_eq(rd.last_tp, 1);
	ck_assert_uint_eq(rd.last_dp, 1);
	ck_assert(!r.checkpoint.batch_kept);
	ck_assert_uint_eq(r.checkpoint.new_global_batch, 15);
	ck_assert_uint_eq(r.checkpoint.new_grad_accum, 5);
	/* new dp rank 2 (k' = 2 of stage 0) starts at 16,000 + 2 x 5 */
	dc_ckpt_read_of(&p, &r.checkpoint, 2, &rd);
	ck_assert_uint_eq(rd.next_sample, 16010);
	/* every state read by the 3 replicas of each tp shard */
	ck_assert_uint_eq(r.checkpoint.params_readers, 3);
	ck_assert_uint_eq(r.checkpoint.master_optimizer_readers, 3);
	ck_assert_uint_eq(r.checkpoint.read_bytes_total, 3 * 94337818624ull);

	systems_set(&cf, sets, 4);
	run(&cf, &pf, &rf, DC_EST_CHECKPOINT);
	dc_ckpt_read_of(&pf, &rf.checkpoint, 0, &rd);
	ck_assert_uint_eq(rd.old_shards, 2);
	ck_assert_uint_eq(rd.params_elements, 561534293ull);
	ck_assert_uint_eq(rd.optimizer_elements, 561534293ull);
	ck_assert_uint_eq(rd.bytes, 561534293ull * 14);
	ck_assert_uint_eq(rd.first_tp, 0);
	ck_assert_uint_eq(rd.last_dp, 1);
	ck_assert_uint_eq(rf.checkpoint.read_bytes_total, rf.checkpoint.states_bytes);
}
END_TEST

/* The bug a user trial found: systems.json (sharding "none", DDP)
 * restored onto tp 1, dp 8. Every rank holds the whole model's
 * parameters, master copy and Adam states, 14 B x 6,738,415,616 =
 * 94,337,818,624 B, + the 536,870,912 B CUDA context = 94,874,689,536 B >
 * 85,899,345,920 (80 GiB): fails; each element is read by all 8 ranks,
 * 754,702,548,992 B summed. Under "zero1" the parameters stay whole (2 B x
 * 6,738,415,616 = 13,476,831,232) and the master copy and optimizer states
 * are split 8 ways (12 B x 842,301,952 = 10,107,623,424): 23,584,454,656 B
 * (3.5 B = 2 + 12/8 a parameter); read: 8 x 13,476,831,232 + 80,860,987,392
 * = 188,675,637,248 B. Cross-check only: the memory section's model
 * states (params + master + optimizer) of the same layout (tp 1, dp 8,
 * accumulation 2 for the same global batch) are the same bytes; at tp 1
 * no norm is replicated over tp, which the checkpoint counts once. */
START_TEST(test_restore_ddp_and_zero1_by_hand)
{
	static struct dc_config c, cz, cm, cmz;
	static struct dc_plan p, pz, pm, pmz;
	static struct dc_results r, rz, rm, rmz;
	const char *const ddp[] = {"checkpoint.restore.tp=1", "parallel.sharding=\"zero1\""};
	const char *const mem[] = {"parallel.tp=1", "parallel.dp=8", "training.grad_accum_steps=2",
				   "parallel.sharding=\"zero1\""};
	const struct dc_mem_ledger *l;
	struct dc_ckpt_read rd;

	systems_set(&c, ddp, 1);
	run(&c, &p, &r, DC_EST_CHECKPOINT);
	ck_assert_uint_eq(r.checkpoint.restored.world, 8);
	ck_assert_uint_eq(r.checkpoint.restore_read_max_bytes, 94337818624ull);
	ck_assert_uint_eq(r.checkpoint.restore_rank_bytes, 94874689536ull);
	ck_assert(!r.checkpoint.restore_fits);
	ck_assert_uint_eq(r.checkpoint.params_readers, 8);
	ck_assert_uint_eq(r.checkpoint.master_optimizer_readers, 8);
	ck_assert_uint_eq(r.checkpoint.read_bytes_total, 754702548992ull);
	dc_ckpt_read_of(&p, &r.checkpoint, 5, &rd);
	ck_assert_uint_eq(rd.params_elements, SEVEN_B);
	ck_assert_uint_eq(rd.bytes, 94337818624ull);
	ck_assert_uint_eq(rd.old_shards, 8);

	systems_set(&cz, ddp, 2);
	run(&cz, &pz, &rz, DC_EST_CHECKPOINT);
	ck_assert_uint_eq(rz.checkpoint.restore_read_max_bytes, 23584454656ull);
	ck_assert(rz.checkpoint.restore_fits);
	ck_assert_uint_eq(rz.checkpoint.params_readers, 8);
	ck_assert_uint_eq(rz.checkpoint.master_optimizer_readers, 1);
	ck_assert_uint_eq(rz.checkpoint.read_bytes_total, 188675637248ull);
	dc_ckpt_read_of(&pz, &rz.checkpoint, 5, &rd);
	ck_assert_uint_eq(rd.params_elements, SEVEN_B);
	ck_assert_uint_eq(rd.master_elements, SLICE);
	ck_assert_uint_eq(rd.optimizer_elements, SLICE);
	ck_assert_uint_eq(rd.bytes, 23584454656ull);

	/* the cross-check against the memory ledger of the restored layout */
	systems_set(&cm, mem, 3);
	run(&cm, &pm, &rm, DC_EST_MEMORY);
	l = &rm.memory.top;
	ck_assert_uint_eq(l->params_bytes + l->master_bytes + l->optimizer_bytes,
			  r.checkpoint.restore_read_max_bytes);
	systems_set(&cmz, mem, 4);
	run(&cmz, &pmz, &rmz, DC_EST_MEMORY);
	l = &rmz.memory.top;
	ck_assert_uint_eq(l->params_bytes + l->master_bytes + l->optimizer_bytes,
			  rz.checkpoint.restore_read_max_bytes);
}
END_TEST

/* parallel.offload keeps the master copy and the optimizer states in host
 * memory (and under "optimizer+params" the parameter shards): the restore
 * reads them into the host tensors, the GPU holds the rest. systems.json
 * (tp 4, dp 2) restored onto its own layout, by hand:
 * - zero1 + optimizer: each rank reads its tp shard of the parameters whole,
 *   SEVEN_B / 4 x 2 B = 3,369,207,808 B, and half of its tp shard of the
 *   12 B states, SEVEN_B / 8 x 12 = 10,107,623,424 B: 13,476,831,232 B read,
 *   3,369,207,808 of them into the GPU; with the 512 MiB context
 *   3,906,078,720 B. Without offload all 13,476,831,232 + 536,870,912.
 * - fsdp + optimizer+params: every state sharded and offloaded, SLICE x 14 =
 *   11,792,227,328 B read, none into the GPU: the context alone.
 * - none (DDP) + optimizer: the tp shard of everything whole, 1,684,603,904 x
 *   14 = 23,584,454,656 B read, the parameters' 3,369,207,808 into the GPU.
 * The host holds the rest of each read: 10,107,623,424 B, all 11,792,227,328
 * and 1,684,603,904 x 12 = 20,215,246,848 B, and 4 GPUs a node four times
 * that; zero1's 40,430,493,696 B a node do not fit 40 GB of host memory
 * (cluster.host_memory), and so the restore does not, though its GPU does. */
START_TEST(test_restore_offload_by_hand)
{
	static struct dc_config c;
	static struct dc_plan p;
	static struct dc_results r;
	const char *const z1[] = {"parallel.sharding=\"zero1\"", "parallel.offload=\"optimizer\""};
	const char *const fs[] = {"parallel.sharding=\"fsdp\"", "parallel.offload=\"optimizer+params\""};
	const char *const dd[] = {"parallel.sharding=\"none\"", "parallel.offload=\"optimizer\""};

	systems_set(&c, z1, 1);
	run(&c, &p, &r, DC_EST_CHECKPOINT);
	ck_assert_uint_eq(r.checkpoint.restore_read_max_bytes, 13476831232ull);
	ck_assert_uint_eq(r.checkpoint.restore_gpu_read_max_bytes, 13476831232ull);
	ck_assert_uint_eq(r.checkpoint.restore_rank_bytes, 13476831232ull + 536870912ull);

	systems_set(&c, z1, 2);
	run(&c, &p, &r, DC_EST_CHECKPOINT);
	ck_assert_uint_eq(r.checkpoint.restore_read_max_bytes, 13476831232ull);
	ck_assert_uint_eq(r.checkpoint.restore_gpu_read_max_bytes, 3369207808ull);
	ck_assert_uint_eq(r.checkpoint.restore_rank_bytes, 3906078720ull);
	ck_assert_uint_eq(r.checkpoint.restore_host_rank_bytes, 10107623424ull);
	ck_assert_uint_eq(r.checkpoint.restore_host_node_bytes, 40430493696ull);
	ck_assert(r.checkpoint.restore_host_fits); /* cluster.host_memory not given */
	ck_assert(r.checkpoint.restore_fits);
	{
		const char *const z1h[] = {"parallel.sharding=\"zero1\"", "parallel.offload=\"optimizer\"",
					   "cluster.host_memory=\"40GB\""};
		systems_set(&c, z1h, 3);
		run(&c, &p, &r, DC_EST_CHECKPOINT);
		ck_assert_uint_eq(r.checkpoint.restore_host_mem_bytes, 40000000000ull);
		ck_assert(!r.checkpoint.restore_host_fits);
		ck_assert(!r.checkpoint.restore_fits);
		ck_assert_uint_le(r.checkpoint.restore_rank_bytes, r.checkpoint.restore_gpu_mem_bytes);
	}

	systems_set(&c, fs, 2);
	run(&c, &p, &r, DC_EST_CHECKPOINT);
	ck_assert_uint_eq(r.checkpoint.restore_read_max_bytes, SLICE * 14);
	ck_assert_uint_eq(r.checkpoint.restore_gpu_read_max_bytes, 0);
	ck_assert_uint_eq(r.checkpoint.restore_rank_bytes, 536870912ull);
	ck_assert_uint_eq(r.checkpoint.restore_host_rank_bytes, SLICE * 14);

	systems_set(&c, dd, 2);
	run(&c, &p, &r, DC_EST_CHECKPOINT);
	ck_assert_uint_eq(r.checkpoint.restore_read_max_bytes, 23584454656ull);
	ck_assert_uint_eq(r.checkpoint.restore_gpu_read_max_bytes, 3369207808ull);
	ck_assert_uint_eq(r.checkpoint.restore_host_rank_bytes, 20215246848ull);
	ck_assert_uint_eq(r.checkpoint.restore_host_node_bytes, 80860987392ull);
}
END_TEST

/* The new stages' split (docs/checkpoint-and-loss.md, "Restore into
 * another layout"), systems.json under DDP, by hand. A layer is
 * 202,383,360 elements, the embedding 131,072,000, the head and final norm
 * 131,076,096; every item divides by tp 4.
 * - restore.pp 2, pipeline_layers [20, 12] (tp 4, dp 1): stage 0 holds
 *   (131,072,000 + 20 x 202,383,360) / 4 = 1,044,684,800 elements a rank,
 *   x 14 = 14,625,587,200 B on new rank 0; stage 1 (12 x 202,383,360 +
 *   131,076,096) / 4 = 639,919,104.
 * - restore.pp 2 left to split evenly, 16 | 16: stage 0 842,301,440 a rank,
 *   stage 1 842,302,464 (x 14 = 11,792,234,496 B), the largest, new rank 4.
 * - saved at pp 2 with [20, 12], restored at tp 2 (dp 2) keeping pp: the
 *   saved stages, stage 0 4,178,739,200 / 2 x 14 = 29,251,174,400 B. */
START_TEST(test_restore_pipeline_layers_by_hand)
{
	static struct dc_config c;
	static struct dc_plan p;
	static struct dc_results r;
	const char *const given[] = {"checkpoint.restore.pp=2", "checkpoint.restore.pipeline_layers=[20,12]"};
	const char *const saved[] = {"parallel.pp=2", "parallel.dp=1", "parallel.pipeline_layers=[20,12]",
				     "checkpoint.restore.tp=2"};
	const char *const repp[] = {"parallel.pp=2", "parallel.dp=1", "parallel.pipeline_layers=[20,12]",
				    "checkpoint.restore.tp=2", "checkpoint.restore.pp=4"};
	struct dc_ckpt_read rd;
	uint64_t first, layers;

	systems_set(&c, given, 2);
	run(&c, &p, &r, DC_EST_CHECKPOINT);
	ck_assert_int_eq(r.checkpoint.new_stages, DC_CKPT_STAGES_GIVEN);
	dc_ckpt_new_stage(&p, &r.checkpoint, 1, &first, &layers);
	ck_assert_uint_eq(first, 20);
	ck_assert_uint_eq(layers, 12);
	ck_assert_uint_eq(r.checkpoint.restore_read_max_rank, 0);
	ck_assert_uint_eq(r.checkpoint.restore_read_max_bytes, 14625587200ull);
	dc_ckpt_read_of(&p, &r.checkpoint, 5, &rd);
	ck_assert_uint_eq(rd.stage, 1);
	ck_assert_uint_eq(rd.params_elements, 639919104ull);

	systems_set(&c, given, 1);
	run(&c, &p, &r, DC_EST_CHECKPOINT);
	ck_assert_int_eq(r.checkpoint.new_stages, DC_CKPT_STAGES_EVEN);
	ck_assert_uint_eq(r.checkpoint.restore_read_max_rank, 4);
	ck_assert_uint_eq(r.checkpoint.restore_read_max_bytes, 11792234496ull);
	dc_ckpt_read_of(&p, &r.checkpoint, 0, &rd);
	ck_assert_uint_eq(rd.params_elements, 842301440ull);

	systems_set(&c, saved, 4);
	run(&c, &p, &r, DC_EST_CHECKPOINT);
	ck_assert_int_eq(r.checkpoint.new_stages, DC_CKPT_STAGES_SAVED);
	ck_assert_uint_eq(r.checkpoint.restore_read_max_rank, 0);
	ck_assert_uint_eq(r.checkpoint.restore_read_max_bytes, 29251174400ull);

	/* the same save restored onto pp 4 (tp 2, dp 1): the saved stages do
	 * not carry over, 8 layers a stage; the last holds the head:
	 * (8 x 202,383,360 + 131,076,096) / 2 x 14 = 12,251,000,832 B on new
	 * rank 3 x 2 = 6 */
	systems_set(&c, repp, 5);
	run(&c, &p, &r, DC_EST_CHECKPOINT);
	ck_assert_int_eq(r.checkpoint.new_stages, DC_CKPT_STAGES_EVEN);
	ck_assert_uint_eq(r.checkpoint.restore_read_max_rank, 6);
	ck_assert_uint_eq(r.checkpoint.restore_read_max_bytes, 12251000832ull);
}
END_TEST

/* HSDP: systems.json under "fsdp" with parallel.dp_replicate 2 (dp 2: two
 * replicas of a shard group of 1). Restored onto the saved layout (dp' 2,
 * gcd(2, 2) = 2 replicas kept) every rank holds its tp shard of every
 * state, 1,684,603,904 x 14 = 23,584,454,656 B, each element read by the
 * 2 replicas; onto dp' 3 (3 nodes of 4, tp 4: gcd(2, 3) = 1) the states
 * are split 3 ways within each tp shard: 1,684,603,904 / 3 rounded up over
 * the items, the embedding's 32,768,000 / 3 -> 10,922,667, a layer's
 * 50,595,840 / 3 = 16,865,280, the head's 32,769,024 / 3 = 10,923,008:
 * the last slice 10,922,667 + 32 x 16,865,280 + 10,923,008 = 561,534,635
 * elements, x 14 = 7,861,484,890 B. The embedding's 131,072,000 = 12 x
 * 10,922,666 + 8 takes its ceiling first on slice ceil(12 / 8) - 1 = 1 of
 * 12 (tp 0, g 1), where the layers and the head divide: new rank 1. */
START_TEST(test_restore_hsdp_by_hand)
{
	static struct dc_config c, c3;
	static struct dc_plan p, p3;
	static struct dc_results r, r3;
	const char *const sets[] = {"parallel.sharding=\"fsdp\"", "parallel.dp_replicate=2",
				    "checkpoint.restore.num_nodes=3"};

	systems_set(&c, sets, 2);
	run(&c, &p, &r, DC_EST_CHECKPOINT);
	ck_assert_uint_eq(r.checkpoint.restored.replicas, 2);
	ck_assert_uint_eq(r.checkpoint.restored.shard, 1);
	ck_assert_uint_eq(r.checkpoint.restore_read_max_bytes, 23584454656ull);
	ck_assert_uint_eq(r.checkpoint.params_readers, 2);
	ck_assert_uint_eq(r.checkpoint.master_optimizer_readers, 2);
	ck_assert_uint_eq(r.checkpoint.read_bytes_total, 2 * 94337818624ull);

	systems_set(&c3, sets, 3);
	run(&c3, &p3, &r3, DC_EST_CHECKPOINT);
	ck_assert_uint_eq(r3.checkpoint.restored.replicas, 1);
	ck_assert_uint_eq(r3.checkpoint.restored.shard, 3);
	ck_assert_uint_eq(r3.checkpoint.restore_read_max_bytes, 561534635ull * 14);
	ck_assert_uint_eq(r3.checkpoint.restore_read_max_rank, 1);
	ck_assert_uint_eq(r3.checkpoint.read_bytes_total, 94337818624ull);
}
END_TEST

/* The shardings the restore tests run each pair under, appended to its
 * overrides: DDP, ZeRO-1 (parameters whole, master and optimizer split),
 * FSDP (everything split). */
static const char *const shardings[] = {"parallel.sharding=\"none\"", "parallel.sharding=\"zero1\"",
					"parallel.sharding=\"fsdp\""};

static size_t with_sharding(const char *const *pair, size_t si, const char **out)
{
	size_t n = 0;
	while (pair[n]) {
		out[n] = pair[n];
		n++;
	}
	out[n++] = shardings[si];
	return n;
}

/* Each element is read by every new rank holding it: summed over the new
 * ranks, each state's elements are the model's times the ranks holding
 * one copy (dp' x cp' for a state held whole, the HSDP replicas for a
 * sharded one, 1 without them), for several pairs of layouts under each
 * sharding; the old ranks' slices add up to the model (every element
 * written once). */
START_TEST(test_reshard_conservation)
{
	static const char *const pairs[][8] = {
		{"checkpoint.restore.num_nodes=1", "checkpoint.restore.gpus_per_node=1", "checkpoint.restore.tp=1", NULL},
		{"checkpoint.restore.num_nodes=4", "checkpoint.restore.tp=1", "checkpoint.restore.pp=4", NULL},
		{"checkpoint.restore.num_nodes=3", "checkpoint.restore.gpus_per_node=7", "checkpoint.restore.tp=1",
		 "checkpoint.restore.pp=3", NULL},
		{"parallel.tp=2", "parallel.pp=2", "parallel.pipeline_layers=[20,12]", "checkpoint.restore.tp=8", "checkpoint.restore.pp=1",
		 "checkpoint.restore.num_nodes=2", NULL},
		{"parallel.tp=1", "parallel.pp=8", "parallel.dp=1", "checkpoint.restore.pp=5", "checkpoint.restore.tp=2", "checkpoint.restore.num_nodes=5", "checkpoint.restore.gpus_per_node=2",
		 NULL},
		{"parallel.tp=2", "parallel.cp=2", "checkpoint.restore.cp=1", "checkpoint.restore.pp=3",
		 "checkpoint.restore.num_nodes=3", NULL},
		{"model.params=1000003", "checkpoint.restore.num_nodes=5", "checkpoint.restore.tp=1", NULL},
		{"parallel.tp=2", "parallel.pp=2", "parallel.virtual_pipeline=2", "checkpoint.restore.pp=3",
		 "checkpoint.restore.num_nodes=3", NULL},
	};
	for (size_t i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++)
		for (size_t si = 0; si < 3; si++) {
			static struct dc_config c;
			static struct dc_plan p;
			static struct dc_results r;
			const struct dc_checkpoint_result *k = &r.checkpoint;
			const char *ov[8];
			uint64_t n = with_sharding(pairs[i], si, ov), rp = 0, rm = 0, ro = 0, bytes = 0, old = 0,
				 shards = 0, D, whole;
			systems_set(&c, ov, n);
			run(&c, &p, &r, DC_EST_CHECKPOINT);
			D = k->restored.dpcp;
			for (uint64_t j = 0; j < k->restored.world; j++) {
				struct dc_ckpt_read rd;
				dc_ckpt_read_of(&p, k, j, &rd);
				rp += rd.params_elements;
				rm += rd.master_elements;
				ro += rd.optimizer_elements;
				bytes += rd.bytes;
				shards += rd.old_shards;
			}
			for (uint64_t s = 0; s < k->saved.pp; s++)
				for (uint64_t q = 0; q < k->saved.slices; q++) {
					struct dc_ckpt_rank rk;
					dc_ckpt_rank_of(&p, k, s, q, &rk);
					old += rk.elements;
				}
			/* none: every state whole; zero1: the parameters; fsdp: none
			 * (no HSDP here: one replica of each shard) */
			whole = si == 2 ? 1 : D;
			ck_assert_msg(rp == k->items.total * whole, "pair %zu, %s: params read %llu of %llu", i,
				      shardings[si], (unsigned long long)rp, (unsigned long long)k->items.total);
			ck_assert_uint_eq(rm, k->items.total * (si == 0 ? D : 1));
			ck_assert_uint_eq(ro, rm);
			ck_assert_uint_eq(bytes, k->read_bytes_total);
			ck_assert_uint_eq(k->read_bytes_total, rp * 2 + rm * 4 + ro * 8);
			ck_assert_uint_eq(old, k->items.total);
			ck_assert_uint_eq(k->items.total, p.params_total);
			ck_assert_uint_eq(k->states_bytes, p.params_total * 14);
			ck_assert(shards >= k->restored.world);
		}
}
END_TEST

/* The restore as the rank-by-rank walk it replaced would find it: every
 * new rank (s', k') against every old rank (s, k), the overlap of each
 * item of both stages with new slice kk of KK summed from
 * dc_ckpt_slice_overlap (models with every layer alike: full_every 0, v =
 * 1). */
struct walk_read {
	uint64_t elements, shards, first_k, last_k, first_s, last_s;
};

static void walk_reference(const struct dc_plan *p, const struct dc_checkpoint_result *k, uint64_t j, uint64_t kk,
			   uint64_t KK, struct walk_read *w)
{
	const struct dc_ckpt_items *it = &k->items;
	uint64_t L = it->num_layers, K = k->saved.slices, s2 = j / k->restored.slices;
	uint64_t f2 = dc_ckpt_even_first_layer(L, k->restored.pp, s2), a, b;

	memset(w, 0, sizeof(*w));
	dc_ckpt_stage_items(L, k->restored.pp, s2, f2, dc_ckpt_even_first_layer(L, k->restored.pp, s2 + 1) - f2, &a, &b);
	for (uint64_t s = 0; s < k->saved.pp; s++) {
		uint64_t fa, fb, ca, cb;
		dc_ckpt_stage_items(L, k->saved.pp, s, dc_plan_stage_first_layer(p, s), dc_plan_stage_layers(p, s), &fa, &fb);
		ca = fa > a ? fa : a;
		cb = fb < b ? fb : b;
		for (uint64_t q = 0; cb > ca && q < K; q++) {
			uint64_t e = 0;
			for (uint64_t item = ca; item < cb; item++) {
				uint64_t E = item == 0 ? it->embedding
					   : item == L + 1 ? it->head
					   : item - 1 < it->dense_layers ? it->dense_layer : it->moe_layer;
				e += dc_ckpt_slice_overlap(E, q, K, kk, KK);
			}
			if (!e)
				continue;
			if (!w->shards) {
				w->first_k = q;
				w->first_s = s;
			}
			w->last_k = q;
			w->last_s = s;
			w->shards++;
			w->elements += e;
		}
	}
}

/* The closed forms (restore_reads, old_slices_met) against that walk, on
 * layouts whose slices do not divide the items (K' = 3, 5, 6, 7, 9: the
 * largest read is then not on slice 0), on a model smaller than the saved
 * world's slices (items of 5 elements over K = 8: empty old slices), each
 * under DDP, ZeRO-1 and FSDP, and under HSDP. New rank k' = t' dp'cp' + d'
 * holds its tp' shard (slice t' of tp') of a state held whole, slice
 * t' G + d' mod G of tp' G of a sharded one (G the shard group). */
START_TEST(test_restore_closed_form_matches_walk)
{
	static const char *const pairs[][8] = {
		{"checkpoint.restore.num_nodes=3", "checkpoint.restore.tp=2", "checkpoint.restore.pp=2", NULL},
		{"checkpoint.restore.num_nodes=3", "checkpoint.restore.gpus_per_node=7", "checkpoint.restore.tp=1",
		 "checkpoint.restore.pp=3", NULL},
		{"checkpoint.restore.num_nodes=5", "checkpoint.restore.tp=1", "checkpoint.restore.pp=4", NULL},
		{"parallel.tp=2", "parallel.pp=2", "parallel.pipeline_layers=[20,12]", "checkpoint.restore.tp=1",
		 "checkpoint.restore.pp=1", "checkpoint.restore.num_nodes=9", "checkpoint.restore.gpus_per_node=1", NULL},
		{"parallel.tp=1", "parallel.pp=8", "parallel.dp=1", "checkpoint.restore.pp=5", "checkpoint.restore.tp=1",
		 "checkpoint.restore.num_nodes=5", "checkpoint.restore.gpus_per_node=3", NULL},
		{"model.params=3003", "checkpoint.restore.num_nodes=5", "checkpoint.restore.tp=1", NULL},
		{"model.params=165", "checkpoint.restore.num_nodes=3", "checkpoint.restore.tp=2", NULL},
		{"model.params=165", "checkpoint.restore.num_nodes=3", "checkpoint.restore.tp=1", "checkpoint.restore.pp=2", NULL},
		/* HSDP: dp 2 = 2 replicas; dp' 6 keeps 2 of shard groups of 3,
		 * dp' 9 keeps 1 */
		{"parallel.dp_replicate=2", "checkpoint.restore.num_nodes=3", "checkpoint.restore.tp=2", NULL},
		{"parallel.dp_replicate=2", "checkpoint.restore.num_nodes=9", "checkpoint.restore.tp=4", NULL},
	};
	for (size_t i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++)
		for (size_t si = 0; si < 3; si++) {
			static struct dc_config c;
			static struct dc_plan p;
			static struct dc_results r;
			const struct dc_checkpoint_result *k = &r.checkpoint;
			const char *ov[8];
			uint64_t n, max_bytes = 0, max_rank = 0, total = 0, D, G, TP;
			if (i >= 8 && si == 0)
				continue; /* HSDP needs a sharding */
			n = with_sharding(pairs[i], si, ov);
			systems_set(&c, ov, n);
			run(&c, &p, &r, DC_EST_CHECKPOINT);
			ck_assert_uint_eq(k->items.full_every, 0);
			D = k->restored.dpcp;
			G = k->restored.shard;
			TP = k->restored.tp;
			for (uint64_t j = 0; j < k->restored.world; j++) {
				struct walk_read ww, ws;
				const struct walk_read *wide;
				struct dc_ckpt_read rd;
				uint64_t k2 = j % k->restored.slices, t = k2 / D, g = (k2 % D) % G, wp, wm, bytes;
				walk_reference(&p, k, j, t, TP, &ww);
				walk_reference(&p, k, j, t * G + g, TP * G, &ws);
				dc_ckpt_read_of(&p, k, j, &rd);
				wp = si == 2 ? ws.elements : ww.elements;
				wm = si == 0 ? ww.elements : ws.elements;
				wide = si == 2 ? &ws : &ww;
				ck_assert_msg(rd.params_elements == wp && rd.master_elements == wm &&
						      rd.optimizer_elements == wm && rd.old_shards == wide->shards,
					      "pair %zu, %s, rank %llu: %llu + %llu elements from %llu shards, the walk %llu + %llu from %llu",
					      i, shardings[si], (unsigned long long)j, (unsigned long long)rd.params_elements,
					      (unsigned long long)rd.master_elements, (unsigned long long)rd.old_shards,
					      (unsigned long long)wp, (unsigned long long)wm, (unsigned long long)wide->shards);
				ck_assert_uint_eq(rd.first_stage, wide->first_s);
				ck_assert_uint_eq(rd.last_stage, wide->last_s);
				ck_assert_uint_eq(rd.first_tp * k->saved.dpcp + rd.first_dp, wide->first_k);
				ck_assert_uint_eq(rd.last_tp * k->saved.dpcp + rd.last_dp, wide->last_k);
				bytes = wp * 2 + wm * 12;
				ck_assert_uint_eq(rd.bytes, bytes);
				total += bytes;
				if (j == 0 || bytes > max_bytes) {
					max_bytes = bytes;
					max_rank = j;
				}
			}
			ck_assert_uint_eq(total, k->read_bytes_total);
			ck_assert_msg(k->restore_read_max_rank == max_rank, "pair %zu, %s: largest read on %llu, the walk %llu",
				      i, shardings[si], (unsigned long long)k->restore_read_max_rank,
				      (unsigned long long)max_rank);
			ck_assert_uint_eq(k->restore_read_max_bytes, max_bytes);
		}
}
END_TEST

/* configs/mixtral-8x7b-ep.json with `sets` */
static void moe_set(struct dc_config *c, const char *const *sets, size_t n)
{
	config_set("mixtral-8x7b-ep.json", c, sets, n);
}

/* Mixtral-8x7B (hidden 4,096, 32 heads, 8 KV heads, FFN 14,336, 8
 * experts, 32 layers, vocab 32,000) restored, every item worked by hand:
 * a layer's attention 2 x 4,096^2 + 2 x 4,096 x 1,024 = 41,943,040, two
 * norms 8,192 and the router 4,096 x 8 = 32,768: D = 41,984,000 elements
 * outside the experts; the 8 experts 8 x 3 x 4,096 x 14,336 = X =
 * 1,409,286,144. The embedding 131,072,000, the head 131,076,096 (with the
 * final norm); the model 46,702,792,704, of it 32 X = 45,097,156,608 in
 * experts and 1,605,636,096 outside.
 * Onto the saved layout (tp 2, pp 4, dp 4, ep 4, etp = tp = 2, ZeRO-1):
 * stage 3 holds 8 layers and the head. A rank holds the parameters (2 B)
 * of its tp shard, D / 2 = 20,992,000 a layer and 65,538,048 of the head,
 * and of its expert slice of ep x etp = 8, X / 8 = 176,160,768 a layer:
 * 65,538,048 + 8 x 197,152,768 = 1,642,760,192 elements; master and
 * optimizer (12 B) over tp x dp = 8 outside the experts, 5,248,000 a
 * layer and 16,384,512 of the head, and over ep x etp x the expert
 * shard group (dp / ep = 1) = 8 in them, 176,160,768: 16,384,512 + 8 x
 * 181,408,768 = 1,467,654,656. 3,285,520,384 + 17,611,855,872 =
 * 20,897,376,256 B on every rank of stage 3 (stage 0's embedding is 2,048
 * elements less): the largest is new rank 3 x 8 + 0 = 24. Each parameter
 * outside the experts is read by dp = 4 ranks, each expert parameter by
 * its one expert-data-parallel rank, every master and optimizer value
 * once: 1,605,636,096 x 2 x 4 + 45,097,156,608 x 2 + 46,702,792,704 x 12
 * = 663,472,914,432 B.
 * Onto ep' 2 (etp' = tp' = 2: 4 expert slices, each on 2 ranks): the
 * expert parameters X / 4 = 352,321,536 a layer, 65,538,048 + 8 x
 * 373,313,536 = 3,052,046,336 elements; the master and optimizer slices
 * unchanged (4 x the shard group 2 = 8): 6,104,092,672 + 17,611,855,872 =
 * 23,715,948,544 B on new rank 24, and the sum 12,845,088,768 + 2 x
 * 90,194,313,216 + 560,433,512,448 = 753,667,227,648 B.
 * Under DDP onto the saved layout every state of those slices whole, 14
 * B: 1,642,760,192 x 14 = 22,998,642,688 B. */
START_TEST(test_restore_moe_by_hand)
{
	static struct dc_config c;
	static struct dc_plan p;
	static struct dc_results r;
	const struct dc_checkpoint_result *k = &r.checkpoint;
	static const char *const ep2[] = {"checkpoint.restore.ep=2"};
	static const char *const ddp[] = {"parallel.sharding=\"none\""};
	struct dc_ckpt_read rd;

	moe_set(&c, NULL, 0);
	run(&c, &p, &r, DC_EST_CHECKPOINT);
	ck_assert_uint_eq(k->items.total, 46702792704ull);
	ck_assert_uint_eq(k->expert_elements, 45097156608ull);
	ck_assert_uint_eq(k->params_readers, 4);
	ck_assert_uint_eq(k->master_optimizer_readers, 1);
	ck_assert_uint_eq(k->expert_params_readers, 1);
	ck_assert_uint_eq(k->expert_master_optimizer_readers, 1);
	ck_assert_uint_eq(k->restore_read_max_bytes, 20897376256ull);
	ck_assert_uint_eq(k->restore_read_max_rank, 24);
	ck_assert_uint_eq(k->read_bytes_total, 663472914432ull);
	dc_ckpt_read_of(&p, k, 24, &rd);
	ck_assert_uint_eq(rd.params_elements, 1642760192ull);
	ck_assert_uint_eq(rd.master_elements, 1467654656ull);
	ck_assert_uint_eq(rd.bytes, 20897376256ull);
	dc_ckpt_read_of(&p, k, 0, &rd);
	ck_assert_uint_eq(rd.params_elements, 1642760192ull - 2048);
	ck_assert_uint_eq(rd.master_elements, 1467654656ull - 512);

	moe_set(&c, ep2, 1);
	run(&c, &p, &r, DC_EST_CHECKPOINT);
	ck_assert_uint_eq(k->expert_params_readers, 2);
	ck_assert_uint_eq(k->expert_master_optimizer_readers, 1);
	ck_assert_uint_eq(k->restore_read_max_bytes, 23715948544ull);
	ck_assert_uint_eq(k->restore_read_max_rank, 24);
	ck_assert_uint_eq(k->read_bytes_total, 753667227648ull);
	dc_ckpt_read_of(&p, k, 31, &rd);
	ck_assert_uint_eq(rd.params_elements, 3052046336ull);
	ck_assert_uint_eq(rd.master_elements, 1467654656ull);

	moe_set(&c, ddp, 1);
	run(&c, &p, &r, DC_EST_CHECKPOINT);
	ck_assert_uint_eq(k->expert_params_readers, 1);
	ck_assert_uint_eq(k->master_optimizer_readers, 4);
	ck_assert_uint_eq(k->restore_read_max_bytes, 22998642688ull);
	ck_assert_uint_eq(k->restore_read_max_rank, 24);
}
END_TEST

/* A MoE model's restore, every new rank walked, onto several layouts
 * (ep' 1 to 8, etp' = tp' and etp 1), each under DDP, ZeRO-1 and FSDP: the reads
 * add up to each part's elements times its readers (outside the experts
 * dp' x cp' for a state held whole, 1 sharded; the routed experts K' /
 * (ep' x etp') held whole, 1 sharded), and the largest read is the walk's
 * (its first rank, or, when both parts slice unevenly, the stage's last
 * rank, which holds as much). */
START_TEST(test_restore_moe_walk)
{
	static const char *const pairs[][8] = {
		{NULL},
		{"checkpoint.restore.ep=2", NULL},
		{"checkpoint.restore.ep=8", "checkpoint.restore.tp=1", NULL},
		{"checkpoint.restore.ep=1", "checkpoint.restore.pp=2", "checkpoint.restore.num_nodes=3", NULL},
		{"checkpoint.restore.ep=3", "checkpoint.restore.tp=1", "checkpoint.restore.pp=1",
		 "checkpoint.restore.num_nodes=3", "checkpoint.restore.gpus_per_node=1", NULL},
		/* etp 1: the experts folded over tp x dp */
		{"parallel.etp=1", "parallel.sequence_parallel=true", "checkpoint.restore.ep=8", NULL},
		{"parallel.etp=1", "parallel.sequence_parallel=true", "checkpoint.restore.ep=3", "checkpoint.restore.tp=1",
		 "checkpoint.restore.pp=5", "checkpoint.restore.num_nodes=5", "checkpoint.restore.gpus_per_node=3", NULL},
		/* HSDP: 2 replicas kept */
		{"parallel.ep=2", "parallel.dp_replicate=2", "checkpoint.restore.ep=4", NULL},
	};
	for (size_t i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++)
		for (size_t si = 0; si < 3; si++) {
			static struct dc_config c;
			static struct dc_plan p;
			static struct dc_results r;
			const struct dc_checkpoint_result *k = &r.checkpoint;
			const char *ov[8];
			uint64_t n = with_sharding(pairs[i], si, ov), rp = 0, rm = 0, bytes = 0, max = 0, max_rank = 0;
			uint64_t X, D, dpcp, erep, rr, re;
			if (i == 7 && si == 0)
				continue; /* HSDP needs a sharding */
			moe_set(&c, ov, n);
			run(&c, &p, &r, DC_EST_CHECKPOINT);
			X = k->expert_elements;
			D = k->items.total - X;
			dpcp = k->restored.dpcp;
			erep = k->restored.slices / (c.checkpoint.restore.ep * (c.parallel.etp ? c.parallel.etp : k->restored.tp));
			/* HSDP: the replicas kept, gcd(dp_replicate, dp') */
			rr = k->restored.replicas;
			/* the experts' replicas: gcd(rr, erep), those of rr the erep
			 * expert-data-parallel ranks can keep */
			re = rr;
			for (uint64_t b0 = erep, t0; b0; re = t0) {
				t0 = b0;
				b0 = re % b0;
			}
			ck_assert(X > 0);
			for (uint64_t j = 0; j < k->restored.world; j++) {
				struct dc_ckpt_read rd;
				dc_ckpt_read_of(&p, k, j, &rd);
				rp += rd.params_elements;
				rm += rd.master_elements;
				bytes += rd.bytes;
				ck_assert(rd.old_shards >= 1);
				if (j == 0 || rd.bytes > max) {
					max = rd.bytes;
					max_rank = j;
				}
			}
			ck_assert_uint_eq(rp, (si == 2 ? D * rr + X * re : D * dpcp + X * erep));
			ck_assert_uint_eq(rm, (si == 0 ? D * dpcp + X * erep : D * rr + X * re));
			ck_assert_uint_eq(bytes, k->read_bytes_total);
			ck_assert_uint_eq(max, k->restore_read_max_bytes);
			ck_assert(max_rank <= k->restore_read_max_rank);
			{
				struct dc_ckpt_read rd;
				dc_ckpt_read_of(&p, k, k->restore_read_max_rank, &rd);
				ck_assert_uint_eq(rd.bytes, max);
			}
		}
}
END_TEST

/* 2^24 saved ranks (2^21 nodes of 8, tp 4, dp 2^22: K = 2^24 slices)
 * restored onto one node of 8 (tp 4, dp 2, pp 1, K' = 8), without walking
 * them.
 * Llama-2-7B's items: embedding 32,000 x 4,096 = 131,072,000, each of 32
 * layers 202,383,360, head 131,072,000 + the final norm 4,096 =
 * 131,076,096; all divide by 4. Under "none" (DDP) every new rank holds
 * its tp shard of every state, 32,768,000 + 32 x 50,595,840 + 32,769,024 =
 * 1,684,603,904 elements x 14 B = 23,584,454,656 B, and the largest is new
 * rank 0. New rank k' = 7 (tp 3) reads the old slices [3 x 2^22, 2^24):
 * 4,194,304 old shards, from (tp 3, dp x cp 0) to (tp 3, dp x cp
 * 4,194,303). Summed, every element twice (2 replicas): 2 x 6,738,415,616
 * x 14 = 188,675,637,248 B. Under "fsdp" new rank 7 holds slice 7 of 8,
 * 842,301,952 elements (11,792,227,328 B), from the 2,097,152 old shards
 * (tp 3, 2,097,152) to (tp 3, 4,194,303), and the sum is the 94,337,818,624
 * B saved. */
START_TEST(test_restore_2_24_ranks_by_hand)
{
	static struct dc_config c, cf;
	static struct dc_plan p, pf;
	static struct dc_results r, rf;
	const char *const sets[] = {"cluster.num_nodes=2097152", "cluster.gpus_per_node=8", "parallel.dp=4194304",
				    "checkpoint.restore.num_nodes=1", "checkpoint.restore.pp=1",
				    "parallel.sharding=\"fsdp\""};
	struct dc_ckpt_read rd;

	systems_set(&c, sets, 5);
	run(&c, &p, &r, DC_EST_CHECKPOINT);
	ck_assert_uint_eq(r.checkpoint.saved.world, 16777216ull);
	ck_assert_uint_eq(r.checkpoint.restored.slices, 8);
	ck_assert_uint_eq(r.checkpoint.restore_read_max_bytes, 23584454656ull);
	ck_assert_uint_eq(r.checkpoint.restore_read_max_rank, 0);
	ck_assert_uint_eq(r.checkpoint.read_bytes_total, 188675637248ull);
	dc_ckpt_read_of(&p, &r.checkpoint, 7, &rd);
	ck_assert_uint_eq(rd.params_elements, 1684603904ull);
	ck_assert_uint_eq(rd.optimizer_elements, 1684603904ull);
	ck_assert_uint_eq(rd.old_shards, 4194304ull);
	ck_assert_uint_eq(rd.first_tp, 3);
	ck_assert_uint_eq(rd.first_dp, 0);
	ck_assert_uint_eq(rd.last_tp, 3);
	ck_assert_uint_eq(rd.last_dp, 4194303ull);

	systems_set(&cf, sets, 6);
	run(&cf, &pf, &rf, DC_EST_CHECKPOINT);
	ck_assert_uint_eq(rf.checkpoint.restore_read_max_bytes, 11792227328ull);
	ck_assert_uint_eq(rf.checkpoint.read_bytes_total, 94337818624ull);
	dc_ckpt_read_of(&pf, &rf.checkpoint, 7, &rd);
	ck_assert_uint_eq(rd.params_elements, 842301952ull);
	ck_assert_uint_eq(rd.old_shards, 2097152ull);
	ck_assert_uint_eq(rd.first_tp, 3);
	ck_assert_uint_eq(rd.first_dp, 2097152ull);
	ck_assert_uint_eq(rd.last_tp, 3);
	ck_assert_uint_eq(rd.last_dp, 4194303ull);
}
END_TEST

/* The reads summed can pass 2^64 while every rank's own read fits: the
 * course shape at hidden 65,536 over 128 layers holds over 10^12
 * parameters, so its states pass 2^40 B; restored under DDP onto 2^24 ranks
 * at tp 1, pp 1, each is read by all 2^24 ranks: past 2^40 x 2^24 = 2^64.
 * Flagged, the total null, not an error; one rank reads every state. */
START_TEST(test_restore_read_sum_past_2_64)
{
	static struct dc_config c;
	static struct dc_plan p;
	static struct dc_results r;
	const char *const sets[] = {"model.hidden_size=65536", "model.num_attention_heads=512", "model.num_layers=128",
				    "checkpoint.restore.num_nodes=2097152", "checkpoint.restore.gpus_per_node=8",
				    "checkpoint.restore.tp=1", "checkpoint.restore.pp=1"};
	systems_set(&c, sets, 7);
	run(&c, &p, &r, DC_EST_CHECKPOINT);
	ck_assert_uint_eq(r.checkpoint.restored.world, 16777216ull);
	ck_assert_uint_eq(r.checkpoint.params_readers, 16777216ull);
	ck_assert_int_eq(r.checkpoint.read_total_overflow, 1);
	ck_assert_uint_eq(r.checkpoint.read_bytes_total, 0);
	/* at tp 1 and pp 1 a rank holds every state whole */
	ck_assert_uint_eq(r.checkpoint.restore_read_max_bytes, r.checkpoint.states_bytes);
	ck_assert(r.checkpoint.states_bytes > (1ull << 40));
}
END_TEST

/* Layer kinds in the checkpoint's items: Qwen3-Next-80B-A3B on pp 8 (6
 * layers a stage, every layer MoE, every fourth softmax). A MoE layer with
 * gated softmax attention: 27,263,488 + norms 4,096 + experts, shared
 * expert, gate and router 1,614,809,088 = 1,642,076,672; with Gated
 * DeltaNet: 33,718,464 + 4,096 + 1,614,809,088 = 1,648,531,648 (check_hf.c
 * has the blocks). Stage 7, items 43-49 (layers 43-48: softmax at 44 and
 * 48, from 1) and the head (final norm 2,048 + head 311,164,928):
 * 2 x 1,642,076,672 + 4 x 1,648,531,648 + 311,166,976 = 10,189,446,912.
 * Stage 0, the embedding 311,164,928 and layers 1-6 (softmax at 4):
 * 1,642,076,672 + 5 x 1,648,531,648 + 311,164,928 = 10,195,899,840. */
START_TEST(test_items_layer_kinds)
{
	char json[1024];
	struct dc_config c;
	struct dc_diag d;
	struct dc_ckpt_items it;
	const char *err = NULL;
	snprintf(json, sizeof(json),
		 "{\"model\": {\"hf_config\": \"%s/configs/models/qwen3-next-80b-a3b.json\", \"seq_length\": 4096},"
		 " \"cluster\": {\"num_nodes\": 1, \"gpus_per_node\": 8, \"gpu_memory\": \"80 GiB\","
		 " \"intra_node\": {\"bandwidth\": \"300 GB/s\"}, \"inter_node\": {\"bandwidth\": \"400 Gb/s\"}},"
		 " \"parallel\": {\"tp\": 1, \"pp\": 8}}",
		 DC_SOURCE_DIR);
	dc_diag_init(&d);
	ck_assert_int_eq(dc_config_load_buffer(json, strlen(json), "q.json", NULL, 0, &c, &d), 0);
	dc_diag_release(&d);
	ck_assert_int_eq(dc_ckpt_items_of(plan_of(&c), &it, &err), 0);
	ck_assert_uint_eq(it.total, 79674391296ull);
	ck_assert_uint_eq(dc_ckpt_items_slice(&it, 43, 50, 0, 1), 10189446912ull);
	ck_assert_uint_eq(dc_ckpt_items_slice(&it, 0, 7, 0, 1), 10195899840ull);
	ck_assert_uint_eq(dc_ckpt_items_slice(&it, 0, 50, 0, 1), 79674391296ull);
}
END_TEST

/* Llama-4-Maverick (tests/inputs/llama-4-maverick-pp4.json: MoE on layers
 * 1, 3, ..., 47) saved from pp 4 as [11, 13, 13, 11]. Whole layers: dense
 * attention 62,914,560 + norms 10,240 + MLP 3 x 5120 x 16384
 * (251,658,240) = 314,583,040; MoE 62,914,560 + 10,240 + 128 experts x
 * 125,829,120 (16,106,127,360) + router 655,360 + shared expert
 * 125,829,120 = 16,295,536,640. Stage 1, items 12-24 (layers 11-23):
 * 6 dense + 7 MoE = 115,956,254,720. Stage 0, the embedding 202048 x
 * 5120 = 1,034,485,760 and layers 0-10 (6 dense, 5 MoE):
 * 84,399,667,200. The whole: 400,711,848,960. */
START_TEST(test_items_moe_interval)
{
	char path[512];
	struct dc_override ov[1] = {{"parallel.pipeline_layers=[11,13,13,11]", 0}};
	struct dc_config c;
	struct dc_diag d;
	struct dc_ckpt_items it;
	const char *err = NULL;
	snprintf(path, sizeof(path), "%s/tests/inputs/llama-4-maverick-pp4.json", DC_SOURCE_DIR);
	dc_diag_init(&d);
	ck_assert_int_eq(dc_config_load_file(path, ov, 1, &c, &d), 0);
	dc_diag_release(&d);
	ck_assert_int_eq(dc_ckpt_items_of(plan_of(&c), &it, &err), 0);
	ck_assert_uint_eq(it.total, 400711848960ull);
	ck_assert_uint_eq(dc_ckpt_items_slice(&it, 12, 25, 0, 1), 115956254720ull);
	ck_assert_uint_eq(dc_ckpt_items_slice(&it, 0, 12, 0, 1), 84399667200ull);
	ck_assert_uint_eq(dc_ckpt_items_slice(&it, 0, 50, 0, 1), 400711848960ull);
	/* one layer at a time: 24 of each kind, the odd ones MoE */
	for (uint64_t i = 0; i < 48; i++)
		ck_assert_uint_eq(dc_ckpt_items_slice(&it, i + 1, i + 2, 0, 1), i % 2 ? 16295536640ull : 314583040ull);
}
END_TEST

START_TEST(test_slices)
{
	/* 10 elements over 3: [0,3) [3,6) [6,10); over 4: [0,2) [2,5) [5,7) [7,10) */
	ck_assert_uint_eq(dc_ckpt_slice(10, 0, 3), 3);
	ck_assert_uint_eq(dc_ckpt_slice(10, 2, 3), 4);
	ck_assert_uint_eq(dc_ckpt_slice_overlap(10, 1, 3, 1, 4), 2); /* [3,6) and [2,5) */
	ck_assert_uint_eq(dc_ckpt_slice_overlap(10, 0, 3, 3, 4), 0);
	ck_assert_uint_eq(dc_ckpt_slice_overlap(10, 2, 3, 2, 4), 1); /* [6,10) and [5,7) */
	ck_assert_uint_eq(dc_ckpt_even_first_layer(32, 3, 1), 11);   /* 11, 11, 10 */
	ck_assert_uint_eq(dc_ckpt_even_first_layer(32, 3, 2), 22);
}
END_TEST

/* Two ranks with 3 and 5 valid tokens, two microbatches each: rank 0 (1
 * token, loss 4) and (2 tokens, losses adding to 2); rank 1 (4 tokens, 4)
 * and (1 token, 1). Global: 11 / 8 = 1.375. Per-rank means 6/3 = 2 and
 * 5/5 = 1: their mean 1.5, 9.09 % high. Per-microbatch means 4, 1, 1, 1:
 * 1.75, 27.27 % high. A token of rank 0 weighs 8 / (2 x 3) = 4/3 of 1/N,
 * of rank 1 8 / (2 x 5) = 0.8; of a 1-token microbatch 8 / (4 x 1) = 2, of
 * the 4-token one 0.5. */
START_TEST(test_loss_tiny_by_hand)
{
	struct dc_loss_acc a;
	struct dc_loss_recipes o;
	dc_loss_acc_init(&a);
	dc_loss_acc_microbatch(&a, 1, 4.0);
	dc_loss_acc_microbatch(&a, 2, 2.0);
	dc_loss_acc_end_rank(&a);
	dc_loss_acc_microbatch(&a, 4, 4.0);
	dc_loss_acc_microbatch(&a, 1, 1.0);
	dc_loss_acc_end_rank(&a);
	dc_loss_acc_finish(&a, &o);
	ck_assert_uint_eq(a.tokens, 8);
	ck_assert(fabs(o.global_mean - 1.375) < 1e-15);
	ck_assert(fabs(o.mean_of_rank_means - 1.5) < 1e-15);
	ck_assert(fabs(o.rank_rel_error - 0.125 / 1.375) < 1e-15);
	ck_assert(fabs(o.mean_of_mb_means - 1.75) < 1e-15);
	ck_assert(fabs(o.mb_rel_error - 0.375 / 1.375) < 1e-15);
	ck_assert(fabs(o.rank_weight_max - 4.0 / 3.0) < 1e-15);
	ck_assert(fabs(o.rank_weight_min - 0.8) < 1e-15);
	ck_assert(fabs(o.mb_weight_max - 2.0) < 1e-15);
	ck_assert(fabs(o.mb_weight_min - 0.5) < 1e-15);
}
END_TEST

START_TEST(test_loss_determinism)
{
	static struct dc_config c;
	static struct dc_plan p;
	static struct dc_results r1, r2, r3;
	uint64_t sum = 0;

	fixture_systems(&c);
	fixture_plan(&c, &p);
	p.seed = 7;
	ck_assert(dc_estimate(&p, DC_EST_BIT(DC_EST_LOSS), &r1) == 0);
	ck_assert(dc_estimate(&p, DC_EST_BIT(DC_EST_LOSS), &r2) == 0);
	ck_assert(memcmp(&r1.loss, &r2.loss, sizeof(r1.loss)) == 0);
	p.seed = 8;
	ck_assert(dc_estimate(&p, DC_EST_BIT(DC_EST_LOSS), &r3) == 0);
	ck_assert(r3.loss.acc.tokens != r1.loss.acc.tokens);
	/* padding, one sample a microbatch: every count in [1, 4096], and the
	 * microbatches redrawn one by one add up to the step's */
	for (uint64_t rk = 0; rk < 2; rk++)
		for (uint64_t m = 0; m < 8; m++) {
			uint64_t n;
			double s;
			dc_loss_microbatch(&p, rk, m, &n, &s);
			ck_assert(n >= 1 && n <= 4096);
			ck_assert(s >= n * 1.0 - 1e-9 && s <= n * 3.0 + 1e-9); /* 2 x [0.5, 1.5] */
			sum += n;
		}
	ck_assert_uint_eq(sum, r3.loss.acc.tokens);
	ck_assert_uint_eq(r3.loss.ranks, 2);
	ck_assert_uint_eq(r3.loss.acc.microbatches, 16);
}
END_TEST

/* Packing: documents of 1..1500 tokens back to back in 4096 while the next
 * fits, so a sample holds more than 4096 - 1500 valid tokens; with no
 * spread every token's loss is token_loss and every recipe agrees. */
START_TEST(test_loss_packing_bounds)
{
	static struct dc_config c;
	static struct dc_plan p;
	static struct dc_results r;
	const char *const sets[] = {"loss.tokens.mode=\"packing\"", "loss.tokens.max_length=1500",
				    "loss.token_loss_spread=0", "training.micro_batch_size=1"};
	systems_set(&c, sets, 4);
	fixture_plan(&c, &p);
	for (uint64_t seed = 0; seed < 20; seed++) {
		p.seed = seed;
		for (uint64_t m = 0; m < 8; m++) {
			uint64_t n;
			double s;
			dc_loss_microbatch(&p, 1, m, &n, &s);
			ck_assert(n > 4096 - 1500 && n <= 4096);
			ck_assert(fabs(s - 2.0 * (double)n) < 1e-9 * (double)n);
		}
	}
	ck_assert(dc_estimate(&p, DC_EST_BIT(DC_EST_LOSS), &r) == 0);
	ck_assert(fabs(r.loss.recipes.rank_rel_error) < 1e-12);
	ck_assert(fabs(r.loss.recipes.mb_rel_error) < 1e-12);
}
END_TEST

/* Above 2^24 documents the figures are expectations. systems.json with
 * grad_accum_steps 2^53 - 1: padding, one document of length uniform in
 * [1, 4096] a sample, so E[len] = (1 + 4096) / 2 = 2048.5 and E[N] =
 * 2 x (2^53 - 1) x 2048.5 = 36,902,495,346,673,840,127 (past 2^64, so a
 * double); E[S] = 2.0 x E[N]; every recipe's expectation token_loss = 2.
 * Weight bounds: a rank holds M to 4096 M tokens; the least weight 1/4096 +
 * 4095 / (2 x 4096) = 4097 / 8192 (one rank at the most, the other at the
 * fewest), the most 4096 - 4095 / 2 = 2048.5. */
START_TEST(test_loss_expected_padding_by_hand)
{
	static struct dc_config c;
	static struct dc_plan p;
	static struct dc_results r;
	const char *const sets[] = {"training.grad_accum_steps=9007199254740991"};
	const struct dc_loss_result *l = &r.loss;
	systems_set(&c, sets, 1);
	run(&c, &p, &r, DC_EST_LOSS);
	ck_assert_int_eq(l->expected, 1);
	ck_assert(l->e.sample_tokens == 2048.5);
	ck_assert(l->e.sample_tokens_error == 0);
	ck_assert_uint_eq(l->e.sample_min, 1);
	ck_assert_uint_eq(l->e.sample_max, 4096);
	ck_assert(fabs(l->e.tokens / 36902495346673840127.0 - 1) < 1e-15);
	ck_assert(fabs(l->e.loss_sum / (2 * 36902495346673840127.0) - 1) < 1e-15);
	ck_assert(l->recipes.global_mean == 2.0 && l->recipes.mean_of_rank_means == 2.0 &&
		  l->recipes.mean_of_mb_means == 2.0);
	ck_assert(l->recipes.rank_rel_error == 0 && l->recipes.mb_rel_error == 0);
	ck_assert(fabs(l->recipes.rank_weight_min - 4097.0 / 8192.0) < 1e-15);
	ck_assert(fabs(l->recipes.rank_weight_max - 2048.5) < 1e-12);
	ck_assert(fabs(l->recipes.mb_weight_min - 1.0 / 4096.0) < 1e-15);
	ck_assert(fabs(l->recipes.mb_weight_max - 4096.0) < 1e-9);
	/* a rank's 2^53 - 1 documents are not drawn; a microbatch's one is */
	ck_assert_int_eq(l->rank_rows, 0);
	ck_assert_int_eq(l->mb_rows, 1);
}
END_TEST

/* Packed samples by hand (F(c): expected valid tokens with room c).
 * Lengths 1 or 2, room 2: a 2 (1/2) fills it; a 1 then a 1 (1/4) fills it;
 * a 1 then a 2 (1/4) leaves 1: 2/2 + 2/4 + 1/4 = 1.75 (also the closed
 * form for min 1, max = room: (K + 1)((1 + 1/K)^s - 1) - s = 3 x 1.25 - 2).
 * Room 3: F(1) = 1/2, F(3) = ((1 + F(2)) + (2 + F(1))) / 2 = (2.75 + 2.5) / 2
 * = 2.625. Lengths 2 or 3, room 5: a 2 leaves 3 (a 2 stops at 4, a 3 fills
 * 5: 4.5), a 3 leaves 2 (a 2 fills 5, a 3 stops at 3: 4): 4.25. Lengths
 * all 3, room 10: 9. Lengths 1..3, room 2^30 (past the recurrence's 2^24
 * steps): W = c - F(c) has the limit W_inf = (1 / E[L]) sum_j W(2 - j)
 * P(L > j) with W(0) = 0, W(1) = 1 - 1/3, W(2) = 2 - 10/9 (F(2) = F(1) x
 * 4/3 + 2/3): (8/9 + 2/3 x 2/3) / 2 = 2/3. Lengths 5..40, room 200:
 * 186.85161441171488, by a separate program from the definition (the sum
 * over every length, no difference trick). */
START_TEST(test_loss_packed_by_hand)
{
	double f, err, lo, hi;
	uint64_t a, b;
	ck_assert(dc_loss_packed_fill(1, 2, 2, &f, &err) == 0 && fabs(f - 1.75) < 1e-15 && err == 0);
	ck_assert(dc_loss_packed_fill(1, 2, 3, &f, &err) == 0 && fabs(f - 2.625) < 1e-15 && err == 0);
	ck_assert(dc_loss_packed_fill(2, 3, 5, &f, &err) == 0 && fabs(f - 4.25) < 1e-15 && err == 0);
	ck_assert(dc_loss_packed_fill(3, 3, 10, &f, &err) == 0 && f == 9 && err == 0);
	ck_assert(dc_loss_packed_fill(1, 3, (uint64_t)1 << 30, &f, &err) == 0);
	ck_assert(err <= DC_LOSS_PACK_TOL && fabs(f - (1073741824.0 - 2.0 / 3.0)) < 1e-6);
	ck_assert(dc_loss_packed_fill(5, 40, 200, &f, &err) == 0 && fabs(f - 186.85161441171488) < 1e-9 && err == 0);
	/* a long-context window: lengths 3..65536 in 131072, 109496.2216952684
	 * by that program with prefix sums (F(c) = (sum of the fitting lengths
	 * + sum F(c - b .. c - a)) / K) */
	ck_assert(dc_loss_packed_fill(3, 65536, 131072, &f, &err) == 0 && fabs(f - 109496.2216952684) < 1e-6 && err == 0);
	/* a window past the stack's: refused, except the closed forms */
	ck_assert(dc_loss_packed_fill(2, 200000, 262144, &f, &err) == -1);
	ck_assert(dc_loss_packed_fill(1, 200000, 200000, &f, &err) == 0);
	/* the fewest and most a sample holds. Lengths 1..1500 in 4096: the
	 * sample ends once the room left is below 1500, so more than 2596, and
	 * 4096 can be filled. Lengths 10 or 11 in 25: sums 10-11, 20-22 (33
	 * does not fit); the room must be below 11, so 20 to 22. Lengths 3 or
	 * 4 in 5: sums 3-4 (6 does not fit): 3 to 4. */
	dc_loss_sample_bounds(1, 1, 1500, 4096, &a, &b);
	ck_assert(a == 2597 && b == 4096);
	dc_loss_sample_bounds(1, 10, 11, 25, &a, &b);
	ck_assert(a == 20 && b == 22);
	dc_loss_sample_bounds(1, 3, 4, 5, &a, &b);
	ck_assert(a == 3 && b == 4);
	dc_loss_sample_bounds(0, 3, 4, 5, &a, &b);
	ck_assert(a == 3 && b == 4);
	/* two units of 1 to 3 tokens: (3, 1) gives N = 4, weights 4 / (2 x 3)
	 * = 2/3 and 4 / (2 x 1) = 2, the extremes */
	dc_loss_weight_bounds(2, 1, 3, &lo, &hi);
	ck_assert(fabs(lo - 2.0 / 3.0) < 1e-15 && fabs(hi - 2.0) < 1e-15);
}
END_TEST

/* At the cap the step is drawn: 2 ranks x 2^23 microbatches x one padded
 * document = 2^24 documents; one microbatch more and it is expected. The
 * draw agrees with the expectation within the stated tolerance: N / 2^24
 * against 2048.5, whose standard deviation is that of a length
 * (sqrt((4096^2 - 1) / 12) = 1182.4) over sqrt(2^24) = 4096, i.e. 0.289
 * tokens, 1.4e-4 relative: 1e-3 is 7 of them. The recipes against 2.0:
 * a document's loss has sd 0.5 x 2 / sqrt(3) = 0.577, over 4096 documents
 * 1.4e-4 (the length-weighted ones about 1.2 times that): 2e-3 is over 10
 * of them. Every drawn weight extreme lies within the bounds. */
START_TEST(test_loss_cap_boundary_and_draw_agrees)
{
	static struct dc_config c;
	static struct dc_plan p;
	static struct dc_results r;
	struct dc_loss_expected e;
	struct dc_loss_recipes b;
	const char *err = NULL;
	const char *const at[] = {"training.grad_accum_steps=8388608"};
	const char *const past[] = {"training.grad_accum_steps=8388609"};
	const struct dc_loss_result *l = &r.loss;

	systems_set(&c, past, 1);
	run(&c, &p, &r, DC_EST_LOSS);
	ck_assert_int_eq(l->expected, 1);
	ck_assert_uint_eq(l->draws, 16777218);
	ck_assert_int_eq(l->rank_rows, 0); /* 2^23 + 1 documents a rank, above 2^19 */

	systems_set(&c, at, 1);
	run(&c, &p, &r, DC_EST_LOSS);
	ck_assert_int_eq(l->expected, 0);
	ck_assert_uint_eq(l->draws, 16777216);
	ck_assert_uint_eq(l->acc.microbatches, 16777216);
	ck_assert(dc_loss_expected(&p, &e, &b, &err) == 0);
	ck_assert(fabs((double)l->acc.tokens / e.tokens - 1) < 1e-3);
	ck_assert(fabs(l->recipes.global_mean - 2.0) < 2e-3);
	ck_assert(fabs(l->recipes.mean_of_rank_means - 2.0) < 2e-3);
	ck_assert(fabs(l->recipes.mean_of_mb_means - 2.0) < 2e-3);
	ck_assert(l->recipes.rank_weight_min >= b.rank_weight_min && l->recipes.rank_weight_max <= b.rank_weight_max);
	ck_assert(l->recipes.mb_weight_min >= b.mb_weight_min && l->recipes.mb_weight_max <= b.mb_weight_max);
}
END_TEST

/* Packed: the expected fill against 200,000 drawn samples (microbatches of
 * one sample, rank 0's streams). A fill lies in [lo, hi], so its standard
 * deviation is at most (hi - lo) / 2 (Popoviciu); the tolerance is 5 of
 * those over sqrt(200,000). */
START_TEST(test_loss_packed_expected_agrees_with_draw)
{
	static struct dc_config c;
	static struct dc_plan p;
	const char *const s1[] = {"loss.tokens.mode=\"packing\"", "loss.tokens.max_length=1500"};
	const char *const s2[] = {"loss.tokens.mode=\"packing\"", "model.seq_length=200", "loss.tokens.min_length=5",
				  "loss.tokens.max_length=40"};
	const char *const *sets[] = {s1, s2};
	const size_t nsets[] = {2, 4};
	const uint64_t samples = 200000;

	for (int k = 0; k < 2; k++) {
		struct dc_loss_expected e;
		struct dc_loss_recipes b;
		const char *err = NULL;
		double sum = 0, tol;
		systems_set(&c, sets[k], nsets[k]);
		fixture_plan(&c, &p);
		ck_assert(dc_loss_expected(&p, &e, &b, &err) == 0);
		ck_assert(e.sample_tokens_error == 0);
		for (uint64_t m = 0; m < samples; m++) {
			uint64_t n;
			double ls;
			dc_loss_microbatch(&p, 0, m, &n, &ls);
			ck_assert(n >= e.sample_min && n <= e.sample_max);
			sum += (double)n;
		}
		tol = 5 * ((double)(e.sample_max - e.sample_min) / 2) / sqrt((double)samples);
		ck_assert_msg(fabs(sum / (double)samples - e.sample_tokens) < tol, "%g vs %g (tol %g)",
			      sum / (double)samples, e.sample_tokens, tol);
	}
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("checkpoint");
	TCase *t = tcase_create("core");
	/* the loss draws 2^24 documents at its cap (about a second alone, many
	 * under the sanitizers on a loaded machine): Check's 4 s default is a
	 * hang guard, not a speed test, so it is widened */
	tcase_set_timeout(t, 300);
	tcase_add_test(t, test_systems_save_by_hand);
	tcase_add_test(t, test_systems_full_and_async_by_hand);
	tcase_add_test(t, test_full_gather_gpu_by_hand);
	tcase_add_test(t, test_full_gather_by_holding);
	tcase_add_test(t, test_full_largest_tensor_moe);
	tcase_add_test(t, test_staging_bandwidth_default);
	tcase_add_test(t, test_save_host_memory);
	tcase_add_test(t, test_restore_batch_nearest);
	tcase_add_test(t, test_restore_memory_by_hand);
	tcase_add_test(t, test_reshard_by_hand);
	tcase_add_test(t, test_restore_ddp_and_zero1_by_hand);
	tcase_add_test(t, test_restore_offload_by_hand);
	tcase_add_test(t, test_restore_pipeline_layers_by_hand);
	tcase_add_test(t, test_restore_hsdp_by_hand);
	tcase_add_test(t, test_reshard_conservation);
	tcase_add_test(t, test_restore_closed_form_matches_walk);
	tcase_add_test(t, test_restore_moe_by_hand);
	tcase_add_test(t, test_restore_moe_walk);
	tcase_add_test(t, test_restore_2_24_ranks_by_hand);
	tcase_add_test(t, test_restore_read_sum_past_2_64);
	tcase_add_test(t, test_slices);
	tcase_add_test(t, test_items_layer_kinds);
	tcase_add_test(t, test_items_moe_interval);
	tcase_add_test(t, test_loss_tiny_by_hand);
	tcase_add_test(t, test_loss_determinism);
	tcase_add_test(t, test_loss_packing_bounds);
	tcase_add_test(t, test_loss_expected_padding_by_hand);
	tcase_add_test(t, test_loss_packed_by_hand);
	tcase_add_test(t, test_loss_cap_boundary_and_draw_agrees);
	tcase_add_test(t, test_loss_packed_expected_agrees_with_draw);
	suite_add_tcase(s, t);
	return s;
}

int main(void)
{
	SRunner *r = srunner_create(suite());
	int failed;
	srunner_run_all(r, CK_NORMAL);
	failed = srunner_ntests_failed(r);
	srunner_free(r);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
