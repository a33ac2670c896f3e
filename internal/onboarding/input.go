package onboarding

import (
	"fmt"
	"strings"

	"github.com/gpunex/gpunex/internal/auth"
	"github.com/gpunex/gpunex/internal/availability"
	"github.com/gpunex/gpunex/internal/catalog"
	"github.com/gpunex/gpunex/internal/fault"
	"github.com/gpunex/gpunex/internal/validate"
	"github.com/gpunex/gpunex/models"
)

// Limits of the application form.
const (
	MaxNameLength     = 200
	MaxNotesLength    = 2000
	MaxMessageLength  = 2000
	MaxOtherModel     = 100
	MaxLocationLength = 100
	MaxGPUEntries     = 20
	MaxQuantity       = 10_000
	MaxRAMGb          = 65_536
	MaxGbps           = 1_000
	MaxCommitment     = 120
)

// Input is an application as the applicant fills it in.
type Input struct {
	FullName     string
	Email        string
	Company      *string
	Gpus         []GPUInput
	UpsProtected bool
	// UpsUnanswered says the applicant has said neither yes nor no to UPS
	// protection: refused as REQUIRED on input.upsProtected, reported with
	// every other problem of the form.
	UpsUnanswered    bool
	CommitmentMonths int
	MaintenanceNotes *string
}

// GPUInput is one GPU entry of the form.
type GPUInput struct {
	ModelKey     string
	OtherModel   *string
	Quantity     int
	RAMGb        int
	UploadGbps   float64
	DownloadGbps float64
	Availability availability.Input
	Location     models.Location
}

func trimmed(p *string) *string {
	if p == nil {
		return nil
	}
	s := strings.TrimSpace(*p)
	if s == "" {
		return nil
	}
	return &s
}

// The rules of the form's text fields: names and places are one line;
// notes and messages may have several.
var (
	nameRule     = validate.Text{Required: true, MaxRunes: MaxNameLength}
	companyRule  = validate.Text{MaxRunes: MaxNameLength}
	modelRule    = validate.Text{Required: true, MaxRunes: MaxOtherModel}
	locationRule = validate.Text{MaxRunes: MaxLocationLength}
	notesRule    = validate.Text{MaxRunes: MaxNotesLength, Chars: validate.MultiLine}
	gpusRule     = validate.Items{Required: true, Max: MaxGPUEntries}
	quantityRule = validate.Range[int]{Min: 1, Max: MaxQuantity}
	ramRule      = validate.Range[int]{Min: 1, Max: MaxRAMGb}
	speedRule    = validate.Range[float64]{Min: 0, Max: MaxGbps, AboveMin: true}
)

// checkText checks multi-line free text (a message between applicant and
// reviewer) of at most max characters.
func checkText(v *fault.Validation, field, s string, max int, required bool) {
	validate.Text{Required: required, MaxRunes: max, Chars: validate.MultiLine}.Check(v, validate.At(field), s)
}

// normalize trims the input in place and validates it, naming each bad
// field under input.*: every problem of the form at once, so the
// applicant fixes them in one pass.
func (in *Input) normalize() error {
	var v fault.Validation
	in.FullName = strings.TrimSpace(in.FullName)
	in.Email = auth.NormalizeEmail(in.Email)
	in.Company = trimmed(in.Company)
	in.MaintenanceNotes = trimmed(in.MaintenanceNotes)

	input := validate.At("input")
	nameRule.Check(&v, input.Field("fullName"), in.FullName)
	validate.Email(&v, input.Field("email"), in.Email)
	if in.Company != nil {
		companyRule.Check(&v, input.Field("company"), *in.Company)
	}
	if in.MaintenanceNotes != nil {
		notesRule.Check(&v, input.Field("maintenanceNotes"), *in.MaintenanceNotes)
	}
	if in.UpsUnanswered {
		v.Add("input.upsProtected", fault.Required, "say whether the GPUs are protected by a UPS")
	}
	switch c := in.CommitmentMonths; {
	case c == 3 || c == 6 || (c >= 12 && c <= MaxCommitment):
	default:
		v.Add("input.commitmentMonths", fault.InvalidValue, fmt.Sprintf("commitment must be 3, 6, or 12 to %d months", MaxCommitment))
	}
	gpusRule.Check(&v, input.Field("gpus"), len(in.Gpus))
	for i := range in.Gpus {
		in.Gpus[i].normalize(&v, validate.At("input.gpus").Index(i))
	}
	return v.Err()
}

func (g *GPUInput) normalize(v *fault.Validation, field validate.Path) {
	g.ModelKey = strings.TrimSpace(g.ModelKey)
	g.OtherModel = trimmed(g.OtherModel)
	switch {
	case g.ModelKey == catalog.Other:
		if g.OtherModel == nil {
			v.Add(field.Field("otherModel").String(), fault.Required, "name the GPU model")
		} else {
			modelRule.Check(v, field.Field("otherModel"), *g.OtherModel)
		}
	case catalog.ByKey(g.ModelKey) == nil:
		v.Add(field.Field("modelKey").String(), fault.UnknownModel, "choose a supported model, or OTHER and name it")
	default:
		g.OtherModel = nil
	}
	quantityRule.Check(v, field.Field("quantity"), g.Quantity)
	ramRule.Check(v, field.Field("ramGb"), g.RAMGb)
	speedRule.Check(v, field.Field("uploadGbps"), g.UploadGbps)
	speedRule.Check(v, field.Field("downloadGbps"), g.DownloadGbps)
	normalizeAvailability(&g.Availability, v, field.Field("availability"))
	g.Location.City = trimmed(g.Location.City)
	g.Location.Country = trimmed(g.Location.Country)
	g.Location.Region = trimmed(g.Location.Region)
	location := field.Field("location")
	if g.Location.City == nil && g.Location.Country == nil && g.Location.Region == nil {
		v.Add(location.String(), fault.Required, "give a city and country, or a datacenter region")
	}
	for _, l := range []struct {
		name string
		p    *string
	}{{"city", g.Location.City}, {"country", g.Location.Country}, {"region", g.Location.Region}} {
		if l.p != nil {
			locationRule.Check(v, location.Field(l.name), *l.p)
		}
	}
}

// normalizeAvailability checks an entry's availability with the
// schedule's rules (package availability: a window whose end is before its
// start runs into the next day, 20:00–08:00, and no two windows share a
// minute of the week); 24/7 keeps no windows.
func normalizeAvailability(a *availability.Input, v *fault.Validation, field validate.Path) {
	a.TimeZone = availability.Zone(a.TimeZone)
	availability.Check(v, field, a.Kind, a.TimeZone, a.Windows, availability.MaxWindows)
	if a.Kind == models.AvailabilityAlways {
		a.Windows = nil
	}
}

// normalizeWithReply normalizes in and checks reply (the applicant's
// answer to a reviewer, named "reply"), reporting every problem of both at
// once.
func normalizeWithReply(in *Input, reply *string) error {
	var v fault.Validation
	if err := in.normalize(); err != nil {
		problems, ok := fault.AsValidation(err)
		if !ok {
			return err
		}
		v.Problems = append(v.Problems, problems.Problems...)
	}
	if reply != nil {
		checkText(&v, "reply", *reply, MaxMessageLength, false)
	}
	return v.Err()
}
