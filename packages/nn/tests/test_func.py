"""ember.func against torch.func: functional_call on modules (tied weights, strict), the derivative
transforms (grad, vjp, jvp, jacrev, jacfwd, hessian, linearize) by value, their composition, and vmap."""

from __future__ import annotations

import subprocess
import sys
from typing import Any

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import ember  # noqa: E402
import ember.nn as nn  # noqa: E402
from ember import func  # noqa: E402

tf = torch.func
# torch.func's forward mode warns from inside PyTorch (its own torch.jit / fx use): not ember's concern
pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning:torch", "ignore:Attempted to insert a get_attr")


def pair(*shape: int, seed: int = 0) -> tuple[Any, Any]:
    t = torch.randn(shape, generator=torch.Generator().manual_seed(seed), dtype=torch.float64)
    return ember.from_numpy(t.numpy().copy()), t


def close(e: Any, t: Any, atol: float = 1e-9) -> None:
    """Same pytree of tensors on both sides."""
    if isinstance(t, dict):
        assert isinstance(e, dict) and list(e) == list(t)
        for k in t:
            close(e[k], t[k], atol)
    elif isinstance(t, (tuple, list)):
        assert type(e) is type(t) and len(e) == len(t), (type(e), type(t))
        for a, b in zip(e, t, strict=True):
            close(a, b, atol)
    else:
        assert tuple(e.shape) == tuple(t.shape), (e.shape, t.shape)
        np.testing.assert_allclose(e.detach().numpy(), t.detach().numpy(), rtol=1e-7, atol=atol)


def mlp_pair(seed: int = 0) -> tuple[Any, Any]:
    torch.manual_seed(seed)
    tm = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Tanh(), torch.nn.Linear(4, 2)).double()
    em = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 2)).double()
    em.load_state_dict({k: ember.from_numpy(v.detach().numpy().copy()) for k, v in tm.state_dict().items()})
    return em, tm


def params_pair(tm: Any, scale: float = 0.5) -> tuple[dict, dict]:
    t = {k: (v.detach() * scale + 0.1) for k, v in tm.named_parameters()}
    return {k: ember.from_numpy(v.numpy().copy()) for k, v in t.items()}, t


# ------------------------------------------------------------------ functional_call


def test_functional_call_linear_and_sequential() -> None:
    em, tm = mlp_pair()
    pe, pt = params_pair(tm)
    xe, xt = pair(5, 3)
    close(func.functional_call(em, pe, (xe,)), tf.functional_call(tm, pt, (xt,)))
    close(func.functional_call(em, pe, xe), tf.functional_call(tm, pt, xt))  # a single positional argument
    close(em(xe), tm(xt))  # the module's own parameters are back
    lin_e, lin_t = em[0], tm[0]
    only_w = {"weight": pe["0.weight"]}
    close(func.functional_call(lin_e, only_w, (xe,)), tf.functional_call(lin_t, {"weight": pt["0.weight"]}, (xt,)))
    # a tuple of dicts, and kwargs
    split_e = ({k: v for k, v in pe.items() if k.startswith("0.")}, {k: v for k, v in pe.items() if k.startswith("2.")})
    split_t = ({k: v for k, v in pt.items() if k.startswith("0.")}, {k: v for k, v in pt.items() if k.startswith("2.")})
    close(func.functional_call(em, split_e, (), {"input": xe}), tf.functional_call(tm, split_t, (), {"input": xt}))


def test_functional_call_gradient_flows_to_the_given_tensors() -> None:
    em, tm = mlp_pair()
    pe, pt = params_pair(tm)
    for v in (*pe.values(), *pt.values()):
        v.requires_grad_(True)
    xe, xt = pair(5, 3)
    ge = ember.autograd.grad(func.functional_call(em, pe, xe).pow(2).sum(), list(pe.values()))
    gt = torch.autograd.grad(tf.functional_call(tm, pt, xt).pow(2).sum(), list(pt.values()))
    close(list(ge), list(gt))
    assert all(p.grad is None for p in em.parameters())


