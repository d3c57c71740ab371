"""One multi-process benchmark job of the "distributed" suite (harness kind ``job``).

    python dist_job.py --lib ember --row allreduce-4B --ranks 2 --rounds 5 --out res.json

starts ``--ranks`` processes with torchrun's variables (RANK, WORLD_SIZE, MASTER_ADDR,
MASTER_PORT): PyTorch's join with gloo, ember's through its store and MPI rendezvous. Every rank
runs the row's step the same number of times (collectives must match), timed in rounds between
barriers; rank 0 writes the seconds per round and the calls per round as JSON.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from types import ModuleType
from typing import Any

MLP_BATCH, TRANSFORMER_BATCH = 128, 16
# Total checkpoint size of the DCP rows (split evenly over the ranks); adjustable for small machines.
DCP_MB = int(os.environ.get("EMBER_BENCH_DCP_MB", "1024"))
_CLEANUP: list[Callable[[], None]] = []


def _mlp(lib: ModuleType) -> tuple[Any, Callable[[Any], None]]:
    nn, optim = lib.nn, importlib.import_module(lib.__name__ + ".optim")
    lib.manual_seed(0)
    model = nn.Sequential(nn.Linear(784, 512), nn.ReLU(), nn.Linear(512, 512), nn.ReLU(), nn.Linear(512, 10))
    x, y = lib.randn(MLP_BATCH, 784), lib.randint(0, 10, (MLP_BATCH,))
    loss = nn.CrossEntropyLoss()

    def make_step(m: Any) -> Callable[[], None]:
        opt = optim.SGD(m.parameters(), lr=0.01, momentum=0.9)

        def step() -> None:
            opt.zero_grad()
            loss(m(x), y).backward()
            opt.step()

        return step

    return model, make_step


def _transformer(lib: ModuleType) -> tuple[Any, Callable[[Any], None]]:
    nn, optim = lib.nn, importlib.import_module(lib.__name__ + ".optim")
    lib.manual_seed(0)
    layer = nn.TransformerEncoderLayer(256, 4, dim_feedforward=1024, dropout=0.1, batch_first=True)
    x = lib.randn(TRANSFORMER_BATCH, 128, 256)

    def make_step(m: Any) -> Callable[[], None]:
        opt = optim.AdamW(m.parameters(), lr=1e-4)

        def step() -> None:
            opt.zero_grad()
            m(x).square().mean().backward()
            opt.step()

        return step

    return layer, make_step


def _fsdp(lib: ModuleType, model: Any) -> Any:
    """FSDP2: every Linear/attention submodule its own group (bottom-up), the root last."""
    fully_shard = importlib.import_module(lib.__name__ + ".distributed.fsdp").fully_shard
    for m in list(model.modules())[1:]:
        if type(m).__name__ in ("Linear", "MultiheadAttention") and \
                not any(type(p).__name__ == "DTensor" for p in m.parameters()):
            fully_shard(m)
    return fully_shard(model)


MEMORY_WIDTH, MEMORY_LAYERS = 2500, 8  # 8 x (2500 x 2500 + 2500) float32 = 200 MB of parameters


def _rss_mb() -> float:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def _memory_run(lib: ModuleType, dist: ModuleType, strategy: str) -> float:
    """Peak RSS growth (MB) of this rank over 3 Adam steps of the 200 MB MLP under ``strategy``."""
    import resource

    nn, optim = lib.nn, importlib.import_module(lib.__name__ + ".optim")
    base = _rss_mb()
    lib.manual_seed(0)
    layers = []
    for _ in range(MEMORY_LAYERS):
        layers += [nn.Linear(MEMORY_WIDTH, MEMORY_WIDTH), nn.ReLU()]
    model = nn.Sequential(*layers)
    if strategy == "fsdp":
        model = _fsdp(lib, model)
    else:
        model = importlib.import_module(lib.__name__ + ".nn.parallel").DistributedDataParallel(model)
    opt = optim.Adam(model.parameters(), lr=1e-4)
    x = lib.randn(8, MEMORY_WIDTH)
    for _ in range(3):
        opt.zero_grad()
        model(x).square().mean().backward()
        opt.step()
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return peak - base


def _dcp(lib: ModuleType, dist: ModuleType, row: str) -> tuple[Callable[[], None], int]:
    """DCP save or load of DCP_MB in total: each rank its own 64 MB tensors (a sharded model's
    pattern: no replicated data), into a fresh directory under /tmp with fsync, as by default."""
    import shutil

    dcp = importlib.import_module(lib.__name__ + ".distributed.checkpoint")
    r, n = dist.get_rank(), dist.get_world_size()
    per_rank = DCP_MB * (1 << 20) // n
    chunk = min(per_rank, 64 << 20) // 4
    sd = {f"r{r}.w{i}": lib.full((chunk,), float(i)) for i in range(max(1, per_rank // (chunk * 4)))}
    path = f"/tmp/dcp_bench_{lib.__name__}_{os.environ['MASTER_PORT']}"
    if r == 0:
        _CLEANUP.append(lambda: shutil.rmtree(path, ignore_errors=True))
    if row == "dcp-save":
        return (lambda: dcp.save(sd, checkpoint_id=path)), 1
    dcp.save(sd, checkpoint_id=path)
    return (lambda: dcp.load(sd, checkpoint_id=path)), 1


def _step(lib: ModuleType, dist: ModuleType, row: str) -> tuple[Callable[[], None], int]:
    """The statement of ``row`` and its calls per timed round."""
    if row.startswith("fsdp-transformer"):
        model, make_step = _transformer(lib)
        return make_step(_fsdp(lib, model)), 2
    if row.startswith("dcp-"):
        return _dcp(lib, dist, row)
    if row.startswith("allreduce-"):
        n = 1 if row == "allreduce-4B" else 16 * 1024 * 1024
        t = lib.ones(n)
        return (lambda: dist.all_reduce(t)), (500 if n == 1 else 2)
    model, make_step = (_mlp if "mlp" in row else _transformer)(lib)
    if row.startswith("local-"):
        return make_step(model), 5 if "mlp" in row else 2
    ddp = importlib.import_module(lib.__name__ + ".nn.parallel").DistributedDataParallel(model)
    return make_step(ddp), 5 if "mlp" in row else 2


def rank_main(args: argparse.Namespace) -> None:
    import warnings

    warnings.filterwarnings("ignore", message="Detected an existing checkpoint")
    lib = importlib.import_module(args.lib)
    lib.set_num_threads(1)
    dist = importlib.import_module(args.lib + ".distributed")
    dist.init_process_group("gloo")
    if args.row.startswith("memory-"):  # peak memory, reported in the times' place (MB)
        peak = _memory_run(lib, dist, args.row.split("-", 1)[1])
        peaks: list[Any] = [None] * dist.get_world_size()
        dist.all_gather_object(peaks, peak)
        if dist.get_rank() == 0:
            with open(args.out, "w") as f:
                json.dump({"raw_times": [max(peaks)] * args.rounds, "number_per_run": 1}, f)
        dist.destroy_process_group()
        if args.lib == "torch":
            sys.stdout.flush()
            os._exit(0)
        return
    step, per_round = _step(lib, dist, args.row)
    for _ in range(max(2, per_round // 4)):  # warm-up (lazy allocation, first buckets)
        step()
    times = []
    for _ in range(args.rounds):
        dist.barrier()
        t0 = time.perf_counter()
        for _ in range(per_round):
            step()
        times.append(time.perf_counter() - t0)
    all_times: list[Any] = [None] * dist.get_world_size()
    dist.all_gather_object(all_times, times)
    if dist.get_rank() == 0:  # a round lasts as long as its slowest rank
        worst = [max(ts[i] for ts in all_times) for i in range(args.rounds)]
        with open(args.out, "w") as f:
            json.dump({"raw_times": worst, "number_per_run": per_round}, f)
    dist.barrier()
    for fn in _CLEANUP:
        fn()
    dist.destroy_process_group()
    if args.lib == "torch":
        # PyTorch 2.13's gloo sometimes aborts at interpreter exit after a DDP run ("terminate
        # called without an active exception"); the measurement is written by then.
        sys.stdout.flush()
        os._exit(0)


def launch(args: argparse.Namespace) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    procs = []
    for r in range(args.ranks):
        env = {**os.environ, "RANK": str(r), "LOCAL_RANK": str(r), "WORLD_SIZE": str(args.ranks),
               "MASTER_ADDR": "127.0.0.1", "MASTER_PORT": str(port), "OMP_NUM_THREADS": "1"}
        procs.append(subprocess.Popen([sys.executable, __file__, "--as-rank", *sys.argv[1:]], env=env))
    codes = [p.wait(timeout=600) for p in procs]
    if any(codes):
        raise SystemExit(f"dist_job: ranks exited with {codes}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--lib", required=True)
    ap.add_argument("--row", required=True)
    ap.add_argument("--ranks", type=int, default=2)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--out", required=True)
    ap.add_argument("--as-rank", action="store_true")
    args = ap.parse_args()
    (rank_main if args.as_rank else launch)(args)


if __name__ == "__main__":
    main()
