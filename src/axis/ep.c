/* ep.c - the expert-parallel axis: MoE token dispatch and combine, an
 * AlltoAll each in forward and again in backward, per MoE layer per
 * microbatch (the microbatches its chunk runs: m / 2 under DualPipe), over
 * the ep ranks that hold the experts (ep consecutive dp ranks, or
 * Megatron-Core's folded expert groups: plan.h), and with etp > 1 the
 * expert tp group's gathers. Full recompute reruns the MoE layer's
 * forward in backward, token dispatcher included, so the forward's calls
 * run again for the MoE layers it recomputes (Megatron-Core's
 * transformer_block.py _checkpointed_forward checkpoints whole layers;
 * moe_layer.py's forward dispatches and combines inside them). A
 * multi-token-prediction module's layer is a MoE layer where the model has
 * experts, on the rank that runs the modules: its calls count beside the
 * stage's (x->moe_mtp; Megatron-Core builds it from the decoder's layer
 * spec with the model's expert parallelism, multi_token_prediction.py
 * :1220-1228 at d98e8a64, with the model's process groups); full recompute reruns it only under the
 * uniform method (axis_int.h dc_axis_mtp_recomputed). Selective
 * recompute's moe module reruns every MoE layer's.
 * docs/formulas-systems.md, "Communication per step". */
#include "axis_int.h"

#include <math.h>

/* ln C(n, r); -inf when r > n (a weight of 0) */
static double lbinom(uint64_t n, uint64_t r)
{
	if (r > n)
		return -INFINITY;
	return lgamma((double)n + 1.0) - lgamma((double)r + 1.0) - lgamma((double)(n - r) + 1.0);
}

/* C(n - c, q) / C(n, q): q draws from n miss c of them */
static double miss_all(uint64_t n, uint64_t c, uint64_t q)
{
	double v = 1;
	for (uint64_t i = 0; i < q; i++)
		v *= c + i < n ? (double)(n - c - i) / (double)(n - i) : 0.0;
	return v;
}

/* The chance that a token's k experts include one of experts [a, b),
 * under uniform routing over model.router_groups G equal groups of s =
 * E / G consecutive experts, a token's T groups drawn alike. The span
 * meets groups g1 to g2: c1 experts of the first, c2 of the last, the m
 * between whole; (x1, x2, j of the m) of them are among the token's
 * groups in C(m, j) C(G - m - 2, T - x1 - x2 - j) of the C(G, T) draws.
 * Given those, where T divides k each of the T groups gives k / T experts
 * (Megatron-Core's group score is the sum of a group's top k / T scores,
 * transformer_config.py:783-785 at d98e8a64, DeepSeek-V3's its top 2 of 8
 * over 4 groups: a chosen group holds its share of the k), drawn alike
 * within it, so the span is missed with chance C(s - c1, k/T) / C(s,
 * k/T) for the first group if held, the same for the last, and never
 * when a whole group of it is held; else the k are drawn alike over the
 * T s experts of the groups, missing the c = x1 c1 + x2 c2 + j s covered
 * ones with chance C(T s - c, k) / C(T s, k). Weights in logarithms: no
 * overflow at any G. */
double dc_ep_hit_chance(uint64_t E, uint64_t G, uint64_t T, uint64_t k, uint64_t a, uint64_t b)
{
	uint64_t s = E / G, A = T * s, g1 = a / s, g2 = (b - 1) / s;
	uint64_t c1 = g1 == g2 ? b - a : (g1 + 1) * s - a, c2 = g1 == g2 ? 0 : b - g2 * s;
	uint64_t ends = g1 == g2 ? 1 : 2, m = g2 - g1 + 1 - ends, rest = G - (g2 - g1 + 1);
	int shares = k % T == 0;
	double all = lbinom(G, T), miss = 0;
	for (uint64_t x1 = 0; x1 < 2; x1++)
		for (uint64_t x2 = 0; x2 < (ends == 2 ? 2u : 1u); x2++)
			for (uint64_t j = 0; j <= m; j++) {
				uint64_t chosen = x1 + x2 + j;
				double w, none;
				if (chosen > T || T - chosen > rest)
					continue;
				if (shares && j > 0)
					break; /* a whole group of the span gives it k / T >= 1 experts */
				w = exp(lbinom(m, j) + lbinom(rest, T - chosen) - all);
				if (shares)
					none = (x1 ? miss_all(s, c1, k / T) : 1.0) * (x2 ? miss_all(s, c2, k / T) : 1.0);
				else
					none = miss_all(A, x1 * c1 + x2 * c2 + j * s, k);
				miss += w * none;
			}
	return 1.0 - miss;
}

