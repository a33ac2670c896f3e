// Package porttest gives tests loopback ports for servers they stop and
// start again on the same port.
package porttest

import (
	"math/rand/v2"
	"net"
	"os"
	"strconv"
	"strings"
)

// Free returns a loopback TCP port that was free a moment ago, below the
// kernel's ephemeral range where there is room: a server stopped and
// started again on it (a Redis restart, a soak's killed replica, a cut
// proxy restored) finds it free again. A port of the ephemeral range may
// meanwhile have become the local end of some outgoing connection, and the
// restarted server could not bind it: a busy make test's soak waited 45
// minutes for a replica that had exited so.
func Free() (int, error) {
	if low := ephemeralLow(); low-minPort >= 1000 {
		for range 200 {
			port := minPort + rand.IntN(low-minPort)
			l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
			if err == nil {
				_ = l.Close()
				return port, nil
			}
		}
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// minPort is the lowest port Free gives: above the well-known and most
// registered services' ports.
const minPort = 10000

// ephemeralLow is the first port of the kernel's ephemeral range (the
// local ports of outgoing connections), Linux's default when unknown.
func ephemeralLow() int {
	b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range")
	if err == nil {
		if f := strings.Fields(string(b)); len(f) == 2 {
			if n, err := strconv.Atoi(f[0]); err == nil {
				return n
			}
		}
	}
	return 32768
}
