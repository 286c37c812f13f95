/* strategies_report.c - the aligned comparison table. */
#include <stdio.h>

#include "distcalc/experiment.h"
#include "distcalc/plan.h"
#include "distcalc/strategies.h"

static void variant_row(const void *ctx, uint64_t i, struct dc_rnode *row)
{
	const struct dc_variant_result *x = (const struct dc_variant_result *)ctx + i;
	char layout[96];

	snprintf(layout, sizeof(layout), "tp%llu x pp%llu x dp%llu",
		 (unsigned long long)x->tp, (unsigned long long)x->pp, (unsigned long long)x->dp);
	dc_rn_str(row, "strategy", "strategy", dc_variant_name((enum dc_variant)i));
	dc_rn_str(row, "layout", "layout", layout);
	dc_rn_str(row, "sharding", "sharding", dc_sharding_name(x->sharding));
	dc_rn_u64(row, "micro_batch_size", "micro b", DC_U_COUNT, x->micro_batch_size);
	dc_rn_u64(row, "grad_accum_steps", "accum", DC_U_COUNT, x->grad_accum_steps);
	dc_rn_u64(row, "tokens_per_step", "tokens/step", DC_U_COUNT, x->tokens_per_step);
	dc_rn_bool(row, "aligned", "aligned", x->aligned);
	dc_rn_u64(row, "peak_bytes", "peak/rank", DC_U_BYTES, x->peak_bytes);
	dc_rn_bool(row, "fits", "fits", x->fits);
	dc_rn_u64(row, "comm_bytes_per_rank", "comm/rank", DC_U_BYTES, x->comm_bytes_per_rank);
	dc_rn_f64(row, "comm_bytes_per_token", "comm/token", DC_U_BYTES_RAW, x->comm_bytes_per_token);
	dc_rn_f64(row, "comm_time_s", "comm time", DC_U_SECONDS, x->comm_time_s);
	dc_rn_f64(row, "comm_time_per_token_s", "comm time/token", DC_U_SECONDS, x->comm_time_per_token_s);
}

static int strategies_run(const struct dc_config *cfg, const struct dc_run_info *info,
			  struct dc_report *report, struct dc_diag *diag)
{
	struct dc_strategies_result *sr = dc_report_keep(report, sizeof(*sr));
	struct dc_variant_result *r = sr ? sr->v : NULL;
	struct dc_rnode *s;
	struct dc_plan plan;
	struct dc_batch b;
	struct dc_comm c;
	struct dc_memory_result m;
	const char *err = NULL;

	if (!r)
		return 0; /* the runner reports the failed report */
	if (dc_plan_derive(cfg, &plan) != 0 || dc_batch_compute(&plan, &b, &err) != 0 ||
	    dc_comm_compute(&plan, &c, &err) != 0 || dc_memory_compute(&plan, &m, &err) != 0 ||
	    dc_strategies_compute(&plan, &b, &c, &m, sr, &err) != 0) {
		dc_diag_error(diag, DC_ERR_CONFIG, "%s: error: %s", info->config_name, err ? err : plan.error);
		return -1;
	}
	s = dc_rn_object(dc_report_root(report), "strategies",
			 "Strategies on the same cluster and model, aligned on tokens per step");
	dc_rn_str(s, "note", "note",
		  "align the work first: every row keeps the configured global batch; compare memory, bytes and time per token, never step time alone");
	dc_rn_str(s, "comm_bytes_per_token_means", "comm/token",
		  "bytes the busiest rank sends per step x world size / tokens per step");
	dc_rn_array_gen(s, "variants", "Side by side", "strategies", DC_VARIANT_COUNT, variant_row, r);
	return 0;
}

const struct dc_estimator dc_estimator_strategies = {"strategies", strategies_run};
