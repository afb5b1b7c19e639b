package models

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"
)

// OwnerTables names the tables of one owner type. Users and admins share the
// same shape, so one AccountStore and one SessionStore type serve both; a
// third owner type is a migration plus a new OwnerTables value.
//
// The names are pasted into SQL text once, when a store is built, so they
// must come from the program (never from input): New*Store panics unless
// each matches ^[a-z_]+$.
type OwnerTables struct {
	// Owners is the account table, such as "users".
	Owners string
	// Sessions is the table of the owners' refresh-token sessions, such as
	// "user_sessions".
	Sessions string
	// OwnerColumn is the column of Sessions that references Owners, such as
	// "user_id".
	OwnerColumn string
	// Type is the owner_type of its rows in the tables every owner type
	// shares (security_events, mfa_totp, ...), such as "user".
	Type string
}

// UserTables names the tables of end users.
var UserTables = OwnerTables{Owners: "users", Sessions: "user_sessions", OwnerColumn: "user_id", Type: "user"}

// AdminTables names the tables of admins.
var AdminTables = OwnerTables{Owners: "admins", Sessions: "admin_sessions", OwnerColumn: "admin_id", Type: "admin"}

// mustValidate panics unless every name of t is a plain lowercase
// identifier; a bad name is a programming error, found at start-up.
func (t OwnerTables) mustValidate() {
	for _, name := range []string{t.Owners, t.Sessions, t.OwnerColumn, t.Type} {
		if !isIdent(name) {
			panic(fmt.Sprintf("models: name %q in %+v does not match ^[a-z_]+$", name, t))
		}
	}
}

// Account is a row of users or admins. It carries the password hash and the
// salt, so it has no JSON tags: the API layer builds its own whitelisted view.
type Account struct {
	ID uuid.UUID `db:"id"`
	// Email is stored as given; callers trim and lowercase it. Lookups and the
	// unique index compare lower(email).
	Email string `db:"email"`
	// Password is the encoded password hash, never the password itself;
	// empty for an account without a password (stored as NULL).
	Password string `db:"password"`
	// Salt is the salt of Password.
	Salt         string     `db:"salt"`
	FirstName    string     `db:"first_name"`
	LastName     string     `db:"last_name"`
	Timezone     string     `db:"timezone"`
	Locale       string     `db:"locale"`
	IsActive     bool       `db:"is_active"`
	DeletedAt    *time.Time `db:"deleted_at"`
	LoginCount   int64      `db:"login_count"`
	LastLoginAt  *time.Time `db:"last_login_at"`
	TokenVersion int64      `db:"token_version"`
	CreatedAt    time.Time  `db:"created_at"`
	UpdatedAt    time.Time  `db:"updated_at"`
	// EmailVerifiedAt is when the owner proved the address, or nil.
	EmailVerifiedAt *time.Time `db:"email_verified_at"`
	// MFAEnabled reports a confirmed second factor (a confirmed TOTP
	// secret, or a passkey); the database keeps it, by triggers on the
	// factor tables (migration 0011), and no store writes it.
	MFAEnabled bool `db:"mfa_enabled"`
	// HasPassword reports that the owner can log in with a password; it is
	// derived from the password column, never written.
	HasPassword bool `db:"has_password"`
}

// normalize converts every timestamp of a to UTC.
func (a *Account) normalize() {
	utc(&a.CreatedAt)
	utc(&a.UpdatedAt)
	utcPtr(&a.DeletedAt)
	utcPtr(&a.LastLoginAt)
	utcPtr(&a.EmailVerifiedAt)
}

// accountColumns is the column list of Account, in insert order.
const accountColumns = `id, email, password, salt, first_name, last_name, timezone, locale,
	is_active, deleted_at, login_count, last_login_at, token_version, created_at, updated_at,
	email_verified_at`

// accountSelect lists what a SELECT or RETURNING reads of an account
// whose columns are qualified by q ("users." or "o."): the columns of
// accountColumns, then mfa_enabled and the derived has_password.
func accountSelect(q string) string {
	var cols []string
	for _, c := range strings.Split(accountColumns, ",") {
		c = strings.TrimSpace(c)
		if c == "password" {
			// NULL (no password) reads as the empty string.
			cols = append(cols, `COALESCE(`+q+c+`, '') AS password`)
			continue
		}
		cols = append(cols, q+c)
	}
	return strings.Join(cols, ", ") + `, ` + derivedAccountColumns(q)
}

