// Package codetest checks the error codes an application package declares
// beside its messages, for that package's tests: that each is in the
// package's list of codes (read from its Go source), has a message in
// every locale, and clashes with no other.
package codetest

import (
	"testing"

	"github.com/actionkit/actionkit/errorcodes"
)

// Locales are the locales every package ships messages for.
var Locales = []string{"en", "es", "zh-TW"}

// Check fails t when codes or msgs are not fit to ship: a code the calling
// test's package declares (in the working directory, as a test runs) that
// codes lacks (see Listed), a locale without its file, a code without a
// message in a locale (named), locale files that disagree on their keys,
// or codes that clash with the framework's or with each other (by ID or
// message key).
func Check(t testing.TB, msgs errorcodes.Messages, codes []errorcodes.Code) {
	t.Helper()
	Listed(t, ".", codes)
	for _, loc := range Locales {
		if _, ok := msgs[loc]; !ok {
			t.Errorf("no messages/%s.json", loc)
		}
	}
	for _, err := range errorcodes.CheckMessages(msgs, codes) {
		t.Error(err)
	}
	if _, err := errorcodes.NewCatalog(Locales, append(append(errorcodes.Framework(), errorcodes.Later()...), codes...), msgs); err != nil {
		t.Error(err)
	}
}
