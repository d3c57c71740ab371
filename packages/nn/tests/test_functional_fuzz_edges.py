"""nn.functional edge cases the fuzz suite found, compared with PyTorch: sdpa's early zeros for an
empty query length or value (before any batch broadcasting) and its mask-rank error, pdist's p read
as float32 and its p = 0 count, cosine_similarity's eps check and dtype rule, hinge_embedding_loss
in the input's dtype, layer/group norm's mixed-dtype checks, lp_pool's pow exponent check, ctc_loss's label range."""

from __future__ import annotations

import math

import ember
import ember.nn.functional as EF
import pytest

torch = pytest.importorskip("torch")


def _make(lib, shape, dtype="float32", fill=None):
    n = math.prod(shape)
    t = lib.arange(n, dtype=lib.float64).reshape(shape) * 0.37 % 2 - 0.6
    if fill is not None:
        t = t * 0 + fill
    return t.to(getattr(lib, dtype))


def _outcome(lib, f):
    try:
        r = f(lib, lib.nn.functional)
    except Exception as exc:  # noqa: BLE001 - the exception type is the result
        return type(exc).__name__
    return str(r.dtype), tuple(r.shape), [round(float(v), 4) if not math.isnan(v) else "nan"
                                          for v in r.double().flatten().tolist()]


