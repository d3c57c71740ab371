"""Forward-mode AD (``ember.autograd.forward_ad``), compared with PyTorch's.

Primal and tangent of ~50 ops (pointwise, matmul, reductions, views, indexing, in-place ops,
nn.functional), view/in-place semantics of tangents, the API's errors, custom Functions' jvp,
composition with backward, and gradcheck(check_forward_ad=True).
"""

from __future__ import annotations

import ember
import numpy as np
import pytest

torch = pytest.importorskip("torch")


def _arrays(shapes, seed, positive=False):
    rng = np.random.default_rng(seed)
    out = []
    for s in shapes:
        a = rng.standard_normal(s)
        out.append(np.abs(a) + 0.5 if positive else a)
    return out


def _np(t):
    return None if t is None else t.detach().cpu().numpy()


def _run(lib, fn, shapes, seed, positive):
    """fn(lib, F, *duals) inside a dual level: [(primal, tangent)] of its tensor outputs."""
    fw = lib.autograd.forward_ad
    primals = _arrays(shapes, seed, positive)
    tangents = _arrays(shapes, seed + 100)
    with fw.dual_level():
        duals = [fw.make_dual(lib.tensor(p), lib.tensor(t)) for p, t in zip(primals, tangents, strict=True)]
        out = fn(lib, lib.nn.functional, *duals)
        outs = out if isinstance(out, (tuple, list)) else (out,)
        return [(_np(fw.unpack_dual(o).primal), _np(fw.unpack_dual(o).tangent)) for o in outs]


def _compare(fn, shapes, seed=0, positive=False, tol=1e-7):
    expected = _run(torch, fn, shapes, seed, positive)
    got = _run(ember, fn, shapes, seed, positive)
    assert len(got) == len(expected)
    for (ep, et), (gp, gt) in zip(expected, got, strict=True):
        np.testing.assert_allclose(gp, ep, rtol=tol, atol=tol)
        if et is None:
            assert gt is None
        else:
            assert gt is not None
            np.testing.assert_allclose(gt, et, rtol=tol, atol=tol)


