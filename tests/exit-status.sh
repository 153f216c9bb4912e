#!/bin/bash
# exit-status: in launch mode ctprof exits with the command's own status,
# 128+N when the command was killed by signal N, 126 when the command
# cannot be executed and 127 when it is not found; a report is printed
# even for a command that does nothing.
. "$(dirname "$0")/lib.sh"
skip_unless_ptrace

# No core file from the SIGSEGV case.
ulimit -c 0

plan 13
run_ctprof exit3 -- sh -c 'exit 3'
check "command exits 3: ctprof exits 3" is_status 3
check "command exits 3: a report is still printed" has_report

run_ctprof segv -- sh -c 'kill -SEGV $$'
check "command killed by SIGSEGV: ctprof exits 139" is_status 139
check "command killed by SIGSEGV: a report is still printed" has_report

run_ctprof notfound -- ctprof-test-no-such-command
check "command not in PATH: ctprof exits 127" is_status 127
check "command not in PATH: stderr says 'command not found'" err_says "command not found"
check "command not in PATH: stderr starts with 'ctprof: '" grep -q '^ctprof: ' "$ERR"

# A path that does not exist: 127 too. The wording may be the shell's
# ("No such file or directory") rather than "command not found".
run_ctprof nopath -- /nonexistent/cmd
check "/nonexistent/cmd: ctprof exits 127" is_status 127
check "/nonexistent/cmd: stderr says it is not there" \
	eval 'grep -qiE "^ctprof: .*(not found|no such file)" "$ERR"'

printf '#!/bin/sh\nexit 0\n' >"$TMP/noexec"
chmod 644 "$TMP/noexec"
run_ctprof noexec -- "$TMP/noexec"
check "command not executable: ctprof exits 126" is_status 126
check "command not executable: stderr says why" err_says "permission denied"

run_ctprof true -- true
check "true: ctprof exits 0" is_status 0
check "true: a report is printed" has_report
finish
