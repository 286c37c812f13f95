#!/usr/bin/env python3
"""hopper-dev-rows.py DISTCALC [DISTCALC_BEFORE] [--alt] [--custom] [--tt-mid|--tt-nvl] - the Hopper rows of
../shared/reference/hopper.md (docs/compute-model.md, "Hopper rows") against
distcalc's step time: measured, predicted, error, as a Markdown table.

Megatron-LM README (core_r0.8.0) model table, H100 DGX, BF16: the measured
step is the global batch's FLOPs by Megatron's own count
(megatron/training/training.py num_floating_point_operations at that tag:
12 B s L h^2 (6 + s/h + V/(2 L h)) for these GPT models) over the published
TFLOP/s per GPU times the GPUs. What the README leaves unstated is assumed,
as named in ASSUME below; --alt runs the other plausible choice. Each row runs
under its framework's rules (training.framework megatron, torchtitan);
--custom runs them all under "custom" for comparison.

torchtitan Llama 3 8B on 8 H100 (benchmarks/llama3_h100_202412_torchtitan.md):
step = 16 x 8192 tokens / (tokens/s per GPU x 8). Its GPUs are 96 GB HBM2e
parts at 500 W: the H100 SXM5 kernel set with 2.4 TB/s of HBM, at the SXM peaks (the file's
footnote 2 puts the part's "between SXM and NVL", exact value unknown: --tt-mid, --tt-nvl).
"""
import json, os, subprocess, sys, tempfile

SRC = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MEGATRON = [  # heads, hidden, layers, tp, pp, gpus, global batch, TFLOP/s per GPU
    (16, 2048, 24, 1, 1, 48, 192, 408.8), (32, 4096, 30, 2, 1, 96, 192, 465.9),
    (48, 6144, 32, 4, 1, 192, 192, 489.1), (56, 7168, 48, 8, 1, 384, 192, 459.6),
    (64, 8192, 84, 8, 2, 768, 384, 419.7), (80, 10240, 92, 8, 4, 1536, 768, 420.5),
    (96, 12288, 96, 8, 6, 2304, 1152, 432.8), (128, 16384, 96, 8, 8, 3072, 1536, 474.4),
    (144, 18432, 112, 8, 16, 6144, 3072, 459.9),
]
S, V = 4096, 131072


