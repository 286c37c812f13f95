/* emit.c - what every axis file shares: appending a priced call to a
 * strategy, its link, the axes' row table. See axis_int.h. */
#include "axis_int.h"

#include "distcalc/memo_verify.h"
#include "distcalc/net.h"

const struct dc_axis_row dc_axis_rows[DC_STRAT_COUNT] = {
	{DC_STRAT_DP, dc_axis_dp_comm, dc_axis_dp_shards},
	{DC_STRAT_FSDP, dc_axis_fsdp_comm, dc_axis_fsdp_shards},
	{DC_STRAT_TP, dc_axis_tp_comm, NULL},
	{DC_STRAT_PP, dc_axis_pp_comm, NULL},
	{DC_STRAT_EP, dc_axis_ep_comm, NULL},
	{DC_STRAT_CP, dc_axis_cp_comm, NULL},
};

void dc_axis_state_shards(const struct dc_plan *p, struct dc_state_shards *out)
{
	for (int s = 0; s < DC_STATE_COUNT; s++)
		out->dense[s] = out->expert[s] = 1;
	for (int i = 0; i < DC_STRAT_COUNT; i++)
		if (dc_axis_rows[i].shards)
			dc_axis_rows[i].shards(p, out);
}

/* dc_net_time's choice for `kind` on msg_bytes over the strategy's
 * group: the memo's copy when this computation priced it already (the
 * same group of the same plan, the same network, an op priced alike:
 * dc_net_price_kind, FSDP's ReduceScatter of the bytes its AllGather
 * moved), else priced and kept */
#ifdef DISTCALC_VERIFY_MEMOS
/* A hit of the computation's memo against the call priced with no memo:
 * an AllGather's choice kept for its ReduceScatter must be the
 * ReduceScatter's own (dc_net_price_kind) */
static void axis_memo_verify(const struct dc_comm_strategy *s, enum dc_coll_kind kind, uint64_t msg_bytes,
			     const struct dc_net_choice *ch)
{
	struct dc_net_choice fresh;
	if (dc_net_time(s->net, kind, s->net_group, msg_bytes, DC_NET_ALGO_AUTO, &fresh) != 0)
		(void)dc_net_time(s->net, kind, s->net_group, msg_bytes, DC_NET_ALGO_RING, &fresh);
	dc_net_choice_verify("a call priced once per computation (src/axis/emit.c price_call)", dc_coll_kind_name(kind),
			     0, ch, 0, &fresh);
}
#endif

static void price_call(struct dc_axis_ctx *x, enum dc_coll_kind kind, uint64_t msg_bytes, struct dc_net_choice *ch)
{
	const struct dc_comm_strategy *s = x->s;
	struct dc_axis_memo *m = x->memo;
	enum dc_coll_kind priced = dc_net_price_kind(kind);
	unsigned i;
	if (m && s->net == &x->p->net)
		for (i = 0; i < m->used; i++)
			if (m->slot[i].g == s->net_group && m->slot[i].msg_bytes == msg_bytes &&
			    m->slot[i].kind == priced) {
				*ch = m->slot[i].ch;
				DC_MEMO_VERIFY(axis_memo_verify(s, kind, msg_bytes, ch));
				return;
			}
	/* one call on the network model; a forced algorithm that cannot run
	 * this call leaves it to the tuner */
	if (dc_net_time_memo(x->p->net_memo, s->net, kind, s->net_group, msg_bytes, DC_NET_ALGO_AUTO, ch) != 0)
		(void)dc_net_time_memo(x->p->net_memo, s->net, kind, s->net_group, msg_bytes, DC_NET_ALGO_RING, ch);
	if (!m || s->net != &x->p->net)
		return;
	i = m->next;
	m->next = (m->next + 1) % DC_AXIS_MEMO_SLOTS;
	if (m->used < DC_AXIS_MEMO_SLOTS)
		m->used++;
	m->slot[i].g = s->net_group;
	m->slot[i].msg_bytes = msg_bytes;
	m->slot[i].kind = priced;
	m->slot[i].ch = *ch;
}

void dc_axis_push(struct dc_axis_ctx *x, enum dc_coll_kind kind, enum dc_coll_what what, enum dc_coll_phase phase,
		  enum dc_overlap_class overlap, uint64_t count, uint64_t msg_bytes)
{
	struct dc_comm_strategy *s = x->s;
	struct dc_coll *c;
	struct dc_net_choice ch;
	if (count == 0 || msg_bytes == 0 || s->group_size < 2)
		return;
	if (s->ncoll == DC_COMM_MAX_COLL) {
		s->full = 1;
		return;
	}
	c = &s->coll[s->ncoll++];
	c->axis = x->axis;
	c->kind = kind;
	c->what = what;
	c->phase = phase;
	c->overlap = overlap;
	c->count = count;
	c->msg_bytes = msg_bytes;
	c->group_size = s->group_size;
	c->link = s->link;
	c->bytes_per_rank = dc_ck_mul(x->b, count, dc_coll_bytes_sent(kind, s->group_size, msg_bytes));
	price_call(x, kind, msg_bytes, &ch);
	c->time_s = (double)count * ch.time_s;
	c->algorithm = ch.algorithm;
	c->protocol = ch.protocol;
	c->per_layer[0] = c->per_layer[1] = 0;
}

