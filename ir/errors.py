"""Errors raised by the IR layer.

Every error that points at user text carries a `Span`, so that a caller (the
CLI, a test, an editor) can show ``file:line:col: reason`` without digging.
"""

from __future__ import annotations

from .span import Span


class IRError(Exception):
    """Base class of every error the `ir` package raises on bad input."""

    def __init__(self, message: str, span: Span | None = None) -> None:
        self.reason = message
        self.span = span
        super().__init__(self._format())

    def _format(self) -> str:
        if self.span is None:
            return self.reason
        return f"{self.span.location()}: {self.reason}"


class ParseError(IRError):
    """The text is not a module vdplace can read (syntax, names, types...)."""


class VDeviceLookupError(ParseError):
    """A device name, index or hint matches no entry of the module's vdevice list."""


class InferenceError(ParseError):
    """An op's arguments do not type-check (arity, shape, dtype)."""
