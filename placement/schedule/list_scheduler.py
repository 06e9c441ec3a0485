"""List scheduling by upward ranks (HEFT): an order of the op calls for a placement, or a placement too.

The *upward rank* of an op is the length of the longest path from its start
to the end of the program: its own time plus, over the ops that read what it
makes, the most of (copy time when they run elsewhere + their rank), and
over the ops that wait for it (`TaskGraph.op_after`), their rank.  Ops run
in decreasing rank (program order on ties, so every op comes after what it
reads: ranks never grow along an edge), each as early as its device and
operands allow (`simulate.Simulator`); copies run when a reader first needs
them, or, where a copy holds its sender (`CostModel.send`), right after the
op that makes the value, as a Ray actor sends.

`list_schedule` does that for a fixed placement.  `heft` decides the
placement too, as HEFT does: ranks from each op's mean time over the
vdevices its unit may go on (and mean copy times), then each op, in that
order, on the vdevice where it would finish first (its unit follows the
first op decided; a weight, constant or input that nothing has placed yet
goes where its first reader runs, when it may).
"""

from __future__ import annotations

from vdplace.placement.schedule.graph import INPUT, PASSED, TaskGraph
from vdplace.placement.schedule.simulate import Simulator, Timing, required_copies


def upward_ranks(g: TaskGraph, placement: list[int] | None = None) -> list[float]:
    """Each op's upward rank under `placement`, or with mean times and copies when None (module docstring)."""
    n = g.num_ops
    rank = [0.0] * n
    op_unit, op_time = g.op_unit, g.op_time
    if placement is not None:
        times = [op_time[i][placement[op_unit[i]]] or 0.0 for i in range(n)]
    else:
        times = []
        for i in range(n):
            known = [t for t in op_time[i] if t is not None]
            times.append(sum(known) / len(known) if known else 0.0)
    mean_copy: dict[int, float] = {}
    waiters: list[list[int]] = [[] for _ in range(n)]  # the ops that wait for each (`TaskGraph.op_after`)
    for i in range(n):
        for j in g.op_after[i]:
            waiters[j].append(i)
    for i in range(n - 1, -1, -1):
        best = max((rank[j] for j in waiters[i]), default=0.0)
        d = None if placement is None else placement[op_unit[i]]
        for v in g.op_makes[i]:
            table = g.val_copy[v]
            for j in g.val_readers[v]:
                if table is None or op_unit[j] == op_unit[i]:
                    c = 0.0
                elif placement is None:
                    c = mean_copy.get(v)  # type: ignore[assignment]
                    if c is None:
                        c = mean_copy[v] = _mean_copy(g, table)
                else:
                    dj = placement[op_unit[j]]
                    c = 0.0 if dj == d else table[d][dj]  # type: ignore[index]
                r = c + rank[j]
                if r > best:
                    best = r
            for j in g.val_home_readers[v]:
                if rank[j] > best:
                    best = rank[j]
        rank[i] = times[i] + best
    return rank


def _mean_copy(g: TaskGraph, table: list[list[float]]) -> float:
    k = g.num_devices
    pairs = [table[h][d] for h in range(k) for d in range(k) if h != d]
    return sum(pairs) / len(pairs) if pairs else 0.0


def rank_order(ranks: list[float]) -> list[int]:
    """Ops by decreasing rank, program order on ties."""
    return sorted(range(len(ranks)), key=lambda i: (-ranks[i], i))


def list_schedule(g: TaskGraph, placement: list[int], copies: str = "eager") -> Timing:
    """The list schedule of `placement`: ops by upward rank, copies when first needed; where copies hold their
    sender (`TaskGraph.has_send`), each value's copies right after its op, before the sender's next op.

    `copies`: ``"eager"``, each copy as soon as its value and link allow; ``"late"``, a copy an op needs of a
    value already at its home starts no earlier than the op's stream frees less the copy's time (it overlaps
    the op before); ``"on demand"``, no earlier than the stream frees (as accelerate's hooks copy an offloaded
    weight when its module is called), the ops in program order (as those hooks run them).  The later two hold
    a copied value only about while it is read: the timings for plans whose eager copies pass a memory limit
    (`search.evaluate`)."""
    sim = Simulator(g, placement)
    dests = _destinations(g, placement) if g.has_send else {}
    order = range(g.num_ops) if copies == "on demand" else rank_order(upward_ranks(g, placement))
    for i in order:
        if copies != "eager":
            _copy_late(sim, i, copies == "late")
        sim.op(i, ensure=True)
        for v in g.op_makes[i]:
            for d in dests.get(v, ()):
                sim.ensure(v, d)
    return sim.finish()


