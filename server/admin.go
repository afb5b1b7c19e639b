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

// adminUsage is what "admin" alone prints.
const adminUsage = "usage: server admin create --email E --password P [--first-name F] [--last-name L]\n" +
	"       server admin resetmfa --email E\n"

// runAdmin runs the admin commands: "admin create" (admins have no
// self-registration) and "admin resetmfa" (an operator's way back for an
// admin who lost a second factor or whose second step is stopped).
func runAdmin(ctx context.Context, cfg *config, log *slog.Logger, args []string, env *environment) int {
	switch {
	case len(args) > 0 && args[0] == "create":
		return adminCreate(ctx, cfg, log, args[1:], env)
	case len(args) > 0 && args[0] == "resetmfa":
		return adminResetMFA(ctx, cfg, log, args[1:], env)
	}
	fmt.Fprint(env.stderr, adminUsage)
	return 2
}

// adminCreate runs "admin create --email E --password P": the password
// rules of users apply.
func adminCreate(ctx context.Context, cfg *config, log *slog.Logger, args []string, env *environment) int {
	fs := flag.NewFlagSet("admin create", flag.ContinueOnError)
	fs.SetOutput(env.stderr)
	email := fs.String("email", "", "the admin's e-mail address")
	password := fs.String("password", "", "the admin's password (12-128 characters, mixed case, a digit and a symbol)")
	first := fs.String("first-name", "", "first name")
	last := fs.String("last-name", "", "last name")
	if err := fs.Parse(args); err != nil {
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
	admins, _, done := openAdmins(ctx, cfg, log)
	if admins == nil {
		return 1
	}
	defer done()
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

// adminResetMFA runs "admin resetmfa --email E": the admin's TOTP,
// recovery codes and passkeys are removed, its count of failed second
// factors set back to 0 and its sessions ended, as an admin's resetmfa
// does for a user; the mfa_reset event says data.by "operator". It is the
// way back for an admin whose second step stopped after 100 failures
// (there is no admin password reset) or who lost every factor.
func adminResetMFA(ctx context.Context, cfg *config, log *slog.Logger, args []string, env *environment) int {
	fs := flag.NewFlagSet("admin resetmfa", flag.ContinueOnError)
	fs.SetOutput(env.stderr)
	email := fs.String("email", "", "the admin's e-mail address")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *email == "" {
		fmt.Fprint(env.stderr, "admin resetmfa: --email is required\n")
		return 2
	}
	_, rooms, done := openAdmins(ctx, cfg, log)
	if rooms == nil {
		return 1
	}
	defer done()
	acc, err := rooms.management.ResetMFAByEmail(ctx, strings.ToLower(strings.TrimSpace(*email)))
	if errors.Is(err, accounts.ErrNotFound) {
		fmt.Fprintf(env.stderr, "admin resetmfa: no admin with e-mail %s\n", *email)
		return 1
	}
	if err != nil {
		log.Error("admin resetmfa failed", "error", err)
		return 1
	}
	return printJSON(env.stdout, map[string]any{"id": acc.ID, "email": acc.Email, "mfaEnabled": acc.MFAEnabled})
}

// openAdmins opens the application for an admin command and returns the
// admins' engine, the types built on it and the function that closes it;
// nil when start-up failed (logged).
func openAdmins(ctx context.Context, cfg *config, log *slog.Logger) (*accounts.Service, *rooms, func()) {
	a, err := openApp(ctx, cfg, log)
	if err != nil {
		log.Error("start-up failed", "error", err)
		return nil, nil, nil
	}
	return a.admins, a.adminRooms, a.close
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
