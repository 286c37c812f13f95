/* plan.h - everything derived from the input, derived once.
 *
 * The loader (config.h) keeps what the file and --set said. dc_plan_derive
 * turns that input and its parallel layout into every derived quantity, each
 * with one home: the degree of every axis and the world size (their
 * product), ranks' strides and nodes (struct dc_topology), the expert
 * layout carved out of dp as Megatron-Core does, the parameter totals, the
 * ring lab's defaults. Estimators (results.h) read the plan, never the
 * loader's derivations. No allocation: a layout search derives millions of
 * plans a second.
 *
 * A plan is evaluated for one layout (struct dc_layout): the input's own
 * (dc_plan_derive) or a what-if's (dc_plan_derive_layout, or
 * dc_plan_derive_from a plan of the same input, as the strategies
 * comparison does). Estimators read the layout's fields from the plan and
 * never from in->parallel or in->training's batch split; every other input
 * field (model shape, cluster, precision, memory overheads, fsdp unit,
 * buckets, recompute, rank order) they read from `in`.
 *
 * Stages. Ranks of one pipeline stage hold identical ledgers, and a
 * stage's ledger is a function of five things only: being first (the
 * embedding and its masks), being last (the head, the output terms), its
 * layer count (uneven pipelines: parallel.pipeline_layers or the
 * first/last-stage forms, runs of equal stages), its dense-MLP layer
 * count, and its microbatches in flight (which set its
 * layer-microbatches too). Each of the five shows in the ledger, so two
 * consecutive stages share a ledger exactly when they share all five. The
 * plan splits the pp stages in closed form into at most
 * DC_PLAN_MAX_SEGMENTS segments of identical parameters, and finds the
 * stages that hold the same microbatches in flight, so it counts the
 * classes of consecutive identical ledgers (memory.h) in O(segments): no
 * estimator loops over every stage. check_plan compares all of it against
 * the per-stage brute force.
 */
#ifndef DISTCALC_PLAN_H
#define DISTCALC_PLAN_H

#include <stddef.h>
#include <stdint.h>

#include "distcalc/activation.h"
#include "distcalc/config.h"
#include "distcalc/memory.h"
#include "distcalc/net.h"
#include "distcalc/params.h"
#include "distcalc/topology.h"

struct dc_step_memo; /* step.h */
struct dc_mem_memo;  /* memory.h */
struct dc_comm_memo; /* comm.h */

/* The layout a plan is evaluated for. */
struct dc_layout {
	uint64_t tp, pp, dp;       /* dp x tp x cp x pp = the world */
	uint64_t cp;               /* context-parallel degree >= 1 (0 reads as 1) */
	uint64_t ep;               /* expert-parallel degree >= 1, divides dp */
	uint64_t virtual_pipeline; /* model chunks per pipeline rank, >= 1 */
	int sequence_parallel;
	enum dc_sharding sharding;
	uint64_t micro_batch_size;
	uint64_t grad_accum_steps;
	uint64_t dp_replicate;     /* HSDP replicas of the sharded states >= 1 (0 reads as 1), divides dp and dp / ep */
	uint64_t etp;              /* expert tensor parallel >= 1 (0 reads as tp): a routed expert's f split */
	/* microbatches of one pipeline schedule (config.h
	 * pipeline_schedule_microbatches), dividing grad_accum_steps; 0: one
	 * schedule of all (dc_layout_schedule_m) */
	uint64_t schedule_microbatches;
};

/* The microbatches one pipeline schedule runs, m': the step's
 * (grad_accum_steps) but where schedule_microbatches cuts the step into
 * schedules (pp > 1 alone: without a pipeline there is no schedule) */
static inline uint64_t dc_layout_schedule_m(const struct dc_layout *l)
{
	return l->schedule_microbatches && l->pp > 1 ? l->schedule_microbatches : l->grad_accum_steps;
}

/* The pipeline schedules a step runs one after another, F = m / m' (1
 * but where schedule_microbatches cuts the step; docs/step-model.md,
 * "Several schedules a step") */
