/* framework.c - training.framework's buckets and overlap switches per
 * plan; see framework.h and docs/step-model.md, "Framework rules". */
#include "distcalc/framework.h"

#include "distcalc/activation.h"
#include "distcalc/config.h"
#include "distcalc/memory.h"
#include "distcalc/plan.h"
#include "distcalc/util.h"

/* DeepSpeed's ZeRO-1/2 reduce_bucket_size and allgather_bucket_size
 * defaults, and the engine's allreduce bucket without ZeRO
 * (MEMORY_OPT_ALLREDUCE_SIZE), all 5e8 elements
 * (deepspeed/runtime/zero/config.py, deepspeed/runtime/engine.py) */
#define DEEPSPEED_BUCKET_ELEMENTS 500000000ull

uint64_t dc_framework_megatron_bucket_params(uint64_t dp_cp)
{
	uint64_t floor_params = 40000000ull, per_rank = 1000000ull, scaled;
	if (dc_mul_u64(per_rank, dp_cp, &scaled))
		return UINT64_MAX;
	return scaled > floor_params ? scaled : floor_params;
}

/* elements x bytes, saturating (a bucket past 2^64 bytes is one bucket of
 * everything), at least 1 */
static uint64_t bucket_of(uint64_t elements, uint64_t bytes)
{
	uint64_t out;
	if (dc_mul_u64(elements, bytes ? bytes : 1, &out))
		return UINT64_MAX;
	return out ? out : 1;
}

/* torchtitan reduces each transformer block's gradients as one: its
 * replicate wrapped each block as its own module (commit e1847f439,
 * "per-module wrapping"), and since 00b7f5693 fully_shard does per block
 * on a mesh of shard degree 1; the largest layer of the stage analysed */
static uint64_t block_params(const struct dc_plan *p)
{
	const struct dc_stage_params *sp = dc_plan_stage_params(p, p->most_stage);
	return sp && sp->layer_params ? sp->layer_params : 1;
}

uint64_t dc_framework_grad_bucket_bytes(const struct dc_plan *p)
{
	const struct dc_config *c = p->in;
	uint64_t g = c->precision.grad_bytes;
	if (c->parallel.bucket_given)
		return c->parallel.bucket_bytes;
	switch (c->training.framework) {
	case DC_FRAMEWORK_MEGATRON:
		return bucket_of(dc_framework_megatron_bucket_params(p->dp_cp), g);
	case DC_FRAMEWORK_DEEPSPEED:
		return bucket_of(DEEPSPEED_BUCKET_ELEMENTS, g);
	case DC_FRAMEWORK_TORCHTITAN:
		return bucket_of(block_params(p), g);
	case DC_FRAMEWORK_CUSTOM:
		break;
	}
	return c->parallel.bucket_bytes;
}

uint64_t dc_framework_param_bucket_bytes(const struct dc_plan *p)
{
	const struct dc_config *c = p->in;
	uint64_t w = c->precision.param_bytes;
	if (c->parallel.bucket_given)
		return c->parallel.bucket_bytes;
	switch (c->training.framework) {
	case DC_FRAMEWORK_MEGATRON:
		return bucket_of(dc_framework_megatron_bucket_params(p->dp_cp), w);
	case DC_FRAMEWORK_DEEPSPEED:
		return bucket_of(DEEPSPEED_BUCKET_ELEMENTS, w);
	case DC_FRAMEWORK_TORCHTITAN:
		return bucket_of(block_params(p), w);
	case DC_FRAMEWORK_CUSTOM:
		break;
	}
	return c->parallel.bucket_bytes;
}

int dc_framework_overlap_dp(const struct dc_plan *p)
{
	const struct dc_config *c = p->in;
	if (c->overlap.dp_given || c->training.framework != DC_FRAMEWORK_DEEPSPEED)
		return c->overlap.dp;
	return p->layout.sharding == DC_SHARD_FSDP;
}

/* DeepSpeed's average_tensor (stage_1_and_2.py:1443-1460 at edaa7221)
 * puts every rank's slices of the reduce bucket under one ("allreduce",
 * group) key when use_multi_rank_bucket_allreduce is set (its default,
 * zero/config.py:119), and allreduce_and_scatter (:1314-1348) all-reduces
 * the flattened bucket (allreduce_bucket, :1858), each rank copying out
 * its own slice (:1305-1312) */
int dc_framework_zero_grad_allreduce(const struct dc_plan *p)
{
	return p->in->training.framework == DC_FRAMEWORK_DEEPSPEED;
}

