/* comm_report.c - the comm section: collectives, bytes and time per step
 * for every strategy in play. */
#include <stdio.h>

#include "distcalc/comm.h"
#include "distcalc/experiment.h"
#include "distcalc/plan.h"

static const char *const strategy_titles[] = {
	"Data parallel (gradient synchronisation)",
	"FSDP (ZeRO-3): gather params, scatter grads",
	NULL, /* tensor parallel: the title says which form, below */
	"Pipeline parallel (stage boundaries)",
	"Expert parallel (MoE token AlltoAll, uniform routing assumed)",
};

static void coll_row(const void *ctx, uint64_t i, struct dc_rnode *row)
{
	const struct dc_coll *c = (const struct dc_coll *)ctx + i;

	dc_rn_str(row, "kind", "kind", dc_coll_kind_name(c->kind));
	dc_rn_str(row, "what", "what", c->what);
	dc_rn_str(row, "phase", "phase", c->phase);
	dc_rn_u64(row, "count_per_step", "calls/step", DC_U_COUNT, c->count);
	dc_rn_u64(row, "message_bytes", "message M", DC_U_BYTES_RAW, c->msg_bytes);
	dc_rn_u64(row, "group_size", "group", DC_U_COUNT, c->group_size);
	dc_rn_str(row, "link", "link", dc_link_choice_name(c->link));
	dc_rn_u64(row, "bytes_per_rank", "sent/rank", DC_U_BYTES, c->bytes_per_rank);
	dc_rn_f64(row, "time_s", "time", DC_U_SECONDS, c->time_s);
}

static int comm_run(const struct dc_config *cfg, const struct dc_run_info *info,
		    struct dc_report *report, struct dc_diag *diag)
{
	struct dc_comm *c = dc_report_keep(report, sizeof(*c));
	struct dc_rnode *s;
	struct dc_plan plan;
	const char *err = NULL;

	if (!c)
		return 0; /* the runner reports the failed report */
	if (dc_plan_derive(cfg, &plan) != 0 || dc_comm_compute(&plan, c, &err) != 0) {
		dc_diag_error(diag, DC_ERR_CONFIG, "%s: error: %s", info->config_name, err ? err : plan.error);
		return -1;
	}
	s = dc_rn_object(dc_report_root(report), "comm", "Communication per training step (per rank)");
	dc_rn_str(s, "model", "model",
		  "alpha-beta ring on each group's slowest link; bytes one rank sends; nothing overlapped with compute");
	dc_rn_u64(s, "stage", "pipeline stage analysed for dp/fsdp/tp/ep (most parameters)", DC_U_COUNT,
		  c->stage);
	dc_rn_u64(s, "bytes_per_rank", "bytes sent per rank per step (all strategies)", DC_U_BYTES,
		  c->bytes_per_rank);
	dc_rn_f64(s, "time_s", "time per step if nothing overlaps", DC_U_SECONDS, c->time_s);
	for (int i = 0; i < DC_STRAT_COUNT; i++) {
		const struct dc_comm_strategy *st = &c->s[i];
		struct dc_rnode *o;
		if (!st->in_play)
			continue;
		o = dc_rn_object(s, dc_strategy_name((enum dc_strategy)i),
				 i != DC_STRAT_TP ? strategy_titles[i]
				 : cfg->parallel.sequence_parallel
					 ? "Tensor parallel (Megatron with sequence parallelism: AllGather + ReduceScatter)"
					 : "Tensor parallel (Megatron f/g: AllReduce of each layer's output)");
		dc_rn_u64(o, "group_size", "group size", DC_U_COUNT, st->group_size);
		dc_rn_str(o, "link", "link (slowest group)", dc_link_choice_name(st->link));
		dc_rn_f64(o, "link_bandwidth_GBps", "link bandwidth B", DC_U_GBPS,
			  st->link_params.bw_bytes_per_s / 1e9);
		dc_rn_f64(o, "link_latency_s", "link latency alpha", DC_U_SECONDS, st->link_params.latency_s);
		dc_rn_u64(o, "bytes_per_rank", "bytes sent per rank per step", DC_U_BYTES, st->bytes_per_rank);
		dc_rn_f64(o, "time_s", "time per step", DC_U_SECONDS, st->time_s);
		if (i == DC_STRAT_PP)
			dc_rn_str(o, "note", "note",
				  cfg->parallel.pp == 2
					  ? "two stages: a rank sends v activations forward and v - 1 gradients back per microbatch (one direction without interleaving)"
					  : "a middle stage sends both rows; the first and last stages send one");
		dc_rn_array_gen(o, "collectives", "Collectives", "collectives", st->ncoll, coll_row, st->coll);
	}
	return 0;
}

const struct dc_estimator dc_estimator_comm = {"comm", comm_run};
