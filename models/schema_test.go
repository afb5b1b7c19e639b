package models_test

import (
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/lib/pq"

	"github.com/actionkit/actionkit/internal/pgtest"
	"github.com/actionkit/actionkit/models"
)

func TestEmailUniqueCaseInsensitive(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	for _, table := range []string{"users", "admins"} {
		t.Run(table, func(t *testing.T) {
			id := insertUser(t, db, table, "A@x.io")
			// A soft-deleted row still owns its address.
			if _, err := db.ExecContext(testCtx(t), `UPDATE `+table+` SET deleted_at = now() WHERE id = $1`, id); err != nil {
				t.Fatal(err)
			}
			_, err := db.ExecContext(testCtx(t),
				`INSERT INTO `+table+` (id, email, password, salt) VALUES ($1, 'a@x.io', 'h', 's')`, newID(t))
			if !models.IsUniqueViolation(err) {
				t.Errorf("second insert of a@x.io: got %v, want a unique violation", err)
			}
		})
	}
}

func TestUserDefaults(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	id := insertUser(t, db, "users", "d@x.io")
	var got struct {
		FirstName    string     `db:"first_name"`
		Timezone     string     `db:"timezone"`
		Locale       string     `db:"locale"`
		IsActive     bool       `db:"is_active"`
		LoginCount   int64      `db:"login_count"`
		TokenVersion int64      `db:"token_version"`
		DeletedAt    *time.Time `db:"deleted_at"`
		CreatedAt    time.Time  `db:"created_at"`
	}
	err := db.GetContext(testCtx(t), &got, `SELECT first_name, timezone, locale, is_active,
		login_count, token_version, deleted_at, created_at FROM users WHERE id = $1`, id)
	if err != nil {
		t.Fatal(err)
	}
	if got.FirstName != "" || got.Timezone != "UTC" || got.Locale != "en" || !got.IsActive ||
		got.LoginCount != 0 || got.TokenVersion != 0 || got.DeletedAt != nil {
		t.Errorf("defaults: got %+v, want '', UTC, en, active, 0, 0, not deleted", got)
	}
	if _, offset := got.CreatedAt.Zone(); offset != 0 {
		t.Errorf("created_at offset: got %ds, want 0 (UTC session)", offset)
	}
	if age := time.Since(got.CreatedAt); age < -time.Minute || age > time.Minute {
		t.Errorf("created_at: got %v, want about now", got.CreatedAt)
	}
}

