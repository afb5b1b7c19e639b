package main

import (
	"context"
	"fmt"
	"time"

	"github.com/gocraft/work"
	"github.com/google/uuid"

	"github.com/actionkit/actionkit/accounts"
	"github.com/actionkit/actionkit/auth"
	"github.com/actionkit/actionkit/mail"
	"github.com/actionkit/actionkit/queues"
)

// jobs are the background jobs of the bundled server.
func (a *app) jobs() []queues.Job {
	users, admins := a.services()
	svc := a.posts
	return []queues.Job{
		{Queue: queues.PostQueue, Name: queues.V1PublishTask, Handler: a.counted(queues.V1PublishTask, func(ctx context.Context, job *work.Job) error {
			id, err := uuid.Parse(job.ArgString("postId"))
			if err != nil {
				a.log.Warn("publish job without a valid postId: dropped", "jobId", job.ID, "postId", job.ArgString("postId"))
				return nil
			}
			return svc.RunPublishJob(ctx, id)
		})},
		{Queue: queues.MailQueue, Name: queues.V1SendMailTask, MaxFails: 10, Backoff: mail.Backoff(a.cfg.MailRetryBackoff),
			Handler: a.counted(queues.V1SendMailTask, a.mailer.Handle)},
		{Queue: queues.MailQueue, Name: accounts.V1RequestPasswordResetTask, MaxFails: 10, Backoff: mail.Backoff(a.cfg.MailRetryBackoff),
			Handler: a.counted(accounts.V1RequestPasswordResetTask, func(ctx context.Context, job *work.Job) error {
				return a.userRooms.credentials.RunPasswordResetRequest(ctx, job.ArgString("email"),
					accounts.Origin{IP: job.ArgString("ip"), UserAgent: job.ArgString("userAgent")})
			})},
		{Queue: queues.MaintenanceQueue, Name: queues.PurgeSessionsTask, Handler: a.counted(queues.PurgeSessionsTask, func(ctx context.Context, _ *work.Job) error {
			for _, s := range []interface {
				PurgeExpired(context.Context) (int64, error)
			}{users, admins} {
				n, err := s.PurgeExpired(ctx)
				if err != nil {
					return err
				}
				a.log.Info("purged expired sessions", "deleted", n)
			}
			// One table holds the challenges of every owner type.
			n, err := a.userRooms.factors.PurgeChallenges(ctx)
			if err != nil {
				return err
			}
			a.log.Info("purged expired login and WebAuthn challenges", "deleted", n)
			if n, err = a.federation.PurgeFlows(ctx); err != nil {
				return err
			}
			a.log.Info("purged expired identity-provider flows", "deleted", n)
			// Users deleted longer ago than the grace go for good.
			gone, err := a.userRooms.self.PurgeDeleted(ctx, a.cfg.AccountDeletionGrace)
			if err != nil {
				return err
			}
			a.log.Info("purged deleted users", "deleted", gone)
			if err := a.oauth.purge(ctx); err != nil {
				return err
			}
			return a.oauth.purgeClients(ctx)
		})},
		{Queue: queues.MaintenanceQueue, Name: queues.RotateSigningKeysTask, Handler: a.counted(queues.RotateSigningKeysTask, func(ctx context.Context, _ *work.Job) error {
			_, err := a.keys.Rotate(ctx)
			return err
		})},
		{Queue: queues.MaintenanceQueue, Name: queues.PurgeEventsTask, Handler: a.counted(queues.PurgeEventsTask, func(ctx context.Context, _ *work.Job) error {
			// One table holds the events of every owner type.
			n, err := users.PurgeEvents(ctx, a.cfg.EventsRetention)
			if err == nil {
				a.log.Info("purged old security events", "deleted", n)
			}
			return err
		})},
	}
}

// counted records each run of a job in the metrics.
func (a *app) counted(name string, h queues.Handler) queues.Handler {
	return func(ctx context.Context, job *work.Job) error {
		err := h(ctx, job)
		outcome := "ok"
		if err != nil {
			outcome = "failed"
		}
		a.metrics.jobs.WithLabelValues(name, outcome).Inc()
		return err
	}
}

// worker is the role that runs background jobs and sends the webhook
// deliveries.
type worker struct {
	w     *queues.Worker
	hooks func(context.Context)
}

func (a *app) newWorker() (role, error) {
	w, err := queues.NewWorker(queues.WorkerConfig{
		Pool: a.redis, Prefix: a.cfg.JobsNamespace, Concurrency: a.cfg.WorkerConcurrency,
		DeadAfter: a.cfg.WorkerDeadAfter, Logger: a.log, Jobs: a.jobs(),
	})
	if err != nil {
		return nil, fmt.Errorf("worker: %w", err)
	}
	return &worker{w: w, hooks: a.pollWebhooks}, nil
}

// run works until ctx ends, then waits for the running jobs (bounded by
// the shutdown budget).
func (r *worker) run(ctx, stopCtx context.Context) error {
	r.w.Start()
	hooksDone := make(chan struct{})
	go func() { defer close(hooksDone); r.hooks(ctx) }()
	<-ctx.Done()
	return stopWithin(stopCtx, func() { r.w.Stop(); <-hooksDone })
}

// clock is the role that enqueues periodic jobs. Several clocks may run:
// each tick is enqueued once.
type clock struct{ c *queues.Clock }

func (a *app) newClock() (role, error) {
	schedules := []queues.Schedule{
		{Queue: queues.MaintenanceQueue, Job: queues.PurgeSessionsTask, Spec: a.cfg.PurgeSchedule},
		{Queue: queues.MaintenanceQueue, Job: queues.PurgeEventsTask, Spec: a.cfg.PurgeSchedule},
	}
	if auth.Asymmetric(a.cfg.AccessTokenAlg) {
		schedules = append(schedules, queues.Schedule{Queue: queues.MaintenanceQueue, Job: queues.RotateSigningKeysTask, Spec: rotationCheck(a.cfg.SigningKeyRotation)})
	}
	c, err := queues.NewClock(queues.ClockConfig{
		Pool: a.redis, Prefix: a.cfg.JobsNamespace, Logger: a.log, Schedules: schedules,
	})
	if err != nil {
		return nil, fmt.Errorf("clock: %w", err)
	}
	return &clock{c: c}, nil
}

func (r *clock) run(ctx, stopCtx context.Context) error {
	r.c.Start()
	<-ctx.Done()
	return stopWithin(stopCtx, r.c.Stop)
}

// rotationCheck is the schedule on which the clock asks whether the signing
// key is due for rotation: every minute, or every second for a rotation
// shorter than ten minutes (tests). The job does nothing until the key is
// due, and makes one key however many clocks and workers run.
func rotationCheck(rotation time.Duration) string {
	if rotation < 10*time.Minute {
		return "* * * * * *"
	}
	return "0 * * * * *"
}

// stopWithin runs stop, giving up when stopCtx ends first.
func stopWithin(stopCtx context.Context, stop func()) error {
	done := make(chan struct{})
	go func() { stop(); close(done) }()
	select {
	case <-done:
		return nil
	case <-stopCtx.Done():
		return errForcedShutdown
	}
}