static inline uint64_t dc_layout_schedules(const struct dc_layout *l)
{
	uint64_t n = dc_layout_schedule_m(l);
	return n ? l->grad_accum_steps / n : 1;
}

/* Megatron-Core's expert layout ("MoE parallel folding"): the expert
 * layers regroup the tp x cp x dp ranks of a stage as etp x ep x edp.
 * Returns 0 when `lay` (etp 0 read as tp) is a valid expert layout for a
 * model of `num_experts` experts, else the reason as static text naming
 * the keys. `pp_outermost`: pipeline stages hold consecutive ranks (pp
 * the slowest axis of parallel.order), which folding needs. The loader
 * and the search both ask this. */
const char *dc_layout_expert_error(const struct dc_layout *lay, uint64_t num_experts, int pp_outermost);

/* 1 when Megatron-Core's expert rank generator, which reads parallel.order
 * of `in` (with cp 1), forms for `lay` the expert groups distcalc prices
 * (ep consecutive members of each dp group, or folded a stage's ranks as
 * etp x ep x edp) and the same pipeline groups, as its default
 * "tp-cp-ep-dp-pp" does; 0 for another order, or one that does not name
 * ep at ep > 1 (Megatron-Core refuses it). Always 1 without an expert
 * layout, and under training.framework torchtitan and deepspeed (their
 * own groups). The loader and the search both ask this. */
int dc_layout_ep_placed(const struct dc_config *in, const struct dc_layout *lay);

/* 1 when parallel.order as written (order_text) names ep; an axis left
 * out follows the named ones in parallel.order */
int dc_layout_order_names_ep(const struct dc_config *in);

/* 1 when the expert layout is folded: ep does not come out of dp alone, or
 * etp differs from tp (etp 0 reads as tp). */
int dc_layout_expert_folded(const struct dc_layout *lay);

/* 1 when pp is the slowest axis of the input's parallel.order for these
 * degrees (no axis of degree > 1 after it), or pp = 1. */
int dc_layout_pp_outermost(const struct dc_config *in, const struct dc_layout *lay);

/* The rules a layout keeps for the input's model and options, in one
 * place for the loader (which words each with its numbers) and the search
 * (which counts layouts by the first rule they break, in this order). */
enum dc_layout_fault {
	DC_LF_NONE,
	DC_LF_TP_HEADS,  /* tp divides the query and the key/value heads */
	DC_LF_CP,        /* 2 cp divides the sequence (a2a: cp divides it and the heads of a tp rank) */
	DC_LF_PP,        /* pp divides the layers, or is the input's own with its uneven stages; MoE every
			  * n-th layer: its stages fit DC_PLAN_MAX_SEGMENTS (dc_layout_moe_segments) */
	DC_LF_EXPERT,    /* dc_layout_expert_error; sequence parallelism where etp differs from tp > 1; DeepEP
			  * (training.moe_dispatcher) with ep > 1 needs etp 1 */
	DC_LF_REPLICATE, /* dp_replicate divides dp and the expert-data-parallel ranks */
	DC_LF_BATCH,     /* a whole number of microbatches (grad_accum_steps 0: the batch did not divide), and of
			  * pipeline schedules (schedule_microbatches divides grad_accum_steps) */
	DC_LF_VP,        /* v > 1: pp > 1, m a multiple of pp, the chunks fit the layers (and, MoE every
			  * n-th layer, the stages DC_PLAN_MAX_SEGMENTS) */
	DC_LF_SP,        /* sequence parallelism needs tp > 1 */
	DC_LF_SCHEDULE,  /* with a pipeline, the input's zero_bubble / dualpipe / dualpipev can run (dc_layout_schedule);
			  * dualpipev with MoE every n-th layer: pp <= DC_PLAN_MAX_SEGMENTS */
};

/* The kinds of stage (segments, dc_plan) the input's model needs at
 * pipeline degree pp and v model chunks a stage when MoE sits on every
 * n-th layer (model.moe_layer_interval > 1, a shaped model): the second
 * and the last stage, and every stage whose layers or MoE layers differ
 * from the stage before it, plus stage 0; the stages are the input's
 * own split when pp is its own, else even. 0 when the model has no such
 * interleave or another rule refuses the stages (pp not dividing the
 * layers, chunks not fitting). O(pp v runs). The layout rules hold it to
 * DC_PLAN_MAX_SEGMENTS: PP for v = 1, VP for v > 1. */
