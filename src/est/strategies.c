/* strategies.c - the aligned comparison; see strategies.h. */
#include "distcalc/strategies.h"

#include <stdlib.h>

#include "distcalc/batch.h"
#include "distcalc/comm.h"
#include "distcalc/memo_verify.h"
#include "distcalc/memory.h"
#include "distcalc/plan.h"
#include "distcalc/results.h"
#include "distcalc/util.h"

void dc_variant_layout(const struct dc_plan *p, enum dc_variant v, struct dc_layout *out, int *aligned)
{
	uint64_t global, per_replica, mb, world = p->world;

	*out = p->layout;
	*aligned = 1;
	if (v == DC_VARIANT_CONFIGURED)
		return;
	if (dc_mul_u64(p->layout.micro_batch_size, p->layout.grad_accum_steps, &global) ||
	    dc_mul_u64(global, p->layout.dp, &global)) {
		*aligned = 0; /* the configured batch overflows: dc_batch_compute says so */
		return;
	}
	out->tp = 1;
	out->pp = 1;
	out->cp = 1;
	/* no tp group to split activations over, no pipeline to interleave:
	 * the loader rejects these with tp = 1 or pp = 1 */
	out->sequence_parallel = 0;
	out->virtual_pipeline = 1;
	out->dp = world;
	out->dp_replicate = 1; /* plain DDP and plain FSDP: one shard group */
	out->etp = 0;          /* experts split as the (absent) tp: whole */
	out->sharding = v == DC_VARIANT_FSDP ? DC_SHARD_FSDP : DC_SHARD_NONE;
	/* same global batch over world replicas */
	if (global % world != 0) {
		*aligned = 0;
		per_replica = global / world ? global / world : 1;
	} else {
		per_replica = global / world;
	}
	for (mb = p->layout.micro_batch_size < per_replica ? p->layout.micro_batch_size : per_replica;
	     mb > 1 && per_replica % mb != 0; mb--)
		;
	out->micro_batch_size = mb;
	out->grad_accum_steps = per_replica / mb;
}

int dc_variant_is_configured(const struct dc_plan *p, const struct dc_layout *lay)
{
	/* dc_plan_derive_copies compares the degrees and the batch split;
	 * the sharding and the expert split (etp 0 reads as tp) besides */
	uint64_t etp = lay->etp ? lay->etp : lay->tp, own = p->layout.etp ? p->layout.etp : p->layout.tp;
	return lay->sharding == p->layout.sharding && etp == own && dc_plan_derive_copies(p, lay);
}

int dc_variant_plan(const struct dc_plan *p, const struct dc_layout *lay, struct dc_plan *vp, int *derived,
		    const char **error)
{
	if (*derived && dc_plan_reshard(vp, lay))
		return 0;
	if (dc_plan_derive_from(p, lay, vp) != 0) {
		*error = vp->error;
		return -1;
	}
	*derived = 1;
	return 1;
}

static void fill(struct dc_variant_result *x, const struct dc_layout *lay, const struct dc_batch *b,
		 const struct dc_comm *c, const struct dc_memory_result *m, uint64_t world)
{
	x->tp = lay->tp;
	x->pp = lay->pp;
	x->dp = lay->dp;
	x->cp = lay->cp ? lay->cp : 1;
	x->sharding = lay->sharding;
	x->micro_batch_size = lay->micro_batch_size;
	x->grad_accum_steps = lay->grad_accum_steps;
	x->peak_bytes = m->top.peak_bytes;
	x->fits = m->top.fits && m->host_fits; /* as summary.fits: the host ledger too */
	x->tokens_per_step = b->tokens_per_step;
	x->comm_bytes_per_rank = c->bytes_per_rank;
	x->comm_time_s = c->time_s;
	x->comm_bytes_per_token = (double)c->bytes_per_rank * (double)world / (double)b->tokens_per_step;
	x->comm_time_per_token_s = c->time_s / (double)b->tokens_per_step;
}

#ifdef DISTCALC_VERIFY_MEMOS
#define VF(m) DC_MEMO_FIELD(struct dc_variant_result, m)
static const struct dc_memo_field variant_fields[] = {
	VF(tp), VF(pp), VF(dp), VF(cp), VF(sharding), VF(micro_batch_size), VF(grad_accum_steps), VF(tokens_per_step),
	VF(peak_bytes), VF(fits), VF(comm_bytes_per_rank), VF(comm_time_s), VF(comm_bytes_per_token),
	VF(comm_time_per_token_s),
};
#undef VF

/* A variant that is the configured layout, filled from p's rows (x),
 * against the same variant derived and priced afresh from its layout,
 * as another variant is */
static void configured_verify(const struct dc_plan *p, enum dc_variant v, const struct dc_layout *lay,
			      const struct dc_variant_result *x)
{
	static const char memo[] = "a variant that is the configured layout, from its rows (src/est/strategies.c)";
	struct fresh {
		struct dc_plan plan;
		struct dc_batch batch;
		struct dc_comm comm;
		struct dc_memory_result mem;
		struct dc_variant_result x;
	} *f = malloc(sizeof(*f)); /* not dc_malloc: outside the allocations a test counts or fails */
	const char *err = NULL;
	if (!f)
		abort(); /* a debug build's check: no way on without it */
	if (dc_plan_derive_layout(p->in, lay, &f->plan) != 0 || dc_batch_compute(&f->plan, &f->batch, &err) != 0 ||
	    dc_memory_compute(&f->plan, &f->mem, &err) != 0 || dc_comm_compute(&f->plan, &f->comm, &err) != 0)
		dc_memo_verify_u64(memo, "the variant's rows' return", 0, (uint64_t)-1);
	fill(&f->x, lay, &f->batch, &f->comm, &f->mem, f->plan.world);
	dc_memo_verify_fields(memo, dc_variant_name(v), x, &f->x, variant_fields,
			      sizeof(variant_fields) / sizeof(variant_fields[0]));
	free(f);
}
#endif

