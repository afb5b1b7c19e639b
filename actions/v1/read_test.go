package v1_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/google/uuid"

	"github.com/actionkit/actionkit/accounts"
	"github.com/actionkit/actionkit/action"
	v1 "github.com/actionkit/actionkit/actions/v1"
	"github.com/actionkit/actionkit/actiontest"
	"github.com/actionkit/actionkit/framework"
	"github.com/actionkit/actionkit/models"
)

// fakeReader holds accounts by id.
type fakeReader struct {
	accounts map[uuid.UUID]*models.Account
	reads    int
}

func (f *fakeReader) OwnerKind() accounts.Kind { return accounts.Users }

func (f *fakeReader) Account(_ context.Context, id uuid.UUID) (*models.Account, error) {
	f.reads++
	if a, ok := f.accounts[id]; ok {
		return a, nil
	}
	return nil, accounts.ErrNotFound
}

// TestRead runs V1Read through the pipeline with fake callers: the access
// rule, the id argument's coercion and ownership, and the account the
// authenticator loaded (or the engine's, when it loaded none).
func TestRead(t *testing.T) {
	ada := &models.Account{ID: uuid.New(), Email: "ada@example.com", FirstName: "Ada", Locale: "en", Timezone: "UTC", IsActive: true}
	f := &fakeReader{accounts: map[uuid.UUID]*models.Account{ada.ID: ada}}
	api := actiontest.New(t, framework.Config{})
	framework.Register(api.Framework, &v1.Read{Accounts: f})
	user := api.As(&action.Caller{Type: "user", ID: ada.ID, Client: action.Web, Record: ada})

	res := user.Call(http.MethodGet, "/v1/users/read", nil).WantOK(t)
	got, _ := res.Body["user"].(map[string]any)
	if got["email"] != "ada@example.com" || got["id"] != ada.ID.String() || f.reads != 0 {
		t.Errorf("read own profile: %s (engine reads %d)", res.Raw, f.reads)
	}
	user.Call(http.MethodPost, "/v1/users/read", actiontest.Args{"id": ada.ID.String()}).WantOK(t)
	user.Call(http.MethodGet, "/v1/users/read", actiontest.Args{"id": uuid.New().String()}).
		WantError(t, http.StatusBadRequest, "USER_BAD_REQUEST_ACCOUNT_DOES_NOT_EXIST")
	res = user.Call(http.MethodGet, "/v1/users/read", actiontest.Args{"id": "not-a-uuid"}).
		WantError(t, http.StatusBadRequest, "BAD_REQUEST_INVALID_ARGUMENTS")
	if fields, _ := res.Body["fields"].(map[string]any); fields["id"] == nil {
		t.Errorf("the invalid id is not named: %s", res.Raw)
	}

	// No record from the authenticator: the engine reads the account.
	api.As(&action.Caller{Type: "user", ID: ada.ID, Client: action.App}).
		Call(http.MethodGet, "/v1/users/read", nil).WantOK(t)
	if f.reads != 1 {
		t.Errorf("engine reads = %d, want 1", f.reads)
	}
	// Anonymous, or an admin's token: not this owner.
	api.Call(http.MethodGet, "/v1/users/read", nil).WantError(t, http.StatusUnauthorized, "UNAUTHORIZED")
	api.As(&action.Caller{Type: "admin", ID: ada.ID, Client: action.Web}).
		Call(http.MethodGet, "/v1/users/read", nil).WantError(t, http.StatusUnauthorized, "UNAUTHORIZED")
}
