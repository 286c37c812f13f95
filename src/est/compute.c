/* compute.c - kernel times of one rank for one microbatch; see compute.h
 * and docs/compute-model.md (every formula, its derivation and the
 * parameter sets with their source data).
 *
 * Every kernel is a roofline with a fixed cost:
 *
 *   GEMM          t = max(F / (P e_mm q), bytes / (B e_mem)) + t0_mm
 *   element-wise  t = bytes / (B e_mem) + t0_mem
 *
 * P the matmul peak (BF16, or FP8 under precision.compute), B the HBM
 * bandwidth, e_mm and e_mem the sustained fractions of each on large
 * kernels, q the share of the GPU's SMs the GEMM's output tiles keep busy
 * over its waves (tile and wave quantization; on Hopper a ragged last
 * wave split along k, stream-K), t0 what every launch costs
 * beyond them (launch, ramp-up). So a small shard's GEMM runs far below
 * peak: its efficiency F / (P t) saturates in F (e_mm F / (F + P e_mm t0)),
 * in its arithmetic intensity (the bytes term), and steps with its output
 * shape (q). The kernels are Megatron-LM's
 * (Korthikanti et al. 2022 section 4; Megatron-LM 2021 section 3) after
 * the tp split and, under sequence parallelism, the s/t split of the norms
 * and dropouts. */
#include "distcalc/compute.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "distcalc/activation.h"
#include "distcalc/axis.h"
#include "distcalc/calibrate_compute.h"
#include "distcalc/comm.h"
#include "distcalc/config.h"
#include "distcalc/framework.h"
#include "distcalc/memo_verify.h"
#include "distcalc/params.h"
#include "distcalc/plan.h"
#include "distcalc/util.h"

/* One parameter set per GPU type (docs/compute-model.md, "Parameters",
 * every figure's source there). A GEMM's sustained level is its isolated
 * ceiling (a large GEMM alone on the GPU, as a benchmark measures it) times
 * the in-situ factor (what a training step keeps of it: clocks at the power
 * limit under sustained load); the fused-attention kernels' isolated levels
 * take the same factor. */
struct gpu_eff {
	const char *name;
	double gemm;      /* isolated large BF16 GEMM, fraction of the BF16 peak */
	double gemm_fp8;  /* isolated large FP8 GEMM, fraction of the FP8 peak; 0: none measured (the BF16 fraction) */
	double in_situ;   /* sustained in a training step / isolated */
	/* isolated fused attention, forward and backward, fraction of the
	 * BF16 peak, by training.attention_backend ([EAGER] unused: GEMMs) */
	double attn_fwd[DC_ATTN_BACKEND_COUNT], attn_bwd[DC_ATTN_BACKEND_COUNT];
	double attn_fp8_fwd; /* FP8 fused attention forward, fraction of the FP8 peak; 0: none */
	double mm_f0;     /* GEMM FLOPs at half of the level on the A100 (the fixed cost's size) */
	double mem_eff;   /* sustained fraction of HBM bandwidth on large element-wise kernels */
	double mem_b0;    /* element-wise bytes at half of mem_eff on the A100 */
	double sms;       /* streaming multiprocessors, where cluster.sm_count is not set */
	int stream_k;     /* GEMMs split a ragged last wave along k (tile_waves) */
};

/* A100: the shape of both curves from Calculon's systems/a100_80g.json
 * (matmul 0.9 of peak at 16 GFLOP and 0.95 at 128 GFLOP: half-efficiency
 * work F0 = 1.024 GFLOP, t0_mm = F0 / (P e_mm); memory 0.75 at 10 MB and
 * 0.9 at 100 MB: half-efficiency size B0 = 25/11 MB, t0_mem = B0 /
 * (B e_mem), P and B the A100's); the levels e_mm = 0.75 and e_mem = 0.72
 * the least-squares point of Korthikanti et al. 2022 Tables 4 and 5
 * together (18 measurements, 2 parameters; build/fit_kernel_levels
 * reproduces it; e_mem was 0.71 until the model's ends were priced:
 * docs/compute-model.md, "Parameters"). e_mm splits into cuBLAS's isolated 8192^3 BF16 GEMM on
 * random inputs, 258 of 312 TFLOP/s (H. He, "Strangely, matrix
 * multiplications on GPUs run faster when given predictable data",
 * thonking.ai, 2024), and the in-situ rest, 0.75 / (258 / 312) = 0.907
 * (NVIDIA's A100 HPL rating assumes the 1305 MHz it holds at its power
 * limit, 0.926 of the 1410 MHz of the peak). */
#define A100_PEAK 312e12   /* FLOP/s, the data sheet's */
#define A100_HBM 2.039e12  /* bytes/s */
#define CALCULON_F0 1.024e9
#define CALCULON_B0 (25.0e6 / 11.0)
#define A100_GEMM (258.0 / 312.0)
#define A100_IN_SITU (0.75 / A100_GEMM)
/* FlashAttention-2 on the A100 (Dao 2023, arXiv 2307.08691, section 1 and
 * 4.1): up to 73% of the peak forward, 63% backward. No public cuDNN
 * figure on the A100: cuDNN runs at FA2's level there (an assumption). */
/* Memory-bound kernels: the same split as the GEMMs. The isolated level
 * is a streaming kernel's sustained bandwidth over the data sheet's, the
 * STREAM triad (two loads, one store, the shape of an element-wise add)
 * at full occupancy in te42kyfo/gpu-benches (cuda-stream/a100_80.txt
 * 1759 GB/s of 2039; gpu-stream/a100_40.txt 1360 of 1555;
 * cuda-stream/h100_pcie.txt 1832 of 2000; gpu-stream/h200.txt 3534 of
 * 4800); the in-situ rest is what the A100 80 GB's fitted 0.72 keeps of
 * its triad, 0.72 / (1759 / 2039) = 0.8346, carried to every GPU as the
 * GEMMs' A100 factor is not (it is the A100's fit, not a clock). A GPU
 * with no public streaming figure keeps the A100 80 GB's triad fraction. */
#define A100_80_TRIAD (1759.0 / 2039.0)
#define MEM_IN_SITU (0.72 / A100_80_TRIAD)
#define MEM_LEVEL(triad) ((triad) * MEM_IN_SITU)
/* A triad of another suite, as gpu-benches' A100 80 GB fraction times its
 * ratio to that suite's own A100 80 GB triad, so the in-situ factor is
 * taken against the same suite's A100: Azure's AI-benchmarking-guide
 * (Azure_Results/ND_A100_v4_results.md, "HBM Bandwidth", Triad 1.70 TB/s
 * of 2.039; ND_H100_v5_results.md 2.97 of 3.35 on the H100 SXM5). */
#define AZURE_TRIAD(tbs, hbm) ((tbs) / (hbm) / (1.70 / 2.039) * A100_80_TRIAD)
#define A100_SET(name, triad) \
	{name, A100_GEMM, 0, A100_IN_SITU, {0, 0.73, 0.73, 0}, {0, 0.63, 0.63, 0}, 0, CALCULON_F0, MEM_LEVEL(triad), \
	 CALCULON_B0, 108, 0}
/* Hopper: the isolated BF16 GEMM, cuBLAS 8192^3, 797.8 of 989 TFLOP/s on an
 * H100 SXM5 (pranjalssh/fast.cu README), 788 on an H200 (issue 21's
 * measurement); FP8 at 1.75x BF16 on large GEMMs (NVIDIA, "Boosting matrix
 * multiplication speed and flexibility with NVIDIA cuBLAS 12.9": 1396 of
 * 1979 TFLOP/s, 0.705). In situ: NVIDIA rates the Hopper tensor peak at
 * 1830 MHz, the clock it expects under tensor load, while a short
 * benchmark runs at the 1980 MHz boost (the H200 measured 1980 MHz right
 * after its GEMM run): 1830 / 1980 = 0.924 (H100 whitepaper clocks; G.
 * Lockwood, glennklockwood.com/garden/processors/h100). Attention: the
 * FlashAttention-3 paper's H100 SXM5 figures (arXiv 2407.08608, figures
 * 5-6 and 8, head dim 128, sequence 2k-8k), the middle of each range over
 * 989: FA2 366 / 304.5, cuDNN 608.5 / 491.5, FA3 635.5 / 530 TFLOP/s; FP8
 * FA3 forward close to 1200 of 1979 TFLOP/s (0.606). The other Hopper
 * parts run the same SMs, so the same fractions of their own peaks.
 * Memory-bound kernels: each part's measured triad where one is public
 * (MEM_LEVEL above), the A100's curve shapes (t0_mem) on all. */
#define H100_GEMM (797.8 / 989.0)
#define HOPPER_FP8 (1.75 * 797.8 / 1979.0)
#define HOPPER_IN_SITU (1830.0 / 1980.0)
#define HOPPER_ATTN_FWD {0, 366.0 / 989.0, 608.5 / 989.0, 635.5 / 989.0}
#define HOPPER_ATTN_BWD {0, 304.5 / 989.0, 491.5 / 989.0, 530.0 / 989.0}
#define HOPPER_SET(name, gemm, sms, triad) \
	{name, gemm, HOPPER_FP8, HOPPER_IN_SITU, HOPPER_ATTN_FWD, HOPPER_ATTN_BWD, 1200.0 / 1979.0, \
	 CALCULON_F0, MEM_LEVEL(triad), CALCULON_B0, sms, 1}
/* Blackwell (docs/compute-model.md, "Blackwell", each figure's file and
 * commit there): the isolated BF16 GEMM, XLA's measured sm_100 table
 * (tensorflow third_party/xla/xla/backends/gpu/cost_model/
 * matmul_interpolator_data.h), 4 x 4096^3: 1670.5 of the B200's 2250
 * TFLOP/s (its sm_90 row, 788.7, is the Hopper ceiling above within 1.2%).
 * FP8: Azure's cuBLASLt FP8 8192^3, GB200 2876.6 of 5000 against its H100
 * row 1290.1 of 1979 (AI-benchmarking-guide, after 10,000 warm-up runs:
 * a sustained figure), as a ratio to the Hopper FP8 ceiling. Attention:
 * NVIDIA's cudnn-frontend SDPA training benchmark, head dim 128, the
 * middle of each range over sequence 2k-8k as for Hopper: cuDNN 9.19 on a
 * GB200, causal and not, forward 1042-1709 and backward 836-1409 of 2500
 * TFLOP/s, FP8 forward 1286-2094 of 5000; FlashAttention-2 through PyTorch
 * on a B200, causal, 242.4-373.4 / 186.3-298.9 of 2250. Both parts take
 * the same fractions of their own peaks. Still assumptions: the in-situ
 * factor (Hopper's clock ratio; no rated tensor clock published) and the
 * memory level (no public STREAM figure: the A100 80 GB's triad fraction).
 * fa3 is refused. Stream-K as Hopper (CUTLASS's sm100 scheduler wraps the
 * sm90 one: tile_scheduler_params.h line 2064). */
#define BLACKWELL_GEMM (1670.5 / 2250.0)
#define BLACKWELL_FP8 (HOPPER_FP8 * (2876.6 / 5000.0) / (1290.1 / 1979.0))
#define BLACKWELL_ATTN_FWD {0, (242.386 + 373.392) / 2 / 2250.0, (1042.0 + 1709.0) / 2 / 2500.0, 0}
#define BLACKWELL_ATTN_BWD {0, (186.284 + 298.867) / 2 / 2250.0, (836.0 + 1409.0) / 2 / 2500.0, 0}
#define BLACKWELL_SET(name) \
	{name, BLACKWELL_GEMM, BLACKWELL_FP8, HOPPER_IN_SITU, BLACKWELL_ATTN_FWD, BLACKWELL_ATTN_BWD, \
	 (1286.0 + 2094.0) / 2 / 5000.0, CALCULON_F0, MEM_LEVEL(A100_80_TRIAD), CALCULON_B0, 148, 1}
static const struct gpu_eff gpu_effs[DC_GPU_COUNT] = {
	[DC_GPU_NONE] = A100_SET("a100-sxm4-80gb", A100_80_TRIAD),
	[DC_GPU_A100_SXM4_40GB] = A100_SET("a100-sxm4-40gb", 1360.0 / 1555.0),
	[DC_GPU_A100_SXM4_80GB] = A100_SET("a100-sxm4-80gb", A100_80_TRIAD),
	[DC_GPU_H100_SXM5_80GB] = HOPPER_SET("h100-sxm5-80gb", H100_GEMM, 132, AZURE_TRIAD(2.97, 3.35)),
	[DC_GPU_H100_NVL_94GB] = HOPPER_SET("h100-nvl-94gb", H100_GEMM, 132, A100_80_TRIAD),
	[DC_GPU_H100_PCIE_80GB] = HOPPER_SET("h100-pcie-80gb", H100_GEMM, 114, 1832.0 / 2000.0),
	/* the H800: the H100 SXM5's part and HBM3 (its data sheet: 80 GB, 3.35
	 * TB/s), so the H100 SXM5's triad (no H800 figure of its own) */
	[DC_GPU_H800_SXM5_80GB] = HOPPER_SET("h800-sxm5-80gb", H100_GEMM, 132, AZURE_TRIAD(2.97, 3.35)),
	[DC_GPU_H200_SXM_141GB] = HOPPER_SET("h200-sxm-141gb", 788.0 / 989.0, 132, 3534.0 / 4800.0),
	[DC_GPU_GH200_96GB] = HOPPER_SET("gh200-96gb", H100_GEMM, 132, A100_80_TRIAD),
	[DC_GPU_B200_SXM_180GB] = BLACKWELL_SET("b200-sxm-180gb"),
	[DC_GPU_GB200] = BLACKWELL_SET("gb200"),
};

/* The number format a GEMM runs in: its peak, sustained level, operand
 * bytes and the cast traffic its inputs add (FP8 recipes). */
struct prec {
	double peak, eff, in_bytes;
	double cast_x;  /* bytes per element of the forward input X the recipe moves to cast it */
	double cast_dy; /* bytes per element of the output gradient dY */
};

