"""Memory limits in the CP-SAT model (`cpsat`): every value's stays, within each limited vdevice's reservoir.

A stay (`liveness`) on a vdevice starts at its producer's or copy's start
(an input's at 0; at its upload's start when Ray's driver sends it) and
ends at or after the end of each reader there (each bound holds when the
literals that put the reader and the value there hold); weights,
constants and outputs stay to the makespan (a weight nothing reads holds
nothing: `liveness.loaded`).  On every vdevice with a limit,
each stay adds its bytes to a reservoir at its start and takes them back at
its end, and the reservoir stays within the limit (a cumulative constraint
over the stays as intervals said the same, but CP-SAT proved far less with
it: seconds against milliseconds on 4 ops).  A view (`TaskGraph.val_view`)
adds no bytes where it is made: the stay there of what it views (its home
stay, or its copy's) ends at or after the view's own end; a callee's
parameter ends at or after its call's end (`liveness.call_ends`: its ops' and
copies' ends, nested calls' included).  The run's entry
(`liveness.at_entry`: every runtime input, weight and constant at its home,
before anything at time 0) is within each limit too, a sum over the
placement's literals: it counts the inputs nothing reads, which have no
stay, and no callee's parameter or second instance of a callee's constant
(views: no bytes of their own).  The largest stays on a vdevice, no two of
which fit within its limit together, also go into a no-overlap (`_apart`):
redundant with the reservoir, which CP-SAT propagates more weakly.
`model` is the `cpsat._Model` being built.
"""

from __future__ import annotations

from typing import Any

from vdplace.placement.schedule.graph import CONST, INPUT, OP, PASSED, WEIGHT
from vdplace.placement.schedule.liveness import call_subtrees, loaded, parameter


def add_memory(model: Any) -> None:
    """The stays of every value with bytes on every limited vdevice it may be on, within the limit."""
    g = model.g
    stays: dict[int, list[tuple[tuple[Any, Any, Any], int]]] = {
        d: [] for d, lim in enumerate(g.limits) if lim is not None
    }
    views: dict[tuple[int, int], list[tuple[Any, list[Any]]]] = {}  # (value, d) -> (end, when) of its views at d
    call_end: dict[int, Any] = {}  # instance -> its call's end (`_call_end`)
    subtrees = call_subtrees(g)
    for v in reversed(range(g.num_values)):  # a view after what it views: its end is known first
        if not g.val_bytes[v] or not loaded(g, v):
            continue
        b = g.val_view[v]
        extra: list[tuple[Any, list[Any]]] = []
        if stays and parameter(g, v):
            extra = [(_call_end(model, set(subtrees[g.val_instance[v]]), g.val_instance[v], call_end), [])]
        for d, here in model.x[g.val_unit[v]].items():
            if d in stays:
                stay = _home_stay(model, v, d, views.get((v, d), []) + extra)
                if b >= 0:
                    views.setdefault((b, d), []).append((stay[1], [here]))
                else:
                    stays[d].append((stay, g.val_bytes[v]))
        for (w, d), y in model.y.items():
            if w == v and d in stays:
                stays[d].append((_copy_stay(model, v, d, y, views.get((v, d), [])), g.val_bytes[v]))
    for d, items in stays.items():
        if items:
            _limit(model, d, items)
    _entry(model, list(stays))


def _call_end(model: Any, inside: set[int], k: int, cache: dict[int, Any]) -> Any:
    """A variable at or after the end of every op and copy of instance k's call (`inside`: k and the
    instances it calls, directly or not)."""
    if k not in cache:
        g, m = model.g, model.m
        end = cache[k] = m.new_int_var(0, model.horizon, f"call{k}_end")
        for i in range(g.num_ops):
            if g.op_instance[i] in inside:
                m.add(end >= model.e[i])
        for (w, d), y in model.y.items():
            if g.val_instance[w] in inside:
                m.add(end >= model.ce[w, d]).only_enforce_if(y)
    return cache[k]


def _entry(model: Any, limited: list[int]) -> None:
    """What the run holds at its entry on each limited vdevice (`liveness.at_entry`), within the limit."""
    g = model.g
    held: dict[int, list[tuple[int, Any]]] = {d: [] for d in limited}  # d -> (bytes, literal)
    for v, kind in enumerate(g.val_kind):
        if kind in (OP, PASSED) or g.val_view[v] >= 0 or not g.val_bytes[v] or not loaded(g, v):
            continue
        for d, lit in model.x[g.val_unit[v]].items():
            in_flight = kind == INPUT and g.inputs_from_driver and g.host is not None and d != g.host
            if d in held and not in_flight:
                held[d].append((g.val_bytes[v], lit))
    for d, items in held.items():
        if sum(nbytes for nbytes, _ in items) > g.limits[d]:
            model.m.add(sum(nbytes * lit for nbytes, lit in items) <= g.limits[d])


