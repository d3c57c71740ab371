"""nn.DataParallel and ember.nn.parallel without a GPU, compared with PyTorch's CPU build: the
wrapper calls the module as it is (device_ids == []), state dicts and repr go through ``module``,
and the functional pieces refuse CPU tensors with PyTorch's errors. The GPU behaviour is
packages/core/tests/test_cuda_data_parallel.py's."""

from __future__ import annotations

import collections
import importlib
import warnings
from typing import Any

import ember
import ember.nn as nn
import pytest
from _nn_testutil import close, copy_params, pair
from ember.nn.parallel import _utils, comm, scatter_gather

pytestmark = pytest.mark.skipif(ember.cuda.is_available(), reason="checks the behaviour without a GPU")


def _error(fn: Any) -> tuple[type, str]:
    with pytest.raises(Exception) as info:
        fn()
    return info.type, str(info.value)


def _same_error(torch_fn: Any, ember_fn: Any) -> None:
    t_type, t_msg = _error(torch_fn)
    e_type, e_msg = _error(ember_fn)
    assert (e_type.__name__, e_msg) == (t_type.__name__, t_msg)


def _net(lib: Any) -> Any:
    return lib.nn.Sequential(lib.nn.Linear(3, 4), lib.nn.BatchNorm1d(4), lib.nn.ReLU(), lib.nn.Linear(4, 2))


# ---- the wrapper: a pass-through without devices ---------------------------------------------

def test_exported() -> None:
    assert nn.DataParallel is nn.parallel.DataParallel
    assert "DataParallel" in nn.__all__
    for name in ("replicate", "scatter", "gather", "parallel_apply", "data_parallel", "DataParallel"):
        assert name in nn.parallel.__all__ and callable(getattr(nn.parallel, name))
    assert callable(scatter_gather.scatter_kwargs)


def test_pass_through_forward_and_backward(torch: Any) -> None:
    tm = _net(torch)
    em = _net(ember)
    copy_params(tm, em)
    tdp, edp = torch.nn.DataParallel(tm), nn.DataParallel(em)
    x, tx = pair(torch, [[0.5, -1.0, 2.0], [1.5, 0.25, -0.75], [0.0, 1.0, 1.0]], requires_grad=True)
    ey, ty = edp(x), tdp(tx)
    close(ey, ty, atol=1e-5)
    ey.sum().backward()
    ty.sum().backward()
    close(x.grad, tx.grad, atol=1e-5)
    for p, tp in zip(edp.parameters(), tdp.parameters(), strict=True):
        close(p.grad, tp.grad, atol=1e-5)
    # the wrapped module itself ran (its running statistics moved)
    close(em[1].running_mean, tm[1].running_mean, atol=1e-6)
    assert int(em[1].num_batches_tracked) == 1


def test_kwargs_and_structures_pass_as_they_are() -> None:
    seen: dict[str, Any] = {}

    class Probe(nn.Module):
        def forward(self, x: Any, pair: Any = None, *, extra: Any = None) -> Any:
            seen.update(x=x, pair=pair, extra=extra)
            return x

    x = ember.ones(2, 2)
    d = {"k": [1, 2]}
    out = nn.DataParallel(Probe(), device_ids=[0, 1], output_device=1, dim=1)(x, (x, 3), extra=d)
    assert out is x and seen["pair"][0] is x and seen["extra"] is d


@pytest.mark.parametrize("kwargs", [{}, {"device_ids": [0, 1]}, {"device_ids": [1], "output_device": 1, "dim": 1}])
def test_device_ids_empty_and_attributes_as_torch(torch: Any, kwargs: dict[str, Any]) -> None:
    tdp = torch.nn.DataParallel(torch.nn.Linear(2, 2), **kwargs)
    edp = nn.DataParallel(nn.Linear(2, 2), **kwargs)
    assert edp.device_ids == tdp.device_ids == []
    for attr in ("dim", "output_device", "src_device_obj"):  # not set without devices, as in PyTorch
        assert hasattr(edp, attr) == hasattr(tdp, attr)


