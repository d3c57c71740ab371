"""The bottleneck CLI: environment summary, cProfile run, then an autograd-profiler run."""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import subprocess
import sys
from typing import Any

RULE = "-" * 80

DESCRIPTION = """
`bottleneck` is a tool that can be used as an initial step for debugging
bottlenecks in your program.

It summarizes runs of your script with the Python profiler and ember's
autograd profiler. Because your script will be profiled, please ensure that it
exits in a finite amount of time.

Your script runs two times (three when CUDA is available), so any side effects
it has are repeated. For more complicated uses of the profilers, please see
ember.profiler / ember.autograd.profiler.
""".strip()

VALID_SORT_KEYS = ("cpu_time", "cuda_time", "cpu_time_total", "cuda_time_total", "count")


def section(title: str) -> str:
    return f"{RULE}\n  {title}\n{RULE}"


def _pip_list() -> str:
    # Only packages relevant to a numerical-Python run are interesting here.
    try:
        out = subprocess.run([sys.executable, "-m", "pip", "list", "--format=freeze"], capture_output=True,
                             text=True, timeout=60, check=False).stdout
    except (OSError, subprocess.SubprocessError):
        return "Unable to fetch"
    lines = [ln for ln in out.splitlines() if any(k in ln.lower() for k in ("ember", "torch", "numpy"))]
    return "\n".join(lines) if lines else "Unable to fetch"


def _cuda_available() -> bool:
    import ember

    cuda = getattr(ember, "cuda", None)
    try:
        return bool(cuda is not None and cuda.is_available())
    except Exception:  # noqa: BLE001 - a broken CUDA probe means "no CUDA" here
        return False


def run_env_analysis() -> str:
    """The "Environment Summary" section's text."""
    print("Running environment analysis...")
    import ember

    version = getattr(ember, "__version__", "unknown")
    debug = " DEBUG" if getattr(getattr(ember, "version", None), "debug", False) else ""
    cuda_version = getattr(getattr(ember, "version", None), "cuda", None)
    compiled = f"compiled w/ CUDA {cuda_version}" if cuda_version else "not compiled w/ CUDA"
    runtime = "CUDA runtime available" if _cuda_available() else ""
    py = f"{sys.version_info.major}.{sys.version_info.minor}"
    return (
        f"{section('Environment Summary')}\n"
        f"ember {version}{debug} {compiled}\n"
        f"Running with Python {py} and {runtime}\n\n"
        f"`pip3 list` truncated output:\n{_pip_list()}\n"
    )


def run_cprofile(code: Any, globs: dict[str, Any]) -> cProfile.Profile:
    print("Running your script with cProfile")
    prof = cProfile.Profile()
    prof.enable()
    try:
        exec(code, globs, None)
    finally:
        prof.disable()
    return prof


def print_cprofile_summary(prof: cProfile.Profile, sortby: str = "tottime", topk: int = 15) -> None:
    print(section("cProfile output"))
    stats = pstats.Stats(prof, stream=sys.stdout)
    stats.sort_stats(sortby)
    stats.print_stats(topk)


def run_autograd_prof(code: Any, globs: dict[str, Any], use_cuda: bool) -> Any:
    from ember.profiler.legacy import profile

    with profile(use_cuda=use_cuda) as prof:
        exec(code, globs, None)
    return prof


def autograd_summary(prof: Any, mode: str, sortby: str = "cpu_time", topk: int = 15) -> str:
    from ember.profiler import EventList

    if sortby not in VALID_SORT_KEYS:
        print(
            f"WARNING: invalid sorting option for autograd profiler results: {sortby}\n"
            "Expected `cpu_time`, `cpu_time_total`, or `count`. Defaulting to `cpu_time`."
        )
        sortby = "cpu_time"
    note = ""
    if mode == "CUDA":
        note = (
            "\n\tBecause the autograd profiler uses the CUDA event API,\n"
            "\tthe CUDA time column reports approximately max(cuda_time, cpu_time).\n"
            "\tPlease ignore this output if your code does not use CUDA.\n"
        )
    events = sorted(prof.function_events, key=lambda e: getattr(e, sortby), reverse=True)[:topk]
    table = EventList(events).table()
    return (
        f"\n{section(f'autograd profiler output ({mode} mode)')}\n"
        f"        top {topk} events sorted by {sortby}\n{note}\n{table}\n"
    )


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """The command line of ``python -m ember.utils.bottleneck SCRIPT [ARGS...]``, parsed."""
    parser = argparse.ArgumentParser(prog="python -m ember.utils.bottleneck", description=DESCRIPTION,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("scriptfile", type=str,
                        help="Path to the script to be run. Usually run with `python path/to/script`.")
    parser.add_argument("args", type=str, nargs=argparse.REMAINDER,
                        help="Command-line arguments to be passed to the script.")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> None:
    """The bottleneck tool: runs the script once under cProfile and once under ember's autograd
    profiler and prints the environment, the top functions and the top ops.
    """
    args = parse_args(argv)
    scriptfile = args.scriptfile
    sys.argv = [scriptfile, *args.args]
    sys.path.insert(0, os.path.dirname(os.path.abspath(scriptfile)))
    with open(scriptfile, "rb") as fh:
        code = compile(fh.read(), scriptfile, "exec")

    def fresh_globals() -> dict[str, Any]:
        return {"__file__": scriptfile, "__name__": "__main__", "__package__": None, "__cached__": None}

    print(DESCRIPTION)
    env = run_env_analysis()
    cuda = _cuda_available()
    if cuda:
        import ember

        ember.cuda.init()  # so CUDA start-up isn't charged to the script
    cprof = run_cprofile(code, fresh_globals())
    print("Running your script with the autograd profiler...")
    prof_cpu = run_autograd_prof(code, fresh_globals(), False)
    prof_cuda = run_autograd_prof(code, fresh_globals(), True) if cuda else None

    print(env)
    print_cprofile_summary(cprof)
    for text in autograd_sections(prof_cpu, prof_cuda):
        print(text)


def _cpu_time_total(prof: Any) -> float:
    return sum(e.cpu_time_total for e in prof.function_events)


def autograd_sections(prof_cpu: Any, prof_cuda: Any | None) -> list[str]:
    """The autograd-profiler sections: CPU mode alone without CUDA; with CUDA the CUDA-mode table,
    preceded by the CPU-mode one only when the two runs' totals differ by more than 5%."""
    if prof_cuda is None:
        return [autograd_summary(prof_cpu, "CPU", "cpu_time_total")]
    out = []
    cuda_total = _cpu_time_total(prof_cuda)
    if prof_cpu.function_events and cuda_total:
        if abs(cuda_total - _cpu_time_total(prof_cpu)) / cuda_total > 0.05:
            out.append(autograd_summary(prof_cpu, "CPU", "cpu_time_total"))
    out.append(autograd_summary(prof_cuda, "CUDA", "cpu_time_total"))
    return out
