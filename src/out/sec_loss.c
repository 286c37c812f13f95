/* sec_loss.c - `--experiment loss`: the global token mean against the
 * naive recipes, the weight each rank's and microbatch's tokens get, and
 * the recipe that is right. docs/checkpoint-and-loss.md. */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "distcalc/loss.h"
#include "distcalc/plan.h"
#include "distcalc/results.h"
#include "distcalc/section.h"

struct view {
	const struct dc_plan *plan;
	const struct dc_loss_result *l;
	const char *mode, *loss_model, *right_recipe, *naive_rank, *naive_mb, *figures, *figures_note, *tables;
	uint64_t seed, ranks, microbatches, samples, min_length, max_length;
	uint64_t tokens, sample_min, sample_max;
	int expected;
	double weight_tokens; /* N the rows' weights divide: drawn, or E[N] */
	double expected_tokens, sample_tokens, sample_error;
	double loss_sum, global_mean, mean_of_rank_means, mean_of_mb_means, rank_rel_error, mb_rel_error;
	double rank_weight_min, rank_weight_max, mb_weight_min, mb_weight_max;
};

struct rank_row {
	uint64_t rank, tokens, min_mb_tokens, max_mb_tokens;
	double mean_loss, weight, mb_weight_min, mb_weight_max;
};

static uint64_t rank_count(const void *base)
{
	return ((const struct view *)base)->ranks;
}

static void rank_at(const void *base, uint64_t i, void *out)
{
	const struct view *v = base;
	struct rank_row *r = out;
	double sum = 0, N = v->weight_tokens, R = (double)v->ranks, RM = R * (double)v->microbatches;
	r->rank = i;
	r->min_mb_tokens = UINT64_MAX;
	for (uint64_t m = 0; m < v->microbatches; m++) {
		uint64_t n;
		double s;
		dc_loss_microbatch(v->plan, i, m, &n, &s);
		r->tokens += n;
		sum += s;
		if (n < r->min_mb_tokens)
			r->min_mb_tokens = n;
		if (n > r->max_mb_tokens)
			r->max_mb_tokens = n;
	}
	r->mean_loss = sum / (double)r->tokens;
	r->weight = N / (R * (double)r->tokens);
	r->mb_weight_min = N / (RM * (double)r->max_mb_tokens);
	r->mb_weight_max = N / (RM * (double)r->min_mb_tokens);
}

#define R(m) offsetof(struct rank_row, m)
static const struct dc_field rank_fields[] = {
	{"rank", "dp rank", DC_U_COUNT, DC_FT_U64, R(rank)},
	{"tokens", "valid tokens", DC_U_COUNT, DC_FT_U64, R(tokens)},
	{"mean_loss", "token-mean loss", DC_U_NONE, DC_FT_F64, R(mean_loss)},
	{"weight", "token weight, per-rank mean (x 1/N)", DC_U_RATIO, DC_FT_F64, R(weight)},
	{"min_microbatch_tokens", "fewest in a microbatch", DC_U_COUNT, DC_FT_U64, R(min_mb_tokens)},
	{"max_microbatch_tokens", "most in a microbatch", DC_U_COUNT, DC_FT_U64, R(max_mb_tokens)},
	{"microbatch_weight_min", "token weight, per-microbatch mean, min", DC_U_RATIO, DC_FT_F64, R(mb_weight_min)},
	{"microbatch_weight_max", "max", DC_U_RATIO, DC_FT_F64, R(mb_weight_max)},
};
static const struct dc_fields rank_table = DC_FIELDS(rank_fields);
static const struct dc_rows rank_rows = {rank_count, rank_at, sizeof(struct rank_row), "ranks"};

struct mb_row {
	uint64_t rank, microbatch, tokens;
	double mean_loss, weight;
};

static uint64_t mb_count(const void *base)
{
	const struct view *v = base;
	return v->ranks * v->microbatches;
}

static void mb_at(const void *base, uint64_t i, void *out)
{
	const struct view *v = base;
	struct mb_row *r = out;
	double s;
	r->rank = i / v->microbatches;
	r->microbatch = i % v->microbatches;
	dc_loss_microbatch(v->plan, r->rank, r->microbatch, &r->tokens, &s);
	r->mean_loss = s / (double)r->tokens;
	r->weight = v->weight_tokens / ((double)v->ranks * (double)v->microbatches * (double)r->tokens);
}

#define M(m) offsetof(struct mb_row, m)
static const struct dc_field mb_fields[] = {
	{"rank", "dp rank", DC_U_COUNT, DC_FT_U64, M(rank)},
	{"microbatch", "microbatch", DC_U_COUNT, DC_FT_U64, M(microbatch)},
	{"tokens", "valid tokens", DC_U_COUNT, DC_FT_U64, M(tokens)},
	{"mean_loss", "token-mean loss", DC_U_NONE, DC_FT_F64, M(mean_loss)},
	{"weight", "token weight, per-microbatch mean (x 1/N)", DC_U_RATIO, DC_FT_F64, M(weight)},
};
static const struct dc_fields mb_table = DC_FIELDS(mb_fields);
static const struct dc_rows mb_rows = {mb_count, mb_at, sizeof(struct mb_row), "microbatches"};