def test_state_dict_prefixed_with_module(torch: Any) -> None:
    tdp, edp = torch.nn.DataParallel(_net(torch)), nn.DataParallel(_net(ember))
    assert list(edp.state_dict()) == list(tdp.state_dict())
    assert all(k.startswith("module.") for k in edp.state_dict())
    assert [n for n, _ in edp.named_parameters()] == [n for n, _ in tdp.named_parameters()]
    assert [n for n, _ in edp.named_modules()] == [n for n, _ in tdp.named_modules()]
    # round trip into a fresh wrapper, and the unwrapped module's keys into .module
    other = nn.DataParallel(_net(ember))
    assert str(other.load_state_dict(edp.state_dict())) == "<All keys matched successfully>"
    for k, v in edp.state_dict().items():
        assert ember.equal(other.state_dict()[k], v)
    other.module.load_state_dict(edp.module.state_dict())
    assert list(edp.parameters()) == list(edp.module.parameters())


def test_repr_as_torch(torch: Any) -> None:
    assert repr(nn.DataParallel(_net(ember))) == repr(torch.nn.DataParallel(_net(torch)))


def test_train_eval_and_to_reach_module() -> None:
    edp = nn.DataParallel(_net(ember))
    edp.eval()
    assert not edp.module.training and not edp.module[1].training
    edp.train()
    assert edp.module[1].training
    edp.double()
    assert edp.module[0].weight.dtype == ember.float64


def test_functional_without_devices_as_torch(torch: Any) -> None:
    _same_error(lambda: torch.nn.parallel.data_parallel(torch.nn.Linear(2, 2), torch.ones(1, 2)),
                lambda: nn.parallel.data_parallel(nn.Linear(2, 2), ember.ones(1, 2)))


# ---- the functional pieces on the CPU ---------------------------------------------------------

def test_replicate_refuses_cpu_modules_as_torch(torch: Any) -> None:
    _same_error(lambda: torch.nn.parallel.replicate(torch.nn.Linear(2, 2), [0, 1]),
                lambda: nn.parallel.replicate(nn.Linear(2, 2), [0, 1]))
    assert nn.parallel.replicate(nn.Linear(2, 2), []) == torch.nn.parallel.replicate(torch.nn.Linear(2, 2), []) == []
    # a module without parameters or buffers replicates on the CPU too (nothing to copy)
    reps = nn.parallel.replicate(nn.ReLU(), [0, 1])
    assert len(reps) == 2 and all(type(r) is nn.ReLU for r in reps)


def test_gather_refuses_cpu_tensors_as_torch(torch: Any) -> None:
    for dest in (0, "cpu", -1):
        _same_error(lambda: torch.nn.parallel.gather([torch.ones(2), torch.ones(2)], dest),
                    lambda: nn.parallel.gather([ember.ones(2), ember.ones(2)], dest))


@pytest.mark.parametrize("outputs", [[None, None], [{"a": None}, {"a": None}], [(None, [None]), (None, [None])]])
def test_gather_without_tensors_as_torch(torch: Any, outputs: Any) -> None:
    assert nn.parallel.gather(outputs, 0) == torch.nn.parallel.gather(outputs, 0)


def test_gather_mismatched_dicts_as_torch(torch: Any) -> None:
    outs = [{"a": None}, {"a": None, "b": None}]
    _same_error(lambda: torch.nn.parallel.gather(outs, 0), lambda: nn.parallel.gather(outs, 0))


Point = collections.namedtuple("Point", ["x", "y"])


