"""PowerSGD gradient compression (Vogels et al., NeurIPS 2019) as DDP communication hooks.

A gradient viewed as an n x m matrix M travels as two thin factors instead of n * m values: this
rank's P = M Q (n x r) is summed over the group and given orthonormal columns, then Q = M^T P
(m x r) is averaged over the group, and every rank rebuilds the same P Q^T, which approximates
the average of the Ms. Reusing Q from one iteration to the next (warm start) turns this into one
step of power iteration per training step; what the approximation leaves out on a rank is carried
into that rank's next gradient (error feedback).

Multi-step exchanges finish inside ``DeferredFuture.wait`` (see ``_deferred.py``): the later
all-reduces are then issued in bucket order on every rank, as MPI requires.
"""

from __future__ import annotations

import logging
import math
from typing import Any

import ember

from ... import collectives as C
from ..._work import Future
from ...process_group import _default
from ._deferred import DeferredFuture
from .default_hooks import _allreduce_fut

__all__ = ["PowerSGDState", "batched_powerSGD_hook", "powerSGD_hook"]

logger = logging.getLogger(__name__)

_HALF_TYPES = (ember.float16, ember.bfloat16)


def _gram_schmidt(batch: Any, epsilon: float) -> None:
    """Modified Gram-Schmidt over the columns of each (rows, k) matrix of ``batch``, in place."""
    width = batch.shape[2]
    for j in range(width):
        column = batch[:, :, j:j + 1]
        length = ember.norm(column, dim=1, keepdim=True)
        # a positive epsilon leaves an all-zero column at zero instead of producing 0 / 0
        column /= length if epsilon == 0 else length + epsilon
        if j + 1 < width:
            remaining = batch[:, :, j + 1:]
            remaining -= ember.sum(column * remaining, dim=1, keepdim=True) * column


def _orthonormalize_columns(batch: Any, epsilon: float = 0) -> None:
    """Gives every matrix of ``batch`` (count, rows, k), k <= rows, orthonormal columns in place.

    A single column or a half-precision batch goes through Gram-Schmidt (only norms and sums);
    anything else takes the Q factor of a QR factorization, which has no use for ``epsilon``.
    """
    if batch.dim() != 3 or batch.shape[2] > batch.shape[1]:
        raise AssertionError  # more columns than rows cannot be orthonormal
    if batch.shape[2] <= 1 or batch.dtype in _HALF_TYPES:
        _gram_schmidt(batch, epsilon)
    else:
        batch.copy_(ember.linalg.qr(batch)[0])


