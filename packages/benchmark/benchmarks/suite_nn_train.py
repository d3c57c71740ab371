"""The "nn-train" suite: the fused nn kernels (softmax, cross entropy, layer / batch norm,
embedding) forward + backward, and end-to-end training steps of an MLP and a transformer
encoder block, ember vs torch in the same process.

Peak memory of the two training loops is measured in fresh subprocesses:
``python suite_nn_train.py --rss`` prints ember's and torch's peak RSS (resource.getrusage).
"""

from __future__ import annotations

import importlib
import sys
from types import ModuleType
from typing import Any

from harness import Bench

TITLES = {
    "nn-kernels": "fused nn kernels, forward + backward (ratio = ember/torch time, lower is better)",
    "nn-train": "one training step end to end (ratio = ember/torch time, lower is better)",
}


def _nn(lib: ModuleType) -> ModuleType:
    return importlib.import_module(lib.__name__ + ".nn")


def _optim(lib: ModuleType) -> ModuleType:
    return importlib.import_module(lib.__name__ + ".optim")


def softmax_in(lib: ModuleType) -> dict[str, Any]:
    x = lib.randn(256, 1024).requires_grad_(True)
    return {"x": x, "g": lib.randn(256, 1024), "F": _nn(lib).functional}


def cross_entropy_in(lib: ModuleType) -> dict[str, Any]:
    return {"x": lib.randn(512, 1000).requires_grad_(True), "t": lib.randint(0, 1000, (512,)),
            "F": _nn(lib).functional}


def regression_in(lib: ModuleType) -> dict[str, Any]:
    """1024 x 1024 predictions (requiring grad) and targets: the pointwise regression losses."""
    return {"x": lib.randn(1024, 1024).requires_grad_(True), "y": lib.randn(1024, 1024), "F": _nn(lib).functional}


def nll_loss_in(lib: ModuleType) -> dict[str, Any]:
    """Log-probabilities (4096 rows of 1000 classes) with their targets, and their one-hot width."""
    x = _nn(lib).functional.log_softmax(lib.randn(4096, 1000), -1).requires_grad_(True)
    return {"x": x, "t": lib.randint(0, 1000, (4096,)), "F": _nn(lib).functional}


def layer_norm_in(lib: ModuleType) -> dict[str, Any]:
    nn = _nn(lib)
    return {"x": lib.randn(16 * 128, 256).requires_grad_(True), "m": nn.LayerNorm(256), "F": nn.functional}


def batch_norm_in(lib: ModuleType) -> dict[str, Any]:
    nn = _nn(lib)
    return {"x": lib.randn(32, 64, 28, 28).requires_grad_(True), "m": nn.BatchNorm2d(64)}


def group_norm_in(lib: ModuleType) -> dict[str, Any]:
    nn = _nn(lib)
    return {"x": lib.randn(8, 128, 32, 32).requires_grad_(True), "m": nn.GroupNorm(16, 128), "F": nn.functional}


def embedding_in(lib: ModuleType) -> dict[str, Any]:
    nn = _nn(lib)
    return {"i": lib.randint(0, 30000, (64, 128)), "m": nn.Embedding(30000, 256)}


def sdpa_in(lib: ModuleType) -> dict[str, Any]:
    """Attention of the transformer row's shape: batch 16, 4 heads, sequence 128, head size 64."""
    q, k, v = (lib.randn(16, 4, 128, 64).requires_grad_(True) for _ in range(3))
    return {"q": q, "k": k, "v": v, "F": _nn(lib).functional}


def _classifier_step(nn: ModuleType, model: Any, opt: Any, x: Any, y: Any) -> dict[str, Any]:
    """One zero_grad / cross-entropy backward / optimizer step on a fixed batch."""
    loss_fn = nn.CrossEntropyLoss()

    def step() -> None:
        opt.zero_grad()
        loss_fn(model(x), y).backward()
        opt.step()

    return {"step": step}