class Tied(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.a = nn.Linear(3, 3, bias=False)
        self.b = nn.Linear(3, 3, bias=False)
        self.b.weight = self.a.weight

    def forward(self, x: Any) -> Any:
        return self.b(self.a(x))


class TiedT(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.a = torch.nn.Linear(3, 3, bias=False)
        self.b = torch.nn.Linear(3, 3, bias=False)
        self.b.weight = self.a.weight

    def forward(self, x: Any) -> Any:
        return self.b(self.a(x))


@pytest.mark.parametrize("tie_weights", [True, False])
def test_functional_call_tied_weights(tie_weights: bool) -> None:
    em, tm = Tied().double(), TiedT().double()
    w = torch.randn(3, 3, dtype=torch.float64)
    tm.a.weight.data.copy_(w)
    em.a.weight.data.copy_(ember.from_numpy(w.numpy().copy()))
    new_e, new_t = pair(3, 3, seed=1)
    xe, xt = pair(2, 3, seed=2)
    ye = func.functional_call(em, {"a.weight": new_e}, xe, tie_weights=tie_weights)
    yt = tf.functional_call(tm, {"a.weight": new_t}, xt, tie_weights=tie_weights)
    close(ye, yt)
    with pytest.raises(ValueError) as t_err:
        tf.functional_call(tm, {"a.weight": new_t, "b.weight": new_t * 2}, xt)
    with pytest.raises(ValueError) as e_err:
        func.functional_call(em, {"a.weight": new_e, "b.weight": new_e * 2}, xe)
    assert str(e_err.value) == str(t_err.value)


def test_functional_call_strict_and_errors() -> None:
    em, tm = mlp_pair()
    pe, pt = params_pair(tm)
    xe, xt = pair(2, 3)
    del pe["2.bias"], pt["2.bias"]
    pe["extra"], pt["extra"] = ember.ones(1), torch.ones(1)
    for args_e, args_t, kw in (((em, pe, xe), (tm, pt, xt), {"strict": True}),
                                ((em, ({"0.weight": pe["0.weight"]}, {"0.weight": pe["0.weight"]}), xe),
                                 (tm, ({"0.weight": pt["0.weight"]}, {"0.weight": pt["0.weight"]}), xt), {}),
                                ((em, [1], xe), (tm, [1], xt), {}),
                                ((em, 3, xe), (tm, 3, xt), {})):
        with pytest.raises((RuntimeError, ValueError)) as t_err:
            tf.functional_call(*args_t, **kw)
        with pytest.raises(t_err.type) as e_err:
            func.functional_call(*args_e, **kw)
        assert str(e_err.value) == str(t_err.value)


# ------------------------------------------------------------------ grad, vjp, jvp


def f_both(lib: Any) -> Any:
    return lambda x, y: (lib.sin(x) * y).sum() + (x ** 3).sum() * y.sum()


def test_grad_values_argnums_and_aux() -> None:
    (xe, xt), (ye, yt) = pair(4), pair(4, seed=1)
    fe, ft = f_both(ember), f_both(torch)
    close(func.grad(fe)(xe, ye), tf.grad(ft)(xt, yt))
    close(func.grad(fe, argnums=1)(xe, ye), tf.grad(ft, argnums=1)(xt, yt))
    close(func.grad(fe, argnums=(0, 1))(xe, ye), tf.grad(ft, argnums=(0, 1))(xt, yt))
    close(func.grad(fe, argnums=-1)(xe, ye), tf.grad(ft, argnums=-1)(xt, yt))
    ge, (ve, ae) = func.grad_and_value(lambda x: (fe(x, ye), x.cos()), has_aux=True)(xe)
    gt, (vt, at) = tf.grad_and_value(lambda x: (ft(x, yt), x.cos()), has_aux=True)(xt)
    close((ge, ve, ae), (gt, vt, at))
    assert not ge.requires_grad and not ve.requires_grad and not ae.requires_grad
    g_aux = func.grad(lambda x: (fe(x, ye), {"c": x * 2}), has_aux=True)(xe)
    close(g_aux, tf.grad(lambda x: (ft(x, yt), {"c": x * 2}), has_aux=True)(xt))
    close(func.grad(lambda x: x.sum() * 0 + 1.0 + ember.zeros(()))(xe), torch.zeros(4, dtype=torch.float64))


def test_grad_over_pytrees_and_modules() -> None:
    # the usual torch.func pattern: the gradient of a loss with respect to a dict of parameters
    em, tm = mlp_pair()
    pe, pt = params_pair(tm)
    xe, xt = pair(5, 3)

    def loss_e(p: dict, x: Any) -> Any:
        return func.functional_call(em, p, (x,)).pow(2).mean()

    def loss_t(p: dict, x: Any) -> Any:
        return tf.functional_call(tm, p, (x,)).pow(2).mean()

    close(func.grad(loss_e)(pe, xe), tf.grad(loss_t)(pt, xt))
    # per-sample gradients: vmap over the batch of a per-example gradient
    per_e = func.vmap(func.grad(lambda p, x: loss_e(p, x.unsqueeze(0))), in_dims=(None, 0))(pe, xe)
    per_t = tf.vmap(tf.grad(lambda p, x: loss_t(p, x.unsqueeze(0))), in_dims=(None, 0))(pt, xt)
    close(per_e, per_t)


@pytest.mark.parametrize("bad", ["vector", "aux", "argnums"])
def test_grad_errors(bad: str) -> None:
    xe, xt = pair(3)
    if bad == "vector":
        fn_e, fn_t, kw = (lambda x: x * 2), (lambda x: x * 2), {}
    elif bad == "aux":
        fn_e, fn_t, kw = (lambda x: x.sum()), (lambda x: x.sum()), {"has_aux": True}
    else:
        fn_e, fn_t, kw = (lambda x: x.sum()), (lambda x: x.sum()), {"argnums": 2}
    with pytest.raises(RuntimeError) as t_err:
        tf.grad(fn_t, **kw)(xt)
    with pytest.raises(RuntimeError) as e_err:
        func.grad(fn_e, **kw)(xe)
    assert str(e_err.value) == str(t_err.value)


def test_vjp() -> None:
    (xe, xt), (ye, yt) = pair(3, 2), pair(3, 2, seed=1)
    out_e, fn_e = func.vjp(lambda a, b: (a * b.exp(), (a @ b.T).sum()), xe, ye)
    out_t, fn_t = tf.vjp(lambda a, b: (a * b.exp(), (a @ b.T).sum()), xt, yt)
    close(out_e, out_t)
    (ce, ct), (de, dt) = pair(3, 2, seed=5), (ember.tensor(2.0, dtype=ember.float64), torch.tensor(2.0).double())
    for _ in range(2):  # vjp_fn can be called again
        close(fn_e((ce, de)), fn_t((ct, dt)))
    out_e, fn_e, aux_e = func.vjp(lambda a: (a.sin(), a.cos()), xe, has_aux=True)
    out_t, fn_t, aux_t = tf.vjp(lambda a: (a.sin(), a.cos()), xt, has_aux=True)
    close((out_e, fn_e(ce), aux_e), (out_t, fn_t(ct), aux_t))
    with pytest.raises(RuntimeError, match="pytree structure of cotangents"):
        fn_e((ce, ce))


def test_jvp_and_linearize() -> None:
    (xe, xt), (ve, vt) = pair(4), pair(4, seed=1)
    (ye, yt), (we, wt) = pair(4, seed=2), pair(4, seed=3)

    def g(lib: Any) -> Any:
        return lambda a, b: (lib.tanh(a) * b, (a * a * b).sum())

    close(func.jvp(g(ember), (xe, ye), (ve, we)), tf.jvp(g(torch), (xt, yt), (vt, wt)))
    close(func.jvp(lambda a: (a.exp(), a), (xe,), (ve,), has_aux=True),
          tf.jvp(lambda a: (a.exp(), a), (xt,), (vt,), has_aux=True))
    close(func.jvp(lambda a: a * 0 + 1, (xe,), (ve,)), tf.jvp(lambda a: a * 0 + 1, (xt,), (vt,)))
    out_e, jfn_e = func.linearize(lambda a: a.sin() * a, xe)
    out_t, jfn_t = tf.linearize(lambda a: a.sin() * a, xt)
    close((out_e, jfn_e(ve)), (out_t, jfn_t(vt)))
    with pytest.raises(RuntimeError, match="Expected primals to be a tuple"):
        func.jvp(lambda a: a, xe, (ve,))


# ------------------------------------------------------------------ Jacobians and Hessians


@pytest.mark.parametrize("api", ["jacrev", "jacfwd"])
def test_jacobians(api: str) -> None:
    (xe, xt), (ye, yt) = pair(3), pair(2, 3, seed=1)

    def h(lib: Any) -> Any:
        return lambda a, b: (lib.sin(a) * b, (a.exp() * b).sum(0))

    close(getattr(func, api)(h(ember))(xe, ye), getattr(tf, api)(h(torch))(xt, yt))
    close(getattr(func, api)(h(ember), argnums=(0, 1))(xe, ye), getattr(tf, api)(h(torch), argnums=(0, 1))(xt, yt))
    close(getattr(func, api)(lambda a: (a.cos(), a * 3), has_aux=True)(xe),
          getattr(tf, api)(lambda a: (a.cos(), a * 3), has_aux=True)(xt))
    close(getattr(func, api)(lambda a: {"s": a.sum(), "v": a ** 2})(xe),
          getattr(tf, api)(lambda a: {"s": a.sum(), "v": a ** 2})(xt))


def test_hessian() -> None:
    (xe, xt), (ye, yt) = pair(3), pair(3, seed=1)
    fe, ft = f_both(ember), f_both(torch)
    close(func.hessian(fe)(xe, ye), tf.hessian(ft)(xt, yt))
    close(func.hessian(fe, argnums=(0, 1))(xe, ye), tf.hessian(ft, argnums=(0, 1))(xt, yt))
    em, tm = mlp_pair()
    he = func.hessian(lambda x: func.functional_call(em, dict(em.named_parameters()), x).pow(2).sum())(xe[:3])
    ht = tf.hessian(lambda x: tf.functional_call(tm, dict(tm.named_parameters()), x).pow(2).sum())(xt[:3])
    close(he, ht)
    assert not he.requires_grad


def test_composition_with_autograd() -> None:
    xe, xt = pair(3)
    close(func.grad(lambda a: func.grad(lambda b: (b.sin() * b).sum())(a)[0])(xe),
          tf.grad(lambda a: tf.grad(lambda b: (b.sin() * b).sum())(a)[0])(xt))
    close(func.grad(lambda a: func.grad(lambda b: (a * b ** 2).sum())(a).sum())(xe),
          tf.grad(lambda a: tf.grad(lambda b: (a * b ** 2).sum())(a).sum())(xt))
    # on an input that requires grad, the result stays differentiable by ordinary autograd
    xe2, xt2 = xe.clone().requires_grad_(), xt.clone().requires_grad_()
    ge, gt = func.grad(lambda a: (a ** 3).sum())(xe2), tf.grad(lambda a: (a ** 3).sum())(xt2)
    assert ge.requires_grad and gt.requires_grad
    close(ember.autograd.grad(ge.sum(), xe2)[0], torch.autograd.grad(gt.sum(), xt2)[0])
    with ember.no_grad():  # transforms still differentiate under an outer no_grad
        close(func.grad(lambda a: (a ** 3).sum())(xe), tf.grad(lambda a: (a ** 3).sum())(xt))


# ------------------------------------------------------------------ vmap


def test_vmap_dims() -> None:
    (xe, xt), (ye, yt) = pair(4, 3), pair(3, 5, seed=1)
    close(func.vmap(lambda a: a.sum())(xe), tf.vmap(lambda a: a.sum())(xt))
    close(func.vmap(lambda a, b: a @ b, in_dims=(0, None))(xe, ye),
          tf.vmap(lambda a, b: a @ b, in_dims=(0, None))(xt, yt))
    close(func.vmap(lambda a, b: a * b, in_dims=(1, 0))(xe, ye[:, :4]),
          tf.vmap(lambda a, b: a * b, in_dims=(1, 0))(xt, yt[:, :4]))
    close(func.vmap(lambda a: (a * 2, a.sum()), out_dims=(1, 0))(xe),
          tf.vmap(lambda a: (a * 2, a.sum()), out_dims=(1, 0))(xt))
    close(func.vmap(lambda a, b: a + b, in_dims=(-1, None), out_dims=-1)(xe, xe[:, 0]),
          tf.vmap(lambda a, b: a + b, in_dims=(-1, None), out_dims=-1)(xt, xt[:, 0]))
    close(func.vmap(func.vmap(lambda a: a.exp() * 2))(xe), tf.vmap(tf.vmap(lambda a: a.exp() * 2))(xt))
    close(func.vmap(lambda d: d["p"] * d["q"].sum())({"p": xe, "q": xe.cos()}),
          tf.vmap(lambda d: d["p"] * d["q"].sum())({"p": xt, "q": xt.cos()}))
    e_const = func.vmap(lambda a, b: (a * 2, b), in_dims=(0, None), out_dims=(0, None))(xe, ye)
    t_const = tf.vmap(lambda a, b: (a * 2, b), in_dims=(0, None), out_dims=(0, None))(xt, yt)
    close(e_const, t_const)


def test_vmap_is_differentiable() -> None:
    xe, xt = pair(4, 3)
    close(func.grad(lambda a: func.vmap(lambda r: r.sin().sum() ** 2)(a).sum())(xe),
          tf.grad(lambda a: tf.vmap(lambda r: r.sin().sum() ** 2)(a).sum())(xt))


def test_vmap_randomness() -> None:
    x = ember.zeros(4, 3)
    with pytest.raises(RuntimeError, match="randomness error mode"):
        func.vmap(lambda a: a + ember.rand(3))(x)
    same = func.vmap(lambda a: a + ember.rand(3), randomness="same")(x)
    assert bool((same == same[0]).all())
    diff = func.vmap(lambda a: a + ember.rand(3), randomness="different")(x)
    assert not bool((diff == diff[0]).all())
    with pytest.raises(RuntimeError, match="Only allowed values for randomness"):
        func.vmap(lambda a: a, randomness="nope")


def test_vmap_errors() -> None:
    xe, xt = pair(4, 3)
    ye, yt = pair(5, 3)
    for call in (lambda m, a, b: m.vmap(lambda p, q: p + q)(a, b),  # different batch sizes
                 lambda m, a, b: m.vmap(lambda p: p, in_dims=(None,))(a),  # nothing mapped
                 lambda m, a, b: m.vmap(lambda p: p, in_dims=2)(a),  # dim out of range
                 lambda m, a, b: m.vmap(lambda p, n: p, in_dims=(0, 0))(a, 3)):  # a non-tensor mapped
        with pytest.raises(ValueError):
            call(tf, xt, yt)
        with pytest.raises(ValueError):
            call(func, xe, ye)
    with pytest.raises(ValueError, match="out_dim is None"):
        func.vmap(lambda p: p * 2, out_dims=None)(xe)


def test_stack_module_state_ensemble() -> None:
    models = [mlp_pair(seed) for seed in range(3)]
    pe, be = func.stack_module_state([m[0] for m in models])
    pt, bt = tf.stack_module_state([m[1] for m in models])
    close(pe, pt)
    assert all(v.requires_grad for v in pe.values())
    xe, xt = pair(5, 3)
    base_e, base_t = models[0][0], models[0][1]
    ye = func.vmap(lambda p, b, x: func.functional_call(base_e, (p, b), (x,)), in_dims=(0, 0, None))(pe, be, xe)
    yt = tf.vmap(lambda p, b, x: tf.functional_call(base_t, (p, b), (x,)), in_dims=(0, 0, None))(pt, bt, xt)
    close(ye, yt)


def test_func_is_a_lazy_attribute() -> None:
    code = ("import sys, ember; print('ember.func' in sys.modules); ember.func.grad; "
            "print('ember.func' in sys.modules, 'ember.nn' in sys.modules)")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert r.stdout.split() == ["False", "True", "False"], r.stdout + r.stderr
