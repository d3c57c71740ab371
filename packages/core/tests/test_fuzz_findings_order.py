"""Core-op and functional fuzz findings of issue 16 from seeds 1131 and 1132, each as the smallest
call that showed it: PyTorch's check order (overlaps, value overflow, out= dtypes, shapes before
bounds), the errors it raises where ember returned, the calls it accepts, and the torch_known_wrong
entries of the calls where PyTorch crashes or answers wrong. Helpers are test_fuzz_findings_ops.py's."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

torch = pytest.importorskip("torch")

import ember  # noqa: E402
from sibling import load  # noqa: E402  (conftest.py registers it)

_FO = load("test_fuzz_findings_ops")
outcome, same, check, call, known_wrong = _FO.outcome, _FO.same, _FO.check, _FO.call, _FO.known_wrong
NAN, INF = _FO.NAN, _FO.INF


# ---- seed 1131: PyTorch's check order (overlap, value overflow, out= dtypes, shapes before bounds),
# the errors it raises where ember returned, and the calls it accepts ----------------------------

def _f(m: Any) -> Any:
    return m.nn.functional


@pytest.mark.parametrize("f", call(
    # scatter converts value (checked) at its first in-bounds index
    lambda m: m.zeros(3, 4, dtype=m.int64).scatter(0, m.tensor([[2, 0, 1, 2]]), INF),
    lambda m: m.zeros(3, dtype=m.int64).scatter(0, m.tensor([0]), 2**63),
    lambda m: m.zeros(3, dtype=m.int32).scatter(0, m.tensor([0]), 2**40),
    lambda m: m.zeros(3, dtype=m.uint8).scatter(0, m.tensor([0]), -1),
    lambda m: m.zeros(3, dtype=m.int64).scatter(0, m.tensor([], dtype=m.int64), 1e300),
    lambda m: m.zeros(3, dtype=m.int64).scatter(0, m.tensor([5]), 1e300),
    lambda m: m.zeros(3, dtype=m.int64).scatter(0, m.tensor([0]), 2**63, reduce="add"),
    # unique over a dim: the zero-size dims counted
    lambda m: m.unique(m.ones(0, 0), dim=0),
    lambda m: m.unique(m.ones(0, 3), dim=0, return_inverse=True, return_counts=True),
    lambda m: m.unique(m.ones(3, 0), dim=0),
    lambda m: m.unique_consecutive(m.ones(0, 0, 2), dim=1),
    # put_: the overlap of self (and an empty self) before the bounds
    lambda m: m.zeros(3, 4).expand(2, 3, 4)[0].put_(m.tensor([12]), m.tensor([1.0])),
    lambda m: m.zeros(1).expand(4).put_(m.tensor([9]), m.tensor([1.0])),
    lambda m: m.zeros(0).put_(m.tensor([0]), m.tensor([1.0])),
    lambda m: m.zeros(1).expand(4).put(m.tensor([0]), m.tensor([1.0])),
    # index_put: the value's shape and dtype before the bounds; a mask and a one-element value fill
    lambda m: m.index_put(m.zeros(4, 3), (m.tensor(5),), m.ones(2, 3)),
    lambda m: m.index_put(m.zeros(4, 3), (m.tensor(5),), m.ones(3, dtype=m.int64)),
    lambda m: m.index_put(m.zeros(4, 3), (m.tensor(5),), m.ones(3)),
    lambda m: m.index_put(m.zeros(2, 3), (m.tensor([True, False]),), m.tensor(5)),
    lambda m: m.index_put(m.zeros(2, 3), (m.tensor([True, False]),), m.tensor([[5]])),
    lambda m: m.index_put(m.zeros(2, 3, dtype=m.int64), (m.tensor([True, False]),), m.tensor(2.7)),
    lambda m: m.index_put(m.zeros(2, 3, dtype=m.int64), (m.tensor([True, False]),), m.tensor(1e300, dtype=m.float64)),
    lambda m: m.index_put(m.zeros(2, 3), (m.tensor([True, False]),), m.tensor(5), accumulate=True),
    lambda m: m.index_put(m.zeros(2, 3), (m.tensor([True]),), m.tensor(5)),
    lambda m: m.index_put(m.zeros(2, 3), (m.tensor([1, 0, 1], dtype=m.uint8),), m.tensor(5)),
    # kthvalue / median / nanmedian out=: their dtypes after the empty dim, before the dtype dispatch
    lambda m: m.nanmedian(m.ones(4, 5, dtype=m.bool), 1, out=(m.empty(0), m.empty(0))),
    lambda m: m.nanmedian(m.ones(4, 5, dtype=m.bool), 1, out=(m.empty(0, dtype=m.bool), m.empty(0))),
    lambda m: m.median(m.ones(4, 5, dtype=m.uint8), 1, out=(m.empty(0, dtype=m.int8), m.empty(0, dtype=m.int64))),
    lambda m: m.median(m.ones(4, 5), 1, out=(m.empty(0), m.empty(0, dtype=m.bool))),
    lambda m: m.median(m.ones(4, 0), 1, out=(m.empty(0), m.empty(0, dtype=m.int32))),
    lambda m: m.kthvalue(m.ones(4, 5, dtype=m.bool), 1, 1, out=(m.empty(0), m.empty(0))),
    lambda m: m.kthvalue(m.ones(4, 5), 9, 1, out=(m.empty(0, dtype=m.int64), m.empty(0))),
    # empty_strided: the size's overflow (parsed after the stride) before the stride's SymInt range
    lambda m: m.empty_strided((2**63, 3), (3, -2**63)).shape,
    lambda m: m.empty_strided((2**63,), (2**63,)).shape,
    # the special functions without half kernels: the iterator's errors first
    lambda m: m.special.bessel_j0(m.ones(3, 4, dtype=m.float16), out=m.empty(0, dtype=m.int64)),
    lambda m: m.special.bessel_j0(m.ones(3, 4, dtype=m.float16), out=m.empty(1).expand(12)),
    lambda m: m.special.airy_ai(m.ones(3, dtype=m.bfloat16), out=m.empty(1).expand(3)),
    lambda m: m.special.bessel_j0(m.ones(3, dtype=m.float16), out=m.empty(3, dtype=m.float16)),
    lambda m: m.special.chebyshev_polynomial_t(m.ones(3, dtype=m.float16), 2, out=m.empty(1).expand(3)),
    lambda m: m.special.zeta(m.ones(3, dtype=m.float16), m.ones(3, dtype=m.float16), out=m.empty(0, dtype=m.int64)),
    lambda m: m.special.laguerre_polynomial_l(m.ones(3, dtype=m.float16), 2, out=m.empty(1).expand(3)),
    # max pooling with nothing to compute still has no bool kernel
    lambda m: _f(m).max_pool3d(m.ones(0, 2, 4, 4, 4, dtype=m.bool), 2),
    lambda m: _f(m).max_pool2d(m.ones(0, 2, 4, 4, dtype=m.bool), 2),
    lambda m: _f(m).max_pool1d(m.ones(0, 2, 4, dtype=m.bool), 2, return_indices=True),
    # a transposed convolution's output: at least 1 per dim, allocated before the dtype dispatch
    lambda m: _f(m).conv_transpose3d(m.ones(1, 2, 2, 2, 2), m.ones(2, 2, 1, 1, 1), padding=1),
    lambda m: _f(m).conv_transpose2d(m.ones(1, 2, 2, 3), m.ones(2, 2, 1, 1), padding=(1, 0)),
    lambda m: _f(m).conv_transpose1d(m.ones(1, 2, 2), m.ones(2, 2, 1), padding=1),
    lambda m: _f(m).conv_transpose3d(m.ones(1, 2, 3, 3, 3, dtype=m.int32), m.ones(2, 2, 2, 2, 2), stride=2147483647),
    lambda m: _f(m).conv_transpose3d(m.ones(1, 2, 3, 3, 3), m.ones(2, 2, 2, 2, 2), stride=2147483647),
    lambda m: _f(m).conv_transpose2d(m.ones(1, 2, 3, 3, dtype=m.bool), m.ones(2, 2, 2, 2), stride=2147483647),
    lambda m: _f(m).conv_transpose3d(m.ones(0, 2, 2, 2, 2), m.ones(2, 2, 1, 1, 1), padding=1),
    # where mkldnn takes the call (a batch of 2 here) an empty output is fine
    lambda m: _f(m).conv_transpose2d(m.ones(2, 2, 2, 3), m.ones(2, 2, 1, 1), padding=(1, 0)),
    lambda m: _f(m).conv_transpose3d(m.ones(2, 2, 2, 2, 2), m.ones(2, 2, 1, 1, 1), padding=1),
))
def test_seed_1131_findings(f: Callable[[Any], Any]) -> None:
    check(f)


@pytest.mark.parametrize("f", call(
    # affine_grid's base grid of a unit-size dim in a half type (aten's at::tensor has no such kernel)
    lambda m: _f(m).affine_grid(m.ones(2, 2, 3, dtype=m.float16), [2, 1, 3, 1], align_corners=False),
    lambda m: _f(m).affine_grid(m.ones(2, 3, 4, dtype=m.bfloat16), [2, 1, 1, 3, 3], align_corners=False),
    lambda m: m.affine_grid_generator(m.ones(2, 3, 2, dtype=m.float16), [2, 1, 3, 1], False),
    lambda m: _f(m).affine_grid(m.ones(2, 2, 3, dtype=m.float16), [2, 1, 3, 2], align_corners=False),
    # an int argument past int64: the parser's ValueError; log_softmax's dtype error before nll_loss's shapes
    lambda m: _f(m).cross_entropy(m.ones(3, 4), m.tensor([0, 1, 2]), ignore_index=2**63),
    lambda m: _f(m).nll_loss(m.ones(3, 4), m.tensor([0, 1, 2]), ignore_index=-2**63 - 1),
    lambda m: _f(m).cross_entropy(m.ones(1, dtype=m.int64), m.tensor([0, 4, 2])),
    lambda m: _f(m).cross_entropy(m.ones(2, 3, dtype=m.int32), m.tensor([0, 1])),
    # conv_tbc: aten's addmm_ per tap (its dtype errors; no NaN from multiplying padding by inf)
    lambda m: m.conv_tbc(m.ones(3, 2, 4, dtype=m.bool), m.ones(2, 4, 5), m.ones(5)),
    lambda m: m.conv_tbc(m.ones(3, 2, 4, dtype=m.bool), m.ones(2, 4, 5, dtype=m.bool), m.ones(5, dtype=m.bool)),
    lambda m: m.conv_tbc(m.ones(3, 2, 4, dtype=m.float64), m.ones(2, 4, 5), m.ones(5)),
    lambda m: m.conv_tbc(m.ones(5, 2, 3), m.tensor([INF, -INF, NAN, 1.0]).repeat(6).reshape(2, 3, 4), m.ones(4), 1),
    lambda m: m.conv_tbc(m.ones(3, 2, 4, dtype=m.int32), m.ones(2, 4, 5, dtype=m.int32), m.ones(5, dtype=m.int32), 2),
    # scaled_dot_product_attention: the fused path's mask shapes, the math path's in-place mask add
    lambda m: _f(m).scaled_dot_product_attention(m.ones(2, 3, 4, 8), m.ones(2, 3, 4, 8), m.ones(2, 3, 4, 8),
                                                 attn_mask=m.ones(0, 4)),
    lambda m: _f(m).scaled_dot_product_attention(m.ones(2, 3, 4, 8), m.ones(2, 3, 4, 8), m.ones(2, 3, 4, 8),
                                                 attn_mask=m.ones(1, 2, 3, 4, 4, dtype=m.bool)),
    lambda m: _f(m).scaled_dot_product_attention(m.ones(2, 3, 4, 8), m.ones(2, 3, 4, 8), m.ones(2, 3, 4, 8),
                                                 attn_mask=m.ones(3, 4, 4, dtype=m.bool)),
    lambda m: _f(m).scaled_dot_product_attention(m.ones(2, 3, 4, 8), m.ones(2, 3, 4, 8), m.ones(2, 3, 4, 8),
                                                 attn_mask=m.ones(3, 1, 1)),
    lambda m: _f(m).scaled_dot_product_attention(m.ones(3, 4, 8), m.ones(3, 4, 8), m.ones(3, 4, 8),
                                                 attn_mask=m.ones(3, 1, 4, 4, dtype=m.bool)),
))
def test_seed_1131_functional_findings(f: Callable[[Any], Any]) -> None:
    check(f)


def test_nll_loss_backward_unchecked_target_known_wrong() -> None:
    """PyTorch's reduction-'none' nll_loss_backward on a 2-d input writes at an unchecked target
    (torch_known_wrong: nll-loss-backward-none-unchecked-target): ember raises the IndexError of
    its other paths, after the same shape checks."""
    kw = known_wrong()
    for target, ignore in (([-100, 1, 2], 0), ([0, 3, 1, -100], -100)):
        x = torch.ones(len(target), 4 if ignore == 0 else 0)
        args = (torch.ones(len(target)), x, torch.tensor(target), None, 0, ignore, torch.tensor(1.0))
        entry = kw.lookup("nll_loss_backward", args, {})
        assert entry is not None and entry.id == "nll-loss-backward-none-unchecked-target"
        want = outcome(torch, lambda _m, a=args: kw.corrected(entry, None, "nll_loss_backward", a, {}))
        got = outcome(ember, lambda m, t=target, i=ignore, n=x.shape[1]: m._nn.nll_loss_backward(
            m.ones(len(t)), m.ones(len(t), n), m.tensor(t), None, 0, i, m.tensor(1.0)))
        assert want[:2] == got[:2] == ("raise", "IndexError"), f"{want} vs {got}"
    # a grad_output of the wrong shape: PyTorch's own shape error comes first
    args = (torch.ones(2), torch.ones(3, 4), torch.tensor([-100, 1, 2]), None, 0, 0, torch.tensor(1.0))
    want = outcome(torch, lambda _m: kw.corrected(kw.lookup("nll_loss_backward", args, {}), None,
                                                   "nll_loss_backward", args, {}))
    got = outcome(ember, lambda m: m._nn.nll_loss_backward(m.ones(2), m.ones(3, 4), m.tensor([-100, 1, 2]), None, 0,
                                                           0, m.tensor(1.0)))
    assert want[:2] == got[:2] == ("raise", "RuntimeError"), f"{want} vs {got}"


@pytest.mark.parametrize("backward", [False, True])
def test_sdpa_flash_no_heads_known_wrong(backward: bool) -> None:
    """PyTorch's fused CPU attention (and its backward) divide by a head count of 0 (SIGFPE;
    torch_known_wrong: sdpa-flash-no-heads): ember returns the empty outputs of its meta function."""
    kw = known_wrong()
    name = "_scaled_dot_product_flash_attention_for_cpu" + ("_backward" if backward else "")

    def args(m: Any) -> tuple:
        q = m.ones(2, 0, 5, 4, dtype=m.float64)
        return (q, q, q, q, q, m.ones(2, 0, 5, dtype=m.float64), 0.0, True) if backward else (q, q, q, 0.0, True)

    entry = kw.lookup(name, args(torch), {})
    assert entry is not None and entry.id == "sdpa-flash-no-heads"
    want = outcome(torch, lambda _m: kw.corrected(entry, None, name, args(torch), {}))
    got = outcome(ember, lambda m: getattr(m._nn, name)(*args(m)))
    assert same(want, got), f"{want} vs {got}"


@pytest.mark.parametrize("f", call(
    # unique over a dim sorts its slices as aten does (std::sort, plain < and >): NaN rows land where that sort puts them
    lambda m: m.unique(m.tensor([[NAN, INF], [-INF, 0.0], [-0.0, 1.0]], dtype=m.float64), dim=1),
    lambda m: m.unique(m.tensor([[NAN, 1.0, NAN, 0.5], [2.0, NAN, 2.0, INF]]), dim=1, return_inverse=True,
                       return_counts=True),
    lambda m: m.unique(m.tensor([[NAN, 1.0], [1.0, NAN], [NAN, 1.0], [0.0, -INF]]), dim=0),
    # linalg.solve factors A before broadcasting it: a singular A is the error even for an empty batch of B
    lambda m: m.linalg.solve(m.tensor([[4.0], [1.0], [0.5]], dtype=m.float64).expand(3, 3), m.ones(0, 3, 2, dtype=m.float64)),
    lambda m: m.linalg.solve(m.eye(3, dtype=m.float64), m.ones(0, 3, 2, dtype=m.float64)),
    # an index into a dim of size 0: IndexError as the index is built, before the value's checks
    lambda m: m.index_put(m.zeros(0, 0), (m.tensor([0, 2]),), m.ones(2, 3)),
    lambda m: m.zeros(0, 3)[m.tensor([0])],
    lambda m: m.index_put(m.zeros(0, 3), (m.tensor([], dtype=m.int64),), m.ones(2, 3)),
    # conv_tbc's output length in aten's int64 arithmetic
    lambda m: m.conv_tbc(m.ones(5, 2, 3), m.ones(2, 3, 4), m.ones(4), 4611686018427387904),
    lambda m: m.conv_tbc(m.arange(30.0).reshape(5, 2, 3), m.ones(2, 3, 4), m.zeros(4), 2**63 - 1),
    lambda m: m.conv_tbc(m.ones(5, 2, 3), m.ones(2, 3, 4), m.ones(4), -5),
    lambda m: m.conv_tbc(m.ones(5, 2, 3), m.ones(2, 3, 4), m.ones(4), 2**63),
    # index_put keeps a value's leading unit dims (x[i] = v drops them)
    lambda m: m.index_put(m.zeros(4, 3), [m.tensor(5)], m.ones(1, 3), accumulate=True),
    lambda m: m.index_put(m.zeros(4, 3), [m.tensor(1)], m.ones(1, 3)),
    # int8 and int16 index tensors: aten's IndexError
    lambda m: m.index_put(m.zeros(4, 3), (m.tensor(1, dtype=m.int8),), m.ones(2, 3)),
    lambda m: m.zeros(4, 3)[m.tensor([1], dtype=m.int16)],
    lambda m: m.zeros(4, 3)[m.tensor([1], dtype=m.int32)],
    lambda m: _f(m).instance_norm(m.ones(()), weight=m.ones(3), bias=m.ones(3), use_input_stats=2),
))
def test_seed_1131_more_findings(f: Callable[[Any], Any]) -> None:
    check(f)


@pytest.mark.parametrize("name", ["max_pool2d", "max_pool3d", "max_pool3d_with_indices"])
def test_max_pool_dilated_kernel_overflow_known_wrong(name: str) -> None:
    """PyTorch's max pooling wraps (kernel_size - 1) * dilation in int32 and returns -inf and
    out-of-range indices (torch_known_wrong: max-pool-dilated-kernel-int-overflow): ember's
    output-size error, computed in int64."""
    kw = known_wrong()
    shape = (1, 2, 4, 4, 4) if "3d" in name else (1, 2, 4, 4)
    kwargs = {"kernel_size": 2147483647, "stride": 2, "padding": 1, "dilation": 4}
    x = torch.ones(shape)
    entry = kw.lookup(name, (x,), kwargs)
    assert entry is not None and entry.id == "max-pool-dilated-kernel-int-overflow"
    want = outcome(torch, lambda _m: kw.corrected(entry, None, name, (x,), kwargs))
    got = outcome(ember, lambda m: getattr(m.nn.functional, name)(m.ones(shape), **kwargs))
    assert want[:2] == got[:2] == ("raise", "RuntimeError"), f"{want} vs {got}"


def test_setitem_drops_leading_unit_dims() -> None:
    def put(m: Any) -> Any:
        x = m.zeros(4, 3)
        x[m.tensor([1, 2])] = m.arange(3.0).reshape(1, 1, 3)
        x[m.tensor(0)] = m.ones(1, 1, 3)
        return x

    check(put)


def test_sdpa_flash_empty_query_known_wrong() -> None:
    """PyTorch's fused CPU attention divides by the query blocks of a length-0 query (SIGFPE;
    torch_known_wrong: sdpa-flash-no-heads): ember returns the meta function's empty outputs."""
    kw = known_wrong()
    name = "_scaled_dot_product_flash_attention_for_cpu"

    def args(m: Any) -> tuple:
        kv = m.ones(2, 3, 6, 4, dtype=m.float64)
        return (m.ones(2, 3, 0, 4, dtype=m.float64), kv, kv)

    entry = kw.lookup(name, args(torch), {})
    assert entry is not None and entry.id == "sdpa-flash-no-heads"
    want = outcome(torch, lambda _m: kw.corrected(entry, None, name, args(torch), {}))
    got = outcome(ember, lambda m: getattr(m._nn, name)(*args(m)))
    assert same(want, got), f"{want} vs {got}"


def test_var_all_equal_entry_reads_unbiased() -> None:
    """var-all-equal-values covers calls past their degrees of freedom only: unbiased=False is a
    correction of 0 (std of one value: 0, which ember gives)."""
    kw = known_wrong()
    x = torch.full((1, 1), 0.3)
    assert kw.lookup("std", (x, 1, False), {}) is None
    assert kw.lookup("std", (x, False), {}) is None
    assert kw.lookup("std", (x, 1, True), {}).id == "var-all-equal-values"
    check(lambda m: m.std(m.full((1, 1), 0.3), 1, unbiased=False))
