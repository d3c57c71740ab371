"""Compare's tables: the same inputs must print exactly as PyTorch prints them."""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest
from ember.utils.benchmark import Colorize, Compare, Measurement, TaskSpec
from ember_benchmark_testlib import noisy_times, rebuild


def m(median: float, *, n: int = 7, spread: float = 0.02, seed: int = 0, number: int = 100,
      **spec: object) -> Measurement:
    times = noisy_times(random.Random(seed), median, spread, n)
    fields = {"stmt": "x + y", "setup": "pass", **spec}
    return Measurement(number, [t * number for t in times], TaskSpec(**fields))  # type: ignore[arg-type]


def grid() -> list[Measurement]:
    """Two labels, two thread groups, three columns, a missing cell and a noisy one."""
    out = []
    seed = 0
    for label, base in (("add", 5e-6), ("matmul", 2e-3)):
        for threads in (1, 2):
            for row, factor in (("float", 1.0), ("int", 1.7)):
                for col, scale in (("n=10", 1.0), ("n=1000", 3.3), ("n=100000", 41.0)):
                    if (row, col, threads) == ("int", "n=1000", 2):
                        continue  # a blank cell
                    seed += 1
                    out.append(m(base * factor * scale / threads, seed=seed, spread=0.4 if seed % 7 == 0 else 0.03,
                                 label=label, sub_label=row, description=col, num_threads=threads))
    return out


def envs() -> list[Measurement]:
    """A/B rows: the env tag is written on each env's first row."""
    out = []
    for i, env in enumerate(("before", "after-change")):
        for j, stmt in enumerate(("a.sum()", "a.mean()", "a.max()")):
            out.append(m(3e-7 * (1 + i + j), seed=10 * i + j, stmt=stmt, env=env, label="reductions",
                         description="float32"))
    return out


def replicates() -> list[Measurement]:
    """Equal TaskSpecs with different block sizes are pooled before the table is built."""
    a = [m(1e-6, seed=s, number=1000 * (s + 1), label="pool", description="d") for s in range(3)]
    return [*a, m(8e-9, seed=9, stmt="x", label="pool", description="d")]


def slow() -> list[Measurement]:
    return [m(2.5, seed=1, label="slow", description="big", spread=0.3), m(12.0, seed=2, stmt="y", label="slow",
                                                                           description="big")]


CASES = {"grid": grid, "envs": envs, "replicates": replicates, "slow": slow}
OPTIONS: dict[str, Callable[[object], None]] = {
    "plain": lambda c: None,
    "trim": lambda c: c.trim_significant_figures(),  # type: ignore[attr-defined]
    "highlight": lambda c: c.highlight_warnings(),  # type: ignore[attr-defined]
    "trim+highlight": lambda c: (c.trim_significant_figures(), c.highlight_warnings()),  # type: ignore[attr-defined]
    "colorize": lambda c: c.colorize(),  # type: ignore[attr-defined]
    "colorize-rows": lambda c: c.colorize(rowwise=True),  # type: ignore[attr-defined]
    "everything": lambda c: (c.trim_significant_figures(), c.highlight_warnings(), c.colorize()),  # type: ignore[attr-defined]
}


@pytest.mark.parametrize("option", OPTIONS)
@pytest.mark.parametrize("case", CASES)
def test_layout_matches_torch(case: str, option: str) -> None:
    tb = pytest.importorskip("torch.utils.benchmark")
    results = CASES[case]()
    ours, theirs = Compare(results), tb.Compare(rebuild(tb, results))
    OPTIONS[option](ours)
    OPTIONS[option](theirs)
    assert str(ours) == str(theirs)


def test_documented_layout() -> None:
    results = [
        Measurement(1, [5.5e-6], TaskSpec("x", "pass", label="add", sub_label="float", description="n=10")),
        Measurement(1, [6.4e-6], TaskSpec("x", "pass", label="add", sub_label="float", description="n=1000")),
        Measurement(1, [5.1e-6], TaskSpec("y", "pass", label="add", sub_label="mul", description="n=10")),
        Measurement(1, [10.3e-6], TaskSpec("y", "pass", label="add", sub_label="mul", description="n=1000")),
        Measurement(1, [8.2e-6], TaskSpec("x", "pass", label="add", sub_label="float", description="n=10",
                                          num_threads=2)),
    ]
    assert str(Compare(results)) == (
        "[------------ add ------------]\n"
        "             |  n=10  |  n=1000\n"
        "1 threads: --------------------\n"
        "      float  |  5.5   |    6.4 \n"
        "      mul    |  5.1   |   10.3 \n"
        "2 threads: --------------------\n"
        "      float  |  8.2   |        \n"
        "\n"
        "Times are in microseconds (us).\n"
    )


def test_missing_description_gives_an_empty_header() -> None:
    # PyTorch fails here (len(None)); ember shows an empty column header.
    results = [m(1e-6, spread=0.001, num_threads=1), m(2e-6, spread=0.001, num_threads=2)]
    assert str(Compare(results)) == (
        "[--------  -------]\n"
        "             |     \n"
        "1 threads: --------\n"
        "      x + y  |  1.0\n"
        "2 threads: --------\n"
        "      x + y  |  2.0\n"
        "\n"
        "Times are in microseconds (us).\n"
    )


def test_colour_codes() -> None:
    results = [m(1e-6, n=1, sub_label=s, description="d") for s in ("a",)]
    results += [m(f, n=1, sub_label=s, description="d") for s, f in (("b", 1.05e-6), ("c", 1.5e-6),
                                                                      ("d", 2.5e-6), ("e", 6e-6))]
    c = Compare(results)
    c.colorize()
    text = str(c)
    # The best and anything within 100 ns of it: bold green; 1.05x is also within 100 ns here.
    assert text.count("\033[92m\033[1m") == 2
    assert "\033[2m\033[91m" in text  # >= 2x: dim red
    assert "\033[31m\033[1m" in text  # >= 5x: bold red
    assert Colorize("rowwise") is Colorize.ROWWISE


def test_extend_results_validates() -> None:
    c = Compare([])
    with pytest.raises(ValueError, match=r"Expected an instance of `Measurement`, got <class 'int'> instead\."):
        c.extend_results([1])
    c.extend_results([m(1e-6, description="d")])
    assert "x + y" in str(c)
