"""Autograd engine behaviour, compared with PyTorch where PyTorch defines it.

Graph structure and names, backward/grad options, accumulation, grad modes, the in-place
and freed-graph errors, hooks, custom Functions, anomaly detection, the functional API and
memory (saved tensors freed; flat RSS over a long loop).
"""

from __future__ import annotations

import gc
import os
import threading
import warnings
import weakref

import ember
import pytest

torch = pytest.importorskip("torch")


def both(fn):
    """Run fn(lib) for torch and ember; return both results."""
    return fn(torch), fn(ember)


def close(a, b, tol=1e-6):
    a = a.detach().numpy() if hasattr(a, "detach") else a
    b = b.detach().numpy() if hasattr(b, "detach") else b
    import numpy as np

    np.testing.assert_allclose(a, b, rtol=tol, atol=tol)


# ---------------------------------------------------------------- graph structure

def test_node_names_and_next_functions() -> None:
    def run(lib):
        a = lib.ones(3, requires_grad=True)
        b = lib.ones(3, requires_grad=True)
        y = (a * b + a).sum()
        names = [type(y.grad_fn).__name__, y.grad_fn.name()]
        add = y.grad_fn.next_functions[0][0]
        names.append(add.name())
        names += [fn.name() if fn is not None else None for fn, _ in add.next_functions]
        mul = add.next_functions[0][0]
        names += [fn.name() for fn, _ in mul.next_functions]
        return names

    t, e = both(run)
    assert t == e


def test_leaf_flags_and_requires_grad() -> None:
    a = ember.ones(2, requires_grad=True)
    b = a * 2
    assert a.is_leaf and not b.is_leaf and b.requires_grad
    assert a.grad_fn is None and b.grad_fn is b.grad_fn
    with pytest.raises(RuntimeError, match="only change requires_grad flags of leaf"):
        b.requires_grad_(False)
    with pytest.raises(RuntimeError, match="floating point"):
        ember.ones(2, dtype=ember.int64).requires_grad_()
    c = ember.ones(2) * 3
    assert not c.requires_grad and c.is_leaf


def test_backward_accumulates_and_retain_graph() -> None:
    def run(lib):
        a = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
        y = (a * a).sum()
        y.backward(retain_graph=True)
        y.backward()
        return a.grad

    t, e = both(run)
    close(t, e)


def test_backward_twice_raises() -> None:
    a = ember.tensor([1.0, 2.0], requires_grad=True)
    y = (a * a).sum()
    y.backward()
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
        y.backward()


def test_nonscalar_backward_needs_gradient() -> None:
    a = ember.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="grad can be implicitly created only for scalar outputs"):
        (a * 2).backward()
    (a * 2).backward(ember.tensor([1.0, 2.0, 3.0]))
    close(a.grad, [2.0, 4.0, 6.0])


def test_backward_of_tensor_without_grad_raises() -> None:
    with pytest.raises(RuntimeError, match="does not require grad and does not have a grad_fn"):
        ember.ones(2).sum().backward()


def test_backward_inputs_only_accumulates_there() -> None:
    def run(lib):
        a = lib.ones(2, requires_grad=True)
        b = lib.ones(2, requires_grad=True)
        (a * b * 3).sum().backward(inputs=[a])
        return a.grad, b.grad

    (ta, tb), (ea, eb) = both(run)
    close(ta, ea)
    assert tb is None and eb is None


def test_grad_function() -> None:
    def run(lib):
        x = lib.tensor([0.5, 1.5], requires_grad=True)
        y = lib.tensor([2.0, 3.0], requires_grad=True)
        z = (x.exp() * y).sum()
        gx, gy = lib.autograd.grad(z, (x, y), create_graph=True)
        (ggx,) = lib.autograd.grad(gx.sum(), x)
        return gx, gy, ggx, x.grad

    t, e = both(run)
    for a, b in zip(t[:3], e[:3], strict=True):
        close(a, b)
    assert t[3] is None and e[3] is None


def test_grad_allow_unused_and_materialize() -> None:
    x = ember.ones(2, requires_grad=True)
    y = ember.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match="appears to not have been used in the graph"):
        ember.autograd.grad((x * 2).sum(), (x, y))
    gx, gy = ember.autograd.grad((x * 2).sum(), (x, y), allow_unused=True)
    assert gy is None
    gx, gy = ember.autograd.grad((x * 2).sum(), (x, y), materialize_grads=True)
    close(gy, [0.0, 0.0])


