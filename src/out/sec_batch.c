/* sec_batch.c - the batch section: samples and tokens one step consumes. */
#include <stddef.h>

#include "distcalc/plan.h"
#include "distcalc/results.h"
#include "distcalc/section.h"

struct view {
	struct dc_batch b;
	const char *note;
};

static void view(const struct dc_run *run, void *out)
{
	struct view *v = out;
	v->b = run->res->batch;
	v->note = run->plan->layout.cp > 1
			  ? "not b x accum x all GPUs: the tp x cp x pp ranks of one replica process the same samples, each cp rank s / cp of every sequence"
			  : "not b x accum x all GPUs: the tp x pp ranks of one replica process the same samples";
}

#define B(m) offsetof(struct view, b.m)
static const struct dc_field fields[] = {
	{"micro_batch_size", "micro batch b (samples)", DC_U_COUNT, DC_FT_U64, B(micro_batch_size)},
	{"grad_accum_steps", "gradient accumulation steps", DC_U_COUNT, DC_FT_U64, B(grad_accum_steps)},
	{"data_parallel_replicas", "data-parallel replicas dp", DC_U_COUNT, DC_FT_U64, B(replicas)},
	{"global_batch_size", "global batch b x accum x dp (samples)", DC_U_COUNT, DC_FT_U64, B(global_batch_size)},
	{"seq_length", "sequence length (tokens)", DC_U_COUNT, DC_FT_U64, B(seq_length)},
	{"tokens_per_step", "tokens per step", DC_U_COUNT, DC_FT_U64, B(tokens_per_step)},
	{"gpus_per_sample", "GPUs sharing one sample tp x cp x pp", DC_U_COUNT, DC_FT_U64, B(gpus_per_sample)},
	{"note", "note", DC_U_NONE, DC_FT_STR, offsetof(struct view, note)},
};

_Static_assert(sizeof(struct view) <= DC_VIEW_MAX, "view too large");

const struct dc_section dc_section_batch = {
	"batch", "Batch per training step", "samples and tokens per step (b x accum x dp, not x every GPU)",
	DC_EST_BIT(DC_EST_BATCH), sizeof(struct view), view, DC_FIELDS(fields), NULL, NULL,
};
