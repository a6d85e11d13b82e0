# Copyright 2023-2024 SGLang Team (shape reproduced for pytest-cleantree's example)
"""The arguments of the SGLang server, and the adjustments made per model and GPU."""

from __future__ import annotations

import dataclasses
import logging
import os

from sglang.srt.utils import (
    get_device_memory_capacity,
    is_cuda,
    is_flashinfer_available,
    is_hip,
    is_sm90_supported,
    is_sm100_supported,
    is_sm120_supported,
)

logger = logging.getLogger(__name__)


@dataclasses.dataclass
class ServerArgs:
    model_path: str
    tp_size: int = 1
    attention_backend: str | None = None
    enable_flashinfer_allreduce_fusion: bool = False
    disable_cuda_graph: bool = False

    def __post_init__(self) -> None:
        self._handle_gpu_memory_settings()
        self._handle_model_specific_adjustments()

    def _handle_gpu_memory_settings(self) -> None:
        capacity = get_device_memory_capacity()
        if capacity is None or is_hip():
            return
        logger.debug("GPU memory capacity: %s MiB", capacity)

    def _handle_model_specific_adjustments(self) -> None:
        if not (is_cuda() and is_flashinfer_available()):
            return
        if is_sm90_supported() and self.tp_size > 1:
            self.attention_backend = self.attention_backend or "fa3"
        if is_sm100_supported() or is_sm120_supported():
            self.enable_flashinfer_allreduce_fusion = True
        if os.environ.get("SGLANG_DISABLE_CUDA_GRAPH"):
            self.disable_cuda_graph = True
