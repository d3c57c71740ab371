"""ember.signal: signal-processing helpers of torch.signal (its ``windows``)."""

from ember.signal import windows

__all__ = ["windows"]
