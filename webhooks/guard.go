package webhooks

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"strings"
	"syscall"
	"time"
)

// ErrRefusedAddress reports a destination that resolves to an address a
// webhook may not reach (loopback, private, link-local, the cloud metadata
// address, ...).
var ErrRefusedAddress = errors.New("webhooks: refused address")

// refusedPrefixes are the IPv4 and IPv6 ranges that are not public, beside
// what netip's predicates name: this network, shared address space
// (carrier-grade NAT), IETF assignments, benchmarking, reserved and
// broadcast, the local-use NAT64 prefix, Teredo and documentation.
var refusedPrefixes = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),
	netip.MustParsePrefix("100.64.0.0/10"),
	netip.MustParsePrefix("192.0.0.0/24"),
	netip.MustParsePrefix("192.0.2.0/24"),
	netip.MustParsePrefix("198.18.0.0/15"),
	netip.MustParsePrefix("198.51.100.0/24"),
	netip.MustParsePrefix("203.0.113.0/24"),
	netip.MustParsePrefix("240.0.0.0/4"),
	netip.MustParsePrefix("64:ff9b:1::/48"),
	netip.MustParsePrefix("2001::/32"),
	netip.MustParsePrefix("2001:db8::/32"),
	netip.MustParsePrefix("3fff::/20"),
}

var (
	nat64     = netip.MustParsePrefix("64:ff9b::/96")
	sixToFour = netip.MustParsePrefix("2002::/16")
	// globalV6 is the only IPv6 range assigned for global unicast: an
	// IPv6 address outside it (IPv4-compatible ::/96, site-local
	// fec0::/10, discard 100::/64, ...) is never public, whatever netip's
	// predicates say of it.
	globalV6 = netip.MustParsePrefix("2000::/3")
)

// Public reports whether a webhook may connect to addr: a global unicast
// address, judged by the IPv4 address inside an IPv4-mapped, NAT64 or
// 6to4 form.
func Public(addr netip.Addr) bool {
	addr = addr.Unmap()
	if s := addr.As16(); nat64.Contains(addr) {
		addr = netip.AddrFrom4([4]byte(s[12:16]))
	} else if sixToFour.Contains(addr) {
		addr = netip.AddrFrom4([4]byte(s[2:6]))
	}
	if !addr.IsValid() || !addr.IsGlobalUnicast() || addr.IsPrivate() || addr.IsLoopback() ||
		addr.IsLinkLocalUnicast() || addr.IsMulticast() || addr.IsUnspecified() {
		return false
	}
	if addr.Is6() && !globalV6.Contains(addr) {
		return false
	}
	for _, p := range refusedPrefixes {
		if p.Contains(addr) {
			return false
		}
	}
	return true
}

// Guard decides where webhooks may go: https URLs whose host resolves to
// public addresses only, checked when the webhook is made and again when
// each connection is made (after resolution, so a DNS answer that changes
// cannot pass), except for the hosts of OAUTH_INSECURE_HOSTS, which may be
// http and on any address.
type Guard struct {
	// Insecure are the OAUTH_INSECURE_HOSTS entries, "host" or
	// "host:port", lower case.
	Insecure []string
	// Lookup resolves a host name; nil means the system's resolver.
	Lookup func(ctx context.Context, host string) ([]netip.Addr, error)
}

// AllowsInsecure reports whether host (and port) is one of the Insecure
// hosts, which may be reached over http and on any address: client ID
// metadata documents follow the same rule as webhooks.
func (g *Guard) AllowsInsecure(host, port string) bool { return g.insecure(host, port) }

// insecure reports whether host (and port) is one of the Insecure hosts.
func (g *Guard) insecure(host, port string) bool {
	host = strings.ToLower(strings.Trim(host, "[]"))
	for _, h := range g.Insecure {
		eh, ep, err := net.SplitHostPort(h)
		if err != nil {
			eh, ep = h, ""
		}
		if strings.Trim(eh, "[]") == host && (ep == "" || ep == port) {
			return true
		}
	}
	return false
}

// resolve returns the addresses of host: the host itself when it is an
// address literal.
func (g *Guard) resolve(ctx context.Context, host string) ([]netip.Addr, error) {
	if a, err := netip.ParseAddr(strings.Trim(host, "[]")); err == nil {
		return []netip.Addr{a}, nil
	}
	if g.Lookup != nil {
		return g.Lookup(ctx, host)
	}
	return net.DefaultResolver.LookupNetIP(ctx, "ip", host)
}

// publicAddrs resolves host and returns its addresses, or
// ErrRefusedAddress when any of them is not public (a name that answers a
// public and a private address is refused, whichever would be dialled).
func (g *Guard) publicAddrs(ctx context.Context, host string) ([]netip.Addr, error) {
	addrs, err := g.resolve(ctx, host)
	if err != nil {
		return nil, fmt.Errorf("webhooks: %s does not resolve: %w", host, err)
	}
	if len(addrs) == 0 {
		return nil, fmt.Errorf("webhooks: %s has no address", host)
	}
	for _, a := range addrs {
		if !Public(a) {
			return nil, fmt.Errorf("%w: %s resolves to %s", ErrRefusedAddress, host, a.Unmap())
		}
	}
	return addrs, nil
}

// CheckURL reports why raw may not be a webhook's URL, or nil: it must be
// an absolute https URL (http for an insecure host) of at most 2048 bytes,
// without a fragment, whose host resolves to public addresses only.
func (g *Guard) CheckURL(ctx context.Context, raw string) error {
	u, err := url.Parse(raw)
	if err != nil || len(raw) > 2048 || u.Host == "" || u.Hostname() == "" || u.Fragment != "" || u.Opaque != "" {
		return errors.New("must be an absolute URL of at most 2048 characters, without a fragment")
	}
	if u.User != nil { // a credential in the URL would be shown to every admin
		return errors.New("must not carry a user name or password")
	}
	insecure := g.insecure(u.Hostname(), u.Port())
	switch {
	case u.Scheme == "https":
	case u.Scheme == "http" && insecure:
	default:
		return errors.New("must be an https URL")
	}
	if insecure {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if _, err := g.publicAddrs(ctx, u.Hostname()); err != nil {
		if errors.Is(err, ErrRefusedAddress) {
			return errors.New("must be on a public address")
		}
		return errors.New("must name a host that resolves")
	}
	return nil
}

// DialContext connects to addr ("host:port") for an attempt: it resolves
// the host and connects only to a public address, checked again on the
// socket itself just before it connects (an insecure host connects to
// any address).
func (g *Guard) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	var d net.Dialer
	var addrs []netip.Addr
	if g.insecure(host, port) {
		addrs, err = g.resolve(ctx, host)
	} else {
		d.Control = controlPublic
		addrs, err = g.publicAddrs(ctx, host)
	}
	if err != nil {
		return nil, err
	}
	last := fmt.Errorf("webhooks: %s has no address", host)
	for _, a := range addrs {
		c, err := d.DialContext(ctx, network, net.JoinHostPort(a.Unmap().String(), port))
		if err == nil {
			return c, nil
		}
		last = err
	}
	return nil, last
}

// controlPublic refuses, on the socket about to connect, an address that
// is not public: what is dialled is what was checked.
func controlPublic(_, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil || !Public(ap.Addr()) {
		return fmt.Errorf("%w: %s", ErrRefusedAddress, address)
	}
	return nil
}
