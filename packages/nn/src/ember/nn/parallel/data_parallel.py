"""``DataParallel`` and its functional form ``data_parallel``: single-process data parallelism
over the GPUs of one machine (PyTorch's ``torch.nn.parallel.data_parallel``). Without a GPU
the wrapper calls the module as it is."""

from __future__ import annotations

import contextlib
import operator
import warnings
from collections.abc import Callable, Iterator, Sequence
from itertools import chain
from typing import Any, Generic, TypeVar

import ember
from ember._lib import _C
from ember.nn.modules.module import Module
from ember.nn.parallel._utils import _all_device_indices, _available_device_type, _get_device_index
from ember.nn.parallel.parallel_apply import parallel_apply
from ember.nn.parallel.replicate import replicate
from ember.nn.parallel.scatter_gather import gather, scatter_kwargs

__all__ = ["DataParallel", "data_parallel"]


def _check_balance(device_ids: Sequence[Any]) -> None:
    """Warns when one GPU has under 75% of the memory (or else of the multiprocessors) of another."""
    imbalance_warn = """
    There is an imbalance between your GPUs. You may want to exclude GPU {} which
    has less than 75% of the memory or cores of GPU {}. You can do so by setting
    the device_ids argument to DataParallel, or by setting the CUDA_VISIBLE_DEVICES
    environment variable."""
    device_ids = [_get_device_index(x, True) for x in device_ids]
    dev_props = [ember.cuda.get_device_properties(i) for i in device_ids]

    def warn_imbalance(get_prop: Callable[[Any], int]) -> bool:
        values = [get_prop(props) for props in dev_props]
        min_pos, min_val = min(enumerate(values), key=operator.itemgetter(1))
        max_pos, max_val = max(enumerate(values), key=operator.itemgetter(1))
        if min_val / max_val < 0.75:
            warnings.warn(imbalance_warn.format(device_ids[min_pos], device_ids[max_pos]), stacklevel=2)
            return True
        return False

    if warn_imbalance(lambda props: props.total_memory):
        return
    warn_imbalance(lambda props: props.multi_processor_count)


@contextlib.contextmanager
def _record_function(name: str) -> Iterator[None]:
    """The profiler's label around a block (one C call when nothing is profiled)."""
    if not _C._profiler_active():
        yield
        return
    _C._record_function_enter(name)
    try:
        yield
    finally:
        if _C._profiler_active():
            _C._record_function_exit()


def _check_device(module: Module, src_device_obj: ember.device) -> None:
    for t in chain(module.parameters(), module.buffers()):
        if t.device != src_device_obj:
            raise RuntimeError(f"module must have its parameters and buffers on device {src_device_obj} "
                               f"(device_ids[0]) but found one of them on device: {t.device}")


T = TypeVar("T", bound=Module)


