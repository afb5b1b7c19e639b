package accounts

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"encoding/hex"
	"strings"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"

	"github.com/actionkit/actionkit/mail"
	"github.com/actionkit/actionkit/models"
)

// Recovery codes: 10 per set, each 20 characters of Crockford's base32
// (100 random bits), shown as four groups of five.
const (
	recoveryCodeCount = 10
	recoveryCodeChars = 20
	crockford         = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
	// recoveryMACPurpose names the key, derived from the data key, under
	// which the codes' hashes are computed.
	recoveryMACPurpose = "mfa_recovery_codes.code_hash"
)

// recoveryCodes is a new set: the codes to show once, and what is stored.
type recoveryCodes struct {
	plain  []string
	ids    []uuid.UUID
	hashes []string
}

// newRecoveryCodes makes a set of codes for the owner.
func (sf *SecondFactors) newRecoveryCodes(owner uuid.UUID) (*recoveryCodes, error) {
	if sf.Engine.MFA.Key == nil {
		return nil, errNoDataKey
	}
	out := &recoveryCodes{}
	for range recoveryCodeCount {
		raw := make([]byte, recoveryCodeChars)
		if _, err := rand.Read(raw); err != nil {
			return nil, err
		}
		var b strings.Builder
		for i, c := range raw {
			if i > 0 && i%5 == 0 {
				b.WriteByte('-')
			}
			b.WriteByte(crockford[c&31]) // 32 divides 256: uniform
		}
		id, err := uuid.NewV7()
		if err != nil {
			return nil, err
		}
		code := b.String()
		norm, _ := normalizeRecoveryCode(code)
		out.plain = append(out.plain, code)
		out.ids = append(out.ids, id)
		out.hashes = append(out.hashes, sf.recoveryHash(owner, norm))
	}
	return out, nil
}

// normalizeRecoveryCode reads a code as a person may type it: any case,
// dashes and spaces ignored, and Crockford's look-alikes (I and L for 1,
// O for 0) read as the digits. It reports false unless 20 characters of
// the alphabet remain.
func normalizeRecoveryCode(in string) (string, bool) {
	var b strings.Builder
	for _, r := range strings.ToUpper(in) {
		switch r {
		case '-', ' ':
			continue
		case 'I', 'L':
			r = '1'
		case 'O':
			r = '0'
		}
		if r > 127 || !strings.ContainsRune(crockford, r) {
			return "", false
		}
		b.WriteRune(r)
	}
	if b.Len() != recoveryCodeChars {
		return "", false
	}
	return b.String(), true
}

// recoveryHash is the stored form of a normalized code of the owner: an
// HMAC-SHA256 under a key derived from the data key, bound to the owner.
func (sf *SecondFactors) recoveryHash(owner uuid.UUID, normalized string) string {
	msg := string(sf.Engine.Kind.Type) + " " + owner.String() + " " + normalized
	return hex.EncodeToString(sf.Engine.MFA.Key.MAC(recoveryMACPurpose, []byte(msg)))
}

// matchRecoveryCode returns the id of the owner's unused code equal to
// code. Every unused code is compared, in constant time and with no early
// exit; a code that cannot be one is no match.
func (sf *SecondFactors) matchRecoveryCode(ctx context.Context, owner uuid.UUID, code string) (uuid.UUID, bool, error) {
	if sf.Engine.MFA.Key == nil {
		return uuid.Nil, false, errNoDataKey
	}
	norm, ok := normalizeRecoveryCode(code)
	if !ok {
		return uuid.Nil, false, nil
	}
	unused, err := sf.Engine.Factors.UnusedRecoveryCodes(ctx, sf.Engine.DB, string(sf.Engine.Kind.Type), owner)
	if err != nil {
		return uuid.Nil, false, err
	}
	want := []byte(sf.recoveryHash(owner, norm))
	var match uuid.UUID
	found := false
	for _, c := range unused {
		if hmac.Equal([]byte(c.CodeHash), want) {
			match, found = c.ID, true
		}
	}
	return match, found, nil
}

// RegenerateRecoveryCodes replaces the owner's recovery codes by a new
// set (the earlier ones are void) and returns it, to be shown once; the
// owner gets a notice. ErrMFANotEnabled means the owner has no second
// factor.
func (sf *SecondFactors) RegenerateRecoveryCodes(ctx context.Context, owner uuid.UUID, o Origin) ([]string, error) {
	codes, err := sf.newRecoveryCodes(owner)
	if err != nil {
		return nil, err
	}
	var acc *models.Account
	err = models.Transact(ctx, sf.Engine.DB, func(tx *sqlx.Tx) error {
		var err error
		if acc, err = sf.Engine.lockActive(ctx, tx, owner); err != nil {
			return err
		}
		f, err := sf.Engine.Factors.Factors(ctx, tx, string(sf.Engine.Kind.Type), owner)
		if err != nil {
			return err
		}
		if !factorsEnabled(f) {
			return ErrMFANotEnabled
		}
		now := sf.Engine.Now()
		if err := sf.Engine.Factors.ReplaceRecoveryCodes(ctx, tx, string(sf.Engine.Kind.Type), owner, codes.ids, codes.hashes, now); err != nil {
			return err
		}
		return sf.Engine.record(ctx, tx, models.EventRecoveryCodesRegenerated, owner, uuid.Nil, o, map[string]any{"count": recoveryCodeCount})
	})
	if err != nil {
		return nil, err
	}
	sf.Engine.notices().send(ctx, acc, mail.RecoveryCodesRegenerated)
	return codes.plain, nil
}
