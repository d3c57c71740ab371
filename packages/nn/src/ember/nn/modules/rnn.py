"""Recurrent layers: RNN (tanh / relu), LSTM (with projections), GRU, and their single-step cells.

A layer runs its time loop in Python over the core cell ops (ember.rnn_tanh_cell, lstm_cell,
gru_cell), after one GEMM for the input projection of every step at once. The projected
gates enter each step as the cell's (broadcast) input bias with a zero-width input, so the
step only does the hidden GEMM and the fused gate kernel (forward and backward).
"""

from __future__ import annotations

import math
import numbers
import warnings
from collections.abc import Callable
from typing import Any

import ember
from ember import Tensor, _autocast_policy
from ember.nn import functional as F
from ember.nn import init
from ember.nn.modules.module import Module
from ember.nn.parameter import Parameter
from ember.nn.utils.rnn import PackedSequence

__all__ = ["RNNBase", "RNN", "LSTM", "GRU", "RNNCellBase", "RNNCell", "LSTMCell", "GRUCell"]

_GATES = {"LSTM": 4, "GRU": 3, "RNN_TANH": 1, "RNN_RELU": 1}


class RNNBase(Module):
    """Parameters, checks and the layer / direction loop shared by RNN, LSTM and GRU."""

    def __init__(self, mode: str, input_size: int, hidden_size: int, num_layers: int = 1, bias: bool = True,
                 batch_first: bool = False, dropout: float = 0.0, bidirectional: bool = False, proj_size: int = 0,
                 device: Any = None, dtype: Any = None) -> None:
        super().__init__()
        if (not isinstance(dropout, numbers.Number) or isinstance(dropout, bool)
                or not 0 <= dropout <= 1):
            raise ValueError("dropout should be a number in range [0, 1] representing the probability of an "
                             "element being zeroed")
        if dropout > 0 and num_layers == 1:
            warnings.warn("dropout option adds dropout after all but last recurrent layer, so non-zero dropout "
                          f"expects num_layers greater than 1, but got dropout={dropout} and "
                          f"num_layers={num_layers}", stacklevel=2)
        if not isinstance(hidden_size, int):
            raise TypeError(f"hidden_size should be of type int, got: {type(hidden_size).__name__}")
        if hidden_size <= 0:
            raise ValueError("hidden_size must be greater than zero")
        if num_layers <= 0:
            raise ValueError("num_layers must be greater than zero")
        if proj_size < 0:
            raise ValueError("proj_size should be a positive integer or zero to disable projections")
        if proj_size >= hidden_size:
            raise ValueError("proj_size has to be smaller than hidden_size")
        if mode not in _GATES:
            raise ValueError("Unrecognized RNN mode: " + mode)
        if proj_size and mode != "LSTM":
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        self.mode = mode
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.num_layers = num_layers
        self.bias = bias
        self.batch_first = batch_first
        self.dropout = float(dropout)
        self.bidirectional = bidirectional
        self.proj_size = proj_size
        num_directions = 2 if bidirectional else 1
        gate_size = _GATES[mode] * hidden_size
        real_hidden = proj_size if proj_size > 0 else hidden_size
        self._flat_weights_names: list[str] = []
        self._all_weights: list[list[str]] = []
        for layer in range(num_layers):
            for direction in range(num_directions):
                layer_input = input_size if layer == 0 else real_hidden * num_directions
                shapes = [(gate_size, layer_input), (gate_size, real_hidden)]
                names = ["weight_ih_l{}{}", "weight_hh_l{}{}"]
                if bias:
                    shapes += [(gate_size,), (gate_size,)]
                    names += ["bias_ih_l{}{}", "bias_hh_l{}{}"]
                if proj_size > 0:
                    shapes.append((proj_size, hidden_size))
                    names.append("weight_hr_l{}{}")
                suffix = "_reverse" if direction == 1 else ""
                names = [n.format(layer, suffix) for n in names]
                for name, shape in zip(names, shapes, strict=True):
                    setattr(self, name, Parameter(ember.empty(shape, dtype=dtype, device=device)))
                self._flat_weights_names.extend(names)
                self._all_weights.append(names)
        self.reset_parameters()

    @property
    def _flat_weights(self) -> list[Tensor | None]:
        return [getattr(self, n, None) for n in self._flat_weights_names]

    @property
    def all_weights(self) -> list[list[Parameter]]:
        return [[getattr(self, w) for w in ws] for ws in self._all_weights]

    def flatten_parameters(self) -> None:
        """No-op: ember keeps each weight as its own tensor (there is no cuDNN flat buffer)."""

    def reset_parameters(self) -> None:
        """Re-initializes the learned parameters with the layer's default initialization (as at construction)."""
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    def extra_repr(self) -> str:
        s = f"{self.input_size}, {self.hidden_size}"
        if self.proj_size != 0:
            s += f", proj_size={self.proj_size}"
        if self.num_layers != 1:
            s += f", num_layers={self.num_layers}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        if self.batch_first is not False:
            s += f", batch_first={self.batch_first}"
        if self.dropout != 0:
            s += f", dropout={self.dropout}"
        if self.bidirectional is not False:
            s += f", bidirectional={self.bidirectional}"
        return s

    # ---------------------------------------------------------------- checks
    def _check_input(self, input: Tensor, packed: bool) -> None:
        expected = 2 if packed else 3
        if input.dim() != expected:
            raise RuntimeError(f"input must have {expected} dimensions, got {input.dim()}")
        if self.input_size != input.size(-1):
            raise RuntimeError(f"input.size(-1) must be equal to input_size. Expected {self.input_size}, "
                               f"got {input.size(-1)}")

    def _expected_hidden(self, batch: int, width: int) -> tuple[int, int, int]:
        return (self.num_layers * (2 if self.bidirectional else 1), batch, width)

    @staticmethod
    def _check_hidden(hx: Tensor, expected: tuple[int, int, int], msg: str = "Expected hidden size {}, got {}") -> None:
        if tuple(hx.shape) != expected:
            raise RuntimeError(msg.format(expected, list(hx.shape)))

    # ---------------------------------------------------------------- running
    def _unpack_input(self, input: Any) -> tuple[Tensor, list[int], Any, Any, bool, int]:
        """(data [N, I], batch_sizes, sorted_indices, unsorted_indices, is_batched, max_batch)."""
        name = {"RNN_TANH": "RNN", "RNN_RELU": "RNN"}.get(self.mode, self.mode)
        if isinstance(input, PackedSequence):
            self._check_input(input.data, packed=True)
            sizes = [int(v) for v in input.batch_sizes.tolist()]
            return input.data, sizes, input.sorted_indices, input.unsorted_indices, True, sizes[0] if sizes else 0
        if input.dim() not in (2, 3):
            raise ValueError(f"{name}: Expected input to be 2D or 3D, got {input.dim()}D tensor instead")
        return input, [], None, None, input.dim() == 3, 0

    def _layer_step(self) -> Callable[..., Any]:
        return {"RNN_TANH": ember.rnn_tanh_cell, "RNN_RELU": ember.rnn_relu_cell, "GRU": ember.gru_cell}[self.mode]

    def _run(self, data: Tensor, sizes: list[int], hx: Tensor, cx: Tensor | None) -> tuple[Tensor, Tensor, Any]:
        """All layers over packed-layout ``data`` [N, I]; returns (output [N, D*H'], h_n, c_n)."""
        low = _autocast_rnn_dtype(data)
        if low is not None:  # aten's autocast of cuDNN's RNN: input, states and weights in low precision
            data, hx = _autocast_policy._cast(data, low, "cuda"), _autocast_policy._cast(hx, low, "cuda")
            cx = None if cx is None else _autocast_policy._cast(cx, low, "cuda")
            with ember.autocast("cuda", enabled=False):
                return self._run_layers(data, sizes, hx, cx, low)
        return self._run_layers(data, sizes, hx, cx, None)

    def _run_layers(self, data: Tensor, sizes: list[int], hx: Tensor, cx: Tensor | None,
                    low: Any) -> tuple[Tensor, Tensor, Any]:
        dirs = 2 if self.bidirectional else 1
        h_out, c_out = [], []
        x = data
        for layer in range(self.num_layers):
            outs = []
            for d in range(dirs):
                k = layer * dirs + d
                ws = [getattr(self, n) for n in self._all_weights[k]]
                if low is not None:
                    ws = [_autocast_policy._cast(w, low, "cuda") for w in ws]
                y, h, c = self._run_direction(x, sizes, ws, hx[k], None if cx is None else cx[k], reverse=d == 1)
                outs.append(y)
                h_out.append(h)
                c_out.append(c)
            x = outs[0] if dirs == 1 else ember.cat(outs, -1)
            if self.dropout and self.training and layer < self.num_layers - 1:
                x = F.dropout(x, p=self.dropout, training=True)
        return x, ember.stack(h_out), (ember.stack(c_out) if cx is not None else None)

    def _run_direction(self, x: Tensor, sizes: list[int], ws: list[Tensor], h0: Tensor, c0: Tensor | None,
                       reverse: bool) -> tuple[Tensor, Tensor, Tensor | None]:
        w_ih, w_hh = ws[0], ws[1]
        b_ih, b_hh = (ws[2], ws[3]) if self.bias else (None, None)
        w_hr = ws[-1] if self.proj_size > 0 else None
        if self._sequence_ok(x, sizes, h0):
            return self._run_sequence(x, sizes, w_ih, w_hh, b_ih, b_hh, h0, c0, reverse)
        steps = list(F.linear(x, w_ih, b_ih).split(sizes))  # input projections of every step: one GEMM
        order = range(len(sizes) - 1, -1, -1) if reverse else range(len(sizes))
        lstm = self.mode == "LSTM"
        step = None if lstm else self._layer_step()
        w0 = w_ih.new_empty((w_ih.shape[0], 0))  # zero-width input weights: the gates come in as the bias
        h = h0[:sizes[order[0]]] if reverse and sizes else h0
        c = None if c0 is None else (c0[:sizes[order[0]]] if reverse and sizes else c0)
        done_h, done_c = [], []
        zeros_in: dict[int, Tensor] = {}  # zero-width step inputs, one per batch size
        outs: list[Tensor] = [None] * len(sizes)  # type: ignore[list-item]
        for t in order:
            bs, n = sizes[t], h.shape[0]
            if bs < n:  # forward direction: sequences that ended keep their last state
                done_h.append(h[bs:])
                h = h[:bs]
                if c is not None:
                    done_c.append(c[bs:])
                    c = c[:bs]
            elif bs > n:  # reverse direction: sequences that start now begin from h0 / c0
                h = ember.cat([h, h0[n:bs]])
                if c is not None:
                    c = ember.cat([c, c0[n:bs]])
            zin = zeros_in.get(bs)
            if zin is None:
                zin = zeros_in[bs] = x.new_empty((bs, 0))
            if not lstm:
                h = step(zin, h, w0, w_hh, steps[t], b_hh)
            elif w_hr is None:
                h, c = ember.lstm_cell(zin, [h, c], w0, w_hh, steps[t], b_hh)
            else:
                h, c = _lstm_proj_step(steps[t], h, c, w_hh, b_hh, w_hr)
            outs[t] = h
        if done_h:
            h = ember.cat([h] + done_h[::-1])
            if c is not None:
                c = ember.cat([c] + done_c[::-1])
        y = ember.cat(outs) if outs else x.new_empty((0, h0.shape[-1]))
        return y, h, c

    def _sequence_ok(self, x: Tensor, sizes: list[int], h0: Tensor) -> bool:
        """Whether the whole-sequence core op applies: LSTM without projection or GRU, over an
        unpacked batch (every step the same size), float32/float64 on the CPU or a GPU."""
        return (self.mode in ("LSTM", "GRU") and self.proj_size == 0 and bool(sizes)
                and sizes.count(sizes[0]) == len(sizes) and x.dtype in (ember.float32, ember.float64)
                and x.device.type in ("cpu", "cuda"))

    def _run_sequence(self, x: Tensor, sizes: list[int], w_ih: Tensor, w_hh: Tensor, b_ih: Tensor | None,
                      b_hh: Tensor | None, h0: Tensor, c0: Tensor | None,
                      reverse: bool) -> tuple[Tensor, Tensor, Tensor | None]:
        # One C++ call runs every step (and one node backs them all); its backward hands back
        # the gate gradients of every step, so the input projection's grads stay one GEMM each.
        T, B = len(sizes), sizes[0]
        if self.mode == "LSTM":  # the projection inside too: one GEMM gives dW_ih and dW_hh
            y, h, c = ember._lib._C._lstm_layer(x.reshape((T, B, x.shape[-1])), w_ih, b_ih, h0, c0, w_hh, b_hh, reverse)
        else:
            xg = F.linear(x, w_ih, b_ih).reshape((T, B, w_ih.shape[0]))
            (y, h), c = ember._lib._C._gru_sequence(xg, h0, w_hh, b_hh, reverse), None
        return y.reshape((T * B, y.shape[-1])), h, c

    def _forward(self, input: Any, hx: Any) -> tuple[Any, Any]:
        data, sizes, sorted_indices, unsorted_indices, is_batched, max_batch = self._unpack_input(input)
        packed = isinstance(input, PackedSequence)
        lstm = self.mode == "LSTM"
        real_hidden = self.proj_size if self.proj_size > 0 else self.hidden_size
        if not packed:
            batch_dim = 0 if self.batch_first else 1
            if not is_batched:
                data = data.unsqueeze(batch_dim)
                hx = _unsqueeze_hidden(hx, lstm)
            else:
                _check_batched_hidden(hx, lstm)
            if self.batch_first:
                data = data.transpose(0, 1)
            self._check_input(data, packed=False)
            T, max_batch = data.shape[0], data.shape[1]
            sizes = [max_batch] * T
            flat = data.reshape((T * max_batch, data.shape[2]))
        else:
            flat = data
        dirs = 2 if self.bidirectional else 1
        if hx is None:
            h0 = ember.zeros((self.num_layers * dirs, max_batch, real_hidden), dtype=flat.dtype, device=flat.device)
            c0 = (ember.zeros((self.num_layers * dirs, max_batch, self.hidden_size), dtype=flat.dtype,
                              device=flat.device) if lstm else None)
        else:
            h0, c0 = (hx[0], hx[1]) if lstm else (hx, None)
            if sorted_indices is not None:
                h0 = h0.index_select(1, sorted_indices)
                c0 = c0.index_select(1, sorted_indices) if c0 is not None else None
            if lstm:
                self._check_hidden(h0, self._expected_hidden(max_batch, real_hidden),
                                   "Expected hidden[0] size {}, got {}")
                self._check_hidden(c0, self._expected_hidden(max_batch, self.hidden_size),
                                   "Expected hidden[1] size {}, got {}")
            else:
                self._check_hidden(h0, self._expected_hidden(max_batch, self.hidden_size))
        y, h_n, c_n = self._run(flat, sizes, h0, c0)
        if unsorted_indices is not None:
            h_n = h_n.index_select(1, unsorted_indices)
            c_n = c_n.index_select(1, unsorted_indices) if c_n is not None else None
        hidden = (h_n, c_n) if lstm else h_n
        if packed:
            return PackedSequence(y, input.batch_sizes, sorted_indices, unsorted_indices), hidden
        out = y.reshape((len(sizes), max_batch, y.shape[-1]))
        if self.batch_first:
            out = out.transpose(0, 1)
        if not is_batched:
            out = out.squeeze(1 if not self.batch_first else 0)
            hidden = (h_n.squeeze(1), c_n.squeeze(1)) if lstm else h_n.squeeze(1)
        return out, hidden