uint64_t dc_layout_moe_segments(const struct dc_config *in, uint64_t pp, uint64_t v);

/* The rules of (tp, cp, pp) alone: TP_HEADS, CP, PP. */
enum dc_layout_fault dc_layout_fault_outer(const struct dc_config *in, uint64_t tp, uint64_t cp, uint64_t pp);

/* The rest, for a layout whose (tp, cp, pp) keep the outer rules: EXPERT,
 * REPLICATE, BATCH, VP, SP, SCHEDULE. It reads no lay->sharding (the
 * search asks once for the shardings of one dp_replicate). */
enum dc_layout_fault dc_layout_fault_inner(const struct dc_config *in, const struct dc_layout *lay);

/* The schedule a layout runs: the input's parallel.pipeline_schedule
 * when the layout meets its needs (DualPipe: an even pp, an even number
 * of microbatches at least 2 pp, `even` stages, pp dividing the layers;
 * DualPipeV: at least 2 pp microbatches, even stages, 2 pp dividing the
 * layers; ZB-H1: a pipeline), else 1F1B, or interleaved when v > 1; no
 * pipeline is 1F1B. The loader holds the input's own layout to it; the
 * search refuses a layout that cannot run a named schedule
 * (DC_LF_SCHEDULE). */
enum dc_pipe_schedule dc_layout_schedule(const struct dc_config *in, const struct dc_layout *lay, int even);

/* v model chunks on pp stages fit the input's layers: pp v divides them,
 * or at the input's own uneven pp its own v (its stages as the loader
 * checked them) or v = 1 when its list names stages, not chunks. */
int dc_layout_chunks_fit(const struct dc_config *in, uint64_t pp, uint64_t v);

/* The link a group's ring crosses and its parameters. */
struct dc_plan_link {
	enum dc_link_choice choice; /* DC_LINK_INTRA or DC_LINK_INTER */
	struct dc_link params;
};

/* The process groups a plan prices (struct dc_plan group[]). The first
 * DC_AXIS_COUNT are the rank axes' own groups (group[DC_AXIS_TP] ...),
 * the rest combine or regroup them. */
enum dc_group_id {
	DC_GROUP_DP_CP = DC_AXIS_COUNT, /* dp x cp: dense gradients sync and shard there (group[DC_AXIS_DP] when cp = 1) */
	DC_GROUP_EP,      /* expert parallel: ep consecutive dp ranks, or folded etp apart */
	DC_GROUP_ETP,     /* expert tensor parallel (folded: etp consecutive ranks; else tp's) */
	DC_GROUP_EDP,     /* expert data parallel: the replicas of one expert shard */
	DC_GROUP_EDP_CP,  /* expert data parallel x cp (DC_GROUP_EDP when cp = 1 or folded) */
	DC_GROUP_SHARD,   /* HSDP: one replica's shard group (DC_GROUP_DP_CP when dp_replicate = 1) */
	DC_GROUP_ESHARD,  /* HSDP: an expert's shard group */
	DC_GROUP_REP,     /* HSDP: the dp_replicate ranks holding the same shard */
	DC_GROUP_EREP,    /* HSDP: the same for an expert shard */
	DC_GROUP_PP_PAIR, /* two neighbouring pipeline stages (net only; link: group[DC_AXIS_PP]) */
	/* DualPipe's mirror pair, the ranks holding stages 0 and pp - 1 of the
	 * pipeline group that crosses the most domains (pp_first), the rank
	 * that holds the embedding and the head and its mirror (net only;
	 * link: group[DC_AXIS_PP], which it crosses whenever its group does) */
	DC_GROUP_PP_MIRROR,
	/* DeepEP's two levels of an expert-parallel group that spans nodes
	 * evenly (training.moe_dispatcher "deepep"; ranks 0 where not priced):
	 * one rank of each node, and one node's ranks */
	DC_GROUP_EP_NODES,
	DC_GROUP_EP_LOCAL,
	DC_GROUP_COUNT
};

