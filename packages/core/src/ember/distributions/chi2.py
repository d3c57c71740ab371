"""The chi-squared distribution."""

from __future__ import annotations

from typing import Any

from . import constraints
from .gamma import Gamma

__all__ = ["Chi2"]


class Chi2(Gamma):
    """Chi-squared distribution with ``df`` degrees of freedom: ``Gamma(df / 2, 1 / 2)``.

    Example::

        >>> Chi2(ember.tensor(3.0)).variance
        tensor(6.)
    """

    arg_constraints = {"df": constraints.positive}

    def __init__(self, df: Any, validate_args: Any = None) -> None:
        super().__init__(0.5 * df, 0.5, validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> Chi2:
        new = self._get_checked_instance(Chi2, _instance)
        return super().expand(batch_shape, new)

    @property
    def df(self) -> Any:
        """The degrees of freedom."""
        return self.concentration * 2