/* What every kernel of one rank reads: the shape after its splits. */
struct ctx {
	const struct dc_plan *p;
	const struct dc_model *m;
	const struct gpu_eff *e;
	double hbm;
	double mem_eff;         /* cluster.memory_efficiency, else the set's */
	double mm_t0, mem_t0;   /* the fixed costs at those levels, in the A100's seconds */
	double sms;             /* cluster.sm_count, else the set's */
	struct prec bf16, fp8;  /* BF16 GEMMs; the linear layers' under precision.compute "fp8" */
	const struct prec *lin; /* the linear layers' format: &bf16 or &fp8 */
	const struct prec *cur; /* the format the GEMM being priced runs in */
	double attn_fwd, attn_bwd; /* the attention core's sustained level, of attn_peak */
	double attn_peak;       /* BF16 peak, or FP8 under precision.attention "fp8" (forward) */
	double attn_fwd_bf16;   /* attn_fwd at the BF16 peak (bf16_ctx): attn_fwd but under precision.attention "fp8" */
	double attn_bwd_peak;   /* the backward's: BF16 */
	double t;           /* tp */
	double b, s, h;     /* micro batch, sequence, hidden */
	double s_q;         /* s / cp: the queries (and tokens) this context-parallel rank holds */
	double tokens;      /* b s / cp: what every GEMM of the layer sees */
	double tokens_sp;   /* tokens / t under sequence parallelism, else tokens: norms, dropouts, residuals */
	double heads;       /* attention heads on this rank, a / t */
	double kv_heads;    /* kv heads on this rank */
	double d_qk, d_v;   /* head widths */
	double s_k;         /* keys a flash kernel's query meets, as s for causal attention: the layers' mean (sliding windows) */
	int eager;          /* training.attention eager: QK^T, softmax, dropout, AV apart */
	int dropout;        /* model.dropout */
	int rope;           /* rotary positions (no learned table) */
	int compile;        /* training.compile: Inductor's fused element-wise kernels */
	int eager_rmsnorm;  /* torchtitan eager: its RMSNorm as written, op by op */
	int titan_eager;    /* torchtitan uncompiled: its SwiGLU, rotation and repeat_kv as written, op by op */
	/* FP8 sequence-parallel gathers (fp8_gathers): each rank casts its
	 * 1/t shard before the AllGather, cast_shard bytes an element, and
	 * the transpose, where the recipe makes one, runs on the gathered
	 * FP8 tensor, cast_gathered bytes an element (linear_in) */
	int fp8_gather;
	double cast_shard, cast_gathered;
	/* megatron's Transformer Engine norm before q, k, v and fc1
	 * (te_norm_quantizes): te_norm set, the norm writes norm_out_bytes
	 * an element (1: its FP8 copy, else BF16) and the cast of the
	 * linear's X moves cast_x_norm (cast_shard_norm on a gathered
	 * shard) in place of cast_x (cast_shard) */
	int te_norm;
	double norm_out_bytes, cast_x_norm, cast_shard_norm;
};

/* Times of one block, each split into matmul and memory-bound parts. */
struct part {
	double fwd_mm, fwd_mem;
	double bwd_mm, bwd_mem;
	double bwd_wgrad; /* of bwd_mm: the weight-gradient GEMMs */
	/* of bwd_mm: the column-parallel linears' input- and weight-gradient
	 * GEMMs, [0] the attention's, [1] the MLP's fc1 (compute.h
	 * tp_col_dgrad_s) */
	double col_dgrad[2], col_wgrad[2];
	double core_mm, core_mem; /* the attention core's forward: what selective recompute reruns */
	/* the forward of what training.recompute_modules reruns beside the
	 * core (config.h dc_recompute_modules: layer_time) */
	double rc_fwd;
	double fwd_flops;
};

/* The thread-block tiles of cuBLAS's tensor-core GEMMs on Ampere and
 * Hopper (NVIDIA, "Matrix Multiplication Background User's Guide",
 * sections 2.3 and 3: 256 x 128 the most efficient, down to 64 x 64),
 * each at a rate in proportion to its operand reuse, our assumption (the
 * guide gives no figures): a tile of M x N outputs reads M + N operand
 * rows per step of k for M N multiply-adds, 85.3 at 256 x 128, 64 at
 * 128 x 128, 51.2 at 256 x 64, 42.7 at 128 x 64, 32 at 64 x 64
 * (docs/compute-model.md, "Waves of tiles"). wave_share tries them in
 * this order, falling rate: 256 x 128 and 128 x 256 at 1, 128 x 128 at
 * 0.75, 256 x 64 and 64 x 256 at 0.6, 128 x 64 and 64 x 128 at 0.5,
 * 64 x 64 at 0.375. */
#define TILE_RATE_256_128 1.0
#define TILE_RATE_128_128 0.75
#define TILE_RATE_256_64 0.6
#define TILE_RATE_128_64 0.5
#define TILE_RATE_64_64 0.375

/* Stream-K on Hopper and Blackwell: the
 * persistent kernels of CUTLASS 3 (NVIDIA/cutlass include/cutlass/gemm/
 * kernel/tile_scheduler_params.h, PersistentTileSchedulerSm90StreamKParams,
 * get_num_sk_tiles and get_num_sk_units, lines 1066-1138 at 7107b055)
 * cut a ragged last wave along k: with the tail wave less than half full
 * and more than 8 k-tiles a tile (min_iters_per_sk_unit_, line 467), the
 * last full wave and the tail, sk tiles, are shared out over
 * min(SMs, sk tiles x k-tiles / 8) units of equal k-iterations, the
 * waves before them run whole tiles (data-parallel). Osama et al. 2023,
 * "Stream-K: Work-centric Parallel Decomposition for Dense Matrix-Matrix
 * Multiplication on the GPU" (arXiv 2301.03598). A k-tile is 128 bytes of
 * k (64 BF16, 128 FP8 elements: examples/113_hopper_gemm_activation_fusion/
 * 113_hopper_gemm_fused_act.cu line 119). */
#define SK_MIN_ITERS 8.0
#define K_TILE_BYTES 128.0

/* ceil(v) and floor(v), bit for bit, in fewer instructions than the
 * library's inlined rounding (which also handles signs and -0): +0 <= v
 * < 2^52 truncates to its floor exactly; anything else (none of the tile
 * counts below: -0, negatives, 2^52 and up, NaN) takes the library's. */
static inline int nonneg_below_2p52(double v)
{
	/* +0 up to 2^52 are the bit patterns below 2^52's (sign clear, the
	 * patterns ordered as the values): one compare for both bounds */
	uint64_t bits;
	memcpy(&bits, &v, sizeof(bits));
	return bits < 0x4330000000000000ull;
}

static inline double ceil_nonneg(double v)
{
	double t;
	if (!nonneg_below_2p52(v))
		return ceil(v);
	t = (double)(int64_t)v;
	return t < v ? t + 1.0 : t;
}

static inline double floor_nonneg(double v)
{
	if (!nonneg_below_2p52(v))
		return floor(v);
	return (double)(int64_t)v;
}

/* tile_waves past its whole waves: `total` of them, the ragged last one
 * split along k when it is less than half full (out of line: the
 * layout search prices millions of GEMMs and most take whole waves) */
static double stream_k_waves(const struct ctx *x, double count, double k_tiles, double total)
{
	double sms = x->sms, full = floor_nonneg(count / sms);
	double dp, sk, units;
	if (full == total || 2.0 * (count - full * sms) >= sms)
		return total;
	dp = full > 1 ? full - 1 : 0;
	sk = count - dp * sms;
	units = floor_nonneg(sk * k_tiles / SK_MIN_ITERS);
	if (units > sms)
		units = sms;
	return dp + ceil_nonneg(sk * k_tiles / units) / k_tiles;
}

/* The time of `count` output tiles of `k_tiles` k-steps each on the SMs,
 * in whole-tile times: ceil(count / SMs) waves, or the stream-K split. */
static inline double tile_waves(const struct ctx *x, double count, double k_tiles)
{
	double total = ceil_nonneg(count / x->sms);
	/* the whole waves only when stream-K cannot apply: the GPU has none,
	 * or too few k-tiles, or no ragged wave, or one over half full (the
	 * tests that need no floor first) */
	if (!x->e->stream_k || k_tiles <= SK_MIN_ITERS)
		return total;
	return stream_k_waves(x, count, k_tiles, total);
}

/* q of one tile shape over an m x n output, `batch` of them in one
 * kernel: its tiles are cm x cn x batch (cm = ceil(m / tile rows), cn
 * likewise), run in tile_waves of them, and the work done is m n batch /
 * (tile area) of those waves' SM-slots, at the tile's rate. mnb is m n
 * batch. */
static double tile_q(const struct ctx *x, double cm, double cn, double mnb, double batch, double k_tiles,
		     double area, double rate)
{
	return rate * (mnb / area) / (tile_waves(x, cm * cn * batch, k_tiles) * x->sms);
}

/* q of an m x n output over k, `batch` of them in one kernel: one tile
 * per SM at a time, so a kernel of T tiles runs tile_waves(T) waves; the
 * tile the library picks is the one that does the most. The tiles go in
 * falling rate, and no tile does more than its rate: once one does as
 * much, the rest cannot beat it, so each tile's row and column counts
 * are found only when a tile first needs them (the layout search prices
 * millions of these; most stop after the two at rate 1). */
static double wave_share(const struct ctx *x, double m, double n, double k, double batch)
{
	/* the k-tiles only a stream-K GPU reads (tile_waves) */
	double k_tiles = x->e->stream_k ? ceil_nonneg(k * x->cur->in_bytes / K_TILE_BYTES) : 0;
	double mnb = m * n * batch, best = 0, q;
	double m256 = ceil_nonneg(m / 256.0), n128 = ceil_nonneg(n / 128.0), m128, n256, m64, n64;
#define WAVE_TILE(cm, cn, area, rate)                                             \
	do {                                                                      \
		q = tile_q(x, cm, cn, mnb, batch, k_tiles, area, rate);           \
		if (q > best)                                                     \
			best = q;                                                 \
	} while (0)
	WAVE_TILE(m256, n128, 256.0 * 128.0, TILE_RATE_256_128);
	if (!(best < TILE_RATE_256_128))
		return best;
	m128 = ceil_nonneg(m / 128.0);
	n256 = ceil_nonneg(n / 256.0);
	WAVE_TILE(m128, n256, 128.0 * 256.0, TILE_RATE_256_128);
	if (!(best < TILE_RATE_128_128))
		return best;
	WAVE_TILE(m128, n128, 128.0 * 128.0, TILE_RATE_128_128);
	if (!(best < TILE_RATE_256_64))
		return best;
	n64 = ceil_nonneg(n / 64.0);
	WAVE_TILE(m256, n64, 256.0 * 64.0, TILE_RATE_256_64);
	if (!(best < TILE_RATE_256_64))
		return best;
	m64 = ceil_nonneg(m / 64.0);
	WAVE_TILE(m64, n256, 64.0 * 256.0, TILE_RATE_256_64);
	if (!(best < TILE_RATE_128_64))
		return best;
	WAVE_TILE(m128, n64, 128.0 * 64.0, TILE_RATE_128_64);
	if (!(best < TILE_RATE_128_64))
		return best;
	WAVE_TILE(m64, n128, 64.0 * 128.0, TILE_RATE_128_64);
	if (!(best < TILE_RATE_64_64))
		return best;
	WAVE_TILE(m64, n64, 64.0 * 64.0, TILE_RATE_64_64);
#undef WAVE_TILE
	return best;
}

/* One GEMM [m x k] x [k x n], `batch` of them in one kernel (a batched or
 * grouped GEMM): the roofline of its FLOPs, at the share q of the SMs its
 * waves of tiles keep busy, and its operand bytes (inputs at in_bytes,
 * the output 16-bit), plus one launch. */
static double gemm_s(const struct ctx *x, double m, double n, double k, double batch)
{
	double flops = 2.0 * m * n * k * batch, compute, memory;
	double bytes = batch * (x->cur->in_bytes * (m * k + k * n) + 2.0 * m * n);
	if (flops <= 0)
		return 0;
	compute = flops / (x->cur->peak * x->cur->eff * wave_share(x, m, n, k, batch));
	memory = bytes / (x->hbm * x->mem_eff);
	return (compute > memory ? compute : memory) + x->mm_t0;
}

/* An element-wise (or reduction) kernel moving `bytes`. */
static double mem_s(const struct ctx *x, double bytes)
{
	return bytes > 0 ? bytes / (x->hbm * x->mem_eff) + x->mem_t0 : 0;
}

/* `passes` element-wise kernels moving `bytes` between them: one launch
 * each (an eager chain that a fused kernel would run as one). */
static double mem_passes_s(const struct ctx *x, double bytes, double passes)
{
	return bytes > 0 ? bytes / (x->hbm * x->mem_eff) + passes * x->mem_t0 : 0;
}

#ifdef DISTCALC_VERIFY_MEMOS
/* An equal GEMM's time kept for this one (`reused`) against gemm_s on
 * this one's own arguments */
static void gemm_verify(const struct ctx *x, const char *what, double reused, double m, double n, double k,
			double batch)
{
	dc_memo_verify_double("equal GEMMs priced once (src/est/compute.c)", what, reused, gemm_s(x, m, n, k, batch));
}
#endif

/* A linear layer's forward, input-gradient and weight-gradient GEMM
 * times (linear_in) */
struct lin_gemms {
	double fwd, dgrad, wgrad;
};

/* linear_in's `gathered`: the tensors a sequence-parallel AllGather
 * brings to the layer (tp.c: the column-parallel QKV and FC1's input,
 * the row-parallel output projection and FC2's output gradient) */
#define LIN_GATHERED_X 1u
#define LIN_GATHERED_DY 2u
/* and whether X is the output of Transformer Engine's fused norm
 * (ctx te_norm): its cast is the norm's business in part */
#define LIN_NORM_X 4u

/* A linear layer y = x W, x [tokens x k], W [k x n]: forward one GEMM,
 * backward the input gradient [tokens x n] x [n x k] and the weight
 * gradient [k x tokens] x [tokens x n], each as many FLOPs as forward.
 * The weight gradient is what a zero-bubble schedule defers (W). In the
 * format `pr`: under an FP8 recipe, casting X before the forward and dY
 * before the backward is one element-wise kernel each (cast_x, cast_dy
 * bytes per element; the weights' casts are left out, "FP8 recipes").
 * Where an FP8 AllGather brings X or dY (`gathered`, x->fp8_gather),
 * its cast runs on this rank's tokens / t before the gather and the
 * transpose on the gathered tensor in backward (Transformer Engine's
 * _all_gather_fp8: "FP8 recipes", sequence parallelism).
 * `flip`, when not NULL: the times of the layer just priced in the same
 * format, on the same tokens and batch, whose shape is this one's
 * transposed (n and k swapped); `out`, when not NULL, gets this one's. */
