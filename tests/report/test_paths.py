"""The one path model of every format (report/context.py), driven directly: no subprocess.

``PathFrame.show`` shows a path relative to the current folder when under it, else absolute,
never with ``..`` segments; a remote row relative to its host's root, and one that leaves the
root as the same file of the local frame (issue 25, point 6).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_cleantree.report.context import PathFrame, RenderContext, join_root


@pytest.mark.parametrize(
    ("root", "path", "shown"),
    [
        ("", "a/../b.py", "b.py"),
        ("", "", ""),
        (".", "a/./b.py", "a/b.py"),
        ("r", "a.py", "r/a.py"),
        ("r", "../x.py", "x.py"),
        ("/abs", "a/../b.py", "/abs/b.py"),
    ],
)
def test_join_root(root: str, path: str, shown: str) -> None:
    assert join_root(root, path) == shown


def test_a_local_path_is_relative_to_the_current_folder_when_under_it(tmp_path: Path) -> None:
    frame = PathFrame(root=str(tmp_path / "src"), base=str(tmp_path))
    assert frame.show("pkg/a.py") == "src/pkg/a.py"
    assert frame.show("../scripts/launch.sh") == "scripts/launch.sh"
    assert frame.prefix() == "src"


def test_a_local_path_outside_the_current_folder_is_absolute(tmp_path: Path) -> None:
    frame = PathFrame(root=str(tmp_path / "src"), base=str(tmp_path / "elsewhere"))
    assert frame.show("a.py") == f"{tmp_path}/src/a.py"


def test_the_root_itself_is_shown_as_nothing_from_itself(tmp_path: Path) -> None:
    assert PathFrame(root=str(tmp_path), base=str(tmp_path)).prefix() == ""


def test_without_a_root_a_path_is_only_normalised() -> None:
    assert PathFrame().show("a/../b.py") == "b.py"


def test_a_remote_row_is_relative_to_its_host_root() -> None:
    frame = PathFrame(remote_roots=(("gpu-3", "/srv/sglang"),))
    assert frame.show("srt/x.py", "gpu-3") == "srt/x.py"
    assert frame.show("srt/../y.py", "gpu-3") == "y.py"


def test_a_remote_row_that_leaves_its_root_is_the_local_frame_s_file(tmp_path: Path) -> None:
    local = PathFrame(
        root=str(tmp_path / "src"),
        base=str(tmp_path),
        remote_roots=(("gpu-3", "/srv/repo/src"),),
    )
    assert local.show("../scripts/launch.sh", "gpu-3") == "scripts/launch.sh"
    mirrored = PathFrame(
        base=str(tmp_path), mirror=str(tmp_path / "src"), remote_roots=(("gpu-3", "/srv/x"),)
    )
    assert mirrored.show("../scripts/launch.sh", "gpu-3") == "scripts/launch.sh"
    assert mirrored.show("..", "gpu-3") == ""


def test_a_remote_row_that_leaves_both_frames_is_absolute_on_its_host(tmp_path: Path) -> None:
    frame = PathFrame(
        root=str(tmp_path / "src"),
        base=str(tmp_path / "other"),
        remote_roots=(("gpu-3", "/srv/repo/src"), ("gpu-4", "/srv/b")),
    )
    assert frame.show("../scripts/launch.sh", "gpu-3") == "/srv/repo/scripts/launch.sh"
    assert frame.show("../../etc/x", "gpu-4") == "/etc/x"


def test_a_remote_row_whose_host_root_is_unknown_stays_as_written() -> None:
    frame = PathFrame(remote_roots=(("gpu-3", "relative/root"),))
    assert frame.show("../x.py", "gpu-3") == "../x.py"
    assert frame.show("../x.py", "gpu-9") == "../x.py"
    assert frame.show("..x/a.py", "gpu-3") == "..x/a.py"  # a name starting with dots stays


def test_the_text_frame_carries_the_context_s_roots_and_mirror(tmp_path: Path) -> None:
    context = RenderContext(
        root="",
        cwd=str(tmp_path),
        remote_roots=(("gpu-3", "/srv/x"),),
        mirror=str(tmp_path / "src"),
    )
    frame = context.text_frame()
    assert frame == PathFrame("", str(tmp_path), (("gpu-3", "/srv/x"),), str(tmp_path / "src"))
    assert frame.show("../launch.sh", "gpu-3") == "launch.sh"
