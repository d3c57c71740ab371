"""Sphinx configuration for the ember docs (built by ``nox -s docs``; warnings are errors).

autodoc imports the real modules, so build with every package installed. The API pages are
written by _ext/ember_api.py and expanded to a page per public name by autosummary; the
example pages run examples/ and include their output (_ext/ember_examples.py).
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent / "_ext"))

project = "ember"
author = "the ember developers"
copyright = "ember developers"

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.napoleon",  # the Google-style Args/Returns sections of ember's docstrings
    "sphinx.ext.doctest",
    "ember_api",
    "ember_examples",
]

html_theme = "alabaster"
html_title = "ember"
exclude_patterns = ["_build"]
templates_path = ["_templates"]
html_sidebars = {"**": ["ember_nav.html", "relations.html", "searchbox.html"]}

autosummary_generate = True
autosummary_generate_overwrite = False
autodoc_default_options = {"undoc-members": False}
autodoc_typehints = "signature"
add_module_names = False

# Every cross-reference must resolve (the "link check within the site"); names outside ember
# that signatures mention are listed here instead of being linked to another site.
nitpicky = True
nitpick_ignore_regex = [
    (r"py:.*", r"(Number|Tensor|Any|Callable|Iterable|Iterator|Sequence|Mapping|Optional|Union|.*\..*)"),
]

nitpick_ignore_regex.append((r"py:.*", r"(Device|dtype|dict\[str|Tensor or tuple)"))
# nn.utils.fusion's type variables and the private BatchNorm base its signatures name
nitpick_ignore_regex.append((r"py:class", r"(ConvT|LinearT|_BatchNorm)"))
# The plain words of Google-style argument types ("int or sequence of int, optional").
nitpick_ignore_regex.append((r"py:class", r"(optional|sequence|iterable|array_like|ints|Tensors|tuple of Tensors)"))

# The first docstring line of a compiled op repeats its signature, which autodoc already shows
# from __text_signature__ (and for a Python wrapper names the kernel, not the public name).
_SIG_LINE = re.compile(r"^[\w.]+\(.*\)( -> .+)?$")
# Plain in-place names (add_, resize_) would read as reStructuredText links: show them as code.
_TRAILING_UNDERSCORE = re.compile(r"(?<![`\w.])([A-Za-z][\w.]*_)(?=[\s.,;:)]|$)")


def _clean_docstring(app, what, name, obj, options, lines):  # noqa: ANN001
    if lines and _SIG_LINE.match(lines[0].strip()):
        del lines[0]
        while lines and not lines[0].strip():
            del lines[0]
    in_literal = False
    for i, line in enumerate(lines):
        if line.rstrip().endswith("::") or line.lstrip().startswith(">>>"):
            in_literal = True
        elif line and not line[0].isspace():
            in_literal = False
        if not in_literal:
            lines[i] = _TRAILING_UNDERSCORE.sub(r"``\1``", line)


def setup(app):  # noqa: ANN001, ANN201
    app.connect("autodoc-process-docstring", _clean_docstring)


doctest_global_setup = "import ember\nimport ember as torch"

# The doctest builder runs the ``.. doctest::`` blocks of the hand-written pages; the examples in
# docstrings are run by packages/core/tests/test_docstrings.py.
doctest_test_doctest_blocks = ""
