package onboarding

import (
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/internal/availability"
	"github.com/gpunex/gpunex/internal/fault"
	"github.com/gpunex/gpunex/internal/fault/faulttest"
	"github.com/gpunex/gpunex/models"
)

func ptr[T any](v T) *T { return &v }

// validInput is an application that passes: one catalogue GPU available
// always, one named GPU available on weekly windows.
func validInput() Input {
	return Input{
		FullName: "Grace Hopper", Email: "grace@example.com", Company: ptr("Navy"),
		CommitmentMonths: 12, MaintenanceNotes: ptr("Patch window:\n\tSundays 02:00"),
		Gpus: []GPUInput{
			{
				ModelKey: "H100_SXM_80GB", Quantity: 8, RAMGb: 1024, UploadGbps: 10, DownloadGbps: 10,
				Availability: availability.Input{Kind: models.AvailabilityAlways},
				Location:     models.Location{City: ptr("Lisbon"), Country: ptr("Portugal")},
			},
			{
				ModelKey: "OTHER", OtherModel: ptr("RTX 6000 Ada"), Quantity: 2, RAMGb: 128, UploadGbps: 1, DownloadGbps: 1,
				Availability: availability.Input{Kind: models.AvailabilityWeekly, TimeZone: ptr("Europe/Lisbon"), Windows: []models.AvailabilityWindow{
					{Day: models.Monday, Start: "09:00", End: "17:00"},
					{Day: models.Tuesday, Start: "09:00", End: "24:00"},
				}},
				Location: models.Location{Region: ptr("eu-west")},
			},
		},
	}
}

