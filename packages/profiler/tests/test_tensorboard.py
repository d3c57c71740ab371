"""SummaryWriter: event files read back with tensorboard's EventAccumulator, and compared with
what torch.utils.tensorboard writes for the same input."""

from __future__ import annotations

import glob
import os
import struct

import pytest

np = pytest.importorskip("numpy")
pytest.importorskip("tensorboard")
pytest.importorskip("PIL")

import ember  # noqa: E402
from ember.utils.tensorboard import SummaryWriter  # noqa: E402
from tensorboard.backend.event_processing.event_accumulator import EventAccumulator  # noqa: E402


def load(logdir: str) -> EventAccumulator:
    acc = EventAccumulator(str(logdir), size_guidance={"scalars": 0, "histograms": 0, "images": 0, "tensors": 0})
    acc.Reload()
    return acc


def torch_writer():
    torch = pytest.importorskip("torch")
    from torch.utils.tensorboard import SummaryWriter as TorchWriter

    return torch, TorchWriter


# ---------------------------------------------------------------- event file


def _crc32c(data: bytes) -> int:
    crc = 0xFFFFFFFF
    for b in data:
        crc ^= b
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82F63B78 & -(crc & 1))
    return crc ^ 0xFFFFFFFF


def _masked(crc: int) -> int:
    return (((crc >> 15) | (crc << 17)) + 0xA282EAD8) & 0xFFFFFFFF


def test_event_file_name_and_tfrecord_framing(tmp_path):
    with SummaryWriter(str(tmp_path), filename_suffix=".sfx") as w:
        w.add_scalar("loss", 1.5, 3)
    (path,) = glob.glob(str(tmp_path / "events.out.tfevents.*"))
    name = os.path.basename(path)
    parts = name.split(".")
    assert parts[:3] == ["events", "out", "tfevents"]
    assert len(parts[3]) == 10 and parts[3].isdigit()
    assert str(os.getpid()) in name and name.endswith(".sfx")
    from tensorboard.compat.proto.event_pb2 import Event

    data = open(path, "rb").read()
    events, pos = [], 0
    while pos < len(data):
        header = data[pos : pos + 8]
        (length,) = struct.unpack("<Q", header)
        (hcrc,) = struct.unpack("<I", data[pos + 8 : pos + 12])
        assert hcrc == _masked(_crc32c(header))
        payload = data[pos + 12 : pos + 12 + length]
        (pcrc,) = struct.unpack("<I", data[pos + 12 + length : pos + 16 + length])
        assert pcrc == _masked(_crc32c(payload))
        events.append(Event.FromString(payload))
        pos += 16 + length
    assert events[0].file_version == "brain.Event:2"
    assert events[1].step == 3 and events[1].summary.value[0].simple_value == 1.5


# ------------------------------------------------------------------- scalars


def test_scalars_accept_numbers_numpy_and_tensors(tmp_path):
    with SummaryWriter(str(tmp_path)) as w:
        w.add_scalar("s", 1, 0)
        w.add_scalar("s", 2.5, 1)
        w.add_scalar("s", np.float32(3.25), 2)
        w.add_scalar("s", ember.tensor(4.5), 3)
        w.add_scalar("s", ember.tensor([5.0], requires_grad=True) * 1, np.int64(4))
        w.add_scalar("s", np.array([[6.0]]), 5, walltime=1234.5)
        w.add_scalar("s", 7.0)  # no step -> 0
    got = [(e.step, e.value) for e in load(tmp_path).Scalars("s")]
    assert got == [(0, 1.0), (1, 2.5), (2, 3.25), (3, 4.5), (4, 5.0), (5, 6.0), (0, 7.0)]
    assert load(tmp_path).Scalars("s")[5].wall_time == 1234.5


def test_scalar_with_many_elements_is_rejected(tmp_path):
    with SummaryWriter(str(tmp_path)) as w:
        with pytest.raises(AssertionError, match="one element"):
            w.add_scalar("bad", ember.ones(3))


