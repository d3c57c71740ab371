"""The "cuda_nn" suite: ember's CUDA norm, convolution and pooling kernels against torch's on the
same GPU (issue 24). Ratios are torch time / ember time (higher is better; torch runs cuDNN for
convolutions and pooling); each statement synchronizes the device. Rows exist only where both
libraries see a GPU (the GPU machine, tools/gpu_check.sh); elsewhere the suite is empty."""

from __future__ import annotations

from types import ModuleType
from typing import Any

from harness import Bench, gpu_rows

TITLES = {"cuda_nn": "CUDA layer / batch / group norm, convolution, pooling and padding, float32, CUDA autocast and "
                     "complex rotation, exp and tanh, host LAPACK and FFT (ratio = torch/ember time)"}


def gnn(lib: ModuleType) -> dict[str, Any]:
    """An image batch (32, 64, 56, 56), rows (8192, 1024), the parameters, a padded image's gradient,
    unit rotations and the linalg rows' matrices, on the GPU (made on the CPU from fixed seeds: the
    same data for both)."""
    g = lib.Generator().manual_seed(0)
    img = lib.randn(32, 64, 56, 56, generator=g).cuda()
    rows = lib.randn(8192, 1024, generator=g).cuda()
    F = lib.nn.functional

    def amp(fn: Any, *args: Any, **kwargs: Any) -> Any:  # one op in an autocast("cuda") region (weights cast each time)
        with lib.autocast("cuda"):
            return fn(*args, **kwargs)

    g2 = lib.Generator().manual_seed(1)  # the linalg rows' matrices (invertible, positive definite)
    lin = (lib.randn(64, 64, 64, generator=g2) + 8 * lib.eye(64)).cuda()
    a = lib.randn(512, 512, generator=g2, dtype=lib.float64)
    spd = (a @ a.T + 512 * lib.eye(512, dtype=lib.float64)).cuda()
    return {"lin": lin, "spd": spd, "img": img, "rows": rows,
            "w3": (lib.randn(64, 64, 3, 3, generator=g) * 0.05).cuda(),
            "c64": lib.ones(64).cuda(), "z64": lib.zeros(64).cuda(), "r1024": lib.ones(1024).cuda(),
            "w1024": (lib.randn(1024, 1024, generator=g) * 0.03).cuda(), "F": F, "amp": amp,
            "img_r": img.detach().requires_grad_(), "img_g": lib.randn(32, 64, 58, 58, generator=g).cuda(),
            "rot": lib.polar(lib.ones(1024), lib.randn(1024, generator=g)).cuda(), "torch": lib,
            "sync": lib.cuda.synchronize}


ROWS = [
    ("layer_norm float32 8192x1024", "F.layer_norm(rows, [1024], r1024, r1024)"),
    ("batch_norm train float32 32x64x56x56", "F.batch_norm(img, None, None, c64, z64, training=True)"),
    ("batch_norm eval float32 32x64x56x56", "F.batch_norm(img, z64, c64, c64, z64, training=False)"),
    ("group_norm float32 32x64x56x56 (8 groups)", "F.group_norm(img, 8, c64, z64)"),
    ("conv2d 3x3 float32 32x64x56x56 -> 64", "F.conv2d(img, w3, padding=1)"),
    ("max_pool2d 3x3 s2 float32 32x64x56x56", "F.max_pool2d(img, 3, 2, 1)"),
    ("avg_pool2d 2x2 float32 32x64x56x56", "F.avg_pool2d(img, 2)"),
    ("adaptive_avg_pool2d 7x7 float32 32x64x56x56", "F.adaptive_avg_pool2d(img, 7)"),
    ("autocast linear float16 8192x1024 @ 1024x1024", "amp(F.linear, rows, w1024)"),
    ("autocast conv2d 3x3 float16 32x64x56x56 -> 64", "amp(F.conv2d, img, w3, padding=1)"),
    ("autocast softmax (float32 out) 8192x1024", "amp(F.softmax, rows.half(), -1)"),
    ("pad reflect (1,1,1,1) float32 32x64x56x56", "F.pad(img, (1, 1, 1, 1), mode='reflect')"),
    ("pad replicate fwd+bwd float32 32x64x56x56",
     "torch.autograd.grad(F.pad(img_r, (1, 1, 1, 1), mode='replicate'), img_r, img_g)"),
    ("complex64 rotation 8192x1024 (view_as_complex * polar)",
     "torch.view_as_real(torch.view_as_complex(rows.view(8192, 512, 2)) * rot[:512])"),
    ("complex64 exp 8192x512", "torch.view_as_complex(rows.view(8192, 512, 2)).exp()"),
    ("complex64 tanh 8192x512", "torch.view_as_complex(rows.view(8192, 512, 2)).tanh()"),
    # ember's LAPACK ops and FFTs run on the host (the tensors copied there and back); torch's on cuSOLVER / cuFFT
    ("linalg.inv float32 64 x 64x64 (ember: host LAPACK)", "torch.linalg.inv(lin)"),
    ("linalg.cholesky float64 512x512 (ember: host LAPACK)", "torch.linalg.cholesky(spd)"),
    ("fft.rfft float32 8192x1024 (ember: host ducc0)", "torch.fft.rfft(rows)"),
]

BENCHES: list[Bench] = gpu_rows("cuda_nn", ROWS, gnn)
