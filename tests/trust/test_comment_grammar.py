"""An allow counts only in a comment as the file's language defines it, held to the
language's own reader on generated files (issue 42).

Each generated file holds numbered allows (``# cleantree: allow r7 -- why``), each placed
either where the language reads data (a string, however it spans lines; a block scalar; a
here-document; an INI value) or in a comment.  The oracle is the language's own reader:
:mod:`tomllib`, :mod:`json`, :mod:`configparser`, PyYAML and bash (the allows bash prints
are data).  The property: the allows the model's comments hold (``text_comments``) are
exactly those the reader does not return as data; none it returns ever counts.

Each language runs a few examples in the default suite and many more in the slow tier
(``-m slow``), both with the trust profile's fixed seed.
"""

from __future__ import annotations

import configparser
import json
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from needs import missing

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - the manifest's own reader on 3.10
    import tomli as tomllib

from pytest_cleantree.analysis.text import split_lines
from pytest_cleantree.analysis.textfiles import text_comments

QUICK, WIDE = 40, 300
_ALLOW_ID = re.compile(r"#\s*cleantree\s*:\s*allow r(\d+) -- why")


A = "@ALLOW@"  #: where a generator places an allow; numbered once the file is written


def numbered(text: str) -> tuple[str, int]:
    """The file with each placed allow numbered (``# cleantree: allow r7 -- why``), and
    how many there are."""
    count = 0

    def one(_: re.Match[str]) -> str:
        nonlocal count
        count += 1
        return f"# cleantree: allow r{count} -- why"

    return re.sub(re.escape(A), one, text), count


def counted(path: str, text: str) -> set[int]:
    """The allows whose comment the model finds (the judge's reading of its comments)."""
    comments = text_comments(path, split_lines(text))
    assert comments is not None, path
    return {int(n) for _, comment in comments for n in _ALLOW_ID.findall(comment)}


def in_data(values: Iterator[str]) -> set[int]:
    return {int(n) for value in values for n in _ALLOW_ID.findall(value)}


