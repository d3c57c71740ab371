"""Sphinx configuration for the ember docs.

autodoc imports the real modules, so build with the packages installed (the nox `docs`
session installs them): ``sphinx-build -b html docs docs/_build/html``.
"""

from __future__ import annotations

project = "ember"
author = "the ember developers"
copyright = "ember developers"

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",  # Google/NumPy-style docstrings, as PyTorch writes them
]

html_theme = "alabaster"
exclude_patterns = ["_build"]

autodoc_default_options = {"members": True, "undoc-members": False}
