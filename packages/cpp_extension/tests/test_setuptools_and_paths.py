"""Ahead-of-time builds (setup.py + BuildExtension) and the path/ninja helpers."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import ember.utils.cpp_extension as ce
import pytest

TINY = textwrap.dedent("""
    #include <pybind11/pybind11.h>
    int answer() { return 42; }
    PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) { m.def("answer", &answer); }
""")


def test_paths_and_build_root(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    import ember

    pkg = os.path.realpath(os.path.dirname(ember.__file__))
    inc = ce.include_paths()
    assert inc[:2] == [os.path.join(pkg, "include"), os.path.join(pkg, "include", "torch", "csrc", "api", "include")]
    assert os.path.exists(os.path.join(inc[0], "torch", "extension.h"))
    assert ce.library_paths() == [os.path.join(pkg, "lib")]
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert ce.get_default_build_root() == os.path.realpath(tmp_path / "ember_extensions")
    ce.verify_ninja_availability()
    assert ce.is_ninja_available()


def test_cuda_is_refused_clearly() -> None:
    with pytest.raises(RuntimeError, match="built without CUDA"):
        ce.CUDAExtension("x", ["x.cu"])
    with pytest.raises(RuntimeError, match="built without CUDA"):
        ce.load_inline("x", "", cuda_sources="__global__ void k() {}")
    with pytest.raises(ValueError, match="mutually exclusive"):
        ce.load("x", [], is_python_module=True, is_standalone=True)
    with pytest.raises(ValueError, match="Expected 'functions' to be a list or dict"):
        ce.load_inline("x", "", functions=3)  # type: ignore[arg-type]


def test_with_options_and_cpp_extension() -> None:
    cls = ce.BuildExtension.with_options(no_python_abi_suffix=True, use_ninja=False)
    assert issubclass(cls, ce.BuildExtension)
    ext = ce.CppExtension("pkg.mod", ["a.cpp"], include_dirs=["mine"])
    assert ext.include_dirs[0] == "mine" and ext.include_dirs[1:] == ce.include_paths()
    assert ext.language == "c++"


@pytest.mark.skipif(shutil.which(os.environ.get("CXX", "c++")) is None, reason="no C++ compiler")
def test_setup_py_build(tmp_path: Path) -> None:
    (tmp_path / "tiny.cpp").write_text(TINY)
    (tmp_path / "setup.py").write_text(textwrap.dedent("""
        from setuptools import setup
        from ember.utils.cpp_extension import BuildExtension, CppExtension
        setup(name="tiny_aot", ext_modules=[CppExtension("tiny_aot", ["tiny.cpp"])],
              cmdclass={"build_ext": BuildExtension.with_options(no_python_abi_suffix=True)})
    """))
    subprocess.run([sys.executable, "setup.py", "build_ext", "--inplace"], cwd=tmp_path, check=True,
                   capture_output=True)
    assert (tmp_path / "tiny_aot.so").exists()  # no ABI suffix
    out = subprocess.run([sys.executable, "-c", "import tiny_aot; print(tiny_aot.answer())"],
                         cwd=tmp_path, check=True, capture_output=True, text=True).stdout
    assert out.strip() == "42"