def strings(value: object) -> Iterator[str]:
    """Every string of a parsed document, keys included."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from strings(key)
            yield from strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from strings(item)


def hold(path: str, text: str, data: set[int], total: int) -> None:
    found = counted(path, text)
    assert not found & data, f"allows the reader returns as data counted: {found & data}"
    assert found == set(range(1, total + 1)) - data, "an allow in a comment not found"


def both_tiers(
    strategy: st.SearchStrategy[object], check: Callable[[object], None], *examples: object
) -> tuple[Callable[..., None], Callable[..., None]]:
    """The property with few examples (the default suite) and with many (marked slow)."""

    def build(count: int) -> Callable[..., None]:
        def test(doc: object) -> None:
            check(doc)

        for one in examples:
            test = example(one)(test)
        health = [HealthCheck.too_slow, HealthCheck.filter_too_much]
        return settings(max_examples=count, deadline=None, suppress_health_check=health)(
            given(strategy)(test)
        )

    return build(QUICK), pytest.mark.slow(build(WIDE))


# ------------------------------------------------------------------------------ TOML

WORDS = st.sampled_from(["run", "sm120", "a#b", "x", "it's", 'say "hi"', "\\", "'", '"', "#"])


@st.composite
def toml_documents(draw: st.DrawFn) -> tuple[str, int]:
    nl = draw(st.sampled_from(["\n", "\r\n"]))

    def words() -> str:
        picked = draw(st.lists(st.one_of(WORDS, st.just(A)), min_size=1, max_size=4))
        return " ".join(picked)

    def basic(text: str) -> str:
        return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'

    def value() -> str:
        kinds = ["int", "basic", "literal", "mlbasic", "mlliteral", "array", "inline"]
        kind = draw(st.sampled_from(kinds))
        if kind == "int":
            return str(draw(st.integers(0, 99)))
        if kind == "basic":
            return basic(words())
        if kind == "literal":
            return "'" + words().replace("'", "") + "'"
        lines = [words() for _ in range(draw(st.integers(1, 3)))]
        if kind == "mlbasic":
            body = nl.join(line.replace("\\", "\\\\").replace('"', '\\"') for line in lines)
            tail = draw(st.sampled_from(["", '\\"', '\\"\\"', '"', '""', "\\" + nl]))
            return '"""' + draw(st.sampled_from(["", nl])) + body + tail + '"""'
        if kind == "mlliteral":
            body = nl.join(line.replace("'", "") for line in lines)
            return (
                "'''"
                + draw(st.sampled_from(["", nl]))
                + body
                + draw(st.sampled_from(["", "'", "''"]))
                + "'''"
            )
        if kind == "inline":
            return "{ a = " + basic(words()) + ", b.c = '" + words().replace("'", "") + "' }"
        items = [basic(words()) for _ in range(draw(st.integers(0, 3)))]
        seps = [draw(st.sampled_from([", ", "," + nl, ", " + A + nl])) for _ in items]
        return "[" + nl + "".join(i + s for i, s in zip(items, seps, strict=True)) + "]"

    out = []
    for index in range(draw(st.integers(1, 6))):
        if draw(st.booleans()):
            out.append(draw(st.sampled_from(["", "  "])) + A)
        if draw(st.booleans()):
            header = draw(st.sampled_from([f"[t{index}]", f"[[a{index}]]", f'["t{index} # x"]']))
            out.append(header + draw(st.sampled_from(["", " " + A])))
        literal = "'" + f"k{index} " + words().replace("'", "") + "'"
        key = draw(st.sampled_from([f"k{index}", basic(f"k{index} " + words()), literal]))
        comment = draw(st.sampled_from(["", " " + A, "#" + A]))
        out.append(f"{key} = {value()}{comment}")
    return numbered(nl.join(out) + nl)


def check_toml(doc: tuple[str, int]) -> None:
    text, total = doc
    parsed = tomllib.loads(text)
    hold("c.toml", text, in_data(strings(parsed)), total)


test_toml_allows_agree_with_tomllib, test_toml_allows_agree_with_tomllib_wide = both_tiers(
    toml_documents(),
    check_toml,
    ('a = """\nrun sm120 # cleantree: allow r1 -- why\n"""\n', 1),
    ("a = '''\n# cleantree: allow r1 -- why'''\n", 1),
)


# ------------------------------------------------------------------------------ JSON


def check_json(value: object) -> None:
    text = json.dumps(value, indent=2)
    assert json.loads(text) == value
    assert counted("c.json", text) == set()
    assert text_comments("c.json", split_lines(text)) == ()


JSON_VALUES = st.recursive(
    st.one_of(
        st.integers(), st.builds(lambda n: f"x # cleantree: allow r{n} -- why", st.integers(1, 9))
    ),
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=3), inner, max_size=3)
    ),
    max_leaves=8,
)
test_json_has_no_comment, test_json_has_no_comment_wide = both_tiers(JSON_VALUES, check_json)


# ------------------------------------------------------------------------------- INI


@st.composite
def ini_documents(draw: st.DrawFn) -> tuple[str, int]:
    out = []
    for section in range(draw(st.integers(1, 3))):
        out.append(f"[s{section}]")
        for key in range(draw(st.integers(0, 4))):
            if draw(st.booleans()):
                out.append(
                    draw(st.sampled_from(["", "  ", "\t"])) + draw(st.sampled_from(["", "; "])) + A
                )
            inline = draw(st.sampled_from(["", " " + A, " ; " + A]))
            out.append(f"k{key} = {draw(WORDS).strip() or 'v'}{inline}".replace("%", ""))
            for _ in range(draw(st.integers(0, 2))):
                out.append("    more " + draw(st.sampled_from(["", A])))
    return numbered("\n".join(out) + "\n")


