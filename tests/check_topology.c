/* check_topology.c - rank layout, groups, links, the TP crossing warning and
 * batch accounting, against the course's hand-drawn example (seed README
 * section 3) and hand-computed layouts. */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "distcalc/batch.h"
#include "distcalc/config.h"
#include "distcalc/diag.h"
#include "distcalc/experiment.h"
#include "distcalc/plan.h"
#include "distcalc/report.h"
#include "distcalc/topology.h"

/* The course topology: 2 nodes x 4 GPUs, TP = 4, DP = 2, PP = 1, with the
 * given order (first axis varies fastest). */
static void course(struct dc_config *c, const enum dc_axis order[DC_AXIS_COUNT], const char *text)
{
	memset(c, 0, sizeof(*c));
	c->cluster.num_nodes = 2;
	c->cluster.gpus_per_node = 4;
	c->world_size = 8;
	c->parallel.tp = 4;
	c->parallel.dp = 2;
	c->parallel.pp = 1;
	memcpy(c->parallel.order, order, sizeof(c->parallel.order));
	strcpy(c->parallel.order_text, text);
	c->cluster.intra_node.bw_bytes_per_s = 300e9;
	c->cluster.inter_node.bw_bytes_per_s = 50e9;
	c->training.micro_batch_size = 1;
	c->training.grad_accum_steps = 8;
	c->model.seq_length = 4096;
}

static const enum dc_axis megatron[DC_AXIS_COUNT] = {DC_AXIS_TP, DC_AXIS_CP, DC_AXIS_EP, DC_AXIS_DP,
						      DC_AXIS_PP};
static const enum dc_axis dp_first[DC_AXIS_COUNT] = {DC_AXIS_DP, DC_AXIS_TP, DC_AXIS_CP, DC_AXIS_EP,
						      DC_AXIS_PP};

static void assert_group(const struct dc_topology *t, enum dc_axis a, uint64_t index,
			 const uint64_t *ranks, uint64_t n)
{
	struct dc_group g;
	dc_topology_group(t, a, index, &g);
	ck_assert_uint_eq(g.size, n);
	for (uint64_t k = 0; k < n; k++)
		ck_assert_uint_eq(dc_group_rank(&g, k), ranks[k]);
}

START_TEST(test_course_groups)
{
	/* seed README section 3: TP [0,1,2,3] [4,5,6,7]; DP [0,4] [1,5] [2,6] [3,7] */
	static const uint64_t tp0[] = {0, 1, 2, 3}, tp1[] = {4, 5, 6, 7};
	static const uint64_t dp[4][2] = {{0, 4}, {1, 5}, {2, 6}, {3, 7}};
	struct dc_config c;
	struct dc_topology t;
	struct dc_group g;

	course(&c, megatron, "tp-cp-ep-dp-pp");
	dc_topology_init(&c, &t);
	ck_assert_uint_eq(dc_topology_group_count(&t, DC_AXIS_TP), 2);
	ck_assert_uint_eq(dc_topology_group_count(&t, DC_AXIS_DP), 4);
	ck_assert_uint_eq(dc_topology_group_count(&t, DC_AXIS_PP), 8);
	assert_group(&t, DC_AXIS_TP, 0, tp0, 4);
	assert_group(&t, DC_AXIS_TP, 1, tp1, 4);
	for (uint64_t i = 0; i < 4; i++)
		assert_group(&t, DC_AXIS_DP, i, dp[i], 2);
	/* TP stays inside a node, DP crosses */
	dc_topology_group(&t, DC_AXIS_TP, 1, &g);
	ck_assert_int_eq(dc_group_link(&t, &g), DC_LINK_INTRA);
	ck_assert_uint_eq(dc_group_nodes(&t, &g), 1);
	dc_topology_group(&t, DC_AXIS_DP, 3, &g);
	ck_assert_int_eq(dc_group_link(&t, &g), DC_LINK_INTER);
	ck_assert_uint_eq(dc_group_nodes(&t, &g), 2);
	ck_assert_uint_eq(dc_topology_crossing_groups(&t, DC_AXIS_TP), 0);
	ck_assert_uint_eq(dc_topology_crossing_groups(&t, DC_AXIS_DP), 4);
}
END_TEST

