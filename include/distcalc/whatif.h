/* whatif.h - injected faults and stragglers: the configured layout run once
 * as the baseline and once per scenario (`--experiment whatif`).
 *
 * Every scenario is the existing estimators (plan.h, results.h) run on a
 * modified copy of the input or of a result, never a model of its own:
 *   slow_network           cluster.inter_node.bandwidth x whatif.slow_network.factor
 *                          (every collective between nodes, the nccl-tests busbw)
 *   slow_data_rank         whatif.slow_data_rank.delay added to the forward of
 *                          every microbatch of that rank's stage (the data it waits for)
 *   whole_model_allgather  FSDP with parallel.fsdp_unit "model" against "layer"
 *   checkpoint_save_peak   the memory ledger's checkpoint_save phase against the
 *                          training peak (forward, backward, optimizer step)
 *   expert_imbalance       the busiest expert's share x whatif.expert_imbalance: the
 *                          MoE layers and AlltoAlls of the ranks holding it
 *   stragglers             training.jitter: each rank's per-step compute time drawn
 *                          from a normal of that coefficient of variation
 * Derivations, the distribution and a worked example: docs/whatif.md.
 */
#ifndef DISTCALC_WHATIF_H
#define DISTCALC_WHATIF_H

#include <stdint.h>

#include "distcalc/config.h"
#include "distcalc/plan.h"
#include "distcalc/results.h"

enum dc_whatif_scenario {
	DC_WHATIF_SLOW_NETWORK,
	DC_WHATIF_SLOW_DATA_RANK,
	DC_WHATIF_WHOLE_MODEL_ALLGATHER,
	DC_WHATIF_CHECKPOINT_SAVE_PEAK,
	DC_WHATIF_EXPERT_IMBALANCE,
	DC_WHATIF_STRAGGLERS,
	DC_WHATIF_COUNT,
};

/* The unit of a scenario's or a detail's numbers. */
enum dc_whatif_unit {
	DC_WHATIF_SECONDS,
	DC_WHATIF_BYTES,
	DC_WHATIF_BYTES_PER_S,
};

struct dc_whatif_scn {
	int available;       /* 0: baseline and value unknown, `missing` says why */
	const char *missing; /* static text: the keys it needs, or why it cannot apply */
	enum dc_whatif_unit unit;
	double baseline, value;
	uint64_t rank_first, rank_last; /* the ranks it hits first */
	const char *phase;   /* static: where it shows ("backward: gradient AllReduce") */
};

/* A secondary quantity of a scenario (which collective slowed, the wait). */
struct dc_whatif_detail {
	enum dc_whatif_scenario scenario;
	const char *what; /* static */
	enum dc_whatif_unit unit;
	double baseline, value;
};

#define DC_WHATIF_MAX_DETAILS 48
/* straggler counts kept per rank up to this many ranks, else per block */
#define DC_WHATIF_SLOWEST_CAP 64
/* whatif.steps is below this */
#define DC_WHATIF_MAX_STEPS 100000
/* rows of the expected-maximum table */
#define DC_WHATIF_SCALE_ROWS 12

struct dc_whatif_scale {
	uint64_t ranks;
	double expected_max_z; /* E[max of `ranks` standard normals] */
	double step_s;         /* expected step when every rank's compute jitters */
	double over_mean;      /* step_s / the step without jitter */
};

struct dc_whatif_stragglers {
	int available;
	double jitter;    /* training.jitter, coefficient of variation */
	uint64_t steps;   /* whatif.steps */
	uint64_t seed;
	double compute_s; /* the critical rank's kernel time per step, what jitters */
	double mean_s, p50_s, p99_s, max_s;
	/* slowest[i]: steps in which rank i (world <= cap) or a rank of block i
	 * (block_ranks = ceil(world / cap) ranks each, the last maybe fewer) was
	 * the slowest */
	uint64_t nblocks, block_ranks;
	uint64_t slowest[DC_WHATIF_SLOWEST_CAP];
	uint64_t nscale;
	struct dc_whatif_scale scale[DC_WHATIF_SCALE_ROWS];
};

struct dc_whatif {
	struct dc_whatif_scn scn[DC_WHATIF_COUNT];
	uint64_t ndetails;
	struct dc_whatif_detail detail[DC_WHATIF_MAX_DETAILS];
	/* slow_data_rank per rank: the data wait of the slow rank and the
	 * time every other rank waits for it each step */
	uint64_t slow_rank, world, replica_stride;
	double data_wait_s, sync_wait_s;
	uint64_t slow_stage;
	/* 1 when the slow rank reads no batch: a middle stage's (DualPipeV:
	 * every rank but pp rank 0, which holds the first and the last
	 * stage) */
	int slow_reads_none;
	/* slow_network: which node, or every link */
	uint64_t node;
	int all_links;
	double factor;
	enum dc_mem_phase wm_phase[2]; /* whole_model_allgather: the peak's phase, per-layer and whole-model units */
	double load_factor;  /* expert_imbalance: the hot rank's expert tokens over uniform */
	struct dc_whatif_stragglers strag;
	enum dc_whatif_scenario failed; /* after a -1: the scenario whose run failed */
	/* the per-step step times of the straggler simulation */
	double samples[DC_WHATIF_MAX_STEPS];
	/* scratch for the scenarios' runs (the caller never reads them) */
	struct dc_config cfg;
	struct dc_plan plan;
	struct dc_results res;
};

/* Runs every scenario for `base` (a plan of the loader's config) whose
 * results `res` hold at least DC_EST_MEMORY, DC_EST_COMM and DC_EST_STEP,
 * drawing the stragglers from SplitMix64 seeded with `seed`. Fills *w
 * (large: allocate it). Returns 0 (a scenario that cannot run says why in
 * its `missing`), or -1 with *error set to static text and w->failed to
 * the scenario whose run gave it. No I/O, no allocation. */
int dc_whatif_compute(const struct dc_plan *base, const struct dc_results *res, uint64_t seed, struct dc_whatif *w,
		      const char **error);

/* E[max of n iid standard normals] by quadrature (n >= 1; 0 for n = 1). */
double dc_whatif_expected_max_normal(uint64_t n);

/* The x with P(Z > x) = q for a standard normal Z, 0 < q < 1. */
double dc_whatif_normal_upper_quantile(double q);

const char *dc_whatif_scenario_name(enum dc_whatif_scenario s);

#endif
