"""Timer: validation, globals, thread pinning and the measurement algorithms.

The algorithms are checked with a fake clock that advances a fixed amount per
execution of the statement, so block sizes and block counts are exact and
nothing depends on how fast this machine is.
"""

from __future__ import annotations

import sys
import types

import ember
import pytest
from ember.utils.benchmark import Language, Measurement, Timer, set_torch_threads, timer


class FakeClock:
    """``now`` for Timer's ``timer=``; ``tick()`` (the statement) advances it."""

    def __init__(self, step: float | list[float]) -> None:
        self.t = 0.0
        self.steps = step if isinstance(step, list) else [step]
        self.calls = 0

    def now(self) -> float:
        return self.t

    def tick(self) -> None:
        self.t += self.steps[self.calls % len(self.steps)]
        self.calls += 1


def fake_timer(step: float | list[float], **kw: object) -> tuple[Timer, FakeClock]:
    clock = FakeClock(step)
    return Timer("clock.tick()", timer=clock.now, globals={"clock": clock}, **kw), clock  # type: ignore[arg-type]


def test_validation_messages() -> None:
    with pytest.raises(ValueError, match=r"^Currently only a `str` stmt is supported\.$"):
        Timer(stmt=lambda: None)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"^Invalid language `rust`\.$"):
        Timer(language="rust")
    with pytest.raises(ValueError, match=r"^global_setup is C\+\+ only, got `y`\. Most likely this code can "
                                         r"simply be moved to `setup`\.$"):
        Timer(global_setup="y")
    with pytest.raises(NotImplementedError, match=r"See `Timer\.blocked_autorange\.`"):
        Timer().repeat()
    with pytest.raises(NotImplementedError, match=r"See `Timer\.blocked_autorange\.`"):
        Timer().autorange()


def test_globals_copied_and_torch_injected() -> None:
    mine = {"n": 3}
    t = Timer("out.append(torch is ember_module and n == 3)", globals={**mine, "out": [], "ember_module": ember})
    t.timeit(1)
    assert mine == {"n": 3}
    out = t._globals["out"]
    assert out and all(out)
    # A caller's own `torch` wins.
    sentinel = object()
    assert Timer(globals={"torch": sentinel})._globals["torch"] is sentinel
    assert Timer()._globals["torch"] is ember


def test_stmt_and_setup_normalised() -> None:
    t = Timer("""
        x = 1
        y = x + 1
    """, setup="""
        import math
    """, label="lbl")
    spec = t._task_spec
    assert spec.stmt == "x = 1\ny = x + 1"
    assert spec.setup == "import math"
    assert (spec.label, spec.num_threads, spec.global_setup) == ("lbl", 1, "")
    assert Timer(language="python")._language is Language.PYTHON
    assert Timer(language="py")._language is Language.PYTHON


def test_threads_pinned_during_measurement_and_restored() -> None:
    before = ember.get_num_threads()
    seen: list[int] = []
    g = {"seen": seen, "get": ember.get_num_threads}
    target = 2 if before != 2 else 1
    Timer("seen.append(get())", globals=g, num_threads=target).timeit(5)
    Timer("seen.append(get())", globals=g, num_threads=target).blocked_autorange(min_run_time=0.001)
    assert set(seen) == {target}
    assert ember.get_num_threads() == before
    seen.clear()
    Timer("seen.append(get())", globals=g).timeit(3)  # default: 1 thread, not the machine's count
    assert set(seen) == {1}
    with set_torch_threads(target):
        assert ember.get_num_threads() == target
    assert ember.get_num_threads() == before


def test_timeit_structure() -> None:
    t, clock = fake_timer(1e-6)
    m = t.timeit(number=500)
    assert isinstance(m, Measurement)
    assert m.number_per_run == 500 and len(m.raw_times) == 1
    assert m.raw_times[0] == pytest.approx(500e-6)
    assert m.median == pytest.approx(1e-6)
    assert clock.calls == 5 + 500  # warm-up max(500 // 100, 2), then the timed block


STEP = 2.0**-20  # ~0.95 us, exact in binary: sums of steps are exact, so block counts are too


