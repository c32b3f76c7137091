# shellcheck shell=sh
# go-peer.sh - sourced by the benchmarks that race a Go peer
# (bench-echo.sh, bench-peers.sh).
#
# go_peer_build ME NAME: build bench/peers/NAME (a module with no
# dependencies: no proxy, no network) into $top/$build/bench/peers/NAME,
# with its Go cache under the build directory; ME prefixes the message.
# shellcheck disable=SC2154 # build, top: set by the caller
go_peer_build() {
	echo "$1: go build $build/bench/peers/$2" >&2
	mkdir -p "$build/bench/peers"
	(cd "bench/peers/$2" &&
		GOCACHE=${GOCACHE:-$top/$build/go-cache} GOPROXY=off \
			go build -o "$top/$build/bench/peers/$2" .)
}
