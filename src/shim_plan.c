/* shim_plan.c - TEMPORARY: plan and estimators over the old compute
 * functions, until the plan branch lands. */
#include <stdlib.h>
#include <string.h>

#include "distcalc/plan.h"
#include "distcalc/results.h"

int dc_plan_derive(const struct dc_config *in, struct dc_plan *p)
{
	memset(p, 0, sizeof(*p));
	p->in = in;
	dc_topology_init(in, &p->topo);
	p->num_nodes = in->cluster.num_nodes;
	p->ep = in->parallel.ep ? in->parallel.ep : 1;
	p->params_total = in->model.params;
	p->params_active = in->model.params_active;
	p->ring_ranks = in->collective.ranks;
	p->ring_msg_bytes = in->collective.msg_bytes;
	return 0;
}

static int all_classes(const struct dc_config *c, struct dc_mem_ledger **cls, uint64_t *n, uint64_t *most)
{
	struct dc_diag d;
	int rc;
	*cls = calloc(c->parallel.pp, sizeof(**cls));
	if (!*cls)
		return -1;
	dc_diag_init(&d);
	rc = dc_memory_compute(c, *cls, n, most, "x", &d);
	dc_diag_release(&d);
	return rc;
}

int dc_memory_class_at(const struct dc_plan *p, const struct dc_memory_result *m, uint64_t i,
		       struct dc_mem_ledger *out)
{
	struct dc_mem_ledger *cls;
	uint64_t n, most;
	(void)m;
	if (all_classes(p->in, &cls, &n, &most) != 0) {
		free(cls);
		return -1;
	}
	*out = cls[i];
	free(cls);
	return 0;
}

static int est(const struct dc_plan *p, struct dc_results *r, int e)
{
	const struct dc_config *c = p->in;
	struct dc_diag d;
	int rc = 0;
	dc_diag_init(&d);
	switch (e) {
	case DC_EST_MODEL:
		rc = dc_params_terms(&c->model, &r->model.terms) ||
		     dc_stage_params_most_loaded(c, &r->model.most, &r->model.most_stage);
		break;
	case DC_EST_BATCH: rc = dc_batch_compute(c, &r->batch, "x", &d); break;
	case DC_EST_MEMORY: {
		struct dc_mem_ledger *cls;
		uint64_t n, most;
		rc = all_classes(c, &cls, &n, &most);
		if (rc == 0) {
			r->memory.nclasses = n;
			r->memory.most_loaded = most;
			r->memory.top = cls[most];
		}
		free(cls);
		break;
	}
	case DC_EST_RING: {
		struct dc_link link;
		enum dc_link_choice ch = dc_ring_pick_link(c, c->collective.ranks, &link);
		dc_ring_compute(c->collective.ranks, c->collective.msg_bytes, &link, ch, &r->ring);
		break;
	}
	case DC_EST_COMM: rc = dc_comm_compute(c, &r->comm, "x", &d); break;
	case DC_EST_STRATEGIES:
		rc = dc_strategies_compute(c, r->strategies.v, "x", &d);
		for (int v = 0; v < DC_VARIANT_COUNT; v++) {
			struct dc_variant_result *x = &r->strategies.v[v];
			x->tp = x->cfg.parallel.tp;
			x->pp = x->cfg.parallel.pp;
			x->dp = x->cfg.parallel.dp;
			x->sharding = x->cfg.parallel.sharding;
			x->micro_batch_size = x->cfg.training.micro_batch_size;
			x->grad_accum_steps = x->cfg.training.grad_accum_steps;
		}
		break;
	case DC_EST_FLOPS: rc = dc_flops_compute(c, &r->flops); break;
	}
	dc_diag_release(&d);
	if (rc)
		r->error = "shim failure";
	return rc ? -1 : 0;
}

int dc_estimate(const struct dc_plan *plan, uint32_t wanted, struct dc_results *r)
{
	for (int e = 0; e < DC_EST_COUNT; e++)
		if ((wanted & DC_EST_BIT(e)) && est(plan, r, e) != 0)
			return -1;
	r->done = wanted;
	return 0;
}
