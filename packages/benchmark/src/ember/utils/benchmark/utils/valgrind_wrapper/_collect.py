"""Run a statement under ``valgrind --tool=callgrind`` and parse the counts.

How the measured region is delimited without compiled helpers: the generated
script calls the statement loop through a ``ctypes`` callback, i.e. from
inside libffi's ``ffi_call``.  Callgrind starts with collection off and is
told ``--toggle-collect=ffi_call --dump-after=ffi_call``: each such call is
counted and written to its own ``callgrind.out.N``.  The script makes exactly
one such call per repeat (plus one for the empty-statement baseline) as its
very last actions, so the profiles we want are the last ones written; any
earlier ``ffi_call`` (imports using ctypes, warm-up) only adds earlier files.
A statement that itself calls through ctypes would split its region, so
that is not supported.
"""

from __future__ import annotations

import functools
import os
import pickle
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import textwrap
from typing import Any

from ember.utils.benchmark.utils import common
from ember.utils.benchmark.utils.valgrind_wrapper.timer_interface import (
    CallgrindStats,
    CopyIfCallgrind,
    FunctionCount,
    FunctionCounts,
    Serialization,
)

_REQUIRED_COMMANDS = ("valgrind", "callgrind_control", "callgrind_annotate")
_BLOCK = 100  # statements unrolled per loop iteration: keeps the `for` overhead out of the counts

Counts = tuple[FunctionCounts, FunctionCounts, "str | None"]


def _validate_environment() -> None:
    if not sys.platform.startswith("linux"):
        raise OSError("Valgrind is not supported on this platform.")
    missing = [cmd for cmd in _REQUIRED_COMMANDS if shutil.which(cmd) is None]
    if missing:
        raise OSError("Missing: " + ", ".join(missing))


@functools.lru_cache(maxsize=1)
def _core_has_debug_symbols() -> bool:
    """Whether ember's compiled core carries DWARF (a ``.debug_info`` ELF section)."""
    from ember._lib import _C

    try:
        with open(_C.__file__, "rb") as f:
            data = f.read()
    except OSError:
        return False
    if data[:4] != b"\x7fELF" or data[4] != 2:  # only 64-bit ELF is inspected
        return False
    endian = "<" if data[5] == 1 else ">"
    try:
        shoff = struct.unpack_from(endian + "Q", data, 0x28)[0]
        entsize, count, names_index = struct.unpack_from(endian + "HHH", data, 0x3A)
        headers = [struct.unpack_from(endian + "IIQQQQ", data, shoff + i * entsize) for i in range(count)]
        names_offset = headers[names_index][4]
        names = (data[names_offset + at : data.index(b"\0", names_offset + at)] for at, *_ in headers)
        return b".debug_info" in names
    except (struct.error, IndexError, ValueError):  # no or malformed section headers
        return False


def _globals_loader(globals: dict[str, Any], data_dir: str) -> str:
    """Pickle the wrapped globals into ``data_dir``; return the script lines that load them."""
    import ember

    if globals.get("torch", ember) is not ember:
        raise ValueError("`collect_callgrind` does not support mocking out `torch`.")
    lines = []
    for name, value in globals.items():
        if name in ("torch", "__builtins__"):
            continue  # the script imports ember itself; exec adds __builtins__
        if not isinstance(value, CopyIfCallgrind):
            raise ValueError(
                "`collect_callgrind` requires that globals be wrapped in "
                "`CopyIfCallgrind` so that serialization is explicit."
            )
        if value.setup is not None:
            lines.append(f"exec({textwrap.dedent(value.setup)!r}, ns)")
        if value.serialization not in (Serialization.PICKLE, Serialization.MODULE):
            raise NotImplementedError(f"Unknown serialization method: {value.serialization}")
        path = os.path.join(data_dir, f"{name}.pkl")
        with open(path, "wb") as f:
            pickle.dump(value.value, f)
        lines.append(f"with open({path!r}, 'rb') as f:\n    ns[{name!r}] = pickle.load(f)")
    return "\n".join(lines)


def _unrolled(stmt: str, number: int) -> str:
    """``number`` executions of ``stmt`` as straight-line code in loops of _BLOCK copies."""
    loops, rest = divmod(number, _BLOCK)
    if loops == 1:  # `for _ in range(1)` would only add interpreter instructions
        loops, rest = 0, number
    parts = []
    if loops:
        parts.append(f"for _ in range({loops}):\n" + textwrap.indent("\n".join([stmt] * _BLOCK), "    "))
    if rest:
        parts.append("\n".join([stmt] * rest))
    return "\n".join(parts) or "pass"


