/* topology.h - ranks, their (tp, cp, ep, dp, pp) coordinates, nodes and groups.
 *
 * Global ranks are laid out like Megatron-LM's RankGenerator: the axes of
 * parallel.order, the first varying fastest, so axis k has rank stride
 * degree(order[0]) x ... x degree(order[k-1]). cp and ep have degree 1 until
 * the config grows them. Rank r lives on node r / gpus_per_node.
 *
 * Every group along one axis is an arithmetic progression of ranks
 * (first, first + stride, ...), so a group is described by three numbers and
 * nothing here costs more than O(1) per rank or per group: no O(world^2).
 * Derivation and worked example: docs/formulas-systems.md, "Rank layout".
 */
#ifndef DISTCALC_TOPOLOGY_H
#define DISTCALC_TOPOLOGY_H

#include <stddef.h>
#include <stdint.h>

#include "distcalc/config.h"

struct dc_topology {
	uint64_t world;
	uint64_t gpus_per_node;
	uint64_t degree[DC_AXIS_COUNT];  /* indexed by enum dc_axis */
	uint64_t stride[DC_AXIS_COUNT];  /* rank distance between neighbours on the axis */
	enum dc_axis order[DC_AXIS_COUNT]; /* order[0] varies fastest */
};

/* One group along one axis: ranks first + k * stride, k = 0..size-1. */
struct dc_group {
	enum dc_axis axis;
	uint64_t index; /* 0..groups-1 */
	uint64_t first, stride, size;
};

/* Fills *t from the config's degrees and order. cfg->world_size must equal
 * dp x tp x pp (the loader checks it). */
void dc_topology_init(const struct dc_config *cfg, struct dc_topology *t);

/* Coordinates of `rank` on every axis, indexed by enum dc_axis. */
void dc_topology_coords(const struct dc_topology *t, uint64_t rank, uint64_t coord[DC_AXIS_COUNT]);

uint64_t dc_topology_node(const struct dc_topology *t, uint64_t rank);

/* Number of groups along `axis`: world / degree(axis). */
uint64_t dc_topology_group_count(const struct dc_topology *t, enum dc_axis axis);

/* Group `index` along `axis`. Groups are numbered by the coordinates of the
 * other axes, the fastest-varying first, so group 0 holds rank 0. */
void dc_topology_group(const struct dc_topology *t, enum dc_axis axis, uint64_t index,
		       struct dc_group *g);

uint64_t dc_group_rank(const struct dc_group *g, uint64_t k);

/* Distinct nodes the group's ranks sit on. */
uint64_t dc_group_nodes(const struct dc_topology *t, const struct dc_group *g);

/* The link a ring over the group crosses: DC_LINK_INTRA when every member
 * shares a node (a group of one also counts), else DC_LINK_INTER. */
enum dc_link_choice dc_group_link(const struct dc_topology *t, const struct dc_group *g);

/* Groups along `axis` whose members span more than one node. O(groups). */
uint64_t dc_topology_crossing_groups(const struct dc_topology *t, enum dc_axis axis);

/* The slowest link any group along `axis` crosses (the synchronous step
 * waits for the slowest group); *link gets its parameters. */
enum dc_link_choice dc_topology_axis_link(const struct dc_config *cfg, const struct dc_topology *t,
					  enum dc_axis axis, struct dc_link *link);

/* Writes the group's ranks compactly into buf: "0-3", "0, 4",
 * "0, 4, 8, ..., 28". Always NUL-terminated. */
void dc_group_text(const struct dc_group *g, char *buf, size_t len);

#endif
