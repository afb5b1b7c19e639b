package v1

import (
	"context"
	"net/http"
	"time"

	"github.com/actionkit/actionkit/accounts"
	"github.com/actionkit/actionkit/action"
	"github.com/actionkit/actionkit/errorcodes"
)

// Register creates an account and logs it in (users only: admins have no
// self-registration).
type Register struct {
	Accounts *accounts.Service
	Cookies  Cookies
}

// RegisterArgs are the arguments of Register.
type RegisterArgs struct {
	Email     string `arg:"email" mod:"trim,lower" validate:"required,email,max=254"`
	Password  string `arg:"password,secret" validate:"required,password"`
	FirstName string `arg:"firstName" mod:"trim" validate:"max=64"`
	LastName  string `arg:"lastName" mod:"trim" validate:"max=64"`
	Timezone  string `arg:"timezone" mod:"trim" default:"UTC" validate:"max=64"`
	Locale    string `arg:"locale" mod:"trim,locale" default:"en" validate:"locale"`
	// DeviceToken is as in LoginArgs.
	DeviceToken string `arg:"deviceToken,lenient,secret"`
}

// Spec declares V1Register.
func (a *Register) Spec() action.Spec {
	s := specFor(a.Accounts.Kind, "Register", "register")
	s.Summary = "Create an account and log in"
	s.Auth = action.LoggedOut(a.Accounts.Kind.Type)
	s.Status = http.StatusCreated
	s.Errors = []errorcodes.Code{a.Accounts.Kind.Codes.AlreadyExists, accounts.UserInvalidTimezone, errorcodes.ServiceBusy}
	s.RateClass = action.RateRegister
	s.SameSite = true
	return s
}

// Run registers the account.
func (a *Register) Run(ctx context.Context, req *action.Request, in *RegisterArgs) (*SessionResult, error) {
	if !validTimezone(in.Timezone) {
		return nil, accounts.UserInvalidTimezone.New()
	}
	iss, err := a.Accounts.Register(ctx, accounts.NewAccount{
		Email: in.Email, Password: in.Password, FirstName: in.FirstName, LastName: in.LastName,
		Timezone: in.Timezone, Locale: in.Locale,
	}, OriginWithDevice(a.Accounts.Kind, a.Cookies, req, in.DeviceToken))
	if err != nil {
		return nil, AccountError(a.Accounts.Kind, err)
	}
	return LoginAnswer(a.Accounts.Kind, a.Cookies, req, iss), nil
}

// validTimezone accepts IANA zone names; "Local" names the server's zone
// and is refused.
func validTimezone(tz string) bool {
	if tz == "" || tz == "Local" {
		return false
	}
	_, err := time.LoadLocation(tz)
	return err == nil
}
