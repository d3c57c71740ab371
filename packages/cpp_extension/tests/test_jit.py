"""End-to-end JIT builds, each scenario in a fresh subprocess with its own build root.

One extension (tests/ext/torch_style.cpp, written against torch/extension.h) is built once
per session and shared; the other builds are tiny pybind11-only sources."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

HERE = Path(__file__).parent
SRC = HERE / "ext" / "torch_style.cpp"

pytestmark = pytest.mark.skipif(shutil.which(os.environ.get("CXX", "c++")) is None,
                                reason="no C++ compiler")

# A pybind11-only module (no ember headers): builds in a few seconds.
TINY = """
#include <pybind11/pybind11.h>
int answer() { return ANSWER; }
PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) { m.def("answer", &answer); }
"""


def run(code: str, root: Path, check: bool = True, **env: str) -> subprocess.CompletedProcess:
    e = dict(os.environ, EMBER_EXTENSIONS_DIR=str(root), **env)
    proc = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], env=e, text=True,
                          capture_output=True, timeout=600)
    if check and proc.returncode != 0:
        raise AssertionError(f"subprocess failed:\n{proc.stdout}\n{proc.stderr}")
    return proc


def last_json(proc: subprocess.CompletedProcess) -> dict:
    return json.loads(proc.stdout.strip().splitlines()[-1])


LOAD = f"""
import json, os, ember
from ember.utils.cpp_extension import load
ext = load("torch_style", [{str(SRC)!r}])
"""


@pytest.fixture(scope="session")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Build the shared extension once; returns its build root."""
    root = tmp_path_factory.mktemp("ext_root")
    run(LOAD + "print(json.dumps({'name': ext.__name__}))", root)
    return root


def ninja_log_lines(build_dir: Path) -> int:
    return len((build_dir / ".ninja_log").read_text().splitlines())


def test_build_and_call(built: Path) -> None:
    torch = pytest.importorskip("torch")
    proc = run(LOAD + """
x = ember.tensor([[0.5, 1.0], [2.0, -1.0]]); y = ember.tensor([[1.0, 2.0], [3.0, 4.0]])
print(json.dumps({'name': ext.__name__, 'file': ext.__file__, 'r': ext.sin_add(x, y).tolist(),
                  'doc': ext.sin_add.__doc__}))
""", built)
    out = last_json(proc)
    assert out["name"] == "torch_style"
    assert out["file"] == str(built / "torch_style" / "torch_style.so")
    tx = torch.tensor([[0.5, 1.0], [2.0, -1.0]])
    ty = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
    assert torch.allclose(torch.tensor(out["r"]), tx.sin() + ty.sin())
    assert "sin(x) + sin(y)" in out["doc"]


def test_second_process_is_a_cache_hit(built: Path) -> None:
    before = ninja_log_lines(built / "torch_style")
    obj = built / "torch_style" / "torch_style.o"
    mtime = obj.stat().st_mtime_ns
    run(LOAD + "print(json.dumps({}))", built)
    assert ninja_log_lines(built / "torch_style") == before  # ninja compiled nothing
    assert obj.stat().st_mtime_ns == mtime


def test_casters_share_storage_and_types(built: Path) -> None:
    out = last_json(run(LOAD + """
x = ember.arange(6, dtype=ember.float64).reshape(2, 3)
out = ember.zeros(2, 3, dtype=ember.float64)
r = ext.scale_into(out, x, 2.0)
v = ext.split_stats(x, None, [3, 2])
w = ext.split_stats(x, ember.ones(3, dtype=ember.float64), shape=(6,))
print(json.dumps({'same_object': r is out, 'filled': out.tolist(),
                  'same_data': ext.data_address(x) == x.data_ptr(),
                  'view_data': ext.data_address(x[1]) == x[1].data_ptr(),
                  'shapes': [list(t.shape) for t in v], 'dtypes': [t.dtype == ember.float64 for t in v],
                  'bias': w[0].tolist(), 'rsub': v[2].item(), 'mean': v[3].tolist()}))
""", built))
    assert out["same_object"] and out["same_data"] and out["view_data"]
    assert out["filled"] == [[0.0, 2.0, 4.0], [6.0, 8.0, 10.0]]
    assert out["shapes"] == [[3, 2], [3, 2], [], [1, 3]]
    assert out["dtypes"] == [True] * 4
    assert out["bias"] == [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]
    assert out["rsub"] == 1.0 - 15.0
    assert out["mean"] == [[1.5, 2.5, 3.5]]