void dc_axis_push_buckets(struct dc_axis_ctx *x, enum dc_coll_kind kind, enum dc_coll_what what,
			  enum dc_coll_phase phase, enum dc_overlap_class overlap, uint64_t total, uint64_t bucket)
{
	dc_axis_push(x, kind, what, phase, overlap, total / bucket, bucket);
	dc_axis_push(x, kind, what, phase, overlap, 1, total % bucket);
}

void dc_axis_push_mirror(struct dc_axis_ctx *x, int expert, uint64_t count, uint64_t msg_bytes)
{
	const struct dc_plan *p = x->p;
	if (dc_pipeline_schedule(p) != DC_PIPE_DUALPIPE)
		return;
	x->s->group_size = 2;
	dc_axis_use_link(x->s, &p->group[DC_AXIS_PP].link, &p->group[DC_GROUP_PP_MIRROR].net);
	dc_axis_push(x, DC_COLL_ALL_REDUCE, expert ? DC_CW_MIRROR_EXPERT_GRAD_BUCKET : DC_CW_MIRROR_GRAD_BUCKET,
		     DC_CPHASE_BACKWARD, DC_OVL_GRAD_SYNC, count, msg_bytes);
}

void dc_axis_use_link(struct dc_comm_strategy *s, const struct dc_plan_link *l, const struct dc_net_group *g)
{
	s->link = l->choice;
	s->link_params = l->params;
	s->net_group = g;
}

void dc_axis_setup(struct dc_axis_ctx *x, uint64_t group_size, const struct dc_plan_link *l,
		   const struct dc_net_group *g)
{
	x->s->in_play = 1;
	x->s->group_size = group_size;
	x->s->net = &x->p->net;
	dc_axis_use_link(x->s, l, g);
}

uint64_t dc_axis_act_bytes(struct dc_axis_ctx *x)
{
	return dc_ck_mul(x->b, dc_ck_mul(x->b, x->p->tokens_per_microbatch_cp, x->p->in->model.hidden_size),
			 x->p->in->precision.working_bytes);
}

/* Dense-MLP layers among model layers [first, first + n): plan.h's
 * count (the model's first dense layers, or MoE on every n-th layer);
 * explicit parameters hold no MoE layer, as memory.c counts them */
static uint64_t dense_among(const struct dc_plan *p, uint64_t first, uint64_t n)
{
	return p->in->model.params_explicit ? n : dc_plan_dense_in(p, first, n);
}

uint64_t dc_axis_recomputed_layers(struct dc_axis_ctx *x, int moe)
{
	const struct dc_plan *p = x->p;
	uint64_t all = moe ? x->moe->moe_layers : x->best->layers, stage = moe ? x->moe_stage : x->stage;
	uint64_t n = p->in->training.recompute_layers, chunks = dc_pipeline_chunks(p), left = n, sum = 0;
	int v_shape = dc_pipeline_schedule(p) == DC_PIPE_DUALPIPEV;
	if (p->in->training.recompute != DC_RECOMPUTE_FULL || n == 0)
		return all;
	for (uint64_t c = 0; c < chunks; c++) {
		struct dc_pipeline_chunk ch;
		uint64_t r;
		dc_pipeline_chunk(p, stage, c, &ch);
		if (!v_shape)
			left = n; /* N of each chunk; DualPipeV: N of the rank's two */
		r = left < ch.layers ? left : ch.layers;
		left -= r;
		sum += moe ? r - dense_among(p, ch.first_layer, r) : r;
	}
	return sum < all ? sum : all;
}

uint64_t dc_axis_mtp_layers(const struct dc_plan *p, uint64_t stage)
{
	uint64_t n = p->in->model.mtp_layers;
	if (!n)
		return 0;
	for (uint64_t c = 0; c < dc_pipeline_chunks(p); c++) {
		struct dc_pipeline_chunk ch;
		dc_pipeline_chunk(p, stage, c, &ch);
		if (ch.head)
			return n;
	}
	return 0;
}

uint64_t dc_axis_mtp_recomputed(const struct dc_plan *p, uint64_t mtp)
{
	return dc_plan_mtp_recomputed(p) ? mtp : 0;
}

int dc_axis_mtp_moe(const struct dc_plan *p)
{
	return p->in->model.num_experts > 0 && !p->in->model.params_explicit;
}