S = (3, 4)
CASES = {
    # pointwise unary
    "sin": (lambda L, F, x: x.sin(), [S], False),
    "exp": (lambda L, F, x: L.exp(x), [S], False),
    "log": (lambda L, F, x: L.log(x), [S], True),
    "tanh": (lambda L, F, x: x.tanh(), [S], False),
    "sigmoid": (lambda L, F, x: L.sigmoid(x), [S], False),
    "sqrt": (lambda L, F, x: x.sqrt(), [S], True),
    "abs": (lambda L, F, x: x.abs(), [S], False),
    "pow_scalar": (lambda L, F, x: x ** 3, [S], False),
    "reciprocal": (lambda L, F, x: 1 / x, [S], True),
    "neg": (lambda L, F, x: -x, [S], False),
    "erf": (lambda L, F, x: L.erf(x), [S], False),
    "clamp": (lambda L, F, x: x.clamp(-0.5, 0.5), [S], False),
    # binary
    "add": (lambda L, F, x, y: x + y, [S, S], False),
    "add_scalar_alpha": (lambda L, F, x, y: L.add(x, y, alpha=2.5) + 3.0, [S, S], False),
    "sub_broadcast": (lambda L, F, x, y: x - y, [S, (4,)], False),
    "rsub": (lambda L, F, x: 2.0 - x, [S], False),
    "mul": (lambda L, F, x, y: x * y, [S, S], False),
    "div": (lambda L, F, x, y: x / y, [S, S], True),
    "pow_tensor": (lambda L, F, x, y: x ** y, [S, S], True),
    "maximum": (lambda L, F, x, y: L.maximum(x, y), [S, S], False),
    "atan2": (lambda L, F, x, y: L.atan2(x, y), [S, S], False),
    "where": (lambda L, F, x, y: L.where(x > 0, x, y), [S, S], False),
    "where_method_form": (lambda L, F, x: L.ones(3, 4, dtype=L.float64).where(x > 0, x), [S], False),
    "sub_int_tensor": (lambda L, F, x: x - L.arange(4), [S], False),
    "as_strided_of_view": (lambda L, F, x: x[1:].as_strided((2, 2), (1, 2), 5), [S], False),
    "mixed_nondual": (lambda L, F, x: x * L.ones(3, 4, dtype=L.float64) + L.full((3, 4), 2.0, dtype=L.float64),
                      [S], False),
    # matmul family
    "matmul": (lambda L, F, x, y: x @ y, [(3, 4), (4, 5)], False),
    "mm_one_dual": (lambda L, F, x: L.mm(L.ones(2, 3, dtype=L.float64), x), [(3, 4)], False),
    "bmm": (lambda L, F, x, y: L.bmm(x, y), [(2, 3, 4), (2, 4, 2)], False),
    "einsum": (lambda L, F, x, y: L.einsum("ij,jk->ik", x, y), [(3, 4), (4, 2)], False),
    # reductions
    "sum_dim": (lambda L, F, x: x.sum(1), [S], False),
    "mean": (lambda L, F, x: x.mean(), [S], False),
    "prod": (lambda L, F, x: x.prod(0), [S], False),
    "max_dim": (lambda L, F, x: x.max(1), [S], False),
    "norm": (lambda L, F, x: x.norm(), [S], False),
    "logsumexp": (lambda L, F, x: L.logsumexp(x, 1), [S], False),
    "var": (lambda L, F, x: x.var(0), [S], False),
    "cumsum": (lambda L, F, x: x.cumsum(1), [S], False),
    "softmax": (lambda L, F, x: x.softmax(-1), [S], False),
    # views and indexing
    "view": (lambda L, F, x: x.view(2, 6), [S], False),
    "reshape_t": (lambda L, F, x: x.t().reshape(-1), [S], False),
    "transpose": (lambda L, F, x: x.transpose(0, 1), [S], False),
    "permute": (lambda L, F, x: x.permute(2, 0, 1), [(2, 3, 4)], False),
    "T_property": (lambda L, F, x: x.T * 2, [S], False),
    "slice": (lambda L, F, x: x[1:, ::2], [S], False),
    "adv_index": (lambda L, F, x: x[L.tensor([2, 0, 2])], [S], False),
    "select": (lambda L, F, x: x[1], [S], False),
    "expand": (lambda L, F, x: x.unsqueeze(0).expand(2, 3, 4), [S], False),
    "squeeze": (lambda L, F, x: x.squeeze(1), [(3, 1, 4)], False),
    "split": (lambda L, F, x: x.split(2, dim=1), [S], False),
    "chunk": (lambda L, F, x: L.chunk(x, 3, 0), [S], False),
    "unbind": (lambda L, F, x: x.unbind(0), [S], False),
    "cat": (lambda L, F, x, y: L.cat([x, L.zeros(1, 4, dtype=L.float64), y]), [S, S], False),
    "stack": (lambda L, F, x, y: L.stack([x, y], 1), [S, S], False),
    "flatten": (lambda L, F, x: x.flatten(), [(2, 3, 2)], False),
    "diagonal": (lambda L, F, x: x.diagonal(), [(3, 3)], False),
    "gather": (lambda L, F, x: x.gather(1, L.tensor([[0, 1], [2, 3], [1, 1]])), [S], False),
    "to_float32": (lambda L, F, x: x.to(L.float32).double(), [S], False),
    "argmax_no_tangent": (lambda L, F, x: x.argmax(1), [S], False),
    "detach_no_tangent": (lambda L, F, x: x.detach(), [S], False),
    "zeros_like_no_tangent": (lambda L, F, x: L.zeros_like(x), [S], False),
    # in-place
    "add_": (lambda L, F, x, y: x.clone().add_(y), [S, S], False),
    "mul_": (lambda L, F, x, y: x.clone().mul_(y), [S, S], False),
    "into_nondual": (lambda L, F, x: L.zeros(3, 4, dtype=L.float64).add_(x), [S], False),
    "setitem": (lambda L, F, x: _setitem(L, x), [S], False),
    "copy_": (lambda L, F, x: L.zeros(3, 4, dtype=L.float64).copy_(x), [S], False),
    "relu_inplace": (lambda L, F, x: F.relu(x.clone(), inplace=True), [S], False),
    "view_then_inplace": (lambda L, F, x: _view_inplace(L, x), [S], False),
    # nn.functional
    "linear": (lambda L, F, x, w, b: F.linear(x, w, b), [(2, 4), (3, 4), (3,)], False),
    "linear_nondual_weight": (lambda L, F, x: F.linear(x, L.ones(3, 4, dtype=L.float64)), [(2, 4)], False),
    "conv2d": (lambda L, F, x, w: F.conv2d(x, w, padding=1), [(1, 2, 5, 5), (3, 2, 3, 3)], False),
    "relu": (lambda L, F, x: F.relu(x), [S], False),
    "gelu": (lambda L, F, x: F.gelu(x), [S], False),
    "layer_norm": (lambda L, F, x, w: F.layer_norm(x, (4,), w), [S, (4,)], False),
    "log_softmax": (lambda L, F, x: F.log_softmax(x, dim=1), [S], False),
    "mse_loss": (lambda L, F, x, y: F.mse_loss(x, y), [S, S], False),
    "cross_entropy": (lambda L, F, x: F.cross_entropy(x, L.tensor([0, 3, 1])), [S], False),
    "avg_pool2d": (lambda L, F, x: F.avg_pool2d(x, 2), [(1, 1, 4, 4)], False),
    "max_pool2d": (lambda L, F, x: F.max_pool2d(x, 2), [(1, 1, 4, 4)], False),
    "embedding_weight": (lambda L, F, w: F.embedding(L.tensor([[0, 2], [1, 1]]), w), [(3, 4)], False),
    "batch_norm_eval": (lambda L, F, x, w: F.batch_norm(x, L.zeros(3, dtype=L.float64), L.ones(3, dtype=L.float64),
                                                        w, training=False), [(2, 3, 4), (3,)], False),
    "silu_softplus": (lambda L, F, x: F.softplus(F.silu(x)), [S], False),
    "pad_value": (lambda L, F, x: F.pad(x, (1, 2), value=3.0), [S], False),
    "relu_input_kw_inplace": (lambda L, F, x: F.relu(input=x.clone(), inplace=True), [S], False),
}


