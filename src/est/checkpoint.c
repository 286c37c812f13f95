/* checkpoint.c - checkpoint save, its memory and time, and the restore
 * map; see checkpoint.h and docs/checkpoint-and-loss.md. */
#include "distcalc/checkpoint.h"

#include <math.h>
#include <string.h>

#include "distcalc/activation.h"
#include "distcalc/batch.h"
#include "distcalc/memory.h"
#include "distcalc/params.h"
#include "distcalc/plan.h"
#include "distcalc/util.h"

__extension__ typedef unsigned __int128 u128;

static uint64_t max_u64(uint64_t a, uint64_t b)
{
	return a > b ? a : b;
}

static uint64_t min_u64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

/* floor(e k / K) without overflow (e, k, K < 2^64) */
static uint64_t cut(uint64_t e, uint64_t k, uint64_t K)
{
	return (uint64_t)((u128)e * k / K);
}

uint64_t dc_ckpt_slice(uint64_t e, uint64_t k, uint64_t K)
{
	return cut(e, k + 1, K) - cut(e, k, K);
}

uint64_t dc_ckpt_slice_overlap(uint64_t e, uint64_t k, uint64_t K, uint64_t k2, uint64_t K2)
{
	uint64_t lo = max_u64(cut(e, k, K), cut(e, k2, K2));
	uint64_t hi = min_u64(cut(e, k + 1, K), cut(e, k2 + 1, K2));
	return hi > lo ? hi - lo : 0;
}

void dc_ckpt_stage_items(uint64_t L, uint64_t pp, uint64_t s, uint64_t first_layer, uint64_t layers,
			 uint64_t *first, uint64_t *last)
{
	*first = s == 0 ? 0 : first_layer + 1;
	*last = s + 1 == pp ? L + 2 : first_layer + layers + 1;
}

uint64_t dc_ckpt_even_first_layer(uint64_t L, uint64_t pp, uint64_t s)
{
	return s * (L / pp) + min_u64(s, L % pp);
}

enum dc_ckpt_stages dc_ckpt_new_stages(const struct dc_plan *p)
{
	const struct dc_ckpt_restore *rs = &p->in->checkpoint.restore;
	if (rs->pipeline_layers_n)
		return DC_CKPT_STAGES_GIVEN;
	/* one run of layers a rank, as saved: not DualPipe's two stages a
	 * rank nor DualPipeV's two chunks */
	if (rs->pp == p->layout.pp && p->layout.virtual_pipeline == 1 &&
	    dc_pipeline_schedule(p) != DC_PIPE_DUALPIPE && dc_pipeline_schedule(p) != DC_PIPE_DUALPIPEV)
		return DC_CKPT_STAGES_SAVED;
	return DC_CKPT_STAGES_EVEN;
}

void dc_ckpt_new_stage(const struct dc_plan *p, const struct dc_checkpoint_result *c, uint64_t s,
		       uint64_t *first, uint64_t *layers)
{
	const struct dc_ckpt_restore *rs = &p->in->checkpoint.restore;
	uint64_t L = c->items.num_layers, pp = c->restored.pp;
	switch (c->new_stages) {
	case DC_CKPT_STAGES_GIVEN:
		/* the loader checked pp entries adding up to L */
		*first = 0;
		for (uint64_t i = 0; i < s; i++)
			*first += rs->pipeline_layers[i];
		*layers = rs->pipeline_layers[s];
		return;
	case DC_CKPT_STAGES_SAVED:
		*first = dc_plan_stage_first_layer(p, s);
		*layers = dc_plan_stage_layers(p, s);
		return;
	case DC_CKPT_STAGES_EVEN:
		break;
	}
	*first = dc_ckpt_even_first_layer(L, pp, s);
	*layers = dc_ckpt_even_first_layer(L, pp, s + 1) - *first;
}

/* dense and MoE layers among layers [a, b), and of them those with a
 * Gated DeltaNet block (lin[0] dense, lin[1] MoE; not in dense, moe) */
static void layer_kinds(const struct dc_ckpt_items *it, uint64_t a, uint64_t b, uint64_t *dense, uint64_t *moe,
			uint64_t lin[2])
{
	uint64_t n;
	*moe = it->moe_every > 1 ? dc_params_moe_span(it->dense_layers, it->moe_every, a, b - a)
				 : (b - a) - (min_u64(b, it->dense_layers) - min_u64(a, it->dense_layers));
	*dense = (b - a) - *moe;
	lin[0] = lin[1] = 0;
	if (!it->full_every)
		return;
	n = (b - a) - dc_params_every(a, b - a, it->full_every);
	lin[1] = min_u64(n, *moe);
	lin[0] = n - lin[1];
	*moe -= lin[1];
	*dense -= lin[0];
}

/* Of items [a, b): the embedding, layers [la, lb) and the head present. */
static void item_span(const struct dc_ckpt_items *it, uint64_t a, uint64_t b, int *emb, uint64_t *la,
		      uint64_t *lb, int *head)
{
	uint64_t L = it->num_layers;
	*emb = a == 0 && b > 0;
	*head = b == L + 2 && a <= L + 1;
	*la = a == 0 ? 0 : a - 1;
	*lb = b > L + 1 ? L : b - 1;
	if (*lb < *la)
		*lb = *la;
}

uint64_t dc_ckpt_items_slice(const struct dc_ckpt_items *it, uint64_t a, uint64_t b, uint64_t k, uint64_t K)
{
	int emb, head;
	uint64_t la, lb, nd, nm, lin[2], n = 0;
	if (b <= a)
		return 0;
	item_span(it, a, b, &emb, &la, &lb, &head);
	layer_kinds(it, la, lb, &nd, &nm, lin);
	if (emb)
		n += dc_ckpt_slice(it->embedding, k, K);
	if (head)
		n += dc_ckpt_slice(it->head, k, K);
	return n + nd * dc_ckpt_slice(it->dense_layer, k, K) + nm * dc_ckpt_slice(it->moe_layer, k, K) +
	       lin[0] * dc_ckpt_slice(it->linear_dense_layer, k, K) + lin[1] * dc_ckpt_slice(it->linear_moe_layer, k, K);
}

int dc_ckpt_items_of(const struct dc_plan *p, struct dc_ckpt_items *it, const char **error)
{
	const struct dc_model *m = &p->in->model;
	const struct dc_param_layer *ly = &p->parts;
	struct dc_ck c = {0};
	uint64_t L = m->num_layers, sum;

	memset(it, 0, sizeof(*it));
	it->num_layers = L;
	it->total = p->params_total;
	if (m->params_explicit) {
		/* no shape: the count split evenly over the layers, the rest on the head */
		it->dense_layers = L;
		it->dense_layer = it->moe_layer = m->params / L;
		it->head = m->params - L * it->dense_layer;
		return 0;
	}
	it->dense_layers = p->dense_limit < L ? p->dense_limit : L;
	if (dc_plan_moe_interleaved(p)) {
		/* MoE every n-th layer after the first dense ones (Llama 4) */
		it->dense_layers = m->dense_layers;
		it->moe_every = m->moe_layer_interval;
	}
	it->embedding = dc_ck_add(&c, p->terms.embedding, p->terms.position);
	/* the MTP modules follow the last layer on the last stage */
	it->head = dc_ck_add(&c, dc_ck_add(&c, ly->norm, p->terms.lm_head), p->terms.mtp);
	{
		uint64_t attn = dc_ck_add(&c, ly->attention.split, ly->attention.replicated);
		uint64_t lin = dc_ck_add(&c, ly->linear_attention.split, ly->linear_attention.replicated);
		uint64_t norms = dc_ck_mul(&c, dc_params_layer_norms(m), ly->norm);
		uint64_t expert = dc_ck_add(&c, ly->expert.split, ly->expert.replicated);
		uint64_t mlp = dc_ck_add(&c, ly->mlp.split, ly->mlp.replicated);
		uint64_t moe = dc_ck_add(&c, dc_ck_mul(&c, m->num_experts, expert),
					 dc_ck_add(&c, dc_ck_add(&c, ly->router.split, ly->router.replicated),
						   dc_ck_add(&c, ly->shared_experts.split, ly->shared_experts.replicated)));
		it->layer_experts = dc_ck_mul(&c, m->num_experts, expert);
		it->head_experts = p->terms.mtp_experts;
		it->dense_layer = dc_ck_add(&c, dc_ck_add(&c, attn, norms), mlp);
		it->moe_layer = dc_ck_add(&c, dc_ck_add(&c, attn, norms), moe);
		it->full_every = m->full_attention_interval;
		if (it->full_every) {
			it->linear_dense_layer = dc_ck_add(&c, dc_ck_add(&c, lin, norms), mlp);
			it->linear_moe_layer = dc_ck_add(&c, dc_ck_add(&c, lin, norms), moe);
		}
	}
	{
		uint64_t nd, nm, nl[2];
		layer_kinds(it, 0, L, &nd, &nm, nl);
		sum = dc_ck_add(&c, dc_ck_add(&c, it->embedding, it->head),
				dc_ck_add(&c, dc_ck_add(&c, dc_ck_mul(&c, nd, it->dense_layer), dc_ck_mul(&c, nm, it->moe_layer)),
					  dc_ck_add(&c, dc_ck_mul(&c, nl[0], it->linear_dense_layer),
						    dc_ck_mul(&c, nl[1], it->linear_moe_layer))));
	}
	if (c.overflow) {
		*error = "'model': checkpoint elements overflow 64 bits";
		return -1;
	}
	if (sum != it->total) {
		*error = "'model': the checkpoint's items do not add up to the parameter count (a bug)";
		return -1;
	}
	return 0;
}

