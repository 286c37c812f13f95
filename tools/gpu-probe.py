#!/usr/bin/env python3
"""gpu-probe.py - measure the kernel levels distcalc prices with, on this GPU.

Reads a distcalc config (--config) for the layer shape one rank runs (its
hidden size, heads and KV heads over tp, ffn over tp, micro batch x sequence
tokens), then times on the GPU:

  * the GEMMs of that layer: forward, input-gradient and weight-gradient
    shapes of q k v, o, fc1 and fc2, in BF16, and in FP8 where the GPU and
    PyTorch support it (torch._scaled_mm, compute capability 8.9 or later);
  * causal attention forward and backward for each backend PyTorch offers
    (SDPA's flash, memory-efficient and cuDNN kernels; FlashAttention-3 when
    flash_attn_interface imports);
  * element-wise bandwidth (a BF16 add over 1 GiB read, 0.5 GiB written);
  * one transformer layer of that shape, forward then backward: torchtitan's
    Llama block in eager PyTorch (layer_step), its gradients cleared before
    each run, and which kernel SDPA ran; with --compile the same block
    through torch.compile too; with --layer-kernels FILE its kernels, from
    torch.profiler, written to FILE.

Each kernel is timed over short runs (5 warm-up, 20 timed), so the GPU runs
at its boost clock: isolated figures, written as "clocks": "boost", which
distcalc multiplies by the GPU set's in-situ factor. --sustain SECONDS first
runs back-to-back 8192^3 BF16 GEMMs for that long (and for min(SECONDS, 1)
s again before each kernel it times) so the clocks settle at the power
limit, and writes "clocks": "sustained", which distcalc takes as measured.

It writes a profile (schema "distcalc-gpu-profile/1", documented in
docs/compute-model.md, "Calibrating from a probe") that
`distcalc --calibrate-compute PROFILE.json` reads. --dry-run prints what it
would measure and needs neither a GPU nor PyTorch: torch is imported only
when measuring. PyTorch and the standard library only.
"""

import argparse
import json
import os
import subprocess
import sys
import time

SCHEMA = "distcalc-gpu-profile/1"
HEAT_N = 8192  # the square BF16 GEMM --sustain runs back to back


def fail(msg):
    sys.stderr.write("gpu-probe: error: %s\n" % msg)
    sys.exit(2)


def first_line(e):
    """An exception's first line of text, or its type's name."""
    return str(e).splitlines()[0] if str(e) else type(e).__name__


def write_json(path, obj):
    """obj as indented JSON at path, written beside it first and then
    moved, so a failed write leaves no half file."""
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(obj, f, indent=2)
        f.write("\n")
    os.replace(tmp, path)


