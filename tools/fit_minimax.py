"""Minimax polynomial fits for csrc/kernels/cpu/vec_*.h (Remez exchange in mpmath, which comes
with torch's sympy).

    python tools/fit_minimax.py atan float      # prints the coefficients, rounded, and their error

Each fit is t + t^3 P(t^2) for an odd function f, P of the given degree in z = t^2, minimising
the largest relative error of the result (weight t^3 / f(t)). The coefficients are rounded to
the target precision one at a time, lowest first, each remaining one refitted after a rounding
so that the rounded polynomial stays near minimax.

For the entries of PLAIN the fit is P(u) itself against g(u) (relative error), all coefficients
rounded at once from the unrounded fit, and the lowest few also printed as low parts (hi + lo in
the header: rounded, they alone would cost about an ulp). "err" is the rounded polynomial's
largest weighted error on a dense grid."""

from __future__ import annotations

import argparse
import re
import struct
from collections.abc import Callable

import mpmath as mp

mp.mp.dps = 50
Fn = Callable[[mp.mpf], mp.mpf]

# name: (f, interval of t, degree of P for float, for double)
FITS: dict[str, tuple[Fn, tuple[float, float], int, int]] = {
    "atan": (mp.atan, (0.0, 1.0), 8, 19),  # t = |x| or -1/|x|
    # t = |x| <= 1/2 or sqrt((1 - |x|) / 2); the header's float Q is from a run before the exchange
    # stopped once levelled: its last three coefficients differ in the last bits, same err 2^-27.6
    "asin": (mp.asin, (0.0, 0.5), 4, 11),
    # sin_cos512.h: sin r on |r| <= pi/4 (float)
    "sin": (mp.sin, (0.0, 0.7853981633974483), 2, 8),
}


# name: ((g, weight) at u, interval of u, degree of P for float, for double, coefficients kept as
# hi + lo); P(u) ~ g(u)
TW = Callable[[mp.mpf], tuple[mp.mpf, mp.mpf]]


def _erfinv_ratio(w: mp.mpf) -> mp.mpf:
    """erfinv(a) / a at w = -log((1 - a)(1 + a)) (Giles' variable)."""
    if w < mp.mpf("1e-30"):
        return mp.sqrt(mp.pi) / 2
    a = mp.sqrt(-mp.expm1(-w))
    return mp.erfinv(a) / a


def _erfinv_w(v: mp.mpf) -> tuple[mp.mpf, mp.mpf]:
    g = _erfinv_ratio(v + mp.mpf("3.125"))
    return g, 1 / g


def _erfinv_s(v: mp.mpf) -> tuple[mp.mpf, mp.mpf]:
    g = _erfinv_ratio((v + mp.mpf("4.25")) ** 2)
    return g, 1 / g


def _erfcx_u(u: mp.mpf) -> tuple[mp.mpf, mp.mpf]:
    """erfcx(a) at a = 3 (1 + u) / (1 - u)."""
    a = 3 * (1 + u) / (1 - u)
    g = mp.erfc(a) * mp.exp(a * a)
    return g, 1 / g


def _exp(r: mp.mpf) -> tuple[mp.mpf, mp.mpf]:
    return mp.exp(r), mp.exp(-r)


def _gelu_r(s: mp.mpf) -> tuple[mp.mpf, mp.mpf]:
    """R(s) / s, R(s) = log erfc(s / sqrt 2) + s^2 / 2 = log erfcx(s / sqrt 2); weight s: absolute
    error in R."""
    if s < mp.mpf("1e-20"):
        return -mp.sqrt(2 / mp.pi), s
    return mp.log(mp.erfc(s / mp.sqrt(2))) / s + s / 2, s


def _cos_c(z: mp.mpf) -> tuple[mp.mpf, mp.mpf]:
    """(cos t - 1 + z / 2) / z^2 at z = t^2, cos t = 1 - z / 2 + z^2 C(z); weight z^2 / cos t: relative
    error in cos."""
    if z < mp.mpf("1e-12"):
        return mp.mpf(1) / 24 - z / 720, z * z
    t = mp.sqrt(z)
    return (mp.cos(t) - 1 + z / 2) / (z * z), z * z / mp.cos(t)


