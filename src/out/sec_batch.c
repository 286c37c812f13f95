/* sec_batch.c - the batch section: samples and tokens one step consumes. */
#include <stddef.h>

#include "distcalc/plan.h"
#include "distcalc/results.h"
#include "distcalc/section.h"

struct view {
	struct dc_batch b;
	const char *note;
	/* which of the two the loader derived from training.global_batch_size
	 * (config_rules.c rule_global_batch): the micro batch when the
	 * accumulation was given and it was not, else the accumulation */
	int micro_derived, accum_derived;
};

/* given: a key's value came from the config, a --set or an import, not
 * the key's default (a derived value keeps the default's origin) */
static int given(const struct dc_config *c, const char *path)
{
	int i = dc_config_key_index(path);
	return i >= 0 && c->origin[i] != DC_ORIGIN_DEFAULT;
}

static void view(const struct dc_run *run, void *out)
{
	struct view *v = out;
	const struct dc_config *c = run->plan->in;
	v->b = run->res->batch;
	if (given(c, "training.global_batch_size")) {
		int accum = given(c, "training.grad_accum_steps"), micro = given(c, "training.micro_batch_size");
		v->micro_derived = accum && !micro;
		v->accum_derived = !accum;
	}
	v->note = run->plan->layout.cp > 1
			  ? "not b x accum x all GPUs: the tp x cp x pp ranks of one replica process the same samples, each cp rank s / cp of every sequence"
			  : "not b x accum x all GPUs: the tp x pp ranks of one replica process the same samples";
}

static void micro_label(const void *base, char *buf, size_t len)
{
	dc_text_fmt(buf, len, "%s", ((const struct view *)base)->micro_derived
					    ? "micro batch b (samples; derived: global batch / (accum x dp))"
					    : "micro batch b (samples)");
}

static void accum_label(const void *base, char *buf, size_t len)
{
	dc_text_fmt(buf, len, "%s", ((const struct view *)base)->accum_derived
					    ? "gradient accumulation steps (derived: global batch / (b x dp))"
					    : "gradient accumulation steps");
}

#define B(m) offsetof(struct view, b.m)
static const struct dc_field fields[] = {
	{"micro_batch_size", NULL, DC_U_COUNT, DC_FT_U64, B(micro_batch_size), .label_fn = micro_label},
	{"grad_accum_steps", NULL, DC_U_COUNT, DC_FT_U64, B(grad_accum_steps), .label_fn = accum_label},
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
