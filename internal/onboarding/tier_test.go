package onboarding

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/internal/availability"
	"github.com/gpunex/gpunex/models"
)

func datacenter() *Input {
	company := "Lisbon GPU Works"
	return &Input{
		FullName: "Ada", Email: "ada@example.com", Company: &company, UpsProtected: true, CommitmentMonths: 12,
		Gpus: []GPUInput{{ModelKey: "H100_SXM_80GB", Quantity: 8, RAMGb: 1024, UploadGbps: 10, DownloadGbps: 10,
			Availability: availability.Input{Kind: models.AvailabilityAlways}}},
	}
}

func TestSuggestTierFollowsTheDocumentedRules(t *testing.T) {
	t.Parallel()
	cases := []struct {
		desc   string
		change func(in *Input)
		want   models.ProviderTier
		reason string
	}{
		{desc: "a professional datacenter is Enterprise", change: func(*Input) {}, want: models.TierEnterprise},
		{desc: "no UPS is Community", change: func(in *Input) { in.UpsProtected = false }, want: models.TierCommunity, reason: ReasonNoUPS},
		{desc: "weekly windows are Community", change: func(in *Input) { in.Gpus[0].Availability.Kind = models.AvailabilityWeekly }, want: models.TierCommunity, reason: ReasonNotAlways},
		{desc: "six months is Community", change: func(in *Input) { in.CommitmentMonths = 6 }, want: models.TierCommunity, reason: ReasonShortCommitment},
		{desc: "no company is Community", change: func(in *Input) { in.Company = nil }, want: models.TierCommunity, reason: ReasonNoCompany},
		{desc: "a slow uplink is Community", change: func(in *Input) { in.Gpus[0].UploadGbps = 0.5 }, want: models.TierCommunity, reason: ReasonSlowNetwork},
		{desc: "exactly 1 Gbps and 12 months are enough", change: func(in *Input) { in.Gpus[0].UploadGbps, in.Gpus[0].DownloadGbps = 1, 1 }, want: models.TierEnterprise},
	}
	for _, tc := range cases {
		t.Run(tc.desc, func(t *testing.T) {
			t.Parallel()
			in := datacenter()
			tc.change(in)
			tier, reasons := SuggestTier(in)
			require.Equal(t, tc.want, tier)
			require.NotEmpty(t, reasons, "every suggestion is explained")
			if tc.reason != "" {
				require.Contains(t, reasons, tc.reason)
			}
			for _, r := range reasons {
				require.NotEqual(t, r, Reason(r), "every code has an English text")
			}
		})
	}
}

func TestWeeklyWindowsAreValidatedOnTheWeeklyClock(t *testing.T) {
	t.Parallel()
	tz := "Asia/Kolkata"
	cases := []struct {
		desc    string
		windows []models.AvailabilityWindow
		field   string
	}{
		{desc: "touching windows are fine", windows: []models.AvailabilityWindow{{Day: models.Monday, Start: "09:00", End: "12:00"}, {Day: models.Monday, Start: "12:00", End: "24:00"}}},
		{desc: "the same hours on two days are fine", windows: []models.AvailabilityWindow{{Day: models.Monday, Start: "09:00", End: "12:00"}, {Day: models.Tuesday, Start: "09:00", End: "12:00"}}},
		{desc: "overlap", windows: []models.AvailabilityWindow{{Day: models.Friday, Start: "09:00", End: "12:00"}, {Day: models.Friday, Start: "11:59", End: "13:00"}}, field: "input.gpus.0.availability.windows.1"},
		{desc: "24:00 is not a start", windows: []models.AvailabilityWindow{{Day: models.Friday, Start: "24:00", End: "24:00"}}, field: "input.gpus.0.availability.windows.0.start"},
		{desc: "minutes past 59", windows: []models.AvailabilityWindow{{Day: models.Friday, Start: "09:60", End: "10:00"}}, field: "input.gpus.0.availability.windows.0.start"},
		{desc: "an end before the start runs into the next day (issue 11 point 4)", windows: []models.AvailabilityWindow{{Day: models.Friday, Start: "10:00", End: "09:00"}}},
		{desc: "an end equal to the start is empty", windows: []models.AvailabilityWindow{{Day: models.Friday, Start: "10:00", End: "10:00"}}, field: "input.gpus.0.availability.windows.0.end"},
		{desc: "an overnight window overlaps the next morning", windows: []models.AvailabilityWindow{{Day: models.Friday, Start: "20:00", End: "08:00"}, {Day: models.Saturday, Start: "07:00", End: "09:00"}}, field: "input.gpus.0.availability.windows.1"},
	}
	for _, tc := range cases {
		t.Run(tc.desc, func(t *testing.T) {
			t.Parallel()
			in := datacenter()
			in.Gpus[0].Location = models.Location{Region: &tz}
			in.Gpus[0].Availability = availability.Input{Kind: models.AvailabilityWeekly, TimeZone: &tz, Windows: tc.windows}
			err := in.normalize()
			if tc.field == "" {
				require.NoError(t, err)
				return
			}
			require.Error(t, err)
			require.Contains(t, err.Error(), tc.field)
		})
	}
}
