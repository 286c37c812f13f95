/* tp.c - the tensor-parallel axis (Megatron-LM): per layer per microbatch
 * two AllReduces forward and two backward, or with sequence parallelism
 * an AllGather and a ReduceScatter each (Korthikanti et al. 2022 section
 * 4.2.2); a layer counts the microbatches its chunk runs (DualPipe: m / 2).
 * Under sequence parallelism a MoE layer's MLP takes the pair only where
 * its framework gathers over the tp group (framework.h,
 * dc_framework_moe_tp_calls: a shared expert's, torchtitan's dense-style
 * experts); the routed experts' tokens are the EP axis's.
 * A multi-token-prediction module on the rank (axis_int.h
 * dc_axis_mtp_layers) runs one more layer of the model's kind, its calls
 * as any layer's, and its eh_proj's own (mtp_eh_proj).
 * Under precision.compute "fp8" the AllGathers that feed a linear layer's
 * FP8 GEMM may carry the quantized tensor (framework.h,
 * dc_framework_tp_gather_format).
 * docs/formulas-systems.md, "Communication per step". */
#include "axis_int.h"
#include "distcalc/activation.h"
#include "distcalc/framework.h"

/* An amax reduction's message: one FP32 scalar (Transformer Engine's
 * amax buffer, csrc/quantizer.cpp:1035-1040 at d0067d0d) */
#define TP_AMAX_BYTES 4u

/* The message of one such AllGather of `tokens` x `hidden` elements
 * (gathered: the whole b s h), in format f; `grad`: the row-parallel
 * output gradient's, of which MXFP8 gathers two copies. */
static uint64_t tp_gather_bytes(struct dc_ck *b, enum dc_tp_gather_format f, uint64_t tokens, uint64_t hidden,
				uint64_t working_bytes, int grad)
{
	uint64_t row;
	switch (f) {
	case DC_TP_GATHER_WORKING:
		return dc_ck_mul(b, dc_ck_mul(b, tokens, hidden), working_bytes);
	case DC_TP_GATHER_FP8:
		/* one byte an element; the per-tensor scale is one FP32
		 * scalar the ranks share, not gathered */
		return dc_ck_mul(b, tokens, hidden);
	case DC_TP_GATHER_MXFP8:
		/* a row of h FP8 bytes and one E8M0 scale per 32 of them;
		 * the output gradient gathers both the row-wise and the
		 * column-wise copy */
		row = dc_ck_add(b, hidden, (hidden + 31) / 32);
		return dc_ck_mul(b, dc_ck_mul(b, tokens, row), grad ? 2 : 1);
	}
	return 0;
}

/* dc_axis_push, and on the call it appended the calls of it one dense and
 * one MoE layer issue a microbatch (comm.h per_layer) */
static void push_layer(struct dc_axis_ctx *x, enum dc_coll_kind kind, enum dc_coll_what what, enum dc_coll_phase phase,
		       enum dc_overlap_class overlap, uint64_t calls, uint64_t bytes, const double per[2])
{
	uint64_t n = x->s->ncoll;
	dc_axis_push(x, kind, what, phase, overlap, calls, bytes);
	if (x->s->ncoll > n) {
		x->s->coll[n].per_layer[0] = per[0];
		x->s->coll[n].per_layer[1] = per[1];
	}
}

/* A sequence-parallel AllGather, `calls` of them: `quant` in the gather
 * format's `q_bytes`, the rest in the working precision's `act`; one row
 * when they all carry the same. `qper`, `aper`: the quantized ones and the
 * rest a dense and a MoE layer issue; one row carries both (the step
 * model prices a kind of layer the analysed rank lacks by its calls). */
static void push_gathers(struct dc_axis_ctx *x, enum dc_coll_what what, enum dc_coll_phase phase,
			 enum dc_overlap_class overlap, uint64_t calls, uint64_t quant, uint64_t q_bytes, uint64_t act,
			 const double qper[2], const double aper[2])
{
	double both[2] = {qper[0] + aper[0], qper[1] + aper[1]};
	if (q_bytes == act || quant == 0) {
		push_layer(x, DC_COLL_ALL_GATHER, what, phase, overlap, calls, act, both);
		return;
	}
	if (quant == calls) {
		push_layer(x, DC_COLL_ALL_GATHER, what, phase, overlap, calls, q_bytes, both);
		return;
	}
	push_layer(x, DC_COLL_ALL_GATHER, what, phase, overlap, quant, q_bytes, qper);
	push_layer(x, DC_COLL_ALL_GATHER, what, phase, overlap, calls - quant, act, aper);
}

/* Of the layers' gathers, those that feed an FP8 GEMM, over `layers`
 * layers `moe` of them MoE: the attention's (QKV) unless the model's
 * attention is MLA, whose latent projections were not examined, the
 * MLP's (FC1) on a dense layer, and a MoE layer's shared expert's where
 * dc_framework_moe_tp_gathers_quantized (framework.h); the routed tokens
 * reach the experts through the token dispatcher, which moves BF16. */
static uint64_t quantized_gathers(struct dc_axis_ctx *x, uint64_t layers, uint64_t moe)
{
	uint64_t attn = x->p->in->model.kv_lora_rank ? 0 : layers;
	if (moe > layers)
		moe = layers;
	return dc_ck_add(x->b, attn, dc_framework_moe_tp_gathers_quantized(x->p) ? layers : layers - moe);
}

