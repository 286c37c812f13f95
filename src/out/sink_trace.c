/* sink_trace.c - --trace: one step as Chrome trace-event JSON (the format
 * Perfetto and chrome://tracing open: {"traceEvents": [...]}, complete
 * events "ph": "X" with microsecond "ts" and "dur", counter events "ph":
 * "C").
 *
 * A process per rank class: a pipeline stage, whose tp x dp ranks run the
 * same ops at the same times, up to DC_TRACE_MAX_STAGES of them (the
 * first and the last half when there are more; the others counted in
 * otherData); a thread per track: the compute stream, which tiles the
 * step (kernels, waits, bubbles, the optimizer), and one per
 * communication stream. Events come from the step model's timeline
 * (step.h dc_step_trace), so the trace and the step section agree: the
 * compute track is the schedule's op order (ZB-H1's deferred weight
 * gradients, DualPipe's overlapped pairs marked "(F&B pair)"), each idle
 * gap a "pipeline bubble"; each stage's ops up to its first backward of
 * microbatch DC_TRACE_MAX_MICROBATCHES, the rest of its schedule one
 * summary span (its op count and kernel time in args). A counter track
 * per stage, "memory", is the bytes in use from the memory ledger
 * (memory.h) over the step: the model states, buffers and context all
 * along, the activations of the chunk-microbatches the stage holds (each
 * 1 / held_max of the ledger's activations), the ledger's backward extras
 * during a backward, its allocator reserve on top (docs/step-model.md,
 * "The trace"). otherData names the schedule, its bubble and every cap. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "distcalc/memory.h"
#include "distcalc/plan.h"
#include "distcalc/report.h"
#include "distcalc/ring.h"
#include "distcalc/results.h"
#include "distcalc/section.h"
#include "distcalc/step.h"

#include "report_int.h"

#define DC_TRACE_MAX_STAGES 16
/* The bounds of --trace (docs/reliability.md, "Bounded work"): each stage
 * shows its ops up to its first backward of microbatch
 * DC_TRACE_MAX_MICROBATCHES and summarises the rest; the timeline
 * simulates pp x chunks x microbatches model chunks in memory, at most
 * DC_TRACE_MAX_CHUNKS: above it a prefix of the schedule (the shown
 * microbatches + about 3 pp) with the rest from the closed form, or,
 * where the schedule has none, an error (a trace of a smaller
 * accumulation shows the same pattern); a track writes at most
 * DC_TRACE_MAX_EVENTS events and the trace DC_TRACE_MAX_TOTAL, the rest
 * counted in otherData. */
#define DC_TRACE_MAX_MICROBATCHES 32
#define DC_TRACE_MAX_CHUNKS ((uint64_t)1 << 18)
#define DC_TRACE_MAX_EVENTS 16384
#define DC_TRACE_MAX_TOTAL ((uint64_t)1 << 20)
#define DC_TRACE_SLOTS (DC_TRACE_MAX_STAGES * 2 + 2)

/* a shown stage's memory ledger, as the counter reads it */
struct trace_mem {
	int have;
	uint64_t base;        /* the optimizer step's subtotal: states, buffers, context, workspace */
	uint64_t activations; /* the ledger's activations at its in-flight count */
	uint64_t fwd_extra, bwd_extra; /* the forward and backward subtotals' other terms */
	uint64_t ledger_peak, counter_peak;
	enum dc_mem_phase ledger_phase;
	uint64_t held_max;
};

