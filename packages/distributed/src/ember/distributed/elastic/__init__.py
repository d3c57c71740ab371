"""Elastic-launch support shared by the launcher and its workers (``torch.distributed.elastic``)."""
