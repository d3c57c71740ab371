"""Absurd sizes, counts and offsets raise PyTorch's exception, never crash or hang (issue 16, point 1).

Every case runs in one worker subprocess per library (a crash there is reported as that case's
failure, and the worker restarts after it), with a time limit per case. ember's exception type
must be PyTorch's (or both succeed with the same shape); an allocation that cannot be served is
ember.OutOfMemoryError, a RuntimeError.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

pytest.importorskip("torch")

# Each entry is an expression over `torch` (ember or PyTorch) and `F` (its nn.functional).
CASES = [
    # factories: element or byte counts past int64
    "torch.ones(3, 2**62)", "torch.zeros(3, 2**62)", "torch.empty(3, 2**62)", "torch.full((3, 2**62), 1.0)",
    "torch.rand(3, 2**62)", "torch.randn(3, 2**62)", "torch.randint(0, 5, (3, 2**62))",
    "torch.zeros(2**62, 2**62)", "torch.ones(2**61, dtype=torch.float64)", "torch.empty(0, 2**62, 2**62)",
    "torch.ones(2).new_ones(3, 2**62)", "torch.ones(2).new_zeros((3, 2**62))",
    "torch.ones(2).new_empty((3, 2**62))", "torch.ones(2).new_full((3, 2**62), 1.)",
    "torch.zeros_like(torch.ones(2)).new_empty(2**62, 4)",
    "torch.empty_strided((2**62, 4), (1, 2**62))", "torch.empty_strided((2, 2**62), (2**62, 2))",
    "torch.eye(2**36, dtype=torch.float16)", "torch.eye(2**63 - 1)", "torch.eye(3, 2**62)",
    "torch.randperm(2**62)", "torch.multinomial(torch.ones(3), 2**62, replacement=True)",
    "torch.arange(2**63, 11.0, 2)", "torch.arange(0, 2**62, 1)", "torch.arange(0, 1e300, 1e-300)",
    "torch.arange(-2**62, 2**62, 1)", "torch.linspace(0, 1, 2**62)", "torch.logspace(0, 1, 2**62)",
    "torch.ones(3).resize_(2**62)" if False else "torch.ones(3).new_ones(2**62)",
    # views: element counts and storage bounds
    "torch.ones(2, 3).expand(2**62, 4, 2, 3)", "torch.ones(1).expand(2**62, 2**2)",
    "torch.ones(6).as_strided((2**62, 2), (2**62, 1))", "torch.ones(4).as_strided((2,), (1,), 2**62)",
    "torch.ones(4).as_strided((2,), (2**62,))", "torch.ones(4).as_strided((2,), (1,), 3)",
    "torch.ones(2, 3, 4).tile((1, 3, 2**62, 4))", "torch.ones(2, 3).repeat(2**63 - 1, 1)",
    "torch.ones(2, 3).repeat(2**31, 2**31)", "torch.ones(3).unsqueeze(0).expand(2**62, 3).sum(0)",
    "torch.outer(torch.ones(1).expand(2**31), torch.ones(1).expand(2**33))",
    "torch.diag_embed(torch.ones(3, 3), offset=2**62)", "torch.diag_embed(torch.ones(3, 3), offset=2**63 - 1)",
    "torch.diag_embed(torch.ones(3, 3), offset=-2**63)", "torch.diag(torch.ones(3), 2**63 - 1)",
    "torch.bincount(torch.tensor([2**62]))", "torch.ones(2).repeat_interleave(2**62)",
    # nn: sizes computed from arguments
    "F.one_hot(torch.tensor([1, 2]), 2**63 - 1)", "F.one_hot(torch.tensor([2**63 - 1]))",
    "F.pixel_shuffle(torch.ones(1, 4, 2, 2), 2**48)", "F.pixel_shuffle(torch.ones(1, 4, 2, 2), 2**32)",
    "F.pixel_unshuffle(torch.ones(1, 1, 0, 0), 2**48)",
    "F.interpolate(torch.ones(1, 1, 4, 4), scale_factor=2**40)",
    "F.interpolate(torch.ones(1, 1, 4), size=2**62)",
    "F.adaptive_avg_pool2d(torch.ones(1, 1, 4, 4), 2**62)", "F.adaptive_max_pool2d(torch.ones(1, 1, 4, 4), 2**40)",
    "F.max_pool2d(torch.ones(1, 1, 4, 4), 2**62)", "F.max_pool2d(torch.ones(1, 1, 4, 4), 2, stride=2**62)",
    "F.max_pool2d(torch.ones(1, 1, 4, 4), 3, padding=1, dilation=2**62)",
    "F.max_pool2d(torch.ones(1, 1, 1, 1), 2**30, padding=2**29)",
    "F.max_pool1d(torch.ones(1, 1, 4), 2**31 - 1, padding=2**30 - 1)",
    "F.avg_pool2d(torch.ones(1, 1, 4, 4), 2**62)", "F.avg_pool2d(torch.ones(1, 1, 4, 4), 2, stride=2**40)",
    "F.conv1d(torch.ones(1, 0, 5), torch.ones(0, 0, 3), padding=1)",
    "F.conv1d(torch.ones(1, 1, 5), torch.ones(0, 1, 3), padding=1)",
    "F.conv1d(torch.ones(1, 0, 5), torch.ones(2, 0, 3), padding=1)",
    "F.conv1d(torch.ones(1, 2, 5), torch.ones(2, 1, 3), groups=0)",
    "F.conv2d(torch.ones(1, 1, 4, 4), torch.ones(1, 1, 2, 2), stride=2**62)",
    "F.conv2d(torch.ones(1, 1, 4, 4), torch.ones(1, 1, 2, 2), dilation=2**62)",
    "F.conv2d(torch.ones(1, 1, 4, 4), torch.ones(1, 1, 2, 2), padding=2**62)",
    "F.conv_transpose2d(torch.ones(1, 1, 4, 4), torch.ones(1, 1, 2, 2), stride=2**62)",
    "F.conv_transpose1d(torch.ones(1, 1, 4), torch.ones(1, 1, 2), output_padding=2**62, stride=2**62 + 1)",
    "F.unfold(torch.ones(1, 1, 4, 4), 2**62)", "F.fold(torch.ones(1, 4, 4), (2**40, 2**40), 2)",
    "F.pad(torch.ones(2, 2), (2**62, 2**62))", "F.pad(torch.ones(2, 2), (2**63 - 1, 1))",
    "F.embedding(torch.tensor([2**62]), torch.ones(3, 3))", "F.local_response_norm(torch.ones(2, 4, 5), 2**63 - 1)",
    "F.adaptive_avg_pool2d(torch.ones(0, 1, 4, 4), 2**40)", "torch.ones(3, 4).unfold(1, -2**31, 1)",
    "torch.arange(1e300, out=torch.empty(0, dtype=torch.int64))",
    # empty operands still get PyTorch's shape checks (and no dim is read where PyTorch reads none)
    "torch.ones(0, 4).copy_(torch.ones(2, 3))", "torch.ones(0, 4).copy_(torch.ones(1, 1, 4))",
    "torch.ones(0, 4).copy_(torch.ones(4))", "torch.ones(5).repeat_interleave(torch.zeros(0, dtype=torch.int64))",
    "torch.ones(0).repeat_interleave(torch.zeros(0, dtype=torch.int64))", "torch.roll(torch.ones(0, 3), 1, -2**31)",
    "torch.ones(4, 3).expand(2, 4, 3)[:, :0].round_()", "torch.ones(1, 0).expand(3, 0).add_(1)",
    "torch.arange(2.5, dtype=torch.int64)", "torch.arange(0, 2.5, 0.5, dtype=torch.int64)",
    "torch.arange(0.5, 5.5, 1.5, dtype=torch.int64)", "torch.arange(0, 10, 2.5, dtype=torch.int64)",
    "torch.tril(torch.ones(2, 3), 2**63 - 1)", "torch.triu(torch.ones(2, 3), 2**63 - 1)",
    "torch.tril(torch.ones(2, 3), -2**63)", "torch.triu(torch.ones(2, 3), -2**63)",
    "F.max_pool3d(torch.ones(1, 2, 5, 6, 7), 3, 2, -1)", "F.avg_pool2d(torch.ones(1, 2, 5, 6), 3, 2, -1)",
    "F.max_pool3d(torch.ones(1, 2, 5, 6, 7), 3, 3, -2**63 + 1)",
    "F.adaptive_avg_pool3d(torch.ones(1, 2, 4, 4, 4), 2**62)", "F.adaptive_avg_pool2d(torch.ones(2, 5, 6), (7, 2**31))",
    "F.pixel_shuffle(torch.ones(1, 4, 2, 3), 2**32)", "torch.ones(3).unfold(0, -1, 1)",
    "torch.arange(3.4e38, out=torch.empty(0))", "torch.eye(2**31)",
    "torch.bucketize(torch.ones(3), torch.ones(0))",
    "torch.bucketize(torch.tensor([float('nan')]), torch.tensor([1., float('nan')]))",
]

# PyTorch's answer comes from wrapped-around int64 arithmetic here; ember's is checked.
TORCH_WRONG = {
    # c * r * r overflows in PyTorch and the result gets a made-up shape; ember raises.
    "F.pixel_unshuffle(torch.ones(1, 1, 0, 0), 2**48)": "raise",
    # (4 - 1) * (2**62 + 1) overflows in PyTorch; the true output width does not fit int64.
    "F.conv_transpose1d(torch.ones(1, 1, 4), torch.ones(1, 1, 2), output_padding=2**62, stride=2**62 + 1)": "raise",
    # zero input channels: every output is the (absent) bias, so (1, 2, 5) zeros; PyTorch returns (1, 0, 5).
    "F.conv1d(torch.ones(1, 0, 5), torch.ones(2, 0, 3), padding=1)": [1, 2, 5],
}

RUNNER = textwrap.dedent("""
    import json, sys
    lib = sys.argv[1]
    torch = __import__(lib)
    F = __import__(lib + ".nn.functional", fromlist=["F"])
    for line in sys.stdin:
        expr = json.loads(line)
        try:
            r = eval(expr)
            out = ["ok", list(r.shape) if hasattr(r, "shape") else type(r).__name__]
        except Exception as e:
            out = ["raise", [c.__name__ for c in type(e).__mro__], str(e)[:300]]
        print(json.dumps(out), flush=True)