def test_errors_surface_as_python_exceptions(built: Path) -> None:
    out = last_json(run(LOAD + """
res = {}
def catch(key, f):
    try:
        f()
    except Exception as e:
        res[key] = [type(e).__name__, str(e)]
x = ember.zeros(2, 3)
catch('check', lambda: ext.scale_into(ember.zeros(3, 2), x, 1.0))
ints = ember.zeros(2, 3, dtype=ember.int64)
catch('dispatch', lambda: ext.scale_into(ints, ints, 1.0))
catch('core', lambda: ext.sin_add(ember.zeros(2), ember.zeros(3)))
catch('caster', lambda: ext.sin_add([1.0], ember.zeros(1)))
print(json.dumps(res))
""", built))
    assert out["check"] == ["RuntimeError", "shape mismatch: [2, 3] vs [3, 2]"]
    assert out["dispatch"] == ["RuntimeError", "\"scale_into\" not implemented for 'Long'"]
    assert out["core"][0] == "RuntimeError" and "size of tensor a (2)" in out["core"][1]
    assert out["caster"][0] == "TypeError"


def test_torch_library_ops_in_ember_ops(built: Path) -> None:
    out = last_json(run(LOAD + """
import ember.ops
r = ember.ops.ext_test.scaled_add(ember.ones(2), ember.full((2,), 3.0), 2.0)
try:
    ember.ops.ext_test.missing
except AttributeError as e:
    err = str(e)
print(json.dumps({'r': r.tolist(), 'err': err, 'same': ember.ops.ext_test is ember.ops.ext_test}))
""", built))
    assert out == {"r": [7.0, 7.0], "err": "'_OpNamespace' 'ext_test' object has no attribute 'missing'",
                   "same": True}


def test_plain_library_registers_ops(tmp_path: Path) -> None:
    code = (
        "import json, ember\n"
        "from ember.utils.cpp_extension import load_inline\n"
        "src = 'torch::Tensor twice(torch::Tensor a) { return a * 2; }\\n'"
        " 'TORCH_LIBRARY(libns, m) { m.def(\"twice\", &twice); }\\n'\n"
        "path = load_inline('libonly', src, is_python_module=False)\n"
        "print(json.dumps({'path': path, 'r': ember.ops.libns.twice(ember.ones(2)).tolist(),\n"
        "                  'loaded': path in ember.ops.loaded_libraries}))\n"
    )
    out = last_json(run(code, tmp_path))
    assert out == {"path": str(tmp_path / "libonly" / "libonly.so"), "r": [2.0, 2.0], "loaded": True}


def test_cpp_ops_record_autograd_and_train(built: Path) -> None:
    out = last_json(run(LOAD + """
x = ember.tensor([1.0, -2.0, 3.0], requires_grad=True)
y = ext.square_sum(x)
y.backward()
direct_grad = x.grad.tolist()

class Cell(ember.autograd.Function):
    @staticmethod
    def forward(ctx, x, w):
        (h,) = ext.cell_forward(x, w)
        ctx.save_for_backward(x, w, h)
        return h
    @staticmethod
    def backward(ctx, g):
        return tuple(ext.cell_backward(g, *ctx.saved_tensors))

ember.manual_seed(0)
xd = ember.randn(3, 4, dtype=ember.float64); wd = ember.randn(4, 2, dtype=ember.float64, requires_grad=True)
ok = ember.autograd.gradcheck(Cell.apply, (xd.clone().requires_grad_(), wd))
w = ember.randn(4, 2, requires_grad=True); xs = ember.randn(16, 4); target = ember.full((16, 2), 0.5)
opt = ember.optim.SGD([w], lr=0.5)
losses = []
for _ in range(30):
    opt.zero_grad()
    loss = ((Cell.apply(xs, w) - target) ** 2).mean()
    loss.backward(); opt.step(); losses.append(loss.item())
print(json.dumps({'grad_fn': type(y.grad_fn).__name__, 'grad': direct_grad, 'gradcheck': ok,
                  'first': losses[0], 'last': losses[-1]}))
""", built))
    assert out["grad"] == [2.0, -4.0, 6.0]
    assert out["grad_fn"] == "SumBackward0"
    assert out["gradcheck"] is True
    assert out["last"] < 0.5 * out["first"]


