/* search.c - every valid layout ranked; see search.h and docs/search.md. */
#include "distcalc/search.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "distcalc/memo_verify.h"
#include "distcalc/memory.h"
#include "distcalc/results.h"
#include "distcalc/step.h"
#include "distcalc/util.h"

#define MAX_DIVISORS 512
#define NSHARD 4
#define NRECOMPUTE 4

/* why a tuple was refused: the counts name the tightest rule when none is valid */
enum reject {
	R_TP_HEADS,   /* tp divides the query and key/value heads */
	R_TP_MLP,     /* tp (etp) divides the MLP inner sizes: dc_config_tp_splits_mlp */
	R_TP_DOMAIN,  /* tp within the NVLink domain */
	R_CP,         /* 2 cp divides seq_length (a2a: cp the sequence and heads per tp rank) */
	R_PP,         /* pp divides num_layers (or the input's uneven pp) */
	R_DP,         /* dp in search.space.dp */
	R_BATCH,      /* micro_batch_size x dp divides the global batch */
	R_EP,         /* the expert layout: dc_layout_expert_error */
	R_REPLICATE,  /* parallel.dp_replicate divides dp and dp / ep */
	R_VP,         /* virtual_pipeline: pp > 1, the chunks fit the layers (chunks_fit), m a multiple of pp */
	R_SP,         /* sequence_parallel needs tp > 1 dividing seq_length / cp */
	R_OFFLOAD,    /* offload optimizer+params needs fsdp */
	R_RECOMPUTE,  /* recompute_layers needs full, recompute_modules selective */
	R_SCHEDULE,   /* the input's named pipeline schedule runs on the layout */
	R_FRAMEWORK,  /* the input's training.framework runs the layout (deepspeed: no ZeRO-2/3 with pp) */
	R_LOSS_CHUNKS, /* training.loss_chunks divides micro_batch_size x seq_length / cp */
	R_BF16_LAYERS, /* precision.bf16_first_layers / bf16_last_layers fit the end chunks */
	R_OVERLAP,    /* the input's overlap.param_gather, overlap.tp and overlap.ep run on the layout */
	R_OVERFLOW,   /* a count overflows 64 bits */
	R_COUNT,
};

static const char *const reject_text[R_COUNT] = {
	[R_TP_HEADS] = "parallel.tp must divide model.num_attention_heads and model.num_kv_heads (and model.linear_num_key_heads)",
	[R_TP_MLP] = "parallel.tp must divide model.ffn_hidden_size (where a dense MLP runs) and model.shared_expert_ffn_hidden_size, and the expert tp size model.moe_ffn_hidden_size (parallel.etp where given; else tp, or 1 under training.framework torchtitan at ep > 1)",
	[R_TP_DOMAIN] = "parallel.tp must stay within the NVLink domain (cluster.nvlink_domain; search.tp_across_nodes lifts it)",
	[R_CP] = "2 x parallel.cp must divide model.seq_length",
	[R_PP] = "parallel.pp must divide model.num_layers (with model.moe_layer_interval > 1, its stages hold at most 20 different mixes of dense and MoE layers)",
	[R_DP] = "parallel.dp (world / (tp x cp x pp)) must be in search.space.dp",
	[R_BATCH] = "training.micro_batch_size x parallel.dp must divide the global batch (training.global_batch_size), and, where given with pp > 1, parallel.pipeline_schedule_microbatches the microbatches it leaves each replica",
	[R_EP] = "parallel.ep must divide model.num_experts and ep x etp the ranks tp x dp x cp (folded: pp the slowest axis, and sequence_parallel where etp differs from tp > 1; etp 1 under training.moe_dispatcher deepep), in a parallel.order whose Megatron-Core expert groups are distcalc's (ep named, just before dp; folded, after tp)",
	[R_REPLICATE] = "parallel.dp_replicate (HSDP, kept from the input for sharded layouts) must divide parallel.dp and dp / ep",
	[R_VP] = "parallel.virtual_pipeline > 1 needs pp > 1, its chunks to fit the layers (pp x virtual_pipeline dividing model.num_layers, or the input's own uneven stages at its own virtual_pipeline; with model.moe_layer_interval > 1, at most 20 different mixes of dense and MoE layers) and grad_accum_steps (a schedule's microbatches, parallel.pipeline_schedule_microbatches, where given) a multiple of pp",
	[R_SP] = "parallel.sequence_parallel needs tp > 1 dividing a cp rank's tokens (model.seq_length / cp)",
	[R_OFFLOAD] = "parallel.offload \"optimizer+params\" needs parallel.sharding \"fsdp\"",
	[R_SCHEDULE] = "parallel.pipeline_schedule (the input's zero_bubble, dualpipe or dualpipev) must run on the layout: dualpipe an even pp and an even grad_accum_steps (a schedule's microbatches, where parallel.pipeline_schedule_microbatches is given) of at least 2 pp, dualpipev at least 2 pp (and pp at most 20 with model.moe_layer_interval > 1), both without interleaving",
	[R_RECOMPUTE] = "training.recompute_layers needs training.recompute \"full\"; training.recompute_modules needs \"selective\"",
	[R_FRAMEWORK] = "training.framework \"deepspeed\" with pp > 1 needs parallel.sharding \"none\" or \"zero1\" (DeepSpeed's pipeline engine asserts a ZeRO stage below 2) and the 1F1B schedule, one model chunk a rank (its pipeline engine runs TrainSchedule alone); \"megatron\" with a MoE model at tp > 1 needs sequence_parallel (its MoE layer raises in training without it), and with sharding \"fsdp\" (its --use-torch-fsdp2) pp 1 and ep 1; \"torchtitan\" with a given parallel.etp needs it 1 at ep > 1 and tp at ep 1 (it has no expert tensor-parallel size)",
	[R_LOSS_CHUNKS] = "training.loss_chunks must divide the tokens of a microbatch on a cp rank (micro_batch_size x model.seq_length / cp), which torchtitan's ChunkedLossWrapper splits into equal chunks",
	[R_BF16_LAYERS] = "precision.bf16_first_layers and bf16_last_layers must each fit the model's first (last) chunk, num_layers / (pp x virtual_pipeline) layers (under dualpipev num_layers / (2 pp); or the input's own uneven stages at its own virtual_pipeline), and under training.framework megatron num_layers / pp",
	[R_OVERLAP] = "the input's overlaps must run on the layout: overlap.param_gather needs parallel.sharding \"zero1\"; overlap.tp under training.framework megatron or torchtitan needs sequence_parallel where tp > 1 (and torch.compile under torchtitan); overlap.ep \"dualpipe\" needs ep > 1 and a pipeline, \"a2a_1f1b\" ep > 1, interleaving where pp > 1 and a recompute other than full",
	[R_OVERFLOW] = "a count of the layout overflows 64 bits",
};

/* A sorted list of at most cap entries under `better`. */
struct topk {
	size_t n, cap;
	struct dc_search_entry *e;
};

struct front {
	size_t n;
	int truncated;
	struct dc_search_entry e[DC_SEARCH_MAX_PARETO];
};

/* one (recompute, tp, cp, pp) and the index of its first inner tuple */
struct outer {
	unsigned rc;
	uint64_t tp, cp, pp, first_index;
};

