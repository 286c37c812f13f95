/* sec_topology.c - the topology and groups sections: every rank's
 * coordinates and every process group, generated from a group's first rank
 * and stride at render time (a pure-DP run of 2^24 ranks costs one row),
 * and the warning for tensor-parallel groups that cross nodes. */
#include <stddef.h>
#include <stdio.h>

#include "distcalc/diag.h"
#include "distcalc/plan.h"
#include "distcalc/results.h"
#include "distcalc/section.h"

/* ---- topology ---- */

struct view {
	struct dc_topology t;
	uint64_t num_nodes, expert_parallel, expert_tp, expert_dp;
	int moe_layout; /* expert parallelism or an expert tp group of its own */
	const char *order;
	const char *expert_layout;
};

static void view(const struct dc_run *run, void *out)
{
	struct view *v = out;
	v->t = run->plan->topo;
	v->num_nodes = run->plan->num_nodes;
	v->expert_parallel = run->plan->ep;
	v->expert_tp = run->plan->etp;
	v->expert_dp = run->plan->expert_dp_cp;
	v->moe_layout = run->plan->ep > 1 || run->plan->expert_folded;
	v->expert_layout = run->plan->expert_folded
				   ? "folded: each stage's tp x cp x dp ranks regrouped as etp x ep x expert-dp (Megatron-Core's MoE parallel folding)"
				   : "ep carved out of dp, experts split over tp";
	v->order = run->plan->in->parallel.order_text;
}

static int moe_layout(const void *base)
{
	return ((const struct view *)base)->moe_layout;
}

struct rank_row {
	uint64_t rank, node, local, c[DC_AXIS_COUNT];
};

static uint64_t rank_count(const void *base)
{
	return ((const struct view *)base)->t.world;
}

static void rank_row(const void *base, uint64_t rank, void *out)
{
	const struct dc_topology *t = &((const struct view *)base)->t;
	struct rank_row *row = out;
	row->rank = rank;
	row->node = dc_topology_node(t, rank);
	row->local = rank % t->gpus_per_node;
	dc_topology_coords(t, rank, row->c);
}

#define RR(m) offsetof(struct rank_row, m)
static const struct dc_field rank_fields[] = {
	{"rank", "rank", DC_U_COUNT, DC_FT_U64, RR(rank)},
	{"node", "node", DC_U_COUNT, DC_FT_U64, RR(node)},
	{"local_rank", "local", DC_U_COUNT, DC_FT_U64, RR(local)},
	{"tp", "tp", DC_U_COUNT, DC_FT_U64, RR(c[DC_AXIS_TP])},
	{"cp", "cp", DC_U_COUNT, DC_FT_U64, RR(c[DC_AXIS_CP])},
	{"ep", "ep", DC_U_COUNT, DC_FT_U64, RR(c[DC_AXIS_EP])},
	{"dp", "dp", DC_U_COUNT, DC_FT_U64, RR(c[DC_AXIS_DP])},
	{"pp", "pp", DC_U_COUNT, DC_FT_U64, RR(c[DC_AXIS_PP])},
};
static const struct dc_fields rank_table = DC_FIELDS(rank_fields);
static const struct dc_rows rank_rows = {rank_count, rank_row, sizeof(struct rank_row), "ranks"};

