"""nn modules on the meta device, side by side with PyTorch: every public module class is built on
meta (``device="meta"`` and ``with device("meta")``) and its parameters and buffers compared; its
forward runs on meta inputs (same result shapes, or the same exception type); and the modules with
state are materialised (``to_empty`` then ``reset_parameters`` / ``load_state_dict`` / ``assign=True``)
and must compute what PyTorch computes from the same state dict."""

from __future__ import annotations

import inspect
import warnings
from collections.abc import Callable
from typing import Any

import ember
import numpy as np
import pytest

torch = pytest.importorskip("torch")

# An input is a float shape (standard normal), ("p", shape) for values in (0.05, 0.95) (probabilities),
# or ("i", shape, high) for int64 indices in [0, high).
Inp = Any
# name -> (constructor args, constructor kwargs, forward inputs)
Spec = tuple[tuple[Any, ...], dict[str, Any], list[Inp]]

# Modules with parameters or buffers: construction, forward and materialisation are all compared.
STATEFUL: dict[str, Spec] = {
    "Linear": ((3, 4), {}, [(2, 3)]),
    "Bilinear": ((3, 5, 4), {}, [(2, 3), (2, 5)]),
    "LinearCrossEntropyLoss": ((4, 10), {"bias": True}, [(3, 4), ("i", (3,), 10)]),
    "Conv1d": ((2, 4, 3), {}, [(1, 2, 8)]),
    "Conv2d": ((2, 4, 3), {"padding": 1, "groups": 2}, [(1, 2, 8, 8)]),
    "Conv3d": ((2, 4, 3), {"bias": False}, [(1, 2, 5, 5, 5)]),
    "ConvTranspose1d": ((2, 4, 3), {}, [(1, 2, 8)]),
    "ConvTranspose2d": ((2, 4, 3), {"stride": 2}, [(1, 2, 5, 5)]),
    "ConvTranspose3d": ((2, 4, 3), {}, [(1, 2, 4, 4, 4)]),
    "BatchNorm1d": ((4,), {}, [(3, 4)]),
    "BatchNorm2d": ((4,), {"momentum": None}, [(2, 4, 3, 3)]),
    "BatchNorm3d": ((4,), {"track_running_stats": False}, [(2, 4, 2, 2, 2)]),
    "InstanceNorm1d": ((4,), {"affine": True, "track_running_stats": True}, [(2, 4, 5)]),
    "InstanceNorm2d": ((4,), {}, [(2, 4, 3, 3)]),
    "InstanceNorm3d": ((4,), {"affine": True}, [(2, 4, 2, 2, 2)]),
    "LayerNorm": ((5,), {}, [(2, 5)]),
    "GroupNorm": ((2, 4), {}, [(2, 4, 3)]),
    "RMSNorm": ((5,), {}, [(2, 5)]),
    "Embedding": ((10, 4), {"padding_idx": 0}, [("i", (2, 5), 10)]),
    "EmbeddingBag": ((10, 4), {"mode": "mean"}, [("i", (2, 5), 10)]),
    "RNN": ((3, 4), {"num_layers": 2}, [(5, 2, 3)]),
    "LSTM": ((3, 4), {"proj_size": 2, "bidirectional": True}, [(5, 2, 3)]),
    "GRU": ((3, 4), {"batch_first": True, "bias": False}, [(2, 5, 3)]),
    "RNNCell": ((3, 4), {"nonlinearity": "relu"}, [(2, 3)]),
    "LSTMCell": ((3, 4), {}, [(2, 3)]),
    "GRUCell": ((3, 4), {}, [(2, 3)]),
    "MultiheadAttention": ((8, 2), {"kdim": 6, "vdim": 5}, [(5, 2, 8), (4, 2, 6), (4, 2, 5)]),
    "TransformerEncoderLayer": ((8, 2), {"dim_feedforward": 16, "dropout": 0.0}, [(5, 2, 8)]),
    "TransformerDecoderLayer": ((8, 2), {"dim_feedforward": 16, "dropout": 0.0, "norm_first": True},
                                [(5, 2, 8), (4, 2, 8)]),
    "Transformer": ((), {"d_model": 8, "nhead": 2, "num_encoder_layers": 1, "num_decoder_layers": 1,
                         "dim_feedforward": 16, "dropout": 0.0}, [(5, 2, 8), (4, 2, 8)]),
    "PReLU": ((), {"num_parameters": 3}, [(2, 3)]),
    "AdaptiveLogSoftmaxWithLoss": ((8, 10, [4]), {}, [(3, 8), ("i", (3,), 10)]),
    "LazyLinear": ((4,), {}, [(2, 3)]),
    "LazyConv1d": ((4, 3), {}, [(1, 2, 8)]),
    "LazyConv2d": ((4, 3), {}, [(1, 2, 8, 8)]),
    "LazyConv3d": ((4, 3), {}, [(1, 2, 5, 5, 5)]),
    "LazyConvTranspose1d": ((4, 3), {}, [(1, 2, 8)]),
    "LazyConvTranspose2d": ((4, 3), {}, [(1, 2, 5, 5)]),
    "LazyConvTranspose3d": ((4, 3), {}, [(1, 2, 4, 4, 4)]),
    "LazyBatchNorm1d": ((), {}, [(3, 4)]),
    "LazyBatchNorm2d": ((), {}, [(2, 4, 3, 3)]),
    "LazyBatchNorm3d": ((), {}, [(2, 4, 2, 2, 2)]),
    "LazyInstanceNorm1d": ((), {"affine": True}, [(2, 4, 5)]),
    "LazyInstanceNorm2d": ((), {"track_running_stats": True}, [(2, 4, 3, 3)]),
    "LazyInstanceNorm3d": ((), {}, [(2, 4, 2, 2, 2)]),
}

