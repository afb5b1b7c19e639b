package main

import (
	"fmt"
	"net"
	"net/url"
	"strings"
)

// checkLoopbackHost returns an error unless host is "localhost" or a
// loopback address (127.0.0.0/8, ::1). Names other than localhost are never
// resolved: the tool must not be pointed at another machine.
func checkLoopbackHost(host string) error {
	if strings.EqualFold(host, "localhost") {
		return nil
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return nil
	}
	return fmt.Errorf("refusing host %q: only localhost, 127.0.0.0/8 and ::1 may be targeted", host)
}

// checkLoopbackURL returns an error unless raw is a URL with one of the
// given schemes whose host passes checkLoopbackHost.
func checkLoopbackURL(raw string, schemes ...string) error {
	u, err := url.Parse(raw)
	if err != nil {
		return fmt.Errorf("refusing %q: %w", raw, err)
	}
	ok := false
	for _, s := range schemes {
		ok = ok || strings.EqualFold(u.Scheme, s)
	}
	if !ok {
		return fmt.Errorf("refusing %q: scheme %q, want one of %s", raw, u.Scheme, strings.Join(schemes, ", "))
	}
	if u.Host == "" {
		return fmt.Errorf("refusing %q: no host", raw)
	}
	return checkLoopbackHost(u.Hostname())
}
