/* sec_flops.c - the FLOPs section: model and hardware FLOPs per token,
 * step and rank. */
#include <stddef.h>

#include "distcalc/plan.h"
#include "distcalc/results.h"
#include "distcalc/section.h"

struct view {
	struct dc_flops f;
	const char *model, *recompute, *attention;
};

static void view(const struct dc_run *run, void *out)
{
	struct view *v = out;
	v->f = run->res->flops;
	v->model = "model FLOPs 6N + 12 L s (a d) per token (Korthikanti et al. 2022 Eq. 7, the attention core whole); hardware FLOPs what the kernels run: a flash kernel's causal half of the core, recomputation and its QK^T rebuilt in backward";
	v->recompute = dc_recompute_name(run->plan->in->training.recompute);
	v->attention = dc_attention_name(run->plan->in->training.attention);
}

#define F(m) offsetof(struct view, f.m)
static const struct dc_field fields[] = {
	{"model", "model", DC_U_NONE, DC_FT_STR, offsetof(struct view, model)},
	{"recompute", "recompute", DC_U_NONE, DC_FT_STR, offsetof(struct view, recompute)},
	{"attention", "attention", DC_U_NONE, DC_FT_STR, offsetof(struct view, attention)},
	{"matmul_params", "parameters that multiply per token N", DC_U_COUNT, DC_FT_U64, F(matmul_params)},
	{"tokens_per_step", "tokens per step", DC_U_COUNT, DC_FT_U64, F(tokens_per_step)},
	{"model_flops_per_token", "model FLOPs per token", DC_U_FLOPS, DC_FT_F64, F(model_per_token)},
	{"model_flops_causal_per_token", "model FLOPs per token, Megatron's count (attention s/2, no window)",
	 DC_U_FLOPS, DC_FT_F64, F(model_causal_per_token)},
	{"masked_flops_per_token", "of them, masked attention the kernels skip (causal)", DC_U_FLOPS, DC_FT_F64,
	 F(masked_per_token)},
	{"recompute_flops_per_token", "recomputed forward FLOPs per token", DC_U_FLOPS, DC_FT_F64,
	 F(recompute_per_token)},
	{"flash_backward_flops_per_token", "flash backward QK^T rebuilt per token", DC_U_FLOPS, DC_FT_F64,
	 F(flash_backward_per_token)},
	{"hardware_flops_per_token", "hardware FLOPs per token", DC_U_FLOPS, DC_FT_F64, F(hardware_per_token)},
	{"model_flops_per_step", "model FLOPs per step", DC_U_FLOPS, DC_FT_F64, F(model_per_step)},
	{"hardware_flops_per_step", "hardware FLOPs per step", DC_U_FLOPS, DC_FT_F64, F(hardware_per_step)},
	{"busiest_stage", "busiest pipeline stage (DualPipe: rank r, stages r, pp-1-r)", DC_U_COUNT, DC_FT_U64,
	 F(busiest_stage)},
	{"model_flops_per_rank_per_step", "model FLOPs per rank per step", DC_U_FLOPS, DC_FT_F64, F(model_per_rank)},
	{"hardware_flops_per_rank_per_step", "hardware FLOPs per rank per step", DC_U_FLOPS, DC_FT_F64,
	 F(hardware_per_rank)},
};

_Static_assert(sizeof(struct view) <= DC_VIEW_MAX, "view too large");

const struct dc_section dc_section_flops = {
	"flops", "FLOPs per training step", "model and hardware FLOPs per token, step and rank",
	DC_EST_BIT(DC_EST_FLOPS), sizeof(struct view), view, DC_FIELDS(fields), NULL, NULL,
};
