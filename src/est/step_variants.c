/* step_variants.c - the step of the strategies comparison's aligned
 * variants (strategies.h), beside the configured layout's; see step.h. */
#include <stdlib.h>

#include "distcalc/memo_verify.h"
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

#ifdef DISTCALC_VERIFY_MEMOS
/* Variant v that is the configured layout, its step taken from p's
 * (kept), against its step derived and priced afresh from its layout, as
 * another variant's is: its own plan, batch, collectives and kernels,
 * no FLOPs */
static void configured_verify(const struct dc_plan *p, enum dc_variant v, const struct dc_step_variant *kept)
{
	static const char memo[] = "a variant that is the configured layout, its step p's (src/est/step_variants.c)";
	static const struct dc_memo_field fields[] = {
		DC_MEMO_FIELD(struct dc_step_variant, available),
		DC_MEMO_FIELD(struct dc_step_variant, time_s),
		DC_MEMO_FIELD(struct dc_step_variant, tokens_per_s_per_gpu),
		DC_MEMO_FIELD(struct dc_step_variant, gpu_s_per_token),
	};
	struct fresh {
		struct dc_plan plan;
		struct dc_batch batch;
		struct dc_comm comm;
		struct dc_compute kern;
		struct dc_step st;
		struct dc_step_variant v;
	} *f = malloc(sizeof(*f)); /* not dc_malloc: outside the allocations a test counts or fails */
	struct dc_layout lay;
	const char *err = NULL;
	int aligned;
	if (!f)
		abort(); /* a debug build's check: no way on without it */
	dc_variant_layout(p, v, &lay, &aligned);
	if (dc_plan_derive_layout(p->in, &lay, &f->plan) != 0 || dc_batch_compute(&f->plan, &f->batch, &err) != 0 ||
	    dc_comm_compute(&f->plan, &f->comm, &err) != 0 || dc_compute_compute(&f->plan, &f->kern, &err) != 0 ||
	    dc_step_compute(&f->plan, &f->kern, &f->comm, NULL, &f->batch, &f->st, &err) != 0)
		dc_memo_verify_u64(memo, "the variant's rows' return", 0, (uint64_t)-1);
	variant_of(&f->st, &f->v);
	dc_memo_verify_fields(memo, dc_variant_name(v), kept, &f->v, fields, sizeof(fields) / sizeof(fields[0]));
	free(f);
}
#endif

int dc_step_variants(const struct dc_plan *p, struct dc_step *own, const char **error)
{
	return dc_step_variants_from(p, own, NULL, NULL, error);
}

/* The variants' plan, batch and collectives: the strategies row's (`kept`,
 * parts held for p) or derived and priced here as that row does. */
struct variants_in {
	const struct dc_plan *p;
	struct dc_variant_parts *kept;
	struct dc_plan *plan;   /* the kept one, or own_plan */
	struct dc_batch *batch; /* likewise */
	int derived;            /* *plan holds a variant's plan, *batch its batch */
	struct dc_plan own_plan;
	struct dc_batch own_batch;
	struct dc_comm own_comm;
};

/* Variant v: *is_of set when it is p itself; else in->plan at v's
 * sharding, and *vc its collectives. */
static int variant_in(struct variants_in *in, enum dc_variant v, int *is_of, int *copies_of,
		      const struct dc_comm **vc, const char **error)
{
	struct dc_layout own_lay;
	const struct dc_layout *lay = &own_lay;
	int aligned, rc;
	if (in->kept) {
		*is_of = in->kept->is_of[v];
		*copies_of = in->kept->copies_of;
		lay = &in->kept->layout[v];
	} else {
		dc_variant_layout(in->p, v, &own_lay, &aligned);
		*copies_of = dc_plan_derive_copies(in->p, &own_lay); /* the variants' degrees alike */
		*is_of = dc_variant_is_configured(in->p, &own_lay);
	}
	if (*is_of)
		return 0;
	rc = dc_variant_plan(in->p, lay, in->plan, &in->derived, error);
	if (rc < 0)
		return -1;
	if (in->kept) {
		*vc = &in->kept->comm[v];
		return 0;
	}
	/* the batch and comm rows, in the registry's order */
	if ((rc == 1 && dc_batch_compute(in->plan, in->batch, error) != 0) ||
	    dc_comm_compute(in->plan, &in->own_comm, error) != 0)
		return -1;
	*vc = &in->own_comm;
	return 0;
}

int dc_step_variants_from(const struct dc_plan *p, struct dc_step *own, const struct dc_compute *own_c,
			  struct dc_variant_parts *parts, const char **error)
{
	/* FSDP first: the strategies row leaves the plan at its sharding */
	static const enum dc_variant order[] = {DC_VARIANT_FSDP, DC_VARIANT_DP};
	struct variants_in in;
	struct dc_compute kern;
	/* left unset: a step without flops (dc_step_compute with f NULL, as
	 * every variant's is) sets its time and rates and nclasses = npath =
	 * 0, and variant_of reads only those; its classes[] and path[] stay
	 * unset and are never read */
	struct dc_step st;
	int kernels = 0; /* kern holds the other variant's kernels */

	in.p = p;
	in.kept = parts && parts->of == p ? parts : NULL;
	in.plan = in.kept ? &parts->plan : &in.own_plan;
	in.batch = in.kept ? &parts->batch : &in.own_batch;
	/* a kept plan is at a variant's sharding, unless both are p */
	in.derived = in.kept != NULL;
	variant_of(own, &own->variants[DC_VARIANT_CONFIGURED]);
	for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
		enum dc_variant v = order[i];
		const struct dc_comm *vc = NULL;
		int is_of, copies_of;
		if (variant_in(&in, v, &is_of, &copies_of, &vc, error) != 0)
			return -1;
		if (is_of) {
			/* p itself: p's step */
			variant_of(own, &own->variants[v]);
			DC_MEMO_VERIFY(configured_verify(p, v, &own->variants[v]));
			continue;
		}
		/* the variants' layouts differ in their sharding alone
		 * (dc_variant_layout): the other variant's kernels, or p's when
		 * theirs is p's but for the sharding, with this one's own
		 * optimizer step (compute.h) */
		if (kernels) {
			dc_compute_reshard(in.plan, &kern);
		} else if (copies_of && own_c) {
			kern = *own_c;
			dc_compute_reshard(in.plan, &kern);
		} else if (dc_compute_compute(in.plan, &kern, error) != 0) {
			return -1;
		}
		kernels = 1;
		/* the step row (estimators.c) without FLOPs: a variant shows
		 * its step time and rates alone, never its MFU (step.h), so its
		 * FLOPs are not counted */
		if (dc_step_compute(in.plan, &kern, vc, NULL, in.batch, &st, error) != 0)
			return -1;
		variant_of(&st, &own->variants[v]);
	}
	return 0;
}
