#!/usr/bin/env python3
"""Write small JFR files for profkit's tests, by the format's layout.

    jfr-write.py async FILE       a recording shaped as async-profiler writes
                                  one: its type ids, its frame types (C++,
                                  Kernel, C1 compiled), native frames of no
                                  class, its "interval" setting, TLAB events;
                                  every string encoding; two checkpoints a
                                  chunk (a flush, then a delta); two chunks
    jfr-write.py observed FILE    CPU samples with no period setting, 10 ms
                                  apart in each thread
    jfr-write.py many FILE        a pool of 8000 constants no event uses
    jfr-write.py odd FILE         types the reader reads described otherwise
                                  than the JVM describes them
    jfr-write.py bad DIR          the hostile inputs of testdata/bad/jfr/

A chunk is a 68-byte header, then events: each its size and type id
(compressed integers: 7 bits a byte, low first, the ninth byte whole),
then its fields. Event 0 is the metadata (a string table and a tree of
classes and fields), event 1 a checkpoint of constant pools. jfr print
reads what this writes; profkit-convert's tests compare the two.
"""
import struct
import sys


def varint(v, width=0):
    """v compressed; width > 0 pads it to that many bytes, as the JVM
    writes the sizes it patches later."""
    v &= (1 << 64) - 1
    out = bytearray()
    for _ in range(8):
        if v < 0x80 and len(out) + 1 >= width:
            out.append(v)
            return bytes(out)
        out.append((v & 0x7F) | 0x80)
        v >>= 7
    out.append(v & 0xFF)
    return bytes(out)


def string(s, how="utf8"):
    """A string value: null, empty, or UTF-8, UTF-16 chars, Latin-1;
    ("pool", key) is a reference to the string constant of that key."""
    if isinstance(how, tuple):
        return b"\x02" + varint(how[1])
    if s is None:
        return b"\x00"
    if s == "":
        return b"\x01"
    if how == "utf8":
        b = s.encode()
        return b"\x03" + varint(len(b)) + b
    if how == "chars":
        units = s.encode("utf-16-be")
        n = len(units) // 2
        return b"\x04" + varint(n) + b"".join(
            varint(int.from_bytes(units[2 * i:2 * i + 2], "big")) for i in range(n))
    if how == "latin1":
        b = s.encode("latin-1")
        return b"\x05" + varint(len(b)) + b
    raise ValueError(how)


def event(type_id, payload, width=0):
    """An event: its size (itself included), its type, its payload."""
    body = varint(type_id) + payload
    for n in range(1, 10):
        size = varint(len(body) + max(n, width), width)
        if len(size) == max(n, width):
            return size + body
    raise ValueError("event too large")


# ---- the metadata ----

class Metadata:
    """Classes by id: name, supertype, fields (name, type id, pooled,
    array, annotations [(class id, value)])."""

    def __init__(self):
        self.classes = []

    def cls(self, cid, name, fields=(), super_type=None, simple=False):
        self.classes.append((cid, name, super_type, simple, list(fields)))

    def encode(self, strings_as="utf8"):
        table = []
        index = {}

        def s(x):
            if x not in index:
                index[x] = len(table)
                table.append(x)
            return varint(index[x])

        def element(name, attrs, children):
            out = s(name) + varint(len(attrs))
            for k, v in attrs:
                out += s(k) + s(v)
            return out + varint(len(children)) + b"".join(children)

        classes = []
        for cid, name, super_type, simple, fields in self.classes:
            attrs = [("id", str(cid)), ("name", name)]
            if super_type:
                attrs.append(("superType", super_type))
            if simple:
                attrs.append(("simpleType", "true"))
            children = []
            for fname, ftype, pooled, array, notes in fields:
                fattrs = [("name", fname), ("class", str(ftype))]
                if pooled:
                    fattrs.append(("constantPool", "true"))
                if array:
                    fattrs.append(("dimension", "1"))
                children.append(element("field", fattrs, [
                    element("annotation", [("class", str(a)), ("value", v)], [])
                    for a, v in notes]))
            classes.append(element("class", attrs, children))
        tree = element("root", [], [
            element("metadata", [], classes),
            element("region", [("locale", "en_US"), ("gmtOffset", "0")], [])])
        return (varint(len(table)) + b"".join(string(x, strings_as) for x in table)
                + tree)