def test_broadcast_and_dtype_of_gradients() -> None:
    def run(lib):
        a = lib.ones(3, 1, requires_grad=True)
        b = lib.ones(4, dtype=lib.float64, requires_grad=True)
        (a * b).sum().backward()
        return a.grad, b.grad

    (ta, tb), (ea, eb) = both(run)
    assert tuple(ea.shape) == tuple(ta.shape) and str(ea.dtype) == str(ta.dtype)
    assert tuple(eb.shape) == tuple(tb.shape) and str(eb.dtype) == str(tb.dtype)
    close(ta, ea)
    close(tb, eb)


def test_nonleaf_grad_warning_and_retain_grad() -> None:
    a = ember.ones(2, requires_grad=True)
    b = a * 2
    with pytest.warns(UserWarning, match="is not a leaf Tensor"):
        assert b.grad is None
    b.retain_grad()
    (b * b).sum().backward()
    close(b.grad, [4.0, 4.0])
    assert b.retains_grad
    with pytest.raises(RuntimeError, match="can't retain_grad on Tensor that has requires_grad=False"):
        ember.ones(1).retain_grad()


def test_detach_and_detach_() -> None:
    a = ember.ones(2, requires_grad=True)
    b = a * 2
    d = b.detach()
    assert not d.requires_grad and d.grad_fn is None
    d.zero_()  # in-place on a detached alias is allowed and shares memory
    close(b, [0.0, 0.0])
    c = a * 3
    c.detach_()
    assert c.is_leaf and not c.requires_grad


# ---------------------------------------------------------------- grad modes

def test_no_grad_enable_grad_set_grad_enabled() -> None:
    a = ember.ones(2, requires_grad=True)
    with ember.no_grad():
        assert not (a * 2).requires_grad
        with ember.enable_grad():
            assert (a * 2).requires_grad
    assert ember.is_grad_enabled()
    with ember.set_grad_enabled(False):
        assert not (a * 2).requires_grad
    assert (a * 2).requires_grad
    ember.set_grad_enabled(False)
    assert not ember.is_grad_enabled()
    ember.set_grad_enabled(True)

    @ember.no_grad()
    def f(x):
        return x * 2

    @ember.no_grad
    def g(x):
        return x * 2

    assert not f(a).requires_grad and not g(a).requires_grad


def test_inference_mode() -> None:
    a = ember.ones(2, requires_grad=True)
    with ember.inference_mode():
        assert not (a * 2).requires_grad
        assert ember.is_inference_mode_enabled()
    assert not ember.is_inference_mode_enabled()

    @ember.inference_mode()
    def f(x):
        return x * 2

    assert not f(a).requires_grad


def test_grad_mode_is_thread_local() -> None:
    seen = []
    with ember.no_grad():
        t = threading.Thread(target=lambda: seen.append(ember.is_grad_enabled()))
        t.start()
        t.join()
    assert seen == [True]


# ---------------------------------------------------------------- in-place checks

def test_inplace_on_leaf_raises() -> None:
    a = ember.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad is being used in an in-place"):
        a.add_(1)
    with pytest.raises(RuntimeError, match="a view of a leaf Variable that requires grad"):
        a[0].mul_(2)
    with ember.no_grad():
        a.add_(1)  # fine without grad mode (optimizer updates)
    close(a, [2.0, 2.0])


def test_modified_saved_tensor_raises_at_backward() -> None:
    a = ember.ones(3, requires_grad=True)
    b = a * 2
    c = b * b  # saves b
    b.add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        c.sum().backward()


def test_inplace_on_nonleaf_and_view_gradients() -> None:
    def run(lib):
        a = lib.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
        b = a * 2
        b.mul_(3)
        b[1:3].add_(lib.tensor([5.0, 6.0]))
        c = b * a
        c.sum().backward()
        return a.grad, b.grad_fn.name()

    (tg, tname), (eg, ename) = both(run)
    close(tg, eg)
    assert tname == ename == "torch::autograd::CopySlices"


def test_setitem_with_grad() -> None:
    def run(lib):
        w = lib.tensor([1.0, 2.0], requires_grad=True)
        out = lib.zeros(4)
        out[1:3] = w * 3
        (out * lib.arange(4.0)).sum().backward()
        return w.grad

    t, e = both(run)
    close(t, e)


def test_out_with_requires_grad_raises() -> None:
    a = ember.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match="don't support automatic differentiation"):
        ember.add(a, a, out=ember.empty(2))


# ---------------------------------------------------------------- hooks

def test_tensor_hooks_leaf_and_nonleaf() -> None:
    def run(lib):
        a = lib.ones(2, requires_grad=True)
        b = a * 3
        calls = []
        b.register_hook(lambda g: calls.append(("b", g.tolist())) or g * 2)
        h = a.register_hook(lambda g: calls.append(("a", g.tolist())))
        b.sum().backward()
        h.remove()
        b2 = a * 3
        b2.sum().backward()
        return calls, a.grad

    (tc, tg), (ec, eg) = both(run)
    assert tc == ec
    close(tg, eg)


