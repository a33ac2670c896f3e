// Package onboarding runs the provider journey's first steps: the
// application (with every field of the form, validated before anything is
// stored), the admin review (approve with a tier, reject with a reason, or
// ask for more information, after which the applicant edits and
// resubmits), the suggested tier, and the provider account an approval
// creates. Every decision is recorded in the application's history, sends
// an in-app notification (live) and enqueues an email in the same
// transaction.
//
// Every change of an application (a submission, an edit, a resubmission,
// a decision) is announced on the bus once its transaction commits, and only
// then; a decision already made, or one refused, announces nothing.
// [Service.Watch] turns the announcements into the admins' live review
// pages: the application(s) as they are now, then again after each change.
//
// Limits on what one applicant can make others read (issue 9 point 5).
// The platform limits how fast anyone writes; these rules bound what the
// writes add up to, however many get through:
//   - Admins are told when an application enters review: its submission,
//     and its resubmission after a request for more information. An edit
//     of an application already awaiting review tells no admin: the
//     review page, which watches the application, shows the new answers.
//   - An admin's unread notifications show each application once. When
//     an application enters review again while an admin has not read the
//     previous notice about it, that notice is renewed (new text, dated
//     now, same id) rather than joined by another; once read, the next
//     status change adds a new one.
//   - An edit that changes no answer changes nothing: no history step, no
//     announcement, no new updated time.
//   - Edits while an application awaits review are one history step:
//     the first edit after the submission or after a reviewer's step adds
//     a RESUBMITTED step, and each later edit by the same applicant moves
//     that step's time forward. The history grows by at most one step per
//     turn of the applicant, and the review screen still reads who changed
//     the answers last and when.
//   - An application may be resubmitted after requests for more
//     information at most Config.MaxResubmissions times (default
//     DefaultMaxResubmissions, 5); the next resubmission is refused with
//     TOO_MANY on id and changes nothing, and the reviewers decide on the
//     answers they have. Likewise a user whose applications were rejected
//     may apply again at most MaxResubmissions times (TOO_MANY on input).
//     Edits while awaiting review are not resubmissions and are not
//     counted.
//
// The form in one pass (issue 11). Validation reports every problem of the
// form in one answer, an unanswered UPS question (Input.UpsUnanswered)
// included, each at its field. Weekly windows follow package availability,
// as the provider's schedule does: an end before the start runs into the
// next day (20:00–08:00), and no two windows share a minute of the week.
//
// Replies and differences. Asked for more information, the applicant
// resubmits with Update and may reply in words: the reply is the message
// of the RESUBMITTED step. Every submission step keeps the answers it left
// (ApplicationEvent.Answers), so the history tells, per resubmission, what
// changed since the step before, field by field (FieldChanges, filled when
// the history is read); GraphQL shows that difference to admins only.
//
// Tier rules. The system suggests ENTERPRISE when all of these hold, and
// COMMUNITY otherwise, listing what is missing:
//   - UPS protection (mandatory for Enterprise: an admin cannot override it);
//   - every GPU entry available 24/7;
//   - a commitment of 12 months or more;
//   - a company named (enterprise contracts need a counterparty);
//   - at least 1 Gbps upload and download for every entry.
//
// The admin may override the suggestion either way, except that Enterprise
// without UPS is refused.
package onboarding
