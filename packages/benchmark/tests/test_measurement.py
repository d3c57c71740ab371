"""Measurement statistics (hand-computed values), reprs and helpers; PyTorch as the oracle."""

from __future__ import annotations

import math
import pickle
import random

import pytest
from ember.utils.benchmark import (
    Measurement,
    TaskSpec,
    ordered_unique,
    select_unit,
    trim_sigfig,
    unit_to_english,
)
from ember_benchmark_testlib import noisy_times, rebuild


def spec(**kw: object) -> TaskSpec:
    return TaskSpec(**{"stmt": "x + y", "setup": "pass", **kw})  # type: ignore[arg-type]


def test_statistics_hand_computed() -> None:
    # Per-run times 1, 2, 3, 10 us (blocks of 10 runs).
    m = Measurement(10, [10e-6, 20e-6, 30e-6, 100e-6], spec())
    assert m.times == pytest.approx([1e-6, 2e-6, 3e-6, 10e-6])
    assert m.median == pytest.approx(2.5e-6)  # between 2 and 3
    assert m.mean == pytest.approx(4e-6)
    # Linear interpolation: q25 at rank 0.75 -> 1.75; q75 at rank 2.25 -> 3 + 0.25 * 7 = 4.75.
    assert m.iqr == pytest.approx(3e-6)
    assert m.has_warnings  # 3 / 2.5 = 120% >= 25%
    assert m.significant_figures == 1
    assert not m.meets_confidence()


def test_single_sample() -> None:
    m = Measurement(1000, [5e-3], spec())
    assert m.median == pytest.approx(5e-6) and m.mean == pytest.approx(5e-6)
    assert m.iqr == 0
    assert not m.has_warnings
    # std 0: the 25 ns floor gives log10(5 us / 25 ns) = 2.3 -> 2 figures.
    assert m.significant_figures == 2


def test_significant_figures_hand_computed() -> None:
    # Sorted [1.0, 1.1, 1.2, 1.3] ms; interquartile slice [1:3] = [1.1, 1.2] ms: population std 0.05 ms,
    # half-width 1.645 * 0.05 / sqrt(2) = 0.0582 ms; log10(1.15 / 0.0582) = 1.3 -> 1.
    assert Measurement(1, [1.0e-3, 1.1e-3, 1.2e-3, 1.3e-3], spec()).significant_figures == 1
    # Constant 1 ms: the 25 ns floor, log10(40000) = 4.6 -> clamped to 4.
    assert Measurement(1, [1e-3] * 8, spec()).significant_figures == 4


@pytest.mark.parametrize(
    ("times", "warning"),
    [
        ([1.0, 1.0, 1.0, 1.0, 1.0], None),  # IQR 0
        # median 1.2, IQR 1.2 - 1.0: 16.7% (>= 10%)
        ([1.0, 1.0, 1.2, 1.2, 1.2], "  WARNING: Interquartile range is 16.7% of the median measurement.\n"
                                    "           This could indicate system fluctuation."),
        ([1.0, 1.0, 1.5, 1.5, 1.5], "  WARNING: Interquartile range is 33.3% of the median measurement.\n"
                                    "           This suggests significant environmental influence."),
    ],
)
def test_warnings(times: list[float], warning: str | None) -> None:
    m = Measurement(1, [t * 1e-6 for t in times], spec())
    assert m.has_warnings == (warning is not None)
    if warning is not None:
        assert repr(m).endswith(warning)


def test_taskspec_fields_forwarded_and_picklable() -> None:
    m = Measurement(10, [1e-5, 2e-5], spec(label="add", sub_label="float", description="n=1", env="A",
                                            num_threads=2), metadata={"k": 1})
    assert (m.label, m.sub_label, m.description, m.env, m.num_threads) == ("add", "float", "n=1", "A", 2)
    assert m.stmt == "x + y" and m.setup == "pass"
    assert m.title == "add: float" and m.as_row_name == "float"
    copy = pickle.loads(pickle.dumps(m))
    assert copy == m and copy.median == m.median and copy.metadata == {"k": 1}
    assert Measurement(1, [1.0], spec()).env is None
    with pytest.raises(AttributeError):
        m.no_such_attribute  # noqa: B018


