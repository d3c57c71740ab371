"""ember.fft's real-valued helpers (fftfreq, rfftfreq, fftshift, ifftshift) against PyTorch 2.13:
values bit for bit in every float dtype, dtypes, shapes, out=, and the errors."""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from typing import Any

import ember
import pytest

torch = pytest.importorskip("torch")


def _run(lib: Any, call: Callable[[Any], Any]) -> Any:
    try:
        r = call(lib)
    except Exception as e:  # noqa: BLE001 - the type and message are compared
        return type(e).__name__, str(e)
    vals = [v if not (isinstance(v, float) and math.isnan(v)) else "nan" for v in r.flatten().tolist()]
    return vals, str(r.dtype).split(".")[-1], tuple(r.shape), r.requires_grad


CASES: dict[str, Callable[[Any], Any]] = {
    "fftfreq": lambda L: L.fft.fftfreq(5),
    "fftfreq-d-dtype": lambda L: L.fft.fftfreq(4, d=0.5, dtype=L.float64),
    "rfftfreq-odd": lambda L: L.fft.rfftfreq(5),
    "rfftfreq-even": lambda L: L.fft.rfftfreq(4),
    "fftfreq-0": lambda L: L.fft.fftfreq(0),
    "fftfreq-1": lambda L: L.fft.fftfreq(1),
    "fftfreq-negative": lambda L: L.fft.fftfreq(-1),
    "rfftfreq-minus-1": lambda L: L.fft.rfftfreq(-1),
    "rfftfreq-minus-3": lambda L: L.fft.rfftfreq(-3),
    "requires-grad": lambda L: L.fft.fftfreq(3, requires_grad=True),
    "n-float": lambda L: L.fft.fftfreq(3.0),
    "n-bool": lambda L: L.fft.fftfreq(True),
    "n-0d-tensor": lambda L: L.fft.fftfreq(L.tensor(4)),
    "d-str": lambda L: L.fft.fftfreq(3, d="a"),
    "int-dtype": lambda L: L.fft.fftfreq(5, dtype=L.int64),
    "int-out": lambda L: L.fft.fftfreq(5, out=L.empty(5, dtype=L.int64)),
    "out-resized": lambda L: L.fft.rfftfreq(4, out=L.empty(0, dtype=L.float64)),
    "d-zero": lambda L: L.fft.fftfreq(4, 0.0),
    "d-minus-zero": lambda L: L.fft.fftfreq(4, -0.0),
    "half": lambda L: L.fft.fftfreq(7, 0.3, dtype=L.float16),
    "bfloat16": lambda L: L.fft.fftfreq(7, 0.3, dtype=L.bfloat16),
    "long": lambda L: L.fft.fftfreq(1000, 0.1),
    "shift-0d": lambda L: L.fft.fftshift(L.tensor(1.0)),
    "shift-0d-dim": lambda L: L.fft.fftshift(L.tensor(1.0), dim=0),
    "shift-0d-no-dims": lambda L: L.fft.fftshift(L.tensor(1.0), dim=()),
    "shift-dim-range": lambda L: L.fft.fftshift(L.ones(3), dim=2),
    "shift-dim-twice": lambda L: L.fft.fftshift(L.arange(6), dim=(0, 0)),
    "shift-empty": lambda L: L.fft.fftshift(L.ones(0, 3)),
    "shift-list": lambda L: L.fft.fftshift([1]),
    "shift-2d": lambda L: L.fft.fftshift(L.arange(10).reshape(2, 5)),
    "shift-transposed": lambda L: L.fft.fftshift(L.arange(12).reshape(3, 4).t()),
    "ishift-dim": lambda L: L.fft.ifftshift(L.arange(10).reshape(2, 5), dim=1),
    "ishift-negative-dim": lambda L: L.fft.ifftshift(L.arange(10).reshape(2, 5), dim=-1),
    "ishift-odd": lambda L: L.fft.ifftshift(L.arange(7), dim=[0]),
    "roundtrip": lambda L: L.fft.ifftshift(L.fft.fftshift(L.fft.fftfreq(9))),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_torch(name: str) -> None:
    assert _run(ember, CASES[name]) == _run(torch, CASES[name])


def test_random_sizes_and_spacings_bit_for_bit() -> None:
    rng = random.Random(0)
    for _ in range(300):
        n, d = rng.randint(0, 40), rng.choice([1.0, 0.3, 0.1, 2.5, -0.7, 1e-3, 7.0])
        dt, fn = rng.choice(["float16", "bfloat16", "float32", "float64"]), rng.choice(["fftfreq", "rfftfreq"])
        call: Callable[[Any], Any] = lambda L: getattr(L.fft, fn)(n, d, dtype=getattr(L, dt))  # noqa: E731
        assert _run(ember, call) == _run(torch, call), (fn, n, d, dt)


def test_shift_gradient() -> None:
    x = ember.arange(6.0, requires_grad=True)
    ember.fft.fftshift(x.reshape(2, 3)).mul(ember.arange(6.0).reshape(2, 3)).sum().backward()
    t = torch.arange(6.0, requires_grad=True)
    torch.fft.fftshift(t.reshape(2, 3)).mul(torch.arange(6.0).reshape(2, 3)).sum().backward()
    assert x.grad.tolist() == t.grad.tolist()
