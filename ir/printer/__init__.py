"""`script(mod)`: an IRModule as TVMScript, in the style of TVM's ``mod.script()``.

The text is the module's canonical, reviewable form: the conformance runner
reads placement facts out of it, tests compare it, and `ir.parse` reads it back
to a structurally equal module.  So, like TVM's printer, it writes the full
struct info (vdevice included) of every parameter and binding, not only what
the user annotated.

Modules, one job each: `literals` (attribute values, targets, vdevices,
constant arrays), `sinfo` (struct infos), `values` (expressions in value
position), `function` (a function's lines and variable names), `module`
(the module around them).
"""

from .literals import PrintError, format_target, format_vdevice, literal
from .module import script, write_script
from .sinfo import format_struct_info

__all__ = ["PrintError", "script", "write_script", "format_struct_info", "format_target", "format_vdevice", "literal"]
