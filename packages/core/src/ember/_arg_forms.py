"""Argument forms PyTorch accepts that the generated bindings do not: norm(p="fro"|"nuc"),
std_mean/var_mean(unbiased=), tensor_split with a tensor of indices, and the Tensor methods
cholesky_solve/cholesky_inverse/resize_/resize_as_. Each wrapper handles its form and hands every
other call to the compiled function unchanged."""

from __future__ import annotations

from typing import Any

import ember
from ember._lib import _C
from ember._out import write
from ember._tensor import Tensor

_c_norm = _C.norm
_c_std_mean = _C.std_mean
_c_var_mean = _C.var_mean
_c_tensor_split = _C.tensor_split


def norm(input: Tensor, p: Any = "fro", dim: Any = None, keepdim: bool = False, out: Tensor | None = None,
         dtype: Any = None) -> Tensor:
    """The p-norm of input over dim; p="fro" is the 2-norm over dim (all of it by default), "nuc" the
    nuclear norm of the matrices over dim (the last two dims by default)."""
    if isinstance(dim, int) and not isinstance(dim, bool):  # PyTorch's norm passes a one-element list on
        dim = [dim]
    if isinstance(p, str):
        if p == "fro" and (dim is None or isinstance(dim, int) or len(dim) <= 2):
            result = _c_norm(input, 2, dim, keepdim, **({} if dtype is None else {"dtype": dtype}))
        else:  # any other string (and "fro" over more than two dims) is matrix_norm's, over every dim by default
            dims = list(range(input.dim())) if dim is None else dim
            if dtype is not None:
                input = input.to(dtype)
            result = ember.linalg.matrix_norm(input, p, dim=dims, keepdim=keepdim)
        return write(result, out, grad="linalg_vector_norm" if p == "fro" else None, inputs=(input,))
    kwargs: dict[str, Any] = {}
    if dtype is not None:
        kwargs["dtype"] = dtype
    return write(_c_norm(input, p, dim, keepdim, **kwargs), out, grad="linalg_vector_norm", inputs=(input,))


def _unbiased_form(c_fn: Any, name: str) -> Any:
    def fn(input: Tensor, *args: Any, **kwargs: Any) -> Any:
        unbiased = kwargs.pop("unbiased", None)
        if args and isinstance(args[0], bool):  # (input, unbiased)
            unbiased, args = args[0], args[1:]
        elif len(args) >= 2 and isinstance(args[1], bool):  # (input, dim, unbiased[, keepdim])
            unbiased = args[1]
            if len(args) > 2:
                kwargs["keepdim"] = args[2]
            args = args[:1]
        if unbiased is not None:
            if "correction" in kwargs:
                raise TypeError(f"{name}() received an invalid combination of arguments - got both 'unbiased' "
                                "and 'correction'")
            kwargs["correction"] = 1 if unbiased else 0
        return c_fn(input, *args, **kwargs)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = getattr(c_fn, "__doc__", None)
    return fn


std_mean = _unbiased_form(_c_std_mean, "std_mean")
var_mean = _unbiased_form(_c_var_mean, "var_mean")


def tensor_split(input: Tensor, indices_or_sections: Any, dim: int = 0) -> tuple[Tensor, ...]:
    """tensor_split where indices_or_sections may also be a 0-d (sections) or 1-d (indices) int64 tensor."""
    if isinstance(indices_or_sections, Tensor):
        t = indices_or_sections
        if t.dtype != ember.int64:
            raise RuntimeError(f"tensor_split expected tensor_indices_or_sections to have dtype of long, but got "
                               f"{str(t.dtype).replace('torch.', '')}")
        if t.dim() > 1:
            raise RuntimeError(f"tensor_split expected tensor_indices_or_sections to be a zero-dimensional or "
                               f"one-dimensional tensor, but got a tensor with {t.dim()} dims")
        indices_or_sections = t.item() if t.dim() == 0 else t.tolist()
    return _c_tensor_split(input, indices_or_sections, dim)


def _size_int(s: Any) -> int | None:
    """One element of an int-list argument as PyTorch's parser takes it (an int, or an integer tensor of one
    element), else None."""
    if isinstance(s, int):
        return int(s)
    if isinstance(s, Tensor) and s.numel() == 1 and not (s.is_floating_point() or s.is_complex()):
        return int(s.item())
    return None


def _resize_sizes(size: tuple) -> list[int]:
    """resize_'s ``size`` (one int list, or ints as varargs) parsed as PyTorch's parser does."""
    if not size:
        raise TypeError('resize_() missing 1 required positional arguments: "size"')
    if len(size) == 1 and isinstance(size[0], (list, tuple)):
        items = list(size[0])
    elif _size_int(size[0]) is None:
        if len(size) > 1:
            raise TypeError(f"resize_() takes 1 positional argument but {len(size)} were given")
        raise TypeError(f"resize_(): argument 'size' (position 1) must be tuple of ints, not {type(size[0]).__name__}")
    else:
        items = list(size)
    shape = []
    for j, s in enumerate(items):
        n = _size_int(s)
        if n is None:
            raise TypeError(f"resize_(): argument 'size' failed to unpack the object at pos {j + 1} with error "
                            f'"type must be tuple of ints,but got {type(s).__name__}"')
        if not -(2**63) <= n < 2**63:
            raise TypeError(f"resize_(): argument 'size' failed to unpack the object at pos {j + 1} with error "
                            '"Overflow when unpacking long long"')
        shape.append(n)
    return shape