/* The expected count of `units` equal blocks of consecutive experts (the
 * nodes, or the ranks, of the ep group: Megatron-Core places a rank's
 * E / ep experts together) that a token's experts meet */
static double units_met(const struct dc_model *m, uint64_t units)
{
	uint64_t E = m->num_experts, per = E / units;
	double sum = 0;
	for (uint64_t u = 0; u < units; u++)
		sum += dc_ep_hit_chance(E, m->router_groups, m->router_group_topk, m->experts_per_token, u * per,
					(u + 1) * per);
	return sum;
}

/* DeepEP's dispatch (training.moe_dispatcher "deepep"; deepseek-ai/DeepEP's
 * normal kernels, DeepSeek-V3 section 3.2.2): a token goes once to each
 * other node holding one of its experts, over the network to the rank of
 * its own local index there, and from there (or, on its own node, from
 * itself) once over NVLink to each other rank holding one; the combine
 * returns the same way. With D the nodes and R the ranks a token meets
 * (units_met), the network part is an AlltoAll over the N nodes' ranks of
 * one local index, D tokens a token (D (N - 1) / N of them leave the
 * node), the NVLink part one over a node's g ranks, R tokens a token (R
 * (g - 1) / g of them move: the landing rank is one of the R with chance
 * 1 / g). The two run at once, so a call takes the longer: the other
 * row keeps its bytes and no time. An ep group on one node, or spread
 * unevenly (plan.c derive_ep_levels), is one AlltoAll of R tokens a token
 * over the group. `row` is the bytes of one token; `calls` per row. */
static void deepep_push(struct dc_axis_ctx *x, enum dc_coll_what what, enum dc_coll_phase phase, uint64_t calls,
			uint64_t tokens, uint64_t row)
{
	const struct dc_plan *p = x->p;
	const struct dc_plan_group *nodes = &p->group[DC_GROUP_EP_NODES], *local = &p->group[DC_GROUP_EP_LOCAL];
	const struct dc_model *m = &p->in->model;
	double per = (double)tokens * (double)row;
	uint64_t n0;
	if (calls == 0)
		return;
	if (!nodes->net.ranks) {
		dc_axis_push(x, DC_COLL_ALL_TO_ALL, what, phase, DC_OVL_EXPERT_A2A, calls,
			     (uint64_t)llround(per * units_met(m, p->layout.ep)));
		return;
	}
	n0 = x->s->ncoll;
	x->s->group_size = nodes->net.ranks;
	dc_axis_use_link(x->s, &nodes->link, &nodes->net);
	dc_axis_push(x, DC_COLL_ALL_TO_ALL, what, phase, DC_OVL_EXPERT_A2A, calls,
		     (uint64_t)llround(per * units_met(m, nodes->net.ranks)));
	if (local->net.ranks > 1) {
		x->s->group_size = local->net.ranks;
		dc_axis_use_link(x->s, &local->link, &local->net);
		dc_axis_push(x, DC_COLL_ALL_TO_ALL, what, phase, DC_OVL_EXPERT_A2A, calls,
			     (uint64_t)llround(per * units_met(m, p->layout.ep)));
	}
	if (x->s->ncoll == n0 + 2)
		dc_axis_ep_keep_longer(p, &x->s->coll[n0], &x->s->coll[n0 + 1]);
	x->s->group_size = p->layout.ep;
	dc_axis_use_link(x->s, &p->group[DC_GROUP_EP].link, &p->group[DC_GROUP_EP].net);
}

static int deepep_row(const struct dc_coll *k)
{
	return k->kind == DC_COLL_ALL_TO_ALL &&
	       (k->what == DC_CW_EP_DISPATCH_COMBINE || k->what == DC_CW_EP_GRADIENTS ||
		k->what == DC_CW_EP_DISPATCH_COMBINE_RECOMPUTED);
}

