"""torch.lstm / gru / rnn_tanh / rnn_relu: the functional multi-layer recurrences nn.LSTM, nn.GRU
and nn.RNN are built on, over a flat list of weights, for a padded batch or packed data. They run
ember-nn's layer loop (RNNBase._run: the whole-sequence LSTM/GRU kernels and the fused cells), so
they need the ember-nn distribution, imported on first call."""

from __future__ import annotations

from typing import Any

from ember._tensor import Tensor

__all__ = ["gru", "lstm", "rnn_relu", "rnn_tanh"]


def _runner(mode: str, params: Any, has_biases: bool, num_layers: int, dropout: float, train: bool,
            bidirectional: bool, proj: bool) -> Any:
    """An object with the attributes and methods RNNBase._run reads, holding params by group."""
    from ember.nn.modules.rnn import RNNBase

    class _Run:
        _run, _run_layers, _run_direction = RNNBase._run, RNNBase._run_layers, RNNBase._run_direction
        _sequence_ok, _run_sequence, _layer_step = RNNBase._sequence_ok, RNNBase._run_sequence, RNNBase._layer_step

    params = list(params)
    stride = (4 if has_biases else 2) + (1 if proj else 0)
    groups = num_layers * (2 if bidirectional else 1)
    if len(params) % stride:
        raise RuntimeError(f"MatrixRef: ArrayRef size {len(params)} not divisible by stride {stride}")
    if len(params) // stride < groups:
        raise RuntimeError(f"{mode.lower()}: expected {groups * stride} weights for {num_layers} layer(s)"
                           f"{' in both directions' if bidirectional else ''}, got {len(params)}")
    run = _Run()
    run.mode, run.num_layers, run.bidirectional, run.bias = mode, num_layers, bidirectional, has_biases
    run.dropout, run.training, run.proj_size = float(dropout), bool(train), 1 if proj else 0
    run._all_weights = []
    for g in range(groups):
        names = [f"w{g}_{j}" for j in range(stride)]
        for name, p in zip(names, params[g * stride:(g + 1) * stride]):
            setattr(run, name, p)
        run._all_weights.append(names)
    return run


def _forward(mode: str, args: tuple, hidden: Any) -> Any:
    """Dispatch the padded form (input, hx, params, has_biases, num_layers, dropout, train,
    bidirectional, batch_first) and the packed one (data, batch_sizes, hx, params, has_biases,
    num_layers, dropout, train, bidirectional)."""
    packed = len(args) == 9 and isinstance(args[1], Tensor) and not isinstance(args[3], bool)
    if packed:
        data, batch_sizes, hx, params, has_biases, num_layers, dropout, train, bidirectional = args
        batch_first = False
    else:
        if len(args) != 9:
            raise TypeError(f"{mode.lower()}() takes 9 arguments (input, hx, params, has_biases, num_layers, dropout, "
                            f"train, bidirectional, batch_first), got {len(args)}")
        data, hx, params, has_biases, num_layers, dropout, train, bidirectional, batch_first = args
    lstm = mode == "LSTM"
    if lstm:
        if len(hx) != 2:
            raise RuntimeError("lstm expects two hidden states")
        h0, c0 = hx
        proj = h0.shape[-1] != c0.shape[-1]
    else:
        h0, c0, proj = hx, None, False
    run = _runner(mode, params, has_biases, num_layers, dropout, train, bidirectional, proj)
    if packed:
        sizes = [int(s) for s in batch_sizes.tolist()]
        y, h_n, c_n = run._run(data, sizes, h0, c0)
        return (y, h_n, c_n) if lstm else (y, h_n)
    x = data.transpose(0, 1) if batch_first else data
    steps, batch = x.shape[0], x.shape[1]
    y, h_n, c_n = run._run(x.reshape((steps * batch, x.shape[2])), [batch] * steps, h0, c0)
    out = y.reshape((steps, batch, y.shape[-1]))
    out = out.transpose(0, 1) if batch_first else out
    return (out, h_n, c_n) if lstm else (out, h_n)


def lstm(*args: Any) -> tuple[Tensor, Tensor, Tensor]:
    """lstm(input, hx, params, has_biases, num_layers, dropout, train, bidirectional, batch_first) -> tuple

    A multi-layer LSTM over a padded batch ``input`` (``(T, B, I)``, or ``(B, T, I)`` with
    ``batch_first``), or, in the form ``lstm(data, batch_sizes, hx, params, has_biases,
    num_layers, dropout, train, bidirectional)``, over packed data. ``params`` lists each
    layer's (and direction's) ``w_ih, w_hh[, b_ih, b_hh][, w_hr]`` in nn.LSTM's order; a
    ``w_hr`` projection is present when ``h0`` is narrower than ``c0``.

    Args:
        input (Tensor): the sequence batch (or packed ``data`` followed by ``batch_sizes``).
        hx (tuple of Tensors): ``(h0, c0)``, each ``(num_layers * directions, B, H)``.
        params (list of Tensors): the weights, as ``nn.LSTM._flat_weights``.
        has_biases (bool): whether each group holds the two biases.
        num_layers (int): the number of stacked layers.
        dropout (float): dropout between layers when ``train``.
        train (bool): whether dropout applies.
        bidirectional (bool): whether each layer also runs backwards.
        batch_first (bool): whether ``input`` is ``(B, T, I)``.

    Returns:
        tuple: ``(output, h_n, c_n)``.

    Example::

        >>> m = ember.nn.LSTM(3, 4)
        >>> x, h = ember.randn(5, 2, 3), ember.zeros(1, 2, 4)
        >>> out, h_n, c_n = ember.lstm(x, (h, h), m._flat_weights, True, 1, 0.0, False, False, False)
        >>> out.shape, h_n.shape
        (torch.Size([5, 2, 4]), torch.Size([1, 2, 4]))
    """
    return _forward("LSTM", args, None)


