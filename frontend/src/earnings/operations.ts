import { graphql } from '../gql';

// Typed operations of the provider's Earnings tab; `npm run codegen` turns
// each into a TypedDocumentNode in src/gql/. The query and earningsUpdated
// select the same EarningsFields, so a live event replaces the tracker as a
// whole; history and its CSV are asked for separately, per chosen range.

export const EarningsFieldsFragment = graphql(`
  fragment EarningsFields on Earnings {
    timeZone
    asOf
    accrualPerHour
    period {
      kind
      start
      end
      gross
      fees
      net
    }
    byGpu {
      gpuId
      gpuUuid
      gpuIndex
      machineId
      hostname
      modelKey
      model {
        key
        name
      }
      net
    }
    byModel {
      modelKey
      model {
        key
        name
      }
      net
    }
    availableBalance
    pendingPayouts {
      ...PayoutFields
    }
  }
`);

export const ProviderEarningsQuery = graphql(`
  query ProviderEarnings {
    myProvider {
      id
      earnings {
        ...EarningsFields
      }
    }
  }
`);

export const EarningsUpdatedSubscription = graphql(`
  subscription EarningsUpdated {
    earningsUpdated {
      ...EarningsFields
    }
  }
`);

export const EarningsHistoryQuery = graphql(`
  query EarningsHistory($from: DateTime!, $to: DateTime!, $groupBy: EarningsGrouping!) {
    myProvider {
      id
      earnings {
        timeZone
        history(from: $from, to: $to, groupBy: $groupBy) {
          start
          gross
          fees
          net
        }
      }
    }
  }
`);

export const EarningsHistoryCsvQuery = graphql(`
  query EarningsHistoryCsv($from: DateTime!, $to: DateTime!, $groupBy: EarningsGrouping!) {
    myProvider {
      id
      earnings {
        historyCsv(from: $from, to: $to, groupBy: $groupBy)
      }
    }
  }
`);
