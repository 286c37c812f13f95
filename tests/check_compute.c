/* check_compute.c - the kernel-time model (compute.h, docs/compute-model.md).
 *
 * Published figures: Korthikanti et al. 2022, "Reducing Activation
 * Recomputation in Large Transformer Models", Table 4 (time per
 * transformer layer of the 22B model on Selene A100s, TP 8, micro batch 4,
 * s 2048), copied from ../shared/reference/step-time.md into
 * tests/published/korthikanti2022.h:
 *
 *   experiment                forward (ms)  backward (ms)
 *   baseline no recompute         7.7          11.9
 *   sequence parallelism          7.2          11.8
 *   baseline with recompute       7.7          19.5
 *   selective recompute           7.7          13.2
 *   selective + sequence          7.2          13.1
 *
 * A measured layer time holds its tensor-parallel collectives too. They
 * come from the comm estimator (the network model), composed as
 * Megatron-LM runs them (docs/compute-model.md, "Table 4"): every forward
 * collective is on the critical path; in backward each column-parallel
 * linear's input-gradient AllReduce (or, with sequence parallelism,
 * ReduceScatter) runs behind that linear's weight-gradient GEMM and its
 * input's re-gather behind its input-gradient GEMM, while sequence
 * parallelism's AllGather of the output gradient and the collectives of a
 * recomputed forward are exposed.
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "distcalc/config.h"
#include "distcalc/framework.h"
#include "distcalc/plan.h"
#include "distcalc/results.h"
#include "distcalc/step.h"
#include "published/korthikanti2022.h"
#include "tp_ends.h"

#define K22B DC_SOURCE_DIR "/configs/korthikanti-22b.json"
#define SYSTEMS DC_SOURCE_DIR "/configs/systems.json"
/* a config that names no GPU (llama-3-8b.json: no cluster.gpu, peak or bandwidth) */
#define NO_GPU DC_SOURCE_DIR "/configs/llama-3-8b.json"

struct run {
	struct dc_config cfg;
	struct dc_plan plan;
	struct dc_results r;
};

/* Loads `path` with `sets` and runs the compute and comm estimators. */
static struct run *run(const char *path, const char *const *sets, size_t nsets)
{
	struct run *x = calloc(1, sizeof(*x));
	struct dc_override ov[24];
	struct dc_diag d;
	ck_assert(x && nsets <= 24);
	for (size_t i = 0; i < nsets; i++)
		ov[i] = (struct dc_override){sets[i], 0};
	dc_diag_init(&d);
	ck_assert_msg(dc_config_load_file(path, ov, nsets, &x->cfg, &d) == 0, "%s", d.count ? d.entries[0].text : "?");
	dc_diag_release(&d);
	ck_assert_int_eq(dc_plan_derive(&x->cfg, &x->plan), 0);
	ck_assert_int_eq(dc_estimate(&x->plan, DC_EST_BIT(DC_EST_COMPUTE) | DC_EST_BIT(DC_EST_COMM), &x->r), 0);
	return x;
}

/* The 22B as Megatron-LM's GPT runs it (Korthikanti et al. 2022 section
 * 6: GPT with LayerNorm, biases, learned positions, dropout, the eager
 * attention of 2022) on the A100 preset. */
static const char *const megatron_gpt[] = {
	"cluster.gpu=a100-sxm4-80gb", "training.attention=eager", "model.dropout=true",
	"model.norm=layernorm",       "model.qkv_bias=true",      "model.out_bias=true",
	"model.mlp_bias=true",        "model.position_embeddings=2048",
};
#define NGPT (sizeof(megatron_gpt) / sizeof(megatron_gpt[0]))

START_TEST(test_korthikanti_table4)
{
	for (size_t i = 0; i < KORTHIKANTI_TABLE4_ROWS; i++) {
		const struct korthikanti_table4_row *row = &korthikanti_table4[i];
		const char *sets[NGPT + 2];
		char sp[64], rc[64];
		struct run *x;
		struct dc_step_tp_layer tp;
		const struct dc_work_time *w;
		double fwd_ms, bwd_ms, shown;

		memcpy(sets, megatron_gpt, sizeof(megatron_gpt));
		snprintf(sp, sizeof(sp), "parallel.sequence_parallel=%s", row->sp);
		snprintf(rc, sizeof(rc), "training.recompute=%s", row->recompute);
		sets[NGPT] = sp;
		sets[NGPT + 1] = rc;
		x = run(K22B, sets, NGPT + 2);
		ck_assert(x->r.compute.available);
		ck_assert(x->r.comm.s[DC_STRAT_TP].in_play);
		dc_step_tp_layer(&x->plan, &x->r.comm, &tp);
		w = &x->r.compute.dense_layer;
		/* every forward collective waits; in backward each asynchronous
		 * one hides behind its own linear's GEMM (each is shorter here) */
		shown = 0;
		for (int j = 0; j < 2; j++) {
			ck_assert_double_lt(tp.bwd_async_grad_s[j], w->tp_col_wgrad_s[j]);
			ck_assert_double_lt(tp.bwd_async_regather_s[j], w->tp_col_dgrad_s[j]);
			shown += fmax(0, tp.bwd_async_grad_s[j] - w->tp_col_wgrad_s[j]) +
				 fmax(0, tp.bwd_async_regather_s[j] - w->tp_col_dgrad_s[j]);
		}
		fwd_ms = (w->fwd_s + tp.fwd_s) * 1e3;
		bwd_ms = (w->bwd_s + w->recompute_s + tp.bwd_s - tp.bwd_async_s + shown) * 1e3;
		ck_assert_msg(fabs(fwd_ms / row->fwd_ms - 1) <= 0.05, "%s: forward %.2f ms, published %.1f ms", row->name,
			      fwd_ms, row->fwd_ms);
		ck_assert_msg(fabs(bwd_ms / row->bwd_ms - 1) <= 0.05, "%s: backward %.2f ms, published %.1f ms",
			      row->name, bwd_ms, row->bwd_ms);
		free(x);
	}
}
END_TEST

/* The H200 preset against layers measured on an H200 (data/profiles/,
 * tools/gpu-probe.py at 33105cb, 2026-12-04; docs/compute-model.md, "A
 * measured H200"): torchtitan's Llama block, eager and compiled, forward +
 * backward, its SDPA on cuDNN's kernel; ms, eager boost, eager sustained
 * (0: not measured), compiled boost. The preset (no profile) prices the
 * layer in situ. One card's layer moves between runs: the same nine
 * layers measured hours apart (data/profiles/gradient-add-runs/, less
 * their adds) differ by up to 4.2%, so each row must be within 7.5% and
 * the sixteen's mean |error| within 3% (today -7.0% to +2.4%, mean
 * 2.5%). Left out: the second lease's runs of the 1.7B's layer at micro
 * batch 1, whose GPU waited for eager PyTorch's launches on that host
 * (host-bound: docs/compute-model.md, "A measured H200"), which the
 * model does not price; the fourth lease's run of it is here. */
START_TEST(test_measured_h200_layers)
{
	static const struct {
		const char *config;
		const char *sets[4];
		double eager_ms[2], compiled_ms;
	} rows[] = {
		{DC_SOURCE_DIR "/configs/llama-3-8b.json",
		 {"cluster.gpu=h200-sxm-141gb", "cluster.gpu_memory=141 GiB", "parallel.tp=1", "parallel.dp=16"},
		 {23.3600, 23.7324},
		 20.5348},
		{DC_SOURCE_DIR "/data/profiles/configs/megatron-gpt-7b-tp2.json",
		 {"cluster.gpu=h200-sxm-141gb", NULL, NULL, NULL},
		 {5.9079, 6.0689},
		 4.6576},
		{DC_SOURCE_DIR "/data/profiles/configs/megatron-gpt-32b-tp8.json",
		 {"cluster.gpu=h200-sxm-141gb", NULL, NULL, NULL},
		 {5.7651, 6.0836},
		 3.5715},
		{DC_SOURCE_DIR "/data/profiles/configs/megatron-gpt-16b-tp4.json",
		 {"cluster.gpu=h200-sxm-141gb", NULL, NULL, NULL},
		 {6.7435, 6.9269},
		 4.8299},
		{DC_SOURCE_DIR "/data/profiles/configs/megatron-gpt-1.7b-tp1.json",
		 {"cluster.gpu=h200-sxm-141gb", NULL, NULL, NULL},
		 {3.5029, 0},
		 2.7236},
		{DC_SOURCE_DIR "/data/profiles/configs/megatron-gpt-1.7b-tp1-mb4.json",
		 {"cluster.gpu=h200-sxm-141gb", NULL, NULL, NULL},
		 {13.0913, 0},
		 10.8704},
	};
	double sum = 0;
	int n_err = 0;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		for (int compiled = 0; compiled < 2; compiled++) {
			const char *sets[8];
			size_t n = 0;
			struct run *x;
			double ms;
			for (int j = 0; j < 4 && rows[i].sets[j]; j++)
				sets[n++] = rows[i].sets[j];
			sets[n++] = "training.framework=torchtitan";
			sets[n++] = "parallel.sharding=fsdp";
			sets[n++] = "training.attention_backend=cudnn";
			sets[n++] = compiled ? "training.compile=true" : "training.compile=false";
			x = run(rows[i].config, sets, n);
			ck_assert(x->r.compute.available);
			ms = (x->r.compute.dense_layer.fwd_s + x->r.compute.dense_layer.bwd_s) * 1e3;
			for (int k = 0; k < (compiled ? 1 : 2); k++) {
				double measured = compiled ? rows[i].compiled_ms : rows[i].eager_ms[k];
				if (measured == 0)
					continue;
				ck_assert_msg(fabs(ms / measured - 1) <= 0.075, "%s%s: predicted %.3f ms, measured %.3f ms",
					      rows[i].config, compiled ? " compiled" : "", ms, measured);
				sum += fabs(ms / measured - 1);
				n_err++;
			}
			free(x);
		}
	ck_assert_int_eq(n_err, 16);
	ck_assert_msg(sum / n_err <= 0.03, "mean |error| %.4f", sum / n_err);
}
END_TEST

/* Megatron's asynchronous backward TP collectives each hide behind a GEMM
 * of the column-parallel linear that issues them, not behind all of the
 * layer's (docs/step-model.md, "TP backward"; Megatron-LM d98e8a64
 * tensor_parallel/layers.py:674-808). configs/llama-3-8b.json on the H100
 * preset (custom framework, overlap.tp false: DC_TP_ASYNC_BWD), tp 8, T =
 * 8192 tokens, h 4096, q, k, v (32 + 2 x 8) x 128 / 8 = 768 columns, fc1
 * (gate and up) 2 x 14336 / 8 = 3584. By hand from docs/compute-model.md
 * ("One kernel", "Waves of tiles", "Stream-K on Hopper"; the H100 set's
 * e_mm = (797.8 / 989)(1830 / 1980) = 0.745562, t0_mm = 1.024e9 / (312e12
 * e_mm) = 4.402118 us, P = 989e12; every one compute-bound):
 *   qkv wgrad [4096 x 8192] . [8192 x 768], F = 51,539,607,552: 96 tiles
 *     of 256 x 128 fill 96 / 132 (q 0.727); 192 of 128 x 128 run stream-K
 *     (tail 60 < 66, 128 k-tiles): 132 units, ceil(192 x 128 / 132) / 128
 *     = 187 / 128 waves, q = 0.75 x 192 / (132 x 187 / 128) = 0.746719;
 *     F / (P e_mm q) = 93.606122 us, + t0 = 98.008240 us
 *   fc1 wgrad [4096 x 8192] . [8192 x 3584], F = 240,518,168,576: 448
 *     tiles of 256 x 128, 3 full waves and a tail of 52: dp 2, sk 184,
 *     ceil(184 x 128 / 132) = 179 of 128, waves 2 + 179 / 128 = 3.398438,
 *     q = 448 / (132 x 3.398438) = 0.998676; 326.620291 + t0 = 331.022409 us
 *   qkv dgrad [8192 x 768] . [768 x 4096]: 1024 tiles, 8 waves (tail 100,
 *     data-parallel), q = 1024 / 1056 = 0.969697; 72.081719 + t0 =
 *     76.483838 us
 *   fc1 dgrad [8192 x 3584] . [3584 x 4096]: the same tiles, 336.381357 +
 *     t0 = 340.783476 us.
 * Without sequence parallelism a layer's backward runs two input-gradient
 * AllReduces of c (the comm estimator's, 336.79 us each), one behind each
 * wgrad: what shows is max(0, c - 98.008) + max(0, c - 331.022), 244.55
 * us a layer-microbatch (the old rule hid all 673.58 us behind the
 * 2,342 us of backward matmuls). With it, two ReduceScatters and two
 * re-gathers of c' (173.89 us each): max(0, c' - 98.008) + max(0, c' -
 * 76.484) from the attention's, none from fc1's. The step's exposed TP is
 * 512 layer-microbatches (32 layers, 16 microbatches) of the forward's
 * TP, all waited for, and the backward's less what hides. */
