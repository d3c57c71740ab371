"""ember's tensorboard_trace_handler traces read by Holistic Trace Analysis (HTA), against a
PyTorch 2.13 trace of the same training script: same per-rank DataFrame columns, same op names
with the same counts, and the analyses that run on a CPU-only PyTorch trace run on ember's."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import warnings
from pathlib import Path
from typing import Any

import pytest

hta_trace_analysis = pytest.importorskip(
    "hta.trace_analysis", reason="HolisticTraceAnalysis is not installed (PROFILER_TEST_DEPS in noxfile.py)"
)
torch = pytest.importorskip("torch")

import ember  # noqa: E402

sys.path.insert(0, str(Path(__file__).parent))
from _train_script import profile_training  # noqa: E402

# HTA's breakdowns that need GPU kernels raise on a CPU-only PyTorch trace as on ember's.
ANALYSES = ["get_temporal_breakdown", "get_idle_time_breakdown", "get_comm_comp_overlap", "get_gpu_kernel_breakdown",
            "get_queue_length_summary", "get_cuda_kernel_launch_stats", "get_memory_bw_summary"]


def analyse(trace_dir: str) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return hta_trace_analysis.TraceAnalysis(trace_dir=trace_dir)


def names(analysis: Any, rank: int, cat: str | None = None) -> dict[str, int]:
    df = analysis.t.get_trace(rank)
    if cat is not None:
        df = df[df["cat"].map(analysis.t.symbol_table.get_sym_table().__getitem__) == cat]
    syms = analysis.t.symbol_table.get_sym_table()
    return df["name"].map(lambda i: syms[i]).value_counts().to_dict()


def outcome(analysis: Any, method: str) -> str:
    """The kind of result an analysis gives: its type (and shape), or the exception it raises."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            r = getattr(analysis, method)(visualize=False) if method in (
                "get_temporal_breakdown", "get_idle_time_breakdown", "get_comm_comp_overlap",
                "get_gpu_kernel_breakdown") else getattr(analysis, method)()
    except Exception as e:  # noqa: BLE001 - the exception type is the result being compared
        return f"raises {type(e).__name__}"
    if isinstance(r, tuple):
        return "tuple of " + ", ".join(type(x).__name__ for x in r)
    if isinstance(r, dict):
        return "dict of " + ", ".join(sorted({type(v).__name__ for v in r.values()}))
    return type(r).__name__


@pytest.fixture(scope="module")
def traces(tmp_path_factory: pytest.TempPathFactory) -> tuple[Any, Any]:
    root = tmp_path_factory.mktemp("hta")
    profile_training(torch, str(root / "torch"))
    profile_training(ember, str(root / "ember"))
    return analyse(str(root / "torch")), analyse(str(root / "ember"))


def test_trace_file_is_named_and_laid_out_as_torch(tmp_path: Path) -> None:
    profile_training(ember, str(tmp_path), worker="w0")
    (name,) = os.listdir(tmp_path)
    head, stamp, *rest = name.split(".")
    assert head == "w0" and stamp.isdigit() and rest == ["pt", "trace", "json"]
    trace = json.loads((tmp_path / name).read_text())
    assert list(trace)[:2] == ["schemaVersion", "deviceProperties"]
    assert trace["displayTimeUnit"] == "ms" and trace["record_shapes"] == 1 and "distributedInfo" not in trace
    cats = {e.get("cat") for e in trace["traceEvents"]}
    assert {"cpu_op", "user_annotation", "fwdbwd", "Trace"} <= cats
    meta = {e["name"] for e in trace["traceEvents"] if e["ph"] == "M"}
    assert {"process_name", "process_labels", "thread_name"} <= meta


def test_gzip_traces_are_read_too(tmp_path: Path) -> None:
    model = ember.nn.Linear(4, 2)
    handler = ember.profiler.tensorboard_trace_handler(str(tmp_path), worker_name="gz", use_gzip=True)
    with ember.profiler.profile(on_trace_ready=handler):  # no schedule: one trace, saved at exit
        model(ember.ones(3, 4)).sum().backward()
    (name,) = os.listdir(tmp_path)
    assert name.startswith("gz.") and name.endswith(".pt.trace.json.gz")
    assert "aten::linear" in names(analyse(str(tmp_path)), 0, "cpu_op")


