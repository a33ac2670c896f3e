package onboarding

import "github.com/gpunex/gpunex/models"

// MinEnterpriseGbps is the upload and download speed every entry needs for
// an Enterprise suggestion.
const MinEnterpriseGbps = 1.0

// MinEnterpriseCommitment is the commitment, in months, Enterprise needs.
const MinEnterpriseCommitment = 12

// SuggestTier applies the documented rules (see the package doc) to an
// application and explains its answer.
func SuggestTier(in *Input) (models.ProviderTier, []string) {
	var missing []string
	if !in.UpsProtected {
		missing = append(missing, "no UPS protection (mandatory for Enterprise)")
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
		missing = append(missing, "not every GPU entry is available 24/7")
	}
	if in.CommitmentMonths < MinEnterpriseCommitment {
		missing = append(missing, "commitment shorter than 12 months")
	}
	if in.Company == nil {
		missing = append(missing, "no company named")
	}
	if !fast {
		missing = append(missing, "upload or download below 1 Gbps")
	}
	if len(missing) == 0 {
		return models.TierEnterprise, []string{"UPS protection, 24/7 availability, a commitment of 12 months or more, a company and at least 1 Gbps both ways: a professional datacenter"}
	}
	return models.TierCommunity, missing
}