struct space {
	const struct dc_config *in;
	uint64_t world, gbs, limit_bytes;
	int step_available, by_memory;
	int schedule_named; /* the input names parallel.pipeline_schedule */
	/* the inner dimensions' value lists */
	uint64_t ep[MAX_DIVISORS], v[MAX_DIVISORS], mbs[MAX_DIVISORS];
	size_t nep, nv, nmbs;
	unsigned shard[NSHARD], nshard;
	int sp[2];
	unsigned nsp;
	uint64_t inner; /* nep x nv x nmbs x nshard x nsp */
	/* the experts' tp group rests on ep (dc_config_layout_etp: under
	 * training.framework torchtitan without a given parallel.etp, 1 at ep
	 * > 1 and tp at ep 1), so moe_ffn_hidden_size is checked per ep, in
	 * the inner loop, not with tp's other sizes in outer_reject */
	int etp_by_ep;
	const char *empty; /* the dimension search.space left without a value, NULL: none */
	struct outer *outer;
	size_t nouter;
	uint64_t enumerated;
	/* one input and its plan per recompute policy */
	struct dc_config *cfg;  /* NRECOMPUTE */
	struct dc_plan *base;   /* NRECOMPUTE */
	int have[NRECOMPUTE];
	struct dc_search_entry input; /* the input's own layout, priced */
	struct dc_layout input_layout;
	const struct dc_search_progress *progress;
	atomic_size_t next;
	atomic_uint_fast64_t done;
};

struct worker {
	struct space *sp;
	unsigned id;
	struct dc_plan outer_plan, plan;
	struct dc_net_memo *memo; /* this thread's collective prices (net.h) */
	struct dc_step_memo *step_memo; /* this thread's last step's stages (step.h) */
	struct dc_mem_memo *mem_memo; /* this thread's last ledgers' activation parts (memory.h) */
	struct dc_comm_memo *comm_memo; /* this thread's data-parallel axes' calls (comm.h) */
	struct dc_results res;
	/* when have_kept: res's kernels, collectives and FLOPs are those of
	 * a plan of kept_in with layout `kept` (eval_step) */
	int have_kept;
	const struct dc_config *kept_in;
	struct dc_layout kept;
	struct dc_search_counts counts;
	uint64_t better;       /* ranked layouts strictly better than the input's */
	int input_seen;
	uint64_t rejected[R_COUNT];
	struct topk best, low;   /* the fitting by the objective; every valid by peak */
	struct front front;
	int has_tightest;
	struct dc_search_entry tightest;
	const char *error;
	pthread_t thread;
};

/* ---- orders: total, ending in the enumeration index ---- */

static int cmp_u64(uint64_t a, uint64_t b)
{
	return (a > b) - (a < b);
}

static int cmp_f64(double a, double b)
{
	return (a > b) - (a < b);
}

/* the objective's order of two fitting entries: < 0 when a ranks first */
static int cmp_objective(const struct space *s, const struct dc_search_entry *a, const struct dc_search_entry *b)
{
	int c;
	if (s->by_memory) {
		if ((c = cmp_u64(a->peak_bytes, b->peak_bytes)) != 0)
			return c;
		if (s->step_available && (c = cmp_f64(a->step_time_s, b->step_time_s)) != 0)
			return c;
	} else {
		if ((c = cmp_f64(a->step_time_s, b->step_time_s)) != 0)
			return c;
		if ((c = cmp_u64(a->peak_bytes, b->peak_bytes)) != 0)
			return c;
	}
	return cmp_u64(a->l.index, b->l.index);
}

static int cmp_peak(const struct space *s, const struct dc_search_entry *a, const struct dc_search_entry *b)
{
	int c = cmp_u64(a->peak_bytes, b->peak_bytes);
	(void)s;
	return c ? c : cmp_u64(a->l.index, b->l.index);
}

static int same_layout(const struct dc_layout *a, const struct dc_layout *b)
{
	return a->tp == b->tp && a->pp == b->pp && a->dp == b->dp && a->cp == b->cp && a->ep == b->ep &&
	       a->dp_replicate == b->dp_replicate && a->virtual_pipeline == b->virtual_pipeline &&
	       a->sequence_parallel == b->sequence_parallel && a->sharding == b->sharding &&
	       a->micro_batch_size == b->micro_batch_size &&
	       a->grad_accum_steps == b->grad_accum_steps;
}

/* a ranks before b by the objective, ties left out */
static int strictly_better(const struct space *s, const struct dc_search_entry *a, const struct dc_search_entry *b)
{
	struct dc_search_entry x = *a;
	x.l.index = b->l.index;
	return cmp_objective(s, &x, b) < 0;
}

typedef int (*cmp_fn)(const struct space *, const struct dc_search_entry *, const struct dc_search_entry *);

/* 1 when e would enter k (a cheap test before the step is computed is not
 * possible for the objective; for the peak order it is) */
static int topk_would_take(const struct space *s, const struct topk *k, const struct dc_search_entry *e, cmp_fn cmp)
{
	return k->n < k->cap || cmp(s, e, &k->e[k->n - 1]) < 0;
}

static void topk_add(const struct space *s, struct topk *k, const struct dc_search_entry *e, cmp_fn cmp)
{
	size_t i;
	if (!topk_would_take(s, k, e, cmp))
		return;
	i = k->n < k->cap ? k->n++ : k->cap - 1;
	while (i > 0 && cmp(s, e, &k->e[i - 1]) < 0) {
		k->e[i] = k->e[i - 1];
		i--;
	}
	k->e[i] = *e;
}

/* a dominates b: no worse on peak and step, better on one, or equal on
 * both and enumerated first (so equal layouts keep one, the first) */
static int dominates(const struct dc_search_entry *a, const struct dc_search_entry *b)
{
	if (a->peak_bytes > b->peak_bytes || a->step_time_s > b->step_time_s)
		return 0;
	return a->peak_bytes < b->peak_bytes || a->step_time_s < b->step_time_s || a->l.index < b->l.index;
}

/* The front sorted by peak ascending (so step descending). */
static void front_add(struct front *f, const struct dc_search_entry *e)
{
	size_t i, w, lo = 0, hi = f->n;
	/* a dominates b only with a peak no larger than b's: e only by the
	 * entries up to its peak, [0, lo), the last of them first (the
	 * front's steps fall as its peaks grow), and e only those from its
	 * peak on (the ones before stay where they are) */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (f->e[mid].peak_bytes <= e->peak_bytes)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (i = lo; i-- > 0;)
		if (dominates(&f->e[i], e))
			return;
	for (w = lo; w > 0 && f->e[w - 1].peak_bytes == e->peak_bytes; w--)
		;
	for (i = w; i < f->n; i++)
		if (!dominates(e, &f->e[i]))
			f->e[w++] = f->e[i];
	f->n = w;
	if (f->n == DC_SEARCH_MAX_PARETO) {
		/* full: the largest peak goes, unless e has it */
		f->truncated = 1;
		if (e->peak_bytes >= f->e[f->n - 1].peak_bytes)
			return;
		f->n--;
	}
	i = f->n++;
	while (i > 0 && (f->e[i - 1].peak_bytes > e->peak_bytes ||
			 (f->e[i - 1].peak_bytes == e->peak_bytes && f->e[i - 1].l.index > e->l.index))) {
		f->e[i] = f->e[i - 1];
		i--;
	}
	f->e[i] = *e;
}

/* ---- the space ---- */

