"""User script: a custom autograd.Function, a custom Module with buffers and hooks, weight_norm and
spectral_norm parametrizations, and a Dataset/DataLoader pipeline (collate_fn, random_split, a
Sampler), under torch and ember."""

from __future__ import annotations

from typing import Any

import ember
import numpy as np
import pytest
from _user_scripts_util import assert_runs_match


def _custom_script(lib: Any, feats_np: np.ndarray, labels: list[int], steps: int = 10) -> dict[str, Any]:
    torch = lib
    nn = torch.nn
    F = torch.nn.functional
    data_utils = torch.utils.data

    class ClampSTE(torch.autograd.Function):
        """Clamp in forward, straight-through (masked) gradient in backward."""

        @staticmethod
        def forward(ctx: Any, x: Any, lo: float, hi: float) -> Any:
            ctx.save_for_backward(x)
            ctx.lo, ctx.hi = lo, hi
            return x.clamp(lo, hi)

        @staticmethod
        def backward(ctx: Any, grad_out: Any) -> tuple[Any, None, None]:
            (x,) = ctx.saved_tensors
            inside = (x >= ctx.lo) & (x <= ctx.hi)
            return grad_out * (inside.to(grad_out.dtype) * 0.9 + 0.1), None, None

    class ScaledSwish(torch.autograd.Function):
        @staticmethod
        def forward(x: Any, beta: Any) -> Any:
            return x * torch.sigmoid(beta * x)

        @staticmethod
        def setup_context(ctx: Any, inputs: tuple[Any, Any], output: Any) -> None:
            x, beta = inputs
            ctx.save_for_backward(x, beta)

        @staticmethod
        def backward(ctx: Any, g: Any) -> tuple[Any, Any]:
            x, beta = ctx.saved_tensors
            s = torch.sigmoid(beta * x)
            dx = s + x * beta * s * (1 - s)
            dbeta = (x * x * s * (1 - s) * g).sum().reshape(beta.shape)
            return g * dx, dbeta

    class Net(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.fc1 = nn.utils.parametrizations.weight_norm(nn.Linear(8, 16), name="weight", dim=0)
            self.fc2 = nn.utils.parametrizations.spectral_norm(nn.Linear(16, 16), n_power_iterations=2)
            self.out = nn.Linear(16, 4)
            self.beta = nn.Parameter(torch.tensor([1.5]))
            self.register_buffer("running_mean", torch.zeros(8))
            self.register_buffer("num_batches", torch.tensor(0, dtype=torch.long))

        def forward(self, x: Any) -> Any:
            if self.training:
                with torch.no_grad():
                    self.running_mean.mul_(0.9).add_(x.mean(0), alpha=0.1)
                    self.num_batches += 1
            x = x - self.running_mean
            h = ClampSTE.apply(self.fc1(x), -1.0, 1.0)
            h = ScaledSwish.apply(self.fc2(h), self.beta)
            return self.out(h)

    class PairDataset(data_utils.Dataset):
        def __init__(self, feats: Any, labels: list[int]) -> None:
            self.feats, self.labels = feats, labels

        def __len__(self) -> int:
            return len(self.labels)

        def __getitem__(self, i: int) -> dict[str, Any]:
            return {"x": self.feats[i], "y": self.labels[i], "id": i}

    class EvenFirstSampler(data_utils.Sampler):
        def __init__(self, source: Any) -> None:
            self.n = len(source)

        def __iter__(self) -> Any:
            idx = list(range(self.n))
            return iter(idx[::2] + idx[1::2])

        def __len__(self) -> int:
            return self.n

    def collate(batch: list[dict[str, Any]]) -> tuple[Any, Any, list[int]]:
        xs = torch.stack([b["x"] for b in batch])
        ys = torch.tensor([b["y"] for b in batch], dtype=torch.long)
        return xs, ys, [b["id"] for b in batch]

    torch.manual_seed(9)
    model = Net()
    seen: dict[str, Any] = {}
    grad_norms: list[float] = []

    def fwd_hook(mod: Any, inp: tuple[Any, ...], out: Any) -> None:
        seen["act"] = out.detach()

    def pre_hook(mod: Any, args: tuple[Any, ...]) -> tuple[Any, ...]:
        return (args[0] * 1.0,)

    h1 = model.out.register_forward_hook(fwd_hook)
    h2 = model.fc1.register_forward_pre_hook(pre_hook)
    h3 = model.out.weight.register_hook(lambda g: grad_norms.append(g.norm().item()))
    h4 = model.out.register_full_backward_hook(lambda m, gi, go: seen.__setitem__("go", go[0].detach()))

    full = PairDataset(torch.from_numpy(feats_np), labels)
    train_ds, val_ds = data_utils.random_split(full, [0.75, 0.25], generator=torch.Generator().manual_seed(42))
    loader = data_utils.DataLoader(train_ds, batch_size=6, sampler=EvenFirstSampler(train_ds), collate_fn=collate)
    val_loader = data_utils.DataLoader(val_ds, batch_size=4, shuffle=False, collate_fn=collate)
    optimizer = torch.optim.Adam(model.parameters(), lr=5e-3, weight_decay=1e-4)
    log: list[float] = []
    step = 0
    while step < steps:
        for xs, ys, ids in loader:
            model.train()
            out = model(xs)
            loss = F.cross_entropy(out, ys, weight=torch.tensor([1.0, 2.0, 1.0, 0.5]))
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            log += [loss.item(), float(sum(ids)), seen["act"].abs().sum().item(), seen["go"].abs().sum().item()]
            step += 1
            if step == steps:
                break
    for h in (h1, h2, h3, h4):
        h.remove()
    model.eval()
    correct = 0
    with torch.no_grad():
        for xs, ys, _ in val_loader:
            correct += (model(xs).argmax(1) == ys).sum().item()
    sd = model.state_dict()
    assert "fc1.parametrizations.weight.original0" in sd
    assert "fc2.parametrizations.weight.original" in sd
    return {"losses": log + grad_norms + [correct, len(train_ds), len(val_ds)] + list(val_ds.indices),
            "params": {**sd, "w1": model.fc1.weight, "w2": model.fc2.weight}}


def test_custom_pipeline_matches_torch() -> None:
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(9)
    feats = rng.normal(size=(40, 8)).astype(np.float32)
    labels = [int(v) for v in rng.integers(0, 4, size=40)]
    assert_runs_match(_custom_script(ember, feats, labels), _custom_script(torch, feats, labels))
