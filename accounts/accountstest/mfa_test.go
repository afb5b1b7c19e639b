package accountstest

import (
	"encoding/base32"
	"testing"
	"time"
)

// TestTOTPCode pins TOTPCode to the vectors of RFC 6238, appendix B
// (SHA-1, the last six digits).
func TestTOTPCode(t *testing.T) {
	secret := base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString([]byte("12345678901234567890"))
	for unix, want := range map[int64]string{59: "287082", 1111111109: "081804", 1234567890: "005924", 2000000000: "279037"} {
		if got := TOTPCode(t, secret, time.Unix(unix, 0)); got != want {
			t.Errorf("T=%d: got %s, want %s", unix, got, want)
		}
	}
}
