package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"strings"

	"github.com/invopop/validation"
	"github.com/invopop/validation/is"

	"github.com/actionkit/actionkit/accounts"
	"github.com/actionkit/actionkit/auth"
)

// runAdmin runs "admin create --email E --password P": admins have no
// self-registration. The password rules of users apply.
func runAdmin(ctx context.Context, cfg *config, log *slog.Logger, args []string, env *environment) int {
	if len(args) == 0 || args[0] != "create" {
		fmt.Fprint(env.stderr, "usage: server admin create --email E --password P [--first-name F] [--last-name L]\n")
		return 2
	}
	fs := flag.NewFlagSet("admin create", flag.ContinueOnError)
	fs.SetOutput(env.stderr)
	email := fs.String("email", "", "the admin's e-mail address")
	password := fs.String("password", "", "the admin's password (12-128 characters, mixed case, a digit and a symbol)")
	first := fs.String("first-name", "", "first name")
	last := fs.String("last-name", "", "last name")
	if err := fs.Parse(args[1:]); err != nil {
		return 2
	}
	in := accounts.NewAccount{
		Email: strings.ToLower(strings.TrimSpace(*email)), Password: *password,
		FirstName: strings.TrimSpace(*first), LastName: strings.TrimSpace(*last),
	}
	if err := checkNewAdmin(in); err != nil {
		fmt.Fprintf(env.stderr, "admin create: %v\n", err)
		return 2
	}
	a, err := openApp(ctx, cfg, log)
	if err != nil {
		log.Error("start-up failed", "error", err)
		return 1
	}
	defer a.close()
	_, admins := a.services()
	acc, err := admins.Create(ctx, in)
	if errors.Is(err, accounts.ErrExists) {
		fmt.Fprintf(env.stderr, "admin create: an admin with e-mail %s already exists\n", in.Email)
		return 1
	}
	if err != nil {
		log.Error("admin create failed", "error", err)
		return 1
	}
	return printJSON(env.stdout, map[string]any{"id": acc.ID, "email": acc.Email, "createdAt": acc.CreatedAt})
}

func checkNewAdmin(in accounts.NewAccount) error {
	if err := validation.Validate(in.Email, validation.Required, is.EmailFormat, validation.RuneLength(1, 254)); err != nil {
		return fmt.Errorf("--email %w", err)
	}
	if err := auth.CheckPasswordPolicy(in.Password); err != nil {
		return fmt.Errorf("--password %w", err)
	}
	if len([]rune(in.FirstName)) > 64 || len([]rune(in.LastName)) > 64 {
		return errors.New("names are at most 64 characters")
	}
	return nil
}

func printJSON(w io.Writer, v any) int {
	enc := json.NewEncoder(w)
	if err := enc.Encode(v); err != nil {
		return 1
	}
	return 0
}