struct dc_plan_group {
	struct dc_plan_link link;
	struct dc_net_group net;
};

/* One rank's share of each kind of layer (Megatron-LM 2021 section 2.3:
 * linear layers split over tp, column-parallel biases with them; norms,
 * row-parallel biases, MLA down-projections and the router whole). */
struct dc_plan_shard {
	uint64_t dense_layer;   /* a layer with a dense MLP */
	uint64_t moe_layer;     /* a MoE layer, its num_experts / ep experts included */
	uint64_t layer_experts; /* the routed-expert part of moe_layer */
	uint64_t embedding;     /* the vocab-parallel embedding (or head): ceil(V h / tp) */
	uint64_t position;      /* the learned position table P x h, whole (GPT-2) */
	/* a Gated DeltaNet layer in place of softmax attention (Qwen3-Next):
	 * dense_layer and moe_layer with its attention */
	uint64_t linear_dense_layer, linear_moe_layer;
	/* the multi-token-prediction modules, on the last stage: all of
	 * them, and their routed-expert part */
	uint64_t mtp, mtp_experts;
	int overflow;           /* a layer's or the embedding's share overflows 64 bits */
	int position_overflow;  /* P x h overflows (the first stage's count) */
};

/* The pipeline's stages as runs of equal consecutive stages: run i holds
 * stages [first[i], first[i + 1]), each with layers[i] transformer layers,
 * the first of them starting at layer layer_start[i]; first[n] = pp. An
 * even split is one run. */
struct dc_stage_runs {
	uint64_t n;
	uint64_t first[DC_MAX_PIPELINE_RUNS + 1];
	uint64_t layers[DC_MAX_PIPELINE_RUNS];
	uint64_t layer_start[DC_MAX_PIPELINE_RUNS];
	/* interleaving (v > 1 model chunks a stage): every chunk of a stage
	 * holds the same layers but the model's first chunk (stage 0, chunk
	 * 0: vfirst) and its last (stage pp - 1, chunk v - 1: vlast), as
	 * Megatron-Core's uneven forms with a virtual pipeline give them */
	uint64_t v, vfirst, vlast;
};

/* Resolves parallel.pipeline_layers, Megatron's first/last-stage forms
 * (--decoder-first/last-pipeline-num-layers: the given stages take their
 * layers, the others split the rest evenly) and the embedding and loss
 * counted as layers (--account-for-embedding/loss-in-pipeline-split: the
 * L + e + o units split evenly over pp, the first stage's share one layer
 * short for the embedding, the last's for the loss), or the even split,
 * for `num_layers` layers over par->pp stages, v model chunks a stage
 * (par->virtual_pipeline for the input's own layout). With v > 1 each stage's layers split evenly over its v
 * model chunks (a list of pp entries, each a multiple of v; the forms: f,
 * l and the middle stages' layers multiples of v; the counted embedding
 * and loss: L + e + o split over pp v chunks, the first one e short, the
 * last o short), or pipeline_layers gives all pp v chunks in model order
 * (Megatron-Core's --pipeline-model-parallel-layout), a stage's chunks
 * equal but for the model's first and last chunk. Returns 0 with *out
 * filled, or -1 with err holding "'KEY': why" and *key that key. */
int dc_stage_split(const struct dc_parallel *par, uint64_t num_layers, uint64_t v, struct dc_stage_runs *out,
		   const char **key, char *err, size_t errlen);

/* Layers of model chunk `c` of pipeline rank `stage`, and the chunk's
 * first model layer (Megatron-LM 2021 section 2.2.2: rank s holds chunks
 * s, s + pp, ..., virtual stage k = c pp + s in model order). v = 1: the
 * stage's layers and first layer. O(runs). */
uint64_t dc_plan_chunk_layers(const struct dc_plan *p, uint64_t stage, uint64_t c);
uint64_t dc_plan_chunk_start(const struct dc_plan *p, uint64_t stage, uint64_t c);

