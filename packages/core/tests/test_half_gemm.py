"""bfloat16 / float16 matrix products (mm, addmm, bmm, matmul, linear): float32 accumulation and one
rounding at the end, whichever kernel this CPU runs (AMX-BF16 tiles, AVX512-BF16, or float32 GEMM on
widened operands). Results are checked against a float64 product of the same half inputs with a bound
that holds for every kernel: one rounding of the result (2^-8 for bfloat16, 2^-11 for float16, of
|ref|) plus float32 summation error (K * 2^-23 of |A| @ |B|). The other kernels are run in
subprocesses with EMBER_CPU_CAPABILITY capped, so the check does not depend on the CPU running it."""
from __future__ import annotations

import itertools

import pytest

torch = pytest.importorskip("torch")

import ember  # noqa: E402
from sibling import load  # noqa: E402

run_capped = load("capped_kernels").run_capped

DTYPES = ["bfloat16", "float16"]
ULP = {"bfloat16": 2.0**-8, "float16": 2.0**-11}
# (M, K, N): tiny, odd, one AMX block's edges (16/32 rows, 32 k), k-block splits (513, 1030), column
# blocks past 512
SHAPES = [(1, 1, 1), (3, 5, 7), (17, 31, 33), (33, 63, 65), (64, 64, 64), (100, 513, 37), (40, 90, 600),
          (5, 33, 200), (70, 1030, 48), (130, 40, 530)]


def _half(shape: tuple, dt: str, seed: int) -> torch.Tensor:
    g = torch.Generator().manual_seed(seed)
    return torch.randn(*shape, generator=g).to(getattr(torch, dt))


def _em(t: torch.Tensor) -> ember.Tensor:
    """The same values (exact: half values are floats) as an ember tensor of t's dtype and strides."""
    base = t.contiguous() if t.is_contiguous() else t.t().contiguous()
    e = ember.tensor(base.float().tolist(), dtype=getattr(ember, str(t.dtype).split(".")[1]))
    return e if t.is_contiguous() else e.t()


def _operand(shape: tuple, dt: str, trans: bool, pad: int, seed: int) -> tuple[torch.Tensor, ember.Tensor]:
    """A (possibly transposed) view with rows `pad` elements longer than needed, in torch and ember."""
    r, c = shape
    store = (c, r) if trans else (r, c)
    base = _half((store[0], store[1] + pad), dt, seed)
    eb = _em(base)
    tv, ev = base[:, :store[1]], eb[:, :store[1]]
    return (tv.t(), ev.t()) if trans else (tv, ev)


def _check(got: ember.Tensor, a: torch.Tensor, b: torch.Tensor, dt: str, c: torch.Tensor | None = None,
           alpha: float = 1.0, beta: float = 0.0) -> None:
    """got == alpha * a @ b + beta * c within one half rounding plus float32 summation error."""
    assert str(got.dtype) == f"ember.{dt}" or str(got.dtype).endswith(dt)
    g = torch.tensor(got.float().tolist(), dtype=torch.float64).reshape(tuple(got.shape))
    ad, bd = a.double(), b.double()
    ref = alpha * (ad @ bd)
    if c is not None and beta != 0:
        ref = ref + beta * c.double()
    k = a.shape[-1]
    bound = ULP[dt] * ref.abs() + (k + 2) * 2.0**-23 * abs(alpha) * (ad.abs() @ bd.abs())
    if c is not None and beta != 0:
        bound = bound + 2.0**-23 * abs(beta) * c.double().abs()
    err = (g - ref).abs()
    assert bool((err <= bound + 1e-30).all()), f"max excess {(err - bound).max().item()} (max err {err.max().item()})"


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "x".join(map(str, s)))
def test_inproc_addmm_layouts(shape: tuple, dt: str) -> None:
    M, K, N = shape
    for i, (ta, tb, pad) in enumerate(itertools.product([False, True], [False, True], [0, 3])):
        a, ea = _operand((M, K), dt, ta, pad, 10 * i + 1)
        b, eb = _operand((K, N), dt, tb, pad, 10 * i + 2)
        _check(ember.mm(ea, eb), a, b, dt)
        c = _half((M, N), dt, 10 * i + 3)
        for beta, alpha in [(1.0, 1.0), (0.5, 2.0)]:
            _check(ember.addmm(_em(c), ea, eb, beta=beta, alpha=alpha), a, b, dt, c, alpha, beta)