START_TEST(test_async_tp_own_linear_by_hand)
{
	static const double qkv_wgrad = 98.008240e-6, fc1_wgrad = 331.022409e-6;
	static const double qkv_dgrad = 76.483838e-6, fc1_dgrad = 340.783476e-6;
	static const char *const sets[2][2] = {
		{"cluster.gpu=h100-sxm5-80gb", "parallel.sequence_parallel=false"},
		{"cluster.gpu=h100-sxm5-80gb", "parallel.sequence_parallel=true"},
	};
	for (int sp = 0; sp < 2; sp++) {
		struct dc_config cfg;
		struct dc_plan plan;
		struct dc_results *r = calloc(1, sizeof(*r));
		struct dc_override ov[2] = {{sets[sp][0], 0}, {sets[sp][1], 0}};
		struct dc_diag d;
		struct dc_step_tp_layer tp;
		const struct dc_work_time *w;
		double c, hidden, want;
		ck_assert_ptr_nonnull(r);
		dc_diag_init(&d);
		ck_assert_int_eq(dc_config_load_file(NO_GPU, ov, 2, &cfg, &d), 0);
		dc_diag_release(&d);
		ck_assert_int_eq(dc_plan_derive(&cfg, &plan), 0);
		ck_assert_int_eq(dc_estimate(&plan, DC_EST_BIT(DC_EST_STEP), r), 0);
		ck_assert_int_eq(dc_framework_tp_overlap(&plan), DC_TP_ASYNC_BWD);
		w = &r->compute.dense_layer;
		ck_assert_double_eq_tol(w->tp_col_wgrad_s[0], qkv_wgrad, 1e-6 * qkv_wgrad);
		ck_assert_double_eq_tol(w->tp_col_wgrad_s[1], fc1_wgrad, 1e-6 * fc1_wgrad);
		ck_assert_double_eq_tol(w->tp_col_dgrad_s[0], qkv_dgrad, 1e-6 * qkv_dgrad);
		ck_assert_double_eq_tol(w->tp_col_dgrad_s[1], fc1_dgrad, 1e-6 * fc1_dgrad);
		dc_step_tp_layer(&plan, &r->comm, &tp);
		/* one call of each per linear, all of one size */
		c = tp.bwd_async_grad_s[0];
		ck_assert_double_eq_tol(tp.bwd_async_grad_s[1], c, 1e-12);
		if (sp) {
			ck_assert_double_eq_tol(tp.bwd_async_regather_s[0], c, 1e-12);
			ck_assert_double_eq_tol(tp.bwd_async_regather_s[1], c, 1e-12);
			ck_assert_double_eq_tol(tp.bwd_async_s, 4.0 * c, 1e-12);
			ck_assert_double_eq_tol(c, 173.89e-6, 0.01e-6);
			/* the attention's two show, fc1's hide */
			hidden = qkv_wgrad + qkv_dgrad + 2.0 * c;
		} else {
			ck_assert_double_eq(tp.bwd_async_regather_s[0], 0);
			ck_assert_double_eq(tp.bwd_async_regather_s[1], 0);
			ck_assert_double_eq_tol(tp.bwd_async_s, 2.0 * c, 1e-12);
			ck_assert_double_eq_tol(c, 336.79e-6, 0.01e-6);
			/* each AllReduce beyond its wgrad shows: 244.55 us */
			hidden = qkv_wgrad + fc1_wgrad;
			ck_assert_double_eq_tol(tp.bwd_async_s - hidden, 244.55e-6, 0.01e-6);
		}
		/* and the model's ends, behind the head's GEMMs as Megatron's
		 * output layer runs them (tp_ends.h) */
		want = 512.0 * (tp.fwd_s + tp.bwd_s - hidden) + tp_embedding_exposed(&r->comm) +
		       tp_head_exposed(&r->comm, &r->compute.head, (double)plan.layout.grad_accum_steps, 1);
		ck_assert_double_eq_tol(r->step.classes[0].exposed_s[DC_STRAT_TP], want, 1e-6 * want);
		free(r);
	}
}
END_TEST

/* One small layer's GEMMs by hand: h 64, a 4 heads of d 16, 2 kv heads
 * (GQA), SwiGLU f 128, s 32, b 2, tp 2 (T = b s = 64 tokens), eager
 * attention. Forward matmul FLOPs on one rank, 2 m n k each:
 *   qkv      2 x 64 x 64 x (2 + 2 x 1) x 16          =   524,288
 *   QK^T     2 x (2 x 2 heads) x 32 x 32 x 16         =   131,072
 *   AV       the same                                 =   131,072
 *   out      2 x 64 x (2 x 16) x 64                   =   262,144
 *   fc1      2 x 64 x 64 x (2 x 128 / 2)              = 1,048,576
 *   fc2      2 x 64 x (128 / 2) x 64                  =   524,288
 *   total                                               2,621,440
 * A MoE layer of 4 experts, top-2, expert f 32, ep 1 replaces the MLP:
 *   router   2 x 64 x 64 x 4 (whole on each rank)     =    32,768
 *   experts  fc1 2 x (64 x 2) x 64 x (2 x 32 / 2) + fc2 2 x (64 x 2) x 16 x 64
 *            = 524,288 + 262,144                      =   786,432
 *   total    1,048,576 (attention) + 32,768 + 786,432 = 1,867,776 */
START_TEST(test_small_layer_flops)
{
	static const char *const sets[] = {
		"model.num_layers=2",       "model.hidden_size=64",     "model.num_attention_heads=4",
		"model.num_kv_heads=2",     "model.ffn_hidden_size=128", "model.vocab_size=256",
		"model.seq_length=32",      "parallel.tp=2",            "parallel.pp=1",
		"parallel.dp=4",            "training.micro_batch_size=2", "training.attention=eager",
		"cluster.gpu=h100-sxm5-80gb",
	};
	static const char *const moe_sets[] = {
		"model.num_experts=4", "model.experts_per_token=2", "model.moe_ffn_hidden_size=32",
	};
	const char *all[16];
	struct run *x = run(SYSTEMS, sets, sizeof(sets) / sizeof(sets[0]));
	const struct dc_compute *c = &x->r.compute;
	ck_assert_double_eq(c->dense_layer_fwd_flops, 2621440.0);
	/* a small shard runs far below peak: the logits GEMM [64 x 64] x
	 * [64 x 128] is 2 x 64 x 128 x 64 = 1,048,576 FLOPs and moves
	 * 2 (64 x 64 + 64 x 128) + 2 x 64 x 128 = 40,960 bytes. Its 64 x 128
	 * output is a quarter of one 256 x 128 tile (q = 0.25 / 132 SMs) or
	 * two 64 x 64 tiles at rate 0.375 (q = 0.375 x 2 / 132, the better):
	 * 1,048,576 / (989e12 x e_mm x 0.75 / 132) = 187 ns / e_mm, above the
	 * bytes' 12 ns / e_mem; and the fixed cost dominates, under 0.1% of
	 * peak */
	ck_assert_double_le(fabs(c->head.fwd_matmul_s -
				 (1048576.0 / (989e12 * c->matmul_efficiency * (0.75 / 132.0)) + c->matmul_overhead_s)),
			    1e-15);
	ck_assert_double_lt(1048576.0 / (989e12 * c->head.fwd_matmul_s), 0.001);
	ck_assert_double_eq(x->r.compute.moe_layer_fwd_flops, 0.0);
	free(x);
	memcpy(all, sets, sizeof(sets));
	memcpy(all + 13, moe_sets, sizeof(moe_sets));
	x = run(SYSTEMS, all, 16);
	ck_assert_double_eq(x->r.compute.moe_layer_fwd_flops, 1867776.0);
	free(x);
}
END_TEST

/* Context parallelism splits every sequence over cp ranks: each rank's
 * GEMMs see b s / cp tokens and its attention s / cp queries against all
 * s keys (Megatron-Core's load-balanced causal chunks give each rank 1 /
 * cp of the work). Every term of a layer's FLOPs is linear in the tokens
 * or in s_q s, so at cp 2 (dp 2) the small layer above runs exactly half
 * of its 2,621,440 FLOPs, 1,310,720. The head's logits gradient, 8 b (s /
 * cp) V / t bytes: 8 x 2 x 32 x 256 / 2 = 65,536 at cp 1, 32,768 at cp 2
 * (it used the whole sequence on every cp rank). */
START_TEST(test_context_parallel_halves_the_work)
{
	static const char *const sets[] = {
		"model.num_layers=2",       "model.hidden_size=64",     "model.num_attention_heads=4",
		"model.num_kv_heads=2",     "model.ffn_hidden_size=128", "model.vocab_size=256",
		"model.seq_length=32",      "parallel.tp=2",            "parallel.pp=1",
		"parallel.dp=2",            "training.micro_batch_size=2", "training.attention=eager",
		"cluster.gpu=h100-sxm5-80gb", "parallel.cp=2",
	};
	struct run *x = run(SYSTEMS, sets, sizeof(sets) / sizeof(sets[0]));
	uint64_t head_bwd = 0;
	ck_assert_double_eq(x->r.compute.dense_layer_fwd_flops, 1310720.0);
	ck_assert_int_eq(dc_act_head_backward_bytes(&x->plan, &head_bwd), 0);
	ck_assert_uint_eq(head_bwd, 32768);
	free(x);
	{
		/* cp 1: the same layer on dp 4 */
		const char *one[sizeof(sets) / sizeof(sets[0]) - 1];
		memcpy(one, sets, sizeof(one));
		one[9] = "parallel.dp=4";
		x = run(SYSTEMS, one, sizeof(one) / sizeof(one[0]));
	}
	ck_assert_double_eq(x->r.compute.dense_layer_fwd_flops, 2621440.0);
	ck_assert_int_eq(dc_act_head_backward_bytes(&x->plan, &head_bwd), 0);
	ck_assert_uint_eq(head_bwd, 65536);
	free(x);
}
END_TEST

/* The preset's peaks and kernel levels reach the result; precision.compute
 * "fp8" runs the linear layers at the FP8 peak and level, the LM head in
 * BF16 (unless precision.fp8_lm_head), and adds its recipe's casts.
 *
 * H100 SXM5 levels (docs/compute-model.md, "Parameters"): BF16 GEMM
 * ceiling 797.8 / 989 = 0.80667, in situ 1830 / 1980 = 0.92424, level
 * 0.74556; FP8 ceiling 1.75 x 797.8 / 1979 = 0.70548, level 0.65204;
 * t0_mm = 1.024e9 / (312e12 x 0.74556) = 4.4021 us. Memory level: Azure's
 * triad, 2.97 of 3.35 TB/s, against its A100 80 GB's 1.70 of 2.039, times
 * the A100 80 GB's fitted 0.72: 0.72 x 0.886567 / 0.833742 = 0.765619;
 * t0_mem = (25e6 / 11) / (2.039e12 x 0.765619) = 1.45585 us; HBM at that
 * level: 2.56482e12 B/s.
 *
 * The 22B's logits GEMM on one tp rank, [8192 x 6144] x [6144 x 6400], is
 * 2 x 8192 x 6400 x 6144 = 644,245,094,400 FLOPs, compute-bound. Its
 * 8192 x 6400 output is 32 x 50 = 1,600 tiles of 256 x 128: 12 full waves
 * of the H100's 132 SMs and a tail of 16, under half a wave, so stream-K
 * (docs/compute-model.md, "Stream-K on Hopper"): 11 data-parallel waves,
 * the last full wave and the tail, 148 tiles of 6144 / 64 = 96 k-tiles,
 * shared by 132 units of ceil(148 x 96 / 132) = 108 k-tiles, 108 / 96 =
 * 1.125 tile-times: q = 1600 / (132 x 12.125) = 0.99969 (data-parallel
 * it would be 13 waves, 1600 / 1716). BF16: 644.2e9 / (989e12 x 0.74556 x
 * 0.99969) + 4.40 us = 878.39 us; in FP8 (k-tiles of 128: 48 a tile, 54
 * a unit, the same 12.125): 644.2e9 / (1979e12 x 0.65204 x 0.99969) +
 * 4.40 us = 503.83 us.
 *
 * The delayed recipe's casts (Transformer Engine: read BF16, write FP8 and
 * its FP8 transpose, 4 B per element). Without sequence parallelism each
 * cast runs on the whole tensor: forward, each linear's input X, T = 8192
 * tokens by k = 6144 (q, k, v), 768 (output projection), 6144 (fc1), 3072
 * (fc2): 4 x 8192 x 16,128 = 528,482,304 B in 4 kernels, 528,482,304 /
 * 2.56482e12 + 4 x 1.45585 us = 211.874 us; backward, each dY, n = 2304,
 * 6144, 3072, 6144: 4 x 8192 x 17,664 = 578,813,952 B, 231.497 us.
 *
 * The 22B runs sequence parallelism at tp 8, and Transformer Engine
 * gathers FP8 (transformer_engine/pytorch/distributed.py _all_gather_fp8
 * at d0067d0d): each rank casts its 8192 / 8 = 1024 tokens before the
 * AllGather, reading BF16 and writing FP8 only (3 B), and the H100's TN-only
 * FP8 GEMMs get the transpose from the gathered FP8 tensor, a kernel of
 * its own reading 1 B and writing 1 B an element, in backward (after the
 * re-gather for X, after the gather for dY). Gathered: q, k, v's and fc1's
 * X, the output projection's and fc2's dY. Forward: 3 x 1024 x 6144 (q,
 * k, v) + 4 x 8192 x 768 + 3 x 1024 x 6144 (fc1) + 4 x 8192 x 3072 =
 * 163,577,856 B in 4 kernels, 63.778 + 4 x 1.45585 = 69.601 us. Backward:
 * q, k, v's dY 4 x 8192 x 2304 and X's transpose 2 x 8192 x 6144; the
 * projection's dY 3 x 1024 x 6144 and its transpose 2 x 8192 x 6144;
 * fc1's dY 4 x 8192 x 3072 and X's transpose 2 x 8192 x 6144; fc2's dY
 * like the projection's: 75,497,472 + 4 x 100,663,296 + 100,663,296 + 2 x
 * 18,874,368 = 616,562,688 B in 8 kernels, 240.392 + 8 x 1.45585 =
 * 252.039 us. torchao's rowwise recipe gathers BF16 and casts each input
 * along both axes on the whole tensor, reading it twice per cast (10 B):
 * forward 10 x 8192 x 16,128 B, 520.949 us. */
