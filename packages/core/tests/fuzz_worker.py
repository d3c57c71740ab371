"""The fuzz worker: a subprocess that runs one call at a time, and its client.

Run as a script it serves length-prefixed pickled requests ``(lib, call)`` on stdin and answers
on the original stdout (its own stdout is pointed at stderr so a stray print cannot corrupt a
frame): ``("ok", result, args_after)`` or ``("raise", builtin exception name, message)``, with
tensors as fuzz_support.TR.  The client (``Worker``) restarts it when it dies or passes the
per-call timeout and turns that into ``Crashed`` / ``Hung`` naming the signal and the last
lines the worker wrote to stderr (an abort's message, a C++ assertion).

The worker runs with one thread per library and a 3 GiB address-space limit, so an absurd
size that one of the libraries tries to allocate fails as an out-of-memory error instead of
taking the machine's memory.
"""

from __future__ import annotations

import os
import pickle
import select
import signal
import struct
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ADDRESS_SPACE = 3 << 30


class Crashed(Exception):
    """The worker died (signal or exit) while running the call."""


class Hung(Exception):
    """The call did not return within the timeout."""


def _send(f: Any, obj: Any) -> None:
    data = pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
    f.write(struct.pack("<Q", len(data)) + data)
    f.flush()


def _read_exact(fd: int, n: int, deadline: float | None) -> bytes:
    chunks, got = [], 0
    while got < n:
        if deadline is not None:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([fd], [], [], left)[0]:
                raise Hung
        chunk = os.read(fd, n - got)
        if not chunk:
            raise EOFError
        chunks.append(chunk)
        got += len(chunk)
    return b"".join(chunks)


def _recv(fd: int, deadline: float | None = None) -> Any:
    (n,) = struct.unpack("<Q", _read_exact(fd, 8, deadline))
    return pickle.loads(_read_exact(fd, n, deadline))


# --------------------------------------------------------------------------------------------
# Client
# --------------------------------------------------------------------------------------------

class Worker:
    """One worker subprocess, started on first use and after every crash or hang."""

    def __init__(self, timeout: float = 10.0):
        self.timeout = timeout
        self.proc: subprocess.Popen | None = None
        self.err: Any = None
        self.starts = 0

    def _start(self) -> None:
        self.err = tempfile.TemporaryFile()
        self.proc = subprocess.Popen([sys.executable, "-X", "faulthandler", __file__],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=self.err, cwd=str(Path(__file__).parent),
                                     start_new_session=True)  # killpg reaches the server's child
        self.starts += 1
        assert self.proc.stdout is not None
        try:
            _recv(self.proc.stdout.fileno(), time.monotonic() + 120)  # "ready" after imports
        except (EOFError, Hung):
            tail = self._stderr_tail()
            self.stop()
            raise RuntimeError(f"the fuzz worker did not start:\n{tail}") from None

    def _stderr_tail(self) -> str:
        if self.err is None:
            return ""
        self.err.seek(0)
        lines = self.err.read().decode(errors="replace").strip().splitlines()
        return "\n".join(lines[-8:])

    def stop(self) -> None:
        if self.proc is not None:
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            self.proc.wait()
            for pipe in (self.proc.stdin, self.proc.stdout):
                if pipe is not None:
                    pipe.close()
            self.proc = None
        if self.err is not None:
            self.err.close()
            self.err = None

    def run(self, lib: str, call: Any) -> tuple:
        """Run ``call`` with ``lib`` ("torch", "ember", or KNOWN_WRONG + an entry id: that
        torch_known_wrong entry's corrected value) in the worker; its answer tuple."""
        if self.proc is None or self.proc.poll() is not None:
            self.stop()
            self._start()
        assert self.proc is not None and self.proc.stdin is not None and self.proc.stdout
        self.err.seek(0)
        self.err.truncate()
        try:
            _send(self.proc.stdin, (lib, call))
            answer = _recv(self.proc.stdout.fileno(), time.monotonic() + self.timeout)
        except Hung:
            self.stop()
            raise Hung(f"{lib} did not return within {self.timeout:g} s") from None
        except (EOFError, BrokenPipeError):
            code = self.proc.wait()
            how = (f"signal {signal.Signals(-code).name}" if code < 0 else f"exit status {code}")
            tail = self._stderr_tail()
            self.stop()
            raise Crashed(f"{lib} killed the process ({how})" + (f":\n{tail}" if tail else "")
                          ) from None
        if answer[0] == "crashed":  # the fork server's child died; the server carries on
            tail = self._stderr_tail()
            raise Crashed(f"{lib} killed the process (signal {answer[1]})"
                          + (f":\n{tail}" if tail else ""))
        return answer

    def reset(self) -> None:
        """Start the next calls in a fresh child of the fork server (call between properties)."""
        if self.proc is None or self.proc.poll() is not None:
            return
        assert self.proc.stdin is not None and self.proc.stdout is not None
        try:
            _send(self.proc.stdin, "reset")
            _recv(self.proc.stdout.fileno(), time.monotonic() + self.timeout)
        except (Hung, EOFError, BrokenPipeError):
            self.stop()


