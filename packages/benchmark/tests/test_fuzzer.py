"""Fuzzer: reproducible draws, constraints, aliases; parameters and layouts match PyTorch's for a seed."""

from __future__ import annotations

import ember
import pytest
from ember.utils.benchmark import FuzzedParameter, FuzzedTensor, Fuzzer, ParameterAlias

np = pytest.importorskip("numpy")


def make(lib: object, seed: int = 3) -> object:
    """The same fuzzer for ember's or torch's benchmark module."""
    return lib.Fuzzer(  # type: ignore[attr-defined]
        parameters=[
            lib.FuzzedParameter("k0", 16, 1024, "loguniform"),  # type: ignore[attr-defined]
            lib.FuzzedParameter("k1", 1, 8, "uniform"),  # type: ignore[attr-defined]
            lib.FuzzedParameter("d", 1, 3, "uniform"),  # type: ignore[attr-defined]
            [lib.FuzzedParameter("s", 0.5, 1.5, "uniform")],  # type: ignore[attr-defined]  (nested lists flatten)
        ],
        tensors=[lib.FuzzedTensor("x", size=("k0", "k1", "k1"), steps=(1, 2, 1), dim_parameter="d",  # type: ignore[attr-defined]
                                  max_elements=4096)],
        constraints=[lambda p: p["k0"] % 2 == 0],
        seed=seed,
    )


def summary(cases: list[tuple[dict, dict, dict]]) -> list[tuple]:
    return [
        (params, p["x"]["numel"], list(p["x"]["order"]), p["x"]["steps"], p["x"]["is_contiguous"],
         tuple(t["x"].shape), tuple(t["x"].stride()))
        for t, p, params in cases
    ]


def test_same_seed_same_cases_and_constraints_hold() -> None:
    a = list(make(__import__("ember.utils.benchmark", fromlist=["x"])).take(20))  # type: ignore[attr-defined]
    b = list(make(__import__("ember.utils.benchmark", fromlist=["x"])).take(20))  # type: ignore[attr-defined]
    assert summary(a) == summary(b)
    for (ta, pa, params), (tb, _, _) in zip(a, b, strict=True):
        x = ta["x"]
        assert params["k0"] % 2 == 0 and 16 <= params["k0"] <= 1024 and 1 <= params["k1"] <= 8
        assert 0.5 <= params["s"] <= 1.5
        assert x.numel() <= 4096 and x.dim() == params["d"]
        assert pa["x"]["dtype"] == "torch.float32" and pa["x"]["is_contiguous"] == x.is_contiguous()
        assert ember.equal(x, tb["x"])  # the same values too: the seed also seeds ember's RNG


def test_parameters_and_layouts_match_torch() -> None:
    tb = pytest.importorskip("torch.utils.benchmark")
    import ember.utils.benchmark as eb

    ours = summary(list(make(eb, seed=11).take(15)))  # type: ignore[attr-defined]
    theirs = summary(list(make(tb, seed=11).take(15)))  # type: ignore[attr-defined]
    assert ours == theirs


def test_layout_controls() -> None:
    always_permuted = Fuzzer(
        parameters=[FuzzedParameter("n", 2, 6, "uniform")],
        tensors=[FuzzedTensor("x", size=("n", "n", 3), probability_contiguous=0.0)],
        seed=0,
    )
    for t, p, _ in always_permuted.take(5):
        assert list(p["x"]["order"]) != [0, 1, 2] and not t["x"].is_contiguous()
    contiguous = Fuzzer([FuzzedParameter("n", 2, 6, "uniform")],
                        [FuzzedTensor("x", size=("n", 4), steps=(1, 3), probability_contiguous=1.0)], seed=0)
    for t, p, params in contiguous.take(3):
        assert tuple(t["x"].shape) == (params["n"], 4) and p["x"]["steps"] == (1, 3)
        assert t["x"].stride() == (12, 3)  # sliced every 3rd column out of a contiguous (n, 12)


def test_alias_custom_distribution_and_strict() -> None:
    f = Fuzzer(
        parameters=[
            FuzzedParameter("x_len", 4, 64, distribution="uniform"),
            FuzzedParameter("y_len", distribution={1: 0.5, ParameterAlias("x_len"): 0.5}),
        ],
        tensors=[FuzzedTensor("x", size=("x_len",)), FuzzedTensor("y", size=("y_len",))],
        constraints=[lambda p: p["x_len"] > 10],
        seed=5,
    )
    cases = list(f.take(20))
    assert {params["y_len"] == params["x_len"] for _, _, params in cases} == {True, False}
    assert {params["y_len"] for _, _, params in cases if params["y_len"] != params["x_len"]} == {1}
    assert all(params["x_len"] > 10 for _, _, params in cases)
    assert 0 < f.rejection_rate < 1
    assert repr(ParameterAlias("x_len")) == "ParameterAlias[alias_to: x_len]"


def test_strict_parameters_are_not_resampled() -> None:
    def fuzzer(strict: bool, seed: int) -> Fuzzer:
        return Fuzzer([FuzzedParameter("z", 1, 10, "uniform", strict=strict), FuzzedParameter("w", 1, 2, "uniform")],
                      [], constraints=[lambda p: p["z"] > 5], seed=seed)

    outcomes = []
    for seed in range(8):
        assert next(fuzzer(False, seed).take(1))[2]["z"] > 5  # resampled until the constraint holds
        try:
            outcomes.append(next(fuzzer(True, seed).take(1))[2]["z"])
        except ValueError:  # a first draw <= 5 is kept, so the constraint can never hold
            outcomes.append(None)
    assert None in outcomes and any(z is not None and z > 5 for z in outcomes)


def test_integer_tensors() -> None:
    f = Fuzzer([FuzzedParameter("n", 8, 16, "uniform")], [FuzzedTensor("i", size=("n",), dtype=ember.int32)], seed=1)
    for t, p, _ in f.take(3):
        values = t["i"].tolist()
        assert t["i"].dtype == ember.int32 and p["i"]["dtype"] == "torch.int32"
        assert all(1 <= v < 127 for v in values)


def test_validation() -> None:
    with pytest.raises(AssertionError, match="^Unknown distribution: foo$"):
        FuzzedParameter("a", 1, 2, distribution="foo")
    with pytest.raises(AssertionError, match="Probabilities cannot be negative"):
        FuzzedParameter("a", distribution={1: -0.5, 2: 1.5})
    with pytest.raises(AssertionError, match="Distribution is not normalized"):
        FuzzedParameter("a", distribution={1: 0.5, 2: 0.4})
    with pytest.raises(AssertionError, match="'minval' must be None"):
        FuzzedParameter("a", 1, None, distribution={1: 1.0})
    FuzzedParameter("a", distribution={1: 0.25, 2: 0.75})  # normalized: accepted (PyTorch 2.13 rejects it)
    with pytest.raises(ValueError, match="Duplicate names in parameters and tensors"):
        Fuzzer([FuzzedParameter("x", 1, 2, "uniform")], [FuzzedTensor("x", size=(1,))])
    cycle = Fuzzer([FuzzedParameter("a", distribution={ParameterAlias("b"): 1.0}),
                    FuzzedParameter("b", distribution={ParameterAlias("a"): 1.0})], [], seed=0)
    with pytest.raises(ValueError, match="ParameterAlias cycle detected"):
        next(cycle.take(1))
    impossible = Fuzzer([FuzzedParameter("n", 1, 2, "uniform")], [], constraints=[lambda p: False], seed=0)
    with pytest.raises(ValueError, match="Failed to generate a set of valid parameters"):
        next(impossible.take(1))
