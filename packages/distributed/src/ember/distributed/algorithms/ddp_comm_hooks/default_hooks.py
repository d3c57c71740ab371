"""The default DDP communication hooks: plain all-reduce and the fp16/bf16-compressed forms.
Each averages the bucket over the group and returns a Future of the averaged buffer."""

from __future__ import annotations

from typing import Any, cast

import ember

from ... import collectives as C
from ..._work import Future


def _allreduce_fut(process_group: Any, tensor: Any) -> Future:
    """Average ``tensor`` over the group (divide first: no overflow in the sum)."""
    group = process_group
    pg = C._member(group)
    size = pg.size() if pg is not None else 1
    tensor.div_(size)
    work = C.all_reduce(tensor, group=group, async_op=True)
    if work is None:
        fut = Future()
        fut.set_result(tensor)
        return fut
    return work.get_future().then(lambda f: f.value()[0])


def allreduce_hook(process_group: Any, bucket: Any) -> Future:
    """What DDP does without a hook: the bucket averaged over the group."""
    return _allreduce_fut(process_group, bucket.buffer())


def _compress_hook(dtype: Any, process_group: Any, bucket: Any) -> Future:
    buffer = bucket.buffer()
    compressed = buffer.to(dtype)
    fut = _allreduce_fut(process_group, compressed)

    def decompress(f: Any) -> Any:
        buffer.copy_(f.value())
        return buffer

    return cast(Future, fut.then(decompress))


def fp16_compress_hook(process_group: Any, bucket: Any) -> Future:
    """Gradients sent as float16 (half the bytes), averaged, cast back."""
    return _compress_hook(ember.float16, process_group, bucket)


def bf16_compress_hook(process_group: Any, bucket: Any) -> Future:
    """Gradients sent as bfloat16, averaged (in float32 on MPI), cast back."""
    return _compress_hook(ember.bfloat16, process_group, bucket)
