"""ember's process-wide settings against PyTorch 2.13: set_warn_always, the inter-op thread count,
the default device and tensor type, flush-denormal, anomaly mode, the build facts has_*,
is_inference / get_device and legacy_contiguous_format (ember/_runtime.py)."""

from __future__ import annotations

import subprocess
import sys
import warnings

import ember
import pytest

torch = pytest.importorskip("torch")


def _outcome(fn, *args):
    try:
        return "ok", fn(*args)
    except Exception as e:  # noqa: BLE001  (the type and message are what is compared)
        return type(e).__name__, str(e)


@pytest.mark.parametrize("name,arg", [
    ("set_warn_always", 1), ("set_flush_denormal", 1), ("set_flush_denormal", False),
    ("set_num_interop_threads", 0), ("set_num_interop_threads", -1), ("set_num_interop_threads", "a"),
    ("set_num_interop_threads", 2.0), ("set_anomaly_enabled", 1), ("get_device", 1), ("is_inference", 1),
    ("set_default_device", 3), ("set_default_device", "foo"),
])
def test_errors_and_answers_match_torch(name, arg):
    assert _outcome(getattr(ember, name), arg) == _outcome(getattr(torch, name), arg)


def test_build_facts_are_bools_and_truthful():
    for name in ("has_lapack", "has_mkl", "has_openmp", "has_spectral"):
        assert isinstance(getattr(ember, name), bool)
    assert ember.has_lapack and ember.has_openmp and not ember.has_mkl
    import importlib.util

    assert ember.has_spectral == (importlib.util.find_spec("ember.fft") is not None)
    assert ember.legacy_contiguous_format is ember.contiguous_format


def test_warn_always_and_anomaly_flags_round_trip():
    assert ember.is_warn_always_enabled() is torch.is_warn_always_enabled() is False
    ember.set_warn_always(True)
    try:
        assert ember.is_warn_always_enabled() is True
    finally:
        ember.set_warn_always(False)
    ember.set_anomaly_enabled(True, False)
    try:
        assert ember.is_anomaly_enabled() and not ember.is_anomaly_check_nan_enabled()
    finally:
        ember.set_anomaly_enabled(False)
    assert not ember.is_anomaly_enabled()


def test_inference_and_device_of_tensors():
    # (the flag is the tensor's own: is_inference answers Tensor.is_inference)
    t = ember.ones(2)
    assert ember.is_inference(t) is t.is_inference() is torch.is_inference(torch.ones(2)) is False
    assert ember.get_device(ember.ones(2)) == torch.get_device(torch.ones(2)) == -1


def test_default_device():
    ember.set_default_device("cpu:0")
    try:
        assert str(ember.get_default_device()) == "cpu:0"
    finally:
        ember.set_default_device(None)
    assert str(ember.get_default_device()) == "cpu"
    if not ember.cuda.is_available():  # a CUDA build's default device: test_cuda_device.py
        with pytest.raises(AssertionError, match="not compiled with CUDA"):
            ember.set_default_device("cuda")


def test_device_as_a_context_manager():
    """``with ember.device(d):`` makes d the default inside the block and restores the one before, nested
    too (PyTorch's device context)."""
    with ember.device("cpu", 0) as d:
        assert d == ember.device("cpu", 0) and str(ember.get_default_device()) == "cpu:0"
        with ember.device("cpu"):
            assert str(ember.get_default_device()) == "cpu"
        assert str(ember.get_default_device()) == "cpu:0"
    assert str(ember.get_default_device()) == "cpu"
    with pytest.raises(KeyError), ember.device("cpu:0"):
        raise KeyError("the block's error propagates")
    assert str(ember.get_default_device()) == "cpu"
    if not ember.cuda.is_available():
        with pytest.raises(AssertionError, match="not compiled with CUDA"), ember.device("cuda"):
            pass
        assert str(ember.get_default_device()) == "cpu"


@pytest.mark.parametrize("arg", ["LongTensor", "torch.LongTensor", "foo", 1, "float64", "torch.cuda.FloatTensor"])
def test_default_tensor_type_errors(arg):
    def resolve(mod):
        return getattr(mod, arg) if arg in ("LongTensor", "float64") else arg

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert _outcome(ember.set_default_tensor_type, resolve(ember)) == \
            _outcome(torch.set_default_tensor_type, resolve(torch))


@pytest.mark.parametrize("name", ["DoubleTensor", "HalfTensor", "BFloat16Tensor"])
def test_default_tensor_type_sets_the_dtype(name):
    try:
        with pytest.warns(UserWarning, match="set_default_tensor_type\\(\\) is deprecated"):
            ember.set_default_tensor_type(getattr(ember, name))
        assert str(ember.ones(1).dtype) == str(getattr(torch, name).dtype)
        ember.set_default_tensor_type("torch.FloatTensor")
        assert ember.get_default_dtype() == ember.float32
    finally:
        ember.set_default_dtype(ember.float32)


def test_num_interop_threads_is_set_once():
    code = ("import ember\nember.set_num_interop_threads(3)\nprint(ember.get_num_interop_threads())\n"
            "try:\n    ember.set_num_interop_threads(3)\nexcept RuntimeError as e:\n    print(e)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.splitlines() == ["3", "Error: cannot set number of interop threads after parallel work has started "
                                     "or set_num_interop_threads called"]
    assert ember.get_num_interop_threads() >= 1
