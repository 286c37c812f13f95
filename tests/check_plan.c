/* check_plan.c - the plan (plan.h) and the estimator registry (results.h).
 *
 * dc_plan_derive against hand-worked figures (degrees, world, the expert
 * layout, parameter totals, the ring's defaults, links); the closed-form
 * stage segments and ledger classes against the brute force they replace
 * (every stage's ledger, consecutive identical ones merged) over thousands
 * of seeded configs; dc_estimate's dependency order. DC_PROPERTY_SEED and
 * DC_PROPERTY_COUNT (default 3000) change the generated configs.
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "distcalc/config.h"
#include "distcalc/memory.h"
#include "distcalc/net.h"
#include "distcalc/plan.h"
#include "distcalc/results.h"
#include "distcalc/rng.h"
#include "distcalc/util.h"

#include "fixtures.h"
#include "fixtures_plan.h"

static void load_path(const char *rel, struct dc_config *c)
{
	char path[512];
	struct dc_diag d;
	snprintf(path, sizeof(path), "%s/%s", DC_SOURCE_DIR, rel);
	dc_diag_init(&d);
	if (dc_config_load_file(path, NULL, 0, c, &d) != 0)
		ck_abort_msg("%s rejected: %s", rel, d.count ? d.entries[0].text : "?");
	dc_diag_release(&d);
}

/* The hint an uneven split's error gives (plan.h dc_stages_counted_hint),
 * by hand: Llama 3.1 405B's 126 layers on pp 8 take both counted layers
 * (128 = 8 x 16), and on pp 8 x v 8 too (128 = 64 x 2); 32 on pp 3 one
 * (33 = 3 x 11); 61 on pp 16 neither (62, 63); 1 layer on pp 3 would
 * split 3 units one a stage, leaving the short stages none: no hint.
 * And the 405B with the hinted keys loads. */
START_TEST(test_stages_counted_hint)
{
	char buf[320];
	struct dc_config cfg;
	struct dc_diag d;
	static const char text[] =
		"{\"model\": {\"num_layers\": 126, \"hidden_size\": 16384, \"num_attention_heads\": 128, "
		"\"num_kv_heads\": 8, \"ffn_hidden_size\": 53248, \"vocab_size\": 128256, \"seq_length\": 8192, "
		"\"mlp\": \"swiglu\"}, \"cluster\": {\"num_nodes\": 128, \"system\": \"dgx-h100\"}, "
		"\"parallel\": {\"tp\": 8, \"pp\": 8, \"dp\": 16, \"virtual_pipeline\": 8, \"sequence_parallel\": true, "
		"\"account_for_embedding\": true, \"account_for_loss\": true}, "
		"\"training\": {\"micro_batch_size\": 1, \"grad_accum_steps\": 8}}";
	ck_assert_ptr_nonnull(strstr(dc_stages_counted_hint(126, 8, 0, buf, sizeof(buf)), "126 + 2 = 128 split evenly"));
	ck_assert_ptr_nonnull(strstr(dc_stages_counted_hint(126, 64, 1, buf, sizeof(buf)), "126 + 2 = 128"));
	ck_assert_ptr_nonnull(strstr(dc_stages_counted_hint(32, 3, 0, buf, sizeof(buf)), "32 + 1 = 33 split evenly"));
	ck_assert_str_eq(dc_stages_counted_hint(61, 16, 0, buf, sizeof(buf)), "");
	ck_assert_str_eq(dc_stages_counted_hint(1, 3, 0, buf, sizeof(buf)), "");
	ck_assert_str_eq(dc_stages_counted_hint(126, 0, 0, buf, sizeof(buf)), "");
	dc_diag_init(&d);
	ck_assert_int_eq(dc_config_load_buffer(text, strlen(text), "hint", NULL, 0, &cfg, &d), 0);
	dc_diag_release(&d);
}
END_TEST

START_TEST(test_derive_systems)
{
	/* configs/systems.json: 2 nodes x 4 GPUs, tp 4, dp 2, pp 1, order
	 * tp-cp-ep-dp-pp. The Llama-2-7B shape has 6,738,415,616 parameters
	 * (published; dense, so all active). Ring defaults: all 8 ranks and
	 * one tp-4 rank's gradient, 1,684,803,584 parameters x 2 B =
	 * 3,369,607,168 B (32 x (202,375,168 / 4 + 8,192) layer parameters,
	 * 2 x 32000 x 4096 / 4 of embedding and head, the final norm 4,096).
	 * TP groups 0-3 and 4-7 stay on a node, DP groups {0, 4} ... cross;
	 * the ring's 8 ranks span 2 nodes. */
	struct dc_config c;
	struct dc_plan p;

	fixture_systems(&c);
	fixture_plan(&c, &p);
	ck_assert_ptr_eq(p.in, &c);
	ck_assert_uint_eq(p.topo.degree[DC_AXIS_TP], 4);
	ck_assert_uint_eq(p.topo.degree[DC_AXIS_CP], 1);
	ck_assert_uint_eq(p.topo.degree[DC_AXIS_EP], 1);
	ck_assert_uint_eq(p.topo.degree[DC_AXIS_DP], 2);
	ck_assert_uint_eq(p.topo.degree[DC_AXIS_PP], 1);
	ck_assert_uint_eq(p.world, 8);
	ck_assert_uint_eq(p.topo.world, 8);
	ck_assert_uint_eq(p.topo.stride[DC_AXIS_DP], 4);
	ck_assert_uint_eq(p.num_nodes, 2);
	ck_assert_uint_eq(p.ep, 1);
	ck_assert_uint_eq(p.expert_dp, 2);
	ck_assert_uint_eq(p.params_total, 6738415616ull);
	ck_assert_uint_eq(p.params_active, 6738415616ull);
	ck_assert_uint_eq(p.terms.total, 6738415616ull);
	ck_assert_uint_eq(p.ring_ranks, 8);
	ck_assert_uint_eq(p.ring_msg_bytes, 3369607168ull);
	ck_assert_int_eq(p.ring_link.choice, DC_LINK_INTER);
	ck_assert_int_eq(p.group[DC_AXIS_TP].link.choice, DC_LINK_INTRA);
	ck_assert(p.group[DC_AXIS_TP].link.params.bw_bytes_per_s == 300e9);
	ck_assert_int_eq(p.group[DC_AXIS_DP].link.choice, DC_LINK_INTER);
	ck_assert(p.group[DC_AXIS_DP].link.params.bw_bytes_per_s == 50e9);
	ck_assert_int_eq(p.group[DC_AXIS_PP].link.choice, DC_LINK_INTRA);
	/* micro batch 1 x 4096 tokens, no sequence parallelism */
	ck_assert_uint_eq(p.tokens_per_microbatch, 4096);
	ck_assert_uint_eq(p.tokens_per_microbatch_rank, 4096);
	ck_assert_uint_eq(p.layers_per_stage, 32);
	/* one stage: one segment, one class */
	ck_assert_uint_eq(p.nsegments, 1);
	ck_assert_uint_eq(p.nclasses, 1);
	ck_assert_uint_eq(p.most_stage, 0);
	ck_assert_uint_eq(p.most.total, 1684803584ull);
	ck_assert_ptr_null(p.error);
	/* given values win over the defaults */
	c.collective.ranks = 4;
	c.collective.msg_bytes = 1000;
	fixture_plan(&c, &p);
	ck_assert_uint_eq(p.ring_ranks, 4);
	ck_assert_uint_eq(p.ring_msg_bytes, 1000);
	ck_assert_int_eq(p.ring_link.choice, DC_LINK_INTRA);
}
END_TEST

/* A plan is copied for a layout that differs from it in the sharding
 * alone, and derived again for anything else: Mixtral over 32 GPUs at
 * tp 1, ep 4 with its experts split in 2 (etp 2) is not the same plan as
 * the whole-expert layout (etp 0, read as tp = 1), which the strategies
 * comparison's pure-DP and FSDP variants use (docs/formulas-systems.md).
 * Copying it gave those variants etp 2's expert groups: their row showed
 * 157,842,318,951 B peak against the whole-expert layout's 252,546,347,828. */
START_TEST(test_derive_copies_only_the_sharding)
{
	struct dc_config c;
	struct dc_plan p;
	struct dc_layout l;

	load_path("configs/mixtral-8x7b-ep.json", &c);
	c.parallel.tp = 1;
	c.parallel.pp = 1;
	c.parallel.dp = 32;
	c.parallel.ep = 4;
	c.parallel.etp = 2;
	c.parallel.sharding = DC_SHARD_ZERO1;
	c.training.grad_accum_steps = 8;
	fixture_plan(&c, &p);
	l = p.layout;
	l.sharding = DC_SHARD_FSDP;
	ck_assert(dc_plan_derive_copies(&p, &l));
	l.etp = 0;
	ck_assert(!dc_plan_derive_copies(&p, &l));
	l.etp = 1;
	ck_assert(!dc_plan_derive_copies(&p, &l));
	l.etp = 2;
	l.grad_accum_steps = 4;
	ck_assert(!dc_plan_derive_copies(&p, &l));
	/* etp 0 and etp = tp are one layout */
	c.parallel.etp = 0;
	fixture_plan(&c, &p);
	l = p.layout;
	l.etp = 1;
	ck_assert(dc_plan_derive_copies(&p, &l));
}
END_TEST

START_TEST(test_derive_mixtral_ep)
{
	/* configs/mixtral-8x7b-ep.json: 4 nodes x 8 GPUs, tp 2, pp 4, dp 4,
	 * ep 4. Mixtral-8x7B by hand: per layer attention 2 x 4096^2 +
	 * 2 x 4096 x 1024 = 41,943,040, 8 experts of 3 x 4096 x 14336 =
	 * 176,160,768, router 8 x 4096 = 32,768, norms 8,192: 1,451,270,144,
	 * x 32 = 46,440,644,608; embedding and head 2 x 32000 x 4096 =
	 * 262,144,000 and the final norm: 46,702,792,704 (the published
	 * 46.7B). Active, 2 experts a token: (41,943,040 + 352,321,536 +
	 * 32,768 + 8,192) x 32 + 262,148,096 = 12,879,925,248 (12.9B). ep is
	 * carved out of dp: the rank axis EP keeps degree 1, dp / ep = 1 rank
	 * holds each expert. A rank's MoE layer: 41,943,040 / 2 + 2 experts x
	 * 88,080,384 + 32,768 + 8,192 = 197,173,248; the last stage (8 layers,
	 * head 65,536,000, norm 4,096) holds the most, 1,642,926,080, whose
	 * 2-byte gradient is the ring's default message. Each node holds one
	 * stage's 8 ranks (tp stride 1, dp stride 2, pp stride 8): tp, dp and
	 * the ep group {0, 2, 4, 6} stay inside it, pp crosses. */
	struct dc_config c;
	struct dc_plan p;

	load_path("configs/mixtral-8x7b-ep.json", &c);
	fixture_plan(&c, &p);
	ck_assert_uint_eq(p.world, 32);
	ck_assert_uint_eq(p.topo.degree[DC_AXIS_EP], 1);
	ck_assert_uint_eq(p.topo.degree[DC_AXIS_DP], 4);
	ck_assert_uint_eq(p.ep, 4);
	ck_assert_uint_eq(p.expert_dp, 1);
	ck_assert_uint_eq(p.params_total, 46702792704ull);
	ck_assert_uint_eq(p.params_active, 12879925248ull);
	ck_assert_uint_eq(p.shard.moe_layer, 197173248ull);
	ck_assert_uint_eq(p.shard.layer_experts, 176160768ull);
	ck_assert_uint_eq(p.shard.embedding, 65536000ull);
	ck_assert_uint_eq(p.most_stage, 3);
	ck_assert_uint_eq(p.most.total, 1642926080ull);
	ck_assert_uint_eq(p.ring_msg_bytes, 2 * 1642926080ull);
	ck_assert_uint_eq(p.ring_ranks, 32);
	ck_assert_int_eq(p.group[DC_AXIS_TP].link.choice, DC_LINK_INTRA);
	ck_assert_int_eq(p.group[DC_AXIS_DP].link.choice, DC_LINK_INTRA);
	ck_assert_int_eq(p.group[DC_AXIS_PP].link.choice, DC_LINK_INTER);
	ck_assert_int_eq(p.group[DC_GROUP_EP].link.choice, DC_LINK_INTRA);
	ck_assert_int_eq(p.group[DC_GROUP_EDP].link.choice, DC_LINK_INTRA);
	/* 16 microbatches >= pp: every stage holds a different count in
	 * flight, so 4 classes; stages 1 and 2 share their parameters */
	ck_assert_uint_eq(p.nclasses, 4);
	ck_assert_uint_eq(p.nsegments, 3);
	ck_assert_uint_eq(p.segment_first[0], 0);
	ck_assert_uint_eq(p.segment_first[1], 1);
	ck_assert_uint_eq(p.segment_first[2], 3);
	ck_assert_uint_eq(p.segment_first[3], 4);
}
END_TEST

/* Two 72-GPU NVLink domains of 4-GPU trays (GB200 NVL72 racks), 144
 * ranks, ep 16 out of dp 144: the EP groups are 0-15, 16-31, ..., 128-143
 * (docs/network-model.md, "Groups across NVLink domains"). Each strategy
 * prices its first group that spans domains, with the counts of the
 * domains it spans:
 *   domain 72: group 4, 64-79, spans racks 0 (64-71) and 1 (72-79): 8
 *   and 8 ranks, 8 NICs a side, the network (inter_node);
 *   domain 36: group 2, 32-47: 4 (32-35) and 12 (36-47): the 4-rank side
 *   is the least filled, 4 NICs;
 *   domain 144: every group on NVLink (intra_node), 16 ranks in one;
 *   domain 4 (a tray): group 0 spans 4 trays of 4, 4 NICs each.
 * TP 16 at domain 72 prices group 4 (64-79) the same way: two domains of
 * 8, as every group at domain 8. */
