import { graphql } from '../gql';

// Typed operations of the customer's statement: a page of the funds
// account's lines, and the whole statement as the server's CSV.

export const StatementQuery = graphql(`
  query Statement($first: Int, $after: String) {
    myStatement(first: $first, after: $after) {
      edges {
        cursor
        node {
          id
          postedAt
          kind
          reference
          rentalId
          amount
          balance
        }
      }
      pageInfo {
        hasNextPage
        endCursor
      }
      balance
    }
  }
`);

export const StatementCsvQuery = graphql(`
  query StatementCsv {
    myStatementCsv
  }
`);
