"""PyTorch's autocast op lists: the CPU's (measured on torch 2.13: the output dtype of each op under
``torch.autocast("cpu")`` for float32 and for bfloat16 inputs) and CUDA's (aten's AutocastCUDA
registrations, the ops torch 2.13's autocast tests list for CUDA).

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

# CUDA: run in the autocast dtype (float16 unless set).
CUDA_LOWER = {
    "_convolution", "convolution", "conv1d", "conv2d", "conv3d", "conv_tbc", "conv_transpose1d", "conv_transpose2d",
    "conv_transpose3d", "prelu", "_prelu_kernel", "addmm", "addmv", "addr", "matmul", "einsum", "mm", "mv",
    "linalg_vecdot", "vecdot", "linear", "addbmm", "baddbmm", "bmm", "chain_matmul", "linalg_multi_dot", "multi_dot",
    "_thnn_fused_lstm_cell", "_thnn_fused_gru_cell", "lstm_cell", "gru_cell", "rnn_tanh_cell", "rnn_relu_cell",
    "_scaled_dot_product_flash_attention", "scaled_dot_product_attention", "_scaled_dot_product_attention_math",
    "_native_multi_head_attention",
}

# CUDA: run in float32 (aten's fp32 and fp32_set_opt_dtype / fp32_append_dtype lists).
CUDA_FP32 = {
    "acos", "asin", "cosh", "erfinv", "exp", "expm1", "log", "log10", "log2", "log1p", "reciprocal", "rsqrt", "sinh",
    "tan", "pow", "softplus", "layer_norm", "native_layer_norm", "rms_norm", "group_norm", "frobenius_norm",
    "nuclear_norm", "cosine_similarity", "poisson_nll_loss", "cosine_embedding_loss", "nll_loss", "nll_loss2d",
    "hinge_embedding_loss", "kl_div", "l1_loss", "smooth_l1_loss", "huber_loss", "mse_loss", "margin_ranking_loss",
    "multilabel_margin_loss", "soft_margin_loss", "triplet_margin_loss", "multi_margin_loss",
    "binary_cross_entropy_with_logits", "dist", "pdist", "cdist", "renorm", "logsumexp", "upsample_nearest1d",
    "_upsample_nearest_exact1d", "upsample_nearest2d", "_upsample_nearest_exact2d", "upsample_nearest3d",
    "_upsample_nearest_exact3d", "upsample_linear1d", "upsample_bilinear2d", "_upsample_bilinear2d_aa",
    "upsample_trilinear3d", "upsample_bicubic2d", "_upsample_bicubic2d_aa", "prod", "softmax", "log_softmax",
    "cumprod", "cumsum", "linalg_vector_norm", "linalg_matrix_norm", "vector_norm", "matrix_norm", "sum", "norm",
    "cross_entropy_loss",
}

# CUDA: run in the widest floating type among the arguments.
CUDA_PROMOTE = {"addcdiv", "addcmul", "atan2", "bilinear", "cross", "dot", "vdot", "grid_sampler", "index_put",
                "tensordot", "scatter_add"}


def _lookup(name: str, namespace: str | None, tables: tuple) -> str:
    if namespace == "linalg" and name in ("matmul", "vecdot"):
        return "Lower"
    if namespace not in (None, "linalg", "_nn", "special"):
        return "None"
    for table, pol in tables:
        if name in table:
            return pol
    return "None"


def policy(name: str, namespace: str | None) -> tuple[str, str]:
    """The C++ AutocastPolicy of an op under CPU autocast and under CUDA autocast ("None": not
    autocast there)."""
    return (_lookup(name, namespace, ((LOWER, "Lower"), (FP32, "Fp32"), (PROMOTE, "Promote"))),
            _lookup(name, namespace, ((CUDA_LOWER, "Lower"), (CUDA_FP32, "Fp32"), (CUDA_PROMOTE, "Promote"))))