def _destinations(g: TaskGraph, placement: list[int]) -> dict[int, list[int]]:
    """The vdevices each value is copied to under `placement`, in vdevice order."""
    out: dict[int, list[int]] = {}
    for v, d in required_copies(g, placement):
        if d != placement[g.val_unit[v]]:
            out.setdefault(v, []).append(d)
    return out


def heft(g: TaskGraph) -> list[int]:
    """A placement by HEFT (module docstring); every unit gets a vdevice it may go on."""
    placement: list[int | None] = [a[0] if len(a) == 1 else None for a in g.allowed]
    sim = Simulator(g, placement)  # type: ignore[arg-type]
    for i in rank_order(upward_ranks(g)):
        u = g.op_unit[i]
        if placement[u] is None:
            best: tuple[float, int] | None = None
            for d in g.allowed[u]:
                if g.op_time[i][d] is None:
                    continue
                finish = _finish(sim, i, d)
                if best is None or finish < best[0]:
                    best = (finish, d)
            placement[u] = g.allowed[u][0] if best is None else best[1]
        here = placement[u]
        assert here is not None  # decided above
        for v in g.op_local[i] + g.op_home[i]:
            home = g.val_unit[v]
            if placement[home] is None:
                placement[home] = _follow(g, home, here)
            while g.val_source[v] >= 0:  # a callee's parameter: its argument's unit follows it (`calls`)
                v, at = g.val_source[v], placement[home]
                home = g.val_unit[v]
                if placement[home] is None:
                    placement[home] = _follow(g, home, at)  # type: ignore[arg-type]
        sim.op(i, ensure=True)
    for u, where in enumerate(placement):
        if where is None:
            placement[u] = g.host if g.host in g.allowed[u] else g.allowed[u][0]
    return placement  # type: ignore[return-value]


def _follow(g: TaskGraph, unit: int, d: int) -> int:
    """Where an undecided operand's unit goes when its first reader runs on d."""
    return d if d in g.allowed[unit] else g.allowed[unit][0]


def _finish(sim: Simulator, i: int, d: int) -> float:
    """When op i would end on d, its copies run then (nothing is committed)."""
    g = sim.g
    placement = sim.placement
    start = sim.dev_free[g.physical[d]]
    for v in g.op_local[i]:
        t = _arrival(sim, v, d)
        if t > start:
            start = t
    for v in g.op_home[i]:
        home = placement[g.val_unit[v]]
        t = _arrival(sim, v, _follow(g, g.val_unit[v], d) if home is None else home)
        if t > start:
            start = t
    return start + g.op_time[i][d]  # type: ignore[operator]


def _arrival(sim: Simulator, v: int, d: int) -> float:
    """When value v would be on d: its home's time, plus a copy over the link's next free slot."""
    g = sim.g
    unit = g.val_unit[v]
    home = sim.placement[unit]
    decided = home is not None
    if home is None:
        home = _follow(g, unit, d)
    at_home = sim.avail(v, home) if decided else None
    if at_home is None:
        at_home = 0.0
        if g.val_kind[v] == INPUT and g.host is not None and home != g.host:
            at_home = _link_slot(sim, g.host, home, 0.0) + g.val_upload[v][home]  # type: ignore[index]
    if home == d:
        return at_home
    found = sim.timing.copies.get((v, d))
    if found is not None:
        return found[1]
    return _link_slot(sim, home, d, at_home) + g.val_copy[v][home][d]  # type: ignore[index]


def _link_slot(sim: Simulator, src: int, dst: int, ready: float) -> float:
    link = (sim.g.physical[src], sim.g.physical[dst])
    if link[0] == link[1]:
        return ready
    free = sim.link_free.get(link, 0.0)
    return ready if ready > free else free


def _copy_late(sim: Simulator, i: int, overlap: bool) -> None:
    """The copies op i reads of values at their home, each started no earlier than op i's stream frees, less
    the copy's time when `overlap` (`list_schedule`'s `copies`); other arrivals are left to `Simulator.ensure`."""
    g = sim.g
    d = sim.placement[g.op_unit[i]]
    for v in g.op_local[i]:
        home = sim.placement[g.val_unit[v]]
        if home == d or sim.avail(v, d) is not None or sim.timing.source(v, d) != home:
            continue
        if sim.avail(v, home) is None or g.val_kind[v] == PASSED:
            continue
        _, seconds = sim.copy_seconds(v, d)
        free = sim.dev_free[g.physical[d]]
        sim.copy(v, d, release=max(0.0, free - seconds) if overlap else free)