def _autocast_rnn_dtype(data: Tensor) -> Any:
    """The CUDA autocast dtype when it is on and ``data`` is a floating CUDA tensor it casts, else None."""
    if not _autocast_policy.ACTIVE[0] or not data.is_cuda or not ember.is_autocast_enabled("cuda"):
        return None
    if not data.is_floating_point() or data.dtype == ember.float64:
        return None
    return ember.get_autocast_dtype("cuda")


def _lstm_proj_step(xg: Tensor, h: Tensor, c: Tensor, w_hh: Tensor, b_hh: Tensor | None,
                    w_hr: Tensor) -> tuple[Tensor, Tensor]:
    # lstm_cell needs h and c of one width; with a projection h is narrower, so compose the step
    i, f, g, o = (F.linear(h, w_hh, b_hh) + xg).chunk(4, 1)
    c = ember.sigmoid(f) * c + ember.sigmoid(i) * ember.tanh(g)
    return F.linear(ember.sigmoid(o) * ember.tanh(c), w_hr), c


def _unsqueeze_hidden(hx: Any, lstm: bool) -> Any:
    if hx is None:
        return None
    if lstm:
        if hx[0].dim() != 2 or hx[1].dim() != 2:
            raise RuntimeError(f"For unbatched 2-D input, hx and cx should also be 2-D but got "
                               f"({hx[0].dim()}-D, {hx[1].dim()}-D) tensors")
        return (hx[0].unsqueeze(1), hx[1].unsqueeze(1))
    if hx.dim() != 2:
        raise RuntimeError(f"For unbatched 2-D input, hx should also be 2-D but got {hx.dim()}-D tensor")
    return hx.unsqueeze(1)


