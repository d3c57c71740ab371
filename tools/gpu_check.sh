#!/bin/bash
# The CUDA backend's GPU checks (issue 24), for the device machine. Here: `nox -s cuda_emu` (the same
# tests on the CUDA emulator, so the GPU's minutes go to what only a GPU shows), `nox -s cuda_wheel`, then
# run this there with dist/cuda carried (device tool: carry ["dist/cuda"], command
# "bash tools/gpu_check.sh"). It builds nothing: it installs the carried wheels beside the image's
# numpy / pytest / torch, runs the CUDA tests and the "cuda" benchmark suite and leaves their logs
# and the GPU's name in $OUT.
set -o pipefail
REPO=$(cd "$(dirname "$0")/.." && pwd)
OUT=${OUT:-/tmp/gpu_check}
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv 2>&1 | tee "$OUT/gpu.txt"
python3 -m venv --system-site-packages /tmp/ember_env
/tmp/ember_env/bin/pip install -q --no-index --find-links "$REPO/dist/cuda" ember-core 2>&1 | tee "$OUT/install.txt"
cd /tmp || exit 1
# -c /dev/null: the repository's pytest settings are for its own venvs; ember-nn (pure Python) by path
PYTHONPATH="$REPO/packages/nn/src" PYTHONUNBUFFERED=1 EMBER_EXPECT_CUDA_BUILD=1 timeout 200 /tmp/ember_env/bin/python -m pytest -q -p no:cacheprovider \
  -c /dev/null -rs "$REPO/packages/core/tests/test_cuda_device.py" "$REPO/packages/core/tests/test_cuda_pointwise.py" \
  "$REPO/packages/core/tests/test_cuda_reduce.py" "$REPO/packages/core/tests/test_cuda_gemm.py" \
  "$REPO/packages/core/tests/test_cuda_nn.py" "$REPO/packages/core/tests/test_cuda_streams.py" \
  "$REPO/packages/core/tests/test_cuda_norm.py" "$REPO/packages/core/tests/test_cuda_conv.py" \
  "$REPO/packages/core/tests/test_cuda_shape.py" "$REPO/packages/core/tests/test_cuda_sort.py" \
  "$REPO/packages/core/tests/test_cuda_index.py" "$REPO/packages/core/tests/test_cuda_unique.py" \
  "$REPO/packages/core/tests/test_cuda_random.py" "$REPO/packages/core/tests/test_cuda_functional.py" \
  "$REPO/packages/core/tests/test_cuda_attention_rnn.py" "$REPO/packages/core/tests/test_cuda_unsupported.py" \
  "$REPO/packages/core/tests/test_cuda_namespace.py" "$REPO/packages/core/tests/test_cuda_legacy_types.py" \
  "$REPO/packages/core/tests/test_cuda_autocast.py" "$REPO/packages/core/tests/test_cuda_data_parallel.py" \
  "$REPO/packages/core/tests/test_cuda_interop.py" "$REPO/packages/core/tests/test_cuda_array_interface.py" \
  "$REPO/packages/core/tests/test_cuda_complex.py" "$REPO/packages/core/tests/test_cuda_linalg.py" \
  "$REPO/packages/core/tests/test_cuda_fft.py" \
  "$REPO/packages/core/tests/test_cuda_build.py" \
  "$REPO/packages/core/tests/test_caching_allocator.py" "$REPO/packages/core/tests/test_accelerator.py" 2>&1 | tee "$OUT/gpu_tests.txt"
# The four training examples: 30 steps each on cpu and cuda, loss curves compared (ember-nn and ember-data by path)
PYTHONPATH="$REPO/packages/nn/src:$REPO/packages/data/src" PYTHONUNBUFFERED=1 timeout 90 /tmp/ember_env/bin/python -m pytest -q \
  -p no:cacheprovider -c /dev/null -rs "$REPO/packages/core/tests/test_cuda_examples.py" 2>&1 | tee "$OUT/gpu_examples.txt"
# The "cuda" benchmark suite beside torch's CUDA kernels (ember-benchmark from the repository, by path)
PYTHONPATH="$REPO/packages/benchmark/src" timeout 90 /tmp/ember_env/bin/python \
  "$REPO/packages/benchmark/benchmarks/run.py" --filter cuda --json-dir "$OUT/bench" 2>&1 | tee "$OUT/gpu_bench.txt"
# Issue 24's performance targets (bandwidth shares, GEMM, training steps, launch overhead)
PYTHONPATH="$REPO/packages/nn/src" timeout 90 /tmp/ember_env/bin/python "$REPO/tools/gpu_targets.py" \
  "$OUT/gpu_targets.json" 2>&1 | tee "$OUT/gpu_targets.txt"
# Every op with a CUDA kernel on the generic parity inputs against the CPU, gradients first (the
# emulator runs all of it; here what fits in the time left: the device's own math and sum orders)
PYTHONPATH="$REPO/packages/nn/src" PYTHONUNBUFFERED=1 timeout 90 /tmp/ember_env/bin/python -m pytest -q \
  -p no:cacheprovider -c /dev/null --maxfail=100 -rf "$REPO/packages/core/tests/test_cuda_grad_parity.py" \
  "$REPO/packages/core/tests/test_cuda_parity.py" 2>&1 | tail -150 | tee "$OUT/gpu_parity.txt"
