"""``ember.func``: PyTorch's function transforms (``torch.func``) on ember's reverse-mode autograd.

``grad``, ``grad_and_value``, ``vjp`` and ``jacrev`` are reverse mode, as PyTorch's. ``jvp``, ``jacfwd``,
``linearize`` and ``hessian`` get the same values from reverse mode too: J v is the gradient, with respect to
a dummy cotangent u, of the vector-Jacobian product uᵀJ (linear in u), which needs double backward; ember
writes its derivatives in differentiable ops for that. ``vmap`` runs the function once per batch element and
stacks the results, which is exact for functions without side effects.

Transforms compose (``hessian`` is ``jacfwd(jacrev(f))``; ``vmap(grad(f))`` gives per-sample gradients):
inside another transform, or on arguments that require grad, the results keep their graph. Unlike PyTorch's,
a tensor that requires grad and that func only closes over (a module's own parameters, say) does not keep it:
pass such tensors as arguments (``functional_call``) to differentiate through the result.
``functional_call`` and ``stack_module_state`` work on modules, so they need ember-nn.
"""

from __future__ import annotations

import contextlib
import functools
import importlib
from collections.abc import Callable, Iterator
from typing import Any

import ember
from ember._siblings import import_sibling
from ember._tensor import Tensor

__all__ = ["functional_call", "grad", "grad_and_value", "hessian", "jacfwd", "jacrev", "jvp", "linearize",
           "stack_module_state", "vjp", "vmap"]

# ------------------------------------------------------------------------------------------
# pytrees (tuples, lists, dicts and leaves) and transform nesting
# ------------------------------------------------------------------------------------------


def _flatten(tree: Any) -> tuple[list[Any], Any]:
    """The leaves of ``tree`` in order, and a spec that rebuilds it."""
    if isinstance(tree, (tuple, list)):
        parts = [_flatten(v) for v in tree]
        return [leaf for p in parts for leaf in p[0]], (type(tree), [p[1] for p in parts])
    if isinstance(tree, dict):
        parts = [_flatten(v) for v in tree.values()]
        return [leaf for p in parts for leaf in p[0]], (dict, list(tree), [p[1] for p in parts])
    return [tree], None


def _unflatten(spec: Any, leaves: Any) -> Any:
    it = leaves if isinstance(leaves, Iterator) else iter(leaves)
    if spec is None:
        return next(it)
    if spec[0] is dict:
        return {k: _unflatten(s, it) for k, s in zip(spec[1], spec[2], strict=True)}
    kind, children = spec
    values = [_unflatten(s, it) for s in children]
    return kind(*values) if hasattr(kind, "_fields") else kind(values)  # namedtuples take fields positionally


def _map(fn: Callable[[Any], Any], tree: Any) -> Any:
    leaves, spec = _flatten(tree)
    return _unflatten(spec, [fn(v) for v in leaves])


_depth = 0  # how many transforms are running: inner ones must keep their graphs for the outer ones


@contextlib.contextmanager
def _transform() -> Iterator[None]:
    global _depth
    _depth += 1
    try:
        with ember.enable_grad():  # transforms differentiate even under an outer no_grad, as PyTorch's
            yield
    finally:
        _depth -= 1


def _keeps_graph(*trees: Any) -> bool:
    """Whether results must stay differentiable: inside another transform, or for inputs that require grad."""
    if not ember.is_grad_enabled():
        return False
    return _depth > 0 or any(isinstance(v, Tensor) and v.requires_grad for t in trees for v in _flatten(t)[0])


def _as_input(x: Any, keep_graph: bool) -> Tensor:
    """A tensor to differentiate with respect to: x itself, as a fresh node (joined to x's graph if kept)."""
    if not isinstance(x, Tensor):
        raise ValueError(f"Thing passed to transform API must be Tensor, got {type(x)}")
    if keep_graph and x.requires_grad:
        return x.view_as(x)
    return x.detach().requires_grad_(True)


def _output(x: Any, keep_graph: bool) -> Any:
    return _map(lambda v: v.detach() if isinstance(v, Tensor) and not keep_graph else v, x)


