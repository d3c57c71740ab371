"""First build, cached load and call overhead of a small two-function extension: ember vs torch.

    python packages/cpp_extension/benchmarks/build_times.py [--libs torch,ember] [--repeat 1]

Each measurement runs in a fresh interpreter with a fresh build root (first build) or the
root just built (cached load). Build time is reported as wall time and as the CPU time of the
compiler processes (robust to other load on the machine). Informative: it never fails.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile

# The same source for both libraries: written against torch/extension.h.
SOURCE = """
at::Tensor sin_add(at::Tensor x, at::Tensor y) { return x.sin() + y.sin(); }
at::Tensor identity(at::Tensor x) { return x; }
"""

CHILD = r"""
import json, os, resource, sys, time
lib_name, root, what = sys.argv[1], sys.argv[2], sys.argv[3]
t0 = time.perf_counter()
lib = __import__(lib_name)
import importlib
ce = importlib.import_module(lib_name + ".utils.cpp_extension")
t_import = time.perf_counter() - t0
t1 = time.perf_counter()
ext = ce.load_inline("bench_ext", SOURCE, functions=["sin_add", "identity"],
                     build_directory=root)
t_load = time.perf_counter() - t1
cpu = resource.getrusage(resource.RUSAGE_CHILDREN)
out = {"import_s": t_import, "load_s": t_load, "compiler_cpu_s": cpu.ru_utime + cpu.ru_stime}
if what == "call":
    import timeit
    x, y = lib.ones(1), lib.ones(1)
    for name, stmt in (("identity_us", lambda: ext.identity(x)), ("sin_add_us", lambda: ext.sin_add(x, y))):
        best = min(timeit.repeat(stmt, number=20000, repeat=7))
        out[name] = best / 20000 * 1e6
print(json.dumps(out))
"""


def child(lib: str, root: str, what: str) -> dict:
    code = f"SOURCE = {SOURCE!r}\n" + CHILD
    proc = subprocess.run([sys.executable, "-c", code, lib, root, what], capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"{lib} {what} failed:\n{proc.stderr[-3000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--libs", default="torch,ember")
    ap.add_argument("--repeat", type=int, default=1, help="first builds per library (fresh roots)")
    args = ap.parse_args()
    results: dict[str, dict] = {}
    for lib in args.libs.split(","):
        builds = []
        for _ in range(args.repeat):
            with tempfile.TemporaryDirectory(prefix=f"bench_{lib}_") as root:
                builds.append(child(lib, root, "build"))
                cached = [child(lib, root, "load") for _ in range(3)]
                call = child(lib, root, "call")
        first = min(builds, key=lambda r: r["load_s"])
        results[lib] = {"first_build_wall_s": first["load_s"],
                        "first_build_compiler_cpu_s": first["compiler_cpu_s"],
                        "cached_load_s": min(c["load_s"] for c in cached),
                        "import_s": min(c["import_s"] for c in cached),
                        "identity_us": call["identity_us"], "sin_add_us": call["sin_add_us"]}
    print(json.dumps(results, indent=1))
    libs = list(results)
    if len(libs) == 2:
        b, c = (results[k] for k in libs)
        for key in ("first_build_wall_s", "first_build_compiler_cpu_s", "cached_load_s", "identity_us", "sin_add_us"):
            print(f"{key:28s} {libs[0]} {b[key]:9.4f}  {libs[1]} {c[key]:9.4f}  ratio {c[key] / b[key]:.3f}")


if __name__ == "__main__":
    main()
