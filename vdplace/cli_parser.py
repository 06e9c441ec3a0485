"""The `vdplace` command line's grammar: argparse with one-line errors and "did you mean" suggestions.

`Parser` is an ``argparse.ArgumentParser`` whose mistakes raise `UsageError`
(one line, exit status 2, never argparse's usage block) and name the nearest
valid word: a mistyped sub-command, option or choice (``--jsn`` -> did you
mean ``--json``?).  Python 3.14's ``suggest_on_error`` does the same for
choices only, and only there.

Options with an *optional attached value* follow GNU getopt: ``--ray`` alone,
or ``--ray=ADDRESS``; a separate word after ``--ray`` is never taken as its
value, so ``vdplace run --ray model.py`` reads ``model.py`` as the file.
`Parser.attached` declares one; `parse` rewrites the bare flag before argparse
sees it.

Value checkers for ``type=`` (`positive_float`, `positive_int`,
`non_negative_int`) turn a bad number into a one-line usage error.
"""

from __future__ import annotations

import argparse
import difflib
from collections.abc import Iterable, Sequence
from typing import Any


class UsageError(Exception):
    """The command line itself is wrong (an unknown option, a missing file argument, a bad value)."""


def nearest(word: str, candidates: Iterable[str]) -> str | None:
    """The candidate closest to `word`, when one is close enough to be what was meant."""
    matches = difflib.get_close_matches(word, list(candidates), n=1, cutoff=0.6)
    return matches[0] if matches else None


def did_you_mean(word: str, candidates: Iterable[str]) -> str:
    """``"; did you mean '--json'?"``, or "" when nothing is close."""
    match = nearest(word, candidates)
    return f"; did you mean {match!r}?" if match else ""


class AttachedAction(argparse._StoreAction):
    """An option whose value is attached and optional: bare, it means `attached_default` (`Parser.attached`)."""

    attached_default = ""


class Formatter(argparse.HelpFormatter):
    """Help text: ``--ray[=ADDRESS]`` for an option whose value is attached and optional."""

    def _format_args(self, action: argparse.Action, default_metavar: str) -> str:
        if isinstance(action, AttachedAction):
            return f"[={action.metavar or default_metavar}]"
        return super()._format_args(action, default_metavar)

    def _format_action_invocation(self, action: argparse.Action) -> str:
        if isinstance(action, AttachedAction):
            value = self._format_args(action, action.dest.upper())
            return ", ".join(f"{option}{value}" for option in action.option_strings)
        return super()._format_action_invocation(action)

    def _format_usage(self, *args: Any, **kwargs: Any) -> str:
        text = super()._format_usage(*args, **kwargs)
        return text.replace(" [=", "[=")


class Parser(argparse.ArgumentParser):
    """An ArgumentParser whose errors are `UsageError` with suggestions; see the module docstring."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", Formatter)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> Any:  # argparse calls this for every mistake it finds
        raise UsageError(f"{self.prog}: {message}")

    def _check_value(self, action: argparse.Action, value: Any) -> None:
        choices = action.choices
        if choices is None or value in choices:
            return
        names = [str(c) for c in choices]
        command = isinstance(action, argparse._SubParsersAction)
        what = "unknown command" if command else f"{_name(action)}: unknown value"
        raise argparse.ArgumentError(
            None, f"{what} {value!r}{did_you_mean(str(value), names)} (choose from {', '.join(names)})"
        )

    def attached(self, option: str, default: str, **kwargs: Any) -> argparse.Action:
        """Add ``option`` taking an optional attached value: ``--ray`` means `default`, ``--ray=X`` means X."""
        action = self.add_argument(option, action=AttachedAction, **kwargs)
        assert isinstance(action, AttachedAction)
        action.attached_default = default
        return action

    def options(self) -> list[str]:
        """Every option string this parser knows (for suggestions)."""
        return [s for action in self._actions for s in action.option_strings]

    def subparser(self, name: str) -> Parser | None:
        """The parser of sub-command `name`, when this parser has sub-commands."""
        for action in self._actions:
            if isinstance(action, argparse._SubParsersAction):
                found = action.choices.get(name)
                return found if isinstance(found, Parser) else None
        return None

    def parse(self, argv: Sequence[str]) -> argparse.Namespace:
        """Parse `argv` completely; every mistake is a `UsageError` naming the nearest valid word."""
        argv = self._attach(list(argv))
        try:
            args, rest = self.parse_known_args(argv)
        except argparse.ArgumentError as err:
            raise UsageError(f"{self.prog}: {err}") from None
        if rest:
            command = getattr(args, "command", None)
            sub = self.subparser(command) if command else None
            raise UsageError(_unrecognized(sub or self, rest))
        return args

    def _attach(self, argv: list[str]) -> list[str]:
        """`argv` with each bare attached-value option (``--ray``) written ``--ray=<default>``."""
        defaults = {}
        for parser in [self, *self._subparsers_all()]:
            for action in parser._actions:
                if isinstance(action, AttachedAction):
                    defaults.update(dict.fromkeys(action.option_strings, action.attached_default))
        out: list[str] = []
        for i, word in enumerate(argv):
            if word == "--":
                return out + argv[i:]
            out.append(f"{word}={defaults[word]}" if word in defaults else word)
        return out

    def _subparsers_all(self) -> list[Parser]:
        found = []
        for action in self._actions:
            if isinstance(action, argparse._SubParsersAction):
                found += [p for p in action.choices.values() if isinstance(p, Parser)]
        return found


def _name(action: argparse.Action) -> str:
    metavar = " ".join(action.metavar) if isinstance(action.metavar, tuple) else action.metavar
    return "/".join(action.option_strings) or metavar or action.dest


def _unrecognized(parser: Parser, rest: Sequence[str]) -> str:
    """The message for the first word `parser` did not recognize."""
    word = rest[0]
    if word.startswith("-") and len(word) > 1:
        option = word.split("=", 1)[0]
        return f"{parser.prog}: unknown option {option!r}{did_you_mean(option, parser.options())}"
    return f"{parser.prog}: unexpected argument {word!r}"


def positive_float(text: str) -> float:
    """A number > 0 (seconds, a limit); anything else is a usage error naming it."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"{text!r} must be a positive number")
    return value


def positive_int(text: str) -> int:
    """A whole number >= 1."""
    value = _int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r} must be at least 1")
    return value


def non_negative_int(text: str) -> int:
    """A whole number >= 0."""
    value = _int(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"{text!r} must be 0 or more")
    return value


def _int(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
