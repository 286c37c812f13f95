/* comm.h - communication per training step, per rank, for every strategy in
 * play: DP (DDP, ZeRO-1/2), FSDP, TP (Megatron, with or without sequence
 * parallelism), PP, EP (MoE token AlltoAll) and CP (context parallelism's
 * K/V exchange, per parallel.cp_comm_type). DP and FSDP span dp x cp.
 *
 * Each strategy lists its collectives (kind, calls per step, message bytes,
 * group size, link); bytes are what one rank sends (the ring's count),
 * time is the network model's (net.h: the algorithm and protocol NCCL's
 * tuner would pick, with every group of the strategy on the wire at once)
 * with nothing overlapped (an upper bound on the exposed time). Groups, their links and the stage analysed (the one
 * holding the most parameters) come from the plan (plan.h), in O(1).
 * Derivations and worked examples: docs/formulas-systems.md,
 * "Communication per step".
 */
#ifndef DISTCALC_COMM_H
#define DISTCALC_COMM_H

#include <stdint.h>

#include "distcalc/config.h"
#include "distcalc/memory.h"

struct dc_plan;
struct dc_net;
struct dc_net_group;
struct dc_comm_memo;

enum dc_coll_kind {
	DC_COLL_ALL_REDUCE,
	DC_COLL_REDUCE_SCATTER,
	DC_COLL_ALL_GATHER,
	DC_COLL_SEND, /* point-to-point, one message to one peer */
	DC_COLL_ALL_TO_ALL, /* every rank sends M/p to every other (MoE token dispatch) */
	DC_COLL_BROADCAST,  /* one root's M to every other rank */
};

enum dc_strategy {
	DC_STRAT_DP,   /* DDP AllReduce, or ZeRO-1/2 ReduceScatter (DeepSpeed: AllReduce) + AllGather */
	DC_STRAT_FSDP, /* ZeRO-3 / FSDP */
	DC_STRAT_TP,
	DC_STRAT_PP,
	DC_STRAT_EP,   /* MoE token dispatch and combine (AlltoAll) */
	DC_STRAT_CP,   /* context parallelism's K/V exchange (ring sends, AllGather or AlltoAll) */
	DC_STRAT_COUNT,
};

/* When a call runs in the step (its section prints the name). */
enum dc_coll_phase {
	DC_CPHASE_FORWARD,
	DC_CPHASE_BACKWARD,
	DC_CPHASE_AFTER_OPTIMIZER, /* after the optimizer step (ZeRO's AllGather of the updated params) */
	DC_CPHASE_COUNT,
};

/* What a call can hide behind: the step model (step.h) schedules a call by
 * this class and the overlap.* switches, never by its label. */
enum dc_overlap_class {
	DC_OVL_EXPOSED,     /* waited for where it is issued */
	DC_OVL_GRAD_SYNC,   /* a gradient bucket: behind the rest of the backward (overlap.dp) */
	DC_OVL_PREFETCH,    /* an FSDP unit's gather: behind the previous unit's compute (overlap.fsdp_prefetch) */
	DC_OVL_BEHIND_GEMM, /* Megatron's async TP collective behind a GEMM of the same backward (overlap.tp) */
	DC_OVL_RING,        /* ring attention's send behind the current block's attention (cp p2p) */
	DC_OVL_EXPERT_A2A,  /* an expert dispatch or combine: behind another microbatch's compute (overlap.ep) */
	DC_OVL_PIPELINE,    /* a stage boundary's send: the schedule's own critical path */
	DC_OVL_INLINE,      /* blocking between two kernels of the compute stream (an FP8 amax reduction): never hidden */
	DC_OVL_COUNT,
};

/* What a call moves: one value a row, its display label derived here
 * (dc_coll_what_label), so renaming a label changes text and nothing else. */