# --------------------------------------------------------------------------------------------
# Worker main
# --------------------------------------------------------------------------------------------

def _serve() -> None:
    import resource

    out = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    sys.path.insert(0, str(Path(__file__).parent))
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    import ember  # noqa: PLC0415
    import fuzz_support as S  # noqa: PLC0415 - the tests folder is on sys.path only here
    import torch  # noqa: PLC0415

    torch.set_num_threads(1)
    ember.set_num_threads(1)
    limit = ADDRESS_SPACE
    if os.environ.get("EMBER_SANITIZED"):
        # ASan has reserved terabytes of shadow memory by now: the budget comes on top of that,
        # or every later allocation (the result's pickling too) would fail
        with open("/proc/self/status") as f:
            limit += next(int(line.split()[1]) * 1024 for line in f if line.startswith("VmSize:"))
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    sys.modules["fuzz_support"] = S
    libs = {"torch": torch, "ember": ember}
    _send(out, "ready")
    stdin = sys.stdin.buffer.fileno()
    # A fork server: each property (see Worker.reset) runs in a fresh child, so what one
    # property's calls leave behind (caches, a stray write) cannot change another's answers,
    # and the answers do not depend on which tests ran before.
    while True:
        pid = os.fork()
        if pid == 0:
            _serve_calls(stdin, out, libs, S)
        _, status = os.waitpid(pid, 0)
        if os.WIFSIGNALED(status):  # the client waits for an answer: say how the child died
            _send(out, ("crashed", signal.Signals(os.WTERMSIG(status)).name))
        elif os.WEXITSTATUS(status) != 0:  # end of input
            return


REFEREE = "torch64"  # lib: PyTorch computing in float64 (fuzz_props asks it when the two disagree)
KNOWN_WRONG = "known_wrong:"  # lib prefix: run torch_known_wrong's entry <id> instead of the op


def _known_wrong(entry_id: str, call: Any, args: tuple, kwargs: dict, S: Any) -> Any:
    """torch_known_wrong's corrected value for ``call`` by its entry ``entry_id``."""
    import torch_known_wrong as KW  # noqa: PLC0415 - the tests folder is on sys.path only here

    entry = next(e for e in KW.KNOWN_WRONG if e.id == entry_id)
    variant = call.target[3] if call.target[0] == "op" else None  # out= and in-place write it
    return KW.corrected(entry, variant, S.name_of(call), args, kwargs)


def _serve_calls(stdin: int, out: Any, libs: dict, S: Any) -> None:
    """The child: answer calls until a reset (exit 0) or the end of input (exit 3)."""
    import warnings

    while True:
        try:
            request = _recv(stdin)
        except EOFError:
            os._exit(3)
        if request == "reset":
            _send(out, "reset")
            os._exit(0)
        lib_name, call = request
        known = lib_name.startswith(KNOWN_WRONG)
        lib = libs["torch" if known or lib_name == REFEREE else lib_name]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                args = S.materialize(call.args, lib)
                kwargs = S.materialize(call.kwargs, lib)
                if lib_name == REFEREE:  # PyTorch on float64 copies of the float tensors
                    args, kwargs = S.referee_inputs(args, kwargs)
                if known:  # the corrected value, computed here so a torch crash cannot kill the client
                    res = _known_wrong(lib_name[len(KNOWN_WRONG):], call, args, kwargs, S)
                    answer = ("ok", S.to_plain(res), None)
                else:
                    res = S.invoke(lib, call, args, kwargs)
                    answer = ("ok", S.to_plain(res), S.to_plain(S.tensors_of((args, kwargs))))
            except Exception as exc:  # noqa: BLE001 - the exception type is what is compared
                answer = ("raise", S.H.builtin_exc_type(exc).__name__, str(exc)[:300])
            # Nothing of this call may outlive it: the next one (the other library's turn)
            # would run with less memory under the address-space limit. ember's allocator
            # keeps freed large blocks mapped for reuse; they go back too.
            args = kwargs = res = None
            libs["ember"]._C._cpu_empty_cache()
        try:
            _send(out, answer)
        except Exception as exc:  # noqa: BLE001 - an unpicklable result
            _send(out, ("raise", "FuzzWorkerError", f"cannot send the result: {exc}"))


if __name__ == "__main__":
    _serve()
