"""Shape and product functions PyTorch composes from views and matmuls: block_diag, cartesian_prod,
combinations, diagflat, inner, vdot, addbmm/addmv/addr, tril_indices/triu_indices, unravel_index,
hsplit/vsplit/dsplit/column_stack, scalar_tensor, the *_scatter ops (a clone with one view overwritten)
and the *_copy ops (a view's contiguous copy, as functionalization emits)."""

from __future__ import annotations

import functools
import itertools
from typing import Any

import ember
from ember._composite_pointwise import _pretty
from ember._lib import _C
from ember._out import TENSORDOT_DTYPE, cast, exact_with, takes_out, write
from ember._tensor import Tensor, _as_op

__all__ = ["addbmm", "addmv", "addmv_", "addr", "as_strided_scatter", "block_diag", "cartesian_prod",
           "column_stack", "combinations", "diagflat", "diagonal_scatter", "dsplit", "hsplit", "inner",
           "scalar_tensor", "select_scatter", "slice_scatter", "tril_indices", "triu_indices", "unravel_index",
           "vander", "vdot", "vsplit"]


def block_diag(*tensors: Tensor) -> Tensor:
    """The tensors (0-, 1- or 2-d) placed on the diagonal of one matrix, zeros elsewhere."""
    mats = []
    for i, t in enumerate(tensors):
        if t.dim() > 2:
            raise RuntimeError(f"torch.block_diag: Input tensors must have 2 or fewer dimensions. Input {i} has "
                               f"{t.dim()} dimensions")
        mats.append(t.reshape(1, -1) if t.dim() < 2 else t)
    if not mats:
        return ember.empty(1, 0)
    dtype = functools.reduce(ember.promote_types, [t.dtype for t in tensors])
    width = sum(m.shape[1] for m in mats)
    rows, left = [], 0
    for m in mats:
        r, c = m.shape
        rows.append(ember.cat([ember.zeros(r, left, dtype=dtype, device=m.device), m.to(dtype),
                               ember.zeros(r, width - left - c, dtype=dtype, device=m.device)], 1))
        left += c
    return ember.cat(rows, 0)


def cartesian_prod(*tensors: Tensor) -> Tensor:
    """Rows of every combination of the 1-d tensors' elements (itertools.product order)."""
    for t in tensors:
        if t.dim() != 1:
            raise RuntimeError(f"Expect a 1D vector, but got shape {list(t.shape)}")
    if len(tensors) == 1:
        return tensors[0]
    grids = ember.meshgrid(*tensors, indexing="ij")
    return ember.stack([g.reshape(-1) for g in grids], 1)


def combinations(input: Tensor, r: int = 2, with_replacement: bool = False) -> Tensor:
    """Rows of the length-r combinations of the 1-d input's elements (itertools order)."""
    if input.dim() != 1:
        raise RuntimeError(f"Expect a 1D vector, but got shape {list(input.shape)}")
    if r < 0:
        raise RuntimeError(f"Expect a non-negative number, but got {r}")
    if r == 0:
        return ember.empty(0, dtype=input.dtype, device=input.device)
    pick = itertools.combinations_with_replacement if with_replacement else itertools.combinations
    idx = list(pick(range(input.shape[0]), r))
    if not idx:
        return ember.empty(0, r, dtype=input.dtype, device=input.device)
    cols = ember.tensor(idx, dtype=ember.int64, device=input.device)
    return input[cols.reshape(-1)].reshape(len(idx), r)


def diagflat(input: Tensor, offset: int = 0) -> Tensor:
    """A 2-d matrix with input's elements (flattened) on its offset diagonal."""
    return ember.diag(input.reshape(-1), offset)


@takes_out(exact_with(TENSORDOT_DTYPE), device="Expected tensor to have {input} DeviceType, but got tensor with {out} "
           "DeviceType (while checking arguments for inner())")
def inner(input: Tensor, other: Tensor, *, out: Tensor | None = None) -> Tensor:
    """The sum product over the last dims (a product when one is a scalar)."""
    if input.dim() == 0 or other.dim() == 0:
        return ember.mul(input, other)
    if input.shape[-1] != other.shape[-1]:
        raise RuntimeError(f"inner() the last dimension must match on both input tensors but got shapes "
                           f"{list(input.shape)} and {list(other.shape)}")
    return ember.tensordot(input, other, dims=([-1], [-1]))


