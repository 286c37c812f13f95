/* check_topology.c - rank layout, groups, links, the TP crossing warning and
 * batch accounting, against the course's hand-drawn example (seed README
 * section 3) and hand-computed layouts; the closed forms for crossing groups
 * against brute force over every group and member of seeded layouts. */
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
#include "distcalc/rng.h"
#include "distcalc/section.h"
#include "distcalc/topology.h"
#include "distcalc/util.h"

#include "fixtures.h"

/* ck_assert records every success through the fork-mode pipe, which
 * dominates loops over millions of checks; these call Check only on failure. */
#define HOLDS_EQ(a, b)                                                                               \
	do {                                                                                         \
		uint64_t a_ = (a), b_ = (b);                                                         \
		if (a_ != b_)                                                                        \
			ck_abort_msg("%s:%d: %s == %llu, %s == %llu (%s)", __FILE__, __LINE__, #a,       \
				     (unsigned long long)a_, #b, (unsigned long long)b_, layout_text);     \
	} while (0)

/* The layout under test, for failure messages. */
static char layout_text[256];

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
	/* tp blocks of 4 tile the nodes of 4; dp blocks of 8 do not */
	ck_assert(!dc_topology_axis_crosses(&t, DC_AXIS_TP));
	ck_assert(dc_topology_axis_crosses(&t, DC_AXIS_DP));
	ck_assert(!dc_topology_axis_crosses(&t, DC_AXIS_PP));
	ck_assert_uint_eq(dc_topology_first_crossing_group(&t, DC_AXIS_TP), 2);
	ck_assert_uint_eq(dc_topology_first_crossing_group(&t, DC_AXIS_DP), 0);
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
	ck_assert_uint_eq(dc_topology_first_crossing_group(&t, DC_AXIS_TP), 0);
	ck_assert_uint_eq(dc_topology_first_crossing_group(&t, DC_AXIS_DP), 4);
}
END_TEST

/* Runs the topology section's warning hook and returns how many warnings
 * it recorded; `text` gets the first one. */
