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
 * over its waves (tile and wave quantization), t0 what every launch costs
 * beyond them (launch, ramp-up). So a small shard's GEMM runs far below
 * peak: its efficiency F / (P t) saturates in F (e_mm F / (F + P e_mm t0)),
 * in its arithmetic intensity (the bytes term), and steps with its output
 * shape (q). The kernels are Megatron-LM's
 * (Korthikanti et al. 2022 section 4; Megatron-LM 2021 section 3) after
 * the tp split and, under sequence parallelism, the s/t split of the norms
 * and dropouts. */
#include "distcalc/compute.h"


#include <math.h>
#include <string.h>

#include "distcalc/axis.h"
#include "distcalc/config.h"
#include "distcalc/params.h"
#include "distcalc/plan.h"
#include "distcalc/util.h"

/* One parameter set per GPU type (docs/compute-model.md, "Parameters"). */
struct gpu_eff {
	const char *name;
	double mm_eff;    /* sustained fraction of the matmul peak on large GEMMs */
	double mm_f0;     /* GEMM FLOPs at half of mm_eff on the A100 (the fixed cost's size) */
	double mem_eff;   /* sustained fraction of HBM bandwidth on large element-wise kernels */
	double mem_b0;    /* element-wise bytes at half of mem_eff on the A100 */
	double sms;       /* streaming multiprocessors: one wave of tiles */
};

/* A100: the shape of both curves from Calculon's systems/a100_80g.json
 * (matmul 0.9 of peak at 16 GFLOP and 0.95 at 128 GFLOP: half-efficiency
 * work F0 = 1.024 GFLOP, t0_mm = F0 / (P e_mm); memory 0.75 at 10 MB and
 * 0.9 at 100 MB: half-efficiency size B0 = 25/11 MB, t0_mem = B0 /
 * (B e_mem), P and B the A100's);
 * the SM counts from the vendors' architecture documents (A100 108, H100
 * SXM5 132); the levels e_mm and e_mem the least-squares point of
 * Korthikanti et al. 2022 Tables 4 and 5 together (18 measurements, 2
 * parameters; build/fit_kernel_levels reproduces it). H100 and H200: no
 * measured per-layer times in the references, so the A100 fractions and
 * fixed costs are carried over (docs/compute-model.md, "Parameters"). No
 * cluster.gpu: the A100 set. */
#define A100_PEAK 312e12   /* FLOP/s, the data sheet's */
#define A100_HBM 2.039e12  /* bytes/s */
#define CALCULON_F0 1.024e9
#define CALCULON_B0 (25.0e6 / 11.0)
#define A100_SET(name) {name, 0.75, CALCULON_F0, 0.71, CALCULON_B0, 108}
static const struct gpu_eff gpu_effs[DC_GPU_COUNT] = {
	[DC_GPU_NONE] = A100_SET("a100-sxm4-80gb"),
	[DC_GPU_A100_SXM4_80GB] = A100_SET("a100-sxm4-80gb"),
	[DC_GPU_H100_SXM5_80GB] = {"h100-sxm5-80gb", 0.75, CALCULON_F0, 0.71, CALCULON_B0, 132},
	[DC_GPU_H200_SXM_141GB] = {"h200-sxm-141gb", 0.75, CALCULON_F0, 0.71, CALCULON_B0, 132},
};

/* What every kernel of one rank reads: the shape after its splits. */
struct ctx {
	const struct dc_plan *p;
	const struct dc_model *m;
	const struct gpu_eff *e;
	double peak, hbm;
	double mm_eff, mem_eff; /* cluster.matmul_efficiency, memory_efficiency, else the set's */
	double mm_t0, mem_t0;   /* the fixed costs at those levels, in the A100's seconds */
	double sms;             /* cluster.sm_count, else the set's */
	double in_bytes;    /* bytes per GEMM operand element: 2 (BF16), 1 (FP8) */
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
};

/* Times of one block, each split into matmul and memory-bound parts. */
struct part {
	double fwd_mm, fwd_mem;
	double bwd_mm, bwd_mem;
	double bwd_wgrad; /* of bwd_mm: the weight-gradient GEMMs */
	double core_mm, core_mem; /* the attention core's forward: what selective recompute reruns */
	double fwd_flops;
};

