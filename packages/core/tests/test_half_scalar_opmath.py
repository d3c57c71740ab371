"""A Python number (or 0-d tensor of another dtype) meeting a float16/bfloat16 tensor in mul, div,
floor_divide and lerp's weight enters the kernel unrounded, in float32 op-math, as in PyTorch:
x * 0.1 rounds once, not after 0.1 became 0.0999755859375.  Results must equal PyTorch's bit for bit."""

from __future__ import annotations

import ember
import numpy as np
import pytest

torch = pytest.importorskip("torch")

VALUES = (np.random.default_rng(0).standard_normal(512) * 10).astype(np.float32).tolist() + [3.0, 1.7, 1e-3, 200.0]
SCALARS = [0.1, 0.3, 1.7, 3.3, 3, -2.5e-3]

CASES = {
    "mul": lambda m, x, s: x * s,
    "rmul": lambda m, x, s: s * x,
    "mul_fn": lambda m, x, s: m.mul(x, s),
    "mul_": lambda m, x, s: x.clone().mul_(s),
    "mul_0d_float32": lambda m, x, s: x * m.tensor(float(s)),
    "mul_out_float32": lambda m, x, s: m.mul(x, s, out=m.empty(x.shape)),
    "div": lambda m, x, s: x / s,
    "rdiv": lambda m, x, s: s / x,
    "div_": lambda m, x, s: x.clone().div_(s),
    "div_0d_float64": lambda m, x, s: x / m.tensor(float(s), dtype=m.float64),
    "div_trunc": lambda m, x, s: m.div(x, s, rounding_mode="trunc"),
    "div_floor": lambda m, x, s: m.div(x, s, rounding_mode="floor"),
    "floordiv": lambda m, x, s: x // s,
    "lerp": lambda m, x, s: m.lerp(x, x * 2, s),
    "lerp_": lambda m, x, s: x.clone().lerp_(x * 2, s),
    # these round the number to the tensor's dtype first, in PyTorch too
    "add": lambda m, x, s: x + s,
    "sub": lambda m, x, s: x - s,
    "rem": lambda m, x, s: x % s,
}


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("case", sorted(CASES))
def test_number_in_half_op_matches_torch_bitwise(dtype: str, case: str) -> None:
    f = CASES[case]
    for s in SCALARS:
        want = f(torch, torch.tensor(VALUES, dtype=getattr(torch, dtype)), s)
        got = f(ember, ember.tensor(VALUES, dtype=getattr(ember, dtype)), s)
        assert str(got.dtype) == str(want.dtype)
        np.testing.assert_array_equal(np.array(got.float().tolist()), np.array(want.float().tolist()),
                                      err_msg=f"{case}({dtype}, {s})")


def test_scalar_mul_of_half_rounds_once() -> None:
    # 3 * 0.1 = 0.3 -> float16 0.300048828125; rounding 0.1 first gives 0.2998046875
    assert (ember.tensor([3.0], dtype=ember.float16) * 0.1).item() == 0.300048828125
