package v1_test

import (
	"fmt"
	"log/slog"
	"time"

	"github.com/actionkit/actionkit/accounts"
	"github.com/actionkit/actionkit/action"
	v1 "github.com/actionkit/actionkit/actions/v1"
	"github.com/actionkit/actionkit/models"
)

// A third owner type is a declaration: a Kind naming its tables (created
// by a migration that mirrors users and user_sessions) and its error
// codes. The account actions take their names, paths, header scheme,
// audiences and cookie from it.
func Example_anotherOwnerType() {
	partners := accounts.Kind{
		Type:   "partner",
		Plural: "partners",
		Title:  "Partner",
		Tables: models.OwnerTables{Owners: "partners", Sessions: "partner_sessions", OwnerColumn: "partner_id", Type: "partner"},
		Codes: accounts.Codes{
			InvalidCredentials: "PARTNER_BAD_REQUEST_INVALID_LOGIN_CREDENTIALS 400 partner.invalid_login_credentials",
			AccountInactive:    "PARTNER_BAD_REQUEST_ACCOUNT_INACTIVE 400 partner.account_inactive",
			AccountDeleted:     "PARTNER_BAD_REQUEST_ACCOUNT_DELETED 400 partner.account_deleted",
			AccountNotFound:    "PARTNER_BAD_REQUEST_ACCOUNT_DOES_NOT_EXIST 400 partner.account_does_not_exist",
			InvalidRefresh:     "PARTNER_UNAUTHORIZED_INVALID_REFRESH_TOKEN 401 partner.invalid_refresh_token",
		},
	}
	// In a server: accounts.NewService(partners, db, tokens, hasher, ttl, log),
	// its Owner() added to the authenticator, and each action registered.
	svc := accounts.NewService(partners, nil, nil, nil, 60*24*time.Hour, slog.Default())
	for _, a := range []interface{ Spec() action.Spec }{
		&v1.Login{Accounts: svc}, &v1.Refresh{Accounts: svc}, &v1.Logout{Accounts: svc},
		&v1.LogoutAll{Accounts: svc}, &v1.Read{Accounts: svc},
	} {
		s := a.Spec()
		fmt.Println(s.Name, s.Path)
	}
	fmt.Println(partners.Type.Scheme(), partners.Type.RefreshCookie(), partners.Type.Audience(action.App))
	// Output:
	// V1PartnerLogin /v1/partners/login
	// V1PartnerRefresh /v1/partners/refresh
	// V1PartnerLogout /v1/partners/logout
	// V1PartnerLogoutAll /v1/partners/logoutall
	// V1PartnerRead /v1/partners/read
	// jwt-partner jwt-partner-refresh partner-app
}
