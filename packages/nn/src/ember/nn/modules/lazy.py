"""``LazyModuleMixin`` and the lazy layers: ``LazyLinear``, ``LazyConv*``, ``LazyConvTranspose*``,
``LazyBatchNorm*`` and ``LazyInstanceNorm*``, whose input size is read off their first input."""

from __future__ import annotations

import itertools
from typing import TYPE_CHECKING, Any

import ember
from ember import Tensor
from ember.nn.modules._state_dict import _EXTRA_STATE_KEY_SUFFIX, _has_extra_state
from ember.nn.modules.conv import Conv1d, Conv2d, Conv3d, ConvTranspose1d, ConvTranspose2d, ConvTranspose3d
from ember.nn.modules.linear import Linear
from ember.nn.modules.normalization import (
    BatchNorm1d,
    BatchNorm2d,
    BatchNorm3d,
    InstanceNorm1d,
    InstanceNorm2d,
    InstanceNorm3d,
    _BatchNorm,
    _InstanceNorm,
    _NormBase,
)
from ember.nn.parameter import UninitializedBuffer, UninitializedParameter, is_lazy

__all__ = ["LazyModuleMixin", "LazyLinear", "LazyConv1d", "LazyConv2d", "LazyConv3d", "LazyConvTranspose1d",
           "LazyConvTranspose2d", "LazyConvTranspose3d", "LazyBatchNorm1d", "LazyBatchNorm2d", "LazyBatchNorm3d",
           "LazyInstanceNorm1d", "LazyInstanceNorm2d", "LazyInstanceNorm3d"]

if TYPE_CHECKING:  # the mixin is always combined with a Module
    from ember.nn.modules.module import Module as _MixinBase
else:
    _MixinBase = object


class LazyModuleMixin(_MixinBase):
    """A mixin for modules whose parameters take their shapes from the first input ("lazy modules").

    Until its first call such a module holds :class:`~ember.nn.UninitializedParameter` (and
    :class:`~ember.nn.UninitializedBuffer`) placeholders, which must not be used. A forward
    pre-hook runs ``initialize_parameters`` on the first input, which materializes them and
    runs the regular layer's ``reset_parameters``; the module then becomes an instance of its
    ``cls_to_become`` (``LazyLinear`` becomes ``Linear``) and the hook is gone.

    Move the network to its device and dtype first (``.to()`` converts the placeholders), then do
    a "dry run" on an input of the right size, and only then build the optimizer over its
    parameters. Since the lazy layers are initialized after the others, the random numbers they
    draw differ from those of the same network built with regular layers.

    A lazy module's ``state_dict`` holds the placeholders; loading a state dict of initialized
    tensors into it materializes its placeholders with the stored shapes first (the values are
    then kept by the first forward).

    Example::

        >>> net = nn.Sequential(nn.LazyLinear(4), nn.ReLU(), nn.LazyLinear(1))
        >>> net[0]
        LazyLinear(in_features=0, out_features=4, bias=True)
        >>> net(ember.ones(2, 3)).shape
        torch.Size([2, 1])
        >>> net[0]
        Linear(in_features=3, out_features=4, bias=True)
    """

    # the class a lazy module turns into once fully initialized (None: it stays)
    cls_to_become: Any = None

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._load_hook = self._register_load_state_dict_pre_hook(self._lazy_load_hook)
        self._initialize_hook = self.register_forward_pre_hook(self._infer_parameters, with_kwargs=True)

    def _save_to_state_dict(self, destination: dict[str, Any], prefix: str, keep_vars: bool) -> None:
        # as Module's, but a placeholder is stored as it is (detach would be a use of it)
        for name, param in self._parameters.items():
            if param is not None:
                destination[prefix + name] = param if keep_vars or is_lazy(param) else param.detach()
        for name, buf in self._buffers.items():
            if buf is not None and name not in self._non_persistent_buffers_set:
                destination[prefix + name] = buf if keep_vars or is_lazy(buf) else buf.detach()
        if _has_extra_state(self):
            destination[prefix + _EXTRA_STATE_KEY_SUFFIX] = self.get_extra_state()

    def _lazy_load_hook(self, state_dict: Any, prefix: str, local_metadata: Any, strict: bool,
                        missing_keys: list[str], unexpected_keys: list[str], error_msgs: list[str]) -> None:
        """load_state_dict pre-hook: a placeholder for which the state dict holds an initialized
        tensor is materialized with its shape, so that the values can be copied in. (A module,
        initialized or not, thus loads a state dict of either kind.)"""
        for name, param in itertools.chain(self._parameters.items(), self._buffers.items()):
            key = prefix + name
            if key in state_dict and param is not None:
                value = state_dict[key]
                if is_lazy(param) and not is_lazy(value):
                    with ember.no_grad():
                        param.materialize(value.shape)

    def initialize_parameters(self, *args: Any, **kwargs: Any) -> None:
        """Materializes the parameters from the first input(s) of ``forward`` (what the forward
        pre-hook runs); each lazy layer defines it, the mixin's raises NotImplementedError."""
        raise NotImplementedError(f"initialize_parameters is not implemented for {self.__class__.__name__}")

    def has_uninitialized_params(self) -> bool:
        """Whether the module still holds an UninitializedParameter or UninitializedBuffer of its own.

        Example::

            >>> nn.LazyLinear(2).has_uninitialized_params()
            True
        """
        return any(is_lazy(t) for t in itertools.chain(self._parameters.values(), self._buffers.values()))

    def _infer_parameters(self, module: Any, args: Any, kwargs: Any = None) -> None:
        # the forward pre-hook: initialize from this input, then drop the hooks and become the
        # regular class
        module.initialize_parameters(*args, **(kwargs or {}))
        if module.has_uninitialized_params():
            raise RuntimeError(f"module {self._get_name()} has not been fully initialized")
        module._initialize_hook.remove()
        module._load_hook.remove()
        delattr(module, "_initialize_hook")
        delattr(module, "_load_hook")
        if module.cls_to_become is not None:
            module.__class__ = module.cls_to_become

    def _replicate_for_data_parallel(self) -> Any:
        raise RuntimeError("Modules with uninitialized parameters can't be used with `DataParallel`. Run a dummy "
                           "forward pass to correctly initialize the modules")


