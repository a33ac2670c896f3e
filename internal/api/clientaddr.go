package api

import (
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strings"
)

// ParseTrustedProxies reads a list of proxy addresses, each a CIDR prefix
// (10.0.0.0/8, fd00::/8) or a single address (a /32 or /128), for
// Config.TrustedProxies.
func ParseTrustedProxies(list []string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, s := range list {
		s = strings.TrimSpace(s)
		if s == "" {
			continue
		}
		if p, err := netip.ParsePrefix(s); err == nil {
			out = append(out, p.Masked())
			continue
		}
		a, err := netip.ParseAddr(s)
		if err != nil {
			return nil, fmt.Errorf("trusted proxy %q is neither an address nor a CIDR prefix", s)
		}
		a = a.Unmap()
		out = append(out, netip.PrefixFrom(a, a.BitLen()))
	}
	return out, nil
}

// proxyPolicy tells the address of the client behind a request: the peer
// of the connection, unless the peer is a trusted proxy, in which case
// X-Forwarded-For names it.
type proxyPolicy struct {
	trusted []netip.Prefix
}

func (p proxyPolicy) isTrusted(a netip.Addr) bool {
	for _, t := range p.trusted {
		if t.Contains(a) {
			return true
		}
	}
	return false
}

// clientAddr is the address that sign-in limits and socket caps count a
// request by. Without trusted proxies it is the peer: any client can
// write X-Forwarded-For. When the peer is a trusted proxy it is the
// rightmost X-Forwarded-For entry that is not itself a trusted proxy:
// entries to its right were appended by proxies GPUnex trusts, entries to
// its left were written by the client and prove nothing. When every entry
// is a trusted proxy, or one cannot be read, the nearest hop read so far
// stands.
func (p proxyPolicy) clientAddr(r *http.Request) string {
	peer, ok := parseHost(r.RemoteAddr)
	if !ok {
		return r.RemoteAddr
	}
	if len(p.trusted) == 0 || !p.isTrusted(peer) {
		return spelled(r.RemoteAddr, peer)
	}
	nearest := peer
	hops := r.Header.Values("X-Forwarded-For")
	for i := len(hops) - 1; i >= 0; i-- {
		entries := strings.Split(hops[i], ",")
		for j := len(entries) - 1; j >= 0; j-- {
			a, ok := parseHost(strings.TrimSpace(entries[j]))
			if !ok {
				return nearest.String()
			}
			if !p.isTrusted(a) {
				return a.String()
			}
			nearest = a
		}
	}
	return nearest.String()
}

// spelled is a's text, taken from s (an address with its port) where s
// begins with it, as a connection's IPv4 peer does: no new string for
// every request.
func spelled(s string, a netip.Addr) string {
	var buf [64]byte
	b := a.AppendTo(buf[:0])
	if len(s) > len(b) && s[len(b)] == ':' && s[:len(b)] == string(b) {
		return s[:len(b)]
	}
	return string(b)
}

// parseHost reads an address with or without a port (192.0.2.1,
// 192.0.2.1:443, [2001:db8::1]:443, 2001:db8::1).
func parseHost(s string) (netip.Addr, bool) {
	// A connection's peer (RemoteAddr) has a port: read it that way first,
	// without the error a plain address parse would make of it.
	if ap, err := netip.ParseAddrPort(s); err == nil {
		return ap.Addr().Unmap().WithZone(""), true
	}
	if a, err := netip.ParseAddr(s); err == nil {
		return a.Unmap().WithZone(""), true
	}
	host, _, err := net.SplitHostPort(s)
	if err != nil {
		return netip.Addr{}, false
	}
	a, err := netip.ParseAddr(host)
	if err != nil {
		return netip.Addr{}, false
	}
	return a.Unmap().WithZone(""), true
}
