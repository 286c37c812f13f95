/* topology.c - rank layout and groups; see topology.h and
 * docs/formulas-systems.md, "Rank layout". */
#include "distcalc/topology.h"

#include <stdio.h>
#include <string.h>

#include "distcalc/util.h"

void dc_topology_init(const struct dc_config *cfg, struct dc_topology *t)
{
	/* cp 0: a hand-built config without cp */
	dc_topology_init_degrees(cfg, cfg->parallel.tp, cfg->parallel.dp, cfg->parallel.pp,
				 cfg->parallel.cp ? cfg->parallel.cp : 1, cfg->world_size, t);
}

void dc_topology_init_degrees(const struct dc_config *cfg, uint64_t tp, uint64_t dp, uint64_t pp, uint64_t cp,
			      uint64_t world, struct dc_topology *t)
{
	uint64_t stride = 1;

	memset(t, 0, sizeof(*t));
	t->world = world;
	t->gpus_per_node = cfg->cluster.gpus_per_node ? cfg->cluster.gpus_per_node : 1;
	/* as dc_net_init: a domain that is not a multiple of the node (a
	 * hand-built config's 0) is the node */
	t->nvlink_domain = cfg->cluster.nvlink_domain;
	if (!t->nvlink_domain || t->nvlink_domain % t->gpus_per_node)
		t->nvlink_domain = t->gpus_per_node;
	for (int a = 0; a < DC_AXIS_COUNT; a++)
		t->degree[a] = 1;
	t->degree[DC_AXIS_TP] = tp;
	t->degree[DC_AXIS_DP] = dp;
	t->degree[DC_AXIS_PP] = pp;
	t->degree[DC_AXIS_CP] = cp;
	/* Megatron-LM RankGenerator: the first axis of the order varies fastest */
	for (int k = 0; k < DC_AXIS_COUNT; k++) {
		enum dc_axis a = cfg->parallel.order[k];
		t->order[k] = a;
		t->stride[a] = stride;
		stride *= t->degree[a];
	}
}

void dc_topology_coords(const struct dc_topology *t, uint64_t rank, uint64_t coord[DC_AXIS_COUNT])
{
	for (int a = 0; a < DC_AXIS_COUNT; a++)
		coord[a] = rank / t->stride[a] % t->degree[a];
}

uint64_t dc_topology_node(const struct dc_topology *t, uint64_t rank)
{
	return rank / t->gpus_per_node;
}

uint64_t dc_topology_group_count(const struct dc_topology *t, enum dc_axis axis)
{
	return t->world / t->degree[axis];
}

/* Rank distance between one group's first member and the next group's
 * block: the axis's stride times its degree (B in the doc). */
static uint64_t block(const struct dc_topology *t, enum dc_axis axis)
{
	return t->stride[axis] * t->degree[axis];
}

void dc_topology_group(const struct dc_topology *t, enum dc_axis axis, uint64_t index,
		       struct dc_group *g)
{
	uint64_t s = t->stride[axis];

	/* the axes faster than `axis` fill the first s ranks of a block of
	 * s x degree ranks, the slower ones number the blocks, so the index's
	 * low digits (mod s) are the offset inside the block, the rest the block */
	g->axis = axis;
	g->index = index;
	g->first = index % s + index / s * block(t, axis);
	g->stride = s;
	g->size = t->degree[axis];
}

uint64_t dc_group_rank(const struct dc_group *g, uint64_t k)
{
	return g->first + k * g->stride;
}

uint64_t dc_topology_domain(const struct dc_topology *t)
{
	/* a hand-built topology (0) or one out of step with its node: the node */
	if (t->nvlink_domain && t->gpus_per_node && t->nvlink_domain % t->gpus_per_node == 0)
		return t->nvlink_domain;
	return t->gpus_per_node;
}

/* Distinct units of n consecutive ranks (nodes, NVLink domains) the
 * group's ranks sit on */
static uint64_t group_units(uint64_t n, const struct dc_group *g)
{
	uint64_t last = dc_group_rank(g, g->size - 1);

	/* members at least a unit apart sit in distinct units; closer members
	 * leave no unit between the first and the last one unvisited */
	if (g->stride >= n)
		return g->size;
	return last / n - g->first / n + 1;
}

