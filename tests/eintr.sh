#!/bin/bash
# EINTR: a loopback echo server (threads in epoll_wait and read, a client
# doing request/response with pauses) sees no EINTR and no failed request
# while profiled at 999 Hz, nor when ctprof attaches and detaches (detach
# stops every thread, blocked ones included: ctprof hands each interrupted
# system call back to the kernel to restart).  And a real signal with a
# handler still interrupts epoll_pwait every time, also when it races
# with ctprof's stops.
. "$(dirname "$0")/lib.sh"
skip_unless_ptrace attach

plan 6
run_ctprof launch -F 999 -o /dev/null -- "$TARGETS/echoserver" 3000
diag "$(cat "$OUT")"
check "launched at 999 Hz: 3000 requests, none failed" is_status 0
check "launched at 999 Hz: no EINTR" grep -q ' failed 0 eintr 0$' "$OUT"

"$TARGETS/echoserver" 3000 >"$TMP/attached.out" &
pid=$!
bg_started "$pid"
sleep 0.2
run_ctprof attach -F 999 -d 0.5 -p "$pid"
check "attached for 0.5 s, then detached: exit 0" is_status 0
wait_child "$pid" 20
diag "$(cat "$TMP/attached.out")"
check "attached and detached: no failed request, no EINTR" \
	eval 'is_status 0 && grep -q " failed 0 eintr 0$" "$TMP/attached.out"'

run_ctprof sigwake -F 999 -o /dev/null -- "$TARGETS/sigwake" 500
diag "$(cat "$OUT")"
check "real signals still interrupt epoll_pwait: 500 of 500" \
	eval 'is_status 0 && grep -q "^sigwake: rounds 500 woken 500$" "$OUT"'
run_cmd bare "$TARGETS/sigwake" 100
check "(sigwake itself works without ctprof)" is_status 0
finish
