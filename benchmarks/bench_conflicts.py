"""Conflict diagnostics at scale: a 100k-binding module with 4 planted, independent conflicts.

The module (built with `ir.builder`) has a helper function and a `main` made
of four chains, each a separate equality class (the chains meet only
through ``R.to_vdevice``), and each holding one planted conflict:

1. two annotations five bindings apart ("llvm:0" and "cuda:0");
2. two annotations 20,000 bindings apart (a long chain: proven minimal by
   the structural certificate; short ones also by Z3's deletion pass);
3. a matmul whose operands are annotated on two GPUs ("cuda:0", "cuda:1");
4. a call whose result is annotated "llvm:0" while the callee's return
   annotation says "cuda:0" (a conflict through a call boundary).

Soft ``hint_on_device`` calls are sprinkled over the chains; they never take
part in a conflict.  Target: all 4 reported, each minimal, in under 10 s in
total (extraction + finding + proving + fixes).

    python benchmarks/bench_conflicts.py [--bindings 100000]
"""

from __future__ import annotations

import argparse
import time

from vdplace.ir import DeviceSpec, ModuleBuilder, VDevice, tensor
from vdplace.placement.diagnose import find_conflicts
from vdplace.placement.diagnose.verify import structurally_minimal, z3_minimal
from vdplace.placement.extract.extract import extract
from vdplace.placement.model.rules import Rule, RuleKind

VDEVICES = [VDevice("llvm"), VDevice("cuda", 0), VDevice("cuda", 1)]
CPU, GPU0, GPU1 = VDEVICES
SHAPE = (4, 4)