int dc_framework_param_gather(const struct dc_plan *p)
{
	const struct dc_config *c = p->in;
	if (c->training.framework != DC_FRAMEWORK_MEGATRON || p->layout.sharding != DC_SHARD_ZERO1)
		return 0;
	return c->overlap.param_gather_given ? c->overlap.param_gather : 1;
}

int dc_framework_reshard_after_forward(const struct dc_plan *p)
{
	const struct dc_config *c = p->in;
	if (c->parallel.reshard_given || c->training.framework != DC_FRAMEWORK_TORCHTITAN)
		return c->parallel.reshard_after_forward;
	return p->layout.pp < 2;
}

uint64_t dc_framework_fsdp_embedding_unit(const struct dc_plan *p, uint64_t stage, uint64_t other)
{
	const struct dc_config *c = p->in;
	uint64_t e = p->shard.embedding + p->shard.position;
	/* DualPipe's last rank holds stage 0 too (activation.h) */
	int first = stage == 0 || (dc_pipeline_schedule(p) == DC_PIPE_DUALPIPE && stage + 1 == p->layout.pp);
	if (c->training.framework != DC_FRAMEWORK_TORCHTITAN || c->parallel.fsdp_unit == DC_FSDP_UNIT_MODEL ||
	    c->model.tie_word_embeddings || !first)
		return 0;
	return e < other ? e : other;
}

enum dc_tp_overlap dc_framework_tp_overlap(const struct dc_plan *p)
{
	const struct dc_config *c = p->in;
	switch (c->training.framework) {
	case DC_FRAMEWORK_MEGATRON:
		return c->overlap.tp && p->layout.sequence_parallel ? DC_TP_TILED : DC_TP_ASYNC_BWD;
	case DC_FRAMEWORK_TORCHTITAN:
		return c->overlap.tp && p->layout.sequence_parallel ? DC_TP_TILED : DC_TP_WAIT_ALL;
	case DC_FRAMEWORK_DEEPSPEED:
	case DC_FRAMEWORK_CUSTOM:
		break;
	}
	return c->overlap.tp ? DC_TP_ALL : DC_TP_ASYNC_BWD;
}

enum dc_tp_gather_format dc_framework_tp_gather_format(const struct dc_config *c)
{
	if (c->precision.compute != DC_COMPUTE_FP8)
		return DC_TP_GATHER_WORKING;
	/* torchtitan: torchao's Float8ColwiseParallel, Float8RowwiseParallel
	 * and PrepareFloat8ModuleInput gather FP8 for tensorwise (dynamic
	 * per-tensor) scaling only; rowwise and MXFP8 run plain DTensor TP,
	 * gathering BF16, and the float8 styles refuse delayed scaling */
	if (c->training.framework == DC_FRAMEWORK_TORCHTITAN)
		return c->precision.fp8_recipe == DC_FP8_CURRENT ? DC_TP_GATHER_FP8 : DC_TP_GATHER_WORKING;
	/* megatron, deepspeed, custom: delayed, current and mxfp8 are
	 * Transformer Engine's recipes, whose linears quantize the local shard
	 * and gather it; rowwise is torchao's (BF16 gathers) */
	switch (c->precision.fp8_recipe) {
	case DC_FP8_DELAYED:
	case DC_FP8_CURRENT:
		return DC_TP_GATHER_FP8;
	case DC_FP8_MXFP8:
		return DC_TP_GATHER_MXFP8;
	case DC_FP8_ROWWISE:
		break;
	}
	return DC_TP_GATHER_WORKING;
}

int dc_framework_tp_amax_reduced(const struct dc_config *c)
{
	/* Transformer Engine d0067d0d: module/linear.py:350-355 (forward,
	 * column-parallel input) and 809-822 (backward, row-parallel output
	 * gradient), module/layernorm_linear.py:233-237,
	 * module/layernorm_mlp.py:407-410 and 1155-1158 set the tp group on
	 * the quantizer; module/_common.py:20-32 sets it only on a quantizer
	 * with with_amax_reduction, Float8CurrentScalingQuantizer
	 * (tensor/float8_tensor.py:197-253), whose quantize reduces the amax
	 * (csrc/quantizer.cpp:1014-1021). torchao 36027d82: the float8 TP
	 * styles cast the sequence-sharded DTensor input
	 * (float8_tensor_parallel.py:60, 124, 232) and, in backward, the
	 * sequence-sharded output gradient (:83, 146;
	 * float8_scaling_utils.py:109-112); its max is a partial max that
	 * DTensor reduces with one all-reduce at the first non-linear op
	 * (fsdp_utils.py:70-74 says so of the same pattern). */
	return dc_framework_tp_gather_format(c) == DC_TP_GATHER_FP8 && c->precision.fp8_recipe == DC_FP8_CURRENT;
}

