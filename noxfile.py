"""ember's one entry point: every build, test, benchmark and docs run goes through nox.

`nox -l` lists the sessions. The core's CMake build directory lives under
build/<session>, so an edit rebuilds incrementally (sessions reuse their venvs).
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import nox

ROOT = Path(__file__).parent
PURE = ["nn", "data", "distributed", "profiler", "benchmark", "cpp_extension"]
BUILD_DEPS = ["scikit-build-core>=0.10", "pybind11>=2.12", "scipy-openblas32>=0.3.27", "pyyaml",
              "cmake>=3.24", "ninja"]
TEST_DEPS = ["pytest", "pytest-xdist", "hypothesis", "numpy"]
PYTEST = ["pytest", "-q", "-p", "no:cacheprovider"]
# The core's tests run in-process, on every core (pytest-xdist; a file stays on one worker, so its
# module fixtures and order hold). The other packages' start process groups, launchers and
# DataLoader workers of their own, and run one at a time.
XDIST = ["-n", "auto", "--maxprocesses", "4", "--dist", "loadfile"]
TYPING_DEPS = ["mypy"]  # packages/core/tests/test_typing.py: mypy --strict against ember's stub
# ember-profiler's tensorboard extra and what its tests render with (figures, PNG images), and the
# trace consumers its tests and the browser check open ember traces with: Holistic Trace Analysis
# and the PyTorch profiler TensorBoard plugin (neither depends on torch; TORCH stays pinned).
PROFILER_TEST_DEPS = ["tensorboard", "matplotlib", "pillow", "HolisticTraceAnalysis", "torch-tb-profiler"]
TORCH = "torch==2.13.0"  # the oracle: a local CPU wheel (PIP_FIND_LINKS); never unpinned

nox.options.sessions = ["tests"]
nox.options.reuse_existing_virtualenvs = True
nox.options.default_venv_backend = "venv"


def install_core(session: nox.Session, *, build_dir: str | None = None, cmake_args: str = "",
                 strip: bool = True) -> None:
    """Editable install of ember-core with a kept build directory (incremental rebuilds); its
    runtime dependencies (scipy-openblas32, and ducc0 with numpy for ember.fft) come with it."""
    session.install(*BUILD_DEPS)
    build_dir = build_dir or f"build/{session.name}"
    args = ["-e", "packages/core", "--no-build-isolation", f"-Cbuild-dir={build_dir}"]
    if cmake_args:
        args.append(f"-Ccmake.args={cmake_args}")
    if not strip:
        args.append("-Cinstall.strip=false")
    session.install(*args)


def third_party_deps(packages: list[str]) -> list[str]:
    """The packages' own dependencies that are not ember distributions (mpi4py, mpich...)."""
    import tomllib

    deps: list[str] = []
    for p in packages:
        meta = tomllib.loads((ROOT / "packages" / p / "pyproject.toml").read_text())["project"]
        deps += [d for d in meta.get("dependencies", []) if not d.startswith("ember-")]
    return sorted(set(deps))


def install_pure(session: nox.Session, packages: list[str] = PURE) -> None:
    # --no-deps: ember-core is already installed from the workspace, not from an index; the
    # packages' other dependencies are installed by name.
    session.install("--no-deps", *[a for p in packages for a in ("-e", f"packages/{p}")])
    if deps := third_party_deps(packages):
        session.install(*deps)


@nox.session
def tests(session: nox.Session) -> None:
    """Build everything and run every package's tests (PyTorch 2.13 as the oracle)."""
    install_core(session)
    install_pure(session)
    session.install(*TEST_DEPS, *TYPING_DEPS, *PROFILER_TEST_DEPS, TORCH)
    if session.posargs:
        session.run(*PYTEST, *session.posargs)
        return
    session.run(*PYTEST, *XDIST, "packages/core/tests")
    session.run(*PYTEST, *[f"packages/{p}/tests" for p in PURE])