def _argnums(argnums: Any, nargs: int, api: str) -> tuple[int, ...]:
    nums = (argnums,) if isinstance(argnums, int) else argnums
    if not isinstance(nums, tuple) or not nums or not all(isinstance(n, int) for n in nums):
        raise RuntimeError(f"{api}: Expected argnums to be int or Tuple[int, ...], got: {type(argnums)}")
    out = []
    for n in nums:
        if not -nargs <= n < nargs:
            raise RuntimeError(f"Got argnum={n}, but only {nargs} positional inputs")
        out.append(n % nargs)
    if len(set(out)) != len(out):
        raise RuntimeError(f"{api}: argnums must be unique, but got {argnums}")
    return tuple(out)


class _Inputs:
    """The positional arguments with those at ``argnums`` replaced by fresh differentiable tensors."""

    def __init__(self, args: tuple, argnums: tuple[int, ...], keep_graph: bool) -> None:
        self.args = list(args)
        self.specs: list[Any] = []
        self.leaves: list[Tensor] = []
        self.counts: list[int] = []
        for n in argnums:
            leaves, spec = _flatten(args[n])
            fresh = [_as_input(v, keep_graph) for v in leaves]
            self.args[n] = _unflatten(spec, fresh)
            self.specs.append(spec)
            self.leaves += fresh
            self.counts.append(len(fresh))

    def regroup(self, per_leaf: list[Any], single: bool) -> Any:
        """Per-leaf results back into the argnums' structures (one tree, or a tuple of them)."""
        trees, start = [], 0
        for spec, count in zip(self.specs, self.counts, strict=True):
            trees.append(_unflatten(spec, per_leaf[start:start + count]))
            start += count
        return trees[0] if single else tuple(trees)


def _split_aux(out: Any, has_aux: bool, api: str) -> tuple[Any, Any]:
    if not has_aux:
        return out, None
    if not isinstance(out, tuple) or len(out) != 2:
        raise RuntimeError(f"{api}(f)(*args): output of function f should be a tuple: (output, aux) if has_aux is "
                           "True")
    return out


def _grads(outputs: list[Tensor], inputs: list[Tensor], cotangents: list[Tensor] | None,
           create_graph: bool) -> list[Tensor]:
    """d(Σ cotangent·output)/d(inputs), zeros where an input is unused (retains the graph)."""
    pairs = [(o, c) for o, c in zip(outputs, cotangents or [None] * len(outputs), strict=True) if o.requires_grad]
    if not pairs:
        return [ember.zeros_like(x) for x in inputs]
    grads = ember.autograd.grad([p[0] for p in pairs], inputs, [p[1] for p in pairs], retain_graph=True,
                                create_graph=create_graph, allow_unused=True)
    return [ember.zeros_like(x) if g is None else g for g, x in zip(grads, inputs, strict=True)]


def _tensor_leaves(tree: Any, what: str) -> tuple[list[Tensor], Any]:
    leaves, spec = _flatten(tree)
    for v in leaves:
        if not isinstance(v, Tensor):
            raise RuntimeError(f"{what}: Expected outputs to be Tensors or a pytree of Tensors, got {type(v)}")
    return leaves, spec


# ------------------------------------------------------------------------------------------
# grad, vjp, jvp
# ------------------------------------------------------------------------------------------


def grad_and_value(func: Callable[..., Any], argnums: int | tuple[int, ...] = 0,
                   has_aux: bool = False) -> Callable[..., Any]:
    """A function returning (gradient of func's scalar output with respect to the args at argnums, the output);
    with ``has_aux``, func returns (output, aux) and the result is (gradient, (output, aux))."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        nums = _argnums(argnums, len(args), "grad_and_value(f)(*args)")
        keep = _keeps_graph(args)
        with _transform():
            inputs = _Inputs(args, nums, keep)
            out, aux = _split_aux(func(*inputs.args, **kwargs), has_aux, "grad_and_value")
            if not isinstance(out, Tensor):
                raise RuntimeError(f"grad_and_value(f)(*args): Expected f(*args) to return a Tensor, got {type(out)}")
            if out.dim() != 0:
                raise RuntimeError(f"grad_and_value(f)(*args): Expected f(*args) to return a scalar Tensor, got "
                                   f"tensor with {out.dim()} dims. Maybe you wanted to use the vjp or jacrev APIs "
                                   "instead?")
            grads = _grads([out], inputs.leaves, None, keep)
        g = inputs.regroup(grads, isinstance(argnums, int))
        value = _output(out, keep)
        return (g, (value, _output(aux, keep))) if has_aux else (g, value)

    return wrapper


def grad(func: Callable[..., Any], argnums: int | tuple[int, ...] = 0, has_aux: bool = False) -> Callable[..., Any]:
    """A function returning the gradient of func's scalar output with respect to the args at argnums (and
    func's aux output with ``has_aux``)."""
    gv = grad_and_value(func, argnums, has_aux)

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        g, value = gv(*args, **kwargs)
        return (g, value[1]) if has_aux else g

    return wrapper