int dc_framework_tp_keeps_gathered_input(const struct dc_config *c)
{
	/* torchtitan 9dec370 (end 2024): PrepareModuleInput to Replicate
	 * before attention and the FFN, then ColwiseParallel nn.Linears
	 * (parallelisms/parallelize_llama.py:176-192): autograd saves the
	 * replicated DTensor. b5bcd76c: the block boundary gathers the
	 * sequence shard (models/common/decoder_sharding.py:236, 330, in_dst_shardings
	 * Replicate; protocols/module.py:581, 621) and the stock Linear
	 * (models/common/linear.py:26-40, nn.Linear; the default
	 * tp_gemm_backend, models/common/config_utils.py:199, 287) multiplies
	 * the gathered tensor, which autograd's mm saves for the weight
	 * gradient (pytorch tools/autograd/derivatives.yaml, mm: mat2's
	 * gradient reads self). Its opt-in dist_gemm backend saves a shard
	 * and gathers it again (distributed/linear.py:67-69, 133-139), as
	 * Megatron does: not modelled. */
	return c->training.framework == DC_FRAMEWORK_TORCHTITAN;
}

int dc_framework_loss_in_place(const struct dc_config *c)
{
	/* Megatron-Core's vocabulary-parallel cross entropy, fused or not,
	 * makes its gradient in place of the FP32 softmax it saved
	 * (tensor_parallel/cross_entropy.py at d98e8a64: grad_input = softmax
	 * :88, grad_input.mul_(grad_output) :114, :204; the fused path,
	 * fusions/fused_cross_entropy.py, calls the same operands); the
	 * cast of the FP32 logits (:25) hands the head its 16-bit copy */
	return c->training.framework == DC_FRAMEWORK_MEGATRON;
}

int dc_framework_fp8_params_spare_ends(const struct dc_config *c)
{
	/* Megatron-Core builds the model under Transformer Engine's
	 * fp8_model_init when fp8_param_gather (training.py get_model ->
	 * model_provider at d98e8a64; transformer_engine fp8_model_init
	 * makes only TE modules' weights Float8Tensors): the decoder's TE
	 * linears and grouped linears. The embedding
	 * (VocabParallelEmbedding) and the output layer
	 * (tensor_parallel.ColumnParallelLinear, gpt_model.py) are not TE
	 * modules and stay BF16; so do the norms (2 h a layer, not counted
	 * apart here) */
	return c->training.framework == DC_FRAMEWORK_MEGATRON && c->precision.param_bytes == 1;
}

int dc_framework_loss_parallel(const struct dc_plan *p)
{
	/* torchtitan computes the loss on the head's vocabulary-sharded
	 * logits under tensor parallelism: torch's loss_parallel() at
	 * 9dec370 (disable_loss_parallel, default false), and since
	 * b3b60dabf (June 2026) always, through its own
	 * _LossParallelCrossEntropy (components/loss.py:65-216 at
	 * b5bcd76c), the same decomposition as torch's
	 * _nll_loss_and_log_softmax_backward (torch/distributed/tensor/
	 * parallel/loss.py at 02eef6b8: grad_input = torch.zeros_like(x)
	 * :374, then (grad_input + torch.exp(x)) * grad_output :421) */
	return p->in->training.framework == DC_FRAMEWORK_TORCHTITAN && p->layout.tp > 1;
}

void dc_framework_moe_tp_calls(const struct dc_plan *p, uint64_t *gathers, uint64_t *scatters)
{
	int shared = p->in->model.shared_expert_ffn_hidden_size != 0;
	if (p->in->training.framework == DC_FRAMEWORK_TORCHTITAN && p->layout.ep < 2) {
		/* torchtitan b5bcd76c models/common/moe_sharding.py, EP off:
		 * the MoE block's input Shard(1) to Replicate (:286-288, an
		 * all-gather), the routed experts' Partial output to Shard(1)
		 * (:230-239, a reduce-scatter), the shared experts' w2 Partial
		 * to Shard(1) too (:185-189, 196) */
		*gathers = 1;
		*scatters = shared ? 2 : 1;
		return;
	}
	/* Megatron-LM d98e8a64: the token dispatcher's tp group is the
	 * expert tp group (transformer/moe/token_dispatcher.py:85-90,
	 * gathers :741-750, reduce-scatters :824-831); the attention's
	 * (moe_layer.py:181) only the shared expert uses: an ordinary MLP
	 * (moe_layer.py:507-530, shared_experts.py:200-207) gathering its
	 * input and reduce-scattering its output (with
	 * --moe-shared-expert-overlap the same pair explicitly,
	 * shared_experts.py:246-253, 347-353). torchtitan with EP on: the
	 * block's input stays Shard(1) (moe_sharding.py:286-288), the routed
	 * experts' output is Shard(1)
	 * (:230-239), the shared experts gather to Replicate and
	 * reduce-scatter Partial to Shard(1) (:177-189) */
	*gathers = *scatters = shared ? 1 : 0;
}

