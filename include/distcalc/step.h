/* step.h - how long one training step takes: the pipeline schedule, what
 * overlap hides and the critical path.
 *
 * The step estimator (DC_EST_STEP, results.h) reads the other estimators'
 * results as data: kernel times per layer and microbatch from the compute
 * result (compute.h), every collective's time from the comm result
 * (comm.h; never a time model of its own), FLOPs for MFU and HFU, the
 * batch for tokens per step. Per pipeline stage it composes one
 * microbatch's forward and backward from the stage's layer counts (the
 * embedding on the first stage, the head on the last), adds the exposed
 * TP, EP and FSDP communication of each op, runs the pipeline schedule
 * (parallel.pipeline_schedule: 1F1B, interleaved 1F1B, ZB-H1, DualPipe,
 * DualPipeV) with the point-to-point sends between stages, lets the
 * DDP / ZeRO gradient buckets run behind the last backward (each rank its
 * own), and meets all ranks at the gradient synchronisation before the
 * optimizer step: the slowest stage sets the step, then the rank whose
 * optimizer and updated parameters' AllGather end last.
 *
 * Two evaluations of the same model: dc_step_compute is the closed form
 * (what a layout search calls, O(pp) arithmetic, no allocation; DualPipe's
 * schedules and uneven interleaved chunks have none and are simulated),
 * and dc_step_timeline simulates every op of the schedule and emits its
 * events (what the trace shows). tests/check_step.c holds them within 0.5%
 * of each other on every shipped config under every schedule its layout
 * allows. Derivations and the worked examples: docs/step-model.md.
 */
#ifndef DISTCALC_STEP_H
#define DISTCALC_STEP_H

#include <stdint.h>

#include "distcalc/activation.h"
#include "distcalc/batch.h"
#include "distcalc/comm.h"
#include "distcalc/compute.h"
#include "distcalc/flops.h"
#include "distcalc/strategies.h"

struct dc_plan;

/* One microbatch's ops on one pipeline stage, in seconds: everything the
 * schedule needs. Built from the compute and comm results (step.c,
 * stage_ops) or by hand (tests). */
struct dc_step_stage {
	double fwd_s, bwd_s;             /* all the stage's chunks, exposed TP/EP/FSDP included */
	double fwd_first_s, bwd_first_s; /* chunk 0 (the first model chunk of the stage) */
	double fwd_last_s, bwd_last_s;   /* chunk v - 1 (DualPipe, DualPipeV: chunk 1) */
	double exposed_s[DC_STRAT_COUNT]; /* of fwd_s + bwd_s: exposed communication per strategy */
	double compute_s;                /* fwd_s + bwd_s less the exposed communication */
	double hidden_s;                 /* communication that ran behind the kernels */
	/* W: of bwd_s, the weight-gradient GEMMs (compute.h bwd_wgrad_s), which
	 * ZB-H1 and DualPipe run apart from the input gradients (B - W) */
	double wgrad_s, wgrad_first_s, wgrad_last_s;
	/* DualPipe's overlapped pairs: a chunk's forward and backward when it
	 * runs beside another microbatch's (overlap.ep dualpipe hides their
	 * AlltoAlls), so F&B = fwd_pair of one chunk + bwd_pair of the other;
	 * 0: as alone */
	double fwd_pair_first_s, fwd_pair_last_s, bwd_pair_first_s, bwd_pair_last_s;
};

/* The schedule's input: p stages, m microbatches, v chunks, the time of
 * one point-to-point send between neighbouring stages, and the schedule
 * (0: 1F1B, or interleaved when v > 1). DualPipe and DualPipeV read a
 * stage's two chunks as chunk 0 (first) and chunk 1 (last). */
struct dc_step_pipe {
	uint64_t p, m, v;
	double send_s;
	const struct dc_step_stage *stage; /* p entries */
	enum dc_pipe_schedule schedule;
};