/* The saved layout's model chunks in item order: pp x v of them, chunk q
 * on stage q mod pp (Megatron's interleaved schedule: chunk c of stage s
 * is q = c pp + s, its layers as the plan places them, uneven chunks
 * included: dc_plan_chunk_start/layers); with v = 1 the stages. */
static uint64_t saved_chunks(const struct dc_plan *p)
{
	return p->layout.pp * p->v;
}

static void saved_chunk_items(const struct dc_plan *p, uint64_t L, uint64_t q, uint64_t *a, uint64_t *b)
{
	if (p->v <= 1)
		dc_ckpt_stage_items(L, p->layout.pp, q, dc_plan_stage_first_layer(p, q), dc_plan_stage_layers(p, q), a, b);
	else
		dc_ckpt_stage_items(L, saved_chunks(p), q, dc_plan_chunk_start(p, q % p->layout.pp, q / p->layout.pp),
				    dc_plan_chunk_layers(p, q % p->layout.pp, q / p->layout.pp), a, b);
}

static uint64_t saved_rank_global(const struct dc_plan *p, uint64_t s, uint64_t t, uint64_t d)
{
	const struct dc_topology *tp = &p->topo;
	uint64_t cp = p->layout.cp ? p->layout.cp : 1, replica = d / cp, c = d % cp;
	uint64_t ep = tp->degree[DC_AXIS_EP] ? tp->degree[DC_AXIS_EP] : 1;
	return t * tp->stride[DC_AXIS_TP] + c * tp->stride[DC_AXIS_CP] + (replica % ep) * tp->stride[DC_AXIS_EP] +
	       (replica / ep) * tp->stride[DC_AXIS_DP] + s * tp->stride[DC_AXIS_PP];
}

void dc_ckpt_rank_of(const struct dc_plan *p, const struct dc_checkpoint_result *c, uint64_t s, uint64_t k,
		     struct dc_ckpt_rank *r)
{
	const struct dc_precision *pr = &p->in->precision;
	const struct dc_ckpt_layout *o = &c->saved;
	int is_rank0 = s == 0 && k == 0;

	memset(r, 0, sizeof(*r));
	r->stage = s;
	r->tp_rank = k / o->dpcp;
	r->dp_rank = k % o->dpcp;
	if (p->in->checkpoint.format == DC_CKPT_FULL) {
		/* rank 0 writes the whole state dict; the others only their own RNG and data position */
		r->elements = is_rank0 ? c->items.total : 0;
	} else {
		for (uint64_t q = s; q < saved_chunks(p); q += o->pp) {
			uint64_t a, b;
			saved_chunk_items(p, c->items.num_layers, q, &a, &b);
			r->elements += dc_ckpt_items_slice(&c->items, a, b, k, o->slices);
		}
	}
	/* the loader bounds the state bytes per rank to 2^53 (config.h) */
	r->params_bytes = r->elements * pr->param_bytes;
	r->master_bytes = r->elements * pr->master_bytes;
	r->optimizer_bytes = r->elements * pr->optimizer_bytes;
	r->scaler_rng_bytes = DC_CKPT_RNG_BYTES + (is_rank0 ? DC_CKPT_SCALER_BYTES : 0);
	r->data_bytes = DC_CKPT_DATA_BYTES;
	r->sched_bytes = is_rank0 ? DC_CKPT_SCHED_BYTES : 0;
	r->total_bytes = r->params_bytes + r->master_bytes + r->optimizer_bytes + r->scaler_rng_bytes + r->data_bytes +
			 r->sched_bytes;
}

/* the saved chunks whose items meet items [a, b) of the new layout */
static void saved_chunks_meeting(const struct dc_plan *p, uint64_t L, uint64_t a, uint64_t b, uint64_t *q_lo,
				 uint64_t *q_hi)
{
	uint64_t n = saved_chunks(p), l = 0, r = n - 1;
	/* the chunks' items are consecutive and ascending: bisect for the
	 * last chunk whose first item is <= a, then the last one < b */
	while (l < r) {
		uint64_t mid = l + (r - l + 1) / 2, fa, fb;
		saved_chunk_items(p, L, mid, &fa, &fb);
		if (fa <= a)
			l = mid;
		else
			r = mid - 1;
	}
	*q_lo = l;
	r = n - 1;
	while (l < r) {
		uint64_t mid = l + (r - l + 1) / 2, fa, fb;
		saved_chunk_items(p, L, mid, &fa, &fb);
		if (fa < b)
			l = mid;
		else
			r = mid - 1;
	}
	*q_hi = l;
}

/* The item kinds of a range of items, with their multiplicities: the
 * embedding, the head, the dense, MoE and the two linear-attention layer
 * kinds (layer_kinds' counts). */
enum { KIND_EMB, KIND_HEAD, KIND_DENSE, KIND_MOE, KIND_LIN_DENSE, KIND_LIN_MOE, KIND_COUNT };

static void kinds_add(const struct dc_ckpt_items *it, uint64_t a, uint64_t b, uint64_t n[KIND_COUNT])
{
	int emb, head;
	uint64_t la, lb, nd, nm, lin[2];
	if (b <= a)
		return;
	item_span(it, a, b, &emb, &la, &lb, &head);
	layer_kinds(it, la, lb, &nd, &nm, lin);
	n[KIND_EMB] += (uint64_t)emb;
	n[KIND_HEAD] += (uint64_t)head;
	n[KIND_DENSE] += nd;
	n[KIND_MOE] += nm;
	n[KIND_LIN_DENSE] += lin[0];
	n[KIND_LIN_MOE] += lin[1];
}

static uint64_t kinds_slice(const uint64_t e[KIND_COUNT], const uint64_t n[KIND_COUNT], uint64_t k, uint64_t K)
{
	uint64_t sum = 0;
	for (int i = 0; i < KIND_COUNT; i++)
		if (n[i])
			sum += n[i] * dc_ckpt_slice(e[i], k, K);
	return sum;
}

/* What new slice k' = t' dpcp' + d' holds of an item of each kind: its
 * non-expert part (the item's first D elements) as slice kd of KD, its
 * routed experts (the last X) as slice kx of KX. A state held whole: the
 * tp' shard, slice t' of tp', and the expert slice x = k' / erep of ee =
 * ep' x etp' (the erep expert-data-parallel ranks holding one expert
 * slice are consecutive in k'); a sharded one: slice t' G + (d' mod G) of
 * tp' G and x Ge + (k' mod Ge) of ee Ge, each inside the whole one. */
struct nslice {
	uint64_t kd, KD, kx, KX;
};

static void new_slices(const struct dc_ckpt_layout *n, uint64_t k2, struct nslice *w, struct nslice *sh)
{
	uint64_t t = k2 / n->dpcp, d = k2 % n->dpcp, x = k2 / n->erep;
	w->kd = t;
	w->KD = n->tp;
	w->kx = x;
	w->KX = n->ee;
	sh->kd = t * n->shard + d % n->shard;
	sh->KD = n->tp * n->shard;
	sh->kx = x * n->eshard + k2 % n->eshard;
	sh->KX = n->ee * n->eshard;
}

