/* axis_int.h - the parallel axes' rows: each axis file (dp.c, fsdp.c,
 * tp.c, pp.c, cp.c, ep.c) is the only place that knows which collectives
 * its axis issues. comm.c walks dc_axis_rows and sums; the step model
 * reads the calls' enums (comm.h), never their labels.
 *
 * Adding an axis: its file with a dc_axis_<name>_comm function (and a
 * dc_axis_<name>_shards one when it shards model states), its keys
 * (config_keys.def), a row in dc_axis_rows and a value in enum
 * dc_strategy; its groups in the plan (enum dc_group_id). */
#ifndef DISTCALC_AXIS_INT_H
#define DISTCALC_AXIS_INT_H

#include <stdint.h>

#include "distcalc/axis.h"
#include "distcalc/comm.h"
#include "distcalc/params.h"
#include "distcalc/plan.h"
#include "distcalc/util.h"

/* The calls one dc_comm_compute has priced, newest first over the
 * oldest: the same call on the same group (TP's forward and backward
 * AllReduce, FSDP's forward and backward gathers) is priced once. It lives
 * on dc_comm_compute's stack, for one plan that does not change while it
 * runs, so a group is known by its address in that plan. */
#define DC_AXIS_MEMO_SLOTS 8

struct dc_axis_memo {
	struct {
		const struct dc_net_group *g;
		uint64_t msg_bytes;
		enum dc_coll_kind kind; /* dc_net_price_kind of the call's */
		struct dc_net_choice ch;
	} slot[DC_AXIS_MEMO_SLOTS];
	unsigned used, next;
};

/* What an axis's emitter reads and writes: the plan, the stage the comm
 * result analyses (the one with the most parameters), the stage whose MoE
 * layers the per-MoE-layer calls count (comm.h ep_stage: `best`, or when
 * that holds none the one with the most), the strategy it fills, the
 * overflow flag of the whole computation and the calls priced so far
 * (NULL: none kept); `stage` and `moe_stage` are best's and moe's pipeline
 * ranks (comm.h stage and ep_stage). */
struct dc_axis_ctx {
	struct dc_ck *b;
	const struct dc_plan *p;
	const struct dc_stage_params *best;
	const struct dc_stage_params *moe;
	struct dc_comm_strategy *s;
	enum dc_strategy axis;
	struct dc_axis_memo *memo;
	uint64_t stage, moe_stage;
	/* the multi-token-prediction modules best's rank runs and, when they
	 * are MoE layers, moe's (dc_axis_mtp_layers): a layer each, beside
	 * best->layers and moe->moe_layers */
	uint64_t mtp, moe_mtp;
	/* tp.c's rows of the content of the stages not analysed, which the
	 * step model prices them from (comm.h tp_kind[2], tp_head) */
	struct dc_comm_strategy *kind_rows, *head_rows;
};

struct dc_axis_row {
	enum dc_strategy strategy;
	/* Fills x->s when the axis is in play for x->p (sets in_play, the
	 * group, its link, its calls); leaves it cleared otherwise. */
	void (*comm)(struct dc_axis_ctx *x);
	/* The states the axis shards, over which ranks (NULL: none); called
	 * on shards every axis before it has set (all 1 at first). */
	void (*shards)(const struct dc_plan *p, struct dc_state_shards *out);
};

extern const struct dc_axis_row dc_axis_rows[DC_STRAT_COUNT];

void dc_axis_dp_comm(struct dc_axis_ctx *x);
void dc_axis_dp_shards(const struct dc_plan *p, struct dc_state_shards *out);
void dc_axis_fsdp_comm(struct dc_axis_ctx *x);
void dc_axis_fsdp_shards(const struct dc_plan *p, struct dc_state_shards *out);
void dc_axis_tp_comm(struct dc_axis_ctx *x);
void dc_axis_pp_comm(struct dc_axis_ctx *x);
void dc_axis_cp_comm(struct dc_axis_ctx *x);
void dc_axis_ep_comm(struct dc_axis_ctx *x);