@pytest.mark.parametrize("obj", [
    (1, "a"), [1, 2.5], {"k": "v", "n": None}, Point(1, "b"), (), [], {}, "text", 7, None,
    ((1, 2), [3, {"a": 4}]),
], ids=repr)
@pytest.mark.parametrize("n", [1, 2, 3])
def test_scatter_non_tensors_as_torch(torch: Any, obj: Any, n: int) -> None:
    got, want = nn.parallel.scatter(obj, list(range(n))), torch.nn.parallel.scatter(obj, list(range(n)))
    assert got == want and [type(g) for g in got] == [type(w) for w in want]


@pytest.mark.parametrize("inputs,kwargs", [
    ((), None), ((), {}), ((1,), None), ((1, "a"), {"k": 2}), ((), {"k": [1, 2]}), ((None,), {"k": None}),
])
def test_scatter_kwargs_non_tensors_as_torch(torch: Any, inputs: Any, kwargs: Any) -> None:
    want = torch.nn.parallel.scatter_gather.scatter_kwargs(inputs, kwargs, [0, 1])
    assert scatter_gather.scatter_kwargs(inputs, kwargs, [0, 1]) == want


def test_scatter_cpu_tensor_needs_cuda() -> None:
    with pytest.raises(AssertionError, match="not compiled with CUDA"):
        nn.parallel.scatter(ember.ones(4, 2), [0, 1])


def test_is_namedtuple_deprecated(torch: Any) -> None:
    with pytest.warns(FutureWarning, match="`is_namedtuple` is deprecated"):
        assert scatter_gather.is_namedtuple(Point(1, 2))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        for obj in (Point(1, 2), (1, 2), [1], None):
            assert scatter_gather.is_namedtuple(obj) == torch.nn.parallel.scatter_gather.is_namedtuple(obj)


def test_parallel_apply_errors_as_torch(torch: Any) -> None:
    papply, tpapply = nn.parallel.parallel_apply, torch.nn.parallel.parallel_apply
    em, tm = nn.Linear(2, 2), torch.nn.Linear(2, 2)
    _same_error(lambda: tpapply([tm, tm], [torch.ones(2)]), lambda: papply([em, em], [ember.ones(2)]))
    _same_error(lambda: tpapply([tm], [torch.ones(2)], [{}, {}]), lambda: papply([em], [ember.ones(2)], [{}, {}]))
    _same_error(lambda: tpapply([tm], [torch.ones(2)], None, [0, 1]), lambda: papply([em], [ember.ones(2)], None, [0, 1]))
    # no accelerator to run on
    _same_error(lambda: tpapply([tm], [torch.ones(2)]), lambda: papply([em], [ember.ones(2)]))


def test_get_a_var_as_torch(torch: Any) -> None:
    from ember.nn.parallel.parallel_apply import get_a_var

    e, t = ember.ones(1), torch.ones(1)
    for make in (lambda x: x, lambda x: [1, (2, x)], lambda x: {"a": 1, "b": x}, lambda x: (1, 2), lambda x: None):
        got, want = get_a_var(make(e)), importlib.import_module("torch.nn.parallel.parallel_apply").get_a_var(make(t))
        assert (got is e) == (want is t) and (got is None) == (want is None)


# ---- comm -------------------------------------------------------------------------------------

def test_comm_argument_errors_as_torch(torch: Any) -> None:
    tc = torch.nn.parallel.comm
    e, t = ember.ones(2), torch.ones(2)
    _same_error(lambda: tc.broadcast(t), lambda: comm.broadcast(e))
    _same_error(lambda: tc.broadcast(t, [0], out=[t]), lambda: comm.broadcast(e, [0], out=[e]))
    _same_error(lambda: tc.reduce_add([t, t], 0), lambda: comm.reduce_add([e, e], 0))
    _same_error(lambda: tc.scatter(t, [0], out=[t]), lambda: comm.scatter(e, [0], out=[e]))
    _same_error(lambda: tc.scatter(t, None, [1], out=[t]), lambda: comm.scatter(e, None, [1], out=[e]))


# ---- Module support and the helpers -----------------------------------------------------------