# ---- Linear --------------------------------------------------------------------------------------

class LazyLinear(LazyModuleMixin, Linear):
    """A :class:`~ember.nn.Linear` whose ``in_features`` is inferred from ``input.shape[-1]`` on
    the first call; it then becomes a regular ``Linear``. Until then ``weight`` and ``bias`` are
    :class:`~ember.nn.UninitializedParameter` s (see ``ember.nn.modules.lazy.LazyModuleMixin``).

    Args:
        out_features (int): size of each output sample.
        bias (bool): learn an additive bias.
        device, dtype: where and of what dtype the parameters will be materialized.

    Example::

        >>> m = nn.LazyLinear(2)
        >>> m(ember.ones(5, 3)).shape, m.weight.shape
        (torch.Size([5, 2]), torch.Size([2, 3]))
        >>> type(m).__name__
        'Linear'
    """

    cls_to_become = Linear

    def __init__(self, out_features: int, bias: bool = True, device: Any = None, dtype: Any = None) -> None:
        # a Linear without bias and of no size: its tensors are replaced by the placeholders
        super().__init__(0, 0, False)
        self.weight = UninitializedParameter(device=device, dtype=dtype)
        self.out_features = out_features
        if bias:
            self.bias = UninitializedParameter(device=device, dtype=dtype)

    def reset_parameters(self) -> None:
        """Linear's initialization, once the parameters are materialized (a no-op before)."""
        if not self.has_uninitialized_params() and self.in_features != 0:
            super().reset_parameters()

    def initialize_parameters(self, input: Tensor) -> None:  # type: ignore[override]
        """Sets ``in_features`` from ``input.shape[-1]``, materializes and initializes the parameters."""
        if self.has_uninitialized_params():
            with ember.no_grad():
                self.in_features = input.shape[-1]
                self.weight.materialize((self.out_features, self.in_features))
                if self.bias is not None:
                    self.bias.materialize((self.out_features,))
                self.reset_parameters()
        if self.in_features == 0:  # materialized by load_state_dict
            if input.shape[-1] != self.weight.shape[-1]:
                raise AssertionError(f"The in_features inferred from input: {input.shape[-1]} is not equal to "
                                     f"in_features from self.weight: {self.weight.shape[-1]}")
            self.in_features = input.shape[-1]


# ---- convolutions --------------------------------------------------------------------------------