/* What the DP gradient buckets cost after a stage's last backward. */
struct dc_step_buckets {
	/* calls in the order the stream runs them: groups of `n` calls of
	 * `bytes` each (the gradient the backward produces for it) taking
	 * `call_s` (full buckets, then the rest) */
	uint64_t ngroups;
	uint64_t n[DC_COMM_MAX_COLL];
	uint64_t bytes[DC_COMM_MAX_COLL];
	double call_s[DC_COMM_MAX_COLL];
	uint64_t total_bytes;
	double total_s; /* every call's time, the follow-ups' included */
	/* each group's op and what it moves (the trace's names; unread by
	 * dc_step_bucket_tail) */
	enum dc_coll_kind kind[DC_COMM_MAX_COLL];
	enum dc_coll_what what[DC_COMM_MAX_COLL];
	/* what sums each call's result again once it ended, right after it
	 * in the same call (`call_s` holds both): HSDP's AllReduce across the
	 * replicas, DualPipe's with the mirror rank (DC_STEP_RESUM_* bits;
	 * the trace's names) */
	unsigned resums[DC_COMM_MAX_COLL];
};

#define DC_STEP_RESUM_REPLICAS 1u
#define DC_STEP_RESUM_MIRROR 2u

/* The pipeline schedule in closed form (docs/step-model.md, section 3):
 * returns the span from the first forward to the end of the last backward,
 * and the stage that sets it in *critical (may be NULL). Stage s's last
 * backward ends the drain Σ_{r<s} (bwd_first_s + send_s) before the span.
 * 1F1B, interleaved and ZB-H1 in closed form; DualPipe and DualPipeV have
 * none (their schedule is simulated: it allocates, and returns -1 when
 * out of memory). */
double dc_step_pipeline_closed(const struct dc_step_pipe *pp, uint64_t *critical);

/* The time after `window_s` of backward (buckets produced uniformly by
 * bytes over it) until the last bucket's collective ends: the exposed
 * tail, >= 0. Closed form over the groups. */
double dc_step_bucket_tail(const struct dc_step_buckets *b, double window_s);

/* Megatron's --overlap-param-gather (docs/step-model.md, "Framework
 * rules"): the updated parameters' AllGather calls `b` (groups in the
 * order dp.c pushes them, the backward's: the forward meets them last
 * group first) run back to back on the communication stream while the
 * next step's first forward of `window_s` seconds consumes them, bucket
 * i's share bytes_i / total of the window starting once bucket i has
 * arrived. Returns the seconds the forward is held up: max over i of
 * (gathers up to i) - (forward of the buckets before i), at least the
 * first bucket's gather. O(groups). */
double dc_step_param_gather_exposed(const struct dc_step_buckets *b, double window_s);

/* One collective of c_s seconds in `tiles` tiles beside a GEMM of g_s
 * seconds (Megatron's --tp-comm-overlap, torchtitan's async TP): the part
 * of c_s that shows, max(0, c_s - g_s (tiles - 1) / tiles). */
double dc_step_tiled_exposed(double c_s, double g_s, double tiles);

/* One row of step.classes[]: the stages of one plan segment (identical
 * parameters, so identical ops), at the one of them that finishes last. */
struct dc_step_class {
	uint64_t stage_first, stage_last;
	uint64_t ranks;        /* ranks of these stages */
	uint64_t first_rank;
	double compute_s;      /* kernels, slowdown included */
	double bubble_s;       /* idle while the pipeline runs (fill, drain, sends) */
	double exposed_s[DC_STRAT_COUNT];
	double hidden_s;       /* communication that ran behind compute */
	double tail_wait_s;    /* waiting for the slowest stage at the sync and after */
	double optimizer_s;
	double total_s;        /* the step: every class meets at the sync */
};

#define DC_STEP_MAX_PATH 8

struct dc_step_path {
	const char *what; /* static text */
	uint64_t stage;   /* the stage whose work it is */
	double start_s, duration_s;
};

