"""``python -m ember.utils.collect_env``: the facts a bug report needs -- ember's distributions and
build, the OS, compilers, Python, CUDA and GPUs, the CPU and the libraries ember works with --
in the layout of ``torch.utils.collect_env`` (so issue templates that ask for it read the same).

Nothing here needs a GPU or a network; a fact that cannot be found reads "Could not collect".
"""

from __future__ import annotations

import importlib.metadata
import os
import platform
import re
import shutil
import subprocess
import sys
from typing import NamedTuple

__all__ = ["SystemEnv", "get_env_info", "get_pretty_env_info", "main"]

_UNKNOWN = "Could not collect"
# Distributions worth naming in a report: ember's own and what they run on or are compared with.
_RELEVANT = re.compile(r"^(ember(-.*)?|numpy|torch|mpi4py|mpich|scipy-openblas\d*|ninja|pybind11|"
                       r"scikit-build-core|tensorboard|nvidia-.*|ducc0|optree|triton)$", re.IGNORECASE)


class SystemEnv(NamedTuple):
    """The collected facts, one field each (strings; "Could not collect" where unknown)."""

    ember_version: str
    is_debug_build: str
    cuda_compiled_version: str
    cuda_arch_list: str
    cpu_capability: str
    os: str
    gcc_version: str
    clang_version: str
    cmake_version: str
    libc_version: str
    python_version: str
    python_platform: str
    is_cuda_available: str
    cuda_runtime_version: str
    gpu_models: str
    nvidia_driver_version: str
    caching_allocator_config: str
    cpu_info: str
    packages: str


def _run(cmd: list[str]) -> str | None:
    """The first stdout of ``cmd`` (stripped), or None when it is absent or fails."""
    if shutil.which(cmd[0]) is None:
        return None
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=20, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() if out.returncode == 0 and out.stdout.strip() else None


def _first_line(cmd: list[str]) -> str:
    out = _run(cmd)
    return out.splitlines()[0] if out else _UNKNOWN


def _os_name() -> str:
    try:
        with open("/etc/os-release", encoding="utf-8") as f:
            fields = dict(line.rstrip().split("=", 1) for line in f if "=" in line)
        name = fields.get("PRETTY_NAME", "").strip('"')
    except OSError:
        name = ""
    if sys.platform == "darwin":
        name = f"macOS {platform.mac_ver()[0]}"
    elif sys.platform.startswith("win"):
        name = f"{platform.system()} {platform.release()}"
    return f"{name or platform.system()} ({platform.machine()})"


def _gpus() -> tuple[str, str, str]:
    """(availability, models, driver) -- from ember where CUDA works, else nvidia-smi."""
    import ember

    available = ember.cuda.is_available()
    if available:
        models = "\n".join(f"GPU {i}: {ember.cuda.get_device_name(i)}" for i in range(ember.cuda.device_count()))
    else:
        models = _run(["nvidia-smi", "-L"]) or _UNKNOWN
    driver = _run(["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"])
    return str(available), models, (driver.splitlines()[0] if driver else _UNKNOWN)


def _cpu_info() -> str:
    if sys.platform.startswith("linux"):
        return _run(["lscpu"]) or _UNKNOWN
    if sys.platform == "darwin":
        return _run(["sysctl", "-n", "machdep.cpu.brand_string"]) or _UNKNOWN
    return platform.processor() or _UNKNOWN


def _packages() -> str:
    found = sorted({(d.metadata["Name"] or "", d.version) for d in importlib.metadata.distributions()
                    if _RELEVANT.match(d.metadata["Name"] or "")}, key=lambda nv: nv[0].lower())
    return "\n".join(f"[pip3] {name}=={version}" for name, version in found) or _UNKNOWN


def get_env_info() -> SystemEnv:
    """Collect the facts (runs a few small commands: gcc, cmake, lscpu, nvidia-smi when present)."""
    import ember

    available, models, driver = _gpus()
    cuda_built = ember.version.cuda
    nvcc = re.search(r"V(\d+\.\d+\.\d+)", _run(["nvcc", "--version"]) or "")  # the toolkit on PATH
    runtime = nvcc.group(1) if nvcc else _UNKNOWN
    return SystemEnv(
        ember_version=str(ember.__version__),
        is_debug_build=str(bool(ember.version.debug)),
        cuda_compiled_version=cuda_built or "None",
        cuda_arch_list=" ".join(ember.cuda.get_arch_list()) or "N/A",
        cpu_capability=str(ember.backends.cpu.get_cpu_capability()),
        os=_os_name(),
        gcc_version=_first_line(["gcc", "--version"]),
        clang_version=_first_line(["clang", "--version"]),
        cmake_version=_first_line(["cmake", "--version"]),
        libc_version="-".join(platform.libc_ver()) or "N/A",
        python_version=f"{sys.version.replace(chr(10), ' ')} ({sys.maxsize.bit_length() + 1}-bit runtime)",
        python_platform=platform.platform(),
        is_cuda_available=available,
        cuda_runtime_version=runtime,
        gpu_models=models,
        nvidia_driver_version=driver,
        caching_allocator_config=os.environ.get("PYTORCH_CUDA_ALLOC_CONF",
                                                os.environ.get("PYTORCH_ALLOC_CONF", "")) or "N/A",
        cpu_info=_cpu_info(),
        packages=_packages(),
    )


def get_pretty_env_info() -> str:
    """The report, as ``python -m ember.utils.collect_env`` prints it."""
    e = get_env_info()
    return f"""ember version: {e.ember_version}
Is debug build: {e.is_debug_build}
CUDA used to build ember: {e.cuda_compiled_version}
CUDA architectures: {e.cuda_arch_list}
CPU capability (kernels in use): {e.cpu_capability}

OS: {e.os}
GCC version: {e.gcc_version}
Clang version: {e.clang_version}
CMake version: {e.cmake_version}
Libc version: {e.libc_version}

Python version: {e.python_version}
Python platform: {e.python_platform}
Is CUDA available: {e.is_cuda_available}
CUDA runtime version: {e.cuda_runtime_version}
GPU models and configuration: {e.gpu_models}
Nvidia driver version: {e.nvidia_driver_version}
Caching allocator config: {e.caching_allocator_config}

CPU:
{e.cpu_info}

Versions of relevant libraries:
{e.packages}
"""


def main() -> None:
    """Print the report (the module's command-line entry)."""
    print("Collecting environment information...")
    print(get_pretty_env_info())


if __name__ == "__main__":
    main()
