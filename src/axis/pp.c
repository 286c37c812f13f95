/* pp.c - the pipeline axis: activations to the next stage and gradients
 * to the previous, per microbatch and model chunk (Megatron-LM 2021
 * section 2.2.2). docs/formulas-systems.md, "Communication per step". */
#include "axis_int.h"

void dc_axis_pp_comm(struct dc_axis_ctx *x)
{
	const struct dc_plan *p = x->p;
	const struct dc_layout *par = &p->layout;
	struct dc_ck *b = x->b;
	uint64_t gas = par->grad_accum_steps, v = p->v, act, msg;
	enum dc_pipe_schedule sch = dc_pipeline_schedule(p);
	if (par->pp < 2)
		return;
	/* with sequence parallelism each tp rank holds and sends only its s/t
	 * slice (Megatron-Core's pipeline tensor shape) */
	act = dc_axis_act_bytes(x);
	msg = par->sequence_parallel ? act / par->tp + (act % par->tp != 0) : act;
	dc_axis_setup(x, 2, &p->group[DC_AXIS_PP].link, &p->group[DC_GROUP_PP_PAIR].net); /* a send crosses one stage boundary */
	/* interleaving: each microbatch crosses every rank's boundaries v
	 * times. A middle stage sends v activations forward and v gradients
	 * back per microbatch; with two stages the ring of chunks folds: rank
	 * 0 sends v forward and v - 1 back, rank 1 the reverse, 2v - 1 in all
	 * (v = 1: one direction only) */
	if (sch == DC_PIPE_DUALPIPEV || sch == DC_PIPE_DUALPIPE) {
		/* DualPipeV (activation.h): rank s holds chunks s and 2pp - 1 - s
		 * of a V, so a middle rank sends each microbatch on twice each
		 * way (chunk s to rank s + 1, chunk 2pp - 1 - s to rank s - 1);
		 * the V's turn (chunks pp - 1 and pp, both on rank pp - 1) and
		 * its ends send once: with two stages every rank sends once.
		 * DualPipe: rank s holds stage s of the forward direction and
		 * pp - 1 - s of the reverse, each run by m / 2 microbatches
		 * (dc_pipeline_chunk_microbatches); a middle rank sends both
		 * stages' activations and gradients on, m / 2 x 2 = m each way
		 * as 1F1B's middle stage; an end rank's two stages are a first
		 * and a last (rank 0: stage 0 sends activations, stage pp - 1
		 * gradients), so with two stages a rank sends m / 2 of each
		 * where 1F1B's sends m one way. The rows are the analysed
		 * rank's (x->stage): an end rank, 0 or pp - 1, sends once each
		 * way, a middle one twice (a review found every rank charged a
		 * middle one's, as 1F1B's rows were) */
		int end = x->stage == 0 || x->stage == par->pp - 1;
		uint64_t per = end ? 1 : 2, mb = dc_pipeline_chunk_microbatches(p);
		dc_axis_push(x, DC_COLL_SEND, DC_CW_PP_ACTIVATIONS, DC_CPHASE_FORWARD, DC_OVL_PIPELINE,
			     dc_ck_mul(b, mb, per), msg);
		dc_axis_push(x, DC_COLL_SEND, DC_CW_PP_GRADIENTS, DC_CPHASE_BACKWARD, DC_OVL_PIPELINE,
			     dc_ck_mul(b, mb, per), msg);
		x->s->group_size = par->pp;
		return;
	}
	/* the analysed stage's own sends (x->stage, comm.stage): the first
	 * stage sends no gradients back but those of its v - 1 later chunks
	 * (to the last stage, the chunks wrapping), the last no activations
	 * on but those of its v - 1 earlier chunks; a middle stage v each
	 * way. Two stages: each sends its own direction v times, the other
	 * v - 1 (a student read stage 1's gradients as "activations to next
	 * stage"). The rows were a middle stage's whatever the analysed one,
	 * so an end stage's total counted sends it never makes (a trial:
	 * Mixtral's stage 3, 536,870,912 B too many) */
	{
		int first = x->stage == 0, last = x->stage == par->pp - 1;
		dc_axis_push(x, DC_COLL_SEND, DC_CW_PP_ACTIVATIONS, DC_CPHASE_FORWARD, DC_OVL_PIPELINE,
			     dc_ck_mul(b, gas, last ? v - 1 : v), msg);
		dc_axis_push(x, DC_COLL_SEND, DC_CW_PP_GRADIENTS, DC_CPHASE_BACKWARD, DC_OVL_PIPELINE,
			     dc_ck_mul(b, gas, first ? v - 1 : v), msg);
	}
	x->s->group_size = par->pp;
}
