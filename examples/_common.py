"""What the example scripts share: the framework switch, the device and loss-curve flags, and
the embedded data.

Every example runs on ember by default and on PyTorch with ``--torch`` (same code, the
import is the only difference), so the two can be compared on the same data. The data
is embedded: a short original text for the character models and seeded synthetic
images for the CNN, so nothing is downloaded.

``--device cuda`` moves the model and each batch to the GPU; the data, the initial weights and
every random draw (batches, shuffling, sampling) still come from CPU generators, so a CPU and a
CUDA run see the same numbers and their loss curves differ only by float32 rounding.
``--losses-json PATH`` writes the per-step training losses.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from types import ModuleType
from typing import Any


def framework(argv: list[str] | None = None) -> ModuleType:
    """``ember`` (default) or ``torch`` when ``--torch`` is on the command line."""
    argv = sys.argv[1:] if argv is None else argv
    if "--torch" in argv:
        import torch

        return torch
    import ember

    return ember


def add_run_args(ap: argparse.ArgumentParser) -> None:
    """``--device`` and ``--losses-json`` (the flags every training example takes)."""
    ap.add_argument("--device", default="cpu",
                    help="where the model and the batches live: cpu (default), cuda or cuda:N")
    ap.add_argument("--losses-json", metavar="PATH",
                    help="write the training loss of every optimizer step to PATH (a JSON list of floats)")


def positive_int(text: str) -> int:
    """An argparse type: an int >= 1 (``--steps``)."""
    n = int(text)
    if n < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {n}")
    return n


def device(torch: ModuleType, name: str) -> Any:
    """``name`` as a device, checked up front: without a GPU (or a CUDA build) this exits at once
    with the framework's own error instead of after the data is built."""
    try:
        dev = torch.device(name)
    except RuntimeError as e:
        raise SystemExit(f"--device {name}: {e}") from None
    if dev.type not in ("cpu", "cuda"):
        raise SystemExit(f"--device {name}: the examples run on cpu or cuda")
    try:
        torch.zeros(1, device=dev)
    except (RuntimeError, AssertionError) as e:  # PyTorch's "not compiled with CUDA" is an AssertionError
        raise SystemExit(f"--device {name}: {type(e).__name__}: {e}") from None
    return dev


def write_losses(path: str | None, losses: list[float]) -> None:
    """The per-step loss curve as a JSON list (``--losses-json``); nothing without a path."""
    if path:
        with open(path, "w") as f:
            json.dump(losses, f)


# An original text (written for these examples), long enough for a character model to
# learn words and punctuation in a minute of CPU time.
TEXT = """\
The forge was quiet before dawn. A single ember glowed in the ash, and the smith bent
over it, breathing slowly, until the coal woke and the room filled with a low red light.
She laid dry wood on the coal, then charcoal, then iron. The iron took the heat the way
a river takes the rain: slowly at first, then all at once. When it shone yellow she
lifted it out, set it on the anvil and struck it, once, twice, a third time, turning it
between the blows. Sparks ran across the floor like small bright animals.
Her apprentice watched from the door. He asked why she worked before the sun, and she
said that the morning air was cool and the fire was honest, and that a tool made in a
hurry breaks in a hurry. He asked how she knew when the iron was ready, and she said
that the colour tells you, and the sound tells you, and after many years your hands
tell you before your eyes do. Then she gave him the hammer and told him to listen.
He struck the iron and it rang. He struck it again and it rang lower. The smith smiled.
By noon the blade was shaped; by evening it was hardened, tempered and cooling on the
rack. The apprentice swept the floor, banked the fire, and left one ember glowing in
the ash, so that tomorrow the work could begin again from a small and patient light.
"""


def char_vocab(text: str = TEXT) -> tuple[list[str], dict[str, int]]:
    chars = sorted(set(text))
    return chars, {c: i for i, c in enumerate(chars)}


def encode(torch: ModuleType, text: str = TEXT) -> Any:
    """The text as an int64 tensor of character ids."""
    _, stoi = char_vocab(text)
    return torch.tensor([stoi[c] for c in text], dtype=torch.int64)


def char_batches(torch: ModuleType, data: Any, seq: int, batch: int, g: Any) -> tuple[Any, Any]:
    """A random batch of (input, next-character target) windows."""
    starts = torch.randint(0, data.shape[0] - seq - 1, (batch,), generator=g)
    x = torch.stack([data[s:s + seq] for s in starts.tolist()])
    y = torch.stack([data[s + 1:s + seq + 1] for s in starts.tolist()])
    return x, y


def sample_text(torch: ModuleType, next_logits: Any, prompt: str, length: int, g: Any, dev: Any = "cpu") -> str:
    """Extend ``prompt`` by sampling ``length`` characters from ``next_logits(ids) -> logits``.

    The model runs on ``dev``; the draws are made on the CPU from ``g`` (the same on any device)."""
    chars, stoi = char_vocab()
    ids = [stoi[c] for c in prompt]
    with torch.no_grad():
        for _ in range(length):
            logits = next_logits(torch.tensor([ids], dtype=torch.int64).to(dev)).cpu()
            probs = torch.softmax(logits / 0.8, dim=-1)
            ids.append(int(torch.multinomial(probs, 1, generator=g).item()))
    return "".join(chars[i] for i in ids)


class Progress:
    """One line per report: step, loss and elapsed time."""

    def __init__(self, total: int, every: int) -> None:
        self.total, self.every, self.t0 = total, every, time.perf_counter()

    def __call__(self, step: int, loss: float, extra: str = "") -> None:
        if step % self.every == 0 or step == self.total:
            print(f"step {step:4d}/{self.total}  loss {loss:.4f}  {extra}"
                  f"({time.perf_counter() - self.t0:.1f} s)", flush=True)
