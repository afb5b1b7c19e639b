package oauthserver

import (
	"embed"

	"github.com/actionkit/actionkit/errorcodes"
)

// The error codes of the interaction actions. Never change the ID or
// status of a released code (the server's codes.golden pins them); their
// messages are in messages/*.json.
const (
	UserInvalidOAuthRequest errorcodes.Code = "USER_BAD_REQUEST_INVALID_OAUTH_REQUEST 400 user.invalid_oauth_request"
	UserOAuthAppNotFound    errorcodes.Code = "USER_OAUTH_APP_NOT_FOUND 404 user.oauth_app_not_found"
)

// ErrorCodes returns the codes of the provider, to be given to
// errorcodes.NewCatalog with its Messages.
func ErrorCodes() []errorcodes.Code {
	return []errorcodes.Code{UserInvalidOAuthRequest, UserOAuthAppNotFound}
}

//go:embed messages/*.json
var messageFiles embed.FS

// Messages returns the translations of ErrorCodes, by locale.
func Messages() errorcodes.Messages { return errorcodes.MustLoadMessages(messageFiles, "messages") }
