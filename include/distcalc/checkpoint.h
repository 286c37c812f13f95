/* checkpoint.h - what a checkpoint saves, how long it takes, what its save
 * costs in memory, and how a restore into another layout reads it.
 *
 * The state is modelled as the model's items in order: the embedding
 * (with a learned position table), each transformer layer, the final norm
 * with the output head (none when tied). Every element of an item has a
 * parameter, a master copy and optimizer states (precision.*). A rank of
 * the saved layout holds, of each item of its pipeline stage, the k-th of
 * K = tp x dp x cp equal slices (k = tp_rank x dp x cp + dp x cp index:
 * the data-parallel shard sub-slices the tensor-parallel one, as a 2-D
 * DTensor of FSDP2 and TP does), item by item, the slice's bounds
 * floor(E k / K) so that the slices add up to the item exactly. A sharded
 * (PyTorch DCP) save writes each element once: replicated copies (DDP,
 * ZeRO-1 parameters) are deduplicated over the dp x cp group and spread
 * over it, as DCP's save planner does. A restore reads, for each new rank,
 * what it holds on the new layout under parallel.sharding (kept by the
 * restore): a state the sharding replicates over dp' x cp' (DDP: every
 * state; ZeRO-1/2: the parameters) whole per tp' x pp' shard, slice t' of
 * tp'; a sharded one, slice t' G + g of tp' G over its shard group G. A
 * replicated element is read by each of its replicas, so the sum over new
 * ranks is the saved state only when every state is sharded (FSDP).
 * Derivations, sources and worked examples: docs/checkpoint-and-loss.md.
 *
 * Every function that can fail returns 0, or -1 with *error set to static
 * text naming the keys.
 */
#ifndef DISTCALC_CHECKPOINT_H
#define DISTCALC_CHECKPOINT_H

#include <stdint.h>

#include "distcalc/config.h"

struct dc_plan;

/* Small per-rank state, payload bytes (docs/checkpoint-and-loss.md). */
#define DC_CKPT_RNG_BYTES 5072u   /* torch CPU generator state 5056 B + CUDA Philox seed and offset 16 B */
#define DC_CKPT_DATA_BYTES 8u     /* the samples this rank's loader has consumed */
#define DC_CKPT_SCALER_BYTES 40u  /* rank 0: scale, growth and backoff factors, interval, tracker */
#define DC_CKPT_SCHED_BYTES 24u   /* rank 0: the step, the scheduler's last step and its learning rate */

/* One layout's view of the items: degrees and each stage's items. */
struct dc_ckpt_layout {
	uint64_t tp, pp, dpcp, cp;
	uint64_t slices; /* K = tp x dpcp */
	uint64_t world;
	/* the states' shard group G (ZeRO/FSDP: dp x cp / the HSDP replicas,
	 * which divides dpcp) and its replicas dpcp / G; restored layout only */
	uint64_t shard, replicas;
	/* the routed experts (restored layout only): split over ee = ep' x
	 * etp' expert slices, each held by erep = K / ee ranks of a stage
	 * (the expert-data-parallel ones), sharded over eshard of them */
	uint64_t ee, erep, eshard;
};

/* The items' element counts. */
struct dc_ckpt_items {
	uint64_t num_layers, dense_layers; /* the first dense_layers are dense */
	/* > 1: after them, only every moe_every-th layer has routed experts
	 * (model.moe_layer_interval; dc_params_moe_span); 0: all of them */
	uint64_t moe_every;
	uint64_t embedding, dense_layer, moe_layer, head; /* head: final norm, output head, MTP modules */
	/* Gated DeltaNet layers (every full_every-th layer is softmax; 0:
	 * none): dense and MoE layers with that block for attention; a range's
	 * linear layers are counted as its MoE ones first (a layer's size adds
	 * its attention and MLP kinds, so a range's total is exact) */
	uint64_t full_every, linear_dense_layer, linear_moe_layer;
	/* of an MoE layer (softmax or linear) and of the head, the routed
	 * experts' elements (0 for a dense model) */
	uint64_t layer_experts, head_experts;
	uint64_t total; /* = the model's parameters */
};

