// Package federation signs people in through OpenID Connect identity
// providers: the providers of the configuration, their discovery documents
// and signing keys, the authorization code flow with PKCE (S256), and the
// verification of the ID tokens they answer with.
//
// A provider's discovery document is read at its first use and kept for
// DiscoveryMaxAge, and read again sooner (at most once per
// KeyRefetchInterval) after a token named a key id the key set lacks; a
// failed first read is not remembered, so the next request tries again,
// a failed later one leaves the older document in use, and concurrent
// requests share one read. Its signing keys are read at the
// first verification and read again at once when a token names a key id
// they lack, at most once per KeyRefetchInterval, so that tokens with
// made-up key ids cannot make the service hammer the provider.
//
// ID tokens are accepted only when signed with an asymmetric algorithm of
// SigningAlgorithms by a key of the provider's set, issued by exactly the
// configured issuer (compared byte for byte: a trailing slash matters),
// for the configured client, and not expired. The nonce is not checked
// here: Exchange returns it and the caller compares it with the one it
// stored. The e-mail claim is read from the ID token, and counts as absent
// unless it is one plain address of at most 254 bytes without a NUL;
// email_verified is read as a boolean or as the strings "true" and
// "false", and anything else, absence included, means not verified. A
// provider whose discovery document says it sends iss in its
// authorization responses must have sent it.
package federation
