# Copyright 2023-2024 SGLang Team (shape reproduced for pytest-cleantree's example)
"""Layer communication: all-reduce, residual fusion and the FlashInfer fast path."""

from __future__ import annotations

import logging
from dataclasses import dataclass

from sglang.srt.utils import (
    get_bool_env_var,
    is_cuda,
    is_flashinfer_available,
    is_sm90_supported,
    is_sm100_supported,
)

logger = logging.getLogger(__name__)

_is_cuda = is_cuda()
_is_flashinfer_available = is_flashinfer_available()
_is_sm90_supported = _is_cuda and is_sm90_supported()
_is_sm100_supported = _is_cuda and is_sm100_supported()

FUSE_ALLREDUCE_MAX_BATCH_SIZE = 2048


@dataclass
class LayerCommunicator:
    layer_id: int
    is_last_layer: bool
    allow_reduce_scatter: bool = False

    def should_fuse_mlp_allreduce_with_next_layer(self, batch_size: int) -> bool:
        if self.is_last_layer:
            return False
        return apply_flashinfer_allreduce_fusion(batch_size)


def apply_flashinfer_allreduce_fusion(batch_size: int) -> bool:
    """Whether the TRTLLM all-reduce fusion from FlashInfer may run for this batch."""
    return (
        (_is_sm100_supported or _is_sm90_supported)
        and _is_flashinfer_available
        and batch_size > 0
        and batch_size <= FUSE_ALLREDUCE_MAX_BATCH_SIZE
        and not get_bool_env_var("SGLANG_DISABLE_ALLREDUCE_FUSION")
    )


def log_fusion_choice() -> None:
    if is_sm100_supported():
        logger.info("FlashInfer all-reduce fusion available on this GPU")