static void linear_in(struct ctx *x, const struct prec *pr, struct part *pt, double tokens, double n, double k,
		      double batch, const struct lin_gemms *flip, struct lin_gemms *out, unsigned gathered)
{
	double dgrad, wgrad, fwd;
	x->cur = pr;
	/* gemm_s is a function of its arguments and of *x alone (const
	 * there), so an equal call's result is this one's, bit for bit: the
	 * transposed layer's input gradient is this forward's call and its
	 * forward this input gradient's */
	if (flip) {
		fwd = flip->dgrad;
		dgrad = flip->fwd;
		wgrad = gemm_s(x, k, n, tokens, batch);
	} else {
		dgrad = gemm_s(x, tokens, k, n, batch);
		wgrad = gemm_s(x, k, n, tokens, batch);
		/* the forward's (tokens, n, k) is the weight gradient's call
		 * when tokens == k and the input gradient's when n == k (a
		 * square layer at mb x seq = hidden: Llama-2-7B's 4,096 tokens
		 * of 4,096 wide) */
		fwd = tokens == k ? wgrad : n == k ? dgrad : gemm_s(x, tokens, n, k, batch);
	}
	DC_MEMO_VERIFY(gemm_verify(x, "a linear layer's forward", fwd, tokens, n, k, batch));
	DC_MEMO_VERIFY(gemm_verify(x, "a linear layer's input gradient", dgrad, tokens, k, n, batch));
	if (out) {
		out->fwd = fwd;
		out->dgrad = dgrad;
		out->wgrad = wgrad;
	}
	pt->fwd_mm += fwd;
	pt->bwd_mm += dgrad + wgrad;
	pt->bwd_wgrad += wgrad;
	pt->fwd_flops += 2.0 * tokens * n * k * batch;
	if (pr->cast_x > 0) {
		/* X from Transformer Engine's norm: what of its cast is left */
		int norm = (gathered & LIN_NORM_X) && x->te_norm && pr == &x->fp8;
		if (!x->fp8_gather || pr != &x->fp8)
			gathered = 0;
		/* X: the forward casts the shard; the backward's re-gather
		 * brings the FP8 shards back and transposes them for the
		 * weight gradient (mem_s of 0 bytes is no kernel) */
		if (gathered & LIN_GATHERED_X) {
			pt->fwd_mem += mem_s(x, (norm ? x->cast_shard_norm : x->cast_shard) * (tokens / x->t) * k * batch);
			pt->bwd_mem += mem_s(x, x->cast_gathered * tokens * k * batch);
		} else {
			pt->fwd_mem += mem_s(x, (norm ? x->cast_x_norm : pr->cast_x) * tokens * k * batch);
		}
		/* dY: the shard's cast before the gather, the transpose after */
		if (gathered & LIN_GATHERED_DY)
			pt->bwd_mem += mem_s(x, x->cast_shard * (tokens / x->t) * n * batch) +
				       mem_s(x, x->cast_gathered * tokens * n * batch);
		else
			pt->bwd_mem += mem_s(x, pr->cast_dy * tokens * n * batch);
	}
}

/* A linear layer of the model's blocks: in the precision.compute format. */
static void linear(struct ctx *x, struct part *pt, double tokens, double n, double k, double batch)
{
	linear_in(x, x->lin, pt, tokens, n, k, batch, NULL, NULL, 0);
}

/* One that a sequence-parallel AllGather feeds (`gathered`, linear_in);
 * `out` as linear_in's */
static void linear_sp(struct ctx *x, struct part *pt, double tokens, double n, double k, unsigned gathered,
		      struct lin_gemms *out)
{
	linear_in(x, x->lin, pt, tokens, n, k, 1, NULL, out, gathered);
}

/* Records `g` as the backward GEMMs of the layer's column-parallel linear
 * `which` (part col_dgrad), added to what is there (MLA's two) */
static void tp_col(struct part *pt, int which, const struct lin_gemms *g)
{
	pt->col_dgrad[which] += g->dgrad;
	pt->col_wgrad[which] += g->wgrad;
}

/* The norm before a sub-block and the residual add after it, on the
 * tokens_sp x h stream (Megatron's fused bias-dropout-add): forward the
 * norm reads and writes 2 bytes per element (`te`: the norm of
 * Transformer Engine's LayerNormLinear before q, k, v or fc1, which
 * under ctx te_norm writes norm_out_bytes), the add reads the branch and
 * the residual and writes the sum (6), the dropout mask adds 1 byte;
 * backward the norm reads x and dy and writes dx (6), the two gradient
 * paths are summed (6), the dropout backward reads dy and the mask and
 * writes dx (5), a bias gradient reads dy once more (2).
 *
 * Under training.compile (torch.compile of each block: Inductor fuses a
 * chain of element-wise kernels between two extern kernels, GEMMs and
 * attention, into one that reads each input once and writes only what
 * leaves it; docs/compute-model.md, "torch.compile"): the norm's backward
 * and the gradient sum are one kernel (read x, dy and the residual's
 * gradient, write dx: 8 bytes); `after_add` says the previous sub-block's
 * residual add is in the same compiled block, so this norm joins its
 * kernel: the sum's pass writes the normed copy too (2 bytes more), and
 * the norm has no pass or launch of its own. Returns the norm's forward
 * (what the layernorm recompute module reruns). */
static double norm_residual(const struct ctx *x, struct part *pt, int bias, int after_add, int te)
{
	double n = x->tokens_sp * x->h, out = te && x->te_norm ? x->norm_out_bytes : 2.0;
	double norm_fwd = x->compile && after_add ? out * n / (x->hbm * x->mem_eff) : mem_s(x, (2.0 + out) * n);
	double norm_bwd = mem_s(x, 6.0 * n);
	if (x->eager_rmsnorm) {
		/* torchtitan's RMSNorm uncompiled (torchtitan/models/norms.py,
		 * RMSNorm.forward at 026e23a9): x.float(), pow(2), mean,
		 * x * rsqrt, type_as, * weight, each its own kernel: 6 + 8 + 4 +
		 * 8 + 6 + 4 = 36 bytes an element in 6 passes; autograd runs
		 * each op's backward on its own: 68 bytes in 10 passes
		 * (docs/compute-model.md, "torchtitan's eager RMSNorm") */
		norm_fwd = 36.0 * n / (x->hbm * x->mem_eff) + 6.0 * x->mem_t0;
		norm_bwd = 68.0 * n / (x->hbm * x->mem_eff) + 10.0 * x->mem_t0;
	}
	pt->fwd_mem += norm_fwd + mem_s(x, (6.0 + (x->dropout ? 1.0 : 0.0)) * n);
	pt->bwd_mem += x->compile ? mem_s(x, 8.0 * n) : norm_bwd + mem_s(x, 6.0 * n);
	if (x->dropout)
		pt->bwd_mem += mem_s(x, 5.0 * n);
	if (bias)
		pt->bwd_mem += mem_s(x, 2.0 * n);
	return norm_fwd;
}

/* torchtitan's attention block uncompiled, beside the GEMMs and the
 * flash kernel, as the benchmark's torchtitan (9dec370) writes it
 * (docs/compute-model.md, "torchtitan's eager SwiGLU, rotation and
 * repeat_kv"): qn = T (a/t) d query and kn = T (kv/t) d key elements.
 * The rotation, apply_rotary_emb (torchtitan/models/llama/model.py:108-113
 * at 9dec370; ComplexRoPE.apply_rotary_emb, torchtitan/models/common/
 * rope.py:253-264 at b5bcd76c, the same ops), on q and on k apart:
 * x.float() (read 2, write 4), the complex64 product with freqs_cis (read
 * 4, write 4, and the table once: s_q d/2 complex values, 4 s_q d bytes),
 * type_as (read 4, write 2): 20 bytes an element in 3 passes each;
 * backward autograd runs the same three (type_as's cast of the gradient
 * to FP32, the product with the table's conjugate, float()'s cast back),
 * 20 bytes and the table again. repeat_kv (model.py:116-125 and 201-202
 * at 9dec370), where a > kv: expand, then reshape copies k and v to every
 * query head (read the kv heads, write the a heads), one pass each;
 * backward the expand's sum back over the copies, the same bytes. wq, wk
 * and wv are three linears of one input (model.py:189): autograd sums
 * their three input gradients, 2 passes of 6 bytes per T x h element. */
static void titan_attention_eager(const struct ctx *x, struct part *pt)
{
	double T = x->tokens, qn = T * x->heads * x->d_qk, kn = T * x->kv_heads * x->d_qk;
	double table = 4.0 * x->s_q * x->d_qk;
	double rot = 20.0 * (qn + kn) + 2.0 * table;
	pt->fwd_mem += mem_passes_s(x, rot, 6);
	pt->bwd_mem += mem_passes_s(x, rot, 6) + mem_passes_s(x, 12.0 * T * x->h, 2);
	if (x->heads > x->kv_heads) {
		double kv = T * x->kv_heads * (x->d_qk + x->d_v), rep = T * x->heads * (x->d_qk + x->d_v);
		pt->fwd_mem += mem_passes_s(x, 2.0 * (kv + rep), 2);
		pt->bwd_mem += mem_passes_s(x, 2.0 * (kv + rep), 2);
	}
}

/* Attention: the q, k, v projections, the core, the output projection.
 * Standard (GQA) attention projects h to (a + 2 kv) d / t in one GEMM;
 * MLA (DeepSeek-V2) projects through its low-rank latents, the
 * down-projections whole on every rank. */
static void attention(struct ctx *x, struct part *pt)
{
	const struct dc_model *m = x->m;
	double T = x->tokens, h = x->h, t = x->t;
	/* context parallelism: this rank's s / cp queries against all s keys
	 * (the ring brings the others' K, V; Megatron-Core's load-balanced
	 * chunks give every rank 1 / cp of the causal work) */
	double sq = x->s_q, sk = x->s;
	double scores = x->b * x->heads * sq * sk; /* score elements on this rank */
	double sk_flash = x->s_k; /* a window skips blocks in a flash kernel, not in eager attention's mask */

	uint32_t mods = dc_recompute_modules(x->p->in);
	double before;
	/* Megatron-Core's MLA keeps its input norm apart (gpt_layer_specs.py),
	 * which the layernorm recompute module reruns */
	before = norm_residual(x, pt, m->out_bias, 0, !m->kv_lora_rank);
	if (m->kv_lora_rank && (mods & DC_RCM(DC_RCM_LAYERNORM)))
		pt->rc_fwd += before;
	if (m->kv_lora_rank) {
		double a = (double)m->num_attention_heads;
		double q_lora = (double)m->q_lora_rank, kv_lora = (double)m->kv_lora_rank;
		double rope = (double)m->qk_rope_head_dim, nope = (double)m->qk_nope_head_dim;
		/* the column-parallel ones, split over tp (Megatron-Core's
		 * linear_q_proj or linear_q_up_proj and linear_kv_up_proj,
		 * multi_latent_attention.py:510-613 at d98e8a64), are the
		 * attention's tp_col */
		/* the mla_up_proj recompute module reruns the q projection
		 * (up, or whole without a q latent) and the kv up-projection
		 * (multi_latent_attention.py:855-875 at d98e8a64) */
		struct lin_gemms g;
		double up = 0;
		if (q_lora > 0)
			linear(x, pt, T, q_lora, h, 1);
		before = pt->fwd_mm + pt->fwd_mem;
		linear_in(x, x->lin, pt, T, a * (nope + rope) / t, q_lora > 0 ? q_lora : h, 1, NULL, &g, 0);
		up += pt->fwd_mm + pt->fwd_mem - before;
		tp_col(pt, 0, &g);
		linear(x, pt, T, kv_lora + rope, h, 1);
		before = pt->fwd_mm + pt->fwd_mem;
		linear_in(x, x->lin, pt, T, a * (nope + (double)m->v_head_dim) / t, kv_lora, 1, NULL, &g, 0);
		up += pt->fwd_mm + pt->fwd_mem - before;
		tp_col(pt, 0, &g);
		if (mods & DC_RCM(DC_RCM_MLA_UP_PROJ))
			pt->rc_fwd += up;
	} else {
		struct lin_gemms g;
		linear_sp(x, pt, T, (x->heads + 2.0 * x->kv_heads) * x->d_qk, h, LIN_GATHERED_X | LIN_NORM_X, &g);
		tp_col(pt, 0, &g);
		if (m->qkv_bias) /* the bias gradient reads dq, dk, dv */
			pt->bwd_mem += mem_s(x, 2.0 * T * (x->heads + 2.0 * x->kv_heads) * x->d_qk);
	}
	if (x->titan_eager && x->rope && !m->kv_lora_rank && !m->qk_norm) {
		/* torchtitan's Llama attention (no MLA, no q/k norm) uncompiled */
		titan_attention_eager(x, pt);
	} else if (x->rope) { /* rotary positions on q and k: read and write, both ways */
		double qk = T * (x->heads + x->kv_heads) * x->d_qk;
		pt->fwd_mem += mem_s(x, 4.0 * qk);
		pt->bwd_mem += mem_s(x, 4.0 * qk);
		/* MLA's rotation is inside the up-projections' checkpoint */
		if (m->kv_lora_rank && (mods & DC_RCM(DC_RCM_MLA_UP_PROJ)))
			pt->rc_fwd += mem_s(x, 4.0 * qk);
	}
	if (m->qk_norm) {
		/* compiled, the q/k norm and the rotation between the q, k, v
		 * GEMM and attention are one pass: the norm's own bytes and
		 * launch go, its backward reads x once more (2) */
		double qk = T * (x->heads + x->kv_heads) * x->d_qk;
		if (x->compile && x->rope) {
			pt->bwd_mem += 2.0 * qk / (x->hbm * x->mem_eff);
		} else {
			pt->fwd_mem += mem_s(x, 4.0 * qk);
			pt->bwd_mem += mem_s(x, 6.0 * qk);
		}
	}
	if (x->eager) {
		/* the scores stay BF16 under every FP8 recipe */
		x->cur = &x->bf16;
		/* QK^T and AV as batched GEMMs over b a/t heads; the fused
		 * scale-mask-softmax reads and writes the scores (4 bytes per
		 * element), dropout reads them and writes them and its 1-byte
		 * mask (5); backward: two GEMMs per product, softmax reads y and
		 * dy and writes dx (6), dropout reads dy and the mask and writes
		 * dx (5). Korthikanti et al. 2022 section 4.1 */
		double bh = x->b * x->heads, dq, dk, dp, dv;
		double qk_f = gemm_s(x, sq, sk, x->d_qk, bh), av_f = gemm_s(x, sq, x->d_v, sk, bh);
		double soft = mem_s(x, 4.0 * scores), drop = x->dropout ? mem_s(x, 5.0 * scores) : 0;
		pt->core_mm = qk_f + av_f;
		pt->core_mem = soft + drop;
		/* dQ = dS K: [s_q x s] x [s x d_qk]; dK = dS^T Q: [s x s_q] x
		 * [s_q x d_qk]; dP = dO V^T: [s_q x d_v] x [d_v x s]; dV = P^T
		 * dO: [s x s_q] x [s_q x d_v] (s_q = s without cp). Each is
		 * an equal call's result when its shape is (gemm_s: a function
		 * of its arguments and *x, as in linear_in): without cp, and
		 * with d_qk = d_v (all but MLA), two of the six are distinct */
		dq = x->d_qk == x->d_v ? av_f : gemm_s(x, sq, x->d_qk, sk, bh);
		dk = sq == sk ? dq : gemm_s(x, sk, x->d_qk, sq, bh);
		dp = x->d_v == x->d_qk ? qk_f : gemm_s(x, sq, sk, x->d_v, bh);
		dv = sq == sk ? av_f : gemm_s(x, sk, x->d_v, sq, bh);
		DC_MEMO_VERIFY(gemm_verify(x, "attention's dQ", dq, sq, x->d_qk, sk, bh));
		DC_MEMO_VERIFY(gemm_verify(x, "attention's dK", dk, sk, x->d_qk, sq, bh));
		DC_MEMO_VERIFY(gemm_verify(x, "attention's dP", dp, sq, sk, x->d_v, bh));
		DC_MEMO_VERIFY(gemm_verify(x, "attention's dV", dv, sk, x->d_v, sq, bh));
		pt->bwd_mm += dq + dk + dp + dv;
		pt->bwd_mem += mem_s(x, 6.0 * scores) + (x->dropout ? mem_s(x, 5.0 * scores) : 0);
	} else {
		/* A fused kernel (FlashAttention-2, cuDNN, FlashAttention-3)
		 * that never writes the s x s scores; causal, so it runs half
		 * the blocks: forward the two products, 4 b (a/t) s^2 d / 2
		 * FLOPs, reading q, k, v and writing o; backward five products
		 * (2.5 x forward, the FLOP count the FlashAttention papers'
		 * backward figures use), reading q, k, v, o and do, writing dq,
		 * dk, dv; each at its backend's measured level (x->attn_fwd,
		 * attn_bwd, "Attention backends") */
		double d = (x->d_qk + x->d_v) / 2.0;
		double fl = 0.5 * 4.0 * x->b * x->heads * sq * sk_flash * d;
		double qkv_o = 2.0 * T * (x->heads * (x->d_qk + x->d_v) + x->kv_heads * (x->d_qk + x->d_v));
		/* its thread blocks are 128-row query tiles of every head
		 * (Dao 2023, section 3.2), one per SM at a time like a GEMM's */
		double blocks = x->b * x->heads * ceil(sq / 128.0);
		double q = blocks / (ceil(blocks / x->sms) * x->sms);
		double fwd = fl / (x->attn_peak * x->attn_fwd * q), fwd_b = qkv_o / (x->hbm * x->mem_eff);
		double bwd = 2.5 * fl / (x->attn_bwd_peak * x->attn_bwd * q), bwd_b = 2.0 * fwd_b;
		pt->core_mm = (fwd > fwd_b ? fwd : fwd_b) + x->mm_t0;
		pt->core_mem = 0;
		pt->bwd_mm += (bwd > bwd_b ? bwd : bwd_b) + x->mm_t0;
	}
	pt->fwd_mm += pt->core_mm;
	pt->fwd_mem += pt->core_mem;
	/* QK^T and AV: 2 s d FLOPs per score each; flash runs half (causal) */
	pt->fwd_flops += (x->eager ? 1.0 : 0.5 * sk_flash / sk) * 2.0 * scores * (x->d_qk + x->d_v);
	/* MLA's gathers stay in the working precision (tp.c) */
	linear_sp(x, pt, T, h, x->heads * x->d_v, m->kv_lora_rank ? 0 : LIN_GATHERED_DY, NULL);
}

