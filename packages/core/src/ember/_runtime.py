"""Process-wide settings of PyTorch's top level that ember records or answers truthfully: the
warn-always flag, the inter-op thread count, the default device and tensor type, flush-denormal
mode, anomaly mode, and the build facts ``has_lapack`` / ``has_mkl`` / ``has_openmp`` / ``has_spectral``.

Loaded on first use (``ember._LAZY_NAMES``), so ``import ember`` stays fast.
"""

from __future__ import annotations

import importlib
import importlib.util
import threading
import warnings
from typing import Any

from ember._argcheck import check_names
from ember._lib import _C
from ember._tensor import Tensor

__all__ = ["get_device", "get_num_interop_threads", "has_lapack", "has_mkl", "has_openmp", "has_spectral",
           "is_inference", "is_warn_always_enabled", "legacy_contiguous_format", "set_anomaly_enabled",
           "set_default_device", "set_default_tensor_type", "set_flush_denormal", "set_num_interop_threads",
           "set_warn_always", "get_device_module"]

# Build facts: LAPACK comes from OpenBLAS, the kernels' threads from OpenMP, no MKL; torch.fft
# support is whether ember.fft is installed.
has_lapack = True
has_mkl = False
has_openmp = True
has_spectral = importlib.util.find_spec("ember.fft") is not None
legacy_contiguous_format = _C.contiguous_format

_state: dict[str, Any] = {"warn_always": False, "interop": None, "interop_set": False}
_thread = threading.local()  # the default device is per thread, as PyTorch's device context


def _type_name(v: Any) -> str:
    return type(v).__name__


def set_warn_always(b: Any, /) -> None:
    """set_warn_always(b) -> None

    When ``b`` is True, warnings PyTorch gives once per process are given every time; ember
    records the flag (its warnings go through Python's ``warnings`` filters).

    Args:
        b (bool): the new value of the flag.

    Returns:
        None

    Example::

        >>> ember.set_warn_always(True)
        >>> ember.is_warn_always_enabled()
        True
        >>> ember.set_warn_always(False)
    """
    if not isinstance(b, bool):
        raise RuntimeError(f"setWarnOnlyOnce expects a bool, but got {_type_name(b)}")
    _state["warn_always"] = b


def is_warn_always_enabled() -> bool:
    """is_warn_always_enabled() -> bool

    Whether once-per-process warnings are given every time (see ``ember.set_warn_always``).

    Returns:
        bool: the flag, False at start-up.

    Example::

        >>> ember.is_warn_always_enabled()
        False
    """
    return _state["warn_always"]


def get_num_interop_threads() -> int:
    """get_num_interop_threads() -> int

    The number of threads for inter-op parallelism. ember runs ops one after another and
    parallelizes inside each op, so the number is only recorded: the intra-op thread count
    until ``ember.set_num_interop_threads`` sets it.

    Returns:
        int: the inter-op thread count.

    Example::

        >>> ember.get_num_interop_threads() >= 1
        True
    """
    n = _state["interop"]
    return n if n is not None else max(1, _C.get_num_threads())


def set_num_interop_threads(nthreads: int) -> None:
    """set_num_interop_threads(nthreads) -> None

    Sets the number of inter-op threads; as in PyTorch it may be called once per process, and
    only with a positive integer (ember records the number: see ``get_num_interop_threads``).

    Args:
        nthreads (int): the number of threads, at least 1.

    Returns:
        None

    Example::

        >>> n = ember.get_num_interop_threads()  # ember.set_num_interop_threads(n) may run once
    """
    if not isinstance(nthreads, int) or isinstance(nthreads, bool):
        raise RuntimeError(f"set_num_interop_threads expects an int, but got {_type_name(nthreads)}")
    if nthreads <= 0:
        raise RuntimeError("set_num_interop_threads expects a positive integer")
    if _state["interop_set"]:
        raise RuntimeError("Error: cannot set number of interop threads after parallel work has started or "
                           "set_num_interop_threads called")
    _state["interop"], _state["interop_set"] = nthreads, True


