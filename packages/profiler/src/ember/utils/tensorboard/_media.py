"""Audio (WAV), video (animated GIF) and custom-scalars layout summaries."""

from __future__ import annotations

import io
import warnings
from typing import Any

import numpy as np

from tensorboard.compat.proto.summary_pb2 import Summary, SummaryMetadata
from tensorboard.compat.proto.tensor_pb2 import TensorProto
from tensorboard.compat.proto.tensor_shape_pb2 import TensorShapeProto

from ._convert import make_np


def audio(tag: str, snd: Any, sample_rate: int = 44100) -> Summary:
    """Mono 16-bit PCM WAV of samples in [-1, 1] (louder samples are clipped, with a warning)."""
    import wave

    samples = make_np(snd).squeeze().astype(np.float64)
    if samples.ndim != 1:
        raise AssertionError(f"add_audio: input tensor should be 1 dimensional, got shape {samples.shape}.")
    if samples.size and np.abs(samples).max() > 1:
        warnings.warn("add_audio: audio amplitude out of range, auto clipped.", stacklevel=3)
        samples = samples.clip(-1, 1)
    pcm = (samples * np.iinfo(np.int16).max).astype("<i2")
    buf = io.BytesIO()
    with wave.open(buf, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(sample_rate)
        w.writeframes(pcm.tobytes())
    clip = Summary.Audio(
        sample_rate=sample_rate, num_channels=1, length_frames=pcm.shape[-1], encoded_audio_string=buf.getvalue(),
        content_type="audio/wav",
    )
    return Summary(value=[Summary.Value(tag=tag, audio=clip)])


def _video_frames(v: np.ndarray) -> np.ndarray:
    """[B, T, C, H, W] -> [T, rows*H, cols*W, C]: the batch tiled into a grid per frame (batch
    padded with black videos to a power of two)."""
    if v.ndim != 5:
        raise AssertionError(f"add_video: vid_tensor should be 5D (N, T, C, H, W), got shape {v.shape}")
    v = v.astype(np.float32) / 255.0 if v.dtype == np.uint8 else v.astype(np.float32)
    b, t, c, h, w = v.shape
    if b & (b - 1):
        v = np.concatenate([v, np.zeros((2 ** b.bit_length() - b, t, c, h, w), np.float32)], 0)
    rows = 2 ** ((b.bit_length() - 1) // 2)
    cols = v.shape[0] // rows
    v = v.reshape(rows, cols, t, c, h, w).transpose(2, 0, 4, 1, 5, 3)
    return v.reshape(t, rows * h, cols * w, c)


def video(tag: str, vid: Any, fps: float = 4) -> Summary:
    """An animated GIF (TensorBoard's image plugin plays it)."""
    from PIL import Image

    frames = (_video_frames(make_np(vid)) * 255).clip(0, 255).astype(np.uint8)
    t, h, w, c = frames.shape
    if c not in (1, 3):
        raise AssertionError(f"add_video: expected 1 or 3 channels, got {c}")
    images = [Image.fromarray(f[:, :, 0] if c == 1 else f) for f in frames]
    buf = io.BytesIO()
    images[0].save(buf, format="GIF", save_all=True, append_images=images[1:], duration=int(1000 / fps), loop=0)
    return Summary(value=[Summary.Value(tag=tag, image=Summary.Image(
        height=h, width=w, colorspace=c, encoded_image_string=buf.getvalue()))])


def custom_scalars(layout: dict[str, dict[str, list[Any]]]) -> Summary:
    """The custom-scalars plugin's layout: {category: {chart title: ["Multiline"|"Margin", tags]}}."""
    from tensorboard.plugins.custom_scalar import layout_pb2

    categories = []
    for category, charts in layout.items():
        out = []
        for title, (kind, tags) in charts.items():
            if kind == "Margin":
                if len(tags) != 3:
                    raise AssertionError(
                        f"add_custom_scalars: a Margin chart needs 3 tags (value, lower, upper), got {tags}"
                    )
                series = layout_pb2.MarginChartContent.Series(value=tags[0], lower=tags[1], upper=tags[2])
                out.append(layout_pb2.Chart(title=title, margin=layout_pb2.MarginChartContent(series=[series])))
            else:
                out.append(layout_pb2.Chart(title=title, multiline=layout_pb2.MultilineChartContent(tag=tags)))
        categories.append(layout_pb2.Category(title=category, chart=out))
    proto = TensorProto(
        dtype="DT_STRING", string_val=[layout_pb2.Layout(category=categories).SerializeToString()],
        tensor_shape=TensorShapeProto(),
    )
    meta = SummaryMetadata(plugin_data=SummaryMetadata.PluginData(plugin_name="custom_scalars"))
    return Summary(value=[Summary.Value(tag="custom_scalars__config__", tensor=proto, metadata=meta)])


def mesh(
    tag: str, vertices: Any, colors: Any, faces: Any, config_dict: dict[str, Any] | None,
    display_name: str | None = None, description: str | None = None,
) -> Summary:
    """Mesh-plugin summaries: one [B, N, 3] float tensor each for vertices, faces and colors."""
    import json

    from tensorboard.plugins.mesh import metadata
    from tensorboard.plugins.mesh.plugin_data_pb2 import MeshPluginData

    config = "{}" if config_dict is None else json.dumps(config_dict, sort_keys=True)
    parts = [(x, kind) for x, kind in ((vertices, MeshPluginData.VERTEX), (faces, MeshPluginData.FACE),
                                       (colors, MeshPluginData.COLOR)) if x is not None]
    components = metadata.get_components_bitmask([kind for _, kind in parts])
    values = []
    for x, kind in parts:
        arr = make_np(x)
        if arr.ndim != 3 or arr.shape[-1] != 3:
            raise AssertionError(f"add_mesh: expected a [B, N, 3] tensor, got shape {arr.shape}")
        meta = metadata.create_summary_metadata(
            tag, display_name, kind, components, arr.shape, description, json_config=config
        )
        proto = TensorProto(
            dtype="DT_FLOAT", float_val=arr.reshape(-1).tolist(),
            tensor_shape=TensorShapeProto(dim=[TensorShapeProto.Dim(size=s) for s in arr.shape]),
        )
        values.append(Summary.Value(tag=metadata.get_instance_name(tag, kind), tensor=proto, metadata=meta))
    return Summary(value=values)
