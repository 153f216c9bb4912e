/* cpython-offsets.c - a probe, not product code: prints the offsets of the
 * CPython runtime, interpreter, thread, frame and code structures that
 * docs/CPYTHON.md tabulates, as the installed internal headers lay them
 * out on this CPU.  Build against one interpreter's headers:
 *
 *   V=/root/.pyenv/versions/3.13.0; X=3.13
 *   gcc -w -I$V/include/python$X -I$V/include/python$X/internal \
 *       scripts/probes/cpython-offsets.c -o /tmp/off && /tmp/off
 */
#define Py_BUILD_CORE 1
#include <Python.h>
#include <stddef.h>
#include <stdio.h>
#include "internal/pycore_runtime.h"
#include "internal/pycore_interp.h"
#include "internal/pycore_frame.h"
#include "internal/pycore_code.h"
#define P(T,F) printf("%-28s %-34s %5zu (0x%zx)\n", #T, #F, offsetof(T,F), offsetof(T,F))
#define S(T) printf("%-28s %-34s %5zu (0x%zx)\n", #T, "sizeof", sizeof(T), sizeof(T))
int main(void){
  printf("PY_VERSION %s hex 0x%08x\n", PY_VERSION, PY_VERSION_HEX);
#if PY_VERSION_HEX >= 0x030D0000
  S(_Py_DebugOffsets);
  P(_PyRuntimeState, debug_offsets);
#endif
  S(_PyRuntimeState);
  P(_PyRuntimeState, interpreters.head);
  P(_PyRuntimeState, interpreters.main);
  S(PyInterpreterState);
  P(PyInterpreterState, next);
  P(PyInterpreterState, id);
  P(PyInterpreterState, threads.head);
#if PY_VERSION_HEX >= 0x030C0000
  P(PyInterpreterState, _gil);
  P(PyInterpreterState, _gil.last_holder);
#else
  P(_PyRuntimeState, ceval.gil);
  P(_PyRuntimeState, ceval.gil.last_holder);
  P(_PyRuntimeState, gilstate.tstate_current);
#endif
  S(PyThreadState);
  P(PyThreadState, prev);
  P(PyThreadState, next);
  P(PyThreadState, interp);
#if PY_VERSION_HEX >= 0x030D0000
  P(PyThreadState, current_frame);
#else
  P(PyThreadState, cframe);
  P(_PyCFrame, current_frame);
  P(_PyCFrame, previous);
  S(_PyCFrame);
#endif
#if PY_VERSION_HEX >= 0x030C0000
  P(PyThreadState, _status);
#endif
  P(PyThreadState, thread_id);
  P(PyThreadState, native_thread_id);
  P(PyThreadState, datastack_chunk);
  S(_PyInterpreterFrame);
#if PY_VERSION_HEX >= 0x030D0000
  P(_PyInterpreterFrame, f_executable);
  P(_PyInterpreterFrame, instr_ptr);
#else
  P(_PyInterpreterFrame, f_code);
  P(_PyInterpreterFrame, prev_instr);
#endif
#if PY_VERSION_HEX < 0x030C0000
  P(_PyInterpreterFrame, f_func);
  P(_PyInterpreterFrame, is_entry);
#else
  P(_PyInterpreterFrame, f_funcobj);
  P(_PyInterpreterFrame, return_offset);
#endif
  P(_PyInterpreterFrame, previous);
  P(_PyInterpreterFrame, frame_obj);
  P(_PyInterpreterFrame, stacktop);
  P(_PyInterpreterFrame, owner);
  P(_PyInterpreterFrame, localsplus);
  S(PyCodeObject);
  P(PyCodeObject, ob_base.ob_base.ob_type);
  P(PyCodeObject, co_filename);
  P(PyCodeObject, co_name);
  P(PyCodeObject, co_qualname);
  P(PyCodeObject, co_linetable);
  P(PyCodeObject, co_firstlineno);
  P(PyCodeObject, co_argcount);
  P(PyCodeObject, co_flags);
  P(PyCodeObject, _co_firsttraceable);
  P(PyCodeObject, co_localsplusnames);
  P(PyCodeObject, co_code_adaptive);
  S(PyObject);
  P(PyObject, ob_type);
  P(PyTypeObject, tp_name);
  P(PyTypeObject, tp_flags);
  S(PyASCIIObject);
  S(PyCompactUnicodeObject);
  S(PyUnicodeObject);
  P(PyASCIIObject, length);
  P(PyASCIIObject, hash);
  P(PyASCIIObject, state);
  P(PyCompactUnicodeObject, utf8_length);
  P(PyCompactUnicodeObject, utf8);
  P(PyUnicodeObject, data);
  P(PyBytesObject, ob_base.ob_size);
  P(PyBytesObject, ob_sval);
  {  /* state bits: find bit positions empirically */
    PyASCIIObject a; memset(&a,0,sizeof a);
    a.state.interned = 3; unsigned int w; memcpy(&w, &a.state, 4); printf("state.interned mask 0x%x\n", w);
    memset(&a,0,sizeof a); a.state.kind = 7; memcpy(&w, &a.state, 4); printf("state.kind mask 0x%x\n", w);
    memset(&a,0,sizeof a); a.state.compact = 1; memcpy(&w, &a.state, 4); printf("state.compact mask 0x%x\n", w);
    memset(&a,0,sizeof a); a.state.ascii = 1; memcpy(&w, &a.state, 4); printf("state.ascii mask 0x%x\n", w);
#if PY_VERSION_HEX < 0x030C0000
    memset(&a,0,sizeof a); a.state.ready = 1; memcpy(&w, &a.state, 4); printf("state.ready mask 0x%x\n", w);
#endif
#if PY_VERSION_HEX >= 0x030D0000
    memset(&a,0,sizeof a); a.state.statically_allocated = 1; memcpy(&w, &a.state, 4); printf("state.statically_allocated mask 0x%x\n", w);
#endif
  }
  return 0;
}
