#!/usr/bin/env bash
# install-deps.sh - install the Debian 12 packages xla-repl needs to build and
# test, but only those that are missing. On a machine that has them all this
# is a few dpkg-query calls and nothing else (no apt-get update, no sudo).
#
#   scripts/install-deps.sh          install what is missing
#   scripts/install-deps.sh --check  list what is missing; exit 1 if anything
#
# XR_SKIP_DEPS=1 skips the whole thing (for machines set up by other means).
# The CUDA toolkit is optional and never installed here.
set -euo pipefail

# build-essential: gcc, make, libc headers (a fresh image may lack them).
# clang + libclang-rt-14-dev: libFuzzer for the parser fuzz harness.
PACKAGES=(
	build-essential
	cmake
	pkg-config
	llvm-19-dev
	libgraphviz-dev
	graphviz
	libreadline-dev
	libcmocka-dev
	clang
	libclang-rt-14-dev
	# xmllint and headless Chromium: tests/viz (rendered files, report)
	libxml2-utils
	chromium
)

say() { printf 'install-deps: %s\n' "$*" >&2; }

if [[ "${XR_SKIP_DEPS:-0}" == 1 ]]; then
	say "XR_SKIP_DEPS=1: not checking system packages"
	exit 0
fi

if ! command -v dpkg-query >/dev/null 2>&1; then
	say "not a Debian-like system (no dpkg-query); please install the"
	say "equivalents of: ${PACKAGES[*]}"
	exit 0
fi

installed() {
	local status
	status=$(dpkg-query -W -f='${db:Status-Abbrev}' "$1" 2>/dev/null) ||
		return 1
	[[ "$status" == ii* ]]
}

missing=()
for p in "${PACKAGES[@]}"; do
	installed "$p" || missing+=("$p")
done

if [[ ${#missing[@]} -eq 0 ]]; then
	exit 0
fi

if [[ "${1:-}" == --check ]]; then
	printf '%s\n' "${missing[@]}"
	exit 1
fi

say "missing: ${missing[*]}"

sudo=()
if [[ $(id -u) -ne 0 ]]; then
	if command -v sudo >/dev/null 2>&1; then
		sudo=(sudo)
	else
		say "not root and no sudo: install these as root, then rerun:"
		say "  apt-get install ${missing[*]}"
		exit 1
	fi
fi

export DEBIAN_FRONTEND=noninteractive
apt=("${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get -y -q
     -o Dpkg::Options::=--force-confdef -o Dpkg::Options::=--force-confold)

say "apt-get update"
"${apt[@]}" update </dev/null
say "apt-get install ${missing[*]}"
"${apt[@]}" install "${missing[@]}" </dev/null

still=()
for p in "${missing[@]}"; do
	installed "$p" || still+=("$p")
done
if [[ ${#still[@]} -ne 0 ]]; then
	say "still missing after apt-get: ${still[*]}"
	exit 1
fi
say "done"
