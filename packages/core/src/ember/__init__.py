"""ember: PyTorch's Python API on a lean, fast core.

``import ember as torch`` — tensors, dtypes, ops and (with the sibling
distributions installed) ``ember.nn``, ``ember.optim``, ``ember.utils.data``.
"""

from __future__ import annotations

import pkgutil

# Sibling distributions (ember-nn, ember-data, ...) add subpackages here.
__path__ = pkgutil.extend_path(__path__, __name__)

import builtins as _builtins  # noqa: E402  (int/float/bool below are dtypes)
import warnings as _warnings  # noqa: E402
from typing import TYPE_CHECKING as _TYPE_CHECKING  # noqa: E402
from typing import Any as _Any  # noqa: E402

from ember._lib import _C  # noqa: E402
from ember._siblings import PROVIDERS as _PROVIDERS  # noqa: E402
from ember._siblings import import_sibling as _import_sibling  # noqa: E402
from ember._siblings import install_finder as _install_finder  # noqa: E402
from ember._size import Size as Size  # noqa: E402  (`as`: re-exported for mypy --strict)
from ember._tensor import Tensor as Tensor  # noqa: E402
from ember.version import __version__ as __version__  # noqa: E402, F401  (public)

_C._set_tensor_class(Tensor)
_C._set_size_class(Size)
_install_finder()

# Types, dtypes, layouts and every generated op function.
TensorBase = _C.TensorBase
dtype = _C.dtype
device = _C.device
layout = _C.layout
memory_format = _C.memory_format
globals().update(
    {k: v for k, v in vars(_C).items() if not k.startswith("_") and k not in ("TensorBase",)}
)
if _TYPE_CHECKING:  # what the update above brings in, for type checkers (stub ember/_C.pyi)
    from ember._C import *  # noqa: F403, TID251

# Random numbers: Generator, default_generator and the samplers (rand, randint, normal, ...)
# come from _C above; seeding and state live in ember.random.
from ember import random as random  # noqa: E402, F401
from ember._linalg_einsum import einsum as einsum, tensordot as tensordot  # noqa: E402, F401
from ember._linalg_top import (  # noqa: E402, F401, E501
    chain_matmul,
    cholesky_inverse,
    cholesky_solve,
    cross,
    det,
    inverse,
    kron,
    logdet,
    matrix_power,
    qr,
    slogdet,
    svd,
    trace,
)
from ember.random import get_rng_state as get_rng_state, initial_seed as initial_seed  # noqa: E402, F401
from ember.random import manual_seed as manual_seed, seed as seed, set_rng_state as set_rng_state  # noqa: E402, F401
from ember._foreach import OPS as _FOREACH_OPS  # noqa: E402  (torch._foreach_* multi-tensor ops)

globals().update(_FOREACH_OPS)

from ember import _toplevel_dropout, _toplevel_math, _toplevel_nn, _toplevel_nn_losses  # noqa: E402  (torch.dropout, ...)
from ember import _composite_pointwise, _composite_scan, _composite_shape  # noqa: E402  (cummax, isin, ...)
from ember import _composite_hash, _composite_histogramdd, _composite_index_reduce, _unique  # noqa: E402
from ember import _composite_aten  # noqa: E402  (nonzero_static, unsafe_split, norm_except_dim, cond, ...)

for _module in (_toplevel_dropout, _toplevel_math, _toplevel_nn, _toplevel_nn_losses, _composite_pointwise,
                _composite_scan, _composite_shape, _composite_hash, _composite_histogramdd, _composite_index_reduce,
                _unique, _composite_aten):
    globals().update({name: getattr(_module, name) for name in _module.__all__})
globals().update(_composite_shape.COPIES)  # torch.*_copy


def tensor(data: _Any, *, dtype: _Any = None, device: _Any = None, requires_grad: bool = False,
           pin_memory: bool = False) -> Tensor:
    """Construct a tensor by copying ``data`` (nested sequences, numbers, arrays, tensors)."""
    if device is None:
        from ember._runtime import factory_device

        device = factory_device(None)
    if isinstance(data, Tensor):
        _warnings.warn(
            "To copy construct from a tensor, it is recommended to use sourceTensor.detach().clone() "
            "or sourceTensor.detach().clone().requires_grad_(True), rather than torch.tensor("
            "sourceTensor).",
            UserWarning,
            stacklevel=2,
        )
        t = data.detach().clone()
        if dtype is not None:
            t = t.to(dtype)
    elif type(data).__module__ == "numpy":
        import numpy as np

        t = from_numpy(np.array(data)).clone()
        if dtype is not None:
            t = t.to(dtype)
    else:
        t = _C._tensor_from_data(data, dtype)
    if device is not None and _C.device(device).type != "cpu":
        t = t.to(device)  # built on the host, then copied over (PyTorch's own error without CUDA)
    if requires_grad:
        t.requires_grad_(True)
    return t


