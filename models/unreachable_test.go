package models_test

import (
	"context"
	"errors"
	"testing"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"
	"github.com/lib/pq/pqerror"

	"github.com/actionkit/actionkit/dependency"
	"github.com/actionkit/actionkit/internal/pgtest"
	"github.com/actionkit/actionkit/models"
)

func TestUnreachable(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  error
		want bool
	}{
		{"admin shutdown", &pq.Error{Code: pqerror.AdminShutdown}, true},
		{"starting up", &pq.Error{Code: pqerror.CannotConnectNow}, true},
		{"too many connections", &pq.Error{Code: pqerror.TooManyConnections}, true},
		{"connection failure", &pq.Error{Code: "08006"}, true},
		{"syntax error", &pq.Error{Code: pqerror.SyntaxError}, false},
		{"unique violation", &pq.Error{Code: pqerror.UniqueViolation}, false},
		{"not found", models.ErrNotFound, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := models.Unreachable(tc.err); got != tc.want {
				t.Errorf("Unreachable(%v) = %v, want %v", tc.err, got, tc.want)
			}
		})
	}
}

// TestStoresMarkAnUnreachableServer: a store and Transact over a server
// that refuses connections return errors marked dependency.ErrUnavailable,
// while a broken query on a live server is not marked.
func TestStoresMarkAnUnreachableServer(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	down := sqlx.MustOpen("postgres", "postgres://postgres@127.0.0.1:1/none?sslmode=disable&connect_timeout=2")
	defer down.Close()
	store := models.NewAccountStore(models.UserTables)
	_, err := store.ByID(ctx, down, uuid.Must(uuid.NewV7()))
	if e, ok := dependency.As(err); !ok || e.Name != models.Dependency {
		t.Errorf("ByID on a refused server: %v, want it marked unavailable", err)
	}
	err = models.Transact(ctx, down, func(*sqlx.Tx) error { return nil })
	if !errors.Is(err, dependency.ErrUnavailable) {
		t.Errorf("Transact on a refused server: %v, want it marked unavailable", err)
	}

	up := sqlx.MustOpen("postgres", pgtest.NewDSN(t))
	defer up.Close()
	err = models.Transact(ctx, up, func(tx *sqlx.Tx) error {
		_, err := tx.ExecContext(ctx, "SELEC 1")
		return err
	})
	if err == nil || errors.Is(err, dependency.ErrUnavailable) {
		t.Errorf("a syntax error: %v, want an unmarked error", err)
	}
}
