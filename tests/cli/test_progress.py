"""The progress display: silent unless turned on for a terminal, one line on stderr, erased at the end."""

from __future__ import annotations

import io
import time

from vdplace import progress
from vdplace.cli import main


def _busy(seconds: float) -> None:
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        time.sleep(0.01)


def test_a_stage_without_display_is_silent_and_ticks_are_no_ops(capsys):
    with progress.stage("parse", total=10) as tick:
        _busy(0.2)
        tick(5)
    assert tick is progress._no_tick
    assert capsys.readouterr() == ("", "")


def test_a_long_stage_shows_its_name_and_erases_itself():
    stream = io.StringIO()
    with progress.display(stream=stream, delay_s=0.1, force=True):
        with progress.stage("place"):
            _busy(0.8)
            with progress.stage("diagnose", total=4) as tick:
                for i in range(4):
                    _busy(0.15)
                    tick(i + 1)
    text = stream.getvalue()
    assert "place" in text
    assert "place › diagnose" in text
    assert "/4" in text
    assert text.endswith(progress.ERASE)  # the line was cleared: the next output starts at column 0
    assert "\n" not in text


def test_a_short_stage_shows_nothing():
    stream = io.StringIO()
    with progress.display(stream=stream, delay_s=5.0, force=True):
        with progress.stage("parse") as tick:
            tick(1)
    assert stream.getvalue().strip() == ""


def test_no_display_when_the_stream_is_not_a_terminal():
    stream = io.StringIO()  # isatty() is False
    with progress.display(stream=stream, delay_s=0.0):
        with progress.stage("place"):
            _busy(0.4)
    assert stream.getvalue() == ""


def test_the_command_line_writes_no_progress_into_redirected_output(tmp_path, capsys):
    src = tmp_path / "m.py"
    src.write_text(
        "from tvm.script import ir as I\nfrom tvm.script import relax as R\n\n"
        "@I.ir_module\nclass Module:\n"
        '    I.module_global_infos({"vdevice": [I.vdevice("llvm", 0)]})\n\n'
        "    @R.function\n"
        '    def main(x: R.Tensor((2,), "float32", "llvm")):\n'
        "        y = R.exp(x)\n"
        "        return y\n"
    )
    assert main(["place", str(src)]) == 0
    out, err = capsys.readouterr()
    assert "\r" not in out and "\r" not in err


def test_the_delay_is_a_second_unless_the_environment_says_otherwise(monkeypatch):
    monkeypatch.delenv(progress.DELAY_ENV, raising=False)
    assert progress.configured_delay() == 1.0
    for text, delay in (("2.5", 2.5), ("0", 0.0), ("-1", 1.0), ("soon", 1.0)):
        monkeypatch.setenv(progress.DELAY_ENV, text)
        assert progress.configured_delay() == delay


def test_output_written_while_the_line_is_shown_erases_it_first():
    stream = io.StringIO()
    with progress.display(stream=stream, delay_s=0.0, force=True):
        with progress.stage("measure"):
            _busy(0.4)
            with progress.paused():
                stream.write("ROW\n")
            _busy(0.4)
    text = stream.getvalue()
    before, after = text.split("ROW\n")
    assert before.endswith(progress.ERASE) and "measure [00:00]" in before
    assert "measure [00:00]" in after and after.endswith(progress.ERASE)
