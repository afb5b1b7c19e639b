package v1_test

import (
	"net/http"
	"testing"

	"github.com/google/uuid"

	"github.com/actionkit/actionkit/accounts/accountstest"
	"github.com/actionkit/actionkit/action"
	v1 "github.com/actionkit/actionkit/actions/v1"
	"github.com/actionkit/actionkit/actiontest"
	"github.com/actionkit/actionkit/framework"
)

// adminAPI starts t as newEnv does, registers the admins' actions on
// users, and returns the API also as a logged-in admin.
func adminAPI(t *testing.T) (env *accountstest.Env, api, admin *actiontest.API) {
	t.Helper()
	env, api = newEnv(t)
	users := env.Users.Service
	framework.Register(api.Framework, &v1.AdminListUsers{Users: env.Users.Management})
	framework.Register(api.Framework, &v1.AdminReadUser{Users: users})
	framework.Register(api.Framework, &v1.AdminUserSessions{Users: env.Users.Activity})
	framework.Register(api.Framework, &v1.AdminUserEvents{Users: env.Users.Activity})
	framework.Register(api.Framework, &v1.AdminRevokeUserSessions{Users: env.Users.Management})
	for _, change := range v1.UserChanges() {
		framework.Register(api.Framework, &v1.AdminChangeUser{Users: env.Users.Management, Change: change})
	}
	_, iss := env.Admins.LoggedIn(t, action.Web)
	return env, api, api.As(env.Admins.Caller(iss))
}

// TestAdminUsers runs the admins' actions on users on the real engine:
// each change answers the user as changed (deactivation and deletion
// ending its sessions), the listings answer the user's sessions and
// events, an unknown user is USER_NOT_FOUND, an id that is no id is named,
// and a user's token is refused.
func TestAdminUsers(t *testing.T) {
	env, api, admin := adminAPI(t)
	acc, iss := env.Users.LoggedIn(t, action.Web)
	id := actiontest.Args{"id": acc.ID.String()}

	res := admin.Call(http.MethodGet, "/v1/admins/users/sessions", id).WantOK(t)
	if s, _ := res.Body["sessions"].([]any); len(s) != 1 || s[0].(map[string]any)["current"] != false {
		t.Errorf("sessions answered %s", res.Raw)
	}
	for _, step := range []struct {
		change string
		check  func(u map[string]any) bool
	}{
		{"deactivate", func(u map[string]any) bool { return u["isActive"] == false }},
		{"activate", func(u map[string]any) bool { return u["isActive"] == true }},
		{"delete", func(u map[string]any) bool { return u["deletedAt"] != nil }},
		{"restore", func(u map[string]any) bool { return u["deletedAt"] == nil }},
	} {
		res := admin.Call(http.MethodPost, "/v1/admins/users/"+step.change, id).WantOK(t)
		if u := obj(res, "user"); u["id"] != acc.ID.String() || !step.check(u) {
			t.Errorf("%s answered %s", step.change, res.Raw)
		}
		res = admin.Call(http.MethodPost, "/v1/admins/users/"+step.change, actiontest.Args{"id": uuid.New().String()})
		res.WantError(t, http.StatusNotFound, "USER_NOT_FOUND")
	}
	if n := len(env.Users.Live(t, acc.ID)); n != 0 {
		t.Errorf("%d sessions live after deactivation and deletion", n)
	}
	res = admin.Call(http.MethodGet, "/v1/admins/users/securityevents", actiontest.Args{"id": acc.ID.String(), "limit": "2"}).WantOK(t)
	if ev, _ := res.Body["events"].([]any); len(ev) != 2 || ev[0].(map[string]any)["type"] != "account_restored" || res.Body["nextCursor"] == nil {
		t.Errorf("events answered %s", res.Raw)
	}
	res = admin.Call(http.MethodGet, "/v1/admins/users/read", id).WantOK(t)
	if obj(res, "user")["email"] != acc.Email {
		t.Errorf("read answered %s", res.Raw)
	}
	unknown := actiontest.Args{"id": uuid.New().String()}
	for _, path := range []string{"read", "sessions", "securityevents", "revokesessions"} {
		admin.Call(http.MethodPost, "/v1/admins/users/"+path, unknown).WantError(t, http.StatusNotFound, "USER_NOT_FOUND")
		wantInvalid(t, admin.Call(http.MethodPost, "/v1/admins/users/"+path, actiontest.Args{"id": "nope"}), "id")
	}
	api.As(env.Users.Caller(iss)).Call(http.MethodPost, "/v1/admins/users/read", id).WantError(t, http.StatusUnauthorized, "UNAUTHORIZED")
}

// TestAdminRevokeUserSessions: the admin's logout-all of a user ends its
// sessions and raises its token version.
func TestAdminRevokeUserSessions(t *testing.T) {
	env, _, admin := adminAPI(t)
	acc, _ := env.Users.LoggedIn(t, action.Web)
	admin.Call(http.MethodPost, "/v1/admins/users/revokesessions", actiontest.Args{"id": acc.ID.String()}).WantOK(t)
	if n, v := len(env.Users.Live(t, acc.ID)), env.Users.Reload(t, acc.ID).TokenVersion; n != 0 || v != 1 {
		t.Errorf("%d sessions left, token version %d; want none and 1", n, v)
	}
}

// TestAdminListUsers: pages of users, newest first, filtered by address
// and status, with nextCursor null on the last; a status, limit or cursor
// outside the schema is named.
func TestAdminListUsers(t *testing.T) {
	env, _, admin := adminAPI(t)
	var ids []string
	for range 3 {
		ids = append(ids, env.Users.NewAccount(t).ID.String())
	}
	first := admin.Call(http.MethodGet, "/v1/admins/users/list", actiontest.Args{"limit": "2", "status": "ACTIVE", "query": " accountstest "}).WantOK(t)
	users, _ := first.Body["users"].([]any)
	next, _ := first.Body["nextCursor"].(string)
	if len(users) != 2 || users[0].(map[string]any)["id"] != ids[2] || next == "" {
		t.Fatalf("the first page answered %s", first.Raw)
	}
	last := admin.Call(http.MethodGet, "/v1/admins/users/list", actiontest.Args{"limit": "2", "cursor": next}).WantOK(t)
	if users, _ := last.Body["users"].([]any); len(users) != 1 || users[0].(map[string]any)["id"] != ids[0] || last.Body["nextCursor"] != nil {
		t.Errorf("the last page answered %s", last.Raw)
	}
	if res := admin.Call(http.MethodGet, "/v1/admins/users/list", actiontest.Args{"status": "deleted"}).WantOK(t); len(res.Body["users"].([]any)) != 0 {
		t.Errorf("deleted users answered %s", res.Raw)
	}
	for field, args := range map[string]actiontest.Args{
		"status": {"status": "banned"}, "limit": {"limit": 101}, "cursor": {"cursor": "AAAA"},
	} {
		wantInvalid(t, admin.Call(http.MethodPost, "/v1/admins/users/list", args), field)
	}
}
