"""Ready-made parametrizations (as ``torch.nn.utils.parametrizations``): orthogonal,
weight_norm and spectral_norm, each registered through :mod:`ember.nn.utils.parametrize`."""

from __future__ import annotations

from enum import Enum, auto
from typing import Any

import ember
from ember import Tensor
from ember.nn import functional as F
from ember.nn.modules.module import Module
from ember.nn.utils import parametrize

__all__ = ["orthogonal", "spectral_norm", "weight_norm"]


# ---- orthogonal -------------------------------------------------------------------------------

class _OrthMaps(Enum):
    matrix_exp = auto()
    cayley = auto()
    householder = auto()


def _eye_like(x: Tensor, n: int, k: int | None = None) -> Tensor:
    k = n if k is None else k
    return ember.eye(n, k, dtype=x.dtype, device=x.device).expand(*x.shape[:-2], n, k)


def _matrix_exp(a: Tensor) -> Tensor:
    """exp(A) by scaling and squaring a Taylor series, from differentiable ops (double
    backward included): A is scaled by 2^-s until its norm is below 1/2, where 18 terms leave
    an error far below float64 round-off, then squared s times."""
    norm = float(ember.linalg.matrix_norm(a.detach(), "fro").max()) if a.numel() else 0.0
    s = 0
    while norm > 0.5:
        norm /= 2
        s += 1
    x = a / (2**s)
    n = a.shape[-1]
    term = _eye_like(a, n)
    result = term
    for i in range(1, 19):
        term = (term @ x) / i
        result = result + term
    for _ in range(s):
        result = result @ result
    return result


def _householder_product(a: Tensor, tau: Tensor) -> Tensor:
    """The first k columns of H_1 H_2 ... H_k, H_i = I - tau_i v_i v_i^H with v_i the i-th
    column of ``a`` below the diagonal and a 1 on it (LAPACK's orgqr), composed of
    differentiable ops."""
    n, k = a.shape[-2], a.shape[-1]
    q = _eye_like(a, n, k)
    rows = ember.arange(n, device=a.device)
    for i in reversed(range(k)):
        # v_i: zeros above row i, 1 at row i, a[i+1:, i] below.
        below = (rows > i).to(a.dtype)
        at = (rows == i).to(a.dtype)
        v = a[..., :, i] * below + at
        vq = (v.unsqueeze(-2) @ q)  # (..., 1, k)
        q = q - tau[..., i].unsqueeze(-1).unsqueeze(-1) * (v.unsqueeze(-1) @ vq)
    return q


# Machine epsilon per dtype (ember has no finfo yet).
_EPS = {"float64": 2.220446049250313e-16, "float32": 1.1920928955078125e-07, "float16": 0.0009765625,
        "bfloat16": 0.0078125}


def _is_orthogonal(q: Tensor) -> bool:
    n, k = q.size(-2), q.size(-1)
    eps = 10.0 * n * _EPS[str(q.dtype).rsplit(".", 1)[-1]]
    return bool(ember.allclose(q.mT @ q, ember.eye(k, dtype=q.dtype, device=q.device), atol=eps))


def _make_orthogonal(a: Tensor) -> Tensor:
    """The Q of A = QR with diag(R) >= 0 (A tall)."""
    q, r = ember.linalg.qr(a)
    return q * ember.sign(r.diagonal(dim1=-2, dim2=-1)).unsqueeze(-2)


