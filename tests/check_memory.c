/* check_memory.c - the per-rank ledger against the ZeRO paper (Table 1),
 * Korthikanti et al. 2022 (Table 2 / Eq. 2), the published Llama-2-7B
 * parameter count and hand-computed ledgers. Every expected number is
 * computed by hand in the comment above it, never read back from the code. */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "distcalc/axis.h"
#include "distcalc/config.h"
#include "distcalc/diag.h"
#include "distcalc/activation.h"
#include "distcalc/memory.h"

#include "fixtures.h"
#include "fixtures_plan.h"

/* ZeRO Table 1 setting: psi parameters given explicitly, fp16 params 2 B,
 * fp16 grads 2 B, K = 12 (fp32 master 4 B + Adam moments 8 B), dp ranks. */
static void zero_config(struct dc_config *c, uint64_t psi, uint64_t dp, enum dc_sharding sh)
{
	static const char *const names[] = {"none", "zero1", "zero2", "fsdp"};
	fixture_json(c,
		     "{\"model\": {\"params\": %llu, \"num_layers\": 32, \"hidden_size\": 4096,"
		     " \"num_attention_heads\": 32, \"vocab_size\": 32000, \"seq_length\": 1024},"
		     " \"cluster\": {\"num_nodes\": %llu, \"gpus_per_node\": 1, \"gpu_memory\": \"32 GiB\","
		     " \"intra_node\": {\"bandwidth\": \"300 GB/s\"}, \"inter_node\": {\"bandwidth\": \"50 GB/s\"}},"
		     " \"parallel\": {\"sharding\": \"%s\"}}",
		     (unsigned long long)psi, (unsigned long long)dp, names[sh]);
}

/* The default config's setting: configs/systems.json, the Llama-2-7B shape
 * (Touvron et al. 2023) on 2 nodes x 4 GPUs of 80 GiB, tp 4, dp 2, micro 1,
 * accum 8, 16 B/param, context 512 MiB, NCCL 256 MiB, workspace 256 MiB,
 * reserve 5% (the loader's defaults). */
static void llama_config(struct dc_config *c)
{
	fixture_systems(c);
}

/* what one layer of the plan keeps a microbatch: dense (0) or MoE (1) */
static uint64_t pl_kept(const struct dc_plan *p, int moe)
{
	ck_assert_int_eq(p->act.kept_bad[moe], 0);
	return p->act.kept[moe];
}

static struct dc_mem_ledger stage_ledger(const struct dc_config *c, uint64_t stage)
{
	struct dc_mem_ledger l;
	const char *err = NULL;
	ck_assert_int_eq(dc_memory_stage(plan_of(c), stage, &l, &err), 0);
	ck_assert_ptr_null(err);
	return l;
}

/* Megatron-Core's Transformer Engine FP8 weight copies (docs/memory-
 * conventions.md, "FP8"): Llama-3-70B on 8 DGX H100, tp 8 + SP, pp 4,
 * dp 2, zero1. Each stage holds 20 layers; a rank's FP8-cast linear
 * weights are 20 x (8192 x (8192 + 2 x 1024) + 8192^2 + 3 x 8192 x
 * 28672) / 8 = 20 x 106,954,752 = 2,139,095,040 on every stage (the
 * embedding, the head and the norms stay BF16 and do not count).
 * delayed on Hopper: the FP8 data and its transpose, 2 B each weight,
 * 4,278,190,080 B; on Blackwell (dgx-b200) one FP8 tensor,
 * 2,139,095,040 B; mxfp8: both directions with a scale per 32,
 * 2 x (2,139,095,040 + 66,846,720) = 4,411,883,520 B. None under FSDP2,
 * deepspeed or torchtitan. The copies stay in every phase: the optimizer
 * step's subtotal is the same as deepspeed's (which saves the same FP8
 * activations, keeps no copies) plus them. */
static void llama70b_fp8(struct dc_config *c, const char *system, const char *framework, const char *recipe,
			 const char *sharding)
{
	fixture_json(c,
		     "{\"model\": {\"hf_config\": \"llama-3-70b\", \"seq_length\": 8192},"
		     " \"cluster\": {\"system\": \"%s\", \"num_nodes\": 8},"
		     " \"parallel\": {\"tp\": 8, \"pp\": 4, \"dp\": 2, \"sharding\": \"%s\","
		     " \"sequence_parallel\": true},"
		     " \"training\": {\"micro_batch_size\": 1, \"grad_accum_steps\": 16,"
		     " \"recompute\": \"selective\", \"framework\": \"%s\"},"
		     " \"precision\": {\"compute\": \"fp8\", \"fp8_recipe\": \"%s\"}}",
		     system, sharding, framework, recipe);
}

/* DeepSpeed's ZeRO-1/2 set up the second gradient bucket only with
 * overlap_comm (overlap.dp): without it one bucket of reduce_bucket_size
 * 5e8 elements x 2 B, 1,000,000,000 B; with it two (a DeepSpeed trial) */
START_TEST(test_deepspeed_one_bucket_without_overlap)
{
	struct dc_config c;
	llama70b_fp8(&c, "dgx-h100", "deepspeed", "delayed", "zero1");
	/* overlap_comm given true: two */
	c.overlap.dp = 1;
	c.overlap.dp_given = 1;
	ck_assert_uint_eq(stage_ledger(&c, 1).ddp_buckets_bytes, 2000000000ull);
	c.overlap.dp = 0;
	ck_assert_uint_eq(stage_ledger(&c, 1).ddp_buckets_bytes, 1000000000ull);
	/* left out, DeepSpeed's default at ZeRO-1/2 is off (a review: the
	 * default still got two) */
	c.overlap.dp_given = 0;
	ck_assert_uint_eq(stage_ledger(&c, 1).ddp_buckets_bytes, 1000000000ull);
	/* without ZeRO the engine all-reduces one flat bucket at a time,
	 * overlap or not */
	c.parallel.sharding = DC_SHARD_NONE;
	c.overlap.dp = 1;
	c.overlap.dp_given = 1;
	ck_assert_uint_eq(stage_ledger(&c, 1).ddp_buckets_bytes, 1000000000ull);
	/* torch DDP keeps two whatever the overlap: 2 x 25 MiB */
	llama70b_fp8(&c, "dgx-h100", "custom", "delayed", "zero1");
	c.overlap.dp = 0;
	ck_assert_uint_eq(stage_ledger(&c, 1).ddp_buckets_bytes, 52428800ull);
}
END_TEST

START_TEST(test_fp8_weight_copies)
{
	struct dc_config c;
	struct dc_mem_ledger l, ds;
	llama70b_fp8(&c, "dgx-h100", "megatron", "delayed", "zero1");
	for (uint64_t s = 0; s < 4; s++) {
		l = stage_ledger(&c, s);
		ck_assert_uint_eq(l.fp8_weight_params, 2139095040ull);
		ck_assert_uint_eq(l.fp8_weight_copies_bytes, 4278190080ull);
	}
	l = stage_ledger(&c, 1);
	llama70b_fp8(&c, "dgx-h100", "deepspeed", "delayed", "zero1");
	ds = stage_ledger(&c, 1);
	ck_assert_uint_eq(ds.fp8_weight_copies_bytes, 0);
	ck_assert_uint_eq(ds.fp8_weight_params, 2139095040ull); /* what TE's copies would hold: said, not counted */
	/* Megatron-Core reduces its buckets in place, in its contiguous
	 * gradient buffer: no bucket memory; DeepSpeed's one (overlap_comm
	 * off, its ZeRO-1 default) of reduce_bucket_size 5e8 elements at 2 B
	 * (the course preset's gradients), 1,000,000,000 B, under the stage's
	 * gradients: 20 x (106,954,752 + 2 x 8192) parameters at 2 B,
	 * 4,278,845,440 B */
	ck_assert_uint_eq(l.ddp_buckets_bytes, 0);
	ck_assert_uint_eq(ds.ddp_buckets_bytes, 1000000000ull);
	ck_assert_uint_eq(l.phase_subtotal_bytes[DC_MEM_OPTIMIZER],
			  ds.phase_subtotal_bytes[DC_MEM_OPTIMIZER] + 4278190080ull);
	/* the FP8 head (mxfp8 only, Megatron's rule) on the last stage: V h
	 * / tp = 128,256 x 8192 / 8 = 131,334,144 more weights,
	 * 2 x (2,270,429,184 + 70,950,912) = 4,682,760,192 B */
	llama70b_fp8(&c, "dgx-b200", "megatron", "mxfp8", "zero1");
	c.precision.fp8_lm_head = 1;
	l = stage_ledger(&c, 3);
	ck_assert_uint_eq(l.fp8_weight_params, 2270429184ull);
	ck_assert_uint_eq(l.fp8_weight_copies_bytes, 4682760192ull);
	ck_assert_uint_eq(stage_ledger(&c, 2).fp8_weight_params, 2139095040ull);
	/* FP8 primary weights (--fp8-param-gather): no copy of their data,
	 * but on Hopper the transpose Transformer Engine builds of each for
	 * the TN-only FP8 GEMMs and never frees, 1 B a weight:
	 * 2,139,095,040 B; on Blackwell one buffer serves both, none; under
	 * mxfp8 the parameter holds both directions, of which param_bytes 1
	 * counts the row-wise data: the column-wise data and both scales
	 * besides, 2,139,095,040 + 2 x 66,846,720 = 2,272,788,480 B */
	llama70b_fp8(&c, "dgx-h100", "megatron", "delayed", "zero1");
	c.precision.param_bytes = 1;
	ck_assert_uint_eq(stage_ledger(&c, 1).fp8_weight_copies_bytes, 2139095040ull);
	ck_assert_uint_eq(stage_ledger(&c, 1).fp8_weight_params, 2139095040ull);
	/* --fp8-param-gather makes TE's modules FP8 only (fp8_model_init):
	 * Megatron's embedding and output layer stay BF16, a byte more a
	 * weight than param_bytes 1 counts. Stage 1 holds layers alone: as
	 * under deepspeed; stage 0 the embedding's V h / tp = 128,256 x 8192 / 8
	 * = 131,334,144 weights more; stage 3 the head's as many and the final
	 * norm's 8192: 131,342,336 */
	{
		struct dc_mem_ledger mg[4], dsl[4];
		for (uint64_t s = 0; s < 4; s++)
			mg[s] = stage_ledger(&c, s);
		llama70b_fp8(&c, "dgx-h100", "deepspeed", "delayed", "zero1");
		c.precision.param_bytes = 1;
		for (uint64_t s = 0; s < 4; s++)
			dsl[s] = stage_ledger(&c, s);
		ck_assert_uint_eq(mg[1].params_bytes, dsl[1].params_bytes);
		ck_assert_uint_eq(mg[2].params_bytes, dsl[2].params_bytes);
		ck_assert_uint_eq(mg[0].params_bytes - dsl[0].params_bytes, 131334144ull);
		ck_assert_uint_eq(mg[3].params_bytes - dsl[3].params_bytes, 131342336ull);
	}
	llama70b_fp8(&c, "dgx-b200", "megatron", "current", "zero1");
	c.precision.param_bytes = 1;
	ck_assert_uint_eq(stage_ledger(&c, 1).fp8_weight_copies_bytes, 0);
	/* mxfp8 primary weights (an FP8 trial: counted at 1 B a weight,
	 * 2.1 GiB a rank short): 2,272,788,480 B besides the row-wise data */
	llama70b_fp8(&c, "dgx-b200", "megatron", "mxfp8", "zero1");
	c.precision.param_bytes = 1;
	ck_assert_uint_eq(stage_ledger(&c, 1).fp8_weight_copies_bytes, 2272788480ull);
	llama70b_fp8(&c, "dgx-b200", "megatron", "current", "zero1");
	ck_assert_uint_eq(stage_ledger(&c, 1).fp8_weight_copies_bytes, 2139095040ull);
	llama70b_fp8(&c, "dgx-b200", "megatron", "mxfp8", "zero1");
	ck_assert_uint_eq(stage_ledger(&c, 1).fp8_weight_copies_bytes, 4411883520ull);
	/* Megatron's FSDP2 (--use-torch-fsdp2) runs without a pipeline
	 * (its arguments.py:1034-1035): the same model at tp 8, dp 8 */
	fixture_json(&c, "{\"model\": {\"hf_config\": \"llama-3-70b\", \"seq_length\": 8192},"
			 " \"cluster\": {\"system\": \"dgx-h100\", \"num_nodes\": 8},"
			 " \"parallel\": {\"tp\": 8, \"dp\": 8, \"sharding\": \"fsdp\", \"sequence_parallel\": true},"
			 " \"training\": {\"micro_batch_size\": 1, \"grad_accum_steps\": 16, \"recompute\": \"selective\","
			 " \"framework\": \"megatron\"},"
			 " \"precision\": {\"compute\": \"fp8\", \"fp8_recipe\": \"delayed\"}}");
	ck_assert_uint_eq(stage_ledger(&c, 0).fp8_weight_copies_bytes, 0);
	llama70b_fp8(&c, "dgx-h100", "torchtitan", "current", "fsdp");
	ck_assert_uint_eq(stage_ledger(&c, 1).fp8_weight_copies_bytes, 0);
	ck_assert_uint_eq(stage_ledger(&c, 1).fp8_weight_params, 0);
	/* under FSDP the grouped expert linears still cache: Mixtral-8x7B at
	 * tp 2 (etp 2) on one DGX H100, 32 layers of 8 experts of 3 x 4096 x
	 * 14336 / 2 = 88,080,384: 22,548,578,304 weights, 45,097,156,608 B */
	fixture_json(&c, "{\"model\": {\"hf_config\": \"mixtral-8x7b-v0.1\", \"seq_length\": 4096},"
			 " \"cluster\": {\"system\": \"dgx-h100\", \"num_nodes\": 1},"
			 " \"parallel\": {\"tp\": 2, \"dp\": 4, \"sharding\": \"fsdp\", \"sequence_parallel\": true},"
			 " \"training\": {\"micro_batch_size\": 1, \"grad_accum_steps\": 4, \"framework\": \"megatron\"},"
			 " \"precision\": {\"compute\": \"fp8\"}}");
	l = stage_ledger(&c, 0);
	ck_assert_uint_eq(l.fp8_weight_params, 22548578304ull);
	ck_assert_uint_eq(l.fp8_weight_copies_bytes, 45097156608ull);
}
END_TEST

/* DeepSeek-V3's MTP module on the last stage (tp 1, ep 64: 4 of its 256
 * experts a rank): its MLA attention, q_a 7168 x 1536 + q_b 1536 x 128 x
 * 192 + kv_a 7168 x 576 + kv_b 512 x 128 x 256 + o 16384 x 7168 =
 * 187,105,280 with the two latent norms (1536 + 512, which the ledger
 * counts, as it does a bias: docs/memory-conventions.md, "FP8";
 * TE's fused layernorm-linears keep them BF16, 4 KiB of copies a
 * module), 187,107,328; its
 * shared expert 3 x 7168 x 2048 = 44,040,192; eh_proj 2 x 7168 x 7168 =
 * 102,760,448; its 4 experts 4 x 44,040,192 = 176,160,768: 510,068,736
 * FP8-cast weights more than the same stage without the module. */
