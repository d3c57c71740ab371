"""Worker-process helpers of the launcher (``torch.distributed.elastic.multiprocessing``)."""