START_TEST(test_presets_and_fp8)
{
	static const char *const bf16[] = {"cluster.gpu=h100-sxm5-80gb"};
	static const char *const fp8[] = {"cluster.gpu=h100-sxm5-80gb", "precision.compute=fp8"};
	static const char *const head8[] = {"cluster.gpu=h100-sxm5-80gb", "precision.compute=fp8",
					    "precision.fp8_lm_head=true"};
	static const char *const row[] = {"cluster.gpu=h100-sxm5-80gb", "precision.compute=fp8",
					  "precision.fp8_recipe=rowwise"};
	static const char *const bf16_nosp[] = {"cluster.gpu=h100-sxm5-80gb", "parallel.sequence_parallel=false"};
	static const char *const fp8_nosp[] = {"cluster.gpu=h100-sxm5-80gb", "precision.compute=fp8",
					       "parallel.sequence_parallel=false"};
	struct run *a = run(K22B, bf16, 1), *b = run(K22B, fp8, 2), *h = run(K22B, head8, 3), *r = run(K22B, row, 3);
	struct run *an = run(K22B, bf16_nosp, 2), *bn = run(K22B, fp8_nosp, 3);
	const struct dc_compute *ca = &a->r.compute, *cb = &b->r.compute, *ch = &h->r.compute;
	const struct dc_work_time *dan = &an->r.compute.dense_layer, *dbn = &bn->r.compute.dense_layer;
	double fwd_mem_a = ca->dense_layer.fwd_s - ca->dense_layer.fwd_matmul_s;
	double bwd_mem_a = ca->dense_layer.bwd_s - ca->dense_layer.bwd_matmul_s;

	ck_assert(ca->available && cb->available);
	ck_assert_double_eq(ca->peak_flops, 989e12);
	ck_assert_double_eq(cb->peak_flops, 1979e12);
	ck_assert_double_eq(ca->hbm_bandwidth, 3.35e12);
	ck_assert_str_eq(ca->gpu, "h100-sxm5-80gb");
	ck_assert_double_eq(ca->sm_count, 132);
	ck_assert_double_le(fabs(ca->matmul_efficiency / 0.74556 - 1), 1e-4);
	ck_assert_double_le(fabs(cb->matmul_efficiency_fp8 / 0.65204 - 1), 1e-4);
	ck_assert_double_le(fabs(ca->matmul_overhead_s / 4.4021e-6 - 1), 1e-4);
	/* the head: BF16 under fp8 unless fp8_lm_head */
	ck_assert_double_le(fabs(ca->head.fwd_matmul_s / 878.393e-6 - 1), 1e-5);
	ck_assert_double_le(fabs(cb->head.fwd_matmul_s / 878.393e-6 - 1), 1e-5);
	ck_assert_double_le(fabs(ch->head.fwd_matmul_s / 503.825e-6 - 1), 1e-5);
	/* every large linear GEMM runs faster, not twice as fast */
	ck_assert_double_lt(cb->dense_layer.fwd_matmul_s, 0.7 * ca->dense_layer.fwd_matmul_s);
	ck_assert_double_gt(cb->dense_layer.fwd_matmul_s, 0.5 * ca->dense_layer.fwd_matmul_s);
	/* the casts: the only memory-bound work fp8 adds */
	ck_assert_double_eq(cb->fp8_cast_bytes, 4);
	/* sequence parallel: the casts on the shard, the transposes on the
	 * gathered tensor */
	ck_assert_double_le(fabs((cb->dense_layer.fwd_s - cb->dense_layer.fwd_matmul_s - fwd_mem_a) / 69.601e-6 - 1), 1e-4);
	ck_assert_double_le(fabs((cb->dense_layer.bwd_s - cb->dense_layer.bwd_matmul_s - bwd_mem_a) / 252.039e-6 - 1), 1e-4);
	/* without it: every cast on the whole tensor */
	ck_assert_double_le(fabs((dbn->fwd_s - dbn->fwd_matmul_s - (dan->fwd_s - dan->fwd_matmul_s)) / 211.874e-6 - 1),
			    1e-4);
	ck_assert_double_le(fabs((dbn->bwd_s - dbn->bwd_matmul_s - (dan->bwd_s - dan->bwd_matmul_s)) / 231.497e-6 - 1),
			    1e-4);
	ck_assert_double_eq(r->r.compute.fp8_cast_bytes, 10);
	ck_assert_double_le(
		fabs((r->r.compute.dense_layer.fwd_s - r->r.compute.dense_layer.fwd_matmul_s - fwd_mem_a) / 520.949e-6 - 1),
		1e-4);
	free(a);
	free(b);
	free(h);
	free(r);
	free(an);
	free(bn);
}
END_TEST

/* Transformer Engine's norm and cast (compute.c te_norm_quantizes;
 * layernorm_linear.py:244-266 and csrc/extensions/normalization.cpp
 * :95-133 at d0067d0d): under training.framework megatron q, k, v and
 * fc1 are TELayerNormColumnParallelLinear, and the norm before each
 * quantizes its own output. On the 22B (h 6144, T 8192 tokens, tp 8) on
 * an H100 (2.56482e12 B/s, t0_mem 1.45585 us: test_presets_and_fp8),
 * eager attention both ways, against custom, which keeps the
 * norm (read 2, write 2) and a separate cast:
 *   delayed, sequence parallel (1024 tokens a rank): the norm writes FP8
 *     (2 + 1 = 3 B) and no cast kernel runs, where custom moves 4 + 3 B
 *     in two kernels: 2 x 4 x 1024 x 6144 = 50,331,648 B and 2 kernels
 *     less, 19.6238 + 2.9117 = 22.5355 us a layer's forward
 *   delayed, no sequence parallelism (8192 tokens): norm 3 B and a
 *     transpose kernel of the FP8 copy (read 1, write 1), where custom
 *     moves 4 + 4 B (the cast+transpose): 2 x 3 x 8192 x 6144 =
 *     301,989,888 B less in as many kernels, 117.7429 us
 *   current: the norm writes BF16 and the amax in one pass; the cast no
 *     longer reads the tensor for its amax: 2 B less an element, on the
 *     shard 2 x 2 x 1024 x 6144 = 25,165,824 B, 9.8119 us; on the whole
 *     tensor 201,326,592 B, 78.4953 us
 *   mxfp8 is not fused by default (normalization.cpp:108-113) and is
 *     refused on Hopper anyway; rowwise is torchao's: nothing changes.
 * The backward does not change. */
START_TEST(test_te_norm_cast_by_hand)
{
	static const struct {
		const char *recipe, *sp;
		double saved_s;
	} cases[] = {{"precision.fp8_recipe=delayed", "parallel.sequence_parallel=true", 22.5355e-6},
		     {"precision.fp8_recipe=delayed", "parallel.sequence_parallel=false", 117.7429e-6},
		     {"precision.fp8_recipe=current", "parallel.sequence_parallel=true", 9.8119e-6},
		     {"precision.fp8_recipe=current", "parallel.sequence_parallel=false", 78.4953e-6},
		     {"precision.fp8_recipe=rowwise", "parallel.sequence_parallel=true", 0}};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *custom[] = {"cluster.gpu=h100-sxm5-80gb", "precision.compute=fp8", cases[i].recipe, cases[i].sp};
		const char *megatron[] = {"cluster.gpu=h100-sxm5-80gb", "precision.compute=fp8", cases[i].recipe,
					  cases[i].sp, "training.framework=megatron"};
		struct run *a = run(K22B, custom, 4), *b = run(K22B, megatron, 5);
		const struct dc_work_time *la = &a->r.compute.dense_layer, *lb = &b->r.compute.dense_layer;
		ck_assert_double_eq(la->fwd_matmul_s, lb->fwd_matmul_s);
		ck_assert_double_eq(la->bwd_s, lb->bwd_s);
		if (cases[i].saved_s > 0)
			ck_assert_double_le(fabs((la->fwd_s - lb->fwd_s) / cases[i].saved_s - 1), 1e-5);
		else
			ck_assert_double_eq(la->fwd_s, lb->fwd_s);
		free(a);
		free(b);
	}
}
END_TEST

/* Megatron's vocabulary-parallel cross entropy as
 * megatron/core/tensor_parallel/cross_entropy.py runs it, kernel by kernel
 * (training.framework megatron): forward the FP32 copy of the BF16 logits
 * (read 2, write 4), the max (read 4), the in-place shift (read 4, write
 * 4), the in-place exp (4 + 4), the sum (4) and the in-place division by
 * it (4 + 4): 38 B per logit; backward the product with the loss
 * gradient (4 + 4) and the BF16 copy the output layer's GEMMs read (4 +
 * 2): 14 B. The custom framework keeps 16 and 6 B. On the 22B's tp rank,
 * 8192 tokens by 51200 / 8 = 6400 logits each, 52,428,800 logits, at the
 * H100 SXM5's 2.56482e12 B/s (test_presets_and_fp8): forward 22 x
 * 52,428,800 B more, 449.713 us; backward 8 x, 163.532 us; the fixed cost
 * of the kernel cancels (one kernel in both counts). */
START_TEST(test_megatron_cross_entropy)
{
	static const char *const custom[] = {"cluster.gpu=h100-sxm5-80gb"};
	static const char *const megatron[] = {"cluster.gpu=h100-sxm5-80gb", "training.framework=megatron"};
	struct run *a = run(K22B, custom, 1), *b = run(K22B, megatron, 2);
	const struct dc_work_time *ha = &a->r.compute.head, *hb = &b->r.compute.head;
	ck_assert_double_eq(ha->fwd_matmul_s, hb->fwd_matmul_s);
	ck_assert_double_eq(ha->bwd_matmul_s, hb->bwd_matmul_s);
	ck_assert_double_le(fabs((hb->fwd_s - ha->fwd_s) / 449.713e-6 - 1), 1e-5);
	ck_assert_double_le(fabs((hb->bwd_s - ha->bwd_s) / 163.532e-6 - 1), 1e-5);
	/* the layers do not change */
	ck_assert_double_eq(a->r.compute.dense_layer.fwd_s, b->r.compute.dense_layer.fwd_s);
	free(a);
	free(b);
}
END_TEST

/* training.loss_chunks 8 (docs/compute-model.md, "Chunked head and
 * loss") on the 22B's logits at tp 8 on the A100 preset (108 SMs, no
 * stream-K; custom's 16 and 6 B a logit): 8192 tokens of h 6144 against
 * 6400 vocabulary columns, f = 2 x 8192 x 6400 x 6144 = 644,245,094,400
 * FLOPs a GEMM, each chunk 1024 tokens and f / 8. Forward [1024 x 6144] x
 * [6144 x 6400]: 4 x 50 = 200 tiles of 256 x 128, 2 waves of 108, q =
 * 200 / 216 (the whole: 1600 / 1620; 128 x 128 gives 0.75 x 400 / 432
 * less), so the waves cost 6.7% more and 7 launches come on top. Input
 * gradient [1024 x 6400] x [6400 x 6144]: 4 x 48 = 192 tiles, q = 192 /
 * 216 (the whole 1536 / 1620); weight gradient [6144 x 1024] x [1024 x
 * 6400]: 24 x 50 = 1,200 tiles, 12 waves, q = 1200 / 1296 for chunk and
 * whole alike. The loss kernels: the same bytes, 7 launches more each way;
 * the backward adds the FP32 buffer, 24 B x 8192 x 6144 = 1,207,959,552
 * B (zero fill 4, per chunk cast 2 + 4 and slice copy 4 + 4, the cast
 * back 4 + 2) in 2 x 8 + 2 = 18 launches: 25 launches more. */
START_TEST(test_loss_chunks_head_time)
{
	static const char *const one[] = {"cluster.gpu=a100-sxm4-80gb"};
	static const char *const eight[] = {"cluster.gpu=a100-sxm4-80gb", "training.loss_chunks=8"};
	struct run *a = run(K22B, one, 1), *b = run(K22B, eight, 2);
	const struct dc_compute *c = &b->r.compute;
	const struct dc_work_time *ha = &a->r.compute.head, *hb = &c->head;
	double f = 644245094400.0, pe = 312e12 * c->matmul_efficiency, t0 = c->matmul_overhead_s;
	double B = 2.039e12 * c->memory_efficiency, t0m = c->memory_overhead_s;
	double fwd = 8 * (f / 8 / (pe * 200.0 / 216.0) + t0);
	double bwd = 8 * (f / 8 / (pe * 192.0 / 216.0) + t0) + 8 * (f / 8 / (pe * 1200.0 / 1296.0) + t0);
	ck_assert_double_eq(c->sm_count, 108);
	ck_assert_double_le(fabs(ha->fwd_matmul_s / (f / (pe * 1600.0 / 1620.0) + t0) - 1), 1e-12);
	ck_assert_double_le(fabs(hb->fwd_matmul_s / fwd - 1), 1e-12);
	ck_assert_double_le(fabs(hb->bwd_matmul_s / bwd - 1), 1e-12);
	ck_assert_double_le(fabs(hb->bwd_wgrad_s / (8 * (f / 8 / (pe * 1200.0 / 1296.0) + t0)) - 1), 1e-12);
	ck_assert_double_le(fabs(((hb->fwd_s - hb->fwd_matmul_s) - (ha->fwd_s - ha->fwd_matmul_s)) / (7 * t0m) - 1),
			    1e-9);
	ck_assert_double_le(fabs(((hb->bwd_s - hb->bwd_matmul_s) - (ha->bwd_s - ha->bwd_matmul_s)) /
				     (1207959552.0 / B + 25 * t0m) -
				 1),
			    1e-9);
	free(a);
	free(b);
}
END_TEST

/* torchtitan's cross entropy (training.framework torchtitan), as its
 * train.py loss at 9dec370 runs it, uncompiled. At tp 1 PyTorch's eager
 * log_softmax and nll_loss: forward the FP32 copy (read 2, write 4) and
 * cunn_SoftMaxForward, three reads and a write of the row (16): 22 B per
 * logit; backward nll_loss_backward's zero fill (4), cunn_SoftMaxBackward
 * (reads 12, writes 4) and the BF16 copy (4 + 2): 26 B. At tp > 1
 * loss_parallel's DTensor decomposition: forward the copy (6), amax (4),
 * the shift (8), exp (8), the sum (4), the log-sum subtracted (8): 38;
 * backward zeros_like (4), exp (8), their sum (12), the product with the
 * loss gradient (8), the copy (6): 38. Against custom's 16 and 6 B at the
 * H100 SXM5's 2.56482e12 B/s. The 22B at tp 8, 52,428,800 logits a rank:
 * forward 22 x 52,428,800 B more, 449.713 us; backward 32 x, 654.128 us.
 * At tp 1 (dp 8), 8192 x 51200 = 419,430,400 logits (rows of 51,200, past
 * the shared-memory path): forward 6 x, 981.191 us; backward 20 x,
 * 3270.63 us. */
START_TEST(test_torchtitan_cross_entropy)
{
	static const char *const custom[] = {"cluster.gpu=h100-sxm5-80gb"};
	static const char *const titan[] = {"cluster.gpu=h100-sxm5-80gb", "training.framework=torchtitan"};
	static const char *const custom1[] = {"cluster.gpu=h100-sxm5-80gb", "parallel.tp=1", "parallel.dp=8",
					      "parallel.sequence_parallel=false"};
	static const char *const titan1[] = {"cluster.gpu=h100-sxm5-80gb", "parallel.tp=1", "parallel.dp=8",
					     "parallel.sequence_parallel=false", "training.framework=torchtitan"};
	struct run *a = run(K22B, custom, 1), *b = run(K22B, titan, 2);
	struct run *c = run(K22B, custom1, 4), *d = run(K22B, titan1, 5);
	const struct dc_work_time *ha = &a->r.compute.head, *hb = &b->r.compute.head;
	const struct dc_work_time *hc = &c->r.compute.head, *hd = &d->r.compute.head;
	ck_assert_double_eq(ha->fwd_matmul_s, hb->fwd_matmul_s);
	ck_assert_double_eq(ha->bwd_matmul_s, hb->bwd_matmul_s);
	ck_assert_double_le(fabs((hb->fwd_s - ha->fwd_s) / 449.713e-6 - 1), 1e-5);
	ck_assert_double_le(fabs((hb->bwd_s - ha->bwd_s) / 654.128e-6 - 1), 1e-5);
	ck_assert_double_eq(hc->fwd_matmul_s, hd->fwd_matmul_s);
	ck_assert_double_le(fabs((hd->fwd_s - hc->fwd_s) / 981.191e-6 - 1), 1e-5);
	ck_assert_double_le(fabs((hd->bwd_s - hc->bwd_s) / 3270.63e-6 - 1), 1e-5);
	free(a);
	free(b);
	free(c);
	free(d);
}
END_TEST