/* Whether the rank holds the model's embedding (head 0) or its head
 * (head 1): the analysed stage's chunks say, or `own`, the rank that
 * holds it (comm.h tp_head) */
static int holds_end(const struct dc_axis_ctx *x, int head, int own)
{
	const struct dc_plan *p = x->p;
	for (uint64_t c = 0; !own && c < dc_pipeline_chunks(p); c++) {
		struct dc_pipeline_chunk ch;
		dc_pipeline_chunk(p, x->stage, c, &ch);
		own |= head ? ch.head != 0 : ch.embedding != 0;
	}
	return own;
}

/* The head's passes a step, on the rank that holds it: each microbatch of
 * its chunk, once for the model and once for each model.mtp_layers module
 * (Megatron-Core d98e8a64 gpt_model.py _postprocess runs the output layer
 * and the loss on each module's hidden states) */
static uint64_t head_passes(struct dc_axis_ctx *x)
{
	return dc_ck_mul(x->b, dc_pipeline_chunk_microbatches(x->p), 1 + x->p->in->model.mtp_layers);
}

/* The vocabulary-parallel loss at tp > 1, per microbatch of the head's
 * chunk, forward only: three AllReduces of one FP32 value a token over the
 * tp group, 4 bytes a token: the row maxima, the sums of the shifted
 * exponentials and the target's logit (0 on the ranks that do not hold
 * it). Megatron-Core d98e8a64 tensor_parallel/cross_entropy.py:130,
 * 146-148, 150-152 (_VocabParallelCrossEntropy.forward; its backward
 * none); torchtitan's loss_parallel, DTensor's handlers (pytorch 02eef6b8
 * torch/distributed/tensor/parallel/loss.py, _log_softmax's two
 * funcol.all_reduce and _nll_loss_forward's _MaskPartial reduction;
 * _nll_loss_and_log_softmax_backward none). training.loss_chunks n > 1
 * (torchtitan's ChunkedLossWrapper) runs _LossParallelCrossEntropy on each
 * chunk's V / t logits, the same three over the chunk's c tokens
 * (components/loss.py:39-55, 65-216 at b5bcd76c): 3n calls. Each is read
 * by the next op at once: exposed. `head`: the rank holds the head
 * (comm.h tp_head), else the analysed stage's chunks say. */
static void loss_reduces(struct dc_axis_ctx *x, int head)
{
	const struct dc_plan *p = x->p;
	uint64_t n = dc_act_loss_chunks(p);
	if (!holds_end(x, 1, head))
		return;
	dc_axis_push(x, DC_COLL_ALL_REDUCE, DC_CW_TP_LOSS_CHUNK, DC_CPHASE_FORWARD, DC_OVL_EXPOSED,
		     dc_ck_mul(x->b, dc_ck_mul(x->b, 3, n), head_passes(x)),
		     dc_ck_mul(x->b, 4, dc_act_loss_chunk_tokens(p)));
}

/* The embedding's and the output layer's own TP calls, per microbatch of
 * the chunk that holds each, M = b s h elements of the working precision
 * (the head stays BF16 under the FP8 recipes of both frameworks, its
 * gather the working precision's, but under precision.fp8_lm_head: then
 * Megatron-Core builds Transformer Engine's output layer,
 * TELMHeadColumnParallelLinear, gpt_model.py:271-275 at d98e8a64, and
 * torchao's float8 converter keeps the output Linear, each gathering its
 * input in the layers' format, dc_framework_tp_gather_format):
 * - the vocabulary-parallel embedding sums its partial lookups: an
 *   AllReduce in forward, or under sequence parallelism a ReduceScatter
 *   to the sequence shards, whose backward gathers the output gradient
 *   (Megatron-Core d98e8a64 tensor_parallel/layers.py:367-383,
 *   VocabParallelEmbedding.forward; language_model_embedding.py:51-56
 *   reduce-scatters only without learned positions, which keep the
 *   AllReduce and then split, :143-147, whose backward gathers;
 *   torchtitan b5bcd76c models/common/decoder_sharding.py:355-366, the
 *   Partial output to Shard or Replicate);
 * - the column-parallel output layer: under sequence parallelism its
 *   input gathered in forward, its input gradient reduce-scattered in
 *   backward behind its weight-gradient GEMM, and, where the framework
 *   keeps the shard (dc_framework_tp_keeps_gathered_input), the input
 *   gathered again for that GEMM, behind its input-gradient GEMM
 *   (layers.py:674-687, the same linear as a layer's; gpt_model.py's
 *   output_layer); without, the input gradient's AllReduce (the f
 *   operator's backward) behind the weight-gradient GEMM; torchtitan's
 *   lm_head takes a Replicate input and gives Shard(-1) logits
 *   (decoder_sharding.py:368-374), the same calls without a re-gather.
 * The head's calls, and the loss's (loss_reduces), run once for the model
 * and once for each MTP module (head_passes). Not recomputed by any
 * method (recomputation reruns layers). `own`: the
 * rank that holds them (comm.h tp_head), else the analysed stage's. */
