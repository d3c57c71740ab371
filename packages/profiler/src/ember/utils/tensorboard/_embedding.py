"""Files for TensorBoard's embedding projector: tensors.tsv, metadata.tsv, sprite.png and
the run's projector_config.pbtxt listing every embedding written so far."""

from __future__ import annotations

import math
import os
from typing import Any

import numpy as np

from ._convert import make_grid, make_np


def _encode(tag: str) -> str:
    # Tags become directory names: escape the characters a path cannot hold as-is.
    return tag.replace("%", "%25").replace("/", "%2f").replace("\\", "%5c")


def _write_tsv(metadata: list[Any], path: str, header: list[str] | None) -> None:
    with open(os.path.join(path, "metadata.tsv"), "w", encoding="utf-8") as fh:
        if header is None:
            fh.writelines(f"{x}\n" for x in metadata)
        else:
            fh.write("\t".join(str(h) for h in header) + "\n")
            fh.writelines("\t".join(str(c) for c in row) + "\n" for row in metadata)


def _write_sprite(label_img: Any, path: str) -> list[int]:
    """All thumbnails in one square-ish PNG grid; returns [height, width] of one thumbnail."""
    from PIL import Image

    imgs = make_np(label_img)
    if imgs.ndim != 4:
        raise ValueError(f"add_embedding: label_img should be NCHW, got shape {imgs.shape}")
    n = imgs.shape[0]
    ncols = int(math.ceil(math.sqrt(n)))
    # Pad to a full square so the projector's sprite indexing lines up.
    pad = ncols * ncols - n
    if pad:
        imgs = np.concatenate([imgs, np.zeros((pad, *imgs.shape[1:]), imgs.dtype)], 0)
    grid = make_grid(imgs, ncols=ncols).transpose(1, 2, 0)
    scale = 1 if grid.dtype == np.uint8 else 255
    Image.fromarray((grid.astype(np.float32) * scale).clip(0, 255).astype(np.uint8)).save(
        os.path.join(path, "sprite.png")
    )
    return [int(imgs.shape[2]), int(imgs.shape[3])]


def add_embedding(
    writer: Any, mat: Any, metadata: list[Any] | None, label_img: Any, global_step: int | None, tag: str,
    metadata_header: list[str] | None,
) -> None:
    from google.protobuf import text_format

    from tensorboard.plugins.projector.projector_config_pb2 import EmbeddingInfo, ProjectorConfig

    arr = make_np(mat)
    if arr.ndim != 2:
        raise ValueError(f"add_embedding: mat should be 2D (N x D), got shape {arr.shape}")
    if metadata is not None and len(metadata) != arr.shape[0]:
        raise ValueError(f"add_embedding: #labels ({len(metadata)}) should equal #data points ({arr.shape[0]})")
    step = 0 if global_step is None else int(global_step)
    subdir = f"{str(step).zfill(5)}/{_encode(tag)}"
    logdir = writer._get_file_writer().get_logdir()
    path = os.path.join(logdir, subdir)
    os.makedirs(path, exist_ok=True)
    info = EmbeddingInfo(tensor_name=f"{tag}:{str(step).zfill(5)}", tensor_path=f"{subdir}/tensors.tsv")
    if metadata is not None:
        _write_tsv(metadata, path, metadata_header)
        info.metadata_path = f"{subdir}/metadata.tsv"
    if label_img is not None:
        if make_np(label_img).shape[0] != arr.shape[0]:
            raise ValueError("add_embedding: #images should equal #data points")
        dims = _write_sprite(label_img, path)
        info.sprite.image_path = f"{subdir}/sprite.png"
        info.sprite.single_image_dim.extend(dims)
    with open(os.path.join(path, "tensors.tsv"), "w", encoding="utf-8") as fh:
        fh.writelines("\t".join(str(float(x)) for x in row) + "\n" for row in arr)
    # The config lists every embedding of the run, so keep it on the writer and rewrite it whole.
    config = getattr(writer, "_projector_config", None)
    if config is None:
        config = writer._projector_config = ProjectorConfig()
    config.embeddings.append(info)
    with open(os.path.join(logdir, "projector_config.pbtxt"), "w", encoding="utf-8") as fh:
        fh.write(text_format.MessageToString(config))
