// Package webhooks sends the service's security events to the URLs admins
// register, as Standard Webhooks: signed POSTs, retried on a schedule, at
// least once (docs/webhooks.md).
//
// The table is the queue. A delivery row is written by the very statement
// that writes its security event (models.EventStore.Insert), so a change
// that rolls back leaves no delivery and a committed change cannot lose
// one: there is no moment between a commit and an enqueue for a crash to
// fall into. Workers poll the table (Service.Poll): each claim takes due
// rows with FOR UPDATE SKIP LOCKED and moves them a Lease forward, so two
// workers never send one delivery at once and a worker that dies mid-
// attempt leaves its deliveries due again when the lease ends. The price of
// at least once is that a receiver may see one webhook-id twice; it
// deduplicates by it.
//
// Where a webhook may connect is the Guard's decision, made when the
// webhook is created or changed and again for every connection after the
// host name is resolved (and once more on the socket, in the dialer's
// Control): a name that resolved to a public address at create and resolves
// to a private one later is refused then. Attempts follow no redirect, read
// no proxy variable and take at most AttemptTimeout.
//
// Secrets are kept sealed with the data-encryption key (auth/datakey),
// since each attempt must sign with them; after a rotation the previous
// secret signs too for RotationGrace.
package webhooks