static void ends_calls(struct dc_axis_ctx *x, int own)
{
	const struct dc_plan *p = x->p;
	const struct dc_config *cfg = p->in;
	uint64_t mb = dc_pipeline_chunk_microbatches(p), act = dc_axis_act_bytes(x), mtp, in;
	int sp = p->layout.sequence_parallel, scatter = sp && cfg->model.position_embeddings == 0;
	if (holds_end(x, 0, own)) {
		dc_axis_push(x, scatter ? DC_COLL_REDUCE_SCATTER : DC_COLL_ALL_REDUCE, DC_CW_TP_EMBED_OUT,
			     DC_CPHASE_FORWARD, DC_OVL_EXPOSED, mb, act);
		if (sp)
			dc_axis_push(x, DC_COLL_ALL_GATHER, DC_CW_TP_EMBED_GRAD, DC_CPHASE_BACKWARD, DC_OVL_EXPOSED, mb,
				     act);
	}
	if (!holds_end(x, 1, own))
		return;
	/* each MTP module looks its tokens up in the shared embedding
	 * (multi_token_prediction.py's forward) on the head's rank: rows of
	 * the MTP's, which the step adds to the head */
	mtp = dc_ck_mul(x->b, mb, cfg->model.mtp_layers);
	dc_axis_push(x, scatter ? DC_COLL_REDUCE_SCATTER : DC_COLL_ALL_REDUCE, DC_CW_TP_MTP_EMBED, DC_CPHASE_FORWARD,
		     DC_OVL_EXPOSED, mtp, act);
	if (sp)
		dc_axis_push(x, DC_COLL_ALL_GATHER, DC_CW_TP_MTP_EMBED_GRAD, DC_CPHASE_BACKWARD, DC_OVL_EXPOSED, mtp,
			     act);
	mb = head_passes(x);
	if (!sp) {
		dc_axis_push(x, DC_COLL_ALL_REDUCE, DC_CW_TP_HEAD_IN_GRAD, DC_CPHASE_BACKWARD, DC_OVL_BEHIND_GEMM, mb,
			     act);
		return;
	}
	in = cfg->precision.fp8_lm_head && cfg->precision.compute == DC_COMPUTE_FP8
		     ? tp_gather_bytes(x->b, dc_framework_tp_gather_format(cfg), p->tokens_per_microbatch_cp,
				       cfg->model.hidden_size, cfg->precision.working_bytes, 0)
		     : act;
	dc_axis_push(x, DC_COLL_ALL_GATHER, DC_CW_TP_HEAD_IN, DC_CPHASE_FORWARD, DC_OVL_EXPOSED, mb, in);
	dc_axis_push(x, DC_COLL_REDUCE_SCATTER, DC_CW_TP_HEAD_IN_GRAD, DC_CPHASE_BACKWARD, DC_OVL_BEHIND_GEMM, mb, act);
	if (!dc_framework_tp_keeps_gathered_input(cfg))
		dc_axis_push(x, DC_COLL_ALL_GATHER, DC_CW_TP_HEAD_REGATHER, DC_CPHASE_BACKWARD, DC_OVL_BEHIND_GEMM, mb,
			     in);
}

/* A multi-token-prediction module's eh_proj, on the rank that runs the
 * modules (`mtp` of them), per microbatch. Megatron-Core at d98e8a64,
 * megatron/core/transformer/multi_token_prediction.py: eh_proj is the
 * backend's column-parallel linear, 2h in, h out, gather_output False
 * (:773-783, :1174-1187); _concat_embeddings concatenates enorm(e) and
 * hnorm(h), runs eh_proj, gathers its h / t output columns over the tp
 * group (gather_from_tensor_model_parallel_region, :1353-1355) and, under
 * sequence parallelism, splits the sequence again
 * (scatter_to_sequence_parallel_region, :1357-1358); the module's
 * transformer layer follows (the layer rows). So, M for b s h elements:
 * - with sequence parallelism: forward the column-parallel linear's input
 *   gather, 2M (the FP8 gather format's bytes under fp8: it runs in the
 *   fp8 context, :1387-1397), and the output's gather over h, M;
 *   backward the scatter's gradient gathered, M, the input gradient
 *   reduce-scattered, 2M (behind the weight-gradient GEMM), and the
 *   input gathered again for the weight gradient, 2M (as a layer's:
 *   dc_framework_tp_keeps_gathered_input); current scaling reduces the
 *   input shard's amax before its FP8 gather;
 * - without: forward the output's gather, M; backward the input
 *   gradient's AllReduce (the linear's f), 2M;
 * - full recompute (uniform: dc_axis_mtp_recomputed) reruns the forward's
 *   gathers (and amax) in backward.
 * The split of the gathered output (and the gather's backward split) moves
 * nothing. The module's embedding lookup and its pass through the shared
 * head are ends_calls' (docs/formulas-systems.md, "Tensor parallel").
 * Rows of their own, with
 * per_layer 0: the step model adds them to the head (src/est/step.c). */