class _Orthogonal(Module):
    base: Tensor

    def __init__(self, weight: Tensor, orthogonal_map: _OrthMaps, *, use_trivialization: bool = True) -> None:
        super().__init__()
        self.shape = weight.shape
        self.orthogonal_map = orthogonal_map
        if use_trivialization:
            self.register_buffer("base", None)

    def forward(self, x: Tensor) -> Tensor:
        n, k = x.size(-2), x.size(-1)
        transposed = n < k
        if transposed:
            x = x.mT
            n, k = k, n
        if self.orthogonal_map in (_OrthMaps.matrix_exp, _OrthMaps.cayley):
            x = x.tril()
            if n != k:  # embed the tall matrix in a square one
                x = ember.cat([x, x.new_zeros(n, n - k).expand(*x.shape[:-2], -1, -1)], dim=-1)
            a = x - x.mT  # skew-symmetric
            if self.orthogonal_map == _OrthMaps.matrix_exp:
                q = _matrix_exp(a)
            else:  # Cayley retraction (I + A/2)(I - A/2)^{-1}
                eye = ember.eye(n, dtype=a.dtype, device=a.device)
                q = ember.linalg.solve(ember.add(eye, a, alpha=-0.5), ember.add(eye, a, alpha=0.5))
            if n != k:
                q = q[..., :k]
        else:
            a = x.tril(diagonal=-1)
            tau = 2.0 / (1.0 + (a * a).sum(dim=-2))
            q = _householder_product(a, tau)
            # The signs on x's diagonal select +-1 for each column (not differentiated).
            q = q * x.diagonal(dim1=-2, dim2=-1).int().unsqueeze(-2)
        if hasattr(self, "base"):
            q = self.base @ q
        if transposed:
            q = q.mT
        return q

    def right_inverse(self, q: Tensor) -> Tensor:
        with ember.no_grad():
            if q.shape != self.shape:
                raise ValueError(f"Expected a matrix or batch of matrices of shape {self.shape}. "
                                 f"Got a tensor of shape {q.shape}.")
            q_init = q
            n, k = q.size(-2), q.size(-1)
            transpose = n < k
            if transpose:
                q = q.mT
                n, k = k, n
            if not hasattr(self, "base"):
                if self.orthogonal_map in (_OrthMaps.cayley, _OrthMaps.matrix_exp):
                    raise NotImplementedError("It is not possible to assign to the matrix exponential or the "
                                              "Cayley parametrizations when use_trivialization=False.")
                raise NotImplementedError("ember: assigning to a householder orthogonal parametrization with "
                                          "use_trivialization=False needs geqrf, which ember lacks")
            if n == k:
                q = q.clone() if _is_orthogonal(q) else _make_orthogonal(q)
            else:  # complete Q to a full n x n orthogonal matrix
                extra = ember.randn(*(q.size()[:-2] + (n, n - k)), dtype=q.dtype, device=q.device)
                q = _make_orthogonal(ember.cat([q, extra], dim=-1))
            self.base = q
            # -Id: householder(zeros) with a -1 diagonal is the identity, as are the other maps.
            neg_id = ember.zeros_like(q_init)
            neg_id.diagonal(dim1=-2, dim2=-1).fill_(-1.0)
            return neg_id