const struct dc_net_group *dc_axis_ep_row_group(const struct dc_plan *p, const struct dc_coll *k)
{
	const struct dc_plan_group *nodes = &p->group[DC_GROUP_EP_NODES], *local = &p->group[DC_GROUP_EP_LOCAL];
	if (k->what >= DC_CW_ETP_TOKENS && k->what <= DC_CW_ETP_OUTPUTS_RECOMPUTED)
		return &p->group[DC_GROUP_ETP].net;
	if (deepep_row(k) && nodes->net.ranks && k->link == nodes->link.choice && k->group_size == nodes->net.ranks)
		return &nodes->net;
	if (deepep_row(k) && local->net.ranks && k->link == local->link.choice && k->group_size == local->net.ranks)
		return &local->net;
	return &p->group[DC_GROUP_EP].net;
}

int dc_axis_ep_keep_longer(const struct dc_plan *p, struct dc_coll *a, struct dc_coll *b)
{
	if (!(deepep_row(a) && deepep_row(b) && a->what == b->what && a->phase == b->phase && a->count == b->count &&
	      dc_axis_ep_row_group(p, a) == &p->group[DC_GROUP_EP_NODES].net &&
	      dc_axis_ep_row_group(p, b) == &p->group[DC_GROUP_EP_LOCAL].net))
		return 0;
	*(a->time_s >= b->time_s ? &b->time_s : &a->time_s) = 0;
	return 1;
}