def mlp_step(lib: ModuleType) -> dict[str, Any]:
    """(a) MLP 784-512-512-10, batch 128, cross entropy, SGD."""
    nn, optim = _nn(lib), _optim(lib)
    lib.manual_seed(0)
    model = nn.Sequential(nn.Linear(784, 512), nn.ReLU(), nn.Linear(512, 512), nn.ReLU(), nn.Linear(512, 10))
    opt = optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    return _classifier_step(nn, model, opt, lib.randn(128, 784), lib.randint(0, 10, (128,)))


def mlp_autocast_step(lib: ModuleType) -> dict[str, Any]:
    """(a') the MLP step with forward and loss under ``autocast("cpu", dtype=bfloat16)`` (backward and
    the SGD step outside, as PyTorch's AMP recipe): compare with row (a) for the cost of mixed precision."""
    nn, optim = _nn(lib), _optim(lib)
    lib.manual_seed(0)
    model = nn.Sequential(nn.Linear(784, 512), nn.ReLU(), nn.Linear(512, 512), nn.ReLU(), nn.Linear(512, 10))
    opt = optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    loss_fn = nn.CrossEntropyLoss()
    x, y = lib.randn(128, 784), lib.randint(0, 10, (128,))

    def step() -> None:
        opt.zero_grad()
        with lib.autocast("cpu", dtype=lib.bfloat16):
            loss = loss_fn(model(x), y)
        loss.backward()
        opt.step()

    return {"step": step}


