import { graphql } from '../gql';

// Typed operations of the onboarding area (applying and following an
// application); `npm run codegen` turns each into a TypedDocumentNode in
// src/gql/. The admin area reuses ApplicationFields for its detail page.

export const GpuModelFieldsFragment = graphql(`
  fragment GpuModelFields on GpuModel {
    key
    family
    name
    variant
    vramGb
  }
`);

export const ApplicationFieldsFragment = graphql(`
  fragment ApplicationFields on ProviderApplication {
    id
    status
    fullName
    email
    company
    gpus {
      model {
        ...GpuModelFields
      }
      otherModel
      quantity
      ramGb
      uploadGbps
      downloadGbps
      availability {
        kind
        timeZone
        windows {
          day
          start
          end
        }
      }
      location {
        city
        country
        region
      }
    }
    upsProtected
    commitmentMonths
    maintenanceNotes
    suggestedTier {
      tier
      reasons
      reasonCodes
    }
    tier
    history {
      action
      actor {
        name
        isAdmin
      }
      message
      tier
      at
      # Admins only (null for the applicant): what a resubmission changed.
      changes {
        field
        before
        after
      }
    }
    submittedAt
    updatedAt
  }
`);

// Every mutation of an application but approval (which also names the new
// provider) answers with this payload: the application as it now is, or why not.
export const ApplicationPayloadFieldsFragment = graphql(`
  fragment ApplicationPayloadFields on ProviderApplicationPayload {
    application {
      ...ApplicationFields
    }
    userErrors {
      ...UserErrorFields
    }
  }
`);

export const SupportedGpuModelsQuery = graphql(`
  query SupportedGpuModels {
    supportedGpuModels {
      ...GpuModelFields
    }
  }
`);

export const MyApplicationQuery = graphql(`
  query MyApplication {
    myApplication {
      ...ApplicationFields
    }
  }
`);

export const SubmitProviderApplicationMutation = graphql(`
  mutation SubmitProviderApplication($input: ProviderApplicationInput!) {
    submitProviderApplication(input: $input) {
      ...ApplicationPayloadFields
    }
  }
`);

export const UpdateProviderApplicationMutation = graphql(`
  mutation UpdateProviderApplication($id: ID!, $input: ProviderApplicationInput!, $reply: String) {
    updateProviderApplication(id: $id, input: $input, reply: $reply) {
      ...ApplicationPayloadFields
    }
  }
`);

// Where the signed-in provider stands from application to first rental
// (the tracker on the application page and the Overview).
export const ProviderProgressQuery = graphql(`
  query ProviderProgress {
    myProvider {
      id
      progress {
        step
        reachedAt
      }
    }
  }
`);
