"""``nn.utils.clip_grad_norm_`` on FSDP2's DTensor gradients: the total norm is the global
one (every shard counted once, replicas of HSDP not twice) and the clipped gradients equal
one process's, for the 2, 1, 3, inf and 0 norms, on 2 and 4 ranks and HSDP (2, 2)."""

from __future__ import annotations

from typing import Any

import pytest
from _launch import run_mpiexec

JOB = r"""
import math
from ember import nn
from ember.distributed.fsdp import fully_shard
from ember.distributed.device_mesh import init_device_mesh
dist.init_process_group("gloo")
r, n = dist.get_rank(), dist.get_world_size()

def make():
    ember.manual_seed(0)
    return nn.Sequential(nn.Linear(6, 10), nn.Tanh(), nn.Linear(10, 3))

x = ember.randn(4, 6, generator=ember.Generator().manual_seed(5))
meshes = [None] + ([init_device_mesh("cpu", (2, 2))] if n == 4 else [])
for mi, mesh in enumerate(meshes):
    rows = 4 // n if mesh is None else 2  # HSDP: the batch splits over all 4 ranks either way
    for p in (2.0, 1.0, 3.0, math.inf, 0.0):
        ref = make()
        ref(x).pow(2).mean().backward()
        want = nn.utils.clip_grad_norm_(ref.parameters(), 0.1, norm_type=p)
        m = make()
        kw = {} if mesh is None else {"mesh": mesh}
        for sub in (m[0], m[2], m):
            fully_shard(sub, **kw)
        m(x[r * 4 // n:(r + 1) * 4 // n]).pow(2).mean().backward()
        got = nn.utils.clip_grad_norm_(m.parameters(), 0.1, norm_type=p)
        grads = max((a.grad.full_tensor() - b.grad).abs().max().item()
                    for a, b in zip(m.parameters(), ref.parameters()))
        emit(**{f"{mi}_{p}": [float(got), float(want), grads, type(got).__name__]})
dist.destroy_process_group()
"""


@pytest.mark.parametrize("n", [2, 4])
def test_clip_grad_norm_of_dtensor_grads_is_global(tmp_path: Any, n: int) -> None:
    code, text, res = run_mpiexec(tmp_path, JOB, n=n, timeout=120)
    assert code == 0, text
    for rank in res:
        assert len(rank) == (5 if n == 2 else 10)
        for key, (got, want, grads, kind) in rank.items():
            assert got == pytest.approx(want, rel=1e-5), key
            assert grads < 1e-6, key  # clipped like one process's gradients
            assert kind == "DTensor"