START_TEST(test_coords_and_nodes)
{
	struct dc_config c;
	struct dc_topology t;
	uint64_t co[DC_AXIS_COUNT];

	course(&c, megatron, "tp-cp-ep-dp-pp");
	dc_topology_init(&c, &t);
	/* rank 6 = tp 2 + 4 x dp 1, on node 6 / 4 = 1 */
	dc_topology_coords(&t, 6, co);
	ck_assert_uint_eq(co[DC_AXIS_TP], 2);
	ck_assert_uint_eq(co[DC_AXIS_DP], 1);
	ck_assert_uint_eq(co[DC_AXIS_PP], 0);
	ck_assert_uint_eq(co[DC_AXIS_CP], 0);
	ck_assert_uint_eq(dc_topology_node(&t, 6), 1);
	ck_assert_uint_eq(dc_topology_node(&t, 3), 0);
}
END_TEST

START_TEST(test_dp_fastest_crosses_nodes)
{
	/* dp fastest: rank = dp + 2 tp, so TP groups are [0,2,4,6] and [1,3,5,7]
	 * (both span the two nodes) and DP groups [0,1] [2,3] [4,5] [6,7] */
	static const uint64_t tp0[] = {0, 2, 4, 6}, tp1[] = {1, 3, 5, 7}, dp2[] = {4, 5};
	struct dc_config c;
	struct dc_topology t;

	course(&c, dp_first, "dp-tp-cp-ep-pp");
	dc_topology_init(&c, &t);
	assert_group(&t, DC_AXIS_TP, 0, tp0, 4);
	assert_group(&t, DC_AXIS_TP, 1, tp1, 4);
	assert_group(&t, DC_AXIS_DP, 2, dp2, 2);
	ck_assert_uint_eq(dc_topology_crossing_groups(&t, DC_AXIS_TP), 2);
	ck_assert_uint_eq(dc_topology_crossing_groups(&t, DC_AXIS_DP), 0);
}
END_TEST

/* Runs the registered topology estimator and returns how many warnings it
 * recorded; `text` gets the first one. */
static size_t topology_warnings(const struct dc_config *c, char *text, size_t len)
{
	struct dc_run_info info = {"systems", "test.json", 7};
	struct dc_diag d;
	struct dc_report *r = dc_report_new();
	size_t n;

	dc_diag_init(&d);
	ck_assert_ptr_nonnull(r);
	ck_assert_int_eq(dc_estimator_topology.run(c, &info, r, &d), 0);
	ck_assert(!dc_report_failed(r));
	n = dc_diag_warnings(&d);
	text[0] = '\0';
	if (d.count)
		snprintf(text, len, "%s", d.entries[0].text);
	dc_report_free(r);
	dc_diag_release(&d);
	return n;
}

START_TEST(test_crossing_warning)
{
	struct dc_config c;
	char text[512];

	course(&c, megatron, "tp-cp-ep-dp-pp");
	ck_assert_uint_eq(topology_warnings(&c, text, sizeof(text)), 0);
	course(&c, dp_first, "dp-tp-cp-ep-pp");
	ck_assert_uint_eq(topology_warnings(&c, text, sizeof(text)), 1);
	ck_assert_ptr_nonnull(strstr(text, "'parallel.order' \"dp-tp-cp-ep-pp\""));
	ck_assert_ptr_nonnull(strstr(text, "2 of 2 tensor-parallel groups span nodes"));
	ck_assert_ptr_nonnull(strstr(text, "0, 2, 4, 6"));
	/* tp larger than a node: unavoidable, said differently */
	course(&c, megatron, "tp-cp-ep-dp-pp");
	c.cluster.num_nodes = 4;
	c.cluster.gpus_per_node = 2;
	ck_assert_uint_eq(topology_warnings(&c, text, sizeof(text)), 1);
	ck_assert_ptr_nonnull(strstr(text, "'parallel.tp' (4) is larger than 'cluster.gpus_per_node' (2)"));
}
END_TEST

