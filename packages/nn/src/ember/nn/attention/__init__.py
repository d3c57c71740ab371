"""``torch.nn.attention``: choose the kernel ``scaled_dot_product_attention`` runs.

:func:`sdpa_kernel` restricts the kernels to a set of :class:`SDPBackend` members for the length of
a ``with`` block, through the same flags as ``ember.backends.cuda.enable_flash_sdp`` and its
siblings. On CPU (ember's one device, as PyTorch's CPU build) two kernels exist: the fused
``FLASH_ATTENTION`` kernel and ``MATH``; ``EFFICIENT_ATTENTION``, ``CUDNN_ATTENTION`` and
``OVERRIDEABLE`` name CUDA / extension kernels, so a block that enables only those finds no kernel.
``ember.nn.attention.bias`` holds causal masks that run as ``attn_mask``.
"""

from __future__ import annotations

import contextlib
import enum
import logging
from collections.abc import Callable, Iterable, Iterator
from typing import Any

import ember.backends.cuda as _cuda

__all__ = ["SDPBackend", "sdpa_kernel", "WARN_FOR_UNFUSED_KERNELS", "register_flash_attention_impl",
           "activate_flash_attention_impl", "list_flash_attention_impls", "current_flash_attention_impl",
           "restore_flash_attention_impl"]

# When True, a bias subclass (ember.nn.attention.bias) that falls back to a materialized mask warns
# why the fused kernels could not run (PyTorch's Note [SDPA warnings]).
WARN_FOR_UNFUSED_KERNELS = False


class SDPBackend(enum.Enum):
    """The kernels of scaled dot product attention, with PyTorch's values.

    ``ERROR`` (-1) means none could be chosen; ``MATH`` (0) is the composite reference
    implementation; ``FLASH_ATTENTION`` (1) the fused flash kernel (ember's CPU one);
    ``EFFICIENT_ATTENTION`` (2) and ``CUDNN_ATTENTION`` (3) are CUDA kernels; ``OVERRIDEABLE`` (4)
    is for out-of-tree device extensions. ``int(backend)`` gives the value.
    """

    ERROR = -1
    MATH = 0
    FLASH_ATTENTION = 1
    EFFICIENT_ATTENTION = 2
    CUDNN_ATTENTION = 3
    OVERRIDEABLE = 4

    def __int__(self) -> int:
        """The backend's value."""
        return int(self.value)

    def __index__(self) -> int:
        """The backend's value (so a backend can index a list, as PyTorch's enum can)."""
        return int(self.value)


# the flag name of each backend, as aten's global context keeps them
_backend_names = {"cudnn": "CUDNN_ATTENTION", "flash": "FLASH_ATTENTION", "mem_efficient": "EFFICIENT_ATTENTION",
                  "math": "MATH", "overrideable": "OVERRIDEABLE"}

# ember.backends.cuda holds four of the flags; the overrideable one (no setter in torch.backends.cuda
# either) and the priority order live here
_overrideable_enabled = True
_priority_order = [1, 2, 0, 3, 4]  # aten's default: flash, efficient, math, cuDNN, overrideable


def _get_enabled(name: str) -> bool:
    if name == "overrideable":
        return _overrideable_enabled
    return bool(getattr(_cuda, f"{name}_sdp_enabled")())


def _set_enabled(name: str, enabled: bool) -> None:
    global _overrideable_enabled
    if name == "overrideable":
        _overrideable_enabled = enabled
    else:
        getattr(_cuda, f"enable_{name}_sdp")(enabled)


def _backend_from_string(name: str) -> SDPBackend:
    return SDPBackend[name]


def _cur_sdpa_kernel_backends(with_priority: bool = False) -> list[SDPBackend]:
    """The enabled backends (in the current priority order with ``with_priority``)."""
    backends = [SDPBackend[val] for name, val in _backend_names.items() if _get_enabled(name)]
    if with_priority:
        backends.sort(key=lambda b: _priority_order.index(int(b)))
    return backends


def _sdpa_kernel(backends: Iterable[SDPBackend], set_priority: bool = False) -> None:
    """Enable exactly ``backends`` (and, with ``set_priority``, put them first in their order)."""
    global _priority_order
    backends = list(backends)
    for name, val in _backend_names.items():
        _set_enabled(name, SDPBackend[val] in backends)
    if set_priority:
        user_priority = [int(b) for b in backends]
        user_priority += [b for b in _priority_order if b not in user_priority]
        _priority_order = user_priority