def megatron_config(a, h, L, tp, pp, gpus, gb, mb, recompute, backend, framework=None):
    dp = gpus // (tp * pp)
    return {
        "model": {"num_layers": L, "hidden_size": h, "num_attention_heads": a, "ffn_hidden_size": 4 * h,
                  "vocab_size": V, "seq_length": S, "mlp": "gelu", "norm": "layernorm", "qkv_bias": True,
                  "out_bias": True, "mlp_bias": True, "position_embeddings": S, "tie_word_embeddings": True,
                  "dropout": True},
        "cluster": {"system": "dgx-h100", "num_nodes": gpus // 8},
        "parallel": {"tp": tp, "pp": pp, "dp": dp, "sharding": "zero1", "sequence_parallel": tp > 1},
        "training": {"micro_batch_size": mb, "grad_accum_steps": gb // (dp * mb), "recompute": recompute,
                     "attention": "flash", **({"attention_backend": backend} if backend else {}),
                     **({"framework": framework} if framework else {})},
        "precision": {"preset": "megatron"},
        "overlap": {"dp": True, "tp": tp > 1},
    }


def step(binary, cfg, sets=()):
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(cfg, f)
    try:
        args = [binary, "--config", f.name, "--only", "step", "--format", "json"]
        for s in sets:
            args += ["--set", s]
        out = subprocess.run(args, capture_output=True, text=True)
        if out.returncode != 0:
            return None
        return json.loads(out.stdout)["step"]["time_s"]
    finally:
        os.unlink(f.name)


ERRORS = {}


def row(name, measured, preds):
    cells = [name, "%.3f" % measured]
    for i, p in enumerate(preds):
        if p is not None:
            ERRORS.setdefault(i, []).append(abs(p / measured - 1))
    for p in preds:
        cells += ["—", "—"] if p is None else ["%.3f" % p, "%+.1f%%" % (100 * (p / measured - 1))]
    print("| " + " | ".join(cells) + " |")


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    binaries = args[:2] if args else ["build/distcalc"]
    alt = "--alt" in sys.argv
    # --custom: every row under training.framework "custom" (the framework rules off)
    fw = (lambda name: None) if "--custom" in sys.argv else (lambda name: name)
    mb, recompute = (1, "selective") if alt else (1, "none")
    for a, h, L, tp, pp, gpus, gb, tflops in MEGATRON:
        flops = 12 * gb * S * L * h * h * (6 + S / h + V / (2 * L * h))
        measured = flops / (tflops * 1e12 * gpus)
        preds = []
        for i, b in enumerate(binaries):
            # the before-binary knows no attention_backend or framework; after: cudnn
            # (Transformer Engine) under training.framework megatron (the README's software)
            cfg = megatron_config(a, h, L, tp, pp, gpus, gb, mb, recompute, None if i == 1 else "cudnn",
                                  None if i == 1 else fw("megatron"))
            preds.append(step(b, cfg))
        row("Megatron h %d, L %d, tp %d, pp %d, %d GPUs" % (h, L, tp, pp, gpus), measured, preds)
    tt = json.load(open(os.path.join(SRC, "configs", "llama-3-8b-torchtitan.json")))
    tt["model"]["hf_config"] = os.path.join(SRC, "configs", "models", "llama-3-8b.json")
    tt["cluster"]["gpu"] = "h100-sxm5-80gb"
    tt["cluster"]["hbm_bandwidth"] = "2.4 TB/s"
    # footnote 2 of the benchmark file: the 500 W HBM2e part's peak is "between SXM and NVL"
    # (989 and 835.5 TFLOP/s dense BF16; 1979 and 1670.5 FP8) and its exact value unknown. Priced
    # at the SXM data sheet's (the file's own MFU uses it); --tt-mid and --tt-nvl show how far the
    # unknown moves the rows: the middle of each range, or the NVL peaks
    if "--tt-nvl" in sys.argv:
        tt["cluster"]["peak_flops"], tt["cluster"]["peak_flops_fp8"] = 835.5e12, 1670.5e12
    elif "--tt-mid" in sys.argv:
        tt["cluster"]["peak_flops"] = (835.5e12 + 989e12) / 2
        tt["cluster"]["peak_flops_fp8"] = (1670.5e12 + 1979e12) / 2
    # after: training.framework torchtitan; the FP8 row was measured compiled, the BF16 one eager.
    # Measured at the end of 2024, when torchtitan's SDPA ran PyTorch's default order,
    # FlashAttention-2 first: "sdpa", stated here as torchtitan's default may not stay it
    # (docs/compute-model.md, "Attention backends")
    # torchtitan at 9dec370 stepped torch's foreach AdamW (its fused one is the default since
    # 6e498855, February 2025; docs/compute-model.md, "Optimizer step")
    old = ("training.framework=torchtitan", "training.attention_backend=sdpa",
           "training.optimizer_implementation=foreach")
    # all three of the file's Table 1 rows: eager, compiled (a trial found this one left out before
    # stop 65, the worst of the three) and compiled under FP8
    for name, tok, sets in [("torchtitan 8B FSDP8 BF16 (eager)", 5762, old),
                            ("torchtitan 8B FSDP8 BF16 (compiled)", 6667, old + ("training.compile=true",)),
                            ("torchtitan 8B FSDP8 FP8 rowwise (compiled)", 8532,
                             old + ("training.compile=true", "precision.compute=fp8",
                                    "precision.fp8_recipe=rowwise"))]:
        measured = 16 * 8192 / (tok * 8)
        if fw("torchtitan") is None:
            # the config itself names torchtitan: custom is set, not left out
            sets = tuple(x for x in sets if not x.startswith("training.framework")) + ("training.framework=custom",)
        preds = [step(b, tt, sets if i == 0 else [x for x in sets if x.startswith("precision.compute")])
                 for i, b in enumerate(binaries)]
        row(name, measured, preds)
    for i, e in sorted(ERRORS.items()):
        print("%s: mean |error| %.1f%%, max %.1f%% over %d rows" % ("after" if i == 0 else "before",
              100 * sum(e) / len(e), 100 * max(e), len(e)))


main()
