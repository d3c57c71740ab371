"""The collectives of one process group on its MPI communicator.

Every op is MPI's nonblocking form, returned as a ``Work``; the blocking API waits on it. Tensor
bytes go to MPI zero-copy through ``__dlpack__``. Two kinds of staging copy remain, each made
once: a non-contiguous tensor (worked on contiguous, copied back), and reductions of the types
MPI cannot reduce (bfloat16 in float32, bool as uint8, AVG/PREMUL_SUM's scaling).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import ember

from ._errors import DistBackendError
from ._mpi_boot import check_failed, mpi
from ._work import Work
from .reduce_op import ReduceOp, premul_factor

_INT_ONLY = ("BAND", "BOR", "BXOR")
# ReduceOp -> the MPI op's name (AVG and PREMUL_SUM are sums, scaled around the call); bool
# reduces as uint8: a sum or max is "any", a product or min is "all".
_MPI_OPS = {"SUM": "SUM", "AVG": "SUM", "PREMUL_SUM": "SUM", "PRODUCT": "PROD", "MIN": "MIN",
            "MAX": "MAX", "BAND": "BAND", "BOR": "BOR", "BXOR": "BXOR"}
_BOOL_OPS = {"SUM": "BOR", "AVG": "BOR", "PREMUL_SUM": "BOR", "MAX": "BOR", "BOR": "BOR",
             "PRODUCT": "BAND", "MIN": "BAND", "BAND": "BAND", "BXOR": "BXOR"}


def _mpi_op(MPI: Any, op: ReduceOp, dtype: Any) -> Any:
    name = op.name
    if name in _INT_ONLY and dtype.is_floating_point:
        raise RuntimeError(f"Cannot use ReduceOp.{name} with {str(dtype).replace('torch.', '')}")
    return getattr(MPI, (_BOOL_OPS if dtype == ember.bool else _MPI_OPS)[name])


_MPI_TYPES: dict[Any, str] = {
    ember.float32: "FLOAT", ember.float64: "DOUBLE", ember.float16: "FLOAT16_T",
    ember.int64: "INT64_T", ember.int32: "INT32_T", ember.int16: "INT16_T", ember.int8: "INT8_T",
    ember.uint8: "UINT8_T", ember.bool: "UINT8_T", ember.bfloat16: "INT16_T",
}


def _wire(t: Any, counts: tuple[list[int], list[int]] | None = None) -> list[Any]:
    """MPI's view of a contiguous tensor: its storage by address (no copy, and cheaper than
    ``__dlpack__`` on every call) with an MPI datatype; bfloat16 moves as int16 and bool as
    uint8 (MPICH has no bfloat16; reductions stage those in float32 / as uint8 first).
    ``counts``: the (counts, displacements) of a v-collective."""
    MPI = mpi()
    try:
        dtype = getattr(MPI, _MPI_TYPES[t.dtype])
    except KeyError:
        raise RuntimeError(f"ember.distributed: no MPI type for {t.dtype}") from None
    buf = MPI.buffer.fromaddress(t.data_ptr(), t.numel() * t.element_size())
    return [buf, counts, dtype] if counts is not None else [buf, dtype]


class MPIGroupComm:
    """The MPI side of one ProcessGroup."""

    def __init__(self, comm: Any, timeout: float, name: str) -> None:
        self.comm = comm
        self.timeout = timeout
        self.name = name
        self.MPI = mpi()

    def size(self) -> int:
        return self.comm.Get_size()

    def rank(self) -> int:
        return self.comm.Get_rank()

    def _work(self, reqs: list[Any], finish: Callable[[], Any] | None, what: str,
              result: Any = None, keep: tuple = ()) -> Work:
        """``keep``: the buffers MPI reads or writes by address, alive until completion."""
        return Work(reqs, finish, self.timeout, check_failed, f"{self.name}::{what}", result,
                    keep=keep)

    def _call(self, what: str, fn: Callable[[], Any]) -> Any:
        broken = check_failed()
        if broken is not None:  # after a timeout or a lost peer nothing more can complete
            raise DistBackendError(f"{self.name}::{what}: the job's communication is broken "
                                   f"({broken})")
        try:
            return fn()
        except self.MPI.Exception as exc:
            raise DistBackendError(f"{self.name}::{what}: MPI error: {exc.Get_error_string()}") \
                from None

    # -- reductions ------------------------------------------------------------------------
    def allreduce(self, tensor: Any, op: ReduceOp) -> Work:
        stage, finish = self._reduce_stage(tensor, op)
        mop = _mpi_op(self.MPI, op, tensor.dtype)
        wire = _wire(stage)
        req = self._call("allreduce", lambda: self.comm.Iallreduce(self.MPI.IN_PLACE, wire, mop))
        return self._work([req], finish, "allreduce", [tensor], keep=(stage,))

    def reduce(self, tensor: Any, root: int, op: ReduceOp) -> Work:
        stage, finish = self._reduce_stage(tensor, op)
        mop = _mpi_op(self.MPI, op, tensor.dtype)
        wire = _wire(stage)
        if self.rank() == root:
            req = self._call("reduce", lambda: self.comm.Ireduce(self.MPI.IN_PLACE, wire, mop, root))
        else:
            req = self._call("reduce", lambda: self.comm.Ireduce(wire, None, mop, root))
        return self._work([req], finish, "reduce", [tensor], keep=(stage,))

    def _reduce_stage(self, tensor: Any, op: ReduceOp) -> tuple[Any, Callable[[], None]]:
        """The contiguous tensor MPI reduces in place, and what turns it into the result in
        ``tensor``."""
        name = op.name
        if name == "AVG" and not tensor.dtype.is_floating_point and tensor.dtype != ember.bool:
            raise RuntimeError(f"result type Float can't be cast to the desired output type "
                               f"{_type_name(tensor.dtype)}")
        if tensor.dtype == ember.bfloat16:
            stage = tensor.float()
        elif not tensor.is_contiguous():
            stage = tensor.contiguous()
        else:
            stage = tensor
        if name == "PREMUL_SUM":
            factor = premul_factor(op)
            stage = stage.mul(factor) if stage is tensor else stage.mul_(factor)
        size = self.size()

        def finish() -> None:
            if name == "AVG" and tensor.dtype != ember.bool:
                stage.div_(size)
            if stage is not tensor:
                tensor.copy_(stage)

        return stage, finish

    def reduce_scatter_tensor(self, output: Any, input: Any, op: ReduceOp) -> Work:
        stage, _ = self._reduce_stage(input, op)  # the input is not written: no finish
        out = output if output.is_contiguous() and output.dtype != ember.bfloat16 else None
        recv = out if out is not None else ember.empty(output.shape, dtype=stage.dtype)
        mop = _mpi_op(self.MPI, op, input.dtype)
        req = self._call("reduce_scatter",
                         lambda: self.comm.Ireduce_scatter_block(_wire(stage), _wire(recv), mop))
        size = self.size()

        def finish() -> None:
            if op.name == "AVG" and input.dtype != ember.bool:
                recv.div_(size)
            if recv is not output:
                output.copy_(recv)

        return self._work([req], finish, "reduce_scatter", [output], keep=(stage, recv))

    # -- data movement ---------------------------------------------------------------------
    def broadcast(self, tensor: Any, root: int) -> Work:
        stage = tensor if tensor.is_contiguous() else tensor.contiguous()
        req = self._call("broadcast", lambda: self.comm.Ibcast(_wire(stage), root))
        return self._work([req], _copy_back(stage, tensor), "broadcast", [tensor], keep=(stage,))

    def allgather_into(self, output: Any, input: Any) -> Work:
        src = input.contiguous()
        out = output if output.is_contiguous() else ember.empty(output.shape, dtype=output.dtype)
        req = self._call("allgather", lambda: self.comm.Iallgather(_wire(src), _wire(out)))
        return self._work([req], _copy_back(out, output), "allgather", [output], keep=(src, out))

    def allgather(self, outputs: list[Any], input: Any) -> Work:
        src = input.contiguous()
        out = ember.empty((self.size(), *input.shape), dtype=input.dtype)
        req = self._call("allgather", lambda: self.comm.Iallgather(_wire(src), _wire(out)))

        def finish() -> None:
            for i, o in enumerate(outputs):
                o.copy_(out[i])

        return self._work([req], finish, "allgather", [outputs], keep=(src, out))

    def gather(self, input: Any, outputs: list[Any] | None, root: int) -> Work:
        src = input.contiguous()
        out = ember.empty((self.size(), *input.shape), dtype=input.dtype) if outputs is not None else None
        req = self._call("gather", lambda: self.comm.Igather(
            _wire(src), _wire(out) if out is not None else None, root))

        def finish() -> None:
            if outputs is not None and out is not None:
                for i, o in enumerate(outputs):
                    o.copy_(out[i])

        return self._work([req], finish, "gather", [outputs] if outputs is not None else [],
                          keep=(src, out))

    def scatter(self, output: Any, inputs: list[Any] | None, root: int) -> Work:
        send = ember.stack([t.reshape(output.shape) for t in inputs]).contiguous() \
            if inputs is not None else None
        recv = output if output.is_contiguous() else ember.empty(output.shape, dtype=output.dtype)
        req = self._call("scatter", lambda: self.comm.Iscatter(
            _wire(send) if send is not None else None, _wire(recv), root))
        return self._work([req], _copy_back(recv, output), "scatter", [output], keep=(send, recv))

    def alltoall_single(self, output: Any, input: Any, out_splits: list[int] | None,
                        in_splits: list[int] | None) -> Work:
        src = input.contiguous()
        out = output if output.is_contiguous() else ember.empty(output.shape, dtype=output.dtype)
        if out_splits is None and in_splits is None:
            req = self._call("alltoall", lambda: self.comm.Ialltoall(_wire(src), _wire(out)))
        else:
            n = self.size()
            inner_in = src[0].numel() if src.dim() and src.shape[0] else 1
            inner_out = out[0].numel() if out.dim() and out.shape[0] else 1
            sc = [s * inner_in for s in (in_splits or [src.shape[0] // n] * n)]
            rc = [s * inner_out for s in (out_splits or [out.shape[0] // n] * n)]
            req = self._call("alltoall", lambda: self.comm.Ialltoallv(
                _wire(src, (sc, _displs(sc))), _wire(out, (rc, _displs(rc)))))
        return self._work([req], _copy_back(out, output), "alltoall", [output], keep=(src, out))

    def alltoall(self, outputs: list[Any], inputs: list[Any]) -> Work:
        """Tensor lists: one flat exchange with per-peer counts, split back into ``outputs``."""
        flat_in = ember.cat([t.reshape(-1) for t in inputs])
        flat_out = ember.empty(sum(t.numel() for t in outputs), dtype=outputs[0].dtype)
        counts_out, counts_in = [t.numel() for t in outputs], [t.numel() for t in inputs]
        req = self._call("alltoall", lambda: self.comm.Ialltoallv(
            _wire(flat_in, (counts_in, _displs(counts_in))),
            _wire(flat_out, (counts_out, _displs(counts_out)))))

        def finish() -> None:
            off = 0
            for t in outputs:
                t.copy_(flat_out[off:off + t.numel()].reshape(t.shape))
                off += t.numel()

        return self._work([req], finish, "alltoall", [outputs], keep=(flat_in, flat_out))

    def barrier(self) -> Work:
        return self._work([self._call("barrier", self.comm.Ibarrier)], None, "barrier")

    # -- point to point --------------------------------------------------------------------
    def send(self, tensor: Any, dst: int, tag: int) -> Work:
        src = tensor.contiguous()
        req = self._call("send", lambda: self.comm.Isend(_wire(src), dst, tag))
        return self._work([req], None, "send", [tensor], keep=(src,))

    def recv(self, tensor: Any, src: int | None, tag: int) -> Work:
        out = tensor if tensor.is_contiguous() else ember.empty(tensor.shape, dtype=tensor.dtype)
        source = self.MPI.ANY_SOURCE if src is None else src
        req = self._call("recv", lambda: self.comm.Irecv(_wire(out), source, tag))
        return Work([req], _copy_back(out, tensor), self.timeout, check_failed,
                    f"{self.name}::recv", [tensor], statuses=[self.MPI.Status()], keep=(out,))


def _copy_back(stage: Any, tensor: Any) -> Callable[[], None] | None:
    if stage is tensor:
        return None
    return lambda: tensor.copy_(stage)


def _displs(counts: list[int]) -> list[int]:
    out, acc = [], 0
    for c in counts:
        out.append(acc)
        acc += c
    return out


def _type_name(dtype: Any) -> str:
    return {"int64": "Long", "int32": "Int", "int16": "Short", "int8": "Char",
            "uint8": "Byte"}.get(str(dtype).replace("torch.", ""), str(dtype))
