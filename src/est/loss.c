/* loss.c - loss normalisation; see loss.h and docs/checkpoint-and-loss.md. */
#include "distcalc/loss.h"

#include <math.h>
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

static uint64_t sat_mul(uint64_t x, uint64_t y)
{
	uint64_t z;
	return dc_mul_u64(x, y, &z) ? UINT64_MAX : z;
}

void dc_loss_sample_bounds(int packing, uint64_t a, uint64_t b, uint64_t s, uint64_t *lo, uint64_t *hi)
{
	uint64_t f0, k0;
	if (!packing) {
		*lo = a;
		*hi = b;
		return;
	}
	/* A packed sample holds f tokens when f is a sum of k lengths in [a, b]
	 * (f in [k a, k b] for some k >= 1), f <= s, and a length exceeds the
	 * room left (s - f < b); every such f can be reached. The most: s when
	 * some k has k a <= s <= k b (ceil(s / b) <= floor(s / a)), else
	 * floor(s / a) b. The fewest: the least such f above s - b. */
	*hi = s / a >= s / b + (s % b != 0) ? s : (s / a) * b;
	f0 = s - b + 1 > a ? s - b + 1 : a;
	k0 = f0 / b + (f0 % b != 0);
	*lo = k0 * a <= f0 ? f0 : k0 * a;
}

void dc_loss_weight_bounds(double X, double lo, double hi, double *wmin, double *wmax)
{
	*wmin = lo / hi + (hi - lo) / (X * hi);
	*wmax = hi / lo - (hi - lo) / (X * lo);
}

int dc_loss_packed_fill(uint64_t a, uint64_t b, uint64_t s, double *fill, double *err)
{
	double ring[DC_LOSS_PACK_WINDOW] = {0}, K, sum, lim, lo, hi; /* zeroed: -fanalyzer cannot see ring[c - a] is set */
	uint64_t c, end, n, i, ia;

	*err = 0;
	if (a == b) { /* every document a tokens: floor(s / a) of them */
		*fill = (double)(a * (s / a));
		return 0;
	}
	K = (double)(b - a + 1);
	if (a == 1 && s == b) {
		/* F(c) = (1 + 1/K) F(c - 1) + c / K for c <= b, F(0) = 0:
		 * F(c) = (K + 1)((1 + 1/K)^c - 1) - c */
		*fill = (K + 1) * expm1((double)s * log1p(1 / K)) - (double)s;
		return 0;
	}
	if (b >= DC_LOSS_PACK_WINDOW)
		return -1;
	n = b + 1;
	/* c <= b: F(c) = 0 below a, F(a) = a / K, then
	 * F(c) = F(c - 1) + (c + F(c - a)) / K (the sum's difference) */
	for (c = 0; c <= b; c++) {
		if (c < a)
			ring[c] = 0;
		else if (c == a)
			ring[c] = (double)a / K;
		else
			ring[c] = ring[c - 1] + ((double)c + ring[c - a]) / K;
	}
	if (s == b) {
		*fill = ring[b];
		return 0;
	}
	/* from here the waste W(c) = c - F(c): for c >= b every length fits,
	 * so W(c) is the mean of W(c - b) .. W(c - a) */
	for (c = 0; c <= b; c++)
		ring[c] = (double)c - ring[c];
	end = s < DC_LOSS_PACK_STEPS ? s : DC_LOSS_PACK_STEPS;
	sum = 0;
	for (c = b + 1, i = 0, ia = (b + 2 - a) % n; c <= end; c++) {
		if (i == 0) {
			/* every n steps (c a multiple of n, slot j holding W(c - n + j)):
			 * the window's sum afresh, so rounding does not pile up, and
			 * the spread of the last b values W(c - b) .. W(c - 1) */
			sum = 0;
			lo = hi = ring[1];
			for (uint64_t j = 1; j < n; j++) {
				if (j <= n - a)
					sum += ring[j];
				lo = ring[j] < lo ? ring[j] : lo;
				hi = ring[j] > hi ? ring[j] : hi;
			}
			if (hi - lo <= DC_LOSS_PACK_TOL)
				break;
		}
		ring[i] = sum / K; /* over W(c - b - 1), in neither window */
		i = i + 1 == n ? 0 : i + 1;
		/* the window of c + 1: W(c + 1 - b) (slot i: c + 1 - n) drops out,
		 * W(c + 1 - a) comes in */
		sum += ring[ia] - ring[i];
		ia = ia + 1 == n ? 0 : ia + 1;
	}
	if (c > s) {
		*fill = (double)s - ring[s % n];
		return 0;
	}
	/* Stopped at c - 1 < s. W(c') for c' >= c is a mean of earlier values,
	 * so it stays between the least and the greatest of the last b ones;
	 * so does the limit W_inf = (1 / E[L]) sum_{j=0..b-1} W(c - 1 - j)
	 * P(L > j) (that sum is the same for every c - 1 >= b - 1, and the
	 * W(c') converge for K > 1): the spread bounds the error. */
	sum = 0;
	lo = hi = ring[(c - 1) % n];
	for (uint64_t j = 0; j < b; j++) {
		double w = ring[(c - 1 - j) % n], g = j < a ? 1.0 : (double)(b - j) / K;
		sum += w * g;
		lo = w < lo ? w : lo;
		hi = w > hi ? w : hi;
	}
	lim = sum / (((double)a + (double)b) / 2);
	*fill = (double)s - lim;
	*err = hi - lo;
	return 0;
}

