"""A small CNN on embedded synthetic images (``python examples/train_cnn.py [--torch]``).

The data: 16x16 grey images of four shapes (horizontal bar, vertical bar, square
outline, cross) at random positions and sizes with noise, drawn from a fixed seed.
Two conv blocks (Conv2d + BatchNorm2d + ReLU + MaxPool2d) and two Linear layers,
trained with Adam; prints progress and the held-out accuracy. Runs on ember by default,
on PyTorch with ``--torch``, on a GPU with ``--device cuda``; ``--steps N`` stops after N
optimizer steps.
"""

from __future__ import annotations

import argparse

from _common import Progress, add_run_args, device, framework, positive_int, write_losses

torch = framework()
nn = torch.nn
CLASSES = ("hbar", "vbar", "square", "cross")


def shapes(n: int, seed: int = 0) -> tuple[torch.Tensor, torch.Tensor]:
    """n images (n, 1, 16, 16) and their labels; shape, place and size drawn from `seed`."""
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(n, 1, 16, 16, generator=g) * 0.3
    y = torch.randint(0, len(CLASSES), (n,), generator=g)
    geo = torch.randint(0, 1 << 30, (n, 3), generator=g).tolist()
    for i, (label, (a, b, c)) in enumerate(zip(y.tolist(), geo)):
        size = 5 + a % 6                      # 5..10 pixels
        r0, c0 = b % (16 - size), c % (16 - size)
        mid = size // 2
        if label == 0:
            x[i, 0, r0 + mid, c0:c0 + size] += 2.0
        elif label == 1:
            x[i, 0, r0:r0 + size, c0 + mid] += 2.0
        elif label == 2:
            x[i, 0, r0, c0:c0 + size] += 2.0
            x[i, 0, r0 + size - 1, c0:c0 + size] += 2.0
            x[i, 0, r0:r0 + size, c0] += 2.0
            x[i, 0, r0:r0 + size, c0 + size - 1] += 2.0
        else:
            x[i, 0, r0 + mid, c0:c0 + size] += 2.0
            x[i, 0, r0:r0 + size, c0 + mid] += 2.0
    return x, y


class SmallCNN(nn.Module):
    def __init__(self, classes: int = len(CLASSES)) -> None:
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(16, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(), nn.MaxPool2d(2),
        )
        self.classifier = nn.Sequential(nn.Flatten(), nn.Linear(32 * 4 * 4, 64), nn.ReLU(), nn.Linear(64, classes))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.classifier(self.features(x))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--epochs", type=int, default=4)
    ap.add_argument("--torch", action="store_true", help="run on PyTorch instead of ember")
    ap.add_argument("--target-acc", type=float, default=0.9)
    ap.add_argument("--steps", type=positive_int, default=None,
                    help="stop after this many optimizer steps (a quick run; default: all the epochs)")
    add_run_args(ap)
    args = ap.parse_args()
    dev = device(torch, args.device)
    torch.manual_seed(0)
    x, y = shapes(2400)
    x_train, y_train, x_test, y_test = x[:2000], y[:2000], x[2000:], y[2000:]
    loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(x_train, y_train), batch_size=64,
                                         shuffle=True, generator=torch.Generator().manual_seed(0))
    model = SmallCNN().to(dev)  # initialised on the CPU (same weights on any device), then moved
    opt = torch.optim.Adam(model.parameters(), lr=2e-3)
    loss_fn = nn.CrossEntropyLoss()
    total = args.epochs * len(loader) if args.steps is None else min(args.steps, args.epochs * len(loader))
    progress = Progress(total, every=len(loader))
    losses: list[float] = []
    for _ in range(args.epochs):
        model.train()
        for xb, yb in loader:
            loss = loss_fn(model(xb.to(dev)), yb.to(dev))
            opt.zero_grad()
            loss.backward()
            opt.step()
            losses.append(loss.item())
            progress(len(losses), losses[-1])
            if len(losses) == total:
                break
        if len(losses) == total:
            break
    write_losses(args.losses_json, losses)
    model.eval()
    with torch.no_grad():
        acc = (model(x_test.to(dev)).argmax(1) == y_test.to(dev)).float().mean().item()
    print(f"test accuracy {acc:.3f} (target {args.target_acc})")
    if acc < args.target_acc:
        raise SystemExit("the CNN did not reach the target accuracy")


if __name__ == "__main__":
    main()