static void view(const struct dc_run *run, void *out)
{
	struct view *v = out;
	const struct dc_loss_result *l = &run->res->loss;
	const struct dc_config *in = run->plan->in;

	v->plan = run->plan;
	v->l = l;
	v->seed = run->plan->seed;
	v->mode = dc_loss_mode_name(in->loss.mode);
	v->min_length = in->loss.min_length;
	v->max_length = in->loss.max_length;
	v->loss_model = "per-token losses are a model: the tokens of one document share a loss drawn uniformly in loss.token_loss x [1 - spread, 1 + spread]; lengths and losses from the --seed SplitMix64, one stream per microbatch";
	v->naive_rank = "each rank averages its own tokens, then the ranks' means are averaged (DDP's gradient mean over ranks of a per-rank mean loss)";
	v->naive_mb = "each microbatch averages its tokens and is scaled by 1 / grad_accum_steps, then the ranks are averaged";
	v->right_recipe = "sum the token losses and count the valid tokens over every microbatch of the rank, all-reduce both sums over dp, divide once: loss = sum / count (or all-reduce the count first and scale each microbatch's summed loss by 1 / count)";
	v->expected = l->expected;
	v->figures = l->expected ? "expected" : "drawn";
	v->figures_note =
		l->expected
			? "the step's figures are expectations over the model, in closed form: its documents number more than 2^24 (dp x grad_accum_steps x micro_batch_size x the documents a sample can hold), too many to draw; the weight extremes are bounds over every draw, the tables' rows still drawn (docs/checkpoint-and-loss.md)"
			: "one draw of every document of the step";
	if (!l->expected)
		v->tables = "";
	else if (l->rank_rows && l->mb_rows)
		v->tables = "each shown row is drawn (its own microbatches), its weights over the expected N";
	else if (l->mb_rows)
		v->tables = "per-microbatch rows drawn, weights over the expected N; the per-rank table is left out: a rank holds more than 2^19 documents to draw";
	else
		v->tables = "both tables left out: a microbatch holds more than 2^19 documents to draw, or the step more than 2^64 microbatches";
	v->ranks = l->ranks;
	v->microbatches = l->microbatches;
	v->samples = l->samples_per_microbatch;
	v->tokens = l->acc.tokens;
	v->loss_sum = l->expected ? l->e.loss_sum : l->acc.loss_sum;
	v->weight_tokens = l->expected ? l->e.tokens : (double)l->acc.tokens;
	v->expected_tokens = l->e.tokens;
	v->sample_tokens = l->e.sample_tokens;
	v->sample_error = l->e.sample_tokens_error;
	v->sample_min = l->e.sample_min;
	v->sample_max = l->e.sample_max;
	v->global_mean = l->recipes.global_mean;
	v->mean_of_rank_means = l->recipes.mean_of_rank_means;
	v->mean_of_mb_means = l->recipes.mean_of_mb_means;
	v->rank_rel_error = l->recipes.rank_rel_error;
	v->mb_rel_error = l->recipes.mb_rel_error;
	v->rank_weight_min = l->recipes.rank_weight_min;
	v->rank_weight_max = l->recipes.rank_weight_max;
	v->mb_weight_min = l->recipes.mb_weight_min;
	v->mb_weight_max = l->recipes.mb_weight_max;
}

static int is_expected(const void *base)
{
	return ((const struct view *)base)->expected;
}

static int rank_rows_shown(const void *base)
{
	return ((const struct view *)base)->l->rank_rows;
}

static int mb_rows_shown(const void *base)
{
	return ((const struct view *)base)->l->mb_rows;
}

/* Above the draw the extremes are bounds over every draw. */
static void bound_label(const void *base, char *buf, size_t len, const char *drawn, const char *bound)
{
	dc_text_fmt(buf, len, "%s", ((const struct view *)base)->expected ? bound : drawn);
}

static void rank_min_label(const void *base, char *buf, size_t len)
{
	bound_label(base, buf, len, "token weight per-rank recipe, min (x 1/N)",
		    "token weight per-rank recipe, lower bound (x 1/N)");
}

static void rank_max_label(const void *base, char *buf, size_t len)
{
	bound_label(base, buf, len, "max", "upper bound");
}

static void mb_min_label(const void *base, char *buf, size_t len)
{
	bound_label(base, buf, len, "token weight per-microbatch recipe, min",
		    "token weight per-microbatch recipe, lower bound");
}

static void global_label(const void *base, char *buf, size_t len)
{
	bound_label(base, buf, len, "global token mean S / N (right)", "global token mean S / N (right), expected");
}

static void rank_mean_label(const void *base, char *buf, size_t len)
{
	bound_label(base, buf, len, "mean of per-rank means", "mean of per-rank means, expected");
}

static void mb_mean_label(const void *base, char *buf, size_t len)
{
	bound_label(base, buf, len, "mean of per-microbatch means", "mean of per-microbatch means, expected");
}

static void rel_label(const void *base, char *buf, size_t len)
{
	bound_label(base, buf, len, "its relative error", "its relative error, expected");
}