# async-profiler's type ids (its jfrMetadata.h)
T_BOOLEAN, T_CHAR, T_FLOAT, T_DOUBLE, T_BYTE, T_SHORT, T_INT, T_LONG = 4, 5, 6, 7, 8, 9, 10, 11
T_STRING, T_CLASS, T_THREAD, T_CLASS_LOADER, T_FRAME_TYPE = 20, 21, 22, 23, 24
T_THREAD_STATE, T_STACK_TRACE, T_STACK_FRAME, T_METHOD, T_PACKAGE, T_SYMBOL = 25, 26, 27, 28, 29, 30
T_EXECUTION_SAMPLE, T_ALLOC_IN_NEW_TLAB, T_ALLOC_OUTSIDE_TLAB = 101, 102, 103
T_MONITOR_ENTER, T_THREAD_PARK, T_ACTIVE_RECORDING, T_ACTIVE_SETTING = 104, 105, 107, 108
T_ANNOTATION_TIMESTAMP, T_ANNOTATION_TIMESPAN, T_ANNOTATION_BYTES = 200, 201, 202

TICKS = [(T_ANNOTATION_TIMESTAMP, "TICKS")]
SPAN = [(T_ANNOTATION_TIMESPAN, "TICKS")]
BYTES = [(T_ANNOTATION_BYTES, "BYTES")]


def f(name, ftype, pooled=False, array=False, notes=()):
    return (name, ftype, pooled, array, list(notes))


