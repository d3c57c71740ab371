"""Parity inputs for ops/special.yaml's orthogonal polynomials (torch.special.chebyshev_polynomial_t,
..., legendre_polynomial_p): x in and outside [-1, 1], degrees across the recurrence / closed-form
switch, non-integer, negative and NaN degrees, numbers for either argument, float16 (PyTorch's
NotImplementedError). Their unary and other binary ops take test_parity.py's generic pointwise
cases; gradients and gradcheck come from test_grad_parity.py."""

from __future__ import annotations

from typing import Any

import parity_inputs as H

T, Case = H.T, H.Case

NAN, INF = float("nan"), float("inf")
POLYS = ("chebyshev_polynomial_t", "chebyshev_polynomial_u", "chebyshev_polynomial_v", "chebyshev_polynomial_w",
         "shifted_chebyshev_polynomial_t", "shifted_chebyshev_polynomial_u", "shifted_chebyshev_polynomial_v",
         "shifted_chebyshev_polynomial_w", "hermite_polynomial_h", "hermite_polynomial_he", "laguerre_polynomial_l",
         "legendre_polynomial_p")
# PyTorch 2.13's float64 Bessel J/Y and Airy kernels are accurate to ~1e-6 absolute only (checked
# against mpmath: e.g. airy_ai(-2.142) off by 2.2e-6, bessel_y1(5.18) by 6.5e-7); ember's are
# within ~2e-12 (test_special_bessel.py). Compare them at 100x the generic tolerance (float32 is
# unaffected in practice).
H.LOOSE_OPS.update({n: 100.0 for n in ("bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1", "airy_ai")})
# ember evaluates the I / K Bessel functions in double and rounds once; PyTorch's float32 and float16
# kernels are a few ulp off (i0(2.9) in float32 by 2e-7 relative, i0e in float16 by 2 ulp), which the float64
# tolerance of an out=float64 result and float16's 1e-3 do not absorb.
H.LOOSE_OPS.update({n: 10.0 for n in ("i0", "i0e", "i1", "i1e", "modified_bessel_i0", "modified_bessel_i1",
                                      "modified_bessel_k0", "modified_bessel_k1", "scaled_modified_bessel_k0",
                                      "scaled_modified_bessel_k1", "erfcx")})
# igamma / igammac: PyTorch's float32 kernel computes in float (a few ulp off on the generic inputs,
# up to 5e-4 elsewhere: torch_known_wrong.py "igamma-float32"), ember's in double; a float32 result
# written to an out=float64 tensor is compared at float64's tolerance. tests/test_igamma.py holds
# ember to PyTorch's float64 answer instead.
H.LOOSE_OPS.update({"igamma": 10.0, "igammac": 10.0})

X_EDGES = (NAN, INF, -INF, 0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 2.0, -3.5, 0.25)
DEGREES = (0.0, 1.0, 2.0, 3.0, 5.0, 7.0, 9.0, 12.0, 2.5, -1.0, NAN, INF)


def C(id: str, *args: Any, out: bool = False, **kwargs: Any) -> Case:
    return Case(id, args, kwargs, method=False, inplace=False, out=out)


def polynomial_cases(op: dict) -> list:
    cs = []
    for dt in ("float32", "float64"):
        # out= on the float64 case: a float32 result written to a float64 out is compared at float64's
        # tolerance, finer than the rounding differences of two float32 recurrences
        cs.append(C(f"unit-{dt}", T((12, 1), dt, "unit"), T((1, 12), dt, values=DEGREES[:9] + (4.0, 6.0, 8.0)),
                    out=dt == "float64"))
        cs.append(C(f"wide-{dt}", T((3, 4), dt, "small"), T((3, 4), dt, "small_nonneg")))
        cs.append(C(f"edges-{dt}", T((12, 1), dt, values=X_EDGES), T((1, 12), dt, values=DEGREES)))
    cs += [
        C("int64", T((3, 4), "int64", "small"), T((3, 4), "int64", "small_nonneg")),
        C("int-n", T((3, 4), "float32", "unit"), T((3, 4), "int32", "small_nonneg")),
        C("mixed-f64", T((3, 4), "float32", "unit"), T((3, 4), "float64", "small_nonneg")),
        C("scalar-n", T((3, 4), "float64", "unit"), 3),
        C("scalar-n-big", T((3, 4), "float64", "unit"), 20),
        C("scalar-x", 0.5, T((3, 4), "float64", "small_nonneg")),
        C("broadcast", T((3, 1), "float32", "unit"), T((1, 4), "float32", "small_nonneg")),
        C("t", T((3, 4), "float64", "unit", "t"), T((3, 4), "float64", "small_nonneg")),
        C("0d", T((), "float64", "unit"), T((), "float64", values=(4.0,))),
        C("empty", T((0, 3), "float32"), T((0, 3), "float32")),
        C("float16", T((3, 4), "float16", "unit"), T((3, 4), "float16", "small_nonneg")),
        C("bfloat16", T((3, 4), "bfloat16", "unit"), 2),
        C("mismatch", T((3,), "float32"), T((4,), "float32")),
    ]
    return cs


def oscillating_unary_cases(op: dict) -> list:
    """The generic unary cases of test_parity.py, with integer edge values kept to |x| <= 255: at
    int32's limits (2^31 in float32) PyTorch's float32 Bessel J/Y and Airy kernels lose the phase
    (airy_ai(-2^31) is 1.1e-4 there, -2.25e-3 in fact), so no answer there is comparable."""
    dtypes = ("bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64")
    cs = [C(dt, T((3, 4), dt), out=dt in ("float32", "int64")) for dt in dtypes]
    cs += [C(v, T(shape, "float32", "default", v)) for v, shape in
           (("t", (3, 4)), ("slice2", (3, 4)), ("permute", (2, 3, 4)), ("expand", (3, 4)), ("offset", (3, 4)))]
    cs += [C("0d", T((), "float32")), C("empty", T((0, 3), "float32"))]
    cs += [C(f"special-{dt}", T((12,), dt, "special")) for dt in ("float16", "bfloat16", "float32", "float64")]
    cs += [C(f"edges-{dt}", T((6,), dt, values=(0, 1, 2, 100, 127, 255 if dt in ("uint8", "int16", "int32") else 3)))
           for dt in ("uint8", "int8", "int16", "int32", "int64")]
    return cs


BUILDERS = {name: polynomial_cases for name in POLYS}
BUILDERS.update({name: oscillating_unary_cases for name in ("bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1",
                                                            "airy_ai")})
