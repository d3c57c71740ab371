"""Library-style code: timm-like ViT and ConvNeXt blocks (patch embedding by Conv2d or unfold, DropPath,
LayerScale, channels-last LayerNorm, trunc_normal_ init, bicubic position-embedding resize) trained with
AdamW under a hand-written warmup + cosine schedule, under torch and ember alike."""

from __future__ import annotations

import math
from typing import Any

import ember
import numpy as np
import pytest
from _user_scripts_util import assert_runs_match


def _drop_path(lib: Any, x: Any, drop_prob: float, training: bool, style: str) -> Any:
    if drop_prob == 0.0 or not training:
        return x
    keep = 1 - drop_prob
    shape = (x.shape[0],) + (1,) * (x.ndim - 1)
    if style == "floor":  # the original rand + floor_ form
        random_tensor = keep + lib.rand(shape, dtype=x.dtype, device=x.device)
        random_tensor.floor_()
        return x.div(keep) * random_tensor
    random_tensor = x.new_empty(shape).bernoulli_(keep)
    random_tensor.div_(keep)
    return x * random_tensor


def _vit_script(lib: Any, patch: str, drop_style: str) -> dict[str, Any]:
    torch = lib
    nn = torch.nn
    F = torch.nn.functional
    trunc_normal_ = nn.init.trunc_normal_

    class DropPath(nn.Module):
        def __init__(self, p: float = 0.0) -> None:
            super().__init__()
            self.drop_prob = p

        def forward(self, x: Any) -> Any:
            return _drop_path(torch, x, self.drop_prob, self.training, drop_style)

        def extra_repr(self) -> str:
            return f"drop_prob={round(self.drop_prob, 3):0.3f}"

    class LayerScale(nn.Module):
        def __init__(self, dim: int, init_values: float = 1e-5, inplace: bool = False) -> None:
            super().__init__()
            self.inplace = inplace
            self.gamma = nn.Parameter(init_values * torch.ones(dim))

        def forward(self, x: Any) -> Any:
            return x.mul_(self.gamma) if self.inplace else x * self.gamma

    class PatchEmbed(nn.Module):
        def __init__(self, img: int = 16, p: int = 4, c: int = 3, dim: int = 24) -> None:
            super().__init__()
            self.p, self.grid = p, img // p
            self.num_patches = self.grid ** 2
            self.proj = nn.Conv2d(c, dim, kernel_size=p, stride=p)
            self.norm = nn.Identity()

        def forward(self, x: Any) -> Any:
            if patch == "conv":
                x = self.proj(x).flatten(2).transpose(1, 2)
            else:  # the same projection as unfold + matmul with the conv's weight
                cols = F.unfold(x, kernel_size=self.p, stride=self.p)  # (B, C*p*p, L)
                x = cols.transpose(1, 2) @ self.proj.weight.flatten(1).t() + self.proj.bias
            return self.norm(x)

    class Attention(nn.Module):
        def __init__(self, dim: int, heads: int) -> None:
            super().__init__()
            self.heads = heads
            self.scale = (dim // heads) ** -0.5
            self.qkv = nn.Linear(dim, dim * 3, bias=True)
            self.proj = nn.Linear(dim, dim)
            self.attn_drop = nn.Dropout(0.1)
            self.proj_drop = nn.Dropout(0.1)

        def forward(self, x: Any) -> Any:
            B, N, C = x.shape
            qkv = self.qkv(x).reshape(B, N, 3, self.heads, C // self.heads).permute(2, 0, 3, 1, 4)
            q, k, v = qkv.unbind(0)
            if patch == "conv":
                x = F.scaled_dot_product_attention(q, k, v, dropout_p=self.attn_drop.p if self.training else 0.0)
            else:
                attn = (q * self.scale) @ k.transpose(-2, -1)
                x = self.attn_drop(attn.softmax(dim=-1)) @ v
            return self.proj_drop(self.proj(x.transpose(1, 2).reshape(B, N, C)))

    class Block(nn.Module):
        def __init__(self, dim: int, heads: int, dp: float) -> None:
            super().__init__()
            self.norm1 = nn.LayerNorm(dim, eps=1e-6)
            self.attn = Attention(dim, heads)
            self.ls1 = LayerScale(dim, 0.1)
            self.drop_path1 = DropPath(dp) if dp > 0.0 else nn.Identity()
            self.norm2 = nn.LayerNorm(dim, eps=1e-6)
            self.mlp = nn.Sequential(nn.Linear(dim, dim * 2), nn.GELU(approximate="tanh"), nn.Linear(dim * 2, dim))
            self.ls2 = LayerScale(dim, 0.1)
            self.drop_path2 = DropPath(dp) if dp > 0.0 else nn.Identity()

        def forward(self, x: Any) -> Any:
            x = x + self.drop_path1(self.ls1(self.attn(self.norm1(x))))
            return x + self.drop_path2(self.ls2(self.mlp(self.norm2(x))))

    class ViT(nn.Module):
        def __init__(self, dim: int = 24, depth: int = 3, classes: int = 5) -> None:
            super().__init__()
            self.patch_embed = PatchEmbed(dim=dim)
            self.cls_token = nn.Parameter(torch.zeros(1, 1, dim))
            self.pos_drop = nn.Dropout(p=0.1)
            self.pos_embed = nn.Parameter(torch.randn(1, self.patch_embed.num_patches + 1, dim) * 0.02)
            dpr = [x.item() for x in torch.linspace(0, 0.3, depth)]  # stochastic depth decay rule
            self.blocks = nn.Sequential(*[Block(dim, 4, dpr[i]) for i in range(depth)])
            self.norm = nn.LayerNorm(dim, eps=1e-6)
            self.head = nn.Linear(dim, classes)
            trunc_normal_(self.pos_embed, std=0.02)
            nn.init.normal_(self.cls_token, std=1e-6)
            self.apply(self._init_weights)

        def _init_weights(self, m: Any) -> None:
            if isinstance(m, nn.Linear):
                trunc_normal_(m.weight, std=0.02)
                if isinstance(m, nn.Linear) and m.bias is not None:
                    nn.init.constant_(m.bias, 0)
            elif isinstance(m, nn.LayerNorm):
                nn.init.constant_(m.bias, 0)
                nn.init.constant_(m.weight, 1.0)

        @torch.jit.ignore
        def no_weight_decay(self) -> set[str]:
            return {"pos_embed", "cls_token"}

        def resize_pos_embed(self, new_grid: int) -> Any:
            cls_pos, grid_pos = self.pos_embed[:, :1], self.pos_embed[:, 1:]
            g = self.patch_embed.grid
            grid_pos = grid_pos.reshape(1, g, g, -1).permute(0, 3, 1, 2)
            grid_pos = F.interpolate(grid_pos, size=(new_grid, new_grid), mode="bicubic", antialias=new_grid < g,
                                     align_corners=False)
            grid_pos = grid_pos.permute(0, 2, 3, 1).reshape(1, new_grid * new_grid, -1)
            return torch.cat([cls_pos, grid_pos], dim=1)

        def forward(self, x: Any) -> Any:
            x = self.patch_embed(x)
            x = self.pos_drop(torch.cat((self.cls_token.expand(x.shape[0], -1, -1), x), dim=1) + self.pos_embed)
            x = self.norm(self.blocks(x))
            return self.head(x[:, 0])

    torch.manual_seed(0)
    model = ViT()
    assert sum(isinstance(m, DropPath) for m in model.modules()) == 4
    skip = model.no_weight_decay()
    decay, no_decay = [], []
    for name, p in model.named_parameters():
        if not p.requires_grad:
            continue
        (no_decay if p.ndim <= 1 or name.endswith(".bias") or name in skip else decay).append(p)
    opt = torch.optim.AdamW([{"params": no_decay, "weight_decay": 0.0}, {"params": decay, "weight_decay": 0.05}],
                            lr=1e-3)
    base_lr, warmup, total, min_lr = 1e-3, 3, 10, 1e-5
    x_all = torch.randn(4, 4, 3, 16, 16)
    y_all = torch.randint(0, 5, (4, 4))
    losses: list[float] = []
    crit = nn.CrossEntropyLoss(label_smoothing=0.1)
    for step in range(total):
        # timm-like warmup then half-cosine, written by hand per step
        if step < warmup:
            lr = base_lr * (step + 1) / warmup
        else:
            lr = min_lr + 0.5 * (base_lr - min_lr) * (1 + math.cos(math.pi * (step - warmup) / (total - warmup)))
        for group in opt.param_groups:
            group["lr"] = lr
        model.train()
        loss = crit(model(x_all[step % 4]), y_all[step % 4])
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses += [loss.item(), lr]
    model.eval()
    with torch.no_grad():
        out = model(x_all[0])
        small = model.resize_pos_embed(3)
        big = model.resize_pos_embed(6)
    return {"losses": losses + out.flatten().tolist() + small.flatten().tolist() + big.flatten().tolist(),
            "params": dict(model.named_parameters())}


def _convnext_script(lib: Any) -> dict[str, Any]:
    torch = lib
    nn = torch.nn
    F = torch.nn.functional

    class LayerNorm2d(nn.LayerNorm):
        """LayerNorm over the channels of NCHW, by permuting to channels-last and back."""

        def forward(self, x: Any) -> Any:
            x = x.permute(0, 2, 3, 1)
            x = F.layer_norm(x, self.normalized_shape, self.weight, self.bias, self.eps)
            return x.permute(0, 3, 1, 2)

    class ConvNeXtBlock(nn.Module):
        def __init__(self, dim: int, dp: float, ls_init: float = 1e-6) -> None:
            super().__init__()
            self.dwconv = nn.Conv2d(dim, dim, kernel_size=7, padding=3, groups=dim)
            self.norm = nn.LayerNorm(dim, eps=1e-6)
            self.pwconv1 = nn.Linear(dim, 4 * dim)
            self.act = nn.GELU()
            self.pwconv2 = nn.Linear(4 * dim, dim)
            self.gamma = nn.Parameter(ls_init * torch.ones(dim)) if ls_init > 0 else None
            self.dp = dp

        def forward(self, x: Any) -> Any:
            shortcut = x
            x = self.dwconv(x)
            x = x.permute(0, 2, 3, 1)  # (N, C, H, W) -> (N, H, W, C)
            x = self.pwconv2(self.act(self.pwconv1(self.norm(x))))
            if self.gamma is not None:
                x = self.gamma * x
            x = x.permute(0, 3, 1, 2)
            return shortcut + _drop_path(torch, x, self.dp, self.training, "bernoulli")

    class ConvNeXt(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.stem = nn.Sequential(nn.Conv2d(3, 16, kernel_size=4, stride=4), LayerNorm2d(16, eps=1e-6))
            self.stage1 = nn.Sequential(*[ConvNeXtBlock(16, dp, ls_init=0.5) for dp in (0.0, 0.2)])
            self.down = nn.Sequential(LayerNorm2d(16, eps=1e-6), nn.Conv2d(16, 32, kernel_size=2, stride=2))
            self.stage2 = ConvNeXtBlock(32, 0.1, ls_init=0.5)
            self.head = nn.Sequential(nn.AdaptiveAvgPool2d(1), nn.Flatten(1), nn.LayerNorm(32), nn.Linear(32, 4))
            self.apply(self._init)

        def _init(self, m: Any) -> None:
            if isinstance(m, (nn.Conv2d, nn.Linear)):
                nn.init.trunc_normal_(m.weight, std=0.02)
                nn.init.zeros_(m.bias)

        def forward(self, x: Any) -> Any:
            return self.head(self.stage2(self.down(self.stage1(self.stem(x)))))

    torch.manual_seed(3)
    model = ConvNeXt().to(memory_format=torch.channels_last)
    opt = torch.optim.AdamW(model.parameters(), lr=2e-3, weight_decay=0.05)
    sched = torch.optim.lr_scheduler.LambdaLR(
        opt, lambda s: (s + 1) / 2 if s < 2 else 0.5 * (1 + math.cos(math.pi * (s - 2) / 6)))
    x = torch.randn(6, 3, 16, 16).contiguous(memory_format=torch.channels_last)
    y = torch.randint(0, 4, (6,))
    losses: list[float] = []
    for _ in range(8):
        model.train()
        loss = F.cross_entropy(model(x), y)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        total_norm = nn.utils.clip_grad_norm_(model.parameters(), max_norm=5.0, foreach=True)
        opt.step()
        sched.step()
        losses += [loss.item(), total_norm.item(), sched.get_last_lr()[0]]
    model.eval()
    with torch.inference_mode():
        logits = model(x)
    assert logits.is_inference()
    return {"losses": losses + logits.flatten().tolist(), "params": dict(model.named_parameters())}


@pytest.mark.parametrize("patch,drop_style", [("conv", "floor"), ("unfold", "bernoulli")])
def test_vit_matches_torch(patch: str, drop_style: str) -> None:
    torch = pytest.importorskip("torch")
    assert_runs_match(_vit_script(ember, patch, drop_style), _vit_script(torch, patch, drop_style))


def test_convnext_matches_torch() -> None:
    torch = pytest.importorskip("torch")
    assert_runs_match(_convnext_script(ember), _convnext_script(torch))


def test_drop_path_draws_match(torch: Any) -> None:
    # the per-sample mask of both DropPath forms takes the same draws as torch's
    outs = []
    for lib in (ember, torch):
        lib.manual_seed(5)
        x = lib.ones(8, 3, 2)
        outs.append([_drop_path(lib, x, 0.5, True, s).numpy() for s in ("floor", "bernoulli")])
    for a, b in zip(*outs):
        np.testing.assert_array_equal(a, b)
