/* topology_report.c - the topology and groups sections, and the warning
 * for tensor-parallel groups that cross nodes. */
#include <stdio.h>

#include "distcalc/experiment.h"
#include "distcalc/topology.h"

static const enum dc_axis listed_axes[] = {DC_AXIS_TP, DC_AXIS_DP, DC_AXIS_PP};
#define NLISTED (sizeof(listed_axes) / sizeof(listed_axes[0]))

static void rank_row(const void *ctx, uint64_t rank, struct dc_rnode *row)
{
	const struct dc_topology *t = ctx;
	uint64_t c[DC_AXIS_COUNT];

	dc_topology_coords(t, rank, c);
	dc_rn_u64(row, "rank", "rank", DC_U_COUNT, rank);
	dc_rn_u64(row, "node", "node", DC_U_COUNT, dc_topology_node(t, rank));
	dc_rn_u64(row, "local_rank", "local", DC_U_COUNT, rank % t->gpus_per_node);
	dc_rn_u64(row, "tp", "tp", DC_U_COUNT, c[DC_AXIS_TP]);
	dc_rn_u64(row, "cp", "cp", DC_U_COUNT, c[DC_AXIS_CP]);
	dc_rn_u64(row, "ep", "ep", DC_U_COUNT, c[DC_AXIS_EP]);
	dc_rn_u64(row, "dp", "dp", DC_U_COUNT, c[DC_AXIS_DP]);
	dc_rn_u64(row, "pp", "pp stage", DC_U_COUNT, c[DC_AXIS_PP]);
}

/* Rows of the group table: every group of every listed axis, tp first. */
static void group_at(const struct dc_topology *t, uint64_t index, struct dc_group *g)
{
	for (size_t i = 0; i < NLISTED; i++) {
		uint64_t n = dc_topology_group_count(t, listed_axes[i]);
		if (index < n || i + 1 == NLISTED) {
			dc_topology_group(t, listed_axes[i], index, g);
			return;
		}
		index -= n;
	}
}

static void group_row(const void *ctx, uint64_t index, struct dc_rnode *row)
{
	const struct dc_topology *t = ctx;
	struct dc_group g;
	char text[160];

	group_at(t, index, &g);
	dc_group_text(&g, text, sizeof(text));
	dc_rn_str(row, "axis", "axis", dc_axis_name(g.axis));
	dc_rn_u64(row, "group", "group", DC_U_COUNT, g.index);
	dc_rn_u64(row, "size", "size", DC_U_COUNT, g.size);
	dc_rn_str(row, "ranks", "ranks", text);
	dc_rn_u64(row, "nodes", "nodes", DC_U_COUNT, dc_group_nodes(t, &g));
	dc_rn_str(row, "link", "link", g.size < 2 ? "none" : dc_link_choice_name(dc_group_link(t, &g)));
}

static void axis_row(const void *ctx, uint64_t i, struct dc_rnode *row)
{
	const struct dc_topology *t = ctx;
	enum dc_axis a = listed_axes[i];
	uint64_t crossing = dc_topology_crossing_groups(t, a);

	dc_rn_str(row, "axis", "axis", dc_axis_name(a));
	dc_rn_u64(row, "size", "group size", DC_U_COUNT, t->degree[a]);
	dc_rn_u64(row, "groups", "groups", DC_U_COUNT, dc_topology_group_count(t, a));
	dc_rn_u64(row, "rank_stride", "rank stride", DC_U_COUNT, t->stride[a]);
	dc_rn_u64(row, "groups_crossing_nodes", "crossing nodes", DC_U_COUNT, crossing);
	dc_rn_str(row, "link", "slowest link",
		  t->degree[a] < 2 ? "none" : crossing ? "inter_node" : "intra_node");
}

static void warn_tp_crossing(const struct dc_config *cfg, const struct dc_topology *t,
			     struct dc_diag *diag)
{
	uint64_t n = dc_topology_group_count(t, DC_AXIS_TP);
	uint64_t crossing = dc_topology_crossing_groups(t, DC_AXIS_TP);
	struct dc_group g;
	char text[160];

	if (crossing == 0 || t->degree[DC_AXIS_TP] < 2)
		return;
	for (uint64_t i = 0; i < n; i++) {
		dc_topology_group(t, DC_AXIS_TP, i, &g);
		if (dc_group_link(t, &g) == DC_LINK_INTER)
			break;
	}
	dc_group_text(&g, text, sizeof(text));
	if (t->degree[DC_AXIS_TP] > t->gpus_per_node)
		dc_diag_warn(diag,
			     "'parallel.tp' (%llu) is larger than 'cluster.gpus_per_node' (%llu): every tensor-parallel group spans nodes, so the per-layer TP AllReduces run over the inter-node link",
			     (unsigned long long)t->degree[DC_AXIS_TP], (unsigned long long)t->gpus_per_node);
	else
		dc_diag_warn(diag,
			     "'parallel.order' \"%s\": %llu of %llu tensor-parallel groups span nodes (group %llu: ranks %s), so the per-layer TP AllReduces run over the inter-node link; put tp first, as in \"tp-cp-ep-dp-pp\"",
			     cfg->parallel.order_text, (unsigned long long)crossing, (unsigned long long)n,
			     (unsigned long long)g.index, text);
}

/* groups.<axis>: every group as an array of ranks, generated one group at
 * a time (a stored list would cost O(world) nodes). */
struct axis_groups {
	const struct dc_topology *t;
	enum dc_axis axis;
};

static void group_list_row(const void *ctx, uint64_t index, struct dc_rnode *row)
{
	const struct axis_groups *ag = ctx;
	struct dc_group g;

	dc_topology_group(ag->t, ag->axis, index, &g);
	for (uint64_t k = 0; k < g.size; k++)
		dc_rn_u64(row, NULL, NULL, DC_U_COUNT, dc_group_rank(&g, k));
}

