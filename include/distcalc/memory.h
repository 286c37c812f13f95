/* memory.h - the per-rank memory ledger: every byte we know of on one line.
 *
 * For each pipeline stage (the only axis along which ranks' ledgers differ
 * here) the ledger holds the model states (ZeRO paper section 5, experts
 * sharded over the expert-data-parallel group), the FSDP working set
 * (PyTorch FSDP2 lifecycle), activations (Korthikanti et al. 2022, an
 * adjustable assumption: activation.h, with recomputation, sequence
 * parallelism and the pipeline schedule), buffers and named overheads, and
 * the peak per phase. Consecutive stages with identical ledgers form one
 * class; the plan (plan.h) finds the classes in closed form, so the memory
 * estimator evaluates a few stages, not pp. Exact integer bytes,
 * overflow-checked. Derivations and worked examples:
 * docs/formulas-systems.md, "Memory ledger".
 *
 * The checkpoint_save phase follows checkpoint.format and checkpoint.gather
 * (dc_ckpt_gpu_extra in checkpoint.h): a sharded save adds nothing to the
 * optimizer step's states, a full one gathered to the host the largest
 * gathered tensor (one at a time), one kept on the GPU the stage's whole
 * state dict of every state a rank holds only part of.
 *
 * Not modelled (said in the report too): optimizer-step temporaries, DDP's flat bucket copy of all
 * gradients when gradient_as_bucket_view is false, vocabulary padding, loss
 * and pipeline send/receive buffers, fragmentation beyond the allocator
 * reserve.
 *
 * Every function that can fail returns 0, or -1 with *error (when error is
 * not NULL) set to static text naming the keys; the caller prefixes the
 * config name ("NAME: error: TEXT").
 */
#ifndef DISTCALC_MEMORY_H
#define DISTCALC_MEMORY_H

#include <stdint.h>

#include "distcalc/config.h"

struct dc_plan;

enum dc_mem_phase {
	DC_MEM_FORWARD,
	DC_MEM_BACKWARD,
	DC_MEM_OPTIMIZER,
	DC_MEM_CHECKPOINT,
	DC_MEM_PHASE_COUNT,
};

/* Parameters one rank of pipeline stage `stage` holds before dp sharding:
 * its tp shard of the stage's layers plus, on the first stage, the
 * embedding and, on the last, the final norm and the output head. */
struct dc_stage_params {
	uint64_t layers;       /* transformer layers on the stage: dc_plan_stage_layers (L / pp when even) */
	uint64_t dense_layers; /* of them with a dense MLP (all, for a dense model) */
	uint64_t moe_layers;   /* of them with routed experts */
	uint64_t layer_params; /* the largest layer's parameters on one tp rank */
	uint64_t expert_params; /* routed-expert parameters on this rank (num_experts / ep per layer) */
	uint64_t other_params; /* embedding / head / final norm on this stage */
	uint64_t total;        /* the layers' parameters + other_params */
};

struct dc_mem_ledger {
	uint64_t stage_first, stage_last; /* the class's stages */
	struct dc_stage_params p;
	uint64_t in_flight;                 /* microbatches whose activations are held */

	/* model states, after dp sharding per parallel.sharding */
	uint64_t params_bytes;
	uint64_t grads_bytes;
	uint64_t master_bytes;
	uint64_t optimizer_bytes;
	uint64_t model_states_bytes; /* on the GPU: the offloaded states are 0 above */

	/* host memory of this rank (parallel.offload): what left the GPU */
	uint64_t host_params_bytes;    /* optimizer+params: the parameter shard */
	uint64_t host_grads_bytes;     /* the gradient shard, or ZeRO-Offload's FP32 copy */
	uint64_t host_master_bytes;
	uint64_t host_optimizer_bytes;
	/* DeepSpeed ZeRO-1/2's pinned 16-bit staging buffers (offload
	 * optimizer under training.framework deepspeed; 0 otherwise): the
	 * return buffer, and ZeRO-2's accumulation buffers at
	 * grad_accum_steps > 1 (docs/memory-conventions.md) */
	uint64_t host_buffers_bytes;
	uint64_t host_bytes;