PLAIN: dict[str, tuple[TW, tuple[float, float], int, int, int]] = {
    # vec_erfinv.h: erfinv(a) = a P(w - 3.125) for w < 6.25, a P(sqrt(w) - 4.25) up to w = 36.05
    # (a = 1 - 2^-53)
    "erfinv_w": (_erfinv_w, (-3.125, 3.125), 24, 24, 2),
    "erfinv_s": (_erfinv_s, (-1.75, 6.0042 - 4.25), 28, 28, 2),
    # vec_erfc.h (float erfc, evaluated in double): erfc(a) = e^{-a^2} Q(u), u = (a - 3) / (a + 3)
    # for a in [0, 10.1], and e^r on |r| <= ln2 / 2
    "erfc_q": (_erfcx_u, (-1.0, 7.1 / 13.1), 10, 10, 0),
    "exp_r": (_exp, (-0.34657359027997264, 0.34657359027997264), 6, 6, 0),
    # vec_normcdf.h (float): Phi(-s) = e^{-s^2/2 + R(s)} / 2, R(s) = s P(s) on [0, 5.7]
    "gelu_r": (_gelu_r, (0.0, 5.7), 12, 12, 0),
    # sin_cos512.h (float): cos r = 1 - z / 2 + z^2 C(z), z = r^2 <= (pi/4)^2
    "cos_c": (_cos_c, (0.0, 0.6168502750680849), 2, 2, 0),
}


# PLAIN fits whose coefficients are rounded one at a time, lowest first, the others refitted (as
# FITS): rounded all at once, gelu_r's float coefficients would lose 9 bits (its terms cancel)
SEQUENTIAL = {"gelu_r"}


def target(f: Fn, z: mp.mpf) -> mp.mpf:
    """(f(t) - t) / t^3 at t = sqrt(z), the function P approximates (series near 0)."""
    if z < mp.mpf("1e-12"):
        c = mp.taylor(f, 0, 5)
        return c[3] + c[5] * z
    t = mp.sqrt(z)
    return (f(t) - t) / (t * z)


def weight(f: Fn, z: mp.mpf) -> mp.mpf:
    t = mp.sqrt(z)
    return z / (f(t) / t) if z else mp.mpf(0)


def horner(c: list, z: mp.mpf) -> mp.mpf:
    r = mp.mpf(0)
    for ck in reversed(c):
        r = r * z + ck
    return r


def remez(tw: TW, lo: mp.mpf, hi: mp.mpf, deg: int,
          fixed: dict[int, mp.mpf], iters: int = 30) -> list:
    """Minimax P (coefficients of z^0..z^deg, those in fixed given) for the weighted error
    w (P - g), (g, w) = tw(z)."""
    free_k = [k for k in range(deg + 1) if k not in fixed]
    free = len(free_k)
    grid = [lo + (hi - lo) * (1 - mp.cos(mp.pi * k / 4000)) / 2 for k in range(4001)]
    tg = [tw(z) for z in grid]
    # Chebyshev points to start; the odd forms (lo = 0, where their weight vanishes) start from a
    # least-squares step on one point more, as the headers' fits were made
    npts = free + 2 if lo == 0 else free + 1
    ref = [lo + (hi - lo) * (1 - mp.cos(mp.pi * k / (npts - 1))) / 2 for k in range(npts)]
    if lo == 0:
        ref[0] = (hi - lo) * mp.mpf("1e-6")
    c: list = []
    for _ in range(iters):
        rows, rhs = [], []
        for i, z in enumerate(ref):
            g, w = tw(z)
            known = sum(v * z**k for k, v in fixed.items())
            rows.append([z**k for k in free_k] + [(-1) ** i / w])
            rhs.append(g - known)
        sol = mp.lu_solve(mp.matrix(rows), mp.matrix(rhs))
        c = [fixed[k] if k in fixed else sol[free_k.index(k)] for k in range(deg + 1)]
        err = [w * (horner(c, z) - g) for z, (g, w) in zip(grid, tg)]
        # new reference: the largest |err| in each run of one sign
        runs: list[int] = []
        for k, e in enumerate(err):
            if k and runs and mp.sign(e) == mp.sign(err[runs[-1]]):
                if abs(e) > abs(err[runs[-1]]):
                    runs[-1] = k
            elif e != 0:
                runs.append(k)
        while len(runs) > free + 1:  # drop the smallest end run
            runs.pop(0 if abs(err[runs[0]]) < abs(err[runs[-1]]) else -1)
        if len(runs) < free + 1:
            break
        ref = [grid[k] for k in runs]
        if max(abs(e) for e in err) <= abs(sol[free]) * (1 + mp.mpf("1e-3")):
            break  # levelled
    return c


