// Package mail renders the account mails (password reset, address
// verification, notices of changes to the account) in the recipient's
// locale, from templates embedded in the binary, and delivers them from a
// background job over SMTP.
//
// A mail is queued in two parts: its content, link included, under a Redis
// key that expires with the one-time token it carries, and a job on
// MailQueue that names that key and nothing else. The job sends the
// content and deletes the key once the SMTP server has accepted it. So a
// retry after acceptance finds nothing to send, and a Redis dump never
// holds a usable link longer than its token lives.
package mail

import (
	"bytes"
	"embed"
	"fmt"
	htmltemplate "html/template"
	"io/fs"
	texttemplate "text/template"
	"time"
)

// The kinds of mail.
const (
	PasswordReset = "password_reset"
	EmailVerify   = "email_verify"
	// Notices of changes to the second factor and the passkeys: they
	// carry no link and no secret.
	MFAEnabled       = "mfa_enabled"
	MFADisabled      = "mfa_disabled"
	RecoveryCodeUsed = "recovery_code_used"
	MFAReset         = "mfa_reset"
	// Notices of identity-provider accounts connected to or removed from
	// the account: they name the provider (Message.Provider).
	IdentityLinked   = "identity_linked"
	IdentityUnlinked = "identity_unlinked"
	PasskeyAdded     = "passkey_added"
	PasskeyRemoved   = "passkey_removed"
	// RecoveryCodesRegenerated notes a new set of recovery codes (the
	// earlier set is void).
	RecoveryCodesRegenerated = "recovery_codes_regenerated"
	// MethodsRemoved lists what a password reset of an account whose
	// address was never verified removed (Message.Removed).
	MethodsRemoved = "methods_removed"
	// MFAFailures warns of wrong second factors given in a row: someone
	// may know the password.
	MFAFailures = "mfa_failures"
	// EmailChange carries the link that confirms a new address (mailed to
	// it); EmailChanged, mailed to the old address after a change, the
	// link that puts it back. Both name the new address (Message.NewEmail).
	EmailChange  = "email_change"
	EmailChanged = "email_changed"
	// EmailChangeRequested tells the current address of a request to move
	// the account to Message.NewEmail; EmailChangeTaken tells an address
	// that already has an account that someone asked to move another
	// account to it. Neither carries a link.
	EmailChangeRequested = "email_change_requested"
	EmailChangeTaken     = "email_change_taken"
	// EmailReverted, mailed to the address a revert put back, carries
	// the link that chooses a new password (the revert made the old one
	// unusable) and lists what the revert removed (Message.Removed).
	EmailReverted = "email_reverted"
	// AccountDeleted confirms that the owner deleted its account.
	AccountDeleted = "account_deleted"
	// OAuthAppConnected notes the first sign-in of an application through
	// actionkit as an OpenID provider (Message.App names it).
	OAuthAppConnected = "oauth_app_connected"
)

// The kinds of Removal: what a MethodsRemoved or EmailReverted mail lists.
const (
	RemovedIdentity      = "identity"       // Name is the provider's label
	RemovedPasskey       = "passkey"        // Name is the passkey's name
	RemovedTOTP          = "totp"           // the authenticator app
	RemovedRecoveryCodes = "recovery_codes" // the unused recovery codes
)

// Removal is one sign-in method or second factor a notice lists.
type Removal struct {
	Kind string `json:"kind"`
	Name string `json:"name,omitempty"`
}

// Kinds lists every kind of mail; each needs a text and an HTML template in
// every configured locale.
var Kinds = []string{PasswordReset, EmailVerify, MFAEnabled, MFADisabled, RecoveryCodeUsed, MFAReset,
	IdentityLinked, IdentityUnlinked, PasskeyAdded, PasskeyRemoved, RecoveryCodesRegenerated, MethodsRemoved, MFAFailures,
	EmailChange, EmailChanged, EmailChangeRequested, EmailChangeTaken, EmailReverted, AccountDeleted,
	OAuthAppConnected}

//go:embed templates
var embedded embed.FS

// Templates holds the parsed templates of every kind and locale.
type Templates struct {
	fallback string
	text     map[string]*texttemplate.Template // locale/kind
	html     map[string]*htmltemplate.Template
}

// NewTemplates parses the embedded templates of every kind in each of
// locales. A missing or unparsable template is an error, so that start-up
// fails like it does for a locale missing an error message. The first
// locale is the fallback of a recipient whose locale is not listed.
func NewTemplates(locales []string) (*Templates, error) {
	return newTemplates(embedded, locales)
}

