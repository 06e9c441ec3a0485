"""The exact float simulator: the times of a sequence of op calls and copies under one placement.

The model (docs/schedule.md): each physical device runs one op at a time;
each link, a direction between two physical devices, carries one copy at a
time; a copy between vdevices of one physical device takes no link;
an op starts once every operand is on its vdevice (`TaskGraph`: local reads
there, other reads where they live) and the ops it waits for have ended
(`TaskGraph.op_after`); a copy of a value to a vdevice starts
once the value is at its source: its home (an op's end; a weight or
constant at 0; a runtime input at 0 on the host, then at its upload's end at
its home; a callee's parameter when its argument is on the parameter's
vdevice, `calls`), or for a *relay* the first copy of the value on the
destination's physical device (`relay_source`: what the placed module does).

Tasks are run in the order they are given, each as early as that allows
after the tasks before it on its device or link (no task overtakes an
earlier one on its resource) and not before its `release` time, if given.  A copy's *sender's share*
(`send_seconds`, 0 unless the model has one) holds its source's stream from
the copy's start: the copy starts once that stream and the link are free.
`ensure` runs the copies a read needs, when they are first needed, so that
a list scheduler gives only the order of the ops.

A copy is keyed ``(value, destination vdevice)``; the key ``(value, home)``
is the upload of a runtime input from the host.
"""

from __future__ import annotations

from typing import cast

from vdplace.placement.errors import PlacementInternalError
from vdplace.placement.schedule.graph import INPUT, OP, PASSED, TaskGraph

NAN = float("nan")


class Timing:
    """Start and end of every op (`op_start`, `op_end`, NaN for one not run) and copy (`copies`), one placement.

    `order` lists the tasks in the order they were run: ``("op", i)`` or ``("copy", (value, vdevice))``.
    `stays`: `liveness.stays` of this timing, kept by it.
    """

    __slots__ = ("g", "placement", "op_start", "op_end", "copies", "order", "stays")

    def __init__(self, g: TaskGraph, placement: list[int]) -> None:
        self.g = g
        self.placement = placement
        self.op_start = [NAN] * g.num_ops
        self.op_end = [NAN] * g.num_ops
        self.copies: dict[tuple[int, int], tuple[float, float]] = {}
        self.order: list[tuple[str, object]] = []
        self.stays: tuple[tuple[object, int, int], list[tuple[int, int, float, float]]] | None = None

    @property
    def makespan(self) -> float:
        ends = [e for e in self.op_end if e == e]
        ends.extend(end for _, end in self.copies.values())
        return max(ends, default=0.0)

    def source(self, v: int, d: int) -> int:
        """Where the copy of value v to vdevice d comes from: the host for an upload, a relay's source
        (`relays`), else the home."""
        home = self.placement[self.g.val_unit[v]]
        if d == home:
            return self.g.host  # type: ignore[return-value]
        return relay_source(self.g, self.placement, v, d)


