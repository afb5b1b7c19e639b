package models_test

import (
	"errors"
	"fmt"
	"net/url"
	"testing"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"github.com/actionkit/actionkit/internal/pgtest"
	"github.com/actionkit/actionkit/models"
)

// keyValueDSN rewrites a postgres:// URL into key=value form.
func keyValueDSN(t *testing.T, dsn string) string {
	t.Helper()
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	kv := fmt.Sprintf("host=%s port=%s user=%s dbname=%s", u.Hostname(), u.Port(), u.User.Username(), u.Path[1:])
	if pw, ok := u.User.Password(); ok {
		kv += " password='" + pw + "'"
	}
	for k, vs := range u.Query() {
		kv += " " + k + "=" + vs[0]
	}
	return kv
}

func TestOpenTimezone(t *testing.T) {
	t.Parallel()
	dsn := pgtest.NewDSN(t)
	tests := []struct {
		name string
		dsn  string
		want string
	}{
		{"url adds UTC", dsn, "UTC"},
		{"key=value adds UTC", keyValueDSN(t, dsn), "UTC"},
		{"url keeps its own", dsn + "&timezone=Asia/Tokyo", "Asia/Tokyo"},
		{"key=value keeps its own", keyValueDSN(t, dsn) + " TimeZone=Europe/Paris", "Europe/Paris"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			db := openDSN(t, tt.dsn)
			var got string
			if err := db.GetContext(testCtx(t), &got, `SHOW timezone`); err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("timezone: got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestOpenPool(t *testing.T) {
	t.Parallel()
	db, err := models.Open(testCtx(t), pgtest.NewDSN(t), 6)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if got := db.Stats().MaxOpenConnections; got != 6 {
		t.Errorf("MaxOpenConnections: got %d, want 6", got)
	}
	if got := db.DriverName(); got != "postgres" {
		t.Errorf("DriverName: got %q, want postgres (sqlx binds $1)", got)
	}
}

func TestOpenErrors(t *testing.T) {
	t.Parallel()
	ctx := testCtx(t)
	if _, err := models.Open(ctx, pgtest.DefaultURL, 0); err == nil {
		t.Error("Open with maxConns 0: got nil, want error")
	}
	if _, err := models.Open(ctx, "postgres://postgres@127.0.0.1:1/x?sslmode=disable", 1); err == nil {
		t.Error("Open of a closed port: got nil, want error")
	}
}

func TestTransact(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	ctx := testCtx(t)
	owner := insertUser(t, db, "users", "owner@x.io")
	insert := func(tx *sqlx.Tx, title string) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO posts (id, user_id, title) VALUES ($1, $2, $3)`, newID(t), owner, title)
		return err
	}
	posts := func(title string) int {
		return count(t, db, `SELECT count(*) FROM posts WHERE title = $1`, title)
	}

	if err := models.Transact(ctx, db, func(tx *sqlx.Tx) error { return insert(tx, "committed") }); err != nil {
		t.Fatalf("Transact: got %v, want nil", err)
	}
	if got := posts("committed"); got != 1 {
		t.Errorf("committed rows: got %d, want 1", got)
	}

	sentinel := errors.New("stop")
	err := models.Transact(ctx, db, func(tx *sqlx.Tx) error {
		if err := insert(tx, "rolled back"); err != nil {
			return err
		}
		return fmt.Errorf("wrapped: %w", sentinel)
	})
	if !errors.Is(err, sentinel) {
		t.Errorf("Transact error: got %v, want the function's error", err)
	}
	if got := posts("rolled back"); got != 0 {
		t.Errorf("rows after error: got %d, want 0", got)
	}

	func() {
		defer func() {
			if got := recover(); got != "boom" {
				t.Errorf("recovered: got %v, want the re-raised panic %q", got, "boom")
			}
		}()
		_ = models.Transact(ctx, db, func(tx *sqlx.Tx) error {
			if err := insert(tx, "panicked"); err != nil {
				return err
			}
			panic("boom")
		})
	}()
	if got := posts("panicked"); got != 0 {
		t.Errorf("rows after panic: got %d, want 0", got)
	}
	if got := db.Stats().InUse; got != 0 {
		t.Errorf("connections in use after Transact: got %d, want 0", got)
	}
}

func TestIsUniqueViolation(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want bool
	}{
		{"nil", nil, false},
		{"plain", errors.New("x"), false},
		{"not found", models.ErrNotFound, false},
		{"unique", &pq.Error{Code: "23505"}, true},
		{"wrapped unique", fmt.Errorf("insert: %w", &pq.Error{Code: "23505"}), true},
		{"check violation", &pq.Error{Code: "23514"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := models.IsUniqueViolation(tt.err); got != tt.want {
				t.Errorf("IsUniqueViolation(%v): got %v, want %v", tt.err, got, tt.want)
			}
		})
	}
}