static void mtp_eh_proj(struct dc_axis_ctx *x, uint64_t mtp, uint64_t mb, enum dc_tp_gather_format fmt, int refwd)
{
	const struct dc_plan *p = x->p;
	const struct dc_config *cfg = p->in;
	struct dc_ck *b = x->b;
	uint64_t calls, re, act, act2, in2;
	if (!mtp)
		return;
	calls = dc_ck_mul(b, mtp, mb);
	re = refwd ? dc_ck_mul(b, dc_axis_mtp_recomputed(p, mtp), mb) : 0;
	act = dc_axis_act_bytes(x);
	act2 = dc_ck_mul(b, 2, act);
	if (!p->layout.sequence_parallel) {
		dc_axis_push(x, DC_COLL_ALL_GATHER, DC_CW_TP_MTP_OUT, DC_CPHASE_FORWARD, DC_OVL_EXPOSED, calls, act);
		dc_axis_push(x, DC_COLL_ALL_REDUCE, DC_CW_TP_MTP_IN_GRAD, DC_CPHASE_BACKWARD, DC_OVL_BEHIND_GEMM, calls,
			     act2);
		dc_axis_push(x, DC_COLL_ALL_GATHER, DC_CW_TP_MTP_RECOMPUTED, DC_CPHASE_BACKWARD, DC_OVL_EXPOSED, re, act);
		return;
	}
	in2 = tp_gather_bytes(b, fmt, p->tokens_per_microbatch_cp, dc_ck_mul(b, 2, cfg->model.hidden_size),
			      cfg->precision.working_bytes, 0);
	dc_axis_push(x, DC_COLL_ALL_GATHER, DC_CW_TP_MTP_IN, DC_CPHASE_FORWARD, DC_OVL_EXPOSED, calls, in2);
	dc_axis_push(x, DC_COLL_ALL_GATHER, DC_CW_TP_MTP_OUT, DC_CPHASE_FORWARD, DC_OVL_EXPOSED, calls, act);
	dc_axis_push(x, DC_COLL_ALL_GATHER, DC_CW_TP_MTP_OUT_GRAD, DC_CPHASE_BACKWARD, DC_OVL_EXPOSED, calls, act);
	dc_axis_push(x, DC_COLL_REDUCE_SCATTER, DC_CW_TP_MTP_IN_GRAD, DC_CPHASE_BACKWARD, DC_OVL_BEHIND_GEMM, calls,
		     act2);
	if (!dc_framework_tp_keeps_gathered_input(cfg) || cfg->training.recompute == DC_RECOMPUTE_OP)
		dc_axis_push(x, DC_COLL_ALL_GATHER, DC_CW_TP_MTP_REGATHER, DC_CPHASE_BACKWARD, DC_OVL_BEHIND_GEMM,
			     calls, in2);
	dc_axis_push(x, DC_COLL_ALL_GATHER, DC_CW_TP_MTP_RECOMPUTED, DC_CPHASE_BACKWARD, DC_OVL_EXPOSED, re, in2);
	dc_axis_push(x, DC_COLL_ALL_GATHER, DC_CW_TP_MTP_RECOMPUTED, DC_CPHASE_BACKWARD, DC_OVL_EXPOSED, re, act);
	if (dc_framework_tp_amax_reduced(cfg) && fmt != DC_TP_GATHER_WORKING)
		dc_axis_push(x, DC_COLL_ALL_REDUCE, DC_CW_TP_MTP_AMAX, DC_CPHASE_FORWARD, DC_OVL_INLINE,
			     dc_ck_add(b, calls, re), TP_AMAX_BYTES);
}

/* A layer's calls in `p` per dense and per MoE layer, `d` and `m`, and
 * over the analysed rank's layers those of the recomputed forward: each
 * kind's times the share of its layers that rerun (`re` of `n`; the
 * analysed rank's share over all when it holds none of the kind) */
static void per_of(double out[2], double d, double m)
{
	out[0] = d;
	out[1] = m;
}

static double re_share(uint64_t re, uint64_t n, uint64_t re_all, uint64_t all)
{
	if (n)
		return (double)re / (double)n;
	return all ? (double)re_all / (double)all : 0;
}

/* What one layer of each kind issues a microbatch (comm.h per_layer),
 * and the bytes of its calls: what dc_axis_tp_comm's rows carry for the
 * analysed rank's layers, and kind_rows for one layer of a kind that rank
 * lacks */
struct layer_calls {
	int sp, refwd, regather, amax, amax_op; /* which rows there are */
	uint64_t act, in_bytes, grad_bytes;
	/* without sequence parallelism: the pair, and its recomputed share */
	double pair[2], re_pair[2];
	/* with it: gathers g and reduce-scatters r, of them the quantized
	 * (qg, qr) and the rest (ug, ur) gathers, and the recomputed ones */
	double g[2], r[2], qg[2], ug[2], qr[2], ur[2], re_g[2], re_r[2], re_qg[2], re_ug[2];
};

/* The calls a layer's recompute modules run again in backward, a
 * microbatch (config.h dc_recompute_modules; Megatron-Core reruns a
 * checkpointed module's forward, its linears' collectives with it):
 * without sequence parallelism mlp reruns fc2's AllReduce on a dense
 * layer, moe or shared_experts the MLP's on a MoE layer (tp.c keeps the
 * pair there), MLA's column-parallel up-projections none; with it mlp
 * reruns fc1's gather (quantized as the forward's) and fc2's
 * reduce-scatter, mla_up_proj the attention's gather (the up-projections'
 * inputs, as the forward's row prices it), moe or shared_experts the
 * shared experts' mg gathers (sq of them quantized) and mr
 * reduce-scatters (framework.h dc_framework_moe_tp_calls) */
static void module_replays(const struct dc_config *cfg, struct layer_calls *l, uint64_t mg, uint64_t mr, uint64_t sq)
{
	uint32_t mods = dc_recompute_modules(cfg);
	int mlp = (mods & DC_RCM(DC_RCM_MLP)) != 0;
	int mla = cfg->model.kv_lora_rank && (mods & DC_RCM(DC_RCM_MLA_UP_PROJ));
	int mlp_moe = (mods & (DC_RCM(DC_RCM_MOE) | DC_RCM(DC_RCM_SHARED_EXPERTS))) != 0;
	per_of(l->re_pair, mlp, mlp_moe);
	per_of(l->re_g, mlp + mla, (double)mla + (mlp_moe ? (double)mg : 0.0));
	per_of(l->re_r, mlp, mlp_moe ? (double)mr : 0.0);
	per_of(l->re_qg, mlp, mlp_moe ? (double)sq : 0.0);
	per_of(l->re_ug, l->re_g[0] - l->re_qg[0], l->re_g[1] - l->re_qg[1]);
}

