import { graphql } from '../gql';

// The customer's prepaid balance, shown where they rent (the Rentals page
// and the Marketplace's rent dialog); `npm run codegen` types it.

export const MyFundsQuery = graphql(`
  query MyFunds {
    myFunds {
      balance
      perHour
      runsOutAt
    }
  }
`);

// Deposits in USDC on Solana (the Funds page): a request, paid from a
// wallet through its Solana Pay link, followed live as the platform sees
// and credits it. The list, the answer to createDeposit and the live
// events select the same DepositFields, so an event replaces a request
// as a whole.

export const DepositFieldsFragment = graphql(`
  fragment DepositFields on Deposit {
    id
    state
    amount
    credited
    createdAt
    expiresAt
    payment {
      url
      recipient
      mint
      amount
      reference
    }
    transfers {
      signature
      state
      amount
      late
      issue
      seenAt
      settledAt
      explorerUrl
    }
  }
`);

export const DepositsQuery = graphql(`
  query Deposits($first: Int) {
    depositTerms {
      available
      minimum
      maximum
      expiresInSeconds
    }
    myDeposits(first: $first) {
      ...DepositFields
    }
  }
`);

export const CreateDepositMutation = graphql(`
  mutation CreateDeposit($input: CreateDepositInput!) {
    createDeposit(input: $input) {
      deposit {
        ...DepositFields
      }
      userErrors {
        ...UserErrorFields
      }
    }
  }
`);

export const DepositUpdatedSubscription = graphql(`
  subscription DepositUpdated {
    depositUpdated {
      ...DepositFields
    }
  }
`);
