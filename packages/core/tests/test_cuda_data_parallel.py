"""nn.DataParallel over two GPUs: outputs, gradients and SGD steps equal to the same module run
on one device; inputs of every structure, uneven batches, output devices, ``dim``, errors raised
in a replica, the functional pieces (replicate, scatter, gather, parallel_apply, data_parallel)
and ember.nn.parallel.comm. Run by the GPU script (and the CUDA emulator, which has two devices);
skipped elsewhere. The CPU behaviour is packages/nn/tests/test_data_parallel.py's."""

from __future__ import annotations

import copy
import importlib
import threading
import warnings
from collections import namedtuple
from typing import Any

import ember
import pytest

pytestmark = pytest.mark.skipif(not ember.cuda.is_available(), reason="needs a GPU and a CUDA build of ember")
nn = pytest.importorskip("ember.nn")
needs_two = pytest.mark.skipif(ember.cuda.device_count() < 2, reason="needs two GPUs")

D0, D1 = ember.device("cuda", 0), ember.device("cuda", 1)


def close(got: Any, want: Any, tol: float = 1e-5) -> None:
    assert got.shape == want.shape and got.dtype == want.dtype
    g, w = got.detach().cpu().double(), want.detach().cpu().double()
    scale = 1 + float(w.abs().max()) if w.numel() else 1.0
    assert float((g - w).abs().max()) <= tol * scale if w.numel() else True


def mlp() -> Any:
    ember.manual_seed(0)
    return nn.Sequential(nn.Linear(5, 16), nn.Tanh(), nn.Linear(16, 16), nn.ReLU(), nn.Linear(16, 3))


def cnn() -> Any:
    ember.manual_seed(1)
    return nn.Sequential(nn.Conv2d(3, 4, 3, padding=1), nn.BatchNorm2d(4), nn.ReLU(), nn.MaxPool2d(2),
                         nn.Flatten(), nn.Linear(4 * 3 * 3, 5))


def twin(make: Any) -> tuple[Any, Any]:
    """The module on cuda:0 and an identical copy on cuda:0 to run without DataParallel."""
    m = make().to(D0)
    return m, copy.deepcopy(m)


def grads(m: Any) -> list[Any]:
    return [p.grad for p in m.parameters()]


# ---- the wrapper ------------------------------------------------------------------------------

@needs_two
def test_defaults() -> None:
    dp = nn.DataParallel(nn.Linear(2, 2).to(D0))
    assert dp.device_ids == list(range(ember.cuda.device_count()))
    assert dp.output_device == 0 and dp.dim == 0 and dp.src_device_obj == D0
    dp = nn.DataParallel(nn.Linear(2, 2), device_ids=["cuda:1", D0], output_device=D0, dim=1)
    assert dp.device_ids == [1, 0] and dp.output_device == 0 and dp.src_device_obj == D1
    assert list(dp.state_dict()) == ["module.weight", "module.bias"]


@needs_two
@pytest.mark.parametrize("on_cpu", [False, True], ids=["input-cuda0", "input-cpu"])
def test_mlp_forward_backward_equal_single_device(on_cpu: bool) -> None:
    m, ref = twin(mlp)
    x = ember.randn(10, 5)
    y = nn.DataParallel(m)(x if on_cpu else x.to(D0))
    want = ref(x.to(D0))
    assert y.device == D0
    close(y, want)
    w = ember.randn(10, 3).to(D0)
    (y * w).sum().backward()
    (want * w).sum().backward()
    for g, gw in zip(grads(m), grads(ref), strict=True):
        assert g.device == D0
        close(g, gw)


