// Package docs holds the checks of the repository's documentation: the
// Markdown files beside it and the README name only paths that exist.
package docs