def vjp(func: Callable[..., Any], *primals: Any, has_aux: bool = False) -> tuple[Any, ...]:
    """(func(*primals), vjp_fn[, aux]): vjp_fn(cotangents) is the tuple of cotangentsᵀJ per primal."""
    keep = _keeps_graph(primals)
    with _transform():
        inputs = _Inputs(primals, tuple(range(len(primals))), keep)
        out, aux = _split_aux(func(*inputs.args), has_aux, "vjp")
        outs, out_spec = _tensor_leaves(out, "vjp(f, *primals)")

    def vjp_fn(cotangents: Any) -> tuple[Any, ...]:
        cts, ct_spec = _flatten(cotangents)
        if ct_spec != out_spec:
            raise RuntimeError("Expected pytree structure of cotangents to be the same as pytree structure of "
                               "outputs to the function")
        for o, c in zip(outs, cts, strict=True):
            if tuple(o.shape) != tuple(c.shape):
                raise RuntimeError(f"Mismatch in shape: grad_output[0] has a shape of {c.shape} and output[0] has a "
                                   f"shape of {o.shape}.")
        create = keep or _keeps_graph(cotangents)  # before entering: inside, every call counts as nested
        with _transform():
            grads = _grads(outs, inputs.leaves, cts, create)
        return tuple(inputs.regroup(grads, False))

    result = (_output(out, keep), vjp_fn)
    return (*result, _output(aux, keep)) if has_aux else result


def _check_jvp_args(primals: Any, tangents: Any) -> None:
    if not isinstance(primals, tuple):
        raise RuntimeError("jvp(f, primals, tangents): Expected primals to be a tuple. E.g. it should be valid to "
                           "call f(*primals).")
    p_leaves, p_spec = _flatten(primals)
    t_leaves, t_spec = _flatten(tangents)
    if p_spec != t_spec:
        raise RuntimeError("jvp(f, primals, tangents): Expected primals and tangents to have the same python "
                           f"structure. For example, if primals is a tuple of 3 tensors, tangents also must be. Got "
                           f"primals with structure {p_spec} and tangents with structure {t_spec}")
    for p, t in zip(p_leaves, t_leaves, strict=True):
        if not isinstance(p, Tensor) or not isinstance(t, Tensor):
            raise RuntimeError("jvp(f, primals, tangents): Expected primals and tangents to be Tensors")
        if tuple(p.shape) != tuple(t.shape):
            raise RuntimeError(f"jvp(f, primals, tangents): Expected primals and tangents to have the same shape, but "
                               f"got {tuple(p.shape)} and {tuple(t.shape)}")


def jvp(func: Callable[..., Any], primals: tuple, tangents: tuple, *, strict: bool = False,
        has_aux: bool = False) -> tuple[Any, ...]:
    """(func(*primals), J·tangents[, aux]), by differentiating uᵀJ with respect to u (double backward)."""
    if strict:
        raise RuntimeError("jvp(f, primals, tangents): strict=True is not supported.")
    _check_jvp_args(primals, tangents)
    keep = _keeps_graph(primals, tangents)
    with _transform():
        inputs = _Inputs(primals, tuple(range(len(primals))), True)
        out, aux = _split_aux(func(*inputs.args), has_aux, "jvp")
        outs, out_spec = _tensor_leaves(out, "jvp(f, primals, tangents)")
        dummies = [ember.zeros_like(o).requires_grad_(True) for o in outs]
        vjps = _grads(outs, inputs.leaves, dummies, True)  # uᵀJ per input, linear in u
        pairs = [(g, t) for g, t in zip(vjps, _flatten(tangents)[0], strict=True) if g.requires_grad]
        if pairs:
            res = ember.autograd.grad([p[0] for p in pairs], dummies, [p[1] for p in pairs], create_graph=keep,
                                      allow_unused=True)
        else:
            res = (None,) * len(dummies)
        jv = [ember.zeros_like(o) if r is None else r for r, o in zip(res, outs, strict=True)]
    result = (_output(out, keep), _output(_unflatten(out_spec, jv), keep))
    return (*result, _output(aux, keep)) if has_aux else result