def gru(*args: Any) -> tuple[Tensor, Tensor]:
    """gru(input, hx, params, has_biases, num_layers, dropout, train, bidirectional, batch_first) -> tuple

    A multi-layer GRU over a padded batch, or over packed data in the form ``gru(data,
    batch_sizes, hx, params, has_biases, num_layers, dropout, train, bidirectional)``; the
    arguments are ``lstm``'s with a single hidden state.

    Args:
        input (Tensor): the sequence batch (or packed ``data`` followed by ``batch_sizes``).
        hx (Tensor): ``h0``, ``(num_layers * directions, B, H)``.
        params (list of Tensors): ``w_ih, w_hh[, b_ih, b_hh]`` per layer and direction (``nn.GRU._flat_weights``).
        has_biases (bool): True when every group has ``b_ih`` and ``b_hh``.
        num_layers (int): layers stacked, each feeding the next.
        dropout (float): probability of zeroing a layer's output before the next layer (training only).
        train (bool): whether this is a training run.
        bidirectional (bool): whether a reverse direction runs too (outputs concatenated).
        batch_first (bool): True for ``(B, T, I)`` input and output.

    Returns:
        tuple: ``(output, h_n)``.

    Example::

        >>> m = ember.nn.GRU(3, 4)
        >>> out, h_n = ember.gru(ember.randn(5, 2, 3), ember.zeros(1, 2, 4), m._flat_weights, True, 1, 0.0, False,
        ...                      False, False)
        >>> out.shape
        torch.Size([5, 2, 4])
    """
    return _forward("GRU", args, None)


def rnn_tanh(*args: Any) -> tuple[Tensor, Tensor]:
    """rnn_tanh(input, hx, params, has_biases, num_layers, dropout, train, bidirectional, batch_first) -> tuple

    A multi-layer Elman RNN with ``tanh``, over a padded batch or packed data; the arguments are
    ``gru``'s (``params`` as ``nn.RNN._flat_weights``).

    Args:
        input (Tensor): ``(T, B, I)`` (packed: ``data``, then ``batch_sizes``).
        hx (Tensor): the first hidden state of each layer and direction.
        params (list of Tensors): ``nn.RNN._flat_weights``.
        has_biases (bool): whether biases are among ``params``.
        num_layers (int): the depth.
        dropout (float): the dropout probability between layers.
        train (bool): training mode (dropout on).
        bidirectional (bool): two directions per layer.
        batch_first (bool): ``input`` is ``(B, T, I)``.

    Returns:
        tuple: ``(output, h_n)``.

    Example::

        >>> m = ember.nn.RNN(3, 4)
        >>> out, h_n = ember.rnn_tanh(ember.randn(5, 2, 3), ember.zeros(1, 2, 4), m._flat_weights, True, 1, 0.0,
        ...                           False, False, False)
        >>> h_n.shape
        torch.Size([1, 2, 4])
    """
    return _forward("RNN_TANH", args, None)


def rnn_relu(*args: Any) -> tuple[Tensor, Tensor]:
    """rnn_relu(input, hx, params, has_biases, num_layers, dropout, train, bidirectional, batch_first) -> tuple

    ``rnn_tanh`` with ``relu`` as the non-linearity.

    Args:
        input (Tensor): the padded batch, or packed ``data`` and then ``batch_sizes``.
        hx (Tensor): the initial hidden states.
        params (list of Tensors): the flat weight list of ``nn.RNN(nonlinearity="relu")``.
        has_biases (bool): whether ``params`` includes biases.
        num_layers (int): how many layers are stacked.
        dropout (float): dropout applied to each layer's output but the last's, when training.
        train (bool): whether dropout is active.
        bidirectional (bool): whether there is a reverse direction.
        batch_first (bool): whether the batch dim comes first.

    Returns:
        tuple: ``(output, h_n)``.

    Example::

        >>> m = ember.nn.RNN(3, 4, nonlinearity="relu")
        >>> out, h_n = ember.rnn_relu(ember.randn(5, 2, 3), ember.zeros(1, 2, 4), m._flat_weights, True, 1, 0.0,
        ...                           False, False, False)
        >>> bool((out >= 0).all())
        True
    """
    return _forward("RNN_RELU", args, None)

