import { graphql } from '../gql';

// The selection every mutation's userErrors share; `npm run codegen` turns it
// into a TypedDocumentNode in src/gql/. fieldErrors and errorsByPath
// (errors.ts) read these fields.

export const UserErrorFieldsFragment = graphql(`
  fragment UserErrorFields on UserError {
    field
    message
    code
  }
`);
