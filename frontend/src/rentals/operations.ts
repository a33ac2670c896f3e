import { graphql } from '../gql';

// Typed operations of the Rentals pages; `npm run codegen` turns each into a
// TypedDocumentNode in src/gql/. The list, the detail, the subscription and
// stopRental's answer select the same RentalFields, so a live event or an
// answer replaces a rental as a whole.

export const RentalFieldsFragment = graphql(`
  fragment RentalFields on Rental {
    id
    state
    cause
    message
    modelKey
    model {
      key
      name
    }
    gpuCount
    pricePerHour
    image
    command
    envNames
    location {
      city
      country
      region
    }
    tier
    createdAt
    startedAt
    endedAt
    endsBy
    exitCode
    end
    billedSeconds
    billedUntil
    charged
    refunded
  }
`);

export const MyRentalsQuery = graphql(`
  query MyRentals($first: Int, $after: String) {
    myRentals(first: $first, after: $after) {
      edges {
        cursor
        node {
          ...RentalFields
        }
      }
      pageInfo {
        hasNextPage
        endCursor
      }
    }
  }
`);

export const RentalQuery = graphql(`
  query Rental($id: ID!) {
    rental(id: $id) {
      ...RentalFields
      logTail
    }
  }
`);

export const RentalsUpdatedSubscription = graphql(`
  subscription RentalsUpdated {
    rentalUpdated {
      ...RentalFields
    }
  }
`);

export const RentalUpdatedSubscription = graphql(`
  subscription RentalUpdated($id: ID!) {
    rentalUpdated(id: $id) {
      ...RentalFields
      logTail
    }
  }
`);

export const StopRentalMutation = graphql(`
  mutation StopRental($id: ID!) {
    stopRental(id: $id) {
      rental {
        ...RentalFields
      }
      userErrors {
        ...UserErrorFields
      }
    }
  }
`);

export const RentalsMonthTotalQuery = graphql(`
  query RentalsMonthTotal {
    myRentalsMonthTotal {
      monthStart
      charged
    }
  }
`);
