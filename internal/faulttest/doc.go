// Package faulttest runs private PostgreSQL and Redis servers that a test
// can stop and start again, to prove what an outage does to the code under
// test and that it recovers without a restart.
//
//	pg := faulttest.NewPostgres(t)   // initdb, then postgres on a free port
//	rd := faulttest.NewRedis(t)      // redis-server on a free port
//	env["DATABASE_URL"], env["REDIS_URL"] = pg.URL("app"), rd.URL()
//	...
//	pg.Stop()  // a fast shutdown: sessions end with SQLSTATE 57P01, new connections are refused
//	pg.Start() // the same data directory, on the same port
//
// Each server is a child process of the test binary, listens on 127.0.0.1
// only, keeps its files in a temporary directory and is stopped, and its
// directory removed, when the test ends (or killed with the test binary).
// Stop and Start return once the server has gone or accepts connections;
// data survives a Stop (PostgreSQL's data directory, Redis's dump written at
// shutdown).
//
// PostgreSQL's binaries come from FAULTTEST_PG_BIN, else the newest
// /usr/lib/postgresql/*/bin, else the directory of initdb on the PATH; the
// server runs as the postgres user when the test runs as root (initdb
// refuses root). Redis is redis-server on the PATH. When a binary is
// missing the test is skipped, or fails if CI=true. initdb runs once per
// machine and PostgreSQL version (its result is kept in the temporary
// directory, about 40 MB, and copied for each server), so a server starts
// in about a second even on a busy two-core machine.
package faulttest
