"""The objective is the bytes the placed module's copies move, each value copied once per destination."""

from __future__ import annotations

from vdplace import ir
from vdplace.placement import place

HEADER = """
@I.ir_module
class Module:
    I.module_global_infos({"vdevice": [I.vdevice("llvm", 0), I.vdevice("cuda", 0), I.vdevice("cuda", 1)]})
"""


def _place(body: str):
    p = place(ir.parse(HEADER + body, "m.py"))
    text = ir.script(p.module)
    return p, text


def test_the_issue_module_moves_sixteen_bytes():
    p, text = _place("""
    @R.function
    def main(x: R.Tensor((4,), "float32")):
        a = R.exp(x)
        h = R.hint_on_device(a, R.device(device_type=2, index=0))
        t = R.to_vdevice(a, "llvm:0")
        u = R.to_vdevice(a, "llvm:0")
        return (h, t, u)
""")
    assert p.bytes_copied == 16 == sum(c.nbytes for c in p.copies if c.physical)
    assert len(p.copies) == 1
    assert text.count("R.to_vdevice") == 1


def test_two_copies_of_one_value_to_one_vdevice_are_one():
    p, text = _place("""
    @R.function
    def main(x: R.Tensor((8,), "float32", "llvm:0")):
        t = R.to_vdevice(x, "cuda:0")
        y = x
        u = R.to_vdevice(y, "cuda:0")
        return (t, u)
""")
    assert p.bytes_copied == 32 and len(p.copies) == 1
    assert 'u: R.Tensor((8,), dtype="float32", vdevice="cuda:0:global") = t' in text


def test_a_copy_back_home_is_an_alias_of_the_original():
    p, text = _place("""
    @R.function
    def main(x: R.Tensor((8,), "float32", "llvm:0")):
        c = R.to_vdevice(x, "cuda:0")
        d = R.exp(c)
        b = R.to_vdevice(c, "llvm:0")
        return (d, b)
""")
    assert p.bytes_copied == 32 and len(p.copies) == 1
    assert 'b: R.Tensor((8,), dtype="float32", vdevice="llvm:0:global") = x' in text


def test_a_copy_in_an_if_branch_is_not_reused_after_it():
    p, text = _place("""
    @R.function
    def main(x: R.Tensor((8,), "float32", "llvm:0"), c: R.Tensor((), "bool")):
        if c:
            a = R.to_vdevice(x, "cuda:0")
            r = R.exp(a)
        else:
            r = R.exp(R.to_vdevice(x, "cuda:0"))
        b = R.to_vdevice(x, "cuda:0")
        return (r, b)
""")
    assert len(p.copies) == 3 and p.bytes_copied == 96
    assert text.count("R.to_vdevice(x") == 3


def test_a_dataflow_copy_is_not_reused_after_its_block():
    p, _ = _place("""
    @R.function
    def main(x: R.Tensor((8,), "float32", "llvm:0")):
        with R.dataflow():
            a = R.to_vdevice(x, "cuda:0")
            a2 = R.to_vdevice(x, "cuda:0")
            s = R.add(a, a2)
            R.output(s)
        b = R.to_vdevice(x, "cuda:0")
        return (s, b)
""")
    assert [c.var for c in p.copies] == ["a", "b"] and p.bytes_copied == 64


FEWEST = """
    @R.function
    def FUNC(x: R.Tensor((8,), "float32")):
        a = R.exp(x)
        g1 = R.to_vdevice(a, "cuda:0")
        g2 = R.to_vdevice(a, "cuda:0")
        g3 = R.to_vdevice(a, "cuda:1")
        return (g1, g2, g3)
"""


def test_a_copy_goes_to_where_the_fewest_bytes_move():
    """`a` feeds two copies to cuda:0 (one after dedup) and one to cuda:1: on either GPU it copies once."""
    p, _ = _place(FEWEST.replace("FUNC", "f"))
    # a on cuda:0 or cuda:1 copies once; on llvm it would copy twice.
    assert p.bytes_copied == 32 and len(p.copies) == 1 and p.stats.bytes_uploaded == 0