@pytest.mark.parametrize("dt", DTYPES)
def test_inproc_bmm_matmul_linear(dt: str) -> None:
    a, b = _half((3, 37, 70), dt, 1), _half((3, 70, 45), dt, 2)
    ea, eb = _em(a.reshape(-1, 70)).reshape(3, 37, 70), _em(b.reshape(-1, 45)).reshape(3, 70, 45)
    got = ember.bmm(ea, eb)
    for i in range(3):
        _check(got[i], a[i], b[i], dt)
    got = ember.matmul(ea, eb.transpose(1, 2).contiguous().transpose(1, 2))  # strided batch operand
    for i in range(3):
        _check(got[i], a[i], b[i], dt)
    x, w, bias = _half((50, 70), dt, 3), _half((40, 70), dt, 4), _half((40,), dt, 5)
    ex, ew = _em(x), _em(w)
    ebias = ember.tensor(bias.float().tolist(), dtype=getattr(ember, dt))
    _check(ember.nn.functional.linear(ex, ew), x, w.t(), dt)
    _check(ember.nn.functional.linear(ex, ew, ebias), x, w.t(), dt, bias.expand(50, 40), 1.0, 1.0)


@pytest.mark.parametrize("dt", DTYPES)
def test_inproc_empty_and_k_zero(dt: str) -> None:
    edt = getattr(ember, dt)
    for M, K, N in [(0, 5, 3), (4, 0, 3), (4, 5, 0), (0, 0, 0)]:
        a, b = ember.randn(M, K).to(edt), ember.randn(K, N).to(edt)
        got = ember.mm(a, b)
        assert tuple(got.shape) == (M, N) and got.dtype == edt
        assert got.float().abs().sum().item() == 0
        c = ember.ones(M, N, dtype=edt)
        r = ember.addmm(c, a, b, beta=2.0)
        assert r.float().sum().item() == 2.0 * M * N
    assert tuple(ember.bmm(ember.randn(2, 3, 0).to(edt), ember.randn(2, 0, 4).to(edt)).shape) == (2, 3, 4)


@pytest.mark.parametrize("dt", DTYPES)
def test_inproc_beta_zero_ignores_nan_and_alpha_zero(dt: str) -> None:
    edt = getattr(ember, dt)
    c = ember.full((40, 60), float("nan"), dtype=edt)
    a, b = ember.randn(40, 50).to(edt), ember.randn(50, 60).to(edt)
    assert not ember.addmm(c, a, b, beta=0).isnan().any().item()
    nan_a = ember.full((40, 50), float("nan"), dtype=edt)
    ones = ember.ones(40, 60, dtype=edt)
    assert ember.addmm(ones, nan_a, b, beta=1, alpha=0).float().sum().item() == 40 * 60


@pytest.mark.parametrize("dt", DTYPES)
def test_inproc_threads(dt: str) -> None:
    """The split between threads (rows or columns of C) gives the same values as one thread."""
    a, b = _half((300, 200), dt, 7), _half((200, 260), dt, 8)
    ea, eb = _em(a), _em(b)
    old = ember.get_num_threads()
    try:
        outs = []
        for n in (1, 2):
            ember.set_num_threads(n)
            outs.append(ember.mm(ea, eb).float().tolist())
            _check(ember.mm(eb.t(), ea.t()), b.t(), a.t(), dt)  # the column split
    finally:
        ember.set_num_threads(old)
    if ember.backends.cpu.get_cpu_capability() == "AVX512":
        assert outs[0] == outs[1]  # ember's own float32 kernel: the same sums whatever the split
    else:
        # below AVX-512 each thread's block is an OpenBLAS call, whose kernels may sum a block of
        # other height in another order (seen on AMD Zen 5): at most one rounding step apart
        ta, tb = torch.tensor(outs[0]), torch.tensor(outs[1])
        torch.testing.assert_close(ta, tb, rtol=2.0**-10, atol=0)


@pytest.mark.parametrize("cap", ["avx2", "avx512", "avx512_bf16"])
def test_capped_kernels(cap: str) -> None:
    """The bfloat16 checks on the narrower kernels (a no-op cap where the CPU lacks the wider ones;
    float16 takes the float32 GEMM, whose capped kernels test_gemm_tiles covers)."""
    run_capped(__file__, cap, "inproc and bfloat16")