_X = [(2, 3)]
_PAIR = [(3, 5), (3, 5)]
# Modules without state (no factory kwargs): their forward on meta inputs is compared.
STATELESS: dict[str, Spec] = {
    **{n: ((), {}, _X) for n in ("CELU", "ELU", "GELU", "Hardshrink", "Hardsigmoid", "Hardswish", "Hardtanh",
                                 "LeakyReLU", "LogSigmoid", "Mish", "ReLU", "ReLU6", "RReLU", "SELU", "SiLU",
                                 "Sigmoid", "Softplus", "Softshrink", "Softsign", "Tanh", "Tanhshrink", "Identity",
                                 "Dropout", "AlphaDropout", "Flatten")},
    "GLU": ((), {}, [(2, 4)]),
    "LogSoftmax": ((), {"dim": 1}, _X),
    "Softmax": ((), {"dim": 1}, _X),
    "Softmin": ((), {"dim": 1}, _X),
    "Softmax2d": ((), {}, [(1, 2, 3, 3)]),
    "Threshold": ((0.1, 20.0), {}, _X),
    "Dropout1d": ((), {}, [(2, 3, 4)]),
    "Dropout2d": ((), {}, [(2, 3, 4, 4)]),
    "Dropout3d": ((), {}, [(2, 3, 2, 2, 2)]),
    "FeatureAlphaDropout": ((), {}, [(2, 3, 4)]),
    "LocalResponseNorm": ((2,), {}, [(1, 4, 3, 3)]),
    "CrossMapLRN2d": ((3,), {}, [(1, 4, 3, 3)]),
    "AdaptiveAvgPool1d": ((2,), {}, [(1, 2, 6)]),
    "AdaptiveAvgPool2d": ((2,), {}, [(1, 2, 6, 6)]),
    "AdaptiveAvgPool3d": ((2,), {}, [(1, 2, 4, 4, 4)]),
    "AdaptiveMaxPool1d": ((2,), {"return_indices": True}, [(1, 2, 6)]),
    "AdaptiveMaxPool2d": ((2,), {}, [(1, 2, 6, 6)]),
    "AdaptiveMaxPool3d": ((2,), {}, [(1, 2, 4, 4, 4)]),
    "AvgPool1d": ((2,), {}, [(1, 2, 6)]),
    "AvgPool2d": ((2,), {"ceil_mode": True}, [(1, 2, 5, 5)]),
    "AvgPool3d": ((2,), {}, [(1, 2, 4, 4, 4)]),
    "MaxPool1d": ((2,), {}, [(1, 2, 6)]),
    "MaxPool2d": ((2,), {"return_indices": True}, [(1, 2, 6, 6)]),
    "MaxPool3d": ((2,), {}, [(1, 2, 4, 4, 4)]),
    "LPPool1d": ((2, 2), {}, [(1, 2, 6)]),
    "LPPool2d": ((2, 2), {}, [(1, 2, 6, 6)]),
    "LPPool3d": ((2, 2), {}, [(1, 2, 4, 4, 4)]),
    "FractionalMaxPool2d": ((2,), {"output_size": 3}, [(1, 2, 6, 6)]),
    "FractionalMaxPool3d": ((2,), {"output_ratio": 0.5, "return_indices": True}, [(1, 2, 6, 6, 6)]),
    "MaxUnpool1d": ((2,), {}, [(1, 2, 3), ("i", (1, 2, 3), 2)]),
    "MaxUnpool2d": ((2,), {}, [(1, 2, 3, 3), ("i", (1, 2, 3, 3), 2)]),
    "MaxUnpool3d": ((2,), {}, [(1, 2, 2, 2, 2), ("i", (1, 2, 2, 2, 2), 2)]),
    "CircularPad1d": ((1,), {}, [(1, 2, 4)]),
    "CircularPad2d": ((1,), {}, [(1, 2, 4, 4)]),
    "CircularPad3d": ((1,), {}, [(1, 2, 3, 3, 3)]),
    "ConstantPad1d": ((1, 0.5), {}, [(1, 2, 4)]),
    "ConstantPad2d": ((1, 0.5), {}, [(1, 2, 4, 4)]),
    "ConstantPad3d": ((1, 0.5), {}, [(1, 2, 3, 3, 3)]),
    "ReflectionPad1d": ((1,), {}, [(1, 2, 4)]),
    "ReflectionPad2d": ((1,), {}, [(1, 2, 4, 4)]),
    "ReflectionPad3d": ((1,), {}, [(1, 2, 3, 3, 3)]),
    "ReplicationPad1d": ((1,), {}, [(1, 2, 4)]),
    "ReplicationPad2d": ((1,), {}, [(1, 2, 4, 4)]),
    "ReplicationPad3d": ((1,), {}, [(1, 2, 3, 3, 3)]),
    "ZeroPad1d": ((1,), {}, [(1, 2, 4)]),
    "ZeroPad2d": ((1,), {}, [(1, 2, 4, 4)]),
    "ZeroPad3d": ((1,), {}, [(1, 2, 3, 3, 3)]),
    "ChannelShuffle": ((2,), {}, [(1, 4, 2, 2)]),
    "Unflatten": ((1, (2, 2)), {}, [(3, 4)]),
    "Fold": ((), {"output_size": (4, 4), "kernel_size": 2}, [(1, 8, 9)]),
    "Unfold": ((), {"kernel_size": 2}, [(1, 2, 4, 4)]),
    "PixelShuffle": ((2,), {}, [(1, 4, 2, 2)]),
    "PixelUnshuffle": ((2,), {}, [(1, 1, 4, 4)]),
    "Upsample": ((), {"scale_factor": 2, "mode": "bilinear"}, [(1, 2, 3, 3)]),
    "UpsamplingBilinear2d": ((), {"scale_factor": 2}, [(1, 2, 3, 3)]),
    "UpsamplingNearest2d": ((), {"size": 5}, [(1, 2, 3, 3)]),
    "CosineSimilarity": ((), {}, _PAIR),
    "PairwiseDistance": ((), {}, _PAIR),
    "BCELoss": ((), {}, [("p", (3, 5)), ("p", (3, 5))]),
    "BCEWithLogitsLoss": ((), {}, [(3, 5), ("p", (3, 5))]),
    "CTCLoss": ((), {}, [(6, 2, 4), ("i", (2, 3), 3), ("i", (2,), 1), ("i", (2,), 1)]),
    "CosineEmbeddingLoss": ((), {}, [(3, 5), (3, 5), (3,)]),
    "CrossEntropyLoss": ((), {"label_smoothing": 0.1}, [(3, 5), ("i", (3,), 5)]),
    "GaussianNLLLoss": ((), {}, [(3, 5), (3, 5), ("p", (3, 5))]),
    "HingeEmbeddingLoss": ((), {}, _PAIR),
    "HuberLoss": ((), {}, _PAIR),
    "KLDivLoss": ((), {"reduction": "batchmean"}, _PAIR),
    "L1Loss": ((), {}, _PAIR),
    "MSELoss": ((), {"reduction": "none"}, _PAIR),
    "MarginRankingLoss": ((), {}, [(3,), (3,), (3,)]),
    "MultiLabelMarginLoss": ((), {}, [(3, 5), ("i", (3, 5), 5)]),
    "MultiLabelSoftMarginLoss": ((), {}, _PAIR),
    "MultiMarginLoss": ((), {}, [(3, 5), ("i", (3,), 5)]),
    "NLLLoss": ((), {}, [(3, 5), ("i", (3,), 5)]),
    "NLLLoss2d": ((), {}, [(1, 3, 2, 2), ("i", (1, 2, 2), 3)]),
    "PoissonNLLLoss": ((), {}, _PAIR),
    "SmoothL1Loss": ((), {}, _PAIR),
    "SoftMarginLoss": ((), {}, _PAIR),
    "TripletMarginLoss": ((), {}, [(3, 5), (3, 5), (3, 5)]),
    "TripletMarginWithDistanceLoss": ((), {}, [(3, 5), (3, 5), (3, 5)]),
}

