package auth

import (
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/actionkit/actionkit/action"
	"github.com/golang-jwt/jwt/v5"
	"github.com/google/uuid"
)

// wireClaims is the JSON payload of an access token. aud is a plain string,
// so an array audience fails to decode and the token is refused.
type wireClaims struct {
	Sub          string      `json:"sub"`
	Sid          string      `json:"sid"` // Claims.SessionID
	Type         string      `json:"type"`
	TokenVersion wireVersion `json:"tokenVersion"`
	Iat          wireDate    `json:"iat,omitzero"`
	Exp          wireDate    `json:"exp,omitzero"`
	Nbf          wireDate    `json:"nbf,omitzero"` // never issued, honoured if present
	Iss          string      `json:"iss"`
	Aud          string      `json:"aud"`
	Amr          []string    `json:"amr,omitempty"`
	AuthTime     wireDate    `json:"auth_time,omitzero"`
}

// verified checks the claims the jwt validator does not know and converts
// them.
func (c *wireClaims) verified(owner action.OwnerType) (Claims, error) {
	if c.Type != string(owner) {
		return Claims{}, invalid(fmt.Errorf("type %q, want %q", c.Type, owner))
	}
	client, ok := audienceClient(owner, c.Aud)
	if !ok {
		return Claims{}, invalid(fmt.Errorf("audience %q, want %s or %s",
			c.Aud, owner.Audience(action.Web), owner.Audience(action.App)))
	}
	if c.Iat.IsZero() {
		return Claims{}, invalid(errors.New("iat claim is required"))
	}
	if !c.TokenVersion.set {
		return Claims{}, invalid(errors.New("tokenVersion claim is required"))
	}
	if c.TokenVersion.n < 0 {
		return Claims{}, invalid(fmt.Errorf("negative tokenVersion %d", c.TokenVersion.n))
	}
	id, ok := claimUUID(c.Sub)
	if !ok {
		return Claims{}, invalid(errors.New("sub is not a UUID"))
	}
	sid, ok := claimUUID(c.Sid)
	if !ok {
		return Claims{}, invalid(errors.New("sid is missing or not a UUID"))
	}
	return Claims{
		Subject:      id,
		SessionID:    sid,
		Type:         owner,
		TokenVersion: c.TokenVersion.n,
		Client:       client,
		IssuedAt:     c.Iat.UTC(),
		ExpiresAt:    c.Exp.UTC(),
		Methods:      c.Amr,
		AuthTime:     authTime(c.AuthTime),
	}, nil
}

// authTime is the auth_time claim in UTC, zero when absent.
func authTime(d wireDate) time.Time {
	if d.IsZero() {
		return time.Time{}
	}
	return d.UTC()
}

// claimUUID parses a UUID claim in its canonical 36-character form; the
// nil UUID is refused.
func claimUUID(v string) (uuid.UUID, bool) {
	if len(v) != 36 {
		return uuid.Nil, false
	}
	id, err := uuid.Parse(v)
	return id, err == nil && id != uuid.Nil
}

// audienceClient reports the client of aud when aud is
// owner.Audience(web) or owner.Audience(app), without building either.
func audienceClient(owner action.OwnerType, aud string) (action.Client, bool) {
	n := len(owner)
	if len(aud) <= n+1 || aud[:n] != string(owner) || aud[n] != '-' {
		return "", false
	}
	switch c := action.Client(aud[n+1:]); c {
	case action.Web:
		return action.Web, true
	case action.App:
		return action.App, true
	}
	return "", false
}

// GetExpirationTime implements jwt.Claims.
func (c *wireClaims) GetExpirationTime() (*jwt.NumericDate, error) { return c.Exp.orNil(), nil }

// GetIssuedAt implements jwt.Claims.
func (c *wireClaims) GetIssuedAt() (*jwt.NumericDate, error) { return c.Iat.orNil(), nil }

// GetNotBefore implements jwt.Claims.
func (c *wireClaims) GetNotBefore() (*jwt.NumericDate, error) { return c.Nbf.orNil(), nil }

// GetIssuer implements jwt.Claims.
func (c *wireClaims) GetIssuer() (string, error) { return c.Iss, nil }

// GetSubject implements jwt.Claims.
func (c *wireClaims) GetSubject() (string, error) { return c.Sub, nil }

// GetAudience implements jwt.Claims. Parse checks the audience itself, so
// the validator never calls this.
func (c *wireClaims) GetAudience() (jwt.ClaimStrings, error) {
	if c.Aud == "" {
		return nil, nil
	}
	return jwt.ClaimStrings{c.Aud}, nil
}

// wireDate is a date claim: whole seconds since the epoch, as Issue
// writes them. It decodes without the detour through json.Number and the
// allocation jwt.NumericDate makes; a fraction, an exponent or a string
// fails to decode.
type wireDate struct{ jwt.NumericDate }

// MarshalJSON writes the date as whole seconds.
func (d wireDate) MarshalJSON() ([]byte, error) { return strconv.AppendInt(nil, d.Unix(), 10), nil }

// UnmarshalJSON accepts a JSON integer; null counts as absent.
func (d *wireDate) UnmarshalJSON(b []byte) error {
	n, present, err := jsonInt(b, "date claim is not whole seconds")
	if err != nil {
		return err
	}
	*d = wireDate{}
	if present {
		d.NumericDate = jwt.NumericDate{Time: time.Unix(n, 0)}
	}
	return nil
}

// orNil returns the date for the jwt validator, nil when absent.
func (d *wireDate) orNil() *jwt.NumericDate {
	if d.IsZero() {
		return nil
	}
	return &d.NumericDate
}

// wireVersion is the tokenVersion claim: a JSON integer, remembering
// whether it was present. A fraction, an exponent, a string or a value
// beyond int64 fails to decode.
type wireVersion struct {
	n   int64
	set bool
}

// MarshalJSON writes the version as a JSON integer.
func (v wireVersion) MarshalJSON() ([]byte, error) { return strconv.AppendInt(nil, v.n, 10), nil }

// UnmarshalJSON accepts a JSON integer; null counts as absent.
func (v *wireVersion) UnmarshalJSON(b []byte) error {
	n, present, err := jsonInt(b, "tokenVersion is not an integer")
	if err != nil {
		return err
	}
	*v = wireVersion{n: n, set: present}
	return nil
}

// jsonInt decodes a claim that must be a JSON integer: null is absent
// (present false), and anything but an integer within int64 (a fraction,
// an exponent, a string) is refused with the message invalid.
func jsonInt(b []byte, invalid string) (n int64, present bool, err error) {
	if string(b) == "null" {
		return 0, false, nil
	}
	n, err = strconv.ParseInt(string(b), 10, 64)
	if err != nil {
		return 0, false, errors.New(invalid)
	}
	return n, true, nil
}
