package clients

import (
	"slices"

	"github.com/actionkit/actionkit/models"
)

// Input is what an admin gives to create or change a client; a nil field
// is not given (create then takes its default, update keeps the value).
// An empty LogoURI or ClientURI removes it.
type Input struct {
	Name                    *string
	RedirectURIs            []string
	PostLogoutRedirectURIs  []string
	GrantTypes              []string
	TokenEndpointAuthMethod *string
	Scope                   *string
	MinAAL                  *int
	IDTokenAlg              *string
	LogoURI                 *string
	ClientURI               *string
}

// adminGrants are the grant types an admin client may have.
var adminGrants = []string{GrantAuthorizationCode, GrantRefreshToken, GrantClientCredentials}

// apply validates in and writes it onto c, an admin or dynamic client
// (new, or as stored for an update), then checks the result as a whole.
func (p Policy) apply(c *models.OAuthClient, in *Input) *FieldError {
	if in.Name != nil {
		name, err := validName(*in.Name)
		if err != nil {
			return fieldErr("name", "client_name", "%s", err.Error())
		}
		c.Name = name
	}
	if in.RedirectURIs != nil {
		if fe := validRedirectList(in.RedirectURIs, "redirectUris", "redirect_uris"); fe != nil {
			return fe
		}
		c.RedirectURIs = slices.Clone(in.RedirectURIs)
	}
	if in.PostLogoutRedirectURIs != nil {
		if fe := validRedirectList(in.PostLogoutRedirectURIs, "postLogoutRedirectUris", "post_logout_redirect_uris"); fe != nil {
			return fe
		}
		c.PostLogoutRedirectURIs = slices.Clone(in.PostLogoutRedirectURIs)
	}
	if in.GrantTypes != nil {
		if err := validGrantTypes(in.GrantTypes, adminGrants); err != nil {
			return fieldErr("grantTypes", "grant_types", "%s", err.Error())
		}
		c.GrantTypes = slices.Clone(in.GrantTypes)
	}
	if in.TokenEndpointAuthMethod != nil {
		m := *in.TokenEndpointAuthMethod
		if err := validAuthMethod(m); err != nil {
			return fieldErr("tokenEndpointAuthMethod", "token_endpoint_auth_method", "%s", err.Error())
		}
		if c.TokenEndpointAuthMethod == AuthNone && m != AuthNone && !c.CreatedAt.IsZero() {
			// The secret is shown once, at creation or rotation: a public
			// client that became confidential would have none anyone knows.
			return fieldErr("tokenEndpointAuthMethod", "token_endpoint_auth_method",
				"a public client cannot become confidential; register a new client")
		}
		c.TokenEndpointAuthMethod = m
	}
	if in.Scope != nil {
		s, err := p.validScope(*in.Scope)
		if err != nil {
			return fieldErr("scope", "scope", "%s", err.Error())
		}
		if s == "" && c.Source == models.OAuthClientAdmin {
			return fieldErr("scope", "scope", "must name at least one scope")
		}
		c.Scope = &s
		if s == "" {
			c.Scope = nil
		}
	}
	if in.MinAAL != nil {
		if *in.MinAAL != 1 && *in.MinAAL != 2 {
			return fieldErr("minAal", "min_aal", "must be 1 or 2")
		}
		c.MinAAL = int16(*in.MinAAL)
	}
	if in.IDTokenAlg != nil {
		if err := p.validIDTokenAlg(*in.IDTokenAlg); err != nil {
			return fieldErr("idTokenAlg", "id_token_signed_response_alg", "%s", err.Error())
		}
		c.IDTokenAlg = *in.IDTokenAlg
	}
	if fe := optionalWebURI(&c.LogoURI, in.LogoURI, "logoUri", "logo_uri"); fe != nil {
		return fe
	}
	if fe := optionalWebURI(&c.ClientURI, in.ClientURI, "clientUri", "client_uri"); fe != nil {
		return fe
	}
	return whole(c)
}

// optionalWebURI validates a logo or client URI and sets *dst: nil keeps
// it, "" removes it.
func optionalWebURI(dst **string, v *string, field, member string) *FieldError {
	switch {
	case v == nil:
	case *v == "":
		*dst = nil
	default:
		if err := ValidWebURI(*v); err != nil {
			return fieldErr(field, member, "%s", err.Error())
		}
		s := *v
		*dst = &s
	}
	return nil
}

// whole checks what holds between a client's fields: the code grant needs
// a redirect URI, client_credentials a confidential client, and only
// admin clients may use client_credentials.
func whole(c *models.OAuthClient) *FieldError {
	code := slices.Contains(c.GrantTypes, GrantAuthorizationCode)
	if code && len(c.RedirectURIs) == 0 {
		fe := fieldErr("redirectUris", "redirect_uris", "must name at least one redirect URI for the authorization_code grant")
		fe.Redirect = true
		return fe
	}
	if slices.Contains(c.GrantTypes, GrantClientCredentials) {
		if c.TokenEndpointAuthMethod == AuthNone {
			return fieldErr("grantTypes", "grant_types", "client_credentials needs a confidential client (a token endpoint authentication method other than none)")
		}
		if c.Source != models.OAuthClientAdmin {
			return fieldErr("grantTypes", "grant_types", "client_credentials is for clients an admin registers")
		}
	}
	return nil
}
