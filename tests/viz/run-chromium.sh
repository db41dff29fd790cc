#!/usr/bin/env bash
# run-chromium.sh - the `report` page opens and works in headless
# Chromium: its script runs on every picture (pan/zoom tools added, the
# viewBox set), nothing fails to load, and a screenshot is taken
# (kept as $XR_BUILD_DIR/tests/viz/report-screenshot.png to look at).
#
# Usage: run-chromium.sh XLA_REPL [CORPUS_DIR]. Exit 77 (skipped) when
# Chromium is not installed or the build has no Graphviz.
set -u
bin=$1
corpus=${2:-}
here=$(cd "$(dirname "$0")" && pwd)
golden="$here/../golden/dot"

chrome=""
for c in chromium chromium-browser google-chrome; do
	command -v "$c" >/dev/null 2>&1 && { chrome=$c; break; }
done
if [ -z "$chrome" ]; then
	echo "skipped: no chromium (apt-get install chromium)"
	exit 77
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

# A session with a fusion step and, when the corpus is there, a big
# module (pictures that fall back, a long diff).
{
	echo "load $golden/unfused.hlo"
	echo "pass dce"
	echo "load $golden/fusion.hlo"
	big=""
	if [ -n "$corpus" ] && [ -f "$corpus/INDEX.tsv" ]; then
		big=$(tail -n +2 "$corpus/INDEX.tsv" | sort -t$'\t' -k4 -n -r | head -1 | cut -f1)
	fi
	[ -n "$big" ] && echo "load $corpus/$big" && echo "pass dce"
	echo "report $work/r.html"
} >"$work/s.xr"
out=$("$bin" "$work/s.xr" 2>&1)
if grep -q "built without Graphviz" <<<"$out"; then
	echo "skipped: built without Graphviz"
	exit 77
fi
steps=$(grep -c '^load\|^pass' "$work/s.xr")
[ -f "$work/r.html" ] || { echo "$out"; echo "FAIL: no report"; exit 1; }

flags=(--headless --no-sandbox --disable-gpu --no-first-run
       --user-data-dir="$work/profile" --disable-dev-shm-usage)

# Whether this browser runs at all here (a machine without the kernel
# features or devices it wants): a page of our own making, one retry for
# a cold first start. A browser that cannot show even that is the
# machine's problem, not the report's: skipped, saying why.
printf '<p id="probe">ok</p>' >"$work/probe.html"
probe() {
	timeout 120 "$chrome" "${flags[@]}" --dump-dom "file://$work/probe.html" \
		>"$work/probe.out" 2>"$work/probe.err" &&
		grep -q 'id="probe"' "$work/probe.out"
}
if ! probe && ! probe; then
	tail -5 "$work/probe.err"
	echo "skipped: $chrome does not run here (it cannot show a plain page)"
	exit 77
fi
url="file://$work/r.html"
timeout 120 "$chrome" "${flags[@]}" --dump-dom "$url" >"$work/dom.html" 2>"$work/chrome.err" ||
	{ tail -5 "$work/chrome.err"; fail "chromium --dump-dom failed"; }
ready=$(grep -o 'data-zoom="ready"' "$work/dom.html" | wc -l)
[ "$ready" -eq "$steps" ] || fail "pan/zoom set up on $ready of $steps pictures"
[ "$(grep -o '<div class="tools">' "$work/dom.html" | wc -l)" -eq "$steps" ] ||
	fail "zoom buttons missing"
# fit() replaced Graphviz's fixed size by a viewBox filling the box.
grep -q '<svg[^>]*preserveAspectRatio="xMidYMid meet"' "$work/dom.html" ||
	fail "the script did not fit the pictures"
grep -q 'width="[0-9.]*pt"' "$work/dom.html" && fail "fixed picture size left"
# Nothing was fetched (the page is self-contained) and no script error.
grep -Ei 'Uncaught|net::ERR' "$work/chrome.err" && fail "console errors"

shot=$work/shot.png
timeout 120 "$chrome" "${flags[@]}" --window-size=1280,2000 \
	--screenshot="$shot" "$url" >/dev/null 2>&1 || fail "screenshot failed"
[ "$(head -c 8 "$shot" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] ||
	fail "screenshot is not a PNG"
[ "$(wc -c <"$shot")" -gt 20000 ] || fail "screenshot is (nearly) empty"
if [ -n "${XR_BUILD_DIR:-}" ]; then
	mkdir -p "$XR_BUILD_DIR/tests/viz" &&
		cp "$shot" "$XR_BUILD_DIR/tests/viz/report-screenshot.png"
fi
[ "$fails" -eq 0 ] && echo "chromium: report works ($steps steps)"
[ "$fails" -eq 0 ]