/* Gated DeltaNet (modeling_qwen3_next.py Qwen3NextGatedDeltaNet, its
 * training kernels flash-linear-attention's chunk_gated_delta_rule):
 * in_proj_qkvz and in_proj_ba as one GEMM of this rank's heads, the
 * depthwise causal convolution and SiLU (read and write each channel, 4
 * bytes; backward 6), the chunkwise delta rule as batched GEMMs over b
 * ceil(s / 64) chunks of every value head (Q K^T and K K^T [C x C over
 * d_k], the products with the values and the WY form's T K and T V,
 * Q S and W S [C x d_v over d_k], the state update [d_k x d_v over C];
 * docs/formulas.md, "FLOPs"), reading q, k, v, the gates and writing o (2
 * bytes each; backward twice the GEMMs and the bytes), the gated RMSNorm
 * (read o and z, write: 6 bytes; backward 10), out_proj. */
#define GDN_CHUNK 64.0
static void gated_deltanet(struct ctx *x, struct part *pt)
{
	const struct dc_model *m = x->m;
	double T = x->tokens, h = x->h, t = x->t, C = GDN_CHUNK;
	double nk = (double)m->linear_num_key_heads / t, nv = (double)m->linear_num_value_heads / t;
	double dk = (double)m->linear_key_head_dim, dv = (double)m->linear_value_head_dim;
	double conv = T * (2.0 * nk * dk + nv * dv), io = T * (2.0 * nk * dk + 2.0 * nv * dv + 2.0 * nv);
	double bh = x->b * ceil(x->s_q / C) * nv, core, cvc, ckc;
	struct lin_gemms g;

	norm_residual(x, pt, 0, 0, 0);
	/* in_proj: the block's column-parallel linear */
	linear_sp(x, pt, T, 2.0 * nk * dk + 2.0 * nv * dv + 2.0 * nv, h, LIN_GATHERED_X, &g);
	tp_col(pt, 0, &g);
	pt->fwd_mem += mem_s(x, 4.0 * conv);
	pt->bwd_mem += mem_s(x, 6.0 * conv);
	x->cur = &x->bf16; /* the chunked core stays BF16, as attention does under FP8 */
	/* [C x C] x [C x d_v] twice, and [C x C] x [C x d_k] the same call
	 * when d_k = d_v: priced once (gemm_s, a function of its arguments
	 * and *x) */
	cvc = gemm_s(x, C, dv, C, bh);
	ckc = dk == dv ? cvc : gemm_s(x, C, dk, C, bh);
	DC_MEMO_VERIFY(gemm_verify(x, "Gated DeltaNet's [C x C] x [C x d_k]", ckc, C, dk, C, bh));
	core = 2.0 * gemm_s(x, C, C, dk, bh) + cvc + ckc + cvc + 2.0 * gemm_s(x, C, dv, dk, bh) +
	       gemm_s(x, dk, dv, C, bh);
	pt->core_mm = core;
	pt->core_mem = mem_s(x, 2.0 * io);
	pt->fwd_mm += core;
	pt->fwd_mem += pt->core_mem + mem_s(x, 6.0 * T * nv * dv);
	pt->bwd_mm += 2.0 * core;
	pt->bwd_mem += mem_s(x, 4.0 * io) + mem_s(x, 10.0 * T * nv * dv);
	pt->fwd_flops += T * nv * (2.0 * C * (3.0 * dk + 2.0 * dv) + 6.0 * dk * dv);
	linear_sp(x, pt, T, h, nv * dv, LIN_GATHERED_DY, NULL);
}

/* a = wa a + wb b, field by field: a layer's mean over its kinds */
static void blend(struct part *a, const struct part *b, double wa, double wb)
{
	a->fwd_mm = wa * a->fwd_mm + wb * b->fwd_mm;
	a->fwd_mem = wa * a->fwd_mem + wb * b->fwd_mem;
	a->bwd_mm = wa * a->bwd_mm + wb * b->bwd_mm;
	a->bwd_mem = wa * a->bwd_mem + wb * b->bwd_mem;
	a->bwd_wgrad = wa * a->bwd_wgrad + wb * b->bwd_wgrad;
	for (int i = 0; i < 2; i++) {
		a->col_dgrad[i] = wa * a->col_dgrad[i] + wb * b->col_dgrad[i];
		a->col_wgrad[i] = wa * a->col_wgrad[i] + wb * b->col_wgrad[i];
	}
	a->core_mm = wa * a->core_mm + wb * b->core_mm;
	a->core_mem = wa * a->core_mem + wb * b->core_mem;
	a->rc_fwd = wa * a->rc_fwd + wb * b->rc_fwd;
	a->fwd_flops = wa * a->fwd_flops + wb * b->fwd_flops;
}

/* The keys a flash kernel's query meets, as s for causal attention (the
 * 0.5 in attention()), averaged over the softmax layers: a windowed or
 * chunked layer stands as twice the keys it runs a query
 * (dc_params_causal_keys: 2 w' - w'^2 / s for a window of w' = min(w, s),
 * (n c^2 + r^2) / s for chunks of c, c at s = 2c where a window of c
 * stands as 1.5 c) */
static double flash_keys(const struct dc_model *m, double s)
{
	double L = (double)m->num_layers, sl = (double)dc_params_sliding_layers(m);
	double soft = L - (double)dc_params_linear_layers(m);
	if (sl == 0 || soft <= 0)
		return s;
	return ((soft - sl) * s + sl * 2.0 * dc_params_causal_keys(m, s, 1)) / soft;
}

/* Adds n times `l` to `w`. */
static void add_work(struct dc_work_time *w, const struct dc_work_time *l, double n)
{
	w->fwd_s += n * l->fwd_s;
	w->bwd_s += n * l->bwd_s;
	w->recompute_s += n * l->recompute_s;
	w->fwd_matmul_s += n * l->fwd_matmul_s;
	w->bwd_matmul_s += n * l->bwd_matmul_s;
	w->bwd_wgrad_s += n * l->bwd_wgrad_s;
	for (int i = 0; i < 2; i++) {
		w->tp_col_dgrad_s[i] += n * l->tp_col_dgrad_s[i];
		w->tp_col_wgrad_s[i] += n * l->tp_col_wgrad_s[i];
	}
}

/* An MLP of inner size f / t on `tokens` tokens, `batch` experts of it
 * in one grouped kernel: fc1 (gate and up as one 2f-wide GEMM under
 * SwiGLU), the activation, fc2. Activation: GELU (bias fused) reads and
 * writes each inner element (4 bytes), backward reads x and dy and writes
 * dx (6); SwiGLU reads gate and up and writes their product (6), backward
 * reads gate, up and dy and writes both gradients (10). `sp`: a dense
 * layer's, fed by the sequence-parallel AllGathers (linear_in's
 * `gathered`: fc1's input, fc2's output gradient); a MoE layer's experts
 * and shared experts are not (tp.c: the dispatcher's gathers are BF16).
 * `col`: its fc1 is the layer's column-parallel MLP linear (part
 * col_dgrad: a dense MLP's, a shared expert's; not the routed experts',
 * whose linears take explicit_expert_comm and issue no TP collective,
 * Megatron-LM d98e8a64 tensor_parallel/layers.py:1235, 1252). Returns
 * the activation's forward (what the moe_act recompute module reruns). */
static double mlp(struct ctx *x, struct part *pt, double tokens, double f, double batch, int sp, int col)
{
	int gated = x->m->mlp == DC_MLP_SWIGLU;
	double inner = tokens * f * batch, act;
	struct lin_gemms fc1;
	linear_in(x, x->lin, pt, tokens, (gated ? 2.0 : 1.0) * f, x->h, batch, NULL, &fc1,
		  sp ? LIN_GATHERED_X | LIN_NORM_X : 0);
	if (col)
		tp_col(pt, 1, &fc1);
	if (gated && x->titan_eager) {
		/* torchtitan's FeedForward uncompiled, w2(F.silu(w1(x)) * w3(x))
		 * (torchtitan/models/common/feed_forward.py:53-54 at b5bcd76c,
		 * models/llama/model.py:252-253 at 9dec370): silu (read 2,
		 * write 2) and the product (read 4, write 2), 10 bytes in 2
		 * passes; backward the product's two multiplies (12) and
		 * silu_backward (read the gradient and the input, write: 6), 18
		 * bytes in 3, and autograd's sum of w1's and w3's input
		 * gradients (6 bytes per tokens x h element, one pass) */
		act = mem_passes_s(x, 10.0 * inner, 2);
		pt->bwd_mem += mem_passes_s(x, 18.0 * inner, 3) + mem_s(x, 6.0 * tokens * x->h * batch);
	} else {
		act = mem_s(x, (gated ? 6.0 : 4.0) * inner);
		pt->bwd_mem += mem_s(x, (gated ? 10.0 : 6.0) * inner);
	}
	pt->fwd_mem += act;
	if (x->m->mlp_bias)
		pt->bwd_mem += mem_s(x, 2.0 * inner);
	/* fc2 [f -> h] is fc1 [h -> f] transposed when fc1 has no gate */
	linear_in(x, x->lin, pt, tokens, x->h, f, batch, gated ? NULL : &fc1, NULL, sp ? LIN_GATHERED_DY : 0);
	return act;
}

/* A MoE layer's MLP part (Megatron-Core): the router (h -> E, whole, on
 * this rank's tokens) and its softmax/top-k; the k copies of each token
 * permuted before the expert AlltoAll and back after it (read and write
 * each copy both times); the num_experts / ep local experts as one
 * grouped GEMM, each seeing its share of the routed tokens of the ep x
 * etp ranks it serves, ep etp (b s / t) k / E (b s / t: one tp rank's
 * share; etp = tp: ep b s k / E), its f split over etp (Megatron's
 * --expert-tensor-parallel-size); the shared experts as a dense MLP. */
