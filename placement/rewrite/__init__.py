"""Rewrites: module passes, each a `ModulePass` (`module_pass.py`) with one signature.

    pass_(mod: IRModule, *args, **options) -> IRModule

A pass returns a new module and never mutates `mod` (nor anything `mod`
holds: functions, bindings, variables, struct infos); the module it returns
may share the unchanged immutable parts.  `pass_.name` is its name.

    placement.realize_vdevice(mod, **place_options)          RealizeVDevice
    placement.update_vdevice(mod, new_vdevice, index=None)   UpdateVDevice (update.py)
    placement.annotate_ops(mod, op_device_map, fallback_device=None)   AnnotateOps (annotate.py)

`realize_vdevice` is defined with `placement.place` (it is place's module);
`realize.py` is the step of that pipeline that writes a solved placement
back into a new module.  `remap.py` is the walker `update_vdevice` rebuilds
a module with.
"""
