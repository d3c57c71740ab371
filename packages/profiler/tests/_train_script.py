"""The training script both libraries profile for the trace-consumer tests (HTA, TensorBoard):
Linear-ReLU-Linear, mse_loss, SGD; one warm-up step then three recorded ones, written by
tensorboard_trace_handler. Run as `python _train_script.py torch|ember OUT_DIR [WORKER]`."""

from __future__ import annotations

import importlib
import sys
from typing import Any

STEPS = 4  # schedule(wait=0, warmup=1, active=3)


def profile_training(lib: Any, out_dir: str, worker: str = "worker0", all_reduce: Any = None) -> None:
    """Profile the script with `lib` (torch or ember); all_reduce(tensor) runs once per step if given."""
    nn = importlib.import_module(f"{lib.__name__}.nn")
    prof = lib.profiler
    lib.manual_seed(0)
    model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 4))
    opt = lib.optim.SGD(model.parameters(), lr=0.1)
    x, y = lib.randn(32, 8), lib.randn(32, 4)
    with prof.profile(
        activities=[prof.ProfilerActivity.CPU],
        schedule=prof.schedule(wait=0, warmup=1, active=STEPS - 1),
        on_trace_ready=prof.tensorboard_trace_handler(out_dir, worker_name=worker),
        record_shapes=True,
    ) as p:
        for _ in range(STEPS):
            opt.zero_grad()
            loss = nn.functional.mse_loss(model(x), y)
            loss.backward()
            if all_reduce is not None:
                all_reduce(model[0].weight.grad)
            opt.step()
            p.step()


if __name__ == "__main__":
    profile_training(importlib.import_module(sys.argv[1]), sys.argv[2], *sys.argv[3:4])