START_TEST(test_fp8_weight_copies_mtp)
{
	struct dc_config c;
	uint64_t with, without;
	for (int mtp = 1; mtp >= 0; mtp--) {
		fixture_json(&c, "{\"model\": {\"hf_config\": \"deepseek-v3\", \"seq_length\": 4096, \"mtp_layers\": %d},"
				 " \"cluster\": {\"system\": \"dgx-h100\", \"num_nodes\": 256},"
				 " \"parallel\": {\"tp\": 1, \"pp\": 16, \"ep\": 64, \"dp\": 128, \"sharding\": \"zero1\","
				 " \"pipeline_layers\": [3, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 2]},"
				 " \"training\": {\"micro_batch_size\": 1, \"grad_accum_steps\": 32, \"framework\": \"megatron\"},"
				 " \"precision\": {\"preset\": \"megatron\", \"compute\": \"fp8\"}}",
			     mtp);
		if (mtp)
			with = stage_ledger(&c, 15).fp8_weight_params;
		else
			without = stage_ledger(&c, 15).fp8_weight_params;
	}
	ck_assert_uint_eq(with - without, 510068736ull);
}
END_TEST

START_TEST(test_zero_table1_7_5b)
{
	/* ZeRO Table 1 / section 5, psi = 7.5e9, K = 12, N_d = 64 (GB = 1e9 B):
	 * baseline (2+2+12) psi = 120e9; P_os 4 psi + 12 psi/64 = 30e9 + 1.40625e9;
	 * P_os+g 2 psi + 14 psi/64 = 15e9 + 1.640625e9; P_os+g+p 16 psi/64 */
	static const struct {
		enum dc_sharding sh;
		uint64_t bytes;
	} want[] = {
		{DC_SHARD_NONE, 120000000000ull},
		{DC_SHARD_ZERO1, 31406250000ull},
		{DC_SHARD_ZERO2, 16640625000ull},
		{DC_SHARD_FSDP, 1875000000ull},
	};
	for (size_t i = 0; i < 4; i++) {
		struct dc_config c;
		struct dc_mem_ledger l;
		zero_config(&c, 7500000000ull, 64, want[i].sh);
		l = stage_ledger(&c, 0);
		ck_assert_uint_eq(l.model_states_bytes, want[i].bytes);
	}
}
END_TEST

START_TEST(test_zero_table1_other_cells)
{
	struct dc_config c;
	struct dc_mem_ledger l;

	/* 128B, P_os+g+p, N_d = 64: 16 x 128e9 / 64 = 32e9 ("32", bold) */
	zero_config(&c, 128000000000ull, 64, DC_SHARD_FSDP);
	l = stage_ledger(&c, 0);
	ck_assert_uint_eq(l.model_states_bytes, 32000000000ull);
	/* 1T, P_os, N_d = 64: 4e12 + 12e12/64 = 4187.5e9 (printed "4187") */
	zero_config(&c, 1000000000000ull, 64, DC_SHARD_ZERO1);
	l = stage_ledger(&c, 0);
	ck_assert_uint_eq(l.model_states_bytes, 4187500000000ull);
	/* 7.5B, P_os+g, N_d = 4: 15e9 + 14 x 7.5e9 / 4 = 41.25e9 (printed "41.3") */
	zero_config(&c, 7500000000ull, 4, DC_SHARD_ZERO2);
	l = stage_ledger(&c, 0);
	ck_assert_uint_eq(l.model_states_bytes, 41250000000ull);
	/* the split: P_os at 64 keeps params and grads whole, shards the rest:
	 * 15e9, 15e9, 30e9/64 = 468.75e6, 60e9/64 = 937.5e6 */
	zero_config(&c, 7500000000ull, 64, DC_SHARD_ZERO1);
	l = stage_ledger(&c, 0);
	ck_assert_uint_eq(l.params_bytes, 15000000000ull);
	ck_assert_uint_eq(l.grads_bytes, 15000000000ull);
	ck_assert_uint_eq(l.master_bytes, 468750000ull);
	ck_assert_uint_eq(l.optimizer_bytes, 937500000ull);
}
END_TEST

START_TEST(test_pipeline_first_stage_holds_l_layers)
{
	/* Korthikanti Eq. 5 setting: 1F1B first stage holds p microbatches of
	 * L/p layers. GPT-3 175B of Table 3: L 96, tp 8, pp 8, micro 1, 64
	 * microbatches: stage 0 holds 8 x 12 = 96 layers' activations,
	 * 96 x 578,813,952 = 55,566,139,392 bytes of layers, plus the
	 * embedding's dropout mask sbh = 25,165,824 for each of the 8 in-flight
	 * microbatches (201,326,592): 55,767,465,984. The last stage holds one
	 * microbatch of its 12 layers, 6,945,767,424, plus the final norm and
	 * head inputs 4sbh = 100,663,296 and FP32 logits 4 s b V / t =
	 * 4 x 2048 x 32000 / 8 = 32,768,000: 7,079,198,720 */
	struct dc_config c;
	struct dc_mem_ledger l;

	llama_config(&c);
	c.model.num_layers = 96;
	c.model.hidden_size = 12288;
	c.model.num_attention_heads = 96;
	c.model.num_kv_heads = 96;
	c.model.head_dim = 128;
	c.model.ffn_hidden_size = 4 * 12288;
	c.model.mlp = DC_MLP_GELU;
	c.model.seq_length = 2048;
	c.parallel.tp = 8;
	c.parallel.pp = 8;
	c.parallel.dp = 1;
	c.world_size = 64;
	c.training.grad_accum_steps = 64;
	c.training.attention = DC_ATTENTION_EAGER; /* the paper's setup */
	c.model.dropout = 1;
	ck_assert_uint_eq(dc_pipeline_in_flight(8, 0, 64), 8);
	ck_assert_uint_eq(dc_pipeline_in_flight(8, 7, 64), 1);
	ck_assert_uint_eq(dc_pipeline_in_flight(8, 0, 3), 3);
	ck_assert_uint_eq(dc_pipeline_in_flight(1, 0, 64), 1);
	l = stage_ledger(&c, 0);
	ck_assert_uint_eq(l.activation_layers_bytes, 55566139392ull);
	ck_assert_uint_eq(l.activation_embedding_bytes, 201326592ull);
	ck_assert_uint_eq(l.activation_output_bytes, 0);
	ck_assert_uint_eq(l.activations_bytes, 55767465984ull);
	l = stage_ledger(&c, 7);
	ck_assert_uint_eq(l.activation_layers_bytes, 12ull * 578813952ull);
	ck_assert_uint_eq(l.activation_embedding_bytes, 0);
	ck_assert_uint_eq(l.activations_bytes, 7079198720ull);
}
END_TEST

START_TEST(test_stage_params_llama)
{
	/* Llama-2-7B: 6,738,415,616 parameters (published). Per layer:
	 * attention 4 x 4096^2 = 67,108,864; SwiGLU 3 x 4096 x 11008 =
	 * 135,266,304; norms 8192: 202,383,360. Embedding = head =
	 * 32000 x 4096 = 131,072,000. */
	struct dc_config c;
	struct dc_stage_params p0, p1;

	llama_config(&c);
	c.parallel.tp = 1;
	ck_assert_int_eq(dc_stage_params_compute(plan_of(&c), 0, &p0), 0);
	ck_assert_uint_eq(p0.total, 6738415616ull);
	/* pp 2: stage 0 = 16 x 202,383,360 + 131,072,000 = 3,369,205,760;
	 * stage 1 = 3,238,133,760 + final norm 4096 + head 131,072,000 */
	c.parallel.pp = 2;
	ck_assert_int_eq(dc_stage_params_compute(plan_of(&c), 0, &p0), 0);
	ck_assert_int_eq(dc_stage_params_compute(plan_of(&c), 1, &p1), 0);
	ck_assert_uint_eq(p0.total, 3369205760ull);
	ck_assert_uint_eq(p1.total, 3369209856ull);
	ck_assert_uint_eq(p0.total + p1.total, 6738415616ull);
	/* tp 4, pp 1: linear 202,375,168 / 4 = 50,593,792 + norms 8192 =
	 * 50,601,984 per layer; x 32 = 1,619,263,488; + 2 x 32,768,000
	 * (vocab-parallel embedding and head) + 4096 = 1,684,803,584 */
	c.parallel.pp = 1;
	c.parallel.tp = 4;
	ck_assert_int_eq(dc_stage_params_compute(plan_of(&c), 0, &p0), 0);
	ck_assert_uint_eq(p0.layer_params, 50601984ull);
	ck_assert_uint_eq(p0.total, 1684803584ull);
}
END_TEST

START_TEST(test_course_ledger)
{
	/* The default config, every line by hand:
	 * params 1,684,803,584 x 2 = 3,369,607,168; grads the same; master x 4 =
	 * 6,739,214,336; Adam x 8 = 13,478,428,672; states x 16 = 26,956,857,344.
	 * Activations (flash attention, no dropout: the defaults): s 4096, b 1,
	 * h 4096, a 32, t 4: sbh = 16,777,216; norm inputs and outputs 8 sbh =
	 * 134,217,728; Q, K, V, projection input 2sb(4 x 4096) = 134,217,728
	 * and SwiGLU 6sbf = 6 x 4096 x 11008 = 270,532,608, over t:
	 * 101,187,584; softmax statistics 4 a s b / t = 131,072; per layer
	 * 235,536,384; x 32 layers = 7,537,164,288. No embedding mask; final
	 * norm and head inputs 4 sbh = 67,108,864 and FP32 logits
	 * 4 x 4096 x 32000 / 4 = 131,072,000 (pp = 1: stage 0 is also the
	 * last): activations 7,735,345,152.
	 * Buckets 2 x 25 MiB = 52,428,800. While the loss runs backward its two
	 * FP32 gradients, 8 s b V / t = 8 x 4096 x 32000 / 4 = 262,144,000
	 * (nothing is recomputed). Backward subtotal = 26,956,857,344 +
	 * 7,735,345,152 + 52,428,800 + 268,435,456 + 536,870,912 + 268,435,456
	 * + 262,144,000 = 36,080,517,120; reserve 5% = 1,804,025,856; peak
	 * 37,884,542,976; headroom 85,899,345,920 - 37,884,542,976 =
	 * 48,014,802,944.
	 * With the course's 2022 assumptions (eager attention, dropout) the
	 * layer adds the two residual masks 2 sbh and 5 a s^2 b / t =
	 * 671,088,640 in place of the statistics: 10 sbh + 101,187,584 +
	 * 671,088,640 = 940,048,384 a layer, 30,081,548,288 for 32, plus the
	 * embedding mask sbh: 30,296,506,368; backward (with the loss's
	 * gradients) 58,641,678,336, reserve ceil(2,932,083,916.8) =
	 * 2,932,083,917, peak 61,573,762,253 (61,298,511,053 before the loss's
	 * backward was counted). */
	struct dc_config c;
	struct dc_mem_ledger l;

	llama_config(&c);
	l = stage_ledger(&c, 0);
	ck_assert_uint_eq(l.params_bytes, 3369607168ull);
	ck_assert_uint_eq(l.grads_bytes, 3369607168ull);
	ck_assert_uint_eq(l.master_bytes, 6739214336ull);
	ck_assert_uint_eq(l.optimizer_bytes, 13478428672ull);
	ck_assert_uint_eq(l.model_states_bytes, 26956857344ull);
	ck_assert_uint_eq(l.activation_bytes_per_layer, 235536384ull);
	ck_assert_uint_eq(l.activations_bytes, 7735345152ull);
	ck_assert_uint_eq(l.ddp_buckets_bytes, 52428800ull);
	ck_assert_uint_eq(l.activation_head_backward_bytes, 262144000ull);
	ck_assert_uint_eq(l.phase_subtotal_bytes[DC_MEM_BACKWARD], 36080517120ull);
	ck_assert_uint_eq(l.phase_reserve_bytes[DC_MEM_BACKWARD], 1804025856ull);
	ck_assert_uint_eq(l.peak_bytes, 37884542976ull);
	ck_assert_int_eq(l.peak_phase, DC_MEM_BACKWARD);
	ck_assert(l.fits);
	ck_assert_uint_eq(l.headroom_bytes, 48014802944ull);
	/* optimizer step: states + NCCL + context + workspace = 28,030,599,168 */
	ck_assert_uint_eq(l.phase_subtotal_bytes[DC_MEM_OPTIMIZER], 28030599168ull);
	ck_assert_uint_eq(l.optimizer_temp_bytes, 0);
	/* torch's foreach AdamW: the square roots of the second moments, a new
	 * list each step, one moment's bytes: 13,478,428,672 / 2 =
	 * 6,739,214,336; 34,769,813,504 at the step, still under backward's */
	c.training.optimizer_implementation = DC_OPT_IMPL_FOREACH;
	l = stage_ledger(&c, 0);
	ck_assert_uint_eq(l.optimizer_temp_bytes, 6739214336ull);
	ck_assert_uint_eq(l.phase_subtotal_bytes[DC_MEM_OPTIMIZER], 34769813504ull);
	ck_assert_int_eq(l.peak_phase, DC_MEM_BACKWARD);
	c.training.optimizer_implementation = DC_OPT_IMPL_FUSED;
	/* 32 GiB cards: 37,884,542,976 - 34,359,738,368 = 3,524,804,608 short */
	c.cluster.gpu_mem_bytes = 32ull << 30;
	l = stage_ledger(&c, 0);
	ck_assert(!l.fits);
	ck_assert_uint_eq(l.shortfall_bytes, 3524804608ull);
	ck_assert_uint_eq(l.headroom_bytes, 0);
	/* the 2022 assumptions */
	c.cluster.gpu_mem_bytes = 80ull << 30;
	c.training.attention = DC_ATTENTION_EAGER;
	c.model.dropout = 1;
	l = stage_ledger(&c, 0);
	ck_assert_uint_eq(l.activation_bytes_per_layer, 940048384ull);
	ck_assert_uint_eq(l.activations_bytes, 30296506368ull);
	ck_assert_uint_eq(l.phase_subtotal_bytes[DC_MEM_BACKWARD], 58641678336ull);
	ck_assert_uint_eq(l.phase_reserve_bytes[DC_MEM_BACKWARD], 2932083917ull);
	ck_assert_uint_eq(l.peak_bytes, 61573762253ull);
	/* 40 GiB cards: 61,573,762,253 - 42,949,672,960 = 18,624,089,293 short */
	c.cluster.gpu_mem_bytes = 40ull << 30;
	l = stage_ledger(&c, 0);
	ck_assert(!l.fits);
	ck_assert_uint_eq(l.shortfall_bytes, 18624089293ull);
}
END_TEST

/* The presets' ledgers on the course's layout (Llama-2-7B shape, tp 4, dp
 * 2): a rank holds P = 1,684,803,584 parameters (test_course_ledger).
 *   megatron, zero1 (its distributed optimizer): Megatron's theoretical
 *     memory formula 6 + 12/d bytes: 2P + 4P + 12P/2 = 12P = 20,217,643,008
 *   deepseek_v3, none: 14P = 23,587,250,176
 *   fsdp2, fsdp: FP32 shards 4P/2 = 3,369,607,168, FP32 grads the same, no
 *     master, Adam 8P/2 = 6,739,214,336: 13,478,428,672; the gathered BF16
 *     working copy of the root (embedding and head shards 2 x 32,768,000
 *     and the final norm 4,096) and two layers (2 x 50,601,984):
 *     166,744,064 x 2 = 333,488,128; one unit's grads before
 *     ReduceScatter, the root's, x 4 B: 262,160,384 */
