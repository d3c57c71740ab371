"""A tiny GPT on the embedded text (``python examples/tiny_gpt.py [--torch]``).

Token and position embeddings, two pre-norm causal transformer blocks
(``nn.TransformerEncoderLayer`` with a causal mask) and a tied-size output head, trained
with AdamW and a cosine schedule; prints the loss as it trains and a sample at the end.
Runs on ember by default, on PyTorch with ``--torch``, on a GPU with ``--device cuda``.
"""

from __future__ import annotations

import argparse

from _common import (
    Progress,
    add_run_args,
    char_batches,
    char_vocab,
    device,
    encode,
    framework,
    positive_int,
    sample_text,
    write_losses,
)

torch = framework()
nn = torch.nn


class TinyGPT(nn.Module):
    def __init__(self, vocab: int, ctx: int = 64, d: int = 64, heads: int = 4, layers: int = 2) -> None:
        super().__init__()
        self.tok = nn.Embedding(vocab, d)
        self.pos = nn.Embedding(ctx, d)
        block = nn.TransformerEncoderLayer(d, heads, dim_feedforward=4 * d, dropout=0.0, batch_first=True,
                                           norm_first=True, activation="gelu")
        self.blocks = nn.TransformerEncoder(block, layers, enable_nested_tensor=False)
        self.norm = nn.LayerNorm(d)
        self.head = nn.Linear(d, vocab)

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        t = ids.shape[1]
        h = self.tok(ids) + self.pos(torch.arange(t, device=ids.device))
        mask = nn.Transformer.generate_square_subsequent_mask(t, device=ids.device)
        return self.head(self.norm(self.blocks(h, mask=mask, is_causal=True)))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--steps", type=positive_int, default=200)
    ap.add_argument("--torch", action="store_true", help="run on PyTorch instead of ember")
    ap.add_argument("--target-loss", type=float, default=2.0)
    add_run_args(ap)
    args = ap.parse_args()
    dev = device(torch, args.device)
    torch.manual_seed(0)
    g = torch.Generator().manual_seed(0)
    data = encode(torch)
    vocab = len(char_vocab()[0])
    model = TinyGPT(vocab).to(dev)  # initialised on the CPU (same weights on any device), then moved
    opt = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=0.01)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=args.steps)
    loss_fn = nn.CrossEntropyLoss()
    progress = Progress(args.steps, every=25)
    losses: list[float] = []
    for step in range(1, args.steps + 1):
        x, y = char_batches(torch, data, seq=64, batch=32, g=g)  # drawn on the CPU, then moved
        x, y = x.to(dev), y.to(dev)
        loss = loss_fn(model(x).reshape(-1, vocab), y.reshape(-1))
        opt.zero_grad()
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        sched.step()
        losses.append(loss.item())
        progress(step, losses[-1], f"lr {sched.get_last_lr()[0]:.2e}  ")
    write_losses(args.losses_json, losses)
    model.eval()
    print("sample:", repr(sample_text(torch, lambda ids: model(ids[:, -64:])[0, -1], "The smith ", 80, g, dev)))
    final = loss.item()
    print(f"final loss {final:.3f} (target < {args.target_loss})")
    if final >= args.target_loss:
        raise SystemExit("the GPT did not reach the target loss")


if __name__ == "__main__":
    main()
