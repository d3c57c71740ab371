"""``rendezvous(url, rank, world_size)``: the store, rank and world size an init method names
(``env://``, ``tcp://host:port``, ``file:///path``), as ``init_process_group`` finds them, and
``register_rendezvous_handler`` for other URL schemes."""

from __future__ import annotations

import numbers
from collections.abc import Callable, Iterator
from datetime import timedelta
from typing import Any
from urllib.parse import urlparse

_handlers: dict[str, Callable[..., Iterator[tuple[Any, int, int]]]] = {}


def register_rendezvous_handler(scheme: str, handler: Callable[..., Any]) -> None:
    """Makes ``rendezvous`` (and so ``init_process_group``'s ``init_method``) accept URLs of
    ``scheme``: ``handler(url, **kwargs)`` yields ``(store, rank, world_size)`` tuples.

    Args:
        scheme (str): the URL scheme (e.g. ``"myrdzv"``).
        handler (Callable): the generator function.
    """
    if scheme in _handlers or scheme in ("env", "tcp", "file"):
        raise RuntimeError(f"Rendezvous handler for {scheme}:// already registered")
    _handlers[scheme] = handler


def _builtin(url: str, rank: int, world_size: int, **kwargs: Any) -> Iterator[tuple[Any, int, int]]:
    from .process_group import _store_for

    timeout = kwargs.get("timeout", timedelta(seconds=300))
    yield _store_for(url, rank, world_size, timeout)
    raise RuntimeError(f"Unable to perform re-rendezvous using {urlparse(url).scheme}:// method")


def rendezvous(url: str, rank: int = -1, world_size: int = -1,
               **kwargs: Any) -> Iterator[tuple[Any, int, int]]:
    """An iterator of ``(store, rank, world_size)`` for the init method ``url``; rank and world
    size come from the arguments, else the URL's query or the environment (``env://``).

    Args:
        url (str): ``env://``, ``tcp://host:port?rank=..&world_size=..``, ``file:///path?...``
            or a registered scheme.
        rank (int): this process's rank (-1: from the URL or environment).
        world_size (int): the number of processes (-1: from the URL or environment).
    """
    if not isinstance(url, (str, bytes)):
        raise RuntimeError(f"`url` must be a string. {type(url)}: {url}")
    if not isinstance(rank, numbers.Integral):
        raise RuntimeError(f"`rank` must be an integer. {rank}")
    if not isinstance(world_size, numbers.Integral):
        raise RuntimeError(f"`world_size` must be an integer. {world_size}")
    url = url.decode() if isinstance(url, bytes) else url
    scheme = urlparse(url).scheme
    if scheme in ("env", "tcp", "file"):
        return _builtin(url, int(rank), int(world_size), **kwargs)
    if scheme not in _handlers:
        raise RuntimeError(f"No rendezvous handler for {scheme}://")
    return _handlers[scheme](url, **kwargs)