	/* activations: per layer per microbatch, and held (activation.h) */
	uint64_t activation_bytes_per_layer;
	uint64_t activation_layer_microbatches; /* layers x microbatches held */
	uint64_t activation_layers_bytes;       /* the two multiplied */
	uint64_t activation_embedding_bytes;    /* first stage: x in-flight microbatches */
	uint64_t activation_output_bytes;       /* last stage: final norm, head input, logits */
	uint64_t activation_recompute_bytes;    /* one layer rebuilt during backward */
	uint64_t activation_head_backward_bytes; /* last stage: the loss's FP32 gradients in its backward */
	/* ZB-H1 (0 under other schedules): what one microbatch's deferred
	 * weight gradients hold on this stage (its layers' and head's
	 * dc_act_*_wgrad_bytes), how many await their W at the stage's peak,
	 * and what they add over 1F1B's whole microbatches there
	 * (dc_pipeline_zb_deferred) */
	uint64_t activation_wgrad_bytes_per_microbatch;
	uint64_t activation_wgrad_microbatches;
	uint64_t activation_wgrad_bytes;
	uint64_t activations_bytes; /* layers + embedding + output (+ ZB-H1's deferred W) */

	/* FSDP working set (0 unless sharding is fsdp) */
	uint64_t fsdp_unit_params;
	uint64_t fsdp_forward_params_bytes;  /* unsharded params resident in forward */
	uint64_t fsdp_backward_params_bytes; /* ... in backward */
	uint64_t fsdp_unsharded_grads_bytes; /* one unit's grads before ReduceScatter */

	/* buffers and overheads */
	uint64_t ddp_buckets_bytes;
	uint64_t comm_buffers_bytes;
	uint64_t buffers_bytes; /* ddp buckets + FSDP working set at its largest + comm */
	uint64_t cuda_context_bytes;
	uint64_t workspace_bytes;
	/* Transformer Engine's FP8 copies of the rank's FP8-cast linear
	 * weights, kept across the step (dc_framework_fp8_weight_copies),
	 * in every phase, or with FP8 primary weights on Hopper the
	 * transposes of them; fp8_weight_params: the weights they copy (the
	 * layers' parameters but norms and routers, the MTP modules', an FP8
	 * head's); 0 unless megatron under an FP8 recipe, but under deepspeed
	 * and custom with a Transformer Engine recipe the weights TE's copies
	 * would hold (not modelled: fp8_weight_copies_bytes 0) */
	uint64_t fp8_weight_params;
	uint64_t fp8_weight_copies_bytes;
	/* the optimizer step's own: torch's foreach AdamW (training.
	 * optimizer_implementation "foreach") allocates the square roots of
	 * the second moments as a new list each step, one moment's bytes of
	 * the states on the GPU (optimizer_bytes / 2); 0 otherwise */
	uint64_t optimizer_temp_bytes;

	/* per phase: subtotal, allocator reserve on it, and their sum */
	uint64_t phase_subtotal_bytes[DC_MEM_PHASE_COUNT];
	uint64_t phase_reserve_bytes[DC_MEM_PHASE_COUNT];
	uint64_t phase_bytes[DC_MEM_PHASE_COUNT];
	uint64_t peak_bytes;
	enum dc_mem_phase peak_phase;
	int fits;                /* peak_bytes <= cluster.gpu_mem_bytes */
	uint64_t headroom_bytes; /* gpu memory - peak when it fits, else 0 */
	uint64_t shortfall_bytes; /* peak - gpu memory when it does not, else 0 */
};

/* Named formulas (exact, overflow-checked: 0, or -1 on overflow). */

/* Model-state bytes of `params` parameters at `bytes_per_param`, sharded
 * over `shards` ranks when `sharded`: ceil(params / shards) x bytes. */
int dc_state_bytes(uint64_t params, uint64_t bytes_per_param, uint64_t shards, int sharded,
		   uint64_t *out);

/* The allocator reserve on `subtotal` bytes in use: ceil(fraction x
 * subtotal) (memory.allocator_reserve), as every phase of the ledger. */
uint64_t dc_mem_reserve_bytes(uint64_t subtotal, double fraction);

/* Microbatches whose activations stage `stage` holds at its peak under
 * 1F1B (PipeDream-Flush): min(pp - stage, grad_accum_steps); 1 when pp = 1. */
uint64_t dc_pipeline_in_flight(uint64_t pp, uint64_t stage, uint64_t grad_accum_steps);

