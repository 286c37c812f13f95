/* sink_trace.c - --trace: one step as Chrome trace-event JSON (the format
 * Perfetto and chrome://tracing open: {"traceEvents": [...]}, complete
 * events "ph": "X" with microsecond "ts" and "dur").
 *
 * A process per pipeline stage (its tp x dp ranks are one rank class: the
 * same ops at the same times), up to DC_TRACE_MAX_STAGES of them (the
 * first and the last half when there are more); a thread per track: the
 * compute stream, which tiles the step (kernels, waits, bubbles, the
 * optimizer), and one per communication stream. Events come from the step
 * model's timeline (step.h), so the trace and the step section agree: the
 * compute track is the schedule's op order (ZB-H1's deferred weight
 * gradients, DualPipe's overlapped pairs marked "(F&B pair)"), each idle
 * gap a "pipeline bubble"; otherData names the schedule and its bubble. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "distcalc/plan.h"
#include "distcalc/report.h"
#include "distcalc/results.h"
#include "distcalc/section.h"
#include "distcalc/step.h"

#include "report_int.h"

#define DC_TRACE_MAX_STAGES 16
/* The bounds of --trace (docs/reliability.md, "Bounded work"): the
 * timeline simulates every op of every stage, pp x virtual_pipeline x
 * grad_accum_steps model chunks of work, in memory proportional to them,
 * so a step above DC_TRACE_MAX_CHUNKS is refused (a trace of a smaller
 * accumulation shows the same pattern); a track writes at most
 * DC_TRACE_MAX_EVENTS events and the trace DC_TRACE_MAX_TOTAL (about
 * 130 MB of JSON), the rest counted in otherData. */
#define DC_TRACE_MAX_CHUNKS ((uint64_t)1 << 16)
#define DC_TRACE_MAX_EVENTS 16384
#define DC_TRACE_MAX_TOTAL ((uint64_t)1 << 20)

struct trace_ctx {
	struct dc_buf *out;
	uint64_t pp;
	uint64_t stride; /* rank distance between stages */
	uint64_t ranks;  /* ranks per stage */
	int first;
	int named[DC_TRACE_MAX_STAGES * 2 + 2][DC_TRACK_COUNT];
	uint32_t written[DC_TRACE_MAX_STAGES * 2 + 2][DC_TRACK_COUNT]; /* events per track, to the cap */
	uint64_t shown, not_shown; /* events written, and past a cap */
};

static int want(void *ctx, uint64_t stage)
{
	const struct trace_ctx *t = ctx;
	return t->pp <= DC_TRACE_MAX_STAGES || stage < DC_TRACE_MAX_STAGES / 2 ||
	       stage >= t->pp - DC_TRACE_MAX_STAGES / 2;
}

static void put_num(struct dc_buf *b, double v)
{
	char num[32];
	dc_buf_add(b, num, dc_fmt_double(num, sizeof(num), v));
}

static void put_u64(struct dc_buf *b, uint64_t v)
{
	char num[24];
	dc_buf_add(b, num, dc_fmt_u64(num, v));
}

static void sep(struct trace_ctx *t)
{
	dc_buf_puts(t->out, t->first ? "\n" : ",\n");
	t->first = 0;
}

/* Metadata: the process and thread names, once each. */
static void name_track(struct trace_ctx *t, uint64_t stage, enum dc_step_track track)
{
	uint64_t slot = stage < DC_TRACE_MAX_STAGES ? stage : DC_TRACE_MAX_STAGES + (t->pp - 1 - stage);
	struct dc_buf *b = t->out;
	char text[160];
	if (slot >= DC_TRACE_MAX_STAGES * 2 + 2 || t->named[slot][track])
		return;
	if (!t->named[slot][DC_TRACK_COMPUTE] && track != DC_TRACK_COMPUTE)
		name_track(t, stage, DC_TRACK_COMPUTE);
	t->named[slot][track] = 1;
	if (track == DC_TRACK_COMPUTE) {
		sep(t);
		snprintf(text, sizeof(text), "stage %llu: %llu ranks from rank %llu", (unsigned long long)stage,
			 (unsigned long long)t->ranks, (unsigned long long)(stage * t->stride));
		dc_buf_puts(b, "{\"ph\": \"M\", \"name\": \"process_name\", \"pid\": ");
		put_u64(b, stage);
		dc_buf_puts(b, ", \"args\": {\"name\": ");
		dc_buf_json_string(b, text);
		dc_buf_puts(b, "}}");
		sep(t);
		dc_buf_puts(b, "{\"ph\": \"M\", \"name\": \"process_sort_index\", \"pid\": ");
		put_u64(b, stage);
		dc_buf_puts(b, ", \"args\": {\"sort_index\": ");
		put_u64(b, stage);
		dc_buf_puts(b, "}}");
	}
	sep(t);
	dc_buf_puts(b, "{\"ph\": \"M\", \"name\": \"thread_name\", \"pid\": ");
	put_u64(b, stage);
	dc_buf_puts(b, ", \"tid\": ");
	put_u64(b, (uint64_t)track);
	dc_buf_puts(b, ", \"args\": {\"name\": ");
	dc_buf_json_string(b, dc_step_track_name(track));
	dc_buf_puts(b, "}}");
}

