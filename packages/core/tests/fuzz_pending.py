"""Fuzz targets whose property is red at this commit: ember bugs found by the fuzz suite and
not fixed yet (each with the kind of disagreement; the calls are in the fuzz findings the
commit message names).  test_fuzz_ops.py / test_fuzz_functional.py run every other target in
CI; `EMBER_FUZZ_ALL=1` runs these too, and `nox -s fuzz` always does.  Remove an entry when
its fix lands -- nothing here is expected behaviour.
"""

from __future__ import annotations

OPS: dict[str, str] = {
}

FUNCTIONAL: dict[str, str] = {
}
