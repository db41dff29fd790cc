"""xla_reference.py - the same module through real XLA (jaxlib), for
`make bench`: XLA's HLO text parser, a whole XLA:CPU compile, and the time
XLA's own HLO passes take on it (from its pass-pipeline log), next to
xla-repl's figures for the same module measured in the same run.

Usage: xla_reference.py N MODULE.hlo XR_BENCH_OUTPUT [RUNS]
  N                 the size xr_bench was given
  MODULE.hlo        the module (xr_bench --print N writes it)
  XR_BENCH_OUTPUT   what xr_bench printed for that size (load and
                    pipeline lines), to set the ratios against
Prints `bench: xla ...` lines. Needs jax (make venv). Exit 77 when jax is
not importable.

What is compared with what: XLA's pass of the same name, first call (XLA
runs several of them more than once, in fixed-point loops; the first call
sees the module as it comes, as ours does), against our pass alone (the
`PassResult.ms` of pass_apply). XLA:CPU has no multi-output fusion pass.
XLA's compile includes its whole pipeline and LLVM code generation, which
xla-repl does not do in `pipeline`: it is context, not a like-for-like
ratio.
"""
import os
import re
import statistics
import subprocess
import sys
import time

OURS_TO_XLA = {
    "call-inliner": "call-inliner",
    "tuple-simplifier": "tuple-simplifier",
    "algsimp": "algsimp",
    "constant-folding": "constant_folding",
    "cse": "cse",
    "dce": "dce",
    "fusion": "fusion",
}

CHILD = r"""
import sys, time
import jax
import jaxlib._hlo as hlo
from jax._src import compiler
from jax._src.interpreters import mlir
from jax._src.lib import _jax, xla_client as xc
from jax._src.lib.mlir import ir

text = open(sys.argv[1]).read()
runs = int(sys.argv[2])
ts = []
for _ in range(runs):
    t = time.perf_counter()
    m = hlo.hlo_module_from_text(text)
    ts.append((time.perf_counter() - t) * 1e3)
print("parse_ms", *ts, flush=True)
bc = _jax.mlir.hlo_to_stablehlo(m.as_serialized_hlo_module_proto())
cpu = jax.devices("cpu")[:1]
backend = cpu[0].client
devs = xc.DeviceList(tuple(cpu))
opts = compiler.get_compile_options(num_replicas=1, num_partitions=1)
with mlir.make_ir_context():
    mod = ir.Module.parse(bc)
    t = time.perf_counter()
    backend.compile_and_load(mod, executable_devices=devs,
                             compile_options=opts)
    print("compile_ms", (time.perf_counter() - t) * 1e3, flush=True)
"""

PASS_RE = re.compile(r"HLO pass: (\S+) time: .*?\((\d+) us\)")
CHECK_RE = re.compile(
    r"^I\d+ (\d+):(\d+):([\d.]+) .*Invariant checker (done )?hlo-verifier")


def ours_figures(path, n):
    """Load median and per-pass own medians (ms) for size n."""
    load, own, whole = None, {}, None
    cur = None
    for line in open(path):
        m = re.match(r"bench: (load|pipeline) n=(\d+)", line)
        if m:
            cur = int(m.group(2))
            if cur == n:
                v = float(re.search(r"median_ms=([\d.]+)", line).group(1))
                if m.group(1) == "load":
                    load = v
                else:
                    whole = v
            continue
        if cur == n and "the pass alone" in line:
            for k, v in re.findall(r" ([a-z-]+)=([\d.]+)", line):
                own[k] = float(v)
    return load, whole, own


def main():
    if len(sys.argv) < 4:
        print("usage: xla_reference.py N MODULE.hlo XR_BENCH_OUTPUT [RUNS]",
              file=sys.stderr)
        return 2
    n, hlo_path, ours_path = int(sys.argv[1]), sys.argv[2], sys.argv[3]
    runs = int(sys.argv[4]) if len(sys.argv) > 4 else 5
    try:
        import jax  # noqa: F401
    except ImportError:
        print("bench: xla reference skipped: jax not installed (make venv)")
        return 77
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="0",
               TF_CPP_VMODULE="hlo_pass_pipeline=1",
               JAX_PLATFORMS="cpu")
    p = subprocess.run([sys.executable, "-c", CHILD, hlo_path, str(runs)],
                       env=env, capture_output=True, text=True)
    if p.returncode != 0:
        sys.stderr.write(p.stderr[-2000:])
        print("bench: xla reference failed (exit %d)" % p.returncode)
        return 1
    parse = compile_ms = None
    for line in p.stdout.splitlines():
        f = line.split()
        if f and f[0] == "parse_ms":
            parse = statistics.median(float(x) for x in f[1:])
        elif f and f[0] == "compile_ms":
            compile_ms = float(f[1])
    first, calls, total = {}, {}, {}
    checks, opened = [], None
    for line in p.stderr.splitlines():
        m = PASS_RE.search(line)
        if m:
            name, us = m.group(1), int(m.group(2))
            first.setdefault(name, us / 1e3)
            calls[name] = calls.get(name, 0) + 1
            total[name] = total.get(name, 0) + us / 1e3
            continue
        m = CHECK_RE.search(line)
        if m:
            t = (int(m.group(1)) * 3600 + int(m.group(2)) * 60 +
                 float(m.group(3))) * 1e3
            if m.group(4):
                if opened is not None:
                    checks.append(t - opened)
                opened = None
            else:
                opened = t
    load, whole, own = ours_figures(ours_path, n)
    print("bench: xla reference: jax %s, the n=%d module"
          % (jax.__version__, n))

    def ratio(a, b):
        return "%.1fx" % (a / b) if a and b else "n/a"

    print("bench: xla parse_ms=%.2f ours_load_ms=%s xla_over_ours=%s "
          "(XLA's text parser alone; ours parses and verifies)"
          % (parse, load, ratio(parse, load)))
    if checks:
        print("bench: xla verifier_ms=%.2f (median of %d runs of its "
              "hlo-verifier invariant checker)"
              % (statistics.median(checks), len(checks)))
    for ours, x in OURS_TO_XLA.items():
        if x not in first:
            print("bench: xla pass %s: not run by XLA:CPU here" % ours)
            continue
        print("bench: xla pass %s xla_first_ms=%.2f xla_calls=%d "
              "xla_total_ms=%.2f ours_ms=%s xla_over_ours=%s"
              % (ours, first[x], calls[x], total[x], own.get(ours),
                 ratio(first[x], own.get(ours))))
    all_passes = sum(total.values())
    print("bench: xla hlo_passes_total_ms=%.1f (%d pass runs) "
          "compile_ms=%.0f ours_pipeline_ms=%s "
          "(XLA's compile includes LLVM code generation)"
          % (all_passes, sum(calls.values()), compile_ms or 0, whole))
    return 0


if __name__ == "__main__":
    sys.exit(main())
