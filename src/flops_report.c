/* flops_report.c - the FLOPs estimator's report section. */
#include "distcalc/experiment.h"
#include "distcalc/flops.h"
#include "distcalc/plan.h"

static int flops_run(const struct dc_config *cfg, const struct dc_run_info *info,
		     struct dc_report *report, struct dc_diag *diag)
{
	struct dc_plan plan;
	struct dc_batch b;
	struct dc_flops f;
	struct dc_rnode *s;
	const char *err = NULL;

	if (dc_plan_derive(cfg, &plan) != 0 || dc_batch_compute(&plan, &b, &err) != 0 ||
	    dc_flops_compute(&plan, &b, &f, &err) != 0) {
		dc_diag_error(diag, DC_ERR_CONFIG, "%s: error: %s", info->config_name, err ? err : plan.error);
		return -1;
	}
	s = dc_rn_object(dc_report_root(report), "flops", "FLOPs per training step");
	dc_rn_str(s, "model", "model",
		  "model FLOPs 6N + 12 L s (a d) per token (Korthikanti et al. 2022 Eq. 7); hardware FLOPs add recomputation");
	dc_rn_str(s, "recompute", "recompute", dc_recompute_name(cfg->training.recompute));
	dc_rn_u64(s, "matmul_params", "parameters that multiply per token N", DC_U_COUNT, f.matmul_params);
	dc_rn_u64(s, "tokens_per_step", "tokens per step", DC_U_COUNT, f.tokens_per_step);
	dc_rn_f64(s, "model_flops_per_token", "model FLOPs per token", DC_U_FLOPS, f.model_per_token);
	dc_rn_f64(s, "hardware_flops_per_token", "hardware FLOPs per token", DC_U_FLOPS, f.hardware_per_token);
	dc_rn_f64(s, "model_flops_per_step", "model FLOPs per step", DC_U_FLOPS, f.model_per_step);
	dc_rn_f64(s, "hardware_flops_per_step", "hardware FLOPs per step", DC_U_FLOPS, f.hardware_per_step);
	dc_rn_u64(s, "busiest_stage", "busiest pipeline stage", DC_U_COUNT, f.busiest_stage);
	dc_rn_f64(s, "model_flops_per_rank_per_step", "model FLOPs per rank per step", DC_U_FLOPS,
		  f.model_per_rank);
	dc_rn_f64(s, "hardware_flops_per_rank_per_step", "hardware FLOPs per rank per step", DC_U_FLOPS,
		  f.hardware_per_rank);
	return 0;
}

const struct dc_estimator dc_estimator_flops = {"flops", flops_run};