static void moe(struct ctx *x, struct part *pt)
{
	const struct dc_model *m = x->m;
	double E = (double)m->num_experts, k = (double)m->experts_per_token, ep = (double)x->p->ep;
	double etp = (double)x->p->etp;
	double copies = x->tokens_sp * k * x->h;
	uint32_t mods = dc_recompute_modules(x->p->in);
	double start = pt->fwd_mm + pt->fwd_mem, before, act;
	/* the router stays BF16 under FP8 recipes (Megatron-Core's TopKRouter
	 * is a plain GEMM, not a Transformer Engine layer) */
	linear_in(x, &x->bf16, pt, x->tokens_sp, E, x->h, 1, NULL, NULL, 0);
	pt->fwd_mem += mem_s(x, 8.0 * x->tokens_sp * E);
	pt->bwd_mem += mem_s(x, 8.0 * x->tokens_sp * E);
	pt->fwd_mem += 2.0 * mem_s(x, 4.0 * copies);
	pt->bwd_mem += 2.0 * mem_s(x, 4.0 * copies);
	act = mlp(x, pt, ep * etp / x->t * x->tokens * k / E, (double)m->moe_ffn_hidden_size / etp, E / ep, 0, 0);
	before = pt->fwd_mm + pt->fwd_mem;
	if (m->shared_expert_ffn_hidden_size)
		mlp(x, pt, x->tokens, (double)m->shared_expert_ffn_hidden_size / x->t, 1, 0, 1);
	/* what the recompute modules rerun (dc_recompute_modules): moe the
	 * whole part, else the shared experts and the routed activation */
	if (mods & DC_RCM(DC_RCM_MOE))
		pt->rc_fwd += pt->fwd_mm + pt->fwd_mem - start;
	else
		pt->rc_fwd += ((mods & DC_RCM(DC_RCM_SHARED_EXPERTS)) ? pt->fwd_mm + pt->fwd_mem - before : 0) +
			      ((mods & DC_RCM(DC_RCM_MOE_ACT)) ? act : 0);
}

/* Tiled TP overlap (Megatron's --tp-comm-overlap, torchtitan's async TP;
 * docs/step-model.md, "What the tiles cost"): a GEMM beside a
 * sequence-parallel collective runs as `splits` GEMMs of T / splits rows
 * (an input gradient: the output and inner sizes swapped), each with its
 * own waves of output tiles and its own launch, on the SMs the
 * collective's kernels leave it (`margin` of them taken); `wgrad` prices
 * the weight gradient [in x T] x [T x out] whole on the SMs left. What
 * that adds over the whole GEMM on every SM. `out` x `in` the weight's
 * shape on this rank. */
#define TE_PIPELINE_SPLITS 4.0 /* Transformer Engine's "pipeline" num_splits */
#define TE_COMM_SMS ((double)DC_TE_COMM_SMS) /* its num_sm for "pipeline" and "bulk", kept from the GEMMs (set_sm_margin; config.h) */
static double split_extra(struct ctx *x, double out, double in, int bwd, double splits, double margin, int wgrad)
{
	double T = x->tokens, sms = x->sms, whole, cut;
	double n = wgrad ? out : bwd ? in : out, k = wgrad ? T : bwd ? out : in, m = wgrad ? in : T;
	/* the SMs left run their share of the peak */
	struct prec left = *x->lin;
	/* the config refuses cluster.sm_count <= DC_TE_COMM_SMS under this
	 * overlap (rule_tp_overlap_sms); a plan that reaches here without
	 * those rules gets no SM-less tiled GEMM (an infinite or negative
	 * rate): no tiled cost at all, the whole GEMMs on every SM */
	if (!(margin < sms))
		return 0;
	left.peak *= (sms - margin) / sms;
	x->cur = x->lin;
	whole = gemm_s(x, m, n, k, 1);
	x->cur = &left;
	x->sms = sms - margin;
	cut = wgrad ? gemm_s(x, m, n, k, 1) : splits * gemm_s(x, m / splits, n, k, 1);
	x->sms = sms;
	x->cur = x->lin;
	return cut - whole;
}

/* What tiled TP adds to one layer (`dense`: its MLP's pairs too; a MoE
 * layer's MLP collectives wait for the token dispatch, untiled), forward
 * and backward; MLA's chain is not tiled (0).
 *   torchtitan (torch's fused_all_gather_matmul runs mm(shard, B) per
 *     rank's shard, fused_matmul_reduce_scatter mm(A_shards[rank], B);
 *     torch/distributed/_symmetric_memory/__init__.py): every paired
 *     GEMM in tp tiles, forward and the input gradients, the transfers
 *     on copy engines (no SMs taken); each ReduceScatter's tp partial
 *     products summed by one reduction kernel on the compute stream
 *     (reduce_fn over the stacked partials: read T h, write T h / tp, 2
 *     bytes each), forward after o and fc2, backward after the input
 *     gradients of q, k, v and fc1.
 *   megatron (Transformer Engine's userbuffers defaults,
 *     transformer_engine/pytorch/module/base.py initialize_ub,
 *     get_default_config): "ring_exchange" for qkv_fprop, fc1_fprop,
 *     proj_dgrad, fc2_dgrad, tp splits on copy engines (num_sm 1, no SM
 *     margin); "pipeline" for proj_fprop and fc2_fprop, 4 splits with 16
 *     SMs kept for the ReduceScatter (num_sm 16, set_sm_margin); "bulk"
 *     for qkv_dgrad, qkv_wgrad, fc1_dgrad, fc1_wgrad, whole GEMMs beside
 *     the collective's 16 SMs. */
static void tp_tiled(struct ctx *x, int dense, double *fwd, double *bwd)
{
	const struct dc_model *m = x->m;
	double qkv = (x->heads + 2.0 * x->kv_heads) * x->d_qk, o = x->heads * x->d_v, h = x->h, t = x->t;
	double f = (double)m->ffn_hidden_size / x->t, gate = m->mlp == DC_MLP_SWIGLU ? 2.0 : 1.0;
	*fwd = *bwd = 0;
	if (x->t < 2 || m->kv_lora_rank || dc_framework_tp_overlap(x->p) != DC_TP_TILED)
		return;
	if (x->p->in->training.framework == DC_FRAMEWORK_TORCHTITAN) {
		double rs = mem_s(x, 2.0 * x->tokens * h * (1.0 + 1.0 / t)), pairs = dense ? 2.0 : 1.0;
		*fwd = split_extra(x, qkv, h, 0, t, 0, 0) + split_extra(x, h, o, 0, t, 0, 0) + pairs * rs;
		*bwd = split_extra(x, qkv, h, 1, t, 0, 0) + split_extra(x, h, o, 1, t, 0, 0) + pairs * rs;
		if (dense) {
			*fwd += split_extra(x, gate * f, h, 0, t, 0, 0) + split_extra(x, h, f, 0, t, 0, 0);
			*bwd += split_extra(x, gate * f, h, 1, t, 0, 0) + split_extra(x, h, f, 1, t, 0, 0);
		}
		return;
	}
	*fwd = split_extra(x, qkv, h, 0, t, 0, 0) + split_extra(x, h, o, 0, TE_PIPELINE_SPLITS, TE_COMM_SMS, 0);
	*bwd = split_extra(x, h, o, 1, t, 0, 0) + split_extra(x, qkv, h, 1, 1, TE_COMM_SMS, 0) +
	       split_extra(x, qkv, h, 1, 1, TE_COMM_SMS, 1);
	if (dense) {
		*fwd += split_extra(x, gate * f, h, 0, t, 0, 0) + split_extra(x, h, f, 0, TE_PIPELINE_SPLITS, TE_COMM_SMS, 0);
		*bwd += split_extra(x, h, f, 1, t, 0, 0) + split_extra(x, gate * f, h, 1, 1, TE_COMM_SMS, 0) +
			split_extra(x, gate * f, h, 1, 1, TE_COMM_SMS, 1);
	}
}

/* The forward, backward and recompute times of a layer's blocks. */
static void layer_time(const struct ctx *x, const struct part *pt, struct dc_work_time *w)
{
	w->fwd_matmul_s = pt->fwd_mm;
	w->fwd_s = pt->fwd_mm + pt->fwd_mem;
	w->bwd_matmul_s = pt->bwd_mm;
	w->bwd_wgrad_s = pt->bwd_wgrad;
	for (int i = 0; i < 2; i++) {
		w->tp_col_dgrad_s[i] = pt->col_dgrad[i];
		w->tp_col_wgrad_s[i] = pt->col_wgrad[i];
	}
	w->bwd_s = pt->bwd_mm + pt->bwd_mem;
	switch (x->p->in->training.recompute) {
	case DC_RECOMPUTE_NONE:
		w->recompute_s = 0;
		break;
	case DC_RECOMPUTE_SELECTIVE:
		/* the modules training.recompute_modules names (attention(),
		 * moe(), the layer's MLP: rc_fwd), with the core by default */
		w->recompute_s = ((dc_recompute_modules(x->p->in) & DC_RCM(DC_RCM_CORE_ATTN)) ? pt->core_mm + pt->core_mem : 0) +
				 pt->rc_fwd;
		break;
	case DC_RECOMPUTE_FULL: {
		/* training.recompute_layers k of each chunk's layers
		 * (Megatron's block method): per layer, on average, the
		 * model's recomputed share of a forward (plan.h) */
		double share = dc_plan_recompute_share(x->p);
		w->recompute_s = share * w->fwd_s;
		break;
	}
	case DC_RECOMPUTE_OP:
		/* torchtitan's per-op policy keeps every other matmul's output
		 * and the flash kernel's: the rest of the forward runs again,
		 * every element-wise kernel, about half the projection GEMMs'
		 * time, and under eager attention its two products too */
		w->recompute_s = pt->fwd_mem + 0.5 * (pt->fwd_mm - pt->core_mm) + (x->eager ? pt->core_mm : 0.0);
		break;
	}
}

/* What training.recompute reruns of an MTP module: `ew` its enorm,
 * hnorm and eh_proj, `layer` its layer (a copy of its kind's). Megatron-
 * Core at d98e8a64 (multi_token_prediction.py): under full recompute in
 * training (:1705-1720) the uniform method checkpoints the module's
 * _proj_and_transformer_layer, norms, eh_proj and layer together
 * (:1621-1629), so all of their forward runs again; the block method runs
 * it without a checkpoint (:1630-1634), so nothing does, whatever
 * recompute_layers leaves the decoder's layers. Selective (and torch's op
 * policy) reach the layer's own modules as any layer's of its kind, never
 * the norms or eh_proj, which are not in a layer. The head after the
 * module is outside the checkpoint: never rerun. */
static void mtp_recompute(const struct dc_plan *p, struct dc_work_time *ew, struct dc_work_time *layer)
{
	ew->recompute_s = 0;
	if (p->in->training.recompute != DC_RECOMPUTE_FULL)
		return;
	if (dc_plan_mtp_recomputed(p)) {
		ew->recompute_s = ew->fwd_s;
		layer->recompute_s = layer->fwd_s;
	} else {
		layer->recompute_s = 0;
	}
}

/* A dense layer no shorter than the host's time to issue it, where the
 * profile's layer of the same block waited for its host (compute.h
 * dense_layer_host_floor_s): every time of the layer stretched by the
 * same factor, its kernels' share of it kept (docs/compute-model.md, "A
 * layer that waited for its host") */
static void host_floor(const struct ctx *x, struct dc_compute *c)
{
	struct dc_work_time *w = &c->dense_layer;
	const struct dc_compute_profile *pr = x->p->in->compute_profile;
	double floor = pr ? dc_compute_profile_host_floor_s(pr, x->p) : 0, t = w->fwd_s + w->bwd_s, f;
	c->dense_layer_host_floor_s = floor;
	c->dense_layer_host_factor = 1.0;
	if (!(floor > t && t > 0))
		return;
	f = floor / t;
	c->dense_layer_host_factor = f;
	w->fwd_s *= f;
	w->bwd_s *= f;
	w->recompute_s *= f;
	w->fwd_matmul_s *= f;
	w->bwd_matmul_s *= f;
	w->bwd_wgrad_s *= f;
	for (int i = 0; i < 2; i++) {
		w->tp_col_dgrad_s[i] *= f;
		w->tp_col_wgrad_s[i] *= f;
	}
	/* tiled TP's extra tiles are not in the probe's layer: added as
	 * priced (tp_tiled_*), not stretched */
}

/* First stage: the vocabulary-parallel lookup (each tp rank writes its
 * masked b s x h share, reading the rows it holds: 4 bytes per element),
 * a learned position table added (read it, the sum's read and write: 6),
 * the embedding dropout on the tokens_sp stream (5); backward the
 * gradient rows accumulate into the FP32 embedding gradient (read dy 2,
 * read and write the row 8). */
static void embedding(const struct ctx *x, struct dc_work_time *w)
{
	double n = x->tokens * x->h, nsp = x->tokens_sp * x->h;
	memset(w, 0, sizeof(*w));
	w->fwd_s = mem_s(x, 4.0 * n);
	w->bwd_s = mem_s(x, 10.0 * n);
	if (x->m->position_embeddings) {
		w->fwd_s += mem_s(x, 6.0 * n);
		w->bwd_s += mem_s(x, 10.0 * n);
	}
	if (x->dropout) {
		w->fwd_s += mem_s(x, 5.0 * nsp);
		w->bwd_s += mem_s(x, 5.0 * nsp);
	}
	/* token ids take no gradient: all of it is the table's (W) */
	w->bwd_wgrad_s = w->bwd_s;
}

