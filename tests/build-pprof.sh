#!/bin/sh
# Build Go pprof into DIR (DIR/pprof) from Debian's golang-go and
# golang-github-google-pprof-dev, for the pprof checks of
# tests/run-convert-pprof.sh (which finds it through $PPROF). CI runs:
#
#   tests/build-pprof.sh "$HOME/pprof-bin" && export PPROF="$HOME/pprof-bin/pprof"
#
# Without go or the pprof sources this says so and succeeds: the tests
# then skip their pprof checks (fail them with PROFKIT_REQUIRE_TOOLS=1).
set -u
dir=${1:?usage: tests/build-pprof.sh DIR}

if ! command -v go >/dev/null 2>&1; then
	echo "build-pprof.sh: no go (apt-get install golang-go): not building pprof"
	exit 0
fi
if [ ! -d /usr/share/gocode/src/github.com/google/pprof ]; then
	echo "build-pprof.sh: no pprof sources (apt-get install" \
		"golang-github-google-pprof-dev): not building pprof"
	exit 0
fi
mkdir -p "$dir" && cd "$dir" || exit 1
GO111MODULE=off GOPATH=/usr/share/gocode GOCACHE=/tmp/gocache go build -o pprof github.com/google/pprof || {
	echo "build-pprof.sh: go build failed" >&2
	exit 1
}
echo "build-pprof.sh: built $(pwd)/pprof"