class _LazyConvXdMixin(LazyModuleMixin):
    in_channels: int
    out_channels: int
    groups: int
    transposed: bool
    kernel_size: tuple[int, ...]

    def _lazy_setup(self, out_channels: int, bias: bool, device: Any, dtype: Any) -> None:
        self.weight = UninitializedParameter(device=device, dtype=dtype)
        self.out_channels = out_channels
        if bias:
            self.bias = UninitializedParameter(device=device, dtype=dtype)

    def reset_parameters(self) -> None:
        """The convolution's initialization, once the parameters are materialized (a no-op before)."""
        if not self.has_uninitialized_params() and self.in_channels != 0:
            super().reset_parameters()  # type: ignore[misc]

    def initialize_parameters(self, input: Tensor, *args: Any, **kwargs: Any) -> None:  # type: ignore[override]
        """Sets ``in_channels`` from the input's channel dimension, materializes and initializes
        the parameters."""
        if self.has_uninitialized_params():
            self.in_channels = self._get_in_channels(input)
            if self.in_channels % self.groups != 0:
                raise ValueError("in_channels must be divisible by groups")
            if not isinstance(self.weight, UninitializedParameter):
                raise AssertionError("self.weight must be an UninitializedParameter")
            if self.transposed:
                self.weight.materialize((self.in_channels, self.out_channels // self.groups, *self.kernel_size))
            else:
                self.weight.materialize((self.out_channels, self.in_channels // self.groups, *self.kernel_size))
            if self.bias is not None:
                if not isinstance(self.bias, UninitializedParameter):
                    raise AssertionError("self.bias must be an UninitializedParameter")
                self.bias.materialize((self.out_channels,))
            self.reset_parameters()

    def _get_in_channels(self, input: Tensor) -> int:
        unbatched = self._get_num_spatial_dims() + 1
        if input.dim() not in (unbatched, unbatched + 1):
            raise RuntimeError(f"Expected {unbatched}D (unbatched) or {unbatched + 1}D (batched) input to "
                               f"{self.__class__.__name__}, but got input of size: {input.shape}")
        return int(input.shape[1] if input.dim() == unbatched + 1 else input.shape[0])

    def _get_num_spatial_dims(self) -> int:
        raise NotImplementedError


class LazyConv1d(_LazyConvXdMixin, Conv1d):
    """A :class:`~ember.nn.Conv1d` whose ``in_channels`` is inferred from ``input.size(1)`` on the
    first call; it then becomes a regular ``Conv1d``. The arguments are Conv1d's less ``in_channels``.

    Example::

        >>> m = nn.LazyConv1d(4, 3)
        >>> m(ember.ones(1, 2, 8)).shape, m.weight.shape
        (torch.Size([1, 4, 6]), torch.Size([4, 2, 3]))
    """

    cls_to_become = Conv1d

    def __init__(self, out_channels: int, kernel_size: Any, stride: Any = 1, padding: Any = 0, dilation: Any = 1,
                 groups: int = 1, bias: bool = True, padding_mode: str = "zeros", device: Any = None,
                 dtype: Any = None) -> None:
        super().__init__(0, 0, kernel_size, stride, padding, dilation, groups, False, padding_mode, device, dtype)
        self._lazy_setup(out_channels, bias, device, dtype)

    def _get_num_spatial_dims(self) -> int:
        return 1


class LazyConv2d(_LazyConvXdMixin, Conv2d):
    """A :class:`~ember.nn.Conv2d` whose ``in_channels`` is inferred from ``input.size(1)`` on the
    first call; it then becomes a regular ``Conv2d``. The arguments are Conv2d's less ``in_channels``.

    Example::

        >>> m = nn.LazyConv2d(4, 3, padding=1)
        >>> m(ember.ones(1, 2, 5, 5)).shape, m.weight.shape
        (torch.Size([1, 4, 5, 5]), torch.Size([4, 2, 3, 3]))
    """

    cls_to_become = Conv2d

    def __init__(self, out_channels: int, kernel_size: Any, stride: Any = 1, padding: Any = 0, dilation: Any = 1,
                 groups: int = 1, bias: bool = True, padding_mode: str = "zeros", device: Any = None,
                 dtype: Any = None) -> None:
        super().__init__(0, 0, kernel_size, stride, padding, dilation, groups, False, padding_mode, device, dtype)
        self._lazy_setup(out_channels, bias, device, dtype)

    def _get_num_spatial_dims(self) -> int:
        return 2


class LazyConv3d(_LazyConvXdMixin, Conv3d):
    """A :class:`~ember.nn.Conv3d` whose ``in_channels`` is inferred from ``input.size(1)`` on the
    first call; it then becomes a regular ``Conv3d``. The arguments are Conv3d's less ``in_channels``.

    Example::

        >>> m = nn.LazyConv3d(2, 1)
        >>> m(ember.ones(1, 3, 2, 2, 2)).shape, m.weight.shape
        (torch.Size([1, 2, 2, 2, 2]), torch.Size([2, 3, 1, 1, 1]))
    """

    cls_to_become = Conv3d

    def __init__(self, out_channels: int, kernel_size: Any, stride: Any = 1, padding: Any = 0, dilation: Any = 1,
                 groups: int = 1, bias: bool = True, padding_mode: str = "zeros", device: Any = None,
                 dtype: Any = None) -> None:
        super().__init__(0, 0, kernel_size, stride, padding, dilation, groups, False, padding_mode, device, dtype)
        self._lazy_setup(out_channels, bias, device, dtype)

    def _get_num_spatial_dims(self) -> int:
        return 3


class LazyConvTranspose1d(_LazyConvXdMixin, ConvTranspose1d):
    """A :class:`~ember.nn.ConvTranspose1d` whose ``in_channels`` is inferred from ``input.size(1)``
    on the first call; it then becomes a regular ``ConvTranspose1d``. The arguments are
    ConvTranspose1d's less ``in_channels``.

    Example::

        >>> m = nn.LazyConvTranspose1d(4, 3)
        >>> m(ember.ones(1, 2, 5)).shape, m.weight.shape
        (torch.Size([1, 4, 7]), torch.Size([2, 4, 3]))
    """

    cls_to_become = ConvTranspose1d

    def __init__(self, out_channels: int, kernel_size: Any, stride: Any = 1, padding: Any = 0,
                 output_padding: Any = 0, groups: int = 1, bias: bool = True, dilation: Any = 1,
                 padding_mode: str = "zeros", device: Any = None, dtype: Any = None) -> None:
        super().__init__(0, 0, kernel_size, stride, padding, output_padding, groups, False, dilation, padding_mode,
                         device, dtype)
        self._lazy_setup(out_channels, bias, device, dtype)

    def _get_num_spatial_dims(self) -> int:
        return 1


class LazyConvTranspose2d(_LazyConvXdMixin, ConvTranspose2d):
    """A :class:`~ember.nn.ConvTranspose2d` whose ``in_channels`` is inferred from ``input.size(1)``
    on the first call; it then becomes a regular ``ConvTranspose2d``. The arguments are
    ConvTranspose2d's less ``in_channels``.

    Example::

        >>> m = nn.LazyConvTranspose2d(4, 2, stride=2)
        >>> m(ember.ones(1, 3, 2, 2)).shape, m.weight.shape
        (torch.Size([1, 4, 4, 4]), torch.Size([3, 4, 2, 2]))
    """

    cls_to_become = ConvTranspose2d

    def __init__(self, out_channels: int, kernel_size: Any, stride: Any = 1, padding: Any = 0,
                 output_padding: Any = 0, groups: int = 1, bias: bool = True, dilation: Any = 1,
                 padding_mode: str = "zeros", device: Any = None, dtype: Any = None) -> None:
        super().__init__(0, 0, kernel_size, stride, padding, output_padding, groups, False, dilation, padding_mode,
                         device, dtype)
        self._lazy_setup(out_channels, bias, device, dtype)

    def _get_num_spatial_dims(self) -> int:
        return 2


class LazyConvTranspose3d(_LazyConvXdMixin, ConvTranspose3d):
    """A :class:`~ember.nn.ConvTranspose3d` whose ``in_channels`` is inferred from ``input.size(1)``
    on the first call; it then becomes a regular ``ConvTranspose3d``. The arguments are
    ConvTranspose3d's less ``in_channels``.

    Example::

        >>> m = nn.LazyConvTranspose3d(2, 1)
        >>> m(ember.ones(1, 3, 2, 2, 2)).shape, m.weight.shape
        (torch.Size([1, 2, 2, 2, 2]), torch.Size([3, 2, 1, 1, 1]))
    """

    cls_to_become = ConvTranspose3d

    def __init__(self, out_channels: int, kernel_size: Any, stride: Any = 1, padding: Any = 0,
                 output_padding: Any = 0, groups: int = 1, bias: bool = True, dilation: Any = 1,
                 padding_mode: str = "zeros", device: Any = None, dtype: Any = None) -> None:
        super().__init__(0, 0, kernel_size, stride, padding, output_padding, groups, False, dilation, padding_mode,
                         device, dtype)
        self._lazy_setup(out_channels, bias, device, dtype)

    def _get_num_spatial_dims(self) -> int:
        return 3


# ---- batch and instance norm ---------------------------------------------------------------------

class _LazyNormBase(LazyModuleMixin, _NormBase):
    def __init__(self, eps: float = 1e-5, momentum: float | None = 0.1, affine: bool = True,
                 track_running_stats: bool = True, device: Any = None, dtype: Any = None, *,
                 bias: bool = True) -> None:
        # built without affine parameters nor running statistics, whose placeholders follow
        super().__init__(0, eps, momentum, False, False, device, dtype)
        self.affine = affine
        self.track_running_stats = track_running_stats
        if self.affine:
            self.weight = UninitializedParameter(device=device, dtype=dtype)
            if bias:
                self.bias = UninitializedParameter(device=device, dtype=dtype)
        if self.track_running_stats:
            self.running_mean = UninitializedBuffer(device=device, dtype=dtype)
            self.running_var = UninitializedBuffer(device=device, dtype=dtype)
            self.num_batches_tracked = ember.tensor(0, dtype=ember.long, device=device)

    def reset_parameters(self) -> None:
        """The layer's initialization (running statistics too), once materialized (a no-op before)."""
        if not self.has_uninitialized_params() and self.num_features != 0:
            super().reset_parameters()

    def initialize_parameters(self, input: Tensor) -> None:  # type: ignore[override]
        """Sets ``num_features`` from ``input.shape[1]``, materializes the parameters and running
        statistics and initializes them."""
        if self.has_uninitialized_params():
            self.num_features = int(input.shape[1])
            if self.affine:
                if not isinstance(self.weight, UninitializedParameter):
                    raise AssertionError("self.weight must be an UninitializedParameter")
                self.weight.materialize((self.num_features,))
                if self.bias is not None:
                    if not isinstance(self.bias, UninitializedParameter):
                        raise AssertionError("self.bias must be an UninitializedParameter")
                    self.bias.materialize((self.num_features,))
            if self.track_running_stats:
                self.running_mean.materialize((self.num_features,))
                self.running_var.materialize((self.num_features,))
            self.reset_parameters()


_NORM_DOC = """A :class:`~ember.nn.{base}` whose ``num_features`` is inferred from ``input.size(1)`` on
    the first call; it then becomes a regular ``{base}``. Until then its weight, bias and running
    statistics are placeholders (:class:`~ember.nn.UninitializedParameter`,
    :class:`~ember.nn.UninitializedBuffer`).

    Args:
        eps (float): added to the variance.
        momentum (float, optional): the running estimates' update rate (None: a cumulative average).
        affine (bool): learn ``weight`` and ``bias``.
        track_running_stats (bool): keep running estimates.
        device, dtype: where and of what dtype the tensors will be materialized.
        bias (bool): learn a ``bias`` (with ``affine``).

    Example::

        >>> m = nn.Lazy{base}()
        >>> m(ember.ones({shape})).shape, m.weight.shape
        (torch.Size([{shape}]), torch.Size([3]))
    """


class LazyBatchNorm1d(_LazyNormBase, _BatchNorm):
    __doc__ = _NORM_DOC.format(base="BatchNorm1d", shape="2, 3")
    cls_to_become = BatchNorm1d

    def _check_input_dim(self, input: Tensor) -> None:
        if input.dim() != 2 and input.dim() != 3:
            raise ValueError(f"expected 2D or 3D input (got {input.dim()}D input)")


class LazyBatchNorm2d(_LazyNormBase, _BatchNorm):
    __doc__ = _NORM_DOC.format(base="BatchNorm2d", shape="2, 3, 2, 2")
    cls_to_become = BatchNorm2d

    def _check_input_dim(self, input: Tensor) -> None:
        if input.dim() != 4:
            raise ValueError(f"expected 4D input (got {input.dim()}D input)")


class LazyBatchNorm3d(_LazyNormBase, _BatchNorm):
    __doc__ = _NORM_DOC.format(base="BatchNorm3d", shape="2, 3, 1, 2, 2")
    cls_to_become = BatchNorm3d

    def _check_input_dim(self, input: Tensor) -> None:
        if input.dim() != 5:
            raise ValueError(f"expected 5D input (got {input.dim()}D input)")


class LazyInstanceNorm1d(_LazyNormBase, _InstanceNorm):
    __doc__ = _NORM_DOC.format(base="InstanceNorm1d", shape="2, 3, 4")
    cls_to_become = InstanceNorm1d
    _dims = 3


class LazyInstanceNorm2d(_LazyNormBase, _InstanceNorm):
    __doc__ = _NORM_DOC.format(base="InstanceNorm2d", shape="2, 3, 2, 2")
    cls_to_become = InstanceNorm2d
    _dims = 4


class LazyInstanceNorm3d(_LazyNormBase, _InstanceNorm):
    __doc__ = _NORM_DOC.format(base="InstanceNorm3d", shape="2, 3, 1, 2, 2")
    cls_to_become = InstanceNorm3d
    _dims = 5
