"""``ember.distributed.tensor.parallel``: PyTorch's tensor parallelism (``parallelize_module``
with column/row-wise styles) is not implemented in ember; constructing a style or calling
``parallelize_module`` raises NotImplementedError. ``fully_shard`` (FSDP2) and DTensor
themselves are implemented."""

from __future__ import annotations

from ..._not_implemented import stub_class, stub_function

_M = __name__

parallelize_module = stub_function(_M, "parallelize_module",
                                   "Applies tensor-parallel styles to submodules: not implemented.")
loss_parallel = stub_function(_M, "loss_parallel",
                              "Cross-entropy on class-sharded logits: not implemented.")
ParallelStyle = stub_class(_M, "ParallelStyle", "Base of the tensor-parallel styles: not "
                                                "implemented.")
ColwiseParallel = stub_class(_M, "ColwiseParallel", "Shards a Linear/Embedding column-wise: not "
                                                    "implemented.")
RowwiseParallel = stub_class(_M, "RowwiseParallel", "Shards a Linear/Embedding row-wise: not "
                                                    "implemented.")
SequenceParallel = stub_class(_M, "SequenceParallel", "Shards norm/dropout inputs on the "
                                                      "sequence dim: not implemented.")
PrepareModuleInput = stub_class(_M, "PrepareModuleInput", "Converts module inputs to DTensor "
                                                          "layouts: not implemented.")
PrepareModuleOutput = stub_class(_M, "PrepareModuleOutput", "Converts module outputs to DTensor "
                                                            "layouts: not implemented.")
PrepareModuleInputOutput = stub_class(_M, "PrepareModuleInputOutput",
                                      "Converts module inputs and outputs: not implemented.")

__all__ = ["ColwiseParallel", "ParallelStyle", "PrepareModuleInput", "PrepareModuleInputOutput",
           "PrepareModuleOutput", "RowwiseParallel", "SequenceParallel", "loss_parallel",
           "parallelize_module"]