_SCRIPT = '''\
import builtins, ctypes, gc, importlib.util, os, pickle, sys, traceback
sys.path[:] = {sys_path!r}


def fail(message):
    with open({error_log!r}, "w") as f:
        f.write(message)
    os._exit(1)


import ember
if os.path.realpath(ember.__file__) != {ember_file!r}:
    fail(f"ember does not match the parent process:\\n  {{ember.__file__}}\\n    vs.\\n  {ember_file}")
ember.set_num_threads({num_threads})

REGION = ctypes.CFUNCTYPE(ctypes.c_int)
errors = []


def region(fn):
    """Call fn() inside libffi's ffi_call, the function Callgrind collects and dumps around."""
    def body():
        try:
            fn()
        except BaseException:
            errors.append(traceback.format_exc())
        return 0
    return REGION(body)


def check():
    if errors:
        fail(errors[0])


ns = {{"__builtins__": builtins, "__name__": "__main__", "torch": ember}}
try:
{body}
except BaseException:
    fail(traceback.format_exc())
check()
sys.stdout.flush()
sys.stderr.flush()
os._exit(0)  # no interpreter shutdown: nothing may call ffi_call after the last region
'''

_PYTHON_BODY = '''\
{load_globals}
exec(compile({setup!r}, "<setup>", "exec"), ns)
stmt_code = compile({stmt!r}, "<stmt>", "exec")
pass_code = compile({baseline!r}, "<baseline>", "exec")
run_stmt = region(lambda: exec(stmt_code, ns))
run_pass = region(lambda: exec(pass_code, ns))
# Warm-up with the very code objects that are measured (specialised bytecode, caches).
# Both always run, so that what precedes the measured regions never depends on the options.
run_stmt()
run_pass()
check()
gc.collect()
for _ in range({repeats}):
    run_stmt()
    gc.collect()
{measure_pass}
'''

_CPP_BODY = '''\
spec = importlib.util.spec_from_file_location({module_name!r}, {module_path!r})
module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)
module.callgrind({number}, {warmup}, {repeats}, lambda fn: region(fn)())
'''


def _script(task_spec: common.TaskSpec, globals: dict[str, Any], data_dir: str, error_log: str, *,
            number: int, repeats: int, collect_baseline: bool, cpp_module: Any) -> tuple[str, int]:
    """The subprocess script, and how many regions (= dumps wanted) it ends with."""
    import ember

    if cpp_module is None:
        body = _PYTHON_BODY.format(
            load_globals=_globals_loader(globals, data_dir),
            setup=task_spec.setup,
            stmt=_unrolled(task_spec.stmt, number),
            baseline=_unrolled("pass", number),
            repeats=repeats,
            measure_pass="run_pass()" if collect_baseline else "",
        )
    else:
        body = _CPP_BODY.format(
            module_name=cpp_module.__name__, module_path=cpp_module.__file__,
            number=number, warmup=min(number, 10), repeats=repeats,
        )
    script = _SCRIPT.format(
        sys_path=list(sys.path),  # the same import path ("" = the working directory, also inherited)
        error_log=error_log,
        ember_file=os.path.realpath(ember.__file__),
        num_threads=task_spec.num_threads,
        body=textwrap.indent(body, "    "),
    )
    return script, repeats + (1 if collect_baseline else 0)


_TOTAL = re.compile(r"^([0-9,]+)\s+PROGRAM TOTALS")
_HEADER = re.compile(r"Ir\s+file:function")
_ENTRY = re.compile(r"^\s*([0-9,]+)\s+(.+:.+)$")


def _parse_annotate(text: str, inclusive: bool, path: str) -> FunctionCounts:
    """Function counts from ``callgrind_annotate`` output."""
    total: int | None = None
    in_table = False
    entries = []
    for line in text.splitlines():
        if total is None:
            match = _TOTAL.match(line)
            if match:
                total = int(match.group(1).replace(",", ""))
        elif not in_table:
            in_table = bool(_HEADER.match(line))
        else:
            match = _ENTRY.match(line)
            if match:
                count = int(match.group(1).replace(",", ""))
                # Frames that enclose the whole region (main, the ctypes call...) repeat
                # the program total; they say nothing about the statement.
                if count != total:
                    entries.append(FunctionCount(count, match.group(2)))
            elif re.match(r"-+", line):
                continue
            else:
                break
    if not in_table:
        raise OSError(f"Failed to collect callgrind profile:\ncould not parse callgrind_annotate output of {path}")
    return FunctionCounts(tuple(sorted(entries, reverse=True)), inclusive=inclusive)


