"""The interpreter exits cleanly after backward passes that leave per-thread caches filled
(issue 16: no input may crash the process). The norm and RNN backward caches keep tensors that
may own NumPy memory; destroying them at thread exit, after Python finalized, segfaulted."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

np = pytest.importorskip("numpy")

SCRIPT = textwrap.dedent("""
    import numpy as np
    import ember
    import ember.nn.functional as F
    x = ember.from_numpy(np.random.rand(4, 3, 5).astype(np.float32)).requires_grad_()
    w = ember.from_numpy(np.ones(5, dtype=np.float32)).requires_grad_()
    b = ember.from_numpy(np.zeros(5, dtype=np.float32))  # no grad: the cache is never emptied
    F.layer_norm(x, (5,), w, b).sum().backward()
    bx = ember.from_numpy(np.random.rand(4, 3, 5).astype(np.float32)).requires_grad_()
    F.batch_norm(bx, None, None, w[:3].detach().clone().requires_grad_(), None, training=True).sum().backward()
    print("done")
""")


def test_exit_after_norm_backward_with_numpy_inputs() -> None:
    r = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and "done" in r.stdout, (r.returncode, r.stderr[-2000:])