def test_hook_on_tensor_without_grad_raises() -> None:
    with pytest.raises(RuntimeError, match="cannot register a hook on a tensor that doesn't require gradient"):
        ember.ones(2).register_hook(lambda g: g)


def test_node_hooks_and_post_accumulate() -> None:
    def run(lib):
        a = lib.ones(2, requires_grad=True)
        y = a * 2
        log = []
        y.grad_fn.register_prehook(lambda go: log.append(("pre", go[0].tolist())))
        y.grad_fn.register_hook(lambda gi, go: log.append(("post", gi[0].tolist(), go[0].tolist())))
        a.register_post_accumulate_grad_hook(lambda t: log.append(("acc", t.grad.tolist())))
        y.sum().backward()
        return log

    t, e = both(run)
    assert t == e


def test_saved_tensors_hooks() -> None:
    packed = []

    def pack(t):
        packed.append(tuple(t.shape))
        return t * 1  # a copy keyed off the original

    def unpack(t):
        return t

    a = ember.tensor([1.0, 2.0], requires_grad=True)
    with ember.autograd.graph.saved_tensors_hooks(pack, unpack):
        y = (a * a).sum()
    y.backward()
    close(a.grad, [2.0, 4.0])
    assert packed  # the mul saved its inputs through the hook
    with ember.autograd.graph.save_on_cpu():
        z = (a.exp()).sum()
    z.backward()


# ---------------------------------------------------------------- custom Function

class Cube(ember.autograd.Function):
    @staticmethod
    def forward(ctx, x, k):
        ctx.save_for_backward(x)
        ctx.k = k
        return x ** 3 * k

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        assert ctx.needs_input_grad == (True, False)
        return g * 3 * x ** 2 * ctx.k, None


class CubeSetup(ember.autograd.Function):
    @staticmethod
    def forward(x):
        return x ** 3

    @staticmethod
    def setup_context(ctx, inputs, output):
        (x,) = inputs
        ctx.save_for_backward(x)

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * 3 * x ** 2


def test_custom_function() -> None:
    x = ember.tensor([1.0, 2.0], requires_grad=True)
    y = Cube.apply(x, 2.0)
    assert type(y.grad_fn).__name__ == "CubeBackward"
    assert type(y.grad_fn.next_functions[0][0]).__name__ == "AccumulateGrad"
    y.sum().backward()
    close(x.grad, [6.0, 24.0])
    x.grad = None
    CubeSetup.apply(x).sum().backward()
    close(x.grad, [3.0, 12.0])
    xd = ember.tensor([0.7, 1.3], dtype=ember.float64, requires_grad=True)
    assert ember.autograd.gradcheck(lambda t: Cube.apply(t, 1.5), (xd,))
    assert ember.autograd.gradgradcheck(lambda t: Cube.apply(t, 1.5), (xd,))


