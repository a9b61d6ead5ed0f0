#!/usr/bin/env python3
# Writes the profiles of this folder: each is one small profile.proto,
# encoded by hand, with one of the faults for which pprof's decoder or
# CheckValid (profile/encode.go, profile/profile.go) rejects a profile;
# unknown-mapping.pb is the one fault pprof accepts (a location's
# mapping id that names no mapping reads as no mapping).
#   cd testdata/pprof/invalid && python3 make.py


def varint(v):
    out = b''
    while True:
        b, v = v & 0x7f, v >> 7
        if not v:
            return out + bytes([b])
        out += bytes([b | 0x80])


def field(n, v):
    return varint(n << 3) + varint(v)


def message(n, b):
    return varint(n << 3 | 2) + varint(len(b)) + b


STRINGS = b''.join(message(6, s.encode())
                   for s in ('', 'samples', 'count', 'main', '/bin/app'))
TYPE = message(1, field(1, 1) + field(2, 2))            # samples/count
FUNCTION = message(5, field(1, 1) + field(2, 3))        # id 1: main
LOCATION = message(4, field(1, 1) + field(3, 0x1000) +  # id 1, main:10
                   message(4, field(1, 1) + field(2, 10)))
SAMPLE = message(2, field(1, 1) + field(2, 5))          # location 1, 5


def location(line_function, mapping=0):
    line = (field(1, line_function) if line_function else b'') + field(2, 10)
    return message(4, field(1, 1) + (field(2, mapping) if mapping else b'') +
                   field(3, 0x1000) + message(4, line))


CASES = {
    'no-sample-type': SAMPLE + LOCATION + FUNCTION + STRINGS,
    'value-count': TYPE + message(2, field(1, 1) + field(2, 5) + field(2, 6)) +
    LOCATION + FUNCTION + STRINGS,
    'unknown-location': TYPE + message(2, field(1, 7) + field(2, 5)) +
    LOCATION + FUNCTION + STRINGS,
    'location-id-zero': TYPE + message(2, field(2, 5)) +
    message(4, field(1, 0) + field(3, 0x1000)) + FUNCTION + STRINGS,
    'mapping-id-zero': TYPE + SAMPLE +
    message(3, field(1, 0) + field(2, 0x1000) + field(3, 0x2000)) +
    LOCATION + FUNCTION + STRINGS,
    'function-id-zero': TYPE + SAMPLE + LOCATION + FUNCTION +
    message(5, field(1, 0) + field(2, 3)) + STRINGS,
    'duplicate-location': TYPE + SAMPLE + LOCATION + LOCATION + FUNCTION + STRINGS,
    'duplicate-mapping': TYPE + SAMPLE + message(3, field(1, 2) + field(2, 0x1000)) +
    message(3, field(1, 2) + field(2, 0x3000)) + LOCATION + FUNCTION + STRINGS,
    'duplicate-function': TYPE + SAMPLE + LOCATION + FUNCTION + FUNCTION + STRINGS,
    'unknown-function': TYPE + SAMPLE + location(9) + FUNCTION + STRINGS,
    'zero-function': TYPE + SAMPLE + location(0) + FUNCTION + STRINGS,
    'unknown-mapping': TYPE + SAMPLE + location(1, mapping=4) + FUNCTION + STRINGS,
}

for name, data in CASES.items():
    with open(name + '.pb', 'wb') as f:
        f.write(data)
