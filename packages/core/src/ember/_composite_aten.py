"""aten functions PyTorch exports at its top level, composed on ember ops: nonzero_static (a
fixed-size nonzero), unsafe_chunk / unsafe_split / unsafe_split_with_sizes (split without the
multi-output view restriction, which ember's split does not impose either), resize_as_,
norm_except_dim (weight_norm's norm), embedding_renorm_ (embedding's max_norm) and
affine_grid_generator (F.affine_grid's grid); and cond, the control-flow operator, run eagerly."""

from __future__ import annotations

from typing import Any

import ember
from ember._composite_pointwise import _pretty
from ember._tensor import Tensor

__all__ = ["affine_grid_generator", "cond", "embedding_renorm_", "nonzero_static", "norm_except_dim", "resize_as_",
           "unsafe_chunk", "unsafe_split", "unsafe_split_with_sizes"]


def _int_arg(fn: str, name: str, v: Any, pos: int | None = None) -> None:
    if not isinstance(v, int) or isinstance(v, bool):
        where = f" (position {pos})" if pos else ""
        raise TypeError(f"{fn}(): argument '{name}'{where} must be int, not {type(v).__name__}")


def nonzero_static(input: Tensor, *, size: int, fill_value: int = -1) -> Tensor:
    """nonzero_static(input, *, size, fill_value=-1) -> Tensor

    ``nonzero(input)`` with a fixed number of rows: the indices of the first ``size`` non-zero
    elements (row-major order), padded with rows of ``fill_value`` when there are fewer.

    Args:
        input (Tensor): the tensor searched.
        size (int): the number of rows of the result.
        fill_value (int): the value of the padding rows.

    Returns:
        Tensor: an int64 tensor of shape ``(size, input.dim())``.

    Example::

        >>> ember.nonzero_static(ember.tensor([0, 3, 0, 5]), size=3)
        tensor([[ 1],
                [ 3],
                [-1]])
    """
    _int_arg("nonzero_static", "size", size)
    _int_arg("nonzero_static", "fill_value", fill_value)
    if size < 0:
        raise RuntimeError("nonzero_static: 'size' must be an non-negative integer")
    if input.dim() == 0:
        return ember.empty((size, 0), dtype=ember.int64, device=input.device)
    found = ember.nonzero(input)
    n = found.shape[0]
    if n >= size:
        return found[:size].clone() if n > size else found
    pad = ember.full((size - n, input.dim()), fill_value, dtype=ember.int64, device=input.device)
    return ember.cat([found, pad])


def _unrestricted(pieces: Any) -> tuple[Tensor, ...]:
    """The pieces of a split without split's restriction on in-place ops under autograd."""
    for p in pieces:
        p._lift_view_restriction()
    return tuple(pieces)


def unsafe_split(input: Tensor, split_size: int, dim: int = 0) -> tuple[Tensor, ...]:
    """unsafe_split(input, split_size, dim=0) -> tuple of Tensors

    ``split`` into pieces of ``split_size`` along ``dim`` (the last one smaller), without
    PyTorch's autograd restriction on modifying the pieces in place. As with PyTorch's, it is
    safe when only the input or only the outputs are modified in place afterwards.

    Args:
        input (Tensor): the tensor split.
        split_size (int): the size of each piece.
        dim (int): the dimension split.

    Returns:
        tuple of Tensors: the pieces, views of ``input``.

    Example::

        >>> ember.unsafe_split(ember.arange(5), 2)
        (tensor([0, 1]), tensor([2, 3]), tensor([4]))
    """
    _int_arg("unsafe_split", "split_size", split_size, 2)
    return _unrestricted(ember.split(input, split_size, dim))


