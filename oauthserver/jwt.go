package oauthserver

import (
	"context"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base64"
	"errors"
	"fmt"
	"hash"
	"slices"
	"strings"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/google/uuid"

	"github.com/actionkit/actionkit/auth"
	"github.com/actionkit/actionkit/models"
)

// The typ headers of the provider's tokens.
const (
	typAccessToken     = "at+jwt"
	typAccessTokenMIME = "application/at+jwt"
	typIDToken         = "JWT"
)

// accessToken is what an access token says (RFC 9068).
type accessToken struct {
	Subject  string
	Audience string
	ClientID string
	Scopes   []string
	// Session and AuthTime are set for a user's token, zero for a
	// client's own (client_credentials).
	Session  uuid.UUID
	AuthTime time.Time
}

// signAccessToken signs t with the active access-token key and returns it
// with its lifetime.
func (s *Server) signAccessToken(t accessToken) (string, time.Duration, error) {
	now := s.now().Truncate(time.Second)
	jti, err := uuid.NewV7()
	if err != nil {
		return "", 0, err
	}
	c := jwt.MapClaims{
		"iss": s.Issuer, "sub": t.Subject, "aud": t.Audience, "client_id": t.ClientID,
		"scope": strings.Join(t.Scopes, " "), "iat": now.Unix(), "exp": now.Add(s.AccessTokenTTL).Unix(),
		"jti": jti.String(),
	}
	if t.Session != uuid.Nil {
		c["sid"] = t.Session.String()
		c["auth_time"] = t.AuthTime.Unix()
	}
	k, err := s.Keys.SigningKey()
	if err != nil {
		return "", 0, err
	}
	tok, err := sign(k, typAccessToken, c)
	return tok, s.AccessTokenTTL, err
}

// idToken is what an ID token says of the session it is issued for.
type idToken struct {
	Account  *models.Account
	ClientID string
	Session  uuid.UUID
	AuthTime time.Time
	Methods  []string
	Nonce    string
	Scopes   []string
	// AccessToken is hashed into at_hash.
	AccessToken string
}

// signIDToken signs the ID token of t with the key the client's
// id_token_alg names.
func (s *Server) signIDToken(client *models.OAuthClient, t idToken) (string, error) {
	var (
		k   *auth.Key
		err error
	)
	switch {
	case client.IDTokenAlg == s.AccessTokenAlg:
		k, err = s.Keys.SigningKey()
	case client.IDTokenAlg == RS256 && s.IDKeys != nil:
		k, err = s.IDKeys.IDTokenKey()
	default:
		err = fmt.Errorf("no key signs ID tokens with %s", client.IDTokenAlg)
	}
	if err != nil {
		return "", err
	}
	now := s.now().Truncate(time.Second)
	c := jwt.MapClaims{
		"iss": s.Issuer, "sub": t.Account.ID.String(), "aud": t.ClientID, "iat": now.Unix(),
		"exp": now.Add(s.AccessTokenTTL).Unix(), "auth_time": t.AuthTime.Unix(), "sid": t.Session.String(),
		"amr": nonNilStrings(t.Methods),
	}
	if t.Nonce != "" {
		c["nonce"] = t.Nonce
	}
	if t.AccessToken != "" {
		c["at_hash"] = leftHalfHash(k.Alg, t.AccessToken)
	}
	for k, v := range userClaims(t.Account, t.Scopes) {
		c[k] = v
	}
	return sign(k, typIDToken, c)
}

// userClaims are the claims about the user that scopes grant (ID tokens
// and userinfo).
func userClaims(acc *models.Account, scopes []string) map[string]any {
	out := map[string]any{}
	if slices.Contains(scopes, ScopeEmail) {
		out["email"] = acc.Email
		out["email_verified"] = acc.EmailVerifiedAt != nil
	}
	if slices.Contains(scopes, ScopeProfile) {
		out["name"] = strings.TrimSpace(acc.FirstName + " " + acc.LastName)
		out["given_name"] = acc.FirstName
		out["family_name"] = acc.LastName
		out["locale"] = acc.Locale
		out["zoneinfo"] = acc.Timezone
		out["updated_at"] = acc.UpdatedAt.Unix()
	}
	return out
}