def _run(args: list[str], log: str, env: dict[str, str] | None = None) -> tuple[int, str]:
    # Output goes to a file: a chatty child could fill a pipe and deadlock.
    with open(log, "wb") as f:
        code = subprocess.run(args, stdout=f, stderr=subprocess.STDOUT, env=env, check=False).returncode
    with open(log, errors="replace") as f:
        return code, f.read()


def _read_counts(path: str, log: str, keep_file: bool) -> Counts:
    parsed = []
    for inclusive in (True, False):
        code, text = _run(["callgrind_annotate", f"--inclusive={'yes' if inclusive else 'no'}",
                           "--threshold=100", "--show-percs=no", path], log)
        if code:
            raise OSError(f"Failed to collect callgrind profile:\ncallgrind_annotate failed:\n{text}")
        parsed.append(_parse_annotate(text, inclusive, path))
    contents = None
    if keep_file:
        with open(path) as f:
            contents = f.read()
    return parsed[0], parsed[1], contents


def collect_callgrind(task_spec: common.TaskSpec, globals: dict[str, Any], *, number: int, repeats: int,
                      collect_baseline: bool, retain_out_file: bool,
                      cpp_module: Any = None) -> tuple[CallgrindStats, ...]:
    """Profile ``repeats`` blocks of ``number`` executions in a valgrind subprocess."""
    _validate_environment()
    workdir = tempfile.mkdtemp(prefix="ember_callgrind_")
    try:
        data_dir = os.path.join(workdir, "data")
        os.mkdir(data_dir)
        error_log = os.path.join(workdir, "error.txt")
        log = os.path.join(workdir, "output.log")
        out_file = os.path.join(workdir, "callgrind.out")
        script, wanted = _script(task_spec, globals, data_dir, error_log, number=number, repeats=repeats,
                                 collect_baseline=collect_baseline, cpp_module=cpp_module)
        script_path = os.path.join(workdir, "timer_callgrind.py")
        with open(script_path, "w") as f:
            f.write(script)

        # A fixed hash seed (unless the user chose one) makes dict layouts, and with them the
        # allocator's work, identical from run to run: counts then repeat exactly.
        env = {**os.environ, "PYTHONHASHSEED": os.environ.get("PYTHONHASHSEED", "0")}
        code, output = _run([
            "valgrind", "--tool=callgrind", f"--callgrind-out-file={out_file}",
            "--dump-line=yes", "--dump-instr=yes", "--instr-atstart=yes", "--collect-atstart=no",
            "--toggle-collect=ffi_call", "--dump-after=ffi_call",
            sys.executable, script_path,
        ], log, env=env)
        if code:
            report = ""
            if os.path.exists(error_log):
                with open(error_log) as f:
                    report = f.read()
            report = report or "Unknown error.\n" + output
            raise OSError(f"Failed to collect callgrind profile:\n{report}")

        dumps = sorted(
            (int(m.group(1)), name)
            for name in os.listdir(workdir)
            if (m := re.fullmatch(r"callgrind\.out\.(\d+)", name))
        )
        if len(dumps) < wanted:
            raise OSError(
                "Failed to collect callgrind profile:\n"
                f"expected {wanted} profiles, Callgrind wrote {len(dumps)} "
                "(is ctypes/libffi's ffi_call available in this Python?)\n" + output
            )
        paths = [os.path.join(workdir, name) for _, name in dumps[-wanted:]]
        results = [_read_counts(p, log, retain_out_file) for p in paths]
    finally:
        shutil.rmtree(workdir, ignore_errors=True)

    if collect_baseline:
        *stmt_results, baseline = results
    else:
        stmt_results = results
        baseline = (FunctionCounts((), inclusive=True), FunctionCounts((), inclusive=False), None)
    debug = _core_has_debug_symbols()
    return tuple(
        CallgrindStats(
            task_spec=task_spec,
            number_per_run=number,
            built_with_debug_symbols=debug,
            baseline_inclusive_stats=baseline[0],
            baseline_exclusive_stats=baseline[1],
            stmt_inclusive_stats=inclusive,
            stmt_exclusive_stats=exclusive,
            stmt_callgrind_out=contents,
        )
        for inclusive, exclusive, contents in stmt_results
    )
