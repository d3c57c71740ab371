"""Shared helpers: PyTorch is the oracle, so tests copy the same weights into both sides."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent))


@pytest.fixture(scope="session")
def torch() -> Any:
    return pytest.importorskip("torch")
