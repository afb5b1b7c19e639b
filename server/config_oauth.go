package main

import (
	"net/url"
	"regexp"
	"strings"
	"time"

	"github.com/actionkit/actionkit/auth"
	"github.com/actionkit/actionkit/oauthserver"
)

// oauthConfig is the configuration of actionkit as an OAuth 2.1
// authorization server and OpenID provider (CONTRACT §19) and of its MCP
// endpoint (§20).
type oauthConfig struct {
	// Enabled is OAUTH_PROVIDER: without it the discovery documents and
	// every /oauth2 endpoint answer 404.
	Enabled bool
	// Issuer is PUBLIC_URL exactly, an origin when Enabled.
	Issuer string
	// InteractionURL is the page that signs the user in and asks for
	// consent; it receives ?oauth_request=<requestId>.
	InteractionURL string
	// Resources are the resources tokens may be issued for, each in its
	// WHATWG URL serialization.
	Resources []string
	// AccessTokenTTL is the lifetime of OAuth access tokens and ID tokens.
	AccessTokenTTL time.Duration
	// DynamicRegistration turns POST /oauth2/register (RFC 7591) on.
	DynamicRegistration bool
	// MetadataDocuments lets a client_id be the URL of a client ID
	// metadata document.
	MetadataDocuments bool
	// MCPPath is where the MCP endpoint is served, "" for none.
	MCPPath string
}

// mcpPathPattern is the shape of MCP_PATH: an absolute path of plain
// segments.
var mcpPathPattern = regexp.MustCompile(`^(/[A-Za-z0-9._~-]+)+$`)

// oauthConfig reads OAUTH_PROVIDER and the settings of the provider
// (PUBLIC_URL and ACCESS_TOKEN_ALG are read before).
func (p *envParser) oauthConfig(c *config) {
	o := &c.OAuth
	o.Enabled = p.boolean("OAUTH_PROVIDER", false)
	o.Issuer = c.PublicURL
	o.MCPPath = "/mcp"
	if v, ok := p.lookup("MCP_PATH"); ok {
		o.MCPPath = strings.TrimSpace(v)
		if o.MCPPath != "" && !mcpPathPattern.MatchString(o.MCPPath) {
			p.fail("MCP_PATH", "must be an absolute path such as /mcp, or empty for no MCP endpoint")
		}
	}
	if o.Enabled {
		if c.AccessTokenAlg != auth.EdDSA && c.AccessTokenAlg != auth.ES256 {
			p.fail("OAUTH_PROVIDER", "needs ACCESS_TOKEN_ALG EdDSA or ES256: other services verify its tokens with public keys")
		}
		if msg := originProblem(c.PublicURL, c.production()); msg != "" {
			p.fail("PUBLIC_URL", "is the OAuth issuer and "+msg)
		}
	}
	o.InteractionURL = p.publicURL("OAUTH_INTERACTION_URL", c.PublicURL+"/demo")
	if _, own := p.raw("OAUTH_INTERACTION_URL"); o.Enabled && !own && !c.DemoEnabled {
		p.fail("OAUTH_INTERACTION_URL", "is unset, and its default page /demo is off (DEMO_ENABLED=false, the production default): "+
			"set DEMO_ENABLED=true to sign users in on the bundled page, or point OAUTH_INTERACTION_URL at your own")
	}
	defaults := c.PublicURL
	if o.MCPPath != "" {
		defaults += "," + c.PublicURL + o.MCPPath
	}
	for _, r := range strings.Split(p.str("OAUTH_RESOURCES", defaults), ",") {
		if r = strings.TrimSpace(r); r == "" {
			continue
		}
		s, ok := ResourceURI(r)
		if !ok {
			p.fail("OAUTH_RESOURCES", "has "+r+"; want absolute http(s) URIs without a fragment")
			continue
		}
		o.Resources = append(o.Resources, s)
	}
	o.AccessTokenTTL = p.duration("OAUTH_ACCESS_TOKEN_EXPIRES_IN", 15*time.Minute)
	o.DynamicRegistration = p.boolean("OAUTH_DYNAMIC_REGISTRATION", false)
	o.MetadataDocuments = p.boolean("OAUTH_CLIENT_METADATA_DOCUMENTS", true)
}

// originProblem says what keeps u from being an OAuth issuer: an origin
// with a lower-case host, no default port, no path and no trailing slash,
// https in production. It is "" when u is one.
func originProblem(u string, production bool) string {
	parsed, err := url.Parse(u)
	switch {
	case err != nil || parsed.Host == "":
		return "must be an origin such as https://id.example.com"
	case production && parsed.Scheme != "https":
		return "must be https in production"
	case parsed.Path != "" || parsed.RawPath != "":
		return "must have no path (not even a trailing slash)"
	case parsed.Host != strings.ToLower(parsed.Host):
		return "must have a lower-case host"
	case parsed.Port() == "443" && parsed.Scheme == "https", parsed.Port() == "80" && parsed.Scheme == "http":
		return "must not name the scheme's default port"
	}
	return ""
}

// ResourceURI returns the WHATWG URL serialization of an absolute http(s)
// resource URI, and whether raw is one: see oauthserver.ResourceURI.
func ResourceURI(raw string) (string, bool) { return oauthserver.ResourceURI(raw) }
