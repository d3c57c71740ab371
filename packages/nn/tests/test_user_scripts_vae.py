"""User script: a VAE on random MNIST-shaped data, run under torch and ember and compared step by step."""

from __future__ import annotations

from typing import Any

import ember
import numpy as np
import pytest
from _user_scripts_util import assert_runs_match


def _vae_script(lib: Any, images: np.ndarray, steps: int = 12) -> dict[str, Any]:
    torch = lib
    nn = torch.nn
    F = torch.nn.functional

    class VAE(nn.Module):
        def __init__(self, in_dim: int = 784, hidden: int = 64, latent: int = 8) -> None:
            super().__init__()
            self.enc = nn.Sequential(nn.Flatten(), nn.Linear(in_dim, hidden), nn.ReLU(inplace=True))
            self.fc_mu = nn.Linear(hidden, latent)
            self.fc_logvar = nn.Linear(hidden, latent)
            self.dec = nn.Sequential(nn.Linear(latent, hidden), nn.ReLU(), nn.Linear(hidden, in_dim))
            self.latent = latent

        def reparameterize(self, mu: Any, logvar: Any) -> Any:
            std = torch.exp(0.5 * logvar)
            eps = torch.randn_like(std)
            return mu + eps * std

        def forward(self, x: Any) -> tuple[Any, Any, Any]:
            h = self.enc(x)
            mu, logvar = self.fc_mu(h), self.fc_logvar(h)
            z = self.reparameterize(mu, logvar)
            return self.dec(z).view(-1, 1, 28, 28), mu, logvar

    def loss_function(recon_logits: Any, x: Any, mu: Any, logvar: Any) -> Any:
        bce = F.binary_cross_entropy_with_logits(recon_logits, x, reduction="sum")
        kld = -0.5 * torch.sum(1 + logvar - mu.pow(2) - logvar.exp())
        return (bce + kld) / x.size(0)

    torch.manual_seed(0)
    model = VAE()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3, betas=(0.9, 0.999), eps=1e-8)
    data = torch.from_numpy(images)
    losses = []
    model.train()
    for step in range(steps):
        batch = data[(step * 16) % 64:(step * 16) % 64 + 16]
        optimizer.zero_grad()
        recon, mu, logvar = model(batch)
        loss = loss_function(recon, batch, mu, logvar)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())

    model.eval()
    with torch.no_grad():
        z = torch.randn(4, model.latent)
        samples = torch.sigmoid(model.dec(z)).reshape(4, 1, 28, 28)
        assert not samples.requires_grad
        recon, mu, _ = model(data[:4])
        mse = F.mse_loss(torch.sigmoid(recon), data[:4]).item()
    return {"losses": losses + [mse], "params": {**dict(model.named_parameters()), "samples": samples, "mu": mu}}


def test_vae_matches_torch() -> None:
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(0)
    images = (rng.random((64, 1, 28, 28)) > 0.7).astype(np.float32)
    assert_runs_match(_vae_script(ember, images), _vae_script(torch, images))
