package clients

import (
	"embed"

	"github.com/actionkit/actionkit/errorcodes"
)

// The error codes of the admin client actions. Never change the ID or
// status of a released code (the server's codes.golden pins them); their
// messages are in messages/*.json.
const (
	ClientNotFound errorcodes.Code = "ADMIN_OAUTH_CLIENT_NOT_FOUND 404 admin.oauth_client_not_found"
)

// ErrorCodes returns the codes of the client actions, to be given to
// errorcodes.NewCatalog with Messages.
func ErrorCodes() []errorcodes.Code { return []errorcodes.Code{ClientNotFound} }

//go:embed messages/*.json
var messageFiles embed.FS

// Messages returns the translations of ErrorCodes, by locale.
func Messages() errorcodes.Messages { return errorcodes.MustLoadMessages(messageFiles, "messages") }
