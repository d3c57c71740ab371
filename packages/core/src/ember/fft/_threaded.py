"""ducc0's transforms on ember's threads instead of ducc0's own thread pool.

ducc0's pool is not safe across fork(): its pre-fork handler stops the workers by setting a flag
and waking them without taking their locks, then joins them, so a worker that checks the flag
just before going to sleep misses the wake-up and fork() waits forever (seen as a hung test run:
a DataLoader forking its workers after an FFT). ember therefore keeps that pool empty (ducc0
sizes it once, from ``DUCC0_NUM_THREADS``, on the first transform) and splits a transform into
slices along an axis it does not transform, one ducc0 call per slice on a small Python thread pool
of its own (ducc0 releases the GIL, so the slices run side by side). A transform over every axis
of its input runs as two such passes, as ducc0 itself does: the last axis, then the others."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from concurrent.futures import Future, ThreadPoolExecutor

# Below this many output points one call is faster than handing slices to threads (~20 us each).
_MIN_POINTS = 1 << 15

_executor: ThreadPoolExecutor | None = None
_executor_pid = -1
_executor_lock = threading.Lock()


def import_single_threaded() -> Any:
    """``ducc0.fft`` with ducc0's own pool sized to no workers (so its pre-fork handler has no
    thread to join); the caller's ``DUCC0_NUM_THREADS`` is put back afterwards."""
    import numpy as np  # noqa: PLC0415  (ducc0 needs it; imported with it on the first transform)

    saved = os.environ.get("DUCC0_NUM_THREADS")
    os.environ["DUCC0_NUM_THREADS"] = "1"
    try:
        import ducc0.fft as fft  # noqa: PLC0415  (heavy: on the first transform only)

        # the pool is sized (and the variable read) on its first use: make that happen now
        fft.c2c(np.zeros(2, np.complex128))
    finally:
        if saved is None:
            del os.environ["DUCC0_NUM_THREADS"]
        else:
            os.environ["DUCC0_NUM_THREADS"] = saved
    return fft


def _pool(workers: int) -> ThreadPoolExecutor:
    """The slice threads; a forked child starts a pool of its own (the parent's threads are not
    in it)."""
    from concurrent.futures import ThreadPoolExecutor  # noqa: PLC0415  (only once a transform is large)

    global _executor, _executor_pid
    with _executor_lock:
        if _executor is None or _executor_pid != os.getpid() or _executor._max_workers < workers:
            _executor = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="ember-fft")
            _executor_pid = os.getpid()
        return _executor


