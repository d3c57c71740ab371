"""``PrefixStore``: a namespace ``"<prefix>/"`` inside another store."""

from __future__ import annotations

from datetime import timedelta

from ._base import Store


class PrefixStore(Store):
    """Prepends ``prefix + "/"`` to every key before delegating to ``store``."""

    def __init__(self, prefix: str, store: Store) -> None:
        if not isinstance(prefix, str) or not isinstance(store, Store):
            raise TypeError("__init__(): incompatible function arguments. PrefixStore(prefix: str, store: Store)")
        super().__init__(store.timeout)
        self._prefix = prefix
        self._store = store

    @property
    def underlying_store(self) -> Store:
        return self._store

    @property
    def _underlying_non_prefix_store(self) -> Store:
        store = self._store
        while isinstance(store, PrefixStore):
            store = store._store
        return store

    # The timeout lives in the underlying store, as in torch: both views see one value.
    @property
    def timeout(self) -> timedelta:
        return self._store.timeout

    def set_timeout(self, timeout: timedelta) -> None:
        """Sets the timeout of the wrapped store (the prefix store has none of its own)."""
        self._store.set_timeout(timeout)

    def _k(self, key: str) -> str:
        return f"{self._prefix}/{key}"

    def _set(self, key: str, value: bytes) -> None:
        self._store._set(self._k(key), value)

    def _multi_get(self, keys: list[str], timeout: float) -> list[bytes]:
        return self._store._multi_get([self._k(k) for k in keys], timeout)

    def _get(self, key: str, timeout: float) -> bytes:
        return self._store._get(self._k(key), timeout)

    def _wait(self, keys: list[str], timeout: float) -> None:
        self._store._wait([self._k(k) for k in keys], timeout)

    def _add(self, key: str, amount: int) -> int:
        return self._store._add(self._k(key), amount)

    def _compare_set(self, key: str, expected: bytes, desired: bytes) -> bytes:
        return self._store._compare_set(self._k(key), expected, desired)

    def _check(self, keys: list[str]) -> bool:
        return self._store._check([self._k(k) for k in keys])

    def _delete_key(self, key: str) -> bool:
        return self._store._delete_key(self._k(key))

    def _num_keys(self) -> int:
        # torch counts the whole underlying store here, not just this prefix.
        return self._store._num_keys()

    def _append(self, key: str, value: bytes) -> None:
        self._store._append(self._k(key), value)

    def _multi_set(self, keys: list[str], values: list[bytes]) -> None:
        self._store._multi_set([self._k(k) for k in keys], values)

    def _list_keys(self) -> list[str]:
        head = self._prefix + "/"
        return [k[len(head) :] for k in self._store._list_keys() if k.startswith(head)]
