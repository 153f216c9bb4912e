#!/bin/bash
# churn: thousands of short-lived threads under 999 Hz sampling.  Every
# thread is picked up and let go; no call chain runs off the end of a
# stack into data (a return address outside code ends an unwind), so no
# frame is named [anon]+ADDRESS and no chain is absurdly deep.
. "$(dirname "$0")/lib.sh"
skip_unless_ptrace

plan 5
run_ctprof churn -F 999 -o "$TMP/churn.folded" -o "$TMP/churn.txt" -- "$TARGETS/churn" 1.5
check "ctprof exits with the target's status 0" is_status 0
check "the target made its threads" grep -q '^churn: [0-9]* threads' "$OUT"
OUT=$TMP/churn.txt
diag "$(head -1 "$OUT"); $(tail -1 "$OUT")"
check "short_work is sampled" ge "$(self_pct short_work)" 1
check "no frame is an address in data ([anon]+...)" bash -c "! grep -q '\\[anon\\]+0x' '$TMP/churn.folded'"
deepest=$(awk -F';' '{ if (NF > m) m = NF } END { print m + 0 }' "$TMP/churn.folded")
diag "deepest chain: $deepest frames"
check "no chain deeper than 20 frames (the real ones are under 10)" le "$deepest" 20
finish
