"""Coefficient tables of csrc/kernels/cpu/pointwise/gelu_table.h: Phi(x) (gelu's forward factor)
and Phi(x) + x phi(x) (its derivative) as 32 polynomials of degree 7, one per interval.

    python tools/fit_gelu_table.py            # prints both tables as C++ arrays, and each
                                              # interval's largest relative error to stderr

Interval j (-16 <= j <= 15) holds the x with round(x K) = j, K = 8/3 rounded to float: x in
[(j - 1/2) / K, (j + 1/2) / K], so the 32 cover [-6.1875, 5.8125). The polynomial is in
u = x K - j, |u| <= 1/2 (fitted a little beyond, for roundings at the edges), and sits at table
index j mod 32 (the low five bits of the kernel's rounded x K). Each fit minimises the weighted
least-squares error on Chebyshev nodes, relative to the function (absolute, at the scale 1/16,
in the three intervals around the derivative's zero at x = -0.7518); the coefficients are rounded
to float one at a time, lowest first, the higher ones refitted after each rounding. Forward
intervals where Phi is within 2^-25 of 1 throughout are the constant 1, so gelu(x) = x there."""

from __future__ import annotations

import struct
import sys
from collections.abc import Callable

import mpmath as mp

mp.mp.dps = 30
DEGREE = 7
NODES = 120
EDGE = mp.mpf("0.002")  # the fit runs over |u| <= 1/2 + EDGE


def to_float(v: mp.mpf) -> mp.mpf:
    return mp.mpf(struct.unpack("f", struct.pack("f", float(v)))[0])


K = to_float(mp.mpf(8) / 3)


def phi_cdf(x: mp.mpf) -> mp.mpf:
    return mp.ncdf(x)


def derivative(x: mp.mpf) -> mp.mpf:
    return mp.ncdf(x) + x * mp.npdf(x)


def horner(c: list, u: mp.mpf) -> mp.mpf:
    r = mp.mpf(0)
    for ck in reversed(c):
        r = r * u + ck
    return r


def fit_interval(f: Callable[[mp.mpf], mp.mpf], j: int, floor: mp.mpf) -> tuple[list[mp.mpf], mp.mpf]:
    """Rounded coefficients of u^0..u^DEGREE on interval j and their largest weighted error."""
    lo, hi = -mp.mpf(0.5) - EDGE, mp.mpf(0.5) + EDGE
    us = [(lo + hi) / 2 + (hi - lo) / 2 * mp.cos(mp.pi * (i + mp.mpf(0.5)) / NODES) for i in range(NODES)]
    gs = [f((u + j) / K) for u in us]
    ws = [1 / max(abs(g), floor) for g in gs]
    coeffs: list[mp.mpf] = []
    for k in range(DEGREE + 1):
        a = mp.matrix([[w * u**p for p in range(k, DEGREE + 1)] for u, w in zip(us, ws)])
        b = mp.matrix([w * (g - horner(coeffs, u)) for u, g, w in zip(us, gs, ws)])
        coeffs.append(to_float(mp.qr_solve(a, b)[0][0]))
    grid = [lo + (hi - lo) * k / 3000 for k in range(3001)]
    err = max(abs(horner(coeffs, u) - g) / max(abs(g), floor) for u in grid for g in [f((u + j) / K)])
    return coeffs, err


def table(name: str, forward: bool) -> list[str]:
    rows = [[0.0] * 32 for _ in range(DEGREE + 1)]
    for j in range(-16, 16):
        lo = (j - mp.mpf(0.5) - EDGE) / K
        if forward and 1 - mp.ncdf(lo) < mp.mpf(2) ** -25:
            coeffs, err = [mp.mpf(1)] + [mp.mpf(0)] * DEGREE, mp.mpf(0)
        else:
            floor = mp.mpf(1) / 16 if not forward and -3 <= j <= -1 else mp.mpf(0)
            coeffs, err = fit_interval(phi_cdf if forward else derivative, j, floor)
        for k, c in enumerate(coeffs):
            rows[k][j % 32] = float(c)
        print(f"{name} j={j}: err 2^{float(mp.log(err, 2)) if err else -99:.1f}", file=sys.stderr)
    out = [f"alignas(64) constexpr float {name}[{DEGREE + 1}][32] = {{"]
    for r in rows:
        out.append("    {" + ", ".join(float.hex(v).replace("0000000p", "p") + "f" for v in r) + "},")
    return out + ["};"]


def main() -> None:
    print("\n".join(table("kGeluPhi", True) + table("kGeluPhiPrime", False)))


if __name__ == "__main__":
    main()
