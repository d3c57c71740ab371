"""Fuzz findings of issue 16 on seed 3004's leftovers and seeds 3005 on: PyTorch's values, dtypes and
exception types where ember differed, and the torch_known_wrong entries for calls where PyTorch
crashes or hangs. Helpers are test_fuzz_findings_ops.py's."""

from __future__ import annotations

from typing import Any

import pytest

torch = pytest.importorskip("torch")

import ember  # noqa: E402
from sibling import load  # noqa: E402  (conftest.py registers it)

_FO = load("test_fuzz_findings_ops")
outcome, same, check, call, known_wrong = _FO.outcome, _FO.same, _FO.check, _FO.call, _FO.known_wrong
NAN, INF = _FO.NAN, _FO.INF


def _to_torch(t: Any) -> Any:
    """ember's real tensor as torch's (through float64, exact for every float dtype)."""
    return torch.tensor(t.double().tolist(), dtype=torch.float64).to(getattr(torch, str(t.dtype).split(".")[-1]))


# ---- polygamma of a half type: aten's two roundings ----------------------------------------------

def _polygamma_inputs(m: Any, dtype: str) -> Any:
    g = torch.Generator().manual_seed(0)
    vals = (torch.randn(3000, generator=g) * 6).tolist() + [0.5, 1.0, 2.0, 65504.0, -2.5, -0.25, 6e-8, -0.0,
                                                            0.0, -3.0, 1e4, NAN]
    return m.tensor(vals, dtype=getattr(m, dtype))


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("n", [2, 3, 4, 5, 7, 32, 34, 35])
def test_polygamma_half_type_rounds_as_aten(n: int, dtype: str) -> None:
    """aten computes a half type's polygamma (n >= 2) as half(n! * half(zeta(n + 1, x))), the zeta in
    float: two roundings, one half step off the exact value for ~28% of float16 inputs. ember gives
    PyTorch's values bit for bit, also into an out= of another dtype (seed 3004: float32) -- where
    that zeta is a normal number of the half type. Where it is subnormal or 0 there, aten's value
    lost the bits the rounding cut (polygamma(10, 6.0) is 0 in float16, not 0.0098): ember's is the
    exact value rounded once. (x = +-inf: torch_known_wrong's polygamma-inf.)"""
    x = _polygamma_inputs(torch, dtype)
    zeta = torch.special.zeta(float(n + 1), x.double())
    normal = (zeta.abs() >= torch.finfo(getattr(torch, dtype)).tiny * 1.01) & (n <= 34)
    want = torch.where(normal, torch.polygamma(n, x), torch.polygamma(n, x.double()).to(x.dtype))
    got = ember.polygamma(n, _polygamma_inputs(ember, dtype))
    torch.testing.assert_close(_to_torch(got), want, rtol=0, atol=0, equal_nan=True)
    tout, eout = torch.empty(0), ember.empty(0)
    torch.polygamma(n, x, out=tout)
    ember.polygamma(n, _polygamma_inputs(ember, dtype), out=eout)
    torch.testing.assert_close(_to_torch(eout), torch.where(normal, tout, want.float()), rtol=0, atol=0,
                               equal_nan=True)


def test_polygamma_half_zeta_underflow() -> None:
    """aten's float16 zeta(11, 6.0) = 2.7e-9 rounds to 0, so its polygamma(10, 6.0) is 0; the value
    is 0.00981, which ember gives (the fuzz referee's float64 answer)."""
    assert torch.polygamma(10, torch.tensor([6.0], dtype=torch.float16)).item() == 0.0
    got = ember.polygamma(10, ember.tensor([6.0], dtype=ember.float16)).item()
    assert got == torch.polygamma(10, torch.tensor([6.0], dtype=torch.float64)).half().item() != 0.0


# ---- linalg.eigvals of a matrix holding inf or NaN ---------------------------------------------

def _eig_entry(a: Any) -> Any:
    kw = known_wrong()
    entry = kw.lookup("eigvals", (a,), {})
    assert entry is not None and entry.id == "eigvals-nonfinite"
    return kw.corrected(entry, None, "eigvals", (a,), {})


