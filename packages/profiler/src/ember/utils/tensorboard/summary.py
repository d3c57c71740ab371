"""Builders of TensorBoard `Summary` protos (scalars, histograms, images, text, hparams, PR curves).

The protos come from the `tensorboard` package, so files are readable by TensorBoard itself.
"""

from __future__ import annotations

import io
from typing import Any

import numpy as np

from tensorboard.compat.proto.summary_pb2 import HistogramProto, Summary, SummaryMetadata
from tensorboard.compat.proto.tensor_pb2 import TensorProto
from tensorboard.compat.proto.tensor_shape_pb2 import TensorShapeProto

from ._convert import convert_to_HWC, make_np

__all__ = [
    "default_bins", "histogram", "histogram_raw", "hparams", "image", "make_histogram", "pr_curve",
    "pr_curve_raw", "scalar", "text",
]


def default_bins() -> list[float]:
    """TensorFlow's histogram edges: ±1e-12·1.1^k up to 1e20, mirrored around 0."""
    pos: list[float] = []
    v = 1e-12
    while v < 1e20:
        pos.append(v)
        v *= 1.1
    return [-x for x in reversed(pos)] + [0] + pos


def _one_value(value: Any, what: str) -> float:
    arr = make_np(value).squeeze()
    if arr.ndim != 0:
        raise AssertionError(
            f"{what}: Tensor should contain one element (0 dimensions). Was given size: {arr.size} and "
            f"{arr.ndim} dimensions."
        )
    return float(arr)


def scalar(name: str, value: Any, new_style: bool = False, double_precision: bool = False) -> Summary:
    """A scalar summary: `simple_value`, or a scalars-plugin tensor when `new_style`."""
    x = _one_value(value, "add_scalar")
    if not new_style:
        return Summary(value=[Summary.Value(tag=name, simple_value=x)])
    proto = TensorProto(double_val=[x], dtype="DT_DOUBLE") if double_precision else TensorProto(
        float_val=[x], dtype="DT_FLOAT"
    )
    meta = SummaryMetadata(plugin_data=SummaryMetadata.PluginData(plugin_name="scalars"))
    return Summary(value=[Summary.Value(tag=name, tensor=proto, metadata=meta)])


def histogram_raw(
    name: str, min: float, max: float, num: int, sum: float, sum_squares: float,  # noqa: A002 (torch's names)
    bucket_limits: Any, bucket_counts: Any,
) -> Summary:
    hist = HistogramProto(
        min=min, max=max, num=num, sum=sum, sum_squares=sum_squares,
        bucket_limit=[float(x) for x in bucket_limits], bucket=[float(x) for x in bucket_counts],
    )
    return Summary(value=[Summary.Value(tag=name, histo=hist)])


def make_histogram(values: np.ndarray, bins: Any, max_bins: int | None = None) -> HistogramProto:
    """Bucket `values` with np.histogram and keep only the bins spanning the data.

    TensorBoard stores right edges only, so one empty bucket is kept to the left of the data.
    """
    if values.size == 0:
        raise ValueError("The input has no element.")
    values = values.reshape(-1)
    counts, edges = np.histogram(values, bins=bins)
    if max_bins is not None and len(counts) > max_bins:
        group = len(counts) // max_bins  # merge `group` neighbouring bins, padding the tail with zeros
        if len(counts) % group:
            counts = np.concatenate([counts, np.zeros(group - len(counts) % group, counts.dtype)])
        counts = counts.reshape(-1, group).sum(axis=1)
        edges = np.concatenate([edges[:-1:group], edges[-1:]])
    nonzero = np.flatnonzero(counts)
    if nonzero.size == 0:  # every value was outside the edges (e.g. infinities)
        raise ValueError(f"add_histogram: no value falls inside the bins (values {values[:5]}...)")
    first, last = int(nonzero[0]), int(nonzero[-1])
    kept = counts[first - 1 : last + 1] if first > 0 else np.concatenate([[0], counts[: last + 1]])
    limits = edges[first : last + 2]
    return HistogramProto(
        min=values.min(), max=values.max(), num=len(values), sum=values.sum(), sum_squares=values.dot(values),
        bucket_limit=limits.tolist(), bucket=kept.tolist(),
    )


def histogram(name: str, values: Any, bins: Any, max_bins: int | None = None) -> Summary:
    hist = make_histogram(make_np(values).astype(float), bins, max_bins)
    return Summary(value=[Summary.Value(tag=name, histo=hist)])


def _png(hwc: np.ndarray, rescale: float = 1) -> Summary.Image:
    from PIL import Image

    height, width, channels = hwc.shape
    img = Image.fromarray(hwc)
    if rescale != 1:
        img = img.resize((int(width * rescale), int(height * rescale)), Image.Resampling.LANCZOS)
    buf = io.BytesIO()
    img.save(buf, format="PNG")
    return Summary.Image(height=height, width=width, colorspace=channels, encoded_image_string=buf.getvalue())


