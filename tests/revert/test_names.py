"""Names a restored file must have (``fingerprint``), a file that does not exist on one side,
and the tokenizers' edges (``revert/names.py``)."""

from __future__ import annotations

from pytest_cleantree.revert.names import (
    FINGERPRINT_SIZE,
    c_like_words,
    docker_words,
    fingerprint,
    introduced_tokens,
    python_fingerprint,
    shell_words,
    tokenizer_for,
)


def test_a_python_module_is_fingerprinted_by_its_definitions() -> None:
    names = fingerprint("m.py", b"import os\n\ndef alpha():\n    return os.sep\n\nBETA = 1\n")
    assert sorted(names) == ["BETA", "alpha"]
    assert sorted(python_fingerprint("class Gamma:\n    pass\n")) == ["Gamma"]


def test_a_python_module_without_definitions_by_its_first_code_names() -> None:
    assert fingerprint("m.py", b"import os\nos.getcwd()\n") == ["os", "getcwd"]
    calls = "".join(f"f{i}()\n" for i in range(FINGERPRINT_SIZE + 3))
    assert python_fingerprint(calls) == [f"f{i}" for i in range(FINGERPRINT_SIZE)]


def test_python_without_code_names_or_that_does_not_parse_by_its_words() -> None:
    assert fingerprint("m.py", b'"""docstring words here"""\n') == ["docstring", "words", "here"]
    assert fingerprint("m.py", b"def (:\n  turbo_word other_word\n") == ["turbo_word", "other_word"]
    assert fingerprint("m.py", b"x = '\xff'  # not UTF-8: turbo\n") == ["turbo"]


def test_another_file_by_its_first_distinct_words_of_four_letters_or_more() -> None:
    data = b"alpha abc four beta_gamma alpha \xff\xfeword 12345 x.y.zz"
    assert fingerprint("notes.txt", data) == ["alpha", "four", "beta_gamma", "word", "x.y.zz"]
    many = " ".join(f"word{i}" for i in range(FINGERPRINT_SIZE + 5)).encode()
    assert fingerprint("run.sh", many) == [f"word{i}" for i in range(FINGERPRINT_SIZE)]
    assert fingerprint("notes.txt", b"a bc def\n") == []


def test_a_file_missing_on_one_side_has_every_name_of_the_other() -> None:
    assert introduced_tokens(None, "export TURBO_MODE=1\n").added == ("TURBO_MODE",)
    removed = introduced_tokens("export TURBO_MODE=1\n", None)
    assert (removed.added, removed.removed) == ((), ("TURBO_MODE",))


def test_quoted_strings_and_comments_give_no_word() -> None:
    assert list(shell_words('FLAG="quoted words" run_it # a comment')) == ["FLAG", "run_it"]
    assert list(c_like_words('call(x, "text"); // a comment')) == ["call", "x"]
    assert list(c_like_words("call(x); /* a comment */ more")) == ["call", "x", "more"]


def test_dockerfiles_are_known_by_their_name() -> None:
    assert tokenizer_for("Dockerfile") is docker_words
    assert tokenizer_for("build/Dockerfile.dev") is docker_words
    assert tokenizer_for("dockerfile.dev") is None
    assert tokenizer_for("my.Dockerfile") is None