struct dc_step {
	int available;       /* 0 when the compute result is unavailable */
	const char *missing; /* then: the keys it lacks (compute.h) */
	int interleaved;     /* v > 1 */
	uint64_t p, m, v;
	/* the schedule run (activation.h dc_pipeline_schedule) and what its
	 * paper says of it, for the critical rank's chunk (docs/step-model.md,
	 * section 3): F, B (the full backward), W (its weight gradients),
	 * F&B (an overlapped forward and backward pair); the bubble by the
	 * paper's formula, the parameter copies a rank holds (DualPipe: 2 x
	 * a stage) and the point-to-point sends per microbatch against 1F1B's */
	enum dc_pipe_schedule schedule;
	uint64_t chunks;     /* model chunks a rank: 1, v, or 2 (DualPipe, DualPipeV) */
	double chunk_fwd_s, chunk_bwd_s, chunk_wgrad_s, chunk_fb_s;
	double bubble_s;       /* the critical rank's idle time within the schedule's span */
	double bubble_paper_s; /* 1F1B (p-1)(F+B), ZB-H1 (p-1)(F+B-2W), DualPipe (p/2-1)(F&B+B-3W), DualPipeV (p-1)(F&B+B-3W) */
	double param_copies;   /* a rank's parameters in stages: 2 under DualPipe, else 1 */
	double p2p_per_microbatch; /* sends a microbatch makes each way: pp - 1, (pp v - 1), DualPipeV 2(pp - 1) */
	double time_s;
	double pipeline_s;   /* the schedule's span */
	double tokens_per_s, tokens_per_s_per_gpu;
	/* over step · world · the linear layers' matmul peak (compute.h
	 * peak_flops: the FP8 one under precision.compute "fp8") */
	double mfu, hfu, hfu_paper;
	double mfu_bf16_peak; /* mfu over the BF16/FP16 dense peak (cluster.peak_flops), whatever the format */
	double mfu_causal;    /* mfu with the causal attention core halved (flops.h: Megatron-LM's count) */
	double hardware_flops_paper; /* Korthikanti Eq. 8 (selective), Eq. 3 (full), Eq. 7 (none) */
	double bubble_fraction; /* idle / busy time of the critical stage during the pipeline */
	uint64_t critical_stage;
	uint64_t slowest_rank;
	double gpu_s_per_token;
	int few_microbatches; /* one schedule's microbatches < pp */
	/* parallel.pipeline_schedule_microbatches: the schedules a step runs
	 * one after another and the microbatches of each (docs/step-model.md,
	 * "Several schedules a step"); 1 and m where the step is one */
	uint64_t schedules, schedule_m;
	/* 1 when the plan runs 1F1B on stages of unequal cost
	 * (dc_step_uneven_1f1b) or ZB-H1 above DC_STEP_SIM_AGAIN x
	 * DC_STEP_SIM_MAX_CHUNKS
	 * and the max-plus extension of its steady period does not apply
	 * (its state above 257 ends: pp above 128): the step is the closed form, short of the schedule's waits
	 * (the report warns) */
	int f1b_closed_form;
	double time_to_train_s; /* training.total_tokens / tokens_per_s; 0 when not given */
	/* DeepSpeed ZeRO-3 under parallel.offload (docs/step-model.md,
	 * "ZeRO-3's copies on the host link"): a step's copies of the
	 * parameter partitions to the GPU before each gather ("optimizer+
	 * params") and of the gradient partitions out and back each micro
	 * step, at cluster.host_bandwidth; they run on the gathers' and the
	 * reduce-scatters' streams, so what shows of them is in
	 * exposed_s[DC_STRAT_FSDP]. 0 elsewhere. */
	double host_param_copies_s, host_grad_copies_s;
	uint64_t nclasses;
	struct dc_step_class classes[DC_PLAN_MAX_SEGMENTS];
	uint64_t npath;
	struct dc_step_path path[DC_STEP_MAX_PATH];
	double slowdown;     /* overlap.compute_slowdown used */
	/* the strategies comparison's variants (strategies.h) on the same
	 * work: pure DP, FSDP and the configured layout */
	struct dc_step_variant {
		int available;
		double time_s, tokens_per_s_per_gpu, gpu_s_per_token;
	} variants[DC_VARIANT_COUNT];
};

