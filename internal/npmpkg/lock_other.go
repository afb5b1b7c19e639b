//go:build !unix

package npmpkg

// withFileLock runs fn. Without flock, test processes of several packages
// might install node_modules at once; run them with -p 1 on such systems.
func withFileLock(_ string, fn func() error) error { return fn() }