/* Layers of rank `stage` whose forward full recompute runs again: all of
 * them, or with training.recompute_layers = N the first min(N, layers)
 * of each model chunk (Megatron's block method, chunk by chunk for
 * uneven chunks). O(v runs). */
uint64_t dc_plan_recomputed_layers(const struct dc_plan *p, uint64_t stage);

/* The model's share of layers full recompute reruns: the recomputed
 * layers of every stage over L (N / (L / (pp v)) for even chunks). */
double dc_plan_recompute_share(const struct dc_plan *p);

/* 1 when full recompute reruns the multi-token-prediction modules
 * (model.mtp_layers): training.recompute "full" with no
 * training.recompute_layers, Megatron-Core's uniform method, which
 * checkpoints each module's enorm, hnorm, eh_proj and layer together
 * (multi_token_prediction.py:1621-1629 at d98e8a64; the head and loss
 * after it run outside the checkpoint); 0 with recompute_layers (the block
 * method, which Megatron-Core skips for the modules with a warning,
 * :1630-1634) and under every other policy. */
int dc_plan_mtp_recomputed(const struct dc_plan *p);

/* 1 when `par` asks for uneven stages (a list or a first/last form). */
int dc_stages_uneven(const struct dc_parallel *par);

/* The hint an error on L layers that do not split over `chunks` (pp x
 * virtual_pipeline) appends when counting the embedding and the loss as
 * layers would split them (Megatron's --account-for-embedding-in-
 * pipeline-split and --account-for-loss-in-pipeline-split: L + 2, or
 * L + 1, a multiple of chunks, every chunk keeping a layer): "; or
 * account_for_..." into buf, else "". Returns buf. */
const char *dc_stages_counted_hint(uint64_t L, uint64_t chunks, int v_gt1, char *buf, size_t n);

/* segments: every run boundary, the first and last stage, and the two
 * stages around the partly dense one (MoE every n-th layer: the layout
 * rules keep its stages within it, dc_layout_moe_segments) */
#define DC_PLAN_MAX_SEGMENTS (DC_MAX_PIPELINE_RUNS + 4)
/* the rules' texts (config_rules.c, search.c, plan.c) name it */
_Static_assert(DC_PLAN_MAX_SEGMENTS == 20, "the MoE-interval rule texts name 20 kinds of stage");

struct dc_plan {
	const struct dc_config *in; /* the input, borrowed: it must outlive the plan */
	struct dc_topology topo;    /* degree[DC_AXIS_*], strides, order, world */
	uint64_t num_nodes;
	uint64_t ep;                /* expert-parallel degree (>= 1), out of dp or folded over tp x cp x dp */
	uint64_t etp;               /* expert tensor parallel (>= 1): layout.etp, tp when 0 */
	int expert_folded;          /* dc_layout_expert_folded: the expert groups come from Megatron's expert generator */
	uint64_t params_total;      /* model.params when given, else the shape's count */
	uint64_t params_active;     /* what one token uses (MoE: top-k experts) */
	uint64_t ring_ranks;        /* collective.ranks, default the world */
	uint64_t ring_msg_bytes;    /* collective.message_size, default one rank's gradient bytes */
	const char *error;          /* static text when dc_plan_derive fails */
	uint64_t seed;              /* --seed: every random draw (rng.h); derive sets 0, the runner the run's */

