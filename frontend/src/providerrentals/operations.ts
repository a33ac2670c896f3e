import { graphql } from '../gql';

// Typed operations of the provider's Rentals section (the rentals on its
// GPUs); `npm run codegen` turns each into a TypedDocumentNode in src/gql/.
// The query and providerRentalUpdated select the same fragment, so a live
// event replaces a rental as the query lists it.

export const ProviderRentalFieldsFragment = graphql(`
  fragment ProviderRentalFields on ProviderRental {
    id
    state
    cause
    machineId
    hostname
    modelKey
    model {
      key
      name
    }
    gpuCount
    gpuUuids
    gpuIndexes
    pricePerHour
    earned
    image
    createdAt
    startedAt
    endedAt
  }
`);

export const ProviderRentalsQuery = graphql(`
  query ProviderRentals {
    myProvider {
      id
      rentals {
        ...ProviderRentalFields
      }
    }
  }
`);

export const ProviderRentalUpdatedSubscription = graphql(`
  subscription ProviderRentalUpdated {
    providerRentalUpdated {
      ...ProviderRentalFields
    }
  }
`);