static struct dc_mem_ledger preset_ledger(const char *preset, const char *sharding)
{
	struct dc_config c;
	fixture_json(&c,
		     "{\"model\": {\"num_layers\": 32, \"hidden_size\": 4096, \"num_attention_heads\": 32,"
		     " \"ffn_hidden_size\": 11008, \"vocab_size\": 32000, \"seq_length\": 4096},"
		     " \"cluster\": {\"num_nodes\": 2, \"gpus_per_node\": 4, \"gpu_memory\": \"80 GiB\","
		     " \"intra_node\": {\"bandwidth\": \"300 GB/s\"}, \"inter_node\": {\"bandwidth\": \"400 Gb/s\"}},"
		     " \"parallel\": {\"tp\": 4, \"sharding\": \"%s\"}, \"precision\": {\"preset\": \"%s\"}}",
		     sharding, preset);
	return stage_ledger(&c, 0);
}

START_TEST(test_precision_presets_ledger)
{
	struct dc_mem_ledger l = preset_ledger("megatron", "zero1");
	ck_assert_uint_eq(l.p.total, 1684803584ull);
	ck_assert_uint_eq(l.grads_bytes, 4 * 1684803584ull);
	ck_assert_uint_eq(l.model_states_bytes, 20217643008ull);
	l = preset_ledger("deepseek_v3", "none");
	ck_assert_uint_eq(l.model_states_bytes, 23587250176ull);
	l = preset_ledger("fsdp2", "fsdp");
	ck_assert_uint_eq(l.params_bytes, 3369607168ull);
	ck_assert_uint_eq(l.grads_bytes, 3369607168ull);
	ck_assert_uint_eq(l.master_bytes, 0);
	ck_assert_uint_eq(l.optimizer_bytes, 6739214336ull);
	ck_assert_uint_eq(l.model_states_bytes, 13478428672ull);
	ck_assert_uint_eq(l.fsdp_forward_params_bytes, 333488128ull);
	ck_assert_uint_eq(l.fsdp_unsharded_grads_bytes, 262160384ull);
}
END_TEST

/* The same layout under training.framework torchtitan (fsdp2, fsdp, dp 2,
 * pp 1: resharded after forward): tok_embeddings is its own unit,
 * resharded with the layers, and [norm, lm_head] another, kept
 * (torchtitan/distributed/fsdp.py:252-265 at b5bcd76c). The embedding is
 * gathered before layer 0's forward and after layer 0's backward, when
 * the head's unit is not: what stays gathered is the head's 32,768,000 +
 * 4,096 = 32,772,096 and two layers, (32,772,096 + 2 x 50,601,984) x 2 B
 * = 267,952,128 (333,488,128 with the embedding too); one unit's grads
 * before ReduceScatter, the larger, a layer's: 50,601,984 x 4 B =
 * 202,407,936 (the root's 262,160,384 before). */
START_TEST(test_torchtitan_embedding_unit_ledger)
{
	struct dc_config c;
	struct dc_mem_ledger l;
	fixture_json(&c,
		     "{\"model\": {\"num_layers\": 32, \"hidden_size\": 4096, \"num_attention_heads\": 32,"
		     " \"ffn_hidden_size\": 11008, \"vocab_size\": 32000, \"seq_length\": 4096},"
		     " \"cluster\": {\"num_nodes\": 2, \"gpus_per_node\": 4, \"gpu_memory\": \"80 GiB\","
		     " \"intra_node\": {\"bandwidth\": \"300 GB/s\"}, \"inter_node\": {\"bandwidth\": \"400 Gb/s\"}},"
		     " \"parallel\": {\"tp\": 4, \"sharding\": \"fsdp\"}, \"precision\": {\"preset\": \"fsdp2\"},"
		     " \"training\": {\"framework\": \"torchtitan\"}}");
	l = stage_ledger(&c, 0);
	ck_assert_uint_eq(l.fsdp_forward_params_bytes, 267952128ull);
	ck_assert_uint_eq(l.fsdp_backward_params_bytes, 267952128ull);
	ck_assert_uint_eq(l.fsdp_unsharded_grads_bytes, 202407936ull);
}
END_TEST

/* CPU offload on the course's layout (P = 1,684,803,584 a rank, dp 2):
 *   optimizer, zero1: the GPU keeps params and grads 2P + 2P =
 *     6,739,214,336; the host the master 4P/2, Adam 8P/2 and ZeRO-Offload's
 *     FP32 gradient copy 4P/2: 8P = 13,478,428,672 a rank, x 4 GPUs a node
 *     = 53,913,714,688: over 48 GiB (51,539,607,552), within 64 GiB
 *   optimizer+params, fsdp: the GPU keeps no states; the host 16P/2 = 8P */
static void offload_config(struct dc_config *c, const char *offload, const char *sharding, const char *host)
{
	fixture_json(c,
		     "{\"model\": {\"num_layers\": 32, \"hidden_size\": 4096, \"num_attention_heads\": 32,"
		     " \"ffn_hidden_size\": 11008, \"vocab_size\": 32000, \"seq_length\": 4096},"
		     " \"cluster\": {\"num_nodes\": 2, \"gpus_per_node\": 4, \"gpu_memory\": \"80 GiB\","
		     " \"host_memory\": \"%s\","
		     " \"intra_node\": {\"bandwidth\": \"300 GB/s\"}, \"inter_node\": {\"bandwidth\": \"400 Gb/s\"}},"
		     " \"parallel\": {\"tp\": 4, \"sharding\": \"%s\", \"offload\": \"%s\"}}",
		     host, sharding, offload);
}

START_TEST(test_offload_host_ledger)
{
	struct dc_config c;
	struct dc_memory_result m;
	const char *err = NULL;
	struct dc_mem_ledger l;
	offload_config(&c, "optimizer", "zero1", "48 GiB");
	l = stage_ledger(&c, 0);
	ck_assert_uint_eq(l.model_states_bytes, 6739214336ull);
	ck_assert_uint_eq(l.master_bytes + l.optimizer_bytes, 0);
	ck_assert_uint_eq(l.host_master_bytes, 3369607168ull);
	ck_assert_uint_eq(l.host_optimizer_bytes, 6739214336ull);
	ck_assert_uint_eq(l.host_grads_bytes, 3369607168ull);
	ck_assert_uint_eq(l.host_bytes, 13478428672ull);
	ck_assert_int_eq(dc_memory_compute(plan_of(&c), &m, &err), 0);
	ck_assert_uint_eq(m.host_node_bytes, 53913714688ull);
	ck_assert(m.host_checked && !m.host_fits);
	offload_config(&c, "optimizer", "zero1", "64 GiB");
	ck_assert_int_eq(dc_memory_compute(plan_of(&c), &m, &err), 0);
	ck_assert(m.host_fits);
	offload_config(&c, "optimizer+params", "fsdp", "0 GiB");
	l = stage_ledger(&c, 0);
	ck_assert_uint_eq(l.model_states_bytes, 0);
	ck_assert_uint_eq(l.host_bytes, 13478428672ull);
	ck_assert_int_eq(dc_memory_compute(plan_of(&c), &m, &err), 0);
	ck_assert(!m.host_checked && m.host_fits);
}
END_TEST

/* DeepSpeed ZeRO-1/2's pinned 16-bit host buffers (docs/memory-conventions.md,
 * "DeepSpeed's host buffers") on the offload layout above: P =
 * 1,684,803,584 parameters a rank, dp 2, a partition of P / 2 =
 * 842,401,792 elements, 2-byte parameters.
 *   the return buffer (stage_1_and_2.py:495-507): 842,401,792 x 2 =
 *     1,684,803,584 under ZeRO-1 and ZeRO-2, at any grad_accum_steps;
 *   ZeRO-2 at grad_accum_steps 4, accumulated_grads_in_cpu (:1524-1528)
 *     as much again: 3,369,607,168;
 *   the rank's host: 8P / 2 = 13,478,428,672 as before, + 1,684,803,584 =
 *     15,163,232,256 (ZeRO-1), + 3,369,607,168 = 16,848,035,840 (ZeRO-2,
 *     m 4); the node's 4 GPUs 67,392,143,360 (ZeRO-2, m 4): over 62 GiB
 *     (66,571,993,088), which the 53,913,714,688 without them fitted;
 *   under framework custom: none. */
static void ds_offload_config(struct dc_config *c, const char *framework, const char *sharding, unsigned gas)
{
	fixture_json(c,
		     "{\"model\": {\"num_layers\": 32, \"hidden_size\": 4096, \"num_attention_heads\": 32,"
		     " \"ffn_hidden_size\": 11008, \"vocab_size\": 32000, \"seq_length\": 4096},"
		     " \"cluster\": {\"num_nodes\": 2, \"gpus_per_node\": 4, \"gpu_memory\": \"80 GiB\","
		     " \"host_memory\": \"62 GiB\","
		     " \"intra_node\": {\"bandwidth\": \"300 GB/s\"}, \"inter_node\": {\"bandwidth\": \"400 Gb/s\"}},"
		     " \"parallel\": {\"tp\": 4, \"sharding\": \"%s\", \"offload\": \"optimizer\"},"
		     " \"training\": {\"framework\": \"%s\", \"grad_accum_steps\": %u}}",
		     sharding, framework, gas);
}

START_TEST(test_offload_deepspeed_host_buffers)
{
	struct dc_config c;
	struct dc_memory_result m;
	const char *err = NULL;
	struct dc_mem_ledger l;
	ds_offload_config(&c, "deepspeed", "zero1", 4);
	l = stage_ledger(&c, 0);
	ck_assert_uint_eq(l.host_buffers_bytes, 1684803584ull);
	ck_assert_uint_eq(l.host_bytes, 15163232256ull);
	ds_offload_config(&c, "deepspeed", "zero2", 1);
	l = stage_ledger(&c, 0);
	ck_assert_uint_eq(l.host_buffers_bytes, 1684803584ull);
	ds_offload_config(&c, "deepspeed", "zero2", 4);
	l = stage_ledger(&c, 0);
	ck_assert_uint_eq(l.host_master_bytes + l.host_optimizer_bytes + l.host_grads_bytes, 13478428672ull);
	ck_assert_uint_eq(l.host_buffers_bytes, 3369607168ull);
	ck_assert_uint_eq(l.host_bytes, 16848035840ull);
	ck_assert_int_eq(dc_memory_compute(plan_of(&c), &m, &err), 0);
	ck_assert_uint_eq(m.host_node_bytes, 67392143360ull);
	ck_assert(m.host_checked && !m.host_fits);
	ds_offload_config(&c, "custom", "zero2", 4);
	l = stage_ledger(&c, 0);
	ck_assert_uint_eq(l.host_buffers_bytes, 0);
	ck_assert_uint_eq(l.host_bytes, 13478428672ull);
	ck_assert_int_eq(dc_memory_compute(plan_of(&c), &m, &err), 0);
	ck_assert(m.host_fits);
}
END_TEST

/* DeepSpeed ZeRO-3's host ledger under offload (docs/memory-conventions.md,
 * "DeepSpeed's host buffers"; deepspeed/runtime/zero/stage3.py at
 * edaa7221), on ds_offload_config's model at tp 4, dp 2: P = 1,684,803,584
 * parameters a rank, a partition of P / 2 = 842,401,792 elements.
 *   "optimizer": FP32 master 4 x 842,401,792 = 3,369,607,168, Adam 8 x =
 *     6,739,214,336, the FP32 gradient CPU-Adam reads (:1287-1292) 4 x =
 *     3,369,607,168, the 16-bit gradient partitions accumulated each micro
 *     step (grad_partitions_flat_buffer, :742-746, on the CPU) 2 x =
 *     1,684,803,584: 18 x 842,401,792 = 15,163,232,256; the GPU keeps no
 *     gradient shard (it held 2 x 842,401,792 before);
 *   "optimizer+params": the 16-bit parameter partitions too
 *     (param_groups_fp16_flat_cpu_memory, :857-858), 2 x = 1,684,803,584:
 *     20 x 842,401,792 = 16,848,035,840 (it counted 16 x = 13,478,428,672
 *     with the 16-bit gradient shard standing for the FP32 copy);
 *   under framework custom "optimizer+params": 16 x, as before. */
static void ds3_offload_config(struct dc_config *c, const char *framework, const char *offload)
{
	fixture_json(c,
		     "{\"model\": {\"num_layers\": 32, \"hidden_size\": 4096, \"num_attention_heads\": 32,"
		     " \"ffn_hidden_size\": 11008, \"vocab_size\": 32000, \"seq_length\": 4096},"
		     " \"cluster\": {\"num_nodes\": 2, \"gpus_per_node\": 4, \"gpu_memory\": \"80 GiB\","
		     " \"intra_node\": {\"bandwidth\": \"300 GB/s\"}, \"inter_node\": {\"bandwidth\": \"400 Gb/s\"}},"
		     " \"parallel\": {\"tp\": 4, \"sharding\": \"fsdp\", \"offload\": \"%s\"},"
		     " \"training\": {\"framework\": \"%s\", \"grad_accum_steps\": 4}}",
		     offload, framework);
}

START_TEST(test_offload_deepspeed_zero3_host)
{
	struct dc_config c;
	struct dc_mem_ledger l;
	ds3_offload_config(&c, "deepspeed", "optimizer");
	l = stage_ledger(&c, 0);
	ck_assert_uint_eq(l.host_master_bytes, 3369607168ull);
	ck_assert_uint_eq(l.host_optimizer_bytes, 6739214336ull);
	ck_assert_uint_eq(l.host_grads_bytes, 3369607168ull);
	ck_assert_uint_eq(l.host_buffers_bytes, 1684803584ull);
	ck_assert_uint_eq(l.host_params_bytes, 0);
	ck_assert_uint_eq(l.host_bytes, 15163232256ull);
	ck_assert_uint_eq(l.grads_bytes, 0);
	ds3_offload_config(&c, "deepspeed", "optimizer+params");
	l = stage_ledger(&c, 0);
	ck_assert_uint_eq(l.host_params_bytes, 1684803584ull);
	ck_assert_uint_eq(l.host_grads_bytes, 3369607168ull);
	ck_assert_uint_eq(l.host_buffers_bytes, 1684803584ull);
	ck_assert_uint_eq(l.host_bytes, 16848035840ull);
	ck_assert_uint_eq(l.params_bytes + l.grads_bytes, 0);
	ds3_offload_config(&c, "custom", "optimizer+params");
	l = stage_ledger(&c, 0);
	ck_assert_uint_eq(l.host_buffers_bytes, 0);
	ck_assert_uint_eq(l.host_bytes, 13478428672ull);
}
END_TEST

/* ZeRO-Offload's FP32 gradient copy is the master's partition (Ren et al.
 * 2021, section 4.1): on a MoE model at dp 2, cp 2, ep 2 the dense part
 * shards over dp x cp = 4 ranks and the routed experts over
 * dp / ep x cp = 2, so with a 4-byte master the host holds as many
 * gradient bytes as master bytes: 4 (D / 4 + E / 2) for D dense and E
 * expert parameters a rank. (It sharded the experts' copy over dp / ep
 * alone, twice the master's.) */
