package clients

import (
	"encoding/json"
	"slices"

	"github.com/actionkit/actionkit/models"
)

// Metadata is client metadata in the members of RFC 7591 and of client ID
// metadata documents; a nil member is absent.
type Metadata struct {
	ClientID                 *string
	ClientName               *string
	RedirectURIs             []string
	PostLogoutRedirectURIs   []string
	GrantTypes               []string
	ResponseTypes            []string
	TokenEndpointAuthMethod  *string
	Scope                    *string
	LogoURI                  *string
	ClientURI                *string
	IDTokenSignedResponseAlg *string
}

// ParseMetadata decodes a JSON object of client metadata; unknown members
// are ignored, a known one of the wrong type is a FieldError naming it.
func ParseMetadata(raw []byte) (*Metadata, *FieldError) {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil || obj == nil {
		return nil, &FieldError{Field: "body", Member: "body", Reason: "must be a JSON object"}
	}
	m := &Metadata{}
	strs := []struct {
		member string
		dst    **string
	}{{"client_id", &m.ClientID}, {"client_name", &m.ClientName}, {"token_endpoint_auth_method", &m.TokenEndpointAuthMethod},
		{"scope", &m.Scope}, {"logo_uri", &m.LogoURI}, {"client_uri", &m.ClientURI},
		{"id_token_signed_response_alg", &m.IDTokenSignedResponseAlg}}
	for _, f := range strs {
		if v, ok := obj[f.member]; ok && string(v) != "null" {
			if err := json.Unmarshal(v, f.dst); err != nil {
				return nil, fieldErr(f.member, f.member, "must be a string")
			}
		}
	}
	lists := []struct {
		member string
		dst    *[]string
	}{{"redirect_uris", &m.RedirectURIs}, {"post_logout_redirect_uris", &m.PostLogoutRedirectURIs},
		{"grant_types", &m.GrantTypes}, {"response_types", &m.ResponseTypes}}
	for _, f := range lists {
		if v, ok := obj[f.member]; ok && string(v) != "null" {
			if err := json.Unmarshal(v, f.dst); err != nil || *f.dst == nil {
				return nil, fieldErr(f.member, f.member, "must be an array of strings")
			}
		}
	}
	return m, nil
}

// unverifiedGrants are the grant types a dynamic or metadata client may
// have.
var unverifiedGrants = []string{GrantAuthorizationCode, GrantRefreshToken}

// client builds and validates the client of m, which source (dynamic or
// metadata) registers: the rules of CONTRACT §19 for registrations and
// documents. A document's client is public and must be named; a
// registration's may be confidential.
func (p Policy) client(m *Metadata, source string) (*models.OAuthClient, *FieldError) {
	c := &models.OAuthClient{Source: source, GrantTypes: slices.Clone(DefaultGrantTypes),
		TokenEndpointAuthMethod: AuthClientSecretBasic, MinAAL: 1, IDTokenAlg: AlgRS256}
	if source == models.OAuthClientMetadata {
		c.TokenEndpointAuthMethod = AuthNone
	}
	if len(m.RedirectURIs) == 0 {
		fe := fieldErr("redirectUris", "redirect_uris", "must name at least one redirect URI")
		fe.Redirect = true
		return nil, fe
	}
	if m.ClientName == nil && source == models.OAuthClientMetadata {
		return nil, fieldErr("name", "client_name", "is required")
	}
	if m.GrantTypes != nil {
		if err := validGrantTypes(m.GrantTypes, unverifiedGrants); err != nil {
			return nil, fieldErr("grantTypes", "grant_types", "%s", err.Error())
		}
		if !slices.Contains(m.GrantTypes, GrantAuthorizationCode) {
			return nil, fieldErr("grantTypes", "grant_types", "must include authorization_code")
		}
	}
	for _, rt := range m.ResponseTypes {
		if rt != "code" {
			return nil, fieldErr("responseTypes", "response_types", "only code is supported")
		}
	}
	if m.TokenEndpointAuthMethod != nil && source == models.OAuthClientMetadata && *m.TokenEndpointAuthMethod != AuthNone {
		return nil, fieldErr("tokenEndpointAuthMethod", "token_endpoint_auth_method",
			"must be none: a client ID metadata document names a public client")
	}
	in := Input{Name: m.ClientName, RedirectURIs: m.RedirectURIs, PostLogoutRedirectURIs: m.PostLogoutRedirectURIs,
		GrantTypes: m.GrantTypes, TokenEndpointAuthMethod: m.TokenEndpointAuthMethod, Scope: m.Scope,
		LogoURI: m.LogoURI, ClientURI: m.ClientURI}
	if source == models.OAuthClientDynamic {
		in.IDTokenAlg = m.IDTokenSignedResponseAlg
	}
	if fe := p.apply(c, &in); fe != nil {
		return nil, fe
	}
	return c, nil
}