static void nvl_plan(uint64_t domain, uint64_t tp, uint64_t ep, struct dc_config *c, struct dc_plan *p)
{
	fixture_json(c,
		     "{\"model\": {\"num_layers\": 2, \"hidden_size\": 64, \"num_attention_heads\": 16,"
		     " \"ffn_hidden_size\": 128, \"vocab_size\": 128, \"seq_length\": 16, \"num_experts\": 16,"
		     " \"experts_per_token\": 2, \"moe_ffn_hidden_size\": 64},"
		     " \"cluster\": {\"num_nodes\": 36, \"gpus_per_node\": 4, \"gpu_memory\": \"80 GiB\","
		     " \"nvlink_domain\": %llu, \"intra_node\": {\"bandwidth\": \"720 GB/s\", \"latency\": \"3.4 us\"},"
		     " \"inter_node\": {\"bandwidth\": \"400 Gb/s\", \"latency\": \"14 us\"}},"
		     " \"parallel\": {\"tp\": %llu, \"ep\": %llu},"
		     " \"training\": {\"micro_batch_size\": 1, \"grad_accum_steps\": 1}}",
		     (unsigned long long)domain, (unsigned long long)tp, (unsigned long long)ep);
	fixture_plan(c, p);
}

/* Group `gi`'s link and shape: its ranks, nodes, ranks on the fullest
 * and the least-filled node, NICs and groups sharing one (ANY, and a
 * link of -1: not asserted) */
#define ANY UINT64_MAX
static void expect_group(const struct dc_plan *p, int gi, int link, uint64_t ranks, uint64_t nodes,
			 uint64_t per_node, uint64_t least, uint64_t rails, uint64_t concurrent)
{
	const struct dc_net_group *g = &p->group[gi].net;
	const uint64_t got[] = {g->ranks, g->nodes, g->ranks_per_node, g->ranks_least, g->rails, g->concurrent};
	const uint64_t want[] = {ranks, nodes, per_node, least, rails, concurrent};
	if (link >= 0)
		ck_assert_int_eq(p->group[gi].link.choice, link);
	for (size_t i = 0; i < 6; i++)
		if (want[i] != ANY)
			ck_assert_msg(got[i] == want[i], "group %d field %zu: %llu, expected %llu", gi, i,
				      (unsigned long long)got[i], (unsigned long long)want[i]);
}

START_TEST(test_derive_groups_across_nvlink_domains)
{
	struct dc_config c;
	struct dc_plan p;

	nvl_plan(72, 1, 16, &c, &p);
	ck_assert(!p.expert_folded);
	expect_group(&p, DC_GROUP_EP, DC_LINK_INTER, 16, 2, 8, 8, 8, 1);
	ck_assert_double_eq(p.group[DC_GROUP_EP].link.params.bw_bytes_per_s, 50e9);

	nvl_plan(36, 1, 16, &c, &p);
	expect_group(&p, DC_GROUP_EP, DC_LINK_INTER, ANY, 2, 12, 4, 4, ANY);

	nvl_plan(144, 1, 16, &c, &p);
	expect_group(&p, DC_GROUP_EP, DC_LINK_INTRA, ANY, 1, 16, 16, ANY, ANY);
	ck_assert_double_eq(p.group[DC_GROUP_EP].link.params.bw_bytes_per_s, 720e9);

	nvl_plan(4, 1, 16, &c, &p);
	expect_group(&p, DC_GROUP_EP, -1, ANY, 4, 4, 4, 4, ANY);

	/* tp 16 (dp 9, ep 1): only TP group 4 crosses a rack */
	nvl_plan(72, 16, 1, &c, &p);
	expect_group(&p, DC_AXIS_TP, DC_LINK_INTER, ANY, 2, 8, 8, 8, ANY);
	/* the DP groups (16 apart, 9 ranks) span both racks: 5 and 4 ranks
	 * (0, 16, ..., 64 | 80, ..., 128) */
	expect_group(&p, DC_AXIS_DP, -1, ANY, 2, 5, 4, 4, ANY);
	nvl_plan(144, 16, 1, &c, &p);
	expect_group(&p, DC_AXIS_TP, DC_LINK_INTRA, ANY, 1, 16, ANY, ANY, ANY);
}
END_TEST

/* The pipeline's boundaries across NVLink domains (plan.c pp_hops;
 * docs/step-model.md, "A send's time"), by hand, nodes of 8 GPUs, one
 * domain each, order tp-cp-ep-dp-pp (stage s of the first group on rank
 * s x tp x dp):
 *   tp 1, pp 16 on 2 nodes: ranks 0..15, the boundary 7 | 8 crosses: 1
 *     of 15; the wrap 15 -> 0 crosses; 0 | 1 is inside;
 *   tp 2, pp 8: 0, 2, ..., 14: 6 | 8 crosses, 1 of 7;
 *   tp 1, dp 4, pp 4: 0, 4, 8, 12: 4 | 8, 1 of 3;
 *   tp 3, pp 8 on 3 nodes: 0, 3, ..., 21: 6 | 9 and 15 | 18, 2 of 7;
 *   tp 8, pp 2: 0 | 8, every boundary (1), no pair inside a domain;
 *   tp 2, pp 4 on 1 node: none, the wrap inside too. */
static void pp_plan(uint64_t nodes, uint64_t tp, uint64_t pp, struct dc_config *c, struct dc_plan *p)
{
	fixture_json(c,
		     "{\"model\": {\"num_layers\": 48, \"hidden_size\": 96, \"num_attention_heads\": 24,"
		     " \"ffn_hidden_size\": 192, \"vocab_size\": 1536, \"seq_length\": 16},"
		     " \"cluster\": {\"num_nodes\": %llu, \"gpus_per_node\": 8, \"gpu_memory\": \"80 GiB\","
		     " \"intra_node\": {\"bandwidth\": \"450 GB/s\", \"latency\": \"3 us\"},"
		     " \"inter_node\": {\"bandwidth\": \"400 Gb/s\", \"latency\": \"14 us\"}},"
		     " \"parallel\": {\"tp\": %llu, \"pp\": %llu, \"dp\": \"auto\"},"
		     " \"training\": {\"micro_batch_size\": 1, \"grad_accum_steps\": 16}}",
		     (unsigned long long)nodes, (unsigned long long)tp, (unsigned long long)pp);
	fixture_plan(c, p);
}

START_TEST(test_pp_hops_by_hand)
{
	static const struct {
		uint64_t nodes, tp, pp, cross;
		int wrap;
		uint64_t in_first;
	} rows[] = {{2, 1, 16, 1, 1, 0}, {2, 2, 8, 1, 1, 0}, {2, 1, 4, 1, 1, 0},
		    {3, 3, 8, 2, 1, 0},  {2, 8, 2, 1, 1, 0}, {1, 2, 4, 0, 0, 0}};
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct dc_config c;
		struct dc_plan p;
		pp_plan(rows[i].nodes, rows[i].tp, rows[i].pp, &c, &p);
		ck_assert_msg(p.pp_cross == rows[i].cross, "row %zu: %llu boundaries cross, expected %llu", i,
			      (unsigned long long)p.pp_cross, (unsigned long long)rows[i].cross);
		ck_assert_int_eq(p.pp_wrap_cross, rows[i].wrap);
		ck_assert_uint_eq(p.pp_in_first, rows[i].in_first);
		/* the pair inside a domain is on one node where one exists; the
		 * crossing pair on two where any boundary crosses */
		ck_assert_uint_eq(p.pp_pair_in.nodes, rows[i].cross + 1 < rows[i].pp || !rows[i].cross ? 1 : 2);
		ck_assert_uint_eq(p.group[DC_GROUP_PP_PAIR].net.nodes, rows[i].cross ? 2 : 1);
	}
	/* the group slowest across domains (an independent review's case):
	 * 288 trays of 4 GPUs in NVLink domains of 72, tp 16, pp 8, order
	 * tp-pp-cp-ep-dp, so stage s of a group is 16 ranks on and its
	 * blocks of 128 ranks start at 0, 128, ..., 1024. The first group
	 * (0, 16, ..., 112) crosses one domain's end (72); a group crosses two
	 * when its first rank's residue mod 72 is at least 2 x 72 - 112 = 32
	 * (143 = 72 + 71: 144 and 216, at its boundaries 0 and 4). Of those,
	 * the smallest residue puts the crossings latest, where they set the
	 * step: residue 32, reached in the fourth block (384 = 5 x 72 + 24,
	 * ranks 384-399 on residues 24-39) by rank 392, whose group 392, 408,
	 * ..., 504 crosses 432 and 504 at its boundaries 2 and 6. Its first
	 * boundary inside a domain is its first, 392 | 408. */
	{
		struct dc_config c;
		struct dc_plan p;
		fixture_json(&c,
			     "{\"model\": {\"num_layers\": 16, \"hidden_size\": 256, \"num_attention_heads\": 16,"
			     " \"ffn_hidden_size\": 512, \"vocab_size\": 1024, \"seq_length\": 16},"
			     " \"cluster\": {\"num_nodes\": 288, \"gpus_per_node\": 4, \"gpu_memory\": \"80 GiB\","
			     " \"nvlink_domain\": 72, \"intra_node\": {\"bandwidth\": \"720 GB/s\", \"latency\": \"3 us\"},"
			     " \"inter_node\": {\"bandwidth\": \"400 Gb/s\", \"latency\": \"14 us\"}},"
			     " \"parallel\": {\"tp\": 16, \"pp\": 8, \"dp\": \"auto\", \"order\": \"tp-pp-cp-ep-dp\"},"
			     " \"training\": {\"micro_batch_size\": 1, \"grad_accum_steps\": 8}}");
		fixture_plan(&c, &p);
		ck_assert_uint_eq(p.pp_first, 392);
		ck_assert_uint_eq(p.pp_cross, 2);
		ck_assert_uint_eq(p.pp_in_first, 392);
		ck_assert_int_eq(p.pp_wrap_cross, 1);
	}
}
END_TEST

/* DP groups whose stride does not divide the domain: 128 trays of 4 GPUs,
 * 4 NICs a tray, domains of 72; tp 4, pp 4, dp 32 in order
 * tp-pp-cp-ep-dp, so the DP groups are 32 ranks 16 apart (i, i + 16,
 * ..., i + 496) and all span domains. The one priced, group 0, holds 5,
 * 4, 5, 4, 5, 4, 5 ranks on domains 0-6 (0-64 | 80-128 | 144-208 |
 * 224-272 | 288-352 | 368-416 | 432-496): r = 5 on its ends, r_min = 4
 * on domain 1, whose 4 ranks sit on 4 trays at local index 0, NIC 0 of
 * each: 4 rails, 4 x 50 GB/s = 200 GB/s (docs/network-model.md, "Its
 * counts"). */
START_TEST(test_derive_dp_over_short_domains)
{
	struct dc_config c;
	struct dc_plan p;

	fixture_json(&c,
		     "{\"model\": {\"num_layers\": 4, \"hidden_size\": 64, \"num_attention_heads\": 16,"
		     " \"ffn_hidden_size\": 128, \"vocab_size\": 128, \"seq_length\": 16},"
		     " \"cluster\": {\"num_nodes\": 128, \"gpus_per_node\": 4, \"gpu_memory\": \"80 GiB\","
		     " \"nics_per_node\": 4, \"nvlink_domain\": 72,"
		     " \"intra_node\": {\"bandwidth\": \"720 GB/s\", \"latency\": \"3.4 us\"},"
		     " \"inter_node\": {\"bandwidth\": \"400 Gb/s\", \"latency\": \"14 us\"}},"
		     " \"parallel\": {\"tp\": 4, \"pp\": 4, \"dp\": 32, \"order\": \"tp-pp-cp-ep-dp\"},"
		     " \"training\": {\"micro_batch_size\": 1, \"grad_accum_steps\": 4}}");
	fixture_plan(&c, &p);
	expect_group(&p, DC_AXIS_DP, DC_LINK_INTER, 32, 7, 5, 4, 4, 1);
	ck_assert_double_eq_tol(dc_net_node_bw(&p.net, &p.group[DC_AXIS_DP].net), 200e9, 1e-3);
}
END_TEST

/* MoE parallel folding (Megatron-Core): the Mixtral config's stage of 8
 * ranks (tp 2 x dp 4, one node, pp the slowest axis) regrouped for its
 * expert layers.
 *   EP 8 folded over TP 2 x DP 4, etp 1: ep x etp = 8 = tp x dp x cp, so
 *   no expert replica (expert-dp 1); each rank holds 8 / 8 = 1 expert
 *   whole, 3 x 4096 x 14336 = 176,160,768; its MoE layer 41,943,040 / 2 +
 *   176,160,768 + router 32,768 + norms 8,192 = 197,173,248. The ep group
 *   is ranks 0..7 (stride etp = 1): one node, NVLink.
 *   EP 4, etp 1: 2 experts whole a rank, 352,321,536; MoE layer
 *   373,334,016; expert-dp 8 / 4 = 2 ranks {0, 4}; ep group {0, 1, 2, 3}.
 *   Unfolded (the config: ep 4 out of dp 4, etp = tp 2) it was 2 experts
 *   of half, 176,160,768, expert-dp 1. */
START_TEST(test_derive_expert_folding)
{
	struct dc_config c;
	struct dc_plan p;

	load_path("configs/mixtral-8x7b-ep.json", &c);
	c.parallel.sequence_parallel = 1;
	c.parallel.ep = 8;
	c.parallel.etp = 1;
	fixture_plan(&c, &p);
	ck_assert(p.expert_folded);
	ck_assert_uint_eq(p.etp, 1);
	ck_assert_uint_eq(p.expert_dp_cp, 1);
	ck_assert_uint_eq(p.shard.layer_experts, 176160768ull);
	ck_assert_uint_eq(p.shard.moe_layer, 197173248ull);
	ck_assert_uint_eq(p.group[DC_GROUP_EP].net.ranks, 8);
	ck_assert_uint_eq(p.group[DC_GROUP_EP].net.nodes, 1);
	ck_assert_int_eq(p.group[DC_GROUP_EP].link.choice, DC_LINK_INTRA);

	c.parallel.ep = 4;
	fixture_plan(&c, &p);
	ck_assert(p.expert_folded);
	ck_assert_uint_eq(p.expert_dp_cp, 2);
	ck_assert_uint_eq(p.shard.layer_experts, 352321536ull);
	ck_assert_uint_eq(p.shard.moe_layer, 373334016ull);
	ck_assert_uint_eq(p.group[DC_GROUP_EP].net.ranks, 4);
	ck_assert_uint_eq(p.group[DC_GROUP_EDP].net.ranks, 2);
	ck_assert_uint_eq(p.group[DC_GROUP_EDP].net.nodes, 1);

	c.parallel.etp = 0; /* etp = tp: ep 4 out of dp 4, as the config has it */
	fixture_plan(&c, &p);
	ck_assert(!p.expert_folded);
	ck_assert_uint_eq(p.expert_dp_cp, 1);
	ck_assert_uint_eq(p.shard.layer_experts, 176160768ull);

	/* folding needs pp as the slowest axis: pp-tp-cp-ep-dp puts it first */
	c.parallel.etp = 1;
	c.parallel.order[0] = DC_AXIS_PP;
	c.parallel.order[1] = DC_AXIS_TP;
	c.parallel.order[2] = DC_AXIS_CP;
	c.parallel.order[3] = DC_AXIS_EP;
	c.parallel.order[4] = DC_AXIS_DP;
	ck_assert_int_eq(dc_plan_derive(&c, &p), -1);
	ck_assert_ptr_nonnull(strstr(p.error, "'parallel.order'"));
}
END_TEST

