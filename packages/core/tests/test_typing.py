"""``mypy --strict`` on a training script written as ``import ember as torch``.

The stub ember/_C.pyi is generated here from the schema (codegen/gen.py, the same as a build
makes), so the check needs no build. The script must type-check without error, and a wrong
call must be caught (proof that the ops are typed, not Any).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("mypy")

CORE = Path(__file__).resolve().parents[1]
PACKAGES = CORE.parent
SCRIPT = Path(__file__).with_name("typing_train_script.py")
WRONG = '''import ember as torch

x: torch.Tensor = torch.zeros(3)
torch.add(x, "one")
y: int = x.view(-1)
'''


def test_training_script_passes_mypy_strict(tmp_path: Path) -> None:
    stubs = tmp_path / "stubs"
    (stubs / "ember").mkdir(parents=True)
    subprocess.run([sys.executable, str(CORE / "codegen" / "gen.py"), str(CORE / "ops.yaml"),
                    str(tmp_path / "cpp"), str(stubs / "ember")], check=True)
    (stubs / "ember" / "_op_list.py").unlink()
    wrong = tmp_path / "wrong_calls.py"
    wrong.write_text(WRONG)
    path = ":".join(str(p) for p in [stubs, CORE / "src", PACKAGES / "nn" / "src", PACKAGES / "data" / "src"])
    r = subprocess.run([sys.executable, "-m", "mypy", "--strict", "--no-incremental", "--cache-dir",
                        str(tmp_path / "cache"), "--no-error-summary", str(SCRIPT), str(wrong)],
                       capture_output=True, text=True, env={"MYPYPATH": path, "PATH": "/usr/bin:/bin"},
                       cwd=tmp_path)
    lines = r.stdout.splitlines()
    # Errors inside ember's own modules are not the script's (ember is not --strict clean).
    in_script = [ln for ln in lines if Path(ln.split(":")[0]).name == SCRIPT.name]
    assert not in_script, "\n".join(in_script)
    in_wrong = [ln for ln in lines if Path(ln.split(":")[0]).name == wrong.name and ": error:" in ln]
    assert any(":4: error:" in ln and "add" in ln for ln in in_wrong), r.stdout[-3000:]
    assert any(":5: error:" in ln for ln in in_wrong), r.stdout[-3000:]