	struct dc_layout layout;    /* the layout evaluated */
	uint64_t world;             /* topo.world: the product of topo.degree[] */
	uint64_t expert_dp;         /* dp / ep (folded: expert_dp_cp): ranks holding replicas of the same experts, less cp */
	uint64_t v;                 /* layout.virtual_pipeline */
	uint64_t layers_per_stage;  /* L / pp of an even split; uneven: read dc_plan_stage_layers */
	uint64_t layers_per_chunk;  /* L / (pp v) (interleaving needs even stages) */
	struct dc_stage_runs runs;  /* the stages' layers (the input's split when pp is its own, else even) */
	int chunks_uneven;          /* v > 1 and the chunks are not L / (pp v) each (dc_plan_chunk_layers) */
	/* dc_layout_schedule of the layout and stages, found once by derive
	 * (neither changes after it; a sharding-only copy keeps it):
	 * dc_pipeline_schedule reads it, some 25 times a layout. schedule_set
	 * 0 (a hand-built plan): dc_pipeline_schedule computes it */
	enum dc_pipe_schedule schedule;
	int schedule_set;
	uint64_t dp_cp;             /* dp x cp: the ranks a dense gradient is synchronised and sharded over */
	uint64_t expert_dp_cp;      /* tp dp cp / (ep etp) (= expert_dp x cp unfolded): the same for a routed expert's */
	uint64_t dp_replicate;      /* layout.dp_replicate (HSDP), >= 1 */
	uint64_t shard_dp_cp;       /* dp_cp / dp_replicate: the ranks sharded states split over */
	uint64_t expert_shard_dp_cp;/* expert_dp_cp / dp_replicate: the same for a routed expert's */
	uint64_t dense_limit;       /* the model's first layers with a dense MLP (all: dense model); MoE every
				     * n-th layer: the count of dense layers alone (dc_plan_dense_in) */
	uint64_t tokens_per_microbatch;      /* b s, one replica */
	uint64_t seq_per_cp_rank;            /* s / cp: the sequence one context-parallel rank holds */
	uint64_t tokens_per_microbatch_cp;   /* b s / cp: one context-parallel rank's share */
	uint64_t tokens_per_microbatch_rank; /* b s / (cp tp) (ceil) under sequence parallelism, else b s / cp */
	struct dc_param_terms terms;  /* the shape's count term by term (params.h) */
	struct dc_param_layer parts;  /* one layer of each kind, block by block (params.h) */
	struct dc_plan_shard shard;   /* per-rank layer shares */
	struct dc_act_plan act;       /* per-rank activations of each kind of layer (activation.h) */

	/* Every process group the estimators price, one entry each
	 * (enum dc_group_id): the slowest link its groups cross and the
	 * network model's shape of the group it prices (net.h: its first group
	 * that spans domains, else group 0, with all its groups on the wire at
	 * once). An axis's own groups are group[axis]; the others are named
	 * there. The sizes live with the layout's degrees (dp_cp,
	 * expert_dp_cp, shard_dp_cp, ...). */
	struct dc_net net;
	/* borrowed, NULL but in a search: a memo of the collectives' prices
	 * bound to `net` (net.h), which dc_plan_derive_from passes on to the
	 * plans it derives (the same input, so the same network) */
	struct dc_net_memo *net_memo;
	/* borrowed, NULL but in a search: the step's memo of its stages'
	 * ops (step.h), passed on to derived plans as net_memo is (it keys
	 * on every input it reads, so any plan may lend it) */
	struct dc_step_memo *step_memo;
	/* borrowed, NULL but in a search: the memory ledger's memo of its
	 * stages' activation part and of its model states for each sharding
	 * (memory.h), passed on as step_memo is */
	struct dc_mem_memo *mem_memo;
	/* borrowed, NULL but in a search: the data-parallel axes' calls for
	 * the inputs they read (comm.h), passed on as step_memo is */
	struct dc_comm_memo *comm_memo;
	/* 1 in a search, 0 elsewhere: the step fills only what a search
	 * reads of it (step.h dc_step_compute: the time, the token rates and
	 * the MFU), passed on as the memos are */
	int step_rank_only;
	struct dc_plan_group group[DC_GROUP_COUNT];
	/* the pipeline's hops (plan.c pp_hops; docs/step-model.md, "A
	 * send's time"): of the pp - 1 boundaries between the stages of the
	 * first pipeline group that crosses an NVLink domain (group[
	 * DC_GROUP_PP_PAIR] a crossing one), pp_cross cross one, and the wrap
	 * from its last stage to its first (interleaving's) does when
	 * pp_wrap_cross; pp_pair_in a boundary inside one domain
	 * (DC_GROUP_PP_PAIR's net when none is), whose first rank is
	 * pp_in_first; that group's stage 0 is on rank pp_first */
	uint64_t pp_cross, pp_first, pp_in_first;
	int pp_wrap_cross;
	struct dc_net_group pp_pair_in;
	struct dc_plan_link ring_link; /* the teaching ring over ranks 0..ring_ranks-1 */

