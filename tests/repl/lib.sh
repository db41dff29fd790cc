# lib.sh - the start that the script tests share (tests/repl, tests/tour);
# they source it with their own arguments, XLA_REPL [CORPUS_DIR].
#
# Sets bin (XLA_REPL as an absolute path, so a runner may cd), here (this
# directory) and work (a scratch directory, removed on exit).

if [ $# -lt 1 ]; then
	echo "usage: $0 XLA_REPL [CORPUS_DIR]" >&2
	exit 2
fi
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
