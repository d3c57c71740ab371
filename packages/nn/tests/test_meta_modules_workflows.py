"""Meta-device workflows of nn, side by side with PyTorch: building models without memory (containers,
the accelerate ``init_empty_weights`` idiom, ``skip_init``), inspecting them (repr, state_dict,
deepcopy), parametrizations and ``nn.init`` on meta (which must not consume the CPU generator),
``Module.to`` to and from meta, ``to_empty``, ``load_state_dict(assign=True)`` corner cases, and
a training step's shapes on meta. Each case runs the same code on ember and on torch; the outcome
compared is the result without values (or the error) plus the warnings raised."""

from __future__ import annotations

import contextlib
import copy
import warnings
from collections.abc import Callable, Iterator
from typing import Any

import ember
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("torch.nn.utils.prune")  # imported here so that L.nn.utils.prune resolves on torch too


def _describe(r: Any) -> Any:
    """A result without its values: tensors become (class, device, shape, dtype, requires_grad)."""
    if isinstance(r, dict):
        return {k: _describe(v) for k, v in r.items()}
    if isinstance(r, (tuple, list)):
        return [_describe(x) for x in r]
    if hasattr(r, "shape") and hasattr(r, "device"):
        return type(r).__name__, str(r.device), tuple(r.shape), str(r.dtype).replace("ember.", "torch."), r.requires_grad
    if hasattr(r, "named_parameters"):  # a module: what it holds
        return _describe(dict(list(r.named_parameters()) + list(r.named_buffers())))
    return repr(r).replace("ember", "torch")