/* Last stage: the final norm, the logits GEMM against the vocabulary
 * shard (b s x h by h x V/t), and the vocabulary-parallel cross entropy
 * in FP32, its bytes counted kernel by kernel, each direction priced as
 * one pass. Under training.framework megatron, as Megatron-Core
 * core_r0.8.0 megatron/core/tensor_parallel/cross_entropy.py (lines
 * 27-113) and autograd's cast of the gradient run it: forward the
 * FP32 copy of the logits (2 + 4 bytes), the max (4), the in-place shift
 * (4 + 4), exp (4 + 4), the sum (4) and the division (4 + 4): 38 bytes
 * per logit; backward the product with the loss gradient (4 + 4) and the
 * BF16 copy for the output layer's GEMMs (4 + 2): 14. Under torchtitan,
 * the loss of train.py at 9dec370, cross_entropy(pred.flatten(0, 1).float(),
 * labels), eager even when training.compile is on (its torch.compile is
 * commented out there). At tp 1 PyTorch's cross_entropy is log_softmax and
 * nll_loss (aten/src/ATen/native/LossNLL.cpp, cross_entropy_loss_symint):
 * forward the FP32 copy (2 + 4) and cunn_SoftMaxForward (SoftMax.cu; a row
 * past the shared-memory and register paths, over 12,256 FP32 entries at
 * 48 KiB) reading the row three times and writing it (16): 22; backward
 * nll_loss_backward's zero fill of its gradient (cuda/Loss.cu, 4),
 * cunn_SoftMaxBackward reading that twice and the output once and writing
 * (16), the BF16 copy (4 + 2): 26. At tp > 1 torchtitan's loss_parallel
 * runs DTensor's handlers (torch/distributed/tensor/parallel/loss.py):
 * forward the copy (6), amax (4), the shift (8), exp (8), the sum (4), the
 * shifted minus its log-sum (8): 38; backward zeros_like (4), exp (8), the
 * sum with it (12), the product with the loss gradient (8), the BF16 copy
 * (6): 38. Otherwise a simplified count with no source of its own, the one
 * the A100 levels were fitted with: read the 16-bit logits twice, write
 * and read the FP32 exponentials (16 bytes), backward the softmax minus
 * the one-hot (6); docs/compute-model.md ("Head") gives what the full
 * count would move. */
/* training.loss_chunks n above 1 (torchtitan's ChunkedLossWrapper,
 * components/loss.py:501-548 at b5bcd76c): the logits GEMM and the loss
 * kernels run n times on tokens / n each, so the FLOPs and bytes are the
 * whole's and each kernel launches n times, its waves counted on the
 * chunk's shape (gemm_s). The head input's gradient gathers in an FP32
 * buffer: zeros_like once (4 bytes a hidden element, loss.py:432), per
 * chunk the 16-bit gradient cast to FP32 (2 + 4) and written into its
 * slice (4 + 4; :464-473), and once the cast back to 16 bits (4 + 2,
 * :711): 4 + 14 + 6 bytes a hidden element over the tokens, 2n + 2
 * launches, in the backward with the rest of the head's. */
static void head_chunked(struct ctx *x, struct part *pt, double V, double fwd_b, double bwd_b)
{
	struct part one = {0};
	double runs = (double)dc_act_loss_chunks(x->p), c = x->tokens / runs, ch = c * x->h;
	linear_in(x, x->p->in->precision.fp8_lm_head ? x->lin : &x->bf16, &one, c, V, x->h, 1, NULL, NULL, 0);
	one.fwd_mem += mem_s(x, fwd_b * c * V);
	one.bwd_mem += mem_s(x, bwd_b * c * V) + mem_s(x, 6.0 * ch) + mem_s(x, 8.0 * ch);
	pt->fwd_mm += runs * one.fwd_mm;
	pt->fwd_mem += runs * one.fwd_mem;
	pt->bwd_mm += runs * one.bwd_mm;
	pt->bwd_mem += runs * one.bwd_mem + mem_s(x, 4.0 * x->tokens * x->h) + mem_s(x, 6.0 * x->tokens * x->h);
	pt->bwd_wgrad += runs * one.bwd_wgrad;
	pt->fwd_flops += runs * one.fwd_flops;
}

static void head(struct ctx *x, struct dc_work_time *w)
{
	struct part pt = {0};
	double V = (double)x->m->vocab_size / x->t, logits = x->tokens * V, n = x->tokens_sp * x->h;
	enum dc_framework fw = x->p->in->training.framework;
	double fwd_b = 16.0, bwd_b = 6.0; /* bytes per logit, as above */
	if (fw == DC_FRAMEWORK_MEGATRON) {
		fwd_b = 38.0;
		bwd_b = 14.0;
	} else if (fw == DC_FRAMEWORK_TORCHTITAN) {
		fwd_b = x->t > 1 ? 38.0 : 22.0;
		bwd_b = x->t > 1 ? 38.0 : 26.0;
	}
	/* BF16 unless precision.fp8_lm_head: Megatron-Core's output layer is
	 * a plain ColumnParallelLinear (megatron/core/models/gpt/gpt_model.py),
	 * torchtitan's float8 filter leaves out `output` */
	if (dc_act_loss_chunks(x->p) > 1) {
		head_chunked(x, &pt, V, fwd_b, bwd_b);
		pt.fwd_mem += mem_s(x, 4.0 * n);
		pt.bwd_mem += mem_s(x, 6.0 * n);
	} else {
		linear_in(x, x->p->in->precision.fp8_lm_head ? x->lin : &x->bf16, &pt, x->tokens, V, x->h, 1, NULL, NULL, 0);
		pt.fwd_mem += mem_s(x, 4.0 * n) + mem_s(x, fwd_b * logits);
		pt.bwd_mem += mem_s(x, 6.0 * n) + mem_s(x, bwd_b * logits);
	}
	memset(w, 0, sizeof(*w));
	w->fwd_matmul_s = pt.fwd_mm;
	w->fwd_s = pt.fwd_mm + pt.fwd_mem;
	w->bwd_matmul_s = pt.bwd_mm;
	w->bwd_wgrad_s = pt.bwd_wgrad;
	w->bwd_s = pt.bwd_mm + pt.bwd_mem;
}

/* The parameters one rank's optimizer updates (its master shard) and
 * the gradient elements its buffer holds (sharded from ZeRO-2 on); `sh`:
 * the states' shards, as the axes shard them (axis.h) */
static double step_params(const struct ctx *x, const struct dc_state_shards *sh, const struct dc_stage_params *sp,
			  double *buffer)
{
	const struct dc_layout *lay = &x->p->layout;
	double dense = (double)(sp->total - sp->expert_params), experts = (double)sp->expert_params;
	double params = dense + experts;
	*buffer = dense + experts;
	if (lay->sharding >= DC_SHARD_ZERO1) {
		params = ceil(dense / (double)sh->dense[DC_STATE_MASTER]) +
			 ceil(experts / (double)sh->expert[DC_STATE_MASTER]);
		if (lay->sharding >= DC_SHARD_ZERO2)
			*buffer = ceil(dense / (double)sh->dense[DC_STATE_GRADS]) +
				  ceil(experts / (double)sh->expert[DC_STATE_GRADS]);
	}
	return params;
}

/* training.optimizer_implementation "foreach" (torch's _multi_tensor_adamw
 * at torchtitan 9dec370's PyTorch, the same ops in adam.py's decoupled
 * branch since): the weight decay's mul_ of the parameters (read, write),
 * the first moment's lerp_ with the gradient (read both, write), the
 * second moment's mul_ (read, write) and addcmul_ with the gradient
 * (read both, write), its sqrt into a new list (read, write), that list's
 * div_ and add_ of eps (read, write each), and the parameters' addcdiv_
 * (read the parameter, the first moment and the list, write): per
 * parameter 4 of the updated tensor, 2 of the gradient, 3 of the first
 * moment and 11 of the second's width, eight passes (80 B in FP32; the
 * fused kernel reads the four and writes three, 28 B, in one). */
#define FOREACH_PASSES 8.0

/* Adam's bytes per updated parameter and its kernel passes (see
 * optimizer_s): `upd` the tensor the update writes (the master, or the
 * parameters without one), the gradient's and each moment's width */
static double adam_bytes(enum dc_optimizer_impl impl, double upd, double grad, double moment, double *passes)
{
	if (impl == DC_OPT_IMPL_FOREACH) {
		*passes = FOREACH_PASSES;
		return 4.0 * upd + 2.0 * grad + 14.0 * moment;
	}
	*passes = 1.0;
	return 2.0 * upd + grad + 4.0 * moment;
}

/* The device step's bytes per updated parameter and its passes (compute.h
 * optimizer_bytes_per_param), Megatron's extras aside (optimizer_s) */
static double step_bytes_per_param(const struct dc_plan *p, double *passes)
{
	const struct dc_config *in = p->in;
	const struct dc_precision *pr = &in->precision;
	double upd = (double)(pr->master_bytes ? pr->master_bytes : pr->param_bytes);
	double per_param = adam_bytes(in->training.optimizer_implementation, upd, (double)pr->grad_bytes,
				      (double)pr->optimizer_bytes / 2.0, passes);
	/* the clip's norm reads the gradient; the master's update is copied
	 * into the working parameters */
	per_param += (double)pr->grad_bytes + (pr->master_bytes ? (double)pr->param_bytes : 0.0);
	/* torch's clip_grad_norm_ multiplies every gradient by the clamped
	 * coefficient, 1 or not (no host sync: torch/nn/utils/clip_grad.py),
	 * which torchtitan calls each step (train.py at 9dec370); DeepSpeed's
	 * ZeRO unscales every step by the loss scale and the clip together
	 * (unscale_and_clip_grads: deepspeed/runtime/zero/stage_1_and_2.py:
	 * 2443-2449, stage3.py:2705 at edaa7221; without ZeRO its
	 * BF16_Optimizer clips only above the bound, runtime/utils.py:969-970);
	 * Megatron's scales only when the norm is above the bound (megatron/
	 * core/optimizer/clip_grads.py at core_r0.8.0). The norm's own kernel
	 * is left in the update's pass */
	enum dc_framework fw = in->training.framework;
	if (fw == DC_FRAMEWORK_TORCHTITAN || (fw == DC_FRAMEWORK_DEEPSPEED && p->layout.sharding != DC_SHARD_NONE)) {
		per_param += 2.0 * (double)pr->grad_bytes;
		*passes += 1.0;
	}
	return per_param;
}

/* Adam on the parameters one rank updates (its dp shard under ZeRO, the
 * experts' over dp / ep): read the gradient, read and write the master
 * copy and both moments, write the working parameters; the global-norm
 * clip reads the gradient once more. Without a master copy the working
 * parameters are read and written instead. Megatron-LM's mixed-precision
 * optimizer (the megatron preset) copies the master to the working
 * parameters in a kernel of its own, reading the master again, and zeroes
 * its FP32 gradient buffer before each step's backward: a master more per
 * updated parameter and a gradient per parameter the buffer holds, all of
 * the stage's unless ZeRO-2 or FSDP shards the gradients (Megatron-LM
 * 2022: _copy_main_params_to_model_params in megatron/optimizer/
 * optimizer.py, zero_grad_buffer in megatron/model/distributed.py). */
static double optimizer_s(const struct ctx *x, const struct dc_state_shards *sh, const struct dc_stage_params *sp)
{
	const struct dc_precision *pr = &x->p->in->precision;
	double buffer, params = step_params(x, sh, sp, &buffer), passes;
	double per_param = step_bytes_per_param(x->p, &passes);
	if (pr->preset == DC_PRECISION_MEGATRON)
		return mem_passes_s(x, (per_param + (double)pr->master_bytes) * params + (double)pr->grad_bytes * buffer,
				    passes);
	return mem_passes_s(x, per_param * params, passes);
}

/* The bytes a parameter CPU-Adam streams through host memory: it reads
 * the FP32 parameter, gradient and both moments and writes the parameter
 * and the moments (DeepSpeed csrc/includes/cpu_adam.h, Step_AVX,
 * :166-198 at edaa7221): cluster.host_adam_rate is this stream's rate
 * (docs/step-model.md, "The optimizer on the host") */
#define CPU_ADAM_BYTES_PER_PARAM 28.0

/* Seconds the node's CPUs take to cast `node_params` FP32 values to
 * `to_bytes` each: a stream of 4 + to_bytes bytes a parameter, priced at
 * CPU-Adam's rate for its 28 (the same memory at the same fraction of its
 * peak, the assumption host_adam_rate's derivation rests on). */
static double host_cast_s(double node_params, double to_bytes, double adam_rate)
{
	double stream_bytes = 4.0 + to_bytes;
	return node_params * stream_bytes / CPU_ADAM_BYTES_PER_PARAM / adam_rate;
}

/* The optimizer step on the host (parallel.offload; docs/step-model.md,
 * "The optimizer on the host"), after ZeRO-Offload (Ren et al. 2021,
 * sections 4.1-4.2): the rank's gradient shard goes device to host, the
 * node's CPUs run Adam on every shard of its GPUs (the rank's, times
 * gpus_per_node, as the host ledger counts them), the updated parameters
 * come back. Serial: the one-step delayed update that hides the CPU
 * (section 5.2) is opt-in and not modelled.
 *
 * Under training.framework deepspeed with ZeRO-1 or ZeRO-2, the copies
 * DeepSpeed makes (deepspeed/runtime/zero/stage_1_and_2.py at edaa7221):
 * the boundary's gradients cast to the FP32 master dtype on the GPU
 * before they cross (async_inplace_copy_grad_to_fp32_buffer_from_gpu,
 * :1590-1605), 4 B a parameter; the updated FP32 partition cast to the
 * 16-bit dtype on the CPU into a host buffer (step(), :2338-2341; the
 * buffer :495-507), then copied back, param_bytes a parameter; and with
 * grad_accum_steps m > 1 under ZeRO-2 the copies of
 * async_accumulate_grad_in_cpu_via_gpu (:1516-1560), param_bytes a
 * parameter each: copy_grads_in_partition (:1650-1665) calls it in every
 * micro step's reduction but a lone boundary one, and it copies the
 * host's sum back to add to when micro_step_id > 0 and the gradients out
 * every time: m out and m - 1 back, 2m - 1. ZeRO-1 reduces at the
 * boundary alone, where its micro_step_id is still 0 (setup_buckets,
 * :2493-2495, raises it only after _release_ipg_buffers, :828-835, which
 * its non-boundary micro steps never reach), so it makes none. They run
 * in the backward's reduce_ipg_grads on the compute stream (overlap_comm
 * false, DeepSpeed's default: :1719-1727), so each is priced exposed. */