def as_tensor(data: _Any, dtype: _Any = None, device: _Any = None) -> Tensor:
    """Convert ``data`` to a tensor, sharing memory when dtype and device allow."""
    if device is None:
        from ember._runtime import factory_device

        device = factory_device(None)
    if isinstance(data, Tensor):
        return data.to(device=device, dtype=dtype) if dtype is not None or device is not None else data
    if type(data).__module__ == "numpy":  # numpy is imported already: data came from it
        import numpy as _np

        if isinstance(data, _np.ndarray):  # an array shares its memory; a NumPy scalar is copied below
            t = from_numpy(data)
            return t.to(device=device, dtype=dtype) if dtype is not None or device is not None else t
    return tensor(data, dtype=dtype, device=device)


def from_numpy(ndarray: _Any) -> Tensor:
    """A tensor sharing memory with a NumPy array (writes show on both sides)."""
    from ember._numpy import from_numpy as _from_numpy

    return _from_numpy(ndarray)


def is_tensor(obj: _Any) -> bool:
    """True if ``obj`` is an ember tensor."""
    return isinstance(obj, Tensor)


def numel(input: Tensor) -> int:
    """The number of elements in ``input``."""
    return input.numel()


def is_floating_point(input: Tensor) -> bool:
    """True if ``input``'s dtype is a floating-point type (float16, bfloat16, float32, float64)."""
    return input.is_floating_point()


def is_complex(input: Tensor) -> bool:
    """True if ``input``'s dtype is complex (complex64 or complex128)."""
    return input.is_complex()


def is_nonzero(input: Tensor) -> bool:
    """True if the single element of ``input`` is non-zero; RuntimeError for other sizes."""
    if input.numel() != 1:
        raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
    return _builtins.bool(input.item())


def _assert(condition: _Any, message: _Any) -> None:
    """``assert condition, message`` as a function (timm / transformers call it so tracing keeps the check)."""
    if not condition:
        raise AssertionError(message)


def typename(obj: _Any) -> str:
    """The type of ``obj`` as a string: a tensor's legacy type name, else module.qualname (as PyTorch)."""
    if isinstance(obj, Tensor):
        return obj.type()
    module = getattr(obj, "__module__", "") or ""
    prefix = f"{module}." if module not in ("", "builtins", "__builtin__") else ""
    name = getattr(obj, "__qualname__", None) or getattr(obj, "__name__", None) or type(obj).__name__
    return prefix + name


def broadcast_shapes(*shapes: _Any) -> Size:
    """The shape that ``shapes`` broadcast to (PyTorch's rules)."""
    result: list[int] = []
    for s in shapes:
        s = (s,) if isinstance(s, _builtins.int) else tuple(s)
        if len(s) > len(result):
            result = [1] * (len(s) - len(result)) + result
        for i in _builtins.range(1, len(s) + 1):
            a, b = result[-i], s[-i]
            if a != b and a != 1 and b != 1:
                raise RuntimeError(
                    f"Shape mismatch: objects cannot be broadcast to a single shape.  Mismatch is "
                    f"between {a} and {b} at non-singleton dimension {len(result) - i}"
                )
            result[-i] = b if a == 1 else a
    return Size(result)


def set_printoptions(precision: _Any = None, threshold: _Any = None, edgeitems: _Any = None,
                     linewidth: _Any = None, profile: _Any = None, sci_mode: _Any = None) -> None:
    """Set options for printing tensors (as ``torch.set_printoptions``)."""
    from ember._tensor_str import set_printoptions as _set

    _set(precision=precision, threshold=threshold, edgeitems=edgeitems, linewidth=linewidth,
         profile=profile, sci_mode=sci_mode)


def get_default_device() -> device:
    """The device new tensors are created on: the CPU (``set_default_device`` may name an index)."""
    from ember._runtime import default_device

    return default_device()


# save/load/from_dlpack import their machinery (zipfile, pickle, ...) on first call.
def save(obj: _Any, f: _Any, pickle_module: _Any = None, pickle_protocol: _builtins.int = 2,
         _use_new_zipfile_serialization: _builtins.bool = True,
         _disable_byteorder_record: _builtins.bool = False) -> None:
    """Save ``obj`` to a path or binary file in PyTorch's zip format (see ``ember.serialization``)."""
    from ember.serialization import save as _save

    _save(obj, f, pickle_module, pickle_protocol, _use_new_zipfile_serialization, _disable_byteorder_record)