def test_custom_function_dirty_nondiff_materialize() -> None:
    class AddOneInplace(ember.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            x.add_(1)
            ctx.mark_dirty(x)
            return x

        @staticmethod
        def backward(ctx, g):
            return g

    class SortLike(ember.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            idx = ember.arange(x.shape[0])
            ctx.mark_non_differentiable(idx)
            ctx.set_materialize_grads(False)
            return x * 1, idx

        @staticmethod
        def backward(ctx, g, gidx):
            assert gidx is None
            return g

    a = ember.ones(2, requires_grad=True)
    b = a * 1
    c = AddOneInplace.apply(b)
    assert c is b and c.grad_fn.name() == "AddOneInplaceBackward"
    c.sum().backward()
    close(a.grad, [1.0, 1.0])
    v, i = SortLike.apply(a)
    assert not i.requires_grad
    v.sum().backward()


def test_custom_function_wrong_gradient_count() -> None:
    class Bad(ember.autograd.Function):
        @staticmethod
        def forward(ctx, x, y):
            return x + y

        @staticmethod
        def backward(ctx, g):
            return g

    a = ember.ones(1, requires_grad=True)
    with pytest.raises(RuntimeError, match="returned an incorrect number of gradients"):
        Bad.apply(a, a).sum().backward()


def test_once_differentiable() -> None:
    class F(ember.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        @ember.autograd.function.once_differentiable
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return 2 * x * g

    x = ember.tensor([3.0], requires_grad=True)
    (g,) = ember.autograd.grad(F.apply(x).sum(), x, create_graph=True)
    assert not g.requires_grad


# ---------------------------------------------------------------- tools

def test_detect_anomaly_names_forward_op() -> None:
    x = ember.tensor([0.0], requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with ember.autograd.detect_anomaly():
            y = x.sqrt() * 0  # d/dx sqrt at 0 is inf; inf * 0 = nan
            with pytest.raises(RuntimeError, match="returned nan values"):
                with warnings.catch_warnings(record=True):
                    warnings.simplefilter("always")
                    y.backward()
    assert not ember.is_anomaly_enabled()


def test_functional_api() -> None:
    def f(x):
        return (x ** 2).sum() * x[0]

    x0 = [1.0, 2.0, 3.0]
    tj = torch.autograd.functional.jacobian(lambda x: x ** 2 * x[0], torch.tensor(x0))
    ej = ember.autograd.functional.jacobian(lambda x: x ** 2 * x[0], ember.tensor(x0))
    close(tj, ej)
    th = torch.autograd.functional.hessian(f, torch.tensor(x0))
    eh = ember.autograd.functional.hessian(f, ember.tensor(x0))
    close(th, eh)
    v = [0.5, -1.0, 2.0]
    for name in ("vjp", "jvp", "hvp", "vhp"):
        fn = f if name in ("hvp", "vhp") else (lambda x: x ** 2 * x[0])
        to = getattr(torch.autograd.functional, name)(fn, torch.tensor(x0), torch.tensor(v))
        eo = getattr(ember.autograd.functional, name)(fn, ember.tensor(x0), ember.tensor(v))
        close(to[1], eo[1])


def test_gradcheck_detects_wrong_gradient() -> None:
    class Wrong(ember.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g * 3

    x = ember.tensor([1.0, 2.0], dtype=ember.float64, requires_grad=True)
    assert not ember.autograd.gradcheck(Wrong.apply, (x,), raise_exception=False)
    with pytest.raises(RuntimeError, match="Jacobian mismatch"):
        ember.autograd.gradcheck(Wrong.apply, (x,))


# ---------------------------------------------------------------- memory

def test_saved_tensors_freed_after_backward() -> None:
    a = ember.ones(1000, requires_grad=True)
    b = a * 2
    ref = weakref.ref(b)  # the python object; the saved copy is what matters below
    c = (b * b).sum()
    del b
    c.backward()
    gc.collect()
    assert ref() is None


def test_graph_cycle_through_hook_is_collected() -> None:
    a = ember.ones(3, requires_grad=True)
    b = a * 2
    b.register_hook(lambda g: b)  # noqa: F821  non-leaf: tensor -> grad_fn -> hook -> tensor
    rb = weakref.ref(b)
    c = ember.ones(3, requires_grad=True)
    c.register_hook(lambda g: c)  # noqa: F821  leaf: tensor -> hook -> tensor
    rc = weakref.ref(c)
    del b, c
    gc.collect()
    assert rb() is None and rc() is None


def _rss_kb() -> int:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


@pytest.mark.skipif(bool(os.environ.get("EMBER_SANITIZED")),
                    reason="ASan's quarantine holds freed memory: RSS grows by design under the sanitizer")
def test_long_training_loop_keeps_rss_flat() -> None:
    w = ember.randn(64, 64, requires_grad=True)
    x = ember.randn(32, 64)

    def step() -> None:
        y = (x @ w).tanh()
        loss = (y * y).mean()
        loss.backward()
        with ember.no_grad():
            w.sub_(w.grad * 0.01)
        w.grad = None

    for _ in range(500):  # warm the allocator caches
        step()
    before = _rss_kb()
    for _ in range(10_000):
        step()
    growth_mb = (_rss_kb() - before) / 1024
    assert growth_mb < 4, f"RSS grew {growth_mb:.1f} MB over 10,000 steps"



def test_double_backward_through_inplace_on_view() -> None:
    def run(lib):
        x = lib.tensor([0.5, 1.5, -2.0, 3.0], requires_grad=True)
        y = x * 1.0
        y[1:3].mul_(x[1:3])
        y[0] = x[3] * x[0]
        loss = (y ** 2 * x).sum()
        (g,) = lib.autograd.grad(loss, x, create_graph=True)
        (gg,) = lib.autograd.grad((g * lib.tensor([1.0, -1.0, 2.0, 0.5])).sum(), x)
        return g, gg

    (tg, tgg), (eg, egg) = both(run)
    close(tg, eg, 1e-5)
    close(tgg, egg, 1e-5)


def test_nonzero_as_tuple_and_one_argument_where() -> None:
    def run(lib):
        x = lib.tensor([[0.0, 1.0], [2.0, 0.0]])
        return lib.nonzero(x, as_tuple=True), x.nonzero(as_tuple=True), lib.where(x > 0)

    t, e = both(run)
    for tt, ee in zip(t, e, strict=True):
        assert [a.tolist() for a in tt] == [a.tolist() for a in ee]