static void host_step(const struct ctx *x, const struct dc_compute *c, const struct dc_state_shards *shards,
		      const struct dc_stage_params *sp, struct dc_host_step *h)
{
	const struct dc_config *in = x->p->in;
	const struct dc_precision *pr = &in->precision;
	enum dc_sharding sh = x->p->layout.sharding;
	double buffer, params = step_params(x, shards, sp, &buffer);
	double node_params = params * (double)in->cluster.gpus_per_node;
	double out_bytes = (double)pr->grad_bytes, back_bytes = (double)pr->param_bytes, copies = 0;
	int cpu_cast = 0;
	uint64_t m = x->p->layout.grad_accum_steps;
	if (in->training.framework == DC_FRAMEWORK_DEEPSPEED && (sh == DC_SHARD_ZERO1 || sh == DC_SHARD_ZERO2)) {
		out_bytes = 4.0;
		cpu_cast = 1;
		if (sh == DC_SHARD_ZERO2 && m > 1)
			copies = 2.0 * (double)m - 1.0;
	} else if (in->training.framework == DC_FRAMEWORK_DEEPSPEED && sh == DC_SHARD_FSDP) {
		/* ZeRO-3 casts the gradient partition to FP32 on the GPU before
		 * its copy to the host (stage3.py _offload_grad_partition_at_boundary,
		 * :1393-1407 at edaa7221); the parameters come back in their own
		 * dtype through a blocking copy_ of the FP32 partition into the
		 * 16-bit one (_reassign_or_swap_out_partitioned_parameters,
		 * :2585-2593), which PyTorch converts on the CPU before the copy
		 * (copy_kernel_cuda, aten/src/ATen/native/cuda/Copy.cu at
		 * 007aa8ae: "For blocking transfers conversions are performed on
		 * CPU") */
		out_bytes = 4.0;
		cpu_cast = 1;
		/* with offload_param that 16-bit partition is the pinned host
		 * buffer the parameters live in (param_groups_fp16_flat_cpu_memory,
		 * stage3.py:857-858, narrowed into fp16_partitioned_groups_flat
		 * and the parameters moved into it at :926-962): the cast stays on the host and nothing goes back; the
		 * next forward's gathers copy the partition up (step.c
		 * zero3_host_copies) */
		if (in->parallel.offload == DC_OFFLOAD_OPTIMIZER_PARAMS)
			back_bytes = 0;
	}
	h->params = params;
	h->accum_s = params * copies * (double)pr->param_bytes / c->host_bandwidth;
	h->d2h_s = params * out_bytes / c->host_bandwidth;
	h->cpu_s = node_params / c->host_adam_rate;
	h->cast_s = cpu_cast ? host_cast_s(node_params, (double)pr->param_bytes, c->host_adam_rate) : 0;
	h->h2d_s = params * back_bytes / c->host_bandwidth;
}

/* Fills c->optimizer_s (and c->host_step under offload) for every plan
 * segment; a segment whose parameters overflow steps in 0. */
static void optimizer_steps(const struct ctx *x, struct dc_compute *c)
{
	const struct dc_plan *p = x->p;
	struct dc_state_shards sh = {{0}, {0}};
	c->optimizer_bytes_per_param = step_bytes_per_param(p, &c->optimizer_passes);
	/* the states' shards, the same on every stage: read from ZeRO-1 on
	 * (step_params) */
	if (p->layout.sharding >= DC_SHARD_ZERO1)
		dc_axis_state_shards(p, &sh);
	for (uint64_t i = 0; i < p->nsegments && i < DC_PLAN_MAX_SEGMENTS; i++) {
		struct dc_host_step *h = &c->host_step[i];
		memset(h, 0, sizeof(*h));
		if (p->segment_overflow[i]) {
			c->optimizer_s[i] = 0;
			continue;
		}
		if (!c->optimizer_on_host) {
			c->optimizer_s[i] = optimizer_s(x, &sh, &p->segment_params[i]);
			continue;
		}
		host_step(x, c, &sh, &p->segment_params[i], h);
		c->optimizer_s[i] = h->accum_s + h->d2h_s + h->cpu_s + h->cast_s + h->h2d_s;
	}
}

/* Bytes an FP8 recipe moves per element of a GEMM input it casts (the
 * forward input X, the output gradient dY), as one element-wise pass
 * (docs/compute-model.md, "FP8 recipes"):
 *   delayed  read the BF16 tensor once (the scale comes from the amax
 *            history) and write the FP8 copy and, on Hopper, its FP8
 *            transpose for the backward's GEMMs: 2 + 1 + 1 (Transformer
 *            Engine docs, fp8_delayed_scaling.rst lines 21-34; the fused
 *            cast+transpose of transformer_engine/common/transpose/
 *            cast_transpose.cu); Blackwell's GEMMs take either layout, so
 *            no transpose (fp8_current_scaling.rst line 97): 3
 *   current  one more read for the tensor's own amax (fp8_current_scaling
 *            .rst lines 71-76): 6, on Blackwell 5
 *   rowwise  torchao casts each input twice, along each axis (X for the
 *            output and the weight gradient, dY for the input and weight
 *            gradients: torchao/float8/float8_linear.py lines 56-62 and
 *            185-191, 113-119 and 167-173), each cast reading the tensor
 *            for its amax and again to scale it, writing FP8
 *            (float8_scaling_utils.py hp_tensor_to_float8_dynamic, lines
 *            56-65): 2 x (2 + 2 + 1) = 10
 *   mxfp8    one read, the rowwise and the columnwise FP8 copies (their
 *            1 x 32 and 32 x 1 blocks differ: mxfp8.rst lines 80-89) and
 *            one E8M0 scale per 32 elements for each: 2 + 2 + 2 / 32 */
/* Of those, the FP8 transpose's write: Hopper's FP8 GEMMs take only the
 * TN layout, so a per-tensor recipe writes the transposed copy the
 * weight gradient (X) and input gradient (dY) read; Blackwell's take
 * either (docs/compute-model.md, "FP8 recipes") */
static double fp8_cast_transpose(enum dc_fp8_recipe r, enum dc_gpu_arch arch)
{
	return (r == DC_FP8_DELAYED || r == DC_FP8_CURRENT) && arch != DC_GPU_ARCH_BLACKWELL ? 1.0 : 0.0;
}

/* Megatron-Core's Transformer Engine layers (megatron/core/models/gpt/
 * gpt_layer_specs.py at d98e8a64: linear_qkv and a dense MLP's linear_fc1
 * are TELayerNormColumnParallelLinear, the norm inside; a MoE layer's
 * pre_mlp_layernorm and MLA's input norm stay apart) run the norm and
 * the quantization of its output together (Transformer Engine d0067d0d
 * module/layernorm_linear.py:244-266, with_quantized_norm; csrc/
 * extensions/normalization.cpp:95-133 layernorm_fwd, 332-370
 * rmsnorm_fwd),
 * by recipe:
 *   delayed  FULLY_FUSED: the norm kernel writes the FP8 copy, not BF16
 *            (1 byte an element, not 2), and no cast kernel runs; a
 *            transpose, where the GPU needs one and the gather does not
 *            make it, is its own kernel reading the FP8 copy and writing
 *            its transpose (common/normalization/rmsnorm/rmsnorm_api.cpp
 *            :100-108): 2 bytes, on Blackwell none
 *   current  FUSED_NORM_AMAX_FP8: the norm writes BF16 and its amax in
 *            the same pass; quantize_with_amax casts without reading the
 *            tensor for its amax (csrc/quantizer.cpp:1042-1048, 1008-
 *            1012): the cast less its amax read, 2 bytes
 *   mxfp8    UNFUSED unless NVTE_NORM_FWD_USE_CUDNN is set (off by
 *            default, common/util/system.h:61-64): the cast as before
 * docs/compute-model.md, "Transformer Engine's norm and cast". */
static void te_norm_quantizes(const struct dc_config *in, enum dc_gpu_arch arch, struct ctx *x)
{
	double transpose = fp8_cast_transpose(in->precision.fp8_recipe, arch);
	x->te_norm = in->training.framework == DC_FRAMEWORK_MEGATRON && in->precision.compute == DC_COMPUTE_FP8 &&
		     (in->precision.fp8_recipe == DC_FP8_DELAYED || in->precision.fp8_recipe == DC_FP8_CURRENT);
	x->norm_out_bytes = 2.0;
	x->cast_x_norm = x->fp8.cast_x;
	x->cast_shard_norm = x->cast_shard;
	if (!x->te_norm)
		return;
	if (in->precision.fp8_recipe == DC_FP8_DELAYED) {
		x->norm_out_bytes = 1.0;
		x->cast_x_norm = 2.0 * transpose;
		x->cast_shard_norm = 0.0;
	} else {
		x->cast_x_norm = x->fp8.cast_x - 2.0;
		x->cast_shard_norm = x->cast_shard - 2.0;
	}
}

/* Whether the sequence-parallel AllGathers before the blocks' linear
 * layers carry the FP8 tensor, each rank quantizing its own shard before
 * them: dc_framework_tp_gather_format (framework.h) other than the working
 * precision (docs/formulas-systems.md, "FP8 gathers"): Transformer
 * Engine's delayed, current and mxfp8 under megatron, deepspeed and
 * custom, torchao's tensorwise (current) under torchtitan; at tp 1
 * nothing is gathered. */
static int fp8_gathers(const struct dc_config *in, const struct dc_plan *p)
{
	return p->layout.sequence_parallel && p->layout.tp > 1 &&
	       dc_framework_tp_gather_format(in) != DC_TP_GATHER_WORKING;
}

static double fp8_cast_bytes(enum dc_fp8_recipe r, enum dc_gpu_arch arch)
{
	double transpose = fp8_cast_transpose(r, arch);
	switch (r) {
	case DC_FP8_DELAYED:
		return 3.0 + transpose;
	case DC_FP8_CURRENT:
		return 5.0 + transpose;
	case DC_FP8_ROWWISE:
		return 10.0;
	case DC_FP8_MXFP8:
		return 4.0 + 2.0 / 32.0;
	}
	return 0;
}

/* The attention core's sustained levels: the backend's isolated forward
 * and backward fractions x the in-situ factor; the forward's FP8 one
 * under precision.attention "fp8" where the set has one. */
static void attention_levels(const struct dc_config *in, struct ctx *x, struct dc_compute *c)
{
	enum dc_attention_backend b = in->training.attention_backend;
	if (in->training.attention == DC_ATTENTION_EAGER)
		b = DC_ATTN_BACKEND_EAGER;
	else if (b == DC_ATTN_BACKEND_EAGER || b >= DC_ATTN_BACKEND_COUNT)
		b = DC_ATTN_BACKEND_SDPA; /* the loader's default for flash off Blackwell */
	c->attention_backend = dc_attention_backend_name(b);
	if (b == DC_ATTN_BACKEND_EAGER) { /* GEMMs and element-wise kernels */
		x->attn_fwd = x->attn_bwd = x->attn_fwd_bf16 = 0;
		return;
	}
	if (x->e->attn_fwd[b] <= 0) /* no figure (the loader refuses this): FA2's */
		b = DC_ATTN_BACKEND_SDPA;
	x->attn_fwd = x->e->attn_fwd[b] * x->e->in_situ;
	x->attn_bwd = x->e->attn_bwd[b] * x->e->in_situ;
	x->attn_fwd_bf16 = x->attn_fwd;
	if (in->precision.attention == DC_ATTN_PRECISION_FP8 && x->e->attn_fp8_fwd > 0)
		x->attn_fwd = x->e->attn_fp8_fwd * x->e->in_situ;
	/* measured on the user's GPU (--calibrate-compute), the loader's
	 * in-situ share already applied (calibrate_compute.h) */
	if (in->cluster.attention_fwd_efficiency > 0)
		x->attn_fwd = x->attn_fwd_bf16 = in->cluster.attention_fwd_efficiency;
	if (in->cluster.attention_bwd_efficiency > 0)
		x->attn_bwd = in->cluster.attention_bwd_efficiency;
	c->attention_fwd_efficiency = x->attn_fwd;
	c->attention_bwd_efficiency = x->attn_bwd;
}

/* The keys kernel times need and the config lacks, or NULL: the BF16 peak
 * always (attention, the router and the LM head stay BF16), the FP8 one
 * under precision.compute "fp8", the HBM bandwidth. */
static const char *missing_keys(const struct dc_config *in)
{
	static const char *const names[8] = {
		NULL,
		"cluster.hbm_bandwidth",
		"cluster.peak_flops_fp8",
		"cluster.peak_flops_fp8, cluster.hbm_bandwidth",
		"cluster.peak_flops",
		"cluster.peak_flops, cluster.hbm_bandwidth",
		"cluster.peak_flops, cluster.peak_flops_fp8",
		"cluster.peak_flops, cluster.peak_flops_fp8, cluster.hbm_bandwidth",
	};
	int no_fp8 = in->precision.compute == DC_COMPUTE_FP8 && in->cluster.peak_flops_fp8 <= 0;
	int no_bf16 = in->cluster.peak_flops <= 0, no_hbm = in->cluster.hbm_bandwidth <= 0;
	return names[(no_bf16 ? 4 : 0) + (no_fp8 ? 2 : 0) + (no_hbm ? 1 : 0)];
}

/* One dense and (with experts) one MoE transformer layer of the context's
 * format, into *dense_out and *moe_out, with each one's forward FLOPs */
static void layers(struct ctx *x, struct dc_work_time *dense_out, struct dc_work_time *moe_out, double *dense_flops,
		   double *moe_flops)
{
	const struct dc_config *in = x->p->in;
	const struct dc_model *m = x->m;
	{
		struct part attn = {0}, dense = {0}, moe_pt = {0};
		attention(x, &attn);
		if (m->full_attention_interval) {
			/* hybrid: the layer is the mean of its kinds (Qwen3-Next: 3 of
			 * 4 Gated DeltaNet), so L of them give the model's total */
			struct part lin = {0};
			double share = (double)dc_params_linear_layers(m) / (double)m->num_layers;
			gated_deltanet(x, &lin);
			blend(&attn, &lin, 1.0 - share, share);
		}
		uint32_t mods = dc_recompute_modules(in);
		double nf, before;
		dense = attn;
		/* the mlp recompute module reruns the dense MLP with the norm
		 * fused into its fc1 (Transformer Engine's LayerNormLinear) */
		nf = norm_residual(x, &dense, m->mlp_bias, 1, 1);
		before = dense.fwd_mm + dense.fwd_mem;
		mlp(x, &dense, x->tokens, (double)m->ffn_hidden_size / x->t, 1, 1, 1);
		if (mods & DC_RCM(DC_RCM_MLP))
			dense.rc_fwd += nf + dense.fwd_mm + dense.fwd_mem - before;
		layer_time(x, &dense, dense_out);
		tp_tiled(x, 1, &dense_out->tp_tiled_fwd_s, &dense_out->tp_tiled_bwd_s);
		*dense_flops = dense.fwd_flops;
		if (m->num_experts) {
			moe_pt = attn;
			/* a MoE layer's pre-MLP norm stands apart: the layernorm
			 * recompute module reruns it */
			nf = norm_residual(x, &moe_pt, 0, 1, 0);
			if (mods & DC_RCM(DC_RCM_LAYERNORM))
				moe_pt.rc_fwd += nf;
			moe(x, &moe_pt);
			layer_time(x, &moe_pt, moe_out);
			tp_tiled(x, 0, &moe_out->tp_tiled_fwd_s, &moe_out->tp_tiled_bwd_s);
			*moe_flops = moe_pt.fwd_flops;
		}
	}
}

