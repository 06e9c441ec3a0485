"""Call-site specialization: one copy of a function per device signature its call sites need.

    clone.py      copying a function with fresh nodes; its call sites, in the same walk order
    callgraph.py  units of recursion (strongly connected components) and call sites
    instances.py  copies of units and where each call goes; written out as a module
    naming.py     signatures of placed functions; the names of the copies
    search.py     `place_specialized`: full specialization, then merges (what is exact, what greedy)
    advice.py     the "place with specialize=True" help for a conflict report

See docs/placement.md, "Specialization".
"""

from vdplace.placement.result import Clone  # defined with `Placement`, which lists them

__all__ = ["Clone"]
