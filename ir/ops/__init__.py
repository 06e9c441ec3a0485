"""The built-in op library.  Importing this package registers every op."""

from . import device, elementwise  # noqa: F401