class PowerSGDState:
    """PowerSGD's hyperparameters and what it keeps between iterations, per bucket index: the
    error-feedback residual (``error_dict``) and the flat P and Q memories (``p_memory_dict``,
    ``q_memory_dict``).

    Args:
        process_group: the group gradients are averaged over (the default group if None).
        matrix_approximation_rank (int): rank r of the approximation; lower compresses more.
        start_powerSGD_iter (int): iterations of plain all-reduce before compression starts; at
            least 2 when error feedback or warm start is on (DDP rebuilds its buckets after the
            first iteration, which would invalidate anything remembered per bucket).
        min_compression_rate (float): an n x m gradient is compressed only when
            ``(n + m) * r * min_compression_rate < n * m``.
        use_error_feedback (bool): carry what compression lost into the next gradient.
        warm_start (bool): start each iteration from the previous Q instead of a random one.
        orthogonalization_epsilon (float): added to column norms in Gram-Schmidt (no 0 / 0).
        random_seed (int): seeds the random Qs, drawn identically on every rank.
        compression_stats_logging_frequency (int): iterations between compression-rate logs.
        batch_tensors_with_same_shape (bool): compress a bucket's same-shaped gradients as one
            stacked batch (fewer, larger products; a copy of those gradients).
    """

    __slots__ = [
        "process_group", "matrix_approximation_rank", "start_powerSGD_iter",
        "min_compression_rate", "use_error_feedback", "warm_start", "orthogonalization_epsilon",
        "batch_tensors_with_same_shape", "compression_stats_logging_frequency", "rng",
        "error_dict", "p_memory_dict", "q_memory_dict", "iter", "next_stats_report",
        "total_numel_before_compression", "total_numel_after_compression",
    ]

    def __init__(self, process_group: Any, matrix_approximation_rank: int = 1,
                 start_powerSGD_iter: int = 1_000, min_compression_rate: float = 2,
                 use_error_feedback: bool = True, warm_start: bool = True,
                 orthogonalization_epsilon: float = 0, random_seed: int = 0,
                 compression_stats_logging_frequency: int = 10_000,
                 batch_tensors_with_same_shape: bool = False) -> None:
        if (use_error_feedback or warm_start) and start_powerSGD_iter <= 1:
            raise ValueError(
                "Expect `start_powerSGD_iter` > 1 if `use_error_feedback` or `warm_start` is "
                "enabled, because PowerSGD can only be applied after the first two iterations "
                "in DDP.")
        import numpy as np

        self.process_group = process_group
        self.matrix_approximation_rank = matrix_approximation_rank
        self.start_powerSGD_iter = start_powerSGD_iter
        self.min_compression_rate = min_compression_rate
        self.use_error_feedback = use_error_feedback
        self.warm_start = warm_start
        self.orthogonalization_epsilon = orthogonalization_epsilon
        self.batch_tensors_with_same_shape = batch_tensors_with_same_shape
        self.compression_stats_logging_frequency = max(1, compression_stats_logging_frequency)
        # each fresh set of Qs takes one seed from this sequence, the same on every rank; numpy's
        # legacy generator, so that a seed gives the same Qs as PyTorch's PowerSGD
        self.rng = np.random.RandomState(random_seed)
        self.error_dict: dict[int, Any] = {}
        self.p_memory_dict: dict[int, Any] = {}
        self.q_memory_dict: dict[int, Any] = {}
        self.iter = 0
        self.next_stats_report = 0
        self.total_numel_before_compression = 0
        self.total_numel_after_compression = 0
        logger.debug("PowerSGD: rank %s from iteration %s, error feedback %s, warm start %s",
                     matrix_approximation_rank, start_powerSGD_iter, use_error_feedback, warm_start)

    def __getstate__(self) -> dict[str, Any]:
        """Everything but the process group, which cannot be pickled."""
        logger.warning("PowerSGDState: the process group is not pickled with the state.")
        return {name: getattr(self, name) for name in self.__slots__ if name != "process_group"}

    def __setstate__(self, state: dict[str, Any]) -> None:
        """Restores a pickled state on the default process group."""
        logger.warning("PowerSGDState: restored on the default process group; assign "
                       "`process_group` afterwards to use another group.")
        self.process_group = _default()
        for name, value in state.items():
            setattr(self, name, value)

    def maybe_increase_iter(self, bucket: Any) -> None:
        """Counts one iteration each time the last bucket of an iteration is reduced."""
        if bucket.is_last():
            self.iter += 1
            if self.iter == self.start_powerSGD_iter:
                logger.info("PowerSGD: compressing gradients from iteration %s on.", self.iter)

    def compression_stats(self) -> tuple[float, int, int]:
        """(rate, elements before compression, elements sent) over all compressed iterations so
        far; the rate is 0 until something has been compressed."""
        before, after = self.total_numel_before_compression, self.total_numel_after_compression
        return (before / after if after > 0 else 0), before, after


def _account(state: PowerSGDState, bucket: Any, numel_before: int, numel_after: int) -> None:
    """Adds a bucket's element counts to the totals; logs them every so many iterations."""
    state.total_numel_before_compression += numel_before
    state.total_numel_after_compression += numel_after
    if bucket.is_last() and state.iter >= state.next_stats_report:
        rate, before, after = state.compression_stats()
        logger.info("PowerSGD at iteration %s: %s gradient elements sent as %s (%.2fx smaller)",
                    state.iter, before, after, rate)
        state.next_stats_report = state.iter + state.compression_stats_logging_frequency


def _carry_error_in(state: PowerSGDState, key: int, vector: Any) -> Any:
    """Adds the residual this rank kept for bucket ``key`` to ``vector`` and returns a copy of the
    sum, which the bucket's new residual is measured against (None without error feedback)."""
    if not state.use_error_feedback:
        return None
    residual = state.error_dict.get(key)
    if residual is None:  # first compressed iteration: nothing lost yet
        logger.debug("PowerSGD: bucket %s keeps a residual of %s elements", key, vector.shape[0])
        state.error_dict[key] = ember.zeros(vector.shape[0], dtype=vector.dtype)
    else:
        vector.add_(residual)
    return vector.clone().detach()


def _factor_memories(state: PowerSGDState, key: int, p_shape: tuple[Any, ...],
                     q_shape: tuple[Any, ...], dtype: Any) -> tuple[Any, Any, bool]:
    """Bucket ``key``'s P and Q memories and whether they are new (their Qs then need drawing)."""
    if state.warm_start and key in state.p_memory_dict:
        return state.p_memory_dict[key], state.q_memory_dict[key], False
    p_memory = ember.empty(*p_shape, dtype=dtype)
    q_memory = ember.empty(*q_shape, dtype=dtype)
    state.p_memory_dict[key], state.q_memory_dict[key] = p_memory, q_memory
    logger.debug("PowerSGD: bucket %s, new factor memories %s and %s", key, p_shape, q_shape)
    return p_memory, q_memory, True