/* One transformer layer's tensor-parallel collectives for one microbatch,
 * as the step composes them: the forward's (all waited for), the
 * backward's, and of those the ones Megatron-LM runs behind a GEMM of the
 * linear that issues them (the input-gradient AllReduce or ReduceScatter
 * and the input's re-gather). So a layer as Korthikanti et al. 2022 Table
 * 4 measured it takes compute + fwd_s forward and compute + bwd_s -
 * bwd_async_s + what of each async one exceeds its GEMM backward. A dense layer's,
 * or a MoE layer's where the analysed stage holds only those (a MoE
 * layer's MLP may take no TP pair: src/axis/tp.c). All 0 without TP. */
struct dc_step_tp_layer {
	double fwd_s, bwd_s, bwd_async_s;
	/* of bwd_async_s, by the column-parallel linear that issues it ([0]
	 * the attention's, [1] the MLP's fc1): the input-gradient AllReduce
	 * or ReduceScatter, which hides only behind that linear's
	 * weight-gradient GEMM (compute.h tp_col_wgrad_s), and the input's
	 * re-gather, only behind its input-gradient GEMM (tp_col_dgrad_s) */
	double bwd_async_grad_s[2], bwd_async_regather_s[2];
};
void dc_step_tp_layer(const struct dc_plan *p, const struct dc_comm *comm, struct dc_step_tp_layer *t);
/* The same for a layer of one kind, `moe` 0 (dense) or not (MoE), as the
 * step prices it on every stage that holds one (docs/step-model.md, "TP
 * per layer kind"): its share of the TP rows where the analysed stage
 * holds that kind, else one such layer's own calls (comm.h tp_kind). A model
 * without experts has no MoE layer: all 0 for one. */
void dc_step_tp_layer_of(const struct dc_plan *p, const struct dc_comm *comm, int moe, struct dc_step_tp_layer *t);

/* A search's memo of the step (one per thread, lent to its plans as
 * plan.h step_memo): the stages' ops and the schedule's span of the last
 * closed-form step, with every input they read. A layout whose step reads
 * the same of them (one that differs in its sharding alone, but FSDP's,
 * whose gathers sit in the layers) takes them from it: the same values,
 * so the same step. dc_step_memo_new returns NULL when out of memory;
 * dc_step_memo_free(NULL) does nothing. */
struct dc_step_memo;
struct dc_step_memo *dc_step_memo_new(void);
void dc_step_memo_free(struct dc_step_memo *m);
#ifdef DISTCALC_VERIFY_MEMOS
/* Tests of the switch only (memo_verify.h): moves one value the memo
 * holds (stage 0's first backward) by one ulp, so its next hit differs
 * from a fresh computation. */
void dc_step_memo_corrupt(struct dc_step_memo *m);
/* The same for the simulated schedules (uneven chunks, DualPipe): order
 * 1 moves the last kept op order's first op one microbatch on, 0 the
 * last simulation's span by one ulp. */
void dc_step_memo_corrupt_sim(struct dc_step_memo *m, int order);
/* The same for the DP calls kept across layouts (each rank's own
 * gradient sync): every kept slot's gradient calls by one ulp. Returns
 * the slots moved. */
int dc_step_memo_corrupt_dp(struct dc_step_memo *m);
#endif

/* Fills *s in closed form for the plan from the compute, comm, flops and
 * batch results; f NULL: the step time, the pipeline's span and the token
 * rates alone, no classes, path, MFU or schedule figures (the strategies
 * comparison's variants: dc_step_variants; nclasses and npath 0, the
 * classes and path arrays left as they were); p->step_rank_only (a
 * search's plans): the same and the MFU, the figures a search reads,
 * no HFU, bubble or paper figures. Returns 0 (also when
 * c->available is 0: then
 * s->available is 0 and s->missing says why), or -1 with *error set to
 * static text. No I/O; no allocation under 1F1B and interleaved (even
 * chunks). DualPipe, DualPipeV, uneven interleaved chunks, 1F1B on
 * uneven stages and ZB-H1 have no (exact) closed form: it runs
 * dc_step_timeline without events, O(pp m v)
 * with its allocation (-1 with "out of memory" when that fails), at most
 * DC_STEP_SIM_MAX_CHUNKS chunks (dc_step_bound). */