def _check_batched_hidden(hx: Any, lstm: bool) -> None:
    if hx is None:
        return
    if lstm:
        if hx[0].dim() != 3 or hx[1].dim() != 3:
            raise RuntimeError(f"For batched 3-D input, hx and cx should also be 3-D but got "
                               f"({hx[0].dim()}-D, {hx[1].dim()}-D) tensors")
    elif hx.dim() != 3:
        raise RuntimeError(f"For batched 3-D input, hx should also be 3-D but got {hx.dim()}-D tensor")


class RNN(RNNBase):
    """Elman RNN: h_t = act(W_ih x_t + b_ih + W_hh h_{t-1} + b_hh), act tanh or relu."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        if len(args) > 3:
            self.nonlinearity = args[3]
            args = args[:3] + args[4:]
        else:
            self.nonlinearity = kwargs.pop("nonlinearity", "tanh")
        if self.nonlinearity == "tanh":
            mode = "RNN_TANH"
        elif self.nonlinearity == "relu":
            mode = "RNN_RELU"
        else:
            raise ValueError(f"Unknown nonlinearity '{self.nonlinearity}'. Select from 'tanh' or 'relu'.")
        super().__init__(mode, *args, **kwargs)

    def forward(self, input: Any, hx: Tensor | None = None) -> tuple[Any, Tensor]:
        return self._forward(input, hx)


class LSTM(RNNBase):
    """Long short-term memory; ``proj_size > 0`` projects h_t to that width (weight_hr)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__("LSTM", *args, **kwargs)

    def forward(self, input: Any, hx: tuple[Tensor, Tensor] | None = None) -> tuple[Any, tuple[Tensor, Tensor]]:
        return self._forward(input, hx)