static void list_groups(struct dc_rnode *parent, struct axis_groups *ag)
{
	char key[8], title[32];

	snprintf(key, sizeof(key), "%s", dc_axis_name(ag->axis));
	snprintf(title, sizeof(title), "%s groups", dc_axis_name(ag->axis));
	dc_rn_list_gen(parent, key, title, dc_topology_group_count(ag->t, ag->axis), group_list_row, ag);
}

/* groups.ep and groups.edp: Megatron-Core splits each DP group into
 * expert-parallel groups of ep consecutive members (the experts are spread
 * over them) and expert-data-parallel groups of every ep-th member (the
 * replicas of one expert shard). */
struct expert_groups {
	const struct dc_topology *t;
	uint64_t ep;
	int data; /* 0: ep groups, 1: edp groups */
};

static void expert_group_row(const void *ctx, uint64_t index, struct dc_rnode *row)
{
	const struct expert_groups *eg = ctx;
	uint64_t dp = eg->t->degree[DC_AXIS_DP], chunks = dp / eg->ep;
	uint64_t per_dp = eg->data ? eg->ep : chunks;
	struct dc_group g;

	dc_topology_group(eg->t, DC_AXIS_DP, index / per_dp, &g);
	if (!eg->data) /* chunk c: members c·ep .. c·ep + ep - 1 */
		for (uint64_t k = 0; k < eg->ep; k++)
			dc_rn_u64(row, NULL, NULL, DC_U_COUNT, dc_group_rank(&g, index % per_dp * eg->ep + k));
	else /* offset j: members j, j + ep, j + 2ep, ... */
		for (uint64_t k = 0; k < chunks; k++)
			dc_rn_u64(row, NULL, NULL, DC_U_COUNT, dc_group_rank(&g, index % per_dp + k * eg->ep));
}

static int topology_run(const struct dc_config *cfg, const struct dc_run_info *info,
			struct dc_report *report, struct dc_diag *diag)
{
	struct dc_topology *t = dc_report_keep(report, sizeof(*t));
	struct axis_groups *ag = dc_report_keep(report, sizeof(*ag) * NLISTED);
	struct dc_rnode *s, *g;
	uint64_t ngroups = 0;

	(void)info;
	if (!t || !ag)
		return 0; /* the runner reports the failed report */
	dc_topology_init(cfg, t);

	s = dc_rn_object(dc_report_root(report), "topology", "Topology: ranks, nodes and coordinates");
	dc_rn_u64(s, "world_size", "ranks (world size)", DC_U_COUNT, t->world);
	dc_rn_u64(s, "num_nodes", "nodes", DC_U_COUNT, cfg->cluster.num_nodes);
	dc_rn_u64(s, "gpus_per_node", "GPUs per node", DC_U_COUNT, t->gpus_per_node);
	dc_rn_str(s, "order", "order (first varies fastest)", cfg->parallel.order_text);
	dc_rn_u64(s, "tp", "tp", DC_U_COUNT, t->degree[DC_AXIS_TP]);
	dc_rn_u64(s, "cp", "cp", DC_U_COUNT, t->degree[DC_AXIS_CP]);
	dc_rn_u64(s, "ep", "ep (a separate rank axis)", DC_U_COUNT, t->degree[DC_AXIS_EP]);
	dc_rn_u64(s, "dp", "dp", DC_U_COUNT, t->degree[DC_AXIS_DP]);
	/* Megatron-Core carves expert parallelism out of the dp ranks: it is
	 * no extra multiplier, and the layout above does not change with it */
	dc_rn_u64(s, "expert_parallel", "expert parallel (experts split within dp)", DC_U_COUNT,
		  cfg->parallel.ep ? cfg->parallel.ep : 1);
	dc_rn_u64(s, "pp", "pp", DC_U_COUNT, t->degree[DC_AXIS_PP]);
	dc_rn_array_gen(s, "ranks", "Ranks (node = rank / gpus_per_node)", "ranks", t->world, rank_row, t);

	g = dc_rn_object(dc_report_root(report), "groups", "Process groups");
	for (size_t i = 0; i < NLISTED; i++) {
		ag[i].t = t;
		ag[i].axis = listed_axes[i];
		list_groups(g, &ag[i]);
		ngroups += dc_topology_group_count(t, listed_axes[i]);
	}
	if (cfg->parallel.ep > 1) {
		struct expert_groups *eg = dc_report_keep(report, sizeof(*eg) * 2);
		uint64_t dp_groups = dc_topology_group_count(t, DC_AXIS_DP);
		if (!eg)
			return 0;
		eg[0].t = eg[1].t = t;
		eg[0].ep = eg[1].ep = cfg->parallel.ep;
		eg[0].data = 0;
		eg[1].data = 1;
		dc_rn_list_gen(g, "ep", "ep groups (experts spread over)",
			       dp_groups * (t->degree[DC_AXIS_DP] / cfg->parallel.ep), expert_group_row, &eg[0]);
		dc_rn_list_gen(g, "edp", "expert data-parallel groups (replicas of an expert shard)",
			       dp_groups * cfg->parallel.ep, expert_group_row, &eg[1]);
	}
	dc_rn_array_gen(g, "axes", "Per axis", "axes", NLISTED, axis_row, t);
	dc_rn_array_gen(g, "list", "Every group and the link its ring crosses", "groups", ngroups,
			group_row, t);
	warn_tp_crossing(cfg, t, diag);
	/* a warning that could not be recorded would be missing from the
	 * report: fail (diag already says out of memory) rather than print a
	 * report without it */
	return diag->oom ? -1 : 0;
}

const struct dc_estimator dc_estimator_topology = {"topology", topology_run};