/* The Blackwell set (docs/compute-model.md, "Blackwell"), on the B200
 * preset (2250 TFLOP/s BF16, 4500 FP8, 148 SMs). BF16 GEMM ceiling: XLA's
 * measured sm_100 4 x 4096^3, 1670.5 / 2250 = 0.742444; in situ (Hopper's
 * clock ratio, carried over) 1830 / 1980 = 0.924242; level 0.686199;
 * t0_mm = 1.024e9 / (312e12 x 0.686199) = 4.7829 us. FP8 ceiling: the
 * Hopper one, 1.75 x 797.8 / 1979 = 0.705488, times Azure's GB200 / H100
 * cuBLASLt FP8 8192^3 fractions, (2876.6 / 5000) / (1290.1 / 1979): 0.622613,
 * level 0.575445.
 *
 * The 22B's logits GEMM on one tp rank, [8192 x 6144] x [6144 x 6400],
 * 644,245,094,400 FLOPs: 1,600 tiles of 256 x 128 in 11 waves of 148 SMs
 * (a tail of 120, over half a wave: whole tiles, no stream-K split),
 * q = 1600 / 1628 = 0.982801. BF16: 644.245e9 / (2250e12 x 0.686199 x
 * 0.982801) + 4.7829 us = 429.357 us; FP8 (fp8_lm_head): 644.245e9 /
 * (4500e12 x 0.575445 x 0.982801) + 4.7829 us = 257.928 us.
 *
 * Attention, Llama-3-8B at tp 8 (4 query heads of 128 per rank, s 8192,
 * micro batch 1): 68,719,476,736 forward FLOPs in 256 query tiles, 2 waves
 * of 148 SMs, q = 256 / 296 = 0.864865. sdpa (FA2 through PyTorch on a
 * B200, cudnn-frontend's benchmark): forward (242.386 + 373.392) / 2 / 2250
 * = 0.136840, backward (186.284 + 298.867) / 2 / 2250 = 0.107811; cudnn
 * (cuDNN 9.19 on a GB200): (1042 + 1709) / 2 / 2500 = 0.5502 and (836 +
 * 1409) / 2 / 2500 = 0.4490; each times 0.924242. Forward 68.72e9 / (2250e12
 * x level x 0.924242 x 0.864865) + 4.7829 us: sdpa 284.006 us, cudnn 74.228;
 * backward 2.5 x the FLOPs: sdpa 890.793, cudnn 217.527. FP8 attention
 * (cudnn, forward (1286 + 2094) / 2 / 5000 = 0.338 of 4500 TFLOP/s): 61.305
 * us. */
START_TEST(test_blackwell_levels)
{
	static const char *const bf16[] = {"cluster.gpu=b200-sxm-180gb"};
	static const char *const head8[] = {"cluster.gpu=b200-sxm-180gb", "precision.compute=fp8",
					    "precision.fp8_lm_head=true"};
	static const char *const names[] = {"training.attention_backend=sdpa", "training.attention_backend=cudnn"};
	static const double fwd_us[] = {284.006, 74.228}, bwd_us[] = {890.793, 217.527};
	static const char *const fp8_attn[] = {"cluster.gpu=b200-sxm-180gb", "training.recompute=selective",
					       "training.attention_backend=cudnn", "precision.compute=fp8",
					       "precision.attention=fp8"};
	struct run *a = run(K22B, bf16, 1), *h = run(K22B, head8, 3), *x[2], *f;
	const struct dc_compute *ca = &a->r.compute;

	ck_assert(ca->available);
	ck_assert_str_eq(ca->gpu, "b200-sxm-180gb");
	ck_assert_double_eq(ca->peak_flops, 2250e12);
	ck_assert_double_eq(ca->sm_count, 148);
	ck_assert_double_le(fabs(ca->matmul_efficiency / 0.686199 - 1), 1e-5);
	ck_assert_double_le(fabs(h->r.compute.matmul_efficiency_fp8 / 0.575445 - 1), 1e-5);
	ck_assert_double_le(fabs(ca->matmul_overhead_s / 4.7829e-6 - 1), 1e-4);
	ck_assert_double_le(fabs(ca->head.fwd_matmul_s / 429.357e-6 - 1), 1e-5);
	ck_assert_double_le(fabs(h->r.compute.head.fwd_matmul_s / 257.928e-6 - 1), 1e-5);
	for (int i = 0; i < 2; i++) {
		const char *sets[] = {"cluster.gpu=b200-sxm-180gb", "training.recompute=selective", names[i]};
		x[i] = run(NO_GPU, sets, 3);
		ck_assert_double_le(fabs(x[i]->r.compute.dense_layer.recompute_s / (fwd_us[i] * 1e-6) - 1), 1e-5);
	}
	ck_assert_double_le(fabs((x[0]->r.compute.dense_layer.bwd_s - x[1]->r.compute.dense_layer.bwd_s) /
				 ((bwd_us[0] - bwd_us[1]) * 1e-6) -
			    1),
			    1e-4);
	f = run(NO_GPU, fp8_attn, 5);
	ck_assert_double_le(fabs(f->r.compute.dense_layer.recompute_s / 61.305e-6 - 1), 1e-4);
	free(a);
	free(h);
	free(x[0]);
	free(x[1]);
	free(f);
}
END_TEST

/* Attention backends: Llama-3-8B (configs/llama-3-8b.json) on an H100,
 * tp 8: 4 query heads and 1 kv head of 128 per rank, s 8192, micro batch
 * 1. The causal flash kernel's forward is 0.5 x 4 x 1 x 4 x 8192^2 x 128 =
 * 68,719,476,736 FLOPs in 1 x 4 x 64 = 256 query tiles, 2 waves of 132
 * SMs: q = 256 / 264 = 0.96970. Each backend's level is the
 * FlashAttention-3 paper's H100 figure over 989 TFLOP/s times the in-situ
 * 0.92424: sdpa (FA2) forward 366 / 989 x 0.92424 = 0.34204, backward
 * 304.5: 0.28456; cudnn 608.5: 0.56866, 491.5: 0.45932; fa3 635.5:
 * 0.59389, 530: 0.49530. Forward = 68.72e9 / (989e12 x level x 0.96970) +
 * 4.40 us: sdpa 213.90 us, cudnn 130.41, fa3 125.06; backward 2.5 x the
 * FLOPs: sdpa 633.92 us, cudnn 394.41, fa3 366.08 (q, k, v, o move 21 MB:
 * under 9 us, compute-bound). Selective recompute reruns that forward, so
 * recompute_s is it exactly. */
START_TEST(test_attention_backends)
{
	static const char *const names[] = {"training.attention_backend=sdpa", "training.attention_backend=cudnn",
					    "training.attention_backend=fa3"};
	static const double fwd_us[] = {213.899, 130.410, 125.056}, bwd_us[] = {633.924, 394.411, 366.080};
	struct run *x[3];
	for (int i = 0; i < 3; i++) {
		const char *sets[] = {"cluster.gpu=h100-sxm5-80gb", "training.recompute=selective", names[i]};
		x[i] = run(NO_GPU, sets, 3);
		ck_assert_str_eq(x[i]->r.compute.attention_backend, names[i] + strlen("training.attention_backend="));
		ck_assert_double_le(fabs(x[i]->r.compute.dense_layer.recompute_s / (fwd_us[i] * 1e-6) - 1), 1e-5);
	}
	/* the backward differs by the core's backward only */
	for (int i = 1; i < 3; i++)
		ck_assert_double_le(fabs((x[0]->r.compute.dense_layer.bwd_s - x[i]->r.compute.dense_layer.bwd_s) /
					 ((bwd_us[0] - bwd_us[i]) * 1e-6) -
				    1),
				    1e-4);
	for (int i = 0; i < 3; i++)
		free(x[i]);
}
END_TEST

/* FP8 attention on Hopper, the layer of test_attention_backends (forward
 * 68,719,476,736 FLOPs, q = 256 / 264, in situ 1830 / 1980, the matmul
 * overhead 4.4022 us that test's cudnn 130.410 us less its 126.008 us of
 * FLOPs). Under delayed scaling cuDNN's FP8 kernel runs, at
 * FlashAttention-3's "close to 1.2 PFLOP/s" of 1979: 68.72e9 / (1200e12 x
 * 0.924242 x 0.969697) = 63.896 us, + 4.402 = 68.299 us. Under current
 * scaling Transformer Engine runs no FP8 attention on Hopper (the loader
 * refuses it, check_config); the alternative the error names, BF16
 * attention (cudnn), takes 130.410 us: before the refusal, current + FP8
 * attention was priced at the 68.299 us of a kernel that does not run. */
START_TEST(test_fp8_attention_hopper)
{
	static const char *const fp8[] = {"cluster.gpu=h100-sxm5-80gb", "training.recompute=selective",
					  "training.attention_backend=cudnn", "precision.compute=fp8",
					  "precision.fp8_recipe=delayed", "precision.attention=fp8"};
	static const char *const bf16[] = {"cluster.gpu=h100-sxm5-80gb", "training.recompute=selective",
					   "training.attention_backend=cudnn", "precision.compute=fp8",
					   "precision.fp8_recipe=current", "precision.attention=bf16"};
	struct run *f = run(NO_GPU, fp8, 6), *b = run(NO_GPU, bf16, 6);
	ck_assert_double_le(fabs(f->r.compute.dense_layer.recompute_s / 68.299e-6 - 1), 1e-4);
	ck_assert_double_le(fabs(b->r.compute.dense_layer.recompute_s / 130.410e-6 - 1), 1e-4);
	free(f);
	free(b);
}
END_TEST

/* training.compile: the element-wise passes of one Llama-3-8B layer on
 * an H100 at tp 8 (no sequence parallelism, micro batch 1, s 8192: T =
 * 8192 tokens), by hand. n = T h = 8192 x 4096 = 33,554,432 elements of
 * the residual stream; q and k after rope: T (4 + 1) 128 = 5,242,880;
 * SwiGLU's inner T f / t = 8192 x 14336 / 8 = 14,680,064. An element-wise
 * pass takes bytes / (3.35e12 x 0.765619 = 2.56482e12 B/s) + t0_mem =
 * 2.2727e6 / (2.039e12 x 0.765619) = 1.45585 us (the H100 SXM5's memory
 * level, test_presets_and_fp8).
 * Eager (Megatron's fused kernels, one pass each), forward 6 passes:
 * norm 4n, add 6n, rope 4 qk, norm 4n, SwiGLU 6 inner, add 6n =
 * 780,140,544 B: 304.170 + 6 x 1.45585 = 312.905 us. Backward 6: norm 6n
 * and the gradient sum 6n twice, rope 4 qk, SwiGLU 10 inner =
 * 973,078,528 B: 379.394 + 8.735 = 388.129 us.
 * Compiled (one Inductor kernel per chain between GEMMs and attention,
 * each block compiled alone): forward 5 passes, the attention's add and
 * the MLP's norm one kernel (read branch and residual, write the sum and
 * the normed copy: 8n instead of 6n + 4n): 713,031,680 B, 278.004 +
 * 7.279 = 285.284 us; backward 4 passes, each norm's backward with its
 * gradient sum (read x, dy and the residual's gradient, write dx: 8n
 * instead of 12n): 704,643,072 B, 274.734 + 5.823 = 280.557 us. The
 * GEMMs and attention are untouched. */
START_TEST(test_compile_fusion)
{
	const char *eager[] = {"cluster.gpu=h100-sxm5-80gb"};
	const char *comp[] = {"cluster.gpu=h100-sxm5-80gb", "training.compile=true"};
	struct run *e = run(NO_GPU, eager, 1), *c = run(NO_GPU, comp, 2);
	const struct dc_work_time *we = &e->r.compute.dense_layer, *wc = &c->r.compute.dense_layer;
	ck_assert_double_le(fabs((we->fwd_s - we->fwd_matmul_s) / 312.905e-6 - 1), 1e-5);
	ck_assert_double_le(fabs((wc->fwd_s - wc->fwd_matmul_s) / 285.284e-6 - 1), 1e-5);
	ck_assert_double_le(fabs((we->bwd_s - we->bwd_matmul_s) / 388.129e-6 - 1), 1e-5);
	ck_assert_double_le(fabs((wc->bwd_s - wc->bwd_matmul_s) / 280.557e-6 - 1), 1e-5);
	ck_assert_double_eq(we->fwd_matmul_s, wc->fwd_matmul_s);
	ck_assert_double_eq(we->bwd_matmul_s, wc->bwd_matmul_s);
	free(e);
	free(c);
}
END_TEST

/* torchtitan uncompiled: its block's element-wise ops as written, each
 * its own kernel (docs/compute-model.md, "torchtitan's eager RMSNorm" and
 * "torchtitan's eager SwiGLU, rotation and repeat_kv"), on Llama-3-8B at
 * tp 8, micro batch 1, s 8192 on an H100 SXM5, no sequence parallelism:
 * T = 8192 tokens, 4 query heads and 1 kv head of d 128 a rank, f / t =
 * 1792. A pass costs bytes / (3.35 TB/s x 0.765619 = 2.5648 TB/s) plus
 * 1.455853 us; against custom's fused kernels:
 * The RMSNorm (torchtitan/models/norms.py at 9dec370): x.float() 6, pow
 * 8, mean 4, x * rsqrt 8, type_as 6, * weight 4 = 36 bytes an element in
 * 6 passes, against one fused pass of 4; backward 68 bytes in 10 passes
 * against 6 in one. n = 8192 x 4096 = 33,554,432 per norm, two norms a
 * layer: forward 2 (32 n / B + 5 t0) = 851.842 us more, backward 2 (62 n
 * / B + 9 t0) = 1648.443 us more.
 * SwiGLU, inner = 8192 x 1792 = 14,680,064: silu 4 and the product 6, 10
 * bytes in 2 passes against 6 in 1: +4 inner = 58,720,256 B, +1 pass;
 * backward the product's two multiplies 12 and silu's backward 6, 18 in 3,
 * and the sum of w1's and w3's input gradients, 6 n in 1, against 10 inner
 * in 1: +8 inner + 6 n = 318,767,104 B, +3 passes.
 * The rotation on q (8192 x 4 x 128 = 4,194,304) and k (1,048,576): each
 * float() 6, the complex product 8, type_as 6, 20 bytes an element, and
 * the freqs_cis table once a product, 8192 x 64 complex64 = 4,194,304 B,
 * in 6 passes against 4 bytes in 1: +16 x 5,242,880 + 2 x 4,194,304 =
 * 92,274,688 B, +5 passes, each way.
 * repeat_kv (4 query heads to 1 kv head): k and v each read 1,048,576
 * elements and write 4,194,304, 2 bytes each: 20,971,520 B in 2 passes,
 * each way.
 * wq, wk, wv's three input gradients summed: backward 2 x 6 n =
 * 402,653,184 B in 2 passes.
 * Forward 171,966,464 B and 8 passes: 67.0483 + 11.6469 = 78.695 us, with
 * the norms 930.537 us more; backward 834,666,496 B and 12 passes: 325.429
 * + 17.470 = 342.898 us, with the norms 1991.341 us more. The GEMMs do
 * not change; under per-op checkpointing the recomputed forward is the
 * forward's element-wise work, so it grows by the same 930.537 us;
 * compiled, nothing changes. */