int dc_step_compute(const struct dc_plan *p, const struct dc_compute *c, const struct dc_comm *comm,
		    const struct dc_flops *f, const struct dc_batch *b, struct dc_step *s, const char **error);

/* The step's bound on DualPipe and DualPipeV (docs/step-model.md,
 * "DualPipe past the bound"; docs/reliability.md, "Bounded work"): when
 * pp x 2 x m is above max_chunks, a prefix of m_simulated microbatches
 * (at least max_chunks / 2pp and enough for a steady phase of 4pp + 8
 * pairs on every rank, less than 840 pairs over that) is simulated, its
 * steady phase checked periodic (every rank's pairs end period_s apart
 * every `cycle` pairs, cycle dividing 840, over the phase's second half)
 * and every rank's end moved on by period_s for each cycle of the
 * periods = (m - m_simulated) / (DualPipe 2, DualPipeV 1) pairs left
 * out, a multiple of 840. A steady phase that has not settled within
 * the prefix (a long transient: a rank whose slack drains slowly) takes
 * the ends from the max-plus power of its steady pair (by_maxplus, up to
 * pp 128), else is simulated again within DC_STEP_SIM_AGAIN x max_chunks
 * (`again`).
 * Interleaved chunks of unequal cost likewise above pp x v x m chunks
 * (docs/step-model.md, "Uneven interleaved chunks past the bound"): a
 * prefix of about 6 pp microbatches, and every stage's end from the
 * max-plus power of its steady period (by_maxplus), periods counting the
 * pp-microbatch periods left out; past pp 86 simulated again (`again`).
 * 1F1B on stages of unequal cost (dc_step_uneven_1f1b) and ZB-H1 the
 * same way, the prefix about 6 pp microbatches congruent to m modulo pp;
 * where that does not apply (pp above 128) the whole
 * schedule within DC_STEP_SIM_AGAIN x max_chunks (`again`), and past that their closed
 * form, f1b_closed_form set.
 * The step's default bound is DC_STEP_SIM_MAX_CHUNKS; tests lower it. */
#define DC_STEP_SIM_MAX_CHUNKS (UINT64_C(1) << 18)
/* Where a schedule past the bound has no extension, the chunks it is
 * simulated again within, as a multiple of the bound: 2 x 2^18. A deep
 * pipeline's simulation is bound by its memory misses (each of pp ranks'
 * rows a sweep, m / 2 sweeps): ZB-H1 on pp 120 takes 0.23 s released and
 * 4.2 s under ASan, UBSan and coverage at 2^19 chunks, 0.57 s and 9.5 s
 * at 2^20; it was 16 until stop 66, 0.95 s released at 2.4 M chunks and
 * past the fuzzers' 15 s limit (docs/reliability.md, "Bounded work"). */
#define DC_STEP_SIM_AGAIN 2
struct dc_step_bound {
	uint64_t max_chunks;
	/* filled: the microbatches simulated, whether the ends were extended
	 * and by how many steady pairs (periods), the cycle of pairs the
	 * steady state repeats in and its time */
	uint64_t m_simulated;
	int extended;
	uint64_t periods, cycle;
	double period_s;
	/* 1 when the first prefix's steady phase had not settled and the
	 * step was simulated again within DC_STEP_SIM_AGAIN x max_chunks: the whole
	 * schedule when it fits, else a prefix of that size, settled or
	 * refused (-1: lower training.grad_accum_steps) */
	int again;
	/* the ends from the max-plus power of the steady pair (exact
	 * whatever the transient), tried when the steady phase has not
	 * settled, or first when maxplus_first (tests) */
	int by_maxplus, maxplus_first;
	/* 1 when uneven 1F1B or ZB-H1 past the bound took its closed form
	 * because its extension did not apply (step.h dc_step
	 * f1b_closed_form) */
	int f1b_closed_form;
};

