package models

import (
	"slices"
	"time"

	"github.com/lib/pq"
)

// The authentication methods a session records (RFC 8176 values).
const (
	MethodPassword     = "pwd" // a password
	MethodTOTP         = "otp" // a TOTP code
	MethodRecoveryCode = "rcv" // a recovery code
	MethodPasskey      = "hwk" // a passkey (WebAuthn)
	MethodFederated    = "fed" // an identity provider
)

// Assurance is how strongly and how recently a session was authenticated:
// the columns auth_methods, aal, authenticated_at, provider and
// factor_authenticated_at of a session row, which every rotation copies.
type Assurance struct {
	// Methods are the authentication methods used, in the order used.
	Methods pq.StringArray `db:"auth_methods"`
	// Level is the authenticator assurance level: 1, or 2 when two factors
	// (or one user-verified passkey) were used.
	Level int16 `db:"aal"`
	// AuthenticatedAt is the session's last interactive authentication:
	// its login, a second factor or a re-authentication; a refresh keeps it.
	AuthenticatedAt time.Time `db:"authenticated_at"`
	// Provider names the identity provider of a federated login, else nil.
	Provider *string `db:"provider"`
	// FactorAt is the session's last authentication with a second factor
	// (or a user-verified passkey): at its login, at the confirmation of
	// its TOTP or at a re-authentication; nil when it never used one.
	// Changes to the second factor ask for it to be recent: a password
	// alone does not let a session change the factors.
	FactorAt *time.Time `db:"factor_authenticated_at"`
}

// Factored returns a with FactorAt set to now when a is of level 2 (a
// session opened with a second factor or a user-verified passkey).
func (a Assurance) Factored(now time.Time) Assurance {
	if a.Level >= 2 {
		a.FactorAt = &now
	}
	return a
}

// With returns a copy of a that also records method (once) and, when
// level is higher, raises the level, authenticated at now. A method of
// level 2 (a second factor) also sets FactorAt to now.
func (a Assurance) With(method string, level int16, now time.Time) Assurance {
	out := a
	out.Methods = slices.Clone(a.Methods)
	if !slices.Contains(out.Methods, method) {
		out.Methods = append(out.Methods, method)
	}
	out.Level = max(a.Level, level)
	out.AuthenticatedAt = now
	if level >= 2 {
		out.FactorAt = &now
	}
	return out
}