	/* stages: segments [segment_first[i], segment_first[i + 1]) hold
	 * identical parameters (segment_first[nsegments] = pp); stages
	 * 0..flat_last hold the same microbatches in flight, every later stage
	 * a different count. A class is a segment's part within 0..flat_last
	 * or one later stage. */
	uint64_t nsegments;
	uint64_t segment_first[DC_PLAN_MAX_SEGMENTS + 1];
	struct dc_stage_params segment_params[DC_PLAN_MAX_SEGMENTS]; /* dc_stage_params_compute of each */
	int segment_overflow[DC_PLAN_MAX_SEGMENTS];
	uint64_t flat_last;
	uint64_t flat_classes; /* segments starting at or before flat_last */
	uint64_t nclasses;

	/* the stage whose ranks hold the most parameters (the first on a tie) */
	struct dc_stage_params most;
	uint64_t most_stage;
	int most_overflow; /* some stage's parameter count overflows */
};

/* Fills *p from `in`. Returns 0, or -1 with p->error set (an overflow the
 * loader's range checks let through; the other members are then
 * undefined). `in` must come from the loader. */
int dc_plan_derive(const struct dc_config *in, struct dc_plan *p);

/* The input's own layout. */
void dc_layout_of(const struct dc_config *in, struct dc_layout *out);

/* As dc_plan_derive for `layout` in place of the input's: its degrees must
 * multiply to at most DC_MAX_WORLD ranks and keep the loader's promises
 * (tp divides the heads, pp x v divides the layers, ep divides dp and the
 * experts, 2 cp divides the sequence). A layout with the input's pp keeps
 * the input's uneven stages (parallel.pipeline_layers and the first/last
 * forms); any other pp splits the layers evenly. The ring defaults use the
 * world of `layout`. */
int dc_plan_derive_layout(const struct dc_config *in, const struct dc_layout *layout,
			  struct dc_plan *p);

/* As dc_plan_derive_layout for base->in, reusing what `base` derived and
 * `layout` leaves as it was: the shape's counts always, the ranks' layout
 * and the axes' links when the degrees are base's. A what-if derives its
 * plans from the input's this way (the strategies comparison does). */
int dc_plan_derive_from(const struct dc_plan *base, const struct dc_layout *layout, struct dc_plan *p);

/* Whether dc_plan_derive_from(base, layout, p) makes p a copy of base but
 * for its sharding (layout differs from base's in the sharding alone):
 * then every result that reads no sharding is base's. */
int dc_plan_derive_copies(const struct dc_plan *base, const struct dc_layout *layout);

/* When `layout` differs from p's (a plan derived without error) in its
 * sharding alone, which nothing in a plan depends on: sets p's sharding
 * and returns 1; p is then what dc_plan_derive_from(base, layout, ...)
 * gives for the base p was derived from (a search's shardings of one
 * layout derive once). Else returns 0 and leaves p as it was. */
int dc_plan_reshard(struct dc_plan *p, const struct dc_layout *layout);

/* Transformer layers rank `stage` holds, all its model chunks together:
 * L / pp of an even split, else its run's count. O(runs). */
uint64_t dc_plan_stage_layers(const struct dc_plan *p, uint64_t stage);

/* The first layer stage `stage` holds (v = 1). O(runs). */
uint64_t dc_plan_stage_first_layer(const struct dc_plan *p, uint64_t stage);

/* Dense-MLP layers among model layers [first, first + n): n less
 * dc_params_moe_in. The one count every consumer of a stage's or a
 * chunk's layer kinds reads; O(1). With model.moe_layer_interval > 1 the
 * dense and MoE layers interleave (Llama 4), else the dense ones are the
 * model's first dense_limit. */
static inline uint64_t dc_plan_dense_in(const struct dc_plan *p, uint64_t first, uint64_t n)
{
	/* in line: the step reads it for every chunk of every layout the
	 * search prices */
	return n - dc_params_moe_in(&p->in->model, first, n);
}

