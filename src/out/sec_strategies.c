/* sec_strategies.c - the aligned comparison: pure DP, FSDP and the
 * configured layout on the same work. */
#include <stddef.h>
#include <stdio.h>

#include "distcalc/plan.h"
#include "distcalc/results.h"
#include "distcalc/section.h"

struct view {
	const struct dc_strategies_result *r;
	const struct dc_step *step;
	uint64_t ep; /* every variant keeps the configured expert parallelism */
	/* the configured layout's expert tensor split when it is not its tp
	 * (0 otherwise); the pure-DP and FSDP variants keep whole experts
	 * (dc_variant_layout), so only the configured row shows it */
	uint64_t etp;
	const char *note, *means, *time_means, *ranked_by;
	struct dc_strategies_order order;
	char note_text[480];
};

/* The note when some variant could not keep the configured global batch
 * (dc_variant_layout: world does not divide it, so each of its world
 * replicas takes floor(B / world) samples, at least one): which rows run
 * other work, how much, and why; NULL when every row is aligned. */
static const char *unaligned_note(const struct dc_run *run, char *buf, size_t len)
{
	const struct dc_strategies_result *r = &run->res->strategies;
	const struct dc_variant_result *own = &r->v[DC_VARIANT_CONFIGURED], *other = NULL;
	char names[64] = "", own_tokens[32], tokens[32], samples[32], per[32], world[32];
	size_t n = 0;
	uint64_t global = own->micro_batch_size * own->grad_accum_steps * own->dp; /* the loader bounds it */

	for (int v = 0; v < DC_VARIANT_COUNT; v++) {
		if (r->v[v].aligned)
			continue;
		if (other)
			n = dc_text_add(names, sizeof(names), n, " and ");
		n = dc_text_add(names, sizeof(names), n, dc_variant_name((enum dc_variant)v));
		other = &r->v[v];
	}
	if (!other)
		return NULL;
	dc_fmt_u64_grouped(own_tokens, own->tokens_per_step);
	dc_fmt_u64_grouped(tokens, other->tokens_per_step);
	dc_fmt_u64_grouped(samples, global);
	uint64_t each = other->micro_batch_size * other->grad_accum_steps;
	dc_fmt_u64_grouped(per, each);
	dc_fmt_u64_grouped(world, run->plan->world);
	dc_text_fmt(buf, len,
		    "not the same work: the configured global batch, %s samples (%s tokens/step), does not split evenly over %s ranks at tp = pp = 1, so %s run %s sample%s a rank, %s tokens/step; they are not ranked. Compare memory, bytes and time per token of aligned rows, never step time alone",
		    samples, own_tokens, world, names, per, each == 1 ? "" : "s", tokens);
	return buf;
}

static void view(const struct dc_run *run, void *out)
{
	struct view *v = out;
	v->r = &run->res->strategies;
	v->step = &run->res->step;
	v->ep = run->plan->ep;
	v->etp = run->plan->layout.etp && run->plan->layout.etp != run->plan->layout.tp ? run->plan->layout.etp : 0;
	v->note = unaligned_note(run, v->note_text, sizeof(v->note_text));
	if (!v->note)
		v->note = "align the work first: every row keeps the configured global batch; compare memory, bytes and time per token, never step time alone";
	v->means = "bytes the analysed rank (comm.stage) sends per step x world size / tokens per step";
	v->time_means = "that rank's communication time per step, nothing overlapped / tokens per step: one rank's "
			"time, not x world size";
	{
		/* ranked by tokens/s per GPU when every variant has a step time */
		double tps[DC_VARIANT_COUNT];
		int all = 1;
		for (int i = 0; i < DC_VARIANT_COUNT; i++) {
			all &= v->step->variants[i].available;
			tps[i] = v->step->variants[i].tokens_per_s_per_gpu;
		}
		dc_strategies_rank(v->r, all ? tps : NULL, &v->order);
	}
	v->ranked_by = v->order.by_step
			       ? "tokens/s per GPU, highest first, among the variants that fit; one that does not fit is never ranked and comes after them"
			       : "communication time per token, lowest first (no step time: give cluster.gpu), among the variants that fit; one that does not fit is never ranked and comes after them";
	if (v->note == v->note_text) /* some row not aligned */
		v->ranked_by = v->order.by_step
				       ? "tokens/s per GPU, highest first, among the aligned variants that fit; one that runs other work (not aligned) or does not fit is never ranked and comes after them"
				       : "communication time per token, lowest first (no step time: give cluster.gpu), among the aligned variants that fit; one that runs other work (not aligned) or does not fit is never ranked and comes after them";
}

/* a variant's result with the texts its row shows */
struct variant_row {
	uint64_t rank; /* 0: does not fit, not ranked */
	char rank_text[24];
	const char *strategy, *sharding;
	char layout[96];
	struct dc_variant_result x;
	struct dc_step_variant step;
};

static uint64_t variant_count(const void *base)
{
	(void)base;
	return DC_VARIANT_COUNT;
}