// newTemplates is NewTemplates over the templates of fsys.
func newTemplates(fsys fs.FS, locales []string) (*Templates, error) {
	if len(locales) == 0 {
		return nil, fmt.Errorf("mail: no locales")
	}
	t := &Templates{fallback: locales[0], text: map[string]*texttemplate.Template{}, html: map[string]*htmltemplate.Template{}}
	for _, loc := range locales {
		for _, kind := range Kinds {
			key := loc + "/" + kind
			txt, err := fs.ReadFile(fsys, "templates/"+key+".txt")
			if err != nil {
				return nil, fmt.Errorf("mail: locale %s has no text template of %s", loc, kind)
			}
			tt, err := texttemplate.New(key).Option("missingkey=error").Parse(string(txt))
			if err != nil {
				return nil, fmt.Errorf("mail: %s.txt: %w", key, err)
			}
			if tt.Lookup("subject") == nil {
				return nil, fmt.Errorf("mail: %s.txt defines no subject", key)
			}
			html, err := fs.ReadFile(fsys, "templates/"+key+".html")
			if err != nil {
				return nil, fmt.Errorf("mail: locale %s has no HTML template of %s", loc, kind)
			}
			ht, err := htmltemplate.New(key).Option("missingkey=error").Parse(string(html))
			if err != nil {
				return nil, fmt.Errorf("mail: %s.html: %w", key, err)
			}
			t.text[key], t.html[key] = tt, ht
		}
	}
	return t, nil
}

// Message is one mail to render.
type Message struct {
	Kind   string `json:"kind"`
	To     string `json:"to"`
	Locale string `json:"locale"`
	// Link is the one-time link the mail carries.
	Link string `json:"link"`
	// ValidFor is the lifetime of the link, stated in the mail.
	ValidFor time.Duration `json:"validFor"`
	// Provider names the identity provider a notice is about ("Google").
	Provider string `json:"provider,omitempty"`
	// Removed lists what a MethodsRemoved or EmailReverted mail reports.
	Removed []Removal `json:"removed,omitempty"`
	// NewEmail is the address an e-mail change is to.
	NewEmail string `json:"newEmail,omitempty"`
	// App names the application an OAuthAppConnected notice is about.
	App string `json:"app,omitempty"`
}

// Rendered is a message ready to send.
type Rendered struct {
	Kind    string
	To      string
	Locale  string
	Subject string
	Text    string
	HTML    string
	Link    string
}

// templateData is what the templates see.
type templateData struct {
	Email    string
	Link     string
	Hours    int
	Minutes  int
	Provider string
	Removed  []Removal
	NewEmail string
	// Days is the lifetime in days when it is a whole number of days of
	// at least two (else 0).
	Days int
	// App names the application of an OAuthAppConnected notice.
	App string
}

// Render renders m in its locale, or in the fallback locale when m's is not
// configured.
func (t *Templates) Render(m Message) (*Rendered, error) {
	loc := m.Locale
	if _, ok := t.text[loc+"/"+m.Kind]; !ok {
		loc = t.fallback
	}
	key := loc + "/" + m.Kind
	tt, ht := t.text[key], t.html[key]
	if tt == nil || ht == nil {
		return nil, fmt.Errorf("mail: no template of kind %q", m.Kind)
	}
	d := templateData{Email: m.To, Link: m.Link, Minutes: int(m.ValidFor.Round(time.Minute) / time.Minute), Provider: m.Provider,
		Removed: m.Removed, NewEmail: m.NewEmail, App: m.App}
	if m.ValidFor >= 2*time.Hour && m.ValidFor%time.Hour == 0 {
		d.Hours = int(m.ValidFor / time.Hour)
	}
	if m.ValidFor >= 48*time.Hour && m.ValidFor%(24*time.Hour) == 0 {
		d.Days = int(m.ValidFor / (24 * time.Hour))
	}
	var subj, txt, html bytes.Buffer
	if err := tt.ExecuteTemplate(&subj, "subject", d); err != nil {
		return nil, fmt.Errorf("mail: %s subject: %w", key, err)
	}
	if err := tt.Execute(&txt, d); err != nil {
		return nil, fmt.Errorf("mail: %s text: %w", key, err)
	}
	if err := ht.Execute(&html, d); err != nil {
		return nil, fmt.Errorf("mail: %s html: %w", key, err)
	}
	return &Rendered{Kind: m.Kind, To: m.To, Locale: loc, Subject: subj.String(), Text: txt.String(),
		HTML: html.String(), Link: m.Link}, nil
}
