"""The LAPACK-backed linalg ops on a GPU (issue 24; cuda_support.yaml's `host` entries): the
matrices go to the host, LAPACK runs there and the results come back to the device (as PyTorch's
CUDA linalg.eig does). Each op's results (pivots and info too) are on the input's device, with
the CPU's values, errors and gradients; meta tensors are refused. Run by the GPU script
(tools/gpu_check.sh) with a CUDA build; skipped elsewhere."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import ember
import pytest

pytestmark = pytest.mark.skipif(not ember.cuda.is_available(), reason="needs a GPU and a CUDA build of ember")

LA = ember.linalg


def randn(*shape: int, seed: int = 0, dtype: ember.dtype = ember.float64) -> ember.Tensor:
    x = ember.randn(*shape, generator=ember.Generator().manual_seed(seed), dtype=ember.float64)
    return x.to(dtype)


def spd(n: int, batch: tuple[int, ...] = (), dtype: ember.dtype = ember.float64) -> ember.Tensor:
    a = randn(*batch, n, n, seed=3)
    return (a @ a.mT + n * ember.eye(n, dtype=ember.float64)).to(dtype)


def on_gpu(r: Any) -> Any:
    """r's tensors checked to be on the GPU, and moved to the CPU."""
    if isinstance(r, ember.Tensor):
        assert r.device.type == "cuda", r.device
        return r.cpu()
    return type(r)(*[on_gpu(x) for x in r]) if hasattr(r, "_fields") else type(r)(on_gpu(x) for x in r)


def same(g: Any, c: Any, tol: float) -> None:
    if isinstance(c, ember.Tensor):
        assert g.dtype == c.dtype and g.shape == c.shape, (g.dtype, c.dtype, g.shape, c.shape)
        if c.dtype.is_floating_point or c.dtype.is_complex:
            ember.testing.assert_close(g, c, rtol=tol, atol=tol)
        else:
            assert bool((g == c).all()), (g, c)
        return
    for x, y in zip(g, c, strict=True):
        same(x, y, tol)


# name -> (call, argument makers); results compared as they are (no sign choices: eigenvectors and
# singular vectors are checked through what they reconstruct)
CASES: dict[str, tuple[Callable[..., Any], Callable[[ember.dtype], tuple]]] = {
    "inv": (LA.inv, lambda t: (randn(2, 4, 4, dtype=t),)),
    "inv_ex": (LA.inv_ex, lambda t: (randn(4, 4, dtype=t),)),
    "det": (LA.det, lambda t: (randn(3, 5, 5, dtype=t),)),
    "slogdet": (LA.slogdet, lambda t: (randn(5, 5, dtype=t),)),
    "solve": (LA.solve, lambda t: (randn(2, 4, 4, dtype=t), randn(2, 4, 3, seed=1, dtype=t))),
    "solve-vector": (LA.solve, lambda t: (randn(4, 4, dtype=t), randn(4, seed=1, dtype=t))),
    "cholesky": (LA.cholesky, lambda t: (spd(4, (2,), t),)),
    "eigvalsh": (LA.eigvalsh, lambda t: (spd(5, dtype=t),)),
    "eigvals": (LA.eigvals, lambda t: (randn(5, 5, dtype=t),)),
    "svdvals": (LA.svdvals, lambda t: (randn(2, 6, 4, dtype=t),)),
    "lu_factor": (LA.lu_factor, lambda t: (randn(5, 5, dtype=t),)),
    "lu": (LA.lu, lambda t: (randn(4, 6, dtype=t),)),
    "lu_solve": (lambda a, b: LA.lu_solve(*LA.lu_factor(a), b), lambda t: (randn(4, 4, dtype=t), randn(4, 2, dtype=t))),
    "ldl_solve": (lambda a, b: LA.ldl_solve(*LA.ldl_factor(a), b), lambda t: (spd(4, dtype=t), randn(4, 2, dtype=t))),
    "solve_triangular": (lambda a, b: LA.solve_triangular(a.triu() + 4 * ember.eye(4, dtype=a.dtype, device=a.device),
                                                          b, upper=True), lambda t: (randn(4, 4, dtype=t),
                                                                                     randn(4, 3, dtype=t))),
    "householder_product": (lambda a: LA.householder_product(*ember.geqrf(a)), lambda t: (randn(5, 3, dtype=t),)),
    "pinv": (LA.pinv, lambda t: (randn(5, 3, dtype=t),)),
    "matrix_rank": (LA.matrix_rank, lambda t: (randn(5, 3, dtype=t),)),
    "cond": (LA.cond, lambda t: (randn(4, 4, dtype=t),)),
    "lstsq": (lambda a, b: LA.lstsq(a, b).solution, lambda t: (randn(6, 3, dtype=t), randn(6, 2, dtype=t))),
}
DTYPES = [ember.float32, ember.float64, ember.complex64, ember.complex128]


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("name", list(CASES))
def test_values_on_the_device(name: str, dtype: ember.dtype) -> None:
    call, make = CASES[name]
    args = make(dtype)
    want = call(*args)
    got = on_gpu(call(*[a.cuda() for a in args]))
    same(got, want, 1e-4 if dtype in (ember.float32, ember.complex64) else 1e-10)


