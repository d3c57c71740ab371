"""``ember.backends.cpu``: the vector instruction set ember's CPU kernels run with."""

from __future__ import annotations

from ember._lib import _C


def get_cpu_capability() -> str:
    """"DEFAULT", "AVX2" or "AVX512": the kernels ember chose for this CPU at load (capped by the
    EMBER_CPU_CAPABILITY environment variable, as PyTorch's ATEN_CPU_CAPABILITY)."""
    return _C._get_cpu_capability()
