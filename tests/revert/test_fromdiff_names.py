"""introduced_names / introduced_tokens: exactly the names a change introduced, never one the
file had before; and agreement with the engine, which is what will check them."""

from __future__ import annotations

import textwrap

import pytest

from pytest_cleantree.analysis import analyze
from pytest_cleantree.core.patterns import match_text, parse_pattern, text_words
from pytest_cleantree.revert.names import (
    CODE_KINDS,
    IntroducedNames,
    introduced_names,
    introduced_tokens,
)


def code(text: str) -> str:
    return textwrap.dedent(text)


# (before, after, added, removed)
CASES = [
    pytest.param(
        "x = foo(bar)\n",
        "x = foo(bar) and baz.qux\n",
        ("baz", "qux"),
        (),
        id="name-and-attribute",
    ),
    pytest.param(
        "import os\n",
        code("""\
            import os
            from sglang.srt.utils import (
                is_cuda,
                is_sm120_supported as _sm120,
            )
            import flashinfer.comm as fic
            from . import sibling
            from .pkg import *
            """),
        (
            *("_sm120", "fic", "flashinfer.comm", "is_cuda", "is_sm120_supported"),
            *("pkg", "sibling", "sglang.srt.utils"),
            # each segment of a dotted module path is a name, as the check matches them
            *("sglang", "srt", "utils", "flashinfer", "comm"),
        ),
        (),
        id="imports-module-paths-their-segments-and-aliases",
    ),
    pytest.param(
        "def f(a):\n    return a\n",
        code("""\
            def f(a, *rest, flag=False, **extra):
                return a
            async def g(b, /, c):
                pass
            class Fusion(Base, metaclass=Meta):
                pass
            """),
        ("Base", "Fusion", "Meta", "extra", "flag", "metaclass", "rest"),
        (),
        id="definitions-arguments-keywords-but-no-name-of-one-or-two-letters",
    ),
    pytest.param(
        "run(x)\n",
        "run(x, backend='sm120', device='cuda:0')\n",
        ("backend", "device"),
        (),
        id="keyword-arguments-but-no-string",
    ),
    pytest.param(
        "x = 1\n",
        "msg = 'enable the sm120 path on Blackwell'\nflag = '--enable-sm120'\n",
        ("flag", "msg"),
        (),
        id="the-words-of-strings-are-never-names",
    ),
    pytest.param(
        "log('sm120 is unsupported')\nis_sm100_supported = check()\n",
        "log('sm120 is unsupported')\nis_sm100_supported = check()\n"
        "if is_sm100_supported and sm120:\n    pass\n",
        ("sm120",),
        (),
        id="a-word-of-a-string-before-does-not-hide-a-new-name",
    ),
    pytest.param(
        "import attrs\nlog(attrs.asdict(x))\n",
        "import attrs\nfrom attrs import asdict\nlog(asdict(x))\n",
        (),
        (),
        id="names-already-there-as-names-are-never-introduced",
    ),
    pytest.param(
        "x = 1\n",
        "a = dict(n=1)\nfound = ', '.join(sorted(a))\nresult = a.items()\nprint(found)\n",
        ("found", "result"),
        (),
        id="builtins-their-methods-and-short-names-are-never-introduced",
    ),
    pytest.param(
        '"""Module about turbo."""\n',
        '"""Module about turbo."""\nturbo = 1\n\ndef f():\n    """Uses fusion."""\n',
        ("turbo",),
        (),
        id="docstrings-neither-count-before-nor-give-names",
    ),
    pytest.param(
        "x = 1\n",
        "x = f'{value:>{width}} sm120'\ny = b'raw_bytes'\n",
        ("value", "width"),
        (),
        id="f-strings-and-bytes",
    ),
    pytest.param(
        "def f():\n    pass\n",
        code("""\
            def f():
                global CACHE
                try:
                    pass
                except OSError as err:
                    pass
                match point:
                    case Point(x=px, y=0) | {"k": kv, **others}:
                        pass
                    case [first, *tail] if (n := len(tail)):
                        pass
            """),
        ("CACHE", "Point", "err", "first", "others", "point", "tail"),
        (),
        id="global-except-match-walrus",
    ),
    pytest.param(
        "import sm120_kernels\nuse(sm120_kernels.launch, 'sm120-path')\n",
        "use(None)\n",
        (),
        ("launch", "sm120_kernels"),
        id="removed-names",
    ),
    pytest.param(
        None,
        "NEW = 1\n",
        ("NEW",),
        (),
        id="new-file",
    ),
    pytest.param(
        "OLD = 1\n",
        None,
        (),
        ("OLD",),
        id="deleted-file",
    ),
]


