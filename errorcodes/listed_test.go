package errorcodes_test

import (
	"testing"

	"github.com/actionkit/actionkit/errorcodes"
	"github.com/actionkit/actionkit/internal/codetest"
)

// TestFrameworkListsEveryCode: every code the framework declares is in
// Framework() or Later(), so that none goes without its messages or its place in a
// catalog.
func TestFrameworkListsEveryCode(t *testing.T) {
	codetest.Listed(t, ".", append(errorcodes.Framework(), errorcodes.Later()...))
}
