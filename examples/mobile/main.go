// Command mobile walks through the flow of a mobile app against a running
// bundled server: log in as an app client, read the profile, rotate the
// refresh token through the request body, and log out.
//
//	go run ./examples/mobile -url http://localhost:8000 -email ada@example.com -password 'Correct-Horse-42-battery'
package main

import (
	"context"
	"flag"
	"fmt"
	"os"

	"github.com/actionkit/actionkit/examples/mobile/appclient"
)

func main() {
	url := flag.String("url", "http://localhost:8000", "the server")
	email := flag.String("email", "", "the user's e-mail")
	password := flag.String("password", "", "the user's password")
	platform := flag.String("platform", "ios", "the X-Platform to report")
	flag.Parse()
	if err := walk(context.Background(), &appclient.Client{BaseURL: *url, Platform: *platform}, *email, *password); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func walk(ctx context.Context, c *appclient.Client, email, password string) error {
	p, err := c.Login(ctx, email, password)
	if err != nil {
		return fmt.Errorf("login: %w", err)
	}
	fmt.Printf("logged in as %s (login #%d)\n", p.Email, p.LoginCount)
	if err := c.Refresh(ctx); err != nil {
		return fmt.Errorf("refresh: %w", err)
	}
	fmt.Println("refresh token rotated")
	if p, err = c.Profile(ctx); err != nil {
		return fmt.Errorf("read: %w", err)
	}
	fmt.Printf("profile read: %s\n", p.ID)
	if err := c.Logout(ctx); err != nil {
		return fmt.Errorf("logout: %w", err)
	}
	fmt.Println("logged out")
	return nil
}
