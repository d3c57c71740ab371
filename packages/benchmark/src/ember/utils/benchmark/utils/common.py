"""Shared types of the benchmark utilities: :class:`TaskSpec`, :class:`Measurement` and helpers."""

from __future__ import annotations

import contextlib
import dataclasses
import math
import textwrap
from collections.abc import Iterable, Iterator
from typing import Any

from ember.utils.benchmark.utils import _float32

__all__ = [
    "TaskSpec",
    "Measurement",
    "select_unit",
    "unit_to_english",
    "trim_sigfig",
    "ordered_unique",
    "set_torch_threads",
]

_MAX_SIGNIFICANT_FIGURES = 4
_MIN_CONFIDENCE_INTERVAL = 25e-9  # no timer resolves better than ~25 ns
_Z_90 = 1.645  # two-sided 90% normal quantile; n is large enough that z stands in for t

# Relative IQR above which a Measurement carries a warning (and a stronger one).
_IQR_WARN_THRESHOLD = 0.1
_IQR_GROSS_WARN_THRESHOLD = 0.25


@dataclasses.dataclass(init=True, repr=False, eq=True, frozen=True)
class TaskSpec:
    """Everything that defines a Timer's task except its globals (hashable: Compare groups on it).
    Everything that defines a Timer's task except its globals (hashable: Compare groups on it)."""

    stmt: str
    setup: str
    global_setup: str = ""
    label: str | None = None
    sub_label: str | None = None
    description: str | None = None
    env: str | None = None
    num_threads: int = 1

    @property
    def title(self) -> str:
        """A best-effort one-line (or, for multi-line statements, indented) name of the task."""
        suffix = f": {self.sub_label}" if self.sub_label else ""
        if self.label is not None:
            return self.label + suffix
        if "\n" not in self.stmt:
            return self.stmt + suffix
        sub = f" ({self.sub_label})" if self.sub_label else ""
        return f"stmt:{sub}\n{textwrap.indent(self.stmt, '  ')}"

    def setup_str(self) -> str:
        """The setup code as one string (Python or C++), as the timer runs it and the summaries
        show it."""
        if not self.setup or self.setup == "pass":
            return ""
        if "\n" in self.setup:
            return "setup:\n" + textwrap.indent(self.setup, "  ")
        return f"setup: {self.setup}"

    def summarize(self) -> str:
        """The TaskSpec part of Measurement/CallgrindStats reprs; multi-line parts get a blank line
        after."""
        parts = [p for p in (self.title, self.description or "", self.setup_str()) if p]
        return "\n".join(p + "\n" if "\n" in p else p for p in parts)


_TASKSPEC_FIELDS = tuple(f.name for f in dataclasses.fields(TaskSpec))


def _quantile(sorted_values: tuple[float, ...], q: float) -> float:
    """Linear-interpolation quantile of sorted float64 values (``Tensor.quantile``'s default)."""
    rank = q * (len(sorted_values) - 1)
    below = int(rank)
    weight = rank - below
    lo = sorted_values[below]
    hi = sorted_values[min(below + 1, len(sorted_values) - 1)]
    # The two-sided lerp formula is exact at both ends (weight 0 gives lo, 1 gives hi).
    if weight < 0.5:
        return lo + weight * (hi - lo)
    return hi - (hi - lo) * (1 - weight)