def _draw_gaussian(state: PowerSGDState, tensors: list[Any]) -> None:
    """Fills ``tensors`` in turn with standard-normal values from a private generator seeded from
    the state's sequence (one seed per call, even for no tensors; the global RNG is untouched)."""
    generator = ember.Generator().manual_seed(int(state.rng.randint(1_000_000_000)))
    for tensor in tensors:
        tensor.copy_(ember.randn(*tensor.shape, generator=generator, dtype=tensor.dtype))


def _end_iteration(state: PowerSGDState, bucket: Any, key: int, sent: Any, result: Any) -> None:
    if sent is not None:  # the part of what this rank sent that the approximation dropped
        state.error_dict[key] = sent - result
    if not state.warm_start:  # memories only outlive an iteration to warm-start the next
        state.p_memory_dict.clear()
        state.q_memory_dict.clear()
    state.maybe_increase_iter(bucket)


def _times(a: Any, b: Any) -> Any:
    # stacks of matrices in the per-gradient hook, one matrix in the whole-bucket hook
    return ember.bmm(a, b) if a.dim() == 3 else ember.matmul(a, b)


def _as_stack(matrix: Any) -> Any:
    return matrix if matrix.dim() == 3 else matrix.unsqueeze(0)


class _Factored:
    """Matrices compressed together, with views of their factors in the flat memories: M is
    (count, rows, cols) or a single (rows, cols); P and Q have the same leading shape and
    ``rank`` columns. ``members`` are the bucket's gradients when M is a stacked copy of them."""

    __slots__ = ("matrices", "p", "q", "members")

    def __init__(self, matrices: Any, p: Any, q: Any, members: list[Any] | None = None) -> None:
        self.matrices, self.p, self.q, self.members = matrices, p, q, members or []

    def project(self, epsilon: float) -> None:
        """This rank's P = M Q, from Q (drawn or warm-started) made orthonormal."""
        _orthonormalize_columns(_as_stack(self.q), epsilon)
        self.p.copy_(_times(self.matrices, self.q))

    def project_back(self, epsilon: float) -> None:
        """Q = M^T P from the group's summed P (orthonormalized, so the sum's scale is moot)."""
        _orthonormalize_columns(_as_stack(self.p), epsilon)
        self.q.copy_(_times(self.matrices.transpose(-2, -1), self.p))

    def reconstruct(self) -> None:
        """M = P Q^T from the group-averaged Q, written through to the bucket's gradients."""
        self.matrices.copy_(_times(self.p, self.q.transpose(-2, -1)))
        for i, member in enumerate(self.members):
            member.copy_(self.matrices[i])


class _BucketPlan:
    """How a bucket's gradients are sent, from their shapes alone. Each is viewed as (first dim,
    rest); those worth compressing are grouped by shape (in order of first appearance), a group
    being one stacked batch or one batch per matrix. The batches' Ps and Qs lie back to back in
    that order in the flat P and Q memories, the order fresh Qs are drawn in too. The others
    (``dense``) are all-reduced uncompressed, as one vector."""

    def __init__(self, gradients: list[Any], rank_cap: int, min_rate: float,
                 stack_same_shape: bool) -> None:
        self.dense: list[Any] = []
        self.numel_before = self.numel_after = 0
        by_shape: dict[tuple[int, int], list[Any]] = {}
        for grad in gradients:
            matrix = grad.view(grad.shape[0], -1)
            rows, cols = matrix.shape
            full, factored = rows * cols, (rows + cols) * min(rows, cols, rank_cap)
            self.numel_before += full
            if factored * min_rate < full:
                by_shape.setdefault((rows, cols), []).append(matrix)
                self.numel_after += factored
            else:
                self.dense.append(grad)
                self.numel_after += full
        # (rows, cols, rank, matrices) per batch, in memory order
        self.batches: list[tuple[int, int, int, list[Any]]] = []
        for (rows, cols), matrices in by_shape.items():
            rank = min(rows, cols, rank_cap)
            if stack_same_shape and len(matrices) > 1:
                self.batches.append((rows, cols, rank, matrices))
            else:
                self.batches.extend((rows, cols, rank, [m]) for m in matrices)
        self.p_numel = sum(len(ms) * rows * rank for rows, _, rank, ms in self.batches)
        self.q_numel = sum(len(ms) * cols * rank for _, cols, rank, ms in self.batches)

    def bind(self, p_memory: Any, q_memory: Any) -> list[_Factored]:
        """The batches with their slices of the flat memories."""
        bound, p_at, q_at = [], 0, 0
        for rows, cols, rank, matrices in self.batches:
            count = len(matrices)
            p = p_memory[p_at:p_at + count * rows * rank].view(count, rows, rank)
            q = q_memory[q_at:q_at + count * cols * rank].view(count, cols, rank)
            p_at, q_at = p_at + count * rows * rank, q_at + count * cols * rank
            if count == 1:  # a view into the bucket: reconstructed in place
                bound.append(_Factored(matrices[0].unsqueeze(0), p, q))
            else:
                bound.append(_Factored(ember.stack(matrices), p, q, matrices))
        return bound