CASES = {
    "sdpa-empty-value-broadcast": lambda m, F: F.scaled_dot_product_attention(
        _make(m, (2, 3, 3, 8)), _make(m, (2, 3, 5, 8)), _make(m, (5, 4, 5, 0))),
    "sdpa-no-query-rows": lambda m, F: F.scaled_dot_product_attention(
        _make(m, (2, 3, 0, 8)), _make(m, (5, 4, 5, 8)), _make(m, (2, 3, 5, 4))),
    "sdpa-no-keys": lambda m, F: F.scaled_dot_product_attention(
        _make(m, (2, 3, 3, 8)), _make(m, (5, 4, 0, 8)), _make(m, (2, 3, 0, 4))),
    "sdpa-empty-batch-mismatch": lambda m, F: F.scaled_dot_product_attention(
        _make(m, (0, 3, 4, 8)), _make(m, (2, 3, 5, 8)), _make(m, (2, 3, 5, 8))),
    "sdpa-head-dim-0": lambda m, F: F.scaled_dot_product_attention(
        _make(m, (2, 3, 2, 0)), _make(m, (2, 3, 5, 0)), _make(m, (2, 3, 5, 4))),
    "sdpa-0d-mask": lambda m, F: F.scaled_dot_product_attention(
        _make(m, (1, 2, 4, 8)), _make(m, (1, 2, 5, 8)), _make(m, (1, 2, 5, 8)), attn_mask=m.tensor(True)),
    "pdist-tiny-p": lambda m, F: F.pdist(_make(m, (5, 3)), p=5e-324),
    "pdist-huge-p": lambda m, F: F.pdist(_make(m, (5, 3)), p=1e39),
    "pdist-p0-nan": lambda m, F: F.pdist(m.tensor([[0.0, 1, 2], [math.nan, 1, 2], [3.0, 1, 5]]), p=0.0),
    "cosine-negative-eps": lambda m, F: F.cosine_similarity(_make(m, (2, 3)), _make(m, (2, 3)), eps=-math.inf),
    "cosine-0d-float64": lambda m, F: F.cosine_similarity(_make(m, (3, 4)), _make(m, (), "float64", 0.5)),
    "hinge-long-mean": lambda m, F: F.hinge_embedding_loss(_make(m, (2, 3), "int64"), _make(m, (2, 3), "int64")),
    "hinge-long-sum": lambda m, F: F.hinge_embedding_loss(
        _make(m, (2, 3), "int64", -1), _make(m, (2, 3), "int64", -1), margin=1.5, reduction="sum"),
    "hinge-half-margin-overflow": lambda m, F: F.hinge_embedding_loss(
        _make(m, (2, 3), "float16"), _make(m, (2, 3)), margin=1e6, reduction="sum"),
    "layer-norm-long-float-weight": lambda m, F: F.layer_norm(_make(m, (2, 3), "int64"), (3,), _make(m, (3,))),
    "layer-norm-half-double-weight": lambda m, F: F.layer_norm(
        _make(m, (2, 3), "float16"), (3,), _make(m, (3,), "float64")),
    "group-norm-long-float-weight": lambda m, F: F.group_norm(_make(m, (2, 4, 3), "int64"), 2, _make(m, (4,))),
    "lp-pool1d-half-exponent-overflow": lambda m, F: F.lp_pool1d(_make(m, (1, 3, 8), "float16"), 3.4e38, 2, stride=2),
    # float32 parameters beside a half-type input: aten's mixed type, computed in float32
    "layer-norm-half-float-params": lambda m, F: F.layer_norm(
        _make(m, (2, 3, 4), "float16"), (4,), _make(m, (4,)), _make(m, (4,))),
    "layer-norm-bf16-float-bias-only": lambda m, F: F.layer_norm(
        _make(m, (2, 3, 4), "bfloat16"), (4,), None, _make(m, (4,))),
    "layer-norm-half-weight-float-bias": lambda m, F: F.layer_norm(
        _make(m, (2, 3, 4), "float16"), (4,), _make(m, (4,), "float16"), _make(m, (4,))),
    "layer-norm-float-double-params": lambda m, F: F.layer_norm(
        _make(m, (2, 3, 4)), (4,), _make(m, (4,), "float64"), _make(m, (4,), "float64")),
    "group-norm-half-float-params": lambda m, F: F.group_norm(
        _make(m, (2, 4, 3), "float16"), 2, _make(m, (4,)), _make(m, (4,))),
    "instance-norm-half-float-params": lambda m, F: F.instance_norm(
        _make(m, (2, 3, 5), "float16"), weight=_make(m, (3,)), bias=_make(m, (3,)), use_input_stats=True),
    "batch-norm-half-float-stats": lambda m, F: F.batch_norm(
        _make(m, (4, 3, 5), "float16"), _make(m, (3,)), _make(m, (3,), fill=0.5), _make(m, (3,)), _make(m, (3,))),
    "batch-norm-half-weight-float-stats": lambda m, F: F.batch_norm(
        _make(m, (4, 3, 5), "float16"), _make(m, (3,)), _make(m, (3,), fill=0.5), _make(m, (3,), "float16")),
    "batch-norm-float-stats-half-var": lambda m, F: F.batch_norm(
        _make(m, (4, 3, 5), "float16"), _make(m, (3,)), _make(m, (3,), "float16", 0.5)),
    "batch-norm-double-float-weight": lambda m, F: F.batch_norm(
        _make(m, (4, 3, 5), "float64"), None, None, _make(m, (3,)), training=True),
    # nll_loss's target checks: dims, then dtype, then a 1-D input's target size
    "cross-entropy-1d-float-target-size": lambda m, F: F.cross_entropy(_make(m, (0,)), _make(m, (3,))),
    "cross-entropy-1d-int-target-size": lambda m, F: F.cross_entropy(_make(m, (4,)), _make(m, (3,), "int32")),
    "cross-entropy-1d-probs": lambda m, F: F.cross_entropy(_make(m, (3,)), _make(m, (3,), fill=0.25)),
    "nll-2d-target-dims-first": lambda m, F: F.nll_loss(_make(m, (4, 3)), _make(m, (4, 2))),
    "nll-2d-long-2d-target": lambda m, F: F.nll_loss(_make(m, (4, 3)), _make(m, (4, 2), "int64", 1)),
    # embedding(max_norm) scales each over-long row in place: a row overlapping itself is refused
    "embedding-renorm-overlapping-row": lambda m, F: F.embedding(
        m.tensor([0, 1, 3]), _make(m, (5, 1), fill=3.0).expand(5, 4), max_norm=1.0),
    "embedding-renorm-overlapping-row-short": lambda m, F: F.embedding(
        m.tensor([0, 1, 3]), _make(m, (5, 1), fill=0.1).expand(5, 4), max_norm=1.0),
    "embedding-0d-weight-padding-0": lambda m, F: F.embedding(m.tensor([0, 1]), _make(m, ()), padding_idx=0),
    "embedding-0d-weight-padding-1": lambda m, F: F.embedding(m.tensor([0, 1]), _make(m, ()), padding_idx=1),
    # F.group_norm's one-value-per-channel check runs before the kernel's divisibility rule
    "group-norm-one-value-first": lambda m, F: F.group_norm(_make(m, (1, 3, 1)), 2, _make(m, (4,)), _make(m, (4,))),
    "group-norm-zero-groups": lambda m, F: F.group_norm(_make(m, (2, 3, 4)), 0),
    # torch.Tensor.norm passes an int dim on as a one-element list: an int past int64 is a TypeError
    "normalize-dim-past-int64": lambda m, F: F.normalize(_make(m, (2, 3, 5)), p=1.0, dim=2**63),
    "normalize-dim-min-int64": lambda m, F: F.normalize(_make(m, (2, 3, 5)), p=1.0, dim=-(2**63)),
    # batch norm: aten's training path averages a strided input first (an integer one fails there);
    # running statistics are updated channel by channel; num_groups must be positive
    "batch-norm-strided-long-training": lambda m, F: m.batch_norm(
        _make(m, (4,), "int64")[::2], None, None, None, None, True, 0.1, 1e-5, False),
    "batch-norm-transposed-long-training": lambda m, F: m.batch_norm(
        _make(m, (3, 4), "int64").t(), None, None, None, None, True, 0.1, 1e-5, False),
    "batch-norm-contiguous-long-training": lambda m, F: m.batch_norm(
        _make(m, (3, 4), "int64"), None, None, None, None, True, 0.1, 1e-5, False),
    "group-norm-negative-groups": lambda m, F: F.group_norm(_make(m, (2, 3, 4)), -1),
    "instance-norm-strided-long": lambda m, F: F.instance_norm(
        _make(m, (2, 3, 10), "int64")[:, :, ::2], weight=_make(m, (3,)), bias=_make(m, (3,))),
    # log_softmax over a non-last dim keeps its sums in float32 for bfloat16 / float16
    "log-softmax-bf16-dim0": lambda m, F: F.log_softmax(
        m.tensor([[1.2573, -1.321], [-5.3567, 3.616], [-7.037, -12.65]]).bfloat16(), 0),
    "log-softmax-f16-dim1-of-3": lambda m, F: F.log_softmax(_make(m, (2, 5, 3), "float16") * 9, 1),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_functional_edge_like_torch(name):
    assert _outcome(ember, CASES[name]) == _outcome(torch, CASES[name])


def test_sdpa_math_path_scales_query_and_key():
    # aten scales each by sqrt(scale): a head size of 0 gives scale inf, yet no NaN
    out = EF.scaled_dot_product_attention(ember.ones(1, 1, 2, 0), ember.ones(1, 1, 3, 0), ember.ones(1, 1, 3, 2))
    assert out.eq(1).all()


# ---- ctc_loss: a target label outside log_probs' classes ---------------------------------------

@pytest.mark.parametrize("targets", [[[1, 2, 3], [1, 1, 2]], [[1.0, -1.5, 0.0], [1.0, 1.0, 0.0]],
                                     [[1.0, math.nan, 0.0], [1.0, 1.0, 0.0]]])
def test_ctc_label_out_of_range(targets: list) -> None:
    """PyTorch reads out of bounds (torch_known_wrong's ctc-loss-label-out-of-range): an error."""
    lp = ember.zeros(6, 2, 1 if isinstance(targets[0][0], int) else 3).log_softmax(2)
    with pytest.raises(RuntimeError, match=r"ctc_loss\(\): target .* out of the label range"):
        EF.ctc_loss(lp, ember.tensor(targets), ember.tensor([6, 5]), ember.tensor([3, 2]))
