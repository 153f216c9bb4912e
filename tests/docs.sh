#!/bin/bash
# docs: the man page and --help stay in step with the code.  Each check
# reads files and runs 'ctprof --help'; nothing is traced.
. "$(dirname "$0")/lib.sh"

ROOT=$(cd "$(dirname "$0")/.." && pwd)
MAN=$ROOT/man/ctprof.1
CLI=$ROOT/src/cli.c

plan 5

# section_of NAME: the roff lines of the man page's .SH NAME, up to the next .SH.
section_of() {
	awk -v want="$1" '
		/^\.SH / { name = substr($0, 5); gsub(/"/, "", name); on = (name == want); next }
		on' "$MAN"
}

# long_opts: the long options that roff text on stdin names (\-\-name),
# one a line, sorted and unique.
long_opts() {
	sed 's/\\-/-/g' | grep -o -- '--[a-z][a-z-]*[a-z]' | sort -u
}

# The long options the man page gives an entry of their own: the tag line
# after each .TP in OPTIONS and SUBCOMMANDS.
{ section_of OPTIONS; section_of SUBCOMMANDS; } |
	awk 'tag { print; tag = 0 } /^\.TP/ { tag = 1 }' | long_opts >"$TMP/man-entries"
# Every long option those two sections name, in an entry or in the text.
{ section_of OPTIONS; section_of SUBCOMMANDS; } | long_opts >"$TMP/man-named"

# The option lines of --help, of the main command and of each subcommand
# (each prints the one usage today; a subcommand may come to have its own).
: >"$TMP/help"
for sub in "" report top dump diff; do
	# shellcheck disable=SC2086 # an empty $sub is no argument
	"$CTPROF" $sub --help >>"$TMP/help" 2>&1 || echo "ctprof $sub --help failed" >>"$TMP/help-errors"
done
grep -E '^ {2,}(-[a-zA-Z], )?--[a-z]' "$TMP/help" |
	sed -E 's/^ +(-[a-zA-Z], )?//; s/[= ].*//' | sort -u >"$TMP/help-opts"

# The option table getopt_long is given in src/cli.c: what the binary accepts.
sed -n '/long_opts\[\] = {/,/^};/p' "$CLI" |
	grep -o '{ *"[a-z][a-z-]*"' | sed 's/{ *"/--/; s/"$//' | sort -u >"$TMP/accepted"

# Rule 1: each option --help lists has an entry in the man page, so that
# no user-visible option is undocumented.
missing_from_man() {
	local missing
	[ -s "$TMP/help-opts" ] || { diag "no options found in --help: $(head -c 300 "$TMP/help")"; return 1; }
	[ ! -e "$TMP/help-errors" ] || { diag "$(cat "$TMP/help-errors")"; return 1; }
	missing=$(comm -23 "$TMP/help-opts" "$TMP/man-entries")
	[ -z "$missing" ] && return 0
	diag "in --help but with no .TP entry in the man page's OPTIONS or SUBCOMMANDS:" "$missing"
	return 1
}
check "every long option of --help has a man page entry" missing_from_man

# Rule 2: each long option the man page's OPTIONS and SUBCOMMANDS name is
# in src/cli.c's option table, so that the page promises nothing the
# binary refuses.  An empty table means the parse broke, not success.
not_accepted() {
	local extra
	[ "$(wc -l <"$TMP/accepted")" -ge 20 ] ||
		{ diag "only $(wc -l <"$TMP/accepted") options read from src/cli.c's long_opts"; return 1; }
	extra=$(comm -23 "$TMP/man-named" "$TMP/accepted")
	[ -z "$extra" ] && return 0
	diag "named in the man page but not in src/cli.c's long_opts:" "$extra"
	return 1
}
check "every long option the man page names is accepted" not_accepted

# Rule 3: the exit statuses of the man page's EXIT STATUS are those
# --help lists, so that scripts written from either agree.
exit_codes_agree() {
	local man help
	man=$(section_of "EXIT STATUS" | awk 'tag { print; tag = 0 } /^\.TP/ { tag = 1 }' |
		grep -oE '^\.[BI]R? [0-9]+$' | grep -oE '[0-9]+' | sort -n | tr '\n' ' ')
	help=$(sed -n '/^Exit status:/,/^Full documentation/p' "$CTPROF_HELP" |
		sed 's/128+N//g' | grep -oE '\b[0-9]+\b' | sort -nu | tr '\n' ' ')
	if [ -z "$man" ] || [ "$man" != "$help" ]; then
		diag "EXIT STATUS lists '$man', --help lists '$help'"
		return 1
	fi
	# Both say how a command killed by a signal is reported.
	section_of "EXIT STATUS" | grep -q '128+' && grep -q '128+N' "$CTPROF_HELP" && return 0
	diag "EXIT STATUS or --help does not give 128+N for a command killed by signal N"
	return 1
}
CTPROF_HELP=$TMP/help-main
"$CTPROF" --help >"$CTPROF_HELP" 2>&1
check "EXIT STATUS lists the exit statuses --help gives" exit_codes_agree

# Rule 4: groff renders the page with every warning on and says nothing,
# so that man shows what was written.
groff_silent() {
	groff -man -ww -z "$MAN" >"$TMP/groff" 2>&1 || { diag "groff failed: $(cat "$TMP/groff")"; return 1; }
	[ -s "$TMP/groff" ] || return 0
	diag "groff -man -ww warns:" "$(head -20 "$TMP/groff")"
	return 1
}
if command -v groff >/dev/null; then
	check "the man page renders with no groff warnings" groff_silent
else
	skip "the man page renders with no groff warnings" "groff is not installed"
fi

# Rule 5: the page stays at most 1300 lines, a guard against regrowth:
# measurements and design reasoning belong in docs/DESIGN.md, not here.
short_enough() {
	local n
	n=$(wc -l <"$MAN")
	[ "$n" -le 1300 ] && return 0
	diag "man/ctprof.1 has $n lines; move the why to docs/DESIGN.md"
	return 1
}
check "the man page is at most 1300 lines" short_enough

finish
