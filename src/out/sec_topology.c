/* sec_topology.c - the topology and groups sections: every rank's
 * coordinates and every process group, generated from a group's first rank
 * and stride at render time (a pure-DP run of 2^24 ranks costs one row),
 * and the warning for tensor-parallel groups that cross nodes. */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

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

/* Expert-parallel groups priced across NVLink domains because the domain
 * is not a multiple of ep (a trial's ep 64 on GB200 NVL72: 72 GPUs a rack,
 * nearly every group over two racks, its AlltoAlls on the NICs, where the
 * only warning named the last rack's partial fill): the cause, and the
 * domain (a multiple of ep and of gpus_per_node, at most the rack) that
 * keeps them inside, a job given that many GPUs of each. */
static void warn_ep_domain(const struct dc_plan *plan, const struct dc_results *res, struct dc_diag *diag)
{
	const struct dc_comm_strategy *s;
	uint64_t ep = plan->layout.ep, dom = dc_topology_domain(&plan->topo), gpn = plan->topo.gpus_per_node, fit;
	/* an expert group's members are st apart (etp folded, else dp's
	 * stride: plan.c derive_net), so ep st ranks hold st whole groups:
	 * a domain that is a multiple of that block holds them all (a review:
	 * ep 16 folded over etp 8 spans 128 ranks, which no 64 keeps inside) */
	uint64_t st = plan->expert_folded ? plan->etp : plan->topo.stride[DC_AXIS_DP], block;
	if (!res) /* a caller without the estimates (the topology's own tests) */
		return;
	s = &res->comm.s[DC_STRAT_EP];
	if (ep < 2 || !st || !s->in_play || !s->net_group || s->net_group->nodes < 2 || !gpn ||
	    __builtin_mul_overflow(ep, st, &block) || block > dom || dom % block == 0)
		return;
	/* the largest multiple of lcm(block, gpn) up to dom */
	{
		uint64_t a = block, b = gpn, t;
		while (b) {
			t = a % b;
			a = b;
			b = t;
		}
		fit = block / a * gpn; /* lcm */
		fit = fit <= dom ? dom / fit * fit : 0;
	}
	if (fit)
		dc_diag_warn(diag,
			     "'cluster.nvlink_domain' (%llu) is not a multiple of the %llu ranks that hold whole "
			     "expert-parallel groups (parallel.ep %llu, %llu apart): expert-parallel groups straddle two "
			     "domains and their AlltoAlls are priced across the NICs; a job given %llu GPUs of each domain "
			     "keeps every group inside one: --set cluster.nvlink_domain=%llu",
			     (unsigned long long)dom, (unsigned long long)block, (unsigned long long)ep,
			     (unsigned long long)st, (unsigned long long)fit, (unsigned long long)fit);
	else
		dc_diag_warn(diag,
			     "'cluster.nvlink_domain' (%llu) is not a multiple of the %llu ranks that hold whole "
			     "expert-parallel groups (parallel.ep %llu, %llu apart): expert-parallel groups straddle two "
			     "domains and their AlltoAlls are priced across the NICs",
			     (unsigned long long)dom, (unsigned long long)block, (unsigned long long)ep,
			     (unsigned long long)st);
}

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
	/* the calls a layer's TP runs (comm.c): AllReduces, or under
	 * sequence parallelism AllGathers and ReduceScatters */
	const char *calls = plan->layout.sequence_parallel ? "AllGathers and ReduceScatters" : "AllReduces";
	struct dc_group g;
	char text[160];

	(void)name;
	warn_ep_domain(plan, res, diag);
	if (crossing == 0 || tp < 2)
		return;
	dc_topology_first_domain_crossing(t, t->stride[DC_AXIS_TP], tp, &g);
	dc_group_text(&g, text, sizeof(text));
	if (tp > dom) {
		dc_diag_warn(diag,
			     "'parallel.tp' (%llu) is larger than '%s' (%llu): every tensor-parallel group spans %s, so the per-layer TP %s run over the inter-node link",
			     (unsigned long long)tp, key, (unsigned long long)dom, span, calls);
	} else if (dom % tp != 0) {
		dc_diag_warn(diag,
			     "'%s' (%llu) is not a multiple of 'parallel.tp' (%llu): %llu of %llu tensor-parallel groups span %s (group %llu: ranks %s), so the per-layer TP %s run over the inter-node link; choose a tp that divides %s%s",
			     key, (unsigned long long)dom, (unsigned long long)tp, (unsigned long long)crossing,
			     (unsigned long long)n, span, (unsigned long long)g.index, text, calls, key_short,
			     tp_first ? "" : ", and put tp first in parallel.order, as in \"tp-cp-ep-dp-pp\"");
	} else {
		dc_diag_warn(diag,
			     "'parallel.order' \"%s\": %llu of %llu tensor-parallel groups span %s (group %llu: ranks %s), so the per-layer TP %s run over the inter-node link; put tp first, as in \"tp-cp-ep-dp-pp\"",
			     plan->in->parallel.order_text, (unsigned long long)crossing, (unsigned long long)n, span,
			     (unsigned long long)g.index, text, calls);
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

/* A family of groups that is no rank axis: HSDP's shard and replica
 * groups (plan.h, DC_GROUP_SHARD ...), as derive_hsdp prices them. Group
 * k's members are base(k) + (j mod ni) si + (j / ni) so, j < ni no: one
 * progression (no = 1), or a progression of progressions (with cp, the
 * dp x cp ranks of a dp chunk), the finer stride inner so that members
 * ascend (si ni <= so: the two are different axes' strides). base(k)
 * reads k in mixed radix, digit i of radix[i] weighing stride[i], the
 * first fastest: the family's own offsets, then every other axis of
 * degree > 1 in the order. */
#define FAM_DIGITS (DC_AXIS_COUNT + 2)

enum fam_slot { FAM_DPCP, FAM_EP, FAM_EDP, FAM_SHARD, FAM_REP, FAM_ESHARD, FAM_EREP, FAM_MAX };

struct family {
	const char *name;      /* the row's axis column */
	enum dc_group_id gid;  /* the plan's group comm prices it on */
	uint64_t count, size;
	uint64_t si, ni, so, no;
	size_t ndig;
	uint64_t radix[FAM_DIGITS], stride[FAM_DIGITS];
};

struct gview {
	struct dc_topology t;
	uint64_t ep;
	/* folded expert layout (plan.h): etp x ep x edp over each stage's
	 * `stage` consecutive ranks */
	int folded;
	uint64_t etp, edp, stage;
	const enum dc_axis *axes; /* the listed axes */
	size_t naxes;
	/* HSDP (dp_replicate > 1): shard, replica and, when the experts
	 * shard apart, expert shard and (folded) expert replica groups;
	 * size 0: not shown */
	struct family fam[FAM_MAX];
	const char *link[FAM_MAX]; /* each family's priced link */
};

static void fam_digit(struct family *f, uint64_t radix, uint64_t stride)
{
	if (radix > 1 && f->ndig < FAM_DIGITS) {
		f->radix[f->ndig] = radix;
		f->stride[f->ndig] = stride;
		f->ndig++;
	}
}

/* every axis of degree > 1 but a and b, in the order (fastest first) */
static void fam_others(struct family *f, const struct dc_topology *t, enum dc_axis a, enum dc_axis b)
{
	for (int i = 0; i < DC_AXIS_COUNT; i++) {
		enum dc_axis x = t->order[i];
		if (x != a && x != b)
			fam_digit(f, t->degree[x], t->stride[x]);
	}
}

/* members: one progression (stride s1, n1) or, with n2 > 1, the two,
 * the finer inner */
static void fam_members(struct family *f, uint64_t s1, uint64_t n1, uint64_t s2, uint64_t n2)
{
	if (n2 > 1 && s2 < s1) {
		uint64_t s = s1, n = n1;
		s1 = s2, n1 = n2, s2 = s, n2 = n;
	}
	f->si = s1, f->ni = n1, f->so = n2 > 1 ? s2 : 0, f->no = n2 > 1 ? n2 : 1;
	f->size = f->ni * f->no;
}

static void fam_done(struct gview *v, enum fam_slot i, const struct dc_plan *p)
{
	struct family *f = &v->fam[i];
	f->count = 1;
	for (size_t d = 0; d < f->ndig; d++)
		f->count *= f->radix[d];
	v->link[i] = f->size < 2 ? "none" : dc_link_choice_name(p->group[f->gid].link.choice);
}

/* derive_hsdp's groups: a replica's shard group is dsh = dp / r
 * consecutive dp ranks (stride s) and, with cp, all their cp ranks; the
 * r ranks holding the same shard sit s dsh apart; an expert's shard is
 * expert_dp / r of its expert-data-parallel ranks (ep dp ranks apart,
 * inside the dense shard), its replicas the dense ones; folded, the
 * first expert_dp_cp / r of an expert-data-parallel group (etp ep
 * apart), its replicas the rest. */
static void hsdp_families(struct gview *v, const struct dc_plan *p)
{
	const struct dc_topology *t = &p->topo;
	uint64_t r = p->dp_replicate, s = t->stride[DC_AXIS_DP], dsh = t->degree[DC_AXIS_DP] / r;
	uint64_t cp = t->degree[DC_AXIS_CP], sc = t->stride[DC_AXIS_CP];
	struct family *f = v->fam;

	if (r < 2)
		return;
	f[FAM_SHARD] = (struct family){.name = "shard", .gid = DC_GROUP_SHARD};
	fam_members(&f[FAM_SHARD], s, dsh, sc, cp);
	fam_digit(&f[FAM_SHARD], r, s * dsh);
	fam_others(&f[FAM_SHARD], t, DC_AXIS_DP, DC_AXIS_CP);
	fam_done(v, FAM_SHARD, p);

	f[FAM_REP] = (struct family){.name = "replica", .gid = DC_GROUP_REP};
	fam_members(&f[FAM_REP], s * dsh, r, 0, 1);
	fam_digit(&f[FAM_REP], dsh, s);
	fam_others(&f[FAM_REP], t, DC_AXIS_DP, DC_AXIS_DP);
	fam_done(v, FAM_REP, p);

	if (!p->in->model.num_experts || (p->ep < 2 && !p->expert_folded))
		return;
	f[FAM_ESHARD] = (struct family){.name = "expert_shard", .gid = DC_GROUP_ESHARD};
	if (p->expert_folded) {
		uint64_t st = p->etp * p->ep, esz = p->expert_dp_cp / r;
		fam_members(&f[FAM_ESHARD], st, esz, 0, 1);
		fam_digit(&f[FAM_ESHARD], st, 1);
		fam_digit(&f[FAM_ESHARD], t->world / (st * esz), st * esz);
		fam_done(v, FAM_ESHARD, p);
		f[FAM_EREP] = (struct family){.name = "expert_replica", .gid = DC_GROUP_EREP};
		fam_members(&f[FAM_EREP], st * esz, r, 0, 1);
		fam_digit(&f[FAM_EREP], st * esz, 1);
		fam_digit(&f[FAM_EREP], t->world / (st * esz * r), st * esz * r);
		fam_done(v, FAM_EREP, p);
		return;
	}
	fam_members(&f[FAM_ESHARD], s * p->ep, p->expert_dp / r, sc, cp);
	fam_digit(&f[FAM_ESHARD], p->ep, s);
	fam_digit(&f[FAM_ESHARD], r, s * dsh);
	fam_others(&f[FAM_ESHARD], t, DC_AXIS_DP, DC_AXIS_CP);
	fam_done(v, FAM_ESHARD, p);
}

/* The groups comm prices that are no axis's, HSDP's aside: with cp the
 * dp x cp groups dense gradients sync over (DC_GROUP_DP_CP); with expert
 * parallelism the ep groups (DC_GROUP_EP, the expert AlltoAlls) and the
 * expert-data-parallel ones the routed experts' gradients sync over
 * (DC_GROUP_EDP_CP; with cp > 1 and ep > 1 folded, cp among them), in the order
 * the ep and edp lists give them (ep_item, edp_item). Under HSDP the
 * shard and replica groups take the place of dp x cp and expert-dp. */
static void plan_families(struct gview *v, const struct dc_plan *p)
{
	const struct dc_topology *t = &p->topo;
	uint64_t s = t->stride[DC_AXIS_DP], dp = t->degree[DC_AXIS_DP];
	uint64_t cp = t->degree[DC_AXIS_CP], sc = t->stride[DC_AXIS_CP], pp = t->degree[DC_AXIS_PP];
	uint64_t ep = p->ep, etp = p->etp, edp = p->expert_dp_cp, r = p->dp_replicate;
	struct family *f = v->fam;

	if (cp > 1 && r < 2) {
		f[FAM_DPCP] = (struct family){.name = "dp_cp", .gid = DC_GROUP_DP_CP};
		fam_members(&f[FAM_DPCP], s, dp, sc, cp);
		fam_others(&f[FAM_DPCP], t, DC_AXIS_DP, DC_AXIS_CP);
		fam_done(v, FAM_DPCP, p);
	}
	if (ep < 2)
		return;
	f[FAM_EP] = (struct family){.name = "ep", .gid = DC_GROUP_EP};
	if (p->expert_folded) {
		fam_members(&f[FAM_EP], etp, ep, 0, 1);
		fam_digit(&f[FAM_EP], etp, 1);
		fam_digit(&f[FAM_EP], edp, etp * ep);
		fam_digit(&f[FAM_EP], pp, v->stage);
	} else {
		fam_members(&f[FAM_EP], s, ep, 0, 1);
		fam_digit(&f[FAM_EP], dp / ep, s * ep);
		fam_others(&f[FAM_EP], t, DC_AXIS_DP, DC_AXIS_DP);
	}
	fam_done(v, FAM_EP, p);
	if (r >= 2)
		return;
	if (p->expert_folded) {
		f[FAM_EDP] = (struct family){.name = "edp", .gid = DC_GROUP_EDP_CP};
		fam_members(&f[FAM_EDP], etp * ep, edp, 0, 1);
		fam_digit(&f[FAM_EDP], etp, 1);
		fam_digit(&f[FAM_EDP], ep, etp);
		fam_digit(&f[FAM_EDP], pp, v->stage);
		fam_done(v, FAM_EDP, p);
		return;
	}
	/* unfolded with ep > 1: cp is 1 (dc_layout_expert_folded) */
	f[FAM_EDP] = (struct family){.name = "edp", .gid = DC_GROUP_EDP_CP};
	fam_members(&f[FAM_EDP], s * ep, dp / ep, 0, 1);
	fam_digit(&f[FAM_EDP], ep, s);
	fam_others(&f[FAM_EDP], t, DC_AXIS_DP, DC_AXIS_DP);
	fam_done(v, FAM_EDP, p);
}

static uint64_t fam_base(const struct family *f, uint64_t k)
{
	uint64_t base = 0;
	for (size_t i = 0; i < f->ndig; i++) {
		base += k % f->radix[i] * f->stride[i];
		k /= f->radix[i];
	}
	return base;
}

static uint64_t fam_rank(const struct family *f, uint64_t base, uint64_t j)
{
	return base + j % f->ni * f->si + j / f->ni * f->so;
}

/* chunk c (c < no) of group `base`: a progression */
static void fam_chunk(const struct family *f, uint64_t base, uint64_t c, struct dc_group *g)
{
	g->axis = DC_AXIS_DP;
	g->index = 0;
	g->first = base + c * f->so;
	g->stride = f->si;
	g->size = f->ni;
}

/* the members ascend: the group spans nodes (domains) when its first and
 * last do not share one */
static int fam_spans(const struct family *f, uint64_t base, uint64_t unit)
{
	return base / unit != fam_rank(f, base, f->size - 1) / unit;
}

static uint64_t fam_nodes(const struct dc_topology *t, const struct family *f, uint64_t base)
{
	uint64_t n = 0, last = 0;
	for (uint64_t c = 0; c < f->no; c++) {
		struct dc_group g;
		fam_chunk(f, base, c, &g);
		n += dc_group_nodes(t, &g);
		if (c > 0 && dc_topology_node(t, g.first) == last)
			n--; /* the previous chunk ended on this node */
		last = dc_topology_node(t, dc_group_rank(&g, g.size - 1));
	}
	return n;
}

static void append(char *buf, size_t len, const char *text)
{
	size_t used = strlen(buf);
	if (used + 1 < len)
		snprintf(buf + used, len - used, "%s", text);
}

/* "0-3"; two levels "0-1, 8-9, 16-17, ..., 56-57" */
static void fam_text(const struct family *f, uint64_t base, char *buf, size_t len)
{
	struct dc_group g;
	char part[80];
	if (f->no == 1 || f->so == f->si * f->ni) {
		g = (struct dc_group){DC_AXIS_DP, 0, base, f->si, f->size};
		dc_group_text(&g, buf, len);
		return;
	}
	buf[0] = '\0';
	for (uint64_t c = 0; c < f->no; c++) {
		if (c > 0)
			append(buf, len, ", ");
		if (f->no > 4 && c == 3) {
			append(buf, len, "..., ");
			c = f->no - 1;
		}
		fam_chunk(f, base, c, &g);
		dc_group_text(&g, part, sizeof(part));
		append(buf, len, part);
	}
}

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
	for (int i = 0; i < FAM_MAX; i++)
		v->fam[i] = (struct family){0};
	plan_families(v, run->plan);
	hsdp_families(v, run->plan);
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

/* groups.shard, groups.replica, ...: HSDP's families */
#define FAM_LISTS(name, slot)                                                                      \
	static int name##_shown(const void *base)                                                  \
	{                                                                                          \
		return ((const struct gview *)base)->fam[slot].size > 0;                           \
	}                                                                                          \
	static uint64_t name##_count(const void *base)                                             \
	{                                                                                          \
		return ((const struct gview *)base)->fam[slot].count;                              \
	}                                                                                          \
	static uint64_t name##_len(const void *base, uint64_t i)                                   \
	{                                                                                          \
		(void)i;                                                                           \
		return ((const struct gview *)base)->fam[slot].size;                               \
	}                                                                                          \
	static uint64_t name##_item(const void *base, uint64_t i, uint64_t j)                      \
	{                                                                                          \
		const struct family *f = &((const struct gview *)base)->fam[slot];                 \
		return fam_rank(f, fam_base(f, i), j);                                             \
	}                                                                                          \
	static const struct dc_lists name##_lists = {name##_count, name##_len, name##_item, "groups", "ranks"};
FAM_LISTS(shard, FAM_SHARD)
FAM_LISTS(rep, FAM_REP)
FAM_LISTS(eshard, FAM_ESHARD)
FAM_LISTS(erep, FAM_EREP)

/* groups of the family that span two nodes, one by one: O(groups) */
static uint64_t fam_crossing(const struct dc_topology *t, const struct family *f)
{
	uint64_t n = 0;
	for (uint64_t k = 0; k < f->count; k++)
		n += (uint64_t)fam_spans(f, fam_base(f, k), t->gpus_per_node);
	return n;
}

static uint64_t fam_rows(const struct gview *v)
{
	uint64_t n = 0;
	for (int i = 0; i < FAM_MAX; i++)
		n += v->fam[i].size > 0;
	return n;
}

/* the i-th shown family */
static enum fam_slot fam_nth(const struct gview *v, uint64_t i)
{
	int k = 0;
	for (; k < FAM_MAX; k++)
		if (v->fam[k].size > 0 && i-- == 0)
			break;
	return (enum fam_slot)k;
}

/* groups.axes: one row per listed axis */
struct axis_row {
	const char *axis, *link;
	uint64_t size, groups, stride, crossing;
};

static uint64_t axis_count(const void *base)
{
	const struct gview *v = base;
	return v->naxes + fam_rows(v);
}

static void axis_row(const void *base, uint64_t i, void *out)
{
	const struct gview *v = base;
	const struct dc_topology *t = &v->t;
	struct axis_row *row = out;
	enum dc_axis a;
	if (i >= v->naxes) {
		enum fam_slot k = fam_nth(v, i - v->naxes);
		const struct family *f = &v->fam[k];
		row->axis = f->name;
		row->size = f->size;
		row->groups = f->count;
		row->stride = f->si;
		row->crossing = fam_crossing(t, f);
		row->link = v->link[k]; /* as comm prices it (plan.c, derive_hsdp) */
		return;
	}
	a = v->axes[i];
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
	for (int k = 0; k < FAM_MAX; k++)
		n += v->fam[k].size ? v->fam[k].count : 0;
	return n;
}

/* row `index` of the families' groups */
static void fam_group_row(const struct gview *v, uint64_t index, struct group_row *row)
{
	const struct family *f = v->fam;
	uint64_t base, dom = dc_topology_domain(&v->t);
	int k = 0;
	for (; k + 1 < FAM_MAX; k++) {
		uint64_t n = v->fam[k].size ? v->fam[k].count : 0;
		if (index < n)
			break;
		index -= n;
	}
	f = &v->fam[k];
	base = fam_base(f, index);
	fam_text(f, base, row->ranks, sizeof(row->ranks));
	row->axis = f->name;
	row->group = index;
	row->size = f->size;
	row->nodes = fam_nodes(&v->t, f, base);
	row->link = f->size < 2 ? "none" : fam_spans(f, base, dom) ? "inter_node" : "intra_node";
}

static void group_row(const void *base, uint64_t index, void *out)
{
	const struct gview *v = base;
	const struct dc_topology *t = &v->t;
	struct group_row *row = out;
	struct dc_group g;
	uint64_t axes_groups = 0;

	for (size_t i = 0; i < v->naxes; i++)
		axes_groups += dc_topology_group_count(t, v->axes[i]);
	if (index >= axes_groups) {
		fam_group_row(v, index - axes_groups, row);
		return;
	}
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

/* under HSDP the dp groups split the batch, and no collective runs on
 * them: the shard and replica groups below carry the traffic */
static void dp_label(const void *base, char *buf, size_t len)
{
	(void)dc_text_add(buf, len, 0,
			  ((const struct gview *)base)->fam[FAM_SHARD].size
				  ? "dp groups (the batch; HSDP syncs in the groups below)"
				  : "dp groups");
}

static const struct dc_field gfields[] = {
	{"tp", "tp groups", DC_U_NONE, DC_FT_LISTS, 0, .lists = &tp_lists},
	{"cp", "cp groups (one sequence split over them)", DC_U_NONE, DC_FT_LISTS, 0, .lists = &cp_lists,
	 .shown = has_cp},
	{"dp", "dp groups", DC_U_NONE, DC_FT_LISTS, 0, .lists = &dp_lists, .label_fn = dp_label},
	{"pp", "pp groups", DC_U_NONE, DC_FT_LISTS, 0, .lists = &pp_lists},
	{"ep", "ep groups (experts spread over)", DC_U_NONE, DC_FT_LISTS, 0, .lists = &ep_lists, .shown = has_ep},
	{"edp", "expert data-parallel groups (replicas of an expert shard)", DC_U_NONE, DC_FT_LISTS, 0,
	 .lists = &edp_lists, .shown = has_ep},
	{"shard", "shard groups (HSDP: a replica's dp x cp ranks, states sharded over them)", DC_U_NONE,
	 DC_FT_LISTS, 0, .lists = &shard_lists, .shown = shard_shown},
	{"replica", "replica groups (HSDP: the ranks holding the same shard)", DC_U_NONE, DC_FT_LISTS, 0,
	 .lists = &rep_lists, .shown = rep_shown},
	{"expert_shard", "expert shard groups (HSDP: a replica's share of an expert's data-parallel ranks)",
	 DC_U_NONE, DC_FT_LISTS, 0, .lists = &eshard_lists, .shown = eshard_shown},
	{"expert_replica", "expert replica groups (HSDP: the ranks holding the same expert shard)", DC_U_NONE,
	 DC_FT_LISTS, 0, .lists = &erep_lists, .shown = erep_shown},
	{"axes", "Per axis", DC_U_NONE, DC_FT_ROWS, 0, .sub = &axis_table, .rows = &axis_rows},
	{"list", "Every group and the link its ring crosses", DC_U_NONE, DC_FT_ROWS, 0, .sub = &group_table,
	 .rows = &group_rows},
};

_Static_assert(sizeof(struct gview) <= DC_VIEW_MAX, "view too large");

const struct dc_section dc_section_groups = {
	"groups", "Process groups", "every process group per axis and the link its ring crosses",
	0, sizeof(struct gview), gview, DC_FIELDS(gfields), NULL, NULL,
};
