"""Ops without a CUDA kernel on a GPU (issue 24): a supported op meeting a missing entry (a
complex32) raises PyTorch's NotImplementedError ("Could not run 'aten::<op>' with arguments from
the 'CUDA' backend"), naming the op, before touching device memory; the supported ones run.
(cuda_support.yaml lists no unsupported op at present: the LAPACK ones run through the host,
test_cuda_linalg.py.) Skipped without a GPU; test_cuda_support.py checks the listing and the
generated guards on the CPU."""

from __future__ import annotations

import ember
import pytest

pytestmark = pytest.mark.skipif(not ember.cuda.is_available(), reason="needs a GPU and a CUDA build of ember")


def _no_cuda(op: str) -> str:
    return rf"^Could not run '{op}' with arguments from the 'CUDA' backend\. This could be because the operator"


def test_an_operand_on_another_device_is_refused() -> None:
    p = ember.rand(2, 4)
    with pytest.raises(RuntimeError, match="Expected all tensors to be on the same device"):  # an op that runs
        ember.multinomial(p, 2, out=ember.empty(2, 2, dtype=ember.int64, device="cuda"))
    assert ember.multinomial(p, 2).shape == (2, 2)  # the same op on the CPU is untouched


def test_a_missing_entry_at_run_time_names_the_op() -> None:
    z = ember.zeros(3, dtype=ember.complex64).to(ember.complex32).cuda()  # no complex32 math on CUDA
    with pytest.raises(NotImplementedError, match=_no_cuda("aten::exp")):
        ember.exp(z)
    with pytest.raises(NotImplementedError, match=_no_cuda("aten::exp_")):
        z.exp_()


def test_python_operators_name_their_op() -> None:
    """a * b and the other operators (not bindings of their own) name the aten op too."""
    z = ember.ones(3, dtype=ember.complex64).to(ember.complex32).cuda()  # no complex32 division / pow on CUDA
    for op, call in (("div", lambda: z / z), ("div", lambda: 1 / z), ("pow", lambda: z ** 2),
                     ("div_", lambda: z.__itruediv__(z))):
        with pytest.raises(NotImplementedError, match=_no_cuda(f"aten::{op}")):
            call()


def test_supported_ops_run() -> None:
    x = ember.randn(4, 5)
    w = ember.randn(5, 3)
    xc, wc = x.cuda(), w.cuda()
    ember.testing.assert_close(ember.mm(xc, wc).cpu(), ember.mm(x, w))
    ember.testing.assert_close(xc.sum(1).cpu(), x.sum(1))
    ember.testing.assert_close(ember.softmax(xc, 1).cpu(), ember.softmax(x, 1))
    idx = ember.tensor([2, 0])
    ember.testing.assert_close(ember.index_select(xc, 0, idx.cuda()).cpu(), ember.index_select(x, 0, idx))
    ember.testing.assert_close(ember.cat([xc, xc]).cpu(), ember.cat([x, x]))