START_TEST(test_group_nodes_stride_below_node)
{
	/* 6 GPUs per node, tp = 4 on 2 nodes (world 12, dp 3): TP group 1 is
	 * ranks 4-7, on nodes 0 and 1; group 0 (0-3) and 2 (8-11) stay inside */
	struct dc_config c;
	struct dc_topology t;
	struct dc_group g;

	course(&c, megatron, "tp-cp-ep-dp-pp");
	c.cluster.gpus_per_node = 6;
	c.world_size = 12;
	c.parallel.dp = 3;
	dc_topology_init(&c, &t);
	dc_topology_group(&t, DC_AXIS_TP, 1, &g);
	ck_assert_uint_eq(g.first, 4);
	ck_assert_uint_eq(dc_group_nodes(&t, &g), 2);
	ck_assert_uint_eq(dc_topology_crossing_groups(&t, DC_AXIS_TP), 1);
}
END_TEST

START_TEST(test_large_world_is_cheap)
{
	/* 4096 nodes x 8 GPUs, tp 8, pp 16, dp 256: the last DP group starts at
	 * the last rank of stage 0's block: tp 7 of stage 15, i.e. rank
	 * 7 + 15 x (8 x 256) = 30727, and strides by 8 */
	struct dc_config c;
	struct dc_topology t;
	struct dc_group g;

	course(&c, megatron, "tp-cp-ep-dp-pp");
	c.cluster.num_nodes = 4096;
	c.cluster.gpus_per_node = 8;
	c.world_size = 32768;
	c.parallel.tp = 8;
	c.parallel.pp = 16;
	c.parallel.dp = 256;
	dc_topology_init(&c, &t);
	ck_assert_uint_eq(dc_topology_group_count(&t, DC_AXIS_DP), 128);
	dc_topology_group(&t, DC_AXIS_DP, 127, &g);
	ck_assert_uint_eq(g.first, 30727);
	ck_assert_uint_eq(g.stride, 8);
	ck_assert_uint_eq(dc_group_nodes(&t, &g), 256);
	ck_assert_uint_eq(dc_topology_crossing_groups(&t, DC_AXIS_TP), 0);
	ck_assert_uint_eq(dc_topology_crossing_groups(&t, DC_AXIS_PP), 2048);
}
END_TEST

START_TEST(test_group_text)
{
	struct dc_group g = {DC_AXIS_DP, 0, 3, 8, 6};
	char buf[96];
	dc_group_text(&g, buf, sizeof(buf));
	ck_assert_str_eq(buf, "3, 11, ..., 43 (6 ranks, every 8)");
	g.stride = 1;
	dc_group_text(&g, buf, sizeof(buf));
	ck_assert_str_eq(buf, "3-8");
	g.stride = 4;
	g.size = 2;
	dc_group_text(&g, buf, sizeof(buf));
	ck_assert_str_eq(buf, "3, 7");
}
END_TEST

START_TEST(test_global_batch)
{
	/* seed README section 3: micro 1 x accum 8 x dp 2 = 16 samples, not
	 * x 8 GPUs; 16 x 4096 = 65536 tokens; 4 GPUs (tp 4) share a sample */
	struct dc_config c;
	struct dc_plan p;
	struct dc_batch b;
	const char *err = NULL;

	course(&c, megatron, "tp-cp-ep-dp-pp");
	ck_assert_int_eq(dc_plan_derive(&c, &p), 0);
	ck_assert_int_eq(dc_batch_compute(&p, &b, &err), 0);
	ck_assert_uint_eq(b.global_batch_size, 16);
	ck_assert_uint_eq(b.tokens_per_step, 65536);
	ck_assert_uint_eq(b.gpus_per_sample, 4);
	/* Korthikanti Table 3, 175B: micro 1, tp 8, pp 8, 64 GPUs, no DP
	 * (dp 1), global batch 64 means 64 accumulation steps */
	c.parallel.tp = 8;
	c.parallel.pp = 8;
	c.parallel.dp = 1;
	c.training.grad_accum_steps = 64;
	c.model.seq_length = 2048;
	ck_assert_int_eq(dc_plan_derive(&c, &p), 0);
	ck_assert_int_eq(dc_batch_compute(&p, &b, &err), 0);
	ck_assert_uint_eq(b.global_batch_size, 64);
	ck_assert_uint_eq(b.tokens_per_step, 131072);
	ck_assert_uint_eq(b.gpus_per_sample, 64);
	/* overflow is an error naming the keys */
	c.training.micro_batch_size = UINT64_MAX / 2;
	ck_assert(dc_plan_derive(&c, &p) != 0 || dc_batch_compute(&p, &b, &err) != 0);
	ck_assert_ptr_nonnull(strstr(err ? err : p.error, "'training.micro_batch_size'"));
}
END_TEST

