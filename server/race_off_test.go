//go:build !race

package main

// raceBuild reports whether the tests run with the race detector.
const raceBuild = false
