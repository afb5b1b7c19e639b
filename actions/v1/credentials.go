package v1

import (
	"context"
	"errors"

	"github.com/actionkit/actionkit/accounts"
	"github.com/actionkit/actionkit/action"
	"github.com/actionkit/actionkit/errorcodes"
)

// ChangePassword replaces the caller's password (users and admins): every
// other session and access token ends at once, and the caller's session
// continues with new tokens.
type ChangePassword struct {
	Credentials *accounts.Credentials
	Cookies     Cookies
}

// ChangePasswordArgs are the arguments of ChangePassword. The caller's
// session is the access token's: it continues with new tokens, and its
// previous refresh token counts as rotated.
type ChangePasswordArgs struct {
	CurrentPassword string `arg:"currentPassword,secret" validate:"required,max=1024"`
	NewPassword     string `arg:"newPassword,secret" validate:"required,password"`
	// DeviceToken is as in LoginArgs: the current password is checked as
	// a login's is.
	DeviceToken string `arg:"deviceToken,lenient,secret"`
}

// Spec declares V1ChangePassword (V1AdminChangePassword for admins).
func (a *ChangePassword) Spec() action.Spec {
	s := specFor(a.Credentials.Engine.Kind, "ChangePassword", "changepassword")
	s.Summary = "Change your password; every other session ends"
	s.Auth = action.Owner(a.Credentials.Engine.Kind.Type)
	s.Errors = []errorcodes.Code{a.Credentials.Engine.Kind.Codes.InvalidCurrentPassword, errorcodes.ServiceBusy, errorcodes.TooManyRequests}
	s.RateClass = action.RatePassword
	s.SameSite = true // sets the refresh cookie
	// An owner with a second factor changes its password only from a
	// session that used it.
	s.Reauth = action.ReauthLevel
	return s
}

// Run changes the password and answers the caller's new tokens.
func (a *ChangePassword) Run(ctx context.Context, req *action.Request, in *ChangePasswordArgs) (*SessionResult, error) {
	o := OriginWithDevice(a.Credentials.Engine.Kind, a.Cookies, req, in.DeviceToken)
	iss, err := a.Credentials.ChangePassword(ctx, req.Caller.ID, req.Caller.SessionID, in.CurrentPassword, in.NewPassword, o)
	switch {
	case errors.Is(err, accounts.ErrInvalidCredentials):
		return nil, a.Credentials.Engine.Kind.Codes.InvalidCurrentPassword.New()
	case errors.Is(err, accounts.ErrSamePassword):
		return nil, errorcodes.BadRequestInvalidArguments.WithFields(map[string]errorcodes.FieldError{
			"newPassword": {Code: "must_differ", Message: "must differ from the current password"},
		})
	case err != nil:
		return nil, AccountError(a.Credentials.Engine.Kind, err)
	}
	return SessionAnswer(a.Credentials.Engine.Kind, a.Cookies, req, iss), nil
}

// RequestPasswordReset mails a reset link to the address if it belongs to
// an active user. The answer is the same, and takes about the same time,
// whether or not it does.
type RequestPasswordReset struct {
	Credentials *accounts.Credentials
}

// RequestPasswordResetArgs are the arguments of RequestPasswordReset.
type RequestPasswordResetArgs struct {
	Email string `arg:"email" mod:"trim,lower" validate:"required,email,max=254"`
}

// Spec declares V1RequestPasswordReset.
func (a *RequestPasswordReset) Spec() action.Spec {
	s := specFor(a.Credentials.Engine.Kind, "RequestPasswordReset", "requestpasswordreset")
	s.Summary = "Ask for a password reset link by mail"
	s.Auth = action.Public
	s.Errors = []errorcodes.Code{errorcodes.ServiceUnavailable}
	s.RateClass = action.RateMail
	return s
}

// Run queues the request.
func (a *RequestPasswordReset) Run(ctx context.Context, req *action.Request, in *RequestPasswordResetArgs) (*Empty, error) {
	if err := a.Credentials.RequestPasswordReset(ctx, in.Email, Origin(req)); err != nil {
		return nil, mailError(err)
	}
	return &Empty{}, nil
}

