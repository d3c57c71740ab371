"""Fuzz findings of seed 8419: bincount of INT64_MAX (an out-of-bounds write that aborted the process), the
2-d adaptive average pool backward's dtype dispatch on an empty input, and the known-wrong entries of this
round (randperm into an out= of shared elements; the 3-d backward entry left to integer dtypes' error).
Helpers are test_fuzz_findings_ops.py's."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from typing import Any

import pytest

torch = pytest.importorskip("torch")

import ember  # noqa: E402
from sibling import load  # noqa: E402  (conftest.py registers it)

_FO = load("test_fuzz_findings_ops")
_KW = load("torch_known_wrong")
check, call, check_message = _FO.check, _FO.call, _FO.check_message


# ---- bincount: the largest value leaves no room for one more bin --------------------------------------

def test_bincount_int64_max_no_crash() -> None:
    """The count of bins wrapped to a negative number and the kernel wrote past the result (SIGABRT)."""
    code = textwrap.dedent("""
        import ember
        for args in ((ember.tensor([2**63 - 1]),), (ember.tensor([3, 2**63 - 1]),)):
            try:
                ember.bincount(*args)
            except RuntimeError as e:
                print(e)
    """)
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False)
    assert r.returncode == 0, r.stderr[-2000:]
    assert r.stdout.count("maximum value of input overflowed") == 2


@pytest.mark.parametrize("f", call(
    lambda m: m.bincount(m.tensor([2**63 - 1])),
    lambda m: m.bincount(m.tensor([2**63 - 1]), minlength=5),
    lambda m: m.bincount(m.tensor([2**63 - 1]), weights=m.ones(2)),  # the values before the weights
    lambda m: m.bincount(m.tensor([2**63 - 1, -1])),
    lambda m: m.bincount(m.tensor([-1]), weights=m.ones(2)),
    lambda m: m.bincount(m.tensor([1, 2]), weights=m.ones(3)),
    lambda m: m.bincount(m.tensor([5]), weights=m.ones(1, 1)),
    lambda m: m.bincount(m.tensor([1, 3, 3]), weights=m.tensor([0.5, 1.0, 2.0])),
))
def test_bincount_checks(f: Any) -> None:
    check_message(f)


# ---- 2-d adaptive average pool backward: its dtype dispatch comes before an empty input's return ----------

def _aten(m: Any) -> Any:
    return m.ops.aten if m is torch else m._nn


@pytest.mark.parametrize("n, grad, x, dt", [
    (2, (0, 1, 1, 1), (0, 1, 1, 1), "int64"),
    (2, (0, 1, 1, 1), (0, 1, 1, 1), "bool"),
    (2, (2, 1, 1, 1), (2, 1, 3, 3), "int64"),
    (2, (3, 1, 1, 1), (2, 1, 3, 3), "int64"),  # the dtype before the batch sizes
    (2, (0, 1, 1, 1), (0, 1, 1, 1), "float16"),
    (3, (1, 2, 2, 3, 4), (0, 0, 0, 0, 0), "int64"),
])
def test_adaptive_avg_pool_backward_dtype(n: int, grad: tuple, x: tuple, dt: str) -> None:
    check_message(lambda m: getattr(_aten(m), f"_adaptive_avg_pool{n}d_backward")(
        m.ones(grad, dtype=getattr(m, dt)), m.ones(x, dtype=getattr(m, dt))))
    check_message(lambda m: _aten(m)._adaptive_avg_pool2d_backward(m.ones(2, 1, 1, 1), m.ones(2, 1, 3, 3,
                                                                                             dtype=m.int64)))


def test_adaptive_backward_entry_floating_only() -> None:
    args = (torch.ones(1, 2, 2, 3, 4, dtype=torch.int64), torch.ones(0, 0, 0, 0, 0, dtype=torch.int64))
    assert _KW.lookup("_adaptive_avg_pool3d_backward", args, {}) is None  # PyTorch's dtype error stands
    args = (torch.ones(1, 2, 2, 3, 4), torch.ones(1, 2, 0, 3, 4))
    entry = _KW.lookup("_adaptive_avg_pool3d_backward", args, {})
    assert entry is not None and entry.id == "adaptive-avg-pool-backward-empty-input"


# ---- known wrong: randperm into an out= whose elements share memory ------------------------------------

def test_randperm_overlapping_out_known_wrong() -> None:
    entry = _KW.lookup("randperm", (5,), {"out": torch.zeros(1).expand(5)})
    assert entry is not None and entry.id == "randperm-out-internal-overlap"
    with pytest.raises(RuntimeError, match="more than one element of the written-to tensor"):
        entry.correct("randperm", (5,), {"out": torch.zeros(1).expand(5)})
    with pytest.raises(RuntimeError, match="more than one element of the written-to tensor"):
        ember.randperm(5, out=ember.zeros(1).expand(5))
    # an out= of another size is resized to fresh memory: a permutation, in both
    assert _KW.lookup("randperm", (5,), {"out": torch.zeros(1).expand(3)}) is None
    assert sorted(ember.randperm(5, out=ember.zeros(1).expand(3)).tolist()) == [0.0, 1.0, 2.0, 3.0, 4.0]


def test_rerun_entries_leave_torchs_own_errors() -> None:
    """The entries step aside where PyTorch raises first: the parser (randperm's second positional argument),
    the 2-d backward's dtype dispatch before its batch sizes."""
    assert _KW.lookup("randperm", (2, 0), {"out": torch.zeros(1).expand(2)}) is None
    args = (torch.ones(0, 1, 1, 1, dtype=torch.int64), torch.ones(2, 3, 7, 9, dtype=torch.int64))
    assert _KW.lookup("_adaptive_avg_pool2d_backward", args, {}) is None
    check_message(lambda m: _aten(m)._adaptive_avg_pool2d_backward(m.ones(0, 1, 1, 1, dtype=m.int64),
                                                                  m.ones(2, 3, 7, 9, dtype=m.int64)))
    with pytest.raises(TypeError):
        ember.randperm(2, 0, out=ember.zeros(1).expand(2))


def test_rerun_entries_leave_dtype_and_parser_errors() -> None:
    # randperm into a bool (or complex) out=: the kernel's dtype error, whatever the layout
    assert _KW.lookup("randperm", (5,), {"out": torch.zeros(1, dtype=torch.bool).expand(5)}) is None
    check_message(lambda m: m.randperm(5, out=m.zeros(1, dtype=m.bool).expand(5)))
    # a padding past int64: the parser's TypeError before the dilated-kernel entry
    args = (torch.ones(2, 5, 6, 7, dtype=torch.float64), (2, 3, 2), (1, 2, 2), (2**63, 1, 0), (2, 1, 2**31 - 1), True)
    assert _KW.lookup("max_pool3d_with_indices", args, {}) is None
    # an unfold padding of 2**31: PyTorch's int32 block count (negative) is the int32 entry's
    kw = {"kernel_size": (2, 2), "dilation": 1, "padding": 2**31, "stride": 2}
    entry = _KW.lookup("unfold", (torch.ones(2, 3, 5, 5, dtype=torch.int64),), kw)
    assert entry is not None and entry.id == "unfold-block-count-wraps-int32"
    with pytest.raises(NotImplementedError):
        ember.nn.functional.unfold(ember.ones(2, 3, 5, 5, dtype=ember.int64), **kw)
    with pytest.raises(RuntimeError):
        ember.nn.functional.unfold(ember.ones(2, 3, 5, 5), **kw)
