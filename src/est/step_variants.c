/* step_variants.c - the step of the strategies comparison's aligned
 * variants (strategies.h), beside the configured layout's; see step.h. */
#include "distcalc/plan.h"
#include "distcalc/results.h"
#include "distcalc/step.h"
#include "distcalc/strategies.h"

static void variant_of(const struct dc_step *s, struct dc_step_variant *v)
{
	v->available = s->available;
	v->time_s = s->time_s;
	v->tokens_per_s_per_gpu = s->tokens_per_s_per_gpu;
	v->gpu_s_per_token = s->gpu_s_per_token;
}

int dc_step_variants(const struct dc_plan *p, struct dc_step *own, const char **error)
{
	return dc_step_variants_from(p, own, NULL, NULL, error);
}

/* A variant's plan, batch and collectives: the strategies row's (`parts`,
 * kept for p) or derived and priced here as that row does. */
struct variant_in {
	struct dc_plan plan;
	struct dc_batch batch;
	struct dc_comm comm;
};

/* Variant v: *is_of set when it is p itself (its step is p's); else *vp,
 * *vb, *vc point at its plan, batch and collectives, derived from *base
 * (p, or the variant before, which has the same degrees) into *own when
 * parts holds none. */
static int variant_parts(const struct dc_plan *p, const struct dc_variant_parts *parts, enum dc_variant v,
			 const struct dc_plan **base, struct variant_in *own, int *is_of, int *copies_of,
			 const struct dc_plan **vp, const struct dc_batch **vb, const struct dc_comm **vc,
			 const char **error)
{
	struct dc_layout lay;
	int aligned;
	if (parts) {
		*is_of = parts->is_of[v];
		*copies_of = parts->copies_of;
		*vp = &parts->plan[v];
		*vb = &parts->batch[v];
		*vc = &parts->comm[v];
		return 0;
	}
	dc_variant_layout(p, v, &lay, &aligned);
	if (v == DC_VARIANT_DP)
		*copies_of = dc_plan_derive_copies(p, &lay);
	*is_of = dc_variant_is_configured(p, &lay);
	if (*is_of)
		return 0;
	if (dc_plan_derive_from(*base, &lay, &own->plan) != 0) {
		*error = own->plan.error;
		return -1;
	}
	*base = &own->plan;
	/* the batch and comm rows, in the registry's order */
	if (dc_batch_compute(&own->plan, &own->batch, error) != 0 || dc_comm_compute(&own->plan, &own->comm, error) != 0)
		return -1;
	*vp = &own->plan;
	*vb = &own->batch;
	*vc = &own->comm;
	return 0;
}

int dc_step_variants_from(const struct dc_plan *p, struct dc_step *own, const struct dc_compute *own_c,
			  const struct dc_variant_parts *parts, const char **error)
{
	/* a variant shows its step time and rates alone, never its MFU or
	 * HFU, the one thing the step reads FLOPs for (step.h): its FLOPs
	 * are not counted, zeros stand in */
	static const struct dc_flops no_flops;
	struct variant_in in[DC_VARIANT_CONFIGURED];
	struct dc_compute kern;
	struct dc_step st;
	const struct dc_plan *base = p;
	int copies_of = 0;
	int kernels = 0; /* kern holds the variant before's kernels */

	if (parts && parts->of != p)
		parts = NULL; /* kept for another plan */
	variant_of(own, &own->variants[DC_VARIANT_CONFIGURED]);
	for (int v = 0; v < DC_VARIANT_CONFIGURED; v++) {
		const struct dc_plan *vp = NULL;
		const struct dc_batch *vb = NULL;
		const struct dc_comm *vc = NULL;
		int is_of;
		if (variant_parts(p, parts, (enum dc_variant)v, &base, &in[v], &is_of, &copies_of, &vp, &vb, &vc,
				  error) != 0)
			return -1;
		if (is_of) {
			/* p itself: p's step */
			variant_of(own, &own->variants[v]);
			continue;
		}
		/* the variants' layouts differ in their sharding alone
		 * (dc_variant_layout): the variant before's kernels, or p's
		 * when theirs is p's but for the sharding, with this one's own
		 * optimizer step (compute.h) */
		if (kernels) {
			dc_compute_reshard(vp, &kern);
		} else if (copies_of && own_c) {
			kern = *own_c;
			dc_compute_reshard(vp, &kern);
		} else if (dc_compute_compute(vp, &kern, error) != 0) {
			return -1;
		}
		kernels = 1;
		/* the step row (estimators.c) */
		if (dc_step_compute(vp, &kern, vc, &no_flops, vb, &st, error) != 0)
			return -1;
		variant_of(&st, &own->variants[v]);
	}
	return 0;
}