def linearize(func: Callable[..., Any], *primals: Any) -> tuple[Any, Callable[..., Any]]:
    """(func(*primals), jvp_fn) with jvp_fn(*tangents) = J·tangents (func is re-run per call)."""
    out = _output(func(*primals), _keeps_graph(primals))

    def jvp_fn(*tangents: Any) -> Any:
        return jvp(func, primals, tangents)[1]

    return out, jvp_fn


# ------------------------------------------------------------------------------------------
# Jacobians and Hessians
# ------------------------------------------------------------------------------------------


def _jacobian(func: Callable[..., Any], argnums: Any, has_aux: bool, api: str,
              randomness: str = "different") -> Callable[..., Any]:
    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        nums = _argnums(argnums, len(args), f"{api}(f, ...)(*args)")
        keep = _keeps_graph(args)
        with _transform():
            inputs = _Inputs(args, nums, keep)
            with _rng_guard(randomness, api):
                out, aux = _split_aux(func(*inputs.args, **kwargs), has_aux, api)
            outs, out_spec = _tensor_leaves(out, f"{api}(f, ...)(*args)")
            jacs = [_jacobian_of(o, inputs, keep, isinstance(argnums, int)) for o in outs]
        result = _output(_unflatten(out_spec, jacs), keep)
        return (result, _output(aux, keep)) if has_aux else result

    return wrapper


def _jacobian_of(out: Tensor, inputs: _Inputs, keep: bool, single: bool) -> Any:
    """d out / d inputs, one reverse pass per output element: per input, shape out.shape + input.shape."""
    flat = out.reshape(-1)
    rows: list[list[Tensor]] = [[] for _ in inputs.leaves]
    for k in range(flat.numel()):
        for i, g in enumerate(_grads([flat[k]], inputs.leaves, None, keep)):
            rows[i].append(g)
    per_leaf = []
    for x, r in zip(inputs.leaves, rows, strict=True):
        stacked = ember.stack(r) if r else ember.zeros((0, *x.shape), dtype=x.dtype)
        per_leaf.append(stacked.reshape(*out.shape, *x.shape))
    return inputs.regroup(per_leaf, single)


def jacrev(func: Callable[..., Any], argnums: int | tuple[int, ...] = 0, *, has_aux: bool = False,
           chunk_size: int | None = None, _preallocate_and_copy: bool = False) -> Callable[..., Any]:
    """A function returning the Jacobian of func with respect to the args at argnums (reverse mode).
    ``chunk_size`` only batches PyTorch's vectorized passes; here every row is its own pass."""
    return _jacobian(func, argnums, has_aux, "jacrev")


def jacfwd(func: Callable[..., Any], argnums: int | tuple[int, ...] = 0, has_aux: bool = False, *,
           randomness: str = "error") -> Callable[..., Any]:
    """A function returning the Jacobian of func with respect to the args at argnums: the same values as
    jacrev (computed in reverse mode). ``randomness='error'`` refuses random ops in func, as PyTorch's."""
    _check_randomness(randomness)
    return _jacobian(func, argnums, has_aux, "jacfwd", randomness)


def hessian(func: Callable[..., Any], argnums: int | tuple[int, ...] = 0) -> Callable[..., Any]:
    """A function returning the Hessian of func's scalar output: ``jacfwd(jacrev(func, argnums), argnums)``."""
    return jacfwd(jacrev(func, argnums), argnums)


# ------------------------------------------------------------------------------------------
# vmap: one call per batch element, results stacked
# ------------------------------------------------------------------------------------------


def _check_randomness(randomness: str) -> None:
    if randomness not in ("error", "different", "same"):
        raise RuntimeError(f"Only allowed values for randomness are 'error', 'different', or 'same'. Got "
                           f"{randomness}")


