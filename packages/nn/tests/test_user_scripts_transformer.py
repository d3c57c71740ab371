"""User script: a transformer-encoder text classifier (batch_first, masks, key padding), AdamW with
no-decay param groups and a LambdaLR warmup, under torch and ember."""

from __future__ import annotations

import math
from typing import Any

import ember
import numpy as np
import pytest
from _user_scripts_util import assert_runs_match


def _transformer_script(lib: Any, tokens_np: np.ndarray, lens_np: np.ndarray, labels_np: np.ndarray,
                        steps: int = 10, norm_first: bool = False, causal: bool = False) -> dict[str, Any]:
    torch = lib
    nn = torch.nn
    F = torch.nn.functional

    class PositionalEncoding(nn.Module):
        def __init__(self, d_model: int, max_len: int = 64) -> None:
            super().__init__()
            position = torch.arange(max_len).unsqueeze(1)
            div_term = torch.exp(torch.arange(0, d_model, 2) * (-math.log(10000.0) / d_model))
            pe = torch.zeros(1, max_len, d_model)
            pe[0, :, 0::2] = torch.sin(position * div_term)
            pe[0, :, 1::2] = torch.cos(position * div_term)
            self.register_buffer("pe", pe, persistent=False)

        def forward(self, x: Any) -> Any:
            return x + self.pe[:, : x.size(1)]

    class Classifier(nn.Module):
        def __init__(self, vocab: int, d_model: int = 32, nhead: int = 4, layers: int = 2, classes: int = 3) -> None:
            super().__init__()
            self.embed = nn.Embedding(vocab, d_model, padding_idx=0)
            self.pos = PositionalEncoding(d_model)
            layer = nn.TransformerEncoderLayer(d_model, nhead, dim_feedforward=64, dropout=0.0,
                                               activation="gelu", batch_first=True, norm_first=norm_first)
            self.encoder = nn.TransformerEncoder(layer, num_layers=layers, norm=nn.LayerNorm(d_model),
                                                 enable_nested_tensor=False)
            self.cls = nn.Linear(d_model, classes)
            self.d_model = d_model

        def forward(self, src: Any, pad_mask: Any) -> Any:
            x = self.pos(self.embed(src) * math.sqrt(self.d_model))
            mask = nn.Transformer.generate_square_subsequent_mask(src.size(1)) if causal else None
            h = self.encoder(x, mask=mask, src_key_padding_mask=pad_mask, is_causal=causal)
            keep = (~pad_mask).unsqueeze(-1).float()
            pooled = (h * keep).sum(1) / keep.sum(1).clamp(min=1.0)
            return self.cls(pooled)

    torch.manual_seed(7)
    model = Classifier(vocab=50)
    no_decay = ("bias", "norm", "LayerNorm.weight")
    groups = [
        {"params": [p for n, p in model.named_parameters() if not any(nd in n for nd in no_decay)], "weight_decay": 0.01},
        {"params": [p for n, p in model.named_parameters() if any(nd in n for nd in no_decay)], "weight_decay": 0.0},
    ]
    optimizer = torch.optim.AdamW(groups, lr=1e-3, betas=(0.9, 0.98), eps=1e-9)
    warmup = 4

    def lr_lambda(step: int) -> float:
        if step < warmup:
            return float(step + 1) / warmup
        return max(0.0, float(steps - step) / float(max(1, steps - warmup)))

    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lr_lambda)
    tokens, labels = torch.from_numpy(tokens_np), torch.from_numpy(labels_np)
    lengths = torch.from_numpy(lens_np)
    pad_mask = torch.arange(tokens.size(1))[None, :] >= lengths[:, None]
    losses = []
    for step in range(steps):
        idx = slice((step % 2) * 8, (step % 2) * 8 + 8)
        model.train()
        logits = model(tokens[idx], pad_mask[idx])
        loss = F.cross_entropy(logits, labels[idx])
        optimizer.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0, error_if_nonfinite=True)
        optimizer.step()
        scheduler.step()
        losses += [loss.item(), optimizer.param_groups[0]["lr"]]
    model.eval()
    with torch.no_grad():
        logits = model(tokens, pad_mask)
        acc = (logits.argmax(-1) == labels).float().mean().item()
    # The key bias's true gradient is zero (softmax ignores a per-query constant), so Adam turns its
    # rounding noise into steps of full size: compare only the query and value thirds of in_proj_bias.
    params = {n: (torch.cat([p[:32], p[64:]]) if n.endswith("in_proj_bias") else p)
              for n, p in model.named_parameters()}
    return {"losses": losses + [acc], "params": {**params, "logits": logits}}


def _data() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(7)
    lens = rng.integers(3, 13, size=16)
    tokens = np.zeros((16, 12), dtype=np.int64)
    for i, n in enumerate(lens):
        tokens[i, :n] = rng.integers(1, 50, size=n)
    return tokens, lens.astype(np.int64), rng.integers(0, 3, size=16)


# the causal case pairs a bool padding mask with a float causal mask, which both libraries warn about
@pytest.mark.filterwarnings("ignore:Support for mismatched")
@pytest.mark.parametrize(("norm_first", "causal"), [(False, False), (True, False), (False, True)])
def test_transformer_classifier_matches_torch(norm_first: bool, causal: bool) -> None:
    torch = pytest.importorskip("torch")
    tok, lens, lab = _data()
    assert_runs_match(_transformer_script(ember, tok, lens, lab, norm_first=norm_first, causal=causal),
                      _transformer_script(torch, tok, lens, lab, norm_first=norm_first, causal=causal), rtol=2e-4)
