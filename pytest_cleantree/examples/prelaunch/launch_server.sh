#!/bin/sh
# Pre-launch guard: refuse to start an inference server on a tree that still holds a reverted
# experiment.
#
#   ./launch_server.sh --model-path ... --tp 8          # python -m sglang.launch_server --model-path ...
#   ./launch_server.sh -- vllm serve MODEL --tensor-parallel-size 8   # any command after --
#   CLEANTREE_MANIFEST=/root/cleantree.toml ./launch_server.sh ...    # name the manifest
#
# Without CLEANTREE_MANIFEST the check finds the manifest as `cleantree check` does: a
# cleantree.toml, or a pyproject.toml with [tool.cleantree], in this folder or a parent.
# The manifest can say root = "module:sglang": the check then reads the very package that
# `python -m sglang.launch_server` imports.  Exit codes of `cleantree check`: 0 clean,
# 1 forbidden lines remain, 2 the check could not run; anything but 0 stops the launch.
# Exit 3: pytest-cleantree cannot be imported by $PYTHON (checked first, so that a missing
# install is never reported as an unclean tree).
set -eu
python="${PYTHON:-python3}"
me="launch_server.sh"

if [ "${1:-}" = "--" ]; then
    shift
    if [ "$#" -eq 0 ]; then
        echo "$me: nothing to launch: give the server command after --" >&2
        exit 2
    fi
else
    set -- "$python" -m sglang.launch_server "$@"
fi
server="$1"

if ! why="$("$python" -c 'import pytest_cleantree' 2>&1)"; then
    echo "$me: not launching $server: pytest-cleantree is not installed for" \
        "$python (install it for that interpreter, as the README says):" \
        "$(printf '%s\n' "$why" | tail -n 1)" >&2
    exit 3
fi

status=0
if [ -n "${CLEANTREE_MANIFEST:-}" ]; then
    "$python" -m pytest_cleantree check --manifest "$CLEANTREE_MANIFEST" || status=$?
else
    "$python" -m pytest_cleantree check || status=$?
fi
case "$status" in
    0) ;;
    1)
        echo "$me: not launching $server: the tree is not clean (the lines above remain)" >&2
        exit 1
        ;;
    2)
        echo "$me: not launching $server: the check could not run (the error above" \
            "says why: a missing or bad manifest, a root or file that cannot be read)" >&2
        exit 2
        ;;
    *)
        echo "$me: not launching $server: the check failed to run" \
            "($python -m pytest_cleantree exited $status)" >&2
        exit "$status"
        ;;
esac
exec "$@"
