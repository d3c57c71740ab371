"""torch.nn.modules' import paths in ember: every file PyTorch has, the classes layers derive from
(the same subclass relations as PyTorch's), ember.nn.modules.utils and ember.utils.hooks."""

from __future__ import annotations

import importlib
import inspect
import pickle
import pkgutil
import warnings
from collections import OrderedDict
from typing import Any

import ember
import ember.nn as nn
import ember.utils.hooks
import pytest

# PyTorch's files whose (mostly private) helpers ember does not mirror
_SKIP_FILES = {"_functions", "linear_cross_entropy"}
# names of PyTorch's files that ember does not provide (private helpers, tracing internals)
_SKIP_NAMES = {"_check_arg_device", "_arg_requires_grad", "_is_make_fx_tracing", "sync_batch_norm",
               "_ConvTransposeMixin", "_LazyProtocol", "_AutoDefault", "_WrappedHook", "_has_any_global_hook",
               "_forward_unimplemented",
               "_cross_map_lrn2d", "_CircularPadNd", "_ReflectionPadNd", "_ReplicationPadNd", "_apply_permutation",
               "apply_permutation", "_generate_square_subsequent_mask", "_get_seq_len", "_get_clones",
               "_get_activation_fn", "_detect_is_causal_mask"}


def _torch_files(torch: Any) -> list[str]:
    return [m.name for m in pkgutil.iter_modules(torch.nn.modules.__path__) if m.name not in _SKIP_FILES]


def test_every_torch_modules_file_imports_with_its_classes(torch: Any) -> None:
    missing = []
    for name in _torch_files(torch):
        tm = importlib.import_module(f"torch.nn.modules.{name}")
        em = importlib.import_module(f"ember.nn.modules.{name}")
        for n, v in vars(tm).items():
            if (inspect.isclass(v) or inspect.isfunction(v)) and v.__module__.startswith("torch.nn.modules") \
                    and n not in _SKIP_NAMES and not hasattr(em, n):
                missing.append(f"{name}.{n}")
        for n in getattr(tm, "__all__", []):
            if n != "SyncBatchNorm" and n not in _SKIP_NAMES and not hasattr(em, n):
                missing.append(f"{name}.__all__:{n}")
    assert missing == []


@pytest.mark.parametrize("path", [
    "batchnorm._BatchNorm", "batchnorm._NormBase", "conv._ConvNd", "module.Module", "loss._Loss",
    "loss._WeightedLoss", "pooling._MaxPoolNd", "pooling._AvgPoolNd", "dropout._DropoutNd", "instancenorm._InstanceNorm",
    "rnn.RNNBase", "rnn.RNNCellBase", "lazy.LazyModuleMixin", "activation.MultiheadAttention", "normalization.LayerNorm",
    "container.Sequential", "linear.NonDynamicallyQuantizableLinear", "conv._ConvTransposeNd"])
def test_base_classes_are_the_ones_layers_derive_from(torch: Any, path: str) -> None:
    file, name = path.split(".")
    base = getattr(importlib.import_module(f"ember.nn.modules.{file}"), name)
    tbase = getattr(importlib.import_module(f"torch.nn.modules.{file}"), name)
    # the same public layers derive from it as in PyTorch
    got = sorted(n for n in torch.nn.modules.__all__ if n != "SyncBatchNorm" and issubclass(getattr(nn, n), base))
    want = sorted(n for n in torch.nn.modules.__all__ if n != "SyncBatchNorm" and issubclass(getattr(torch.nn, n), tbase))
    assert got == want


def test_public_subclass_relations_like_torch(torch: Any) -> None:
    names = [n for n in torch.nn.modules.__all__ if n != "SyncBatchNorm"]
    bad = [(a, b) for a in names for b in names
           if issubclass(getattr(nn, a), getattr(nn, b)) != issubclass(getattr(torch.nn, a), getattr(torch.nn, b))]
    assert bad == []


def test_common_import_forms() -> None:
    from ember.nn.modules import Linear, Module
    from ember.nn.modules.batchnorm import _BatchNorm, _NormBase
    from ember.nn.modules.dropout import _DropoutNd
    from ember.nn.modules.module import register_module_forward_hook

    assert Linear is nn.Linear and Module is nn.Module
    assert issubclass(nn.BatchNorm2d, _BatchNorm) and issubclass(_BatchNorm, _NormBase)
    assert issubclass(nn.InstanceNorm1d, _NormBase) and not issubclass(nn.InstanceNorm1d, _BatchNorm)
    assert issubclass(nn.Dropout2d, _DropoutNd) and not issubclass(nn.Dropout2d, nn.Dropout)
    assert callable(register_module_forward_hook)
    ns: dict[str, Any] = {}
    exec("from ember.nn.modules import *", ns)
    assert ns["Conv2d"] is nn.Conv2d and ns["CTCLoss"] is nn.CTCLoss


def test_reworked_hierarchies_keep_behaviour(torch: Any) -> None:
    for name, args in [("CELU", (0.5, True)), ("SiLU", (True,)), ("Hardshrink", (0.3,)), ("LogSoftmax", (1,)),
                       ("Softmin", (0,)), ("Dropout2d", (0.2,)), ("AlphaDropout", (0.1, True)),
                       ("InstanceNorm2d", (3,)), ("AvgPool3d", (2, 1, 1, True, False, 3))]:
        assert repr(getattr(nn, name)(*args)) == repr(getattr(torch.nn, name)(*args)), name
    x = ember.randn(1, 3, 4, 4)
    assert ember.allclose(nn.LogSoftmax(1)(x).exp().sum(1), ember.ones(1, 4, 4), atol=1e-5)
    assert set(nn.InstanceNorm2d(3, track_running_stats=True).state_dict()) == set(
        torch.nn.InstanceNorm2d(3, track_running_stats=True).state_dict())