def cnn_step(lib: ModuleType) -> dict[str, Any]:
    """(b) small CNN: 2 conv (+ BatchNorm, ReLU, max pool) + 2 linear, 1x28x28, batch 64; Adam."""
    nn, optim = _nn(lib), _optim(lib)
    lib.manual_seed(0)
    model = nn.Sequential(
        nn.Conv2d(1, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(32, 64, 3, padding=1), nn.BatchNorm2d(64), nn.ReLU(), nn.MaxPool2d(2),
        nn.Flatten(), nn.Linear(64 * 7 * 7, 128), nn.ReLU(), nn.Linear(128, 10))
    opt = optim.Adam(model.parameters(), lr=1e-3)
    return _classifier_step(nn, model, opt, lib.randn(64, 1, 28, 28), lib.randint(0, 10, (64,)))


def transformer_step(lib: ModuleType) -> dict[str, Any]:
    """(c) TransformerEncoderLayer d=256, 4 heads, seq 128, batch 16, batch_first; AdamW."""
    nn, optim = _nn(lib), _optim(lib)
    lib.manual_seed(0)
    layer = nn.TransformerEncoderLayer(256, 4, dim_feedforward=1024, dropout=0.1, batch_first=True)
    opt = optim.AdamW(layer.parameters(), lr=1e-4)
    x = lib.randn(16, 128, 256)

    def step() -> None:
        opt.zero_grad()
        layer(x).square().mean().backward()
        opt.step()

    return {"step": step}


BENCHES: list[Bench] = [
    Bench("nn-kernels", "softmax 256x1024 fwd+bwd", "overhead", "F.softmax(x, -1).backward(g)", softmax_in,
          threads=1, target=1.0),
    Bench("nn-kernels", "log_softmax 256x1024 fwd+bwd", "overhead", "F.log_softmax(x, -1).backward(g)",
          softmax_in, threads=1, target=1.0),
    Bench("nn-kernels", "cross_entropy 512x1000 fwd+bwd", "overhead", "F.cross_entropy(x, t).backward()",
          cross_entropy_in, threads=1, target=1.0),
    Bench("nn-kernels", "nll_loss 4096x1000 fwd+bwd", "overhead", "F.nll_loss(x, t).backward()", nll_loss_in,
          threads=1),
    # aten's smooth_l1 / huber kernel pairs (ops/nn_loss.yaml, kernels/cpu/pointwise/loss_ops.h)
    Bench("nn-kernels", "smooth_l1_loss 1024x1024 fwd+bwd", "overhead", "F.smooth_l1_loss(x, y, beta=0.5).backward()",
          regression_in, threads=1, target=1.0),
    Bench("nn-kernels", "huber_loss 1024x1024 fwd+bwd", "overhead", "F.huber_loss(x, y, delta=0.5).backward()",
          regression_in, threads=1, target=1.0),
    Bench("nn-kernels", "mse_loss 1024x1024 fwd+bwd", "overhead", "F.mse_loss(x, y).backward()", regression_in,
          threads=1, target=1.0),
    Bench("nn-kernels", "one_hot 4096 of 1000", "overhead", "F.one_hot(t, 1000)", nll_loss_in, threads=1),
    Bench("nn-kernels", "layer_norm 2048x256 fwd+bwd", "overhead", "m(x).sum().backward()", layer_norm_in,
          threads=1, target=1.0),
    Bench("nn-kernels", "batch_norm2d 32x64x28x28 fwd+bwd", "overhead", "m(x).sum().backward()", batch_norm_in,
          threads=1, target=1.0),
    Bench("nn-kernels", "group_norm 8x128x32x32 (16 groups) fwd", "overhead", "m(x)", group_norm_in, threads=1,
          target=1.0),
    Bench("nn-kernels", "group_norm 8x128x32x32 (16 groups) fwd+bwd", "overhead", "m(x).sum().backward()",
          group_norm_in, threads=1, target=1.0),
    Bench("nn-kernels", "embedding 64x128 of 30000x256 fwd+bwd", "overhead", "m(i).sum().backward()",
          embedding_in, threads=1, target=1.0),
    Bench("nn-kernels", "scaled_dot_product_attention 16x4x128x64 fwd+bwd", "overhead",
          "F.scaled_dot_product_attention(q, k, v).sum().backward()", sdpa_in, threads=1, target=1.0),
    Bench("nn-kernels", "scaled_dot_product_attention causal 16x4x128x64 fwd+bwd", "overhead",
          "F.scaled_dot_product_attention(q, k, v, is_causal=True).sum().backward()", sdpa_in, threads=1,
          target=1.0),
    # one thread: the targets are per-core; threaded rows belong on an idle machine
    Bench("nn-train", "MLP 784-512-512-10 b128 SGD step", "overhead", "step()", mlp_step, threads=1, target=0.9),
    Bench("nn-train", "MLP 784-512-512-10 b128 SGD step autocast bf16", "overhead", "step()", mlp_autocast_step,
          threads=1, target=1.0),
    Bench("nn-train", "CNN 2conv+BN+2linear 28x28 b64 Adam step", "overhead", "step()", cnn_step, threads=1,
          target=1.0),
    Bench("nn-train", "TransformerEncoderLayer d256 h4 s128 b16 AdamW step", "overhead", "step()",
          transformer_step, threads=1, target=1.0),
]


# ------------------------------------------------------------------ peak RSS (d)

_RSS_CHILD = """
import importlib, resource, sys
sys.path.insert(0, {here!r})
lib = importlib.import_module({lib!r})
import suite_nn_train as s
step = s.{which}(lib)["step"]
for _ in range({n}):
    step()
print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
"""


def peak_rss_kib(lib: str, which: str, n: int = 20) -> int:
    """Peak RSS (KiB) of a fresh interpreter that imports ``lib`` and runs ``n`` training steps."""
    import os
    import subprocess

    here = os.path.dirname(os.path.abspath(__file__))
    code = _RSS_CHILD.format(here=here, lib=lib, which=which, n=n)
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True)
    return int(out.stdout.strip().splitlines()[-1])


if __name__ == "__main__" and "--rss" in sys.argv:
    for which in ("mlp_step", "transformer_step"):
        e, t = peak_rss_kib("ember", which), peak_rss_kib("torch", which)
        print(f"{which}: peak RSS ember {e / 1024:.1f} MiB, torch {t / 1024:.1f} MiB, ratio {e / t:.2f}")
