"""The minimum cut of cost-aware placement with two vdevices, alone: its graph, its value and its time.

    python benchmarks/bench_flow.py                          # chain / diamond / transformer at 100k bindings
    python benchmarks/bench_flow.py --sizes 10000 --families chain

For each module (``bench_cost.py``'s families and cost model, llvm + cuda, no
memory limit) it builds the coarsened problem once, then times
`placement.cost.mincut.solve_mincut` on it, best of ``--repeat``.  Columns:
``nodes`` / ``edges`` of the flow graph (edges as added, before the residual
twins), the cut's ``value`` (seconds of the plan), ``flow s`` the wall time
of `FlowGraph.min_cut` (the maximum flow and the cut), ``flow cpu`` its CPU
time (steadier than the wall's on a shared machine), and ``total s`` the
wall time of `solve_mincut` (building the graph, one ``add`` per edge,
included).  Run it
under two checkouts' interpreters to compare their max-flow codes on the
same graphs.  ``--price K`` prices each byte held on the cuda vdevice as
the Lagrangian bound does (`placement.cost.lagrange`), at K times the
module's compute seconds per byte held: graphs with other cuts.
"""

from __future__ import annotations

import argparse
import time

from bench_cost import FAMILIES, GPU0, cost_model

from vdplace.placement.cost import flow, mincut
from vdplace.placement.cost.problem import coarsen
from vdplace.placement.extract.extract import extract


def measure(family: str, n: int, repeat: int, price: float) -> dict[str, object]:
    """One module's row (see the module docstring)."""
    p = coarsen(extract(FAMILIES[family](n)), cost_model()).problem
    prices = None
    if price:
        seconds = sum(t for row in p.compute for t in row if t is not None)
        prices = [0.0, 0.0]
        prices[p.vdevices.index(GPU0)] = price * seconds / max(1, sum(p.memory))
    size = {"nodes": 0, "edges": 0}
    flow_s: list[float] = []
    flow_cpu: list[float] = []
    base = flow.FlowGraph

    class Counted(base):  # type: ignore[misc,valid-type]
        def __init__(self, nodes: int) -> None:
            super().__init__(nodes)
            size["nodes"] = nodes

        def add(self, u: int, v: int, capacity: float) -> None:
            size["edges"] += capacity > 0 and u != v
            super().add(u, v, capacity)

        def min_cut(self, s: int, t: int) -> tuple[float, list[bool]]:
            start, cpu = time.perf_counter(), time.process_time()
            found = super().min_cut(s, t)
            flow_s.append(time.perf_counter() - start)
            flow_cpu.append(time.process_time() - cpu)
            return found

    best, value = float("inf"), 0.0
    mincut.FlowGraph = Counted
    try:
        for _ in range(repeat):
            size["edges"] = 0
            start = time.perf_counter()
            _, value = mincut.solve_mincut(p, prices)
            best = min(best, time.perf_counter() - start)
    finally:
        mincut.FlowGraph = base
    return {
        "module": f"{family} {n}",
        **size,
        "value": value,
        "flow s": min(flow_s),
        "flow cpu": min(flow_cpu),
        "total s": best,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="*", default=[100000])
    parser.add_argument("--families", nargs="*", default=list(FAMILIES), choices=list(FAMILIES))
    parser.add_argument("--repeat", type=int, default=3, help="runs per module, the best reported (default: 3)")
    parser.add_argument("--price", type=float, default=0.0, help="price the cuda bytes (see above; default: 0)")
    args = parser.parse_args(argv)
    print(f"{'module':>18} {'nodes':>8} {'edges':>8} {'value':>22} {'flow s':>8} {'flow cpu':>8} {'total s':>8}")
    for family in args.families:
        for n in args.sizes:
            row = measure(family, n, args.repeat, args.price)
            print(
                f"{row['module']:>18} {row['nodes']:>8} {row['edges']:>8} {row['value']:>22.17g} "
                f"{row['flow s']:>8.3f} {row['flow cpu']:>8.3f} {row['total s']:>8.3f}"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
