"""add / sub with alpha on float16 / bfloat16 round as aten's CPU kernels do: alpha (and a number
operand) rounded to the dtype, then one rounding of a + alpha * b. Optimizers step half parameters
with add_(g, alpha=-lr), so a bf16 training run follows torch bit for bit (on whole vectors: aten's
scalar tail rounds alpha * b first)."""

from __future__ import annotations

from typing import Any

import ember
import numpy as np
import pytest

torch = pytest.importorskip("torch")

# a multiple of every vector width aten's kernels use (16 or 32 halves): its scalar tail loop
# rounds twice (alpha * b, then the sum), which ember does not follow
A = np.random.default_rng(0).standard_normal(1024).astype("float32")
B = np.random.default_rng(1).standard_normal(1024).astype("float32")


def _run(L: Any, dtype: str, op: str, other: str, alpha: float, inplace: bool) -> np.ndarray:
    a = L.from_numpy(A.copy()).to(getattr(L, dtype))
    b = L.from_numpy(B.copy()).to(getattr(L, dtype)) if other == "tensor" else 0.3333
    r = getattr(a, op + "_")(b, alpha=alpha) if inplace else getattr(L, op)(a, b, alpha=alpha)
    return r.float().numpy()


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("op", ["add", "sub"])
@pytest.mark.parametrize("other", ["tensor", "number"])
@pytest.mark.parametrize("alpha", [0.0123, 0.7777, -1e-3])
@pytest.mark.parametrize("inplace", [False, True])
def test_alpha_rounds_as_aten(dtype: str, op: str, other: str, alpha: float, inplace: bool) -> None:
    np.testing.assert_array_equal(_run(ember, dtype, op, other, alpha, inplace),
                                  _run(torch, dtype, op, other, alpha, inplace))
