"""Targets, vdevices and how names in the text find them (docs/design.md, "ir")."""

import pytest

from vdplace.ir.vdevice import DeviceSpec, Target, VDevice, lookup_device, lookup_vdevice, vdevice_name


def test_target_string_and_dict_spellings_are_equal():
    assert Target.parse("cuda -arch=sm_80") == Target.parse({"kind": "cuda", "arch": "sm_80"})
    assert Target.parse("cuda") != Target.parse("cuda -arch=sm_80")
    assert Target.parse({"kind": "llvm", "keys": ["cpu"]}) == Target.parse("llvm -keys=cpu")


@pytest.mark.parametrize(
    ("kind", "device_type"),
    [("llvm", "cpu"), ("c", "cpu"), ("cuda", "cuda"), ("nvptx", "cuda"), ("metal", "metal"), ("vulkan", "vulkan")],
)
def test_device_type_comes_from_the_target_kind(kind, device_type):
    assert VDevice(kind).device_type == device_type


def test_vdevices_compare_by_value():
    assert VDevice("cuda", 1, "global") == VDevice(Target.parse("cuda"), 1)
    assert VDevice("cuda", 1) != VDevice("cuda", 0)
    assert VDevice("cuda", 0, "shared") != VDevice("cuda", 0)
    assert len({VDevice("llvm"), VDevice("llvm")}) == 1


def test_same_physical_device_across_targets():
    assert VDevice("cuda", 0).physical == VDevice("cuda -arch=sm_80", 0).physical == ("cuda", 0)
    assert VDevice("cuda", 0).physical != VDevice("cuda", 1).physical


def test_bad_vdevice_fields_are_rejected():
    with pytest.raises(ValueError):
        VDevice("cuda", -1)
    with pytest.raises(ValueError):
        VDevice("cuda", 0, "")
    with pytest.raises(ValueError):
        Target.parse("")
    with pytest.raises(ValueError):
        Target.parse("cuda arch")


GPUS = [VDevice("cuda", 1), VDevice("cuda", 0), VDevice("cuda", 2), VDevice("llvm")]


def test_kind_index_is_the_ith_entry_of_that_kind_not_the_device_id():
    assert lookup_vdevice(GPUS, "cuda") is GPUS[0]
    assert lookup_vdevice(GPUS, "cuda:0") is GPUS[0]
    assert lookup_vdevice(GPUS, "cuda:1") is GPUS[1]
    assert lookup_vdevice(GPUS, "cuda:1").vdevice_id == 0
    assert lookup_vdevice(GPUS, "cuda:2:global") is GPUS[2]
    assert lookup_vdevice(GPUS, "vdevice:3") is GPUS[3]
    assert lookup_vdevice(GPUS, "llvm") is GPUS[3]


def test_hint_device_is_found_by_device_type_and_id():
    assert lookup_device(GPUS, DeviceSpec("cuda", 1)) is GPUS[0]
    assert lookup_device(GPUS, DeviceSpec("cuda", 0)) is GPUS[1]
    assert lookup_device(GPUS, DeviceSpec("cpu", 0)) is GPUS[3]


@pytest.mark.parametrize("name", ["cuda:3", "metal", "vdevice:4", "cuda:x", "cuda:0:shared", "a:b:c:d", ""])
def test_unknown_names_are_errors_that_list_the_module_devices(name):
    with pytest.raises(LookupError) as info:
        lookup_vdevice(GPUS, name)
    assert name.split(":")[0] in str(info.value) or "vdevice" in str(info.value)


def test_unknown_hint_device_is_an_error():
    with pytest.raises(LookupError, match="cuda:0:global"):
        lookup_device(GPUS, DeviceSpec("cuda", 7))


def test_printed_name_is_kind_ordinal_scope():
    assert [vdevice_name(GPUS, v) for v in GPUS] == [
        "cuda:0:global",
        "cuda:1:global",
        "cuda:2:global",
        "llvm:0:global",
    ]
