"""User script: SimCLR-style contrastive learning (F.normalize, cosine-similarity matrix, NT-Xent via
cross_entropy, eye masks, masked_fill, top-k accuracy, triplet/cosine-embedding losses), torch vs ember."""

from __future__ import annotations

from typing import Any

import ember
import numpy as np
import pytest
from _user_scripts_util import assert_runs_match


def _contrastive_script(lib: Any, x_np: np.ndarray, steps: int = 10) -> dict[str, Any]:
    torch = lib
    nn = torch.nn
    F = torch.nn.functional

    class Encoder(nn.Module):
        def __init__(self, d_in: int = 20, d_feat: int = 32, d_proj: int = 16) -> None:
            super().__init__()
            self.backbone = nn.Sequential(nn.Linear(d_in, d_feat), nn.BatchNorm1d(d_feat), nn.ReLU(),
                                          nn.Linear(d_feat, d_feat), nn.Hardswish())
            self.projector = nn.Sequential(nn.Linear(d_feat, d_feat), nn.ReLU(), nn.Linear(d_feat, d_proj))

        def forward(self, x: Any) -> tuple[Any, Any]:
            h = self.backbone(x)
            return h, self.projector(h)

    def augment(x: Any, noise: Any, scale: Any) -> Any:
        return x * scale + 0.1 * noise

    def nt_xent(z1: Any, z2: Any, temperature: float = 0.5) -> tuple[Any, Any]:
        z = F.normalize(torch.cat([z1, z2], dim=0), dim=1, p=2)
        n = z1.shape[0]
        sim = z @ z.T / temperature
        self_mask = torch.eye(2 * n, dtype=torch.bool, device=z.device)
        sim = sim.masked_fill(self_mask, float("-inf"))
        targets = torch.cat([torch.arange(n, 2 * n), torch.arange(0, n)])
        return F.cross_entropy(sim, targets), sim

    def topk_acc(logits: Any, targets: Any, ks: tuple[int, ...] = (1, 3)) -> list[float]:
        maxk = max(ks)
        _, pred = logits.topk(maxk, dim=1, largest=True, sorted=True)
        pred = pred.t()
        correct = pred.eq(targets.view(1, -1).expand_as(pred))
        return [correct[:k].reshape(-1).float().sum(0, keepdim=True).mul_(100.0 / targets.size(0)).item() for k in ks]

    torch.manual_seed(21)
    model = Encoder()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, weight_decay=1e-4, dampening=0.1)
    scheduler = torch.optim.lr_scheduler.MultiStepLR(optimizer, milestones=[4, 7], gamma=0.3)
    data = torch.from_numpy(x_np)
    gen = torch.Generator().manual_seed(5)
    log: list[float] = []
    for step in range(steps):
        batch = data[(step % 3) * 12:(step % 3) * 12 + 12]
        n1 = torch.randn(batch.shape, generator=gen)
        n2 = torch.randn(batch.shape, generator=gen)
        s1 = torch.empty(batch.size(0), 1).uniform_(0.8, 1.2, generator=gen)
        s2 = torch.rand(batch.size(0), 1, generator=gen) * 0.4 + 0.8
        _, z1 = model(augment(batch, n1, s1))
        _, z2 = model(augment(batch, n2, s2))
        loss, sim = nt_xent(z1, z2)
        cos = F.cosine_similarity(z1, z2, dim=-1).mean()
        align = nn.CosineEmbeddingLoss(margin=0.2)(z1, z2, torch.ones(z1.size(0)))
        neg = z2.roll(shifts=1, dims=0)
        trip = F.triplet_margin_loss(z1, z2, neg, margin=1.0, p=2, swap=True)
        total = loss + 0.1 * align + 0.1 * trip
        optimizer.zero_grad()
        total.backward()
        optimizer.step()
        scheduler.step()
        targets = torch.cat([torch.arange(12, 24), torch.arange(0, 12)])
        log += [total.item(), loss.item(), cos.item(), *topk_acc(sim.detach(), targets)]
    model.eval()
    with torch.no_grad():
        feats, _ = model(data)
        feats = F.normalize(feats, dim=-1)
        # no self-distances: past 25 rows PyTorch takes the matmul form, whose rounding leaves ~5e-4 or
        # exactly 0 on the diagonal depending on the CPU's BLAS path (ember: 0)
        dists = torch.cdist(feats[:5], feats[5:], p=2.0)
        knn = dists.topk(3, largest=False).indices
        pdist = F.pairwise_distance(feats[:5], feats[5:10], keepdim=True)
    return {"losses": log + knn.flatten().tolist(),
            "params": {**model.state_dict(), "dists": dists, "pdist": pdist}}


def test_contrastive_matches_torch() -> None:
    torch = pytest.importorskip("torch")
    x = np.random.default_rng(21).normal(size=(36, 20)).astype(np.float32)
    assert_runs_match(_contrastive_script(ember, x), _contrastive_script(torch, x))