@takes_out(exact_with("result dtype {got} does not match input dtype {want}"), grad="vdot")
def vdot(input: Tensor, other: Tensor, *, out: Tensor | None = None) -> Tensor:
    """The dot product of two 1-d tensors (the first conjugated, which is nothing for real tensors)."""
    if input.dim() != 1 or other.dim() != 1:
        raise RuntimeError(f"1D tensors expected, but got {input.dim()}D and {other.dim()}D tensors")
    if input.dtype != other.dtype:
        raise RuntimeError(f"vdot : expected both vectors to have same dtype, but found {_pretty(input.dtype)} "
                           f"and {_pretty(other.dtype)}")
    return ember.dot(ember.conj(input), other)


def _scaled_sum(input: Tensor, product: Tensor, beta: Any, alpha: Any) -> Tensor:
    """beta * input + alpha * product, with input ignored (NaN included) when beta is 0, as BLAS does."""
    product = product if alpha == 1 else product * alpha
    if beta == 0:
        return product.expand(ember.broadcast_shapes(input.shape, product.shape)).clone()
    return (input if beta == 1 else input * beta) + product


@takes_out(exact_with("self and mat2 must have the same dtype, but got {got} and {want}"), grad="addbmm",
           warn=False)
def addbmm(input: Tensor, batch1: Tensor, batch2: Tensor, *, beta: Any = 1, alpha: Any = 1,
           out: Tensor | None = None) -> Tensor:
    """beta * input + alpha * (the sum over the batch of batch1[i] @ batch2[i])."""
    if batch1.dim() != 3 or batch2.dim() != 3:
        raise RuntimeError("batch1 must be a 3D tensor" if batch1.dim() != 3 else "batch2 must be a 3D tensor")
    product = ember.bmm(batch1, batch2).sum(0)
    return _scaled_sum(input, product, beta, alpha)


@takes_out(grad="addmv")
def addmv(input: Tensor, mat: Tensor, vec: Tensor, *, beta: Any = 1, alpha: Any = 1,
          out: Tensor | None = None) -> Tensor:
    """beta * input + alpha * (mat @ vec)."""
    if mat.dim() != 2 or vec.dim() != 1:
        raise RuntimeError(f"vector + matrix @ vector expected, got {input.dim()}, {mat.dim()}, {vec.dim()}")
    return _scaled_sum(input, ember.mv(mat, vec), beta, alpha)


def addmv_(input: Tensor, mat: Tensor, vec: Tensor, *, beta: Any = 1, alpha: Any = 1) -> Tensor:
    """addmv into input."""
    return input.copy_(addmv(input, mat, vec, beta=beta, alpha=alpha))


@takes_out(cast, grad="addr")
def addr(input: Tensor, vec1: Tensor, vec2: Tensor, *, beta: Any = 1, alpha: Any = 1,
         out: Tensor | None = None) -> Tensor:
    """beta * input + alpha * outer(vec1, vec2)."""
    if vec1.dim() != 1 or vec2.dim() != 1:
        raise RuntimeError(f"addr: Expected 1-D argument vec1, but got {vec1.dim()}-D" if vec1.dim() != 1 else
                           f"addr: Expected 1-D argument vec2, but got {vec2.dim()}-D")
    if input.dtype == ember.bool:
        product = ember.outer(vec1, vec2)
        product = product & alpha if alpha is not True else product
        return product if not beta else product | input
    return _scaled_sum(input, ember.outer(vec1, vec2), beta, alpha)


def _tri_indices(row: int, col: int, offset: int, dtype: Any, upper: bool, device: Any) -> Tensor:
    from ember._runtime import to_factory_device

    mask = ember.ones(row, col, dtype=ember.bool, device="cpu")  # made on the host, then moved
    mask = mask.triu(offset) if upper else mask.tril(offset)
    return to_factory_device(mask.nonzero().T.to(dtype).contiguous(), device)


def tril_indices(row: int, col: int, offset: int = 0, *, dtype: Any = None, device: Any = None,
                 layout: Any = None, pin_memory: bool | None = False) -> Tensor:
    """2 x N: the coordinates of the lower triangle of a row x col matrix (row-major order)."""
    return _tri_indices(row, col, offset, dtype or ember.int64, False, device)


