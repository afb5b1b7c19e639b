package webhooks

import (
	"testing"

	"github.com/actionkit/actionkit/internal/codetest"
)

// TestEveryCodeHasItsMessages: each code of the webhooks has a message in
// every locale file beside it; a missing one is named.
func TestEveryCodeHasItsMessages(t *testing.T) {
	codetest.Check(t, Messages(), ErrorCodes())
}
