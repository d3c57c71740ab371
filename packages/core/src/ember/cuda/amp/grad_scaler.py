"""``ember.cuda.amp.GradScaler``: the deprecated spelling of ``ember.amp.GradScaler("cuda", ...)``."""

from __future__ import annotations

from ember.amp import grad_scaler as _grad_scaler
from ember.amp.grad_scaler import OptState  # noqa: F401  (kept importable from here, as PyTorch does)
from ember.cuda.amp.autocast_mode import _deprecated

__all__ = ["GradScaler"]


class GradScaler(_grad_scaler.GradScaler):
    """See ``ember.amp.GradScaler``. ``ember.cuda.amp.GradScaler(args...)`` is deprecated: it is
    ``ember.amp.GradScaler("cuda", args...)`` and emits PyTorch's FutureWarning.

    Args:
        init_scale (float): the scale to start from.
        growth_factor (float): the factor the scale grows by after ``growth_interval`` clean steps.
        backoff_factor (float): the factor the scale shrinks by after a step with inf/NaN gradients.
        growth_interval (int): the number of consecutive clean steps before the scale grows.
        enabled (bool): False makes every method a pass-through.
    """

    @_deprecated("`torch.cuda.amp.GradScaler(args...)` is deprecated. Please use "
                 "`torch.amp.GradScaler('cuda', args...)` instead.")
    def __init__(self, init_scale: float = 2.0**16, growth_factor: float = 2.0, backoff_factor: float = 0.5,
                 growth_interval: int = 2000, enabled: bool = True) -> None:
        super().__init__("cuda", init_scale=init_scale, growth_factor=growth_factor, backoff_factor=backoff_factor,
                         growth_interval=growth_interval, enabled=enabled)
