package faulttest_test

import (
	"context"
	"database/sql"
	"testing"
	"time"

	"github.com/gomodule/redigo/redis"
	_ "github.com/lib/pq"

	"github.com/actionkit/actionkit/internal/faulttest"
)

// TestPostgresStopStart proves the harness's promises: a stopped server
// refuses connections, and a started one serves the same data again.
func TestPostgresStopStart(t *testing.T) {
	t.Parallel()
	pg := faulttest.NewPostgres(t)
	db, err := sql.Open("postgres", pg.URL("postgres"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if _, err := db.ExecContext(ctx, `CREATE TABLE kept (v int); INSERT INTO kept VALUES (42)`); err != nil {
		t.Fatal(err)
	}
	pg.Stop()
	if err := db.PingContext(ctx); err == nil {
		t.Fatal("ping succeeded while the server is stopped")
	}
	pg.Start()
	var v int
	if err := db.QueryRowContext(ctx, `SELECT v FROM kept`).Scan(&v); err != nil || v != 42 {
		t.Fatalf("after restart: got %d, %v; want 42", v, err)
	}
}

func TestRedisStopStart(t *testing.T) {
	t.Parallel()
	rd := faulttest.NewRedis(t)
	pool := &redis.Pool{Dial: func() (redis.Conn, error) { return redis.DialURL(rd.URL()) }}
	defer pool.Close()
	do := func(cmd string, args ...any) (any, error) {
		c := pool.Get()
		defer c.Close()
		return c.Do(cmd, args...)
	}
	if _, err := do("SET", "kept", "42"); err != nil {
		t.Fatal(err)
	}
	rd.Stop()
	if _, err := do("PING"); err == nil {
		t.Fatal("PING answered while the server is stopped")
	}
	rd.Start()
	if v, err := redis.String(do("GET", "kept")); err != nil || v != "42" {
		t.Fatalf("after restart: got %q, %v; want 42", v, err)
	}
}