@nox.session
def tensorboard_browser(session: nox.Session) -> None:
    """SummaryWriter output served by a real TensorBoard and loaded in headless Chromium
    (Debian's `chromium`, apt-installed if missing); screenshots in build/tensorboard_browser."""
    install_core(session)
    install_pure(session, ["nn", "profiler"])
    session.install("numpy", "tensorboard", "torch-tb-profiler")
    out = session.posargs[0] if session.posargs else str(ROOT / "build" / "tensorboard_browser")
    session.run("python", "packages/profiler/tools/tensorboard_browser_check.py", out)


@nox.session
def demo(session: nox.Session) -> None:
    """The README's main job: a real workload on the embedded default data."""
    install_core(session)
    install_pure(session)
    session.run("python", "examples/train_mlp.py", *session.posargs)


@nox.session
def bench(session: nox.Session) -> None:
    """Side-by-side benchmarks against PyTorch 2.13 (ratios; never gates)."""
    install_core(session)
    install_pure(session)
    session.install("numpy", TORCH)
    session.run("python", "packages/benchmark/benchmarks/run.py", *session.posargs)


@nox.session
def asan(session: nox.Session) -> None:
    """Build the core with AddressSanitizer + UBSan and run the core tests under it."""
    install_core(session, cmake_args="-DEMBER_SANITIZE=ON;-DCMAKE_BUILD_TYPE=RelWithDebInfo")
    install_pure(session, ["nn", "data"])  # core tests reach into ember.nn (size overflow) and siblings
    session.install(*TEST_DEPS, TORCH)

    def lib(name: str) -> str:
        return session.run("g++", f"-print-file-name={name}", silent=True, external=True).strip()

    env = {
        # libstdc++ must be loaded at start-up too, or ASan cannot intercept C++ throws
        # (Python itself does not link it; torch's exceptions would then abort).
        "LD_PRELOAD": f"{lib('libasan.so')} {lib('libstdc++.so.6')}",
        # CPython itself leaks by design at exit; leaks are not what this session checks.
        # A failed huge allocation must return null (ember raises OutOfMemoryError), not abort.
        "ASAN_OPTIONS": "detect_leaks=0:halt_on_error=1:abort_on_error=1:allocator_may_return_null=1",
        "UBSAN_OPTIONS": "print_stacktrace=1:halt_on_error=1",
        "EMBER_SANITIZED": "1",  # tests that measure memory growth skip (ASan keeps freed blocks)
    }
    targets = session.posargs or ["packages/core/tests"]
    session.run("pytest", "-q", "-s", "-p", "no:cacheprovider", "-x", *targets, env=env)


@nox.session
def cuda_build(session: nox.Session) -> None:
    """Build ember-core with the CUDA backend (EMBER_CUDA=ON; needs nvcc, not a GPU) and run the
    checks that hold on any machine: it is a CUDA build, and without a driver or GPU it says so
    with PyTorch's errors. The GPU tests run from the wheel of `nox -s cuda_wheel` on a GPU."""
    if not shutil.which("nvcc"):
        session.skip("nvcc not found: the CUDA backend cannot be built on this machine")
    install_core(session, cmake_args="-DEMBER_CUDA=ON")
    session.install(*TEST_DEPS)
    session.run("pytest", "-q", "-p", "no:cacheprovider", "packages/core/tests/test_cuda_build.py",
                env={"EMBER_EXPECT_CUDA_BUILD": "1"})


# The GPU test files (tools/gpu_check.sh runs the same list on a GPU).
# The parity sweeps first: the emulator re-protects all resident device memory around each piece of
# work, so after the tests that touch large tensors every small op is several times slower.
CUDA_TESTS = [f"packages/core/tests/test_cuda_{n}.py" for n in
              ["grad_parity", "parity", "functional", "device", "pointwise", "reduce", "gemm", "nn", "streams",
               "norm", "conv", "shape", "sort", "index", "unique", "random", "attention_rnn", "unsupported",
               "namespace", "legacy_types", "autocast", "data_parallel", "interop", "array_interface", "complex",
               "linalg", "fft"]]


