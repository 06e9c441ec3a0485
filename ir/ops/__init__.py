"""The built-in op library.  Importing this package registers every op.

One module per family (elementwise, math, linalg, reduce, nn, norm, activation, attention,
pad, pixel_shuffle, conv, pool, resize, sampling, vision, qdq, trig, numeric, xor, shift,
slice_scatter, search, median, loss, meshgrid, manipulate, index, gather, scatter, einsum, sort,
create, device, effects, call_tir (runs a TIR function), match_cast, unique, packed
(call_packed: a shape from a tensor); conv_pool holds what conv, pool and resize
share); each op is one `register_op` call in its family's module, carrying every part of the op (see `vdplace.ir.op`
and docs/adding-an-op.md).
`common` and `special` hold the helpers they share.
"""

from . import (  # noqa: F401
    activation,
    attention,
    call_tir,
    conv,
    conv_pool,
    create,
    device,
    effects,
    einsum,
    elementwise,
    gather,
    index,
    linalg,
    loss,
    manipulate,
    match_cast,
    math,
    median,
    meshgrid,
    nn,
    norm,
    numeric,
    packed,
    pad,
    pixel_shuffle,
    pool,
    qdq,
    reduce,
    resize,
    sampling,
    scatter,
    search,
    shift,
    slice_scatter,
    sort,
    trig,
    unique,
    vision,
    xor,
)