def _slices(size: int, pieces: int) -> list[slice]:
    bounds = [size * i // pieces for i in range(pieces + 1)]
    return [slice(lo, hi) for lo, hi in zip(bounds, bounds[1:]) if hi > lo]


def _split_axis(shape: Sequence[int], axes: Sequence[int]) -> int:
    """The longest axis the transform leaves alone, or -1 when it transforms every axis."""
    free = [d for d in range(len(shape)) if d not in axes and shape[d] > 1]
    return max(free, key=lambda d: shape[d]) if free else -1


def run_sliced(call: Callable[..., Any], x: Any, out: Any, axes: Sequence[int], nthreads: int,
               split: int, **kwargs: Any) -> None:
    """``call(x, axes=axes, out=out, **kwargs)`` over slices of ``x`` and ``out`` along axis
    ``split`` (not among ``axes``), on up to ``nthreads`` threads (the calling one included)."""
    pieces = min(nthreads, x.shape[split]) if split >= 0 else 1
    if pieces <= 1:
        call(x, axes=list(axes), out=out, nthreads=1, **kwargs)
        return
    index: list[Any] = [slice(None)] * x.ndim
    jobs = []
    for part in _slices(x.shape[split], pieces):
        index[split] = part
        jobs.append((x[tuple(index)], out[tuple(index)]))
    pool = _pool(nthreads - 1)
    futures: list[Future[Any]] = [pool.submit(call, xs, axes=list(axes), out=os_, nthreads=1, **kwargs)
                                  for xs, os_ in jobs[1:]]
    try:
        call(jobs[0][0], axes=list(axes), out=jobs[0][1], nthreads=1, **kwargs)
    finally:
        for f in futures:
            f.result()


def threads_for(points: int, nthreads: int) -> int:
    """How many threads a transform producing ``points`` values is worth."""
    return 1 if points < _MIN_POINTS else nthreads


def _forward_passes(lib: Any, first: Callable[..., Any], x: Any, out: Any, axes: Sequence[int], nthreads: int,
                    **kwargs: Any) -> None:
    """``first`` (c2c or r2c) over ``axes`` on ember's threads: one sliced call along an axis it leaves
    alone, or, when it transforms every axis, the last axis split along the first and then c2c in
    place over the others split along the last (a per-pass inorm multiplies out to the whole
    transform's: sqrt(n1) sqrt(n2) = sqrt(n1 n2))."""
    nthreads = threads_for(out.size, nthreads)
    split = _split_axis(x.shape, axes)
    if nthreads > 1 and split < 0 and len(axes) > 1:
        run_sliced(first, x, out, axes[-1:], nthreads, axes[0], **kwargs)
        run_sliced(lib.c2c, out, out, axes[:-1], nthreads, axes[-1], **kwargs)
        return
    run_sliced(first, x, out, axes, nthreads, split, **kwargs)


def _c2c_matrix(lib: Any, x: Any, out: Any, nthreads: int, **kwargs: Any) -> None:
    """A 2-d c2c over both axes of a matrix with contiguous rows, in two passes that each read along
    the transformed axis and write across it: ducc0 transforms contiguous rows into contiguous rows one
    at a time (complex64 1024^2: 3.4 ms for the rows, 1.3 for the columns), but many at once when the
    output runs across them (1.45 ms). So the rows go into a column-major buffer, and its columns
    (now contiguous) into ``out``: 4.7 ms -> 3.1 ms on one thread, the same values."""
    import numpy as np  # noqa: PLC0415  (loaded with ducc0)

    nthreads = threads_for(out.size, nthreads)
    tmp = np.empty(x.shape, out.dtype, order="F")
    run_sliced(lib.c2c, x, tmp, [1], nthreads, 0, **kwargs)
    run_sliced(lib.c2c, tmp, out, [0], nthreads, 1, **kwargs)


def c2c(lib: Any, x: Any, out: Any, axes: Sequence[int], forward: bool, inorm: int, nthreads: int) -> None:
    """ducc0's c2c over ``axes``; ``out`` may be ``x``."""
    if (x.ndim == 2 and sorted(axes) == [0, 1] and x.strides[1] == x.itemsize and out.flags.c_contiguous
            and min(x.shape) > 1):
        # (a per-pass inorm multiplies out to the whole transform's, as in _forward_passes)
        _c2c_matrix(lib, x, out, nthreads, forward=forward, inorm=inorm)
        return
    _forward_passes(lib, lib.c2c, x, out, axes, nthreads, forward=forward, inorm=inorm)


def r2c(lib: Any, x: Any, out: Any, axes: Sequence[int], inorm: int, nthreads: int) -> None:
    """ducc0's forward r2c over ``axes`` (``out`` holds the last one's ``n // 2 + 1`` points)."""
    _forward_passes(lib, lib.r2c, x, out, axes, nthreads, forward=True, inorm=inorm)


def c2r(lib: Any, x: Any, out: Any, axes: Sequence[int], lastsize: int, inorm: int, nthreads: int) -> None:
    """ducc0's backward c2r over ``axes`` to ``lastsize`` real points on the last one; ``x`` is
    left as it was."""
    nthreads = threads_for(out.size, nthreads)
    split = _split_axis(x.shape, axes)
    if nthreads > 1 and split < 0 and len(axes) > 1:
        import numpy as np  # noqa: PLC0415  (loaded with ducc0)

        spectrum = np.empty_like(x)
        run_sliced(lib.c2c, x, spectrum, axes[:-1], nthreads, axes[-1], forward=False, inorm=inorm)
        run_sliced(lib.c2r, spectrum, out, axes[-1:], nthreads, axes[0], forward=False, inorm=inorm,
                   lastsize=lastsize)
        return
    run_sliced(lib.c2r, x, out, axes, nthreads, split, forward=False, inorm=inorm, lastsize=lastsize)