/* divisors of n in ascending order, those in `only` when it is given */
static size_t divisors(uint64_t n, const struct dc_search_values *only, uint64_t *out)
{
	size_t k = 0, hi = 0;
	uint64_t high[MAX_DIVISORS];
	for (uint64_t d = 1; d * d <= n; d++) {
		if (n % d)
			continue;
		if (k < MAX_DIVISORS)
			out[k++] = d;
		if (d != n / d && hi < MAX_DIVISORS)
			high[hi++] = n / d;
	}
	while (hi > 0 && k < MAX_DIVISORS)
		out[k++] = high[--hi];
	if (only && only->n) {
		size_t w = 0;
		for (size_t i = 0; i < k; i++)
			for (uint32_t j = 0; j < only->n; j++)
				if (only->v[j] == out[i]) {
					out[w++] = out[i];
					break;
				}
		k = w;
	}
	return k;
}

static int in_values(const struct dc_search_values *only, uint64_t v)
{
	if (!only->n)
		return 1;
	for (uint32_t j = 0; j < only->n; j++)
		if (only->v[j] == v)
			return 1;
	return 0;
}

/* The outer tuples' own rules (tp, cp, pp, dp and the batch); 0 or the
 * reason. */
static int outer_reject(const struct space *s, uint64_t tp, uint64_t cp, uint64_t pp, enum reject *why)
{
	const struct dc_config *in = s->in;
	uint64_t dp = s->world / (tp * cp * pp);
	uint64_t dom = in->cluster.nvlink_domain ? in->cluster.nvlink_domain : in->cluster.gpus_per_node;
	enum dc_layout_fault f = dc_layout_fault_outer(in, tp, cp, pp);

	/* the layout's own rules (plan.h), the search's NVLink-domain rule
	 * between tp's and cp's, as the counts have always been kept */
	if (f == DC_LF_TP_HEADS)
		*why = R_TP_HEADS;
	/* the routed experts' size where their tp group is known without ep
	 * (etp 1 divides every size: the inner loop checks it, etp_by_ep) */
	else if (!dc_config_tp_splits_mlp(&in->model, tp, s->etp_by_ep ? 1 : in->parallel.etp))
		*why = R_TP_MLP;
	else if (!in->search.tp_across_nodes && (tp > dom || dom % tp))
		*why = R_TP_DOMAIN;
	else if (f == DC_LF_CP)
		*why = R_CP;
	else if (f == DC_LF_PP)
		*why = R_PP;
	else if (!in_values(&in->search.dp, dp))
		*why = R_DP;
	else if (s->gbs % dp)
		*why = R_BATCH;
	else
		return 0;
	return 1;
}

size_t dc_search_layout_text(const struct dc_search_layout *l, int json, char *buf, size_t len)
{
	const struct dc_layout *y = &l->layout;
	unsigned long long tp = y->tp, cp = y->cp, pp = y->pp, dp = y->dp, ep = y->ep, v = y->virtual_pipeline;
	unsigned long long rep = y->dp_replicate ? y->dp_replicate : 1;
	unsigned long long mbs = y->micro_batch_size, gas = y->grad_accum_steps;
	const char *sp = y->sequence_parallel ? "true" : "false", *sh = dc_sharding_name(y->sharding);
	const char *rc = dc_recompute_name(l->recompute);
	int n;
	if (json)
		n = snprintf(buf, len,
			     "{\"parallel.tp\": %llu, \"parallel.cp\": %llu, \"parallel.pp\": %llu, \"parallel.dp\": %llu, "
			     "\"parallel.ep\": %llu, \"parallel.dp_replicate\": %llu, \"parallel.virtual_pipeline\": %llu, "
			     "\"parallel.sequence_parallel\": %s, "
			     "\"parallel.sharding\": \"%s\", \"training.micro_batch_size\": %llu, "
			     "\"training.grad_accum_steps\": %llu, \"training.recompute\": \"%s\"}",
			     tp, cp, pp, dp, ep, rep, v, sp, sh, mbs, gas, rc);
	else
		n = snprintf(buf, len,
			     "parallel.tp=%llu parallel.cp=%llu parallel.pp=%llu parallel.dp=%llu parallel.ep=%llu "
			     "parallel.dp_replicate=%llu "
			     "parallel.virtual_pipeline=%llu parallel.sequence_parallel=%s parallel.sharding=%s "
			     "training.micro_batch_size=%llu training.grad_accum_steps=%llu training.recompute=%s",
			     tp, cp, pp, dp, ep, rep, v, sp, sh, mbs, gas, rc);
	/* the schedule last, in place of the object's closing brace */
	if (n > 0 && l->schedule_named && (size_t)n < len) {
		const char *name = dc_pipe_schedule_name(l->schedule);
		int k = json ? snprintf(buf + n - 1, len - (size_t)n + 1, ", \"parallel.pipeline_schedule\": \"%s\"}", name)
			     : snprintf(buf + n, len - (size_t)n, " parallel.pipeline_schedule=%s", name);
		n = k < 0 ? k : n + k - (json ? 1 : 0);
	}
	if (n < 0)
		return 0;
	return (size_t)n < len ? (size_t)n : len ? len - 1 : 0;
}

/* ---- evaluation: the report's estimators on the report's plan ---- */

/* a and b (derived plans' layouts) alike but in their virtual pipeline
 * and sharding */
static int same_but_chunks(const struct dc_layout *a, const struct dc_layout *b)
{
	return a->tp == b->tp && a->pp == b->pp && a->dp == b->dp && a->cp == b->cp && a->ep == b->ep &&
	       a->etp == b->etp && a->dp_replicate == b->dp_replicate && a->sequence_parallel == b->sequence_parallel &&
	       a->micro_batch_size == b->micro_batch_size && a->grad_accum_steps == b->grad_accum_steps;
}

/* what eval_memory prices on every valid layout: what a layout's peak
 * needs */
#define MEMORY_ROWS (DC_EST_BIT(DC_EST_BATCH) | DC_EST_BIT(DC_EST_MEMORY))

/* The step of the plan eval_memory derived, as the report computes it
 * (DC_EST_STEP and what it needs, less the batch eval_memory holds).
 * With `resharded`, w->res.compute, .comm and .flops are those of a plan
 * that differs from this one in its sharding alone (the last eval_step's):
 * only its optimizer step and its dp and fsdp collectives are priced
 * again (compute.h, comm.h). Returns 0, or -1 with w->res.error set. */
static int eval_step(struct worker *w, struct dc_search_entry *e, int resharded)
{
	struct dc_results *r = &w->res;
	uint32_t have = MEMORY_ROWS;
	int rechunk = !resharded && w->have_kept && w->kept_in == w->plan.in && same_but_chunks(&w->kept, &w->plan.layout);
	w->have_kept = 0; /* until this step's are priced */
	if (resharded) {
		/* the kernels, the FLOPs and the collectives of the axes but
		 * dp and fsdp read nothing the sharding changes */
		dc_compute_reshard(&w->plan, &r->compute);
		if (dc_comm_reshard(&w->plan, &r->comm, &r->error) != 0)
			return -1;
		have |= DC_EST_BIT(DC_EST_COMPUTE) | DC_EST_BIT(DC_EST_COMM) | DC_EST_BIT(DC_EST_FLOPS);
	} else if (rechunk) {
		/* the last step's plan differs in its virtual pipeline (and
		 * sharding) alone: its kernels and the collectives that read
		 * no chunk carry over (compute.h, comm.h); the FLOPs, summed
		 * chunk by chunk, are counted again */
		if (dc_compute_rechunk(&w->plan, &r->compute, &r->error) != 0 ||
		    dc_comm_rechunk(&w->plan, &r->comm, &r->error) != 0)
			return -1;
		have |= DC_EST_BIT(DC_EST_COMPUTE) | DC_EST_BIT(DC_EST_COMM);
	}
	if (dc_estimate_with(&w->plan, DC_EST_BIT(DC_EST_STEP), have, r) != 0)
		return -1;
	/* w->res's kernels and collectives are this plan's */
	w->have_kept = 1;
	w->kept_in = w->plan.in;
	w->kept = w->plan.layout;
	e->step_available = r->step.available;
	e->step_time_s = r->step.time_s;
	e->tokens_per_s_per_gpu = r->step.tokens_per_s_per_gpu;
	e->mfu = r->step.mfu;
	e->mfu_bf16_peak = r->step.mfu_bf16_peak;
	return 0;
}

