"""The module strategy keeps its promises: budgets, and a witness that satisfies every hard rule."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings

from tests.support.strategies import SMALL_SITES, Generated, generated_modules, small_generated, tensor_sites
from vdplace.ir.expr import (
    Call,
    Constant,
    Expr,
    Function,
    GlobalVar,
    If,
    PrimValue,
    SeqExpr,
    ShapeExpr,
    Tuple,
    TupleGetItem,
    Var,
)
from vdplace.ir.module import IRModule
from vdplace.ir.printer import script
from vdplace.ir.struct_info import StructInfo, tensor_leaves
from vdplace.ir.vdevice import VDevice, lookup_device

FAST = settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def leaves(sinfo: StructInfo) -> list[tuple[tuple[int, ...], VDevice | None]]:
    return [(path, leaf.vdevice) for path, leaf in tensor_leaves(sinfo)]


class WitnessChecker:
    """Re-derives the hard constraints of docs/design.md's placement rules and checks them on the witness."""

    def __init__(self, gen: Generated) -> None:
        assert gen.witness is not None
        self.w = gen.witness
        self.mod: IRModule = gen.module

    def sites(self, fname: str, key: str, sinfo: StructInfo) -> list[VDevice]:
        return [self.w[(fname, key, path)] for path, _ in tensor_leaves(sinfo)]

    def value(self, fname: str, e: Expr) -> list[VDevice] | None:
        """Witness devices of an expression used as a value (None: free, e.g. a constant)."""
        if isinstance(e, Var):
            return self.sites(fname, e.name, e.struct_info)
        if isinstance(e, Tuple):
            out: list[VDevice] = []
            for f in e.fields:
                got = self.value(fname, f)
                assert got is not None
                out += got
            return out
        if isinstance(e, TupleGetItem):
            whole = self.value(fname, e.tuple_value)
            assert whole is not None
            return [whole[e.index]]
        assert isinstance(e, (Constant, ShapeExpr, PrimValue)), e  # none of them carries a device
        return None

    def check(self) -> None:
        for fname, func in self.mod.functions.items():
            self.function(fname, func)

    def function(self, fname: str, func: Function) -> None:
        for p in func.params:
            for (_, pinned), dev in zip(leaves(p.struct_info), self.sites(fname, p.name, p.struct_info), strict=True):
                assert pinned is None or pinned == dev, (fname, p.name)
        ret = self.sites(fname, "<ret>", func.ret_struct_info)
        for (_, pinned), dev in zip(leaves(func.ret_struct_info), ret, strict=True):
            assert pinned is None or pinned == dev
        assert self.seq(fname, func.body) == ret

    def seq(self, fname: str, seq: SeqExpr) -> list[VDevice] | None:
        for block in seq.blocks:
            for b in block.bindings:
                mine = self.sites(fname, b.var.name, b.var.struct_info)
                if b.annotation is not None:
                    for (_, pinned), dev in zip(leaves(b.annotation), mine, strict=True):
                        assert pinned is None or pinned == dev, (fname, b.var.name)
                self.binding(fname, b.value, mine)
        return self.value(fname, seq.body)

    def binding(self, fname: str, value: Expr, mine: list[VDevice]) -> None:
        if isinstance(value, If):
            for branch in (value.true_branch, value.false_branch):
                assert self.seq(fname, branch) == mine
        elif isinstance(value, Call) and isinstance(value.op, GlobalVar):
            callee = self.mod[value.op.name]
            for param, arg in zip(callee.params, value.args, strict=True):
                assert self.value(fname, arg) == self.sites(value.op.name, param.name, param.struct_info)
            assert mine == self.sites(value.op.name, "<ret>", callee.ret_struct_info)
        elif isinstance(value, Call):
            op = value.op
            (dev,) = mine
            assert op.supports(dev.device_type)
            if op.name == "to_vdevice":
                assert dev == value.attrs["dst_vdevice"]
            elif op.name == "hint_on_device":
                assert dev == lookup_device(self.mod.vdevices, value.attrs["device"], value.attrs["memory_scope"])
            else:
                for arg in value.args:
                    got = self.value(fname, arg)
                    assert got is None or got == [dev], (fname, op.name)
        else:
            got = self.value(fname, value)
            assert got is None or got == mine


@FAST
@given(generated_modules(allow_conflicts=False))
def test_without_conflicts_the_witness_satisfies_every_hard_rule(gen):
    assert gen.satisfiable
    WitnessChecker(gen).check()


@FAST
@given(generated_modules(allow_conflicts=True))
def test_with_conflicts_a_kept_witness_is_still_valid(gen):
    if gen.witness is not None:
        WitnessChecker(gen).check()


@FAST
@given(small_generated())
def test_small_modules_stay_within_the_site_budget(gen):
    assert tensor_sites(gen.module) <= SMALL_SITES
    assert "main" in gen.module.functions


@FAST
@given(generated_modules(annotations=False, hints=False))
def test_switched_off_features_do_not_appear(gen):
    assert gen.pins == 0 and gen.hints == 0 and gen.copies == 0
    for func in gen.module.functions.values():
        assert all(leaf is None for p in func.params for _, leaf in leaves(p.struct_info))


FEATURES = (
    "if cond:",
    "cls.f",
    "R.to_vdevice(",
    "R.hint_on_device(",
    "with R.dataflow():",
    "R.Tuple(",
    "R.const(",
    '("n"',
)


def test_every_feature_shows_up():
    seen: set[str] = set()

    @settings(max_examples=150, deadline=None, derandomize=True, database=None, suppress_health_check=list(HealthCheck))
    @given(generated_modules())
    def collect(gen):
        text = script(gen.module)
        seen.update(piece for piece in FEATURES if piece in text)

    collect()
    assert seen == set(FEATURES)
