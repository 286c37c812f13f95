/* sec_checkpoint.c - `--experiment checkpoint`: the bytes each rank saves
 * by kind, the save's time and memory, the restore into
 * checkpoint.restore.*, and the acceptance conditions with this layout's
 * numbers. docs/checkpoint-and-loss.md. The acceptance conditions are
 * prose with numbers in them: the view formats them once, as a row
 * function formats a row's text. */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "distcalc/checkpoint.h"
#include "distcalc/memory.h"
#include "distcalc/plan.h"
#include "distcalc/results.h"
#include "distcalc/section.h"

struct restore_view {
	const struct dc_plan *plan;
	const struct dc_checkpoint_result *c;
	uint64_t tp, pp, dp, cp, ep, num_nodes, gpus_per_node, world;
	uint64_t step, samples_consumed, global_batch, new_global_batch, new_micro_batch, new_grad_accum;
	int batch_kept;
	uint64_t read_bytes_total, states_bytes, params_readers, master_optimizer_readers;
	uint64_t expert_elements, expert_params_readers, expert_master_optimizer_readers;
	int read_total_overflow; /* the sum passes 2^64: null */
	int conserved;
	const char *batch_note;
	const char *stages; /* how the new stages split the layers */
	uint64_t read_max_rank, read_max_bytes, gpu_read_max_bytes, buffer_bytes, context_bytes, rank_bytes, gpu_mem_bytes;
	uint64_t host_rank_bytes, host_node_bytes, host_mem_bytes;
	int fits, offloaded;
};

#define NACCEPT 8u

struct view {
	const struct dc_plan *plan;
	const struct dc_checkpoint_result *c;
	const char *format, *gather, *note;
	int async;
	double storage_bw_bytes_per_s;
	uint64_t writers, params_bytes, master_bytes, optimizer_bytes, extra_bytes, saved_bytes;
	uint64_t largest_rank, largest_bytes;
	double write_time_s, gather_time_s, staging_time_s, blocking_time_s, save_time_s;
	uint64_t gather_intra_bytes, gather_inter_bytes;
	double staging_bw_bytes_per_s;
	const char *staging_bw_from;
	char staging_from_text[96]; /* cluster.host_bandwidth and where it came from */
	uint64_t gpu_extra_bytes, gpu_peak_bytes, gpu_training_peak_bytes, host_rank_bytes, host_node_bytes;
	uint64_t save_host_mem_bytes;
	int save_host_fits, save_gpu_fits, full, staged;
	struct restore_view restore;
	/* "scenario: condition", one a line, each from accept_at[i] in one
	 * pool (the lines differ much in length) */
	uint16_t accept_at[NACCEPT];
	char accept[6800];
};

/* ---- every rank's bytes ---- */

struct rank_row {
	uint64_t rank, stage, tp, dp;
	uint64_t params_bytes, master_bytes, optimizer_bytes, scaler_rng_bytes, data_bytes, sched_bytes, total_bytes;
	double write_time_s;          /* its bytes at an equal 1/N share of the storage bandwidth */
	uint64_t gpu_save_peak_bytes; /* its stage's ledger, checkpoint_save phase */
	uint64_t host_save_bytes;     /* host memory its save holds */
};

static uint64_t rank_count(const void *base)
{
	return ((const struct view *)base)->c->saved.world;
}

static void rank_at(const void *base, uint64_t i, void *out)
{
	const struct view *v = base;
	const struct dc_topology *t = &v->plan->topo;
	struct rank_row *r = out;
	struct dc_ckpt_rank k;
	uint64_t coord[DC_AXIS_COUNT], ep, cp, d;

	dc_topology_coords(t, i, coord);
	ep = t->degree[DC_AXIS_EP] ? t->degree[DC_AXIS_EP] : 1;
	cp = v->c->saved.cp;
	d = (coord[DC_AXIS_DP] * ep + coord[DC_AXIS_EP]) * cp + coord[DC_AXIS_CP];
	dc_ckpt_rank_of(v->plan, v->c, coord[DC_AXIS_PP], coord[DC_AXIS_TP] * v->c->saved.dpcp + d, &k);
	r->rank = i;
	r->stage = k.stage;
	r->tp = k.tp_rank;
	r->dp = k.dp_rank;
	r->params_bytes = k.params_bytes;
	r->master_bytes = k.master_bytes;
	r->optimizer_bytes = k.optimizer_bytes;
	r->scaler_rng_bytes = k.scaler_rng_bytes;
	r->data_bytes = k.data_bytes;
	r->sched_bytes = k.sched_bytes;
	r->total_bytes = k.total_bytes;
	/* every writer shares the aggregate bandwidth; under full rank 0
	 * writes alone */
	r->write_time_s = (double)k.total_bytes /
			  (v->storage_bw_bytes_per_s / (v->plan->in->checkpoint.format == DC_CKPT_FULL && i == 0
								? 1.0
								: (double)v->c->saved.world));
	{
		struct dc_mem_ledger l;
		r->gpu_save_peak_bytes =
			dc_memory_stage(v->plan, k.stage, &l, NULL) == 0 ? l.phase_bytes[DC_MEM_CHECKPOINT] : 0;
	}
	if (v->plan->in->checkpoint.format == DC_CKPT_FULL)
		r->host_save_bytes = i == 0 ? k.total_bytes : 0;
	else if (v->async)
		r->host_save_bytes = k.total_bytes;
}

