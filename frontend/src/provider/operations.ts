import { graphql } from '../gql';

// Typed operations of the provider's agent-token page; `npm run codegen`
// turns each into a TypedDocumentNode in src/gql/.

export const AgentTokenFieldsFragment = graphql(`
  fragment AgentTokenFields on AgentToken {
    id
    name
    prefix
    createdAt
    lastUsedAt
    revokedAt
    machineCount
  }
`);

export const MyProviderTokensQuery = graphql(`
  query MyProviderTokens {
    myProvider {
      id
      tier
      name
      agentTokens {
        ...AgentTokenFields
      }
    }
  }
`);

export const CreateAgentTokenMutation = graphql(`
  mutation CreateAgentToken($name: String!) {
    createAgentToken(name: $name) {
      token
      installCommand
      agentToken {
        ...AgentTokenFields
      }
      userErrors {
        ...UserErrorFields
      }
    }
  }
`);

export const RevokeAgentTokenMutation = graphql(`
  mutation RevokeAgentToken($id: ID!) {
    revokeAgentToken(id: $id) {
      agentToken {
        ...AgentTokenFields
      }
      userErrors {
        ...UserErrorFields
      }
    }
  }
`);
