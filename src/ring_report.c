/* ring_report.c - the ring estimator's report section. */
#include "distcalc/experiment.h"
#include "distcalc/plan.h"
#include "distcalc/ring.h"

static void event_row(const void *ctx, uint64_t index, struct dc_rnode *row)
{
	const struct dc_ring *r = ctx;
	struct dc_ring_event e;

	dc_ring_event_at(r, index, &e);
	dc_rn_str(row, "phase", "phase", dc_ring_phase_name(e.phase));
	dc_rn_u64(row, "round", "round", DC_U_COUNT, e.round);
	dc_rn_u64(row, "src", "src", DC_U_COUNT, e.src);
	dc_rn_u64(row, "dst", "dst", DC_U_COUNT, e.dst);
	dc_rn_u64(row, "chunk", "chunk", DC_U_COUNT, e.chunk);
	dc_rn_u64(row, "bytes", "bytes", DC_U_BYTES_RAW, e.bytes);
	dc_rn_f64(row, "start_s", "start", DC_U_SECONDS, e.start_s);
	dc_rn_f64(row, "end_s", "end", DC_U_SECONDS, e.end_s);
}

static void rank_row(const void *ctx, uint64_t rank, struct dc_rnode *row)
{
	const struct dc_ring *r = ctx;
	dc_rn_u64(row, "rank", "rank", DC_U_COUNT, rank);
	dc_rn_u64(row, "bytes_sent", "sent", DC_U_BYTES_RAW, dc_ring_rank_bytes_sent(r, rank));
	dc_rn_u64(row, "bytes_received", "received", DC_U_BYTES_RAW, dc_ring_rank_bytes_recv(r, rank));
}

static int ring_run(const struct dc_config *cfg, const struct dc_run_info *info,
		    struct dc_report *report, struct dc_diag *diag)
{
	struct dc_ring *r = dc_report_keep(report, sizeof(*r));
	struct dc_rnode *s;
	struct dc_link link;
	enum dc_link_choice choice;
	struct dc_plan plan;

	if (!r)
		return 0; /* the runner reports the failed report */
	if (dc_plan_derive(cfg, &plan) != 0) {
		dc_diag_error(diag, DC_ERR_CONFIG, "%s: error: %s", info->config_name, plan.error);
		return -1;
	}
	link = plan.ring_link.params;
	choice = plan.ring_link.choice;
	dc_ring_compute(plan.ring_ranks, plan.ring_msg_bytes, &link, choice, r);

	s = dc_rn_object(dc_report_root(report), "ring", "Ring AllReduce (ReduceScatter + AllGather)");
	dc_rn_str(s, "note", "note",
		  "the course's teaching ring over global ranks 0..p-1 (collective.*), not one of this layout's groups: those are under comm");
	dc_rn_u64(s, "ranks", "ranks p", DC_U_COUNT, r->ranks);
	dc_rn_u64(s, "message_bytes", "message M", DC_U_BYTES, r->msg_bytes);
	dc_rn_str(s, "link", "link", dc_link_choice_name(choice));
	dc_rn_f64(s, "link_bandwidth_GBps", "link bandwidth B", DC_U_GBPS, link.bw_bytes_per_s / 1e9);
	dc_rn_f64(s, "link_latency_s", "link latency alpha", DC_U_SECONDS, link.latency_s);
	dc_rn_u64(s, "rounds", "rounds 2(p-1)", DC_U_COUNT, r->rounds);
	dc_rn_u64(s, "chunk_bytes", "chunk ceil(M/p)", DC_U_BYTES_RAW,
		  r->chunk_base_bytes + (r->chunk_rem ? 1 : 0));
	dc_rn_u64(s, "bytes_sent_per_rank", "bytes sent per rank (max)", DC_U_BYTES, r->bytes_sent_max);
	dc_rn_u64(s, "bytes_sent_per_rank_min", "bytes sent per rank (min)", DC_U_BYTES, r->bytes_sent_min);
	dc_rn_u64(s, "bytes_received_per_rank", "bytes received per rank (max)", DC_U_BYTES,
		  r->bytes_recv_max);
	dc_rn_f64(s, "round_time_s", "time per round", DC_U_SECONDS, r->round_s);
	dc_rn_f64(s, "time_s", "time 2(p-1)(alpha + M/(pB))", DC_U_SECONDS, r->time_s);
	if (r->have_bw) {
		dc_rn_f64(s, "algbw_GBps", "algbw M/t", DC_U_GBPS, r->algbw_GBps);
		dc_rn_f64(s, "busbw_GBps", "busbw algbw*2(p-1)/p", DC_U_GBPS, r->busbw_GBps);
	} else {
		dc_rn_null(s, "algbw_GBps", "algbw M/t", DC_U_GBPS);
		dc_rn_null(s, "busbw_GBps", "busbw algbw*2(p-1)/p", DC_U_GBPS);
	}
	dc_rn_u64(s, "events_total", "transfer events", DC_U_COUNT, r->events);
	dc_rn_array_gen(s, "per_rank", "Bytes per rank", "ranks", r->ranks, rank_row, r);
	dc_rn_array_gen(s, "events", "Transfer events (one per rank per round)", "events", r->events,
			event_row, r);
	return 0;
}

const struct dc_estimator dc_estimator_ring = {"ring", ring_run};