#define R(m) offsetof(struct rank_row, m)
static const struct dc_field rank_fields[] = {
	{"rank", "rank", DC_U_COUNT, DC_FT_U64, R(rank)},
	{"stage", "stage", DC_U_COUNT, DC_FT_U64, R(stage)},
	{"tp_rank", "tp", DC_U_COUNT, DC_FT_U64, R(tp)},
	{"dp_rank", "dp x cp", DC_U_COUNT, DC_FT_U64, R(dp)},
	{"params_bytes", "parameters", DC_U_BYTES_RAW, DC_FT_U64, R(params_bytes)},
	{"master_bytes", "master copy", DC_U_BYTES_RAW, DC_FT_U64, R(master_bytes)},
	{"optimizer_bytes", "optimizer", DC_U_BYTES_RAW, DC_FT_U64, R(optimizer_bytes)},
	{"scaler_rng_bytes", "scaler + RNG", DC_U_BYTES_RAW, DC_FT_U64, R(scaler_rng_bytes)},
	{"data_bytes", "data position", DC_U_BYTES_RAW, DC_FT_U64, R(data_bytes)},
	{"sched_bytes", "scheduler + step", DC_U_BYTES_RAW, DC_FT_U64, R(sched_bytes)},
	{"total_bytes", "total", DC_U_BYTES, DC_FT_U64, R(total_bytes)},
	{"write_time_s", "write at 1/N", DC_U_SECONDS, DC_FT_F64, R(write_time_s)},
	{"gpu_save_peak_bytes", "save peak, GPU", DC_U_BYTES, DC_FT_U64, R(gpu_save_peak_bytes)},
	{"host_save_bytes", "save, host", DC_U_BYTES, DC_FT_U64, R(host_save_bytes)},
};
static const struct dc_fields rank_table = DC_FIELDS(rank_fields);
static const struct dc_rows rank_rows = {rank_count, rank_at, sizeof(struct rank_row), "ranks"};

/* ---- the restore ---- */

struct read_row {
	uint64_t index, stage, tp, dp, old_shards;
	char first[48], last[48];
	uint64_t bytes, next_sample;
};

static uint64_t read_count(const void *base)
{
	return ((const struct restore_view *)base)->world;
}

static void read_at(const void *base, uint64_t i, void *out)
{
	const struct restore_view *v = base;
	struct read_row *r = out;
	struct dc_ckpt_read d;
	dc_ckpt_read_of(v->plan, v->c, i, &d);
	r->index = i;
	r->stage = d.stage;
	r->tp = d.tp_rank;
	r->dp = d.dp_rank;
	r->old_shards = d.old_shards;
	dc_text_fmt(r->first, sizeof(r->first), "stage %llu tp %llu dp %llu", (unsigned long long)d.first_stage,
		    (unsigned long long)d.first_tp, (unsigned long long)d.first_dp);
	dc_text_fmt(r->last, sizeof(r->last), "stage %llu tp %llu dp %llu", (unsigned long long)d.last_stage,
		    (unsigned long long)d.last_tp, (unsigned long long)d.last_dp);
	r->bytes = d.bytes;
	r->next_sample = d.next_sample;
}

#define D(m) offsetof(struct read_row, m)
static const struct dc_field read_fields[] = {
	{"new_rank", "new (stage, k)", DC_U_COUNT, DC_FT_U64, D(index)},
	{"stage", "stage", DC_U_COUNT, DC_FT_U64, D(stage)},
	{"tp_rank", "tp", DC_U_COUNT, DC_FT_U64, D(tp)},
	{"dp_rank", "dp x cp", DC_U_COUNT, DC_FT_U64, D(dp)},
	{"old_shards", "old shards read", DC_U_COUNT, DC_FT_U64, D(old_shards)},
	{"first_shard", "first", DC_U_NONE, DC_FT_TEXT, D(first)},
	{"last_shard", "last", DC_U_NONE, DC_FT_TEXT, D(last)},
	{"read_bytes", "bytes read", DC_U_BYTES, DC_FT_U64, D(bytes)},
	{"next_sample", "next sample", DC_U_COUNT, DC_FT_U64, D(next_sample)},
};
static const struct dc_fields read_table = DC_FIELDS(read_fields);
static const struct dc_rows read_rows = {read_count, read_at, sizeof(struct read_row), "new ranks"};

static int total_overflows(const void *base)
{
	return ((const struct restore_view *)base)->read_total_overflow;
}

/* the routed experts' reader counts: a MoE model's alone */
static int has_experts(const void *base)
{
	return ((const struct restore_view *)base)->expert_elements != 0;
}

static int offloaded(const void *base)
{
	return ((const struct restore_view *)base)->offloaded;
}

/* the host's memory is checked when given (cluster.host_memory) */
static int host_checked(const void *base)
{
	const struct restore_view *r = base;
	return r->offloaded && r->host_mem_bytes;
}

