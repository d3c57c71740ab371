"""User script: a small GAN (two optimizers, detach, BCELoss, BatchNorm1d) under torch and ember."""

from __future__ import annotations

from typing import Any

import ember
import numpy as np
import pytest
from _user_scripts_util import assert_runs_match


def _gan_script(lib: Any, real_np: np.ndarray, steps: int = 10) -> dict[str, Any]:
    torch = lib
    nn = torch.nn

    def weights_init(m: Any) -> None:
        classname = m.__class__.__name__
        if classname.find("Linear") != -1:
            nn.init.normal_(m.weight.data, 0.0, 0.02)
            if m.bias is not None:
                nn.init.constant_(m.bias.data, 0)
        elif classname.find("BatchNorm") != -1:
            nn.init.normal_(m.weight.data, 1.0, 0.02)
            nn.init.zeros_(m.bias)

    class Generator(nn.Module):
        def __init__(self, nz: int = 16, out: int = 32) -> None:
            super().__init__()
            self.main = nn.Sequential(
                nn.Linear(nz, 64, bias=False), nn.BatchNorm1d(64), nn.LeakyReLU(0.2, inplace=True),
                nn.Linear(64, 64), nn.BatchNorm1d(64, momentum=0.2), nn.LeakyReLU(0.2),
                nn.Linear(64, out), nn.Tanh(),
            )

        def forward(self, z: Any) -> Any:
            return self.main(z)

    class Discriminator(nn.Module):
        def __init__(self, inp: int = 32) -> None:
            super().__init__()
            self.main = nn.Sequential(nn.Linear(inp, 64), nn.LeakyReLU(0.2, inplace=True), nn.Dropout(0.0),
                                      nn.Linear(64, 1), nn.Sigmoid())

        def forward(self, x: Any) -> Any:
            return self.main(x).view(-1, 1).squeeze(1)

    torch.manual_seed(1)
    netG, netD = Generator(), Discriminator()
    netG.apply(weights_init)
    netD.apply(weights_init)
    criterion = nn.BCELoss()
    optD = torch.optim.Adam(netD.parameters(), lr=2e-4, betas=(0.5, 0.999))
    optG = torch.optim.Adam(netG.parameters(), lr=2e-4, betas=(0.5, 0.999))
    real_all = torch.tensor(real_np)
    fixed_noise = torch.randn(8, 16)
    real_label, fake_label = 1.0, 0.0
    losses = []
    for i in range(steps):
        real = real_all[i % 4 * 8:(i % 4 + 1) * 8]
        b = real.size(0)
        # (1) D: maximise log(D(x)) + log(1 - D(G(z)))
        netD.zero_grad(set_to_none=True)
        label = torch.full((b,), real_label, dtype=torch.float)
        errD_real = criterion(netD(real), label)
        errD_real.backward()
        noise = torch.randn(b, 16)
        fake = netG(noise)
        label.fill_(fake_label)
        errD_fake = criterion(netD(fake.detach()), label)
        errD_fake.backward()
        errD = errD_real + errD_fake
        optD.step()
        # (2) G: maximise log(D(G(z)))
        netG.zero_grad(set_to_none=True)
        label.fill_(real_label)
        output = netD(fake)
        errG = criterion(output, label)
        errG.backward()
        D_G_z2 = output.mean().item()
        optG.step()
        losses += [errD.item(), errG.item(), D_G_z2]
    netG.eval()
    with torch.no_grad():
        samples = netG(fixed_noise).detach().cpu()
    state = {**netG.state_dict(), **{"D." + k: v for k, v in netD.state_dict().items()}}
    return {"losses": losses, "params": {**state, "samples": samples}}


def test_gan_matches_torch() -> None:
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(1)
    real = np.tanh(rng.normal(size=(32, 32))).astype(np.float32)
    assert_runs_match(_gan_script(ember, real), _gan_script(torch, real))
