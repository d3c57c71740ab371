"""A character-level LSTM on the embedded text (``python examples/char_lstm.py [--torch]``).

Embedding -> 2-layer LSTM -> Linear, trained with Adam and gradient clipping on random
windows of the text; prints the loss as it trains and a sample at the end. Runs on
ember by default, on PyTorch with ``--torch``, on a GPU with ``--device cuda``.
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


class CharLSTM(nn.Module):
    def __init__(self, vocab: int, embed: int = 32, hidden: int = 128, layers: int = 2, dropout: float = 0.1) -> None:
        super().__init__()
        self.embed = nn.Embedding(vocab, embed)
        self.lstm = nn.LSTM(embed, hidden, num_layers=layers, batch_first=True, dropout=dropout)
        self.head = nn.Linear(hidden, vocab)

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        out, _ = self.lstm(self.embed(ids))
        return self.head(out)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--steps", type=positive_int, default=150)
    ap.add_argument("--torch", action="store_true", help="run on PyTorch instead of ember")
    ap.add_argument("--target-loss", type=float, default=2.0)
    ap.add_argument("--dropout", type=float, default=0.1,
                    help="between the LSTM layers; its masks are drawn on the model's device, so a CPU and "
                         "a CUDA run give the same loss curve only with --dropout 0")
    add_run_args(ap)
    args = ap.parse_args()
    dev = device(torch, args.device)
    torch.manual_seed(0)
    g = torch.Generator().manual_seed(0)
    data = encode(torch)
    vocab = len(char_vocab()[0])
    model = CharLSTM(vocab, dropout=args.dropout).to(dev)  # initialised on the CPU, then moved
    opt = torch.optim.Adam(model.parameters(), lr=3e-3)
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
        losses.append(loss.item())
        progress(step, losses[-1])
    write_losses(args.losses_json, losses)
    model.eval()
    print("sample:", repr(sample_text(torch, lambda ids: model(ids)[0, -1], "The smith ", 80, g, dev)))
    final = loss.item()
    print(f"final loss {final:.3f} (target < {args.target_loss})")
    if final >= args.target_loss:
        raise SystemExit("the LSTM did not reach the target loss")


if __name__ == "__main__":
    main()