def _setitem(lib, x):
    s = lib.zeros(3, dtype=lib.float64)
    s[0] = x[1, 1]
    s[2] = 5.0
    return s


def _view_inplace(lib, x):
    y = x.clone()
    v = y[1]
    v.mul_(3)  # the base's tangent changes with its view's
    return y, v


@pytest.mark.parametrize("name", sorted(CASES))
def test_op_matches_torch(name: str) -> None:
    fn, shapes, positive = CASES[name]
    _compare(fn, shapes, positive=positive)


def test_complex_mul_matches_torch() -> None:
    def run(lib):
        fw = lib.autograd.forward_ad
        a = lib.tensor(np.array([1 + 2j, -0.5 + 0.3j]))
        ta = lib.tensor(np.array([0.3 - 1j, 2 + 0.5j]))
        with fw.dual_level():
            d = fw.make_dual(a, ta)
            out = (d * d).exp().abs()
            return _np(fw.unpack_dual(out).tangent), _np(fw.unpack_dual(d * d).tangent)

    for e, g in zip(run(torch), run(ember), strict=True):
        np.testing.assert_allclose(g, e, rtol=1e-7)


# ---------------------------------------------------------------- semantics

fw = ember.autograd.forward_ad


def test_views_share_tangent_and_exit_drops_it() -> None:
    x, v = ember.randn(3, 4), ember.randn(3, 4)
    with fw.dual_level() as level:
        assert level == 0
        d = fw.make_dual(x, v)
        assert fw.unpack_dual(d).tangent is v
        assert d is not x and d.data_ptr() == x.data_ptr()
        primal = fw.unpack_dual(d).primal
        assert fw.unpack_dual(primal).tangent is None
        sl = d[1:].t()
        assert sl.data_ptr() == x[1:].data_ptr()
        assert fw.unpack_dual(sl).tangent._base is v
        assert fw.unpack_dual(x).tangent is None
        out = d * 2
    assert fw.unpack_dual(out).tangent is None
    assert fw.unpack_dual(out).primal is out