/* The thread-block tiles of cuBLAS's tensor-core GEMMs on Ampere and
 * Hopper (NVIDIA, "Matrix Multiplication Background User's Guide",
 * sections 2.3 and 3: 256 x 128 the most efficient, down to 64 x 64),
 * each at a rate in proportion to its operand reuse, our assumption (the
 * guide gives no figures): a tile of M x N outputs reads M + N operand
 * rows per step of k for M N multiply-adds, 85.3 at 256 x 128, 64 at
 * 128 x 128, 51.2 at 256 x 64, 42.7 at 128 x 64, 32 at 64 x 64
 * (docs/compute-model.md, "Waves of tiles"). */
static const struct tile {
	double m, n, rate;
} tiles[] = {
	{256, 128, 1.0}, {128, 256, 1.0}, {128, 128, 0.75}, {256, 64, 0.6},
	{64, 256, 0.6},  {128, 64, 0.5},  {64, 128, 0.5},   {64, 64, 0.375},
};

/* q of an m x n output, `batch` of them in one kernel: one tile per SM at
 * a time, so a kernel of T tiles runs ceil(T / SMs) waves, and the work
 * done is m n / (tile area) of those waves' SM-slots; the tile the library
 * picks is the one that does the most. The table is in falling rate, and
 * no tile does more than its rate: once one does as much, the rest cannot
 * beat it (the layout search prices millions of these). */
static double wave_share(const struct ctx *x, double m, double n, double batch)
{
	double best = 0;
	for (size_t i = 0; i < sizeof(tiles) / sizeof(tiles[0]) && best < tiles[i].rate; i++) {
		const struct tile *t = &tiles[i];
		double count = ceil(m / t->m) * ceil(n / t->n) * batch;
		double q = t->rate * (m * n * batch / (t->m * t->n)) / (ceil(count / x->sms) * x->sms);
		if (q > best)
			best = q;
	}
	return best;
}

/* One GEMM [m x k] x [k x n], `batch` of them in one kernel (a batched or
 * grouped GEMM): the roofline of its FLOPs, at the share q of the SMs its
 * waves of tiles keep busy, and its operand bytes (inputs at in_bytes,
 * the output 16-bit), plus one launch. */
static double gemm_s(const struct ctx *x, double m, double n, double k, double batch)
{
	double flops = 2.0 * m * n * k * batch, compute, memory;
	double bytes = batch * (x->in_bytes * (m * k + k * n) + 2.0 * m * n);
	if (flops <= 0)
		return 0;
	compute = flops / (x->peak * x->mm_eff * wave_share(x, m, n, batch));
	memory = bytes / (x->hbm * x->mem_eff);
	return (compute > memory ? compute : memory) + x->mm_t0;
}

/* An element-wise (or reduction) kernel moving `bytes`. */
static double mem_s(const struct ctx *x, double bytes)
{
	return bytes > 0 ? bytes / (x->hbm * x->mem_eff) + x->mem_t0 : 0;
}

/* A linear layer y = x W, x [tokens x k], W [k x n]: forward one GEMM,
 * backward the input gradient [tokens x n] x [n x k] and the weight
 * gradient [k x tokens] x [tokens x n], each as many FLOPs as forward.
 * The weight gradient is what a zero-bubble schedule defers (W). */
static void linear(const struct ctx *x, struct part *pt, double tokens, double n, double k, double batch)
{
	double dgrad = gemm_s(x, tokens, k, n, batch), wgrad = gemm_s(x, k, n, tokens, batch);
	pt->fwd_mm += gemm_s(x, tokens, n, k, batch);
	pt->bwd_mm += dgrad + wgrad;
	pt->bwd_wgrad += wgrad;
	pt->fwd_flops += 2.0 * tokens * n * k * batch;
}

/* The norm before a sub-block and the residual add after it, on the
 * tokens_sp x h stream (Megatron's fused bias-dropout-add): forward the
 * norm reads and writes 2 bytes per element, the add reads the branch and
 * the residual and writes the sum (6), the dropout mask adds 1 byte;
 * backward the norm reads x and dy and writes dx (6), the two gradient
 * paths are summed (6), the dropout backward reads dy and the mask and
 * writes dx (5), a bias gradient reads dy once more (2). */
