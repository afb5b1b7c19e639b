package auth_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"time"

	"github.com/actionkit/actionkit/action"
	"github.com/actionkit/actionkit/auth"
	"github.com/google/uuid"
)

func ExampleTokens() {
	clock := func() time.Time { return time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC) }
	tokens, err := auth.NewTokens([]byte("an example secret of at least 32 bytes"), "", 0, clock)
	if err != nil {
		panic(err)
	}
	id := uuid.MustParse("0195a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b")
	session := uuid.MustParse("0195a1b2-c3d4-7e5f-8a9b-0c1d2e3f4b01") // the login the token belongs to
	token, expires, err := tokens.Issue("user", id, session, 4, action.App)
	if err != nil {
		panic(err)
	}
	fmt.Println("expires:", expires)

	claims, err := tokens.Parse("user", token)
	fmt.Println(claims.Subject, claims.SessionID, claims.Type, claims.Client, claims.TokenVersion, err)

	_, err = tokens.Parse("admin", token)
	fmt.Println(err)
	// Output:
	// expires: 2025-03-01 12:15:00 +0000 UTC
	// 0195a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b 0195a1b2-c3d4-7e5f-8a9b-0c1d2e3f4b01 user app 4 <nil>
	// auth: invalid access token: type "user", want "admin"
}

func ExampleAuthenticator() {
	tokens, err := auth.NewTokens([]byte("an example secret of at least 32 bytes"), "", 0, nil)
	if err != nil {
		panic(err)
	}
	// A loader would read the users table and the session in one
	// statement; soft-deleted or inactive users give auth.ErrUnknownOwner,
	// ended sessions auth.ErrSessionEnded.
	users := func(ctx context.Context, id, session uuid.UUID, _ action.Needs) (auth.Principal, error) {
		return auth.Principal{TokenVersion: 1, Locale: "zh-TW", Record: id.String()}, nil
	}
	authn := auth.NewAuthenticator(tokens, auth.Owner{Type: "user", Load: users})

	id := uuid.MustParse("0195a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b")
	session := uuid.MustParse("0195a1b2-c3d4-7e5f-8a9b-0c1d2e3f4b01")
	token, _, _ := tokens.Issue("user", id, session, 1, action.Web)
	for _, header := range []string{"jwt-user " + token, "jwt-admin " + token, "Bearer " + token} {
		r := httptest.NewRequest("POST", "/v1/users/read", nil)
		r.Header.Set("Authorization", header)
		caller, err := authn.Authenticate(context.Background(), r, action.Needs{})
		if caller == nil {
			fmt.Println("anonymous", err)
			continue
		}
		fmt.Println(caller.Type, caller.Client, caller.Locale, err)
	}
	// Output:
	// user web zh-TW <nil>
	// anonymous <nil>
	// anonymous <nil>
}