START_TEST(test_torchtitan_eager_ops)
{
	const char *cu[] = {"cluster.gpu=h100-sxm5-80gb", "training.recompute=op"};
	/* sequence parallelism off as custom's: torchtitan's default would
	 * turn it on at tp > 1 (docs/config.md rule 16), which moves the
	 * norms' tokens, not the ops compared here */
	const char *tt[] = {"cluster.gpu=h100-sxm5-80gb", "training.recompute=op", "training.framework=torchtitan",
			    "parallel.sequence_parallel=false"};
	const char *ttc[] = {"cluster.gpu=h100-sxm5-80gb", "training.framework=torchtitan", "training.compile=true",
			     "parallel.sequence_parallel=false"};
	const char *cuc[] = {"cluster.gpu=h100-sxm5-80gb", "training.compile=true"};
	struct run *a = run(NO_GPU, cu, 2), *b = run(NO_GPU, tt, 4), *c = run(NO_GPU, ttc, 4), *d = run(NO_GPU, cuc, 2);
	const struct dc_work_time *wa = &a->r.compute.dense_layer, *wb = &b->r.compute.dense_layer;
	ck_assert_double_le(fabs((wb->fwd_s - wa->fwd_s) / 930.537e-6 - 1), 1e-5);
	ck_assert_double_le(fabs((wb->bwd_s - wa->bwd_s) / 1991.341e-6 - 1), 1e-5);
	ck_assert_double_le(fabs((wb->recompute_s - wa->recompute_s) / 930.537e-6 - 1), 1e-5);
	ck_assert_double_eq(wa->fwd_matmul_s, wb->fwd_matmul_s);
	ck_assert_double_eq(wa->bwd_matmul_s, wb->bwd_matmul_s);
	ck_assert_double_eq(c->r.compute.dense_layer.fwd_s, d->r.compute.dense_layer.fwd_s);
	ck_assert_double_eq(c->r.compute.dense_layer.bwd_s, d->r.compute.dense_layer.bwd_s);
	free(a);
	free(b);
	free(c);
	free(d);
}
END_TEST

/* The memory-bound level per GPU: the STREAM triad at full occupancy of
 * te42kyfo/gpu-benches over the data-sheet bandwidth, times what the
 * A100 80 GB's fitted 0.72 keeps of its own triad, 0.72 / (1759 / 2039) =
 * 0.834610: A100 40 GB 1360 / 1555 x 0.834610 = 0.729949; H100 PCIe
 * 1832 / 2000 x 0.834610 = 0.764503; H200 3534 / 4800 x 0.834610 =
 * 0.614482; the A100 80 GB 0.72 by construction. The H100 SXM5 from
 * another suite, Azure's AI-benchmarking-guide, whose triad is taken
 * against its own A100 80 GB: 0.72 x (2.97 / 3.35) / (1.70 / 2.039) =
 * 0.765619; the H800 (the same part and HBM3) the same; the GH200 (no
 * public triad found) keeps the A100 80 GB's fraction, 0.72. */
/* Megatron-Core's moe_act recompute module reruns the routed experts'
 * activation alone (experts.py:269-276, 1019-1030 at d98e8a64): on Mixtral's MoE
 * layer (configs/mixtral-8x7b-ep.json: s 4096, b 1, tp 2, top-2 of 8
 * experts with f 14336, SwiGLU, ep 4) this rank's experts see T k f / t =
 * 4096 x 2 x 14336 / 2 = 58,720,256 inner elements, and SwiGLU reads gate
 * and up and writes their product, 6 bytes each: 352,321,536 bytes at the
 * H100's element-wise level plus one kernel's overhead. Without core_attn
 * the core is not rerun; listing it beside moe_act adds the default's
 * rerun (the core's forward) to the activation's. */
START_TEST(test_moe_act_recompute_by_hand)
{
	static const char *const sets[] = {"cluster.gpu=h100-sxm5-80gb", "training.framework=megatron",
					   "training.recompute=selective", "parallel.sequence_parallel=true",
					   "training.recompute_modules=[\"moe_act\"]"};
	static const char *const both[] = {"cluster.gpu=h100-sxm5-80gb", "training.framework=megatron",
					   "training.recompute=selective", "parallel.sequence_parallel=true",
					   "training.recompute_modules=[\"moe_act\", \"core_attn\"]"};
	struct run *x = run(DC_SOURCE_DIR "/configs/mixtral-8x7b-ep.json", sets, 5);
	struct run *y = run(DC_SOURCE_DIR "/configs/mixtral-8x7b-ep.json", sets, 4);
	struct run *z = run(DC_SOURCE_DIR "/configs/mixtral-8x7b-ep.json", both, 5);
	const struct dc_compute *c = &x->r.compute;
	double act = 352321536.0 / (c->hbm_bandwidth * c->memory_efficiency) + c->memory_overhead_s;
	ck_assert(c->available);
	ck_assert_double_eq_tol(c->moe_layer.recompute_s, act, 1e-15);
	ck_assert_double_eq_tol(c->dense_layer.recompute_s, 0, 1e-18);
	/* the same layer's forward, the core's rerun apart, is untouched */
	ck_assert_double_eq_tol(c->moe_layer.fwd_s, y->r.compute.moe_layer.fwd_s, 1e-15);
	ck_assert(y->r.compute.moe_layer.recompute_s > 0);
	ck_assert_double_eq_tol(z->r.compute.moe_layer.recompute_s, y->r.compute.moe_layer.recompute_s + act, 1e-15);
	free(x);
	free(y);
	free(z);
}
END_TEST

START_TEST(test_memory_levels)
{
	static const char *const gpus[] = {"cluster.gpu=a100-sxm4-40gb", "cluster.gpu=h100-pcie-80gb",
					   "cluster.gpu=h200-sxm-141gb", "cluster.gpu=a100-sxm4-80gb",
					   "cluster.gpu=h100-sxm5-80gb", "cluster.gpu=h800-sxm5-80gb",
					   "cluster.gpu=gh200-96gb"};
	static const double want[] = {0.729949, 0.764503, 0.614482, 0.72, 0.765619, 0.765619, 0.72};
	for (int i = 0; i < 7; i++) {
		const char *sets[] = {gpus[i], "parallel.dp=2"};
		struct run *x = run(NO_GPU, sets, 2);
		ck_assert_double_eq_tol(x->r.compute.memory_efficiency, want[i], 1e-6);
		free(x);
	}
}
END_TEST

/* Waves of tiles (NVIDIA's Matrix Multiplication Background guide,
 * section 3.2): the 175B's q, k, v GEMM on one tp rank, [2048 x 12288] x
 * [12288 x 4608], here as the logits GEMM of a vocabulary of 8 x 4608 =
 * 36,864. Its 2048 x 4608 output is 8 x 36 = 288 tiles of 256 x 128
 * (16 x 18 of 128 x 256), 3 waves of the A100's 108 SMs with 36 slots
 * idle: q = 288 / 324 = 8/9. Widen the output to 5120 columns (vocabulary
 * 40,960): 8 x 40 = 320 tiles, still 3 waves, q = 320 / 324. The wider
 * GEMM does 11.1% more FLOPs in the same time: 5120 x 324 / 320 = 4608 x
 * 324 / 288 = 5184. With cluster.sm_count = 96 the narrow one is 3 whole
 * waves (q = 1) and the wide one 4 (q = 320 / 384). A narrow output
 * takes a smaller tile: vocabulary 5120, 640 columns per rank, is 40
 * tiles of 256 x 128, one wave a third full (q = 40 / 108), but 80 of
 * 128 x 128 at rate 0.75 (q = 0.75 x 80 / 108 = 5/9), more than 256 x 64
 * (0.6 x 80 / 108), 128 x 64 (0.5 x 160 / 216) or 64 x 64 (0.375 x
 * 320 / 324) give. */
START_TEST(test_wave_quantization)
{
	static const char *const narrow[] = {"training.micro_batch_size=1", "model.vocab_size=36864"};
	static const char *const wide[] = {"training.micro_batch_size=1", "model.vocab_size=40960"};
	static const char *const narrow96[] = {"training.micro_batch_size=1", "model.vocab_size=36864",
					       "cluster.sm_count=96"};
	static const char *const wide96[] = {"training.micro_batch_size=1", "model.vocab_size=40960",
					     "cluster.sm_count=96"};
	const char *k175 = DC_SOURCE_DIR "/configs/korthikanti-175b.json";
	struct run *a = run(k175, narrow, 2), *b = run(k175, wide, 2);
	struct run *c = run(k175, narrow96, 3), *d = run(k175, wide96, 3);
	static const char *const small[] = {"training.micro_batch_size=1", "model.vocab_size=5120"};
	struct run *e = run(k175, small, 2);
	double fe = 2.0 * 2048 * 640 * 12288;
	double pe = 312e12 * a->r.compute.matmul_efficiency, t0 = a->r.compute.matmul_overhead_s;
	double fa = 2.0 * 2048 * 4608 * 12288, fb = 2.0 * 2048 * 5120 * 12288;

	ck_assert_double_eq(a->r.compute.sm_count, 108);
	ck_assert_double_le(fabs(a->r.compute.head.fwd_matmul_s - (fa / (pe * 288.0 / 324.0) + t0)), 1e-15);
	ck_assert_double_le(fabs(b->r.compute.head.fwd_matmul_s - (fb / (pe * 320.0 / 324.0) + t0)), 1e-15);
	ck_assert_double_le(fabs(a->r.compute.head.fwd_matmul_s - b->r.compute.head.fwd_matmul_s), 1e-15);
	ck_assert_double_eq(c->r.compute.sm_count, 96);
	ck_assert_double_le(fabs(c->r.compute.head.fwd_matmul_s - (fa / pe + t0)), 1e-15);
	ck_assert_double_le(fabs(d->r.compute.head.fwd_matmul_s - (fb / (pe * 320.0 / 384.0) + t0)), 1e-15);
	ck_assert_double_le(fabs(e->r.compute.head.fwd_matmul_s - (fe / (pe * 5.0 / 9.0) + t0)), 1e-15);
	free(e);
	free(a);
	free(b);
	free(c);
	free(d);
}
END_TEST

/* One thin GEMM, by hand (docs/compute-model.md, "Stream-K on Hopper"):
 * the 22B's logits at micro batch 1 and a vocabulary of 7,168, 896 columns
 * a tp rank: [2048 x 6144] x [6144 x 896], 2 x 2048 x 896 x 6144 =
 * 22,548,578,304 FLOPs, 39,845,888 bytes (15.54 us at the H100's 0.766 of
 * 3.35 TB/s: compute-bound). Its output is 8 x 7 = 56 tiles of 256 x 128,
 * less than half of one wave of 132 SMs, and 6144 / 64 = 96 k-tiles a
 * tile, more than 8: stream-K shares 56 x 96 = 5,376 k-tiles over
 * min(132, 5376 / 8) = 132 units, ceil(5376 / 132) = 41 each, 41 / 96 of
 * a tile-time: q = 56 / (132 x 41 / 96) = 0.99335 (as whole tiles it
 * would be one wave, 56 / 132 = 0.42, or 112 of 128 x 128 at 0.75 x 112 /
 * 132 = 0.64). 22.5486e9 / (989e12 x 0.74556 x 0.99335) + 4.4021 us =
 * 35.187 us. The A100 runs whole tiles (NVIDIA's guide, measured there):
 * 56 of 108 SMs, q = 56 / 108 (128 x 128: 0.75 x 112 / 216), 22.5486e9 /
 * (312e12 x 0.75 x 56 / 108) + 4.376 us = 190.216 us. */
START_TEST(test_stream_k_thin_gemm)
{
	static const char *const h100[] = {"training.micro_batch_size=1", "model.vocab_size=7168",
					   "cluster.gpu=h100-sxm5-80gb"};
	static const char *const a100[] = {"training.micro_batch_size=1", "model.vocab_size=7168",
					   "cluster.gpu=a100-sxm4-80gb"};
	struct run *h = run(K22B, h100, 3), *a = run(K22B, a100, 3);
	ck_assert_double_eq(h->r.compute.sm_count, 132);
	ck_assert_double_le(fabs(h->r.compute.head.fwd_matmul_s / 35.187e-6 - 1), 1e-5);
	ck_assert_double_eq(a->r.compute.sm_count, 108);
	ck_assert_double_le(fabs(a->r.compute.head.fwd_matmul_s / 190.216e-6 - 1), 1e-5);
	free(h);
	free(a);
}
END_TEST

/* A measured efficiency replaces the preset's: the 22B's logits GEMM
 * (8192 x 6400 output: 32 x 50 = 1,600 tiles, 15 waves of 108 with 20
 * slots idle, q = 1600 / 1620) at cluster.matmul_efficiency 0.8, and the
 * first stage's token lookup, 4 B x 8192 x 6144 = 201,326,592 bytes, at
 * cluster.memory_efficiency 0.9; out of range (an SM count from 1024, far
 * above any GPU's), each is refused by name. */
