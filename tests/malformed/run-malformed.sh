#!/usr/bin/env bash
# run-malformed.sh XLA_REPL [CORPUS_DIR] - every malformed input must be
# refused cleanly: `xla-repl -e "load FILE"` exits 1 (not 0, not a signal,
# not 86 = a sanitizer report, not a timeout) and prints a located error
# FILE:LINE:COL: error: ... containing the expected text.
#
# Each *.hlo here starts with
#   // expect: TEXT      substring of the error message (required)
#   // at: LINE:COL      where that error must point (optional)
# Inputs too big to commit (2 MB lines, 10000-deep nesting, ...) are
# generated into a temporary directory by gen_cases below. CORPUS_DIR is
# not used.
set -u

repl=${1:?usage: run-malformed.sh XLA_REPL [CORPUS_DIR]}
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# A hang fails the case; the limit leaves room for sanitizer builds on a
# loaded 2-core host (a case that passed alone once ran past 10 s there).
limit=${XR_MALFORMED_TIMEOUT:-60}
pass=0
fail=0
failed=()

# check NAME FILE EXPECT AT: runs the load and judges the result.
check() {
	local name=$1 file=$2 expect=$3 at=$4 out=$tmp/out.txt rc why=""
	timeout "$limit" "$repl" -e "load $file" >"$out" 2>&1 </dev/null
	rc=$?
	# The first located error that carries the expected text.
	local line
	line=$(grep -a -E -- "^$(re "$file"):[0-9]+:[0-9]+: error: " "$out" |
		grep -a -F -m1 -- "$expect")
	if [ "$rc" -eq 124 ]; then
		why="timed out after $limit s"
	elif [ "$rc" -eq 86 ] || grep -a -q -E \
		'runtime error:|AddressSanitizer|LeakSanitizer' "$out"; then
		why="sanitizer report (exit $rc)"
	elif [ "$rc" -gt 128 ]; then
		why="killed by signal $((rc - 128))"
	elif [ "$rc" -ne 1 ]; then
		why="exit status $rc, expected 1"
	elif ! grep -a -q -E -- "^$(re "$file"):[0-9]+:[0-9]+: error: " "$out"; then
		why="no located error '$file:LINE:COL: error:'"
	elif [ -z "$line" ]; then
		why="no located error containing '$expect'"
	elif [ -n "$at" ] && [ "${line#"$file:$at: error: "}" = "$line" ]; then
		local got=${line#"$file:"}
		why="error at ${got%%: error: *}, expected at $at"
	fi
	if [ -z "$why" ]; then
		pass=$((pass + 1))
		echo "PASS $name"
	else
		fail=$((fail + 1))
		failed+=("$name")
		echo "FAIL $name: $why"
		head -c 600 "$out" | sed -n '1,4s/^/    | /p'
	fi
}

# Escapes a path for use in an extended regular expression.
re() { printf '%s' "$1" | sed 's/[][\.*^$(){}+?|/]/\\&/g'; }

# Header field: the text after "// KEY: " on one of the first two lines.
field() { head -n 2 "$1" | sed -n "s|^// $2: ||p" | head -n 1; }

# --- generated inputs -------------------------------------------------------
# Each writes $tmp/NAME.hlo and records "NAME|EXPECT|AT" with gen.
gen_names=()
gen() { gen_names+=("$1|$2|$3"); }

# repeat N TEXT: TEXT N times.
repeat() { local i; for ((i = 0; i < $1; i++)); do printf '%s' "$2"; done; }
# fill N CHAR: N copies of one character, fast.
fill() { head -c "$1" /dev/zero | tr '\0' "$2"; }

gen_cases() {
	local big=2097152 pre
	pre='  ROOT r = f32[4] negate(p), metadata={op_name="'
	{ printf 'ENTRY main {\n  p = f32[4] parameter(0)\n%s' "$pre"
	  fill "$big" a; printf '"}, 12\n}\n'; } >"$tmp/long-line-2mb.hlo"
	gen long-line-2mb "expected an attribute name" "3:$((${#pre} + big + 5))"

	{ printf 'ENTRY main {\n  p = f32[4] parameter(0)\n'
	  printf '  ROOT r = f32[4] add(p, '; fill "$big" q; printf ')\n}\n'; } \
		>"$tmp/long-name-2mb.hlo"
	gen long-name-2mb "undefined instruction 'qqqq" "3:26"

	{ printf 'ENTRY main {\n  ROOT p = '; fill 10000 '('; printf 'f32[]'
	  fill 10000 ')'; printf ' parameter(0)\n}\n'; } \
		>"$tmp/deep-tuple-shape-10000.hlo"
	gen deep-tuple-shape-10000 "shape nested too deeply" "2:76"

	{ printf 'ENTRY main {\n  p = f32[4] parameter(0)\n'
	  printf '  ROOT r = f32[4] add('; fill 100000 '('; printf '\n}\n'; } \
		>"$tmp/deep-parentheses-100k.hlo"
	gen deep-parentheses-100k "nested too deeply" ""

	{ printf 'ENTRY main {\n  p = f32[4] parameter(0)\n  ROOT r = '
	  repeat 100000 'negate('; printf 'p'; fill 100000 ')'; printf '\n}\n'; } \
		>"$tmp/deep-operands-100k.hlo"
	gen deep-operands-100k "operands nested too deeply" ""

	{ printf 'ENTRY main {\n  p = f32[4] parameter(0)\n'
	  printf '  ROOT r = f32[4] negate(p), metadata='
	  fill 100000 '{'; fill 100000 '}'; printf '\n}\n'; } \
		>"$tmp/deep-braces-100k.hlo"
	gen deep-braces-100k "attribute 'metadata'" ""

	{ printf 'ENTRY main {\n  p = f32[] parameter(0)\n'
	  printf '  ROOT c = f32[] call(p), to_apply='
	  repeat 100 '{ x = f32[] parameter(0)
  ROOT c = f32[] call(x), to_apply='
	  printf 'main\n'; } >"$tmp/deep-inline-computations.hlo"
	gen deep-inline-computations "nested too deeply" ""

	{ printf 'ENTRY main {\n  ROOT c = f32[1000000] constant({0'
	  seq -f ', %g' 1 999990 | tr -d '\n'; printf '})\n}\n'; } \
		>"$tmp/huge-literal.hlo"
	gen huge-literal "literal has 999991 elements, shape f32[1000000] needs 1000000" "2:34"

	: >"$tmp/empty-file.hlo"
	gen empty-file "no computation in the module" "1:1"

	printf '\357\273\277HloModule m\n\nENTRY main {\n  ROOT p = f32[4] parameter(0)\n}\n' \
		>"$tmp/utf8-byte-order-mark.hlo"
	gen utf8-byte-order-mark "expected a computation" "1:1"

	head -c 1048576 /dev/zero >"$tmp/nul-bytes-1mb.hlo"
	gen nul-bytes-1mb "binary data (a NUL byte)" "1:1"
}

# --- run --------------------------------------------------------------------
if [ ! -x "$repl" ] || [ -d "$repl" ]; then
	echo "run-malformed: '$repl' is not an executable" >&2
	exit 1
fi
case $repl in
*/*) repl=$(cd "$(dirname "$repl")" && pwd)/$(basename "$repl") ;;
esac
cd "$here" || exit 1
for f in *.hlo; do
	expect=$(field "$f" expect)
	if [ -z "$expect" ]; then
		fail=$((fail + 1))
		failed+=("$f")
		echo "FAIL ${f%.hlo}: no '// expect:' line"
		continue
	fi
	check "${f%.hlo}" "$f" "$expect" "$(field "$f" at)"
done
gen_cases
for g in "${gen_names[@]}"; do
	IFS='|' read -r name expect at <<<"$g"
	check "$name (generated)" "$tmp/$name.hlo" "$expect" "$at"
done

echo "malformed: $pass passed, $fail failed, $((pass + fail)) cases"
if [ "$fail" -gt 0 ]; then
	printf '  failed: %s\n' "${failed[@]}"
	exit 1
fi
