"""C++ extensions.

This package will provide ``load``, ``load_inline``, ``include_paths``,
:class:`CppExtension` and :class:`BuildExtension` to compile user C++ code
against the headers and library installed with ember's core, mirroring
:mod:`torch.utils.cpp_extension`.
"""

from __future__ import annotations

__all__: list[str] = []
