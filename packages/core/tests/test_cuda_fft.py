"""The FFTs on a GPU (issue 24): ducc0 transforms host memory, so a CUDA tensor's transform runs on
the host and its result comes back to the device (ember/fft/_backend.py). Values, dtypes, strides
and gradients are the CPU's, results on the input's device; meta tensors are refused. Run by the GPU
script (tools/gpu_check.sh) with a CUDA build; skipped elsewhere."""

from __future__ import annotations

from collections.abc import Callable

import ember
import pytest

pytestmark = pytest.mark.skipif(not ember.cuda.is_available(), reason="needs a GPU and a CUDA build of ember")

FFT = ember.fft


def randn(*shape: int, seed: int = 0) -> ember.Tensor:
    return ember.randn(*shape, generator=ember.Generator().manual_seed(seed))


CALLS: dict[str, Callable[[ember.Tensor], ember.Tensor]] = {
    "fft": FFT.fft, "ifft": FFT.ifft, "rfft": FFT.rfft, "irfft": lambda x: FFT.irfft(FFT.rfft(x)),
    "hfft": lambda x: FFT.hfft(FFT.rfft(x)), "ihfft": FFT.ihfft, "fft2": FFT.fft2, "rfftn": FFT.rfftn,
    "irfftn": lambda x: FFT.irfftn(FFT.rfftn(x)), "fft-n": lambda x: FFT.fft(x, n=11, norm="ortho"),
    "fftshift": lambda x: FFT.fftshift(FFT.fft(x)), "rfft-dim0": lambda x: FFT.rfft(x, dim=0),
    "stft": lambda x: ember.stft(x.flatten(), 8, window=ember.hann_window(8, device=x.device), return_complex=True),
    "istft": lambda x: ember.istft(ember.stft(x.flatten(), 8, window=ember.hann_window(8, device=x.device),
                                              return_complex=True), 8, window=ember.hann_window(8, device=x.device)),
}


@pytest.mark.parametrize("dtype", [ember.float32, ember.float64], ids=str)
@pytest.mark.parametrize("name", list(CALLS))
def test_transforms_match_the_cpu(name: str, dtype: ember.dtype) -> None:
    x = randn(6, 16).to(dtype)
    for src in (x, x.t()):  # strided too
        want = CALLS[name](src)
        got = CALLS[name](src.cuda())
        assert got.device.type == "cuda" and got.dtype == want.dtype and got.stride() == want.stride()
        assert bool(got.cpu().eq(want).all())  # the same library on the same host: the same bits


def test_gradients_match_the_cpu() -> None:
    for f in (lambda x: FFT.rfft(x).abs().sum(), lambda x: FFT.irfft(FFT.fft(x).real.to(ember.complex64)).sum(),
              lambda x: FFT.fft2(x).real.pow(2).sum()):
        x = randn(4, 10)
        xc, xg = x.clone().requires_grad_(), x.cuda().requires_grad_()
        f(xc).backward()
        f(xg).backward()
        assert xg.grad.device.type == "cuda"
        ember.testing.assert_close(xg.grad.cpu(), xc.grad)


def test_meta_is_refused_and_the_frequencies_are_made_on_the_device() -> None:
    with pytest.raises(NotImplementedError, match=r"Could not run 'aten::_fft_r2c' with arguments from the 'META'"):
        FFT.rfft(ember.empty(8, device="meta"))
    assert FFT.fftfreq(8, device="cuda").device.type == "cuda"
