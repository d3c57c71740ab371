""":class:`Timer`: ``timeit.Timer`` made aware of ember (threads, warm-up, replicates, Callgrind).
:class:`Timer`: ``timeit.Timer`` made aware of ember (threads, warm-up, replicates, Callgrind)."""

from __future__ import annotations

import enum
import textwrap
import timeit as _timeit_module
from collections.abc import Callable
from typing import Any

from ember.utils.benchmark.utils import common
from ember.utils.benchmark.utils.valgrind_wrapper.timer_interface import CallgrindStats, CopyIfCallgrind

__all__ = ["Timer", "timer", "Language"]

_MAX_BLOCK = 2147483647  # block sizes stay within a C int (the C++ timer takes one)


_accelerator: Any = None  # ember.accelerator, or False where the core has none; looked up once


def timer() -> float:
    """The default clock: synchronizes an available accelerator first, then
    ``timeit.default_timer()``."""
    global _accelerator
    if _accelerator is None:
        import ember

        _accelerator = getattr(ember, "accelerator", None) or False
    if _accelerator and _accelerator.is_available():
        _accelerator.synchronize()
    return _timeit_module.default_timer()


class Language(enum.Enum):
    """The language of a timed statement: Python or C++."""

    PYTHON = 0
    CPP = 1


class CPPTimer:
    """``timeit.Timer``'s interface over a C++ statement compiled with ember-cpp-extension."""

    def __init__(self, stmt: str, setup: str, global_setup: str, timer: Callable[[], float],
                 globals: dict[str, Any]) -> None:
        if globals:
            raise ValueError("C++ timing does not support globals.")
        from ember.utils.benchmark.utils import cpp_jit

        cpp_jit.require_cpp_extension()  # fail now, naming the missing distribution
        self._stmt = textwrap.dedent(stmt)
        self._setup = textwrap.dedent(setup)
        self._global_setup = textwrap.dedent(global_setup)
        self._module: Any = None

    @property
    def module(self) -> Any:
        if self._module is None:
            from ember.utils.benchmark.utils import cpp_jit

            self._module = cpp_jit.compile_timer_module(
                stmt=self._stmt, setup=self._setup, global_setup=self._global_setup
            )
        return self._module

    def timeit(self, number: int) -> float:
        return float(self.module.timeit(number))


def _normalize(code: str) -> str:
    """Dedent, drop one leading newline and trailing whitespace (block strings written in
    functions)."""
    code = textwrap.dedent(code)
    return (code[1:] if code.startswith("\n") else code).rstrip()


