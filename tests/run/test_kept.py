"""The kept content of a remote tree: found by digest, checked against it, let go when gone."""

from __future__ import annotations

from typing import Any

from pytest_cleantree.run.kept import KeptContent, digest


class Entries:
    """The store's graph entries, in memory."""

    def __init__(self) -> None:
        self.entries: dict[str, Any] = {}

    def get_graph(self, key: str) -> Any:
        return self.entries.get(key)

    def put_graph(self, key: str, entry: Any) -> None:
        self.entries[key] = entry


def test_what_was_kept_is_offered_and_found_by_its_digest() -> None:
    kept = KeptContent(Entries())
    kept.keep("host\0/srv", {"a.py": b"x = 1\n", "b.py": b"y = 2\n"})
    assert kept.offered("host\0/srv") == {"a.py": digest(b"x = 1\n"), "b.py": digest(b"y = 2\n")}
    assert kept.content(digest(b"x = 1\n")) == b"x = 1\n"
    assert kept.offered("other\0/srv") == {}


def test_an_entry_that_is_not_its_content_is_not_found() -> None:
    store = Entries()
    kept = KeptContent(store)
    kept.keep("t", {"a.py": b"x = 1\n", "b.py": b"y = 2\n"})
    key = next(k for k in store.entries if k.endswith(digest(b"x = 1\n")) and ":c:" in k)
    store.entries[key] = store.entries[
        next(k for k in store.entries if k.endswith(digest(b"y = 2\n")))
    ]
    assert kept.content(digest(b"x = 1\n")) is None
    store.entries[key] = "not base64!"
    assert kept.content(digest(b"x = 1\n")) is None


def test_a_content_the_tree_no_longer_holds_is_let_go() -> None:
    store = Entries()
    kept = KeptContent(store)
    kept.keep("t", {"a.py": b"old\n", "b.py": b"same\n"})
    kept.keep("t", {"a.py": b"new\n"}, {"b.py": digest(b"same\n")})
    assert kept.content(digest(b"old\n")) is None
    assert kept.content(digest(b"new\n")) == b"new\n"
    assert kept.content(digest(b"same\n")) == b"same\n"
    assert kept.offered("t") == {"a.py": digest(b"new\n"), "b.py": digest(b"same\n")}
