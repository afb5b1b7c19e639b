package main

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"time"
)

// Statistics of the bench's database. A PostgreSQL with autovacuum on
// analyzes a table again each time a tenth of it has changed, and every
// connection then plans its prepared statements anew from the fresh
// statistics. This machine's PostgreSQL may run with autovacuum off (test
// machines do, for speed); then nothing is ever analyzed, and a connection
// keeps the generic plan it chose when the tables were nearly empty. The
// server's connections choose theirs at its first requests and a
// baseline's at its own: a comparison would measure which side planned
// early (a plan of the empty sessions table scans the index of the live
// sessions whole, each dead entry included, instead of looking up the
// token's hash), not the programs. So the bench analyzes its database
// before each step and each comparison, as autovacuum would have by then,
// and every side plans from the same statistics.

// analyzeTimeout bounds one ANALYZE of the bench's database.
const analyzeTimeout = time.Minute

// analyzeDatabase runs ANALYZE on the database at dsn.
func analyzeDatabase(ctx context.Context, dsn string) error {
	db, err := sql.Open("postgres", dsn)
	if err != nil {
		return err
	}
	defer db.Close()
	ctx, cancel := context.WithTimeout(ctx, analyzeTimeout)
	defer cancel()
	_, err = db.ExecContext(ctx, "ANALYZE")
	return err
}

// analyze brings the statistics of the bench's database up to date before
// a step or a comparison; a failure is reported and the bench goes on.
func (b *benchRun) analyze(ctx context.Context) {
	if b.t.databaseURL == "" || ctx.Err() != nil {
		return
	}
	if err := analyzeDatabase(ctx, b.t.databaseURL); err != nil {
		fmt.Fprintf(os.Stderr, "bench: ANALYZE the bench's database: %v\n", err)
	}
}
