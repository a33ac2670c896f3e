import { graphql } from '../gql';

// Typed operations of the provider's Pricing tab; `npm run codegen` turns
// each into a TypedDocumentNode in src/gql/. The query and the mutations'
// answers select the same fragments, so an answer replaces what the page
// shows.

export const GpuPriceFieldsFragment = graphql(`
  fragment GpuPriceFields on GpuPrice {
    modelKey
    model {
      key
      name
    }
    pricePerHour
    updatedAt
    history {
      pricePerHour
      at
    }
  }
`);

export const ScheduleFieldsFragment = graphql(`
  fragment ScheduleFields on AvailabilitySchedule {
    availability {
      kind
      timeZone
      windows {
        day
        start
        end
      }
    }
    openNow
    nextChangeAt
    updatedAt
  }
`);

export const MaintenanceWindowFieldsFragment = graphql(`
  fragment MaintenanceWindowFields on MaintenanceWindow {
    id
    machineId
    startsAt
    endsAt
    note
  }
`);

export const ProviderPricingQuery = graphql(`
  query ProviderPricing {
    myProvider {
      id
      machines {
        id
        hostname
        gpus {
          id
          model {
            key
            name
          }
        }
      }
      prices {
        ...GpuPriceFields
      }
      schedule {
        ...ScheduleFields
      }
      maintenance {
        ...MaintenanceWindowFields
      }
    }
  }
`);

export const MarketRegionFieldsFragment = graphql(`
  fragment MarketRegionFields on MarketRegion {
    level
    city
    country
    continent
  }
`);

export const PriceOutcomeFieldsFragment = graphql(`
  fragment PriceOutcomeFields on PriceOutcome {
    pricePerHour
    utilization
    monthlyEarnings
  }
`);

// Price advice for one model in the provider's own region (the server
// takes the provider's location when no region is given).
export const PricingRecommendationQuery = graphql(`
  query PricingRecommendation($model: String!, $region: String) {
    pricingRecommendation(model: $model, region: $region) {
      modelKey
      region {
        ...MarketRegionFields
      }
      ownsModel
      basis
      market {
        region {
          ...MarketRegionFields
        }
        p10
        p50
        p90
        gpuCount
        providerCount
      }
      minPricePerHour
      maxPricePerHour
      recommended {
        ...PriceOutcomeFields
      }
      current {
        ...PriceOutcomeFields
      }
      curve {
        ...PriceOutcomeFields
      }
      platformFeeBps
      hoursPerMonth
      reasons {
        code
        region {
          ...MarketRegionFields
        }
        gpuCount
        providerCount
        utilization
        gpuHours
        weeks
        percent
        modelCount
        pricePerHour
        limitPerHour
      }
    }
  }
`);

export const SetGpuPriceMutation = graphql(`
  mutation SetGpuPrice($input: SetGpuPriceInput!) {
    setGpuPrice(input: $input) {
      price {
        ...GpuPriceFields
      }
      userErrors {
        ...UserErrorFields
      }
    }
  }
`);

export const SetAvailabilityScheduleMutation = graphql(`
  mutation SetAvailabilitySchedule($input: SetAvailabilityScheduleInput!) {
    setAvailabilitySchedule(input: $input) {
      schedule {
        ...ScheduleFields
      }
      maintenance {
        ...MaintenanceWindowFields
      }
      userErrors {
        ...UserErrorFields
      }
    }
  }
`);