def _outcome(fn: Callable[[], Any], message: bool) -> Any:
    """fn()'s described result, or its error (type, and first line when ``message``); and the warnings."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            result = _describe(fn())
        except Exception as e:  # noqa: BLE001 -- the error is the outcome compared
            first = str(e).replace("ember", "torch").splitlines()[0] if message and str(e) else ""
            result = ("raises", type(e).__name__, first)
    return result, [f"{w.category.__name__}: {str(w.message).splitlines()[0]}" for w in caught]


# ---- building ----------------------------------------------------------------------------------

def _containers(L: Any) -> Any:
    with L.device("meta"):
        layer = L.nn.TransformerEncoderLayer(8, 2, 16, batch_first=True)
        dec_layer = L.nn.TransformerDecoderLayer(8, 2, 16)
        return L.nn.ModuleDict({
            "seq": L.nn.Sequential(L.nn.Linear(3, 4), L.nn.BatchNorm1d(4)),
            "list": L.nn.ModuleList([L.nn.Conv2d(1, 2, 3), L.nn.Embedding(5, 2)]),
            "plist": L.nn.ParameterList([L.nn.Parameter(L.ones(2)), L.ones(3)]),
            "pdict": L.nn.ParameterDict({"a": L.nn.Parameter(L.ones(2, 2)), "b": L.zeros(1)}),
            "enc": L.nn.TransformerEncoder(layer, 2, enable_nested_tensor=False),
            "dec": L.nn.TransformerDecoder(dec_layer, 1, norm=L.nn.LayerNorm(8)),
            "base": L.nn.RNNBase("LSTM", 3, 4),
            "cellbase": L.nn.RNNCellBase(3, 4, True, num_chunks=3),
            "dp": L.nn.DataParallel(L.nn.Linear(2, 2)),
        })


def _stack_forward(L: Any) -> Any:
    m = _containers(L)
    x = L.ones(2, 5, 8, device="meta")
    return m["enc"](x), m["dec"](x.transpose(0, 1), x.transpose(0, 1)), m["dp"](L.ones(3, 2, device="meta"))


@contextlib.contextmanager
def _init_empty_weights(L: Any, include_buffers: bool) -> Iterator[None]:
    """accelerate's idiom: every parameter registered is moved to meta as it is registered (its
    init then runs on meta, drawing nothing), optionally every buffer too."""
    originals = L.nn.Module.register_parameter, L.nn.Module.register_buffer

    def register_parameter(module: Any, name: str, param: Any) -> None:
        originals[0](module, name, param)
        if param is not None:
            cls = type(module._parameters[name])
            extra = dict(module._parameters[name].__dict__)
            module._parameters[name] = cls(module._parameters[name].to("meta"), requires_grad=param.requires_grad)
            module._parameters[name].__dict__.update(extra)

    def register_buffer(module: Any, name: str, buffer: Any, persistent: bool = True) -> None:
        originals[1](module, name, buffer, persistent)
        if buffer is not None:
            module._buffers[name] = module._buffers[name].to("meta")

    L.nn.Module.register_parameter = register_parameter
    if include_buffers:
        L.nn.Module.register_buffer = register_buffer
    try:
        yield
    finally:
        L.nn.Module.register_parameter, L.nn.Module.register_buffer = originals


def _empty_weights(L: Any, include_buffers: bool) -> Any:
    L.manual_seed(0)
    with _init_empty_weights(L, include_buffers):
        m = L.nn.Sequential(L.nn.Linear(3, 4), L.nn.BatchNorm1d(4), L.nn.Embedding(5, 3), L.nn.LSTM(3, 2),
                            L.nn.MultiheadAttention(4, 2))
    out = _describe(m), L.rand(2).tolist()  # only the CPU buffers' fills ran: the generator is untouched
    m.to_empty(device="cpu")
    return out, _describe(m)


def _skip_init(L: Any) -> Any:
    L.manual_seed(0)
    a = L.nn.utils.skip_init(L.nn.Linear, 3, 4, bias=False)
    b = L.nn.utils.skip_init(L.nn.Conv2d, 2, 4, 3, device="cpu", dtype=L.float64)
    c = L.nn.utils.skip_init(L.nn.BatchNorm1d, 3)
    return a, b, c, L.rand(2).tolist()


def _skip_init_errors(L: Any) -> Any:
    return L.nn.utils.skip_init(L.nn.ReLU)


def _skip_init_not_a_module(L: Any) -> Any:
    return L.nn.utils.skip_init(int)


# ---- inspecting ---------------------------------------------------------------------------------

def _deepcopy(L: Any) -> Any:
    m = L.nn.Sequential(L.nn.Linear(3, 4), L.nn.BatchNorm1d(4)).to("meta")
    m[0].weight.grad = L.ones(4, 3, device="meta")
    c = copy.deepcopy(m)
    return c, c[0].weight is m[0].weight, c[0].weight.grad


def _repr(L: Any) -> Any:
    with L.device("meta"):
        m = L.nn.Sequential(L.nn.Linear(3, 4), L.nn.BatchNorm1d(4), L.nn.ParameterList([L.ones(2)]))
    return repr(m), repr(m[0].weight), repr(m[1].running_mean), str(m[1].num_batches_tracked)


def _repr_parameter_dict(L: Any) -> Any:
    return repr(L.nn.ParameterDict({"a": L.nn.Parameter(L.ones(2, 2, device="meta"))}))


def _state_dict(L: Any) -> Any:
    with L.device("meta"):
        m = L.nn.Sequential(L.nn.Linear(3, 4), L.nn.BatchNorm1d(4), L.nn.GRU(4, 2))
    return m.state_dict(), m.state_dict(keep_vars=True), list(m.state_dict().keys())


def _meta_state_roundtrip(L: Any) -> Any:
    with L.device("meta"):
        a, b = L.nn.Linear(3, 4), L.nn.Linear(3, 4)
    return b.load_state_dict(a.state_dict()), b


# ---- parametrizations, utils and init -----------------------------------------------------------

def _weight_norm(L: Any) -> Any:
    P = L.nn.utils.parametrizations
    m = P.weight_norm(L.nn.Linear(3, 4, device="meta"))
    old = L.nn.utils.weight_norm(L.nn.Conv1d(2, 3, 3, device="meta"), dim=None)
    return m, m.weight, m(L.ones(2, 3, device="meta")), old, old(L.ones(1, 2, 5, device="meta"))


def _remove_weight_norm(L: Any) -> Any:
    P = L.nn.utils.parametrize
    m = L.nn.utils.parametrizations.weight_norm(L.nn.Linear(3, 4, device="meta"))
    P.remove_parametrizations(m, "weight")
    return m


def _spectral_norm(L: Any) -> Any:
    L.manual_seed(0)
    m = L.nn.utils.parametrizations.spectral_norm(L.nn.Linear(3, 4, device="meta"))
    old = L.nn.utils.spectral_norm(L.nn.Linear(3, 4, device="meta"))
    return m, m.weight, old, old(L.ones(1, 3, device="meta")), L.rand(2).tolist()


def _orthogonal_tall(L: Any) -> Any:
    """A non-square weight: the basis is completed with random columns drawn on the weight's device."""
    L.manual_seed(0)
    m = L.nn.utils.parametrizations.orthogonal(L.nn.Linear(3, 4, device="meta"))
    return m, L.rand(2).tolist()


