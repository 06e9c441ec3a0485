"""vdplace's Relax-like IR: data structures, TVMScript parser and printer, ops."""

from .bind_constants import bind_constants, constant_values, missing_constants
from .builder import FunctionBuilder, ModuleBuilder, tensor
from .errors import InferenceError, IRError, ParseError, VDeviceLookupError
from .expr import (
    Binding,
    BindingBlock,
    Call,
    Constant,
    DataflowBlock,
    DataflowVar,
    Expr,
    Function,
    GlobalVar,
    If,
    PrimValue,
    SeqExpr,
    ShapeExpr,
    StringImm,
    Tuple,
    TupleGetItem,
    Var,
)
from .metadata import MetadataRef
from .module import IRModule, iter_bindings
from .op import Op, Param, all_ops, get_op, register_op
from .parser import parse, parse_file, parse_vdevice, read_text_bytes
from .printer import script, write_script
from .span import Span
from .struct_info import (
    FuncStructInfo,
    ObjectStructInfo,
    PrimStructInfo,
    ShapeStructInfo,
    StructInfo,
    TensorStructInfo,
    TupleStructInfo,
)
from .structural_equal import assert_structural_equal, structural_equal
from .vdevice import DeviceSpec, Target, VDevice, lookup_vdevice, vdevice_name

__all__ = [
    "bind_constants",
    "constant_values",
    "missing_constants",
    "MetadataRef",
    "Binding",
    "BindingBlock",
    "Call",
    "Constant",
    "DataflowBlock",
    "DataflowVar",
    "DeviceSpec",
    "Expr",
    "FuncStructInfo",
    "Function",
    "FunctionBuilder",
    "GlobalVar",
    "IRError",
    "IRModule",
    "If",
    "InferenceError",
    "ModuleBuilder",
    "ObjectStructInfo",
    "Op",
    "Param",
    "ParseError",
    "PrimStructInfo",
    "PrimValue",
    "SeqExpr",
    "ShapeExpr",
    "ShapeStructInfo",
    "Span",
    "StringImm",
    "StructInfo",
    "Target",
    "TensorStructInfo",
    "Tuple",
    "TupleGetItem",
    "TupleStructInfo",
    "VDevice",
    "VDeviceLookupError",
    "Var",
    "all_ops",
    "assert_structural_equal",
    "get_op",
    "iter_bindings",
    "lookup_vdevice",
    "parse",
    "parse_file",
    "read_text_bytes",
    "parse_vdevice",
    "register_op",
    "script",
    "structural_equal",
    "tensor",
    "vdevice_name",
    "write_script",
]