/* The expert-data-parallel group, ranks s ep apart, ep dp-strides
 * apart: with ep 1 it is the dp group itself, and derive takes dp's
 * shape for it rather than finding it again (plan.c derive_net); with
 * ep > 1 it is not, and must not take it.
 *   configs/systems.json: tp 4 x dp 2 on 2 nodes of 4 GPUs, one NIC a
 *   node, ep 1: dp and expert dp are {0, 4}, one rank on each node, the
 *   node's NIC shared by its 4 GPUs' groups (4 concurrent).
 *   Its pure-DP variant, dp 8: {0..7}, 4 ranks a node on its one NIC,
 *   every GPU of the node in this group (1 concurrent).
 *   configs/mixtral-8x7b-ep.json: dp 4 (ranks 0, 2, 4, 6 of node 0), ep
 *   4 out of it: expert dp 4 / 4 = 1 rank, not dp's 4. */
START_TEST(test_derive_expert_dp_group_ep_1)
{
	struct dc_config c;
	struct dc_plan p, v;
	struct dc_layout lay;
	int aligned;

	load_path("configs/systems.json", &c);
	fixture_plan(&c, &p);
	ck_assert_uint_eq(p.ep, 1);
	expect_group(&p, DC_AXIS_DP, -1, 2, 2, 1, 1, 1, 4);
	expect_group(&p, DC_GROUP_EDP, -1, 2, 2, 1, 1, 1, 4);
	dc_variant_layout(&p, DC_VARIANT_DP, &lay, &aligned);
	ck_assert_int_eq(dc_plan_derive_from(&p, &lay, &v), 0);
	expect_group(&v, DC_AXIS_DP, -1, 8, 2, 4, 4, 1, 1);
	expect_group(&v, DC_GROUP_EDP, -1, 8, 2, 4, 4, 1, 1);

	load_path("configs/mixtral-8x7b-ep.json", &c);
	fixture_plan(&c, &p);
	ck_assert_uint_eq(p.ep, 4);
	expect_group(&p, DC_AXIS_DP, -1, 4, 1, 4, 4, ANY, 1);
	expect_group(&p, DC_GROUP_EDP, -1, 1, 1, 1, 1, ANY, 1);
}
END_TEST

/* A 61-layer model on pp 8, virtual_pipeline 4 (DeepSeek-V3's depth on
 * Megatron-Bridge's PP 8 VP 4): 61 layers cannot fill 32 equal chunks, nor
 * Megatron's first/last forms (first and last multiples of 4, the six
 * middle stages 4k each: 61 - 24k is 37 or 13, no sum of two multiples
 * of 4), nor the counted embedding and loss (63 over 32 chunks). The
 * layout "Et|(tt|)*30mL" gives chunk 0 one layer, chunks 1..30 two, chunk
 * 31 none (the MTP module and the loss): pipeline_layers [1, 2 x 30, 0].
 * Chunk c of stage s is virtual stage 8c + s, so stage 0 holds chunks
 * 0, 8, 16, 24: 1 + 2 + 2 + 2 = 7 layers; stages 1..6 8 each; stage 7
 * chunks 7, 15, 23, 31: 2 + 2 + 2 + 0 = 6. Chunk starts: virtual stage k
 * starts at 2k - 1 (k >= 1): stage 1 chunk 0 at layer 1, stage 7 chunk 0
 * (k = 7) at 13, stage 0 chunk 1 (k = 8) at 15, stage 0 chunk 3 (k = 24)
 * at 47, stage 7 chunk 3 (k = 31) at 61, holding 0. */
START_TEST(test_uneven_interleaved_61_layers)
{
	struct dc_config c;
	struct dc_plan p;
	char list[200];
	size_t n = 0;
	n += (size_t)snprintf(list + n, sizeof(list) - n, "[1");
	for (int i = 0; i < 30; i++)
		n += (size_t)snprintf(list + n, sizeof(list) - n, ", 2");
	snprintf(list + n, sizeof(list) - n, ", 0]");
	fixture_json(&c,
		     "{\"model\": {\"num_layers\": 61, \"hidden_size\": 1024, \"num_attention_heads\": 8,"
		     " \"vocab_size\": 1000, \"seq_length\": 1024},"
		     " \"cluster\": {\"num_nodes\": 1, \"gpus_per_node\": 8, \"gpu_memory\": \"80 GiB\","
		     " \"intra_node\": {\"bandwidth\": \"300 GB/s\"}, \"inter_node\": {\"bandwidth\": \"400 Gb/s\"}},"
		     " \"parallel\": {\"pp\": 8, \"virtual_pipeline\": 4, \"pipeline_layers\": %s},"
		     " \"training\": {\"grad_accum_steps\": 8}}",
		     list);
	fixture_plan(&c, &p);
	ck_assert(p.chunks_uneven);
	ck_assert_uint_eq(dc_plan_stage_layers(&p, 0), 7);
	for (uint64_t st = 1; st < 7; st++)
		ck_assert_uint_eq(dc_plan_stage_layers(&p, st), 8);
	ck_assert_uint_eq(dc_plan_stage_layers(&p, 7), 6);
	ck_assert_uint_eq(dc_plan_chunk_layers(&p, 0, 0), 1);
	ck_assert_uint_eq(dc_plan_chunk_layers(&p, 0, 1), 2);
	ck_assert_uint_eq(dc_plan_chunk_layers(&p, 3, 2), 2);
	ck_assert_uint_eq(dc_plan_chunk_layers(&p, 7, 2), 2);
	ck_assert_uint_eq(dc_plan_chunk_layers(&p, 7, 3), 0);
	ck_assert_uint_eq(dc_plan_chunk_start(&p, 0, 0), 0);
	ck_assert_uint_eq(dc_plan_chunk_start(&p, 1, 0), 1);
	ck_assert_uint_eq(dc_plan_chunk_start(&p, 7, 0), 13);
	ck_assert_uint_eq(dc_plan_chunk_start(&p, 0, 1), 15);
	ck_assert_uint_eq(dc_plan_chunk_start(&p, 0, 3), 47);
	ck_assert_uint_eq(dc_plan_chunk_start(&p, 7, 3), 61);
	/* every virtual stage k >= 1 starts at 2k - 1 */
	for (uint64_t k = 1; k < 32; k++)
		ck_assert_uint_eq(dc_plan_chunk_start(&p, k % 8, k / 8), 2 * k - 1);
}
END_TEST

/* DeepSeek-V3 on Megatron-Bridge's layout (configs/deepseek-v3-bridge-h100
 * .json: 61 layers, the first 3 dense, pp 8 x v 4, chunks [1, 2 x 30,
 * 0]): stage 0 holds layers 0, 15-16, 31-32, 47-48 (one dense: layer 0),
 * stage 1 holds 1-2, 17-18, 33-34, 49-50 (two dense: 1 and 2), stages
 * 2..7 none. So stage 2 starts a segment of its own (its 8 MoE layers
 * hold more than stage 1's 6), and stages 2..6 share it. */
START_TEST(test_uneven_interleaved_dense_segments)
{
	struct dc_config c;
	struct dc_plan p;
	load_path("configs/deepseek-v3-bridge-h100.json", &c);
	fixture_plan(&c, &p);
	ck_assert(p.chunks_uneven);
	ck_assert_uint_eq(dc_plan_stage_dense_layers(&p, 0), 1);
	ck_assert_uint_eq(dc_plan_stage_dense_layers(&p, 1), 2);
	for (uint64_t st = 2; st < 8; st++)
		ck_assert_uint_eq(dc_plan_stage_dense_layers(&p, st), 0);
	ck_assert_uint_eq(dc_plan_stage_segment(&p, 1) + 1, dc_plan_stage_segment(&p, 2));
	ck_assert_uint_eq(dc_plan_stage_segment(&p, 2), dc_plan_stage_segment(&p, 6));
	ck_assert_uint_eq(dc_plan_stage_params(&p, 2)->moe_layers, 8);
	ck_assert_uint_eq(dc_plan_stage_params(&p, 1)->moe_layers, 6);
	/* full recompute of 1 layer a chunk: stage 0 reruns 1 + 1 + 1 + 1,
	 * stage 7 1 + 1 + 1 + 0 */
	c.training.recompute = DC_RECOMPUTE_FULL;
	c.training.recompute_layers = 1;
	fixture_plan(&c, &p);
	ck_assert_uint_eq(dc_plan_recomputed_layers(&p, 0), 4);
	ck_assert_uint_eq(dc_plan_recomputed_layers(&p, 7), 3);
	/* 8 stages: 4 + 6 x 4 + 3 = 31 of 61 layers */
	ck_assert_double_eq_tol(dc_plan_recompute_share(&p), 31.0 / 61.0, 1e-15);
}
END_TEST

/* Uneven stages without interleaving (configs/deepseek-v3-h800.json:
 * DualPipe on [4 x 15, 1]): full recompute of n layers a stage reruns
 * min(n, layers) of each, 15 n + 1 of 61 for n <= 4 (16, 31, 46, 61), not
 * n of L / pp = 3 */
START_TEST(test_uneven_stages_recompute_share)
{
	struct dc_config c;
	struct dc_plan p;
	load_path("configs/deepseek-v3-h800.json", &c);
	c.training.recompute = DC_RECOMPUTE_FULL;
	for (uint64_t n = 1; n <= 4; n++) {
		c.training.recompute_layers = n;
		fixture_plan(&c, &p);
		ck_assert(!p.chunks_uneven);
		ck_assert_uint_eq(dc_plan_recomputed_layers(&p, 15), 1);
		ck_assert_double_eq_tol(dc_plan_recompute_share(&p), (double)(15 * n + 1) / 61.0, 1e-15);
	}
}
END_TEST

START_TEST(test_derive_layout_override)
{
	/* pure DP of the course's setting: dp 8 = world, tp 1; the dp group
	 * 0-7 spans both nodes; one rank holds the whole 7B model, and its
	 * 2-byte gradient 13,476,831,232 B is the ring's default there */
	struct dc_config c;
	struct dc_plan p;
	struct dc_layout lay;

	fixture_systems(&c);
	dc_layout_of(&c, &lay);
	ck_assert_uint_eq(lay.tp, 4);
	ck_assert_uint_eq(lay.ep, 1);
	ck_assert_uint_eq(lay.virtual_pipeline, 1);
	lay.tp = 1;
	lay.dp = 8;
	ck_assert_int_eq(dc_plan_derive_layout(&c, &lay, &p), 0);
	ck_assert_uint_eq(p.world, 8);
	ck_assert_uint_eq(p.topo.degree[DC_AXIS_TP], 1);
	ck_assert_uint_eq(p.topo.degree[DC_AXIS_DP], 8);
	ck_assert_uint_eq(p.topo.stride[DC_AXIS_DP], 1);
	ck_assert_int_eq(p.group[DC_AXIS_DP].link.choice, DC_LINK_INTER);
	ck_assert_int_eq(p.group[DC_AXIS_TP].link.choice, DC_LINK_INTRA);
	ck_assert_uint_eq(p.most.total, 6738415616ull);
	ck_assert_uint_eq(p.ring_msg_bytes, 13476831232ull);
	/* the input is untouched */
	ck_assert_uint_eq(c.parallel.tp, 4);
	/* degrees past 2^24 ranks are refused */
	lay.dp = (uint64_t)1 << 25;
	ck_assert_int_eq(dc_plan_derive_layout(&c, &lay, &p), -1);
	ck_assert_ptr_nonnull(p.error);
}
END_TEST

/* Context parallelism as a rank axis: configs/systems.json (2 nodes x 4,
 * tp 4) with cp 2 and dp 1, order tp-cp-ep-dp-pp: S_tp = 1, S_cp = 4, so
 * rank 5 has tp 1, cp 1; the cp groups [0, 4] ... cross the nodes, and so
 * does the dp x cp group the gradients sync over (block 4 x 2 = 8 does not
 * divide 4). On one node of 8 with tp 2, cp 4 the cp block is 2 x 4 = 8:
 * every group stays on the node. b s / cp = 4096 / 2 tokens per rank. */
START_TEST(test_context_parallel_layout)
{
	struct dc_config c;
	struct dc_plan p;
	uint64_t coord[DC_AXIS_COUNT];
	struct dc_group g;

	fixture_systems(&c);
	c.parallel.cp = 2;
	c.parallel.dp = 1;
	fixture_plan(&c, &p);
	ck_assert_uint_eq(p.world, 8);
	ck_assert_uint_eq(p.topo.degree[DC_AXIS_CP], 2);
	ck_assert_uint_eq(p.topo.stride[DC_AXIS_CP], 4);
	dc_topology_coords(&p.topo, 5, coord);
	ck_assert_uint_eq(coord[DC_AXIS_TP], 1);
	ck_assert_uint_eq(coord[DC_AXIS_CP], 1);
	ck_assert_uint_eq(coord[DC_AXIS_DP], 0);
	dc_topology_group(&p.topo, DC_AXIS_CP, 1, &g);
	ck_assert_uint_eq(g.first, 1);
	ck_assert_uint_eq(dc_group_rank(&g, 1), 5);
	ck_assert_int_eq(p.group[DC_AXIS_CP].link.choice, DC_LINK_INTER);
	ck_assert_uint_eq(p.dp_cp, 2);
	ck_assert_int_eq(p.group[DC_GROUP_DP_CP].link.choice, DC_LINK_INTER);
	ck_assert_uint_eq(p.tokens_per_microbatch_cp, 2048);
	ck_assert_uint_eq(p.seq_per_cp_rank, 2048);

	c.cluster.num_nodes = 1;
	c.cluster.gpus_per_node = 8;
	c.parallel.tp = 2;
	c.parallel.cp = 4;
	fixture_plan(&c, &p);
	ck_assert_int_eq(p.group[DC_AXIS_CP].link.choice, DC_LINK_INTRA);
	ck_assert_int_eq(p.group[DC_GROUP_DP_CP].link.choice, DC_LINK_INTRA);
	ck_assert_uint_eq(p.dp_cp, 4);
}
END_TEST

