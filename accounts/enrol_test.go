package accounts_test

import (
	"encoding/base32"
	"errors"
	"log/slog"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/actionkit/actionkit/accounts"
	"github.com/actionkit/actionkit/accounts/accountstest"
	"github.com/actionkit/actionkit/action"
	"github.com/actionkit/actionkit/internal/syncbuf"
	"github.com/actionkit/actionkit/models"
)

// TestTOTPEnrolment walks the setup of TOTP on the engine: the status
// before, an enrolment (a 20-byte secret, its otpauth URL with the
// issuer), a pending secret that changes no login and that a second
// enrolment replaces, a wrong then a right confirmation, and what the
// confirmation changes: ten recovery codes, every other session ended,
// the caller's continued at level 2 with otp, an mfa_enabled event, and
// the setup's code spent, so that it cannot log in.
func TestTOTPEnrolment(t *testing.T) {
	env := newEnv(t)
	users := env.NewService(t, accounts.Users)
	users.MFA.Issuer = "Acme Test"
	sf, o := users.SecondFactors, accountstest.Origin(action.App)
	acc, iss := users.LoggedIn(t, action.App)
	other := users.NewSession(t, acc, action.App)
	st, err := sf.Status(t.Context(), acc.ID)
	if err != nil || st.Enabled || len(st.Methods) != 0 || st.TOTPConfirmedAt != nil || st.RecoveryCodesRemaining != 0 || st.Passkeys != 0 {
		t.Fatalf("status before: %+v, %v", st, err)
	}
	first, err := sf.EnrollTOTP(t.Context(), acc.ID)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := base32.StdEncoding.WithPadding(base32.NoPadding).DecodeString(first.Secret)
	if err != nil || len(raw) != 20 {
		t.Fatalf("secret %q: %d bytes, %v; want 20", first.Secret, len(raw), err)
	}
	link, err := url.Parse(first.URL)
	if err != nil || link.Scheme != "otpauth" || link.Host != "totp" || link.Query().Get("secret") != first.Secret ||
		link.Query().Get("issuer") != "Acme Test" || !strings.Contains(link.Path, acc.Email) {
		t.Errorf("otpauth URL %q", first.URL)
	}
	if first.Issuer != "Acme Test" || first.AccountName != acc.Email || first.Digits != 6 || first.Period != 30 || first.Algorithm != "SHA1" {
		t.Errorf("enrolment %+v", first)
	}
	// Pending is not enabled: logins stay one step.
	if _, err := users.Login(t.Context(), acc.Email, accountstest.Password, o); err != nil {
		t.Fatalf("a login while TOTP is pending: %v, want one step", err)
	}
	// A second enrolment replaces the pending secret.
	second, err := sf.EnrollTOTP(t.Context(), acc.ID)
	if err != nil || second.Secret == first.Secret {
		t.Fatalf("second enrolment %+v, %v", second, err)
	}
	session := iss.Session.SessionID
	for _, bad := range []string{accountstest.TOTPCode(t, first.Secret, env.Clock.Now()), "12345"} {
		if _, err := sf.ConfirmTOTP(t.Context(), acc.ID, session, bad, o); !errors.Is(err, accounts.ErrInvalidTOTPCode) {
			t.Errorf("confirming with %q: %v, want ErrInvalidTOTPCode", bad, err)
		}
	}
	setup := accountstest.TOTPCode(t, second.Secret, env.Clock.Now())
	c, err := sf.ConfirmTOTP(t.Context(), acc.ID, session, setup[:3]+" "+setup[3:], o)
	if err != nil {
		t.Fatalf("confirming with the code spaced as apps show it: %v", err)
	}
	if len(c.RecoveryCodes) != 10 || c.RefreshToken == "" || c.AccessToken == "" || !c.Account.MFAEnabled {
		t.Fatalf("confirmation %+v with %d recovery codes", c.Issued, len(c.RecoveryCodes))
	}
	for _, code := range c.RecoveryCodes {
		if !accountstest.RecoveryCodeForm.MatchString(code) {
			t.Errorf("recovery code %q is not xxxxx-xxxxx-xxxxx-xxxxx of Crockford base32", code)
		}
	}
	// Every other session ended; the caller's goes on, at level 2.
	live := users.Live(t, acc.ID)
	if len(live) != 1 || live[0].SessionID != session || live[0].ID != c.Session.ID || live[0].Level != 2 ||
		!slices.Equal(live[0].Methods, []string{models.MethodPassword, models.MethodTOTP}) {
		t.Errorf("live sessions after the confirmation: %+v, want the caller's alone at level 2 with pwd, otp", live)
	}
	if _, err := users.Refresh(t.Context(), other.RefreshToken, o); err == nil {
		t.Error("the other session still refreshes")
	}
	if v := users.Reload(t, acc.ID).TokenVersion; v <= iss.Account.TokenVersion {
		t.Errorf("token version %d: the earlier access tokens still hold", v)
	}
	if ev := users.EventsOf(t, acc.ID)[0]; ev.Type != models.EventMFAEnabled {
		t.Errorf("event %s, want mfa_enabled", ev.Type)
	}
	if _, err := sf.ConfirmTOTP(t.Context(), acc.ID, session, accountstest.TOTPCode(t, second.Secret, env.Clock.Now()), o); !errors.Is(err, accounts.ErrTOTPNotPending) {
		t.Errorf("confirming again: %v, want ErrTOTPNotPending", err)
	}
	if _, err := sf.EnrollTOTP(t.Context(), acc.ID); !errors.Is(err, accounts.ErrTOTPEnabled) {
		t.Errorf("enrolling again: %v, want ErrTOTPEnabled", err)
	}
	st, err = sf.Status(t.Context(), acc.ID)
	if err != nil || !st.Enabled || !slices.Equal(slices.Sorted(slices.Values(st.Methods)), []string{accounts.FactorRecoveryCode, accounts.FactorTOTP}) ||
		st.RecoveryCodesRemaining != 10 || st.TOTPConfirmedAt == nil {
		t.Errorf("status after: %+v, %v", st, err)
	}

	// The setup's code consumed its step: it cannot log in.
	token := users.FirstStep(t, acc, o)
	if _, err := sf.Verify(t.Context(), token, accounts.SecondFactor{Method: accounts.FactorTOTP, Code: setup}, o); !errors.Is(err, accounts.ErrInvalidTOTPCode) {
		t.Errorf("the setup's code at login: %v, want ErrInvalidTOTPCode", err)
	}
	env.Clock.Advance(30 * time.Second)
	next := accounts.SecondFactor{Method: accounts.FactorTOTP, Code: accountstest.TOTPCode(t, second.Secret, env.Clock.Now())}
	if _, err := sf.Verify(t.Context(), token, next, o); err != nil {
		t.Errorf("the next step's code at login: %v", err)
	}
}