@nox.session
def cuda_emu(session: nox.Session) -> None:
    """The GPU tests on the CUDA emulator (packages/core/cuda_emu/README.md): the CUDA backend built as
    host C++, its kernels run as fibers, device memory out of the host's reach, stream work deferred
    until waited for. Needs no GPU and no nvcc; it finds bugs before a GPU run and does not replace one."""
    install_core(session, cmake_args="-DEMBER_CUDA_EMU=ON;-DCMAKE_BUILD_TYPE=RelWithDebInfo", strip=False)
    install_pure(session, ["nn", "data"])
    session.install(*TEST_DEPS, TORCH)
    targets = session.posargs or [*CUDA_TESTS, *(f"packages/core/tests/test_{n}.py" for n in
                                                 ("caching_allocator", "accelerator", "cuda_examples"))]
    # 5 training steps per example (30 on a GPU); OpenBLAS (the emulated cuBLAS) on one thread, as
    # its idle threads would spin beside the emulated kernels
    log = ROOT / "build" / "cuda_emu.log"  # the emulator's diagnostics (a bad launch, copy or handle)
    log.unlink(missing_ok=True)
    env = {"EMBER_EXAMPLE_STEPS": "5", "OPENBLAS_NUM_THREADS": "1", "EMBER_CUDA_EMU_LOG": str(log)}
    session.run("pytest", "-q", "-p", "no:cacheprovider", "-rs", *targets, env=env)
    if not session.posargs:  # the op sweeps once more on cuda:1 with cuda:0 current: every op on its operands' device
        session.run("pytest", "-q", "-p", "no:cacheprovider", *CUDA_TESTS[:2],
                    env={**env, "EMBER_CUDA_PARITY_DEVICE": "cuda:1"})
    if log.exists():
        session.error(f"the CUDA emulator reported problems (tests passing regardless):\n{log.read_text()}")


@nox.session(python="3.12")
def cuda_wheel(session: nox.Session) -> None:
    """The ember-core wheel with the CUDA backend for the GPU machine's Python (3.12), into
    dist/cuda/ with the dependencies its image lacks (it cannot download): carry dist/cuda there
    and run tools/gpu_check.sh. Needs a python3.12 on PATH (with pyenv:
    `PYENV_VERSION=3.11.7:3.12.1 nox -s cuda_wheel`)."""
    if not shutil.which("nvcc"):
        session.skip("nvcc not found: the CUDA backend cannot be built on this machine")
    session.install(*BUILD_DEPS)
    shutil.rmtree(ROOT / "dist" / "cuda", ignore_errors=True)
    session.run("pip", "wheel", "--no-deps", "--no-build-isolation", "packages/core", "-w", "dist/cuda",
                "-Ccmake.define.EMBER_CUDA=ON", f"-Cbuild-dir=build/{session.name}")
    session.run("pip", "download", "--only-binary=:all:", "--no-deps", "-d", "dist/cuda", "ducc0",
                "scipy-openblas32>=0.3.27")


@nox.session
def fuzz(session: nox.Session) -> None:
    """Fuzz every op and nn.functional against PyTorch for N minutes (`-- --minutes N`)."""
    install_core(session)
    install_pure(session, ["nn"])
    session.install(*TEST_DEPS, TORCH)
    session.run("python", "packages/core/tests/fuzz_run.py", *session.posargs)


@nox.session
def codegen(session: nox.Session) -> None:
    """Write the sources packages/core/codegen/gen.py makes from ops.yaml into a folder, to read
    them (`-- --out DIR`, default build/codegen_out): ops.h, bindings.cpp, autograd_ops.*, ..."""
    session.install("pyyaml")
    args = list(session.posargs)
    out = Path(args[args.index("--out") + 1]) if "--out" in args else ROOT / "build" / "codegen_out"
    core = ROOT / "packages" / "core"
    session.run("python", str(core / "codegen" / "gen.py"), str(core / "ops.yaml"), str(out / "cpp"), str(out / "py"))
    session.log(f"generated sources in {out}/cpp and {out}/py")


LINT_TOOLS = ["ruff==0.17.6", "clang-format==23.1.5", "mypy==2.4.1", "packaging"]  # pinned: formatters drift


def cpp_sources() -> list[str]:
    dirs = [ROOT / "packages/core/csrc", ROOT / "packages/core/cuda_emu"]
    return sorted(str(p) for d in dirs for p in d.rglob("*") if p.suffix in {".h", ".cpp", ".cu", ".cuh"})


