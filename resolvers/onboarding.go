package resolvers

import (
	"github.com/gpunex/gpunex/graph/model"
	"github.com/gpunex/gpunex/internal/catalog"
	"github.com/gpunex/gpunex/internal/fault"
	"github.com/gpunex/gpunex/internal/onboarding"
	"github.com/gpunex/gpunex/models"
)

// applicationInput maps the GraphQL input to the service's input.
func applicationInput(in model.ProviderApplicationInput) onboarding.Input {
	out := onboarding.Input{
		FullName: in.FullName, Email: in.Email, Company: in.Company,
		UpsProtected: in.UpsProtected != nil && *in.UpsProtected, UpsUnanswered: in.UpsProtected == nil,
		CommitmentMonths: in.CommitmentMonths, MaintenanceNotes: in.MaintenanceNotes,
		Gpus: make([]onboarding.GPUInput, 0, len(in.Gpus)),
	}
	for _, g := range in.Gpus {
		if g == nil {
			continue
		}
		gi := onboarding.GPUInput{
			ModelKey: g.ModelKey, OtherModel: g.OtherModel, Quantity: g.Quantity, RAMGb: g.RAMGb,
			UploadGbps: g.UploadGbps, DownloadGbps: g.DownloadGbps,
		}
		if g.Availability != nil {
			gi.Availability = *g.Availability
		}
		if l := g.Location; l != nil {
			gi.Location = models.Location{City: l.City, Country: l.Country, Region: l.Region}
		}
		out.Gpus = append(out.Gpus, gi)
	}
	return out
}

// applicationPayload maps a service result to the mutation payload.
func applicationPayload(app *models.ProviderApplication, err error) (*model.ProviderApplicationPayload, error) {
	return payload(err, func(ue []*fault.Problem) *model.ProviderApplicationPayload {
		return &model.ProviderApplicationPayload{Application: app, UserErrors: ue}
	})
}

// gpuModel is the catalog entry of a model key, or nil for none.
func gpuModel(key *string) *catalog.GpuModel {
	if key == nil {
		return nil
	}
	return catalog.ByKey(*key)
}
