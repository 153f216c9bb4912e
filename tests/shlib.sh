#!/bin/bash
# shlib: time spent in a library linked at build time (libhot.so: lib_hot)
# and in one opened with dlopen() 0.3 s into the run (libdl_hot.so:
# dl_hot) is found, symbolized, credited to the right module, and unwound
# back into main.
. "$(dirname "$0")/lib.sh"
skip_unless_ptrace

plan 8
run_ctprof shlib -F 199 -- "$TARGETS/shlib" "$TARGETS/libdl_hot.so" 1.5
check "ctprof exits with the target's status 0" is_status 0
check "a report is printed" has_report
diag "self%: lib_hot $(self_pct lib_hot) dl_hot $(self_pct dl_hot);" \
	"modules: $(module_of lib_hot) $(module_of dl_hot); main cum $(cum_pct main)%"
check "lib_hot self% >= 15" ge "$(self_pct lib_hot)" 15
check "dl_hot self% >= 15" ge "$(self_pct dl_hot)" 15
check "lib_hot's module is [libhot.so]" [ "$(module_of lib_hot)" = "[libhot.so]" ]
check "dl_hot's module is [libdl_hot.so]" [ "$(module_of dl_hot)" = "[libdl_hot.so]" ]
check "main cum% >= 90 (unwound out of both libraries)" ge "$(cum_pct main)" 90
check "main's module is [shlib]" [ "$(module_of main)" = "[shlib]" ]
finish