// derivedAccountColumns are mfa_enabled (kept by the database) and
// has_password (derived from the password column) of the account whose
// columns are qualified by q.
func derivedAccountColumns(q string) string {
	return q + `mfa_enabled, (` + q + `password IS NOT NULL AND ` + q + `password <> '') AS has_password`
}

// AccountStore reads and writes the accounts of one owner type. Its SQL is
// built once by NewAccountStore; it is safe for concurrent use.
type AccountStore struct {
	accountQueries
	q querier
}

// accountQueries is the query table of AccountStore.
type accountQueries struct {
	create, byID, byEmail, recordLogin, setPassword, bumpTokenVersion string
	lockForUpdate, setActive, softDelete, verifyEmail                 string
	byIDWithSession, byIDWithAssurance, restore, list, liveSessions   string
	updateProfile, setEmail                                           string
}

// Prepared returns a copy of the store whose queries are prepared on pool
// (and in pool's transactions): see querier.
func (s *AccountStore) Prepared(pool *sqlx.DB) *AccountStore {
	c := *s
	c.q = preparedOn(pool, queriesOf(&s.accountQueries)...)
	return &c
}

// NewAccountStore returns a store for the accounts in t.Owners. It panics if
// a name in t is not a plain lowercase identifier.
func NewAccountStore(t OwnerTables) *AccountStore {
	t.mustValidate()
	sel := `SELECT ` + accountSelect(t.Owners+".") + ` FROM ` + t.Owners
	returning := ` RETURNING ` + accountSelect(t.Owners+".")
	upd := `UPDATE ` + t.Owners + ` SET `
	return &AccountStore{accountQueries: accountQueries{
		create: `INSERT INTO ` + t.Owners + ` (` + accountColumns + `)
			VALUES ($1, $2, NULLIF($3, ''), $4, $5, $6, $7, $8, $9, $10, $11, $12, $13,
				COALESCE($14, now()), COALESCE($15, $14, now()), $16)
			RETURNING created_at, updated_at`,
		byID: sel + ` WHERE id = $1`,
		// lower(email) on both sides so the unique index on lower(email) serves it.
		byEmail: sel + ` WHERE lower(email) = lower($1)`,
		recordLogin: upd + `login_count = login_count + 1, last_login_at = $2, updated_at = $2
			WHERE id = $1 AND is_active AND deleted_at IS NULL` + returning,
		setPassword:       upd + `password = $2, salt = $3, updated_at = $4 WHERE id = $1`,
		bumpTokenVersion:  upd + `token_version = token_version + 1, updated_at = $2 WHERE id = $1 RETURNING token_version`,
		lockForUpdate:     sel + ` WHERE id = $1 FOR NO KEY UPDATE`,
		setActive:         upd + `is_active = $2, updated_at = $3 WHERE id = $1`,
		softDelete:        upd + `deleted_at = COALESCE(deleted_at, $2), updated_at = $2 WHERE id = $1`,
		verifyEmail:       upd + `email_verified_at = COALESCE(email_verified_at, $2), updated_at = $2 WHERE id = $1` + returning,
		byIDWithSession:   byIDWithSessionSQL(t, false),
		byIDWithAssurance: byIDWithSessionSQL(t, true),
		liveSessions:      liveSessionsSQL(t),
		restore:           upd + `deleted_at = NULL, updated_at = $2 WHERE id = $1`,
		list:              listAccountsSQL(t),
		updateProfile: upd + `first_name = $2, last_name = $3, timezone = $4, locale = $5, updated_at = $6
			WHERE id = $1` + returning,
		setEmail: upd + `email = $2, email_verified_at = $3, updated_at = $3 WHERE id = $1` + returning,
	}}
}

