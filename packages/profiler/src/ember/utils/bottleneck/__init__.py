"""Bottleneck: a first-pass profiler for whole scripts.

Run as ``python -m ember.utils.bottleneck script.py [args]``; it summarises the
environment, then runs the script under cProfile and under the ember autograd
profiler, mirroring :mod:`torch.utils.bottleneck`.
"""

from __future__ import annotations

from ._main import main, parse_args, run_env_analysis

__all__: list[str] = ["main", "parse_args", "run_env_analysis"]