@pytest.mark.parametrize("dtype", ["float32", "float64", "complex64", "complex128"])
@pytest.mark.parametrize("rows", [
    [[[NAN, NAN], [NAN, NAN]]],  # float32: MKL's sgebal fails and the process segfaults
    [[[1.0, 2.0], [3.0, 4.0]], [[NAN, 1.0], [2.0, 3.0]], [[INF, 1.0], [2.0, -INF]]],
    [[[1.0, INF, 0.0], [0.0, 1.0, 0.0], [2.0, 0.0, -1.0]]],
])
def test_eigvals_nonfinite_is_nan_per_matrix(rows: list, dtype: str) -> None:
    """PyTorch hands a matrix holding inf or NaN to LAPACK, whose geev may loop forever or crash: the
    known-wrong entry's answer is NaN for each such matrix and LAPACK's eigenvalues for the batch's
    finite ones, which ember gives (without calling LAPACK on the non-finite ones)."""
    want = _eig_entry(torch.tensor(rows, dtype=getattr(torch, dtype)).squeeze(0))
    got = ember.linalg.eigvals(ember.tensor(rows, dtype=getattr(ember, dtype)).squeeze(0))
    assert str(got.dtype).split(".")[-1] == str(want.dtype).split(".")[-1]
    g = torch.tensor(got.tolist(), dtype=want.dtype)
    for a, b in zip(g.reshape(-1, g.shape[-1]), want.reshape(-1, want.shape[-1]), strict=True):
        if bool(b.isnan().all()):
            assert bool(a.isnan().all()), a
        else:  # the order is LAPACK's: compared sorted
            torch.testing.assert_close(sorted(a.tolist(), key=lambda v: (v.real, v.imag)),
                                       sorted(b.tolist(), key=lambda v: (v.real, v.imag)), rtol=1e-5, atol=1e-5)


def test_eig_nonfinite_still_raises() -> None:
    check(lambda m: m.linalg.eig(m.tensor([[NAN, 1.0], [0.0, 1.0]])))


@pytest.mark.parametrize("f", call(
    # eig refuses inf / NaN before its dtype and shape checks (seed 3004: float16 3x3)
    lambda m: m.linalg.eig(m.full((3, 3), NAN, dtype=m.float16)),
    lambda m: m.linalg.eig(m.full((3, 2), NAN, dtype=m.bfloat16)),
    lambda m: m.linalg.eig(m.full((3,), INF)),
    lambda m: m.linalg.eig(m.ones(3, 3, dtype=m.float16)),
    lambda m: m.linalg.eigvals(m.full((3, 3), NAN, dtype=m.float16)),
    # addmm_'s in-place output check comes before the expand and the dtype dispatch (seed 3005)
    lambda m: m.ones((), dtype=m.bool).addmm_(m.ones(2, 3, dtype=m.bool), m.ones(3, 4, dtype=m.bool)),
    lambda m: m.ones(3).addmm_(m.ones(2, 3), m.ones(3, 4)),
    lambda m: m.ones(1, 4).addmm_(m.ones(2, 3), m.ones(3, 4)),
    lambda m: m.ones(2, 4, dtype=m.bool).addmm_(m.ones(2, 3, dtype=m.bool), m.ones(3, 4, dtype=m.bool)),
    lambda m: m.ones((), dtype=m.float16).addmm_(m.ones(2, 3), m.ones(3, 4)),
))
def test_fuzz_3005_checks(f: Any) -> None:
    check(f)


@pytest.mark.parametrize("f", call(
    # a contiguous 1-d input with a 1-d bias is one row through addmm (aten's _flatten_nd_linear): the
    # bias is expanded to the output row, so one of another size raises (seed 3005)
    lambda m: m.nn.functional.linear(m.ones(0), m.ones(1, 0), m.ones(3)),
    lambda m: m.nn.functional.linear(m.ones(4), m.ones(2, 4), m.ones(3)),
    lambda m: m.nn.functional.linear(m.arange(4.0), m.ones(2, 4), m.tensor([1.0, -2.0])),
    lambda m: m.nn.functional.linear(m.arange(4.0), m.ones(2, 4), m.tensor([0.5])),
    lambda m: m.nn.functional.linear(m.arange(4.0), m.ones(4), m.tensor([0.5])),
    lambda m: m.nn.functional.linear(m.arange(8.0)[::2], m.ones(2, 4), m.ones(3)),
))
def test_linear_1d_input_bias(f: Any) -> None:
    check(f)


