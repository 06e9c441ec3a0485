"""`ir.parse`: TVMScript text (the Relax subset) to an `IRModule`, never executing it.

The text is read with Python's `ast` and walked node by node; values are
read from literal nodes only (see `literals`).  It accepts both the style of
TVM's tests (``R.Tensor((2, 3), "float32", "cuda:0")``, ``tvm.cuda(1)``) and
the style TVM's ``mod.script()`` prints (``dtype=``/``vdevice=`` keywords,
``R.device(device_type=2, index=0)``, ``n = T.int64()``).

Every failure on bad input is an `ir.ParseError` (or a subclass:
`VDeviceLookupError`, `InferenceError`) whose message is one line starting
with ``file:line:col:``.  A file holds exactly one ``@I.ir_module`` class; a
second one is an error rather than silently ignored.
"""

from __future__ import annotations

import ast
import os
import stat
from typing import BinaryIO

from ..bind_constants import ConstantValues, bind_constants
from ..collector import collector_paused
from ..errors import ParseError
from ..module import IRModule
from ..source_file import SourceFile, universal_newlines
from ..span import Span
from ..vdevice import VDevice
from .annotations import StaticReader
from .fastfunctions import FastFunction
from .fastlines import FastLine, SkeletonMismatch
from .module import ModuleParser
from .skeleton import Skeleton, build_skeleton
from .source import Source, one_line, parse_python, quiet_parse

__all__ = ["parse", "parse_file", "parse_vdevice", "read_text_bytes"]

# Texts longer than this many lines are first probed from their beginning (see `_probe`), at most
# this many characters of it: a `def` line of 400k parameters would otherwise be read twice.
_PROBE_LINES = 2000
_PROBE_CHARS = 1 << 20
# The most bytes of text read for one module: about 7 million bindings (a million take 77-137 MB of text
# and about 1 GB of memory to place, docs/scaling.md).  More is refused as it is read, so an endless stream
# (``yes | vdplace place -``) ends; what is not a regular file is read in chunks of `_CHUNK`.
MAX_TEXT_BYTES = 1 << 30
_CHUNK = 1 << 20


def parse(text: str | bytes, filename: str | None = None, *, constants: ConstantValues | None = None) -> IRModule:
    """Parse TVMScript `text` (the contents of `filename`, used in messages) into an `IRModule`.

    `constants` gives the ``metadata[kind][i]`` constants of the text their
    values, as `ir.bind_constants` does (a mapping keyed ``"kind:index"`` or an
    ``.npz`` path); a value for a constant the text no longer references is
    ignored, so ``parse(edited, constants=ir.constant_values(mod))`` keeps the
    values of a printed and edited module.
    """
    if constants is not None:
        return bind_constants(parse(text, filename), constants, strict=False)
    if isinstance(text, bytes):
        text = _decoded(text, filename)
    if not isinstance(text, str):
        raise TypeError(f"ir.parse takes the text of a module (str), got {type(text).__name__}")
    src = Source(text, filename)
    parser: ModuleParser | None = None
    try:
        with collector_paused():
            tree, skeleton = _python_tree(src)
            parser = ModuleParser(src, tree, skeleton)
            try:
                return parser.run()
            except SkeletonMismatch:
                pass
            except Exception:
                if skeleton is None or skeleton.runs_read_alone():
                    raise
            # A candidate line is not what the skeleton took it for: read the whole original text.
            parser = ModuleParser(src, parse_python(src, src.text), None)
            return parser.run()
    except ParseError as err:
        raise _located(err, src, parser) from None
    except (RecursionError, MemoryError) as err:
        raise src.error(
            f"the text is too deeply nested or too large ({type(err).__name__})", _where(src, parser)
        ) from None
    except Exception as err:  # a bug in the parser: still report it at the text, in one line
        raise src.error(f"internal parser error ({type(err).__name__}: {err})", _where(src, parser)) from None


def parse_file(path: str | os.PathLike[str], *, constants: ConstantValues | None = None) -> IRModule:
    """Parse the TVMScript file at `path` (UTF-8, any line ends, read as text mode reads); messages name it as given.

    `constants` are values for the text's metadata constants, as for `parse`.

    The module's `source` is a `SourceFile` when `path` is a regular file:
    the text is not kept in memory but read back when a diagnostic quotes
    it.  What cannot be read twice (a pipe, ``/dev/stdin``) keeps its text;
    it is read as `read_text_bytes` reads (a device up to its first NUL byte).
    An unreadable file, or one longer than `MAX_TEXT_BYTES`, is a `ParseError` too.
    """
    name = os.fspath(path)
    try:
        with open(name, "rb") as f:
            regular = stat.S_ISREG(os.fstat(f.fileno()).st_mode)
            data = read_text_bytes(f, name)
    except OSError as err:
        raise ParseError(f"cannot read {name}: {err.strerror or err}") from None
    source = SourceFile(name, data) if regular else None
    text = universal_newlines(_decoded(data, name))
    del data  # the text alone while parsing
    mod = parse(text, filename=name)
    if source is not None:
        mod.source = source
    return mod if constants is None else bind_constants(mod, constants, strict=False)