static void kind_sizes(const struct dc_ckpt_items *it, uint64_t e[KIND_COUNT], uint64_t x[KIND_COUNT])
{
	e[KIND_EMB] = it->embedding;
	e[KIND_HEAD] = it->head;
	e[KIND_DENSE] = it->dense_layer;
	e[KIND_MOE] = it->moe_layer;
	e[KIND_LIN_DENSE] = it->linear_dense_layer;
	e[KIND_LIN_MOE] = it->linear_moe_layer;
	memset(x, 0, KIND_COUNT * sizeof(x[0]));
	x[KIND_HEAD] = it->head_experts;
	x[KIND_MOE] = it->layer_experts;
	x[KIND_LIN_MOE] = it->full_every ? it->layer_experts : 0;
}

/* the elements slice `ns` holds of the kinds counted in n */
static uint64_t kinds_nslice(const uint64_t e[KIND_COUNT], const uint64_t x[KIND_COUNT], const uint64_t n[KIND_COUNT],
			     const struct nslice *ns)
{
	uint64_t sum = 0;
	for (int i = 0; i < KIND_COUNT; i++)
		if (n[i])
			sum += n[i] * (dc_ckpt_slice(e[i] - x[i], ns->kd, ns->KD) + dc_ckpt_slice(x[i], ns->kx, ns->KX));
	return sum;
}

/* The old slices k of K that new slice `ns` of items [a, b) meets with a
 * non-empty overlap: how many, the first and the last; 0 when none. The
 * slice is two ranges [A, B) of each kind's item (its non-expert part and
 * its experts); of an item of E elements, the old slices meeting [A, B)
 * are k in [ceil((A + 1) K / E) - 1, ceil(B K / E) - 1] (floor(E k / K)
 * < B, floor(E (k+1) / K) > A), each non-empty when E >= K: the ranges'
 * intervals merged are the answer, O(kinds). A kind under K elements has
 * empty old slices among its interval: then the intervals are walked, at
 * most their length each. */
static uint64_t old_slices_met(const struct dc_ckpt_items *it, uint64_t a, uint64_t b, const struct nslice *ns,
			       uint64_t K, uint64_t *first, uint64_t *last)
{
	uint64_t e[KIND_COUNT], x[KIND_COUNT], cnt[KIND_COUNT] = {0};
	uint64_t lo[2 * KIND_COUNT], hi[2 * KIND_COUNT], ra[2 * KIND_COUNT], rb[2 * KIND_COUNT], re[2 * KIND_COUNT];
	uint64_t count = 0;
	int m = 0, small = 0;

	kind_sizes(it, e, x);
	kinds_add(it, a, b, cnt);
	for (int i = 0; i < KIND_COUNT; i++) {
		uint64_t D = e[i] - x[i];
		uint64_t A[2] = {cut(D, ns->kd, ns->KD), D + cut(x[i], ns->kx, ns->KX)};
		uint64_t B[2] = {cut(D, ns->kd + 1, ns->KD), D + cut(x[i], ns->kx + 1, ns->KX)};
		if (!cnt[i] || !e[i])
			continue;
		if (e[i] < K)
			small = 1;
		for (int h = 0; h < 2; h++) {
			if (A[h] >= B[h])
				continue;
			lo[m] = (uint64_t)(((u128)(A[h] + 1) * K + e[i] - 1) / e[i]) - 1;
			hi[m] = (uint64_t)(((u128)B[h] * K + e[i] - 1) / e[i]) - 1;
			ra[m] = A[h];
			rb[m] = B[h];
			re[m] = e[i];
			m++;
		}
	}
	/* sort by start (m <= 12), then sweep */
	for (int i = 1; i < m; i++)
		for (int j = i; j > 0 && lo[j] < lo[j - 1]; j--) {
			uint64_t t;
#define SWAP(v) (t = v[j], v[j] = v[j - 1], v[j - 1] = t)
			SWAP(lo);
			SWAP(hi);
			SWAP(ra);
			SWAP(rb);
			SWAP(re);
#undef SWAP
		}
	for (int i = 0; i < m;) {
		uint64_t s0 = lo[i], e0 = hi[i];
		int i0 = i;
		for (i++; i < m && lo[i] <= e0 + 1; i++)
			e0 = max_u64(e0, hi[i]);
		if (!small) {
			if (!count)
				*first = s0;
			*last = max_u64(count ? *last : e0, e0);
			count += e0 - s0 + 1;
			continue;
		}
		for (uint64_t k = s0; k <= e0; k++) {
			int hit = 0;
			for (int h = i0; h < i && !hit; h++)
				hit = min_u64(cut(re[h], k + 1, K), rb[h]) > max_u64(cut(re[h], k, K), ra[h]);
			if (!hit)
				continue;
			if (!count)
				*first = k;
			*last = k;
			count++;
		}
	}
	return count;
}

void dc_ckpt_read_of(const struct dc_plan *p, const struct dc_checkpoint_result *c, uint64_t j,
		     struct dc_ckpt_read *out)
{
	const struct dc_ckpt_layout *o = &c->saved, *n = &c->restored;
	const struct dc_precision *pr = &p->in->precision;
	enum dc_sharding sh = p->layout.sharding;
	uint64_t L = c->items.num_layers, s2 = j / n->slices, k2 = j % n->slices, a, b, s_lo, s_hi;
	uint64_t first2, layers2;
	uint64_t whole = 0, shard = 0, e[KIND_COUNT], x[KIND_COUNT];
	struct nslice w, sl;
	const struct nslice *wide;
	int any = 0;

	memset(out, 0, sizeof(*out));
	dc_ckpt_new_stage(p, c, s2, &first2, &layers2);
	out->stage = s2;
	out->tp_rank = k2 / n->dpcp;
	out->dp_rank = k2 % n->dpcp;
	new_slices(n, k2, &w, &sl);
	kind_sizes(&c->items, e, x);
	/* the old shards met: those of its widest slice, the whole one when
	 * any state is held whole (the sharded slices lie inside it) */
	wide = sh == DC_SHARD_FSDP ? &sl : &w;
	dc_ckpt_stage_items(L, n->pp, s2, first2, layers2, &a, &b);
	saved_chunks_meeting(p, L, a, b, &s_lo, &s_hi);
	for (uint64_t q = s_lo; q <= s_hi; q++) {
		uint64_t fa, fb, ca, cb, s = q % o->pp;
		saved_chunk_items(p, L, q, &fa, &fb);
		ca = max_u64(fa, a);
		cb = min_u64(fb, b);
		if (cb <= ca)
			continue;
		{
			uint64_t kf = 0, kl = 0, met = old_slices_met(&c->items, ca, cb, wide, o->slices, &kf, &kl);
			uint64_t cnt[KIND_COUNT] = {0};
			if (!met)
				continue;
			if (!any) {
				out->first_stage = s;
				out->first_tp = kf / o->dpcp;
				out->first_dp = kf % o->dpcp;
				any = 1;
			}
			out->last_stage = s;
			out->last_tp = kl / o->dpcp;
			out->last_dp = kl % o->dpcp;
			out->old_shards += met;
			/* the old slices partition every item: their overlaps
			 * with a new slice add up to it */
			kinds_add(&c->items, ca, cb, cnt);
			whole += kinds_nslice(e, x, cnt, &w);
			shard += kinds_nslice(e, x, cnt, &sl);
		}
	}
	out->params_elements = sh == DC_SHARD_FSDP ? shard : whole;
	out->master_elements = out->optimizer_elements = sh == DC_SHARD_NONE ? whole : shard;
	out->bytes = out->params_elements * pr->param_bytes + out->master_elements * pr->master_bytes +
		     out->optimizer_elements * pr->optimizer_bytes;
	/* the data: replica r of the new dp reads its block of each step */
	out->next_sample = c->samples_consumed +
			   (out->dp_rank / n->cp) * (c->new_global_batch / (n->dpcp / n->cp));
}