// byIDWithSessionSQL reads an owner by primary key (every column but the
// password hash and salt, which authentication does not need, and the
// derived has_password) and, in the same statement, the expiry of the
// live row of its session $2 (SessionID, the column chain_id), with its assurance (auth_methods,
// aal, authenticated_at, provider, factor_authenticated_at) when assurance is set: the row that is
// not revoked, found through the partial index on chain_id (a chain has at
// most one; LIMIT 1 spares the planner the proof). The expiry is compared
// in Go, so that no condition on expires_at can lure the planner to
// another index. One round trip per authenticated request. Without the
// assurance the session is a scalar subquery, which PostgreSQL runs about
// a tenth faster than the lateral join the six columns need: most
// requests need only the expiry.
func byIDWithSessionSQL(t OwnerTables, assurance bool) string {
	var cols []string
	for _, c := range strings.Split(authColumns, ",") {
		cols = append(cols, "o."+strings.TrimSpace(c))
	}
	owner := `SELECT ` + strings.Join(cols, ", ") + `, ` + derivedAccountColumns("o.")
	live := `FROM ` + t.Sessions + ` WHERE chain_id = $2 AND revoked_at IS NULL AND ` + t.OwnerColumn + ` = $1 LIMIT 1`
	if !assurance {
		return owner + `, (SELECT expires_at ` + live + `) FROM ` + t.Owners + ` o WHERE o.id = $1`
	}
	return owner + `, s.expires_at, s.auth_methods, s.aal, s.authenticated_at, s.provider, s.factor_authenticated_at
		FROM ` + t.Owners + ` o LEFT JOIN LATERAL (
			SELECT expires_at, auth_methods, aal, authenticated_at, provider, factor_authenticated_at ` + live + `) s ON true
		WHERE o.id = $1`
}

// listAccountsSQL pages through the owners newest first, filtered by an
// escaped lowercase e-mail substring ($1, empty for all), a status ($2) and
// a keyset cursor ($3, $4: the created_at and id of the last row seen).
func listAccountsSQL(t OwnerTables) string {
	return `SELECT ` + accountSelect(t.Owners+".") + ` FROM ` + t.Owners + `
		WHERE ($1 = '' OR lower(email) LIKE '%' || $1 || '%' ESCAPE '\')
		AND CASE $2::text
			WHEN 'active' THEN is_active AND deleted_at IS NULL
			WHEN 'inactive' THEN NOT is_active AND deleted_at IS NULL
			WHEN 'deleted' THEN deleted_at IS NOT NULL
			ELSE true END
		AND ($3::timestamptz IS NULL OR (created_at, id) < ($3::timestamptz, $4::uuid))
		ORDER BY created_at DESC, id DESC LIMIT $5`
}

// Create inserts a with every column as given, including its ID (an
// empty Password is stored as NULL: an account without one). A zero
// CreatedAt is filled by the database with now() (the transaction's start
// time); a zero UpdatedAt takes the value of CreatedAt. Both are then set on
// a from RETURNING. Note that the zero IsActive is false: callers creating
// an active account set it. ErrDuplicate means the e-mail address is taken,
// compared case-insensitively and including soft-deleted accounts.
func (s *AccountStore) Create(ctx context.Context, db DB, a *Account) error {
	row := s.q.rowx(ctx, db, s.create, a.ID, a.Email, a.Password, a.Salt,
		a.FirstName, a.LastName, a.Timezone, a.Locale, a.IsActive, a.DeletedAt,
		a.LoginCount, a.LastLoginAt, a.TokenVersion, nullIfZero(a.CreatedAt), nullIfZero(a.UpdatedAt), a.EmailVerifiedAt)
	if err := row.Scan(&a.CreatedAt, &a.UpdatedAt); err != nil {
		return storeErr("create account", err)
	}
	a.normalize()
	a.HasPassword = a.Password != "" // derived as the reads derive it; a new account has no second factor
	return nil
}

// ByID returns the account with id, whatever its flags, or ErrNotFound.
func (s *AccountStore) ByID(ctx context.Context, db DB, id uuid.UUID) (*Account, error) {
	return getRow[Account](ctx, s.q, db, "account by id", s.byID, id)
}

// ByEmail returns the account whose e-mail address equals email without
// regard to case, whatever its flags, or ErrNotFound.
func (s *AccountStore) ByEmail(ctx context.Context, db DB, email string) (*Account, error) {
	return getRow[Account](ctx, s.q, db, "account by email", s.byEmail, email)
}

