package accounts

import (
	"testing"

	"github.com/actionkit/actionkit/errorcodes"
)

// TestEveryCodeHasItsMessages: each code of the engine is well formed and
// has a message in every locale file beside it, and the files agree on
// their keys; a missing message is named. The codes also fit beside the
// framework's in one catalog (no ID or key taken twice).
func TestEveryCodeHasItsMessages(t *testing.T) {
	msgs := Messages()
	for _, loc := range []string{"en", "es", "zh-TW"} {
		if _, ok := msgs[loc]; !ok {
			t.Errorf("no messages/%s.json", loc)
		}
	}
	for _, err := range errorcodes.CheckMessages(msgs, ErrorCodes()) {
		t.Error(err)
	}
	if _, err := errorcodes.NewCatalog([]string{"en", "es", "zh-TW"}, append(errorcodes.Framework(), ErrorCodes()...), msgs); err != nil {
		t.Error(err)
	}
	for _, k := range []Kind{Users, Admins} {
		for _, c := range []errorcodes.Code{k.Codes.InvalidCredentials, k.Codes.AccountInactive, k.Codes.AccountDeleted,
			k.Codes.AccountNotFound, k.Codes.InvalidRefresh, k.Codes.InvalidCurrentPassword} {
			if c == "" || c.Check() != nil {
				t.Errorf("%s: code %q", k.Type, c)
			}
		}
	}
}
