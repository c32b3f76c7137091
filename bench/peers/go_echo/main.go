// SPDX-License-Identifier: MIT

// go_echo is the Go peer of the echo benchmark (scripts/bench-echo.sh): a
// TCP echo server with one goroutine per connection, on the net package's
// netpoller, GOMAXPROCS left at its default (the CPU count).
//
//	go_echo [-host H] [-port P]
//
// It prints "go_echo: listening on HOST:PORT" on stdout and stops on
// SIGINT or SIGTERM. When Accept runs out of descriptors it waits 10 ms
// before the next one and says so once.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"strconv"
	"sync/atomic"
	"syscall"
	"time"
)

const bufSize = 16384

// echo sends back what c sends until EOF or an error, then closes c.
func echo(c net.Conn) {
	defer c.Close()
	buf := make([]byte, bufSize)
	for {
		n, err := c.Read(buf)
		if n > 0 {
			if _, werr := c.Write(buf[:n]); werr != nil {
				report("write", werr)
				return
			}
		}
		if err != nil {
			if err != io.EOF {
				report("read", err)
			}
			return
		}
	}
}

// report says on stderr why a connection ended, unless the peer left.
func report(what string, err error) {
	if errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) {
		return
	}
	fmt.Fprintf(os.Stderr, "go_echo: %s: %v\n", what, err)
}

func tooMany(err error) bool {
	return errors.Is(err, syscall.EMFILE) || errors.Is(err, syscall.ENFILE)
}

// serve accepts until ln is closed; returns the connections accepted.
func serve(ln net.Listener, stopping *atomic.Bool) (uint64, error) {
	var accepted uint64
	said := false
	for {
		c, err := ln.Accept()
		if err == nil {
			accepted++
			go echo(c)
			continue
		}
		if stopping.Load() {
			return accepted, nil
		}
		if tooMany(err) {
			if !said {
				fmt.Fprintf(os.Stderr, "go_echo: accept: %v; "+
					"pausing accepts 10 ms at a time "+
					"(said once)\n", err)
				said = true
			}
			time.Sleep(10 * time.Millisecond)
			continue
		}
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			continue
		}
		return accepted, err
	}
}

func main() {
	host := flag.String("host", "127.0.0.1", "address to listen on")
	port := flag.Int("port", 0, "TCP port, 0: an ephemeral one")
	flag.Parse()
	if flag.NArg() > 0 || *port < 0 || *port > 65535 {
		flag.Usage()
		os.Exit(2)
	}
	addr := net.JoinHostPort(*host, strconv.Itoa(*port))
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		fmt.Fprintf(os.Stderr, "go_echo: %v\n", err)
		os.Exit(1)
	}
	fmt.Printf("go_echo: listening on %s\n", ln.Addr())

	var stopping atomic.Bool
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM)
	go func() {
		sig := <-sigs
		fmt.Fprintf(os.Stderr, "go_echo: stopped by %v\n", sig)
		stopping.Store(true)
		ln.Close()
	}()
	n, err := serve(ln, &stopping)
	if err != nil {
		fmt.Fprintf(os.Stderr, "go_echo: accept: %v\n", err)
		os.Exit(1)
	}
	fmt.Fprintf(os.Stderr, "go_echo: %d connections accepted\n", n)
}