def unsafe_split_with_sizes(input: Tensor, split_sizes: Any, dim: int = 0) -> tuple[Tensor, ...]:
    """unsafe_split_with_sizes(input, split_sizes, dim=0) -> tuple of Tensors

    ``split_with_sizes`` without PyTorch's autograd restriction on modifying the pieces in
    place (see ``unsafe_split``).

    Args:
        input (Tensor): the tensor split.
        split_sizes (list of ints): the size of each piece; they sum to ``input.size(dim)``.
        dim (int): the dimension split.

    Returns:
        tuple of Tensors: the pieces, views of ``input``.

    Example::

        >>> ember.unsafe_split_with_sizes(ember.arange(5), [1, 4])
        (tensor([0]), tensor([1, 2, 3, 4]))
    """
    return _unrestricted(ember.split_with_sizes(input, split_sizes, dim))


def unsafe_chunk(input: Tensor, chunks: int, dim: int = 0) -> tuple[Tensor, ...]:
    """unsafe_chunk(input, chunks, dim=0) -> tuple of Tensors

    ``chunk`` without PyTorch's autograd restriction on modifying the pieces in place (see
    ``unsafe_split``).

    Args:
        input (Tensor): the tensor split.
        chunks (int): the number of pieces asked for.
        dim (int): the dimension split.

    Returns:
        tuple of Tensors: the pieces, views of ``input``.

    Example::

        >>> ember.unsafe_chunk(ember.arange(4), 2)
        (tensor([0, 1]), tensor([2, 3]))
    """
    _int_arg("unsafe_chunk", "chunks", chunks, 2)
    return _unrestricted(ember.chunk(input, chunks, dim))


def resize_as_(input: Tensor, the_template: Tensor, *, memory_format: Any = None) -> Tensor:
    """resize_as_(input, the_template, *, memory_format=None) -> Tensor

    Resizes ``input`` in place to the shape of ``the_template`` (``Tensor.resize_as_``): the
    elements kept are the leading ones of its memory, new ones are uninitialized.

    Args:
        input (Tensor): the tensor resized.
        the_template (Tensor): the tensor whose shape is taken.
        memory_format (ember.memory_format, optional): the layout of the resized tensor.

    Returns:
        Tensor: ``input``.

    Example::

        >>> x = ember.arange(6.)
        >>> ember.resize_as_(x, ember.empty(2, 2))
        tensor([[0., 1.],
                [2., 3.]])
    """
    if memory_format is None:
        return input.resize_as_(the_template)
    return input.resize_as_(the_template, memory_format=memory_format)


def norm_except_dim(v: Tensor, pow: int = 2, dim: int = 0) -> Tensor:
    """norm_except_dim(v, pow=2, dim=0) -> Tensor

    The ``pow``-norm of ``v`` over every dimension but ``dim``, kept with size 1 (the norm
    weight normalization divides by). ``dim=-1`` takes the norm of the whole tensor.

    Args:
        v (Tensor): a floating-point tensor.
        pow (int): the order of the norm.
        dim (int): the dimension kept; -1 for none.

    Returns:
        Tensor: the norms, of shape ``v.shape`` with every dim but ``dim`` of size 1 (0-d for ``dim=-1``).

    Example::

        >>> ember.norm_except_dim(ember.tensor([[3., 4.], [6., 8.]]))
        tensor([[ 5.],
                [10.]])
    """
    _int_arg("norm_except_dim", "pow", pow, 2)
    _int_arg("norm_except_dim", "dim", dim, 3)
    _floating_for_norm(v)
    if dim == -1:
        return v.norm(pow)
    n = v.dim()
    if n == 0:
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    if not -n <= dim < n:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {dim})")
    dim = dim + n if dim < 0 else dim
    others = [d for d in range(n) if d != dim]
    return v.norm(pow, others, keepdim=True) if others else v.unsqueeze(1).norm(pow, 1)


def _floating_for_norm(t: Tensor) -> None:
    if not t.is_floating_point():
        raise RuntimeError(f"norm(): input dtype should be either floating point or complex. Got {_pretty(t.dtype)} "
                           "instead.")


