"""PyTorch's CPU autocast op lists (measured on torch 2.13: the output dtype of each op under
``torch.autocast("cpu")`` for float32 and for bfloat16 inputs).

The generated binding of every op named here casts its floating tensor arguments (float64
excluded, as PyTorch) before the call, in its function and method forms (never in-place or out=
forms: PyTorch registers autocast for the functional overloads only). Ops written in Python
(nn.functional's linear, the losses) apply the same policies through ember.amp.
"""

from __future__ import annotations

# Run in the autocast dtype (bfloat16 / float16).
LOWER = {
    "conv1d", "conv2d", "conv3d", "bmm", "mm", "linalg_vecdot", "vecdot", "baddbmm", "addmm", "addbmm",
    "linear", "_convolution", "convolution", "matmul", "conv_tbc", "conv_transpose1d", "conv_transpose2d",
    "conv_transpose3d", "prelu", "_prelu_kernel", "scaled_dot_product_attention",
    "_scaled_dot_product_attention_math", "_native_multi_head_attention",
}

# Run in float32.
FP32 = {
    "avg_pool3d", "binary_cross_entropy", "grid_sampler", "grid_sampler_2d", "grid_sampler_3d", "polar", "prod",
    "quantile", "nanquantile", "stft", "cdist", "trace", "view_as_complex", "cholesky", "cholesky_inverse",
    "cholesky_solve", "inverse", "lu_solve", "orgqr", "ormqr", "pinverse", "max_pool3d", "max_unpool2d",
    "max_unpool3d", "adaptive_avg_pool3d", "reflection_pad1d", "reflection_pad2d", "replication_pad1d",
    "replication_pad2d", "replication_pad3d", "mse_loss", "cosine_embedding_loss", "nll_loss", "nll_loss2d",
    "hinge_embedding_loss", "poisson_nll_loss", "smooth_l1_loss", "cross_entropy_loss", "l1_loss",
    "huber_loss", "margin_ranking_loss", "soft_margin_loss", "triplet_margin_loss", "multi_margin_loss",
    "ctc_loss", "kl_div", "multilabel_margin_loss", "binary_cross_entropy_with_logits", "fft_fft", "fft_ifft",
    "fft_fft2", "fft_ifft2", "fft_fftn", "fft_ifftn", "fft_rfft", "fft_irfft", "fft_rfft2", "fft_irfft2",
    "fft_rfftn", "fft_irfftn", "fft_hfft", "fft_ihfft", "linalg_cond", "linalg_matrix_rank", "linalg_solve",
    "linalg_cholesky", "linalg_svdvals", "linalg_eigvals", "linalg_eigvalsh", "linalg_inv",
    "linalg_householder_product",
    "linalg_tensorinv", "linalg_tensorsolve", "fake_quantize_per_tensor_affine", "geqrf", "_lu_with_info", "qr",
    "svd", "triangular_solve", "fractional_max_pool2d", "fractional_max_pool3d", "adaptive_max_pool3d",
    "multilabel_margin_loss_forward", "linalg_qr", "linalg_cholesky_ex", "linalg_svd", "linalg_eig",
    "linalg_eigh", "linalg_lstsq", "linalg_inv_ex",
    # ember's names for ops that live in a namespace (torch.linalg.inv is _linalg_inv in _C)
    "inv", "inv_ex", "cholesky_ex", "eigh", "eigvalsh", "svdvals", "lstsq", "solve", "eig", "eigvals",
    "householder_product", "tensorinv", "tensorsolve", "matrix_rank", "cond",
}

# Run in the widest floating type among the arguments.
PROMOTE = {"stack", "cat", "index_copy"}


def policy(name: str, namespace: str | None) -> str | None:
    """The C++ AutocastPolicy of an op (None: not autocast)."""
    if namespace == "linalg" and name in ("matmul", "vecdot"):
        return "Lower"
    if namespace not in (None, "linalg", "_nn", "special"):
        return None
    for table, pol in ((LOWER, "Lower"), (FP32, "Fp32"), (PROMOTE, "Promote")):
        if name in table:
            return pol
    return None