enum dc_coll_what {
	/* dp */
	DC_CW_GRAD_BUCKET,
	DC_CW_EXPERT_GRAD_BUCKET,
	DC_CW_UPDATED_PARAMS,
	DC_CW_UPDATED_EXPERT_PARAMS,
	DC_CW_REPLICA_GRAD_BUCKET,        /* HSDP: a gradient shard across replicas */
	DC_CW_REPLICA_EXPERT_GRAD_BUCKET, /* HSDP: an expert gradient shard across replicas */
	DC_CW_MIRROR_GRAD_BUCKET,         /* DualPipe: what a rank holds reduced, summed with its mirror rank's copy */
	DC_CW_MIRROR_EXPERT_GRAD_BUCKET,  /* DualPipe: the same of the routed experts' gradients */
	/* fsdp */
	DC_CW_UNIT_PARAMS,
	DC_CW_EXPERT_UNIT_PARAMS,
	DC_CW_UNIT_GRADS,
	DC_CW_EXPERT_UNIT_GRADS,
	DC_CW_ROOT_PARAMS,
	DC_CW_ROOT_GRADS,
	DC_CW_EMBED_PARAMS, /* torchtitan: tok_embeddings' own unit */
	DC_CW_EMBED_GRADS,
	DC_CW_HEAD_PARAMS,  /* torchtitan: [norm, lm_head]'s unit (tied: with tok_embeddings) */
	DC_CW_HEAD_GRADS,
	/* tp */
	DC_CW_TP_OUTPUT_FG,
	DC_CW_TP_INPUT_GRAD_FG,
	DC_CW_TP_OUTPUT_RECOMPUTED,
	DC_CW_TP_SEQ_IN_G,
	DC_CW_TP_OUTPUT_GBAR,
	DC_CW_TP_OUTPUT_GRAD_GBAR,
	DC_CW_TP_INPUT_GRAD_G,
	DC_CW_TP_INPUT_REGATHER,
	DC_CW_TP_SEQ_RECOMPUTED,
	DC_CW_TP_AMAX,            /* an FP8 shard's amax, reduced (max) before its cast (current scaling) */
	DC_CW_TP_AMAX_RECOMPUTED, /* full recompute: the forward's, again in backward */
	/* the model's ends, not a layer's (tp.c ends_calls): a microbatch's on
	 * the rank whose chunk holds them; DC_CW_TP_LOSS_CHUNK through
	 * DC_CW_TP_MTP_AMAX are the head's and the embedding's rows
	 * (tp_head below) */
	DC_CW_TP_LOSS_CHUNK,      /* the vocabulary-parallel loss's reductions, each chunk's (training.loss_chunks) */
	DC_CW_TP_HEAD_IN,         /* the output layer's input gathered over the sequence (sequence parallel) */
	DC_CW_TP_HEAD_IN_GRAD,    /* its input gradient: all-reduced, or reduce-scattered under sequence parallelism */
	DC_CW_TP_HEAD_REGATHER,   /* its input gathered again for its weight gradient */
	DC_CW_TP_EMBED_OUT,       /* the vocabulary-parallel embedding's output: all-reduced, or reduce-scattered */
	DC_CW_TP_EMBED_GRAD,      /* its output gradient gathered over the sequence (sequence parallel) */
	/* a multi-token-prediction module's eh_proj (the head's, not a layer's) */
	DC_CW_TP_MTP_IN,          /* its [enorm(e), hnorm(h)] input, 2h wide, gathered over the sequence */
	DC_CW_TP_MTP_OUT,         /* its h / t output columns gathered to h */
	DC_CW_TP_MTP_OUT_GRAD,    /* backward: the scatter's gradient gathered over the sequence */
	DC_CW_TP_MTP_IN_GRAD,     /* backward: its input gradient, 2h wide (reduce-scattered, or all-reduced without SP) */
	DC_CW_TP_MTP_REGATHER,    /* backward: its input gathered again for its weight gradient */
	DC_CW_TP_MTP_RECOMPUTED,  /* full recompute: its forward gathers, again in backward */
	DC_CW_TP_MTP_EMBED,       /* its lookup in the shared embedding: the embedding's output call (DC_CW_TP_EMBED_OUT) */
	DC_CW_TP_MTP_EMBED_GRAD,  /* and that lookup's output gradient gathered (DC_CW_TP_EMBED_GRAD) */
	DC_CW_TP_MTP_AMAX,        /* current scaling: its input shard's amax before the FP8 gather (and recomputed) */
	/* pp */
	DC_CW_PP_ACTIVATIONS,
	DC_CW_PP_GRADIENTS,
	/* cp */
	DC_CW_CP_KV_NEXT,
	DC_CW_CP_KV_NEXT_AGAIN,
	DC_CW_CP_KV_AND_DKV,
	DC_CW_CP_DKV_HOME,
	DC_CW_CP_KV_NEXT_RECOMPUTED,
	DC_CW_CP_KV_WHOLE,
	DC_CW_CP_KV_WHOLE_AGAIN,
	DC_CW_CP_DKV_SCATTER,
	DC_CW_CP_DKV_RING, /* PyTorch's ring attention: the FP32 dK/dV accumulators passed on, one send a block */
	DC_CW_CP_DKV_RING_LAST, /* and the last of them, which the backward waits for after its last block */
	DC_CW_CP_KV_RECOMPUTED,
	DC_CW_CP_QKV_TO_HEADS,
	DC_CW_CP_OUT_TO_SEQ,
	DC_CW_CP_DOUT_TO_HEADS,
	DC_CW_CP_DQKV_TO_SEQ,
	DC_CW_CP_QKV_RECOMPUTED,
	DC_CW_CP_OUT_RECOMPUTED,
	/* ep */
	DC_CW_EP_DISPATCH_COMBINE,
	DC_CW_EP_GRADIENTS,
	DC_CW_EP_DISPATCH_COMBINE_RECOMPUTED, /* full recompute: the forward's, again in backward */
	DC_CW_ETP_TOKENS,        /* the routed tokens gathered over the expert tp group */
	DC_CW_ETP_OUTPUTS,       /* the experts' outputs reduce-scattered over it */
	DC_CW_ETP_TOKEN_GRADS,   /* backward: the outputs' gradients gathered */
	DC_CW_ETP_INPUT_GRADS,   /* backward: the tokens' gradients reduce-scattered */
	DC_CW_ETP_TOKENS_RECOMPUTED,  /* full recompute: the forward's gather, again in backward */
	DC_CW_ETP_OUTPUTS_RECOMPUTED, /* and its reduce-scatter */
	DC_CW_COUNT,
};

