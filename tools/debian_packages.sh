#!/bin/sh
# tools/debian_packages.sh "COMMAND ..." PACKAGE ...
# Installs PACKAGEs from Debian's packages when one of the COMMANDs is missing (what `make` calls for Java, Node.js
# and Chromium). One install at a time on this machine: a second `make test` setting up at the same moment waits for
# the first and looks again; apt-get waits for dpkg's lock when anything else holds it.
set -e
commands=$1
shift
missing() {
	for c in $commands; do command -v "$c" >/dev/null 2>&1 || return 0; done
	return 1
}
missing || exit 0
exec 9>/tmp/eddy-apt.lock
flock 9
missing || exit 0
SUDO=$([ "$(id -u)" = 0 ] || echo sudo)
$SUDO apt-get -o DPkg::Lock::Timeout=600 update
$SUDO apt-get -o DPkg::Lock::Timeout=600 install -y "$@"
