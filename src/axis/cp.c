/* cp.c - the context-parallel axis: attention's K/V traffic per layer per
 * microbatch on one rank, per parallel.cp_comm_type.
 * docs/formulas-systems.md, "Context parallelism".
 *
 * A K/V chunk is this rank's b s/cp tokens of K and V on its tp shard of
 * the key/value heads, in the working precision. p2p (TransformerEngine's
 * ring, AttnFuncWithCPAndKVP2P): forward passes the chunk on cp - 1 times;
 * backward passes K/V on again and the accumulated dK/dV after them,
 * 2(cp - 1) chunks in cp sends (the middle cp - 2 carry both). all_gather
 * (Llama 3 section 3.3.2): K/V all-gathered in forward and again in
 * backward, dK/dV reduce-scattered. a2a (Ulysses): q, k, v to head shards
 * and the output back, and their gradients in backward.
 *
 * Under training.framework torchtitan, p2p and all_gather are PyTorch's
 * ring attention (torch.distributed.tensor.experimental._attention,
 * torchtitan's context_parallel_rotate_method "alltoall" and "allgather"):
 * torchtitan (9dec370, torchtitan/models/llama/model.py:201-202) repeats
 * the key/value heads to the query heads before the SDPA call the ring
 * replaces, so every K/V exchanged holds a / t heads; and the backward
 * passes the dK/dV accumulators on around the ring in FP32, one send a
 * block, c in all (_templated_ring_attention_backward: grad_key and
 * grad_value zeros_like(dtype=float32), the dkv rotater ALL_TO_ALL
 * whatever the rotate method): cp - 1 of them behind the next block's
 * backward, the last waited for after the loop (next_buffer()).
 *
 * Recompute replays the forward's share in backward: TransformerEngine
 * runs every cp_comm_type's exchange inside core attention (its
 * AttnFuncWithCP* functions, the a2a's included), which selective
 * recompute checkpoints (Megatron-Core attention.py
 * _checkpointed_attention_forward) where its modules hold core_attn
 * (config.h dc_recompute_modules): every layer's; full recompute the
 * layers it reruns (dc_axis_recomputed_layers). */
#include "axis_int.h"

