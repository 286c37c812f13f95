/* ep.c - the expert-parallel axis: MoE token dispatch and combine, an
 * AlltoAll each in forward and again in backward, per MoE layer per
 * microbatch, over the ep ranks that hold the experts.
 * docs/formulas-systems.md, "Communication per step". */
#include "axis_int.h"

void dc_axis_ep_comm(struct dc_axis_ctx *x)
{
	const struct dc_plan *p = x->p;
	const struct dc_config *cfg = p->in;
	struct dc_ck *b = x->b;
	uint64_t calls, msg;
	if (p->layout.ep < 2 || x->best->moe_layers == 0)
		return;
	/* each call carries the microbatch's tokens on this rank (s/t of them
	 * under sequence parallelism) x top-k x h values in the working
	 * precision; routing is assumed uniform, M/ep to each peer */
	calls = dc_ck_mul(b, dc_ck_mul(b, 2, x->best->moe_layers), p->layout.grad_accum_steps);
	msg = dc_ck_mul(b, dc_ck_mul(b, p->tokens_per_microbatch_rank, cfg->model.experts_per_token),
			dc_ck_mul(b, cfg->model.hidden_size, cfg->precision.working_bytes));
	dc_axis_setup(x, p->layout.ep, &p->ep_link, &p->ep_net_group);
	dc_axis_push(x, DC_COLL_ALL_TO_ALL, DC_CW_EP_DISPATCH_COMBINE, DC_CPHASE_FORWARD, DC_OVL_EXPERT_A2A, calls,
		     msg);
	dc_axis_push(x, DC_COLL_ALL_TO_ALL, DC_CW_EP_GRADIENTS, DC_CPHASE_BACKWARD, DC_OVL_EXPERT_A2A, calls, msg);
}
