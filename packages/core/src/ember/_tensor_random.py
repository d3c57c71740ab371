"""In-place random sampling methods of ``ember.Tensor`` (uniform_, normal_, random_, ...)."""

from __future__ import annotations

from ember._lib import _C


class RandomMethods:
    """Mixed into ``ember.Tensor``: ``uniform_``, ``normal_``, ``exponential_``, ``cauchy_``,
    ``log_normal_``, ``geometric_``, ``random_``, ``bernoulli_``, ``bernoulli`` and
    ``multinomial``.

    Each is a method descriptor of ``_C.TensorBase`` (csrc/python/py_random.cpp) that parses
    PyTorch's signature, ``generator=`` included, and samples in C++ -- no Python frame per call.
    """

    __slots__ = ()


for _name, _method in _C._random_methods.items():
    setattr(RandomMethods, _name, _method)
del _name, _method