/* Of model layers [first, first + n), those precision.bf16_first_layers
 * and bf16_last_layers keep in BF16 under compute FP8 (the model's first
 * N and last M: Megatron-Core's first_last_layers_bf16 by global layer
 * index, megatron/core/fp8_utils.py:711-727 at d98e8a64): how many, and
 * of them dense (*dense, dc_plan_dense_in of each end's part). 0 without
 * compute FP8 or such layers; O(1). */
static inline uint64_t dc_plan_bf16_in(const struct dc_plan *p, uint64_t first, uint64_t n, uint64_t *dense)
{
	const struct dc_precision *pr = &p->in->precision;
	uint64_t L = p->in->model.num_layers, end = first + n, total = 0;
	*dense = 0;
	if (pr->compute != DC_COMPUTE_FP8 || (!pr->bf16_first_layers && !pr->bf16_last_layers) || n == 0)
		return 0;
	/* the first N: [0, N) */
	if (first < pr->bf16_first_layers) {
		uint64_t hi = end < pr->bf16_first_layers ? end : pr->bf16_first_layers;
		total += hi - first;
		*dense += dc_plan_dense_in(p, first, hi - first);
	}
	/* the last M: [L - M, L), apart from the first N (the loader keeps
	 * N + M <= L) */
	if (pr->bf16_last_layers && pr->bf16_last_layers <= L) {
		uint64_t lo = L - pr->bf16_last_layers;
		if (lo < pr->bf16_first_layers)
			lo = pr->bf16_first_layers;
		if (lo < first)
			lo = first;
		if (lo < end) {
			total += end - lo;
			*dense += dc_plan_dense_in(p, lo, end - lo);
		}
	}
	return total;
}

/* 1 when the plan's model has MoE on every n-th layer (moe_layer_interval
 * > 1, a shaped model): its dense and MoE layers interleave, so which of
 * a range's layers are dense is dc_plan_dense_in's to say, not a prefix */
/* activation.h's, here where the plan is whole (the schedule derive set,
 * else as derive finds it) */
static inline uint64_t dc_pipeline_chunk_microbatches(const struct dc_plan *p)
{
	uint64_t m = p->layout.grad_accum_steps;
	enum dc_pipe_schedule s = p->schedule_set ? p->schedule : dc_pipeline_schedule(p);
	/* the schedule needs an even m (dc_layout_schedule) */
	return s == DC_PIPE_DUALPIPE ? m / 2 : m;
}

static inline int dc_plan_moe_interleaved(const struct dc_plan *p)
{
	const struct dc_model *m = &p->in->model;
	return m->num_experts && m->moe_layer_interval > 1 && !m->params_explicit;
}

/* Dense-MLP layers among those rank `stage` holds, in O(1): with v model
 * chunks (interleaved 1F1B, Megatron-LM 2021 section 2.2.2) it holds
 * chunks stage, stage + pp, ..., each of L / (pp v) consecutive layers,
 * and the dense ones are the model's first dense_limit layers. Uneven
 * stages (v = 1): those of its layers below dense_limit, O(runs). MoE on
 * every n-th layer: dc_plan_dense_in of each chunk, O(v runs). */
uint64_t dc_plan_stage_dense_layers(const struct dc_plan *p, uint64_t stage);

/* The segment holding `stage`, and the parameters of its ranks (NULL when
 * they overflow 64 bits). */
uint64_t dc_plan_stage_segment(const struct dc_plan *p, uint64_t stage);
const struct dc_stage_params *dc_plan_stage_params(const struct dc_plan *p, uint64_t stage);

/* Of the stage's layers (every chunk of it), those whose number (from 1)
 * `every` divides; 0 when every is 0. O(v). */
uint64_t dc_plan_stage_every(const struct dc_plan *p, uint64_t stage, uint64_t every);

/* Stages [*first, *last] of class `i` (0 <= i < nclasses). */
void dc_plan_class_stages(const struct dc_plan *p, uint64_t i, uint64_t *first, uint64_t *last);

/* The class holding `stage`. */
uint64_t dc_plan_stage_class(const struct dc_plan *p, uint64_t stage);

#endif