START_TEST(test_efficiency_keys)
{
	static const char *const sets[] = {"cluster.matmul_efficiency=0.8", "cluster.memory_efficiency=0.9",
					   "model.position_embeddings=0", "model.dropout=false"};
	static const char *const bad[] = {"cluster.matmul_efficiency=1", "cluster.memory_efficiency=0",
					  "cluster.sm_count=0", "cluster.sm_count=1024"};
	struct run *x = run(K22B, sets, 4);
	const struct dc_compute *c = &x->r.compute;
	ck_assert_double_eq(c->matmul_efficiency, 0.8);
	ck_assert_double_eq(c->memory_efficiency, 0.9);
	ck_assert_double_le(fabs(c->head.fwd_matmul_s - (644245094400.0 / (312e12 * 0.8 * (1600.0 / 1620.0)) +
							 c->matmul_overhead_s)),
			    1e-12);
	ck_assert_double_le(fabs(c->embedding.fwd_s - (201326592.0 / (2.039e12 * 0.9) + c->memory_overhead_s)), 1e-15);
	free(x);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct dc_override ov = {.text = bad[i]};
		struct dc_config cfg;
		struct dc_diag d;
		char key[64];
		dc_diag_init(&d);
		ck_assert_int_ne(dc_config_load_file(K22B, &ov, 1, &cfg, &d), 0);
		ck_assert_uint_ge(d.count, 1);
		snprintf(key, sizeof(key), "%.*s", (int)(strchr(bad[i], '=') - bad[i]), bad[i]);
		ck_assert_msg(strstr(d.entries[0].text, key) != NULL, "%s: %s", bad[i], d.entries[0].text);
		dc_diag_release(&d);
	}
}
END_TEST

/* The config refuses cluster.sm_count <= 16 under Megatron's TP overlap
 * (check_config), which keeps 16 SMs for its collectives; a plan that
 * skips the rules (the count edited after loading) must still get finite,
 * non-negative tiled costs, not 16 SMs less 16 (a zero-rate GEMM: inf) or
 * 8 less 16 (a negative rate). */
START_TEST(test_tiled_margin_guard)
{
	static const char *const sets[] = {"training.framework=megatron", "overlap.tp=true",
					   "cluster.gpu=h100-sxm5-80gb"};
	static const unsigned sms[] = {16, 8};
	for (size_t i = 0; i < 2; i++) {
		struct run *x = calloc(1, sizeof(*x));
		struct dc_override ov[3];
		struct dc_diag d;
		const struct dc_work_time *w;
		ck_assert(x != NULL);
		for (size_t j = 0; j < 3; j++)
			ov[j] = (struct dc_override){sets[j], 0};
		dc_diag_init(&d);
		ck_assert_int_eq(dc_config_load_file(K22B, ov, 3, &x->cfg, &d), 0);
		dc_diag_release(&d);
		x->cfg.cluster.sm_count = sms[i];
		ck_assert_int_eq(dc_plan_derive(&x->cfg, &x->plan), 0);
		ck_assert_int_eq(dc_estimate(&x->plan, DC_EST_BIT(DC_EST_COMPUTE), &x->r), 0);
		w = &x->r.compute.dense_layer;
		ck_assert_msg(isfinite(w->tp_tiled_fwd_s) && w->tp_tiled_fwd_s >= 0, "%u SMs: fwd %g", sms[i],
			      w->tp_tiled_fwd_s);
		ck_assert_msg(isfinite(w->tp_tiled_bwd_s) && w->tp_tiled_bwd_s >= 0, "%u SMs: bwd %g", sms[i],
			      w->tp_tiled_bwd_s);
		free(x);
	}
}
END_TEST

/* No peak or bandwidth: the result is unavailable and names the keys;
 * the rest of the report is unaffected (the estimator succeeds). */
START_TEST(test_missing_keys)
{
	static const char *const peak_only[] = {"cluster.peak_flops=312e12"};
	static const char *const hbm_only[] = {"cluster.hbm_bandwidth=2.039 TB/s"};
	static const char *const fp8[] = {"cluster.peak_flops=312e12", "cluster.hbm_bandwidth=2.039 TB/s",
					  "precision.compute=fp8"};
	static const char *const fp8_only[] = {"cluster.peak_flops_fp8=624e12", "cluster.hbm_bandwidth=2.039 TB/s",
					       "precision.compute=fp8"};
	struct run *x = run(NO_GPU, NULL, 0);
	ck_assert_int_eq(x->r.compute.available, 0);
	ck_assert_str_eq(x->r.compute.missing, "cluster.peak_flops, cluster.hbm_bandwidth");
	ck_assert_double_eq(x->r.compute.dense_layer.fwd_s, 0);
	ck_assert(x->r.done & DC_EST_BIT(DC_EST_COMPUTE));
	free(x);
	x = run(NO_GPU, peak_only, 1);
	ck_assert_int_eq(x->r.compute.available, 0);
	ck_assert_str_eq(x->r.compute.missing, "cluster.hbm_bandwidth");
	free(x);
	x = run(NO_GPU, hbm_only, 1);
	ck_assert_str_eq(x->r.compute.missing, "cluster.peak_flops");
	free(x);
	x = run(NO_GPU, fp8, 3);
	ck_assert_int_eq(x->r.compute.available, 0);
	ck_assert_str_eq(x->r.compute.missing, "cluster.peak_flops_fp8");
	free(x);
	/* under fp8 the BF16 peak is needed too: attention and the LM head
	 * stay BF16 */
	x = run(NO_GPU, fp8_only, 3);
	ck_assert_str_eq(x->r.compute.missing, "cluster.peak_flops");
	free(x);
}
END_TEST

/* Adam on Llama-2-7B (configs/systems.json, 6,738,415,616 parameters,
 * check_config.c) on one rank (tp 1, pp 1, DDP): per parameter it reads
 * the 2-byte gradient twice (the update and the global-norm clip), reads
 * and writes the 4-byte master copy and the 8 bytes of moments, and
 * writes the 2-byte working copy: 4 + 8 + 16 + 2 = 30 bytes, so
 * 202,152,468,480 bytes at 2 TB/s x e_mem. ZeRO-1 over dp 8 updates an
 * eighth: 842,301,952 parameters, 25,269,058,560 bytes. Megatron-LM's
 * optimizer (the megatron preset; systems.json's 2-byte gradients set to
 * Megatron's 4-byte FP32 main gradients) reads the
 * gradient twice (8), the master and moments (4 + 8) and writes them
 * (4 + 8), then copies the master into the working parameters in a
 * kernel of its own (read 4, write 2) and zeroes the gradient buffer
 * (write 4): 42 bytes, 283,013,455,872 on one rank. Under ZeRO-1 (its
 * distributed optimizer) a rank updates an eighth, 38 bytes each, but the
 * gradient buffer it zeroes is whole: 38 x 842,301,952 + 4 x
 * 6,738,415,616 = 58,961,136,640 bytes. */
START_TEST(test_optimizer_step)
{
	static const char *const ddp[] = {"parallel.tp=1", "parallel.pp=1", "parallel.dp=8",
					  "cluster.peak_flops=312e12", "cluster.hbm_bandwidth=2 TB/s"};
	static const char *const zero1[] = {"parallel.tp=1", "parallel.pp=1", "parallel.dp=8",
					    "cluster.peak_flops=312e12", "cluster.hbm_bandwidth=2 TB/s",
					    "parallel.sharding=zero1"};
	struct run *x = run(SYSTEMS, ddp, 5);
	const struct dc_compute *c = &x->r.compute;
	ck_assert_uint_eq(x->plan.nsegments, 1);
	ck_assert_double_le(fabs(c->optimizer_s[0] - (202152468480.0 / (2e12 * c->memory_efficiency) + c->memory_overhead_s)),
			    1e-12);
	free(x);
	x = run(SYSTEMS, zero1, 6);
	c = &x->r.compute;
	ck_assert_double_le(fabs(c->optimizer_s[0] - (25269058560.0 / (2e12 * c->memory_efficiency) + c->memory_overhead_s)),
			    1e-12);
	free(x);
	{
		static const char *const meg[] = {"parallel.tp=1", "parallel.pp=1", "parallel.dp=8",
						  "cluster.peak_flops=312e12", "cluster.hbm_bandwidth=2 TB/s",
						  "precision.preset=megatron", "precision.grad_bytes=4"};
		x = run(SYSTEMS, meg, 7);
		c = &x->r.compute;
		ck_assert_double_le(
			fabs(c->optimizer_s[0] - (283013455872.0 / (2e12 * c->memory_efficiency) + c->memory_overhead_s)),
			1e-12);
		free(x);
	}
	{
		static const char *const meg1[] = {"parallel.tp=1", "parallel.pp=1", "parallel.dp=8",
						   "cluster.peak_flops=312e12", "cluster.hbm_bandwidth=2 TB/s",
						   "precision.preset=megatron", "precision.grad_bytes=4",
						   "parallel.sharding=zero1"};
		x = run(SYSTEMS, meg1, 8);
		c = &x->r.compute;
		ck_assert_double_le(
			fabs(c->optimizer_s[0] - (58961136640.0 / (2e12 * c->memory_efficiency) + c->memory_overhead_s)),
			1e-12);
		free(x);
	}
}
END_TEST

/* The optimizer step by training.optimizer_implementation and the
 * framework's clip, on test_optimizer_step's DDP layout: Llama-2-7B's
 * P = 6,738,415,616 parameters a rank, FP32 states (FSDP2's: parameters
 * and gradients 4 bytes, the moments 8 together, no master). Fused (torch's fused AdamW): read p, g, m, v, write p, m, v,
 * 28 B, and the clip's norm reads g, 4: 32 B, one pass, as before the key.
 * Under torchtitan the clip also multiplies every gradient, read and
 * write (torch/nn/utils/clip_grad.py), as DeepSpeed's ZeRO unscales
 * with ZeRO (unscale_and_clip_grads): 40 B, two passes; not Megatron's,
 * nor DeepSpeed's without ZeRO (this DDP layout), which scale only above
 * the bound: 32 B. Foreach (torch's
 * _multi_tensor_adamw): mul_ p 8, lerp_ m with g 12, mul_ v 8, addcmul_ v
 * with g 12, sqrt v into t 8, div_ t 8, add_ t 8, addcdiv_ p with m, t 16:
 * 80 B in eight passes, 84 with the norm, 92 and nine passes under
 * torchtitan. The H200 measured these (data/profiles/h200-*-ends-*): one
 * layer's 218,112,000 FP32 parameters stepped in 1.742 ms fused, 4.809 ms
 * foreach, and clipped in 0.797 ms. */
START_TEST(test_optimizer_implementations)
{
	/* DeepSpeed with ZeRO-1 over the 8 ranks: its update steps a rank's
	 * 842,301,952 of them and unscales every gradient, 40 B in two
	 * passes */
	static const struct {
		const char *framework, *impl, *sharding;
		double params, bytes, passes;
	} rows[] = {
		{"training.framework=custom", "training.optimizer_implementation=fused", "parallel.sharding=none",
		 6738415616.0, 32.0, 1},
		{"training.framework=torchtitan", "training.optimizer_implementation=fused", "parallel.sharding=none",
		 6738415616.0, 40.0, 2},
		{"training.framework=deepspeed", "training.optimizer_implementation=fused", "parallel.sharding=none",
		 6738415616.0, 32.0, 1},
		{"training.framework=megatron", "training.optimizer_implementation=fused", "parallel.sharding=none",
		 6738415616.0, 32.0, 1},
		{"training.framework=custom", "training.optimizer_implementation=foreach", "parallel.sharding=none",
		 6738415616.0, 84.0, 8},
		{"training.framework=torchtitan", "training.optimizer_implementation=foreach", "parallel.sharding=none",
		 6738415616.0, 92.0, 9},
		{"training.framework=deepspeed", "training.optimizer_implementation=fused", "parallel.sharding=zero1",
		 842301952.0, 40.0, 2},
	};
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		/* the course config gives the byte keys: FSDP2's set here */
		const char *sets[] = {"parallel.tp=1",
				      "parallel.pp=1",
				      "parallel.dp=8",
				      "cluster.peak_flops=312e12",
				      "cluster.hbm_bandwidth=2 TB/s",
				      "precision.param_bytes=4",
				      "precision.grad_bytes=4",
				      "precision.master_bytes=0",
				      "precision.optimizer_bytes=8",
				      rows[i].sharding,
				      rows[i].framework,
				      rows[i].impl};
		struct run *x = run(SYSTEMS, sets, 12);
		const struct dc_compute *c = &x->r.compute;
		double want = rows[i].params * rows[i].bytes / (2e12 * c->memory_efficiency) +
			      rows[i].passes * c->memory_overhead_s;
		ck_assert_msg(fabs(c->optimizer_s[0] / want - 1) <= 1e-12, "%s %s %s: %.17g s, by hand %.17g",
			      rows[i].framework, rows[i].impl, rows[i].sharding, c->optimizer_s[0], want);
		free(x);
	}
}
END_TEST

/* dc_compute_reshard: the DDP layout's kernel times moved to ZeRO-1 by
 * pricing the optimizer step alone give test_optimizer_step's ZeRO-1
 * figure, 25,269,058,560 bytes through HBM (the master copy and moments
 * of 1/8 of the parameters), and every other member as the full
 * computation of the ZeRO-1 plan has it, byte for byte. */
START_TEST(test_reshard_prices_the_optimizer_alone)
{
	static const char *const ddp[] = {"parallel.tp=1", "parallel.pp=1", "parallel.dp=8",
					  "cluster.peak_flops=312e12", "cluster.hbm_bandwidth=2 TB/s"};
	static const char *const zero1[] = {"parallel.tp=1", "parallel.pp=1", "parallel.dp=8",
					    "cluster.peak_flops=312e12", "cluster.hbm_bandwidth=2 TB/s",
					    "parallel.sharding=zero1"};
	struct run *x = run(SYSTEMS, ddp, 5), *z = run(SYSTEMS, zero1, 6);
	struct dc_plan *p = malloc(sizeof(*p));
	struct dc_layout lay = x->plan.layout;
	struct dc_compute c = x->r.compute;
	ck_assert_ptr_nonnull(p);
	lay.sharding = DC_SHARD_ZERO1;
	ck_assert_int_eq(dc_plan_derive_from(&x->plan, &lay, p), 0);
	dc_compute_reshard(p, &c);
	ck_assert_double_le(fabs(c.optimizer_s[0] - (25269058560.0 / (2e12 * c.memory_efficiency) + c.memory_overhead_s)),
			    1e-12);
	ck_assert(c.optimizer_s[0] < x->r.compute.optimizer_s[0]);
	ck_assert(memcmp(&c, &z->r.compute, sizeof(c)) == 0);
	free(p);
	free(z);
	free(x);
}
END_TEST

/* dc_compute_rechunk: the 175B's kernel times on v 3 moved to v 2 are
 * v 2's, byte for byte, the optimizer step refilled. Under full recompute
 * of training.recompute_layers 2 the layers' recompute time is their
 * chunk's share, 2 of 96 / (8 x 3) = 4 layers on v 3 and 2 of 96 / (8 x 2)
 * = 6 on v 2 (plan.h dc_plan_recompute_share), so the kernels are
 * computed again: a half and a third of a layer's forward. */