/* The rank list of group `i` in groups.<key> of a rendered report. */
static void group_text(const cJSON *groups, const char *key, int i, char *out, size_t len)
{
	const cJSON *g = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(groups, key), i);
	char *t = g ? cJSON_PrintUnformatted(g) : NULL;
	snprintf(out, len, "%s", t ? t : "(none)");
	cJSON_free(t);
}

START_TEST(test_expert_groups)
{
	/* Mixtral layout of configs/mixtral-8x7b-ep.json at 8 nodes: tp 2,
	 * pp 4, dp 8, ep 4. DP group 0 holds the tp-0, pp-0 ranks 0, 2, ...,
	 * 14 (stride tp = 2). Megatron-Core spreads the experts over ep = 4
	 * consecutive members: [0,2,4,6] and [8,10,12,14]; each expert shard is
	 * replicated over every 4th member: [0,8], [2,10], [4,12], [6,14]. */
	struct dc_config c;
	struct dc_diag d;
	struct dc_report *r;
	struct dc_buf out;
	struct dc_render_opts ro = {0};
	struct dc_run_info info = {"systems", "t.json", 7};
	const struct dc_override sets[] = {{"cluster.num_nodes=8"}, {"parallel.dp=8"}};
	char path[512], text[128];
	cJSON *root, *groups;

	snprintf(path, sizeof(path), "%s/configs/mixtral-8x7b-ep.json", DC_SOURCE_DIR);
	dc_diag_init(&d);
	ck_assert_int_eq(dc_config_load_file(path, sets, 2, &c, &d), 0);
	r = dc_experiment_run(dc_experiment_find("systems"), &c, &info, &d);
	ck_assert_ptr_nonnull(r);
	dc_buf_init(&out);
	ck_assert_int_eq(dc_report_render_json(r, &ro, &out), 0);
	root = cJSON_Parse(out.data);
	groups = cJSON_GetObjectItemCaseSensitive(root, "groups");
	ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(groups, "ep")), 16);
	ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(groups, "edp")), 32);
	group_text(groups, "ep", 0, text, sizeof(text));
	ck_assert_str_eq(text, "[0,2,4,6]");
	group_text(groups, "ep", 1, text, sizeof(text));
	ck_assert_str_eq(text, "[8,10,12,14]");
	group_text(groups, "edp", 0, text, sizeof(text));
	ck_assert_str_eq(text, "[0,8]");
	group_text(groups, "edp", 3, text, sizeof(text));
	ck_assert_str_eq(text, "[6,14]");
	cJSON_Delete(root);
	dc_buf_release(&out);
	dc_report_free(r);
	dc_diag_release(&d);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("topology");
	TCase *tc = tcase_create("core");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, test_course_groups);
	tcase_add_test(tc, test_coords_and_nodes);
	tcase_add_test(tc, test_dp_fastest_crosses_nodes);
	tcase_add_test(tc, test_crossing_warning);
	tcase_add_test(tc, test_group_nodes_stride_below_node);
	tcase_add_test(tc, test_large_world_is_cheap);
	tcase_add_test(tc, test_group_text);
	tcase_add_test(tc, test_global_batch);
	tcase_add_test(tc, test_expert_groups);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
