package main

import (
	"bufio"
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/gomodule/redigo/redis"
	"github.com/lib/pq"
)

// Machine describes where a bench ran.
type Machine struct {
	CPUs       int    `json:"cpus"`
	CPUModel   string `json:"cpuModel"`
	MemTotal   int64  `json:"memTotalBytes"`
	Kernel     string `json:"kernel"`
	Go         string `json:"go"`
	PostgreSQL string `json:"postgresql"`
	Redis      string `json:"redis"`
	Node       string `json:"node"`
	Wrk        string `json:"wrk,omitempty"`
	Vegeta     string `json:"vegeta,omitempty"`
	// LoadBefore and LoadAfter are /proc/loadavg at the bench's start and
	// end: other work on the machine shows there.
	LoadBefore string `json:"loadBefore"`
	LoadAfter  string `json:"loadAfter,omitempty"`
}

// describeMachine reads the machine's description; a part it cannot read
// is left as "unknown".
func describeMachine(ctx context.Context, pgURL, redisURL string) Machine {
	m := Machine{CPUs: runtime.NumCPU(), Go: runtime.Version(), CPUModel: "unknown", Kernel: "unknown",
		PostgreSQL: "unknown", Redis: "unknown", Node: "unknown", Vegeta: vegetaVersion(), LoadBefore: loadAvg()}
	if f, err := os.Open("/proc/cpuinfo"); err == nil {
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if k, v, ok := strings.Cut(sc.Text(), ":"); ok && strings.TrimSpace(k) == "model name" {
				m.CPUModel = strings.TrimSpace(v)
				break
			}
		}
		f.Close()
	}
	if raw, err := os.ReadFile("/proc/meminfo"); err == nil {
		for _, line := range strings.Split(string(raw), "\n") {
			if f := strings.Fields(line); len(f) == 3 && f[0] == "MemTotal:" {
				n, _ := strconv.ParseInt(f[1], 10, 64)
				m.MemTotal = n << 10
			}
		}
	}
	if raw, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		m.Kernel = "Linux " + strings.TrimSpace(string(raw))
	}
	if out, err := exec.CommandContext(ctx, "node", "--version").Output(); err == nil {
		m.Node = strings.TrimSpace(string(out))
	}
	if db, err := sql.Open("postgres", pgURL); err == nil {
		var v string
		if db.QueryRowContext(ctx, "SHOW server_version").Scan(&v) == nil {
			m.PostgreSQL = v
		}
		db.Close()
	}
	if v, err := redisVersion(redisURL); err == nil {
		m.Redis = v
	}
	return m
}

// wrkVersion returns the first words of "wrk -v" (which exits 1), up to
// its copyright, or "" without wrk.
func wrkVersion(ctx context.Context, wrk string) string {
	if wrk == "" {
		return ""
	}
	out, _ := exec.CommandContext(ctx, wrk, "-v").Output()
	first, _, _ := strings.Cut(string(out), "\n")
	first, _, _ = strings.Cut(first, " Copyright")
	return strings.TrimSpace(first)
}

// vegetaVersion returns the version of vegeta built into this tool.
func vegetaVersion() string {
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, m := range info.Deps {
			if m.Path == "github.com/tsenart/vegeta/v12" {
				return m.Version
			}
		}
	}
	return ""
}

// loadAvg returns the first three fields of /proc/loadavg.
func loadAvg() string {
	raw, err := os.ReadFile("/proc/loadavg")
	if f := strings.Fields(string(raw)); err == nil && len(f) >= 3 {
		return strings.Join(f[:3], " ")
	}
	return "unknown"
}

// dialRedis connects to Redis with bounded waits.
func dialRedis(redisURL string) (redis.Conn, error) {
	return redis.DialURL(redisURL, redis.DialConnectTimeout(5*time.Second),
		redis.DialReadTimeout(10*time.Second), redis.DialWriteTimeout(10*time.Second))
}

// redisVersion asks Redis for its version (INFO server).
func redisVersion(redisURL string) (string, error) {
	c, err := dialRedis(redisURL)
	if err != nil {
		return "", err
	}
	defer c.Close()
	info, err := redis.String(c.Do("INFO", "server"))
	if err != nil {
		return "", err
	}
	for _, line := range strings.Split(info, "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "redis_version:"); ok {
			return v, nil
		}
	}
	return "", fmt.Errorf("no redis_version in INFO")
}

// withDatabase returns the PostgreSQL URL raw naming database name.
func withDatabase(raw, name string) (string, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return "", err
	}
	u.Path = "/" + name
	return u.String(), nil
}

// dropDatabase drops database name, ending its connections first.
func dropDatabase(ctx context.Context, adminURL, name string) error {
	db, err := sql.Open("postgres", adminURL)
	if err != nil {
		return err
	}
	defer db.Close()
	_, err = db.ExecContext(ctx, "DROP DATABASE IF EXISTS "+pq.QuoteIdentifier(name)+" WITH (FORCE)")
	return err
}

// deleteNamespace deletes the Redis keys of namespace ns (ns:... and
// ns#...) with SCAN and DEL, never FLUSHALL. It returns how many it deleted.
func deleteNamespace(redisURL, ns string) (int, error) {
	c, err := dialRedis(redisURL)
	if err != nil {
		return 0, err
	}
	defer c.Close()
	deleted, cursor := 0, "0"
	for {
		reply, err := redis.Values(c.Do("SCAN", cursor, "MATCH", ns+"*", "COUNT", 1000))
		if err != nil {
			return deleted, err
		}
		var keys []string
		if _, err := redis.Scan(reply, &cursor, &keys); err != nil {
			return deleted, err
		}
		var mine []any
		for _, k := range keys {
			if strings.HasPrefix(k, ns+":") || strings.HasPrefix(k, ns+"#") {
				mine = append(mine, k)
			}
		}
		if len(mine) > 0 {
			n, err := redis.Int(c.Do("DEL", mine...))
			if err != nil {
				return deleted, err
			}
			deleted += n
		}
		if cursor == "0" {
			return deleted, nil
		}
	}
}
