package main

import (
	"fmt"
	"net/netip"
	"net/url"
	"regexp"
	"strings"

	"github.com/actionkit/actionkit/accounts"
	"github.com/actionkit/actionkit/action"
	v1 "github.com/actionkit/actionkit/actions/v1"
	"github.com/actionkit/actionkit/framework"
)

// domainRe is a DNS name of labels of a-z, 0-9 and inner hyphens.
var domainRe = regexp.MustCompile(`^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$`)

// appOriginPrefix begins the origin of an Android app, which browsers'
// rules for web origins do not cover: the app's signing certificate hash.
const appOriginPrefix = "android:apk-key-hash:"

var appOriginRe = regexp.MustCompile(`^android:apk-key-hash:[A-Za-z0-9_-]{16,128}$`)

// webauthnConfig reads the relying party of passkeys. WEBAUTHN_RP_ID
// defaults to the host of PUBLIC_URL and WEBAUTHN_ORIGINS to its origin.
// A relying party id must be a domain, and an origin https (http only on
// localhost) under it: settings given that break this are a configuration
// error, while defaults taken from a PUBLIC_URL that breaks it (its host
// an address, plain http elsewhere than localhost) leave passkeys off
// (their ceremonies answer 503), so that such a deployment still starts.
func (p *envParser) webauthnConfig(c *config) {
	name := p.str("WEBAUTHN_RP_NAME", "actionkit")
	if len(name) > 64 {
		p.fail("WEBAUTHN_RP_NAME", "must be at most 64 characters")
	}
	rpID, ok := p.rpID(c)
	if !ok {
		return
	}
	settings := &accounts.WebAuthnSettings{RPID: rpID, RPName: name}
	list, set := p.raw("WEBAUTHN_ORIGINS")
	if !set {
		// Where the service is; checked as a listed origin would be, since
		// no browser would run a ceremony from an origin that fails.
		origin, why := webOrigin(c.publicOrigin(), rpID)
		if why != "" {
			why = fmt.Sprintf("WEBAUTHN_ORIGINS is not set, and PUBLIC_URL's origin %s cannot use passkeys: %s", c.publicOrigin(), why)
			if _, explicit := p.raw("WEBAUTHN_RP_ID"); explicit {
				p.fail("WEBAUTHN_ORIGINS", why)
			} else {
				c.webauthnOff = why
			}
			return
		}
		settings.Origins = []string{origin}
	} else {
		p.webauthnOrigins(settings, list)
	}
	c.WebAuthn = settings
}

// rpID reads WEBAUTHN_RP_ID, or takes the host of PUBLIC_URL; false when
// there is none (an error, or passkeys off).
func (p *envParser) rpID(c *config) (string, bool) {
	rpID, explicit := p.raw("WEBAUTHN_RP_ID")
	rpID = strings.ToLower(rpID)
	if !explicit {
		u, err := url.Parse(c.PublicURL)
		if err != nil {
			return "", false // PUBLIC_URL reported already
		}
		rpID = strings.ToLower(u.Hostname())
		if _, err := netip.ParseAddr(rpID); err == nil {
			c.webauthnOff = "the host of PUBLIC_URL is an address; set WEBAUTHN_RP_ID to a domain"
			return "", false
		}
	}
	if _, err := netip.ParseAddr(rpID); err == nil || len(rpID) > 253 || !domainRe.MatchString(rpID) {
		p.fail("WEBAUTHN_RP_ID", fmt.Sprintf("is %q; want a domain such as example.com (no scheme, port or address)", rpID))
		return "", false
	}
	return rpID, true
}

// webauthnOrigins reads the comma list of WEBAUTHN_ORIGINS into settings:
// web origins, and the origins of Android apps.
func (p *envParser) webauthnOrigins(settings *accounts.WebAuthnSettings, list string) {
	for _, o := range strings.Split(list, ",") {
		if o = strings.TrimSpace(o); o == "" {
			continue
		}
		if strings.HasPrefix(o, appOriginPrefix) {
			if !appOriginRe.MatchString(o) {
				p.fail("WEBAUTHN_ORIGINS", fmt.Sprintf("has %q; want android:apk-key-hash:<base64url SHA-256 of the signing certificate>", o))
			}
			settings.AppOrigins = append(settings.AppOrigins, o)
			continue
		}
		origin, why := webOrigin(o, settings.RPID)
		if why != "" {
			p.fail("WEBAUTHN_ORIGINS", fmt.Sprintf("has %q: %s", o, why))
			continue
		}
		settings.Origins = append(settings.Origins, origin)
	}
	if len(settings.Origins) == 0 {
		p.fail("WEBAUTHN_ORIGINS", "lists no web origin (https://host[:port])")
	}
}

// webOrigin checks o as a web origin passkeys of rpID may be used from:
// https (or http on localhost, which browsers treat as secure), a host
// that is rpID or under it, no path; it returns the origin as browsers
// write it, or why not.
func webOrigin(o, rpID string) (string, string) {
	u, err := url.Parse(o)
	if err != nil || u.Host == "" || u.User != nil || (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" {
		return "", "want an exact origin such as https://app.example.com"
	}
	host := strings.ToLower(u.Hostname())
	local := host == "localhost" || strings.HasSuffix(host, ".localhost")
	if u.Scheme != "https" && !(u.Scheme == "http" && local) {
		return "", "want https (http only on localhost)"
	}
	if host != rpID && !strings.HasSuffix(host, "."+rpID) {
		return "", fmt.Sprintf("its host must be %s or under it (WEBAUTHN_RP_ID)", rpID)
	}
	return strings.ToLower(u.Scheme + "://" + u.Host), ""
}

// registerPasskeyActions mounts the passkeys of svc's owner type; the
// actions that write a challenge for anyone who asks spend the client's
// options budget of limits (nil: not limited).
func registerPasskeyActions(fw *framework.Framework, svc *accounts.Service, cookies v1.Cookies, limits *rateLimits) {
	framework.Register(fw, &v1.Passkeys{Accounts: svc})
	framework.Register(fw, &v1.PasskeyRegisterOptions{Accounts: svc})
	framework.Register(fw, &v1.PasskeyRegister{Accounts: svc})
	framework.Register(fw, &v1.PasskeyRename{Accounts: svc})
	framework.Register(fw, &v1.PasskeyRemove{Accounts: svc})
	framework.Register(fw, &v1.PasskeyLoginOptions{Accounts: svc, ClientBudget: limits.optionsBudget(action.RatePasskey)})
	framework.Register(fw, &v1.PasskeyLogin{Accounts: svc, Cookies: cookies})
	framework.Register(fw, &v1.MFAWebAuthnOptions{Accounts: svc, ClientBudget: limits.optionsBudget(action.RateMFA)})
	framework.Register(fw, &v1.ReauthenticateOptions{Accounts: svc})
}
