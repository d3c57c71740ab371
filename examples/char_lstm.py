"""A character-level LSTM on the embedded text (``python examples/char_lstm.py [--torch]``).

Embedding -> 2-layer LSTM -> Linear, trained with Adam and gradient clipping on random
windows of the text; prints the loss as it trains and a sample at the end. Runs on
ember by default, on PyTorch with ``--torch``.
"""

from __future__ import annotations

import argparse

from _common import Progress, char_batches, char_vocab, encode, framework, sample_text

torch = framework()
nn = torch.nn


class CharLSTM(nn.Module):
    def __init__(self, vocab: int, embed: int = 32, hidden: int = 128, layers: int = 2) -> None:
        super().__init__()
        self.embed = nn.Embedding(vocab, embed)
        self.lstm = nn.LSTM(embed, hidden, num_layers=layers, batch_first=True, dropout=0.1)
        self.head = nn.Linear(hidden, vocab)

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        out, _ = self.lstm(self.embed(ids))
        return self.head(out)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--steps", type=int, default=150)
    ap.add_argument("--torch", action="store_true", help="run on PyTorch instead of ember")
    ap.add_argument("--target-loss", type=float, default=2.0)
    args = ap.parse_args()
    torch.manual_seed(0)
    g = torch.Generator().manual_seed(0)
    data = encode(torch)
    vocab = len(char_vocab()[0])
    model = CharLSTM(vocab)
    opt = torch.optim.Adam(model.parameters(), lr=3e-3)
    loss_fn = nn.CrossEntropyLoss()
    progress = Progress(args.steps, every=25)
    for step in range(1, args.steps + 1):
        x, y = char_batches(torch, data, seq=64, batch=32, g=g)
        loss = loss_fn(model(x).reshape(-1, vocab), y.reshape(-1))
        opt.zero_grad()
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        progress(step, loss.item())
    model.eval()
    print("sample:", repr(sample_text(torch, lambda ids: model(ids)[0, -1], "The smith ", 80, g)))
    final = loss.item()
    print(f"final loss {final:.3f} (target < {args.target_loss})")
    if final >= args.target_loss:
        raise SystemExit("the LSTM did not reach the target loss")


if __name__ == "__main__":
    main()