def async_metadata():
    m = Metadata()
    for cid, name in ((T_BOOLEAN, "boolean"), (T_CHAR, "char"), (T_FLOAT, "float"),
                      (T_DOUBLE, "double"), (T_BYTE, "byte"), (T_SHORT, "short"),
                      (T_INT, "int"), (T_LONG, "long"), (T_STRING, "java.lang.String")):
        m.cls(cid, name)
    m.cls(T_ANNOTATION_TIMESTAMP, "jdk.jfr.Timestamp", [f("value", T_STRING)],
          "java.lang.annotation.Annotation")
    m.cls(T_ANNOTATION_TIMESPAN, "jdk.jfr.Timespan", [f("value", T_STRING)],
          "java.lang.annotation.Annotation")
    m.cls(T_ANNOTATION_BYTES, "jdk.jfr.DataAmount", [f("value", T_STRING)],
          "java.lang.annotation.Annotation")
    m.cls(T_CLASS, "java.lang.Class", [
        f("classLoader", T_CLASS_LOADER, True), f("name", T_SYMBOL, True),
        f("package", T_PACKAGE, True), f("modifiers", T_INT)])
    m.cls(T_CLASS_LOADER, "jdk.types.ClassLoader", [
        f("type", T_CLASS, True), f("name", T_SYMBOL, True)])
    m.cls(T_PACKAGE, "jdk.types.Package", [f("name", T_SYMBOL, True)])
    m.cls(T_THREAD, "java.lang.Thread", [
        f("osName", T_STRING), f("osThreadId", T_LONG), f("javaName", T_STRING),
        f("javaThreadId", T_LONG)])
    m.cls(T_FRAME_TYPE, "jdk.types.FrameType", [f("description", T_STRING)], simple=True)
    m.cls(T_THREAD_STATE, "jdk.types.ThreadState", [f("name", T_STRING)], simple=True)
    m.cls(T_STACK_TRACE, "jdk.types.StackTrace", [
        f("truncated", T_BOOLEAN), f("frames", T_STACK_FRAME, array=True)])
    m.cls(T_STACK_FRAME, "jdk.types.StackFrame", [
        f("method", T_METHOD, True), f("lineNumber", T_INT),
        f("bytecodeIndex", T_INT), f("type", T_FRAME_TYPE, True)])
    m.cls(T_METHOD, "jdk.types.Method", [
        f("type", T_CLASS, True), f("name", T_SYMBOL, True),
        f("descriptor", T_SYMBOL, True), f("modifiers", T_INT), f("hidden", T_BOOLEAN)])
    m.cls(T_SYMBOL, "jdk.types.Symbol", [f("string", T_STRING)], simple=True)
    start = [f("startTime", T_LONG, notes=TICKS)]
    m.cls(T_EXECUTION_SAMPLE, "jdk.ExecutionSample", start + [
        f("sampledThread", T_THREAD, True), f("stackTrace", T_STACK_TRACE, True),
        f("state", T_THREAD_STATE, True)], "jdk.jfr.Event")
    m.cls(T_ALLOC_IN_NEW_TLAB, "jdk.ObjectAllocationInNewTLAB", start + [
        f("eventThread", T_THREAD, True), f("stackTrace", T_STACK_TRACE, True),
        f("objectClass", T_CLASS, True), f("allocationSize", T_LONG, notes=BYTES),
        f("tlabSize", T_LONG, notes=BYTES)], "jdk.jfr.Event")
    m.cls(T_ALLOC_OUTSIDE_TLAB, "jdk.ObjectAllocationOutsideTLAB", start + [
        f("eventThread", T_THREAD, True), f("stackTrace", T_STACK_TRACE, True),
        f("objectClass", T_CLASS, True), f("allocationSize", T_LONG, notes=BYTES)],
        "jdk.jfr.Event")
    lock = start + [f("duration", T_LONG, notes=SPAN), f("eventThread", T_THREAD, True),
                    f("stackTrace", T_STACK_TRACE, True)]
    m.cls(T_MONITOR_ENTER, "jdk.JavaMonitorEnter", lock + [
        f("monitorClass", T_CLASS, True), f("previousOwner", T_THREAD, True),
        f("address", T_LONG)], "jdk.jfr.Event")
    m.cls(T_THREAD_PARK, "jdk.ThreadPark", lock + [
        f("parkedClass", T_CLASS, True), f("timeout", T_LONG), f("until", T_LONG),
        f("address", T_LONG)], "jdk.jfr.Event")
    m.cls(T_ACTIVE_RECORDING, "jdk.ActiveRecording", start + [
        f("name", T_STRING)], "jdk.jfr.Event")
    m.cls(T_ACTIVE_SETTING, "jdk.ActiveSetting", start + [
        f("duration", T_LONG, notes=SPAN), f("eventThread", T_THREAD, True),
        f("id", T_LONG), f("name", T_STRING), f("value", T_STRING)], "jdk.jfr.Event")
    return m


# ---- constant pools and chunks ----

def pool(type_id, entries):
    """A pool: its type, then (key, value bytes) entries."""
    return varint(type_id) + varint(len(entries)) + b"".join(
        varint(k) + v for k, v in entries)


def checkpoint(pools, delta, flags=1):
    body = varint(0) + varint(0) + varint(delta) + bytes([flags]) + varint(len(pools))
    return event(1, body + b"".join(pools), width=5)


def chunk(metadata, parts, start_nanos, duration_nanos, tps, cp_index=None,
          metadata_first=True):
    """parts: bytes of events and ("checkpoint", pools) placeholders, in
    order; the checkpoints get their deltas to the one before. The header
    points at the last checkpoint and at the metadata."""
    meta = event(0, varint(0) + varint(0) + varint(0) + metadata, width=5)
    body = bytearray()
    offsets = {}
    pos = 68
    if metadata_first:
        offsets["meta"] = pos
        body += meta
        pos += len(meta)
    last_cp = 0
    for part in parts:
        if isinstance(part, tuple):
            delta = last_cp - pos if last_cp else 0
            ev = checkpoint(part[1], delta)
            last_cp = pos
        else:
            ev = part
        body += ev
        pos += len(ev)
    if not metadata_first:
        offsets["meta"] = pos
        body += meta
        pos += len(meta)
    header = b"FLR\0" + struct.pack(">HHqqqqqqq", 2, 0, pos, last_cp, offsets["meta"],
                                    start_nanos, duration_nanos, 0, tps)
    header += b"\0\0\0\1"	# state, and flags: compressed integers
    return header + bytes(body)