/* Derives the plan of e->l from `from` and prices its memory: 0, or 1
 * when the layout overflows a count (not valid). `here` (NULL: none):
 * set when w->plan is one derive_from(from, ...) left (cleared by a
 * failed derive); while it is, a layout that differs from w->plan's in
 * its sharding alone takes w->plan with that sharding, which is what
 * derive_from gives (plan.h, dc_plan_reshard). */
static int eval_memory(struct worker *w, const struct dc_plan *from, struct dc_search_entry *e, int *here)
{
	struct dc_results *r = &w->res;
	if (!here || !*here || !dc_plan_reshard(&w->plan, &e->l.layout)) {
		if (here)
			*here = 0;
		if (dc_plan_derive_from(from, &e->l.layout, &w->plan) != 0)
			return 1;
		if (here)
			*here = 1;
	}
	if (dc_estimate(&w->plan, MEMORY_ROWS, r) != 0)
		return 1;
	e->l.schedule = w->plan.schedule;
	e->l.schedule_named = w->sp->schedule_named;
	e->peak_bytes = r->memory.top.peak_bytes;
	/* offloaded states must fit the host too, as summary.fits says
	 * (memory.host_fits: true when cluster.host_memory is not given) */
	e->fits = e->peak_bytes <= w->sp->limit_bytes && r->memory.host_fits;
	e->tight = dc_search_tight(e->peak_bytes, w->sp->limit_bytes);
	e->step_available = 0;
	e->step_time_s = e->tokens_per_s_per_gpu = e->mfu = e->mfu_bf16_peak = 0;
	return 0;
}

/* The entry of a layout in full (memory and step): for the layouts the
 * result shows when nothing fits. */
static int eval_full(struct worker *w, struct dc_search_entry *e)
{
	struct space *s = w->sp;
	if (eval_memory(w, &s->base[e->l.recompute], e, NULL) != 0)
		return -1;
	if (s->step_available && eval_step(w, e, 0) != 0)
		return -1;
	return 0;
}

#ifdef DISTCALC_VERIFY_MEMOS
/* The plan's rules' answer kept for this (ep, v, mbs, sp, dp_replicate)
 * from its first sharding against the rules run on this sharding */
static void fault_verify(const struct dc_config *in, const struct dc_layout *y, enum dc_layout_fault kept)
{
	dc_memo_verify_u64("the plan's rules once a sharding group (src/search/search.c run_outer)",
			   "dc_layout_fault_inner", (uint64_t)kept, (uint64_t)dc_layout_fault_inner(in, y));
}
#endif

/* The loader's rule on training.loss_chunks n (config_rules.c
 * rule_loss_chunks) on this layout's tokens: n divides a cp rank's
 * microbatch, mbs x s / cp (2 cp divides s: outer_reject), as torchtitan
 * splits it into n equal chunks (components/loss.py:602-611 at
 * b5bcd76c). Returns -1 when it does (or n is 1), else the reason:
 * R_LOSS_CHUNKS, or R_OVERFLOW for a product past 64 bits. */
static int loss_chunks_reject(const struct dc_config *in, uint64_t mbs, uint64_t cp)
{
	uint64_t n = in->training.loss_chunks, tokens;
	if (n <= 1)
		return -1;
	if (__builtin_mul_overflow(mbs, in->model.seq_length / cp, &tokens))
		return R_OVERFLOW;
	return tokens % n ? R_LOSS_CHUNKS : -1;
}

/* The loader's rule on precision.bf16_first_layers and bf16_last_layers
 * (config_rules.c rule_bf16_layers) on this layout's pp and v: each fits
 * the model's end chunk, L / (pp v) on an even split (the input's own
 * uneven stages at its own v: the loader checked), and under Megatron
 * L / pp. 1 to reject. */
static int bf16_layers_reject(const struct dc_config *in, uint64_t pp, uint64_t v)
{
	const struct dc_precision *pr = &in->precision;
	uint64_t L = in->model.num_layers, most = pr->bf16_first_layers > pr->bf16_last_layers ? pr->bf16_first_layers
											       : pr->bf16_last_layers;
	uint64_t in_v = in->parallel.virtual_pipeline ? in->parallel.virtual_pipeline : 1;
	if (pr->compute != DC_COMPUTE_FP8 || most == 0 || pp < 2)
		return 0;
	if (in->training.framework == DC_FRAMEWORK_MEGATRON && most > L / pp)
		return 1;
	if (pp == in->parallel.pp && v == in_v && dc_stages_uneven(&in->parallel))
		return 0;
	/* DualPipeV (the input's, which a layout without interleaving
	 * runs): two chunks of L / (2 pp) a rank */
	if (v == 1 && in->parallel.pipeline_schedule == DC_PIPE_DUALPIPEV)
		v = 2;
	return most > L / (pp * v);
}

/* The loader's overlap rules that read the layout (src/load/config_rules.c,
 * rule_framework and rule_ep_overlap), so that a layout the search ranks
 * reloads through --set with the input's overlap keys: the estimators
 * would price a layout that cannot run an overlap without it, but the
 * report of the same layout refuses the key. A named DualPipe schedule
 * runs on every layout with a pipeline (R_SCHEDULE), 1F1B without one. */
static int overlap_reject(const struct dc_config *in, const struct dc_layout *y, enum dc_recompute rc)
{
	const struct dc_overlap *o = &in->overlap;
	enum dc_framework f = in->training.framework;
	uint64_t v = y->virtual_pipeline ? y->virtual_pipeline : 1;
	if (o->param_gather && y->sharding != DC_SHARD_ZERO1)
		return R_OVERLAP;
	if (o->tp && y->tp > 1 && (f == DC_FRAMEWORK_MEGATRON || f == DC_FRAMEWORK_TORCHTITAN) &&
	    (!y->sequence_parallel || (f == DC_FRAMEWORK_TORCHTITAN && !in->training.compile)))
		return R_OVERLAP;
	if (o->ep == DC_EP_OVERLAP_DUALPIPE && (y->ep < 2 || y->pp < 2))
		return R_OVERLAP;
	if (o->ep == DC_EP_OVERLAP_A2A_1F1B && (y->ep < 2 || (y->pp > 1 && v < 2) || rc == DC_RECOMPUTE_FULL))
		return R_OVERLAP;
	return -1;
}

