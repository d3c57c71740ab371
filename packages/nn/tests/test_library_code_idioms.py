"""Library-style code: the utility idioms model libraries wrap around a model (init via apply, freezing and
parameter filtering, state_dict key remapping with strict=False, BytesIO checkpoints, dtype casts, grad
modes, forward/backward hooks, activation checkpointing, torch.compile, environment probes), run as one
fine-tuning script under torch and ember alike."""

from __future__ import annotations

import io
from typing import Any

import ember
import numpy as np
import pytest
from _user_scripts_util import assert_runs_match


def _finetune_script(lib: Any, compile_model: bool) -> dict[str, Any]:
    torch = lib
    nn = torch.nn
    F = torch.nn.functional
    from_ckpt = torch.utils.checkpoint

    # the environment probes libraries make at import time
    assert not torch.cuda.is_available() and torch.cuda.device_count() == 0
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    torch.backends.cuda.matmul.allow_tf32 = True
    torch.backends.cudnn.allow_tf32 = True
    assert not torch.jit.is_scripting() and not torch.jit.is_tracing()
    assert not torch.is_autocast_enabled() and not torch.compiler.is_compiling()
    assert hasattr(F, "scaled_dot_product_attention")

    class Encoder(nn.Module):
        def __init__(self, dim: int = 16, use_ckpt: bool = True) -> None:
            super().__init__()
            self.embed = nn.Linear(6, dim)
            self.layers = nn.ModuleList([nn.Sequential(nn.LayerNorm(dim), nn.Linear(dim, dim), nn.GELU())
                                         for _ in range(3)])
            self.use_ckpt = use_ckpt

        def forward(self, x: Any, scale: float = 1.0) -> Any:
            h = self.embed(x)
            for layer in self.layers:
                if self.use_ckpt and self.training and torch.is_grad_enabled():
                    h = h + from_ckpt.checkpoint(layer, h, use_reentrant=False)
                else:
                    h = h + layer(h)
            return h * scale

    class Classifier(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.backbone = Encoder()
            self.classifier = nn.Linear(16, 3)

        def forward(self, x: Any, scale: float = 1.0) -> Any:
            return self.classifier(self.backbone(x, scale=scale).mean(dim=1))

    def init_weights(m: Any) -> None:
        if isinstance(m, nn.Linear):
            nn.init.xavier_uniform_(m.weight)
            if m.bias is not None:
                nn.init.zeros_(m.bias)
        elif isinstance(m, nn.LayerNorm):
            m.weight.data.fill_(1.0)
            m.bias.data.zero_()

    torch.manual_seed(21)
    # a "pretrained" backbone saved under different key names (HF-style prefix remapping)
    pretrained = Encoder()
    pretrained.apply(init_weights)
    buf = io.BytesIO()
    torch.save({"model": {f"encoder.{k}": v for k, v in pretrained.state_dict().items()}, "epoch": 3}, buf)
    buf.seek(0)
    ckpt = torch.load(buf, map_location="cpu", weights_only=True)
    assert ckpt["epoch"] == 3
    remapped = {k.replace("encoder.", "backbone.", 1): v for k, v in ckpt["model"].items()}
    remapped["backbone.pooler.weight"] = torch.zeros(2)
    model = Classifier().to(device)
    result = model.load_state_dict(remapped, strict=False)
    assert sorted(result.missing_keys) == ["classifier.bias", "classifier.weight"]
    assert result.unexpected_keys == ["backbone.pooler.weight"]
    with np.testing.assert_raises(RuntimeError):
        model.load_state_dict(remapped)

    # freeze the embedding and the first layer; train the rest
    model.backbone.embed.requires_grad_(False)
    for name, p in model.named_parameters():
        if name.startswith("backbone.layers.0."):
            p.requires_grad = False
    trainable = [n for n, p in model.named_parameters() if p.requires_grad]
    n_trainable = sum(p.numel() for p in model.parameters() if p.requires_grad)
    opt = torch.optim.AdamW(filter(lambda p: p.requires_grad, model.parameters()), lr=5e-3)

    # hooks: a forward hook with kwargs that records, a full backward hook that records grad shapes
    seen: list[Any] = []

    def fwd_hook(module: Any, args: Any, kwargs: Any, output: Any) -> Any:
        seen.append(("fwd", len(args), sorted(kwargs), tuple(output.shape)))
        return output

    def bwd_hook(module: Any, grad_input: Any, grad_output: Any) -> None:
        seen.append(("bwd", [None if g is None else tuple(g.shape) for g in grad_input],
                     [tuple(g.shape) for g in grad_output]))

    h1 = model.backbone.register_forward_hook(fwd_hook, with_kwargs=True)
    h2 = model.classifier.register_full_backward_hook(bwd_hook)

    run = torch.compile(model, backend="eager", dynamic=False) if compile_model else model
    x = torch.randn(6, 5, 6)
    y = torch.randint(0, 3, (6,))
    losses: list[float] = [float(n_trainable), float(len(trainable))]
    for step in range(6):
        model.train()
        loss = F.cross_entropy(run(x, scale=0.5), y)
        opt.zero_grad()
        loss.backward()
        assert model.backbone.embed.weight.grad is None
        opt.step()
        losses.append(loss.item())
        if step == 1:
            h1.remove()
            h2.remove()

    @torch.no_grad()
    def evaluate(m: Any) -> Any:
        m.eval()
        return m(x)

    out_eval = evaluate(model)
    assert not out_eval.requires_grad
    with torch.inference_mode():
        out_inf = model(x)
    with torch.set_grad_enabled(False):
        out_nograd = model(x)
    torch.set_grad_enabled(True)
    assert torch.is_grad_enabled()
    np.testing.assert_allclose(out_inf.numpy(), out_eval.numpy())
    np.testing.assert_allclose(out_nograd.numpy(), out_eval.numpy())

    # dtype casts and their round trip through a checkpoint
    half_copy = Classifier()
    half_copy.load_state_dict(model.state_dict())
    half_copy.half()
    assert half_copy.classifier.weight.dtype == torch.float16
    half_copy.bfloat16()
    with torch.no_grad():
        out_bf16 = half_copy.eval()(x.bfloat16())
    half_copy.float()
    buf = io.BytesIO()
    torch.save(half_copy.state_dict(), buf)
    buf.seek(0)
    back = torch.load(buf, weights_only=True)
    assert all(v.dtype == torch.float32 for v in back.values())

    return {"losses": losses + out_eval.flatten().tolist() + out_bf16.float().flatten().tolist(),
            "params": dict(model.named_parameters()), "seen": seen}


@pytest.mark.parametrize("compile_model", [False, True])
def test_finetune_idioms_match_torch(compile_model: bool) -> None:
    torch = pytest.importorskip("torch")
    res_e, res_t = _finetune_script(ember, compile_model), _finetune_script(torch, compile_model)
    # bf16 forward rounds inside its matmuls: compare the fp32 part tightly, then the bf16 logits loosely
    n = len(res_t["losses"]) - 18
    bf_e, bf_t = res_e["losses"][n:], res_t["losses"][n:]
    res_e["losses"], res_t["losses"] = res_e["losses"][:n], res_t["losses"][:n]
    assert_runs_match(res_e, res_t)
    np.testing.assert_allclose(bf_e, bf_t, rtol=5e-2, atol=5e-2)
    assert res_e["seen"] == res_t["seen"]