void dc_axis_ep_comm(struct dc_axis_ctx *x)
{
	const struct dc_plan *p = x->p;
	const struct dc_config *cfg = p->in;
	struct dc_ck *b = x->b;
	/* moe_layers: every stage the rank holds (both under DualPipe), each
	 * run for its chunks' microbatches (m / 2 under DualPipe) */
	uint64_t mb = dc_pipeline_chunk_microbatches(p), layers = x->moe->moe_layers + x->moe_mtp;
	uint64_t calls, msg, re = 0;
	/* torchtitan has no expert tp group: with ep 1 its MoE block gathers
	 * over the tp group as a dense MLP does (tp.c, framework.h
	 * dc_framework_moe_tp_calls), with ep > 1 its routed experts are
	 * whole on their ep rank (models/common/moe_sharding.py:29-47 at
	 * b5bcd76c) */
	int etp_gathers = p->etp > 1 && (p->layout.sequence_parallel || p->etp != p->layout.tp) &&
			  cfg->training.framework != DC_FRAMEWORK_TORCHTITAN;
	if (layers == 0 || (p->layout.ep < 2 && !etp_gathers))
		return;
	/* each call carries the microbatch's tokens on this rank (s/t of them
	 * under sequence parallelism) x top-k x h values in the working
	 * precision; routing is assumed uniform, M/ep to each peer */
	calls = dc_ck_mul(b, dc_ck_mul(b, 2, layers), mb);
	/* the MoE layer-microbatches full recompute reruns (recompute_layers:
	 * the MoE layers among each chunk's first N) */
	if (cfg->training.recompute == DC_RECOMPUTE_FULL)
		re = dc_ck_mul(b,
			       dc_ck_add(b, x->moe->moe_layers ? dc_axis_recomputed_layers(x, 1) : 0,
					 dc_axis_mtp_recomputed(p, x->moe_mtp)),
			       mb);
	/* selective recompute's moe module checkpoints every MoE layer's MLP
	 * part, the dispatcher inside it (moe_layer.py:701 at d98e8a64), the
	 * MTP modules' too (their layers read the same recompute_modules) */
	else if (dc_recompute_modules(cfg) & DC_RCM(DC_RCM_MOE))
		re = dc_ck_mul(b, layers, mb);
	msg = dc_ck_mul(b, dc_ck_mul(b, p->tokens_per_microbatch_rank, cfg->model.experts_per_token),
			dc_ck_mul(b, cfg->model.hidden_size, cfg->precision.working_bytes));
	dc_axis_setup(x, p->layout.ep, &p->group[DC_GROUP_EP].link, &p->group[DC_GROUP_EP].net);
	if (cfg->training.moe_dispatcher == DC_MOE_DISPATCH_DEEPEP && p->layout.ep > 1) {
		uint64_t row = dc_ck_mul(b, cfg->model.hidden_size, cfg->precision.working_bytes);
		deepep_push(x, DC_CW_EP_DISPATCH_COMBINE, DC_CPHASE_FORWARD, calls, p->tokens_per_microbatch_rank, row);
		deepep_push(x, DC_CW_EP_GRADIENTS, DC_CPHASE_BACKWARD, calls, p->tokens_per_microbatch_rank, row);
		deepep_push(x, DC_CW_EP_DISPATCH_COMBINE_RECOMPUTED, DC_CPHASE_BACKWARD, dc_ck_mul(b, 2, re),
			    p->tokens_per_microbatch_rank, row);
	} else {
		dc_axis_push(x, DC_COLL_ALL_TO_ALL, DC_CW_EP_DISPATCH_COMBINE, DC_CPHASE_FORWARD, DC_OVL_EXPERT_A2A,
			     calls, msg);
		dc_axis_push(x, DC_COLL_ALL_TO_ALL, DC_CW_EP_GRADIENTS, DC_CPHASE_BACKWARD, DC_OVL_EXPERT_A2A, calls,
			     msg);
		/* the replay is a forward's dispatch and combine, run in backward */
		dc_axis_push(x, DC_COLL_ALL_TO_ALL, DC_CW_EP_DISPATCH_COMBINE_RECOMPUTED, DC_CPHASE_BACKWARD,
			     DC_OVL_EXPERT_A2A, dc_ck_mul(b, 2, re), msg);
	}
	/* Expert tensor parallelism where each rank's tokens are its own
	 * (sequence parallelism, or an expert tp group other than the
	 * attention's): after the dispatch the etp ranks of an expert gather
	 * what each received (M = etp x the received bytes, uniform routing:
	 * what it sent) and reduce-scatter the experts' outputs before the
	 * combine; backward the reverse (Megatron-Core's alltoall token
	 * dispatcher: dispatch_postprocess all-gathers over the expert tp
	 * group whenever it has more than one rank). With etp = tp and no
	 * sequence parallelism the tp ranks hold the same tokens already. */
	if (etp_gathers) {
		uint64_t per = dc_ck_mul(b, layers, mb);
		uint64_t full = dc_ck_mul(b, p->etp, msg);
		x->s->group_size = p->etp;
		dc_axis_use_link(x->s, &p->group[DC_GROUP_ETP].link, &p->group[DC_GROUP_ETP].net);
		dc_axis_push(x, DC_COLL_ALL_GATHER, DC_CW_ETP_TOKENS, DC_CPHASE_FORWARD, DC_OVL_EXPERT_A2A, per, full);
		dc_axis_push(x, DC_COLL_REDUCE_SCATTER, DC_CW_ETP_OUTPUTS, DC_CPHASE_FORWARD, DC_OVL_EXPERT_A2A, per, full);
		dc_axis_push(x, DC_COLL_ALL_GATHER, DC_CW_ETP_TOKEN_GRADS, DC_CPHASE_BACKWARD, DC_OVL_EXPERT_A2A, per,
			     full);
		dc_axis_push(x, DC_COLL_REDUCE_SCATTER, DC_CW_ETP_INPUT_GRADS, DC_CPHASE_BACKWARD, DC_OVL_EXPERT_A2A, per,
			     full);
		dc_axis_push(x, DC_COLL_ALL_GATHER, DC_CW_ETP_TOKENS_RECOMPUTED, DC_CPHASE_BACKWARD, DC_OVL_EXPERT_A2A,
			     re, full);
		dc_axis_push(x, DC_COLL_REDUCE_SCATTER, DC_CW_ETP_OUTPUTS_RECOMPUTED, DC_CPHASE_BACKWARD,
			     DC_OVL_EXPERT_A2A, re, full);
		x->s->group_size = p->layout.ep;
		dc_axis_use_link(x->s, &p->group[DC_GROUP_EP].link, &p->group[DC_GROUP_EP].net);
	}
}
