# cleantree-case: forbid=sm120
"""Shapes from the SGLang communicator: the lines a sed revert missed."""
from sglang.srt.utils import (
    get_bool_env_var,
    is_sm100_supported,
    is_sm120_supported,  # [import]
)
from sglang.srt.utils import (is_cuda,
                              is_sm120_supported as sm120_ok)  # [import]

_is_cuda = is_cuda()
_is_sm120_supported = _is_cuda and is_sm120_supported()  # [assignment,call]


def apply_fusion(batch_size: int) -> bool:
    return (
        (_is_sm100_supported or _is_sm120_supported)  # [reference]
        and batch_size > 0
    )


def log_choice() -> None:
    if is_sm100_supported() or is_sm120_supported():  # [condition]
        print("fusion")
    while (
        batch
        and sm120_ok()  # [condition]
    ):
        break
    enabled = sm120_ok() if fast else False  # [call]
    flag = (
        True if is_sm100_supported()
        else _is_sm120_supported  # [reference]
    )
    assert not _is_sm120_supported, "SM120 must be off"  # [condition]