START_TEST(test_rechunk_keeps_the_kernels)
{
	static const char *const v3[] = {"parallel.virtual_pipeline=3"};
	static const char *const v2[] = {"parallel.virtual_pipeline=2"};
	static const char *const v3_full[] = {"parallel.virtual_pipeline=3", "training.recompute=full",
					      "training.recompute_layers=2"};
	static const char *const v2_full[] = {"parallel.virtual_pipeline=2", "training.recompute=full",
					      "training.recompute_layers=2"};
	const char *k175 = DC_SOURCE_DIR "/configs/korthikanti-175b.json";
	struct run *runs[2][2] = {{run(k175, v3, 1), run(k175, v2, 1)}, {run(k175, v3_full, 3), run(k175, v2_full, 3)}};
	struct dc_plan *p = malloc(sizeof(*p));
	const char *err = NULL;
	ck_assert_ptr_nonnull(p);
	for (int i = 0; i < 2; i++) {
		struct run *x = runs[i][0], *z = runs[i][1];
		struct dc_layout lay = x->plan.layout;
		struct dc_compute c = x->r.compute;
		lay.virtual_pipeline = 2;
		ck_assert_int_eq(dc_plan_derive_from(&x->plan, &lay, p), 0);
		ck_assert_int_eq(dc_compute_rechunk(p, &c, &err), 0);
		ck_assert(memcmp(&c, &z->r.compute, sizeof(c)) == 0);
	}
	{
		const struct dc_work_time *a = &runs[1][0]->r.compute.dense_layer, *b = &runs[1][1]->r.compute.dense_layer;
		ck_assert_double_le(fabs(a->recompute_s - a->fwd_s / 2.0), 1e-15);
		ck_assert_double_le(fabs(b->recompute_s - b->fwd_s / 3.0), 1e-15);
	}
	free(p);
	for (int i = 0; i < 2; i++) {
		free(runs[i][0]);
		free(runs[i][1]);
	}
}
END_TEST

/* The optimizer on the host (parallel.offload "optimizer";
 * docs/step-model.md, "The optimizer on the host"), Llama-2-7B
 * (6,738,415,616 parameters) on systems.json's 2 nodes of 4 A100s, tp 1,
 * dp 8, ZeRO-1: a rank's shard is 6,738,415,616 / 8 = 842,301,952
 * parameters. Its 2-byte gradients, 1,684,603,904 B, cross the A100's
 * PCIe Gen4 x16 (64 GB/s both ways on the data sheet, 32 GB/s one way) in
 * 0.052643872 s, and its 2-byte parameters come back in as long; the
 * node's CPUs step 4 x 842,301,952 = 3,369,207,808 parameters at
 * DeepSpeed's CPU-Adam rate, 10^10 in 2.57 s (Ren et al. 2021, Table 4),
 * 3.891e9 a second to four figures: 0.8658976633 s. 0.9711854073 s a
 * step in all, where the GPU's step was
 * 25,269,058,560 B through HBM (test_optimizer_step). With the keys given
 * (25 GB/s, 2 x 10^9 parameters/s) and no sharding, every rank's shard is
 * all 6,738,415,616: 13,476,831,232 B each way, 0.53907324928 s, and
 * 4 x 6,738,415,616 / 2e9 = 13.476831232 s of Adam. */
START_TEST(test_optimizer_on_the_host)
{
	static const char *const zero1[] = {"parallel.tp=1", "parallel.pp=1", "parallel.dp=8",
					    "parallel.sharding=zero1", "parallel.offload=optimizer"};
	static const char *const keys[] = {"parallel.tp=1", "parallel.pp=1", "parallel.dp=8",
					   "parallel.offload=optimizer", "cluster.host_bandwidth=25 GB/s",
					   "cluster.host_adam_rate=2e9"};
	static const char *const on_gpu[] = {"parallel.tp=1", "parallel.pp=1", "parallel.dp=8",
					     "parallel.sharding=zero1", "cluster.hbm_bandwidth=2 TB/s"};
	struct run *x = run(SYSTEMS, zero1, 5);
	const struct dc_compute *c = &x->r.compute;
	ck_assert_int_eq(c->optimizer_on_host, 1);
	ck_assert_double_eq(c->host_bandwidth, 32e9);
	ck_assert_double_eq(c->host_adam_rate, 3.891e9);
	ck_assert_double_eq(c->host_step[0].params, 842301952.0);
	ck_assert_double_le(fabs(c->host_step[0].d2h_s - 0.052643872), 1e-12);
	ck_assert_double_le(fabs(c->host_step[0].cpu_s - 0.8658976633), 1e-10);
	ck_assert_double_le(fabs(c->host_step[0].h2d_s - 0.052643872), 1e-12);
	ck_assert_double_le(fabs(c->optimizer_s[0] - 0.9711854073), 1e-10);
	free(x);
	x = run(SYSTEMS, keys, 6);
	c = &x->r.compute;
	ck_assert_double_eq(c->host_step[0].params, 6738415616.0);
	ck_assert_double_le(fabs(c->host_step[0].d2h_s - 0.53907324928), 1e-12);
	ck_assert_double_le(fabs(c->host_step[0].cpu_s - 13.476831232), 1e-9);
	ck_assert_double_le(fabs(c->optimizer_s[0] - (2 * 0.53907324928 + 13.476831232)), 1e-9);
	free(x);
	/* without offload: the GPU's step, and no host parts */
	x = run(SYSTEMS, on_gpu, 5);
	c = &x->r.compute;
	ck_assert_int_eq(c->optimizer_on_host, 0);
	ck_assert_double_eq(c->host_step[0].cpu_s, 0);
	ck_assert_double_le(fabs(c->optimizer_s[0] - (25269058560.0 / (2e12 * c->memory_efficiency) + c->memory_overhead_s)),
			    1e-9);
	free(x);
}
END_TEST

/* DeepSpeed ZeRO-1/2's host copies (training.framework deepspeed;
 * deepspeed/runtime/zero/stage_1_and_2.py at edaa7221), on
 * test_optimizer_on_the_host's layout: 842,301,952 parameters a rank,
 * 4 GPUs a node, 32 GB/s one way, 3.891e9 parameters/s of CPU-Adam:
 * 4 x 842,301,952 / 3.891e9 = 0.8658976633 s of Adam. The boundary's
 * gradients cross as FP32 (async_inplace_copy_grad_to_fp32_buffer_from_gpu
 * casts them to the FP32 master dtype on the GPU), 842,301,952 x 4 =
 * 3,369,207,808 B in 0.105287744 s. The updated FP32 partition is cast to
 * BF16 on the CPU and comes back in 2 B (step(): the bit16 host buffer),
 * 1,684,603,904 B in 0.052643872 s; the node's cast streams 4 + 2 = 6 B a
 * parameter at CPU-Adam's rate for its 28: 3,369,207,808 x 6 / 28 /
 * 3.891e9 = 0.1855494993 s. At 8 micro steps ZeRO-2 (reducing each one)
 * copies the 2-byte gradients out at every micro step and the host's sum
 * back at each of the 7 after the first (async_accumulate_grad_in_cpu_via_gpu):
 * 15 x 1,684,603,904 B = 25,269,058,560 B, 0.78965808 s; in all
 * 0.78965808 + 0.105287744 + 0.8658976633 + 0.1855494993 + 0.052643872 =
 * 1.9990368586 s. ZeRO-1 reduces at the boundary alone, with micro_step_id
 * still 0: no micro-step copies, 1.2093787786 s. One micro step: none
 * either. */
START_TEST(test_deepspeed_host_copies)
{
	static const char *const zero2[] = {"parallel.tp=1", "parallel.pp=1", "parallel.dp=8",
					    "parallel.sharding=zero2", "parallel.offload=optimizer",
					    "training.framework=deepspeed", "training.grad_accum_steps=8"};
	static const char *const zero1[] = {"parallel.tp=1", "parallel.pp=1", "parallel.dp=8",
					    "parallel.sharding=zero1", "parallel.offload=optimizer",
					    "training.framework=deepspeed", "training.grad_accum_steps=8"};
	static const char *const once[] = {"parallel.tp=1", "parallel.pp=1", "parallel.dp=8",
					   "parallel.sharding=zero2", "parallel.offload=optimizer",
					   "training.framework=deepspeed", "training.grad_accum_steps=1"};
	static const char *const zero3[] = {"parallel.tp=1", "parallel.pp=1", "parallel.dp=8",
					    "parallel.sharding=fsdp", "parallel.offload=optimizer",
					    "training.framework=deepspeed", "training.grad_accum_steps=8"};
	struct run *x = run(SYSTEMS, zero2, 7);
	const struct dc_host_step *h = &x->r.compute.host_step[0];
	ck_assert_double_eq(h->params, 842301952.0);
	ck_assert_double_le(fabs(h->accum_s - 0.78965808), 1e-12);
	ck_assert_double_le(fabs(h->d2h_s - 0.105287744), 1e-12);
	ck_assert_double_le(fabs(h->cpu_s - 0.8658976633), 1e-10);
	ck_assert_double_le(fabs(h->cast_s - 0.1855494993), 1e-10);
	ck_assert_double_le(fabs(h->h2d_s - 0.052643872), 1e-12);
	ck_assert_double_le(fabs(x->r.compute.optimizer_s[0] - 1.9990368586), 1e-10);
	free(x);
	x = run(SYSTEMS, zero1, 7);
	h = &x->r.compute.host_step[0];
	ck_assert_double_eq(h->accum_s, 0);
	ck_assert_double_le(fabs(h->d2h_s - 0.105287744), 1e-12);
	ck_assert_double_le(fabs(h->cast_s - 0.1855494993), 1e-10);
	ck_assert_double_le(fabs(h->h2d_s - 0.052643872), 1e-12);
	ck_assert_double_le(fabs(x->r.compute.optimizer_s[0] - 1.2093787786), 1e-10);
	free(x);
	x = run(SYSTEMS, once, 7);
	h = &x->r.compute.host_step[0];
	ck_assert_double_eq(h->accum_s, 0);
	ck_assert_double_le(fabs(h->d2h_s - 0.105287744), 1e-12);
	ck_assert_double_le(fabs(x->r.compute.optimizer_s[0] - 1.2093787786), 1e-10);
	free(x);
	/* ZeRO-3: the same 842,301,952-parameter shard; gradients out as
	 * FP32, 4 B / 32 GB/s = 0.105287744 s, parameters cast to BF16 on
	 * the CPUs (PyTorch's blocking copy_ converts there) in the same
	 * 0.1855494993 s and back in 2 B: 0.052643872 s; 1.2093787786 s with
	 * Adam; its per-micro-step copies ride the FSDP streams (check_step.c
	 * test_deepspeed_zero3_host_copies). With "optimizer+params" the cast
	 * lands in the parameters' host buffer and nothing comes back:
	 * 1.2093787786 - 0.052643872 = 1.1567349066 s */
	x = run(SYSTEMS, zero3, 7);
	h = &x->r.compute.host_step[0];
	ck_assert_double_eq(h->params, 842301952.0);
	ck_assert_double_eq(h->accum_s, 0);
	ck_assert_double_le(fabs(h->d2h_s - 0.105287744), 1e-12);
	ck_assert_double_le(fabs(h->cast_s - 0.1855494993), 1e-10);
	ck_assert_double_le(fabs(h->h2d_s - 0.052643872), 1e-12);
	ck_assert_double_le(fabs(x->r.compute.optimizer_s[0] - 1.2093787786), 1e-10);
	free(x);
	{
		static const char *const zero3p[] = {"parallel.tp=1", "parallel.pp=1", "parallel.dp=8",
						     "parallel.sharding=fsdp", "parallel.offload=optimizer+params",
						     "training.framework=deepspeed", "training.grad_accum_steps=8"};
		x = run(SYSTEMS, zero3p, 7);
		h = &x->r.compute.host_step[0];
		ck_assert_double_eq(h->h2d_s, 0);
		ck_assert_double_le(fabs(h->cast_s - 0.1855494993), 1e-10);
		ck_assert_double_le(fabs(x->r.compute.optimizer_s[0] - 1.1567349066), 1e-10);
		free(x);
	}
}
END_TEST

/* dc_compute_reshard under offload: DDP's host step (every rank's shard
 * the whole 6,738,415,616) moved to ZeRO-1 gives test_optimizer_on_the_host's
 * 842,301,952-parameter figures, byte for byte the full computation's. */
START_TEST(test_reshard_moves_the_host_step)
{
	static const char *const ddp[] = {"parallel.tp=1", "parallel.pp=1", "parallel.dp=8",
					  "parallel.offload=optimizer"};
	static const char *const zero1[] = {"parallel.tp=1", "parallel.pp=1", "parallel.dp=8",
					    "parallel.offload=optimizer", "parallel.sharding=zero1"};
	struct run *x = run(SYSTEMS, ddp, 4), *z = run(SYSTEMS, zero1, 5);
	struct dc_plan *p = malloc(sizeof(*p));
	struct dc_layout lay = x->plan.layout;
	struct dc_compute c = x->r.compute;
	ck_assert_ptr_nonnull(p);
	ck_assert_double_eq(c.host_step[0].params, 6738415616.0);
	lay.sharding = DC_SHARD_ZERO1;
	ck_assert_int_eq(dc_plan_derive_from(&x->plan, &lay, p), 0);
	dc_compute_reshard(p, &c);
	ck_assert_double_eq(c.host_step[0].params, 842301952.0);
	ck_assert_double_le(fabs(c.optimizer_s[0] - 0.9711854073), 1e-10);
	ck_assert(memcmp(&c, &z->r.compute, sizeof(c)) == 0);
	free(p);
	free(z);
	free(x);
}
END_TEST

/* Flash attention writes no s x s tensor: the 22B layer's forward loses
 * the softmax and dropout traffic of eager, 64/8 heads x 4 x 2048^2 =
 * 134,217,728 scores on a rank at 4 + 5 bytes each, and its memory-bound
 * forward drops by at least that much time; selective recompute reruns
 * the one flash kernel. */
START_TEST(test_flash_versus_eager)
{
	const char *sets[NGPT + 2];
	struct run *e, *f;
	double scores_s;
	memcpy(sets, megatron_gpt, sizeof(megatron_gpt));
	sets[NGPT] = "training.recompute=selective";
	e = run(K22B, sets, NGPT + 1);
	sets[1] = "training.attention=flash";
	f = run(K22B, sets, NGPT + 1);
	scores_s = 134217728.0 * 9.0 / (2.039e12 * e->r.compute.memory_efficiency);
	ck_assert_double_le((f->r.compute.dense_layer.fwd_s - f->r.compute.dense_layer.fwd_matmul_s) + scores_s,
			    e->r.compute.dense_layer.fwd_s - e->r.compute.dense_layer.fwd_matmul_s + 1e-9);
	ck_assert_double_gt(f->r.compute.dense_layer.recompute_s, 0);
	ck_assert_double_lt(f->r.compute.dense_layer.recompute_s, e->r.compute.dense_layer.recompute_s);
	free(e);
	free(f);
}
END_TEST

