"""Benchmarking utilities for ember, mirroring :mod:`torch.utils.benchmark`.

* :class:`Timer` -- ``timeit`` for ember statements: warm-up, pinned thread
  count, replicates (``blocked_autorange``, ``adaptive_autorange``) and
  Callgrind instruction counts (``collect_callgrind``).
* :class:`Measurement` -- the replicates with their statistics; :class:`Compare`
  lays many of them out as tables.
* :class:`Fuzzer` -- randomized benchmark inputs.

Timing C++ statements needs the optional ``cpp`` extra
(``pip install ember-benchmark[cpp]``).  The ``ember-timer`` command (also
``python -m ember.utils.benchmark``) runs all of this from a shell.
"""

from __future__ import annotations

from ember.utils.benchmark.utils.common import (
    Measurement,
    TaskSpec,
    ordered_unique,
    select_unit,
    set_torch_threads,
    trim_sigfig,
    unit_to_english,
)
from ember.utils.benchmark.utils.compare import Colorize, Compare
from ember.utils.benchmark.utils.fuzzer import FuzzedParameter, FuzzedTensor, Fuzzer, ParameterAlias
from ember.utils.benchmark.utils.timer import Language, Timer, timer
from ember.utils.benchmark.utils.valgrind_wrapper.timer_interface import (
    CallgrindStats,
    CopyIfCallgrind,
    FunctionCount,
    FunctionCounts,
)

__all__ = [
    "CallgrindStats",
    "Colorize",
    "Compare",
    "CopyIfCallgrind",
    "FunctionCount",
    "FunctionCounts",
    "FuzzedParameter",
    "FuzzedTensor",
    "Fuzzer",
    "Language",
    "Measurement",
    "ParameterAlias",
    "TaskSpec",
    "Timer",
    "ordered_unique",
    "select_unit",
    "set_torch_threads",
    "timer",
    "trim_sigfig",
    "unit_to_english",
]
