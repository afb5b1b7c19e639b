// Package v2 holds the version 2 actions. A version differs from the one
// before without touching it: V2Login is served at /v2/users/login beside
// V1Login at /v1/users/login, over the same account engine.
package v2