class Simulator:
    """Runs tasks one by one (module docstring); `timing` holds the result."""

    def __init__(self, g: TaskGraph, placement: list[int]) -> None:
        self.g = g
        self.timing = Timing(g, placement)
        self.placement = placement
        self.dev_free = [0.0] * g.num_devices
        self.link_free: dict[tuple[int, int], float] = {}

    def needs_upload(self, v: int, home: int) -> bool:
        g = self.g
        return g.val_kind[v] == INPUT and g.host is not None and home != g.host

    def avail(self, v: int, d: int) -> float | None:
        """When value v is on vdevice d, or None when nothing has put it there yet."""
        g, t = self.g, self.timing
        home = self.placement[g.val_unit[v]]
        if d == home:
            if g.val_kind[v] == OP:
                end = t.op_end[g.val_producer[v]]
                return None if end != end else end
            if g.val_kind[v] == PASSED:
                return self.avail(g.val_source[v], d)
            if not self.needs_upload(v, home):
                return 0.0
        found = t.copies.get((v, d))
        return None if found is None else found[1]

    def ensure(self, v: int, d: int) -> float:
        """When value v is on d, running its upload and copy there (and its relay's source's) first if they
        have not run."""
        found = self.avail(v, d)
        if found is not None:
            return found
        home = self.placement[self.g.val_unit[v]]
        if d != home:
            self.ensure(v, self.timing.source(v, d))
        elif self.g.val_kind[v] == PASSED:
            return self.ensure(self.g.val_source[v], d)
        return self.copy(v, d)

    def copy_seconds(self, v: int, d: int) -> tuple[int, float]:
        """The source and seconds of the copy of value v to d (an upload when d is its home)."""
        g = self.g
        home = self.placement[g.val_unit[v]]
        if d == home:
            return g.host, g.val_upload[v][d]  # type: ignore[index,return-value]
        table = g.val_copy[v]
        if table is None:
            raise PlacementInternalError(f"value {g.val_label[v]} has no reader off its home but is copied")
        src = self.timing.source(v, d)
        return src, table[src][d]

    def copy(self, v: int, d: int, release: float = 0.0) -> float:
        """Run the copy of value v to d (the upload, for d its home); its end.  Its sender's share
        (`send_seconds`) waits for the source's stream too, and holds it from the copy's start."""
        src, seconds = self.copy_seconds(v, d)
        if d != self.placement[self.g.val_unit[v]]:
            ready = self.avail(v, src)
            if ready is None:
                raise PlacementInternalError(f"{self.g.val_label[v]} is copied before it is on {self.g.names[src]}")
        else:
            ready = 0.0
        phys = self.g.physical
        link = (phys[src], phys[d])
        start = ready if ready > release else release
        if link[0] != link[1]:
            free = self.link_free.get(link, 0.0)
            start = start if start > free else free
            upload = d == self.placement[self.g.val_unit[v]]
            send = send_seconds(self.g, v, src, d, upload) if self.g.has_send else 0.0
            if send:
                free = self.dev_free[link[0]]
                start = start if start > free else free
                self.dev_free[link[0]] = start + send
            self.link_free[link] = start + seconds
        self.timing.copies[v, d] = (start, start + seconds)
        self.timing.order.append(("copy", (v, d)))
        return start + seconds

    def op(self, i: int, release: float = 0.0, ensure: bool = False) -> float:
        """Run op i on its unit's vdevice (its operands' copies first, when `ensure`); its end."""
        g = self.g
        d = self.placement[g.op_unit[i]]
        seconds = g.op_time[i][d]
        if seconds is None:
            raise PlacementInternalError(f"{g.function}:{g.op_name[i]} is placed on {g.names[d]}, where it cannot run")
        stream = g.physical[d]
        start = self.dev_free[stream]
        start = start if start > release else release
        for v in g.op_local[i]:
            t = self.ensure(v, d) if ensure else self.avail(v, d)
            if t is None:
                raise PlacementInternalError(f"{g.function}:{g.op_name[i]} runs before {g.val_label[v]} is there")
            if t > start:
                start = t
        placement, unit = self.placement, g.val_unit
        for v in g.op_home[i]:
            home = placement[unit[v]]
            t = self.ensure(v, home) if ensure else self.avail(v, home)
            if t is None:
                raise PlacementInternalError(f"{g.function}:{g.op_name[i]} runs before {g.val_label[v]} is made")
            if t > start:
                start = t
        for j in g.op_after[i]:  # made before this op in the program's order (`TaskGraph.op_after`)
            t = self.timing.op_end[j]
            if t != t:
                raise PlacementInternalError(f"{g.function}:{g.op_name[i]} runs before {g.op_name[j]}")
            if t > start:
                start = t
        end = start + seconds
        self.dev_free[stream] = end
        self.timing.op_start[i] = start
        self.timing.op_end[i] = end
        self.timing.order.append(("op", i))
        return end

    def finish(self) -> Timing:
        """Run what no op needed (uploads of inputs nothing reads, as through a call to a parameter nothing
        reads: `required_copies` has them; copies to a hint's vdevice nothing reads, outputs' copies); the
        timing."""
        g, placement = self.g, self.placement
        for v in range(g.num_values):
            home = placement[g.val_unit[v]]
            if self.needs_upload(v, home):
                self.ensure(v, home)
        for v, users in enumerate(g.val_users):
            for u in users:
                d = placement[u]
                if d != placement[g.val_unit[v]]:
                    self.ensure(v, d)
        for v, unit in g.outputs:
            self.ensure(v, placement[unit])
        return self.timing


def send_seconds(g: TaskGraph, v: int, src: int, d: int, upload: bool = False) -> float:
    """The sender's share of the copy of value v from vdevice src to d (`CostModel.send`): seconds from the
    copy's start that it holds src's stream; with `upload`, of the upload of input v from the host to d."""
    if upload:
        sends = g.val_upload_send[v]
        return 0.0 if sends is None else sends[d]
    table = g.val_send[v]
    return 0.0 if table is None else table[src][d]