/* the largest item of `it`, its elements */
static uint64_t largest_item(const struct dc_ckpt_items *it)
{
	return max_u64(max_u64(max_u64(it->embedding, it->head), max_u64(it->dense_layer, it->moe_layer)),
		       max_u64(it->linear_dense_layer, it->linear_moe_layer));
}

/* The elements of stage s's items (every chunk of it) in slice k of K. */
static uint64_t stage_slice(const struct dc_plan *p, const struct dc_ckpt_items *it, uint64_t s, uint64_t k,
			    uint64_t K)
{
	uint64_t n = 0;
	for (uint64_t q = s; q < saved_chunks(p); q += p->layout.pp) {
		uint64_t a, b;
		saved_chunk_items(p, it->num_layers, q, &a, &b);
		n += dc_ckpt_items_slice(it, a, b, k, K);
	}
	return n;
}

/* How many items of each kind stage s holds (every chunk of it), into
 * cnt[] (zeroed first). */
static void stage_kinds(const struct dc_plan *p, const struct dc_ckpt_items *it, uint64_t s, uint64_t cnt[KIND_COUNT])
{
	memset(cnt, 0, KIND_COUNT * sizeof(cnt[0]));
	for (uint64_t q = s; q < saved_chunks(p); q += p->layout.pp) {
		uint64_t a, b;
		saved_chunk_items(p, it->num_layers, q, &a, &b);
		kinds_add(it, a, b, cnt);
	}
}

/* The elements of stage s's items in slices k0 .. k0 + n - 1 of K
 * together: each item's [floor(E k0 / K), floor(E (k0 + n) / K)). */
static uint64_t stage_slices(const struct dc_plan *p, const struct dc_ckpt_items *it, uint64_t s, uint64_t k0,
			     uint64_t n, uint64_t K)
{
	uint64_t e[KIND_COUNT], x[KIND_COUNT], cnt[KIND_COUNT], sum = 0;
	kind_sizes(it, e, x);
	stage_kinds(p, it, s, cnt);
	for (int i = 0; i < KIND_COUNT; i++)
		if (cnt[i])
			sum += cnt[i] * (cut(e[i], k0 + n, K) - cut(e[i], k0, K));
	return sum;
}

/* the elements of the items stage s holds (every chunk of it, whole) */
static uint64_t stage_elements(const struct dc_plan *p, const struct dc_ckpt_items *it, uint64_t s)
{
	return stage_slice(p, it, s, 0, 1);
}

/* the routed experts' elements among stage s's items */
static uint64_t stage_expert_elements(const struct dc_plan *p, const struct dc_ckpt_items *it, uint64_t s)
{
	uint64_t e[KIND_COUNT], x[KIND_COUNT], cnt[KIND_COUNT], n = 0;
	kind_sizes(it, e, x);
	stage_kinds(p, it, s, cnt);
	for (int i = 0; i < KIND_COUNT; i++)
		n += cnt[i] * x[i];
	return n;
}

/* The states, in order parameters, master copy, optimizer states. */
enum { ST_PARAMS, ST_MASTER, ST_OPT, ST_COUNT };

/* Each state's bytes per element, and per element of one tensor: Adam's
 * optimizer_bytes are two tensors, exp_avg and exp_avg_sq
 * (precision.optimizer_bytes "Adam: 2 x 4"), so one of them has half
 * (the larger half when odd). */
static void state_bytes(const struct dc_precision *pr, uint64_t b[ST_COUNT], uint64_t tb[ST_COUNT])
{
	b[ST_PARAMS] = tb[ST_PARAMS] = pr->param_bytes;
	b[ST_MASTER] = tb[ST_MASTER] = pr->master_bytes;
	b[ST_OPT] = pr->optimizer_bytes;
	tb[ST_OPT] = (pr->optimizer_bytes + 1) / 2;
}

/* How the saved layout holds each state (memory's dc_axis_state_shards):
 * sharded[i] over the shard group of G = dp x cp / dp_replicate ranks
 * (ZeRO-1/2: the master copy and optimizer states, FSDP: every state),
 * else replicated over dp x cp; either way split over tp. split[i]: a
 * rank holds only part of state i (tp > 1, or sharded over G > 1), so it
 * is a DTensor whose full_tensor() gathers a new copy; a state every
 * rank of its stage holds whole (DDP, or ZeRO's parameters, at tp 1) is
 * a plain tensor, which _gather_state_dict passes through
 * (_identity_func). */
static void saved_holding(const struct dc_plan *p, int sharded[ST_COUNT], int split[ST_COUNT], uint64_t *G)
{
	enum dc_sharding sh = p->layout.sharding;
	uint64_t dpcp = p->layout.dp * (p->layout.cp ? p->layout.cp : 1);
	uint64_t r = p->layout.dp_replicate ? p->layout.dp_replicate : 1;
	*G = dpcp % r == 0 ? dpcp / r : dpcp;
	sharded[ST_PARAMS] = sh == DC_SHARD_FSDP;
	sharded[ST_MASTER] = sharded[ST_OPT] = sh != DC_SHARD_NONE;
	for (int i = 0; i < ST_COUNT; i++)
		split[i] = p->layout.tp > 1 || (sharded[i] && *G > 1);
}

static uint64_t saved_ep(const struct dc_plan *p)
{
	return p->topo.degree[DC_AXIS_EP] ? p->topo.degree[DC_AXIS_EP] : 1;
}

/* The model's largest single tensors, elements: *dense the largest
 * that is not a routed expert's, *expert a routed expert's. The tensors
 * (docs/checkpoint-and-loss.md, "Save-phase memory"): the embedding V x h
 * and a learned position table P x h; the output head V x h (untied);
 * attention's q h x a d (x 2 with an output gate), k and v h x kv d, o
 * a d x h, or MLA's q_a h x q_lora, q_b q_lora x a (nope + rope) (or q h
 * x a (nope + rope)), kv_a h x (kv_lora + rope), kv_b kv_lora x a (nope
 * + v), o a v x h; Gated DeltaNet's in_proj_qkvz h x (2 k_dim + 2 v_dim)
 * and out_proj v_dim x h; a dense MLP's h x f matrices (each of gate, up
 * and down its own tensor); the shared experts' h x f_shared; the router
 * h x E; a routed expert's h x f_moe, or under training.framework
 * "torchtitan" all E of a layer in one (GroupedExperts' w1, w2, w3 are
 * E x f_moe x h). Without a shape (model.params) the largest item
 * stands for them. */
static void largest_tensors(const struct dc_plan *p, const struct dc_ckpt_items *it, uint64_t *dense,
			    uint64_t *expert)
{
	const struct dc_model *m = &p->in->model;
	uint64_t h = m->hidden_size, a = m->num_attention_heads, L = it->num_layers, d = 0, x = 0;
	uint64_t nd, nm, lin[2];

	*dense = *expert = 0;
	if (m->params_explicit) {
		*dense = largest_item(it);
		return;
	}
	layer_kinds(it, 0, L, &nd, &nm, lin);
	d = max_u64(max_u64(p->terms.embedding, p->terms.position), p->terms.lm_head);
	if (!it->full_every || L >= it->full_every) {
		if (m->kv_lora_rank) {
			uint64_t qk = m->qk_nope_head_dim + m->qk_rope_head_dim;
			d = max_u64(d, m->q_lora_rank ? max_u64(h * m->q_lora_rank, m->q_lora_rank * a * qk) : h * a * qk);
			d = max_u64(d, h * (m->kv_lora_rank + m->qk_rope_head_dim));
			d = max_u64(d, m->kv_lora_rank * a * (m->qk_nope_head_dim + m->v_head_dim));
			d = max_u64(d, a * m->v_head_dim * h);
		} else {
			uint64_t q = h * a * m->head_dim;
			d = max_u64(d, m->attention_output_gate ? 2 * q : q);
			d = max_u64(d, h * m->num_kv_heads * m->head_dim);
		}
	}
	if (it->full_every) {
		uint64_t kd = m->linear_num_key_heads * m->linear_key_head_dim;
		uint64_t vd = m->linear_num_value_heads * m->linear_value_head_dim;
		d = max_u64(d, h * 2 * (kd + vd));
	}
	if (nd + lin[0])
		d = max_u64(d, h * m->ffn_hidden_size);
	if (nm + lin[1] || it->head_experts) {
		d = max_u64(d, max_u64(h * m->shared_expert_ffn_hidden_size, h * m->num_experts));
		x = h * m->moe_ffn_hidden_size;
		if (p->in->training.framework == DC_FRAMEWORK_TORCHTITAN)
			x *= m->num_experts;
	}
	if (m->mtp_layers)
		d = max_u64(d, 2 * h * h); /* DeepSeek-V3's eh_proj 2h -> h */
	*dense = d;
	*expert = x;
}

