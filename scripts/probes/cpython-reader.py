#!/usr/bin/env python3
"""Probe, not product code: reads a live CPython 3.11-3.13 process's Python
stacks from outside, with the offsets of docs/CPYTHON.md, to check them
against the interpreter's own tracebacks (cpython-target.py prints those).

    python3 scripts/probes/cpython-reader.py PID
"""
import struct, sys, subprocess, re, os

pid = int(sys.argv[1])
mem = open(f"/proc/{pid}/mem", "rb", buffering=0)
def rd(addr, n):
    mem.seek(addr); return mem.read(n)
def u64(a): return struct.unpack("<Q", rd(a, 8))[0]
def i64(a): return struct.unpack("<q", rd(a, 8))[0]
def u32(a): return struct.unpack("<I", rd(a, 4))[0]
def i32(a): return struct.unpack("<i", rd(a, 4))[0]
def u8(a):  return rd(a, 1)[0]

# ---- locate _PyRuntime / Py_Version via .dynsym of the mapped python or libpython
maps = [l.split() for l in open(f"/proc/{pid}/maps")]
cands = []
for m in maps:
    if len(m) >= 6 and re.search(r"(libpython3\.\d+t?\.so[.0-9]*|/python3(\.\d+t?)?)$", m[5]) and m[5] not in [c[0] for c in cands]:
        cands.append((m[5], m))
def dynsym(path, name):
    out = subprocess.check_output(["readelf", "-W", "--dyn-syms", path], text=True)
    for l in out.splitlines():
        f = l.split()
        if len(f) >= 8 and f[7] == name and f[6] != "UND":
            return int(f[1], 16)
def load_base(path):
    hdr = subprocess.check_output(["readelf", "-W", "-h", path], text=True)
    if "EXEC" in hdr: return 0
    ph = subprocess.check_output(["readelf", "-W", "-l", path], text=True)
    first_vaddr = min(int(l.split()[2], 16) for l in ph.splitlines() if l.strip().startswith("LOAD"))
    for m in maps:
        if len(m) >= 6 and m[5] == path and int(m[2], 16) == 0:
            return int(m[0].split("-")[0], 16) - first_vaddr
for path, _ in cands:
    sym = dynsym(path, "_PyRuntime")
    if sym:
        base = load_base(path)
        runtime = base + sym
        pyver = u64(base + dynsym(path, "Py_Version"))
        break
major, minor = (pyver >> 24) & 0xff, (pyver >> 16) & 0xff
print(f"binary={path} base=0x{base:x} _PyRuntime=0x{runtime:x} Py_Version=0x{pyver:08x} ({major}.{minor}.{(pyver>>8)&0xff})")

# ---- per-version offsets (computed with offsetof against the installed internal headers)
O = {
 (3,11): dict(interpreters_head=40, threads_head=16, ts_next=8, ts_native_tid=160, ts_thread_id=152,
              ts_cframe=56, cframe_current=8, ts_current_frame=None,
              f_code=32, f_previous=48, f_instr=56, f_is_entry=68, f_owner=69,
              co_filename=112, co_name=120, co_qualname=128, co_linetable=136, co_firstlineno=72, co_code_adaptive=184,
              ascii_size=48, compact_size=72),
 (3,12): dict(interpreters_head=40, threads_head=72, ts_next=8, ts_native_tid=144, ts_thread_id=136,
              ts_cframe=56, cframe_current=0, ts_current_frame=None,
              f_code=0, f_previous=8, f_instr=56, f_is_entry=None, f_owner=70,
              co_filename=112, co_name=120, co_qualname=128, co_linetable=136, co_firstlineno=68, co_code_adaptive=192,
              ascii_size=40, compact_size=56),
}
if (major, minor) >= (3, 13):
    d = rd(runtime, 584)
    assert d[:8] == b"xdebugpy", d[:8]
    q = lambda i: struct.unpack_from("<Q", d, 8 * i)[0]
    print(f"debug_offsets cookie ok, version=0x{q(1):08x} free_threaded={q(2)}")
    # indexes into the array of uint64 (see _Py_DebugOffsets layout in pycore_runtime.h 3.13)
    O[(3,13)] = dict(interpreters_head=q(5), threads_head=q(9), ts_next=q(21), ts_native_tid=q(25), ts_thread_id=q(24),
              ts_cframe=None, cframe_current=None, ts_current_frame=q(23),
              f_code=q(30), f_previous=q(29), f_instr=q(31), f_is_entry=None, f_owner=q(33),
              co_filename=q(35), co_name=q(36), co_qualname=q(37), co_linetable=q(38), co_firstlineno=q(39), co_code_adaptive=q(43),
              ascii_size=q(70), compact_size=56)
    print({k: v for k, v in O[(3,13)].items()})
