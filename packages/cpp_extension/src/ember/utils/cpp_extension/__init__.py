"""C++ extensions for ember, mirroring :mod:`torch.utils.cpp_extension`.

``load`` / ``load_inline`` compile C++ sources just in time with ninja (cached in a build
folder: a second load, even in a new process, compiles nothing); ``CppExtension`` and
``BuildExtension`` do the same ahead of time through setuptools. Sources include
``<torch/extension.h>`` (or ``<ember/extension.h>``): ember's light C++ tensor API, installed
with ember-core, which reaches the core through a versioned function table at import.
Importing this package needs no compiler; only building does.
"""

from __future__ import annotations

from ._jit import ExtensionVersioner, load, load_inline
from ._ninja import FileBaton
from ._paths import (
    CUDA_HOME,
    ROCM_HOME,
    SYCL_HOME,
    get_cxx_compiler,
    get_default_build_root,
    include_paths,
    is_ninja_available,
    library_paths,
    verify_ninja_availability,
)

_SETUPTOOLS_NAMES = ("BuildExtension", "CppExtension", "CUDAExtension")


def __getattr__(name: str) -> object:
    # setuptools costs ~0.1 s to import: only the setup.py path pays for it.
    if name in _SETUPTOOLS_NAMES:
        from . import _setuptools

        return getattr(_setuptools, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

__all__: list[str] = [
    "load", "load_inline", "CppExtension", "CUDAExtension", "BuildExtension", "include_paths",
    "library_paths", "get_default_build_root", "is_ninja_available", "verify_ninja_availability",
    "get_cxx_compiler", "FileBaton", "ExtensionVersioner", "CUDA_HOME", "ROCM_HOME", "SYCL_HOME",
]
