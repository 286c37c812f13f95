/* loss.h - loss normalisation over data-parallel ranks and microbatches.
 *
 * Each sample's valid tokens are drawn from loss.tokens.* (padding: one
 * document of a length uniform in [min_length, max_length], the rest
 * padding; packing: documents of such lengths back to back while the next
 * fits). Per-token losses follow a documented model: the tokens of one
 * document share a loss drawn uniformly in token_loss x [1 - spread,
 * 1 + spread]. Microbatch m of rank r draws from its own SplitMix64
 * stream (rng.h), keyed by the run's --seed and r x M + m, so any one
 * microbatch is redrawn in O(samples) and the same seed gives the same
 * numbers. Against the global token mean S / N the report sets the two
 * naive recipes: the mean of per-rank token means and the mean of
 * per-microbatch token means under gradient accumulation, and the weight
 * each rank's and microbatch's tokens get relative to 1 / N.
 * docs/checkpoint-and-loss.md.
 */
#ifndef DISTCALC_LOSS_H
#define DISTCALC_LOSS_H

#include <stdint.h>

struct dc_plan;

/* The streaming sums behind every recipe. */
struct dc_loss_acc {
	uint64_t tokens;        /* N: valid tokens of the step */
	double loss_sum;        /* S: their losses added */
	uint64_t ranks, microbatches;
	double sum_rank_means;  /* sum over ranks of S_r / N_r */
	double sum_mb_means;    /* sum over microbatches of S_rm / n_rm */
	uint64_t rank_tokens;   /* the rank being added */
	double rank_loss;
	uint64_t min_rank_tokens, max_rank_tokens;
	uint64_t min_mb_tokens, max_mb_tokens;
};

struct dc_loss_recipes {
	double global_mean;      /* S / N: the right loss */
	double mean_of_rank_means;
	double mean_of_mb_means;
	double rank_rel_error;   /* (mean_of_rank_means - global) / global */
	double mb_rel_error;
	/* the weight a token gets over 1 / N: rank r's under the per-rank
	 * recipe N / (R N_r), microbatch (r, m)'s under the per-microbatch
	 * one N / (R M n_rm); their extremes */
	double rank_weight_min, rank_weight_max;
	double mb_weight_min, mb_weight_max;
};

void dc_loss_acc_init(struct dc_loss_acc *a);
/* A microbatch of the current rank with n valid tokens (n >= 1) whose
 * losses add up to loss_sum. */
void dc_loss_acc_microbatch(struct dc_loss_acc *a, uint64_t n, double loss_sum);
/* Ends the current rank (it had at least one microbatch). */
void dc_loss_acc_end_rank(struct dc_loss_acc *a);
void dc_loss_acc_finish(const struct dc_loss_acc *a, struct dc_loss_recipes *out);

/* Microbatch m of rank r of `p`'s layout: its valid tokens and loss sum,
 * drawn from the stream of --seed and r x M + m. */
void dc_loss_microbatch(const struct dc_plan *p, uint64_t r, uint64_t m, uint64_t *tokens, double *loss_sum);

struct dc_loss_result {
	uint64_t ranks, microbatches, samples_per_microbatch;
	struct dc_loss_acc acc;
	struct dc_loss_recipes recipes;
};

/* The estimator: every microbatch of every dp rank. Returns 0. */
int dc_loss_compute(const struct dc_plan *p, struct dc_loss_result *out, const char **error);

#endif