#define V(m) offsetof(struct view, m)
static const struct dc_field fields[] = {
	{"world_size", "ranks (world size)", DC_U_COUNT, DC_FT_U64, V(t.world)},
	{"num_nodes", "nodes", DC_U_COUNT, DC_FT_U64, V(num_nodes)},
	{"gpus_per_node", "GPUs per node", DC_U_COUNT, DC_FT_U64, V(t.gpus_per_node)},
	{"order", "order (first varies fastest)", DC_U_NONE, DC_FT_STR, V(order)},
	{"tp", "tp", DC_U_COUNT, DC_FT_U64, V(t.degree[DC_AXIS_TP])},
	{"cp", "cp", DC_U_COUNT, DC_FT_U64, V(t.degree[DC_AXIS_CP])},
	{"ep", "ep as a rank axis (1: experts split within dp)", DC_U_COUNT, DC_FT_U64, V(t.degree[DC_AXIS_EP])},
	{"dp", "dp", DC_U_COUNT, DC_FT_U64, V(t.degree[DC_AXIS_DP])},
	/* Megatron-Core carves expert parallelism out of the dp ranks, or
	 * folds it over tp x cp x dp: no extra multiplier either way, and the
	 * layout above does not change with it */
	{"expert_parallel", "expert parallel (experts split over ep of dp)", DC_U_COUNT, DC_FT_U64, V(expert_parallel)},
	{"expert_tensor_parallel", "expert tensor parallel (each expert split over etp)", DC_U_COUNT, DC_FT_U64,
	 V(expert_tp), .shown = moe_layout},
	{"expert_data_parallel", "expert data parallel (replicas of an expert shard, cp included)", DC_U_COUNT,
	 DC_FT_U64, V(expert_dp), .shown = moe_layout},
	{"expert_layout", "expert layout", DC_U_NONE, DC_FT_STR, V(expert_layout), .shown = moe_layout},
	{"pp", "pp", DC_U_COUNT, DC_FT_U64, V(t.degree[DC_AXIS_PP])},
	{"ranks", "Ranks (node = rank / gpus_per_node)", DC_U_NONE, DC_FT_ROWS, 0, .sub = &rank_table,
	 .rows = &rank_rows},
};

_Static_assert(sizeof(struct view) <= DC_VIEW_MAX, "view too large");

/* The warning for tensor-parallel groups that span NVLink domains (nodes,
 * unless cluster.nvlink_domain is larger), with its cause: tp larger than
 * a domain (unavoidable); the domain not a multiple of tp (some
 * contiguous group of tp ranks straddles a boundary whatever the order);
 * or the order puts an axis of degree > 1 before tp, so a group's ranks
 * are stride apart. Groups that cross nodes inside one NVLink domain (an
 * NVL72 rack's trays) run on NVLink: no warning. */
static void warn(const struct dc_plan *plan, const struct dc_results *res, const char *name,
		 struct dc_diag *diag)
{
	const struct dc_topology *t = &plan->topo;
	uint64_t tp = t->degree[DC_AXIS_TP], dom = dc_topology_domain(t);
	uint64_t n = dc_topology_group_count(t, DC_AXIS_TP);
	uint64_t crossing = dc_topology_domain_crossing_groups(t, DC_AXIS_TP);
	int tp_first = t->stride[DC_AXIS_TP] == 1; /* only axes of degree 1 before it */
	int nodes = dom == t->gpus_per_node;
	/* a domain of one node keeps the words it always had */
	const char *key = nodes ? "cluster.gpus_per_node" : "cluster.nvlink_domain";
	const char *key_short = nodes ? "gpus_per_node" : "nvlink_domain";
	const char *span = nodes ? "nodes" : "NVLink domains";
	struct dc_group g;
	char text[160];

	(void)res;
	(void)name;
	if (crossing == 0 || tp < 2)
		return;
	dc_topology_first_domain_crossing(t, t->stride[DC_AXIS_TP], tp, &g);
	dc_group_text(&g, text, sizeof(text));
	if (tp > dom) {
		dc_diag_warn(diag,
			     "'parallel.tp' (%llu) is larger than '%s' (%llu): every tensor-parallel group spans %s, so the per-layer TP AllReduces run over the inter-node link",
			     (unsigned long long)tp, key, (unsigned long long)dom, span);
	} else if (dom % tp != 0) {
		dc_diag_warn(diag,
			     "'%s' (%llu) is not a multiple of 'parallel.tp' (%llu): %llu of %llu tensor-parallel groups span %s (group %llu: ranks %s), so the per-layer TP AllReduces run over the inter-node link; choose a tp that divides %s%s",
			     key, (unsigned long long)dom, (unsigned long long)tp, (unsigned long long)crossing,
			     (unsigned long long)n, span, (unsigned long long)g.index, text, key_short,
			     tp_first ? "" : ", and put tp first in parallel.order, as in \"tp-cp-ep-dp-pp\"");
	} else {
		dc_diag_warn(diag,
			     "'parallel.order' \"%s\": %llu of %llu tensor-parallel groups span %s (group %llu: ranks %s), so the per-layer TP AllReduces run over the inter-node link; put tp first, as in \"tp-cp-ep-dp-pp\"",
			     plan->in->parallel.order_text, (unsigned long long)crossing, (unsigned long long)n, span,
			     (unsigned long long)g.index, text);
	}
}