@contextlib.contextmanager
def _rng_guard(randomness: str, api: str) -> Iterator[None]:
    """Under 'error', a draw from the default generator (its state moving) raises, as PyTorch's transforms."""
    before = ember.get_rng_state() if randomness == "error" else None
    yield
    if before is not None and not ember.equal(before, ember.get_rng_state()):
        raise RuntimeError(f"{api}: called random operation while in randomness error mode. Please either use the "
                           "'same' or 'different' randomness flags on vmap or perform the randomness operation out "
                           "of vmap")


def _leaf_dims(dims: Any, arg: Any, n_leaves: int, in_dims: Any) -> list[Any]:
    if dims is None or isinstance(dims, int):
        return [dims] * n_leaves
    leaves, spec = _flatten(dims)
    if spec != _flatten(arg)[1]:
        raise ValueError(f"vmap(f, in_dims={in_dims}, ...)(<inputs>): in_dims is not compatible with the structure "
                         "of `inputs`.")
    return leaves


def _batch_plan(args: tuple, in_dims: Any) -> tuple[list[Any], list[Any], Any, int]:
    """Every input leaf with its mapped dim (or None), and the batch size."""
    per_arg = in_dims if isinstance(in_dims, tuple) else (in_dims,) * len(args)
    if len(per_arg) != len(args):
        raise ValueError(f"vmap(f, in_dims={in_dims}, ...)(<inputs>): in_dims is not compatible with the structure "
                         f"of `inputs`. in_dims has {len(per_arg)} entries but inputs has {len(args)}.")
    leaves, spec = _flatten(args)
    dims: list[Any] = []
    for arg, d in zip(args, per_arg, strict=True):
        dims += _leaf_dims(d, arg, len(_flatten(arg)[0]), in_dims)
    sizes = []
    for leaf, d in zip(leaves, dims, strict=True):
        if d is None:
            continue
        if not isinstance(leaf, Tensor):
            raise ValueError(f"vmap(f, in_dims={in_dims}, ...)(<inputs>): Got in_dim={d} for an input but the input "
                             f"is of type {type(leaf)}. We cannot vmap over non-Tensor arguments, please use None as "
                             "the respective in_dim")
        if leaf.dim() == 0 or not -leaf.dim() <= d < leaf.dim():
            raise ValueError(f"vmap(f, in_dims={in_dims}, ...)(<inputs>): Got in_dim={d} for some input, but that "
                             f"input is a Tensor of dimensionality {leaf.dim()} so expected in_dim to satisfy "
                             f"-{leaf.dim()} <= in_dim < {leaf.dim()}.")
        sizes.append(leaf.shape[d])
    if not sizes:
        raise ValueError(f"vmap(f, in_dims={in_dims}, ...)(<inputs>): at least one input must be a Tensor with a "
                         "non-None in_dim")
    if len(set(sizes)) != 1:
        raise ValueError(f"vmap: Expected all tensors to have the same size in the mapped dimension, got sizes "
                         f"{sizes} for the mapped dimension")
    return leaves, dims, spec, sizes[0]


def _same(values: list[Any]) -> bool:
    first = values[0]
    if isinstance(first, Tensor):
        return all(ember.equal(first, v) for v in values[1:])
    return all(v == first for v in values[1:])


def _stack(values: list[Any], out_dim: Any) -> Any:
    if out_dim is None:  # the output must not depend on the batch element
        if not _same(values):
            raise ValueError("vmap: `func` can not return a BatchedTensor when out_dim is None")
        return values[0]
    if not all(isinstance(v, Tensor) for v in values):
        raise ValueError(f"vmap: `func` must only return Tensors, got type {type(values[0])}. Did you mean to set "
                         "out_dims= to None for output?")
    return ember.stack(values, out_dim)