START_TEST(test_offload_host_grads_moe_cp)
{
	struct dc_config c;
	struct dc_mem_ledger l;
	uint64_t dense, experts;
	fixture_json(&c,
		     "{\"model\": {\"num_layers\": 2, \"hidden_size\": 1024, \"num_attention_heads\": 8,"
		     " \"ffn_hidden_size\": 4096, \"vocab_size\": 1000, \"seq_length\": 1024,"
		     " \"num_experts\": 4, \"experts_per_token\": 2},"
		     " \"cluster\": {\"num_nodes\": 1, \"gpus_per_node\": 4, \"gpu_memory\": \"80 GiB\","
		     " \"intra_node\": {\"bandwidth\": \"300 GB/s\"}, \"inter_node\": {\"bandwidth\": \"400 Gb/s\"}},"
		     " \"precision\": {\"preset\": \"megatron\"},"
		     " \"parallel\": {\"dp\": 2, \"cp\": 2, \"ep\": 2, \"sharding\": \"zero1\", \"offload\": \"optimizer\"}}");
	l = stage_ledger(&c, 0);
	experts = l.p.expert_params;
	dense = l.p.total - experts;
	ck_assert_uint_gt(experts, 0);
	ck_assert_uint_eq(dense % 4, 0);
	ck_assert_uint_eq(experts % 2, 0);
	ck_assert_uint_eq(l.host_master_bytes, 4 * (dense / 4 + experts / 2));
	ck_assert_uint_eq(l.host_grads_bytes, 4 * (dense / 4 + experts / 2));
	ck_assert_uint_eq(l.host_grads_bytes, l.host_master_bytes);
}
END_TEST

/* HSDP 2 x 4 on the offload test's model and cluster (two nodes of 4) at
 * tp 1, dp 8 (P = 6,738,415,616, Llama-2-7B's shape), course bytes (2 + 2
 * + 4 + 8): FSDP over all 8 ranks holds 16P / 8 = 2P = 13,476,831,232 B
 * of states; HSDP with dp_replicate 2 shards over the 4 ranks of a
 * replica, 16P / 4 = 4P = 26,953,662,464 B; ZeRO-1 HSDP keeps params and
 * grads whole, 4P, and master + Adam over 4, 12P / 4 = 3P: 7P =
 * 47,168,909,312 B. */
START_TEST(test_hsdp_2x4_states)
{
	struct dc_config c;
	struct dc_mem_ledger l;
	const uint64_t P = 6738415616ull;
	fixture_json(&c,
		     "{\"model\": {\"num_layers\": 32, \"hidden_size\": 4096, \"num_attention_heads\": 32,"
		     " \"ffn_hidden_size\": 11008, \"vocab_size\": 32000, \"seq_length\": 4096},"
		     " \"cluster\": {\"num_nodes\": 2, \"gpus_per_node\": 4, \"gpu_memory\": \"80 GiB\","
		     " \"intra_node\": {\"bandwidth\": \"300 GB/s\"}, \"inter_node\": {\"bandwidth\": \"400 Gb/s\"}},"
		     " \"parallel\": {\"sharding\": \"fsdp\"}}");
	l = stage_ledger(&c, 0);
	ck_assert_uint_eq(l.p.total, P);
	ck_assert_uint_eq(l.model_states_bytes, 2 * P);
	c.parallel.dp_replicate = 2;
	l = stage_ledger(&c, 0);
	ck_assert_uint_eq(l.model_states_bytes, 4 * P);
	{
		/* what the axes say they shard (axis.h): FSDP every state over
		 * the 4 ranks of a replica; ZeRO-1 only the master and Adam */
		struct dc_state_shards sh;
		dc_axis_state_shards(plan_of(&c), &sh);
		for (int st = 0; st < DC_STATE_COUNT; st++)
			ck_assert_uint_eq(sh.dense[st], 4);
		c.parallel.sharding = DC_SHARD_ZERO1;
		dc_axis_state_shards(plan_of(&c), &sh);
		ck_assert_uint_eq(sh.dense[DC_STATE_PARAMS], 1);
		ck_assert_uint_eq(sh.dense[DC_STATE_GRADS], 1);
		ck_assert_uint_eq(sh.dense[DC_STATE_MASTER], 4);
		ck_assert_uint_eq(sh.dense[DC_STATE_OPTIMIZER], 4);
	}
	c.parallel.sharding = DC_SHARD_ZERO1;
	l = stage_ledger(&c, 0);
	ck_assert_uint_eq(l.params_bytes + l.grads_bytes, 4 * P);
	ck_assert_uint_eq(l.master_bytes + l.optimizer_bytes, 3 * P);
	ck_assert_uint_eq(l.model_states_bytes, 7 * P);
}
END_TEST

/* A small GELU model: h 1024, 8 heads of 128, f 4096, V 1000, L 4, untied.
 * Per layer 4 x 1024^2 + 2 x 1024 x 4096 + 2048 = 12,584,960; embedding =
 * head = 1,024,000; total 4 x 12,584,960 + 2 x 1,024,000 + 1024 = 52,388,864. */
static void small_fsdp(struct dc_config *c)
{
	llama_config(c);
	c->model.num_layers = 4;
	c->model.hidden_size = 1024;
	c->model.num_attention_heads = 8;
	c->model.num_kv_heads = 8;
	c->model.head_dim = 128;
	c->model.ffn_hidden_size = 4096;
	c->model.vocab_size = 1000;
	c->model.mlp = DC_MLP_GELU;
	c->model.seq_length = 1024;
	c->parallel.tp = 1;
	c->parallel.dp = 4;
	c->cluster.num_nodes = 1;
	c->world_size = 4;
	c->parallel.sharding = DC_SHARD_FSDP;
}

START_TEST(test_fsdp_working_set)
{
	struct dc_config c;
	struct dc_mem_ledger l;

	small_fsdp(&c);
	l = stage_ledger(&c, 0);
	ck_assert_uint_eq(l.p.total, 52388864ull);
	/* shard: 52,388,864 / 4 = 13,097,216 params x 2 B */
	ck_assert_uint_eq(l.params_bytes, 26194432ull);
	/* per-layer units: the root unit (embedding 1,024,000 + head
	 * 1,024,000 + final norm 1024 = 2,049,024 params), which FSDP2 never
	 * reshards after forward, plus the layer computing and the prefetched
	 * next: (2,049,024 + 2 x 12,584,960) x 2 B = 54,437,888, in forward
	 * and backward; one unit's unsharded grads, the larger (a layer),
	 * 12,584,960 x 2 B = 25,169,920 */
	ck_assert_uint_eq(l.fsdp_unit_params, 12584960ull);
	ck_assert_uint_eq(l.fsdp_forward_params_bytes, 54437888ull);
	ck_assert_uint_eq(l.fsdp_backward_params_bytes, 54437888ull);
	ck_assert_uint_eq(l.fsdp_unsharded_grads_bytes, 25169920ull);
	ck_assert_uint_eq(l.ddp_buckets_bytes, 0);
	/* the whole model as one unit (the seed's warning): 52,388,864 x 2 B
	 * gathered and the same in unsharded grads */
	c.parallel.fsdp_unit = DC_FSDP_UNIT_MODEL;
	l = stage_ledger(&c, 0);
	ck_assert_uint_eq(l.fsdp_forward_params_bytes, 104777728ull);
	ck_assert_uint_eq(l.fsdp_unsharded_grads_bytes, 104777728ull);
	/* no resharding after forward: every unit stays gathered */
	c.parallel.fsdp_unit = DC_FSDP_UNIT_LAYER;
	c.parallel.reshard_after_forward = 0;
	l = stage_ledger(&c, 0);
	ck_assert_uint_eq(l.fsdp_forward_params_bytes, 104777728ull);
	ck_assert_uint_eq(l.fsdp_backward_params_bytes, 104777728ull);
}
END_TEST

/* Under FSDP with a pipeline, PyTorch's pipelining schedules turn
 * resharding after backward and the gradient sync off until the last
 * backward: each stage keeps its whole stage gathered and its unsharded
 * gradients across the microbatches. small_fsdp with 8 layers of
 * 12,584,960 parameters on pp 2 x dp 2: stage 0 holds 4 layers and the
 * embedding (1,024,000): 51,363,840 parameters, x 2 B = 102,727,680 B
 * gathered and as many unsharded gradients; stage 1 four layers, the
 * final norm (1024) and the head (1,024,000): 51,364,864 x 2 B =
 * 102,729,728. */
START_TEST(test_fsdp_pipeline_holds_stage_grads)
{
	struct dc_config c;
	struct dc_mem_ledger l;
	uint64_t base;

	small_fsdp(&c);
	c.model.num_layers = 8;
	c.parallel.pp = 2;
	c.parallel.dp = 2;
	c.training.grad_accum_steps = 8;
	l = stage_ledger(&c, 0);
	ck_assert_uint_eq(l.p.total, 51363840ull);
	ck_assert_uint_eq(l.fsdp_unsharded_grads_bytes, 102727680ull);
	ck_assert_uint_eq(l.fsdp_backward_params_bytes, 102727680ull);
	/* 8 microbatches: stage 0 runs forwards after its backwards (1F1B's
	 * steady state), which meet the whole stage gathered and the
	 * gradients accumulated so far */
	ck_assert_uint_eq(l.fsdp_forward_params_bytes, 102727680ull);
	base = l.model_states_bytes + l.comm_buffers_bytes + l.cuda_context_bytes + l.workspace_bytes +
	       l.activations_bytes;
	ck_assert_uint_eq(l.phase_subtotal_bytes[DC_MEM_FORWARD] - base, 2 * 102727680ull);
	/* 2 microbatches: stage 0 warms up with one forward, then one
	 * forward-backward pair and the last backward: no forward after a
	 * backward, so its forwards see one layer unit at a time (the root
	 * 1,024,000 and two layers: 26,193,920 x 2 B) and no gradients;
	 * stage 1 runs two pairs */
	c.training.grad_accum_steps = 2;
	l = stage_ledger(&c, 0);
	ck_assert_uint_eq(l.fsdp_forward_params_bytes, 52387840ull);
	ck_assert_uint_eq(l.fsdp_backward_params_bytes, 102727680ull);
	ck_assert_uint_eq(l.fsdp_unsharded_grads_bytes, 102727680ull);
	base = l.model_states_bytes + l.comm_buffers_bytes + l.cuda_context_bytes + l.workspace_bytes +
	       l.activations_bytes;
	ck_assert_uint_eq(l.phase_subtotal_bytes[DC_MEM_FORWARD] - base, 52387840ull);
	l = stage_ledger(&c, 1);
	ck_assert_uint_eq(l.fsdp_forward_params_bytes, 102729728ull);
	ck_assert_uint_eq(l.fsdp_unsharded_grads_bytes, 102729728ull);
	/* without a pipeline the units reshard and reduce-scatter every
	 * backward: one unit's gradients (a layer, 25,169,920 B) */
	c.parallel.pp = 1;
	c.parallel.dp = 4;
	l = stage_ledger(&c, 0);
	ck_assert_uint_eq(l.fsdp_unsharded_grads_bytes, 25169920ull);
}
END_TEST

/* The schedules' placement and microbatches in flight (activation.h), on
 * small_fsdp's shape without sharding: 8 layers of 12,584,960 parameters,
 * an embedding and an untied head of 1,024,000, a final norm of 1024;
 * pp 4, 8 microbatches. */
static void four_stages(struct dc_config *c, enum dc_pipe_schedule s)
{
	small_fsdp(c);
	c->parallel.sharding = DC_SHARD_NONE;
	c->model.num_layers = 8;
	c->parallel.pp = 4;
	c->parallel.dp = 1;
	c->training.grad_accum_steps = 8;
	c->parallel.pipeline_schedule = s;
}

START_TEST(test_dualpipe_two_stages_pp_plus_one)
{
	/* DualPipe (DualPipe README: 2x parameters, PP + 1 activations): rank
	 * 0 holds stage 0 (layers 0-1, the embedding) and stage 3 (layers
	 * 6-7, the norm and the head): 4 x 12,584,960 + 2,049,024 =
	 * 52,388,864; rank 1 stages 1 and 2: 50,339,840. Each rank holds
	 * pp + 1 = 5 stage-microbatches of 2 layers: steps 1-2 of step()
	 * leave 2(pp/2 - h - 1) + h + 1 forwards of the nearer direction and
	 * h + 1 of the other (h = min(s, 3 - s)), the first pair of step 4
	 * one more: by direction 4, 3, 2, 1 of the forward one and 1, 2, 3, 4
	 * of the reverse one. 10 layer-microbatches on every rank against
	 * 1F1B's 8 on stage 0 and 2 on stage 3; both end ranks hold a head's
	 * logits */
	struct dc_config c;
	struct dc_mem_ledger l;
	const uint64_t fwd[4] = {4, 3, 2, 1}, rev[4] = {1, 2, 3, 4};
	four_stages(&c, DC_PIPE_DUALPIPE);
	for (uint64_t s = 0; s < 4; s++) {
		const struct dc_plan *p = plan_of(&c);
		ck_assert_int_eq(dc_pipeline_schedule(p), DC_PIPE_DUALPIPE);
		ck_assert_uint_eq(dc_pipeline_in_flight_chunk(p, s, 0), fwd[s]);
		ck_assert_uint_eq(dc_pipeline_in_flight_chunk(p, s, 1), rev[s]);
		l = stage_ledger(&c, s);
		ck_assert_uint_eq(l.in_flight, 5);
		ck_assert_uint_eq(l.p.layers, 4);
		ck_assert_uint_eq(l.p.total, s == 0 || s == 3 ? 52388864ull : 50339840ull);
		ck_assert_uint_eq(l.activation_layer_microbatches, 10);
		ck_assert_uint_eq(l.activation_layers_bytes, 10 * l.activation_bytes_per_layer);
		ck_assert(s == 0 || s == 3 ? l.activation_output_bytes > 0 : l.activation_output_bytes == 0);
	}
	/* the first stage's embedding outputs: pp = 4 microbatches of the
	 * forward direction on rank 0 (and of the reverse on rank 3) */
	ck_assert_uint_eq(dc_act_first_stage_microbatches(plan_of(&c)), 4);
	/* 1F1B, the same model: stage 0 holds min(4, 8) = 4 microbatches of 2
	 * layers, stage 3 one */
	four_stages(&c, DC_PIPE_1F1B);
	ck_assert_uint_eq(stage_ledger(&c, 0).activation_layer_microbatches, 8);
	ck_assert_uint_eq(stage_ledger(&c, 3).activation_layer_microbatches, 2);
	ck_assert_uint_eq(stage_ledger(&c, 0).p.total, 26193920ull);
}
END_TEST

/* DualPipe on the stages the config gives (parallel.pipeline_layers
 * [3, 2, 1, 2], DeepSeek-V3 ran 61 layers on 16 stages): rank s holds
 * stage s and stage 3 - s, whatever their layers. On four_stages' shape
 * rank 0 holds stage 0 (layers 0-2, the embedding) and stage 3 (layers
 * 6-7, the norm and the head): 5 x 12,584,960 + 2 x 1,024,000 + 1,024 =
 * 64,973,824 parameters; rank 1 stages 1 (layers 3-4) and 2 (layer 5):
 * 3 x 12,584,960 = 37,754,880, as rank 2 (stages 2 and 1). In flight
 * (test_dualpipe_two_stages_pp_plus_one) 4, 3, 2, 1 microbatches of the
 * rank's own stage and 1, 2, 3, 4 of its mirror: layer-microbatches
 * 4 x 3 + 1 x 2 = 14 on rank 0, 3 x 2 + 2 x 1 = 8 on rank 1,
 * 2 x 1 + 3 x 2 = 8 on rank 2, 1 x 2 + 4 x 3 = 14 on rank 3. */