@nox.session
def lint(session: nox.Session) -> None:
    """The house rules, each failing the session: ruff (style, imports: only ember/_lib.py imports
    ember._C), clang-format with no diff, mypy on the pure-Python packages, downward includes and
    file lengths (tools/check_includes.py), the version windows (tools/check_versions.py)."""
    session.install(*LINT_TOOLS)
    session.run("ruff", "check", "packages", "tools", "noxfile.py")
    session.run("clang-format", "--dry-run", "--Werror", *cpp_sources())
    # follow-imports=silent: each package is checked on its own; the core's Python is read
    # for types only. Modules not clean yet are listed in pyproject.toml ([[tool.mypy.overrides]]).
    session.run("mypy", "--follow-imports=silent", "--ignore-missing-imports", "--no-warn-unused-ignores",
                *[f"packages/{p}/src" for p in PURE])
    session.run("python", "tools/check_includes.py")
    session.run("python", "tools/check_versions.py")


@nox.session
def format(session: nox.Session) -> None:
    """Apply what `nox -s lint` checks and can fix: clang-format -i over the C++, ruff's safe fixes."""
    session.install(*LINT_TOOLS)
    session.run("clang-format", "-i", *cpp_sources())
    session.run("ruff", "check", "--fix", "packages", "tools", "noxfile.py", success_codes=[0, 1])


@nox.session
def docs(session: nox.Session) -> None:
    """Build the Sphinx site into docs/_build/html with warnings as errors, every cross-reference
    resolved (nitpicky), the pages' doctests run, then check its in-site links and render the
    front, an API and the search page in headless Chromium (screenshots in build/docs_browser).

    Runs on the tests session's environment (its core build and every package; installed here
    by `nox -s tests --install-only`, a no-op rebuild after `nox -s tests`), seen through a .pth
    file from this venv, which adds Sphinx: the core is never compiled twice. Debian's chromium
    is apt-installed by the browser check if missing (PyPI and Debian are the only registries).
    """
    session.run(sys.executable, "-m", "nox", "-s", "tests", "--install-only", external=True)
    tests_py = Path(session.virtualenv.location).parent / "tests" / "bin" / "python"
    purelib = "import sysconfig; print(sysconfig.get_path('purelib'))"
    tests_site = session.run(str(tests_py), "-c", purelib, silent=True, external=True).strip()
    own_site = session.run("python", "-c", purelib, silent=True).strip()
    Path(own_site, "ember_tests_env.pth").write_text(f"import site; site.addsitedir({tests_site!r})\n")
    session.install("-r", "docs/requirements.txt")
    # mpi4py (the distributed examples) finds the mpich wheel's libmpi under its own venv's lib/.
    lib = str(tests_py.parent.parent / "lib")
    env = {"LD_LIBRARY_PATH": os.pathsep.join(p for p in (lib, os.environ.get("LD_LIBRARY_PATH")) if p)}
    common = ["-W", "--keep-going", "-q", "-j", "auto", "-d", "docs/_build/doctrees", "docs"]
    # -E: read every page afresh, so a warning a cached doctree hides here fails here as it does in CI
    session.run("python", "-m", "sphinx", "-b", "html", "-E", *common, "docs/_build/html", env=env)
    # the doctest builder reuses the doctrees
    session.run("python", "-m", "sphinx", "-b", "doctest", *common, "docs/_build/doctest", env=env)
    session.run("python", "docs/check_site.py", "docs/_build/html", str(ROOT / "build" / "docs_browser"))


@nox.session
def build(session: nox.Session) -> None:
    """Build a wheel per package into dist/."""
    session.install("build")
    shutil.rmtree(ROOT / "dist", ignore_errors=True)
    for p in ["core", *PURE]:
        session.run("python", "-m", "build", "--wheel", "--outdir", "dist", f"packages/{p}")


@nox.session
def versions(session: nox.Session) -> None:
    """Check each package's declared window of ember-core against the workspace."""
    session.install("packaging")
    session.run("python", "tools/check_versions.py")
