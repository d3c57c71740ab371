"""Argument forms PyTorch accepts (issue 22 point 7), compared with PyTorch: memory_format= on the dtype
shortcuts, 0-d tensors where a number is expected, norm(p="fro"|"nuc"), std_mean/var_mean(unbiased=),
tensor_split with tensor indices, resize_/resize_as_, as_strided_, and the cholesky method forms."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

torch = pytest.importorskip("torch")
np = pytest.importorskip("numpy")

import ember  # noqa: E402


def X(L: Any, *shape: int) -> Any:
    n = 1
    for s in shape:
        n *= s
    return (L.arange(n, dtype=L.float64).reshape(shape) * 0.731 + 0.3).sin().float()


SHORTCUTS = ("float", "double", "half", "bfloat16", "int", "long", "short", "char", "byte", "bool")

CASES: dict[str, Callable[[Any], Any]] = {
    **{f"{m}-channels_last": (lambda m: lambda L: getattr(X(L, 2, 3, 4, 5), m)(memory_format=L.channels_last))(m)
       for m in SHORTCUTS},
    **{f"{m}-contiguous": (lambda m: lambda L: getattr(X(L, 3, 4).T, m)(memory_format=L.contiguous_format))(m)
       for m in SHORTCUTS},
    "float-preserve": lambda L: X(L, 3, 4).T.float(memory_format=L.preserve_format),
    "double-channels_last_3d": lambda L: X(L, 1, 2, 2, 3, 2).double(memory_format=L.channels_last_3d),
    "to-channels_last": lambda L: X(L, 2, 3, 4, 5).to(L.float64, memory_format=L.channels_last),
    "linspace-0d": lambda L: L.linspace(L.tensor(0.5), L.tensor(2.0), 5),
    "linspace-0d-int": lambda L: L.linspace(L.tensor(1), 4, L.tensor(4)),
    "logspace-0d": lambda L: L.logspace(L.tensor(0.), L.tensor(2.), 3, base=2.0),
    "narrow-0d": lambda L: X(L, 3, 4).narrow(1, L.tensor(1), 2),
    "narrow-fn-0d": lambda L: L.narrow(X(L, 3, 4), 0, L.tensor(2), 1),
    "select-0d": lambda L: X(L, 3, 4).select(0, L.tensor(1)),
    "full-0d": lambda L: L.full((2,), L.tensor(3.5)),
    "tensor_split-0d": lambda L: L.tensor_split(X(L, 2, 5), L.tensor(2), 1),
    "tensor_split-1d": lambda L: X(L, 7).tensor_split(L.tensor([1, 4])),
    "tensor_split-int": lambda L: L.tensor_split(X(L, 7), 3),
    "norm-fro": lambda L: L.norm(X(L, 3, 4), p="fro"),
    "norm-fro-dim": lambda L: X(L, 2, 3, 4).norm(p="fro", dim=(1, 2), keepdim=True),
    "norm-fro-dim-int": lambda L: L.norm(X(L, 2, 3), "fro", 1),
    "norm-nuc": lambda L: L.norm(X(L, 3, 4), p="nuc"),
    "norm-nuc-dim": lambda L: X(L, 2, 3, 4).norm("nuc", dim=(0, 2)),
    "norm-default": lambda L: L.norm(X(L, 3, 4)),
    "norm-3": lambda L: X(L, 3, 4).norm(3, 1),
    "norm-dtype": lambda L: L.norm(X(L, 3, 4), dtype=L.float64),
    "std_mean-unbiased": lambda L: L.std_mean(X(L, 3, 4), unbiased=False),
    "std_mean-positional": lambda L: L.std_mean(X(L, 3, 4), False),
    "var_mean-dim-unbiased": lambda L: L.var_mean(X(L, 3, 4), 1, unbiased=False),
    "var_mean-dim-positional": lambda L: L.var_mean(X(L, 3, 4), (1,), True, True),
    "var_mean-correction": lambda L: L.var_mean(X(L, 3, 4), 0, correction=0),
    "cholesky_solve-method": lambda L: X(L, 2, 2).cholesky_solve(L.tensor([[2., 0.], [0.5, 1.]])),
    "cholesky_inverse-method": lambda L: L.tensor([[2., 0.], [0.5, 1.]]).cholesky_inverse(),
    "resize_-shrink": lambda L: X(L, 6).resize_(2, 2),
    "resize_-same": lambda L: X(L, 2, 3).resize_((3, 2)),
    "resize_as_": lambda L: X(L, 6).resize_as_(L.ones(3, 1)),
    "as_strided_": lambda L: X(L, 6).as_strided_((2, 2), (1, 2), 1),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_forms(case: str) -> None:
    t, e = CASES[case](torch), CASES[case](ember)
    t_flat = list(t) if isinstance(t, tuple) else [t]
    e_flat = list(e) if isinstance(e, tuple) else [e]
    assert len(t_flat) == len(e_flat)
    for tv, ev in zip(t_flat, e_flat):
        assert str(ev.dtype) == str(tv.dtype) and tuple(ev.shape) == tuple(tv.shape)
        if tv.numel() and not case.startswith("cholesky"):  # LAPACK's column-major results are not the point
            assert ev.stride() == tv.stride(), (ev.stride(), tv.stride())
        np.testing.assert_allclose(ev.to(ember.float64).numpy(), tv.double().numpy(), rtol=1e-5, atol=1e-6)


def test_resize_grow_keeps_elements() -> None:
    for L in (torch, ember):
        x = L.arange(4.)
        y = x.resize_(2, 3)
        assert y is x and tuple(x.shape) == (2, 3)
        assert x.reshape(-1)[:4].tolist() == [0.0, 1.0, 2.0, 3.0]


@pytest.mark.parametrize("pinned", [False, True])
def test_resize_grow_keeps_device_and_pinning(pinned: bool) -> None:
    x = ember.empty(0, device="meta")
    assert x.resize_(4, 2).device.type == "meta" and tuple(x.shape) == (4, 2)  # once moved to the CPU
    if pinned and not ember.cuda.is_available():
        return
    y = ember.arange(3.0)
    y = y.pin_memory() if pinned else y
    y.resize_(5)
    assert y.is_pinned() == pinned and y[:3].tolist() == [0.0, 1.0, 2.0]


ERRORS: dict[str, Callable[[Any], Any]] = {
    "float-mf-int": lambda L: X(L, 3).float(memory_format=1),
    "float-channels_last-rank": lambda L: X(L, 3).float(memory_format=L.channels_last),
    "linspace-list": lambda L: L.linspace([0.], 1., 3),
    "norm-bad-string": lambda L: L.norm(X(L, 3, 4), p="xyz"),
    "resize_-negative": lambda L: X(L, 3).resize_(-1),
    "resize_-grad": lambda L: X(L, 3).requires_grad_().resize_(2),
    "tensor_split-float": lambda L: L.tensor_split(X(L, 4), L.tensor([1.0])),
    "tensor_split-2d": lambda L: L.tensor_split(X(L, 4), L.tensor([[1]])),
}


@pytest.mark.parametrize("case", sorted(ERRORS))
def test_errors(case: str) -> None:
    with pytest.raises(Exception) as t_info:
        ERRORS[case](torch)
    with pytest.raises(Exception) as e_info:
        ERRORS[case](ember)
    assert type(e_info.value).__name__ == type(t_info.value).__name__, (t_info.value, e_info.value)


def test_plain_calls_still_pick_tensor_overloads() -> None:
    """A 0-d tensor where both a Tensor and a number overload exist keeps the Tensor one (its dtype rules)."""
    for L in (torch, ember):
        x = L.tensor([1, 2, 3], dtype=L.int32)
        assert str(x.clamp(L.tensor(2.5)).dtype) == "torch.float32"
        assert str(L.pow(x, L.tensor(2.0)).dtype) == "torch.float32"