def read_json(path):
    try:
        with open(path, "r", encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        fail("'%s': %s" % (path, e))


CATALOGUE_ENV = "DISTCALC_DATA_DIR"
CATALOGUE_NAME_MAX = 96


def is_catalogue_name(s):
    """A name without a path, as distcalc reads one (src/load/catalogue.c,
    dc_catalogue_is_name): no '/', not starting with '.', not ending in
    ".json", at most 96 bytes."""
    n = len(s.encode("utf-8"))
    return 0 < n <= CATALOGUE_NAME_MAX and "/" not in s and not s.startswith(".") and not s.endswith(".json")


def catalogue_path(name):
    """<data>/models/NAME.json, the data directory found as distcalc finds
    it (include/distcalc/catalogue.h): $DISTCALC_DATA_DIR when set and not
    empty, else the source tree's configs/ (beside this tools/ folder), else
    the installed /usr/local/share/distcalc."""
    env = os.environ.get(CATALOGUE_ENV, "")
    if env:
        cands = [env]
    else:
        here = os.path.dirname(os.path.abspath(__file__))
        cands = [os.path.join(os.path.dirname(here), "configs"), "/usr/local/share/distcalc"]
    for d in cands:
        if os.path.isdir(os.path.join(d, "models")):
            path = os.path.join(d, "models", name + ".json")
            if not os.path.isfile(path):
                names = sorted(f[:-5] for f in os.listdir(os.path.join(d, "models")) if f.endswith(".json"))
                fail("'model.hf_config': no model '%s' in the catalogue (%s); known: %s"
                     % (name, os.path.join(d, "models"), ", ".join(names)))
            return path
    fail("'model.hf_config': \"%s\" is a catalogue name, but no model catalogue was found (%s)"
         % (name, "$%s is %s" % (CATALOGUE_ENV, env) if env else "set $%s to a folder holding models/" % CATALOGUE_ENV))


def hf_config_path(config_path, hf):
    """The file model.hf_config names: a catalogue name ("llama-3-8b"), or
    a path, relative ones read beside the config (as distcalc reads them)."""
    if is_catalogue_name(hf):
        return catalogue_path(hf)
    return os.path.join(os.path.dirname(os.path.abspath(config_path)), hf)


def layer_shape(config_path, tp_override):
    """The per-rank layer of a distcalc config (its model section, or the
    Hugging Face config it names in model.hf_config: a path or a name of
    distcalc's model catalogue)."""
    cfg = read_json(config_path)
    model = dict(cfg.get("model", {}))
    hf = model.get("hf_config")
    if hf:
        h = read_json(hf_config_path(config_path, hf))
        # Llama-style names, and GPT-2's (n_embd, n_head, n_inner: null
        # is 4 n_embd; activation_function), as distcalc's hf.c reads them
        names = {"hidden_size": "hidden_size", "num_attention_heads": "num_attention_heads",
                 "num_key_value_heads": "num_kv_heads", "intermediate_size": "ffn_hidden_size",
                 "head_dim": "head_dim", "n_embd": "hidden_size", "n_head": "num_attention_heads",
                 "n_inner": "ffn_hidden_size", "vocab_size": "vocab_size"}
        for src, dst in names.items():
            if h.get(src) is not None and dst not in model:
                model[dst] = h[src]
        act = h.get("hidden_act", h.get("activation_function", "silu"))
        model.setdefault("mlp", "swiglu" if act in ("silu", "swish") else "gelu")
    need = ["hidden_size", "num_attention_heads", "seq_length"]
    for k in need:
        if k not in model:
            fail("'%s': model.%s is needed (or a model.hf_config giving it)" % (config_path, k))
    hidden = int(model["hidden_size"])
    heads = int(model["num_attention_heads"])
    kv = int(model.get("num_kv_heads", heads))
    head_dim = int(model.get("head_dim", hidden // heads))
    ffn = int(model.get("ffn_hidden_size", 4 * hidden))
    par = cfg.get("parallel", {})
    tp = int(tp_override if tp_override is not None else par.get("tp", 1))
    mb = int(cfg.get("training", {}).get("micro_batch_size", 1))
    if tp < 1:
        fail("'%s': parallel.tp %d: expected a whole number of at least 1" % (config_path, tp))
    if heads % tp or kv % tp or ffn % tp:
        fail("tp %d must divide the heads (%d), KV heads (%d) and ffn (%d)" % (tp, heads, kv, ffn))
    L = {"config": config_path, "hidden_size": hidden, "num_attention_heads": heads, "num_kv_heads": kv,
         "head_dim": head_dim, "ffn_hidden_size": ffn, "mlp": model.get("mlp", "swiglu"),
         "seq_length": int(model["seq_length"]), "micro_batch_size": mb, "tp": tp}
    # the vocabulary rides beside the layer (the head's, --ends), never in it
    vocab = model.get("vocab_size")
    if vocab is not None and (isinstance(vocab, bool) or not isinstance(vocab, int) or vocab < 1):
        fail("'%s': model.vocab_size %r: expected a whole number of at least 1" % (config_path, vocab))
    return L, vocab


def gemm_shapes(L):
    """(what, m, n, k) of the layer's GEMMs on one rank: forward y = x W
    [T x k] x [k x n], input gradient [T x n] x [n x k], weight gradient
    [k x T] x [T x n] (the kernel model's, docs/compute-model.md)."""
    T = L["micro_batch_size"] * L["seq_length"]
    tp, h, d = L["tp"], L["hidden_size"], L["head_dim"]
    qkv = (L["num_attention_heads"] + 2 * L["num_kv_heads"]) * d // tp
    o_in = L["num_attention_heads"] * d // tp
    f = L["ffn_hidden_size"] // tp
    up = 2 * f if L["mlp"] == "swiglu" else f
    out = []
    for what, n, k in (("q k v", qkv, h), ("o", h, o_in), ("fc1", up, h), ("fc2", h, f)):
        out.append((what + " forward", T, n, k))
        out.append((what + " input gradient", T, k, n))
        out.append((what + " weight gradient", k, n, T))
    return out


def plan(L, sustain=0.0, vocab=None, ends=False):
    b, s = L["micro_batch_size"], L["seq_length"]
    heads, kv = L["num_attention_heads"] // L["tp"], L["num_kv_heads"] // L["tp"]
    return {
        "gemm": gemm_shapes(L),
        "attention": {"batch": b, "heads": heads, "kv_heads": kv, "seq": s, "head_dim": L["head_dim"],
                      "causal": True,
                      "backends": ["sdpa-flash", "sdpa-efficient", "sdpa-cudnn", "fa3 (if flash_attn_interface imports)"]},
        "elementwise_bytes": 3 * (1 << 29),
        "layer": L,
        "sustain_s": sustain,
        "ends": ends_plan(L, vocab) if ends else None,
    }


def layer_weights(L):
    """The shapes of one tp rank's weights of the layer, [out, in] as
    nn.Linear holds them, and its two norms' [h]."""
    tp, h, d = L["tp"], L["hidden_size"], L["head_dim"]
    H, KV, f = L["num_attention_heads"] // tp, L["num_kv_heads"] // tp, L["ffn_hidden_size"] // tp
    w = [(H * d, h), (KV * d, h), (KV * d, h), (h, H * d), (f, h), (h, f)]
    if L["mlp"] == "swiglu":
        w.append((f, h))
    return w + [(h,), (h,)]


def ends_plan(L, vocab):
    """--ends: the head and loss (tp 1 only: at tp > 1 torchtitan's loss
    runs across the tp ranks, which one GPU cannot) and the optimizer step
    over one layer's parameters."""
    n = sum(a * (b[0] if b else 1) for a, *b in layer_weights(L))
    head = None
    if L["tp"] == 1:
        head = {"tokens": L["micro_batch_size"] * L["seq_length"], "hidden_size": L["hidden_size"],
                "vocab_size": vocab}
    return {"head": head, "optimizer_params": n, "tensors": len(layer_weights(L))}


def clocks_text(p, warmup, iters):
    """The clock regime the plan measures in, as the dry run and the
    profile's source say it."""
    if p["sustain_s"] > 0:
        return ("sustained: %g s of back-to-back %d^3 BF16 GEMMs first, and %g s again before each kernel, "
                "then %d warm-up and %d timed runs" % (p["sustain_s"], HEAT_N, min(p["sustain_s"], 1.0), warmup, iters))
    return "boost: %d warm-up and %d timed runs each, no sustained load first (isolated figures)" % (warmup, iters)


def dry_run(p, warmup, iters):
    L = p["layer"]
    print("gpu-probe: dry run (no GPU, no PyTorch): would measure")
    print("clocks: %s" % clocks_text(p, warmup, iters))
    print("layer (one tp rank): hidden %d, heads %d / tp %d, kv heads %d, head_dim %d, ffn %d (%s), "
          "micro batch %d x %d tokens" % (L["hidden_size"], L["num_attention_heads"], L["tp"], L["num_kv_heads"],
                                         L["head_dim"], L["ffn_hidden_size"], L["mlp"], L["micro_batch_size"],
                                         L["seq_length"]))
    print("GEMMs, BF16 (and FP8 where supported), m x n x k:")
    for what, m, n, k in p["gemm"]:
        print("  %-24s %7d x %7d x %7d  %.3g GFLOP" % (what, m, n, k, 2.0 * m * n * k / 1e9))
    a = p["attention"]
    print("attention, causal, forward and backward: batch %d, heads %d (kv %d), seq %d, head_dim %d; backends: %s"
          % (a["batch"], a["heads"], a["kv_heads"], a["seq"], a["head_dim"], ", ".join(a["backends"])))
    print("element-wise: BF16 add, %d bytes moved a call" % p["elementwise_bytes"])
    print("which kernel SDPA runs by default (one forward under torch.profiler): the layer's attention_backend")
    print("one layer forward + backward of the shape above")
    if p.get("compile"):
        print("that layer again through torch.compile (each block compiled, as torchtitan's [compile])")
    if p.get("layer_kernels"):
        print("that layer again under torch.profiler: its kernels, by name and kind, written to %s" % p["layer_kernels"])
    e = p.get("ends")
    if e:
        if e["head"]:
            print("the head: final RMSNorm, the output projection %d -> %d and cross entropy in FP32 "
                  "(cross_entropy(logits.float())), forward and forward + backward over %d tokens"
                  % (e["head"]["hidden_size"], e["head"]["vocab_size"], e["head"]["tokens"]))
        else:
            print("the head: not measured at tp %d (torchtitan's loss runs across the tp ranks)" % L["tp"])
        print("the optimizer: one AdamW step over %d FP32 parameters (%d tensors, one layer's shard), "
              "foreach and fused, and clip_grad_norm_ (foreach)" % (e["optimizer_params"], e["tensors"]))


def heat(torch, seconds, state):
    """Back-to-back HEAT_N^3 BF16 GEMMs for `seconds` of wall time, so the
    clocks settle at the power limit (what a training step runs at). state
    holds the operands, made once."""
    if seconds <= 0:
        return
    if "a" not in state:
        state["a"] = torch.randn(HEAT_N, HEAT_N, device="cuda", dtype=torch.bfloat16)
        state["b"] = torch.randn(HEAT_N, HEAT_N, device="cuda", dtype=torch.bfloat16)
    a, b = state["a"], state["b"]
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        for _ in range(8):
            torch.matmul(a, b)
        torch.cuda.synchronize()


HEAT = {"before_each_s": 0.0, "state": {}}


def timed(torch, fn, warmup, iters):
    """Mean seconds of fn() over `iters` calls after `warmup`, by CUDA events
    (after HEAT["before_each_s"] of sustained load under --sustain)."""
    heat(torch, HEAT["before_each_s"], HEAT["state"])
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    start = torch.cuda.Event(enable_timing=True)
    end = torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(iters):
        fn()
    end.record()
    torch.cuda.synchronize()
    return start.elapsed_time(end) / 1000.0 / iters


def rms_norm(t, w):
    """torchtitan 9dec370's RMSNorm: _norm(x.float()).type_as(x) * weight."""
    y = t.float()
    return (y * y.pow(2).mean(-1, keepdim=True).add(1e-5).rsqrt()).type_as(t) * w


def measure_ends(torch, F, p, dev, warmup, iters, out):
    """--ends: the head and loss forward and forward + backward as
    torchtitan 9dec370 runs them (the model's final norm and output
    Linear in BF16; train.py's loss_fn, cross_entropy(pred.flatten(0, 1)
    .float(), labels.flatten(0, 1))), and one AdamW step (lr 3e-4, betas
    0.9 / 0.95, weight decay 0.1, as torchtitan's defaults) over FP32
    parameters shaped like one layer's shard, foreach and fused, and
    clip_grad_norm_(foreach=True). The parameters are FP32, as FSDP2's
    sharded parameters and gradients are under its mixed precision."""
    e = p["ends"]
    bf16, f32 = torch.bfloat16, torch.float32
    hd = e["head"]
    traces = {}  # what --layer-kernels traces besides the layer
    if not hd:
        sys.stderr.write("gpu-probe: --ends: the head is not measured at tp %d (torchtitan's loss runs across the "
                         "tp ranks; probe with --tp 1 for it)\n" % p["layer"]["tp"])
    if hd:
        T, h, V = hd["tokens"], hd["hidden_size"], hd["vocab_size"]
        x = torch.randn(T, h, device=dev, dtype=bf16, requires_grad=True)
        nw = torch.ones(h, device=dev, dtype=bf16, requires_grad=True)
        w = (torch.randn(V, h, device=dev, dtype=bf16) * 0.02).requires_grad_()
        labels = torch.randint(0, V, (T,), device=dev)

        def fwd():
            return F.cross_entropy(F.linear(rms_norm(x, nw), w).float(), labels)

        def fb():
            x.grad = nw.grad = w.grad = None
            fwd().backward()
        try:
            res = dict(hd)
            res["fwd_s"] = timed(torch, fwd, warmup, iters)
            res["fwd_bwd_s"] = timed(torch, fb, warmup, iters)
            out["head"] = res
            traces["head"] = fb
        except RuntimeError as ex:  # out of memory, a kernel missing: the rest is still measured
            sys.stderr.write("gpu-probe: the head was not timed (head left out): %s\n" % first_line(ex))
    params = []
    for shape in layer_weights(p["layer"]):
        t = (torch.randn(*shape, device=dev, dtype=f32) * 0.02).requires_grad_()
        t.grad = torch.randn_like(t) * 1e-3
        params.append(t)
    kw = {"lr": 3e-4, "betas": (0.9, 0.95), "weight_decay": 0.1, "eps": 1e-8}
    res = {"params": e["optimizer_params"], "tensors": len(params), "dtype": "fp32"}
    try:
        for name, impl in (("foreach_step_s", {"foreach": True}), ("fused_step_s", {"fused": True})):
            opt = torch.optim.AdamW(params, **impl, **kw)
            opt.step()  # the moments allocated before the timing
            res[name] = timed(torch, opt.step, warmup, iters)
            traces["optimizer_" + name[:-len("_step_s")]] = opt.step
        clip = lambda: torch.nn.utils.clip_grad_norm_(params, 1.0, foreach=True)  # noqa: E731
        res["clip_grad_norm_s"] = timed(torch, clip, warmup, iters)
        traces["clip_grad_norm"] = clip
        out["optimizer"] = res
    except (RuntimeError, TypeError) as ex:  # no fused AdamW in this PyTorch, out of memory: all three or none
        for what in ("optimizer_foreach", "optimizer_fused", "clip_grad_norm"):
            traces.pop(what, None)
        sys.stderr.write("gpu-probe: the optimizer step was not timed (optimizer left out): %s\n" % first_line(ex))
    path = p.get("layer_kernels")
    if path and os.path.isfile(path):
        try:
            k = read_json(path)
            for what, fn in traces.items():
                k[what] = kernel_trace(torch, fn, 2, min(iters, 5))
            write_json(path, k)
        except Exception as ex:  # noqa: BLE001 - the traces are extra: the profile is still written
            sys.stderr.write("gpu-probe: --layer-kernels: the head's and optimizer's kernels not traced: %s\n"
                             % first_line(ex))


def measure(p, warmup, iters):
    try:
        import torch  # only here: --dry-run runs without it
        import torch.nn.functional as F
    except ImportError:
        fail("PyTorch is not installed here (--dry-run needs no PyTorch)")

    if not torch.cuda.is_available():
        fail("no CUDA GPU visible to PyTorch (use --dry-run to see the plan)")
    dev = torch.device("cuda")
    props = torch.cuda.get_device_properties(dev)
    bf16 = torch.bfloat16
    sustain = p["sustain_s"]
    out = {"schema": SCHEMA, "synthetic": False,
           "source": "tools/gpu-probe.py, CUDA events, started %s; clocks %s"
                     % (time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), clocks_text(p, warmup, iters)),
           "clocks": "sustained" if sustain > 0 else "boost",
           "device": {"name": props.name, "sm_count": props.multi_processor_count,
                      "torch": torch.__version__, "cuda": str(torch.version.cuda),
                      "cudnn": str(torch.backends.cudnn.version())},
           "gemm": [], "attention": []}

    drv = driver_version()
    if drv:
        out["device"]["driver"] = drv
    if sustain > 0:
        heat(torch, sustain, HEAT["state"])
        HEAT["before_each_s"] = min(sustain, 1.0)
    fp8_ok = hasattr(torch, "_scaled_mm") and torch.cuda.get_device_capability(dev) >= (8, 9)
    for what, m, n, k in p["gemm"]:
        a = torch.randn(m, k, device=dev, dtype=bf16)
        b = torch.randn(k, n, device=dev, dtype=bf16)
        t = timed(torch, lambda: torch.matmul(a, b), warmup, iters)
        out["gemm"].append({"what": what, "m": m, "n": n, "k": k, "dtype": "bf16", "flops_per_s": 2.0 * m * n * k / t})
        if fp8_ok and m % 16 == 0 and n % 16 == 0 and k % 16 == 0:
            a8 = a.to(torch.float8_e4m3fn)
            b8 = b.t().contiguous().to(torch.float8_e4m3fn).t()  # column-major, as _scaled_mm needs
            one = torch.tensor(1.0, device=dev)
            try:
                t = timed(torch, lambda: torch._scaled_mm(a8, b8, scale_a=one, scale_b=one, out_dtype=bf16),
                          warmup, iters)
                out["gemm"].append({"what": what, "m": m, "n": n, "k": k, "dtype": "fp8",
                                    "flops_per_s": 2.0 * m * n * k / t})
            except RuntimeError as e:
                sys.stderr.write("gpu-probe: FP8 GEMM %s skipped: %s\n" % (what, first_line(e)))
        del a, b

    at = p["attention"]
    B, H, KV, S, D = at["batch"], at["heads"], at["kv_heads"], at["seq"], at["head_dim"]
    fl_fwd = 0.5 * 4.0 * B * H * S * S * D  # causal: half the blocks
    q = torch.randn(B, H, S, D, device=dev, dtype=bf16, requires_grad=True)
    k = torch.randn(B, H, S, D, device=dev, dtype=bf16, requires_grad=True)
    v = torch.randn(B, H, S, D, device=dev, dtype=bf16, requires_grad=True)
    backends = []
    try:
        from torch.nn.attention import SDPBackend, sdpa_kernel
        backends = [("sdpa-flash", SDPBackend.FLASH_ATTENTION), ("sdpa-efficient", SDPBackend.EFFICIENT_ATTENTION)]
        if hasattr(SDPBackend, "CUDNN_ATTENTION"):
            backends.append(("sdpa-cudnn", SDPBackend.CUDNN_ATTENTION))
    except ImportError:
        sdpa_kernel = None
    for name, be in backends:
        try:
            with sdpa_kernel(be):
                o = F.scaled_dot_product_attention(q, k, v, is_causal=True)
                g = torch.randn_like(o)
                tf = timed(torch, lambda: F.scaled_dot_product_attention(q, k, v, is_causal=True), warmup, iters)

                def fb():
                    # gradients written afresh each run: left from the run
                    # before, three adds would join the backward's time
                    q.grad = k.grad = v.grad = None
                    y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
                    y.backward(g)
                tfb = timed(torch, fb, warmup, iters)
        except RuntimeError as e:
            sys.stderr.write("gpu-probe: attention backend %s skipped: %s\n" % (name, first_line(e)))
            continue
        tb = max(tfb - tf, 1e-9)
        out["attention"].append({"backend": name, "batch": B, "heads": H, "seq": S, "head_dim": D, "causal": True,
                                 "fwd_flops_per_s": fl_fwd / tf, "bwd_flops_per_s": 2.5 * fl_fwd / tb})
    try:
        import flash_attn_interface  # FlashAttention-3 (Hopper)
        q3, k3, v3 = (x.detach().transpose(1, 2).contiguous().requires_grad_() for x in (q, k, v))
        r = flash_attn_interface.flash_attn_func(q3, k3, v3, causal=True)
        r = r[0] if isinstance(r, tuple) else r
        g3 = torch.randn_like(r)

        def f3():
            y = flash_attn_interface.flash_attn_func(q3, k3, v3, causal=True)
            return y[0] if isinstance(y, tuple) else y
        tf = timed(torch, f3, warmup, iters)

        def fb3():
            q3.grad = k3.grad = v3.grad = None
            f3().backward(g3)
        tfb = timed(torch, fb3, warmup, iters)
        out["attention"].append({"backend": "fa3", "batch": B, "heads": H, "seq": S, "head_dim": D, "causal": True,
                                 "fwd_flops_per_s": fl_fwd / tf, "bwd_flops_per_s": 2.5 * fl_fwd / max(tfb - tf, 1e-9)})
    except ImportError:
        pass
    del q, k, v

    n = p["elementwise_bytes"] // 6  # read two BF16 tensors, write one: 6 bytes an element
    x = torch.randn(n, device=dev, dtype=bf16)
    y = torch.randn(n, device=dev, dtype=bf16)
    z = torch.empty_like(x)
    t = timed(torch, lambda: torch.add(x, y, out=z), warmup, iters)
    out["elementwise"] = {"bytes": 6 * n, "bytes_per_s": 6.0 * n / t}
    del x, y, z

    L = dict(p["layer"])
    out["layer"] = L
    step = layer_step(torch, F, p["layer"], dev)
    sdpa_default = sdpa_default_kernel(torch, step)
    if sdpa_default:
        L["attention_backend"] = sdpa_default
    else:
        sys.stderr.write("gpu-probe: which kernel SDPA runs by default was not found; the profile's layer "
                         "leaves layer.attention_backend out (distcalc then takes \"sdpa-flash\")\n")
    L["fwd_bwd_s"] = timed(torch, step, warmup, iters)
    cstep = None
    if p.get("compile"):
        try:
            cstep = layer_step(torch, F, p["layer"], dev, compiled=True)
            cstep()  # compiles it (CPU time, the GPU idle) before timed() heats the GPU under --sustain
            torch.cuda.synchronize()
            L["compiled_fwd_bwd_s"] = timed(torch, cstep, max(warmup, 3), iters)
        except Exception as e:  # noqa: BLE001 - torch.compile failing leaves the member out, saying why
            cstep = None
            sys.stderr.write("gpu-probe: the compiled layer was not timed (layer.compiled_fwd_bwd_s left out): %s\n"
                             % first_line(e))
    if p.get("layer_kernels"):
        try:
            k = layer_kernels(torch, p["layer"], step, cstep, warmup, min(iters, 5), p["layer_kernels"])
            # the layer's GPU time in its kernels: less than fwd_bwd_s when
            # the GPU waited for the host's launches (distcalc says so)
            L["gpu_busy_s"] = k["busy_s"]
            if "compiled" in k:
                L["compiled_gpu_busy_s"] = k["compiled"]["busy_s"]
            sys.stderr.write("gpu-probe: layer kernels: %.3f ms a layer on the GPU (%s), %.3f ms idle; wrote %s\n"
                             % (k["busy_s"] * 1e3,
                                ", ".join("%s %.3f" % (n, t * 1e3) for n, t in sorted(k["kinds_s"].items())),
                                k["idle_s"] * 1e3, p["layer_kernels"]))
        except Exception as e:  # noqa: BLE001 - the trace is extra: the profile is still written
            sys.stderr.write("gpu-probe: --layer-kernels: no trace written: %s\n"
                             % first_line(e))
    if p.get("ends"):
        del step, cstep
        measure_ends(torch, F, p, dev, warmup, iters, out)
    HEAT["state"].clear()
    mhz = sm_clock_mhz(torch)
    if mhz:
        out["device"]["sm_clock_mhz"] = mhz
    return out


def driver_version():
    """The NVIDIA driver's version, from NVML (nvidia-ml-py) or else
    nvidia-smi; None where neither answers. For the record only."""
    try:
        import pynvml
        pynvml.nvmlInit()
        v = pynvml.nvmlSystemGetDriverVersion()
        return v.decode() if isinstance(v, bytes) else str(v)
    except Exception:  # no pynvml or no NVML: try nvidia-smi
        pass
    try:
        r = subprocess.run(["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"],
                           capture_output=True, text=True, timeout=30)
        v = r.stdout.strip().splitlines()[0].strip() if r.returncode == 0 and r.stdout.strip() else ""
        return v or None
    except (OSError, subprocess.SubprocessError):
        return None


def sm_clock_mhz(torch):
    """The SM clock right after the last timed kernel, where
    torch.cuda.clock_rate() answers (it needs pynvml); None otherwise. For
    the record only: distcalc reads "clocks", not this."""
    try:
        mhz = torch.cuda.clock_rate()
    except Exception:  # no pynvml, no NVML, an older torch: optional
        return None
    return mhz if isinstance(mhz, (int, float)) and mhz > 0 else None


def layer_step(torch, F, L, dev, compiled=False):
    """One tp rank's shard of torchtitan's Llama block in eager PyTorch, as
    torchtitan 9dec370 writes it (torchtitan/models/llama/model.py,
    torchtitan/models/norms.py; the version of its H100 benchmark):
    RMSNorm (`_norm(x.float()).type_as(x) * weight`, each op its own
    kernel), wq wk wv, the complex rotation of q and k, repeat_kv, causal
    SDPA, wo, the residual, RMSNorm, w2(silu(w1 x) * w3 x) (a GELU model:
    w2(gelu(w1 x))), the residual. Returns a function running it forward
    then backward: no recomputation, no communication. compiled: the block
    through torch.compile(fullgraph=True), as torchtitan's [compile]
    compiles each block (apply_compile, torchtitan/parallelisms/
    parallelize_llama.py:297-304 at 9dec370). distcalc compares
    it with its model of that block (training.framework "torchtitan",
    training.compile false, or true for the compiled time)."""
    bf16 = torch.bfloat16
    tp, h, d = L["tp"], L["hidden_size"], L["head_dim"]
    H, KV, f = L["num_attention_heads"] // tp, L["num_kv_heads"] // tp, L["ffn_hidden_size"] // tp
    B, S = L["micro_batch_size"], L["seq_length"]
    gated = L["mlp"] == "swiglu"
    mk = lambda *s: (torch.randn(*s, device=dev, dtype=bf16) * 0.02).requires_grad_()
    # nn.Linear's weights, [out, in], applied as F.linear (x W^T)
    wq, wk, wv, wo = mk(H * d, h), mk(KV * d, h), mk(KV * d, h), mk(h, H * d)
    w1, w2 = mk(f, h), mk(h, f)
    w3 = mk(f, h) if gated else None
    n1 = torch.ones(h, device=dev, dtype=bf16, requires_grad=True)
    n2 = torch.ones(h, device=dev, dtype=bf16, requires_grad=True)
    x = torch.randn(B, S, h, device=dev, dtype=bf16, requires_grad=True)
    # precompute_freqs_cis: theta 500000 (Llama 3), complex64 [S, d/2]
    inv = 1.0 / (500000.0 ** (torch.arange(0, d, 2, device=dev, dtype=torch.float32) / d))
    ang = torch.outer(torch.arange(S, device=dev, dtype=torch.float32), inv)
    freqs = torch.polar(torch.ones_like(ang), ang).view(1, S, 1, d // 2)

    def rms(t, w):
        y = t.float()
        return (y * torch.rsqrt(y.pow(2).mean(-1, keepdim=True) + 1e-5)).type_as(t) * w

    def rope(t):
        c = torch.view_as_complex(t.float().reshape(*t.shape[:-1], -1, 2))
        return torch.view_as_real(c * freqs).flatten(3).type_as(t)

    def repeat_kv(t):
        n = H // KV
        if n == 1:
            return t
        return t[:, :, :, None, :].expand(B, S, KV, n, d).reshape(B, S, KV * n, d)

    def block(x, n1, n2, wq, wk, wv, wo, w1, w2, w3):
        a = rms(x, n1)
        q = F.linear(a, wq).view(B, S, H, d)
        k, v = F.linear(a, wk).view(B, S, KV, d), F.linear(a, wv).view(B, S, KV, d)
        q, k = rope(q), rope(k)
        k, v = repeat_kv(k), repeat_kv(v)
        o = F.scaled_dot_product_attention(q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2), is_causal=True)
        r = x + F.linear(o.transpose(1, 2).contiguous().view(B, S, H * d), wo)
        m = rms(r, n2)
        u = F.silu(F.linear(m, w1)) * F.linear(m, w3) if gated else F.gelu(F.linear(m, w1))
        return r + F.linear(u, w2)

    run = torch.compile(block, fullgraph=True) if compiled else block
    g = torch.randn(B, S, h, device=dev, dtype=bf16)
    leaves = [t for t in (x, n1, n2, wq, wk, wv, wo, w1, w2, w3) if t is not None]

    def step():
        # each run's gradients written afresh, as one micro-batch's are:
        # gradients left from the run before would be added to (one add
        # kernel per weight and one for x, which no layer of a model has)
        for t in leaves:
            t.grad = None
        run(x, n1, n2, wq, wk, wv, wo, w1, w2, w3).backward(g)
    return step


def sdpa_default_kernel(torch, step):
    """The kernel the layer's F.scaled_dot_product_attention runs with
    PyTorch's own priority order (no sdpa_kernel context): one run of the
    layer, forward and backward, under torch.profiler, named by its
    operators (aten::_scaled_dot_product_cudnn_attention, _flash_,
    _efficient_) or else its kernels' names: "sdpa-cudnn" (cuDNN's fused
    attention, which PyTorch's sdp_utils.cpp, check_prefer_cudnn_attention,
    puts first on sm90 and sm10x with a recent cuDNN), "sdpa-flash"
    (FlashAttention-2), "sdpa-efficient"; None when neither names one."""
    try:
        from torch.profiler import ProfilerActivity, profile
        step()
        torch.cuda.synchronize()
        with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
            step()
            torch.cuda.synchronize()
        names = [e.name.lower() for e in prof.events()]
    except Exception as e:  # noqa: BLE001 - no profiler, or it failed: the member is optional
        sys.stderr.write("gpu-probe: SDPA's default kernel not found: %s\n" % first_line(e))
        return None
    ops = " ".join(n for n in names if "scaled_dot_product" in n)
    for text in (ops, " ".join(names)):
        if "cudnn" in text:
            return "sdpa-cudnn"
        if "flash" in text:
            return "sdpa-flash"
        if "efficient" in text or "fmha" in text:
            return "sdpa-efficient"
    return None


KERNEL_KINDS = (  # (kind, words in a kernel's name, lower case), first match wins
    ("attention", ("flash", "fmha", "attention", "attn", "sdpa", "cudnn")),
    ("gemm", ("gemm", "nvjet", "xmma", "cutlass", "cublas", "matmul", "sm90_", "sm80_")),
)


def kernel_kind(name):
    n = name.lower()
    for kind, words in KERNEL_KINDS:
        if any(w in n for w in words):
            return kind
    return "other"


def layer_kernels(torch, L, step, cstep, warmup, iters, path):
    """The layer's kernels as the GPU ran them, from torch.profiler's trace:
    per kernel name its calls and GPU time, the GPU time by kind (gemm,
    attention, other: element-wise, reductions, copies; by the kernel's
    name, KERNEL_KINDS), and per iteration the span from the first kernel's
    start to the last one's end against the time some kernel was running
    (span - busy: the GPU idle, waiting for launches). Written to `path` as
    JSON; distcalc does not read it (docs/compute-model.md, "A measured
    H200"). step: the eager layer (layer_step); cstep, when not None, the
    compiled one, its kernels under "compiled"."""
    out = kernel_trace(torch, step, warmup, iters)
    out["layer"] = L
    if cstep is not None:
        try:
            out["compiled"] = kernel_trace(torch, cstep, warmup, iters)
        except Exception as e:  # noqa: BLE001 - the compiled trace is optional; say why it is missing
            sys.stderr.write("gpu-probe: the compiled layer's kernels were not traced: %s\n"
                             % first_line(e))
    write_json(path, out)
    return out


def kernel_trace(torch, step, warmup, iters):
    """step() run `iters` times under torch.profiler after `warmup`: the
    summary layer_kernels writes."""
    import tempfile
    from torch.profiler import ProfilerActivity, profile
    for _ in range(warmup):
        step()
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
        for _ in range(iters):
            step()
        torch.cuda.synchronize()
    fd, tmp = tempfile.mkstemp(suffix=".json")
    os.close(fd)
    try:
        prof.export_chrome_trace(tmp)
        trace = read_json(tmp)
    finally:
        os.unlink(tmp)
    ev = trace.get("traceEvents", trace) if isinstance(trace, dict) else trace
    out = summarize_kernels(ev, iters)
    if out is None:
        raise RuntimeError("the profiler's trace holds no kernel events (no CUPTI?)")
    return out


def summarize_kernels(events, iters):
    """A Chrome trace's kernel events ("cat": "kernel", "ts" and "dur" in
    microseconds) over `iters` runs: per run the span from the first
    kernel's start to the last one's end, the time some kernel was running
    (the union of their intervals) and the rest (idle), the GPU time per
    kind (kernel_kind) and per kernel name; None without kernels."""
    ks = sorted(((float(e["ts"]), float(e["dur"]), e.get("name", "?")) for e in events
                 if isinstance(e, dict) and e.get("cat") == "kernel" and "dur" in e and "ts" in e))
    if not ks:
        return None
    by = {}
    busy, end = 0.0, None
    for ts, dur, name in ks:
        c = by.setdefault(name, [0, 0.0])
        c[0] += 1
        c[1] += dur
        lo = ts if end is None else max(ts, end)
        if ts + dur > lo:
            busy += ts + dur - lo
        end = ts + dur if end is None else max(end, ts + dur)
    span = end - ks[0][0]
    kinds = {}
    for name, (n, us) in by.items():
        kinds[kernel_kind(name)] = kinds.get(kernel_kind(name), 0.0) + us * 1e-6 / iters
    return {"iterations": iters, "kernels_per_iteration": len(ks) / iters,
            "span_s": span * 1e-6 / iters, "busy_s": busy * 1e-6 / iters, "idle_s": (span - busy) * 1e-6 / iters,
            "kinds_s": kinds,
            "kernels": [{"name": name, "kind": kernel_kind(name), "calls": n / iters, "s": us * 1e-6 / iters}
                        for name, (n, us) in sorted(by.items(), key=lambda kv: -kv[1][1])]}


# The model features that make distcalc's layer other than torchtitan's
# Llama block, which the probe runs: with any of them distcalc takes the
# profile's levels but does not compare the layer (calibrate_compute.c,
# dc_compute_profile_layer_fit, names the first; the same order here).
UNLIKE_FEATURES = (("norm", lambda v: v == "layernorm", 'model.norm is "layernorm"'),
                   ("qkv_bias", lambda v: v is True, "model.qkv_bias is true"),
                   ("out_bias", lambda v: v is True, "model.out_bias is true"),
                   ("mlp_bias", lambda v: v is True, "model.mlp_bias is true"),
                   ("qk_norm", lambda v: v is True, "model.qk_norm is true"),
                   ("dropout", lambda v: v is True, "model.dropout is true"),
                   ("position_embeddings", lambda v: bool(v), "model.position_embeddings is not 0"),
                   ("sliding_window", lambda v: bool(v), "model.sliding_window is not 0"),
                   ("sandwich_norm", lambda v: v is True, "model.sandwich_norm is true"),
                   ("attention_sinks", lambda v: v is True, "model.attention_sinks is true"),
                   ("attention_output_gate", lambda v: v is True, "model.attention_output_gate is true"),
                   ("full_attention_interval", lambda v: bool(v), "model.full_attention_interval is not 0"))


# training.attention_backend of the kernel the probe's SDPA ran
BACKEND_OF_KERNEL = {"sdpa-cudnn": "cudnn", "sdpa-flash": "sdpa", "fa3": "fa3"}


def backend_note(path, kernel):
    """After a run: the training.attention_backend distcalc compares the
    layer under, when the config prices another (given, or its
    framework's default: "cudnn" under Megatron, else "sdpa"); None when
    they agree or the kernel is none of distcalc's."""
    want = BACKEND_OF_KERNEL.get(kernel)
    training = read_json(path).get("training", {})
    training = training if isinstance(training, dict) else {}
    # Megatron's default depends on the GPU (cuDNN on Hopper and
    # Blackwell presets) and eager attention prices no kernel: said only
    # where the config's backend is known here
    if training.get("attention") == "eager" or (not training.get("attention_backend")
                                                and training.get("framework") == "megatron"):
        return None
    has = training.get("attention_backend") or "sdpa"
    if want is None or has == want:
        return None
    return ("SDPA ran %s here (layer.attention_backend \"%s\"): distcalc compares this layer only under "
            "training.attention_backend \"%s\", and the config prices \"%s\"; if the run uses this PyTorch, give "
            "--set training.attention_backend=%s" % ("cuDNN's kernel" if want == "cudnn" else kernel, kernel, want,
                                                     has, want))


def comparison_notes(path, compile_given, dry=False, ends=False):
    """What in the config keeps distcalc from comparing the probe's layer
    with its own (the levels apply all the same), as lines to print. Read
    from the config's own members, and a model.hf_config's experts, latent
    attention or GPT-2 LayerNorm; the other features distcalc's import
    takes from a Hugging Face config are left to distcalc, which says why
    it does not compare. The framework is named only when nothing else
    stands in the way; dry (--dry-run) adds that the attention kernel is
    read at run time, when the config gives no training.attention_backend
    (a real run names it: backend_note)."""
    cfg = read_json(path)
    sec = lambda k: cfg.get(k) if isinstance(cfg.get(k), dict) else {}
    model, training, precision = sec("model"), sec("training"), sec("precision")
    hf = read_json(hf_config_path(path, model["hf_config"])) if model.get("hf_config") else {}
    notes = []
    if (model.get("num_experts") or model.get("kv_lora_rank") or hf.get("kv_lora_rank")
            or any(hf.get(k) for k in ("num_local_experts", "n_routed_experts", "num_experts"))):
        notes.append("the config's model is a mixture of experts or latent attention; the probe's layer is a dense "
                     "GQA block, so distcalc takes its levels but compares no layer")
    else:
        off = [text for key, unlike, text in UNLIKE_FEATURES if key in model and unlike(model[key])]
        if not off and hf.get("model_type") == "gpt2":
            off = ["GPT-2's LayerNorm, biases, dropout and learned positions, from model.hf_config"]
        if off:
            notes.append("the probe's layer is torchtitan's Llama block; this model's is not (%s), so distcalc "
                         "takes the profile's levels but compares no layer" % ", ".join(off))
    if training.get("compile") is True and not compile_given:
        notes.append("the config sets training.compile; distcalc compares a compiled run only with a compiled "
                     "layer: add --compile")
    if precision.get("compute") == "fp8":
        notes.append("the probe times its layer in BF16; distcalc compares no layer of a precision.compute "
                     "\"fp8\" run")
    blocked = bool(notes)
    if not blocked and training.get("framework", "custom") != "torchtitan":
        notes.append("distcalc compares the layer only under training.framework \"torchtitan\" (the probe runs "
                     "torchtitan's block), and this config's is \"%s\": if the run is torchtitan's, give it "
                     "training.framework \"torchtitan\"; otherwise the levels apply and no layer is compared"
                     % training.get("framework", "custom"))
    if ends:
        # distcalc compares the optimizer step with FP32 states and no master
        # (precision.preset "fsdp2", torchtitan's): the preset's bytes, or the
        # byte keys the config gives
        preset = precision.get("preset", "course")
        states = {"course": (2, 2, 4, 8), "megatron": (2, 4, 4, 8), "fsdp2": (4, 4, 0, 8),
                  "deepseek_v3": (2, 4, 4, 4)}.get(preset)
        if states is not None:
            keys = ("param_bytes", "grad_bytes", "master_bytes", "optimizer_bytes")
            states = tuple(precision.get(k, v) for k, v in zip(keys, states))
        if states is not None and states != (4, 4, 0, 8):
            notes.append("distcalc compares the optimizer step only with the probe's FP32 states and no master copy "
                         "(precision.preset \"fsdp2\", torchtitan's); this config's precision (\"%s\") is not: "
                         "give it precision.preset \"fsdp2\" to see that comparison" % preset)
    if dry and not blocked and not training.get("attention_backend"):
        notes.append("which kernel SDPA runs is read when the probe runs (layer.attention_backend): distcalc "
                     "compares the layer only under the training.attention_backend of that kernel (\"cudnn\" for "
                     "cuDNN's, \"sdpa\" for FlashAttention-2); the run says which")
    return notes


def main(argv):
    ap = argparse.ArgumentParser(description="Measure the kernel levels distcalc prices with on this GPU "
                                             "and write a profile for distcalc --calibrate-compute.")
    ap.add_argument("--config", required=True, help="a distcalc config: the layer shape one rank runs")
    ap.add_argument("--tp", type=int, default=None, help="tensor-parallel degree of the shard (default: the config's)")
    ap.add_argument("--output", default="gpu-profile.json", help="where to write the profile (default: %(default)s)")
    ap.add_argument("--warmup", type=int, default=5, help="untimed runs before each timing (default: %(default)s)")
    ap.add_argument("--iters", type=int, default=20, help="timed runs, averaged (default: %(default)s)")
    ap.add_argument("--sustain", type=float, default=None, metavar="SECONDS",
                    help="run back-to-back 8192^3 BF16 GEMMs this long first (and up to 1 s before each kernel) "
                         "so the clocks settle at the power limit; writes \"clocks\": \"sustained\" "
                         "(default: none, \"boost\")")
    ap.add_argument("--layer-kernels", metavar="FILE", default=None,
                    help="also run the layer (and the compiled one, with --compile) five more times under "
                         "torch.profiler and write its kernels (GPU time per kernel and per kind, idle time between "
                         "them) to FILE as JSON; the profile gets the layer's GPU busy time (layer.gpu_busy_s)")
    ap.add_argument("--compile", action="store_true",
                    help="also time the layer through torch.compile, as torchtitan's [compile] runs each block "
                         "(layer.compiled_fwd_bwd_s)")
    ap.add_argument("--ends", action="store_true",
                    help="also time the head and loss (final norm, output projection, FP32 cross entropy; tp 1 "
                         "only) and one AdamW step over one layer's parameters, foreach and fused, with "
                         "clip_grad_norm_ (the profile's head and optimizer)")
    ap.add_argument("--dry-run", action="store_true", help="print what would be measured; needs no GPU or PyTorch")
    a = ap.parse_args(argv)
    if a.warmup < 0 or a.iters < 1:
        fail("--warmup must be at least 0 and --iters at least 1")
    if a.tp is not None and a.tp < 1:
        fail("--tp: expected a whole number of at least 1, got %d" % a.tp)
    if a.sustain is not None and not (0 < a.sustain < 86400):
        fail("--sustain: expected seconds above 0 and below a day (86400), got %g" % a.sustain)
    for what, path in (("--output", a.output), ("--layer-kernels", a.layer_kernels)):
        if path and not os.path.isdir(os.path.dirname(os.path.abspath(path))):
            fail("%s: no folder '%s' to write %s in" % (what, os.path.dirname(os.path.abspath(path)), path))
    L, vocab = layer_shape(a.config, a.tp)
    if a.ends and L["tp"] == 1 and vocab is None:
        fail("--ends: the head needs model.vocab_size (or a model.hf_config giving vocab_size) in '%s'" % a.config)
    p = plan(L, a.sustain or 0.0, vocab, a.ends)
    p["layer_kernels"] = a.layer_kernels
    p["compile"] = a.compile
    if a.dry_run:
        dry_run(p, a.warmup, a.iters)
        print("profile: would be written to %s%s" % (a.output, " (and the trace to %s)" % a.layer_kernels
                                                       if a.layer_kernels else ""))
        for note in comparison_notes(a.config, a.compile, dry=True, ends=a.ends):
            print("note: " + note)
        return 0
    for note in comparison_notes(a.config, a.compile, ends=a.ends):
        sys.stderr.write("gpu-probe: note: %s\n" % note)
    prof = measure(p, a.warmup, a.iters)
    write_json(a.output, prof)
    note = backend_note(a.config, prof["layer"].get("attention_backend"))
    if note:
        sys.stderr.write("gpu-probe: note: %s\n" % note)
    print("gpu-probe: wrote %s (%s, clocks %s)" % (a.output, prof["device"]["name"], prof["clocks"]))
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except BrokenPipeError:  # the output's reader went away (| head): stop quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(1)
