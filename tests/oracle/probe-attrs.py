#!/usr/bin/env python3
"""probe-attrs.py - which attributes XLA's HLO parser takes on each opcode,
found by experiment; writes (or checks) core/opattrs.def.

Not a CI test: it needs jaxlib (XLA's own parser, `make venv`), which CI
does not have. Rerun it when jaxlib or core/opcodes.def changes:

  build/venv/bin/python tests/oracle/probe-attrs.py          # check
  build/venv/bin/python tests/oracle/probe-attrs.py --write  # regenerate

Method. For every opcode of core/opcodes.def a small module is written
with one instruction of that opcode (operand count from the table; a few
opcodes need operands of their own). Each is loaded by
jaxlib._hlo.hlo_module_from_text:
  1. with `zzzunknown=1`: XLA refuses it and lists the attributes it
     allows ("Allowed attributes: ...");
  2. with `KEY=1` for every key of core/attrs.def and every key any
     opcode allows: the key is refused when XLA says `unexpected
     attribute "KEY"`, taken otherwise (the value `1` is usually wrong;
     a complaint about the value means the key was taken). A parser
     abort counts as refused: XLA does not load that text;
  3. with a well-formed value for each key every opcode takes (a value
     of 1 is refused before XLA gets to use it): XLA CHECK-fails on
     parameter_replication anywhere but on a parameter, so that key is
     refused elsewhere.
Both must agree. The keys every opcode takes go on the first line; each
opcode's line lists the rest. Every module is parsed in a child process,
so that an abort loses one answer, not the run.
"""
import json
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DEF = os.path.join(ROOT, "core", "opattrs.def")

CHILD = r"""
import sys, json
import jaxlib._hlo as hlo
for line in sys.stdin:
    try:
        hlo.hlo_module_from_text(json.loads(line)); r = None
    except Exception as e:
        r = str(e)
    sys.stdout.write(json.dumps(r) + "\n"); sys.stdout.flush()
"""

CRASH = "<parser aborted>"


def xla_errors(texts):
    """XLA's error for each text (None: loaded), each in a child process
    that is restarted when XLA aborts."""
    out = []
    while len(out) < len(texts):
        p = subprocess.Popen([sys.executable, "-c", CHILD], text=True,
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL)
        while len(out) < len(texts):
            p.stdin.write(json.dumps(texts[len(out)]) + "\n")
            p.stdin.flush()
            line = p.stdout.readline()
            if not line:
                out.append(CRASH)
                break
            out.append(json.loads(line))
        p.stdin.close()
        p.wait()
    return out


MODULE = """HloModule m

c {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT r = f32[] add(x, y)
}

w {
  x = f32[2] parameter(0)
  ROOT r = f32[2] negate(x)
}

ENTRY e {
  p0 = f32[2] parameter(0)
  p1 = f32[2] parameter(1)
  p2 = f32[2] parameter(2)
  p3 = f32[2] parameter(3)
  p4 = f32[2] parameter(4)
  b = pred[] parameter(5)
  k = s32[] parameter(6)
%s
}
"""

ASYNC = "((f32[2]), f32[2], s32[])"
START = "  s = %s async-start(p0), calls=w\n" % ASYNC

# Instructions that the generic "ROOT i = f32[2] OP(p0, ...)" does not
# bring to XLA's attribute parsing. Several lines: variants whose allowed
# sets are joined (conditional's depend on its first operand's type).
SPECIAL = {
    "parameter": ["  ROOT i = f32[2] parameter(7)%s"],
    "constant": ["  ROOT i = f32[2] constant({1, 2})%s"],
    "tuple": ["  ROOT i = (f32[2]) tuple(p0)%s"],
    "conditional": ["  ROOT i = f32[2] conditional(b, p0, p1)%s",
                    "  ROOT i = f32[2] conditional(k, p0, p1)%s"],
    "async-start": ["  ROOT i = %s async-start(p0)%%s" % ASYNC],
    "async-update": [START + "  ROOT i = %s async-update(s)%%s" % ASYNC],
    "async-done": [START + "  ROOT i = f32[2] async-done(s)%s"],
}


