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
