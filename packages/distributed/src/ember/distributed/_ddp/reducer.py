"""DDP's reducer: gradients averaged over the group in buckets, overlapped with backward.

Parameters go into buckets in reverse registration order (the order backward produces their
gradients): the first capped at 1 MiB so communication starts early, the others at
``bucket_cap_mb``; one dtype a bucket. A post-accumulate-grad hook marks a parameter ready;
a full bucket is launched as a nonblocking all-reduce -- always in bucket order, so every rank
issues MPI's collectives in the same order -- and every hook call also tests the buckets in
flight, which is what makes MPICH progress them while backward computes.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import ember

from .. import collectives as C
from .._work import Future
from .grad_bucket import GradBucket

FIRST_BUCKET_BYTES = 1024 * 1024
DEFAULT_BUCKET_BYTES = 25 * 1024 * 1024

UNFINISHED = (
    "Expected to have finished reduction in the prior iteration before starting a new one. "
    "This error indicates that your module has parameters that were not used in producing "
    "loss. You can enable unused parameter detection by passing the keyword argument "
    "`find_unused_parameters=True` to `torch.nn.parallel.DistributedDataParallel`, and by \n"
    "making sure all `forward` function outputs participate in calculating loss. \n"
    "If you already have done the above, then the distributed data parallel module wasn't able "
    "to locate the output tensors in the return value of your module's `forward` function. "
    "Please include the loss function and the structure of the return value of `forward` of "
    "your module when reporting this issue (e.g. list, dict, iterable).\n"
    "Parameter indices which did not receive grad for rank {rank}: {indices}")


class _Bucket:
    def __init__(self, index: int, params: list[Any], indices: list[int]) -> None:
        self.index = index
        self.params = params
        self.indices = indices  # the parameters' positions in the reducer's list
        self.offsets: list[int] = []
        total = 0
        for p in params:
            self.offsets.append(total)
            total += p.numel()
        self.buffer = ember.zeros(total, dtype=params[0].dtype)
        self.pending = 0
        self.future: Future | None = None

    def view(self, i: int) -> Any:
        p = self.params[i]
        return self.buffer[self.offsets[i]:self.offsets[i] + p.numel()].view(p.shape)


def assign_buckets(params: list[Any], first_cap: int, cap: int) -> list[list[int]]:
    """Indices of ``params`` per bucket, in reverse order, one dtype a bucket: each dtype's
    first bucket closes at ``first_cap`` bytes, its later ones at ``cap``."""
    buckets: list[list[int]] = []
    open_: dict[Any, tuple[list[int], int]] = {}
    closed: set[Any] = set()
    for i in reversed(range(len(params))):
        p = params[i]
        idx, size = open_.get(p.dtype, ([], 0))
        idx.append(i)
        size += p.numel() * p.element_size()
        if size >= (cap if p.dtype in closed else first_cap):
            buckets.append(idx)
            closed.add(p.dtype)
            open_.pop(p.dtype, None)
        else:
            open_[p.dtype] = (idx, size)
    return buckets + [idx for idx, _ in open_.values()]


class Reducer:
    def __init__(self, params: list[Any], group: Any, bucket_bytes: int, first_bucket_bytes: int,
                 find_unused: bool, as_view: bool) -> None:
        self.params = params
        self.group = group
        self.world = C._member(group).size() if C._member(group) is not None else 1
        self.find_unused = find_unused
        self.as_view = as_view
        self.comm_hook: tuple[Any, Callable[[Any, GradBucket], Future]] | None = None
        self.buckets = [_Bucket(b, [params[i] for i in idx], idx)
                        for b, idx in enumerate(assign_buckets(params, first_bucket_bytes,
                                                               bucket_bytes))]
        self.where = {i: (b, pos) for b in self.buckets for pos, i in enumerate(b.indices)}
        self.ready: list[bool] = [False] * len(params)
        self.used: list[bool] = [False] * len(params)
        self.expect = False  # a backward with sync is due
        self.next_bucket = 0
        self.hooks = [p.register_post_accumulate_grad_hook(self._hook_for(i))
                      for i, p in enumerate(params)]

    # -- per iteration --------------------------------------------------------------------
    def check_finished(self) -> None:
        """PyTorch's error when the previous synced backward left gradients unreduced."""
        if self.expect:
            missing = [i for i, r in enumerate(self.ready) if not r]
            raise RuntimeError(UNFINISHED.format(rank=C._member(self.group).rank(),
                                                 indices=missing))

    def prepare(self, outputs: Any) -> None:
        """Called by forward when this iteration's backward must sync the gradients."""
        self.expect = True
        self.next_bucket = 0
        self.ready = [False] * len(self.params)
        self.used = [False] * len(self.params)
        for b in self.buckets:
            b.pending = len(b.params)
            b.future = None
        if self.find_unused:
            reached = _reachable_params(outputs, self.params)
            for i in range(len(self.params)):
                if i not in reached:
                    self._mark_ready(i, used=False)

    def _hook_for(self, i: int) -> Callable[[Any], None]:
        def hook(_: Any) -> None:
            if self.expect and not self.ready[i]:
                self._mark_ready(i, used=True)
            self._progress()

        return hook

    def _mark_ready(self, i: int, used: bool) -> None:
        b, pos = self.where[i]
        self.ready[i] = True
        self.used[i] = used
        p = self.params[i]
        view = b.view(pos)
        if not used or p.grad is None:
            view.zero_()
        elif p.grad.data_ptr() != view.data_ptr():
            view.copy_(p.grad)
            if self.as_view:
                p.grad = view
        b.pending -= 1
        while self.next_bucket < len(self.buckets) and self.buckets[self.next_bucket].pending == 0:
            self._launch(self.buckets[self.next_bucket])
            self.next_bucket += 1
        if self.next_bucket == len(self.buckets):
            self._finalize()

    def _launch(self, b: _Bucket) -> None:
        bucket = GradBucket(b.index, b.buffer, [b.view(i) for i in range(len(b.params))],
                            b.params, b.index == len(self.buckets) - 1)
        if self.comm_hook is not None:
            state, hook = self.comm_hook
            b.future = hook(state, bucket)
        else:
            b.buffer.div_(self.world)
            work = C.all_reduce(b.buffer, group=self.group, async_op=True)
            b.future = work.get_future() if work is not None else None

    def _progress(self) -> None:
        for b in self.buckets[:self.next_bucket]:
            if b.future is not None:
                b.future.done()

    def _finalize(self) -> None:
        used = self._global_used() if self.find_unused else None
        for b in self.buckets:
            if b.future is not None:
                value = b.future.wait()
                result = value[0] if isinstance(value, (list, tuple)) else value
                if result is not None and result.data_ptr() != b.buffer.data_ptr():
                    b.buffer.copy_(result.reshape(-1))
            for pos, (i, p) in enumerate(zip(b.indices, b.params)):
                if used is not None and not used[i]:
                    continue  # unused on every rank: .grad stays as it was (None)
                view = b.view(pos)
                if p.grad is None or (not self.as_view and p.grad.data_ptr() != view.data_ptr()):
                    if p.grad is None:
                        p.grad = view if self.as_view else view.clone()
                    else:
                        p.grad.copy_(view)
                elif self.as_view and p.grad.data_ptr() != view.data_ptr():
                    p.grad = view
        self.expect = False

    def _global_used(self) -> list[bool]:
        flags = ember.tensor([1 if u else 0 for u in self.used], dtype=ember.uint8)
        C.all_reduce(flags, op=C.ReduceOp.MAX, group=self.group)
        return [bool(v) for v in flags.tolist()]

    def remove_hooks(self) -> None:
        for h in self.hooks:
            h.remove()
        self.hooks = []


def _reachable_params(outputs: Any, params: list[Any]) -> set[int]:
    """Indices of the parameters the autograd graph of ``outputs`` reaches."""
    node_of = {}
    for i, p in enumerate(params):
        node = p.view_as(p).grad_fn.next_functions[0][0]
        node_of[id(node)] = (i, node)  # keep ``node`` alive: ids stay unique
    seen: set[int] = set()
    found: set[int] = set()
    stack = [t.grad_fn for t in _tensors(outputs) if t.grad_fn is not None]
    while stack:
        fn = stack.pop()
        if fn is None or id(fn) in seen:
            continue
        seen.add(id(fn))
        if id(fn) in node_of:
            found.add(node_of[id(fn)][0])
        stack.extend(nf for nf, _ in fn.next_functions if nf is not None)
    for t in _tensors(outputs):  # an output that is itself a parameter
        for i, p in enumerate(params):
            if t is p:
                found.add(i)
    return found


def _tensors(obj: Any) -> list[Any]:
    if isinstance(obj, ember.Tensor):
        return [obj]
    if isinstance(obj, (list, tuple)):
        return [t for o in obj for t in _tensors(o)]
    if isinstance(obj, dict):
        return [t for o in obj.values() for t in _tensors(o)]
    return []
