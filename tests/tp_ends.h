/* tp_ends.h - what the model's ends add to a rank's exposed TP time, by
 * hand from their calls (src/axis/tp.c ends_calls, loss_reduces; the
 * step's rule, docs/step-model.md "The model's ends"): the embedding's
 * output call and its gradient's gather, the head's input gather and the
 * loss's reductions are waited for; the head's input gradient hides behind
 * the head's weight-gradient GEMM and its input's re-gather behind its
 * input-gradient GEMM (the head's matmul time less the weight gradient's),
 * each showing what exceeds its GEMM, except under torchtitan, which
 * waits for both. The calls are comm.h tp_head's rows, a step's on the
 * rank that holds them; `m` the microbatches of that rank's chunk.
 */
#ifndef DISTCALC_TEST_TP_ENDS_H
#define DISTCALC_TEST_TP_ENDS_H

#include <math.h>

#include "distcalc/comm.h"
#include "distcalc/compute.h"

/* A step's time of the tp_head rows of `what` */
static inline double tp_end_time(const struct dc_comm *comm, enum dc_coll_what what)
{
	double t = 0;
	for (uint64_t i = 0; i < comm->tp_head.ncoll; i++)
		if (comm->tp_head.coll[i].what == what)
			t += comm->tp_head.coll[i].time_s;
	return t;
}

/* The embedding's part, on the rank whose chunk holds it */
static inline double tp_embedding_exposed(const struct dc_comm *comm)
{
	return tp_end_time(comm, DC_CW_TP_EMBED_OUT) + tp_end_time(comm, DC_CW_TP_EMBED_GRAD);
}

/* The head's part (without its MTP modules' rows), on the rank whose chunk
 * holds it; `async`: the framework runs the backward calls behind the
 * head's GEMMs (all but torchtitan) */
static inline double tp_head_exposed(const struct dc_comm *comm, const struct dc_work_time *head, double m, int async)
{
	double g = tp_end_time(comm, DC_CW_TP_HEAD_IN_GRAD), r = tp_end_time(comm, DC_CW_TP_HEAD_REGATHER);
	double waited = tp_end_time(comm, DC_CW_TP_HEAD_IN) + tp_end_time(comm, DC_CW_TP_LOSS_CHUNK);
	if (!async)
		return waited + g + r;
	return waited + fmax(0, g - m * head->bwd_wgrad_s) + fmax(0, r - m * (head->bwd_matmul_s - head->bwd_wgrad_s));
}

#endif