def set_flush_denormal(mode: Any) -> bool:
    """set_flush_denormal(mode) -> bool

    Asks the CPU to flush denormal floats to zero. ember does not switch its worker threads'
    floating-point mode, so it answers truthfully: ``False`` (not configured) for ``mode=True``,
    and ``True`` for ``mode=False`` (denormals are kept, as asked).

    Args:
        mode (bool): True to flush denormals to zero, False to keep them.

    Returns:
        bool: whether the requested mode is in force.

    Example::

        >>> ember.set_flush_denormal(False)
        True
    """
    if not isinstance(mode, bool):
        raise RuntimeError(f"flush_denormal expects a bool, but got {_type_name(mode)}")
    return not mode


def set_anomaly_enabled(enabled: bool, check_nan: bool = True) -> None:
    """set_anomaly_enabled(enabled, check_nan=True) -> None

    Switches autograd's anomaly detection on or off for the process (what
    ``ember.autograd.set_detect_anomaly`` does, without restoring it afterwards).

    Args:
        enabled (bool): whether anomaly detection is on.
        check_nan (bool): whether backward also checks gradients for NaN.

    Returns:
        None

    Example::

        >>> ember.set_anomaly_enabled(True)
        >>> ember.is_anomaly_enabled()
        True
        >>> ember.set_anomaly_enabled(False)
    """
    _C._set_anomaly_enabled(enabled, check_nan)


def is_inference(input: Tensor) -> bool:
    """is_inference(input) -> bool

    Whether ``input`` is an inference tensor: one created under ``ember.inference_mode()``
    (or a view of one).

    Args:
        input (Tensor): the tensor asked about.

    Returns:
        bool: True for an inference tensor.

    Example::

        >>> ember.is_inference(ember.ones(2))
        False
    """
    return input.is_inference()


def get_device(input: Tensor) -> int:
    """get_device(input) -> int

    The index of the device ``input`` is on, ``-1`` for a CPU tensor (every ember tensor).

    Args:
        input (Tensor): the tensor asked about.

    Returns:
        int: the device index, -1 on the CPU.

    Example::

        >>> ember.get_device(ember.ones(2))
        -1
    """
    return input.get_device()


def set_default_device(device: Any) -> None:
    """set_default_device(device) -> None

    Sets the device the factory functions (``zeros``, ``ones``, ``empty``, ``full``, ``arange``,
    ``rand``, ``randn``, ``randint``, ``tensor``, ``as_tensor``, ...; not the ``*_like`` ones) create
    tensors on when no ``device=`` is given, for the calling thread, as PyTorch's does. ``None``
    goes back to the CPU. A CUDA device needs ember's CUDA build (PyTorch's error otherwise); an
    integer names a CUDA device.

    Args:
        device (device or str or int or None): the new default device.

    Returns:
        None

    Example::

        >>> ember.set_default_device("cpu")
        >>> ember.get_default_device()
        device(type='cpu')
        >>> ember.set_default_device(None)
    """
    if device is None:
        _thread.device = None
        _C._set_default_device(None)
        return
    if isinstance(device, int) and not isinstance(device, bool):
        if not _C._cuda_is_compiled() or _C._cuda_device_count() == 0:
            raise RuntimeError("Cannot access accelerator device when none is available.")
        device = _C.device("cuda", device)
    dev = device if isinstance(device, _C.device) else _C.device(device)
    if dev.type == "cuda" and not _C._cuda_is_compiled():
        raise _C.CudaNotCompiledError("Torch not compiled with CUDA enabled")
    if dev.type not in ("cpu", "cuda", "meta"):
        raise RuntimeError(f"ember has no {dev.type} backend: only the CPU, a CUDA device or meta can be the default "
                           "device")
    _C._set_default_device(dev)
    _thread.device = dev


def _device_enter(device: Any) -> None:
    """``with ember.device(...)``'s entry: the thread's default device saved, ``device`` set."""
    before = getattr(_thread, "device", None)
    set_default_device(device)  # may raise (no CUDA build): nothing saved then
    _thread.__dict__.setdefault("device_stack", []).append(before)


def _device_exit(device: Any) -> None:
    """``with ember.device(...)``'s exit: the default device from before the block back."""
    set_default_device(_thread.device_stack.pop())


def default_device() -> Any:
    """The calling thread's device set with set_default_device (the CPU when none is); a CUDA device
    without an index is the current one, as PyTorch reports it."""
    dev = getattr(_thread, "device", None)
    if dev is None:
        return _C.device("cpu")
    if dev.type == "cuda" and dev.index is None:
        return _C.device("cuda", _C._cuda_current_device())
    return dev


def factory_device(device: Any) -> Any:
    """device, or the thread's default device when None (for the Python-level factories)."""
    return device if device is not None else getattr(_thread, "device", None)


