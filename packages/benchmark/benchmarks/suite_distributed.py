"""The "distributed" suite: collectives and DDP training steps on 2 ranks, PyTorch 2.13 with
gloo against ember on MPI, each row a pair of multi-process jobs (dist_job.py) started the same
way (torchrun's variables); FSDP2 rows shard every Linear/attention module and the root. The "local" rows are the
same step without DDP, in the same 2-rank job: a DDP row over its local row is the time DDP adds to a step."""

from __future__ import annotations

from harness import Bench

TITLES = {
    "distributed": "2 ranks: collectives and DDP steps (ratio = ember/torch time, lower is better; "
                   "throughput rows: torch/ember time, higher is better)",
}

BENCHES: list[Bench] = [
    Bench("distributed", "all_reduce 4 B latency", "job", "allreduce-4B", target=1.0, threads=None),
    Bench("distributed", "all_reduce 64 MB throughput", "job", "allreduce-64MB", target=1.0, threads=None),
    Bench("distributed", "DDP MLP 784-512-512-10 b128/rank SGD step", "job", "ddp-mlp", target=1.0,
          threads=None),
    Bench("distributed", "local MLP step (no DDP, same job)", "job", "local-mlp", threads=None),
    Bench("distributed", "DDP TransformerEncoderLayer d256 b16/rank AdamW step", "job", "ddp-transformer",
          target=1.0, threads=None),
    Bench("distributed", "local TransformerEncoderLayer step (no DDP, same job)", "job", "local-transformer",
          threads=None),
    Bench("distributed", "FSDP2 fully_shard TransformerEncoderLayer d256 b16/rank AdamW step", "job",
          "fsdp-transformer", target=1.0, threads=None),
    # Peak RSS growth per rank (MB in the time column) training a 200 MB-parameter MLP with Adam;
    # the target that matters, FSDP2/DDP <= 0.6 within one library, is the ratio of these rows.
    Bench("distributed", "peak MB/rank, 200 MB MLP + Adam, FSDP2 (MB, not s)", "job", "memory-fsdp",
          threads=None),
    Bench("distributed", "peak MB/rank, 200 MB MLP + Adam, DDP (MB, not s)", "job", "memory-ddp",
          threads=None),
    # Distributed checkpoint: EMBER_BENCH_DCP_MB (default 1024) in total, half per rank, fsynced.
    Bench("distributed", "DCP save 1 GB throughput", "job", "dcp-save", target=1.0, threads=None),
    Bench("distributed", "DCP load 1 GB throughput", "job", "dcp-load", target=1.0, threads=None),
]
