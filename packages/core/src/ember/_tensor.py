"""``ember.Tensor``: the Python class over the compiled ``_C.TensorBase``.

Ops and operators live in C (generated from ops.yaml); this file adds what is
naturally Python: printing, conversions, NumPy, iteration and the ``new_*`` family.
"""

from __future__ import annotations

from typing import Any

from ember import _torch_function
from ember._lib import _C
from ember._tensor_complex import ComplexMethods
from ember._tensor_dlpack import DLPackMethods
from ember._tensor_linalg_index import ExtraMethods

_LEGACY_NAMES = {
    _C.float32: "FloatTensor", _C.float64: "DoubleTensor", _C.float16: "HalfTensor",
    _C.bfloat16: "BFloat16Tensor", _C.uint8: "ByteTensor", _C.int8: "CharTensor",
    _C.int16: "ShortTensor", _C.int32: "IntTensor", _C.int64: "LongTensor", _C.bool: "BoolTensor",
    _C.complex64: "ComplexFloatTensor", _C.complex128: "ComplexDoubleTensor", _C.complex32: "ComplexHalfTensor",
    _C.uint16: "UInt16Tensor", _C.uint32: "UInt32Tensor", _C.uint64: "UInt64Tensor",
}


# PyTorch's error for a "torch.cuda.*" type name in a build without CUDA (its CUDA lazy init)
_NO_ATEN_CUDA = (
    "Cannot initialize CUDA without ATen_cuda library. PyTorch splits its backend into two shared libraries: a CPU "
    "library and a CUDA library; this error has occurred because you are trying to use some CUDA functionality, but "
    "the CUDA library has not been loaded by the dynamic linker for some reason.  The CUDA library MUST be loaded, "
    "EVEN IF you don't directly use any symbols from the CUDA library! One common culprit is a lack of "
    "-Wl,--no-as-needed in your link arguments; many dynamic linkers will delete dynamic library dependencies if you "
    "don't depend on any of their symbols.  You can check if this has occurred by using ldd on your binary to see if "
    "there is a dependency on *_cuda.so library.")
_BY_TYPE_NAME = {f"torch.{v}": k for k, v in _LEGACY_NAMES.items()}
_HEAPTYPE = 1 << 9  # Py_TPFLAGS_HEAPTYPE: a class defined in Python, whose tp_name has no module


def _type_name(cls: type) -> str:
    """The name Tensor.type reads off a type argument (PyTorch: ``torch.Tensor`` or the type's tp_name)."""
    from ember._legacy_types import full_name, tensortype

    if isinstance(cls, tensortype):
        return full_name(cls)
    if cls is Tensor:
        return "torch.Tensor"
    if cls.__module__ == "builtins" or cls.__flags__ & _HEAPTYPE:
        return cls.__name__
    return f"{cls.__module__}.{cls.__name__}"


def _parse_type_name(name: str) -> tuple[Any, str]:
    """(dtype, device type) of a legacy type name: ``"torch.FloatTensor"``, ``"torch.cuda.LongTensor"``,
    ``"torch.Tensor"`` (the default type); PyTorch's errors otherwise."""
    if name == "torch.Tensor":
        from ember._runtime import legacy_device_type

        return _C.get_default_dtype(), legacy_device_type()
    if name.startswith("torch.cuda."):
        if not _C._cuda_is_compiled():
            raise RuntimeError(_NO_ATEN_CUDA)
        dtype = _BY_TYPE_NAME.get("torch." + name[len("torch.cuda."):])
        device_type = "cuda"
    else:
        dtype, device_type = _BY_TYPE_NAME.get(name), "cpu"
    if dtype is None:
        raise ValueError(f"invalid type: '{name}'")
    return dtype, device_type


def _as_op(name: str, self: Any, fn: Any, *args: Any, **kwargs: Any) -> Any:
    """fn(*args, **kwargs) recorded as the aten op `name` (ops written in Python; profiler active)."""
    _C._record_op_enter(name, self)
    try:
        return fn(*args, **kwargs)
    finally:
        _C._record_function_exit()


def _suggested_format(t: Any) -> Any:
    """aten's suggest_memory_format: channels-last for a 4-d (5-d) tensor laid out so, else contiguous."""
    fmt = {4: _C.channels_last, 5: _C.channels_last_3d}.get(t.dim())
    if fmt is not None and not t.is_contiguous() and _in_memory_format(t, fmt).stride() == t.stride():
        return fmt
    return _C.contiguous_format


