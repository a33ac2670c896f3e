import { graphql } from '../gql';

// Typed operations of the admin review area; `npm run codegen` turns each
// into a TypedDocumentNode in src/gql/. The detail page reads the same
// ApplicationFields the applicant sees, and rejecting or asking for more
// information answer with ApplicationPayloadFields, as the applicant's own
// mutations do (src/onboarding/operations.ts). Each page's query and its
// providerApplicationChanged subscription select the same fields, so a live
// message replaces what the query read.

export const QueueRowFieldsFragment = graphql(`
  fragment QueueRowFields on ProviderApplication {
    id
    status
    fullName
    email
    company
    gpus {
      model {
        key
        name
      }
      otherModel
      quantity
    }
    suggestedTier {
      tier
    }
    tier
    submittedAt
    updatedAt
  }
`);

export const ApplicationQueueQuery = graphql(`
  query ApplicationQueue($status: ApplicationStatus, $first: Int!, $after: String) {
    providerApplications(status: $status, first: $first, after: $after) {
      edges {
        cursor
        node {
          ...QueueRowFields
        }
      }
      pageInfo {
        hasNextPage
        endCursor
      }
      totalCount
    }
  }
`);

// The queue's filter tabs: how many applications each status holds.
export const ApplicationCountsQuery = graphql(`
  query ApplicationCounts {
    providerApplicationCounts {
      status
      count
    }
  }
`);

// The queue watches every application; a message is a row as it is now.
export const ApplicationQueueChangedSubscription = graphql(`
  subscription ApplicationQueueChanged {
    providerApplicationChanged {
      initial
      application {
        ...QueueRowFields
      }
    }
  }
`);

export const ApplicationReviewQuery = graphql(`
  query ApplicationReview($id: ID!) {
    providerApplication(id: $id) {
      ...ApplicationFields
    }
  }
`);

// The review page watches its application: every answer and the history,
// as the query reads them.
export const ApplicationReviewChangedSubscription = graphql(`
  subscription ApplicationReviewChanged($id: ID!) {
    providerApplicationChanged(id: $id) {
      initial
      application {
        ...ApplicationFields
      }
    }
  }
`);

export const ApproveApplicationMutation = graphql(`
  mutation ApproveApplication($id: ID!, $tier: ProviderTier, $message: String) {
    approveProviderApplication(id: $id, tier: $tier, message: $message) {
      application {
        ...ApplicationFields
      }
      provider {
        id
        tier
      }
      userErrors {
        ...UserErrorFields
      }
    }
  }
`);

export const RejectApplicationMutation = graphql(`
  mutation RejectApplication($id: ID!, $reason: String!) {
    rejectProviderApplication(id: $id, reason: $reason) {
      ...ApplicationPayloadFields
    }
  }
`);

export const RequestApplicationInfoMutation = graphql(`
  mutation RequestApplicationInfo($id: ID!, $message: String!) {
    requestApplicationInfo(id: $id, message: $message) {
      ...ApplicationPayloadFields
    }
  }
`);

// The admins' payouts page: the list by state, settling bank and manual
// payouts by hand, the bank file, and crediting a customer's funds.

export const AdminPayoutsQuery = graphql(`
  query AdminPayouts($state: PayoutState, $first: Int) {
    payouts(state: $state, first: $first) {
      ...PayoutFields
    }
    payoutTotals {
      state
      count
      amount
    }
  }
`);

export const MarkPayoutPaidMutation = graphql(`
  mutation MarkPayoutPaid($input: SettlePayoutInput!) {
    markPayoutPaid(input: $input) {
      payout {
        ...PayoutFields
      }
      userErrors {
        ...UserErrorFields
      }
    }
  }
`);

export const MarkPayoutFailedMutation = graphql(`
  mutation MarkPayoutFailed($input: SettlePayoutInput!) {
    markPayoutFailed(input: $input) {
      payout {
        ...PayoutFields
      }
      userErrors {
        ...UserErrorFields
      }
    }
  }
`);

export const CreateBankPayoutFileMutation = graphql(`
  mutation CreateBankPayoutFile {
    createBankPayoutFile {
      file
      payouts {
        ...PayoutFields
      }
      userErrors {
        ...UserErrorFields
      }
    }
  }
`);

export const CreditFundsMutation = graphql(`
  mutation CreditFunds($input: CreditFundsInput!) {
    creditFunds(input: $input) {
      balance
      userErrors {
        ...UserErrorFields
      }
    }
  }
`);

// The admins' fleet by reliability: every scored provider, lowest first,
// each with the server's floor and whether it scores under it.
export const ProvidersByReliabilityQuery = graphql(`
  query ProvidersByReliability($first: Int!) {
    providersByReliability(first: $first) {
      providerId
      applicationId
      name
      components {
        uptime
        completion
        consistency
      }
      score
      floor
      belowFloor
    }
  }
`);
