package accounts

import (
	"testing"
	"time"

	"github.com/pquerna/otp/totp"
)

// TestMatchTOTP: a code is accepted for its own step and the skew's
// neighbours only, and the step it matched is the one reported.
func TestMatchTOTP(t *testing.T) {
	secret := []byte("12345678901234567890")
	b32 := totpBase32.EncodeToString(secret)
	now := time.Unix(1_700_000_015, 0) // the middle of a step
	codeAt := func(d time.Duration) string {
		c, err := totp.GenerateCode(b32, now.Add(d))
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	for _, tc := range []struct {
		name  string
		code  string
		skew  int
		step  int64
		match bool
	}{
		{"current step", codeAt(0), 1, totpStep(now), true},
		{"previous step within skew", codeAt(-30 * time.Second), 1, totpStep(now) - 1, true},
		{"next step within skew", codeAt(30 * time.Second), 1, totpStep(now) + 1, true},
		{"two steps back", codeAt(-60 * time.Second), 1, 0, false},
		{"previous step without skew", codeAt(-30 * time.Second), 0, 0, false},
		{"spaced as apps show it", codeAt(0)[:3] + " " + codeAt(0)[3:], 0, totpStep(now), true},
		{"letters", "12a456", 1, 0, false},
		{"too short", codeAt(0)[:5], 1, 0, false},
		{"too long", codeAt(0) + "1", 1, 0, false},
	} {
		step, ok, err := matchTOTP(secret, tc.code, now, tc.skew)
		if err != nil || ok != tc.match || (ok && step != tc.step) {
			t.Errorf("%s: step %d, %v, %v; want %d, %v", tc.name, step, ok, err, tc.step, tc.match)
		}
	}
}

func TestNormalizeRecoveryCode(t *testing.T) {
	for in, want := range map[string]string{
		"ABCDE-FGHJK-MNPQR-STVWX":    "ABCDEFGHJKMNPQRSTVWX",
		"abcde fghjk mnpqr stvwx":    "ABCDEFGHJKMNPQRSTVWX",
		"abcdefghjkmnpqrstvwx":       "ABCDEFGHJKMNPQRSTVWX",
		"I0LOO-00000-00000-0000o":    "1010000000000000000" + "0",
		"ABCDE-FGHJK-MNPQR-STVWU":    "",
		"ABCDE-FGHJK-MNPQR":          "",
		"ABCDE-FGHJK-MNPQR-STVWXY":   "",
		"ABCDÉ-FGHJK-MNPQR-STVWX":    "",
		" ABCDE--FGHJK-MNPQR-STVWX ": "ABCDEFGHJKMNPQRSTVWX",
	} {
		got, ok := normalizeRecoveryCode(in)
		if got != want || ok != (want != "") {
			t.Errorf("%q: %q, %v; want %q", in, got, ok, want)
		}
	}
}
