package federation

import "encoding/json"

// Identity is what a verified ID token says of the person who signed in.
type Identity struct {
	// Provider is the id of the provider that issued the token.
	Provider string
	// Subject is the provider's stable id of the person (sub).
	Subject string
	// Email is the e-mail claim, "" when absent; EmailVerified is true
	// only when the token says so.
	Email         string
	EmailVerified bool
	// GivenName and FamilyName are the profile's names, "" when absent.
	GivenName  string
	FamilyName string
	// Nonce is the token's nonce, for the caller to compare with the one
	// it sent.
	Nonce string
}

// idClaims are the claims read from an ID token beyond those the
// verifier checks.
type idClaims struct {
	Email         string   `json:"email"`
	EmailVerified flexBool `json:"email_verified"`
	GivenName     string   `json:"given_name"`
	FamilyName    string   `json:"family_name"`
}

// flexBool reads a claim sent as a JSON boolean or as the strings "true"
// and "false" (some providers send strings); any other value reads as
// false, so that a claim a provider garbles never counts as verified.
type flexBool bool

// UnmarshalJSON implements json.Unmarshaler.
func (b *flexBool) UnmarshalJSON(raw []byte) error {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return err
	}
	switch v {
	case true, "true":
		*b = true
	default:
		*b = false
	}
	return nil
}