def test_rebuild_on_change_and_versioning(tmp_path: Path) -> None:
    out = last_json(run(f"""
import json
from ember.utils.cpp_extension import load_inline
src = {TINY!r}
a = load_inline("tiny", src.replace("ANSWER", "1"), no_implicit_headers=True)
b = load_inline("tiny", src.replace("ANSWER", "2"), no_implicit_headers=True)
c = load_inline("tiny", src.replace("ANSWER", "2"), no_implicit_headers=True)
d = load_inline("tiny", src.replace("ANSWER", "2"), extra_cflags=["-DUNUSED=1"], no_implicit_headers=True)
print(json.dumps({{'names': [m.__name__ for m in (a, b, d)], 'vals': [m.answer() for m in (a, b, d)],
                  'same': b is c}}))
""", tmp_path))
    assert out == {"names": ["tiny", "tiny_v1", "tiny_v2"], "vals": [1, 2, 2], "same": True}
    # A new process with the first source again: version 0 is rebuilt from the changed source.
    out = last_json(run(f"""
import json
from ember.utils.cpp_extension import load_inline
m = load_inline("tiny", {TINY!r}.replace("ANSWER", "3"), no_implicit_headers=True)
print(json.dumps({{'v': m.answer()}}))
""", tmp_path))
    assert out == {"v": 3}


def test_two_concurrent_builds_both_succeed(tmp_path: Path) -> None:
    code = f"""
import json
from ember.utils.cpp_extension import load_inline
m = load_inline("race", {TINY!r}.replace("ANSWER", "7"), no_implicit_headers=True)
print(json.dumps({{'v': m.answer()}}))
"""
    env = dict(os.environ, EMBER_EXTENSIONS_DIR=str(tmp_path))
    procs = [subprocess.Popen([sys.executable, "-c", code], env=env, text=True,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE) for _ in range(2)]
    outs = [p.communicate(timeout=600) for p in procs]
    for p, (so, se) in zip(procs, outs, strict=True):
        assert p.returncode == 0, se
        assert json.loads(so.strip().splitlines()[-1]) == {"v": 7}
    assert ninja_log_lines(tmp_path / "race") <= 3  # compiled and linked once


def test_compile_error_message(tmp_path: Path) -> None:
    proc = run("""
from ember.utils.cpp_extension import load_inline
try:
    load_inline("broken", "int f() { return undefined_name; }", no_implicit_headers=True)
except RuntimeError as e:
    print(str(e))
""", tmp_path)
    assert proc.stdout.startswith("Error building extension 'broken'")
    assert "undefined_name" in proc.stdout and "error" in proc.stdout


def test_abi_mismatch_is_refused_at_import(tmp_path: Path) -> None:
    proc = run("""
import ember
from ember.utils.cpp_extension import load_inline
try:
    load_inline("future_ext", "int f() { return 1; }", functions=["f"],
                extra_cflags=["-DEMBER_EXT_ABI_MINOR=99"])
except ImportError as e:
    print(str(e))
""", tmp_path)
    msg = proc.stdout
    assert "ember C++ extension 'future_ext' was built against the ember C++ API 1.99" in msg
    assert "provides C++ API 1.0" in msg and "rebuild" in msg


def test_imports_and_errors_without_a_compiler(tmp_path: Path) -> None:
    proc = run("""
import ember.utils.cpp_extension as ce
try:
    ce.load_inline("nocc", "int f() { return 1; }", no_implicit_headers=True)
except RuntimeError as e:
    print(str(e).splitlines()[0])
""", tmp_path, CXX="/nonexistent/c++")
    assert proc.stdout.startswith("Error building extension 'nocc'")
