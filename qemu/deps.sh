#!/usr/bin/env bash
# Install the given Debian packages if any is missing.  Fast (one dpkg query)
# when everything is already installed.  Runs apt-get as root, or via sudo.
set -euo pipefail
missing=()
for p in "$@"; do
	st=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)
	[ "$st" = installed ] || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
	echo "deps: all ${#} packages installed"
	exit 0
fi
echo "deps: installing: ${missing[*]}"
sudo=
if [ "$(id -u)" != 0 ]; then
	command -v sudo >/dev/null || { echo "deps: not root and no sudo; install: ${missing[*]}" >&2; exit 1; }
	sudo="sudo -E"
fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -q
$sudo apt-get install -y -q --no-install-recommends "${missing[@]}"