/* Bytes of one rank of the saved layout, by kind. */
struct dc_ckpt_rank {
	uint64_t stage, tp_rank, dp_rank; /* dp_rank: index in the dp x cp group */
	uint64_t elements;
	uint64_t params_bytes, master_bytes, optimizer_bytes;
	uint64_t scaler_rng_bytes; /* gradient scaler (rank 0) and RNG states */
	uint64_t data_bytes;       /* data-loader position */
	uint64_t sched_bytes;      /* scheduler and step (rank 0) */
	uint64_t total_bytes;
};

/* One rank of the restored layout: what it reads. */
struct dc_ckpt_read {
	uint64_t stage, tp_rank, dp_rank;
	uint64_t old_shards;          /* old ranks whose shards it reads */
	uint64_t first_stage, first_tp, first_dp; /* the first of them, in (stage, k) order */
	uint64_t last_stage, last_tp, last_dp;    /* the last */
	/* the elements of each state it reads, summed over those shards: its
	 * tp' shard of its stage's items for a state held whole over dp' x
	 * cp', its slice of tp' x G of them for a sharded one; of the routed
	 * experts its slice of ep' x etp', or of ep' x etp' x the expert
	 * shard group */
	uint64_t params_elements, master_elements, optimizer_elements;
	uint64_t bytes;               /* each state's elements x its bytes, summed */
	uint64_t next_sample;         /* the first sample its data loader reads */
};

/* checkpoint.staging_bandwidth when not given: cluster.host_bandwidth
 * when the cluster keys give it, else this (PCIe 4.0 x16 in practice). */
#define DC_CKPT_STAGING_BW 25e9

enum dc_ckpt_staging_from {
	DC_CKPT_STAGING_KEY,     /* checkpoint.staging_bandwidth */
	DC_CKPT_STAGING_HOST,    /* cluster.host_bandwidth (config, --set or cluster.system preset) */
	DC_CKPT_STAGING_DEFAULT, /* DC_CKPT_STAGING_BW */
};

enum dc_ckpt_stages {
	DC_CKPT_STAGES_EVEN,  /* the first L mod pp' stages one layer more */
	DC_CKPT_STAGES_GIVEN, /* checkpoint.restore.pipeline_layers */
	DC_CKPT_STAGES_SAVED, /* the saved stages' (pp' = pp, one chunk a stage) */
};