def to_uint8_hwc(img: Any, dataformats: str) -> np.ndarray:
    """HWC uint8 pixels: uint8 input is used as is, anything else is taken as [0, 1] and scaled by 255."""
    arr = convert_to_HWC(make_np(img), dataformats)
    scale = 1 if arr.dtype == np.uint8 else 255
    return (arr.astype(np.float32) * scale).clip(0, 255).astype(np.uint8)


def image(tag: str, img: Any, rescale: float = 1, dataformats: str = "NCHW") -> Summary:
    return Summary(value=[Summary.Value(tag=tag, image=_png(to_uint8_hwc(img, dataformats), rescale))])


def image_boxes(
    tag: str, img: Any, boxes: Any, rescale: float = 1, dataformats: str = "CHW", labels: list[str] | None = None
) -> Summary:
    """An image with red (x1, y1, x2, y2) boxes drawn on it, each optionally labelled."""
    from PIL import Image, ImageDraw

    hwc = to_uint8_hwc(img, dataformats)
    rois = make_np(boxes).reshape(-1, 4) if boxes is not None else np.zeros((0, 4))
    if labels is not None and len(labels) != len(rois):
        raise AssertionError(f"add_image_with_boxes: {len(rois)} boxes but {len(labels)} labels")
    pil = Image.fromarray(hwc[:, :, :3]).convert("RGB")
    draw = ImageDraw.Draw(pil)
    for i, (x1, y1, x2, y2) in enumerate(rois.tolist()):
        draw.rectangle([x1, y1, x2, y2], outline=(255, 0, 0), width=1)
        if labels is not None:
            left, top, right, bottom = draw.textbbox((x1, y1), str(labels[i]))
            y = max(y1 - (bottom - top) - 2, 0)  # above the box when there is room
            draw.rectangle([x1, y, x1 + (right - left) + 2, y + (bottom - top) + 2], fill=(255, 0, 0))
            draw.text((x1 + 1, y), str(labels[i]), fill=(0, 0, 0))
    return Summary(value=[Summary.Value(tag=tag, image=_png(np.asarray(pil), rescale))])


def text(tag: str, text_string: str) -> Summary:
    from tensorboard.plugins.text.plugin_data_pb2 import TextPluginData

    meta = SummaryMetadata(
        plugin_data=SummaryMetadata.PluginData(
            plugin_name="text", content=TextPluginData(version=0).SerializeToString()
        )
    )
    proto = TensorProto(
        dtype="DT_STRING", string_val=[text_string.encode("utf-8")],
        tensor_shape=TensorShapeProto(dim=[TensorShapeProto.Dim(size=1)]),
    )
    return Summary(value=[Summary.Value(tag=tag + "/text_summary", metadata=meta, tensor=proto)])


def _pr_summary(tag: str, data: np.ndarray, num_thresholds: int) -> Summary:
    from tensorboard.plugins.pr_curve.plugin_data_pb2 import PrCurvePluginData

    content = PrCurvePluginData(version=0, num_thresholds=num_thresholds).SerializeToString()
    meta = SummaryMetadata(plugin_data=SummaryMetadata.PluginData(plugin_name="pr_curves", content=content))
    proto = TensorProto(
        dtype="DT_FLOAT", float_val=data.reshape(-1).tolist(),
        tensor_shape=TensorShapeProto(dim=[TensorShapeProto.Dim(size=s) for s in data.shape]),
    )
    return Summary(value=[Summary.Value(tag=tag, metadata=meta, tensor=proto)])


def compute_curve(labels: np.ndarray, predictions: np.ndarray, num_thresholds: int, weights: Any = None) -> np.ndarray:
    """Rows tp, fp, tn, fn, precision, recall at `num_thresholds` evenly spaced thresholds in [0, 1]."""
    w = 1.0 if weights is None else weights
    bucket = np.floor(predictions * (num_thresholds - 1)).astype(np.int32)
    pos = labels.astype(np.float64)
    span = (0, num_thresholds - 1)
    tp_b, _ = np.histogram(bucket, bins=num_thresholds, range=span, weights=pos * w)
    fp_b, _ = np.histogram(bucket, bins=num_thresholds, range=span, weights=(1.0 - pos) * w)
    # A prediction counts as positive at every threshold at or below its bucket: reverse cumsum.
    tp = np.cumsum(tp_b[::-1])[::-1]
    fp = np.cumsum(fp_b[::-1])[::-1]
    tn, fn = fp[0] - fp, tp[0] - tp
    eps = 1e-7  # avoids 0/0 where no prediction passes the threshold
    return np.stack((tp, fp, tn, fn, tp / np.maximum(eps, tp + fp), tp / np.maximum(eps, tp + fn)))