def run_order(g: TaskGraph, placement: list[int], order: list[tuple[str, object]], release: dict | None) -> Timing:
    """Run exactly the tasks of `order` in that order, each not before ``release[task]`` (seconds) if given.

    The copies a placement needs must all be in `order`; a read that finds its value missing, or a
    copy left out, is a `PlacementInternalError`.
    """
    sim = Simulator(g, placement)
    rel = release or {}
    for task in order:
        kind, key = task
        if kind == "op":
            sim.op(cast(int, key), rel.get(task, 0.0))
        else:
            v, d = cast("tuple[int, int]", key)
            sim.copy(v, d, rel.get(task, 0.0))
    before = len(sim.timing.copies)
    timing = sim.finish()
    if len(timing.copies) != before:
        raise PlacementInternalError("the order left out copies that the placement needs")
    return timing


def relay_source(g: TaskGraph, placement: list[int], v: int, d: int) -> int:
    """Where the copy of value v to vdevice d (not its home) comes from under `placement`: the home, or a relay's
    source.

    The placed module's rule (`placement.rewrite.realize`, the copy plans of `placement.extract.copies`):
    a value's copies are written in vdevice order, and one to a vdevice that shares its physical device
    with an earlier destination of the value is made from the first such (the *relay*: no link, between
    two memory scopes) rather than from the home.  Units not placed yet (None, during HEFT) read nothing.
    """
    home = placement[g.val_unit[v]]
    physical = g.physical
    if physical[d] == d:
        return home  # the first vdevice of its physical device: no earlier scope to relay from
    src = home
    for u in _readers(g, v):
        e = placement[u]
        if e is not None and e != home and e < d and physical[e] == physical[d] and (src == home or e < src):
            src = e
    return src


def relays(g: TaskGraph, placement: list[int]) -> dict[tuple[int, int], int]:
    """``(value, vdevice) -> source`` of every copy of `placement` that is a relay (`relay_source`)."""
    out: dict[tuple[int, int], int] = {}
    for v, d in required_copies(g, placement):
        home = placement[g.val_unit[v]]
        if d != home:
            src = relay_source(g, placement, v, d)
            if src != home:
                out[v, d] = src
    return out


def ready_order(g: TaskGraph, placement: list[int], order: list[tuple[str, object]]) -> list[tuple[str, object]]:
    """`order` with every task moved after the tasks it needs (a copy after its source has the value, an op after
    its operands are there), otherwise in the order given: the first task of `order` that is ready goes next."""
    unit = g.val_unit

    def needs(task: tuple[str, object]) -> list[tuple[str, object]]:
        kind, key = task
        if kind == "op":
            i = cast(int, key)
            d = placement[g.op_unit[i]]
            wanted = [(v, d) for v in g.op_local[i]] + [(v, placement[unit[v]]) for v in g.op_home[i]]
            return [t for v, e in wanted for t in _arrives(g, placement, v, e)] + [("op", j) for j in g.op_after[i]]
        v, d = cast("tuple[int, int]", key)
        home = placement[unit[v]]
        return [] if d == home else _arrives(g, placement, v, relay_source(g, placement, v, d))

    done: set[tuple[str, object]] = set()
    waiting = list(order)
    out: list[tuple[str, object]] = []
    while waiting:
        k = next((k for k, t in enumerate(waiting) if all(n in done for n in needs(t))), 0)
        task = waiting.pop(k)
        done.add(task)
        out.append(task)
    return out


def _arrives(g: TaskGraph, placement: list[int], v: int, d: int) -> list[tuple[str, object]]:
    """The task that puts value v on vdevice d (none for a weight or constant at home, or an input on the host)."""
    home = placement[g.val_unit[v]]
    if d != home:
        return [("copy", (v, d))]
    if g.val_kind[v] == OP:
        return [("op", g.val_producer[v])]
    if g.val_kind[v] == PASSED:
        return _arrives(g, placement, g.val_source[v], d)
    if g.val_kind[v] == INPUT and g.host is not None and home != g.host:
        return [("copy", (v, home))]
    return []


def _readers(g: TaskGraph, v: int) -> list[int]:
    """The units that may read value v off its home: its users, and the units that return it."""
    return [*g.val_users[v], *(unit for w, unit in g.outputs if w == v)]


def required_copies(g: TaskGraph, placement: list[int]) -> list[tuple[int, int]]:
    """Every copy (and upload) the placement implies, keyed as in the module docstring."""
    out: list[tuple[int, int]] = []
    for v in range(g.num_values):
        home = placement[g.val_unit[v]]
        if g.val_kind[v] == INPUT and g.host is not None and home != g.host:
            out.append((v, home))
        dests = {placement[u] for u in g.val_users[v]} - {home}
        out.extend((v, d) for d in sorted(dests))
    for v, unit in g.outputs:
        home, d = placement[g.val_unit[v]], placement[unit]
        if d != home and (v, d) not in out:
            out.append((v, d))
    return out
