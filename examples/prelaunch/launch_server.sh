#!/bin/sh
# Pre-launch guard: refuse to start SGLang on a tree that still holds a reverted experiment.
#
#   CLEANTREE_MANIFEST=/root/cleantree.toml ./launch_server.sh --model-path ... --tp 8
#
# The manifest can say root = "module:sglang": the check then reads the very package that
# `python -m sglang.launch_server` imports.  Exit codes of `cleantree check`: 0 clean,
# 1 forbidden lines remain, 2 the check could not run; anything but 0 stops the launch.
set -eu
manifest="${CLEANTREE_MANIFEST:-cleantree.toml}"
python="${PYTHON:-python3}"

"$python" -m pytest_cleantree check --manifest "$manifest" || {
    status=$?
    echo "launch_server.sh: not launching SGLang: the tree is not clean (see above)" >&2
    exit "$status"
}
exec "$python" -m sglang.launch_server "$@"