const struct dc_section dc_section_topology = {
	"topology", "Topology: ranks, nodes and coordinates",
	"world size, nodes, axis degrees, every rank's coordinates",
	0, sizeof(struct view), view, DC_FIELDS(fields), NULL, warn,
};

/* ---- groups ---- */

/* cp is listed only when context parallelism is on (degree > 1) */
static const enum dc_axis all_axes[] = {DC_AXIS_TP, DC_AXIS_CP, DC_AXIS_DP, DC_AXIS_PP};
static const enum dc_axis plain_axes[] = {DC_AXIS_TP, DC_AXIS_DP, DC_AXIS_PP};

struct gview {
	struct dc_topology t;
	uint64_t ep;
	/* folded expert layout (plan.h): etp x ep x edp over each stage's
	 * `stage` consecutive ranks */
	int folded;
	uint64_t etp, edp, stage;
	const enum dc_axis *axes; /* the listed axes */
	size_t naxes;
};

static void gview(const struct dc_run *run, void *out)
{
	struct gview *v = out;
	v->t = run->plan->topo;
	v->ep = run->plan->ep;
	v->folded = run->plan->expert_folded;
	v->etp = run->plan->etp;
	v->edp = run->plan->expert_dp_cp;
	v->stage = run->plan->world / v->t.degree[DC_AXIS_PP];
	v->axes = v->t.degree[DC_AXIS_CP] > 1 ? all_axes : plain_axes;
	v->naxes = v->t.degree[DC_AXIS_CP] > 1 ? 4 : 3;
}

/* groups.<axis>: the groups of one axis, each a list of ranks */
#define AXIS_LISTS(name, axis)                                                                     \
	static uint64_t name##_count(const void *base)                                             \
	{                                                                                          \
		return dc_topology_group_count(&((const struct gview *)base)->t, axis);            \
	}                                                                                          \
	static uint64_t name##_len(const void *base, uint64_t i)                                   \
	{                                                                                          \
		(void)i;                                                                           \
		return ((const struct gview *)base)->t.degree[axis];                              \
	}                                                                                          \
	static uint64_t name##_item(const void *base, uint64_t i, uint64_t j)                      \
	{                                                                                          \
		struct dc_group g;                                                                 \
		dc_topology_group(&((const struct gview *)base)->t, axis, i, &g);                  \
		return dc_group_rank(&g, j);                                                       \
	}                                                                                          \
	static const struct dc_lists name##_lists = {name##_count, name##_len, name##_item, "groups", "ranks"};
AXIS_LISTS(tp, DC_AXIS_TP)
AXIS_LISTS(cp, DC_AXIS_CP)
AXIS_LISTS(dp, DC_AXIS_DP)
AXIS_LISTS(pp, DC_AXIS_PP)

/* groups.ep and groups.edp: Megatron-Core splits each DP group into
 * expert-parallel groups of ep consecutive members (the experts are spread
 * over them) and expert-data-parallel groups of every ep-th member (the
 * replicas of one expert shard); folded, its expert rank generator
 * regroups each stage (folded_rank). */
static int has_cp(const void *base)
{
	return ((const struct gview *)base)->t.degree[DC_AXIS_CP] > 1;
}

static int has_ep(const void *base)
{
	return ((const struct gview *)base)->ep > 1;
}

/* Folded (Megatron-Core's expert rank generator, tp-ep-dp-pp): in each
 * stage's consecutive ranks, rank t + etp j + etp ep e is expert tp rank
 * t, expert rank j, expert-data-parallel rank e. */