START_TEST(test_dualpipe_uneven_stages)
{
	struct dc_config c;
	const uint64_t layers[4] = {5, 3, 3, 5}, lmb[4] = {14, 8, 8, 14};
	const uint64_t total[4] = {64973824ull, 37754880ull, 37754880ull, 64973824ull};
	const uint64_t mirror_layers[4] = {2, 1, 2, 3}, mirror_first[4] = {6, 5, 3, 0};
	four_stages(&c, DC_PIPE_DUALPIPE);
	c.parallel.pipeline_layers[0] = 3;
	c.parallel.pipeline_layers[1] = 2;
	c.parallel.pipeline_layers[2] = 1;
	c.parallel.pipeline_layers[3] = 2;
	c.parallel.pipeline_layers_n = 4;
	for (uint64_t s = 0; s < 4; s++) {
		const struct dc_plan *p = plan_of(&c);
		struct dc_mem_ledger l;
		struct dc_pipeline_chunk ch;
		ck_assert_int_eq(dc_pipeline_schedule(p), DC_PIPE_DUALPIPE);
		dc_pipeline_chunk(p, s, 1, &ch);
		ck_assert_uint_eq(ch.layers, mirror_layers[s]);
		ck_assert_uint_eq(ch.first_layer, mirror_first[s]);
		ck_assert_int_eq(ch.embedding, s == 3);
		ck_assert_int_eq(ch.head, s == 0);
		l = stage_ledger(&c, s);
		ck_assert_uint_eq(l.p.layers, layers[s]);
		ck_assert_uint_eq(l.p.total, total[s]);
		ck_assert_uint_eq(l.in_flight, 5);
		ck_assert_uint_eq(l.activation_layer_microbatches, lmb[s]);
	}
}
END_TEST

/* DualPipe's end ranks hold the embedding and the head together: the
 * MTP module reads the embedding's table there, not a copy of it
 * (DeepSeek-V3 section 3.2.1). On configs/deepseek-v3-h800.json rank 0
 * holds stages 0 and 15: what 1F1B puts on its stage 0 and its stage 15,
 * less the MTP module's copy of the V x h table, 129,280 x 7168 =
 * 926,679,040 (the head is untied: its own table stays). By hand, from
 * the model's terms (a layer's MLA 187,107,328, its 2 norms 14,336, a
 * dense MLP 3 x 7168 x 18432 = 396,361,728, a MoE layer's router
 * 1,835,264, shared expert 44,040,192 and 256 experts 11,274,289,152 at
 * 1/64 = 176,160,768): stage 0's 3 dense layers 3 x 583,483,392, one MoE
 * layer 409,157,888 and the embedding 926,679,040; stage 15's MoE layer
 * 409,157,888, final norm 7168, head 926,679,040 and MTP module (a MoE
 * layer, eh_proj 2 x 7168^2 = 102,760,448, its 3 norms 21,504):
 * 511,939,840; 4,934,071,040 in all. */
START_TEST(test_dualpipe_end_ranks_share_the_embedding)
{
	struct dc_config c;
	struct dc_stage_params r0, f0, f15;
	struct dc_diag d;
	dc_diag_init(&d);
	ck_assert_int_eq(dc_config_load_file(DC_SOURCE_DIR "/configs/deepseek-v3-h800.json", NULL, 0, &c, &d), 0);
	dc_diag_release(&d);
	ck_assert_int_eq(dc_memory_rank_params(plan_of(&c), 0, &r0), 0);
	c.parallel.pipeline_schedule = DC_PIPE_1F1B;
	c.overlap.ep = DC_EP_OVERLAP_NONE;
	ck_assert_int_eq(dc_memory_rank_params(plan_of(&c), 0, &f0), 0);
	ck_assert_int_eq(dc_memory_rank_params(plan_of(&c), 15, &f15), 0);
	ck_assert_uint_eq(r0.total, f0.total + f15.total - 926679040ull);
	ck_assert_uint_eq(r0.total, 4934071040ull);
}
END_TEST

START_TEST(test_dualpipev_v_placement)
{
	/* DualPipeV on pp 4 ranks: 8 chunks of one layer, rank s holds chunks
	 * s and 7 - s. Rank 0: layers 0 and 7, the embedding, the norm and
	 * the head: 2 x 12,584,960 + 2,049,024 = 27,218,944; rank 3: layers 3
	 * and 4, 25,169,920. In flight 2pp - s of chunk 0 and s + 1 of chunk
	 * 1: 9 = 2pp + 1 chunk-microbatches of one layer on every rank (the
	 * README's PP + 1 for its PP = 8 stages); the embedding's 2pp = 8 on
	 * rank 0, the head's logits on rank 0 only */
	struct dc_config c;
	struct dc_mem_ledger l;
	four_stages(&c, DC_PIPE_DUALPIPEV);
	for (uint64_t s = 0; s < 4; s++) {
		const struct dc_plan *p = plan_of(&c);
		ck_assert_uint_eq(dc_pipeline_in_flight_chunk(p, s, 0), 8 - s);
		ck_assert_uint_eq(dc_pipeline_in_flight_chunk(p, s, 1), s + 1);
		l = stage_ledger(&c, s);
		ck_assert_uint_eq(l.in_flight, 9);
		ck_assert_uint_eq(l.p.layers, 2);
		ck_assert_uint_eq(l.activation_layer_microbatches, 9);
		ck_assert(s == 0 ? l.activation_output_bytes > 0 : l.activation_output_bytes == 0);
	}
	ck_assert_uint_eq(stage_ledger(&c, 0).p.total, 27218944ull);
	ck_assert_uint_eq(stage_ledger(&c, 3).p.total, 25169920ull);
	ck_assert_uint_eq(dc_act_first_stage_microbatches(plan_of(&c)), 8);
	/* a tied head is the embedding's own table, on the same rank: no copy */
	c.model.tie_word_embeddings = 1;
	ck_assert_uint_eq(stage_ledger(&c, 0).p.total, 26194944ull);
	/* ZB-H1 holds 1F1B's whole activations: min(pp - s, m) */
	four_stages(&c, DC_PIPE_ZERO_BUBBLE);
	ck_assert_uint_eq(stage_ledger(&c, 0).in_flight, 4);
	ck_assert_uint_eq(stage_ledger(&c, 3).in_flight, 1);
	ck_assert_uint_eq(stage_ledger(&c, 1).activation_layer_microbatches, 6);
}
END_TEST

/* pp 8 ranks of the four_stages layer, 16 layers: two a stage */
static void eight_stages(struct dc_config *c, enum dc_pipe_schedule s)
{
	four_stages(c, s);
	c->model.num_layers = 16;
	c->parallel.pp = 8;
	c->cluster.num_nodes = 2;
	c->world_size = 8;
	c->training.grad_accum_steps = 16;
}

START_TEST(test_zero_bubble_deferred_w_by_hand)
{
	/* ZB-H1, pp 8, m 16, two layers a stage of s 1024, b 1, h 1024, 8
	 * heads of 128, GELU f 4096, flash attention, tp 1, no dropout: sbh
	 * 1,048,576, sbf 4,194,304. A layer keeps norm inputs 4sbh, Q/K/V
	 * input 2sbh, Q and K 4sbh, V 2sbh, the logsumexp 4asb = 32,768, the
	 * attention output 2sbh, the MLP input 2sbh, fc1's output and GELU's
	 * 2sbf each: 32sbh + 32,768 = 33,587,200. Its W reads the inputs of
	 * QKV, the projection, fc1 and fc2 (2sbh, 2sbh, 2sbh, 2sbf) and their
	 * output gradients (6sbh, 2sbh, 2sbf, 2sbh): 32sbh = 33,554,432, less
	 * than a whole microbatch by the logsumexp alone. Stage 7 runs F(j),
	 * B(j), W(j - 7): at its forward it holds microbatch j whole and 7
	 * awaiting W. A microbatch whole there: 2 layers and the head's
	 * outputs (4sbh + 4sbV = 4,194,304 + 4,096,000), 75,464,704; its W
	 * 2 x 33,554,432 + the head's (2sbh + 2sbV = 2,097,152 + 2,048,000),
	 * 71,254,016. So 7 x 71,254,016 = 498,778,112 more than 1F1B's
	 * 75,464,704: 574,242,816 of activations, where stage 0 (no W
	 * deferred) holds 8 x 67,174,400 = 537,395,200: the peak moves to
	 * stage 7. Stage 3 (W deferred by 3, 5 whole): 3 x 67,108,864 =
	 * 201,326,592 more */
	struct dc_config c;
	struct dc_mem_ledger l;
	struct dc_memory_result m;
	const char *err = NULL;
	uint64_t w;
	eight_stages(&c, DC_PIPE_ZERO_BUBBLE);
	ck_assert_int_eq(dc_act_layer_wgrad_bytes(plan_of(&c), 0, &w), 0);
	ck_assert_uint_eq(w, 33554432ull);
	ck_assert_int_eq(dc_act_head_wgrad_bytes(plan_of(&c), &w), 0);
	ck_assert_uint_eq(w, 4145152ull);
	l = stage_ledger(&c, 7);
	ck_assert_uint_eq(l.in_flight, 1);
	ck_assert_uint_eq(l.activation_layers_bytes + l.activation_output_bytes, 75464704ull);
	ck_assert_uint_eq(l.activation_wgrad_bytes_per_microbatch, 71254016ull);
	ck_assert_uint_eq(l.activation_wgrad_microbatches, 7);
	ck_assert_uint_eq(l.activation_wgrad_bytes, 498778112ull);
	ck_assert_uint_eq(l.activations_bytes, 574242816ull);
	l = stage_ledger(&c, 3);
	ck_assert_uint_eq(l.in_flight, 5);
	ck_assert_uint_eq(l.activation_wgrad_microbatches, 3);
	ck_assert_uint_eq(l.activation_wgrad_bytes, 201326592ull);
	l = stage_ledger(&c, 0);
	ck_assert_uint_eq(l.activation_wgrad_microbatches, 0);
	ck_assert_uint_eq(l.activation_wgrad_bytes, 0);
	ck_assert_uint_eq(l.activations_bytes, 537395200ull);
	ck_assert_int_eq(dc_memory_compute(plan_of(&c), &m, &err), 0);
	ck_assert_uint_eq(m.top.stage_first, 7);
	ck_assert_uint_eq(m.top.activations_bytes, 574242816ull);
	/* 1F1B on the same stages: nothing deferred, the peak on stage 0 */
	eight_stages(&c, DC_PIPE_1F1B);
	l = stage_ledger(&c, 7);
	ck_assert_uint_eq(l.activation_wgrad_bytes, 0);
	ck_assert_uint_eq(l.activations_bytes, 75464704ull);
	ck_assert_int_eq(dc_memory_compute(plan_of(&c), &m, &err), 0);
	ck_assert_uint_eq(m.top.stage_first, 0);
	/* full recompute: a layer keeps its input, 2sbh = 2,097,152, and
	 * the W still reads 32sbh (B rebuilt the layer). Stage 0's W is not
	 * deferred, but runs after the stage's whole B: just after B, 7
	 * whole and one awaiting W, 7 x 4,194,304 + 67,108,864 =
	 * 96,468,992 against 1F1B's 8 x 4,194,304 = 33,554,432: 62,914,560
	 * more. Stage 7 peaks just after a B, 8 awaiting W and none whole:
	 * 8 x 71,254,016 = 570,032,128 against 2 x 2,097,152 + 8,290,304 =
	 * 12,484,608 */
	eight_stages(&c, DC_PIPE_ZERO_BUBBLE);
	c.training.recompute = DC_RECOMPUTE_FULL;
	l = stage_ledger(&c, 0);
	ck_assert_uint_eq(l.activation_wgrad_microbatches, 1);
	ck_assert_uint_eq(l.activation_wgrad_bytes, 62914560ull);
	l = stage_ledger(&c, 7);
	ck_assert_uint_eq(l.activation_wgrad_microbatches, 8);
	ck_assert_uint_eq(l.activation_wgrad_bytes, 557547520ull);
	ck_assert_uint_eq(l.activations_bytes, 570032128ull);
}
END_TEST

/* ZB-H1 below m = pp: 1F1B's stages 0..pp - m hold m microbatches each
 * and share a class, but their deferred W's differ once a W holds more
 * than a microbatch's layers keep (full recompute), so each is its own
 * class. The eight stages above at m 4 under full recompute: a stage
 * keeps A = 2 x 2,097,152 = 4,194,304 a microbatch, its W reads W = 2 x
 * 33,554,432 = 67,108,864. Following ZB-H1's drain at m 4 (stage s runs
 * its W's s microbatches late): stage 1 peaks at 2A + 2W =
 * 142,606,336, stage 2 at A + 3W = 205,520,896, stages 3 and 4 at 4W =
 * 268,435,456 (korthikanti-175b's rows have the same form: 2A + 2W,
 * A + 3W, 4W, 4W). */
START_TEST(test_zero_bubble_classes_below_pp)
{
	static const uint64_t act[] = {0, 142606336ull, 205520896ull, 268435456ull, 268435456ull};
	struct dc_config c;
	struct dc_memory_result m;
	const char *err = NULL;
	eight_stages(&c, DC_PIPE_ZERO_BUBBLE);
	c.training.recompute = DC_RECOMPUTE_FULL;
	c.training.grad_accum_steps = 4;
	ck_assert_int_eq(dc_memory_compute(plan_of(&c), &m, &err), 0);
	ck_assert_uint_eq(plan_of(&c)->nclasses, 8);
	for (uint64_t i = 1; i <= 4; i++) {
		struct dc_mem_ledger l;
		ck_assert_int_eq(dc_memory_class_at(plan_of(&c), &m, i, &l), 0);
		ck_assert_uint_eq(l.stage_first, i);
		ck_assert_uint_eq(l.stage_last, i);
		ck_assert_uint_eq(l.activations_bytes, act[i]);
	}
	/* 1F1B keeps its flat region 0..4 (m in flight on each): stage 0
	 * (the embedding's segment) and 1..4 one class each, then 5, 6, 7 */
	eight_stages(&c, DC_PIPE_1F1B);
	c.training.grad_accum_steps = 4;
	ck_assert_uint_eq(plan_of(&c)->nclasses, 5);
}
END_TEST

START_TEST(test_zero_bubble_w_is_qi_table1)
{
	/* Qi et al. Table 1 per transformer layer (as sail-sg's runtime
	 * encodes it: f_mem 34h + 5as a token, W's -32h): B needs
	 * Korthikanti's 34sbh + 5as^2b, W 32sbh. The GPT layer (eager
	 * attention with dropout, a 4h MLP of GELU, a d = h, tp 1), h 1024,
	 * a 8, s 1024, b 1: sbh 1,048,576, 32sbh = 33,554,432, 34sbh +
	 * 5as^2b = 35,651,584 + 41,943,040 = 77,594,624. With tp 2 and
	 * sequence parallelism each rank's W holds the inputs sbh (QKV),
	 * sbh (projection), sbh (fc1), 4sbh (fc2) and the output gradients
	 * 3sbh (QKV), 2sbh (the projection's, whole), 4sbh (fc1), 2sbh
	 * (fc2's, whole): 18sbh = 18,874,368 */
	struct dc_config c;
	uint64_t w, kept;
	four_stages(&c, DC_PIPE_ZERO_BUBBLE);
	c.training.attention = DC_ATTENTION_EAGER;
	c.model.dropout = 1;
	ck_assert_int_eq(dc_act_layer_wgrad_bytes(plan_of(&c), 0, &w), 0);
	ck_assert_uint_eq(w, 33554432ull);
	ck_assert_int_eq(dc_act_layer_bytes(plan_of(&c), 0, &kept), 0);
	ck_assert_uint_eq(kept, 77594624ull);
	c.parallel.tp = 2;
	c.parallel.pp = 2;
	c.parallel.sequence_parallel = 1;
	ck_assert_int_eq(dc_act_layer_wgrad_bytes(plan_of(&c), 0, &w), 0);
	ck_assert_uint_eq(w, 18874368ull);
}
END_TEST