/* The calls of a microbatch's `dense` and `moe` layers, `per` of them a
 * layer of each kind (whole counts: module_replays'), over mb microbatches */
static uint64_t kind_calls(struct dc_ck *b, const double per[2], uint64_t dense, uint64_t moe, uint64_t mb)
{
	return dc_ck_mul(b, dc_ck_add(b, dc_ck_mul(b, (uint64_t)per[0], dense), dc_ck_mul(b, (uint64_t)per[1], moe)), mb);
}

/* On x->s one call of `kind` on `bytes`, `per` of them a layer of kind
 * c: count 1, time one call's, per_layer[c] = per (none when per is 0) */
static void push_one(struct dc_axis_ctx *x, int c, enum dc_coll_kind kind, enum dc_coll_what what,
		     enum dc_coll_phase phase, enum dc_overlap_class overlap, double per, uint64_t bytes)
{
	double two[2] = {0, 0};
	if (!(per > 0))
		return;
	two[c] = per;
	push_layer(x, kind, what, phase, overlap, 1, bytes, two);
}

/* push_one for a gather row of which `q` calls carry `q_bytes` and `u`
 * the working precision's `act`: one row when both carry the same */
static void push_one_gathers(struct dc_axis_ctx *x, int c, enum dc_coll_what what, enum dc_coll_phase phase,
			     enum dc_overlap_class overlap, double q, uint64_t q_bytes, double u, uint64_t act)
{
	if (q_bytes == act) {
		push_one(x, c, DC_COLL_ALL_GATHER, what, phase, overlap, q + u, act);
		return;
	}
	push_one(x, c, DC_COLL_ALL_GATHER, what, phase, overlap, q, q_bytes);
	push_one(x, c, DC_COLL_ALL_GATHER, what, phase, overlap, u, act);
}

/* comm.h tp_kind[c]: one layer of kind c's rows of dc_axis_tp_comm, a
 * microbatch, in its own formats (a dense layer's FC1 input in FP8 where
 * the analysed rank's gathers are all BF16, its amax reductions), with
 * count 1 and per_layer[c] the calls; on the tp group */
static void kind_rows(struct dc_axis_ctx *x, int c, const struct layer_calls *l)
{
	struct dc_axis_ctx k = *x;
	k.s = &x->kind_rows[c];
	dc_axis_setup(&k, x->s->group_size, &x->p->group[DC_AXIS_TP].link, x->s->net_group);
	if (!l->sp) {
		push_one(&k, c, DC_COLL_ALL_REDUCE, DC_CW_TP_OUTPUT_FG, DC_CPHASE_FORWARD, DC_OVL_EXPOSED, l->pair[c],
			 l->act);
		push_one(&k, c, DC_COLL_ALL_REDUCE, DC_CW_TP_INPUT_GRAD_FG, DC_CPHASE_BACKWARD, DC_OVL_BEHIND_GEMM,
			 l->pair[c], l->act);
		if (l->refwd)
			push_one(&k, c, DC_COLL_ALL_REDUCE, DC_CW_TP_OUTPUT_RECOMPUTED, DC_CPHASE_BACKWARD,
				 DC_OVL_EXPOSED, l->re_pair[c], l->act);
		return;
	}
	push_one_gathers(&k, c, DC_CW_TP_SEQ_IN_G, DC_CPHASE_FORWARD, DC_OVL_EXPOSED, l->qg[c], l->in_bytes, l->ug[c],
			 l->act);
	push_one(&k, c, DC_COLL_REDUCE_SCATTER, DC_CW_TP_OUTPUT_GBAR, DC_CPHASE_FORWARD, DC_OVL_EXPOSED, l->r[c], l->act);
	push_one_gathers(&k, c, DC_CW_TP_OUTPUT_GRAD_GBAR, DC_CPHASE_BACKWARD, DC_OVL_EXPOSED, l->qr[c], l->grad_bytes,
			 l->ur[c], l->act);
	push_one(&k, c, DC_COLL_REDUCE_SCATTER, DC_CW_TP_INPUT_GRAD_G, DC_CPHASE_BACKWARD, DC_OVL_BEHIND_GEMM, l->g[c],
		 l->act);
	if (l->regather)
		push_one_gathers(&k, c, DC_CW_TP_INPUT_REGATHER, DC_CPHASE_BACKWARD, DC_OVL_BEHIND_GEMM, l->qg[c],
				 l->in_bytes, l->ug[c], l->act);
	if (l->refwd) {
		push_one_gathers(&k, c, DC_CW_TP_SEQ_RECOMPUTED, DC_CPHASE_BACKWARD, DC_OVL_EXPOSED, l->re_qg[c],
				 l->in_bytes, l->re_ug[c], l->act);
		push_one(&k, c, DC_COLL_REDUCE_SCATTER, DC_CW_TP_OUTPUT_RECOMPUTED, DC_CPHASE_BACKWARD, DC_OVL_EXPOSED,
			 l->re_r[c], l->act);
	}
	if (l->amax) {
		push_one(&k, c, DC_COLL_ALL_REDUCE, DC_CW_TP_AMAX, DC_CPHASE_FORWARD, DC_OVL_INLINE, l->qg[c],
			 TP_AMAX_BYTES);
		push_one(&k, c, DC_COLL_ALL_REDUCE, DC_CW_TP_AMAX, DC_CPHASE_BACKWARD, DC_OVL_INLINE, l->qg[c],
			 TP_AMAX_BYTES);
		if (l->refwd)
			push_one(&k, c, DC_COLL_ALL_REDUCE, DC_CW_TP_AMAX_RECOMPUTED, DC_CPHASE_BACKWARD, DC_OVL_INLINE,
				 l->re_qg[c], TP_AMAX_BYTES);
		else if (l->amax_op)
			push_one(&k, c, DC_COLL_ALL_REDUCE, DC_CW_TP_AMAX_RECOMPUTED, DC_CPHASE_BACKWARD, DC_OVL_INLINE,
				 l->qg[c], TP_AMAX_BYTES);
	}
}