def resize_(self: Tensor, *size: Any, memory_format: Any = None) -> Tensor:
    """self re-shaped in place to size (contiguous), keeping its storage's leading elements; a larger size
    moves it to a new storage with the old elements first (the rest uninitialised)."""
    shape = _resize_sizes(size)
    if self.requires_grad:
        raise RuntimeError("cannot resize variables that require grad")
    for s in shape:
        if s < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {s}: {shape}")
    if memory_format is _C.preserve_format:
        raise RuntimeError("Unsupported memory formatPreserve")
    # c10's size arithmetic: the sizes multiplied in order in uint64 with a sticky overflow flag, then each
    # stride (a product of the sizes after its dim), then the bytes the storage needs
    numel, wrapped = 1, False
    for s in shape:
        numel *= s
        wrapped = wrapped or numel >= 2**64
        numel %= 2**64
    if wrapped or numel >= 2**63:
        raise RuntimeError("numel: integer multiplication overflow")
    strides = [1] * len(shape)
    for i in range(len(shape) - 2, -1, -1):
        strides[i] = strides[i + 1] * max(shape[i + 1], 1)
        if strides[i] >= 2**63:
            raise RuntimeError("Stride calculation overflowed")
    offset = self.storage_offset()
    if (offset + numel) * self.element_size() >= 2**63:
        raise RuntimeError(f"Storage size calculation overflowed with sizes={shape}")
    _, _, nbytes, _ = _C._storage_info(self)
    capacity = nbytes // self.element_size()
    base = self
    if offset + numel > capacity:
        # on self's device, pinned if self is (aten reallocates with the storage's own allocator)
        grown = ember.empty(offset + numel, dtype=self.dtype, device=self.device,
                            pin_memory=self.device.type == "cpu" and self.is_pinned())
        if capacity:
            grown[:capacity].copy_(_C._as_strided_storage(self, [capacity], [1], 0))
        base, offset = grown, offset
    rank = {_C.channels_last: 4, _C.channels_last_3d: 5}.get(memory_format)
    if rank is not None:
        if len(shape) != rank:
            raise RuntimeError(f"required rank {rank} tensor to use "
                               f"{'channels_last' if rank == 4 else 'channels_last_3d'} format")
        # the channel dim innermost, then the spatial dims from the last, then the batch: each stride the
        # product of the sizes inside it as they are (a zero size zeroes every stride outside it)
        stride = 1
        for d in [1, *range(rank - 1, 1, -1), 0]:
            strides[d] = stride
            stride *= shape[d]
    return _C._set_(self, _C._as_strided_storage(base, shape, strides, offset))


def resize_as_(self: Tensor, the_template: Tensor, *, memory_format: Any = None) -> Tensor:
    """``resize_`` to the shape of ``the_template``."""
    return resize_(self, the_template.shape, memory_format=memory_format)


def cholesky_solve(self: Tensor, input2: Tensor, upper: bool = False) -> Tensor:
    return ember.cholesky_solve(self, input2, upper)


def cholesky_inverse(self: Tensor, upper: bool = False) -> Tensor:
    return ember.cholesky_inverse(self, upper)


def norm_method(self: Tensor, p: Any = "fro", dim: Any = None, keepdim: bool = False, dtype: Any = None) -> Tensor:
    return norm(self, p, dim, keepdim, dtype=dtype)


norm_method.__name__ = norm_method.__qualname__ = "norm"


def tensor_split_method(self: Tensor, indices_or_sections: Any, dim: int = 0) -> tuple[Tensor, ...]:
    return tensor_split(self, indices_or_sections, dim)


tensor_split_method.__name__ = tensor_split_method.__qualname__ = "tensor_split"


def install(namespace: dict[str, Any]) -> None:
    # The method wrappers keep the documented text of what they stand in for.
    for fn, doc_of in ((norm_method, Tensor.norm), (tensor_split_method, Tensor.tensor_split),
                       (cholesky_solve, ember.cholesky_solve), (cholesky_inverse, ember.cholesky_inverse)):
        fn.__doc__ = fn.__doc__ or doc_of.__doc__
    namespace.update(norm=norm, std_mean=std_mean, var_mean=var_mean, tensor_split=tensor_split)
    Tensor.norm = norm_method
    Tensor.tensor_split = tensor_split_method
    Tensor.resize_ = resize_
    Tensor.resize_as_ = resize_as_
    Tensor.cholesky_solve = cholesky_solve
    Tensor.cholesky_inverse = cholesky_inverse