def test_an_entry_input_counts_its_upload_so_the_copies_stay_where_the_user_wrote_them():
    """The same body as `main`: x arrives on the host, so `a` on a GPU uploads x (32 bytes) and copies once
    (32): the 64 bytes of two copies from the host tie, and the tie keeps the input on the host.  Before
    entry inputs were counted, x went to cuda:0 and its upload vanished from the figure (issue 29)."""
    p, text = _place(FEWEST.replace("FUNC", "main"))
    assert (p.bytes_copied, p.stats.bytes_uploaded, len(p.copies)) == (64, 0, 2)
    assert 'x: R.Tensor((8,), dtype="float32", vdevice="llvm:0:global")' in text


def test_same_physical_replica_is_the_source_of_a_free_copy():
    src = """
@I.ir_module
class Module:
    I.module_global_infos(
        {"vdevice": [I.vdevice("llvm", 0), I.vdevice("cuda", 0), I.vdevice({"kind": "cuda", "arch": "sm_80"}, 0)]}
    )

    @R.function
    def main(x: R.Tensor((8,), "float32", "llvm:0")):
        a = R.to_vdevice(x, "cuda:0")
        b = R.to_vdevice(x, "cuda:1")
        return (a, b)
"""
    p = place(ir.parse(src, "m.py"))
    assert p.bytes_copied == 32
    assert [(c.var, c.physical) for c in p.copies] == [("a", True), ("b", False)]
    assert "R.to_vdevice(a, " in ir.script(p.module)


def test_a_replica_another_hint_reuses_is_read_so_a_copy_back_aliases_the_original():
    """`c2` reuses `c` (an alias in the placed module) and is returned: `c` is read for real, not a transit
    replica, so copying it back home aliases `x` (before: a second 32-byte copy, `b = R.to_vdevice(c, ...)`)."""
    p, text = _place("""
    @R.function
    def main(x: R.Tensor((8,), "float32", "llvm:0")):
        c = R.hint_on_device(x, R.device(device_type=2, index=0))
        c2 = R.hint_on_device(x, R.device(device_type=2, index=0))
        b = R.to_vdevice(c, "llvm:0")
        return (c2, b)
""")
    assert p.bytes_copied == 32 and [c.var for c in p.copies] == ["c"]
    assert 'c2: R.Tensor((8,), dtype="float32", vdevice="cuda:0:global") = c' in text
    assert 'b: R.Tensor((8,), dtype="float32", vdevice="llvm:0:global") = x' in text


def test_a_chain_of_aliasing_copy_ops_reads_the_replica_it_names():
    """`d` is a copy to where `c2` is (an alias of it), `c2` a reuse of `c`: the returned `d` reads `c`."""
    p, text = _place("""
    @R.function
    def main(x: R.Tensor((8,), "float32", "llvm:0")):
        c = R.hint_on_device(x, R.device(device_type=2, index=0))
        c2 = R.hint_on_device(x, R.device(device_type=2, index=0))
        d = R.to_vdevice(c2, "cuda:0")
        b = R.to_vdevice(c, "llvm:0")
        return (d, b)
""")
    assert p.bytes_copied == 32 and [c.var for c in p.copies] == ["c"]
    assert 'b: R.Tensor((8,), dtype="float32", vdevice="llvm:0:global") = x' in text


def test_a_copy_back_to_a_second_scope_of_one_device_aliases_the_value_there():
    """The hypothesis example: `p0` lives on cuda:1 (sm_80, the physical device of cuda:0); `fork1` reuses
    `fork0` and is returned, so `v2`, a copy of `fork0` back to cuda:1, is `p0` itself, not a no-byte copy."""
    src = """
@I.ir_module
class Module:
    I.module_global_infos({"vdevice": [I.vdevice("cuda", 0), I.vdevice({"kind": "cuda", "arch": "sm_80"}, 0)]})

    @R.function
    def main(p0: R.Tensor((1,), "float32", "cuda:1")):
        fork0 = R.hint_on_device(p0, R.device(device_type=2, index=0))
        fork1 = R.hint_on_device(p0, R.device(device_type=2, index=0))
        v0 = p0
        v1 = R.hint_on_device(p0, R.device(device_type=2, index=0))
        v2 = R.to_vdevice(fork0, "cuda:1")
        return (fork1, v2)
"""
    p = place(ir.parse(src, "m.py"))
    text = ir.script(p.module)
    assert [(c.var, c.physical) for c in p.copies] == [("fork0", False)]
    assert 'v2: R.Tensor((1,), dtype="float32", vdevice="cuda:1:global") = p0' in text
    assert "v1" not in text  # a hint nothing reads is left out
