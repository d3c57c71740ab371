"""``ember.distributed.pipelining``: PyTorch's pipeline parallelism (model splitting, stages,
schedules) is not implemented in ember; every name raises NotImplementedError when used."""

from __future__ import annotations

import enum

from .._not_implemented import stub_class, stub_function

_M = __name__


class SplitPoint(enum.Enum):
    """Where ``pipe_split`` cuts a model: before or after the marked module."""

    BEGINNING = 1
    END = 2


pipeline = stub_function(_M, "pipeline", "Splits a model into pipeline stages: not implemented.")
pipe_split = stub_function(_M, "pipe_split", "Marks a stage boundary: not implemented.")
PipelineStage = stub_class(_M, "PipelineStage", "One stage of a pipeline: not implemented.")
Pipe = stub_class(_M, "Pipe", "A model split for pipelining: not implemented.")
ScheduleGPipe = stub_class(_M, "ScheduleGPipe", "The GPipe schedule: not implemented.")
Schedule1F1B = stub_class(_M, "Schedule1F1B", "The 1F1B schedule: not implemented.")
ScheduleInterleaved1F1B = stub_class(_M, "ScheduleInterleaved1F1B",
                                     "The interleaved 1F1B schedule: not implemented.")
ScheduleLoopedBFS = stub_class(_M, "ScheduleLoopedBFS", "The looped BFS schedule: not implemented.")
ScheduleInterleavedZeroBubble = stub_class(_M, "ScheduleInterleavedZeroBubble",
                                           "The zero-bubble schedule: not implemented.")

__all__ = ["Pipe", "PipelineStage", "Schedule1F1B", "ScheduleGPipe", "ScheduleInterleaved1F1B",
           "ScheduleInterleavedZeroBubble", "ScheduleLoopedBFS", "SplitPoint", "pipe_split",
           "pipeline"]