def test_replicate_for_data_parallel_as_torch(torch: Any) -> None:
    for lib in (torch, ember):
        m = _net(lib)
        r = m._replicate_for_data_parallel()
        assert type(r) is type(m) and r is not m and r._is_replica
        assert dict(r._parameters) == {} and list(r.parameters(recurse=False)) == []
        assert r._modules == m._modules and r._modules is not m._modules
        assert r._buffers is not m._buffers
        assert r._forward_hooks is m._forward_hooks  # everything else is shared
        r._modules["0"] = None
        assert m._modules["0"] is not None


def test_replica_zero_grad_warns_as_torch(torch: Any) -> None:
    with pytest.warns(UserWarning) as want:
        torch.nn.Linear(2, 2)._replicate_for_data_parallel().zero_grad()
    with pytest.warns(UserWarning) as got:
        nn.Linear(2, 2)._replicate_for_data_parallel().zero_grad()
    assert str(got[0].message) == str(want[0].message)


def test_lazy_modules_refuse_replication() -> None:
    with pytest.raises(RuntimeError, match="uninitialized parameters can't be used with `DataParallel`"):
        nn.LazyLinear(3)._replicate_for_data_parallel()


@pytest.mark.parametrize("device,optional,allow_cpu", [
    (3, False, False), ("cuda:1", False, False), ("cpu", False, False), ("cpu", False, True), ("cuda", False, False),
    (-1, False, False),
])
def test_device_index_as_torch(torch: Any, device: Any, optional: bool, allow_cpu: bool) -> None:
    from torch._utils import _get_device_index

    try:
        want: Any = _get_device_index(device, optional, allow_cpu)
    except Exception as e:
        want = (type(e).__name__, str(e).replace("torch.device", "X"))
    try:
        got: Any = _utils._get_device_index(device, optional, allow_cpu)
    except Exception as e:
        got = (type(e).__name__, str(e).replace("torch.device", "X"))
    assert got == want


def test_exception_wrapper_reraise() -> None:
    def caught(exc: BaseException) -> _utils.ExceptionWrapper:
        try:
            raise exc
        except BaseException:
            return _utils.ExceptionWrapper(where="in replica 1 on device 1")

    with pytest.raises(ValueError) as info:
        caught(ValueError("bad")).reraise()
    msg = str(info.value)
    assert msg.startswith("Caught ValueError in replica 1 on device 1.\nOriginal Traceback (most recent call last):")
    assert msg.rstrip().endswith("ValueError: bad")
    with pytest.raises(KeyError) as key_info:
        caught(KeyError("k")).reraise()
    assert str(key_info.value).startswith("Caught KeyError in replica 1")  # readable, not a repr

    class TwoArgs(Exception):
        def __init__(self, a: Any, b: Any) -> None:
            super().__init__(a, b)

    with pytest.raises(RuntimeError, match="Caught TwoArgs in replica 1"):
        caught(TwoArgs(1, 2)).reraise()


def test_docstrings() -> None:
    # (the package's names are the functions; the submodules are imported by path)
    data_parallel, parallel_apply, replicate = (importlib.import_module(f"ember.nn.parallel.{m}")
                                                for m in ("data_parallel", "parallel_apply", "replicate"))
    objs = [nn.DataParallel, nn.DataParallel.forward, nn.DataParallel.replicate, nn.DataParallel.scatter,
            nn.DataParallel.parallel_apply, nn.DataParallel.gather, data_parallel.data_parallel,
            parallel_apply.parallel_apply, parallel_apply.get_a_var, replicate.replicate, scatter_gather.scatter,
            scatter_gather.scatter_kwargs, scatter_gather.gather, scatter_gather.is_namedtuple]
    objs += [getattr(comm, n) for n in comm.__all__]
    for obj in objs:
        assert obj.__doc__ and len(obj.__doc__.split()) > 3, obj