def vmap(func: Callable[..., Any], in_dims: Any = 0, out_dims: Any = 0, randomness: str = "error", *,
         chunk_size: int | None = None) -> Callable[..., Any]:
    """func mapped over a batch dim of its inputs (in_dims: an int or None per argument, or one for all) with
    the results stacked at out_dims. Runs func once per batch element: exact for functions without side
    effects (a function that writes into its inputs sees one slice at a time). randomness: 'error' refuses
    draws from the default generator, 'different' draws per element, 'same' draws once for all."""
    _check_randomness(randomness)

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        leaves, dims, spec, size = _batch_plan(args, in_dims)
        if size == 0:
            raise ValueError("ember.func.vmap runs func once per batch element: a batch of size 0 leaves nothing "
                             "to stack")
        state = ember.get_rng_state() if randomness == "same" else None
        results = []
        for i in range(size):
            sliced = [v if d is None else v.select(d, i) for v, d in zip(leaves, dims, strict=True)]
            if state is not None:
                ember.set_rng_state(state)  # every element draws the same numbers
            with _rng_guard(randomness, "vmap"):
                results.append(func(*_unflatten(spec, sliced), **kwargs))
        out_leaves, out_spec = zip(*(_flatten(r) for r in results), strict=True)
        if any(s != out_spec[0] for s in out_spec):
            raise ValueError("vmap: `func` returned outputs of different structures for different batch elements")
        per_out = out_dims if isinstance(out_dims, tuple) else (out_dims,) * len(out_leaves[0])
        if len(per_out) != len(out_leaves[0]):
            raise ValueError(f"vmap(f, ..., out_dims={out_dims})(<inputs>): out_dims is not compatible with the "
                             "structure of `outputs`.")
        stacked = [_stack([r[j] for r in out_leaves], d) for j, d in enumerate(per_out)]
        return _unflatten(out_spec[0], stacked)

    return wrapper


# ------------------------------------------------------------------------------------------
# modules (ember-nn)
# ------------------------------------------------------------------------------------------


def _nn_module(name: str) -> Any:
    import_sibling("ember.nn")  # names ember-nn if it is not installed
    return importlib.import_module(name)


def functional_call(module: Any, parameter_and_buffer_dicts: Any, args: Any = None, kwargs: Any = None, *,
                    tie_weights: bool = True, strict: bool = False) -> Any:
    """``module(*args, **kwargs)`` with its parameters and buffers replaced by the given tensors (a dict,
    or a sequence of dicts with distinct keys); the module is restored afterwards."""
    if isinstance(parameter_and_buffer_dicts, dict):
        merged = parameter_and_buffer_dicts
    elif isinstance(parameter_and_buffer_dicts, (list, tuple)):
        if not all(isinstance(d, dict) for d in parameter_and_buffer_dicts):
            raise ValueError("Expected all elements of parameter_and_buffer_dicts to be dictionaries")
        keys = [k for d in parameter_and_buffer_dicts for k in d]
        repeated = [k for k in dict.fromkeys(keys) if keys.count(k) > 1]
        if repeated:
            raise ValueError(f"{repeated} appeared in multiple dictionaries; behavior of functional call is "
                             "ambiguous")
        merged = {k: v for d in parameter_and_buffer_dicts for k, v in d.items()}
    else:
        raise ValueError(f"Expected parameter_and_buffer_dicts to be a dict, or a list/tuple of dicts, but got "
                         f"{type(parameter_and_buffer_dicts)}")
    stateless = _nn_module("ember.nn.utils.stateless")
    return stateless._functional_call(module, merged, args, kwargs, tie_weights=tie_weights, strict=strict)


def stack_module_state(models: Any) -> tuple[dict[str, Tensor], dict[str, Tensor]]:
    """(params, buffers) of same-structured modules stacked along a new dim 0 (for vmap over an ensemble);
    the stacked parameters are new leaves that require grad if the originals do."""
    models = list(models)
    if not models:
        raise RuntimeError("stack_module_state: Expected at least one model, got 0.")
    if not (all(m.training for m in models) or all(not m.training for m in models)):
        raise RuntimeError("stack_module_state: Expected all models to have the same training/eval mode.")
    kind = type(models[0])
    if not all(type(m) is kind for m in models):
        raise RuntimeError("stack_module_state: Expected all models to be of the same class.")

    def stacked(named: list[dict[str, Tensor]]) -> dict[str, Tensor]:
        out = {}
        for name in named[0]:
            values = [d[name] for d in named]
            flags = {v.requires_grad for v in values}
            if len(flags) != 1:
                raise RuntimeError(f"Expected {name} from each model to have the same .requires_grad")
            leaf = ember.stack([v.detach() for v in values])
            out[name] = leaf.requires_grad_(True) if flags == {True} else leaf
        return out

    params = stacked([dict(m.named_parameters()) for m in models])
    buffers = stacked([dict(m.named_buffers()) for m in models])
    return params, buffers