/* A mixture-of-experts model on nodes of 8 GPUs with 8 NICs each, tp 1,
 * FSDP, cp, dp, pp, ep and the order as given (cp dp pp / 8 nodes). */
static void lattice_plan(uint64_t cp, uint64_t dp, uint64_t pp, uint64_t ep, const char *order, struct dc_config *c,
			 struct dc_plan *p)
{
	fixture_json(c,
		     "{\"model\": {\"num_layers\": 4, \"hidden_size\": 64, \"num_attention_heads\": 16,"
		     " \"ffn_hidden_size\": 128, \"vocab_size\": 128, \"seq_length\": 16, \"num_experts\": 8,"
		     " \"experts_per_token\": 2, \"moe_ffn_hidden_size\": 64},"
		     " \"cluster\": {\"num_nodes\": %llu, \"gpus_per_node\": 8, \"gpu_memory\": \"80 GiB\","
		     " \"nics_per_node\": 8, \"intra_node\": {\"bandwidth\": \"450 GB/s\"},"
		     " \"inter_node\": {\"bandwidth\": \"400 Gb/s\"}},"
		     " \"parallel\": {\"tp\": 1, \"cp\": %llu, \"dp\": %llu, \"pp\": %llu, \"ep\": %llu,"
		     " \"sharding\": \"fsdp\", \"order\": \"%s\"},"
		     " \"training\": {\"micro_batch_size\": 1, \"grad_accum_steps\": 1}}",
		     (unsigned long long)(cp * dp * pp / 8), (unsigned long long)cp, (unsigned long long)dp,
		     (unsigned long long)pp, (unsigned long long)ep, order);
	fixture_plan(c, p);
}

/* Groups of two axes not adjacent in the order are lattices, priced by
 * their real members (docs/network-model.md, "Groups of two axes"):
 *   - the trial's layout, cp 2, dp 16, ep 8 (tp-cp-ep-dp-pp): cp stride
 *     1, dp 2; ep > 1 with cp > 1 is folded (Megatron-Core's expert rank
 *     generator has cp 1): the ep group is ranks 0-7, node 0
 *     (intra_node), the experts' FSDP group the 32 / 8 = 4 ranks 8 apart,
 *     0, 8, 16, 24: one GPU (GPU 0, NIC 0) on each of 4 nodes,
 *     inter_node (carved out of dp as before folding it was 0, 1, 16, 17:
 *     nodes 0 and 2); the dp x cp group, cp next to dp, is ranks 0..31,
 *     one progression as before: 4 nodes of 8;
 *   - cp 2, pp 2, dp 8 in order tp-cp-pp-ep-dp: cp stride 1, pp 2, dp 4:
 *     the dp x cp group is 0, 1, 4, 5, ..., 28, 29: 4 nodes of 4 ranks on
 *     GPUs 0, 1, 4, 5 (4 NICs), a NIC's one GPU of it (concurrent 1); one
 *     progression 0..15 would have been 2 nodes of 8;
 *   - HSDP's shard group with cp (below);
 *   - cp 2, dp 4, ep 2 on 8 ranks, folded: the experts' group 8 / 2 = 4
 *     ranks 2 apart, 0, 2, 4, 6, stays on node 0: intra_node. */
START_TEST(test_two_axis_groups)
{
	struct dc_config c;
	struct dc_plan p;

	lattice_plan(2, 16, 1, 8, "tp-cp-ep-dp-pp", &c, &p);
	ck_assert(p.expert_folded);
	ck_assert_uint_eq(p.expert_dp, 4);
	expect_group(&p, DC_GROUP_EP, DC_LINK_INTRA, 8, 1, 8, 8, ANY, ANY);
	expect_group(&p, DC_GROUP_EDP_CP, DC_LINK_INTER, 4, 4, 1, 1, 1, 1);
	expect_group(&p, DC_GROUP_DP_CP, DC_LINK_INTER, 32, 4, 8, ANY, 8, ANY);

	lattice_plan(2, 8, 2, 1, "tp-cp-pp-ep-dp", &c, &p);
	ck_assert_uint_eq(p.topo.stride[DC_AXIS_PP], 2);
	ck_assert_uint_eq(p.topo.stride[DC_AXIS_DP], 4);
	expect_group(&p, DC_GROUP_DP_CP, DC_LINK_INTER, 16, 4, 4, 4, 4, 1);

	/* HSDP, 2 replicas, dp 8 (stride 1) before cp 4 (stride 8): a
	 * replica's shard group is dp ranks 0-3 with every cp rank, 0-3,
	 * 8-11, 16-19, 24-27: 4 nodes of 4 on GPUs 0-3 (4 NICs), concurrent
	 * 1; one progression 0..15 would have been 2 nodes of 8 */
	lattice_plan(4, 8, 1, 1, "tp-dp-cp-ep-pp", &c, &p);
	c.parallel.dp_replicate = 2;
	fixture_plan(&c, &p);
	expect_group(&p, DC_GROUP_SHARD, DC_LINK_INTER, 16, 4, 4, 4, 4, 1);

	lattice_plan(2, 4, 1, 2, "tp-cp-ep-dp-pp", &c, &p);
	ck_assert_uint_eq(p.world, 8);
	expect_group(&p, DC_GROUP_EDP_CP, DC_LINK_INTRA, 4, 1, 4, ANY, ANY, ANY);
}
END_TEST

START_TEST(test_explicit_params)
{
	/* an explicit count: the total and the active count are it; a rank of
	 * tp 1 x pp 1 holds it all */
	struct dc_config c;
	struct dc_plan p;

	fixture_json(&c, "{\"model\": {\"params\": 7500000000, \"num_layers\": 32, \"hidden_size\": 4096,"
			 " \"num_attention_heads\": 32, \"vocab_size\": 32000, \"seq_length\": 1024},"
			 " \"cluster\": {\"num_nodes\": 4, \"gpus_per_node\": 1, \"gpu_memory\": \"32 GiB\","
			 " \"intra_node\": {\"bandwidth\": \"300 GB/s\"}, \"inter_node\": {\"bandwidth\": \"50 GB/s\"}}}");
	ck_assert_uint_eq(c.model.params, 7500000000ull);
	fixture_plan(&c, &p);
	ck_assert_uint_eq(p.params_total, 7500000000ull);
	ck_assert_uint_eq(p.params_active, 7500000000ull);
	ck_assert_uint_eq(p.most.total, 7500000000ull);
	/* default precision: 2-byte gradients */
	ck_assert_uint_eq(p.ring_msg_bytes, 15000000000ull);
}
END_TEST

START_TEST(test_leaf_crossing_group_priced)
{
	/* Each strategy prices its slowest group: one that crosses a leaf
	 * switch behind an oversubscribed spine is slower than group 0 that
	 * does not (a trial: pp 2 on 24 nodes of 16-node leaves kept DP and
	 * PP at the NIC rate). 6 nodes of 1 GPU, 4 under a leaf, 2:1; tp 1,
	 * dp 3, pp 2 (order tp-dp-pp: dp stride 1, pp stride 3). By hand:
	 * stage 0's DP group is ranks 0-2 (leaf 0), stage 1's ranks 3-5
	 * (nodes 3 | 4, 5: two leaves), so DP is priced on 3-5 at 50 / 2 =
	 * 25 GB/s; the PP pairs (0, 3), (1, 4), (2, 5): 0 -> 3 stays under
	 * leaf 0, 1 -> 4 crosses, 25 GB/s. Without the spine's
	 * oversubscription both keep 50 GB/s. */
	struct dc_config c;
	struct dc_plan p;
#define LEAF_CFG                                                                                                \
	"{\"model\": {\"num_layers\": 4, \"hidden_size\": 256, \"num_attention_heads\": 4,"                     \
	" \"vocab_size\": 1000, \"seq_length\": 128},"                                                              \
	" \"cluster\": {\"num_nodes\": 6, \"gpus_per_node\": 1, \"gpu_memory\": \"32 GiB\","                      \
	" \"intra_node\": {\"bandwidth\": \"300 GB/s\"}, \"inter_node\": {\"bandwidth\": \"50 GB/s\"},"           \
	" \"nodes_per_leaf\": 4, \"oversubscription\": %s},"                                                        \
	" \"parallel\": {\"tp\": 1, \"dp\": 3, \"pp\": 2, \"order\": \"tp-dp-pp\"},"                              \
	" \"training\": {\"micro_batch_size\": 1, \"grad_accum_steps\": 2}}"
	fixture_json(&c, LEAF_CFG, "2");
	fixture_plan(&c, &p);
	ck_assert_int_eq(p.group[DC_AXIS_DP].net.cross_leaf, 1);
	ck_assert_uint_eq(p.group[DC_AXIS_DP].net.ranks, 3);
	ck_assert(fabs(dc_net_node_bw(&p.net, &p.group[DC_AXIS_DP].net) - 25e9) < 1e-3);
	ck_assert_int_eq(p.group[DC_GROUP_PP_PAIR].net.cross_leaf, 1);
	ck_assert(fabs(dc_net_node_bw(&p.net, &p.group[DC_GROUP_PP_PAIR].net) - 25e9) < 1e-3);
	fixture_json(&c, LEAF_CFG, "1");
#undef LEAF_CFG
	fixture_plan(&c, &p);
	ck_assert(fabs(dc_net_node_bw(&p.net, &p.group[DC_AXIS_DP].net) - 50e9) < 1e-3);
	ck_assert(fabs(dc_net_node_bw(&p.net, &p.group[DC_GROUP_PP_PAIR].net) - 50e9) < 1e-3);
}
END_TEST

/* Behind a spine a ring is not slowed once k >= the oversubscription, but
 * AlltoAll and the tree still are: a family whose group 0 stays under one
 * leaf is priced on a group that crosses even when the ring rates tie (a
 * review: EP groups of k 2 behind 2:1 went unslowed). 12 nodes of 1 GPU
 * under leaves of 6, 2:1; tp 1, dp 4, pp 3 in order tp-dp-pp: the DP groups
 * are ranks 0-3, 4-7 (nodes 4, 5 | 6, 7: k 2) and 8-11. By hand: the ring's
 * slowdown max(1, 2 / 2) = 1, so the ring rates tie at 50 GB/s; the group
 * priced is 4-7, AlltoAll's slowdown there 2 x (4 - 2) / 3 = 4/3. */
START_TEST(test_leaf_crossing_tie_prices_the_crossing_group)
{
	struct dc_config c;
	struct dc_plan p;
	fixture_json(&c,
		     "{\"model\": {\"num_layers\": 6, \"hidden_size\": 256, \"num_attention_heads\": 4,"
		     " \"vocab_size\": 1000, \"seq_length\": 128},"
		     " \"cluster\": {\"num_nodes\": 12, \"gpus_per_node\": 1, \"gpu_memory\": \"32 GiB\","
		     " \"intra_node\": {\"bandwidth\": \"300 GB/s\"}, \"inter_node\": {\"bandwidth\": \"50 GB/s\"},"
		     " \"nodes_per_leaf\": 6, \"oversubscription\": 2},"
		     " \"parallel\": {\"tp\": 1, \"dp\": 4, \"pp\": 3, \"order\": \"tp-dp-pp\"},"
		     " \"training\": {\"micro_batch_size\": 1, \"grad_accum_steps\": 3}}");
	fixture_plan(&c, &p);
	ck_assert_int_eq(p.group[DC_AXIS_DP].net.cross_leaf, 2);
	ck_assert(fabs(dc_net_node_bw(&p.net, &p.group[DC_AXIS_DP].net) - 50e9) < 1e-3);
	ck_assert(fabs(dc_net_leaf_slowdown(&p.net, &p.group[DC_AXIS_DP].net, DC_NET_LEAF_ALL_TO_ALL) - 4.0 / 3.0) <
		  1e-12);
}
END_TEST

/* The least node bandwidth over every group of the family (stride,
 * size) that spans NVLink domains and crosses a leaf switch, by brute
 * force (1e300: none) */
static double leaf_family_min(const struct dc_plan *p, uint64_t stride, uint64_t size)
{
	uint64_t block = stride * size;
	double best = 1e300;
	if (size < 2 || p->world % block)
		return best;
	for (uint64_t b = 0; b < p->world; b += block)
		for (uint64_t r = 0; r < stride; r++) {
			struct dc_net_group g;
			dc_net_group_progression(&p->net, b + r, stride, size, &g);
			if (g.nodes > 1 && g.cross_leaf && dc_net_node_bw(&p->net, &g) < best)
				best = dc_net_node_bw(&p->net, &g);
		}
	return best;
}

