package clients

import (
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// The grant types, authentication methods and ID-token algorithm a client
// may name (CONTRACT §19).
const (
	GrantAuthorizationCode = "authorization_code"
	GrantRefreshToken      = "refresh_token"
	GrantClientCredentials = "client_credentials"

	AuthNone              = "none"
	AuthClientSecretBasic = "client_secret_basic"
	AuthClientSecretPost  = "client_secret_post"

	AlgRS256 = "RS256"
)

// OpenIDScopes are the scopes every server supports, beside those its
// actions declare.
var OpenIDScopes = []string{"openid", "profile", "email", "offline_access"}

// DefaultGrantTypes are the grant types of a client that names none.
var DefaultGrantTypes = []string{GrantAuthorizationCode, GrantRefreshToken}

// DefaultScope is the scope of an admin client that names none.
const DefaultScope = "openid profile email"

// maxURI bounds every URI a client registers.
const maxURI = 2048

// maxName bounds a client's name.
const maxName = 200

// FieldError reports an invalid argument: Field is the admin action's
// argument name (redirectUris, scope, ...), Member the RFC 7591 member of
// the same value (redirect_uris, scope, ...).
type FieldError struct {
	Field  string
	Member string
	Reason string
	// Redirect is set when the value is a redirect URI, so that dynamic
	// registration answers invalid_redirect_uri.
	Redirect bool
}

func (e *FieldError) Error() string { return e.Field + ": " + e.Reason }

// fieldErr returns a FieldError of field (the argument name) and member
// (the RFC 7591 member name).
func fieldErr(field, member, format string, args ...any) *FieldError {
	return &FieldError{Field: field, Member: member, Reason: fmt.Sprintf(format, args...)}
}

// schemePattern is a URI scheme (RFC 3986 §3.1), lower case.
var schemePattern = regexp.MustCompile(`^[a-z][a-z0-9+.-]*$`)

// loopbackHosts are the hosts an http redirect URI may name (RFC 8252 §7.3).
var loopbackHosts = []string{"127.0.0.1", "::1", "localhost"}

// IsLoopback reports whether u is an http URI on a loopback host, which
// matches a registered one on any port (RFC 8252 §7.3).
func IsLoopback(u *url.URL) bool {
	return u.Scheme == "http" && slices.Contains(loopbackHosts, u.Hostname())
}

// ValidRedirectURI reports why raw may not be a redirect URI, or nil. It
// must be absolute, without fragment, user information or wildcard, and
// either https, http on a loopback host (127.0.0.1, [::1], localhost), or
// a private-use scheme holding a dot written scheme:/path
// (com.example.app:/cb). What could be read two ways is refused: control
// characters, spaces and backslashes, an upper-case scheme or host, dot
// segments (also percent-encoded, or with a parameter such as "..;"),
// percent-encoded slashes, and a host with percent-encoding.
func ValidRedirectURI(raw string) error {
	if err := plainURI(raw); err != nil {
		return err
	}
	u, err := url.Parse(raw)
	if err != nil || u.Scheme == "" {
		return errors.New("must be an absolute URI")
	}
	if !strings.HasPrefix(raw, u.Scheme+":") || !schemePattern.MatchString(u.Scheme) {
		return errors.New("must have a lower-case scheme")
	}
	if u.User != nil {
		return errors.New("must not carry user information")
	}
	if err := plainPath(u); err != nil {
		return err
	}
	switch {
	case u.Scheme == "https":
		return webHost(u, raw)
	case u.Scheme == "http":
		if err := webHost(u, raw); err != nil {
			return err
		}
		if !IsLoopback(u) {
			return errors.New("must be https, or http only on 127.0.0.1, [::1] or localhost")
		}
		return nil
	case strings.Contains(u.Scheme, "."):
		// RFC 8252 §7.1: a private-use scheme is followed by a single
		// slash and a path; anything else (an authority, an opaque part)
		// is refused.
		if u.Opaque != "" || u.Host != "" || strings.HasPrefix(raw, u.Scheme+"://") || !strings.HasPrefix(u.Path, "/") {
			return errors.New("a private-use scheme must be followed by a single slash and a path, such as com.example.app:/cb")
		}
		return nil
	}
	return errors.New("must be https, http on a loopback host, or a private-use scheme with a dot such as com.example.app:/cb")
}

// plainURI refuses what no URI of a client may hold: more than 2048
// bytes, invalid UTF-8, control characters, spaces, backslashes, a
// fragment and a wildcard.
func plainURI(raw string) error {
	if raw == "" || len(raw) > maxURI || !utf8.ValidString(raw) {
		return errors.New("must be an absolute URI of at most 2048 characters")
	}
	for _, r := range raw {
		if r <= ' ' || r == 0x7f || r == '\\' || unicode.IsSpace(r) || unicode.IsControl(r) {
			return errors.New("must not hold spaces, control characters or backslashes")
		}
	}
	if strings.Contains(raw, "#") {
		return errors.New("must not have a fragment")
	}
	if strings.Contains(raw, "*") {
		return errors.New("must not hold a wildcard")
	}
	return nil
}

// plainPath refuses dot segments ("..", ".", "..;x", also percent-encoded)
// and percent-encoded slashes and dots in the path, which servers and
// matchers may read differently.
func plainPath(u *url.URL) error {
	p := u.EscapedPath()
	lower := strings.ToLower(p)
	if strings.Contains(lower, "%2e") || strings.Contains(lower, "%2f") || strings.Contains(lower, "%5c") || strings.Contains(lower, "%00") {
		return errors.New("must not percent-encode dots, slashes or backslashes in the path")
	}
	for _, seg := range strings.Split(p, "/") {
		name, _, _ := strings.Cut(seg, ";")
		if name == "." || name == ".." {
			return errors.New("must not hold dot segments such as /../")
		}
	}
	return nil
}

// webHost checks the authority of an http(s) URI: a host in lower case,
// without percent-encoding, and a numeric port if any.
func webHost(u *url.URL, raw string) error {
	host := u.Hostname()
	if u.Opaque != "" || host == "" || !strings.HasPrefix(raw, u.Scheme+"://") {
		return errors.New("must be an absolute URI with a host")
	}
	if strings.Contains(u.Host, "%") || host != strings.ToLower(host) {
		return errors.New("must have a lower-case host without percent-encoding")
	}
	if strings.HasSuffix(u.Host, ":") {
		return errors.New("must not have an empty port")
	}
	return nil
}

// ValidWebURI reports why raw may not be a logo or client URI, or nil: an
// absolute https URI without user information or fragment.
func ValidWebURI(raw string) error {
	if err := plainURI(raw); err != nil {
		return err
	}
	u, err := url.Parse(raw)
	if err != nil || u.Scheme != "https" || !strings.HasPrefix(raw, "https://") {
		return errors.New("must be an absolute https URI")
	}
	if u.User != nil {
		return errors.New("must not carry user information")
	}
	return webHost(u, raw)
}

// validName returns name trimmed, or why it is not a client's name: 1 to
// 200 characters without control characters.
func validName(name string) (string, error) {
	name = strings.TrimSpace(name)
	if name == "" || utf8.RuneCountInString(name) > maxName || !utf8.ValidString(name) {
		return "", fmt.Errorf("must be 1 to %d characters", maxName)
	}
	for _, r := range name {
		if unicode.IsControl(r) {
			return "", errors.New("must not hold control characters")
		}
	}
	return name, nil
}

// Policy is what the server supports: the scopes its actions declare and
// ACCESS_TOKEN_ALG, the other algorithm of ID tokens.
type Policy struct {
	// ActionScopes are the scopes actions declare (§20), beside
	// OpenIDScopes.
	ActionScopes []string
	// AccessTokenAlg is ACCESS_TOKEN_ALG (EdDSA or ES256).
	AccessTokenAlg string
}

// Scopes returns every scope the server supports.
func (p Policy) Scopes() []string {
	return append(slices.Clone(OpenIDScopes), p.ActionScopes...)
}

// validScope returns scope normalised (single spaces), or why it is not
// a list of known, distinct scopes; "" is an empty list.
func (p Policy) validScope(scope string) (string, error) {
	known := p.Scopes()
	fields := strings.Fields(scope)
	if strings.ContainsAny(scope, "\t\r\n") {
		return "", errors.New("must be scopes separated by single spaces")
	}
	for i, s := range fields {
		if !slices.Contains(known, s) {
			return "", fmt.Errorf("%q is not a scope of this server (%s)", s, strings.Join(known, " "))
		}
		if slices.Contains(fields[:i], s) {
			return "", fmt.Errorf("%q is named twice", s)
		}
	}
	return strings.Join(fields, " "), nil
}

// validIDTokenAlg reports whether alg may sign a client's ID tokens.
func (p Policy) validIDTokenAlg(alg string) error {
	if alg == AlgRS256 || (alg != "" && alg == p.AccessTokenAlg) {
		return nil
	}
	if p.AccessTokenAlg == "" {
		return errors.New("must be RS256")
	}
	return fmt.Errorf("must be RS256 or %s", p.AccessTokenAlg)
}

// validGrantTypes reports why grants may not be a client's grant types:
// at least one, none twice, each of allowed.
func validGrantTypes(grants, allowed []string) error {
	if len(grants) == 0 {
		return errors.New("must name at least one grant type")
	}
	for i, g := range grants {
		if !slices.Contains(allowed, g) {
			return fmt.Errorf("%q is not one of %s", g, strings.Join(allowed, ", "))
		}
		if slices.Contains(grants[:i], g) {
			return fmt.Errorf("%q is named twice", g)
		}
	}
	if slices.Contains(grants, GrantRefreshToken) && !slices.Contains(grants, GrantAuthorizationCode) {
		return errors.New("refresh_token needs authorization_code")
	}
	return nil
}

// validAuthMethod reports whether m is a token endpoint authentication
// method.
func validAuthMethod(m string) error {
	switch m {
	case AuthNone, AuthClientSecretBasic, AuthClientSecretPost:
		return nil
	}
	return errors.New("must be none, client_secret_basic or client_secret_post")
}

// validRedirectList checks every URI of a list: none invalid, none twice.
func validRedirectList(uris []string, field, member string) *FieldError {
	for i, u := range uris {
		if err := ValidRedirectURI(u); err != nil {
			fe := fieldErr(field, member, "%s %s", quoteURI(u), err.Error())
			fe.Redirect = true
			return fe
		}
		if slices.Contains(uris[:i], u) {
			fe := fieldErr(field, member, "%s is named twice", quoteURI(u))
			fe.Redirect = true
			return fe
		}
	}
	if len(uris) > 20 {
		return fieldErr(field, member, "must name at most 20 URIs")
	}
	return nil
}

// quoteURI quotes a URI for an error message, cut to 100 characters.
func quoteURI(u string) string {
	if len(u) > 100 {
		u = u[:100] + "..."
	}
	return fmt.Sprintf("%q", u)
}

// ClientIDPrefix starts the client id of admin and dynamic clients.
const ClientIDPrefix = "ak_"

// NewClientID returns a client id: "ak_" and 24 random bytes as 32
// base64url characters.
func NewClientID() (string, error) {
	var b [24]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("clients: client id: %w", err)
	}
	return ClientIDPrefix + base64.RawURLEncoding.EncodeToString(b[:]), nil
}

// NewSecret returns a client secret: 32 random bytes as base64url without
// padding (43 characters).
func NewSecret() (string, error) {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("clients: client secret: %w", err)
	}
	return base64.RawURLEncoding.EncodeToString(b[:]), nil
}