def opcodes():
    text = open(os.path.join(ROOT, "core", "opcodes.def")).read()
    return re.findall(r'^OP\((\w+), "([^"]+)", (-?\d+)', text, re.M)


def typed_keys():
    text = open(os.path.join(ROOT, "core", "attrs.def")).read()
    return re.findall(r'^ATTR\(\w+, "([^"]+)"', text, re.M)


def variants(name, arity):
    """Instruction lines to try, each with a %s for the attributes."""
    if name in SPECIAL:
        return [[v] for v in SPECIAL[name]]
    counts = [arity] if arity >= 0 else [1, 2, 3, 0]
    return [["  ROOT i = f32[2] %s(%s)%%s" %
             (name, ", ".join("p%d" % i for i in range(n)))
             for n in counts]]


ALLOWED = re.compile(r'unexpected attribute "zzzunknown"\. '
                     r'Allowed attributes: (.*)')


def allowed_sets(ops):
    """Step 1: {opcode: [instruction line, allowed keys]} per variant."""
    jobs = []
    for enum, name, arity in ops:
        for vi, tries in enumerate(variants(name, int(arity))):
            for line in tries:
                jobs.append((name, vi, line))
    errs = xla_errors([MODULE % (l % ", zzzunknown=1") for _, _, l in jobs])
    found = {}
    for (name, vi, line), e in zip(jobs, errs):
        m = e and e != CRASH and ALLOWED.search(e)
        if m and (name, vi) not in found:
            found[(name, vi)] = (line, set(m.group(1).split(", ")))
    res = {}
    for enum, name, arity in ops:
        vs = [v for (n, _), v in sorted(found.items()) if n == name]
        if not vs:
            sys.exit("probe-attrs: no instruction of '%s' reached XLA's "
                     "attribute parsing; add it to SPECIAL" % name)
        res[name] = vs
    return res


# Step 3: well-formed values of the keys every opcode takes.
WELL_FORMED = {
    "backend_config": '""',
    "control-predecessors": "{}",
    "frontend_attributes": '{a="b"}',
    "metadata": '{op_name="x"}',
    "origin": '{{"a"}}',
    "parameter_replication": "{true}",
    "sharding": "{replicated}",
    "statistics": "{visualizing_index=1,stat0=0.5}",
}


def taken_keys(found, keys):
    """Steps 2 and 3: {opcode: keys taken}, and the keys that make XLA
    abort (step 3) with the opcodes that take them without aborting."""
    lines = [(name, line) for name, vs in found.items() for line, _ in vs]
    jobs = [(name, line, k, "1") for name, line in lines for k in sorted(keys)]
    jobs += [(name, line, k, v) for name, line in lines
             for k, v in sorted(WELL_FORMED.items())]
    jobs += [(name, line, None, None) for name, line in lines]
    errs = xla_errors([MODULE % (l % (", %s=%s" % (k, v) if k else ""))
                       for _, l, k, v in jobs])
    taken = {name: set() for name in found}
    bare_loads, aborts = set(), set()
    for (name, line, k, v), e in zip(jobs, errs):
        if k is None:
            if e is None:
                bare_loads.add(name)
        elif v == "1" and not (e and 'unexpected attribute "%s"' % k in e):
            taken[name].add(k)
    # An abort is the key's doing only where the bare instruction loads;
    # such a key goes only where it loads too.
    loads = {}
    for (name, line, k, v), e in zip(jobs, errs):
        if k and v != "1" and name in bare_loads:
            if e == CRASH:
                aborts.add(k)
            elif e is None:
                loads.setdefault(k, set()).add(name)
    only = {}
    for k in aborts:
        # Where the bare instruction does not load (a required attribute
        # missing, ...) the abort cannot show: those go with the majority,
        # which is "aborts" for parameter_replication.
        only[k] = loads.get(k, set())
        for name in taken:
            if name not in only[k]:
                taken[name].discard(k)
    return taken, only