void dc_axis_cp_comm(struct dc_axis_ctx *x)
{
	const struct dc_plan *p = x->p;
	const struct dc_config *cfg = p->in;
	const struct dc_model *m = &cfg->model;
	struct dc_ck *b = x->b;
	/* each chunk's microbatches: m / 2 under DualPipe (activation.h) */
	uint64_t cp = p->layout.cp, tp = p->layout.tp, mb = dc_pipeline_chunk_microbatches(p);
	uint64_t per_mb, steps, re_mb = 0, d_qk, d_v, kv_heads, heads, tok, kv, dkv = 0;
	int torch_ring = cfg->training.framework == DC_FRAMEWORK_TORCHTITAN && cfg->parallel.cp_comm_type != DC_CP_A2A;
	if (cp < 2)
		return;
	per_mb = dc_ck_mul(b, x->best->layers, mb);
	steps = dc_ck_mul(b, per_mb, cp - 1);
	if (dc_recompute_modules(cfg) & DC_RCM(DC_RCM_CORE_ATTN))
		re_mb = per_mb;
	else if (cfg->training.recompute == DC_RECOMPUTE_FULL)
		re_mb = dc_ck_mul(b, dc_axis_recomputed_layers(x, 0), mb);
	d_qk = m->kv_lora_rank ? m->qk_nope_head_dim + m->qk_rope_head_dim : m->head_dim;
	d_v = m->kv_lora_rank ? m->v_head_dim : m->head_dim;
	kv_heads = (m->kv_lora_rank ? m->num_attention_heads : m->num_kv_heads) / tp;
	heads = m->num_attention_heads / tp;
	if (torch_ring && !m->kv_lora_rank)
		kv_heads = heads; /* repeat_kv before the SDPA call */
	tok = dc_ck_mul(b, p->tokens_per_microbatch_cp, cfg->precision.working_bytes);
	kv = dc_ck_mul(b, tok, dc_ck_mul(b, kv_heads, d_qk + d_v));
	if (torch_ring) /* the FP32 accumulators of this rank's K/V chunk */
		dkv = dc_ck_mul(b, dc_ck_mul(b, p->tokens_per_microbatch_cp, 4), dc_ck_mul(b, kv_heads, d_qk + d_v));

	dc_axis_setup(x, cp, &p->group[DC_AXIS_CP].link, &p->group[DC_AXIS_CP].net);
	switch (cfg->parallel.cp_comm_type) {
	case DC_CP_P2P:
		x->s->group_size = 2; /* a send goes to one neighbour on the ring */
		dc_axis_push(x, DC_COLL_SEND, DC_CW_CP_KV_NEXT, DC_CPHASE_FORWARD, DC_OVL_RING, steps, kv);
		if (torch_ring) {
			/* PyTorch's: K/V on cp - 1 times again, the FP32
			 * dK/dV after each of the cp blocks */
			dc_axis_push(x, DC_COLL_SEND, DC_CW_CP_KV_NEXT_AGAIN, DC_CPHASE_BACKWARD, DC_OVL_RING, steps, kv);
			dc_axis_push(x, DC_COLL_SEND, DC_CW_CP_DKV_RING, DC_CPHASE_BACKWARD, DC_OVL_RING,
				     dc_ck_mul(b, per_mb, cp - 1), dkv);
			dc_axis_push(x, DC_COLL_SEND, DC_CW_CP_DKV_RING_LAST, DC_CPHASE_BACKWARD, DC_OVL_EXPOSED,
				     per_mb, dkv);
		} else {
			/* backward's cp steps: K/V alone first, K/V with the
			 * dK/dV accumulated so far in the cp - 2 middle steps,
			 * dK/dV alone last */
			dc_axis_push(x, DC_COLL_SEND, DC_CW_CP_KV_NEXT_AGAIN, DC_CPHASE_BACKWARD, DC_OVL_RING, per_mb, kv);
			dc_axis_push(x, DC_COLL_SEND, DC_CW_CP_KV_AND_DKV, DC_CPHASE_BACKWARD, DC_OVL_RING,
				     dc_ck_mul(b, per_mb, cp - 2), dc_ck_mul(b, 2, kv));
			dc_axis_push(x, DC_COLL_SEND, DC_CW_CP_DKV_HOME, DC_CPHASE_BACKWARD, DC_OVL_RING, per_mb, kv);
		}
		if (re_mb)
			dc_axis_push(x, DC_COLL_SEND, DC_CW_CP_KV_NEXT_RECOMPUTED, DC_CPHASE_BACKWARD, DC_OVL_RING,
				     dc_ck_mul(b, re_mb, cp - 1), kv);
		x->s->group_size = cp;
		break;
	case DC_CP_ALL_GATHER: {
		uint64_t full = dc_ck_mul(b, kv, cp); /* the gathered s tokens' K and V */
		dc_axis_push(x, DC_COLL_ALL_GATHER, DC_CW_CP_KV_WHOLE, DC_CPHASE_FORWARD, DC_OVL_EXPOSED, per_mb, full);
		dc_axis_push(x, DC_COLL_ALL_GATHER, DC_CW_CP_KV_WHOLE_AGAIN, DC_CPHASE_BACKWARD, DC_OVL_EXPOSED, per_mb,
			     full);
		if (torch_ring) {
			x->s->group_size = 2;
			dc_axis_push(x, DC_COLL_SEND, DC_CW_CP_DKV_RING, DC_CPHASE_BACKWARD, DC_OVL_RING,
				     dc_ck_mul(b, per_mb, cp - 1), dkv);
			dc_axis_push(x, DC_COLL_SEND, DC_CW_CP_DKV_RING_LAST, DC_CPHASE_BACKWARD, DC_OVL_EXPOSED,
				     per_mb, dkv);
			x->s->group_size = cp;
		} else {
			dc_axis_push(x, DC_COLL_REDUCE_SCATTER, DC_CW_CP_DKV_SCATTER, DC_CPHASE_BACKWARD, DC_OVL_EXPOSED,
				     per_mb, full);
		}
		if (re_mb)
			dc_axis_push(x, DC_COLL_ALL_GATHER, DC_CW_CP_KV_RECOMPUTED, DC_CPHASE_BACKWARD, DC_OVL_EXPOSED,
				     re_mb, full);
		break;
	}
	case DC_CP_A2A: {
		uint64_t qkv = dc_ck_mul(b, tok, dc_ck_add(b, dc_ck_mul(b, heads, d_qk), dc_ck_mul(b, kv_heads, d_qk + d_v)));
		uint64_t out = dc_ck_mul(b, tok, dc_ck_mul(b, heads, d_v));
		dc_axis_push(x, DC_COLL_ALL_TO_ALL, DC_CW_CP_QKV_TO_HEADS, DC_CPHASE_FORWARD, DC_OVL_EXPOSED, per_mb, qkv);
		dc_axis_push(x, DC_COLL_ALL_TO_ALL, DC_CW_CP_OUT_TO_SEQ, DC_CPHASE_FORWARD, DC_OVL_EXPOSED, per_mb, out);
		dc_axis_push(x, DC_COLL_ALL_TO_ALL, DC_CW_CP_DOUT_TO_HEADS, DC_CPHASE_BACKWARD, DC_OVL_EXPOSED, per_mb,
			     out);
		dc_axis_push(x, DC_COLL_ALL_TO_ALL, DC_CW_CP_DQKV_TO_SEQ, DC_CPHASE_BACKWARD, DC_OVL_EXPOSED, per_mb,
			     qkv);
		if (re_mb) {
			dc_axis_push(x, DC_COLL_ALL_TO_ALL, DC_CW_CP_QKV_RECOMPUTED, DC_CPHASE_BACKWARD, DC_OVL_EXPOSED,
				     re_mb, qkv);
			dc_axis_push(x, DC_COLL_ALL_TO_ALL, DC_CW_CP_OUT_RECOMPUTED, DC_CPHASE_BACKWARD, DC_OVL_EXPOSED,
				     re_mb, out);
		}
		break;
	}
	}
}
