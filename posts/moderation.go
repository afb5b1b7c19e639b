package posts

import (
	"fmt"
	"strings"
	"unicode"
)

// MaxLinks is how many links a post may carry before moderation takes it
// for spam.
const MaxLinks = 5

// Moderator refuses posts that contain a blocked word or too many links.
// Words match whole and case-insensitively.
type Moderator struct {
	Blocked []string
}

// Check returns why a post is refused, or nil.
func (m Moderator) Check(title, body string) error {
	text := title + "\n" + body
	if n := strings.Count(strings.ToLower(text), "http://") + strings.Count(strings.ToLower(text), "https://"); n > MaxLinks {
		return fmt.Errorf("%d links, at most %d allowed", n, MaxLinks)
	}
	words := strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '-' })
	for _, w := range words {
		for _, b := range m.Blocked {
			if w == b {
				return fmt.Errorf("blocked word %q", b)
			}
		}
	}
	return nil
}