static uint64_t folded_rank(const struct gview *v, uint64_t stage, uint64_t t, uint64_t j, uint64_t e)
{
	return stage * v->stage + t + v->etp * j + v->etp * v->ep * e;
}

static uint64_t ep_count(const void *base)
{
	const struct gview *v = base;
	if (v->folded)
		return v->t.degree[DC_AXIS_PP] * v->etp * v->edp;
	return dc_topology_group_count(&v->t, DC_AXIS_DP) * (v->t.degree[DC_AXIS_DP] / v->ep);
}

static uint64_t ep_len(const void *base, uint64_t i)
{
	(void)i;
	return ((const struct gview *)base)->ep;
}

static uint64_t ep_item(const void *base, uint64_t i, uint64_t j)
{
	const struct gview *v = base;
	uint64_t per_dp = v->t.degree[DC_AXIS_DP] / v->ep;
	struct dc_group g;
	if (v->folded) {
		uint64_t per = v->etp * v->edp, r = i % per;
		return folded_rank(v, i / per, r % v->etp, j, r / v->etp);
	}
	dc_topology_group(&v->t, DC_AXIS_DP, i / per_dp, &g);
	return dc_group_rank(&g, i % per_dp * v->ep + j); /* chunk c: members c·ep .. c·ep + ep - 1 */
}

static uint64_t edp_count(const void *base)
{
	const struct gview *v = base;
	if (v->folded)
		return v->t.degree[DC_AXIS_PP] * v->etp * v->ep;
	return dc_topology_group_count(&v->t, DC_AXIS_DP) * v->ep;
}

static uint64_t edp_len(const void *base, uint64_t i)
{
	const struct gview *v = base;
	(void)i;
	return v->folded ? v->edp : v->t.degree[DC_AXIS_DP] / v->ep;
}

static uint64_t edp_item(const void *base, uint64_t i, uint64_t j)
{
	const struct gview *v = base;
	struct dc_group g;
	if (v->folded) {
		uint64_t per = v->etp * v->ep, r = i % per;
		return folded_rank(v, i / per, r % v->etp, r / v->etp, j);
	}
	dc_topology_group(&v->t, DC_AXIS_DP, i / v->ep, &g);
	return dc_group_rank(&g, i % v->ep + j * v->ep); /* offset o: members o, o + ep, ... */
}

static const struct dc_lists ep_lists = {ep_count, ep_len, ep_item, "groups", "ranks"};
static const struct dc_lists edp_lists = {edp_count, edp_len, edp_item, "groups", "ranks"};

/* groups.axes: one row per listed axis */
struct axis_row {
	const char *axis, *link;
	uint64_t size, groups, stride, crossing;
};

static uint64_t axis_count(const void *base)
{
	return ((const struct gview *)base)->naxes;
}

static void axis_row(const void *base, uint64_t i, void *out)
{
	const struct dc_topology *t = &((const struct gview *)base)->t;
	struct axis_row *row = out;
	enum dc_axis a = ((const struct gview *)base)->axes[i];
	row->axis = dc_axis_name(a);
	row->size = t->degree[a];
	row->groups = dc_topology_group_count(t, a);
	row->stride = t->stride[a];
	row->crossing = dc_topology_crossing_groups(t, a);
	/* the link priced: the network when a group spans NVLink domains
	 * (crossing nodes inside one domain, an NVL72 rack's trays, is NVLink) */
	row->link = t->degree[a] < 2 ? "none" : dc_topology_axis_crosses_domains(t, a) ? "inter_node" : "intra_node";
}

#define AR(m) offsetof(struct axis_row, m)
static const struct dc_field axis_fields[] = {
	{"axis", "axis", DC_U_NONE, DC_FT_STR, AR(axis)},
	{"size", "group size", DC_U_COUNT, DC_FT_U64, AR(size)},
	{"groups", "groups", DC_U_COUNT, DC_FT_U64, AR(groups)},
	{"rank_stride", "rank stride", DC_U_COUNT, DC_FT_U64, AR(stride)},
	{"groups_crossing_nodes", "crossing nodes", DC_U_COUNT, DC_FT_U64, AR(crossing)},
	{"link", "slowest link", DC_U_NONE, DC_FT_STR, AR(link)},
};
static const struct dc_fields axis_table = DC_FIELDS(axis_fields);
static const struct dc_rows axis_rows = {axis_count, axis_row, sizeof(struct axis_row), "axes"};

