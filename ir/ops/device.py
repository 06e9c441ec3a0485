"""The two ops that name devices: ``hint_on_device`` and ``to_vdevice``.

Both have the ``explicit`` device rule: the result's device comes from the
op's attribute, which the parser has already resolved against the module's
vdevice list (a name that matches no entry is a parse error, not a silent
drop as in TVM).  At run time both are identities on the data; the copy they
may stand for is inserted by placement and executed by the runtime, so their
work is none (the copy's bytes are counted as a copy, not as op work).
"""

from __future__ import annotations

from ..op import ATTR, DEVICE, VDEVICE, Param, register_op
from .common import no_work, unary_infer

register_op(
    "hint_on_device",
    [Param("data"), Param("device", DEVICE), Param("memory_scope", ATTR, "global")],
    unary_infer("hint_on_device"),
    lambda x, **attrs: x,
    device_rule="explicit",
    work=no_work,
    doc="Ask for the result on `device`; placement turns it into an alias or a copy.",
)

register_op(
    "to_vdevice",
    [Param("data"), Param("dst_vdevice", VDEVICE)],
    unary_infer("to_vdevice"),
    lambda x, **attrs: x,
    device_rule="explicit",
    work=no_work,
    doc="Copy the input to `dst_vdevice`; the input's device is free (the copy costs its bytes when it differs).",
)
