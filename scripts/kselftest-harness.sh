#!/bin/bash
# Extract the kselftest harness headers from Debian's linux-source package into
# $1 (default build/kselftest). The harness is not copied into the repository.
set -euo pipefail
out=${1:-build/kselftest}
[ -f "$out/kselftest_harness.h" ] && exit 0
tarball=$(ls /usr/src/linux-source-*.tar.xz 2>/dev/null | sort -V | tail -n1)
if [ -z "$tarball" ]; then
	echo "kselftest-harness: no /usr/src/linux-source-*.tar.xz; run scripts/setup.sh" >&2
	exit 1
fi
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
tar -xJf "$tarball" -C "$tmp" --wildcards \
	'*/tools/testing/selftests/kselftest_harness.h' \
	'*/tools/testing/selftests/kselftest.h'
cp "$tmp"/*/tools/testing/selftests/kselftest_harness.h "$tmp"/*/tools/testing/selftests/kselftest.h "$out/"