#define RV(m) offsetof(struct restore_view, m)
static const struct dc_field restore_fields[] = {
	{"tp", "tp", DC_U_COUNT, DC_FT_U64, RV(tp)},
	{"pp", "pp", DC_U_COUNT, DC_FT_U64, RV(pp)},
	{"stages", "the new stages' layers", DC_U_NONE, DC_FT_STR, RV(stages)},
	{"dp", "dp", DC_U_COUNT, DC_FT_U64, RV(dp)},
	{"cp", "cp", DC_U_COUNT, DC_FT_U64, RV(cp)},
	{"ep", "ep", DC_U_COUNT, DC_FT_U64, RV(ep)},
	{"num_nodes", "nodes", DC_U_COUNT, DC_FT_U64, RV(num_nodes)},
	{"gpus_per_node", "GPUs per node", DC_U_COUNT, DC_FT_U64, RV(gpus_per_node)},
	{"world", "ranks", DC_U_COUNT, DC_FT_U64, RV(world)},
	{"states_bytes", "saved states (parameters, master, optimizer)", DC_U_BYTES, DC_FT_U64, RV(states_bytes)},
	{"read_bytes_total", "read by the new ranks, summed", DC_U_BYTES, DC_FT_U64, RV(read_bytes_total),
	 .is_null = total_overflows},
	{"params_readers", "new ranks reading each parameter", DC_U_COUNT, DC_FT_U64, RV(params_readers)},
	{"master_optimizer_readers", "new ranks reading each master/optimizer value", DC_U_COUNT, DC_FT_U64,
	 RV(master_optimizer_readers)},
	{"expert_params_readers", "new ranks reading each expert parameter", DC_U_COUNT, DC_FT_U64,
	 RV(expert_params_readers), .shown = has_experts},
	{"expert_master_optimizer_readers", "new ranks reading each expert master/opt. value",
	 DC_U_COUNT, DC_FT_U64, RV(expert_master_optimizer_readers), .shown = has_experts},
	{"every_element_once", "every element read exactly once", DC_U_NONE, DC_FT_BOOL, RV(conserved)},
	{"largest_read_rank", "the new rank reading the most (stage x K' + k')", DC_U_COUNT, DC_FT_U64, RV(read_max_rank)},
	{"largest_read_bytes", "its states", DC_U_BYTES, DC_FT_U64, RV(read_max_bytes)},
	{"largest_gpu_read_bytes", "the most read into GPU memory (offload: the rest to host)",
	 DC_U_BYTES, DC_FT_U64, RV(gpu_read_max_bytes), .shown = offloaded},
	{"largest_host_read_bytes", "the most read into host memory (offloaded states)", DC_U_BYTES, DC_FT_U64,
	 RV(host_rank_bytes), .shown = offloaded},
	{"host_node_read_bytes", "on its node (x GPUs per node)", DC_U_BYTES, DC_FT_U64, RV(host_node_bytes),
	 .shown = offloaded},
	{"host_memory_bytes", "host memory (cluster.host_memory)", DC_U_BYTES, DC_FT_U64, RV(host_mem_bytes),
	 .shown = host_checked},
	{"restore_buffer_bytes", "the load's GPU buffer (full: largest tensor)", DC_U_BYTES, DC_FT_U64,
	 RV(buffer_bytes)},
	{"cuda_context_bytes", "CUDA context (memory.cuda_context)", DC_U_BYTES, DC_FT_U64, RV(context_bytes)},
	{"restore_rank_bytes", "its GPU memory to restore", DC_U_BYTES, DC_FT_U64, RV(rank_bytes)},
	{"gpu_memory_bytes", "GPU memory (cluster.gpu_memory)", DC_U_BYTES, DC_FT_U64, RV(gpu_mem_bytes)},
	{"restore_fits", "the restored states fit", DC_U_NONE, DC_FT_BOOL, RV(fits)},
	{"step", "step saved at (checkpoint.step)", DC_U_COUNT, DC_FT_U64, RV(step)},
	{"global_batch", "global batch saved", DC_U_COUNT, DC_FT_U64, RV(global_batch)},
	{"samples_consumed", "samples consumed (step x global batch)", DC_U_COUNT, DC_FT_U64, RV(samples_consumed)},
	{"global_batch_kept", "global batch kept", DC_U_NONE, DC_FT_BOOL, RV(batch_kept)},
	{"new_global_batch", "global batch after restore", DC_U_COUNT, DC_FT_U64, RV(new_global_batch)},
	{"new_micro_batch_size", "micro batch after restore", DC_U_COUNT, DC_FT_U64, RV(new_micro_batch)},
	{"new_grad_accum_steps", "grad accum steps after restore", DC_U_COUNT, DC_FT_U64, RV(new_grad_accum)},
	{"batch_note", "what changes", DC_U_NONE, DC_FT_STR, RV(batch_note)},
	{"ranks", "Reads of each new rank", DC_U_NONE, DC_FT_ROWS, 0, .sub = &read_table, .rows = &read_rows},
};
static const struct dc_fields restore_table = DC_FIELDS(restore_fields);