static void norm_residual(const struct ctx *x, struct part *pt, int bias)
{
	double n = x->tokens_sp * x->h;
	pt->fwd_mem += mem_s(x, 4.0 * n) + mem_s(x, (6.0 + (x->dropout ? 1.0 : 0.0)) * n);
	pt->bwd_mem += mem_s(x, 6.0 * n) + mem_s(x, 6.0 * n);
	if (x->dropout)
		pt->bwd_mem += mem_s(x, 5.0 * n);
	if (bias)
		pt->bwd_mem += mem_s(x, 2.0 * n);
}

/* Attention: the q, k, v projections, the core, the output projection.
 * Standard (GQA) attention projects h to (a + 2 kv) d / t in one GEMM;
 * MLA (DeepSeek-V2) projects through its low-rank latents, the
 * down-projections whole on every rank. */
static void attention(const struct ctx *x, struct part *pt)
{
	const struct dc_model *m = x->m;
	double T = x->tokens, h = x->h, t = x->t;
	/* context parallelism: this rank's s / cp queries against all s keys
	 * (the ring brings the others' K, V; Megatron-Core's load-balanced
	 * chunks give every rank 1 / cp of the causal work) */
	double sq = x->s_q, sk = x->s;
	double scores = x->b * x->heads * sq * sk; /* score elements on this rank */
	double sk_flash = x->s_k; /* a window skips blocks in a flash kernel, not in eager attention's mask */

	norm_residual(x, pt, m->out_bias);
	if (m->kv_lora_rank) {
		double a = (double)m->num_attention_heads;
		double q_lora = (double)m->q_lora_rank, kv_lora = (double)m->kv_lora_rank;
		double rope = (double)m->qk_rope_head_dim, nope = (double)m->qk_nope_head_dim;
		if (q_lora > 0) {
			linear(x, pt, T, q_lora, h, 1);
			linear(x, pt, T, a * (nope + rope) / t, q_lora, 1);
		} else {
			linear(x, pt, T, a * (nope + rope) / t, h, 1);
		}
		linear(x, pt, T, kv_lora + rope, h, 1);
		linear(x, pt, T, a * (nope + (double)m->v_head_dim) / t, kv_lora, 1);
	} else {
		linear(x, pt, T, (x->heads + 2.0 * x->kv_heads) * x->d_qk, h, 1);
		if (m->qkv_bias) /* the bias gradient reads dq, dk, dv */
			pt->bwd_mem += mem_s(x, 2.0 * T * (x->heads + 2.0 * x->kv_heads) * x->d_qk);
	}
	if (x->rope) { /* rotary positions on q and k: read and write, both ways */
		double qk = T * (x->heads + x->kv_heads) * x->d_qk;
		pt->fwd_mem += mem_s(x, 4.0 * qk);
		pt->bwd_mem += mem_s(x, 4.0 * qk);
	}
	if (m->qk_norm) {
		double qk = T * (x->heads + x->kv_heads) * x->d_qk;
		pt->fwd_mem += mem_s(x, 4.0 * qk);
		pt->bwd_mem += mem_s(x, 6.0 * qk);
	}
	if (x->eager) {
		/* QK^T and AV as batched GEMMs over b a/t heads; the fused
		 * scale-mask-softmax reads and writes the scores (4 bytes per
		 * element), dropout reads them and writes them and its 1-byte
		 * mask (5); backward: two GEMMs per product, softmax reads y and
		 * dy and writes dx (6), dropout reads dy and the mask and writes
		 * dx (5). Korthikanti et al. 2022 section 4.1 */
		double bh = x->b * x->heads;
		double qk_f = gemm_s(x, sq, sk, x->d_qk, bh), av_f = gemm_s(x, sq, x->d_v, sk, bh);
		double soft = mem_s(x, 4.0 * scores), drop = x->dropout ? mem_s(x, 5.0 * scores) : 0;
		pt->core_mm = qk_f + av_f;
		pt->core_mem = soft + drop;
		/* dQ = dS K: [s_q x s] x [s x d_qk]; dK = dS^T Q: [s x s_q] x
		 * [s_q x d_qk]; dP = dO V^T: [s_q x d_v] x [d_v x s]; dV = P^T
		 * dO: [s x s_q] x [s_q x d_v] (s_q = s without cp) */
		pt->bwd_mm += gemm_s(x, sq, x->d_qk, sk, bh) + gemm_s(x, sk, x->d_qk, sq, bh) +
			      gemm_s(x, sq, sk, x->d_v, bh) + gemm_s(x, sk, x->d_v, sq, bh);
		pt->bwd_mem += mem_s(x, 6.0 * scores) + (x->dropout ? mem_s(x, 5.0 * scores) : 0);
	} else {
		/* FlashAttention-2 (Dao 2023): one kernel that never writes the
		 * s x s scores; causal, so it runs half the blocks: forward the
		 * two products, 4 b (a/t) s^2 d / 2 FLOPs, reading q, k, v and
		 * writing o; backward five products (2.5 x forward), reading q,
		 * k, v, o and do, writing dq, dk, dv */
		double d = (x->d_qk + x->d_v) / 2.0;
		double fl = 0.5 * 4.0 * x->b * x->heads * sq * sk_flash * d;
		double qkv_o = 2.0 * T * (x->heads * (x->d_qk + x->d_v) + x->kv_heads * (x->d_qk + x->d_v));
		/* its thread blocks are 128-row query tiles of every head
		 * (Dao 2023, section 3.2), one per SM at a time like a GEMM's */
		double blocks = x->b * x->heads * ceil(sq / 128.0);
		double q = blocks / (ceil(blocks / x->sms) * x->sms);
		double fwd = fl / (x->peak * x->mm_eff * q), fwd_b = qkv_o / (x->hbm * x->mem_eff);
		double bwd = 2.5 * fwd, bwd_b = 2.0 * fwd_b;
		pt->core_mm = (fwd > fwd_b ? fwd : fwd_b) + x->mm_t0;
		pt->core_mem = 0;
		pt->bwd_mm += (bwd > bwd_b ? bwd : bwd_b) + x->mm_t0;
	}
	pt->fwd_mm += pt->core_mm;
	pt->fwd_mem += pt->core_mem;
	/* QK^T and AV: 2 s d FLOPs per score each; flash runs half (causal) */
	pt->fwd_flops += (x->eager ? 1.0 : 0.5 * sk_flash / sk) * 2.0 * scores * (x->d_qk + x->d_v);
	linear(x, pt, T, h, x->heads * x->d_v, 1);
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
static void gated_deltanet(const struct ctx *x, struct part *pt)
{
	const struct dc_model *m = x->m;
	double T = x->tokens, h = x->h, t = x->t, C = GDN_CHUNK;
	double nk = (double)m->linear_num_key_heads / t, nv = (double)m->linear_num_value_heads / t;
	double dk = (double)m->linear_key_head_dim, dv = (double)m->linear_value_head_dim;
	double conv = T * (2.0 * nk * dk + nv * dv), io = T * (2.0 * nk * dk + 2.0 * nv * dv + 2.0 * nv);
	double bh = x->b * ceil(x->s_q / C) * nv, core;

	norm_residual(x, pt, 0);
	linear(x, pt, T, 2.0 * nk * dk + 2.0 * nv * dv + 2.0 * nv, h, 1);
	pt->fwd_mem += mem_s(x, 4.0 * conv);
	pt->bwd_mem += mem_s(x, 6.0 * conv);
	core = 2.0 * gemm_s(x, C, C, dk, bh) + gemm_s(x, C, dv, C, bh) + gemm_s(x, C, dk, C, bh) +
	       gemm_s(x, C, dv, C, bh) + 2.0 * gemm_s(x, C, dv, dk, bh) + gemm_s(x, dk, dv, C, bh);
	pt->core_mm = core;
	pt->core_mem = mem_s(x, 2.0 * io);
	pt->fwd_mm += core;
	pt->fwd_mem += pt->core_mem + mem_s(x, 6.0 * T * nv * dv);
	pt->bwd_mm += 2.0 * core;
	pt->bwd_mem += mem_s(x, 4.0 * io) + mem_s(x, 10.0 * T * nv * dv);
	pt->fwd_flops += T * nv * (2.0 * C * (3.0 * dk + 2.0 * dv) + 6.0 * dk * dv);
	linear(x, pt, T, h, nv * dv, 1);
}

/* a = wa a + wb b, field by field: a layer's mean over its kinds */
static void blend(struct part *a, const struct part *b, double wa, double wb)
{
	a->fwd_mm = wa * a->fwd_mm + wb * b->fwd_mm;
	a->fwd_mem = wa * a->fwd_mem + wb * b->fwd_mem;
	a->bwd_mm = wa * a->bwd_mm + wb * b->bwd_mm;
	a->bwd_mem = wa * a->bwd_mem + wb * b->bwd_mem;
	a->bwd_wgrad = wa * a->bwd_wgrad + wb * b->bwd_wgrad;
	a->core_mm = wa * a->core_mm + wb * b->core_mm;
	a->core_mem = wa * a->core_mem + wb * b->core_mem;
	a->fwd_flops = wa * a->fwd_flops + wb * b->fwd_flops;
}

/* The keys a flash kernel's query meets, as s for causal attention (the
 * 0.5 in attention()), averaged over the softmax layers: a window of w'
 * = min(w, s) keys behind each query runs about w' (2 - w'/s)/2 keys a
 * query, so it stands as 2 w' - w'^2 / s. */
static double flash_keys(const struct dc_model *m, double s)
{
	double L = (double)m->num_layers, sl = (double)dc_params_sliding_layers(m), w;
	double soft = L - (double)dc_params_linear_layers(m);
	if (!sl || soft <= 0)
		return s;
	w = (double)m->sliding_window < s ? (double)m->sliding_window : s;
	return ((soft - sl) * s + sl * (2.0 * w - w * w / s)) / soft;
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
}

/* An MLP of inner size f / t on `tokens` tokens, `batch` experts of it
 * in one grouped kernel: fc1 (gate and up as one 2f-wide GEMM under
 * SwiGLU), the activation, fc2. Activation: GELU (bias fused) reads and
 * writes each inner element (4 bytes), backward reads x and dy and writes
 * dx (6); SwiGLU reads gate and up and writes their product (6), backward
 * reads gate, up and dy and writes both gradients (10). */
static void mlp(const struct ctx *x, struct part *pt, double tokens, double f, double batch)
{
	int gated = x->m->mlp == DC_MLP_SWIGLU;
	double inner = tokens * f * batch;
	linear(x, pt, tokens, (gated ? 2.0 : 1.0) * f, x->h, batch);
	pt->fwd_mem += mem_s(x, (gated ? 6.0 : 4.0) * inner);
	pt->bwd_mem += mem_s(x, (gated ? 10.0 : 6.0) * inner);
	if (x->m->mlp_bias)
		pt->bwd_mem += mem_s(x, 2.0 * inner);
	linear(x, pt, tokens, x->h, f, batch);
}

/* A MoE layer's MLP part (Megatron-Core): the router (h -> E, whole, on
 * this rank's tokens) and its softmax/top-k; the k copies of each token
 * permuted before the expert AlltoAll and back after it (read and write
 * each copy both times); the num_experts / ep local experts as one
 * grouped GEMM, each seeing its share of the routed tokens of the ep x
 * etp ranks it serves, ep etp (b s / t) k / E (b s / t: one tp rank's
 * share; etp = tp: ep b s k / E), its f split over etp (Megatron's
 * --expert-tensor-parallel-size); the shared experts as a dense MLP. */
static void moe(const struct ctx *x, struct part *pt)
{
	const struct dc_model *m = x->m;
	double E = (double)m->num_experts, k = (double)m->experts_per_token, ep = (double)x->p->ep;
	double etp = (double)x->p->etp;
	double copies = x->tokens_sp * k * x->h;
	linear(x, pt, x->tokens_sp, E, x->h, 1);
	pt->fwd_mem += mem_s(x, 8.0 * x->tokens_sp * E);
	pt->bwd_mem += mem_s(x, 8.0 * x->tokens_sp * E);
	pt->fwd_mem += 2.0 * mem_s(x, 4.0 * copies);
	pt->bwd_mem += 2.0 * mem_s(x, 4.0 * copies);
	mlp(x, pt, ep * etp / x->t * x->tokens * k / E, (double)m->moe_ffn_hidden_size / etp, E / ep);
	if (m->shared_expert_ffn_hidden_size)
		mlp(x, pt, x->tokens, (double)m->shared_expert_ffn_hidden_size / x->t, 1);
}

/* The forward, backward and recompute times of a layer's blocks. */
static void layer_time(const struct ctx *x, const struct part *pt, struct dc_work_time *w)
{
	w->fwd_matmul_s = pt->fwd_mm;
	w->fwd_s = pt->fwd_mm + pt->fwd_mem;
	w->bwd_matmul_s = pt->bwd_mm;
	w->bwd_wgrad_s = pt->bwd_wgrad;
	w->bwd_s = pt->bwd_mm + pt->bwd_mem;
	switch (x->p->in->training.recompute) {
	case DC_RECOMPUTE_NONE:
		w->recompute_s = 0;
		break;
	case DC_RECOMPUTE_SELECTIVE:
		w->recompute_s = pt->core_mm + pt->core_mem;
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
 * shard (b s x h by h x V/t), and Megatron's vocabulary-parallel cross
 * entropy in FP32: forward the max, the shifted exponentials and their
 * sum, the normalisation (read the 16-bit logits twice, write and read
 * the FP32 exponentials twice: 16 bytes per logit), backward the softmax
 * minus the one-hot (read 4, write 2: 6 bytes). */
static void head(const struct ctx *x, struct dc_work_time *w)
{
	struct part pt = {0};
	double V = (double)x->m->vocab_size / x->t, logits = x->tokens * V, n = x->tokens_sp * x->h;
	linear(x, &pt, x->tokens, V, x->h, 1);
	pt.fwd_mem += mem_s(x, 4.0 * n) + mem_s(x, 16.0 * logits);
	pt.bwd_mem += mem_s(x, 6.0 * n) + mem_s(x, 6.0 * logits);
	memset(w, 0, sizeof(*w));
	w->fwd_matmul_s = pt.fwd_mm;
	w->fwd_s = pt.fwd_mm + pt.fwd_mem;
	w->bwd_matmul_s = pt.bwd_mm;
	w->bwd_wgrad_s = pt.bwd_wgrad;
	w->bwd_s = pt.bwd_mm + pt.bwd_mem;
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
static double optimizer_s(const struct ctx *x, const struct dc_stage_params *sp)
{
	const struct dc_precision *pr = &x->p->in->precision;
	const struct dc_layout *lay = &x->p->layout;
	double dense = (double)(sp->total - sp->expert_params), experts = (double)sp->expert_params;
	double params = dense + experts, per_param, buffer = dense + experts;
	struct dc_state_shards sh;
	dc_axis_state_shards(x->p, &sh); /* as the axes shard the states (axis.h) */
	if (lay->sharding >= DC_SHARD_ZERO1)
		params = ceil(dense / (double)sh.dense[DC_STATE_MASTER]) + ceil(experts / (double)sh.expert[DC_STATE_MASTER]);
	if (lay->sharding >= DC_SHARD_ZERO2)
		buffer = ceil(dense / (double)sh.dense[DC_STATE_GRADS]) + ceil(experts / (double)sh.expert[DC_STATE_GRADS]);
	per_param = 2.0 * (double)pr->grad_bytes + 2.0 * (double)pr->optimizer_bytes +
		    (pr->master_bytes ? 2.0 * (double)pr->master_bytes + (double)pr->param_bytes
				      : 2.0 * (double)pr->param_bytes);
	if (pr->preset == DC_PRECISION_MEGATRON)
		return mem_s(x, (per_param + (double)pr->master_bytes) * params + (double)pr->grad_bytes * buffer);
	return mem_s(x, per_param * params);
}

/* The keys kernel times need and the config lacks, or NULL. */
static const char *missing_keys(const struct dc_config *in)
{
	int fp8 = in->precision.compute == DC_COMPUTE_FP8;
	int no_peak = fp8 ? in->cluster.peak_flops_fp8 <= 0 : in->cluster.peak_flops <= 0;
	int no_hbm = in->cluster.hbm_bandwidth <= 0;
	if (no_peak && no_hbm)
		return fp8 ? "cluster.peak_flops_fp8, cluster.hbm_bandwidth" : "cluster.peak_flops, cluster.hbm_bandwidth";
	if (no_peak)
		return fp8 ? "cluster.peak_flops_fp8" : "cluster.peak_flops";
	if (no_hbm)
		return "cluster.hbm_bandwidth";
	return NULL;
}

int dc_compute_compute(const struct dc_plan *p, struct dc_compute *c, const char **error)
{
	const struct dc_config *in = p->in;
	const struct dc_model *m = &in->model;
	struct ctx x;
	enum dc_gpu g = in->cluster.gpu < DC_GPU_COUNT ? in->cluster.gpu : DC_GPU_NONE;

	(void)error;
	memset(c, 0, sizeof(*c));
	x.e = &gpu_effs[g];
	c->gpu = x.e->name;
	x.mm_eff = in->cluster.matmul_efficiency > 0 ? in->cluster.matmul_efficiency : x.e->mm_eff;
	x.mem_eff = in->cluster.memory_efficiency > 0 ? in->cluster.memory_efficiency : x.e->mem_eff;
	x.sms = in->cluster.sm_count > 0 ? (double)in->cluster.sm_count : x.e->sms;
	/* the half-efficiency sizes are the A100's curves, so their times are
	 * too: carried over to other GPUs as times (launch and ramp-up) */
	x.mm_t0 = x.e->mm_f0 / (A100_PEAK * x.mm_eff);
	x.mem_t0 = x.e->mem_b0 / (A100_HBM * x.mem_eff);
	c->matmul_efficiency = x.mm_eff;
	c->matmul_overhead_s = x.mm_t0;
	c->memory_efficiency = x.mem_eff;
	c->memory_overhead_s = x.mem_t0;
	c->sm_count = x.sms;
	c->missing = missing_keys(in);
	if (c->missing)
		return 0;
	c->available = 1;
	x.p = p;
	x.m = m;
	x.peak = in->precision.compute == DC_COMPUTE_FP8 ? in->cluster.peak_flops_fp8 : in->cluster.peak_flops;
	x.hbm = in->cluster.hbm_bandwidth;
	x.in_bytes = in->precision.compute == DC_COMPUTE_FP8 ? 1.0 : 2.0;
	c->peak_flops = x.peak;
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
	x.s_k = flash_keys(m, x.s);

	{
		struct part attn = {0}, dense = {0}, moe_pt = {0};
		attention(&x, &attn);
		if (m->full_attention_interval) {
			/* hybrid: the layer is the mean of its kinds (Qwen3-Next: 3 of
			 * 4 Gated DeltaNet), so L of them give the model's total */
			struct part lin = {0};
			double share = (double)dc_params_linear_layers(m) / (double)m->num_layers;
			gated_deltanet(&x, &lin);
			blend(&attn, &lin, 1.0 - share, share);
		}
		dense = attn;
		norm_residual(&x, &dense, m->mlp_bias);
		mlp(&x, &dense, x.tokens, (double)m->ffn_hidden_size / x.t, 1);
		layer_time(&x, &dense, &c->dense_layer);
		c->dense_layer_fwd_flops = dense.fwd_flops;
		if (m->num_experts) {
			moe_pt = attn;
			norm_residual(&x, &moe_pt, 0);
			moe(&x, &moe_pt);
			layer_time(&x, &moe_pt, &c->moe_layer);
			c->moe_layer_fwd_flops = moe_pt.fwd_flops;
		}
	}
	embedding(&x, &c->embedding);
	head(&x, &c->head);
	if (m->mtp_layers) {
		/* each MTP module on the last stage (DeepSeek-V3 section 2.2):
		 * enorm and hnorm, eh_proj [2h -> h / t], a layer, the head again */
		struct part e = {0};
		struct dc_work_time ew = {0}, head_once = c->head;
		double mtp = (double)m->mtp_layers;
		norm_residual(&x, &e, 0);
		linear(&x, &e, x.tokens, x.h / x.t, 2.0 * x.h, 1);
		layer_time(&x, &e, &ew);
		ew.recompute_s = 0;
		add_work(&c->head, &ew, mtp);
		add_work(&c->head, m->num_experts ? &c->moe_layer : &c->dense_layer, mtp);
		add_work(&c->head, &head_once, mtp);
	}
	c->optimizer_on_host = in->parallel.offload != DC_OFFLOAD_NONE;
	for (uint64_t i = 0; i < p->nsegments && i < DC_PLAN_MAX_SEGMENTS; i++)
		c->optimizer_s[i] = p->segment_overflow[i] ? 0 : optimizer_s(&x, &p->segment_params[i]);
	return 0;
}
