"""Library-style code: a diffusers-like tiny UNet (GroupNorm, SiLU, sinusoidal timestep embedding,
nearest upsampling, skip connections, a checkpointed mid block) trained on the DDPM objective with gradient accumulation,
foreach clipping and an EMA of the weights, then sampled; under torch and ember alike."""

from __future__ import annotations

import copy
import math
from typing import Any

import ember
import pytest
from _user_scripts_util import assert_runs_match


def _unet_script(lib: Any, ema_style: str, autocast: bool) -> dict[str, Any]:
    torch = lib
    nn = torch.nn
    F = torch.nn.functional

    def timestep_embedding(timesteps: Any, dim: int, max_period: int = 10000) -> Any:
        half = dim // 2
        exponent = -math.log(max_period) * torch.arange(start=0, end=half, dtype=torch.float32) / half
        freqs = torch.exp(exponent).to(device=timesteps.device)
        args = timesteps[:, None].float() * freqs[None]
        emb = torch.cat([torch.cos(args), torch.sin(args)], dim=-1)
        if dim % 2:
            emb = torch.cat([emb, torch.zeros_like(emb[:, :1])], dim=-1)
        return emb

    class ResBlock(nn.Module):
        def __init__(self, cin: int, cout: int, temb: int) -> None:
            super().__init__()
            self.norm1 = nn.GroupNorm(num_groups=4, num_channels=cin, eps=1e-6, affine=True)
            self.conv1 = nn.Conv2d(cin, cout, 3, padding=1)
            self.time_emb_proj = nn.Linear(temb, cout)
            self.norm2 = nn.GroupNorm(4, cout, eps=1e-6)
            self.conv2 = nn.Conv2d(cout, cout, 3, padding=1)
            self.nonlinearity = nn.SiLU()
            self.conv_shortcut = nn.Conv2d(cin, cout, 1) if cin != cout else None

        def forward(self, x: Any, temb: Any) -> Any:
            h = self.conv1(self.nonlinearity(self.norm1(x)))
            h = h + self.time_emb_proj(self.nonlinearity(temb))[:, :, None, None]
            h = self.conv2(F.silu(self.norm2(h)))
            if self.conv_shortcut is not None:
                x = self.conv_shortcut(x)
            return (x + h) / 1.0

    class UNet(nn.Module):
        def __init__(self, ch: int = 8) -> None:
            super().__init__()
            self.ch = ch
            self.time_mlp = nn.Sequential(nn.Linear(ch, ch * 4), nn.SiLU(), nn.Linear(ch * 4, ch * 4))
            self.conv_in = nn.Conv2d(1, ch, 3, padding=1)
            self.down1 = ResBlock(ch, ch, ch * 4)
            self.downsample = nn.Conv2d(ch, ch, 3, stride=2, padding=1)
            self.mid = ResBlock(ch, ch * 2, ch * 4)
            self.up_conv = nn.Conv2d(ch * 2, ch * 2, 3, padding=1)
            self.up1 = ResBlock(ch * 3, ch, ch * 4)
            self.norm_out = nn.GroupNorm(4, ch)
            self.conv_out = nn.Conv2d(ch, 1, 3, padding=1)
            nn.init.zeros_(self.conv_out.weight)  # diffusers' zero-init of the output conv
            nn.init.zeros_(self.conv_out.bias)

        def forward(self, x: Any, t: Any) -> Any:
            temb = self.time_mlp(timestep_embedding(t, self.ch))
            h0 = self.down1(self.conv_in(x), temb)
            if self.training and torch.is_grad_enabled():  # gradient checkpointing, as diffusers' blocks do
                h = torch.utils.checkpoint.checkpoint(self.mid, self.downsample(h0), temb, use_reentrant=False)
            else:
                h = self.mid(self.downsample(h0), temb)
            h = self.up_conv(F.interpolate(h, scale_factor=2.0, mode="nearest"))
            h = self.up1(torch.cat([h, h0], dim=1), temb)
            return self.conv_out(F.silu(self.norm_out(h)))

    T = 20
    betas = torch.linspace(1e-4, 0.2, T, dtype=torch.float64)
    alphas = 1.0 - betas
    alphas_cumprod = torch.cumprod(alphas, dim=0)
    alphas_cumprod_prev = F.pad(alphas_cumprod[:-1], (1, 0), value=1.0)
    sqrt_ac = torch.sqrt(alphas_cumprod).float()
    sqrt_1m_ac = torch.sqrt(1.0 - alphas_cumprod).float()
    posterior_var = (betas * (1.0 - alphas_cumprod_prev) / (1.0 - alphas_cumprod)).float()

    def extract(a: Any, t: Any, shape: Any) -> Any:
        out = a.gather(-1, t)
        return out.reshape(t.shape[0], *((1,) * (len(shape) - 1)))

    torch.manual_seed(0)
    model = UNet()
    ema_model = copy.deepcopy(model)
    ema_model.requires_grad_(False)
    ema_model.eval()
    assert all(not p.requires_grad for p in ema_model.parameters())
    opt = torch.optim.AdamW(filter(lambda p: p.requires_grad, model.parameters()), lr=2e-3, weight_decay=1e-2)
    data = torch.rand(8, 1, 8, 8) * 2 - 1
    accum = 2
    losses: list[float] = []

    @torch.no_grad()
    def ema_update(decay: float) -> None:
        ema_p, p = list(ema_model.parameters()), list(model.parameters())
        if ema_style == "foreach":
            torch._foreach_lerp_(ema_p, p, 1.0 - decay)
        elif ema_style == "lerp":
            for e, q in zip(ema_p, p):
                e.lerp_(q, 1.0 - decay)
        else:
            for e, q in zip(ema_p, p):
                e.mul_(decay).add_(q.detach(), alpha=1 - decay)
        for eb, b in zip(ema_model.buffers(), model.buffers()):
            eb.copy_(b)

    for _step in range(6):
        for micro in range(accum):
            x0 = data[micro * 4:(micro + 1) * 4]
            t = torch.randint(0, T, (x0.shape[0],), dtype=torch.long)
            noise = torch.randn_like(x0)
            xt = extract(sqrt_ac, t, x0.shape) * x0 + extract(sqrt_1m_ac, t, x0.shape) * noise
            with torch.autocast(device_type="cpu", dtype=torch.bfloat16, enabled=autocast):
                pred = model(xt, t)
                assert torch.is_autocast_enabled("cpu") == autocast
            loss = F.mse_loss(pred.float(), noise, reduction="mean") / accum
            loss.backward()
            losses.append(loss.item())
        grad_norm = torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0, foreach=True)
        opt.step()
        opt.zero_grad(set_to_none=True)
        ema_update(0.9)
        losses.append(grad_norm.item())

    # ancestral sampling with the EMA weights
    gen = torch.Generator().manual_seed(11)
    x = torch.randn(2, 1, 8, 8, generator=gen)
    with torch.no_grad():
        for i in reversed(range(0, T, 4)):
            t = torch.full((2,), i, dtype=torch.long)
            eps = ema_model(x, t)
            coef = (betas[i] / torch.sqrt(1.0 - alphas_cumprod[i])).float()
            mean = (x - coef * eps) / torch.sqrt(alphas[i]).float()
            if i > 0:
                mean = mean + torch.sqrt(posterior_var[i]) * torch.randn(x.shape, generator=gen)
            x = mean.clamp(-1, 1)
    return {"losses": losses + x.flatten().tolist(), "params": dict(ema_model.named_parameters())}


@pytest.mark.parametrize("ema_style", ["foreach", "lerp", "mul_add"])
def test_unet_matches_torch(ema_style: str) -> None:
    torch = pytest.importorskip("torch")
    assert_runs_match(_unet_script(ember, ema_style, False), _unet_script(torch, ema_style, False))


def test_unet_bf16_autocast_matches_torch() -> None:
    torch = pytest.importorskip("torch")
    # bf16 matmuls/convs round differently inside; the run should still track torch's closely
    assert_runs_match(_unet_script(ember, "foreach", True), _unet_script(torch, "foreach", True), rtol=3e-2, atol=3e-3)