off = O[(major, minor)]

def read_str(a):
    state = u32(a + 32); length = i64(a + 16)
    kind = (state >> 2) & 7; compact = (state >> 5) & 1; ascii_ = (state >> 6) & 1
    if compact and ascii_: data = a + off["ascii_size"]
    elif compact: data = a + off["compact_size"]
    else: data = u64(a + off["compact_size"])  # PyUnicodeObject.data.any
    raw = rd(data, length * kind)
    return raw.decode({1: "latin-1", 2: "utf-16-le", 4: "utf-32-le"}[kind])

def read_bytes(a):
    return rd(a + 32, i64(a + 16))

def varint(t, i):
    b = t[i]; i += 1; v = b & 63; s = 0
    while b & 64:
        b = t[i]; i += 1; s += 6; v |= (b & 63) << s
    return v, i
def svarint(t, i):
    v, i = varint(t, i)
    return (-(v >> 1) if v & 1 else (v >> 1)), i

def addr2line(table, firstlineno, addrq):
    """addrq = byte offset of the instruction in co_code_adaptive. Mirrors PyCode_Addr2Line."""
    line = firstlineno; start = 0; i = 0
    while i < len(table):
        b = table[i]; i += 1
        assert b & 0x80
        code = (b >> 3) & 15; end = start + ((b & 7) + 1) * 2
        if code == 15: delta = 0; entry_line = None
        elif code == 14:
            delta, i = svarint(table, i); _, i = varint(table, i); _, i = varint(table, i); _, i = varint(table, i)
        elif code == 13: delta, i = svarint(table, i)
        elif code >= 10: delta = code - 10; i += 2
        else: delta = 0; i += 1
        line += delta
        if start <= addrq < end:
            return None if code == 15 else line
        start = end
    return None

ts = u64(u64(runtime + off["interpreters_head"]) + off["threads_head"])
while ts:
    tid = i64(ts + off["ts_native_tid"])
    if off["ts_current_frame"] is not None:
        frame = u64(ts + off["ts_current_frame"])
    else:
        cf = u64(ts + off["ts_cframe"])
        frame = u64(cf + off["cframe_current"]) if cf else 0
    print(f"--- tstate 0x{ts:x} native_thread_id={tid} pthread_id=0x{u64(ts + off['ts_thread_id']):x}")
    groups = 1; n = 0
    while frame and n < 256:
        n += 1
        owner = u8(frame + off["f_owner"])
        code = u64(frame + off["f_code"])
        if (major, minor) >= (3, 12) and owner == 3:
            print(f"    [shim/entry frame @0x{frame:x} owner=CSTACK f_code/f_executable=0x{code:x}]  <-- boundary: one _PyEval_EvalFrameDefault ends here")
            groups += 1
            frame = u64(frame + off["f_previous"]); continue
        instr = u64(frame + off["f_instr"])
        addrq = instr - (code + off["co_code_adaptive"])
        qual = read_str(u64(code + off["co_qualname"])); fn = read_str(u64(code + off["co_filename"]))
        line = addr2line(read_bytes(u64(code + off["co_linetable"])), i32(code + off["co_firstlineno"]), addrq)
        ent = ""
        if off["f_is_entry"] is not None and u8(frame + off["f_is_entry"]):
            ent = "  <-- is_entry: first frame of a _PyEval_EvalFrameDefault call"; groups += 1
        print(f"    @0x{frame:x} {qual} ({os.path.basename(fn)}:{line}) owner={owner} addrq={addrq}{ent}")
        frame = u64(frame + off["f_previous"])
    ts = u64(ts + off["ts_next"])