static void run_outer(struct worker *w, const struct outer *o)
{
	struct space *s = w->sp;
	const struct dc_config *in = &s->cfg[o->rc];
	uint64_t dp = s->world / (o->tp * o->cp * o->pp), index;
	enum reject why;
	struct dc_search_entry e;
	struct dc_layout *y = &e.l.layout;
	int outer_ready = 0;

	memset(&e, 0, sizeof(e));
	if (outer_reject(s, o->tp, o->cp, o->pp, &why)) {
		w->rejected[why] += s->inner;
		w->counts.enumerated += s->inner;
		w->counts.rejected_by_rules += s->inner;
		return;
	}
	e.l.recompute = (enum dc_recompute)o->rc;
	/* the input's microbatches a pipeline schedule, where it cuts a
	 * step into several (every layout's: plan.h dc_layout_schedule_m) */
	y->schedule_microbatches = in->parallel.pipeline_schedule_microbatches;
	y->tp = o->tp;
	y->cp = o->cp;
	y->pp = o->pp;
	y->dp = dp;
	/* the virtual pipelines of a micro batch and sp in turn, so that a
	 * layout's kernels and the collectives that read no chunk carry
	 * over from the last one (eval_step); each layout keeps its place in
	 * the enumeration, ep, v, micro batch, sp, sharding (`index`) */
	for (size_t ie = 0; ie < s->nep; ie++) {
		for (size_t ib = 0; ib < s->nmbs; ib++) {
			for (unsigned isp = 0; isp < s->nsp; isp++) {
				for (size_t iv = 0; iv < s->nv; iv++) {
					struct dc_search_entry prev = {0};
					uint64_t prev_low_peak = 0;
					int have_prev = 0, have_low = 0;
					/* w->res.compute holds this (ep, v, mbs, sp)'s
					 * kernel times once a sharding's step is priced */
					int kernels = 0;
					/* w->plan is this (ep, v, mbs, sp)'s, derived
					 * from w->outer_plan (eval_memory) */
					int plan_here = 0;
					/* the plan's rules read no sharding
					 * (plan.h): one answer per dp_replicate of
					 * this (ep, v, mbs, sp), kept in fault */
					enum dc_layout_fault fault = DC_LF_NONE;
					uint64_t fault_rep = 0; /* 0: none kept */
					uint64_t ep = s->ep[ie], v = s->v[iv], mbs = s->mbs[ib];
					uint64_t gas = s->gbs % (dp * mbs) ? 0 : s->gbs / (dp * mbs);
					index = o->first_index + (((ie * s->nv + iv) * s->nmbs + ib) * s->nsp + isp) * s->nshard;
					for (unsigned ish = 0; ish < s->nshard; ish++, index++) {
						int reject = -1;
						w->counts.enumerated++;
						/* HSDP: the input's replicas for a sharded
						 * layout; DDP replicates everything */
						uint64_t rep = s->shard[ish] == DC_SHARD_NONE ? 1
							       : in->parallel.dp_replicate ? in->parallel.dp_replicate : 1;
						/* the plan's rules (plan.h): the input's expert tp
						 * group (0: follow tp) and its replicas */
						enum dc_layout_fault f;
						y->ep = ep;
						y->etp = dc_config_layout_etp(in, ep);
						y->dp_replicate = rep;
						y->virtual_pipeline = v;
						y->micro_batch_size = mbs;
						y->grad_accum_steps = gas;
						y->sequence_parallel = s->sp[isp];
						y->sharding = (enum dc_sharding)s->shard[ish];
						if (fault_rep != rep) {
							fault = dc_layout_fault_inner(in, y);
							fault_rep = rep;
						} else {
							DC_MEMO_VERIFY(fault_verify(in, y, fault));
						}
						f = fault;
						if (s->etp_by_ep && !dc_config_tp_splits_mlp(&in->model, y->tp, dc_config_etp(in, y->tp, ep)))
							reject = R_TP_MLP; /* as the loader's rule_tp_mlp, at this ep's etp */
						else if (f == DC_LF_EXPERT)
							reject = R_EP;
						else if (f == DC_LF_REPLICATE)
							reject = R_REPLICATE;
						else if (f == DC_LF_BATCH)
							reject = R_BATCH;
						else if (f == DC_LF_VP)
							reject = R_VP;
						else if (f == DC_LF_SP ||
							 (y->sequence_parallel && !dc_config_sp_splits_tokens(&in->model, y->tp, y->cp)))
							reject = R_SP;
						else if (f == DC_LF_SCHEDULE)
							reject = R_SCHEDULE;
						else if (in->parallel.offload == DC_OFFLOAD_OPTIMIZER_PARAMS &&
							 s->shard[ish] != DC_SHARD_FSDP)
							reject = R_OFFLOAD;
						else if (in->training.framework == DC_FRAMEWORK_DEEPSPEED && y->pp > 1 &&
							 (y->sharding == DC_SHARD_ZERO2 || y->sharding == DC_SHARD_FSDP || v > 1 ||
							  (in->parallel.pipeline_schedule != DC_PIPE_1F1B &&
							   in->parallel.pipeline_schedule != DC_PIPE_INTERLEAVED)))
							reject = R_FRAMEWORK; /* as the loader's rule 40 (a schedule but 1F1B: its warning) */
						else if (in->training.framework == DC_FRAMEWORK_MEGATRON && in->model.num_experts &&
							 y->tp > 1 && !y->sequence_parallel)
							reject = R_FRAMEWORK; /* as the loader's rule 40: Megatron's MoE layer raises */
						else if (in->training.framework == DC_FRAMEWORK_MEGATRON &&
							 y->sharding == DC_SHARD_FSDP && (y->pp > 1 || ep > 1))
							reject = R_FRAMEWORK; /* as the loader's rule 40: --use-torch-fsdp2 asserts pp 1, ep 1 */
						else if (in->training.framework == DC_FRAMEWORK_MEGATRON &&
							 in->precision.param_bytes == 1 && y->sharding == DC_SHARD_NONE)
							reject = R_FRAMEWORK; /* as the loader's rule 46: FP8 primary weights need the
									       * distributed optimizer or FSDP (a review) */
						else if (in->training.framework == DC_FRAMEWORK_TORCHTITAN && in->parallel.etp &&
							 in->model.num_experts && in->parallel.etp != (ep > 1 ? 1 : y->tp))
							reject = R_FRAMEWORK; /* as the loader's rule 11: torchtitan has no etp */
						else if (in->training.recompute_layers && o->rc != DC_RECOMPUTE_FULL)
							reject = R_RECOMPUTE; /* above a chunk's layers: the whole chunk, as the loader's warns */
						else if (in->training.recompute_modules_mask && o->rc != DC_RECOMPUTE_SELECTIVE)
							reject = R_RECOMPUTE; /* as the loader's: the modules are selective's */
						else if (bf16_layers_reject(in, o->pp, v))
							reject = R_BF16_LAYERS;
						else if ((reject = loss_chunks_reject(in, mbs, o->cp)) < 0)
							reject = overlap_reject(in, y, (enum dc_recompute)o->rc);
						if (reject >= 0) {
							w->rejected[reject]++;
							w->counts.rejected_by_rules++;
							continue;
						}
						e.l.index = index;
						/* the outer tuple's topology once, then its variants from it */
						if (!outer_ready) {
							if (dc_plan_derive_from(&s->base[o->rc], y, &w->outer_plan) != 0) {
								w->rejected[R_OVERFLOW]++;
								w->counts.rejected_by_rules++;
								continue;
							}
							/* the collectives' prices memoised across
							 * the search: every plan has the input's
							 * cluster, so one network */
							dc_net_memo_bind(w->memo, &w->outer_plan.net);
							w->outer_plan.net_memo = w->memo;
							/* and the step's stages, kept while only
							 * the sharding (not FSDP) changes */
							w->outer_plan.step_memo = w->step_memo;
							/* and the ledgers' activation parts, which
							 * read no sharding */
							w->outer_plan.mem_memo = w->mem_memo;
							/* and the dp and fsdp calls, which
							 * repeat over a sharding's layouts */
							w->outer_plan.comm_memo = w->comm_memo;
							/* a search reads the step's time,
							 * rates and MFU alone (plan.h) */
							w->outer_plan.step_rank_only = 1;
							outer_ready = 1;
						}
						if (eval_memory(w, &w->outer_plan, &e, &plan_here) != 0) {
							w->rejected[R_OVERFLOW]++;
							w->counts.rejected_by_rules++;
							continue;
						}
						w->counts.valid++;
						w->counts.priced_memory++;
						if (e.l.recompute == s->input.l.recompute && same_layout(y, &s->input_layout))
							w->input_seen = 1;
						if (!w->has_tightest || cmp_peak(s, &e, &w->tightest) < 0) {
							w->tightest = e;
							w->has_tightest = 1;
						}
						if (!e.fits) {
							/* by peak alone, a sharding with the same peak
							 * as the one before ranks once too */
							if (w->counts.fit == 0 && !(have_low && prev_low_peak == e.peak_bytes))
								topk_add(s, &w->low, &e, cmp_peak);
							prev_low_peak = e.peak_bytes;
							have_low = 1;
							continue;
						}
						w->counts.fit++;
						w->counts.tight += (uint64_t)e.tight;
						if (s->step_available) {
							if (eval_step(w, &e, kernels) != 0) {
								w->error = w->res.error;
								return;
							}
							kernels = 1;
							w->counts.priced_time++;
						}
						/* a sharding that changes nothing (dp x cp = 1
						 * rank holds every shard) ranks once: the first */
						if (have_prev && prev.peak_bytes == e.peak_bytes &&
						    prev.step_time_s == e.step_time_s)
							continue;
						prev = e;
						have_prev = 1;
						if (strictly_better(s, &e, &s->input))
							w->better++;
						topk_add(s, &w->best, &e, cmp_objective);
						if (e.step_available)
							front_add(&w->front, &e);
					}
				}
			}
		}
	}
}

