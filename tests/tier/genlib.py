"""genlib.py - what the generators of tests/tier (gen_cvt.py, gen_minmax.py) share: the bit
patterns of floats, as the .ptx files they write spell their operands."""
import struct


def f32(x):
    return struct.unpack('<I', struct.pack('<f', x))[0]


def f64(x):
    return struct.unpack('<Q', struct.pack('<d', x))[0]