// Each field's rule, the shared ones of internal/validate included. The
// cases marked "since the shared rules" are behaviour changes: single-line
// fields used to take line breaks, tabs and carriage returns, and notes
// carriage returns.
func TestInputRules(t *testing.T) {
	t.Parallel()
	cases := []struct {
		desc   string
		change func(in *Input)
		field  string
		code   fault.ProblemCode
	}{
		{desc: "a valid application", change: func(*Input) {}},
		{desc: "a full name of 200 characters in 400 bytes", change: func(in *Input) { in.FullName = strings.Repeat("é", MaxNameLength) }},
		{desc: "a full name of 201 characters", change: func(in *Input) { in.FullName = strings.Repeat("é", MaxNameLength+1) },
			field: "input.fullName", code: fault.TooLong},
		{desc: "a full name of spaces", change: func(in *Input) { in.FullName = "  " }, field: "input.fullName", code: fault.Required},
		{desc: "a full name with a line break (refused since the shared rules)", change: func(in *Input) { in.FullName = "Grace\nHopper" },
			field: "input.fullName", code: fault.InvalidValue},
		{desc: "a full name with a tab (refused since the shared rules)", change: func(in *Input) { in.FullName = "Grace\tHopper" },
			field: "input.fullName", code: fault.InvalidValue},
		{desc: "a company with a carriage return (refused since the shared rules)", change: func(in *Input) { in.Company = ptr("Navy\rInc") },
			field: "input.company", code: fault.InvalidValue},
		{desc: "a city with a line break (refused since the shared rules)", change: func(in *Input) { in.Gpus[0].Location.City = ptr("Lis\nbon") },
			field: "input.gpus.0.location.city", code: fault.InvalidValue},
		{desc: "another model with a line break (refused since the shared rules)", change: func(in *Input) { in.Gpus[1].OtherModel = ptr("RTX\n6000") },
			field: "input.gpus.1.otherModel", code: fault.InvalidValue},
		{desc: "notes with CRLF line breaks (refused since the shared rules)", change: func(in *Input) { in.MaintenanceNotes = ptr("a\r\nb") },
			field: "input.maintenanceNotes", code: fault.InvalidValue},
		{desc: "notes with an escape sequence", change: func(in *Input) { in.MaintenanceNotes = ptr("a\x1b[31m") },
			field: "input.maintenanceNotes", code: fault.InvalidValue},
		{desc: "notes of 2000 characters", change: func(in *Input) { in.MaintenanceNotes = ptr(strings.Repeat("é", MaxNotesLength)) }},
		{desc: "notes of 2001 characters", change: func(in *Input) { in.MaintenanceNotes = ptr(strings.Repeat("n", MaxNotesLength+1)) },
			field: "input.maintenanceNotes", code: fault.TooLong},
		{desc: "a malformed email", change: func(in *Input) { in.Email = "grace@" }, field: "input.email", code: fault.InvalidValue},
		{desc: "no GPU entries", change: func(in *Input) { in.Gpus = nil }, field: "input.gpus", code: fault.Required},
		{desc: "too many GPU entries", change: func(in *Input) {
			for len(in.Gpus) <= MaxGPUEntries {
				in.Gpus = append(in.Gpus, in.Gpus[0])
			}
		}, field: "input.gpus", code: fault.TooMany},
		{desc: "a quantity of 0", change: func(in *Input) { in.Gpus[1].Quantity = 0 }, field: "input.gpus.1.quantity", code: fault.OutOfRange},
		{desc: "an upload speed of 0", change: func(in *Input) { in.Gpus[0].UploadGbps = 0 }, field: "input.gpus.0.uploadGbps", code: fault.OutOfRange},
		{desc: "a download speed of NaN", change: func(in *Input) { in.Gpus[0].DownloadGbps = math.NaN() }, field: "input.gpus.0.downloadGbps", code: fault.OutOfRange},
		{desc: "a download speed of +Inf", change: func(in *Input) { in.Gpus[0].DownloadGbps = math.Inf(1) }, field: "input.gpus.0.downloadGbps", code: fault.OutOfRange},
		{desc: "an unknown model", change: func(in *Input) { in.Gpus[0].ModelKey = "TPU" }, field: "input.gpus.0.modelKey", code: fault.UnknownModel},
		{desc: "an unknown time zone", change: func(in *Input) { in.Gpus[1].Availability.TimeZone = ptr("Mars/Olympus") },
			field: "input.gpus.1.availability.timeZone", code: fault.UnknownTimeZone},
		{desc: "issue 11 point 4: an overnight window 20:00–08:00 is accepted", change: func(in *Input) {
			in.Gpus[1].Availability.Windows[1] = models.AvailabilityWindow{Day: models.Tuesday, Start: "20:00", End: "08:00"}
		}},
		{desc: "a window ending when it starts", change: func(in *Input) { in.Gpus[1].Availability.Windows[1].End = "09:00" },
			field: "input.gpus.1.availability.windows.1.end", code: fault.EmptyWindow},
		{desc: "issue 11 point 4: Monday 20:00–08:00 overlaps Tuesday 07:00–09:00", change: func(in *Input) {
			in.Gpus[1].Availability.Windows = []models.AvailabilityWindow{
				{Day: models.Monday, Start: "20:00", End: "08:00"}, {Day: models.Tuesday, Start: "07:00", End: "09:00"},
			}
		}, field: "input.gpus.1.availability.windows.1", code: fault.Overlap},
		{desc: "issue 11 point 4: Sunday 22:00–02:00 overlaps Monday 01:00–03:00", change: func(in *Input) {
			in.Gpus[1].Availability.Windows = []models.AvailabilityWindow{
				{Day: models.Monday, Start: "01:00", End: "03:00"}, {Day: models.Sunday, Start: "22:00", End: "02:00"},
			}
		}, field: "input.gpus.1.availability.windows.1", code: fault.Overlap},
		{desc: "overlapping windows", change: func(in *Input) { in.Gpus[1].Availability.Windows[1].Day = models.Monday },
			field: "input.gpus.1.availability.windows.1", code: fault.Overlap},
	}
	for _, tc := range cases {
		t.Run(tc.desc, func(t *testing.T) {
			t.Parallel()
			in := validInput()
			tc.change(&in)
			err := in.normalize()
			if tc.code == "" {
				require.NoError(t, err)
				return
			}
			faulttest.RequireProblem(t, err, tc.field, tc.code)
		})
	}
}

// Messages between applicant and reviewer are multi-line text.
func TestMessageRule(t *testing.T) {
	t.Parallel()
	cases := []struct {
		desc     string
		msg      string
		required bool
		want     fault.ProblemCode
	}{
		{desc: "several lines", msg: "Which UPS?\n\tModel and runtime, please.", required: true},
		{desc: "empty and required", msg: "", required: true, want: fault.Required},
		{desc: "empty and optional", msg: ""},
		{desc: "a carriage return (refused since the shared rules)", msg: "a\r\nb", want: fault.InvalidValue},
		{desc: "2001 characters", msg: strings.Repeat("é", MaxMessageLength+1), want: fault.TooLong},
	}
	for _, tc := range cases {
		t.Run(tc.desc, func(t *testing.T) {
			t.Parallel()
			var v fault.Validation
			checkText(&v, "message", tc.msg, MaxMessageLength, tc.required)
			if tc.want == "" {
				require.Empty(t, v.Problems)
				return
			}
			require.Len(t, v.Problems, 1)
			require.Equal(t, "message", v.Problems[0].Field)
			require.Equal(t, tc.want, v.Problems[0].Code)
		})
	}
}
