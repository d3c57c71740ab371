"""``ember-timer`` (also ``python -m ember.utils.benchmark``): Timer from the shell, like ``python -m timeit``.

Exit status: 0 on success, 1 when the statement or setup raised (traceback on
stderr) or Callgrind is unavailable, 2 for usage errors.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import linecache
import os
import sys
import threading
import time
import traceback
from collections.abc import Callable, Sequence
from typing import IO, Any

from ember.utils.benchmark.utils.common import Measurement, TaskSpec
from ember.utils.benchmark.utils.compare import Compare

_EPILOG = """\
examples:
  ember-timer -s "x = torch.ones(1000)" "x.sum()"
  ember-timer -t 1 -t 2 -s "a = torch.randn(512, 512)" "a @ a"     # one row per thread count
  ember-timer --json run.json "torch.ones(10)"; ember-timer --compare-json old.json run.json
  ember-timer --callgrind -s "x = torch.ones(4)" "x + x"
"""

# Keys of one saved measurement (`--json`); `--compare-json` reads them back.
_JSON_KEYS = ("label", "sub_label", "description", "env", "stmt", "setup", "num_threads", "number_per_run",
              "raw_times", "times", "median", "mean", "iqr", "has_warnings")


class _ExitError(Exception):
    """A failure reported as one line on stderr, with the given exit status."""

    def __init__(self, message: str, status: int) -> None:
        super().__init__(message)
        self.status = status


def _positive(kind: type) -> Callable[[str], Any]:
    def parse(text: str) -> Any:
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"invalid {kind.__name__} value: {text!r}") from None
        if not value > 0:
            raise argparse.ArgumentTypeError(f"must be > 0, got {text}")
        return value

    parse.__name__ = kind.__name__  # argparse names the type in its messages
    return parse


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="ember-timer",
        description="Time ember statements with ember.utils.benchmark.Timer.",
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("stmt", nargs="*", help="statement(s) to time, joined with newlines (default: pass)")
    p.add_argument("-s", "--setup", action="append", default=[], metavar="SETUP",
                   help="setup code run before timing; repeatable, joined with newlines (default: pass)")
    mode = p.add_mutually_exclusive_group()
    mode.add_argument("-n", "--number", type=_positive(int), metavar="N",
                      help="Timer.timeit(N): one block of N executions after a short warm-up")
    mode.add_argument("--min-run-time", type=_positive(float), metavar="SEC",
                      help="Timer.blocked_autorange(min_run_time=SEC); the default mode, SEC=0.2")
    mode.add_argument("--adaptive", action="store_true",
                      help="Timer.adaptive_autorange: measure until the IQR is below --threshold x median")
    mode.add_argument("--callgrind", action="store_true",
                      help="count instructions with Timer.collect_callgrind instead of timing (needs valgrind)")
    p.add_argument("--threshold", type=_positive(float), metavar="T", help="with --adaptive (default 0.1)")
    p.add_argument("--max-run-time", type=_positive(float), metavar="SEC", help="with --adaptive (default 10)")
    p.add_argument("--callgrind-number", type=_positive(int), metavar="N",
                   help="with --callgrind: executions per profile (default 100)")
    p.add_argument("-t", "--num-threads", type=_positive(int), action="append", metavar="N",
                   help="ember threads while measuring; repeat for one measurement per value (default 1)")
    p.add_argument("--label", help="Timer label (the Compare table's title)")
    p.add_argument("--sub-label", help="Timer sub_label (the Compare row name)")
    p.add_argument("--description", help="Timer description (the Compare column)")
    p.add_argument("--env", help="Timer env (tags A/B runs of the same statement)")
    p.add_argument("--language", choices=("python", "cpp"), default="python",
                   help="cpp compiles the statement through ember-cpp-extension")
    p.add_argument("--global-setup", default="", metavar="CODE", help="C++ only: code at file scope (#includes)")
    p.add_argument("--json", metavar="PATH", help="save the measurements as JSON ('-' = stdout)")
    p.add_argument("--compare-json", nargs="+", metavar="PATH",
                   help="no timing: show saved --json runs side by side in one Compare table")
    p.add_argument("-q", "--quiet", action="store_true", help="print only each median, in seconds")
    return p


def _check_usage(p: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    if (args.threshold is not None or args.max_run_time is not None) and not args.adaptive:
        p.error("--threshold and --max-run-time only apply with --adaptive")
    if args.callgrind_number is not None and not args.callgrind:
        p.error("--callgrind-number only applies with --callgrind")
    if args.callgrind and args.json:
        p.error("--json saves timings; it cannot be combined with --callgrind")
    if args.compare_json:
        measuring = [
            name for name, given in (
                ("a statement", args.stmt), ("--setup", args.setup), ("-n", args.number is not None),
                ("--min-run-time", args.min_run_time is not None), ("--adaptive", args.adaptive),
                ("--callgrind", args.callgrind), ("-t", args.num_threads), ("--json", args.json),
            ) if given
        ]
        if measuring:
            p.error(f"--compare-json only shows saved results; it does not take {', '.join(measuring)}")


# ---------------------------------------------------------------------------------------- progress


class _Progress:
    """A status line on stderr once a measurement has run for more than a second."""

    DELAY = 1.0

    def __init__(self, what: str, stream: IO[str], enabled: bool) -> None:
        self._what = what
        self._stream = stream
        self._enabled = enabled
        self._tty = enabled and stream.isatty()
        self._blocks = 0
        self._number = 0
        self._start = time.perf_counter()
        self._stop = threading.Event()
        self._shown = False
        self._thread = threading.Thread(target=self._run, daemon=True)

    def block(self, number: int, seconds: float) -> None:
        """Timer callback: one more block of ``number`` executions was timed."""
        self._blocks += 1
        self._number = number

    def _line(self) -> str:
        elapsed = time.perf_counter() - self._start
        blocks = f", {self._blocks} blocks of {self._number}" if self._blocks else ""
        return f"ember-timer: measuring {self._what}: {elapsed:.1f} s{blocks}"

    def _run(self) -> None:
        # A waiting thread holds no GIL: the measurement is only interrupted to print.
        if self._stop.wait(self.DELAY):
            return
        interval = 0.5 if self._tty else 10.0
        while True:
            self._shown = True
            end = "\r" if self._tty else "\n"
            self._stream.write(("\033[2K" if self._tty else "") + self._line() + end)
            self._stream.flush()
            if self._stop.wait(interval):
                return

    def __enter__(self) -> _Progress:
        if self._enabled:
            self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        if self._enabled:
            self._thread.join()
        if self._shown and self._tty:
            self._stream.write("\033[2K\r")  # clear the status line before results are printed
            self._stream.flush()


# ---------------------------------------------------------------------------------------- json


def _to_json(m: Measurement) -> dict[str, Any]:
    spec = m.task_spec
    return {
        "label": spec.label, "sub_label": spec.sub_label, "description": spec.description, "env": spec.env,
        "stmt": spec.stmt, "setup": spec.setup, "num_threads": spec.num_threads,
        "number_per_run": m.number_per_run, "raw_times": list(m.raw_times), "times": m.times,
        "median": m.median, "mean": m.mean, "iqr": m.iqr, "has_warnings": m.has_warnings,
    }


def _from_json(obj: Any, where: str) -> Measurement:
    if not isinstance(obj, dict):
        raise ValueError(f"{where}: expected an object, got {type(obj).__name__}")
    missing = [k for k in ("stmt", "setup", "num_threads", "number_per_run", "raw_times") if k not in obj]
    if missing:
        raise ValueError(f"{where}: missing {', '.join(missing)}")
    raw = obj["raw_times"]
    if not isinstance(raw, list) or not raw or not all(isinstance(t, (int, float)) for t in raw):
        raise ValueError(f"{where}: raw_times must be a non-empty list of numbers")
    spec = TaskSpec(stmt=obj["stmt"], setup=obj["setup"], label=obj.get("label"), sub_label=obj.get("sub_label"),
                    description=obj.get("description"), env=obj.get("env"), num_threads=int(obj["num_threads"]))
    return Measurement(number_per_run=int(obj["number_per_run"]), raw_times=[float(t) for t in raw], task_spec=spec)


def load_json(path: str) -> list[Measurement]:
    """Measurements saved by ``ember-timer --json``."""
    with open(path) as f:
        data = json.load(f)
    if not isinstance(data, list):
        raise ValueError("expected a JSON list of measurements")
    return [_from_json(obj, f"entry {i}") for i, obj in enumerate(data)]


def _names_for(paths: Sequence[str]) -> list[str]:
    """Short distinct names for the files: the base name without .json, else the path as given."""
    stems = [os.path.splitext(os.path.basename(p))[0] for p in paths]
    return stems if len(set(stems)) == len(stems) else list(paths)


def _compare_saved(paths: Sequence[str]) -> list[Measurement]:
    runs = []
    for path in paths:
        try:
            runs.append(load_json(path))
        except (OSError, ValueError) as e:  # json.JSONDecodeError is a ValueError
            raise _ExitError(f"--compare-json: cannot read {path}: {e}", 2) from None
    if len(runs) == 1:
        return runs[0]
    # Several files: each file gets its own column, so equal tasks sit side by side
    # instead of being pooled as replicates.
    out = []
    for name, run in zip(_names_for(paths), runs, strict=True):
        for m in run:
            d = m.task_spec.description
            spec = dataclasses.replace(m.task_spec, description=name if d is None else f"{d} ({name})")
            out.append(Measurement(m.number_per_run, m.raw_times, spec))
    return out


# ---------------------------------------------------------------------------------------- measuring


def _make_timer(args: argparse.Namespace, stmt: str, setup: str, threads: int) -> Any:
    from ember.utils.benchmark.utils.timer import Timer

    try:
        return Timer(stmt=stmt, setup=setup, global_setup=args.global_setup, label=args.label,
                     sub_label=args.sub_label, description=args.description, env=args.env,
                     num_threads=threads, language=args.language)
    except ValueError as e:  # our own argument validation (e.g. --global-setup with python)
        raise _ExitError(str(e), 2) from None
    except ImportError as e:  # --language cpp without a capable ember-cpp-extension
        raise _ExitError(str(e), 1) from None


def _measure(args: argparse.Namespace, timer: Any, err: IO[str]) -> Any:
    spec = timer._task_spec
    threads = spec.num_threads
    what = f"{spec.title.splitlines()[0]} ({threads} thread{'s' if threads > 1 else ''})"
    with _Progress(what, err, enabled=not args.quiet) as progress:
        if args.callgrind:
            try:
                return timer.collect_callgrind(number=args.callgrind_number or 100)
            except OSError as e:
                # Callgrind's own failures; an OSError raised by the statement itself stays a traceback.
                if str(e).startswith(("Missing:", "Valgrind is not supported", "Failed to collect callgrind")):
                    raise _ExitError(f"--callgrind: {e}", 1) from None
                raise
        if args.number is not None:
            return timer.timeit(args.number)
        if args.adaptive:
            return timer.adaptive_autorange(
                threshold=0.1 if args.threshold is None else args.threshold,
                max_run_time=10.0 if args.max_run_time is None else args.max_run_time,
                callback=progress.block,
            )
        return timer.blocked_autorange(callback=progress.block, min_run_time=args.min_run_time or 0.2)


def _print_user_traceback(e: BaseException, timer: Any) -> None:
    """The traceback from the user's code on: frames of the timing machinery are left out."""
    src = getattr(getattr(timer, "_timer", None), "src", None)
    if isinstance(src, str):
        # Let the traceback quote the statement's lines, as `python -m timeit` does.
        linecache.cache["<timeit-src>"] = (len(src), None, src.splitlines(keepends=True), "<timeit-src>")
    tb = e.__traceback__
    while tb is not None and tb.tb_frame.f_code.co_filename != "<timeit-src>":
        tb = tb.tb_next
    print("ember-timer: the statement raised:", file=sys.stderr)
    traceback.print_exception(type(e), e, tb, file=sys.stderr)


