"""torch.stft / torch.istft (and the Tensor methods): the short-time Fourier transform and its
inverse, as torch.functional.stft and aten's SpectralOps.cpp write them, over ember.fft's
primitives. Framing is ``unfold``, overlap-add an ``index_add``: autograd comes with the ops."""

from __future__ import annotations

import warnings
from typing import Any

import ember
from ember import Tensor
from ember._autocast_policy import autocast_op
from ember._lib import _C
from ember.fft import _args
from ember.fft._primitives import fft_c2c, fft_c2r, fft_r2c

_LEGACY = {_C.float32: "Float", _C.float64: "Double", _C.float16: "Half", _C.bfloat16: "BFloat16",
           _C.complex64: "ComplexFloat", _C.complex128: "ComplexDouble", _C.bool: "Bool", _C.uint8: "Byte",
           _C.int8: "Char", _C.int16: "Short", _C.int32: "Int", _C.int64: "Long"}
_warned: set[str] = set()


def _warn_once(key: str, text: str) -> None:
    if key not in _warned:  # TORCH_WARN_ONCE
        _warned.add(key)
        warnings.warn(text, UserWarning, stacklevel=3)


def _opt(v: Any) -> str:
    return "None" if v is None else str(int(v))


def _win_repr(window: Tensor | None) -> str:
    return "None" if window is None else f"torch.{_LEGACY[window.dtype]}Tensor{{{list(window.shape)}}}"


def _pad_1d(x: Tensor, pad: int, mode: str) -> Tensor:
    """F.pad of the last dim of a 3-d ``x`` by ``pad`` on both sides (stft's centring)."""
    if mode == "constant":
        return ember.constant_pad_nd(x, [pad, pad])
    if mode not in ("reflect", "replicate", "circular"):
        raise NotImplementedError(f"Unrecognised padding mode {mode}")
    n = x.shape[-1]
    if mode == "reflect" and pad >= n:
        raise RuntimeError(f"Argument #4: Padding size should be less than the corresponding input dimension, but "
                           f"got: padding ({pad}, {pad}) at dimension 2 of input {list(x.shape)}")
    if mode == "circular" and pad > n:
        raise RuntimeError("Padding value causes wrapping around more than once.")
    i = ember.arange(-pad, n + pad, device=x.device)
    if mode == "reflect":
        i = ember.where(i < 0, -i, ember.where(i >= n, 2 * (n - 1) - i, i))
    elif mode == "replicate":
        i = i.clamp(0, n - 1)
    else:
        i = i.remainder(n)
    return x.index_select(-1, i)


