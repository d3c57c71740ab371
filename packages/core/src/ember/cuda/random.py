"""ember.cuda.random: the CUDA devices' default generators (Philox, a seed and an offset each), as
torch.cuda.random. Without CUDA (or without a GPU) the seeding calls are no-ops and the state
queries raise, as in PyTorch; PyTorch defers seeding until CUDA starts, ember seeds at once (the
generators are host objects: seeding them starts nothing)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

__all__ = ["get_rng_state", "get_rng_state_all", "initial_seed", "manual_seed", "manual_seed_all", "seed",
           "seed_all", "set_rng_state", "set_rng_state_all"]


def _C() -> Any:
    from ember._lib import _C as c

    return c


def _count() -> int:
    """The devices to seed: none without a CUDA build or a GPU."""
    c = _C()
    return int(c._cuda_device_count()) if c._cuda_is_compiled() else 0


def _current() -> int:
    """The current device, without starting CUDA (before it starts, the current device is 0)."""
    c = _C()
    return int(c._cuda_current_device()) if c._cuda_is_initialized() else 0


def _generator(device: Any = "cuda") -> Any:
    """Device `device`'s default generator (an int, "cuda", "cuda:i" or an ember.device)."""
    c = _C()
    if not c._cuda_is_compiled():
        raise c.CudaNotCompiledError("Torch not compiled with CUDA enabled")
    if isinstance(device, int):
        idx = device
    else:
        import ember

        d = ember.device(device)
        idx = -1 if d.index is None else d.index
    return c._cuda_default_generator(int(c._cuda_current_device()) if idx < 0 else idx)


def manual_seed(seed: int) -> None:
    """Seed the current CUDA device's generator (a no-op without CUDA)."""
    seed = int(seed)
    if _count():
        _generator(_current()).manual_seed(seed)


def manual_seed_all(seed: int) -> None:
    """Seed every CUDA device's generator (a no-op without CUDA)."""
    seed = int(seed)
    for i in range(_count()):
        _generator(i).manual_seed(seed)


def seed() -> None:
    """Seed the current CUDA device's generator from a non-deterministic source."""
    if _count():
        _generator(_current()).seed()


def seed_all() -> None:
    """Seed every CUDA device's generator with one non-deterministic seed."""
    n = _count()
    if n:
        s = _generator(0).seed()
        for i in range(1, n):
            _generator(i).manual_seed(s)


def initial_seed() -> int:
    """The current CUDA device's seed (raises without CUDA, as in PyTorch)."""
    return int(_generator("cuda").initial_seed())


def get_rng_state(device: Any = "cuda") -> Any:
    """A CUDA generator's state: a 16-byte uint8 tensor (seed, then Philox offset)."""
    return _generator(device).get_state()


def get_rng_state_all() -> list[Any]:
    """Every GPU's generator state, in device order."""
    return [get_rng_state(i) for i in range(_count())]


def set_rng_state(new_state: Any, device: Any = "cuda") -> None:
    """Restore a CUDA generator from get_rng_state's tensor (a no-op without CUDA)."""
    if _count():
        _generator(device).set_state(new_state.clone())


def set_rng_state_all(new_states: Iterable[Any]) -> None:
    """Set each GPU's generator state from ``new_states``, in device order."""
    for i, state in enumerate(new_states):
        set_rng_state(state, i)