def _in_memory_format(t: Any, memory_format: Any) -> Any:
    """t with the strides of memory_format (channels-last: the channel dim innermost, as a permuted copy)."""
    if memory_format is _C.contiguous_format:
        return t.contiguous()
    rank = {_C.channels_last: 4, _C.channels_last_3d: 5}.get(memory_format)
    if rank is None:
        return t
    if t.dim() != rank:
        raise RuntimeError(f"required rank {rank} tensor to use {'channels_last' if rank == 4 else 'channels_last_3d'}"
                           " format")
    inner = list(range(2, rank)) + [1]  # N, spatial..., C
    order = [0] + inner
    back = [order.index(i) for i in range(rank)]
    want = t.permute(order).contiguous().permute(back)
    return t if t.stride() == want.stride() else want



def _new_size(args: tuple[Any, ...], size_kw: dict[str, Any], name: str) -> tuple[Any, ...]:
    """The size of new_empty / new_zeros / new_ones: positional, or the ``size=`` keyword PyTorch
    also takes (not both)."""
    if not size_kw:
        return args
    unknown = [k for k in size_kw if k != "size"]
    if unknown:
        raise TypeError(f"{name}() got an unexpected keyword argument '{unknown[0]}'")
    if args:
        raise TypeError(f"{name}() got multiple values for argument 'size'")
    return (size_kw["size"],)