/* What each recompute policy adds before the backward, on the 22B layer:
 * full reruns the forward; Megatron's block method with recompute_layers 12
 * of the 48 layers of the chunk (pp 1) a quarter of it per layer on
 * average; torchtitan's op policy keeps the flash kernel's and every other
 * matmul's outputs, so it reruns less than full and more than selective
 * (which reruns the flash kernel alone). */
START_TEST(test_recompute_policies)
{
	static const char *const none[] = {"cluster.gpu=a100-sxm4-80gb", "training.recompute=none"};
	static const char *const full[] = {"cluster.gpu=a100-sxm4-80gb", "training.recompute=full"};
	static const char *const block[] = {"cluster.gpu=a100-sxm4-80gb", "training.recompute=full",
					    "training.recompute_layers=12"};
	static const char *const op[] = {"cluster.gpu=a100-sxm4-80gb", "training.recompute=op"};
	static const char *const sel[] = {"cluster.gpu=a100-sxm4-80gb", "training.recompute=selective"};
	struct run *n = run(K22B, none, 2), *f = run(K22B, full, 2), *b = run(K22B, block, 3), *o = run(K22B, op, 2),
		   *s = run(K22B, sel, 2);
	double fwd = n->r.compute.dense_layer.fwd_s;
	ck_assert_double_eq(n->r.compute.dense_layer.recompute_s, 0);
	ck_assert_double_eq(f->r.compute.dense_layer.recompute_s, fwd);
	ck_assert_double_le(fabs(b->r.compute.dense_layer.recompute_s - fwd / 4.0), 1e-15);
	ck_assert_double_lt(o->r.compute.dense_layer.recompute_s, fwd);
	ck_assert_double_gt(o->r.compute.dense_layer.recompute_s, s->r.compute.dense_layer.recompute_s);
	ck_assert_double_gt(s->r.compute.dense_layer.recompute_s, 0);
	/* recomputation never changes the forward or the backward itself */
	ck_assert_double_eq(o->r.compute.dense_layer.bwd_s, n->r.compute.dense_layer.bwd_s);
	free(n);
	free(f);
	free(b);
	free(o);
	free(s);
}
END_TEST

/* An MTP module's recompute, as Megatron-Core at d98e8a64 reruns it
 * (multi_token_prediction.py): under full recompute the uniform method
 * checkpoints enorm, hnorm, eh_proj and the layer together (:1621-1629),
 * the block method runs the module without a checkpoint (:1630-1634); the
 * module's pass through the shared head is outside the checkpoint. Mixtral
 * (configs/mixtral-8x7b-ep.json: 32 MoE layers, pp 4, so 8 a stage, 16
 * microbatches) with one module on an H100, no compute slowdown. By hand:
 * - the head's forward with the module is head + (norms and eh_proj, E) +
 *   a MoE layer (F) + head again, so E + F = head_fwd(1) - 2 head_fwd(0);
 * - uniform: the head reruns E + F (before: F alone, eh_proj left out);
 *   its layer reruns F, as a decoder layer does;
 * - block with recompute_layers 2 of the 8: a decoder layer reruns F / 4
 *   (2 of 8), the module nothing (before: F / 4 too);
 * - the step: the last stage runs 16 microbatches, so full recompute adds
 *   16 x (8 x F + E + F) to its kernels over none (uniform), 16 x 8 x F /
 *   4 = 32 F (block); and the rest of its step's kernels are the same. */
START_TEST(test_mtp_recompute_rule)
{
#define MTP_SETS "cluster.gpu=h100-sxm5-80gb", "parallel.sequence_parallel=true", "overlap.compute_slowdown=0"
	static const char *const none0[] = {MTP_SETS, "training.recompute=none", "model.mtp_layers=0"};
	static const char *const none1[] = {MTP_SETS, "training.recompute=none", "model.mtp_layers=1"};
	static const char *const unif1[] = {MTP_SETS, "training.recompute=full", "model.mtp_layers=1"};
	static const char *const block1[] = {MTP_SETS, "training.recompute=full", "training.recompute_layers=2",
					     "model.mtp_layers=1"};
	static const char *const sel1[] = {MTP_SETS, "training.recompute=selective", "model.mtp_layers=1"};
#undef MTP_SETS
	const char *mix = DC_SOURCE_DIR "/configs/mixtral-8x7b-ep.json";
#define N(a) (sizeof(a) / sizeof(a[0]))
	struct run *n0 = run(mix, none0, N(none0)), *n1 = run(mix, none1, N(none1)), *u1 = run(mix, unif1, N(unif1)),
		   *b1 = run(mix, block1, N(block1)), *s1 = run(mix, sel1, N(sel1));
#undef N
	const struct dc_compute *c = &n1->r.compute;
	double F = c->moe_layer.fwd_s, E = c->head.fwd_s - 2.0 * n0->r.compute.head.fwd_s - F;
	double last_n, last_u, last_b;
	ck_assert(c->available);
	ck_assert_double_gt(E, 0);
	/* none: nothing reruns */
	ck_assert_double_eq(c->head.recompute_s, 0);
	ck_assert_double_eq(c->mtp_layer.recompute_s, 0);
	/* uniform: all of the module but its head pass */
	ck_assert_double_le(fabs(u1->r.compute.head.recompute_s / (E + F) - 1), 1e-12);
	ck_assert_double_eq(u1->r.compute.mtp_layer.recompute_s, F);
	ck_assert_double_eq(u1->r.compute.moe_layer.recompute_s, F);
	/* block: the decoder's layers a quarter, the module nothing */
	ck_assert_double_le(fabs(b1->r.compute.moe_layer.recompute_s - F / 4.0), 1e-15);
	ck_assert_double_eq(b1->r.compute.mtp_layer.recompute_s, 0);
	ck_assert_double_eq(b1->r.compute.head.recompute_s, 0);
	/* selective: the module's layer its attention core, as any layer; no
	 * eh_proj */
	ck_assert_double_gt(s1->r.compute.moe_layer.recompute_s, 0);
	ck_assert_double_eq(s1->r.compute.mtp_layer.recompute_s, s1->r.compute.moe_layer.recompute_s);
	ck_assert_double_le(fabs(s1->r.compute.head.recompute_s - s1->r.compute.moe_layer.recompute_s), 1e-18);
	/* recomputation never changes the forward */
	ck_assert_double_eq(u1->r.compute.head.fwd_s, c->head.fwd_s);
	/* the step: the last stage's kernels */
	{
		struct run *sn = n1, *su = u1, *sb = b1;
		struct dc_results *rs[3] = {&sn->r, &su->r, &sb->r};
		double *last[3] = {&last_n, &last_u, &last_b};
		for (int i = 0; i < 3; i++) {
			const struct dc_step_class *k;
			struct dc_plan *pl = i == 0 ? &sn->plan : i == 1 ? &su->plan : &sb->plan;
			ck_assert_int_eq(dc_estimate(pl, DC_EST_BIT(DC_EST_STEP), rs[i]), 0);
			k = &rs[i]->step.classes[rs[i]->step.nclasses - 1];
			ck_assert_uint_eq(k->stage_last, 3);
			*last[i] = k->compute_s;
		}
	}
	ck_assert_double_le(fabs((last_u - last_n) / (16.0 * (8.0 * F + E + F)) - 1), 1e-9);
	ck_assert_double_le(fabs((last_b - last_n) / (32.0 * F) - 1), 1e-9);
	free(n0);
	free(n1);
	free(u1);
	free(b1);
	free(s1);
}
END_TEST

/* Layer kinds in the kernels (docs/models.md, "Layer kinds"). A sliding
 * window: a flash kernel runs only the blocks inside each query's window.
 * Mistral-7B's shape at s 32768 with its 4096-token window, tp 4, micro
 * batch 1: per rank the projections 10,485,760 (attention 41,943,040 / 4)
 * + 44,040,192 (MLP 176,160,768 / 4) = 54,525,952 parameters, x 2 x
 * 32768 tokens = 3,573,412,790,272 FLOPs; the core, 8 heads of this rank,
 * each query meeting min(p + 1, 4096) keys: 4096 x 4097 / 2 + 28672 x
 * 4096 = 125,831,168 key visits, about 32768 x (4096 - 4096^2 / (2 x
 * 32768)) = 125,829,120 as the kernel model counts them, x 2 x (128 + 128)
 * FLOPs x 8 heads = 515,396,075,520. Without the window the causal core is
 * 8 x 32768^2 / 2 x 512 = 2,199,023,255,552. */
START_TEST(test_sliding_window_kernels)
{
	static const char *const sets[] = {
		"model.num_layers=32",       "model.hidden_size=4096",       "model.num_attention_heads=32",
		"model.num_kv_heads=8",      "model.ffn_hidden_size=14336",  "model.vocab_size=32000",
		"model.seq_length=32768",    "model.sliding_window=4096",    "parallel.tp=4",
		"parallel.pp=1",             "parallel.dp=2",                "training.micro_batch_size=1",
		"training.attention=flash",  "cluster.gpu=h100-sxm5-80gb",
	};
	struct run *x = run(SYSTEMS, sets, sizeof(sets) / sizeof(sets[0]));
	ck_assert_double_eq_tol(x->r.compute.dense_layer_fwd_flops, 3573412790272.0 + 515396075520.0, 1.0);
	free(x);
	{
		const char *no_window[sizeof(sets) / sizeof(sets[0])];
		memcpy(no_window, sets, sizeof(sets));
		no_window[7] = "model.sliding_window=0";
		x = run(SYSTEMS, no_window, sizeof(sets) / sizeof(sets[0]));
		ck_assert_double_eq_tol(x->r.compute.dense_layer_fwd_flops, 3573412790272.0 + 2199023255552.0, 1.0);
		free(x);
	}
}
END_TEST

/* Gated DeltaNet: a hybrid's layer is the mean of its kinds. h 64, 4 heads
 * of 16 (2 KV), f 128, 2 layers with full_attention_interval 2 (layer 1
 * Gated DeltaNet, layer 2 softmax), linear heads 2 key and 4 value of 16,
 * s 256, micro batch 2, tp 2, eager attention: 512 tokens a rank.
 *   softmax block: q, k, v 2 x 512 x (2 + 2 x 1) 16 x 64 = 4,194,304; the
 *   core 2 x (2 x 2 x 256 x 256) x 32 = 16,777,216; o 2 x 512 x 64 x 32 =
 *   2,097,152: 23,068,672
 *   Gated DeltaNet block (1 key and 2 value heads a rank): in_proj 2 x 512
 *   x (32 + 64 + 4) x 64 = 6,553,600; the chunkwise core 512 x 2 x (2 x 64
 *   x (48 + 32) + 6 x 256) = 12,058,624; out_proj 2,097,152: 20,709,376
 * so the mean layer runs (20,709,376 - 23,068,672) / 2 = -1,179,648 FLOPs
 * against a model of softmax layers only. */
START_TEST(test_gated_deltanet_kernels)
{
	static const char *const sets[] = {
		"model.num_layers=2",          "model.hidden_size=64",          "model.num_attention_heads=4",
		"model.num_kv_heads=2",        "model.ffn_hidden_size=128",      "model.vocab_size=256",
		"model.seq_length=256",        "parallel.tp=2",                 "parallel.pp=1",
		"parallel.dp=4",               "training.micro_batch_size=2",   "training.attention=eager",
		"cluster.gpu=h100-sxm5-80gb",  "model.linear_num_key_heads=2",  "model.linear_num_value_heads=4",
		"model.linear_key_head_dim=16", "model.linear_value_head_dim=16", "model.linear_conv_kernel_dim=4",
		"model.full_attention_interval=2",
	};
	struct run *x = run(SYSTEMS, sets, sizeof(sets) / sizeof(sets[0]) - 6);
	double plain = x->r.compute.dense_layer_fwd_flops;
	free(x);
	x = run(SYSTEMS, sets, sizeof(sets) / sizeof(sets[0]));
	ck_assert_double_eq(x->r.compute.dense_layer_fwd_flops - plain, -1179648.0);
	free(x);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("compute");
	TCase *tc = tcase_create("compute");
	SRunner *sr;
	int failed;

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_korthikanti_table4);
	tcase_add_test(tc, test_measured_h200_layers);
	tcase_add_test(tc, test_async_tp_own_linear_by_hand);
	tcase_add_test(tc, test_wave_quantization);
	tcase_add_test(tc, test_stream_k_thin_gemm);
	tcase_add_test(tc, test_efficiency_keys);
	tcase_add_test(tc, test_tiled_margin_guard);
	tcase_add_test(tc, test_small_layer_flops);
	tcase_add_test(tc, test_context_parallel_halves_the_work);
	tcase_add_test(tc, test_presets_and_fp8);
	tcase_add_test(tc, test_te_norm_cast_by_hand);
	tcase_add_test(tc, test_megatron_cross_entropy);
	tcase_add_test(tc, test_torchtitan_cross_entropy);
	tcase_add_test(tc, test_loss_chunks_head_time);
	tcase_add_test(tc, test_attention_backends);
	tcase_add_test(tc, test_fp8_attention_hopper);
	tcase_add_test(tc, test_blackwell_levels);
	tcase_add_test(tc, test_compile_fusion);
	tcase_add_test(tc, test_torchtitan_eager_ops);
	tcase_add_test(tc, test_memory_levels);
	tcase_add_test(tc, test_moe_act_recompute_by_hand);
	tcase_add_test(tc, test_missing_keys);
	tcase_add_test(tc, test_optimizer_step);
	tcase_add_test(tc, test_optimizer_implementations);
	tcase_add_test(tc, test_reshard_prices_the_optimizer_alone);
	tcase_add_test(tc, test_rechunk_keeps_the_kernels);
	tcase_add_test(tc, test_optimizer_on_the_host);
	tcase_add_test(tc, test_reshard_moves_the_host_step);
	tcase_add_test(tc, test_deepspeed_host_copies);
	tcase_add_test(tc, test_flash_versus_eager);
	tcase_add_test(tc, test_recompute_policies);
	tcase_add_test(tc, test_mtp_recompute_rule);
	tcase_add_test(tc, test_sliding_window_kernels);
	tcase_add_test(tc, test_gated_deltanet_kernels);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? 0 : 1;
}
