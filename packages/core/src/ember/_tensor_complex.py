"""The complex-number members of ``Tensor``: the ``real`` / ``imag`` properties (views, with
setters that write into them), ``__complex__`` and the ``cfloat`` / ``cdouble`` casts."""

from __future__ import annotations

from typing import Any

from ember._lib import _C


class ComplexMethods:
    """Mixed into ``ember.Tensor``."""

    __slots__ = ()

    @property
    def real(self) -> Any:
        """The real parts of a complex tensor, as a real view of it; a real tensor itself.

        Example::

            >>> ember.tensor([1+2j, 3-4j]).real
            tensor([1., 3.])
        """
        return _C.real(self)

    @real.setter
    def real(self, value: Any) -> None:
        _C.real(self).copy_(value)

    @property
    def imag(self) -> Any:
        """The imaginary parts of a complex tensor, as a real view of it (RuntimeError for a real
        tensor).

        Example::

            >>> ember.tensor([1+2j, 3-4j]).imag
            tensor([ 2., -4.])
        """
        return _C.imag(self)

    @imag.setter
    def imag(self, value: Any) -> None:
        if self.is_conj():  # type: ignore[attr-defined]
            # a conjugate view stores -imag: write the negated values into its memory (self.conj())
            stored = _C.imag(self.conj())  # type: ignore[attr-defined]
            stored.copy_(value)
            stored.neg_()
            return
        _C.imag(self).copy_(value)

    def __complex__(self) -> complex:
        """The single element as a Python complex number."""
        if self.numel() != 1:  # type: ignore[attr-defined]
            raise ValueError("only one element tensors can be converted to Python scalars")
        return complex(self.item())  # type: ignore[attr-defined]

    def cfloat(self, memory_format: Any = _C.preserve_format) -> Any:
        """Returns this tensor converted to complex64 (``self.to(ember.complex64)``); the tensor
        itself when it already has that dtype.

        Args:
            memory_format (ember.memory_format): the memory layout of a converted result.

        Returns:
            Tensor: the converted tensor.
        """
        return self._cast_in(_C.complex64, memory_format, "cfloat")  # type: ignore[attr-defined]

    def chalf(self, memory_format: Any = _C.preserve_format) -> Any:
        """Returns this tensor converted to complex32 (``self.to(ember.complex32)``); the tensor
        itself when it already has that dtype.

        Args:
            memory_format (ember.memory_format): the memory layout of a converted result.

        Returns:
            Tensor: the converted tensor.
        """
        return self._cast_in(_C.complex32, memory_format, "chalf")  # type: ignore[attr-defined]

    def cdouble(self, memory_format: Any = _C.preserve_format) -> Any:
        """Returns this tensor converted to complex128 (``self.to(ember.complex128)``); the tensor
        itself when it already has that dtype.

        Args:
            memory_format (ember.memory_format): the memory layout of a converted result.

        Returns:
            Tensor: the converted tensor.
        """
        return self._cast_in(_C.complex128, memory_format, "cdouble")  # type: ignore[attr-defined]
