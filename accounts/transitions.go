package accounts

import (
	"fmt"
	"time"

	"github.com/actionkit/actionkit/models"
)

// The refresh state machine. One table, refreshTransitions, says what a
// refresh does for every state of the presented token's session and its
// owner; decide follows it in Go, and models.SessionStore.RotateLive is its
// SQL fast path for the one row marked fast. The tests of this package run
// every row through both, against PostgreSQL, so a rule cannot change in
// one place only.

// tokenState is the state of the session a refresh token names: one of
// the derived session states of models, or a token that names no session.
type tokenState string

const (
	tokenMalformed tokenState = "malformed" // not a refresh token at all
	tokenUnknown   tokenState = "unknown"   // well formed, names no session
	tokenActive               = tokenState(models.SessionActive)
	tokenExpired              = tokenState(models.SessionExpired)
	tokenRevoked              = tokenState(models.SessionRevoked)
	tokenRotated              = tokenState(models.SessionRotated)
)

// ownerCond is what a transition needs of the session's owner.
type ownerCond uint8

const (
	ownerAny      ownerCond = iota // the owner does not matter
	ownerUsable                    // active and not deleted
	ownerUnusable                  // deactivated or soft-deleted
)

// chainCond is what a transition needs of the session's chain.
type chainCond uint8

const (
	chainAny      chainCond = iota // the chain does not matter
	chainUnmarked                  // no theft detected on it yet
	chainMarked                    // a theft was detected on it already
)

// budgetCond is what a transition needs of the chain's refresh budget
// (models.RefreshBudget).
type budgetCond uint8

const (
	budgetAny   budgetCond = iota // the budget does not matter
	budgetLeft                    // the chain may refresh again
	budgetSpent                   // the chain has spent its refreshes of the window
)

// effect is what a transition changes, in the refresh's transaction.
type effect uint8

const (
	effectNone effect = iota
	// effectRotate: the session becomes rotated; a successor with its
	// chain, login time, client and platform is created and new tokens are
	// issued.
	effectRotate
	// effectRevoke: the session is revoked.
	effectRevoke
	// effectTheft: every session of the owner is revoked, its token version
	// incremented, the chain marked and a refresh_token_reuse event
	// recorded; after commit the owner's connections are ended.
	effectTheft
)

func (e effect) String() string {
	return [...]string{"none", "rotate", "revoke", "theft"}[e]
}

// transition is one row of the state machine.
type transition struct {
	from    tokenState
	owner   ownerCond
	chain   chainCond
	budget  budgetCond
	outcome string // the refresh_outcome metric label; see err for the error
	effect  effect
	// fast: RotateLive takes this row in one statement; for every other
	// row it changes nothing and answers models.ErrNotFound.
	fast bool
}

// refreshTransitions is the single source of the rotation rules, theft
// marking included (docs/security.md, Refresh rotation and theft).
var refreshTransitions = []transition{
	{from: tokenMalformed, outcome: "malformed", effect: effectNone},
	{from: tokenUnknown, outcome: "unknown", effect: effectNone},
	{from: tokenActive, owner: ownerUsable, budget: budgetLeft, outcome: "rotated", effect: effectRotate, fast: true},
	{from: tokenActive, owner: ownerUsable, budget: budgetSpent, outcome: "limited", effect: effectNone},
	{from: tokenActive, owner: ownerUnusable, outcome: "inactive", effect: effectRevoke},
	{from: tokenExpired, outcome: "expired", effect: effectRevoke},
	{from: tokenRevoked, outcome: "revoked", effect: effectNone},
	{from: tokenRotated, chain: chainUnmarked, outcome: "replay", effect: effectTheft},
	{from: tokenRotated, chain: chainMarked, outcome: "replay_repeated", effect: effectNone},
}

// transitionFor returns the row that matches a token in state from, whose
// owner is usable or not, whose chain is marked by a theft or not and has
// spent its refresh budget or not. It panics if no row or more than one
// matches: the table must cover every case exactly once
// (TestTransitionTableIsComplete).
func transitionFor(from tokenState, usable, marked, spent bool) transition {
	var found transition
	n := 0
	for _, t := range refreshTransitions {
		if t.from == from && t.owner.holds(usable) && t.chain.holds(marked) && t.budget.holds(spent) {
			found = t
			n++
		}
	}
	if n != 1 {
		panic(fmt.Sprintf("accounts: %d refresh transitions for %s (usable %v, marked %v, spent %v)", n, from, usable, marked, spent))
	}
	return found
}

// err is the error a refresh that took t answers, nil for a rotation:
// retry is how long a spent budget lasts.
func (t transition) err(retry time.Duration) error {
	switch {
	case t.effect == effectRotate:
		return nil
	case t.budget == budgetSpent:
		return &LimitedError{RetryAfter: retry}
	case t.from == tokenMalformed || t.from == tokenUnknown:
		return ErrUnknownRefresh
	}
	return ErrInvalidRefresh
}

func (c ownerCond) holds(usable bool) bool {
	return c == ownerAny || (c == ownerUsable) == usable
}

func (c chainCond) holds(marked bool) bool {
	return c == chainAny || (c == chainMarked) == marked
}

func (c budgetCond) holds(spent bool) bool {
	return c == budgetAny || (c == budgetSpent) == spent
}

// usable reports whether acc may authenticate.
func usable(acc *models.Account) bool {
	return acc.IsActive && acc.DeletedAt == nil
}

// RefreshTransition describes one row of the refresh state machine for
// those who answer its outcomes, such as the refresh actions and their
// tests: the outcome (the refresh_outcome metric label) and whether it
// rotates (issues new tokens), is refused for a spent budget (a
// *LimitedError; the token stays good) or ends in ErrInvalidRefresh
// (ErrUnknownRefresh for a token that names no session).
type RefreshTransition struct {
	From    string // the token's state: malformed, unknown, active, expired, revoked or rotated
	Outcome string
	Rotates bool
	// Limited: the session's refresh budget is spent.
	Limited bool
	// EndsSessions: the owner's sessions end (a theft); Ended is called.
	EndsSessions bool
	// Owner is what the row needs of the session's owner: "any",
	// "usable" (active and not deleted) or "unusable" (deactivated or
	// soft-deleted).
	Owner string
	// Marked: the row is for a chain on which a theft was detected
	// already.
	Marked bool
}

// RefreshTransitions lists every row of the state machine, in order.
func RefreshTransitions() []RefreshTransition {
	out := make([]RefreshTransition, len(refreshTransitions))
	for i, t := range refreshTransitions {
		out[i] = RefreshTransition{From: string(t.from), Outcome: t.outcome,
			Rotates: t.effect == effectRotate, Limited: t.budget == budgetSpent, EndsSessions: t.effect == effectTheft,
			Owner: [...]string{"any", "usable", "unusable"}[t.owner], Marked: t.chain == chainMarked}
	}
	return out
}
