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
import sys
from typing import TYPE_CHECKING, Any

from vdplace import progress
from vdplace.cli import EXIT_CONFLICT, EXIT_OK

if TYPE_CHECKING:
    from vdplace.ir import IRModule


def add_fix_command(sub: Any) -> None:
    """The `fix` sub-command and its arguments, on the `vdplace` parser's sub-parsers `sub`."""
    fix = sub.add_parser("fix", help="apply the first checked fix of every conflict, until the module places")
    fix.add_argument("file", help="a TVMScript module (.py), or - for stdin")
    where = fix.add_mutually_exclusive_group()
    where.add_argument("-o", "--output", metavar="FILE", help="write the fixed module to FILE, not stdout")
    where.add_argument("-i", "--in-place", action="store_true", help="rewrite FILE itself (as ruff --fix does)")
    fix.add_argument("--strict", action="store_true", help="make hint_on_device a hard constraint")
    fix.add_argument(
        "--specialize", action="store_true", help="clone functions per device signature instead of fixing those"
    )
    fix.set_defaults(func=cmd_fix)


def cmd_fix(args: argparse.Namespace) -> int:
    """`vdplace fix`: fix, write the text, report each applied fix and any conflict left (module docstring)."""
    from vdplace import ir, placement
    from vdplace.placement.report import render_text
    from vdplace.placement.report.autofix import fix_text

    if args.in_place and args.file == "-":
        raise ir.ParseError("-i rewrites FILE itself: it cannot take - (stdin)")
    name = "<stdin>" if args.file == "-" else args.file
    text = read_text(args.file)

    def place(mod: IRModule) -> object:
        return placement.place(mod, strict_hints=args.strict, specialize=args.specialize)

    with progress.display(enabled=True), progress.stage("fix"):
        result = fix_text(text, name, place)
    output = args.file if args.in_place else args.output
    if output:
        write_text(output, result.text)
    else:
        sys.stdout.write(result.text)
    for applied in result.applied:
        print(f"fixed: {applied.describe(name)}", file=sys.stderr)
    if result.remaining is not None:
        print(render_text(result.remaining, color=None), end="", file=sys.stderr)
        print("error: a conflict has no fix that applies; the text written has the fixes that do", file=sys.stderr)
        return EXIT_CONFLICT
    done = f"{len(result.applied)} fix(es) applied" if result.applied else "nothing to fix"
    print(f"{done}: the module places", file=sys.stderr)
    return EXIT_OK


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
            data = sys.stdin.buffer.read()
        else:
            with open(path, "rb") as f:
                data = f.read()
        return data.decode("utf-8")
    except OSError as err:
        raise ir.ParseError(f"cannot read {path}: {err.strerror or err}") from None
    except UnicodeDecodeError as err:
        raise ir.ParseError(f"cannot read {path}: not UTF-8 text ({err.reason} at byte {err.start})") from None