static void *work(void *arg)
{
	struct worker *w = arg;
	struct space *s = w->sp;
	for (;;) {
		size_t i = atomic_fetch_add(&s->next, 1);
		uint64_t done;
		if (i >= s->nouter || w->error)
			break;
		run_outer(w, &s->outer[i]);
		done = atomic_fetch_add(&s->done, s->inner) + s->inner;
		if (w->id == 0 && s->progress && s->progress->fn)
			s->progress->fn(s->progress->ctx, done, s->enumerated);
	}
	return NULL;
}


/* The shardings the search tries: search.space.sharding, or the ones
 * training.framework runs (docs/search.md): torchtitan FSDP2's fully_shard
 * or replicated DDP; Megatron-LM DDP, its distributed optimizer (zero1)
 * or --use-torch-fsdp2; DeepSpeed and custom all four */
static uint32_t shardings_tried(const struct dc_config *in)
{
	const uint32_t none = 1u << DC_SHARD_NONE, fsdp = 1u << DC_SHARD_FSDP;
	if (in->search.sharding_mask)
		return in->search.sharding_mask;
	switch (in->training.framework) {
	case DC_FRAMEWORK_TORCHTITAN:
		return none | fsdp;
	case DC_FRAMEWORK_MEGATRON:
		return none | (1u << DC_SHARD_ZERO1) | fsdp;
	default:
		return (1u << NSHARD) - 1u;
	}
}

static int space_init(struct space *s, const struct dc_config *in, const char **error)
{
	const struct dc_search *q = &in->search;
	uint64_t tps[MAX_DIVISORS], cps[MAX_DIVISORS], pps[MAX_DIVISORS];
	size_t ntp, cap = 0;
	unsigned rcmask = dc_search_recompute_mask(in);
	struct dc_search_values one = {1, {1}};

	s->in = in;
	s->schedule_named = in->origin[dc_config_key_index("parallel.pipeline_schedule")] != DC_ORIGIN_DEFAULT;
	s->world = in->world_size;
	s->gbs = in->training.global_batch_size
			 ? in->training.global_batch_size
			 : in->training.micro_batch_size * in->training.grad_accum_steps * in->parallel.dp;
	s->limit_bytes = (uint64_t)((double)in->cluster.gpu_mem_bytes * (1.0 - q->headroom));
	s->nep = in->model.num_experts ? divisors(in->model.num_experts, &q->ep, s->ep)
				       : divisors(1, q->ep.n ? &q->ep : &one, s->ep);
	s->nv = divisors(in->model.num_layers, &q->virtual_pipeline, s->v);
	{
		/* interleaving over the input's uneven stages: its own v, which
		 * need not divide the layers (61 on pp 8 x v 4) */
		uint64_t in_v = in->parallel.virtual_pipeline ? in->parallel.virtual_pipeline : 1;
		size_t at = 0;
		while (at < s->nv && s->v[at] < in_v)
			at++;
		if (in_v > 1 && dc_stages_uneven(&in->parallel) && (at == s->nv || s->v[at] != in_v) &&
		    in_values(&q->virtual_pipeline, in_v) && s->nv < MAX_DIVISORS) {
			memmove(&s->v[at + 1], &s->v[at], (s->nv - at) * sizeof(s->v[0]));
			s->v[at] = in_v;
			s->nv++;
		}
	}
	s->nmbs = divisors(s->gbs, &q->micro_batch_size, s->mbs);
	s->nshard = 0;
	for (unsigned i = 0; i < NSHARD; i++)
		if (shardings_tried(in) >> i & 1)
			s->shard[s->nshard++] = i;
	s->nsp = 0;
	for (unsigned i = 0; i < 2; i++)
		if (!q->sequence_parallel_mask || (q->sequence_parallel_mask >> i & 1))
			s->sp[s->nsp++] = (int)i;
	s->inner = (uint64_t)s->nep * s->nv * s->nmbs * s->nshard * s->nsp;
	s->etp_by_ep = in->model.num_experts && dc_config_layout_etp(in, 1) != dc_config_layout_etp(in, 2);
	s->empty = !s->nep ? "no value of search.space.ep divides the experts"
		   : !s->nv ? "no value of search.space.virtual_pipeline divides the layers"
		   : !s->nmbs ? "no value of search.space.micro_batch_size divides the global batch"
		   : NULL;

	s->cfg = dc_calloc(NRECOMPUTE, sizeof(*s->cfg));
	s->base = dc_calloc(NRECOMPUTE, sizeof(*s->base));
	if (!s->cfg || !s->base) {
		*error = "out of memory";
		return -1;
	}
	for (unsigned rc = 0; rc < NRECOMPUTE; rc++) {
		if (!(rcmask >> rc & 1))
			continue;
		s->cfg[rc] = *in;
		s->cfg[rc].training.recompute = (enum dc_recompute)rc;
		if (dc_plan_derive(&s->cfg[rc], &s->base[rc]) != 0) {
			*error = s->base[rc].error;
			return -1;
		}
		s->have[rc] = 1;
	}

	ntp = divisors(s->world, &q->tp, tps);
	if (!ntp && !s->empty)
		s->empty = "no value of search.space.tp divides the GPUs";
	for (unsigned rc = 0; rc < NRECOMPUTE; rc++) {
		if (!s->have[rc])
			continue;
		for (size_t a = 0; a < ntp; a++) {
			size_t ncp = divisors(s->world / tps[a], &q->cp, cps);
			for (size_t b = 0; b < ncp; b++) {
				size_t npp = divisors(s->world / tps[a] / cps[b], &q->pp, pps);
				for (size_t c = 0; c < npp; c++) {
					if (s->nouter == cap) {
						size_t ncap = cap ? 2 * cap : 256;
						struct outer *no = realloc(s->outer, ncap * sizeof(*no));
						if (!no) {
							*error = "out of memory";
							return -1;
						}
						s->outer = no;
						cap = ncap;
					}
					s->outer[s->nouter].rc = rc;
					s->outer[s->nouter].tp = tps[a];
					s->outer[s->nouter].cp = cps[b];
					s->outer[s->nouter].pp = pps[c];
					s->outer[s->nouter].first_index = s->enumerated;
					s->enumerated += s->inner;
					s->nouter++;
				}
			}
		}
	}
	return 0;
}

