#!/bin/sh
# Pre-launch guard: refuse to start SGLang on a tree that still holds a reverted experiment.
#
#   CLEANTREE_MANIFEST=/root/cleantree.toml ./launch_server.sh --model-path ... --tp 8
#
# The manifest can say root = "module:sglang": the check then reads the very package that
# `python -m sglang.launch_server` imports.  Exit codes of `cleantree check`: 0 clean,
# 1 forbidden lines remain, 2 the check could not run; anything but 0 stops the launch.
# Exit 3: pytest-cleantree cannot be imported by $PYTHON (checked first, so that a missing
# install is never reported as an unclean tree).
set -eu
manifest="${CLEANTREE_MANIFEST:-cleantree.toml}"
python="${PYTHON:-python3}"

if ! why="$("$python" -c 'import pytest_cleantree' 2>&1)"; then
    echo "launch_server.sh: not launching SGLang: pytest-cleantree is not installed for" \
        "$python (install it for that interpreter, as the README says):" \
        "$(printf '%s\n' "$why" | tail -n 1)" >&2
    exit 3
fi

status=0
"$python" -m pytest_cleantree check --manifest "$manifest" || status=$?
case "$status" in
    0) ;;
    1)
        echo "launch_server.sh: not launching SGLang: the tree is not clean (the lines above remain)" >&2
        exit 1
        ;;
    2)
        echo "launch_server.sh: not launching SGLang: the check could not run (the error above" \
            "says why: a missing or bad manifest, a root or file that cannot be read)" >&2
        exit 2
        ;;
    *)
        echo "launch_server.sh: not launching SGLang: the check failed to run" \
            "($python -m pytest_cleantree exited $status)" >&2
        exit "$status"
        ;;
esac
exec "$python" -m sglang.launch_server "$@"
