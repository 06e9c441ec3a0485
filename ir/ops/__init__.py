"""The built-in op library.  Importing this package registers every op.

One module per family (elementwise, math, linalg, reduce, nn, manipulate, index, create,
device); each op is one `register_op` call in its family's module, carrying
every part of the op (see `vdplace.ir.op` and docs/adding-an-op.md).
`common` and `special` hold the helpers they share.
"""

from . import (  # noqa: F401
    conv_pool,
    create,
    device,
    elementwise,
    gather,
    index,
    linalg,
    manipulate,
    math,
    nn,
    norm,
    reduce,
    sort,
)