START_TEST(test_leaf_crossing_groups_found_everywhere)
{
	/* Behind an oversubscribed spine the leaf is never missed: where a
	 * group of an axis, or a pair of neighbouring stages, that spans
	 * NVLink domains and crosses a leaf is slower than the one priced,
	 * the priced one crosses a leaf too (which of the crossing groups is
	 * the slowest by its NICs is the family's own heuristic,
	 * docs/network-model.md): against every group by brute force,
	 * on 1 to 20 nodes of 1, 2 or 4 GPUs, NVLink domains of a node, 8 or
	 * 16 GPUs (wider than a node: the first leaf boundary can fall inside
	 * one), every leaf size, tp 1-4, pp 1-4, three orders. A review's
	 * harness found crossings past the first boundary missed (GB200 NVL72
	 * at 10-node leaves; dgx-h100, 9 nodes, pp 8, 4-node leaves). */
	static const char *const orders[] = {"tp-cp-ep-dp-pp", "tp-cp-ep-pp-dp", "pp-tp-cp-ep-dp"};
	static const unsigned gpns[] = {1, 2, 4}, doms[] = {0, 8, 16};
	struct dc_config c;
	struct dc_plan p;
	uint64_t checked = 0;
	for (size_t gi = 0; gi < 3; gi++)
		for (size_t di = 0; di < 3; di++)
			for (unsigned nodes = 2; nodes <= 20; nodes++)
				for (unsigned npl = 1; npl < nodes; npl++)
					for (unsigned tp = 1; tp <= 4; tp *= 2)
						for (unsigned pp = 1; pp <= 4; pp++)
							for (size_t oi = 0; oi < 3; oi++) {
		unsigned gpn = gpns[gi], dom = doms[di], world = nodes * gpn;
		char domj[48] = "";
		if ((dom && (dom % gpn || dom <= gpn)) || world % (tp * pp) || tp > gpn)
			continue;
		if (dom)
			snprintf(domj, sizeof(domj), ", \"nvlink_domain\": %u", dom);
		fixture_json(&c,
			     "{\"model\": {\"num_layers\": 24, \"hidden_size\": 1024, \"num_attention_heads\": 16,"
			     " \"vocab_size\": 1024, \"seq_length\": 128},"
			     " \"cluster\": {\"num_nodes\": %u, \"gpus_per_node\": %u, \"gpu_memory\": \"80 GiB\"%s,"
			     " \"intra_node\": {\"bandwidth\": \"300 GB/s\"}, \"inter_node\": {\"bandwidth\": \"50 GB/s\"},"
			     " \"nodes_per_leaf\": %u, \"oversubscription\": 4},"
			     " \"parallel\": {\"tp\": %u, \"dp\": %u, \"pp\": %u, \"order\": \"%s\"},"
			     " \"training\": {\"micro_batch_size\": 1, \"grad_accum_steps\": 4}}",
			     nodes, gpn, domj, npl, tp, world / (tp * pp), pp, orders[oi]);
		fixture_plan(&c, &p);
		for (int a = 0; a < DC_AXIS_COUNT; a++) {
			double best;
			if (a == DC_AXIS_PP || p.topo.degree[a] < 2)
				continue;
			best = leaf_family_min(&p, p.topo.stride[a], p.topo.degree[a]);
			ck_assert_msg(p.group[a].net.cross_leaf || dc_net_node_bw(&p.net, &p.group[a].net) <= best * (1 + 1e-12),
				      "axis %d: %g above a crossing group's %g (nodes %u gpn %u dom %u leaf %u tp %u pp %u %s)",
				      a, dc_net_node_bw(&p.net, &p.group[a].net), best, nodes, gpn, dom, npl, tp, pp, orders[oi]);
			checked++;
		}
		if (pp > 1) {
			uint64_t spp = p.topo.stride[DC_AXIS_PP];
			double best = 1e300;
			for (uint64_t x = 0; x + spp < p.world; x++) {
				struct dc_net_group g;
				if ((x / spp) % pp == pp - 1)
					continue;
				dc_net_group_progression(&p.net, x, spp, 2, &g);
				/* nics_per_node left out: one NIC a GPU, so derive_net's
				 * pair shares none (its concurrency rule is for fewer) */
				if (g.nodes > 1 && g.cross_leaf && dc_net_node_bw(&p.net, &g) < best)
					best = dc_net_node_bw(&p.net, &g);
			}
			ck_assert_msg(p.group[DC_GROUP_PP_PAIR].net.cross_leaf ||
					      dc_net_node_bw(&p.net, &p.group[DC_GROUP_PP_PAIR].net) <= best * (1 + 1e-12),
				      "pp pair: %g above a crossing pair's %g (nodes %u gpn %u dom %u leaf %u tp %u pp %u %s)",
				      dc_net_node_bw(&p.net, &p.group[DC_GROUP_PP_PAIR].net), best, nodes, gpn, dom, npl, tp,
				      pp, orders[oi]);
			checked++;
		}
							}
	ck_assert_uint_gt(checked, 10000);
}
END_TEST

/* The least node bandwidth of the lattice family f + i a + j b (i < na,
 * j < nb) whose groups span NVLink domains and cross a leaf, by brute
 * force over every f: a block start (a multiple of b nb) plus r < b with
 * (r / a) mod na = 0 */
static double leaf_lattice_min(const struct dc_plan *p, uint64_t a, uint64_t na, uint64_t b, uint64_t nb)
{
	double best = 1e300;
	for (uint64_t base = 0; base < p->world; base += b * nb)
		for (uint64_t r = 0; r < b; r++) {
			struct dc_net_group g;
			if ((r / a) % na != 0)
				continue;
			dc_net_group_lattice(&p->net, base + r, a, na, b, nb, &g);
			if (g.nodes > 1 && g.cross_leaf && dc_net_node_bw(&p->net, &g) < best)
				best = dc_net_node_bw(&p->net, &g);
		}
	return best;
}

START_TEST(test_leaf_crossing_lattices_found_everywhere)
{
	/* The dp x cp lattice (pp between cp and dp in the order: not one
	 * progression) behind an oversubscribed spine: where a lattice of the
	 * family that spans NVLink domains and crosses a leaf is slower than
	 * the one priced, the priced one crosses a leaf too, against every
	 * lattice by brute force, on 2 to 16 nodes of 1, 2 or 4 GPUs, NVLink
	 * domains of a node or 8 GPUs, every leaf size, cp 2, tp 1-2, pp 2-3,
	 * ep 1 (the lattices were priced at the domain rule alone before) */
	static const unsigned gpns[] = {1, 2, 4}, doms[] = {0, 8};
	struct dc_config c;
	struct dc_plan p;
	uint64_t checked = 0, crossing = 0;
	for (size_t gi = 0; gi < 3; gi++)
		for (size_t di = 0; di < 2; di++)
			for (unsigned nodes = 2; nodes <= 16; nodes++)
				for (unsigned npl = 1; npl < nodes; npl++)
					for (unsigned tp = 1; tp <= 2; tp++)
						for (unsigned pp = 2; pp <= 3; pp++) {
		unsigned gpn = gpns[gi], dom = doms[di], world = nodes * gpn, cp = 2;
		uint64_t a, b, na, nb;
		double best;
		char domj[48] = "";
		if ((dom && (dom % gpn || dom <= gpn)) || world % (tp * pp * cp) || tp > gpn)
			continue;
		if (dom)
			snprintf(domj, sizeof(domj), ", \"nvlink_domain\": %u", dom);
		fixture_json(&c,
			     "{\"model\": {\"num_layers\": 24, \"hidden_size\": 1024, \"num_attention_heads\": 16,"
			     " \"vocab_size\": 1024, \"seq_length\": 128},"
			     " \"cluster\": {\"num_nodes\": %u, \"gpus_per_node\": %u, \"gpu_memory\": \"80 GiB\"%s,"
			     " \"intra_node\": {\"bandwidth\": \"300 GB/s\"}, \"inter_node\": {\"bandwidth\": \"50 GB/s\"},"
			     " \"nodes_per_leaf\": %u, \"oversubscription\": 4},"
			     " \"parallel\": {\"tp\": %u, \"cp\": %u, \"dp\": %u, \"pp\": %u, \"order\": \"tp-cp-ep-pp-dp\"},"
			     " \"training\": {\"micro_batch_size\": 1, \"grad_accum_steps\": 4}}",
			     nodes, gpn, domj, npl, tp, cp, world / (tp * pp * cp), pp);
		fixture_plan(&c, &p);
		a = p.topo.stride[DC_AXIS_CP];
		na = cp;
		b = p.topo.stride[DC_AXIS_DP];
		nb = p.topo.degree[DC_AXIS_DP];
		if (nb < 2 || a * na == b)
			continue;
		best = leaf_lattice_min(&p, a, na, b, nb);
		crossing += best < 1e300;
		ck_assert_msg(p.group[DC_GROUP_DP_CP].net.cross_leaf ||
				      dc_net_node_bw(&p.net, &p.group[DC_GROUP_DP_CP].net) <= best * (1 + 1e-12),
			      "dp x cp: %g above a crossing lattice's %g (nodes %u gpn %u dom %u leaf %u tp %u pp %u)",
			      dc_net_node_bw(&p.net, &p.group[DC_GROUP_DP_CP].net), best, nodes, gpn, dom, npl, tp, pp);
		checked++;
						}
	ck_assert_uint_gt(checked, 500);
	ck_assert_uint_gt(crossing, 100);
}
END_TEST

/* The loop dc_plan_stage_dense_layers replaces: chunks stage + k pp. */
static uint64_t dense_loop(uint64_t L, uint64_t pp, uint64_t v, uint64_t limit, uint64_t stage)
{
	uint64_t per_chunk = L / pp / v, n = 0;
	for (uint64_t k = 0; k < v; k++) {
		uint64_t first = (stage + k * pp) * per_chunk;
		if (first < limit)
			n += limit - first < per_chunk ? limit - first : per_chunk;
	}
	return n;
}

START_TEST(test_dense_layers_closed_form)
{
	/* every (pp, v, layers per chunk, dense limit) up to small sizes */
	struct dc_config c;
	struct dc_plan p;

	fixture_systems(&c);
	for (uint64_t pp = 1; pp <= 9; pp++)
		for (uint64_t v = 1; v <= 4; v++)
			for (uint64_t pc = 1; pc <= 3; pc++) {
				uint64_t L = pp * v * pc;
				for (uint64_t limit = 0; limit <= L + 1; limit++) {
					memset(&p, 0, sizeof(p));
					p.in = &c;
					p.layout.pp = pp;
					p.v = v;
					p.layers_per_stage = L / pp;
					p.layers_per_chunk = pc;
					p.dense_limit = limit;
					for (uint64_t s = 0; s < pp; s++)
						ck_assert_msg(dc_plan_stage_dense_layers(&p, s) == dense_loop(L, pp, v, limit, s),
							      "pp %llu v %llu L %llu limit %llu stage %llu",
							      (unsigned long long)pp, (unsigned long long)v,
							      (unsigned long long)L, (unsigned long long)limit,
							      (unsigned long long)s);
				}
			}
}
END_TEST

/* ---- MoE on every n-th layer: the stages' counts, layer by layer ---- */

/* Layer i (from 0) of a model whose first `dense` layers are dense and
 * then every `every`-th (i + 1 a multiple) holds experts: 1 if dense */
static int layer_dense(uint64_t dense, uint64_t every, uint64_t i)
{
	return i < dense || (i + 1) % every != 0;
}

/* A small MoE model of L layers, MoE every `every`-th after `dense`, on
 * pp GPUs (tp 1, dp 1), v chunks a stage, the stages `list` ("": even) */
static int interval_load(uint64_t L, uint64_t every, uint64_t dense, uint64_t pp, uint64_t v, const char *list,
			 struct dc_config *c)
{
	char json[1024];
	struct dc_diag d;
	int rc;
	snprintf(json, sizeof(json),
		 "{\"model\": {\"num_layers\": %llu, \"hidden_size\": 64, \"num_attention_heads\": 4,"
		 " \"ffn_hidden_size\": 128, \"vocab_size\": 1000, \"seq_length\": 128, \"num_experts\": 4,"
		 " \"experts_per_token\": 1, \"moe_ffn_hidden_size\": 32, \"dense_layers\": %llu,"
		 " \"moe_layer_interval\": %llu},"
		 " \"cluster\": {\"num_nodes\": 1, \"gpus_per_node\": %llu, \"gpu_memory\": \"80 GiB\","
		 " \"intra_node\": {\"bandwidth\": \"300 GB/s\"}, \"inter_node\": {\"bandwidth\": \"50 GB/s\"}},"
		 " \"parallel\": {\"pp\": %llu, \"dp\": 1, \"virtual_pipeline\": %llu%s%s%s},"
		 " \"training\": {\"micro_batch_size\": 1, \"grad_accum_steps\": %llu}}",
		 (unsigned long long)L, (unsigned long long)dense, (unsigned long long)every, (unsigned long long)pp,
		 (unsigned long long)pp, (unsigned long long)v, list[0] ? ", \"pipeline_layers\": [" : "", list,
		 list[0] ? "]" : "", (unsigned long long)(2 * pp));
	dc_diag_init(&d);
	rc = dc_config_load_buffer(json, strlen(json), "t.json", NULL, 0, c, &d);
	dc_diag_release(&d);
	return rc;
}

/* Every stage of the plan against the layers it holds, walked one by one:
 * chunk c of stage s holds `len[c pp + s]` layers from `start[c pp + s]`
 * (virtual stages in model order) */
static void interval_check(const struct dc_config *c, const uint64_t *start, const uint64_t *len, const char *what)
{
	struct dc_plan p;
	uint64_t pp = c->parallel.pp, v = c->parallel.virtual_pipeline ? c->parallel.virtual_pipeline : 1;
	uint64_t D = c->model.dense_layers, n = c->model.moe_layer_interval, total_moe = 0;
	fixture_plan(c, &p);
	for (uint64_t s = 0; s < pp; s++) {
		uint64_t dense = 0, layers = 0;
		for (uint64_t k = 0; k < v; k++) {
			uint64_t a = start[k * pp + s], m = len[k * pp + s], cd = 0;
			ck_assert_uint_eq(dc_plan_chunk_start(&p, s, k), a);
			ck_assert_uint_eq(dc_plan_chunk_layers(&p, s, k), m);
			for (uint64_t i = a; i < a + m; i++)
				cd += (uint64_t)layer_dense(D, n, i);
			ck_assert_msg(dc_plan_dense_in(&p, a, m) == cd, "%s: stage %llu chunk %llu", what,
				      (unsigned long long)s, (unsigned long long)k);
			dense += cd;
			layers += m;
		}
		ck_assert_msg(dc_plan_stage_dense_layers(&p, s) == dense, "%s: stage %llu dense %llu, want %llu", what,
			      (unsigned long long)s, (unsigned long long)dc_plan_stage_dense_layers(&p, s),
			      (unsigned long long)dense);
		/* the stage's segment holds its counts */
		ck_assert_msg(dc_plan_stage_params(&p, s)->dense_layers == dense &&
				      dc_plan_stage_params(&p, s)->moe_layers == layers - dense,
			      "%s: stage %llu's segment", what, (unsigned long long)s);
		total_moe += layers - dense;
	}
	ck_assert_uint_eq(total_moe, c->model.num_layers - p.dense_limit);
	ck_assert_uint_eq(dc_layout_moe_segments(c, pp, v), p.nsegments);
}

