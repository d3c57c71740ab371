"""ember.jit: PyTorch's eager (PYTORCH_JIT=0) behaviour of torch.jit -- pass-throughs that run the
same code, and a clear NotImplementedError for what needs a TorchScript program."""

from __future__ import annotations

# ruff: noqa: UP006, UP045  (typing's List/Dict/Optional forms are what torch.jit.isinstance is given)
from typing import Dict, List, Optional, Tuple  # noqa: UP035

import ember
import pytest

torch = pytest.importorskip("torch")


def test_predicates_and_annotations() -> None:
    assert ember.jit.is_scripting() is False and ember.jit.is_tracing() is False
    assert ember.jit.annotate(List[int], [1]) == [1]
    assert ember.jit.Attribute(3, int) == 3
    assert ember.jit.Final is torch.jit.Final.__class__ or ember.jit.Final is not None

    def f(x: ember.Tensor) -> ember.Tensor:
        return x * 2

    for deco in (ember.jit.script, ember.jit.ignore, ember.jit.ignore(drop=True), ember.jit.unused,
                 ember.jit.export, ember.jit.script_if_tracing, ember.jit.interface):
        assert deco(f) is f
    assert ember.jit.trace(f, ember.ones(2)) is f


@pytest.mark.parametrize("obj, typ", [
    ([1, 2], List[int]), ([1, "a"], List[int]), ({"a": 1}, Dict[str, int]), ({"a": "b"}, Dict[str, int]),
    (None, Optional[int]), (3, Optional[int]), ("x", Optional[int]), ((1, "a"), Tuple[int, str]),
    ((1, 2), Tuple[int, str]), ((1, 2, 3), Tuple[int, ...]), ([], List[str]), (1.0, float), (1, float),
])
def test_isinstance_matches_torch(obj: object, typ: object) -> None:
    assert ember.jit.isinstance(obj, typ) == torch.jit.isinstance(obj, typ)


@pytest.mark.parametrize("bare", [list, dict, tuple])
def test_isinstance_needs_contained_types(bare: type) -> None:
    with pytest.raises(RuntimeError) as mine:
        ember.jit.isinstance([], bare)
    with pytest.raises(RuntimeError) as theirs:
        torch.jit.isinstance([], bare)
    assert str(mine.value) == str(theirs.value)


def test_isinstance_tensors() -> None:
    assert ember.jit.isinstance({"w": ember.ones(1)}, Dict[str, ember.Tensor])
    assert not ember.jit.isinstance({"w": 1}, Dict[str, ember.Tensor])


def test_fork_wait_runs_now() -> None:
    fut = ember.jit.fork(lambda a, b: a + b, ember.ones(2), b=ember.ones(2))
    assert ember.jit.wait(fut).tolist() == [2.0, 2.0]


def test_script_module_subclass_runs_eagerly() -> None:
    nn = pytest.importorskip("ember.nn")

    class M(ember.jit.ScriptModule):
        def __init__(self) -> None:
            super().__init__()
            self.lin = nn.Linear(2, 3)

        @ember.jit.script_method
        def forward(self, x: ember.Tensor) -> ember.Tensor:
            return self.lin(x)

    m = M()
    assert isinstance(m, nn.Module) and m(ember.ones(4, 2)).shape == (4, 3)
    assert not isinstance(nn.Linear(1, 1), ember.jit.ScriptModule)
    with pytest.raises(NotImplementedError, match="torch.jit.save is not implemented"):
        m.save("model.pt")


@pytest.mark.parametrize("name", ["save", "load", "freeze", "optimize_for_inference", "export_opnames"])
def test_program_apis_raise(name: str) -> None:
    with pytest.raises(NotImplementedError, match=f"ember: torch.jit.{name} is not implemented"):
        getattr(ember.jit, name)(object(), "x") if name in ("save",) else getattr(ember.jit, name)(object())


def test_public_names_match_torch() -> None:
    missing = [n for n in torch.jit.__all__ if not hasattr(ember.jit, n)]
    assert missing == []
    with pytest.raises(ember.jit.Error):
        raise ember.jit.Error("x")
    assert issubclass(ember.jit.Error, RuntimeError)


def test_fusion_flags() -> None:
    ember.jit.enable_onednn_fusion(True)
    assert ember.jit.onednn_fusion_enabled()
    ember.jit.enable_onednn_fusion(False)
    prev = ember.jit.set_fusion_strategy([("DYNAMIC", 3)])
    assert ember.jit.set_fusion_strategy(prev) == [("DYNAMIC", 3)]
    with ember.jit.strict_fusion(), ember.jit.optimized_execution(False), ember.jit.fuser("fuser1"):
        pass
