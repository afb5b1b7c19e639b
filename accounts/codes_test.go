package accounts

import (
	"strings"
	"testing"

	"github.com/actionkit/actionkit/errorcodes"
	"github.com/actionkit/actionkit/internal/codetest"
)

// TestEveryCodeHasItsMessages: each code of the engine is well formed, has
// a message in every locale file beside it (a missing one is named) and
// fits beside the framework's codes; each Kind names its codes.
func TestEveryCodeHasItsMessages(t *testing.T) {
	codetest.Check(t, Messages(), AllErrorCodes())
	for _, k := range []Kind{Users, Admins} {
		for _, c := range []errorcodes.Code{k.Codes.InvalidCredentials, k.Codes.AccountInactive, k.Codes.AccountDeleted,
			k.Codes.AccountNotFound, k.Codes.InvalidRefresh, k.Codes.InvalidCurrentPassword} {
			if c == "" || c.Check() != nil {
				t.Errorf("%s: code %q", k.Type, c)
			}
		}
		for _, c := range k.Codes.SecondFactor.All() {
			if !strings.HasPrefix(c.ID(), strings.ToUpper(string(k.Type))+"_") {
				t.Errorf("%s: code %q of another owner type", k.Type, c)
			}
			if c == "" || c.Check() != nil {
				t.Errorf("%s: code %q", k.Type, c)
			}
		}
	}
}
