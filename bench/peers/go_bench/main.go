// SPDX-License-Identifier: MIT

// go_bench is the Go peer of the runtime's benchmark workloads
// (scripts/bench-peers.sh): the five of bench/, each the usual Go way, a
// goroutine where ours has a process and a channel where ours sends to a
// mailbox. The arguments and their defaults are those of the bench/
// programs:
//
//	go_bench pingpong [ROUNDS]                   (1000000)
//	go_bench ring [PROCS [HOPS]]                 (503 2000000)
//	go_bench skynet [LEAVES [WINDOW]]            (1000000 10)
//	go_bench fanin [SENDERS [MESSAGES [WINDOW]]] (100 100000 1000)
//	go_bench spawnburst [CHILDREN [TOTAL]]       (100 400000000)
//
// Each prints "RESULT <name> <checksum> <seconds>" on stdout, as bench/
// does, with the same checksum (bench/bench.h), and exits 1 when it is
// not the expected one; 2 for a usage error. GOMAXPROCS sets the number
// of threads running goroutines (the script sets it to the workers' count).
//
// Timing, as bench/bench.h's: the clock starts just before the first
// goroutine of the workload starts and stops just after the final result
// arrives; stopping the goroutines afterwards is left out. ring times the
// hops only, after every member has started, as bench/ring does.
//
// Where ours sends to a mailbox, which never makes the sender wait, the
// channel is buffered enough that a send does not wait either (skynet's
// and spawnburst's replies, fanin's messages within the credit window and
// its ACKs). pingpong and ring hand a value from one goroutine to the
// next, so theirs are unbuffered, as in the classic Go versions.
package main

import (
	"errors"
	"fmt"
	"math"
	"os"
	"strconv"
	"sync"
	"time"
)

// The bench/ programs' defaults (bench/bench.h).
const (
	defPingpongRounds   = 1000000
	defRingProcs        = 503
	defRingHops         = 2000000
	defSkynetLeaves     = 1000000
	defSkynetWindow     = 10
	skynetFanout        = 10
	defFaninSenders     = 100
	defFaninMsgs        = 100000
	defFaninWindow      = 1000
	faninSeqBits        = 40
	faninMaxSenders     = 1 << 20
	faninMaxBuffer      = 1 << 20
	defSpawnburstKids   = 100
	defSpawnburstTotal  = 400000000
	spawnburstMaxKids   = 1000000
	spawnburstSeedConst = 0x9e3779b97f4a7c15
)

var errProto = errors.New("unexpected message")

// result is one run's outcome: the checksum and the timed span.
type result struct {
	checksum uint64
	elapsed  time.Duration
}

// ---- pingpong --------------------------------------------------------------

// pingpong: the main goroutine and a partner bounce a counter, rounds
// round trips; each side sends back what it got plus one, so the last
// reply is 2 * rounds.
func pingpong(rounds int64) (result, error) {
	t0 := time.Now()
	ping := make(chan uint64)
	pong := make(chan uint64)
	go func() {
		for c := range ping {
			pong <- c + 1
		}
	}()
	var c uint64
	for i := int64(0); i < rounds; i++ {
		out := c + 1
		ping <- out
		c = <-pong
		if c != out+1 {
			return result{c, 0}, errProto
		}
	}
	r := result{c, time.Since(t0)}
	close(ping)
	return r, nil
}

// ---- ring ------------------------------------------------------------------

type ringDone struct {
	token uint64
	index int
}

// ringMember passes the token on from in to next until in is closed; the
// member that gets the token with the value hops reports it on done.
func ringMember(index int, in <-chan uint64, next chan<- uint64,
	hops uint64, done chan<- ringDone, started *sync.WaitGroup) {
	started.Done()
	for t := range in {
		if t == hops {
			done <- ringDone{t, index}
		} else {
			next <- t + 1
		}
	}
}

// ring: procs goroutines in a ring, each with its own channel, pass a
// token hops times in all.
func ring(procs int, hops int64) (result, error) {
	in := make([]chan uint64, procs)
	for i := range in {
		// A lone member sends to itself, which an unbuffered
		// channel cannot take; only one token is ever in flight.
		if procs == 1 {
			in[i] = make(chan uint64, 1)
		} else {
			in[i] = make(chan uint64)
		}
	}
	done := make(chan ringDone)
	var started sync.WaitGroup
	started.Add(procs)
	for i := 0; i < procs; i++ {
		go ringMember(i, in[i], in[(i+1)%procs], uint64(hops), done,
			&started)
	}
	started.Wait()
	t0 := time.Now()
	in[0] <- 0
	d := <-done
	r := result{d.token, time.Since(t0)}
	for _, c := range in {
		close(c)
	}
	if int64(d.index) != hops%int64(procs) {
		return r, errProto
	}
	return r, nil
}

// ---- skynet ----------------------------------------------------------------