def test_new_style_scalar_matches_torch(tmp_path):
    torch, TorchWriter = torch_writer()
    with SummaryWriter(str(tmp_path / "e")) as w:
        w.add_scalar("n", 0.5, 1, new_style=True)
        w.add_scalar("d", 0.25, 1, new_style=True, double_precision=True)
    with TorchWriter(str(tmp_path / "t")) as w:
        w.add_scalar("n", 0.5, 1, new_style=True)
        w.add_scalar("d", 0.25, 1, new_style=True, double_precision=True)
    e, t = load(tmp_path / "e"), load(tmp_path / "t")
    for tag in ("n", "d"):
        assert e.Tensors(tag)[0].tensor_proto == t.Tensors(tag)[0].tensor_proto
        assert e.SummaryMetadata(tag) == t.SummaryMetadata(tag)


def test_add_scalars_writes_one_subrun_per_key_like_torch(tmp_path):
    torch, TorchWriter = torch_writer()
    for lib_writer, sub in ((SummaryWriter, "e"), (TorchWriter, "t")):
        with lib_writer(str(tmp_path / sub)) as w:
            w.add_scalars("run/loss", {"train": 1.0, "val": 2.0}, 7)
    dirs_e = sorted(os.listdir(tmp_path / "e"))
    dirs_t = sorted(os.listdir(tmp_path / "t"))
    assert [d for d in dirs_e if not d.startswith("events")] == [d for d in dirs_t if not d.startswith("events")]
    assert [d for d in dirs_e if not d.startswith("events")] == ["run_loss_train", "run_loss_val"]
    acc = load(tmp_path / "e" / "run_loss_val")
    assert [(s.step, s.value) for s in acc.Scalars("run/loss")] == [(7, 2.0)]


# --------------------------------------------------------------------- text


def test_text_matches_torch(tmp_path):
    torch, TorchWriter = torch_writer()
    with SummaryWriter(str(tmp_path / "e")) as w:
        w.add_text("note", "hello **world** é", 2)
    with TorchWriter(str(tmp_path / "t")) as w:
        w.add_text("note", "hello **world** é", 2)
    e, t = load(tmp_path / "e"), load(tmp_path / "t")
    assert e.Tags()["tensors"] == ["note/text_summary"]
    ev = e.Tensors("note/text_summary")[0]
    assert ev.step == 2 and ev.tensor_proto.string_val == ["hello **world** é".encode()]
    assert ev.tensor_proto == t.Tensors("note/text_summary")[0].tensor_proto
    assert e.SummaryMetadata("note/text_summary") == t.SummaryMetadata("note/text_summary")


# ---------------------------------------------------------------- histograms


@pytest.mark.parametrize("bins,max_bins", [("tensorflow", None), ("auto", None), (10, None), (64, 7), ("fd", None)])
def test_histogram_buckets_match_torch(tmp_path, bins, max_bins):
    torch, TorchWriter = torch_writer()
    values = np.random.default_rng(0).normal(size=1000).astype(np.float32)
    with SummaryWriter(str(tmp_path / "e")) as w:
        w.add_histogram("h", ember.from_numpy(values), 1, bins=bins, max_bins=max_bins)
        w.add_histogram("np", values.astype(np.float64) * 3, 2, bins=bins, max_bins=max_bins)
    with TorchWriter(str(tmp_path / "t")) as w:
        w.add_histogram("h", torch.from_numpy(values), 1, bins=bins, max_bins=max_bins)
        w.add_histogram("np", values.astype(np.float64) * 3, 2, bins=bins, max_bins=max_bins)
    e, t = load(tmp_path / "e"), load(tmp_path / "t")
    for tag in ("h", "np"):
        he, ht = e.Histograms(tag)[0], t.Histograms(tag)[0]
        assert he.step == ht.step
        assert he.histogram_value == ht.histogram_value
    hv = e.Histograms("h")[0].histogram_value
    assert hv.num == 1000 and hv.min == float(values.min()) and hv.max == float(values.max())


