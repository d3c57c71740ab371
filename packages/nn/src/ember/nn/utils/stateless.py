"""``functional_call``: run a module with some parameters / buffers swapped for given tensors
(the module is restored afterwards), as ``torch.nn.utils.stateless`` / ``torch.func``."""

from __future__ import annotations

import contextlib
import warnings
from collections.abc import Iterator
from typing import Any

from ember import Tensor
from ember.nn.modules.module import Module

__all__ = ["functional_call"]

_MISSING = object()


def _tied_names(module: Module) -> dict[str, list[str]]:
    """Every name of a tensor reachable under more than one name, grouped by its first name."""
    first: dict[int, str] = {}
    groups: dict[str, list[str]] = {}
    members = [*module.named_parameters(remove_duplicate=False), *module.named_buffers(remove_duplicate=False)]
    for name, t in members:
        if id(t) in first:
            groups.setdefault(first[id(t)], [first[id(t)]]).append(name)
        else:
            first[id(t)] = name
    return groups


def _untie(module: Module, values: dict[str, Any]) -> dict[str, Any]:
    """Give every tied name the value given for any one of them (torch's tie_weights=True)."""
    out = dict(values)
    for names in _tied_names(module).values():
        given = [n for n in names if n in values]
        if not given:
            continue
        if any(values[n] is not values[given[0]] for n in given[1:]):
            raise ValueError(f"functional_call got multiple values for keys {sorted(given)}, which are tied. "
                             "Consider using tie_weights=False")
        for n in names:
            out.setdefault(n, values[given[0]])
    return out


def _swap(module: Module, name: str, value: Any) -> Any:
    """Put ``value`` at the dotted ``name``; return what was there (or _MISSING)."""
    *path, attr = name.split(".")
    for p in path:
        module = getattr(module, p)
    if attr in module._parameters:
        orig = module._parameters[attr]
        module._parameters[attr] = value  # bypasses the Parameter type check, as torch does
    elif attr in module._buffers:
        orig = module._buffers[attr]
        module._buffers[attr] = value
    else:
        orig = getattr(module, attr, _MISSING)
        if orig is not _MISSING and not isinstance(orig, Tensor):
            raise TypeError(f"attribute `{attr}`: {orig} is not an instance of torch.Tensor")
        if value is _MISSING:
            delattr(module, attr)
        else:
            setattr(module, attr, value)
    return orig


@contextlib.contextmanager
def _reparametrize_module(module: Module, values: dict[str, Any], *, tie_weights: bool = False,
                          strict: bool = False) -> Iterator[None]:
    if tie_weights:
        values = _untie(module, values)
    if strict:
        keys = {n for n, _ in module.named_parameters(remove_duplicate=False)}
        keys |= {n for n, _ in module.named_buffers(remove_duplicate=False)}
        missing, unexpected = sorted(keys - set(values)), sorted(set(values) - keys)
        if missing or unexpected:
            msg = f"Error(s) in reparametrizing for {module._get_name()}:"
            if unexpected:
                msg += "\n\tUnexpected key(s): " + ", ".join(repr(k) for k in unexpected) + "."
            if missing:
                msg += "\n\tMissing key(s): " + ", ".join(repr(k) for k in missing) + "."
            raise RuntimeError(msg)
    originals: list[tuple[str, Any]] = []
    try:
        for name, value in values.items():
            originals.append((name, _swap(module, name, value)))
        yield
    finally:
        for name, orig in reversed(originals):
            _swap(module, name, orig)


def _functional_call(module: Module, parameters_and_buffers: Any, args: Any = None, kwargs: Any = None, *,
                     tie_weights: bool = True, strict: bool = False) -> Any:
    if isinstance(parameters_and_buffers, (list, tuple)):  # torch.func accepts a sequence of dicts
        merged: dict[str, Any] = {}
        for d in parameters_and_buffers:
            dup = set(merged) & set(d)
            if dup:
                raise ValueError(f"{sorted(dup)} appeared in multiple dictionaries; behavior of functional "
                                 "call is ambiguous")
            merged.update(d)
        parameters_and_buffers = merged
    if kwargs is None:
        kwargs = {}
    if args is None:
        args = ()
    elif not isinstance(args, tuple):
        args = (args,)
    with _reparametrize_module(module, dict(parameters_and_buffers), tie_weights=tie_weights, strict=strict):
        return module(*args, **kwargs)


def functional_call(module: Module, parameters_and_buffers: dict[str, Any], args: Any = None,
                    kwargs: dict[str, Any] | None = None, *, tie_weights: bool = True,
                    strict: bool = False) -> Any:
    """Call ``module(*args, **kwargs)`` with the named parameters / buffers replaced."""
    warnings.warn("This API is deprecated as of PyTorch 2.0 and will be removed in a future version of PyTorch. "
                  "Please use torch.func.functional_call instead which is a drop-in replacement.",
                  FutureWarning, stacklevel=2)
    return _functional_call(module, parameters_and_buffers, args, kwargs, tie_weights=tie_weights, strict=strict)