def fit(name: str, precision: str, deg: int | None = None) -> tuple[list[float], list[float], float]:
    """Rounded coefficients, the low parts of PLAIN's lowest ones, and the largest weighted error."""
    def rnd(v: mp.mpf) -> float:  # to the nearest double, then (float) to the nearest float
        return float(v) if precision == "double" else struct.unpack("f", struct.pack("f", float(v)))[0]

    if name in PLAIN:
        g_w, (lo_, hi_), dfloat, ddouble, split = PLAIN[name]
        lo, hi = mp.mpf(lo_), mp.mpf(hi_)
        deg = deg if deg is not None else dfloat if precision == "float" else ddouble
        cache: dict = {}
        def tw(z: mp.mpf) -> tuple[mp.mpf, mp.mpf]:
            if z not in cache:
                cache[z] = g_w(z)
            return cache[z]
        if name in SEQUENTIAL:
            fixed: dict[int, mp.mpf] = {}
            for k in range(deg + 1):
                fixed[k] = mp.mpf(rnd(remez(tw, lo, hi, deg, fixed)[k]))
            exact = [fixed[k] for k in range(deg + 1)]
        else:
            exact = remez(tw, lo, hi, deg, {})
        coeffs = [mp.mpf(rnd(v)) for v in exact]
        los = [rnd(exact[k] - coeffs[k]) for k in range(split)]
        used = [c + los[k] if k < split else c for k, c in enumerate(coeffs)]
    else:
        f, (tlo, thi), dfloat, ddouble = FITS[name]
        lo, hi = mp.mpf(tlo) ** 2, mp.mpf(thi) ** 2
        deg = deg if deg is not None else dfloat if precision == "float" else ddouble
        def tw(z: mp.mpf) -> tuple[mp.mpf, mp.mpf]:
            return target(f, z), weight(f, z)
        fixed = {}
        for k in range(deg + 1):  # round the lowest free coefficient, refit the others
            fixed[k] = mp.mpf(rnd(remez(tw, lo, hi, deg, fixed)[k]))
        coeffs = used = [fixed[k] for k in range(deg + 1)]
        los = []
    grid = [lo + (hi - lo) * k / 20000 for k in range(1, 20001)]
    err = max(abs(w * (horner(used, z) - g)) for z in grid for g, w in [tw(z)])
    return [float(v) for v in coeffs], los, float(err)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("name", choices=sorted(FITS) + sorted(PLAIN))
    p.add_argument("precision", choices=["float", "double"])
    p.add_argument("--degree", type=int, help="of P (default: the one the header uses)")
    a = p.parse_args()
    coeffs, los, err = fit(a.name, a.precision, a.degree)
    suffix = "f" if a.precision == "float" else ""
    def hexs(vs: list[float]) -> str:
        return ", ".join(re.sub(r"\.?0*p", "p", float.hex(v)) + suffix for v in vs)
    print(hexs(coeffs))
    if los:
        print("low parts:", hexs(los))
    print(f"err 2^{float(mp.log(err, 2)):.1f}")


if __name__ == "__main__":
    main()
