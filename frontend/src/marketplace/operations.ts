import { graphql } from '../gql';

// Typed operations of the Marketplace page; `npm run codegen` turns each
// into a TypedDocumentNode in src/gql/. The page asks for one page of
// listings at a time and appends the next with the cursor ("Load more").

export const ListingFieldsFragment = graphql(`
  fragment ListingFields on Listing {
    id
    modelKey
    model {
      key
      name
    }
    gpuCount
    vramGb
    pricePerHour
    performanceScore
    reliabilityScore
    uptime
    tier
    commitmentMonths
    location {
      city
      country
      region
    }
    rank
    nextMaintenanceAt
    simulated
    providerName
    driverVersion
    cudaVersion
    cpuModel
    cpuCores
    ramBytes
    diskBytes
    performance {
      metric
      measuredTflops
      datasheetTflops
      ratio
      tflopsPerDollar
    }
    measured {
      at
      networkDownMbps
      networkUpMbps
      storageReadMBps
      storageWriteMBps
    }
    scheduleClosesAt
    reliabilityParts {
      uptime
      completion
      consistency
    }
  }
`);

export const MarketplaceQuery = graphql(`
  query Marketplace($filter: MarketplaceFilter, $sort: MarketplaceSort, $first: Int, $after: String) {
    marketplace(filter: $filter, sort: $sort, first: $first, after: $after) {
      edges {
        cursor
        node {
          ...ListingFields
        }
      }
      pageInfo {
        hasNextPage
        endCursor
      }
      userErrors {
        ...UserErrorFields
      }
    }
  }
`);

export const MarketplaceModelsQuery = graphql(`
  query MarketplaceModels {
    supportedGpuModels {
      key
      name
      family
      vramGb
    }
  }
`);

export const StartRentalMutation = graphql(`
  mutation StartRental($input: StartRentalInput!) {
    startRental(input: $input) {
      rental {
        id
        state
      }
      userErrors {
        ...UserErrorFields
      }
    }
  }
`);