/* The largest tensor full_tensor() gathers, x its bytes per element
 * (state_bytes' tb): of every split state its largest tensor; of the
 * others, under ep > 1, the routed experts' (split over ep). 0 when no
 * state is split: nothing is gathered. */
static uint64_t largest_gathered(const struct dc_plan *p, const struct dc_ckpt_items *it)
{
	uint64_t b[ST_COUNT], tb[ST_COUNT], G, dense, expert, most = 0;
	int sharded[ST_COUNT], split[ST_COUNT];
	state_bytes(&p->in->precision, b, tb);
	saved_holding(p, sharded, split, &G);
	largest_tensors(p, it, &dense, &expert);
	for (int i = 0; i < ST_COUNT; i++) {
		if (split[i])
			most = max_u64(most, max_u64(dense, expert) * tb[i]);
		else if (saved_ep(p) > 1)
			most = max_u64(most, expert * tb[i]);
	}
	return most;
}

int dc_ckpt_gpu_extra(const struct dc_plan *p, uint64_t stage, uint64_t *out)
{
	struct dc_ckpt_items it;
	const char *e = NULL;

	*out = 0;
	if (p->in->checkpoint.format != DC_CKPT_FULL)
		return 0;
	if (dc_ckpt_items_of(p, &it, &e) != 0)
		return -1;
	if (p->in->checkpoint.gather == DC_CKPT_GATHER_GPU) {
		/* get_state_dict(full_state_dict=True, cpu_offload=False):
		 * every DTensor's full_tensor() stays on the device and every
		 * rank keeps the result (ranks_only empty), model and
		 * optimizer both: the stage's items whole of every split
		 * state; a plain tensor is passed through, no copy (under ep
		 * > 1 its routed experts are split still) */
		uint64_t b[ST_COUNT], tb[ST_COUNT], G, all = stage_elements(p, &it, stage), sum = 0;
		uint64_t ex = saved_ep(p) > 1 ? stage_expert_elements(p, &it, stage) : 0;
		int sharded[ST_COUNT], split[ST_COUNT];
		struct dc_ck k = {0};
		state_bytes(&p->in->precision, b, tb);
		saved_holding(p, sharded, split, &G);
		for (int i = 0; i < ST_COUNT; i++)
			sum = dc_ck_add(&k, sum, dc_ck_mul(&k, split[i] ? all : ex, b[i]));
		*out = sum;
		return k.overflow ? -1 : 0;
	}
	/* cpu_offload=True: each gathered tensor goes to the host at once */
	*out = largest_gathered(p, &it);
	return 0;
}

/* The bytes rank 0 of a full save receives, by link: every element of
 * every state it does not hold, from a rank of its NVLink domain (the
 * first g = min(cluster.nvlink_domain, world) ranks: rank 0's node, or
 * its NVL rack) when one of them holds it, else through its NIC. A rank
 * (s, t, d) holds of stage s's items slice t of tp of a replicated state
 * and slice t G + (d mod G) of tp G of a sharded one (saved_holding).
 * The domain holds (s, t) exactly when s S_pp + t S_tp < g (the least
 * rank with those coordinates has the others 0, and a rank grows with
 * each coordinate), and (s, t, j = d mod G) when s S_pp + t S_tp + the
 * offset of d = j < g (G is a multiple of cp x ep, so j's cp and ep
 * coordinates are d's and its least d is j itself). Routed experts are
 * sliced as the rest of their layer, as the save's slices are. */
static void gather_bytes(const struct dc_plan *p, const struct dc_checkpoint_result *c, uint64_t *on,
			 uint64_t *off)
{
	const struct dc_topology *t = &p->topo;
	const struct dc_ckpt_items *it = &c->items;
	uint64_t b[ST_COUNT], tb[ST_COUNT], G, tp = c->saved.tp, cp = c->saved.cp, ep = saved_ep(p);
	uint64_t dom = t->nvlink_domain ? t->nvlink_domain : t->gpus_per_node;
	uint64_t g = min_u64(dom ? dom : 1, c->saved.world), whole = 0, shard = 0;
	int sharded[ST_COUNT], split[ST_COUNT];

	state_bytes(&p->in->precision, b, tb);
	saved_holding(p, sharded, split, &G);
	for (uint64_t s = 0; s < c->saved.pp && s * t->stride[DC_AXIS_PP] < g; s++) {
		for (uint64_t tr = 0; tr < tp; tr++) {
			uint64_t base = s * t->stride[DC_AXIS_PP] + tr * t->stride[DC_AXIS_TP];
			if (base >= g)
				break;
			whole += stage_slice(p, it, s, tr, tp);
			/* the sharded slices present: j = (dpc ep + epc) cp + cpc */
			for (uint64_t cc = 0; sharded[ST_OPT] && cc < cp && base + cc * t->stride[DC_AXIS_CP] < g; cc++)
				for (uint64_t ec = 0; ec < ep; ec++) {
					uint64_t b2 = base + cc * t->stride[DC_AXIS_CP] + ec * t->stride[DC_AXIS_EP];
					if (b2 >= g)
						break;
					/* the dp coordinates present: 0 .. n - 1 */
					uint64_t n = min_u64(G / (cp * ep), (g - b2 + t->stride[DC_AXIS_DP] - 1) /
										 t->stride[DC_AXIS_DP]);
					if (cp * ep == 1) {
						/* consecutive slices: one range */
						shard += stage_slices(p, it, s, tr * G, n, tp * G);
						continue;
					}
					for (uint64_t dc = 0; dc < n; dc++)
						shard += stage_slice(p, it, s, tr * G + (dc * ep + ec) * cp + cc, tp * G);
				}
		}
	}
	*on = *off = 0;
	for (int i = 0; i < ST_COUNT; i++) {
		uint64_t K = sharded[i] ? tp * G : tp, u = sharded[i] ? shard : whole;
		uint64_t held = stage_slice(p, it, 0, 0, K);
		*on += (u - held) * b[i];
		*off += (it->total - u) * b[i];
	}
}

static void layout_of(uint64_t tp, uint64_t pp, uint64_t dp, uint64_t cp, struct dc_ckpt_layout *o)
{
	o->tp = tp;
	o->pp = pp;
	o->cp = cp ? cp : 1;
	o->dpcp = dp * o->cp;
	o->slices = tp * o->dpcp;
	o->world = o->slices * pp;
}

/* Of the kinds counted in n sliced K ways, the smallest non-zero r = E
 * mod K: that kind takes its ceiling on slices ceil(m K / r) - 1, m =
 * 1..r (carry_point), and every slice holding the most is among them; 0
 * when every kind divides by K (every slice alike). */
static uint64_t fewest_remainders(const uint64_t e[KIND_COUNT], const uint64_t n[KIND_COUNT], uint64_t K)
{
	uint64_t r = 0;
	for (int i = 0; i < KIND_COUNT; i++)
		if (n[i] && e[i] % K && (r == 0 || e[i] % K < r))
			r = e[i] % K;
	return r;
}

static uint64_t carry_point(uint64_t m, uint64_t K, uint64_t r)
{
	return (uint64_t)(((u128)m * K + r - 1) / r) - 1;
}

/* The first slice of K of the kinds n holding `target` elements, the
 * most any holds (slice K - 1's). */
static uint64_t first_largest(const uint64_t e[KIND_COUNT], const uint64_t n[KIND_COUNT], uint64_t K, uint64_t target)
{
	uint64_t r = fewest_remainders(e, n, K);
	for (uint64_t m = 1; m <= r; m++) {
		uint64_t k = carry_point(m, K, r);
		if (kinds_slice(e, n, k, K) == target)
			return k;
	}
	return r ? K - 1 : 0;
}

