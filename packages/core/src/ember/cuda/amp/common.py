"""``ember.cuda.amp.common``: whether CUDA mixed precision can run at all."""

from __future__ import annotations

__all__ = ["amp_definitely_not_available"]


def amp_definitely_not_available() -> bool:
    """True when no CUDA device is available (a build without CUDA, or a machine without a GPU):
    a ``"cuda"`` autocast or GradScaler then disables itself. PyTorch also answers False when
    ``torch_xla`` is importable; ember has no XLA backend, so only CUDA counts.

    Returns:
        bool: whether CUDA AMP is definitely unavailable.

    Example::

        >>> from ember.cuda.amp.common import amp_definitely_not_available
        >>> amp_definitely_not_available() == (not ember.cuda.is_available())
        True
    """
    import ember.cuda

    return not ember.cuda.is_available()
