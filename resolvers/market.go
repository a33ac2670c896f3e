package resolvers

import (
	"github.com/gpunex/gpunex/graph/model"
	"github.com/gpunex/gpunex/internal/market"
)

// marketFilter maps the GraphQL filter to the market's.
func marketFilter(f *model.MarketplaceFilter) market.Filter {
	if f == nil {
		return market.Filter{}
	}
	return market.Filter{Model: f.Model, Country: f.Country, Region: f.Region, MinVramGb: f.MinVramGb, MinGpus: f.MinGpus,
		MaxPricePerHour: f.MaxPricePerHour, MinReliability: f.MinReliability, MinPerformance: f.MinPerformance, Tier: f.Tier}
}

// startInput maps startRental's input to the market's.
func startInput(in model.StartRentalInput) market.StartInput {
	out := market.StartInput{ListingID: in.ListingID, Model: in.Model, GpuCount: in.GpuCount, Image: in.Image,
		Command: in.Command, EndBy: in.EndBy}
	if in.Filter != nil {
		f := marketFilter(in.Filter)
		out.Filter = &f
	}
	for _, e := range in.Env {
		if e != nil {
			out.Env = append(out.Env, market.EnvVar{Name: e.Name, Value: e.Value})
		}
	}
	return out
}