struct dc_checkpoint_result {
	struct dc_ckpt_items items;
	struct dc_ckpt_layout saved, restored;
	enum dc_ckpt_stages new_stages;   /* how the new stages split the layers */
	uint64_t state_bytes_per_element; /* param + master + optimizer bytes */
	uint64_t states_bytes;            /* items.total x that: parameters, master, optimizer */
	uint64_t params_bytes, master_bytes, optimizer_bytes; /* of them, by kind */
	uint64_t extra_bytes;             /* RNG, scaler, data, scheduler over every rank */
	uint64_t saved_bytes;             /* states + extra: every file together */
	struct dc_ckpt_rank rank0;        /* rank 0's bytes (the writer, under full) */
	struct dc_ckpt_rank largest;      /* the rank writing the most (the first on a tie, (stage, k) order) */
	uint64_t largest_rank;            /* its global rank */
	uint64_t writers;                 /* ranks writing model and optimizer state */
	/* time */
	double write_time_s;              /* the bytes at checkpoint.storage_bandwidth */
	double gather_time_s;             /* full: what rank 0 does not hold, over its links */
	uint64_t gather_intra_bytes;      /* of it, from rank 0's NVLink domain (cluster.intra_node) */
	uint64_t gather_inter_bytes;      /* and through its NIC (cluster.inter_node) */
	double staging_bw_bytes_per_s;    /* the staging copy's bandwidth used */
	enum dc_ckpt_staging_from staging_bw_from; /* where it came from */
	double staging_time_s;            /* the copy to host: the largest rank's share, or under full rank 0's whole state */
	double blocking_time_s;           /* what training waits for */
	double save_time_s;               /* until the checkpoint is on storage */
	/* memory of the save phase */
	uint64_t gpu_extra_bytes;         /* above the optimizer step's subtotal, on a rank of gpu_extra_stage */
	uint64_t gpu_extra_stage;         /* the first stage of the memory ledger's most loaded class */
	uint64_t gpu_peak_bytes;          /* the most loaded rank's checkpoint_save phase */
	uint64_t gpu_training_peak_bytes; /* its peak in the other phases */
	uint64_t host_rank_bytes;         /* host memory of the save on the busiest rank */
	uint64_t host_node_bytes;         /* on its node */
	uint64_t save_host_mem_bytes;     /* cluster.host_memory (0: not given) */
	int save_host_fits;               /* host_node_bytes <= it, or it not given */
	int save_gpu_fits;                /* gpu_peak_bytes <= cluster.gpu_memory */
	/* restore: the states of the new layout's sharding (parallel.sharding,
	 * kept), each held whole per tp' x pp' shard (replicated over dp' x cp')
	 * or sharded over restored.shard */
	enum dc_sharding sharding;        /* the plan's parallel.sharding, kept by the restore */
	uint64_t whole_bytes_per_element; /* the bytes of the states held whole */
	uint64_t shard_bytes_per_element; /* the bytes of the sharded ones */
	/* of them, those the ledger keeps on the GPU (parallel.offload keeps
	 * the master copy and optimizer states, and with "optimizer+params"
	 * the parameters too, in host memory) */
	uint64_t whole_gpu_bytes_per_element, shard_gpu_bytes_per_element;
	uint64_t params_readers;          /* new ranks reading each parameter element: dp' x cp', or the replicas */
	uint64_t master_optimizer_readers; /* the same for the master copy and optimizer states */
	uint64_t expert_elements;         /* the routed experts' elements of the model */
	uint64_t expert_params_readers;   /* new ranks reading each routed expert's parameter element */
	uint64_t expert_master_optimizer_readers; /* the same for its master copy and optimizer states */
	uint64_t read_bytes_total;        /* the sum over new ranks of their reads: each state x its readers */
	int read_total_overflow;          /* that sum passes 2^64 (read_bytes_total 0): the report says so */
	uint64_t step;
	uint64_t samples_consumed;        /* step x global batch */
	uint64_t global_batch, new_global_batch;
	uint64_t new_micro_batch, new_grad_accum;
	int batch_kept;                   /* the new dp can keep the global batch */
	uint64_t remaining_check;         /* samples_consumed mod new_global_batch (0: on a step boundary) */
	/* the restore's GPU memory on the new layout (the same GPU model) */
	uint64_t restore_read_max_bytes;  /* the largest new rank's states read */
	uint64_t restore_read_max_rank;   /* that new rank j = stage x K' + k' (the first on a tie) */
	uint64_t restore_gpu_read_max_bytes; /* the most a new rank reads into GPU memory (= read_max without offload) */
	uint64_t restore_buffer_bytes;    /* the load's GPU buffer: 0 sharded; full, the largest tensor x its bytes */
	uint64_t restore_context_bytes;   /* memory.cuda_context */
	uint64_t restore_rank_bytes;      /* GPU states + buffer + context on that rank */
	uint64_t restore_gpu_mem_bytes;   /* cluster.gpu_memory */
	/* parallel.offload: the states not read into GPU memory go to host
	 * memory, on every new rank of a node (as memory.h's host ledger) */
	uint64_t restore_host_rank_bytes; /* the most a new rank reads into host memory */
	uint64_t restore_host_node_bytes; /* x restore_gpus_per_node */
	uint64_t restore_gpus_per_node;   /* checkpoint.restore.gpus_per_node */
	uint64_t restore_host_mem_bytes;  /* cluster.host_memory (0: not given) */
	int restore_host_fits;            /* node bytes <= host memory, or host memory not given */
	int restore_fits;                 /* restore_rank_bytes <= restore_gpu_mem_bytes, and restore_host_fits */
};

