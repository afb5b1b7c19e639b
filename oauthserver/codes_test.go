package oauthserver

import (
	"testing"

	"github.com/actionkit/actionkit/internal/codetest"
)

// TestEveryCodeHasItsMessages: each code of the provider has a message in
// every locale file beside it; a missing one is named.
func TestEveryCodeHasItsMessages(t *testing.T) {
	codetest.Check(t, Messages(), ErrorCodes())
}

// TestErrorCodesListsEveryCode: every code the provider declares is in
// ErrorCodes, so that none goes without its messages or its place in a
// catalog.
func TestErrorCodesListsEveryCode(t *testing.T) {
	codetest.Listed(t, ".", ErrorCodes())
}