class GRU(RNNBase):
    """Gated recurrent unit."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        super().__init__("GRU", *args, **kwargs)

    def forward(self, input: Any, hx: Tensor | None = None) -> tuple[Any, Tensor]:
        return self._forward(input, hx)


# -------------------------------------------------------------------- cells
class RNNCellBase(Module):
    """weight_ih [G*H, I], weight_hh [G*H, H], bias_ih / bias_hh [G*H], uniform(+-1/sqrt(H))."""

    def __init__(self, input_size: int, hidden_size: int, bias: bool, num_chunks: int, device: Any = None,
                 dtype: Any = None) -> None:
        super().__init__()
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.bias = bias
        self.weight_ih = Parameter(ember.empty((num_chunks * hidden_size, input_size), dtype=dtype, device=device))
        self.weight_hh = Parameter(ember.empty((num_chunks * hidden_size, hidden_size), dtype=dtype, device=device))
        if bias:
            self.bias_ih = Parameter(ember.empty(num_chunks * hidden_size, dtype=dtype, device=device))
            self.bias_hh = Parameter(ember.empty(num_chunks * hidden_size, dtype=dtype, device=device))
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()

    def extra_repr(self) -> str:
        s = f"{self.input_size}, {self.hidden_size}"
        if getattr(self, "bias", True) is not True:
            s += f", bias={self.bias}"
        if getattr(self, "nonlinearity", "tanh") != "tanh":
            s += f", nonlinearity={self.nonlinearity}"
        return s

    def reset_parameters(self) -> None:
        """Re-initializes the learned parameters with the layer's default initialization (as at construction)."""
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    def _prepare(self, name: str, input: Tensor, hx: Tensor | None, label: str = "hidden") -> tuple[Tensor, Any, bool]:
        if input.dim() not in (1, 2):
            raise ValueError(f"{name}: Expected input to be 1D or 2D, got {input.dim()}D instead")
        if hx is not None and hx.dim() not in (1, 2):
            raise ValueError(f"{name}: Expected {label} to be 1D or 2D, got {hx.dim()}D instead")
        batched = input.dim() == 2
        if not batched:
            input = input.unsqueeze(0)
        if hx is None:
            hx = ember.zeros((input.shape[0], self.hidden_size), dtype=input.dtype, device=input.device)
        elif not batched:
            hx = hx.unsqueeze(0)
        return input, hx, batched


