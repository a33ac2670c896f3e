// Package notification delivers in-app notifications: stored in SQL, announced on
// the event bus on channel user.<id>.notifications once the transaction
// that created them commits, and streamed to the SPA by the
// notificationAdded subscription. A subscriber that gives the id of the
// newest notification it knows first receives every newer one from the
// database, so a reconnect loses nothing.
//
// A service whose news supersedes a notification the user has not read yet
// renews that one ([Service.Renew]: new text, dated now, same id) instead
// of adding another, so one busy subject shows once in the unread pile.
package notification