// leftHalfHash is at_hash: the left half of the hash of token that the
// signing algorithm uses (SHA-512 for EdDSA, as OpenID's Ed25519 profile
// and go-oidc read it), base64url.
func leftHalfHash(alg, token string) string {
	var h hash.Hash
	if alg == auth.EdDSA {
		h = sha512.New()
	} else {
		h = sha256.New()
	}
	h.Write([]byte(token))
	sum := h.Sum(nil)
	return base64.RawURLEncoding.EncodeToString(sum[:len(sum)/2])
}

// sign signs claims with k under its own algorithm, with its kid and the
// typ header typ.
func sign(k *auth.Key, typ string, claims jwt.MapClaims) (string, error) {
	if k.Private == nil {
		return "", fmt.Errorf("key %s has no private part: %w", k.ID, auth.ErrNoSigningKey)
	}
	m := jwt.GetSigningMethod(k.Alg)
	if m == nil {
		return "", fmt.Errorf("unknown algorithm %s", k.Alg)
	}
	tok := jwt.NewWithClaims(m, claims)
	tok.Header["kid"] = k.ID
	tok.Header["typ"] = typ
	return tok.SignedString(k.Private)
}

// errInvalidToken is a Bearer token that is not a live access token of
// this issuer.
var errInvalidToken = errors.New("invalid access token")

// verifiedToken is a verified access token's claims.
type verifiedToken struct {
	Subject  string
	Audience string
	ClientID string
	Scopes   []string
	Session  uuid.UUID
	// IssuedAt and ExpiresAt are iat and exp, in seconds.
	IssuedAt, ExpiresAt int64
}

// verifyAccessToken checks raw as an access token of this issuer: its
// typ header (at+jwt), a published key of its kid and alg, iss, exp and
// iat. A key source that cannot answer is returned as is (not a
// refusal); any refusal wraps errInvalidToken.
func (s *Server) verifyAccessToken(ctx context.Context, raw string) (*verifiedToken, error) {
	if raw == "" || len(raw) > auth.MaxTokenBytes {
		return nil, errInvalidToken
	}
	var failure error
	parser := jwt.NewParser(jwt.WithValidMethods([]string{auth.EdDSA, auth.ES256}), jwt.WithIssuer(s.Issuer),
		jwt.WithExpirationRequired(), jwt.WithIssuedAt(), jwt.WithLeeway(auth.ClockSkew),
		jwt.WithTimeFunc(s.now), jwt.WithStrictDecoding())
	claims := jwt.MapClaims{}
	_, err := parser.ParseWithClaims(raw, claims, func(t *jwt.Token) (any, error) {
		typ, _ := t.Header["typ"].(string)
		if typ != typAccessToken && typ != typAccessTokenMIME {
			return nil, fmt.Errorf("typ %q is not an access token", typ)
		}
		kid, _ := t.Header["kid"].(string)
		k, err := s.Keys.VerifyKey(ctx, kid)
		if err != nil {
			if !errors.Is(err, auth.ErrUnknownKey) {
				failure = err
			}
			return nil, err
		}
		if k.Alg != t.Method.Alg() {
			return nil, fmt.Errorf("kid %s is an %s key", kid, k.Alg)
		}
		return k.Public, nil
	})
	if failure != nil {
		return nil, failure
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %w", errInvalidToken, err)
	}
	v := &verifiedToken{}
	v.Subject, _ = claims["sub"].(string)
	v.Audience, _ = claims["aud"].(string)
	v.ClientID, _ = claims["client_id"].(string)
	if f, ok := claims["iat"].(float64); ok {
		v.IssuedAt = int64(f)
	}
	if f, ok := claims["exp"].(float64); ok {
		v.ExpiresAt = int64(f)
	}
	scope, _ := claims["scope"].(string)
	v.Scopes = strings.Fields(scope)
	if sid, ok := claims["sid"].(string); ok {
		if v.Session, err = uuid.Parse(sid); err != nil {
			return nil, fmt.Errorf("%w: sid", errInvalidToken)
		}
	}
	if v.Subject == "" || v.ClientID == "" {
		return nil, fmt.Errorf("%w: no sub or client_id", errInvalidToken)
	}
	return v, nil
}

func nonNilStrings(a []string) []string {
	if a == nil {
		return []string{}
	}
	return a
}
