"""The "serialization" suite: save/load of a ~100 MB state_dict and DLPack round trips.

Same format as suite_core.py: rows are data, statements are strings run
against both libraries.  Files go to one temporary directory (removed at
exit), and each library saves to / loads from its own file in it, so both see
the same filesystem.

``ember.save`` is durable: it fsyncs a temporary file and renames it over the
target.  ``torch.save`` does not fsync, so the target row times torch.save
followed by an fsync of the file (the same guarantee); an informative row
shows plain torch.save as well.
"""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
from collections.abc import Callable
from types import ModuleType
from typing import Any

from harness import Bench

TENSORS, NUMEL = 25, 1 << 20  # 25 float32 tensors of 4 MiB: 100 MiB
TITLES = {
    "serialization": f"save/load a {TENSORS * NUMEL * 4 >> 20} MiB state_dict "
                     "(ratio = torch/ember time, higher is better)",
    "dlpack": "DLPack exchange, 1 tensor (time per call; ratio = ember/torch, lower is better)",
}

_tmp: list[str] = []


def _dir() -> str:
    if not _tmp:
        _tmp.append(tempfile.mkdtemp(prefix="ember-bench-ser-"))
        atexit.register(shutil.rmtree, _tmp[0], True)
    return _tmp[0]


def _fsync(path: str) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _state_dict(lib: ModuleType) -> dict[str, Any]:
    return {f"layer{i}.weight": lib.randn(NUMEL) for i in range(TENSORS)}


def _is_torch(lib: ModuleType) -> bool:
    return lib.__name__ == "torch"


def save_setup(durable: bool) -> Callable[[ModuleType], dict[str, Any]]:
    """``save(sd, path)``: ember.save, or torch.save (+ fsync when ``durable``)."""

    def setup(lib: ModuleType) -> dict[str, Any]:
        path = os.path.join(_dir(), f"{lib.__name__}-{'durable' if durable else 'plain'}.pt")
        if _is_torch(lib) and durable:
            def save(obj: Any, p: str) -> None:
                lib.save(obj, p)
                _fsync(p)
        else:
            save = lib.save
        return {"sd": _state_dict(lib), "path": path, "save": save}

    return setup


def load_setup(lib: ModuleType) -> dict[str, Any]:
    path = os.path.join(_dir(), f"{lib.__name__}-load.pt")
    lib.save(_state_dict(lib), path)
    return {"path": path}


def dlpack_setup(lib: ModuleType) -> dict[str, Any]:
    import importlib

    dl = importlib.import_module(f"{lib.__name__}.utils.dlpack")
    return {"a": lib.randn(64, 64), "to_dlpack": dl.to_dlpack, "from_dlpack": dl.from_dlpack}


def _serialization() -> list[Bench]:
    return [
        Bench("serialization", "save (torch.save + fsync)", "throughput", "save(sd, path)",
              save_setup(durable=True), threads=1, target=1.0),
        Bench("serialization", "save (torch.save, no fsync)", "throughput", "save(sd, path)",
              save_setup(durable=False), threads=1, target=None),
        Bench("serialization", "load", "throughput", "lib.load(path)", load_setup, threads=1, target=1.0),
        Bench("serialization", "load (mmap=True)", "throughput", "lib.load(path, mmap=True)", load_setup,
              threads=1, target=None),
    ]


def _dlpack() -> list[Bench]:
    return [
        Bench("dlpack", "from_dlpack(to_dlpack(a))", "overhead", "from_dlpack(to_dlpack(a))", dlpack_setup,
              threads=1, target=1.0),
        Bench("dlpack", "lib.from_dlpack(a)", "overhead", "lib.from_dlpack(a)", dlpack_setup,
              threads=1, target=None),
    ]


BENCHES: list[Bench] = _serialization() + _dlpack()
