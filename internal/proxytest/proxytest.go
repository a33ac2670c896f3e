// Package proxytest is a loopback TCP proxy that drills put in front of a
// dependency (PostgreSQL, Redis, a replica) to take it away and bring it
// back as an outage would: Cut closes the listening port, so new
// connections are refused (ECONNREFUSED, as from a stopped server), and
// drops every open one; Restore listens on the same port again. In front
// of several targets (StartAcross) it is a load balancer as an operator
// puts before the replicas: each connection goes to the next target that
// takes it, so a replica that is down is passed over.
package proxytest

import (
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gpunex/gpunex/internal/porttest"
)

// Proxy forwards each connection to its target until cut.
type Proxy struct {
	targets []string
	addr    string
	next    atomic.Uint64
	// acceptFailures counts the accepts that failed while listening
	// (out of file descriptors), each followed by a pause and a retry.
	acceptFailures atomic.Int64

	mu    sync.Mutex
	ln    net.Listener
	conns map[net.Conn]struct{}
	wg    sync.WaitGroup
}

// Start listens on a free loopback port and forwards to target
// (host:port); it is closed when the test ends.
func Start(t testing.TB, target string) *Proxy {
	t.Helper()
	return StartAcross(t, target)
}

// StartAcross listens on a free loopback port and forwards each
// connection to the next of targets, in turn, that accepts it; it is
// closed when the test ends.
func StartAcross(t testing.TB, targets ...string) *Proxy {
	t.Helper()
	p, err := listen(targets)
	if err != nil {
		t.Fatalf("proxytest: %v", err)
	}
	t.Cleanup(p.close)
	return p
}

// listen starts a proxy across targets on a free loopback port.
func listen(targets []string) (*Proxy, error) {
	// A port below the ephemeral range: Restore listens on it again.
	port, err := porttest.Free()
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	if err != nil {
		return nil, err
	}
	p := &Proxy{targets: targets, addr: ln.Addr().String(), conns: map[net.Conn]struct{}{}}
	p.serve(ln)
	return p, nil
}

// Addr is the proxy's host:port, the address clients dial.
func (p *Proxy) Addr() string { return p.addr }

// AcceptFailures is how many accepts failed while the proxy listened (a
// process out of file descriptors); it accepts again after each.
func (p *Proxy) AcceptFailures() int64 { return p.acceptFailures.Load() }

// Cut stops listening and drops every open connection (both sides).
func (p *Proxy) Cut() {
	p.mu.Lock()
	ln := p.ln
	p.ln = nil
	conns := p.conns
	p.conns = map[net.Conn]struct{}{}
	p.mu.Unlock()
	if ln != nil {
		_ = ln.Close()
	}
	for c := range conns {
		_ = c.Close()
	}
}

// Restore listens on the proxy's port again.
func (p *Proxy) Restore(t testing.TB) {
	t.Helper()
	if err := p.restore(); err != nil {
		t.Fatalf("proxytest: %v", err)
	}
}

func (p *Proxy) restore() error {
	ln, err := net.Listen("tcp", p.addr)
	if err != nil {
		return fmt.Errorf("listen again on %s: %w", p.addr, err)
	}
	p.serve(ln)
	return nil
}

func (p *Proxy) serve(ln net.Listener) {
	p.mu.Lock()
	p.ln = ln
	p.mu.Unlock()
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		var pause time.Duration
		for {
			c, err := ln.Accept()
			if errors.Is(err, net.ErrClosed) {
				return
			}
			if err != nil {
				p.acceptFailures.Add(1)
				// Out of file descriptors (EMFILE) or another passing
				// failure: accept again after a pause, as net/http's
				// server does, instead of leaving the port unserved.
				pause = min(max(2*pause, 5*time.Millisecond), time.Second)
				time.Sleep(pause)
				continue
			}
			pause = 0
			p.wg.Add(1)
			go func() {
				defer p.wg.Done()
				p.forward(c)
			}()
		}
	}()
}

// dialer gives up on a target that does not answer (its backlog full).
var dialer = net.Dialer{Timeout: 2 * time.Second}

// dial connects to the next target that accepts, starting after the one
// the last connection went to.
func (p *Proxy) dial() (net.Conn, error) {
	first := p.next.Add(1)
	var err error
	for i := range uint64(len(p.targets)) {
		var up net.Conn
		if up, err = dialer.Dial("tcp", p.targets[(first+i)%uint64(len(p.targets))]); err == nil {
			return up, nil
		}
	}
	return nil, err
}

// forward joins c to a new connection to a target; either side's end (or
// Cut) ends both.
func (p *Proxy) forward(c net.Conn) {
	up, err := p.dial()
	if err != nil {
		_ = c.Close()
		return
	}
	p.mu.Lock()
	if p.ln == nil { // cut meanwhile
		p.mu.Unlock()
		_ = c.Close()
		_ = up.Close()
		return
	}
	p.conns[c], p.conns[up] = struct{}{}, struct{}{}
	p.mu.Unlock()
	pipe := func(dst, src net.Conn) {
		defer p.wg.Done()
		_, err := io.Copy(dst, src)
		_ = err // io.EOF or a cut: either ends the pair
		_ = dst.Close()
		_ = src.Close()
		p.mu.Lock()
		delete(p.conns, dst)
		delete(p.conns, src)
		p.mu.Unlock()
	}
	p.wg.Add(2)
	go pipe(up, c)
	go pipe(c, up)
}

func (p *Proxy) close() {
	p.Cut()
	p.wg.Wait()
}
