"""SummaryWriter: the torch.utils.tensorboard writer API, writing TensorBoard event files.

Event records are framed and queued by the `tensorboard` package's own EventFileWriter
(background flush thread, TFRecord framing with masked CRC32C).
"""

from __future__ import annotations

import os
import socket
import time
from datetime import datetime
from typing import Any

from tensorboard.compat.proto.event_pb2 import Event, SessionLog, TaggedRunMetadata
from tensorboard.compat.proto.summary_pb2 import Summary
from tensorboard.summary.writer.event_file_writer import EventFileWriter

from . import summary as S
from ._convert import figure_to_image, make_np

__all__ = ["FileWriter", "SummaryWriter"]


class FileWriter:
    """Writes `Event` protos to one event file in `log_dir` (created if needed)."""

    def __init__(self, log_dir: str, max_queue: int = 10, flush_secs: int = 120, filename_suffix: str = "") -> None:
        self.event_writer = EventFileWriter(str(log_dir), max_queue, flush_secs, filename_suffix)

    def get_logdir(self) -> str:
        """The directory the event file is written in."""
        return self.event_writer.get_logdir()

    def add_event(self, event: Event, step: int | None = None, walltime: float | None = None) -> None:
        """Appends ``event`` to the event file, stamped with ``step`` and ``walltime`` (now if
        None)."""
        event.wall_time = time.time() if walltime is None else walltime
        if step is not None:
            event.step = int(step)  # NumPy / tensor steps must become a plain int for protobuf
        self.event_writer.add_event(event)

    def add_summary(self, summary: Summary, global_step: int | None = None, walltime: float | None = None) -> None:
        """Appends a ``Summary`` protobuf as an event at ``global_step``."""
        self.add_event(Event(summary=summary), global_step, walltime)

    def add_graph(self, graph_def: Any, run_metadata: Any = None, walltime: float | None = None) -> None:
        """Appends a model graph (a ``GraphDef``, with optional run metadata) as an event."""
        self.add_event(Event(graph_def=graph_def.SerializeToString()), None, walltime)
        if run_metadata is not None:
            trm = TaggedRunMetadata(tag="step1", run_metadata=run_metadata.SerializeToString())
            self.add_event(Event(tagged_run_metadata=trm), None, walltime)

    def flush(self) -> None:
        """Writes the pending events to disk."""
        self.event_writer.flush()

    def close(self) -> None:
        """Flushes and closes the event file."""
        self.event_writer.close()


def _default_logdir(comment: str) -> str:
    stamp = datetime.now().strftime("%b%d_%H-%M-%S")
    return os.path.join("runs", stamp + "_" + socket.gethostname() + comment)


