"""Register liveness: after which instruction each register is read for the last time.

The VM frees a buffer when its register is dropped, so the peak memory it
reports per device is what the program really needs, not the sum of every
allocation.  Liveness is a backward fixpoint over the control-flow graph of
one function (If/Goto make branches); a register that is live into a
branch-point but dead on one edge is dropped on that edge (`If.else_drop`).
"""

from __future__ import annotations

from collections.abc import Sequence

from .instructions import If, Instruction, Ret


def _successors(code: Sequence[Instruction], pc: int) -> list[int]:
    instr = code[pc]
    succ = list(instr.targets())
    if instr.falls_through and pc + 1 < len(code):
        succ.append(pc + 1)
    return succ


def live_in_sets(code: Sequence[Instruction]) -> list[frozenset[int]]:
    """The registers live on entry to each instruction."""
    n = len(code)
    uses = [frozenset(i.uses()) for i in code]
    defs = [frozenset(i.defs()) for i in code]
    succs = [_successors(code, pc) for pc in range(n)]
    live_in: list[frozenset[int]] = [frozenset()] * n
    changed = True
    while changed:
        changed = False
        for pc in range(n - 1, -1, -1):
            out: set[int] = set()
            for s in succs[pc]:
                out |= live_in[s]
            new = frozenset(uses[pc] | (out - defs[pc]))
            if new != live_in[pc]:
                live_in[pc] = new
                changed = True
    return live_in


def assign_drops(code: Sequence[Instruction], num_params: int) -> tuple[int, ...]:
    """Set every instruction's `drop` (and `If.else_drop`); return the parameters dropped on entry."""
    if not code:
        return tuple(range(num_params))
    live_in = live_in_sets(code)

    def held_after(pc: int) -> set[int]:
        return set(live_in[pc]) | set(code[pc].defs())

    for pc, instr in enumerate(code):
        held = held_after(pc)
        if isinstance(instr, Ret):
            # The returned value passes to the caller; nothing else is live here.
            instr.drop = tuple(sorted(held - {instr.value}))
            continue
        if isinstance(instr, If):
            instr.else_drop = tuple(sorted(held - live_in[instr.else_target]))
        if instr.falls_through:
            nxt = live_in[pc + 1] if pc + 1 < len(code) else frozenset()
            instr.drop = tuple(sorted(held - nxt))
        else:  # Goto
            instr.drop = tuple(sorted(held - live_in[instr.targets()[0]]))
    return tuple(r for r in range(num_params) if r not in live_in[0])