class RNNCell(RNNCellBase):
    """One Elman RNN step (tanh or relu)."""

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True, nonlinearity: str = "tanh",
                 device: Any = None, dtype: Any = None) -> None:
        super().__init__(input_size, hidden_size, bias, num_chunks=1, device=device, dtype=dtype)
        self.nonlinearity = nonlinearity

    def forward(self, input: Tensor, hx: Tensor | None = None) -> Tensor:
        input, hx, batched = self._prepare("RNNCell", input, hx)
        if self.nonlinearity == "tanh":
            ret = ember.rnn_tanh_cell(input, hx, self.weight_ih, self.weight_hh, self.bias_ih, self.bias_hh)
        elif self.nonlinearity == "relu":
            ret = ember.rnn_relu_cell(input, hx, self.weight_ih, self.weight_hh, self.bias_ih, self.bias_hh)
        else:
            raise RuntimeError(f"Unknown nonlinearity: {self.nonlinearity}")
        return ret if batched else ret.squeeze(0)


class LSTMCell(RNNCellBase):
    """One LSTM step: returns (h', c')."""

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True, device: Any = None,
                 dtype: Any = None) -> None:
        super().__init__(input_size, hidden_size, bias, num_chunks=4, device=device, dtype=dtype)

    def forward(self, input: Tensor, hx: tuple[Tensor, Tensor] | None = None) -> tuple[Tensor, Tensor]:
        if input.dim() not in (1, 2):
            raise ValueError(f"LSTMCell: Expected input to be 1D or 2D, got {input.dim()}D instead")
        if hx is not None:
            for i in (0, 1):
                if hx[i].dim() not in (1, 2):
                    raise ValueError(f"LSTMCell: Expected hx[{i}] to be 1D or 2D, got {hx[i].dim()}D instead")
        batched = input.dim() == 2
        if not batched:
            input = input.unsqueeze(0)
        if hx is None:
            z = ember.zeros((input.shape[0], self.hidden_size), dtype=input.dtype, device=input.device)
            hx = (z, z)
        elif not batched:
            hx = (hx[0].unsqueeze(0), hx[1].unsqueeze(0))
        h, c = ember.lstm_cell(input, list(hx), self.weight_ih, self.weight_hh, self.bias_ih, self.bias_hh)
        return (h, c) if batched else (h.squeeze(0), c.squeeze(0))


class GRUCell(RNNCellBase):
    """One GRU step."""

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True, device: Any = None,
                 dtype: Any = None) -> None:
        super().__init__(input_size, hidden_size, bias, num_chunks=3, device=device, dtype=dtype)

    def forward(self, input: Tensor, hx: Tensor | None = None) -> Tensor:
        input, hx, batched = self._prepare("GRUCell", input, hx)
        ret = ember.gru_cell(input, hx, self.weight_ih, self.weight_hh, self.bias_ih, self.bias_hh)
        return ret if batched else ret.squeeze(0)