/* Appends `count` calls of `kind` on M bytes to x->s, on its current group
 * and link, priced by the network model (calls of 0 count or bytes, on a
 * group of one rank, or past DC_COMM_MAX_COLL are dropped). */
void dc_axis_push(struct dc_axis_ctx *x, enum dc_coll_kind kind, enum dc_coll_what what, enum dc_coll_phase phase,
		  enum dc_overlap_class overlap, uint64_t count, uint64_t msg_bytes);

/* `total` bytes in buckets of `bucket` bytes: the full buckets and the rest. */
void dc_axis_push_buckets(struct dc_axis_ctx *x, enum dc_coll_kind kind, enum dc_coll_what what,
			  enum dc_coll_phase phase, enum dc_overlap_class overlap, uint64_t total, uint64_t bucket);

/* Prices the strategy's next calls on link `l` and network group `g`. */
void dc_axis_use_link(struct dc_comm_strategy *s, const struct dc_plan_link *l, const struct dc_net_group *g);

/* DualPipe's sum of a rank's gradients with its mirror rank's copy
 * (dp.c, docs/formulas-systems.md "The mirror's gradient sum"): `count`
 * AllReduces of `msg_bytes` over the mirror pair (plan.h
 * DC_GROUP_PP_MIRROR, the pipeline's link), the dense or the `expert`
 * rows; nothing under another schedule. The strategy's next calls are
 * priced on that pair: a caller on another group sets it again. */
void dc_axis_push_mirror(struct dc_axis_ctx *x, int expert, uint64_t count, uint64_t msg_bytes);

/* In play on `group_size` ranks of link `l` / group `g` of the plan's network. */
void dc_axis_setup(struct dc_axis_ctx *x, uint64_t group_size, const struct dc_plan_link *l,
		   const struct dc_net_group *g);

/* Of the layers the rank of `best` holds (`moe`: the MoE layers of the
 * rank of `moe`), those whose forward full recompute runs again in
 * backward, and with it the forward's collectives: all of them, or with
 * training.recompute_layers = N the first N of each model chunk
 * (Megatron-Core's block method: transformer_block.py
 * _checkpointed_forward), a chunk as plan.h's dc_plan_recomputed_layers
 * counts it (DualPipe: each of the rank's two stages; DualPipeV: the
 * rank's L / pp layers, its V's two chunks in turn). Which of them are
 * MoE layers: plan.h's dc_plan_dense_in (MoE on every n-th layer
 * interleaves them). All of them when training.recompute is not
 * "full". O(chunks runs). */
uint64_t dc_axis_recomputed_layers(struct dc_axis_ctx *x, int moe);

/* The multi-token-prediction modules (model.mtp_layers) rank `stage`
 * runs: all of them on the rank whose chunk holds the head, none
 * elsewhere. Megatron-Core builds them on the last pipeline stage, its
 * last virtual chunk (multi_token_prediction.py:864-884, mtp_on_this_rank
 * :826-829 at d98e8a64), after the decoder; DualPipe and DualPipeV put the
 * head, and with it the modules, where dc_pipeline_chunk says. O(chunks). */
uint64_t dc_axis_mtp_layers(const struct dc_plan *p, uint64_t stage);

/* Of `mtp` modules on a rank, those whose forward full recompute runs
 * again in backward: all of them when training.recompute is "full" with
 * no training.recompute_layers (Megatron-Core's uniform method, which
 * checkpoints a module's eh_proj and layer together, :1621-1629), none
 * with recompute_layers (the block method, which Megatron-Core skips for
 * the modules with a warning, :1630-1634) or another recompute. */
uint64_t dc_axis_mtp_recomputed(const struct dc_plan *p, uint64_t mtp);

/* Whether the modules' layers are MoE layers (plan.c derive_shard: a MoE
 * layer when the model has experts, as memory.c counts a stage's layers;
 * explicit parameters hold none) */
int dc_axis_mtp_moe(const struct dc_plan *p);

/* The activations of one microbatch on this context-parallel rank,
 * b (s / cp) h in the layers' working precision: what TP's collectives
 * and a pipeline send carry. */
uint64_t dc_axis_act_bytes(struct dc_axis_ctx *x);

#endif
