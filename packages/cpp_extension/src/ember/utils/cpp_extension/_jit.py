"""Just-in-time builds: load and load_inline."""

from __future__ import annotations

import hashlib
import importlib.util
import os
import sys
from types import ModuleType
from typing import Any

from ._ninja import FileBaton, base_cflags, run_ninja, write_if_changed, write_ninja_file
from ._paths import _cuda_unavailable, build_directory

__all__ = ["ExtensionVersioner", "load", "load_inline"]


def _strip(xs: list[str] | None) -> list[str]:
    return [x.strip() for x in (xs or [])]


class ExtensionVersioner:
    """Per-name version numbers: a loaded .so cannot be replaced in a process, so a changed
    build (sources or flags) in the same process gets a new module name ``<name>_v<k>``."""

    def __init__(self) -> None:
        self.entries: dict[str, tuple[int, str]] = {}

    def get_version(self, name: str) -> int | None:
        """The current version number of extension ``name``, or None if it was never built."""
        entry = self.entries.get(name)
        return None if entry is None else entry[0]

    def bump_version_if_changed(self, name: str, source_files: list[str], build_arguments: list[Any],
                                build_directory: str, with_cuda: bool, with_sycl: bool,
                                is_python_module: bool, is_standalone: bool) -> int:
        """The version of ``name``, incremented when its sources, flags or build directory changed
        since the last build (so a rebuilt module gets a new name)."""
        h = hashlib.sha256()
        for path in source_files:
            with open(path, "rb") as f:
                h.update(f.read())
        h.update(repr((build_arguments, build_directory, with_cuda, with_sycl, is_python_module,
                       is_standalone)).encode())
        digest = h.hexdigest()
        entry = self.entries.get(name)
        if entry is None:
            self.entries[name] = (0, digest)
        elif entry[1] != digest:
            self.entries[name] = (entry[0] + 1, digest)
        return self.entries[name][0]


_versioner = ExtensionVersioner()
_loaded: dict[str, Any] = {}  # module name -> what load returned (same hash -> same module)