def test_histogram_of_constant_and_raw(tmp_path):
    torch, TorchWriter = torch_writer()
    for lib_writer, sub in ((SummaryWriter, "e"), (TorchWriter, "t")):
        with lib_writer(str(tmp_path / sub)) as w:
            w.add_histogram("c", np.zeros(5), 0)
            w.add_histogram_raw("r", 0, 10, 4, 20, 150, [1.0, 5.0, 10.0], [1, 2, 1], global_step=3)
    e, t = load(tmp_path / "e"), load(tmp_path / "t")
    for tag in ("c", "r"):
        assert e.Histograms(tag)[0].histogram_value == t.Histograms(tag)[0].histogram_value
    with SummaryWriter(str(tmp_path / "x")) as w:
        with pytest.raises(ValueError, match="no element"):
            w.add_histogram("empty", np.array([]))
        with pytest.raises(ValueError, match="bucket_limits"):
            w.add_histogram_raw("r", 0, 1, 1, 1, 1, [1.0, 2.0], [1])


# -------------------------------------------------------------------- images


def _image_cases():
    rng = np.random.default_rng(1)
    return [
        ("chw_float", rng.random((3, 8, 10)).astype(np.float32), "CHW"),
        ("hwc_uint8", rng.integers(0, 256, (6, 5, 3)).astype(np.uint8), "HWC"),
        ("hw", rng.random((4, 7)).astype(np.float32), "HW"),
        ("one_channel", rng.random((1, 5, 5)).astype(np.float32), "CHW"),
        ("out_of_range", (rng.random((3, 4, 4)) * 3 - 1).astype(np.float32), "CHW"),
        ("rgba_hwc", rng.random((5, 6, 4)).astype(np.float32), "HWC"),
    ]


def test_images_encode_like_torch(tmp_path):
    torch, TorchWriter = torch_writer()
    cases = _image_cases()
    with SummaryWriter(str(tmp_path / "e")) as w:
        for tag, arr, fmt in cases:
            w.add_image(tag, ember.from_numpy(arr), 1, dataformats=fmt)
        w.add_images("batch", ember.from_numpy(np.random.default_rng(2).random((11, 3, 4, 5)).astype(np.float32)), 2)
        w.add_images("nhwc", np.random.default_rng(3).random((3, 4, 5, 1)).astype(np.float32), 2, dataformats="NHWC")
    with TorchWriter(str(tmp_path / "t")) as w:
        for tag, arr, fmt in cases:
            w.add_image(tag, torch.from_numpy(arr), 1, dataformats=fmt)
        w.add_images("batch", torch.from_numpy(np.random.default_rng(2).random((11, 3, 4, 5)).astype(np.float32)), 2)
        w.add_images("nhwc", np.random.default_rng(3).random((3, 4, 5, 1)).astype(np.float32), 2, dataformats="NHWC")
    e, t = load(tmp_path / "e"), load(tmp_path / "t")
    assert sorted(e.Tags()["images"]) == sorted(t.Tags()["images"])
    for tag in e.Tags()["images"]:
        ie, it = e.Images(tag)[0], t.Images(tag)[0]
        assert (ie.step, ie.width, ie.height) == (it.step, it.width, it.height)
        assert ie.encoded_image_string == it.encoded_image_string, tag
    batch = e.Images("batch")[0]
    assert (batch.height, batch.width) == (8, 40)  # 11 images of 4x5, 8 per row -> 2 rows


def test_image_shape_format_mismatch(tmp_path):
    with SummaryWriter(str(tmp_path)) as w:
        with pytest.raises(AssertionError, match="size of input tensor and input format are different"):
            w.add_image("bad", np.zeros((3, 4, 4)), dataformats="HW")
        with pytest.raises(AssertionError, match="same dimension shorthand twice"):
            w.add_image("bad", np.zeros((3, 4, 4)), dataformats="HHW")


