// Package accounts is the account and session engine shared by every owner
// type: accounts, their sessions and every way to prove who holds one, over
// the stores of package models.
//
// One Service serves one Kind. Users and admins are two Kinds of the same
// engine; a third owner type is a Kind value plus a migration creating its
// two tables. The engine knows nothing of HTTP: it returns the sentinel
// errors declared beside each part, and the actions map them to each kind's
// error codes.
//
// The engine is a few types, each with one part of the work and the
// dependencies of that part. Each holds the Service of its kind (Engine;
// Federation's is Users) and is built once beside it:
//
//   - Service: the life of a session. Register (register.go) and Login
//     (login.go) end in the completion step (complete.go), which opens the
//     session or, when the owner has a second factor, a second step;
//     Refresh rotates refresh tokens with theft detection (refresh.go);
//     Logout and LogoutAll (logout.go); ending every session of an
//     owner, the caller's going on in a new row when it asks (sessions.go);
//     purges (purge.go). Load is the authenticator's loader of the
//     kind's access tokens (service.go).
//   - SecondFactors: TOTP (totp.go, disable.go), recovery codes
//     (recovery.go), the second step of a login (secondstep.go, factor.go),
//     the budget of failed second-factor attempts (budget.go) and
//     re-authentication (reauth.go).
//   - Passkeys: registration, renaming and removal (passkeys.go), the
//     passkey login (passkeylogin.go), a passkey as a second factor
//     (passkeyfactor.go) and the WebAuthn ceremonies (webauthn.go).
//   - Credentials: a password change (password.go), a reset by mail
//     (reset.go, with the clean-up of an address never verified in
//     hijack.go), the verification of an address (verification.go), and
//     the change of an address with its revert (emailchange.go).
//   - Management: what admins do to accounts (manage.go).
//   - Activity: where an owner is logged in, the end of one of its
//     sessions, and its security events (activity.go).
//   - SelfService: what an owner does to its own account: its profile,
//     its deletion, and the purge of deleted users after the grace
//     (self.go).
//   - Federation: sign-in through identity providers (federation.go,
//     callback.go, linking.go, exchange.go) and the users' identities
//     (identities.go).
//   - OAuthSessions: the sessions the OAuth provider opens for the
//     applications users connect, from a code exchange, with their
//     rotation, replay detection and end, and the provider's security
//     events (oauth.go).
//
// Every state change is one transaction. Refresh, logout-all and theft
// detection lock the owner row first and its sessions after, always in that
// order, so concurrent presentations of one token serialise on the owner:
// exactly one rotates it and the others find it rotated (a replay) without
// deadlock. The uses of one-time tokens (reset, verification, e-mail
// change and revert) keep the order too: they look the token up without a
// lock, lock its owner, then consume it (takeToken). Work that is slow (password hashing) happens before a
// transaction opens, and notifications (Service.Ended, mails) after it
// commits.
package accounts
