/* tp.c - the tensor-parallel axis (Megatron-LM): per layer per microbatch
 * two AllReduces forward and two backward, or with sequence parallelism
 * an AllGather and a ReduceScatter each (Korthikanti et al. 2022 section
 * 4.2.2); a layer counts the microbatches its chunk runs (DualPipe: m / 2).
 * docs/formulas-systems.md, "Communication per step". */
#include "axis_int.h"

void dc_axis_tp_comm(struct dc_axis_ctx *x)
{
	const struct dc_plan *p = x->p;
	const struct dc_config *cfg = p->in;
	struct dc_ck *b = x->b;
	/* layers: every stage the rank holds (both under DualPipe), each run
	 * for its chunks' microbatches (m / 2 under DualPipe: activation.h) */
	uint64_t mb = dc_pipeline_chunk_microbatches(p), layers = x->best->layers;
	uint64_t act, per_mb, re_mb;
	/* full recompute runs every layer's forward again in backward, and
	 * with it the forward's collectives */
	int refwd = cfg->training.recompute == DC_RECOMPUTE_FULL;
	if (p->layout.tp < 2)
		return;
	act = dc_axis_act_bytes(x);
	per_mb = dc_ck_mul(b, dc_ck_mul(b, 2, layers), mb);
	/* training.recompute_layers: only N layers of each chunk (uneven
	 * chunks chunk by chunk: plan.h), of each of a DualPipe rank's two
	 * stages (plan.h's chunk: L / (pp v)) */
	re_mb = dc_ck_mul(b, dc_ck_mul(b, 2, dc_axis_recomputed_layers(x, 0)), mb);
	dc_axis_setup(x, p->topo.degree[DC_AXIS_TP], &p->group[DC_AXIS_TP].link, &p->group[DC_AXIS_TP].net);
	/* Megatron runs the backward's input-gradient collective behind the
	 * weight-gradient GEMM, and the input's re-gather behind the
	 * input-gradient GEMM (Megatron-LM 2021 section 3,
	 * --async-tensor-model-parallel-allreduce; Korthikanti et al. 2022
	 * section 4.2.2): DC_OVL_BEHIND_GEMM. The output-gradient AllGather
	 * (g-bar) and a recomputed forward's collectives are waited for. */
	if (!p->layout.sequence_parallel) {
		dc_axis_push(x, DC_COLL_ALL_REDUCE, DC_CW_TP_OUTPUT_FG, DC_CPHASE_FORWARD, DC_OVL_EXPOSED, per_mb, act);
		dc_axis_push(x, DC_COLL_ALL_REDUCE, DC_CW_TP_INPUT_GRAD_FG, DC_CPHASE_BACKWARD, DC_OVL_BEHIND_GEMM, per_mb,
			     act);
		if (refwd)
			dc_axis_push(x, DC_COLL_ALL_REDUCE, DC_CW_TP_OUTPUT_RECOMPUTED, DC_CPHASE_BACKWARD,
				     DC_OVL_EXPOSED, re_mb, act);
		return;
	}
	dc_axis_push(x, DC_COLL_ALL_GATHER, DC_CW_TP_SEQ_IN_G, DC_CPHASE_FORWARD, DC_OVL_EXPOSED, per_mb, act);
	dc_axis_push(x, DC_COLL_REDUCE_SCATTER, DC_CW_TP_OUTPUT_GBAR, DC_CPHASE_FORWARD, DC_OVL_EXPOSED, per_mb, act);
	dc_axis_push(x, DC_COLL_ALL_GATHER, DC_CW_TP_OUTPUT_GRAD_GBAR, DC_CPHASE_BACKWARD, DC_OVL_EXPOSED, per_mb,
		     act);
	dc_axis_push(x, DC_COLL_REDUCE_SCATTER, DC_CW_TP_INPUT_GRAD_G, DC_CPHASE_BACKWARD, DC_OVL_BEHIND_GEMM, per_mb,
		     act);
	/* the gathered input is not kept (activations hold s/t): Megatron
	 * gathers it again for the weight gradients */
	dc_axis_push(x, DC_COLL_ALL_GATHER, DC_CW_TP_INPUT_REGATHER, DC_CPHASE_BACKWARD, DC_OVL_BEHIND_GEMM, per_mb,
		     act);
	if (refwd) {
		dc_axis_push(x, DC_COLL_ALL_GATHER, DC_CW_TP_SEQ_RECOMPUTED, DC_CPHASE_BACKWARD, DC_OVL_EXPOSED, re_mb,
			     act);
		dc_axis_push(x, DC_COLL_REDUCE_SCATTER, DC_CW_TP_OUTPUT_RECOMPUTED, DC_CPHASE_BACKWARD,
			     DC_OVL_EXPOSED, re_mb, act);
	}
}