int dc_strategies_compute(const struct dc_plan *p, const struct dc_batch *b, const struct dc_comm *c,
			  const struct dc_memory_result *m, struct dc_strategies_result *out,
			  const char **error)
{
	return dc_strategies_compute_parts(p, b, c, m, out, NULL, error);
}

int dc_strategies_compute_parts(const struct dc_plan *p, const struct dc_batch *b, const struct dc_comm *c,
				const struct dc_memory_result *m, struct dc_strategies_result *out,
				struct dc_variant_parts *parts, const char **error)
{
	struct dc_plan own_plan, *vp = parts ? &parts->plan : &own_plan;
	struct dc_batch own_batch, *vb = parts ? &parts->batch : &own_batch;
	struct dc_comm own_comm;
	struct dc_memory_result vm;
	int derived = 0; /* *vp holds a variant's plan, *vb its batch */

	if (parts)
		parts->of = NULL;

	for (int v = 0; v < DC_VARIANT_COUNT; v++) {
		struct dc_variant_result *x = &out->v[v];
		struct dc_layout lay;
		struct dc_comm *vc;
		int is_of, rc;

		dc_variant_layout(p, (enum dc_variant)v, &lay, &x->aligned);
		if (parts && v == DC_VARIANT_DP)
			parts->copies_of = dc_plan_derive_copies(p, &lay);
		/* the configured layout itself, or a variant that is it (a
		 * pure-DP config's pure-DP row): p's plan, so p's rows */
		is_of = v == DC_VARIANT_CONFIGURED || dc_variant_is_configured(p, &lay);
		if (parts && v != DC_VARIANT_CONFIGURED) {
			parts->is_of[v] = is_of;
			parts->layout[v] = lay;
		}
		if (is_of) {
			fill(x, &lay, b, c, m, p->world);
			if (v != DC_VARIANT_CONFIGURED)
				DC_MEMO_VERIFY(configured_verify(p, (enum dc_variant)v, &lay, x));
			continue;
		}
		/* pure DP and FSDP share their plan but for the sharding, so
		 * their batch: the second reshards the first's */
		rc = dc_variant_plan(p, &lay, vp, &derived, error);
		if (rc < 0 || (rc == 1 && dc_batch_compute(vp, vb, error) != 0))
			return -1;
		/* the registry's memory and comm rows, in its order, into the
		 * parts the step's variants read */
		vc = parts ? &parts->comm[v] : &own_comm;
		if (dc_memory_compute(vp, &vm, error) != 0 || dc_comm_compute(vp, vc, error) != 0)
			return -1;
		fill(x, &lay, vb, vc, &vm, p->world);
	}
	if (parts)
		parts->of = p;
	for (int v = 0; v < DC_VARIANT_COUNT; v++)
		if (out->v[v].tokens_per_step != out->v[DC_VARIANT_CONFIGURED].tokens_per_step)
			out->v[v].aligned = 0;
	return 0;
}

/* a before b in the ranking: the better figure, ties in variant order */
static int ranks_before(const struct dc_strategies_result *r, const double *tps, enum dc_variant a,
			enum dc_variant b)
{
	if (tps ? tps[a] != tps[b] : r->v[a].comm_time_per_token_s != r->v[b].comm_time_per_token_s)
		return tps ? tps[a] > tps[b] : r->v[a].comm_time_per_token_s < r->v[b].comm_time_per_token_s;
	return a < b;
}

/* a variant competes when it fits and runs the configured work: one that
 * runs other tokens per step (its batch does not split over its
 * replicas) is another experiment, not a faster or slower way to do this
 * one */
static int ranked(const struct dc_variant_result *x)
{
	return x->fits && x->aligned;
}

void dc_strategies_rank(const struct dc_strategies_result *r, const double *tokens_per_s_per_gpu,
			struct dc_strategies_order *out)
{
	size_t n = 0;

	out->by_step = tokens_per_s_per_gpu != NULL;
	/* the ones that fit and do the configured work, by insertion into a
	 * ranked list of at most DC_VARIANT_COUNT */
	for (int v = 0; v < DC_VARIANT_COUNT; v++) {
		size_t k;
		out->rank[v] = 0;
		if (!ranked(&r->v[v]))
			continue;
		for (k = n; k > 0 && ranks_before(r, tokens_per_s_per_gpu, (enum dc_variant)v, out->order[k - 1]); k--)
			out->order[k] = out->order[k - 1];
		out->order[k] = (enum dc_variant)v;
		n++;
	}
	for (size_t k = 0; k < n; k++)
		out->rank[out->order[k]] = k + 1;
	for (int v = 0; v < DC_VARIANT_COUNT; v++)
		if (!ranked(&r->v[v]))
			out->order[n++] = (enum dc_variant)v;
}

const char *dc_variant_name(enum dc_variant v)
{
	static const char *const names[] = {"pure_dp", "fsdp", "configured"};
	return names[v];
}
