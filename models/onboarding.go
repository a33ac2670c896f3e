package models

import (
	"io"
	"time"

	"github.com/uptrace/bun"
)

// ApplicationStatus is where a provider application stands.
type ApplicationStatus string

// The application states. SUBMITTED and INFO_REQUESTED are open; APPROVED
// and REJECTED are decided.
const (
	ApplicationSubmitted     ApplicationStatus = "SUBMITTED"
	ApplicationInfoRequested ApplicationStatus = "INFO_REQUESTED"
	ApplicationApproved      ApplicationStatus = "APPROVED"
	ApplicationRejected      ApplicationStatus = "REJECTED"
)

var applicationStatuses = []ApplicationStatus{ApplicationSubmitted, ApplicationInfoRequested, ApplicationApproved, ApplicationRejected}

// IsOpen reports whether the application awaits a decision.
func (s ApplicationStatus) IsOpen() bool {
	return s == ApplicationSubmitted || s == ApplicationInfoRequested
}

// UnmarshalGQL reads the enum.
func (s *ApplicationStatus) UnmarshalGQL(v any) (err error) {
	*s, err = unmarshalEnum(v, applicationStatuses, "ApplicationStatus")
	return err
}

// MarshalGQL writes the enum.
func (s ApplicationStatus) MarshalGQL(w io.Writer) { marshalEnum(w, s) }

// ProviderTier is a provider's class of service.
type ProviderTier string

// The tiers.
const (
	TierEnterprise ProviderTier = "ENTERPRISE"
	TierCommunity  ProviderTier = "COMMUNITY"
)

var providerTiers = []ProviderTier{TierEnterprise, TierCommunity}

// UnmarshalGQL reads the enum.
func (t *ProviderTier) UnmarshalGQL(v any) (err error) {
	*t, err = unmarshalEnum(v, providerTiers, "ProviderTier")
	return err
}

// MarshalGQL writes the enum.
func (t ProviderTier) MarshalGQL(w io.Writer) { marshalEnum(w, t) }

// AvailabilityKind says whether GPUs are offered around the clock or in
// weekly windows.
type AvailabilityKind string

// The availability kinds.
const (
	AvailabilityAlways AvailabilityKind = "ALWAYS"
	AvailabilityWeekly AvailabilityKind = "WEEKLY"
)

var availabilityKinds = []AvailabilityKind{AvailabilityAlways, AvailabilityWeekly}

// UnmarshalGQL reads the enum.
func (k *AvailabilityKind) UnmarshalGQL(v any) (err error) {
	*k, err = unmarshalEnum(v, availabilityKinds, "AvailabilityKind")
	return err
}

// MarshalGQL writes the enum.
func (k AvailabilityKind) MarshalGQL(w io.Writer) { marshalEnum(w, k) }

// Weekday is a day of the week, Monday first.
type Weekday string

// The weekdays.
const (
	Monday    Weekday = "MONDAY"
	Tuesday   Weekday = "TUESDAY"
	Wednesday Weekday = "WEDNESDAY"
	Thursday  Weekday = "THURSDAY"
	Friday    Weekday = "FRIDAY"
	Saturday  Weekday = "SATURDAY"
	Sunday    Weekday = "SUNDAY"
)

// Weekdays lists the days Monday first.
var Weekdays = []Weekday{Monday, Tuesday, Wednesday, Thursday, Friday, Saturday, Sunday}

// UnmarshalGQL reads the enum.
func (d *Weekday) UnmarshalGQL(v any) (err error) {
	*d, err = unmarshalEnum(v, Weekdays, "Weekday")
	return err
}

// MarshalGQL writes the enum.
func (d Weekday) MarshalGQL(w io.Writer) { marshalEnum(w, d) }

// ApplicationAction is a step in an application's history.
type ApplicationAction string

// The actions.
const (
	ActionSubmitted     ApplicationAction = "SUBMITTED"
	ActionResubmitted   ApplicationAction = "RESUBMITTED"
	ActionInfoRequested ApplicationAction = "INFO_REQUESTED"
	ActionApproved      ApplicationAction = "APPROVED"
	ActionRejected      ApplicationAction = "REJECTED"
)

var applicationActions = []ApplicationAction{ActionSubmitted, ActionResubmitted, ActionInfoRequested, ActionApproved, ActionRejected}

