"""Cost-aware placement: where the unpinned work runs, so that the program is fastest and fits.

`model` holds the `CostModel` (kernel times, copy times, memory limits) and
`OpInfo` (one binding as a cost model sees it).
"""

from .model import CostModel, OpInfo, parse_bytes

__all__ = ["CostModel", "OpInfo", "parse_bytes"]