func TestDeleteUserCascades(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	ctx := testCtx(t)
	owner := insertUser(t, db, "users", "owner@x.io")
	other := insertUser(t, db, "users", "other@x.io")
	for _, u := range []uuid.UUID{owner, owner, other} {
		insertSession(t, db, u)
		if _, err := db.ExecContext(ctx, `INSERT INTO posts (id, user_id, title) VALUES ($1, $2, 't')`, newID(t), u); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := db.ExecContext(ctx, `DELETE FROM users WHERE id = $1`, owner); err != nil {
		t.Fatalf("delete user: %v", err)
	}
	for _, table := range []string{"user_sessions", "posts"} {
		if got := count(t, db, `SELECT count(*) FROM `+table+` WHERE user_id = $1`, owner); got != 0 {
			t.Errorf("%s of the deleted user: got %d, want 0", table, got)
		}
		if got := count(t, db, `SELECT count(*) FROM `+table+` WHERE user_id = $1`, other); got != 1 {
			t.Errorf("%s of the other user: got %d, want 1", table, got)
		}
	}
}

func TestDeleteSessionNullsReplacedBy(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	ctx := testCtx(t)
	owner := insertUser(t, db, "users", "r@x.io")
	old, successor := insertSession(t, db, owner), insertSession(t, db, owner)
	if _, err := db.ExecContext(ctx, `UPDATE user_sessions SET replaced_by_session_id = $1, revoked_at = now() WHERE id = $2`, successor, old); err != nil {
		t.Fatal(err)
	}
	if _, err := db.ExecContext(ctx, `DELETE FROM user_sessions WHERE id = $1`, successor); err != nil {
		t.Fatalf("delete successor: %v", err)
	}
	var got *uuid.UUID
	if err := db.GetContext(ctx, &got, `SELECT replaced_by_session_id FROM user_sessions WHERE id = $1`, old); err != nil {
		t.Fatalf("read old session: %v", err)
	}
	if got != nil {
		t.Errorf("replaced_by_session_id: got %v, want NULL", *got)
	}
}

func TestCheckConstraints(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	owner := insertUser(t, db, "users", "c@x.io")
	hash := strings.Repeat("ab", 32)
	session := `INSERT INTO user_sessions (id, user_id, refresh_token_hash, expires_at, client, platform, ip_address, chain_id, login_at)
		VALUES ($1, $2, $3, now(), $4, $5, $6, $1, now())`
	post := `INSERT INTO posts (id, user_id, title, body, status) VALUES ($1, $2, $3, $4, $5)`
	user := `INSERT INTO users (id, email, password, salt, first_name, locale) VALUES ($1, $2, 'h', 's', $3, $4)`
	tests := []struct {
		name, query string
		args        []any
		constraint  string // empty: the insert must succeed
	}{
		{"valid session", session, []any{hash, "app", "ios", "10.0.0.1"}, ""},
		{"uppercase hash", session, []any{strings.ToUpper(strings.Repeat("cd", 32)), "web", "web", nil}, "user_sessions_refresh_token_hash_format"},
		{"short hash", session, []any{strings.Repeat("e", 63), "web", "web", nil}, "user_sessions_refresh_token_hash_format"},
		{"non-hex hash", session, []any{strings.Repeat("g", 64), "web", "web", nil}, "user_sessions_refresh_token_hash_format"},
		{"hash with newline", session, []any{strings.Repeat("f", 64) + "\n", "web", "web", nil}, "user_sessions_refresh_token_hash_format"},
		{"duplicate hash", session, []any{hash, "web", "web", nil}, "user_sessions_refresh_token_hash_key"},
		{"unknown client", session, []any{strings.Repeat("1", 64), "tv", "web", nil}, "user_sessions_client_check"},
		{"platform uppercase", session, []any{strings.Repeat("2", 64), "web", "iOS", nil}, "user_sessions_platform_format"},
		{"ip too long", session, []any{strings.Repeat("3", 64), "web", "web", strings.Repeat("9", 65)}, "user_sessions_ip_address_length"},
		{"valid post", post, []any{"t", "", "draft"}, ""},
		{"empty title", post, []any{"", "", "draft"}, "posts_title_length"},
		{"title 201", post, []any{strings.Repeat("é", 201), "", "draft"}, "posts_title_length"},
		{"body too long", post, []any{"t", strings.Repeat("b", 20001), "draft"}, "posts_body_length"},
		{"unknown status", post, []any{"t", "", "archived"}, "posts_status_check"},
		{"first name 65", user, []any{"f@x.io", strings.Repeat("n", 65), "en"}, "users_first_name_length"},
		{"locale 17", user, []any{"l@x.io", "", strings.Repeat("l", 17)}, "users_locale_length"},
		{"email 254", user, []any{strings.Repeat("e", 249) + "@x.io", "", "en"}, ""},
		{"email 255", user, []any{strings.Repeat("e", 250) + "@x.io", "", "en"}, "users_email_length"},
	}
	for _, tt := range tests {
		args := tt.args
		if tt.query != user {
			args = append([]any{owner}, args...)
		}
		_, err := db.ExecContext(testCtx(t), tt.query, append([]any{newID(t)}, args...)...)
		switch pqErr := pq.As(err); {
		case tt.constraint == "" && err != nil:
			t.Errorf("%s: got %v, want success", tt.name, err)
		case tt.constraint != "" && pqErr == nil:
			t.Errorf("%s: got %v, want a violation of %s", tt.name, err, tt.constraint)
		case tt.constraint != "" && pqErr.Constraint != tt.constraint:
			t.Errorf("%s: got constraint %q (%v), want %q", tt.name, pqErr.Constraint, err, tt.constraint)
		}
	}
}

func TestIndexesExist(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	want := map[string]string{ // index name: a fragment of its definition
		"users_email_lower_key":                     "UNIQUE INDEX users_email_lower_key ON public.users USING btree (lower(email))",
		"admins_email_lower_key":                    "UNIQUE INDEX admins_email_lower_key ON public.admins USING btree (lower(email))",
		"user_sessions_user_id_idx":                 "(user_id)",
		"user_sessions_replaced_by_session_id_idx":  "(replaced_by_session_id)",
		"user_sessions_expires_at_idx":              "(expires_at)",
		"user_sessions_refresh_token_hash_key":      "UNIQUE INDEX",
		"admin_sessions_admin_id_idx":               "(admin_id)",
		"admin_sessions_replaced_by_session_id_idx": "(replaced_by_session_id)",
		"admin_sessions_expires_at_idx":             "(expires_at)",
		"admin_sessions_refresh_token_hash_key":     "UNIQUE INDEX",
		"posts_user_id_idx":                         "(user_id)",
	}
	var rows []struct {
		Name string `db:"indexname"`
		Def  string `db:"indexdef"`
	}
	if err := db.SelectContext(testCtx(t), &rows, `SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = 'public'`); err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, r := range rows {
		got[r.Name] = r.Def
	}
	for name, fragment := range want {
		def, ok := got[name]
		switch {
		case !ok:
			t.Errorf("index %s: got missing, want present", name)
		case !strings.Contains(def, fragment):
			t.Errorf("index %s: got %q, want it to contain %q", name, def, fragment)
		case strings.Contains(def, "WHERE"):
			t.Errorf("index %s: got partial %q, want a full index", name, def)
		}
	}
}

func TestRefreshTokenHashIsText(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	for _, table := range []string{"user_sessions", "admin_sessions"} {
		var typ string
		err := db.GetContext(testCtx(t), &typ, `SELECT data_type FROM information_schema.columns
			WHERE table_name = $1 AND column_name = 'refresh_token_hash'`, table)
		if err != nil {
			t.Fatal(err)
		}
		if typ != "text" {
			t.Errorf("%s.refresh_token_hash type: got %q, want text (char(n) defeats the index)", table, typ)
		}
	}
}