def _orthogonal_square(L: Any) -> Any:
    """A square weight: right_inverse asks whether it is already orthogonal, a question without data."""
    return L.nn.utils.parametrizations.orthogonal(L.nn.Linear(4, 4, device="meta"))


def _parametrized_materialise(L: Any, assign: bool) -> Any:
    """A parametrized model built on meta, then given a CPU checkpoint: the originals are what load."""
    L.manual_seed(0)
    src = L.nn.Sequential(L.nn.utils.parametrizations.weight_norm(L.nn.Linear(3, 4)),
                          L.nn.utils.parametrizations.spectral_norm(L.nn.Linear(4, 4)),
                          L.nn.utils.spectral_norm(L.nn.Linear(4, 2)))
    with L.device("meta"):
        m = L.nn.Sequential(L.nn.utils.parametrizations.weight_norm(L.nn.Linear(3, 4)),
                            L.nn.utils.parametrizations.spectral_norm(L.nn.Linear(4, 4)),
                            L.nn.utils.spectral_norm(L.nn.Linear(4, 2)))
    if not assign:
        m.to_empty(device="cpu")
    m.load_state_dict(src.state_dict(), assign=assign)
    m.eval()
    return m, [round(v, 4) for v in m(L.ones(1, 3)).flatten().tolist()]


def _parameters_to_vector(L: Any) -> Any:
    m = L.nn.Linear(3, 4, device="meta")
    v = L.nn.utils.parameters_to_vector(m.parameters())
    L.nn.utils.vector_to_parameters(L.zeros(16, device="meta", dtype=L.float64), m.parameters())
    return v, type(v.grad_fn).__name__, m


def _parameters_to_vector_mixed(L: Any) -> Any:
    return L.nn.utils.parameters_to_vector([L.nn.Parameter(L.ones(2, device="meta")), L.nn.Parameter(L.ones(2))])


def _parameters_to_vector_strided(L: Any) -> Any:
    return L.nn.utils.parameters_to_vector([L.ones(2, 3, device="meta").t()])


