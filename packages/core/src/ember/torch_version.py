"""``torch.torch_version``: ``ember.__version__`` is a ``TorchVersion`` -- a ``str`` that also
compares as a version against strings (``>= "0.1"``), tuples (``> (0, 0, 9)``) and
``packaging.version.Version`` objects, as PyTorch's does.

The PEP 440 ordering is computed here (release, pre-release, post-release, dev, local) so
importing ember does not need ``packaging``.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from typing import Any

__all__ = ["TorchVersion"]

_PHASE = {"a": 0, "alpha": 0, "b": 1, "beta": 1, "c": 2, "rc": 2, "pre": 2, "preview": 2}
_INF = float("inf")


class _Invalid(ValueError):
    pass


@functools.cache
def _pattern() -> Any:
    # compiled on the first comparison: `import ember` does not pay for `re`
    import re

    return re.compile(
        r"^\s*v?(?:(?P<epoch>\d+)!)?(?P<release>\d+(?:\.\d+)*)"
        r"(?:[-_.]?(?P<pre>a|b|c|rc|alpha|beta|pre|preview)[-_.]?(?P<pre_n>\d*))?"
        r"(?:-(?P<post_implicit>\d+)|[-_.]?(?:post|rev|r)[-_.]?(?P<post_n>\d*))?"
        r"(?:[-_.]?(?P<dev>dev)[-_.]?(?P<dev_n>\d*))?"
        r"(?:\+(?P<local>[a-z0-9]+(?:[-_.][a-z0-9]+)*))?\s*$",
        re.IGNORECASE,
    )


def _key(text: str) -> tuple[Any, ...]:
    """PEP 440's sort key of ``text`` (raises _Invalid for a string that is no version)."""
    m = _pattern().match(text)
    if m is None:
        raise _Invalid(text)
    release = [int(p) for p in m["release"].split(".")]
    while len(release) > 1 and release[-1] == 0:  # 1.0 == 1.0.0
        release.pop()
    post = m["post_implicit"] or m["post_n"]
    has_post = m["post_implicit"] is not None or m["post_n"] is not None
    dev = (int(m["dev_n"] or 0),) if m["dev"] else (_INF,)
    if m["pre"]:
        pre: tuple[Any, ...] = (_PHASE[m["pre"].lower()], int(m["pre_n"] or 0))
    elif m["dev"] and not has_post:
        pre = (-_INF,)  # 1.0.dev0 sorts before 1.0a0
    else:
        pre = (_INF,)
    post_key = (int(post or 0),) if has_post else (-_INF,)
    parts = m["local"].replace("-", ".").replace("_", ".").split(".") if m["local"] else []
    local = tuple((0, int(p)) if p.isdigit() else (-1, p.lower()) for p in parts)
    return (int(m["epoch"] or 0), tuple(release), pre, post_key, dev, local)


def _other_key(other: Any) -> tuple[Any, ...]:
    if isinstance(other, str):
        return _key(other)
    if hasattr(other, "release") and hasattr(other, "epoch"):  # packaging.version.Version
        return _key(str(other))
    if isinstance(other, Iterable):
        return _key(".".join(str(item) for item in other))
    raise _Invalid(repr(other))


class TorchVersion(str):
    """A version string that compares as a version with strings, tuples and ``Version`` objects
    (falling back to string comparison where the other side is no version)."""

    __slots__ = ()

    def _compare(self, other: Any, method: str) -> Any:
        try:
            mine, theirs = _key(self), _other_key(other)
        except _Invalid:
            return getattr(str, method)(self, other)
        return getattr(mine, method)(theirs)

    def __gt__(self, other: Any) -> bool:
        return bool(self._compare(other, "__gt__"))

    def __ge__(self, other: Any) -> bool:
        return bool(self._compare(other, "__ge__"))

    def __lt__(self, other: Any) -> bool:
        return bool(self._compare(other, "__lt__"))

    def __le__(self, other: Any) -> bool:
        return bool(self._compare(other, "__le__"))

    def __eq__(self, other: object) -> bool:
        return bool(self._compare(other, "__eq__"))

    # PyTorch leaves != to str (so TorchVersion("2.0.0") != "2.0" is True while == is True too);
    # kept for the same answers.
    __ne__ = str.__ne__
    __hash__ = str.__hash__