def test_blocked_autorange_block_size_and_count() -> None:
    t, _ = fake_timer(STEP)
    blocks: list[tuple[int, float]] = []
    m = t.blocked_autorange(callback=lambda n, s: blocks.append((n, s)), min_run_time=0.02)
    # Empty-block overhead is the 1 ns floor: 100 runs are the first power of ten where it is
    # <= 0.01% of a block, and that block (95 us) also lasts >= 0.02 / 1000 s.
    assert m.number_per_run == 100
    assert len(m.raw_times) == 210  # ceil(0.02 / (100 * STEP)) blocks reach min_run_time
    assert blocks == [(100, 100 * STEP)] * 210
    assert m.median == pytest.approx(STEP) and m.iqr == 0


def test_blocked_autorange_long_statement_one_block() -> None:
    t, _ = fake_timer(0.5)
    m = t.blocked_autorange(min_run_time=0.2)
    assert m.number_per_run == 1 and len(m.raw_times) == 1  # one block already exceeds min_run_time


def test_adaptive_autorange_converges_and_gives_up() -> None:
    t, _ = fake_timer(STEP)
    m = t.adaptive_autorange(min_run_time=0.001)
    # Block size from the fixed 0.05 s estimate: 100 runs (95 us >= 50 us).  Constant blocks converge
    # as soon as there are more than 3 and min_run_time has passed: ceil(0.001 / (100 * STEP)) = 11.
    assert m.number_per_run == 100
    assert len(m.raw_times) == 11

    # Alternating 1 ms / 3 ms runs in blocks of 1: the IQR never drops below 10% of the median,
    # so only max_run_time stops it (strictly more than 2 ms spent).
    t, _ = fake_timer([1e-3, 3e-3])
    m = t.adaptive_autorange(min_run_time=0.001, max_run_time=0.01)
    assert m.number_per_run == 1
    assert sum(m.raw_times) > 0.01
    assert sum(m.raw_times[:-1]) <= 0.01


def test_default_timer_is_a_clock() -> None:
    a = timer()
    b = timer()
    assert isinstance(a, float) and b >= a


def test_real_measurement_runs_ember() -> None:
    m = Timer("x + y", setup="x = torch.ones(8); y = torch.ones(8)", label="add").blocked_autorange(
        min_run_time=0.01)
    assert m.median > 0 and m.number_per_run >= 1 and m.raw_times
    assert m.title == "add"


def test_cpp_language_errors_name_the_distribution(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(ValueError, match=r"^C\+\+ timing does not support globals\.$"):
        Timer("x", globals={"a": 1}, language="c++")
    # Not installed (also drop the attribute an earlier import left on ember.utils).
    import ember.utils

    monkeypatch.delattr(ember.utils, "cpp_extension", raising=False)
    monkeypatch.setitem(sys.modules, "ember.utils.cpp_extension", None)
    with pytest.raises(ModuleNotFoundError, match="ember-cpp-extension"):
        Timer("auto x = 1;", language="cpp")
    # Installed, but without JIT builds.
    skeleton = types.ModuleType("ember.utils.cpp_extension")
    monkeypatch.setitem(sys.modules, "ember.utils.cpp_extension", skeleton)
    with pytest.raises(ImportError, match=r"ember\.utils\.cpp_extension\.load.*ember-cpp-extension"):
        Timer("auto x = 1;", language=Language.CPP)


def test_cpp_timer_when_available() -> None:
    from ember.utils.benchmark.utils import cpp_jit

    try:
        cpp_jit.require_cpp_extension()
    except ImportError as e:
        pytest.skip(f"ember-cpp-extension cannot build extensions here: {e}")
    t = Timer("auto z = x + x;", setup="auto x = torch::ones({4});", language="c++", label="cpp add")
    m = t.timeit(100)
    assert m.number_per_run == 100 and m.raw_times[0] > 0
    assert t._task_spec.setup == "auto x = torch::ones({4});"
    assert Timer("auto z = 1;", language="cpp")._task_spec.setup == ""  # `pass` means nothing in C++
