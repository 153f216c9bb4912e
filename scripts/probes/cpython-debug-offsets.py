#!/usr/bin/env python3
"""Probe, not product code: decodes CPython 3.13's _Py_DebugOffsets from the
.PyRuntime section of a libpython or python executable (docs/CPYTHON.md, 1.3).

    python3 scripts/probes/cpython-debug-offsets.py /root/.pyenv/versions/3.13.0/lib/libpython3.13.so.1.0
"""
import struct, sys, subprocess
# Parse the _Py_DebugOffsets at the start of the .PyRuntime section (3.13)
path = sys.argv[1]
out = subprocess.check_output(["readelf","-W","-S",path], text=True)
for line in out.splitlines():
    if ".PyRuntime" in line:
        parts = line.split("]")[1].split()
        name, typ, addr, off, size = parts[:5]
        off = int(off,16)
data = open(path,"rb").read()[off:off+584]
names = """cookie version free_threaded
rt.size rt.finalizing rt.interpreters_head
is.size is.id is.next is.threads_head is.gc is.imports_modules is.sysdict is.builtins is.ceval_gil is.gil_runtime_state is.gil_runtime_state_enabled is.gil_runtime_state_locked is.gil_runtime_state_holder
ts.size ts.prev ts.next ts.interp ts.current_frame ts.thread_id ts.native_thread_id ts.datastack_chunk ts.status
if.size if.previous if.executable if.instr_ptr if.localsplus if.owner
co.size co.filename co.name co.qualname co.linetable co.firstlineno co.argcount co.localsplusnames co.localspluskinds co.co_code_adaptive
ob.size ob.ob_type
ty.size ty.tp_name ty.tp_repr ty.tp_flags
tu.size tu.ob_item tu.ob_size
li.size li.ob_item li.ob_size
di.size di.ma_keys di.ma_values
fl.size fl.ob_fval
lo.size lo.lv_tag lo.ob_digit
by.size by.ob_size by.ob_sval
un.size un.state un.length un.asciiobject_size
gc.size gc.collecting""".split()
print("cookie", data[:8])
vals = struct.unpack("<%dQ" % (len(names)-1), data[8:8*len(names)])
for n,v in zip(names[1:], vals):
    print(f"{n:32s} {v:8d} (0x{v:x})")
print("total bytes", 8*len(names))