# Public classes covered elsewhere: containers, stacks of a given layer and base classes (built with
# their contents in test_meta_modules_workflows.py), DataParallel (a wrapper with nothing of its own)
# and SyncBatchNorm (PyTorch's, absent from ember).
NOT_BUILT_HERE = {"Module", "Container", "Sequential", "ModuleList", "ModuleDict", "ParameterList", "ParameterDict",
                  "TransformerEncoder", "TransformerDecoder", "RNNBase", "RNNCellBase", "DataParallel",
                  "SyncBatchNorm"}


def test_every_public_module_class_is_covered() -> None:
    """A module class added to ember.nn without a row here fails this, so the sweep stays complete."""
    public = {n for n, v in vars(ember.nn).items() if inspect.isclass(v) and issubclass(v, ember.nn.Module)}
    assert public - set(STATEFUL) - set(STATELESS) - NOT_BUILT_HERE == set()
    assert not set(STATEFUL) & set(STATELESS)


def _inputs(L: Any, specs: list[Inp], device: str, seed: int = 0) -> list[Any]:
    """The same values on both libraries (drawn by numpy), on ``device``."""
    rng = np.random.default_rng(seed)
    out = []
    for s in specs:
        if isinstance(s, tuple) and s and s[0] == "i":
            a = rng.integers(0, s[2], size=s[1]).astype(np.int64)
        elif isinstance(s, tuple) and s and s[0] == "p":
            a = rng.uniform(0.05, 0.95, size=s[1]).astype(np.float32)
        else:
            a = rng.standard_normal(size=s).astype(np.float32)
        out.append(L.from_numpy(a).to(device))
    return out


