"""Averaging parameters across a group in one all-reduce."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

import ember
from ember import nn

from ... import collectives as C

__all__ = ["average_parameters", "average_parameters_or_parameter_groups",
           "get_params_to_average"]


def average_parameters(params: Iterator[Any], process_group: Any) -> None:
    """Replaces each of ``params`` by its mean over ``process_group`` (one flat all-reduce;
    nothing happens on a rank outside the group)."""
    pg = C._member(process_group)
    if pg is None:
        return
    tensors = list(params)
    with ember.no_grad():
        flat = ember.cat([p.detach().reshape(-1) for p in tensors])
        # divided first, as DDP's gradients: the sum cannot overflow
        flat.div_(pg.size())
        C.all_reduce(flat, group=process_group)
        offset = 0
        for p in tensors:
            p.detach().copy_(flat[offset:offset + p.numel()].view_as(p))
            offset += p.numel()


def get_params_to_average(params: Iterable[Any]) -> list[Any]:
    """The parameters of ``params`` (parameters, or optimizer parameter groups: dicts with a
    ``"params"`` list) that have a gradient; the others were not trained this step."""
    out = []
    for param in params:
        if isinstance(param, nn.Parameter):
            if param.grad is not None:
                out.append(param)
        elif isinstance(param, dict):
            out.extend(p for p in param["params"] if p.grad is not None)
        else:
            raise NotImplementedError(f"Parameter input of type {type(param)} is not supported")
    return out


def average_parameters_or_parameter_groups(params: Iterable[Any], process_group: Any) -> None:
    """``average_parameters`` on the parameters (or parameter groups' parameters) that have
    a gradient."""
    average_parameters(iter(get_params_to_average(params)), process_group)
