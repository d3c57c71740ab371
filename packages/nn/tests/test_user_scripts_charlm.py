"""User script: a char-level LSTM/GRU language model with packed sequences, padding_idx, clipping,
and a state_dict checkpoint to BytesIO mid-training followed by a resume, under torch and ember."""

from __future__ import annotations

import io
from typing import Any

import ember
import numpy as np
import pytest
from _user_scripts_util import assert_runs_match

TEXT = "the quick brown fox jumps over the lazy dog. pack my box with five dozen liquor jugs! " * 3
PAD = 0


def _batches(seq_len: int = 12, bsz: int = 6) -> list[tuple[list[list[int]], list[int]]]:
    """Variable-length windows of the text, as lists of char ids (1-based, 0 is padding)."""
    vocab = sorted(set(TEXT))
    stoi = {c: i + 1 for i, c in enumerate(vocab)}
    rng = np.random.default_rng(5)
    out = []
    for _ in range(8):
        seqs, lens = [], []
        for _ in range(bsz):
            n = int(rng.integers(4, seq_len + 1))
            s = int(rng.integers(0, len(TEXT) - n - 1))
            seqs.append([stoi[c] for c in TEXT[s:s + n + 1]])
            lens.append(n)
        out.append((seqs, lens))
    return out


def _charlm_script(lib: Any, cell: str, steps: int = 8) -> dict[str, Any]:
    torch = lib
    nn = torch.nn
    from_lib_utils = torch.nn.utils.rnn
    vocab_size = len(set(TEXT)) + 1

    class CharRNN(nn.Module):
        def __init__(self, vocab: int, emb: int = 16, hidden: int = 24, layers: int = 2) -> None:
            super().__init__()
            self.embed = nn.Embedding(vocab, emb, padding_idx=PAD)
            rnn_cls = nn.LSTM if cell == "lstm" else nn.GRU
            self.rnn = rnn_cls(emb, hidden, num_layers=layers, batch_first=True, dropout=0.0)
            self.head = nn.Linear(hidden, vocab)

        def forward(self, x: Any, lengths: Any, hidden: Any = None) -> tuple[Any, Any]:
            e = self.embed(x)
            packed = from_lib_utils.pack_padded_sequence(e, lengths, batch_first=True, enforce_sorted=False)
            out, hidden = self.rnn(packed, hidden)
            out, out_lens = from_lib_utils.pad_packed_sequence(out, batch_first=True, padding_value=0.0,
                                                               total_length=x.size(1))
            assert out_lens.tolist() == lengths.tolist()
            return self.head(out), hidden

    def make_batch(seqs: list[list[int]], lens: list[int]) -> tuple[Any, Any, Any]:
        inputs = from_lib_utils.pad_sequence([torch.tensor(s[:-1]) for s in seqs], batch_first=True,
                                             padding_value=PAD)
        targets = from_lib_utils.pad_sequence([torch.tensor(s[1:], dtype=torch.long) for s in seqs],
                                              batch_first=True, padding_value=-100)
        return inputs, targets, torch.as_tensor(lens, dtype=torch.int64)

    def train_steps(model: Any, opt: Any, batches: Any, losses: list[float]) -> None:
        criterion = nn.CrossEntropyLoss(ignore_index=-100)
        model.train()
        for seqs, lens in batches:
            x, y, lengths = make_batch(seqs, lens)
            opt.zero_grad()
            logits, _ = model(x, lengths)
            loss = criterion(logits.reshape(-1, vocab_size), y.view(-1))
            loss.backward()
            norm = torch.nn.utils.clip_grad_norm_(model.parameters(), 0.5)
            torch.nn.utils.clip_grad_value_(model.parameters(), clip_value=0.05)
            opt.step()
            losses += [loss.item(), norm.item()]

    torch.manual_seed(11)
    model = CharRNN(vocab_size)
    opt = torch.optim.Adam(model.parameters(), lr=3e-3, amsgrad=True)
    batches = _batches()[:steps]
    losses: list[float] = []
    train_steps(model, opt, batches[: steps // 2], losses)
    # checkpoint mid-training, then resume into fresh objects
    buf = io.BytesIO()
    torch.save({"model": model.state_dict(), "optim": opt.state_dict(), "step": steps // 2}, buf)
    buf.seek(0)
    ckpt = torch.load(buf, weights_only=True)
    model2 = CharRNN(vocab_size)
    missing = model2.load_state_dict(ckpt["model"], strict=True)
    assert not missing.missing_keys and not missing.unexpected_keys
    opt2 = torch.optim.Adam(model2.parameters(), lr=3e-3, amsgrad=True)
    opt2.load_state_dict(ckpt["optim"])
    assert ckpt["step"] == steps // 2
    train_steps(model2, opt2, batches[steps // 2:], losses)
    # the padding row never moves
    assert model2.embed.weight[PAD].abs().sum().item() == 0.0

    # greedy generation with a carried hidden state
    model2.eval()
    with torch.no_grad():
        ids = torch.tensor([[1, 2, 3]])
        h = None
        gen = []
        for _ in range(5):
            logits, h = model2(ids, torch.tensor([ids.size(1)]), h)
            nxt = logits[:, -1].argmax(dim=-1, keepdim=True)
            gen.append(int(nxt))
            ids = nxt
        probs = torch.softmax(logits[0, -1] / 0.8, dim=-1)
        torch.manual_seed(0)
        sampled = torch.multinomial(probs, num_samples=3, replacement=True)
    return {"losses": losses + gen + sampled.tolist(), "params": dict(model2.named_parameters())}


@pytest.mark.parametrize("cell", ["lstm", "gru"])
def test_charlm_matches_torch(cell: str) -> None:
    torch = pytest.importorskip("torch")
    assert_runs_match(_charlm_script(ember, cell), _charlm_script(torch, cell))