@needs_two
def test_mlp_sgd_steps_match_single_device() -> None:
    optim = pytest.importorskip("ember.optim")
    m, ref = twin(mlp)
    dp = nn.DataParallel(m)
    opt, opt_ref = optim.SGD(m.parameters(), lr=0.1, momentum=0.9), optim.SGD(ref.parameters(), lr=0.1, momentum=0.9)
    g = ember.Generator().manual_seed(5)
    for _ in range(4):
        x, t = ember.randn(12, 5, generator=g).to(D0), ember.randn(12, 3, generator=g).to(D0)
        for model, o in ((dp, opt), (ref, opt_ref)):
            o.zero_grad()
            loss = nn.functional.mse_loss(model(x), t)
            loss.backward()
            o.step()
    for p, q in zip(m.parameters(), ref.parameters(), strict=True):
        close(p, q, 1e-4)


@needs_two
def test_cnn_batchnorm_train_matches_per_chunk_runs() -> None:
    """Each replica normalises with its own chunk's statistics; only the first device's replica
    updates the original running statistics (the other updates are lost, as in PyTorch)."""
    m, ref = twin(cnn)
    x = ember.randn(6, 3, 6, 6).to(D0)
    y = nn.DataParallel(m)(x)
    chunk0 = ref(x[:3])
    stats = (ref[1].running_mean.clone(), ref[1].running_var.clone())
    want = ember.cat([chunk0, copy.deepcopy(ref)(x[3:])])
    close(y, want)
    close(m[1].running_mean, stats[0])
    close(m[1].running_var, stats[1])
    assert int(m[1].num_batches_tracked) == 1
    w = ember.randn(6, 5).to(D0)
    (y * w).sum().backward()
    ref2 = copy.deepcopy(twin(cnn)[0])  # fresh weights equal to m's before the step: grads of both chunks
    (ref2(x[:3]) * w[:3]).sum().backward()
    (ref2(x[3:]) * w[3:]).sum().backward()
    for g, gw in zip(grads(m), grads(ref2), strict=True):
        close(g, gw, 1e-4)


@needs_two
def test_cnn_eval_equals_full_batch() -> None:
    m, ref = twin(cnn)
    m.eval()
    ref.eval()
    x = ember.randn(5, 3, 6, 6).to(D0)
    y = nn.DataParallel(m)(x)
    close(y, ref(x))
    y.sum().backward()
    ref(x).sum().backward()
    for g, gw in zip(grads(m), grads(ref), strict=True):
        close(g, gw, 1e-4)


class Structured(nn.Module):
    """Takes a tensor, a tuple, a dict and keyword arguments; returns a dict with a named tuple."""

    Out = namedtuple("Out", ["a", "b"])

    def __init__(self) -> None:
        super().__init__()
        self.lin = nn.Linear(4, 4)

    def forward(self, x: Any, pair: Any, table: Any, *, scale: float = 1.0, bias: Any = None, tag: str = "") -> Any:
        assert isinstance(pair, tuple) and isinstance(table, dict) and tag == "t"
        h = self.lin(x) * scale + pair[0] * pair[1] + table["k"][0]
        if bias is not None:
            h = h + bias
        return {"h": h, "nt": self.Out(h.sum(1, keepdim=True), [x * 2, None]), "none": None}


@needs_two
def test_kwargs_and_nested_structures() -> None:
    m, ref = twin(Structured)
    g = ember.Generator().manual_seed(2)
    x, a, b, k, bias = (ember.randn(6, 4, generator=g).to(D0) for _ in range(5))
    kwargs = {"scale": 0.5, "bias": bias, "tag": "t"}
    out = nn.DataParallel(m)(x, (a, b), {"k": [k, "ignored"]}, **kwargs)
    want = ref(x, (a, b), {"k": [k, "ignored"]}, **kwargs)
    assert set(out) == {"h", "nt", "none"} and out["none"] is None
    assert isinstance(out["nt"], Structured.Out) and isinstance(out["nt"].b, list) and out["nt"].b[1] is None
    close(out["h"], want["h"])
    close(out["nt"].a, want["nt"].a)
    close(out["nt"].b[0], want["nt"].b[0])
    (out["h"].sum() + out["nt"].a.sum()).backward()
    (want["h"].sum() + want["nt"].a.sum()).backward()
    for g1, g2 in zip(grads(m), grads(ref), strict=True):
        close(g1, g2)


