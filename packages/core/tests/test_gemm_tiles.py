"""float32 GEMM on ember's AVX-512 tiles (sgemm512, taken by blas_gemm where it beats OpenBLAS):
every operand layout, leading dimensions past the row length, the K / M / N blocking edges,
alpha / beta, and both thread counts, against torch. On CPUs without AVX-512 the same calls
go to OpenBLAS and must agree just the same."""
from __future__ import annotations

import itertools

import pytest

torch = pytest.importorskip("torch")

import ember  # noqa: E402

# (M, K, N): tile-row remainders, one panel's tail, K blocks of 392 (784) and uneven ones (1030),
# row blocks past 256 (B packed once, kept), column chunks past 1024, and the small-shape gates
SHAPES = [(4, 8, 48), (5, 9, 49), (13, 300, 47), (13, 300, 129), (128, 784, 512), (100, 33, 77),
          (257, 513, 129), (7, 1030, 200), (300, 20, 1100), (600, 70, 140), (40, 2, 130), (3, 64, 64)]


def _operand(t: torch.Tensor, trans: bool, pad: int) -> tuple[torch.Tensor, ember.Tensor]:
    """t as a (possibly transposed) view whose rows are `pad` floats longer than needed."""
    r, c = t.shape
    store = t.t() if trans else t
    base = torch.randn(store.shape[0], store.shape[1] + pad)
    base[:, :store.shape[1]] = store
    eb = ember.tensor(base.tolist())
    tv, ev = base[:, :store.shape[1]], eb[:, :store.shape[1]]
    return (tv.t(), ev.t()) if trans else (tv, ev)


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "x".join(map(str, s)))
def test_addmm_layouts(shape: tuple, threads: int) -> None:
    M, K, N = shape
    old = ember.get_num_threads()
    ember.set_num_threads(threads)
    try:
        torch.manual_seed(M * 1000 + K + N)
        for ta, tb, pad in itertools.product([False, True], [False, True], [0, 3]):
            a, ea = _operand(torch.randn(M, K), ta, pad)
            b, eb = _operand(torch.randn(K, N), tb, pad)
            c = torch.randn(M, N)
            ec = ember.tensor(c.tolist())
            for beta, alpha in [(0.0, 1.0), (1.0, 1.0), (0.5, 2.0), (1.0, 0.0)]:
                want = torch.addmm(c, a, b, beta=beta, alpha=alpha)
                got = torch.tensor(ember.addmm(ec, ea, eb, beta=beta, alpha=alpha).tolist())
                where = f"ta={ta} tb={tb} pad={pad} beta={beta} alpha={alpha}"
                torch.testing.assert_close(got, want, rtol=1e-4, atol=1e-4 * K ** 0.5,
                                           msg=lambda m, where=where: f"{where}: {m}")
    finally:
        ember.set_num_threads(old)


def test_beta_zero_ignores_nan() -> None:
    """beta 0 must not read C: NaN or inf there does not leak into the result (BLAS's rule)."""
    c = ember.full((20, 60), float("nan"))
    a, b = ember.randn(20, 30), ember.randn(30, 60)
    out = ember.addmm(c, a, b, beta=0)
    assert not out.isnan().any().item()
    torch.testing.assert_close(torch.tensor(out.tolist()), torch.tensor((a @ b).tolist()))


def test_alpha_zero_ignores_nan_operands() -> None:
    """alpha 0: the product is not computed, so NaN in the operands does not reach C (as PyTorch)."""
    a = ember.full((20, 30), float("nan"))
    b = ember.randn(30, 60)
    c = ember.randn(20, 60)
    out = ember.addmm(c, a, b, beta=1, alpha=0)
    want = torch.addmm(torch.tensor(c.tolist()), torch.tensor(a.tolist()), torch.tensor(b.tolist()), beta=1, alpha=0)
    torch.testing.assert_close(torch.tensor(out.tolist()), want, equal_nan=True)


def test_mm_out_written_in_place_and_aliasing() -> None:
    """mm(out=) writes a fitting out directly (same storage, version bumped) and stays right when
    out shares memory with an operand (then the product is made aside first)."""
    a, b = ember.randn(64, 40), ember.randn(40, 64)
    want = torch.tensor(a.tolist()) @ torch.tensor(b.tolist())
    out = ember.empty(64, 64)
    ptr, version = out.data_ptr(), out._version
    r = ember.mm(a, b, out=out)
    assert r.data_ptr() == ptr and out._version > version
    torch.testing.assert_close(torch.tensor(out.tolist()), want)
    sq = ember.randn(64, 64)
    sq_t = torch.tensor(sq.tolist())
    ember.mm(sq, sq, out=sq)  # out is both operands
    torch.testing.assert_close(torch.tensor(sq.tolist()), sq_t @ sq_t)
    base = ember.randn(2, 64, 64)
    x, y = base[0], base[1]
    xt, yt = torch.tensor(x.tolist()), torch.tensor(y.tolist())
    ember.mm(x, y, out=base[1])  # out is a view of the storage the operands live in
    torch.testing.assert_close(torch.tensor(base[1].tolist()), xt @ yt)