// ResetPassword sets a new password with the token of a reset mail and
// ends every session; it does not log in, but the account trusts the
// client that completed it in its login slow-down, and the answer sets the
// device cookie.
type ResetPassword struct {
	Credentials *accounts.Credentials
	Cookies     Cookies
}

// ResetPasswordArgs are the arguments of ResetPassword.
type ResetPasswordArgs struct {
	Token    string `arg:"token,secret,allownul" validate:"required,max=1024"`
	Password string `arg:"password,secret" validate:"required,password"`
	// DeviceToken is as in LoginArgs.
	DeviceToken string `arg:"deviceToken,lenient,secret"`
}

// Spec declares V1ResetPassword.
func (a *ResetPassword) Spec() action.Spec {
	s := specFor(a.Credentials.Engine.Kind, "ResetPassword", "resetpassword")
	s.Summary = "Set a new password with the token of a reset mail"
	s.Auth = action.Public
	s.Errors = []errorcodes.Code{accounts.UserInvalidResetToken, errorcodes.ServiceBusy}
	s.RateClass = action.RateToken
	return s
}

// Run resets the password.
func (a *ResetPassword) Run(ctx context.Context, req *action.Request, in *ResetPasswordArgs) (*Empty, error) {
	device, err := a.Credentials.ResetPassword(ctx, in.Token, in.Password, OriginWithDevice(a.Credentials.Engine.Kind, a.Cookies, req, in.DeviceToken))
	if errors.Is(err, accounts.ErrInvalidToken) {
		return nil, accounts.UserInvalidResetToken.New()
	}
	if err != nil {
		return nil, AccountError(a.Credentials.Engine.Kind, err)
	}
	if device != "" {
		a.Cookies.SetDevice(req, a.Credentials.Engine.Kind.Type, device)
	}
	return &Empty{}, nil
}

// RequestEmailVerification mails the caller a new verification link,
// unless its address is verified already or the bound is reached.
type RequestEmailVerification struct {
	Credentials *accounts.Credentials
}

// Spec declares V1RequestEmailVerification.
func (a *RequestEmailVerification) Spec() action.Spec {
	s := specFor(a.Credentials.Engine.Kind, "RequestEmailVerification", "requestemailverification")
	s.Summary = "Ask for a new address verification mail"
	s.Auth = action.Owner(a.Credentials.Engine.Kind.Type)
	s.Errors = []errorcodes.Code{errorcodes.ServiceUnavailable}
	s.RateClass = action.RateMail
	return s
}

// Run queues the mail.
func (a *RequestEmailVerification) Run(ctx context.Context, req *action.Request, _ *struct{}) (*Empty, error) {
	if _, err := a.Credentials.RequestEmailVerification(ctx, req.Caller.ID); err != nil {
		return nil, mailError(err)
	}
	return &Empty{}, nil
}

// VerifyEmail marks the address verified with the token of a verification
// mail.
type VerifyEmail struct {
	Credentials *accounts.Credentials
}

// VerifyEmailArgs are the arguments of VerifyEmail.
type VerifyEmailArgs struct {
	Token string `arg:"token,secret,allownul" validate:"required,max=1024"`
}

// Spec declares V1VerifyEmail.
func (a *VerifyEmail) Spec() action.Spec {
	s := specFor(a.Credentials.Engine.Kind, "VerifyEmail", "verifyemail")
	s.Summary = "Confirm your address with the token of a verification mail"
	s.Auth = action.Public
	s.Errors = []errorcodes.Code{accounts.UserInvalidVerificationToken}
	s.RateClass = action.RateToken
	return s
}

// Run verifies the address.
func (a *VerifyEmail) Run(ctx context.Context, req *action.Request, in *VerifyEmailArgs) (*AccountResult, error) {
	acc, err := a.Credentials.VerifyEmail(ctx, in.Token, Origin(req))
	if errors.Is(err, accounts.ErrInvalidToken) {
		return nil, accounts.UserInvalidVerificationToken.New()
	}
	if err != nil {
		return nil, err
	}
	return &AccountResult{User: ViewAccount(acc)}, nil
}

func mailError(err error) error {
	if errors.Is(err, accounts.ErrMailUnavailable) {
		return errorcodes.ServiceUnavailable.New()
	}
	return err
}
