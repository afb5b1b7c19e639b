package federation

import (
	"fmt"
	"net/url"
	"regexp"
	"strings"
)

// Origins are where a flow may send the browser (or the app) back to:
// web origins (scheme, host and port) and the custom schemes of apps.
type Origins struct {
	web     map[string]bool
	schemes map[string]bool // custom scheme -> allowed (any host)
	hosts   map[string]bool // custom scheme://host
}

var schemeRe = regexp.MustCompile(`^[a-z][a-z0-9+.-]*$`)

// forbiddenSchemes can never be a place to return to: they run or show
// content instead of reaching an app.
var forbiddenSchemes = map[string]bool{"javascript": true, "data": true, "vbscript": true, "file": true, "blob": true, "about": true}

// ParseOrigins reads a list of origins: http(s) origins such as
// https://app.example.com (no path), and app schemes such as
// com.example.app: or myapp://callback-host.
func ParseOrigins(list []string) (Origins, error) {
	o := Origins{web: map[string]bool{}, schemes: map[string]bool{}, hosts: map[string]bool{}}
	for _, raw := range list {
		raw = strings.TrimSpace(raw)
		if raw == "" {
			continue
		}
		if err := o.add(raw); err != nil {
			return Origins{}, err
		}
	}
	return o, nil
}

func (o *Origins) add(raw string) error {
	u, err := url.Parse(raw)
	if err != nil || u.RawQuery != "" || u.Fragment != "" || u.User != nil || u.Opaque != "" && u.Opaque != "/" {
		return fmt.Errorf("origin %q: want https://host[:port] or an app scheme such as com.example.app:", raw)
	}
	scheme := strings.ToLower(u.Scheme)
	switch {
	case !schemeRe.MatchString(scheme) || forbiddenSchemes[scheme]:
		return fmt.Errorf("origin %q: scheme %q cannot be returned to", raw, u.Scheme)
	case scheme == "http" || scheme == "https":
		if u.Host == "" || (u.Path != "" && u.Path != "/") {
			return fmt.Errorf("origin %q: want an origin such as https://app.example.com (no path)", raw)
		}
		o.web[scheme+"://"+strings.ToLower(u.Host)] = true
	case u.Host != "":
		o.hosts[scheme+"://"+strings.ToLower(u.Host)] = true
	default:
		o.schemes[scheme] = true
	}
	return nil
}

// Empty reports whether no origin is allowed.
func (o Origins) Empty() bool { return len(o.web)+len(o.schemes)+len(o.hosts) == 0 }

// Allows reports whether a flow may return to raw: an absolute URL without
// a fragment (the flow adds its own) or user information, whose origin, or
// app scheme, is listed.
func (o Origins) Allows(raw string) bool {
	if len(raw) > 2048 {
		return false
	}
	u, err := url.Parse(raw)
	if err != nil || !u.IsAbs() || u.Fragment != "" || strings.Contains(raw, "#") || u.User != nil {
		return false
	}
	scheme := strings.ToLower(u.Scheme)
	if scheme == "http" || scheme == "https" {
		return u.Host != "" && o.web[scheme+"://"+strings.ToLower(u.Host)]
	}
	if forbiddenSchemes[scheme] {
		return false
	}
	return o.schemes[scheme] || (u.Host != "" && o.hosts[scheme+"://"+strings.ToLower(u.Host)])
}

// AllowsApp reports whether an app's flow may return to raw: an allowed
// app scheme only. An app's flow is bound to no browser, so a web page,
// where anyone's browser may land, is never its place to return to.
func (o Origins) AllowsApp(raw string) bool {
	if !o.Allows(raw) {
		return false
	}
	u, err := url.Parse(raw)
	scheme := ""
	if err == nil {
		scheme = strings.ToLower(u.Scheme)
	}
	return scheme != "http" && scheme != "https"
}