/* ZB-H1's op order on one stage drawn out (gen_zb, as the paper's
 * Figure 3 top): the largest a whole + b wgrad over it */
static void zb_walk(uint64_t p, uint64_t s, uint64_t m, uint64_t whole, uint64_t wgrad, uint64_t *best)
{
	uint64_t w = p - s - 1 < m ? p - s - 1 : m, a = 0, b = 0, nb = 0, nw = 0;
	*best = 0;
#define ZB_AT()                                    \
	do {                                       \
		uint64_t v_ = a * whole + b * wgrad; \
		if (v_ > *best)                    \
			*best = v_;                \
	} while (0)
	for (uint64_t i = 0; i < m; i++) {
		a++; /* F */
		ZB_AT();
		if (i < w)
			continue;
		a--, b++, nb++; /* B */
		ZB_AT();
		if (nb - nw > s)
			b--, nw++; /* W */
	}
	while (nb < m) {
		a--, b++, nb++;
		ZB_AT();
		if (nb - nw > s)
			b--, nw++;
	}
#undef ZB_AT
}

START_TEST(test_zero_bubble_deferred_states)
{
	/* pp 2, m 3 (docs/step-model.md's worked example): stage 1 runs F0
	 * B0 F1 B1 W0 F2 B2 W1 W2, its states (a whole, b awaiting W) (1,0)
	 * (0,1) (1,1) (0,2) (0,1) (1,1) (0,2) (0,1) (0,0). Whole 10, W 9: the
	 * largest is (1,1), 19: one pending, 9 over 1F1B's 10. W 25: (0,2),
	 * 50: two pending, 40 more. Stage 0 runs F0 F1 B0 W0 F2 B1 W1 B2 W2:
	 * (2,0) 20 unless W > whole: (1,1) 35, 15 more. pp 4, m 2, stage 1:
	 * F0 F1 B0 B1 W0 W1: (2,0) (1,1) (0,2) (0,1): with W 25 (0,2), 50,
	 * 30 over 1F1B's 2 x 10 */
	uint64_t n, x, best;
	ck_assert_int_eq(dc_pipeline_zb_deferred(2, 1, 3, 10, 9, &n, &x), 0);
	ck_assert_uint_eq(n, 1);
	ck_assert_uint_eq(x, 9);
	ck_assert_int_eq(dc_pipeline_zb_deferred(2, 1, 3, 10, 25, &n, &x), 0);
	ck_assert_uint_eq(n, 2);
	ck_assert_uint_eq(x, 40);
	ck_assert_int_eq(dc_pipeline_zb_deferred(2, 0, 3, 10, 9, &n, &x), 0);
	ck_assert_uint_eq(n, 0);
	ck_assert_uint_eq(x, 0);
	ck_assert_int_eq(dc_pipeline_zb_deferred(2, 0, 3, 10, 25, &n, &x), 0);
	ck_assert_uint_eq(n, 1);
	ck_assert_uint_eq(x, 15);
	ck_assert_int_eq(dc_pipeline_zb_deferred(4, 1, 2, 10, 25, &n, &x), 0);
	ck_assert_uint_eq(n, 2);
	ck_assert_uint_eq(x, 30);
	ck_assert_int_eq(dc_pipeline_zb_deferred(4, 1, 2, 10, 9, &n, &x), 0);
	ck_assert_uint_eq(x, 0);
	/* every stage of pp 2..10, m 1..24, against the walk */
	for (uint64_t p = 2; p <= 10; p++)
		for (uint64_t m = 1; m <= 24; m++)
			for (uint64_t s = 0; s < p; s++)
				for (int k = 0; k < 5; k++) {
					static const uint64_t ws[5] = {0, 3, 9, 10, 31};
					zb_walk(p, s, m, 10, ws[k], &best);
					ck_assert_int_eq(dc_pipeline_zb_deferred(p, s, m, 10, ws[k], &n, &x), 0);
					ck_assert_uint_eq(x, best - 10 * (p - s < m ? p - s : m));
				}
}
END_TEST

START_TEST(test_classes_by_stage)
{
	/* pp 4, accum 2: in flight min(4 - s, 2) = 2, 2, 2, 1. Stage 0 holds the
	 * embedding, stage 3 the head; stages 1 and 2 are identical: classes
	 * [0], [1-2], [3]; stage 0 (most activations + embedding) is the most
	 * loaded. With tp 2 x pp 4 (dp 1), stage s holds ranks 2s, 2s+1. */
	struct dc_config c;
	struct dc_plan p;
	struct dc_mem_ledger cls[3];
	struct dc_memory_result m;
	const char *err = NULL;

	llama_config(&c);
	c.parallel.tp = 2;
	c.parallel.pp = 4;
	c.parallel.dp = 1;
	c.training.grad_accum_steps = 2;
	fixture_plan(&c, &p);
	ck_assert_int_eq(dc_memory_compute(&p, &m, &err), 0);
	ck_assert_uint_eq(m.nclasses, 3);
	for (uint64_t i = 0; i < 3; i++)
		ck_assert_int_eq(dc_memory_class_at(&p, &m, i, &cls[i]), 0);
	ck_assert_int_eq(dc_memory_class_at(&p, &m, 3, &cls[0]), -1);
	ck_assert_uint_eq(cls[0].stage_first, 0);
	ck_assert_uint_eq(cls[0].stage_last, 0);
	ck_assert_uint_eq(cls[1].stage_first, 1);
	ck_assert_uint_eq(cls[1].stage_last, 2);
	ck_assert_uint_eq(cls[2].stage_first, 3);
	ck_assert_uint_eq(cls[2].stage_last, 3);
	ck_assert_uint_eq(cls[1].in_flight, 2);
	ck_assert_uint_eq(cls[2].in_flight, 1);
	ck_assert_uint_eq(m.most_loaded, 0);
	/* the top ledger is class 0's, stage range included */
	ck_assert_int_eq(memcmp(&m.top, &cls[0], sizeof(m.top)), 0);
}
END_TEST

START_TEST(test_expert_states_shard_over_expert_dp)
{
	/* configs/mixtral-8x7b-ep.json: tp 2, pp 4, dp 4, ep 4, zero1. A middle
	 * stage (1) holds 8 layers; per layer on one rank: attention (q and o
	 * 4096 x 4096, k and v 4096 x 1024) / 2 = 20,971,520, router 4096 x 8 =
	 * 32,768 and two norms 8,192 (dense: 21,012,480), and 8 / 4 = 2 experts
	 * of 3 x 4096 x 14336 / 2 = 88,080,384 (176,160,768). Dense 168,099,840
	 * and experts 1,409,286,144 over 8 layers. ZeRO-1 shards the dense
	 * master/optimizer states over dp = 4 but the experts only over
	 * dp / ep = 1 (Megatron-Core): master = 4 x (42,024,960 + 1,409,286,144)
	 * = 5,805,244,416; Adam = 8 x 1,451,311,104 = 11,610,488,832; params
	 * stay whole: 2 x 1,577,385,984 = 3,154,771,968 */
	struct dc_config c;
	struct dc_mem_ledger l;
	struct dc_diag d;
	char path[512];
	snprintf(path, sizeof(path), "%s/configs/mixtral-8x7b-ep.json", DC_SOURCE_DIR);
	dc_diag_init(&d);
	ck_assert_int_eq(dc_config_load_file(path, NULL, 0, &c, &d), 0);
	dc_diag_release(&d);
	l = stage_ledger(&c, 1);
	ck_assert_uint_eq(l.p.total, 1577385984ull);
	ck_assert_uint_eq(l.p.expert_params, 1409286144ull);
	ck_assert_uint_eq(l.params_bytes, 3154771968ull);
	ck_assert_uint_eq(l.master_bytes, 5805244416ull);
	ck_assert_uint_eq(l.optimizer_bytes, 11610488832ull);
}
END_TEST

/* Uneven stages by hand: 11 layers as [4, 4, 3] on pp 3 (tp 1, dp 1), h 64,
 * 4 heads, SwiGLU f 256, V 1000 untied, 3 microbatches, 16 B/param. A layer
 * holds 4h^2 = 16,384 attention + 3hf = 49,152 MLP + 2h = 128 norm =
 * 65,664 parameters:
 *   stage 0: 4 x 65,664 + embedding 64,000           = 326,656 (5,226,496 B of states)
 *   stage 1: 4 x 65,664                              = 262,656 (4,202,496 B)
 *   stage 2: 3 x 65,664 + final norm 64 + head 64,000 = 261,056 (4,176,896 B)
 * 1F1B holds min(3 - s, 3) = 3, 2, 1 microbatches: 12, 8 and 3
 * layer-microbatches. Every stage is its own class. */
START_TEST(test_uneven_stage_ledgers)
{
	static const uint64_t params[] = {326656, 262656, 261056}, lm[] = {12, 8, 3}, layers[] = {4, 4, 3};
	struct dc_config c;
	struct dc_plan p;
	struct dc_memory_result m;
	struct dc_mem_ledger l;
	const char *err = NULL;

	fixture_json(&c, "{\"model\": {\"num_layers\": 11, \"hidden_size\": 64, \"num_attention_heads\": 4,"
			 " \"ffn_hidden_size\": 256, \"vocab_size\": 1000, \"seq_length\": 128},"
			 " \"cluster\": {\"num_nodes\": 1, \"gpus_per_node\": 3, \"gpu_memory\": \"80 GiB\","
			 " \"intra_node\": {\"bandwidth\": \"300 GB/s\"}, \"inter_node\": {\"bandwidth\": \"50 GB/s\"}},"
			 " \"parallel\": {\"pp\": 3, \"pipeline_layers\": [4, 4, 3]},"
			 " \"training\": {\"grad_accum_steps\": 3}}");
	fixture_plan(&c, &p);
	ck_assert_int_eq(dc_memory_compute(&p, &m, &err), 0);
	ck_assert_uint_eq(m.nclasses, 3);
	for (uint64_t s = 0; s < 3; s++) {
		ck_assert_uint_eq(dc_plan_stage_layers(&p, s), layers[s]);
		ck_assert_int_eq(dc_memory_class_at(&p, &m, s, &l), 0);
		ck_assert_uint_eq(l.stage_first, s);
		ck_assert_uint_eq(l.p.layers, layers[s]);
		ck_assert_uint_eq(l.p.total, params[s]);
		ck_assert_uint_eq(l.model_states_bytes, 16 * params[s]);
		ck_assert_uint_eq(l.activation_layer_microbatches, lm[s]);
	}
	ck_assert_uint_eq(dc_plan_stage_first_layer(&p, 2), 8);
	ck_assert_uint_eq(p.most_stage, 0);
}
END_TEST

/* Llama-3-405B (h 16384, 128 heads, 8 KV heads of 128, SwiGLU f 53248,
 * V 128256 untied, 126 layers) on tp 8 x pp 8: 126 does not split over 8
 * stages, so Megatron gives the first and last stages 15 layers
 * (--decoder-first/last-pipeline-num-layers 15) or counts the embedding and
 * the loss as a layer each ((126 + 2) / 8 = 16 per stage, one short at
 * either end): the same [15, 16 x 6, 15]. Per tp rank a layer holds
 * (q 16384^2 + k, v 16384 x 1024 each + o 16384^2 + 3 x 16384 x 53248) / 8
 * = 3,187,671,040 / 8 = 398,458,880 plus 2 x 16384 norm = 398,491,648, the
 * vocab-parallel embedding 128256 x 16384 / 8 = 262,668,288:
 *   stage 0      15 x 398,491,648 + 262,668,288          = 6,240,043,008
 *   stages 1-6   16 x 398,491,648                         = 6,375,866,368 (the most)
 *   stage 7      15 x 398,491,648 + 16,384 + 262,668,288 = 6,240,059,392 */
static void llama405b(struct dc_config *c, const char *split)
{
	fixture_json(c,
		     "{\"model\": {\"num_layers\": 126, \"hidden_size\": 16384, \"num_attention_heads\": 128,"
		     " \"num_kv_heads\": 8, \"ffn_hidden_size\": 53248, \"vocab_size\": 128256, \"seq_length\": 8192},"
		     " \"cluster\": {\"num_nodes\": 8, \"gpus_per_node\": 8, \"gpu_memory\": \"80 GiB\","
		     " \"intra_node\": {\"bandwidth\": \"300 GB/s\"}, \"inter_node\": {\"bandwidth\": \"50 GB/s\"}},"
		     " \"parallel\": {\"tp\": 8, \"pp\": 8, %s}, \"training\": {\"grad_accum_steps\": 16}}",
		     split);
}

START_TEST(test_llama_405b_first_last_forms)
{
	static const char *const forms[] = {"\"first_stage_layers\": 15, \"last_stage_layers\": 15",
					    "\"account_for_embedding\": true, \"account_for_loss\": true",
					    "\"pipeline_layers\": [15, 16, 16, 16, 16, 16, 16, 15]"};
	for (size_t f = 0; f < 3; f++) {
		struct dc_config c;
		struct dc_plan p;
		struct dc_stage_params sp;
		llama405b(&c, forms[f]);
		fixture_plan(&c, &p);
		ck_assert_uint_eq(p.runs.n, 3);
		for (uint64_t s = 0; s < 8; s++)
			ck_assert_uint_eq(dc_plan_stage_layers(&p, s), s == 0 || s == 7 ? 15 : 16);
		ck_assert_int_eq(dc_stage_params_compute(&p, 0, &sp), 0);
		ck_assert_uint_eq(sp.total, 6240043008ull);
		ck_assert_int_eq(dc_stage_params_compute(&p, 3, &sp), 0);
		ck_assert_uint_eq(sp.total, 6375866368ull);
		ck_assert_int_eq(dc_stage_params_compute(&p, 7, &sp), 0);
		ck_assert_uint_eq(sp.total, 6240059392ull);
		ck_assert_uint_eq(p.most_stage, 1);
		ck_assert_uint_eq(p.most.total, 6375866368ull);
	}
}
END_TEST

/* DeepSeek-V3 (configs/models/deepseek-v3.json) as trained (arXiv
 * 2412.19437 section 3.2): 2048 GPUs, PP16 with the 61 layers as 4 on each
 * of 15 stages and 1 on the last, EP64, ZeRO-1, tp 1, so dp 128 and the
 * experts' replicas dp / ep = 2. By hand from the shape (h 7168, 128 heads,
 * MLA q rank 1536, kv rank 512, nope 128, rope 64, v 128; 256 experts of
 * 3 x 7168 x 2048 = 44,040,192, one shared of the same size, the router
 * 7168 x 256 + 256 score biases; 3 dense layers of f 18432; V 129280):
 *   MLA   7168 x 1536 + 1536 + 1536 x 128 x 192 + 7168 x 576 + 512
 *         + 512 x 128 x 256 + 128 x 128 x 7168            = 187,107,328
 *   dense layer 187,107,328 + 3 x 7168 x 18432 + 2 x 7168 = 583,483,392
 *   MoE layer   187,107,328 + 44,040,192 (shared) + 4 x 44,040,192 (256 / 64
 *               local experts) + 14,336 + 1,835,264       = 409,157,888
 *   stage 0     3 x 583,483,392 + 409,157,888 + 926,679,040 (7168 x 129280)
 *                                                         = 3,086,287,104
 *   stages 1-14 4 x 409,157,888                           = 1,636,631,552
 *   stage 15    409,157,888 + 7168 + 926,679,040          = 1,335,844,096
 *               + the MTP module (num_nextn_predict_layers 1, after the
 *               last layer): a MoE layer 409,157,888 + eh_proj 2 x 7168^2
 *               102,760,448 + 3 norms 21,504 = 511,939,840 = 1,847,783,936
 *               + the module's own embedding, 926,679,040 (Megatron-Core
 *               builds a LanguageModelEmbedding on the chunk that runs the
 *               modules: gpt_model.py:173 at d98e8a64) = 2,774,462,976
 * ZeRO-1 on stage 1: the 931,988,480 non-expert parameters' master and
 * Adam states over 128 ranks (7,281,160 each), the 704,643,072 expert ones
 * over 2 (352,321,536): master 4 x 359,602,696 = 1,438,410,784 B, Adam
 * 2,876,821,568 B. Stage 15: the copy is a parameter as any other there,
 * BF16 weights and gradients, 2 x 2,774,462,976 = 5,548,925,952 B each;
 * its experts 2 x 4 x 44,040,192 = 352,321,536 over 2 (176,160,768), the
 * other 2,422,141,440 over 128 (18,922,980): master 4 x 195,083,748 =
 * 780,334,992 B, Adam 1,560,669,984 B (without the copy: 1,495,462,400 /
 * 128 = 11,683,300, master 751,376,272 B). 120 microbatches >= 16 stages:
 * every stage holds a different number in flight (16 - s), so each is its
 * own class. */
