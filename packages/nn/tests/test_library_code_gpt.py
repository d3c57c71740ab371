"""Library-style code: a nanoGPT-like model (causal-mask buffer, Conv1D-style weights loaded by transposing a
"pretrained" state_dict, fused-AdamW probing via inspect, a disabled GradScaler, hand-written lr decay,
estimate_loss under no_grad, crop_block_size) and a transformers-like ModelOutput registered as a pytree,
with greedy and beam-search decoding; under torch and ember alike."""

from __future__ import annotations

import inspect
import math
from collections import OrderedDict
from dataclasses import dataclass, fields
from typing import Any

import ember
import numpy as np
import pytest
from _user_scripts_util import assert_runs_match

VOCAB, BLOCK, EMBD, HEADS, LAYERS, DROPOUT = 30, 16, 24, 3, 2, 0.1


def _gpt_script(lib: Any, flash: bool) -> dict[str, Any]:
    torch = lib
    nn = torch.nn
    F = torch.nn.functional
    pytree = torch.utils._pytree

    class ModelOutput(OrderedDict):
        """transformers' pattern: a dataclass that is also an ordered dict of its non-None fields."""

        def __init_subclass__(cls) -> None:
            pytree.register_pytree_node(cls, lambda o: (list(o.values()), list(o.keys())),
                                        lambda values, keys: cls(**dict(zip(keys, values))))

        def __post_init__(self) -> None:
            for f in fields(self):  # type: ignore[arg-type]
                v = getattr(self, f.name)
                if v is not None:
                    self[f.name] = v

        def to_tuple(self) -> tuple:
            return tuple(self[k] for k in self.keys())

    @dataclass
    class CausalLMOutput(ModelOutput):
        loss: Any = None
        logits: Any = None

    class CausalSelfAttention(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.c_attn = nn.Linear(EMBD, 3 * EMBD)
            self.c_proj = nn.Linear(EMBD, EMBD)
            self.attn_dropout = nn.Dropout(DROPOUT)
            self.resid_dropout = nn.Dropout(DROPOUT)
            self.flash = flash and hasattr(torch.nn.functional, "scaled_dot_product_attention")
            if not self.flash:
                self.register_buffer("bias", torch.tril(torch.ones(BLOCK, BLOCK)).view(1, 1, BLOCK, BLOCK))

        def forward(self, x: Any) -> Any:
            B, T, C = x.size()
            q, k, v = self.c_attn(x).split(EMBD, dim=2)
            k = k.view(B, T, HEADS, C // HEADS).transpose(1, 2)
            q = q.view(B, T, HEADS, C // HEADS).transpose(1, 2)
            v = v.view(B, T, HEADS, C // HEADS).transpose(1, 2)
            if self.flash:
                y = torch.nn.functional.scaled_dot_product_attention(
                    q, k, v, attn_mask=None, dropout_p=DROPOUT if self.training else 0, is_causal=True)
            else:
                att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
                att = att.masked_fill(self.bias[:, :, :T, :T] == 0, float("-inf"))
                y = self.attn_dropout(F.softmax(att, dim=-1)) @ v
            return self.resid_dropout(self.c_proj(y.transpose(1, 2).contiguous().view(B, T, C)))

    class Block(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.ln_1 = nn.LayerNorm(EMBD, bias=False)
            self.attn = CausalSelfAttention()
            self.ln_2 = nn.LayerNorm(EMBD, bias=False)
            self.mlp = nn.ModuleDict(dict(c_fc=nn.Linear(EMBD, 4 * EMBD), act=nn.GELU(approximate="tanh"),
                                          c_proj=nn.Linear(4 * EMBD, EMBD), dropout=nn.Dropout(DROPOUT)))

        def forward(self, x: Any) -> Any:
            x = x + self.attn(self.ln_1(x))
            m = self.mlp
            return x + m.dropout(m.c_proj(m.act(m.c_fc(self.ln_2(x)))))

    class GPT(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.transformer = nn.ModuleDict(dict(
                wte=nn.Embedding(VOCAB, EMBD), wpe=nn.Embedding(BLOCK, EMBD), drop=nn.Dropout(DROPOUT),
                h=nn.ModuleList([Block() for _ in range(LAYERS)]), ln_f=nn.LayerNorm(EMBD, bias=False)))
            self.lm_head = nn.Linear(EMBD, VOCAB, bias=False)
            self.transformer.wte.weight = self.lm_head.weight
            self.apply(self._init_weights)
            for pn, p in self.named_parameters():
                if pn.endswith("c_proj.weight"):
                    torch.nn.init.normal_(p, mean=0.0, std=0.02 / math.sqrt(2 * LAYERS))

        def _init_weights(self, module: Any) -> None:
            if isinstance(module, nn.Linear):
                torch.nn.init.normal_(module.weight, mean=0.0, std=0.02)
                if module.bias is not None:
                    torch.nn.init.zeros_(module.bias)
            elif isinstance(module, nn.Embedding):
                torch.nn.init.normal_(module.weight, mean=0.0, std=0.02)

        def get_num_params(self, non_embedding: bool = True) -> int:
            n = sum(p.numel() for p in self.parameters())
            return n - self.transformer.wpe.weight.numel() if non_embedding else n

        def forward(self, idx: Any, targets: Any = None, return_dict: bool = True) -> Any:
            _, t = idx.size()
            assert t <= BLOCK, f"Cannot forward sequence of length {t}, block size is only {BLOCK}"
            pos = torch.arange(0, t, dtype=torch.long, device=idx.device)
            x = self.transformer.drop(self.transformer.wte(idx) + self.transformer.wpe(pos))
            for block in self.transformer.h:
                x = block(x)
            x = self.transformer.ln_f(x)
            if targets is not None:
                logits = self.lm_head(x)
                loss = F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1), ignore_index=-1)
            else:
                logits = self.lm_head(x[:, [-1], :])
                loss = None
            out = CausalLMOutput(loss=loss, logits=logits)
            return out if return_dict else out.to_tuple()

        def configure_optimizers(self, weight_decay: float, learning_rate: float, betas: tuple) -> Any:
            param_dict = {pn: p for pn, p in self.named_parameters() if p.requires_grad}
            decay_params = [p for n, p in param_dict.items() if p.dim() >= 2]
            nodecay_params = [p for n, p in param_dict.items() if p.dim() < 2]
            groups = [{"params": decay_params, "weight_decay": weight_decay},
                      {"params": nodecay_params, "weight_decay": 0.0}]
            fused_available = "fused" in inspect.signature(torch.optim.AdamW).parameters
            use_fused = fused_available and torch.cuda.is_available()
            extra_args = dict(fused=True) if use_fused else dict()
            return torch.optim.AdamW(groups, lr=learning_rate, betas=betas, **extra_args)

        def crop_block_size(self, block_size: int) -> None:
            self.transformer.wpe.weight = nn.Parameter(self.transformer.wpe.weight[:block_size])
            for block in self.transformer.h:
                if hasattr(block.attn, "bias"):
                    block.attn.bias = block.attn.bias[:, :, :block_size, :block_size]

    torch.manual_seed(1337)
    model = GPT()
    # "pretrained" weights in a Conv1D (in, out) layout, copied in by transposing, as from_pretrained does
    sd = model.state_dict()
    hf = {k: (v.t().contiguous() if k.endswith(("c_attn.weight", "c_proj.weight", "c_fc.weight")) else v) * 1.5
          for k, v in sd.items() if not k.endswith(".attn.bias")}
    transposed = ["attn.c_attn.weight", "attn.c_proj.weight", "mlp.c_fc.weight", "mlp.c_proj.weight"]
    for k in hf:
        with torch.no_grad():
            if any(k.endswith(w) for w in transposed):
                assert hf[k].shape[::-1] == sd[k].shape
                sd[k].copy_(hf[k].t())
            else:
                sd[k].copy_(hf[k])

    optimizer = model.configure_optimizers(0.1, 6e-4, (0.9, 0.95))
    scaler = torch.amp.GradScaler("cuda", enabled=False)
    data = torch.randint(0, VOCAB, (400,), generator=torch.Generator().manual_seed(2))

    def get_batch(bs: int = 4) -> tuple[Any, Any]:
        ix = torch.randint(len(data) - BLOCK, (bs,))
        x = torch.stack([data[i:i + BLOCK] for i in ix])
        y = torch.stack([data[i + 1:i + 1 + BLOCK] for i in ix])
        return x, y

    @torch.no_grad()
    def estimate_loss() -> float:
        model.eval()
        losses = torch.zeros(3)
        for k in range(3):
            x, y = get_batch()
            losses[k] = model(x, y).loss.item()
        model.train()
        return losses.mean().item()

    def get_lr(it: int, warmup: int = 2, decay: int = 8, lr: float = 6e-3, min_lr: float = 6e-4) -> float:
        if it < warmup:
            return lr * (it + 1) / (warmup + 1)
        if it > decay:
            return min_lr
        ratio = (it - warmup) / (decay - warmup)
        return min_lr + 0.5 * (1.0 + math.cos(math.pi * ratio)) * (lr - min_lr)

    record: list[float] = [float(model.get_num_params())]
    grad_accum = 2
    for it in range(8):
        lr = get_lr(it)
        for g in optimizer.param_groups:
            g["lr"] = lr
        for _ in range(grad_accum):
            x, y = get_batch()
            out = model(x, y)
            loss = out.loss / grad_accum
            scaler.scale(loss).backward()
        scaler.unscale_(optimizer)
        norm = torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        scaler.step(optimizer)
        scaler.update()
        optimizer.zero_grad(set_to_none=True)
        record += [loss.item() * grad_accum, norm.item(), lr]
    record.append(estimate_loss())

    # the output class is a pytree: tree_map over it keeps its type and drops nothing
    out = model(x, y)
    doubled = pytree.tree_map(lambda t: t * 2, out)
    assert type(doubled) is CausalLMOutput and list(doubled.keys()) == ["loss", "logits"]
    assert len(model(x, return_dict=False)) == 1

    model.eval()
    model.crop_block_size(8)
    assert model.transformer.wpe.weight.shape[0] == 8
    with torch.no_grad():
        # greedy
        idx = torch.tensor([[1, 2, 3]])
        for _ in range(4):
            logits = model(idx[:, -8:]).logits[:, -1, :]
            idx = torch.cat((idx, logits.argmax(dim=-1, keepdim=True)), dim=1)
        # beam search (num_beams=3) with length-normalised scores
        beams, vocab = 3, VOCAB
        seqs = torch.tensor([[1, 2, 3]]).repeat(beams, 1)
        scores = torch.zeros(beams)
        scores[1:] = -1e9
        for _ in range(3):
            logp = F.log_softmax(model(seqs[:, -8:]).logits[:, -1, :], dim=-1)
            cand = (scores[:, None] + logp).view(-1)
            top, top_i = torch.topk(cand, 2 * beams, largest=True, sorted=True)
            beam_idx = torch.div(top_i, vocab, rounding_mode="floor")
            tok = top_i % vocab
            seqs = torch.cat([seqs.index_select(0, beam_idx[:beams]), tok[:beams, None]], dim=-1)
            scores = top[:beams]
    return {"losses": record + idx.flatten().tolist() + seqs.flatten().tolist() + scores.tolist(),
            "params": dict(model.named_parameters())}


@pytest.mark.parametrize("flash", [True, False])
def test_gpt_matches_torch(flash: bool) -> None:
    torch = pytest.importorskip("torch")

    res_e, res_t = _gpt_script(ember, flash), _gpt_script(torch, flash)
    assert_runs_match(res_e, res_t)
    assert np.isfinite(res_e["losses"]).all()