def test_titles() -> None:
    assert spec().title == "x + y"
    assert spec(sub_label="s").title == "x + y: s"
    assert spec(stmt="a = 1\nb = 2").title == "stmt:\n  a = 1\n  b = 2"
    assert spec(stmt="a = 1\nb = 2", sub_label="s").title == "stmt: (s)\n  a = 1\n  b = 2"
    assert Measurement(1, [1.0], spec(stmt="")).as_row_name == "[Unknown]"


def test_merge_groups_equal_taskspecs() -> None:
    a1 = Measurement(10, [1e-5, 2e-5], spec(label="a"), metadata={"x": 1})
    b = Measurement(1, [3e-6], spec(label="b"))
    a2 = Measurement(100, [4e-4], spec(label="a"))
    merged = Measurement.merge([a1, b, a2])
    assert [m.label for m in merged] == ["a", "b"]
    assert merged[0].number_per_run == 1 and merged[0].metadata is None
    assert merged[0].raw_times == pytest.approx([1e-6, 2e-6, 4e-6])
    assert merged[1].raw_times == pytest.approx([3e-6])


def test_units_and_rounding_helpers() -> None:
    assert select_unit(5e-9) == ("ns", 1e-9)
    assert select_unit(1e-6) == ("us", 1e-6)
    assert select_unit(999e-6) == ("us", 1e-6)
    assert select_unit(2e-3) == ("ms", 1e-3)
    assert select_unit(3.0) == ("s", 1)
    assert select_unit(5e-11) == ("s", 1)  # below ns: PyTorch falls back to seconds too
    assert [unit_to_english(u) for u in ("ns", "us", "ms", "s")] == [
        "nanosecond", "microsecond", "millisecond", "second"]
    assert trim_sigfig(3.14159, 2) == pytest.approx(3.1)
    assert trim_sigfig(123456.0, 3) == pytest.approx(123000.0)
    assert trim_sigfig(0.0012345, 2) == pytest.approx(0.0012)
    with pytest.raises(AssertionError, match="must be an integer"):
        trim_sigfig(1.0, 1.5)  # type: ignore[arg-type]
    assert ordered_unique([3, 1, 3, 2, 1]) == [3, 1, 2]


def _reprs_without_address(ms: list[object]) -> list[str]:
    return [repr(m).split("\n", 1)[1] for m in ms]


def test_repr_matches_torch() -> None:
    tb = pytest.importorskip("torch.utils.benchmark")
    rng = random.Random(0)
    cases = [
        Measurement(10000, [1e-5], spec()),
        Measurement(1000, [t * 1000 for t in noisy_times(rng, 5.7e-6, 0.02, 2)], spec(label="add", sub_label="f")),
        Measurement(100, [t * 100 for t in noisy_times(rng, 3e-3, 0.05, 51)],
                    spec(label="mm", description="n=512", setup="a = torch.ones(3)", num_threads=2)),
        Measurement(1, noisy_times(rng, 2e-8, 0.6, 9), spec(stmt="a = 1\nb = 2", setup="x = 1\ny = 2",
                                                           sub_label="s", description="d")),
        Measurement(1, noisy_times(rng, 4.2, 0.15, 7), spec(stmt="", label="slow")),
    ]
    ours = _reprs_without_address(cases)
    theirs = _reprs_without_address(rebuild(tb, cases))
    assert ours == theirs
    assert repr(cases[0]).startswith("<ember.utils.benchmark.utils.common.Measurement object at 0x")
    assert "1 measurement, 10000 runs , 1 thread" in ours[0]


def test_statistics_match_torch_on_random_data() -> None:
    tb = pytest.importorskip("torch.utils.benchmark")
    rng = random.Random(1)
    for n in (1, 2, 3, 4, 5, 8, 13, 50):
        for median, spread in ((3e-8, 0.3), (2e-6, 0.01), (7e-4, 0.12), (1.5, 0.05)):
            raw = noisy_times(rng, median, spread, n)
            ours = Measurement(7, [t * 7 for t in raw], spec())
            (theirs,) = rebuild(tb, [ours])
            assert ours.median == pytest.approx(theirs.median, rel=1e-12)
            assert ours.mean == pytest.approx(theirs.mean, rel=1e-12)
            assert math.isclose(ours.iqr, theirs.iqr, rel_tol=1e-9, abs_tol=1e-18)
            assert ours.significant_figures == theirs.significant_figures
            assert ours.has_warnings == theirs.has_warnings