/* ---- acceptance conditions ---- */


static double gib(uint64_t b)
{
	return (double)b / (1024.0 * 1024.0 * 1024.0);
}

struct accept_row {
	const char *scenario;
	char condition[800];
};

/* condition i with this layout's numbers */
static void accept_text(const struct dc_config *in, const struct dc_checkpoint_result *c, uint64_t i,
			struct accept_row *r)
{
	unsigned long long N = (unsigned long long)c->saved.world, S = (unsigned long long)c->step;
	const char *fail = "one rank fails to save", *re = "restore to a different world size";
	/* a full save: rank 0 writes one file (checkpoint.format "full") */
	int full = c->writers == 1 && in->checkpoint.format == DC_CKPT_FULL;
	/* the same layout: each new rank has an old rank's coordinates (the
	 * world alone can stay while tp, pp or dp x cp move) */
	int same = c->restored.tp == c->saved.tp && c->restored.pp == c->saved.pp &&
		   c->restored.dpcp == c->saved.dpcp && c->restored.cp == c->saved.cp;

	switch (i) {
	case 0:
		r->scenario = fail;
		if (full)
			snprintf(r->condition, sizeof(r->condition),
				 "nothing is committed without the whole file: the step-%llu checkpoint counts only when rank 0's file (%llu bytes, %.2f GiB) is written whole, after every one of the %llu ranks gave it its state; a rank failing in the gather means no file, and the last checkpoint stands",
				 S, (unsigned long long)c->saved_bytes, gib(c->saved_bytes), N);
		else
			snprintf(r->condition, sizeof(r->condition),
				 "nothing is committed without every shard and the metadata: the step-%llu checkpoint counts only when all %llu ranks' files (%llu bytes, %.2f GiB) are written and rank 0 has written the metadata after every rank reported success; one failing rank means no metadata, and the loader refuses a directory without it",
				 S, N, (unsigned long long)c->saved_bytes, gib(c->saved_bytes));
		break;
	case 1:
		r->scenario = fail;
		{
			/* the save's host memory (full: rank 0's state dict;
			 * async: the node's staging copies), as the restore's */
			char host[240] = "";
			const char *what = c->writers == 1 ? "rank 0's state dict" : "the node's staging copies";
			if (c->host_node_bytes && c->save_host_mem_bytes)
				snprintf(host, sizeof(host), "; the save's host memory, %s, %.2f GiB against %.2f GiB (cluster.host_memory; %s)",
					 what, gib(c->host_node_bytes), gib(c->save_host_mem_bytes),
					 c->save_host_fits ? "holds" : "FAILS");
			else if (c->host_node_bytes)
				snprintf(host, sizeof(host), "; the save's host memory, %s, %.2f GiB (cluster.host_memory not given: not checked)",
					 what, gib(c->host_node_bytes));
			/* the save phase's GPU peak (the ledger's checkpoint_save
			 * phase of the most loaded rank): a save that does not fit
			 * fails the same way (a student found it judged nowhere) */
			char gpu[200];
			snprintf(gpu, sizeof(gpu), "; the save's GPU memory, the most loaded rank's peak %.2f GiB against %.2f GiB (cluster.gpu_memory; %s)",
				 gib(c->gpu_peak_bytes), gib(in->cluster.gpu_mem_bytes),
				 c->save_gpu_fits ? "holds" : "FAILS: out of memory in the save");
			snprintf(r->condition, sizeof(r->condition),
				 "the previous checkpoint stays loadable: it is deleted only after step %llu is committed, so storage holds two checkpoints (%.2f GiB) and a failed save at %.1f s leaves the last one whole%s%s",
				 S, gib(c->saved_bytes) * 2, c->save_time_s, gpu, host);
		}
		break;
	case 2:
		r->scenario = fail;
		if (full)
			dc_text_fmt(r->condition, sizeof(r->condition),
				    "all ranks agree on the step: the file records step %llu (and %llu samples consumed), and every rank that loads it resumes there; a load checks the scheduler and data position against it and stops otherwise",
				    S, (unsigned long long)c->samples_consumed);
		else
			dc_text_fmt(r->condition, sizeof(r->condition),
				    "all ranks agree on the step: every one of the %llu shards and the metadata record step %llu (and %llu samples consumed); a load checks them equal and stops otherwise",
				    N, S, (unsigned long long)c->samples_consumed);
		break;
	case 3:
		r->scenario = re;
		if (c->params_readers == 1 && c->master_optimizer_readers == 1 &&
		    (!c->expert_elements ||
		     (c->expert_params_readers == 1 && c->expert_master_optimizer_readers == 1)))
			dc_text_fmt(r->condition, sizeof(r->condition),
				    "every element read exactly once: the %llu new ranks read %llu bytes of parameters, master copy and optimizer states, summed, equal to the %llu saved (%s)",
				    (unsigned long long)c->restored.world, (unsigned long long)c->read_bytes_total,
				    (unsigned long long)c->states_bytes,
				    c->read_bytes_total == c->states_bytes ? "holds" : "FAILS");
		else if (c->expert_elements && !c->read_total_overflow)
			dc_text_fmt(r->condition, sizeof(r->condition),
				    "every element read by each new rank holding it, not once: each parameter by %llu new ranks and each master and optimizer element by %llu (their replicas under sharding %s), of the routed experts by %llu and %llu (the expert-data-parallel ranks), %llu bytes summed over the %llu new ranks against the %llu saved",
				    (unsigned long long)c->params_readers, (unsigned long long)c->master_optimizer_readers,
				    dc_sharding_name(c->sharding), (unsigned long long)c->expert_params_readers,
				    (unsigned long long)c->expert_master_optimizer_readers,
				    (unsigned long long)c->read_bytes_total, (unsigned long long)c->restored.world,
				    (unsigned long long)c->states_bytes);
		else if (c->expert_elements)
			dc_text_fmt(r->condition, sizeof(r->condition),
				    "every element read by each new rank holding it, not once: each parameter by %llu new ranks and each master and optimizer element by %llu (their replicas under sharding %s), of the routed experts by %llu and %llu (the expert-data-parallel ranks), more than 2^64 bytes summed over the %llu new ranks against the %llu saved",
				    (unsigned long long)c->params_readers, (unsigned long long)c->master_optimizer_readers,
				    dc_sharding_name(c->sharding), (unsigned long long)c->expert_params_readers,
				    (unsigned long long)c->expert_master_optimizer_readers,
				    (unsigned long long)c->restored.world, (unsigned long long)c->states_bytes);
		else if (c->read_total_overflow)
			dc_text_fmt(r->condition, sizeof(r->condition),
				    "every element read by each new rank holding it, not once: each parameter by %llu new ranks, each master and optimizer element by %llu (their replicas under sharding %s), more than 2^64 bytes summed over the %llu new ranks against the %llu saved",
				    (unsigned long long)c->params_readers, (unsigned long long)c->master_optimizer_readers,
				    dc_sharding_name(c->sharding), (unsigned long long)c->restored.world,
				    (unsigned long long)c->states_bytes);
		else
			dc_text_fmt(r->condition, sizeof(r->condition),
				    "every element read by each new rank holding it, not once: each parameter by %llu new ranks, each master and optimizer element by %llu (their replicas under sharding %s), %llu bytes summed over the %llu new ranks against the %llu saved",
				    (unsigned long long)c->params_readers, (unsigned long long)c->master_optimizer_readers,
				    dc_sharding_name(c->sharding), (unsigned long long)c->read_bytes_total,
				    (unsigned long long)c->restored.world, (unsigned long long)c->states_bytes);
		break;
	case 4:
		r->scenario = re;
		if (c->restore_gpu_read_max_bytes != c->restore_read_max_bytes) {
			/* parallel.offload: the offloaded states go to host memory */
			char host[200];
			int gpu_fits = c->restore_rank_bytes <= c->restore_gpu_mem_bytes;
			if (c->restore_host_mem_bytes)
				snprintf(host, sizeof(host), "; on the host, %.2f GiB a rank x %llu GPUs a node = %.2f GiB against %.2f GiB (cluster.host_memory; %s)",
					 gib(c->restore_host_rank_bytes), (unsigned long long)c->restore_gpus_per_node,
					 gib(c->restore_host_node_bytes), gib(c->restore_host_mem_bytes),
					 c->restore_host_fits ? "holds" : "FAILS");
			else
				snprintf(host, sizeof(host), "; on the host, %.2f GiB a rank, %.2f GiB a node (cluster.host_memory not given: not checked)",
					 gib(c->restore_host_rank_bytes), gib(c->restore_host_node_bytes));
			snprintf(r->condition, sizeof(r->condition),
				 "every new rank's states fit its GPU: the most a new rank reads into GPU memory, %.2f GiB of states (of the largest read, new rank %llu's %.2f GiB; the offloaded states go to host memory, parallel.offload), + %.2f GiB of load buffer + %.2f GiB of CUDA context = %.2f GiB against %.2f GiB (%s)%s",
				 gib(c->restore_gpu_read_max_bytes), (unsigned long long)c->restore_read_max_rank,
				 gib(c->restore_read_max_bytes), gib(c->restore_buffer_bytes), gib(c->restore_context_bytes),
				 gib(c->restore_rank_bytes), gib(c->restore_gpu_mem_bytes), gpu_fits ? "holds" : "FAILS", host);
			break;
		}
		snprintf(r->condition, sizeof(r->condition),
			 "every new rank's states fit its GPU: the largest read, new rank %llu's %.2f GiB of states, + %.2f GiB of load buffer + %.2f GiB of CUDA context = %.2f GiB against %.2f GiB (%s)",
			 (unsigned long long)c->restore_read_max_rank, gib(c->restore_read_max_bytes),
			 gib(c->restore_buffer_bytes), gib(c->restore_context_bytes), gib(c->restore_rank_bytes),
			 gib(c->restore_gpu_mem_bytes), c->restore_fits ? "holds" : "FAILS");
		break;
	case 5:
		r->scenario = re;
		dc_text_fmt(r->condition, sizeof(r->condition),
			    "step, scheduler and data position consistent: the optimizer step and the scheduler resume at %llu, the data at sample %llu (= %llu x %llu), split over the new dp of %llu with no sample skipped or repeated%s",
			    S, (unsigned long long)c->samples_consumed, S, (unsigned long long)c->global_batch,
			    (unsigned long long)(c->restored.dpcp / c->restored.cp),
			    c->batch_kept ? "" : "; the global batch changes, so the schedule must count samples, not steps");
		break;
	case 6:
		r->scenario = re;
		dc_text_fmt(r->condition, sizeof(r->condition),
			    "RNG consistent: %llu RNG states were saved for %llu new ranks; %s",
			    N, (unsigned long long)c->restored.world,
			    same ? "each new rank loads the state of the rank with its coordinates"
				 : c->restored.world == c->saved.world
				       ? "as many, but the layout moves (tp, pp or dp x cp), so no new rank has an old rank's coordinates: every rank reseeds from (seed, step, new rank), and dropout masks differ from the old run's"
				       : "they cannot map one to one: every rank reseeds from (seed, step, new rank), and dropout masks differ from the old run's");
		break;
	default:
		r->scenario = re;
		if (!c->batch_kept)
			/* another global batch: step S + 1 averages other samples
			 * (a student read the step-for-step test beside "expect a
			 * different loss curve") */
			dc_text_fmt(r->condition, sizeof(r->condition),
				    "a restorable run, not just loadable weights: the global batch changes (%llu to %llu samples), so step %llu averages other samples than without the restart and its loss is not compared step for step; the loss over the next steps stays within the run's step-to-step noise of its trend, and a jump above it means state was lost",
				    (unsigned long long)c->global_batch, (unsigned long long)c->new_global_batch, S + 1);
		else if (in->model.dropout && !same)
			dc_text_fmt(r->condition, sizeof(r->condition),
				    "a restorable run, not just loadable weights: the dropout masks differ from the old run's (the RNG reseeds, above), so the loss of step %llu is not compared step for step; the mean loss of the next steps equals the old run's within its dropout noise, and a larger gap means state was lost",
				    S + 1);
		else
			dc_text_fmt(r->condition, sizeof(r->condition),
				    "a restorable run, not just loadable weights: the loss of step %llu after the restore equals the loss of that step without the restart within 1e-3 relative (BF16 reductions summed in another order); a larger gap means state was lost",
				    S + 1);
		break;
	}
}

