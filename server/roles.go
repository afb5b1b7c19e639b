package main

import "context"

// idleRole waits for shutdown. The worker and clock roles use it until the
// job queues are wired in.
type idleRole struct{}

func (idleRole) run(ctx, _ context.Context) error {
	<-ctx.Done()
	return nil
}

func (a *app) newWorker() (role, error) { return idleRole{}, nil }

func (a *app) newClock() (role, error) { return idleRole{}, nil }