def test_add_figure(tmp_path):
    pytest.importorskip("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig = plt.figure(figsize=(2, 1.5), dpi=50)
    plt.plot([0, 1, 2], [1, 0, 1])
    figs = [plt.figure(figsize=(1, 1), dpi=40) for _ in range(3)]
    with SummaryWriter(str(tmp_path)) as w:
        w.add_figure("fig", fig, 4)
        w.add_figure("figs", figs, 5)
    acc = load(tmp_path)
    img = acc.Images("fig")[0]
    assert (img.step, img.width, img.height) == (4, 100, 75)
    assert acc.Images("figs")[0].width == 120
    assert not plt.fignum_exists(fig.number)  # close=True closes rendered figures
    import io

    from PIL import Image

    pixels = np.asarray(Image.open(io.BytesIO(img.encoded_image_string)))
    assert pixels.shape == (75, 100, 3) and pixels.min() < 128  # the line is drawn on white


# ------------------------------------------------------------------- hparams


def _hparam_summaries(acc, plugin="hparams"):
    return acc.PluginTagToContent(plugin)


def test_hparams_match_torch(tmp_path):
    torch, TorchWriter = torch_writer()
    hp = {"lr": 0.1, "bsize": 32, "opt": "sgd", "nesterov": True, "none": None}
    metrics = {"hparam/accuracy": 0.9, "hparam/loss": 0.25}
    domains = {"opt": ["sgd", "adam"], "bsize": [16, 32]}
    with SummaryWriter(str(tmp_path / "e")) as w:
        w.add_hparams(hp, metrics, hparam_domain_discrete=domains, run_name="r1")
    with TorchWriter(str(tmp_path / "t")) as w:
        w.add_hparams(hp, metrics, hparam_domain_discrete=domains, run_name="r1")
    e, t = load(tmp_path / "e" / "r1"), load(tmp_path / "t" / "r1")
    assert _hparam_summaries(e) == _hparam_summaries(t)
    assert [s.value for s in e.Scalars("hparam/loss")] == [0.25]


def test_hparams_errors(tmp_path):
    with SummaryWriter(str(tmp_path)) as w:
        with pytest.raises(TypeError, match="hparam_dict and metric_dict should be dictionary."):
            w.add_hparams([("lr", 1)], {})
        with pytest.raises(ValueError, match="value should be one of int, float, str, bool, or torch.Tensor"):
            w.add_hparams({"x": [1, 2]}, {"m": 1.0}, run_name="bad")
        with pytest.raises(TypeError, match="hparam_domain_discrete"):
            w.add_hparams({"x": 1}, {"m": 1.0}, hparam_domain_discrete={"x": 1}, run_name="bad2")
        w.add_hparams({"t": ember.tensor([0.5])}, {"m": 1.0}, run_name="tensor")
    assert os.path.isdir(tmp_path / "tensor")


def test_hparams_default_run_name_is_time(tmp_path):
    with SummaryWriter(str(tmp_path)) as w:
        w.add_hparams({"a": 1}, {"m": 2.0})
    subs = [d for d in os.listdir(tmp_path) if os.path.isdir(tmp_path / d)]
    assert len(subs) == 1 and float(subs[0]) > 1e9


# ----------------------------------------------------------------- PR curves


def test_pr_curve_matches_torch(tmp_path):
    torch, TorchWriter = torch_writer()
    rng = np.random.default_rng(4)
    labels = rng.integers(0, 2, 100)
    preds = rng.random(100)
    weights = rng.random(100)
    with SummaryWriter(str(tmp_path / "e")) as w:
        w.add_pr_curve("pr", ember.from_numpy(labels), ember.from_numpy(preds), 1)
        w.add_pr_curve("prw", labels, preds, 1, num_thresholds=20, weights=weights)
        w.add_pr_curve_raw("raw", [5, 3], [2, 1], [0, 1], [0, 2], [0.7, 0.75], [1.0, 0.6], 1, num_thresholds=2)
    with TorchWriter(str(tmp_path / "t")) as w:
        w.add_pr_curve("pr", torch.from_numpy(labels), torch.from_numpy(preds), 1)
        w.add_pr_curve("prw", labels, preds, 1, num_thresholds=20, weights=weights)
        w.add_pr_curve_raw("raw", [5, 3], [2, 1], [0, 1], [0, 2], [0.7, 0.75], [1.0, 0.6], 1, num_thresholds=2)
    e, t = load(tmp_path / "e"), load(tmp_path / "t")
    for tag in ("pr", "prw", "raw"):
        assert e.Tensors(tag)[0].tensor_proto == t.Tensors(tag)[0].tensor_proto, tag
        assert e.SummaryMetadata(tag) == t.SummaryMetadata(tag)


# ------------------------------------------------------------ graph / embedding


def test_add_graph_traces_module_scopes(tmp_path):
    nn = pytest.importorskip("ember.nn")

    class Net(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.fc1 = nn.Linear(4, 8)
            self.act = nn.ReLU()
            self.fc2 = nn.Linear(8, 2)

        def forward(self, x):
            return self.fc2(self.act(self.fc1(x)) * 2)

    model = Net()
    with SummaryWriter(str(tmp_path)) as w:
        w.add_graph(model, ember.randn(3, 4))
    acc = load(tmp_path)
    g = acc.Graph()
    names = {n.name: n for n in g.node}
    assert "input/input.0" in names and "output/output.0" in names
    assert names["Net/Linear[fc1]/weight"].op == "prim::Parameter"
    ops = {n.op for n in g.node}
    assert {"aten::relu", "aten::mul", "aten::linear"} <= ops  # as torch's traced graph: one aten::linear node
    for n in g.node:  # every edge points at a real node
        assert all(i in names for i in n.input), n

    def scope_ops(scope):
        return [n for n in g.node if n.name.startswith(scope + "/") and n.op.startswith("aten::")]

    fc1, fc2 = scope_ops("Net/Linear[fc1]"), scope_ops("Net/Linear[fc2]")
    assert fc1 and fc2
    assert "input/input.0" in fc1[0].input and "Net/Linear[fc1]/weight" in fc1[0].input
    relu = scope_ops("Net/ReLU[act]")
    assert [n.op for n in relu] == ["aten::relu"] and relu[0].input == [fc1[-1].name]
    (mul,) = [n for n in scope_ops("Net") if n.op == "aten::mul"]
    assert mul.name == "Net/mul" and mul.input == [relu[0].name]
    assert fc2[0].input[0] == mul.name  # a functional op's result feeds the next module
    out_shape = fc2[-1].attr["_output_shapes"].list.shape[0]
    assert [d.size for d in out_shape.dim] == [3, 2]
    assert names["output/output.0"].input == [fc2[-1].name]
    meta = acc.RunMetadata("step1")
    assert {s.node_name for s in meta.step_stats.dev_stats[0].node_stats} >= {fc1[0].name, fc2[-1].name}
    assert model.training  # the writer restores train mode


def test_add_embedding_files(tmp_path):
    from google.protobuf import text_format
    from tensorboard.plugins.projector.projector_config_pb2 import ProjectorConfig

    mat = ember.randn(6, 3)
    with SummaryWriter(str(tmp_path)) as w:
        w.add_embedding(mat, metadata=list("abcdef"), label_img=ember.rand(6, 3, 4, 4), global_step=2, tag="my/emb")
        w.add_embedding(np.eye(2), metadata=[["x", 1], ["y", 2]], metadata_header=["name", "id"])
    cfg = text_format.Parse((tmp_path / "projector_config.pbtxt").read_text(), ProjectorConfig())
    assert [e.tensor_name for e in cfg.embeddings] == ["my/emb:00002", "default:00000"]
    first = cfg.embeddings[0]
    assert first.tensor_path == "00002/my%2femb/tensors.tsv"
    rows = [list(map(float, r.split("\t"))) for r in (tmp_path / first.tensor_path).read_text().splitlines()]
    assert np.allclose(rows, mat.numpy(), atol=1e-6)
    assert (tmp_path / first.metadata_path).read_text().splitlines() == list("abcdef")
    assert list(first.sprite.single_image_dim) == [4, 4]
    from PIL import Image

    assert Image.open(tmp_path / first.sprite.image_path).size == (12, 12)  # 3x3 grid of 4x4
    second = cfg.embeddings[1]
    assert (tmp_path / second.metadata_path).read_text().splitlines() == ["name\tid", "x\t1", "y\t2"]
    with SummaryWriter(str(tmp_path / "bad")) as w:
        with pytest.raises(ValueError, match="2D"):
            w.add_embedding(np.zeros(3))


# ------------------------------------------------------------------ lifecycle


def test_purge_step_hides_orphaned_events(tmp_path):
    with SummaryWriter(str(tmp_path)) as w:
        for step in range(10):
            w.add_scalar("x", float(step), step)
    with SummaryWriter(str(tmp_path), purge_step=5) as w:
        for step in range(5, 8):
            w.add_scalar("x", 100.0 + step, step)
    got = [(s.step, s.value) for s in load(tmp_path).Scalars("x")]
    assert got == [(s, float(s)) for s in range(5)] + [(s, 100.0 + s) for s in range(5, 8)]


def test_flush_close_reopen_and_queue(tmp_path):
    w = SummaryWriter(str(tmp_path), max_queue=1000, flush_secs=1000)
    w.add_scalar("a", 1.0, 0)
    w.flush()  # pending events reach the disk before close
    assert [s.value for s in load(tmp_path).Scalars("a")] == [1.0]
    w.close()
    w.add_scalar("a", 2.0, 1)  # writing after close opens a new event file
    w.close()
    assert len(glob.glob(str(tmp_path / "events.out.tfevents.*"))) == 2
    assert [s.value for s in load(tmp_path).Scalars("a")] == [1.0, 2.0]


def test_default_logdir_and_comment(tmp_path, monkeypatch):
    import socket

    monkeypatch.chdir(tmp_path)
    w = SummaryWriter(comment="_lr0.1")
    w.close()
    logdir = w.get_logdir()
    assert logdir.startswith("runs" + os.sep) and logdir.endswith(socket.gethostname() + "_lr0.1")
    assert os.path.isdir(logdir)
    w2 = SummaryWriter(str(tmp_path / "given"), comment="ignored")
    w2.close()
    assert w2.get_logdir() == str(tmp_path / "given")


# --------------------------------------------------------- audio / video / layout


def test_audio_matches_torch(tmp_path):
    torch, TorchWriter = torch_writer()
    t = np.linspace(0, 1, 800, endpoint=False)
    clip = (0.5 * np.sin(2 * np.pi * 440 * t)).astype(np.float32)
    with SummaryWriter(str(tmp_path / "e")) as w:
        w.add_audio("a", ember.from_numpy(clip).reshape(1, -1), 3, sample_rate=8000)
    with TorchWriter(str(tmp_path / "t")) as w:
        w.add_audio("a", torch.from_numpy(clip).reshape(1, -1), 3, sample_rate=8000)
    e, tb = load(tmp_path / "e"), load(tmp_path / "t")
    ae, at = e.Audio("a")[0], tb.Audio("a")[0]
    assert ae.encoded_audio_string == at.encoded_audio_string
    assert (ae.step, ae.sample_rate, ae.length_frames, ae.content_type) == (3, 8000, 800, "audio/wav")
    with SummaryWriter(str(tmp_path / "x")) as w:
        with pytest.warns(UserWarning, match="auto clipped"):
            w.add_audio("loud", np.array([0.0, 2.0, -3.0]))
        with pytest.raises(AssertionError, match="1 dimensional"):
            w.add_audio("stereo", np.zeros((2, 10)))


def test_video_is_an_animated_gif_grid(tmp_path):
    import io

    from PIL import Image

    vid = np.random.default_rng(5).random((3, 4, 3, 6, 5)).astype(np.float32)  # 3 videos of 4 frames
    with SummaryWriter(str(tmp_path)) as w:
        w.add_video("v", ember.from_numpy(vid), 1, fps=10)
    img = load(tmp_path).Images("v")[0]
    assert (img.height, img.width) == (6, 20)  # padded to 4 videos: 1 row x 4 columns
    gif = Image.open(io.BytesIO(img.encoded_image_string))
    assert gif.format == "GIF" and gif.n_frames == 4 and gif.info["duration"] == 100


def test_custom_scalars_match_torch(tmp_path):
    torch, TorchWriter = torch_writer()
    layout = {"Losses": {"train/val": ["Multiline", ["loss/train", "loss/val"]],
                         "band": ["Margin", ["m/mid", "m/lo", "m/hi"]]}}
    for lib_writer, sub in ((SummaryWriter, "e"), (TorchWriter, "t")):
        with lib_writer(str(tmp_path / sub)) as w:
            w.add_custom_scalars(layout)
            w.add_custom_scalars_multilinechart(["a", "b"], category="c", title="ab")
            w.add_custom_scalars_marginchart(["x", "y", "z"])
    e, t = load(tmp_path / "e"), load(tmp_path / "t")
    te, tt = e.Tensors("custom_scalars__config__"), t.Tensors("custom_scalars__config__")
    assert [x.tensor_proto for x in te] == [x.tensor_proto for x in tt] and len(te) == 3
    with SummaryWriter(str(tmp_path / "x")) as w:
        with pytest.raises(AssertionError, match="3 tags"):
            w.add_custom_scalars_marginchart(["x", "y"])


def test_image_with_boxes(tmp_path):
    import io

    from PIL import Image

    img = ember.zeros(3, 20, 30)
    with SummaryWriter(str(tmp_path)) as w:
        w.add_image_with_boxes("b", img, ember.tensor([[2.0, 3.0, 12.0, 15.0]]), 1, labels=["cat"])
        with pytest.raises(AssertionError, match="labels"):
            w.add_image_with_boxes("b", img, np.array([[0, 0, 1, 1]]), labels=["a", "b"])
    rec = load(tmp_path).Images("b")[0]
    pixels = np.asarray(Image.open(io.BytesIO(rec.encoded_image_string)))
    assert pixels.shape == (20, 30, 3)
    assert tuple(pixels[15, 7]) == (255, 0, 0) and tuple(pixels[14, 12]) == (255, 0, 0)  # bottom, right edges
    assert tuple(pixels[14, 7]) == (0, 0, 0) and tuple(pixels[18, 20]) == (0, 0, 0)  # inside, outside


def test_missing_tensorboard_gives_install_hint():
    import subprocess
    import sys

    code = (
        "import sys; sys.modules['tensorboard'] = None\n"
        "try:\n    import ember.utils.tensorboard\nexcept ImportError as e:\n    print('HINT', e)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert "HINT" in out.stdout and "pip install ember-profiler[tensorboard]" in out.stdout, out.stderr


def test_mesh_matches_torch(tmp_path):
    torch, TorchWriter = torch_writer()
    verts = np.array([[[1, 1, 1], [-1, -1, 1], [1, -1, -1], [-1, 1, -1]]], dtype=np.float32)
    colors = np.array([[[255, 0, 0], [0, 255, 0], [0, 0, 255], [255, 0, 255]]], dtype=np.int32)
    faces = np.array([[[0, 2, 3], [0, 3, 1], [0, 1, 2], [1, 3, 2]]], dtype=np.int32)
    cfg = {"camera": {"cls": "PerspectiveCamera", "fov": 75}}
    with SummaryWriter(str(tmp_path / "e")) as w:
        w.add_mesh("m", ember.from_numpy(verts), colors=colors, faces=faces, config_dict=cfg, global_step=1)
        w.add_mesh("points", verts)
    with TorchWriter(str(tmp_path / "t")) as w:
        w.add_mesh("m", torch.from_numpy(verts), colors=colors, faces=faces, config_dict=cfg, global_step=1)
        w.add_mesh("points", verts)
    e, t = load(tmp_path / "e"), load(tmp_path / "t")
    assert sorted(e.Tags()["tensors"]) == sorted(t.Tags()["tensors"]) and len(e.Tags()["tensors"]) == 4
    for tag in e.Tags()["tensors"]:
        assert e.Tensors(tag)[0].tensor_proto == t.Tensors(tag)[0].tensor_proto, tag
        assert e.SummaryMetadata(tag) == t.SummaryMetadata(tag), tag
