"""Numerical checks of analytical gradients: ``gradcheck`` and ``gradgradcheck``.

Finite differences (central, step ``eps``) column by column against the vector-
Jacobian products the engine computes, as PyTorch's slow-mode gradcheck does.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ember._lib import _C

_TENSOR = _C.TensorBase


class GradcheckError(RuntimeError):
    """Raised by gradcheck / gradgradcheck when a check fails (and raise_exception=True)."""


def _as_tuple(x: Any) -> tuple[Any, ...]:
    return tuple(x) if isinstance(x, (tuple, list)) else (x,)


def _diff_inputs(inputs: tuple[Any, ...]) -> list[Any]:
    return [t for t in inputs if isinstance(t, _TENSOR) and t.requires_grad]


def _outputs(fn: Callable[..., Any], inputs: tuple[Any, ...]) -> tuple[Any, ...]:
    return tuple(o for o in _as_tuple(fn(*inputs)) if isinstance(o, _TENSOR) and (o.is_floating_point()
                                                                                  or o.is_complex()))


# Complex tensors count as their real and imaginary parts (PyTorch's convention): a complex input's
# coordinates are (re, im) of each element, a complex output's its view_as_real values, and the
# gradient of a real output coordinate with respect to z is d/d(re z) + i d/d(im z).

def _real_flat(o: Any) -> Any:
    import ember

    o = o.detach()
    if o.is_complex():
        return ember.view_as_real(o.resolve_conj()).reshape(-1).clone()
    return o.reshape(-1).clone()


def _width(t: Any) -> int:
    return 2 if t.is_complex() else 1


def _real_dtype(t: Any) -> Any:
    return t.dtype.to_real() if t.is_complex() else t.dtype


def _numerical_jacobian(fn: Callable[..., Any], inputs: tuple[Any, ...], eps: float) -> list[list[Any]]:
    """jac[i][j]: d output j / d input i, shaped (input coordinates, output coordinates)."""
    import ember

    diff = _diff_inputs(inputs)
    # fn runs with grad mode as the caller has it (gradgradcheck's fn calls autograd.grad);
    # the perturbations write through detached aliases, which autograd does not see.
    outs = _outputs(fn, inputs)
    jac = [[ember.zeros(x.numel() * _width(x), o.numel() * _width(o), dtype=_real_dtype(o)) for o in outs]
           for x in diff]
    for i, x in enumerate(diff):
        alias = x.detach()
        steps = [eps, eps * 1j] if x.is_complex() else [eps]
        for k in range(x.numel()):
            idx = _unravel(k, tuple(x.shape))
            orig = alias[idx].item()
            for p, step in enumerate(steps):
                alias[idx] = orig - step
                lo = [_real_flat(o) for o in _outputs(fn, inputs)]
                alias[idx] = orig + step
                hi = [_real_flat(o) for o in _outputs(fn, inputs)]
                alias[idx] = orig
                for j in range(len(outs)):
                    jac[i][j][k * len(steps) + p] = (hi[j] - lo[j]) / (2 * eps)
    return jac


def _unravel(k: int, shape: tuple[int, ...]) -> tuple[int, ...]:
    idx = []
    for s in reversed(shape):
        idx.append(k % s)
        k //= s
    return tuple(reversed(idx))


def _analytical_jacobian(fn: Callable[..., Any], inputs: tuple[Any, ...], nondet_tol: float
                         ) -> tuple[list[list[Any]], bool]:
    import ember

    diff = _diff_inputs(inputs)
    outs = _outputs(fn, inputs)
    jac = [[ember.zeros(x.numel() * _width(x), o.numel() * _width(o), dtype=_real_dtype(o)) for o in outs]
           for x in diff]
    reentrant = True
    for j, o in enumerate(outs):
        if not o.requires_grad:
            continue
        for m in range(o.numel() * _width(o)):
            go = ember.zeros_like(o).reshape(-1)
            go[m // _width(o)] = 1j if o.is_complex() and m % 2 else 1.0
            go = go.view(o.shape)
            gs = ember.autograd.grad(o, diff, go, retain_graph=True, allow_unused=True)
            gs2 = ember.autograd.grad(o, diff, go, retain_graph=True, allow_unused=True)
            for i, (g, g2) in enumerate(zip(gs, gs2, strict=False)):
                if g is None:
                    continue
                if g2 is None or (g - g2).abs().max().item() > nondet_tol:
                    reentrant = False
                jac[i][j][:, m] = _real_flat(g).to(jac[i][j].dtype)
    return jac, reentrant


def _forward_jacobian(fn: Callable[..., Any], inputs: tuple[Any, ...]) -> list[list[Any]]:
    """jac[i][j] as _numerical_jacobian lays it out, column by column from forward-mode AD: one
    dual evaluation of ``fn`` per input coordinate (real and imaginary parts of a complex one)."""
    import ember
    from ember.autograd import forward_ad as fwd

    diff = _diff_inputs(inputs)
    outs = _outputs(fn, inputs)
    jac = [[ember.zeros(x.numel() * _width(x), o.numel() * _width(o), dtype=_real_dtype(o)) for o in outs]
           for x in diff]
    for i, x in enumerate(diff):
        units = [1.0, 1j] if x.is_complex() else [1.0]
        for k in range(x.numel()):
            for p, unit in enumerate(units):
                tangent = ember.zeros_like(x.detach()).reshape(-1)
                tangent[k] = unit
                with fwd.dual_level():
                    dual = fwd.make_dual(x.detach(), tangent.view(x.shape))
                    args = tuple(dual if a is x else a for a in inputs)
                    for j, o in enumerate(_outputs(fn, args)):
                        t = fwd.unpack_dual(o).tangent
                        if t is not None:
                            jac[i][j][k * len(units) + p] = _real_flat(t).to(jac[i][j].dtype)
    return jac


def _compare(numerical: list[list[Any]], analytical: list[list[Any]], atol: float, rtol: float,
             mode: str) -> str | None:
    """The first mismatch's message (PyTorch's wording), or None."""
    for i, (num_row, ana_row) in enumerate(zip(numerical, analytical, strict=False)):
        for j, (n, a) in enumerate(zip(num_row, ana_row, strict=False)):
            if n.numel() == 0:
                continue
            if not ((a - n).abs() <= atol + rtol * n.abs()).all().item():
                return (f"Jacobian {mode}mismatch for output {j} with respect to input {i},\n"
                        f"numerical:{n}\nanalytical:{a}\n")
    return None


def gradcheck(func: Callable[..., Any], inputs: Any, *, eps: float = 1e-6, atol: float = 1e-5,
              rtol: float = 1e-3, raise_exception: bool = True, nondet_tol: float = 0.0,
              check_undefined_grad: bool = True, check_grad_dtypes: bool = False,
              check_batched_grad: bool = False, check_batched_forward_grad: bool = False,
              check_forward_ad: bool = False, check_backward_ad: bool = True, fast_mode: bool = False,
              masked: bool | None = None) -> bool:
    """Compare analytical gradients of ``func`` at ``inputs`` with finite differences.

    The backward-mode Jacobian (vector-Jacobian products) is checked unless
    ``check_backward_ad=False``; with ``check_forward_ad=True`` the Jacobian computed by
    forward-mode AD (``ember.autograd.forward_ad``, custom Functions' ``jvp``) is checked too.
    """
    if not (check_forward_ad or check_backward_ad):
        raise AssertionError("Expected at least one of check_forward_ad or check_backward_ad to be True")
    if check_batched_grad and not check_backward_ad:
        raise AssertionError("Setting check_batched_grad=True requires check_backward_ad to be True")
    if check_batched_forward_grad and not check_forward_ad:
        raise AssertionError("Setting check_batched_forward_grad=True requires check_forward_ad to be True")
    inputs = _as_tuple(inputs)
    diff = _diff_inputs(inputs)
    if not diff:
        raise ValueError("gradcheck expects at least one input tensor to require gradient, but none of the "
                         "them have requires_grad=True.")
    for t in diff:
        if t.dtype not in (_C.float64, _C.complex128):
            import warnings

            warnings.warn(f"Input #{inputs.index(t)} requires gradient and is not a double precision floating "
                          "point. This check will likely fail if all the inputs are not of double precision "
                          "floating point. ", UserWarning, stacklevel=2)
    numerical = _numerical_jacobian(func, inputs, eps)
    reentrant = True
    if check_backward_ad:
        analytical, reentrant = _analytical_jacobian(func, inputs, nondet_tol)
        msg = _compare(numerical, analytical, atol, rtol, "")
        if msg is not None:
            if raise_exception:
                raise GradcheckError(msg)
            return False
    if check_forward_ad:
        msg = _compare(numerical, _forward_jacobian(func, inputs), atol, rtol, "computed with forward mode ")
        if msg is not None:
            if raise_exception:
                raise GradcheckError(msg)
            return False
    if not reentrant:
        msg = ("Backward is not reentrant, i.e., running backward with same input and grad_output multiple "
               f"times gives different values, although analytical gradient matches numerical gradient. The "
               f"tolerance for nondeterminism was {nondet_tol}.")
        if raise_exception:
            raise GradcheckError(msg)
        return False
    return True


def gradgradcheck(func: Callable[..., Any], inputs: Any, grad_outputs: Any = None, *, eps: float = 1e-6,
                  atol: float = 1e-5, rtol: float = 1e-3, gen_non_contig_grad_outputs: bool = False,
                  raise_exception: bool = True, nondet_tol: float = 0.0, check_undefined_grad: bool = True,
                  check_grad_dtypes: bool = False, check_batched_grad: bool = False,
                  check_fwd_over_rev: bool = False, check_rev_over_rev: bool = True, fast_mode: bool = False,
                  masked: bool = False) -> bool:
    """gradcheck of the gradients themselves (second derivatives, through create_graph=True)."""
    import ember

    inputs = _as_tuple(inputs)
    outs = _outputs(func, inputs)
    if grad_outputs is None:
        grad_outputs = tuple(ember.randn(o.shape, dtype=o.dtype).requires_grad_(True) for o in outs)
    grad_outputs = _as_tuple(grad_outputs)
    n_in = len(inputs)

    def first_order(*args: Any) -> tuple[Any, ...]:
        ins, gos = args[:n_in], args[n_in:]
        diff = _diff_inputs(ins)
        outputs = _outputs(func, ins)
        gs = ember.autograd.grad(outputs, diff, gos, create_graph=True, allow_unused=True)
        return tuple(g for g in gs if g is not None)

    return gradcheck(first_order, inputs + tuple(grad_outputs), eps=eps, atol=atol, rtol=rtol,
                     raise_exception=raise_exception, nondet_tol=nondet_tol)


__all__ = ["gradcheck", "gradgradcheck", "GradcheckError"]