static size_t topology_warnings(const struct dc_config *c, char *text, size_t len)
{
	struct dc_plan p;
	struct dc_diag d;
	size_t n;

	dc_diag_init(&d);
	ck_assert_int_eq(dc_plan_derive(c, &p), 0);
	dc_section_topology.warn(&p, NULL, "test.json", &d);
	n = dc_diag_warnings(&d);
	text[0] = '\0';
	if (d.count)
		snprintf(text, len, "%s", d.entries[0].text);
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
	ck_assert_uint_eq(dc_topology_first_crossing_group(&t, DC_AXIS_TP), 1);
	ck_assert(dc_topology_axis_crosses(&t, DC_AXIS_TP));
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
	/* dp blocks of 8 x 256 = 2048 ranks: every one of the 128 groups
	 * (members 8 apart on nodes of 8) crosses */
	ck_assert_uint_eq(dc_topology_crossing_groups(&t, DC_AXIS_DP), 128);
	ck_assert_uint_eq(dc_topology_first_crossing_group(&t, DC_AXIS_PP), 0);
	ck_assert(!dc_topology_axis_crosses(&t, DC_AXIS_TP));
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

/* ---- closed forms against brute force ---------------------------------- */

static const char *const axis_text[DC_AXIS_COUNT] = {"tp", "cp", "ep", "dp", "pp"};

/* Lays the ranks out from the definition (Megatron-LM's RankGenerator:
 * order[0] fastest, stride = product of the degrees before), written here
 * rather than through dc_topology_init. */
static void layout(struct dc_topology *t, uint64_t gpus_per_node, const uint64_t degree[DC_AXIS_COUNT],
		   const enum dc_axis order[DC_AXIS_COUNT])
{
	uint64_t stride = 1;
	int used = 0;

	memset(t, 0, sizeof(*t));
	t->gpus_per_node = gpus_per_node;
	for (int k = 0; k < DC_AXIS_COUNT; k++) {
		enum dc_axis a = order[k];
		t->order[k] = a;
		t->degree[a] = degree[a];
		t->stride[a] = stride;
		stride *= degree[a];
	}
	t->world = stride;
	used = snprintf(layout_text, sizeof(layout_text), "gpus_per_node %llu, world %llu, order",
			(unsigned long long)gpus_per_node, (unsigned long long)t->world);
	for (int k = 0; k < DC_AXIS_COUNT && used > 0 && (size_t)used < sizeof(layout_text); k++)
		used += snprintf(layout_text + used, sizeof(layout_text) - (size_t)used, " %s=%llu",
				 axis_text[order[k]], (unsigned long long)degree[order[k]]);
}

/* Group number of `rank` along `axis` from its coordinates (the other
 * axes' coordinates as a mixed-radix number, fastest first); *member gets
 * its coordinate on `axis`. */
static uint64_t ref_group_of(const struct dc_topology *t, enum dc_axis axis, uint64_t rank, uint64_t *member)
{
	uint64_t index = 0, radix = 1;

	for (int k = 0; k < DC_AXIS_COUNT; k++) {
		enum dc_axis a = t->order[k];
		uint64_t c = rank / t->stride[a] % t->degree[a];
		if (a == axis) {
			*member = c;
			continue;
		}
		index += c * radix;
		radix *= t->degree[a];
	}
	return index;
}

/* What the regimes of the closed form were hit, over a run of layouts. */
struct coverage {
	uint64_t layouts, none, some, all, odd_node, stride_not_dividing, group_over_node;
};

/* Every group and member of every axis of *t against the closed forms. */
static void check_brute_force(const struct dc_topology *t, struct coverage *cov)
{
	struct dc_config cfg;
	struct dc_link link;

	memset(&cfg, 0, sizeof(cfg));
	cfg.cluster.intra_node.bw_bytes_per_s = 300e9;
	cfg.cluster.inter_node.bw_bytes_per_s = 50e9;
	cov->layouts++;
	if (t->gpus_per_node & (t->gpus_per_node - 1))
		cov->odd_node++;
	for (int a = 0; a < DC_AXIS_COUNT; a++) {
		uint64_t groups = t->world / t->degree[a], crossing = 0, first = groups;
		struct dc_group g;

		HOLDS_EQ(dc_topology_group_count(t, (enum dc_axis)a), groups);
		/* every rank is member (its coordinate) of the group its other
		 * coordinates number */
		for (uint64_t r = 0; r < t->world; r++) {
			uint64_t k = 0, i = ref_group_of(t, (enum dc_axis)a, r, &k);
			dc_topology_group(t, (enum dc_axis)a, i, &g);
			HOLDS_EQ(g.index, i);
			HOLDS_EQ(g.size, t->degree[a]);
			HOLDS_EQ(g.stride, t->stride[a]);
			HOLDS_EQ(dc_group_rank(&g, k), r);
		}
		for (uint64_t i = 0; i < groups; i++) {
			uint64_t nodes = 0, last_node = UINT64_MAX;
			dc_topology_group(t, (enum dc_axis)a, i, &g);
			/* members increase, so distinct nodes are node changes */
			for (uint64_t k = 0; k < g.size; k++) {
				uint64_t node = dc_group_rank(&g, k) / t->gpus_per_node;
				nodes += node != last_node;
				last_node = node;
			}
			HOLDS_EQ(dc_group_nodes(t, &g), nodes);
			HOLDS_EQ(dc_group_link(t, &g), nodes > 1 ? DC_LINK_INTER : DC_LINK_INTRA);
			if (nodes > 1 && crossing++ == 0)
				first = i;
		}
		HOLDS_EQ(dc_topology_crossing_groups(t, (enum dc_axis)a), crossing);
		HOLDS_EQ((uint64_t)dc_topology_axis_crosses(t, (enum dc_axis)a), crossing > 0);
		HOLDS_EQ(dc_topology_first_crossing_group(t, (enum dc_axis)a), first);
		HOLDS_EQ(dc_topology_axis_link(&cfg, t, (enum dc_axis)a, &link),
			 crossing ? DC_LINK_INTER : DC_LINK_INTRA);
		HOLDS_EQ((uint64_t)link.bw_bytes_per_s, crossing ? 50000000000u : 300000000000u);
		if (t->degree[a] < 2)
			continue;
		cov->none += crossing == 0;
		cov->some += crossing > 0 && crossing < groups;
		cov->all += crossing == groups;
		cov->stride_not_dividing += t->gpus_per_node % t->stride[a] != 0 &&
					    t->stride[a] % t->gpus_per_node != 0;
		cov->group_over_node += t->degree[a] > t->gpus_per_node;
	}
}

/* The NVLink-domain forms against brute force: *t with domains of k
 * nodes, k = 1..4 (a world that is not a whole number of domains
 * included), every group of every axis counted rank by rank, and the
 * families carved out of dp (ep consecutive dp ranks, for every ep that
 * divides dp) too. cov->odd_node counts the worlds that end inside a
 * domain. */
static void check_domains(struct dc_topology *t, struct coverage *cov)
{
	struct dc_config cfg;
	struct dc_link link;

	memset(&cfg, 0, sizeof(cfg));
	cfg.cluster.intra_node.bw_bytes_per_s = 300e9;
	cfg.cluster.inter_node.bw_bytes_per_s = 50e9;
	for (uint64_t k = 1; k <= 4; k++) {
		uint64_t dom = k * t->gpus_per_node;
		t->nvlink_domain = dom;
		HOLDS_EQ(dc_topology_domain(t), dom);
		cov->odd_node += t->world % dom != 0;
		for (int a = 0; a <= DC_AXIS_COUNT; a++) {
			/* a == DC_AXIS_COUNT: dp's ep families */
			uint64_t s = a < DC_AXIS_COUNT ? t->stride[a] : t->stride[DC_AXIS_DP];
			for (uint64_t deg = 1; deg <= t->degree[a < DC_AXIS_COUNT ? a : DC_AXIS_DP]; deg++) {
				uint64_t B, groups, crossing = 0, first = UINT64_MAX;
				struct dc_group g, fg;
				int crosses;
				if (a < DC_AXIS_COUNT && deg != t->degree[a])
					continue;
				if (a == DC_AXIS_COUNT && t->degree[DC_AXIS_DP] % deg != 0)
					continue;
				B = s * deg;
				groups = t->world / deg;
				for (uint64_t i = 0; i < groups; i++) {
					uint64_t doms = 0, last = UINT64_MAX;
					g.axis = DC_AXIS_DP;
					g.index = i;
					g.first = i % s + i / s * B;
					g.stride = s;
					g.size = deg;
					for (uint64_t m = 0; m < deg; m++) {
						uint64_t d = dc_group_rank(&g, m) / dom;
						doms += d != last;
						last = d;
					}
					HOLDS_EQ(dc_group_domains(t, &g), doms);
					HOLDS_EQ(dc_group_link(t, &g), doms > 1 ? DC_LINK_INTER : DC_LINK_INTRA);
					if (doms > 1 && crossing++ == 0)
						first = i;
				}
				crosses = dc_topology_first_domain_crossing(t, s, deg, &fg);
				HOLDS_EQ((uint64_t)crosses, crossing > 0);
				HOLDS_EQ(fg.index, crossing ? first : 0);
				HOLDS_EQ(fg.first, crossing ? first % s + first / s * B : 0);
				HOLDS_EQ(fg.stride, s);
				HOLDS_EQ(fg.size, deg);
				if (a == DC_AXIS_COUNT)
					continue;
				HOLDS_EQ(dc_topology_domain_crossing_groups(t, (enum dc_axis)a), crossing);
				HOLDS_EQ((uint64_t)dc_topology_axis_crosses_domains(t, (enum dc_axis)a), crossing > 0);
				HOLDS_EQ(dc_topology_axis_link(&cfg, t, (enum dc_axis)a, &link),
					 crossing ? DC_LINK_INTER : DC_LINK_INTRA);
				HOLDS_EQ((uint64_t)link.bw_bytes_per_s, crossing ? 50000000000u : 300000000000u);
			}
		}
	}
	t->nvlink_domain = 0;
}

/* A layout of 1..max_nodes nodes of 1..max_gpus GPUs, the world's prime
 * factors dealt to the five axes at random, in a random order. */
static void random_layout(struct dc_rng *rng, struct dc_topology *t, uint64_t max_gpus, uint64_t max_nodes)
{
	uint64_t gpus = dc_rng_range(rng, 1, max_gpus), nodes = dc_rng_range(rng, 1, max_nodes);
	uint64_t rest = gpus * nodes, degree[DC_AXIS_COUNT] = {1, 1, 1, 1, 1};
	enum dc_axis order[DC_AXIS_COUNT];

	for (uint64_t p = 2; rest > 1; p++)
		while (rest % p == 0) {
			degree[dc_rng_range(rng, 0, DC_AXIS_COUNT - 1)] *= p;
			rest /= p;
		}
	for (int k = 0; k < DC_AXIS_COUNT; k++)
		order[k] = (enum dc_axis)k;
	for (int k = DC_AXIS_COUNT - 1; k > 0; k--) { /* Fisher-Yates */
		uint64_t j = dc_rng_range(rng, 0, (uint64_t)k);
		enum dc_axis tmp = order[k];
		order[k] = order[j];
		order[j] = tmp;
	}
	layout(t, gpus, degree, order);
}

START_TEST(test_closed_forms_random_layouts)
{
	struct dc_rng rng;
	struct dc_topology t;
	struct coverage cov = {0};

	dc_rng_seed(&rng, 0x70b01091u);
	for (int i = 0; i < 4000; i++) {
		random_layout(&rng, &t, 24, 16);
		check_brute_force(&t, &cov);
	}
	/* NVLink domains of 1 to 4 nodes over the same kind of layouts */
	{
		struct coverage dcov = {0};
		for (int i = 0; i < 1500; i++) {
			random_layout(&rng, &t, 24, 16);
			check_domains(&t, &dcov);
		}
		ck_assert_uint_ge(dcov.odd_node, 1000); /* worlds ending inside a domain */
	}
	for (int i = 0; i < 200; i++) { /* larger nodes and worlds */
		random_layout(&rng, &t, 96, 64);
		check_brute_force(&t, &cov);
	}
	/* every regime of the closed form was exercised, many times */
	ck_assert_uint_ge(cov.none, 1000);
	ck_assert_uint_ge(cov.some, 1000);
	ck_assert_uint_ge(cov.all, 1000);
	ck_assert_uint_ge(cov.odd_node, 1000);
	ck_assert_uint_ge(cov.stride_not_dividing, 1000);
	ck_assert_uint_ge(cov.group_over_node, 1000);
}
END_TEST

/* Heap's algorithm: calls check_brute_force on every order of the axes. */
static void every_order(enum dc_axis *order, int n, uint64_t gpus, const uint64_t degree[DC_AXIS_COUNT],
			struct coverage *cov, uint64_t *orders)
{
	if (n == 1) {
		struct dc_topology t;
		layout(&t, gpus, degree, order);
		check_brute_force(&t, cov);
		(*orders)++;
		return;
	}
	for (int i = 0; i < n; i++) {
		every_order(order, n - 1, gpus, degree, cov, orders);
		enum dc_axis tmp = order[n % 2 ? 0 : i];
		order[n % 2 ? 0 : i] = order[n - 1];
		order[n - 1] = tmp;
	}
}

START_TEST(test_closed_forms_every_order)
{
	/* tp 2, cp 3, ep 1, dp 4, pp 5: world 120, on nodes of every size that
	 * divides it (1, 2, 3, 4, 5, 6, 8, 10, 12, 15, 20, 24, 30, 40, 60, 120),
	 * in each of the 5! = 120 orders */
	static const uint64_t degree[DC_AXIS_COUNT] = {2, 3, 1, 4, 5};
	struct coverage cov = {0};
	uint64_t sizes = 0;

	for (uint64_t gpus = 1; gpus <= 120; gpus++) {
		enum dc_axis order[DC_AXIS_COUNT] = {DC_AXIS_TP, DC_AXIS_CP, DC_AXIS_EP, DC_AXIS_DP, DC_AXIS_PP};
		uint64_t orders = 0;
		if (120 % gpus != 0)
			continue;
		every_order(order, DC_AXIS_COUNT, gpus, degree, &cov, &orders);
		ck_assert_uint_eq(orders, 120);
		sizes++;
	}
	ck_assert_uint_eq(sizes, 16);
	ck_assert_uint_eq(cov.layouts, 16 * 120);
}
END_TEST

START_TEST(test_closed_forms_loaded_configs)
{
	/* the same comparison on topologies dc_topology_init builds from configs
	 * the loader accepted: tp and pp divisors of the world (and of 720
	 * heads and layers), any order of the five axis names */
	static const char *const names[DC_AXIS_COUNT] = {"tp", "cp", "ep", "dp", "pp"};
	struct dc_rng rng;
	struct coverage cov = {0};

	dc_rng_seed(&rng, 0xc0f16u);
	for (int n = 0; n < 300; n++) {
		uint64_t gpus = dc_rng_range(&rng, 1, 12), nodes = dc_rng_range(&rng, 1, 12);
		uint64_t world = gpus * nodes, tp, pp;
		const char *order[DC_AXIS_COUNT];
		struct dc_config c;
		struct dc_topology t;

		do
			tp = dc_rng_range(&rng, 1, world);
		while (world % tp != 0 || 720 % tp != 0);
		do
			pp = dc_rng_range(&rng, 1, world / tp);
		while (world / tp % pp != 0 || 720 % pp != 0);
		for (int k = 0; k < DC_AXIS_COUNT; k++)
			order[k] = names[k];
		for (int k = DC_AXIS_COUNT - 1; k > 0; k--) {
			uint64_t j = dc_rng_range(&rng, 0, (uint64_t)k);
			const char *tmp = order[k];
			order[k] = order[j];
			order[j] = tmp;
		}
		fixture_json(&c,
			     "{\"model\": {\"num_layers\": 720, \"hidden_size\": 46080, \"num_attention_heads\": 720,"
			     " \"num_kv_heads\": 720, \"vocab_size\": 32000, \"seq_length\": 16},"
			     " \"cluster\": {\"num_nodes\": %llu, \"gpus_per_node\": %llu, \"gpu_memory\": \"80 GiB\","
			     " \"intra_node\": {\"bandwidth\": \"300 GB/s\", \"latency\": \"5 us\"},"
			     " \"inter_node\": {\"bandwidth\": \"50 GB/s\", \"latency\": \"10 us\"}},"
			     " \"parallel\": {\"tp\": %llu, \"pp\": %llu, \"order\": \"%s-%s-%s-%s-%s\"}}",
			     (unsigned long long)nodes, (unsigned long long)gpus, (unsigned long long)tp,
			     (unsigned long long)pp, order[0], order[1], order[2], order[3], order[4]);
		dc_topology_init(&c, &t);
		snprintf(layout_text, sizeof(layout_text), "%s: %llu x %llu GPUs, tp %llu, pp %llu, dp %llu",
			 c.parallel.order_text, (unsigned long long)nodes, (unsigned long long)gpus,
			 (unsigned long long)tp, (unsigned long long)pp, (unsigned long long)c.parallel.dp);
		ck_assert_uint_eq(t.world, world);
		ck_assert_uint_eq(t.degree[DC_AXIS_DP] * tp * pp, world);
		check_brute_force(&t, &cov);
	}
	ck_assert_uint_ge(cov.some, 50);
	ck_assert_uint_ge(cov.odd_node, 100);
}
END_TEST

START_TEST(test_group_nodes_any_progression)
{
	/* any arithmetic progression, not only a layout's groups */
	struct dc_rng rng;
	struct dc_topology t;

	memset(&t, 0, sizeof(t));
	dc_rng_seed(&rng, 0x9e0de5u);
	snprintf(layout_text, sizeof(layout_text), "progressions");
	for (int n = 0; n < 20000; n++) {
		struct dc_group g = {DC_AXIS_DP, 0, dc_rng_range(&rng, 0, 300), dc_rng_range(&rng, 1, 40),
				     dc_rng_range(&rng, 1, 30)};
		uint64_t nodes = 0, last = UINT64_MAX;
		t.gpus_per_node = dc_rng_range(&rng, 1, 24);
		for (uint64_t k = 0; k < g.size; k++) {
			uint64_t node = (g.first + k * g.stride) / t.gpus_per_node;
			nodes += node != last;
			last = node;
		}
		HOLDS_EQ(dc_group_nodes(&t, &g), nodes);
		HOLDS_EQ(dc_group_link(&t, &g), nodes > 1 ? DC_LINK_INTER : DC_LINK_INTRA);
	}
}
END_TEST

/* dc_first_in_range, the Euclid step under the crossing forms and the
 * NVLink-domain counts (net.c): every (a, m, lo, hi) with m <= 24 against
 * the x < m counted one by one ((a x) mod m repeats with period m) */
START_TEST(test_first_in_range_brute_force)
{
	snprintf(layout_text, sizeof(layout_text), "first_in_range");
	for (uint64_t m = 1; m <= 24; m++)
		for (uint64_t a = 0; a < 2 * m; a++)
			for (uint64_t lo = 0; lo < m; lo++)
				for (uint64_t hi = lo; hi < m; hi++) {
					uint64_t want = UINT64_MAX;
					for (uint64_t x = 0; x < m && want == UINT64_MAX; x++)
						if (a * x % m >= lo && a * x % m <= hi)
							want = x;
					HOLDS_EQ(dc_first_in_range(a, m, lo, hi), want);
				}
}
END_TEST

START_TEST(test_crossing_worked_examples)
{
	/* docs/formulas-systems.md, "Rank layout", by hand. */
	struct dc_config c;
	struct dc_topology t;
	struct dc_group g;

	/* 3 nodes x 10 GPUs, dp 2, tp 3, pp 5, dp fastest: S_tp = 2, B = 6,
	 * L = 4. TP groups start at i + 6j (i < 2, j < 5): 0 1 6 7 12 13 18 19
	 * 24 25; those 6 or more into a node of 10 cross: 6 7 18 19, i.e.
	 * [6,8,10] [7,9,11] [18,20,22] [19,21,23], groups 2, 3, 6 and 7. Closed
	 * form: g = gcd(6, 10) = 2, one period of 10 / 2 = 5 blocks,
	 * s floor(L / g) + floor(s / g) (L mod g) = 2 x 2 + 1 x 0 = 4. First:
	 * block j starts r = 6j mod 10 into its node and holds a crossing group
	 * iff r + s - 1 >= 10 - L, r >= 5: j = 1 (r = 6), offset 0, group 2 */
	course(&c, dp_first, "dp-tp-cp-ep-pp");
	c.cluster.num_nodes = 3;
	c.cluster.gpus_per_node = 10;
	c.world_size = 30;
	c.parallel.tp = 3;
	c.parallel.dp = 2;
	c.parallel.pp = 5;
	dc_topology_init(&c, &t);
	ck_assert_uint_eq(dc_topology_group_count(&t, DC_AXIS_TP), 10);
	ck_assert_uint_eq(dc_topology_crossing_groups(&t, DC_AXIS_TP), 4);
	ck_assert_uint_eq(dc_topology_first_crossing_group(&t, DC_AXIS_TP), 2);
	dc_topology_group(&t, DC_AXIS_TP, 2, &g);
	ck_assert_uint_eq(g.first, 6);
	dc_topology_group(&t, DC_AXIS_TP, 6, &g);
	ck_assert_uint_eq(g.first, 18);
	ck_assert_uint_eq(dc_group_nodes(&t, &g), 2);
	dc_topology_group(&t, DC_AXIS_TP, 4, &g); /* 12, 14, 16: node 1 */
	ck_assert_uint_eq(g.first, 12);
	ck_assert_uint_eq(dc_group_nodes(&t, &g), 1);
	ck_assert(dc_topology_axis_crosses(&t, DC_AXIS_TP));
	/* dp pairs [2k, 2k + 1]: B = 2 divides 10, none cross */
	ck_assert(!dc_topology_axis_crosses(&t, DC_AXIS_DP));
	ck_assert_uint_eq(dc_topology_crossing_groups(&t, DC_AXIS_DP), 0);
	ck_assert_uint_eq(dc_topology_first_crossing_group(&t, DC_AXIS_DP), 15);
	/* pp members 6 apart over a span of 24 >= 10: all 6 groups cross */
	ck_assert_uint_eq(dc_topology_crossing_groups(&t, DC_AXIS_PP), 6);
	ck_assert_uint_eq(dc_topology_first_crossing_group(&t, DC_AXIS_PP), 0);

	/* 4 nodes x 6 GPUs, tp 4, dp 3, pp 2, tp fastest: TP groups 0-3, 4-7,
	 * ..., 20-23; 4-7 (nodes 0, 1) and 16-19 (nodes 2, 3) cross. B = 4,
	 * L = 3, g = gcd(4, 6) = 2: 24 / 4 / 3 = 2 periods of
	 * 1 x floor(3 / 2) + 0 x 1 = 1 */
	course(&c, megatron, "tp-cp-ep-dp-pp");
	c.cluster.num_nodes = 4;
	c.cluster.gpus_per_node = 6;
	c.world_size = 24;
	c.parallel.dp = 3;
	c.parallel.pp = 2;
	dc_topology_init(&c, &t);
	ck_assert_uint_eq(dc_topology_crossing_groups(&t, DC_AXIS_TP), 2);
	ck_assert_uint_eq(dc_topology_first_crossing_group(&t, DC_AXIS_TP), 1);
	/* dp members 4 apart, span 8 >= 6: all 8 cross; pp 12 apart: all 12 */
	ck_assert_uint_eq(dc_topology_crossing_groups(&t, DC_AXIS_DP), 8);
	ck_assert_uint_eq(dc_topology_crossing_groups(&t, DC_AXIS_PP), 12);
}
END_TEST

START_TEST(test_domain_crossing_worked_examples)
{
	/* docs/network-model.md, "Groups across NVLink domains", by hand:
	 * two GB200 NVL72 racks, 36 trays of 4 GPUs, tp 16 fastest, dp 9.
	 * The TP groups are 0-15, 16-31, ..., 128-143; rack 0 holds ranks
	 * 0-71, so only group 4 (64-79) spans two domains. */
	struct dc_config c;
	struct dc_topology t;
	struct dc_group g;

	course(&c, megatron, "tp-cp-ep-dp-pp");
	c.cluster.num_nodes = 36;
	c.cluster.gpus_per_node = 4;
	c.cluster.nvlink_domain = 72;
	c.world_size = 144;
	c.parallel.tp = 16;
	c.parallel.dp = 9;
	dc_topology_init(&c, &t);
	ck_assert_uint_eq(dc_topology_domain(&t), 72);
	/* every TP group crosses a tray, one crosses a rack */
	ck_assert_uint_eq(dc_topology_crossing_groups(&t, DC_AXIS_TP), 9);
	ck_assert_uint_eq(dc_topology_domain_crossing_groups(&t, DC_AXIS_TP), 1);
	ck_assert(dc_topology_axis_crosses_domains(&t, DC_AXIS_TP));
	ck_assert_int_eq(dc_topology_first_domain_crossing(&t, 1, 16, &g), 1);
	ck_assert_uint_eq(g.index, 4);
	ck_assert_uint_eq(g.first, 64);
	ck_assert_uint_eq(dc_group_domains(&t, &g), 2);
	ck_assert_uint_eq(dc_group_nodes(&t, &g), 4);
	ck_assert_int_eq(dc_group_link(&t, &g), DC_LINK_INTER);
	dc_topology_group(&t, DC_AXIS_TP, 0, &g); /* 0-15: four trays of rack 0 */
	ck_assert_uint_eq(dc_group_nodes(&t, &g), 4);
	ck_assert_int_eq(dc_group_link(&t, &g), DC_LINK_INTRA);
	/* dp members 16 apart over 128 ranks: every group spans both racks */
	ck_assert_uint_eq(dc_topology_domain_crossing_groups(&t, DC_AXIS_DP), 16);

	/* domains of 36: B = 16, g = gcd(16, 36) = 4, groups start at
	 * multiples of 16 and cross at offsets 21..35 of a domain: 32-47
	 * (32 into domain 0), 64-79 (28 into domain 1), 96-111 (24 into
	 * domain 2); the first is group 2 */
	c.cluster.nvlink_domain = 36;
	dc_topology_init(&c, &t);
	ck_assert_uint_eq(dc_topology_domain_crossing_groups(&t, DC_AXIS_TP), 3);
	ck_assert_int_eq(dc_topology_first_domain_crossing(&t, 1, 16, &g), 1);
	ck_assert_uint_eq(g.first, 32);

	/* one domain of 144: nothing crosses; group 0 stands for the axis */
	c.cluster.nvlink_domain = 144;
	dc_topology_init(&c, &t);
	ck_assert(!dc_topology_axis_crosses_domains(&t, DC_AXIS_TP));
	ck_assert_uint_eq(dc_topology_domain_crossing_groups(&t, DC_AXIS_TP), 0);
	ck_assert_int_eq(dc_topology_first_domain_crossing(&t, 1, 16, &g), 0);
	ck_assert_uint_eq(g.first, 0);

	/* 20 trays (80 GPUs, a rack and 8 GPUs): the world ends inside
	 * domain 1; 64-79 still crosses, 1 of 5 */
	c.cluster.nvlink_domain = 72;
	c.cluster.num_nodes = 20;
	c.world_size = 80;
	c.parallel.dp = 5;
	dc_topology_init(&c, &t);
	ck_assert_uint_eq(dc_topology_domain_crossing_groups(&t, DC_AXIS_TP), 1);
	ck_assert_int_eq(dc_topology_first_domain_crossing(&t, 1, 16, &g), 1);
	ck_assert_uint_eq(g.first, 64);
	/* 16 trays (64 GPUs): one domain, nothing crosses */
	c.cluster.num_nodes = 16;
	c.world_size = 64;
	c.parallel.dp = 4;
	dc_topology_init(&c, &t);
	ck_assert_uint_eq(dc_topology_domain_crossing_groups(&t, DC_AXIS_TP), 0);
	/* a domain of one node, as a config without nvlink_domain: the node */
	c.cluster.nvlink_domain = 0;
	dc_topology_init(&c, &t);
	ck_assert_uint_eq(dc_topology_domain(&t), 4);
	ck_assert_uint_eq(dc_topology_domain_crossing_groups(&t, DC_AXIS_TP), 4);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("topology");
	TCase *tc = tcase_create("core");
	/* the brute-force checks walk every rank of large worlds: seconds
	 * under the sanitizers on a loaded machine, past Check's 4 s default */
	tcase_set_timeout(tc, 60);
	SRunner *sr;
	int failed;

	tcase_add_test(tc, test_course_groups);
	tcase_add_test(tc, test_coords_and_nodes);
	tcase_add_test(tc, test_dp_fastest_crosses_nodes);
	tcase_add_test(tc, test_crossing_warning);
	tcase_add_test(tc, test_domain_crossing_worked_examples);
	tcase_add_test(tc, test_group_nodes_stride_below_node);
	tcase_add_test(tc, test_large_world_is_cheap);
	tcase_add_test(tc, test_group_text);
	tcase_add_test(tc, test_global_batch);
	tcase_add_test(tc, test_expert_groups);
	tcase_add_test(tc, test_closed_forms_random_layouts);
	tcase_add_test(tc, test_closed_forms_every_order);
	tcase_add_test(tc, test_closed_forms_loaded_configs);
	tcase_add_test(tc, test_group_nodes_any_progression);
	tcase_add_test(tc, test_first_in_range_brute_force);
	tcase_add_test(tc, test_crossing_worked_examples);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
