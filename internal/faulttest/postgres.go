package faulttest

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	_ "github.com/lib/pq" // the driver of the readiness check
)

// Postgres is a private PostgreSQL server. Its user postgres may connect
// without a password over 127.0.0.1.
type Postgres struct {
	t    testing.TB
	dir  string // owned by the server's user: data/, the socket, the log
	port int
	bin  string
	cred *syscall.Credential
	proc *process
}

// NewPostgres starts a private PostgreSQL server on a free port and stops
// it, removing its files, when t ends. It skips t when PostgreSQL's
// binaries are missing, or fails it when CI=true.
func NewPostgres(t testing.TB) *Postgres {
	t.Helper()
	tmpl := pgTemplate()
	if tmpl.missing != nil {
		missing(t, "PostgreSQL (initdb, postgres)", tmpl.missing)
	}
	if tmpl.err != nil {
		t.Fatalf("faulttest: %v", tmpl.err)
	}
	p := &Postgres{t: t, bin: tmpl.bin, cred: tmpl.cred}
	var err error
	if p.dir, err = ownedTempDir("faulttest-pg-", tmpl.cred); err != nil {
		t.Fatalf("faulttest: %v", err)
	}
	p.proc = &process{name: "postgres", log: filepath.Join(p.dir, "server.log")}
	t.Cleanup(func() {
		if err := p.proc.stop(syscall.SIGQUIT); err != nil {
			t.Error(err)
		}
		_ = os.RemoveAll(p.dir)
	})
	if out, err := exec.Command("cp", "-a", tmpl.data, filepath.Join(p.dir, "data")).CombinedOutput(); err != nil {
		t.Fatalf("faulttest: copy the initdb template: %v: %s", err, out)
	}
	if p.port, err = freePort(); err != nil {
		t.Fatalf("faulttest: %v", err)
	}
	p.Start()
	return p
}

// Addr returns the server's host:port.
func (p *Postgres) Addr() string { return addr(p.port) }

// URL returns the URL of database (which need not exist yet) as user
// postgres, with sslmode=disable.
func (p *Postgres) URL(database string) string {
	return fmt.Sprintf("postgres://postgres@%s/%s?sslmode=disable", p.Addr(), database)
}

// Start starts the server, or starts it again after Stop on the same port
// with the same data, and returns once it accepts connections.
func (p *Postgres) Start() {
	p.t.Helper()
	// SIGQUIT, if the test binary dies, is PostgreSQL's immediate shutdown.
	err := p.proc.start(p.cred, syscall.SIGQUIT, filepath.Join(p.bin, "postgres"),
		"-D", filepath.Join(p.dir, "data"), "-p", strconv.Itoa(p.port),
		"-h", "127.0.0.1", "-k", p.dir,
		// A throw-away server: durability buys nothing here.
		"-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off",
		"-c", "max_connections=40", "-c", "shared_buffers=16MB")
	if err == nil {
		err = p.proc.waitUntil(p.ping)
	}
	if err != nil {
		p.t.Fatal(err)
	}
}

// Stop shuts the server down the way an operator's restart does (a fast
// shutdown: open sessions end with SQLSTATE 57P01, then new connections
// are refused) and returns once the process has exited.
func (p *Postgres) Stop() {
	p.t.Helper()
	if err := p.proc.stop(syscall.SIGINT); err != nil {
		p.t.Fatal(err)
	}
	if !refused(p.Addr()) {
		p.t.Fatalf("faulttest: postgres stopped but %s still accepts connections", p.Addr())
	}
}

func (p *Postgres) ping() error {
	db, err := sql.Open("postgres", p.URL("postgres")+"&connect_timeout=2")
	if err != nil {
		return err
	}
	defer db.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	return db.PingContext(ctx)
}

// template is the data directory made by initdb, which every Postgres
// copies; it is looked up (or made) once per test binary.
type template struct {
	bin     string
	cred    *syscall.Credential
	data    string
	missing error // a binary or the postgres user is missing
	err     error // anything else went wrong
}