class SummaryWriter:
    """Writes scalars, histograms, images, text, hparams, graphs and embeddings for TensorBoard.

    Events are queued (up to `max_queue`) and written by a background thread every
    `flush_secs`, on `flush()`, on `close()` and when the queue is full.
    """

    def __init__(
        self,
        log_dir: str | os.PathLike[str] | None = None,
        comment: str = "",
        purge_step: int | None = None,
        max_queue: int = 10,
        flush_secs: int = 120,
        filename_suffix: str = "",
    ) -> None:
        self.log_dir = str(log_dir) if log_dir else _default_logdir(comment)
        self.purge_step = purge_step
        self.max_queue = max_queue
        self.flush_secs = flush_secs
        self.filename_suffix = filename_suffix
        self.file_writer: FileWriter | None = None
        self.all_writers: dict[str, FileWriter] | None = None
        self._get_file_writer()
        self.default_bins = S.default_bins()

    def _get_file_writer(self) -> FileWriter:
        """The main FileWriter; re-created (new event file) when used after close()."""
        if self.file_writer is None or self.all_writers is None:
            fw = FileWriter(self.log_dir, self.max_queue, self.flush_secs, self.filename_suffix)
            self.file_writer = fw
            self.all_writers = {fw.get_logdir(): fw}
            if self.purge_step is not None:
                # TensorBoard drops earlier events with step >= purge_step (a crashed run's tail).
                fw.add_event(Event(step=self.purge_step, file_version="brain.Event:2"))
                fw.add_event(Event(step=self.purge_step, session_log=SessionLog(status=SessionLog.START)))
                self.purge_step = None
        return self.file_writer

    def get_logdir(self) -> str:
        """The directory this writer's event files go to."""
        return self.log_dir

    # ------------------------------------------------------------------ scalars

    def add_scalar(
        self,
        tag: str,
        scalar_value: Any,
        global_step: int | None = None,
        walltime: float | None = None,
        new_style: bool = False,
        double_precision: bool = False,
    ) -> None:
        """Logs one value of the series ``tag`` (a float or a one-element tensor); ``global_step``
        is the x-axis value, ``walltime`` the event time (now if None).

        Example::

            >>> import tempfile
            >>> from ember.utils.tensorboard import SummaryWriter
            >>> with SummaryWriter(tempfile.mkdtemp()) as w:
            ...     w.add_scalar("loss", 0.5, global_step=1)
        """
        summary = S.scalar(tag, scalar_value, new_style=new_style, double_precision=double_precision)
        self._get_file_writer().add_summary(summary, global_step, walltime)

    def add_scalars(
        self, main_tag: str, tag_scalar_dict: dict[str, Any], global_step: int | None = None,
        walltime: float | None = None,
    ) -> None:
        """One sub-run `<log_dir>/<main_tag>_<key>` per key, each holding tag `main_tag`."""
        walltime = time.time() if walltime is None else walltime
        base = self._get_file_writer().get_logdir()
        assert self.all_writers is not None
        for key, value in tag_scalar_dict.items():
            path = base + "/" + main_tag.replace("/", "_") + "_" + key
            fw = self.all_writers.get(path)
            if fw is None:
                fw = self.all_writers[path] = FileWriter(path, self.max_queue, self.flush_secs, self.filename_suffix)
            fw.add_summary(S.scalar(main_tag, value), global_step, walltime)

    def add_tensor(self, tag: str, tensor: Any, global_step: int | None = None, walltime: float | None = None) -> None:
        """Logs a tensor as a TensorProto summary under ``tag``; ``global_step`` is the x-axis
        value, ``walltime`` the event time (now if None)."""
        from tensorboard.compat.proto.summary_pb2 import SummaryMetadata
        from tensorboard.util.tensor_util import make_tensor_proto

        meta = SummaryMetadata(plugin_data=SummaryMetadata.PluginData(plugin_name="tensor"))
        summary = Summary(value=[Summary.Value(tag=tag, metadata=meta, tensor=make_tensor_proto(make_np(tensor)))])
        self._get_file_writer().add_summary(summary, global_step, walltime)

    # --------------------------------------------------------------- histograms

    def add_histogram(
        self, tag: str, values: Any, global_step: int | None = None, bins: Any = "tensorflow",
        walltime: float | None = None, max_bins: int | None = None,
    ) -> None:
        """Logs the distribution of ``values`` (a tensor or array) under ``tag``, binned as ``bins``
        says (``"tensorflow"``, a numpy bin rule or explicit edges);
        ``global_step`` is the x-axis value, ``walltime`` the event time (now if None).
        """
        if isinstance(bins, str) and bins == "tensorflow":
            bins = self.default_bins
        self._get_file_writer().add_summary(S.histogram(tag, values, bins, max_bins=max_bins), global_step, walltime)

    def add_histogram_raw(
        self, tag: str, min: float, max: float, num: int, sum: float, sum_squares: float,  # noqa: A002
        bucket_limits: Any, bucket_counts: Any, global_step: int | None = None, walltime: float | None = None,
    ) -> None:
        """Logs a histogram from precomputed statistics and bucket limits/counts; ``global_step``
        is the x-axis value, ``walltime`` the event time (now if None)."""
        if len(bucket_limits) != len(bucket_counts):
            raise ValueError("len(bucket_limits) != len(bucket_counts), see the document.")
        summary = S.histogram_raw(tag, min, max, num, sum, sum_squares, bucket_limits, bucket_counts)
        self._get_file_writer().add_summary(summary, global_step, walltime)

    # ------------------------------------------------------------------- images

    def add_image(
        self, tag: str, img_tensor: Any, global_step: int | None = None, walltime: float | None = None,
        dataformats: str = "CHW",
    ) -> None:
        """Logs one image (a ``(3, H, W)`` tensor or array by default; ``dataformats`` gives another
        layout, such as ``"HWC"``), with float values in ``[0, 1]`` or uint8;
        ``global_step`` is the x-axis value, ``walltime`` the event time (now if None).
        """
        self._get_file_writer().add_summary(S.image(tag, img_tensor, dataformats=dataformats), global_step, walltime)

    def add_images(
        self, tag: str, img_tensor: Any, global_step: int | None = None, walltime: float | None = None,
        dataformats: str = "NCHW",
    ) -> None:
        """A batch of images tiled into one grid image (8 per row)."""
        self._get_file_writer().add_summary(S.image(tag, img_tensor, dataformats=dataformats), global_step, walltime)

    def add_image_with_boxes(
        self, tag: str, img_tensor: Any, box_tensor: Any, global_step: int | None = None,
        walltime: float | None = None, rescale: float = 1, dataformats: str = "CHW", labels: list[str] | None = None,
    ) -> None:
        """Logs an image with the ``(N, 4)`` boxes ``box_tensor`` (x1, y1, x2, y2) drawn on it,
        optionally labelled; ``global_step`` is the x-axis value, ``walltime`` the event time
        (now if None)."""
        summary = S.image_boxes(tag, img_tensor, box_tensor, rescale, dataformats, labels)
        self._get_file_writer().add_summary(summary, global_step, walltime)

    def add_figure(
        self, tag: str, figure: Any, global_step: int | None = None, close: bool = True,
        walltime: float | None = None,
    ) -> None:
        """A matplotlib figure (or a list of them, tiled) rendered to an image."""
        if isinstance(figure, list):
            self.add_image(tag, figure_to_image(figure, close), global_step, walltime, dataformats="NCHW")
        else:
            self.add_image(tag, figure_to_image(figure, close), global_step, walltime, dataformats="CHW")

    # ---------------------------------------------------------- audio / video

    def add_audio(
        self, tag: str, snd_tensor: Any, global_step: int | None = None, sample_rate: int = 44100,
        walltime: float | None = None,
    ) -> None:
        """A mono clip of samples in [-1, 1], stored as 16-bit WAV."""
        from ._media import audio

        self._get_file_writer().add_summary(audio(tag, snd_tensor, sample_rate), global_step, walltime)

    def add_video(
        self, tag: str, vid_tensor: Any, global_step: int | None = None, fps: float = 4,
        walltime: float | None = None,
    ) -> None:
        """Videos (N, T, C, H, W) tiled into one animated GIF."""
        from ._media import video

        self._get_file_writer().add_summary(video(tag, vid_tensor, fps), global_step, walltime)

    def add_mesh(
        self, tag: str, vertices: Any, colors: Any = None, faces: Any = None,
        config_dict: dict[str, Any] | None = None, global_step: int | None = None, walltime: float | None = None,
    ) -> None:
        """A mesh or point cloud ([B, N, 3] vertices, optional faces and colors) for the mesh
        plugin."""
        from ._media import mesh

        self._get_file_writer().add_summary(mesh(tag, vertices, colors, faces, config_dict), global_step, walltime)

    # ------------------------------------------------------------ custom scalars

    def add_custom_scalars(self, layout: dict[str, dict[str, list[Any]]]) -> None:
        """Chart layout for the custom-scalars plugin: {category: {title: [kind, tags]}}."""
        from ._media import custom_scalars

        self._get_file_writer().add_summary(custom_scalars(layout))

    def add_custom_scalars_multilinechart(
        self, tags: list[str], category: str = "default", title: str = "untitled"
    ) -> None:
        """Adds a custom-scalars chart that draws the series ``tags`` as lines in one plot."""
        self.add_custom_scalars({category: {title: ["Multiline", tags]}})

    def add_custom_scalars_marginchart(
        self, tags: list[str], category: str = "default", title: str = "untitled"
    ) -> None:
        """Adds a custom-scalars chart that draws a value with its lower and upper bounds (three
        tags) as a band."""
        if len(tags) != 3:
            raise AssertionError(f"add_custom_scalars_marginchart: expected 3 tags, got {len(tags)}")
        self.add_custom_scalars({category: {title: ["Margin", tags]}})

    # --------------------------------------------------------------------- text

    def add_text(
        self, tag: str, text_string: str, global_step: int | None = None, walltime: float | None = None
    ) -> None:
        """Logs ``text_string`` (Markdown) under ``tag``; ``global_step`` is the x-axis value,
        ``walltime`` the event time (now if None)."""
        self._get_file_writer().add_summary(S.text(tag, text_string), global_step, walltime)

    # ------------------------------------------------------------------ hparams

    def add_hparams(
        self,
        hparam_dict: dict[str, Any],
        metric_dict: dict[str, Any],
        hparam_domain_discrete: dict[str, list[Any]] | None = None,
        run_name: str | None = None,
        global_step: int | None = None,
    ) -> None:
        """Hyper-parameters and their metrics, in the sub-run `<log_dir>/<run_name or time>`."""
        if type(hparam_dict) is not dict or type(metric_dict) is not dict:
            raise TypeError("hparam_dict and metric_dict should be dictionary.")
        exp, start, end = S.hparams(hparam_dict, metric_dict, hparam_domain_discrete)
        logdir = os.path.join(self._get_file_writer().get_logdir(), run_name or str(time.time()))
        with SummaryWriter(log_dir=logdir) as w:
            fw = w._get_file_writer()
            for s in (exp, start, end):
                fw.add_summary(s, global_step)
            for k, v in metric_dict.items():
                w.add_scalar(k, v, global_step)

    # --------------------------------------------------------------- PR curves

    def add_pr_curve(
        self, tag: str, labels: Any, predictions: Any, global_step: int | None = None, num_thresholds: int = 127,
        weights: Any = None, walltime: float | None = None,
    ) -> None:
        """Logs a precision-recall curve from the binary ``labels`` and the ``predictions`` (probabilities),
        at ``num_thresholds`` thresholds;
        ``global_step`` is the x-axis value, ``walltime`` the event time (now if None).
        """
        summary = S.pr_curve(tag, labels, predictions, num_thresholds, weights)
        self._get_file_writer().add_summary(summary, global_step, walltime)

    def add_pr_curve_raw(
        self, tag: str, true_positive_counts: Any, false_positive_counts: Any, true_negative_counts: Any,
        false_negative_counts: Any, precision: Any, recall: Any, global_step: int | None = None,
        num_thresholds: int = 127, weights: Any = None, walltime: float | None = None,
    ) -> None:
        """Logs a precision-recall curve from precomputed true/false positive and negative counts;
        ``global_step`` is the x-axis value, ``walltime`` the event time (now if None)."""
        summary = S.pr_curve_raw(
            tag, true_positive_counts, false_positive_counts, true_negative_counts, false_negative_counts,
            precision, recall, num_thresholds,
        )
        self._get_file_writer().add_summary(summary, global_step, walltime)

    # ------------------------------------------------------- graph / embedding

    def add_graph(
        self, model: Any, input_to_model: Any = None, verbose: bool = False, use_strict_trace: bool = True
    ) -> None:
        """The module's call graph, traced by running `model(input_to_model)` once."""
        from ._graph import graph

        graph_def, run_metadata = graph(model, input_to_model, verbose=verbose)
        self._get_file_writer().add_graph(graph_def, run_metadata)

    def add_embedding(
        self, mat: Any, metadata: list[Any] | None = None, label_img: Any = None, global_step: int | None = None,
        tag: str = "default", metadata_header: list[str] | None = None,
    ) -> None:
        """Vectors (and optional labels / thumbnails) for TensorBoard's projector."""
        from ._embedding import add_embedding

        add_embedding(self, mat, metadata, label_img, global_step, tag, metadata_header)

    # ---------------------------------------------------------------- lifecycle

    def flush(self) -> None:
        """Write every pending event of every sub-writer to disk."""
        for fw in (self.all_writers or {}).values():
            fw.flush()

    def close(self) -> None:
        """Flush and close every event file; a later add_* opens a new file."""
        for fw in (self.all_writers or {}).values():
            fw.flush()
            fw.close()
        self.file_writer = self.all_writers = None

    def __enter__(self) -> SummaryWriter:
        return self

    def __exit__(self, exc_type: Any, exc_val: Any, exc_tb: Any) -> None:
        self.close()
