"""The CUDA backend's build, checked on any machine. In every build: each CUDA source compiles with
nvcc to PTX and host code (skipped with the reason where nvcc is absent). In a
CUDA build (`nox -s cuda_build`, EMBER_EXPECT_CUDA_BUILD=1) without a usable GPU: ember imports,
reports no GPU, and a CUDA tensor raises PyTorch's driver error; in a build without CUDA the same
calls raise "Torch not compiled with CUDA enabled". The GPU's own tests run on a GPU machine."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import ember
import pytest
from ember._lib import _C

CSRC = Path(__file__).parents[1] / "csrc"
CUDA_SOURCES = sorted((CSRC / "kernels" / "cuda").glob("*.cu"))
# CMakeLists.txt's CUDA flags: a host-only call from host/device code is an error
NVCC_FLAGS = ["-std=c++17", "--expt-relaxed-constexpr", "--diag-error=20011,20014"]
NO_NVCC = pytest.mark.skipif(not shutil.which("nvcc"), reason="nvcc not found: CUDA sources cannot be compiled here")


def nvcc_env() -> dict[str, str]:
    # without the sanitizer session's LD_PRELOAD (libasan): nvcc's own tools crash under it
    return {k: v for k, v in os.environ.items() if k != "LD_PRELOAD"}


def generate(tmp_path: Path) -> Path:
    """The sources gen.py writes from ops.yaml (the CUDA units and the headers they include)."""
    core = CSRC.parent
    gen = tmp_path / "generated"
    subprocess.run([sys.executable, str(core / "codegen" / "gen.py"), str(core / "ops.yaml"), str(gen),
                    str(tmp_path / "py")], check=True)
    return gen


@NO_NVCC
def test_cuda_sources_compile(tmp_path: Path) -> None:
    # only the backend's own headers: a .cu file must not need the generated sources. nvcc's front
    # end, the device code to PTX and the host code: what a source error trips. ptxas (the machine
    # code for each GPU, most of the time) is the CUDA build's job (nox -s cuda_build).
    def compile_one(p: Path) -> subprocess.CompletedProcess[str]:
        return subprocess.run(["nvcc", *NVCC_FLAGS, "-c", str(p), "-I", str(CSRC), "-arch=compute_90",
                               "-o", str(tmp_path / f"{p.stem}.o")], capture_output=True, text=True, env=nvcc_env())

    with ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        results = list(pool.map(compile_one, CUDA_SOURCES))
    failed = {p.name: r.stderr for p, r in zip(CUDA_SOURCES, results) if r.returncode != 0}
    assert CUDA_SOURCES and not failed, failed


@NO_NVCC
def test_every_yaml_kernel_compiles_as_device_code(tmp_path: Path) -> None:
    # ops.yaml's functors as the CUDA build compiles them (gen.py's cuda_pointwise_*.cu): through
    # nvcc's front end only, which is where a host-only helper called from device code is caught
    # (the machine code is the CUDA build's job: nox -s cuda_build). The parts run side by side.
    gen = generate(tmp_path)
    parts = sorted(gen.glob("cuda_pointwise_*.cu"))
    assert len(parts) > 1
    runs = [subprocess.Popen(["nvcc", *NVCC_FLAGS, "-cuda", str(p), "-I", str(CSRC), "-I", str(gen),
                              "-arch=compute_90", "-o", str(tmp_path / f"{p.stem}.ii")],
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=nvcc_env())
            for p in parts]
    outputs = [r.communicate()[0] for r in runs]
    failed = {p.name: out for p, r, out in zip(parts, runs, outputs) if r.returncode != 0}
    assert not failed, failed


@NO_NVCC
def test_host_sources_compile_against_cuda_headers(tmp_path: Path) -> None:
    # the backend's host code (runtime, allocator, cuBLAS loader, table) as the CUDA build compiles it:
    # nvcc hands a .cpp to the host compiler with CUDA's include path
    gen = generate(tmp_path)
    sources = [p for p in sorted((CSRC / "kernels" / "cuda").glob("*.cpp")) if p.name != "cuda_stub.cpp"]
    assert any(p.name == "cublas_gemm.cpp" for p in sources)
    failed = {}
    for p in sources:
        r = subprocess.run(["nvcc", "-std=c++17", "-c", str(p), "-I", str(CSRC), "-I", str(gen),
                            "-o", str(tmp_path / f"{p.stem}.o")], capture_output=True, text=True, env=nvcc_env())
        if r.returncode != 0:
            failed[p.name] = r.stderr
    assert not failed, failed


def test_cuda_libraries_are_found_in_nvidia_pip_packages(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # where the CUDA backend looks for cuBLAS when dlopen cannot find it by name (no GPU needed)
    from ember.cuda import _libraries

    lib = tmp_path / "site" / "nvidia" / "cu13" / "lib"
    lib.mkdir(parents=True)
    (lib / "libcublas.so.13").write_bytes(b"")
    monkeypatch.setattr(sys, "path", [str(tmp_path / "elsewhere"), str(tmp_path / "site")])
    assert _libraries.locate("libcublas.so.13") == str(lib / "libcublas.so.13")
    assert _libraries.locate("libcublas.so.12") == ""


def test_the_build_is_what_the_session_expects() -> None:
    assert _C._cuda_is_compiled() is bool(os.environ.get("EMBER_EXPECT_CUDA_BUILD"))


def test_no_gpu_answers_and_errors() -> None:
    if ember.cuda.device_count() > 0:
        pytest.skip("a GPU is present: the GPU script checks CUDA tensors")
    assert ember.cuda.is_available() is False
    assert ember.cuda.memory_allocated() == 0 and ember.cuda.memory_stats() == {}
    ember.cuda.empty_cache()
    x = ember.ones(2, requires_grad=True)
    calls = [lambda: ember.zeros(2, device="cuda"), x.cuda, lambda: x.to("cuda:0", ember.float64),
             lambda: ember.empty(0, device="cuda"), ember.cuda.current_device, ember.cuda.synchronize,
             ember.cuda.get_device_name, lambda: ember.cuda.set_device(0)]
    for call in calls:
        if _C._cuda_is_compiled():
            with pytest.raises(RuntimeError, match="NVIDIA driver|No CUDA GPUs are available"):
                call()
        else:
            with pytest.raises(AssertionError, match="Torch not compiled with CUDA enabled"):
                call()
    assert x.cpu() is x and x.to("cpu") is x
