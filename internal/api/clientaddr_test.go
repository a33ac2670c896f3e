package api

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestClientAddrBelievesXForwardedForOnlyFromTrustedProxies(t *testing.T) {
	t.Parallel()
	trusted, err := ParseTrustedProxies([]string{"10.0.0.0/8", "192.0.2.7", "fd00::/8"})
	require.NoError(t, err)
	for _, tc := range []struct {
		desc    string
		trusted bool
		peer    string
		xff     []string
		want    string
	}{
		{desc: "no trusted proxies: the peer, whatever the header says", peer: "203.0.113.5:4000", xff: []string{"198.51.100.1"}, want: "203.0.113.5"},
		{desc: "no trusted proxies, an IPv4-mapped peer: its IPv4 address", peer: "[::ffff:203.0.113.5]:4000", want: "203.0.113.5"},
		{desc: "no trusted proxies, an IPv6 peer: its address in canonical form", peer: "[2001:DB8:0::5%eth0]:4000", want: "2001:db8::5"},
		{desc: "an untrusted peer: its header is ignored", trusted: true, peer: "203.0.113.5:4000", xff: []string{"198.51.100.1"}, want: "203.0.113.5"},
		{desc: "a trusted peer: the entry it appended", trusted: true, peer: "10.1.2.3:4000", xff: []string{"198.51.100.1"}, want: "198.51.100.1"},
		{desc: "entries the client forged left of the real one are ignored", trusted: true, peer: "10.1.2.3:4000", xff: []string{"1.1.1.1, 8.8.8.8, 198.51.100.1"}, want: "198.51.100.1"},
		{desc: "trusted hops are skipped from the right", trusted: true, peer: "10.1.2.3:4000", xff: []string{"198.51.100.1, 192.0.2.7, 10.9.9.9"}, want: "198.51.100.1"},
		{desc: "several headers read as one list", trusted: true, peer: "10.1.2.3:4000", xff: []string{"1.1.1.1", "198.51.100.1, 10.9.9.9"}, want: "198.51.100.1"},
		{desc: "a trusted peer without the header: the peer", trusted: true, peer: "10.1.2.3:4000", want: "10.1.2.3"},
		{desc: "every entry trusted: the farthest trusted hop", trusted: true, peer: "10.1.2.3:4000", xff: []string{"10.4.4.4, 192.0.2.7"}, want: "10.4.4.4"},
		{desc: "an unreadable entry: the nearest hop read", trusted: true, peer: "10.1.2.3:4000", xff: []string{"198.51.100.1, garbage, 10.9.9.9"}, want: "10.9.9.9"},
		{desc: "IPv6 peer and entry with a port", trusted: true, peer: "[fd00::1]:4000", xff: []string{"[2001:db8::5]:1234"}, want: "2001:db8::5"},
		{desc: "an IPv4-mapped peer is its IPv4 address", trusted: true, peer: "[::ffff:10.1.2.3]:4000", xff: []string{"198.51.100.1"}, want: "198.51.100.1"},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			t.Parallel()
			p := proxyPolicy{}
			if tc.trusted {
				p.trusted = trusted
			}
			r := httptest.NewRequest(http.MethodGet, "/graphql", nil)
			r.RemoteAddr = tc.peer
			for _, v := range tc.xff {
				r.Header.Add("X-Forwarded-For", v)
			}
			require.Equal(t, tc.want, p.clientAddr(r))
		})
	}
}

func TestParseTrustedProxiesRefusesWhatIsNotAnAddress(t *testing.T) {
	t.Parallel()
	got, err := ParseTrustedProxies([]string{" 10.0.0.1/8 ", "", "2001:db8::1"})
	require.NoError(t, err)
	require.Equal(t, "10.0.0.0/8", got[0].String(), "the prefix is masked")
	require.Equal(t, "2001:db8::1/128", got[1].String(), "an address is a prefix of its own")
	_, err = ParseTrustedProxies([]string{"proxy.internal"})
	require.ErrorContains(t, err, "proxy.internal")
}

func TestSocketsCountIPv6ByTheSlash64(t *testing.T) {
	t.Parallel()
	require.Equal(t, addressKey("2001:db8:1:2::1"), addressKey("2001:db8:1:2:ffff::9"))
	require.NotEqual(t, addressKey("2001:db8:1:2::1"), addressKey("2001:db8:1:3::1"))
	require.Equal(t, "198.51.100.1", addressKey("198.51.100.1"))
}
