"""Data-parallel training with DistributedDataParallel: the spirals MLP of train_mlp.py, one
shard of each batch per rank. The script is what a PyTorch user writes; start it with

    ember-run --nproc-per-node 2 examples/ddp_train.py          # ember's torchrun
    mpiexec -n 2 python examples/ddp_train.py                    # or any MPI launcher
    torchrun --nproc-per-node 2 examples/ddp_train.py --torch    # the same script on PyTorch

It prints the loss of every epoch on rank 0 (``--json`` prints them as one JSON list, which
the tests compare between ember and PyTorch).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--epochs", type=int, default=5)
    ap.add_argument("--batch-size", type=int, default=64, help="per rank")
    ap.add_argument("--torch", action="store_true", help="run on PyTorch instead of ember")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    if args.torch:
        import torch
    else:
        import ember as torch  # noqa: ICN001 - the point: PyTorch's API
    import importlib

    # Attribute access, not `import torch.x`: the import statement would find PyTorch itself.
    dist = importlib.import_module(torch.__name__ + ".distributed")
    nn = torch.nn
    DDP = importlib.import_module(torch.__name__ + ".nn.parallel").DistributedDataParallel
    data_mod = importlib.import_module(torch.__name__ + ".utils.data")
    DataLoader, DistributedSampler, TensorDataset = (
        data_mod.DataLoader, data_mod.DistributedSampler, data_mod.TensorDataset)

    dist.init_process_group("gloo")
    rank, world = dist.get_rank(), dist.get_world_size()
    x, y = spirals(torch)
    data = TensorDataset(x, y)
    sampler = DistributedSampler(data, shuffle=True, seed=0)
    loader = DataLoader(data, batch_size=args.batch_size, sampler=sampler)
    torch.manual_seed(0)
    model = DDP(nn.Sequential(nn.Linear(2, 64), nn.Tanh(), nn.Linear(64, 64), nn.Tanh(),
                              nn.Linear(64, 3)))
    opt = torch.optim.SGD(model.parameters(), lr=0.2, momentum=0.9)
    losses = []
    for epoch in range(args.epochs):
        sampler.set_epoch(epoch)
        total = torch.zeros(2)
        for xb, yb in loader:
            opt.zero_grad()
            loss = nn.functional.cross_entropy(model(xb), yb)
            loss.backward()
            opt.step()
            total += torch.tensor([loss.item() * len(yb), float(len(yb))])
        dist.all_reduce(total)
        losses.append(total[0].item() / total[1].item())
        if rank == 0 and not args.json:
            print(f"epoch {epoch}: loss {losses[-1]:.4f} ({world} ranks)")
    if rank == 0 and args.json:
        print(json.dumps(losses))
    dist.destroy_process_group()


def spirals(torch, n_per_class: int = 500, classes: int = 3, noise: float = 0.2):  # noqa: ANN001
    """Three interleaved spirals from a fixed seed (the same points under either library)."""
    import math

    g = torch.Generator().manual_seed(0)
    xs, ys = [], []
    for c in range(classes):
        r = torch.linspace(0.05, 1.0, n_per_class)
        theta = r * 4.0 + c * (2 * math.pi / classes) + torch.randn(n_per_class, generator=g) * noise
        xs.append(torch.stack([r * torch.sin(theta), r * torch.cos(theta)], dim=1))
        ys.append(torch.full((n_per_class,), c, dtype=torch.int64))
    return torch.cat(xs), torch.cat(ys)


if __name__ == "__main__":
    main()
