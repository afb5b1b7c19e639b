package queues

// Queue and job names. Other programs (the API, the worker, operators reading
// Redis) rely on them: they are part of the contract.
const (
	// PostQueue holds the jobs about posts.
	PostQueue = "PostQueue"
	// V1PublishTask publishes a post in the background; its data is
	// {"postId": "<uuid>"}.
	V1PublishTask = "V1PublishTask"

	// MaintenanceQueue holds the housekeeping jobs fired by the clock.
	MaintenanceQueue = "MaintenanceQueue"
	// PurgeSessionsTask deletes sessions that expired long ago.
	PurgeSessionsTask = "PurgeExpiredSessions"
	// PurgeEventsTask deletes security events older than their retention.
	PurgeEventsTask = "PurgeSecurityEvents"
	// RotateSigningKeysTask replaces the access-token signing key once it
	// is older than SIGNING_KEY_ROTATION (a no-op before that).
	RotateSigningKeysTask = "RotateSigningKeys"

	// MailQueue holds the outgoing mails.
	MailQueue = "MailQueue"
	// V1SendMailTask sends one mail; its data is {"messageId": "<hex>"},
	// naming the message content kept under a Redis key of its own (see
	// package mail), never the content itself.
	V1SendMailTask = "V1SendMailTask"
)

// Namespace returns the gocraft/work namespace of queue under prefix:
// prefix + ":" + queue, such as "actionkit:PostQueue". Its Redis keys
// follow, for example "actionkit:PostQueue:jobs:V1PublishTask".
func Namespace(prefix, queue string) string { return prefix + ":" + queue }
