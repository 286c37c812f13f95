/* sec_summary.c - the verdict first: does the most loaded rank fit, where
 * is its peak, how much does a step send. Every figure is one the memory
 * and comm sections print in full. With cluster.host_memory given, the
 * verdict includes the host ledger of offloaded states (memory.host_fits)
 * and its shortfall is a number a budget can hold. */
#include <stddef.h>
#include <stdio.h>

#include "distcalc/plan.h"
#include "distcalc/results.h"
#include "distcalc/section.h"

struct view {
	int fits, host_checked;
	uint64_t host_shortfall_bytes;
	uint64_t gpu_mem_bytes, peak_bytes, peak_rank, headroom_bytes, shortfall_bytes, comm_bytes, warnings;
	const char *peak_phase;
	double comm_time_s;
	int step_available;
	double step_time_s, tokens_per_s;
	/* the comm result's analysed stages: every axis's but EP's, and EP's
	 * (comm.h stage, ep_stage), when they differ */
	int mixed;
	uint64_t stage, ep_stage;
};

static void view(const struct dc_run *run, void *out)
{
	struct view *v = out;
	const struct dc_mem_ledger *top = &run->res->memory.top;
	const struct dc_memory_result *m = &run->res->memory;
	/* host_fits is true when cluster.host_memory is not given */
	v->fits = top->fits && m->host_fits;
	v->host_checked = m->host_checked;
	v->host_shortfall_bytes =
		m->host_node_bytes > run->plan->in->cluster.host_mem_bytes ? m->host_node_bytes - run->plan->in->cluster.host_mem_bytes : 0;
	v->gpu_mem_bytes = run->plan->in->cluster.gpu_mem_bytes;
	v->peak_bytes = top->peak_bytes;
	v->peak_rank = top->stage_first * run->plan->topo.stride[DC_AXIS_PP];
	v->peak_phase = dc_mem_phase_name(top->peak_phase);
	v->headroom_bytes = top->headroom_bytes;
	v->shortfall_bytes = top->shortfall_bytes;
	v->comm_bytes = run->res->comm.bytes_per_rank;
	v->stage = run->res->comm.stage;
	v->ep_stage = run->res->comm.ep_stage;
	v->mixed = run->res->comm.s[DC_STRAT_EP].in_play && v->ep_stage != v->stage;
	v->comm_time_s = run->res->comm.time_s;
	v->warnings = run->nwarnings;
	v->step_available = run->res->step.available;
	v->step_time_s = run->res->step.time_s;
	v->tokens_per_s = run->res->step.tokens_per_s;
}

/* no GPU data: the step section says which keys are missing */
static int no_step(const void *base)
{
	return !((const struct view *)base)->step_available;
}

/* cluster.host_memory given: the verdict and the shortfall cover the host */
static int host_checked(const void *base)
{
	return ((const struct view *)base)->host_checked;
}

static void fits_label(const void *base, char *buf, size_t len)
{
	dc_text_fmt(buf, len, "%s", host_checked(base) ? "fits in GPU and host memory (every rank)"
						    : "fits in GPU memory (every rank)");
}

/* The comm section analyses the rank with the most parameters for every
 * axis, and for EP the one with the most MoE layers: where those differ
 * the sum is of two stages' ranks, each axis at its busiest */
static void comm_bytes_label(const void *base, char *buf, size_t len)
{
	const struct view *v = base;
	if (v->mixed)
		dc_text_fmt(buf, len, "bytes sent per step (each axis's busiest stage: stage %llu, EP stage %llu)",
			    (unsigned long long)v->stage, (unsigned long long)v->ep_stage);
	else
		dc_text_fmt(buf, len, "bytes sent per step (the analysed rank)");
}

#define V(m) offsetof(struct view, m)
static const struct dc_field fields[] = {
	{"fits", NULL, DC_U_NONE, DC_FT_BOOL, V(fits), .label_fn = fits_label},
	{"host_shortfall_bytes", "host memory short per node",
	 DC_U_BYTES, DC_FT_U64, V(host_shortfall_bytes), .shown = host_checked},
	{"gpu_memory_bytes", "GPU memory", DC_U_BYTES, DC_FT_U64, V(gpu_mem_bytes)},
	{"peak_bytes", "peak memory of the most loaded rank", DC_U_BYTES, DC_FT_U64, V(peak_bytes)},
	{"peak_rank", "most loaded rank", DC_U_COUNT, DC_FT_U64, V(peak_rank)},
	{"peak_phase", "phase of its peak", DC_U_NONE, DC_FT_STR, V(peak_phase)},
	{"headroom_bytes", "headroom", DC_U_BYTES, DC_FT_U64, V(headroom_bytes)},
	{"shortfall_bytes", "shortfall", DC_U_BYTES, DC_FT_U64, V(shortfall_bytes)},
	{"comm_bytes_per_step", NULL, DC_U_BYTES, DC_FT_U64, V(comm_bytes), .label_fn = comm_bytes_label},
	{"comm_time_s", "communication per step if nothing overlaps", DC_U_SECONDS, DC_FT_F64, V(comm_time_s)},
	{"step_time_s", "step time (section step)", DC_U_SECONDS, DC_FT_F64, V(step_time_s), .is_null = no_step},
	{"tokens_per_s", "tokens/s", DC_U_PER_S, DC_FT_F64, V(tokens_per_s), .is_null = no_step},
	{"warnings", "warnings (on stderr, and at the end of a whole report)", DC_U_COUNT, DC_FT_U64, V(warnings)},
};

_Static_assert(sizeof(struct view) <= DC_VIEW_MAX, "view too large");

const struct dc_section dc_section_summary = {
	"summary", "Summary", "the verdict: fits, peak and where, bytes and time per step, step time and tokens/s",
	DC_EST_BIT(DC_EST_MEMORY) | DC_EST_BIT(DC_EST_COMM) | DC_EST_BIT(DC_EST_STEP), sizeof(struct view), view, DC_FIELDS(fields), NULL,
	NULL,
};
