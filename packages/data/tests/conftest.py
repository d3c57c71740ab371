"""Put this folder on sys.path so that ``ember_data_testlib`` is importable by name: worker
processes started with ``spawn``/``forkserver`` unpickle its datasets and functions by
module name (the test modules themselves are imported under mangled names)."""

from __future__ import annotations

import sys
from pathlib import Path

_HERE = str(Path(__file__).resolve().parent)
if _HERE not in sys.path:
    sys.path.insert(0, _HERE)