def to_factory_device(t: Tensor, device: Any) -> Tensor:
    """t (made on the host) moved to factory_device(device), where that is set."""
    device = factory_device(device)
    return t if device is None else t.to(device)


def _legacy_type(t: Any) -> Any:
    """t, or the object its dotted name names (PyTorch's _import_dotted_name): ``"torch.FloatTensor"``
    and ``"torch.cuda.FloatTensor"`` name ember's legacy types."""
    if isinstance(t, str):
        head, _, name = t.rpartition(".")
        if head in ("torch", "ember", "torch.cuda", "ember.cuda"):
            from ember._legacy_types import types_of

            types = types_of("cuda" if head.endswith("cuda") else "cpu")
            if name in types:
                return types[name]
            if head.endswith("cuda"):
                raise AttributeError(f"module '{head}' has no attribute '{name}'")
        module = importlib.import_module(head or t)  # ModuleNotFoundError, as PyTorch's import of the name
        return getattr(module, name)
    return t


def legacy_device_type() -> str:
    """The device type of ``"torch.Tensor"`` as a legacy type: ``"cuda"`` after this thread's
    ``set_default_tensor_type`` named a CUDA type, else ``"cpu"``."""
    return "cuda" if getattr(_thread, "legacy_cuda", False) else "cpu"


def set_default_tensor_type(t: Any, /) -> None:
    """set_default_tensor_type(t) -> None

    Deprecated in PyTorch 2.1 (use ``set_default_dtype`` and ``set_default_device``): sets the
    default floating-point dtype from a legacy tensor type such as ``ember.DoubleTensor`` or its
    name ``"torch.DoubleTensor"``. Only floating-point types are accepted. A CUDA type
    (``ember.cuda.FloatTensor``, ``"torch.cuda.FloatTensor"``; ember's CUDA build only) also makes
    the factories of the calling thread create tensors on the current CUDA device, as
    ``set_default_device("cuda")``, until a CPU type is set again.

    Args:
        t (type or str): the legacy tensor type or its dotted name.

    Returns:
        None

    Example::

        >>> import warnings
        >>> with warnings.catch_warnings():
        ...     warnings.simplefilter("ignore")
        ...     ember.set_default_tensor_type(ember.DoubleTensor)
        ...     d = ember.ones(1).dtype
        ...     ember.set_default_tensor_type("torch.FloatTensor")
        >>> d
        torch.float64
    """
    from ember._legacy_types import check_available, is_legacy_type

    cls = _legacy_type(t)
    warnings.warn("torch.set_default_tensor_type() is deprecated as of PyTorch 2.1, please use "
                  "torch.set_default_dtype() and torch.set_default_device() as alternatives.", UserWarning,
                  stacklevel=2)
    if not is_legacy_type(cls):
        raise TypeError("invalid type object: only floating-point types are supported as the default type")
    check_available(cls)
    if cls.dtype not in (_C.float16, _C.bfloat16, _C.float32, _C.float64):
        raise TypeError("only floating-point types are supported as the default type")
    _C.set_default_dtype(cls.dtype)
    if cls.is_cuda:
        set_default_device("cuda")
        _thread.legacy_cuda = True
    elif getattr(_thread, "legacy_cuda", False):
        set_default_device(None)
        _thread.legacy_cuda = False


# PyTorch's parser TypeErrors for the Tensor / bool arguments (these names load lazily, after
# ember/__init__.py wrapped its own).
check_names(globals(), ["get_device", "is_inference", "set_anomaly_enabled"])


def get_device_module(device: Any = None) -> Any:
    """get_device_module(device=None)

    The module of a device type (``ember.cpu``, ``ember.cuda``): of ``device`` (an
    ``ember.device`` or a string), or of the current accelerator (none here, so ``ember.cpu``).

    Example::

        >>> ember.get_device_module("cpu").__name__
        'ember.cpu'
    """
    if device is None:
        kind = "cpu"
    elif isinstance(device, (str, _C.device)):
        kind = _C.device(device).type
    else:
        raise RuntimeError(f"Invalid value of device '{device}', expect torch.device, str, or None")
    if kind not in ("cpu", "cuda"):
        raise RuntimeError(f"Device '{kind}' does not have a corresponding module registered as 'torch.{kind}'.")
    return importlib.import_module(f"ember.{kind}")
