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
 *
 * A step of at most DC_LOSS_MAX_DRAWS documents is drawn whole. Above
 * that the step-wide figures are expectations over the model in closed
 * form (dc_loss_expected), the token-weight extremes bounds over every
 * possible draw, and the tables still draw their shown rows, each within
 * DC_LOSS_ROW_DRAWS documents (a table whose rows cost more is left out).
 * docs/checkpoint-and-loss.md, "How much it draws".
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

/* The most documents a drawn step holds: dp x grad_accum_steps x
 * micro_batch_size x the documents a sample can hold (1 padded; up to
 * seq_length / min_length + 1 packed). About a second of drawing. */
#define DC_LOSS_MAX_DRAWS ((uint64_t)1 << 24)
/* Above it, the most documents one shown table row may draw: the default
 * excerpt's 32 rows stay within DC_LOSS_MAX_DRAWS. */
#define DC_LOSS_ROW_DRAWS ((uint64_t)1 << 19)

/* The step's expectations under the model (doubles: at grad_accum_steps
 * 2^53 - 1 the expected N passes 2^64). */
struct dc_loss_expected {
	double sample_tokens;       /* E[valid tokens of one sample] */
	double sample_tokens_error; /* a bound on |sample_tokens - exact| (0: exact up to rounding) */
	uint64_t sample_min, sample_max; /* the fewest and most valid tokens a sample can hold */
	double mb_tokens, rank_tokens, tokens; /* E[n_rm] = b E[sample], E[N_r] = M E[n_rm], E[N] = R E[N_r] */
	double loss_sum;            /* E[S] = token_loss x E[N] */
};

struct dc_loss_result {
	uint64_t ranks, microbatches, samples_per_microbatch;
	int expected;              /* 0: acc and recipes are one draw of the whole step; 1: expectations and bounds (e) */
	int rank_rows, mb_rows;    /* the per-rank / per-microbatch rows can be drawn (always when drawn) */
	uint64_t draws;            /* the most documents the step can hold (saturated at UINT64_MAX) */
	uint64_t mb_draws;         /* the most documents one microbatch can hold (saturated) */
	struct dc_loss_acc acc;    /* drawn only */
	struct dc_loss_recipes recipes;
	struct dc_loss_expected e; /* expected only */
};

/* The estimator: every microbatch of every dp rank when the step holds
 * at most DC_LOSS_MAX_DRAWS documents, else dc_loss_expected. Returns 0,
 * or -1 with *error where the expectation cannot be bounded. */
int dc_loss_compute(const struct dc_plan *p, struct dc_loss_result *out, const char **error);

/* The expectations of `p`'s step in closed form (whatever its size), and
 * in `rec` the recipes' expected values (all token_loss: a document's loss
 * does not depend on its length) with the weight extremes replaced by
 * bounds over every possible draw. Returns 0, or -1 with *error (packing
 * with max_length - min_length + 1 > 1 and max_length >= DC_LOSS_PACK_WINDOW,
 * except min_length 1 with max_length = seq_length). */
int dc_loss_expected(const struct dc_plan *p, struct dc_loss_expected *e, struct dc_loss_recipes *rec,
		     const char **error);

/* The packed sample's expected valid tokens: documents of lengths uniform
 * in [a, b] while the next fits in s (1 <= a <= b <= s), exactly by the
 * recurrence F(c) = (1/K) sum_{l=a..min(b,c)} (l + F(c - l)), K = b - a + 1,
 * for s <= DC_LOSS_PACK_STEPS, else (or once it has settled within
 * DC_LOSS_PACK_TOL) from its limit with *err bounding the difference (docs/checkpoint-and-loss.md). Returns -1 when b >=
 * DC_LOSS_PACK_WINDOW (the recurrence's window, 1 MiB, lives on the stack), except
 * for a = b and for a = 1, b = s, which have closed forms. */
#define DC_LOSS_PACK_WINDOW 131072
#define DC_LOSS_PACK_STEPS ((uint64_t)1 << 24)
/* the recurrence stops early once the last b values of c - F(c) lie
 * within this many tokens of each other (the error bound it reports) */
#define DC_LOSS_PACK_TOL 1e-9
int dc_loss_packed_fill(uint64_t a, uint64_t b, uint64_t s, double *fill, double *err);

/* The fewest and most valid tokens one sample can hold (padding: one
 * document, [a, b]; packing: see docs/checkpoint-and-loss.md). */
void dc_loss_sample_bounds(int packing, uint64_t a, uint64_t b, uint64_t s, uint64_t *lo, uint64_t *hi);

/* Weight bounds over every draw of X units whose token counts each lie in
 * [lo, hi] (1 <= lo <= hi): a token of a unit holding n weighs N / (X n)
 * times 1 / N; its least value over all draws is lo/hi + (hi - lo)/(X hi)
 * (one unit at hi, the rest at lo), its most hi/lo - (hi - lo)/(X lo). */
void dc_loss_weight_bounds(double X, double lo, double hi, double *wmin, double *wmax);

#endif
