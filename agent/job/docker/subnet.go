package docker

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/netip"

	"github.com/moby/moby/client"

	"github.com/gpunex/gpunex/agent/job"
)

// SubnetPool is the IPv4 range every job network's subnet is taken from.
// The host firewall the installer writes (internal/installer, install.sh)
// matches traffic by this source range: packets from it may reach the
// internet but not private (10/8, 172.16/12, 192.168/16), shared
// (100.64/10) or link-local (169.254/16, cloud metadata) addresses, nor the
// host itself. The two must stay equal; a test in internal/installer checks
// that they do.
//
// 10.231.0.0/16 lies outside Docker's default address pools (172.17–31/16
// and 192.168/16 in /20s), so the engine never hands part of it to another
// network, and outside the ranges home and office routers usually use.
const SubnetPool = "10.231.0.0/16"

// SubnetBits is the prefix length of each job's subnet: SubnetPool holds
// 256 of them, so a host runs at most 256 jobs at once, far more than its
// GPUs (or MIG slices) allow. A /24 leaves a job room for 253 addresses
// should it ever get more than one container, and keeps the job's slot
// readable in its addresses (10.231.<slot>.0/24).
const SubnetBits = 24

// iccOption is the bridge driver option that, set to "false", stops
// containers on the bridge from talking to each other directly.
const iccOption = "com.docker.network.bridge.enable_icc"

// ErrSubnetPoolExhausted is returned by Start when every subnet of
// SubnetPool is held by a network: too many jobs, or networks left behind.
var ErrSubnetPoolExhausted = errors.New("docker: job subnet pool exhausted")

var subnetPool = netip.MustParsePrefix(SubnetPool)

// poolSubnets lists SubnetPool's subnets of SubnetBits, in order.
func poolSubnets() []netip.Prefix {
	n := 1 << (SubnetBits - subnetPool.Bits())
	step := uint32(1) << (32 - SubnetBits)
	base := subnetPool.Addr().As4()
	start := uint32(base[0])<<24 | uint32(base[1])<<16 | uint32(base[2])<<8 | uint32(base[3])
	out := make([]netip.Prefix, 0, n)
	for i := range n {
		a := start + uint32(i)*step
		out = append(out, netip.PrefixFrom(netip.AddrFrom4([4]byte{byte(a >> 24), byte(a >> 16), byte(a >> 8), byte(a)}), SubnetBits))
	}
	return out
}

// freeSubnet returns the first subnet of the pool that no network on the
// engine overlaps, or with anyFree one of those at random. It lists every
// network, not only ours: the engine refuses a bridge subnet that overlaps
// any other network's, so one the provider made in the pool is as taken
// as a job's. The caller holds r.netMu, so no other Start of this runtime
// creates a network between the list and its own create; other clients
// of the engine may, which is what anyFree is for.
func (r *Runtime) freeSubnet(ctx context.Context, name string, anyFree bool) (netip.Prefix, error) {
	res, err := r.engine.NetworkList(ctx, client.NetworkListOptions{})
	if err != nil {
		return netip.Prefix{}, fmt.Errorf("docker: create network %s: list networks: %w", name, err)
	}
	var taken []netip.Prefix
	for _, n := range res.Items {
		for _, c := range n.IPAM.Config {
			if c.Subnet.IsValid() && c.Subnet.Overlaps(subnetPool) {
				taken = append(taken, c.Subnet)
			}
		}
	}
	var free []netip.Prefix
next:
	for _, s := range poolSubnets() {
		for _, t := range taken {
			if s.Overlaps(t) {
				continue next
			}
		}
		if !anyFree {
			return s, nil
		}
		free = append(free, s)
	}
	if len(free) > 0 {
		return free[rand.IntN(len(free))], nil
	}
	return netip.Prefix{}, fmt.Errorf("docker: create network %s: all %d /%d subnets of %s are held by networks; "+
		"stop a job or remove networks left behind (docker network ls --filter label=%s=true): %w",
		name, len(poolSubnets()), SubnetBits, SubnetPool, job.LabelManaged, ErrSubnetPoolExhausted)
}