/* Of a part of the items (sizes e, counts n) sliced as the new ranks
 * hold it: k' in blocks of `blk` (the whole slice k' / blk of KW, the
 * sharded one (k' / blk) G + (k' mod G) of KW G): the first k' whose
 * slices hold the most, tw whole and ts sharded. */
static uint64_t first_top(const uint64_t e[KIND_COUNT], const uint64_t n[KIND_COUNT], uint64_t KW, uint64_t G,
			  uint64_t blk, uint64_t wb, uint64_t sb, uint64_t tw, uint64_t ts)
{
	uint64_t KS = KW * G, kw, ks = 0;
	if (sb == 0 || fewest_remainders(e, n, KS) == 0) {
		/* the sharded slices all alike (or none): the first whole
		 * slice that is the largest, its first rank */
		kw = wb ? first_largest(e, n, KW, tw) : 0;
	} else {
		uint64_t r = fewest_remainders(e, n, KS), m;
		kw = KW - 1;
		ks = KS - 1;
		for (m = 1; m <= r; m++) {
			uint64_t k = carry_point(m, KS, r);
			if (kinds_slice(e, n, k, KS) == ts && (wb == 0 || kinds_slice(e, n, k / G, KW) == tw)) {
				kw = k / G;
				ks = k;
				break;
			}
		}
		ks %= G;
	}
	return kw * blk + ks;
}

/* The restore's reads without walking the new ranks. New rank (s', k'),
 * k' = t' dpcp' + d', holds of its stage's items [a, b) its tp' shard
 * (slice t' of tp') of every state held whole and slice t' G + (d' mod G)
 * of tp' G of every sharded one (new_slices); it reads, from each saved
 * chunk q meeting [a, b), the overlaps of those slices with the old slices
 * k of K over [ca, cb) = [a, b) cut to the chunk. The old slices
 * partition every item and dc_ckpt_read_of's k range holds every one with
 * an overlap, so summed over k they give the new slices of each item
 * (dc_ckpt_read_of computes the same sums rank by rank). Hence:
 * - summed over the dpcp' ranks of one t', a whole state is read dpcp'
 *   times and a sharded one dpcp' / G times (its replicas); over t' and
 *   s' the slices tile the items: read_bytes_total is each state's bytes
 *   times its readers;
 * - slice K - 1 of an item is ceil(E / K), the most any slice holds, so a
 *   stage's largest read is t' = tp' - 1, d' = G - 1, and the first rank
 *   reaching it is the first (t', d' mod G) at which every kind whose E
 *   is not a multiple of the slice count takes its ceiling in both
 *   slicings: for a sharded state one of the carry points ceil(m K / r) -
 *   1, m = 1..r, of its kind with the fewest (r = E mod K, the smallest),
 *   checked in order against the whole states' t' = k / G.
 * The largest rank is the first such k' of the first stage with the
 * largest read, as the walk in rank order finds it (docs/checkpoint-and-loss.md,
 * "Restore into another layout"). A stage holding routed experts (sliced
 * over ep' x etp', x = k' / erep: new_slices) has its largest read on its
 * last rank too, every part's last slice; the first rank with it is found
 * as above over whichever part, the non-expert one or the experts,
 * slices unevenly when the other slices evenly; when both do, the stage's
 * last rank is shown (the bytes exact, the tie not always its first). */
static void restore_reads(const struct dc_plan *p, struct dc_checkpoint_result *c)
{
	const struct dc_ckpt_layout *n = &c->restored;
	const struct dc_ckpt_items *it = &c->items;
	uint64_t L = it->num_layers, KW = n->tp, KS = n->tp * n->shard, best = 0, best_stage = 0;
	uint64_t wb = c->whole_bytes_per_element, sb = c->shard_bytes_per_element;
	uint64_t wg = c->whole_gpu_bytes_per_element, sg = c->shard_gpu_bytes_per_element, gpu = 0, host = 0;
	uint64_t e[KIND_COUNT], x[KIND_COUNT], bn[KIND_COUNT] = {0}, bx = 0;
	struct nslice lw, ls;

	kind_sizes(it, e, x);
	new_slices(n, n->slices - 1, &lw, &ls);
	for (uint64_t s2 = 0; s2 < n->pp; s2++) {
		uint64_t first2, layers2, a, b, q_lo, q_hi, top, mw, ms;
		uint64_t cnt[KIND_COUNT] = {0};
		dc_ckpt_new_stage(p, c, s2, &first2, &layers2);
		dc_ckpt_stage_items(L, n->pp, s2, first2, layers2, &a, &b);
		saved_chunks_meeting(p, L, a, b, &q_lo, &q_hi);
		for (uint64_t q = q_lo; q <= q_hi; q++) {
			uint64_t fa, fb;
			saved_chunk_items(p, L, q, &fa, &fb);
			kinds_add(it, max_u64(fa, a), min_u64(fb, b), cnt);
		}
		/* the stage's last rank holds the last slice of every kind and
		 * part: ceil(E / K) each, the most */
		mw = kinds_nslice(e, x, cnt, &lw);
		ms = kinds_nslice(e, x, cnt, &ls);
		top = mw * wb + ms * sb;
		/* the GPU's share: the same slices, the states not offloaded
		 * (the most of any stage, which need not be the largest read's) */
		if (mw * wg + ms * sg > gpu)
			gpu = mw * wg + ms * sg;
		/* and the host's: the offloaded rest of those slices */
		if (top - (mw * wg + ms * sg) > host)
			host = top - (mw * wg + ms * sg);
		if (s2 == 0 || top > best) {
			uint64_t ex = 0;
			for (int i = 0; i < KIND_COUNT; i++)
				ex |= cnt[i] && x[i];
			best = top;
			best_stage = s2;
			bx = ex;
			memcpy(bn, cnt, sizeof(bn));
		}
	}
	c->restore_read_max_bytes = best;
	c->restore_gpu_read_max_bytes = gpu;
	c->restore_host_rank_bytes = host;
	c->restore_read_max_rank = best_stage * n->slices;
	if (best == 0)
		return; /* every read is 0 B: new rank 0 */
	{
		uint64_t d[KIND_COUNT], KX = n->ee, KXS = n->ee * n->eshard;
		int dense_even, expert_even;
		for (int i = 0; i < KIND_COUNT; i++)
			d[i] = e[i] - x[i];
		dense_even = (wb == 0 || fewest_remainders(d, bn, KW) == 0) && (sb == 0 || fewest_remainders(d, bn, KS) == 0);
		expert_even = !bx || ((wb == 0 || fewest_remainders(x, bn, KX) == 0) &&
				      (sb == 0 || fewest_remainders(x, bn, KXS) == 0));
		if (expert_even) {
			/* every rank holds as much of the experts: the first
			 * rank whose non-expert slices are the largest */
			c->restore_read_max_rank += first_top(d, bn, KW, n->shard, n->dpcp, wb, sb,
							       kinds_slice(d, bn, KW - 1, KW), kinds_slice(d, bn, KS - 1, KS));
		} else if (dense_even) {
			/* the same over the expert slices: x = k' / erep, the
			 * sharded x Ge + (k' mod Ge) */
			c->restore_read_max_rank += first_top(x, bn, KX, n->eshard, n->erep, wb, sb,
							       kinds_slice(x, bn, KX - 1, KX), kinds_slice(x, bn, KXS - 1, KXS));
		} else {
			/* both parts sliced unevenly: the stage's last rank,
			 * which holds the last slice of each (not always the
			 * first with that read) */
			c->restore_read_max_rank += n->slices - 1;
		}
	}
}

/* Of the bytes per element held whole and sharded, those on the GPU: the
 * ledger's offload (memory.c) moves the master copy and the optimizer
 * states to host memory, and "optimizer+params" (FSDP only) the parameter
 * shards as well; a restore reads those into the host tensors they live
 * in (DCP's in-place load), so the GPU holds only the rest. */