def embedding_renorm_(input: Tensor, indices: Tensor, max_norm: float, norm_type: float) -> Tensor:
    """embedding_renorm_(input, indices, max_norm, norm_type) -> Tensor

    Scales down in place each row of the 2-d ``input`` that ``indices`` names and whose
    ``norm_type``-norm exceeds ``max_norm``, to norm ``max_norm`` (``embedding``'s ``max_norm``):
    such a row is multiplied by ``max_norm / (norm + 1e-7)``. Rows named twice are scaled once.

    Args:
        input (Tensor): the 2-d embedding table, changed in place.
        indices (Tensor): int64 or int32 row numbers (negative ones count from the end).
        max_norm (float): the largest norm a row keeps.
        norm_type (float): the order of the norm.

    Returns:
        Tensor: ``input``.

    Example::

        >>> w = ember.tensor([[3., 4.], [0.3, 0.4]])
        >>> ember.embedding_renorm_(w, ember.tensor([0, 1]), 1.0, 2.0)
        tensor([[0.6000, 0.8000],
                [0.3000, 0.4000]])
    """
    where = "(while checking arguments for embedding_renorm_)"  # aten's checks, in its order
    if input.dim() != 2:
        raise RuntimeError(f"Expected 2-dimensional tensor, but got {input.dim()}-dimensional tensor for argument #1 "
                           f"'self' {where}")
    if indices.dtype not in (ember.int64, ember.int32):
        raise RuntimeError("Expected tensor for argument #2 'indices' to have one of the following scalar types: "
                           f"Long, Int; but got {indices.type()} instead {where}")
    if input.requires_grad and input.is_leaf and ember.is_grad_enabled():
        raise RuntimeError("a view of a leaf Variable that requires grad is being used in an in-place operation.")
    if input.is_meta:  # no rows to measure (PyTorch's meta kernel does nothing too)
        return input
    rows_n = input.shape[0]
    # aten walks the sorted unique indices, renormalizing each row, and stops at the first bad one
    idx = ember.unique(indices.reshape(-1).long())
    bad = (idx < -rows_n) | (idx >= rows_n)
    first_bad = int(bad.nonzero()[0, 0]) if idx.numel() and bool(bad.any()) else None
    if first_bad is not None and first_bad > 0:
        _renorm_rows(input, idx[:first_bad], max_norm, norm_type)
    elif first_bad is None and idx.numel():
        _renorm_rows(input, idx, max_norm, norm_type)
    if first_bad is not None:
        raise IndexError(f"select(): index {int(idx[first_bad])} out of range for tensor of size "
                         f"{list(input.shape)} at dimension 0")
    return input


def _renorm_rows(input: Tensor, idx: Tensor, max_norm: float, norm_type: float) -> None:
    _floating_for_norm(input)
    with ember.no_grad():
        idx = ember.unique(ember.where(idx < 0, idx + input.shape[0], idx))
        rows = input[idx]
        norms = rows.norm(norm_type, 1, keepdim=True)
        big = norms > max_norm
        if not bool(big.any()):
            return
        from ember._argcheck import no_internal_overlap

        no_internal_overlap(input[0])  # aten scales such a row in place (row *= scale)
        # aten: scale = max_norm / (norm + 1e-7) in double, then row *= scale in the row's opmath type
        scale = ember.where(big, max_norm / (norms.double() + 1e-7), ember.ones_like(norms, dtype=ember.float64))
        opmath = ember.float64 if input.dtype == ember.float64 else ember.float32
        input[idx] = (rows.to(opmath) * scale.to(opmath)).to(input.dtype)


def _grid_coords(n: int, align_corners: bool, dtype: Any, device: Any) -> Tensor:
    """n normalized coordinates in [-1, 1] on theta's device: pixel centres, or corners with align_corners."""
    if n <= 1:
        # aten's at::tensor(0, theta.options()), which has no float16/bfloat16 instance
        if dtype in (ember.float16, ember.bfloat16):
            name = "Half" if dtype == ember.float16 else "BFloat16"
            raise NotImplementedError(f'"tensor_cpu" not implemented for \'{name}\'')
        return ember.zeros(max(n, 0), dtype=dtype, device=device)
    c = ember.linspace(-1.0, 1.0, n, dtype=dtype, device=device)
    return c if align_corners else c * ((n - 1) / n)


