"""Tensor printing: ``repr(tensor)`` / ``str(tensor)`` and the print options.

The output reproduces PyTorch's tensor repr character for character.  The
rules were derived by observing PyTorch's behaviour:

* Element formatting is decided once per tensor, over the *displayed* values
  (the edge items when the tensor is summarized).  Floats use fixed notation
  with ``precision`` decimals, ``"1."``-style integral notation when every
  nonzero finite value is integral, or scientific notation when (over nonzero
  finite magnitudes) max/min > 1000, max > 1e8 or (non-integral only)
  min < 1e-4.  All elements are right-aligned to a common width, which is
  measured over the nonzero finite values only (so ``nan``/``-0.`` may stick
  out).
* Tensors with more than ``threshold`` elements show ``edgeitems`` items at
  each end of every dimension with ``...`` in between.
* 1-D rows wrap so that lines stay within ``linewidth``; trailing suffixes
  (``device=``, ``size=``, ``dtype=``, ``grad_fn=``/``requires_grad=``) wrap
  onto their own indented line when they would overflow it.

Only a tiny tensor API is used (shape, dim, numel, dtype, tolist, basic
indexing, device, requires_grad, grad_fn) so that the same code can print
both ember tensors and, for testing, PyTorch tensors.
"""

from __future__ import annotations

import contextlib
import math
import sys
from collections.abc import Callable, Iterator
from typing import Any

__all__ = ["tensor_repr", "set_printoptions", "get_printoptions", "printoptions"]

_PROFILES: dict[str, dict[str, Any]] = {
    "default": {"precision": 4, "threshold": 1000, "edgeitems": 3, "linewidth": 80},
    "short": {"precision": 2, "threshold": 1000, "edgeitems": 2, "linewidth": 80},
    "full": {"precision": 4, "threshold": math.inf, "edgeitems": 3, "linewidth": 80},
}

# Module-level state, like PyTorch: print options are process-global.
_OPTS: dict[str, Any] = dict(_PROFILES["default"], sci_mode=None)

_PREFIX = "tensor("


def set_printoptions(
    precision: int | None = None,
    threshold: float | None = None,
    edgeitems: int | None = None,
    linewidth: int | None = None,
    profile: str | None = None,
    sci_mode: bool | None = None,
) -> None:
    """Set options for printing tensors (same semantics as ``torch.set_printoptions``).

    ``profile`` (``'default'``, ``'short'`` or ``'full'``) first resets the four
    numeric options; explicitly given options then override it.  An unknown
    profile name is ignored.  ``sci_mode`` is always (re)set: ``None`` means
    "choose automatically".
    """
    if profile in _PROFILES:
        _OPTS.update(_PROFILES[profile])
    for key, value in (
        ("precision", precision),
        ("threshold", threshold),
        ("edgeitems", edgeitems),
        ("linewidth", linewidth),
    ):
        if value is not None:
            _OPTS[key] = value
    _OPTS["sci_mode"] = sci_mode


def get_printoptions() -> dict[str, Any]:
    """Return a copy of the current print options."""
    return dict(_OPTS)


@contextlib.contextmanager
def printoptions(**kwargs: Any) -> Iterator[None]:
    """Temporarily change print options; restores the previous ones on exit.

    Unlike a bare ``set_printoptions`` call, ``sci_mode`` keeps its current
    value unless it is passed explicitly.
    """
    saved = get_printoptions()
    kwargs.setdefault("sci_mode", saved["sci_mode"])
    set_printoptions(**kwargs)
    try:
        yield
    finally:
        _OPTS.clear()
        _OPTS.update(saved)


# ---------------------------------------------------------------------------
# Element formatters.  Each returns (format_one, width): format_one maps a
# Python scalar to its (padded) text; width is the column width used to decide
# how many elements fit on a line.


