"""python -m ember.utils.collect_env: a bug report's facts, in torch.utils.collect_env's layout."""

from __future__ import annotations

import subprocess
import sys

import ember
import ember.utils.collect_env as collect_env


def test_report_fields() -> None:
    env = collect_env.get_env_info()
    assert env.ember_version == str(ember.__version__)
    assert env.is_cuda_available == str(ember.cuda.is_available())
    assert env.cuda_compiled_version == (ember.version.cuda or "None")
    assert env.cpu_capability == ember.backends.cpu.get_cpu_capability()
    assert "ember-core==" in env.packages.replace("_", "-")
    text = collect_env.get_pretty_env_info()
    for label in ("ember version:", "Is debug build: False", "CUDA used to build ember:", "OS:", "GCC version:",
                  "Python version:", "Is CUDA available:", "GPU models and configuration:", "CPU:",
                  "Versions of relevant libraries:"):
        assert label in text, label


def test_module_runs_as_a_script() -> None:
    out = subprocess.run([sys.executable, "-m", "ember.utils.collect_env"], capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("Collecting environment information...\nember version: ")
    assert "RuntimeWarning" not in out.stderr  # runpy: the module must not be imported before it runs


def test_lazy_attribute() -> None:
    assert ember.utils.collect_env is collect_env
