"""``ember.distributed.rpc``: PyTorch's RPC framework (remote calls, RRefs, distributed
autograd) is not implemented in ember. ``is_available()`` is False, as in a PyTorch build
without RPC; every other name raises NotImplementedError when used."""

from __future__ import annotations

from .._not_implemented import stub_class, stub_function

_M = __name__


def is_available() -> bool:
    """Whether the RPC framework is available: never in ember."""
    return False


init_rpc = stub_function(_M, "init_rpc", "Starts this process's RPC agent: not implemented.")
shutdown = stub_function(_M, "shutdown", "Stops the RPC agent: not implemented.")
rpc_sync = stub_function(_M, "rpc_sync", "A blocking remote call: not implemented.")
rpc_async = stub_function(_M, "rpc_async", "A remote call returning a Future: not implemented.")
remote = stub_function(_M, "remote", "A remote call returning an RRef: not implemented.")
get_worker_info = stub_function(_M, "get_worker_info", "A worker's WorkerInfo: not implemented.")
RRef = stub_class(_M, "RRef", "A reference to a value on another worker: not implemented.")
WorkerInfo = stub_class(_M, "WorkerInfo", "A worker's name and id: not implemented.")
BackendType = stub_class(_M, "BackendType", "The RPC backends: not implemented.")
TensorPipeRpcBackendOptions = stub_class(_M, "TensorPipeRpcBackendOptions",
                                         "Options of the TensorPipe agent: not implemented.")

__all__ = ["BackendType", "RRef", "TensorPipeRpcBackendOptions", "WorkerInfo", "get_worker_info",
           "init_rpc", "is_available", "remote", "rpc_async", "rpc_sync", "shutdown"]