def triu_indices(row: int, col: int, offset: int = 0, *, dtype: Any = None, device: Any = None,
                 layout: Any = None, pin_memory: bool | None = False) -> Tensor:
    """2 x N: the coordinates of the upper triangle of a row x col matrix (row-major order)."""
    return _tri_indices(row, col, offset, dtype or ember.int64, True, device)


def unravel_index(indices: Any, shape: Any) -> tuple[Tensor, ...]:
    """The coordinates in a tensor of the given shape of each flat index (C order)."""
    if not isinstance(indices, Tensor):
        indices = ember.tensor(indices)
    if indices.is_floating_point() or indices.dtype == ember.bool:
        raise TypeError(f"expected 'indices' to be integer dtype, but got {indices.dtype}")
    shape = [shape] if isinstance(shape, int) else list(shape)
    for s in shape:
        if s < 0:
            raise ValueError("'shape' cannot have negative values, but got " + str(tuple(shape)))
    idx = indices.to(ember.int64)  # no bounds check, as aten: floor division and modulus all the way
    coords = []
    for s in reversed(shape):
        coords.append(ember.remainder(idx, s) if s else idx * 0)
        idx = ember.div(idx, s, rounding_mode="floor") if s else idx
    return tuple(reversed(coords))


def _split_dim(name: str, input: Tensor, indices_or_sections: Any, dim: int, min_dim: int) -> tuple[Tensor, ...]:
    if input.dim() < min_dim:
        raise RuntimeError(f"torch.{name} requires a tensor with at least {min_dim} dimension, but got a tensor "
                           f"with {input.dim()} dimensions!")
    sections = indices_or_sections
    if isinstance(sections, int) and (sections == 0 or input.shape[dim] % sections):
        raise RuntimeError(f"torch.{name} attempted to split along dimension {dim}, but the size of the "
                           f"dimension {input.shape[dim]} is not divisible by the split_size "
                           f"{indices_or_sections}!")
    if not _C._profiler_active():
        return ember.tensor_split(input, indices_or_sections, dim)
    return _as_op(f"aten::{name}", input, ember.tensor_split, input, indices_or_sections, dim)  # aten's op over it


def hsplit(input: Tensor, indices_or_sections: Any) -> tuple[Tensor, ...]:
    """tensor_split along the columns (dim 1, or 0 for a 1-d tensor), sections dividing evenly."""
    return _split_dim("hsplit", input, indices_or_sections, 1 if input.dim() > 1 else 0, 1)


def vsplit(input: Tensor, indices_or_sections: Any) -> tuple[Tensor, ...]:
    """tensor_split along dim 0 of a tensor of 2 or more dims, sections dividing evenly."""
    return _split_dim("vsplit", input, indices_or_sections, 0, 2)


def dsplit(input: Tensor, indices_or_sections: Any) -> tuple[Tensor, ...]:
    """tensor_split along dim 2 of a tensor of 3 or more dims, sections dividing evenly."""
    return _split_dim("dsplit", input, indices_or_sections, 2, 3)


def column_stack(tensors: Any, *, out: Tensor | None = None) -> Tensor:
    """hstack of the tensors with 0- and 1-d ones made columns."""
    cols = [t.reshape(-1, 1) if t.dim() <= 1 else t for t in tensors]
    return ember.hstack(cols, out=out) if out is not None else ember.hstack(cols)


def scalar_tensor(s: Any, *, dtype: Any = None, layout: Any = None, device: Any = None,
                  pin_memory: bool | None = None, requires_grad: bool = False) -> Tensor:
    """A 0-d tensor holding s (in the default float dtype unless dtype is given)."""
    if isinstance(s, Tensor):
        s = s.item()
    return ember.tensor(s, dtype=dtype or ember.get_default_dtype(), device=device, requires_grad=requires_grad)


