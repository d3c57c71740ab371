"""Callgrind results (:class:`FunctionCounts`, :class:`CallgrindStats`) and :class:`CopyIfCallgrind`.

The collection itself (a valgrind subprocess) lives in ``_collect.py``.
"""

from __future__ import annotations

import dataclasses
import enum
import operator
import re
import textwrap
from collections.abc import Callable, Iterator
from typing import Any, NamedTuple

from ember.utils.benchmark.utils import common

__all__ = ["FunctionCount", "FunctionCounts", "CallgrindStats", "CopyIfCallgrind"]

# CPython symbols whose instruction counts depend on hash seeds and dict layout
# rather than on the statement; `denoise` drops them.
_NOISY_SYMBOLS = ("dictobject.c:lookdict_unicode", "dictobject.c:unicodekeys_lookup_unicode")


class FunctionCount(NamedTuple):
    """One row of a Callgrind profile: an instruction count and the function (file:name) it was
    spent in."""

    count: int  # type: ignore[assignment]  # (shadows tuple.count, like PyTorch's field name)
    function: str


def _linewidth() -> int:
    try:
        from ember._tensor_str import get_printoptions

        return int(get_printoptions()["linewidth"])
    except Exception:  # noqa: BLE001 - printing must not fail on an older core
        return 80


@dataclasses.dataclass(repr=False, eq=False, frozen=True)
class FunctionCounts:
    """Instruction counts per function, sorted by count (descending).

    Tuple-like (iterate, index, slice), combinable with ``+``/``-``/``* k``, and
    reshaped with ``filter``, ``transform`` and ``denoise``.
    """

    _data: tuple[FunctionCount, ...]
    inclusive: bool
    truncate_rows: bool = True
    _linewidth: int | None = None  # None: the tensor print options' linewidth

    def __iter__(self) -> Iterator[FunctionCount]:
        return iter(self._data)

    def __len__(self) -> int:
        return len(self._data)

    def __getitem__(self, item: Any) -> FunctionCount | FunctionCounts:
        data = self._data[item]
        if isinstance(data, tuple) and not isinstance(data, FunctionCount):
            return FunctionCounts(data, self.inclusive, truncate_rows=False)
        return data

    def __repr__(self) -> str:
        # (Negative counts get one extra column, as in PyTorch.)
        count_width = max((len(str(c)) + (c < 0) for c, _ in self), default=0)
        name_width = max((self._linewidth or _linewidth()) - count_width - 4, 40)
        lines = []
        for c, fn in self:
            if len(fn) > name_width:
                # Keep both ends of long names: the file path and the function.
                left = (name_width - 5) // 2
                fn = fn[:left] + " ... " + fn[-(name_width - left - 5):]
            lines.append(f"  {c:>{count_width}}  {fn}")
        if self.truncate_rows and len(lines) > 18:
            lines = [*lines[:9], "...".rjust(count_width + 2), *lines[-9:]]
        if not self.inclusive:
            lines += ["", f"Total: {self.sum()}"]
        return "\n".join([object.__repr__(self), *lines])

    def __add__(self, other: FunctionCounts) -> FunctionCounts:
        return self._merge(other, lambda c: c)

    def __sub__(self, other: FunctionCounts) -> FunctionCounts:
        return self._merge(other, operator.neg)

    def __mul__(self, other: int | float) -> FunctionCounts:
        return self._from_dict({fn: int(c * other) for c, fn in self._data}, self.inclusive)

    def transform(self, map_fn: Callable[[str], str]) -> FunctionCounts:
        """Rename every function with ``map_fn``; names that collide have their counts added."""
        counts: dict[str, int] = {}
        for c, fn in self._data:
            key = map_fn(fn)
            counts[key] = counts.get(key, 0) + c
        return self._from_dict(counts, self.inclusive)

    def filter(self, filter_fn: Callable[[str], bool]) -> FunctionCounts:
        """Keep the entries whose function name satisfies ``filter_fn``."""
        return FunctionCounts(tuple(fc for fc in self if filter_fn(fc.function)), self.inclusive)

    def sum(self) -> int:
        """The total instruction count over every function."""
        return sum(c for c, _ in self)

    def denoise(self) -> FunctionCounts:
        """Drop CPython's dict-lookup symbols, whose counts vary from run to run."""
        return self.filter(lambda fn: not any(s in fn for s in _NOISY_SYMBOLS))

    def _merge(self, other: FunctionCounts, sign: Callable[[int], int]) -> FunctionCounts:
        if self.inclusive != other.inclusive:
            raise AssertionError("Cannot merge inclusive and exclusive counts.")
        counts: dict[str, int] = {}
        for c, fn in self:
            counts[fn] = counts.get(fn, 0) + c
        for c, fn in other:
            counts[fn] = counts.get(fn, 0) + sign(c)
        return self._from_dict(counts, self.inclusive)

    @staticmethod
    def _from_dict(counts: dict[str, int], inclusive: bool) -> FunctionCounts:
        entries = (FunctionCount(c, fn) for fn, c in counts.items() if c)
        return FunctionCounts(tuple(sorted(entries, reverse=True)), inclusive)


# Path prefixes that differ between builds of the same code; `as_standardized` strips them.
_STANDARDIZE = (
    (r"^.+build/\.\./", "build/../"),
    (r"^.+/" + re.escape("Python/"), "Python/"),
    (r"^.+/" + re.escape("Objects/"), "Objects/"),
    (r"^.+/" + re.escape("Modules/"), "Modules/"),
    (r"^.+/" + re.escape("csrc/"), "csrc/"),  # ember-core's C++ sources, wherever it was built
    (r"\s\[.+\]$", ""),  # the trailing "[/path/to/library.so]"
)


