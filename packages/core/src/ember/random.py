"""``ember.random``: seeding and state of the default CPU generator, and ``fork_rng``.

The generator is MT19937 run as PyTorch's CPU generator runs it, so a seed gives
PyTorch's numbers and a state saved by either library restores in the other.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Iterator
from typing import Any

from ember._lib import _C

__all__ = ["fork_rng", "get_rng_state", "initial_seed", "manual_seed", "seed", "set_rng_state"]

default_generator: _C.Generator = _C.default_generator


def manual_seed(seed: Any) -> _C.Generator:
    """Set the seed of the default generator and return it.

    Args:
        seed (int): in ``[-0x8000_0000_0000_0000, 0xffff_ffff_ffff_ffff]``; negative values
            wrap to ``2**64 + seed``. Anything ``int()`` accepts is converted first.

    Example::

        >>> g = ember.manual_seed(0)
        >>> ember.rand(2)
        tensor([0.4963, 0.7682])
    """
    seed = int(seed)
    from ember.cuda import random as cuda_random  # every CUDA generator too (none without CUDA)

    cuda_random.manual_seed_all(seed)
    return default_generator.manual_seed(seed)


def seed() -> int:
    """Seed the default generator (and the CUDA ones) from a non-deterministic source; return the seed."""
    s = default_generator.seed()
    from ember.cuda import random as cuda_random

    cuda_random.manual_seed_all(s)
    return s


def initial_seed() -> int:
    """The seed the default generator was last seeded with."""
    return default_generator.initial_seed()


def get_rng_state() -> Any:
    """The default generator's state as a ``uint8`` tensor (PyTorch's 5056-byte layout)."""
    return default_generator.get_state()


def set_rng_state(new_state: Any) -> None:
    """Restore the default generator from a state made by ``get_rng_state``."""
    default_generator.set_state(new_state)


@contextlib.contextmanager
def fork_rng(devices: Iterable[Any] | None = None, enabled: bool = True, _caller: str = "fork_rng",
             _devices_kw: str = "devices", device_type: str = "cuda") -> Iterator[None]:
    """Context manager (or decorator) that restores the RNG state on exit.

    The CPU state is always forked, and the CUDA generators of ``devices`` (default: device 0
    when there is a GPU). Without CUDA, asking for specific devices raises.

    Args:
        devices: device ids whose generators to fork too (default: all, i.e. none here).
        enabled: ``False`` makes this a no-op, to switch forking off without re-indenting.
        device_type: the device module (``"cuda"``); ``"meta"`` forks nothing.

    Example::

        >>> with ember.random.fork_rng():
        ...     x = ember.rand(3)   # draws here do not disturb the outer stream
    """
    if not enabled or device_type == "meta":
        yield
        return
    if device_type != "cuda":
        raise RuntimeError(f"torch has no module of `{device_type}`, you should register a module by "
                           "`torch._register_device_module`.")
    from ember.cuda import random as cuda_random

    if devices is None:
        devices = range(min(1, cuda_random._count()))  # PyTorch: device 0 by default
    devices = list(devices)
    if devices and not _C._cuda_is_compiled():
        raise _C.CudaNotCompiledError("Torch not compiled with CUDA enabled")
    state = get_rng_state()
    device_states = [cuda_random.get_rng_state(d) for d in devices]
    try:
        yield
    finally:
        set_rng_state(state)
        for d, s in zip(devices, device_states):
            cuda_random.set_rng_state(s, d)