// UnmarshalGQL reads the enum.
func (a *ApplicationAction) UnmarshalGQL(v any) (err error) {
	*a, err = unmarshalEnum(v, applicationActions, "ApplicationAction")
	return err
}

// MarshalGQL writes the enum.
func (a ApplicationAction) MarshalGQL(w io.Writer) { marshalEnum(w, a) }

// AvailabilityWindow is a weekly window, "HH:MM" to "HH:MM" (end may be
// "24:00"), in the entry's time zone.
type AvailabilityWindow struct {
	Day   Weekday `json:"day"`
	Start string  `json:"start"`
	End   string  `json:"end"`
}

// Availability says when GPUs are offered.
type Availability struct {
	Kind     AvailabilityKind      `bun:"kind,notnull"`
	TimeZone *string               `bun:"time_zone"`
	Windows  []*AvailabilityWindow `bun:"windows,type:text,notnull"`
}

// Location is where GPUs are.
type Location struct {
	City    *string `bun:"city"`
	Country *string `bun:"country"`
	Region  *string `bun:"region"`
}

// ProviderApplication is a request to provide GPUs.
type ProviderApplication struct {
	bun.BaseModel `bun:"table:provider_applications,alias:pa"`

	ID                int64             `bun:"id,pk,autoincrement"`
	UserID            int64             `bun:"user_id,notnull"`
	Status            ApplicationStatus `bun:"status,notnull"`
	FullName          string            `bun:"full_name,notnull"`
	Email             string            `bun:"email,notnull"`
	Company           *string           `bun:"company"`
	UpsProtected      bool              `bun:"ups_protected,notnull"`
	CommitmentMonths  int               `bun:"commitment_months,notnull"`
	MaintenanceNotes  *string           `bun:"maintenance_notes"`
	SuggestionTier    ProviderTier      `bun:"suggested_tier,notnull"`
	SuggestionReasons []string          `bun:"suggested_reasons,type:text,notnull"`
	Tier              *ProviderTier     `bun:"tier"`
	SubmittedAt       time.Time         `bun:"submitted_at,notnull"`
	UpdatedAt         time.Time         `bun:"updated_at,notnull"`
	// Resubmissions counts the times the applicant answered a request for
	// more information by resubmitting (capped: see package onboarding).
	Resubmissions int `bun:"resubmissions,notnull"`

	Gpus   []*ApplicationGpu   `bun:"rel:has-many,join:id=application_id"`
	Events []*ApplicationEvent `bun:"rel:has-many,join:id=application_id"`
}

// ApplicationGpu is one kind of GPU an application offers.
type ApplicationGpu struct {
	bun.BaseModel `bun:"table:application_gpus,alias:ag"`

	ID            int64        `bun:"id,pk,autoincrement"`
	ApplicationID int64        `bun:"application_id,notnull"`
	Position      int          `bun:"position,notnull"`
	ModelKey      *string      `bun:"model_key"`
	OtherModel    *string      `bun:"other_model"`
	Quantity      int          `bun:"quantity,notnull"`
	RAMGb         int          `bun:"ram_gb,notnull"`
	UploadGbps    float64      `bun:"upload_gbps,notnull"`
	DownloadGbps  float64      `bun:"download_gbps,notnull"`
	Availability  Availability `bun:"embed:availability_"`
	Location      Location     `bun:"embed:location_"`
}

// ApplicationEvent is one step in an application's history.
type ApplicationEvent struct {
	bun.BaseModel `bun:"table:application_events,alias:ae"`

	ID            int64             `bun:"id,pk,autoincrement"`
	ApplicationID int64             `bun:"application_id,notnull"`
	ActorUserID   int64             `bun:"actor_user_id,notnull"`
	ActorName     string            `bun:"actor_name,notnull"`
	ActorIsAdmin  bool              `bun:"actor_is_admin,notnull"`
	Action        ApplicationAction `bun:"action,notnull"`
	Message       *string           `bun:"message"`
	Tier          *ProviderTier     `bun:"tier"`
	At            time.Time         `bun:"at,notnull"`
	// Answers are the application's answers as this step left them, for
	// a submission or resubmission (nil for a reviewer's step, and for
	// steps recorded before answers were kept).
	Answers []ApplicationAnswer `bun:"answers,type:text"`
	// FieldChanges are, for a resubmission, the answers it changed since
	// the step before with answers; filled when the history is read, never
	// stored (GraphQL's changes, which only admins read).
	FieldChanges []ApplicationFieldChange `bun:"-"`
}