/* Parameters of one rank on `stage` (tp shards, the vocab-parallel
 * embedding on the first stage and the head on the last, num_experts / ep
 * experts per MoE layer), in O(1) from the plan's shard. Returns 0, or -1
 * on overflow. */
int dc_stage_params_compute(const struct dc_plan *p, uint64_t stage, struct dc_stage_params *out);

/* The stage whose ranks hold the most parameters (the first on a tie) and
 * its placement, from the plan's segment starts (O(1) stages). Returns 0,
 * or -1 when any stage's count overflows. */
int dc_stage_params_most_loaded(const struct dc_plan *p, struct dc_stage_params *out, uint64_t *stage);

/* The ledger of one rank on `stage` (stage_first = stage_last = stage).
 * Returns 0, or -1 with *error set. */
int dc_memory_stage(const struct dc_plan *p, uint64_t stage, struct dc_mem_ledger *l,
		    const char **error);

/* The memory estimator's result: the classes of consecutive stages with
 * identical ledgers are the plan's (dc_plan_class_stages); this holds
 * their count and the ledger of the class with the highest peak (the
 * first on a tie), with stage_first/stage_last set to that class's
 * stages. No array: dc_memory_class_at makes any class's ledger. */
struct dc_memory_result {
	uint64_t nclasses;
	uint64_t most_loaded;     /* the class of `top` */
	struct dc_mem_ledger top;
	/* the host ledger of one node: gpus_per_node ranks of the class with
	 * the most host bytes, against cluster.host_memory */
	uint64_t host_rank_bytes;  /* the most any rank offloads */
	uint64_t host_node_bytes;  /* x gpus_per_node */
	int host_checked;          /* cluster.host_memory given */
	int host_fits;
};

/* Fills *m in O(segments): within a segment of identical parameters a
 * stage's peak never grows from one stage to the next (later stages hold
 * fewer microbatches in flight), so the first stage with the highest peak
 * starts a segment. Returns 0, or -1 with *error set (the first stage, in stage
 * order, whose ledger fails). */
int dc_memory_compute(const struct dc_plan *p, struct dc_memory_result *m, const char **error);

/* The ledger of class `i` (0 <= i < m->nclasses) with stage_first and
 * stage_last set to its stages. Returns 0, or -1 for an i out of range or
 * a ledger that overflows (never, when dc_memory_compute succeeded). */
int dc_memory_class_at(const struct dc_plan *p, const struct dc_memory_result *m, uint64_t i,
		       struct dc_mem_ledger *out);

const char *dc_mem_phase_name(enum dc_mem_phase p);

/* A search's memo of the ledger (one per thread, lent to its plans as
 * plan.h mem_memo). For each of the last plan's candidate stages, what
 * its ledger derives from the activations and the schedule (microbatches
 * in flight, the bytes kept per layer, the embedding's and the head's),
 * kept with every input that part reads: the plan's activation figures
 * (activation.h dc_act_plan), the pipeline's shape and the recompute keys
 * (compared once a computation), the stage and its layers. No sharding is
 * among them, so a layout that differs from the last in its sharding
 * alone takes them whole. And, a row for each sharding, each stage's
 * model states, kept with the shards, the precision's bytes and the
 * offload (once a computation) and the parameters they split. Compared
 * member by member or as bytes: the same values, so the same ledger. Only
 * plans of one run with even chunks under 1F1B, ZB-H1 or the interleaved
 * schedule use the activation part. dc_mem_memo_new returns NULL when out
 * of memory; dc_mem_memo_free(NULL) does nothing. */
struct dc_mem_memo;
struct dc_mem_memo *dc_mem_memo_new(void);
void dc_mem_memo_free(struct dc_mem_memo *m);
#ifdef DISTCALC_VERIFY_MEMOS
/* Tests of the switch only (memo_verify.h): adds one byte to the
 * activation bytes of the layers every slot keeps, so the next hit
 * differs from a fresh computation. */
void dc_mem_memo_corrupt(struct dc_mem_memo *m);
#endif

/* The parameters one rank of pipeline rank `stage` holds under the
 * plan's schedule: the plan's stage, but two stages under DualPipe
 * (stages s and pp - 1 - s) and two chunks under DualPipeV (s and
 * 2pp - 1 - s). Returns 0, or -1 on overflow. */
int dc_memory_rank_params(const struct dc_plan *pl, uint64_t stage, struct dc_stage_params *out);

#endif
