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
	return dc_step_variants_from(p, own, NULL, NULL, NULL, error);
}

int dc_step_variants_from(const struct dc_plan *p, struct dc_step *own, const struct dc_compute *own_c,
			  const struct dc_flops *own_f, const struct dc_variant_parts *parts, const char **error)
{
	struct dc_plan plans[2];
	struct dc_results vr;
	const struct dc_plan *base = p;
	int kernels = 0; /* vr.compute and vr.flops hold the pure-DP variant's */
	for (int v = 0; v < DC_VARIANT_COUNT; v++) {
		struct dc_layout lay;
		int aligned;
		struct dc_plan *vp;
		if (v == DC_VARIANT_CONFIGURED) {
			variant_of(own, &own->variants[v]);
			continue;
		}
		if (parts && parts->of == p) {
			/* the strategies row's plan, batch and collectives of
			 * this variant: what the lines below would compute */
			const struct dc_plan *pv = &parts->plan[v];
			uint32_t have = DC_EST_BIT(DC_EST_BATCH);
			vr.batch = parts->batch[v];
			if (v == DC_VARIANT_FSDP && kernels) {
				/* FSDP's layout is pure DP's but for the sharding
				 * (dc_variant_layout): the same kernels, its own
				 * optimizer step (compute.h), and the same FLOPs
				 * (flops.c reads no sharding: the search's resharded
				 * layouts keep theirs too) */
				dc_compute_reshard(pv, &vr.compute);
				have |= DC_EST_BIT(DC_EST_COMPUTE) | DC_EST_BIT(DC_EST_FLOPS);
			} else if (v == DC_VARIANT_DP && parts->dp_copies_of && own_c && own_f) {
				/* pure DP's plan is p's but for the sharding (a
				 * configured tp = pp = cp = 1 over every rank): p's
				 * kernels with its own optimizer step, p's FLOPs, as
				 * FSDP's from pure DP's below */
				vr.compute = *own_c;
				dc_compute_reshard(pv, &vr.compute);
				vr.flops = *own_f;
				have |= DC_EST_BIT(DC_EST_COMPUTE) | DC_EST_BIT(DC_EST_FLOPS);
			}
			if (dc_estimate_with(pv, DC_EST_BIT(DC_EST_FLOPS) | DC_EST_BIT(DC_EST_COMPUTE), have, &vr) != 0) {
				*error = vr.error;
				return -1;
			}
			kernels = v == DC_VARIANT_DP;
			/* the step row (estimators.c), on the kept collectives */
			if (dc_step_compute(pv, &vr.compute, &parts->comm[v], &vr.flops, &parts->batch[v], &vr.step,
					    error) != 0)
				return -1;
			variant_of(&vr.step, &own->variants[v]);
			continue;
		}
		dc_variant_layout(p, (enum dc_variant)v, &lay, &aligned);
		vp = &plans[v];
		if (dc_plan_derive_from(base, &lay, vp) != 0) {
			*error = vp->error;
			return -1;
		}
		base = vp;
		/* the step row alone: DC_EST_STEP_VARIANTS, which calls this,
		 * is not wanted for a variant */
		if (dc_estimate(vp, DC_EST_BIT(DC_EST_STEP), &vr) != 0) {
			*error = vr.error;
			return -1;
		}
		variant_of(&vr.step, &own->variants[v]);
	}
	return 0;
}