/* The context of a layer kept in BF16 under compute FP8
 * (precision.bf16_first_layers and bf16_last_layers; Megatron-Core runs
 * it outside the FP8 context, megatron/core/fp8_utils.py:711-727 and
 * :848-850 at d98e8a64): its linears at the BF16 level, no casts, its
 * norm writing BF16 (no Transformer Engine norm quantizing), its
 * sequence-parallel gathers BF16, its attention at the backend's BF16
 * level even under precision.attention "fp8" */
static void bf16_ctx(const struct ctx *x, struct ctx *xb)
{
	*xb = *x;
	xb->lin = xb->cur = &xb->bf16;
	xb->fp8_gather = 0;
	xb->te_norm = 0;
	xb->attn_peak = xb->bf16.peak;
	xb->attn_fwd = x->attn_fwd_bf16;
}

int dc_compute_compute(const struct dc_plan *p, struct dc_compute *c, const char **error)
{
	const struct dc_config *in = p->in;
	const struct dc_model *m = &in->model;
	struct ctx x;
	enum dc_gpu g = in->cluster.gpu < DC_GPU_COUNT ? in->cluster.gpu : DC_GPU_NONE;

	(void)error;
	/* every member up to the optimizer's per-segment arrays, which
	 * optimizer_steps fills for the plan's segments (a search's layout
	 * has a few of DC_PLAN_MAX_SEGMENTS), and the host's figures beside
	 * them */
	memset(c, 0, offsetof(struct dc_compute, optimizer_s));
	c->optimizer_on_host = 0;
	c->host_bandwidth = 0;
	c->host_adam_rate = 0;
	x.e = &gpu_effs[g];
	c->gpu = x.e->name;
	x.mem_eff = in->cluster.memory_efficiency > 0 ? in->cluster.memory_efficiency : x.e->mem_eff;
	x.sms = in->cluster.sm_count > 0 ? (double)in->cluster.sm_count : x.e->sms;
	/* the sustained GEMM levels: isolated ceiling x in situ, or
	 * cluster.matmul_efficiency for BF16 with FP8 keeping its ratio; the
	 * FP8 one measured on the user's GPU (--calibrate-compute) as the
	 * loader gives it (x in situ there for a boost profile) */
	x.bf16.eff = x.e->gemm * x.e->in_situ;
	x.fp8.eff = (x.e->gemm_fp8 > 0 ? x.e->gemm_fp8 : x.e->gemm) * x.e->in_situ;
	if (in->cluster.matmul_efficiency > 0) {
		x.fp8.eff *= in->cluster.matmul_efficiency / x.bf16.eff;
		x.bf16.eff = in->cluster.matmul_efficiency;
	}
	if (in->cluster.matmul_efficiency_fp8 > 0)
		x.fp8.eff = in->cluster.matmul_efficiency_fp8;
	/* the half-efficiency sizes are the A100's curves, so their times are
	 * too: carried over to other GPUs as times (launch and ramp-up) */
	x.mm_t0 = x.e->mm_f0 / (A100_PEAK * x.bf16.eff);
	x.mem_t0 = x.e->mem_b0 / (A100_HBM * x.mem_eff);
	c->gemm_ceiling = x.e->gemm;
	c->gemm_ceiling_fp8 = x.e->gemm_fp8 > 0 ? x.e->gemm_fp8 : x.e->gemm;
	c->in_situ = x.e->in_situ;
	c->matmul_efficiency = x.bf16.eff;
	c->matmul_efficiency_fp8 = x.fp8.eff;
	c->matmul_overhead_s = x.mm_t0;
	c->memory_efficiency = x.mem_eff;
	c->memory_overhead_s = x.mem_t0;
	c->sm_count = x.sms;
	attention_levels(in, &x, c);
	c->missing = missing_keys(in);
	if (c->missing) {
		/* no kernel times: the optimizer's none either */
		memset(c->optimizer_s, 0, sizeof(c->optimizer_s));
		c->optimizer_bytes_per_param = c->optimizer_passes = 0;
		memset(c->host_step, 0, sizeof(c->host_step));
		return 0;
	}
	c->available = 1;
	x.p = p;
	x.m = m;
	x.hbm = in->cluster.hbm_bandwidth;
	x.bf16.peak = in->cluster.peak_flops;
	x.bf16.in_bytes = 2.0;
	x.bf16.cast_x = x.bf16.cast_dy = 0;
	x.fp8.peak = in->cluster.peak_flops_fp8;
	x.fp8.in_bytes = 1.0;
	x.fp8.cast_x = x.fp8.cast_dy = fp8_cast_bytes(in->precision.fp8_recipe, dc_gpu_arch(g));
	x.lin = in->precision.compute == DC_COMPUTE_FP8 ? &x.fp8 : &x.bf16;
	x.cur = x.lin;
	x.attn_peak = in->precision.attention == DC_ATTN_PRECISION_FP8 && x.e->attn_fp8_fwd > 0 ? x.fp8.peak : x.bf16.peak;
	x.attn_bwd_peak = x.bf16.peak;
	c->fp8_cast_bytes = in->precision.compute == DC_COMPUTE_FP8 ? x.fp8.cast_x : 0;
	/* the cast less its transpose on the shard; the transpose a kernel
	 * of its own on the gathered FP8 copy, reading it and writing the
	 * transposed one (Transformer Engine's _create_transpose; torchao's
	 * .contiguous() copies for torch._scaled_mm) */
	x.fp8_gather = fp8_gathers(in, p);
	x.cast_gathered = 2.0 * fp8_cast_transpose(in->precision.fp8_recipe, dc_gpu_arch(g));
	x.cast_shard = x.fp8.cast_x - x.cast_gathered / 2.0;
	te_norm_quantizes(in, dc_gpu_arch(g), &x);
	c->peak_flops = x.lin->peak;
	c->hbm_bandwidth = x.hbm;
	x.t = (double)p->layout.tp;
	x.b = (double)p->layout.micro_batch_size;
	x.s = (double)m->seq_length;
	/* context parallelism: each rank holds s / cp of every sequence, so
	 * every GEMM sees its b s / cp tokens and attention its s / cp queries
	 * (the bug this fixes priced every rank on the whole sequence) */
	x.s_q = x.s / (double)p->layout.cp;
	x.h = (double)m->hidden_size;
	x.tokens = x.b * x.s_q;
	x.tokens_sp = p->layout.sequence_parallel ? x.tokens / x.t : x.tokens;
	x.heads = (double)m->num_attention_heads / x.t;
	x.kv_heads = (m->kv_lora_rank ? (double)m->num_attention_heads : (double)m->num_kv_heads) / x.t;
	x.d_qk = m->kv_lora_rank ? (double)(m->qk_nope_head_dim + m->qk_rope_head_dim) : (double)m->head_dim;
	x.d_v = m->kv_lora_rank ? (double)m->v_head_dim : (double)m->head_dim;
	x.eager = in->training.attention == DC_ATTENTION_EAGER;
	x.dropout = m->dropout;
	x.rope = m->position_embeddings == 0;
	x.compile = in->training.compile;
	x.titan_eager = !x.compile && in->training.framework == DC_FRAMEWORK_TORCHTITAN;
	x.eager_rmsnorm = x.titan_eager && m->norm == DC_NORM_RMSNORM;
	x.s_k = flash_keys(m, x.s);

	layers(&x, &c->dense_layer, &c->moe_layer, &c->dense_layer_fwd_flops, &c->moe_layer_fwd_flops);
	if (in->precision.compute == DC_COMPUTE_FP8 && (in->precision.bf16_first_layers || in->precision.bf16_last_layers)) {
		struct ctx xb;
		double fl[2];
		bf16_ctx(&x, &xb);
		c->bf16_layers = 1;
		layers(&xb, &c->dense_layer_bf16, &c->moe_layer_bf16, &fl[0], &fl[1]);
	}
	host_floor(&x, c);
	embedding(&x, &c->embedding);
	head(&x, &c->head);
	if (m->mtp_layers) {
		/* each MTP module on the last stage (DeepSeek-V3 section 2.2):
		 * enorm and hnorm, eh_proj [2h -> h / t], a layer, the head again */
		struct part e = {0};
		struct dc_work_time ew = {0}, head_once = c->head;
		double mtp = (double)m->mtp_layers;
		norm_residual(&x, &e, 0, 0, 0);
		linear(&x, &e, x.tokens, x.h / x.t, 2.0 * x.h, 1);
		layer_time(&x, &e, &ew);
		/* the layer's kind as the comm and step take it (comm.h) */
		c->mtp_layer = dc_comm_mtp_moe(p) ? c->moe_layer : c->dense_layer;
		mtp_recompute(x.p, &ew, &c->mtp_layer);
		add_work(&c->head, &ew, mtp);
		add_work(&c->head, &c->mtp_layer, mtp);
		add_work(&c->head, &head_once, mtp);
	}
	c->optimizer_on_host = in->parallel.offload != DC_OFFLOAD_NONE;
	if (c->optimizer_on_host) {
		const struct dc_gpu_spec *gs = dc_gpu_spec(in->cluster.gpu);
		c->host_bandwidth = in->cluster.host_bw_bytes_per_s > 0 ? in->cluster.host_bw_bytes_per_s
					: gs ? gs->host_bw
					     : dc_gpu_spec(DC_GPU_A100_SXM4_80GB)->host_bw;
		c->host_adam_rate = in->cluster.host_adam_params_per_s;
	}
	optimizer_steps(&x, c);
	return 0;
}

#ifdef DISTCALC_VERIFY_MEMOS
#define CF(m) DC_MEMO_FIELD(struct dc_compute, m)
static const struct dc_memo_field compute_fields[] = {
	CF(missing), CF(peak_flops), CF(hbm_bandwidth), CF(gpu), CF(gemm_ceiling), CF(gemm_ceiling_fp8), CF(in_situ),
	CF(matmul_efficiency), CF(matmul_efficiency_fp8), CF(attention_backend), CF(attention_fwd_efficiency),
	CF(attention_bwd_efficiency), CF(fp8_cast_bytes), CF(matmul_overhead_s), CF(memory_efficiency),
	CF(memory_overhead_s), CF(sm_count), CF(dense_layer_fwd_flops), CF(moe_layer_fwd_flops),
	CF(dense_layer_host_floor_s), CF(dense_layer_host_factor), CF(dense_layer),
	CF(moe_layer), CF(embedding), CF(head), CF(mtp_layer), CF(bf16_layers), CF(dense_layer_bf16), CF(moe_layer_bf16), CF(optimizer_on_host), CF(optimizer_bytes_per_param),
	CF(optimizer_passes), CF(host_bandwidth), CF(host_adam_rate),
};
#undef CF

/* A plan's kernels kept from another sharding's (or virtual pipeline's),
 * their optimizer step refilled (`memo` names which), against
 * dc_compute_compute's */
static void reshard_verify(const char *memo, const struct dc_plan *p, const struct dc_compute *c)
{
	struct dc_compute fresh;
	const char *err = NULL;
	char what[32];
	if (dc_compute_compute(p, &fresh, &err) != 0)
		dc_memo_verify_u64(memo, "dc_compute_compute's return", 0, (uint64_t)-1);
	dc_memo_verify_u64(memo, "available", (uint64_t)c->available, (uint64_t)fresh.available);
	if (!c->available)
		return;
	dc_memo_verify_fields(memo, "compute", c, &fresh, compute_fields,
			      sizeof(compute_fields) / sizeof(compute_fields[0]));
	for (uint64_t i = 0; i < p->nsegments && i < DC_PLAN_MAX_SEGMENTS; i++) {
		snprintf(what, sizeof(what), "optimizer_s[%llu]", (unsigned long long)i);
		dc_memo_verify_double(memo, what, c->optimizer_s[i], fresh.optimizer_s[i]);
	}
}
#endif

/* c's optimizer step refilled for p */
static void optimizer_refill(const struct dc_plan *p, struct dc_compute *c)
{
	struct ctx x;
	/* what optimizer_s reads: the plan and mem_s's rates, as
	 * dc_compute_compute kept them in *c (the same doubles) */
	memset(&x, 0, sizeof(x));
	x.p = p;
	x.hbm = c->hbm_bandwidth;
	x.mem_eff = c->memory_efficiency;
	x.mem_t0 = c->memory_overhead_s;
	optimizer_steps(&x, c);
}

void dc_compute_reshard(const struct dc_plan *p, struct dc_compute *c)
{
	if (!c->available)
		return; /* every time 0, the optimizer's too */
	optimizer_refill(p, c);
	DC_MEMO_VERIFY(reshard_verify("kernels kept across shardings (src/est/compute.c dc_compute_reshard)", p, c));
}

int dc_compute_rechunk(const struct dc_plan *p, struct dc_compute *c, const char **error)
{
	const struct dc_training *t = &p->in->training;
	if (t->recompute == DC_RECOMPUTE_FULL && t->recompute_layers)
		return dc_compute_compute(p, c, error); /* a chunk's recomputed share */
	if (!c->available)
		return 0;
	optimizer_refill(p, c);
	DC_MEMO_VERIFY(reshard_verify("kernels kept across virtual pipelines (src/est/compute.c dc_compute_rechunk)", p,
				      c));
	return 0;
}

void dc_compute_in_situ(enum dc_gpu g, double *gemm, double *mem)
{
	const struct gpu_eff *e = &gpu_effs[g > DC_GPU_NONE && g < DC_GPU_COUNT ? g : DC_GPU_NONE];
	*gemm = e->in_situ;
	*mem = MEM_IN_SITU;
}