""")


def run_cases(lib: str, cases: list[str], timeout: float = 10.0) -> list:
    """Results per case; a worker that dies or stalls marks its case and restarts after it."""
    results: list = []
    while len(results) < len(cases):
        todo = cases[len(results):]
        p = subprocess.Popen([sys.executable, "-c", RUNNER, lib], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
        feed = "".join(json.dumps(expr) + "\n" for expr in todo)
        try:
            out, err = p.communicate(feed, timeout=30 + timeout * len(todo))
        except subprocess.TimeoutExpired:
            p.kill()
            out, err = p.communicate()
        results += [json.loads(x) for x in out.splitlines() if x]
        if len(results) < len(cases):  # the next case crashed or hung the worker
            results.append(["died", p.returncode, err[-300:]])
    return results


@pytest.fixture(scope="module")
def outcomes() -> dict:
    ember_r, torch_r = run_cases("ember", CASES), run_cases("torch", CASES)
    return dict(zip(CASES, zip(ember_r, torch_r, strict=True), strict=True))


@pytest.mark.parametrize("expr", CASES)
def test_absurd_size_raises_like_torch(outcomes: dict, expr: str) -> None:
    e, t = outcomes[expr]
    assert e[0] != "died", f"{expr}: ember's process died (rc {e[1]}): {e[2]}"
    if expr in TORCH_WRONG:
        want = TORCH_WRONG[expr]
        assert e[0] == want if want == "raise" else e[1] == want, f"{expr}: ember {e}, want {want}"
        return
    if t[0] == "ok":
        assert e[0] == "ok" and e[1] == t[1], f"{expr}: torch gave shape {t[1]}, ember {e}"
        return
    assert e[0] == "raise", f"{expr}: torch raised {t[1][0]} ({t[2]}), ember returned {e[1]}"
    assert t[1][0] in e[1], f"{expr}: torch raised {t[1][0]} ({t[2]}), ember {e[1][0]} ({e[2]})"


def test_out_of_memory_error_is_a_runtime_error() -> None:
    import ember
    assert issubclass(ember.OutOfMemoryError, RuntimeError)
    with pytest.raises(ember.OutOfMemoryError, match="can't allocate memory"):
        ember.empty(2**60, dtype=ember.uint8)


def test_failed_resize_leaves_out_unchanged() -> None:
    import ember
    out = ember.ones(2, 3)
    with pytest.raises(RuntimeError, match="overflow"):
        ember.zeros(3, 2**62, out=out)
    assert out.shape == (2, 3) and out.sum().item() == 6
