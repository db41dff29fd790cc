#!/usr/bin/env bash
# run-cli.sh - xla-repl as a program: options, exit codes (0 success,
# 1 a command failed, 2 usage error), batch mode from scripts, -e and
# stdin, and survival of hostile input.
#
# Usage: run-cli.sh XLA_REPL [CORPUS_DIR]
set -u

. "$(dirname "$0")/lib.sh" # bin, here, work
cp "$here"/*.hlo "$work"/
cd "$work" || exit 1
export HOME="$work" # Readline's history file goes here, not to ~

pass=0
fail=0
name=""

# run NAME [ARGS...]: runs xla-repl with stdin from the file $from (set
# just before; /dev/null if unset).
run() {
	name=$1
	shift
	"$bin" "$@" <"${from:-/dev/null}" >out 2>err
	rc=$?
	unset from
}

# feed TEXT: the next run reads TEXT on stdin.
feed() {
	printf '%s' "$1" >stdin.txt
	from=stdin.txt
}

bad() {
	echo "FAIL $name: $*"
	echo "--- stdout:"; head -c 2000 out
	echo "--- stderr:"; head -c 2000 err
	fail=$((fail + 1))
}

ok() { pass=$((pass + 1)); }

# expect RC [STDOUT]: the exit status, and stdout exactly when given.
expect() {
	if [ "$rc" != "$1" ]; then
		bad "exit status $rc, expected $1"
	elif [ $# -gt 1 ] && [ "$(cat out)" != "$2" ]; then
		bad "stdout differs; expected: $2"
	else
		ok
	fi
}

# has FILE TEXT: FILE (out or err) contains TEXT.
has() {
	if grep -qF -- "$2" "$1"; then ok; else bad "$1 lacks '$2'"; fi
}

lacks() {
	if grep -qF -- "$2" "$1"; then bad "$1 has '$2'"; else ok; fi
}

# --- options -------------------------------------------------------------
run version --version
expect 0
if grep -qxE 'xla-repl [0-9]+\.[0-9]+\.[0-9]+' out && [ "$(wc -l <out)" = 1 ]; then ok; else bad "version line"; fi

run help --help
expect 0
has out "Usage: xla-repl"
if [ -s err ]; then bad "stderr not empty"; else ok; fi

run unknown-option --frobnicate
expect 2 ""
has err "unknown option '--frobnicate'"
has err "Usage: xla-repl"

run e-without-command -e
expect 2 ""
has err "Usage: xla-repl"

# --- -e ------------------------------------------------------------------
run e-one -e 'echo hi'
expect 0 "hi"

run e-in-order -e 'echo a' -e 'echo b'
expect 0 "a
b"

run e-stops -e 'echo a' -e bogus -e 'echo c'
expect 1 "a"
has err "-e:2:1: error: unknown command 'bogus' (try 'help')"

run e-keep-going --keep-going -e 'echo a' -e bogus -e 'echo c'
expect 1 "a
c"

run e-empty -e ''
expect 0 ""

# --- stdin batch ---------------------------------------------------------
feed $'echo hi\n'
run stdin-no-banner
expect 0 "hi"
if [ -s err ]; then bad "stderr not empty"; else ok; fi

feed $'echo a\nbogus\necho c\n'
run stdin-stops
expect 1 "a"
has err "<stdin>:2:1: error: unknown command 'bogus'"

feed $'echo a\nbogus\necho c\n'
run stdin-keep-going --keep-going
expect 1 "a
c"

feed $'echo crlf\r\n'
run stdin-crlf
expect 0 "crlf"

from=/dev/null run stdin-empty
expect 0 ""

feed $'ENTRY e {\n  p = f32[] parameter(0)\n'
run unterminated-block
expect 1 ""
has err "<stdin>:2:1: error: unterminated block started at line 1"

# --- scripts -------------------------------------------------------------
printf 'echo one\n' >one.xr
printf 'echo two\n' >two.xr
printf 'echo bad\nbogus\necho after\n' >bad.xr
printf 'stats\n' >stats.xr

run scripts-in-turn one.xr two.xr
expect 0 "one
two"

run script-failure-stops bad.xr two.xr
expect 1 "bad"
has err "bad.xr:2:1: error: unknown command 'bogus'"

# An error names the column of what it is about (the word the message
# quotes, else the command) and shows the line with a caret under it, as
# for HLO text: indented two blanks, a tab shown as a blank, one blank
# per character (UTF-8 counted once).
printf 'example softmax\n\trender  \303\251.svg  nosuch\n' >caret.xr
run error-caret caret.xr
expect 1 "loaded module 'jit_softmax' from example softmax (3 computations, 16 instructions)"
want=$(printf "caret.xr:2:18: error: no instruction 'nosuch' in module 'jit_softmax'\n   render  \303\251.svg  nosuch\n                  ^")
if [ "$(cat err)" = "$want" ]; then ok; else bad "caret: got '$(cat err)'"; fi

printf 'pass\n  pass   dce  nosuch\n' >caret2.xr
run error-caret-command --keep-going caret2.xr
want=$(printf "caret2.xr:1:1: error: wrong number of arguments for 'pass'\n  pass\n  ^\nUsage: pass NAME...\ncaret2.xr:2:15: error: unknown pass 'nosuch' (passes: algsimp, call-inliner, constant-folding, cse, dce, defuser, fusion, multi-output-fusion, tuple-simplifier)\n    pass   dce  nosuch\n                ^")
expect 1 ""
if [ "$(cat err)" = "$want" ]; then ok; else bad "caret: got '$(cat err)'"; fi

# too many arguments: the first one too many (after a quoted one)
printf 'print "a b"  x\n' >caret3.xr
run error-caret-extra caret3.xr
expect 1 ""
want=$(printf "caret3.xr:1:14: error: wrong number of arguments for 'print'\n  print \"a b\"  x\n               ^\nUsage: print [NAME]")
if [ "$(cat err)" = "$want" ]; then ok; else bad "caret: got '$(cat err)'"; fi

run script-keep-going --keep-going bad.xr two.xr
expect 1 "bad
after
two"

run script-missing nope.xr
expect 1 ""
has err "cannot open script 'nope.xr'"

# --- HLO files on the command line --------------------------------------
run hlo-then-e fusion.hlo -e stats
expect 0 "loaded module 'fusion_demo' from fusion.hlo (3 computations, 16 instructions)
stats: instructions=16 computations=3 fusions=1 kernels=2 kernels_all=2"

feed $'stats\n'
run hlo-then-stdin fusion.hlo
expect 0
has out "stats: instructions=16 computations=3 fusions=1 kernels=2 kernels_all=2"

run hlo-then-script fusion.hlo stats.xr
expect 0
has out "stats: instructions=16"

run hlo-bad bad-shape.hlo -e 'echo not reached'
expect 1 ""
has err "bad-shape.hlo:6:"

run hlo-missing missing.hlo -e 'echo not reached'
expect 1 ""
has err "cannot read 'missing.hlo'"

# --- quit ----------------------------------------------------------------
run quit-status -e 'echo a' -e quit -e 'echo b'
expect 0 "a"

run quit-after-failure --keep-going -e bogus -e quit -e 'echo b'
expect 1 ""

run exit-alias -e exit -e 'echo b'
expect 0 ""

# --- print elides big constants, save writes them in full ---------------
vals=$(seq -s ', ' 0 99)
printf 'c = f32[100] constant({%s})\nprint c\nsave big.hlo\nload big.hlo\n' \
	"$vals" >big.xr
run save-full-constants big.xr
expect 0
has out "constant({...})"
if grep -qF "constant({$vals})" big.hlo; then ok; else bad "big.hlo lacks the values"; fi

# --- hostile input: exit 1 with an error, never a crash -----------------
printf 'echo a\0b\n' >nul.xr
run nul-byte nul.xr
expect 1 ""
has err "nul.xr:1:1: error: NUL byte in input"

head -c 2000000 /dev/zero | tr '\0' x >stdin.txt
from=stdin.txt run long-word
expect 1 ""
has err "unknown command 'xxxxxxxx"

{
	printf 'p = f32[4] parameter(0)'
	head -c 2000000 /dev/zero | tr '\0' ' '
	printf '\nstats\n'
} >stdin.txt
from=stdin.txt run long-line
expect 0 "stats: instructions=1 computations=1 fusions=0 kernels=0 kernels_all=0"

{ printf 'HloModule '; head -c 2000000 /dev/zero | tr '\0' m; } >stdin.txt
from=stdin.txt run long-module-name
expect 1 ""

seq 1 300000 | gzip -n -c >junk.bin
from=junk.bin run binary-junk
expect 1 ""
cp junk.bin junk.xr
run binary-junk-script --keep-going junk.xr
expect 1

feed "ENTRY e {
  x = f32[] add($(printf '(%.0s' $(seq 1 20000))$(printf ')%.0s' $(seq 1 20000)))
}
"
run deep-nesting
expect 1 ""

feed "$(printf '{%.0s' $(seq 1 20000))"
run deep-open-block
expect 1 ""
has err "unterminated block"

# A byte order mark before the first command is not part of it.
printf '\357\273\277echo hi\n' >bom.xr
run bom bom.xr
expect 0 "hi"

# --- inputs that never end or cannot be read ----------------------------
# A directory on stdin is a read error, not an empty script.
from=.
run stdin-directory
expect 1 ""
has err "cannot read <stdin>: Is a directory"

# A file that never ends: refused (out of memory under a limit), not
# read forever; a .npy that is not one is said after its first bytes.
# The memory limits (ulimit -v) are not for a sanitizer's build, whose
# shadow memory needs more address space than they leave.
if ldd "$bin" 2>/dev/null | grep -q libasan; then limit=unlimited; else limit=; fi
ln -sf /dev/zero endless.npy
(ulimit -v ${limit:-4000000} && timeout 60 "$bin" \
	-e "load cost-kernels.hlo" -e "input 0 endless.npy" >out 2>err </dev/null)
rc=$?
name=npy-endless
expect 1
has err "endless.npy: not a .npy file (bad magic)"
if [ -z "$limit" ]; then
	(ulimit -v 1000000 && timeout 60 "$bin" -e "load /dev/zero" \
		>out 2>err </dev/null)
	rc=$?
	name=load-endless
	expect 1 ""
	has err "cannot read '/dev/zero': Cannot allocate memory"
	# One line longer than memory allows: an error, not the end of
	# input.
	(ulimit -v 1000000 &&
		head -c 1500000000 /dev/zero | timeout 60 "$bin" >out 2>err)
	rc=$?
	name=endless-line
	expect 1 ""
	has err "cannot read <stdin>: Cannot allocate memory"
	# zeros/ones/iota/random that do not fit in memory say so.
	printf 'HloModule big\nENTRY e {\n  ROOT p = f32[40000,40000] parameter(0)\n}\n' >big.hlo
	for w in zeros random; do
		(ulimit -v 3000000 && timeout 60 "$bin" -e "load big.hlo" \
			-e "input 0 $w" >out 2>err </dev/null)
		rc=$?
		name=input-too-big-$w
		expect 1
		has err "out of memory for parameter 0 'p' (f32[40000,40000], 6.0 GiB)"
	done
fi

# --- the prompt (needs a terminal: util-linux script) -------------------
if command -v script >/dev/null; then
	name=interactive
	printf '%s\n' 'echo hi' 'p0 = f32[4] parameter(0)' bogus 'ENTRY e {' \
		'  ROOT q = f32[2] parameter(0)' '}' stats quit |
		script -qec "'$bin'" /dev/null >out 2>err
	rc=$?
	expect 0
	has out "xla-repl "
	has out "xla> "
	has out "ROOT p0 = f32[4]{0} parameter(0)"
	has out "error: unknown command 'bogus'"
	lacks out "<stdin>:3"
	has out "...> "
	has out "stats: instructions=1 computations=1"

	# Ctrl-D at a continuation prompt ends the block and the session.
	name=interactive-eof-in-block
	printf 'add {\n}\n' | timeout 60 script -qec "'$bin'" /dev/null >out 2>err
	rc=$?
	expect 0
	has out "error: computation 'add' has no instructions"
fi

echo "cli: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
