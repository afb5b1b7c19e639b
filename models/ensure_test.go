package models_test

import (
	"sync"
	"testing"

	"github.com/actionkit/actionkit/internal/pgtest"
	"github.com/actionkit/actionkit/models"
)

// databaseExists reports whether the server of dsn has a database name.
func databaseExists(t *testing.T, dsn, name string) bool {
	t.Helper()
	admin := openDSN(t, withDatabase(t, dsn, "postgres"))
	return count(t, admin, `SELECT count(*) FROM pg_database WHERE datname = $1`, name) == 1
}

func TestEnsureDatabaseCreates(t *testing.T) {
	t.Parallel()
	server := pgtest.NewEmptyDSN(t)
	// Mixed case, a space and a quote prove the identifier is quoted.
	name := `actionkit_test_Ensure "` + randomHex(t, 4)
	dsn := withDatabase(t, server, name)
	dropOnCleanup(t, server, name)

	if databaseExists(t, server, name) {
		t.Fatalf("database %q exists before EnsureDatabase", name)
	}
	for i := range 2 { // the second call finds it and does nothing
		if err := models.EnsureDatabase(testCtx(t), dsn); err != nil {
			t.Fatalf("EnsureDatabase call %d: got %v, want nil", i+1, err)
		}
	}
	if !databaseExists(t, server, name) {
		t.Errorf("database %q: got missing, want created", name)
	}
}

func TestEnsureDatabaseConcurrent(t *testing.T) {
	t.Parallel()
	server := pgtest.NewEmptyDSN(t)
	name := "actionkit_test_ensure_" + randomHex(t, 4)
	dsn := withDatabase(t, server, name)
	dropOnCleanup(t, server, name)

	const callers = 4
	errs := make([]error, callers)
	var wg sync.WaitGroup
	for i := range callers {
		wg.Go(func() { errs[i] = models.EnsureDatabase(testCtx(t), dsn) })
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("EnsureDatabase #%d: got %v, want nil", i, err)
		}
	}
	if !databaseExists(t, server, name) {
		t.Errorf("database %q: got missing, want created", name)
	}
}

func TestEnsureDatabaseErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		dsn  string
	}{
		{"no database name", "postgres://postgres@127.0.0.1:5432?sslmode=disable"},
		{"unreachable server", "postgres://postgres@127.0.0.1:1/x?sslmode=disable"},
		{"not a DSN", "postgres://%zz"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := models.EnsureDatabase(testCtx(t), tt.dsn); err == nil {
				t.Errorf("EnsureDatabase(%q): got nil, want error", tt.dsn)
			}
		})
	}
}