int dc_loss_expected(const struct dc_plan *p, struct dc_loss_expected *e, struct dc_loss_recipes *rec,
		     const char **error)
{
	const struct dc_loss *l = &p->in->loss;
	uint64_t s = p->in->model.seq_length, a = l->min_length, b = l->max_length;
	double R = (double)p->layout.dp, M = (double)p->layout.grad_accum_steps,
	       B = (double)p->layout.micro_batch_size;
	int packing = l->mode == DC_LOSS_PACKING;

	memset(e, 0, sizeof(*e));
	if (!packing) {
		e->sample_tokens = ((double)a + (double)b) / 2;
	} else if (dc_loss_packed_fill(a, b, s, &e->sample_tokens, &e->sample_tokens_error) != 0) {
		*error = "'loss.tokens.max_length': above 2^24 documents the packed step is an expectation, computed for max_length below 131072 (or min_length = max_length, or min_length 1 with max_length = seq_length); draw a smaller step or shorten the documents";
		return -1;
	}
	dc_loss_sample_bounds(packing, a, b, s, &e->sample_min, &e->sample_max);
	e->mb_tokens = B * e->sample_tokens;
	e->rank_tokens = M * e->mb_tokens;
	e->tokens = R * e->rank_tokens;
	e->loss_sum = l->token_loss * e->tokens;
	/* given the lengths, every document's loss has mean token_loss, so
	 * E[S | lengths] = token_loss N, and each recipe (S / N, S_r / N_r,
	 * S_rm / n_rm) has expectation token_loss exactly */
	rec->global_mean = rec->mean_of_rank_means = rec->mean_of_mb_means = l->token_loss;
	rec->rank_rel_error = rec->mb_rel_error = 0;
	dc_loss_weight_bounds(R, M * B * (double)e->sample_min, M * B * (double)e->sample_max, &rec->rank_weight_min,
			      &rec->rank_weight_max);
	dc_loss_weight_bounds(R * M, B * (double)e->sample_min, B * (double)e->sample_max, &rec->mb_weight_min,
			      &rec->mb_weight_max);
	return 0;
}

int dc_loss_compute(const struct dc_plan *p, struct dc_loss_result *o, const char **error)
{
	const struct dc_loss *l = &p->in->loss;
	uint64_t rank_draws, rm, per_sample = l->mode == DC_LOSS_PADDING ? 1 : p->in->model.seq_length / (l->min_length ? l->min_length : 1) + 1;

	memset(o, 0, sizeof(*o));
	o->ranks = p->layout.dp;
	o->microbatches = p->layout.grad_accum_steps;
	o->samples_per_microbatch = p->layout.micro_batch_size;
	o->mb_draws = sat_mul(o->samples_per_microbatch, per_sample);
	rank_draws = sat_mul(o->microbatches, o->mb_draws);
	o->draws = sat_mul(o->ranks, rank_draws);
	if (o->draws > DC_LOSS_MAX_DRAWS) {
		o->expected = 1;
		o->rank_rows = rank_draws <= DC_LOSS_ROW_DRAWS;
		o->mb_rows = o->mb_draws <= DC_LOSS_ROW_DRAWS && !dc_mul_u64(o->ranks, o->microbatches, &rm);
		return dc_loss_expected(p, &o->e, &o->recipes, error);
	}
	o->rank_rows = o->mb_rows = 1;
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
