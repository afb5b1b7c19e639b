package main

import (
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strings"

	"github.com/actionkit/actionkit/federation"
)

// oidcSettings are the identity providers and where their flows may
// return to.
type oidcSettings struct {
	Providers []federation.Provider
	Origins   federation.Origins
	// RedirectURI is the callback registered at every provider.
	RedirectURI string
}

var providerIDRe = regexp.MustCompile(`^[a-z0-9]{1,32}$`)

// oidcConfig reads OIDC_PROVIDERS, each provider's OIDC_<ID>_* settings
// and OIDC_REDIRECT_ORIGINS (PUBLIC_URL and CORS_ORIGINS are read before).
func (p *envParser) oidcConfig(c *config) {
	c.OIDC.RedirectURI = strings.TrimSuffix(c.PublicURL, "/") + "/v1/users/oidc/callback"
	for _, id := range strings.Split(p.str("OIDC_PROVIDERS", ""), ",") {
		if id = strings.TrimSpace(id); id == "" {
			continue
		}
		if !providerIDRe.MatchString(id) || slices.ContainsFunc(c.OIDC.Providers, func(q federation.Provider) bool { return q.ID == id }) {
			p.fail("OIDC_PROVIDERS", fmt.Sprintf("has %q; want distinct ids of 1 to 32 of a-z and 0-9", id))
			continue
		}
		c.OIDC.Providers = append(c.OIDC.Providers, p.oidcProvider(id, c.production()))
	}
	origins := append([]string{c.publicOrigin()}, c.CORSOrigins...)
	if v, ok := p.raw("OIDC_REDIRECT_ORIGINS"); ok {
		origins = strings.Split(v, ",")
	}
	o, err := federation.ParseOrigins(origins)
	if err != nil {
		p.fail("OIDC_REDIRECT_ORIGINS", err.Error())
	}
	c.OIDC.Origins = o
}

// oidcProvider reads the settings of provider id.
func (p *envParser) oidcProvider(id string, production bool) federation.Provider {
	pre := "OIDC_" + strings.ToUpper(id) + "_"
	pv := federation.Provider{
		ID:           id,
		Name:         p.str(pre+"NAME", id),
		Issuer:       p.str(pre+"ISSUER", ""),
		ClientID:     p.str(pre+"CLIENT_ID", ""),
		ClientSecret: p.str(pre+"CLIENT_SECRET", ""),
		Scopes:       strings.Fields(strings.ReplaceAll(p.str(pre+"SCOPES", "openid email profile"), ",", " ")),
		TrustEmail:   p.boolean(pre+"TRUST_EMAIL", false),
		AllowSignup:  p.boolean(pre+"ALLOW_SIGNUP", true),
		AutoLink:     p.boolean(pre+"AUTO_LINK", false),
	}
	if !issuerOK(pv.Issuer, production) {
		p.fail(pre+"ISSUER", "must be the provider's issuer URL, https (http only outside production), without a query or fragment")
	}
	if pv.ClientID == "" {
		p.fail(pre+"CLIENT_ID", "is required")
	}
	if pv.ClientSecret == "" {
		p.fail(pre+"CLIENT_SECRET", "is required")
	}
	if !slices.Contains(pv.Scopes, "openid") {
		p.fail(pre+"SCOPES", "must include openid")
	}
	if len(pv.Name) > 64 {
		p.fail(pre+"NAME", "must be at most 64 characters")
	}
	if pv.AutoLink && !pv.TrustEmail {
		p.fail(pre+"AUTO_LINK", "needs "+pre+"TRUST_EMAIL=true: only a provider whose verified addresses are believed may link by address")
	}
	return pv
}

// issuerOK accepts an https issuer URL, or outside production an http
// one (a provider run for development or tests).
func issuerOK(raw string, production bool) bool {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || u.User != nil || u.RawQuery != "" || u.Fragment != "" {
		return false
	}
	return u.Scheme == "https" || u.Scheme == "http" && !production
}
