/* batch_report.c - the batch section. */
#include "distcalc/batch.h"
#include "distcalc/experiment.h"
#include "distcalc/plan.h"

static int batch_run(const struct dc_config *cfg, const struct dc_run_info *info,
		     struct dc_report *report, struct dc_diag *diag)
{
	struct dc_plan plan;
	struct dc_batch b;
	struct dc_rnode *s;
	const char *err = NULL;

	if (dc_plan_derive(cfg, &plan) != 0 || dc_batch_compute(&plan, &b, &err) != 0) {
		dc_diag_error(diag, DC_ERR_CONFIG, "%s: error: %s", info->config_name, err ? err : plan.error);
		return -1;
	}
	s = dc_rn_object(dc_report_root(report), "batch", "Batch per training step");
	dc_rn_u64(s, "micro_batch_size", "micro batch b (samples)", DC_U_COUNT, b.micro_batch_size);
	dc_rn_u64(s, "grad_accum_steps", "gradient accumulation steps", DC_U_COUNT, b.grad_accum_steps);
	dc_rn_u64(s, "data_parallel_replicas", "data-parallel replicas dp", DC_U_COUNT, b.replicas);
	dc_rn_u64(s, "global_batch_size", "global batch b x accum x dp (samples)", DC_U_COUNT,
		  b.global_batch_size);
	dc_rn_u64(s, "seq_length", "sequence length (tokens)", DC_U_COUNT, b.seq_length);
	dc_rn_u64(s, "tokens_per_step", "tokens per step", DC_U_COUNT, b.tokens_per_step);
	dc_rn_u64(s, "gpus_per_sample", "GPUs sharing one sample tp x pp", DC_U_COUNT, b.gpus_per_sample);
	dc_rn_str(s, "note", "note",
		  "not b x accum x all GPUs: the tp x pp ranks of one replica process the same samples");
	return 0;
}

const struct dc_estimator dc_estimator_batch = {"batch", batch_run};
