// Package mail delivers GPUnex's emails through a transactional outbox.
//
// A service that decides something a person must hear about (an application
// approved, rejected, or in need of more information) calls Outbox.Enqueue
// with the transaction that records the decision. The email row commits or
// rolls back with the decision, so no email announces a change that never
// happened and no committed change goes unannounced. A DedupeKey makes a
// decision that is enqueued twice send one email.
//
// A Worker, one per replica, polls the outbox (and wakes at once when
// Kick is called, which Outbox does after each commit), claims due rows
// with a conditional UPDATE that only one replica can win, and hands them to
// a Sender. A failed delivery is retried with exponential backoff and
// jitter; after MaxAttempts the row is marked failed and kept for a person
// to read. A failure no retry can cure is not retried: a message the mail
// server refuses with a 5xx reply to RCPT TO or DATA (550 no such user,
// 553, 554), or one that cannot be built, is marked failed after its first
// attempt. Either way failed_at is set and last_error holds the reason,
// such as the server's reply. Transient failures (4xx replies, refused
// connections, timeouts, TLS or authentication errors) keep the backoff.
//
// Two Senders exist. SMTPSender talks to a real mail server through
// github.com/wneessen/go-mail, configured from --smtp-url
// (smtp://user:pass@host:port?from=…, or smtps:// for implicit TLS).
// FileSender, the embedded default, writes each message as an RFC 5322
// .eml file under <data dir>/mail/outbox, which any mail client opens.
//
// Neither the message body nor the SMTP password is ever logged, and
// recorded errors have the password scrubbed.
package mail