/* Under Megatron-LM (and custom and DeepSpeed, which run
 * Transformer Engine's recipes as it does) the shared expert is an
 * ordinary MLP whose Transformer Engine linears gather their cast input
 * (moe_layer.py:507-530, shared_experts.py:200-207 at d98e8a64: MLP.forward
 * unless --moe-shared-expert-overlap, off by default, transformer_config.py
 * :717); torchtitan's gathers the block's BF16 input at its FeedForward
 * boundary, before any linear casts it (models/common/moe_sharding.py:
 * 172-189 at b5bcd76c), as does its EP-off MoE block */
int dc_framework_moe_tp_gathers_quantized(const struct dc_plan *p)
{
	return p->in->model.shared_expert_ffn_hidden_size != 0 && p->in->training.framework != DC_FRAMEWORK_TORCHTITAN;
}

int dc_framework_te_fp8(const struct dc_config *c)
{
	if (c->precision.compute != DC_COMPUTE_FP8)
		return 0;
	switch (c->precision.fp8_recipe) {
	case DC_FP8_DELAYED:
	case DC_FP8_CURRENT:
	case DC_FP8_MXFP8:
		return 1;
	case DC_FP8_ROWWISE:
		break;
	}
	return 0;
}

enum dc_fp8_saved dc_framework_fp8_saved_inputs(const struct dc_config *c)
{
	/* Transformer Engine d0067d0d, module/linear.py:615-616 ("Discard
	 * row-wise data since it is not needed in backward pass"): the
	 * quantized input's column-wise data is what the weight gradient
	 * reads; layernorm_linear.py and layernorm_mlp.py save their
	 * quantized norm output the same way. Megatron-Core's layers only:
	 * how another loop builds and calls TE's modules (fused or separate
	 * projections, is_first_microbatch) decides what it holds, and
	 * torchao (7ca1bfbe, float8/float8_linear.py,
	 * matmul_with_hp_or_float8_args.forward) saves input_hp, the
	 * high-precision input (docs/memory-conventions.md, "FP8") */
	if (!dc_framework_te_fp8(c) || c->training.framework != DC_FRAMEWORK_MEGATRON)
		return DC_FP8_SAVED_NONE;
	return c->precision.fp8_recipe == DC_FP8_MXFP8 ? DC_FP8_SAVED_MXFP8 : DC_FP8_SAVED_FP8;
}

int dc_framework_fp8_saves_original_input(const struct dc_config *c)
{
	/* Megatron-LM d98e8a64: under a recipe other than delayed (TE 2.6 or
	 * later) the attention's linear_proj (transformer/attention.py:428-444;
	 * MLA's, multi_latent_attention.py:235-251) and a shared expert's
	 * linear_fc1 (transformer/moe/shared_experts.py:147-161, unless the
	 * shared experts are recomputed) save their BF16 input, which the
	 * core attention and the router already keep, not its FP8 copy */
	return dc_framework_fp8_saved_inputs(c) != DC_FP8_SAVED_NONE && c->precision.fp8_recipe != DC_FP8_DELAYED;
}