def _without_address(text: str) -> str:
    """A repr minus its first line (``<... object at 0x...>``)."""
    return text.split("\n", 1)[1] if "\n" in text else ""


def _report(results: list[Any], args: argparse.Namespace, out: IO[str]) -> None:
    if args.quiet:
        for r in results:
            print(r.counts() if args.callgrind else repr(r.median), file=out)
        return
    for r in results:
        print(_without_address(repr(r)), file=out)
    if len(results) > 1 and not args.callgrind:
        print(file=out)
        print(Compare(results), file=out)


def _write_json(path: str, results: list[Measurement]) -> None:
    text = json.dumps([_to_json(m) for m in results], indent=1)
    if path == "-":
        print(text)
        return
    with open(path, "w") as f:
        f.write(text + "\n")


def _report_stream(args: argparse.Namespace) -> IO[str]:
    # `--json -` owns stdout (it must stay valid JSON); the report then goes to stderr.
    return sys.stderr if args.json == "-" else sys.stdout


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    _check_usage(parser, args)
    try:
        if args.compare_json:
            results = _compare_saved(args.compare_json)
            if args.quiet:
                _report(results, args, sys.stdout)
            else:
                print(Compare(results))
            return 0

        stmt = "\n".join(args.stmt) if args.stmt else "pass"
        setup = "\n".join(args.setup) if args.setup else "pass"
        results = []
        for threads in args.num_threads or [1]:
            timer = None
            try:
                timer = _make_timer(args, stmt, setup, threads)
                results.append(_measure(args, timer, sys.stderr))
            except _ExitError:
                raise
            except Exception as e:  # the statement or setup raised (SyntaxError included)
                _print_user_traceback(e, timer)
                return 1
        _report(results, args, _report_stream(args))
        if args.json:
            try:
                _write_json(args.json, results)
            except OSError as e:
                raise _ExitError(f"--json: cannot write {args.json}: {e}", 1) from None
        return 0
    except _ExitError as e:
        if e.status == 2:
            parser.error(str(e))  # usage line + message, exit 2
        print(f"ember-timer: error: {e}", file=sys.stderr)
        return e.status
