#!/usr/bin/env bash
# run-render.sh - the files render, compare and report write are valid:
# SVG parses as XML, PNG and PDF start with their signatures, the .dot is
# the DOT text, the HTML page has one inline picture per history step and
# loads nothing from the network; the largest corpus modules render (and
# say that they fell back); a failing command writes no file.
#
# Usage: run-render.sh XLA_REPL [CORPUS_DIR]. Exit 77 (skipped) when the
# build has no Graphviz (after checking that it says so clearly).
set -u
bin=$1
corpus=${2:-}
here=$(cd "$(dirname "$0")" && pwd)
golden="$here/../golden/dot"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

xml_ok() {
	if command -v xmllint >/dev/null 2>&1; then
		xmllint --noout "$1" 2>"$work/xml.err" || { cat "$work/xml.err"; return 1; }
	elif command -v python3 >/dev/null 2>&1; then
		python3 -c 'import sys, xml.etree.ElementTree as E; E.parse(sys.argv[1])' "$1"
	else
		echo "note: no xmllint or python3: $1 not parsed"
	fi
}
sig() { head -c "$2" "$1" | od -An -tx1 | tr -d ' \n'; }

# Without Graphviz: .dot still works, pictures fail saying why.
probe=$("$bin" -e "load $golden/fusion.hlo" -e "render $work/probe.svg" 2>&1)
if grep -q "built without Graphviz" <<<"$probe"; then
	"$bin" -e "load $golden/fusion.hlo" -e "render $work/p.dot" >/dev/null ||
		fail "render .dot without Graphviz"
	[ -e "$work/probe.svg" ] && fail "a file was written without Graphviz"
	[ "$fails" -eq 0 ] || exit 1
	echo "skipped: built without Graphviz"
	exit 77
fi

cat >"$work/s.xr" <<XR
load $golden/unfused.hlo
render $work/a.svg
render $work/a.png
render $work/a.pdf
render $work/a.dot
render $work/n.svg exp 1
pass dce
pass cse
load $golden/fusion.hlo
set fusions collapsed
render $work/c.svg
compare $work/cmp.svg
compare $work/cmp.png 0 3
compare $work/cmp.pdf 1 2
report $work/r.html
XR
if ! "$bin" "$work/s.xr" >"$work/out" 2>&1; then
	cat "$work/out"
	fail "the script failed"
fi
for f in a.svg n.svg c.svg cmp.svg; do
	xml_ok "$work/$f" || fail "$f is not XML"
	grep -q "<svg" "$work/$f" || fail "$f has no <svg>"
done
for f in a.png cmp.png; do
	[ "$(sig "$work/$f" 8)" = 89504e470d0a1a0a ] || fail "$f: not a PNG"
done
for f in a.pdf cmp.pdf; do
	[ "$(head -c 5 "$work/$f")" = "%PDF-" ] || fail "$f: not a PDF"
done
head -1 "$work/a.dot" | grep -q '^digraph ' || fail "a.dot is not DOT"
# The neighbourhood of exp at depth 1: exp, mul and its users; not x.
grep -q '>exp</text>' "$work/n.svg" || fail "n.svg lacks exp"
grep -q '>x</text>' "$work/n.svg" && fail "n.svg shows x, 2 edges away"
grep -q '1 operand' "$work/n.svg" || fail "n.svg has no cut-off edge"

# The report: 4 steps, 4 pictures, each parsing as XML on its own.
html=$work/r.html
[ "$(grep -c '<section' "$html")" -eq 4 ] || fail "report: not 4 sections"
[ "$(grep -o '<svg' "$html" | wc -l)" -eq 4 ] || fail "report: not 4 pictures"
[ "$(grep -o 'class="pic"' "$html" | wc -l)" -eq 4 ] || fail "report: not 4 picture boxes"
grep -Eq 'src=|<link|@import|url\(' "$html" && fail "report refers to outside files"
awk '/<svg/{p=1; n++; f=sprintf("'"$work"'/pic%d.svg", n)} p{print > f} /<\/svg>/{p=0}' "$html"
[ "$(ls "$work"/pic*.svg 2>/dev/null | wc -l)" -eq 4 ] || fail "report: pictures not cut out"
for f in "$work"/pic*.svg; do xml_ok "$f" || fail "report picture $f is not XML"; done

# Failing commands write nothing.
for cmd in "render $work/bad.svg no_such_instr" "render $work/bad.svg exp -1" \
	"render $work/bad.jpg" "compare $work/bad.svg 0 99" "report $work/bad.htm" \
	"render $work/no/such/dir/bad.svg" "report $work/no/such/dir/bad.html"; do
	if "$bin" -e "load $golden/fusion.hlo" -e "$cmd" >"$work/e.out" 2>&1; then
		fail "'$cmd' succeeded"
	fi
	grep -q "error:" "$work/e.out" || fail "'$cmd' gave no error"
	ls "$work"/bad.* >/dev/null 2>&1 && fail "'$cmd' wrote a file"
done

# The largest corpus modules: rendered, falling back, saying so.
if [ -n "$corpus" ] && [ -f "$corpus/INDEX.tsv" ]; then
	for f in $(tail -n +2 "$corpus/INDEX.tsv" | sort -t$'\t' -k4 -n -r | head -3 | cut -f1); do
		"$bin" -e "load $corpus/$f" -e "render $work/big.svg" >"$work/big.out" 2>&1 ||
			{ cat "$work/big.out"; fail "render $f"; continue; }
		grep -q "^note: .*over the cap of 400" "$work/big.out" || fail "$f: no fall-back note"
		xml_ok "$work/big.svg" || fail "$f: SVG is not XML"
	done
fi

[ "$fails" -eq 0 ] && echo "render: all files valid"
[ "$fails" -eq 0 ]
