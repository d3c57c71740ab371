"""Callgrind: result types (pure data) and, where valgrind is installed, real collections."""

from __future__ import annotations

import shutil

import pytest
from ember.utils.benchmark import CallgrindStats, CopyIfCallgrind, FunctionCount, FunctionCounts, TaskSpec, Timer

HAVE_VALGRIND = all(shutil.which(c) for c in ("valgrind", "callgrind_control", "callgrind_annotate"))
needs_valgrind = pytest.mark.skipif(not HAVE_VALGRIND, reason="valgrind/callgrind tools are not installed")


def counts(inclusive: bool, *pairs: tuple[int, str]) -> FunctionCounts:
    return FunctionCounts(tuple(FunctionCount(c, f) for c, f in pairs), inclusive, _linewidth=80)


def test_function_counts_arithmetic() -> None:
    a = counts(False, (500, "/build/Objects/dictobject.c:lookdict_unicode [libpython.so]"), (300, "f.c:add"),
               (100, "g.c:mul"))
    b = counts(False, (300, "f.c:add"), (40, "g.c:mul"), (7, "h.c:new"))
    assert a.sum() == 900 and len(a) == 3
    assert a[0] == FunctionCount(500, a[0].function)
    assert isinstance(a[1:], FunctionCounts) and [c.count for c in a[1:]] == [300, 100]
    assert [(c.count, c.function) for c in a - b] == [(500, a[0].function), (60, "g.c:mul"), (-7, "h.c:new")]
    assert [c.count for c in a + b] == [600, 500, 140, 7]
    assert [c.count for c in a * 2] == [1000, 600, 200]
    assert a.denoise().sum() == 400
    assert [c.function for c in a.filter(lambda fn: fn.startswith("f"))] == ["f.c:add"]
    merged = a.transform(lambda fn: "all")
    assert list(merged) == [FunctionCount(900, "all")]
    with pytest.raises(AssertionError, match="Cannot merge inclusive and exclusive counts."):
        a + counts(True, (1, "x"))
    text = repr(a - b)
    # Counts right-aligned (a negative one gets an extra column), then the name.
    assert "\n  500  /build/Objects/dictobject.c:lookdict_unicode [libpython.so]\n" in text
    assert "\n   -7  h.c:new\n" in text and text.endswith("\n\nTotal: 553")


def test_function_counts_repr_truncates() -> None:
    many = counts(True, *[(1000 - i, f"file.c:function_{i}" + "x" * 100) for i in range(30)])
    lines = repr(many).splitlines()[1:]
    assert len(lines) == 19 and lines[9].strip() == "..."
    assert all(len(line) <= 80 for line in lines) and " ... " in lines[0]
    assert "Total" not in repr(many)  # inclusive counts have no meaningful total


def stats(stmt_pairs: list[tuple[int, str]], base_pairs: list[tuple[int, str]]) -> CallgrindStats:
    return CallgrindStats(
        task_spec=TaskSpec("x + y", "x = torch.ones(4)\ny = x", label="add", num_threads=2),
        number_per_run=100,
        built_with_debug_symbols=True,
        baseline_inclusive_stats=counts(True, *base_pairs),
        baseline_exclusive_stats=counts(False, *base_pairs),
        stmt_inclusive_stats=counts(True, *stmt_pairs),
        stmt_exclusive_stats=counts(False, *stmt_pairs),
        stmt_callgrind_out=None,
    )


def test_callgrind_stats() -> None:
    s1 = stats([(900, "/a/b/Python/ceval.c:eval [/x/libpython.so]"), (50, "dictobject.c:lookdict_unicode")],
               [(10, "ceval.c:eval")])
    s2 = stats([(800, "/c/Python/ceval.c:eval [/y/libpython.so]")], [(10, "ceval.c:eval")])
    assert s1.counts() == 950 and s1.counts(denoise=True) == 900
    assert s1.stats() is s1.stmt_exclusive_stats and s1.stats(inclusive=True) is s1.stmt_inclusive_stats
    # Different build paths do not cancel in a raw delta, but do once standardized.
    assert len(s1.delta(s2)) == 3
    standardized = s1.as_standardized().delta(s2.as_standardized()).denoise()
    assert list(standardized) == [FunctionCount(100, "Python/ceval.c:eval")]
    assert s1.as_standardized().stmt_callgrind_out is None
    text = repr(s1).split("\n", 1)[1]
    assert text == (
        "add\n"
        "setup:\n"
        "  x = torch.ones(4)\n"
        "  y = x\n"
        "\n"
        "                           All          Noisy symbols removed\n"
        "    Instructions:          950                        900\n"
        "    Baseline:               10                         10\n"
        "100 runs per measurement, 2 threads"
    )


def test_copy_if_callgrind() -> None:
    wrapped = CopyIfCallgrind(3, setup="import math")
    assert (wrapped.value, wrapped.setup) == (3, "import math")
    assert CopyIfCallgrind.unwrap_all({"a": wrapped, "b": 4}) == {"a": 3, "b": 4}
    with pytest.raises(ValueError, match="Unsupported type: <class 'list'>"):
        CopyIfCallgrind([1, 2])
    # Timing unwraps it: the statement sees the value itself.
    assert Timer("n * 2", globals={"n": CopyIfCallgrind(21)}).timeit(2).raw_times


def test_collect_callgrind_argument_errors(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(ValueError, match=r"If specified, `repeats` must be >= 1"):
        Timer("1").collect_callgrind(repeats=0)
    with pytest.raises(ZeroDivisionError):  # a broken statement fails fast, before any valgrind run
        Timer("1 / 0").collect_callgrind()
    monkeypatch.setenv("PATH", "/nonexistent")
    with pytest.raises(OSError, match="^Missing: valgrind, callgrind_control, callgrind_annotate$"):
        Timer("1").collect_callgrind()


@needs_valgrind
def test_instruction_counts_stable_across_runs() -> None:
    timer = Timer("x + y * n", setup="x = torch.ones(4)\ny = torch.ones(4)", label="add",
                  globals={"n": CopyIfCallgrind(2)})  # globals cross to the subprocess pickled
    first = timer.collect_callgrind(number=50, retain_out_file=True)
    (second,) = timer.collect_callgrind(number=50, repeats=1, collect_baseline=False)
    assert isinstance(first, CallgrindStats) and first.number_per_run == 50
    a, b = first.counts(denoise=True), second.counts(denoise=True)
    # Two processes: the same count to well under 1% (hash seeds and allocator state vary).
    assert abs(a - b) <= 0.01 * a
    # The statement costs far more than the empty-statement baseline, and the baseline was collected.
    assert first.baseline_exclusive_stats.sum() > 0 and a > 5 * first.baseline_exclusive_stats.sum()
    assert second.baseline_exclusive_stats.sum() == 0
    assert first.stats(inclusive=True)[0].count >= first.stats()[0].count
    assert first.stmt_callgrind_out is not None and "events: Ir" in first.stmt_callgrind_out
    assert second.stmt_callgrind_out is None
    assert "Instructions:" in repr(first) and "50 runs per measurement, 1 thread" in repr(first)
    with pytest.raises(ValueError, match="requires that globals be wrapped in `CopyIfCallgrind`"):
        Timer("n", globals={"n": 1}).collect_callgrind(number=1)
