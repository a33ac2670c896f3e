import { graphql } from '../gql';

// Typed operations of the provider's Performance tab; `npm run codegen` turns
// each into a TypedDocumentNode in src/gql/. The query and
// reliabilityUpdated select the same ReliabilityFields, so a live event
// replaces what the page shows as a whole.

export const ReliabilityComponentsFieldsFragment = graphql(`
  fragment ReliabilityComponentsFields on ReliabilityComponents {
    uptime
    completion
    consistency
  }
`);

export const ReliabilityFieldsFragment = graphql(`
  fragment ReliabilityFields on Reliability {
    scored
    score
    components {
      ...ReliabilityComponentsFields
    }
    halfLifeDays
    windowDays
    floor
    belowFloor
    trend {
      day
      score
    }
    events {
      kind
      machineId
      hostname
      at
      endedAt
      magnitude
      cost
      detail
    }
    projection {
      day
      score
    }
    advice
    machines {
      machineId
      hostname
      scored
      score
      components {
        ...ReliabilityComponentsFields
      }
      belowFloor
    }
    asOf
  }
`);

export const ProviderReliabilityQuery = graphql(`
  query ProviderReliability {
    myProvider {
      id
      reliability {
        ...ReliabilityFields
      }
    }
  }
`);

export const ReliabilityUpdatedSubscription = graphql(`
  subscription ReliabilityUpdated {
    reliabilityUpdated {
      ...ReliabilityFields
    }
  }
`);