/* One kind of call, made `count` times per step: data, every field an enum
 * or a number. */
struct dc_coll {
	enum dc_strategy axis;         /* the parallel axis that issues it */
	enum dc_coll_kind kind;        /* the collective */
	enum dc_coll_what what;        /* what it moves (its label) */
	enum dc_coll_phase phase;
	enum dc_overlap_class overlap; /* what it can hide behind */
	uint64_t count;
	/* M: the AllReduce buffer; the full (unsharded) buffer of a
	 * ReduceScatter or AllGather (nccl-tests' S); the message of a send */
	uint64_t msg_bytes;
	uint64_t group_size;
	enum dc_link_choice link;
	uint64_t bytes_per_rank; /* count x bytes one rank sends per call */
	double time_s;           /* count x time of one call */
	const char *algorithm;   /* static: the network model's choice (net.h), "ring", ... */
	const char *protocol;    /* static: "LL", "LL128", "Simple" */
	/* a layer's call (tp.c): how many of it one dense layer [0] and one
	 * MoE layer [1] issue a microbatch (a recomputed forward's: times
	 * the share of the analysed rank's layers of that kind it reruns),
	 * by which the step model splits its time between the two kinds;
	 * 0 and 0 for every other call */
	double per_layer[2];
};

/* Rows a strategy holds. The most an axis issues is TP's on a rank that
 * holds both ends: a layer's 14 (under sequence parallelism, FP8 current
 * scaling and full recompute: each gather in two formats where MLA keeps
 * one BF16, the reduce-scatters, the amax reductions), the MTP eh_proj's
 * 8, the loss's 1 and the ends' 7 (tp.c ends_calls): 30; room above it */
#define DC_COMM_MAX_COLL 40