class DataParallel(Module, Generic[T]):
    r"""Data parallelism at the module level: each forward splits the batch over GPUs.

    The inputs are split along ``dim`` across ``device_ids`` (tensors are chunked; tuples, lists
    and dicts are walked and shallow-copied per device; other objects are shared by every
    device), the module is replicated onto each device used, the replicas run side by side (one
    thread each) and their outputs are concatenated on ``output_device``. In the backward pass
    the gradients of all replicas are summed into the original module's parameters.

    The batch should be larger than the number of GPUs: a batch that splits into fewer chunks
    than devices uses only the first devices.

    ``module`` must have its parameters and buffers on ``device_ids[0]`` when called.

    .. warning::
        The module is replicated in every forward, so changes a replica's ``forward`` makes to
        its module's attributes are lost. The replica on ``device_ids[0]`` shares its
        parameters' and buffers' storage with ``module`` though, so in-place updates made there
        are kept: BatchNorm's running statistics are those of the first device's part of the
        batch (the other replicas' updates are lost).

    .. warning::
        Forward and backward hooks of ``module`` and its submodules run once per device, each
        with that device's inputs, in no defined order across devices.

    .. warning::
        When ``module`` returns a scalar (a 0-d tensor), the wrapper returns a vector with one
        element per device used, with a warning.

    Without a GPU (or a CUDA build) ``device_ids`` is ``[]`` and the module is called as it is.

    Args:
        module (nn.Module): the module to parallelize.
        device_ids (list of int or ember.device): the CUDA devices (default: all of them).
        output_device (int or ember.device): the device of the output (default:
            ``device_ids[0]``; -1: the CPU).
        dim (int): the dimension the inputs are split and the outputs joined along. Default: 0.

    Attributes:
        module (nn.Module): the module being parallelized.

    Example::

        net = ember.nn.DataParallel(model, device_ids=[0, 1])
        output = net(input_var)  # input_var can be on any device, the CPU included
    """

    def __init__(self, module: T, device_ids: Sequence[Any] | None = None, output_device: Any = None,
                 dim: int = 0) -> None:
        super().__init__()
        device_type = _available_device_type()
        if device_type is None:
            self.module = module
            self.device_ids: list[int] = []
            return
        self.dim = dim
        self.module = module
        self.device_ids, self.output_device = _device_indices(device_ids, output_device)
        self.src_device_obj = ember.device(device_type, self.device_ids[0])
        if device_type == "cuda":
            _check_balance(self.device_ids)
        if len(self.device_ids) == 1:
            self.module.to(self.src_device_obj)

    def forward(self, *inputs: Any, **kwargs: Any) -> Any:
        """Runs the module on the inputs split over the devices and joins the outputs on
        ``output_device`` (without devices: calls the module as it is)."""
        with _record_function("DataParallel.forward"):
            if not self.device_ids:
                return self.module(*inputs, **kwargs)
            _check_device(self.module, self.src_device_obj)
            scattered, module_kwargs = self.scatter(inputs, kwargs, self.device_ids)
            # a call without arguments still runs, once, on the first device
            if not scattered and not module_kwargs:
                scattered, module_kwargs = ((),), ({},)
            if len(self.device_ids) == 1:
                return self.module(*scattered[0], **module_kwargs[0])
            replicas = self.replicate(self.module, self.device_ids[:len(scattered)])
            outputs = self.parallel_apply(replicas, scattered, module_kwargs)
            return self.gather(outputs, self.output_device)

    def replicate(self, module: T, device_ids: Sequence[Any]) -> list[T]:
        """Copies of ``module`` on ``device_ids`` (see :func:`ember.nn.parallel.replicate`),
        without history when grad is disabled."""
        return replicate(module, device_ids, not ember.is_grad_enabled())

    def scatter(self, inputs: tuple[Any, ...], kwargs: dict[str, Any] | None, device_ids: Sequence[Any]) -> Any:
        """The positional and keyword arguments split over ``device_ids`` along ``dim`` (see
        ``ember.nn.parallel.scatter_gather.scatter_kwargs``)."""
        return scatter_kwargs(inputs, kwargs, device_ids, dim=self.dim)

    def parallel_apply(self, replicas: Sequence[T], inputs: Sequence[Any], kwargs: Any) -> list[Any]:
        """Runs each replica on its device's arguments, side by side (see
        :func:`ember.nn.parallel.parallel_apply`)."""
        return parallel_apply(replicas, inputs, kwargs, self.device_ids[:len(replicas)])

    def gather(self, outputs: Any, output_device: Any) -> Any:
        """The replicas' outputs joined along ``dim`` on ``output_device`` (see
        :func:`ember.nn.parallel.gather`)."""
        return gather(outputs, output_device, dim=self.dim)


def _device_indices(device_ids: Sequence[Any] | None, output_device: Any) -> tuple[list[int], int]:
    """The device indices to run on (default: every device) and the output's (default: the first)."""
    if device_ids is None:
        device_ids = _all_device_indices()
    if device_ids is None:
        raise RuntimeError("no available devices were found")
    if output_device is None:
        output_device = device_ids[0]
    return [_get_device_index(x, True) for x in device_ids], _get_device_index(output_device, True)


def data_parallel(module: Module, inputs: Any, device_ids: Sequence[Any] | None = None, output_device: Any = None,
                  dim: int = 0, module_kwargs: Any | None = None) -> Any:
    r"""Evaluates ``module(*inputs)`` split over the GPUs of ``device_ids``: the functional form of
    :class:`ember.nn.DataParallel`.

    Args:
        module (nn.Module): the module to evaluate in parallel, on ``device_ids[0]``.
        inputs (Tensor or tuple): the module's input, or a tuple of its positional inputs.
        device_ids (list of int or ember.device): the GPUs to replicate the module on (default:
            all of them).
        output_device (int or ember.device): the device of the output; -1 for the CPU
            (default: ``device_ids[0]``).
        dim (int): the dimension to split the inputs and join the outputs along. Default: 0.
        module_kwargs (dict, optional): the module's keyword arguments.

    Returns:
        the module's output for the whole input, on ``output_device``.
    """
    if not isinstance(inputs, tuple):
        inputs = (inputs,) if inputs is not None else ()
    device_type = _available_device_type()
    if device_type is None:
        raise RuntimeError("device type could not be determined")
    device_ids, output_device = _device_indices(device_ids, output_device)
    _check_device(module, ember.device(device_type, device_ids[0]))
    scattered, scattered_kwargs = scatter_kwargs(inputs, module_kwargs, device_ids, dim)
    # a call without arguments still runs, once, on the first device
    if not scattered and not scattered_kwargs:
        scattered, scattered_kwargs = ((),), ({},)
    if len(device_ids) == 1:
        return module(*scattered[0], **scattered_kwargs[0])
    used_device_ids = device_ids[:len(scattered)]
    replicas = replicate(module, used_device_ids)
    outputs = parallel_apply(replicas, scattered, scattered_kwargs, used_device_ids)
    return gather(outputs, output_device, dim)