START_TEST(test_deepseek_v3_pp16_ep64)
{
	static const uint64_t layers[] = {4, 4, 1};
	static const uint64_t params[] = {3086287104ull, 1636631552ull, 2774462976ull};
	struct dc_config c;
	struct dc_diag d;
	struct dc_plan p;
	struct dc_memory_result m;
	struct dc_mem_ledger l;
	const char *err = NULL;

	dc_diag_init(&d);
	ck_assert_int_eq(dc_config_load_file(DC_SOURCE_DIR "/tests/inputs/deepseek-v3-pp16.json", NULL, 0, &c, &d), 0);
	dc_diag_release(&d);
	fixture_plan(&c, &p);
	ck_assert_uint_eq(p.world, 2048);
	ck_assert_uint_eq(p.layout.dp, 128);
	ck_assert_uint_eq(p.expert_dp, 2);
	ck_assert_int_eq(dc_memory_compute(&p, &m, &err), 0);
	ck_assert_uint_eq(m.nclasses, 16);
	for (uint64_t s = 0; s < 16; s++) {
		uint64_t k = s == 0 ? 0 : s < 15 ? 1 : 2;
		ck_assert_int_eq(dc_memory_class_at(&p, &m, s, &l), 0);
		ck_assert_uint_eq(l.stage_first, s);
		ck_assert_uint_eq(l.stage_last, s);
		ck_assert_uint_eq(l.p.layers, layers[k]);
		ck_assert_uint_eq(l.p.total, params[k]);
		ck_assert_uint_eq(l.p.dense_layers, s == 0 ? 3 : 0);
		ck_assert_uint_eq(l.in_flight, 16 - s);
		if (s == 1) {
			ck_assert_uint_eq(l.master_bytes, 1438410784ull);
			ck_assert_uint_eq(l.optimizer_bytes, 2876821568ull);
		}
		if (s == 15) {
			ck_assert_uint_eq(l.params_bytes, 5548925952ull);
			ck_assert_uint_eq(l.grads_bytes, 5548925952ull);
			ck_assert_uint_eq(l.master_bytes, 780334992ull);
			ck_assert_uint_eq(l.optimizer_bytes, 1560669984ull);
		}
	}
}
END_TEST

/* DualPipeV with an MTP module: DeepSeek-V3's shape cut to 8 layers
 * (first 3 dense), tp 1, pp 2, ep 4 on 8 GPUs, 4 chunks of 2 layers. Rank 0
 * holds chunks 0 (layers 0-1, dense) and 3 (layers 6-7, MoE, and the head):
 * 2 x 583,483,392 + 2 x 3,051,569,408 (a MoE layer with 64 local experts,
 * check_params.c) + the embedding 926,679,040 + final norm 7,168 + head
 * 926,679,040 + the MTP module after layer 7 (a MoE layer 3,051,569,408 +
 * eh_proj 102,760,448 + 3 norms 21,504 = 3,154,351,360) = 12,277,822,208
 * + the module's own embedding on chunk 3, which is not the embedding's
 * chunk (Megatron-Core builds one per model chunk that runs the modules,
 * gpt_model.py:173 at d98e8a64) 926,679,040 = 13,204,501,248, of which
 * routed experts 3 x 64 x 44,040,192 = 8,455,716,864. */
START_TEST(test_dualpipev_mtp_on_head_rank)
{
	char json[1024];
	struct dc_config c;
	struct dc_diag d;
	struct dc_stage_params r;
	snprintf(json, sizeof(json),
		 "{\"model\": {\"hf_config\": \"%s/configs/models/deepseek-v3.json\", \"seq_length\": 4096,"
		 " \"num_layers\": 8},"
		 " \"cluster\": {\"num_nodes\": 1, \"gpus_per_node\": 8, \"gpu_memory\": \"80 GiB\","
		 "   \"intra_node\": {\"bandwidth\": \"300 GB/s\"}, \"inter_node\": {\"bandwidth\": \"50 GB/s\"}},"
		 " \"parallel\": {\"tp\": 1, \"pp\": 2, \"ep\": 4, \"pipeline_schedule\": \"dualpipev\"},"
		 " \"training\": {\"micro_batch_size\": 1, \"grad_accum_steps\": 8}}",
		 DC_SOURCE_DIR);
	dc_diag_init(&d);
	ck_assert_msg(dc_config_load_buffer(json, strlen(json), "t.json", NULL, 0, &c, &d) == 0, "%s",
		      d.count ? d.entries[0].text : "?");
	dc_diag_release(&d);
	ck_assert_int_eq(dc_memory_rank_params(plan_of(&c), 0, &r), 0);
	ck_assert_uint_eq(r.layers, 4);
	ck_assert_uint_eq(r.dense_layers, 2);
	ck_assert_uint_eq(r.total, 13204501248ull);
	ck_assert_uint_eq(r.expert_params, 8455716864ull);
}
END_TEST

/* The MTP modules' own embedding (Megatron-Core at d98e8a64): a model
 * chunk that runs the modules builds a LanguageModelEmbedding when it is
 * not the first (gpt_model.py:173, `pre_process or mtp_process`); without
 * a pipeline the one chunk holds one table. DeepSeek-V3's shape cut to 8
 * layers (check_params.c test_placement_dense_layers_pp), ep 4, tp 1:
 *   pp 2: stage 1 = 4 MoE layers 12,206,277,632 + final norm 7,168 + head
 *         926,679,040 + MTP module 3,154,351,360 + its embedding
 *         926,679,040 = 17,213,994,240
 *   pp 1: stage 0 = 3 dense 1,750,450,176 + 5 MoE 15,257,847,040 +
 *         embedding 926,679,040 + final norm 7,168 + head 926,679,040 +
 *         MTP module 3,154,351,360 = 22,016,013,824 (one table for both)
 *   tied embeddings, pp 2: the same 17,213,994,240 on stage 1 (the tied
 *         head's output weight is still allocated there, pre_process
 *         false: gpt_model.py:289-290, beside the module's embedding)
 *   without the module (mtp_layers 0), pp 2: 13,132,963,840 (no copy). */
START_TEST(test_mtp_embedding_copy)
{
	static const struct {
		uint64_t pp, mtp;
		const char *tie;
		uint64_t last;
	} rows[] = {
		{2, 1, "false", 17213994240ull},
		{1, 1, "false", 22016013824ull},
		{2, 1, "true", 17213994240ull},
		{2, 0, "false", 13132963840ull},
	};
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		char json[1024];
		struct dc_config c;
		struct dc_diag d;
		struct dc_stage_params sp;
		snprintf(json, sizeof(json),
			 "{\"model\": {\"hf_config\": \"%s/configs/models/deepseek-v3.json\", \"seq_length\": 4096,"
			 " \"num_layers\": 8, \"mtp_layers\": %llu, \"tie_word_embeddings\": %s},"
			 " \"cluster\": {\"num_nodes\": 1, \"gpus_per_node\": 8, \"gpu_memory\": \"80 GiB\","
			 "   \"intra_node\": {\"bandwidth\": \"300 GB/s\"}, \"inter_node\": {\"bandwidth\": \"50 GB/s\"}},"
			 " \"parallel\": {\"pp\": %llu, \"ep\": 4}}",
			 DC_SOURCE_DIR, (unsigned long long)rows[i].mtp, rows[i].tie, (unsigned long long)rows[i].pp);
		dc_diag_init(&d);
		ck_assert_msg(dc_config_load_buffer(json, strlen(json), "t.json", NULL, 0, &c, &d) == 0, "%s",
			      d.count ? d.entries[0].text : "?");
		dc_diag_release(&d);
		ck_assert_int_eq(dc_stage_params_compute(plan_of(&c), rows[i].pp - 1, &sp), 0);
		ck_assert_msg(sp.total == rows[i].last, "row %zu: %llu", i, (unsigned long long)sp.total);
	}
}
END_TEST

/* Interleaved 1F1B with dense and MoE layers: each chunk's layers at that
 * chunk's own microbatches in flight (docs/memory-conventions.md,
 * "Pipeline schedules"). 8 layers of the small GELU shape (h 1024, 8 heads
 * of 128, f 4096, s 1024, b 1, flash attention, tp 1, no dropout: sbh
 * 1,048,576), the first 2 dense, the rest MoE with 4 experts of 2048, top
 * 2 (f = 2 x 2048 = 4096, as the dense MLP). A dense layer keeps norm
 * inputs 4sbh, Q/K/V input 2sbh, Q and K 4sbh, V 2sbh, the logsumexp 4asb =
 * 32,768, the attention output 2sbh, the MLP input 2sbh, fc1's output and
 * GELU's 2sbf each (8sbh each): 32sbh + 32,768 = D = 33,587,200; a MoE
 * layer the same and its 2 routed copies 2sbkh = 4sbh: M = 37,781,504.
 * pp 2, v 2, 2 layers a chunk: stage 0 holds layers 0-1 (dense, chunk 0)
 * and 4-5 (MoE, chunk 1), stage 1 layers 2-3 and 6-7 (MoE). m 8: stage 0
 * holds n = min(16, 2 x 1 + 1 x 2 + 1) = 5 chunk-microbatches, blocks of
 * pp = 2 a chunk: chunk 0 holds 2 + 1 = 3, chunk 1 2; stage 1 n = 3: 2 and
 * 1. Stage 0: 2 x 3 x D + 2 x 2 x M = 201,523,200 + 151,126,016 =
 * 352,649,216 over 10 layer-microbatches (the stage's average layer times
 * 10 would say 10 x (2D + 2M) / 4 = 356,843,520); stage 1: 6M =
 * 226,689,024. Full recompute with recompute_layers 1 (the first layer of
 * each chunk keeps its input 2sbh = 2,097,152): stage 0's chunk 0 keeps
 * I + D for 3 microbatches, chunk 1 I + M for 2: 5 x 2,097,152 + 3 x D + 2 x
 * M = 10,485,760 + 100,761,600 + 75,563,008 = 186,810,368. */
START_TEST(test_interleaved_dense_and_moe_chunks)
{
	struct dc_config c;
	struct dc_mem_ledger l;
	const struct dc_plan *p;
	fixture_json(&c, "{\"model\": {\"num_layers\": 8, \"hidden_size\": 1024, \"num_attention_heads\": 8,"
			 " \"ffn_hidden_size\": 4096, \"mlp\": \"gelu\", \"vocab_size\": 1000, \"seq_length\": 1024,"
			 " \"num_experts\": 4, \"experts_per_token\": 2, \"moe_ffn_hidden_size\": 2048,"
			 " \"dense_layers\": 2},"
			 " \"cluster\": {\"num_nodes\": 1, \"gpus_per_node\": 2, \"gpu_memory\": \"80 GiB\","
			 " \"intra_node\": {\"bandwidth\": \"300 GB/s\"}, \"inter_node\": {\"bandwidth\": \"50 GB/s\"}},"
			 " \"parallel\": {\"pp\": 2, \"virtual_pipeline\": 2},"
			 " \"training\": {\"micro_batch_size\": 1, \"grad_accum_steps\": 8}}");
	p = plan_of(&c);
	ck_assert_int_eq(dc_pipeline_schedule(p), DC_PIPE_INTERLEAVED);
	ck_assert_uint_eq(pl_kept(p, 0), 33587200ull);
	ck_assert_uint_eq(pl_kept(p, 1), 37781504ull);
	ck_assert_uint_eq(dc_pipeline_in_flight_chunk(p, 0, 0), 3);
	ck_assert_uint_eq(dc_pipeline_in_flight_chunk(p, 0, 1), 2);
	ck_assert_uint_eq(dc_pipeline_in_flight_chunk(p, 1, 0), 2);
	ck_assert_uint_eq(dc_pipeline_in_flight_chunk(p, 1, 1), 1);
	l = stage_ledger(&c, 0);
	ck_assert_uint_eq(l.p.dense_layers, 2);
	ck_assert_uint_eq(l.activation_layer_microbatches, 10);
	ck_assert_uint_eq(l.activation_layers_bytes, 352649216ull);
	l = stage_ledger(&c, 1);
	ck_assert_uint_eq(l.activation_layer_microbatches, 6);
	ck_assert_uint_eq(l.activation_layers_bytes, 226689024ull);
	c.training.recompute = DC_RECOMPUTE_FULL;
	c.training.recompute_layers = 1;
	ck_assert_uint_eq(stage_ledger(&c, 0).activation_layers_bytes, 186810368ull);
}
END_TEST

/* configs/deepseek-v3-bridge-h100.json (pp 8, v 4, m 128; Megatron-Core's
 * layout: chunk 0 of stage 0 one layer, every other chunk 2): a dense
 * layer keeps D = 679,477,248 B a microbatch, a MoE layer M = 914,358,272
 * (the dense one and 2sbkh/t = 234,881,024 of routed copies: s 4096, h
 * 7168, k 8, t 2). Stage 0 holds n = 2 x 7 + 3 x 8 + 1 = 39
 * chunk-microbatches: 8 + 7 = 15 of chunk 0 (layer 0, dense), 8 of each
 * later chunk (2 MoE layers): 15D + 48M = 54,081,355,776. Stage 1, n = 37:
 * 13 of chunk 0 (layers 1-2, dense) and 8 of each of 3 MoE chunks: 26D +
 * 48M = 61,555,605,504. Stage 2 holds only MoE layers: n = 35, 70
 * layer-microbatches, 70M = 64,005,079,040. */
static void load_bridge(struct dc_config *c)
{
	struct dc_diag d;
	dc_diag_init(&d);
	ck_assert_int_eq(dc_config_load_file(DC_SOURCE_DIR "/configs/deepseek-v3-bridge-h100.json", NULL, 0, c, &d), 0);
	dc_diag_release(&d);
}