def read_text_bytes(stream: BinaryIO, name: str | None) -> bytes:
    """The bytes of a module's text from `stream` (`name` in messages): at most `MAX_TEXT_BYTES` (more is a
    `ParseError`), and nothing past the chunk that holds the first NUL byte, which no text may hold (the
    parser reports it where it is): a device such as ``/dev/zero`` is not read on.  `OSError` as reading
    raises it.  A regular file is read at once."""
    if _regular(stream):
        data = stream.read(MAX_TEXT_BYTES + 1)
        if len(data) > MAX_TEXT_BYTES:
            raise _too_long(name)
        return data
    chunks: list[bytes] = []
    total = 0
    while True:
        chunk = stream.read(min(_CHUNK, MAX_TEXT_BYTES + 1 - total))
        if not chunk:
            return b"".join(chunks)
        total += len(chunk)
        if total > MAX_TEXT_BYTES:
            raise _too_long(name)
        chunks.append(chunk)
        if b"\0" in chunk:
            return b"".join(chunks)


def _regular(stream: BinaryIO) -> bool:
    """Whether `stream` reads a regular file (a stream without a descriptor is taken as one that is not)."""
    try:
        return stat.S_ISREG(os.fstat(stream.fileno()).st_mode)
    except (OSError, ValueError, AttributeError):  # io.UnsupportedOperation is an OSError and a ValueError
        return False


def _too_long(name: str | None) -> ParseError:
    return ParseError(
        f"the text is longer than {MAX_TEXT_BYTES >> 20} MiB, the most vdplace reads of one file",
        Source("", name).start(),
    )


def _decoded(data: bytes, filename: str | None) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as err:
        raise ParseError(
            f"the file is not UTF-8 text ({err.reason} at byte {err.start})", Source("", filename).start()
        ) from None


def parse_vdevice(text: str) -> VDevice:
    """Parse one ``I.vdevice(...)`` expression, e.g. ``I.vdevice("cuda", 0, "global")``."""
    if not isinstance(text, str):
        raise TypeError(f"ir.parse_vdevice takes a string, got {type(text).__name__}")
    src = Source(text.strip(), None)
    try:
        tree = parse_python(src, src.text, mode="eval")
        assert isinstance(tree, ast.Expression)
        return StaticReader(src, []).vdevice_decl(tree.body)
    except ParseError as err:
        raise _located(err, src, None) from None
    except (RecursionError, MemoryError) as err:
        raise src.error(f"the text is too deeply nested or too large ({type(err).__name__})", None) from None


def _python_tree(src: Source) -> tuple[ast.Module, Skeleton | None]:
    """The AST to walk: the fast-path skeleton's when it is faithful, else the whole text's."""
    head = src.head(_PROBE_LINES, _PROBE_CHARS)
    if head is not None:
        _probe(src, head)
    skeleton = build_skeleton(src)
    if skeleton is not None:
        try:
            tree = parse_python(src, skeleton.text)
        except ParseError:
            tree = None  # a fast line sat inside brackets or a string: read the original
        if tree is not None and not skeleton.inside_multiline_string(tree, src.text):
            return tree, skeleton
    return parse_python(src, src.text), None


def _probe(src: Source, head: str) -> None:
    """Fail fast when the first lines of a big text (`head`) already show it is not a module.

    The head is read through its own skeleton: the probe judges statement
    kinds only, and the AST of thousands of binding lines would cost more
    time and memory than the probe saves.
    """
    skeleton = build_skeleton(Source(head, src.filename))
    try:
        tree = quiet_parse(head if skeleton is None else skeleton.text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return  # the cut may fall inside a statement: let the whole text decide
    if skeleton is not None and skeleton.inside_multiline_string(tree, head):
        return
    try:
        ModuleParser(src, tree, skeleton).probe()
    except SkeletonMismatch:
        return  # a candidate line at the top of the text is not one assignment: let the whole text decide
    except ParseError:
        if skeleton is None or skeleton.runs_read_alone():
            raise


def _where(src: Source, parser: ModuleParser | None) -> ast.AST | FastFunction | Span | None:
    """Where the parser was when it failed: the statement or fast line being read (None before any)."""
    where = parser.where if parser is not None else None
    if isinstance(where, FastLine):
        return src.span_at(where.lineno, where.col, where.value_end)
    return where


def _located(err: ParseError, src: Source, parser: ModuleParser | None) -> ParseError:
    """`err` with a location (the current statement when it has none) and a one-line reason."""
    if err.span is not None and "\n" not in err.reason and "\r" not in err.reason:
        return err
    where = err.span if err.span is not None else _where(src, parser)
    return src.error(one_line(err.reason), where, type(err))
