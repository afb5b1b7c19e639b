package accounts_test

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/actionkit/actionkit/accounts"
	"github.com/actionkit/actionkit/accounts/accountstest"
	"github.com/actionkit/actionkit/action"
	"github.com/actionkit/actionkit/models"
)

// TestDisableTOTP: turning TOTP off takes one of its codes or a recovery
// code; a wrong or spent one changes nothing. It removes the TOTP and the
// recovery codes with an mfa_disabled event, and the next login is one
// step again. Without a confirmed TOTP, disabling it and regenerating
// recovery codes are ErrMFANotEnabled.
func TestDisableTOTP(t *testing.T) {
	env := newEnv(t)
	users, o := env.Users, accountstest.Origin(action.Web)
	acc, iss := users.LoggedIn(t, action.Web)
	sf := users.SecondFactors
	if _, err := sf.DisableTOTP(t.Context(), acc.ID, "123456", o); !errors.Is(err, accounts.ErrMFANotEnabled) {
		t.Errorf("disabling without TOTP: %v, want ErrMFANotEnabled", err)
	}
	if _, err := sf.RegenerateRecoveryCodes(t.Context(), acc.ID, o); !errors.Is(err, accounts.ErrMFANotEnabled) {
		t.Errorf("recovery codes without TOTP: %v, want ErrMFANotEnabled", err)
	}

	totp := env.WithTOTP(t, users, acc, iss)
	setup := accountstest.TOTPCode(t, totp.Secret, env.Clock.Now().Add(-30*time.Second)) // spent by the confirmation
	for i, bad := range []string{setup, "000000", "AAAAA-AAAAA-AAAAA-AAAAA", "nonsense"} {
		// Each from an address of its own, which the slow-down of its
		// own failures does not stop.
		from := o
		from.IP = fmt.Sprintf("198.51.100.%d", i+1)
		if _, err := sf.DisableTOTP(t.Context(), acc.ID, bad, from); !errors.Is(err, accounts.ErrInvalidTOTPCode) {
			t.Errorf("disabling with %q: %v, want ErrInvalidTOTPCode", bad, err)
		}
	}
	if st, err := sf.Status(t.Context(), acc.ID); err != nil || !st.Enabled || st.RecoveryCodesRemaining != 10 {
		t.Fatalf("after wrong codes: %+v, %v; want TOTP on with 10 recovery codes", st, err)
	}
	users.FirstStep(t, acc, o)
	changed, err := sf.DisableTOTP(t.Context(), acc.ID, totp.RecoveryCodes[9], o)
	if err != nil || changed.MFAEnabled {
		t.Fatalf("disabling with a recovery code: %+v, %v", changed, err)
	}
	if st, err := sf.Status(t.Context(), acc.ID); err != nil || st.Enabled || st.TOTPConfirmedAt != nil || st.RecoveryCodesRemaining != 0 {
		t.Errorf("after disabling: %+v, %v; want no TOTP and no recovery code", st, err)
	}
	if ev := users.EventsOf(t, acc.ID)[0]; ev.Type != models.EventMFADisabled {
		t.Errorf("event %s, want mfa_disabled", ev.Type)
	}
	if _, err := users.Login(t.Context(), acc.Email, accountstest.Password, o); err != nil {
		t.Errorf("login after disabling: %v, want one step", err)
	}

	// Again, with a TOTP code.
	env.Clock.Advance(time.Minute)
	totp = env.WithTOTP(t, users, acc, users.NewSession(t, acc, action.Web))
	code := accountstest.TOTPCode(t, totp.Secret, env.Clock.Now())
	if _, err := sf.DisableTOTP(t.Context(), acc.ID, code, o); err != nil {
		t.Fatalf("disabling with a TOTP code: %v", err)
	}
	if _, err := sf.DisableTOTP(t.Context(), acc.ID, code, o); !errors.Is(err, accounts.ErrMFANotEnabled) {
		t.Errorf("disabling twice: %v, want ErrMFANotEnabled", err)
	}
}