@autocast_op("fp32", cuda=None)  # on the CPU list only
def stft(input: Tensor, n_fft: int, hop_length: int | None = None, win_length: int | None = None,
         window: Tensor | None = None, center: bool = True, pad_mode: str = "reflect", normalized: bool = False,
         onesided: bool | None = None, return_complex: bool | None = None,
         align_to_window: bool | None = None) -> Tensor:
    r"""stft(input, n_fft, hop_length=None, win_length=None, window=None, center=True, pad_mode='reflect',
    normalized=False, onesided=None, return_complex=None, align_to_window=None) -> Tensor

    The short-time Fourier transform: the Fourier transforms of the windowed frames
    ``input[..., t * hop_length : t * hop_length + n_fft] * window``.

    Args:
        input (Tensor): a 1-d signal ``(L,)`` or a batch of them ``(B, L)``, real or complex.
        n_fft (int): the size of each frame's Fourier transform.
        hop_length (int, optional): the distance between frames. Default: ``n_fft // 4``.
        win_length (int, optional): the window's size (it is centred in the frame, zero-padded to
            ``n_fft``). Default: ``n_fft``.
        window (Tensor, optional): a 1-d window of ``win_length`` points. Default: all ones.
        center (bool, optional): pad ``input`` by ``n_fft // 2`` on both sides so that frame ``t``
            is centred at ``t * hop_length``. Default: True.
        pad_mode (str, optional): the padding when ``center``: ``"reflect"`` (default),
            ``"constant"``, ``"replicate"`` or ``"circular"``.
        normalized (bool, optional): scale by ``1/sqrt(n_fft)``. Default: False.
        onesided (bool, optional): keep ``n_fft // 2 + 1`` frequencies (a real input and window only).
            Default: True for real input and window.
        return_complex (bool, optional): a complex result, or (False, deprecated) a real one with a
            last dim of 2; required for a real input and window.
        align_to_window (bool, optional): with ``center=False``, frames start where the window
            does rather than where the ``n_fft`` frame does.

    Returns:
        Tensor: ``(B?, N, T)``: ``N`` frequencies, ``T`` frames.

    Example::

        >>> ember.stft(ember.ones(8), 4, window=ember.ones(4), return_complex=True).shape
        torch.Size([3, 9])
    """
    _args.tensor("stft", input)
    if center and align_to_window is not None:
        raise RuntimeError("stft align_to_window should only be set when center = false")
    if center:  # torch.functional.stft pads before aten sees the input
        signal_dim = input.dim()
        extended = [1] * (3 - signal_dim) + list(input.shape)
        input = _pad_1d(input.reshape(extended), n_fft // 2, pad_mode)
        input = input.reshape(list(input.shape[-signal_dim:]) if signal_dim else [])
    hop = n_fft >> 2 if hop_length is None else hop_length
    win = n_fft if win_length is None else win_length

    def fail(what: str) -> None:
        raise RuntimeError(
            f"stft(torch.{_LEGACY.get(input.dtype, '')}Tensor{list(input.shape)}, n_fft={n_fft}, hop_length={hop}, "
            f"win_length={win}, window={_win_repr(window)}, normalized={int(normalized)}, onesided={_opt(onesided)}, "
            f"return_complex={_opt(return_complex)}, align_to_window={_opt(align_to_window)}) : {what}")

    if window is None:
        _warn_once("stft_window", "A window was not provided. A rectangular window will be applied,which is known to "
                   "cause spectral leakage. Other windows such as torch.hann_window or torch.hamming_window are "
                   "recommended to reduce spectral leakage.To suppress this warning and use a rectangular window, "
                   "explicitly set `window=torch.ones(n_fft, device=<device>)`.")
    complex_in = input.dtype.is_complex or (window is not None and window.dtype.is_complex)
    rc = complex_in if return_complex is None else return_complex
    if not rc:
        if return_complex is None:
            raise RuntimeError("stft requires the return_complex parameter be given for real inputs, and will further "
                               "require that return_complex=True in a future PyTorch release.")
        _warn_once("stft_rc", "stft with return_complex=False is deprecated. In a future pytorch release, stft will "
                   "return complex tensors for all inputs, and return_complex=False will raise an error.\nNote: you "
                   "can still call torch.view_as_real on the complex output to recover the old return format.")
    if not input.dtype.is_floating_point and not input.dtype.is_complex:
        fail("expected a tensor of floating point or complex values")
    if input.dim() not in (1, 2):
        fail("expected a 1D or 2D tensor")
    x = input.unsqueeze(0) if input.dim() == 1 else input
    length = x.shape[1]
    if n_fft <= 0 or n_fft > length:
        fail(f"expected 0 < n_fft < {length}, but got n_fft={win}")
    if hop <= 0:
        fail(f"expected hop_length > 0, but got hop_length={hop}")
    if win <= 0 or win > n_fft:
        fail(f"expected 0 < win_length <= n_fft, but got win_length={win}")
    if window is not None and (window.dim() != 1 or window.shape[0] != win):
        fail(f"expected a 1D window tensor of size equal to win_length={win}, but got window with size "
             f"{list(window.shape)}")
    left = (n_fft - win) // 2
    w = window
    if win < n_fft:  # the window centred in the frame
        w = ember.constant_pad_nd(window if window is not None else ember.ones(win, dtype=x.dtype, device=x.device),
                                  [left, n_fft - win - left])
    if align_to_window:  # frame t holds the window's span from t * hop
        x = ember.constant_pad_nd(x, [left, n_fft - win - left])
    frames = x.unfold(-1, n_fft, hop)  # (batch, n_frames, n_fft)
    if w is not None:
        frames = frames * w
    complex_fft = frames.dtype.is_complex
    sided = (not complex_fft) if onesided is None else onesided
    mode = 1 if normalized else 0
    if complex_fft:
        if sided:
            raise RuntimeError("Cannot have onesided output if window or input is complex")
        out = fft_c2c(frames, [2], mode, True)
    else:
        if frames.dtype not in (_C.float32, _C.float64):
            raise RuntimeError(f"MKL FFT doesn't support tensors of type: {_LEGACY[frames.dtype]}")
        out = fft_r2c(frames, [2], mode, sided)
    out = out.transpose(1, 2)
    if input.dim() == 1:
        out = out.squeeze(0)
    return out if rc else ember.view_as_real(out)


def _overlap_add(frames: Tensor, index: Tensor, total: int) -> Tensor:
    """aten's unfold_backward along dim 1: ``out[:, index[j]] += frames[:, j]``."""
    if frames.dtype.is_complex:  # index_add has no complex kernel: add the (real, imag) pairs
        pairs = ember.view_as_real(frames.contiguous())
        zeros = ember.zeros(frames.shape[0], total, 2, dtype=pairs.dtype, device=frames.device)
        return ember.view_as_complex(zeros.index_add(1, index, pairs))
    return ember.zeros(frames.shape[0], total, dtype=frames.dtype, device=frames.device).index_add(1, index, frames)


@autocast_op("fp32", cuda=None)  # on the CPU list only
def istft(input: Tensor, n_fft: int, hop_length: int | None = None, win_length: int | None = None,
          window: Tensor | None = None, center: bool = True, normalized: bool = False, onesided: bool | None = None,
          length: int | None = None, return_complex: bool = False) -> Tensor:
    r"""istft(input, n_fft, hop_length=None, win_length=None, window=None, center=True, normalized=False,
    onesided=None, length=None, return_complex=False) -> Tensor

    The inverse short-time Fourier transform: the least-squares signal of an :func:`stft`
    (inverse transform of each frame, windowed overlap-add, divided by the window envelope).

    Args:
        input (Tensor): a complex ``(B?, N, T)`` tensor, as :func:`stft` returns it.
        n_fft (int): the size of each frame's Fourier transform.
        hop_length (int, optional): the distance between frames. Default: ``n_fft // 4``.
        win_length (int, optional): the window's size. Default: ``n_fft``.
        window (Tensor, optional): the window the stft used. Default: all ones.
        center (bool, optional): whether the stft padded the input (trimmed here). Default: True.
        normalized (bool, optional): whether the stft was normalized. Default: False.
        onesided (bool, optional): whether the stft was onesided. Default: ``N != n_fft``.
        length (int, optional): the signal's length (trimmed or zero-padded to it).
        return_complex (bool, optional): a complex signal (from a two-sided stft). Default: False.

    Returns:
        Tensor: ``(B?, length)``.

    Example::

        >>> w = ember.hann_window(8)
        >>> x = ember.arange(16.)
        >>> ember.istft(ember.stft(x, 8, window=w, return_complex=True), 8, window=w, length=16).shape
        torch.Size([16])
    """
    _args.tensor("istft", input)
    hop = n_fft >> 2 if hop_length is None else hop_length
    win = n_fft if win_length is None else win_length

    def repr_() -> str:
        return (f"istft(CPU{_LEGACY.get(input.dtype, '')}Type{list(input.shape)}, n_fft={n_fft}, hop_length={hop}, "
                f"win_length={win}, window={_win_repr(window)}, center={int(center)}, normalized={int(normalized)}, "
                f"onesided={_opt(onesided)}, length={_opt(length)}, return_complex={int(return_complex)})")

    def fail(what: str) -> None:
        raise RuntimeError(f"{repr_()} : {what}")

    if window is None:
        _warn_once("istft_window", "A window was not provided. A rectangular window will be applied.Please provide "
                   "the same window used by stft to make the inversion lossless.To suppress this warning and use a "
                   "rectangular window, explicitly set `window=torch.ones(n_fft, device=<device>)`.")
    if not input.dtype.is_complex:
        raise RuntimeError("istft requires a complex-valued input tensor matching the output from stft with "
                           "return_complex=True.")
    real_dim = input.dim() + 1  # aten reads the sizes of view_as_real(input)
    n_frames = input.shape[_args.wrap_dim(-2, real_dim)]
    fft_size = input.shape[_args.wrap_dim(-3, real_dim)]
    if input.numel() == 0:
        fail("input tensor cannot be empty.")
    if real_dim not in (3, 4):
        fail(f"expected a tensor with 3 or 4 dimensions of real, or 2 or 3 dimensions of  complex, but got {real_dim}")
    sided = fft_size != n_fft if onesided is None else onesided
    if sided and n_fft // 2 + 1 != fft_size:
        fail("expected the frequency dimension (3rd to the last) of the input tensor to match n_fft / 2 + 1 when "
             f"onesided=True, but got {fft_size}")
    if not sided and n_fft != fft_size:
        fail("expected the frequency dimension (3rd to the last) of the input tensor to match n_fft when "
             f"onesided=False, but got {fft_size}")
    if not 0 < hop <= win:
        fail("expected 0 < hop_length <= win_length")
    if not 0 < win <= n_fft:
        fail("expected 0 < win_length <= n_fft")
    if window is not None and (window.dim() != 1 or window.shape[0] != win):
        fail("Invalid window shape. window has to be 1D and length of `win_length`")
    real_dtype = input.dtype.to_real()
    w = window if window is not None else ember.ones(win, dtype=real_dtype, device=input.device)
    if win != n_fft:
        left = (n_fft - win) // 2
        w = ember.constant_pad_nd(w, [left, n_fft - win - left])
    x = input.unsqueeze(0) if real_dim == 3 else input
    x = x.transpose(1, 2)  # (channel, n_frames, fft_size)
    mode = 1 if normalized else 2
    if return_complex:
        if sided:
            raise RuntimeError("Cannot have onesided output if window or input is complex")
        frames = fft_c2c(x, [2], mode, False)
    else:
        if window is not None and window.dtype.is_complex:
            raise RuntimeError("Complex windows are incompatible with return_complex=False")
        if not sided:
            x = x.narrow(-1, 0, n_fft // 2 + 1)
        frames = fft_c2r(x, [2], mode, n_fft)
    frames = frames * w.reshape(1, 1, n_fft)
    total = n_fft + hop * (n_frames - 1)
    # overlap-add: sample t * hop + k of the signal gathers frame t's point k
    index = (ember.arange(n_frames, device=input.device).unsqueeze(1) * hop
             + ember.arange(n_fft, device=input.device)).reshape(-1)
    channels = frames.shape[0]
    y = _overlap_add(frames.reshape(channels, -1), index, total)
    envelope = _overlap_add((w * w).reshape(1, n_fft).expand(n_frames, n_fft).reshape(1, -1), index, total)
    start = n_fft // 2 if center else 0
    end = start + length if length is not None else -(n_fft // 2) if center else total
    y = y[:, start:end]
    envelope = envelope[:, start:end]
    if bool((envelope.abs().min() < 1e-11).item()):
        raise RuntimeError(f"{repr_()} window overlap add min: 1\n[ CPUBoolType{{}} ]")
    y = y / envelope
    if real_dim == 3:
        y = y.squeeze(0)
    if end > total:
        _warn_once("istft_length", "The length of signal is shorter than the length parameter. Result is being padded "
                   "with zeros in the tail. Please check your center and hop_length settings.")
        y = ember.constant_pad_nd(y, [0, end - total])
    return y
