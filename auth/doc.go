// Package auth holds the credentials logic of the service, free of HTTP
// routing and of any database, so that a sibling service embedding the
// framework can reuse it with its own owner types and stores.
//
//   - Tokens issues and verifies access tokens (HS256 under a shared secret,
//     or EdDSA and ES256 under the keys of a KeySource) whose claims are sub,
//     type, tokenVersion, iat, exp, iss and a single-string aud such as
//     "user-web" (the owner type and the client). The algorithms a token
//     may carry are fixed by Tokens.Algorithms; an asymmetric token is
//     verified only with the key its kid names, of that key's algorithm.
//   - Key, KeySet and KeySource hold the key pairs: a KeySet says which
//     key signs and which still verify at a given time. The server's keys
//     live in package signingkeys; package auth/jwks fetches a server's
//     published keys for another service.
//   - NewOpaqueToken, HashOpaqueToken and WellFormedOpaqueToken handle the
//     opaque refresh tokens; only their SHA-256 hex hash is ever stored.
//   - Hasher hashes passwords with Argon2id into PHC strings, bounding how
//     many hashes run at once; CheckPasswordPolicy applies the rules for new
//     passwords.
//   - Authenticator resolves the caller of a request from its Authorization
//     header ("jwt-user <token>"), loading the owner through a Loader per
//     owner type and refusing tokens whose tokenVersion is stale. It
//     satisfies the framework's authenticator interface.
//
// Refusals are not errors for the Authenticator: a bad credential makes the
// request anonymous, and the action's access rule decides what follows.
package auth
