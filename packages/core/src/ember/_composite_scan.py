"""Scans and order statistics PyTorch exposes beside cumsum: cummax, cummin, logcumsumexp, diff,
gradient, quantile and nanquantile, composed from differentiable core ops.

logcumsumexp runs in one C++ pass (csrc/ops/scan) when no graph is recorded, else as a log-step
(Hillis-Steele) scan of logaddexp, ceil(log2(n)) whole-tensor passes, which autograd follows.
cummax/cummin find the indices in one C++ pass (csrc/ops/scan) and gather the values, so the
gradient is aten's (scattered onto the arg-extremum)."""

from __future__ import annotations

from typing import Any

import ember
from ember._lib import _C
from ember._out import exact_with, takes_out, write
from ember._tensor import Tensor

SCAN_DTYPE = exact_with("expected scalar_type {want} but found {got}")  # aten's scan kernels' out check

_RESULT = {n: _C._return_type(n, ["values", "indices"]) for n in ("cummax", "cummin")}

__all__ = ["cummax", "cummin", "diff", "gradient", "logcumsumexp", "nanquantile", "quantile"]


def _wrap_dim(dim: int, ndim: int) -> int:
    n = max(ndim, 1)
    if not -n <= dim < n:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {dim})")
    return dim % n


def _shifted_scan(v: Tensor, dim: int, combine: Any) -> Tensor:
    """Inclusive scan of v along dim with the associative combine(earlier, later)."""
    n = v.shape[dim]
    step = 1
    while step < n:
        head = v.narrow(dim, 0, step)
        v = ember.cat([head, combine(v.narrow(dim, 0, n - step), v.narrow(dim, step, n - step))], dim)
        step *= 2
    return v


def _cum_extreme(input: Tensor, dim: int, name: str, greater: bool) -> Any:
    dim = _wrap_dim(dim, input.dim())
    if input.dim() == 0:
        return _RESULT[name]((input.clone(), ember.zeros((), dtype=ember.int64, device=input.device)))
    # one C++ pass finds values and indices (the last of ties; NaN propagates)
    values, indices = _C._cum_extreme(input.detach(), dim, greater)
    if input.requires_grad and ember.is_grad_enabled():  # the values through gather, which records the graph
        values = input.gather(dim, indices)
    return _RESULT[name]((values, indices))


@takes_out(SCAN_DTYPE, grad="cummax")
def cummax(input: Tensor, dim: int, *, out: Any = None) -> Any:
    """(values, indices): the running maximum along dim and where it was found (the last of ties)."""
    return _cum_extreme(input, dim, "cummax", True)


@takes_out(SCAN_DTYPE, grad="cummin")
def cummin(input: Tensor, dim: int, *, out: Any = None) -> Any:
    """(values, indices): the running minimum along dim and where it was found (the last of ties)."""
    return _cum_extreme(input, dim, "cummin", False)


def logcumsumexp(input: Tensor, dim: int, *, out: Tensor | None = None) -> Tensor:
    """log(cumsum(exp(input))) along dim, without overflow (a scan of logaddexp)."""
    dim = _wrap_dim(dim, input.dim())
    x = input if input.is_floating_point() or input.is_complex() else input.to(ember.get_default_dtype())
    if x.dim() == 0:
        result = x.clone()
    elif x.is_complex() or (x.requires_grad and ember.is_grad_enabled()):  # the composite records the graph
        # (complex: the C++ scan is real-only; logaddexp takes complex numbers)
        result = _shifted_scan(x, dim, ember.logaddexp)
    else:  # one C++ pass
        result = _C._logcumsumexp(x, dim)
    return write(result, out, SCAN_DTYPE, grad="logcumsumexp", inputs=(input,))


def diff(input: Tensor, n: int = 1, dim: int = -1, prepend: Tensor | None = None,
         append: Tensor | None = None) -> Tensor:
    """The n-th forward difference along dim (logical xor for bool), after prepending/appending."""
    if input.dim() == 0:
        raise RuntimeError("diff expects prepend or append to be the same dimension as input")  # aten's text
    if n < 0:
        raise RuntimeError(f"order must be non-negative but got {n}")
    dim = _wrap_dim(dim, input.dim())
    parts = [t for t in (prepend, input, append) if t is not None]
    for t in parts:
        if t.dim() != input.dim():
            raise RuntimeError("diff expects prepend or append to be the same dimension as input")
    if n == 0:  # aten: a fresh copy of the input, prepend and append ignored
        return ember.zeros_like(input).copy_(input)
    x = ember.cat(parts, dim) if len(parts) > 1 else input
    for _ in range(n):
        m = x.shape[dim]
        if m == 0:
            break
        hi, lo = x.narrow(dim, 1, m - 1), x.narrow(dim, 0, m - 1)
        x = ember.logical_xor(hi, lo) if x.dtype == ember.bool else hi - lo
    return x