// RecordLogin counts a successful login of an active, not deleted account in
// one statement (login_count + 1 is computed by PostgreSQL, so concurrent
// logins never lose a count), sets last_login_at and updated_at to now and
// returns the updated account. ErrNotFound means no such account, or one
// that is inactive or soft-deleted.
func (s *AccountStore) RecordLogin(ctx context.Context, db DB, id uuid.UUID, now time.Time) (*Account, error) {
	return getRow[Account](ctx, s.q, db, "record login", s.recordLogin, id, now)
}

// SetPassword replaces the password hash and salt of the account, or
// returns ErrNotFound.
func (s *AccountStore) SetPassword(ctx context.Context, db DB, id uuid.UUID, encoded, salt string, now time.Time) error {
	return execOne(ctx, s.q, db, "set password", s.setPassword, id, encoded, salt, now)
}

// BumpTokenVersion increments the account's token version, which makes
// every access token issued before invalid, and returns the new version.
// ErrNotFound means no such account.
func (s *AccountStore) BumpTokenVersion(ctx context.Context, db DB, id uuid.UUID, now time.Time) (int64, error) {
	var v int64
	if err := s.q.get(ctx, db, &v, s.bumpTokenVersion, id, now); err != nil {
		return 0, storeErr("bump token version", err)
	}
	return v, nil
}

// LockForUpdate reads the account and locks its row (FOR NO KEY UPDATE)
// until the transaction db belongs to ends. Outside a transaction the lock
// ends with the statement. ErrNotFound means no such account.
func (s *AccountStore) LockForUpdate(ctx context.Context, db DB, id uuid.UUID) (*Account, error) {
	return getRow[Account](ctx, s.q, db, "lock account", s.lockForUpdate, id)
}

// VerifyEmail records that the owner proved its address at now (an earlier
// proof is kept) and returns the account, or ErrNotFound.
func (s *AccountStore) VerifyEmail(ctx context.Context, db DB, id uuid.UUID, now time.Time) (*Account, error) {
	return getRow[Account](ctx, s.q, db, "verify email", s.verifyEmail, id, now)
}

// SetActive sets the account's is_active flag, or returns ErrNotFound.
func (s *AccountStore) SetActive(ctx context.Context, db DB, id uuid.UUID, active bool, now time.Time) error {
	return execOne(ctx, s.q, db, "set active", s.setActive, id, active, now)
}

// authColumns are the stored columns ByIDWithSession reads, in the order
// of authDest.
const authColumns = `id, email, first_name, last_name, timezone, locale, is_active, deleted_at,
	login_count, last_login_at, token_version, created_at, updated_at, email_verified_at`

// authDest lists where ByIDWithSession scans each column of authColumns,
// then the derived ones, then the session's expiry and, with assurance,
// how it was authenticated. Scanning into explicit fields spares the
// hottest statement of the service sqlx's reflection;
// TestChainsAcrossRotation compares the result with ByID's.
func authDest(r *AccountSession, assurance bool) []any {
	a, s := &r.Account, &r.Session
	dest := []any{&a.ID, &a.Email, &a.FirstName, &a.LastName, &a.Timezone, &a.Locale, &a.IsActive, &a.DeletedAt,
		&a.LoginCount, &a.LastLoginAt, &a.TokenVersion, &a.CreatedAt, &a.UpdatedAt, &a.EmailVerifiedAt,
		&a.MFAEnabled, &a.HasPassword, &r.SessionExpiresAt}
	if assurance {
		dest = append(dest, &s.Methods, &r.level, &r.authenticatedAt, &s.Provider, &s.FactorAt)
	}
	return dest
}

// AccountSession is what ByIDWithSession reads.
type AccountSession struct {
	Account
	// SessionExpiresAt is the expiry of the session's live row, nil when
	// the session is not live (ended, expired, unknown, or another owner's).
	SessionExpiresAt *time.Time
	// Session is how the live row was authenticated (zero when it is not
	// live, or was not asked for).
	Session Assurance

	level           *int16     // the live row's aal, if any
	authenticatedAt *time.Time // and its authenticated_at
}

