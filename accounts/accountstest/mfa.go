package accountstest

import (
	"context"
	"crypto/hmac"
	"crypto/sha1"
	"encoding/base32"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/actionkit/actionkit/accounts"
	"github.com/actionkit/actionkit/action"
	"github.com/actionkit/actionkit/auth"
	"github.com/actionkit/actionkit/models"
)

// TOTP is an owner's confirmed TOTP: its secret, the recovery codes the
// confirmation gave and the caller's session as it continued.
type TOTP struct {
	Secret        string
	RecoveryCodes []string
	Issued        *accounts.Issued
}

// WithTOTP turns TOTP on for acc from the session of iss: it enrols a
// secret and confirms it with the current code, then moves the Clock a
// step on so that the next code is not the one the confirmation spent.
func (e *Env) WithTOTP(t testing.TB, s *Service, acc *models.Account, iss *accounts.Issued) *TOTP {
	t.Helper()
	ctx := context.Background()
	en, err := s.SecondFactors.EnrollTOTP(ctx, acc.ID)
	if err != nil {
		t.Fatalf("accountstest: enrol totp: %v", err)
	}
	c, err := s.SecondFactors.ConfirmTOTP(ctx, acc.ID, iss.Session.SessionID, TOTPCode(t, en.Secret, s.Now()), Origin(action.Client(iss.Session.Client)))
	if err != nil {
		t.Fatalf("accountstest: confirm totp: %v", err)
	}
	e.Clock.Advance(30 * time.Second)
	return &TOTP{Secret: en.Secret, RecoveryCodes: c.RecoveryCodes, Issued: c.Issued}
}

// TOTPCode is the six-digit code of the base32 secret at the time at
// (RFC 6238: SHA-1, 30-second steps), as an authenticator app shows it.
func TOTPCode(t testing.TB, secret string, at time.Time) string {
	t.Helper()
	key, err := base32.StdEncoding.WithPadding(base32.NoPadding).DecodeString(strings.ToUpper(secret))
	if err != nil {
		t.Fatalf("accountstest: totp secret %q: %v", secret, err)
	}
	var step [8]byte
	binary.BigEndian.PutUint64(step[:], uint64(at.Unix()/30))
	mac := hmac.New(sha1.New, key)
	mac.Write(step[:])
	sum := mac.Sum(nil)
	off := sum[len(sum)-1] & 0x0f
	return fmt.Sprintf("%06d", (binary.BigEndian.Uint32(sum[off:off+4])&0x7fffffff)%1_000_000)
}

// SetFailedFactors sets the count of consecutive failed second factors of
// the owner id, as a budget spent elsewhere would leave it.
func (s *Service) SetFailedFactors(t testing.TB, id uuid.UUID, n int) {
	t.Helper()
	if _, err := s.DB.ExecContext(context.Background(), `UPDATE `+s.Kind.Tables.Owners+` SET mfa_failures = $2 WHERE id = $1`, id, n); err != nil {
		t.Fatalf("accountstest: set mfa_failures: %v", err)
	}
}

// FailedFactors reads the count of consecutive failed second factors of the
// owner id.
func (s *Service) FailedFactors(t testing.TB, id uuid.UUID) int {
	t.Helper()
	var n int
	if err := s.DB.GetContext(context.Background(), &n, `SELECT mfa_failures FROM `+s.Kind.Tables.Owners+` WHERE id = $1`, id); err != nil {
		t.Fatalf("accountstest: read mfa_failures: %v", err)
	}
	return n
}

// FirstStep logs acc in with Password from o and returns the handle of
// the second step it owes; it fails t when the login asks for none.
func (s *Service) FirstStep(t testing.TB, acc *models.Account, o accounts.Origin) string {
	t.Helper()
	_, err := s.Login(context.Background(), acc.Email, Password, o)
	var mfa *accounts.MFARequiredError
	if !errors.As(err, &mfa) {
		t.Fatalf("accountstest: first step of %s: %v, want a second step", acc.Email, err)
	}
	return mfa.Token
}

// Challenge reads the attempts and the use of the login challenge whose
// handle is raw.
func (s *Service) Challenge(t testing.TB, raw string) (attempts int, used bool) {
	t.Helper()
	err := s.DB.QueryRowxContext(context.Background(), `SELECT attempts, used_at IS NOT NULL FROM login_challenges WHERE token_hash = $1`,
		auth.HashOpaqueToken(raw)).Scan(&attempts, &used)
	if err != nil {
		t.Fatalf("accountstest: challenge: %v", err)
	}
	return attempts, used
}

// RecoveryCodeForm matches a recovery code as the engine shows it: four
// groups of five of Crockford's base32, joined by dashes.
var RecoveryCodeForm = regexp.MustCompile(`^[0-9A-HJKMNP-TV-Z]{5}(-[0-9A-HJKMNP-TV-Z]{5}){3}$`)

// NoSecretsStored fails t when any row of any table of e's database, in
// its JSON text form, holds one of secrets: as given, lowercased, without
// dashes, or (for a base32 TOTP secret) its raw bytes in hex, as bytea
// shows them.
func (e *Env) NoSecretsStored(t testing.TB, secrets []string) {
	t.Helper()
	var needles []string
	for _, sec := range secrets {
		plain := strings.ReplaceAll(sec, "-", "")
		needles = append(needles, sec, strings.ToLower(sec), plain, strings.ToLower(plain))
		if raw, err := base32.StdEncoding.WithPadding(base32.NoPadding).DecodeString(sec); err == nil {
			needles = append(needles, hex.EncodeToString(raw))
		}
	}
	ctx := context.Background()
	var tables []string
	if err := e.DB.SelectContext(ctx, &tables, `SELECT tablename FROM pg_tables WHERE schemaname = 'public'`); err != nil {
		t.Fatalf("accountstest: %v", err)
	}
	rows := 0
	for _, table := range tables {
		var texts []string
		if err := e.DB.SelectContext(ctx, &texts, `SELECT row_to_json(t)::text FROM `+table+` t`); err != nil {
			t.Fatalf("accountstest: %v", err)
		}
		rows += len(texts)
		for _, text := range texts {
			for _, n := range needles {
				if strings.Contains(text, n) {
					t.Errorf("table %s holds %q in plain text", table, n)
				}
			}
		}
	}
	if rows == 0 {
		t.Fatal("accountstest: the scan for secrets read no row")
	}
}
