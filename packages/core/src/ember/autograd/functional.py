"""Higher-level derivatives of functions: jacobian, hessian, vjp, jvp, hvp, vhp.

All are built from reverse-mode ``autograd.grad`` (jvp uses the double-vjp trick).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ember._lib import _C

_TENSOR = _C.TensorBase


def _tuple(x: Any) -> tuple[bool, tuple[Any, ...]]:
    if isinstance(x, tuple):
        return True, x
    if isinstance(x, list):
        return True, tuple(x)
    return False, (x,)


def _check(xs: tuple[Any, ...], what: str, fn: str) -> None:
    for x in xs:
        if not isinstance(x, _TENSOR):
            raise TypeError(f"The {what} given to {fn} must be either a Tensor or a tuple of Tensors but the "
                            f"value at index {xs.index(x)} has type {type(x)}.")


def _grad_preprocess(inputs: tuple[Any, ...], create_graph: bool) -> tuple[Any, ...]:
    # Fresh leaves (views that share memory) so gradients are with respect to exactly these.
    if create_graph:
        return tuple(x if x.requires_grad else x.view_as(x).requires_grad_(True) for x in inputs)
    return tuple(x.detach().requires_grad_(True) for x in inputs)


def _postprocess(out: Any, create_graph: bool) -> Any:
    if isinstance(out, tuple):
        return tuple(_postprocess(o, create_graph) for o in out)
    if isinstance(out, _TENSOR) and not create_graph:
        return out.detach()
    return out


def _autograd_grad(outputs: tuple[Any, ...], inputs: tuple[Any, ...], grad_outputs: tuple[Any, ...] | None,
                   create_graph: bool, retain_graph: bool | None = None) -> tuple[Any, ...]:
    import ember

    pairs = [(o, g) for o, g in zip(outputs, grad_outputs or (None,) * len(outputs), strict=False)
             if o is not None and o.requires_grad]
    if not pairs:
        return (None,) * len(inputs)
    return ember.autograd.grad([p[0] for p in pairs], inputs, [p[1] for p in pairs], allow_unused=True,
                               create_graph=create_graph, retain_graph=retain_graph)


def _fill(grads: tuple[Any, ...], refs: tuple[Any, ...], strict: bool, what: str) -> tuple[Any, ...]:
    import ember

    out = []
    for i, (g, r) in enumerate(zip(grads, refs, strict=False)):
        if g is None:
            if strict:
                raise RuntimeError(f"The output of the user-provided function is independent of input {i}. This "
                                   f"is not allowed in strict mode{what}.")
            g = ember.zeros_like(r)
        out.append(g)
    return tuple(out)


def vjp(func: Callable[..., Any], inputs: Any, v: Any = None, create_graph: bool = False,
        strict: bool = False) -> tuple[Any, Any]:
    """(func(inputs), v^T J)."""
    import ember

    with ember.enable_grad():
        is_t, ins = _tuple(inputs)
        _check(ins, "inputs", "vjp")
        ins = _grad_preprocess(ins, create_graph)
        out_t, outs = _tuple(func(*ins))
        _check(outs, "outputs of the user-provided function", "vjp")
        if v is None:
            if len(outs) != 1 or outs[0].numel() != 1:
                raise RuntimeError("The vector v can only be None if the user-provided function returns a single "
                                   "Tensor with a single element.")
            vs = (ember.ones_like(outs[0]),)
        else:
            vs = _tuple(v)[1]
        grads = _fill(_autograd_grad(outs, ins, vs, create_graph), ins, strict, "")
    outs_r = _postprocess(outs, create_graph)
    grads_r = _postprocess(grads, create_graph)
    return (outs_r if out_t else outs_r[0]), (grads_r if is_t else grads_r[0])


def jvp(func: Callable[..., Any], inputs: Any, v: Any = None, create_graph: bool = False,
        strict: bool = False) -> tuple[Any, Any]:
    """(func(inputs), J v), by the double-backward trick."""
    import ember

    with ember.enable_grad():
        is_t, ins = _tuple(inputs)
        _check(ins, "inputs", "jvp")
        ins = _grad_preprocess(ins, create_graph)
        if v is None:
            if len(ins) != 1 or ins[0].numel() != 1:
                raise RuntimeError("The vector v can only be None if the input to the user-provided function is a "
                                   "single Tensor with a single element.")
            vs = (ember.ones_like(ins[0]),)
        else:
            vs = _tuple(v)[1]
        out_t, outs = _tuple(func(*ins))
        _check(outs, "outputs of the user-provided function", "jvp")
        dummies = tuple(ember.zeros_like(o).requires_grad_(True) for o in outs)
        g = _autograd_grad(outs, ins, dummies, create_graph=True)
        pairs = [(gi, vi) for gi, vi in zip(g, vs, strict=False) if gi is not None]
        if pairs:
            res = ember.autograd.grad([p[0] for p in pairs], dummies, [p[1] for p in pairs],
                                      create_graph=create_graph, allow_unused=True)
        else:
            res = (None,) * len(dummies)
        res = _fill(res, outs, strict, "")
    outs_r = _postprocess(outs, create_graph)
    res_r = _postprocess(res, create_graph)
    return (outs_r if out_t else outs_r[0]), (res_r if out_t else res_r[0])


def jacobian(func: Callable[..., Any], inputs: Any, create_graph: bool = False, strict: bool = False,
             vectorize: bool = False, strategy: str = "reverse-mode") -> Any:
    """The Jacobian of func at inputs (one reverse pass per output element)."""
    import ember

    if strategy not in ("reverse-mode", "forward-mode"):
        raise ValueError('Expected strategy to be either "forward-mode" or "reverse-mode".')
    with ember.enable_grad():
        is_t, ins = _tuple(inputs)
        _check(ins, "inputs", "jacobian")
        ins = _grad_preprocess(ins, create_graph)
        out_t, outs = _tuple(func(*ins))
        _check(outs, "outputs of the user-provided function", "jacobian")
        jac: list[tuple[Any, ...]] = []
        for o in outs:
            rows: list[list[Any]] = [[] for _ in ins]
            flat = o.reshape(-1)
            for k in range(flat.numel()):
                gs = _autograd_grad((flat[k],), ins, None, create_graph, retain_graph=True)
                for i, (g, x) in enumerate(zip(gs, ins, strict=False)):
                    if g is None:
                        if strict:
                            raise RuntimeError(f"Output {outs.index(o)} of the user-provided function is "
                                               f"independent of input {i}. This is not allowed in strict mode.")
                        g = ember.zeros_like(x)
                    rows[i].append(g)
            per_input = []
            for i, x in enumerate(ins):
                stacked = ember.stack(rows[i]) if rows[i] else ember.zeros((0, *x.shape), dtype=x.dtype)
                per_input.append(stacked.view(*o.shape, *x.shape))
            jac.append(tuple(per_input))
    jac_r = _postprocess(tuple(jac), create_graph)
    if out_t:
        return jac_r if is_t else tuple(j[0] for j in jac_r)
    return jac_r[0] if is_t else jac_r[0][0]


def hessian(func: Callable[..., Any], inputs: Any, create_graph: bool = False, strict: bool = False,
            vectorize: bool = False, outer_jacobian_strategy: str = "reverse-mode") -> Any:
    """The Hessian of a scalar function (the Jacobian of its gradient)."""
    is_t, ins = _tuple(inputs)

    def grad_fn(*xs: Any) -> Any:
        out = func(*xs)
        if not isinstance(out, _TENSOR) or out.numel() != 1:
            raise RuntimeError("The function given to hessian should return a single Tensor containing a "
                               "single element")
        import ember

        g = ember.autograd.grad(out, xs, create_graph=True, allow_unused=True)
        g = tuple(gi if gi is not None else ember.zeros_like(x) for gi, x in zip(g, xs, strict=False))
        return g if is_t else g[0]

    return jacobian(grad_fn, ins if is_t else ins[0], create_graph=create_graph, strict=strict)


def vhp(func: Callable[..., Any], inputs: Any, v: Any = None, create_graph: bool = False,
        strict: bool = False) -> tuple[Any, Any]:
    """(func(inputs), v^T H)."""
    import ember

    with ember.enable_grad():
        is_t, ins = _tuple(inputs)
        ins = _grad_preprocess(ins, create_graph)
        out = func(*ins)
        if not isinstance(out, _TENSOR) or out.numel() != 1:
            raise RuntimeError("The function given to hvp should return a single Tensor containing a single "
                               "element")
        vs = _tuple(v)[1] if v is not None else (ember.ones_like(ins[0]),)
        g = ember.autograd.grad(out, ins, create_graph=True, allow_unused=True)
        pairs = [(gi, vi) for gi, vi in zip(g, vs, strict=False) if gi is not None]
        res = ember.autograd.grad([p[0] for p in pairs], ins, [p[1] for p in pairs], create_graph=create_graph,
                                  allow_unused=True) if pairs else (None,) * len(ins)
        res = _fill(res, ins, strict, "")
    res_r = _postprocess(res, create_graph)
    return _postprocess(out, create_graph), (res_r if is_t else res_r[0])


def hvp(func: Callable[..., Any], inputs: Any, v: Any = None, create_graph: bool = False,
        strict: bool = False) -> tuple[Any, Any]:
    """(func(inputs), H v): equal to vhp for the symmetric Hessians of twice-differentiable functions."""
    return vhp(func, inputs, v, create_graph, strict)
