"""Where headers, libraries, build folders, ninja and the compiler are."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig

__all__ = [
    "include_paths", "library_paths", "get_default_build_root", "is_ninja_available",
    "verify_ninja_availability", "get_cxx_compiler", "CUDA_HOME", "ROCM_HOME", "SYCL_HOME",
]

CUDA_HOME: str | None = None  # ember-core has no CUDA backend yet
ROCM_HOME: str | None = None
SYCL_HOME: str | None = None


def _ember_dir() -> str:
    # Found without importing ember (importing it loads the core: ~0.1 s we need not pay).
    import importlib.util

    spec = importlib.util.find_spec("ember")
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError("ember-core is not installed: C++ extensions need its headers")
    # ember is a namespace spread over the installed packages; an editable core keeps its
    # headers in its source folder, beside (not under) the folder holding the compiled _C.
    places = [os.path.realpath(p) for p in spec.submodule_search_locations]
    return next((p for p in places if os.path.isfile(os.path.join(p, "include", "torch", "extension.h"))), places[0])


def _cuda_unavailable(what: str) -> RuntimeError:
    return RuntimeError(
        f"{what}: ember-core was built without CUDA, so CUDA extensions cannot be built or "
        "loaded (build ember-core with EMBER_CUDA=ON once its CUDA backend exists)")


def include_paths(device_type: str = "cpu", torch_include_dirs: bool = True) -> list[str]:
    """Header folders: ember's C++ API (with the ``torch/extension.h`` name), pybind11, Python."""
    if device_type != "cpu":
        raise _cuda_unavailable(f"include_paths(device_type={device_type!r})")
    paths: list[str] = []
    if torch_include_dirs:
        inc = os.path.join(_ember_dir(), "include")
        paths += [inc, os.path.join(inc, "torch", "csrc", "api", "include")]
    import pybind11

    paths.append(pybind11.get_include())
    return paths


def library_paths(device_type: str = "cpu", torch_include_dirs: bool = True,
                  cross_target_platform: str | None = None) -> list[str]:
    """Library folders. Extensions reach the core through a capsule, so nothing is linked from
    here; the folder is listed for build systems that expect one."""
    if device_type != "cpu":
        raise _cuda_unavailable(f"library_paths(device_type={device_type!r})")
    return [os.path.join(_ember_dir(), "lib")] if torch_include_dirs else []


def python_include() -> str:
    return sysconfig.get_paths()["include"]


def get_default_build_root() -> str:
    """The per-user cache root: ``$XDG_CACHE_HOME/ember_extensions`` (``~/.cache/...``)."""
    cache = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.realpath(os.path.join(cache, "ember_extensions"))


def build_directory(name: str) -> str:
    """``$EMBER_EXTENSIONS_DIR/<name>`` (or ``$TORCH_EXTENSIONS_DIR``), else the default root
    plus ``py<ver>_cpu/<name>``; created if missing."""
    root = os.environ.get("EMBER_EXTENSIONS_DIR") or os.environ.get("TORCH_EXTENSIONS_DIR")
    if not root:
        tag = f"py{sys.version_info.major}{sys.version_info.minor}{getattr(sys, 'abiflags', '')}_cpu"
        root = os.path.join(get_default_build_root(), tag)
    path = os.path.join(root, name)
    os.makedirs(path, exist_ok=True)
    return path


def ninja_executable() -> str | None:
    try:  # the `ninja` wheel (a dependency) ships the binary beside the Python package
        import ninja

        exe = os.path.join(ninja.BIN_DIR, "ninja")
        if os.path.exists(exe):
            return exe
    except ImportError:
        pass
    return shutil.which("ninja")


def is_ninja_available() -> bool:
    """Whether the ``ninja`` build tool can be run (used for parallel, incremental extension
    builds)."""
    exe = ninja_executable()
    if exe is None:
        return False
    try:
        subprocess.check_output([exe, "--version"], stderr=subprocess.STDOUT)
    except (OSError, subprocess.CalledProcessError):
        return False
    return True


def verify_ninja_availability() -> None:
    """Raise RuntimeError unless ninja can run."""
    if not is_ninja_available():
        raise RuntimeError("Ninja is required to load C++ extensions (pip install ninja to get it)")


def get_cxx_compiler() -> str:
    """The C++ compiler extensions are built with: ``$CXX`` if set, else ``c++``."""
    return os.environ.get("CXX", "c++")
