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
//
// # Emails in the reader's language
//
// Every email is written in the language its reader chose (users.language:
// en, es, pt, hi or ar, set at sign-up from the SPA's language and changed
// with setLanguage), from templates/<language>.json: one JSON file per
// language, with nested keys per kind of email ("application.approved":
// subject, paragraphs) and {{placeholders}} as i18next writes them. JSON
// rather than Go templates per language because the texts are then data a
// translator edits like the SPA's locales, and the SPA's check:i18n and
// TestTemplatesAgreeInEveryLanguage hold them to the same rules: the same
// keys and placeholders in all five languages, no empty text, and no text
// left in English unless the language's "_sameAsEnglish" says it means it
// (a borrowed technical word such as "Upload" in Portuguese).
//
// The layout of an email (which paragraphs, in which order, a reviewer's
// note only when there is one, a list per GPU) is code: Compose(lang, kind)
// returns an Email, and its writer adds blocks from the kind's keys (P,
// List), a person's own words (Quote, never translated), a command (Code)
// or a link (URL). Render makes both parts from the same blocks, so they
// never disagree: the text part as written, nothing escaped; the HTML part
// through html/template, which escapes every value and checks every link,
// with lang and dir on the root and on the wrapper (dir="rtl" for Arabic),
// inline styles only, and commands and links kept left to right. A missing
// key or value is an error of Render, never an email with a hole.
//
// Dates and numbers are written for the language (Email.DateTime,
// Email.Number): month names and word order from format.* in the
// templates, the language's decimal and group separators, and Arabic-Indic
// digits in Arabic, as the SPA's Intl formatting shows them. Times are in
// UTC, said so, since an email cannot know the reader's time zone.
//
// Which language? ForUser(userID, write) defers the writing to Enqueue,
// which reads the user's language in the enqueuing transaction: the
// decision's writer needs neither a query nor the transaction, and the
// email is in the language the user had when the decision committed.
// InLanguage(lang, write) is for an address without an account (the
// sign-up confirmation, in the language of the request) or a language the
// caller has read already. The language is not stored on the outbox row:
// the row holds the finished email.
package mail
