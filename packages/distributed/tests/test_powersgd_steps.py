"""PowerSGD's single-process pieces, without a process group: how a bucket's gradients are
planned (which are compressed, in which batches, where their factors lie in the flat memories),
the orthonormalization, and one round of project / project back / reconstruct on one rank."""

from __future__ import annotations

import math

import ember
import pytest
from ember.distributed.algorithms.ddp_comm_hooks import powerSGD_hook as P


def _grads(shapes: list[tuple[int, ...]]) -> tuple[object, list[object]]:
    # views into one flat buffer, as a DDP bucket holds them
    flat = ember.randn(sum(math.prod(s) for s in shapes), generator=ember.Generator().manual_seed(0))
    views, at = [], 0
    for s in shapes:
        k = math.prod(s)
        views.append(flat[at:at + k].view(*s))
        at += k
    return flat, views


SHAPES = [(6, 5), (4,), (7, 9), (6, 5)]


@pytest.mark.parametrize("stack", [False, True])
def test_plan_groups_by_shape_and_lays_out_factors(stack: bool) -> None:
    _, grads = _grads(SHAPES)
    plan = P._BucketPlan(grads, 1, 2, stack)
    # (4,) is a 4 x 1 matrix: (4 + 1) * 1 * 2 is not below 4, so it stays dense
    assert [tuple(g.shape) for g in plan.dense] == [(4,)]
    layout = [(rows, cols, rank, len(ms)) for rows, cols, rank, ms in plan.batches]
    if stack:
        assert layout == [(6, 5, 1, 2), (7, 9, 1, 1)]
    else:  # same-shaped matrices still adjacent, in order of first appearance
        assert layout == [(6, 5, 1, 1), (6, 5, 1, 1), (7, 9, 1, 1)]
    assert (plan.p_numel, plan.q_numel) == (6 + 6 + 7, 5 + 5 + 9)
    assert (plan.numel_before, plan.numel_after) == (30 + 4 + 63 + 30, 11 + 4 + 16 + 11)
    p_memory, q_memory = ember.zeros(plan.p_numel), ember.zeros(plan.q_numel)
    bound = plan.bind(p_memory, q_memory)
    for i, f in enumerate(bound):  # factors are views, back to back
        f.p.fill_(float(i + 1))
        f.q.fill_(float(i + 1))
    sizes = [int(f.p.numel()) for f in bound]
    expect = ember.cat([ember.full((n,), float(i + 1)) for i, n in enumerate(sizes)])
    assert ember.equal(p_memory, expect)
    assert sum(int(f.q.numel()) for f in bound) == plan.q_numel


def test_min_compression_rate_below_one_compresses_vectors() -> None:
    _, grads = _grads(SHAPES)
    plan = P._BucketPlan(grads, 1, 0.5, False)
    assert plan.dense == []
    assert [(r, c) for r, c, _, _ in plan.batches][1:3] == [(6, 5), (4, 1)]


@pytest.mark.parametrize("dtype,rank", [(ember.float32, 1), (ember.float32, 3),
                                        (ember.float64, 4), (ember.float16, 2)])
def test_orthonormal_columns(dtype: object, rank: int) -> None:
    batch = ember.randn(3, 10, rank, generator=ember.Generator().manual_seed(1)).to(dtype)
    P._orthonormalize_columns(batch)
    gram = ember.bmm(batch.transpose(1, 2), batch).to(ember.float64)
    tol = 1e-2 if dtype == ember.float16 else 1e-5
    assert (gram - ember.eye(rank, dtype=ember.float64)).abs().max().item() < tol


def test_zero_column_with_epsilon_stays_finite() -> None:
    batch = ember.zeros(1, 5, 1)
    P._orthonormalize_columns(batch, epsilon=1e-8)
    assert ember.equal(batch, ember.zeros(1, 5, 1))


@pytest.mark.parametrize("shape", [(4, 2), (1, 2, 3)])
def test_orthonormalize_rejects_non_batches_and_wide_matrices(shape: tuple[int, ...]) -> None:
    with pytest.raises(AssertionError):
        P._orthonormalize_columns(ember.ones(*shape))


@pytest.mark.parametrize("stack", [False, True])
def test_one_rank_round_is_exact_for_low_rank_gradients(stack: bool) -> None:
    g = ember.Generator().manual_seed(2)
    lows = [ember.randn(6, 2, generator=g) @ ember.randn(2, 5, generator=g) for _ in range(2)]
    flat, grads = _grads([(6, 5), (6, 5)])
    for view, low in zip(grads, lows):
        view.copy_(low)
    plan = P._BucketPlan(grads, 2, 1, stack)
    p_memory, q_memory = ember.empty(plan.p_numel), ember.empty(plan.q_numel)
    bound = plan.bind(p_memory, q_memory)
    for f in bound:
        f.q.copy_(ember.randn(*f.q.shape, generator=g))
    for step in (lambda f: f.project(0), lambda f: f.project_back(0), lambda f: f.reconstruct()):
        for f in bound:
            step(f)
    # rank-2 matrices come back (a stacked batch written back into the bucket's views)
    assert (flat - ember.cat([m.reshape(-1) for m in lows])).abs().max().item() < 1e-4