START_TEST(test_moe_interval_brute_force)
{
	uint64_t start[64], len[64], cases = 0;
	char what[160];
	/* even splits: every (interval, dense layers, pp, v, layers a chunk) */
	for (uint64_t n = 2; n <= 4; n++)
		for (uint64_t D = 0; D <= 3; D += 3)
			for (uint64_t pp = 1; pp <= 8; pp++)
				for (uint64_t v = 1; v <= (pp > 1 ? 3 : 1); v++)
					for (uint64_t k = 1; k <= 5; k++) {
						struct dc_config c;
						uint64_t L = pp * v * k;
						if (D >= L || interval_load(L, n, D, pp, v, "", &c) != 0)
							continue;
						for (uint64_t q = 0; q < pp * v; q++) {
							start[q] = q * k;
							len[q] = k;
						}
						snprintf(what, sizeof(what), "L %llu n %llu D %llu pp %llu v %llu",
							 (unsigned long long)L, (unsigned long long)n, (unsigned long long)D,
							 (unsigned long long)pp, (unsigned long long)v);
						interval_check(&c, start, len, what);
						cases++;
					}
	/* uneven stages (v = 1): every list of 2 to 4 stages of 1 to 4
	 * layers, the stages consecutive */
	for (uint64_t pp = 2; pp <= 4; pp++) {
		uint64_t combos = 1;
		for (uint64_t i = 0; i < pp; i++)
			combos *= 4;
		for (uint64_t x = 0; x < combos; x++)
			for (uint64_t n = 2; n <= 3; n++)
				for (uint64_t D = 0; D <= 2; D += 2) {
					struct dc_config c;
					char list[64];
					size_t o = 0;
					uint64_t L = 0, y = x;
					for (uint64_t i = 0; i < pp; i++, y /= 4) {
						len[i] = y % 4 + 1;
						start[i] = L;
						L += len[i];
						o += (size_t)snprintf(list + o, sizeof(list) - o, "%s%llu", i ? ", " : "",
								      (unsigned long long)len[i]);
					}
					if (D >= L)
						continue;
					ck_assert_msg(interval_load(L, n, D, pp, 1, list, &c) == 0, "[%s]", list);
					snprintf(what, sizeof(what), "[%s] n %llu D %llu", list, (unsigned long long)n,
						 (unsigned long long)D);
					interval_check(&c, start, len, what);
					cases++;
				}
	}
	ck_assert_uint_gt(cases, 1000);
}
END_TEST

/* Llama-4-Maverick's 48 layers, MoE every second, pp 4 [11, 13, 13, 11]:
 * 5, 7, 6, 6 MoE layers (layers 1-9, 11-23, 25-35, 37-47 odd), so 4
 * segments; pp 48 (a layer a stage, MoE on the odd stages) needs 48 kinds
 * of stage, more than the 20 kept: the loader names it */
START_TEST(test_moe_interval_rules)
{
	struct dc_config c;
	struct dc_diag d;
	const char *json =
		"{\"model\": {\"num_layers\": 48, \"hidden_size\": 64, \"num_attention_heads\": 4,"
		" \"ffn_hidden_size\": 128, \"vocab_size\": 1000, \"seq_length\": 128, \"num_experts\": 4,"
		" \"experts_per_token\": 1, \"moe_ffn_hidden_size\": 32, \"moe_layer_interval\": 2},"
		" \"cluster\": {\"num_nodes\": 6, \"gpus_per_node\": 8, \"gpu_memory\": \"80 GiB\","
		" \"intra_node\": {\"bandwidth\": \"300 GB/s\"}, \"inter_node\": {\"bandwidth\": \"50 GB/s\"}},"
		" \"parallel\": {\"pp\": 48, \"dp\": 1}}";
	ck_assert_int_eq(interval_load(48, 2, 0, 4, 1, "11, 13, 13, 11", &c), 0);
	ck_assert_uint_eq(dc_layout_moe_segments(&c, 4, 1), 4);
	ck_assert_uint_eq(dc_layout_moe_segments(&c, 4, 2), 0); /* the list runs at v 1 alone */
	ck_assert_uint_eq(dc_layout_moe_segments(&c, 2, 2), 2); /* even: 12 layers a chunk, 6 MoE each */
	/* pp 8 v 2: chunk q holds layers 3q .. 3q + 2, MoE 1 (q even) or 2
	 * (q odd); stage s chunks s and s + 8: 2 or 4, alternating */
	ck_assert_uint_eq(dc_layout_moe_segments(&c, 8, 2), 8);
	ck_assert_int_eq(dc_layout_fault_outer(&c, 1, 1, 4), DC_LF_NONE);
	/* even stages from here on */
	ck_assert_int_eq(interval_load(48, 2, 0, 4, 1, "", &c), 0);
	/* pp 4 v 3: chunk q holds layers 4q .. 4q + 3, 2 MoE each: stage 0,
	 * 1-2, 3 */
	ck_assert_uint_eq(dc_layout_moe_segments(&c, 4, 3), 3);
	ck_assert_int_eq(dc_layout_fault_outer(&c, 1, 1, 16), DC_LF_NONE); /* 16 kinds: 1 and 2 MoE alternate */
	ck_assert_uint_eq(dc_layout_moe_segments(&c, 16, 1), 16);
	ck_assert_uint_eq(dc_layout_moe_segments(&c, 24, 1), 3);  /* 2 layers a stage, 1 MoE each */
	ck_assert_uint_eq(dc_layout_moe_segments(&c, 48, 1), 48);
	ck_assert_int_eq(dc_layout_fault_outer(&c, 1, 1, 48), DC_LF_PP);
	{
		/* a plan derived past the rules says so */
		static struct dc_plan base, p;
		struct dc_layout lay;
		fixture_plan(&c, &base);
		lay = base.layout;
		lay.pp = 48;
		lay.dp = 1;
		lay.grad_accum_steps = 96;
		ck_assert_int_eq(dc_plan_derive_layout(&c, &lay, &p), -1);
		ck_assert_str_eq(p.error, "'parallel.pp': with MoE on every n-th layer (model.moe_layer_interval) the stages hold more than 20 different mixes of dense and MoE layers");
	}
	dc_diag_init(&d);
	ck_assert_int_eq(dc_config_load_buffer(json, strlen(json), "t.json", NULL, 0, &c, &d), -1);
	ck_assert_uint_eq(d.count, 1);
	ck_assert_str_eq(d.entries[0].text,
			 "t.json: error: 'parallel.pp': with MoE on every n-th layer (model.moe_layer_interval 2) these stages make 48 runs of differing dense and MoE layer mixes, more than the 20 kinds of stage distcalc keeps; give fewer stages, or each stage (or model chunk) a multiple of 2 layers, got pp 48");
	dc_diag_release(&d);
}
END_TEST

/* ---- generated configs ---- */

static uint64_t env_u64(const char *name, uint64_t dflt)
{
	const char *v = getenv(name);
	return v && *v ? strtoull(v, NULL, 10) : dflt;
}

static uint64_t gcd(uint64_t a, uint64_t b)
{
	while (b) {
		uint64_t t = a % b;
		a = b;
		b = t;
	}
	return a;
}

/* A random valid config stressing the stage structure: pp up to 16,
 * interleaving, fewer microbatches than stages, MoE models with leading
 * dense layers and expert parallelism, explicit parameter counts and
 * activation overrides, every sharding and recompute mode. */
static void gen(struct dc_rng *r, char *buf, size_t len)
{
	static const uint64_t gpn_choices[] = {1, 2, 4, 8};
	static const uint64_t pow2[] = {1, 2, 4};
	static const char *const sharding[] = {"none", "zero1", "zero2", "fsdp"};
	static const char *const recompute[] = {"none", "selective", "full"};
	static const char *const orders[] = {"tp-cp-ep-dp-pp", "dp-tp-pp", "tp-pp-dp", "pp-dp-tp"};
	/* orders whose expert groups are distcalc's at ep > 1 (config rule
	 * 11: test_ep_order_matches_megatron) */
	static const char *const ep_orders[] = {"tp-cp-ep-dp-pp", "tp-ep-dp-pp", "tp-pp-ep-dp", "pp-tp-ep-dp"};
	uint64_t gpn = gpn_choices[dc_rng_range(r, 0, 3)], nodes = dc_rng_range(r, 1, 8);
	uint64_t world = gpn * nodes, tp, pp, dp, vp = 1, gas, layers, heads, hidden, experts = 0, ep = 1;
	uint64_t dense = 0, every;
	int moe = dc_rng_range(r, 0, 1) == 1, sp;
	char moe_text[256] = "", extra[1024] = "", mem_text[96] = "";
	uint64_t cp = 1;
	const char *order;
	size_t n;

	do
		tp = pow2[dc_rng_range(r, 0, 2)];
	while (world % tp != 0);
	do
		pp = dc_rng_range(r, 1, 16);
	while ((world / tp) % pp != 0);
	if ((world / tp / pp) % 2 == 0 && dc_rng_range(r, 0, 3) == 0)
		cp = 2; /* context parallelism: seq_length (128 k) splits into 2 cp chunks */
	dp = world / tp / pp / cp;
	if (pp > 1 && dc_rng_range(r, 0, 2) == 0)
		vp = dc_rng_range(r, 2, 4);
	gas = vp > 1 ? pp * dc_rng_range(r, 1, 3) : dc_rng_range(r, 1, 2 * pp + 1);
	sp = tp > 1 && dc_rng_range(r, 0, 1);
	heads = tp * dc_rng_range(r, 1, 4);
	hidden = heads * 16 * dc_rng_range(r, 1, 4);
	layers = pp * vp * dc_rng_range(r, 1, 4);
	n = (size_t)snprintf(extra, sizeof(extra), "\"cp\": %llu, ", (unsigned long long)cp);
	if (vp == 1 && pp > 1 && dc_rng_range(r, 0, 1)) {
		/* uneven stages: a list, the first/last-stage forms or the
		 * embedding and loss counted as layers */
		uint64_t mode = dc_rng_range(r, 0, 2);
		if (mode == 0) {
			uint64_t last = 0;
			layers = 0;
			n += (size_t)snprintf(extra + n, sizeof(extra) - n, "\"pipeline_layers\": [");
			for (uint64_t i = 0; i < pp; i++) {
				/* runs of equal stages, some of them one stage long */
				uint64_t k = i > 0 && dc_rng_range(r, 0, 1) ? last : dc_rng_range(r, 1, 4);
				last = k;
				layers += k;
				n += (size_t)snprintf(extra + n, sizeof(extra) - n, "%s%llu", i ? ", " : "", (unsigned long long)k);
			}
			n += (size_t)snprintf(extra + n, sizeof(extra) - n, "], ");
		} else if (mode == 1) {
			int f = (int)dc_rng_range(r, 0, 1), l = !f || dc_rng_range(r, 0, 1);
			/* at least 1 each, as Megatron-Core and the loader require */
			uint64_t fl = dc_rng_range(r, 1, 5), ll = dc_rng_range(r, 1, 5), mid = dc_rng_range(r, 1, 4);
			uint64_t others = pp - (uint64_t)f - (uint64_t)l;
			layers = (f ? fl : 0) + (l ? ll : 0) + mid * others;
			if (f)
				n += (size_t)snprintf(extra + n, sizeof(extra) - n, "\"first_stage_layers\": %llu, ",
						      (unsigned long long)fl);
			if (l)
				n += (size_t)snprintf(extra + n, sizeof(extra) - n, "\"last_stage_layers\": %llu, ",
						      (unsigned long long)ll);
		} else {
			int e = (int)dc_rng_range(r, 0, 1), o = !e || dc_rng_range(r, 0, 1);
			uint64_t each = dc_rng_range(r, 2, 4);
			layers = each * pp - (uint64_t)e - (uint64_t)o;
			n += (size_t)snprintf(extra + n, sizeof(extra) - n,
					      "\"account_for_embedding\": %s, \"account_for_loss\": %s, ", e ? "true" : "false",
					      o ? "true" : "false");
		}
	}
	if (moe) {
		static const uint64_t e_choices[] = {2, 4, 8, 16};
		uint64_t g;
		experts = e_choices[dc_rng_range(r, 0, 3)];
		g = gcd(dp, experts);
		do
			ep = dc_rng_range(r, 1, g);
		while (g % ep != 0);
		dense = dc_rng_range(r, 0, 2) ? dc_rng_range(r, 0, layers - 1) : 0;
		/* MoE on every layer, or (Llama 4) on every second or third */
		every = dc_rng_range(r, 0, 2) ? 1 : dc_rng_range(r, 2, 3);
		/* ep needs a layer with experts (config rule: ep over none is
		 * refused) */
		if (dc_params_moe_span(dense, every, 0, layers) == 0)
			ep = 1;
		snprintf(moe_text, sizeof(moe_text),
			 ", \"num_experts\": %llu, \"experts_per_token\": %llu, \"moe_ffn_hidden_size\": %llu,"
			 " \"dense_layers\": %llu, \"shared_expert_ffn_hidden_size\": %llu, \"moe_layer_interval\": %llu",
			 (unsigned long long)experts, (unsigned long long)dc_rng_range(r, 1, experts < 2 ? experts : 2),
			 (unsigned long long)(hidden * dc_rng_range(r, 1, 2) / 2), (unsigned long long)dense,
			 (unsigned long long)(dc_rng_range(r, 0, 1) ? hidden : 0), (unsigned long long)every);
	} else if (dc_rng_range(r, 0, 5) == 0) {
		snprintf(moe_text, sizeof(moe_text), ", \"params\": %llu",
			 (unsigned long long)dc_rng_range(r, 1000000, 100000000000ull));
	}
	if (ep > 1)
		snprintf(extra + n, sizeof(extra) - n, "\"ep\": %llu, ", (unsigned long long)ep);
	/* ep > 1 with cp > 1 is a folded expert layout: pp the slowest axis */
	{
		uint64_t o = dc_rng_range(r, 0, 3);
		order = ep > 1 ? ep_orders[o] : orders[o];
	}
	if (ep > 1 && cp > 1 && pp > 1) /* the others leave cp after pp */
		order = orders[0];
	if (dc_rng_range(r, 0, 7) == 0)
		snprintf(mem_text, sizeof(mem_text), ", \"activation_bytes_per_token_per_layer\": %llu.5",
			 (unsigned long long)dc_rng_range(r, 1, 100000));
	snprintf(buf, len,
		 "{\"model\": {\"num_layers\": %llu, \"hidden_size\": %llu, \"num_attention_heads\": %llu,"
		 " \"ffn_hidden_size\": %llu, \"vocab_size\": %llu, \"seq_length\": %llu, \"mlp\": \"%s\","
		 " \"tie_word_embeddings\": %s%s},"
		 " \"cluster\": {\"num_nodes\": %llu, \"gpus_per_node\": %llu, \"gpu_memory\": \"%llu GiB\","
		 " \"intra_node\": {\"bandwidth\": \"300 GB/s\", \"latency\": \"5 us\"},"
		 " \"inter_node\": {\"bandwidth\": \"200 Gb/s\", \"latency\": \"10 us\"}},"
		 " \"parallel\": {%s\"tp\": %llu, \"pp\": %llu, \"order\": \"%s\", \"sharding\": \"%s\","
		 " \"reshard_after_forward\": %s, \"fsdp_unit\": \"%s\", \"sequence_parallel\": %s,"
		 " \"virtual_pipeline\": %llu},"
		 " \"training\": {\"micro_batch_size\": %llu, \"grad_accum_steps\": %llu, \"recompute\": \"%s\"},"
		 " \"memory\": {\"allocator_reserve\": %g%s}}",
		 (unsigned long long)layers, (unsigned long long)hidden, (unsigned long long)heads,
		 (unsigned long long)(hidden * dc_rng_range(r, 1, 4)), (unsigned long long)dc_rng_range(r, 100, 50000),
		 (unsigned long long)(128 * dc_rng_range(r, 1, 16)), dc_rng_range(r, 0, 1) ? "swiglu" : "gelu",
		 dc_rng_range(r, 0, 1) ? "true" : "false", moe_text, (unsigned long long)nodes,
		 (unsigned long long)gpn, (unsigned long long)dc_rng_range(r, 1, 96), extra, (unsigned long long)tp,
		 (unsigned long long)pp, order, sharding[dc_rng_range(r, 0, 3)],
		 dc_rng_range(r, 0, 1) ? "true" : "false", dc_rng_range(r, 0, 3) ? "layer" : "model",
		 sp ? "true" : "false", (unsigned long long)vp, (unsigned long long)dc_rng_range(r, 1, 4),
		 (unsigned long long)gas, recompute[dc_rng_range(r, 0, 2)], (double)dc_rng_range(r, 0, 10) / 100.0,
		 mem_text);
}

