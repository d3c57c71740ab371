"""raises_like: ember's call fails as PyTorch's does (for the tests that compare errors; loaded with
`from sibling import load`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest


def raises_like(fe: Callable[[], Any], ft: Callable[[], Any], first_line: bool = False) -> str:
    """fe() (ember) raises an exception of the same type name and message as ft() (torch); with
    first_line, only the messages' first lines are compared. Returns ember's message."""
    with pytest.raises(Exception) as te:
        ft()
    with pytest.raises(Exception) as ee:
        fe()
    assert type(ee.value).__name__ == type(te.value).__name__, (ee.value, te.value)
    if first_line:
        assert str(ee.value).split("\n")[0] == str(te.value).split("\n")[0]
    else:
        assert str(ee.value) == str(te.value)
    return str(ee.value)