static void describe_layout(const struct dc_search_entry *e, char *buf, size_t len)
{
	dc_search_layout_text(&e->l, 0, buf, len);
}

static int has_u64(const uint64_t *v, size_t n, uint64_t x)
{
	for (size_t i = 0; i < n; i++)
		if (v[i] == x)
			return 1;
	return 0;
}

/* Why the space does not hold the input's own layout, into buf: the
 * first of its values the space's lists leave out, else the rules. */
static void input_outside(const struct space *s, char *buf, size_t len)
{
	const struct dc_config *in = s->in;
	const struct dc_layout *y = &s->input_layout;
	int outer = 0, shard = 0, sp = 0;
	for (size_t i = 0; i < s->nouter; i++)
		outer |= s->outer[i].tp == y->tp && s->outer[i].cp == y->cp && s->outer[i].pp == y->pp &&
			 s->outer[i].rc == (unsigned)in->training.recompute;
	for (unsigned i = 0; i < s->nshard; i++)
		shard |= s->shard[i] == (unsigned)y->sharding;
	for (unsigned i = 0; i < s->nsp; i++)
		sp |= s->sp[i] == y->sequence_parallel;
	if (in->search.recompute_mask && !(in->search.recompute_mask & (1u << in->training.recompute)))
		snprintf(buf, len, "its training.recompute \"%s\" is not in search.space.recompute",
			 dc_recompute_name(in->training.recompute));
	else if (!(dc_search_recompute_mask(in) & (1u << in->training.recompute)))
		snprintf(buf, len, "its training.recompute \"%s\" is searched only when search.space.recompute lists it (the default tries none, %s and full, what training.framework \"%s\" runs)",
			 dc_recompute_name(in->training.recompute),
			 in->training.framework == DC_FRAMEWORK_TORCHTITAN ? "op" : "selective",
			 dc_framework_name(in->training.framework));
	else if (!shard)
		snprintf(buf, len, "its parallel.sharding \"%s\" is not in the space's shardings", dc_sharding_name(y->sharding));
	else if (!sp)
		snprintf(buf, len, "its parallel.sequence_parallel %s is not in the space", y->sequence_parallel ? "true" : "false");
	else if (!has_u64(s->v, s->nv, y->virtual_pipeline ? y->virtual_pipeline : 1))
		snprintf(buf, len, "its parallel.virtual_pipeline %llu is not in the space's",
			 (unsigned long long)(y->virtual_pipeline ? y->virtual_pipeline : 1));
	else if (!has_u64(s->mbs, s->nmbs, y->micro_batch_size))
		snprintf(buf, len, "its training.micro_batch_size %llu is not in the space's",
			 (unsigned long long)y->micro_batch_size);
	else if (!has_u64(s->ep, s->nep, y->ep ? y->ep : 1))
		snprintf(buf, len, "its parallel.ep %llu is not in the space's", (unsigned long long)(y->ep ? y->ep : 1));
	else if (!outer)
		snprintf(buf, len, "its tp %llu x cp %llu x pp %llu is not among the space's (search.space and the rules on tp, cp and pp: docs/search.md)",
			 (unsigned long long)y->tp, (unsigned long long)y->cp, (unsigned long long)y->pp);
	else
		snprintf(buf, len, "a rule of the space refuses it (docs/search.md, the space's table)");
}

/* Merges the workers into *out. */
static int finish(struct space *s, struct worker *w, unsigned n, struct dc_search_result *out, const char **error)
{
	const struct dc_config *in = s->in;
	uint64_t rejected[R_COUNT] = {0};
	struct topk best = {0, in->search.top, out->best};
	struct dc_search_entry low[DC_SEARCH_MAX_TOP];
	struct topk lowk = {0, in->search.top, low};
	struct front *front = &w[0].front;

	out->input = s->input;
	out->input_rank = 1;
	for (unsigned i = 0; i < n; i++) {
		out->input_rank += w[i].better;
		out->input_in_space |= w[i].input_seen;
		out->counts.enumerated += w[i].counts.enumerated;
		out->counts.rejected_by_rules += w[i].counts.rejected_by_rules;
		out->counts.valid += w[i].counts.valid;
		out->counts.priced_memory += w[i].counts.priced_memory;
		out->counts.priced_time += w[i].counts.priced_time;
		out->counts.fit += w[i].counts.fit;
		out->counts.tight += w[i].counts.tight;
		for (int r = 0; r < R_COUNT; r++)
			rejected[r] += w[i].rejected[r];
		for (size_t k = 0; k < w[i].best.n; k++)
			topk_add(s, &best, &w[i].best.e[k], cmp_objective);
		for (size_t k = 0; k < w[i].low.n; k++)
			topk_add(s, &lowk, &w[i].low.e[k], cmp_peak);
		if (i > 0)
			for (size_t k = 0; k < w[i].front.n; k++)
				front_add(front, &w[i].front.e[k]);
		front->truncated |= w[i].front.truncated;
		if (w[i].has_tightest && (!out->has_tightest || cmp_peak(s, &w[i].tightest, &out->tightest) < 0)) {
			out->tightest = w[i].tightest;
			out->has_tightest = 1;
		}
	}
	out->input_outside[0] = '\0';
	if (!out->input_in_space)
		input_outside(s, out->input_outside, sizeof(out->input_outside));
	out->limit_bytes = s->limit_bytes;
	out->step_available = s->step_available;
	out->nbest = best.n;
	out->npareto = front->n;
	memcpy(out->pareto, front->e, front->n * sizeof(front->e[0]));
	out->pareto_truncated = front->truncated;
	out->why[0] = 0;
	if (out->counts.enumerated == 0) {
		/* search.space left no value of a dimension, or no tp x cp x
		 * pp that divides the GPUs (the loader's warnings name the
		 * values left out) */
		if (s->empty)
			snprintf(out->why, sizeof(out->why),
				 "the space holds no layout: %s (the warnings name the values left out)", s->empty);
		else
			snprintf(out->why, sizeof(out->why),
				 "the space holds no layout: no tp x cp x pp of search.space divides the %llu GPUs",
				 (unsigned long long)s->world);
	} else if (out->counts.valid == 0) {
		/* each tuple is counted at the first rule it breaks, so the
		 * counts depend on the rules' order and a rule that would refuse
		 * them all can stay behind others (a search trial:
		 * sequence_parallel forced at tp 1 names the virtual-pipeline and
		 * batch rules): the message says so and names the next rule too */
		int top = 0, next = -1, used;
		for (int r = 1; r < R_COUNT; r++)
			if (rejected[r] > rejected[top])
				top = r;
		for (int r = 0; r < R_COUNT; r++)
			if (r != top && rejected[r] > 0 && (next < 0 || rejected[r] > rejected[next]))
				next = r;
		used = snprintf(out->why, sizeof(out->why),
				"no layout of the %llu enumerated is valid: the rule that refused the most (each layout "
				"counted at the first rule it breaks), %llu of them: %s",
				(unsigned long long)out->counts.enumerated, (unsigned long long)rejected[top],
				reject_text[top]);
		if (next >= 0 && used > 0 && (size_t)used < sizeof(out->why))
			snprintf(out->why + used, sizeof(out->why) - (size_t)used, "; then, %llu of them: %s",
				 (unsigned long long)rejected[next], reject_text[next]);
	} else if (out->counts.fit == 0) {
		char lay[400];
		describe_layout(&out->tightest, lay, sizeof(lay));
		if (out->tightest.peak_bytes <= s->limit_bytes)
			/* the GPU holds it: the host does not (eval_memory's fit) */
			snprintf(out->why, sizeof(out->why),
				 "no layout fits GPU and host memory together: the smallest peak, %.3f GiB (%.400s), is within the limit %.3f GiB (gpu_memory x (1 - search.headroom)), but its offloaded states need more than cluster.host_memory per node (the report's summary.host_shortfall_bytes)",
				 (double)out->tightest.peak_bytes / (1024.0 * 1024.0 * 1024.0), lay,
				 (double)s->limit_bytes / (1024.0 * 1024.0 * 1024.0));
		else
			snprintf(out->why, sizeof(out->why),
				 "no layout fits: the smallest peak is %.3f GiB (%.400s), above the limit %.3f GiB (gpu_memory x (1 - search.headroom))",
				 (double)out->tightest.peak_bytes / (1024.0 * 1024.0 * 1024.0), lay,
				 (double)s->limit_bytes / (1024.0 * 1024.0 * 1024.0));
		/* the smallest peaks, priced in full, none fitting (the
		 * tightest is the first of them, priced again for itself) */
		for (size_t k = 0; k < lowk.n; k++) {
			out->best[k] = lowk.e[k];
			if (eval_full(&w[0], &out->best[k]) != 0) {
				*error = w[0].res.error;
				return -1;
			}
			if (s->step_available)
				out->counts.priced_time++;
		}
		out->nbest = lowk.n;
		if (eval_full(&w[0], &out->tightest) != 0) {
			*error = w[0].res.error;
			return -1;
		}
	}
	return 0;
}

