"""softmax / log_softmax and nll_loss / cross_entropy on a GPU (issue 24), forward and backward,
compared with the same calls on the CPU. Run by the GPU script (tools/gpu_check.sh, which puts
ember-nn on the path) with a CUDA build; skipped elsewhere."""

from __future__ import annotations

import math
from typing import Any

import ember
import pytest

pytestmark = pytest.mark.skipif(not ember.cuda.is_available(), reason="needs a GPU and a CUDA build of ember")

TOL = {ember.float32: 1e-5, ember.float64: 1e-12, ember.float16: 2e-3, ember.bfloat16: 1e-2}
DTYPES = list(TOL)


def check(got: ember.Tensor, want: ember.Tensor) -> None:
    """Within the dtype's tolerance of the tensor's scale: a half-precision output one rounding step
    apart (another summation order) moves a log_softmax gradient by that much of exp(output)."""
    assert got.device.type == "cuda" and got.dtype == want.dtype and got.shape == want.shape
    g, w = got.cpu().double(), want.double()
    scale = 1 + float(w.abs().max()) if w.numel() else 1.0
    assert bool((((g - w).abs() <= TOL[want.dtype] * scale) | (g == w)).all())


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("dim", [-1, 0, 1])
@pytest.mark.parametrize("log", [False, True])
def test_softmax_forward_and_backward(dtype: ember.dtype, dim: int, log: bool) -> None:
    g = ember.Generator().manual_seed(3)
    x = (ember.randn(7, 300, 5, generator=g) * 4).to(dtype)
    fn = ember.log_softmax if log else ember.softmax
    xc = x.clone().requires_grad_()
    xd = x.cuda().requires_grad_()
    yc, yd = fn(xc, dim), fn(xd, dim)
    check(yd, yc)
    w = ember.randn(7, 300, 5, generator=g).to(dtype)
    (yc * w).sum().backward()
    (yd * w.cuda()).sum().backward()
    assert xd.grad is not None and xc.grad is not None
    check(xd.grad, xc.grad)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("weighted", [False, True])
def test_cross_entropy_and_nll_loss(reduction: str, weighted: bool) -> None:
    F = pytest.importorskip("ember.nn.functional")
    g = ember.Generator().manual_seed(4)
    logits = ember.randn(64, 10, generator=g)
    target = ember.randint(0, 10, (64,), generator=g)
    target[3] = -100  # ignored
    weight = ember.rand(10, generator=g) + 0.5 if weighted else None
    lc = logits.clone().requires_grad_()
    ld = logits.cuda().requires_grad_()
    kw = {"reduction": reduction}
    yc = F.cross_entropy(lc, target, weight=weight, **kw)
    yd = F.cross_entropy(ld, target.cuda(), weight=None if weight is None else weight.cuda(), **kw)
    check(yd, yc)
    yc.sum().backward()
    yd.sum().backward()
    assert ld.grad is not None and lc.grad is not None
    check(ld.grad, lc.grad)
    check(F.nll_loss(ld.detach().log_softmax(1), target.cuda(), **kw), F.nll_loss(lc.detach().log_softmax(1), target, **kw))


def test_an_out_of_range_target_is_an_index_error() -> None:
    # the kernel checks the targets (the op does not wait for the device): the IndexError comes at
    # the next wait, as PyTorch's device-side assert does, and the device stays usable after it
    F = pytest.importorskip("ember.nn.functional")
    x = ember.zeros(2, 10).cuda().requires_grad_()
    loss = F.nll_loss(x, ember.tensor([1, 10]).cuda())
    with pytest.raises(IndexError, match="Target 10 is out of bounds"):
        loss.item()
    loss.backward()  # the bad row's gradient is not written: reported again at the next wait
    with pytest.raises(IndexError, match="Target 10 is out of bounds"):
        ember.cuda.synchronize()
    assert x.grad is not None and math.isnan(x.grad.cpu()[0, 1].item())  # the mean's divisor is nan: poisoned
    with pytest.raises(IndexError, match="Target -3 is out of bounds"):
        F.nll_loss(x, ember.tensor([1, -3]).cuda(), reduction="none").cpu()
    ember.cuda.synchronize()  # reported once
    assert F.nll_loss(x, ember.tensor([1, 2]).cuda()).item() == 0.0


