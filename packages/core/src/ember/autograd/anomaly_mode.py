"""Anomaly detection: record forward stacks and check backward results for NaN."""

from __future__ import annotations

from typing import Any

from ember._lib import _C
from ember.autograd.grad_mode import _DecoratorContextManager


class detect_anomaly(_DecoratorContextManager):
    """Within this context, a backward that produces NaN raises, naming the forward op and its stack."""

    def __init__(self, check_nan: bool = True) -> None:
        self.check_nan = check_nan
        self.prev = _C.is_anomaly_enabled()
        self.prev_check_nan = _C.is_anomaly_check_nan_enabled()

    def __enter__(self) -> None:
        import warnings

        warnings.warn("Anomaly Detection has been enabled. This mode will increase the runtime and should "
                      "only be enabled for debugging.", UserWarning, stacklevel=2)
        _C._set_anomaly_enabled(True, self.check_nan)

    def __exit__(self, *exc: Any) -> None:
        _C._set_anomaly_enabled(self.prev, self.prev_check_nan)

    def clone(self) -> detect_anomaly:
        return self.__class__(self.check_nan)


class set_detect_anomaly:
    """Turn anomaly detection on or off (at once; restored on exit when used with ``with``)."""

    def __init__(self, mode: bool, check_nan: bool = True) -> None:
        self.prev = _C.is_anomaly_enabled()
        self.prev_check_nan = _C.is_anomaly_check_nan_enabled()
        _C._set_anomaly_enabled(mode, check_nan)

    def __enter__(self) -> None:
        pass

    def __exit__(self, *exc: Any) -> None:
        _C._set_anomaly_enabled(self.prev, self.prev_check_nan)
