"""Regression tests for what the user-script tests found: import paths user code reaches by
attribute (nn.modules.batchnorm, nn.common_types, utils.data._utils), the transformer's mask
warnings, view_as leaving ``other`` out of the graph, dropout masks drawn as PyTorch's."""

from __future__ import annotations

import importlib
import warnings
from typing import Any

import ember
import pytest


@pytest.mark.parametrize("path", ["batchnorm._BatchNorm", "instancenorm._InstanceNorm", "channelshuffle.ChannelShuffle",
                                  "conv._ConvNd", "loss._Loss", "pooling._MaxPoolNd"])
def test_nn_modules_files_are_attributes(path: str) -> None:
    # isinstance(m, nn.modules.batchnorm._BatchNorm) after a bare `import torch`, as in weight-decay filters
    file, name = path.split(".")
    mod = getattr(ember.nn.modules, file)
    assert mod is importlib.import_module(f"ember.nn.modules.{file}")
    assert isinstance(getattr(mod, name), type)
    with pytest.raises(AttributeError, match="has no attribute 'no_such_file'"):
        _ = ember.nn.modules.no_such_file


def test_common_types_aliases(torch: Any) -> None:
    import ember.nn.common_types as ect
    import torch.nn.common_types as tct

    names = [n for n in vars(tct) if n.startswith("_") and n.endswith("_t") and not n.startswith("__")]
    assert names and all(hasattr(ect, n) for n in names)
    for n in ("_size_2_t", "_size_any_opt_t", "_ratio_3_t"):
        assert str(getattr(ect, n)) == str(getattr(tct, n))
    assert ember.nn.common_types is ect


def test_utils_data_utils_import_paths(torch: Any) -> None:
    from ember.utils.data._utils.collate import default_collate, default_convert
    from ember.utils.data._utils.worker import get_worker_info

    assert default_collate is ember.utils.data.default_collate
    assert default_convert is ember.utils.data.default_convert
    assert get_worker_info is ember.utils.data.get_worker_info
    assert ember.utils.data._utils.MP_STATUS_CHECK_INTERVAL == torch.utils.data._utils.MP_STATUS_CHECK_INTERVAL
    batch = ember.utils.data._utils.collate.default_collate([{"a": 1.0}, {"a": 2.0}])
    assert batch["a"].tolist() == [1.0, 2.0]


def _mask_warnings(lib: Any, call: str) -> list[str]:
    lib.manual_seed(0)
    nn = lib.nn
    layer = nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, batch_first=True)
    enc = nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)
    x = lib.randn(2, 5, 8)
    pad = lib.tensor([[False] * 5, [False] * 3 + [True] * 2])
    causal = nn.Transformer.generate_square_subsequent_mask(5)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        if call == "encoder":
            out = enc(x, mask=causal, src_key_padding_mask=pad)
        elif call == "layer":
            out = layer(x, src_mask=causal, src_key_padding_mask=pad)
        else:
            out = enc(x, mask=causal.isinf(), src_key_padding_mask=pad)
    assert out.shape == (2, 5, 8)
    return [str(i.message) for i in w]


@pytest.mark.parametrize("call", ["encoder", "layer", "both_bool"])
def test_transformer_mask_warnings_match(torch: Any, call: str) -> None:
    # the encoder canonicalises its masks once (one warning, under its own argument names)
    assert _mask_warnings(ember, call) == _mask_warnings(torch, call)


def test_encoder_rejects_integer_padding_mask(torch: Any) -> None:
    for lib in (torch, ember):
        enc = lib.nn.TransformerEncoder(lib.nn.TransformerEncoderLayer(8, 2, 16, batch_first=True), 1,
                                        enable_nested_tensor=False)
        with pytest.raises(AssertionError, match="only bool and floating types of src_key_padding_mask"):
            enc(lib.randn(2, 5, 8), src_key_padding_mask=lib.zeros(2, 5, dtype=lib.long))


def test_view_as_does_not_require_grad_of_other() -> None:
    p = ember.nn.Parameter(ember.randn(3, 4))
    assert not ember.ones(12).view_as(p).requires_grad
    assert not ember.ones(3, 4).reshape_as(p).requires_grad and not ember.ones(1, 4).expand_as(p).requires_grad
    x = ember.ones(12, requires_grad=True)
    (x.view_as(p) * 2).sum().backward()  # self still gets its gradient; p is not in the graph
    assert x.grad.tolist() == [2.0] * 12 and p.grad is None


def _rrelu_runs(lib: Any) -> list[Any]:
    out = []
    xs = [[-1.0] * 5, [0.0, float("nan"), -1.0, -2.0, 3.0, -1.0], [[-1.0, -4.0], [-2.0, -5.0], [-3.0, -6.0]]]
    for data in xs:
        for dtype in (lib.float32, lib.float64, lib.bfloat16):
            lib.manual_seed(0)
            y = lib.nn.functional.rrelu(lib.tensor(data, dtype=dtype), 0.01, 0.7, training=True)
            out += [y.float().tolist(), lib.rand(1).item()]
    lib.manual_seed(0)
    x = lib.randn(3, 4, requires_grad=True)
    lib.nn.RReLU()(x.t()).sum().backward()  # a transposed view: the draws follow the logical order
    out += [x.grad.tolist(), lib.rand(1).item()]
    return out


def test_rrelu_training_draws_match_torch(torch: Any) -> None:
    # one float64 draw per element <= 0, as PyTorch: a seeded RReLU network trains the same way
    import numpy as np

    for a, b in zip(_rrelu_runs(ember), _rrelu_runs(torch), strict=True):
        np.testing.assert_array_equal(np.asarray(a, dtype=float), np.asarray(b, dtype=float))


@pytest.mark.parametrize("shape,p,dtype", [((4, 8), 0.5, "float32"), ((40, 80), 0.3, "float64"),
                                           ((300, 700), 0.1, "float32"), ((5,), 0.9, "bfloat16")])
def test_dropout_mask_matches_torch(torch: Any, shape: tuple[int, ...], p: float, dtype: str) -> None:
    # the mask is empty_like(x).bernoulli_(1 - p)'s draws, as PyTorch's: seeded runs with dropout agree,
    # and the generator ends where PyTorch's does
    masks = []
    for lib in (torch, ember):
        lib.manual_seed(0)
        y = lib.nn.functional.dropout(lib.ones(*shape, dtype=getattr(lib, dtype)), p)
        masks.append(((y != 0).tolist(), lib.rand(2).tolist()))
    assert masks[0] == masks[1]