def load(f: _Any, map_location: _Any = None, pickle_module: _Any = None, *,
         weights_only: _Any = None, mmap: _Any = None, **pickle_load_args: _Any) -> _Any:
    """Load an object saved by ``ember.save`` or ``torch.save`` (``weights_only=True`` by default)."""
    from ember.serialization import load as _load

    return _load(f, map_location, pickle_module, weights_only=weights_only, mmap=mmap, **pickle_load_args)


def from_dlpack(ext_tensor: _Any, *, device: _Any = None, copy: _Any = None) -> Tensor:
    """A tensor sharing memory with ``ext_tensor`` (any ``__dlpack__`` producer, or a capsule)."""
    from ember.utils.dlpack import from_dlpack as _from_dlpack

    return _from_dlpack(ext_tensor, device=device, copy=copy)


from ember._tensor_linalg_index import nonzero as nonzero  # noqa: E402  (adds as_tuple=)
from ember import _tensor_composite  # noqa: E402  (Tensor.cummax, .gcd_, .sum_to_size, ...)

_tensor_composite.install()
from ember import _tensor_storage  # noqa: E402  (Tensor.untyped_storage, .storage, .set_(storage), ...)

_tensor_storage.install(Tensor)
from ember._tensor_storage import slice_inverse as slice_inverse  # noqa: E402
from ember import _tensor_legacy_methods  # noqa: E402  (Tensor.new, .apply_, .dim_order, .__reversed__, ...)

_tensor_legacy_methods.install()
from ember import _tensor_flags  # noqa: E402  (is_distributed, Tensor.record_stream)

_tensor_flags.install()
from ember._tensor_flags import is_distributed  # noqa: E402, F401
globals().update(_tensor_composite.toplevel_inplace())
from ember import _special_toplevel  # noqa: E402  (mvlgamma, windows, constants, torch.abs_, ...)

_special_toplevel.install()
globals().update(_special_toplevel.toplevel())
from ember import _arg_forms  # noqa: E402  (norm(p="nuc"), var_mean(unbiased=), ...)

_arg_forms.install(globals())
from ember.autograd import grad_mode as _grad_mode  # noqa: E402

enable_grad = _grad_mode.enable_grad
inference_mode = _grad_mode.inference_mode
is_grad_enabled = _grad_mode.is_grad_enabled
is_inference_mode_enabled = _grad_mode.is_inference_mode_enabled
no_grad = _grad_mode.no_grad
set_grad_enabled = _grad_mode.set_grad_enabled

_where_tensors = where  # noqa: F821, F405  (the generated 3-argument where)


def where(condition: Tensor, input: _Any = None, other: _Any = None, *, out: _Any = None) -> _Any:
    """``where(condition)`` is ``nonzero(condition, as_tuple=True)``; else elementwise select."""
    if input is None and other is None:
        return nonzero(condition, as_tuple=True)
    if out is not None:
        return _where_tensors(condition, input, other, out=out)
    return _where_tensors(condition, input, other)


def is_storage(obj: _Any) -> bool:
    """True if ``obj`` is a storage (an ``UntypedStorage``, a ``TypedStorage``, or one a checkpoint loaded)."""
    import sys

    # no storage exists before its module is imported
    mods = [sys.modules.get("ember.storage"), sys.modules.get("ember.serialization._storage")]
    kinds = tuple(getattr(m, n) for m, names in zip(mods, (("UntypedStorage", "TypedStorage"),
                                                           ("LoadedStorage", "TypedStorage")))
                  if m is not None for n in names)
    return len(kinds) > 0 and isinstance(obj, kinds)


