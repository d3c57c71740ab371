"""Ahead-of-time builds through setuptools: CppExtension, CUDAExtension, BuildExtension."""

from __future__ import annotations

import os
import warnings
from typing import Any

from ._ninja import CXX_STD, OPT, run_ninja, write_ninja_file
from ._paths import _cuda_unavailable, include_paths, is_ninja_available, library_paths, python_include

__all__ = ["CppExtension", "CUDAExtension", "BuildExtension"]


def CppExtension(name: str, sources: list[str], *args: Any, **kwargs: Any) -> Any:
    """A ``setuptools.Extension`` for C++ with ember's include and library folders added.
    No core library is linked: extensions reach the core through a capsule at import."""
    import setuptools

    kwargs["include_dirs"] = list(kwargs.get("include_dirs") or []) + include_paths()
    kwargs["library_dirs"] = list(kwargs.get("library_dirs") or []) + library_paths()
    kwargs["language"] = "c++"
    return setuptools.Extension(name, sources, *args, **kwargs)


def CUDAExtension(name: str, sources: list[str], *args: Any, **kwargs: Any) -> Any:
    """Raises: ember has no GPU, so an extension with CUDA sources cannot be built (use
    ``CppExtension``)."""
    raise _cuda_unavailable(f"CUDAExtension({name!r})")


def _cxx_args(ext: Any) -> list[str]:
    extra = ext.extra_compile_args
    if isinstance(extra, dict):  # {'cxx': [...], 'nvcc': [...]}
        if extra.get("nvcc"):
            raise _cuda_unavailable(f"extension {ext.name!r} with nvcc flags")
        extra = extra.get("cxx", [])
    return list(extra or [])


def _build_ext_base() -> type:
    from setuptools.command.build_ext import build_ext

    return build_ext


class BuildExtension(_build_ext_base()):  # type: ignore[misc]
    """``build_ext`` that adds ember's defines and compiles with ninja (``use_ninja=True``,
    falling back to setuptools' own compiler when ninja is missing)."""

    @classmethod
    def with_options(cls, **options: Any) -> type:
        """A subclass of BuildExtension with these options (``no_python_abi_suffix``,
        ``use_ninja``) fixed, for ``cmdclass``."""
        class cls_with_options(cls):  # type: ignore[valid-type, misc]
            def __init__(self, *args: Any, **kwargs: Any) -> None:
                kwargs.update(options)
                super().__init__(*args, **kwargs)

        return cls_with_options

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.no_python_abi_suffix = kwargs.pop("no_python_abi_suffix", False)
        self.use_ninja = kwargs.pop("use_ninja", True)
        if self.use_ninja and not is_ninja_available():
            warnings.warn("Attempted to use ninja as the BuildExtension backend but we could not "
                          "find ninja.. Falling back to using the slow distutils backend.", stacklevel=2)
            self.use_ninja = False
        super().__init__(*args, **kwargs)

    def _flags(self, ext: Any) -> list[str]:
        flags = [f"-DTORCH_EXTENSION_NAME={ext.name.split('.')[-1]}", "-DTORCH_API_INCLUDE_EXTENSION_H"]
        extra = _cxx_args(ext)
        if not any(f.startswith("-std=") for f in extra):
            flags.append(CXX_STD)
        if not any(f.startswith("-O") for f in extra):
            flags.append(OPT)
        return flags + extra

    def build_extension(self, ext: Any) -> None:
        """Compiles and links one extension with the flags ember's headers need (C++17, the ABI
        macros), with ninja when available."""
        if any(s.endswith((".cu", ".cuh")) for s in ext.sources):
            raise _cuda_unavailable(f"extension {ext.name!r} with CUDA sources")
        out = os.path.abspath(self.get_ext_fullpath(ext.name))
        os.makedirs(os.path.dirname(out), exist_ok=True)
        if not self.use_ninja:
            ext.extra_compile_args = self._flags(ext)
            super().build_extension(ext)
            return
        build_dir = os.path.abspath(os.path.join(self.build_temp, ext.name))
        os.makedirs(build_dir, exist_ok=True)
        incs = [*ext.include_dirs, *include_paths(), python_include()]
        cflags = [f"-D{k}={v}" if v is not None else f"-D{k}" for k, v in ext.define_macros]
        cflags += [x for p in incs for x in ("-isystem", p)] + ["-fPIC"] + self._flags(ext)
        ldflags = [f"-L{d}" for d in ext.library_dirs] + [f"-l{lib}" for lib in ext.libraries]
        ldflags += list(ext.extra_link_args or [])
        write_ninja_file(build_dir, out, [os.path.abspath(s) for s in ext.sources], cflags, ldflags)
        run_ninja(build_dir, ext.name, verbose=bool(self.verbose))

    def get_ext_filename(self, ext_name: str) -> str:
        name = super().get_ext_filename(ext_name)
        if self.no_python_abi_suffix:  # foo.cpython-311-x86_64-linux-gnu.so -> foo.so
            stem, ext = os.path.splitext(name)
            name = stem.split(".")[0] + ext if "." in os.path.basename(stem) else name
        return name
