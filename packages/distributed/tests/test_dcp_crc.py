"""The archives DCP writes carry correct CRC-32s with ISA-L's checksum and with zlib's
fallback: Python's zipfile verifies every record and PyTorch loads the tensor."""

from __future__ import annotations

import io
import zipfile

import ember
import pytest
from ember.distributed.checkpoint import _tensor_io


@pytest.mark.parametrize("fast", [True, False])
def test_archive_crcs(monkeypatch: pytest.MonkeyPatch, fast: bool) -> None:
    if fast and _tensor_io._fast_crc32 is None:
        pytest.skip("isal is not installed")
    if not fast:
        monkeypatch.setattr(_tensor_io, "_fast_crc32", None)
    t = ember.arange(300_000, dtype=ember.float32).reshape(1000, 300)  # 1.2 MB: a big record
    buf = io.BytesIO()
    _tensor_io.write_tensor(buf.write, t)
    data = bytearray(buf.getvalue())
    assert zipfile.ZipFile(io.BytesIO(bytes(data))).testzip() is None
    data[len(data) // 2] ^= 1  # inside the tensor's payload: the checksum must catch it
    assert zipfile.ZipFile(io.BytesIO(bytes(data))).testzip() == "archive/data/0"
    torch = pytest.importorskip("torch")
    back = torch.load(io.BytesIO(buf.getvalue()), weights_only=True)
    assert torch.equal(back, torch.arange(300_000, dtype=torch.float32).reshape(1000, 300))