# Names whose modules load on first use (`import ember` stays fast): name -> module defining it.
_LAZY_NAMES = {
    "finfo": "ember._finfo", "iinfo": "ember._finfo",
    "use_deterministic_algorithms": "ember._flags", "are_deterministic_algorithms_enabled": "ember._flags",
    "is_deterministic_algorithms_warn_only_enabled": "ember._flags",
    "set_deterministic_debug_mode": "ember._flags", "get_deterministic_debug_mode": "ember._flags",
    "set_float32_matmul_precision": "ember._flags", "get_float32_matmul_precision": "ember._flags",
    "compile": "ember.compiler._compile", "autocast": "ember.amp.autocast_mode",
    **{n: "ember.amp.autocast_mode" for n in (
        "is_autocast_enabled", "set_autocast_enabled", "get_autocast_dtype", "set_autocast_dtype",
        "is_autocast_cache_enabled", "set_autocast_cache_enabled", "clear_autocast_cache",
        "autocast_increment_nesting", "autocast_decrement_nesting", "is_autocast_cpu_enabled",
        "set_autocast_cpu_enabled", "get_autocast_cpu_dtype", "set_autocast_cpu_dtype", "get_autocast_gpu_dtype",
        "set_autocast_gpu_dtype", "is_autocast_available")},
    "GradScaler": "ember.amp.grad_scaler",
    # asarray / frombuffer / from_file / empty_permuted, SyncBatchNorm's statistics, the functional RNNs,
    # binomial, the low-rank factorizations and lobpcg
    **{n: m for m, names in (
        ("ember._composite_create", ("asarray", "empty_permuted", "from_file", "frombuffer")),
        ("ember._batch_norm_sync", ("batch_norm_backward_elemt", "batch_norm_backward_reduce", "batch_norm_elemt",
                                    "batch_norm_gather_stats", "batch_norm_gather_stats_with_counts",
                                    "batch_norm_stats", "batch_norm_update_stats")),
        ("ember._rnn_functional", ("gru", "lstm", "rnn_relu", "rnn_tanh")),
        ("ember._sample_binomial", ("binomial",)),
        ("ember._sample_gamma", ("_dirichlet_grad", "_sample_dirichlet", "_standard_gamma", "_standard_gamma_grad")),
        ("ember._linalg_lowrank", ("lobpcg", "pca_lowrank", "svd_lowrank"))) for n in names},
    **{n: "ember._runtime" for n in (  # settings and build facts: set_warn_always, has_lapack, ...
        "get_device", "get_num_interop_threads", "has_lapack", "has_mkl", "has_openmp", "has_spectral",
        "is_inference", "is_warn_always_enabled", "legacy_contiguous_format", "set_anomaly_enabled",
        "set_default_device", "set_default_tensor_type", "set_flush_denormal", "set_num_interop_threads",
        "set_warn_always")},
    # torch.lu, lu_solve, lu_unpack, triangular_solve, geqrf, ... and the names PyTorch removed (lstsq, eig, ...)
    **{n: "ember._linalg_old" for n in (
        "cholesky", "eig", "geqrf", "lstsq", "lu", "lu_solve", "lu_unpack", "matrix_exp", "matrix_rank", "orgqr",
        "ormqr", "pinverse", "solve", "symeig", "triangular_solve")},
    # storages (ember/storage.py): torch.UntypedStorage, TypedStorage and the legacy FloatStorage ...
    **{n: "ember.storage" for n in (
        "UntypedStorage", "TypedStorage", "BFloat16Storage", "BoolStorage", "ByteStorage", "CharStorage",
        "ComplexDoubleStorage", "ComplexFloatStorage", "DoubleStorage", "FloatStorage", "HalfStorage", "IntStorage",
        "LongStorage", "ShortStorage")},
    "Storage": "ember.storage", "StorageBase": "ember.storage",
    "Event": "ember._streams", "Stream": "ember._streams", "Future": "ember.futures",
    "get_device_module": "ember._runtime", "to_dlpack": "ember.utils.dlpack",
    "stft": "ember._stft", "istft": "ember._stft", "vmap": "ember.func",
    "_amp_foreach_non_finite_check_and_unscale_": "ember.amp.grad_scaler",
    "_amp_update_scale_": "ember.amp.grad_scaler",
}
_LAZY_MODULES = ("utils", "cuda", "linalg", "serialization", "multiprocessing", "autograd", "_nn", "_VF", "func",
                 "testing", "backends", "amp", "compiler", "cpu", "ops", "special", "fft", "futures", "signal",
                 "storage", "overrides", "accelerator", "jit", "return_types", "mps", "_dynamo", "hub", "types",
                 "library",
                 "distributions")
_LEGACY_TYPE_NAMES = ("FloatTensor", "DoubleTensor", "HalfTensor", "BFloat16Tensor", "ByteTensor", "CharTensor",
                      "ShortTensor", "IntTensor", "LongTensor", "BoolTensor")


def __getattr__(name: str) -> _Any:
    # Sibling packages load on first use, so `import ember` stays fast.
    if f"ember.{name}" in _PROVIDERS:
        return _import_sibling(f"ember.{name}")
    import importlib

    if name in _LAZY_MODULES:
        return importlib.import_module(f"ember.{name}")
    if name in _LAZY_NAMES:
        value = getattr(importlib.import_module(_LAZY_NAMES[name]), name)
    elif name in _LEGACY_TYPE_NAMES:
        value = importlib.import_module("ember._legacy_types").LEGACY_TYPES[name]
    else:
        raise AttributeError(f"module 'ember' has no attribute '{name}'")
    globals()[name] = value  # later lookups skip this function
    return value


# PyTorch's TypeError for a wrong-typed tensor or flag argument of the Python-level functions
# above (ember/_argcheck.py).
from ember._argcheck import check_names as _check_names  # noqa: E402

_check_names(globals(), [_n for _n in list(globals()) if not _n.startswith("_")])
