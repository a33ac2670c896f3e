import { graphql } from '../gql';

// Typed operations of the account area; `npm run codegen` turns each into a
// TypedDocumentNode in src/gql/.

export const UserFieldsFragment = graphql(`
  fragment UserFields on User {
    id
    email
    name
    roles
    createdAt
  }
`);

export const MeQuery = graphql(`
  query Me {
    me {
      ...UserFields
    }
  }
`);

export const SignUpMutation = graphql(`
  mutation SignUp($input: SignUpInput!) {
    signUp(input: $input) {
      user {
        ...UserFields
      }
      userErrors {
        field
        message
        code
      }
    }
  }
`);

export const LogInMutation = graphql(`
  mutation LogIn($input: LogInInput!) {
    logIn(input: $input) {
      user {
        ...UserFields
      }
      userErrors {
        field
        message
        code
      }
    }
  }
`);

export const LogOutMutation = graphql(`
  mutation LogOut {
    logOut {
      ok
    }
  }
`);
