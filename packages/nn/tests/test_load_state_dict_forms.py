"""load_state_dict accepts what PyTorch's accepts: a 1-element 1-d tensor for a 0-d buffer (old
checkpoints stored scalars so), while any other shape mismatch stays an error."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

import ember  # noqa: E402
import ember.nn  # noqa: E402


@pytest.mark.parametrize(("value", "ok"), [([7], True), ([7, 8], False)])
def test_one_element_vector_into_scalar_buffer(value: list[int], ok: bool) -> None:
    outcomes = []
    for L in (torch, ember):
        m = L.nn.BatchNorm1d(2)
        sd = m.state_dict()
        sd["num_batches_tracked"] = L.tensor(value)
        try:
            m.load_state_dict(sd)
            outcomes.append(("ok", m.num_batches_tracked.dim(), int(m.num_batches_tracked)))
        except RuntimeError as e:
            outcomes.append(("error", "size mismatch for num_batches_tracked" in str(e), None))
    assert outcomes[0] == outcomes[1]
    assert (outcomes[0][0] == "ok") == ok
