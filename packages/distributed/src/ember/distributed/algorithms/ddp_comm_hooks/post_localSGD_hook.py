"""Post-local SGD's communication hook: global gradient averaging for a warm-up, then
averaging within a subgroup only (or none), the model being averaged globally from time to
time by a model averager (``model_averaging.averagers``)."""

from __future__ import annotations

import logging
from typing import Any

from ..._work import Future
from .default_hooks import _allreduce_fut

__all__ = ["PostLocalSGDState", "post_localSGD_hook"]

logger = logging.getLogger(__name__)

# PyTorch builds the default (intra-node) subgroup from the number of CUDA devices and raises
# this on a machine without CUDA; ember runs on the CPU, so it raises it too
_NO_DEFAULT_SUBGROUP = (
    "Default group size only takes effect when CUDA is available.If your subgroup using a "
    "backend that does not depend on CUDA,please pass in 'group_size' correctly.")


class PostLocalSGDState:
    """The hook's state: the global group, the subgroup of the local phase, the iteration
    the local phase starts at and the iteration count (frozen once it starts).

    Args:
        process_group: the group of the warm-up's global averaging (the default if None).
        subgroup: the group gradients are averaged in afterwards; None asks for the
            per-node default, which needs CUDA (a ``ValueError`` when the local phase starts).
        start_localSGD_iter (int): the iteration the local phase starts at.
        post_local_gradient_allreduce (bool): whether the local phase averages gradients in
            the subgroup at all (if not, each rank keeps its own).
    """

    __slots__ = ["process_group", "subgroup", "start_localSGD_iter",
                 "post_local_gradient_allreduce", "iter"]

    def __init__(self, process_group: Any, subgroup: Any, start_localSGD_iter: int,
                 post_local_gradient_allreduce: bool = True) -> None:
        logger.info("Local SGD will be started after %s iterations", start_localSGD_iter)
        self.process_group = process_group
        self.subgroup = subgroup
        self.start_localSGD_iter = start_localSGD_iter
        self.post_local_gradient_allreduce = post_local_gradient_allreduce
        self.iter = 0

    def maybe_increase_iter(self, bucket: Any) -> None:
        """Counts an iteration when its last bucket is reduced."""
        if bucket.is_last():
            self.iter += 1
            if self.iter == self.start_localSGD_iter:
                logger.info("Start to apply local SGD after %s iterations.", self.iter)


def post_localSGD_hook(state: PostLocalSGDState, bucket: Any) -> Future:
    """Averages the bucket over ``state.process_group`` for the first
    ``state.start_localSGD_iter`` iterations, then over ``state.subgroup`` (or not at all when
    ``post_local_gradient_allreduce`` is off). Returns a Future of the bucket's buffer."""
    input_tensor = bucket.buffer()
    if state.iter < state.start_localSGD_iter:
        state.maybe_increase_iter(bucket)
        return _allreduce_fut(state.process_group, input_tensor)
    if not state.post_local_gradient_allreduce:
        fut = Future()
        fut.set_result(input_tensor)
        return fut
    if state.subgroup is None:
        raise ValueError(_NO_DEFAULT_SUBGROUP)
    return _allreduce_fut(state.subgroup, input_tensor)
