import { graphql } from '../gql';

// Typed operations of the provider's Payouts tab; `npm run codegen` turns
// each into a TypedDocumentNode in src/gql/. PayoutFields is how every page
// (this tab, the Earnings tab's pending payouts, the admins' payouts)
// selects a payout, so a mutation's answer replaces a row as a whole.

export const PayoutFieldsFragment = graphql(`
  fragment PayoutFields on Payout {
    id
    periodStart
    periodEnd
    amount
    kind
    destination
    state
    reference
    signature
    transactionUrl
    paidReference
    failure
    createdAt
    paidAt
    provider {
      id
      name
      applicationId
    }
  }
`);

export const PayoutMethodFieldsFragment = graphql(`
  fragment PayoutMethodFields on PayoutMethod {
    schedule
    kind
    solanaAddress
    ibanMasked
    bic
    accountHolder
    changedAt
    holdUntil
  }
`);

export const ProviderPayoutsQuery = graphql(`
  query ProviderPayouts {
    myProvider {
      id
      payoutMethod {
        ...PayoutMethodFields
      }
      nextPayout {
        periodStart
        periodEnd
        dueAt
        available
        threshold
        thresholdMet
        heldUntil
      }
      earnings {
        availableBalance
      }
      payouts(first: 50) {
        ...PayoutFields
      }
      payoutWeeks(weeks: 12) {
        start
        paid
        count
      }
    }
  }
`);

export const SetPayoutMethodMutation = graphql(`
  mutation SetPayoutMethod($input: SetPayoutMethodInput!) {
    setPayoutMethod(input: $input) {
      method {
        ...PayoutMethodFields
      }
      userErrors {
        ...UserErrorFields
      }
    }
  }
`);

export const RequestPayoutMutation = graphql(`
  mutation RequestPayout {
    requestPayout {
      payout {
        ...PayoutFields
      }
      userErrors {
        field
        message
        code
      }
    }
  }
`);
