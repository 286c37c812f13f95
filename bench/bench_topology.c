/* bench_topology.c - nanoseconds per crossing-group question at 65,536
 * ranks: the closed forms of topology.c against the loop over every group
 * they replaced (kept here as the reference). Each figure is the median of
 * several runs, printed as `name: value unit`. A benchmark prints figures;
 * it never passes or fails on time.
 *
 * usage: bench_topology [CONFIG]   (default configs/systems.json, which is
 * re-laid out with --set-style overrides)
 */
#define _POSIX_C_SOURCE 200809L

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "distcalc/config.h"
#include "distcalc/diag.h"
#include "distcalc/topology.h"

#define RUNS 7

static volatile uint64_t sink;

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The O(groups) count topology.c used before its closed form. */
static uint64_t loop_crossing_groups(const struct dc_topology *t, enum dc_axis axis)
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

/* The O(groups) search for an example group the TP warning used. */
static uint64_t loop_first_crossing_group(const struct dc_topology *t, enum dc_axis axis)
{
	uint64_t n = dc_topology_group_count(t, axis);
	struct dc_group g;

	for (uint64_t i = 0; i < n; i++) {
		dc_topology_group(t, axis, i, &g);
		if (dc_group_link(t, &g) == DC_LINK_INTER)
			return i;
	}
	return n;
}

static uint64_t closed_crossing_groups(const struct dc_topology *t, enum dc_axis axis)
{
	return dc_topology_crossing_groups(t, axis);
}

static uint64_t closed_first_crossing_group(const struct dc_topology *t, enum dc_axis axis)
{
	return dc_topology_first_crossing_group(t, axis);
}

static uint64_t closed_axis_crosses(const struct dc_topology *t, enum dc_axis axis)
{
	return (uint64_t)dc_topology_axis_crosses(t, axis);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* Median over RUNS runs of the ns per call of fn(t, axis), each run `calls`
 * calls long. */
static double ns_per_call(uint64_t (*fn)(const struct dc_topology *, enum dc_axis),
			  const struct dc_topology *t, enum dc_axis axis, unsigned long calls)
{
	double ns[RUNS];

	for (int r = 0; r < RUNS; r++) {
		double t0 = now_s();
		for (unsigned long i = 0; i < calls; i++)
			sink += fn(t, axis);
		ns[r] = (now_s() - t0) * 1e9 / (double)calls;
	}
	qsort(ns, RUNS, sizeof(ns[0]), cmp_double);
	return ns[RUNS / 2];
}

static int layout(const char *path, const struct dc_override *sets, size_t nsets, struct dc_topology *t)
{
	struct dc_config c;
	struct dc_diag d;
	int rc;

	dc_diag_init(&d);
	rc = dc_config_load_file(path, sets, nsets, &c, &d);
	if (rc != 0)
		fprintf(stderr, "bench_topology: %s\n", d.count ? d.entries[0].text : "config rejected");
	else
		dc_topology_init(&c, t);
	dc_diag_release(&d);
	return rc;
}

static void figures(const char *name, const struct dc_topology *t)
{
	static const enum dc_axis axes[] = {DC_AXIS_TP, DC_AXIS_DP, DC_AXIS_PP};

	for (size_t i = 0; i < sizeof(axes) / sizeof(axes[0]); i++) {
		enum dc_axis a = axes[i];
		const char *an = dc_axis_name(a);
		if (loop_crossing_groups(t, a) != dc_topology_crossing_groups(t, a) ||
		    loop_first_crossing_group(t, a) != dc_topology_first_crossing_group(t, a)) {
			fprintf(stderr, "bench_topology: closed form and loop disagree on %s %s\n", name, an);
			exit(1);
		}
		printf("crossing-groups loop %s %s: %.0f ns\n", an, name,
		       ns_per_call(loop_crossing_groups, t, a, 200));
		printf("crossing-groups closed %s %s: %.1f ns\n", an, name,
		       ns_per_call(closed_crossing_groups, t, a, 2000000));
		printf("axis-crosses closed %s %s: %.1f ns\n", an, name,
		       ns_per_call(closed_axis_crosses, t, a, 2000000));
		if (a != DC_AXIS_TP) /* only the TP warning needs an example group */
			continue;
		printf("first-crossing-group loop %s %s: %.0f ns\n", an, name,
		       ns_per_call(loop_first_crossing_group, t, a, 200));
		printf("first-crossing-group closed %s %s: %.1f ns\n", an, name,
		       ns_per_call(closed_first_crossing_group, t, a, 2000000));
	}
}

int main(int argc, char **argv)
{
	const char *path = argc > 1 ? argv[1] : "configs/systems.json";
	/* 8192 nodes x 8 GPUs = 65,536 ranks: tp 8, pp 16, dp 512 */
	const struct dc_override big[] = {{"cluster.num_nodes=8192"}, {"cluster.gpus_per_node=8"},
					  {"parallel.tp=8"}, {"parallel.pp=16"}, {"parallel.dp=512"}};
	/* the same with dp fastest: tp groups span nodes */
	const struct dc_override dp_first[] = {{"cluster.num_nodes=8192"}, {"cluster.gpus_per_node=8"},
					       {"parallel.tp=8"}, {"parallel.pp=16"}, {"parallel.dp=512"},
					       {"parallel.order=dp-tp-cp-ep-pp"}};
	/* 10,240 nodes x 6 GPUs = 61,440 ranks, tp 4: some tp groups straddle */
	const struct dc_override six[] = {{"cluster.num_nodes=10240"}, {"cluster.gpus_per_node=6"},
					  {"parallel.tp=4"}, {"parallel.pp=16"}, {"parallel.dp=960"}};
	struct dc_topology t;

	if (layout(path, big, sizeof(big) / sizeof(big[0]), &t) != 0)
		return 1;
	figures("65536 ranks tp-cp-ep-dp-pp", &t);
	if (layout(path, dp_first, sizeof(dp_first) / sizeof(dp_first[0]), &t) != 0)
		return 1;
	figures("65536 ranks dp-tp-cp-ep-pp", &t);
	if (layout(path, six, sizeof(six) / sizeof(six[0]), &t) != 0)
		return 1;
	figures("61440 ranks 6 per node", &t);
	return 0;
}