def vander(x: Tensor, N: int | None = None, increasing: bool = False) -> Tensor:
    """torch.vander: powers N-1 down to 0 of the 1-d x (ascending with increasing=True)."""
    if x.dim() != 1:
        raise RuntimeError("x must be a one-dimensional tensor.")
    n = x.shape[0] if N is None else N
    if n < 0:
        raise RuntimeError("N must be non-negative.")
    dtype = ember.promote_types(x.dtype, ember.int64)
    if n == 0:
        result = ember.empty(x.shape[0], 0, dtype=dtype, device=x.device)
    elif n == 1:
        result = ember.ones(x.shape[0], 1, dtype=dtype, device=x.device)
    else:
        xs = x.to(dtype)
        result = ember.cat([ember.ones_like(xs).unsqueeze(-1), xs.unsqueeze(-1).expand(x.shape[0], n - 1).cumprod(-1)],
                           -1)
    return result if increasing else result.flip(-1)


# ------------------------------------------------------------------------------------------
# *_scatter: a copy of input with one view replaced by src
# ------------------------------------------------------------------------------------------

def _scatter_into(name: str, input: Tensor, src: Tensor, view: Any) -> Tensor:
    out = input.clone()
    target = view(out)
    if tuple(target.shape) != tuple(src.shape):
        raise RuntimeError(f"expected src to have a size equal to the slice of self. src size = {list(src.shape)}, "
                           f"slice size = {list(target.shape)}")
    target.copy_(src)
    return out


def slice_scatter(input: Tensor, src: Tensor, dim: int = 0, start: int | None = None, end: int | None = None,
                  step: int = 1) -> Tensor:
    """input with input[start:end:step] along dim replaced by src."""
    d = dim % max(input.dim(), 1)
    return _scatter_into("slice_scatter", input, src,
                         lambda t: t[(slice(None),) * d + (slice(start, end, step),)])


def select_scatter(input: Tensor, src: Tensor, dim: int, index: int) -> Tensor:
    """input with input.select(dim, index) replaced by src."""
    return _scatter_into("select_scatter", input, src, lambda t: t.select(dim, index))


def diagonal_scatter(input: Tensor, src: Tensor, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Tensor:
    """input with input.diagonal(offset, dim1, dim2) replaced by src."""
    return _scatter_into("diagonal_scatter", input, src, lambda t: t.diagonal(offset, dim1, dim2))


def as_strided_scatter(input: Tensor, src: Tensor, size: Any, stride: Any, storage_offset: int | None = None) \
        -> Tensor:
    """input with input.as_strided(size, stride, storage_offset) replaced by src."""
    base = input.contiguous()
    return _scatter_into("as_strided_scatter", base, src, lambda t: t.as_strided(size, stride, storage_offset))


# ------------------------------------------------------------------------------------------
# *_copy: the contiguous copy of a view
# ------------------------------------------------------------------------------------------

def _slice(input: Tensor, dim: int = 0, start: int | None = None, end: int | None = None, step: int = 1) -> Tensor:
    return input[(slice(None),) * (dim % max(input.dim(), 1)) + (slice(start, end, step),)]


_VIEW_FN = {"alias": lambda t: t.view(t.shape), "slice": _slice,
            # PyTorch's view_as_real_copy copies a conjugate view's values (view_as_real refuses one)
            "view_as_real": lambda t: _C.view_as_real(t.resolve_conj()), "view_as_complex": _C.view_as_complex}


def _copy_of(view_name: str) -> Any:
    def fn(input: Tensor, *args: Any, out: Any = None, **kwargs: Any) -> Any:
        view_fn = _VIEW_FN[view_name] if view_name in _VIEW_FN else getattr(ember.Tensor, view_name)
        view = view_fn(input, *args, **kwargs)
        if isinstance(view, (tuple, list)):
            result = tuple(v.clone(memory_format=ember.contiguous_format) for v in view)
            if out is not None:
                for o, r in zip(out, result, strict=True):
                    write(r, o)
                return None
            return result
        return write(view.clone(memory_format=ember.contiguous_format), out)

    fn.__name__ = fn.__qualname__ = f"{view_name}_copy"
    fn.__doc__ = f"A contiguous copy of input.{view_name}(...)."
    return fn


_VIEWS = ("alias", "as_strided", "detach", "diagonal", "expand", "narrow", "permute", "select", "slice", "split",
          "split_with_sizes", "squeeze", "t", "transpose", "unbind", "unfold", "unsqueeze", "view", "view_as_real",
          "view_as_complex")
COPIES = {f"{v}_copy": _copy_of(v) for v in _VIEWS}
