// Package redistest gives each test a Redis connection pool and a key prefix
// of its own, and deletes every key under that prefix when the test ends
// (SCAN and DEL; never FLUSHALL, so tests can share one Redis server).
//
// The server comes from REDIS_URL (default redis://127.0.0.1:6379/0). When it
// is unreachable the test is skipped, or fails if CI=true.
package redistest