INITS: dict[str, Callable[[Any, Any], Any]] = {
    "uniform_": lambda L, t: L.nn.init.uniform_(t, -1, 1),
    "normal_": lambda L, t: L.nn.init.normal_(t, 0, 0.02),
    "trunc_normal_": lambda L, t: L.nn.init.trunc_normal_(t, std=0.02),
    "xavier_uniform_": lambda L, t: L.nn.init.xavier_uniform_(t),
    "xavier_normal_": lambda L, t: L.nn.init.xavier_normal_(t, gain=2.0),
    "kaiming_uniform_": lambda L, t: L.nn.init.kaiming_uniform_(t, a=5 ** 0.5),
    "kaiming_normal_": lambda L, t: L.nn.init.kaiming_normal_(t, mode="fan_out"),
    "orthogonal_": lambda L, t: L.nn.init.orthogonal_(t),
    "sparse_": lambda L, t: L.nn.init.sparse_(t, 0.5),
    "zeros_": lambda L, t: L.nn.init.zeros_(t),
    "ones_": lambda L, t: L.nn.init.ones_(t),
    "constant_": lambda L, t: L.nn.init.constant_(t, 0.3),
    "eye_": lambda L, t: L.nn.init.eye_(t),
    "dirac_": lambda L, t: L.nn.init.dirac_(t.reshape(4, 6, 1)),
    "xavier_uniform_conv": lambda L, t: L.nn.init.xavier_uniform_(L.empty(4, 2, 3, 3, device="meta")),
    "uniform_generator": lambda L, t: L.nn.init.uniform_(t, generator=L.Generator().manual_seed(3)),
}


@pytest.mark.parametrize("name", sorted(INITS))
def test_init_on_meta_matches_torch(name: str) -> None:
    """nn.init on a meta tensor writes nothing and draws nothing: the CPU generator's next numbers
    are those of a fresh seed, on both sides."""
    def run(L: Any) -> Any:
        L.manual_seed(0)
        t = L.empty(4, 6, device="meta", requires_grad=True)
        r = INITS[name](L, t)
        return r, t, L.rand(3).tolist()

    assert _outcome(lambda: run(ember), True) == _outcome(lambda: run(torch), True)


def _apply_init(L: Any) -> Any:
    L.manual_seed(0)
    with L.device("meta"):
        m = L.nn.Sequential(L.nn.Linear(3, 4), L.nn.Conv2d(1, 2, 3), L.nn.LayerNorm(2))

    def init(mod: Any) -> None:
        if isinstance(mod, (L.nn.Linear, L.nn.Conv2d)):
            L.nn.init.xavier_uniform_(mod.weight)
            L.nn.init.zeros_(mod.bias)

    m.apply(init)
    for sub in m.modules():  # the HF-style second pass: reset_parameters on meta, nothing drawn
        if hasattr(sub, "reset_parameters"):
            sub.reset_parameters()
    return m, L.rand(2).tolist()


# ---- moving -------------------------------------------------------------------------------------

def _to_meta(L: Any) -> Any:
    m = L.nn.Sequential(L.nn.Linear(3, 4), L.nn.BatchNorm1d(4))
    m[0].weight.grad = L.ones(4, 3)
    weight = m[0].weight
    r = m.to("meta")
    return r is m, m[0].weight is weight, m, m[0].weight.grad


def _to_meta_drops_parameter_extras(L: Any) -> Any:
    """Meta and CPU data cannot be swapped in place, so the module gets new plain Parameters."""
    m = L.nn.Linear(3, 4)
    m.weight.custom = 1
    m.to("meta")
    lazy = L.nn.LazyLinear(4).to("meta")
    return getattr(m.weight, "custom", None), lazy, type(lazy.weight).__name__


def _to_meta_dtype(L: Any) -> Any:
    return L.nn.BatchNorm1d(3).to(device="meta", dtype=L.float16), L.nn.Linear(3, 4).to(L.device("meta"), L.float64)


def _to_meta_like(L: Any) -> Any:
    return L.nn.Linear(3, 4).to(L.empty(0, device="meta", dtype=L.float64))


def _meta_to_cpu(L: Any) -> Any:
    return L.nn.Sequential(L.nn.BatchNorm1d(3)).to("cpu")


def _meta_to_cpu_dtype(L: Any) -> Any:
    return L.nn.Linear(3, 4, device="meta").to("cpu", L.float64)


def _meta_cpu(L: Any) -> Any:
    return L.nn.Linear(3, 4, device="meta").cpu()


def _meta_casts(L: Any) -> Any:
    m = L.nn.BatchNorm1d(3, device="meta")
    return m.double(), m.half(), m.to(L.float32), m.bfloat16(), m.float()