def test_tangent_layout_follows_primal() -> None:
    with fw.dual_level():
        t = ember.randn(3, 2).t()
        d = fw.make_dual(ember.randn(2, 3), t)
        assert fw.unpack_dual(d).tangent.stride() == (3, 1)
        same = ember.randn(2, 3)
        assert fw.unpack_dual(fw.make_dual(ember.randn(2, 3), same)).tangent is same


def test_inplace_into_view_of_nondual_base() -> None:
    with fw.dual_level():
        d = fw.make_dual(ember.ones(2), ember.tensor([3.0, 4.0]))
        base = ember.zeros(2, 2)
        row = base[1]
        row.copy_(d)
        assert fw.unpack_dual(base).tangent.tolist() == [[0.0, 0.0], [3.0, 4.0]]
        later = base[:, 0]  # a view made after the base became dual
        assert fw.unpack_dual(later).tangent.tolist() == [0.0, 3.0]


def test_no_grad_and_composition_with_backward() -> None:
    x = ember.tensor([1.0, 2.0, 3.0], requires_grad=True)
    v = ember.tensor([1.0, 0.0, -1.0])
    with fw.dual_level():
        d = fw.make_dual(x, v)
        out = (d * d).sum()
        assert fw.unpack_dual(out).tangent.item() == pytest.approx(2 * (1 - 3))
        out.backward()
        with ember.no_grad():
            assert fw.unpack_dual(d.sin()).tangent is not None
    assert x.grad.tolist() == [2.0, 4.0, 6.0]


def test_dropout_tangent_uses_the_same_mask() -> None:
    with fw.dual_level():
        d = fw.make_dual(ember.ones(200), ember.full((200,), 2.0))
        out = ember.nn.functional.dropout(d, 0.5, training=True)
        p, t = fw.unpack_dual(out)
        assert bool(((t - 2 * p).abs() < 1e-6).all())


def _errors(lib):
    fwl = lib.autograd.forward_ad
    x = lib.randn(3)
    cases = [lambda: fwl.make_dual(x, lib.randn(3)), lambda: fwl.exit_dual_level()]
    msgs = []
    for c in cases:
        with pytest.raises(RuntimeError) as info:
            c()
        msgs.append(str(info.value))
    with fwl.dual_level():
        for c in [lambda: fwl.enter_dual_level(), lambda: fwl.make_dual(x, lib.randn(4)),
                  lambda: fwl.make_dual(x, lib.randn(3), level=1),
                  lambda: fwl.make_dual(fwl.make_dual(x, lib.randn(3)), lib.randn(3)),
                  lambda: fwl.exit_dual_level(level=3)]:
            with pytest.raises(RuntimeError) as info:
                c()
            msgs.append(str(info.value))
        for c in [lambda: fwl.make_dual(lib.arange(3), lib.randn(3)),
                  lambda: fwl.make_dual(x, lib.arange(3))]:
            with pytest.raises(ValueError) as info:
                c()
            msgs.append(str(info.value))
        assert fwl.unpack_dual(x, level=3).tangent is None
    return msgs


def test_errors_match_torch() -> None:
    assert _errors(ember) == _errors(torch)


def test_decorator_and_manual_levels() -> None:
    @fw.dual_level()
    def f():
        return fw.unpack_dual(fw.make_dual(ember.ones(2), ember.ones(2)) * 3).tangent

    assert f().tolist() == [3.0, 3.0]
    assert fw.enter_dual_level() == 0
    fw.exit_dual_level(level=0)
    assert fw.unpack_dual(ember.ones(1)).tangent is None


