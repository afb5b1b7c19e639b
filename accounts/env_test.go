package accounts_test

import (
	"testing"

	"github.com/google/uuid"

	"github.com/actionkit/actionkit/accounts/accountstest"
)

// newEnv runs t in parallel with the package's other tests, on engines,
// a database and a Redis namespace of its own.
func newEnv(t *testing.T) *accountstest.Env {
	t.Helper()
	t.Parallel()
	return accountstest.New(t)
}

// walk follows a paged listing from its first page by the cursors it
// answers, and returns the id of every item in order and the number of
// pages read (at most 10).
func walk[T any](t *testing.T, page func(cursor string) ([]T, string, error), id func(T) uuid.UUID) ([]uuid.UUID, int) {
	t.Helper()
	var ids []uuid.UUID
	cursor := ""
	for pages := 1; ; pages++ {
		list, next, err := page(cursor)
		if err != nil {
			t.Fatal(err)
		}
		for _, item := range list {
			ids = append(ids, id(item))
		}
		if next == "" || pages == 10 {
			return ids, pages
		}
		cursor = next
	}
}