class Timer:
    """Measures the execution time of ember statements.

    Like ``timeit.Timer`` (``stmt``, ``setup``, ``timer``, ``globals``), plus:
    warm-up before timing; ember's thread count pinned to ``num_threads``
    (default 1, not the machine default) around every measurement; results
    as :class:`Measurement` replicates (``blocked_autorange``,
    ``adaptive_autorange``) rather than single numbers; metadata (``label``,
    ``sub_label``, ``description``, ``env``) that :class:`Compare` lays out
    in tables; and instruction counts through Callgrind.

    ``globals`` is copied (never mutated) and gets ``torch`` (the ember module)
    unless it defines that name.  ``language='c++'`` times C++ code through
    ember-cpp-extension; ``global_setup`` (includes) is C++ only.
    """

    _timer_cls: type = _timeit_module.Timer

    def __init__(
        self,
        stmt: str = "pass",
        setup: str = "pass",
        global_setup: str = "",
        timer: Callable[[], float] = timer,
        globals: dict[str, Any] | None = None,
        label: str | None = None,
        sub_label: str | None = None,
        description: str | None = None,
        env: str | None = None,
        num_threads: int = 1,
        language: Language | str = Language.PYTHON,
    ) -> None:
        if not isinstance(stmt, str):
            raise ValueError("Currently only a `str` stmt is supported.")
        self._globals = dict(globals or {})  # exec adds __builtins__: never touch the caller's dict

        extra: dict[str, Any] = {}
        if language in (Language.PYTHON, "py", "python"):
            import ember

            self._globals.setdefault("torch", ember)
            self._language = Language.PYTHON
            if global_setup:
                raise ValueError(
                    f"global_setup is C++ only, got `{global_setup}`. Most "
                    "likely this code can simply be moved to `setup`."
                )
        elif language in (Language.CPP, "cpp", "c++"):
            self._timer_cls = CPPTimer
            setup = "" if setup == "pass" else setup
            self._language = Language.CPP
            extra["global_setup"] = global_setup
        else:
            raise ValueError(f"Invalid language `{language}`.")

        stmt, setup = _normalize(stmt), _normalize(setup)
        self._timer = self._timer_cls(
            stmt=stmt, setup=setup, timer=timer, globals=CopyIfCallgrind.unwrap_all(self._globals), **extra
        )
        self._task_spec = common.TaskSpec(
            stmt=stmt, setup=setup, global_setup=global_setup, label=label, sub_label=sub_label,
            description=description, env=env, num_threads=num_threads,
        )

    def _timeit(self, number: int) -> float:
        # Seconds for `number` executions; never 0 (even reading a clock costs more than 1 ns).
        return max(self._timer.timeit(number), 1e-9)

    def timeit(self, number: int = 1000000) -> common.Measurement:
        """Like ``timeit.Timer.timeit``: after a short warm-up, one block of ``number`` executions.
        Like ``timeit.Timer.timeit``: after a short warm-up, one block of ``number`` executions."""
        with common.set_torch_threads(self._task_spec.num_threads):
            self._timeit(number=max(number // 100, 2))
            return common.Measurement(
                number_per_run=number, raw_times=[self._timeit(number=number)], task_spec=self._task_spec
            )

    def repeat(self, repeat: int = -1, number: int = -1) -> None:
        """Not provided, as in PyTorch: use ``blocked_autorange`` or ``adaptive_autorange``, which
        return a Measurement."""
        raise NotImplementedError("See `Timer.blocked_autorange.`")

    def autorange(self, callback: Callable[[int, float], None] | None = None) -> None:
        """Not provided, as in PyTorch: use ``blocked_autorange``, which picks the number of runs
        itself."""
        raise NotImplementedError("See `Timer.blocked_autorange.`")

    def _measurement_loop(self, number: int, stop: Callable[[list[float]], bool], min_run_time: float,
                          max_run_time: float | None = None,
                          callback: Callable[[int, float], None] | None = None) -> list[float]:
        """Time blocks until ``min_run_time`` is spent and ``stop`` agrees (or ``max_run_time`` is
        hit)."""
        times: list[float] = []
        total = 0.0
        done = False
        with common.set_torch_threads(self._task_spec.num_threads):
            while total < min_run_time or not done:
                t = self._timeit(number)
                times.append(t)
                total += t
                if callback:
                    callback(number, t)
                done = stop(times)
                if max_run_time and total > max_run_time:
                    break
        return times

    def _estimate_block_size(self, min_run_time: float) -> int:
        """The power of ten of executions per block that makes timer overhead negligible.

        Grows the block 10x at a time until the empty-loop overhead is <= 0.01%
        of a block lasting >= min_run_time / 1000, or a block alone exceeds
        min_run_time.  The runs double as warm-up.
        """
        with common.set_torch_threads(self._task_spec.num_threads):
            overhead = sorted(self._timeit(0) for _ in range(5))[2]
            number = 1
            while True:
                t = self._timeit(number)
                if overhead / t <= 1e-4 and t >= min_run_time / 1000:
                    break
                if t > min_run_time or number * 10 > _MAX_BLOCK:
                    break
                number *= 10
        return number

    def blocked_autorange(self, callback: Callable[[int, float], None] | None = None,
                          min_run_time: float = 0.2) -> common.Measurement:
        """Many replicates of one block size, for at least ``min_run_time`` seconds.

        The block size comes from ``_estimate_block_size`` (it makes the
        clock's overhead negligible); then blocks are timed until their total
        reaches ``min_run_time``.  ``callback(number, seconds)`` sees each block.
        """
        number = self._estimate_block_size(min_run_time)
        times = self._measurement_loop(number, lambda _: True, min_run_time, callback=callback)
        return common.Measurement(number_per_run=number, raw_times=times, task_spec=self._task_spec)

    def adaptive_autorange(self, threshold: float = 0.1, *, min_run_time: float = 0.01,
                           max_run_time: float = 10.0,
                           callback: Callable[[int, float], None] | None = None) -> common.Measurement:
        """Like ``blocked_autorange``, but goes on until the IQR is below ``threshold`` x median.

        Stops once more than 3 blocks, at least ``min_run_time`` seconds, and
        ``iqr / median < threshold``, or in any case past ``max_run_time``.
        """
        number = self._estimate_block_size(min_run_time=0.05)

        def converged(times: list[float]) -> bool:
            if len(times) <= 3:
                return False
            m = common.Measurement(number_per_run=number, raw_times=times, task_spec=self._task_spec)
            return m.meets_confidence(threshold=threshold)

        times = self._measurement_loop(number, converged, min_run_time, max_run_time, callback=callback)
        return common.Measurement(number_per_run=number, raw_times=times, task_spec=self._task_spec)

    def collect_callgrind(self, number: int = 100, *, repeats: int | None = None,
                          collect_baseline: bool = True,
                          retain_out_file: bool = False) -> CallgrindStats | tuple[CallgrindStats, ...]:
        """Instruction counts of ``number`` executions, from Callgrind in a subprocess.

        Deterministic up to small interpreter jitter, hence good for comparing
        changes.  Needs ``valgrind``, ``callgrind_control`` and
        ``callgrind_annotate``.  Globals cross the process boundary, so they
        must be wrapped in :class:`CopyIfCallgrind`.  With ``repeats`` a tuple
        of that many CallgrindStats is returned; ``collect_baseline`` also
        profiles an empty statement (Python only).
        """
        if not isinstance(self._task_spec.stmt, str):
            raise ValueError("`collect_callgrind` currently only supports string `stmt`")
        if repeats is not None and repeats < 1:
            raise ValueError("If specified, `repeats` must be >= 1")
        # A broken stmt/setup fails here, quickly, rather than deep inside valgrind.
        self._timeit(1)

        from ember.utils.benchmark.utils.valgrind_wrapper import _collect

        is_python = self._language == Language.PYTHON
        result = _collect.collect_callgrind(
            self._task_spec,
            self._globals,
            number=number,
            repeats=repeats or 1,
            collect_baseline=collect_baseline and is_python,
            retain_out_file=retain_out_file,
            cpp_module=None if is_python else self._timer.module,
        )
        return result[0] if repeats is None else result
