import { graphql } from '../gql';

// Typed operations of the account area; `npm run codegen` turns each into a
// TypedDocumentNode in src/gql/.

export const UserFieldsFragment = graphql(`
  fragment UserFields on User {
    id
    email
    name
    roles
    language
    createdAt
  }
`);

// signUp, confirmEmail and logIn answer alike: the signed-in user, or why
// not; signUp opens no session and says instead that it mailed the address.
export const AuthPayloadFieldsFragment = graphql(`
  fragment AuthPayloadFields on AuthPayload {
    user {
      ...UserFields
    }
    userErrors {
      ...UserErrorFields
    }
    confirmationSent
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
      ...AuthPayloadFields
    }
  }
`);

export const ConfirmEmailMutation = graphql(`
  mutation ConfirmEmail($token: String!) {
    confirmEmail(token: $token) {
      ...AuthPayloadFields
    }
  }
`);

export const LogInMutation = graphql(`
  mutation LogIn($input: LogInInput!) {
    logIn(input: $input) {
      ...AuthPayloadFields
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

// setLanguage stores the signed-in user's language: the SPA's after a
// log-in, and every email's.
export const SetLanguageMutation = graphql(`
  mutation SetLanguage($language: Language!) {
    setLanguage(language: $language) {
      user {
        id
        language
      }
      userErrors {
        ...UserErrorFields
      }
    }
  }
`);
