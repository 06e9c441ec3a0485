"""Cost-aware placement: where the unpinned work runs, so that the program is fastest and fits.

`model` holds the `CostModel` (kernel times, copy times, memory limits) and
`OpInfo` (one binding as a cost model sees it).  The ready-made models
(docs/cost.md): `roofline` (peak FLOP/s and bandwidth per device, latency and
bandwidth per link), `table` (measured seconds per op call), `jsonfile` (the
file both are written to), `calibrate` (measuring a table on this machine,
with `timers`); `describe` lists a module's op calls as `OpInfo`.
"""

from .calibrate import Calibration, calibrate
from .describe import describe_ops, op_info
from .model import CostModel, OpInfo, parse_bytes, value_bytes
from .roofline import DEFAULT_DEVICES, DEFAULT_LINKS, Link, Roof, Roofline
from .table import Table, op_key

__all__ = [
    "DEFAULT_DEVICES",
    "DEFAULT_LINKS",
    "Calibration",
    "CostModel",
    "Link",
    "OpInfo",
    "Roof",
    "Roofline",
    "Table",
    "calibrate",
    "describe_ops",
    "op_info",
    "op_key",
    "parse_bytes",
    "value_bytes",
]