OPTIMIZERS = {
    "sgd": ("SGD", {"lr": 0.1}),
    "sgd-nesterov-wd": ("SGD", {"lr": 0.1, "momentum": 0.9, "nesterov": True, "weight_decay": 1e-2}),
    "adam-amsgrad": ("Adam", {"lr": 1e-2, "amsgrad": True}),
    "adamw": ("AdamW", {"lr": 1e-2, "weight_decay": 0.1}),
}


@pytest.mark.parametrize("case", list(OPTIMIZERS))
def test_optimizer_steps_on_the_device(case: str) -> None:
    optim = pytest.importorskip("ember.optim")
    name, kw = OPTIMIZERS[case]
    g = ember.Generator().manual_seed(5)
    w = ember.randn(33, 17, generator=g)
    grads = [ember.randn(33, 17, generator=g) for _ in range(3)]
    pc, pd = w.clone().requires_grad_(), w.cuda().requires_grad_()
    oc, od = getattr(optim, name)([pc], **kw), getattr(optim, name)([pd], **kw)
    for gr in grads:
        pc.grad, pd.grad = gr.clone(), gr.cuda()
        oc.step()
        od.step()
    check(pd.detach(), pc.detach())


@pytest.mark.parametrize("kw", [{"lr": 1e-2}, {"lr": 1e-2, "amsgrad": True, "maximize": True, "weight_decay": 0.1}],
                         ids=["plain", "amsgrad-maximize-wd"])
def test_adam_steps_many_parameters_in_few_launches(kw: dict[str, Any]) -> None:
    # more parameters than one launch takes (24), some past a block's chunk (8192), an empty one,
    # both float dtypes, a later step count for some: each as its own CPU step
    optim = pytest.importorskip("ember.optim")
    g = ember.Generator().manual_seed(6)
    shapes = [(3,), (0,), (9000,), (130, 70)] + [(5, i + 1) for i in range(26)]
    ws = [ember.randn(*s, generator=g).to(ember.float64 if i % 7 == 3 else ember.float32) for i, s in enumerate(shapes)]
    pc = [w.clone().requires_grad_() for w in ws]
    pd = [w.cuda().requires_grad_() for w in ws]
    oc, od = optim.Adam(pc, **kw), optim.Adam(pd, **kw)
    for step in range(3):
        for i, (a, b) in enumerate(zip(pc, pd)):
            if step == 0 and i % 5 == 1:
                continue  # no gradient: skipped, its step count stays behind
            gr = ember.randn(*a.shape, generator=g).to(a.dtype)
            a.grad, b.grad = gr.clone(), gr.cuda()
        oc.step()
        od.step()
    for a, b in zip(pd, pc):
        check(a.detach(), b.detach())


def test_an_mlp_trains_the_same_on_the_device() -> None:
    nn = pytest.importorskip("ember.nn")
    F = pytest.importorskip("ember.nn.functional")
    ember.manual_seed(0)
    model = nn.Sequential(nn.Linear(20, 64), nn.ReLU(), nn.Linear(64, 5))
    twin = nn.Sequential(nn.Linear(20, 64), nn.ReLU(), nn.Linear(64, 5))
    twin.load_state_dict(model.state_dict())
    twin = twin.to("cuda")
    g = ember.Generator().manual_seed(6)
    x, y = ember.randn(128, 20, generator=g), ember.randint(0, 5, (128,), generator=g)
    losses = []
    for m, dev in ((model, "cpu"), (twin, "cuda")):
        opt = ember.optim.SGD(m.parameters(), lr=0.1, momentum=0.9)
        run = []
        for _ in range(30):
            opt.zero_grad()
            loss = F.cross_entropy(m(x.to(dev)), y.to(dev))
            loss.backward()
            opt.step()
            run.append(float(loss))
        losses.append(run)
    assert losses[1][-1] < losses[1][0]
    assert all(abs(a - b) <= 1e-4 * (1 + abs(a)) for a, b in zip(*losses)), losses