static void gen_load(struct dc_rng *r, struct dc_config *c, char *json, size_t len)
{
	struct dc_diag d;
	gen(r, json, len);
	dc_diag_init(&d);
	if (dc_config_load_buffer(json, strlen(json), "gen.json", NULL, 0, c, &d) != 0)
		ck_abort_msg("generated config rejected: %s\n%s", d.count ? d.entries[0].text : "?", json);
	dc_diag_release(&d);
}

/* Two ledgers are the same class when everything but the stage range
 * agrees (the rule dc_memory_compute's classes follow). */
static int same_ledger(const struct dc_mem_ledger *a, const struct dc_mem_ledger *b)
{
	struct dc_mem_ledger x = *a, y = *b;
	x.stage_first = x.stage_last = y.stage_first = y.stage_last = 0;
	return memcmp(&x, &y, sizeof(x)) == 0;
}

#define MAX_PP 16

/* Megatron-Core's rank generator (megatron/core/parallel_state.py at
 * d98e8a64, RankGenerator): axis k of `order` varies with stride the
 * product of the sizes before it. The decoder's sizes are tp, cp, 1 (ep),
 * dp, pp; the experts' etp, 1 (cp), ep, edp, pp (:886-895). */
static void megatron_coords(const enum dc_axis *order, const uint64_t *size, uint64_t r, uint64_t *c)
{
	uint64_t stride = 1;
	for (int i = 0; i < DC_AXIS_COUNT; i++) {
		c[order[i]] = (r / stride) % size[order[i]];
		stride *= size[order[i]];
	}
}

/* dc_layout_ep_placed against that generator over every order of the
 * five axes and small layouts: it says 1 exactly when the generator's
 * expert groups are the ones distcalc prices and its pipeline groups the
 * decoder's. distcalc's groups, as docs/formulas-systems.md states them:
 * carved out of dp, ep consecutive members of each dp group, the experts
 * split over the tp group, expert-dp the rest of the dp group; folded, a
 * stage's ranks as etp x ep x edp, etp the fastest. Pairs of ranks: in one
 * ep (etp, edp) group under the one rule iff under the other. */
START_TEST(test_ep_order_matches_megatron)
{
	static const uint64_t tps[] = {1, 2}, cps[] = {1, 2}, dps[] = {2, 4}, pps[] = {1, 2}, eps[] = {2, 4};
	enum dc_axis order[DC_AXIS_COUNT];
	struct dc_config c;
	uint64_t checked = 0, placed = 0;
	fixture_json(&c, "{\"model\": {\"num_layers\": 4, \"hidden_size\": 64, \"num_attention_heads\": 4,"
			 " \"vocab_size\": 128, \"seq_length\": 64, \"num_experts\": 8, \"experts_per_token\": 2},"
			 " \"cluster\": {\"num_nodes\": 1, \"gpus_per_node\": 8, \"gpu_memory\": \"80 GiB\","
			 " \"intra_node\": {\"bandwidth\": \"300 GB/s\"}, \"inter_node\": {\"bandwidth\": \"50 GB/s\"}}}");
	for (int perm = 0; perm < 120; perm++) {
		/* the perm-th ordering of the five axes (factorial number system) */
		enum dc_axis pool[DC_AXIS_COUNT] = {DC_AXIS_TP, DC_AXIS_CP, DC_AXIS_EP, DC_AXIS_DP, DC_AXIS_PP};
		int left = DC_AXIS_COUNT, q = perm;
		size_t len = 0;
		for (int i = 0; i < DC_AXIS_COUNT; i++) {
			int f = 1, k;
			for (int j = 2; j < left; j++)
				f *= j;
			k = q / f;
			q %= f;
			order[i] = pool[k];
			for (int j = k; j < left - 1; j++)
				pool[j] = pool[j + 1];
			left--;
			len += (size_t)snprintf(c.parallel.order_text + len, sizeof(c.parallel.order_text) - len, "%s%s",
						i ? "-" : "", dc_axis_name(order[i]));
		}
		memcpy(c.parallel.order, order, sizeof(order));
		for (size_t a = 0; a < 2; a++)
		for (size_t b = 0; b < 2; b++)
		for (size_t d = 0; d < 2; d++)
		for (size_t e = 0; e < 2; e++)
		for (size_t f = 0; f < 2; f++)
		for (int fold_etp = 0; fold_etp < 2; fold_etp++) {
			struct dc_layout lay;
			uint64_t tp = tps[a], cp = cps[b], dp = dps[d], pp = pps[e], ep = eps[f];
			uint64_t etp = fold_etp ? 1 : tp, world = tp * cp * dp * pp, stage = world / pp, edp;
			uint64_t dsz[DC_AXIS_COUNT], esz[DC_AXIS_COUNT];
			int same = 1, want;
			if ((tp * cp * dp) % (ep * etp))
				continue;
			edp = tp * cp * dp / (ep * etp);
			memset(&lay, 0, sizeof(lay));
			lay.tp = tp, lay.cp = cp, lay.dp = dp, lay.pp = pp, lay.ep = ep, lay.etp = etp;
			if (dc_layout_expert_error(&lay, 8, dc_layout_pp_outermost(&c, &lay)))
				continue; /* not a layout distcalc runs (folded without pp last) */
			dsz[DC_AXIS_TP] = tp, dsz[DC_AXIS_CP] = cp, dsz[DC_AXIS_EP] = 1, dsz[DC_AXIS_DP] = dp, dsz[DC_AXIS_PP] = pp;
			esz[DC_AXIS_TP] = etp, esz[DC_AXIS_CP] = 1, esz[DC_AXIS_EP] = ep, esz[DC_AXIS_DP] = edp, esz[DC_AXIS_PP] = pp;
			for (uint64_t r1 = 0; r1 < world && same; r1++)
				for (uint64_t r2 = 0; r2 < world && same; r2++) {
					uint64_t d1[DC_AXIS_COUNT], d2[DC_AXIS_COUNT], e1[DC_AXIS_COUNT], e2[DC_AXIS_COUNT];
					int meg[DC_AXIS_COUNT], dec_pp = 1, ours[DC_AXIS_COUNT];
					megatron_coords(order, dsz, r1, d1);
					megatron_coords(order, dsz, r2, d2);
					megatron_coords(order, esz, r1, e1);
					megatron_coords(order, esz, r2, e2);
					/* meg[A]: r1 and r2 in one expert group along A */
					for (int A = 0; A < DC_AXIS_COUNT; A++) {
						meg[A] = 1;
						for (int x = 0; x < DC_AXIS_COUNT; x++)
							if (x != A)
								meg[A] &= e1[x] == e2[x];
					}
					for (int x = 0; x < DC_AXIS_COUNT; x++)
						if (x != DC_AXIS_PP)
							dec_pp &= d1[x] == d2[x];
					if (dc_layout_expert_folded(&lay)) {
						/* local = t + etp (e + ep x j) */
						uint64_t l1 = r1 % stage, l2 = r2 % stage, s12 = r1 / stage == r2 / stage;
						uint64_t t1 = l1 % etp, t2 = l2 % etp, q1 = l1 / etp % ep, q2 = l2 / etp % ep;
						uint64_t j1 = l1 / (etp * ep), j2 = l2 / (etp * ep);
						ours[DC_AXIS_EP] = s12 && t1 == t2 && j1 == j2;
						ours[DC_AXIS_TP] = s12 && q1 == q2 && j1 == j2;
						ours[DC_AXIS_DP] = s12 && t1 == t2 && q1 == q2;
					} else {
						int rest = d1[DC_AXIS_CP] == d2[DC_AXIS_CP] && d1[DC_AXIS_PP] == d2[DC_AXIS_PP];
						ours[DC_AXIS_EP] = rest && d1[DC_AXIS_TP] == d2[DC_AXIS_TP] &&
								   d1[DC_AXIS_DP] / ep == d2[DC_AXIS_DP] / ep;
						ours[DC_AXIS_TP] = rest && d1[DC_AXIS_DP] == d2[DC_AXIS_DP];
						ours[DC_AXIS_DP] = rest && d1[DC_AXIS_TP] == d2[DC_AXIS_TP] &&
								   d1[DC_AXIS_DP] % ep == d2[DC_AXIS_DP] % ep;
					}
					same = meg[DC_AXIS_EP] == ours[DC_AXIS_EP] && meg[DC_AXIS_TP] == ours[DC_AXIS_TP] &&
					       meg[DC_AXIS_DP] == ours[DC_AXIS_DP] && (pp < 2 || meg[DC_AXIS_PP] == dec_pp);
				}
			want = same;
			ck_assert_msg(dc_layout_ep_placed(&c, &lay) == want, "order %s tp %llu cp %llu dp %llu pp %llu ep %llu etp %llu: "
				      "placed %d, the generator's groups %s", c.parallel.order_text, (unsigned long long)tp,
				      (unsigned long long)cp, (unsigned long long)dp, (unsigned long long)pp,
				      (unsigned long long)ep, (unsigned long long)etp, dc_layout_ep_placed(&c, &lay),
				      want ? "match" : "differ");
			checked++;
			placed += (uint64_t)want;
		}
	}
	/* both answers occur many times */
	ck_assert_uint_gt(placed, 100);
	ck_assert_uint_gt(checked - placed, 100);
}
END_TEST

