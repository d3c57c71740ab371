"""Distance functions (cosine_similarity, pairwise_distance, pdist), composed from core ops; also
``torch.cosine_similarity`` etc. at top level, which forward here."""

from __future__ import annotations

import math

import ember
from ember import Tensor
from ember.nn._functional._checks import parse_int64, scalar_name

_INT_NAMES = {"torch.int64": "Long", "torch.int32": "Int", "torch.int16": "Short", "torch.int8": "Char",
              "torch.uint8": "Byte", "torch.bool": "Bool"}


def _clamp_min_value_only(t: Tensor, eps: float, common: ember.dtype) -> Tensor:
    """t.clamp(min=eps) in value, but with t's gradient: PyTorch clamps the norms in place under no_grad."""
    # a where, not t + (clamp(t) - t).detach(): that sum is NaN for an infinite norm. aten's clamp reads
    # eps in the inputs' common op-math type (float64 with a float64 input, else float32: 1e39 is an
    # overflow error there) and rounds the clamped norm to its own dtype (65536 -> inf in float16, seed 3018)
    ct = ember.float64 if common == ember.float64 else ember.float32
    clamped = t.detach().to(ct).clamp(min=eps).to(t.dtype)
    return ember.where(t < eps, t - t.detach() + clamped, t)


def cosine_similarity(x1: Tensor, x2: Tensor, dim: int = 1, eps: float = 1e-8) -> Tensor:
    """Σ x1·x2 / (max(‖x1‖, eps) · max(‖x2‖, eps)) along dim; each input is normalized first (stabler)."""
    parse_int64(dim, "cosine_similarity", "dim")  # the binding's int64 parse comes first
    if not eps >= 0:  # aten's check before the dtypes (NaN fails it too)
        raise RuntimeError(f"eps must be non-negative, got: {eps:g}")
    dtype = ember.result_type(x1, x2)
    if not dtype.is_floating_point:
        raise RuntimeError(f"expected common dtype to be floating point, yet common dtype is "
                           f"{_INT_NAMES.get(str(dtype), scalar_name(dtype))}")
    # aten converts integral inputs only: a float one keeps its dtype (a 0-d float64 x2 then
    # promotes the float32 x1 once broadcast)
    a, b = ember.broadcast_tensors(*(x if x.is_floating_point() else x.to(dtype) for x in (x1, x2)))
    n1 = _clamp_min_value_only(ember.linalg.vector_norm(a, 2, dim, keepdim=True), eps, dtype)
    n2 = _clamp_min_value_only(ember.linalg.vector_norm(b, 2, dim, keepdim=True), eps, dtype)
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
    if input.shape[0] <= 1:  # _pdist_forward: no pair, an empty result before its dtype dispatch
        return input.flatten()[:0].clone()  # still in the graph when input requires grad, as torch's
    if input.shape[1] == 0:  # _pdist_forward fills zeros before its dtype dispatch (float16 too)
        n = input.shape[0]
        zeros = ember.zeros(n * (n - 1) // 2, dtype=input.dtype, device=input.device)
        return zeros + input.sum() * 0  # in the graph as torch's
    if input.dtype not in (ember.float32, ember.float64):  # _pdist_forward's dispatch
        raise NotImplementedError(f'"pdist" not implemented for \'{scalar_name(input)}\'')
    # _pdist_forward reads p as the tensor's scalar type before it branches on 0 / 1 / 2 / inf:
    # float32 rounds it (5e-324 becomes 0, the count of differing coordinates; 1e39 becomes inf)
    if input.dtype == ember.float32:
        p = float(ember.tensor(p, dtype=ember.float64).float().item())
    n = input.shape[0]
    rows = [i for i in range(n) for _ in range(i + 1, n)]
    cols = [j for i in range(n) for j in range(i + 1, n)]
    dev = input.device
    diff = input[ember.tensor(rows, dtype=ember.int64, device=dev)] - input[ember.tensor(cols, dtype=ember.int64,
                                                                                         device=dev)]
    if p == 0 or input.shape[1] == 0:  # the count of differing coordinates, min(ceil(|d|), 1) summed (a NaN
        return diff.abs().ceil().clamp(max=1).sum(-1)  # stays NaN); no coordinates: 0 for any p, inf too
    if input.shape[1] == 1 and not (p == 1 or math.isinf(p)):
        # one coordinate: the kernel still takes the powers (vector_norm answers |d| there)
        return diff.abs().pow(p).sum(-1).pow(1.0 / p)
    return ember.linalg.vector_norm(diff, p, -1)  # its gradient is 0 at a zero distance, as pdist's
