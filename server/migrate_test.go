package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"strings"
	"testing"

	"github.com/lib/pq"

	"github.com/actionkit/actionkit/internal/pgtest"
	"github.com/actionkit/actionkit/internal/syncbuf"
	"github.com/actionkit/actionkit/models"
)

// TestMigrateCreatesTheDatabase runs "server migrate" against a database
// that does not exist yet: it is created and migrated, and a second run
// is a no-op.
func TestMigrateCreatesTheDatabase(t *testing.T) {
	t.Parallel()
	base := pgtest.NewDSN(t) // a reachable server (skips or fails per CI)
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	name := "actionkit_migrate_" + hex.EncodeToString(b)
	dsn := strings.Replace(base, hostPath(base), name, 1)
	t.Cleanup(func() {
		admin, err := models.Open(context.Background(), base, 1)
		if err != nil {
			return
		}
		defer admin.Close()
		_, _ = admin.Exec(`DROP DATABASE IF EXISTS ` + pq.QuoteIdentifier(name) + ` WITH (FORCE)`)
	})
	env := testEnv(t)
	env["DATABASE_URL"] = dsn
	for i := 0; i < 2; i++ {
		var out syncbuf.Buffer
		code := run(context.Background(), &environment{args: []string{"migrate"}, getenv: func(k string) string { return env[k] }, stdout: &out, stderr: &out})
		if code != 0 || !strings.Contains(out.String(), "migrations applied") {
			t.Fatalf("run %d: exit %d\n%s", i+1, code, out.String())
		}
	}
	db, err := models.Open(t.Context(), dsn, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var tables int
	if err := db.Get(&tables, `SELECT count(*) FROM pg_tables WHERE schemaname = 'public' AND tablename IN ('users','user_sessions','posts','admins','admin_sessions')`); err != nil || tables != 5 {
		t.Errorf("tables = %d (%v), want 5", tables, err)
	}
}

// hostPath returns the database name of a postgres URL.
func hostPath(dsn string) string {
	rest := dsn[strings.LastIndex(dsn, "/")+1:]
	name, _, _ := strings.Cut(rest, "?")
	return name
}