static void gpu_share(const struct dc_plan *p, struct dc_checkpoint_result *c)
{
	const struct dc_precision *pr = &p->in->precision;
	enum dc_offload o = p->in->parallel.offload;
	uint64_t off = o == DC_OFFLOAD_NONE ? 0 : pr->master_bytes + pr->optimizer_bytes;
	if (o == DC_OFFLOAD_OPTIMIZER_PARAMS)
		off += pr->param_bytes;
	/* the offloaded states lie among the sharded ones, or with sharding
	 * none among the whole (a DDP rank offloads its whole copy) */
	if (c->shard_bytes_per_element) {
		c->whole_gpu_bytes_per_element = c->whole_bytes_per_element;
		c->shard_gpu_bytes_per_element = c->shard_bytes_per_element - off;
	} else {
		c->whole_gpu_bytes_per_element = c->whole_bytes_per_element - off;
		c->shard_gpu_bytes_per_element = 0;
	}
}

/* The states the sharding holds whole per tp x pp shard (replicated over
 * dp x cp) and those it shards over the shard group (memory's
 * dc_axis_state_shards: ZeRO-1/2 the master copy and optimizer states,
 * FSDP every state; gradients are not saved). The restore keeps
 * parallel.sharding; an HSDP run keeps as many replicas as divide the new
 * dp: gcd(dp_replicate, dp'). */
static void restore_shards(const struct dc_plan *p, const struct dc_ckpt_restore *rs, struct dc_checkpoint_result *c)
{
	const struct dc_precision *pr = &p->in->precision;
	enum dc_sharding sh = p->layout.sharding;
	struct dc_ckpt_layout *n = &c->restored;
	uint64_t r = dc_gcd_u64(p->layout.dp_replicate ? p->layout.dp_replicate : 1, rs->dp), re;
	/* the routed experts as the ledger holds them on the new layout:
	 * over ep' x etp' (parallel.etp, else the new tp: the loader's
	 * rule), replicated over the K' / (ep' x etp') expert-data-parallel
	 * ranks of a stage */
	uint64_t etp = dc_config_etp(p->in, rs->tp, rs->ep ? rs->ep : 1);

	c->sharding = sh;
	n->ee = (rs->ep ? rs->ep : 1) * etp;
	if (n->ee == 0 || n->slices % n->ee != 0)
		n->ee = n->tp; /* not reached for a valid restore (rule_restore) */
	n->erep = n->slices / n->ee;
	re = dc_gcd_u64(r, n->erep);

	if (sh == DC_SHARD_NONE) {
		n->shard = 1;
		n->replicas = n->dpcp;
		n->eshard = 1;
		c->whole_bytes_per_element = pr->param_bytes + pr->master_bytes + pr->optimizer_bytes;
		c->shard_bytes_per_element = 0;
		c->params_readers = c->master_optimizer_readers = n->dpcp;
		c->expert_params_readers = c->expert_master_optimizer_readers = n->erep;
		gpu_share(p, c);
		return;
	}
	n->replicas = r;
	n->shard = n->dpcp / r;
	n->eshard = n->erep / re;
	if (sh == DC_SHARD_FSDP) {
		c->whole_bytes_per_element = 0;
		c->shard_bytes_per_element = pr->param_bytes + pr->master_bytes + pr->optimizer_bytes;
		c->params_readers = c->master_optimizer_readers = r;
		c->expert_params_readers = c->expert_master_optimizer_readers = re;
		gpu_share(p, c);
		return;
	}
	c->whole_bytes_per_element = pr->param_bytes;
	c->shard_bytes_per_element = pr->master_bytes + pr->optimizer_bytes;
	c->params_readers = n->dpcp;
	c->master_optimizer_readers = r;
	c->expert_params_readers = n->erep;
	c->expert_master_optimizer_readers = re;
	gpu_share(p, c);
}

int dc_checkpoint_compute(const struct dc_plan *p, const struct dc_memory_result *m, const struct dc_batch *bt,
			  struct dc_checkpoint_result *c, const char **error)
{
	const struct dc_config *cfg = p->in;
	const struct dc_checkpoint *ck = &cfg->checkpoint;
	const struct dc_precision *pr = &cfg->precision;
	const struct dc_ckpt_restore *rs = &ck->restore;
	struct dc_ck k = {0};
	uint64_t gpn = cfg->cluster.gpus_per_node, per_replica, new_dp;

	memset(c, 0, sizeof(*c));
	if (dc_ckpt_items_of(p, &c->items, error) != 0)
		return -1;
	layout_of(p->layout.tp, p->layout.pp, p->layout.dp, p->layout.cp, &c->saved);
	layout_of(rs->tp, rs->pp, rs->dp, rs->cp, &c->restored);
	c->new_stages = dc_ckpt_new_stages(p);
	{
		uint64_t nd, nm, nl[2];
		const struct dc_ckpt_items *it = &c->items;
		layer_kinds(it, 0, it->num_layers, &nd, &nm, nl);
		c->expert_elements = (nm + (it->full_every ? nl[1] : 0)) * it->layer_experts + it->head_experts;
	}
	c->state_bytes_per_element = pr->param_bytes + pr->master_bytes + pr->optimizer_bytes;
	c->params_bytes = dc_ck_mul(&k, c->items.total, pr->param_bytes);
	c->master_bytes = dc_ck_mul(&k, c->items.total, pr->master_bytes);
	c->optimizer_bytes = dc_ck_mul(&k, c->items.total, pr->optimizer_bytes);
	c->states_bytes = dc_ck_mul(&k, c->items.total, c->state_bytes_per_element);
	c->extra_bytes = dc_ck_add(&k, dc_ck_mul(&k, c->saved.world, DC_CKPT_RNG_BYTES + DC_CKPT_DATA_BYTES),
				   DC_CKPT_SCALER_BYTES + DC_CKPT_SCHED_BYTES);
	c->saved_bytes = dc_ck_add(&k, c->states_bytes, c->extra_bytes);
	if (k.overflow) {
		*error = "'model' x 'precision': checkpoint bytes overflow 64 bits";
		return -1;
	}
	c->writers = ck->format == DC_CKPT_FULL ? 1 : c->saved.world;
	dc_ckpt_rank_of(p, c, 0, 0, &c->rank0);
	/* the largest rank: under full rank 0; sharded, slice 0 of some stage
	 * holds the most (floor bounds give the first slices no more than
	 * the last: compare the first and last slice of every segment) */
	c->largest = c->rank0;
	if (ck->format != DC_CKPT_FULL) {
		for (uint64_t i = 0; i < p->nsegments; i++) {
			uint64_t s = p->segment_first[i], last = p->segment_first[i + 1] - 1;
			uint64_t cand[4] = {s, s, last, last}, ks[4] = {0, c->saved.slices - 1, 0, c->saved.slices - 1};
			for (int q = 0; q < 4; q++) {
				struct dc_ckpt_rank r;
				dc_ckpt_rank_of(p, c, cand[q], ks[q], &r);
				if (r.total_bytes > c->largest.total_bytes)
					c->largest = r;
			}
		}
	}
	c->largest_rank = saved_rank_global(p, c->largest.stage, c->largest.tp_rank, c->largest.dp_rank);

