/* plan.h - everything derived from the input, derived once.
 *
 * The loader (config.h) keeps what the file and --set said. dc_plan_derive
 * turns that input and its parallel layout into every derived quantity, each
 * with one home: the degree of every axis and the world size (their
 * product), ranks' strides and nodes (struct dc_topology), the expert
 * layout carved out of dp as Megatron-Core does, the parameter totals, the
 * ring lab's defaults. Estimators (results.h) read the plan, never the
 * loader's derivations. No allocation: a layout search derives millions of
 * plans a second.
 */
#ifndef DISTCALC_PLAN_H
#define DISTCALC_PLAN_H

#include <stdint.h>

#include "distcalc/config.h"
#include "distcalc/topology.h"

struct dc_plan {
	const struct dc_config *in; /* the input, borrowed: it must outlive the plan */
	struct dc_topology topo;    /* degree[DC_AXIS_*], strides, order, world */
	uint64_t num_nodes;
	uint64_t ep;                /* expert-parallel degree (>= 1), carved out of dp */
	uint64_t params_total;      /* model.params when given, else the shape's count */
	uint64_t params_active;     /* what one token uses (MoE: top-k experts) */
	uint64_t ring_ranks;        /* collective.ranks, default the world */
	uint64_t ring_msg_bytes;    /* collective.message_size, default one rank's gradient bytes */
	const char *error;          /* static text when dc_plan_derive fails */
};

/* Fills *p from `in`. Returns 0, or -1 with p->error set (an overflow the
 * loader's range checks let through). `in` must come from the loader. */
int dc_plan_derive(const struct dc_config *in, struct dc_plan *p);

#endif