def frame(method, line, bci, ftype):
    return varint(method) + varint(line & 0xFFFFFFFF) + varint(bci) + varint(ftype)


def trace(frames, truncated=False):
    return bytes([truncated]) + varint(len(frames)) + b"".join(frame(*x) for x in frames)


def thread(os_name, tid, java_name, java_tid, how=("utf8", "utf8")):
    return string(os_name, how[0]) + varint(tid) + string(java_name, how[1]) + varint(java_tid)


# frame types as async-profiler numbers them
INTERPRETED, JIT, INLINED, NATIVE, CPP, KERNEL, C1 = range(7)
FRAME_TYPES = ["Interpreted", "JIT compiled", "Inlined", "Native", "C++", "Kernel",
               "C1 compiled"]

TPS = 2_000_000_000	# ticks a second: a TSC, as async-profiler counts (whole GHz:
			# jfr print divides by the tick rate in whole GHz)
START = 1_700_000_000_000_000_000


def async_chunk(n, key_base):
    """One chunk; keys start at key_base, so that each chunk has its own."""
    k = lambda i: key_base + i
    m = async_metadata().encode()
    sym = {  # symbols, their keys, and how each is written
        "": (k(1), "utf8"), "com/example/App": (k(2), "utf8"),
        "java/lang/Thread": (k(3), "latin1"), "run": (k(4), "chars"),
        "main": (k(5), "utf8"), "work": (k(6), ("pool", k(900))),
        "hash": (k(7), "utf8"), "java/util/HashMap": (k(8), "utf8"),
        "__memmove_avx_unaligned_erms": (k(9), "utf8"),
        "JavaThread::thread_main_inner()": (k(10), "utf8"),
        "do_syscall_64": (k(11), "utf8"), "c1Compiled": (k(12), "utf8"),
        "com/example/Café": (k(13), "latin1"), "naïve\U0001F600": (k(14), "chars"),
        "()V": (k(15), "utf8"), "(Ljava/lang/Object;)I": (k(16), "utf8"),
        "[B": (k(17), "utf8"), "java/lang/Object": (k(18), "utf8"),
    }
    strings = [(k(900), string("work")), (k(901), string("worker 1")),
               (k(902), string("Interpreted"))]
    classes = {"": k(20), "com/example/App": k(21), "java/lang/Thread": k(22),
               "java/util/HashMap": k(23), "com/example/Café": k(24), "[B": k(25),
               "java/lang/Object": k(26)}
    methods = {  # key: (class, name, descriptor)
        k(30): ("com/example/App", "main", "()V"), k(31): ("com/example/App", "work", "()V"),
        k(32): ("java/lang/Thread", "run", "()V"),
        k(33): ("java/util/HashMap", "hash", "(Ljava/lang/Object;)I"),
        k(34): ("", "__memmove_avx_unaligned_erms", ""),
        k(35): ("", "JavaThread::thread_main_inner()", ""),
        k(36): ("", "do_syscall_64", ""), k(37): ("com/example/App", "c1Compiled", "()V"),
        k(38): ("com/example/Café", "naïve\U0001F600", "()V"),
    }
    threads = [(k(40), thread("main", 100, "main", 1)),
               (k(41), thread("worker 1", 101, None, 12, ("utf8", ("pool", k(901))))),
               (k(42), thread("GC Thread#0", 102, None, 0))]
    frame_types = [(k(60) + i, string(d, ("pool", k(902))) if d == "Interpreted" else string(d))
                   for i, d in enumerate(FRAME_TYPES)]
    cls_entries = [(key, varint(0) + varint(sym[name][0]) + varint(0) + varint(1))
                   for name, key in classes.items()]
    meth_entries = [(key, varint(classes[c]) + varint(sym[nm][0]) + varint(sym[d][0])
                     + varint(1) + b"\0") for key, (c, nm, d) in methods.items()]
    sym_entries = [(key, string(s, how)) for s, (key, how) in sym.items()]
    # stacks, leaf first: (method, line, bci, frame type)
    def st(frames, truncated=False):
        return trace([(mk, ln, bci, k(60) + t) for mk, ln, bci, t in frames], truncated)
    stack_entries = [
        (k(50), st([(k(33), 339, 2, INLINED), (k(31), 20, 7, JIT), (k(30), 10, 3, INTERPRETED)])),
        (k(51), st([(k(34), -1, 0, NATIVE), (k(36), -1, 0, KERNEL), (k(37), 30, 0, C1),
                    (k(31), 21, 9, JIT), (k(32), 840, 1, INTERPRETED)])),
        (k(52), st([(k(35), -1, 0, CPP)])),
        (k(53), st([(k(38), 5, 0, JIT), (k(30), 11, 4, INTERPRETED)], truncated=True)),
        (k(54), st([])),
    ]
    states = [(k(70), string("STATE_RUNNABLE"))]

    t0 = 1000
    ev = []
    tick = lambda ms: t0 + ms * TPS // 1000
    sample = lambda ms, th, stk: event(T_EXECUTION_SAMPLE, varint(tick(ms)) + varint(th)
                                       + varint(stk) + varint(k(70)))
    # settings first, as async-profiler writes them
    setting = lambda tid, name, value: event(T_ACTIVE_SETTING, varint(tick(0)) + varint(0)
                                             + varint(k(40)) + varint(tid) + string(name)
                                             + string(value))
    ev.append(setting(T_ACTIVE_RECORDING, "event", "cpu"))
    ev.append(setting(T_EXECUTION_SAMPLE, "interval", "10000000"))
    for i in range(6 + n):
        ev.append(sample(10 * i, k(40), k(50)))
    # a flush: the pools so far, threads and strings among them
    parts = ev
    parts.append(("checkpoint", [pool(T_STRING, strings), pool(T_THREAD, threads),
                                 pool(T_FRAME_TYPE, frame_types)]))
    more = []
    for i in range(4):
        more.append(sample(10 * i + 5, k(41), k(51)))
    more.append(sample(3, k(42), k(52)))
    more.append(sample(7, k(40), k(53)))
    more.append(sample(8, k(40), k(54)))
    more.append(sample(9, k(40), 0))		# no stack trace at all
    for i, size in enumerate((512, 1024, 4096)):
        more.append(event(T_ALLOC_IN_NEW_TLAB, varint(tick(20 + i)) + varint(k(41))
                          + varint(k(50)) + varint(k(25)) + varint(size)
                          + varint(size * 64)))
    more.append(event(T_ALLOC_OUTSIDE_TLAB, varint(tick(30)) + varint(k(40))
                      + varint(k(51)) + varint(k(25)) + varint(1 << 20)))
    more.append(event(T_MONITOR_ENTER, varint(tick(40)) + varint(3 * TPS // 1000)
                      + varint(k(41)) + varint(k(50)) + varint(k(26)) + varint(k(40))
                      + varint(0x7F00)))
    more.append(event(T_THREAD_PARK, varint(tick(50)) + varint(TPS // 100 + 7)
                      + varint(k(40)) + varint(k(51)) + varint(k(26)) + varint(0)
                      + varint(0) + varint(0)))
    parts += more
    # the delta: what the events since used
    parts.append(("checkpoint", [pool(T_SYMBOL, sym_entries), pool(T_CLASS, cls_entries),
                                 pool(T_METHOD, meth_entries), pool(T_STACK_TRACE, stack_entries),
                                 pool(T_THREAD_STATE, states)]))
    return chunk(m, parts, START + n * 1_000_000_000, 100_000_000, TPS,
                 metadata_first=(n % 2 == 0))


def write_async(path):
    with open(path, "wb") as out:
        out.write(async_chunk(0, 0))
        out.write(async_chunk(1, 5000))


def write_observed(path):
    """CPU samples, 10 ms apart in each of two threads, and no setting."""
    m = async_metadata().encode()
    th = [(1, thread("a", 10, "a", 1)), (2, thread("b", 11, "b", 2))]
    st = [(3, trace([(4, 1, 0, 5)]))]
    parts = []
    for i in range(20):
        for t in (1, 2):
            parts.append(event(T_EXECUTION_SAMPLE, varint(i * TPS // 100 + t * 1000)
                               + varint(t) + varint(3) + varint(0)))
    parts.append(("checkpoint", [
        pool(T_THREAD, th), pool(T_STACK_TRACE, st),
        pool(T_METHOD, [(4, varint(6) + varint(7) + varint(8) + varint(1) + b"\0")]),
        pool(T_CLASS, [(6, varint(0) + varint(9) + varint(0) + varint(1))]),
        pool(T_SYMBOL, [(7, string("tick")), (8, string("()V")), (9, string("Clock"))]),
        pool(T_FRAME_TYPE, [(5, string("JIT compiled"))])]))
    with open(path, "wb") as out:
        out.write(chunk(m, parts, START, 200_000_000, TPS))


def write_many(path):
    """8000 symbols that no event uses, and one sample."""
    m = async_metadata().encode()
    parts = [event(T_EXECUTION_SAMPLE, varint(1) + varint(1) + varint(0) + varint(0)),
             ("checkpoint", [pool(T_SYMBOL, [(i, string("")) for i in range(8000)]),
                             pool(T_THREAD, [(1, thread("a", 10, "a", 1))])])]
    with open(path, "wb") as out:
        out.write(chunk(m, parts, START, 1, TPS))


def write_odd(path):
    """A stack trace's frames described as a number, a frame type as a
    struct: what the reader cannot take as the JVM's is left out."""
    m = Metadata()
    for cid, name in ((T_LONG, "long"), (T_BOOLEAN, "boolean"), (T_STRING, "java.lang.String")):
        m.cls(cid, name)
    m.cls(T_THREAD, "java.lang.Thread", [f("osName", T_STRING), f("osThreadId", T_LONG)])
    m.cls(T_STACK_TRACE, "jdk.types.StackTrace", [f("truncated", T_BOOLEAN),
                                                  f("frames", T_LONG)])
    m.cls(T_EXECUTION_SAMPLE, "jdk.ExecutionSample", [
        f("startTime", T_LONG), f("sampledThread", T_THREAD, True),
        f("stackTrace", T_STACK_TRACE, True)], "jdk.jfr.Event")
    parts = [event(T_EXECUTION_SAMPLE, varint(1) + varint(1) + varint(2)),
             ("checkpoint", [pool(T_THREAD, [(1, string("odd") + varint(7))]),
                             pool(T_STACK_TRACE, [(2, b"\x00" + varint(12345))])])]
    with open(path, "wb") as out:
        out.write(chunk(m.encode(), parts, START, 1, TPS))


# ---- hostile inputs ----

def bad_cases():
    """name -> bytes: each breaks one rule of the format."""
    good = async_chunk(0, 0)
    cases = {}
    cases["truncated-chunk"] = good[:len(good) * 2 // 3]
    cases["header-only"] = good[:40]
    big = bytearray(good)
    big[8:16] = struct.pack(">q", len(good) + 1000)		# size past the end
    cases["size-past-end"] = bytes(big)
    meta = bytearray(good)
    meta[24:32] = struct.pack(">q", len(good) + 5)
    cases["metadata-past-end"] = bytes(meta)
    zero = bytearray(good)
    zero[8:16] = bytes(8)
    cases["unfinished-chunk"] = bytes(zero)
    v1 = bytearray(good)
    v1[4:8] = struct.pack(">HH", 1, 0)
    cases["version-1"] = bytes(v1)
    # an event whose size is a compressed integer of ten bytes: the
    # ninth ends it, whole, and the size it makes runs past the end
    m = async_metadata().encode()
    cases["varint-ten-bytes"] = chunk(m, [b"\xff" * 10 + b"\x01"], START, 1, TPS)
    # an event of size 0 (it would never end)
    cases["event-size-zero"] = chunk(m, [b"\x00\x65"], START, 1, TPS)
    # a constant pool that claims more entries than its event has bytes
    cases["pool-count-huge"] = chunk(m, [event(1, varint(0) * 3 + b"\x01" + varint(1)
                                               + varint(T_SYMBOL) + varint(1 << 60))],
                                     START, 1, TPS)
    # a string constant that refers to itself
    th = [(1, thread("a", 10, None, 1, ("utf8", ("pool", 2))))]
    cases["cyclic-string"] = chunk(m, [
        event(T_EXECUTION_SAMPLE, varint(1) + varint(1) + varint(0) + varint(0)),
        ("checkpoint", [pool(T_STRING, [(2, string(None, ("pool", 2)))]),
                        pool(T_THREAD, th)])], START, 1, TPS)
    # a struct type that contains itself: skipping one recurses forever
    self_ref = Metadata()
    self_ref.cls(T_LONG, "long")
    self_ref.cls(300, "example.Node", [f("value", T_LONG), f("next", 300)])
    self_ref.cls(301, "example.Event", [f("startTime", T_LONG), f("node", 300)],
                 "jdk.jfr.Event")
    cases["type-contains-itself"] = chunk(self_ref.encode(), [
        ("checkpoint", [pool(300, [(1, varint(5) * 100)])])], START, 1, TPS)
    # metadata elements nested deeper than any writer nests them
    deep = varint(2) + string("root") + string("x")
    tree = b""
    for _ in range(200):
        tree = varint(1) + varint(0) + varint(1 if tree else 0) + tree
    cases["metadata-deep"] = chunk(deep + varint(0) + varint(0) + varint(1) + tree,
                                   [], START, 1, TPS)
    # absurd types: a field of a type that no class has
    absurd = Metadata()
    absurd.cls(T_LONG, "long")
    absurd.cls(302, "example.Event", [f("startTime", T_LONG), f("what", 999999)],
               "jdk.jfr.Event")
    cases["field-of-unknown-type"] = chunk(absurd.encode(), [], START, 1, TPS)
    # two types of one name that the reader reads constants of (the
    # fuzzer's: frames were read by the layout of the other)
    twice = async_metadata()
    twice.cls(99, "jdk.types.Method", [f("name", T_LONG)])
    cases["type-named-twice"] = chunk(twice.encode(), [], START, 1, TPS)
    # a stack trace whose frames array claims more frames than bytes
    cases["frames-past-end"] = chunk(m, [
        event(T_EXECUTION_SAMPLE, varint(1) + varint(0) + varint(1) + varint(0)),
        ("checkpoint", [pool(T_STACK_TRACE, [(1, b"\x00" + varint(1 << 40))])])],
        START, 1, TPS)
    # garbage after a good chunk
    cases["trailing-garbage"] = good + b"this is not a chunk, and it is long enough to be one of its headers" * 2
    return cases


def write_bad(directory):
    for name, data in bad_cases().items():
        with open("%s/%s.jfr" % (directory, name), "wb") as out:
            out.write(data)


if __name__ == "__main__":
    what, where = sys.argv[1], sys.argv[2]
    {"async": write_async, "observed": write_observed, "many": write_many,
     "odd": write_odd, "bad": write_bad}[what](where)