var (
	templateOnce sync.Once
	templateDir  template
)

func pgTemplate() *template {
	templateOnce.Do(func() { templateDir.init() })
	return &templateDir
}

func (tm *template) init() {
	if tm.bin, tm.missing = pgBinDir(); tm.missing != nil {
		return
	}
	if tm.cred, tm.missing = serverUser(); tm.missing != nil {
		return
	}
	// One template per machine and PostgreSQL version, kept between runs
	// (about 40 MB): initdb takes seconds on a busy machine, a copy does
	// not. It is built aside and renamed into place, so that test binaries
	// starting together never see half of one.
	owner := os.Getuid()
	if tm.cred != nil {
		owner = int(tm.cred.Uid)
	}
	final := filepath.Join(os.TempDir(), fmt.Sprintf("actionkit-faulttest-pg%d-u%d", pgVersion(tm.bin), owner))
	tm.data = filepath.Join(final, "data")
	if isFile(filepath.Join(tm.data, "PG_VERSION")) {
		return
	}
	dir, err := ownedTempDir("faulttest-pgtemplate-", tm.cred)
	if err != nil {
		tm.err = err
		return
	}
	cmd := exec.Command(filepath.Join(tm.bin, "initdb"), "-D", filepath.Join(dir, "data"), "-U", "postgres",
		"-A", "trust", "-E", "UTF8", "--locale=C", "--no-sync")
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: tm.cred}
	if out, err := cmd.CombinedOutput(); err != nil {
		_ = os.RemoveAll(dir)
		tm.err = fmt.Errorf("initdb: %v: %s", err, out)
		return
	}
	if err := os.Rename(dir, final); err != nil {
		_ = os.RemoveAll(dir) // another binary got there first
		if !isFile(filepath.Join(tm.data, "PG_VERSION")) {
			tm.err = fmt.Errorf("install the initdb template: %w", err)
		}
	}
}

// pgBinDir finds the directory holding initdb and postgres.
func pgBinDir() (string, error) {
	var dirs []string
	if d := os.Getenv("FAULTTEST_PG_BIN"); d != "" {
		dirs = append(dirs, d)
	}
	found, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Slice(found, func(i, j int) bool { return pgVersion(found[i]) > pgVersion(found[j]) })
	dirs = append(dirs, found...)
	if initdb, err := exec.LookPath("initdb"); err == nil {
		if real, err := filepath.EvalSymlinks(initdb); err == nil {
			dirs = append(dirs, filepath.Dir(real))
		}
	}
	for _, d := range dirs {
		if isFile(filepath.Join(d, "initdb")) && isFile(filepath.Join(d, "postgres")) {
			return d, nil
		}
	}
	return "", errors.New("no directory with initdb and postgres (set FAULTTEST_PG_BIN)")
}

func pgVersion(binDir string) int {
	v, _ := strconv.Atoi(filepath.Base(filepath.Dir(binDir)))
	return v
}

func isFile(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular()
}

// serverUser is the user PostgreSQL runs as: nil (this process's user)
// unless the test runs as root, which initdb and postgres refuse; then the
// postgres user.
func serverUser() (*syscall.Credential, error) {
	if os.Geteuid() != 0 {
		return nil, nil
	}
	u, err := user.Lookup("postgres")
	if err != nil {
		return nil, fmt.Errorf("running as root needs a postgres user: %w", err)
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}, nil
}

// ownedTempDir makes a fresh directory under the system's temporary
// directory, owned by cred's user when cred is set.
func ownedTempDir(pattern string, cred *syscall.Credential) (string, error) {
	dir, err := os.MkdirTemp("", pattern)
	if err != nil {
		return "", err
	}
	if cred != nil {
		if err := os.Chown(dir, int(cred.Uid), int(cred.Gid)); err != nil {
			_ = os.RemoveAll(dir)
			return "", err
		}
	}
	return dir, nil
}
