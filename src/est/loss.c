/* loss.c - loss normalisation; see loss.h and docs/checkpoint-and-loss.md. */
#include "distcalc/loss.h"

#include <string.h>

#include "distcalc/plan.h"
#include "distcalc/rng.h"
#include "distcalc/util.h"

void dc_loss_acc_init(struct dc_loss_acc *a)
{
	memset(a, 0, sizeof(*a));
	a->min_rank_tokens = a->min_mb_tokens = UINT64_MAX;
}

void dc_loss_acc_microbatch(struct dc_loss_acc *a, uint64_t n, double loss_sum)
{
	a->rank_tokens += n;
	a->rank_loss += loss_sum;
	a->microbatches++;
	a->sum_mb_means += loss_sum / (double)n;
	if (n < a->min_mb_tokens)
		a->min_mb_tokens = n;
	if (n > a->max_mb_tokens)
		a->max_mb_tokens = n;
}

void dc_loss_acc_end_rank(struct dc_loss_acc *a)
{
	a->ranks++;
	a->tokens += a->rank_tokens;
	a->loss_sum += a->rank_loss;
	a->sum_rank_means += a->rank_loss / (double)a->rank_tokens;
	if (a->rank_tokens < a->min_rank_tokens)
		a->min_rank_tokens = a->rank_tokens;
	if (a->rank_tokens > a->max_rank_tokens)
		a->max_rank_tokens = a->rank_tokens;
	a->rank_tokens = 0;
	a->rank_loss = 0;
}

void dc_loss_acc_finish(const struct dc_loss_acc *a, struct dc_loss_recipes *o)
{
	double N = (double)a->tokens, R = (double)a->ranks, RM = (double)a->microbatches;
	o->global_mean = a->loss_sum / N;
	o->mean_of_rank_means = a->sum_rank_means / R;
	o->mean_of_mb_means = a->sum_mb_means / RM;
	o->rank_rel_error = (o->mean_of_rank_means - o->global_mean) / o->global_mean;
	o->mb_rel_error = (o->mean_of_mb_means - o->global_mean) / o->global_mean;
	/* a token of rank r weighs 1 / (R N_r) instead of 1 / N */
	o->rank_weight_min = N / (R * (double)a->max_rank_tokens);
	o->rank_weight_max = N / (R * (double)a->min_rank_tokens);
	o->mb_weight_min = N / (RM * (double)a->max_mb_tokens);
	o->mb_weight_max = N / (RM * (double)a->min_mb_tokens);
}

/* one document's loss per token: token_loss x (1 + spread (2u - 1)) */
static double doc_loss(const struct dc_plan *p, struct dc_rng *g)
{
	const struct dc_loss *l = &p->in->loss;
	return l->token_loss * (1.0 + l->token_loss_spread * (2.0 * dc_rng_unit(g) - 1.0));
}

void dc_loss_microbatch(const struct dc_plan *p, uint64_t r, uint64_t m, uint64_t *tokens, double *loss_sum)
{
	const struct dc_loss *l = &p->in->loss;
	uint64_t M = p->layout.grad_accum_steps, s = p->in->model.seq_length, n = 0;
	struct dc_rng key, g;
	double sum = 0;

	/* the stream of microbatch i = r M + m starts at the i-th output of
	 * the seed's stream, so streams do not run into each other */
	dc_rng_seed(&key, p->seed + (r * M + m) * 0x9e3779b97f4a7c15ULL);
	dc_rng_seed(&g, dc_rng_next(&key));
	for (uint64_t b = 0; b < p->layout.micro_batch_size; b++) {
		if (l->mode == DC_LOSS_PADDING) {
			uint64_t len = dc_rng_range(&g, l->min_length, l->max_length);
			n += len;
			sum += (double)len * doc_loss(p, &g);
		} else {
			uint64_t left = s;
			for (;;) {
				uint64_t len = dc_rng_range(&g, l->min_length, l->max_length);
				if (len > left)
					break; /* the tail is padding */
				n += len;
				sum += (double)len * doc_loss(p, &g);
				left -= len;
			}
		}
	}
	*tokens = n;
	*loss_sum = sum;
}

/* The most documents one run draws: the section's tables draw the shown
 * ranks' microbatches again, so the whole experiment stays within a small
 * multiple of this (about a second). A packed sample holds at most
 * seq_length / min_length + 1 documents (each at least min_length
 * tokens, the last one refused). */
#define DC_LOSS_MAX_DRAWS ((uint64_t)1 << 24)

int dc_loss_compute(const struct dc_plan *p, struct dc_loss_result *o, const char **error)
{
	const struct dc_loss *l = &p->in->loss;
	uint64_t draws, per_sample = l->mode == DC_LOSS_PADDING ? 1 : p->in->model.seq_length / (l->min_length ? l->min_length : 1) + 1;

	memset(o, 0, sizeof(*o));
	if (dc_mul_u64(p->layout.dp, p->layout.grad_accum_steps, &draws) ||
	    dc_mul_u64(draws, p->layout.micro_batch_size, &draws) || dc_mul_u64(draws, per_sample, &draws) ||
	    draws > DC_LOSS_MAX_DRAWS) {
		*error = "'training.grad_accum_steps' x 'parallel.dp' x 'training.micro_batch_size': the loss experiment draws at most 2^24 documents (dp x grad_accum_steps x micro_batch_size x the documents a sample holds: 1 padded, up to seq_length / min_length + 1 packed); draw a smaller step (its recipes' errors do not need a large one)";
		return -1;
	}
	o->ranks = p->layout.dp;
	o->microbatches = p->layout.grad_accum_steps;
	o->samples_per_microbatch = p->layout.micro_batch_size;
	dc_loss_acc_init(&o->acc);
	for (uint64_t r = 0; r < o->ranks; r++) {
		for (uint64_t m = 0; m < o->microbatches; m++) {
			uint64_t n;
			double s;
			dc_loss_microbatch(p, r, m, &n, &s);
			dc_loss_acc_microbatch(&o->acc, n, s);
		}
		dc_loss_acc_end_rank(&o->acc);
	}
	dc_loss_acc_finish(&o->acc, &o->recipes);
	return 0;
}