@pytest.mark.parametrize("dtype", [ember.float64, ember.complex128], ids=str)
def test_decompositions_reconstruct(dtype: ember.dtype) -> None:
    a = randn(2, 5, 4, dtype=dtype).cuda()
    U, S, Vh = LA.svd(a, full_matrices=False)
    assert U.device.type == S.device.type == Vh.device.type == "cuda"
    ember.testing.assert_close((U * S.to(dtype).unsqueeze(-2)) @ Vh, a)
    Q, R = LA.qr(a)
    assert Q.device.type == "cuda"
    ember.testing.assert_close(Q @ R, a)
    h = spd(4, dtype=dtype).cuda()
    w, V = LA.eigh(h)
    ember.testing.assert_close((V * w.to(dtype).unsqueeze(-2)) @ V.mH, h)
    L, W = LA.eig(randn(4, 4, dtype=dtype).cuda())
    assert L.device.type == W.device.type == "cuda" and L.is_complex()
    LD, piv = LA.ldl_factor(h, hermitian=True)
    assert piv.device.type == "cuda" and piv.dtype == ember.int32
    ember.testing.assert_close(LA.ldl_solve(LD, piv, h, hermitian=True), ember.eye(4, dtype=dtype, device="cuda"))


def test_gradients_match_the_cpu() -> None:
    fns: list[Callable[[ember.Tensor], ember.Tensor]] = [
        lambda a: LA.inv(a).sum(), lambda a: LA.det(a).sum(), lambda a: LA.slogdet(a).logabsdet.sum(),
        lambda a: LA.solve(a, a[..., :1]).sum(), lambda a: LA.cholesky(a @ a.mT + 4 * ember.eye(4, device=a.device,
                                                                                                 dtype=a.dtype)).sum(),
        lambda a: LA.eigvalsh(a + a.mT).sum(), lambda a: LA.svdvals(a).sum(),
        lambda a: LA.pinv(a).pow(2).sum(),
    ]
    for f in fns:
        a = randn(2, 4, 4, seed=5)
        ac, ag = a.clone().requires_grad_(), a.cuda().requires_grad_()
        f(ac).backward()
        f(ag).backward()
        assert ag.grad.device.type == "cuda"
        ember.testing.assert_close(ag.grad.cpu(), ac.grad)


def test_errors_match_the_cpu() -> None:
    singular = ember.zeros(2, 3, 3, dtype=ember.float64)
    singular[0] = ember.eye(3)
    for call in (LA.inv, LA.cholesky, lambda a: LA.solve(a, a)):
        with pytest.raises(ember.linalg.LinAlgError) as cpu:
            call(singular)
        with pytest.raises(ember.linalg.LinAlgError) as gpu:
            call(singular.cuda())
        assert str(gpu.value) == str(cpu.value)
    inv, info = LA.inv_ex(singular.cuda())
    assert info.device.type == "cuda" and info.cpu().tolist() == LA.inv_ex(singular).info.tolist() == [0, 1]
    with pytest.raises(RuntimeError, match="Expected all tensors to be on the same device"):
        LA.solve(ember.eye(2), ember.ones(2, device="cuda"))
    with pytest.raises(NotImplementedError, match="aten::linalg_inv: attempted to run this operator with Meta"):
        LA.inv(ember.empty(3, 3, device="meta"))