def _float_parts(values: list[float]) -> tuple[Callable[[float], str], int]:
    """Unpadded float format shared by all elements, and its column width."""
    precision = _OPTS["precision"]
    nonzero = [v for v in values if v != 0 and math.isfinite(v)]
    if not nonzero:
        # Only zeros/nan/inf: integral style, minimal width, sci_mode is moot.
        return _int_style, 1
    mags = [abs(v) for v in nonzero]
    vmax, vmin = max(mags), min(mags)
    int_mode = all(v.is_integer() for v in nonzero)
    sci = vmax / vmin > 1000.0 or vmax > 1.0e8 or (not int_mode and vmin < 1.0e-4)
    if _OPTS["sci_mode"] is not None:
        sci = _OPTS["sci_mode"]
    fmt: Callable[[float], str] = _int_style
    if sci or not int_mode:
        # e.g. "{:.4e}".format: a ready-made callable for the common format.
        fmt = "{{:.{}{}}}".format(precision, "e" if sci else "f").format
    # Width comes from nonzero finite values only: nan, inf and -0. may stick out.
    return fmt, max(len(fmt(v)) for v in nonzero)


def _int_style(v: float) -> str:
    # "3." for finite integral floats; nan/inf keep their bare spelling.
    return f"{v:.0f}." if math.isfinite(v) else f"{v:.0f}"


def _float_formatter(values: list[float]) -> tuple[Callable[[float], str], int]:
    fmt, width = _float_parts(values)
    return (lambda v: fmt(v).rjust(width)), width


def _complex_formatter(values: list[complex]) -> tuple[Callable[[complex], str], int]:
    # Real and imaginary parts get independent float formats; only the real
    # part is padded, the imaginary part always carries an explicit sign.
    real_fmt, real_w = _float_parts([v.real for v in values])
    imag_fmt, imag_w = _float_parts([v.imag for v in values])

    def fmt(v: complex) -> str:
        imag = imag_fmt(v.imag)
        sign = "" if imag.startswith("-") else "+"
        return real_fmt(v.real).rjust(real_w) + sign + imag + "j"

    # Column width: both parts plus the "j"; the sign counts as part of imag.
    return fmt, real_w + imag_w + 1


def _plain_formatter(values: list[Any]) -> tuple[Callable[[Any], str], int]:
    # ints and bools: str() of the value, padded over all values.
    width = max((len(str(v)) for v in values), default=1)
    return (lambda v: str(v).rjust(width)), width


# ---------------------------------------------------------------------------
# Layout.


def _gather(t: Any, edge: int, summarize: bool) -> Any:
    """Nested lists of the values to display; ``...`` marks elided runs.

    When summarizing, only edge slices are converted with ``tolist()`` so
    huge tensors print quickly.
    """
    if not summarize:
        return t.tolist()
    n = t.shape[0]
    if t.dim() == 1:
        if n > 2 * edge:
            # t[n - edge:] rather than t[-edge:], which is everything for edge=0.
            return t[:edge].tolist() + [...] + t[n - edge :].tolist()
        return t.tolist()
    rows = [*range(edge), None, *range(n - edge, n)] if n > 2 * edge else range(n)
    return [... if i is None else _gather(t[i], edge, True) for i in rows]


def _leaves(data: Any, dim: int, out: list[Any]) -> list[Any]:
    if dim == 0:
        out.append(data)
    else:
        for item in data:
            if item is not ...:
                _leaves(item, dim - 1, out)
    return out