@needs_two
def test_parameter_unused_by_a_replica() -> None:
    """A parameter one replica skips gets that replica's share as zeros; one no replica uses gets a
    zero gradient (PyTorch's broadcast backward fills the missing gradients with zeros)."""

    class Partly(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.lin = nn.Linear(3, 3)
            self.only_first = nn.Parameter(ember.ones(3))
            self.unused = nn.Parameter(ember.ones(3))

        def forward(self, x: Any) -> Any:
            y = self.lin(x)
            return y * self.only_first if x.get_device() == 0 else y

    m = Partly().to(D0)
    x = ember.randn(4, 3).to(D0)
    nn.DataParallel(m)(x).sum().backward()
    want = m.lin(x[:2]).sum(0)
    close(m.only_first.grad, want.detach())
    assert m.unused.grad is not None and m.unused.grad.device == D0 and m.unused.grad.abs().sum().item() == 0


@needs_two
@pytest.mark.parametrize("batch", [1, 3, 5])
def test_uneven_batches(batch: int) -> None:
    m, ref = twin(mlp)
    calls: list[int] = []
    m.register_forward_pre_hook(lambda mod, args: calls.append(args[0].get_device()))
    x = ember.randn(batch, 5).to(D0)
    y = nn.DataParallel(m)(x)
    assert sorted(calls) == ([0] if batch == 1 else [0, 1])  # a batch of one uses only the first device
    close(y, ref(x))
    y.sum().backward()
    ref(x).sum().backward()
    for g, gw in zip(grads(m), grads(ref), strict=True):
        close(g, gw)


@needs_two
def test_output_device_1() -> None:
    m, ref = twin(mlp)
    x = ember.randn(4, 5).to(D0)
    y = nn.DataParallel(m, output_device=1)(x)
    assert y.device == D1
    close(y, ref(x))
    y.sum().backward()
    ref(x).sum().backward()
    for g, gw in zip(grads(m), grads(ref), strict=True):
        assert g.device == D0
        close(g, gw)


@needs_two
def test_output_device_cpu() -> None:
    m, ref = twin(mlp)
    x = ember.randn(4, 5)
    with pytest.warns(FutureWarning, match="Using -1 to represent CPU tensor is deprecated"):
        y = nn.DataParallel(m, output_device=-1)(x)
    assert y.device.type == "cpu"
    close(y, ref(x.to(D0)))
    y.sum().backward()
    ref(x.to(D0)).sum().backward()
    for g, gw in zip(grads(m), grads(ref), strict=True):
        close(g, gw)


@needs_two
def test_dim_1() -> None:
    class Cols(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.w = nn.Parameter(ember.randn(3, 1))

        def forward(self, x: Any) -> Any:  # x: (3, batch) split along dim 1
            return ember.tanh(x * self.w)

    ember.manual_seed(3)
    m = Cols().to(D0)
    ref = copy.deepcopy(m)
    x = ember.randn(3, 7).to(D0)
    y = nn.DataParallel(m, dim=1)(x)
    close(y, ref(x))
    y.sum().backward()
    ref(x).sum().backward()
    close(m.w.grad, ref.w.grad)


@needs_two
def test_exception_in_a_replica() -> None:
    class Fails(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.lin = nn.Linear(2, 2)

        def forward(self, x: Any) -> Any:
            if x.get_device() == 1:
                raise ValueError("bad chunk")
            return self.lin(x)

    with pytest.raises(ValueError) as info:
        nn.DataParallel(Fails().to(D0))(ember.randn(4, 2))
    msg = str(info.value)
    assert msg.startswith("Caught ValueError in replica 1 on device 1.\nOriginal Traceback (most recent call last):")
    assert msg.rstrip().endswith("ValueError: bad chunk")


@needs_two
def test_wrong_device_error() -> None:
    with pytest.raises(RuntimeError) as info:
        nn.DataParallel(nn.Linear(2, 2))(ember.randn(4, 2))
    assert str(info.value) == ("module must have its parameters and buffers on device cuda:0 (device_ids[0]) but "
                               "found one of them on device: cpu")
    m = nn.BatchNorm1d(2).to(D0)
    m.running_mean = m.running_mean.to(D1)
    with pytest.raises(RuntimeError, match="found one of them on device: cuda:1"):
        nn.DataParallel(m)(ember.randn(4, 2))
    with pytest.raises(RuntimeError, match=r"on device cuda:1 \(device_ids\[0\]\)"):
        nn.DataParallel(nn.Linear(2, 2).to(D0), device_ids=[1, 0])(ember.randn(4, 2))


@needs_two
def test_scalar_output_unsqueezed_with_warning() -> None:
    m, ref = twin(mlp)

    class Loss(nn.Module):
        def __init__(self, inner: Any) -> None:
            super().__init__()
            self.inner = inner

        def forward(self, x: Any) -> Any:
            return self.inner(x).sum()

    x = ember.randn(6, 5).to(D0)
    with pytest.warns(UserWarning, match="all input tensors were scalars; will instead unsqueeze"):
        y = nn.DataParallel(Loss(m))(x)
    assert y.shape == (2,) and y.device == D0
    close(y, ember.stack([ref(x[:3]).sum(), ref(x[3:]).sum()]))
    y.sum().backward()
    ref(x).sum().backward()
    for g, gw in zip(grads(m), grads(ref), strict=True):
        close(g, gw)


@needs_two
def test_no_grad_forward() -> None:
    m, ref = twin(cnn)
    x = ember.randn(4, 3, 6, 6).to(D0)
    with ember.no_grad():
        y = nn.DataParallel(m)(x)
        reps = nn.parallel.replicate(m, [0, 1], detach=True)
    assert not y.requires_grad and y.grad_fn is None
    want = ember.cat([ref(x[:2]), copy.deepcopy(ref)(x[2:])]).detach()
    close(y, want)
    assert all(p.grad is None for p in m.parameters())
    # detached replicas: the first one holds the original parameters, the second plain copies
    assert reps[0][0].weight is m[0].weight and not reps[1][0].weight.requires_grad


@needs_two
def test_threads_see_their_device_stream_and_grad_mode() -> None:
    seen: dict[int, Any] = {}
    lock = threading.Lock()

    class Probe(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.lin = nn.Linear(2, 2)

        def forward(self, x: Any) -> Any:
            with lock:
                seen[x.get_device()] = (ember.cuda.current_device(), ember.cuda.current_stream().cuda_stream,
                                        ember.is_grad_enabled(), threading.current_thread() is threading.main_thread())
            return self.lin(x)

    s1 = ember.cuda.Stream(1)
    m = Probe().to(D0)
    with ember.cuda.device(1):
        ember.cuda.set_stream(s1)
    try:
        with ember.no_grad():
            nn.DataParallel(m)(ember.randn(4, 2))
    finally:
        ember.cuda.set_stream(ember.cuda.default_stream(1))
    assert seen[0][:3] == (0, ember.cuda.current_stream(0).cuda_stream, False)
    assert seen[1][:3] == (1, s1.cuda_stream, False)
    assert not seen[0][3] and not seen[1][3]  # both replicas in their own threads


@needs_two
@pytest.mark.parametrize("enabled", [False, True])
def test_autocast_state_carried_into_threads(enabled: bool) -> None:
    seen: dict[int, bool] = {}

    class Probe(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.lin = nn.Linear(4, 3)

        def forward(self, x: Any) -> Any:
            seen[x.get_device()] = ember.is_autocast_enabled("cuda")
            return self.lin(x)

    m = Probe().to(D0)
    x = ember.randn(6, 4).to(D0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a build without CUDA autocast says it disables it
        with ember.autocast("cuda", enabled=enabled):
            caller = ember.is_autocast_enabled("cuda")
            y = nn.DataParallel(m)(x)
            want = m.lin(x)
    assert seen == {0: caller, 1: caller}
    assert y.dtype == want.dtype
    close(y.float(), want.float(), 1e-2)


@needs_two
def test_single_device_calls_module_directly() -> None:
    m = mlp()
    dp = nn.DataParallel(m, device_ids=[1])
    assert m[0].weight.device == D1  # moved by the constructor, as PyTorch does
    x = ember.randn(3, 5)
    y = dp(x)
    assert y.device == D1
    close(y, m(x.to(D1)))


@needs_two
def test_no_inputs_runs_once_on_first_device() -> None:
    class Const(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.p = nn.Parameter(ember.ones(2))

        def forward(self) -> Any:
            return self.p * 2

    y = nn.DataParallel(Const().to(D0))()
    assert y.device == D0 and y.tolist() == [2.0, 2.0]


@needs_two
def test_functional_data_parallel() -> None:
    m, ref = twin(Structured)
    x, a = ember.randn(6, 4).to(D0), ember.randn(6, 4).to(D0)
    kw = {"tag": "t", "scale": 2.0}
    out = nn.parallel.data_parallel(m, (x, (a, a), {"k": [a]}), device_ids=[0, 1], output_device=1, module_kwargs=kw)
    want = ref(x, (a, a), {"k": [a]}, **kw)
    assert out["h"].device == D1
    close(out["h"], want["h"])
    out["h"].sum().backward()
    want["h"].sum().backward()
    for g, gw in zip(grads(m), grads(ref), strict=True):
        close(g, gw)
    with pytest.raises(RuntimeError, match="module must have its parameters and buffers on device cuda:0"):
        nn.parallel.data_parallel(nn.Linear(2, 2), ember.ones(2, 2))
    y = nn.parallel.data_parallel(m.lin, x)  # a single tensor input, all devices
    close(y, ref.lin(x))


# ---- the pieces -------------------------------------------------------------------------------

@needs_two
def test_replicate_shares_first_device_and_copies_the_rest() -> None:
    m = cnn().to(D0)
    reps = nn.parallel.replicate(m, [0, 1])
    assert [type(r) for r in reps] == [nn.Sequential, nn.Sequential] and all(r._is_replica for r in reps)
    w0, w1 = reps[0][0].weight, reps[1][0].weight
    assert w0.device == D0 and w1.device == D1 and w0.requires_grad and w1.requires_grad
    assert w0.data_ptr() == m[0].weight.data_ptr() and w0.grad_fn is not None  # a differentiable alias
    assert list(reps[1].parameters()) == []  # non-leaf copies are attributes, not parameters
    assert reps[0][1].running_mean is m[1].running_mean and reps[1][1].running_mean.device == D1
    assert reps[0][1] is not m[1] and reps[0][1]._buffers is not m[1]._buffers
    close(reps[1][0].weight, m[0].weight)
    (w1.sum().to(D0) * 2 + w0.sum()).backward()
    close(m[0].weight.grad, ember.full_like(m[0].weight, 3.0))


@needs_two
def test_scatter_and_gather_are_differentiable() -> None:
    x = ember.randn(5, 3, requires_grad=True)  # on the CPU
    parts = nn.parallel.scatter(x, [0, 1])
    assert isinstance(parts, tuple) and [p.device for p in parts] == [D0, D1] and [len(p) for p in parts] == [3, 2]
    y = nn.parallel.gather([p * (i + 1) for i, p in enumerate(parts)], 0)
    assert y.device == D0
    with pytest.warns(FutureWarning, match="Using -1 to represent CPU"):  # the backward gathers onto the CPU
        y.sum().backward()
    assert x.grad.tolist() == [[1.0] * 3] * 3 + [[2.0] * 3] * 2
    # dim 1, tuples and dicts of tensors
    t = ember.arange(12.0).reshape(2, 6).to(D1)
    pieces = nn.parallel.scatter({"t": t, "n": 3, "l": [t]}, [0, 1], dim=1)
    assert [p["t"].device for p in pieces] == [D0, D1] and pieces[1]["n"] == 3
    assert [p["l"][0].device for p in pieces] == [D0, D1]
    back = nn.parallel.gather([{"t": p["t"], "l": p["l"]} for p in pieces], "cpu", dim=1)
    assert back["t"].tolist() == t.cpu().tolist() and back["l"][0].tolist() == t.cpu().tolist()
    with pytest.raises(TypeError):  # other objects are not gathered (as in PyTorch)
        nn.parallel.gather(pieces, "cpu", dim=1)


@needs_two
def test_parallel_apply_direct() -> None:
    m, ref = twin(mlp)
    reps = nn.parallel.replicate(m, [0, 1])
    xs = [ember.randn(2, 5).to(D0), ember.randn(3, 5).to(D1)]
    outs = nn.parallel.parallel_apply(reps, xs, None, [0, 1])
    assert [o.device for o in outs] == [D0, D1]
    close(outs[0], ref(xs[0]))
    close(outs[1].to(D0), ref(xs[1].to(D0)))
    # devices taken from the inputs' tensors when not given: the current device
    outs = nn.parallel.parallel_apply([ref], [(xs[0],)], [{}])
    close(outs[0], ref(xs[0]))


@needs_two
def test_comm() -> None:
    comm = importlib.import_module("ember.nn.parallel.comm")
    t = ember.arange(6.0).reshape(2, 3).to(D0)
    b = comm.broadcast(t, [0, 1])
    assert b[0] is t and b[1].device == D1 and b[1].tolist() == t.tolist()
    out = [ember.empty(2, 3, device=D1)]
    assert comm.broadcast(t, out=out)[0] is out[0] and out[0].tolist() == t.tolist()
    c = comm.broadcast_coalesced([t, t + 1], [0, 1])
    assert c[0][0] is t and [x.device for x in c[1]] == [D1, D1] and c[1][1].tolist() == (t + 1).tolist()
    with pytest.raises(RuntimeError, match=r"All tensors must be on devices\[0\]: 1"):
        comm.broadcast_coalesced([t], [1, 0])
    r = comm.reduce_add([t, b[1]], 1)
    assert r.device == D1 and r.tolist() == (t * 2).tolist()
    with pytest.raises(RuntimeError, match="destination to be on the same GPU"):
        comm.reduce_add([t, t], 1)
    rc = comm.reduce_add_coalesced([[t, t], [b[1], b[1]]], 0)
    assert [x.device for x in rc] == [D0, D0] and rc[1].tolist() == (t * 2).tolist()
    s = comm.scatter(t, [0, 1], chunk_sizes=[1, 2], dim=1)
    assert [x.shape for x in s] == [(2, 1), (2, 2)] and s[1].device == D1
    with pytest.raises(RuntimeError, match="Expected devices and chunk_sizes to be of same length"):
        comm.scatter(t, [0, 1], chunk_sizes=[3])
    g = comm.gather(s, dim=1, destination="cpu")
    assert g.device.type == "cpu" and g.tolist() == t.cpu().tolist()
    assert comm.gather(s, dim=1).device == D0  # the current device
    with pytest.raises(RuntimeError, match="Input tensor at index 1 has invalid shape"):
        comm.gather(s, dim=0)
    with pytest.raises(RuntimeError, match="Expected all input tensors to be CUDA tensors"):
        comm.gather([t, t.cpu()])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        comm.gather([t], destination=1)
