/* topology.h - ranks, their (tp, cp, ep, dp, pp) coordinates, nodes and groups.
 *
 * Global ranks are laid out like Megatron-LM's RankGenerator: the axes of
 * parallel.order, the first varying fastest, so axis k has rank stride
 * degree(order[0]) x ... x degree(order[k-1]). cp has parallel.cp's degree;
 * ep has degree 1 as a rank axis (Megatron-Core carves it out of dp). Rank r lives on node r / gpus_per_node.
 *
 * Every group along one axis is an arithmetic progression of ranks
 * (first, first + stride, ...), so a group is described by three numbers and
 * nothing here costs more than O(1) per rank or per group: no O(world^2).
 * Questions about all the groups of an axis (how many cross nodes or
 * NVLink domains, which is the first, what link the axis needs) are
 * answered in closed form, in O(log gpus_per_node) (O(nvlink_domain) for a
 * world that ends inside a domain's period) at most, never by visiting
 * the groups. The link is decided by domains: crossing nodes inside one
 * NVLink domain (an NVL72 rack's trays) is NVLink.
 *
 * Every function takes a topology whose world is the product of the
 * degrees and a whole number of nodes (gpus_per_node divides it), with the
 * strides above and world <= 2^32 (the loader allows 2^24, so no product
 * here overflows): the loader and dc_topology_init guarantee it; a
 * hand-built struct must too.
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
	/* GPUs on one NVLink fabric (cluster.nvlink_domain), a multiple of
	 * gpus_per_node: ranks of one domain talk over NVLink, ranks of two
	 * over the network. 0 (a hand-built topology): the node. */
	uint64_t nvlink_domain;
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
 * dp x tp x cp x pp (the loader checks it). */
void dc_topology_init(const struct dc_config *cfg, struct dc_topology *t);

/* As dc_topology_init for a layout other than the config's: these
 * degrees (cp >= 1) and world = tp x dp x pp x cp, the config's cluster
 * and parallel.order. */
void dc_topology_init_degrees(const struct dc_config *cfg, uint64_t tp, uint64_t dp, uint64_t pp, uint64_t cp,
			      uint64_t world, struct dc_topology *t);

/* Coordinates of `rank` on every axis, indexed by enum dc_axis. */
void dc_topology_coords(const struct dc_topology *t, uint64_t rank, uint64_t coord[DC_AXIS_COUNT]);

uint64_t dc_topology_node(const struct dc_topology *t, uint64_t rank);

/* Number of groups along `axis`: world / degree(axis). */
uint64_t dc_topology_group_count(const struct dc_topology *t, enum dc_axis axis);

/* Group `index` along `axis`, 0 <= index < dc_topology_group_count. Groups
 * are numbered by the coordinates of the other axes, the fastest-varying
 * first, so group 0 holds rank 0: first = index mod stride +
 * (index / stride) x stride x degree. O(1). */
void dc_topology_group(const struct dc_topology *t, enum dc_axis axis, uint64_t index,
		       struct dc_group *g);

uint64_t dc_group_rank(const struct dc_group *g, uint64_t k);

/* Distinct nodes the group's ranks sit on (any progression with size >= 1,
 * not only a layout's groups). O(1). */
uint64_t dc_group_nodes(const struct dc_topology *t, const struct dc_group *g);

/* GPUs per NVLink domain: t->nvlink_domain, or the node when that is 0
 * or not a multiple of it. Domain d holds ranks d x domain .. (d + 1) x
 * domain - 1; a world need not be a whole number of domains. */
uint64_t dc_topology_domain(const struct dc_topology *t);

/* Distinct NVLink domains the group's ranks sit on. O(1). */
uint64_t dc_group_domains(const struct dc_topology *t, const struct dc_group *g);

/* The link a ring over the group crosses: DC_LINK_INTRA (NVLink,
 * cluster.intra_node) when every member shares an NVLink domain (a group
 * of one also counts), else DC_LINK_INTER (the network,
 * cluster.inter_node). With nvlink_domain = gpus_per_node, a domain is a
 * node. O(1). */
enum dc_link_choice dc_group_link(const struct dc_topology *t, const struct dc_group *g);

/* 1 when some group along `axis` spans more than one node, else 0: when
 * degree >= 2 and stride x degree does not divide gpus_per_node. O(1). */
int dc_topology_axis_crosses(const struct dc_topology *t, enum dc_axis axis);

/* Groups along `axis` whose members span more than one node, counted in
 * closed form. O(log gpus_per_node). */
uint64_t dc_topology_crossing_groups(const struct dc_topology *t, enum dc_axis axis);

/* Index of the first group along `axis` that spans more than one node, or
 * dc_topology_group_count(t, axis) when none does. O(log gpus_per_node). */
uint64_t dc_topology_first_crossing_group(const struct dc_topology *t, enum dc_axis axis);

/* As the three above, for NVLink domains instead of nodes: 1 when some
 * group along `axis` spans two domains; how many do; O(log domain), plus
 * fewer than `domain` steps when the world is not a whole number of
 * domains' periods. */
int dc_topology_axis_crosses_domains(const struct dc_topology *t, enum dc_axis axis);
uint64_t dc_topology_domain_crossing_groups(const struct dc_topology *t, enum dc_axis axis);

/* The first group that spans two NVLink domains in the family of groups
 * of `degree` ranks `stride` apart that start at every i + stride x
 * degree x j (i < stride): an axis's groups (its stride and degree), or
 * groups carved out of one (the expert-parallel groups: dp's stride, ep).
 * stride x degree must divide the world. Fills *g (axis DC_AXIS_DP, its
 * index in the family, first, stride, size) with it and returns 1, or
 * with the family's group 0 and returns 0 when none spans two domains.
 * O(log domain). */
int dc_topology_first_domain_crossing(const struct dc_topology *t, uint64_t stride, uint64_t degree,
				      struct dc_group *g);

/* The slowest link any group along `axis` crosses (the synchronous step
 * waits for the slowest group): DC_LINK_INTER when one spans two NVLink
 * domains; *link gets its parameters. O(log domain). */
enum dc_link_choice dc_topology_axis_link(const struct dc_config *cfg, const struct dc_topology *t,
					  enum dc_axis axis, struct dc_link *link);

/* Writes the group's ranks compactly into buf: "0-3", "0, 4",
 * "0, 4, 8, ..., 28". Always NUL-terminated. */
void dc_group_text(const struct dc_group *g, char *buf, size_t len);

#endif
