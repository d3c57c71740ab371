"""The main job: train a small MLP classifier end to end with ember.

The embedded default data is three interleaved spirals (3,000 points in 2-D, generated
from a fixed seed, so every run sees the same data). The script trains an MLP with
ember.nn, ember.optim and ember.utils.data — shuffled mini-batches, AdamW, a OneCycle
schedule, gradient clipping — then evaluates on a held-out split, saves a checkpoint
with ember.save, reloads it into a fresh model and checks the reload predicts the same.
Run with `nox -s demo` (the README's first command). Runs on PyTorch with ``--torch``,
on a GPU with ``--device cuda``; ``--steps N`` stops after N optimizer steps.
"""

from __future__ import annotations

import argparse
import math
import tempfile
import time
from pathlib import Path

from _common import add_run_args, device, framework, positive_int, write_losses

torch = framework()
nn = torch.nn
DataLoader, TensorDataset, random_split = (torch.utils.data.DataLoader, torch.utils.data.TensorDataset,
                                           torch.utils.data.random_split)


def spirals(n_per_class: int = 1000, classes: int = 3, noise: float = 0.25, seed: int = 0):
    """Points on `classes` spiral arms, with Gaussian noise (the embedded default data)."""
    g = torch.Generator().manual_seed(seed)
    xs, ys = [], []
    for c in range(classes):
        r = torch.linspace(0.05, 1.0, n_per_class)
        theta = r * 4.0 + c * (2 * math.pi / classes) + torch.randn(n_per_class, generator=g) * noise
        pts = torch.zeros(n_per_class, 2)
        pts[:, 0] = r * torch.sin(theta)
        pts[:, 1] = r * torch.cos(theta)
        xs.append(pts)
        ys.append(torch.full((n_per_class,), c, dtype=torch.int64))
    x = torch.zeros(classes * n_per_class, 2)
    y = torch.zeros(classes * n_per_class, dtype=torch.int64)
    for c in range(classes):
        x[c * n_per_class:(c + 1) * n_per_class] = xs[c]
        y[c * n_per_class:(c + 1) * n_per_class] = ys[c]
    return x, y


class MLP(nn.Module):
    def __init__(self, hidden: int = 128, classes: int = 3) -> None:
        super().__init__()
        self.net = nn.Sequential(
            nn.Linear(2, hidden), nn.GELU(),
            nn.Linear(hidden, hidden), nn.GELU(),
            nn.LayerNorm(hidden),
            nn.Linear(hidden, classes),
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.net(x)


def accuracy(model: nn.Module, loader: DataLoader, dev: torch.device) -> float:
    model.eval()
    correct = total = 0
    with torch.no_grad():
        for xb, yb in loader:
            correct += int((model(xb.to(dev)).argmax(dim=1) == yb.to(dev)).sum().item())
            total += yb.shape[0]
    model.train()
    return correct / total


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=20)
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--lr", type=float, default=3e-3)
    parser.add_argument("--min-accuracy", type=float, default=0.95,
                        help="fail (exit 1) if the test accuracy ends below this")
    parser.add_argument("--steps", type=positive_int, default=None,
                        help="stop after this many optimizer steps (a quick run; default: all the epochs)")
    parser.add_argument("--torch", action="store_true", help="run on PyTorch instead of ember")
    add_run_args(parser)
    args = parser.parse_args()
    dev = device(torch, args.device)

    torch.manual_seed(0)
    x, y = spirals()
    data = TensorDataset(x, y)
    train, test = random_split(data, [0.8, 0.2], generator=torch.Generator().manual_seed(1))
    train_loader = DataLoader(train, batch_size=args.batch_size, shuffle=True,
                              generator=torch.Generator().manual_seed(2))
    test_loader = DataLoader(test, batch_size=512)

    model = MLP().to(dev)  # initialised on the CPU (same weights on any device), then moved
    opt = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=1e-4)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=args.lr * 3, total_steps=args.epochs * len(train_loader))
    loss_fn = nn.CrossEntropyLoss()
    n_params = sum(p.numel() for p in model.parameters())
    print(f"spirals: {len(train)} train / {len(test)} test points, MLP with {n_params} parameters")

    t0 = time.perf_counter()
    losses: list[float] = []
    for epoch in range(1, args.epochs + 1):
        total = 0.0
        for xb, yb in train_loader:
            xb, yb = xb.to(dev), yb.to(dev)
            opt.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()
            sched.step()
            losses.append(loss.item())
            total += losses[-1] * yb.shape[0]
            if len(losses) == args.steps:
                break
        if len(losses) == args.steps:
            print(f"stopped after {args.steps} steps (--steps) in epoch {epoch}")
            break
        if epoch == 1 or epoch % 5 == 0 or epoch == args.epochs:
            print(f"epoch {epoch:3d}  loss {total / len(train):.4f}  test accuracy "
                  f"{accuracy(model, test_loader, dev):.3f}")
    elapsed = time.perf_counter() - t0
    write_losses(args.losses_json, losses)
    acc = accuracy(model, test_loader, dev)
    ran = f"{args.epochs} epochs" if args.steps is None else f"{len(losses)} steps"
    print(f"trained {ran} in {elapsed:.1f} s; test accuracy {acc:.3f}")

    # Save, reload into a fresh model, and check the predictions agree.
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "mlp.pt"
        torch.save(model.state_dict(), path)
        fresh = MLP().to(dev)
        fresh.load_state_dict(torch.load(path))
        fresh.eval()
        model.eval()
        with torch.no_grad():
            xd = x.to(dev)
            same = bool((fresh(xd).argmax(1) == model(xd).argmax(1)).all().item())
        print(f"checkpoint: {path.stat().st_size} bytes, reloaded model agrees: {same}")
    if acc < args.min_accuracy or not same:
        raise SystemExit(f"FAILED: accuracy {acc:.3f} < {args.min_accuracy} or reload mismatch")
    print("OK")


if __name__ == "__main__":
    main()