def _gradient_along(f: Tensor, dim: int, h: Any, edge_order: int) -> Tensor:
    """numpy.gradient's second-order central differences along dim; h a number or coordinates."""
    n = f.shape[dim]

    def part(a: int, b: int) -> Tensor:
        return f.narrow(dim, a, b - a)

    if isinstance(h, Tensor):  # coordinates: nonuniform spacing
        shape = [1] * f.dim()
        shape[dim] = -1
        dx = (h[1:] - h[:-1]).reshape(shape)
        dx1, dx2 = dx.narrow(dim, 0, n - 2), dx.narrow(dim, 1, n - 2)
        a = -dx2 / (dx1 * (dx1 + dx2))
        b = (dx2 - dx1) / (dx1 * dx2)
        c = dx1 / (dx2 * (dx1 + dx2))
        interior = a * part(0, n - 2) + b * part(1, n - 1) + c * part(2, n)
        d0, dl = dx.narrow(dim, 0, 1), dx.narrow(dim, n - 2, 1)
        if edge_order == 1:
            first = (part(1, 2) - part(0, 1)) / d0
            last = (part(n - 1, n) - part(n - 2, n - 1)) / dl
        else:
            d1, dl2 = dx.narrow(dim, 1, 1), dx.narrow(dim, n - 3, 1)
            a0 = -(2.0 * d0 + d1) / (d0 * (d0 + d1))
            b0 = (d0 + d1) / (d0 * d1)
            c0 = -d0 / (d1 * (d0 + d1))
            first = a0 * part(0, 1) + b0 * part(1, 2) + c0 * part(2, 3)
            al = dl / (dl2 * (dl2 + dl))
            bl = -(dl + dl2) / (dl2 * dl)
            cl = (2.0 * dl + dl2) / (dl * (dl2 + dl))
            last = al * part(n - 3, n - 2) + bl * part(n - 2, n - 1) + cl * part(n - 1, n)
    else:
        interior = (part(2, n) - part(0, n - 2)) / (2.0 * h)
        if edge_order == 1:
            first = (part(1, 2) - part(0, 1)) / h
            last = (part(n - 1, n) - part(n - 2, n - 1)) / h
        else:
            first = (-1.5 * part(0, 1) + 2.0 * part(1, 2) - 0.5 * part(2, 3)) / h
            last = (0.5 * part(n - 3, n - 2) - 2.0 * part(n - 2, n - 1) + 1.5 * part(n - 1, n)) / h
    return ember.cat([first, interior, last], dim)


def gradient(input: Tensor, *, spacing: Any = 1, dim: Any = None, edge_order: int = 1) -> tuple[Tensor, ...]:
    """Estimates of df/dx along each of dim by central differences (numpy.gradient)."""
    if edge_order not in (1, 2):
        raise RuntimeError("torch.gradient only supports edge_order=1 and edge_order=2.")
    dims = list(range(input.dim())) if dim is None else ([dim] if isinstance(dim, int) else list(dim))
    dims = [_wrap_dim(d, input.dim()) for d in dims]
    if isinstance(spacing, (list, tuple)):
        if len(spacing) != len(dims):
            raise RuntimeError(f"torch.gradient expected spacing to be unspecified, a scalar or it's spacing and "
                               f"dim arguments to have the same length, but got a spacing argument of length "
                               f"{len(spacing)} and a dim argument of length {len(dims)}.")
        hs = list(spacing)
    else:
        hs = [spacing] * len(dims)
    for d in dims:
        if input.shape[d] < edge_order + 1:
            raise RuntimeError("torch.gradient expected each dimension size to be at least edge_order+1")
    f = input if input.is_floating_point() or input.is_complex() else input.to(ember.get_default_dtype())
    out = []
    for d, h in zip(dims, hs):
        if isinstance(h, Tensor) and h.dim() == 0:
            h = h.item()
        if isinstance(h, Tensor) and h.dim() != 1:
            raise RuntimeError(f"torch.gradient expected each tensor to be on the same device, but got "
                               f"coordinate tensors of dimension {h.dim()}")
        out.append(_gradient_along(f, d, h, edge_order))
    return tuple(out)


