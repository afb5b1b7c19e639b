package models

import (
	"context"
	"database/sql"
	"fmt"
	"reflect"
	"sync"
	"time"

	"github.com/jmoiron/sqlx"
)

// querier runs a store's queries, as prepared statements when the store was
// bound to a pool with Prepared: PostgreSQL then parses and plans each query
// once per connection instead of on every call, which raises the
// throughput of short queries. The zero querier sends plain queries. Named prepared statements do not
// survive a transaction-pooling proxy such as PgBouncer in transaction
// mode; leave the stores unprepared behind one.
type querier struct {
	pool  *sqlx.DB
	stmts *sync.Map // query text -> *sqlx.Stmt prepared on pool
}

// A store keeps its SQL in one query table: a struct whose every field is
// a string of SQL, built once. Prepared walks the table with queriesOf, so
// a query added to the table is prepared without a list to remember, and a
// query kept outside it is caught by the tests of this package, which run
// with strictQueries set: a prepared store then panics on SQL it does not
// know (see querier.stmt).
var strictQueries bool

// queriesOf returns every field of the query table that table points to,
// in declaration order. It panics if a field is not a string, so that the
// table cannot hold anything else.
func queriesOf(table any) []string {
	v := reflect.ValueOf(table).Elem()
	out := make([]string, 0, v.NumField())
	for i := range v.NumField() {
		f := v.Field(i)
		if f.Kind() != reflect.String {
			panic(fmt.Sprintf("models: query table %s: field %s is not SQL", v.Type(), v.Type().Field(i).Name))
		}
		out = append(out, f.String())
	}
	return out
}

// prepareTimeout bounds the preparation of a store's statements.
const prepareTimeout = 5 * time.Second

// preparedOn prepares queries on pool (none when pool is nil) now, while the caller holds no
// connection. A statement that cannot be prepared is sent plain. Inside a
// transaction nothing is ever prepared through the pool: that would need a
// second connection while the transaction holds one, and with the pool
// exhausted by transactions waiting on each other's locks, nobody would
// get one.
func preparedOn(pool *sqlx.DB, queries ...string) querier {
	if pool == nil {
		return querier{}
	}
	q := querier{pool: pool, stmts: &sync.Map{}}
	ctx, cancel := context.WithTimeout(context.Background(), prepareTimeout)
	defer cancel()
	for _, query := range queries {
		if st, err := pool.PreparexContext(ctx, query); err == nil {
			q.stmts.Store(query, st)
		} else {
			q.stmts.Store(unprepared(query), err)
		}
	}
	return q
}

// unprepared is the key under which preparedOn records why query could
// not be prepared; such a query is sent plain.
type unprepared string

// failed reports whether query is in the table but could not be prepared.
func (q querier) failed(query string) bool {
	_, ok := q.stmts.Load(unprepared(query))
	return ok
}

// stmt returns the prepared statement of query for db, bound to db when it
// is a transaction (database/sql prepares it once on each connection and
// reuses it), or nil to send the query as it is.
func (q querier) stmt(ctx context.Context, db DB, query string) *sqlx.Stmt {
	if q.pool == nil {
		return nil
	}
	v, ok := q.stmts.Load(query)
	if !ok {
		if strictQueries && !q.failed(query) {
			panic("models: a prepared store ran SQL that is not in its query table: " + query)
		}
		return nil
	}
	st := v.(*sqlx.Stmt)
	switch d := db.(type) {
	case *sqlx.DB:
		if d == q.pool {
			return st
		}
	case *sqlx.Tx:
		return d.StmtxContext(ctx, st)
	}
	return nil
}

// get, sel and exec run a statement on db, through the gate of its pool
// when db is a pool built by Open (gate.go). rowx does not: its
// connection is held until the row is scanned.
func (q querier) get(ctx context.Context, db DB, dest any, query string, args ...any) error {
	return through(ctx, db, func() error {
		if st := q.stmt(ctx, db, query); st != nil {
			return st.GetContext(ctx, dest, args...)
		}
		return db.GetContext(ctx, dest, query, args...)
	})
}

func (q querier) sel(ctx context.Context, db DB, dest any, query string, args ...any) error {
	return through(ctx, db, func() error {
		if st := q.stmt(ctx, db, query); st != nil {
			return st.SelectContext(ctx, dest, args...)
		}
		return db.SelectContext(ctx, dest, query, args...)
	})
}

func (q querier) rowx(ctx context.Context, db DB, query string, args ...any) *sqlx.Row {
	if st := q.stmt(ctx, db, query); st != nil {
		return st.QueryRowxContext(ctx, args...)
	}
	return db.QueryRowxContext(ctx, query, args...)
}

func (q querier) exec(ctx context.Context, db DB, query string, args ...any) (res sql.Result, err error) {
	err = through(ctx, db, func() error {
		if st := q.stmt(ctx, db, query); st != nil {
			res, err = st.ExecContext(ctx, args...)
		} else {
			res, err = db.ExecContext(ctx, query, args...)
		}
		return err
	})
	return res, err
}