def table(ops):
    found = allowed_sets(ops)
    listed = {n: set().union(*(s for _, s in vs)) for n, vs in found.items()}
    keys = set(typed_keys()).union(*listed.values())
    taken, only = taken_keys(found, keys)
    bad = False
    for name in listed:
        # Listed but aborting (parameter_replication off a parameter) is
        # refused; anything else must agree.
        lst = {k for k in listed[name] if k not in only or name in only[k]}
        if lst != taken[name]:
            bad = True
            print("probe-attrs: %s: listed %s, taken %s" %
                  (name, sorted(lst - taken[name]), sorted(taken[name] - lst)),
                  file=sys.stderr)
    if bad:
        sys.exit(1)
    common = set.intersection(*taken.values())
    unknown = sorted(set(typed_keys()) - set().union(*taken.values()))
    if unknown:
        sys.exit("probe-attrs: attrs.def keys XLA takes nowhere: %s" % unknown)
    return common, taken, only


HEADER = """\
/* opattrs.def - the attributes each opcode takes, as XLA's HLO parser
 * takes them (jaxlib %s), one line per opcode of opcodes.def.
 *
 * OPATTRS(ENUM, "key key ...") names the keys of that opcode beyond those
 * every instruction takes, which are the HLO_INVALID line's. The parser
 * refuses a known key (one of these or of attrs.def) on an opcode that
 * does not take it, as XLA does, and warns about a key that is known
 * nowhere (kept verbatim: newer XLA dumps may carry new ones).
 *
 * Generated by tests/oracle/probe-attrs.py from experiments with XLA's
 * parser (every opcode x every key); rerun it rather than editing by hand.
 * Where XLA decides by more than the opcode, the line is the union:
 *   conditional: true_/false_computation with a pred operand 0,
 *     branch_computations with an s32 one;
 *   "xyz-start" (async sugar): async-start's keys but calls, and xyz's;
 *     "xyz-update", "xyz-done": async-update's, async-done's but calls
 *     (the parser applies this rule).
 * Keys XLA's parser reads on every instruction but aborts on (a CHECK
 * failure, so XLA loads no such text) are listed only where it does not:
 * %s.
 * Also listed, as newer XLA writes them (NEWER in the script): %s.
 */
"""


# Keys newer XLA takes where this jaxlib refuses them, with the evidence:
# a module of ../shared/corpus/hlo written by newer XLA. Added to the table
# so that such dumps still load.
NEWER = {
    # xla/backends/cpu/benchmarks/hlo/topk_logits_k10_1x50000_bf16.hlo at
    # openxla/xla 756478bb (2026-08-07): topk(x), k=10, largest=true,
    # is_stable=true
    "topk": {"is_stable"},
}


def render(ops, common, taken, only):
    import jaxlib
    said = "; ".join("%s (kept for %s)" % (k, ", ".join(sorted(v)) or "none")
                     for k, v in sorted(only.items()))
    newer = "; ".join("%s on %s" % (", ".join(sorted(v)), k)
                      for k, v in sorted(NEWER.items()))
    out = [HEADER % (jaxlib.__version__, said or "nothing", newer or "none")]
    out.append('OPATTRS(HLO_INVALID, "%s")\n' % " ".join(sorted(common)))
    for enum, name, _ in ops:
        keys = (taken[name] - common) | NEWER.get(name, set())
        out.append('OPATTRS(%s, "%s")\n' % (enum, " ".join(sorted(keys))))
    return "".join(out)


def main():
    ops = opcodes()
    text = render(ops, *table(ops))
    if "--write" in sys.argv[1:]:
        with open(DEF, "w") as f:
            f.write(text)
        print("probe-attrs: wrote %s" % DEF)
        return 0
    old = open(DEF).read() if os.path.exists(DEF) else ""
    if old != text:
        sys.stdout.write(text)
        print("probe-attrs: %s differs from XLA's answers (above); "
              "--write to update" % DEF, file=sys.stderr)
        return 1
    print("probe-attrs: %s agrees with XLA's parser" % DEF)
    return 0


if __name__ == "__main__":
    sys.exit(main())