# ------------------------------------------------------------------------------------------
# quantiles
# ------------------------------------------------------------------------------------------

_INTERPOLATIONS = ("linear", "lower", "higher", "midpoint", "nearest")


def _quantile(input: Tensor, q: Any, dim: int | None, keepdim: bool, interpolation: str, ignore_nan: bool,
              out: Tensor | None) -> Tensor:
    name = "nanquantile()" if ignore_nan else "quantile()"
    if input.numel() == 0:
        raise RuntimeError(f"{name} input tensor must be non-empty")
    scalar_q = not isinstance(q, Tensor)
    if scalar_q:
        if not 0 <= q <= 1:
            raise RuntimeError(f"{name} q must be in the range [0, 1] but got {q}")
        q = ember.tensor(q, dtype=input.dtype, device=input.device)
    if q.dim() > 1:
        raise RuntimeError(f"{name} q must be a scalar or 1D tensor")
    if input.dtype not in (ember.float32, ember.float64):
        raise RuntimeError(f"{name} input tensor must be either float or double dtype")
    if q.dtype != input.dtype:
        raise RuntimeError(f"{name} q tensor must be same dtype as the input tensor")
    if interpolation not in _INTERPOLATIONS:
        raise RuntimeError(f"{name} interpolation must be one of linear, lower, higher, midpoint or nearest. "
                           f"Got {interpolation}")
    if not scalar_q and q.numel() and not bool(((q >= 0) & (q <= 1)).all()):
        raise RuntimeError(f"{name} q values must be in the range [0, 1]")
    if dim is None:
        x, d = input.reshape(-1), 0
    else:
        d = _wrap_dim(dim, input.dim())
        x = input if input.dim() else input.reshape(1)
    sorted_x = x.sort(dim=d).values.movedim(d, -1)  # NaNs sort last
    n = sorted_x.shape[-1]
    qf = q.reshape(-1)
    with ember.no_grad():
        isnan = sorted_x.isnan()
        if ignore_nan:
            valid = (~isnan).sum(-1, keepdim=True).to(q.dtype)
            ranks = qf * (valid - 1)
            ranks = ember.where(valid == 0, ember.full_like(ranks, n - 1), ranks)
        else:
            ranks = (qf * (n - 1)).expand(*sorted_x.shape[:-1], qf.numel())
            ranks = ember.where(isnan.any(-1, keepdim=True), ember.full_like(ranks, n - 1), ranks)
        if interpolation == "lower":
            ranks = ranks.floor()
        elif interpolation == "higher":
            ranks = ranks.ceil()
        elif interpolation == "nearest":
            ranks = ranks.round()
        below = ranks.floor().to(ember.int64).clamp(0, n - 1)
        above = ranks.ceil().to(ember.int64).clamp(0, n - 1)
        weights = ranks - below.to(ranks.dtype)
        if interpolation == "midpoint":
            weights = ember.where(above > below, ember.full_like(weights, 0.5), ember.zeros_like(weights))
    lo = sorted_x.gather(-1, below)
    hi = sorted_x.gather(-1, above)
    result = ember.lerp(lo, hi, weights) if interpolation in ("linear", "midpoint") else lo
    result = result.movedim(-1, 0)  # q's dim first
    if dim is None:
        if keepdim:
            result = result.reshape([qf.numel()] + [1] * input.dim())
    elif keepdim:
        result = result.unsqueeze(d + 1)
    if scalar_q or q.dim() == 0:
        result = result.squeeze(0)
    return write(result, out, exact_with("quantile() out tensor must be same dtype as the input tensor"),
                 device="quantile() out tensor must be on the same device as the input tensor")


def quantile(input: Tensor, q: Any, dim: int | None = None, keepdim: bool = False, *,
             interpolation: str = "linear", out: Tensor | None = None) -> Tensor:
    """The q-th quantiles of input along dim (all of it when dim is None); NaN where a slice has NaN."""
    return _quantile(input, q, dim, keepdim, interpolation, False, out)


def nanquantile(input: Tensor, q: Any, dim: int | None = None, keepdim: bool = False, *,
                interpolation: str = "linear", out: Tensor | None = None) -> Tensor:
    """quantile ignoring NaNs (NaN only where a slice is all NaN)."""
    return _quantile(input, q, dim, keepdim, interpolation, True, out)