static void variant_row(const void *base, uint64_t i, void *out)
{
	const struct view *v = base;
	enum dc_variant k = v->order.order[i];
	const struct dc_variant_result *x = &v->r->v[k];
	struct variant_row *row = out;
	size_t n, len = sizeof(row->layout);

	row->rank = v->order.rank[k];
	if (row->rank)
		dc_text_add_u64(row->rank_text, sizeof(row->rank_text), 0, row->rank);
	else /* other work first: it would not rank even if it fit */
		dc_text_add(row->rank_text, sizeof(row->rank_text), 0, x->aligned ? "does not fit" : "not aligned");
	row->strategy = dc_variant_name(k);
	n = dc_text_add_u64(row->layout, len, dc_text_add(row->layout, len, 0, "tp"), x->tp);
	if (x->cp > 1)
		n = dc_text_add_u64(row->layout, len, dc_text_add(row->layout, len, n, " x cp"), x->cp);
	n = dc_text_add_u64(row->layout, len, dc_text_add(row->layout, len, n, " x pp"), x->pp);
	n = dc_text_add_u64(row->layout, len, dc_text_add(row->layout, len, n, " x dp"), x->dp);
	/* experts stay split over ep within dp in every variant; the
	 * configured row's expert tensor split too, where it is not its tp */
	{
		uint64_t etp = k == DC_VARIANT_CONFIGURED ? v->etp : 0;
		if (v->ep > 1)
			n = dc_text_add_u64(row->layout, len, dc_text_add(row->layout, len, n, " (ep"), v->ep);
		if (etp)
			n = dc_text_add_u64(row->layout, len, dc_text_add(row->layout, len, n, v->ep > 1 ? " etp" : " (etp"), etp);
		if (v->ep > 1 || etp)
			dc_text_add(row->layout, len, n, ")");
	}
	row->sharding = dc_sharding_name(x->sharding);
	row->x = *x;
	row->step = v->step->variants[k];
}

static int unranked(const void *base)
{
	return ((const struct variant_row *)base)->rank == 0;
}

/* no GPU data: no step time (the step section names the keys) */
static int no_step(const void *base)
{
	return !((const struct variant_row *)base)->step.available;
}

#define VR(m) offsetof(struct variant_row, m)
#define VX(m) offsetof(struct variant_row, x.m)
static const struct dc_field variant_fields[] = {
	/* JSON and CSV: a number, null when it does not fit; the table: its
	 * text, "does not fit" */
	{"rank", "rank", DC_U_NONE, DC_FT_U64, VR(rank), .is_null = unranked, .json_value = 1},
	{"rank_shown", "rank", DC_U_NONE, DC_FT_TEXT, VR(rank_text), .table_only = 1},
	{"strategy", "strategy", DC_U_NONE, DC_FT_STR, VR(strategy)},
	{"layout", "layout", DC_U_NONE, DC_FT_TEXT, VR(layout)},
	{"sharding", "sharding", DC_U_NONE, DC_FT_STR, VR(sharding)},
	{"micro_batch_size", "micro b", DC_U_COUNT, DC_FT_U64, VX(micro_batch_size)},
	{"grad_accum_steps", "accum", DC_U_COUNT, DC_FT_U64, VX(grad_accum_steps)},
	{"tokens_per_step", "tokens/step", DC_U_COUNT, DC_FT_U64, VX(tokens_per_step)},
	{"aligned", "aligned", DC_U_NONE, DC_FT_BOOL, VX(aligned)},
	{"peak_bytes", "peak/rank", DC_U_BYTES, DC_FT_U64, VX(peak_bytes)},
	{"fits", "fits", DC_U_NONE, DC_FT_BOOL, VX(fits)},
	{"comm_bytes_per_rank", "comm/rank", DC_U_BYTES, DC_FT_U64, VX(comm_bytes_per_rank)},
	{"comm_bytes_per_token", "comm/token", DC_U_BYTES_RAW, DC_FT_F64, VX(comm_bytes_per_token)},
	{"comm_time_s", "comm time", DC_U_SECONDS, DC_FT_F64, VX(comm_time_s)},
	{"comm_time_per_token_s", "comm time/token", DC_U_SECONDS, DC_FT_F64, VX(comm_time_per_token_s)},
	{"step_time_s", "step time", DC_U_SECONDS, DC_FT_F64, VR(step.time_s), .is_null = no_step},
	{"tokens_per_s_per_gpu", "tokens/s/GPU", DC_U_PER_S, DC_FT_F64, VR(step.tokens_per_s_per_gpu), .is_null = no_step},
	{"gpu_s_per_token", "GPU-s/token", DC_U_SECONDS, DC_FT_F64, VR(step.gpu_s_per_token), .is_null = no_step},
};
static const struct dc_fields variant_table = DC_FIELDS(variant_fields);
static const struct dc_rows variant_rows = {variant_count, variant_row, sizeof(struct variant_row), "strategies", 2};

#define V(m) offsetof(struct view, m)
static const struct dc_field fields[] = {
	{"note", "note", DC_U_NONE, DC_FT_STR, V(note)},
	{"comm_bytes_per_token_means", "comm/token", DC_U_NONE, DC_FT_STR, V(means)},
	{"comm_time_per_token_means", "comm time/token", DC_U_NONE, DC_FT_STR, V(time_means)},
	{"ranked_by", "ranked by", DC_U_NONE, DC_FT_STR, V(ranked_by)},
	{"variants", "Side by side", DC_U_NONE, DC_FT_ROWS, 0, .sub = &variant_table, .rows = &variant_rows},
};

_Static_assert(sizeof(struct view) <= DC_VIEW_MAX, "view too large");

const struct dc_section dc_section_strategies = {
	"strategies", "Strategies on the same cluster and model, aligned on tokens per step",
	"pure DP, FSDP and the layout on the same work, per token",
	DC_EST_BIT(DC_EST_STRATEGIES) | DC_EST_BIT(DC_EST_STEP_VARIANTS), sizeof(struct view), view, DC_FIELDS(fields), NULL, NULL,
};