def _limit(model: Any, d: int, items: list[tuple[tuple[Any, Any, Any], int]]) -> None:
    """The stays on d ((start, end, presence), bytes) within d's limit, as a reservoir: a stay adds its
    bytes at its start and takes them back at its end (both at one instant: nothing)."""
    times, changes, actives = [], [], []
    model.events += 2 * len(items)
    for (start, end, present), nbytes in items:
        times += [start, end]
        changes += [nbytes, -nbytes]
        actives += [present, present]
    model.m.add_reservoir_constraint_with_active(times, changes, actives, 0, model.g.limits[d])
    _apart(model, d, items)


def _apart(model: Any, d: int, items: list[tuple[tuple[Any, Any, Any], int]]) -> None:
    """The largest stays on d, no two of which fit within d's limit together, never overlap in time: a
    redundant no-overlap over them (the reservoir implies it; CP-SAT propagates a no-overlap more strongly).
    A stay of no length holds nothing in the reservoir, so only stays of positive length take part."""
    m, limit = model.m, model.g.limits[d]
    big = sorted(items, key=lambda item: -item[1])
    k = 1
    while k < len(big) and big[k - 1][1] + big[k][1] > limit:
        k += 1
    if k < 2:
        return
    intervals = []
    for n, ((start, end, present), _) in enumerate(big[:k]):
        size = m.new_int_var(0, model.horizon, f"apart{d}_{n}_size")
        held = m.new_bool_var(f"apart{d}_{n}_held")  # a positive length
        m.add(size >= 1).only_enforce_if(held)
        m.add(size == 0).only_enforce_if(~held)
        both = m.new_bool_var(f"apart{d}_{n}")  # present and held
        m.add_bool_or([~present, ~held, both])
        m.add_implication(both, present)
        m.add_implication(both, held)
        intervals.append(m.new_optional_interval_var(start, size, end, both, f"apart{d}_{n}_iv"))
    m.add_no_overlap(intervals)


def _stay(model: Any, name: str, start: Any, present: Any, ends: list[tuple[Any, list[Any]]]) -> tuple[Any, Any, Any]:
    """(start, end, presence) of a stay from `start` to a variable end at or after each (end, when
    literals); `present` None: always."""
    m = model.m
    end = m.new_int_var(0, model.horizon, f"{name}_end")
    m.add(end >= start)
    for at, when in ends:
        if when:
            m.add(end >= at).only_enforce_if(when)
        else:
            m.add(end >= at)
    if present is None:
        if model.true is None:
            model.true = m.new_bool_var("true")
            m.add(model.true == 1)
        present = model.true
    return start, end, present


def _home_stay(model: Any, v: int, d: int, views: list[tuple[Any, list[Any]]]) -> Any:
    g = model.g
    h = g.val_unit[v]
    here = model.x[h][d]
    kind = g.val_kind[v]
    driven = kind == INPUT and v in model.up and d != g.host and g.inputs_from_driver
    if kind == OP:
        start: Any = model.s[g.val_producer[v]]
    elif driven:  # sent by Ray's driver: there from its upload's start
        start = model.up[v]
    else:  # an input the runtime puts on its vdevice as the call begins (`liveness`), a weight, a constant
        start = 0
    ends: list[tuple[Any, list[Any]]] = [(model.ready[v], [here])] if kind == OP or driven else []
    if kind in (WEIGHT, CONST):
        ends.append((model.makespan, [here]))
    for i in g.val_readers[v]:
        c = g.op_unit[i]
        if c == h:
            ends.append((model.e[i], [here]))
        elif d in model.x[c]:
            ends.append((model.e[i], [here, model.x[c][d]]))
    ends.extend((model.e[i], [here]) for i in g.val_home_readers[v])
    for (w, dst), y in model.y.items():
        if w == v:
            ends.append((model.ce[v, dst], [here, y]))
    for w, o in g.outputs:
        if w == v and (o == h or d in model.x[o]):
            ends.append((model.makespan, [here] if o == h else [here, model.x[o][d]]))
    ends.extend((end, [here, *when]) for end, when in views)
    return _stay(model, f"live{v}_{d}", start, here, ends)


def _copy_stay(model: Any, v: int, d: int, y: Any, views: list[tuple[Any, list[Any]]]) -> Any:
    g = model.g
    ends: list[tuple[Any, list[Any]]] = [(model.ce[v, d], [y])]
    for i in g.val_readers[v]:
        c = g.op_unit[i]
        if d in model.x[c]:
            ends.append((model.e[i], [y, model.x[c][d]]))
    for w, o in g.outputs:
        if w == v and d in model.x[o]:
            ends.append((model.makespan, [y, model.x[o][d]]))
    ends.extend((end, [y, *when]) for end, when in views)
    return _stay(model, f"copy_live{v}_{d}", model.c[v, d], y, ends)
