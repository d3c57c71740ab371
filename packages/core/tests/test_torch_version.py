"""ember.__version__ is a TorchVersion: a str comparing as a PEP 440 version, as PyTorch's."""

from __future__ import annotations

import itertools
import operator

import ember
import pytest
from ember._lib import _C
from ember.torch_version import TorchVersion

torch = pytest.importorskip("torch")
Theirs = torch.torch_version.TorchVersion

VERSIONS = ["0.1.0", "0.1", "1.10.0a0", "1.10.0", "1.2.1", "2.0.0.dev20230101", "2.0.0rc1", "2.0.0",
            "2.0.0.post1", "2.0.0+cpu", "2.0.0+cu121", "2.13.0", "1!0.1", "2.0.0b2.dev3", "1.0-1"]
OTHERS = ["1.2", "2.0", "0.0.9", "2.0.0a1", "2.13", "garbage", (1, 2), (2, 0, 0), (0, 1, 0), [2, 13]]
OPS = [operator.lt, operator.le, operator.gt, operator.ge, operator.eq, operator.ne]


def test_is_a_str_and_the_package_version() -> None:
    assert isinstance(ember.__version__, str) and isinstance(ember.__version__, TorchVersion)
    assert ember.__version__ == "0.1.0" and ember.__version__ == (0, 1) and ember.__version__ >= "0.1"
    assert ember.__version__ < "2.0" and ember.__version__.split(".")[0] == "0"
    assert hash(ember.__version__) == hash("0.1.0")


@pytest.mark.parametrize("mine, other", list(itertools.product(VERSIONS, OTHERS)))
def test_comparisons_match_torch(mine: str, other: object) -> None:
    for op in OPS:
        assert op(TorchVersion(mine), other) == op(Theirs(mine), other), (mine, op.__name__, other)


@pytest.mark.parametrize("a, b", list(itertools.combinations(VERSIONS, 2)))
def test_order_between_versions_matches_torch(a: str, b: str) -> None:
    for op in OPS:
        assert op(TorchVersion(a), b) == op(Theirs(a), b), (a, op.__name__, b)


def test_packaging_version_objects() -> None:
    packaging = pytest.importorskip("packaging.version")
    assert TorchVersion("2.1.0") > packaging.Version("2.0.1")
    assert TorchVersion("2.0.0") == packaging.Version("2.0")


def test_version_module() -> None:
    assert ember.version.__version__ == ember.__version__
    assert ember.version.hip is None and ember.version.debug is False
    if _C._cuda_is_compiled():
        major, minor = ember.version.cuda.split(".")
        assert int(major) >= 12 and minor.isdigit()
    else:
        assert ember.version.cuda is None
