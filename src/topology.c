/* topology.c - rank layout and groups; see topology.h and
 * docs/formulas-systems.md, "Rank layout". */
#include "distcalc/topology.h"

#include <stdio.h>
#include <string.h>

void dc_topology_init(const struct dc_config *cfg, struct dc_topology *t)
{
	uint64_t stride = 1;

	memset(t, 0, sizeof(*t));
	t->world = cfg->world_size;
	t->gpus_per_node = cfg->cluster.gpus_per_node ? cfg->cluster.gpus_per_node : 1;
	for (int a = 0; a < DC_AXIS_COUNT; a++)
		t->degree[a] = 1;
	t->degree[DC_AXIS_TP] = cfg->parallel.tp;
	t->degree[DC_AXIS_DP] = cfg->parallel.dp;
	t->degree[DC_AXIS_PP] = cfg->parallel.pp;
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

void dc_topology_group(const struct dc_topology *t, enum dc_axis axis, uint64_t index,
		       struct dc_group *g)
{
	uint64_t rest = index, first = 0;

	/* the index enumerates the other axes' coordinates, fastest first */
	for (int k = 0; k < DC_AXIS_COUNT; k++) {
		enum dc_axis a = t->order[k];
		if (a == axis)
			continue;
		first += rest % t->degree[a] * t->stride[a];
		rest /= t->degree[a];
	}
	g->axis = axis;
	g->index = index;
	g->first = first;
	g->stride = t->stride[axis];
	g->size = t->degree[axis];
}

uint64_t dc_group_rank(const struct dc_group *g, uint64_t k)
{
	return g->first + k * g->stride;
}

uint64_t dc_group_nodes(const struct dc_topology *t, const struct dc_group *g)
{
	uint64_t n = t->gpus_per_node;
	uint64_t last = dc_group_rank(g, g->size - 1);

	/* members at least a node apart sit on distinct nodes; closer members
	 * leave no node between the first and the last one unvisited */
	if (g->stride >= n)
		return g->size;
	return last / n - g->first / n + 1;
}

enum dc_link_choice dc_group_link(const struct dc_topology *t, const struct dc_group *g)
{
	return dc_group_nodes(t, g) > 1 ? DC_LINK_INTER : DC_LINK_INTRA;
}

uint64_t dc_topology_crossing_groups(const struct dc_topology *t, enum dc_axis axis)
{
	uint64_t n = dc_topology_group_count(t, axis), crossing = 0;
	struct dc_group g;

	for (uint64_t i = 0; i < n; i++) {
		dc_topology_group(t, axis, i, &g);
		if (dc_group_link(t, &g) == DC_LINK_INTER)
			crossing++;
	}
	return crossing;
}

enum dc_link_choice dc_topology_axis_link(const struct dc_config *cfg, const struct dc_topology *t,
					  enum dc_axis axis, struct dc_link *link)
{
	enum dc_link_choice c = dc_topology_crossing_groups(t, axis) > 0 ? DC_LINK_INTER : DC_LINK_INTRA;
	*link = c == DC_LINK_INTER ? cfg->cluster.inter_node : cfg->cluster.intra_node;
	return c;
}

void dc_group_text(const struct dc_group *g, char *buf, size_t len)
{
	unsigned long long first = (unsigned long long)g->first;
	unsigned long long last = (unsigned long long)dc_group_rank(g, g->size - 1);

	if (g->size == 1)
		snprintf(buf, len, "%llu", first);
	else if (g->stride == 1)
		snprintf(buf, len, "%llu-%llu", first, last);
	else if (g->size <= 4) {
		/* short groups in full: "0, 4" or "0, 2, 4, 6" */
		size_t used = 0;
		for (uint64_t k = 0; k < g->size && used < len; k++) {
			int n = snprintf(buf + used, len - used, k ? ", %llu" : "%llu",
					 (unsigned long long)dc_group_rank(g, k));
			if (n < 0)
				break;
			used += (size_t)n;
		}
	} else {
		snprintf(buf, len, "%llu, %llu, ..., %llu (%llu ranks, every %llu)", first,
			 first + (unsigned long long)g->stride, last, (unsigned long long)g->size,
			 (unsigned long long)g->stride);
	}
}
