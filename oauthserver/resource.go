package oauthserver

import (
	"net/url"
	"strings"
)

// ResourceURI returns the WHATWG URL serialization of an absolute http(s)
// resource URI (scheme and host lower-cased, default port dropped, an
// empty path written as "/" only when the URI had one), and whether raw is
// one. Resources are compared in this form (CONTRACT §19).
func ResourceURI(raw string) (string, bool) {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil ||
		u.Fragment != "" || strings.Contains(raw, "#") {
		return "", false
	}
	u.Scheme = strings.ToLower(u.Scheme)
	host := strings.ToLower(u.Hostname())
	port := u.Port()
	if (u.Scheme == "https" && port == "443") || (u.Scheme == "http" && port == "80") {
		port = ""
	}
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	if port != "" {
		host += ":" + port
	}
	u.Host = host
	return u.String(), true
}