def _describe(r: Any) -> Any:
    """A result without its values: (device, shape, dtype, requires_grad) for every tensor in it."""
    if isinstance(r, (tuple, list)):
        return [_describe(x) for x in r]
    if hasattr(r, "shape") and hasattr(r, "device"):
        return str(r.device), tuple(r.shape), str(r.dtype).replace("ember.", "torch."), r.requires_grad
    if hasattr(r, "output") and hasattr(r, "loss"):  # AdaptiveLogSoftmaxWithLoss's named tuple
        return [_describe(r.output), _describe(r.loss)]
    return repr(r).replace("ember", "torch")


def _state(m: Any) -> list[tuple[Any, ...]]:
    """What a module holds, without values: kind, name, shape, dtype, device, requires_grad, class."""
    rows = [("param", n, p) for n, p in m.named_parameters()] + [("buffer", n, b) for n, b in m.named_buffers()]
    return [(kind, n, tuple(t.shape) if not _uninitialized(t) else "uninitialized",
             str(t.dtype).replace("ember.", "torch."), str(t.device), t.requires_grad, type(t).__name__)
            for kind, n, t in rows]


def _uninitialized(t: Any) -> bool:
    return type(t).__name__.startswith("Uninitialized")


def _quietly(fn: Callable[[], Any]) -> Any:
    """fn()'s result, or the type of what it raised; warnings (compared elsewhere) are silenced."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return fn()
        except Exception as e:  # noqa: BLE001 -- the exception's type is the outcome compared
            return ("raises", type(e).__name__)


ALL = {**STATEFUL, **STATELESS}


def _factory(name: str) -> bool:
    """Whether the class takes device= / dtype= (the modules with state, and a few losses)."""
    return "device" in inspect.signature(getattr(torch.nn, name).__init__).parameters


@pytest.mark.parametrize("how", ["device_kwarg", "device_context", "default_device"])
@pytest.mark.parametrize("name", sorted(STATEFUL))
def test_build_on_meta_matches_torch(name: str, how: str) -> None:
    args, kwargs, _ = STATEFUL[name]

    def build(L: Any) -> Any:
        cls = getattr(L.nn, name)
        if how == "device_kwarg":
            return _state(cls(*args, **kwargs, device="meta"))
        if how == "device_context":
            with L.device("meta"):
                return _state(cls(*args, **kwargs))
        L.set_default_device("meta")
        try:
            return _state(cls(*args, **kwargs))
        finally:
            L.set_default_device(None)

    assert _quietly(lambda: build(ember)) == _quietly(lambda: build(torch))


@pytest.mark.parametrize("name", sorted(n for n in STATEFUL if _factory(n)))
def test_build_on_meta_with_dtype_matches_torch(name: str) -> None:
    """dtype= reaches the floating parameters and buffers only (num_batches_tracked stays int64)."""
    args, kwargs, _ = STATEFUL[name]

    def build(L: Any) -> Any:
        return _state(getattr(L.nn, name)(*args, **kwargs, device="meta", dtype=L.float64))

    assert _quietly(lambda: build(ember)) == _quietly(lambda: build(torch))


# ember-core ops that still read memory on meta where PyTorch's meta kernel does not: each reported to
# the core owners; not strict, so the fix turns these into passes without editing this file.
@pytest.mark.parametrize("train", [True, False], ids=["train", "eval"])
@pytest.mark.parametrize("name", sorted(ALL))
def test_forward_on_meta_matches_torch(name: str, train: bool) -> None:
    """Built under device("meta") and called on meta inputs: the same result shapes, dtypes and
    devices (meta), or the same exception type where PyTorch has no meta path either."""
    args, kwargs, specs = ALL[name]

    def run(L: Any) -> Any:
        with L.device("meta"):
            m = getattr(L.nn, name)(*args, **kwargs)
        m.train(train)
        L.manual_seed(0)
        out = _describe(m(*_inputs(L, specs, "meta")))
        return out, _state(m), L.rand(2).tolist()  # forward on meta draws nothing from the CPU generator

    assert _quietly(lambda: run(ember)) == _quietly(lambda: run(torch))


def _source_state(name: str) -> dict[str, Any]:
    """A torch state dict for ``name`` whose values differ from any fresh init (running stats included)."""
    args, kwargs, specs = STATEFUL[name]
    torch.manual_seed(5)
    src = getattr(torch.nn, name)(*args, **kwargs)
    if name.startswith("Lazy"):
        src(*_inputs(torch, specs, "cpu"))
    sd = {k: v.detach().clone() for k, v in src.state_dict().items()}
    for v in sd.values():
        if v.is_floating_point():
            v.add_(0.1)
        elif v.dtype == torch.int64:
            v.add_(3)  # num_batches_tracked
    return sd


def _copy_state(L: Any, sd: dict[str, Any]) -> dict[str, Any]:
    return {k: L.from_numpy(v.numpy().copy()) for k, v in sd.items()}


def _materialise(L: Any, name: str, how: str, train: bool, sd: dict[str, Any]) -> Any:
    """Build on meta (a lazy module first infers its shapes from meta inputs), bring it to the CPU
    by ``how``, run it on CPU inputs: its outputs, state values and what it holds."""
    args, kwargs, specs = STATEFUL[name]
    L.manual_seed(0)
    with L.device("meta"):
        m = getattr(L.nn, name)(*args, **kwargs)
    if name.startswith("Lazy"):
        m(*_inputs(L, specs, "meta"))
    if how == "assign":
        m.load_state_dict(sd, assign=True)
    else:
        m.to_empty(device="cpu")
        if how == "reset":
            L.manual_seed(1)  # the same draws on both sides, in PyTorch's order
            for sub in m.modules():
                reset = getattr(sub, "reset_parameters", None) or getattr(sub, "_reset_parameters", None)
                if reset is not None:
                    reset()
        else:
            m.load_state_dict(sd)
    m.train(train)
    out = m(*_inputs(L, specs, "cpu", seed=1))
    return out, m.state_dict(), _state(m)


def _values(r: Any) -> Any:
    if isinstance(r, dict):
        return {k: _values(v) for k, v in r.items()}
    if isinstance(r, (tuple, list)):
        return [_values(x) for x in r]
    if hasattr(r, "output") and hasattr(r, "loss"):
        return [_values(r.output), _values(r.loss)]
    if hasattr(r, "detach"):
        return r.detach().numpy().astype(np.float64)
    return r


def _assert_close(a: Any, b: Any, where: str = "") -> None:
    if isinstance(b, dict):
        assert list(a) == list(b), where
        for k in b:
            _assert_close(a[k], b[k], f"{where}.{k}")
    elif isinstance(b, list):
        assert len(a) == len(b), where
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            _assert_close(x, y, f"{where}[{i}]")
    elif isinstance(b, np.ndarray):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-5, err_msg=where)
    else:
        assert a == b, where


@pytest.mark.parametrize("train", [True, False], ids=["train", "eval"])
@pytest.mark.parametrize("how", ["reset", "load", "assign"])
@pytest.mark.parametrize("name", sorted(STATEFUL))
def test_materialise_then_run_matches_torch(name: str, how: str, train: bool) -> None:
    sd = _source_state(name)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the Transformer's nested-tensor notice
        e_out, e_sd, e_held = _materialise(ember, name, how, train, _copy_state(ember, sd))
        t_out, t_sd, t_held = _materialise(torch, name, how, train, {k: v.clone() for k, v in sd.items()})
    assert e_held == t_held
    assert all(row[4] == "cpu" for row in e_held)
    _assert_close(_values(e_out), _values(t_out), "output")
    _assert_close(_values(e_sd), _values(t_sd), "state_dict")


def _load_into_meta(L: Any, assign: bool) -> Any:
    """load_state_dict into a meta module: without assign the copy does nothing and warns, per entry."""
    m = L.nn.BatchNorm1d(2, device="meta")
    sd = {"weight": L.ones(2), "bias": L.zeros(2), "running_mean": L.zeros(2), "running_var": L.ones(2),
          "num_batches_tracked": L.tensor(4)}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = m.load_state_dict(sd, assign=assign)
    messages = [f"{w.category.__name__}: {w.message}" for w in caught]
    return repr(result), _state(m), messages


@pytest.mark.parametrize("assign", [False, True], ids=["copy", "assign"])
def test_load_state_dict_into_meta_warns_as_torch(assign: bool) -> None:
    e, t = _load_into_meta(ember, assign), _load_into_meta(torch, assign)
    assert e == t
    assert bool(e[2]) is not assign  # the warning only without assign


def _load_meta_state(L: Any, assign: bool) -> Any:
    """The other way round: a CPU module loading a meta state dict."""
    m = L.nn.Linear(3, 2)
    try:
        m.load_state_dict(L.nn.Linear(3, 2, device="meta").state_dict(), assign=assign)
    except Exception as e:  # noqa: BLE001 -- the error's type and first line are compared
        return type(e).__name__, str(e).replace("ember", "torch").splitlines()[:3]
    return _state(m)


@pytest.mark.parametrize("assign", [False, True], ids=["copy", "assign"])
def test_load_meta_state_dict_into_cpu_module_matches_torch(assign: bool) -> None:
    assert _load_meta_state(ember, assign) == _load_meta_state(torch, assign)
