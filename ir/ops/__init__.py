"""The built-in op library.  Importing this package registers every op.

One module per family; adding an op is one `register_op` call in one of them.
"""

from . import create, device, elementwise, linalg, manipulate, nn, reduce  # noqa: F401