static void sum_label(const void *base, char *buf, size_t len)
{
	bound_label(base, buf, len, "token losses summed S", "token losses summed S, expected");
}

#define V(m) offsetof(struct view, m)
static const struct dc_field fields[] = {
	{"mode", "valid tokens (loss.tokens.mode)", DC_U_NONE, DC_FT_STR, V(mode)},
	{"min_length", "document length, min", DC_U_COUNT, DC_FT_U64, V(min_length)},
	{"max_length", "document length, max", DC_U_COUNT, DC_FT_U64, V(max_length)},
	{"loss_model", "per-token losses", DC_U_NONE, DC_FT_STR, V(loss_model)},
	{"seed", "seed", DC_U_NONE, DC_FT_U64, V(seed)},
	{"ranks", "dp ranks R", DC_U_COUNT, DC_FT_U64, V(ranks)},
	{"microbatches", "microbatches per rank M", DC_U_COUNT, DC_FT_U64, V(microbatches)},
	{"samples_per_microbatch", "samples per microbatch", DC_U_COUNT, DC_FT_U64, V(samples)},
	{"figures", "figures (drawn or expected)", DC_U_NONE, DC_FT_STR, V(figures), .shown = is_expected},
	{"figures_note", "what they are", DC_U_NONE, DC_FT_STR, V(figures_note), .shown = is_expected},
	{"sample_tokens", "valid tokens a sample, expected", DC_U_NONE, DC_FT_F64, V(sample_tokens), .shown = is_expected},
	{"sample_tokens_error_bound", "its error, at most", DC_U_NONE, DC_FT_F64, V(sample_error), .shown = is_expected},
	{"sample_tokens_min", "valid tokens a sample, fewest possible", DC_U_COUNT, DC_FT_U64, V(sample_min), .shown = is_expected},
	{"sample_tokens_max", "most possible", DC_U_COUNT, DC_FT_U64, V(sample_max), .shown = is_expected},
	{"tokens", "valid tokens N", DC_U_COUNT, DC_FT_U64, V(tokens), .is_null = is_expected},
	{"expected_tokens", "valid tokens N, expected (a double)", DC_U_COUNT, DC_FT_F64, V(expected_tokens), .shown = is_expected},
	{"loss_sum", "token losses summed S", DC_U_NONE, DC_FT_F64, V(loss_sum), .label_fn = sum_label},
	{"global_mean", "global token mean S / N (right)", DC_U_NONE, DC_FT_F64, V(global_mean), .label_fn = global_label},
	{"mean_of_rank_means", "mean of per-rank means", DC_U_NONE, DC_FT_F64, V(mean_of_rank_means), .label_fn = rank_mean_label},
	{"rank_rel_error", "its relative error", DC_U_RATIO, DC_FT_F64, V(rank_rel_error), .label_fn = rel_label},
	{"mean_of_microbatch_means", "mean of per-microbatch means", DC_U_NONE, DC_FT_F64, V(mean_of_mb_means), .label_fn = mb_mean_label},
	{"microbatch_rel_error", "its relative error", DC_U_RATIO, DC_FT_F64, V(mb_rel_error), .label_fn = rel_label},
	{"rank_weight_min", "token weight per-rank recipe, min (x 1/N)", DC_U_RATIO, DC_FT_F64, V(rank_weight_min), .label_fn = rank_min_label},
	{"rank_weight_max", "max", DC_U_RATIO, DC_FT_F64, V(rank_weight_max), .label_fn = rank_max_label},
	{"microbatch_weight_min", "token weight per-microbatch recipe, min", DC_U_RATIO, DC_FT_F64, V(mb_weight_min), .label_fn = mb_min_label},
	{"microbatch_weight_max", "max", DC_U_RATIO, DC_FT_F64, V(mb_weight_max), .label_fn = rank_max_label},
	{"naive_rank_recipe", "naive recipe 1", DC_U_NONE, DC_FT_STR, V(naive_rank)},
	{"naive_microbatch_recipe", "naive recipe 2", DC_U_NONE, DC_FT_STR, V(naive_mb)},
	{"right_recipe", "the right recipe", DC_U_NONE, DC_FT_STR, V(right_recipe)},
	{"tables", "the tables", DC_U_NONE, DC_FT_STR, V(tables), .shown = is_expected},
	{"ranks_table", "Per rank", DC_U_NONE, DC_FT_ROWS, 0, .sub = &rank_table, .rows = &rank_rows, .shown = rank_rows_shown},
	{"microbatches_table", "Per microbatch", DC_U_NONE, DC_FT_ROWS, 0, .sub = &mb_table, .rows = &mb_rows, .shown = mb_rows_shown},
};

_Static_assert(sizeof(struct view) <= DC_VIEW_MAX, "view too large");

const struct dc_section dc_section_loss = {
	"loss", "Loss normalisation",
	"global token mean against per-rank and per-microbatch means, token weights, the right recipe",
	DC_EST_BIT(DC_EST_LOSS), sizeof(struct view), view, DC_FIELDS(fields), NULL, NULL,
};
