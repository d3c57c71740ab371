"""nn on complex inputs, against PyTorch: where aten takes them (F.unfold / F.fold, F.rms_norm,
the convolutions, LSTM / GRU / RNN and their cells) values and gradients; where it refuses them
(aten's convolution itself, the pools, mse_loss) the same error."""

from __future__ import annotations

from typing import Any

import ember
import numpy as np
import pytest

torch = pytest.importorskip("torch")


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_unfold_fold_and_gradient_match_torch(dtype: str) -> None:
    rng = np.random.default_rng(0)
    a = (rng.standard_normal((2, 3, 5, 6)) + 1j * rng.standard_normal((2, 3, 5, 6))).astype(dtype)
    outs = []
    for L in (torch, ember):
        x = L.from_numpy(a.copy()).requires_grad_()
        cols = L.nn.functional.unfold(x, (2, 3), dilation=1, padding=1, stride=(1, 2))
        back = L.nn.functional.fold(cols, (5, 6), (2, 3), padding=1, stride=(1, 2))
        (back.abs() ** 2).sum().backward()
        outs.append([cols.detach().numpy(), back.detach().numpy(), x.grad.numpy()])
    tol = 1e-5 if dtype == "complex64" else 1e-12
    for t, e in zip(*outs, strict=True):
        assert e.dtype == t.dtype
        np.testing.assert_allclose(e, t, rtol=tol, atol=tol)


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_rms_norm_of_complex_matches_torch(dtype: str) -> None:
    # aten's composite rms_norm squares with pow(2) (not |x|^2), and takes finfo(dtype).eps
    rng = np.random.default_rng(1)
    a = (rng.standard_normal((4, 6)) + 1j * rng.standard_normal((4, 6))).astype(dtype)
    outs = []
    for L in (torch, ember):
        x = L.from_numpy(a.copy()).requires_grad_()
        y = L.nn.functional.rms_norm(x, (6,))
        (y.abs() ** 2).sum().backward()
        outs.append([y.detach().numpy(), x.grad.numpy()])
    tol = 1e-5 if dtype == "complex64" else 1e-12
    for t, e in zip(*outs, strict=True):
        assert e.dtype == t.dtype
        np.testing.assert_allclose(e, t, rtol=tol, atol=tol)


def _same_weights(tm: Any, em: Any) -> None:
    for name, p in tm.named_parameters():
        getattr(em, name).data.copy_(ember.from_numpy(p.detach().numpy().copy()))


@pytest.mark.parametrize("kind", ["LSTM", "GRU", "RNN"])
@pytest.mark.parametrize("kwargs", [{}, {"num_layers": 2, "bidirectional": True}, {"batch_first": True, "bias": False}],
                         ids=["plain", "2-layer-bidirectional", "batch-first-nobias"])