uint64_t dc_group_nodes(const struct dc_topology *t, const struct dc_group *g)
{
	return group_units(t->gpus_per_node, g);
}

uint64_t dc_group_domains(const struct dc_topology *t, const struct dc_group *g)
{
	return group_units(dc_topology_domain(t), g);
}

enum dc_link_choice dc_group_link(const struct dc_topology *t, const struct dc_group *g)
{
	return dc_group_domains(t, g) > 1 ? DC_LINK_INTER : DC_LINK_INTRA;
}

/* A family of groups: `deg` ranks `s` apart, one group starting at every
 * i + B j (i < s, j < world / B, B = s deg): an axis's groups, or the
 * expert groups carved out of dp. L = (deg - 1) s is a group's span
 * (member 0 to the last); a group spans units of n ranks iff its first
 * rank's offset in its unit is at least n - L. */
struct family {
	uint64_t world, n, s, deg;
};

static uint64_t fam_block(const struct family *f)
{
	return f->s * f->deg;
}

static uint64_t fam_span(const struct family *f)
{
	return (f->deg - 1) * f->s;
}

static uint64_t fam_groups(const struct family *f)
{
	return f->world / f->deg;
}

/* Index of the family's first group that spans two units, or
 * fam_groups(f) when none does. */
static uint64_t fam_first_crossing(const struct family *f)
{
	uint64_t n = f->n, s = f->s, L = fam_span(f), B = fam_block(f), g, need, lo, j, r, i;

	if (f->deg < 2 || n % B == 0)
		return fam_groups(f);
	if (L >= n) /* no unit holds a whole group */
		return 0;
	/* groups are numbered i + s j (i < s the offset in block j); block j
	 * starts at r = B j mod n into its unit and holds a crossing group iff
	 * r + s - 1 >= n - L. The first such block: the smallest j with
	 * (B / g) j mod (n / g) >= ceil((n - L - s + 1) / g); in it the first
	 * crossing group starts at offset max(0, n - L - r). A world that is
	 * not a whole number of units (NVLink domains) may end before it. */
	g = dc_gcd_u64(B, n);
	need = n - L > s - 1 ? n - L - (s - 1) : 0;
	lo = need / g + (need % g != 0);
	j = dc_first_in_range(B % n / g, n / g, lo, n / g - 1);
	if (j == UINT64_MAX || j >= f->world / B)
		return fam_groups(f);
	r = B % n * j % n;
	i = r >= n - L ? 0 : n - L - r;
	return i + s * j;
}

/* Offsets t < x (t taken mod n) that lie in the last L of their unit */
static uint64_t in_tail(uint64_t x, uint64_t n, uint64_t L)
{
	return x / n * L + (x % n > n - L ? x % n - (n - L) : 0);
}

/* The family's groups that span two units, in closed form. */
static uint64_t fam_crossing_groups(const struct family *f)
{
	uint64_t n = f->n, s = f->s, L = fam_span(f), B = fam_block(f);
	uint64_t g, P, J, count, per_period;

	if (fam_first_crossing(f) == fam_groups(f))
		return 0;
	if (L >= n) /* no unit holds a whole group */
		return fam_groups(f);
	/* group (i, j) starts at i + B j, i < s, j < J = world / B; it crosses
	 * iff (i + B j) mod n >= n - L. B j mod n runs over the multiples of
	 * g = gcd(B, n) once every P = n / g blocks, so a period holds one
	 * crossing group per pair (a, b), a < s, b < L, with g | a + b + 1.
	 * Each a has floor(L / g) such b, and one more when the class of
	 * -1 - a is below L mod g, i.e. (g divides B = s + L) when
	 * L mod g > 0 and a mod g >= s mod g: floor(s / g) x (L mod g) of the a.
	 * A world of whole units (nodes) holds whole periods; the blocks of a
	 * last, partial period (a world that ends inside an NVLink domain's
	 * period) are counted one by one, fewer than P <= n of them. */
	g = dc_gcd_u64(B, n);
	P = n / g;
	J = f->world / B;
	per_period = s * (L / g) + s / g * (L % g);
	count = J / P * per_period;
	for (uint64_t j = J - J % P; j < J; j++) {
		uint64_t r = B % n * (j % P) % n;
		count += in_tail(r + s, n, L) - in_tail(r, n, L);
	}
	return count;
}

