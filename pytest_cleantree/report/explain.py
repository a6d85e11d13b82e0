"""The text ``cleantree explain`` prints: where a qualified name leads, and its spellings."""

from __future__ import annotations

from pytest_cleantree.names.explanation import Explanation


def render_explanation(explained: Explanation, root: str = "") -> str:
    """The text ``cleantree explain`` prints; ``root`` prefixes paths (see ``shown_root``)."""

    def at(place: tuple[str, int]) -> str:
        path = f"{root}/{place[0]}" if root and not place[0].startswith("/") else place[0]
        return f"{path}:{place[1]}" if place[1] else path

    name = explained.qualified
    if explained.defined is not None:
        lines = [f"{name} -> {explained.canonical}  defined at {at(explained.defined)}"]
    else:
        lines = [f"{name}: not defined in the tree; followed as far as {explained.canonical}"]
    for other, defined in explained.others:
        shown = f"defined at {at(defined)}" if defined else "not defined in the tree"
        lines.append(f"  or -> {other}  {shown} (another binding may lead there)")
    width = max((len(spelling) for spelling, _, _ in explained.spellings), default=0)
    lines += [
        f"  {spelling:<{width}}  {at((path, line))}" for spelling, path, line in explained.spellings
    ]
    if explained.module is not None:
        module, path, others = explained.module
        also = f" (also {', '.join(others)})" if others else ""
        lines.append(f"  module {module} is {at((path, 0))}{also}")
    note = explained.standing.note(name)
    if note:
        lines.append(f"  {note}")
    if explained.outside:
        read = ", ".join(module for module, _ in explained.outside)
        lines.append(f"  from the environment (not the tree): {read}")
    return "\n".join(lines)