// skynetNode covers the leaves [start, start + size): a leaf sends its
// number up; an inner node splits its range into up to 10 slices that
// differ by at most one leaf (as bench/skynet.c does), runs a goroutine
// for each, at most window at once, and sends the sum of their sums up.
func skynetNode(start, size uint64, window int, up chan<- uint64) {
	if size == 1 {
		up <- start
		return
	}
	n := uint64(skynetFanout)
	if size < n {
		n = size
	}
	sums := make(chan uint64, n)
	var sum, spawned, got uint64
	for got < n {
		for spawned < n && spawned-got < uint64(window) {
			lo, hi := size*spawned/n, size*(spawned+1)/n
			go skynetNode(start+lo, hi-lo, window, sums)
			spawned++
		}
		sum += <-sums
		got++
	}
	up <- sum
}

func skynet(leaves int64, window int) (result, error) {
	t0 := time.Now()
	root := make(chan uint64, 1)
	go skynetNode(0, uint64(leaves), window, root)
	sum := <-root
	return result{sum, time.Since(t0)}, nil
}

func skynetExpect(leaves int64) uint64 {
	return uint64(leaves) * (uint64(leaves) - 1) / 2
}

// ---- fanin -----------------------------------------------------------------

const faninSeqMask = 1<<faninSeqBits - 1

// faninAtWindow: a sender that has sent n of msgs messages waits for an
// ACK here, and the receiver sends one when it has n of that sender's.
func faninAtWindow(n, msgs, window uint64) bool {
	return window != 0 && n%window == 0 && n < msgs
}

// faninSender sends msgs values first, first + 1, ... on data, and after
// every window of them (when more are to come) waits for an ACK.
func faninSender(first, msgs, window uint64, data chan<- uint64,
	ack <-chan struct{}) {
	for i := uint64(0); i < msgs; i++ {
		data <- first + i
		if faninAtWindow(i+1, msgs, window) {
			<-ack
		}
	}
}

// fanin: senders goroutines send msgs messages each on one channel to
// the main goroutine, which checks that each sender's arrive in order.
// With window > 0 at most senders * window are in flight, and the
// channel holds that many (up to 2^20), so that a sender waits only for
// its ACK; with window 0 it holds up to 2^20 (a Go channel has no
// unbounded form).
func fanin(senders int, msgs, window int64) (result, error) {
	t0 := time.Now()
	room := uint64(senders) * uint64(msgs)
	if window > 0 && uint64(senders)*uint64(window) < room {
		room = uint64(senders) * uint64(window)
	}
	if room > faninMaxBuffer {
		room = faninMaxBuffer
	}
	data := make(chan uint64, room)
	acks := make([]chan struct{}, senders)
	for i := range acks {
		acks[i] = make(chan struct{}, 1)
		go faninSender(uint64(i)<<faninSeqBits, uint64(msgs),
			uint64(window), data, acks[i])
	}
	next := make([]uint64, senders)
	total := uint64(senders) * uint64(msgs)
	var count uint64
	for count < total {
		v := <-data
		s := v >> faninSeqBits
		if s >= uint64(senders) || v&faninSeqMask != next[s] ||
			next[s] >= uint64(msgs) {
			return result{count, time.Since(t0)}, errProto
		}
		next[s]++
		count++
		if faninAtWindow(next[s], uint64(msgs), uint64(window)) {
			acks[s] <- struct{}{}
		}
	}
	return result{count, time.Since(t0)}, nil
}

// ---- spawnburst ------------------------------------------------------------

// xorshift64 is Marsaglia's, shifts 13, 7, 17, as bench/spawnburst.c's.
func xorshift64(x uint64) uint64 {
	x ^= x << 13
	x ^= x >> 7
	x ^= x << 17
	return x
}

// spawnburstSeed: child i's seed, an odd multiple of i + 1.
func spawnburstSeed(i int64) uint64 {
	return uint64(i+1) * spawnburstSeedConst
}

func spawnburstWork(x, iters uint64) uint64 {
	for ; iters > 0; iters-- {
		x = xorshift64(x)
	}
	return x
}

// spawnburst: children goroutines each run total / children steps of
// xorshift64 from their own seed and send the result; the main goroutine
// sums them (mod 2^64).
func spawnburst(children, total int64) (result, error) {
	iters := uint64(total / children)
	t0 := time.Now()
	results := make(chan uint64, children)
	for i := int64(0); i < children; i++ {
		go func(seed uint64) {
			results <- spawnburstWork(seed, iters)
		}(spawnburstSeed(i))
	}
	var sum uint64
	for i := int64(0); i < children; i++ {
		sum += <-results
	}
	return result{sum, time.Since(t0)}, nil
}

// gf2 is a 64x64 bit matrix over GF(2): col[j] is the image of bit j.
type gf2 [64]uint64

func (a *gf2) apply(x uint64) uint64 {
	var y uint64
	for j := 0; j < 64; j++ {
		if x>>j&1 != 0 {
			y ^= a[j]
		}
	}
	return y
}

// then returns b's map followed by a's.
func (a *gf2) then(b *gf2) gf2 {
	var r gf2
	for j := 0; j < 64; j++ {
		r[j] = a.apply(b[j])
	}
	return r
}