def check_ini(doc: tuple[str, int]) -> None:
    text, total = doc
    parser = configparser.ConfigParser(interpolation=None)
    parser.read_string(text)
    values = (item for name in parser.sections() for pair in parser.items(name) for item in pair)
    hold("setup.cfg", text, in_data(values), total)


test_ini_allows_agree_with_configparser, test_ini_allows_agree_with_configparser_wide = both_tiers(
    ini_documents(), check_ini
)


# ------------------------------------------------------------------------------ YAML

PLAIN = st.sampled_from(["run", "sm120", "a#b", "it's", "x y"])


@st.composite
def yaml_documents(draw: st.DrawFn) -> tuple[str, int]:
    out: list[str] = []

    def block(indent: int, depth: int) -> None:
        sequence = depth > 0 and draw(st.booleans())
        for index in range(draw(st.integers(1, 3))):
            pad = " " * indent
            if draw(st.booleans()):
                out.append(" " * draw(st.integers(0, indent + 2)) + A)
            dash = "- " if sequence else ""
            key = f"{pad}{dash}k{depth}{index}:"
            column = indent + len(dash)
            kind = draw(st.sampled_from(["plain", "dq", "sq", "block", "nested"]))
            comment = draw(st.sampled_from(["", " " + A]))
            if kind == "plain":
                out.append(f"{key} {draw(PLAIN)}{comment}")
            elif kind in ("dq", "sq"):
                quote = '"' if kind == "dq" else "'"
                lines = [
                    draw(PLAIN).replace("'", "''" if kind == "sq" else "'") + " " + A
                    for _ in range(draw(st.integers(1, 3)))
                ]
                cont = " " * (column + 2)
                out.append(f"{key} {quote}" + ("\n" + cont).join(lines) + quote + comment)
            elif kind == "block":
                header = draw(st.sampled_from(["|", ">", "|-", ">+", "|2"]))
                out.append(f"{key} {header}{comment}")
                deep = " " * (column + 2)
                for line in range(draw(st.integers(1, 3))):
                    extra = draw(st.sampled_from(["", "  "])) if line else ""
                    out.append(deep + extra + draw(PLAIN) + " " + A)
            elif depth < 2:
                out.append(f"{key}{comment}")
                block(column + 2, depth + 1)
            else:
                out.append(f"{key} x{comment}")

    block(0, 0)
    return numbered("\n".join(out) + "\n")


def check_yaml(doc: tuple[str, int]) -> None:
    text, total = doc
    parsed = yaml.safe_load(text)
    hold("ci.yaml", text, in_data(strings(parsed)), total)


test_yaml_allows_agree_with_pyyaml, test_yaml_allows_agree_with_pyyaml_wide = both_tiers(
    yaml_documents(), check_yaml, ("a: |\n  run sm120 # cleantree: allow r1 -- why\n", 1)
)


# ----------------------------------------------------------------------------- shell


@st.composite
def shell_scripts(draw: st.DrawFn) -> tuple[str, int]:
    out = []
    for _ in range(draw(st.integers(1, 5))):
        kind = draw(st.sampled_from(["sq", "dq", "ansi", "heredoc", "plain", "comment"]))
        tail = draw(st.sampled_from(["", " " + A, ";" + A]))
        if kind == "comment":
            out.append(draw(st.sampled_from(["", "  "])) + A)
            continue
        if kind == "plain":
            out.append(
                "printf '%s\\n' a#b " + draw(st.sampled_from(["x", "${#HOME}", "$((1<<2))"])) + tail
            )
            continue
        if kind == "heredoc":
            word = draw(st.sampled_from(["EOF", "'EOF'", '"EOF"', "\\EOF"]))
            strip = draw(st.booleans())
            pad = "\t" if strip else ""
            body = [
                pad + draw(WORDS).replace("$", "") + " " + A for _ in range(draw(st.integers(1, 3)))
            ]
            out.append(f"cat <<{'-' if strip else ''}{word}{tail}")
            out.extend(body)
            out.append(pad + "EOF")
            continue
        lines = [draw(PLAIN) + " " + A for _ in range(draw(st.integers(1, 3)))]
        body = "\n".join(lines).replace("'", "")
        opener = {"sq": "'", "dq": '"', "ansi": "$'"}[kind]
        closer = '"' if kind == "dq" else "'"
        out.append(f"printf '%s\\n' {opener}{body}{closer}{tail}")
    return numbered("\n".join(out) + "\n")