def affine_grid_generator(theta: Tensor, size: Any, align_corners: bool) -> Tensor:
    """affine_grid_generator(theta, size, align_corners) -> Tensor

    The sampling grid of a batch of affine maps, without ``F.affine_grid``'s argument checks:
    for ``size`` ``(N, C, H, W)`` each output pixel's normalized ``(x, y, 1)`` times
    ``theta[n]`` transposed (``theta`` ``(N, 2, 3)``), and likewise in 3-d with ``(N, 3, 4)``.

    Args:
        theta (Tensor): the affine matrices.
        size (list of ints): the output size, 4-d or 5-d.
        align_corners (bool): whether -1 and 1 are the corner pixels' centres (else their outer edges).

    Returns:
        Tensor: ``(N, H, W, 2)`` or ``(N, D, H, W, 3)`` points, theta's dtype.

    Example::

        >>> ember.affine_grid_generator(ember.tensor([[[1., 0., 0.], [0., 1., 0.]]]), [1, 1, 1, 2], False)
        tensor([[[[-0.5000,  0.0000],
                  [ 0.5000,  0.0000]]]])
    """
    size = list(size)
    if len(size) not in (4, 5):
        raise RuntimeError("AffineGridGenerator needs 4d (spatial) or 5d (volumetric) inputs.")
    spatial = size[2:]
    n, k = size[0], len(spatial) + 1
    # homogeneous coordinates: x (the last dim) first, then y (and z), then 1 (aten builds this
    # base grid before its bmm checks theta's shape)
    coords = [_grid_coords(s, align_corners, theta.dtype, theta.device) for s in spatial]
    grids = ember.meshgrid(*coords, indexing="ij")
    batch2 = theta.transpose(1, 2)
    if list(batch2.shape[:2]) != [n, k]:
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: [{n}, {k}] but got: "
                           f"{list(batch2.shape[:2])}.")
    base = ember.stack([*reversed(grids), ember.ones_like(grids[0])], -1).reshape(1, -1, k).expand(n, -1, -1)
    return (base @ batch2).view(*size[:1], *spatial, len(spatial))


def _tensor_leaves(tree: Any) -> bool:
    if isinstance(tree, Tensor):
        return True
    if isinstance(tree, (tuple, list)):
        return all(_tensor_leaves(t) for t in tree)
    if isinstance(tree, dict):
        return all(_tensor_leaves(t) for t in tree.values())
    return False


def cond(pred: Any, true_fn: Any, false_fn: Any, operands: tuple | list = ()) -> Any:
    """cond(pred, true_fn, false_fn, operands=()) -> Any

    ``true_fn(*operands)`` if ``pred`` holds, else ``false_fn(*operands)``: PyTorch's
    data-dependent control-flow operator, which ember runs eagerly (as ``torch.compile`` would
    trace both branches, only their results' use differs). A tensor ``pred`` must have one
    element, and then ``operands`` must be a tuple or list whose leaves (through nested lists,
    tuples and dicts) are tensors.

    Args:
        pred (bool or Tensor): the condition: a Python bool / number or a one-element tensor.
        true_fn (Callable): called with ``*operands`` when ``pred`` is true.
        false_fn (Callable): called with ``*operands`` when ``pred`` is false.
        operands (tuple or list): the branches' arguments.

    Returns:
        Any: what the branch taken returns.

    Example::

        >>> x = ember.tensor([1., 2.])
        >>> ember.cond(x.sum() > 0, lambda t: t * 2, lambda t: t - 1, (x,))
        tensor([2., 4.])
    """
    if isinstance(pred, Tensor):
        if pred.numel() != 1:
            raise RuntimeError(f"Expected pred to be bool or single-element tensor, but got {pred}.")
        if not (callable(true_fn) and callable(false_fn)):
            raise RuntimeError("Expect both branches to be callable.")
        if not isinstance(operands, (tuple, list)) or not _tensor_leaves(list(operands)):
            raise RuntimeError("Expect operands to be a tuple of possibly nested dict/list/tuple that only consists of "
                               f"tensor leaves, but got {operands}.")
        pred = bool(pred)
    return (true_fn if pred else false_fn)(*operands)