@dataclasses.dataclass(repr=False, eq=False, frozen=True)
class CallgrindStats:
    """Callgrind counts of one statement (and of an empty-statement baseline) from
    ``Timer.collect_callgrind``."""

    task_spec: common.TaskSpec
    number_per_run: int
    built_with_debug_symbols: bool
    baseline_inclusive_stats: FunctionCounts
    baseline_exclusive_stats: FunctionCounts
    stmt_inclusive_stats: FunctionCounts
    stmt_exclusive_stats: FunctionCounts
    stmt_callgrind_out: str | None

    def __repr__(self) -> str:
        base = self.baseline_exclusive_stats
        threads = self.task_spec.num_threads
        lines = [
            object.__repr__(self),
            *self.task_spec.summarize().split("\n"),
            f"  {'':>25}All{'':>10}Noisy symbols removed",
            f"    Instructions: {self.counts(denoise=False):>12}{'':>15}{self.counts(denoise=True):>12}",
            f"    Baseline:     {base.sum():>12}{'':>15}{base.denoise().sum():>12}",
            f"{self.number_per_run} runs per measurement, {threads} thread{'s' if threads > 1 else ''}",
        ]
        text = "\n".join(lines)
        if not self.built_with_debug_symbols:
            text += textwrap.dedent("""
                Warning: ember was not built with debug symbols.
                         Source information may be limited. Rebuild with
                         CMAKE_BUILD_TYPE=RelWithDebInfo for more detailed results.""")
        return text

    def stats(self, inclusive: bool = False) -> FunctionCounts:
        """Per-function counts of the statement; ``inclusive`` counts callees too (hot spots),
        exclusive counts (default) diff more cleanly between runs."""
        return self.stmt_inclusive_stats if inclusive else self.stmt_exclusive_stats

    def counts(self, *, denoise: bool = False) -> int:
        """Total instructions executed by the statement (exclusive counts summed)."""
        stats = self.stmt_exclusive_stats
        return (stats.denoise() if denoise else stats).sum()

    def delta(self, other: CallgrindStats, inclusive: bool = False) -> FunctionCounts:
        """``self.stats(inclusive) - other.stats(inclusive)``: what changed between two
        collections."""
        return self.stats(inclusive=inclusive) - other.stats(inclusive=inclusive)

    def as_standardized(self) -> CallgrindStats:
        """A copy with build-location prefixes and library names stripped from function names,
        so that profiles of builds in different directories cancel out when diffed."""

        def strip(stats: FunctionCounts) -> FunctionCounts:
            for pattern, replacement in _STANDARDIZE:
                stats = stats.transform(lambda fn, p=pattern, r=replacement: re.sub(p, r, fn))
            return stats

        return CallgrindStats(
            task_spec=self.task_spec,
            number_per_run=self.number_per_run,
            built_with_debug_symbols=self.built_with_debug_symbols,
            baseline_inclusive_stats=strip(self.baseline_inclusive_stats),
            baseline_exclusive_stats=strip(self.baseline_exclusive_stats),
            stmt_inclusive_stats=strip(self.stmt_inclusive_stats),
            stmt_exclusive_stats=strip(self.stmt_exclusive_stats),
            stmt_callgrind_out=None,  # names no longer match the raw callgrind.out
        )


class Serialization(enum.Enum):
    PICKLE = 0
    MODULE = 1  # an ember.nn.Module, pickled whole


def _serialization_of(value: Any) -> Serialization | None:
    if isinstance(value, (str, bytes, bool, int, float, complex)):
        return Serialization.PICKLE
    nn = _ember_nn()
    module = getattr(nn, "Module", None)  # ember-nn may be installed before it has Module
    if module is not None and isinstance(value, module):
        return Serialization.MODULE
    return None


def _ember_nn() -> Any:
    try:
        import ember.nn as nn
    except ImportError:
        return None
    return nn


class CopyIfCallgrind:
    """Marks a global as safe to hand to the Callgrind subprocess as a (pickled) copy.

    ``collect_callgrind`` runs the statement in a fresh process, so globals
    must cross a process boundary; wrapping one in ``CopyIfCallgrind`` says
    that a deserialized copy is acceptable.  Allowed: ``str``, ``bytes``,
    ``bool``, ``int``, ``float``, ``complex`` and ``ember.nn.Module``.
    ``setup`` is code run in the subprocess before loading (e.g. imports the
    pickle needs).
    """

    def __init__(self, value: Any, *, setup: str | None = None) -> None:
        method = _serialization_of(value)
        if method is None:
            allowed = ["str", "bytes", "bool", "int", "float", "complex", "ember.nn.Module"]
            raise ValueError(
                f"Unsupported type: {type(value)}\n"
                "`collect_callgrind` restricts globals to the following types:\n"
                + textwrap.indent("\n".join(allowed), "  ")
            )
        self._value = value
        self._setup = setup
        self._serialization = method

    @property
    def value(self) -> Any:
        return self._value

    @property
    def setup(self) -> str | None:
        return self._setup

    @property
    def serialization(self) -> Serialization:
        return self._serialization

    @staticmethod
    def unwrap_all(globals: dict[str, Any]) -> dict[str, Any]:
        """``globals`` with every CopyIfCallgrind replaced by its value (for in-process timing)."""
        return {k: v.value if isinstance(v, CopyIfCallgrind) else v for k, v in globals.items()}
