"""The placement page (`vdplace place --report`): the program drawn by device, copies with their bytes, memory.

The page's content is checked as text here, and in headless Chromium as a
user sees it: it loads without a console error, its graph's nodes are in
the DOM, and the screenshot shows each device's colour.
"""

from __future__ import annotations

import re
from pathlib import Path

from tests.support.browser import count_colour, open_page, requires_chromium, screenshot
from vdplace import ir, placement
from vdplace.placement.report.placed_html import placement_html
from vdplace.placement.report.program_graph import MAX_NODES, PALETTE, program_graph

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
RED, BLUE = PALETTE[0][1:], PALETTE[1][1:]  # llvm:0 and cuda:0 in the examples


def _placed(path: Path, **options) -> placement.Placement:
    return placement.place(ir.parse_file(path), **options)


def test_the_graph_has_a_node_per_op_coloured_by_device_and_the_copy_as_an_edge_with_its_bytes():
    result = _placed(EXAMPLES / "mlp_two_devices.py")
    graph = program_graph(result.module, result.copies)
    layer, main = graph.functions
    assert [(n.label, n.text) for n in layer.nodes] == [
        ("x", "parameter"),
        ("w", "parameter"),
        ("b", "parameter"),
        ("h", "R.matmul"),
        ("h1", "R.add"),
        ("y", "R.nn.relu"),
        ("return", "result"),
    ]
    assert {n.device for n in layer.nodes} == {0}  # the CPU: layer's first use is hinted there
    nodes = {n.label + ":" + n.text: n for n in main.nodes}
    assert nodes["h:layer()"].device == 0 and nodes["o:R.matmul"].device == 1 and nodes["flag:parameter"].device is None
    copies = [(main.nodes[e.src].label, main.nodes[e.dst].text, e.nbytes) for e in main.edges if e.copy]
    assert copies == [("h", "R.nn.softmax", 256), ("h", "R.nn.gelu", 256)]  # h2 = to_vdevice(h), read by both branches
    reads = {(main.nodes[e.src].label, main.nodes[e.dst].label) for e in main.edges if not e.copy}
    assert ("o", "return") in reads and ("sm", "return") in reads and ("flag", "r") in reads


def test_a_large_function_is_drawn_by_runs_of_one_device():
    n = 3000
    body = "\n".join(f"        y{i} = R.exp(y{i - 1})" for i in range(1, n))
    text = (
        "@I.ir_module\nclass Module:\n"
        '    I.module_global_infos({"vdevice": [I.vdevice("llvm", 0), I.vdevice("cuda", 0)]})\n\n'
        "    @R.function\n"
        '    def main(x: R.Tensor((2, 3), "float32", "llvm")) -> R.Tensor((2, 3), "float32", "cuda"):\n'
        "        y0 = R.exp(x)\n" + body + f"\n        z = R.to_vdevice(y{n - 1}, 'cuda')\n        return z\n"
    )
    result = placement.place(ir.parse(text, filename="chain.py"))
    (main,) = program_graph(result.module, result.copies).functions
    assert main.merged and len(main.nodes) == 3 < MAX_NODES
    param, run, ret = main.nodes
    assert run.kind == "segment" and run.count == n and run.label == f"y0 … y{n - 1}" and run.text == f"{n} ops"
    assert [(e.src, e.dst, e.copy, e.nbytes) for e in main.edges] == [(0, 1, False, 0), (1, 2, True, 24)]


def test_the_page_draws_the_program_and_each_devices_memory():
    result = _placed(EXAMPLES / "mlp_two_devices.py")
    page = placement_html(result, "mlp_two_devices.py")
    assert page.count('<g class="node') == 19 and page.count('<g class="edge copy" data-bytes="256">') == 2
    assert "<script" not in page and not re.search(r"""(?:src|href)\s*=|url\(|@import""", page.replace("url(#", ""))
    assert "<h2>Memory per device</h2>" in page
    assert 'cuda:0:global</code></td><td class="bar">' in page
    assert "3.0 KiB: parameters 1.0 KiB, computed 1.8 KiB, copied in 256 B" in page


@requires_chromium
def test_the_placement_page_in_chromium(tmp_path):
    result = _placed(EXAMPLES / "mlp_two_devices.py")
    page = tmp_path / "placed.html"
    page.write_text(placement_html(result, "mlp_two_devices.py"))
    loaded = open_page(page, tmp_path / "profile")
    assert loaded.errors == []
    assert loaded.dom.count('class="node') == 19 and loaded.dom.count('class="edge copy"') == 2
    assert loaded.dom.count("<svg") == 2  # one graph per function
    rows = screenshot(page, tmp_path / "profile")
    assert count_colour(rows, RED) > 500 and count_colour(rows, BLUE) > 500


@requires_chromium
def test_a_script_error_would_be_seen(tmp_path):
    page = tmp_path / "broken.html"
    page.write_text("<!DOCTYPE html><html><body><p>x</p><script>noSuchFunction();</script></body></html>")
    assert any("noSuchFunction" in line for line in open_page(page, tmp_path / "profile").errors)