	/* time: every byte through the storage's aggregate bandwidth */
	c->write_time_s = (double)c->saved_bytes / ck->storage_bw_bytes_per_s;
	if (ck->format == DC_CKPT_FULL) {
		/* rank 0 receives what it does not hold: from its NVLink
		 * domain over NVLink, the rest over its NIC (gather_bytes) */
		gather_bytes(p, c, &c->gather_intra_bytes, &c->gather_inter_bytes);
		c->gather_time_s = (double)c->gather_intra_bytes / cfg->cluster.intra_node.bw_bytes_per_s +
				   (double)c->gather_inter_bytes / cfg->cluster.inter_node.bw_bytes_per_s;
	}
	/* the staging copy's bandwidth: the key when given, else
	 * cluster.host_bandwidth when the cluster keys give it (the config,
	 * a --set or the cluster.system preset: every GPU of a node copying
	 * at once, as an async save's staging does), else 25 GB/s */
	if (ck->staging_bw_bytes_per_s > 0) {
		c->staging_bw_bytes_per_s = ck->staging_bw_bytes_per_s;
		c->staging_bw_from = DC_CKPT_STAGING_KEY;
	} else if (cfg->cluster.host_bw_bytes_per_s > 0) {
		c->staging_bw_bytes_per_s = cfg->cluster.host_bw_bytes_per_s;
		c->staging_bw_from = DC_CKPT_STAGING_HOST;
	} else {
		c->staging_bw_bytes_per_s = DC_CKPT_STAGING_BW;
		c->staging_bw_from = DC_CKPT_STAGING_DEFAULT;
	}
	/* Every save copies what it writes from the GPU to the host, at the
	 * staging bandwidth (a trial found the copies of a full and of a
	 * sync sharded save left out):
	 * - full: rank 0 copies the whole state dict, one gathered tensor
	 *   after another, as it gathers it (_gather_state_dict with
	 *   cpu_offload moves each full_tensor() to the CPU at once;
	 *   gather "gpu" leaves it to torch.save, which copies each storage
	 *   as it writes): after the gather, before the write;
	 * - sharded: each rank its own share, every rank at once: async,
	 *   training waits for it and the write goes on in the background;
	 *   sync, DCP's FileSystemWriter copies each tensor to the CPU ahead
	 *   of its write (_OverlappingCpuLoader, or _SerialCpuLoader one
	 *   tensor at a time), so the save takes the longer of the copy and
	 *   the write. */
	if (ck->format == DC_CKPT_FULL) {
		c->staging_time_s = (double)c->rank0.total_bytes / c->staging_bw_bytes_per_s;
		c->blocking_time_s = c->gather_time_s + c->staging_time_s;
		c->save_time_s = c->blocking_time_s + c->write_time_s;
		if (!ck->async)
			c->blocking_time_s = c->save_time_s;
	} else {
		c->staging_time_s = (double)c->largest.total_bytes / c->staging_bw_bytes_per_s;
		if (ck->async) {
			c->blocking_time_s = c->staging_time_s;
			c->save_time_s = c->blocking_time_s + c->write_time_s;
		} else {
			c->blocking_time_s = c->save_time_s = fmax(c->staging_time_s, c->write_time_s);
		}
	}

	/* memory of the save phase: the ledger's checkpoint_save phase */
	{
		uint64_t first, last;
		dc_plan_class_stages(p, m->most_loaded, &first, &last);
		(void)last;
		c->gpu_extra_stage = first;
	}
	if (dc_ckpt_gpu_extra(p, c->gpu_extra_stage, &c->gpu_extra_bytes) != 0) {
		*error = "'checkpoint.format': the gathered unit's bytes overflow 64 bits";
		return -1;
	}
	c->gpu_peak_bytes = m->top.phase_bytes[DC_MEM_CHECKPOINT];
	c->save_gpu_fits = c->gpu_peak_bytes <= p->in->cluster.gpu_mem_bytes;
	for (int ph = 0; ph < DC_MEM_PHASE_COUNT; ph++)
		if (ph != DC_MEM_CHECKPOINT)
			c->gpu_training_peak_bytes = max_u64(c->gpu_training_peak_bytes, m->top.phase_bytes[ph]);
	/* host: a full save holds the whole state dict on rank 0; an async
	 * one stages each rank's share in pinned memory */
	if (ck->format == DC_CKPT_FULL) {
		c->host_rank_bytes = c->rank0.total_bytes;
		c->host_node_bytes = c->host_rank_bytes;
	} else if (ck->async) {
		c->host_rank_bytes = c->largest.total_bytes;
		c->host_node_bytes = dc_ck_mul(&k, c->host_rank_bytes, gpn);
	}
	/* against the host's memory, as the restore's (cluster.host_memory;
	 * 0: not given, not checked) */
	c->save_host_mem_bytes = cfg->cluster.host_mem_bytes;
	c->save_host_fits = !c->save_host_mem_bytes || c->host_node_bytes <= c->save_host_mem_bytes;

	/* the data position: samples consumed, split over the new dp */
	c->step = ck->step;
	c->global_batch = bt->global_batch_size;
	c->samples_consumed = dc_ck_mul(&k, ck->step, c->global_batch);
	new_dp = rs->dp;
	if (c->global_batch % new_dp == 0) {
		per_replica = c->global_batch / new_dp;
		c->batch_kept = 1;
		c->new_global_batch = c->global_batch;
		c->new_micro_batch = dc_gcd_u64(per_replica, p->layout.micro_batch_size);
		c->new_grad_accum = per_replica / c->new_micro_batch;
	} else {
		/* the nearest global batch the new dp can run (a multiple of
		 * dp', half up), its share split as above: the micro batch
		 * the greatest common divisor of the share and the saved one,
		 * never above it (keeping the micro batch instead would move
		 * the batch to a multiple of dp' x micro batch: 16 -> 12, not
		 * 15, on dp' 3 with micro batch 4) */
		per_replica = (c->global_batch + new_dp / 2) / new_dp;
		if (!per_replica)
			per_replica = 1;
		c->new_global_batch = dc_ck_mul(&k, per_replica, new_dp);
		c->new_micro_batch = dc_gcd_u64(per_replica, p->layout.micro_batch_size);
		c->new_grad_accum = per_replica / c->new_micro_batch;
	}
	c->remaining_check = c->samples_consumed % c->new_global_batch;
	if (k.overflow) {
		*error = "'checkpoint.step' x the global batch: samples consumed overflow 64 bits";
		return -1;
	}
	/* every new rank's read, summed (each state times the new ranks
	 * holding it), and the largest: in closed form over
	 * the new stages (restore_reads), the work O(stages + chunks), not
	 * O(ranks) */
	restore_shards(p, rs, c);
	{
		/* the sum alone can pass 2^64 (a 1T model's states read by
		 * 2^21 replicas): flagged, not an error, as every rank's own
		 * read still fits */
		struct dc_ck kt = {0};
		uint64_t X = c->expert_elements, D = c->items.total - X, mo = pr->master_bytes + pr->optimizer_bytes;
		uint64_t total = dc_ck_add(&kt, dc_ck_mul(&kt, dc_ck_mul(&kt, D, pr->param_bytes), c->params_readers),
					   dc_ck_mul(&kt, dc_ck_mul(&kt, D, mo), c->master_optimizer_readers));
		total = dc_ck_add(&kt, total,
				  dc_ck_add(&kt, dc_ck_mul(&kt, dc_ck_mul(&kt, X, pr->param_bytes), c->expert_params_readers),
					    dc_ck_mul(&kt, dc_ck_mul(&kt, X, mo), c->expert_master_optimizer_readers)));
		c->read_total_overflow = kt.overflow;
		c->read_bytes_total = kt.overflow ? 0 : total;
	}
	restore_reads(p, c);
	/* the load's own GPU buffer: a sharded checkpoint is read into host
	 * memory and copied into each rank's tensors in place (DCP
	 * FileSystemReader, narrow + copy_); a full one is broadcast from
	 * rank 0 one full tensor at a time and then sharded
	 * (set_state_dict broadcast_from_rank0: _broadcast_state_dict):
	 * the model's largest tensor at the most bytes of one tensor's
	 * element (state_bytes) */
	if (ck->format == DC_CKPT_FULL) {
		uint64_t b[ST_COUNT], tb[ST_COUNT], dense, expert;
		state_bytes(pr, b, tb);
		largest_tensors(p, &c->items, &dense, &expert);
		c->restore_buffer_bytes = dc_ck_mul(&k, max_u64(dense, expert),
						    max_u64(tb[ST_PARAMS], max_u64(tb[ST_MASTER], tb[ST_OPT])));
	}
	c->restore_context_bytes = cfg->memory.cuda_context_bytes;
	c->restore_rank_bytes = dc_ck_add(&k, dc_ck_add(&k, c->restore_gpu_read_max_bytes, c->restore_buffer_bytes),
					  c->restore_context_bytes);
	c->restore_gpu_mem_bytes = cfg->cluster.gpu_mem_bytes;
	c->restore_gpus_per_node = cfg->checkpoint.restore.gpus_per_node;
	c->restore_host_node_bytes = dc_ck_mul(&k, c->restore_host_rank_bytes, c->restore_gpus_per_node);
	c->restore_host_mem_bytes = cfg->cluster.host_mem_bytes;
	c->restore_host_fits = !c->restore_host_mem_bytes || c->restore_host_node_bytes <= c->restore_host_mem_bytes;
	c->restore_fits = !k.overflow && c->restore_rank_bytes <= c->restore_gpu_mem_bytes && c->restore_host_fits;
	if (k.overflow) {
		*error = "'checkpoint.restore': the restored rank's bytes overflow 64 bits";
		return -1;
	}
	return 0;
}
