package posts

import (
	"testing"

	"github.com/actionkit/actionkit/errorcodes"
)

// TestEveryCodeHasItsMessages: each code of the publishing engine has a
// message in every locale file beside it; a missing one is named.
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
}
