package models

import "time"

// RefreshBudget bounds the refreshes of one session (a chain of
// rotations): at most Max within a window of length Window, which opens at
// the chain's first refresh after its previous window closed. Max zero or
// less means no bound. The state is two columns of the chain's live row,
// written forward by every rotation, so that the check reads nothing more
// than the rotation does.
//
// The rule lives twice, here for the transaction of a refresh and in the
// SQL of RotateLive for its fast path; the refresh state machine's tests in
// package accounts run both against the same cases.
type RefreshBudget struct {
	Max    int
	Window time.Duration
}

// within reports whether sess's chain has a budget window open at now.
func (b RefreshBudget) within(sess *Session, now time.Time) bool {
	return sess.RefreshWindowAt != nil && sess.RefreshWindowAt.After(now.Add(-b.Window))
}

// Spent reports whether sess's chain has no refresh left at now, and if so
// how long until its window closes.
func (b RefreshBudget) Spent(sess *Session, now time.Time) (bool, time.Duration) {
	if b.Max <= 0 || !b.within(sess, now) || sess.RefreshCount < b.Max {
		return false, 0
	}
	return true, sess.RefreshWindowAt.Add(b.Window).Sub(now)
}

// Advance sets the budget columns of next, which replaces prev by a
// refresh at now: one more refresh in prev's window, or the first of a new
// one.
func (b RefreshBudget) Advance(prev, next *Session, now time.Time) {
	if b.within(prev, now) {
		at := *prev.RefreshWindowAt
		next.RefreshWindowAt, next.RefreshCount = &at, prev.RefreshCount+1
		return
	}
	next.RefreshWindowAt, next.RefreshCount = &now, 1
}

// args are the budget's parameters of RotateLive: the bound, and the time
// before which a window has closed.
func (b RefreshBudget) args(now time.Time) (int, time.Time) {
	return b.Max, now.Add(-b.Window)
}