// ApplicationAnswer is one answer of an application as text, named by
// its path in the form (fullName, gpus.1.ramGb).
type ApplicationAnswer struct {
	Field string `json:"field"`
	Value string `json:"value"`
}

// ApplicationFieldChange is one answer a resubmission changed: its path,
// and its text before and after (nil where it was not given).
type ApplicationFieldChange struct {
	Field  string
	Before *string
	After  *string
}

// ApplicationNotice remembers which notification told an admin that an
// application awaits review, so that while it is unread the next one about
// the same application renews it instead of piling up (see package
// onboarding).
type ApplicationNotice struct {
	bun.BaseModel `bun:"table:application_notices,alias:an"`

	ApplicationID  int64 `bun:"application_id,pk"`
	UserID         int64 `bun:"user_id,pk"`
	NotificationID int64 `bun:"notification_id,notnull"`
}

// Provider is an approved applicant.
type Provider struct {
	bun.BaseModel `bun:"table:providers,alias:p"`

	ID            int64        `bun:"id,pk,autoincrement"`
	UserID        int64        `bun:"user_id,notnull"`
	ApplicationID int64        `bun:"application_id,notnull"`
	Tier          ProviderTier `bun:"tier,notnull"`
	Name          string       `bun:"name,notnull"`
	CreatedAt     time.Time    `bun:"created_at,notnull"`
}

// AgentToken lets an agent act for one provider. Only the SHA-256 of the
// secret is stored; Prefix is its first characters, for recognition.
type AgentToken struct {
	bun.BaseModel `bun:"table:agent_tokens,alias:at"`

	ID         int64      `bun:"id,pk,autoincrement"`
	ProviderID int64      `bun:"provider_id,notnull"`
	Name       string     `bun:"name,notnull"`
	Prefix     string     `bun:"prefix,notnull"`
	TokenHash  string     `bun:"token_hash,notnull" json:"-"`
	CreatedAt  time.Time  `bun:"created_at,notnull"`
	LastUsedAt *time.Time `bun:"last_used_at"`
	RevokedAt  *time.Time `bun:"revoked_at"`
	// MachineCount is how many machines last registered with the token;
	// filled by the provider service's listing, never stored.
	MachineCount int `bun:"machine_count,scanonly"`
}

// ProgressStep is a step on a provider's way from application to first
// rental, in the order of ProgressSteps.
type ProgressStep string

// The steps.
const (
	// ProgressApplied: the application was submitted.
	ProgressApplied ProgressStep = "APPLIED"
	// ProgressApproved: an admin approved it; the applicant is a provider.
	ProgressApproved ProgressStep = "APPROVED"
	// ProgressAgentToken: the provider made an agent token (the installer asks for it).
	ProgressAgentToken ProgressStep = "AGENT_TOKEN"
	// ProgressMachineOnline: an agent installed with it registered a machine.
	ProgressMachineOnline ProgressStep = "MACHINE_ONLINE"
	// ProgressFirstBenchmark: the platform benchmarked a GPU of it.
	ProgressFirstBenchmark ProgressStep = "FIRST_BENCHMARK"
	// ProgressListed: a GPU passed a benchmark: customers can rent it.
	ProgressListed ProgressStep = "LISTED"
	// ProgressFirstRental: a customer rented one.
	ProgressFirstRental ProgressStep = "FIRST_RENTAL"
)

// ProgressSteps is every step, in order.
var ProgressSteps = []ProgressStep{ProgressApplied, ProgressApproved, ProgressAgentToken, ProgressMachineOnline,
	ProgressFirstBenchmark, ProgressListed, ProgressFirstRental}

// UnmarshalGQL reads the enum.
func (p *ProgressStep) UnmarshalGQL(v any) (err error) {
	*p, err = unmarshalEnum(v, ProgressSteps, "ProgressStep")
	return err
}

// MarshalGQL writes the enum.
func (p ProgressStep) MarshalGQL(w io.Writer) { marshalEnum(w, p) }

// ProgressMark is a step and when it was first reached (nil while ahead).
type ProgressMark struct {
	Step      ProgressStep
	ReachedAt *time.Time
}