// ByIDWithSession returns the account with id, whatever its flags, with the
// expiry of its session sessionID (Session.SessionID, column chain_id) when
// that session is live at now, and, with assurance set, how that session
// was authenticated, in one statement; ErrNotFound means no such account.
// The account's Password and Salt are left empty.
func (s *AccountStore) ByIDWithSession(ctx context.Context, db DB, id, sessionID uuid.UUID, now time.Time, assurance bool) (*AccountSession, error) {
	var row AccountSession
	query := s.byIDWithSession
	if assurance {
		query = s.byIDWithAssurance
	}
	if err := s.q.rowx(ctx, db, query, id, sessionID).Scan(authDest(&row, assurance)...); err != nil {
		return nil, storeErr("account with session", err)
	}
	row.Account.normalize()
	utcPtr(&row.SessionExpiresAt)
	if row.SessionExpiresAt != nil && !row.SessionExpiresAt.After(now) {
		row.SessionExpiresAt = nil // expired
	}
	if row.SessionExpiresAt == nil || row.level == nil || row.authenticatedAt == nil {
		row.Session = Assurance{}
		return &row, nil
	}
	row.Session.Level, row.Session.AuthenticatedAt = *row.level, row.authenticatedAt.UTC()
	utcPtr(&row.Session.FactorAt)
	return &row, nil
}

// Restore clears the account's soft delete, or returns ErrNotFound.
func (s *AccountStore) Restore(ctx context.Context, db DB, id uuid.UUID, now time.Time) error {
	return execOne(ctx, s.q, db, "restore account", s.restore, id, now)
}

// Account statuses of List.
const (
	StatusAll      = "all"
	StatusActive   = "active"   // is_active and not deleted
	StatusInactive = "inactive" // not is_active and not deleted
	StatusDeleted  = "deleted"  // deleted_at set
)

// AccountFilter selects the accounts List returns.
type AccountFilter struct {
	// Query is an e-mail substring, matched without regard to case; empty
	// matches every account.
	Query string
	// Status is one of the Status constants; empty means StatusAll.
	Status string
	// After, when not nil, continues a listing after this account (the
	// last of the previous page), by creation time then id.
	After *Keyset
	// Limit bounds the number of accounts returned.
	Limit int
}

// Keyset is a position in a listing ordered newest first.
type Keyset struct {
	CreatedAt time.Time
	ID        uuid.UUID
}

// List returns the accounts of f, newest first.
func (s *AccountStore) List(ctx context.Context, db DB, f AccountFilter) ([]Account, error) {
	var ts, id any
	if f.After != nil {
		ts, id = f.After.CreatedAt, f.After.ID
	}
	return selectRows[Account](ctx, s.q, db, "list accounts", s.list, likePattern(f.Query), f.Status, ts, id, f.Limit)
}

// likePattern lowercases q and escapes LIKE's wildcards in it.
func likePattern(q string) string {
	return strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(strings.ToLower(q))
}

// SoftDelete marks the account deleted at now; an account deleted before
// keeps its first deleted_at. ErrNotFound means no such account.
func (s *AccountStore) SoftDelete(ctx context.Context, db DB, id uuid.UUID, now time.Time) error {
	return execOne(ctx, s.q, db, "soft delete", s.softDelete, id, now)
}

// Profile is what an owner may change of its account itself.
type Profile struct {
	FirstName, LastName, Timezone, Locale string
}

// UpdateProfile sets the account's names, time zone and locale and returns
// it as changed, or ErrNotFound.
func (s *AccountStore) UpdateProfile(ctx context.Context, db DB, id uuid.UUID, p Profile, now time.Time) (*Account, error) {
	return getRow[Account](ctx, s.q, db, "update profile", s.updateProfile, id, p.FirstName, p.LastName, p.Timezone, p.Locale, now)
}

// SetEmail replaces the account's address by email, verified at now, and
// returns the account as changed. ErrDuplicate means the address is taken
// (the unique index on lower(email) decides, soft-deleted accounts
// included); ErrNotFound, no such account.
func (s *AccountStore) SetEmail(ctx context.Context, db DB, id uuid.UUID, email string, now time.Time) (*Account, error) {
	return getRow[Account](ctx, s.q, db, "set email", s.setEmail, id, email, now)
}
