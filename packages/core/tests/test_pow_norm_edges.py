"""pow with a number exponent reads it as aten's kernel does (checked as the computation's type for
integers and half types), pow_'s overlap check before its shortcuts, and vector_norm over one
element per slice (|x| for every order but 0) -- fuzz findings, compared with PyTorch."""

from __future__ import annotations

import ember
import pytest

torch = pytest.importorskip("torch")


def _outcome(lib, f):
    try:
        r = f(lib)
    except Exception as exc:  # noqa: BLE001 - the exception type is the result
        return type(exc).__name__
    return str(r.dtype), [float(v) for v in r.flatten().tolist()]


POW = [
    lambda m: m.tensor([0.0, 1.5, 2.0]).to(m.float16).pow(7e4),
    lambda m: m.tensor([0.0, 1.5, 2.0]).to(m.bfloat16).pow(1e39),
    lambda m: m.tensor([0.0, 1.5, 2.0]).to(m.float16).pow(float("inf")),
    lambda m: m.tensor([0.0, 1.5, 2.0]).to(m.float16).pow_(1e10),
    lambda m: m.tensor([1, 2], dtype=m.int8).pow(300),
    lambda m: m.tensor([1, 2], dtype=m.int32).pow(2**40),
    lambda m: m.tensor([1.0, 2.0]).pow(1e39),
    lambda m: m.ones(3, 1, dtype=m.bool).expand(3, 4).pow_(True),
]


@pytest.mark.parametrize("i", range(len(POW)))
def test_pow_number_exponent_like_torch(i):
    assert _outcome(ember, POW[i]) == _outcome(torch, POW[i])


@pytest.mark.parametrize("ord", [0, 0.5, 1e-8, -1e-8, -2, 2, 3, float("nan"), 1e30, -1e30])
@pytest.mark.parametrize("dtype", ["float32", "float16"])
def test_vector_norm_one_element_per_slice(ord, dtype):
    def f(m):
        x = m.tensor([[0.581], [0.0], [-3.0], [3e30]]).to(getattr(m, dtype))
        return m.linalg.vector_norm(x, ord=ord, dim=1)
    assert _outcome(ember, f) == _outcome(torch, f)


# A string ord names a matrix norm whatever dim says: linalg.norm goes to matrix_norm and its
# checks (a 1-element dim, a 1-d input) raise its RuntimeErrors.
NORM_STR = [
    lambda m: m.linalg.norm(m.ones(3, 3), "fro", 1),
    lambda m: m.linalg.norm(m.ones(3, 3), "nuc", dim=0),
    lambda m: m.linalg.norm(m.ones(3), "fro"),
    lambda m: m.linalg.norm(m.ones(3, 4), "fro", (0, 1)),
    lambda m: m.linalg.norm(m.ones(2, 3, 4), "nuc", (1, 2), keepdim=True),
    lambda m: m.linalg.norm(m.ones(3, 3), "abc"),
]


@pytest.mark.parametrize("i", range(len(NORM_STR)))
def test_norm_string_ord_is_a_matrix_norm(i):
    def msg(lib):
        try:
            r = NORM_STR[i](lib)
        except Exception as exc:  # noqa: BLE001 - the exception is the result
            return type(exc).__name__, str(exc)
        return str(r.dtype), tuple(r.shape), [round(float(v), 4) for v in r.flatten().tolist()]
    assert msg(ember) == msg(torch)