/* dc_step_compute with the bound *bound (dc_step_compute: the default). */
int dc_step_compute_bounded(const struct dc_plan *p, const struct dc_compute *c, const struct dc_comm *comm,
			    const struct dc_flops *f, const struct dc_batch *b, struct dc_step *s,
			    struct dc_step_bound *bound, const char **error);

/* The step time of every variant of the strategies comparison: the
 * configured one is `own` (dc_step_compute's result for p), the others
 * derive their plan (dc_variant_layout, dc_plan_derive_from) and run the
 * batch, comm, compute and step estimators on it (a variant shows no MFU:
 * its FLOPs are not counted); a variant that is p itself
 * (dc_variant_is_configured) takes own's. Returns 0, or -1 with *error
 * set. No allocation. */
int dc_step_variants(const struct dc_plan *p, struct dc_step *own, const char **error);

/* dc_step_variants reading the variants' plan, batch and collectives from
 * `parts` (results.h) when they are p's (parts->of == p), as
 * dc_strategies_compute_parts kept them: the same plans and results, so
 * the same step times bit for bit, derived and priced once (parts->plan
 * is resharded in place from one variant to the other). parts may be
 * NULL. own_c (or NULL): p's kernels, which variants whose layout is p's
 * but for the sharding keep, resharded (parts->copies_of). */
struct dc_variant_parts;
int dc_step_variants_from(const struct dc_plan *p, struct dc_step *own, const struct dc_compute *own_c,
			  struct dc_variant_parts *parts, const char **error);

/* ---- the event timeline ---- */

enum dc_step_track {
	DC_TRACK_COMPUTE, /* kernels, waits and idle: tiles [0, step] */
	DC_TRACK_TP,
	DC_TRACK_EP,
	DC_TRACK_FSDP_GATHER,
	DC_TRACK_FSDP_REDUCE,
	DC_TRACK_PP,
	DC_TRACK_DP,
	DC_TRACK_CP, /* context parallelism's K/V exchange, inside each layer's span */
	DC_TRACK_COUNT,
};

/* What an event is: a span of work on its track (every event of
 * dc_step_timeline), or, from dc_step_trace only, a point of the stage's
 * memory counter or a span standing for the ops the trace summarises. */
enum dc_step_ev_kind {
	DC_EV_SPAN,
	DC_EV_MEMORY,  /* at start_s (duration 0): `held` of `held_max`, phase `mem` */
	DC_EV_SUMMARY, /* on the compute track: `ops` ops of which busy_s ran kernels */
};

/* The memory ledger's phase a counter point is in (memory.h): a forward
 * or idle (the forward subtotal's extras), a backward (the backward
 * subtotal's), after the stage's last op (the model states alone, the
 * optimizer step's subtotal). */
enum dc_step_mem { DC_STEP_MEM_FORWARD, DC_STEP_MEM_BACKWARD, DC_STEP_MEM_AFTER };

struct dc_step_event {
	uint64_t stage;
	enum dc_step_track track;
	char name[96];
	double start_s, duration_s;
	enum dc_step_ev_kind kind;
	/* DC_EV_MEMORY: chunk-microbatches whose activations the stage holds
	 * (a forward's from its start to the end of its backward, or of its
	 * weight gradients when they run apart), and the most it holds in
	 * the step (the ledger's in-flight count under 1F1B) */
	uint64_t held, held_max;
	enum dc_step_mem mem;
	/* DC_EV_SUMMARY: the ops the span stands for, their kernel time */
	uint64_t ops;
	double busy_s;
};

/* Called for every event in time order per stage and track; returns 0 to
 * go on, non-zero to stop (dc_step_timeline then returns that value). */
typedef int (*dc_step_event_fn)(void *ctx, const struct dc_step_event *e);

/* 1 when the plan runs 1F1B on stages of unequal layers
 * (parallel.pipeline_layers, first/last-stage forms) or of unequal kinds
 * (dense and MoE): the schedule the step simulates, whole up to
 * DC_STEP_SIM_MAX_CHUNKS (pp m) and past it a prefix and the max-plus
 * power of its steady period (dc_step_bound), its closed form missing
 * waits (docs/step-model.md, "Uneven 1F1B stages", "Uneven 1F1B past the
 * bound"). O(segments). */