def _meta_to_meta(L: Any) -> Any:
    m = L.nn.Linear(3, 4, device="meta")
    return m.to("meta"), m.to(device="meta", non_blocking=True)


def _memory_format(L: Any) -> Any:
    conv = L.nn.Conv2d(2, 4, 3, device="meta").to(memory_format=L.channels_last)
    conv3 = L.nn.Conv3d(2, 4, 3).to("meta", memory_format=L.channels_last_3d)
    cpu = L.nn.Sequential(L.nn.Conv2d(2, 4, 3), L.nn.Linear(2, 2)).to(L.float64, memory_format=L.channels_last)
    return [t.stride() for t in (conv.weight, conv3.weight, cpu[0].weight, cpu[1].weight)], cpu


def _memory_format_wrong_rank(L: Any) -> Any:
    return L.nn.Conv3d(2, 4, 3, device="meta").to(memory_format=L.channels_last)


def _to_empty(L: Any) -> Any:
    with L.device("meta"):
        m = L.nn.Sequential(L.nn.Linear(3, 4), L.nn.BatchNorm1d(4))
    m[0].weight.grad = L.ones(4, 3, device="meta")
    weight = m[0].weight
    r = m.to_empty(device=L.device("cpu"))
    return r is m, m[0].weight is weight, m, m[0].weight.grad


def _to_empty_variants(L: Any) -> Any:
    shallow = L.nn.Sequential(L.nn.Linear(3, 4, device="meta"))
    shallow.to_empty(device="cpu", recurse=False)  # the Sequential holds nothing itself
    frozen = L.nn.Linear(3, 4, device="meta").requires_grad_(False).to_empty(device="cpu")
    same = L.nn.Linear(3, 4, device="meta").to_empty(device="meta")
    half = L.nn.Linear(3, 4, device="meta", dtype=L.float16).to_empty(device="cpu")
    return shallow, frozen, same, half


def _to_empty_needs_device(L: Any) -> Any:
    return L.nn.Linear(3, 4, device="meta").to_empty()


def _assign_new_param(L: Any) -> Any:
    m = L.nn.Linear(3, 4, device="meta")
    m.weight = L.nn.Parameter(L.ones(4, 3))
    return m


def _meta_buffers(L: Any) -> Any:
    with L.device("meta"):
        m = L.nn.Module()
        m.register_buffer("b", L.ones(2))
        m.register_buffer("c", L.ones(2), persistent=False)
        m.p = L.nn.Parameter(L.ones(3))
    m.to_empty(device="cpu")
    return m, list(m.state_dict())


# ---- lazy modules -------------------------------------------------------------------------------

def _lazy(L: Any) -> Any:
    with L.device("meta"):
        m = L.nn.LazyLinear(4)
        bn = L.nn.LazyBatchNorm1d()
    before = repr(m.weight), str(m.weight.device), m.has_uninitialized_params()
    m(L.ones(2, 3, device="meta"))
    bn(L.ones(2, 3, device="meta"))
    return before, m, type(m).__name__, bn, m.to_empty(device="cpu")


def _lazy_to_empty_uninitialized(L: Any) -> Any:
    return L.nn.LazyLinear(4, device="meta").to_empty(device="cpu")


def _lazy_cpu_input(L: Any) -> Any:
    m = L.nn.LazyLinear(4, device="meta")
    return m(L.ones(2, 3))


# ---- load_state_dict ----------------------------------------------------------------------------

def _assign_keeps_requires_grad(L: Any) -> Any:
    m = L.nn.Linear(3, 2, device="meta")
    frozen = L.nn.Linear(3, 2, device="meta").requires_grad_(False)
    sd = {"weight": L.ones(2, 3), "bias": L.nn.Parameter(L.zeros(2), requires_grad=False)}
    m.load_state_dict(sd, assign=True)
    frozen.load_state_dict({"weight": L.ones(2, 3), "bias": L.zeros(2)}, assign=True)
    return m, frozen, m.weight is sd["weight"], m.bias is sd["bias"]