def test_recurrent_layers_on_complex_match_torch(kind: str, kwargs: dict) -> None:
    # PyTorch's LSTM / GRU / RNN run complex inputs (the cells are holomorphic); its gradients
    # are conj(J^T conj(grad)), which the cells' and addmm's derivatives must follow
    rng = np.random.default_rng(2)
    a = rng.standard_normal((5, 2, 3)) + 1j * rng.standard_normal((5, 2, 3))
    tm = getattr(torch.nn, kind)(3, 4, dtype=torch.complex128, **kwargs)
    em = getattr(ember.nn, kind)(3, 4, dtype=ember.complex128, **kwargs)
    _same_weights(tm, em)
    outs = []
    for L, m in ((torch, tm), (ember, em)):
        x = L.from_numpy(a.copy()).requires_grad_()
        y, h = m(x)
        (y.abs() ** 2).sum().backward()
        outs.append([y.detach().numpy(), x.grad.numpy()] + [p.grad.numpy() for p in m.parameters()])
    for t, e in zip(*outs, strict=True):
        assert e.dtype == t.dtype
        np.testing.assert_allclose(e, t, rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("cell", ["lstm_cell", "gru_cell", "rnn_tanh_cell"])
def test_recurrent_cells_complex_gradients_match_torch(cell: str) -> None:
    rng = np.random.default_rng(3)

    def c(*s: int) -> np.ndarray:
        return rng.standard_normal(s) + 1j * rng.standard_normal(s)

    gates = {"lstm_cell": 16, "gru_cell": 12, "rnn_tanh_cell": 4}[cell]
    arrays = [c(2, 3), c(2, 4), c(2, 4), c(gates, 3), c(gates, 4), c(gates), c(gates)]
    outs = []
    for L in (torch, ember):
        x, h, cx, wi, wh, bi, bh = (L.from_numpy(v.copy()).requires_grad_() for v in arrays)
        if cell == "lstm_cell":
            hy, cy = L.lstm_cell(x, [h, cx], wi, wh, bi, bh)
            y = hy * 2 + cy
        else:
            y = getattr(L, cell)(x, h, wi, wh, bi, bh)
        (y.abs() ** 2).sum().backward()
        outs.append([y.detach().numpy()] + [v.grad.numpy() for v in (x, h, wi, wh, bi, bh)])
    for t, e in zip(*outs, strict=True):
        np.testing.assert_allclose(e, t, rtol=1e-10, atol=1e-10)


CONVS = {
    "conv1d": ((1, 2, 6), (3, 2, 2), {}),
    "conv2d": ((1, 2, 4, 4), (3, 2, 2, 2), {"padding": 1}),
    "conv3d": ((1, 2, 5, 5, 5), (3, 2, 2, 2, 2), {"dilation": 2}),
    "conv_transpose1d": ((1, 2, 5), (2, 3, 2), {"stride": 2}),
    "conv_transpose2d": ((1, 2, 4, 4), (2, 3, 2, 2), {"stride": 2}),
    "conv_transpose3d": ((1, 2, 3, 3, 3), (2, 3, 2, 2, 2), {}),
}


@pytest.mark.parametrize("name", list(CONVS))
def test_complex_convolutions_and_gradients_match_torch(name: str) -> None:
    # F.conv*d split a complex convolution into real ones (aten's complex_convolution); the
    # gradients go through the same split
    xs, ws, kw = CONVS[name]
    rng = np.random.default_rng(4)
    arrays = [rng.standard_normal(s) + 1j * rng.standard_normal(s) for s in (xs, ws, (3,))]
    outs = []
    for L in (torch, ember):
        x, w, b = (L.from_numpy(v.copy()).requires_grad_() for v in arrays)
        y = getattr(L.nn.functional, name)(x, w, b, **kw)
        (y.abs() ** 2).sum().backward()
        outs.append([y.detach().numpy(), x.grad.numpy(), w.grad.numpy(), b.grad.numpy()])
    for t, e in zip(*outs, strict=True):
        np.testing.assert_allclose(e, t, rtol=1e-10, atol=1e-10)


def _outcome(f: Any) -> tuple[str, str]:
    try:
        r = f()
    except Exception as e:  # noqa: BLE001 - the outcome is what is compared
        return type(e).__name__, str(e)
    return "ok", str(tuple(r.shape))


REFUSALS = {
    # aten's convolution itself has no complex kernel: the slow backends' dispatch refuses it
    "convolution": lambda L, z: L.convolution(z(1, 2, 5, 5), z(2, 2, 2, 2), None, [1, 1], [0, 0], [1, 1], False,
                                              [0, 0], 1),
    "convolution-dilated": lambda L, z: L.convolution(z(1, 2, 5), z(2, 2, 2), None, [1], [0], [2], False, [0], 1),
    "convolution-transposed3d": lambda L, z: L.convolution(z(1, 2, 3, 3, 3), z(2, 2, 2, 2, 2), None, [1] * 3,
                                                           [0] * 3, [1] * 3, True, [0] * 3, 1),
    "convolution-3d": lambda L, z: L.convolution(z(1, 2, 3, 3, 3), z(2, 2, 2, 2, 2), None, [1] * 3, [0] * 3,
                                                 [1] * 3, False, [0] * 3, 1),
    "convolution-empty-batch": lambda L, z: L.convolution(z(0, 2, 5, 5), z(2, 2, 2, 2), None, [1, 1], [0, 0],
                                                          [1, 1], False, [0, 0], 1),
    # the pools dispatch on the dtype even for an empty batch
    "max_pool2d-empty": lambda L, z: L.nn.functional.max_pool2d(z(0, 1, 4, 4), 2),
    "max_pool3d-empty": lambda L, z: L.nn.functional.max_pool3d(z(0, 1, 4, 4, 4), 2),
    "avg_pool1d-empty": lambda L, z: L.nn.functional.avg_pool1d(z(0, 1, 4), 2),
    "avg_pool2d-empty": lambda L, z: L.nn.functional.avg_pool2d(z(0, 1, 4, 4), 2),
    "avg_pool3d-empty": lambda L, z: L.nn.functional.avg_pool3d(z(0, 1, 4, 4, 4), 2),
    "avg_pool2d-too-small": lambda L, z: L.nn.functional.avg_pool2d(z(0, 1, 4, 4), 5),
    "adaptive_avg_pool2d-empty": lambda L, z: L.nn.functional.adaptive_avg_pool2d(z(0, 1, 4, 4), 2),
    "mse_loss": lambda L, z: L.nn.functional.mse_loss(z(3), z(3)),
}


@pytest.mark.parametrize("name", list(REFUSALS))
def test_complex_refusals_match_torch(name: str) -> None:
    def zeros(lib: Any) -> Any:
        return lambda *s: lib.zeros(s, dtype=lib.complex128)

    t = _outcome(lambda: REFUSALS[name](torch, zeros(torch)))
    e = _outcome(lambda: REFUSALS[name](ember, zeros(ember)))
    assert e == t