def pr_curve(tag: str, labels: Any, predictions: Any, num_thresholds: int = 127, weights: Any = None) -> Summary:
    n = min(num_thresholds, 127)  # the PR-curve plugin reads at most 127 thresholds
    w = None if weights is None else make_np(weights)
    return _pr_summary(tag, compute_curve(make_np(labels), make_np(predictions), n, w), n)


def _array(x: Any) -> np.ndarray:
    return np.asarray(x) if isinstance(x, (list, tuple)) else make_np(x)


def pr_curve_raw(
    tag: str, tp: Any, fp: Any, tn: Any, fn: Any, precision: Any, recall: Any, num_thresholds: int = 127,
) -> Summary:
    n = min(num_thresholds, 127)
    data = np.stack([_array(x).reshape(-1) for x in (tp, fp, tn, fn, precision, recall)])
    return _pr_summary(tag, data, n)


def _hp_plugin_summary(tag: str, **content: Any) -> Summary:
    from tensorboard.plugins.hparams.metadata import PLUGIN_DATA_VERSION, PLUGIN_NAME
    from tensorboard.plugins.hparams.plugin_data_pb2 import HParamsPluginData

    data = HParamsPluginData(version=PLUGIN_DATA_VERSION, **content).SerializeToString()
    meta = SummaryMetadata(plugin_data=SummaryMetadata.PluginData(plugin_name=PLUGIN_NAME, content=data))
    return Summary(value=[Summary.Value(tag=tag, metadata=meta)])


def hparams(
    hparam_dict: dict[str, Any], metric_dict: dict[str, Any], hparam_domain_discrete: dict[str, list[Any]] | None = None
) -> tuple[Summary, Summary, Summary]:
    """The hparams plugin's experiment, session-start and session-end summaries."""
    from google.protobuf import struct_pb2

    from tensorboard.plugins.hparams import metadata as hp_meta
    from tensorboard.plugins.hparams.api_pb2 import DataType, Experiment, HParamInfo, MetricInfo, MetricName, Status
    from tensorboard.plugins.hparams.plugin_data_pb2 import SessionEndInfo, SessionStartInfo

    if not isinstance(hparam_dict, dict):
        raise TypeError("parameter: hparam_dict should be a dictionary, nothing logged.")
    if not isinstance(metric_dict, dict):
        raise TypeError("parameter: metric_dict should be a dictionary, nothing logged.")
    domains = hparam_domain_discrete or {}
    if not isinstance(domains, dict):
        raise TypeError("parameter: hparam_domain_discrete should be a dictionary, nothing logged.")
    for k, v in domains.items():
        if k not in hparam_dict or not isinstance(v, list) or not all(isinstance(d, type(hparam_dict[k])) for d in v):
            raise TypeError(
                f"parameter: hparam_domain_discrete[{k}] should be a list of same type as hparam_dict[{k}]."
            )
    start = SessionStartInfo()
    infos = []
    for k, v in hparam_dict.items():
        if v is None:
            continue
        # bool is tested after int/float on purpose: True is an int, and TensorBoard (like torch)
        # then records it as a number.
        if isinstance(v, (int, float)):
            start.hparams[k].number_value = v
            field, dtype = "number_value", "DATA_TYPE_FLOAT64"
        elif isinstance(v, str):
            start.hparams[k].string_value = v
            field, dtype = "string_value", "DATA_TYPE_STRING"
        elif isinstance(v, bool):
            start.hparams[k].bool_value = v
            field, dtype = "bool_value", "DATA_TYPE_BOOL"
        elif hasattr(v, "detach") and hasattr(v, "numpy"):
            start.hparams[k].number_value = float(make_np(v).reshape(-1)[0])
            infos.append(HParamInfo(name=k, type=DataType.Value("DATA_TYPE_FLOAT64")))
            continue
        else:
            raise ValueError("value should be one of int, float, str, bool, or torch.Tensor")
        domain = None
        if k in domains:
            domain = struct_pb2.ListValue(values=[struct_pb2.Value(**{field: d}) for d in domains[k]])
        infos.append(HParamInfo(name=k, type=DataType.Value(dtype), domain_discrete=domain))
    experiment = Experiment(hparam_infos=infos, metric_infos=[MetricInfo(name=MetricName(tag=k)) for k in metric_dict])
    return (
        _hp_plugin_summary(hp_meta.EXPERIMENT_TAG, experiment=experiment),
        _hp_plugin_summary(hp_meta.SESSION_START_INFO_TAG, session_start_info=start),
        _hp_plugin_summary(
            hp_meta.SESSION_END_INFO_TAG, session_end_info=SessionEndInfo(status=Status.Value("STATUS_SUCCESS"))
        ),
    )