static int on_event(void *ctx, const struct dc_step_event *e)
{
	struct trace_ctx *t = ctx;
	struct dc_buf *b = t->out;
	uint64_t slot = e->stage < DC_TRACE_MAX_STAGES ? e->stage : DC_TRACE_MAX_STAGES + (t->pp - 1 - e->stage);
	if (slot < DC_TRACE_MAX_STAGES * 2 + 2 && (unsigned)e->track < DC_TRACK_COUNT) {
		if (t->written[slot][e->track] >= DC_TRACE_MAX_EVENTS || t->shown >= DC_TRACE_MAX_TOTAL) {
			t->not_shown++;
			return 0;
		}
		t->written[slot][e->track]++;
	}
	t->shown++;
	name_track(t, e->stage, e->track);
	sep(t);
	dc_buf_puts(b, "{\"ph\": \"X\", \"name\": ");
	dc_buf_json_string(b, e->name);
	dc_buf_puts(b, ", \"cat\": ");
	dc_buf_json_string(b, dc_step_track_name(e->track));
	dc_buf_puts(b, ", \"pid\": ");
	put_u64(b, e->stage);
	dc_buf_puts(b, ", \"tid\": ");
	put_u64(b, (uint64_t)e->track);
	dc_buf_puts(b, ", \"ts\": ");
	put_num(b, e->start_s * 1e6);
	dc_buf_puts(b, ", \"dur\": ");
	put_num(b, e->duration_s * 1e6);
	dc_buf_puts(b, "}");
	return b->failed ? -1 : 0;
}

int dc_report_render_trace(struct dc_report *r, struct dc_buf *out, const char **error)
{
	struct dc_results *res = dc_calloc(1, sizeof(*res));
	struct trace_ctx *t = dc_calloc(1, sizeof(*t));
	struct dc_step s;
	int rc = -1;

	*error = "out of memory";
	if (!res || !t)
		goto done;
	if (dc_estimate(&r->plan, DC_EST_BIT(DC_EST_STEP), res) != 0) {
		*error = res->error;
		goto done;
	}
	if (!res->compute.available) {
		*error = "no step time to trace: the compute model lacks its GPU data (set cluster.gpu or the keys the step section names)";
		goto done;
	}
	{
		uint64_t chunks;
		if (dc_mul_u64(r->plan.layout.pp, r->plan.layout.virtual_pipeline, &chunks) ||
		    dc_mul_u64(chunks, r->plan.layout.grad_accum_steps, &chunks) || chunks > DC_TRACE_MAX_CHUNKS) {
			*error = "the step is too long to trace: pp x virtual_pipeline x grad_accum_steps is above 2^16 model chunks "
				 "(the timeline simulates each in memory); trace it with a smaller --set training.grad_accum_steps, "
				 "whose schedule shows the same pattern";
			goto done;
		}
	}
	t->out = out;
	t->pp = r->plan.layout.pp;
	t->stride = r->plan.topo.stride[DC_AXIS_PP];
	t->ranks = r->plan.world / r->plan.layout.pp;
	t->first = 1;
	dc_buf_puts(out, "{\"displayTimeUnit\": \"ms\", \"traceEvents\": [");
	rc = dc_step_timeline(&r->plan, &res->compute, &res->comm, &res->flops, &res->batch, &s, want, on_event, t,
			      error);
	if (rc != 0) {
		if (rc > 0 || out->failed)
			*error = "out of memory";
		rc = -1;
		goto done;
	}
	/* the timeline's step (what the compute tracks tile) and the closed
	 * form's (the report's step.time_s) */
	dc_buf_puts(out, "\n], \"otherData\": {\"config\": ");
	dc_buf_json_string(out, r->config_name);
	dc_buf_puts(out, ", \"step_time_s\": ");
	put_num(out, s.time_s);
	dc_buf_puts(out, ", \"step_time_closed_form_s\": ");
	put_num(out, res->step.time_s);
	dc_buf_puts(out, ", \"stages\": ");
	put_u64(out, t->pp);
	/* the cap on each track's events, and how many it left out */
	dc_buf_puts(out, ", \"events_per_track_cap\": ");
	put_u64(out, DC_TRACE_MAX_EVENTS);
	dc_buf_puts(out, ", \"events_cap\": ");
	put_u64(out, DC_TRACE_MAX_TOTAL);
	dc_buf_puts(out, ", \"events_not_shown\": ");
	put_u64(out, t->not_shown);
	/* the schedule whose op order the compute tracks show, and its
	 * critical stage's bubble against the paper's formula (step.h) */
	dc_buf_puts(out, ", \"pipeline_schedule\": ");
	dc_buf_json_string(out, dc_pipe_schedule_name(s.schedule));
	dc_buf_puts(out, ", \"bubble_s\": ");
	put_num(out, s.bubble_s);
	dc_buf_puts(out, ", \"bubble_paper_s\": ");
	put_num(out, s.bubble_paper_s);
	dc_buf_puts(out, "}}\n");
	rc = out->failed ? -1 : 0;
done:
	free(res);
	free(t);
	return rc;
}