struct dc_comm_strategy {
	int in_play;
	uint64_t group_size;
	enum dc_link_choice link;
	struct dc_link link_params;
	/* the network model and the group it prices this strategy's calls on,
	 * borrowed from the plan (valid while the plan is) */
	const struct dc_net *net;
	const struct dc_net_group *net_group;
	uint64_t ncoll;
	/* a call past DC_COMM_MAX_COLL rows: the run fails (comm.c), never
	 * drops it */
	int full;
	struct dc_coll coll[DC_COMM_MAX_COLL];
	uint64_t bytes_per_rank; /* per step, the busiest rank */
	double time_s;           /* per step, nothing overlapped */
};

struct dc_comm {
	uint64_t stage; /* the pipeline stage analysed: the one with the most parameters */
	/* the parameters s[DC_STRAT_DP]'s rows sync: stage's rank's, all of
	 * them and the routed experts' among them (what dp.c reads; a rank
	 * holding other counts has rows of its own: dc_comm_sync_rows) */
	uint64_t dp_params, dp_expert_params;
	/* the search's memo (plan.h comm_memo) this result was emitted
	 * against, and its context's count then (NULL, 0: none) */
	const struct dc_comm_memo *memo;
	uint64_t memo_epoch;
	/* the stage whose MoE layers the EP calls count: `stage`, or when
	 * that holds none the one with the most MoE layers (the first on a
	 * tie; `stage` when no stage holds any) */
	uint64_t ep_stage;
	/* the transformer layers of stage's rank and the MoE layers of
	 * ep_stage's, every stage it holds (two under DualPipe and
	 * DualPipeV): what the per-layer calls count, each layer for the
	 * microbatches its chunk runs (activation.h
	 * dc_pipeline_chunk_microbatches: m / 2 under DualPipe) */
	uint64_t layers, moe_layers;
	/* of `layers`, the MoE layers of stage's rank (what the TP calls
	 * count; moe_layers may be another stage's) */
	uint64_t stage_moe_layers;
	/* the multi-token-prediction modules stage's rank runs (model.mtp_layers
	 * where its chunk holds the head, else 0): the TP calls count each
	 * module's layer beside `layers` (a MoE layer when the model has
	 * experts, a dense one else) and its eh_proj's calls in rows of their
	 * own; moe_layers counts ep_stage's modules' layers when they are MoE.
	 * The step prices the modules on the head's stage whichever stage is
	 * analysed (tp_head below) */
	uint64_t mtp_layers;
	struct dc_comm_strategy s[DC_STRAT_COUNT];
	/* Not displayed: what the step model prices the content of a stage
	 * other than `stage` from (docs/step-model.md, "TP per layer kind"),
	 * TP calls whose time does not depend on the stage that issues them.
	 * tp_kind[c], for a layer kind c (0 dense, 1 MoE, a model with
	 * experts) that stage's rank holds none of (MTP modules' layers
	 * included): one layer's TP calls a microbatch, a row each call
	 * format, with count 1 (time_s: one call's) and per_layer[c] the
	 * calls (a recomputed forward's at the rank's share over all its
	 * layers, as s[DC_STRAT_TP]'s); ncoll 0 for a kind the rank holds.
	 * tp_head: the model's ends' TP calls as the rank whose chunk holds
	 * each issues them, whichever rank was analysed (tp.c ends_calls,
	 * loss_reduces, mtp_eh_proj): the head's (its input's gather, its
	 * input gradient, its re-gather, the loss's reductions, the
	 * model.mtp_layers modules' eh_proj and embedding lookups) and the
	 * embedding's (its output call and its gradient's gather), a step's
	 * on the rank that holds them (rows of s[DC_STRAT_TP] too where
	 * `stage` holds that end). Both in play with s[DC_STRAT_TP], on its
	 * group. */
	struct dc_comm_strategy tp_kind[2];
	struct dc_comm_strategy tp_head;
	uint64_t bytes_per_rank; /* sum over strategies */
	double time_s;
};

/* Whether the plan's MTP modules' layers are MoE layers (comm.h
 * mtp_layers: the model has experts and a shape), else dense ones. */
int dc_comm_mtp_moe(const struct dc_plan *p);

/* Named formulas (teaching ring, docs/formulas-systems.md; the ring lab's
 * alpha-beta model, not what dc_comm_compute prices with). */