static struct family axis_family(const struct dc_topology *t, enum dc_axis axis, uint64_t n)
{
	struct family f = {t->world, n, t->stride[axis], t->degree[axis]};
	return f;
}

int dc_topology_axis_crosses(const struct dc_topology *t, enum dc_axis axis)
{
	/* blocks of B = stride x degree ranks hold whole groups; they tile the
	 * nodes iff B divides gpus_per_node, otherwise some block, and a group
	 * in it, straddles a node boundary (docs/formulas-systems.md) */
	return t->degree[axis] > 1 && t->gpus_per_node % block(t, axis) != 0;
}

uint64_t dc_topology_crossing_groups(const struct dc_topology *t, enum dc_axis axis)
{
	struct family f = axis_family(t, axis, t->gpus_per_node);
	return fam_crossing_groups(&f);
}

uint64_t dc_topology_first_crossing_group(const struct dc_topology *t, enum dc_axis axis)
{
	struct family f = axis_family(t, axis, t->gpus_per_node);
	return fam_first_crossing(&f);
}

int dc_topology_axis_crosses_domains(const struct dc_topology *t, enum dc_axis axis)
{
	struct family f = axis_family(t, axis, dc_topology_domain(t));
	return fam_first_crossing(&f) < fam_groups(&f);
}

uint64_t dc_topology_domain_crossing_groups(const struct dc_topology *t, enum dc_axis axis)
{
	struct family f = axis_family(t, axis, dc_topology_domain(t));
	return fam_crossing_groups(&f);
}

int dc_topology_first_domain_crossing(const struct dc_topology *t, uint64_t stride, uint64_t degree,
				      struct dc_group *g)
{
	struct family f = {t->world, dc_topology_domain(t), stride ? stride : 1, degree ? degree : 1};
	uint64_t idx = fam_first_crossing(&f), B = fam_block(&f);
	int crosses = idx < fam_groups(&f);

	if (!crosses)
		idx = 0;
	g->axis = DC_AXIS_DP;
	g->index = idx;
	g->first = idx % f.s + idx / f.s * B;
	g->stride = f.s;
	g->size = f.deg;
	return crosses;
}

enum dc_link_choice dc_topology_axis_link(const struct dc_config *cfg, const struct dc_topology *t,
					  enum dc_axis axis, struct dc_link *link)
{
	enum dc_link_choice c = dc_topology_axis_crosses_domains(t, axis) ? DC_LINK_INTER : DC_LINK_INTRA;
	*link = c == DC_LINK_INTER ? cfg->cluster.inter_node : cfg->cluster.intra_node;
	return c;
}

/* Appends the decimal digits of v at t[*o]. */
static void text_u64(char *t, size_t *o, uint64_t v)
{
	char d[24];
	size_t n = 0;
	do {
		d[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	while (n)
		t[(*o)++] = d[--n];
}

static void text_str(char *t, size_t *o, const char *s)
{
	while (*s)
		t[(*o)++] = *s++;
}

void dc_group_text(const struct dc_group *g, char *buf, size_t len)
{
	uint64_t first = g->first, last = dc_group_rank(g, g->size - 1);
	/* the text in full (at most five numbers of 20 digits and 30 bytes
	 * of words), then cut at len - 1 bytes as snprintf would */
	char t[160];
	size_t o = 0;

	if (g->size == 1) {
		text_u64(t, &o, first);
	} else if (g->stride == 1) {
		text_u64(t, &o, first);
		t[o++] = '-';
		text_u64(t, &o, last);
	} else if (g->size <= 4) {
		/* short groups in full: "0, 4" or "0, 2, 4, 6" */
		for (uint64_t k = 0; k < g->size; k++) {
			if (k)
				text_str(t, &o, ", ");
			text_u64(t, &o, dc_group_rank(g, k));
		}
	} else {
		text_u64(t, &o, first);
		text_str(t, &o, ", ");
		text_u64(t, &o, first + g->stride);
		text_str(t, &o, ", ..., ");
		text_u64(t, &o, last);
		text_str(t, &o, " (");
		text_u64(t, &o, g->size);
		text_str(t, &o, " ranks, every ");
		text_u64(t, &o, g->stride);
		t[o++] = ')';
	}
	if (!len)
		return;
	if (o >= len)
		o = len - 1;
	memcpy(buf, t, o);
	buf[o] = '\0';
}
