"""The one cache of what is built once per shared object (:mod:`pytest_cleantree.core.identity`)."""

from __future__ import annotations

from pytest_cleantree.core.identity import ByIdentity


def test_by_identity_keeps_sixty_five_objects_then_starts_again() -> None:
    built: list[object] = []

    def build(key: object) -> int:
        built.append(key)
        return len(built)

    kept_by = ByIdentity(build)
    keys = [object() for _ in range(66)]
    first = kept_by(keys[0])
    assert kept_by(keys[0]) == first == 1
    for key in keys[1:65]:
        kept_by(key)
    assert len(built) == 65
    assert kept_by(keys[0]) == 1  # 65 kept: the first is still there
    kept_by(keys[65])  # the 66th: the table was full, and starts again
    assert kept_by(keys[65]) == 66
    assert kept_by(keys[0]) == 67  # built anew
    assert len(built) == 67


def test_an_equal_object_is_another_key() -> None:
    kept_by = ByIdentity(len)
    first, second = [1, 2], [1, 2]

    assert kept_by(first) == kept_by(second) == 2
    assert kept_by._kept.keys() == {id(first), id(second)}
