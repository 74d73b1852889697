#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# export-tree.sh DEST: the source tree as it stands (the checkout's tracked
# and new files, build/ left out) copied into DEST, for a DKMS source
# directory or a package build.
set -euo pipefail
cd "$(dirname "$0")/.."
dest=$1
mkdir -p "$dest"
if git rev-parse --is-inside-work-tree > /dev/null 2>&1; then
	git ls-files -z --cached --others --exclude-standard |
		tar --null --ignore-failed-read -T - -cf - 2>/dev/null | tar -xf - -C "$dest"
else
	tar --exclude=./build -cf - . | tar -xf - -C "$dest"
fi
