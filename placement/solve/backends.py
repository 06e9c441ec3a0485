"""Every backend vdplace ships, registered (`backend.register_backend`) by importing this module."""

from vdplace.placement.solve import plan_backends, z3_backend  # noqa: F401 - importing them registers them