/* comm.h tp_head: the head's calls as the rank whose chunk holds it
 * issues them (model.mtp_layers modules' eh_proj, the chunked loss's),
 * whichever rank x analyses; on the tp group */
static void head_rows(struct dc_axis_ctx *x, uint64_t mb, enum dc_tp_gather_format fmt, int refwd)
{
	struct dc_axis_ctx k = *x;
	k.s = x->head_rows;
	dc_axis_setup(&k, x->s->group_size, &x->p->group[DC_AXIS_TP].link, x->s->net_group);
	mtp_eh_proj(&k, x->p->in->model.mtp_layers, mb, fmt, refwd);
	loss_reduces(&k, 1);
	ends_calls(&k, 1);
}

/* After the analysed rank's layers: the MTP modules' eh_proj, the
 * chunked loss's reductions, the head's own rows (head_rows) and one
 * layer of each kind the rank lacks (kind_rows; `dense`, `moe`: the
 * rank's layers of each kind). */
static void rank_tail(struct dc_axis_ctx *x, uint64_t mb, enum dc_tp_gather_format fmt, int refwd, int kinds,
		      uint64_t dense, uint64_t moe, const struct layer_calls *lc)
{
	mtp_eh_proj(x, x->mtp, mb, fmt, refwd);
	loss_reduces(x, 0);
	ends_calls(x, 0);
	head_rows(x, mb, fmt, refwd);
	for (int c = 0; c < kinds; c++)
		if (!(c ? moe : dense))
			kind_rows(x, c, lc);
}