int dc_framework_fp8_weight_copies(const struct dc_plan *p, uint64_t params, uint64_t experts, uint64_t *bytes,
				   uint64_t *copied)
{
	const struct dc_config *c = p->in;
	uint64_t n = params;
	*bytes = *copied = 0;
	/* Megatron-LM d98e8a64: megatron/core/extensions/transformer_engine.py
	 * :1338-1345 (and 1587-1602, 2721-2728 for the layernorm-fused and
	 * grouped linears) pass is_first_microbatch, which
	 * disable_parameter_transpose_cache (default false,
	 * transformer_config.py:1175) would turn off; Transformer Engine
	 * d0067d0d caches the quantized weight in _fp8_workspaces
	 * (module/base.py:915). FP8 primary weights (precision.param_bytes 1,
	 * --fp8-param-gather) are the FP8 tensors themselves: no copy of
	 * their data, but on a GPU whose FP8 GEMMs run TN alone (Hopper) a
	 * transpose each, which is never freed: the parameter's quantizer
	 * asks for the column-wise usage in training (module/base.py:1848,
	 * quantize_weight :836-842), update_usage builds _transpose
	 * (tensor/storage/float8_tensor_storage.py:267-277, 301-310), the
	 * optimizer step only marks it invalid (float8_tensor.py:581-592), and
	 * Megatron-LM rebuilds it in place after each parameter all-gather
	 * (param_and_grad_buffer.py:338-343, post_all_gather_processing;
	 * fp8_utils.py:446-454 at d98e8a64; its Megatron-FSDP README counts
	 * this cache as "number of parameter x 1 Byte", fsdp/src/README.md:
	 * 136). On Blackwell one _data serves both GEMMs (:292-297): none.
	 * MXFP8 primary weights hold both directions in the parameter, of
	 * which param_bytes 1 counts the row-wise data alone: the column-wise
	 * data, 1 B a weight, and a uint8 scale per 32 weights each way
	 * (tensor/mxfp8_tensor.py:83-94, constants.py:175): n + 2 ceil(n /
	 * 32) (an FP8 trial's 70B on B200: 2.1 GiB a rank missing before).
	 * Megatron-LM d98e8a64 gathers MXFP8 parameters in BF16 through the
	 * gradient buffer (--reuse-grad-buf-for-mxfp8-param-ag,
	 * param_and_grad_buffer.py:1159-1179, 302-330) and re-quantizes
	 * them, both directions, after: the same bytes held; the gather's
	 * own bytes are not this function's (comm prices it at param_bytes,
	 * 1 B, where that path moves 2: not yet mended).
	 * Under FSDP2 TE frees the column-wise cache after its use
	 * (clear_columnwise_cache, module/linear.py:1107-1108): none */
	if (!dc_framework_te_fp8(c) || c->training.framework != DC_FRAMEWORK_MEGATRON)
		return 0;
	if (c->precision.param_bytes <= 1) {
		enum dc_gpu g = c->cluster.gpu < DC_GPU_COUNT ? c->cluster.gpu : DC_GPU_NONE;
		struct dc_ck ck = {0};
		if (p->layout.sharding == DC_SHARD_FSDP ||
		    (c->precision.fp8_recipe != DC_FP8_MXFP8 && dc_gpu_arch(g) == DC_GPU_ARCH_BLACKWELL))
			return 0;
		*bytes = c->precision.fp8_recipe == DC_FP8_MXFP8 ? dc_ck_add(&ck, n, dc_ck_mul(&ck, 2, dc_ceil_div(n, 32)))
								  : n;
		*copied = n;
		return ck.overflow ? -1 : 0;
	}
	/* under FSDP2 (Megatron's --use-torch-fsdp2) the linears cache
	 * nothing (linear.py:1958, layernorm_linear.py:1763: self.is_fsdp2),
	 * but the grouped expert linears do (grouped_linear.py:2259), their
	 * gathered weights */
	if (p->layout.sharding == DC_SHARD_FSDP)
		n = experts;
	if (dc_framework_fp8_weight_bytes(c, n, bytes) != 0)
		return -1;
	*copied = *bytes ? n : 0;
	return 0;
}

int dc_framework_fp8_weight_bytes(const struct dc_config *c, uint64_t n, uint64_t *bytes)
{
	struct dc_ck ck = {0};
	enum dc_gpu g = c->cluster.gpu < DC_GPU_COUNT ? c->cluster.gpu : DC_GPU_NONE;
	if (c->precision.fp8_recipe == DC_FP8_MXFP8) {
		/* tensor/mxfp8_tensor.py:83-94: _rowwise_data and
		 * _columnwise_data, one byte an element each, and a uint8
		 * scale per 32 elements each way (constants.py:175) */
		*bytes = dc_ck_mul(&ck, 2, dc_ck_add(&ck, n, dc_ceil_div(n, 32)));
	} else {
		/* tensor/float8_tensor.py:423-427: _data, and a _transpose
		 * where the GPU cannot run FP8 GEMMs but TN (Hopper); one
		 * _data serves both on Blackwell */
		*bytes = dc_ck_mul(&ck, dc_gpu_arch(g) == DC_GPU_ARCH_BLACKWELL ? 1 : 2, n);
	}
	return ck.overflow ? -1 : 0;
}