static uint64_t accept_count(const void *base)
{
	(void)base;
	return NACCEPT;
}

static const char *accept_at(const void *base, uint64_t i)
{
	const struct view *v = base;
	return v->accept + v->accept_at[i];
}

static const struct dc_prose accept_prose = {accept_count, accept_at};

static void view(const struct dc_run *run, void *out)
{
	struct view *v = out;
	const struct dc_checkpoint_result *c = &run->res->checkpoint;
	const struct dc_config *in = run->plan->in;
	struct restore_view *r = &v->restore;

	v->plan = run->plan;
	v->c = c;
	v->format = dc_ckpt_format_name(in->checkpoint.format);
	v->async = in->checkpoint.async;
	v->gather = in->checkpoint.format == DC_CKPT_FULL ? dc_ckpt_gather_name(in->checkpoint.gather) : "none (sharded)";
	v->note = in->checkpoint.format != DC_CKPT_FULL
			  ? "sharded (PyTorch DCP): every rank writes its slice once, replicated copies deduplicated over dp x cp"
		  : in->checkpoint.gather == DC_CKPT_GATHER_GPU
			  ? "full, gathered on the GPU (get_state_dict cpu_offload=False): every rank keeps its stage's whole state dict on the GPU before rank 0 writes (a state it holds whole is not copied); the save phase holds it"
			  : "full, gathered to the host (cpu_offload=True): one tensor at a time on the GPU, rank 0 keeps the state dict in host memory and writes it";
	v->storage_bw_bytes_per_s = in->checkpoint.storage_bw_bytes_per_s;
	v->writers = c->writers;
	v->params_bytes = c->params_bytes;
	v->master_bytes = c->master_bytes;
	v->optimizer_bytes = c->optimizer_bytes;
	v->extra_bytes = c->extra_bytes;
	v->saved_bytes = c->saved_bytes;
	v->largest_rank = c->largest_rank;
	v->largest_bytes = c->largest.total_bytes;
	v->write_time_s = c->write_time_s;
	v->gather_time_s = c->gather_time_s;
	v->staging_time_s = c->staging_time_s;
	v->blocking_time_s = c->blocking_time_s;
	v->save_time_s = c->save_time_s;
	v->gather_intra_bytes = c->gather_intra_bytes;
	v->gather_inter_bytes = c->gather_inter_bytes;
	v->staging_bw_bytes_per_s = c->staging_bw_bytes_per_s;
	v->staging_bw_from = c->staging_bw_from == DC_CKPT_STAGING_KEY    ? "checkpoint.staging_bandwidth"
			     : c->staging_bw_from == DC_CKPT_STAGING_HOST ? "cluster.host_bandwidth"
									  : "default (25 GB/s)";
	if (c->staging_bw_from == DC_CKPT_STAGING_HOST) {
		/* the host link's own origin: the config, a --set or a
		 * cluster.system preset (a trial read "cluster.host_bandwidth"
		 * where no key gave it, dgx-a100's preset did) */
		char o[64];
		snprintf(v->staging_from_text, sizeof(v->staging_from_text), "cluster.host_bandwidth (%s)",
			 dc_config_origin_of(in, "cluster.host_bandwidth", o, sizeof(o)));
		v->staging_bw_from = v->staging_from_text;
	}
	v->full = in->checkpoint.format == DC_CKPT_FULL;
	v->staged = in->checkpoint.async && !v->full;
	v->save_host_mem_bytes = c->save_host_mem_bytes;
	v->save_host_fits = c->save_host_fits;
	v->gpu_extra_bytes = c->gpu_extra_bytes;
	v->gpu_peak_bytes = c->gpu_peak_bytes;
	v->save_gpu_fits = c->save_gpu_fits;
	v->gpu_training_peak_bytes = c->gpu_training_peak_bytes;
	v->host_rank_bytes = c->host_rank_bytes;
	v->host_node_bytes = c->host_node_bytes;

	r->plan = run->plan;
	r->c = c;
	r->tp = in->checkpoint.restore.tp;
	r->pp = in->checkpoint.restore.pp;
	r->dp = in->checkpoint.restore.dp;
	r->cp = in->checkpoint.restore.cp;
	r->ep = in->checkpoint.restore.ep;
	r->num_nodes = in->checkpoint.restore.num_nodes;
	r->gpus_per_node = in->checkpoint.restore.gpus_per_node;
	r->world = c->restored.world;
	r->stages = c->new_stages == DC_CKPT_STAGES_GIVEN   ? "as given (checkpoint.restore.pipeline_layers)"
		    : c->new_stages == DC_CKPT_STAGES_SAVED ? "as saved (the same pp, one chunk a stage)"
							    : "even (the first num_layers mod pp stages one more)";
	r->states_bytes = c->states_bytes;
	r->read_bytes_total = c->read_bytes_total;
	r->params_readers = c->params_readers;
	r->master_optimizer_readers = c->master_optimizer_readers;
	r->expert_elements = c->expert_elements;
	r->expert_params_readers = c->expert_params_readers;
	r->expert_master_optimizer_readers = c->expert_master_optimizer_readers;
	r->conserved = !c->read_total_overflow && c->read_bytes_total == c->states_bytes;
	r->read_total_overflow = c->read_total_overflow;
	r->step = c->step;
	r->samples_consumed = c->samples_consumed;
	r->global_batch = c->global_batch;
	r->new_global_batch = c->new_global_batch;
	r->new_micro_batch = c->new_micro_batch;
	r->new_grad_accum = c->new_grad_accum;
	r->batch_kept = c->batch_kept;
	r->read_max_rank = c->restore_read_max_rank;
	r->read_max_bytes = c->restore_read_max_bytes;
	r->gpu_read_max_bytes = c->restore_gpu_read_max_bytes;
	r->host_rank_bytes = c->restore_host_rank_bytes;
	r->host_node_bytes = c->restore_host_node_bytes;
	r->host_mem_bytes = c->restore_host_mem_bytes;
	r->offloaded = in->parallel.offload != DC_OFFLOAD_NONE;
	r->buffer_bytes = c->restore_buffer_bytes;
	r->context_bytes = c->restore_context_bytes;
	r->rank_bytes = c->restore_rank_bytes;
	r->gpu_mem_bytes = c->restore_gpu_mem_bytes;
	r->fits = c->restore_fits;
	for (size_t i = 0, at = 0; i < NACCEPT; i++) {
		struct accept_row a;
		size_t room = sizeof(v->accept) - at;
		accept_text(in, c, i, &a);
		/* what a line cannot hold is cut, as its own buffer would (the
		 * room left is at least a condition's, so never 0) */
		v->accept_at[i] = (uint16_t)at;
		dc_text_fmt(v->accept + at, room, "%s: %s", a.scenario, a.condition);
		at += strlen(v->accept + at) + 1;
		if (at > sizeof(v->accept) - 1)
			at = sizeof(v->accept) - 1;
	}
	r->batch_note = c->batch_kept
				? "nothing: the same samples per step, each replica's share split into micro batch x grad accum steps"
				: "the global batch cannot stay (the new dp does not divide it): tokens per step change, so rescale the learning rate (linear or square-root rule), count the schedule's warmup and decay in samples, and expect a different loss curve from here";
}