@contextlib.contextmanager
def sdpa_kernel(backends: list[SDPBackend] | SDPBackend, set_priority: bool = False) -> Iterator[dict[str, Any]]:
    """Enable only ``backends`` for ``scaled_dot_product_attention`` inside the ``with`` block.

    Args:
        backends (SDPBackend or list of SDPBackend): the kernels allowed.
        set_priority (bool): take the list's order as the kernels' priority. ember's CPU choice has a
            fixed order (flash when it applies, then math), as PyTorch's CPU build, so this only
            changes what ``_cur_sdpa_kernel_backends(with_priority=True)`` reports.

    On exit the previous flags (and order) are restored. Enabling only ``EFFICIENT_ATTENTION``,
    ``CUDNN_ATTENTION`` or ``OVERRIDEABLE`` leaves CPU inputs without a kernel: attention raises
    ``RuntimeError("No viable backend ...")``. With only ``FLASH_ATTENTION``, inputs the fused
    kernel cannot take (3-d, dropout, a strided last dim, ...) warn why and raise
    ``RuntimeError("No available kernel.  Aborting execution.")``.

    Example::

        >>> from ember.nn.attention import SDPBackend, sdpa_kernel
        >>> q = ember.randn(1, 2, 4, 8)
        >>> with sdpa_kernel(SDPBackend.MATH):
        ...     out = F.scaled_dot_product_attention(q, q, q)
    """
    if not isinstance(backends, (list, SDPBackend)):
        raise AssertionError("Backend must be an instance of SDPBackend or a list of SDPBackend instances, got "
                             f"{type(backends).__name__}")
    if isinstance(backends, SDPBackend):
        backends = [backends]
    backends = list(dict.fromkeys(backends))
    previous = _cur_sdpa_kernel_backends(with_priority=set_priority)
    try:
        _sdpa_kernel(backends, set_priority)
        yield {}
    finally:
        _sdpa_kernel(previous, set_priority)


@contextlib.contextmanager
def _sdpa_kernel_variadic(*backends: SDPBackend) -> Iterator[None]:
    with sdpa_kernel(list(backends)):
        yield


def _get_flash_version() -> str:
    """The flash-attention release PyTorch's kernel tracks."""
    return "2.5.7"


# ---- flash-attention implementation registry (torch/nn/attention/_registry.py) -------------------

logger = logging.getLogger(__name__)

_FLASH_ATTENTION_IMPLS: dict[str, Callable[..., Any]] = {}
_FLASH_ATTENTION_ACTIVE: tuple[str, Any] | None = None


def register_flash_attention_impl(impl: str, *, register_fn: Callable[..., Any]) -> None:
    """Register ``register_fn`` as the activator of the flash-attention implementation ``impl``.

    Meant for kernel providers; users call :func:`activate_flash_attention_impl`. ember registers
    none of PyTorch's CUDA implementations (FA3, FA4), so the registry starts empty.
    """
    _FLASH_ATTENTION_IMPLS[impl] = register_fn


def activate_flash_attention_impl(impl: str) -> None:
    """Activate the registered implementation ``impl`` (after restoring the default one).

    Raises ``ValueError`` for a name nobody registered. A handle ``register_fn`` returns is kept
    (its ``remove()`` runs on :func:`restore_flash_attention_impl`).
    """
    global _FLASH_ATTENTION_ACTIVE
    restore_flash_attention_impl(_raise_warn=False)
    register_fn = _FLASH_ATTENTION_IMPLS.get(impl)
    if register_fn is None:
        raise ValueError(f"Unknown flash attention impl '{impl}'. Available implementations: "
                         f"{list_flash_attention_impls()}")
    handle = register_fn()
    if handle is not None:
        _FLASH_ATTENTION_ACTIVE = (impl, handle)


def list_flash_attention_impls() -> list[str]:
    """The names of the registered flash-attention implementations, sorted."""
    return sorted(_FLASH_ATTENTION_IMPLS.keys())


def current_flash_attention_impl() -> str | None:
    """The name of the activated implementation, or None for the default."""
    return _FLASH_ATTENTION_ACTIVE[0] if _FLASH_ATTENTION_ACTIVE is not None else None


def restore_flash_attention_impl(_raise_warn: bool = True) -> None:
    """Go back to the default flash-attention kernel, removing the activated implementation's handle
    (logging a warning when none was active)."""
    global _FLASH_ATTENTION_ACTIVE
    handle = _FLASH_ATTENTION_ACTIVE[1] if _FLASH_ATTENTION_ACTIVE is not None else None
    if handle is not None:
        handle.remove()
    elif _raise_warn:
        logger.warning("Trying to restore default FA2 impl when no custom impl was activated")
    _FLASH_ATTENTION_ACTIVE = None