def test_dataframe_columns_match_torch(traces: tuple[Any, Any]) -> None:
    t, e = traces
    assert list(t.t.traces) == list(e.t.traces) == [0]
    assert list(e.t.get_trace(0).columns) == list(t.t.get_trace(0).columns)


# The two traces' op names and counts (in HTA's DataFrame, which keeps two of the three recorded
# steps) are the same. ember's ops make the sub-op calls aten's make where that is their own
# structure (GEMM's resolve_conj, expand's and the reductions' as_strided, the reductions' fill_,
# the *_like factories' empty_like/empty_strided/fill_/zero_, relu's clamp_min, the reduced
# mse_loss's empty for its squared differences, mse_loss_backward's zeros_like and out= call, the
# mean's div_ by a wrapped number, AccumulateGrad's detach, SGD's add_ loop). Two calls aten makes
# for work ember skips -- the mean's count converted by `to` (to -> _to_copy -> empty_strided,
# copy_), the reduced mse_loss's result resize_d to 0-d and written through out= -- ember does
# while a profiler records (the same work, not just the events; results bitwise the same), so
# the profiler-off path keeps its speed.


def test_op_names_and_counts_match_torch(traces: tuple[Any, Any]) -> None:
    t, e = traces
    assert names(e, 0, "user_annotation") == names(t, 0, "user_annotation")
    ours, theirs = names(e, 0, "cpu_op"), names(t, 0, "cpu_op")
    differing = {k: (ours.get(k, 0), theirs.get(k, 0)) for k in set(ours) | set(theirs) if ours.get(k) != theirs.get(k)}
    assert not differing, differing
    # the forward ops, the ops inside linear and inside the backward formulas, the engine's ranges,
    # the optimizer's per-parameter add_
    for name in ("aten::linear", "aten::t", "aten::transpose", "aten::addmm", "aten::expand", "aten::mm",
                 "aten::relu", "aten::clamp_min", "aten::mse_loss", "aten::empty", "aten::mean", "aten::threshold_backward", "aten::view", "aten::add_",
                 "AddmmBackward0", "MseLossBackward0", "autograd::engine::evaluate_function: AddmmBackward0",
                 "torch::autograd::AccumulateGrad", "autograd::engine::evaluate_function: ReluBackward0"):
        assert name in theirs and name not in differing, name


@pytest.mark.parametrize("method", ANALYSES)
def test_analyses_give_the_same_kind_of_result(traces: tuple[Any, Any], method: str) -> None:
    t, e = traces
    assert outcome(e, method) == outcome(t, method)


RANK_SCRIPT = r"""
import os, sys
sys.path.insert(0, sys.argv[2])
import ember
import ember.distributed as dist
from _train_script import profile_training
dist.init_process_group("gloo")
profile_training(ember, sys.argv[1], worker=f"rank{dist.get_rank()}", all_reduce=dist.all_reduce)
dist.destroy_process_group()
"""


def test_multi_rank_traces_carry_distributed_info(tmp_path: Path) -> None:
    pytest.importorskip("mpi4py", reason="ember-distributed's engine (mpi4py) is not installed")
    pytest.importorskip("ember.distributed")
    script = tmp_path / "rank.py"
    script.write_text(RANK_SCRIPT)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    out = tmp_path / "traces"
    procs = []
    for r in range(2):
        env = {k: v for k, v in os.environ.items() if not k.startswith(("PMI_", "MPI_", "HYDRA_"))}
        env.update(RANK=str(r), WORLD_SIZE="2", LOCAL_RANK=str(r), MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port),
                   OMP_NUM_THREADS="1")
        procs.append(subprocess.Popen([sys.executable, str(script), str(out), str(Path(__file__).parent)], env=env,
                                      stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                      start_new_session=True))
    try:
        logs = [p.communicate(timeout=120)[0] for p in procs]
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
    assert [p.returncode for p in procs] == [0, 0], "\n".join(logs)
    files = sorted(os.listdir(out))
    assert len(files) == 2 and all(f.endswith(".pt.trace.json") for f in files)
    for r, f in enumerate(files):
        info = json.loads((out / f).read_text())["distributedInfo"]
        assert info["rank"] == r and info["world_size"] == 2 and info["backend"] == "gloo"
        assert info["pg_config"][0]["ranks"] == [0, 1]
    a = analyse(str(out))
    assert sorted(a.t.traces) == [0, 1]
    for r in (0, 1):
        assert names(a, r, "user_annotation")["Optimizer.step#SGD.step"] > 0