void dc_axis_tp_comm(struct dc_axis_ctx *x)
{
	const struct dc_plan *p = x->p;
	const struct dc_config *cfg = p->in;
	struct dc_ck *b = x->b;
	/* layers: every stage the rank holds (both under DualPipe), each run
	 * for its chunks' microbatches (m / 2 under DualPipe: activation.h) */
	/* with the rank's MTP modules' layers, each a layer of the model's
	 * kind (axis_int.h dc_axis_mtp_moe), and of them those full recompute
	 * reruns (dc_axis_mtp_recomputed) */
	uint64_t mtp = x->mtp, mtp_moe = dc_axis_mtp_moe(p) ? mtp : 0, re_mtp = dc_axis_mtp_recomputed(p, mtp);
	uint64_t mb = dc_pipeline_chunk_microbatches(p), layers = x->best->layers + mtp;
	uint64_t moe = (x->best->moe_layers < x->best->layers ? x->best->moe_layers : x->best->layers) + mtp_moe;
	uint64_t dense = layers - moe;
	uint64_t act, per_mb, g_mb, r_mb, re_mb, re_g_mb, re_r_mb, re_layers, re_moe, re_dense, q_mb, q_re_mb;
	uint64_t mg = 0, mr = 0;
	/* a layer's attention gather feeds an FP8 GEMM unless its attention
	 * is MLA (quantized_gathers) */
	double aq = cfg->model.kv_lora_rank ? 0.0 : 1.0, sq, fd, fm;
	struct layer_calls lc = {0};
	enum dc_tp_gather_format fmt = dc_framework_tp_gather_format(cfg);
	struct dc_axis_ctx own = *x;
	/* the kinds of layer the model has: a model without experts none of
	 * kind 1 on any stage (comm.h tp_kind) */
	int kinds = cfg->model.num_experts ? 2 : 1;
	/* full recompute runs every layer's forward again in backward, and
	 * with it the forward's collectives; selective recompute's modules
	 * (config.h dc_recompute_modules) the collectives of what they rerun:
	 * relayer, either (module_replays) */
	int refwd = cfg->training.recompute == DC_RECOMPUTE_FULL;
	uint32_t mods = dc_recompute_modules(cfg);
	int remod = (mods & (DC_RCM(DC_RCM_MLP) | DC_RCM(DC_RCM_MOE) | DC_RCM(DC_RCM_SHARED_EXPERTS) |
			     DC_RCM(DC_RCM_MLA_UP_PROJ))) != 0;
	int relayer = refwd || remod;
	if (p->layout.tp < 2)
		return;
	act = dc_axis_act_bytes(x);
	per_mb = dc_ck_mul(b, dc_ck_mul(b, 2, layers), mb);
	/* training.recompute_layers: only N layers of each chunk (uneven
	 * chunks chunk by chunk: plan.h), of each of a DualPipe rank's two
	 * stages (plan.h's chunk: L / (pp v)); the recomputed MoE layers of
	 * best's rank (x->moe may be another stage's: the EP axis's) */
	re_layers = dc_axis_recomputed_layers(x, 0);
	own.moe = x->best;
	own.moe_stage = x->stage;
	re_moe = x->best->moe_layers ? dc_axis_recomputed_layers(&own, 1) : 0;
	if (re_moe > re_layers)
		re_moe = re_layers;
	re_layers += re_mtp;
	re_moe += mtp_moe ? re_mtp : 0;
	re_mb = dc_ck_mul(b, dc_ck_mul(b, 2, re_layers), mb);
	re_dense = re_layers - re_moe;
	fd = re_share(re_dense, dense, re_layers, layers);
	fm = re_share(re_moe, moe, re_layers, layers);
	lc.refwd = relayer;
	lc.act = act;
	per_of(lc.pair, 2, 2);
	per_of(lc.re_pair, 2 * fd, 2 * fm);
	if (remod) {
		module_replays(cfg, &lc, 0, 0, 0);
		re_mb = kind_calls(b, lc.re_pair, dense, moe, mb);
	}
	dc_axis_setup(x, p->topo.degree[DC_AXIS_TP], &p->group[DC_AXIS_TP].link, &p->group[DC_AXIS_TP].net);
	/* Megatron runs the backward's input-gradient collective behind the
	 * weight-gradient GEMM, and the input's re-gather behind the
	 * input-gradient GEMM (Megatron-LM 2021 section 3,
	 * --async-tensor-model-parallel-allreduce; Korthikanti et al. 2022
	 * section 4.2.2): DC_OVL_BEHIND_GEMM. The output-gradient AllGather
	 * (g-bar) and a recomputed forward's collectives are waited for. */
	if (!p->layout.sequence_parallel) {
		/* the AllReduces carry GEMM outputs and input gradients: the
		 * working precision under FP8 too. A MoE layer's MLP keeps its
		 * pair: Megatron-Core refuses MoE under tp without sequence
		 * parallelism in training (moe_layer.py:636-640 at d98e8a64),
		 * so no source says what it would send */
		push_layer(x, DC_COLL_ALL_REDUCE, DC_CW_TP_OUTPUT_FG, DC_CPHASE_FORWARD, DC_OVL_EXPOSED, per_mb, act,
			   lc.pair);
		push_layer(x, DC_COLL_ALL_REDUCE, DC_CW_TP_INPUT_GRAD_FG, DC_CPHASE_BACKWARD, DC_OVL_BEHIND_GEMM, per_mb,
			   act, lc.pair);
		if (relayer)
			push_layer(x, DC_COLL_ALL_REDUCE, DC_CW_TP_OUTPUT_RECOMPUTED, DC_CPHASE_BACKWARD,
				   DC_OVL_EXPOSED, re_mb, act, lc.re_pair);
		rank_tail(x, mb, fmt, refwd, kinds, dense, moe, &lc);
		return;
	}
	/* a dense layer: the attention's gather and reduce-scatter and the
	 * MLP's; a MoE layer: the attention's and its MLP's over the tp group
	 * (mg gathers, mr reduce-scatters: framework.h); computed for the
	 * kind the rank lacks too (kind_rows) */
	if (kinds > 1)
		dc_framework_moe_tp_calls(p, &mg, &mr);
	g_mb = dc_ck_mul(b, dc_ck_add(b, dc_ck_mul(b, 2, dense), dc_ck_mul(b, 1 + mg, moe)), mb);
	r_mb = dc_ck_mul(b, dc_ck_add(b, dc_ck_mul(b, 2, dense), dc_ck_mul(b, 1 + mr, moe)), mb);
	re_g_mb = dc_ck_mul(b, dc_ck_add(b, dc_ck_mul(b, 2, re_dense), dc_ck_mul(b, 1 + mg, re_moe)), mb);
	re_r_mb = dc_ck_mul(b, dc_ck_add(b, dc_ck_mul(b, 2, re_dense), dc_ck_mul(b, 1 + mr, re_moe)), mb);
	per_of(lc.g, 2, 1.0 + (double)mg);
	per_of(lc.r, 2, 1.0 + (double)mr);
	/* of them, FP8's: the attention's (aq), a dense MLP's and a shared
	 * expert's under Transformer Engine (sq: framework.h) */
	sq = kinds > 1 && dc_framework_moe_tp_gathers_quantized(p) ? 1.0 : 0.0;
	per_of(lc.qg, aq + 1.0, aq + sq);
	per_of(lc.ug, 1.0 - aq, 1.0 - aq + (double)mg - sq);
	per_of(lc.qr, aq + 1.0, aq + sq);
	per_of(lc.ur, 1.0 - aq, 1.0 - aq + (double)mr - sq);
	per_of(lc.re_g, lc.g[0] * fd, lc.g[1] * fm);
	per_of(lc.re_r, lc.r[0] * fd, lc.r[1] * fm);
	per_of(lc.re_qg, lc.qg[0] * fd, lc.qg[1] * fm);
	per_of(lc.re_ug, lc.ug[0] * fd, lc.ug[1] * fm);
	/* under FP8 the AllGathers that feed a linear layer's GEMM carry its
	 * quantized input (the column-parallel linear's) or output gradient
	 * (the row-parallel one's); the ReduceScatters carry GEMM outputs and
	 * input gradients, in the working precision */
	lc.sp = 1;
	lc.in_bytes = tp_gather_bytes(b, fmt, p->tokens_per_microbatch_cp, cfg->model.hidden_size,
				      cfg->precision.working_bytes, 0);
	lc.grad_bytes = tp_gather_bytes(b, fmt, p->tokens_per_microbatch_cp, cfg->model.hidden_size,
					cfg->precision.working_bytes, 1);
	q_mb = dc_ck_mul(b, quantized_gathers(x, layers, moe), mb);
	q_re_mb = dc_ck_mul(b, quantized_gathers(x, re_layers, re_moe), mb);
	if (remod) {
		module_replays(cfg, &lc, mg, mr, (uint64_t)sq);
		re_g_mb = kind_calls(b, lc.re_g, dense, moe, mb);
		re_r_mb = kind_calls(b, lc.re_r, dense, moe, mb);
		q_re_mb = kind_calls(b, lc.re_qg, dense, moe, mb);
	}
	push_gathers(x, DC_CW_TP_SEQ_IN_G, DC_CPHASE_FORWARD, DC_OVL_EXPOSED, g_mb, q_mb, lc.in_bytes, act, lc.qg,
		     lc.ug);
	push_layer(x, DC_COLL_REDUCE_SCATTER, DC_CW_TP_OUTPUT_GBAR, DC_CPHASE_FORWARD, DC_OVL_EXPOSED, r_mb, act, lc.r);
	push_gathers(x, DC_CW_TP_OUTPUT_GRAD_GBAR, DC_CPHASE_BACKWARD, DC_OVL_EXPOSED, r_mb, q_mb, lc.grad_bytes, act,
		     lc.qr, lc.ur);
	push_layer(x, DC_COLL_REDUCE_SCATTER, DC_CW_TP_INPUT_GRAD_G, DC_CPHASE_BACKWARD, DC_OVL_BEHIND_GEMM, g_mb, act,
		   lc.g);
	/* the gathered input is not kept (activations hold s/t): Megatron
	 * gathers it again for the weight gradients, quantized as the
	 * forward's (Transformer Engine keeps the FP8 shard). torchtitan
	 * keeps it (framework.h, dc_framework_tp_keeps_gathered_input), and
	 * full recompute's forward gathers it anew for the backward; under
	 * its per-op policy, whose save list holds no all-gather
	 * (torchtitan b5bcd76c distributed/activation_checkpoint.py:60-63),
	 * the recompute gathers it again: this row */
	lc.regather = !dc_framework_tp_keeps_gathered_input(cfg) || cfg->training.recompute == DC_RECOMPUTE_OP;
	if (lc.regather)
		push_gathers(x, DC_CW_TP_INPUT_REGATHER, DC_CPHASE_BACKWARD, DC_OVL_BEHIND_GEMM, g_mb, q_mb, lc.in_bytes,
			     act, lc.qg, lc.ug);
	if (relayer) {
		push_gathers(x, DC_CW_TP_SEQ_RECOMPUTED, DC_CPHASE_BACKWARD, DC_OVL_EXPOSED, re_g_mb, q_re_mb,
			     lc.in_bytes, act, lc.re_qg, lc.re_ug);
		push_layer(x, DC_COLL_REDUCE_SCATTER, DC_CW_TP_OUTPUT_RECOMPUTED, DC_CPHASE_BACKWARD, DC_OVL_EXPOSED,
			   re_r_mb, act, lc.re_r);
	}
	/* current scaling: before each FP8 shard is cast and gathered its
	 * amax, one FP32, is reduced (max) over the tp group, on the compute
	 * stream between the amax and the cast (framework.h,
	 * dc_framework_tp_amax_reduced): one for each quantized gather of the
	 * forward (the QKV and FC1 inputs) and of the backward (the output
	 * projection's and FC2's output gradients), and the recomputed
	 * forward's; Megatron's re-gather brings FP8 shards kept from the
	 * forward, cast already. torchtitan's per-op recompute casts them
	 * anew for its re-gather: its save list keeps the local amax
	 * (aten.max) but no all_reduce (torchtitan b5bcd76c
	 * distributed/activation_checkpoint.py:40-70), so each reduction of
	 * the forward's runs again */
	lc.amax = dc_framework_tp_amax_reduced(cfg);
	lc.amax_op = dc_framework_tp_keeps_gathered_input(cfg) && cfg->training.recompute == DC_RECOMPUTE_OP;
	if (lc.amax) {
		push_layer(x, DC_COLL_ALL_REDUCE, DC_CW_TP_AMAX, DC_CPHASE_FORWARD, DC_OVL_INLINE, q_mb, TP_AMAX_BYTES,
			   lc.qg);
		push_layer(x, DC_COLL_ALL_REDUCE, DC_CW_TP_AMAX, DC_CPHASE_BACKWARD, DC_OVL_INLINE, q_mb, TP_AMAX_BYTES,
			   lc.qg);
		if (relayer)
			push_layer(x, DC_COLL_ALL_REDUCE, DC_CW_TP_AMAX_RECOMPUTED, DC_CPHASE_BACKWARD, DC_OVL_INLINE,
				   q_re_mb, TP_AMAX_BYTES, lc.re_qg);
		else if (lc.amax_op)
			push_layer(x, DC_COLL_ALL_REDUCE, DC_CW_TP_AMAX_RECOMPUTED, DC_CPHASE_BACKWARD, DC_OVL_INLINE,
				   q_mb, TP_AMAX_BYTES, lc.qg);
	}
	rank_tail(x, mb, fmt, refwd, kinds, dense, moe, &lc);
}