// TestUnreadableTOTPSecret: a TOTP secret that does not open under the
// data key fails the second step with an internal error, never a bypass
// nor a wrong-code answer; the log says what failed and holds no secret,
// the challenge is not spent, and another owner's secret still works.
func TestUnreadableTOTPSecret(t *testing.T) {
	env := newEnv(t)
	users := env.NewService(t, accounts.Users)
	var logs syncbuf.Buffer
	users.Log = slog.New(slog.NewTextHandler(&logs, nil))
	o := accountstest.Origin(action.Web)
	acc, iss := users.LoggedIn(t, action.Web)
	totp := env.WithTOTP(t, users, acc, iss)
	other, its := users.LoggedIn(t, action.Web)
	otherTOTP := env.WithTOTP(t, users, other, its)
	if _, err := env.DB.ExecContext(t.Context(), `UPDATE mfa_totp SET secret_ciphertext = set_byte(secret_ciphertext, 0, get_byte(secret_ciphertext, 0) # 1)
		WHERE owner_id = $1`, acc.ID); err != nil {
		t.Fatal(err)
	}
	token := users.FirstStep(t, acc, o)
	code := accountstest.TOTPCode(t, totp.Secret, env.Clock.Now())
	iss, err := users.SecondFactors.Verify(t.Context(), token, accounts.SecondFactor{Method: accounts.FactorTOTP, Code: code}, o)
	if err == nil || iss != nil || errors.Is(err, accounts.ErrInvalidTOTPCode) || errors.Is(err, accounts.ErrInvalidMFAToken) {
		t.Fatalf("the second step with an unreadable secret: %+v, %v; want an internal error", iss, err)
	}
	if strings.Contains(err.Error(), totp.Secret) || !strings.Contains(logs.String(), "does not open under DATA_ENCRYPTION_KEY") ||
		strings.Contains(logs.String(), totp.Secret) {
		t.Errorf("error %v, log %s: the log must say what failed and neither may hold the secret", err, logs.String())
	}
	if attempts, used := users.Challenge(t, token); attempts != 0 || used {
		t.Errorf("challenge attempts %d, used %v; want untouched", attempts, used)
	}
	right := accounts.SecondFactor{Method: accounts.FactorTOTP, Code: accountstest.TOTPCode(t, otherTOTP.Secret, env.Clock.Now())}
	if _, err := users.SecondFactors.Verify(t.Context(), users.FirstStep(t, other, o), right, o); err != nil {
		t.Errorf("another owner's second step: %v", err)
	}
}
