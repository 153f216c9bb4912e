#!/bin/bash
# shellcheck disable=SC2016,SC2317 # eval and check run code given in quotes
# svg-check: the flame graph writer (src/write-svg.c) on the fixed stacks of
# svg-driver.c.  The file must be well-formed XML with every function name
# escaped, the same whatever the order of the stacks, merged and elided as
# promised; and, when chromium is installed, its script must run without an
# error, add its controls, and search and zoom from the URL parameters.
#
# Usage: svg-check.sh SVG-DRIVER [ARTEFACT-DIR]
# The graph and chromium's screenshots of it are kept in ARTEFACT-DIR (the
# meson build directory) for a human to look at: svg-check.svg,
# svg-check.png (as opened) and svg-check-zoom.png (searched and zoomed).
# Speaks TAP.  Without xmllint (Debian: libxml2-utils) the whole script is
# skipped; without chromium only the browser tests are.

set -u

DRIVER=${1:?usage: svg-check.sh SVG-DRIVER [ARTEFACT-DIR]}
ART=${2:-}
CHROMIUM=${CHROMIUM:-$(command -v chromium || command -v chromium-browser || true)}

# Meson's TAP protocol counts exit 77 as an error, so a skip of the whole
# script is a plan of 0 with a SKIP directive, as in tests/lib.sh.
if ! command -v xmllint >/dev/null; then
	echo "1..0 # SKIP xmllint not installed (Debian: libxml2-utils)"
	exit 0
fi

TMP=$(mktemp -d "${TMPDIR:-/tmp}/ctprof-svg.XXXXXX") || exit 99
trap 'rm -rf "$TMP"' EXIT
trap 'exit 143' TERM INT HUP

n=0
failed=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
not_ok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $*"; }
skip() { n=$((n + 1)); echo "ok $n - $1 # SKIP $2"; }
diag_file() { sed 's/^/# /' "$1" | head -n "${2:-40}"; }
# check DESCRIPTION COMMAND...: ok if COMMAND succeeds.
check() {
	local what=$1
	shift
	if "$@"; then ok "$what"; else not_ok "$what"; fi
}

# As put_xml() in write-svg.c escapes text and attribute values.
xml_escape() {
	sed -e 's/&/\&amp;/g' -e 's/</\&lt;/g' -e 's/>/\&gt;/g' \
	    -e 's/"/\&quot;/g' -e "s/'/\\&apos;/g"
}

SVG=$TMP/flame.svg

# ---- the file ----------------------------------------------------------

if "$DRIVER" "$SVG" 2>"$TMP/driver.err"; then
	ok "svg-driver writes a flame graph"
else
	not_ok "svg-driver writes a flame graph"
	diag_file "$TMP/driver.err"
fi
[ -n "$ART" ] && cp "$SVG" "$ART/svg-check.svg"

if xmllint --noout "$SVG" 2>"$TMP/xmllint.err"; then
	ok "the flame graph is well-formed XML"
else
	not_ok "the flame graph is well-formed XML"
	diag_file "$TMP/xmllint.err"
fi

"$DRIVER" --names | sort -u >"$TMP/names"
missing=0
while IFS= read -r name; do
	esc=$(printf '%s\n' "$name" | xml_escape)
	if ! grep -qF "data-n=\"$esc\"" "$SVG" || ! grep -qF "<title>$esc" "$SVG"; then
		echo "# not found escaped: $esc"
		missing=$((missing + 1))
	fi
done <"$TMP/names"
check "all $(wc -l <"$TMP/names") function names are there, XML-escaped" [ "$missing" = 0 ]
check "the title is XML-escaped" \
	grep -qF '&lt;test&gt; &amp; &quot;quotes&quot;' "$SVG"

# Invalid UTF-8 and a control character in a name become '?'.
check "bytes XML cannot hold are written as '?'" grep -qF 'data-n="bad??name??"' "$SVG"

# The push_back stack is given twice (900 + 100 samples): one frame.
check "equal stacks merge into one frame" \
	test "$(grep -c 'data-n="std::vector&lt;int, std::allocator&lt;int&gt; &gt;::push_back(int const&amp;)"' "$SVG")" = 1
check "the merged frame has the samples of both" \
	grep -qF 'data-w="1000" data-d="4" data-n="std::vector&lt;int' "$SVG"

check "the recursion is drawn 150 frames deep" \
	test "$(grep -c 'data-n="recurse(int)"' "$SVG")" = 150

# handler_NNN: every 50th is wide, the rest 1 to 4 samples of ~6900.
check "frames under 0.1% are left out" \
	eval '! grep -q "data-n=\"handler_001\"" "$SVG" && grep -q "data-n=\"handler_050\"" "$SVG"'
check "a note says how many frames were left out" \
	grep -qE '[0-9]+ frames narrower than 0\.1% of all samples are not drawn' "$SVG"
check "siblings are in alphabetical order" \
	eval 'grep -o "data-n=\"handler_[0-9]*\"" "$SVG" | sort -c'
check "a legend names the modules" \
	eval 'grep -q "id=\"ctprof-legend\"" "$SVG" && grep -q ">libz\.so\.1 [0-9.]*%</text>" "$SVG"'
