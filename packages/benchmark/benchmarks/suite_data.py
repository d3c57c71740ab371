"""The "data" suite: ember.utils.data.DataLoader vs torch.utils.data.DataLoader.

Same format as suite_core.py: rows are data, statements are strings run against both
libraries (``lib.utils.data`` is each library's data package). One call of a throughput
statement is one whole epoch, so the ratio is ember's samples per second relative to
PyTorch's; worker processes are started (fork, the Linux default) and shut down inside
each epoch, as a plain ``for batch in loader`` does.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from types import ModuleType
from typing import Any

from harness import Bench

N = 100_000  # samples in the TensorDataset
FEATURES = 32
BATCH = 256
PY_ITEMS = 20_000  # samples in the per-item Python work dataset
PY_WORK = 100  # loop iterations of Python work per item

TITLES = {
    "data": f"DataLoader epochs, batch {BATCH} (ratio = torch/ember time, higher is better)",
    "data-latency": "DataLoader time to the first batch (ratio = ember/torch, lower is better)",
}


def _data(lib: ModuleType) -> ModuleType:
    return importlib.import_module(f"{lib.__name__}.utils.data")


def tensor_loader(workers: int, shuffle: bool = True) -> Callable[[ModuleType], dict[str, Any]]:
    """A TensorDataset of N float32 feature rows and int64 labels."""

    def setup(lib: ModuleType) -> dict[str, Any]:
        data = _data(lib)
        ds = data.TensorDataset(lib.randn(N, FEATURES), lib.arange(N))
        return {"loader": data.DataLoader(ds, batch_size=BATCH, shuffle=shuffle, num_workers=workers)}

    return setup


def python_work_loader(workers: int) -> Callable[[ModuleType], dict[str, Any]]:
    """A map-style dataset whose items cost some Python work and return a small tensor
    and an int label, the shape of a typical decode-and-transform dataset."""

    def setup(lib: ModuleType) -> dict[str, Any]:
        data = _data(lib)

        class PythonWork(data.Dataset):
            def __len__(self) -> int:
                return PY_ITEMS

            def __getitem__(self, i: int) -> tuple[Any, int]:
                acc = 0
                for k in range(PY_WORK):
                    acc += (i * k) % 7
                return lib.full((16,), float(acc)), acc % 10

        return {"loader": data.DataLoader(PythonWork(), batch_size=BATCH, shuffle=True, num_workers=workers)}

    return setup


EPOCH = "for _batch in loader: pass"


def _epochs() -> list[Bench]:
    return [
        Bench("data", f"TensorDataset {N // 1000}k, 0 workers", "throughput", EPOCH, tensor_loader(0),
              threads=1, target=1.0),
        Bench("data", f"TensorDataset {N // 1000}k, 2 workers", "throughput", EPOCH, tensor_loader(2),
              threads=1, target=1.0),
        Bench("data", f"TensorDataset {N // 1000}k, 2 workers, no shuffle", "throughput", EPOCH,
              tensor_loader(2, shuffle=False), threads=1, target=None),
        Bench("data", f"Python work/item {PY_ITEMS // 1000}k, 2 workers", "throughput", EPOCH,
              python_work_loader(2), threads=1, target=1.0),
        Bench("data", f"Python work/item {PY_ITEMS // 1000}k, 0 workers", "throughput", EPOCH,
              python_work_loader(0), threads=1, target=None),
    ]


def _latency() -> list[Bench]:
    # Start the workers, get one batch, shut them down: what `next(iter(loader))` costs.
    return [
        Bench("data-latency", "first batch, 2 workers", "overhead", "next(iter(loader))", tensor_loader(2),
              threads=1, target=1.0),
        Bench("data-latency", "first batch, 0 workers", "overhead", "next(iter(loader))", tensor_loader(0),
              threads=1, target=None),
    ]


BENCHES: list[Bench] = _epochs() + _latency()