def _assign_takes_dtypes(L: Any) -> Any:
    m = L.nn.BatchNorm1d(2, device="meta")
    m.load_state_dict({"weight": L.ones(2, dtype=L.float64), "bias": L.zeros(2, dtype=L.float16),
                       "running_mean": L.zeros(2, dtype=L.float64), "running_var": L.ones(2),
                       "num_batches_tracked": L.tensor(3, dtype=L.int32)}, assign=True)
    return m


def _assign_missing_counter(L: Any) -> Any:
    """A checkpoint from before num_batches_tracked: the meta counter stays (strict=False)."""
    m = L.nn.BatchNorm1d(2, device="meta")
    r = m.load_state_dict({"weight": L.ones(2), "bias": L.zeros(2), "running_mean": L.zeros(2),
                           "running_var": L.ones(2)}, assign=True, strict=False)
    return r, m


def _copy_missing_counter(L: Any) -> Any:
    """The same after to_empty: the module keeps its own count (0 where it was still on meta)."""
    m = L.nn.BatchNorm1d(2, device="meta").to_empty(device="cpu")
    m.num_batches_tracked.fill_(5)
    r = m.load_state_dict({"weight": L.ones(2), "bias": L.zeros(2), "running_mean": L.zeros(2),
                           "running_var": L.ones(2)})
    return r, m, m.num_batches_tracked.tolist()


def _assign_size_mismatch(L: Any) -> Any:
    return L.nn.Linear(3, 4, device="meta").load_state_dict({"weight": L.ones(4, 4), "bias": L.ones(4)}, assign=True)


def _assign_meta_into_meta(L: Any) -> Any:
    m = L.nn.Linear(3, 4, device="meta")
    return m.load_state_dict(L.nn.Linear(3, 4, device="meta").state_dict()), m


# ---- a training step's shapes on meta ----------------------------------------------------------

def _train_step(L: Any) -> Any:
    with L.device("meta"):
        m = L.nn.Sequential(L.nn.Linear(3, 4), L.nn.ReLU(), L.nn.Dropout(0.1), L.nn.Linear(4, 1))
        x = L.randn(5, 3)
    L.manual_seed(0)
    m(x).sum().backward()
    norm = L.nn.utils.clip_grad_norm_(m.parameters(), 1.0)
    L.nn.utils.clip_grad_value_(m.parameters(), 0.5)
    grads = [p.grad for p in m.parameters()]
    m.zero_grad(set_to_none=False)
    zeroed = [p.grad for p in m.parameters()]
    m.zero_grad()
    return norm, grads, zeroed, [p.grad for p in m.parameters()], L.rand(2).tolist()


def _recurrent(L: Any) -> Any:
    m = L.nn.LSTM(3, 4, device="meta")
    m.flatten_parameters()
    packed = L.nn.utils.rnn.pack_padded_sequence(L.ones(5, 2, 3, device="meta"), L.tensor([5, 3]))
    out, h = m(packed)
    padded = L.nn.utils.rnn.pad_sequence([L.ones(3, 2, device="meta"), L.ones(5, 2, device="meta")])
    return m(L.ones(5, 2, 3, device="meta")), out.data, h, padded


def _attention(L: Any) -> Any:
    mha = L.nn.MultiheadAttention(8, 2, batch_first=True, device="meta").eval()
    layer = L.nn.TransformerEncoderLayer(8, 2, 16, batch_first=True, device="meta")
    enc = L.nn.TransformerEncoder(layer, 2, enable_nested_tensor=False).eval()
    x = L.ones(2, 5, 8, device="meta")
    mask = L.nn.Transformer.generate_square_subsequent_mask(5, device="meta")
    with L.no_grad():
        return (mha(x, x, x), mha(x, x, x, need_weights=False, attn_mask=mask),
                enc(x, src_key_padding_mask=L.zeros(2, 5, dtype=L.bool, device="meta")), mask)


