package ratelimit

import (
	"net/netip"
	"strconv"
)

// DefaultIPv6Prefix is the prefix length an IPv6 client is counted by: one
// /64 is what a single subscriber or host usually holds.
const DefaultIPv6Prefix = 64

// ClientKey returns the identity a client's hits are counted under: an IPv4
// address as it is (an IPv4-mapped IPv6 address counts as IPv4), and the
// first v6bits bits of an IPv6 address as a prefix such as
// "2001:db8:1:2::/64", so that the many addresses of one subscriber share
// one budget. A zone is dropped. A value that is not an IP address is
// returned unchanged.
func ClientKey(ip string, v6bits int) string {
	addr, err := netip.ParseAddr(ip)
	if err != nil {
		return ip
	}
	if addr.Is4() {
		return ip // an IPv4 address that parses has one spelling
	}
	addr = addr.Unmap().WithZone("")
	if addr.Is4() {
		return addr.String()
	}
	if v6bits <= 0 || v6bits > 128 {
		v6bits = DefaultIPv6Prefix
	}
	p, err := addr.Prefix(v6bits)
	if err != nil {
		return addr.String()
	}
	return p.Addr().String() + "/" + strconv.Itoa(v6bits)
}
