"""xla_cpu_parity.py - this tool's kernel counts against real XLA:CPU's
(jaxlib), over the corpus's real program dumps.

For each module of ../shared/corpus/hlo whose INDEX kind is "dump" and
that XLA has not fused yet: XLA:CPU compiles it (jaxlib, as `make bench`
does) and the module it optimised is counted by xla-repl's own `stats`
(kernels: what runs as code, a fusion being one); xla-repl's `pipeline
cpu` runs on the original and is counted the same way. One line per
module, then the totals. A report for people tuning the fusion rules,
not a test: XLA's pipeline does more than fuse (it simplifies, assigns
layouts, may rewrite dots), and its CPU backend now fuses a reduction
with what reads it, which this tool's rules (XLA's classic fusion) do
not.

Usage: build/venv/bin/python scripts/xla_cpu_parity.py [XLA_REPL
       [CORPUS_DIR]]   (make venv first; exit 77 without jax)
Environment: XR_PARITY_MAX_INSTRS (default 20000) skips larger modules;
XR_PARITY_SECONDS (default 120) is each XLA compile's time limit.
"""
import os
import re
import subprocess
import sys
import tempfile

CHILD = r"""
import sys
import jax
import jaxlib._hlo as hlo
from jax._src import compiler
from jax._src.interpreters import mlir
from jax._src.lib import _jax, xla_client as xc
from jax._src.lib.mlir import ir

m = hlo.hlo_module_from_text(open(sys.argv[1]).read())
bc = _jax.mlir.hlo_to_stablehlo(m.as_serialized_hlo_module_proto())
cpu = jax.devices("cpu")[:1]
opts = compiler.get_compile_options(num_replicas=1, num_partitions=1)
with mlir.make_ir_context():
    ex = cpu[0].client.compile_and_load(
        ir.Module.parse(bc), executable_devices=xc.DeviceList(tuple(cpu)),
        compile_options=opts)
open(sys.argv[2], "w").write(ex.hlo_modules()[0].to_string())
"""


def kernels(repl, cmds):
    """The kernels of the last `stats` line of xla-repl running cmds."""
    args = [repl]
    for c in cmds:
        args += ["-e", c]
    p = subprocess.run(args, capture_output=True, text=True, timeout=600)
    k = re.findall(r"^stats:.* kernels=(\d+)", p.stdout, re.M)
    return int(k[-1]) if p.returncode == 0 and k else None


def main():
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    repl = sys.argv[1] if len(sys.argv) > 1 else \
        os.path.join(here, "build", "xla-repl")
    corpus = sys.argv[2] if len(sys.argv) > 2 else \
        os.path.join(here, "..", "shared", "corpus", "hlo")
    try:
        import jax  # noqa: F401
    except ImportError:
        print("parity: skipped, jax not installed (make venv)")
        return 77
    limit = int(os.environ.get("XR_PARITY_MAX_INSTRS", "20000"))
    secs = float(os.environ.get("XR_PARITY_SECONDS", "120"))
    rows = []
    with open(os.path.join(corpus, "INDEX.tsv")) as f:
        head = f.readline().rstrip("\n").split("\t")
        for line in f:
            r = dict(zip(head, line.rstrip("\n").split("\t")))
            if r["kind"] == "dump" and r["has_fusion"] == "0" and \
                    int(r["n_instructions"]) <= limit:
                rows.append(r["file"])
    env = dict(os.environ, JAX_PLATFORMS="cpu", TF_CPP_MIN_LOG_LEVEL="3")
    tot = {"xla": 0, "ours": 0, "n": 0, "fewer": 0, "more": 0, "skip": 0}
    print("%-8s %-8s %-8s %s" % ("before", "xla", "ours", "module"))
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "xla.hlo")
        for rel in rows:
            src = os.path.join(corpus, rel)
            try:
                p = subprocess.run([sys.executable, "-c", CHILD, src, out],
                                   env=env, capture_output=True, text=True,
                                   timeout=secs)
                ok = p.returncode == 0
            except subprocess.TimeoutExpired:
                ok = False
            before = kernels(repl, ["load " + src, "stats"])
            ours = kernels(repl, ["load " + src, "pipeline cpu", "stats"])
            xla = kernels(repl, ["load " + out, "stats"]) if ok else None
            if None in (before, ours, xla):
                tot["skip"] += 1
                why = "XLA:CPU did not compile it" if not ok else \
                    "xla-repl did not load it"
                print("%-8s %-8s %-8s %s (%s)" % ("-", "-", "-", rel, why))
                continue
            tot["n"] += 1
            tot["xla"] += xla
            tot["ours"] += ours
            tot["fewer"] += ours < xla
            tot["more"] += ours > xla
            print("%-8d %-8d %-8d %s" % (before, xla, ours, rel), flush=True)
    print("parity: modules=%d skipped=%d xla_kernels=%d our_kernels=%d "
          "fewer=%d more=%d same=%d" %
          (tot["n"], tot["skip"], tot["xla"], tot["ours"], tot["fewer"],
           tot["more"], tot["n"] - tot["fewer"] - tot["more"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