def _half_model(L: Any) -> Any:
    with L.device("meta"):
        m = L.nn.Sequential(L.nn.Conv2d(3, 4, 3), L.nn.BatchNorm2d(4), L.nn.ReLU(), L.nn.AdaptiveAvgPool2d(1),
                            L.nn.Flatten(), L.nn.Linear(4, 2)).half()
        return m, m(L.ones(2, 3, 8, 8, dtype=L.float16))


def _default_dtype(L: Any) -> Any:
    L.set_default_dtype(L.float64)
    try:
        with L.device("meta"):
            return L.nn.Linear(2, 3), L.nn.GRU(2, 3)
    finally:
        L.set_default_dtype(L.float32)


def _random_layers(L: Any) -> Any:
    """Layers that draw noise in training: on meta they draw nothing from the CPU generator."""
    L.manual_seed(0)
    x = L.ones(2, 3, 6, 6, device="meta", requires_grad=True)
    out = [L.nn.RReLU()(x), L.nn.functional.rrelu(x.detach().clone(), training=True, inplace=True),
           L.nn.Dropout2d()(x), L.nn.AlphaDropout(0.3)(x), L.nn.functional.gumbel_softmax(x[0, 0]),
           L.nn.FractionalMaxPool2d(2, output_size=3, return_indices=True)(x)]
    return out, L.rand(2).tolist()


def _embedding_bags(L: Any) -> Any:
    F = L.nn.functional
    w = L.ones(10, 4, device="meta", requires_grad=True)
    idx, off = L.zeros(7, dtype=L.long, device="meta"), L.zeros(3, dtype=L.long, device="meta")
    return (F.embedding_bag(idx, w, off, mode="max"), F.embedding_bag(idx, w, off, include_last_offset=True),
            F.embedding_bag(idx, w, off, mode="sum", per_sample_weights=L.ones(7, device="meta")),
            F.embedding_bag(L.zeros(2, 5, dtype=L.long), w, max_norm=1.0, padding_idx=-1),
            F.embedding_bag(idx, w.detach().half(), L.zeros(3, dtype=L.long)),
            F.embedding(L.zeros(2, 5, dtype=L.long, device="meta"), w, max_norm=1.0),
            L.nn.EmbeddingBag(10, 4, max_norm=2.0, device="meta")(L.zeros(2, 3, dtype=L.long, device="meta")))


def _embedding_bag_no_bags(L: Any) -> Any:
    w = L.ones(10, 4, device="meta")
    return L.nn.functional.embedding_bag(L.zeros(7, dtype=L.long, device="meta"), w,
                                         L.zeros(0, dtype=L.long, device="meta"), include_last_offset=True)


def _embedding_bag_bad_padding(L: Any) -> Any:
    return L.nn.functional.embedding_bag(L.zeros(2, 5, dtype=L.long), L.ones(10, 4), padding_idx=-11)


def _prune(L: Any) -> Any:
    m = L.nn.Linear(3, 4, device="meta")
    L.nn.utils.prune.identity(m, "bias")
    return m


def _fuse_and_functional_call(L: Any) -> Any:
    conv = L.nn.Conv2d(2, 4, 3, device="meta").eval()
    bn = L.nn.BatchNorm2d(4, device="meta").eval()
    fused = L.nn.utils.fusion.fuse_conv_bn_eval(conv, bn)
    m = L.nn.Linear(3, 4)
    params = {k: v.to("meta") for k, v in m.named_parameters()}
    return fused, L.func.functional_call(m, params, (L.ones(2, 3, device="meta"),)), m


