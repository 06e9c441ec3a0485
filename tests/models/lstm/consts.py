# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((1, 5, 8), dtype="float32")) -> R.Tuple(R.Tensor((1, 5, 16), dtype="float32"), R.Tensor((1, 1, 16), dtype="float32"), R.Tensor((1, 1, 16), dtype="float32")):
        with R.dataflow():
            lv: R.Tensor((1, 1, 16), dtype="float32") = R.full(R.shape([1, 1, 16]), R.const(0.0, "float32"), dtype="float32")
            lv1: R.Tensor((1, 1, 16), dtype="float32") = R.full(R.shape([1, 1, 16]), R.const(0.0, "float32"), dtype="float32")
            lv2: R.Tensor((1, 1, 16), dtype="float32") = R.strided_slice(lv, (0,), (0,), (1,), (1,), assume_inbound=False)
            lv3: R.Tensor((1, 16), dtype="float32") = R.squeeze(lv2, axis=[0])
            lv4: R.Tensor((1, 1, 16), dtype="float32") = R.strided_slice(lv1, (0,), (0,), (1,), (1,), assume_inbound=False)
            lv5: R.Tensor((1, 16), dtype="float32") = R.squeeze(lv4, axis=[0])
            lv6: R.Tensor((5, 1, 8), dtype="float32") = R.permute_dims(x, axes=[1, 0, 2])
            lv7: R.Tensor((1, 1, 16), dtype="float32") = R.expand_dims(lv3, axis=[0])
            lv8: R.Tensor((1, 1, 16), dtype="float32") = R.expand_dims(lv5, axis=[0])
            lv9: R.Tensor((5, 8), dtype="float32") = R.reshape(lv6, R.shape([5, 8]))
            lv10: R.Tensor((8, 64), dtype="float32") = R.permute_dims(metadata["ir.GenericConst"][0], axes=[1, 0])
            lv11: R.Tensor((5, 64), dtype="float32") = R.matmul(lv9, lv10, out_dtype="float32")
            lv12: R.Tensor((5, 64), dtype="float32") = R.add(metadata["ir.GenericConst"][1], lv11)
            lv13: R.Tensor((5, 1, 64), dtype="float32") = R.reshape(lv12, R.shape([5, 1, 64]))
            lv14: R.Tensor((1, 1, 64), dtype="float32") = R.strided_slice(lv13, (0,), (0,), (1,), (1,), assume_inbound=False)
            lv15: R.Tensor((1, 1, 64), dtype="float32") = R.strided_slice(lv13, (0,), (1,), (2,), (1,), assume_inbound=False)
            lv16: R.Tensor((1, 1, 64), dtype="float32") = R.strided_slice(lv13, (0,), (2,), (3,), (1,), assume_inbound=False)
            lv17: R.Tensor((1, 1, 64), dtype="float32") = R.strided_slice(lv13, (0,), (3,), (4,), (1,), assume_inbound=False)
            lv18: R.Tensor((1, 1, 64), dtype="float32") = R.strided_slice(lv13, (0,), (4,), (5,), (1,), assume_inbound=False)
            lv19: R.Tensor((1, 64), dtype="float32") = R.squeeze(lv14, axis=[0])
            lv20: R.Tensor((1, 64), dtype="float32") = R.squeeze(lv15, axis=[0])
            lv21: R.Tensor((1, 64), dtype="float32") = R.squeeze(lv16, axis=[0])
            lv22: R.Tensor((1, 64), dtype="float32") = R.squeeze(lv17, axis=[0])
            lv23: R.Tensor((1, 64), dtype="float32") = R.squeeze(lv18, axis=[0])
            lv24: R.Tensor((1, 16), dtype="float32") = R.reshape(lv7, R.shape([1, 16]))
            lv25: R.Tensor((16, 64), dtype="float32") = R.permute_dims(metadata["ir.GenericConst"][2], axes=[1, 0])
            lv26: R.Tensor((1, 64), dtype="float32") = R.matmul(lv24, lv25, out_dtype="float32")
            lv27: R.Tensor((1, 64), dtype="float32") = R.add(metadata["ir.GenericConst"][3], lv26)
            lv28: R.Tensor((1, 1, 64), dtype="float32") = R.reshape(lv27, R.shape([1, 1, 64]))
            lv29: R.Tensor((1, 1, 64), dtype="float32") = R.add(lv28, lv19)
            lv30: R.Tuple(R.Tensor((1, 1, 16), dtype="float32"), R.Tensor((1, 1, 16), dtype="float32"), R.Tensor((1, 1, 16), dtype="float32"), R.Tensor((1, 1, 16), dtype="float32")) = R.split(lv29, indices_or_sections=[16, 32, 48], axis=2)
            lv31: R.Tensor((1, 1, 16), dtype="float32") = lv30[0]
            lv32: R.Tensor((1, 1, 16), dtype="float32") = lv30[1]
            lv33: R.Tensor((1, 1, 16), dtype="float32") = lv30[2]
            lv34: R.Tensor((1, 1, 16), dtype="float32") = lv30[3]
            lv35: R.Tensor((1, 1, 16), dtype="float32") = R.sigmoid(lv31)
            lv36: R.Tensor((1, 1, 16), dtype="float32") = R.sigmoid(lv32)
            lv37: R.Tensor((1, 1, 16), dtype="float32") = R.tanh(lv33)
            lv38: R.Tensor((1, 1, 16), dtype="float32") = R.sigmoid(lv34)
            lv39: R.Tensor((1, 1, 16), dtype="float32") = R.multiply(lv36, lv8)
            lv40: R.Tensor((1, 1, 16), dtype="float32") = R.multiply(lv35, lv37)
            lv41: R.Tensor((1, 1, 16), dtype="float32") = R.add(lv39, lv40)
            lv42: R.Tensor((1, 1, 16), dtype="float32") = R.tanh(lv41)
            lv43: R.Tensor((1, 1, 16), dtype="float32") = R.multiply(lv38, lv42)
            lv44: R.Tensor((1, 16), dtype="float32") = R.reshape(lv43, R.shape([1, 16]))
            lv45: R.Tensor((16, 64), dtype="float32") = R.permute_dims(metadata["ir.GenericConst"][2], axes=[1, 0])
            lv46: R.Tensor((1, 64), dtype="float32") = R.matmul(lv44, lv45, out_dtype="float32")
            lv47: R.Tensor((1, 64), dtype="float32") = R.add(metadata["ir.GenericConst"][3], lv46)
            lv48: R.Tensor((1, 1, 64), dtype="float32") = R.reshape(lv47, R.shape([1, 1, 64]))
            lv49: R.Tensor((1, 1, 64), dtype="float32") = R.add(lv48, lv20)
            lv50: R.Tuple(R.Tensor((1, 1, 16), dtype="float32"), R.Tensor((1, 1, 16), dtype="float32"), R.Tensor((1, 1, 16), dtype="float32"), R.Tensor((1, 1, 16), dtype="float32")) = R.split(lv49, indices_or_sections=[16, 32, 48], axis=2)
            lv51: R.Tensor((1, 1, 16), dtype="float32") = lv50[0]
            lv52: R.Tensor((1, 1, 16), dtype="float32") = lv50[1]
            lv53: R.Tensor((1, 1, 16), dtype="float32") = lv50[2]
            lv54: R.Tensor((1, 1, 16), dtype="float32") = lv50[3]
            lv55: R.Tensor((1, 1, 16), dtype="float32") = R.sigmoid(lv51)
            lv56: R.Tensor((1, 1, 16), dtype="float32") = R.sigmoid(lv52)
            lv57: R.Tensor((1, 1, 16), dtype="float32") = R.tanh(lv53)
            lv58: R.Tensor((1, 1, 16), dtype="float32") = R.sigmoid(lv54)
            lv59: R.Tensor((1, 1, 16), dtype="float32") = R.multiply(lv56, lv41)
            lv60: R.Tensor((1, 1, 16), dtype="float32") = R.multiply(lv55, lv57)
            lv61: R.Tensor((1, 1, 16), dtype="float32") = R.add(lv59, lv60)
            lv62: R.Tensor((1, 1, 16), dtype="float32") = R.tanh(lv61)
            lv63: R.Tensor((1, 1, 16), dtype="float32") = R.multiply(lv58, lv62)
            lv64: R.Tensor((1, 16), dtype="float32") = R.reshape(lv63, R.shape([1, 16]))
            lv65: R.Tensor((16, 64), dtype="float32") = R.permute_dims(metadata["ir.GenericConst"][2], axes=[1, 0])
            lv66: R.Tensor((1, 64), dtype="float32") = R.matmul(lv64, lv65, out_dtype="float32")
            lv67: R.Tensor((1, 64), dtype="float32") = R.add(metadata["ir.GenericConst"][3], lv66)
            lv68: R.Tensor((1, 1, 64), dtype="float32") = R.reshape(lv67, R.shape([1, 1, 64]))
            lv69: R.Tensor((1, 1, 64), dtype="float32") = R.add(lv68, lv21)
            lv70: R.Tuple(R.Tensor((1, 1, 16), dtype="float32"), R.Tensor((1, 1, 16), dtype="float32"), R.Tensor((1, 1, 16), dtype="float32"), R.Tensor((1, 1, 16), dtype="float32")) = R.split(lv69, indices_or_sections=[16, 32, 48], axis=2)
            lv71: R.Tensor((1, 1, 16), dtype="float32") = lv70[0]
            lv72: R.Tensor((1, 1, 16), dtype="float32") = lv70[1]
            lv73: R.Tensor((1, 1, 16), dtype="float32") = lv70[2]
            lv74: R.Tensor((1, 1, 16), dtype="float32") = lv70[3]
            lv75: R.Tensor((1, 1, 16), dtype="float32") = R.sigmoid(lv71)
            lv76: R.Tensor((1, 1, 16), dtype="float32") = R.sigmoid(lv72)
            lv77: R.Tensor((1, 1, 16), dtype="float32") = R.tanh(lv73)
            lv78: R.Tensor((1, 1, 16), dtype="float32") = R.sigmoid(lv74)
            lv79: R.Tensor((1, 1, 16), dtype="float32") = R.multiply(lv76, lv61)
            lv80: R.Tensor((1, 1, 16), dtype="float32") = R.multiply(lv75, lv77)
            lv81: R.Tensor((1, 1, 16), dtype="float32") = R.add(lv79, lv80)
            lv82: R.Tensor((1, 1, 16), dtype="float32") = R.tanh(lv81)
            lv83: R.Tensor((1, 1, 16), dtype="float32") = R.multiply(lv78, lv82)
            lv84: R.Tensor((1, 16), dtype="float32") = R.reshape(lv83, R.shape([1, 16]))
            lv85: R.Tensor((16, 64), dtype="float32") = R.permute_dims(metadata["ir.GenericConst"][2], axes=[1, 0])
            lv86: R.Tensor((1, 64), dtype="float32") = R.matmul(lv84, lv85, out_dtype="float32")
            lv87: R.Tensor((1, 64), dtype="float32") = R.add(metadata["ir.GenericConst"][3], lv86)
            lv88: R.Tensor((1, 1, 64), dtype="float32") = R.reshape(lv87, R.shape([1, 1, 64]))
            lv89: R.Tensor((1, 1, 64), dtype="float32") = R.add(lv88, lv22)
            lv90: R.Tuple(R.Tensor((1, 1, 16), dtype="float32"), R.Tensor((1, 1, 16), dtype="float32"), R.Tensor((1, 1, 16), dtype="float32"), R.Tensor((1, 1, 16), dtype="float32")) = R.split(lv89, indices_or_sections=[16, 32, 48], axis=2)
            lv91: R.Tensor((1, 1, 16), dtype="float32") = lv90[0]
            lv92: R.Tensor((1, 1, 16), dtype="float32") = lv90[1]
            lv93: R.Tensor((1, 1, 16), dtype="float32") = lv90[2]
            lv94: R.Tensor((1, 1, 16), dtype="float32") = lv90[3]
            lv95: R.Tensor((1, 1, 16), dtype="float32") = R.sigmoid(lv91)
            lv96: R.Tensor((1, 1, 16), dtype="float32") = R.sigmoid(lv92)
            lv97: R.Tensor((1, 1, 16), dtype="float32") = R.tanh(lv93)
            lv98: R.Tensor((1, 1, 16), dtype="float32") = R.sigmoid(lv94)
            lv99: R.Tensor((1, 1, 16), dtype="float32") = R.multiply(lv96, lv81)
            lv100: R.Tensor((1, 1, 16), dtype="float32") = R.multiply(lv95, lv97)
            lv101: R.Tensor((1, 1, 16), dtype="float32") = R.add(lv99, lv100)
            lv102: R.Tensor((1, 1, 16), dtype="float32") = R.tanh(lv101)
            lv103: R.Tensor((1, 1, 16), dtype="float32") = R.multiply(lv98, lv102)
            lv104: R.Tensor((1, 16), dtype="float32") = R.reshape(lv103, R.shape([1, 16]))
            lv105: R.Tensor((16, 64), dtype="float32") = R.permute_dims(metadata["ir.GenericConst"][2], axes=[1, 0])
            lv106: R.Tensor((1, 64), dtype="float32") = R.matmul(lv104, lv105, out_dtype="float32")
            lv107: R.Tensor((1, 64), dtype="float32") = R.add(metadata["ir.GenericConst"][3], lv106)
            lv108: R.Tensor((1, 1, 64), dtype="float32") = R.reshape(lv107, R.shape([1, 1, 64]))
            lv109: R.Tensor((1, 1, 64), dtype="float32") = R.add(lv108, lv23)
            lv110: R.Tuple(R.Tensor((1, 1, 16), dtype="float32"), R.Tensor((1, 1, 16), dtype="float32"), R.Tensor((1, 1, 16), dtype="float32"), R.Tensor((1, 1, 16), dtype="float32")) = R.split(lv109, indices_or_sections=[16, 32, 48], axis=2)
            lv111: R.Tensor((1, 1, 16), dtype="float32") = lv110[0]
            lv112: R.Tensor((1, 1, 16), dtype="float32") = lv110[1]
            lv113: R.Tensor((1, 1, 16), dtype="float32") = lv110[2]
            lv114: R.Tensor((1, 1, 16), dtype="float32") = lv110[3]
            lv115: R.Tensor((1, 1, 16), dtype="float32") = R.sigmoid(lv111)
            lv116: R.Tensor((1, 1, 16), dtype="float32") = R.sigmoid(lv112)
            lv117: R.Tensor((1, 1, 16), dtype="float32") = R.tanh(lv113)
            lv118: R.Tensor((1, 1, 16), dtype="float32") = R.sigmoid(lv114)
            lv119: R.Tensor((1, 1, 16), dtype="float32") = R.multiply(lv116, lv101)
            lv120: R.Tensor((1, 1, 16), dtype="float32") = R.multiply(lv115, lv117)
            lv121: R.Tensor((1, 1, 16), dtype="float32") = R.add(lv119, lv120)
            lv122: R.Tensor((1, 1, 16), dtype="float32") = R.tanh(lv121)
            lv123: R.Tensor((1, 1, 16), dtype="float32") = R.multiply(lv118, lv122)
            lv124: R.Tensor((5, 1, 16), dtype="float32") = R.concat((lv43, lv63, lv83, lv103, lv123), axis=0)
            lv125: R.Tensor((1, 16), dtype="float32") = R.squeeze(lv123, axis=[0])
            lv126: R.Tensor((1, 16), dtype="float32") = R.squeeze(lv121, axis=[0])
            lv127: R.Tensor((1, 5, 16), dtype="float32") = R.permute_dims(lv124, axes=[1, 0, 2])
            lv128: R.Tensor((1, 16), dtype="float32") = R.concat((lv125,), axis=0)
            lv129: R.Tensor((1, 1, 16), dtype="float32") = R.reshape(lv128, R.shape([1, 1, 16]))
            lv130: R.Tensor((1, 16), dtype="float32") = R.concat((lv126,), axis=0)
            lv131: R.Tensor((1, 1, 16), dtype="float32") = R.reshape(lv130, R.shape([1, 1, 16]))
            gv: R.Tuple(R.Tensor((1, 5, 16), dtype="float32"), R.Tensor((1, 1, 16), dtype="float32"), R.Tensor((1, 1, 16), dtype="float32")) = lv127, lv129, lv131
            R.output(gv)
        return gv

# Metadata omitted. Use show_meta=True in script() method to show it.