class Tensor(_C.TensorBase, DLPackMethods, ExtraMethods, ComplexMethods):
    """A multi-dimensional array with a single dtype, as ``torch.Tensor``."""

    __array_priority__ = 1000  # so ``ndarray + tensor`` defers to the tensor

    @classmethod
    def __torch_function__(cls, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
        """Runs ``func`` with subclass dispatch off and returns its tensors as ``cls`` (so an op on
        a subclass instance gives a subclass instance)."""
        return _torch_function.default_torch_function(cls, func, types, args, kwargs)

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        _torch_function.count_subclass(cls)  # the bindings consult __torch_function__ from now on
    nonzero = ExtraMethods.nonzero  # before TensorBase's generated one: adds as_tuple=

    # __repr__, __format__ and __array__ consult __torch_function__ as PyTorch's do (with its
    # keyword arguments); __iter__ does not, its dim() and unbind() do.
    def __repr__(self, *, tensor_contents: str | None = None) -> str:
        if _C._has_torch_function_unary(self):
            return _torch_function.handle_torch_function(  # type: ignore[no-any-return]
                Tensor.__repr__, (self,), self, tensor_contents=tensor_contents)
        from ember._tensor_str import tensor_repr

        return tensor_repr(self, tensor_contents=tensor_contents)

    def __format__(self, spec: str) -> str:
        if _C._has_torch_function_unary(self):
            return _torch_function.handle_torch_function(Tensor.__format__, (self,), self, spec)  # type: ignore
        if self.dim() == 0 and type(self) is Tensor:  # f"{t}" of a plain 0-d tensor: its number
            return self.detach().item().__format__(spec)
        return object.__format__(self, spec)

    def __iter__(self) -> Any:
        if self.dim() == 0:
            raise TypeError("iteration over a 0-d tensor")
        return iter(self.unbind(0))

    def __contains__(self, element: Any) -> bool:
        return bool((self == element).any().item())

    def __array__(self, dtype: Any = None, copy: Any = None) -> Any:
        if _C._has_torch_function_unary(self):
            kwargs = {"dtype": dtype} if copy is None else {"dtype": dtype, "copy": copy}
            return _torch_function.handle_torch_function(Tensor.__array__, (self,), self, **kwargs)
        a = self.numpy()
        return a if dtype is None else a.astype(dtype, copy=False)

    def __array_wrap__(self, array: Any) -> Tensor:
        """A NumPy ufunc's result as a tensor (``np.sin(t)`` is a tensor); bool arrays come back as
        uint8, as PyTorch's do."""
        import numpy as np

        from ember._numpy import from_numpy

        if not isinstance(array, np.ndarray):
            raise TypeError(f"expected np.ndarray (got {type(array).__module__}.{type(array).__name__})")
        return from_numpy(array.astype("uint8") if array.dtype == bool else array)

    def __deepcopy__(self, memo: dict[Any, Any]) -> Tensor:
        """A new leaf with copied data (views of one storage stay views of one copied storage),
        the same requires_grad, a deep-copied ``.grad`` and instance attributes, as PyTorch."""
        if not self.is_leaf:
            raise RuntimeError("Only Tensors created explicitly by the user (graph leaves) support the deepcopy "
                               "protocol at the moment.  If you were attempting to deepcopy a module, this may be "
                               "because of a torch.nn.utils.weight_norm usage, see "
                               "https://github.com/pytorch/pytorch/pull/103001")
        if id(self) in memo:
            return memo[id(self)]  # type: ignore[no-any-return]
        import copy

        import ember

        with ember.no_grad():
            storage = self.untyped_storage()
            if storage.nbytes() and self.layout == _C.strided and not self.is_conj() and not self.is_neg():
                # one copy per storage (keyed by its address; the originals are kept alive in memo's
                # keep-alive list so an address is not reused while copying)
                key = ("ember.deepcopy.storage", storage.data_ptr(), str(self.device))
                new_storage = memo.get(key)
                if new_storage is None:
                    new_storage = memo[key] = storage.clone()
                    memo.setdefault(id(memo), []).append(storage)
                r = _C.empty(0, dtype=self.dtype, device=self.device).set_(
                    new_storage, self.storage_offset(), self.size(), self.stride())
                if type(self) is not Tensor:
                    r = r.as_subclass(type(self))
            else:
                r = self.clone()
        r.requires_grad_(self.requires_grad)
        if self.grad is not None:
            r.grad = copy.deepcopy(self.grad, memo)
        for k, v in self.__dict__.items():
            setattr(r, k, copy.deepcopy(v, memo))
        memo[id(self)] = r
        return r

    def numpy(self, *, force: bool = False) -> Any:
        """An ndarray sharing this tensor's memory (CPU tensors only)."""
        from ember._numpy import to_numpy

        return to_numpy(self, force)

    # ---- conversions -------------------------------------------------------
    def to(self, *args: Any, **kwargs: Any) -> Tensor:
        """Return a tensor with the requested dtype and/or device (``self`` if nothing changes)."""
        if not _C._profiler_active():
            return self._to(*args, **kwargs)
        return _as_op("aten::to", self, self._to, *args, **kwargs)

    def _to(self, *args: Any, **kwargs: Any) -> Tensor:
        dtype = kwargs.pop("dtype", None)
        device = kwargs.pop("device", None)
        copy = kwargs.pop("copy", False)
        non_blocking = kwargs.pop("non_blocking", False)
        memory_format = kwargs.pop("memory_format", None)
        if kwargs:
            raise TypeError(f"to() got an unexpected keyword argument '{next(iter(kwargs))}'")
        flags = []  # positional bools: non_blocking, then copy
        for a in args:
            if isinstance(a, _C.dtype):
                dtype = a
            elif isinstance(a, (str, _C.device, int)) and not isinstance(a, bool):
                device = a
            elif isinstance(a, _C.TensorBase):
                dtype, device = a.dtype, a.device
            elif isinstance(a, bool):
                flags.append(a)
            else:
                raise TypeError(f"to() received an invalid combination of arguments - got {type(a).__name__}")
        if flags:
            non_blocking = flags[0]
            copy = flags[1] if len(flags) > 1 else copy
        r = self
        if device is not None:
            from ember._device_move import same_device, to_device

            target = _C.device(device)
            if not same_device(self, target):
                # cast where the kernels are sure to exist: before going to a GPU, after leaving it
                if target.type != "cpu" and dtype is not None and dtype != self.dtype:
                    r = self._cast(dtype)
                r = to_device(r, target, non_blocking)
                if dtype is not None and dtype != r.dtype:
                    r = r._cast(dtype)
                return r if memory_format in (None, _C.preserve_format) else _in_memory_format(r, memory_format)
        if dtype is not None and dtype != self.dtype:
            r = self._cast(dtype)
        elif copy:
            r = self.clone()
        if memory_format is not None and memory_format != _C.preserve_format:
            # aten's to_will_alias: no copy when the layout already suggests memory_format
            if r is not self or _suggested_format(self) is not memory_format:
                r = _in_memory_format(r, memory_format)
        return r

    def _cast(self, dtype: Any) -> Tensor:
        return _C._to_copy(self, dtype=dtype)

    def type(self, dtype: Any = None, non_blocking: bool = False, **kwargs: Any) -> Any:
        """type(dtype=None, non_blocking=False)

        With no argument, the legacy type name: ``'torch.FloatTensor'``, ``'torch.cuda.FloatTensor'``
        for a CUDA tensor. Else the tensor converted to ``dtype``: an ``ember.dtype`` (the device
        stays), or a legacy type or its name (``ember.cuda.DoubleTensor``, ``"torch.LongTensor"``),
        which also names the device type (a CPU type brings a CUDA tensor to the CPU; a CUDA type
        brings a CPU tensor to the current CUDA device). The tensor itself when nothing changes.

        Args:
            dtype (ember.dtype or type or str, optional): the target.
            non_blocking (bool): copy asynchronously where the devices allow it.

        Returns:
            the name (a str), or the converted tensor.

        Example::

            >>> ember.ones(2).type()
            'torch.FloatTensor'
            >>> ember.ones(2).type("torch.LongTensor")
            tensor([1, 1])
        """
        dtype = kwargs.pop("dtype", dtype)
        if dtype is None:
            name = _LEGACY_NAMES[self.dtype]
            return {"cuda": "torch.cuda.", "meta": "torch.meta."}.get(self.device.type, "torch.") + name
        if isinstance(dtype, _C.dtype):
            return self.to(dtype, non_blocking=non_blocking)
        if isinstance(dtype, type):
            dtype = _type_name(dtype)
        elif not isinstance(dtype, str):
            raise TypeError("dtype must be a type, str, or dtype object")
        dtype, device_type = _parse_type_name(dtype)
        device = self.device if device_type == self.device.type else _C.device(device_type)
        return self.to(device, dtype, non_blocking=non_blocking)

    def type_as(self, other: Tensor) -> Tensor:
        """Returns this tensor converted to ``other``'s dtype (itself when the dtypes already match).

        Args:
            other (Tensor): the tensor whose dtype is wanted.

        Returns:
            Tensor: the converted tensor.

        Example::

            >>> ember.tensor([1, 2]).type_as(ember.tensor([0.5]))
            tensor([1., 2.])
        """
        if not _C._profiler_active():
            return self.to(other.dtype)
        return _as_op("aten::type_as", self, self.to, other.dtype)

    def cpu(self, memory_format: Any = None) -> Tensor:
        """Returns the tensor on the CPU: the tensor itself when it is there already, else a copy.

        Args:
            memory_format (ember.memory_format): accepted for compatibility.

        Returns:
            Tensor: ``self`` or its copy on the CPU.
        """
        if self.device.type != "cpu":
            return self.to("cpu")
        return self.to("cpu") if _C._profiler_active() else self  # torch records its aten::to

    def cuda(self, device: Any = None, non_blocking: bool = False, **kwargs: Any) -> Tensor:
        """Returns a copy on a CUDA device (the current one by default; the tensor itself when it
        is there already). In a build without CUDA it raises, as a CPU-only PyTorch does.

        Raises:
            AssertionError: ember is not compiled with CUDA.
        """
        if isinstance(device, int) and not isinstance(device, bool):
            device = _C.device("cuda", device)
        return self.to(_C.device("cuda") if device is None else device, non_blocking=non_blocking, **kwargs)

    def _cast_in(self, dtype: Any, memory_format: Any, name: str) -> Tensor:
        """self.to(dtype) laid out in memory_format (torch's x.float(memory_format=...) and friends)."""
        if memory_format is _C.preserve_format:
            return self.to(dtype)
        if type(memory_format) is not _C.memory_format:
            raise TypeError(f"{name}(): argument 'memory_format' must be torch.memory_format, not "
                            f"{type(memory_format).__name__}")
        return self.to(dtype, memory_format=memory_format)

    def float(self, memory_format: Any = _C.preserve_format) -> Tensor:
        """Returns this tensor converted to float32 (``self.to(ember.float32)``); the tensor
        itself when it already has that dtype.

        Args:
            memory_format (ember.memory_format): the memory layout of a converted result.

        Returns:
            Tensor: the converted tensor.

        Example::

            >>> ember.tensor([1, 2]).float()
            tensor([1., 2.])
        """
        return self._cast_in(_C.float32, memory_format, "float")

    def double(self, memory_format: Any = _C.preserve_format) -> Tensor:
        """Returns this tensor converted to float64 (``self.to(ember.float64)``); the tensor
        itself when it already has that dtype.

        Args:
            memory_format (ember.memory_format): the memory layout of a converted result.

        Returns:
            Tensor: the converted tensor.

        Example::

            >>> ember.tensor([1, 2]).double()
            tensor([1., 2.], dtype=torch.float64)
        """
        return self._cast_in(_C.float64, memory_format, "double")

    def half(self, memory_format: Any = _C.preserve_format) -> Tensor:
        """Returns this tensor converted to float16 (``self.to(ember.float16)``); the tensor
        itself when it already has that dtype.

        Args:
            memory_format (ember.memory_format): the memory layout of a converted result.

        Returns:
            Tensor: the converted tensor.

        Example::

            >>> ember.tensor([1, 2]).half()
            tensor([1., 2.], dtype=torch.float16)
        """
        return self._cast_in(_C.float16, memory_format, "half")

    def bfloat16(self, memory_format: Any = _C.preserve_format) -> Tensor:
        """Returns this tensor converted to bfloat16 (``self.to(ember.bfloat16)``); the tensor
        itself when it already has that dtype.

        Args:
            memory_format (ember.memory_format): the memory layout of a converted result.

        Returns:
            Tensor: the converted tensor.

        Example::

            >>> ember.tensor([1, 2]).bfloat16()
            tensor([1., 2.], dtype=torch.bfloat16)
        """
        return self._cast_in(_C.bfloat16, memory_format, "bfloat16")

    def int(self, memory_format: Any = _C.preserve_format) -> Tensor:
        """Returns this tensor converted to int32 (rounding toward zero) (``self.to(ember.int32)``); the tensor
        itself when it already has that dtype.

        Args:
            memory_format (ember.memory_format): the memory layout of a converted result.

        Returns:
            Tensor: the converted tensor.

        Example::

            >>> ember.tensor([1.7, -2.5]).int()
            tensor([ 1, -2], dtype=torch.int32)
        """
        return self._cast_in(_C.int32, memory_format, "int")

    def long(self, memory_format: Any = _C.preserve_format) -> Tensor:
        """Returns this tensor converted to int64 (rounding toward zero) (``self.to(ember.int64)``); the tensor
        itself when it already has that dtype.

        Args:
            memory_format (ember.memory_format): the memory layout of a converted result.

        Returns:
            Tensor: the converted tensor.

        Example::

            >>> ember.tensor([1.7, -2.5]).long()
            tensor([ 1, -2])
        """
        return self._cast_in(_C.int64, memory_format, "long")

    def short(self, memory_format: Any = _C.preserve_format) -> Tensor:
        """Returns this tensor converted to int16 (rounding toward zero) (``self.to(ember.int16)``); the tensor
        itself when it already has that dtype.

        Args:
            memory_format (ember.memory_format): the memory layout of a converted result.

        Returns:
            Tensor: the converted tensor.

        Example::

            >>> ember.tensor([1.7, -2.5]).short()
            tensor([ 1, -2], dtype=torch.int16)
        """
        return self._cast_in(_C.int16, memory_format, "short")

    def char(self, memory_format: Any = _C.preserve_format) -> Tensor:
        """Returns this tensor converted to int8 (rounding toward zero) (``self.to(ember.int8)``); the tensor
        itself when it already has that dtype.

        Args:
            memory_format (ember.memory_format): the memory layout of a converted result.

        Returns:
            Tensor: the converted tensor.

        Example::

            >>> ember.tensor([1.7, -2.5]).char()
            tensor([ 1, -2], dtype=torch.int8)
        """
        return self._cast_in(_C.int8, memory_format, "char")

    def byte(self, memory_format: Any = _C.preserve_format) -> Tensor:
        """Returns this tensor converted to uint8 (rounding toward zero) (``self.to(ember.uint8)``); the tensor
        itself when it already has that dtype.

        Args:
            memory_format (ember.memory_format): the memory layout of a converted result.

        Returns:
            Tensor: the converted tensor.

        Example::

            >>> ember.tensor([1.7, 200.0]).byte()
            tensor([  1, 200], dtype=torch.uint8)
        """
        return self._cast_in(_C.uint8, memory_format, "byte")

    def bool(self, memory_format: Any = _C.preserve_format) -> Tensor:
        """Returns this tensor converted to bool (non-zero is True) (``self.to(ember.bool)``); the tensor
        itself when it already has that dtype.

        Args:
            memory_format (ember.memory_format): the memory layout of a converted result.

        Returns:
            Tensor: the converted tensor.

        Example::

            >>> ember.tensor([0.0, 3.0]).bool()
            tensor([False,  True])
        """
        return self._cast_in(_C.bool, memory_format, "bool")

    # ---- new_* : same dtype and device as self unless given ------------------
    def new_tensor(self, data: Any, dtype: Any = None, device: Any = None, requires_grad: bool = False) -> Tensor:
        """A new tensor holding a copy of ``data``, with this tensor's dtype unless ``dtype`` is given.

        Args:
            data (array_like): nested lists, a number or a tensor.
            dtype (ember.dtype, optional): the result's dtype.
            device (ember.device, optional): the result's device (this tensor's unless given).
            requires_grad (bool): whether autograd records operations on the result.

        Returns:
            Tensor: the new tensor.

        Example::

            >>> ember.zeros(1, dtype=ember.float64).new_tensor([1, 2])
            tensor([1., 2.], dtype=torch.float64)
        """
        from ember import tensor

        return tensor(data, dtype=dtype or self.dtype, device=device or self.device, requires_grad=requires_grad)

    def new_empty(self, *size: Any, dtype: Any = None, device: Any = None, requires_grad: bool = False,
                  layout: Any = None, pin_memory: bool = False, **size_kw: Any) -> Tensor:
        """A new uninitialized tensor of the given size, with this tensor's dtype unless ``dtype`` is given.

        Args:
            *size (int or sequence of int): the shape.
            dtype (ember.dtype, optional): the result's dtype.
            device (ember.device, optional): the result's device (this tensor's unless given).
            requires_grad (bool): whether autograd records operations on the result.
            layout (ember.layout, optional): ``ember.strided`` (the only layout).
            pin_memory (bool): page-locked host memory (needs a GPU, as in PyTorch).

        Returns:
            Tensor: the new tensor (its values are whatever the memory held).

        Example::

            >>> ember.ones(1, dtype=ember.int32).new_empty(2, 3).shape
            torch.Size([2, 3])
        """
        return _C.empty(*_new_size(size, size_kw, "new_empty"), dtype=dtype or self.dtype, device=device or self.device,
                      requires_grad=requires_grad, layout=layout, pin_memory=pin_memory)

    def new_zeros(self, *size: Any, dtype: Any = None, device: Any = None, requires_grad: bool = False,
                  layout: Any = None, pin_memory: bool = False, **size_kw: Any) -> Tensor:
        """A new tensor of zeros of the given size, with this tensor's dtype unless ``dtype`` is given.

        Args:
            *size (int or sequence of int): the shape.
            dtype (ember.dtype, optional): the result's dtype.
            device (ember.device, optional): the result's device (this tensor's unless given).
            requires_grad (bool): whether autograd records operations on the result.
            layout (ember.layout, optional): ``ember.strided`` (the only layout).
            pin_memory (bool): page-locked host memory (needs a GPU, as in PyTorch).

        Returns:
            Tensor: the new tensor.

        Example::

            >>> ember.tensor([1, 2]).new_zeros(3)
            tensor([0, 0, 0])
        """
        return _C.zeros(*_new_size(size, size_kw, "new_zeros"), dtype=dtype or self.dtype, device=device or self.device,
                      requires_grad=requires_grad, layout=layout, pin_memory=pin_memory)

    def new_ones(self, *size: Any, dtype: Any = None, device: Any = None, requires_grad: bool = False,
                  layout: Any = None, pin_memory: bool = False, **size_kw: Any) -> Tensor:
        """A new tensor of ones of the given size, with this tensor's dtype unless ``dtype`` is given.

        Args:
            *size (int or sequence of int): the shape.
            dtype (ember.dtype, optional): the result's dtype.
            device (ember.device, optional): the result's device (this tensor's unless given).
            requires_grad (bool): whether autograd records operations on the result.
            layout (ember.layout, optional): ``ember.strided`` (the only layout).
            pin_memory (bool): page-locked host memory (needs a GPU, as in PyTorch).

        Returns:
            Tensor: the new tensor.

        Example::

            >>> ember.tensor([1.5]).new_ones(2, 2)
            tensor([[1., 1.],
                    [1., 1.]])
        """
        return _C.ones(*_new_size(size, size_kw, "new_ones"), dtype=dtype or self.dtype, device=device or self.device,
                      requires_grad=requires_grad, layout=layout, pin_memory=pin_memory)

    def new_full(self, size: Any, fill_value: Any, *, dtype: Any = None, device: Any = None,
                 requires_grad: bool = False, layout: Any = None, pin_memory: bool = False) -> Tensor:
        """A new tensor of the given size filled with ``fill_value``, with this tensor's dtype unless
        ``dtype`` is given.

        Args:
            size (sequence of int): the shape.
            fill_value (Number): the value of every element.
            dtype (ember.dtype, optional): the result's dtype.
            device (ember.device, optional): the result's device (this tensor's unless given).
            requires_grad (bool): whether autograd records operations on the result.
            layout (ember.layout, optional): ``ember.strided`` (the only layout).
            pin_memory (bool): page-locked host memory (needs a GPU, as in PyTorch).

        Returns:
            Tensor: the new tensor.

        Example::

            >>> ember.tensor([1.0]).new_full((2,), 7)
            tensor([7., 7.])
        """
        return _C.full(size, fill_value, dtype=dtype or self.dtype, device=device or self.device,
                       requires_grad=requires_grad, layout=layout, pin_memory=pin_memory)

    # ---- pickling: values, dtype, shape and requires_grad (subclasses such as
    # Parameter come back as themselves); ember.save is the format for files.
    def __reduce_ex__(self, protocol: int) -> Any:
        t = self.detach().resolve_conj().contiguous()
        raw = t.view(-1).view(_C.uint8).numpy().tobytes() if t.numel() else b""
        return (_rebuild_pickled, (type(self), raw, str(t.dtype).rsplit(".", 1)[-1], tuple(t.shape),
                                   self.requires_grad))

    # ---- autograd ----------------------------------------------------------
    def backward(self, gradient: Any = None, retain_graph: Any = None, create_graph: bool = False,
                 inputs: Any = None) -> None:
        """Accumulate the gradient of this tensor into the leaves' ``.grad``."""
        from ember.autograd import backward

        backward(self, gradient, retain_graph, create_graph, inputs=inputs)

    def register_hook(self, hook: Any) -> Any:
        """Call ``hook(grad)`` when this tensor's gradient is computed; it may return a replacement."""
        return _C._register_tensor_hook(self, hook)

    def register_post_accumulate_grad_hook(self, hook: Any) -> Any:
        """Call ``hook(tensor)`` after the gradient was accumulated into this leaf's ``.grad``."""
        return _C._register_post_accumulate_grad_hook(self, hook)

    # Storage sharing. The policy (how shared memory is made and passed between
    # processes) lives in ember.multiprocessing; the core only swaps storages.
    # (set_, untyped_storage and storage are ember/_tensor_storage.py's)
    def is_shared(self) -> bool:
        """Whether the storage lives in shared memory (see ``share_memory_``)."""
        return _C._storage_info(self)[3]

    def share_memory_(self) -> Tensor:
        """Move the storage into shared memory, in place (no-op if already shared)."""
        from ember.multiprocessing._shared_memory import share_memory_

        return share_memory_(self)


def _rebuild_pickled(cls: type, raw: bytes, dtype: str, shape: tuple, requires_grad: bool) -> Tensor:
    """Inverse of Tensor.__reduce_ex__."""
    import numpy as np

    dt = getattr(_C, dtype)
    from ember._numpy import from_numpy

    flat = from_numpy(np.frombuffer(raw, dtype=np.uint8).copy()) if raw else _C.empty(0, dtype=_C.uint8)
    t = flat.view(dt).reshape(shape) if raw else _C.empty(shape, dtype=dt)
    if cls is not Tensor:
        return Tensor._make_subclass(cls, t, requires_grad)
    return t.requires_grad_(requires_grad) if requires_grad else t
