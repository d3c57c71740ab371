"""Docstrings of the torch.fft transforms (kept apart so _transforms.py reads as code)."""

from __future__ import annotations

from typing import Any

_NORM = """norm (str, optional): the normalization mode: ``"backward"`` (the default: no scaling
            forward, ``1/n`` on the inverse), ``"forward"`` (``1/n`` forward, none on the inverse) or
            ``"ortho"`` (``1/sqrt(n)`` both ways), ``n`` the number of points of the real-space signal."""

_ONE = """Args:
        input (Tensor): the input tensor ({kind}).
        n (int, optional): the signal length{n_note}: the input is zero-padded or trimmed to it
            along ``dim``. Default: {n_default}.
        dim (int, optional): the dimension to transform. Default: -1.
        {norm}

    Keyword args:
        out (Tensor, optional): the output tensor.

    Example::

        {example}
    """

_MANY = """Args:
        input (Tensor): the input tensor ({kind}).
        s (Tuple[int], optional): the signal size in each transformed dimension{s_note} (``-1``: the
            input's size): the input is zero-padded or trimmed to it. Default: the input's sizes{last}.
        dim (Tuple[int], optional): the dimensions to transform. Default: {dim_default}.
        {norm}

    Keyword args:
        out (Tensor, optional): the output tensor.

    Example::

        {example}
    """

_REAL = "real; integers and bool are promoted to the default float dtype"
_ANY = "real or complex; real and integer inputs are promoted to complex"
_HALF = "complex: the non-negative half of a Hermitian-symmetric spectrum"

# name -> (signature, summary, kind, n/s note, example)
_TABLE: dict[str, tuple[str, str, str, str, str]] = {
    "fft": ("fft(input, n=None, dim=-1, norm=None, *, out=None) -> Tensor",
            "The one dimensional discrete Fourier transform of ``input``.", _ANY, "",
            ">>> ember.fft.fft(ember.arange(4))\n        tensor([ 6.+0.j, -2.+2.j, -2.+0.j, -2.-2.j])"),
    "ifft": ("ifft(input, n=None, dim=-1, norm=None, *, out=None) -> Tensor",
             "The one dimensional inverse discrete Fourier transform of ``input``.", _ANY, "",
             ">>> ember.fft.ifft(ember.tensor([ 6.+0.j, -2.+2.j, -2.+0.j, -2.-2.j]))\n"
             "        tensor([0.+0.j, 1.+0.j, 2.+0.j, 3.+0.j])"),
    "rfft": ("rfft(input, n=None, dim=-1, norm=None, *, out=None) -> Tensor",
             "The one dimensional Fourier transform of real-valued ``input``: only the ``n // 2 + 1`` "
             "non-negative frequencies (the others are their conjugates).", _REAL, "",
             ">>> ember.fft.rfft(ember.arange(4))\n        tensor([ 6.+0.j, -2.+2.j, -2.+0.j])"),
    "irfft": ("irfft(input, n=None, dim=-1, norm=None, *, out=None) -> Tensor",
              "The inverse of :func:`rfft`: a real signal from the non-negative half of its spectrum.",
              _HALF, " of the real output (``n // 2 + 1`` input points are used)",
              ">>> ember.fft.irfft(ember.fft.rfft(ember.arange(5.)), 5)\n"
              "        tensor([0.0000, 1.0000, 2.0000, 3.0000, 4.0000])"),
    "hfft": ("hfft(input, n=None, dim=-1, norm=None, *, out=None) -> Tensor",
             "The Fourier transform of a Hermitian-symmetric signal given by its one-sided half: a real "
             "spectrum.", _HALF, " of the real output (``n // 2 + 1`` input points are used)",
             ">>> ember.fft.hfft(ember.fft.ihfft(ember.arange(5.)), 5)\n"
             "        tensor([0.0000, 1.0000, 2.0000, 3.0000, 4.0000])"),
    "ihfft": ("ihfft(input, n=None, dim=-1, norm=None, *, out=None) -> Tensor",
              "The inverse of :func:`hfft`: the one-sided inverse Fourier transform of a real signal.",
              _REAL, "",
              ">>> ember.fft.ihfft(ember.arange(4))\n        tensor([ 1.5000-0.0000j, -0.5000-0.5000j, "
              "-0.5000-0.0000j])"),
}
_N_D: dict[str, tuple[str, str, str, str]] = {
    "fftn": ("fft", "N dimensional discrete Fourier transform", _ANY, ""),
    "ifftn": ("ifft", "N dimensional inverse discrete Fourier transform", _ANY, ""),
    "rfftn": ("rfft", "N dimensional Fourier transform of real ``input`` (the last dimension keeps its "
              "``s[-1] // 2 + 1`` non-negative frequencies)", _REAL, ""),
    "irfftn": ("irfft", "inverse of :func:`rfftn`", _HALF, " of the real output"),
    "hfftn": ("hfft", "N dimensional Fourier transform of a Hermitian-symmetric signal given by its "
              "one-sided half in the last dimension", _HALF, " of the real output"),
    "ihfftn": ("ihfft", "inverse of :func:`hfftn`", _REAL, ""),
}
_EXAMPLE_ND = (">>> x = ember.ones(2, 3)\n        >>> ember.fft.{name}(x).shape\n        {shape}")
_SHAPES = {"fft": "torch.Size([2, 3])", "ifft": "torch.Size([2, 3])", "rfft": "torch.Size([2, 2])",
           "irfft": "torch.Size([2, 4])", "hfft": "torch.Size([2, 4])", "ihfft": "torch.Size([2, 2])"}


def _one_doc(name: str) -> str:
    sig, summary, kind, n_note, example = _TABLE[name]
    n_default = "the input's size along ``dim``" if not n_note else "``2 * (input.size(dim) - 1)``"
    return f"{sig}\n\n    {summary}\n\n    " + _ONE.format(kind=kind, n_note=n_note, n_default=n_default,
                                                         norm=_NORM, example=example)


def _many_doc(name: str, base: str, summary: str, kind: str, s_note: str, two: bool) -> str:
    dims = "(-2, -1)" if two else "None"
    sig = f"{name}(input, s=None, dim={dims}, norm=None, *, out=None) -> Tensor"
    head = summary.replace("N dimensional", "2 dimensional").replace("fftn`", "fft2`") if two else summary
    last = " (the last: ``2 * (size - 1)``)" if s_note else ""
    return f"{sig}\n\n    The {head}.\n\n    " + _MANY.format(
        kind=kind, s_note=s_note, last=last,
        dim_default="the last two dimensions" if two else "all of them (or the last ``len(s)`` when ``s`` is given)",
        norm=_NORM, example=_EXAMPLE_ND.format(name=name, shape=_SHAPES[base]))


def attach(namespace: dict[str, Any]) -> None:
    """Sets the docstrings of the transforms in ``namespace``."""
    for name in _TABLE:
        namespace[name].__doc__ = _one_doc(name)
    for name, (base, summary, kind, s_note) in _N_D.items():
        namespace[name].__doc__ = _many_doc(name, base, summary, kind, s_note, two=False)
        two = name[:-1] + "2"
        namespace[two].__doc__ = _many_doc(two, base, summary, kind, s_note, two=True)