int dc_search_run(const struct dc_config *in, unsigned jobs, const struct dc_search_progress *progress,
		  struct dc_search_result *out, const char **error)
{
	struct space *s = dc_calloc(1, sizeof(*s));
	struct worker *w = NULL;
	struct dc_search_entry *store = NULL;
	unsigned started = 0;
	int rc = -1;
	size_t top = in->search.top < 1 ? 1 : in->search.top > DC_SEARCH_MAX_TOP ? DC_SEARCH_MAX_TOP : in->search.top;

	memset(out, 0, sizeof(*out));
	if (!s) {
		*error = "out of memory";
		return -1;
	}
	if (jobs == 0)
		jobs = 1;
	if (space_init(s, in, error) != 0)
		goto done;
	s->progress = progress;
	atomic_init(&s->next, 0);
	atomic_init(&s->done, 0);
	if (jobs > s->nouter && s->nouter > 0)
		jobs = (unsigned)s->nouter;
	w = dc_calloc(jobs, sizeof(*w));
	store = dc_calloc((size_t)jobs * 2 * top, sizeof(*store));
	if (!w || !store) {
		*error = "out of memory";
		goto done;
	}
	for (unsigned i = 0; i < jobs; i++) {
		w[i].memo = dc_calloc(1, sizeof(*w[i].memo));
		w[i].step_memo = dc_step_memo_new();
		w[i].mem_memo = dc_mem_memo_new();
		w[i].comm_memo = dc_comm_memo_new();
		if (!w[i].memo || !w[i].step_memo || !w[i].mem_memo || !w[i].comm_memo) {
			*error = "out of memory";
			goto done;
		}
		w[i].sp = s;
		w[i].id = i;
		w[i].best = (struct topk){0, top, store + (size_t)i * 2 * top};
		w[i].low = (struct topk){0, top, store + (size_t)i * 2 * top + top};
	}
	{
		/* the step's speeds come from the GPU preset (compute.h):
		 * without them the layouts are ranked by memory */
		unsigned first = 0;
		while (first < NRECOMPUTE && !s->have[first])
			first++;
		if (first == NRECOMPUTE) {
			*error = "search.space.recompute: no policy to try";
			goto done;
		}
		if (dc_estimate(&s->base[first], DC_EST_BIT(DC_EST_COMPUTE), &w[0].res) != 0) {
			*error = w[0].res.error;
			goto done;
		}
		s->step_available = w[0].res.compute.available;
		s->by_memory = in->search.objective == DC_SEARCH_MEMORY || !s->step_available;
	}
	/* the input's own layout, as the report prices it */
	dc_layout_of(in, &s->input_layout);
	memset(&s->input, 0, sizeof(s->input));
	s->input.l.layout = s->input_layout;
	s->input.l.recompute = in->training.recompute;
	s->input.l.schedule = in->parallel.pipeline_schedule;
	s->input.l.schedule_named = s->schedule_named;
	s->input.l.index = UINT64_MAX;
	if (!s->have[in->training.recompute]) {
		/* a policy left out of the space: its plan is the input's own */
		s->cfg[in->training.recompute] = *in;
		if (dc_plan_derive(&s->cfg[in->training.recompute], &s->base[in->training.recompute]) != 0) {
			*error = s->base[in->training.recompute].error;
			goto done;
		}
	}
	if (eval_full(&w[0], &s->input) != 0) {
		*error = w[0].res.error;
		goto done;
	}
	if (jobs == 1) {
		work(&w[0]);
		started = 1;
	} else {
		for (; started < jobs; started++)
			if (pthread_create(&w[started].thread, NULL, work, &w[started]) != 0)
				break;
		for (unsigned i = 0; i < started; i++)
			pthread_join(w[i].thread, NULL);
		if (started == 0) {
			*error = "could not start a search thread";
			goto done;
		}
		/* a thread that would not start left its share to the others */
	}
	for (unsigned i = 0; i < started; i++)
		if (w[i].error) {
			*error = w[i].error;
			goto done;
		}
	rc = finish(s, w, started, out, error);
done:
	free(store);
	for (unsigned i = 0; w && i < jobs; i++) {
		free(w[i].memo);
		dc_step_memo_free(w[i].step_memo);
		dc_mem_memo_free(w[i].mem_memo);
		dc_comm_memo_free(w[i].comm_memo);
	}
	free(w);
	free(s->outer);
	free(s->cfg);
	free(s->base);
	free(s);
	return rc;
}

int dc_search_tight(uint64_t peak_bytes, uint64_t limit_bytes)
{
	return peak_bytes <= limit_bytes && peak_bytes >= limit_bytes - limit_bytes / 20;
}

void dc_search_tight_usable(enum dc_gpu gpu, const char **clause, const char **fix)
{
	enum dc_gpu_arch arch = dc_gpu_arch(gpu);
	int hbm3 = arch == DC_GPU_ARCH_HOPPER || arch == DC_GPU_ARCH_BLACKWELL;
	*clause = hbm3 ? ", and an HBM3 or HBM3e card's usable memory is below its data sheet's (an H100 SXM5 80GB, "
			 "for one, reports 79.65 GiB; docs/compute-model.md, \"The presets\")"
		       : "";
	*fix = hbm3 ? "give cluster.gpu_memory the memory nvidia-smi reports, " : "";
}