def test_missing_double_backward_is_a_clear_error() -> None:
    class Once(ember.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            ctx.save_for_backward(a)
            return a * a

        @staticmethod
        @ember.autograd.function.once_differentiable
        def backward(ctx, g):
            (a,) = ctx.saved_tensors
            return 2 * a * g

    # a dispatchable function whose backward autograd cannot differentiate: the generic rule
    # (double backward over the call) refuses it rather than returning a wrong tangent
    @ember.overrides.wrap_torch_function(lambda a: (a,))
    def square(a):
        return Once.apply(a)

    with fw.dual_level():
        d = fw.make_dual(ember.ones(2), ember.ones(2))
        with pytest.raises(RuntimeError, match="forward AD through 'square'.*double backward"):
            square(d)
        with pytest.raises(NotImplementedError, match="jvp function"):
            Once.apply(d)


# ---------------------------------------------------------------- custom Functions

def _custom(lib):
    class WithJvp(lib.autograd.Function):
        @staticmethod
        def forward(ctx, a, b, k):
            ctx.save_for_forward(a, b)
            ctx.k = k
            return a * b * k

        @staticmethod
        def backward(ctx, g):
            return None, None, None

        @staticmethod
        def jvp(ctx, ta, tb, tk):
            assert tk is None
            a, b = ctx.saved_tensors
            return (ta * b + a * tb) * ctx.k

    class Dirty(lib.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            ctx.mark_dirty(a)
            return a.mul_(2)

        @staticmethod
        def backward(ctx, g):
            return g * 2

        @staticmethod
        def jvp(ctx, ta):
            return ta.mul_(2)

    class BadDirty(Dirty):
        @staticmethod
        def jvp(ctx, ta):
            return ta * 2

    class TwoOut(lib.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            return a * 2, a * 3

        @staticmethod
        def backward(ctx, g, h):
            return g * 2

        @staticmethod
        def jvp(ctx, ta):
            return ta * 2

    class NoJvp(lib.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            return a.exp()

        @staticmethod
        def backward(ctx, g):
            return g

    fwl = lib.autograd.forward_ad
    x, v, y = lib.tensor([1.0, 2.0]), lib.tensor([0.5, -1.0]), lib.tensor([3.0, 4.0])
    res = []
    with fwl.dual_level():
        d = fwl.make_dual(x, v)
        res.append(_np(fwl.unpack_dual(WithJvp.apply(d, y, 3.0)).tangent))
        res.append(_np(fwl.unpack_dual(WithJvp.apply(y, d, 3.0)).tangent))
        res.append(_np(fwl.unpack_dual(Dirty.apply(d.clone())).tangent))
        for fn, exc in [(BadDirty, RuntimeError), (TwoOut, RuntimeError), (NoJvp, NotImplementedError)]:
            with pytest.raises(exc) as info:
                fn.apply(d.clone())
            res.append(str(info.value))
        res.append(_np(fwl.unpack_dual(NoJvp.apply(x)).tangent))  # no dual input: no jvp needed
    return res


def test_custom_function_jvp_matches_torch() -> None:
    expected, got = _custom(torch), _custom(ember)
    for e, g in zip(expected, got, strict=True):
        if isinstance(e, str) or e is None:
            assert g == e
        else:
            np.testing.assert_allclose(g, e)


# ---------------------------------------------------------------- gradcheck

def test_gradcheck_forward_ad() -> None:
    a = ember.randn(3, 2, dtype=ember.float64, requires_grad=True)
    b = ember.randn(2, 4, dtype=ember.float64, requires_grad=True)
    assert ember.autograd.gradcheck(lambda x, y: (x @ y).tanh(), (a, b), check_forward_ad=True)
    assert ember.autograd.gradcheck(lambda x: x.sin().sum(0), (a,), check_forward_ad=True,
                                    check_backward_ad=False)

    class WrongJvp(ember.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2

        @staticmethod
        def jvp(ctx, t):
            return t * 3

    with pytest.raises(RuntimeError,
                       match="Jacobian computed with forward mode mismatch for output 0 with respect to input 0"):
        ember.autograd.gradcheck(WrongJvp.apply, (a,), check_forward_ad=True)
    assert not ember.autograd.gradcheck(WrongJvp.apply, (a,), check_forward_ad=True, raise_exception=False)
    assert ember.autograd.gradcheck(WrongJvp.apply, (a,), check_forward_ad=False)
    with pytest.raises(AssertionError, match="at least one of check_forward_ad or check_backward_ad"):
        ember.autograd.gradcheck(WrongJvp.apply, (a,), check_backward_ad=False)


def test_primal_and_detach_carry_no_tangent() -> None:
    with fw.dual_level():
        d = fw.make_dual(ember.ones(3), ember.tensor([1.0, 2.0, 3.0]))
        z = ember.zeros(3)
        z.add_(d)
        assert fw.unpack_dual(fw.unpack_dual(z).primal).tangent is None
        assert fw.unpack_dual(z.detach()).tangent is None
        assert fw.unpack_dual(z[1:]).tangent.tolist() == [2.0, 3.0]
        q = d.clone()
        q.zero_()
        assert fw.unpack_dual(q).tangent.tolist() == [0.0, 0.0, 0.0]
        assert fw.unpack_dual(d.floor()).tangent.tolist() == [0.0, 0.0, 0.0]


def test_forward_ad_is_not_imported_by_import_ember() -> None:
    import subprocess
    import sys

    code = "import sys, ember; print('ember.autograd.forward_ad' in sys.modules, ember.autograd.forward_ad.dual_level)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.startswith("False <class 'ember.autograd.forward_ad.dual_level'>")


# ---------------------------------------------------------------- autograd.graph

def _graph_behaviour(lib):
    g = lib.autograd.graph
    seen = []
    with g.saved_tensors_hooks(lambda x: x, lambda x: x):
        with pytest.raises(RuntimeError, match="^outer$"):
            g.disable_saved_tensors_hooks("outer").__enter__()
    with g.disable_saved_tensors_hooks("no hooks here"):
        with g.disable_saved_tensors_hooks("inner"):
            with pytest.raises(RuntimeError) as info:
                g.saved_tensors_hooks(lambda x: x, lambda x: x).__enter__()
            seen.append(str(info.value))
        with pytest.raises(RuntimeError) as info:
            g.save_on_cpu().__enter__()
        seen.append(str(info.value))
    with g.saved_tensors_hooks(lambda x: x, lambda x: x):
        seen.append("hooks again")
    x = lib.randn(2, requires_grad=True)
    y = x * 2
    _, b = y.unbind()
    for t in (x, y, b):
        edge = g.get_gradient_edge(t)
        seen.append((type(edge.node).__name__, edge.output_nr, edge.ownership_token))
    assert g.get_gradient_edge(x).node is g.get_gradient_edge(x).node
    assert g.get_gradient_edge(y).node is y.grad_fn
    with pytest.raises(RuntimeError) as info:
        g.get_gradient_edge(lib.randn(2))
    seen.append(str(info.value))
    return seen


def test_graph_additions_match_torch() -> None:
    assert _graph_behaviour(ember) == _graph_behaviour(torch)
    assert ember.autograd.graph.GradientEdge._fields == torch.autograd.graph.GradientEdge._fields
    with pytest.raises(NotImplementedError, match="^ember: .*allow_mutation_on_saved_tensors is not implemented"):
        with ember.autograd.graph.allow_mutation_on_saved_tensors():
            pass


def test_set_fwd_grad_enabled() -> None:
    with fw.dual_level():
        d = fw.make_dual(ember.ones(2), ember.ones(2))
        with fw._set_fwd_grad_enabled(False):
            assert not fw._is_fwd_grad_enabled()
            assert fw.unpack_dual(d * 2).tangent is None
        assert fw._is_fwd_grad_enabled()
        assert fw.unpack_dual(d * 2).tangent.tolist() == [2.0, 2.0]
