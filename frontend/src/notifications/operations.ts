import { graphql } from '../gql';

// Typed operations of the notifications area; `npm run codegen` turns each
// into a TypedDocumentNode in src/gql/.

export const NotificationFieldsFragment = graphql(`
  fragment NotificationFields on Notification {
    id
    kind
    title
    body
    params {
      key
      value
    }
    createdAt
    readAt
  }
`);

export const NotificationsQuery = graphql(`
  query Notifications($first: Int!) {
    notifications(first: $first) {
      edges {
        node {
          ...NotificationFields
        }
      }
      unreadCount
    }
  }
`);

export const MarkNotificationsReadMutation = graphql(`
  mutation MarkNotificationsRead($ids: [ID!]) {
    markNotificationsRead(ids: $ids) {
      updated
      unreadCount
      userErrors {
        ...UserErrorFields
      }
    }
  }
`);

export const NotificationAddedSubscription = graphql(`
  subscription NotificationAdded($afterId: ID) {
    notificationAdded(afterId: $afterId) {
      ...NotificationFields
    }
  }
`);