@dataclasses.dataclass(init=True, repr=False)
class Measurement:
    """The result of a Timer measurement: one or more block times of a task.

    ``raw_times`` are seconds per block of ``number_per_run`` executions;
    every statistic works on per-execution ``times``.  Picklable; the
    ``TaskSpec`` fields are readable as attributes (``m.label``, ``m.stmt``).
    """

    number_per_run: int
    raw_times: list[float]
    task_spec: TaskSpec
    metadata: dict[Any, Any] | None = None  # free for user payloads

    def __post_init__(self) -> None:
        self._sorted_times: tuple[float, ...] = ()
        self._warnings: tuple[str, ...] = ()
        self._median = -1.0
        self._mean = -1.0
        self._p25 = -1.0
        self._p75 = -1.0

    def __getattr__(self, name: str) -> Any:
        # Only reached when normal lookup fails: forward the TaskSpec's fields.
        if name in _TASKSPEC_FIELDS:
            return getattr(self.task_spec, name)
        return super().__getattribute__(name)

    @property
    def times(self) -> list[float]:
        """Seconds per single execution of stmt, one value per block."""
        return [t / self.number_per_run for t in self.raw_times]

    @property
    def median(self) -> float:
        self._lazy_init()
        return self._median

    @property
    def mean(self) -> float:
        self._lazy_init()
        return self._mean

    @property
    def iqr(self) -> float:
        self._lazy_init()
        return self._p75 - self._p25

    @property
    def significant_figures(self) -> int:
        """A rough count of trustworthy digits in the median (1 to 4), used by Compare's trimming.

        Uses only the interquartile points (robust to tails): a 90% confidence
        half-width ``1.645 * std / sqrt(n)``, at least 25 ns, against the median.
        """
        self._lazy_init()
        n = len(self._sorted_times)
        middle = self._sorted_times[n // 4 : math.ceil(_float32.f32(3 * n / 4))]
        std = _float32.population_std(middle)
        sqrt_n = _float32.f32(math.sqrt(len(middle)))
        half_width = max(_Z_90 * std / sqrt_n, _MIN_CONFIDENCE_INTERVAL)
        figures = math.floor(_float32.log10(self._median / half_width))
        return min(max(figures, 1), _MAX_SIGNIFICANT_FIGURES)

    @property
    def has_warnings(self) -> bool:
        self._lazy_init()
        return bool(self._warnings)

    def _lazy_init(self) -> None:
        if not self.raw_times or self._sorted_times:
            return
        values = tuple(sorted(self.times))
        self._sorted_times = values
        self._median = _quantile(values, 0.5)
        self._mean = math.fsum(values) / len(values)
        self._p25 = _quantile(values, 0.25)
        self._p75 = _quantile(values, 0.75)

        if not self.meets_confidence(_IQR_GROSS_WARN_THRESHOLD):
            reason = "This suggests significant environmental influence."
        elif not self.meets_confidence(_IQR_WARN_THRESHOLD):
            reason = "This could indicate system fluctuation."
        else:
            return
        relative = self.iqr / self.median * 100
        self._warnings = (
            f"  WARNING: Interquartile range is {relative:.1f}% of the median measurement.\n"
            f"           {reason}",
        )

    def meets_confidence(self, threshold: float = _IQR_WARN_THRESHOLD) -> bool:
        """Whether the spread of the timings (interquartile range over median) is below
        ``threshold``, so the median can be trusted."""
        return self.iqr / self.median < threshold

    @property
    def title(self) -> str:
        return self.task_spec.title

    @property
    def env(self) -> str | None:
        # PyTorch's property misspells its attribute and falls back to the
        # TaskSpec field, so the observable value is task_spec.env (None if unset).
        return self.task_spec.env

    @property
    def as_row_name(self) -> str:
        return self.sub_label or self.stmt or "[Unknown]"

    def __repr__(self) -> str:
        """Example::

            <ember.utils.benchmark.utils.common.Measurement object at 0x7f1c2e5a3d10>
            add: float
              Median: 5.73 us
              IQR:    0.25 us (5.61 to 5.86)
              372 measurements, 100 runs per measurement, 1 thread
        """
        self._lazy_init()
        n = len(self._sorted_times)
        unit, scale = select_unit(self._median)
        # split("\n"), not splitlines(): a multi-line summary keeps its trailing blank line.
        lines = [object.__repr__(self), *self.task_spec.summarize().split("\n")]
        lines.append(f"  {'Median: ' if n > 1 else ''}{self._median / scale:.2f} {unit}")
        if n >= 4:
            lines.append(
                f"  IQR:    {self.iqr / scale:.2f} {unit} "
                f"({self._p25 / scale:.2f} to {self._p75 / scale:.2f})"
            )
        threads = f"{self.num_threads} thread{'s' if self.num_threads > 1 else ''}"
        if n > 1:
            lines.append(f"  {n} measurements, {self.number_per_run} runs per measurement, {threads}")
        else:
            lines.append(f"  {n} measurement, {self.number_per_run} runs , {threads}")
        lines.extend(self._warnings)
        return "\n".join(lines)

    @staticmethod
    def merge(measurements: Iterable[Measurement]) -> list[Measurement]:
        """Pool replicates of equal TaskSpecs (first-seen order).

        Times are normalised to ``number_per_run=1`` since replicates may use
        different block sizes; metadata is dropped (it may differ between them).
        """
        groups: dict[TaskSpec, list[float]] = {}
        for m in measurements:
            groups.setdefault(m.task_spec, []).extend(m.times)
        return [Measurement(number_per_run=1, raw_times=t, task_spec=s, metadata=None) for s, t in groups.items()]


def select_unit(t: float) -> tuple[str, float]:
    """The unit (and its scale in seconds) that shows ``t`` seconds with 1-3 integer digits."""
    unit = {-3: "ns", -2: "us", -1: "ms"}.get(int(_float32.log10(t) // 3), "s")
    return unit, {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1}[unit]


def unit_to_english(u: str) -> str:
    """The English word for a time unit abbreviation (``"us"`` -> ``"microsecond"``)."""
    return {"ns": "nanosecond", "us": "microsecond", "ms": "millisecond", "s": "second"}[u]


def trim_sigfig(x: float, n: int) -> float:
    """Round ``x`` to ``n`` significant figures (``3.14159, 2 -> 3.1``)."""
    if n != int(n):
        raise AssertionError("Number of significant figures must be an integer")
    magnitude = int(math.ceil(_float32.log10(abs(x))))
    scale = 10 ** (magnitude - n)
    # float32 steps, so the digits shown match PyTorch's tensor-based rounding.
    return _float32.f32(_float32.round_half_even(x / scale) * _float32.f32(scale))


def ordered_unique(elements: Iterable[Any]) -> list[Any]:
    """Distinct elements in first-seen order."""
    return list(dict.fromkeys(elements))


@contextlib.contextmanager
def set_torch_threads(n: int) -> Iterator[None]:
    """Run the body with ``ember.set_num_threads(n)``; the previous count is restored afterwards."""
    import ember

    prior = ember.get_num_threads()
    try:
        ember.set_num_threads(n)
        yield
    finally:
        ember.set_num_threads(prior)
