"""Never a false clean on this machine: folders the check cannot see into, links between
folders, folders where an ``absent`` glob looks for files, ``module:`` roots.  Each case runs
the real CLI and ends in a finding or an error, never in a pass; nothing is written."""

from __future__ import annotations

import os
from pathlib import Path

from runs import cleantree


def write(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


def snapshot(root: Path) -> list[str]:
    return sorted(str(path.relative_to(root)) for path in root.rglob("*"))


# ---------------------------------------------------------------- item 16: module: roots


def test_a_module_root_is_found_without_running_the_package(tmp_path: Path) -> None:
    """Finding ``pkg.sub`` must not import ``pkg``: its ``__init__`` runs code, and
    importing it would also write ``__pycache__`` into the checked tree."""
    site = tmp_path / "site"
    trap = "open({marker!r}, 'w').write('ran')\nraise SystemExit('imported')\n"
    write(
        site,
        {
            "pkg/__init__.py": trap.format(marker=str(tmp_path / "ran-pkg")),
            "pkg/sub/__init__.py": trap.format(marker=str(tmp_path / "ran-sub")),
            "pkg/sub/m.py": "sm120 = 1\n",
        },
    )
    project = tmp_path / "project"
    project.mkdir()
    (project / "cleantree.toml").write_text(
        'root = "module:pkg.sub"\n[[rule]]\nfiles = ["m.py"]\nforbid = ["sm120"]\n'
    )
    before = snapshot(site)
    path = os.pathsep.join([os.environ.get("PYTHONPATH", ""), str(site)])
    env = {**os.environ, "PYTHONPATH": path}
    completed = cleantree("check", cwd=project, env=env)
    assert completed.returncode == 1, completed.stdout + completed.stderr
    assert "m.py:1  assignment  sm120 = 1" in completed.stdout
    assert not (tmp_path / "ran-pkg").exists()
    assert not (tmp_path / "ran-sub").exists()
    assert snapshot(site) == before