def test_mha_out_proj_type(torch: Any) -> None:
    me, mt = nn.MultiheadAttention(4, 2), torch.nn.MultiheadAttention(4, 2)
    assert type(me.out_proj).__name__ == type(mt.out_proj).__name__ == "NonDynamicallyQuantizableLinear"
    assert type(me.out_proj) is ember.nn.modules.linear.NonDynamicallyQuantizableLinear
    assert repr(me) == repr(mt)


# ---------------------------------------------------------------- ember.nn.modules.utils


def test_ntuple_helpers_like_torch(torch: Any) -> None:
    from ember.nn.modules import utils as eu
    from torch.nn.modules import utils as tu

    for name in ("_single", "_pair", "_triple", "_quadruple"):
        for v in (3, (1, 2), [4, 5, 6]):
            assert getattr(eu, name)(v) == getattr(tu, name)(v)
        assert getattr(eu, name).__name__ == name
    assert eu._ntuple(2, "p")(7) == (7, 7)
    assert eu._reverse_repeat_tuple((1, 2, 3), 2) == tu._reverse_repeat_tuple((1, 2, 3), 2)
    assert eu._list_with_default([None, 3], [1, 2, 5, 6]) == tu._list_with_default([None, 3], [1, 2, 5, 6])
    assert eu._list_with_default(4, [1, 2]) == 4
    with pytest.raises(ValueError, match="Input dimension should be at least 3"):
        eu._list_with_default([1, 2], [3, 4])


def test_consume_prefix_like_torch(torch: Any) -> None:
    from ember.nn.modules.utils import consume_prefix_in_state_dict_if_present

    sde = nn.DataParallel(nn.Sequential(nn.Linear(2, 2))).state_dict()
    sdt = torch.nn.DataParallel(torch.nn.Sequential(torch.nn.Linear(2, 2))).state_dict()
    consume_prefix_in_state_dict_if_present(sde, "module.")
    torch.nn.modules.utils.consume_prefix_in_state_dict_if_present(sdt, "module.")
    assert list(sde) == list(sdt)
    assert list(sde._metadata) == list(sdt._metadata)  # type: ignore[attr-defined]
    nn.Sequential(nn.Linear(2, 2)).load_state_dict(sde)
    plain: dict[str, Any] = {"a.x": 1, "b": 2}
    consume_prefix_in_state_dict_if_present(plain, "a.")
    assert plain == {"b": 2, "x": 1}


# ---------------------------------------------------------------- ember.utils.hooks


def test_removable_handle_is_the_one_everything_returns() -> None:
    from ember.nn.modules._hooks import RemovableHandle

    H = ember.utils.hooks.RemovableHandle
    assert RemovableHandle is H
    m = nn.Linear(2, 2)
    assert type(m.register_forward_hook(lambda *a: None)) is H
    assert type(nn.modules.module.register_module_forward_pre_hook(lambda *a: None)) is H
    opt = ember.optim.SGD(m.parameters(), lr=0.1)
    assert type(opt.register_step_pre_hook(lambda *a: None)) is H
    from ember.nn.modules._backward_hook import BackwardHook

    assert BackwardHook is ember.utils.hooks.BackwardHook


def test_removable_handle_like_torch(torch: Any) -> None:
    for lib in (ember, torch):
        Handle = lib.utils.hooks.RemovableHandle
        d: OrderedDict[int, Any] = OrderedDict()
        extra: OrderedDict[int, Any] = OrderedDict()
        h = Handle(d, extra_dict=extra)
        d[h.id], extra[h.id] = "hook", True
        h2 = Handle(d, extra_dict=[extra])
        assert h2.id == h.id + 1
        with h:
            assert h.id in d
        assert h.id not in d and h.id not in extra
        h.remove()  # twice is fine
        h3 = pickle.loads(pickle.dumps(h2))
        assert h3.id == h2.id and Handle.next_id > h2.id
        assert Handle(d, extra_dict=None).extra_dict_ref == ()


def test_unserializable_hook_and_warning() -> None:
    hooks = ember.utils.hooks

    @hooks.unserializable_hook
    def quiet(g: Any) -> None:
        return None

    assert quiet.__torch_unserializable__ is True  # type: ignore[attr-defined]

    class T:
        _backward_hooks = OrderedDict([(0, quiet), (1, print)])

    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        hooks.warn_if_has_hooks(T())
        hooks.warn_if_has_hooks(ember.ones(1))
    assert len(w) == 1 and "backward hook <built-in function print> on tensor will not be serialized" in str(
        w[0].message)


def test_full_backward_hook_still_runs(torch: Any) -> None:
    seen: list[Any] = []
    m = nn.Linear(3, 2)
    m.register_full_backward_hook(lambda mod, gi, go: seen.append((len(gi), len(go))))
    m(ember.randn(4, 3, requires_grad=True)).sum().backward()
    assert seen == [(1, 1)]
