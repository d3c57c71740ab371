"""The build itself: a build.ninja per extension, run with ninja; and the build lock."""

from __future__ import annotations

import os
import subprocess
import time
import warnings

from ._paths import (
    get_cxx_compiler,
    include_paths,
    library_paths,
    ninja_executable,
    python_include,
    verify_ninja_availability,
)

__all__ = ["FileBaton", "base_cflags", "write_if_changed", "write_ninja_file", "run_ninja"]

# C++20 as PyTorch's builds use, so extension sources written for it compile unchanged.
CXX_STD = "-std=c++20"
# Optimised by default (PyTorch's JIT builds are not): pybind11's call path compiled at -O0
# costs ~2 us a call, at -O2 ~0.15 us; the headers are light enough that -O2 stays cheap to
# build. A user's -O flag comes later on the command line and wins.
OPT = "-O2"


class FileBaton:
    """A lock file created atomically: one process builds, the others wait for it to vanish.
    A build killed hard leaves the file behind; delete ``<build_dir>/lock`` to recover."""

    def __init__(self, lock_file_path: str, wait_seconds: float = 0.1,
                 warn_after_seconds: float | None = None) -> None:
        self.lock_file_path = lock_file_path
        self.wait_seconds = wait_seconds
        self.warn_after_seconds = warn_after_seconds
        self.fd: int | None = None

    def try_acquire(self) -> bool:
        """Tries to create the lock file; True if this process now holds the baton."""
        try:
            self.fd = os.open(self.lock_file_path, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
        except FileExistsError:
            return False
        return True

    def wait(self) -> None:
        """Waits until the holder releases the baton (the lock file disappears)."""
        start, warned = time.time(), False
        while os.path.exists(self.lock_file_path):
            time.sleep(self.wait_seconds)
            if (not warned and self.warn_after_seconds is not None
                    and time.time() - start > self.warn_after_seconds):
                warnings.warn(f"Waited {self.warn_after_seconds}s for the lock "
                              f"{self.lock_file_path}; delete it if no build is running", stacklevel=2)
                warned = True

    def release(self) -> None:
        """Releases the baton (removes the lock file)."""
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None
        try:
            os.remove(self.lock_file_path)
        except FileNotFoundError:
            pass


def write_if_changed(path: str, content: str) -> None:
    """Rewrite only on a change: an untouched mtime keeps ninja's up-to-date check valid."""
    try:
        with open(path, encoding="utf-8") as f:
            if f.read() == content:
                return
    except OSError:
        pass
    tmp = f"{path}.{os.getpid()}.tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(content)
    os.replace(tmp, path)


def base_cflags(module_name: str, extra_include_paths: list[str] | None) -> list[str]:
    flags = [f"-DTORCH_EXTENSION_NAME={module_name}", "-DTORCH_API_INCLUDE_EXTENSION_H"]
    for p in [*include_paths(), python_include(), *(extra_include_paths or [])]:
        flags += ["-isystem", p.strip()]
    return [*flags, "-fPIC", CXX_STD, OPT]


def _esc(s: str) -> str:
    return s.replace(" ", "$ ").replace(":", "$:")


def write_ninja_file(build_dir: str, target: str, sources: list[str], cflags: list[str],
                     ldflags: list[str], shared: bool = True) -> None:
    objects, builds = [], []
    for src in sources:
        base = os.path.splitext(os.path.basename(src))[0]
        obj = f"{base}.o"
        while obj in objects:  # two sources with one base name
            obj = f"{base}_{len(objects)}.o"
        objects.append(obj)
        builds.append(f"build {_esc(obj)}: compile {_esc(os.path.abspath(src))}")
    link = ["-shared"] if shared else []
    link += [f"-L{p}" for p in library_paths()] + ldflags
    text = "\n".join([
        "ninja_required_version = 1.3",
        f"cxx = {get_cxx_compiler()}",
        "cflags = " + " ".join(cflags),
        "ldflags = " + " ".join(link),
        "",
        "rule compile",
        "  command = $cxx -MMD -MF $out.d $cflags -c $in -o $out",
        "  depfile = $out.d",
        "  deps = gcc",
        "",
        "rule link",
        "  command = $cxx $in $ldflags -o $out",
        "",
        *builds,
        "",
        f"build {_esc(target)}: link " + " ".join(_esc(o) for o in objects),
        f"default {_esc(target)}",
        "",
    ])
    write_if_changed(os.path.join(build_dir, "build.ninja"), text)


def run_ninja(build_dir: str, name: str, verbose: bool) -> None:
    """Run ninja in build_dir; a failure raises RuntimeError with the compiler's output."""
    verify_ninja_availability()
    cmd = [ninja_executable() or "ninja", "-v"]
    if os.environ.get("MAX_JOBS"):
        cmd += ["-j", os.environ["MAX_JOBS"]]
    try:
        proc = subprocess.run(cmd, cwd=build_dir, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              text=True, check=False)
    except OSError as e:
        raise RuntimeError(f"Error building extension '{name}': {e}") from None
    if verbose:
        print(proc.stdout, end="")
    if proc.returncode != 0:
        raise RuntimeError(f"Error building extension '{name}': {proc.stdout}")
