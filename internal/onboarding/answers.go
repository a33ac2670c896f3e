package onboarding

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/gpunex/gpunex/internal/catalog"
	"github.com/gpunex/gpunex/models"
)

// answersOf is app's answers with its GPU entries gpus (in form order), as
// text by form path: what a submission step keeps, so that a reviewer sees
// field by field what a resubmission changed. A field not given (no
// company) is left out.
func answersOf(app *models.ProviderApplication, gpus []*models.ApplicationGpu) []models.ApplicationAnswer {
	var out []models.ApplicationAnswer
	add := func(field, value string) { out = append(out, models.ApplicationAnswer{Field: field, Value: value}) }
	opt := func(field string, p *string) {
		if p != nil {
			add(field, *p)
		}
	}
	add("fullName", app.FullName)
	add("email", app.Email)
	opt("company", app.Company)
	for i, g := range gpus {
		p := fmt.Sprintf("gpus.%d.", i)
		switch {
		case g.ModelKey != nil && catalog.ByKey(*g.ModelKey) != nil:
			add(p+"model", catalog.ByKey(*g.ModelKey).Name)
		case g.ModelKey != nil:
			add(p+"model", *g.ModelKey)
		default:
			opt(p+"model", g.OtherModel)
		}
		add(p+"quantity", strconv.Itoa(g.Quantity))
		add(p+"ramGb", strconv.Itoa(g.RAMGb))
		add(p+"uploadGbps", strconv.FormatFloat(g.UploadGbps, 'f', -1, 64))
		add(p+"downloadGbps", strconv.FormatFloat(g.DownloadGbps, 'f', -1, 64))
		add(p+"availability.kind", string(g.Availability.Kind))
		if g.Availability.Kind == models.AvailabilityWeekly {
			opt(p+"availability.timeZone", g.Availability.TimeZone)
			windows := make([]string, 0, len(g.Availability.Windows))
			for _, w := range g.Availability.Windows {
				windows = append(windows, fmt.Sprintf("%s %s-%s", w.Day, w.Start, w.End))
			}
			add(p+"availability.windows", strings.Join(windows, ", "))
		}
		opt(p+"location.city", g.Location.City)
		opt(p+"location.country", g.Location.Country)
		opt(p+"location.region", g.Location.Region)
	}
	add("upsProtected", strconv.FormatBool(app.UpsProtected))
	add("commitmentMonths", strconv.Itoa(app.CommitmentMonths))
	opt("maintenanceNotes", app.MaintenanceNotes)
	return out
}

// diffAnswers lists the fields whose text differs between before and
// after: in after's order, then the fields after no longer has (a GPU
// entry removed) in before's order.
func diffAnswers(before, after []models.ApplicationAnswer) []models.ApplicationFieldChange {
	old := make(map[string]string, len(before))
	for _, a := range before {
		old[a.Field] = a.Value
	}
	seen := make(map[string]bool, len(after))
	out := []models.ApplicationFieldChange{}
	for _, a := range after {
		seen[a.Field] = true
		was, ok := old[a.Field]
		switch {
		case !ok:
			out = append(out, models.ApplicationFieldChange{Field: a.Field, After: &a.Value})
		case was != a.Value:
			out = append(out, models.ApplicationFieldChange{Field: a.Field, Before: &was, After: &a.Value})
		}
	}
	for _, a := range before {
		if !seen[a.Field] {
			out = append(out, models.ApplicationFieldChange{Field: a.Field, Before: &a.Value})
		}
	}
	return out
}

// fillChanges sets, on each resubmission step of apps' histories (read
// oldest first), the answers it changed since the step before it that
// kept answers. Steps recorded before answers were kept have none.
func fillChanges(apps ...*models.ProviderApplication) {
	for _, app := range apps {
		if app == nil {
			continue
		}
		var last []models.ApplicationAnswer
		for _, ev := range app.Events {
			if ev.Answers == nil {
				continue
			}
			if ev.Action == models.ActionResubmitted && last != nil {
				ev.FieldChanges = diffAnswers(last, ev.Answers)
			}
			last = ev.Answers
		}
	}
}
