"""ember.return_types: the named-tuple types ops return, the same objects the ops build."""

from __future__ import annotations

import ember
import pytest

torch = pytest.importorskip("torch")


def test_names_and_fields_match_torch() -> None:
    names = [n for n in dir(torch.return_types) if not n.startswith("_")
             and isinstance(getattr(torch.return_types, n), type) and hasattr(getattr(torch.return_types, n), "n_fields")]
    assert sorted(names) == sorted(ember.return_types.__all__)
    for n in names:
        mine, theirs = getattr(ember.return_types, n), getattr(torch.return_types, n)
        assert mine.__match_args__ == theirs.__match_args__, n
        assert mine.__name__ == n


def test_ops_return_these_types() -> None:
    x = ember.randn(4, 4)
    R = ember.return_types
    cases = [(ember.max(x, 0), R.max), (ember.min(x, 1), R.min), (ember.sort(x), R.sort), (ember.topk(x, 2), R.topk),
             (ember.aminmax(x), R.aminmax), (ember.cummax(x, 0), R.cummax), (ember.median(x, 0), R.median),
             (ember.kthvalue(x, 2), R.kthvalue), (ember.mode(x, 0), R.mode), (ember.frexp(x), R.frexp),
             (ember.linalg.qr(x), R.linalg_qr), (ember.linalg.slogdet(x), R.linalg_slogdet),
             (ember.linalg.eigh(x + x.T), R.linalg_eigh), (ember.histogram(x), R.histogram)]
    for result, typ in cases:
        assert isinstance(result, typ), (type(result), typ)
    v, i = ember.max(x, 0)
    assert R.max((v, i)).values is v


def test_unknown_name() -> None:
    with pytest.raises(AttributeError, match="has no attribute 'nope'"):
        ember.return_types.nope  # noqa: B018
