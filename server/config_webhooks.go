package main

import (
	"net"
	"strings"
)

// webhooksConfig reads OAUTH_INSECURE_HOSTS: the hosts ("host" or
// "host:port") whose webhooks may be http and on loopback or private
// addresses. It is refused in production.
func (p *envParser) webhooksConfig(c *config) {
	v, ok := p.raw("OAUTH_INSECURE_HOSTS")
	if !ok {
		return
	}
	if c.production() {
		p.fail("OAUTH_INSECURE_HOSTS", "may not be set in production")
		return
	}
	for _, h := range strings.Split(v, ",") {
		h = strings.ToLower(strings.TrimSpace(h))
		if h == "" {
			continue
		}
		if !validHostPort(h) {
			p.fail("OAUTH_INSECURE_HOSTS", "has "+h+"; want host or host:port entries")
			continue
		}
		c.InsecureHosts = append(c.InsecureHosts, h)
	}
}

// validHostPort reports whether h is a host name or address, with an
// optional port.
func validHostPort(h string) bool {
	host, port, err := net.SplitHostPort(h)
	if err != nil {
		host, port = h, ""
	}
	return host != "" && !strings.ContainsAny(host, "/?#@ ") && !strings.ContainsAny(port, "/?#@ :")
}
