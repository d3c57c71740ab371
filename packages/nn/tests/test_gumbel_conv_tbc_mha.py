"""F.gumbel_softmax, conv_tbc, Tensor.prelu and F.multi_head_attention_forward against PyTorch
(forward and backward on the same inputs, errors)."""

from __future__ import annotations

import ember
import numpy as np
import pytest
from _nn_testutil import same_error

torch = pytest.importorskip("torch")



@pytest.mark.parametrize("hard", [False, True])
@pytest.mark.parametrize("dim", [-1, 0])
def test_gumbel_softmax(hard: bool, dim: int) -> None:
    logits = ember.randn(6, 5, requires_grad=True)
    y = ember.nn.functional.gumbel_softmax(logits, tau=0.7, hard=hard, dim=dim)
    assert tuple(y.shape) == (6, 5)
    np.testing.assert_allclose(y.sum(dim).detach().numpy(), 1.0, rtol=1e-6)
    if hard:
        vals = set(np.unique(y.detach().numpy()).tolist())
        assert vals <= {0.0, 1.0}
    # the gradient is the soft sample's (straight-through for hard)
    w = ember.randn(6, 5)
    (y * w).sum().backward()
    assert logits.grad is not None and np.isfinite(logits.grad.numpy()).all()


def test_gumbel_softmax_matches_torch_given_noise() -> None:
    """With the same seed, ember's exponential_ stream gives PyTorch's sample, or at least the
    same formula on the same noise."""
    x = np.random.default_rng(0).standard_normal((4, 7))
    torch.manual_seed(3)
    ember.manual_seed(3)
    a = torch.nn.functional.gumbel_softmax(torch.tensor(x), tau=0.5, hard=True)
    b = ember.nn.functional.gumbel_softmax(ember.tensor(x), tau=0.5, hard=True)
    assert tuple(a.shape) == tuple(b.shape)
    if np.allclose(a.numpy(), b.numpy()):
        return
    torch.manual_seed(3)
    g = -torch.empty(4, 7, dtype=torch.float64).exponential_().log()
    want = ((torch.tensor(x) + g) / 0.5).softmax(-1)
    got = ((ember.tensor(x) + ember.tensor(g.numpy())) / 0.5).softmax(-1)
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-12)


def test_gumbel_softmax_eps_warns() -> None:
    with pytest.warns(UserWarning, match="deprecated"):
        ember.nn.functional.gumbel_softmax(ember.zeros(2, 3), eps=1e-5)