/* Bytes the busiest rank sends in one call on p ranks: AllReduce
 * 2(M - floor(M/p)), one less when M mod p = p - 1 (it skips a small and a
 * large chunk; the ring lab's bytes_sent_max), ReduceScatter and AllGather
 * M - floor(M/p), AlltoAll M - floor(M/p) (uniform: M/p to each peer),
 * send and Broadcast M; 0 when p = 1. Exact (2(p-1)M/p, (p-1)M/p) when p divides M. */
uint64_t dc_coll_bytes_sent(enum dc_coll_kind k, uint64_t p, uint64_t msg_bytes);

/* Time of one call: AllReduce 2(p-1)(alpha + ceil(M/p)/B), ReduceScatter,
 * AllGather and AlltoAll (pairwise exchange) (p-1)(alpha + ceil(M/p)/B),
 * send and Broadcast (pipelined) alpha + M/B; 0 when p = 1. */
double dc_coll_time_s(enum dc_coll_kind k, uint64_t p, uint64_t msg_bytes, const struct dc_link *l);


/* Fills *c for the plan's layout: each strategy's header and its first
 * ncoll calls (calls past ncoll are left as they were). Returns 0, or -1
 * with *error set to static text naming the keys on overflow. */
int dc_comm_compute(const struct dc_plan *p, struct dc_comm *c, const char **error);

/* As dc_comm_compute(p, c, error), where *c is dc_comm_compute's result
 * (returned 0) for a plan that differs from p in layout.sharding alone:
 * only the data-parallel axes (dp, fsdp), whose calls read the sharding,
 * are emitted again; tp, pp, ep and cp keep their calls (they read nothing
 * the sharding changes: plan.h). The same numbers bit for bit: what a
 * layout search reuses across its shardings. */
int dc_comm_reshard(const struct dc_plan *p, struct dc_comm *c, const char **error);

/* As dc_comm_compute(p, c, error), where *c is dc_comm_compute's result
 * (returned 0) for a plan that differs from p in its virtual pipeline
 * (and sharding) alone: the pipeline's calls, which cross every chunk's
 * boundary, and the data-parallel axes' are emitted again; tp's, cp's and
 * ep's are kept where they read nothing the chunks change (a model
 * without experts, no full recompute of training.recompute_layers, no
 * DualPipe named, the same analysed stage and layers), else emitted again
 * too. The same numbers bit for bit: what a layout search reuses across
 * the virtual pipelines of a micro batch. */
int dc_comm_rechunk(const struct dc_plan *p, struct dc_comm *c, const char **error);

/* The rows of `axis`, DC_STRAT_DP or DC_STRAT_FSDP (what dc_comm_compute
 * puts in s[axis] for the analysed stage), for pipeline rank `stage`,
 * holding `params` (memory.h dc_memory_rank_params): its own gradient
 * buckets or units, their shards' re-sums, its parameters' gathers, on
 * the same groups and links. What the step prices each rank's gradient
 * sync from (docs/step-model.md, "Each rank's own gradients"). Fills
 * *out, cleared first. `c`: p's comm result (NULL: none), whose search
 * memo context it may reuse. Returns 0, or -1 with *error set to static
 * text on overflow or past DC_COMM_MAX_COLL rows. */
int dc_comm_sync_rows(const struct dc_plan *p, const struct dc_comm *c, enum dc_strategy axis, uint64_t stage,
		      const struct dc_stage_params *params, struct dc_comm_strategy *out, const char **error);

/* What dp.c and fsdp.c read, as values, but the groups and the network
 * (a search memo's context, dc_comm_memo): the sharding; the chunk's
 * microbatches where they are read (ZeRO-2 reduces every microbatch,
 * FSDP gathers every microbatch), and for an FSDP unit under a pipeline
 * the stage's forwards in flight (fsdp.c unit_calls), 0 elsewhere;
 * whether units reshard after forward; the degrees; the buckets and
 * whether ZeRO all-reduces them (framework.h); the precision's bytes and
 * the FSDP unit; the framework and a tied head (fsdp.c's root units); the
 * stage and its parameters. Every member a uint64_t: no padding, compared
 * as bytes. Two plans whose groups and network are alike emit the same
 * dp and fsdp rows for equal keys (what the memos below rest on). */