/* The items of `p`'s model. Returns 0, or -1 on overflow. */
int dc_ckpt_items_of(const struct dc_plan *p, struct dc_ckpt_items *it, const char **error);

/* Elements of slice k of K of an item of e elements: floor(e (k+1) / K) -
 * floor(e k / K). */
uint64_t dc_ckpt_slice(uint64_t e, uint64_t k, uint64_t K);

/* Elements common to slice k of K and slice k2 of K2 of an item of e. */
uint64_t dc_ckpt_slice_overlap(uint64_t e, uint64_t k, uint64_t K, uint64_t k2, uint64_t K2);

/* Items [*first, *last) of stage s of pp over num_layers layers whose
 * stage s starts at layer first_layer and holds `layers` of them: item 0
 * the embedding, 1..L the layers, L + 1 the head. */
void dc_ckpt_stage_items(uint64_t num_layers, uint64_t pp, uint64_t s, uint64_t first_layer, uint64_t layers,
			 uint64_t *first, uint64_t *last);

/* The first layer of stage s of an even split of L over pp (the first L mod
 * pp stages one more). */
uint64_t dc_ckpt_even_first_layer(uint64_t L, uint64_t pp, uint64_t s);
/* How the restore's new stages split the layers (dc_ckpt_new_stages): as
 * checkpoint.restore.pipeline_layers gives them, as the saved stages do
 * (the saved pp kept, no interleaving), or evenly. */
enum dc_ckpt_stages dc_ckpt_new_stages(const struct dc_plan *p);
/* New stage s's first transformer layer and its layer count. */
void dc_ckpt_new_stage(const struct dc_plan *p, const struct dc_checkpoint_result *c, uint64_t s,
		       uint64_t *first, uint64_t *layers);

/* Elements of slice k of K summed over items [a, b). */
uint64_t dc_ckpt_items_slice(const struct dc_ckpt_items *it, uint64_t a, uint64_t b, uint64_t k, uint64_t K);

/* Rank (s, k) of the saved layout; `rank0` adds rank 0's files. */
void dc_ckpt_rank_of(const struct dc_plan *p, const struct dc_checkpoint_result *c, uint64_t s, uint64_t k,
		     struct dc_ckpt_rank *out);

/* New rank j (= stage x K' + k) of the restored layout. */
void dc_ckpt_read_of(const struct dc_plan *p, const struct dc_checkpoint_result *c, uint64_t j,
		     struct dc_ckpt_read *out);

/* The checkpoint_save phase's bytes above the optimizer step on a rank of
 * pipeline stage `stage` (memory.h): 0 for a sharded save (DCP writes the
 * tensors in place, an async one stages into host memory). Under full
 * only a state a rank holds part of (tp > 1, or sharded over more than
 * one rank: a DTensor) is gathered into a new tensor; one held whole (a
 * plain tensor: DDP, ZeRO's parameters, at tp 1) is passed through. With
 * checkpoint.gather "cpu" one gathered tensor at a time: the model's
 * largest tensor x its largest per-tensor element (Adam's moments are
 * two tensors of optimizer_bytes / 2); with "gpu", the stage's items
 * whole of every split state: the stage's elements x those states'
 * bytes. Routed experts under ep > 1 are split whatever the sharding.
 * Returns 0, or -1 on overflow. */
int dc_ckpt_gpu_extra(const struct dc_plan *p, uint64_t stage, uint64_t *out);

/* The estimator. Needs the memory result (its ledger's checkpoint_save
 * phase) and the batch. */
struct dc_memory_result;
struct dc_batch;
int dc_checkpoint_compute(const struct dc_plan *p, const struct dc_memory_result *m, const struct dc_batch *b,
			  struct dc_checkpoint_result *c, const char **error);

#endif