/* groups.list: every group of every listed axis, tp first */
struct group_row {
	const char *axis, *link;
	uint64_t group, size, nodes;
	char ranks[160];
};

static uint64_t group_count(const void *base)
{
	const struct gview *v = base;
	uint64_t n = 0;
	for (size_t i = 0; i < v->naxes; i++)
		n += dc_topology_group_count(&v->t, v->axes[i]);
	return n;
}

static void group_row(const void *base, uint64_t index, void *out)
{
	const struct gview *v = base;
	const struct dc_topology *t = &v->t;
	struct group_row *row = out;
	struct dc_group g;

	for (size_t i = 0; i < v->naxes; i++) {
		uint64_t n = dc_topology_group_count(t, v->axes[i]);
		if (index < n || i + 1 == v->naxes) {
			dc_topology_group(t, v->axes[i], index, &g);
			break;
		}
		index -= n;
	}
	dc_group_text(&g, row->ranks, sizeof(row->ranks));
	row->axis = dc_axis_name(g.axis);
	row->group = g.index;
	row->size = g.size;
	row->nodes = dc_group_nodes(t, &g);
	row->link = g.size < 2 ? "none" : dc_link_choice_name(dc_group_link(t, &g));
}

#define GR(m) offsetof(struct group_row, m)
static const struct dc_field group_fields[] = {
	{"axis", "axis", DC_U_NONE, DC_FT_STR, GR(axis)},
	{"group", "group", DC_U_COUNT, DC_FT_U64, GR(group)},
	{"size", "size", DC_U_COUNT, DC_FT_U64, GR(size)},
	{"ranks", "ranks", DC_U_NONE, DC_FT_TEXT, GR(ranks)},
	{"nodes", "nodes", DC_U_COUNT, DC_FT_U64, GR(nodes)},
	{"link", "link", DC_U_NONE, DC_FT_STR, GR(link)},
};
static const struct dc_fields group_table = DC_FIELDS(group_fields);
static const struct dc_rows group_rows = {group_count, group_row, sizeof(struct group_row), "groups"};

static const struct dc_field gfields[] = {
	{"tp", "tp groups", DC_U_NONE, DC_FT_LISTS, 0, .lists = &tp_lists},
	{"cp", "cp groups (one sequence split over them)", DC_U_NONE, DC_FT_LISTS, 0, .lists = &cp_lists,
	 .shown = has_cp},
	{"dp", "dp groups", DC_U_NONE, DC_FT_LISTS, 0, .lists = &dp_lists},
	{"pp", "pp groups", DC_U_NONE, DC_FT_LISTS, 0, .lists = &pp_lists},
	{"ep", "ep groups (experts spread over)", DC_U_NONE, DC_FT_LISTS, 0, .lists = &ep_lists, .shown = has_ep},
	{"edp", "expert data-parallel groups (replicas of an expert shard)", DC_U_NONE, DC_FT_LISTS, 0,
	 .lists = &edp_lists, .shown = has_ep},
	{"axes", "Per axis", DC_U_NONE, DC_FT_ROWS, 0, .sub = &axis_table, .rows = &axis_rows},
	{"list", "Every group and the link its ring crosses", DC_U_NONE, DC_FT_ROWS, 0, .sub = &group_table,
	 .rows = &group_rows},
};

_Static_assert(sizeof(struct gview) <= DC_VIEW_MAX, "view too large");

const struct dc_section dc_section_groups = {
	"groups", "Process groups", "every process group per axis and the link its ring crosses",
	0, sizeof(struct gview), gview, DC_FIELDS(gfields), NULL, NULL,
};