def _layout(data: list[Any], dim: int, indent: int, fmt: Callable[[Any], str], width: int) -> str:
    """Bracketed text of an n-d nested list; ``indent`` is the column of its '['."""
    if dim == 1:
        if len(data) == 1 and data[0] is ...:
            return "[...]"  # edgeitems=0: nothing but the ellipsis
        items = [" ..." if v is ... else fmt(v) for v in data]
        per_line = max(1, (_OPTS["linewidth"] - indent) // (width + 2))
        lines = [", ".join(items[i : i + per_line]) for i in range(0, len(items), per_line)]
        return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"
    # Slices of an n-d tensor are separated by n-1 newlines.
    sep = "," + "\n" * (dim - 1) + " " * (indent + 1)
    parts = ["..." if s is ... else _layout(s, dim - 1, indent + 1, fmt, width) for s in data]
    return "[" + sep.join(parts) + "]"


def _format_contents(t: Any, indent: int) -> str:
    dim = t.dim()
    summarize = t.numel() > _OPTS["threshold"]
    data = t.tolist() if dim == 0 else _gather(t, _OPTS["edgeitems"], summarize)
    values = _leaves(data, dim, [])
    dtype = t.dtype
    fmt: Callable[[Any], str]
    if getattr(dtype, "is_complex", False):
        fmt, width = _complex_formatter(values)
    elif dtype.is_floating_point:
        fmt, width = _float_formatter(values)
    else:
        fmt, width = _plain_formatter(values)
    if dim == 0:
        return fmt(data)
    return _layout(data, dim, indent, fmt, width)


def _is_implicit_dtype(dtype: Any, lib: Any) -> bool:
    """Whether ``dtype`` is the one inferred from Python data (no suffix needed)."""
    default = lib.get_default_dtype()
    complex_name = "complex128" if default == lib.float64 else "complex64"
    implicit = (default, lib.int64, lib.bool, getattr(lib, complex_name, None))
    return any(d is not None and dtype == d for d in implicit)


def _grad_suffix(t: Any) -> str | None:
    grad_fn = t.grad_fn
    if grad_fn is not None:
        # torch nodes expose name(); fall back to the class name for other node types.
        # PyTorch prints the node's class name (CopySlices, not torch::autograd::CopySlices).
        name = type(grad_fn).__name__
        return f"grad_fn=<{name}>"
    if t.requires_grad:
        return "requires_grad=True"
    return None


def tensor_repr(t: Any, *, tensor_contents: str | None = None) -> str:
    """Return PyTorch-style ``repr``/``str`` text for tensor ``t``.

    ``tensor_contents`` replaces the formatted data (between the parentheses,
    before the suffixes) when given, e.g. for tensors whose data can't be read.
    """
    import ember as lib  # lazy: this module is imported while ember initialises

    # A subclass prints under its own name, as PyTorch's do (MyTensor([1., 2.])); a Parameter or
    # Buffer is a plain tensor here (PyTorch's Buffer is one).
    param_mod = sys.modules.get("ember.nn.parameter")
    plain = type(t) is lib.Tensor or (param_mod is not None and type(t) in (param_mod.Parameter, param_mod.Buffer))
    prefix = _PREFIX if plain else f"{type(t).__name__}("
    suffixes: list[str] = []
    if t.device.type != "cpu":
        suffixes.append(f"device='{t.device}'")
    shape = tuple(int(s) for s in t.shape)
    if t.device.type == "meta":
        # no values to show: the size always, the dtype where it is not the default
        suffixes.append(f"size={shape}")
        if t.dtype != lib.get_default_dtype():
            suffixes.append(f"dtype={t.dtype}")
        body = "..."
    elif t.numel() == 0:
        # NumPy-like: the shape is shown unless it is (0,); no values exist to
        # infer the dtype from, so any non-default dtype (even int64) is shown.
        if len(shape) != 1:
            suffixes.append(f"size={shape}")
        if t.dtype != lib.get_default_dtype():
            suffixes.append(f"dtype={t.dtype}")
        body = "[]"
    else:
        if not _OPTS["edgeitems"]:
            # With no edge items a summary shows no values, so the size is all there is.
            suffixes.append(f"size={shape}")
        if not _is_implicit_dtype(t.dtype, lib):
            suffixes.append(f"dtype={t.dtype}")
        # a device tensor's values are formatted from a host copy (the formatting runs ops on them)
        host = t if t.device.type == "cpu" else t.detach().cpu()
        body = _format_contents(host, len(prefix)) if tensor_contents is None else ""
    if tensor_contents is not None:
        body = tensor_contents
    grad = _grad_suffix(t)
    if grad is not None:
        suffixes.append(grad)
    text = _add_suffixes(prefix + body, suffixes, len(prefix))
    if not plain and param_mod is not None and isinstance(t, param_mod.Parameter):
        text = f"Parameter({text})"  # a subclass made a parameter (PyTorch's words)
    return text


def _add_suffixes(text: str, suffixes: list[str], indent: int) -> str:
    # Each suffix stays on the current line if ", " + suffix fits in linewidth,
    # else starts a new line under the data.  PyTorch counts the data's last
    # line as 2 characters longer than it is (lines started by a wrapped
    # suffix are measured exactly); we mirror that to match its line breaks.
    linewidth = _OPTS["linewidth"]
    line_len = len(text) - text.rfind("\n") - 1 + 2
    for suffix in suffixes:
        if line_len + 2 + len(suffix) > linewidth:
            text += ",\n" + " " * indent + suffix
            line_len = indent + len(suffix)
        else:
            text += ", " + suffix
            line_len += 2 + len(suffix)
    return text + ")"
