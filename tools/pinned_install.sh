#!/bin/sh
# tools/pinned_install.sh PYTHON REQUIREMENTS: installs a fully pinned requirements file (every package with ==, as
# tools/deploy-tools.txt) with --no-deps and --no-compile, from this machine's wheelhouse without asking the package
# index; the first time, or when a pin is new, the wheels are downloaded there first. Asking the index costs more
# than installing: for tools/deploy-tools.txt's 95 wheels (pip's cache warm), 44 s of CPU with the index against
# 22 s from the wheelhouse, 31 s of it pip reading the index's pages (2026-11-28, load 4 to 7 on 2 cores).
# The wheelhouse: $EDDY_WHEELHOUSE, else ~/.cache/eddy/wheelhouse ($XDG_CACHE_HOME's when set).
set -e
python=$1
requirements=$2
wheelhouse=${EDDY_WHEELHOUSE:-${XDG_CACHE_HOME:-$HOME/.cache}/eddy/wheelhouse}
offline() {
	# the wheelhouse alone: PIP_FIND_LINKS in place of any other find-links (the environment's, pip.conf's)
	PIP_FIND_LINKS="$wheelhouse" "$python" -m pip install --quiet --no-deps --no-compile --no-index -r "$requirements"
}
offline 2>/dev/null && exit 0
mkdir -p "$wheelhouse"
"$python" -m pip download --quiet --no-deps --only-binary=:all: --dest "$wheelhouse" -r "$requirements"
offline