def _group_and_size(state: PowerSGDState) -> tuple[Any, int]:
    member = C._member(state.process_group)
    return state.process_group, (member.size() if member is not None else 1)


def _start_allreduce(tensor: Any, group: Any) -> Any:
    return C.all_reduce(tensor, group=group, async_op=True)


def _wait(work: Any) -> None:
    if work is not None:  # None: this rank is outside the group
        work.wait()


def _before_start(state: PowerSGDState, bucket: Any) -> tuple[Any, int, Any, Future | None]:
    """The group, its size and the bucket's buffer; and, before compression starts, the Future of
    plain averaging (the iteration counted)."""
    group, world_size = _group_and_size(state)
    flat = bucket.buffer()
    if state.iter < state.start_powerSGD_iter:
        state.maybe_increase_iter(bucket)
        return group, world_size, flat, _allreduce_fut(group, flat)
    return group, world_size, flat, None


def powerSGD_hook(state: PowerSGDState, bucket: Any) -> Future:
    """PowerSGD gradient by gradient: each gradient worth compressing is sent as its factors P
    and Q (rank ``state.matrix_approximation_rank``); vectors and small matrices are all-reduced
    as they are. Plain averaging before ``state.start_powerSGD_iter``. Returns a Future of the
    bucket's buffer, which holds the result."""
    group, world_size, flat, plain = _before_start(state, bucket)
    if plain is not None:
        return plain

    key = bucket.index()
    sent = _carry_error_in(state, key, flat)
    plan = _BucketPlan(bucket.gradients(), state.matrix_approximation_rank,
                       state.min_compression_rate, state.batch_tensors_with_same_shape)
    _account(state, bucket, plan.numel_before, plan.numel_after)
    dense = (ember.cat([g.reshape(-1) for g in plan.dense]) if plan.dense
             else ember.tensor([], dtype=flat.dtype))
    p_memory, q_memory, fresh = _factor_memories(state, key, (plan.p_numel,), (plan.q_numel,),
                                                 flat.dtype)
    factored = plan.bind(p_memory, q_memory)
    if fresh:
        _draw_gaussian(state, [f.q for f in factored])
    eps = state.orthogonalization_epsilon
    for f in factored:
        f.project(eps)
    # issued now, in bucket order on every rank; the rest waits for ``wait`` (_deferred.py)
    dense_work = _start_allreduce(dense, group)
    p_work = _start_allreduce(p_memory, group)

    def complete() -> Any:
        _wait(dense_work)
        dense.div_(world_size)
        offset = 0
        for grad in plan.dense:
            grad.copy_(dense[offset:offset + grad.numel()].view_as(grad))
            offset += grad.numel()
        _wait(p_work)
        for f in factored:
            f.project_back(eps)
        _wait(_start_allreduce(q_memory, group))
        q_memory.div_(world_size)
        for f in factored:
            f.reconstruct()
        _end_iteration(state, bucket, key, sent, flat)
        return flat

    return DeferredFuture([dense_work, p_work], complete)


def batched_powerSGD_hook(state: PowerSGDState, bucket: Any) -> Future:
    """PowerSGD on the bucket as a whole: its flat buffer, zero-padded to the next square, is the
    one matrix compressed. Faster than ``powerSGD_hook`` but usually much less accurate unless
    the rank is 1. Plain averaging before ``state.start_powerSGD_iter``. Returns a Future of the
    bucket's buffer, which holds the result."""
    group, world_size, flat, plain = _before_start(state, bucket)
    if plain is not None:
        return plain

    length = flat.shape[0]
    side = math.ceil(math.sqrt(length))
    rank = state.matrix_approximation_rank
    _account(state, bucket, length, side * rank * 2)
    # a padded copy: the buffer keeps its length, since the gradients are views into it
    square = ember.zeros(side * side, dtype=flat.dtype)
    square[:length].copy_(flat)
    key = bucket.index()
    sent = _carry_error_in(state, key, square)
    p, q, fresh = _factor_memories(state, key, (side, rank), (side, rank), flat.dtype)
    if fresh:
        _draw_gaussian(state, [q])
    whole = _Factored(square.view(side, side), p, q)
    eps = state.orthogonalization_epsilon
    whole.project(eps)
    p_work = _start_allreduce(p, group)

    def complete() -> Any:
        _wait(p_work)
        whole.project_back(eps)
        _wait(_start_allreduce(q, group))
        q.div_(world_size)
        whole.reconstruct()
        flat.copy_(square[:length])
        _end_iteration(state, bucket, key, sent, square)
        return flat

    return DeferredFuture([p_work], complete)