// spawnburstExpect finds the sum without the loops: a step is linear over
// GF(2), so iters steps are the step's matrix to the power iters.
func spawnburstExpect(children, total int64) uint64 {
	var p, step gf2
	for j := 0; j < 64; j++ {
		p[j] = 1 << j
		step[j] = xorshift64(1 << j)
	}
	for n := uint64(total / children); n != 0; n >>= 1 {
		if n&1 != 0 {
			p = p.then(&step)
		}
		step = step.then(&step)
	}
	var sum uint64
	for i := int64(0); i < children; i++ {
		sum += p.apply(spawnburstSeed(i))
	}
	return sum
}

// ---- the driver ------------------------------------------------------------

// workload: a subcommand's name, its arguments in order (each one's
// minimum, maximum and default) and how to run and check it.
type workload struct {
	name   string
	usage  string
	note   string // after the defaults in the usage, or ""
	params []param
	run    func(a []int64) (result, error)
	expect func(a []int64) uint64
	check  func(a []int64) bool // extra argument constraint, or nil
}

type param struct {
	min, max, def int64
}

var workloads = []workload{
	{
		name:   "pingpong",
		usage:  "[ROUNDS]",
		params: []param{{1, math.MaxInt64 / 4, defPingpongRounds}},
		run:    func(a []int64) (result, error) { return pingpong(a[0]) },
		expect: func(a []int64) uint64 { return 2 * uint64(a[0]) },
	},
	{
		name:  "ring",
		usage: "[PROCS [HOPS]]",
		params: []param{{1, 1 << 24, defRingProcs},
			{1, math.MaxInt64 / 2, defRingHops}},
		run:    func(a []int64) (result, error) { return ring(int(a[0]), a[1]) },
		expect: func(a []int64) uint64 { return uint64(a[1]) },
	},
	{
		name:  "skynet",
		usage: "[LEAVES [WINDOW]]",
		params: []param{{1, 1000000000, defSkynetLeaves},
			{1, skynetFanout, defSkynetWindow}},
		run: func(a []int64) (result, error) {
			return skynet(a[0], int(a[1]))
		},
		expect: func(a []int64) uint64 { return skynetExpect(a[0]) },
	},
	{
		name:  "fanin",
		usage: "[SENDERS [MESSAGES [WINDOW]]]",
		params: []param{{1, faninMaxSenders, defFaninSenders},
			{1, faninSeqMask, defFaninMsgs},
			{0, 1 << 30, defFaninWindow}},
		run: func(a []int64) (result, error) {
			return fanin(int(a[0]), a[1], a[2])
		},
		expect: func(a []int64) uint64 { return uint64(a[0]) * uint64(a[1]) },
	},
	{
		name:  "spawnburst",
		usage: "[CHILDREN [TOTAL]]",
		note:  "; TOTAL >= CHILDREN",
		params: []param{{1, spawnburstMaxKids, defSpawnburstKids},
			{1, math.MaxInt64, defSpawnburstTotal}},
		run: func(a []int64) (result, error) {
			return spawnburst(a[0], a[1])
		},
		expect: func(a []int64) uint64 { return spawnburstExpect(a[0], a[1]) },
		check:  func(a []int64) bool { return a[1] >= a[0] },
	},
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: go_bench WORKLOAD [ARGS...]")
	for _, w := range workloads {
		defs := ""
		for i, p := range w.params {
			if i > 0 {
				defs += " "
			}
			defs += strconv.FormatInt(p.def, 10)
		}
		fmt.Fprintf(os.Stderr, "  go_bench %s %s   (default %s%s)\n",
			w.name, w.usage, defs, w.note)
	}
	os.Exit(2)
}

// parseArgs reads w's arguments: whole decimal numbers in range, the
// defaults for those left out.
func parseArgs(w *workload, args []string) ([]int64, bool) {
	if len(args) > len(w.params) {
		return nil, false
	}
	a := make([]int64, len(w.params))
	for i, p := range w.params {
		a[i] = p.def
		if i >= len(args) {
			continue
		}
		v, err := strconv.ParseInt(args[i], 10, 64)
		if err != nil || v < p.min || v > p.max {
			return nil, false
		}
		a[i] = v
	}
	if w.check != nil && !w.check(a) {
		return nil, false
	}
	return a, true
}

func main() {
	if len(os.Args) < 2 {
		usage()
	}
	var w *workload
	for i := range workloads {
		if workloads[i].name == os.Args[1] {
			w = &workloads[i]
		}
	}
	if w == nil {
		usage()
	}
	a, ok := parseArgs(w, os.Args[2:])
	if !ok {
		usage()
	}
	r, err := w.run(a)
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", w.name, err)
		os.Exit(1)
	}
	fmt.Printf("RESULT %s %d %.6f\n", w.name, r.checksum,
		r.elapsed.Seconds())
	if want := w.expect(a); r.checksum != want {
		fmt.Fprintf(os.Stderr, "%s: checksum %d, expected %d\n",
			w.name, r.checksum, want)
		os.Exit(1)
	}
}