START_TEST(test_classes_match_brute_force)
{
	struct dc_rng rng;
	uint64_t n = env_u64("DC_PROPERTY_COUNT", 3000), multi = 0, flat = 0, uneven = 0;
	char json[4096];

	dc_rng_seed(&rng, env_u64("DC_PROPERTY_SEED", 11));
	for (uint64_t i = 0; i < n; i++) {
		struct dc_config c;
		struct dc_plan p;
		struct dc_mem_ledger cls[MAX_PP], l;
		struct dc_memory_result m;
		struct dc_stage_params sp, best;
		uint64_t ncls = 0, most = 0, best_stage = 0, pp;
		const char *err = NULL;

		gen_load(&rng, &c, json, sizeof(json));
		/* past the loader's rule (microbatches a multiple of pp under
		 * interleaving), where the schedule's cap m v bites first */
		if (c.parallel.virtual_pipeline > 1 && dc_rng_range(&rng, 0, 1))
			c.training.grad_accum_steps = dc_rng_range(&rng, 1, 2 * c.parallel.pp);
		fixture_plan(&c, &p);
		pp = p.layout.pp;
		ck_assert_uint_le(pp, MAX_PP);
		/* brute force: every stage's ledger, consecutive identical
		 * ones merged, the first with the highest peak */
		{
			/* the stages' layers: the list's entries, adding up to L,
			 * each stage starting where the one before ended, its dense
			 * layers those below dense_layers and, MoE every n-th
			 * layer, the others n does not divide (v = 1) */
			uint64_t start = 0;
			for (uint64_t s = 0; s < pp; s++) {
				uint64_t k = dc_plan_stage_layers(&p, s);
				if (c.parallel.pipeline_layers_n)
					ck_assert_uint_eq(k, c.parallel.pipeline_layers[s]);
				if (p.v == 1) {
					uint64_t dense = 0;
					ck_assert_uint_eq(dc_plan_stage_first_layer(&p, s), start);
					for (uint64_t x = start; x < start + k; x++)
						dense += !c.model.num_experts || c.model.params_explicit ||
							 layer_dense(c.model.dense_layers, c.model.moe_layer_interval, x);
					ck_assert_msg(dc_plan_stage_dense_layers(&p, s) == dense, "stage %llu dense\n%s",
						      (unsigned long long)s, json);
				}
				start += k;
			}
			ck_assert_uint_eq(start, c.model.num_layers);
			uneven += p.runs.n > 1;
		}
		for (uint64_t s = 0; s < pp; s++) {
			ck_assert_msg(dc_memory_stage(&p, s, &l, &err) == 0, "%s\n%s", err, json);
			if (ncls > 0 && same_ledger(&cls[ncls - 1], &l)) {
				cls[ncls - 1].stage_last = s;
			} else {
				cls[ncls++] = l;
			}
			/* and the stage holding the most parameters */
			ck_assert_int_eq(dc_stage_params_compute(&p, s, &sp), 0);
			if (s == 0 || sp.total > best.total) {
				best = sp;
				best_stage = s;
			}
		}
		for (uint64_t k = 1; k < ncls; k++)
			if (cls[k].peak_bytes > cls[most].peak_bytes)
				most = k;
		/* the closed form */
		ck_assert_int_eq(dc_memory_compute(&p, &m, &err), 0);
		ck_assert_msg(m.nclasses == ncls && p.nclasses == ncls, "classes %llu, brute force %llu\n%s",
			      (unsigned long long)m.nclasses, (unsigned long long)ncls, json);
		ck_assert_msg(m.most_loaded == most, "most loaded %llu, brute force %llu\n%s",
			      (unsigned long long)m.most_loaded, (unsigned long long)most, json);
		ck_assert_msg(memcmp(&m.top, &cls[most], sizeof(m.top)) == 0, "top ledger differs\n%s", json);
		for (uint64_t k = 0; k < ncls; k++) {
			ck_assert_int_eq(dc_memory_class_at(&p, &m, k, &l), 0);
			ck_assert_msg(memcmp(&l, &cls[k], sizeof(l)) == 0, "class %llu differs\n%s",
				      (unsigned long long)k, json);
			for (uint64_t s = cls[k].stage_first; s <= cls[k].stage_last; s++)
				ck_assert_uint_eq(dc_plan_stage_class(&p, s), k);
		}
		ck_assert_int_eq(dc_memory_class_at(&p, &m, ncls, &l), -1);
		/* segments: identical parameters within, the first stage of
		 * each a change from the one before */
		ck_assert_uint_le(p.nsegments, DC_PLAN_MAX_SEGMENTS);
		ck_assert_uint_eq(p.segment_first[0], 0);
		ck_assert_uint_eq(p.segment_first[p.nsegments], pp);
		for (uint64_t k = 0; k < p.nsegments; k++) {
			struct dc_stage_params a, b;
			ck_assert_uint_lt(p.segment_first[k], p.segment_first[k + 1]);
			ck_assert_int_eq(dc_stage_params_compute(&p, p.segment_first[k], &a), 0);
			for (uint64_t s = p.segment_first[k] + 1; s < p.segment_first[k + 1]; s++) {
				ck_assert_int_eq(dc_stage_params_compute(&p, s, &b), 0);
				ck_assert_msg(memcmp(&a, &b, sizeof(a)) == 0 && s != pp - 1,
					      "stage %llu differs from its segment\n%s", (unsigned long long)s, json);
			}
		}
		ck_assert_uint_eq(p.most_stage, best_stage);
		ck_assert_int_eq(memcmp(&p.most, &best, sizeof(best)), 0);
		multi += ncls > 1 && ncls < pp;
		flat += p.flat_last > 0;
	}
	/* the generator reaches merged classes and flat regions */
	ck_assert_uint_gt(multi, n / 20);
	ck_assert_uint_gt(flat, n / 20);
	ck_assert_uint_gt(uneven, n / 20); /* and uneven stages */
}
END_TEST

/* ---- the registry ---- */

START_TEST(test_registry_order)
{
	/* every row needs only rows before it, so table order is a
	 * dependency order */
	for (int e = 0; e < DC_EST_COUNT; e++) {
		ck_assert_ptr_nonnull(dc_estimators[e].name);
		ck_assert(dc_estimators[e].compute != NULL);
		ck_assert_uint_eq(dc_estimators[e].needs & ~(DC_EST_BIT(e) - 1u), 0);
	}
	ck_assert_str_eq(dc_estimators[DC_EST_MEMORY].name, "memory");
	ck_assert_str_eq(dc_estimators[DC_EST_STRATEGIES].name, "strategies");
}
END_TEST

START_TEST(test_estimate_needs_and_results)
{
	/* strategies alone pulls in batch, comm and memory, nothing else; the
	 * results equal the module functions' own */
	struct dc_config c;
	struct dc_plan p;
	static struct dc_results r;
	struct dc_batch b;
	struct dc_memory_result m;
	static struct dc_comm cm;
	const char *err = NULL;
	unsigned long allocs;

	fixture_systems(&c);
	fixture_plan(&c, &p);
	ck_assert_int_eq(dc_estimate(&p, DC_EST_BIT(DC_EST_STRATEGIES), &r), 0);
	ck_assert_uint_eq(r.done, DC_EST_BIT(DC_EST_STRATEGIES) | DC_EST_BIT(DC_EST_BATCH) |
					  DC_EST_BIT(DC_EST_COMM) | DC_EST_BIT(DC_EST_MEMORY));
	ck_assert_int_eq(dc_batch_compute(&p, &b, &err), 0);
	ck_assert_int_eq(dc_memory_compute(&p, &m, &err), 0);
	ck_assert_int_eq(dc_comm_compute(&p, &cm, &err), 0);
	ck_assert_int_eq(memcmp(&r.batch, &b, sizeof(b)), 0);
	ck_assert_int_eq(memcmp(&r.memory, &m, sizeof(m)), 0);
	ck_assert_uint_eq(r.comm.bytes_per_rank, cm.bytes_per_rank);
	/* the course's figures: tokens per step 16 x 4096, the peak of
	 * check_memory's hand-worked ledger */
	ck_assert_uint_eq(r.strategies.v[DC_VARIANT_CONFIGURED].tokens_per_step, 65536);
	ck_assert_uint_eq(r.strategies.v[DC_VARIANT_CONFIGURED].peak_bytes, 37884542976ull);
	ck_assert_uint_eq(r.strategies.v[DC_VARIANT_DP].comm_bytes_per_rank, 23584454656ull);
	/* everything, without allocating */
	allocs = dc_alloc_count();
	ck_assert_int_eq(dc_plan_derive(&c, &p), 0);
	ck_assert_int_eq(dc_estimate(&p, DC_EST_ALL, &r), 0);
	ck_assert_uint_eq(dc_alloc_count(), allocs);
	ck_assert_uint_eq(r.done, DC_EST_ALL);
	ck_assert_ptr_null(r.error);
	ck_assert_uint_eq(r.model.terms.total, 6738415616ull);
	ck_assert_uint_eq(r.model.most.total, 1684803584ull);
	ck_assert_uint_eq(r.ring.ranks, 8);
	ck_assert_uint_eq(r.ring.msg_bytes, 3369607168ull);
	ck_assert_uint_eq(r.flops.tokens_per_step, 65536);
	ck_assert_uint_eq(r.memory.nclasses, 1);
}
END_TEST

START_TEST(test_estimate_error_text)
{
	/* a failing estimator leaves its static text, which the runner
	 * prefixes with the config name */
	struct dc_config c;
	struct dc_plan p;
	static struct dc_results r;

	fixture_systems(&c);
	c.training.grad_accum_steps = UINT64_MAX / 2;
	fixture_plan(&c, &p);
	ck_assert_int_eq(dc_estimate(&p, DC_EST_ALL, &r), -1);
	ck_assert_str_eq(r.error, "'training.micro_batch_size' x 'training.grad_accum_steps' x 'parallel.dp' x 'model.seq_length': tokens per step overflow 64 bits");
	ck_assert_uint_eq(r.done & DC_EST_BIT(DC_EST_BATCH), 0);
}
END_TEST

/* A plan derived from a search's plan borrows its collective-price memo
 * (net.h), which answers for the network it was bound to. Where the
 * derived plan's network is derived anew (another tp x dp, so another
 * topology), the memo goes with it only when that network is the one the
 * memo holds: bound to a network of other content (NICs at half the
 * rate, as a what-if or --calibrate would make), it is dropped, and the
 * plan prices its collectives directly. */
START_TEST(test_derive_from_memo_network)
{
	static struct dc_config c;
	static struct dc_plan base, p;
	static struct dc_net_memo memo;
	struct dc_net other;
	struct dc_layout lay;

	fixture_systems(&c);
	fixture_plan(&c, &base);
	other = base.net;
	other.nic_bw_bytes_per_s = base.net.nic_bw_bytes_per_s / 2;
	lay = base.layout;
	lay.tp = 2; /* systems.json: tp 4 x dp 2 on 8 GPUs; now tp 2 x dp 4 */
	lay.dp = 4;
	base.net_memo = &memo;

	/* the memo bound to the plan's own network: kept */
	memset(&memo, 0, sizeof(memo));
	dc_net_memo_bind(&memo, &base.net);
	ck_assert_int_eq(dc_plan_derive_from(&base, &lay, &p), 0);
	ck_assert_uint_eq(p.topo.degree[DC_AXIS_TP], 2);
	ck_assert_int_eq(memcmp(&p.net, &base.net, sizeof(p.net)), 0);
	ck_assert_ptr_eq(p.net_memo, &memo);

	/* bound to another network: dropped */
	dc_net_memo_bind(&memo, &other);
	ck_assert_int_eq(dc_plan_derive_from(&base, &lay, &p), 0);
	ck_assert_ptr_null(p.net_memo);
	base.net_memo = NULL;
}
END_TEST

/* dc_plan_reshard on systems.json (tp 4 x dp 2, DDP): to FSDP it takes
 * the plan as it is with the new sharding (1), and the plan derives the
 * FSDP layout's memory and collectives as dc_plan_derive_from's does
 * (the sharding is all that differs: 5 axes, 8 ranks, tp 4); another tp,
 * another etp or another micro batch is not a resharding (0, p as it
 * was); neither is a plan that failed. */
START_TEST(test_reshard_changes_the_sharding_alone)
{
	static struct dc_config c;
	static struct dc_plan base, p, q;
	static struct dc_results a, b;
	struct dc_layout lay;

	fixture_systems(&c);
	fixture_plan(&c, &base);
	p = base;
	lay = base.layout;
	lay.sharding = DC_SHARD_FSDP;
	ck_assert_int_eq(dc_plan_reshard(&p, &lay), 1);
	ck_assert_int_eq(p.layout.sharding, DC_SHARD_FSDP);
	ck_assert_uint_eq(p.world, 8);
	ck_assert_uint_eq(p.topo.degree[DC_AXIS_TP], 4);
	ck_assert_int_eq(dc_plan_derive_from(&base, &lay, &q), 0);
	ck_assert_int_eq(dc_estimate(&p, DC_EST_BIT(DC_EST_MEMORY) | DC_EST_BIT(DC_EST_COMM), &a), 0);
	ck_assert_int_eq(dc_estimate(&q, DC_EST_BIT(DC_EST_MEMORY) | DC_EST_BIT(DC_EST_COMM), &b), 0);
	ck_assert_uint_eq(a.memory.top.peak_bytes, b.memory.top.peak_bytes);
	ck_assert_uint_eq(a.comm.bytes_per_rank, b.comm.bytes_per_rank);
	ck_assert(a.comm.time_s == b.comm.time_s);
	ck_assert(a.comm.s[DC_STRAT_FSDP].in_play && !a.comm.s[DC_STRAT_DP].in_play);

	lay = p.layout;
	lay.tp = 2;
	lay.dp = 4;
	ck_assert_int_eq(dc_plan_reshard(&p, &lay), 0);
	ck_assert_uint_eq(p.layout.tp, 4);
	lay = p.layout;
	lay.etp = 2;
	ck_assert_int_eq(dc_plan_reshard(&p, &lay), 0);
	lay = p.layout;
	lay.micro_batch_size = 2;
	lay.sharding = DC_SHARD_NONE;
	ck_assert_int_eq(dc_plan_reshard(&p, &lay), 0);
	ck_assert_int_eq(p.layout.sharding, DC_SHARD_FSDP);
	p.error = "failed";
	lay = p.layout;
	lay.sharding = DC_SHARD_ZERO1;
	ck_assert_int_eq(dc_plan_reshard(&p, &lay), 0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("plan");
	TCase *tc = tcase_create("core");
	SRunner *sr;
	int failed;

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_derive_systems);
	tcase_add_test(tc, test_derive_mixtral_ep);
	tcase_add_test(tc, test_derive_copies_only_the_sharding);
	tcase_add_test(tc, test_derive_expert_folding);
	tcase_add_test(tc, test_derive_expert_dp_group_ep_1);
	tcase_add_test(tc, test_derive_groups_across_nvlink_domains);
	tcase_add_test(tc, test_derive_dp_over_short_domains);
	tcase_add_test(tc, test_pp_hops_by_hand);
	tcase_add_test(tc, test_uneven_interleaved_61_layers);
	tcase_add_test(tc, test_uneven_interleaved_dense_segments);
	tcase_add_test(tc, test_uneven_stages_recompute_share);
	tcase_add_test(tc, test_derive_layout_override);
	tcase_add_test(tc, test_context_parallel_layout);
	tcase_add_test(tc, test_two_axis_groups);
	tcase_add_test(tc, test_explicit_params);
	tcase_add_test(tc, test_leaf_crossing_group_priced);
	tcase_add_test(tc, test_leaf_crossing_tie_prices_the_crossing_group);
	tcase_add_test(tc, test_leaf_crossing_groups_found_everywhere);
	tcase_add_test(tc, test_leaf_crossing_lattices_found_everywhere);
	tcase_add_test(tc, test_dense_layers_closed_form);
	tcase_add_test(tc, test_moe_interval_brute_force);
	tcase_add_test(tc, test_moe_interval_rules);
	tcase_add_test(tc, test_classes_match_brute_force);
	tcase_add_test(tc, test_ep_order_matches_megatron);
	tcase_add_test(tc, test_registry_order);
	tcase_add_test(tc, test_estimate_needs_and_results);
	tcase_add_test(tc, test_estimate_error_text);
	tcase_add_test(tc, test_derive_from_memo_network);
	tcase_add_test(tc, test_reshard_changes_the_sharding_alone);
	tcase_add_test(tc, test_stages_counted_hint);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
