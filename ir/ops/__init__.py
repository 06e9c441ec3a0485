"""The built-in op library.  Importing this package registers every op.

One module per family (elementwise, linalg, reduce, nn, manipulate, create,
device); each op is one `register_op` call in its family's module, carrying
every part of the op (see `vdplace.ir.op` and docs/adding-an-op.md).
`common` and `special` hold the helpers they share.
"""

from . import create, device, elementwise, linalg, manipulate, nn, reduce  # noqa: F401
