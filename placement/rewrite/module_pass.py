"""`ModulePass`: a named module -> module function that never mutates its input."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from vdplace.ir.module import IRModule

PassFunction = Callable[..., IRModule]


class ModulePass:
    """``pass_(mod, *args, **options) -> IRModule``: a new module, `mod` untouched.

    `name` is the pass's name (TVM's, where TVM has the pass); the wrapped
    function's name, signature and docstring are kept.  Calling a pass on
    anything but an `IRModule` is a `TypeError`.
    """

    def __init__(self, name: str, fn: PassFunction) -> None:
        self.name = name
        self.fn = fn
        functools.update_wrapper(self, fn)

    def __call__(self, mod: IRModule, *args: Any, **options: Any) -> IRModule:
        if not isinstance(mod, IRModule):
            raise TypeError(f"{self.fn.__name__}() takes an IRModule, not {type(mod).__name__}")
        return self.fn(mod, *args, **options)

    def __repr__(self) -> str:
        return f"ModulePass({self.name!r})"


def module_pass(name: str) -> Callable[[PassFunction], ModulePass]:
    """Decorator: ``@module_pass("UpdateVDevice")`` turns a module -> module function into a `ModulePass`."""

    def wrap(fn: PassFunction) -> ModulePass:
        return ModulePass(name, fn)

    return wrap
