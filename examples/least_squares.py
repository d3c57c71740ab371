"""The main job (until ember-nn trains models): fit a linear model by least squares.

Generates a regression problem from a fixed seed (the embedded default data),
solves the normal equations with matmul, and checks the fit recovers the
true weights. Run with `nox -s demo`.
"""

from __future__ import annotations

import argparse
import time

import ember as torch


def make_data(n: int, d: int, noise: float) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    torch.manual_seed(0)
    x = torch.randn(n, d)
    w_true = torch.linspace(-2.0, 2.0, d)
    y = x @ w_true + noise * torch.randn(n)
    return x, y, w_true


def solve_normal_equations(x: torch.Tensor, y: torch.Tensor, iters: int = 500) -> torch.Tensor:
    """Solve (XᵀX) w = Xᵀy with Richardson iteration (only matmul and elementwise ops)."""
    xtx = x.T @ x
    xty = x.T @ y
    # 1/trace bounds the step below 2/λ_max, so the iteration converges.
    step = 1.0 / (xtx * torch.eye(xtx.shape[0])).sum().item()
    w = torch.zeros(x.shape[1])
    for _ in range(iters):
        w = w + step * (xty - xtx @ w)
    return w


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--samples", type=int, default=100_000)
    p.add_argument("--features", type=int, default=32)
    p.add_argument("--noise", type=float, default=0.1)
    args = p.parse_args()

    t0 = time.perf_counter()
    x, y, w_true = make_data(args.samples, args.features, args.noise)
    w = solve_normal_equations(x, y)
    residual = y - x @ w
    rmse = residual.square().mean().sqrt().item()
    err = (w - w_true).abs().max().item()
    dt = time.perf_counter() - t0
    print(f"least squares: {args.samples} samples x {args.features} features")
    print(f"  fitted weights (first 4): {w[:4]}")
    print(f"  true weights   (first 4): {w_true[:4]}")
    print(f"  max |w - w_true| = {err:.4f}, residual RMSE = {rmse:.4f} (noise {args.noise})")
    print(f"  done in {dt:.2f} s")
    if err > 0.05:
        raise SystemExit("fit did not recover the true weights")


if __name__ == "__main__":
    main()
