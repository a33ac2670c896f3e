package onboarding

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
	_ "time/tzdata" // IANA zones even on hosts without /usr/share/zoneinfo
	"unicode"
	"unicode/utf8"

	"github.com/gpunex/gpunex/internal/auth"
	"github.com/gpunex/gpunex/internal/catalog"
	"github.com/gpunex/gpunex/internal/fault"
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
	MaxWindows        = 50
)

// Input is an application as the applicant fills it in.
type Input struct {
	FullName         string
	Email            string
	Company          *string
	Gpus             []GPUInput
	UpsProtected     bool
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
	Availability AvailabilityInput
	Location     models.Location
}

// AvailabilityInput is an entry's availability as entered.
type AvailabilityInput struct {
	Kind     models.AvailabilityKind
	TimeZone *string
	Windows  []models.AvailabilityWindow
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

func checkText(v *fault.Validation, field, s string, max int, required bool) {
	switch {
	case s == "" && required:
		v.Add(field, "REQUIRED", field[strings.LastIndex(field, ".")+1:]+" is required")
	case utf8.RuneCountInString(s) > max:
		v.Add(field, "TOO_LONG", fmt.Sprintf("at most %d characters", max))
	case strings.IndexFunc(s, func(r rune) bool { return unicode.IsControl(r) && r != '\n' && r != '\r' && r != '\t' }) >= 0:
		v.Add(field, "INVALID", "control characters are not allowed")
	}
}

// parseClock reads "HH:MM" into minutes since midnight; "24:00" is allowed
// only as an end.
func parseClock(s string, isEnd bool) (int, bool) {
	h, m, ok := strings.Cut(s, ":")
	if !ok || len(h) != 2 || len(m) != 2 {
		return 0, false
	}
	hh, err1 := strconv.Atoi(h)
	mm, err2 := strconv.Atoi(m)
	if err1 != nil || err2 != nil || mm < 0 || mm > 59 || hh < 0 {
		return 0, false
	}
	if hh == 24 && mm == 0 && isEnd {
		return 24 * 60, true
	}
	if hh > 23 {
		return 0, false
	}
	return hh*60 + mm, true
}

// normalize trims the input in place and validates it, naming each bad
// field under input.*.
func (in *Input) normalize() error {
	var v fault.Validation
	in.FullName = strings.TrimSpace(in.FullName)
	in.Email = auth.NormalizeEmail(in.Email)
	in.Company = trimmed(in.Company)
	in.MaintenanceNotes = trimmed(in.MaintenanceNotes)

	checkText(&v, "input.fullName", in.FullName, MaxNameLength, true)
	auth.ValidateEmail(&v, "input.email", in.Email)
	if in.Company != nil {
		checkText(&v, "input.company", *in.Company, MaxNameLength, false)
	}
	if in.MaintenanceNotes != nil {
		checkText(&v, "input.maintenanceNotes", *in.MaintenanceNotes, MaxNotesLength, false)
	}
	switch c := in.CommitmentMonths; {
	case c == 3 || c == 6 || (c >= 12 && c <= MaxCommitment):
	default:
		v.Add("input.commitmentMonths", "INVALID", fmt.Sprintf("commitment must be 3, 6, or 12 to %d months", MaxCommitment))
	}
	switch n := len(in.Gpus); {
	case n == 0:
		v.Add("input.gpus", "REQUIRED", "add at least one GPU entry")
	case n > MaxGPUEntries:
		v.Add("input.gpus", "TOO_MANY", fmt.Sprintf("at most %d GPU entries", MaxGPUEntries))
	}
	for i := range in.Gpus {
		in.Gpus[i].normalize(&v, fmt.Sprintf("input.gpus.%d", i))
	}
	return v.Err()
}

func (g *GPUInput) normalize(v *fault.Validation, field string) {
	g.ModelKey = strings.TrimSpace(g.ModelKey)
	g.OtherModel = trimmed(g.OtherModel)
	switch {
	case g.ModelKey == catalog.Other:
		if g.OtherModel == nil {
			v.Add(field+".otherModel", "REQUIRED", "name the GPU model")
		} else {
			checkText(v, field+".otherModel", *g.OtherModel, MaxOtherModel, true)
		}
	case catalog.ByKey(g.ModelKey) == nil:
		v.Add(field+".modelKey", "UNKNOWN_MODEL", "choose a supported model, or OTHER and name it")
	default:
		g.OtherModel = nil
	}
	if g.Quantity < 1 || g.Quantity > MaxQuantity {
		v.Add(field+".quantity", "OUT_OF_RANGE", fmt.Sprintf("quantity must be between 1 and %d", MaxQuantity))
	}
	if g.RAMGb <= 0 || g.RAMGb > MaxRAMGb {
		v.Add(field+".ramGb", "OUT_OF_RANGE", fmt.Sprintf("system RAM must be between 1 and %d GB", MaxRAMGb))
	}
	for _, sp := range []struct {
		name string
		val  float64
	}{{"uploadGbps", g.UploadGbps}, {"downloadGbps", g.DownloadGbps}} {
		if math.IsNaN(sp.val) || sp.val <= 0 || sp.val > MaxGbps {
			v.Add(field+"."+sp.name, "OUT_OF_RANGE", fmt.Sprintf("speed must be above 0 and at most %d Gbps", MaxGbps))
		}
	}
	g.Availability.normalize(v, field+".availability")
	g.Location.City = trimmed(g.Location.City)
	g.Location.Country = trimmed(g.Location.Country)
	g.Location.Region = trimmed(g.Location.Region)
	if g.Location.City == nil && g.Location.Country == nil && g.Location.Region == nil {
		v.Add(field+".location", "REQUIRED", "give a city and country, or a datacenter region")
	}
	for _, l := range []struct {
		name string
		p    *string
	}{{"city", g.Location.City}, {"country", g.Location.Country}, {"region", g.Location.Region}} {
		if l.p != nil {
			checkText(v, field+".location."+l.name, *l.p, MaxLocationLength, false)
		}
	}
}

func (a *AvailabilityInput) normalize(v *fault.Validation, field string) {
	a.TimeZone = trimmed(a.TimeZone)
	if a.TimeZone != nil {
		if *a.TimeZone == "Local" || len(*a.TimeZone) > 64 {
			v.Add(field+".timeZone", "UNKNOWN_TIME_ZONE", "use an IANA time zone such as Europe/Lisbon")
		} else if _, err := time.LoadLocation(*a.TimeZone); err != nil {
			v.Add(field+".timeZone", "UNKNOWN_TIME_ZONE", "use an IANA time zone such as Europe/Lisbon")
		}
	}
	switch a.Kind {
	case models.AvailabilityAlways:
		if len(a.Windows) > 0 {
			v.Add(field+".windows", "INVALID", "24/7 availability takes no windows")
		}
		a.Windows = nil
	case models.AvailabilityWeekly:
		if a.TimeZone == nil {
			v.Add(field+".timeZone", "REQUIRED", "weekly windows need a time zone")
		}
		if len(a.Windows) == 0 {
			v.Add(field+".windows", "REQUIRED", "add at least one weekly window")
		}
		if len(a.Windows) > MaxWindows {
			v.Add(field+".windows", "TOO_MANY", fmt.Sprintf("at most %d windows", MaxWindows))
			return
		}
		type span struct{ start, end, idx int }
		byDay := map[models.Weekday][]span{}
		for i, w := range a.Windows {
			wf := fmt.Sprintf("%s.windows.%d", field, i)
			s, ok1 := parseClock(w.Start, false)
			e, ok2 := parseClock(w.End, true)
			if !ok1 {
				v.Add(wf+".start", "INVALID", "use HH:MM between 00:00 and 23:59")
			}
			if !ok2 {
				v.Add(wf+".end", "INVALID", "use HH:MM between 00:01 and 24:00")
			}
			if !ok1 || !ok2 {
				continue
			}
			if e <= s {
				v.Add(wf+".end", "EMPTY_WINDOW", "the window must end after it starts")
				continue
			}
			for _, o := range byDay[w.Day] {
				if s < o.end && o.start < e {
					v.Add(wf, "OVERLAP", fmt.Sprintf("overlaps window %d on the same day", o.idx))
					break
				}
			}
			byDay[w.Day] = append(byDay[w.Day], span{s, e, i})
		}
	default:
		v.Add(field+".kind", "INVALID", "availability must be ALWAYS or WEEKLY")
	}
}
