"""Check that every pure package's window of a workspace package admits the workspace version.

Reads ``packages/*/pyproject.toml``. Core's version comes from ``[project] version`` in
``packages/core/pyproject.toml``, or, when that is absent or dynamic, from
``__version__ = "..."`` in ``packages/core/src/ember/version.py``. Each requirement on a
workspace package (``ember-core``, ``ember-nn``, ... in dependencies and extras) must be a
window that the workspace version satisfies; an exact pin (``==``) is an error too.

Prints one line per package and exits 1 if any check fails. Usage::

    python tools/check_versions.py [--root REPO]
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # Python 3.10: the same parser, from PyPI.
    import tomli as tomllib  # type: ignore[import-not-found]

try:
    from packaging.requirements import Requirement
    from packaging.utils import canonicalize_name
    from packaging.version import Version
except ImportError:
    sys.exit("check_versions.py needs `packaging`: pip install packaging")

ROOT = Path(__file__).resolve().parent.parent
CORE = "ember-core"
VERSION_RE = re.compile(r"""^__version__\s*(?::\s*str\s*)?=\s*["']([^"']+)["']""", re.MULTILINE)


def load(pyproject: Path) -> dict:
    with pyproject.open("rb") as f:
        return tomllib.load(f)


def core_version(core_dir: Path) -> tuple[str, str] | None:
    """Core's (name, version): static ``[project] version`` first, else ``version.py``."""
    pyproject = core_dir / "pyproject.toml"
    name = CORE
    if pyproject.is_file():
        project = load(pyproject).get("project", {})
        name = project.get("name", CORE)
        if "version" in project and "version" not in project.get("dynamic", []):
            return name, project["version"]
    version_py = core_dir / "src" / "ember" / "version.py"
    if version_py.is_file():
        match = VERSION_RE.search(version_py.read_text(encoding="utf-8"))
        if match:
            return name, match.group(1)
    return None


def requirements(project: dict) -> list[Requirement]:
    """Runtime dependencies plus those of every optional extra."""
    specs = list(project.get("dependencies", []))
    for extra in project.get("optional-dependencies", {}).values():
        specs.extend(extra)
    return [Requirement(s) for s in specs]


def check(name: str, project: dict, workspace: dict[str, Version]) -> list[str]:
    """Problems with one package's requirements on workspace packages (empty if none)."""
    reqs = requirements(project)
    problems = []
    if not any(canonicalize_name(r.name) == CORE for r in reqs):
        problems.append(f"no requirement on {CORE}")
    for req in reqs:
        dep = canonicalize_name(req.name)
        if dep not in workspace:
            continue  # third-party: not ours to check
        if dep == canonicalize_name(name):
            continue  # a package naming itself (e.g. `pkg[extra]`) is not a window of anything
        if any(s.operator in ("==", "===") for s in req.specifier):
            problems.append(f"{req} is an exact pin; use a window such as >=0.1,<0.2")
        elif not req.specifier.contains(workspace[dep], prereleases=True):
            problems.append(f"{req} excludes the workspace {dep} {workspace[dep]}")
    return problems


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--root", type=Path, default=ROOT, help="repository root (default: this one)"
    )
    packages = parser.parse_args().root / "packages"
    projects: dict[str, dict] = {}
    workspace: dict[str, Version] = {}
    core = core_version(packages / "core")
    if core is None:
        print(
            f"FAIL {CORE}: no static version in packages/core/pyproject.toml "
            "and no __version__ in packages/core/src/ember/version.py"
        )
        return 1
    workspace[canonicalize_name(core[0])] = Version(core[1])
    for pyproject in sorted(packages.glob("*/pyproject.toml")):
        if pyproject.parent.name == "core":
            continue
        project = load(pyproject)["project"]
        projects[project["name"]] = project
        workspace[canonicalize_name(project["name"])] = Version(project["version"])

    print(f"ok   {core[0]} {core[1]}")
    failed = False
    for name, project in projects.items():
        problems = check(name, project, workspace)
        failed |= bool(problems)
        status = "FAIL" if problems else "ok  "
        print(f"{status} {name} {project['version']}" + "".join(f"\n       {p}" for p in problems))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