int dc_step_uneven_1f1b(const struct dc_plan *p);

/* The pipeline schedule op by op (Megatron's op order, ZB-H1's and
 * deepseek-ai/DualPipe's; every dependency and send): returns 0 with the
 * end of every stage's last op in end_s[p] and their maximum in *span_s,
 * or -1 when out of memory. Allocates O(p m v). */
int dc_step_pipeline_simulate(const struct dc_step_pipe *pp, double *end_s, double *span_s);

/* The whole step as a timeline, composed exactly as dc_step_compute but
 * with the schedule simulated op by op. Fills *s like dc_step_compute
 * (critical path and classes from the simulation) and, when `emit` is not
 * NULL, calls it for every event of the stages `want(stage)` accepts
 * (NULL: every stage). Returns 0, -1 with *error set (allocation failure
 * or an estimator error), or what `emit` returned. Allocates O(p m v). */
int dc_step_timeline(const struct dc_plan *p, const struct dc_compute *c, const struct dc_comm *comm,
		     const struct dc_flops *f, const struct dc_batch *b, struct dc_step *s,
		     int (*want)(void *ctx, uint64_t stage), dc_step_event_fn emit, void *ctx,
		     const char **error);

/* The trace's bounded view (sink_trace.c, docs/reliability.md "Bounded
 * work"): each stage's ops up to its first backward of microbatch
 * `microbatches` (0: all) as events, the rest of its schedule one
 * DC_EV_SUMMARY span, and its memory counter (DC_EV_MEMORY points at each
 * shown op's start and end, one at the summary's start with the highest
 * the summarised ops reach, one at the stage's end).
 *
 * The schedule is simulated for m microbatches when p x chunks x m is at
 * most `max_chunks`. Above it, for the schedules with a closed form
 * (1F1B on equal stages, interleaved with even chunks) the simulation
 * runs a prefix of m_simulated microbatches, enough that every shown
 * op's order and time are the full schedule's (1F1B: shown + p;
 * interleaved: shown rounded up to a multiple of p, + 3p), and the step,
 * each stage's end and the summaries come from the closed form (so do
 * uneven 1F1B's and ZB-H1's where their extension does not apply: shown
 * + p). The others take the step's bound (dc_step_bound). */
struct dc_step_show {
	uint64_t microbatches;
	uint64_t max_chunks;
	/* filled by dc_step_trace */
	uint64_t m_simulated;   /* microbatches simulated: m, or the prefix's */
	int from_closed_form;   /* the step and the stages' ends are the closed form's */
	int no_closed_form;     /* on -2: the schedule has none (else even the prefix is too long) */
	/* DualPipe, DualPipeV, uneven interleaved chunks and uneven 1F1B
	 * above max_chunks: a
	 * prefix, every stage's end moved on by `periods` steady periods
	 * (dc_step_bound) */
	int extended;
	uint64_t periods;
};

/* dc_step_timeline's events in the bounded view `show`. Fills *s (the
 * simulation's, or the closed form's when a prefix is simulated).
 * DualPipe, DualPipeV, uneven interleaved chunks and uneven 1F1B (where
 * its extension applies) above max_chunks take the step's bound (dc_step_bound: a prefix, the ends moved on by
 * the steady state; `extended`), a prefix long enough for the shown ops.
 * Returns 0; -1 with *error set (out of memory, an estimator error);
 * -2 with *error set when even the prefix is above show->max_chunks;
 * or what `emit` returned. Allocates O(p x chunks x m_simulated). */
int dc_step_trace(const struct dc_plan *p, const struct dc_compute *c, const struct dc_comm *comm,
		  const struct dc_flops *f, const struct dc_batch *b, struct dc_step *s, struct dc_step_show *show,
		  int (*want)(void *ctx, uint64_t stage), dc_step_event_fn emit, void *ctx, const char **error);

const char *dc_step_track_name(enum dc_step_track t);

#endif