struct dc_comm_sync_key {
	uint64_t sharding, chunk_mbs, in_flight, stage, pp, reshard_fwd, zero_allreduce;
	uint64_t schedules; /* the pipeline schedules a step (plan.h dc_layout_schedules): each syncs */
	uint64_t dp_cp, shard_dp_cp, expert_dp_cp, expert_shard_dp_cp, dp_replicate;
	uint64_t grad_bucket, param_bucket, grad_bytes, param_bytes, working_bytes, fsdp_unit;
	/* the framework and whether the head is tied to the embedding: how
	 * fsdp.c root_units splits the root (torchtitan's embedding unit) */
	uint64_t framework, tied;
	/* DualPipe's mirror sum (dp.c mirror_sum): its link and its pair's
	 * shape, outside the context's groups; all 0 without it */
	uint64_t mirror[9];
	/* 1: a rank's dp rows alone (dc_comm_sync_rows: fsdp's kept empty),
	 * keyed on what dp.c reads, stage and in_flight 0 and of best its
	 * counts of all and of the experts' parameters alone */
	uint64_t dp_only;
	struct dc_stage_params best;
};

/* The key of dc_comm_sync_rows's rows for those arguments: the rows of
 * two plans whose groups and network are alike are equal where their
 * keys are. O(1). */
void dc_comm_sync_key(const struct dc_plan *p, enum dc_strategy axis, uint64_t stage,
		      const struct dc_stage_params *params, struct dc_comm_sync_key *key);

/* dc_comm_sync_rows with its key (dc_comm_sync_key of the same
 * arguments) already made, or NULL: made when p has a search memo */
int dc_comm_sync_rows_keyed(const struct dc_plan *p, const struct dc_comm *c, enum dc_strategy axis, uint64_t stage,
			    const struct dc_stage_params *params, const struct dc_comm_sync_key *key,
			    struct dc_comm_strategy *out, const char **error);

/* A search's memo of the data-parallel axes' calls (one per thread, lent
 * to its plans as plan.h comm_memo): for up to DC_COMM_MEMO_SLOTS sets
 * of inputs dp.c and fsdp.c read (the sharding, the chunk's microbatches
 * and the stage's in flight, the analysed stage's parameters, the
 * degrees, the buckets and their collective, the precision's bytes,
 * compared as values, on the groups and network of the last plan, whose
 * change empties them), the dp and fsdp strategies they emitted.
 * dc_comm_compute and dc_comm_reshard on a plan
 * whose dp and fsdp axes read the same take those strategies whole: the
 * same calls and sums bit for bit (a sharding's calls repeat over a
 * (tp, cp, pp)'s virtual pipelines, micro batches and sequence
 * parallelism). dc_comm_memo_new returns NULL when out of memory;
 * dc_comm_memo_free(NULL) does nothing. */
#define DC_COMM_MEMO_SLOTS 64
struct dc_comm_memo;
struct dc_comm_memo *dc_comm_memo_new(void);
void dc_comm_memo_free(struct dc_comm_memo *m);
#ifdef DISTCALC_VERIFY_MEMOS
/* Tests of the switch only (memo_verify.h): moves the time of every
 * kept call by one ulp, so the next hit differs from a fresh emission. */
void dc_comm_memo_corrupt(struct dc_comm_memo *m);
#endif

/* DeepEP's pricing (training.moe_dispatcher "deepep", src/axis/ep.c):
 * the chance that a token's k experts, under uniform routing over G equal
 * groups of E / G consecutive experts of which it draws T (each giving
 * k / T of the k where T divides k), include one of experts [a, b)
 * (a < b <= E, G dividing E, T <= G, k <= T E / G). */
double dc_ep_hit_chance(uint64_t E, uint64_t G, uint64_t T, uint64_t k, uint64_t a, uint64_t b);

const char *dc_coll_kind_name(enum dc_coll_kind k);
const char *dc_strategy_name(enum dc_strategy s);
/* Display text of the enums above (static strings). */
const char *dc_coll_what_label(enum dc_coll_what w);
const char *dc_coll_phase_name(enum dc_coll_phase ph);
const char *dc_overlap_class_name(enum dc_overlap_class o);

#endif
