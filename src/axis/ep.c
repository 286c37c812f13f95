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
	dc_axis_push(x, DC_COLL_ALL_TO_ALL, DC_CW_EP_DISPATCH_COMBINE, DC_CPHASE_FORWARD, DC_OVL_EXPERT_A2A, calls,
		     msg);
	dc_axis_push(x, DC_COLL_ALL_TO_ALL, DC_CW_EP_GRADIENTS, DC_CPHASE_BACKWARD, DC_OVL_EXPERT_A2A, calls, msg);
	/* the replay is a forward's dispatch and combine, run in backward */
	dc_axis_push(x, DC_COLL_ALL_TO_ALL, DC_CW_EP_DISPATCH_COMBINE_RECOMPUTED, DC_CPHASE_BACKWARD,
		     DC_OVL_EXPERT_A2A, dc_ck_mul(b, 2, re), msg);
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
