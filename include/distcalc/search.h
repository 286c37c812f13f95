/* search.h - every valid parallel layout of a model on a cluster, ranked.
 *
 * `--experiment search` enumerates the layouts of the configured model on
 * the configured cluster (world = num_nodes x gpus_per_node) for the
 * configured global batch: tp (within the NVLink domain unless
 * search.tp_across_nodes), cp, pp (even splits), dp (what is left), ep
 * (MoE models), virtual_pipeline, micro_batch_size (grad_accum_steps
 * follows from the global batch), sharding, recompute policy and
 * sequence_parallel, each restricted by search.space.<dimension> when
 * given. A layout is valid when the loader would accept it as --set
 * overrides of the input (the rule table's divisibility promises).
 *
 * One copy of every formula: each layout is a struct dc_layout (plan.h)
 * derived with dc_plan_derive_from from a plan of the input (one plan per
 * recompute policy, as the recompute policy is an input field), then the
 * batch and memory estimators' compute functions price it; only a layout
 * that fits (peak of the most loaded rank <= gpu memory x (1 - headroom))
 * gets the flops, compute, comm and step estimators (the report's
 * step.time_s, tokens_per_s_per_gpu, mfu). The report's numbers for a
 * layout and the search's are the same function calls on the same plan.
 *
 * Memory is bounded by search.top and the Pareto front (at most
 * DC_SEARCH_MAX_PARETO entries), never by the candidate count. Threads
 * (jobs) take the outer tuples (recompute, tp, cp, pp) in turn; every
 * ranking is a total order ending in the enumeration index, so the result
 * is the same for every jobs. docs/search.md.
 *
 * Library code: no printing; progress is a callback.
 */
#ifndef DISTCALC_SEARCH_H
#define DISTCALC_SEARCH_H

#include <stddef.h>
#include <stdint.h>

#include "distcalc/config.h"
#include "distcalc/plan.h"

#define DC_SEARCH_MAX_TOP 100
#define DC_SEARCH_MAX_PARETO 256

/* One candidate: the layout and the recompute policy. */
struct dc_search_layout {
	struct dc_layout layout;
	enum dc_recompute recompute;
	/* the schedule the layout was priced with (plan.h, schedule); named
	 * in its text only when the input names parallel.pipeline_schedule,
	 * which a --set of the layout must then restate (a named zero_bubble
	 * on a pp 1 layout is 1f1b there) */
	enum dc_pipe_schedule schedule;
	int schedule_named;
	uint64_t index; /* enumeration order: the last tie-break */
};

struct dc_search_entry {
	struct dc_search_layout l;
	uint64_t peak_bytes;     /* the most loaded rank's peak (memory.top.peak_bytes) */
	int fits;                /* peak_bytes <= limit */
	int tight;               /* fits, within 5% of the limit (dc_search_tight) */
	int step_available;      /* the step estimator ran (a GPU preset gives its speeds) */
	double step_time_s;      /* step.time_s */
	double tokens_per_s_per_gpu;
	double mfu;
	double mfu_bf16_peak; /* step.mfu_bf16_peak: over the BF16 dense peak, whatever the format */
};

/* What the search did, honestly: every enumerated tuple is either
 * rejected by the rules (integer checks, no pricing) or valid; every valid
 * layout is priced for memory; the step time is priced only where it can
 * rank (a layout that fits, with GPU speeds), or, when nothing fits, for
 * the smallest peaks shown in best[]. enumerated = rejected_by_rules +
 * valid; priced_memory = valid. */
struct dc_search_counts {
	uint64_t enumerated;        /* tuples of the space's dimensions */
	uint64_t rejected_by_rules; /* refused by a rule before any pricing (an overflowing count too) */
	uint64_t valid;             /* that the loader's rules accept */
	uint64_t priced_memory;     /* layouts whose peak memory was priced */
	uint64_t priced_time;       /* layouts whose step time was priced as well */
	uint64_t fit;               /* valid and within the memory limit */
	uint64_t tight;             /* of those, within 5% of it (dc_search_tight) */
};

struct dc_search_result {
	struct dc_search_counts counts;
	uint64_t limit_bytes;     /* floor(gpu_memory x (1 - headroom)) */
	int step_available;       /* 0: no GPU speeds, ranked by memory */
	size_t nbest;
	struct dc_search_entry best[DC_SEARCH_MAX_TOP];
	size_t npareto;
	struct dc_search_entry pareto[DC_SEARCH_MAX_PARETO];
	int pareto_truncated;     /* the front outgrew DC_SEARCH_MAX_PARETO */
	int has_tightest;
	struct dc_search_entry tightest; /* the smallest peak of any valid layout */
	/* the input's own layout: priced as the report prices it; rank is 1 +
	 * the fitting layouts (equal-result shardings once) strictly better
	 * by the objective; in_space: the search enumerated it as valid */
	struct dc_search_entry input;
	uint64_t input_rank;
	int input_in_space;
	char input_outside[256];   /* "" when the space holds it; else the first dimension that leaves it out */
	char why[1024];            /* "" when some layout fits; else why none does */
};

/* Called now and then with the layouts done and the total (from the one
 * thread that reports); the callee decides what to show. */
struct dc_search_progress {
	void (*fn)(void *ctx, uint64_t done, uint64_t total);
	void *ctx;
};

/* Searches the layouts of `in` (from the loader) with `jobs` threads (0
 * reads as 1) into *out. Returns 0, also when nothing is valid or nothing
 * fits (then out->why says why, naming the smallest peak and its layout),
 * or -1 with *error static text (out of memory, a thread that would not
 * start, an estimator's failure). */
int dc_search_run(const struct dc_config *in, unsigned jobs, const struct dc_search_progress *progress,
		  struct dc_search_result *out, const char **error);

/* A peak that fits the limit but leaves less than 5% of it free is tight:
 * peak >= limit - floor(limit / 20) (80 GiB: 76 GiB and above). The memory
 * model is an estimate, and allocator fragmentation and the frameworks'
 * own buffers it leaves out live in that margin (docs/search.md). Returns
 * 1 for a tight peak, 0 otherwise (also above the limit: that one does
 * not fit). */
int dc_search_tight(uint64_t peak_bytes, uint64_t limit_bytes);

/* What a tight fit's warning adds on `gpu` (the single run's, sec_memory.c,
 * and the search's winner's, sec_search.c): on a Hopper or Blackwell card
 * the clause that its usable memory is below the data sheet's (*clause,
 * from ", and") and the fix to give first (*fix, ending in ", "); "" both
 * on another GPU or none. */
void dc_search_tight_usable(enum dc_gpu gpu, const char **clause, const char **fix);

/* The layout as --set overrides: "parallel.tp=8 parallel.pp=8 ..." joined
 * by `sep`, written into buf (always NUL-terminated). With `json`, a JSON
 * object of the same paths and values instead. Returns the length. */
size_t dc_search_layout_text(const struct dc_search_layout *l, int json, char *buf, size_t len);

#endif