# (name, case, compare the error's message too)
CASES: list[tuple[str, Callable[[Any], Any], bool]] = [
    ("containers", _containers, True),
    ("stack_forward", _stack_forward, True),
    ("init_empty_weights", lambda L: _empty_weights(L, False), True),
    ("init_empty_weights_buffers", lambda L: _empty_weights(L, True), True),
    ("skip_init", _skip_init, True),
    ("skip_init_errors", _skip_init_errors, True),
    ("skip_init_not_a_module", _skip_init_not_a_module, False),
    ("deepcopy", _deepcopy, True),
    ("repr", _repr, True),
    ("state_dict", _state_dict, True),
    ("meta_state_roundtrip", _meta_state_roundtrip, True),
    ("weight_norm", _weight_norm, True),
    ("remove_weight_norm", _remove_weight_norm, True),
    ("spectral_norm", _spectral_norm, True),
    ("orthogonal_tall", _orthogonal_tall, True),
    ("orthogonal_square", _orthogonal_square, True),
    ("parametrized_to_empty_load", lambda L: _parametrized_materialise(L, False), True),
    ("parametrized_assign", lambda L: _parametrized_materialise(L, True), True),
    ("parameters_to_vector", _parameters_to_vector, True),
    ("parameters_to_vector_mixed", _parameters_to_vector_mixed, True),
    ("parameters_to_vector_strided", _parameters_to_vector_strided, False),
    ("apply_init", _apply_init, True),
    ("to_meta", _to_meta, True),
    ("to_meta_drops_parameter_extras", _to_meta_drops_parameter_extras, True),
    ("to_meta_dtype", _to_meta_dtype, True),
    ("to_meta_like", _to_meta_like, True),
    ("meta_to_cpu", _meta_to_cpu, True),
    ("meta_to_cpu_dtype", _meta_to_cpu_dtype, True),
    ("meta_cpu", _meta_cpu, True),
    ("meta_casts", _meta_casts, True),
    ("meta_to_meta", _meta_to_meta, True),
    ("memory_format", _memory_format, True),
    ("memory_format_wrong_rank", _memory_format_wrong_rank, True),
    ("to_empty", _to_empty, True),
    ("to_empty_variants", _to_empty_variants, True),
    ("to_empty_needs_device", _to_empty_needs_device, True),
    ("assign_new_param", _assign_new_param, True),
    ("meta_buffers", _meta_buffers, True),
    ("lazy", _lazy, True),
    ("lazy_to_empty_uninitialized", _lazy_to_empty_uninitialized, False),
    ("lazy_cpu_input", _lazy_cpu_input, False),
    ("assign_keeps_requires_grad", _assign_keeps_requires_grad, True),
    ("assign_takes_dtypes", _assign_takes_dtypes, True),
    ("assign_missing_counter", _assign_missing_counter, True),
    ("copy_missing_counter", _copy_missing_counter, True),
    ("assign_size_mismatch", _assign_size_mismatch, True),
    ("assign_meta_into_meta", _assign_meta_into_meta, True),
    ("train_step", _train_step, True),
    ("recurrent", _recurrent, True),
    ("attention", _attention, True),
    ("half_model", _half_model, True),
    ("default_dtype", _default_dtype, True),
    ("random_layers", _random_layers, True),
    ("embedding_bags", _embedding_bags, True),
    ("embedding_bag_no_bags", _embedding_bag_no_bags, True),
    ("embedding_bag_bad_padding", _embedding_bag_bad_padding, True),
    ("prune", _prune, True),
    ("fuse_and_functional_call", _fuse_and_functional_call, True),
]


@pytest.mark.parametrize("name,case,message", CASES, ids=[c[0] for c in CASES])
def test_meta_workflow_matches_torch(name: str, case: Callable[[Any], Any], message: bool) -> None:
    assert _outcome(lambda: case(ember), message) == _outcome(lambda: case(torch), message)


# Gaps in ember-core (reported to its owners): Tensor.type() / typename of a meta tensor, which
# ParameterDict's repr prints, reads "torch.FloatTensor" where PyTorch has "torch.meta.FloatTensor".
def test_parameter_dict_repr_on_meta_matches_torch() -> None:
    assert _outcome(lambda: _repr_parameter_dict(ember), True) == _outcome(lambda: _repr_parameter_dict(torch), True)