def _import_module(module_name: str, path: str) -> ModuleType:
    # From the file, not sys.path: `import name` elsewhere does not pick it up (as in PyTorch).
    spec = importlib.util.spec_from_file_location(module_name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load the extension module {path}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _jit_compile(name: str, sources: list[str], extra_cflags: list[str] | None,
                 extra_ldflags: list[str] | None, extra_include_paths: list[str] | None,
                 build_dir: str | None, verbose: bool, with_cuda: bool | None,
                 is_python_module: bool, is_standalone: bool) -> Any:
    if is_python_module and is_standalone:
        raise ValueError("`is_python_module` and `is_standalone` are mutually exclusive.")
    if with_cuda or (with_cuda is None and any(s.endswith((".cu", ".cuh")) for s in sources)):
        raise _cuda_unavailable(f"load({name!r}) with CUDA sources")
    build_dir = os.path.abspath(build_dir) if build_dir else build_directory(name)
    os.makedirs(build_dir, exist_ok=True)
    cflags, ldflags, incs = _strip(extra_cflags), _strip(extra_ldflags), _strip(extra_include_paths)
    version = _versioner.bump_version_if_changed(
        name, sources, [cflags, [], ldflags, incs], build_dir, False, False, is_python_module,
        is_standalone)
    module_name = name if version == 0 else f"{name}_v{version}"
    if verbose and version > 0:
        print(f"The input conditions for extension module {name} have changed. Bumping to version "
              f"{version} and re-building as {module_name}...", file=sys.stderr)
    if module_name in _loaded:
        return _loaded[module_name]
    suffix = "" if is_standalone else ".so"
    target = module_name + suffix
    if verbose:
        print(f"Using {build_dir} as the build directory for {module_name}", file=sys.stderr)
    baton = FileBaton(os.path.join(build_dir, "lock"))
    if baton.try_acquire():
        try:
            write_ninja_file(build_dir, target, sources, base_cflags(module_name, incs) + cflags,
                             ldflags, shared=not is_standalone)
            run_ninja(build_dir, name, verbose)
        finally:
            baton.release()
    else:  # another process builds the same extension: wait, then use its result
        baton.wait()
    path = os.path.join(build_dir, target)
    if is_standalone:
        result: Any = path
    elif is_python_module:
        result = _import_module(module_name, path)
    else:  # a plain library: its TORCH_LIBRARY blocks register ember.ops.<ns>.<op> as it loads
        import ember.ops

        ember.ops.load_library(path)
        result = path
    _loaded[module_name] = result
    return result


def load(name: str, sources: str | list[str], extra_cflags: list[str] | None = None,
         extra_cuda_cflags: list[str] | None = None, extra_sycl_cflags: list[str] | None = None,
         extra_ldflags: list[str] | None = None, extra_include_paths: list[str] | None = None,
         build_directory: str | None = None, verbose: bool = False, with_cuda: bool | None = None,
         with_sycl: bool | None = None, is_python_module: bool = True, is_standalone: bool = False,
         keep_intermediates: bool = True) -> Any:
    """Compile ``sources`` with ninja into ``<build_directory>/<name>.so`` and import it.

    The build is cached: unchanged inputs (in this or a later process) compile nothing."""
    if isinstance(sources, str):
        sources = [sources]
    if with_sycl or extra_sycl_cflags or extra_cuda_cflags:
        raise _cuda_unavailable(f"load({name!r}) with CUDA/SYCL flags")
    return _jit_compile(name, [os.path.abspath(s) for s in sources], extra_cflags, extra_ldflags,
                        extra_include_paths, build_directory, verbose, with_cuda,
                        is_python_module, is_standalone)


def _bindings(functions: str | list[str] | dict[str, str], error_handling: bool) -> str:
    if isinstance(functions, str):
        functions = [functions]
    if isinstance(functions, list):
        functions = {f: f for f in functions}
    elif not isinstance(functions, dict):
        raise ValueError(f"Expected 'functions' to be a list or dict, but was {type(functions)}")
    lines = ["PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {"]
    for fn, doc in functions.items():
        ref = f"torch::wrap_pybind_function({fn})" if error_handling else fn
        doc = doc.replace("\\", "\\\\").replace('"', '\\"')
        lines.append(f'm.def("{fn}", {ref}, "{doc}");')
    lines.append("}")
    return "\n".join(lines)


def load_inline(name: str, cpp_sources: str | list[str], cuda_sources: str | list[str] | None = None,
                sycl_sources: str | list[str] | None = None,
                functions: str | list[str] | dict[str, str] | None = None,
                extra_cflags: list[str] | None = None, extra_cuda_cflags: list[str] | None = None,
                extra_sycl_cflags: list[str] | None = None, extra_ldflags: list[str] | None = None,
                extra_include_paths: list[str] | None = None, build_directory: str | None = None,
                verbose: bool = False, with_cuda: bool | None = None, with_sycl: bool | None = None,
                is_python_module: bool = True, with_pytorch_error_handling: bool = True,
                keep_intermediates: bool = True, use_pch: bool = False,
                no_implicit_headers: bool = False) -> Any:
    """Build an extension from source strings (written to ``<build_dir>/main.cpp``)."""
    if cuda_sources or sycl_sources or with_cuda or with_sycl:
        raise _cuda_unavailable(f"load_inline({name!r}) with CUDA/SYCL sources")
    from . import _paths

    build_dir = os.path.abspath(build_directory) if build_directory else _paths.build_directory(name)
    os.makedirs(build_dir, exist_ok=True)
    if isinstance(cpp_sources, str):
        cpp_sources = [cpp_sources]
    parts = [] if no_implicit_headers else ["#include <torch/extension.h>"]
    parts += cpp_sources
    if functions is not None:
        parts.append(_bindings(functions, with_pytorch_error_handling))
    main = os.path.join(build_dir, "main.cpp")
    write_if_changed(main, "\n".join(parts) + "\n")
    return _jit_compile(name, [main], extra_cflags, extra_ldflags, extra_include_paths, build_dir,
                        verbose, False, is_python_module, False)
