"""`vdplace fix FILE`: the module's text with a checked fix of every conflict applied, until it places.

The work is `placement.report.autofix.fix_text`; this module reads the
text (a file, or ``-`` for stdin, line ends kept), writes the fixed text
(stdout, ``-o OUT``, or FILE itself with ``-i``, as ``ruff --fix`` does) and
says on stderr what it did.  Exit status as every `vdplace` command: 0 the
result places (also when nothing needed fixing), 1 a conflict has no fix
that applies (the text written has the fixes that did), 2 bad input.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from vdplace import progress
from vdplace.cli_output import EXIT_FAILED, EXIT_OK, Output, read_stdin

if TYPE_CHECKING:
    from vdplace.ir import IRModule

FIX_SCHEMA = "vdplace-fix/1"


def add_fix_options(fix: Any) -> None:
    """The arguments of `fix` beyond the common ones (``-o``, ``--json``, ``--color``)."""
    fix.add_argument("file", help="a TVMScript module (.py), or - for stdin")
    fix.add_argument("-i", "--in-place", action="store_true", help="rewrite FILE itself (as ruff --fix does)")
    fix.add_argument("--strict", action="store_true", help="make hint_on_device a hard constraint")
    fix.add_argument(
        "--specialize", action="store_true", help="clone functions per device signature instead of fixing those"
    )


def cmd_fix(args: argparse.Namespace, out: Output) -> int:
    """`vdplace fix`: fix, write the text, report each applied fix and any conflict left (module docstring)."""
    from vdplace import ir, placement
    from vdplace.placement.report import render_json, render_text
    from vdplace.placement.report.autofix import fix_text

    if args.in_place and (args.file == "-" or args.output):
        raise ir.ParseError("-i rewrites FILE itself: it takes neither - (stdin) nor -o")
    name = "<stdin>" if args.file == "-" else args.file
    text = read_text(args.file)

    def place(mod: IRModule) -> object:
        return placement.place(mod, strict_hints=args.strict, specialize=args.specialize)

    with progress.display(enabled=not args.json), progress.stage("fix"):
        result = fix_text(text, name, place)
    status = EXIT_OK if result.remaining is None else EXIT_FAILED
    if args.in_place:
        write_text(args.file, result.text)
    if args.json:
        out.document(
            {
                "schema": FIX_SCHEMA,
                "status": "fixed" if status == EXIT_OK else "conflict",
                "file": name,
                "text": result.text,
                "applied": [applied.describe(name) for applied in result.applied],
                "conflicts": None if result.remaining is None else render_json(result.remaining),
            }
        )
        return status
    if not args.in_place:
        out.result(result.text)
    for applied in result.applied:
        out.diagnostic(f"fixed: {applied.describe(name)}")
    if result.remaining is not None:
        out.diagnostic(render_text(result.remaining, color=None))
        out.diagnostic("error: a conflict has no fix that applies; the text written has the fixes that do")
        return status
    done = f"{len(result.applied)} fix(es) applied" if result.applied else "nothing to fix"
    out.diagnostic(f"{done}: the module places")
    return status


def write_text(path: str, text: str) -> None:
    """Write `text` to `path` as it is (its line ends untranslated); a file that cannot be written: `ParseError`."""
    from vdplace import ir

    try:
        with open(path, "w", encoding="utf-8", newline="") as f:
            f.write(text)
    except OSError as err:
        raise ir.ParseError(f"cannot write {path}: {err}") from None


def read_text(path: str) -> str:
    """The UTF-8 text of the file `path` (``-``: stdin), line ends as they are; unreadable: `ParseError`."""
    from vdplace import ir

    try:
        if path == "-":
            data = read_stdin()
        else:
            with open(path, "rb") as f:
                data = ir.read_text_bytes(f, path)
        return data.decode("utf-8")
    except OSError as err:
        raise ir.ParseError(f"cannot read {path}: {err.strerror or err}") from None
    except UnicodeDecodeError as err:
        raise ir.ParseError(f"cannot read {path}: not UTF-8 text ({err.reason} at byte {err.start})") from None