def printed(name: str, text: str, command: list[str]) -> str:
    """What ``command`` (the language's own interpreter) prints running the file ``name``
    written with ``text``, in a folder of its own and a bare environment."""
    if shutil.which(command[0]) is None:
        missing(command[0], f"apt-get install {command[0]}")
    with tempfile.TemporaryDirectory() as folder:
        (Path(folder) / name).write_text(text)
        done = subprocess.run(
            [*command, name],
            capture_output=True,
            text=True,
            cwd=folder,
            env={"PATH": "/usr/bin:/bin", "HOME": folder, "LC_ALL": "C.UTF-8"},
            timeout=30,
            check=False,
        )
    assert done.returncode == 0, done.stderr
    return done.stdout


def check_shell(doc: tuple[str, int]) -> None:
    text, total = doc
    output = printed("run.sh", text, ["bash", "--norc", "--noprofile"])
    hold("run.sh", text, in_data(iter([output])), total)


test_shell_allows_agree_with_bash, test_shell_allows_agree_with_bash_wide = both_tiers(
    shell_scripts(), check_shell, ("cat <<EOF\nrun sm120 # cleantree: allow r1 -- why\nEOF\n", 1)
)


# ------------------------------------------------------------------------------ Perl

PERL_WORDS = st.sampled_from(["run", "sm120", "a#b", "x", "it is"])


@st.composite
def perl_scripts(draw: st.DrawFn) -> tuple[str, int]:
    out = []

    def words() -> str:
        return " ".join(draw(st.lists(st.one_of(PERL_WORDS, st.just(A)), min_size=1, max_size=3)))

    def lines() -> str:
        return "\n".join(words() for _ in range(draw(st.integers(1, 3))))

    for _ in range(draw(st.integers(1, 5))):
        tail = draw(st.sampled_from(["", " " + A]))
        kind = draw(st.sampled_from(["dq", "sq", "q", "qq", "heredoc", "subst", "code", "comment"]))
        if kind == "comment":
            out.append(draw(st.sampled_from(["", "  "])) + A)
        elif kind == "code":
            out.append(
                draw(st.sampled_from(["my $n = $#ARGV;", "my $d = 4 / 2;", "my %h = (y => 1);"]))
                + tail
            )
        elif kind == "subst":
            out.append(f'my $x = "a"; $x =~ s/a/{lines()}/; print $x, "\\n";{tail}')
        elif kind == "heredoc":
            word = draw(st.sampled_from(["EOF", '"EOF"', "'EOF'", '"E F"']))
            indent = draw(st.sampled_from(["", "~"]))
            pad = "  " if indent else ""
            body = "\n".join(pad + line for line in lines().split("\n"))
            end = word.strip("'\"")
            out.append(f"print <<{indent}{word};{tail}\n{body}\n{pad}{end}")
        else:
            opener, closer = {
                "dq": ('"', '"'),
                "sq": ("'", "'"),
                "q": ("q{", "}"),
                "qq": ("qq(", ")"),
            }[kind]
            out.append(f'print {opener}{lines()}{closer}, "\\n";{tail}')
    return numbered("\n".join(out) + "\n")


def check_perl(doc: tuple[str, int]) -> None:
    text, total = doc
    hold("run.pl", text, in_data(iter([printed("run.pl", text, ["perl"])])), total)