static int is_full(const void *base)
{
	return ((const struct view *)base)->full;
}

static int is_staged(const void *base)
{
	return ((const struct view *)base)->staged;
}

/* the save holds host memory and cluster.host_memory is given */
static int save_host_checked(const void *base)
{
	const struct view *v = base;
	return v->host_node_bytes && v->save_host_mem_bytes;
}

#define V(m) offsetof(struct view, m)
static const struct dc_field fields[] = {
	{"format", "format (checkpoint.format)", DC_U_NONE, DC_FT_STR, V(format)},
	{"gather", "gather (checkpoint.gather)", DC_U_NONE, DC_FT_STR, V(gather)},
	{"async", "async (checkpoint.async)", DC_U_NONE, DC_FT_BOOL, V(async)},
	{"note", "note", DC_U_NONE, DC_FT_STR, V(note)},
	{"writers", "ranks writing model and optimizer state", DC_U_COUNT, DC_FT_U64, V(writers)},
	{"params_bytes", "parameters, all ranks", DC_U_BYTES, DC_FT_U64, V(params_bytes)},
	{"master_bytes", "master copy, all ranks", DC_U_BYTES, DC_FT_U64, V(master_bytes)},
	{"optimizer_bytes", "optimizer states, all ranks", DC_U_BYTES, DC_FT_U64, V(optimizer_bytes)},
	{"small_state_bytes", "scaler, RNG, data position, scheduler, step", DC_U_BYTES_RAW, DC_FT_U64, V(extra_bytes)},
	{"saved_bytes", "checkpoint total", DC_U_BYTES, DC_FT_U64, V(saved_bytes)},
	{"largest_rank", "the rank writing the most", DC_U_COUNT, DC_FT_U64, V(largest_rank)},
	{"largest_rank_bytes", "its bytes", DC_U_BYTES, DC_FT_U64, V(largest_bytes)},
	{"storage_bandwidth_bytes_per_s", "storage bandwidth (aggregate)", DC_U_BYTES_PER_S, DC_FT_F64,
	 V(storage_bw_bytes_per_s)},
	{"gather_intra_bytes", "rank 0 receives from its NVLink domain (full)", DC_U_BYTES, DC_FT_U64,
	 V(gather_intra_bytes), .shown = is_full},
	{"gather_inter_bytes", "rank 0 receives through its NIC (full)", DC_U_BYTES, DC_FT_U64, V(gather_inter_bytes),
	 .shown = is_full},
	{"gather_time_s", "gather to rank 0 (full)", DC_U_SECONDS, DC_FT_F64, V(gather_time_s)},
	{"staging_bandwidth_bytes_per_s", "staging bandwidth (async)", DC_U_BYTES_PER_S, DC_FT_F64,
	 V(staging_bw_bytes_per_s), .shown = is_staged},
	{"staging_bandwidth_from", "its origin", DC_U_NONE, DC_FT_STR, V(staging_bw_from), .shown = is_staged},
	{"staging_time_s", "copy to host", DC_U_SECONDS, DC_FT_F64, V(staging_time_s)},
	{"write_time_s", "write to storage", DC_U_SECONDS, DC_FT_F64, V(write_time_s)},
	{"blocking_time_s", "training waits", DC_U_SECONDS, DC_FT_F64, V(blocking_time_s)},
	{"save_time_s", "save time (until on storage)", DC_U_SECONDS, DC_FT_F64, V(save_time_s)},
	{"gpu_extra_bytes", "save phase above the optimizer step, GPU", DC_U_BYTES, DC_FT_U64, V(gpu_extra_bytes)},
	{"gpu_peak_bytes", "save-phase peak, GPU, most loaded rank (ledger)", DC_U_BYTES, DC_FT_U64,
	 V(gpu_peak_bytes)},
	{"gpu_training_peak_bytes", "training peak, GPU (other phases)", DC_U_BYTES, DC_FT_U64,
	 V(gpu_training_peak_bytes)},
	{"save_gpu_fits", "the save's GPU peak fits (cluster.gpu_memory)", DC_U_NONE, DC_FT_BOOL, V(save_gpu_fits)},
	{"host_rank_bytes", "save-phase host memory, busiest rank", DC_U_BYTES, DC_FT_U64, V(host_rank_bytes)},
	{"host_node_bytes", "save-phase host memory, its node", DC_U_BYTES, DC_FT_U64, V(host_node_bytes)},
	{"save_host_memory_bytes", "host memory (cluster.host_memory)", DC_U_BYTES, DC_FT_U64, V(save_host_mem_bytes),
	 .shown = save_host_checked},
	{"save_host_fits", "the save's host memory fits", DC_U_NONE, DC_FT_BOOL, V(save_host_fits),
	 .shown = save_host_checked},
	{"ranks", "Bytes each rank writes", DC_U_NONE, DC_FT_ROWS, 0, .sub = &rank_table, .rows = &rank_rows},
	{"restore", "Restore (checkpoint.restore)", DC_U_NONE, DC_FT_OBJECT, V(restore), .sub = &restore_table},
	{"acceptance", "Acceptance conditions", DC_U_NONE, DC_FT_PROSE, 0, .prose = &accept_prose},
};

_Static_assert(sizeof(struct view) <= DC_VIEW_MAX, "view too large");

const struct dc_section dc_section_checkpoint = {
	"checkpoint", "Checkpoint",
	"checkpoint save by rank and kind, time, save-phase memory, restore map, acceptance",
	DC_EST_BIT(DC_EST_CHECKPOINT), sizeof(struct view), view, DC_FIELDS(fields), NULL, NULL,
};