def test_sdpa_flash_mixed_dtypes_inconsistent_shapes() -> None:
    """torch's fused CPU attention kills the process (SIGFPE) for a float32 query beside float64 keys of
    6 and values of 0: the known-wrong entry (a RuntimeError) covers mixed dtypes too, as ember raises."""
    q, k, v = torch.ones(2, 3, 5, 4), torch.ones(2, 3, 6, 4, dtype=torch.float64), torch.ones(2, 3, 0, 4,
                                                                                             dtype=torch.float64)
    kw = known_wrong()
    entry = kw.lookup("_scaled_dot_product_flash_attention_for_cpu", (q, k, v, 0.0, True), {})
    assert entry is not None and entry.id == "sdpa-flash-inconsistent-shapes"
    assert outcome(ember, lambda m: m._nn._scaled_dot_product_flash_attention_for_cpu(
        m.ones(2, 3, 5, 4), m.ones(2, 3, 6, 4, dtype=m.float64), m.ones(2, 3, 0, 4, dtype=m.float64), 0.0, True)
    )[:2] == ("raise", "RuntimeError")


@pytest.mark.parametrize("f", call(
    # aten reads the target's min and max as int64 (a float truncated toward 0) before its float-only
    # dispatch: -1.7 passes as -1, so an int64 input is the NotImplementedError (seed 3006)
    lambda m: m.nn.functional.multilabel_margin_loss(m.ones(3, 4, dtype=m.int64), m.full((3, 4), -1.7),
                                                     reduction="none"),
    lambda m: m.nn.functional.multilabel_margin_loss(m.ones(3, 4), m.full((3, 4), 3.9)),
    lambda m: m.nn.functional.multilabel_margin_loss(m.ones(3, 4), m.full((3, 4), 4.0)),
    lambda m: m.nn.functional.multilabel_margin_loss(m.ones(3, 4), m.full((3, 4), -2.0)),
    lambda m: m.nn.functional.multilabel_margin_loss(m.ones(3, 4), m.full((3, 4), INF)),
    lambda m: m.nn.functional.multilabel_margin_loss(m.ones(3, 4), m.tensor([[0, 1, -1, 2]] * 3)),
))
def test_multilabel_margin_target_read_as_int64(f: Any) -> None:
    check(f)


@pytest.mark.parametrize("f", call(
    # aten reads an integral ord as int64_t: past INT64_MAX its overflow error (seed 3006)
    lambda m: m._foreach_norm([m.ones(3, 4), m.ones(5)], 2**63),
    lambda m: m._foreach_norm([m.ones(3, 4), m.ones(5)], 2**63 - 1),
    # baddbmm's float kernel reads beta and alpha as float: 1e300 overflows (seed 3007)
    lambda m: m.baddbmm(m.ones(5, 2, 4), m.ones(5, 2, 3), m.ones(5, 3, 4), beta=1e300, alpha=-1),
    lambda m: m.baddbmm(m.ones(5, 2, 4), m.ones(5, 2, 3), m.ones(5, 3, 4), alpha=1e300),
    lambda m: m.baddbmm(m.ones(5, 2, 4, dtype=m.float16), m.ones(5, 2, 3, dtype=m.float16),
                        m.ones(5, 3, 4, dtype=m.float16), beta=1e300),
    lambda m: m.baddbmm(m.ones(5, 2, 4, dtype=m.float16), m.ones(5, 2, 3, dtype=m.float16),
                        m.ones(5, 3, 4, dtype=m.float16), beta=1e6),
    lambda m: m.baddbmm(m.ones(5, 2, 4, dtype=m.float64), m.ones(5, 2, 3, dtype=m.float64),
                        m.ones(5, 3, 4, dtype=m.float64), beta=1e300),
))
def test_scalar_read_checked(f: Any) -> None:
    check(f)
