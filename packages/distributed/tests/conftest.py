"""The distributed tests start real multi-process jobs (mpiexec, or independent processes that
meet through the store); _launch.py bounds each with a timeout."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
