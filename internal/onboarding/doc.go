// Package onboarding runs the provider journey's first steps: the
// application (with every field of the form, validated before anything is
// stored), the admin review (approve with a tier, reject with a reason, or
// ask for more information, after which the applicant edits and
// resubmits), the suggested tier, and the provider account an approval
// creates. Every decision is recorded in the application's history, sends
// an in-app notification (live) and enqueues an email in the same
// transaction.
//
// Every change of an application (a submission, a resubmission, a
// decision) is announced on the bus once its transaction commits, and only
// then; a decision already made, or one refused, announces nothing.
// [Service.Watch] turns the announcements into the admins' live review
// pages: the application(s) as they are now, then again after each change.
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
