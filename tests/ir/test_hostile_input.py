"""Hostile names: strings print as text that parses back to the same string; unknown target kinds are refused."""

from __future__ import annotations

import ast
import io
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vdplace import ir
from vdplace.ir import ModuleBuilder, ParseError, Target, VDevice, script
from vdplace.ir.builder import tensor
from vdplace.ir.expr import StringImm
from vdplace.ir.printer.literals import string_literal
from vdplace.ir.vdevice import KIND_TO_DEVICE_TYPE, lookup_vdevice

# Every code point, lone surrogates included: st.text() leaves the surrogates out.
ANY_CHAR = st.integers(0, 0x10FFFF).map(chr)
ANY_TEXT = st.text(ANY_CHAR | st.sampled_from("\"\\'\n\r\t\x00\u2028\ufeff"), max_size=30)


def _read_back(literal: str) -> str:
    (stmt,) = ast.parse(literal).body
    assert isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant)
    return stmt.value.value


@settings(max_examples=500)
@given(ANY_TEXT)
def test_a_printed_string_reads_back_as_itself_and_fits_a_utf8_file(text):
    printed = string_literal(text)
    printed.encode("utf-8")  # lone surrogates are escaped, so the text can be saved
    assert "\n" not in printed and "\r" not in printed
    assert _read_back(printed) == text


def test_printable_unicode_is_written_as_itself():
    assert string_literal("cüda😀") == '"cüda😀"'
    assert string_literal('a"b\\c') == '"a\\"b\\\\c"'
    assert string_literal("\ud83d") == '"\\ud83d"'  # a lone surrogate, escaped
    assert string_literal("\u200b\x7f") == '"\\u200b\\x7f"'  # invisible characters are escaped too


def _scope_module(scope: str, label: str) -> ir.IRModule:
    device = VDevice("cuda", 0, scope)
    mb = ModuleBuilder([VDevice("llvm"), device])
    f = mb.function("main", [("x", tensor((2, 3), "float32", device))])
    f.emit(StringImm(label), name="y")
    f.finish(f.emit("add", f.params[0], f.params[0], name="z"))
    return mb.get()


@settings(max_examples=150, deadline=None)
@given(st.text(ANY_CHAR, min_size=1, max_size=12), ANY_TEXT)
def test_memory_scopes_and_strings_survive_print_and_parse(scope, label):
    mod = _scope_module(scope, label)
    text = script(mod)
    text.encode("utf-8")
    again = ir.parse(text)
    assert again.vdevices == mod.vdevices
    assert again["main"].params[0].struct_info.vdevice.memory_scope == scope
    assert script(again) == text
    assert ir.structural_equal(again, mod)


def test_the_issue_s_device_name_round_trips():
    mod = _scope_module("cüda😀", "cüda😀")
    text = script(mod)
    assert 'vdevice="cuda:0:cüda😀"' in text and 'R.str("cüda😀")' in text
    assert ir.parse(text).vdevices[1].memory_scope == "cüda😀"


def test_a_scope_with_colons_is_found_by_its_full_name():
    gpus = [VDevice("llvm"), VDevice("cuda", 0, "a:b:c")]
    assert lookup_vdevice(gpus, "cuda:0:a:b:c") is gpus[1]
    with pytest.raises(LookupError, match="memory scope"):
        lookup_vdevice(gpus, "cuda:0:a:b")


def test_a_raw_lone_surrogate_in_the_text_is_a_parse_error():
    text = '@I.ir_module\nclass M:\n    I.module_global_infos({"vdevice": [I.vdevice("llvm", 0, "s\ud800")]})\n'
    with pytest.raises(ParseError, match="surrogates not allowed"):
        ir.parse(text)


KNOWN = ", ".join(KIND_TO_DEVICE_TYPE)


@pytest.mark.parametrize("spec", ["cüda", "sim", {"kind": "npu", "arch": "x"}, "npu -arch=x", "x" * 10_000_000])
def test_unknown_target_kinds_are_refused_with_the_known_ones(spec):
    with pytest.raises(ValueError, match="unknown target kind") as info:
        Target.parse(spec)
    assert KNOWN in str(info.value) and len(str(info.value)) < 400
    with pytest.raises(ValueError, match="unknown target kind"):
        VDevice(spec)


@pytest.mark.parametrize("target", ['"foo"', '{"kind": "tpu"}', '"cuda_host"'])
def test_an_unknown_kind_in_i_vdevice_is_a_located_parse_error(target):
    text = f'@I.ir_module\nclass M:\n    I.module_global_infos({{"vdevice": [I.vdevice({target})]}})\n'
    with pytest.raises(ParseError, match=r"<string>:3:\d+: bad target: unknown target kind .*known kinds: llvm, c,"):
        ir.parse(text)


@pytest.mark.parametrize("kind", sorted(KIND_TO_DEVICE_TYPE))
def test_every_known_kind_round_trips(kind):
    mod = ir.parse(f'@I.ir_module\nclass M:\n    I.module_global_infos({{"vdevice": [I.vdevice("{kind}")]}})\n')
    assert mod.vdevices == [VDevice(kind)] and ir.parse(script(mod)).vdevices == mod.vdevices


class _Endless(io.RawIOBase):
    """A stream that never ends: `byte` repeated, as /dev/zero or `yes` give; counts what was read."""

    def __init__(self, byte: bytes) -> None:
        self.byte, self.read_bytes = byte, 0

    def readable(self) -> bool:
        return True

    def read(self, size: int = -1) -> bytes:
        size = 1 << 16 if size is None or size < 0 else size
        self.read_bytes += size
        return self.byte * size


def test_an_endless_stream_of_nul_bytes_is_read_one_chunk_then_refused():
    stream = _Endless(b"\0")
    data = ir.read_text_bytes(stream, "zeros")
    assert stream.read_bytes == len(data) <= 1 << 20
    with pytest.raises(ParseError, match=r"^zeros:1:1: the text contains a NUL byte"):
        ir.parse(data, "zeros")


def test_an_endless_text_is_refused_at_the_cap(monkeypatch):
    """`yes | vdplace place -`: text without end, refused once past `MAX_TEXT_BYTES`, not read on."""
    from vdplace.ir import parser

    monkeypatch.setattr(parser, "MAX_TEXT_BYTES", 5000)
    stream = _Endless(b"y\n")
    with pytest.raises(
        ParseError, match=r"^<stdin>:1:1: the text is longer than .* the most vdplace reads of one file"
    ):
        ir.read_text_bytes(stream, "<stdin>")
    assert stream.read_bytes <= 2 * 5001


def test_a_file_over_the_cap_is_refused_and_one_at_it_is_read(monkeypatch, tmp_path):
    from vdplace.ir import parser

    text = (Path(__file__).parents[2] / "examples" / "rfc_hint_copy.py").read_bytes()
    path = tmp_path / "m.py"
    path.write_bytes(text)
    monkeypatch.setattr(parser, "MAX_TEXT_BYTES", len(text))
    assert "main" in ir.parse_file(path).functions
    path.write_bytes(text + b"\n")
    with pytest.raises(ParseError, match=r"m\.py:1:1: the text is longer than"):
        ir.parse_file(path)


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="no /dev/zero")
def test_a_device_without_end_is_refused_at_once():
    with pytest.raises(ParseError, match=r"^/dev/zero:1:1: the text contains a NUL byte"):
        ir.parse_file("/dev/zero")
