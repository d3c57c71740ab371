"""``torch.hub``: the pretrained-weights cache (``load_state_dict_from_url``, ``download_url_to_file``,
``get_dir`` / ``set_dir``) and ``load`` of a local ``hubconf.py``. Model libraries import these names at
import time (timm: ``HASH_REGEX``, ``download_url_to_file``; torchvision: ``load_state_dict_from_url``).
Repositories on GitHub are not fetched: clone one and use ``source="local"``."""

from __future__ import annotations

import hashlib
import importlib.util
import os
import re
import shutil
import sys
import uuid
from collections.abc import Callable
from typing import Any
from urllib.error import HTTPError, URLError  # noqa: F401  (re-exported, as PyTorch's module has them)
from urllib.parse import urlparse
from urllib.request import Request, urlopen

__all__ = ["download_url_to_file", "get_dir", "help", "list", "load", "load_state_dict_from_url", "set_dir"]

ENV_GITHUB_TOKEN = "GITHUB_TOKEN"
ENV_TORCH_HOME = "TORCH_HOME"
ENV_XDG_CACHE_HOME = "XDG_CACHE_HOME"
DEFAULT_CACHE_DIR = "~/.cache"
VAR_DEPENDENCY = "dependencies"
MODULE_HUBCONF = "hubconf.py"
READ_DATA_CHUNK = 128 * 1024
# a checkpoint named "<name>-<sha256 prefix>.<ext>" carries the prefix of its digest
HASH_REGEX = re.compile(r"-([a-f0-9]*)\.")

_hub_dir: str | None = None


def _get_torch_home() -> str:
    return os.path.expanduser(os.getenv(ENV_TORCH_HOME, os.path.join(os.getenv(ENV_XDG_CACHE_HOME,
                                                                               DEFAULT_CACHE_DIR), "torch")))


def get_dir() -> str:
    """The hub cache directory: ``set_dir``'s, else ``$TORCH_HOME/hub`` (default ``~/.cache/torch/hub``)."""
    if _hub_dir is not None:
        return _hub_dir
    return os.path.join(_get_torch_home(), "hub")


def set_dir(d: str | os.PathLike) -> None:
    global _hub_dir
    _hub_dir = os.path.expanduser(d)


def download_url_to_file(url: str, dst: str, hash_prefix: str | None = None, progress: bool = True) -> None:
    """Fetch ``url`` into ``dst`` through a temporary file in the same directory (so ``dst`` is either
    absent or complete); with ``hash_prefix``, the SHA-256 digest must start with it."""
    req = Request(url, headers={"User-Agent": "torch.hub"})
    dst = os.path.expanduser(dst)
    dst_dir = os.path.dirname(os.path.abspath(dst))
    tmp = os.path.join(dst_dir, f".{os.path.basename(dst)}.{uuid.uuid4().hex}.partial")
    sha = hashlib.sha256() if hash_prefix is not None else None
    try:
        with urlopen(req) as u, open(tmp, "wb") as f:  # noqa: S310 - URLs are the caller's, as in PyTorch
            while True:
                chunk = u.read(READ_DATA_CHUNK)
                if not chunk:
                    break
                f.write(chunk)
                if sha is not None:
                    sha.update(chunk)
        if sha is not None and hash_prefix is not None:
            digest = sha.hexdigest()
            if digest[: len(hash_prefix)] != hash_prefix:
                raise RuntimeError(f'invalid hash value (expected "{hash_prefix}", got "{digest}")')
        shutil.move(tmp, dst)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)


def load_state_dict_from_url(url: str, model_dir: str | None = None, map_location: Any = None,
                             progress: bool = True, check_hash: bool = False, file_name: str | None = None,
                             weights_only: bool = False) -> dict[str, Any]:
    """``ember.load`` of the checkpoint at ``url``, downloaded once into ``model_dir`` (default
    ``get_dir()/checkpoints``) and read from there afterwards."""
    import ember

    if model_dir is None:
        model_dir = os.path.join(get_dir(), "checkpoints")
    os.makedirs(model_dir, exist_ok=True)
    filename = file_name if file_name is not None else os.path.basename(urlparse(url).path)
    cached_file = os.path.join(model_dir, filename)
    if not os.path.exists(cached_file):
        sys.stderr.write(f'Downloading: "{url}" to {cached_file}\n')
        hash_prefix = None
        if check_hash:
            r = HASH_REGEX.search(filename)
            hash_prefix = r.group(1) if r else None
        download_url_to_file(url, cached_file, hash_prefix, progress=progress)
    return ember.load(cached_file, map_location=map_location, weights_only=weights_only)  # type: ignore[no-any-return]


def _import_hubconf(repo_dir: str) -> Any:
    path = os.path.join(repo_dir, MODULE_HUBCONF)
    spec = importlib.util.spec_from_file_location("hubconf", path)
    if spec is None or spec.loader is None:
        raise FileNotFoundError(path)
    module = importlib.util.module_from_spec(spec)
    sys.path.insert(0, repo_dir)  # hubconf imports the repository's own modules
    try:
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(repo_dir)
    missing = [d for d in getattr(module, VAR_DEPENDENCY, None) or [] if importlib.util.find_spec(d) is None]
    if missing:
        raise RuntimeError(f"Missing dependencies: {', '.join(missing)}")
    return module


def _entry(module: Any, model: str) -> Callable[..., Any]:
    if not isinstance(model, str):
        raise ValueError("Invalid input: model should be a string of function name")
    fn = getattr(module, model, None)
    if fn is None or not callable(fn):
        raise RuntimeError(f"Cannot find callable {model} in hubconf")
    return fn  # type: ignore[no-any-return]


def _check_source(source: str) -> None:
    if source not in ("github", "local"):
        raise ValueError(f'Unknown source: "{source}". Allowed values: "github" | "local".')
    if source == "github":
        raise NotImplementedError("ember.hub: repositories are not fetched from GitHub; clone it and call "
                                  "hub.load(path, model, source='local')")


def load(repo_or_dir: str, model: str, *args: Any, source: str = "github", trust_repo: Any = "check",
         force_reload: bool = False, verbose: bool = True, skip_validation: bool = False, **kwargs: Any) -> Any:
    """Call entrypoint ``model`` of the ``hubconf.py`` in ``repo_or_dir`` with ``*args, **kwargs``."""
    source = source.lower()
    _check_source(source)
    return _entry(_import_hubconf(repo_or_dir), model)(*args, **kwargs)


def list(github: str, force_reload: bool = False, skip_validation: bool = False, trust_repo: Any = "check",
         verbose: bool = True) -> Any:
    """The entrypoints of a GitHub repository's hubconf (not fetched in ember)."""
    _check_source("github")


def help(github: str, model: str, force_reload: bool = False, skip_validation: bool = False,
         trust_repo: Any = "check") -> Any:
    """An entrypoint's docstring from a GitHub repository's hubconf (not fetched in ember)."""
    _check_source("github")