@pytest.mark.parametrize(("before", "after", "added", "removed"), CASES)
def test_introduced_names(
    before: str | None, after: str | None, added: tuple[str, ...], removed: tuple[str, ...]
) -> None:
    assert introduced_names(before, after) == IntroducedNames(tuple(sorted(added)), removed)


def engine_finds(text: str | None, name: str) -> bool:
    """Does the engine, under the kinds of an introduced-names rule, find ``=name`` here?"""
    if text is None:
        return False
    analysis = analyze("pkg/mod.py", text.encode(), [parse_pattern("=" + name)])
    assert analysis.problem is None
    return any(f.occurrence.kind in CODE_KINDS for f in analysis.findings)


@pytest.mark.parametrize(("before", "after", "added", "removed"), CASES)
def test_the_engine_finds_each_added_name_after_and_none_before(
    before: str | None, after: str | None, added: tuple[str, ...], removed: tuple[str, ...]
) -> None:
    names = introduced_names(before, after)
    for name in names.added:
        assert engine_finds(after, name), name
        assert not engine_finds(before, name), name
    for name in names.removed:
        assert engine_finds(before, name), name
        assert not engine_finds(after, name), name


def test_a_syntax_error_is_raised_for_the_caller_to_handle() -> None:
    with pytest.raises(SyntaxError):
        introduced_names("x = 1\n", "def (:\n")


# ---------------------------------------------------------------- text files


SCRIPT_BEFORE = "#!/bin/sh\nexport PATH=/usr/bin\nexec python run.py --fast\n"
SCRIPT_AFTER = (
    "#!/bin/sh\nexport PATH=/usr/bin\nexport NCCL_MIN_NCHANNELS=8 NCCL_BUFFSIZE=4 X=1\n"
    "exec python run.py --fast --sm120.kernels on\n"
)


def test_introduced_tokens_are_new_words_of_four_letters_or_more() -> None:
    assert introduced_tokens(SCRIPT_BEFORE, SCRIPT_AFTER) == IntroducedNames(
        added=("NCCL_BUFFSIZE", "NCCL_MIN_NCHANNELS", "sm120.kernels"),
        removed=(),
    )
    assert introduced_tokens(SCRIPT_AFTER, SCRIPT_BEFORE).removed == (
        "NCCL_BUFFSIZE",
        "NCCL_MIN_NCHANNELS",
        "sm120.kernels",
    )
    # "X" and "on" stay too short even then: a word of one or two letters is never distinctive
    assert introduced_tokens(SCRIPT_BEFORE, SCRIPT_AFTER, min_length=2).added == (
        "NCCL_BUFFSIZE",
        "NCCL_MIN_NCHANNELS",
        "sm120.kernels",
    )


def test_a_name_the_file_before_held_inside_a_dotted_word_is_not_introduced() -> None:
    """``=turbo_mode`` matches ``cfg.turbo_mode`` (the checker splits at dots), so a
    revert that leaves ``turbo_mode`` alone on a line added nothing the check did not see."""
    before = "python -c 'cfg.turbo_mode()'\n"
    after = before + "export turbo_mode=1\n"
    assert match_text(parse_pattern("=turbo_mode"), before)
    assert introduced_tokens(before, after).added == ()


def test_a_word_anywhere_in_the_file_before_is_not_introduced() -> None:
    before = "line one mentions turbo_mode\n" + "filler\n" * 50
    after = before + "filler turbo_mode\n"
    assert introduced_tokens(before, after).added == ()


@pytest.mark.parametrize(
    "text",
    [
        "export NCCL_MIN_NCHANNELS=8 x.y.z -- end.",
        "run --sm120.kernels=on (turbo) [a_b] {c.d}",
        "Ünïcödé wörds ünd sm120_ß",
        "\tkey: value,other\x0bthing",
    ],
)
def test_the_words_of_a_text_are_exactly_what_exact_patterns_match(text: str) -> None:
    """The words the revert guard takes from a text line (``core.patterns.text_words``, the
    one word model) are exactly the bodies an exact pattern matches in it."""
    words = text_words(text)
    for word in words:
        assert match_text(parse_pattern("=" + word), text), word
    pieces = {text[i:j].strip() for i in range(len(text)) for j in range(i + 1, len(text) + 1)}
    for piece in pieces - words:
        if piece and piece == piece.strip():
            assert not match_text(parse_pattern("=" + piece), text), piece
