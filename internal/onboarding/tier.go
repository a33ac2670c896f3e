package onboarding

import "github.com/gpunex/gpunex/models"

// MinEnterpriseGbps is the upload and download speed every entry needs for
// an Enterprise suggestion.
const MinEnterpriseGbps = 1.0

// MinEnterpriseCommitment is the commitment, in months, Enterprise needs.
const MinEnterpriseCommitment = 12

// The reasons behind a tier suggestion, by stable code (clients translate
// the code; Reason gives the English text).
const (
	ReasonNoUPS           = "NO_UPS"
	ReasonNotAlways       = "NOT_ALWAYS_AVAILABLE"
	ReasonShortCommitment = "SHORT_COMMITMENT"
	ReasonNoCompany       = "NO_COMPANY"
	ReasonSlowNetwork     = "SLOW_NETWORK"
	ReasonDatacenter      = "DATACENTER"
)

var reasonText = map[string]string{
	ReasonNoUPS:           "no UPS protection (mandatory for Enterprise)",
	ReasonNotAlways:       "not every GPU entry is available 24/7",
	ReasonShortCommitment: "commitment shorter than 12 months",
	ReasonNoCompany:       "no company named",
	ReasonSlowNetwork:     "upload or download below 1 Gbps",
	ReasonDatacenter:      "UPS protection, 24/7 availability, a commitment of 12 months or more, a company and at least 1 Gbps both ways: a professional datacenter",
}

// Reason is the English text of a reason code (the code itself if unknown).
func Reason(code string) string {
	if t, ok := reasonText[code]; ok {
		return t
	}
	return code
}

// SuggestTier applies the documented rules (see the package doc) to an
// application and explains its answer with reason codes.
func SuggestTier(in *Input) (models.ProviderTier, []string) {
	var missing []string
	if !in.UpsProtected {
		missing = append(missing, ReasonNoUPS)
	}
	always, fast := true, true
	for _, g := range in.Gpus {
		if g.Availability.Kind != models.AvailabilityAlways {
			always = false
		}
		if g.UploadGbps < MinEnterpriseGbps || g.DownloadGbps < MinEnterpriseGbps {
			fast = false
		}
	}
	if !always {
		missing = append(missing, ReasonNotAlways)
	}
	if in.CommitmentMonths < MinEnterpriseCommitment {
		missing = append(missing, ReasonShortCommitment)
	}
	if in.Company == nil {
		missing = append(missing, ReasonNoCompany)
	}
	if !fast {
		missing = append(missing, ReasonSlowNetwork)
	}
	if len(missing) == 0 {
		return models.TierEnterprise, []string{ReasonDatacenter}
	}
	return models.TierCommunity, missing
}
