package main

import (
	"context"
	"database/sql"
	"testing"

	"github.com/actionkit/actionkit/internal/pgtest"
)

// TestAnalyzeDatabase: the bench's ANALYZE gives the planner the tables'
// real sizes (a table never analyzed has reltuples -1).
func TestAnalyzeDatabase(t *testing.T) {
	dsn := pgtest.NewDSN(t)
	db, err := sql.Open("postgres", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	if _, err := db.ExecContext(ctx, `CREATE TABLE grown (n int); INSERT INTO grown SELECT generate_series(1, 5000)`); err != nil {
		t.Fatal(err)
	}
	var before float64
	if err := db.QueryRowContext(ctx, `SELECT reltuples FROM pg_class WHERE relname = 'grown'`).Scan(&before); err != nil {
		t.Fatal(err)
	}
	if err := analyzeDatabase(ctx, dsn); err != nil {
		t.Fatal(err)
	}
	var after float64
	if err := db.QueryRowContext(ctx, `SELECT reltuples FROM pg_class WHERE relname = 'grown'`).Scan(&after); err != nil {
		t.Fatal(err)
	}
	if before == 5000 || after != 5000 {
		t.Errorf("reltuples before ANALYZE %v, after %v; want unknown, then 5000", before, after)
	}
	if err := analyzeDatabase(ctx, "postgres://127.0.0.1:1/none?sslmode=disable&connect_timeout=1"); err == nil {
		t.Error("ANALYZE of an unreachable database: no error")
	}
}
