package main

import (
	"net/http"
	"testing"
)

// TestEmailChangeBoundsCountBothBranches: a request to an address that
// has an account spends the requester's bound (3 an hour) as one to a
// free address does, so the bound neither lets notices to taken addresses
// flow without end nor tells, by what it lets through next, whether an
// address has an account.
func TestEmailChangeBoundsCountBothBranches(t *testing.T) {
	t.Parallel()
	s, smtp := mailServer(t)
	db := s.db()
	u := register(t, s.client(), "app")
	holder := register(t, s.client(), "app")
	for range 3 {
		requestChange(u, holder.email).want(t, 200, "")
	}
	free := "free-" + uniqueEmail()
	requestChange(u, free).want(t, 200, "")
	var n int
	if err := db.GetContext(t.Context(), &n, `SELECT count(*) FROM account_tokens WHERE owner_id = $1 AND purpose = 'email_change'
		AND email = $2`, u.id, free); err != nil {
		t.Fatal(err)
	}
	if n != 0 {
		t.Errorf("a token for a free address after 3 requests to a taken one: %d rows, want 0", n)
	}
	// The requester was told of the three counted requests only: the
	// notice of a later request would come before this one's mails.
	waitMails(t, smtp, holder.email, subjectChangeTaken, 3)
	other := register(t, s.client(), "app")
	requestChange(other, "marker-"+uniqueEmail()).want(t, 200, "")
	waitMails(t, smtp, other.email, subjectChangeNotice, 1)
	if got := len(mailsOf(smtp, u.email, subjectChangeNotice)); got != 3 {
		t.Errorf("%d notices to the requester, want 3", got)
	}
}

// TestEmailChangeBoundsPerRecipient: however many accounts ask, one
// address gets at most 3 mails of e-mail changes an hour: notices when it
// has an account, confirmation links when it is free. Every request is
// still answered the same and tells its requester.
func TestEmailChangeBoundsPerRecipient(t *testing.T) {
	t.Parallel()
	s, smtp := mailServer(t)
	db := s.db()
	victim := register(t, s.client(), "app")
	free := "wanted-" + uniqueEmail()
	var askers []*registered
	for range 5 {
		a := register(t, s.client(), "app")
		askers = append(askers, a)
		requestChange(a, victim.email).want(t, 200, "")
		requestChange(a, free).want(t, 200, "")
	}
	var links int
	if err := db.GetContext(t.Context(), &links, `SELECT count(*) FROM account_tokens WHERE purpose = 'email_change'
		AND email = $1 AND expires_at > created_at`, free); err != nil {
		t.Fatal(err)
	}
	if links != 3 {
		t.Errorf("%d usable tokens for one free address asked by 5 accounts, want 3", links)
	}
	for _, a := range askers {
		waitMails(t, smtp, a.email, subjectChangeNotice, 2)
	}
	// Every notice to the victim was queued before the last requester's
	// notices, which have arrived; a reset mail, two jobs later, comes
	// after any of them.
	s.client().call(http.MethodPost, "/v1/users/requestpasswordreset", map[string]any{"email": victim.email}).want(t, 200, "")
	waitMails(t, smtp, victim.email, "Reset your password", 1)
	if got := len(mailsOf(smtp, victim.email, subjectChangeTaken)); got != 3 {
		t.Errorf("%d notices to one taken address asked by 5 accounts, want 3", got)
	}
	if got := len(mailsOf(smtp, free, subjectChangeLink)); got != 3 {
		t.Errorf("%d links to one free address asked by 5 accounts, want 3", got)
	}
}