struct trace_ctx {
	struct dc_buf *out;
	const struct dc_plan *plan;
	const char *error;
	uint64_t pp;
	uint64_t stride; /* rank distance between stages */
	uint64_t ranks;  /* ranks per stage */
	int first;
	int named[DC_TRACE_SLOTS][DC_TRACK_COUNT];
	uint32_t written[DC_TRACE_SLOTS][DC_TRACK_COUNT]; /* events per track, to the cap */
	struct trace_mem mem[DC_TRACE_SLOTS];
	uint64_t shown, not_shown; /* events written, and past a cap */
	uint64_t summarised_ops;   /* ops the summary spans stand for */
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
	if (slot >= DC_TRACE_SLOTS || t->named[slot][track])
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

static uint64_t slot_of(const struct trace_ctx *t, uint64_t stage)
{
	return stage < DC_TRACE_MAX_STAGES ? stage : DC_TRACE_MAX_STAGES + (t->pp - 1 - stage);
}

/* The ledger of the stage the counter draws: 0, or -1 with t->error. */
static int mem_of(struct trace_ctx *t, uint64_t stage, struct trace_mem **out)
{
	struct trace_mem *m = &t->mem[slot_of(t, stage)];
	if (!m->have) {
		struct dc_mem_ledger l;
		const uint64_t *sub = l.phase_subtotal_bytes;
		if (dc_memory_stage(t->plan, stage, &l, &t->error) != 0)
			return -1;
		m->base = sub[DC_MEM_OPTIMIZER];
		m->activations = l.activations_bytes;
		/* forward: + activations + the FSDP gathered params (and held
		 * grads); backward: + activations + buckets, FSDP params and
		 * grads, the larger of a rebuilt layer and the head's gradients */
		m->fwd_extra = sub[DC_MEM_FORWARD] - m->base - m->activations;
		m->bwd_extra = sub[DC_MEM_BACKWARD] - m->base - m->activations;
		m->ledger_peak = l.peak_bytes;
		m->ledger_phase = l.peak_phase;
		m->have = 1;
	}
	*out = m;
	return 0;
}

/* One point of a stage's memory counter: "allocated" (the ledger's terms
 * at this point) and the allocator's reserve on it, stacked. */
static int on_memory(struct trace_ctx *t, const struct dc_step_event *e)
{
	struct dc_buf *b = t->out;
	struct trace_mem *m;
	uint64_t act = 0, v, reserve;
	if (mem_of(t, e->stage, &m) != 0)
		return -1;
	if (e->held_max > 0) {
		/* held / held_max of the ledger's activations, rounded down */
		uint64_t prod;
		act = dc_mul_u64(m->activations, e->held, &prod) == 0
			      ? prod / e->held_max
			      : (uint64_t)((double)m->activations * ((double)e->held / (double)e->held_max));
	}
	v = m->base + act + (e->mem == DC_STEP_MEM_BACKWARD ? m->bwd_extra : e->mem == DC_STEP_MEM_FORWARD ? m->fwd_extra : 0);
	reserve = dc_mem_reserve_bytes(v, t->plan->in->memory.allocator_reserve);
	if (v + reserve > m->counter_peak)
		m->counter_peak = v + reserve;
	if (e->held_max > m->held_max)
		m->held_max = e->held_max;
	name_track(t, e->stage, DC_TRACK_COMPUTE);
	sep(t);
	dc_buf_puts(b, "{\"ph\": \"C\", \"name\": \"memory (bytes)\", \"pid\": ");
	put_u64(b, e->stage);
	dc_buf_puts(b, ", \"ts\": ");
	put_num(b, e->start_s * 1e6);
	dc_buf_puts(b, ", \"args\": {\"allocated\": ");
	put_u64(b, v);
	dc_buf_puts(b, ", \"allocator reserve\": ");
	put_u64(b, reserve);
	dc_buf_puts(b, "}}");
	return 0;
}

static int on_event(void *ctx, const struct dc_step_event *e)
{
	struct trace_ctx *t = ctx;
	struct dc_buf *b = t->out;
	uint64_t slot = slot_of(t, e->stage);
	if (t->shown >= DC_TRACE_MAX_TOTAL) {
		t->not_shown++;
		return 0;
	}
	if (e->kind == DC_EV_MEMORY) {
		t->shown++;
		return on_memory(t, e) != 0 ? 1 : b->failed ? -1 : 0;
	}
	if (slot < DC_TRACE_SLOTS && (unsigned)e->track < DC_TRACK_COUNT) {
		if (t->written[slot][e->track] >= DC_TRACE_MAX_EVENTS) {
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
	dc_buf_json_string(b, e->kind == DC_EV_SUMMARY ? "summary" : dc_step_track_name(e->track));
	dc_buf_puts(b, ", \"pid\": ");
	put_u64(b, e->stage);
	dc_buf_puts(b, ", \"tid\": ");
	put_u64(b, (uint64_t)e->track);
	dc_buf_puts(b, ", \"ts\": ");
	put_num(b, e->start_s * 1e6);
	dc_buf_puts(b, ", \"dur\": ");
	put_num(b, e->duration_s * 1e6);
	if (e->kind == DC_EV_SUMMARY) {
		/* what the span stands for */
		t->summarised_ops += e->ops;
		dc_buf_puts(b, ", \"args\": {\"ops\": ");
		put_u64(b, e->ops);
		dc_buf_puts(b, ", \"busy_s\": ");
		put_num(b, e->busy_s);
		dc_buf_puts(b, ", \"idle_s\": ");
		put_num(b, e->duration_s - e->busy_s > 0 ? e->duration_s - e->busy_s : 0);
		dc_buf_puts(b, "}");
	}
	dc_buf_puts(b, "}");
	return b->failed ? -1 : 0;
}

/* ---- --experiment ring: the ring's rounds ---- */

/* The ring's bounds: at most DC_TRACE_MAX_STAGES ranks (the first and
 * last half), each phase's first DC_TRACE_RING_ROUNDS rounds a rank, the
 * rest of the phase one summary span (its rounds and bytes). */
#define DC_TRACE_RING_ROUNDS 32

static void ring_meta(struct dc_buf *b, struct trace_ctx *t, uint64_t rank, uint64_t p)
{
	char text[96];
	sep(t);
	snprintf(text, sizeof(text), "rank %llu (sends to rank %llu)", (unsigned long long)rank,
		 (unsigned long long)((rank + 1) % p));
	dc_buf_puts(b, "{\"ph\": \"M\", \"name\": \"process_name\", \"pid\": ");
	put_u64(b, rank);
	dc_buf_puts(b, ", \"args\": {\"name\": ");
	dc_buf_json_string(b, text);
	dc_buf_puts(b, "}}");
	sep(t);
	dc_buf_puts(b, "{\"ph\": \"M\", \"name\": \"process_sort_index\", \"pid\": ");
	put_u64(b, rank);
	dc_buf_puts(b, ", \"args\": {\"sort_index\": ");
	put_u64(b, rank);
	dc_buf_puts(b, "}}");
	sep(t);
	dc_buf_puts(b, "{\"ph\": \"M\", \"name\": \"thread_name\", \"pid\": ");
	put_u64(b, rank);
	dc_buf_puts(b, ", \"tid\": 0, \"args\": {\"name\": \"ring rounds\"}}");
}

/* One span on rank `rank`'s track. */
static void ring_span(struct dc_buf *b, struct trace_ctx *t, uint64_t rank, const char *name, const char *cat,
		      double start_s, double dur_s)
{
	sep(t);
	t->shown++;
	dc_buf_puts(b, "{\"ph\": \"X\", \"name\": ");
	dc_buf_json_string(b, name);
	dc_buf_puts(b, ", \"cat\": ");
	dc_buf_json_string(b, cat);
	dc_buf_puts(b, ", \"pid\": ");
	put_u64(b, rank);
	dc_buf_puts(b, ", \"tid\": 0, \"ts\": ");
	put_num(b, start_s * 1e6);
	dc_buf_puts(b, ", \"dur\": ");
	put_num(b, dur_s * 1e6);
}

/* Rank `rank`'s rounds: in global round k it sends chunk c to rank + 1
 * and receives rank - 1's (ring.h dc_ring_event_at), from k x round_s for
 * alpha + the chunk's bytes / B. */
static void ring_rank(struct dc_buf *b, struct trace_ctx *t, const struct dc_ring *r, uint64_t rank)
{
	uint64_t p = r->ranks, per = p - 1, show = per < DC_TRACE_RING_ROUNDS ? per : DC_TRACE_RING_ROUNDS;
	ring_meta(b, t, rank, p);
	for (int ph = 0; ph < 2; ph++) {
		uint64_t bytes = 0;
		for (uint64_t i = 0; i < show; i++) {
			struct dc_ring_event snd, rcv;
			uint64_t k = (uint64_t)ph * per + i;
			char name[128];
			dc_ring_event_at(r, k * p + rank, &snd);
			dc_ring_event_at(r, k * p + (rank + p - 1) % p, &rcv);
			bytes += snd.bytes;
			snprintf(name, sizeof(name), "%s round %llu: send chunk %llu, receive chunk %llu",
				 dc_ring_phase_name(snd.phase), (unsigned long long)snd.round, (unsigned long long)snd.chunk,
				 (unsigned long long)rcv.chunk);
			ring_span(b, t, rank, name, dc_ring_phase_name(snd.phase), snd.start_s, snd.end_s - snd.start_s);
			dc_buf_puts(b, ", \"args\": {\"global_round\": ");
			put_u64(b, k);
			dc_buf_puts(b, ", \"to\": ");
			put_u64(b, snd.dst);
			dc_buf_puts(b, ", \"chunk_sent\": ");
			put_u64(b, snd.chunk);
			dc_buf_puts(b, ", \"bytes_sent\": ");
			put_u64(b, snd.bytes);
			dc_buf_puts(b, ", \"from\": ");
			put_u64(b, rcv.src);
			dc_buf_puts(b, ", \"chunk_received\": ");
			put_u64(b, rcv.chunk);
			dc_buf_puts(b, ", \"bytes_received\": ");
			put_u64(b, rcv.bytes);
			dc_buf_puts(b, "}}");
		}
		if (show < per) {
			/* the phase's other rounds: a reduce-scatter sends every chunk
			 * but (rank + 1) mod p, an all-gather every chunk but
			 * (rank + 2) mod p (ring.h) */
			uint64_t all = r->msg_bytes - dc_ring_chunk_bytes(r, (rank + 1 + (uint64_t)ph) % p);
			double start = (double)((uint64_t)ph * per + show) * r->round_s;
			char name[96];
			snprintf(name, sizeof(name), "%s rounds %llu-%llu (summarised)", ph ? "all_gather" : "reduce_scatter",
				 (unsigned long long)show, (unsigned long long)(per - 1));
			ring_span(b, t, rank, name, "summary", start, (double)(per - show) * r->round_s);
			dc_buf_puts(b, ", \"args\": {\"rounds\": ");
			put_u64(b, per - show);
			dc_buf_puts(b, ", \"bytes_sent\": ");
			put_u64(b, all - bytes);
			dc_buf_puts(b, "}}");
			t->summarised_ops += per - show;
		}
	}
}

static int render_ring(struct dc_report *r, struct dc_buf *out, const char **error)
{
	struct dc_results *res = dc_calloc(1, sizeof(*res));
	struct trace_ctx *t = dc_calloc(1, sizeof(*t));
	const struct dc_ring *g;
	uint64_t p, nshown;
	int rc = -1;
	*error = "out of memory";
	if (!res || !t)
		goto done;
	if (dc_estimate(&r->plan, DC_EST_BIT(DC_EST_RING), res) != 0) {
		*error = res->error;
		goto done;
	}
	g = &res->ring;
	p = g->ranks;
	t->out = out;
	t->first = 1;
	t->pp = p;
	if (p < 2) {
		*error = "the ring has one rank (collective.ranks 1): there are no rounds to trace";
		goto done;
	}
	dc_buf_puts(out, "{\"displayTimeUnit\": \"ms\", \"traceEvents\": [");
	for (uint64_t i = 0; i < p && !out->failed; i++) {
		if (!want(t, i)) {
			i = p - DC_TRACE_MAX_STAGES / 2 - 1;
			continue;
		}
		ring_rank(out, t, g, i);
	}
	nshown = p <= DC_TRACE_MAX_STAGES ? p : DC_TRACE_MAX_STAGES;
	dc_buf_puts(out, "\n], \"otherData\": {\"config\": ");
	dc_buf_json_string(out, r->config_name);
	dc_buf_puts(out, ", \"experiment\": \"ring\", \"ranks\": ");
	put_u64(out, p);
	dc_buf_puts(out, ", \"msg_bytes\": ");
	put_u64(out, g->msg_bytes);
	dc_buf_puts(out, ", \"chunk_bytes\": ");
	put_u64(out, g->chunk_base_bytes);
	dc_buf_puts(out, ", \"chunks_one_byte_more\": ");
	put_u64(out, g->chunk_rem);
	dc_buf_puts(out, ", \"rounds_per_rank\": ");
	put_u64(out, g->rounds);
	dc_buf_puts(out, ", \"round_s\": ");
	put_num(out, g->round_s);
	dc_buf_puts(out, ", \"time_s\": ");
	put_num(out, g->time_s);
	dc_buf_puts(out, ", \"ranks_shown\": ");
	put_u64(out, nshown);
	dc_buf_puts(out, ", \"ranks_not_shown\": ");
	put_u64(out, p - nshown);
	dc_buf_puts(out, ", \"summarised_rounds\": ");
	put_u64(out, t->summarised_ops);
	dc_buf_puts(out, ", \"caps\": {\"ranks\": ");
	put_u64(out, DC_TRACE_MAX_STAGES);
	dc_buf_puts(out, ", \"rounds_per_phase\": ");
	put_u64(out, DC_TRACE_RING_ROUNDS);
	dc_buf_puts(out, "}}}\n");
	rc = out->failed ? -1 : 0;
done:
	free(res);
	free(t);
	return rc;
}

int dc_report_render_trace(struct dc_report *r, struct dc_buf *out, const char **error)
{
	if (r->info.experiment && strcmp(r->info.experiment, "ring") == 0)
		return render_ring(r, out, error);

	struct dc_results *res = dc_calloc(1, sizeof(*res));
	struct trace_ctx *t = dc_calloc(1, sizeof(*t));
	struct dc_step s;
	struct dc_step_show show = {.microbatches = DC_TRACE_MAX_MICROBATCHES, .max_chunks = DC_TRACE_MAX_CHUNKS};
	uint64_t nshown, hidden;
	int rc = -1;

	*error = "out of memory";
	if (!res || !t)
		goto done;
	if (dc_estimate(&r->plan, DC_EST_BIT(DC_EST_STEP) | DC_EST_BIT(DC_EST_MEMORY), res) != 0) {
		*error = res->error;
		goto done;
	}
	if (!res->compute.available) {
		*error = "no step time to trace: the compute model lacks its GPU data (set cluster.gpu or the keys the step section names)";
		goto done;
	}
	t->out = out;
	t->plan = &r->plan;
	t->pp = r->plan.layout.pp;
	t->stride = r->plan.topo.stride[DC_AXIS_PP];
	t->ranks = r->plan.world / r->plan.layout.pp;
	t->first = 1;
	dc_buf_puts(out, "{\"displayTimeUnit\": \"ms\", \"traceEvents\": [");
	rc = dc_step_trace(&r->plan, &res->compute, &res->comm, &res->flops, &res->batch, &s, &show, want, on_event, t,
			   error);
	if (rc == -2) {
		*error = show.no_closed_form
				 ? "the step is too long to trace: pp x model chunks x microbatches is above 2^18, the most the "
				   "timeline simulates, and the schedule (DualPipe, DualPipeV, uneven interleaved chunks) has no "
				   "closed form for the microbatches the trace summarises; trace it with a smaller --set "
				   "training.grad_accum_steps (or parallel.pipeline_schedule_microbatches, where a step runs several "
				   "schedules), whose schedule shows the same pattern"
				 : "the step is too long to trace: the pipeline is too deep for the 2^18 model chunks the timeline "
				   "simulates at most (pp x model chunks x the microbatches it needs: the 32 it shows + pp under "
				   "1F1B and ZB-H1, + 3 pp under interleaved); trace a shallower --set parallel.pp, whose schedule "
				   "shows the same pattern";
		rc = -1;
		goto done;
	}
	if (rc != 0) {
		if (rc == 1 && t->error)
			*error = t->error;
		else if (rc > 0 || out->failed)
			*error = "out of memory";
		rc = -1;
		goto done;
	}
	nshown = t->pp <= DC_TRACE_MAX_STAGES ? t->pp : DC_TRACE_MAX_STAGES;
	hidden = t->pp - nshown;
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
	/* what the trace shows of the step, and every cap (docs/reliability.md) */
	dc_buf_puts(out, ", \"stages_shown\": ");
	put_u64(out, nshown);
	dc_buf_puts(out, ", \"stages_not_shown\": {\"count\": ");
	put_u64(out, hidden);
	if (hidden > 0) {
		dc_buf_puts(out, ", \"first\": ");
		put_u64(out, DC_TRACE_MAX_STAGES / 2);
		dc_buf_puts(out, ", \"last\": ");
		put_u64(out, t->pp - DC_TRACE_MAX_STAGES / 2 - 1);
		dc_buf_puts(out, ", \"ranks\": ");
		put_u64(out, hidden * t->ranks);
		/* the stages not shown by the step section's classes (step.h
		 * dc_step_class: each at its stage that finishes last, closed form) */
		dc_buf_puts(out, ", \"classes\": [");
		for (uint64_t i = 0, n = 0, lo = DC_TRACE_MAX_STAGES / 2, hi = t->pp - DC_TRACE_MAX_STAGES / 2 - 1;
		     i < res->step.nclasses; i++) {
			const struct dc_step_class *c = &res->step.classes[i];
			uint64_t a = c->stage_first > lo ? c->stage_first : lo, z = c->stage_last < hi ? c->stage_last : hi;
			if (a > z)
				continue;
			dc_buf_puts(out, n++ ? ", {\"stage_first\": " : "{\"stage_first\": ");
			put_u64(out, a);
			dc_buf_puts(out, ", \"stage_last\": ");
			put_u64(out, z);
			dc_buf_puts(out, ", \"ranks\": ");
			put_u64(out, (z - a + 1) * t->ranks);
			dc_buf_puts(out, ", \"compute_s\": ");
			put_num(out, c->compute_s);
			dc_buf_puts(out, ", \"bubble_s\": ");
			put_num(out, c->bubble_s);
			dc_buf_puts(out, ", \"step_s\": ");
			put_num(out, c->total_s);
			dc_buf_puts(out, "}");
		}
		dc_buf_puts(out, "]");
	}
	dc_buf_puts(out, "}, \"microbatches\": ");
	put_u64(out, r->plan.layout.grad_accum_steps);
	dc_buf_puts(out, ", \"microbatches_simulated\": ");
	put_u64(out, show.m_simulated);
	dc_buf_puts(out, ", \"step_from_closed_form\": ");
	dc_buf_puts(out, show.from_closed_form ? "true" : "false");
	if (show.extended) {
		/* DualPipe, DualPipeV, uneven interleaved chunks above the bound:
		 * the ends moved on by the steady periods not simulated */
		dc_buf_puts(out, ", \"steady_periods_not_simulated\": ");
		put_u64(out, show.periods);
	}
	dc_buf_puts(out, ", \"summarised_ops\": ");
	put_u64(out, t->summarised_ops);
	dc_buf_puts(out, ", \"caps\": {\"stages\": ");
	put_u64(out, DC_TRACE_MAX_STAGES);
	dc_buf_puts(out, ", \"microbatches\": ");
	put_u64(out, DC_TRACE_MAX_MICROBATCHES);
	dc_buf_puts(out, ", \"simulated_chunks\": ");
	put_u64(out, DC_TRACE_MAX_CHUNKS);
	dc_buf_puts(out, ", \"events_per_track\": ");
	put_u64(out, DC_TRACE_MAX_EVENTS);
	dc_buf_puts(out, ", \"events\": ");
	put_u64(out, DC_TRACE_MAX_TOTAL);
	dc_buf_puts(out, "}, \"events_per_track_cap\": ");
	put_u64(out, DC_TRACE_MAX_EVENTS);
	dc_buf_puts(out, ", \"events_cap\": ");
	put_u64(out, DC_TRACE_MAX_TOTAL);
	dc_buf_puts(out, ", \"events_not_shown\": ");
	put_u64(out, t->not_shown);
	/* each shown stage's counter peak beside its ledger's (the ledger's
	 * checkpoint_save phase is not in the step) */
	dc_buf_puts(out, ", \"memory\": [");
	for (uint64_t i = 0, n = 0; i < t->pp; i++) {
		const struct trace_mem *m;
		if (!want(t, i))
			continue;
		m = &t->mem[slot_of(t, i)];
		if (!m->have)
			continue;
		dc_buf_puts(out, n++ ? ", " : "");
		dc_buf_puts(out, "{\"stage\": ");
		put_u64(out, i);
		dc_buf_puts(out, ", \"held_max\": ");
		put_u64(out, m->held_max);
		dc_buf_puts(out, ", \"counter_peak_bytes\": ");
		put_u64(out, m->counter_peak);
		dc_buf_puts(out, ", \"ledger_peak_bytes\": ");
		put_u64(out, m->ledger_peak);
		dc_buf_puts(out, ", \"ledger_peak_phase\": ");
		dc_buf_json_string(out, dc_mem_phase_name(m->ledger_phase));
		dc_buf_puts(out, "}");
		if (i == DC_TRACE_MAX_STAGES / 2 - 1 && hidden > 0)
			i = t->pp - DC_TRACE_MAX_STAGES / 2 - 1;
	}
	dc_buf_puts(out, "]");
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
