"""Distance functions (cosine_similarity, pairwise_distance, pdist), composed from core ops; also
``torch.cosine_similarity`` etc. at top level, which forward here."""

from __future__ import annotations

import ember
from ember import Tensor
from ember.nn._functional._checks import scalar_name

_INT_NAMES = {"torch.int64": "Long", "torch.int32": "Int", "torch.int16": "Short", "torch.int8": "Char",
              "torch.uint8": "Byte", "torch.bool": "Bool"}


def _clamp_min_value_only(t: Tensor, eps: float) -> Tensor:
    """t.clamp(min=eps) in value, but with t's gradient: PyTorch clamps the norms in place under no_grad."""
    return t + (t.clamp(min=eps) - t).detach()


def cosine_similarity(x1: Tensor, x2: Tensor, dim: int = 1, eps: float = 1e-8) -> Tensor:
    """Σ x1·x2 / (max(‖x1‖, eps) · max(‖x2‖, eps)) along dim; each input is normalized first (stabler)."""
    dtype = ember.result_type(x1, x2)
    if not dtype.is_floating_point:
        raise RuntimeError(f"expected common dtype to be floating point, yet common dtype is "
                           f"{_INT_NAMES.get(str(dtype), str(dtype))}")
    a, b = ember.broadcast_tensors(x1.to(dtype), x2.to(dtype))
    n1 = _clamp_min_value_only(ember.linalg.vector_norm(a, 2, dim, keepdim=True), eps)
    n2 = _clamp_min_value_only(ember.linalg.vector_norm(b, 2, dim, keepdim=True), eps)
    return ((a / n1) * (b / n2)).sum(dim)


def pairwise_distance(x1: Tensor, x2: Tensor, p: float = 2.0, eps: float = 1e-6, keepdim: bool = False) -> Tensor:
    """‖x1 - x2 + eps‖_p over the last dim of the broadcast inputs."""
    dim = max(x1.dim(), x2.dim()) - 1
    return ember.norm(x1 - x2 + eps, p, dim, keepdim)


def pdist(input: Tensor, p: float = 2.0) -> Tensor:
    """The p-norm distance of every pair of rows i < j, in row-major order: n(n-1)/2 values."""
    if input.dim() != 2:
        raise RuntimeError(f"pdist only supports 2D tensors, got: {input.dim()}D")
    if not input.is_floating_point():
        raise RuntimeError("pdist only supports floating-point dtypes")
    if not p >= 0:  # NaN fails too
        raise RuntimeError("pdist only supports non-negative p values")
    if input.dtype not in (ember.float32, ember.float64):  # _pdist_forward's dispatch
        raise NotImplementedError(f'"pdist" not implemented for \'{scalar_name(input)}\'')
    n = input.shape[0]
    rows = [i for i in range(n) for _ in range(i + 1, n)]
    cols = [j for i in range(n) for j in range(i + 1, n)]
    diff = input[ember.tensor(rows, dtype=ember.int64)] - input[ember.tensor(cols, dtype=ember.int64)]
    return ember.linalg.vector_norm(diff, p, -1)
