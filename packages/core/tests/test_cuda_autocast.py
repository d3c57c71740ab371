"""CUDA autocast (``ember.autocast("cuda")``): PyTorch's CUDA op lists on a GPU -- float16 (or
bfloat16) for GEMMs and convolutions, float32 for the ops on its fp32 list (exp, softmax, sums,
norms, losses), the widest type for its promote list, binary_cross_entropy refused; only tensors
on the GPU are cast, and CPU autocast leaves GPU tensors alone. Run by the GPU script; skipped
without a GPU and a CUDA build."""

from __future__ import annotations

import ember
import pytest

pytestmark = pytest.mark.skipif(not ember.cuda.is_available(), reason="needs a GPU and a CUDA build of ember")


def randn(*shape: int, dtype: ember.dtype = ember.float32) -> ember.Tensor:
    return ember.randn(*shape, generator=ember.Generator().manual_seed(0)).to("cuda", dtype)


def test_lists_on_the_device() -> None:
    a, h = randn(8, 8), randn(8, 8, dtype=ember.float16)
    img, w = randn(2, 3, 8, 8), randn(4, 3, 3, 3)
    with ember.autocast("cuda"):
        assert ember.is_autocast_enabled("cuda") and not ember.is_autocast_enabled("cpu")
        lower = [a @ a, ember.mm(a, a), ember.matmul(a, a), ember.bmm(a[None], a[None]), ember.addmm(a, a, a),
                 ember.conv2d(img, w), ember.baddbmm(a[None], a[None], a[None])]
        assert [t.dtype for t in lower] == [ember.float16] * len(lower)
        fp32 = [h.exp(), ember.exp(h), ember.softmax(h, 0), ember.log_softmax(h, 1), h.sum(), h.sum(0),
                ember.cumsum(h, 0), ember.layer_norm(h, [8]), h.pow(2), ember.logsumexp(h, 1), ember.prod(h), h.log1p()]
        assert [t.dtype for t in fp32] == [ember.float32] * len(fp32)
        assert ember.addcmul(a, h, h).dtype == ember.float32  # promote: the widest
        assert ember.addcmul(h, h, h).dtype == ember.float16
        assert ember.cat([h, a]).dtype == ember.float32  # not autocast: ordinary promotion
        assert (h + h).dtype == ember.float16 and ember.relu(h).dtype == ember.float16
        cpu = ember.ones(4, 4)
        assert (cpu @ cpu).dtype == ember.float32  # CPU tensors: CUDA autocast leaves them
    assert (a @ a).dtype == ember.float32 and not ember.is_autocast_enabled("cuda")
    with ember.autocast("cpu"):
        assert (a @ a).dtype == ember.float32  # CPU autocast leaves GPU tensors alone
    with ember.autocast("cuda", dtype=ember.bfloat16):
        assert (a @ a).dtype == ember.bfloat16 and ember.get_autocast_dtype("cuda") == ember.bfloat16
    assert ember.get_autocast_dtype("cuda") == ember.float16


def test_nesting_disabled_regions_and_the_legacy_spellings() -> None:
    a = randn(4, 4)
    with ember.autocast("cuda"):
        with ember.autocast("cuda", enabled=False):
            assert (a @ a).dtype == ember.float32
        assert (a @ a).dtype == ember.float16
    with ember.cuda.amp.autocast():
        assert (a @ a).dtype == ember.float16
    ember.set_autocast_enabled(True)  # the one-argument legacy form: CUDA
    try:
        assert ember.is_autocast_enabled() and (a @ a).dtype == ember.float16
    finally:
        ember.set_autocast_enabled(False)
    assert (a @ a).dtype == ember.float32


def test_nn_functional_ops() -> None:
    F = pytest.importorskip("ember.nn.functional")
    x, y = randn(6, 5), randn(6, 5)
    target = ember.tensor([0, 1, 2, 3, 4, 0], device="cuda")
    with ember.autocast("cuda"):
        logits = F.linear(x, randn(5, 5), randn(5))
        assert logits.dtype == ember.float16
        assert F.cross_entropy(logits, target).dtype == ember.float32
        assert F.mse_loss(logits, y).dtype == ember.float32
        assert F.softmax(logits, -1).dtype == ember.float32
        assert F.layer_norm(logits, [5]).dtype == ember.float32
        assert F.gelu(logits).dtype == ember.float16
        assert F.binary_cross_entropy_with_logits(logits, y.sigmoid()).dtype == ember.float32
        with pytest.raises(RuntimeError, match="binary_cross_entropy and torch.nn.BCELoss are unsafe to autocast"):
            F.binary_cross_entropy(logits.sigmoid(), y.sigmoid())
        q = randn(2, 2, 4, 8)
        assert F.scaled_dot_product_attention(q, q, q).dtype == ember.float16


def test_training_step_gradients_stay_float32() -> None:
    """Under autocast the parameters keep float32 and so do their gradients; the loss is close to
    the float32 one, and GradScaler steps an optimizer."""
    nn = pytest.importorskip("ember.nn")
    ember.manual_seed(0)
    model = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 4)).cuda()
    x, t = randn(8, 16), ember.tensor([0, 1, 2, 3, 0, 1, 2, 3], device="cuda")
    ref = nn.functional.cross_entropy(model(x), t)
    opt = ember.optim.SGD(model.parameters(), lr=0.1)
    scaler = ember.amp.GradScaler("cuda")
    with ember.autocast("cuda"):
        out = model(x)
        loss = nn.functional.cross_entropy(out, t)
    assert out.dtype == ember.float16 and loss.dtype == ember.float32
    assert abs(loss.item() - ref.item()) < 1e-2
    scaler.scale(loss).backward()
    for p in model.parameters():
        assert p.dtype == p.grad.dtype == ember.float32 and p.grad.device.type == "cuda"
    before = [p.detach().clone() for p in model.parameters()]
    scaler.step(opt)
    scaler.update()
    assert any(not bool((p.detach() == b).all()) for p, b in zip(model.parameters(), before, strict=True))


def test_recurrent_layers_run_in_float16() -> None:
    """nn.LSTM / GRU / RNN under CUDA autocast: float16 outputs (aten casts cuDNN's RNN inputs and
    weights), float32 parameter gradients."""
    nn = pytest.importorskip("ember.nn")
    for cls in (nn.LSTM, nn.GRU, nn.RNN):
        m = cls(8, 16, batch_first=True).cuda()
        with ember.autocast("cuda"):
            out, _ = m(randn(2, 5, 8))
        assert out.dtype == ember.float16, cls
        out.float().sum().backward()
        assert all(p.grad is not None and p.grad.dtype == ember.float32 for p in m.parameters()), cls