START_TEST(test_deepseek_v3_interleaved_dense_chunk)
{
	struct dc_config c;
	const struct dc_plan *p;
	load_bridge(&c);
	p = plan_of(&c);
	ck_assert_uint_eq(pl_kept(p, 0), 679477248ull);
	ck_assert_uint_eq(pl_kept(p, 1), 914358272ull);
	ck_assert_uint_eq(dc_pipeline_in_flight_chunk(p, 0, 0), 15);
	ck_assert_uint_eq(dc_pipeline_in_flight_chunk(p, 1, 0), 13);
	ck_assert_uint_eq(stage_ledger(&c, 0).activation_layers_bytes, 54081355776ull);
	ck_assert_uint_eq(stage_ledger(&c, 1).activation_layers_bytes, 61555605504ull);
	ck_assert_uint_eq(stage_ledger(&c, 2).activation_layers_bytes, 64005079040ull);
}
END_TEST

/* The same stages under the recipe's own recompute modules (Megatron-
 * Bridge's deepseek_v3_pretrain_1024gpu_h100_bf16_config: selective with
 * recompute_modules ["mla_up_proj", "mlp"]): mla_up_proj drops q, k and v,
 * 2 s b (2 a d_qk + a d_v) / t = 2 x 4096 x (2 x 128 x 192 + 128 x 128)
 * / 2 = 268,435,456 from every layer; mlp a dense layer's MLP input 2sbh/t
 * = 29,360,128 (SP), fc1's output 4 s b f / t = 150,994,944 and the
 * activation's 2 s b f / t = 75,497,472 (f 18432); the core is no longer
 * recomputed, so its statistics 4 a s b / t = 1,048,576 stay. D' =
 * 679,477,248 - 268,435,456 - 255,852,544 + 1,048,576 = 156,237,824; M' =
 * 914,358,272 - 268,435,456 + 1,048,576 = 646,971,392. Stage 0: 15 D' +
 * 48 M' = 33,398,194,176; stage 1: 26 D' + 48 M' = 35,116,810,240; stage
 * 2: 70 M' = 45,287,997,440. shared_experts alone drops the shared
 * expert's part of fc1's output, 4 s b f_s / t = 4 x 4096 x 2048 / 2 =
 * 16,777,216, and of the activation's, 8,388,608 (the routed experts'
 * 134,217,728 and 67,108,864 stay), and keeps the statistics: a MoE
 * layer 914,358,272 + 1,048,576 - 25,165,824 = 890,241,024. */
START_TEST(test_deepseek_v3_recompute_modules)
{
	struct dc_config c;
	const struct dc_plan *p;
	load_bridge(&c);
	c.training.framework = DC_FRAMEWORK_MEGATRON;
	c.training.recompute_modules_mask = DC_RCM(DC_RCM_MLA_UP_PROJ) | DC_RCM(DC_RCM_MLP);
	p = plan_of(&c);
	ck_assert_uint_eq(pl_kept(p, 0), 156237824ull);
	ck_assert_uint_eq(pl_kept(p, 1), 646971392ull);
	ck_assert_uint_eq(stage_ledger(&c, 0).activation_layers_bytes, 33398194176ull);
	ck_assert_uint_eq(stage_ledger(&c, 1).activation_layers_bytes, 35116810240ull);
	ck_assert_uint_eq(stage_ledger(&c, 2).activation_layers_bytes, 45287997440ull);
	c.training.recompute_modules_mask = DC_RCM(DC_RCM_SHARED_EXPERTS);
	ck_assert_uint_eq(pl_kept(plan_of(&c), 1), 890241024ull);
}
END_TEST

START_TEST(test_activation_override)
{
	/* 1000.5 bytes per token per layer, micro 2, s 1000: ceil(1000.5 x 2000)
	 * = 2,001,000 per layer; x 32 layers x 1 in flight = 64,032,000. The
	 * override replaces the per-layer term only: the final norm and head
	 * inputs 4 sbh = 32,768,000 and logits 4 x 2000 x 32000 / 4 =
	 * 64,000,000 stay: 160,800,000 (no dropout: no embedding mask; with
	 * it, sbh = 2000 x 4096 = 8,192,000 more: 168,992,000) */
	struct dc_config c;
	struct dc_mem_ledger l;

	llama_config(&c);
	c.training.micro_batch_size = 2;
	c.model.seq_length = 1000;
	c.memory.activation_explicit = 1;
	c.memory.activation_bytes_per_token_per_layer = 1000.5;
	l = stage_ledger(&c, 0);
	ck_assert_uint_eq(l.activation_bytes_per_layer, 2001000ull);
	ck_assert_uint_eq(l.activation_layers_bytes, 64032000ull);
	ck_assert_uint_eq(l.activations_bytes, 160800000ull);
	c.model.dropout = 1;
	l = stage_ledger(&c, 0);
	ck_assert_uint_eq(l.activations_bytes, 168992000ull);
}
END_TEST

START_TEST(test_overflow_names_keys)
{
	struct dc_config c;
	struct dc_mem_ledger l;
	struct dc_plan p;
	struct dc_memory_result m;
	const char *err = NULL;

	/* past what the loader accepts: a hand-made config reaching the
	 * estimator still gets an error, not a wrapped number */
	zero_config(&c, 7500000000ull, 1, DC_SHARD_NONE);
	c.model.params = UINT64_MAX / 8;
	fixture_plan(&c, &p);
	ck_assert_int_eq(dc_memory_stage(&p, 0, &l, &err), -1);
	ck_assert_str_eq(err, "'model' x 'precision': model-state bytes per rank overflow 64 bits");
	err = NULL;
	ck_assert_int_eq(dc_memory_compute(&p, &m, &err), -1);
	ck_assert_str_eq(err, "'model' x 'precision': model-state bytes per rank overflow 64 bits");
}
END_TEST

/* The allocator reserve is the ceiling of fraction x subtotal as doubles
 * compute it: 0.05 x 100 rounds to 5 exactly, 0.07 x 100 to
 * 7.000000000000001 (0.07 is a hair above 7/100), so 8; 0.5 x 3 = 1.5,
 * so 2; nothing reserves nothing; 0.5 x 2^60 = 2^59, whole, past 2^52
 * where every double is. */
START_TEST(test_reserve_rounding)
{
	ck_assert_uint_eq(dc_mem_reserve_bytes(100, 0.05), 5);
	ck_assert_uint_eq(dc_mem_reserve_bytes(100, 0.07), 8);
	ck_assert_uint_eq(dc_mem_reserve_bytes(3, 0.5), 2);
	ck_assert_uint_eq(dc_mem_reserve_bytes(0, 0.05), 0);
	ck_assert_uint_eq(dc_mem_reserve_bytes(1ull << 60, 0.5), 1ull << 59);
}
END_TEST

/* configs/NAME with `sets`, its memory with `memo` lent to the plan
 * (NULL: none), into *out (zeroed first, so padding compares); 0 when
 * the loader rejects the sets (the layout does not fit the model) */
static int memory_with(const char *name, const char *const *sets, struct dc_mem_memo *memo,
		       struct dc_memory_result *out)
{
	static struct dc_config cfg;
	static struct dc_plan p;
	char path[512];
	struct dc_override ov[8];
	size_t n = 0;
	struct dc_diag d;
	const char *err = NULL;
	snprintf(path, sizeof(path), "%s/configs/%s", DC_SOURCE_DIR, name);
	while (sets && sets[n] && n < 8) {
		ov[n] = (struct dc_override){sets[n], 0};
		n++;
	}
	dc_diag_init(&d);
	if (dc_config_load_file(path, ov, n, &cfg, &d) != 0) {
		dc_diag_release(&d);
		return 0;
	}
	dc_diag_release(&d);
	if (dc_plan_derive(&cfg, &p) != 0)
		ck_abort_msg("%s: plan: %s", name, p.error);
	p.mem_memo = memo;
	memset(out, 0, sizeof(*out));
	if (dc_memory_compute(&p, out, &err) != 0)
		ck_abort_msg("%s: %s", name, err);
	return 1;
}

/* A search's ledger memo (memory.h) gives every layout the memory it has
 * without one, bit for bit, whatever it held before: the same layout
 * again (every input the same), another sharding (the activation part
 * reused), each key it reads changed alone (the microbatch, the
 * recompute policy and its layer count, the schedule, an explicit
 * activation figure), DualPipeV and uneven stages (never memoised), and
 * another model. */
/* torchtitan has no expert tensor-parallel size: with EP its experts take
 * their tokens whole (etp 1), so on configs/mixtral-8x7b-ep.json (tp 2,
 * ep 4, pp 4: 8 layers a stage) a rank holds 8 / 4 = 2 whole experts of
 * 3 x 4096 x 14336 = 176,160,768 parameters in each of its 8 layers,
 * 2,818,572,288, where Megatron's default etp = tp = 2 splits each in
 * two: 1,409,286,144. A given etp other than 1 at ep > 1 is refused under
 * torchtitan; 1 is accepted. */
START_TEST(test_torchtitan_experts_whole_with_ep)
{
	static const char *const meg[] = {"training.framework=megatron", "parallel.sequence_parallel=true", NULL};
	static const char *const tt[] = {"training.framework=torchtitan", "parallel.sequence_parallel=true", NULL};
	static const char *const tt2[] = {"training.framework=torchtitan", "parallel.sequence_parallel=true",
					  "parallel.etp=2", NULL};
	static const char *const tt1[] = {"training.framework=torchtitan", "parallel.sequence_parallel=true",
					  "parallel.etp=1", NULL};
	struct dc_memory_result m, t;
	ck_assert(memory_with("mixtral-8x7b-ep.json", meg, NULL, &m));
	ck_assert_uint_eq(m.top.p.expert_params, 1409286144ull);
	ck_assert(memory_with("mixtral-8x7b-ep.json", tt, NULL, &t));
	ck_assert_uint_eq(t.top.p.expert_params, 2818572288ull);
	ck_assert_uint_eq(t.top.p.total - m.top.p.total, 1409286144ull);
	ck_assert(!memory_with("mixtral-8x7b-ep.json", tt2, NULL, &t));
	ck_assert(memory_with("mixtral-8x7b-ep.json", tt1, NULL, &t));
	ck_assert_uint_eq(t.top.p.expert_params, 2818572288ull);
}
END_TEST

START_TEST(test_mem_memo_changes_nothing)
{
	static const char *const none[] = {"parallel.sharding=none", NULL};
	static const char *const zero1[] = {"parallel.sharding=zero1", NULL};
	static const char *const fsdp[] = {"parallel.sharding=fsdp", NULL};
	static const char *const mbs2[] = {"training.micro_batch_size=2", "training.grad_accum_steps=32", NULL};
	static const char *const full2[] = {"training.recompute=\"full\"", "training.recompute_layers=2", NULL};
	static const char *const full3[] = {"training.recompute=\"full\"", "training.recompute_layers=3", NULL};
	static const char *const zb[] = {"parallel.pipeline_schedule=zero_bubble", "parallel.virtual_pipeline=1", NULL};
	static const char *const f1b[] = {"parallel.virtual_pipeline=1", NULL};
	static const char *const dpv[] = {"parallel.pipeline_schedule=dualpipev", "parallel.virtual_pipeline=1", NULL};
	static const char *const expl[] = {"memory.activation_bytes_per_token_per_layer=34000", NULL};
	static const struct {
		const char *name;
		const char *const *sets;
	} runs[] = {
		{"korthikanti-175b.json", none},  {"korthikanti-175b.json", none},  {"korthikanti-175b.json", zero1},
		{"korthikanti-175b.json", fsdp},  {"korthikanti-175b.json", mbs2},  {"korthikanti-175b.json", full2},
		{"korthikanti-175b.json", full3}, {"korthikanti-175b.json", full2}, {"korthikanti-175b.json", zb},
		{"korthikanti-175b.json", f1b},   {"korthikanti-175b.json", dpv},   {"korthikanti-175b.json", f1b},
		{"korthikanti-175b.json", expl},  {"korthikanti-175b.json", none},  {"deepseek-v3-bridge-h100.json", NULL},
		{"korthikanti-530b.json", NULL},  {"korthikanti-175b.json", none},  {"mixtral-8x7b-ep.json", NULL},
	};
	static struct dc_memory_result fresh, memoised;
	struct dc_mem_memo *memo = dc_mem_memo_new();
	size_t ran = 0;
	ck_assert_ptr_nonnull(memo);
	for (size_t i = 0; i < sizeof(runs) / sizeof(runs[0]); i++) {
		if (!memory_with(runs[i].name, runs[i].sets, NULL, &fresh))
			continue;
		ck_assert(memory_with(runs[i].name, runs[i].sets, memo, &memoised));
		ck_assert_msg(memcmp(&fresh, &memoised, sizeof(fresh)) == 0,
			      "run %zu (%s): peak %llu B without the memo, %llu B with it", i, runs[i].name,
			      (unsigned long long)fresh.top.peak_bytes, (unsigned long long)memoised.top.peak_bytes);
		ran++;
	}
	/* every run but none loads */
	ck_assert_uint_eq(ran, sizeof(runs) / sizeof(runs[0]));
	dc_mem_memo_free(memo);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("memory");
	TCase *tc = tcase_create("core");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, test_zero_table1_7_5b);
	tcase_add_test(tc, test_zero_table1_other_cells);
	tcase_add_test(tc, test_pipeline_first_stage_holds_l_layers);
	tcase_add_test(tc, test_stage_params_llama);
	tcase_add_test(tc, test_course_ledger);
	tcase_add_test(tc, test_precision_presets_ledger);
	tcase_add_test(tc, test_torchtitan_embedding_unit_ledger);
	tcase_add_test(tc, test_offload_host_ledger);
	tcase_add_test(tc, test_offload_deepspeed_host_buffers);
	tcase_add_test(tc, test_offload_deepspeed_zero3_host);
	tcase_add_test(tc, test_offload_host_grads_moe_cp);
	tcase_add_test(tc, test_hsdp_2x4_states);
	tcase_add_test(tc, test_fsdp_working_set);
	tcase_add_test(tc, test_fsdp_pipeline_holds_stage_grads);
	tcase_add_test(tc, test_dualpipe_two_stages_pp_plus_one);
	tcase_add_test(tc, test_dualpipe_uneven_stages);
	tcase_add_test(tc, test_dualpipe_end_ranks_share_the_embedding);
	tcase_add_test(tc, test_dualpipev_v_placement);
	tcase_add_test(tc, test_zero_bubble_deferred_w_by_hand);
	tcase_add_test(tc, test_zero_bubble_classes_below_pp);
	tcase_add_test(tc, test_zero_bubble_w_is_qi_table1);
	tcase_add_test(tc, test_zero_bubble_deferred_states);
	tcase_add_test(tc, test_classes_by_stage);
	tcase_add_test(tc, test_expert_states_shard_over_expert_dp);
	tcase_add_test(tc, test_uneven_stage_ledgers);
	tcase_add_test(tc, test_llama_405b_first_last_forms);
	tcase_add_test(tc, test_deepseek_v3_pp16_ep64);
	tcase_add_test(tc, test_activation_override);
	tcase_add_test(tc, test_interleaved_dense_and_moe_chunks);
	tcase_add_test(tc, test_deepseek_v3_interleaved_dense_chunk);
	tcase_add_test(tc, test_deepseek_v3_recompute_modules);
	tcase_add_test(tc, test_overflow_names_keys);
	tcase_add_test(tc, test_dualpipev_mtp_on_head_rank);
	tcase_add_test(tc, test_mtp_embedding_copy);
	tcase_add_test(tc, test_mem_memo_changes_nothing);
	tcase_add_test(tc, test_torchtitan_experts_whole_with_ep);
	tcase_add_test(tc, test_reserve_rounding);
	tcase_add_test(tc, test_fp8_weight_copies);
	tcase_add_test(tc, test_deepspeed_one_bucket_without_overlap);
	tcase_add_test(tc, test_fp8_weight_copies_mtp);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
