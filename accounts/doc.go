// Package accounts is the account and session engine shared by every owner
// type: registration, login, refresh-token rotation with theft detection,
// logout and logout-all, over the stores of package models.
//
// One Service serves one Kind. Users and admins are two Kinds of the same
// engine; a third owner type is a Kind value plus a migration creating its
// two tables. The engine knows nothing of HTTP: it returns the sentinel
// errors below, and the actions map them to each kind's error codes.
//
// Every state change is one transaction. Refresh, logout-all and theft
// detection lock the owner row first and its sessions after, always in that
// order, so concurrent presentations of one token serialise on the owner:
// exactly one rotates it and the others find it rotated (a replay) without
// deadlock. Work that is slow (password hashing) happens before a
// transaction opens, and notifications (Service.Ended) after it commits.
package accounts