@pytest.mark.parametrize("pad", [0, 1, 3])
def test_conv_tbc(pad: int) -> None:
    rng = np.random.default_rng(1)
    x, w, b = rng.standard_normal((7, 2, 3)), rng.standard_normal((3, 3, 4)), rng.standard_normal(4)
    res = []
    for lib in (torch, ember):
        ts = [lib.tensor(a, requires_grad=True) for a in (x, w, b)]
        y = lib.conv_tbc(*ts, pad)
        assert lib.nn.functional.conv_tbc is lib.conv_tbc or lib is ember
        (y * lib.tensor(np.linspace(-1, 1, y.numel()).reshape(tuple(y.shape)))).sum().backward()
        res.append([y.detach().numpy()] + [t.grad.numpy() for t in ts])
    for a, b_ in zip(res[1], res[0]):
        np.testing.assert_allclose(a, b_, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("args", [
    ((7, 2), (3, 3, 4), (4,)),
    ((7, 2, 3), (3, 3), (4,)),
    ((7, 2, 3), (3, 3, 4), (4, 1)),
    ((7, 2, 2), (3, 3, 4), (4,)),
    ((7, 2, 3), (3, 3, 4), (5,)),
])
def test_conv_tbc_errors(args: tuple) -> None:
    same_error(lambda: ember.conv_tbc(*(ember.zeros(s) for s in args)),
                lambda: torch.conv_tbc(*(torch.zeros(s) for s in args)))


def test_tensor_prelu() -> None:
    x = np.random.default_rng(2).standard_normal((2, 3, 4))
    w = np.array([0.1, 0.2, 0.3])
    np.testing.assert_allclose(ember.tensor(x).prelu(ember.tensor(w)).numpy(),
                               torch.tensor(x).prelu(torch.tensor(w)).numpy())


def _mha_args(lib, rng_seed: int, L: int = 4, S: int = 5, N: int = 2, E: int = 8, kdim: int | None = None):
    rng = np.random.default_rng(rng_seed)
    kd = kdim or E
    arr = {
        "q": rng.standard_normal((L, N, E)), "k": rng.standard_normal((S, N, kd)),
        "v": rng.standard_normal((S, N, kd)), "w": rng.standard_normal((3 * E, E)) * 0.3,
        "b": rng.standard_normal(3 * E) * 0.1, "ow": rng.standard_normal((E, E)) * 0.3,
        "ob": rng.standard_normal(E) * 0.1, "bk": rng.standard_normal((1, 1, E)),
        "bv": rng.standard_normal((1, 1, E)), "qw": rng.standard_normal((E, E)) * 0.3,
        "kw": rng.standard_normal((E, kd)) * 0.3, "vw": rng.standard_normal((E, kd)) * 0.3,
    }
    return {k: lib.tensor(v, requires_grad=True) for k, v in arr.items()}


@pytest.mark.parametrize("need_weights", [True, False])
@pytest.mark.parametrize("variant", ["plain", "bias_kv_zero", "masks", "separate", "unbatched", "unaveraged",
                                     "bool_masks", "causal"])
def test_multi_head_attention_forward(need_weights: bool, variant: str) -> None:
    outs = []
    for lib in (torch, ember):
        a = _mha_args(lib, 5, kdim=6 if variant == "separate" else None)
        F = lib.nn.functional
        kw: dict = {"need_weights": need_weights}
        bias_k = bias_v = None
        zero = False
        q, k, v = a["q"], a["k"], a["v"]
        if variant == "bias_kv_zero":
            bias_k, bias_v, zero = a["bk"], a["bv"], True
        if variant == "masks":
            kw["attn_mask"] = lib.tensor(np.random.default_rng(6).standard_normal((4, 5)))
            kw["key_padding_mask"] = lib.tensor(np.array([[0.0, 0, 0, -1e9, 0], [0, -1e9, 0, 0, 0]]))
        if variant == "bool_masks":
            kw["attn_mask"] = lib.tensor(np.triu(np.ones((4, 5), dtype=bool), 2))
            kw["key_padding_mask"] = lib.tensor(np.array([[0, 0, 0, 1, 0], [0, 1, 0, 0, 0]], dtype=bool))
        if variant == "causal":
            q = k = v = a["q"]
            kw["attn_mask"] = lib.tensor(np.triu(np.ones((4, 4), dtype=bool), 1))
            kw["is_causal"] = True
        if variant == "separate":
            kw.update(use_separate_proj_weight=True, q_proj_weight=a["qw"], k_proj_weight=a["kw"],
                      v_proj_weight=a["vw"])
        if variant == "unbatched":
            q, k, v = q[:, 0], k[:, 0], v[:, 0]
        if variant == "unaveraged":
            kw["average_attn_weights"] = False
        out, w = F.multi_head_attention_forward(q, k, v, 8, 2, a["w"], a["b"], bias_k, bias_v, zero, 0.0, a["ow"],
                                                a["ob"], **kw)
        loss = (out * lib.tensor(np.linspace(-1, 1, out.numel()).reshape(tuple(out.shape)))).sum()
        if w is not None:
            loss = loss + (w * w).sum()
        loss.backward()
        grads = [a[n].grad.numpy() if a[n].grad is not None else None for n in ("q", "w", "b", "ow")]
        outs.append((out.detach().numpy(), None if w is None else w.detach().numpy(), grads))
    (ot, wt, gt), (oe, we, ge) = outs
    np.testing.assert_allclose(oe, ot, rtol=1e-9, atol=1e-10)
    assert (wt is None) == (we is None)
    if wt is not None:
        np.testing.assert_allclose(we, wt, rtol=1e-9, atol=1e-10)
    for x, y in zip(ge, gt):
        assert (x is None) == (y is None)
        if x is not None:
            np.testing.assert_allclose(x, y, rtol=1e-8, atol=1e-10)


@pytest.mark.parametrize("case", ["embed", "heads", "kv_shape", "mask2d", "mask3d", "kpm", "q4d", "no_in_proj"])
def test_multi_head_attention_forward_errors(case: str) -> None:
    def call(lib):
        a = _mha_args(lib, 7)
        F = lib.nn.functional
        q, k, v = a["q"].detach(), a["k"].detach(), a["v"].detach()
        args = [q, k, v, 8, 2, a["w"], a["b"], None, None, False, 0.0, a["ow"], a["ob"]]
        kw: dict = {}
        if case == "embed":
            args[3] = 6
        if case == "heads":
            args[4] = 3
        if case == "kv_shape":
            args[2] = v[:3]
        if case == "mask2d":
            kw["attn_mask"] = lib.zeros(3, 5)
        if case == "mask3d":
            kw["attn_mask"] = lib.zeros(3, 4, 5)
        if case == "kpm":
            kw["key_padding_mask"] = lib.zeros(2, 4)
        if case == "q4d":
            args[0] = q.unsqueeze(0)
        if case == "no_in_proj":
            args[5] = None
        return lambda: F.multi_head_attention_forward(*args, **kw)

    same_error(call(ember), call(torch))


def test_module_uses_functional() -> None:
    torch.manual_seed(0)
    tm = torch.nn.MultiheadAttention(8, 2, batch_first=True, add_bias_kv=True)
    em = ember.nn.MultiheadAttention(8, 2, batch_first=True, add_bias_kv=True)
    em.load_state_dict({k: ember.tensor(v.detach().numpy()) for k, v in tm.state_dict().items()})
    x = np.random.default_rng(8).standard_normal((2, 4, 8)).astype(np.float32)
    a, aw = tm(torch.tensor(x), torch.tensor(x), torch.tensor(x))
    b, bw = em(ember.tensor(x), ember.tensor(x), ember.tensor(x))
    np.testing.assert_allclose(b.detach().numpy(), a.detach().numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(bw.detach().numpy(), aw.detach().numpy(), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("args", [((0, 2, 3), (2, 3, 4), 1), ((0, 2, 3), (3, 3, 4), 2), ((0, 2, 3), (2, 3, 4), 0),
                                  ((0, 0, 3), (1, 3, 4), 0), ((1, 2, 3), (2, 3, 4), 0), ((1, 2, 3), (3, 3, 4), 0),
                                  ((5, 2, 3), (0, 3, 4), 1)])
def test_conv_tbc_empty_time(args: tuple) -> None:
    # no time step: aten's result is the bias at each output step (or its negative-size error)
    x, w, pad = args
    outs = []
    for lib in (torch, ember):
        try:
            outs.append(lib.conv_tbc(lib.zeros(x), lib.ones(w), lib.arange(4.0), pad))
        except RuntimeError as e:
            outs.append(type(e))
    if isinstance(outs[0], type):
        assert outs[1] is outs[0]
    else:
        assert tuple(outs[1].shape) == tuple(outs[0].shape)
        np.testing.assert_array_equal(outs[1].numpy(), outs[0].numpy())


def test_conv_tbc_bias_of_another_dtype() -> None:
    # aten copies the bias into the output, cast to input's dtype
    outs = [lib.conv_tbc(lib.ones(5, 2, 3), lib.ones(2, 3, 4), lib.arange(4.0, dtype=lib.float64), 1)
            for lib in (torch, ember)]
    assert str(outs[1].dtype) == str(outs[0].dtype)
    np.testing.assert_array_equal(outs[1].numpy(), outs[0].numpy())