def planted_module(bindings: int):
    """The module described in the docstring, with about `bindings` bindings in total."""
    mb = ModuleBuilder(VDEVICES)
    helper = mb.function("helper", [("h", tensor(SHAPE))], ret=tensor(SHAPE, vdevice=GPU0))
    r = helper.emit("exp", helper.params[0], name="hr")
    helper.finish(r)

    per_chain = max(40, bindings // 4)
    f = mb.function("main", [(f"x{i}", tensor(SHAPE)) for i in range(4)])
    xs = f.params
    count = 0

    def chain(start, n: int, chain_id: int, plant) -> object:
        """`n` bindings, each tied to the one before (and every other one to the one before that)."""
        nonlocal count
        h = prev = start
        for i in range(n):
            name = f"c{chain_id}_{i}"
            annotation = plant.get(i)
            if i % 2:
                h, prev = f.emit("add", h, prev, name=name, annotation=annotation), h
            else:
                h, prev = f.emit("tanh", h, name=name, annotation=annotation), h
            if i % 997 == 13:  # a soft hint on a side branch: its result is pinned, its input only preferred
                f.emit("hint_on_device", h, name=f"hint{chain_id}_{i}", device=DeviceSpec("cuda", 1))
            count += 1
        return h

    ends = []
    # 1. two annotations five bindings apart
    ends.append(chain(xs[0], per_chain, 0, {100: tensor(SHAPE, vdevice=CPU), 105: tensor(SHAPE, vdevice=GPU0)}))
    # 2. two annotations 20,000 bindings apart (or as far as the chain allows)
    far = min(20_000, per_chain - 200)
    ends.append(chain(xs[1], per_chain, 1, {50: tensor(SHAPE, vdevice=GPU0), 50 + far: tensor(SHAPE, vdevice=CPU)}))
    # 3. a matmul on two GPUs
    p = f.emit("tanh", xs[2], name="p", annotation=tensor(SHAPE, vdevice=GPU0))
    q = f.emit("tanh", p, name="q_src")
    q = f.emit("to_vdevice", q, name="q", dst_vdevice=GPU1)
    q2 = f.emit("exp", q, name="q2", annotation=tensor(SHAPE, vdevice=GPU1))
    m = f.emit("matmul", p, q2, name="m")
    ends.append(chain(m, per_chain - 5, 2, {}))
    count += 5
    # 4. a call result annotated llvm while the callee returns on cuda:0
    y = f.emit(f.call_function("helper", xs[3]), name="y", annotation=tensor(SHAPE, vdevice=CPU))
    ends.append(chain(y, per_chain - 1, 3, {}))
    count += 1
    # join the chains by explicit copies so that they stay separate classes
    out = f.emit("to_vdevice", ends[0], name="j0", dst_vdevice=CPU)
    for i, end in enumerate(ends[1:]):
        moved = f.emit("to_vdevice", end, name=f"m{i + 1}", dst_vdevice=CPU)
        out = f.emit("add", out, moved, name=f"j{i + 1}")
    f.finish(out)
    return mb.get(), count


def domain_heavy(n: int):
    """A constraint set (no module): one class of `n` sites in a chain, every site with a domain.

    Blocks of {llvm} {llvm, cuda:0} {cuda:0} domains, plus pins at both ends: the
    relaxation step and the neighbour search each meet `n` constraints in one class.
    """
    from vdplace.placement.model.constraints import ConstraintSet, Domain, Equal, Pin

    cs = ConstraintSet(VDEVICES)
    blocks = [frozenset({0}), frozenset({0, 1}), frozenset({1})]
    for i in range(n):
        cs.add_site("main", f"v{i}", (), None, 64, "binding")
        cs.domains.append(Domain(i, blocks[i % 3], Rule.of(RuleKind.SUPPORTED, op="matmul"), None))
        if i:
            cs.equals.append(Equal(i, i - 1, Rule.of(RuleKind.ALIAS), None))
    cs.pins += [Pin(0, 0, Rule.of(RuleKind.ANNOTATION), None), Pin(n - 1, 1, Rule.of(RuleKind.ANNOTATION), None)]
    return cs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bindings", type=int, default=100_000)
    args = parser.parse_args()

    t0 = time.perf_counter()
    mod, count = planted_module(args.bindings)
    t1 = time.perf_counter()
    cs = extract(mod).constraints
    t2 = time.perf_counter()
    conflicts, omitted = find_conflicts(cs, limit=10)
    t3 = time.perf_counter()
    # an independent re-check of every reported conflict, outside the timed part
    minimal = 0
    for c in conflicts:
        unary = [r.constraint for r in c.pins]
        edges = [s.constraint for s in c.path]
        ok = structurally_minimal(unary, edges, len(cs.vdevices))
        if len(c.constraints) <= 2000:
            ok = ok and z3_minimal(c.constraints, len(cs.vdevices))
        minimal += ok

    print(f"module: {count:,} bindings in main, {len(cs.sites):,} sites, {cs.num_constraints:,} constraints")
    print(f"build (ir.builder)        {t1 - t0:7.2f} s   (not part of the target)")
    print(f"extract constraints       {t2 - t1:7.2f} s")
    print(f"find + prove + fixes      {t3 - t2:7.2f} s")
    print(f"total (extract .. fixes)  {t3 - t1:7.2f} s   target < 10 s")
    print(f"conflicts reported: {len(conflicts)} (omitted {omitted}); minimal (re-checked): {minimal}")
    for c in conflicts:
        print(f"  {c.number}. {c.title}  [{len(c.path)} steps, proven by {c.verified}, {len(c.fixes)} fixes]")
    ok = len(conflicts) == 4 and omitted == 0 and minimal == 4 and t3 - t1 < 10.0
    print("PASS" if ok else "FAIL")

    cs = domain_heavy(args.bindings)
    t4 = time.perf_counter()
    conflicts, omitted = find_conflicts(cs, limit=10)
    t5 = time.perf_counter()
    print(
        f"stress: one class of {len(cs.sites):,} sites, each with a domain: "
        f"{len(conflicts) + omitted:,} conflicts found, 10 explained, in {t5 - t4:.2f} s"
    )


if __name__ == "__main__":
    main()