def orthogonal(module: Module, name: str = "weight", orthogonal_map: str | None = None, *,
               use_trivialization: bool = True) -> Module:
    """Constrain ``module.<name>`` (a matrix or batch of matrices) to be orthogonal."""
    weight = getattr(module, name, None)
    if not isinstance(weight, Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if weight.ndim < 2:
        raise ValueError(f"Expected a matrix or batch of matrices. Got a tensor of {weight.ndim} dimensions.")
    if orthogonal_map is None:
        orthogonal_map = ("matrix_exp" if weight.size(-2) == weight.size(-1) or weight.is_complex()
                          else "householder")
    orth_enum = getattr(_OrthMaps, orthogonal_map, None)
    if orth_enum is None:
        raise ValueError('orthogonal_map has to be one of "matrix_exp", "cayley", "householder". '
                         f"Got: {orthogonal_map}")
    orth = _Orthogonal(weight, orth_enum, use_trivialization=use_trivialization)
    parametrize.register_parametrization(module, name, orth, unsafe=True)
    return module


# ---- weight_norm --------------------------------------------------------------------------------

def _norm_except_dim(v: Tensor, dim: int) -> Tensor:
    """2-norm over every dim but ``dim``, kept as size-1 dims (dim=-1: the whole tensor, 0-d)."""
    if dim == -1:
        return ember.linalg.vector_norm(v)
    dims = [d for d in range(v.dim()) if d != dim]
    return ember.linalg.vector_norm(v, 2, dim=dims, keepdim=True)


def _weight_norm(v: Tensor, g: Tensor, dim: int) -> Tensor:
    return v * (g / _norm_except_dim(v, dim))


class _WeightNorm(Module):
    def __init__(self, dim: int | None = 0) -> None:
        super().__init__()
        self.dim = -1 if dim is None else dim

    def forward(self, weight_g: Tensor, weight_v: Tensor) -> Tensor:
        return _weight_norm(weight_v, weight_g, self.dim)

    def right_inverse(self, weight: Tensor) -> tuple[Tensor, Tensor]:
        return _norm_except_dim(weight, self.dim), weight


def weight_norm(module: Module, name: str = "weight", dim: int | None = 0) -> Module:
    """``module.<name>`` = g * v / ||v||, with ``original0`` = g and ``original1`` = v."""
    parametrize.register_parametrization(module, name, _WeightNorm(dim), unsafe=True)

    def _weight_norm_compat_hook(state_dict: dict[str, Any], prefix: str, local_metadata: Any, strict: bool,
                                 missing_keys: list[str], unexpected_keys: list[str], error_msgs: list[str]) -> None:
        # State dicts saved with the older hook-based weight_norm use name_g / name_v.
        g_key, v_key = f"{prefix}{name}_g", f"{prefix}{name}_v"
        if g_key in state_dict and v_key in state_dict:
            state_dict[f"{prefix}parametrizations.{name}.original0"] = state_dict.pop(g_key)
            state_dict[f"{prefix}parametrizations.{name}.original1"] = state_dict.pop(v_key)

    module._register_load_state_dict_pre_hook(_weight_norm_compat_hook)
    return module


# ---- spectral_norm ------------------------------------------------------------------------------

class _SpectralNorm(Module):
    def __init__(self, weight: Tensor, n_power_iterations: int = 1, dim: int = 0, eps: float = 1e-12) -> None:
        super().__init__()
        ndim = weight.ndim
        if dim >= ndim or dim < -ndim:
            raise IndexError(f"Dimension out of range (expected to be in range of [-{ndim}, {ndim - 1}] "
                             f"but got {dim})")
        if n_power_iterations <= 0:
            raise ValueError("Expected n_power_iterations to be positive, but got "
                             f"n_power_iterations={n_power_iterations}")
        self.dim = dim if dim >= 0 else dim + ndim
        self.eps = eps
        if ndim > 1:
            self.n_power_iterations = n_power_iterations
            weight_mat = self._reshape_weight_to_matrix(weight)
            h, w = weight_mat.size()
            u = weight_mat.new_empty(h).normal_(0, 1)
            v = weight_mat.new_empty(w).normal_(0, 1)
            self.register_buffer("_u", F.normalize(u, dim=0, eps=self.eps))
            self.register_buffer("_v", F.normalize(v, dim=0, eps=self.eps))
            # Start from a good estimate of the top singular vectors.
            self._power_method(weight_mat, 15)

    def _reshape_weight_to_matrix(self, weight: Tensor) -> Tensor:
        if self.dim != 0:
            weight = weight.permute(self.dim, *(d for d in range(weight.dim()) if d != self.dim))
        return weight.flatten(1)

    def _power_method(self, weight_mat: Tensor, n_power_iterations: int) -> None:
        # In place on the buffers: DataParallel-style replicas share them.
        with ember.no_grad():
            for _ in range(n_power_iterations):
                self._u.copy_(F.normalize(ember.mv(weight_mat, self._v), dim=0, eps=self.eps))
                self._v.copy_(F.normalize(ember.mv(weight_mat.mT, self._u), dim=0, eps=self.eps))

    def forward(self, weight: Tensor) -> Tensor:
        if weight.ndim == 1:
            return F.normalize(weight, dim=0, eps=self.eps)
        weight_mat = self._reshape_weight_to_matrix(weight)
        if self.training:
            self._power_method(weight_mat, self.n_power_iterations)
        u, v = self._u.clone(), self._v.clone()
        sigma = ember.dot(u, ember.mv(weight_mat, v))
        return weight / sigma

    def right_inverse(self, value: Tensor) -> Tensor:
        return value


def spectral_norm(module: Module, name: str = "weight", n_power_iterations: int = 1, eps: float = 1e-12,
                  dim: int | None = None) -> Module:
    """Divide ``module.<name>`` by its largest singular value, estimated by power iteration."""
    weight = getattr(module, name, None)
    if not isinstance(weight, Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if dim is None:
        dim = 1 if type(module).__name__.startswith("ConvTranspose") else 0
    parametrize.register_parametrization(module, name, _SpectralNorm(weight, n_power_iterations, dim, eps))
    return module
