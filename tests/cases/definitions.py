# cleantree-case: forbid=sm120 kinds=import,definition,assignment,condition,call,reference,string,docstring,comment
import os.path as sm120_path  # [import]


def sm120_kernel(  # [definition]
    x,
    sm120_mode=False,  # [definition]
    *,
    flag=sm120_default,  # [reference]
):
    """Run the kernel, which mentions sm120."""  # [docstring]
    return run(mode=x, sm120_tile=4)  # [reference]


class Sm120Config:  # no finding: substring is case-sensitive
    sm120_field: int = 0  # [assignment]

    def method(self, *sm120_args, **sm120_kwargs):  # [definition]
        global sm120_state  # [reference]
        try:
            pass
        except OSError as sm120_error:  # [assignment]
            pass
        values = [v for v in items if v.sm120]  # [condition]
        return lambda sm120_arg: 0  # [definition]


message = "no sm120 here" + 'nor here'  # [string]
raw = b"sm120 bytes"  # [string]
formatted = f"{sm120_value!r} and text"  # [reference]