test_perl_allows_agree_with_perl, test_perl_allows_agree_with_perl_wide = both_tiers(
    perl_scripts(), check_perl, ("print <<EOF;\nrun sm120 # cleantree: allow r1 -- why\nEOF\n", 1)
)


# ------------------------------------------------------------------------------ make


@st.composite
def makefiles(draw: st.DrawFn) -> tuple[str, int]:
    out, names, recipe = [], [], []

    def words() -> str:
        return " ".join(draw(st.lists(st.one_of(PERL_WORDS, st.just(A)), min_size=1, max_size=3)))

    for index in range(draw(st.integers(1, 5))):
        kind = draw(st.sampled_from(["var", "define", "comment", "continued", "recipe"]))
        if kind == "var":
            out.append(f"V{index} = {words()}" + draw(st.sampled_from(["", " " + A])))
            names.append(f"V{index}")
        elif kind == "define":
            body = "\n".join(words() for _ in range(draw(st.integers(1, 3))))
            out.append(f"define V{index}\n{body}\nendef")
            names.append(f"V{index}")
        elif kind == "comment":
            out.append(A)
        elif kind == "continued":
            out.append(A + " \\\n  " + words())
        else:
            quote = draw(st.sampled_from(["'", '"']))
            tail = draw(st.sampled_from(["", " " + A]))
            recipe.append(f"\t@printf '%s\\n' {quote}{words().replace(quote, '')}{quote}{tail}")
    out += [f"$(info $({name}))" for name in names]
    out += ["all:", *recipe, "\t@true"]
    return numbered("\n".join(out) + "\n")


def check_make(doc: tuple[str, int]) -> None:
    text, total = doc
    output = printed("Makefile", text, ["make", "-s", "--no-print-directory", "-f"])
    hold("Makefile", text, in_data(iter([output])), total)


test_make_allows_agree_with_make, test_make_allows_agree_with_make_wide = both_tiers(
    makefiles(),
    check_make,
    ("define X\nrun sm120 # cleantree: allow r1 -- why\nendef\n$(info $(X))\nall:\n\t@true\n", 1),
)


# ----------------------------------------------------------------------------- CMake


@st.composite
def cmake_scripts(draw: st.DrawFn) -> tuple[str, int]:
    out, names = [], []

    def words() -> str:
        return " ".join(draw(st.lists(st.one_of(PERL_WORDS, st.just(A)), min_size=1, max_size=3)))

    def lines() -> str:
        return "\n".join(words() for _ in range(draw(st.integers(1, 3))))

    for index in range(draw(st.integers(1, 5))):
        tail = draw(st.sampled_from(["", " " + A]))
        kind = draw(st.sampled_from(["quoted", "bracket", "escaped", "comment", "block"]))
        if kind == "quoted":
            out.append(f'set(V{index} "{lines()}"){tail}')
        elif kind == "bracket":
            equals = draw(st.sampled_from(["", "=", "=="]))
            more = draw(st.sampled_from(["", "\n]] x", "]"]))
            inner = lines() + (more if equals else "")
            out.append(f"set(V{index} [{equals}[{inner}]{equals}]){tail}")
        elif kind == "escaped":
            out.append(f"set(V{index} a\\#b){tail}")
        elif kind == "comment":
            out.append(A)
        else:
            out.append(f"#[[{lines()}]]")
            continue
        if kind != "comment":
            names.append(f"V{index}")
    out += [f'message(STATUS "${{{name}}}")' for name in names]
    return numbered("\n".join(out) + "\n")


def check_cmake(doc: tuple[str, int]) -> None:
    text, total = doc
    output = printed("run.cmake", text, ["cmake", "-P"])
    hold("run.cmake", text, in_data(iter([output])), total)


test_cmake_allows_agree_with_cmake, test_cmake_allows_agree_with_cmake_wide = both_tiers(
    cmake_scripts(),
    check_cmake,
    ('set(X "a\n# cleantree: allow r1 -- why")\nmessage(STATUS "${X}")\n', 1),
)