# One frame a line: a <title> spans lines.
tr '\n' ' ' <"$SVG" | sed 's#</g>#&\n#g' >"$TMP/frames"
check "frames of one module share a colour, frames without one are grey" \
	eval '[ "$(grep "data-m=\"libz\.so\.1\"" "$TMP/frames" | grep -o "fill=\"#[0-9a-f]*\"" | sort -u | wc -l)" = 1 ] &&
	      grep -q "data-n=\"thread 1001\" data-m=\"\">.*fill=\"#c8c8c0\"" "$TMP/frames"'

if "$DRIVER" --reverse "$TMP/reverse.svg" && cmp -s "$SVG" "$TMP/reverse.svg"; then
	ok "the output does not depend on the order of the stacks"
else
	not_ok "the output does not depend on the order of the stacks"
fi

if "$DRIVER" --empty "$TMP/empty.svg" && xmllint --noout "$TMP/empty.svg" &&
   grep -q "No samples were recorded" "$TMP/empty.svg"; then
	ok "no stacks: well-formed, says there were no samples"
else
	not_ok "no stacks: well-formed, says there were no samples"
fi

if [ -w /dev/full ]; then
	if "$DRIVER" /dev/full 2>"$TMP/full.err"; then
		not_ok "a write error is reported (/dev/full)"
	else
		check "a write error is reported (/dev/full)" grep -q "No space left" "$TMP/full.err"
	fi
else
	skip "a write error is reported (/dev/full)" "no writable /dev/full"
fi

# ---- in a browser ------------------------------------------------------

# chromium FILE-URL ARGS...: headless, stdout and stderr in $TMP/chr.out
# and $TMP/chr.err.  A fresh profile each time, nothing from the network.
chromium() {
	local url=$1
	shift
	timeout 90 "$CHROMIUM" --headless --no-sandbox --disable-gpu \
		--disable-dev-shm-usage --disable-quic --no-first-run \
		--disable-background-networking --disable-component-update \
		--disable-sync --user-data-dir="$(mktemp -d "$TMP/profile.XXXXXX")" \
		--enable-logging=stderr --v=0 "$@" "$url" \
		>"$TMP/chr.out" 2>"$TMP/chr.err"
}

# no_js_error: chromium logs console messages on stderr, an exception
# thrown by the script as "Uncaught ...".
no_js_error() {
	if grep -q "Uncaught" "$TMP/chr.err"; then
		grep "CONSOLE" "$TMP/chr.err" | sed 's/^/# /'
		return 1
	fi
}

is_png() {
	[ -s "$1" ] && [ "$(head -c 4 "$1" | tail -c 3)" = PNG ]
}

if [ -z "$CHROMIUM" ] || [ ! -x "$CHROMIUM" ]; then
	for what in "the script runs" "status line" "Search control" \
		    "search and zoom from the URL" "a search counts each sample once" \
		    "zooming" "a screenshot" "a screenshot searched and zoomed"; do
		skip "chromium: $what" "chromium not installed"
	done
else
	URL="file://$SVG"
	chromium "$URL" --dump-dom
	check "chromium: the script runs without an error" no_js_error
	check "chromium: the script fills the status line" \
		grep -q '<text id="ctprof-status"[^>]*>Hover a frame' "$TMP/chr.out"
	check "chromium: the script adds the Search control" \
		grep -q '<text id="ctprof-search"[^>]*>Search</text>' "$TMP/chr.out"

	# Search for malloc (1000 samples) and recurse(int) (800 samples, 150
	# frames deep): 1800 samples, each counted once; and zoom to serve(int).
	chromium "$URL?s=%5E(malloc%7Crecurse)&z=serve(int)" --dump-dom
	check "chromium: search and zoom from the URL without an error" no_js_error
	check "chromium: a search counts each sample once" \
		grep -qF 'Matched: 26.0% (1800 of ' "$TMP/chr.out"
	check "chromium: zooming hides the frames outside and offers Reset zoom" \
		eval 'grep -q "display: none" "$TMP/chr.out" &&
		      grep -q "<text id=\"ctprof-unzoom\"[^>]*visibility=\"visible\"" "$TMP/chr.out"'

	# As tall as the graph, so the screenshot shows all of it.
	h=$(grep -o '<svg [^>]* height="[0-9]*"' "$SVG" | grep -o 'height="[0-9]*"' | tr -dc 0-9)
	[ -n "$h" ] && [ "$h" -le 4000 ] || h=800
	chromium "$URL" --screenshot="$TMP/shot.png" --window-size="1200,$h"
	check "chromium: a screenshot of the graph" eval 'no_js_error && is_png "$TMP/shot.png"'
	chromium "$URL?s=%5E(malloc%7Cmemchr)&z=serve(int)" --screenshot="$TMP/zoom.png" --window-size="1200,$h"
	check "chromium: a screenshot searched and zoomed" eval 'no_js_error && is_png "$TMP/zoom.png"'
	if [ -n "$ART" ]; then
		cp "$TMP/shot.png" "$ART/svg-check.png" 2>/dev/null
		cp "$TMP/zoom.png" "$ART/svg-check-zoom.png" 2>/dev/null
		echo "# screenshots: $ART/svg-check.png $ART/svg-check-zoom.png"
	fi
fi

echo "1..$n"
[ "$failed" = 0 ] || echo "# FAILED $failed of $n"
exit 0
