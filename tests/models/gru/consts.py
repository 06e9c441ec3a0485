# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((1, 5, 8), dtype="float32")) -> R.Tuple(R.Tensor((1, 5, 16), dtype="float32"), R.Tensor((1, 1, 16), dtype="float32")):
        with R.dataflow():
            lv: R.Tensor((1, 1, 16), dtype="float32") = R.full(R.shape([1, 1, 16]), R.const(0.0, "float32"), dtype="float32")
            lv1: R.Tensor((1, 1, 16), dtype="float32") = R.strided_slice(lv, (0,), (0,), (1,), (1,), assume_inbound=False)
            lv2: R.Tensor((1, 16), dtype="float32") = R.squeeze(lv1, axis=[0])
            lv3: R.Tensor((5, 1, 8), dtype="float32") = R.permute_dims(x, axes=[1, 0, 2])
            lv4: R.Tensor((5, 8), dtype="float32") = R.reshape(lv3, R.shape([5, 8]))
            lv5: R.Tensor((8, 48), dtype="float32") = R.permute_dims(metadata["ir.GenericConst"][0], axes=[1, 0])
            lv6: R.Tensor((5, 48), dtype="float32") = R.matmul(lv4, lv5, out_dtype="float32")
            lv7: R.Tensor((5, 48), dtype="float32") = R.add(metadata["ir.GenericConst"][1], lv6)
            lv8: R.Tensor((5, 1, 48), dtype="float32") = R.reshape(lv7, R.shape([5, 1, 48]))
            lv9: R.Tensor((1, 1, 16), dtype="float32") = R.expand_dims(lv2, axis=[0])
            lv10: R.Tensor((1, 1, 48), dtype="float32") = R.strided_slice(lv8, (0,), (0,), (1,), (1,), assume_inbound=False)
            lv11: R.Tensor((1, 1, 48), dtype="float32") = R.strided_slice(lv8, (0,), (1,), (2,), (1,), assume_inbound=False)
            lv12: R.Tensor((1, 1, 48), dtype="float32") = R.strided_slice(lv8, (0,), (2,), (3,), (1,), assume_inbound=False)
            lv13: R.Tensor((1, 1, 48), dtype="float32") = R.strided_slice(lv8, (0,), (3,), (4,), (1,), assume_inbound=False)
            lv14: R.Tensor((1, 1, 48), dtype="float32") = R.strided_slice(lv8, (0,), (4,), (5,), (1,), assume_inbound=False)
            lv15: R.Tensor((1, 48), dtype="float32") = R.squeeze(lv10, axis=[0])
            lv16: R.Tensor((1, 48), dtype="float32") = R.squeeze(lv11, axis=[0])
            lv17: R.Tensor((1, 48), dtype="float32") = R.squeeze(lv12, axis=[0])
            lv18: R.Tensor((1, 48), dtype="float32") = R.squeeze(lv13, axis=[0])
            lv19: R.Tensor((1, 48), dtype="float32") = R.squeeze(lv14, axis=[0])
            lv20: R.Tuple(R.Tensor((1, 16), dtype="float32"), R.Tensor((1, 16), dtype="float32"), R.Tensor((1, 16), dtype="float32")) = R.split(lv15, indices_or_sections=[16, 32], axis=1)
            lv21: R.Tensor((1, 16), dtype="float32") = lv20[0]
            lv22: R.Tensor((1, 16), dtype="float32") = lv20[1]
            lv23: R.Tensor((1, 16), dtype="float32") = lv20[2]
            lv24: R.Tensor((1, 16), dtype="float32") = R.reshape(lv9, R.shape([1, 16]))
            lv25: R.Tensor((16, 48), dtype="float32") = R.permute_dims(metadata["ir.GenericConst"][2], axes=[1, 0])
            lv26: R.Tensor((1, 48), dtype="float32") = R.matmul(lv24, lv25, out_dtype="float32")
            lv27: R.Tensor((1, 48), dtype="float32") = R.add(metadata["ir.GenericConst"][3], lv26)
            lv28: R.Tensor((1, 1, 48), dtype="float32") = R.reshape(lv27, R.shape([1, 1, 48]))
            lv29: R.Tuple(R.Tensor((1, 1, 16), dtype="float32"), R.Tensor((1, 1, 16), dtype="float32"), R.Tensor((1, 1, 16), dtype="float32")) = R.split(lv28, indices_or_sections=[16, 32], axis=2)
            lv30: R.Tensor((1, 1, 16), dtype="float32") = lv29[0]
            lv31: R.Tensor((1, 1, 16), dtype="float32") = lv29[1]
            lv32: R.Tensor((1, 1, 16), dtype="float32") = lv29[2]
            lv33: R.Tensor((1, 1, 16), dtype="float32") = R.add(lv30, lv21)
            lv34: R.Tensor((1, 1, 16), dtype="float32") = R.sigmoid(lv33)
            lv35: R.Tensor((1, 1, 16), dtype="float32") = R.add(lv31, lv22)
            lv36: R.Tensor((1, 1, 16), dtype="float32") = R.sigmoid(lv35)
            lv37: R.Tensor((1, 1, 16), dtype="float32") = R.multiply(lv32, lv34)
            lv38: R.Tensor((1, 1, 16), dtype="float32") = R.add(lv23, lv37)
            lv39: R.Tensor((1, 1, 16), dtype="float32") = R.tanh(lv38)
            lv40: R.Tensor((1, 1, 16), dtype="float32") = R.subtract(lv9, lv39)
            lv41: R.Tensor((1, 1, 16), dtype="float32") = R.multiply(lv40, lv36)
            lv42: R.Tensor((1, 1, 16), dtype="float32") = R.add(lv41, lv39)
            lv43: R.Tuple(R.Tensor((1, 16), dtype="float32"), R.Tensor((1, 16), dtype="float32"), R.Tensor((1, 16), dtype="float32")) = R.split(lv16, indices_or_sections=[16, 32], axis=1)
            lv44: R.Tensor((1, 16), dtype="float32") = lv43[0]
            lv45: R.Tensor((1, 16), dtype="float32") = lv43[1]
            lv46: R.Tensor((1, 16), dtype="float32") = lv43[2]
            lv47: R.Tensor((1, 16), dtype="float32") = R.reshape(lv42, R.shape([1, 16]))
            lv48: R.Tensor((16, 48), dtype="float32") = R.permute_dims(metadata["ir.GenericConst"][2], axes=[1, 0])
            lv49: R.Tensor((1, 48), dtype="float32") = R.matmul(lv47, lv48, out_dtype="float32")
            lv50: R.Tensor((1, 48), dtype="float32") = R.add(metadata["ir.GenericConst"][3], lv49)
            lv51: R.Tensor((1, 1, 48), dtype="float32") = R.reshape(lv50, R.shape([1, 1, 48]))
            lv52: R.Tuple(R.Tensor((1, 1, 16), dtype="float32"), R.Tensor((1, 1, 16), dtype="float32"), R.Tensor((1, 1, 16), dtype="float32")) = R.split(lv51, indices_or_sections=[16, 32], axis=2)
            lv53: R.Tensor((1, 1, 16), dtype="float32") = lv52[0]
            lv54: R.Tensor((1, 1, 16), dtype="float32") = lv52[1]
            lv55: R.Tensor((1, 1, 16), dtype="float32") = lv52[2]
            lv56: R.Tensor((1, 1, 16), dtype="float32") = R.add(lv53, lv44)
            lv57: R.Tensor((1, 1, 16), dtype="float32") = R.sigmoid(lv56)
            lv58: R.Tensor((1, 1, 16), dtype="float32") = R.add(lv54, lv45)
            lv59: R.Tensor((1, 1, 16), dtype="float32") = R.sigmoid(lv58)
            lv60: R.Tensor((1, 1, 16), dtype="float32") = R.multiply(lv55, lv57)
            lv61: R.Tensor((1, 1, 16), dtype="float32") = R.add(lv46, lv60)
            lv62: R.Tensor((1, 1, 16), dtype="float32") = R.tanh(lv61)
            lv63: R.Tensor((1, 1, 16), dtype="float32") = R.subtract(lv42, lv62)
            lv64: R.Tensor((1, 1, 16), dtype="float32") = R.multiply(lv63, lv59)
            lv65: R.Tensor((1, 1, 16), dtype="float32") = R.add(lv64, lv62)
            lv66: R.Tuple(R.Tensor((1, 16), dtype="float32"), R.Tensor((1, 16), dtype="float32"), R.Tensor((1, 16), dtype="float32")) = R.split(lv17, indices_or_sections=[16, 32], axis=1)
            lv67: R.Tensor((1, 16), dtype="float32") = lv66[0]
            lv68: R.Tensor((1, 16), dtype="float32") = lv66[1]
            lv69: R.Tensor((1, 16), dtype="float32") = lv66[2]
            lv70: R.Tensor((1, 16), dtype="float32") = R.reshape(lv65, R.shape([1, 16]))
            lv71: R.Tensor((16, 48), dtype="float32") = R.permute_dims(metadata["ir.GenericConst"][2], axes=[1, 0])
            lv72: R.Tensor((1, 48), dtype="float32") = R.matmul(lv70, lv71, out_dtype="float32")
            lv73: R.Tensor((1, 48), dtype="float32") = R.add(metadata["ir.GenericConst"][3], lv72)
            lv74: R.Tensor((1, 1, 48), dtype="float32") = R.reshape(lv73, R.shape([1, 1, 48]))
            lv75: R.Tuple(R.Tensor((1, 1, 16), dtype="float32"), R.Tensor((1, 1, 16), dtype="float32"), R.Tensor((1, 1, 16), dtype="float32")) = R.split(lv74, indices_or_sections=[16, 32], axis=2)
            lv76: R.Tensor((1, 1, 16), dtype="float32") = lv75[0]
            lv77: R.Tensor((1, 1, 16), dtype="float32") = lv75[1]
            lv78: R.Tensor((1, 1, 16), dtype="float32") = lv75[2]
            lv79: R.Tensor((1, 1, 16), dtype="float32") = R.add(lv76, lv67)
            lv80: R.Tensor((1, 1, 16), dtype="float32") = R.sigmoid(lv79)
            lv81: R.Tensor((1, 1, 16), dtype="float32") = R.add(lv77, lv68)
            lv82: R.Tensor((1, 1, 16), dtype="float32") = R.sigmoid(lv81)
            lv83: R.Tensor((1, 1, 16), dtype="float32") = R.multiply(lv78, lv80)
            lv84: R.Tensor((1, 1, 16), dtype="float32") = R.add(lv69, lv83)
            lv85: R.Tensor((1, 1, 16), dtype="float32") = R.tanh(lv84)
            lv86: R.Tensor((1, 1, 16), dtype="float32") = R.subtract(lv65, lv85)
            lv87: R.Tensor((1, 1, 16), dtype="float32") = R.multiply(lv86, lv82)
            lv88: R.Tensor((1, 1, 16), dtype="float32") = R.add(lv87, lv85)
            lv89: R.Tuple(R.Tensor((1, 16), dtype="float32"), R.Tensor((1, 16), dtype="float32"), R.Tensor((1, 16), dtype="float32")) = R.split(lv18, indices_or_sections=[16, 32], axis=1)
            lv90: R.Tensor((1, 16), dtype="float32") = lv89[0]
            lv91: R.Tensor((1, 16), dtype="float32") = lv89[1]
            lv92: R.Tensor((1, 16), dtype="float32") = lv89[2]
            lv93: R.Tensor((1, 16), dtype="float32") = R.reshape(lv88, R.shape([1, 16]))
            lv94: R.Tensor((16, 48), dtype="float32") = R.permute_dims(metadata["ir.GenericConst"][2], axes=[1, 0])
            lv95: R.Tensor((1, 48), dtype="float32") = R.matmul(lv93, lv94, out_dtype="float32")
            lv96: R.Tensor((1, 48), dtype="float32") = R.add(metadata["ir.GenericConst"][3], lv95)
            lv97: R.Tensor((1, 1, 48), dtype="float32") = R.reshape(lv96, R.shape([1, 1, 48]))
            lv98: R.Tuple(R.Tensor((1, 1, 16), dtype="float32"), R.Tensor((1, 1, 16), dtype="float32"), R.Tensor((1, 1, 16), dtype="float32")) = R.split(lv97, indices_or_sections=[16, 32], axis=2)
            lv99: R.Tensor((1, 1, 16), dtype="float32") = lv98[0]
            lv100: R.Tensor((1, 1, 16), dtype="float32") = lv98[1]
            lv101: R.Tensor((1, 1, 16), dtype="float32") = lv98[2]
            lv102: R.Tensor((1, 1, 16), dtype="float32") = R.add(lv99, lv90)
            lv103: R.Tensor((1, 1, 16), dtype="float32") = R.sigmoid(lv102)
            lv104: R.Tensor((1, 1, 16), dtype="float32") = R.add(lv100, lv91)
            lv105: R.Tensor((1, 1, 16), dtype="float32") = R.sigmoid(lv104)
            lv106: R.Tensor((1, 1, 16), dtype="float32") = R.multiply(lv101, lv103)
            lv107: R.Tensor((1, 1, 16), dtype="float32") = R.add(lv92, lv106)
            lv108: R.Tensor((1, 1, 16), dtype="float32") = R.tanh(lv107)
            lv109: R.Tensor((1, 1, 16), dtype="float32") = R.subtract(lv88, lv108)
            lv110: R.Tensor((1, 1, 16), dtype="float32") = R.multiply(lv109, lv105)
            lv111: R.Tensor((1, 1, 16), dtype="float32") = R.add(lv110, lv108)
            lv112: R.Tuple(R.Tensor((1, 16), dtype="float32"), R.Tensor((1, 16), dtype="float32"), R.Tensor((1, 16), dtype="float32")) = R.split(lv19, indices_or_sections=[16, 32], axis=1)
            lv113: R.Tensor((1, 16), dtype="float32") = lv112[0]
            lv114: R.Tensor((1, 16), dtype="float32") = lv112[1]
            lv115: R.Tensor((1, 16), dtype="float32") = lv112[2]
            lv116: R.Tensor((1, 16), dtype="float32") = R.reshape(lv111, R.shape([1, 16]))
            lv117: R.Tensor((16, 48), dtype="float32") = R.permute_dims(metadata["ir.GenericConst"][2], axes=[1, 0])
            lv118: R.Tensor((1, 48), dtype="float32") = R.matmul(lv116, lv117, out_dtype="float32")
            lv119: R.Tensor((1, 48), dtype="float32") = R.add(metadata["ir.GenericConst"][3], lv118)
            lv120: R.Tensor((1, 1, 48), dtype="float32") = R.reshape(lv119, R.shape([1, 1, 48]))
            lv121: R.Tuple(R.Tensor((1, 1, 16), dtype="float32"), R.Tensor((1, 1, 16), dtype="float32"), R.Tensor((1, 1, 16), dtype="float32")) = R.split(lv120, indices_or_sections=[16, 32], axis=2)
            lv122: R.Tensor((1, 1, 16), dtype="float32") = lv121[0]
            lv123: R.Tensor((1, 1, 16), dtype="float32") = lv121[1]
            lv124: R.Tensor((1, 1, 16), dtype="float32") = lv121[2]
            lv125: R.Tensor((1, 1, 16), dtype="float32") = R.add(lv122, lv113)
            lv126: R.Tensor((1, 1, 16), dtype="float32") = R.sigmoid(lv125)
            lv127: R.Tensor((1, 1, 16), dtype="float32") = R.add(lv123, lv114)
            lv128: R.Tensor((1, 1, 16), dtype="float32") = R.sigmoid(lv127)
            lv129: R.Tensor((1, 1, 16), dtype="float32") = R.multiply(lv124, lv126)
            lv130: R.Tensor((1, 1, 16), dtype="float32") = R.add(lv115, lv129)
            lv131: R.Tensor((1, 1, 16), dtype="float32") = R.tanh(lv130)
            lv132: R.Tensor((1, 1, 16), dtype="float32") = R.subtract(lv111, lv131)
            lv133: R.Tensor((1, 1, 16), dtype="float32") = R.multiply(lv132, lv128)
            lv134: R.Tensor((1, 1, 16), dtype="float32") = R.add(lv133, lv131)
            lv135: R.Tensor((5, 1, 16), dtype="float32") = R.concat((lv42, lv65, lv88, lv111, lv134), axis=0)
            lv136: R.Tensor((1, 16), dtype="float32") = R.squeeze(lv134, axis=[0])
            lv137: R.Tensor((1, 5, 16), dtype="float32") = R.permute_dims(lv135, axes=[1, 0, 2])
            lv138: R.Tensor((1, 16), dtype="float32") = R.concat((lv136,), axis=0)
            lv139: R.Tensor((1, 1, 16), dtype="float32") = R.reshape(lv138, R.shape([1, 1, 16]))
            gv: R.Tuple(R.Tensor((1, 5, 16), dtype="float32"), R.Tensor((1, 1, 16), dtype="float32")) = lv137, lv139
            R.output(gv)
        return gv

# Metadata omitted. Use show_meta=True in script() method to show it.