package accounts

import (
	"time"

	"github.com/actionkit/actionkit/mail"
	"github.com/actionkit/actionkit/queues"
)

// MailBound is the number of mails of one purpose an address may receive
// within MailBoundWindow; requests beyond it are answered the same and send
// nothing.
const (
	MailBound       = 3
	MailBoundWindow = time.Hour
)

// V1RequestPasswordResetTask is the job that does the work of a password
// reset request (look the address up, check the bound, issue the token,
// queue the mail) off the request path, so that the request takes the same
// time whether or not the address exists. Its data is {"email": "..."}.
const V1RequestPasswordResetTask = "V1RequestPasswordResetTask"

// Credentials runs an owner kind's password and mailbox proofs on its
// Service: a password change, a reset by mail (with the clean-up of an
// account whose address was never verified) and the verification of an
// address. Fields are dependencies, set once before use.
type Credentials struct {
	Engine *Service
}

// MailSettings configures the mail flows of a Service.
type MailSettings struct {
	Mailer   *mail.Mailer
	Enqueuer *queues.Enqueuer
	// ResetURL and VerifyURL are the links, with {token} replaced.
	ResetURL, VerifyURL string
	ResetTTL, VerifyTTL time.Duration
	// ChangeURL and RevertURL are the links of an e-mail change (to the
	// new address) and of its revert (to the old one), with {token}
	// replaced.
	ChangeURL, RevertURL string
	// RequireVerified refuses login of an unverified address.
	RequireVerified bool
}

// available reports whether the mail flows can send (m may be nil).
func (m *MailSettings) available() bool { return m != nil && m.Mailer.Available() }
