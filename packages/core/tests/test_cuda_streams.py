"""CUDA streams, events, pinned memory and non_blocking copies on a GPU (issue 24): run by the GPU
script with a CUDA build of ember; skipped elsewhere (test_cuda_streams_api.py checks the same
names without a GPU)."""

from __future__ import annotations

import ember
import pytest

pytestmark = pytest.mark.skipif(not ember.cuda.is_available(), reason="needs a GPU and a CUDA build of ember")


def test_default_and_current_streams() -> None:
    d = ember.cuda.default_stream()
    assert d.cuda_stream == 0 and d.device == ember.device("cuda", 0)
    assert ember.cuda.current_stream() == d
    s = ember.cuda.Stream()
    assert s != d and s.cuda_stream != 0 and hash(s) == hash(ember.cuda.Stream._wrap(s.cuda_stream, 0))
    assert repr(s).startswith("<torch.cuda.Stream device=cuda:0 cuda_stream=0x")
    with ember.cuda.stream(s) as entered:
        assert entered is s and ember.cuda.current_stream() == s
    assert ember.cuda.current_stream() == d


def test_work_on_a_side_stream_is_ordered_by_events() -> None:
    x = ember.randn(1 << 20, device="cuda")
    s = ember.cuda.Stream()
    s.wait_stream(ember.cuda.current_stream())  # x is ready before s reads it
    with ember.cuda.stream(s):
        y = (x * 2 + 1).sum()
    ev = s.record_event()
    ember.cuda.current_stream().wait_event(ev)
    assert abs(float(y) - float((x.cpu() * 2 + 1).sum())) < 1e-2 * (1 + abs(float(y)))
    s.synchronize()
    assert s.query() and ev.query()


def test_event_timing() -> None:
    a, b = ember.cuda.Event(enable_timing=True), ember.cuda.Event(enable_timing=True)
    assert a.query() and repr(a) == "<torch.cuda.Event uninitialized>"
    a.record()
    ember.ones(1 << 22, device="cuda").mul_(3)
    b.record()
    b.synchronize()
    assert a.elapsed_time(b) >= 0.0
    with pytest.raises(RuntimeError):
        ember.cuda.Event().elapsed_time(b)


def test_record_stream_keeps_memory_until_the_stream_is_done() -> None:
    s = ember.cuda.Stream()
    x = ember.empty(1 << 20, device="cuda")
    with ember.cuda.stream(s):
        x.fill_(1.0)
    x.record_stream(s)
    del x
    s.synchronize()
    with pytest.raises(RuntimeError, match="unknown parameter type"):
        ember.ones(2, device="cuda").record_stream(None)


def test_pinned_memory_and_non_blocking_copies() -> None:
    x = ember.arange(1 << 16, dtype=ember.float32)
    p = x.pin_memory()
    assert p.is_pinned() and not x.is_pinned() and p.pin_memory() is p and p.equal(x)
    d = p.to("cuda", non_blocking=True)
    back = d.to("cpu", non_blocking=True)  # lands in pinned memory, as aten's
    ember.cuda.synchronize()
    assert back.is_pinned() and back.equal(x)
    with pytest.raises(RuntimeError, match="only dense CPU tensors can be pinned"):
        d.pin_memory()
    cl = ember.randn(2, 3, 4, 5).contiguous(memory_format=ember.channels_last)
    for src in (cl, cl.transpose(0, 1)):  # aten's _pin_memory keeps a dense layout's strides
        q = src.pin_memory()
        assert q.is_pinned() and q.stride() == src.stride() and q.equal(src)
    sl = x.reshape(256, 256)[:, ::3]  # a slice: the strides kept over a storage of their span
    assert sl.pin_memory().stride() == sl.stride() and sl.pin_memory().equal(sl)
    ex = x[:4].expand(3, 4)  # overlapping: made dense
    assert ex.pin_memory().is_contiguous() and ex.pin_memory().equal(ex)


def test_factories_pin_on_request() -> None:
    z = ember.zeros(5, pin_memory=True)
    assert z.is_pinned() and z.equal(ember.zeros(5)) and not ember.zeros(5).is_pinned()
    assert ember.full((2, 3), 7.0, pin_memory=True).is_pinned()
    for like in (ember.zeros_like(z, pin_memory=True), ember.ones_like(z, pin_memory=True),
                 ember.empty_like(z, pin_memory=True), ember.full_like(z, 2.0, pin_memory=True),
                 ember.rand_like(z, pin_memory=True)):
        assert like.is_pinned() and like.shape == z.shape


def test_dataloader_pins_batches() -> None:
    data = pytest.importorskip("ember.utils.data")
    ds = data.TensorDataset(ember.arange(12.0).reshape(6, 2))
    batches = list(data.DataLoader(ds, batch_size=3, pin_memory=True))
    assert all(b[0].is_pinned() for b in batches)


def test_mem_get_info() -> None:
    free, total = ember.cuda.mem_get_info()
    assert 0 < free <= total
