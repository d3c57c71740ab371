"""Changing the memory format of convolution weights only (``convert_conv2d_weight_memory_format``,
``convert_conv3d_weight_memory_format``).

``module.to(memory_format=...)`` restrides every 4-D (or 5-D) tensor of a model; these helpers
restride just the weights of the (transposed) convolutions, the layers whose kernels gain from a
channels-last layout, and leave every other layer alone.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, TypeVar, cast

if TYPE_CHECKING:
    from ember.nn.modules.module import Module

__all__ = ["convert_conv2d_weight_memory_format", "convert_conv3d_weight_memory_format"]

_M = TypeVar("_M", bound="Module")


def _convert(module: Any, kinds: tuple[type, ...], memory_format: Any) -> None:
    if isinstance(module, kinds):
        module = cast(Any, module)
        data = module.weight.detach().clone(memory_format=memory_format)
        module.weight.data = data.resize_(data.size(), memory_format=memory_format)
    for child in module.children():
        _convert(child, kinds, memory_format)


def convert_conv2d_weight_memory_format(module: _M, memory_format: Any) -> _M:
    """Restride the weight of every ``nn.Conv2d`` and ``nn.ConvTranspose2d`` in ``module`` (itself
    included, then its children recursively) to ``memory_format``.

    Only the memory layout changes, not the meaning of the dimensions: outputs are unchanged.

    Args:
        module (nn.Module): a ``Conv2d``, a ``ConvTranspose2d`` or a module holding some.
        memory_format (ember.memory_format): e.g. ``ember.channels_last`` or
            ``ember.contiguous_format``.

    Returns:
        ``module`` itself, updated in place.

    Example::

        >>> model = nn.Sequential(nn.Conv2d(8, 4, 3), nn.ReLU())
        >>> model = nn.utils.convert_conv2d_weight_memory_format(model, ember.channels_last)
        >>> model[0].weight.is_contiguous(memory_format=ember.channels_last)
        True
    """
    from ember.nn.modules.conv import Conv2d, ConvTranspose2d

    _convert(module, (Conv2d, ConvTranspose2d), memory_format)
    return module


def convert_conv3d_weight_memory_format(module: _M, memory_format: Any) -> _M:
    """Restride the weight of every ``nn.Conv3d`` and ``nn.ConvTranspose3d`` in ``module`` (itself
    included, then its children recursively) to ``memory_format``.

    Only the memory layout changes, not the meaning of the dimensions: outputs are unchanged.

    Args:
        module (nn.Module): a ``Conv3d``, a ``ConvTranspose3d`` or a module holding some.
        memory_format (ember.memory_format): e.g. ``ember.channels_last_3d`` or
            ``ember.contiguous_format``.

    Returns:
        ``module`` itself, updated in place.

    Example::

        >>> model = nn.Sequential(nn.Conv3d(8, 4, 3))
        >>> model = nn.utils.convert_conv3d_weight_memory_format(model, ember.channels_last_3d)
        >>> model[0].weight.is_contiguous(memory_format=ember.channels_last_3d)
        True
    """
    from ember.nn.modules.conv import Conv3d, ConvTranspose3d

    _convert(module, (Conv3d, ConvTranspose3d), memory_format)
    return module
