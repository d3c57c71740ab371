"""Fuzz targets whose property is red at this commit: ember bugs found by the fuzz suite and
not fixed yet (each with the kind of disagreement; the calls are in the fuzz findings the
commit message names).  test_fuzz_ops.py / test_fuzz_functional.py run every other target in
CI; `EMBER_FUZZ_ALL=1` runs these too, and `nox -s fuzz` always does.  Remove an entry when
its fix lands -- nothing here is expected behaviour.
"""

from __future__ import annotations

OPS: dict[str, str] = {
    # both older than the yaml entries that put them in reach of the fuzz suite (issue 19):
    "index_put": "a bool-mask index with a 0-d value of another dtype: PyTorch casts it (its masked_fill path), "
    "ember raises 'Index put requires the source and destination dtypes match'",
    "unique_dim": "more than one zero-size dim: PyTorch raises 'Number of zero sized dimensions is more than one, "
    "so unique cannot be applied', ember returns",
}

FUNCTIONAL: dict[str, str] = {
}
