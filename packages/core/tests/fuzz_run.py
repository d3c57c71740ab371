"""The long fuzz run (`nox -s fuzz -- --minutes N`): the CI fuzz properties, randomized and
for as long as asked, printing every failing call.

Rounds over every target -- each ops.yaml op (test_fuzz_ops.py) and each public
``nn.functional`` function (nn's test_fuzz_functional.py) -- in random order, with more
examples each round and shrinking on (a failure is reported as the smallest variation of the
valid seed call that still fails).  A target that failed is not run again; the summary lists
one failing call per target, grouped by the kind of disagreement.

    python packages/core/tests/fuzz_run.py --minutes 30 [--seed S] [--only topk,gelu]
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import random
import sys
import time
from pathlib import Path
from typing import Any

TESTS = Path(__file__).resolve().parent
NN_TESTS = TESTS.parents[1] / "nn" / "tests"


def _load(name: str, path: Path) -> Any:
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, path)
        assert spec is not None and spec.loader is not None
        mod = importlib.util.module_from_spec(spec)
        sys.modules[name] = mod
        spec.loader.exec_module(mod)
    return sys.modules[name]


def targets(only: set[str] | None) -> list[tuple[str, str, Any]]:
    """(kind, name, strategy factory) for every op and functional."""
    fp = _load("fuzz_props", TESTS / "fuzz_props.py")
    out = [("op", key, fp.op_calls) for key in sorted(fp.SEEDS)]
    try:
        fn = _load("test_fuzz_functional", NN_TESTS / "test_fuzz_functional.py")
        out += [("F", name, fn.calls) for name in sorted(fn.SEEDS)]
    except Exception as exc:  # noqa: BLE001 - ember-nn missing or broken: the ops alone
        print(f"(nn.functional skipped: {exc})")
    return [t for t in out if only is None or t[1] in only]


def run_one(fp: Any, factory: Any, name: str, examples: int, seed: int) -> str | None:
    """One property for ``examples`` random calls; the failure text, or None."""
    from hypothesis import HealthCheck, Phase, given, settings
    from hypothesis import seed as hseed
    from hypothesis import strategies as st

    @hseed(seed)
    @settings(max_examples=examples, deadline=None, database=None,
              phases=[Phase.generate, Phase.shrink], suppress_health_check=list(HealthCheck),
              report_multiple_bugs=False)
    @given(data=st.data())
    def prop(data: Any) -> None:
        fp.check(fp.worker(), data.draw(factory(name), label="call"))

    try:
        prop()
    except Exception as exc:  # noqa: BLE001 - any failure is a finding to print
        # a flaky failure's own text names no call: its first sub-exception holds it
        subs = [e for e in getattr(exc, "exceptions", ()) if isinstance(e, Exception)]
        detail = "".join(f"\n  first run: {type(e).__name__}: {e}" for e in subs[:1])
        return f"{type(exc).__name__}: {exc}{detail}"
    return None


def kind_of(text: str) -> str:
    for needle, kind in (("crashed or hung", "crash or hang"),
                         ("exception type differs", "exception type"),
                         ("but ember returned", "ember accepts what torch rejects"),
                         ("torch succeeded but ember raised", "ember rejects what torch accepts"),
                         ("values differ", "values"), ("dtype", "dtype"), ("shape", "shape")):
        if needle in text:
            return kind
    return "other"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--minutes", type=float, default=10.0)
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--only", default=None, help="comma-separated op keys / functional names")
    ap.add_argument("--timeout", type=float, default=5.0, help="seconds per call")
    ap.add_argument("--verbose", action="store_true", help="print each failure's whole text")
    args = ap.parse_args()
    os.environ["EMBER_FUZZ_TIMEOUT"] = str(args.timeout)
    seed = args.seed if args.seed is not None else random.randrange(2**32)
    rng = random.Random(seed)
    fp = _load("fuzz_props", TESTS / "fuzz_props.py")
    todo = targets(set(args.only.split(",")) if args.only else None)
    deadline = time.monotonic() + args.minutes * 60
    print(f"fuzzing {len(todo)} targets for {args.minutes:g} min (seed {seed})", flush=True)
    failures: dict[str, str] = {}
    calls, rnd = 0, 0
    while time.monotonic() < deadline and len(failures) < len(todo):
        rnd += 1
        examples = 25 * rnd
        order = [t for t in todo if f"{t[0]} {t[1]}" not in failures]
        rng.shuffle(order)
        for kind, name, factory in order:
            if time.monotonic() >= deadline:
                break
            fp.worker().reset()
            text = run_one(fp, factory, name, examples, rng.randrange(2**32))
            calls += examples if text is None else 0
            if text is not None:
                failures[f"{kind} {name}"] = text
                first = text.splitlines()[0][:160]
                print(f"FAIL {kind} {name}: {first}", flush=True)
        if rnd % 5 == 0:
            print(f"round {rnd} done: {len(failures)} failing targets", flush=True)
    fp.worker().stop()
    by_kind: dict[str, list[str]] = {}
    for name, text in sorted(failures.items()):
        by_kind.setdefault(kind_of(text), []).append(name)
    print(f"\n=== {len(failures)} of {len(todo)} targets fail (seed {seed}, {rnd} rounds, "
          f"~{calls} passing calls) ===")
    for kind, names in sorted(by_kind.items()):
        print(f"\n--- {kind} ({len(names)}) ---")
        for name in names:
            lines = [ln for ln in failures[name].splitlines() if ln.strip()]
            call = next((ln.strip() for ln in lines if ln.strip().startswith("call:")), "")
            print(f"[{name}] {lines[0][:300]}\n    {call[:600]}")
            if args.verbose:
                print("\n".join(lines[1:]))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
